//! Scans (`cumsum`, `cumprod`, `cummax`, `cummin`, exclusive forms, `scan_by_key`) and `diff`
//! on every backend against a scalar reference: every dtype, every axis, strided inputs, sizes
//! around warps, blocks and tiles, millions of elements (the look-back path), and the fused
//! producer not realised.
//!
//! Exactness: integers are compared exactly (wrapping like the library). Float inputs are
//! integers or powers of two, so that every partial sum and product is exact in `f32`/`f64` (all
//! sums here stay below 2^24) and any summation order gives the same bits: float scans are
//! compared exactly too. One test of arbitrary floats bounds the error instead, by the worst
//! case of any summation order: `|got - want| <= (i + 1) * eps * sum_{j <= i} |x_j|`.

use crate::common::Body;
use cuprite_array::dtype::Element;
use cuprite_array::{Array, Device, ScanOp, bf16, f16, s};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult};

/// A test element: how to make inputs and read values back for the reference.
pub trait TNum: Element {
    const FLOAT: bool;
    /// A small value from random bits (integers in a small range, floats integer-valued).
    fn small(r: u64) -> Self;
    /// A value whose products stay exact (±1, 2, 1/2 for floats).
    fn factor(r: u64) -> Self;
    /// The value, as an integer (integers) or as `f64` bits (floats: `f64` value).
    fn int(self) -> i128;
    fn flt(self) -> f64;
    /// Rounds a reference value to this type (floats: from `f64`; integers: wrapping).
    fn from_int(v: i128) -> Self;
    fn from_flt(v: f64) -> Self;
    /// The lowest and highest values (integers).
    fn lo() -> i128;
    fn hi() -> i128;
}

macro_rules! tint {
    ($t:ty, $small:expr) => {
        impl TNum for $t {
            const FLOAT: bool = false;
            fn small(r: u64) -> Self {
                let f: fn(u64) -> i64 = $small;
                f(r) as $t
            }
            fn factor(r: u64) -> Self {
                [1i64, 2, 3, 1, 1][(r % 5) as usize] as $t
            }
            fn int(self) -> i128 {
                self as i128
            }
            fn flt(self) -> f64 {
                self as f64
            }
            fn from_int(v: i128) -> Self {
                v as $t
            }
            fn from_flt(v: f64) -> Self {
                v as $t
            }
            fn lo() -> i128 {
                <$t>::MIN as i128
            }
            fn hi() -> i128 {
                <$t>::MAX as i128
            }
        }
    };
}
tint!(i8, |r| (r % 11) as i64 - 5);
tint!(i16, |r| (r % 201) as i64 - 100);
tint!(i32, |r| (r % 2001) as i64 - 1000);
tint!(i64, |r| (r % 2001) as i64 - 1000);
tint!(u8, |r| (r % 10) as i64);
tint!(u16, |r| (r % 1000) as i64);
tint!(u32, |r| (r % 1000) as i64);
tint!(u64, |r| (r % 1000) as i64);

impl TNum for bool {
    const FLOAT: bool = false;
    fn small(r: u64) -> Self {
        r % 3 == 0
    }
    fn factor(r: u64) -> Self {
        r % 5 != 0
    }
    fn int(self) -> i128 {
        self as i128
    }
    fn flt(self) -> f64 {
        self as u8 as f64
    }
    fn from_int(v: i128) -> Self {
        v != 0
    }
    fn from_flt(v: f64) -> Self {
        v != 0.0
    }
    fn lo() -> i128 {
        0
    }
    fn hi() -> i128 {
        1
    }
}

macro_rules! tflt {
    ($t:ty, $from:expr, $to:expr) => {
        impl TNum for $t {
            const FLOAT: bool = true;
            fn small(r: u64) -> Self {
                let f: fn(f64) -> $t = $from;
                f((r % 4) as f64)
            }
            fn factor(r: u64) -> Self {
                let f: fn(f64) -> $t = $from;
                // 2 and 1/2 rarely: the exponent's walk stays far from f32's range.
                f(match r % 64 {
                    0 => 2.0,
                    1 => 0.5,
                    k if k < 20 => -1.0,
                    _ => 1.0,
                })
            }
            fn int(self) -> i128 {
                self.flt() as i128
            }
            fn flt(self) -> f64 {
                let f: fn($t) -> f64 = $to;
                f(self)
            }
            fn from_int(v: i128) -> Self {
                Self::from_flt(v as f64)
            }
            fn from_flt(v: f64) -> Self {
                let f: fn(f64) -> $t = $from;
                f(v)
            }
            fn lo() -> i128 {
                0
            }
            fn hi() -> i128 {
                0
            }
        }
    };
}
tflt!(f32, |v| v as f32, |x| x as f64);
tflt!(f64, |v| v, |x| x);
tflt!(f16, |v| f16::from_f64(v), |x| x.to_f64());
tflt!(bf16, |v| bf16::from_f64(v), |x| x.to_f64());

/// One scan of the reference: `op` over lines of `x` (shape `outer x n x inner`), in `O`'s
/// arithmetic (wrapping for integers; `f64` then rounded to `O` for floats), with segments
/// starting where `flags` is set.
#[allow(clippy::too_many_arguments)]
pub fn reference<I: TNum, O: TNum>(
    x: &[I],
    (outer, n, inner): (usize, usize, usize),
    op: ScanOp,
    exclusive: bool,
    starts: Option<&[bool]>,
) -> Vec<O> {
    let mut out = vec![O::from_int(0); x.len()];
    let ident_f = match op {
        ScanOp::Sum => 0.0,
        ScanOp::Prod => 1.0,
        ScanOp::Max => f64::NEG_INFINITY,
        ScanOp::Min => f64::INFINITY,
    };
    let ident_i = match op {
        ScanOp::Sum => 0,
        ScanOp::Prod => 1,
        ScanOp::Max => O::lo(),
        ScanOp::Min => O::hi(),
    };
    for o in 0..outer {
        for j in 0..inner {
            let (mut af, mut ai) = (ident_f, ident_i);
            for i in 0..n {
                let k = (o * n + i) * inner + j;
                let start = i == 0 || starts.is_some_and(|s| s[k]);
                if start {
                    (af, ai) = (ident_f, ident_i);
                }
                let (bf, bi) = (af, ai);
                let (vf, vi) = (x[k].flt(), O::from_int(x[k].int()).int());
                af = match op {
                    ScanOp::Sum => af + vf,
                    ScanOp::Prod => af * vf,
                    ScanOp::Max if af.is_nan() => af,
                    ScanOp::Max if vf.is_nan() || vf > af => vf,
                    ScanOp::Min if af.is_nan() => af,
                    ScanOp::Min if vf.is_nan() || vf < af => vf,
                    _ => af,
                };
                ai = match op {
                    ScanOp::Sum => O::from_int(ai + vi).int(),
                    ScanOp::Prod => O::from_int(ai.wrapping_mul(vi)).int(),
                    ScanOp::Max => ai.max(vi),
                    ScanOp::Min => ai.min(vi),
                };
                let (f, i_) = if exclusive { (bf, bi) } else { (af, ai) };
                out[k] = if O::FLOAT {
                    O::from_flt(f)
                } else {
                    O::from_int(i_)
                };
            }
        }
    }
    out
}

/// Equal as values of the reference (NaN equals NaN; -0 equals +0 only for sums).
fn same<O: TNum>(got: &[O], want: &[O], what: &str) -> TestResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if O::FLOAT {
            let (g, w) = (g.flt(), w.flt());
            (g.is_nan() && w.is_nan()) || g == w
        } else {
            g.int() == w.int()
        };
        if !ok {
            return Err(format!("{what}: element {i}: got {g:?}, expected {w:?}").into());
        }
    }
    Ok(())
}

fn dims(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

/// Every scan of `x` (shape `shape`) along every axis, against the reference.
fn check_all<T: TNum>(x: &[T], f: &[T], shape: &[usize]) -> TestResult
where
    T::Accum: TNum,
{
    let a = Array::from_slice(x, shape)?;
    let p = Array::from_slice(f, shape)?;
    for axis in 0..shape.len() {
        let d = dims(shape, axis);
        let ax = axis as isize;
        let tag = |op: &str| format!("{op} of {} {shape:?} along {axis}", T::DTYPE);
        for excl in [false, true] {
            let e = if excl { " exclusive" } else { "" };
            let got = if excl {
                a.cumsum_exclusive(ax)?
            } else {
                a.cumsum(ax)?
            };
            let want = reference::<T, T::Accum>(x, d, ScanOp::Sum, excl, None);
            same(&got.to_vec()?, &want, &tag(&format!("cumsum{e}")))?;
            let got = if excl {
                p.cumprod_exclusive(ax)?
            } else {
                p.cumprod(ax)?
            };
            let want = reference::<T, T::Accum>(f, d, ScanOp::Prod, excl, None);
            same(&got.to_vec()?, &want, &tag(&format!("cumprod{e}")))?;
            let got = if excl {
                a.cummax_exclusive(ax)?
            } else {
                a.cummax(ax)?
            };
            let want = reference::<T, T>(x, d, ScanOp::Max, excl, None);
            same(&got.to_vec()?, &want, &tag(&format!("cummax{e}")))?;
            let got = if excl {
                a.cummin_exclusive(ax)?
            } else {
                a.cummin(ax)?
            };
            let want = reference::<T, T>(x, d, ScanOp::Min, excl, None);
            same(&got.to_vec()?, &want, &tag(&format!("cummin{e}")))?;
        }
    }
    Ok(())
}

fn make<T: TNum>(rng: &mut Rng, n: usize) -> (Vec<T>, Vec<T>) {
    let x = (0..n).map(|_| T::small(rng.next_u64())).collect();
    let f = (0..n).map(|_| T::factor(rng.next_u64())).collect();
    (x, f)
}

fn check_dtype<T: TNum>(shapes: &[Vec<usize>]) -> TestResult
where
    T::Accum: TNum,
{
    let mut rng = Rng::fresh();
    for shape in shapes {
        let n: usize = shape.iter().product();
        let (x, f) = make::<T>(&mut rng, n);
        check_all(&x, &f, shape)?;
    }
    Ok(())
}

/// Sizes around warps (32), blocks (256), tiles (2048, 4096) and 2^k ± 1; the multiples of 4
/// among them (4096, 4100, 8192, 12292: whole and partial tiles) take the vectorised kernel on
/// CUDA.
const SIZES: &[usize] = &[
    0, 1, 31, 32, 33, 1023, 1024, 1025, 2047, 2049, 4095, 4096, 4097, 4100, 8192, 8193, 12292,
];

fn shapes() -> Vec<Vec<usize>> {
    let mut v: Vec<Vec<usize>> = SIZES.iter().map(|&n| vec![n]).collect();
    v.extend([
        vec![3, 1025],
        vec![5, 4, 3],
        vec![2, 0, 3],
        vec![4100, 2],
        vec![3, 4097],
        vec![3, 4100],
        vec![],
    ]);
    v
}

fn scans_every_dtype(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let sh = shapes();
        check_dtype::<i32>(&sh)?;
        check_dtype::<f32>(&sh)?;
        // The other dtypes on fewer shapes (every path still: one tile, several, columns).
        let few = vec![
            vec![33],
            vec![4097],
            vec![3, 1025],
            vec![4100, 2],
            vec![5, 4, 3],
            vec![2, 4100],
        ];
        check_dtype::<i64>(&few)?;
        check_dtype::<f64>(&few)?;
        check_dtype::<f16>(&few)?;
        if cuprite_testkit::under_sanitizer() {
            // Every kernel instrumented: one dtype of each element width above.
            return Ok(());
        }
        check_dtype::<bool>(&few)?;
        check_dtype::<i8>(&few)?;
        check_dtype::<i16>(&few)?;
        check_dtype::<u8>(&few)?;
        check_dtype::<u16>(&few)?;
        check_dtype::<u32>(&few)?;
        check_dtype::<u64>(&few)?;
        check_dtype::<bf16>(&few)?;
        Ok(())
    })
}

/// Many lines along a non-innermost axis (the column kernel on CUDA) and few long ones.
fn scans_lines_and_columns(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for shape in [
            vec![7, 5000],
            vec![20, 700, 1],
            vec![9, 4096, 2],
            vec![2, 3, 20000],
        ] {
            let n: usize = shape.iter().product();
            let (x, f) = make::<i64>(&mut rng, n);
            check_all(&x, &f, &shape)?;
        }
        Ok(())
    })
}

/// NaN propagates through cummax/cummin; the first NaN of a line wins.
fn scans_nan(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for n in [5, 3000, 9000] {
            let mut x: Vec<f32> = rng.vec_f32(n, -1.0, 1.0);
            x[n / 2] = f32::NAN;
            x[n - 1] = f32::NAN;
            for (op, got) in [
                (ScanOp::Max, Array::from_slice(&x, &[n])?.cummax(0)?),
                (ScanOp::Min, Array::from_slice(&x, &[n])?.cummin(0)?),
            ] {
                let want = reference::<f32, f32>(&x, (1, n, 1), op, false, None);
                same(&got.to_vec()?, &want, &format!("{op:?} with NaN, n = {n}"))?;
                assert!(got.to_vec()?[n / 2..].iter().all(|v| v.is_nan()));
            }
        }
        Ok(())
    })
}

/// Arbitrary floats: within the worst-case bound of any summation order.
fn cumsum_float_bound(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let n = 50_001;
        let x = rng.vec_f32(n, -1.0, 1.0);
        let got = Array::from_slice(&x, &[n])?.cumsum(0)?.to_vec()?;
        let (mut acc, mut abs) = (0.0f64, 0.0f64);
        for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
            acc += v as f64;
            abs += (v as f64).abs();
            let bound = (i + 1) as f64 * f32::EPSILON as f64 * abs;
            if (g as f64 - acc).abs() > bound {
                return Err(format!("element {i}: got {g}, expected {acc} within {bound}").into());
            }
        }
        Ok(())
    })
}

/// Strided, sliced, broadcast and transposed inputs are read in place.
fn scans_strided(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (x, _) = make::<i32>(&mut rng, 40 * 300);
        let a = Array::from_slice(&x, &[40, 300])?;
        let views: Vec<(&str, Array<i32>)> = vec![
            ("transposed", a.t()),
            ("stepped", a.slice(&s![1..;3, 5..290;2])?),
            ("flipped", a.flip(&[1])?),
            (
                "broadcast",
                a.slice(&s![3..4, ..])?.broadcast_to(&[50, 300])?,
            ),
        ];
        for (name, v) in views {
            let dense = v.to_vec()?;
            for axis in 0..2 {
                let dd = dims(v.shape(), axis);
                let got = v.cumsum(axis as isize)?.to_vec()?;
                let want = reference::<i32, i64>(&dense, dd, ScanOp::Sum, false, None);
                same(
                    &got,
                    &want,
                    &format!("cumsum of a {name} view along {axis}"),
                )?;
                let got = v.cummax_exclusive(axis as isize)?.to_vec()?;
                let want = reference::<i32, i32>(&dense, dd, ScanOp::Max, true, None);
                same(&got, &want, &format!("cummax_exclusive of a {name} view"))?;
            }
        }
        Ok(())
    })
}

/// `(a * b + c).cumsum(0)`: one evaluation (the scan reads the expression), not two; the
/// consumer fuses onto the result; calls below the producer are realised first.
fn scan_fuses_producer(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let n = 10_000;
        let mut rng = Rng::fresh();
        let (xa, _) = make::<f32>(&mut rng, n);
        let (xb, _) = make::<f32>(&mut rng, n);
        let (xc, _) = make::<f32>(&mut rng, n);
        let (a, b, c) = (
            Array::from_slice(&xa, &[n])?,
            Array::from_slice(&xb, &[n])?,
            Array::from_slice(&xc, &[n])?,
        );
        let before = cuprite_array::stats::thread_evaluations();
        let y = (&(&a * &b) + &c).cumsum(0)?;
        y.eval()?;
        assert_eq!(
            cuprite_array::stats::thread_evaluations() - before,
            1,
            "the producer of a scan is not realised on its own"
        );
        let prod: Vec<f32> = (0..n).map(|i| xa[i] * xb[i] + xc[i]).collect();
        let want = reference::<f32, f32>(&prod, (1, n, 1), ScanOp::Sum, false, None);
        same(&y.to_vec()?, &want, "fused cumsum")?;
        // A scan below a scan: the inner one is realised first, the outer reads it fused.
        let before = cuprite_array::stats::thread_evaluations();
        let z = (a.cumsum(0)? * 2.0).cummax(0)?;
        z.eval()?;
        assert_eq!(cuprite_array::stats::thread_evaluations() - before, 2);
        // Consumers fuse onto the result.
        let w = ((&a.slice(&s![..100])? + 1.0).cumsum(0)? - 1.0)
            .sum()?
            .item()?;
        let mut acc = 0.0f64;
        let mut tot = 0.0f64;
        for v in &xa[..100] {
            acc += *v as f64 + 1.0;
            tot += acc - 1.0;
        }
        assert_eq!(w as f64, tot, "sum of a consumer of a scan");
        Ok(())
    })
}

fn scan_by_key_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for shape in [
            vec![1],
            vec![33],
            vec![5000],
            vec![3, 2049],
            vec![600, 3],
            vec![5, 4100],
        ] {
            let n: usize = shape.iter().product();
            let (x, _) = make::<i32>(&mut rng, n);
            // Runs of keys of random lengths.
            let mut keys = Vec::with_capacity(n);
            let mut k = 0u16;
            while keys.len() < n {
                let run = 1 + (rng.next_u64() % 40) as usize;
                keys.extend(std::iter::repeat_n(k, run.min(n - keys.len())));
                k = k.wrapping_add(1 + (rng.next_u64() % 3) as u16);
            }
            let a = Array::from_slice(&x, &shape)?;
            let ka = Array::from_slice(&keys, &shape)?;
            for axis in 0..shape.len() {
                let dd = dims(&shape, axis);
                let starts: Vec<bool> = (0..n)
                    .map(|i| i >= dd.2 && (i / dd.2) % dd.1 != 0 && keys[i] != keys[i - dd.2])
                    .collect();
                for op in [ScanOp::Sum, ScanOp::Prod, ScanOp::Max, ScanOp::Min] {
                    for excl in [false, true] {
                        let got = a.scan_by_key(&ka, op, axis as isize, excl)?.to_vec()?;
                        let want = reference::<i32, i64>(&x, dd, op, excl, Some(&starts));
                        same(
                            &got,
                            &want,
                            &format!("scan_by_key {op:?} excl={excl} {shape:?} axis {axis}"),
                        )?;
                    }
                }
            }
        }
        // Float keys: NaN never equals the previous key.
        let v = Array::from_slice(&[1.0f32, 1.0, 1.0, 1.0], &[4])?;
        let k = Array::from_slice(&[0.0f32, f32::NAN, f32::NAN, 0.0], &[4])?;
        assert_eq!(
            v.scan_by_key(&k, ScanOp::Sum, 0, false)?.to_vec()?,
            [1.0, 1.0, 1.0, 1.0]
        );
        // Bad input.
        let e = v.scan_by_key(&Array::<u8>::zeros(&[3]), ScanOp::Sum, 0, false);
        let e = e.unwrap_err().to_string();
        assert!(e.contains("[3]") && e.contains("[4]"), "{e}");
        Ok(())
    })
}

fn diff_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let x: Vec<i32> = (0..24).map(|i| (i * i * 7 % 31) - 10).collect();
        let a = Array::from_slice(&x, &[4, 6])?;
        let got = a.diff(1, 1)?;
        assert_eq!(got.shape(), &[4, 5]);
        let want: Vec<i32> = (0..4)
            .flat_map(|r| (0..5).map(move |c| (r, c)))
            .map(|(r, c)| x[r * 6 + c + 1] - x[r * 6 + c])
            .collect();
        assert_eq!(got.to_vec()?, want);
        let got = a.diff(2, 0)?;
        assert_eq!(got.shape(), &[2, 6]);
        let want: Vec<i32> = (0..12).map(|k| x[k + 12] - 2 * x[k + 6] + x[k]).collect();
        assert_eq!(got.to_vec()?, want);
        assert_eq!(a.diff(0, 0)?.to_vec()?, x);
        assert_eq!(a.diff(9, 0)?.shape(), &[0, 6]);
        let u = Array::from_slice(&[1u8, 0, 5], &[3])?;
        assert_eq!(u.diff(1, 0)?.to_vec()?, [255u8, 5]);
        let b = Array::from_slice(&[true, true, false, true], &[4])?;
        assert_eq!(b.diff(1, 0)?.to_vec()?, [false, true, true]);
        let f = Array::from_slice(&[1.0f64, 4.0, 9.0], &[3])?;
        assert_eq!(f.diff(1, -1)?.to_vec()?, [3.0, 5.0]);
        let e = a.diff(1, 2).unwrap_err().to_string();
        assert!(e.contains("axis 2") && e.contains("[4, 6]"), "{e}");
        crate::common::assert_err(Array::scalar(1.0f32).diff(1, 0), "Axis", "0-dimensional");
        Ok(())
    })
}

fn scan_errors(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let m = Array::from_slice(&[1i64, 2, 3, 4, 5, 6], &[2, 3])?;
        for e in [m.cumsum(2), m.cumsum(-3), m.cumprod(5)] {
            let e = e.unwrap_err().to_string();
            assert!(e.contains("axis") && e.contains("[2, 3]"), "{e}");
        }
        let e = m.cummax(7).unwrap_err().to_string();
        assert!(e.contains("axis 7"), "{e}");
        let z = Array::from_slice(&[cuprite_array::c32::new(1.0, 0.0)], &[1])?;
        for e in [z.cumsum(0).map(|_| ()), z.cummax(0).map(|_| ())] {
            let e = e.unwrap_err().to_string();
            assert!(e.contains("complex"), "{e}");
        }
        // Scalars scan as one element; empty arrays give empty results.
        assert_eq!(Array::scalar(2.5f32).cumsum(0)?.to_vec()?, [2.5]);
        assert_eq!(
            Array::scalar(3i8).cummin_exclusive(-1)?.to_vec()?,
            [i8::MAX]
        );
        let e = Array::<f32>::from_slice(&[], &[0, 3])?;
        assert_eq!(e.cumprod(1)?.shape(), &[0, 3]);
        assert!(e.cummax(0)?.to_vec()?.is_empty());
        Ok(())
    })
}

/// Millions of elements: many tiles chained by look-back (integer-valued floats keep every
/// partial sum exact below 2^24, so the comparison is exact).
fn scans_millions(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        // Under a sanitizer: still about 32 tiles chained by look-back.
        let sizes: &[usize] = if cuprite_testkit::under_sanitizer() {
            &[(1 << 17) + 1]
        } else {
            &[(1 << 22) + 1, 5_000_000]
        };
        for &n in sizes {
            let x: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 4) as f32).collect();
            let a = Array::from_slice(&x, &[n])?;
            let want = reference::<f32, f32>(&x, (1, n, 1), ScanOp::Sum, false, None);
            same(&a.cumsum(0)?.to_vec()?, &want, &format!("cumsum of {n}"))?;
            let want = reference::<f32, f32>(&x, (1, n, 1), ScanOp::Sum, true, None);
            same(&a.cumsum_exclusive(0)?.to_vec()?, &want, "cumsum_exclusive")?;
            let xi: Vec<i64> = x.iter().map(|&v| v as i64 - 1).collect();
            let ai = Array::from_slice(&xi, &[n])?;
            let want = reference::<i64, i64>(&xi, (1, n, 1), ScanOp::Max, false, None);
            same(&(&ai * 1i64).cummax(0)?.to_vec()?, &want, "cummax of i64")?;
        }
        // One long line of thousands of tiles (on CUDA: every block of the pipelined kernel
        // takes several rounds of its stages), inclusive and exclusive, plain and fused: values
        // 0 and 1 keep every partial sum of `f32` exact.
        let n = if cuprite_testkit::under_sanitizer() {
            (1 << 18) + 12
        } else {
            (1 << 23) + 12
        };
        let x: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 2) as f32).collect();
        let b: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 2) as f32).collect();
        let (a, ab) = (Array::from_slice(&x, &[n])?, Array::from_slice(&b, &[n])?);
        let want = reference::<f32, f32>(&x, (1, n, 1), ScanOp::Sum, false, None);
        same(&a.cumsum(0)?.to_vec()?, &want, &format!("cumsum of {n}"))?;
        let want = reference::<f32, f32>(&x, (1, n, 1), ScanOp::Sum, true, None);
        same(
            &a.cumsum_exclusive(0)?.to_vec()?,
            &want,
            "long cumsum_exclusive",
        )?;
        // x * b + (1 - b): 1 where b is 0, else x (at most 1 a step).
        let y: Vec<f32> = x.iter().zip(&b).map(|(&u, &v)| u * v + (1.0 - v)).collect();
        let want = reference::<f32, f32>(&y, (1, n, 1), ScanOp::Sum, false, None);
        same(
            &(&(&a * &ab) + &(1.0f32 - &ab)).cumsum(0)?.to_vec()?,
            &want,
            "long fused cumsum(x*b + (1 - b))",
        )?;
        let xi: Vec<i32> = (0..n)
            .map(|_| (rng.next_u64() % 1_000_003) as i32 - 500_000)
            .collect();
        let ai = Array::from_slice(&xi, &[n])?;
        let want = reference::<i32, i32>(&xi, (1, n, 1), ScanOp::Max, false, None);
        same(&ai.cummax(0)?.to_vec()?, &want, "long cummax of i32")?;
        let want = reference::<i32, i32>(&xi, (1, n, 1), ScanOp::Min, true, None);
        same(
            &ai.cummin_exclusive(0)?.to_vec()?,
            &want,
            "long exclusive cummin of i32",
        )?;
        // Compaction over thousands of tiles (the ranks chained by look-back).
        let n = 5_000_001;
        let x: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 1000) as f32).collect();
        let a = Array::from_slice(&x, &[n])?;
        let m = a.greater(400.0f32);
        let want: Vec<i64> = (0..n).filter(|&i| x[i] > 400.0).map(|i| i as i64).collect();
        same(&m.argwhere()?.to_vec()?, &want, "argwhere of millions")?;
        let want: Vec<f32> = x.iter().copied().filter(|&v| v > 400.0).collect();
        same(
            &a.masked_select(&m)?.to_vec()?,
            &want,
            "masked_select of millions",
        )?;
        // Two long lines and a key scan over millions.
        let n = 2 * 1_500_001;
        let x: Vec<i32> = (0..n).map(|_| (rng.next_u64() % 7) as i32 - 3).collect();
        let keys: Vec<u32> = (0..n).map(|i| (i / 1000) as u32).collect();
        let a = Array::from_slice(&x, &[2, n / 2])?;
        let k = Array::from_slice(&keys, &[2, n / 2])?;
        let want = reference::<i32, i64>(&x, (2, n / 2, 1), ScanOp::Sum, false, None);
        same(&a.cumsum(1)?.to_vec()?, &want, "two long lines")?;
        let starts: Vec<bool> = (0..n)
            .map(|i| i % (n / 2) != 0 && keys[i] != keys[i - 1])
            .collect();
        let want = reference::<i32, i64>(&x, (2, n / 2, 1), ScanOp::Sum, false, Some(&starts));
        same(
            &a.scan_by_key(&k, ScanOp::Sum, 1, false)?.to_vec()?,
            &want,
            "by key",
        )?;
        Ok(())
    })
}

/// Several long lines (the long form of the vectorised look-back kernel on CUDA), each with a
/// partial last tile: inclusive and exclusive sums, a fused producer, and `i32` extremes, all
/// exact.
fn scans_long_lines(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (lines, n) = (3, (1 << 17) + 4 * 257);
        let x: Vec<f32> = (0..lines * n)
            .map(|_| (rng.next_u64() % 4) as f32)
            .collect();
        let a = Array::from_slice(&x, &[lines, n])?;
        let dims = (lines, n, 1);
        let want = reference::<f32, f32>(&x, dims, ScanOp::Sum, false, None);
        same(&a.cumsum(1)?.to_vec()?, &want, "long-line cumsum")?;
        let want = reference::<f32, f32>(&x, dims, ScanOp::Sum, true, None);
        same(
            &a.cumsum_exclusive(1)?.to_vec()?,
            &want,
            "long-line cumsum_exclusive",
        )?;
        let y: Vec<f32> = x.iter().map(|&v| v * 2.0 + 1.0).collect();
        let want = reference::<f32, f32>(&y, dims, ScanOp::Sum, false, None);
        same(
            &(&a * 2.0 + 1.0).cumsum(1)?.to_vec()?,
            &want,
            "long-line cumsum(2x + 1)",
        )?;
        let xi: Vec<i32> = (0..lines * n)
            .map(|_| (rng.next_u64() % 2_000_001) as i32 - 1_000_000)
            .collect();
        let ai = Array::from_slice(&xi, &[lines, n])?;
        let want = reference::<i32, i32>(&xi, dims, ScanOp::Max, false, None);
        same(&ai.cummax(1)?.to_vec()?, &want, "long-line cummax of i32")?;
        let want = reference::<i32, i32>(&xi, dims, ScanOp::Min, true, None);
        same(
            &ai.cummin_exclusive(1)?.to_vec()?,
            &want,
            "long-line exclusive cummin of i32",
        )?;
        Ok(())
    })
}

/// Lengths on and around the tile boundaries of the look-back kernels' long forms (lines of
/// 2^16 elements and more are cut into tiles of a few thousand to some tens of thousands of
/// elements, a multiple of 1024; a fused producer's tiles are shorter): exact multiples of
/// large powers of two, a vector more or less (a last tile of a single vector among them),
/// 16 bytes more or less than a multiple of 8192 (the pipelined kernel's tiles of one input of
/// 4 bytes), lengths that are not a multiple of the vector (the shared-tile kernel) and primes.
const TILE_LENGTHS: &[usize] = &[
    1 << 16,
    (3 << 13) * 3,
    (3 << 13) * 3 - 4,
    (3 << 13) * 3 + 4,
    (5 << 12) * 5 + 8,
    (1 << 13) * 11 - 4,
    (1 << 13) * 16 + 4,
    (5 << 12) * 7 + 3,
    100_003,
    (1 << 17) + 1,
];

/// Every operator, inclusive and exclusive, over `lines` lines of `n` (scanned along the last
/// axis, the lines' look-back status kept apart) of dtype `T`, and a fused producer, against
/// the host reference; products only for integers (a float product of this many factors can
/// overflow in one order and not in another).
fn check_long<T: TNum + cuprite_array::Numeric + cuprite_array::Promote<T, Output = T>>(
    rng: &mut Rng,
    lines: usize,
    n: usize,
) -> TestResult
where
    T::Accum: TNum,
{
    let (x, f) = make::<T>(rng, lines * n);
    let shape = [lines, n];
    let dims = (lines, n, 1);
    let a = Array::from_slice(&x, &shape)?;
    let tag = |op: &str, excl: bool| {
        let e = if excl { " exclusive" } else { "" };
        format!("{op}{e} of {lines} x {n} {}", T::DTYPE)
    };
    for excl in [false, true] {
        let got = if excl {
            a.cumsum_exclusive(1)?
        } else {
            a.cumsum(1)?
        };
        let want = reference::<T, T::Accum>(&x, dims, ScanOp::Sum, excl, None);
        same(&got.to_vec()?, &want, &tag("cumsum", excl))?;
        let got = if excl {
            a.cummax_exclusive(1)?
        } else {
            a.cummax(1)?
        };
        let want = reference::<T, T>(&x, dims, ScanOp::Max, excl, None);
        same(&got.to_vec()?, &want, &tag("cummax", excl))?;
        let got = if excl {
            a.cummin_exclusive(1)?
        } else {
            a.cummin(1)?
        };
        let want = reference::<T, T>(&x, dims, ScanOp::Min, excl, None);
        same(&got.to_vec()?, &want, &tag("cummin", excl))?;
        if !T::FLOAT {
            let p = Array::from_slice(&f, &shape)?;
            let got = if excl {
                p.cumprod_exclusive(1)?
            } else {
                p.cumprod(1)?
            };
            let want = reference::<T, T::Accum>(&f, dims, ScanOp::Prod, excl, None);
            same(&got.to_vec()?, &want, &tag("cumprod", excl))?;
        }
    }
    // A fused producer of three inputs (its own, shorter tiles): (x + x) + f.
    let b = Array::from_slice(&f, &shape)?;
    let y: Vec<T> = x
        .iter()
        .zip(&f)
        .map(|(&u, &v)| {
            if T::FLOAT {
                T::from_flt(u.flt() * 2.0 + v.flt())
            } else {
                T::from_int(u.int() * 2 + v.int())
            }
        })
        .collect();
    let want = reference::<T, T::Accum>(&y, dims, ScanOp::Sum, false, None);
    same(
        &(&(&a + &a) + &b).cumsum(1)?.to_vec()?,
        &want,
        &tag("cumsum(2x + f)", false),
    )?;
    Ok(())
}

/// Scans of lines whose lengths cross the long tiles' boundaries ([`TILE_LENGTHS`]): one line
/// and three lines of each length in `f32` and `i32` (packed look-back status: a 4-byte
/// accumulator), one line in `f16` (accumulated in `f32`, rounded once) and `u8` (wide `u64`
/// sums: the split status), every operator inclusive and exclusive, all exact.
fn scans_tile_boundaries(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let lengths: &[usize] = if cuprite_testkit::under_sanitizer() {
            &TILE_LENGTHS[1..3]
        } else {
            TILE_LENGTHS
        };
        for &n in lengths {
            for lines in [1, 3] {
                check_long::<f32>(&mut rng, lines, n)?;
                check_long::<i32>(&mut rng, lines, n)?;
            }
            check_long::<f16>(&mut rng, 1, n)?;
            check_long::<u8>(&mut rng, 1, n)?;
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("scans_long_lines", scans_long_lines),
    ("scans_tile_boundaries", scans_tile_boundaries),
    ("scans_every_dtype", scans_every_dtype),
    ("scans_lines_and_columns", scans_lines_and_columns),
    ("scans_nan", scans_nan),
    ("cumsum_float_bound", cumsum_float_bound),
    ("scans_strided", scans_strided),
    ("scan_fuses_producer", scan_fuses_producer),
    ("scan_by_key_values", scan_by_key_values),
    ("diff_values", diff_values),
    ("scan_errors", scan_errors),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES.iter().chain(crate::compact::BODIES) {
        v.push(Test::cpu(format!("cpu::scan::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::scan::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::gpu("cuda::scan::scans_millions", || {
        scans_millions(Device::cuda(0))
    }));
    v.push(Test::gpu("cuda::scan::scans_in_chunks", || {
        scans_in_chunks(Device::cuda(0))
    }));
    v.push(Test::gpu(
        "cuda::scan::pipelined_in_child",
        pipelined_in_child,
    ));
    v.push(Test::gpu(
        "cuda::scan::look_back_in_child",
        look_back_in_child,
    ));
    v.push(Test::nvrtc("scan::kernels_compile", kernels_compile));
    v
}

/// The GPU scan tests again in a child process with the pipelined look-back kernel on
/// (`CUPRITE_ARRAY_SCAN_PIPELINE=1`, read once per process): long lines, every tile boundary
/// of [`TILE_LENGTHS`] and millions of elements, each against its host reference. In the
/// child this test itself passes at once.
fn pipelined_in_child() -> TestResult {
    if std::env::var_os("CUPRITE_ARRAY_SCAN_PIPELINE").is_some() {
        return Ok(());
    }
    scans_in_child(
        "CUPRITE_ARRAY_SCAN_PIPELINE",
        "the pipelined kernel on",
        "cuda::scan::",
        &[
            "scans_long_lines",
            "scans_tile_boundaries",
            "scans_millions",
        ],
    )
}

/// Runs the GPU tests whose names contain `filter` in a child process with `var` set to 1
/// (`what` says what that does, for the error), and checks that each of `names` (of
/// `cuda::scan::`) passed there.
fn scans_in_child(var: &str, what: &str, filter: &str, names: &[&str]) -> TestResult {
    let out = std::process::Command::new(std::env::current_exe()?)
        .arg(filter)
        .env(var, "1")
        .output_within(CHILD_LIMIT)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "the scan tests with {what} failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    for name in names {
        let passed = stdout
            .lines()
            .any(|l| l.contains(&format!("cuda::scan::{name} ")) && l.trim_end().ends_with("ok"));
        if !passed {
            return Err(format!("cuda::scan::{name} did not pass with {what}:\n{stdout}").into());
        }
    }
    Ok(())
}

/// One line of several chunks of the chunked kernel (on CUDA devices whose L2 takes it; the long
/// look-back kernel elsewhere), the last chunk and the last tile partial: random `f32` values
/// in `[0, 1)` against an `f64` prefix (relative error at most 1e-5), sums of steps of -1, 0
/// and 1 inclusive and exclusive exactly, a running minimum of `i32` exactly, a running
/// maximum that meets a NaN in a late chunk, and the sum of `a * b + c` over three inputs of
/// such steps exactly (a fused scan, which keeps the look-back kernel).
fn scans_in_chunks(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        // Tiles of 16384 elements, chunks of about 2.2 million on a 50 MiB L2.
        let n = if cuprite_testkit::under_sanitizer() {
            3 * (1 << 21) + 4 * 7
        } else {
            (1 << 24) + 4 * 1001
        };
        let x: Vec<f32> = (0..n)
            .map(|_| (rng.next_u64() % (1 << 20)) as f32 / (1u32 << 20) as f32)
            .collect();
        let a = Array::from_slice(&x, &[n])?;
        let got = a.cumsum(0)?.to_vec()?;
        let mut acc = 0f64;
        for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
            acc += f64::from(v);
            let err = (f64::from(g) - acc).abs() / acc.max(1.0);
            if err.is_nan() || err > 1e-5 {
                return Err(format!("cumsum of {n} f32: element {i}: {g}, expected {acc}").into());
            }
        }
        // Steps of -1, 0 and 1: every partial sum of `f32` stays exact.
        let xs: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 3) as f32 - 1.0).collect();
        let a = Array::from_slice(&xs, &[n])?;
        let want = reference::<f32, f32>(&xs, (1, n, 1), ScanOp::Sum, false, None);
        same(&a.cumsum(0)?.to_vec()?, &want, "cumsum of steps in chunks")?;
        let want = reference::<f32, f32>(&xs, (1, n, 1), ScanOp::Sum, true, None);
        same(
            &a.cumsum_exclusive(0)?.to_vec()?,
            &want,
            "cumsum_exclusive of steps in chunks",
        )?;
        let xi: Vec<i32> = (0..n)
            .map(|_| (rng.next_u64() % 2_000_003) as i32 - 1_000_000)
            .collect();
        let ai = Array::from_slice(&xi, &[n])?;
        let want = reference::<i32, i32>(&xi, (1, n, 1), ScanOp::Min, false, None);
        same(&ai.cummin(0)?.to_vec()?, &want, "cummin of i32 in chunks")?;
        let mut y = x.clone();
        y[n - n / 5] = f32::NAN;
        let ay = Array::from_slice(&y, &[n])?;
        let want = reference::<f32, f32>(&y, (1, n, 1), ScanOp::Max, false, None);
        same(&ay.cummax(0)?.to_vec()?, &want, "cummax with a late NaN")?;
        // Three inputs fused into the scan of the same long line (the look-back kernel: the chunked
        // one takes one input), `a * b + c` of steps: every partial sum exact.
        let step = |rng: &mut Rng| -> Vec<f32> {
            (0..n).map(|_| (rng.next_u64() % 3) as f32 - 1.0).collect()
        };
        let (va, vb, vc) = (step(&mut rng), step(&mut rng), step(&mut rng));
        let z: Vec<f32> = (0..n).map(|i| va[i] * vb[i] + vc[i]).collect();
        let (fa, fb, fc) = (
            Array::from_slice(&va, &[n])?,
            Array::from_slice(&vb, &[n])?,
            Array::from_slice(&vc, &[n])?,
        );
        let want = reference::<f32, f32>(&z, (1, n, 1), ScanOp::Sum, false, None);
        same(
            &(&(&fa * &fb) + &fc).cumsum(0)?.to_vec()?,
            &want,
            "cumsum of a * b + c in chunks",
        )?;
        Ok(())
    })
}

/// The long scan tests again in a child process with the chunked kernel off
/// (`CUPRITE_ARRAY_NO_SCAN_CHUNKED=1`, read once per process), so that the long look-back
/// kernel stays tested where the chunked one would take its lines. In the child (and in the
/// pipelined kernel's) this test itself passes at once.
fn look_back_in_child() -> TestResult {
    if std::env::var_os("CUPRITE_ARRAY_NO_SCAN_CHUNKED").is_some()
        || std::env::var_os("CUPRITE_ARRAY_SCAN_PIPELINE").is_some()
    {
        return Ok(());
    }
    scans_in_child(
        "CUPRITE_ARRAY_NO_SCAN_CHUNKED",
        "the chunked kernel off",
        "cuda::scan::scans_",
        &["scans_millions", "scans_in_chunks", "scans_tile_boundaries"],
    )
}

/// Every scan, compaction and search kernel the bodies generate compiles with NVRTC.
fn kernels_compile() -> TestResult {
    use cuprite_array::tuning;
    tuning::compiler::start_recording();
    let mut errors = Vec::new();
    for &(name, body) in BODIES.iter().chain(crate::compact::BODIES) {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("{name}: {e}"));
        }
    }
    // One source per kernel name (operator, dtype, inclusive or not, keyed, kernel kind):
    // the programs feeding them vary only in the element-wise code the other tests compile.
    let mut names = std::collections::HashSet::new();
    let sources: Vec<String> = tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| {
            // `__launch_bounds__(256)` or `__launch_bounds__(256, N)`, then the name.
            let name = s
                .split("__global__ void __launch_bounds__(")
                .nth(1)
                .and_then(|r| r.split_once(") "))
                .and_then(|(_, r)| r.split('(').next())
                .unwrap_or("");
            (name.starts_with("cuprite_scan_") || name.starts_with("cuprite_searchsorted_"))
                && names.insert(name.to_string())
        })
        .collect();
    if !errors.is_empty() {
        return Err(errors.join("\n").into());
    }
    assert!(
        sources.len() > 40,
        "only {} scan kernels recorded",
        sources.len()
    );
    eprintln!("compiling {} scan kernels", sources.len());
    assert!(
        sources.iter().any(|s| s.contains("scan_pipe<")),
        "no pipelined scan kernel among them"
    );
    let opts = tuning::compiler::compile_options(90, true);
    // Batched by shared helpers: each kernel body in a namespace under a name of its own.
    const MARKER: &str = "// ---- cuprite-array kernel ----\n";
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for src in &sources {
        let (pre, body) = src
            .split_once(MARKER)
            .ok_or("a kernel without the marker")?;
        groups
            .entry(pre.to_string())
            .or_default()
            .push(body.to_string());
    }
    for (pre, bodies) in groups {
        for chunk in bodies.chunks(24) {
            let mut tu = pre.clone();
            for (k, body) in chunk.iter().enumerate() {
                let body = body
                    .replace("cuprite_scan_", &format!("cuprite_scan{k}_"))
                    .replace(
                        "cuprite_searchsorted_",
                        &format!("cuprite_searchsorted{k}_"),
                    );
                tu.push_str(&format!("namespace k{k} {{\n{body}\n}}\n"));
            }
            if let Err(e) = cuprite_driver::nvrtc::compile(&tu, &opts) {
                for body in chunk {
                    let src = format!("{pre}{MARKER}{body}");
                    if let Err(e) = cuprite_driver::nvrtc::compile(&src, &opts) {
                        return Err(format!("kernel failed to compile: {e}\n{src}").into());
                    }
                }
                return Err(format!("a batch failed: {e}").into());
            }
        }
    }
    Ok(())
}
