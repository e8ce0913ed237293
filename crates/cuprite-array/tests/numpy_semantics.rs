//! NumPy's semantics where cuprite follows them: `s![]` indices drop axes, inclusive and
//! any-integer bounds, `reshape(-1)`, round half to even, `%` with the divisor's sign beside
//! `fmod`, floor division, NumPy 2's int/float promotion, `unique`'s inverse shape, the median
//! of nothing, integer `matmul` and `irfft` of a real array. Each body runs on the CPU and on
//! CUDA; references are computed on the host from the formulas or NumPy's published values.

use cuprite_array::ops::AxisOpts;
use cuprite_array::ops::fft::FftOpts;
use cuprite_array::{
    Array, DType, Device, Element, Numeric, Ordered, Promote, bf16, c32, c64, f16, ops::Idx, s,
    with_device,
};
use cuprite_testkit::{Rng, Test, TestResult};

type Body = fn(Device) -> TestResult;

const BODIES: &[(&str, Body)] = &[
    ("slice_index_drops_axis", slice_index_drops_axis),
    ("reshape_infers_minus_one", reshape_infers_minus_one),
    ("round_half_to_even", round_half_to_even),
    ("remainder_sign_rules", remainder_sign_rules),
    ("integer_floor_division", integer_floor_division),
    ("int_float_promotion_values", int_float_promotion_values),
    ("unique_inverse_shape", unique_inverse_shape),
    ("median_of_nothing_is_nan", median_of_nothing_is_nan),
    ("integer_matmul_exact", integer_matmul_exact),
    ("irfft_of_real_input", irfft_of_real_input),
    (
        "complex64_product_rounds_in_f32",
        complex64_product_rounds_in_f32,
    ),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("numpy::cpu::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("numpy::cuda::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::cpu(
        "numpy::promotion_table_is_numpy2",
        promotion_table,
    ));
    v
}

fn slice_index_drops_axis(d: Device) -> TestResult {
    with_device(d, || {
        let v: Vec<i32> = (0..24).collect();
        let a = Array::from_slice(&v, &[2, 3, 4])?;
        // Same shape as the general index with integers (and as NumPy's a[1, :, 2]).
        let x = a.slice(&s![1, .., 2])?;
        let y = a.index(&[Idx::Int(1), Idx::from(s![..][0]), Idx::Int(2)])?;
        assert_eq!(x.shape(), &[3]);
        assert_eq!(x.shape(), y.shape());
        assert_eq!(x.to_vec()?, vec![14, 18, 22]);
        assert_eq!(a.slice(&s![-1, -1, -1])?.shape(), &[] as &[usize]);
        // Bounds of any integer type; inclusive ranges in both directions.
        let (n, m, k): (usize, u8, i64) = (2, 1, -1);
        assert_eq!(a.slice(&s![.., ..n, m..])?.shape(), &[2, 2, 3]);
        assert_eq!(a.slice(&s![k, 0, 1..=2])?.to_vec()?, vec![13, 14]);
        assert_eq!(a.slice(&s![0, 0, 3..=1;-1])?.to_vec()?, vec![3, 2, 1]);
        assert_eq!(a.slice(&s![0, 0, ..=-1])?.to_vec()?, vec![0, 1, 2, 3]);
        assert_eq!(a.slice(&s![0, 0, ..=0;-1])?.to_vec()?, vec![3, 2, 1, 0]);
        // A start past the end: empty, not an Err; an index past the end: Err.
        assert_eq!(a.slice(&s![.., 9.., ..])?.shape(), &[2, 0, 4]);
        assert!(a.slice(&s![.., 3, ..]).is_err());
        // assign through an indexed axis takes a value of the dropped shape.
        let mut b = Array::<i32>::zeros(&[2, 3]);
        b.assign(&s![.., 1], &Array::from_slice(&[7, 8], &[2])?)?;
        assert_eq!(b.to_vec()?, vec![0, 7, 0, 0, 8, 0]);
        Ok(())
    })
}

fn reshape_infers_minus_one(d: Device) -> TestResult {
    with_device(d, || {
        let a = Array::from_slice(&(0..24).collect::<Vec<i64>>(), &[2, 3, 4])?;
        assert_eq!(a.reshape(&[-1, 4])?.shape(), &[6, 4]);
        assert_eq!(a.reshape(&[2, -1, 2])?.shape(), &[2, 6, 2]);
        assert_eq!(a.reshape(&[-1])?.to_vec()?, (0..24).collect::<Vec<i64>>());
        let shape: Vec<usize> = vec![4, 6];
        assert_eq!(a.reshape(&shape)?.shape(), &[4, 6]);
        for bad in [vec![-1, -1], vec![-1, 5], vec![-2, 12], vec![5, 5]] {
            let e = a.reshape(&bad).unwrap_err().to_string();
            assert!(
                e.contains("[2, 3, 4]") && e.contains(&format!("{}", bad[1])),
                "{e}"
            );
        }
        let empty = Array::<f32>::from_slice(&[], &[0, 3])?;
        assert!(empty.reshape(&[-1, 0]).is_err());
        assert_eq!(empty.reshape(&[3, -1])?.shape(), &[3, 0]);
        Ok(())
    })
}

/// Round half to even from its definition.
fn half_even(x: f64) -> f64 {
    let f = x.floor();
    let diff = x - f;
    if diff > 0.5 || (diff == 0.5 && f % 2.0 != 0.0) {
        f + 1.0
    } else {
        f
    }
}

fn round_half_to_even(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let mut xs: Vec<f64> = (-12..12).map(|k| k as f64 + 0.5).collect();
        xs.extend((0..200).map(|_| rng.f32_in(-1e4, 1e4) as f64));
        xs.extend([0.49999999999999994, -0.5, -1.5, 2.5]);
        let a = Array::from_slice(&xs, &[xs.len()])?;
        let want: Vec<f64> = xs.iter().map(|&x| half_even(x)).collect();
        assert_eq!(a.round().to_vec()?, want);
        assert_eq!(a.rint().to_vec()?, want);
        let xf: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        let wf: Vec<f32> = xf.iter().map(|&x| half_even(x as f64) as f32).collect();
        assert_eq!(Array::from_slice(&xf, &[xf.len()])?.round().to_vec()?, wf);
        let xh: Vec<f16> = [0.5f32, 1.5, 2.5, -2.5, 3.5].map(f16::from_f32).to_vec();
        let got: Vec<f32> = Array::from_slice(&xh, &[5])?
            .round()
            .to_vec()?
            .iter()
            .map(|h| h.to_f32())
            .collect();
        assert_eq!(got, vec![0.0, 2.0, 2.0, -2.0, 4.0]);
        Ok(())
    })
}

fn remainder_sign_rules(d: Device) -> TestResult {
    with_device(d, || {
        // NumPy's published values: np.remainder and np.fmod.
        let a = Array::from_slice(&[-7.5f64, 7.5, -7.5, 7.5, 6.0, -6.0], &[6])?;
        let b = Array::from_slice(&[2.0f64, 2.0, -2.0, -2.0, 3.0, 3.0], &[6])?;
        assert_eq!(a.rem(&b).to_vec()?, vec![0.5, 1.5, -1.5, -0.5, 0.0, 0.0]);
        assert_eq!(a.fmod(&b).to_vec()?, vec![-1.5, 1.5, -1.5, 1.5, 0.0, -0.0]);
        // A zero result has the divisor's sign; a float remainder by zero is NaN.
        let z = Array::from_slice(&[6.0f32, -6.0], &[2])?
            .rem(-3.0f32)
            .to_vec()?;
        assert!(z.iter().all(|v| *v == 0.0 && v.is_sign_negative()), "{z:?}");
        assert!(a.rem(0.0).to_vec()?.iter().all(|v| v.is_nan()));
        // Random f32: the sign follows the divisor, the magnitude is below it, and the value
        // matches `x - floor(x / y) * y` computed in f64.
        let mut rng = Rng::fresh();
        let n = 400;
        let xs = rng.vec_f32(n, -100.0, 100.0);
        let ys: Vec<f32> = rng
            .vec_f32(n, 0.5, 9.0)
            .iter()
            .enumerate()
            .map(|(i, y)| if i % 2 == 0 { *y } else { -*y })
            .collect();
        let (xa, ya) = (Array::from_slice(&xs, &[n])?, Array::from_slice(&ys, &[n])?);
        let (r, f) = ((&xa % &ya).to_vec()?, xa.fmod(&ya).to_vec()?);
        for i in 0..n {
            let (x, y) = (xs[i] as f64, ys[i] as f64);
            let want = x - (x / y).floor() * y;
            let wantf = x - (x / y).trunc() * y;
            let tol = 1e-5 * y.abs().max(x.abs());
            assert!(
                r[i] == 0.0 || (r[i] < 0.0) == (y < 0.0),
                "{x} % {y} = {}",
                r[i]
            );
            assert!(
                ((r[i] as f64 - want).abs() < tol)
                    || ((r[i] as f64 - want).abs() - y.abs()).abs() < tol
            );
            assert!(
                (f[i] as f64 - wantf).abs() < tol,
                "fmod({x}, {y}) = {}",
                f[i]
            );
        }
        // Integers of several widths against the formula, zero divisors and -1 included.
        let xs: Vec<i64> = (0..n)
            .map(|_| (rng.next_u64() % 2001) as i64 - 1000)
            .collect();
        let ys: Vec<i64> = (0..n)
            .map(|i| match i % 7 {
                0 => 0,
                1 => -1,
                _ => (rng.next_u64() % 41) as i64 - 20,
            })
            .collect();
        let want = |x: i64, y: i64| -> (i64, i64) {
            if y == 0 {
                (0, 0)
            } else {
                let q = (x as f64 / y as f64).floor() as i64;
                (x - q * y, x - (x as f64 / y as f64).trunc() as i64 * y)
            }
        };
        check_int::<i64>(&xs, &ys, want)?;
        check_int::<i16>(&xs, &ys, want)?;
        let i8s: Vec<i64> = xs.iter().map(|x| x % 128).collect();
        check_int::<i8>(&i8s, &ys, want)?;
        // Unsigned: the same as C's remainder.
        let u = Array::from_slice(&[7u32, 9, 5], &[3])?;
        assert_eq!((&u % 4u32).to_vec()?, vec![3, 1, 1]);
        assert_eq!((&u % 0u32).to_vec()?, vec![0, 0, 0]);
        // MIN % -1 is 0, MIN // -1 wraps to MIN.
        let m = Array::from_slice(&[i64::MIN, i64::MIN], &[2])?;
        assert_eq!(m.rem(-1i64).to_vec()?, vec![0, 0]);
        assert_eq!((&m / -1).to_vec()?, vec![i64::MIN, i64::MIN]);
        Ok(())
    })
}

fn check_int<T>(xs: &[i64], ys: &[i64], want: impl Fn(i64, i64) -> (i64, i64)) -> TestResult
where
    T: Numeric + Ordered + TryFrom<i64> + Into<i64> + std::fmt::Debug,
    <T as TryFrom<i64>>::Error: std::fmt::Debug,
{
    let n = xs.len();
    let cv = |v: &[i64]| -> Vec<T> { v.iter().map(|&x| T::try_from(x).unwrap()).collect() };
    let (a, b) = (
        Array::from_slice(&cv(xs), &[n])?,
        Array::from_slice(&cv(ys), &[n])?,
    );
    let (r, f) = ((&a % &b).to_vec()?, a.fmod(&b).to_vec()?);
    for i in 0..n {
        let (wr, wf) = want(xs[i], ys[i]);
        assert_eq!(
            (r[i].into(), f[i].into()),
            (wr, wf),
            "{} % {} ({})",
            xs[i],
            ys[i],
            T::DTYPE
        );
    }
    Ok(())
}

fn integer_floor_division(d: Device) -> TestResult {
    with_device(d, || {
        let a = Array::from_slice(&[-7i32, 7, -7, 7, 0, -1], &[6])?;
        let b = Array::from_slice(&[2i32, 2, -2, -2, 3, 0], &[6])?;
        // NumPy: [-4, 3, 3, -4, 0, 0] (by zero: 0).
        assert_eq!((&a / &b).to_vec()?, vec![-4, 3, 3, -4, 0, 0]);
        let mut rng = Rng::fresh();
        let n = 300;
        let xs: Vec<i64> = (0..n)
            .map(|_| (rng.next_u64() >> 44) as i64 - (1 << 19))
            .collect();
        let ys: Vec<i64> = (0..n)
            .map(|_| (rng.next_u64() % 999) as i64 - 499)
            .collect();
        let q = (&Array::from_slice(&xs, &[n])? / &Array::from_slice(&ys, &[n])?).to_vec()?;
        for i in 0..n {
            let want = if ys[i] == 0 {
                0
            } else {
                (xs[i] as f64 / ys[i] as f64).floor() as i64
            };
            assert_eq!(q[i], want, "{} // {}", xs[i], ys[i]);
        }
        // i8 through the 64-bit helper: wraps back to 8 bits.
        let c = Array::from_slice(&[-128i8, -127, 127], &[3])?;
        assert_eq!((&c / -1i8).to_vec()?, vec![-128, 127, -127]);
        assert_eq!((&c / 2i8).to_vec()?, vec![-64, -64, 63]);
        Ok(())
    })
}

fn int_float_promotion_values(d: Device) -> TestResult {
    with_device(d, || {
        // 16777217 is not an f32: NumPy 2 gives f64 for i64 + f32, and so does cuprite.
        let a = Array::from_slice(&[16_777_217i64, -3], &[2])?;
        let b = Array::from_slice(&[0.0f32, 0.5], &[2])?;
        let s: Array<f64> = &a + &b;
        assert_eq!(s.to_vec()?, vec![16_777_217.0, -2.5]);
        let h = Array::from_slice(&[300i16, -2049], &[2])?;
        let hf = Array::from_slice(&[f16::from_f32(0.0); 2], &[2])?;
        let t: Array<f32> = &h + &hf;
        assert_eq!(t.to_vec()?, vec![300.0, -2049.0]);
        let u = Array::from_slice(&[200u8], &[1])?;
        let bh = Array::from_slice(&[bf16::from_f32(1.0)], &[1])?;
        let w: Array<bf16> = &u + &bh;
        assert_eq!(w.to_vec()?[0].to_f32(), 201.0);
        Ok(())
    })
}

fn promotion_table() -> TestResult {
    fn check<A: Promote<B>, B: Element>() {
        assert_eq!(
            <<A as Promote<B>>::Output as Element>::DTYPE,
            DType::promote(A::DTYPE, B::DTYPE),
            "{} + {}",
            A::DTYPE,
            B::DTYPE
        );
    }
    macro_rules! every {
        ($($a:ty),*) => { every!(@rows [$($a),*] [$($a),*]); };
        (@rows [$($a:ty),*] $b:tt) => { $( every!(@row $a $b); )* };
        (@row $a:ty [$($b:ty),*]) => { $( check::<$a, $b>(); )* };
    }
    every!(
        bool, u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64, c32, c64
    );
    // NumPy 2's `np.promote_types` for the pairs NumPy has.
    use DType::*;
    let numpy = [
        (I64, F32, F64),
        (U64, F32, F64),
        (I32, F32, F64),
        (U32, F32, F64),
        (I16, F32, F32),
        (U16, F32, F32),
        (I8, F32, F32),
        (U8, F16, F16),
        (I8, F16, F16),
        (I16, F16, F32),
        (U16, F16, F32),
        (I32, F16, F64),
        (I64, F64, F64),
        (I16, C32, C32),
        (I32, C32, C64),
        (U8, I8, I16),
        (U32, I32, I64),
        (F16, F32, F32),
        (F32, C32, C32),
        (F64, C32, C64),
    ];
    for (a, b, want) in numpy {
        assert_eq!(DType::promote(a, b), want, "{a} + {b}");
        assert_eq!(DType::promote(b, a), want, "{b} + {a}");
    }
    Ok(())
}

fn unique_inverse_shape(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let v: Vec<i32> = (0..24).map(|_| (rng.next_u64() % 7) as i32).collect();
        let a = Array::from_slice(&v, &[2, 3, 4])?;
        let u = a.unique()?;
        assert_eq!(u.inverse.shape(), &[2, 3, 4]);
        let (vals, inv) = (u.values.to_vec()?, u.inverse.to_vec()?);
        let rebuilt: Vec<i32> = inv.iter().map(|&i| vals[i as usize]).collect();
        assert_eq!(rebuilt, v);
        let mut sorted = v.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(vals, sorted);
        let e = Array::<i32>::from_slice(&[], &[0, 2])?.unique()?;
        assert_eq!(e.inverse.shape(), &[0, 2]);
        Ok(())
    })
}

fn median_of_nothing_is_nan(d: Device) -> TestResult {
    with_device(d, || {
        let e = Array::<f64>::from_slice(&[], &[0])?;
        assert!(e.median()?.item()?.is_nan());
        let r = Array::<i32>::from_slice(&[], &[3, 0])?.median_with(AxisOpts::new().axis(1))?;
        assert_eq!(r.shape(), &[3]);
        assert!(r.to_vec()?.iter().all(|v| v.is_nan()));
        // A non-empty median is unchanged.
        let a = Array::from_slice(&[5.0f32, 1.0, 4.0], &[3])?;
        assert_eq!(a.median()?.item()?, 4.0);
        Ok(())
    })
}

fn host_matmul<T: Copy>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
    f: impl Fn(T, T, T) -> T,
    zero: T,
) -> Vec<T> {
    let mut out = vec![zero; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = zero;
            for l in 0..k {
                acc = f(acc, a[i * k + l], b[l * n + j]);
            }
            out[i * n + j] = acc;
        }
    }
    out
}

fn integer_matmul_exact(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let (m, k, n) = (7, 33, 5);
        // i64 beyond 2^53 (no float path could be exact) with wrapping.
        let a: Vec<i64> = (0..m * k).map(|_| rng.next_u64() as i64 >> 3).collect();
        let b: Vec<i64> = (0..k * n)
            .map(|_| (rng.next_u64() % 1000) as i64 - 500)
            .collect();
        let want = host_matmul(
            &a,
            &b,
            m,
            k,
            n,
            |c, x, y| c.wrapping_add(x.wrapping_mul(y)),
            0,
        );
        let got = Array::from_slice(&a, &[m, k])?.matmul(&Array::from_slice(&b, &[k, n])?)?;
        assert_eq!(got.shape(), &[m, n]);
        assert_eq!(got.to_vec()?, want);
        // u8 wraps as NumPy's uint8 matmul does.
        let a8: Vec<u8> = (0..m * k).map(|_| rng.next_u64() as u8).collect();
        let b8: Vec<u8> = (0..k * n).map(|_| rng.next_u64() as u8).collect();
        let want8 = host_matmul(
            &a8,
            &b8,
            m,
            k,
            n,
            |c, x, y| c.wrapping_add(x.wrapping_mul(y)),
            0,
        );
        let got8 = Array::from_slice(&a8, &[m, k])?.matmul(&Array::from_slice(&b8, &[k, n])?)?;
        assert_eq!(got8.to_vec()?, want8);
        // Batches broadcast; 1-D operands drop their axis.
        let a3: Vec<i32> = (0..2 * 3 * 4)
            .map(|_| (rng.next_u64() % 19) as i32 - 9)
            .collect();
        let b2: Vec<i32> = (0..4 * 2)
            .map(|_| (rng.next_u64() % 19) as i32 - 9)
            .collect();
        let r = Array::from_slice(&a3, &[2, 3, 4])?.matmul(&Array::from_slice(&b2, &[4, 2])?)?;
        assert_eq!(r.shape(), &[2, 3, 2]);
        let mut want3 = Vec::new();
        for p in 0..2 {
            want3.extend(host_matmul(
                &a3[p * 12..(p + 1) * 12],
                &b2,
                3,
                4,
                2,
                |c, x, y| c + x * y,
                0,
            ));
        }
        assert_eq!(r.to_vec()?, want3);
        let v = Array::from_slice(&b2[..4], &[4])?;
        let mv = Array::from_slice(&a3[..12], &[3, 4])?.matmul(&v)?;
        assert_eq!(mv.shape(), &[3]);
        assert_eq!(
            mv.to_vec()?,
            host_matmul(&a3[..12], &b2[..4], 3, 4, 1, |c, x, y| c + x * y, 0)
        );
        // An empty contraction gives zeros.
        let z =
            Array::<i16>::from_slice(&[], &[2, 0])?.matmul(&Array::from_slice(&[], &[0, 3])?)?;
        assert_eq!(z.to_vec()?, vec![0; 6]);
        Ok(())
    })
}

fn irfft_of_real_input(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let m = 9;
        let x: Vec<f64> = rng
            .vec_f32(m, -2.0, 2.0)
            .iter()
            .map(|&v| v as f64)
            .collect();
        let n = 2 * (m - 1);
        let got = Array::from_slice(&x, &[m])?
            .irfft_with(FftOpts::new().axis(0))?
            .to_vec()?;
        // The inverse of a Hermitian half spectrum with zero imaginary parts.
        for (t, g) in got.iter().enumerate() {
            let mut acc = x[0] + x[m - 1] * (std::f64::consts::PI * t as f64).cos();
            for (kk, xk) in x.iter().enumerate().take(m - 1).skip(1) {
                acc += 2.0 * xk * (2.0 * std::f64::consts::PI * (kk * t) as f64 / n as f64).cos();
            }
            assert!(
                (g - acc / n as f64).abs() < 1e-12,
                "t = {t}: {g} vs {}",
                acc / n as f64
            );
        }
        // The same as the complex input with zero imaginary parts.
        let xc: Vec<c64> = x.iter().map(|&v| c64::new(v, 0.0)).collect();
        let viac = Array::from_slice(&xc, &[m])?
            .irfft_with(FftOpts::new().axis(0))?
            .to_vec()?;
        assert_eq!(got, viac);
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let two = Array::from_slice(&xf, &[1, m])?.irfft2()?;
        assert_eq!(two.shape(), &[1, n]);
        Ok(())
    })
}

/// A `complex64` product is computed in `f32`, each of the four real products rounded (NumPy's
/// arithmetic): `(1e20 + 1e20i)^2` has real products of 1e40, which overflow `f32`, so the
/// real part is `inf - inf` (NaN) and the imaginary part `inf + inf`; in `f64` it would be the
/// finite `0 + 2e40i`. The same holds for the product of an axis (`prod`) and for `*`.
fn complex64_product_rounds_in_f32(d: Device) -> TestResult {
    with_device(d, || {
        let z = c32::new(1e20, 1e20);
        let a = Array::from_slice(&[z, z, z, z], &[2, 2])?;
        let p = a.prod_axes(&[1])?.to_vec()?;
        let m = (&a * &a).to_vec()?;
        for w in p.iter().chain(&m) {
            assert!(
                w.re.is_nan(),
                "re of (1e20+1e20i)^2 in c32 is {} on {d:?}",
                w.re
            );
            assert_eq!(w.im, f32::INFINITY, "im of (1e20+1e20i)^2 in c32 on {d:?}");
        }
        // Exact products stay exact.
        let b = Array::from_slice(&[c32::new(1.0, 2.0), c32::new(3.0, -1.0)], &[2])?;
        assert_eq!(b.prod_axes(&[0])?.to_vec()?, vec![c32::new(5.0, 5.0)]);
        Ok(())
    })
}
