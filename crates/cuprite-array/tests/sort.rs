//! The sort family against a reference written here (a stable comparison sort on the host
//! with the documented order: NaN last ascending, first descending, `-0.0 < +0.0`): every
//! dtype, sizes around warp, block, tile and selection thresholds, every axis, strided inputs,
//! stability with duplicate keys, and bad input. Results are compared exactly (bit for bit for
//! values, NaN canonical). Bodies run on every backend present; the kernels compile with NVRTC.

use crate::common::Body;
use cuprite_array::ops::{AxisOpts, QuantileOpts};
use cuprite_array::ops::{SortOpts, TopkOpts};
use cuprite_array::shape::SliceArg;
use cuprite_array::{
    Array, Device, Element, QuantileMethod, bf16, c64, f16, intersect1d, setdiff1d, sort_by_key,
    sort_by_key_with, tuning, union1d,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::cmp::Ordering;

/// Test-side view of an element: order, canonical bits, value.
trait V: Element {
    /// A random element from a small range (duplicates), sometimes a special value.
    fn sample(r: &mut Rng) -> Self;
    fn f(self) -> f64;
    fn is_nan(self) -> bool {
        false
    }
    /// Bits, NaN canonical.
    fn canon(self) -> u64;
    /// `v` rounded to this type (floats), as `f64`.
    fn round_f(v: f64) -> f64 {
        v
    }
    fn cmp_asc(a: Self, b: Self) -> Ordering {
        match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => a.f().total_cmp(&b.f()),
        }
    }
    /// Numeric equality with NaN equal to NaN.
    fn same(a: Self, b: Self) -> bool {
        (a.is_nan() && b.is_nan()) || a.f() == b.f()
    }
}

macro_rules! int_v {
    ($($t:ty),*) => {$(
        impl V for $t {
            fn sample(r: &mut Rng) -> Self {
                let x = r.next_u64();
                match x % 11 {
                    0 => <$t>::MAX,
                    1 => <$t>::MIN,
                    _ => ((x >> 8) % 37) as $t,
                }
                .wrapping_sub((x % 3) as $t)
            }
            fn f(self) -> f64 { self as f64 }
            fn canon(self) -> u64 { self as u64 }
            fn cmp_asc(a: Self, b: Self) -> Ordering { a.cmp(&b) }
            fn same(a: Self, b: Self) -> bool { a == b }
        }
    )*};
}
int_v!(u8, u16, u32, u64, i8, i16, i32, i64);

impl V for bool {
    fn sample(r: &mut Rng) -> Self {
        r.next_u64() % 3 == 0
    }
    fn f(self) -> f64 {
        self as u8 as f64
    }
    fn canon(self) -> u64 {
        self as u64
    }
}

macro_rules! float_v {
    ($t:ty, $bits:ty, $nan:expr, $to:expr, $from:expr) => {
        impl V for $t {
            fn sample(r: &mut Rng) -> Self {
                let x = r.next_u64();
                let v: f64 = match x % 16 {
                    0 => f64::NAN,
                    1 => -f64::NAN,
                    2 => 0.0,
                    3 => -0.0,
                    4 => f64::INFINITY,
                    5 => f64::NEG_INFINITY,
                    _ => ((x >> 8) % 61) as f64 * 0.25 - 7.0,
                };
                $from(v)
            }
            fn f(self) -> f64 {
                $to(self)
            }
            fn is_nan(self) -> bool {
                $to(self).is_nan()
            }
            fn canon(self) -> u64 {
                if self.is_nan() {
                    $nan
                } else {
                    self.to_bits() as u64
                }
            }
            fn round_f(v: f64) -> f64 {
                $to($from(v))
            }
        }
    };
}
float_v!(f32, u32, 0x7fc0_0000, |x: f32| x as f64, |v: f64| v as f32);
float_v!(f64, u64, 0x7ff8_0000_0000_0000, |x: f64| x, |v: f64| v);
float_v!(f16, u16, 0x7e00, |x: f16| x.to_f64(), f16::from_f64);
float_v!(bf16, u16, 0x7fc0, |x: bf16| x.to_f64(), bf16::from_f64);

fn data<T: V>(r: &mut Rng, n: usize) -> Vec<T> {
    (0..n).map(|_| T::sample(r)).collect()
}

/// The stable sorting permutation of `x`.
fn ref_perm<T: V>(x: &[T], desc: bool) -> Vec<usize> {
    let mut p: Vec<usize> = (0..x.len()).collect();
    p.sort_by(|&i, &j| {
        let o = T::cmp_asc(x[i], x[j]);
        if desc { o.reverse() } else { o }
    });
    p
}

fn bits<T: V>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.canon()).collect()
}

fn check_eq<A: PartialEq + std::fmt::Debug>(got: &[A], want: &[A], what: &str) -> TestResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()).into());
    }
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        return Err(format!(
            "{what}: element {i} is {:?}, expected {:?}",
            got[i], want[i]
        )
        .into());
    }
    Ok(())
}

/// The lines of a row-major `shape` along `ax`: each a list of flat indices.
fn lines(shape: &[usize], ax: usize) -> Vec<Vec<usize>> {
    let n = shape[ax];
    let inner: usize = shape[ax + 1..].iter().product();
    let outer: usize = shape[..ax].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        for j in 0..inner {
            out.push((0..n).map(|i| (o * n + i) * inner + j).collect());
        }
    }
    out
}

/// Sort, argsort and sort_with_indices of `a` (host copy `x`, shape `shape`) along `ax`
/// against the reference.
fn check_sort<T: V>(a: &Array<T>, x: &[T], shape: &[usize], ax: usize, what: &str) -> TestResult {
    for desc in [false, true] {
        let (v, i) = a.sort_with_indices_with(ax as isize, SortOpts::new().descending(desc))?;
        let (v, i) = (v.to_vec()?, i.to_vec()?);
        let v2 = a
            .sort_with(ax as isize, SortOpts::new().descending(desc))?
            .to_vec()?;
        let i2 = a
            .argsort_with(
                ax as isize - shape.len() as isize,
                SortOpts::new().descending(desc),
            )?
            .to_vec()?;
        let mut wv = vec![0u64; x.len()];
        let mut wi = vec![0i64; x.len()];
        for line in lines(shape, ax) {
            let lx: Vec<T> = line.iter().map(|&k| x[k]).collect();
            for (pos, &src) in ref_perm(&lx, desc).iter().enumerate() {
                wv[line[pos]] = lx[src].canon();
                wi[line[pos]] = src as i64;
            }
        }
        let w = format!("{what} {} axis {ax} desc {desc}", T::DTYPE);
        check_eq(&bits(&v), &wv, &format!("{w} values"))?;
        check_eq(&bits(&v2), &wv, &format!("{w} sort"))?;
        check_eq(&i, &wi, &format!("{w} indices"))?;
        check_eq(&i2, &wi, &format!("{w} argsort"))?;
    }
    Ok(())
}

const SIZES: &[usize] = &[
    0, 1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 2047, 2049, 4095, 4096, 4097, 9000,
];

/// Under a sanitizer: fewer sizes, still one tile, tile boundaries and several tiles.
const SANITIZER_SIZES: &[usize] = &[0, 1, 33, 1025, 4097, 9000];

fn sort_1d<T: V>(d: Device, r: &mut Rng) -> TestResult {
    let sizes = if cuprite_testkit::under_sanitizer() {
        SANITIZER_SIZES
    } else {
        SIZES
    };
    for &n in sizes {
        let x = data::<T>(r, n);
        let a = Array::from_slice_on(d, &x, &[n])?;
        check_sort(&a, &x, &[n], 0, &format!("n={n}"))?;
    }
    Ok(())
}

fn sort_nd<T: V>(d: Device, r: &mut Rng) -> TestResult {
    // Under a sanitizer: the one-block row sort and the segmented device-wide sort only.
    let shapes = if cuprite_testkit::under_sanitizer() {
        vec![vec![3usize, 5, 33], vec![3, 4500]]
    } else {
        vec![vec![3usize, 5, 33], vec![2, 2100, 3], vec![3, 4500]]
    };
    for shape in shapes {
        let n: usize = shape.iter().product();
        let x = data::<T>(r, n);
        let a = Array::from_slice_on(d, &x, &shape)?;
        for ax in 0..shape.len() {
            check_sort(&a, &x, &shape, ax, &format!("shape {shape:?}"))?;
        }
    }
    // A strided view: every other column of a transposed matrix.
    let x = data::<T>(r, 40 * 66);
    let a = Array::from_slice_on(d, &x, &[40, 66])?.t();
    let s = a.slice(&[
        SliceArg::Range {
            start: None,
            end: None,
            step: 2,
        },
        SliceArg::Range {
            start: Some(1),
            end: None,
            step: 1,
        },
    ])?;
    let host = s.to_vec()?;
    check_sort(&s, &host, s.shape(), 1, "strided")?;
    check_sort(&s, &host, s.shape(), 0, "strided")?;
    Ok(())
}

fn every_dtype(d: Device, f: fn(Device, &mut Rng, &str) -> TestResult) -> TestResult {
    let mut r = Rng::fresh();
    macro_rules! each {
        ($($t:ty),*) => {$( f(d, &mut r, stringify!($t)).map_err(|e| format!("{}: {e}", stringify!($t)))?; )*};
    }
    if cuprite_testkit::under_sanitizer() {
        // Every kernel is instrumented (racecheck takes minutes per dtype): one dtype per key
        // width and key transform (unsigned, signed, float), which is what the kernels differ
        // in.
        each!(u8, i16, f16, f32, i64, f64);
    } else {
        each!(
            bool, u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64
        );
    }
    Ok(())
}

macro_rules! dispatch {
    ($d:expr, $r:expr, $name:expr, $f:ident) => {
        match $name {
            "bool" => $f::<bool>($d, $r),
            "u8" => $f::<u8>($d, $r),
            "u16" => $f::<u16>($d, $r),
            "u32" => $f::<u32>($d, $r),
            "u64" => $f::<u64>($d, $r),
            "i8" => $f::<i8>($d, $r),
            "i16" => $f::<i16>($d, $r),
            "i32" => $f::<i32>($d, $r),
            "i64" => $f::<i64>($d, $r),
            "f16" => $f::<f16>($d, $r),
            "bf16" => $f::<bf16>($d, $r),
            "f32" => $f::<f32>($d, $r),
            _ => $f::<f64>($d, $r),
        }
    };
}

fn sort_dtypes(d: Device) -> TestResult {
    every_dtype(d, |d, r, t| dispatch!(d, r, t, sort_1d))
}

fn sort_axes(d: Device) -> TestResult {
    if cuprite_testkit::under_sanitizer() {
        // The axes and views are what this test is about; the kernels of each key width are
        // `sort_dtypes`'. Racecheck did not get through six dtypes in 540 s.
        return sort_nd::<f32>(d, &mut Rng::fresh());
    }
    every_dtype(d, |d, r, t| dispatch!(d, r, t, sort_nd))
}

/// The order of special values, spelled out.
fn nan_and_zero_order(d: Device) -> TestResult {
    let x = [
        1.0f32,
        f32::NAN,
        -0.0,
        0.0,
        -f32::NAN,
        f32::NEG_INFINITY,
        -0.0,
        f32::INFINITY,
    ];
    let a = Array::from_slice_on(d, &x, &[8])?;
    let (v, i) = a.sort_with_indices(0)?;
    check_eq(&i.to_vec()?, &[5, 2, 6, 3, 0, 7, 1, 4], "ascending order")?;
    let v = v.to_vec()?;
    assert!(v[1].is_sign_negative() && v[3].is_sign_positive() && v[6].is_nan());
    check_eq(
        &a.argsort_with(0, SortOpts::new().descending(true))?
            .to_vec()?,
        &[1, 4, 7, 0, 3, 2, 6, 5],
        "descending order",
    )?;
    // NaNs come back canonical.
    assert_eq!(v[7].to_bits(), 0x7fc0_0000);
    Ok(())
}

fn sort_by_key_values(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    for (rows, n) in [(1usize, 1000usize), (4, 5000), (7, 33)] {
        let k = data::<i32>(&mut r, rows * n);
        let v: Vec<c64> = (0..rows * n)
            .map(|i| c64::new(i as f64, -(i as f64)))
            .collect();
        let ka = Array::from_slice_on(d, &k, &[rows, n])?;
        let va = Array::from_slice_on(d, &v, &[rows, n])?;
        for desc in [false, true] {
            let (sk, sv) = sort_by_key_with(&ka, &va, -1, SortOpts::new().descending(desc))?;
            let (sk, sv) = (sk.to_vec()?, sv.to_vec()?);
            for row in 0..rows {
                let lk = &k[row * n..(row + 1) * n];
                for (pos, &src) in ref_perm(lk, desc).iter().enumerate() {
                    assert_eq!(sk[row * n + pos], lk[src]);
                    assert_eq!(sv[row * n + pos], v[row * n + src], "value {row},{pos}");
                }
            }
        }
    }
    let ka = Array::from_slice_on(d, &[1i32, 2], &[2])?;
    let va = Array::from_slice_on(d, &[1.0f32, 2.0, 3.0], &[3])?;
    let e = sort_by_key(&ka, &va, 0).unwrap_err().to_string();
    assert!(e.contains("[2]") && e.contains("[3]"), "{e}");
    Ok(())
}

fn topk_kth<T: V>(d: Device, r: &mut Rng) -> TestResult {
    let sizes: &[usize] = if cuprite_testkit::under_sanitizer() {
        &[1, 33, 5000]
    } else {
        &[1, 33, 1025, 5000, 70_001]
    };
    for &n in sizes {
        let x = data::<T>(r, n);
        let a = Array::from_slice_on(d, &x, &[n])?;
        for largest in [true, false] {
            let p = ref_perm(&x, largest);
            for k in [1usize, 2, 64, 1000, 1025] {
                if k > n {
                    continue;
                }
                let (v, i) = a.topk_with(k, 0, TopkOpts::new().largest(largest))?;
                let w = format!("{} topk n={n} k={k} largest={largest}", T::DTYPE);
                check_eq(
                    &i.to_vec()?,
                    &p[..k].iter().map(|&j| j as i64).collect::<Vec<_>>(),
                    &w,
                )?;
                check_eq(
                    &bits(&v.to_vec()?),
                    &p[..k].iter().map(|&j| x[j].canon()).collect::<Vec<_>>(),
                    &w,
                )?;
            }
        }
        let p = ref_perm(&x, false);
        for k in [1, n.div_ceil(2), n] {
            let (v, i) = a.kthvalue(k, 0)?;
            assert_eq!(
                i.item()?,
                p[k - 1] as i64,
                "{} kthvalue n={n} k={k}",
                T::DTYPE
            );
            assert_eq!(v.item()?.canon(), x[p[k - 1]].canon());
        }
        let part = a.partition(n / 2, 0)?.to_vec()?;
        assert_eq!(part[n / 2].canon(), x[p[n / 2]].canon());
    }
    // Along a middle axis, many rows.
    let x = data::<T>(r, 6 * 50 * 4);
    let a = Array::from_slice_on(d, &x, &[6, 50, 4])?;
    let (v, i) = a.topk(3, 1)?;
    assert_eq!(v.shape(), [6, 3, 4]);
    let (v, i) = (v.to_vec()?, i.to_vec()?);
    for o in 0..6 {
        for j in 0..4 {
            let line: Vec<T> = (0..50).map(|q| x[(o * 50 + q) * 4 + j]).collect();
            let p = ref_perm(&line, true);
            for q in 0..3 {
                assert_eq!(i[(o * 3 + q) * 4 + j], p[q] as i64);
                assert_eq!(v[(o * 3 + q) * 4 + j].canon(), line[p[q]].canon());
            }
        }
    }
    Ok(())
}

fn topk_select(d: Device) -> TestResult {
    every_dtype(d, |d, r, t| dispatch!(d, r, t, topk_kth))
}

/// NumPy's quantile of sorted `s` (f64 arithmetic as documented).
fn ref_quantile(s: &[f64], q: f64, m: QuantileMethod) -> f64 {
    let n = s.len();
    if s.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let g = h - h.floor();
    let lerp = |a: f64, b: f64, t: f64| {
        let d = b - a;
        if t >= 0.5 {
            b - d * (1.0 - t)
        } else {
            a + d * t
        }
    };
    match m {
        QuantileMethod::Lower => s[lo],
        QuantileMethod::Higher => s[(h.ceil() as usize).min(n - 1)],
        QuantileMethod::Nearest => s[(h.round_ties_even() as usize).min(n - 1)],
        QuantileMethod::Midpoint if g == 0.0 => s[lo],
        QuantileMethod::Midpoint => lerp(s[lo], s[hi], 0.5),
        QuantileMethod::Linear => lerp(s[lo], s[hi], g),
    }
}

fn ref_median(s: &[f64]) -> f64 {
    let n = s.len();
    if s.iter().any(|v| v.is_nan()) {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) * 0.5
    }
}

fn same_f(got: f64, want: f64, tol: f64, what: &str) -> TestResult {
    let ok = (got.is_nan() && want.is_nan())
        || got == want
        || (got - want).abs() <= tol * want.abs().max(1.0);
    if !ok {
        return Err(format!("{what}: {got}, expected {want}").into());
    }
    Ok(())
}

fn quantiles<T: V>(d: Device, r: &mut Rng) -> TestResult
where
    T::Mean: V,
{
    let tol = if T::DTYPE.size() == 2 && T::DTYPE.is_float() {
        1e-2
    } else {
        0.0
    };
    let methods = [
        QuantileMethod::Linear,
        QuantileMethod::Lower,
        QuantileMethod::Higher,
        QuantileMethod::Nearest,
        QuantileMethod::Midpoint,
    ];
    let sizes: &[usize] = if cuprite_testkit::under_sanitizer() {
        &[1, 2, 33, 5000]
    } else {
        &[1, 2, 33, 1024, 70_000, 70_001]
    };
    for &n in sizes {
        let mut x = data::<T>(r, n);
        // Mostly without NaN, so that values are compared.
        if n > 2 {
            x.retain(|v| !v.is_nan());
        }
        let n = x.len();
        let a = Array::from_slice_on(d, &x, &[n])?;
        let mut s: Vec<f64> = x.iter().map(|v| v.f()).collect();
        s.sort_by(f64::total_cmp);
        let w = format!("{} n={n}", T::DTYPE);
        let want = |v: f64| <T::Mean as V>::round_f(v);
        same_f(
            a.median()?.item()?.f(),
            want(ref_median(&s)),
            tol,
            &format!("{w} median"),
        )?;
        for q in [0.0, 0.1, 0.25, 0.5, 0.8, 1.0] {
            for m in methods {
                let got = a
                    .quantile_with(q, QuantileOpts::new().method(m))?
                    .item()?
                    .f();
                same_f(
                    got,
                    want(ref_quantile(&s, q, m)),
                    tol,
                    &format!("{w} q={q} {m:?}"),
                )?;
            }
        }
    }
    // Along a middle axis, without NaN (duplicates for the mode).
    let mut x = data::<T>(r, 4 * 9 * 3);
    x.retain(|v| !v.is_nan());
    x.truncate(4 * 9 * 3 - 12);
    let x: Vec<T> = x.iter().cycle().take(4 * 9 * 3).copied().collect();
    let a = Array::from_slice_on(d, &x, &[4, 9, 3])?;
    let m = a.median_with(AxisOpts::new().axis(1))?;
    assert_eq!(m.shape(), [4, 3]);
    let m = m.to_vec()?;
    let (v, c) = a.mode_with(AxisOpts::new().axis(-2))?;
    let (v, c) = (v.to_vec()?, c.to_vec()?);
    for o in 0..4 {
        for j in 0..3 {
            let line: Vec<T> = (0..9).map(|q| x[(o * 9 + q) * 3 + j]).collect();
            let mut s: Vec<f64> = line.iter().map(|v| v.f()).collect();
            s.sort_by(f64::total_cmp);
            same_f(
                m[o * 3 + j].f(),
                <T::Mean as V>::round_f(ref_median(&s)),
                tol,
                "median axis 1",
            )?;
            // Mode: the smallest of the most frequent.
            let p = ref_perm(&line, false);
            let (mut best, mut bc, mut i) = (0usize, 0usize, 0usize);
            while i < 9 {
                let mut k = i + 1;
                while k < 9 && T::same(line[p[k]], line[p[i]]) {
                    k += 1;
                }
                if k - i > bc {
                    bc = k - i;
                    best = i;
                }
                i = k;
            }
            assert_eq!(c[o * 3 + j], bc as i64);
            assert!(T::same(v[o * 3 + j], line[p[best]]), "mode value");
        }
    }
    if T::DTYPE.is_float() {
        let mut y = x.clone();
        y[5] = T::gen_nan();
        let a = Array::from_slice_on(d, &y, &[y.len()])?;
        assert!(a.median()?.item()?.is_nan(), "median with a NaN");
    }
    Ok(())
}

trait GenNan: Sized {
    fn gen_nan() -> Self;
}
impl<T: V> GenNan for T {
    fn gen_nan() -> Self {
        let mut r = Rng::seeded(0);
        loop {
            let v = T::sample(&mut r);
            if v.is_nan() {
                return v;
            }
        }
    }
}

fn quantile_all(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    quantiles::<i32>(d, &mut r)?;
    quantiles::<u8>(d, &mut r)?;
    quantiles::<f16>(d, &mut r)?;
    quantiles::<f64>(d, &mut r)?;
    if cuprite_testkit::under_sanitizer() {
        // Every kernel instrumented: one dtype per key width.
        return Ok(());
    }
    quantiles::<i64>(d, &mut r)?;
    quantiles::<bf16>(d, &mut r)?;
    quantiles::<f32>(d, &mut r)?;
    Ok(())
}

fn ref_unique<T: V>(x: &[T]) -> (Vec<T>, Vec<i64>, Vec<i64>, Vec<i64>) {
    let p = ref_perm(x, false);
    let (mut v, mut f, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let mut inv = vec![0i64; x.len()];
    for (i, &src) in p.iter().enumerate() {
        if i == 0 || !T::same(x[p[i - 1]], x[src]) {
            v.push(x[src]);
            f.push(src as i64);
            c.push(0);
        }
        *c.last_mut().expect("a run") += 1;
        // The first occurrence: the least index of the run (±0 and NaN payloads are one value).
        let first = f.last_mut().expect("a run");
        *first = (*first).min(src as i64);
        inv[src] = v.len() as i64 - 1;
    }
    (v, f, c, inv)
}

/// The set operations on unique `ux` and `uy`: runs of the sorted concatenation (two
/// elements: in both, first of them kept; one element from `ux`: only in `ux`).
fn ref_sets<T: V>(ux: &[T], uy: &[T]) -> (Vec<u64>, Vec<u64>) {
    let mut all = ux.to_vec();
    all.extend_from_slice(uy);
    let p = ref_perm(&all, false);
    let (mut inter, mut diff) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < p.len() {
        if i + 1 < p.len() && T::same(all[p[i]], all[p[i + 1]]) {
            inter.push(all[p[i]].canon());
            i += 2;
        } else {
            if p[i] < ux.len() {
                diff.push(all[p[i]].canon());
            }
            i += 1;
        }
    }
    (inter, diff)
}

fn uniques<T: V>(d: Device, r: &mut Rng) -> TestResult {
    let sizes: &[usize] = if cuprite_testkit::under_sanitizer() {
        &[0, 1, 33, 4097]
    } else {
        &[0, 1, 33, 4097, 70_000]
    };
    for &n in sizes {
        let x = data::<T>(r, n);
        let a = Array::from_slice_on(d, &x, &[n])?;
        let u = a.unique()?;
        let (v, f, c, inv) = ref_unique(&x);
        let w = format!("{} unique n={n}", T::DTYPE);
        check_eq(&bits(&u.values.to_vec()?), &bits(&v), &w)?;
        check_eq(&u.first.to_vec()?, &f, &w)?;
        check_eq(&u.counts.to_vec()?, &c, &w)?;
        check_eq(&u.inverse.to_vec()?, &inv, &w)?;
        // The values alone (a keys-only sort), of a 2-D view of the same elements.
        let rows = if n % 3 == 0 { 3 } else { 1 };
        let a2 = Array::from_slice_on(d, &x, &[rows, n / rows])?;
        check_eq(
            &bits(&a2.unique_values()?.to_vec()?),
            &bits(&v),
            &format!("{w} values only"),
        )?;
        let y = data::<T>(r, n / 2 + 3);
        let b = Array::from_slice_on(d, &y, &[y.len()])?;
        let uy = ref_unique(&y).0;
        let mut both: Vec<T> = x.clone();
        both.extend_from_slice(&y);
        let union = bits(&ref_unique(&both).0);
        check_eq(
            &bits(&union1d(&a, &b)?.to_vec()?),
            &union,
            &format!("{w} union"),
        )?;
        let (inter, diff) = ref_sets(&v, &uy);
        check_eq(
            &bits(&intersect1d(&a, &b)?.to_vec()?),
            &inter,
            &format!("{w} intersect"),
        )?;
        check_eq(
            &bits(&setdiff1d(&a, &b)?.to_vec()?),
            &diff,
            &format!("{w} setdiff"),
        )?;
    }
    Ok(())
}

fn unique_all(d: Device) -> TestResult {
    every_dtype(d, |d, r, t| dispatch!(d, r, t, uniques))
}

/// Millions of elements: several tiles and passes, selection of long rows.
fn large(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    // Under a sanitizer: still 74 tiles and every pass.
    let n = if cuprite_testkit::under_sanitizer() {
        300_017
    } else {
        3_000_017
    };
    let x: Vec<f32> = (0..n)
        .map(|_| (r.next_u64() % 100_000) as f32 * 0.5 - 1000.0)
        .collect();
    let a = Array::from_slice_on(d, &x, &[n])?;
    let p = ref_perm(&x, false);
    let (v, i) = a.sort_with_indices(0)?;
    check_eq(
        &i.to_vec()?,
        &p.iter().map(|&j| j as i64).collect::<Vec<_>>(),
        "large f32 argsort",
    )?;
    check_eq(
        &v.to_vec()?,
        &p.iter().map(|&j| x[j]).collect::<Vec<_>>(),
        "large f32 sort",
    )?;
    // Descending values are the ascending ones reversed (the indices differ: stable).
    let mut w: Vec<f32> = p.iter().map(|&j| x[j]).collect();
    w.reverse();
    check_eq(
        &a.sort_with(0, SortOpts::new().descending(true))?.to_vec()?,
        &w,
        "large f32 desc",
    )?;
    let (tv, ti) = a.topk(64, 0)?;
    let pd = ref_perm(&x, true);
    check_eq(
        &ti.to_vec()?,
        &pd[..64].iter().map(|&j| j as i64).collect::<Vec<_>>(),
        "large topk",
    )?;
    check_eq(
        &tv.to_vec()?,
        &pd[..64].iter().map(|&j| x[j]).collect::<Vec<_>>(),
        "large topk values",
    )?;
    let s: Vec<f64> = p.iter().map(|&j| x[j] as f64).collect();
    assert_eq!(a.median()?.item()? as f64, ref_median(&s) as f32 as f64);
    let y: Vec<i64> = (0..(1usize << 21) + 1)
        .map(|_| r.next_u64() as i64 >> (r.next_u64() % 64))
        .collect();
    let b = Array::from_slice_on(d, &y, &[y.len()])?;
    let p = ref_perm(&y, false);
    check_eq(
        &b.argsort(0)?.to_vec()?,
        &p.iter().map(|&j| j as i64).collect::<Vec<_>>(),
        "large i64 argsort",
    )?;
    let u = b.unique()?;
    check_eq(
        &u.counts.to_vec()?,
        &ref_unique(&y).2,
        "large unique counts",
    )?;
    check_eq(
        &b.unique_values()?.to_vec()?,
        &ref_unique(&y).0,
        "large unique values only",
    )?;
    // Many long rows (the device-wide sort with row passes).
    let z: Vec<u16> = (0..300 * 5000)
        .map(|_| (r.next_u64() % 700) as u16)
        .collect();
    let c = Array::from_slice_on(d, &z, &[300, 5000])?;
    check_sort(&c, &z, &[300, 5000], 1, "rows 300x5000")?;
    Ok(())
}

/// The device-wide sort's pass plans on inputs of several tiles: skipped passes (high bytes
/// all equal, every key equal), a single pass, key passes then row passes, and every middle
/// pass of 64-bit keys; both directions with many ties (checked by [`check_sort`]).
fn sort_passes(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    // One executed pass (bytes 0, 1 and 3 of every key equal): read input, write outputs.
    let x: Vec<f32> = (0..20_000)
        .map(|_| 1.0 + (r.next_u64() % 64) as f32 / 64.0)
        .collect();
    let a = Array::from_slice_on(d, &x, &[x.len()])?;
    check_sort(&a, &x, &[x.len()], 0, "one pass")?;
    // Every key equal: no pass at all, one row and several.
    let x = vec![7i32; 30_000];
    for shape in [vec![30_000usize], vec![3, 10_000]] {
        let a = Array::from_slice_on(d, &x, &shape)?;
        check_sort(&a, &x, &shape, shape.len() - 1, "all equal")?;
    }
    // Two key passes (high bytes zero), then a row pass.
    let x: Vec<u32> = (0..30_000)
        .map(|_| (r.next_u64() % 65_536) as u32)
        .collect();
    for shape in [vec![30_000usize], vec![5, 6_000]] {
        let a = Array::from_slice_on(d, &x, &shape)?;
        check_sort(&a, &x, &shape, shape.len() - 1, "low bytes")?;
    }
    // Eight key passes and a row pass.
    let x: Vec<i64> = (0..6_000)
        .map(|_| r.next_u64() as i64 >> (r.next_u64() % 64))
        .collect();
    let a = Array::from_slice_on(d, &x, &[2, 3_000])?;
    check_sort(&a, &x, &[2, 3_000], 1, "i64 rows")?;
    // One key pass then row passes (2 row digits: 300 rows).
    let x: Vec<u8> = (0..300 * 4_500).map(|_| (r.next_u64() % 5) as u8).collect();
    let a = Array::from_slice_on(d, &x, &[300, 4_500])?;
    check_sort(&a, &x, &[300, 4_500], 1, "u8 rows")?;
    // Floats with NaN, -0.0 and few distinct values; rows of several tiles.
    let x = data::<f32>(&mut r, 3 * 9_000);
    let a = Array::from_slice_on(d, &x, &[3, 9_000])?;
    check_sort(&a, &x, &[3, 9_000], 1, "f32 rows")?;
    let x = data::<f64>(&mut r, 50_000);
    let a = Array::from_slice_on(d, &x, &[50_000])?;
    check_sort(&a, &x, &[50_000], 0, "f64")?;
    let x = data::<f16>(&mut r, 20_000);
    let a = Array::from_slice_on(d, &x, &[20_000])?;
    check_sort(&a, &x, &[20_000], 0, "f16")
}

fn bad_input(d: Device) -> TestResult {
    let a = Array::from_slice_on(d, &[3.0f32, 1.0, 2.0], &[3])?;
    let e = a.sort(1).unwrap_err().to_string();
    assert!(e.contains('1'), "{e}");
    let e = a.topk(4, 0).unwrap_err().to_string();
    assert!(e.contains('4') && e.contains('3'), "{e}");
    crate::common::assert_err(
        a.kthvalue(0, 0),
        "InvalidArgument",
        "k = 0 is outside 1..=3",
    );
    crate::common::assert_err(
        a.kthvalue(4, 0),
        "InvalidArgument",
        "k = 4 is outside 1..=3",
    );
    crate::common::assert_err(a.partition(3, 0), "InvalidArgument", "kth = 3 is outside");
    let e = a.quantile(1.5).unwrap_err().to_string();
    assert!(e.contains("1.5"), "{e}");
    crate::common::assert_err(
        a.quantile(-0.1),
        "InvalidArgument",
        "quantile -0.1 is outside",
    );
    crate::common::assert_err(
        a.quantile(f64::NAN),
        "InvalidArgument",
        "quantile NaN is outside",
    );
    crate::common::assert_err(
        a.percentile(101.0),
        "InvalidArgument",
        "percentile 101 is outside",
    );
    let z = Array::<f32>::from_slice_on(d, &[], &[0])?;
    // NumPy's median of nothing is NaN (with a warning), not an error.
    let m = z.median()?.to_vec()?;
    assert!(
        m.len() == 1 && m[0].is_nan(),
        "median of an empty axis: {m:?}, want [NaN]"
    );
    crate::common::assert_err(
        z.mode(),
        "InvalidArgument",
        "mode of an empty axis (shape [0])",
    );
    assert_eq!(z.sort(0)?.to_vec()?.len(), 0);
    assert_eq!(z.argsort(0)?.shape(), [0]);
    assert_eq!(z.unique()?.values.shape(), [0]);
    assert_eq!(z.topk(0, 0)?.0.shape(), [0]);
    let e2 = Array::<f32>::from_slice_on(d, &[], &[0, 4])?;
    assert_eq!(e2.sort(1)?.shape(), [0, 4]);
    let m0 = e2.median_with(AxisOpts::new().axis(0))?.to_vec()?;
    assert!(
        m0.len() == 4 && m0.iter().all(|x| x.is_nan()),
        "median along an empty axis: {m0:?}"
    );
    assert_eq!(e2.median_with(AxisOpts::new().axis(1))?.shape(), [0]);
    let c = Array::from_slice_on(d, &[c64::new(1.0, 0.0)], &[1])?;
    let e = c.sort(0).unwrap_err().to_string();
    assert!(e.contains("c64") || e.contains("complex"), "{e}");
    crate::common::assert_err(c.unique(), "InvalidArgument", "unique of c64");
    crate::common::assert_err(c.topk(1, 0), "InvalidArgument", "topk of c64");
    let s = Array::from_slice_on(d, &[5i32], &[])?;
    crate::common::assert_err(
        s.sort(0),
        "Axis",
        "axis 0 is out of range for a 0-dimensional array",
    );
    assert_eq!(s.median()?.item()?, 5.0);
    Ok(())
}

/// Every kernel of the family compiles with NVRTC (recorded while the CPU backend runs).
fn kernels_compile() -> TestResult {
    fn one<T: V>() -> TestResult {
        let a = Array::from_slice_on(Device::CPU, &[T::default(); 3], &[3])?;
        a.sort(0)?;
        Ok(())
    }
    tuning::compiler::start_recording();
    let res = (|| -> TestResult {
        one::<bool>()?;
        one::<u8>()?;
        one::<u16>()?;
        one::<u32>()?;
        one::<u64>()?;
        one::<i8>()?;
        one::<i16>()?;
        one::<i32>()?;
        one::<i64>()?;
        one::<f16>()?;
        one::<bf16>()?;
        one::<f32>()?;
        one::<f64>()
    })();
    let sources = tuning::compiler::take_recorded();
    res?;
    let mine: Vec<&String> = sources.iter().filter(|s| s.contains("rank_tile")).collect();
    assert!(
        mine.len() >= 150,
        "only {} sort kernels recorded",
        mine.len()
    );
    // Every pass variant of the device-wide sort, for every key width and dtype: the first
    // pass (`f`, reads the input), middle ones, the last (`l`, writes the outputs), key (`k`)
    // and row (`r`) passes; the histogram and the no-pass copy.
    let dtypes = [
        "bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
    ];
    let mut names: Vec<String> = Vec::new();
    for dt in dtypes {
        for tag in ["fk", "fkl", "k", "kl", "r", "rl"] {
            names.push(format!("cuprite_sort_onesweep_{dt}_{tag}"));
        }
        for k in ["hist", "copy", "rows"] {
            names.push(format!("cuprite_sort_{k}_{dt}"));
        }
    }
    for name in &names {
        let call = format!(" {name}(");
        assert!(
            mine.iter().any(|s| s.contains(&call)),
            "no recorded source defines {name}"
        );
    }
    for opts in [
        tuning::compiler::compile_options(90, true),
        tuning::compiler::quick_compile_options(90),
    ] {
        for s in &mine {
            if let Err(e) = cuprite_driver::nvrtc::compile(s.as_str(), &opts) {
                return Err(format!("kernel failed to compile: {e}\n{s}").into());
            }
        }
    }
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("sort_dtypes", sort_dtypes),
    ("sort_axes", sort_axes),
    ("nan_and_zero_order", nan_and_zero_order),
    ("sort_by_key_values", sort_by_key_values),
    ("topk_select", topk_select),
    ("quantile_all", quantile_all),
    ("unique_all", unique_all),
    ("sort_passes", sort_passes),
    ("bad_input", bad_input),
];

/// The eager operations reach their host twin through the backend's dispatch
/// (`backend::eager`): the CPU backend and the dry run (which records every CUDA source a GPU
/// would build, then runs the host twin) give the same results, equal to a reference computed
/// here with the standard library; the dry run records the sort kernels a GPU would run.
fn eager_dispatch_cpu_and_dry_run() -> TestResult {
    type Got = (Vec<i64>, Vec<i64>, i64, Vec<i64>, f64, (i64, i64), Vec<f64>);
    let mut rng = Rng::fresh();
    let n = 257;
    let mut data: Vec<i64> = (0..n - 50).map(|_| (rng.next_u64() % 100) as i64).collect();
    data.extend(std::iter::repeat_n(7, 50)); // a mode no other value ties
    let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.25, 0.5, 0.25, 2.0];
    let b = [1.0, -2.0, 0.5];
    let run = || -> cuprite_array::Result<Got> {
        let x = Array::from_slice_on(Device::CPU, &data, &[n])?;
        let (top, _) = x.topk(5, 0)?;
        let (kth, _) = x.kthvalue(100, 0)?;
        let (mv, mc) = x.mode()?;
        let am = Array::from_slice_on(Device::CPU, &a, &[3, 3])?;
        let bv = Array::from_slice_on(Device::CPU, &b, &[3])?;
        Ok((
            x.sort(0)?.to_vec()?,
            top.to_vec()?,
            kth.item()?,
            x.unique_values()?.to_vec()?,
            x.median()?.item()?,
            (mv.item()?, mc.item()?),
            cuprite_array::linalg::solve(&am, &bv)?.to_vec()?,
        ))
    };
    let plain = run()?;
    tuning::compiler::start_recording();
    let dry = run();
    let sources = tuning::compiler::take_recorded();
    let dry = dry?;
    assert!(
        sources.iter().any(|s| s.contains("rank_tile")),
        "the dry run recorded no sort kernel"
    );
    let mut sorted = data.clone();
    sorted.sort_unstable();
    let mut uniq = sorted.clone();
    uniq.dedup();
    let top: Vec<i64> = sorted.iter().rev().take(5).copied().collect();
    for (what, got) in [("cpu", &plain), ("dry run", &dry)] {
        assert_eq!(got.0, sorted, "{what}: sort");
        assert_eq!(got.1, top, "{what}: topk");
        assert_eq!(got.2, sorted[99], "{what}: kthvalue");
        assert_eq!(got.3, uniq, "{what}: unique");
        assert_eq!(got.4, sorted[n / 2] as f64, "{what}: median");
        let count = data.iter().filter(|&&v| v == 7).count() as i64;
        assert_eq!(got.5, (7, count), "{what}: mode");
        for (i, row) in a.chunks(3).enumerate() {
            let ax: f64 = row.iter().zip(&got.6).map(|(p, q)| p * q).sum();
            assert!(
                (ax - b[i]).abs() < 1e-12,
                "{what}: solve row {i}: {ax} != {}",
                b[i]
            );
        }
    }
    assert_eq!(plain.6, dry.6, "solve: the CPU and the dry run differ");
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::sort::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::sort::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::gpu("cuda::sort::large", || large(Device::cuda(0))));
    v.push(Test::nvrtc("sort::kernels_compile", kernels_compile));
    v.push(Test::cpu(
        "sort::eager_dispatch_cpu_and_dry_run",
        eager_dispatch_cpu_and_dry_run,
    ));
    v
}
