//! Element-wise math of the operation table (`frexp`, `ldexp`, `nextafter`, `modf`, `i0`,
//! `gcd`, `lcm`, `bitwise_count`, `signbit`, `copysign`) and the compositions `float_power`,
//! `iscomplex`, `isreal`, `real_if_close`, `unwrap`: against f64 host references computed here
//! by other means (bit patterns, powers of two, an integral, trial division) or values published
//! in NumPy's documentation. Bodies run on every backend.

// NumPy's documented outputs are printed to eight digits, close to some constants.
#![allow(clippy::needless_range_loop, clippy::approx_constant)]

use crate::common::{Body, close};
use cuprite_array::{Array, Device, RealIfClose, bf16, c32, c64, f16};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// Values with every kind of float: normal, subnormal, zeros of both signs, infinities, NaN.
fn specials() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        8.0,
        -0.75,
        3.25,
        -2.5,
        1e300,
        -1e-300,
        5e-324,
        -2.5e-320,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let mut rng = Rng::fresh();
    v.extend(rng.vec_f32(200, -1e6, 1e6).into_iter().map(f64::from));
    v
}

fn same_bits(got: &[f64], want: &[f64], what: &str) -> TestResult {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
        if !ok {
            return Err(format!("{what}: element {i}: got {g:e}, expected {w:e}").into());
        }
    }
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    Ok(())
}

/// `2^k` for `k` in the range of `f64` (subnormal powers included), ∞ above.
fn pow2(k: i32) -> f64 {
    if k > 1023 {
        f64::INFINITY
    } else if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// `frexp` by search over powers of two: the `e` with `2^(e-1) <= |x| < 2^e`, then a division
/// (exact: the quotient of two values whose ratio is representable).
fn frexp_ref(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let mut e = -1073;
    while x.abs() >= pow2(e) {
        e += 1;
    }
    let m = if e > 1023 {
        x / 2.0 / pow2(e - 1)
    } else {
        x / pow2(e)
    };
    (m, e)
}

fn frexp_ldexp(d: Device) -> TestResult {
    on(d, || {
        let x = specials();
        let n = x.len();
        let a = Array::from_slice(&x, &[n])?;
        let (m, e) = a.frexp();
        let (m, e) = (m.to_vec()?, e.to_vec()?);
        for i in 0..n {
            let (wm, we) = frexp_ref(x[i]);
            same_bits(&[m[i]], &[wm], &format!("frexp mantissa of {:e}", x[i]))?;
            assert_eq!(e[i], we, "frexp exponent of {:e}", x[i]);
        }
        // NumPy's documented example: frexp(arange(9)) exponents.
        let r = Array::from_slice(&[0.0f32, 1., 2., 3., 4., 5., 6., 7., 8.], &[9])?;
        let (m, e) = r.frexp();
        assert_eq!(e.to_vec()?, [0, 1, 2, 2, 3, 3, 3, 3, 4]);
        assert_eq!(
            m.to_vec()?,
            [0.0, 0.5, 0.5, 0.75, 0.5, 0.625, 0.75, 0.875, 0.5]
        );
        // Integers compute in f64 (NumPy's example is on arange(9)).
        let (mi, ei) = Array::from_slice(&[0i32, 1, 2, 3, 4, 5, 6, 7, 8], &[9])?.frexp();
        assert_eq!(ei.to_vec()?, [0, 1, 2, 2, 3, 3, 3, 3, 4]);
        assert_eq!(
            mi.to_vec()?,
            [0.0f64, 0.5, 0.5, 0.75, 0.5, 0.625, 0.75, 0.875, 0.5]
        );
        let s = Array::from_slice(&[-3i8, 4], &[2])?;
        assert_eq!(s.signbit().to_vec()?, [true, false]);
        close(
            &[s.i0().to_vec()?[1]],
            &[i0_integral(4.0)],
            1e-13,
            0.0,
            "i0 of i8",
        )?;
        // f16: the mantissa keeps the type, the exponent is the half value's.
        let h = Array::from_slice(&[f16::from_f32(6.0e-8), f16::from_f32(-48.0)], &[2])?;
        let (hm, he) = h.frexp();
        assert_eq!(he.to_vec()?, [-23, 6]);
        assert_eq!(hm.to_vec()?, [f16::from_f32(0.5), f16::from_f32(-0.75)]);
        // ldexp inverts frexp exactly, subnormals included.
        let (m, e) = a.frexp();
        same_bits(&m.ldexp(&e)?.to_vec()?, &x, "ldexp(frexp(x))")?;
        // Powers of two computed by powi, within the normal range of products.
        let xs = [0.5f64, -0.75, 1.0, 3.0, 1.5, 1.0, 1.0, 7.0];
        let es = [4i64, 1, -1074, -1, -1074, 1024, -1075, 5000];
        let want = [
            8.0,
            -1.5,
            5e-324,
            1.5,
            1e-323,
            f64::INFINITY,
            0.0,
            f64::INFINITY,
        ];
        let got = Array::from_slice(&xs, &[8])?
            .ldexp(&Array::from_slice(&es, &[8])?)?
            .to_vec()?;
        same_bits(&got, &want, "ldexp edges")?;
        // f32 with i8 exponents broadcast, against a product by powi.
        let x32 = Rng::fresh().vec_f32(64, -100.0, 100.0);
        let e8: Vec<i8> = (0..64).map(|i| (i as i8) - 32).collect();
        let got = Array::from_slice(&x32, &[64])?
            .ldexp(&Array::from_slice(&e8, &[64])?)?
            .to_vec()?;
        for i in 0..64 {
            assert_eq!(got[i], x32[i] * 2f32.powi(e8[i] as i32), "ldexp f32 {i}");
        }
        // Unsigned exponents beyond any range overflow instead of wrapping.
        let big = Array::from_slice(&[u64::MAX], &[1])?;
        assert_eq!(
            Array::from_slice(&[1.0f32], &[1])?.ldexp(&big)?.to_vec()?,
            [f32::INFINITY]
        );
        // bf16 through f32: 2^-133 (its smallest subnormal) * 2^260 = 2^127.
        let b = Array::from_slice(&[bf16::from_bits(1)], &[1])?;
        let got = b.ldexp(&Array::from_slice(&[260i32], &[1])?)?.to_vec()?;
        assert_eq!(got[0].to_f64(), 2f64.powi(127));
        Ok(())
    })
}

fn nextafter_modf(d: Device) -> TestResult {
    on(d, || {
        let x = specials();
        let n = x.len();
        let a = Array::from_slice(&x, &[n])?;
        let up = Array::<f64>::full(&[n], f64::INFINITY);
        let got = a.nextafter(&up)?.to_vec()?;
        for i in 0..n {
            let w = if x[i].is_nan() || x[i] == f64::INFINITY {
                x[i]
            } else if x[i] == 0.0 {
                f64::from_bits(1)
            } else if x[i] > 0.0 {
                f64::from_bits(x[i].to_bits() + 1)
            } else {
                f64::from_bits(x[i].to_bits() - 1)
            };
            same_bits(&[got[i]], &[w], &format!("nextafter({:e}, inf)", x[i]))?;
        }
        // Towards a NaN gives NaN; towards itself gives the target (the sign of zero too).
        let p = Array::from_slice(&[1.0f32, 0.0, -0.0, 1.0], &[4])?;
        let q = Array::from_slice(&[f32::NAN, -0.0, 0.0, 0.0], &[4])?;
        let r = p.nextafter(&q)?.to_vec()?;
        assert!(r[0].is_nan());
        assert_eq!(r[1].to_bits(), (-0.0f32).to_bits());
        assert_eq!(r[2].to_bits(), 0.0f32.to_bits());
        assert_eq!(r[3], 1.0 - f32::EPSILON / 2.0);
        // f16 and bf16 step in their own precision.
        let h = Array::from_slice(&[f16::from_f32(1.0), f16::from_f32(0.0)], &[2])?;
        let hu = Array::from_slice(&[f16::from_f32(2.0), f16::from_f32(-1.0)], &[2])?;
        let r = h.nextafter(&hu)?.to_vec()?;
        assert_eq!(r[0].to_bits(), f16::from_f32(1.0).to_bits() + 1);
        assert_eq!(r[1].to_bits(), 0x8001);
        let b = Array::from_slice(&[bf16::from_f32(-1.0)], &[1])?;
        let r = b.nextafter(&Array::from_slice(&[bf16::from_f32(0.0)], &[1])?)?;
        assert_eq!(r.to_vec()?[0].to_bits(), bf16::from_f32(-1.0).to_bits() - 1);
        // modf: Rust's fract and trunc, with modf's signs and infinities.
        let (f, t) = a.modf();
        let (f, t) = (f.to_vec()?, t.to_vec()?);
        for i in 0..n {
            let wf = if x[i].is_infinite() {
                0f64.copysign(x[i])
            } else {
                x[i].fract().copysign(x[i])
            };
            same_bits(&[f[i]], &[wf], &format!("modf frac of {:e}", x[i]))?;
            same_bits(&[t[i]], &[x[i].trunc()], &format!("modf int of {:e}", x[i]))?;
        }
        Ok(())
    })
}

/// `I0(x) = (1/π) ∫_0^π e^{x cos t} dt`, by the trapezoid rule (exponentially accurate for a
/// periodic integrand), scaled by `e^{-|x|}` inside to stay in range.
fn i0_integral(x: f64) -> f64 {
    let n = 4000;
    let h = std::f64::consts::PI / n as f64;
    let ax = x.abs();
    let mut s = 0.0;
    for k in 0..=n {
        let w = if k == 0 || k == n { 0.5 } else { 1.0 };
        s += w * (ax * ((k as f64 * h).cos() - 1.0)).exp();
    }
    let scaled = s * h / std::f64::consts::PI;
    let half = (0.5 * ax).exp();
    scaled * half * half
}

fn bessel_and_signs(d: Device) -> TestResult {
    on(d, || {
        let x: Vec<f64> = vec![
            0.0, 0.5, -1.0, 2.0, 5.0, -10.0, 15.0, 29.9, 30.1, 45.0, -100.0, 400.0, 700.0,
        ];
        let want: Vec<f64> = x.iter().map(|&v| i0_integral(v)).collect();
        let a = Array::from_slice(&x, &[x.len()])?;
        close(&a.i0().to_vec()?, &want, 1e-13, 0.0, "i0 f64")?;
        // NumPy's documented values.
        assert_eq!(a.i0().to_vec()?[0], 1.0);
        let a32 = Array::from_slice(&[0.0f32, 1.0, 2.0, 3.0], &[4])?;
        let got: Vec<f64> = a32.i0().to_vec()?.into_iter().map(f64::from).collect();
        close(
            &got,
            &[1.0, 1.26606588, 2.2795853, 4.88079259],
            1e-7,
            0.0,
            "i0 f32",
        )?;
        let nan = Array::from_slice(&[f64::NAN, f64::INFINITY], &[2])?
            .i0()
            .to_vec()?;
        assert!(nan[0].is_nan() && nan[1] == f64::INFINITY);
        // signbit reads a NaN as unsigned and copysign a NaN sign as positive, whatever the
        // NaN's sign bit (the sign of a NaN made by an invalid operation is the hardware's).
        let neg_nan = -f64::NAN;
        let s = Array::from_slice(&[-1.0, -0.0, 0.0, 2.0, neg_nan, f64::NAN], &[6])?;
        assert_eq!(
            s.signbit().to_vec()?,
            [true, true, false, false, false, false]
        );
        let mag = Array::from_slice(&[3.0f64; 6], &[6])?;
        let got = mag.copysign(&s)?.to_vec()?;
        assert_eq!(got, [-3.0, -3.0, 3.0, 3.0, 3.0, 3.0]);
        // NaNs made by fmod and rem by zero, in every float width.
        let x = Array::from_slice(&[5.0f32, -3.25], &[2])?;
        let z = Array::from_slice(&[0.0f32, 0.0], &[2])?;
        assert_eq!(x.fmod(&z).signbit().to_vec()?, [false, false]);
        assert_eq!(x.rem(&z).signbit().to_vec()?, [false, false]);
        assert_eq!(x.copysign(&x.rem(&z))?.to_vec()?, [5.0, 3.25]);
        let xb = x.cast::<bf16>();
        let zb = z.cast::<bf16>();
        assert_eq!(xb.fmod(&zb).signbit().to_vec()?, [false, false]);
        let xh = x.cast::<f16>();
        let zh = z.cast::<f16>();
        let got = xh.copysign(&xh.fmod(&zh))?.to_vec()?;
        assert_eq!(got, [f16::from_f32(5.0), f16::from_f32(3.25)]);
        let nanmag = Array::from_slice(&[f64::NAN, neg_nan], &[2])?;
        let got = nanmag.copysign(&Array::from_slice(&[-1.0f64, 1.0], &[2])?)?;
        let got = got.to_vec()?;
        assert!(got[0].is_nan() && got[0].is_sign_negative());
        assert!(got[1].is_nan() && got[1].is_sign_positive());
        // f32 broadcast against a scalar sign.
        let a = Array::from_slice(&[1.0f32, -2.0], &[2])?;
        let got = a.copysign(&Array::from_slice(&[-0.0f32], &[1])?)?;
        assert_eq!(got.to_vec()?, [-1.0, -2.0]);
        Ok(())
    })
}

/// The greatest common divisor by trial division from the smaller magnitude down.
fn gcd_ref(a: i64, b: i64) -> i64 {
    let (a, b) = (a.abs(), b.abs());
    if a == 0 || b == 0 {
        return a.max(b);
    }
    (1..=a.min(b))
        .rev()
        .find(|k| a % k == 0 && b % k == 0)
        .unwrap_or(1)
}

fn integer_functions(d: Device) -> TestResult {
    on(d, || {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for p in -30i64..=30 {
            for q in [-24i64, -7, 0, 1, 6, 9, 15, 28] {
                x.push(p);
                y.push(q);
            }
        }
        let n = x.len();
        let g: Vec<i64> = x.iter().zip(&y).map(|(&p, &q)| gcd_ref(p, q)).collect();
        let l: Vec<i64> = x
            .iter()
            .zip(&y)
            .zip(&g)
            .map(|((&p, &q), &g)| if g == 0 { 0 } else { (p * q).abs() / g })
            .collect();
        let (a, b) = (Array::from_slice(&x, &[n])?, Array::from_slice(&y, &[n])?);
        assert_eq!(a.gcd(&b)?.to_vec()?, g);
        assert_eq!(a.lcm(&b)?.to_vec()?, l);
        // Every integer type, through casts of the same values (lcm fits in i16 here).
        macro_rules! each {
            ($a:ident, $b:ident, $g:ident, $l:ident; $($t:ty),*) => {$({
                let a: Array<$t> = $a.cast();
                let b: Array<$t> = $b.cast();
                let gw: Vec<$t> = $g.iter().map(|&v| v as $t).collect();
                assert_eq!(a.gcd(&b)?.to_vec()?, gw, "gcd {}", stringify!($t));
                let lw: Vec<$t> = $l.iter().map(|&v| v as $t).collect();
                assert_eq!(a.lcm(&b)?.to_vec()?, lw, "lcm {}", stringify!($t));
            })*};
        }
        each!(a, b, g, l; i16, i32);
        // Unsigned types on the non-negative pairs.
        let keep: Vec<usize> = (0..n).filter(|&i| x[i] >= 0 && y[i] >= 0).collect();
        let pick = |v: &[i64]| keep.iter().map(|&i| v[i]).collect::<Vec<i64>>();
        let (x, y, g, l) = (pick(&x), pick(&y), pick(&g), pick(&l));
        let k = x.len();
        let (a, b) = (Array::from_slice(&x, &[k])?, Array::from_slice(&y, &[k])?);
        each!(a, b, g, l; u8, u16, u32, u64);
        // NumPy's documented examples.
        let r = Array::from_slice(&[20i64], &[1])?;
        let s = Array::from_slice(&[0i64, 5, 10, 15, 20], &[5])?;
        assert_eq!(r.gcd(&s)?.to_vec()?, [20, 5, 10, 5, 20]);
        assert_eq!(r.lcm(&s)?.to_vec()?, [0, 20, 20, 60, 20]);
        // bitwise_count: the popcount of the magnitude.
        let v: Vec<i64> = vec![0, 1, -1, 7, -8, 1023, i64::MIN, i64::MAX, -12345678901];
        let want: Vec<u8> = v
            .iter()
            .map(|x| x.unsigned_abs().count_ones() as u8)
            .collect();
        let av = Array::from_slice(&v, &[v.len()])?;
        assert_eq!(av.bitwise_count().to_vec()?, want);
        let v8: Vec<i8> = vec![-128, -1, 127, 85];
        let want: Vec<u8> = v8
            .iter()
            .map(|x| x.unsigned_abs().count_ones() as u8)
            .collect();
        assert_eq!(
            Array::from_slice(&v8, &[4])?.bitwise_count().to_vec()?,
            want
        );
        let u: Vec<u32> = vec![0, u32::MAX, 0x8000_0001];
        assert_eq!(
            Array::from_slice(&u, &[3])?.bitwise_count().to_vec()?,
            [0u8, 32, 2]
        );
        assert!(a.gcd(&Array::from_slice(&[1i64, 2], &[2])?).is_err());
        Ok(())
    })
}

fn powers_and_complex(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let x: Vec<f32> = rng.vec_f32(100, 0.1, 10.0);
        let y: Vec<f32> = rng.vec_f32(100, -6.0, 6.0);
        let want: Vec<f64> = x
            .iter()
            .zip(&y)
            .map(|(&p, &q)| (p as f64).powf(q as f64))
            .collect();
        let got = Array::from_slice(&x, &[100])?
            .float_power(&Array::from_slice(&y, &[100])?)?
            .to_vec()?;
        close(&got, &want, 1e-15, 0.0, "float_power f32 in f64")?;
        // Integers: negative powers do not truncate, large ones do not wrap.
        let a = Array::from_slice(&[2i32, 10, -8, 0], &[4])?;
        let b = Array::from_slice(&[-1i32, 20, 2, 0], &[4])?;
        assert_eq!(a.float_power(&b)?.to_vec()?, [0.5, 1e20, 64.0, 1.0]);
        // Complex in c64, with NumPy's special cases.
        let za = [
            c64::new(0.0, 1.0),
            c64::new(1.0, 1.0),
            c64::new(0.0, 0.0),
            c64::new(0.0, 0.0),
            c64::new(3.0, -4.0),
            c64::new(f64::NAN, 0.0),
        ];
        let zb = [
            c64::new(2.0, 0.0),
            c64::new(2.0, 0.0),
            c64::new(2.0, 0.0),
            c64::new(0.0, 1.0),
            c64::new(0.5, 0.0),
            c64::new(0.0, 0.0),
        ];
        let want = [
            (-1.0, 0.0),
            (0.0, 2.0),
            (0.0, 0.0),
            (f64::NAN, f64::NAN),
            (2.0, -1.0),
            (1.0, 0.0),
        ];
        let got = Array::from_slice(&za, &[6])?
            .float_power(&Array::from_slice(&zb, &[6])?)?
            .to_vec()?;
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            close(
                &[g.re, g.im],
                &[w.0, w.1],
                1e-14,
                1e-14,
                &format!("complex power {i}"),
            )?;
        }
        let z32 = Array::from_slice(&[c32::new(0.0, 2.0)], &[1])?;
        let got = z32.float_power(&z32.conj())?.to_vec()?[0];
        // (2i)^(-2i) = e^{-2i(ln 2 + iπ/2)} = e^{π} e^{-2i ln 2}.
        let (m, t) = (std::f64::consts::PI.exp(), -2.0 * 2f64.ln());
        close(
            &[got.re, got.im],
            &[m * t.cos(), m * t.sin()],
            1e-6,
            0.0,
            "c32 power",
        )?;
        // around: x * 10^d rounded half to even (Rust's round_ties_even), divided back.
        let xs: Vec<f64> = Rng::fresh()
            .vec_f32(200, -1000.0, 1000.0)
            .into_iter()
            .map(f64::from)
            .collect();
        for dec in [-2i32, 0, 1, 3] {
            let p = 10f64.powi(dec.abs());
            let want: Vec<f64> = xs
                .iter()
                .map(|&x| {
                    if dec >= 0 {
                        (x * p).round_ties_even() / p
                    } else {
                        (x / p).round_ties_even() * p
                    }
                })
                .collect();
            let got = Array::from_slice(&xs, &[200])?.around(dec).to_vec()?;
            assert_eq!(got, want, "around({dec})");
        }
        let ints = Array::from_slice(&[15i64, 25, -35, 149, 150, 250], &[6])?;
        assert_eq!(ints.around(-2).to_vec()?, [0, 0, 0, 100, 200, 200]);
        assert_eq!(ints.around(3).to_vec()?, [15, 25, -35, 149, 150, 250]);
        let zr = Array::from_slice(&[c64::new(2.5, -1.25)], &[1])?;
        assert_eq!(zr.around(1).to_vec()?, [c64::new(2.5, -1.2)]);
        assert_eq!(zr.around(0).to_vec()?, [c64::new(2.0, -1.0)]);
        // iscomplex / isreal.
        let z = Array::from_slice(
            &[c32::new(1.0, 0.0), c32::new(1.0, -0.5), c32::new(0.0, -0.0)],
            &[3],
        )?;
        assert_eq!(z.iscomplex().to_vec()?, [false, true, false]);
        assert_eq!(z.isreal().to_vec()?, [true, false, true]);
        let r = Array::from_slice(&[1i32, 2], &[2])?;
        assert_eq!(r.iscomplex().to_vec()?, [false, false]);
        assert_eq!(r.isreal().to_vec()?, [true, true]);
        // real_if_close: NumPy's documented example (tol in machine epsilons when > 1).
        let z = Array::from_slice(&[c64::new(2.1, 4e-14), c64::new(5.2, 3e-15)], &[2])?;
        let RealIfClose::Real(re) = z.real_if_close(1000.0)? else {
            return Err("real_if_close(1000) kept the complex array".into());
        };
        assert_eq!(re.to_vec()?, [2.1, 5.2]);
        assert!(matches!(z.real_if_close(100.0)?, RealIfClose::Complex(_)));
        assert!(matches!(z.real_if_close(1e-13)?, RealIfClose::Real(_)));
        assert!(z.real_if_close(f64::NAN).is_err());
        Ok(())
    })
}

fn unwrap(d: Device) -> TestResult {
    on(d, || {
        use std::f64::consts::PI;
        // NumPy's documented examples.
        let mut phase: Vec<f64> = (0..5).map(|i| PI * i as f64 / 4.0).collect();
        for p in &mut phase[3..] {
            *p += PI;
        }
        let got = Array::from_slice(&phase, &[5])?.unwrap(None, -1, 2.0 * PI)?;
        close(
            &got.to_vec()?,
            &[0.0, 0.78539816, 1.57079633, -0.78539816, 0.0],
            0.0,
            1e-8,
            "unwrap phase",
        )?;
        let u = |v: &[f64], period: f64| -> cuprite_array::Result<Vec<f64>> {
            Array::from_slice(v, &[v.len()])?
                .unwrap(None, 0, period)?
                .to_vec()
        };
        assert_eq!(u(&[0.0, 1., 2., -1., 0.], 4.0)?, [0.0, 1., 2., 3., 4.]);
        let ints = Array::from_slice(&[0i32, 1, 2, -1, 0], &[5])?;
        assert_eq!(
            ints.unwrap(None, -1, 4.0)?.to_vec()?,
            [0.0f64, 1., 2., 3., 4.]
        );
        assert_eq!(
            u(&[1.0, 2., 3., 4., 5., 6., 1., 2., 3.], 6.0)?,
            [1.0, 2., 3., 4., 5., 6., 7., 8., 9.]
        );
        assert_eq!(
            u(&[2.0, 3., 4., 5., 2., 3., 4., 5.], 4.0)?,
            [2.0, 3., 4., 5., 6., 7., 8., 9.]
        );
        let deg: Vec<f64> = (0..19).map(|i| (i as f64 * 40.0) % 360.0 - 180.0).collect();
        let want: Vec<f64> = (0..19).map(|i| -180.0 + i as f64 * 40.0).collect();
        assert_eq!(u(&deg, 360.0)?, want);
        // Along axis 0 of a matrix, with discont larger than the jumps: nothing moves.
        let m = Array::from_slice(&[0.0f32, 0.0, 3.0, -3.0, 7.0, 0.0], &[3, 2])?;
        let got: Vec<f64> = m
            .unwrap(None, 0, 2.0 * PI)?
            .to_vec()?
            .into_iter()
            .map(f64::from)
            .collect();
        close(
            &got,
            &[0.0, 0.0, 3.0, -3.0, 7.0 - 2.0 * PI, 0.0],
            0.0,
            1e-6,
            "unwrap axis 0",
        )?;
        let same = m.unwrap(Some(10.0), 0, 2.0 * PI)?.to_vec()?;
        assert_eq!(same, m.to_vec()?);
        assert!(m.unwrap(None, 2, 1.0).is_err());
        assert!(m.unwrap(None, 0, -1.0).is_err());
        Ok(())
    })
}

fn bits_and_sets(d: Device) -> TestResult {
    use cuprite_array::ops::{BitOrder, base_repr, binary_repr, setxor1d};
    on(d, || {
        // NumPy's documented packbits example.
        let a = Array::from_slice(&[1u8, 0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1], &[2, 2, 3])?;
        let p = a.packbits(Some(-1), BitOrder::Big)?;
        assert_eq!(p.shape(), [2, 2, 1]);
        assert_eq!(p.to_vec()?, [160, 64, 192, 32]);
        // Random bools against a host loop, both orders, along axis 0 of a matrix.
        let mut rng = Rng::fresh();
        let (r, c) = (19, 5);
        let v: Vec<bool> = (0..r * c).map(|_| rng.next_u64() % 3 == 0).collect();
        let b = Array::from_slice(&v, &[r, c])?;
        for order in [BitOrder::Big, BitOrder::Little] {
            let got = b.packbits(Some(0), order)?;
            let rows = r.div_ceil(8);
            assert_eq!(got.shape(), [rows, c]);
            let mut want = vec![0u8; rows * c];
            for i in 0..r {
                for j in 0..c {
                    if v[i * c + j] {
                        let bit = if order == BitOrder::Big {
                            7 - i % 8
                        } else {
                            i % 8
                        };
                        want[(i / 8) * c + j] |= 1 << bit;
                    }
                }
            }
            assert_eq!(got.to_vec()?, want);
            // unpackbits inverts it, count trimming the padding.
            let back = got.unpackbits(Some(0), Some(r as isize), order)?;
            let bv: Vec<bool> = back.to_vec()?.iter().map(|&x| x == 1).collect();
            assert_eq!(bv, v);
        }
        // NumPy's documented unpackbits examples.
        let u = Array::from_slice(&[2u8, 7, 23], &[3, 1])?;
        let c3 = u.unpackbits(Some(1), Some(-3), BitOrder::Big)?;
        assert_eq!(c3.to_vec()?, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
        let pad = u.unpackbits(None, Some(26), BitOrder::Big)?.to_vec()?;
        assert_eq!(pad.len(), 26);
        assert_eq!(pad[24..], [0, 0]);
        // binary_repr and base_repr: NumPy's documented values.
        assert_eq!(binary_repr(-3, Some(3))?, "101");
        assert_eq!(binary_repr(0, None)?, "0");
        assert_eq!(binary_repr(-4, Some(3))?, "100");
        assert_eq!(
            binary_repr(i64::MIN, Some(64))?,
            format!("1{}", "0".repeat(63))
        );
        assert_eq!(base_repr(6, 5, 0)?, "11");
        assert_eq!(base_repr(10, 16, 0)?, "A");
        assert_eq!(base_repr(32, 16, 0)?, "20");
        assert_eq!(base_repr(0, 2, 0)?, "0");
        assert!(base_repr(3, 1, 0).is_err());
        // setxor1d against a host symmetric difference, NaN-free floats.
        let x: Vec<i64> = (0..300).map(|_| (rng.next_u64() % 200) as i64).collect();
        let y: Vec<i64> = (0..150)
            .map(|_| (rng.next_u64() % 200) as i64 + 50)
            .collect();
        let sx: std::collections::BTreeSet<i64> = x.iter().copied().collect();
        let sy: std::collections::BTreeSet<i64> = y.iter().copied().collect();
        let want: Vec<i64> = sx.symmetric_difference(&sy).copied().collect();
        let got = setxor1d(
            &Array::from_slice(&x, &[300])?,
            &Array::from_slice(&y, &[150])?,
        )?;
        let mut got = got.to_vec()?;
        let sorted = got.windows(2).all(|w| w[0] < w[1]);
        got.sort();
        assert!(sorted);
        assert_eq!(got, want);
        let f = Array::from_slice(&[1.5f32, -2.0], &[2])?;
        assert_eq!(
            setxor1d(&f, &Array::from_slice(&[1.5f32], &[1])?)?.to_vec()?,
            [-2.0]
        );
        Ok(())
    })
}

fn sort_and_cov(d: Device) -> TestResult {
    use cuprite_array::ops::Cov;
    on(d, || {
        // sort_complex: NumPy's documented examples, and rows sorted apart.
        let z = |v: &[(f64, f64)]| -> Vec<c64> { v.iter().map(|&(a, b)| c64::new(a, b)).collect() };
        let a = Array::from_slice(
            &z(&[(1., 2.), (2., -1.), (3., -2.), (3., -3.), (3., 5.)]),
            &[5],
        )?;
        assert_eq!(
            a.sort_complex()?.to_vec()?,
            z(&[(1., 2.), (2., -1.), (3., -3.), (3., -2.), (3., 5.)])
        );
        let m = Array::from_slice(&[3.0f32, 1.0, 2.0, 0.5, -1.0, 9.0], &[2, 3])?;
        let s = m.sort_complex()?.to_vec()?;
        let want: Vec<c32> = [1.0, 2.0, 3.0, -1.0, 0.5, 9.0]
            .iter()
            .map(|&x| c32::new(x, 0.0))
            .collect();
        assert_eq!(s, want);
        let nan = Array::from_slice(&[f64::NAN, 1.0, -1.0], &[3])?
            .sort_complex()?
            .to_vec()?;
        assert_eq!((nan[0].re, nan[1].re), (-1.0, 1.0));
        assert!(nan[2].re.is_nan());
        // cov: NumPy's documented examples.
        let x = Array::from_slice(&[0.0f64, 1.0, 2.0, 2.0, 1.0, 0.0], &[2, 3])?;
        assert_eq!(x.cov_with(&Cov::new())?.to_vec()?, [1.0, -1.0, -1.0, 1.0]);
        let xs = [-2.1f64, -1.0, 4.3];
        let ys = [3.0f64, 1.1, 0.12];
        let (xa, ya) = (Array::from_slice(&xs, &[3])?, Array::from_slice(&ys, &[3])?);
        let c = xa.cov_with(&Cov::new().y(&ya))?.to_vec()?;
        close(
            &c,
            &[11.71, -4.286, -4.286, 2.144133333333333],
            1e-12,
            1e-12,
            "cov x, y",
        )?;
        let c0 = xa.cov_with(&Cov::new())?;
        assert_eq!(c0.shape(), [0usize; 0]);
        close(&[c0.item()?], &[11.71], 1e-12, 0.0, "cov x")?;
        // Weights, rowvar = false, ddof: against sums written out here.
        let mut rng = Rng::fresh();
        let (nobs, nvar) = (40, 3);
        let data: Vec<f64> = rng
            .vec_f32(nobs * nvar, -3.0, 3.0)
            .into_iter()
            .map(f64::from)
            .collect();
        let fw: Vec<i64> = (0..nobs).map(|i| (i % 4) as i64).collect();
        let aw: Vec<f64> = rng
            .vec_f32(nobs, 0.1, 2.0)
            .into_iter()
            .map(f64::from)
            .collect();
        let w: Vec<f64> = fw.iter().zip(&aw).map(|(&f, &a)| f as f64 * a).collect();
        let ws: f64 = w.iter().sum();
        let col = |j: usize| -> Vec<f64> { (0..nobs).map(|i| data[i * nvar + j]).collect() };
        let mean: Vec<f64> = (0..nvar)
            .map(|j| col(j).iter().zip(&w).map(|(x, w)| x * w).sum::<f64>() / ws)
            .collect();
        let ddof = 2.0;
        let w2: f64 = w.iter().zip(&aw).map(|(w, a)| w * a).sum();
        let fact = ws - ddof * w2 / ws;
        let mut want = vec![0.0; nvar * nvar];
        for p in 0..nvar {
            for q in 0..nvar {
                let (cp, cq) = (col(p), col(q));
                want[p * nvar + q] = (0..nobs)
                    .map(|i| w[i] * (cp[i] - mean[p]) * (cq[i] - mean[q]))
                    .sum::<f64>()
                    / fact;
            }
        }
        let da = Array::from_slice(&data, &[nobs, nvar])?;
        let (fa, aa) = (
            Array::from_slice(&fw, &[nobs])?,
            Array::from_slice(&aw, &[nobs])?,
        );
        let got = da
            .cov_with(&Cov::new().rowvar(false).ddof(2).fweights(&fa).aweights(&aa))?
            .to_vec()?;
        close(&got, &want, 1e-12, 1e-12, "weighted cov")?;
        // Integers compute in f64; complex numbers conjugate.
        let ia = Array::from_slice(&[1i32, 2, 4], &[3])?;
        close(
            &[ia.cov_with(&Cov::new().bias(true))?.item()?],
            &[14.0 / 9.0],
            1e-15,
            0.0,
            "int cov",
        )?;
        let zc = Array::from_slice(&z(&[(1., 1.), (2., -1.), (0., 3.)]), &[3])?;
        let zv = zc.cov_with(&Cov::new())?.item()?;
        // mean (1, 1); deviations (0, 0), (1, -2), (-1, 2): |d|^2 sums to 10, over 2.
        close(&[zv.re, zv.im], &[5.0, 0.0], 1e-15, 1e-15, "complex cov")?;
        // corrcoef: the documented ±1 example, and clipping; bad weights are errors.
        let r = xa.corrcoef_with(&Cov::new().y(&ya))?.to_vec()?;
        assert_eq!((r[0], r[3]), (1.0, 1.0));
        close(
            &[r[1]],
            &[-4.286 / (11.71f64 * 2.144133333333333).sqrt()],
            1e-12,
            0.0,
            "corrcoef",
        )?;
        let neg = Array::from_slice(&[-1i64, 1, 1], &[3])?;
        assert!(xa.cov_with(&Cov::new().fweights(&neg)).is_err());
        assert!(
            xa.cov_with(&Cov::new().fweights(&Array::from_slice(&[1i64], &[1])?))
                .is_err()
        );
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("bits_and_sets", bits_and_sets),
    ("sort_and_cov", sort_and_cov),
    ("frexp_ldexp", frexp_ldexp),
    ("nextafter_modf", nextafter_modf),
    ("bessel_and_signs", bessel_and_signs),
    ("integer_functions", integer_functions),
    ("powers_and_complex", powers_and_complex),
    ("unwrap", unwrap),
];

/// Every kernel the bodies of this module and of `signal` generate (recorded on the CPU
/// backend) compiles with NVRTC.
fn kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    for &(name, body) in BODIES.iter().chain(crate::signal::BODIES) {
        body(Device::CPU).map_err(|e| format!("{name}: {e}"))?;
    }
    let sources = cuprite_array::tuning::compiler::take_recorded();
    assert!(
        sources.len() > 10,
        "only {} kernels recorded",
        sources.len()
    );
    crate::codegen::compile_all(&sources)
}

pub fn tests() -> Vec<Test> {
    let mut v = vec![Test::nvrtc("numpy_math::kernels_compile", kernels_compile)];
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::numpy_math::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::numpy_math::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
