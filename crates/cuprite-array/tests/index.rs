//! Indexing (take, take_along_axis, index_select, gather, masks, NumPy's general index) and
//! assignment (assign, fill, masked_fill, masked_assign, put, assign_index) against host
//! references, every dtype, on every backend present; NumPy's rules on a table of mixed
//! indices with shapes and values worked out by hand; copy-on-write aliasing. Scatters are in
//! `index_scatter.rs`.

use crate::common::Body;
use cuprite_array::ops::SortOpts;
use cuprite_array::ops::TakeOpts;
use cuprite_array::ops::{Idx, IndexMode, ScatterOpts};
use cuprite_array::{Array, Device, Element, Side, bf16, f16, s};
use cuprite_testkit::{Rng, Test, TestResult};

/// An array of `T` holding `vals` (cast from i64), and the values it holds as f64.
pub fn arr<T: Element>(
    vals: &[i64],
    shape: &[usize],
) -> Result<(Array<T>, Vec<f64>), cuprite_array::Error> {
    let a = Array::from_slice(vals, shape)?.cast::<T>();
    a.eval()?;
    let h = a.cast::<f64>().to_vec()?;
    Ok((a, h))
}

pub fn f64s<T: Element>(a: &Array<T>) -> Result<Vec<f64>, cuprite_array::Error> {
    a.cast::<f64>().to_vec()
}

fn eq(got: &[f64], want: &[f64], what: &str) -> TestResult {
    if got != want {
        return Err(format!("{what}: got {got:?}, expected {want:?}").into());
    }
    Ok(())
}

fn expect_err<T>(r: Result<T, cuprite_array::Error>, needles: &[&str], what: &str) -> TestResult {
    match r {
        Ok(_) => Err(format!("{what}: expected an error").into()),
        Err(e) => {
            let m = e.to_string();
            for n in needles {
                if !m.contains(n) {
                    return Err(format!("{what}: error `{m}` does not name `{n}`").into());
                }
            }
            Ok(())
        }
    }
}

/// Row-major coordinates of flat position `f` in `shape`.
fn unravel(mut f: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = f % shape[d];
        f /= shape[d];
    }
    c
}

fn ravel(c: &[usize], shape: &[usize]) -> usize {
    c.iter().zip(shape).fold(0, |acc, (&x, &n)| acc * n + x)
}

fn norm_idx(i: i64, n: usize) -> usize {
    if i < 0 {
        (i + n as i64) as usize
    } else {
        i as usize
    }
}

/// `take` along every axis (and flat), `take_along_axis`, `index_select`, `gather`, for one dtype.
fn gathers_of<T: Element>(d: Device, rng: &mut Rng) -> TestResult {
    cuprite_array::with_device(d, || {
        let shape = [3usize, 4, 5];
        let vals: Vec<i64> = (0..60).map(|_| (rng.next_u64() % 50) as i64).collect();
        let (a, h) = arr::<T>(&vals, &shape)?;
        for ax in 0..3 {
            let n = shape[ax];
            let iv: Vec<i64> = (0..6)
                .map(|_| (rng.next_u64() % (2 * n as u64)) as i64 - n as i64)
                .collect();
            let ishape = [2usize, 3];
            let out = |i32s: bool| -> Result<Array<T>, cuprite_array::Error> {
                if i32s {
                    let ii: Vec<i32> = iv.iter().map(|&v| v as i32).collect();
                    a.take_with(
                        &Array::from_slice(&ii, &ishape)?,
                        TakeOpts::new().axis(ax as isize),
                    )
                } else {
                    a.take_with(
                        &Array::from_slice(&iv, &ishape)?,
                        TakeOpts::new().axis(ax as isize),
                    )
                }
            };
            let mut oshape = shape[..ax].to_vec();
            oshape.extend_from_slice(&ishape);
            oshape.extend_from_slice(&shape[ax + 1..]);
            let want: Vec<f64> = (0..oshape.iter().product())
                .map(|f| {
                    let c = unravel(f, &oshape);
                    let j = ravel(&c[ax..ax + 2], &ishape);
                    let mut src = c[..ax].to_vec();
                    src.push(norm_idx(iv[j], n));
                    src.extend_from_slice(&c[ax + 2..]);
                    h[ravel(&src, &shape)]
                })
                .collect();
            for i32s in [false, true] {
                let g = out(i32s)?;
                assert_eq!(g.shape(), &oshape[..]);
                eq(&f64s(&g)?, &want, &format!("take {} axis {ax}", T::DTYPE))?;
            }
            // index_select / gather: the 1-D case.
            let i1 = Array::from_slice(&iv[..4], &[4])?.cast::<i16>();
            let s1 = a.index_select(ax as isize, &i1)?;
            let g1 = a.gather(ax as isize - 3, &i1)?;
            let want1: Vec<f64> = (0..s1.len())
                .map(|f| {
                    let mut c = unravel(f, s1.shape());
                    c[ax] = norm_idx(iv[c[ax]], n);
                    h[ravel(&c, &shape)]
                })
                .collect();
            eq(&f64s(&s1)?, &want1, "index_select")?;
            eq(&f64s(&g1)?, &want1, "gather")?;
            // take_along_axis with a broadcast index (extent 1 on the first other axis).
            let mut tshape = shape.to_vec();
            tshape[ax] = 3;
            let other = (0..3).find(|&x| x != ax).unwrap_or(0);
            tshape[other] = 1;
            let tn: usize = tshape.iter().product();
            let tv: Vec<u8> = (0..tn).map(|_| (rng.next_u64() % n as u64) as u8).collect();
            let t = a.take_along_axis(&Array::from_slice(&tv, &tshape)?, ax as isize)?;
            let mut outs = shape.to_vec();
            outs[ax] = 3;
            assert_eq!(t.shape(), &outs[..]);
            let wantt: Vec<f64> = (0..t.len())
                .map(|f| {
                    let mut c = unravel(f, &outs);
                    let mut ic = c.clone();
                    ic[other] = 0;
                    c[ax] = tv[ravel(&ic, &tshape)] as usize;
                    h[ravel(&c, &shape)]
                })
                .collect();
            eq(&f64s(&t)?, &wantt, "take_along_axis")?;
        }
        // Flat take with a 0-d index.
        let z = a.take(&Array::from_slice(&[-1i64], &[])?)?;
        assert_eq!(z.shape(), &[] as &[usize]);
        eq(&f64s(&z)?, &[h[59]], "flat take")?;
        Ok(())
    })
}

fn gathers_all_dtypes(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    gathers_of::<bool>(d, &mut rng)?;
    gathers_of::<u8>(d, &mut rng)?;
    gathers_of::<i8>(d, &mut rng)?;
    gathers_of::<u16>(d, &mut rng)?;
    gathers_of::<i16>(d, &mut rng)?;
    gathers_of::<u32>(d, &mut rng)?;
    gathers_of::<i32>(d, &mut rng)?;
    gathers_of::<u64>(d, &mut rng)?;
    gathers_of::<i64>(d, &mut rng)?;
    gathers_of::<f16>(d, &mut rng)?;
    gathers_of::<bf16>(d, &mut rng)?;
    gathers_of::<f32>(d, &mut rng)?;
    gathers_of::<f64>(d, &mut rng)?;
    gathers_of::<cuprite_array::c64>(d, &mut rng)
}

fn modes_and_errors(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let a = Array::from_slice(&[10i32, 11, 12, 13, 14], &[5])?;
        let i = Array::from_slice(&[-7i64, -1, 0, 4, 5, 12], &[6])?;
        assert_eq!(
            a.take_with(&i, TakeOpts::new().mode(IndexMode::Clamp))?
                .to_vec()?,
            [10, 10, 10, 14, 14, 14]
        );
        assert_eq!(
            a.take_with(&i, TakeOpts::new().mode(IndexMode::Wrap))?
                .to_vec()?,
            [13, 14, 10, 14, 10, 12]
        );
        expect_err(a.take(&i), &["-7", "extent 5"], "out of range")?;
        let big = Array::from_slice(&[0u64, u64::MAX], &[2])?;
        expect_err(a.take(&big), &["18446744073709551615"], "u64 max")?;
        let fl = Array::from_slice(&[0.0f32], &[1])?;
        expect_err(a.take(&fl), &["f32"], "float index")?;
        expect_err(a.index(&[Idx::array(&fl)]), &["f32"], "float index array")?;
        expect_err(a.take_along_axis(&i, 0), &["-7"], "take_along_axis range")?;
        let m = Array::from_slice(&[true, false], &[2])?;
        expect_err(a.masked_select(&m), &["[2]", "[5]"], "mask shape")?;
        expect_err(
            a.index(&[Idx::array(&m)]),
            &["[2]", "[5]"],
            "index mask shape",
        )?;
        let e = Array::<f32>::zeros(&[0, 3]);
        expect_err(
            e.take_with(&Array::from_slice(&[0i64], &[1])?, TakeOpts::new().axis(0)),
            &["extent 0"],
            "empty axis",
        )?;
        expect_err(
            e.take_with(
                &Array::from_slice(&[0i64], &[1])?,
                TakeOpts::new().axis(0).mode(IndexMode::Wrap),
            ),
            &["extent 0"],
            "wrap empty",
        )?;
        // An empty index on an empty axis is fine.
        let none = e.take_with(&Array::<i64>::zeros(&[0]), TakeOpts::new().axis(0))?;
        assert_eq!(none.shape(), &[0, 3]);
        expect_err(
            a.index_select(0, &Array::from_slice(&[0i64; 4], &[2, 2])?),
            &["1-D"],
            "2-D index_select",
        )?;
        // Index results feed later element-wise work.
        let f = &a.take(&Array::from_slice(&[4i8, 0], &[2])?)? * 2;
        assert_eq!(f.to_vec()?, [28, 20]);
        Ok(())
    })
}

/// The `Error` mode's check inside the gather kernel: computed indices (the index arithmetic
/// fused with the check and the gather), one bad index among many found with its value and
/// position, a fresh flag on every call (a good call right after a bad one succeeds), broadcast
/// indices, unsigned indices, negative indices in range.
fn checked_in_kernel(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let n = 100_000usize;
        let src: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
        let a = Array::from_slice(&src, &[n])?;
        // idx[j] = (7 j) mod n - n/2: in [-n/2, n/2), negative ones counted from the end.
        let base = Array::<i64>::arange(0, n as i64, 1)?;
        let idx = base.try_mul(7i64)?.rem(n as i64).try_sub((n / 2) as i64)?;
        let want: Vec<f32> = (0..n)
            .map(|j| {
                let i = ((7 * j) % n) as i64 - (n / 2) as i64;
                src[if i < 0 {
                    (i + n as i64) as usize
                } else {
                    i as usize
                }]
            })
            .collect();
        for round in 0..3 {
            assert_eq!(a.take(&idx)?.to_vec()?, want, "round {round}");
            // One index pushed out of range at position 77_777.
            let bad_at = Array::<i64>::arange(0, n as i64, 1)?.equal(77_777i64);
            let bad = Array::select(&bad_at, Array::<i64>::scalar((n + 5) as i64), &idx)?;
            expect_err(
                a.take(&bad),
                &[&(n + 5).to_string(), "77777", &n.to_string()],
                "one bad index among many",
            )?;
            let low = Array::select(&bad_at, Array::<i64>::scalar(-(n as i64) - 1), &idx)?;
            expect_err(
                a.take_with(&low, TakeOpts::new().axis(0)),
                &["-100001"],
                "below -n",
            )?;
        }
        // Along an axis, with an index broadcast against the other axes.
        let m = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
        let along = Array::from_slice(&[2u32, 0], &[1, 2])?;
        assert_eq!(m.take_along_axis(&along, 1)?.to_vec()?, [3, 1, 6, 4]);
        let over = Array::from_slice(&[2u32, 3], &[1, 2])?;
        expect_err(m.take_along_axis(&over, 1), &["3", "extent 3"], "u32 over")?;
        assert_eq!(
            m.take_with(&Array::from_slice(&[-1i8], &[1])?, TakeOpts::new().axis(0))?
                .to_vec()?,
            [4, 5, 6]
        );
        expect_err(
            m.index_select(1, &Array::from_slice(&[0i16, -4], &[2])?),
            &["-4"],
            "index_select below",
        )?;
        expect_err(
            m.gather(0, &Array::from_slice(&[2u8], &[1])?),
            &["2"],
            "gather over",
        )?;
        // The general index: two arrays broadcast together, then one out of range.
        let r = Array::from_slice(&[1i64, 0], &[2, 1])?;
        let c = Array::from_slice(&[-1i32, 0, 2], &[1, 3])?;
        assert_eq!(
            m.index(&[Idx::array(&r), Idx::array(&c)])?.to_vec()?,
            [6, 4, 6, 3, 1, 3]
        );
        let c_bad = Array::from_slice(&[-1i32, 3, 2], &[1, 3])?;
        expect_err(
            m.index(&[Idx::array(&r), Idx::array(&c_bad)]),
            &["3", "axis 1"],
            "general index over",
        )?;
        assert_eq!(
            m.index(&[Idx::full(), Idx::array(&c)])?.to_vec()?,
            [3, 1, 3, 6, 4, 6]
        );
        // Scatters: the update passes check (atomic and deterministic sums, a max), i32 and
        // i64 indices; a good call after a bad one succeeds.
        let dst = 1000usize;
        let base = Array::<f32>::zeros(&[dst]);
        let vals = Array::<f32>::ones(&[n]);
        let sidx = base_idx_mod(n, dst)?;
        let mut want = vec![0.0f32; dst];
        (0..n).for_each(|j| want[(7 * j) % dst] += 1.0);
        for det in [false, true] {
            let o = ScatterOpts {
                deterministic: det,
                ..Default::default()
            };
            for round in 0..2 {
                assert_eq!(
                    base.index_add(0, &sidx, &vals, o)?.to_vec()?,
                    want,
                    "index_add det {det} round {round}"
                );
                let bad = Array::select(
                    &Array::<i64>::arange(0, n as i64, 1)?.equal(54_321i64),
                    Array::<i64>::scalar(dst as i64),
                    &sidx,
                )?;
                expect_err(
                    base.index_add(0, &bad, &vals, o),
                    &["1000", "54321", "extent 1000"],
                    "index_add one bad index",
                )?;
                expect_err(
                    base.index_add(0, &bad.cast::<i32>(), &vals, o),
                    &["1000", "54321"],
                    "index_add i32 bad index",
                )?;
            }
        }
        let neg = Array::from_slice(&[-1i32, -1001], &[2])?;
        expect_err(
            base.scatter_max(0, &neg, &Array::<f32>::ones(&[2]), ScatterOpts::default()),
            &["-1001"],
            "scatter_max below",
        )?;
        assert_eq!(base.to_vec()?, vec![0.0; dst], "the base is unchanged");
        Ok(())
    })
}

/// The checked calls' out-of-range flags: on CUDA each call reads a mapped host word (counted),
/// and the words go back to the device's page after each call (more calls than the page has
/// words, from four threads at once); a raised flag never shows in the next call.
fn flag_words(d: Device) -> TestResult {
    let cuda = d != Device::CPU;
    let src: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let work = |t: usize| -> TestResult {
        cuprite_array::with_device(d, || {
            let a = Array::from_slice(&src, &[64])?;
            // Through f64 and back: indices whose range is not known, so each call checks.
            let good = Array::from_slice(&[3i64, -1, t as i64], &[3])?
                .cast::<f64>()
                .cast::<i64>();
            let bad = Array::from_slice(&[3i64, 64 + t as i64], &[2])?;
            let before = cuprite_array::stats::thread_mapped_flag_reads();
            let calls = 1300;
            for k in 0..calls {
                if k % 100 == 7 {
                    expect_err(a.take(&bad), &[&(64 + t).to_string()], "bad index")?;
                } else {
                    assert_eq!(a.take(&good)?.to_vec()?, [3.0, 63.0, t as f32], "call {k}");
                }
            }
            let reads = cuprite_array::stats::thread_mapped_flag_reads() - before;
            let want = if cuda { calls as u64 } else { 0 };
            assert_eq!(reads, want, "mapped flag reads on thread {t}");
            Ok(())
        })
    };
    std::thread::scope(|s| {
        let work = &work;
        let hs: Vec<_> = (0..4).map(|t| s.spawn(move || work(t))).collect();
        for h in hs {
            h.join().expect("thread")?;
        }
        Ok(())
    })
}

/// Indices whose value range is known from how they were made need no check: the `Error`
/// mode then stays lazy (no evaluation, no flag read) and gives the same values; a range that
/// reaches past the axis, or arithmetic that may wrap, keeps the check.
fn known_ranges(d: Device) -> TestResult {
    use cuprite_array::stats::{thread_evaluations, thread_mapped_flag_reads};
    cuprite_array::with_device(d, || {
        let n = 1000usize;
        let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let a = Array::from_slice(&src, &[n])?;
        let pick = |i: i64| src[if i < 0 { i + n as i64 } else { i } as usize];
        // Made on the device: randint, a clamp of unknown values, `% n` (signed), arange.
        let unknown = Array::<f64>::rand_uniform(&[4096], 5)? * 3000.0 - 1500.0;
        let unknown = unknown.cast::<i64>();
        let cases: Vec<(&str, Array<i64>)> = vec![
            ("randint", Array::<i64>::randint(0, n as i64, &[4096], 9)?),
            (
                "randint from the end",
                Array::<i64>::randint(-(n as i64), 0, &[4096], 9)?,
            ),
            ("clamp", unknown.clamp(0i64, n as i64 - 1)),
            ("remainder", unknown.rem(n as i64)),
            ("arange", Array::<i64>::arange(0, n as i64, 3)?),
            ("upload", Array::from_slice(&[5i64, -1, 999, -1000], &[4])?),
        ];
        for (what, idx) in &cases {
            let host = idx.to_vec()?;
            let want: Vec<f32> = host.iter().map(|&i| pick(i)).collect();
            let (e0, f0) = (thread_evaluations(), thread_mapped_flag_reads());
            let g = a.take(idx)?;
            assert_eq!(
                thread_evaluations(),
                e0,
                "{what}: the checked take stays lazy"
            );
            assert_eq!(g.to_vec()?, want, "{what}");
            assert_eq!(thread_mapped_flag_reads(), f0, "{what}: no flag read");
            // A view (reshape, slice) keeps the range: still lazy.
            let half = idx.slice(&[cuprite_array::shape::SliceArg::Range {
                start: Some(0),
                end: Some(2),
                step: 1,
            }])?;
            let e0 = thread_evaluations();
            let g = a.take(&half.reshape(&[2, 1])?)?;
            assert_eq!(thread_evaluations(), e0, "{what}: a view stays lazy");
            assert_eq!(g.to_vec()?, want[..2], "{what}: view");
        }
        // Positions that argsort, argmax, topk and searchsorted return are in range by
        // construction: taking with them stays lazy too.
        let keys = Array::<f32>::rand_uniform(&[n], 2)?;
        let wide = Array::from_slice(&(0..=n).map(|i| i as f32).collect::<Vec<_>>(), &[n + 1])?;
        let positions: Vec<(&str, Array<i64>, &Array<f32>)> = vec![
            (
                "argsort",
                keys.argsort_with(0, SortOpts::new().descending(true))?,
                &a,
            ),
            ("argmax", keys.reshape(&[10, n / 10])?.argmax_axis(1)?, &a),
            ("argmin", keys.argmin()?, &a),
            ("topk", keys.topk(7, 0)?.1, &a),
            (
                "searchsorted",
                a.searchsorted(&(&keys * n as f32), Side::Left)?,
                &wide,
            ),
        ];
        for (what, idx, from) in &positions {
            let e0 = thread_evaluations();
            let g = from.take(idx)?;
            assert_eq!(
                thread_evaluations(),
                e0,
                "{what}: the checked take stays lazy"
            );
            let want: Vec<f32> = idx.to_vec()?.iter().map(|&i| i as f32).collect();
            assert_eq!(g.to_vec()?, want, "{what}");
        }
        // The same through the scatter: index_add with randint indices reads no flag.
        let idx = Array::<i64>::randint(0, 64, &[5000], 3)?;
        let host = idx.to_vec()?;
        let f0 = thread_mapped_flag_reads();
        let sums = Array::<f32>::zeros(&[64])
            .index_add(
                0,
                &idx,
                &Array::<f32>::ones(&[5000]),
                ScatterOpts::default(),
            )?
            .to_vec()?;
        assert_eq!(thread_mapped_flag_reads(), f0, "index_add: no flag read");
        let mut want = vec![0.0f32; 64];
        for &i in &host {
            want[i as usize] += 1.0;
        }
        assert_eq!(sums, want, "index_add with known indices");
        // Ranges that do not prove the indices valid keep the check (and its `Err`).
        let over = Array::<i64>::randint(0, n as i64 + 1, &[20000], 4)?;
        assert!(over.to_vec()?.contains(&(n as i64)), "the seed draws n");
        expect_err(a.take(&over), &["1000", "extent 1000"], "randint past n")?;
        expect_err(
            a.take(&Array::from_slice(&[3i64, -1001], &[2])?),
            &["-1001"],
            "upload past -n",
        )?;
        // i32 arithmetic that wraps has no range: MAX + 1 wraps to MIN, found by the check.
        let w = Array::from_slice(&[0i32, i32::MAX], &[2])?.try_add(1i32)?;
        expect_err(a.take(&w), &[&i32::MIN.to_string()], "wrapped i32")?;
        // Ranges survive realisation.
        let r = Array::<i64>::randint(0, n as i64, &[64], 1)?;
        r.eval()?;
        let e0 = thread_evaluations();
        let g = a.take(&r)?;
        assert_eq!(
            thread_evaluations(),
            e0,
            "realised indices keep their range"
        );
        g.eval()?;
        Ok(())
    })
}

/// A random i64 expression of `LEN` elements over every kind of node a value range is inferred
/// for (uploads, `arange`, `randint`, constants, values through f64 whose range is unknown;
/// `+ - * %`, `min`, `max`, `clamp`, selections, narrowing casts that wrap).
fn range_expr(rng: &mut Rng, depth: usize) -> Result<Array<i64>, cuprite_array::Error> {
    const LEN: usize = 6;
    let small = |rng: &mut Rng| (rng.next_u64() % 41) as i64 - 20;
    let pick = rng.next_u64() % if depth == 0 { 5 } else { 14 };
    let sub = |rng: &mut Rng| range_expr(rng, depth.saturating_sub(1));
    Ok(match pick {
        0 => {
            let v: Vec<i64> = (0..LEN).map(|_| small(rng)).collect();
            Array::from_slice(&v, &[LEN])?
        }
        1 => {
            let (start, step) = (small(rng), 1 + (rng.next_u64() % 4) as i64);
            Array::<i64>::arange(start, start + LEN as i64 * step, step)?
        }
        2 => {
            let lo = small(rng);
            let hi = lo + 1 + (rng.next_u64() % 30) as i64;
            Array::<i64>::randint(lo, hi, &[LEN], rng.next_u64())?
        }
        3 => Array::full(&[LEN], small(rng)),
        4 => {
            let v: Vec<f64> = (0..LEN).map(|_| small(rng) as f64).collect();
            Array::from_slice(&v, &[LEN])?.cast::<i64>()
        }
        5 => sub(rng)?.try_add(&sub(rng)?)?,
        6 => sub(rng)?.try_sub(&sub(rng)?)?,
        7 => sub(rng)?.try_mul(&sub(rng)?)?,
        8 => sub(rng)?.rem(1 + (rng.next_u64() % 9) as i64),
        9 => sub(rng)?.rem(&sub(rng)?),
        10 => sub(rng)?.minimum(&sub(rng)?),
        11 => {
            let (a, b) = (small(rng), small(rng));
            sub(rng)?.clamp(a.min(b), a.max(b))
        }
        12 => {
            let c = sub(rng)?.less(small(rng));
            Array::select(&c, &sub(rng)?, &sub(rng)?)?
        }
        _ => match rng.next_u64() % 3 {
            // i8 products wrap; u8 of a negative value wraps; i16 keeps these values.
            0 => sub(rng)?.cast::<i8>().try_mul(23i8)?.cast::<i64>(),
            1 => sub(rng)?.cast::<u8>().cast::<i64>(),
            _ => sub(rng)?
                .try_mul(1000i64)?
                .cast::<i16>()
                .maximum(-30000i16)
                .cast::<i64>(),
        },
    })
}

/// Whatever range is inferred, a checked take of random expressions returns an `Err` exactly
/// when a value lies outside `[-n, n)` (a range that claimed too little would turn that `Err`
/// into a clamped read), and otherwise the right elements.
fn range_soundness(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::seeded(77);
        let (mut errs, mut oks, mut lazy) = (0, 0, 0);
        for case in 0..150 {
            let e = range_expr(&mut rng, 3)?;
            let vals = e.to_vec()?;
            let n = 1 + (rng.next_u64() % 40) as i64;
            let a = Array::<f32>::arange(0.0, n as f32, 1.0)?;
            let bad = vals.iter().any(|&v| v < -n || v >= n);
            let e0 = cuprite_array::stats::thread_evaluations();
            match a.take(&e) {
                Ok(g) => {
                    // No evaluation inside the call: the range proved the indices valid.
                    lazy += (cuprite_array::stats::thread_evaluations() == e0) as usize;
                    assert!(!bad, "case {case}: Ok for {vals:?} with n = {n}");
                    let want: Vec<f32> = vals
                        .iter()
                        .map(|&v| if v < 0 { v + n } else { v } as f32)
                        .collect();
                    assert_eq!(g.to_vec()?, want, "case {case}: {vals:?}");
                    oks += 1;
                }
                Err(err) => {
                    assert!(bad, "case {case}: `{err}` for {vals:?} with n = {n}");
                    errs += 1;
                }
            }
        }
        assert!(
            errs > 20 && oks > 20 && lazy > 10,
            "both outcomes drawn: {errs} Err, {oks} Ok ({lazy} with no check)"
        );
        Ok(())
    })
}

/// `(7 j) mod m` for `j < n`, as i64.
fn base_idx_mod(n: usize, m: usize) -> Result<Array<i64>, cuprite_array::Error> {
    Array::<i64>::arange(0, n as i64, 1)?
        .try_mul(7i64)?
        .rem(m as i64)
        .contiguous()
}

fn masks(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for n in [1usize, 7, 1000, 5000] {
            let bits: Vec<bool> = (0..n).map(|_| rng.next_u64() % 3 == 0).collect();
            let vals: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
            let a = Array::from_slice(&vals, &[n])?;
            let m = Array::from_slice(&bits, &[n])?;
            let want: Vec<f32> = (0..n).filter(|&i| bits[i]).map(|i| vals[i]).collect();
            assert_eq!(a.masked_select(&m)?.to_vec()?, want);
            let nz: Vec<i64> = (0..n).filter(|&i| bits[i]).map(|i| i as i64).collect();
            assert_eq!(m.nonzero()?[0].to_vec()?, nz);
        }
        let m = Array::from_slice(&[true, false, true, true, false, false], &[2, 3])?;
        let nz = m.nonzero()?;
        assert_eq!(nz[0].to_vec()?, [0, 0, 1]);
        assert_eq!(nz[1].to_vec()?, [0, 2, 0]);
        let none = Array::<bool>::zeros(&[4]);
        assert_eq!(none.nonzero()?[0].len(), 0);
        let a = Array::from_slice(&[1u8, 2, 3, 4], &[4])?;
        assert_eq!(a.masked_select(&none)?.len(), 0);
        Ok(())
    })
}

/// a = arange(120).reshape(2, 3, 4, 5): strides 60, 20, 5, 1.
fn numpy_table(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let a = Array::from_vec((0..120).collect::<Vec<i64>>(), &[2, 3, 4, 5])?;
        let ar = |v: &[i64]| Idx::array(&Array::from_slice(v, &[v.len()]).expect("index"));
        let sl =
            |start: Option<isize>, end: Option<isize>, step: isize| Idx::Slice { start, end, step };
        let col = Array::from_slice(&[0i64, 3], &[2, 1])?;
        let mask23 = Array::from_slice(&[true, false, true, false, false, true], &[2, 3])?;
        let mut m34 = vec![false; 12];
        m34[1] = true;
        m34[6] = true;
        let mask34 = Array::from_slice(&m34, &[3, 4])?;
        let rows = Array::from_slice(&[0i64, 1], &[2, 1])?;
        // (case, index, expected shape, expected leading values)
        let table: Vec<(&str, Vec<Idx>, Vec<usize>, Vec<i64>)> = vec![
            // An integer and an array separated by a slice: advanced axes first.
            (
                "a[0, :, [1, 2]]",
                vec![Idx::Int(0), Idx::full(), ar(&[1, 2])],
                vec![2, 3, 5],
                vec![5, 6, 7, 8, 9, 25],
            ),
            // Adjacent arrays: in place.
            (
                "a[:, [0, 2], [1, 3]]",
                vec![Idx::full(), ar(&[0, 2]), ar(&[1, 3])],
                vec![2, 2, 5],
                vec![5, 6, 7, 8, 9, 55],
            ),
            // Separated arrays: first.
            (
                "a[[0, 1], :, [1, 3]]",
                vec![ar(&[0, 1]), Idx::full(), ar(&[1, 3])],
                vec![2, 3, 5],
                vec![5, 6, 7, 8, 9, 25],
            ),
            (
                "a[..., [0, 4]]",
                vec![Idx::Ellipsis, ar(&[0, 4])],
                vec![2, 3, 4, 2],
                vec![0, 4, 5, 9, 10, 14],
            ),
            // An integer, a new axis, a slice, a 2-D array, a stepped slice: B = (2, 1) first.
            (
                "a[1, None, 1:3, [[0], [3]], ::2]",
                vec![
                    Idx::Int(1),
                    Idx::NewAxis,
                    sl(Some(1), Some(3), 1),
                    Idx::array(&col),
                    sl(None, None, 2),
                ],
                vec![2, 1, 1, 2, 3],
                vec![80, 82, 84, 100, 102, 104, 95],
            ),
            (
                "a[mask(2, 3)]",
                vec![Idx::array(&mask23)],
                vec![3, 4, 5],
                vec![0, 1, 2, 3, 4, 5],
            ),
            (
                "a[:, mask(3, 4)]",
                vec![Idx::full(), Idx::array(&mask34)],
                vec![2, 2, 5],
                vec![5, 6, 7, 8, 9, 30],
            ),
            (
                "a[[[0], [1]], [0, 1, 2]]",
                vec![Idx::array(&rows), ar(&[0, 1, 2])],
                vec![2, 3, 4, 5],
                vec![0, 1, 2, 3, 4, 5],
            ),
            (
                "a[-1, ::-1, 2]",
                vec![Idx::Int(-1), sl(None, None, -1), Idx::Int(2)],
                vec![3, 5],
                vec![110, 111, 112, 113, 114, 90],
            ),
            (
                "a[None, ..., None]",
                vec![Idx::NewAxis, Idx::Ellipsis, Idx::NewAxis],
                vec![1, 2, 3, 4, 5, 1],
                vec![0, 1, 2],
            ),
            (
                "a[[1], 1, [2], 1:4]",
                vec![ar(&[1]), Idx::Int(1), ar(&[2]), sl(Some(1), Some(4), 1)],
                vec![1, 3],
                vec![91, 92, 93],
            ),
            (
                "a[:, 1, :, [0, 1]]",
                vec![Idx::full(), Idx::Int(1), Idx::full(), ar(&[0, 1])],
                vec![2, 2, 4],
                vec![20, 25, 30, 35, 80, 85],
            ),
            (
                "a[1, 2]",
                vec![Idx::Int(1), Idx::Int(2)],
                vec![4, 5],
                vec![100, 101],
            ),
            (
                "a[:, :, -1:0:-2, [-1]]",
                vec![
                    Idx::full(),
                    Idx::full(),
                    sl(Some(-1), Some(0), -2),
                    ar(&[-1]),
                ],
                vec![2, 3, 2, 1],
                vec![19, 9, 39, 29],
            ),
        ];
        for (name, idx, shape, lead) in table {
            let r = a.index(&idx)?;
            if r.shape() != &shape[..] {
                return Err(format!("{name}: shape {:?}, expected {shape:?}", r.shape()).into());
            }
            let v = r.to_vec()?;
            if v[..lead.len()] != lead[..] {
                return Err(format!(
                    "{name}: values {:?}, expected to start {lead:?}",
                    &v[..lead.len().min(v.len())]
                )
                .into());
            }
        }
        // The second case in full: a[i, j, k] = 60 i + 20 [0, 2][j] + 5 [1, 3][j] + k.
        let r = a
            .index(&[Idx::full(), ar(&[0, 2]), ar(&[1, 3])])?
            .to_vec()?;
        let want: Vec<i64> = (0..20)
            .map(|f: usize| (60 * (f / 10) + [5, 55][(f / 5) % 2] + (f % 5)) as i64)
            .collect();
        assert_eq!(r, want);
        expect_err(
            a.index(&[
                Idx::Int(0),
                Idx::Int(0),
                Idx::Int(0),
                Idx::Int(0),
                Idx::Int(0),
            ]),
            &["too many"],
            "too many",
        )?;
        expect_err(
            a.index(&[Idx::Ellipsis, Idx::Ellipsis]),
            &["ellipsis"],
            "two ellipses",
        )?;
        expect_err(a.index(&[Idx::Int(2)]), &["2"], "int out of range")?;
        expect_err(
            a.index(&[ar(&[0, 1]), ar(&[0, 1, 2])]),
            &["broadcast"],
            "index shapes",
        )?;
        expect_err(
            a.index(&[Idx::full(), ar(&[3])]),
            &["3", "extent 3"],
            "array out of range",
        )?;
        Ok(())
    })
}

fn assignment(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        // Broadcasting a row into a stepped region; negative steps.
        let mut a = Array::<i32>::zeros(&[3, 4]);
        a.assign(&s![..;2, ..], &Array::from_slice(&[1, 2, 3, 4], &[4])?)?;
        assert_eq!(a.to_vec()?, [1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4]);
        a.assign(&s![1, ..;-1], &Array::from_slice(&[5, 6, 7, 8], &[4])?)?;
        assert_eq!(a.slice(&s![1])?.to_vec()?, [8, 7, 6, 5]);
        // The region of `s![.., 3]` is 1-D (the index drops its axis), as in NumPy.
        a.assign(&s![.., 3], &Array::from_slice(&[9, 9, 9], &[3])?)?;
        assert_eq!(a.to_vec()?, [1, 2, 3, 9, 8, 7, 6, 9, 1, 2, 3, 9]);
        a.fill(&s![-1, 1..3], -1)?;
        assert_eq!(a.slice(&s![2])?.to_vec()?, [1, -1, -1, 9]);
        expect_err(
            a.assign(&s![.., 1..3], &Array::from_slice(&[1, 2, 3], &[3])?),
            &["[3]", "[3, 2]"],
            "assign shape",
        )?;
        // A value computed from the array itself (a shift).
        let mut v = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
        let shifted = v.slice(&s![..-1])?;
        v.assign(&s![1..], &shifted)?;
        assert_eq!(v.to_vec()?, [1.0, 1.0, 2.0, 3.0]);
        // masked_fill, masked_assign.
        let b = Array::from_slice(&[1.0f32, -2.0, 3.0, -4.0], &[2, 2])?;
        assert_eq!(
            b.masked_fill(&b.less(0.0), 0.0)?.to_vec()?,
            [1.0, 0.0, 3.0, 0.0]
        );
        expect_err(
            b.masked_fill(&Array::from_slice(&[true; 3], &[3])?, 0.0),
            &["[3]"],
            "masked_fill shape",
        )?;
        let mut c = b.clone();
        c.masked_assign(&b.greater(0.0), &Array::from_slice(&[10.0, 30.0], &[2])?)?;
        assert_eq!(c.to_vec()?, [10.0, -2.0, 30.0, -4.0]);
        expect_err(
            c.clone()
                .masked_assign(&b.greater(0.0), &Array::from_slice(&[1.0; 3], &[3])?),
            &["[3]"],
            "masked_assign count",
        )?;
        // put: negative indices, duplicates (the last wins), broadcasting, modes.
        let mut p = Array::<u16>::zeros(&[2, 3]);
        p.put(
            &Array::from_slice(&[0i32, -1, 0, 2, 0], &[5])?,
            &Array::from_slice(&[1, 2, 3, 4, 5], &[5])?,
        )?;
        assert_eq!(p.to_vec()?, [5, 0, 4, 0, 0, 2]);
        p.put(&Array::from_slice(&[1u8, 3], &[2])?, &Array::scalar(7))?;
        assert_eq!(p.to_vec()?, [5, 7, 4, 7, 0, 2]);
        expect_err(
            p.clone()
                .put(&Array::from_slice(&[6i64], &[1])?, &Array::scalar(1)),
            &["6", "extent 6"],
            "put range",
        )?;
        expect_err(
            p.clone().put(
                &Array::from_slice(&[0i64, 1], &[2])?,
                &Array::from_slice(&[1, 2, 3], &[3])?,
            ),
            &["[3]", "[2]"],
            "put values",
        )?;
        p.put_with(
            &Array::from_slice(&[-8i64], &[1])?,
            &Array::scalar(9),
            IndexMode::Wrap,
        )?;
        assert_eq!(p.to_vec()?, [5, 7, 4, 7, 9, 2]);
        // assign_index with arrays and slices (separated: B first), duplicates last-wins.
        let mut q = Array::from_vec((0..24).collect::<Vec<i64>>(), &[2, 3, 4])?;
        let i = Array::from_slice(&[1i64, 1, 0], &[3])?;
        q.assign_index(
            &[Idx::array(&i), Idx::full(), Idx::Int(-1)],
            &Array::from_slice(&[100, 200, 300], &[3, 1])?,
        )?;
        let r = q.to_vec()?;
        for j in 0..3 {
            assert_eq!(r[j * 4 + 3], 300);
            assert_eq!(r[12 + j * 4 + 3], 200);
        }
        assert_eq!(r[0], 0);
        expect_err(
            q.assign_index(&[Idx::array(&i)], &Array::from_slice(&[1, 2], &[2])?),
            &["[2]", "[3, 3, 4]"],
            "assign_index shape",
        )?;
        Ok(())
    })
}

/// Arrays are values: assignment never changes a clone, a view taken before, or the array a
/// view came from.
fn aliasing(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let a = Array::from_vec((0..12).map(|x| x as f32).collect(), &[3, 4])?;
        a.eval()?;
        let orig = a.to_vec()?;
        let clone = a.clone();
        let mut view = a.slice(&s![1.., 1..;2])?;
        let before_view = view.to_vec()?;
        view.fill(&s![..], -1.0)?;
        assert_eq!(view.to_vec()?, [-1.0; 4]);
        assert_eq!(a.to_vec()?, orig);
        assert_eq!(clone.to_vec()?, orig);
        let mut b = a.clone();
        let seen = b.slice(&s![0])?;
        b.assign(&s![0], &Array::from_slice(&[9.0, 9.0, 9.0, 9.0], &[4])?)?;
        assert_eq!(seen.to_vec()?, [0.0, 1.0, 2.0, 3.0]);
        assert_eq!(a.to_vec()?, orig);
        assert_eq!(b.slice(&s![0])?.to_vec()?, [9.0; 4]);
        let mut c = a.reshape(&[12])?;
        c.put(&Array::from_slice(&[0i64], &[1])?, &Array::scalar(42.0))?;
        c.masked_assign(&c.greater(10.0), &Array::scalar(0.0))?;
        assert_eq!(a.to_vec()?, orig);
        assert_eq!(c.to_vec()?[0], 0.0);
        let mut e = a.clone();
        e.assign_index(
            &[Idx::array(&Array::from_slice(&[2i64], &[1])?)],
            &Array::scalar(5.0),
        )?;
        assert_eq!(a.to_vec()?, orig);
        assert_eq!(clone.to_vec()?, orig);
        assert_eq!(view.to_vec()?, [-1.0; 4]);
        assert_ne!(before_view, view.to_vec()?);
        let sc = a.scatter_add(
            0,
            &Array::from_slice(&[0i64; 4], &[1, 4])?,
            &Array::scalar(1.0),
            Default::default(),
        )?;
        assert_eq!(sc.slice(&s![0])?.to_vec()?, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(a.to_vec()?, orig);
        Ok(())
    })
}

/// Millions of elements (multi-block kernels) on CUDA, fewer on the CPU.
fn large(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let n = if d == Device::CPU { 1 << 16 } else { 3_000_017 };
        let mut rng = Rng::fresh();
        let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let idx: Vec<i64> = (0..n)
            .map(|_| (rng.next_u64() % n as u64) as i64 - (n / 2) as i64)
            .collect();
        let a = Array::from_slice(&src, &[n])?;
        let g = a.take(&Array::from_slice(&idx, &[n])?)?.to_vec()?;
        for (k, (&gv, &i)) in g.iter().zip(&idx).enumerate() {
            if gv != src[norm_idx(i, n)] {
                return Err(format!("large take: element {k}").into());
            }
        }
        let bits: Vec<bool> = (0..n).map(|i| i % 3 == 1).collect();
        let sel = a
            .masked_select(&Array::from_slice(&bits, &[n])?)?
            .to_vec()?;
        assert_eq!(sel.len(), n / 3 + usize::from(n % 3 == 2));
        assert!(
            sel.iter()
                .enumerate()
                .all(|(k, &v)| v == (3 * k + 1) as f32)
        );
        let mut b = a.clone();
        b.fill(&s![1..;2], 0.0)?;
        let bv = b.to_vec()?;
        assert!(
            bv.iter()
                .enumerate()
                .all(|(k, &v)| v == if k % 2 == 1 { 0.0 } else { k as f32 })
        );
        Ok(())
    })
}

/// `u64` indices above `i64::MAX` clamp to the last element and wrap modulo the extent as
/// unsigned values (a cast to `i64` would turn them negative: clamped to the first element,
/// wrapped from the end), in take, put and scatter alike.
fn unsigned_indices_above_i64(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let a = Array::from_slice(&[10i32, 11, 12, 13, 14, 15], &[6])?;
        // u64::MAX = 2^64 - 1 ≡ 3 (mod 6); 2^63 ≡ 2 (mod 6).
        let i = Array::from_slice(&[u64::MAX, 1 << 63, 1], &[3])?;
        assert_eq!(
            a.take_with(&i, TakeOpts::new().mode(IndexMode::Clamp))?
                .to_vec()?,
            [15, 15, 11]
        );
        assert_eq!(
            a.take_with(&i, TakeOpts::new().mode(IndexMode::Wrap))?
                .to_vec()?,
            [13, 12, 11]
        );
        let mut p = a.clone();
        p.put_with(
            &i,
            &Array::from_slice(&[1i32, 2, 3], &[3])?,
            IndexMode::Wrap,
        )?;
        assert_eq!(p.to_vec()?, [10, 3, 2, 1, 14, 15]);
        let opts = cuprite_array::ops::ScatterOpts {
            deterministic: false,
            mode: IndexMode::Clamp,
        };
        let s = a.scatter_add(0, &i, &Array::from_slice(&[1i32, 2, 4], &[3])?, opts)?;
        assert_eq!(s.to_vec()?, [10, 15, 12, 13, 14, 18]);
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("gathers_all_dtypes", gathers_all_dtypes),
    ("modes_and_errors", modes_and_errors),
    ("checked_in_kernel", checked_in_kernel),
    ("flag_words", flag_words),
    ("known_ranges", known_ranges),
    ("range_soundness", range_soundness),
    ("unsigned_indices_above_i64", unsigned_indices_above_i64),
    ("masks", masks),
    ("numpy_table", numpy_table),
    ("assignment", assignment),
    ("aliasing", aliasing),
    ("large", large),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES.iter().chain(crate::index_scatter::BODIES) {
        v.push(Test::cpu(format!("cpu::index::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::index::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.extend(crate::index_scatter::extra_tests());
    v
}
