//! Test bodies run on every backend: each takes the device to run on and checks results
//! against a scalar Rust reference on fresh random data.

use cuprite_array::ops::{ReduceOpts, VarOpts};
use cuprite_array::{Array, Device, Error, c32, s};
use cuprite_testkit::{Rng, Test, TestResult};

pub type Body = fn(Device) -> TestResult;

pub fn close(got: &[f64], want: &[f64], rtol: f64, atol: f64, what: &str) -> TestResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= atol + rtol * w.abs();
        if !ok {
            return Err(format!("{what}: element {i}: got {g}, expected {w}").into());
        }
    }
    Ok(())
}

/// The variant name of an error (of the array library: `Shape`, `Axis`, `Index`,
/// `InvalidArgument`, `Cuda`...; of the driver: `InvalidArgument`, `Driver`...).
pub fn err_kind(e: &impl std::fmt::Debug) -> String {
    let d = format!("{e:?}");
    d.split(['(', ':', ' ', '{'])
        .next()
        .unwrap_or("")
        .to_string()
}

/// `r` failed with an error of variant `kind` whose message contains `needle` (the offending
/// value or name, so that the test proves the call failed for the reason it is about).
#[track_caller]
pub fn assert_err<T: std::fmt::Debug, E: std::fmt::Debug + std::fmt::Display>(
    r: Result<T, E>,
    kind: &str,
    needle: &str,
) {
    match r {
        Ok(v) => panic!("expected an Err of kind {kind} mentioning {needle:?}, got Ok({v:?})"),
        Err(e) => {
            let (k, m) = (err_kind(&e), e.to_string());
            assert!(
                k == kind && m.contains(needle),
                "expected an Err of kind {kind} mentioning {needle:?}, got {k}: {m}"
            );
        }
    }
}

/// The values of line `name` of a reference file of `name kind values...` lines (the format
/// of `data/scipy-*.txt`; complex values as their parts in turn).
pub fn reference_in(texts: &[&str], name: &str) -> Vec<f64> {
    for line in texts.iter().flat_map(|t| t.lines()) {
        let mut words = line.split_whitespace();
        if words.next() == Some(name) {
            let _kind = words.next();
            return words
                .map(|w| w.parse::<f64>().unwrap_or(f64::NAN))
                .collect();
        }
    }
    panic!("no reference line {name}");
}

/// `f(i, j)` over an `r x c` grid, row-major.
pub fn grid(r: usize, c: usize, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    (0..r)
        .flat_map(|i| (0..c).map(move |j| (i as f64, j as f64)))
        .map(|(i, j)| f(i, j))
        .collect()
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

/// Marker for panic messages a test provokes on a thread it does not run on (e.g. a stream's
/// host function): [`quietly`]'s hook keeps such panics silent wherever they happen.
#[allow(dead_code)]
pub const EXPECTED_PANIC: &str = "(a panic this test expects)";

/// Runs `f`, keeping the panic messages (and backtraces) of panics it provokes on purpose off
/// stderr, so that a passing `cargo test` prints none: panics on this thread while `f` runs, and
/// panics anywhere whose message contains [`EXPECTED_PANIC`]. Every other panic still goes to
/// the hook that was installed before (a thread-local flag, not a swap of the process-wide hook,
/// so tests running in parallel keep their messages). The flag is restored when `f` returns
/// or unwinds.
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    use std::cell::Cell;
    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let msg = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("");
            if !QUIET.with(Cell::get) && !msg.contains(EXPECTED_PANIC) {
                previous(info);
            }
        }));
    });
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _restore = Restore(QUIET.with(|q| q.replace(true)));
    f()
}

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn unary_catalogue(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 1000;
        let x = rng.vec_f32(n, 0.05, 0.95);
        let a = Array::from_slice(&x, &[n])?;
        type F = fn(f32) -> f32;
        let cases: Vec<(&str, Array<f32>, F)> = vec![
            ("sqrt", a.sqrt(), f32::sqrt),
            ("rsqrt", a.rsqrt(), |x| 1.0 / x.sqrt()),
            ("cbrt", a.cbrt(), f32::cbrt),
            ("exp", a.exp(), f32::exp),
            ("exp2", a.exp2(), f32::exp2),
            ("expm1", a.expm1(), f32::exp_m1),
            ("log", a.log(), f32::ln),
            ("log2", a.log2(), f32::log2),
            ("log10", a.log10(), f32::log10),
            ("log1p", a.log1p(), f32::ln_1p),
            ("sin", a.sin(), f32::sin),
            ("cos", a.cos(), f32::cos),
            ("tan", a.tan(), f32::tan),
            ("asin", a.asin(), f32::asin),
            ("acos", a.acos(), f32::acos),
            ("atan", a.atan(), f32::atan),
            ("sinh", a.sinh(), f32::sinh),
            ("cosh", a.cosh(), f32::cosh),
            ("tanh", a.tanh(), f32::tanh),
            ("asinh", a.asinh(), f32::asinh),
            ("acosh", (&a + 1.0).acosh(), |x| (x + 1.0).acosh()),
            ("atanh", a.atanh(), f32::atanh),
            ("floor", (&a * 10.0).floor(), |x| (x * 10.0).floor()),
            ("ceil", (&a * 10.0).ceil(), |x| (x * 10.0).ceil()),
            ("round", (&a * 10.0).round(), |x| (x * 10.0).round()),
            ("trunc", (-(&a * 10.0)).trunc(), |x| (-(x * 10.0)).trunc()),
            ("sigmoid", a.sigmoid(), |x| 1.0 / (1.0 + (-x).exp())),
            ("abs", (-&a).abs(), |x| x.abs()),
            ("sign", (&a - 0.5).sign(), |x| (x - 0.5).signum()),
            ("neg", -&a, |x| -x),
        ];
        for (name, arr, f) in cases {
            let got = f64s(&arr.to_vec()?);
            let want: Vec<f64> = x.iter().map(|&v| f(v) as f64).collect();
            close(&got, &want, 2e-6, 1e-6, name)?;
        }
        // Special functions against f64 values (the reference is computed independently).
        let erf = f64s(&a.erf().to_vec()?);
        // erf is odd and erf(x) + erfc(x) = 1.
        let erfc = f64s(&a.erfc().to_vec()?);
        let sum: Vec<f64> = erf.iter().zip(&erfc).map(|(a, b)| a + b).collect();
        close(&sum, &vec![1.0; n], 1e-6, 1e-6, "erf + erfc")?;
        let erf_neg = f64s(&(-&a).erf().to_vec()?);
        let neg: Vec<f64> = erf.iter().map(|v| -v).collect();
        close(&erf_neg, &neg, 1e-6, 1e-7, "erf odd")?;
        // Γ(x+1) = xΓ(x) and lgamma = ln Γ.
        let g = f64s(&a.tgamma().to_vec()?);
        let g1 = f64s(&(&a + 1.0).tgamma().to_vec()?);
        let xg: Vec<f64> = x.iter().zip(&g).map(|(x, g)| *x as f64 * g).collect();
        close(&g1, &xg, 1e-5, 1e-6, "tgamma recurrence")?;
        let lg = f64s(&a.lgamma().to_vec()?);
        let lng: Vec<f64> = g.iter().map(|g| g.ln()).collect();
        close(&lg, &lng, 1e-5, 1e-5, "lgamma")?;
        Ok(())
    })
}

fn binary_and_broadcast(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (r, c) = (37, 53);
        let x = rng.vec_f32(r * c, -2.0, 2.0);
        let y = rng.vec_f32(c, 0.5, 3.0);
        let a = Array::from_slice(&x, &[r, c])?;
        let b = Array::from_slice(&y, &[c])?;
        let checks: Vec<(&str, Array<f32>, fn(f32, f32) -> f32)> = vec![
            ("add", &a + &b, |p, q| p + q),
            ("sub", &a - &b, |p, q| p - q),
            ("mul", &a * &b, |p, q| p * q),
            ("div", &a / &b, |p, q| p / q),
            // NumPy's remainder: the divisor's sign (C's fmod, then moved into it).
            ("rem", a.rem(&b), |p, q| {
                let m = p % q;
                if m != 0.0 && (m < 0.0) != (q < 0.0) {
                    m + q
                } else {
                    m
                }
            }),
            ("fmod", a.fmod(&b), |p, q| p % q),
            ("pow", a.abs().pow(&b), |p, q| p.abs().powf(q)),
            ("min", a.minimum(&b), f32::min),
            ("max", a.maximum(&b), f32::max),
            ("atan2", a.atan2(&b), f32::atan2),
            ("hypot", a.hypot(&b), f32::hypot),
            ("scalar left", 2.0 - &a * 3.0, |p, _| 2.0 - p * 3.0),
        ];
        for (name, arr, f) in checks {
            assert_eq!(arr.shape(), &[r, c]);
            let got = f64s(&arr.to_vec()?);
            let want: Vec<f64> = (0..r * c).map(|i| f(x[i], y[i % c]) as f64).collect();
            close(&got, &want, 2e-6, 1e-6, name)?;
        }
        // Comparisons.
        let lt = a.less(&b).to_vec()?;
        let want: Vec<bool> = (0..r * c).map(|i| x[i] < y[i % c]).collect();
        assert_eq!(lt, want);
        let ge = a.greater_equal(0.0).cast::<i32>().to_vec()?;
        assert_eq!(ge, x.iter().map(|&v| (v >= 0.0) as i32).collect::<Vec<_>>());
        // Column broadcasting [r,1] x [1,c] -> [r,c].
        let col = Array::from_slice(&x[..r], &[r, 1])?;
        let row = b.reshape(&[1, c])?;
        let outer = (&col * &row).to_vec()?;
        for i in 0..r {
            for j in 0..c {
                assert_eq!(outer[i * c + j], x[i] * y[j]);
            }
        }
        // clamp, select.
        let cl = a.clamp(-1.0f32, 1.0f32).to_vec()?;
        assert_eq!(cl, x.iter().map(|v| v.clamp(-1.0, 1.0)).collect::<Vec<_>>());
        let sel = Array::select(&a.greater(0.0), &a, 0.0)?.to_vec()?;
        assert_eq!(
            sel,
            x.iter()
                .map(|&v| if v > 0.0 { v } else { 0.0 })
                .collect::<Vec<_>>()
        );
        Ok(())
    })
}

fn integer_semantics(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 500;
        let xs: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32 >> 16).collect();
        // Divisors include zeros and -1.
        let ys: Vec<i32> = (0..n)
            .map(|i| match i % 5 {
                0 => 0,
                1 => -1,
                _ => (rng.next_u64() % 200) as i32 - 100,
            })
            .collect();
        let a = Array::from_slice(&xs, &[n])?;
        let b = Array::from_slice(&ys, &[n])?;
        let div = (&a / &b).to_vec()?;
        let rem = (&a % &b).to_vec()?;
        let fmod = a.fmod(&b).to_vec()?;
        for i in 0..n {
            let (x, y) = (xs[i], ys[i]);
            // NumPy: `//` floors, `%` has the divisor's sign (exact in f64 at these sizes);
            // `fmod` has the dividend's sign; by zero all give 0.
            let (q, r, f) = if y == 0 {
                (0, 0, 0)
            } else {
                let q = (x as f64 / y as f64).floor() as i64;
                (
                    q as i32,
                    (x as i64 - q * y as i64) as i32,
                    x.wrapping_rem(y),
                )
            };
            assert_eq!((div[i], rem[i], fmod[i]), (q, r, f), "{x} / {y}");
        }
        // MIN / -1 wraps, x / 0 == 0.
        let m = Array::from_slice(&[i32::MIN, 7, -7], &[3])?;
        assert_eq!((&m / -1).to_vec()?, vec![i32::MIN, -7, 7]);
        assert_eq!((&m / 0).to_vec()?, vec![0, 0, 0]);
        // Wrapping arithmetic on narrow types.
        let u = Array::from_slice(&[250u8, 3, 128], &[3])?;
        assert_eq!((&u + 10u8).to_vec()?, vec![4, 13, 138]);
        assert_eq!((&u * 2u8).to_vec()?, vec![244, 6, 0]);
        let i8s = Array::from_slice(&[-128i8, 127, 5], &[3])?;
        assert_eq!((-&i8s).to_vec()?, vec![-128, -127, -5]);
        assert_eq!(i8s.abs().to_vec()?, vec![-128, 127, 5]);
        // Bitwise and shifts (amount modulo the width).
        let p = Array::from_slice(&[0b1100u32, 0xFFFF_0000, 1], &[3])?;
        let q = Array::from_slice(&[0b1010u32, 0x0F0F_0F0F, 33], &[3])?;
        assert_eq!((&p & &q).to_vec()?, vec![0b1000, 0x0F0F_0000, 1]);
        assert_eq!((&p | &q).to_vec()?, vec![0b1110, 0xFFFF_0F0F, 33]);
        assert_eq!((&p ^ &q).to_vec()?, vec![0b0110, 0xF0F0_0F0F, 32]);
        assert_eq!((!&p).to_vec()?, vec![!0b1100u32, 0x0000_FFFF, !1]);
        assert_eq!(
            (&p << &q).to_vec()?,
            vec![0b1100 << 10, 0xFFFF_0000u32 << 15, 2]
        );
        let sh = Array::from_slice(&[-16i16, 16], &[2])?;
        assert_eq!((&sh >> 2i16).to_vec()?, vec![-4, 4]);
        // pow.
        let base = Array::from_slice(&[2i64, -1, 3, 1, 5], &[5])?;
        let ex = Array::from_slice(&[10i64, -3, 3, -7, -1], &[5])?;
        assert_eq!(base.pow(&ex).to_vec()?, vec![1024, -1, 27, 1, 0]);
        // Logical ops on bool.
        let t = Array::from_slice(&[true, true, false, false], &[4])?;
        let f = Array::from_slice(&[true, false, true, false], &[4])?;
        assert_eq!((&t & &f).to_vec()?, vec![true, false, false, false]);
        assert_eq!((&t | &f).to_vec()?, vec![true, true, true, false]);
        assert_eq!((&t ^ &f).to_vec()?, vec![false, true, true, false]);
        assert_eq!((!&t).to_vec()?, vec![false, false, true, true]);
        Ok(())
    })
}

fn ieee_specials(d: Device) -> TestResult {
    on(d, || {
        let v = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.0];
        let a = Array::from_slice(&v, &[6])?;
        let sum = (&a + 1.0).to_vec()?;
        assert!(sum[0].is_nan() && sum[1] == f64::INFINITY && sum[2] == f64::NEG_INFINITY);
        let div = (1.0 / &a).to_vec()?;
        assert_eq!(&div[3..], &[f64::INFINITY, f64::NEG_INFINITY, 1.0]);
        assert!(div[0].is_nan());
        assert_eq!(
            a.isnan().to_vec()?,
            vec![true, false, false, false, false, false]
        );
        assert_eq!(
            a.isinf().to_vec()?,
            vec![false, true, true, false, false, false]
        );
        assert_eq!(
            a.isfinite().to_vec()?,
            vec![false, false, false, true, true, true]
        );
        let mx = a.maximum(0.5).to_vec()?;
        assert!(mx[0].is_nan(), "max with NaN is NaN");
        assert_eq!(&mx[1..], &[f64::INFINITY, 0.5, 0.5, 0.5, 1.0]);
        assert!(a.max()?.item()?.is_nan());
        assert!(a.nansum()?.item()?.is_nan(), "inf + -inf is NaN");
        let finite = Array::from_slice(&[f64::NAN, 2.0, f64::NAN, 3.0], &[4])?;
        assert_eq!(finite.nansum()?.item()?, 5.0);
        assert_eq!(finite.argmax()?.item()?, 0, "argmax picks the first NaN");
        // Casts: NaN -> 0, saturation.
        let c = Array::from_slice(&[f32::NAN, 1e10, -1e10, 3.7, -3.7], &[5])?;
        assert_eq!(
            c.cast::<i32>().to_vec()?,
            vec![0, i32::MAX, i32::MIN, 3, -3]
        );
        assert_eq!(c.cast::<u8>().to_vec()?, vec![0, 255, 0, 3, 0]);
        assert_eq!(
            c.cast::<bool>().to_vec()?,
            vec![true, true, true, true, true]
        );
        Ok(())
    })
}

fn reductions(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (p, q, r) = (7, 129, 33);
        let x = rng.vec_f32(p * q * r, -1.0, 1.0);
        let a = Array::from_slice(&x, &[p, q, r])?;
        let at = |i: usize, j: usize, k: usize| x[(i * q + j) * r + k] as f64;
        // Sum over everything, fused with a producer.
        let s = (&a * 2.0 + 1.0).sum()?.item()? as f64;
        let want: f64 = x.iter().map(|&v| v as f64 * 2.0 + 1.0).sum();
        close(&[s], &[want], 1e-4, 1e-3, "fused sum")?;
        // Along axis 1 with keepdims.
        let s1 = a.sum_axes_with(&[1], ReduceOpts::new().keepdims(true))?;
        assert_eq!(s1.shape(), &[p, 1, r]);
        let mut want = vec![0.0; p * r];
        for i in 0..p {
            for k in 0..r {
                want[i * r + k] = (0..q).map(|j| at(i, j, k)).sum();
            }
        }
        close(&f64s(&s1.to_vec()?), &want, 1e-4, 1e-4, "sum axis 1")?;
        // Over axes (0, 2) without keepdims: shape [q].
        let m = a.max_axes(&[0, -1])?;
        assert_eq!(m.shape(), &[q]);
        let want: Vec<f64> = (0..q)
            .map(|j| {
                (0..p)
                    .flat_map(|i| (0..r).map(move |k| (i, k)))
                    .map(|(i, k)| at(i, j, k))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        close(&f64s(&m.to_vec()?), &want, 0.0, 0.0, "max axes")?;
        // min, prod, mean, var, std of a small matrix.
        let b = a.slice(&s![0, ..8, ..4])?.reshape(&[8, 4])?;
        let bv: Vec<f64> = (0..8)
            .flat_map(|j| (0..4).map(move |k| (j, k)))
            .map(|(j, k)| at(0, j, k))
            .collect();
        let mean: f64 = bv.iter().sum::<f64>() / 32.0;
        let var: f64 = bv.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 31.0;
        close(&[b.mean()?.item()? as f64], &[mean], 1e-5, 1e-6, "mean")?;
        close(
            &[b.var_with(VarOpts::new().ddof(1))?.item()? as f64],
            &[var],
            1e-4,
            1e-6,
            "var",
        )?;
        close(
            &[b.std_with(VarOpts::new().ddof(1))?.item()? as f64],
            &[var.sqrt()],
            1e-4,
            1e-6,
            "std",
        )?;
        close(
            &[b.min()?.item()? as f64],
            &[bv.iter().cloned().fold(f64::INFINITY, f64::min)],
            0.0,
            0.0,
            "min",
        )?;
        let pr = (&b * 0.5 + 1.0).prod()?.item()? as f64;
        let want: f64 = bv.iter().map(|v| (v * 0.5 + 1.0) as f32 as f64).product();
        close(&[pr], &[want], 1e-4, 1e-6, "prod")?;
        // argmax along axis, argmin overall.
        let am = a.argmax_axis(2)?.to_vec()?;
        for i in 0..p {
            for j in 0..q {
                let mut best = 0;
                for k in 1..r {
                    if at(i, j, k) > at(i, j, best) {
                        best = k;
                    }
                }
                assert_eq!(am[i * q + j], best as i64);
            }
        }
        let amin = a.argmin()?.item()? as usize;
        let wmin = (0..x.len()).fold(0, |b, i| if x[i] < x[b] { i } else { b });
        assert_eq!(amin, wmin);
        // any / all / count on integers and bools.
        let pos = a.greater(0.5);
        let cnt = pos.count()?.item()?;
        assert_eq!(cnt as usize, x.iter().filter(|&&v| v > 0.5).count());
        assert!(pos.any()?.item()?);
        assert!(!pos.all()?.item()?);
        let ints = Array::from_slice(&[3i32, -4, 5], &[3])?;
        assert_eq!(ints.sum()?.item()?, 4i64);
        assert_eq!(ints.prod()?.item()?, -60i64);
        assert_eq!(ints.mean()?.item()?, 4.0 / 3.0);
        Ok(())
    })
}

fn movement(d: Device) -> TestResult {
    on(d, || {
        let v: Vec<i32> = (0..24).collect();
        let a = Array::from_slice(&v, &[2, 3, 4])?;
        // Transpose then reshape (a copy, the strides do not allow a view).
        let t = a.permute(&[2, 0, 1])?;
        assert_eq!(t.shape(), &[4, 2, 3]);
        let tv = t.to_vec()?;
        for k in 0..4 {
            for i in 0..2 {
                for j in 0..3 {
                    assert_eq!(tv[(k * 2 + i) * 3 + j], v[(i * 3 + j) * 4 + k]);
                }
            }
        }
        assert_eq!(t.reshape(&[8, 3])?.to_vec()?, tv);
        // Slices with steps and negative steps, views of views, fused arithmetic on them.
        let sl = a.slice(&s![1, 2..0;-1, 1..;2])?;
        assert_eq!(sl.shape(), &[2, 2]);
        assert_eq!(sl.to_vec()?, vec![21, 23, 17, 19]);
        assert_eq!((&sl * 2).to_vec()?, vec![42, 46, 34, 38]);
        assert_eq!(
            a.flip(&[0, 2])?.slice(&s![0, 0])?.to_vec()?,
            vec![15, 14, 13, 12]
        );
        let e = a.slice(&s![.., 3..])?;
        assert!(e.is_empty() && e.shape() == [2, 0, 4]);
        // A start past the end is an empty range (NumPy); an index past the end is an Err.
        assert_eq!(a.slice(&s![.., 5..])?.shape(), &[2, 0, 4]);
        assert!(matches!(a.slice(&s![.., 3]), Err(Error::Index(_))));
        // Gather by index.
        let idx = Array::from_slice(&[3i64, 0, 3], &[3])?;
        let g = a.gather(2, &idx)?;
        assert_eq!(g.shape(), &[2, 3, 3]);
        assert_eq!(g.slice(&s![1, 1])?.to_vec()?, vec![19, 16, 19]);
        // Concat, tile, roll, pad.
        let m = Array::from_slice(&[1u16, 2, 3, 4], &[2, 2])?;
        let c = Array::concat(&[&m, &m.t()], 1)?;
        assert_eq!(c.to_vec()?, vec![1, 2, 1, 3, 3, 4, 2, 4]);
        assert_eq!(m.tile(&[2, 1])?.to_vec()?, vec![1, 2, 3, 4, 1, 2, 3, 4]);
        assert_eq!(m.tile(&[1, 2])?.to_vec()?, vec![1, 2, 1, 2, 3, 4, 3, 4]);
        let r = Array::from_slice(&[1i8, 2, 3, 4, 5], &[5])?;
        assert_eq!(r.roll(2, 0)?.to_vec()?, vec![4, 5, 1, 2, 3]);
        assert_eq!(r.roll(-1, 0)?.to_vec()?, vec![2, 3, 4, 5, 1]);
        let p = m.pad(&[(1, 0), (0, 2)], 9)?;
        assert_eq!(p.shape(), &[3, 4]);
        assert_eq!(p.to_vec()?, vec![9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9]);
        // Broadcast views, diag, eye, contiguous.
        let bc = Array::from_slice(&[1.5f64, 2.5], &[2, 1])?.broadcast_to(&[2, 3])?;
        assert_eq!(
            bc.contiguous()?.to_vec()?,
            vec![1.5, 1.5, 1.5, 2.5, 2.5, 2.5]
        );
        assert_eq!(
            Array::<f32>::eye(3)?.to_vec()?,
            vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]
        );
        Ok(())
    })
}

fn creation_and_random(d: Device) -> TestResult {
    on(d, || {
        assert_eq!(Array::arange(0i64, 10, 3)?.to_vec()?, vec![0, 3, 6, 9]);
        assert_eq!(
            Array::arange(5.0f64, 4.0, -0.25)?.to_vec()?,
            vec![5.0, 4.75, 4.5, 4.25]
        );
        assert_eq!(
            Array::linspace(-1.0f32, 1.0, 3)?.to_vec()?,
            vec![-1.0, 0.0, 1.0]
        );
        assert_eq!(Array::<u8>::full(&[2, 2], 7).to_vec()?, vec![7; 4]);
        assert_eq!(Array::<bool>::ones(&[3]).to_vec()?, vec![true; 3]);
        let seed = Rng::fresh().next_u64();
        let u = Array::<f32>::rand_uniform(&[100_000], seed)?;
        let uv = u.to_vec()?;
        assert!(uv.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = u.mean()?.item()?;
        assert!((mean - 0.5).abs() < 0.01, "uniform mean {mean}");
        // Element i depends on (seed, i) only: a prefix is the same numbers.
        let head = Array::<f32>::rand_uniform(&[10], seed)?.to_vec()?;
        assert_eq!(&head[..], &uv[..10]);
        // Matches the scalar Philox reference.
        let w = cuprite_array::random::philox4x32_10(seed, 0);
        assert_eq!(uv[1], (w[1] >> 8) as f32 / 16_777_216.0);
        let z = Array::<f64>::rand_normal(&[200_000], seed ^ 1)?;
        let (m, sd) = (z.mean()?.item()?, z.std()?.item()?);
        assert!(m.abs() < 0.01 && (sd - 1.0).abs() < 0.01, "normal {m} {sd}");
        Ok(())
    })
}

fn half_and_complex(d: Device) -> TestResult {
    on(d, || {
        use cuprite_array::{bf16, f16};
        let mut rng = Rng::fresh();
        let x = rng.vec_f32(300, -4.0, 4.0);
        let h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
        let a = Array::from_slice(&h, &[300])?;
        let got = (&a * f16::from_f32(3.0) + f16::ONE).to_vec()?;
        for (i, g) in got.iter().enumerate() {
            // Rounded after each operation.
            let m = f16::from_f32(h[i].to_f32() * 3.0);
            let want = f16::from_f32(m.to_f32() + 1.0);
            assert_eq!(g.to_bits(), want.to_bits(), "f16 element {i}");
        }
        let b: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
        let bb = Array::from_slice(&b, &[300])?;
        let s = bb.cast::<f32>().sum()?.item()? as f64;
        let want: f64 = b.iter().map(|v| v.to_f32() as f64).sum();
        close(&[s], &[want], 1e-4, 1e-3, "bf16 sum")?;
        // Complex.
        let z: Vec<c32> = (0..100).map(|i| c32::new(x[i], x[i + 100])).collect();
        let w: Vec<c32> = (0..100).map(|i| c32::new(x[i + 200], 0.5)).collect();
        let za = Array::from_slice(&z, &[100])?;
        let wa = Array::from_slice(&w, &[100])?;
        let prod = (&za * &wa).to_vec()?;
        let quot = (&za / &wa).to_vec()?;
        for i in 0..100 {
            let p = z[i] * w[i];
            assert!((prod[i] - p).norm() <= 1e-5 * (1.0 + p.norm()));
            let q = z[i] / w[i];
            assert!(
                (quot[i] - q).norm() <= 1e-4 * (1.0 + q.norm()),
                "{} vs {}",
                quot[i],
                q
            );
        }
        let re = za.real().to_vec()?;
        let im = za.conj().imag().to_vec()?;
        let nm = za.norm().to_vec()?;
        let ex = za.exp().to_vec()?;
        let sq = za.sqrt().to_vec()?;
        for i in 0..100 {
            assert_eq!(re[i], z[i].re);
            assert_eq!(im[i], -z[i].im);
            assert!((nm[i] - z[i].norm()).abs() < 1e-5);
            assert!((ex[i] - z[i].exp()).norm() < 1e-4 * (1.0 + z[i].exp().norm()));
            assert!((sq[i] * sq[i] - z[i]).norm() < 1e-4 * (1.0 + z[i].norm()));
        }
        let total = za.sum()?.item()?;
        let want = z.iter().fold(c32::new(0.0, 0.0), |a, b| a + b);
        assert!((total - want).norm() < 1e-3);
        Ok(())
    })
}

fn bad_input(d: Device) -> TestResult {
    on(d, || {
        let a = Array::<f32>::zeros(&[2, 3]);
        let b = Array::<f32>::zeros(&[4]);
        match a.try_add(&b) {
            Err(Error::Shape(m)) => assert!(m.contains("[2, 3]") && m.contains("[4]"), "{m}"),
            other => return Err(format!("expected a shape error, got {other:?}").into()),
        }
        let p = quietly(|| {
            std::panic::catch_unwind(|| {
                let _ = &a + &b;
            })
        });
        let msg = p
            .err()
            .and_then(|e| e.downcast_ref::<String>().cloned())
            .ok_or("operator did not panic")?;
        assert!(msg.contains("[2, 3]") && msg.contains("[4]"), "{msg}");
        assert!(matches!(
            Array::from_slice(&[1.0f32; 5], &[2, 3]),
            Err(Error::Shape(_))
        ));
        assert!(matches!(a.sum_axes(&[2]), Err(Error::Axis(_))));
        assert!(matches!(a.reshape(&[7]), Err(Error::Shape(_))));
        assert!(matches!(a.permute(&[0, 0]), Err(Error::Axis(_))));
        let p = quietly(|| std::panic::catch_unwind(|| a.at(&s![2])));
        assert!(p.is_err(), "indexing sugar panics out of range");
        Ok(())
    })
}

fn display(d: Device) -> TestResult {
    on(d, || {
        let a = Array::from_slice(&[1.0f32, 2.5, -3.0, 4.0], &[2, 2])?;
        assert_eq!(a.to_string(), "[[ 1.   2.5]\n [-3.   4. ]]");
        let i = Array::from_slice(&[1i32, -20, 300], &[3])?;
        assert_eq!(i.to_string(), "[  1 -20 300]");
        let big = Array::arange(0i64, 2000, 1)?;
        assert_eq!(big.to_string(), "[   0    1    2 ... 1997 1998 1999]");
        let m = Array::arange(0i64, 2000, 1)?.reshape(&[40, 50])?;
        let text = m.to_string();
        assert!(
            text.starts_with("[[   0    1    2 ...   47   48   49]\n [  50"),
            "{text}"
        );
        assert!(text.contains(" ...\n"), "{text}");
        Ok(())
    })
}

fn lazy_fusion(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let x = rng.vec_f32(4096, -1.0, 1.0);
        let a = Array::from_slice(&x, &[64, 64])?;
        let before = cuprite_array::stats::thread_evaluations();
        let shared = (&a * 3.0).sin();
        let p = &shared + 1.0;
        let q = &shared * &shared;
        cuprite_array::eval_many(&[&p, &q])?;
        let after = cuprite_array::stats::thread_evaluations();
        assert_eq!(
            after - before,
            1,
            "two outputs of one shape: one fused evaluation"
        );
        let pv = p.to_vec()?;
        let qv = q.to_vec()?;
        for i in 0..x.len() {
            let s = (x[i] * 3.0).sin();
            assert!((pv[i] - (s + 1.0)).abs() < 1e-6 && (qv[i] - s * s).abs() < 1e-6);
        }
        // Several transcendental functions: compiled as one outlined function per element.
        let h = (a.sin().exp().cos() + 2.0).sqrt();
        let hv = h.to_vec()?;
        let hs = (a.sin().exp().cos() + 2.0).sqrt().sum()?.item()? as f64;
        let mut want = 0.0f64;
        for i in 0..x.len() {
            let w = (x[i].sin().exp().cos() + 2.0).sqrt();
            assert!((hv[i] - w).abs() < 1e-5, "outlined chain");
            want += w as f64;
        }
        close(&[hs], &[want], 1e-5, 1e-3, "outlined chain sum")?;
        // A long chain stays correct across the automatic evaluation of big graphs.
        let mut c = a.clone();
        for _ in 0..400 {
            c = &c * 0.5 + 0.5;
        }
        let cv = c.to_vec()?;
        for i in 0..x.len() {
            let mut w = x[i];
            for _ in 0..400 {
                w = w * 0.5 + 0.5;
            }
            assert!((cv[i] - w).abs() < 1e-5);
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("unary_catalogue", unary_catalogue),
    ("binary_and_broadcast", binary_and_broadcast),
    ("integer_semantics", integer_semantics),
    ("ieee_specials", ieee_specials),
    ("reductions", reductions),
    ("movement", movement),
    ("creation_and_random", creation_and_random),
    ("half_and_complex", half_and_complex),
    ("bad_input", bad_input),
    ("display", display),
    ("lazy_fusion", lazy_fusion),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::{name}"), move || body(Device::CPU)));
        v.push(Test::gpu(format!("cuda::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::cpu("promotion_table_matches_rules", promotion));
    v
}

fn promotion() -> TestResult {
    use cuprite_array::{DType, Element, Promote};
    fn check<A: Promote<B>, B: Element>() {
        assert_eq!(
            <<A as Promote<B>>::Output as Element>::DTYPE,
            DType::promote(A::DTYPE, B::DTYPE),
            "{} + {}",
            A::DTYPE,
            B::DTYPE
        );
    }
    check::<u8, i8>();
    check::<u32, i32>();
    check::<u64, i8>();
    check::<i16, f32>();
    check::<cuprite_array::f16, cuprite_array::bf16>();
    check::<c32, f64>();
    check::<bool, u16>();
    // Rules: symmetric, idempotent, bool is the identity.
    for &a in &DType::ALL {
        assert_eq!(DType::promote(a, a), a);
        assert_eq!(DType::promote(DType::Bool, a), a);
        for &b in &DType::ALL {
            assert_eq!(DType::promote(a, b), DType::promote(b, a));
            let p = DType::promote(a, b);
            // The result can hold both kinds: never an int for a float operand, never real for complex.
            assert!(!(a.is_float() || b.is_float()) || p.is_float() || p.is_complex());
            assert!(!(a.is_complex() || b.is_complex()) || p.is_complex());
        }
    }
    // Mixed-type operators promote at the type level.
    let x = Array::<u8>::from_slice_on(Device::CPU, &[200, 100], &[2])?;
    let y = Array::<i8>::from_slice_on(Device::CPU, &[-100, 100], &[2])?;
    let z: Array<i16> = &x + &y;
    assert_eq!(z.to_vec()?, vec![100, 200]);
    Ok(())
}
