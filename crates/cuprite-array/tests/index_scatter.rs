//! Scatters (scatter, scatter_add, scatter_max, scatter_min, index_add) against a sequential
//! host reference, every dtype, both modes; duplicate indices (deterministic: the same bits
//! twice and on both backends; atomic: within a rounding bound); NaN, infinities and signed
//! zeros; large multi-block cases on CUDA.

use crate::common::Body;
use crate::index::{arr, f64s};
use cuprite_array::ops::{IndexMode, ScatterOpts};
use cuprite_array::{Array, Device, Element, bf16, f16};
use cuprite_testkit::{Rng, Test, TestResult};

#[derive(Clone, Copy, Debug, PartialEq)]
enum R {
    Set,
    Add,
    Max,
    Min,
}

const DET: ScatterOpts = ScatterOpts {
    deterministic: true,
    mode: IndexMode::Error,
};

/// The sequential reference on host values (`bool` adds as OR).
fn reference(r: R, base: &[f64], dests: &[usize], vals: &[f64], boolean: bool) -> Vec<f64> {
    let mut o = base.to_vec();
    for (&d, &v) in dests.iter().zip(vals) {
        o[d] = match r {
            R::Set => v,
            R::Add if boolean => f64::from(o[d] != 0.0 || v != 0.0),
            R::Add => o[d] + v,
            R::Max => o[d].max(v),
            R::Min => o[d].min(v),
        };
    }
    o
}

fn run<T: Element>(
    r: R,
    a: &Array<T>,
    ax: isize,
    idx: &Array<i32>,
    v: &Array<T>,
    o: ScatterOpts,
    index_add: bool,
) -> Result<Array<T>, cuprite_array::Error> {
    if index_add {
        return a.index_add(ax, idx, v, o);
    }
    match r {
        R::Set => a.scatter(ax, idx, v, o),
        R::Add => a.scatter_add(ax, idx, v, o),
        R::Max => a.scatter_max(ax, idx, v, o),
        R::Min => a.scatter_min(ax, idx, v, o),
    }
}

/// Every reduction along both axes of a 5 x 6 array, scatter and index_add, both modes, small
/// integer values (exact in every dtype and every summation order).
fn scatters_of<T: Element>(d: Device, rng: &mut Rng) -> TestResult {
    cuprite_array::with_device(d, || {
        let shape = [5usize, 6];
        let boolean = T::DTYPE == cuprite_array::DType::Bool;
        let basev: Vec<i64> = (0..30).map(|_| (rng.next_u64() % 8) as i64).collect();
        let (a, h) = arr::<T>(&basev, &shape)?;
        for ax in 0..2 {
            let n = shape[ax];
            for index_add in [false, true] {
                for r in [R::Set, R::Add, R::Max, R::Min] {
                    if index_add && r != R::Add {
                        continue;
                    }
                    for det in [false, true] {
                        // Set in the atomic mode: unique destinations along each line (which
                        // duplicate wins is unspecified there); otherwise duplicates on purpose.
                        let unique = r == R::Set && !det;
                        let k = if unique { n } else { 7 };
                        let (ishape, vshape) = if index_add {
                            let mut vs = shape.to_vec();
                            vs[ax] = k;
                            (vec![k], vs)
                        } else {
                            let mut is = shape.to_vec();
                            is[ax] = k;
                            (is.clone(), is)
                        };
                        let ni: usize = ishape.iter().product();
                        let mut perm: Vec<i32> = (0..n as i32).collect();
                        for i in (1..perm.len()).rev() {
                            perm.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
                        }
                        let iv: Vec<i32> = (0..ni)
                            .map(|f| {
                                if unique {
                                    let j = if ax == 0 {
                                        f / ishape[1]
                                    } else {
                                        f % ishape[1]
                                    };
                                    perm[j] - if f % 2 == 0 { n as i32 } else { 0 }
                                } else {
                                    (rng.next_u64() % (2 * n as u64)) as i32 - n as i32
                                }
                            })
                            .collect();
                        let nv: usize = vshape.iter().product();
                        let vv: Vec<i64> = (0..nv).map(|_| (rng.next_u64() % 8) as i64).collect();
                        let (v, hv) = arr::<T>(&vv, &vshape)?;
                        let idx = Array::from_slice(&iv, &ishape)?;
                        let o = ScatterOpts {
                            deterministic: det,
                            mode: IndexMode::Error,
                        };
                        let got = run(r, &a, ax as isize, &idx, &v, o, index_add);
                        let name = format!(
                            "{} {r:?} axis {ax} index_add {index_add} det {det}",
                            T::DTYPE
                        );
                        let got = match (got, T::DTYPE.is_complex() && r != R::Set) {
                            (Err(e), true) => {
                                assert!(e.to_string().contains("not supported"), "{name}: {e}");
                                continue;
                            }
                            (Ok(_), true) => {
                                return Err(format!("{name}: complex reduction accepted").into());
                            }
                            (g, false) => g?,
                        };
                        // Destinations in update order.
                        let mut dests = Vec::with_capacity(nv);
                        for f in 0..nv {
                            let (i, j) = (f / vshape[1], f % vshape[1]);
                            let raw = if index_add {
                                iv[if ax == 0 { i } else { j }]
                            } else {
                                iv[f]
                            };
                            let t = if raw < 0 { raw + n as i32 } else { raw } as usize;
                            dests.push(if ax == 0 { t * 6 + j } else { i * 6 + t });
                        }
                        let want = reference(r, &h, &dests, &hv, boolean);
                        let g = f64s(&got)?;
                        if g != want {
                            return Err(format!("{name}: got {g:?}, expected {want:?}").into());
                        }
                        assert_eq!(got.shape(), &shape);
                    }
                }
            }
        }
        Ok(())
    })
}

fn scatters_all_dtypes(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    scatters_of::<bool>(d, &mut rng)?;
    scatters_of::<u8>(d, &mut rng)?;
    scatters_of::<i8>(d, &mut rng)?;
    scatters_of::<u16>(d, &mut rng)?;
    scatters_of::<i16>(d, &mut rng)?;
    scatters_of::<u32>(d, &mut rng)?;
    scatters_of::<i32>(d, &mut rng)?;
    scatters_of::<u64>(d, &mut rng)?;
    scatters_of::<i64>(d, &mut rng)?;
    scatters_of::<f16>(d, &mut rng)?;
    scatters_of::<bf16>(d, &mut rng)?;
    scatters_of::<f32>(d, &mut rng)?;
    scatters_of::<f64>(d, &mut rng)?;
    scatters_of::<cuprite_array::c32>(d, &mut rng)
}

fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Many updates on few destinations, non-integer values: deterministic sums have the same
/// bits run to run (and on both backends), atomic ones are within a rounding bound.
fn duplicates(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (m, n) = if d == Device::CPU {
            (20_000, 37)
        } else {
            (4_000_037, 1000)
        };
        let vals = rng.vec_f32(m, -1.0, 1.0);
        let idx: Vec<i64> = (0..m).map(|_| (rng.next_u64() % n as u64) as i64).collect();
        let mut sum = vec![0.0f64; n];
        let mut abs = vec![0.0f64; n];
        let mut cnt = vec![0.0f64; n];
        for (&i, &v) in idx.iter().zip(&vals) {
            sum[i as usize] += v as f64;
            abs[i as usize] += (v as f64).abs();
            cnt[i as usize] += 1.0;
        }
        let base = Array::<f32>::zeros(&[n]);
        let (ia, va) = (
            Array::from_slice(&idx, &[m])?,
            Array::from_slice(&vals, &[m])?,
        );
        let one = base.index_add(0, &ia, &va, DET)?.to_vec()?;
        let two = base.index_add(0, &ia, &va, DET)?.to_vec()?;
        let sc = base.scatter_add(0, &ia, &va, DET)?.to_vec()?;
        assert_eq!(
            bits32(&one),
            bits32(&two),
            "deterministic index_add differs run to run"
        );
        assert_eq!(
            bits32(&one),
            bits32(&sc),
            "index_add and scatter_add differ"
        );
        let at = base
            .index_add(0, &ia, &va, ScatterOpts::default())?
            .to_vec()?;
        for t in 0..n {
            let bound = (cnt[t] + 2.0) * f32::EPSILON as f64 * abs[t];
            for (what, g) in [("deterministic", one[t]), ("atomic", at[t])] {
                let err = (g as f64 - sum[t]).abs();
                if err > bound {
                    return Err(format!(
                        "{what} index_add at {t}: {g} vs {} (error {err} > {bound})",
                        sum[t]
                    )
                    .into());
                }
            }
            // The deterministic sum is far inside the bound: 2 ulp of the exact sum, plus quanta
            // (each below 2^-30 of the destination's magnitude sum at these counts).
            let ulp = (sum[t].abs() as f32).max(f32::MIN_POSITIVE) * f32::EPSILON;
            let fx = 2.0 * ulp as f64 + abs[t] * 2f64.powi(-30);
            assert!(
                (one[t] as f64 - sum[t]).abs() <= fx,
                "fixed point at {t}: {} vs {}",
                one[t],
                sum[t]
            );
        }
        if d != Device::CPU {
            // The same bits as the CPU backend's deterministic sum.
            let cpu = cuprite_array::with_device(
                Device::CPU,
                || -> Result<Vec<f32>, cuprite_array::Error> {
                    let (ia, va) = (
                        Array::from_slice(&idx, &[m])?,
                        Array::from_slice(&vals, &[m])?,
                    );
                    Array::<f32>::zeros(&[n])
                        .index_add(0, &ia, &va, DET)?
                        .to_vec()
                },
            )?;
            assert_eq!(
                bits32(&one),
                bits32(&cpu),
                "CUDA and CPU deterministic sums differ"
            );
        }
        // f64 and f16 deterministic: same bits twice, close to the reference.
        let v64: Vec<f64> = vals.iter().map(|&v| v as f64 * 1.000_000_1).collect();
        let a64 = Array::from_slice(&v64, &[m])?;
        let b64 = Array::<f64>::zeros(&[n]);
        let p = b64.index_add(0, &ia, &a64, DET)?.to_vec()?;
        let q = b64.index_add(0, &ia, &a64, DET)?.to_vec()?;
        assert_eq!(
            p.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            q.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        let mut s64 = vec![0.0f64; n];
        for (&i, &v) in idx.iter().zip(&v64) {
            s64[i as usize] += v;
        }
        for t in 0..n {
            assert!(
                (p[t] - s64[t]).abs() <= 1e-9 * abs[t].max(1.0),
                "f64 fixed point at {t}: {} vs {}",
                p[t],
                s64[t]
            );
        }
        let h = Array::<f16>::zeros(&[n]).index_add(0, &ia, &va.cast::<f16>(), DET)?;
        let h2 = Array::<f16>::zeros(&[n]).index_add(0, &ia, &va.cast::<f16>(), DET)?;
        assert_eq!(h.to_vec()?, h2.to_vec()?);
        // Set, deterministic: the last write wins.
        let pos = Array::<i64>::arange(0, m as i64, 1)?;
        let last = Array::<i64>::zeros(&[n])
            .scatter(0, &ia, &pos, DET)?
            .to_vec()?;
        let mut want = vec![0i64; n];
        for (k, &i) in idx.iter().enumerate() {
            want[i as usize] = k as i64;
        }
        assert_eq!(last, want);
        let mut p = Array::<i64>::zeros(&[n]);
        p.put(&ia, &pos)?;
        assert_eq!(p.to_vec()?, want);
        // Integer sums are exact in both modes.
        let ints = Array::from_slice(&idx, &[m])?.cast::<i32>();
        let ic = Array::<i32>::zeros(&[n])
            .index_add(0, &ia, &ints, ScatterOpts::default())?
            .to_vec()?;
        let mut iw = vec![0i32; n];
        for &i in &idx {
            iw[i as usize] += i as i32;
        }
        assert_eq!(ic, iw);
        Ok(())
    })
}

/// NaN, infinities and signed zeros in the deterministic sum and in max/min.
fn specials(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let inf = f32::INFINITY;
        let base = Array::from_slice(&[1.0f32, 0.0, 0.0, 0.0, 5.0, -0.0], &[6])?;
        let idx = Array::from_slice(&[0i64, 0, 1, 1, 2, 2, 3, 3, 3], &[9])?;
        let v = Array::from_slice(
            &[1.0f32, inf, inf, -inf, f32::NAN, 1.0, 2.0, -2.0, 0.5],
            &[9],
        )?;
        let r = base.scatter_add(0, &idx, &v, DET)?.to_vec()?;
        assert_eq!(r[0], inf);
        assert!(r[1].is_nan() && r[2].is_nan());
        assert_eq!(r[3], 0.5);
        assert_eq!(
            (r[4], r[5].to_bits()),
            (5.0, (-0.0f32).to_bits()),
            "untouched stay bit-exact"
        );
        let b = Array::from_slice(&[1.0f32, 0.0, -0.0], &[3])?;
        let i = Array::from_slice(&[0i32, 0, 1, 2], &[4])?;
        let x = Array::from_slice(&[f32::NAN, 5.0, -0.0, 0.0], &[4])?;
        for o in [ScatterOpts::default(), DET] {
            let mx = b.scatter_max(0, &i, &x, o)?.to_vec()?;
            assert!(mx[0].is_nan());
            assert_eq!((mx[1].to_bits(), mx[2].to_bits()), (0, 0));
            let mn = b.scatter_min(0, &i, &x, o)?.to_vec()?;
            assert!(mn[0].is_nan());
            assert_eq!(
                (mn[1].to_bits(), mn[2].to_bits()),
                ((-0.0f32).to_bits(), (-0.0f32).to_bits())
            );
        }
        Ok(())
    })
}

fn scatter_errors(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let a = Array::<f32>::zeros(&[3, 4]);
        let i = Array::from_slice(&[0i64, 1, 2, 3], &[1, 4])?;
        let v = Array::<f32>::ones(&[1, 4]);
        let o = ScatterOpts::default();
        let msg = |r: Result<Array<f32>, cuprite_array::Error>| {
            r.err().map(|e| e.to_string()).unwrap_or_default()
        };
        assert!(
            msg(a.scatter(1, &i, &v, o)).contains("extents"),
            "other axes"
        );
        let e = msg(a.scatter_add(0, &i, &v, o));
        assert!(e.contains('3') && e.contains("extent 3"), "{e}");
        assert_eq!(
            a.scatter_add(
                0,
                &i,
                &v,
                ScatterOpts {
                    mode: IndexMode::Clamp,
                    ..o
                }
            )?
            .to_vec()?[11],
            1.0
        );
        assert_eq!(
            a.scatter_add(
                0,
                &i,
                &v,
                ScatterOpts {
                    mode: IndexMode::Wrap,
                    ..o
                }
            )?
            .to_vec()?[3],
            1.0
        );
        let e = msg(a.scatter_add(
            0,
            &Array::<i64>::zeros(&[1, 4]),
            &Array::<f32>::ones(&[2, 4]),
            o,
        ));
        assert!(e.contains("[2, 4]") && e.contains("[1, 4]"), "{e}");
        let e = msg(a.index_add(
            0,
            &Array::<f32>::zeros(&[2]),
            &Array::<f32>::ones(&[2, 4]),
            o,
        ));
        assert!(e.contains("f32"), "{e}");
        let e = msg(a.index_add(
            1,
            &Array::from_slice(&[-5i8], &[1])?,
            &Array::<f32>::ones(&[3, 1]),
            o,
        ));
        assert!(e.contains("-5") && e.contains("extent 4"), "{e}");
        let e = msg(a.index_add(
            1,
            &Array::<i64>::zeros(&[2, 1]),
            &Array::<f32>::ones(&[3, 1]),
            o,
        ));
        assert!(e.contains("1-D"), "{e}");
        // A broadcast value and a negative axis.
        let r = a.index_add(
            -1,
            &Array::from_slice(&[3u32, 3], &[2])?,
            &Array::scalar(2.0f32),
            o,
        )?;
        assert_eq!(
            r.to_vec()?,
            [0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 4.0]
        );
        Ok(())
    })
}

/// The index_add of `vals` at `idx` into `base` on `d`, deterministic.
fn det_add(d: Device, base: &[f32], idx: &[i64], vals: &[f32]) -> Result<Vec<f32>, String> {
    cuprite_array::with_device(d, || -> Result<Vec<f32>, cuprite_array::Error> {
        let (b, i, v) = (
            Array::from_slice(base, &[base.len()])?,
            Array::from_slice(idx, &[idx.len()])?,
            Array::from_slice(vals, &[vals.len()])?,
        );
        b.index_add(0, &i, &v, DET)?.to_vec()
    })
    .map_err(|e| e.to_string())
}

/// The spacing of `f32` values next to `x` (the finer side at a power of two).
fn spacing(x: f64) -> f64 {
    let a = (x.abs() as f32).max(f32::MIN_POSITIVE);
    let up = f32::from_bits(a.to_bits() + 1) - a;
    let down = a - f32::from_bits(a.to_bits() - 1);
    up.min(down) as f64
}

/// The deterministic `f32` sum in its binned form (each bin's integer sum exact): magnitudes
/// 2^60 apart cancel exactly, subnormals add exactly, `2^24 + 1 + 1` keeps both ones, a sum
/// of exactly zero leaves `-0.0`; random values over 2^-40..2^40 with cancellations sum to
/// within one `f32` spacing of the exact sum (an `i128` fixed-point reference); and the
/// fixed-point form (taken for many destinations and few updates) has the same bits on both
/// backends, close to the reference.
fn binned_sums(d: Device) -> TestResult {
    let tiny = f32::from_bits(1);
    let base = [0.0f32, 0.0, 2.0, -0.0, 0.0];
    let idx = [0i64, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4];
    let vals = [
        1e30f32,
        1.0,
        -1e30,
        tiny,
        tiny,
        tiny,
        f32::MAX,
        -f32::MAX,
        0.5,
        1.0,
        -1.0,
        16_777_216.0,
        1.0,
        1.0,
    ];
    let r = det_add(d, &base, &idx, &vals)?;
    assert_eq!(
        bits32(&r),
        bits32(&[1.0, f32::from_bits(3), 2.5, -0.0, 16_777_218.0]),
        "{r:?}"
    );
    // Random values with wide exponents and both signs into 100 destinations.
    let mut rng = Rng::fresh();
    let (m, n) = (100_000usize, 100usize);
    let vals: Vec<f32> = (0..m)
        .map(|_| {
            let e = (rng.next_u64() % 81) as i32 - 40;
            let s = if rng.next_u64() & 1 == 1 { -1.0 } else { 1.0 };
            s * rng.f32_in(1.0, 2.0) * 2f32.powi(e)
        })
        .collect();
    let idx: Vec<i64> = (0..m).map(|_| (rng.next_u64() % n as u64) as i64).collect();
    let mut exact = vec![0i128; n];
    for (&i, &v) in idx.iter().zip(&vals) {
        // Every value is a multiple of 2^-63 below 2^41: exact in i128 units of 2^-63.
        exact[i as usize] += (v as f64 * 2f64.powi(63)) as i128;
    }
    let r = det_add(d, &vec![0.0; n], &idx, &vals)?;
    for t in 0..n {
        let want = exact[t] as f64 * 2f64.powi(-63);
        let err = (r[t] as f64 - want).abs();
        assert!(
            err <= spacing(want),
            "binned sum at {t}: {} vs exact {want} (error {err})",
            r[t]
        );
    }
    if d != Device::CPU {
        assert_eq!(
            bits32(&r),
            bits32(&det_add(Device::CPU, &vec![0.0; n], &idx, &vals)?),
            "CUDA and CPU binned sums differ"
        );
    }
    // Many destinations, few updates: the fixed-point form.
    let (m, n) = (1000usize, 2_000_000usize);
    let vals = rng.vec_f32(m, -1.0, 1.0);
    let idx: Vec<i64> = (0..m).map(|_| (rng.next_u64() % 7) as i64 * 999).collect();
    let r = det_add(d, &vec![0.0; n], &idx, &vals)?;
    let mut want = vec![0.0f64; n];
    for (&i, &v) in idx.iter().zip(&vals) {
        want[i as usize] += v as f64;
    }
    for t in (0..7).map(|k| k * 999) {
        assert!(
            (r[t] as f64 - want[t]).abs() <= 2.0 * spacing(want[t]) + 1e-9,
            "fixed-point sum at {t}: {} vs {}",
            r[t],
            want[t]
        );
    }
    assert_eq!(r.iter().filter(|x| **x != 0.0).count(), 7);
    if d != Device::CPU {
        assert_eq!(
            bits32(&r),
            bits32(&det_add(Device::CPU, &vec![0.0; n], &idx, &vals)?),
            "CUDA and CPU fixed-point sums differ"
        );
    }
    Ok(())
}

/// Atomic `index_add` large enough for the partitioned sum (2^22 + 1000 scalar updates into
/// 2^16 + 123 destinations: partial last tile and partition), on small integers so that every
/// sum is exact in any order: the result equals the sequential reference, destinations no
/// update reaches keep their base bits (`-0.0` included), both index dtypes, the last axis of
/// a 2-D destination, an out-of-range index is an `Err` (checked) or clamped.
fn partitioned_sums(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (m, n) = ((1usize << 22) + 1000, (1usize << 16) + 123);
    // Every 1000th destination is never hit; its base is -0.0.
    let idx: Vec<i64> = (0..m)
        .map(|_| {
            let t = (rng.next_u64() % n as u64) as i64;
            if t % 1000 == 0 { t + 1 } else { t }
        })
        .collect();
    let vals: Vec<f32> = (0..m)
        .map(|_| (rng.next_u64() % 33) as f32 - 16.0)
        .collect();
    let base: Vec<f32> = (0..n)
        .map(|t| if t % 1000 == 0 { -0.0 } else { (t % 7) as f32 })
        .collect();
    let mut want: Vec<f64> = base.iter().map(|&x| x as f64).collect();
    for (&i, &v) in idx.iter().zip(&vals) {
        want[i as usize] += v as f64;
    }
    let want: Vec<f32> = want
        .iter()
        .enumerate()
        .map(|(t, &x)| if t % 1000 == 0 { -0.0 } else { x as f32 })
        .collect();
    let got = cuprite_array::with_device(d, || -> Result<_, cuprite_array::Error> {
        let b = Array::from_slice(&base, &[n])?;
        let v = Array::from_slice(&vals, &[m])?;
        let i64s = Array::from_slice(&idx, &[m])?;
        let i32s = i64s.cast::<i32>();
        let a = b
            .index_add(0, &i64s, &v, ScatterOpts::default())?
            .to_vec()?;
        let c = b
            .index_add(0, &i32s, &v, ScatterOpts::default())?
            .to_vec()?;
        // Along the last axis of [2, n]: row 1 gets the same sums on a base of twice row 0's.
        let b2 = Array::from_slice(
            &[base.clone(), base.iter().map(|x| 2.0 * x).collect()].concat(),
            &[2, n],
        )?;
        let v2 = Array::from_slice(&[vals.clone(), vals.clone()].concat(), &[2, m])?;
        let two = b2
            .index_add(1, &i64s, &v2, ScatterOpts::default())?
            .to_vec()?;
        Ok((a, c, two))
    })?;
    assert_eq!(bits32(&got.0), bits32(&want), "i64 indices");
    assert_eq!(bits32(&got.1), bits32(&want), "i32 indices");
    assert_eq!(bits32(&got.2[..n]), bits32(&want), "row 0 of [2, n]");
    for t in (0..n).step_by(97) {
        let w = want[t] as f64 + base[t] as f64;
        assert_eq!(got.2[n + t] as f64, w, "row 1 at {t}");
    }
    // One index out of range: an Err naming it (checked), clamped to n - 1 otherwise.
    let mut bad = idx.clone();
    bad[m - 3] = n as i64 + 5;
    let (checked, clamped) =
        cuprite_array::with_device(d, || -> Result<_, cuprite_array::Error> {
            let b = Array::from_slice(&base, &[n])?;
            let v = Array::from_slice(&vals, &[m])?;
            let i = Array::from_slice(&bad, &[m])?;
            let e = b
                .index_add(0, &i, &v, ScatterOpts::default())
                .and_then(|a| a.to_vec());
            let clamp = ScatterOpts {
                deterministic: false,
                mode: IndexMode::Clamp,
            };
            Ok((e, b.index_add(0, &i, &v, clamp)?.to_vec()?))
        })?;
    let msg = checked
        .expect_err("an index past the axis is an Err")
        .to_string();
    assert!(msg.contains(&(n + 5).to_string()), "{msg}");
    let mut w = want.clone();
    let old = idx[m - 3] as usize;
    w[old] -= vals[m - 3];
    w[n - 1] += vals[m - 3];
    assert_eq!(bits32(&clamped), bits32(&w), "clamped");
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("partitioned_sums", partitioned_sums),
    ("scatters_all_dtypes", scatters_all_dtypes),
    ("duplicates", duplicates),
    ("specials", specials),
    ("binned_sums", binned_sums),
    ("scatter_errors", scatter_errors),
];

/// Every scatter kernel the bodies would launch on CUDA compiles with NVRTC (recorded on the
/// CPU), each on its own, with the library's options.
fn scatter_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let mut rng = Rng::fresh();
    scatters_of::<f32>(Device::CPU, &mut rng)?;
    scatters_of::<f64>(Device::CPU, &mut rng)?;
    scatters_of::<i64>(Device::CPU, &mut rng)?;
    scatters_of::<u8>(Device::CPU, &mut rng)?;
    scatters_of::<cuprite_array::c64>(Device::CPU, &mut rng)?;
    specials(Device::CPU)?;
    binned_sums(Device::CPU)?;
    partitioned_sums(Device::CPU)?;
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| s.contains("cuprite_idx_"))
        .collect();
    for name in [
        "cuprite_idx_fx1_f64",
        "cuprite_idx_fx3_f32",
        "cuprite_idx_bin_f32",
        "cuprite_idx_binfin",
        "cuprite_idx_last2_",
        "cuprite_idx_max_f32",
        "cuprite_idx_copy16",
        "cuprite_idx_min_i64",
        "cuprite_idx_part1_f32_i64",
        "cuprite_idx_part1_f32_i32",
        "cuprite_idx_part2",
    ] {
        assert!(
            sources.iter().any(|s| s.contains(name)),
            "no kernel {name} recorded"
        );
    }
    let opts = cuprite_array::tuning::compiler::compile_options(90, true);
    for src in &sources {
        if let Err(e) = cuprite_driver::nvrtc::compile(src, &opts) {
            return Err(format!("scatter kernel failed to compile: {e}\n{src}").into());
        }
    }
    Ok(())
}

/// Tests beyond the per-backend bodies (the cross-backend bit check runs inside `duplicates`
/// on CUDA).
pub fn extra_tests() -> Vec<Test> {
    vec![Test::nvrtc(
        "index::scatter_kernels_compile",
        scatter_kernels_compile,
    )]
}
