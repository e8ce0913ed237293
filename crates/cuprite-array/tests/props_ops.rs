//! Widened properties: every dtype and every element-wise operation family (arithmetic with
//! the documented integer semantics, division and remainder by zero, shifts, `pow`,
//! comparisons, bitwise operations, transcendentals), NaN and infinities, shapes of rank 0,
//! zero size and large enough for the multi-block, vectorised and grid-stride paths, and views
//! with an offset and a negative step; checked element by element against a scalar Rust
//! reference, exactly where the operation is exact and within a few ulp where the math library
//! rounds differently.

use cuprite_array::shape::SliceArg;
use cuprite_array::{Array, Device, Element, bf16, c32, c64, f16, with_device};
use cuprite_testkit::{Rng, Test, TestResult};

/// Draws the properties need from the test kit's generator.
trait Draw {
    fn below(&mut self, n: u64) -> u64;
    fn unit(&mut self) -> f64;
}
impl Draw for Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The shapes tried: rank 0, empty, small, and large (multi-block and vectorised; on CUDA
/// sometimes over 2^20 elements, which runs grid-stride loops; smaller on the CPU, where the
/// scalar reference dominates the time).
fn shapes(rng: &mut Rng) -> Vec<Vec<usize>> {
    let big = if cuprite_array::current_device() == Device::CPU {
        (1 << 14) + 3
    } else if rng.below(2) == 0 {
        (1 << 20) + 7
    } else {
        (1 << 17) + 3
    };
    vec![vec![], vec![0], vec![3, 0], vec![5], vec![7, 3], vec![big]]
}

/// `n` values from `src`, read through a view with an offset and a negative step (`strided`),
/// or contiguous; returns the array and the values in its order.
fn make<T: Element>(
    src: Vec<T>,
    shape: &[usize],
    strided: bool,
) -> Result<(Array<T>, Vec<T>), String> {
    let n: usize = shape.iter().product();
    if !strided || shape.len() != 1 || n == 0 {
        let v = src[..n].to_vec();
        return Ok((
            Array::from_vec(v.clone(), shape).map_err(|e| e.to_string())?,
            v,
        ));
    }
    // Elements 2n+1, 2n-1, ..., 3 of a buffer of 2n+2: offset 2n+1, step -2.
    let buf = src[..2 * n + 2].to_vec();
    let vals: Vec<T> = (0..n).map(|i| buf[2 * n + 1 - 2 * i]).collect();
    let a = Array::from_vec(buf, &[2 * n + 2])
        .and_then(|a| {
            a.slice(&[SliceArg::Range {
                start: Some(2 * n as isize + 1),
                end: Some(1),
                step: -2,
            }])
        })
        .map_err(|e| e.to_string())?;
    Ok((a, vals))
}

fn int_values(rng: &mut Rng, n: usize, min: i128, max: i128) -> Vec<i128> {
    (0..n)
        .map(|_| match rng.below(8) {
            0..=3 => rng.below(17) as i128 - 8,
            4 | 5 => {
                let span = (max - min + 1) as u128;
                min + ((rng.next_u64() as u128) % span) as i128
            }
            _ => [min, max, 0, -1, 1, 64, 65][rng.below(7) as usize].clamp(min, max),
        })
        .collect()
}

fn fail<T: std::fmt::Debug>(what: &str, i: usize, a: T, b: T, got: T, want: T) -> String {
    format!("{what}: element {i} ({a:?}, {b:?}): got {got:?}, expected {want:?}")
}

macro_rules! int_props {
    ($name:ident, $t:ty, $u:ty) => {
        fn $name(_: Device, rng: &mut Rng) -> Result<(), String> {
            const BITS: u32 = <$t>::BITS;
            let wpow = |x: $t, y: $t| -> $t {
                #[allow(unused_comparisons)]
                if y < 0 {
                    #[allow(unused_comparisons)]
                    return if x == 1 {
                        1
                    } else if (x as i128) == -1 {
                        if (y as i128) % 2 == 0 { 1 } else { x }
                    } else {
                        0
                    };
                }
                let (mut r, mut b, mut e): ($t, $t, u128) = (1, x, y as u128);
                while e > 0 {
                    if e & 1 == 1 {
                        r = r.wrapping_mul(b);
                    }
                    b = b.wrapping_mul(b);
                    e >>= 1;
                }
                r
            };
            let binops: [(
                &str,
                fn(&Array<$t>, &Array<$t>) -> Array<$t>,
                &dyn Fn($t, $t) -> $t,
            ); 13] = [
                ("add", |a, b| a + b, &|x: $t, y: $t| x.wrapping_add(y)),
                ("sub", |a, b| a - b, &|x: $t, y: $t| x.wrapping_sub(y)),
                ("mul", |a, b| a * b, &|x: $t, y: $t| x.wrapping_mul(y)),
                // NumPy: `//` floors, `%` takes the divisor's sign (computed in i128, wrapped
                // back); by zero both give 0.
                ("div", |a, b| a / b, &|x: $t, y: $t| {
                    let (x, y) = (x as i128, y as i128);
                    if y == 0 {
                        0
                    } else {
                        (x - (x % y + y) % y).wrapping_div(y) as $t
                    }
                }),
                ("rem", |a, b| a.rem(b), &|x: $t, y: $t| {
                    let (x, y) = (x as i128, y as i128);
                    if y == 0 { 0 } else { ((x % y + y) % y) as $t }
                }),
                ("min", |a, b| a.minimum(b), &|x: $t, y: $t| x.min(y)),
                ("max", |a, b| a.maximum(b), &|x: $t, y: $t| x.max(y)),
                ("and", |a, b| a & b, &|x: $t, y: $t| x & y),
                ("or", |a, b| a | b, &|x: $t, y: $t| x | y),
                ("xor", |a, b| a ^ b, &|x: $t, y: $t| x ^ y),
                ("shl", |a, b| a << b, &|x: $t, y: $t| {
                    x.wrapping_shl((y as $u as u32) % BITS)
                }),
                ("shr", |a, b| a >> b, &|x: $t, y: $t| {
                    x.wrapping_shr((y as $u as u32) % BITS)
                }),
                ("pow", |a, b| a.pow(b), &wpow),
            ];
            for shape in shapes(rng) {
                let n: usize = shape.iter().product();
                let strided = rng.below(2) == 0;
                let va: Vec<$t> = int_values(rng, 2 * n + 2, <$t>::MIN as i128, <$t>::MAX as i128)
                    .into_iter()
                    .map(|v| v as $t)
                    .collect();
                let vb: Vec<$t> = int_values(rng, 2 * n + 2, <$t>::MIN as i128, <$t>::MAX as i128)
                    .into_iter()
                    .map(|v| v as $t)
                    .collect();
                let (a, xa) = make(va, &shape, strided)?;
                let (b, xb) = make(vb, &shape, false)?;
                // Small exponents, so that pow is not all wrap-around.
                let xe: Vec<$t> = xb
                    .iter()
                    .map(|&v| (v as i128).rem_euclid(13) as $t)
                    .collect();
                let e = Array::from_vec(xe.clone(), &shape).map_err(|e| e.to_string())?;
                for (what, f, r) in &binops {
                    let rhs = if *what == "pow" { &e } else { &b };
                    let ys = if *what == "pow" { &xe } else { &xb };
                    let got = f(&a, rhs).to_vec().map_err(|e| format!("{what}: {e}"))?;
                    for i in 0..n {
                        let want = r(xa[i], ys[i]);
                        if got[i] != want {
                            return Err(fail(
                                &format!("{} {what} {shape:?}", stringify!($t)),
                                i,
                                xa[i],
                                ys[i],
                                got[i],
                                want,
                            ));
                        }
                    }
                }
                let lt = a.less(&b).to_vec().map_err(|e| e.to_string())?;
                let eq = a.equal(&b).to_vec().map_err(|e| e.to_string())?;
                let not = (!&a).to_vec().map_err(|e| e.to_string())?;
                for i in 0..n {
                    assert_eq!(lt[i], xa[i] < xb[i], "{} less {i}", stringify!($t));
                    assert_eq!(eq[i], xa[i] == xb[i], "{} equal {i}", stringify!($t));
                    assert_eq!(not[i], !xa[i], "{} not {i}", stringify!($t));
                }
                // Sums wrap into the accumulator type, exactly, in any order.
                let s = a.sum().and_then(|s| s.item()).map_err(|e| e.to_string())?;
                let want = xa.iter().fold(0 as _, |acc: <$t as Element>::Accum, &v| {
                    acc.wrapping_add(v as _)
                });
                if s != want {
                    return Err(format!(
                        "{} sum {shape:?}: got {s}, expected {want}",
                        stringify!($t)
                    ));
                }
            }
            Ok(())
        }
    };
}

int_props!(props_u8, u8, u8);
int_props!(props_u16, u16, u16);
int_props!(props_u32, u32, u32);
int_props!(props_u64, u64, u64);
int_props!(props_i8, i8, u8);
int_props!(props_i16, i16, u16);
int_props!(props_i32, i32, u32);
int_props!(props_i64, i64, u64);

fn float_values(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match rng.below(16) {
            0..=9 => (rng.unit() * 2.0 - 1.0) * 8.0,
            10 | 11 => rng.below(9) as f64 - 4.0,
            12 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][rng.below(3) as usize],
            13 => [0.0, -0.0, 0.5, -0.5][rng.below(4) as usize],
            _ => (rng.unit() * 2.0 - 1.0) * 1e3,
        })
        .collect()
}

/// Within `ulps` units of `want`'s precision `eps`, NaN matching NaN, infinities exact.
fn near(got: f64, want: f64, ulps: f64, eps: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want || (got - want).abs() <= ulps * eps * want.abs().max(f64::MIN_POSITIVE);
    }
    got == want || (got - want).abs() <= ulps * eps * want.abs().max(eps)
}

macro_rules! float_props {
    ($name:ident, $t:ty, $to:expr, $from:expr, $eps:expr) => {
        fn $name(d: Device, rng: &mut Rng) -> Result<(), String> {
            let to: fn($t) -> f64 = $to;
            let from: fn(f64) -> $t = $from;
            // Exactly rounded operations (the result of the exact value, rounded once): 0 ulp.
            // Half types compute in f32 and round once: the f32 result rounded to the type.
            type Bin = fn(&Array<$t>, &Array<$t>) -> Array<$t>;
            let binops: [(&str, Bin, fn(f64, f64) -> f64, f64); 8] = [
                ("add", |a, b| a + b, |x, y| x + y, 0.0),
                ("mul", |a, b| a * b, |x, y| x * y, 0.0),
                ("div", |a, b| a / b, |x, y| x / y, 0.0),
                ("rem", |a, b| a.rem(b), |x, y| {
                    let m = x % y;
                    if m != 0.0 && (m < 0.0) != (y < 0.0) { m + y } else { m }
                }, 0.0),
                ("min", |a, b| a.minimum(b), |x, y| if x.is_nan() || y.is_nan() { f64::NAN } else { x.min(y) }, 0.0),
                ("max", |a, b| a.maximum(b), |x, y| if x.is_nan() || y.is_nan() { f64::NAN } else { x.max(y) }, 0.0),
                ("pow", |a, b| a.pow(b), |x, y| x.powf(y), 8.0),
                ("atan2", |a, b| a.atan2(b), |x, y| x.atan2(y), 4.0),
            ];
            type Un = fn(&Array<$t>) -> Array<$t>;
            let unops: [(&str, Un, fn(f64) -> f64, f64); 11] = [
                ("sqrt", |a| a.sqrt(), f64::sqrt, 0.0),
                ("floor", |a| a.floor(), f64::floor, 0.0),
                ("round", |a| a.round(), f64::round_ties_even, 0.0),
                ("abs", |a| a.abs(), f64::abs, 0.0),
                ("neg", |a| -a, |x| -x, 0.0),
                ("exp", |a| a.exp(), f64::exp, 4.0),
                ("log", |a| a.log(), f64::ln, 4.0),
                ("sin", |a| a.sin(), f64::sin, 4.0),
                ("tanh", |a| a.tanh(), f64::tanh, 4.0),
                ("atan", |a| a.atan(), f64::atan, 4.0),
                ("cbrt", |a| a.cbrt(), f64::cbrt, 4.0),
            ];
            // The reference of an operation computed in the type's class (f32 for half types).
            let narrow = |x: f64| -> f64 {
                if std::mem::size_of::<$t>() == 2 { to(from(x as f32 as f64)) } else { to(from(x)) }
            };
            for shape in shapes(rng) {
                let n: usize = shape.iter().product();
                let strided = rng.below(2) == 0;
                let va: Vec<$t> = float_values(rng, 2 * n + 2).into_iter().map(from).collect();
                let vb: Vec<$t> = float_values(rng, 2 * n + 2).into_iter().map(from).collect();
                let (a, xa) = make(va, &shape, strided)?;
                let (b, xb) = make(vb, &shape, false)?;
                let class = |x: f64| if std::mem::size_of::<$t>() == 4 || std::mem::size_of::<$t>() == 2 { x as f32 as f64 } else { x };
                for (what, f, r, ulps) in &binops {
                    let got = f(&a, &b).to_vec().map_err(|e| format!("{what}: {e}"))?;
                    for i in 0..n {
                        let (x, y) = (to(xa[i]), to(xb[i]));
                        let want = narrow(class(r(x, y)));
                        let g = to(got[i]);
                        if !near(g, want, *ulps + if *ulps > 0.0 { 1.0 } else { 0.0 }, $eps) {
                            return Err(format!("{} {what} {shape:?}: element {i} ({x}, {y}): got {g}, expected {want}", stringify!($t)));
                        }
                    }
                }
                for (what, f, r, ulps) in &unops {
                    let got = f(&a).to_vec().map_err(|e| format!("{what}: {e}"))?;
                    for i in 0..n {
                        let x = to(xa[i]);
                        let want = narrow(class(r(x)));
                        let g = to(got[i]);
                        if !near(g, want, *ulps + if *ulps > 0.0 { 1.0 } else { 0.0 }, $eps) {
                            return Err(format!("{} {what} {shape:?}: element {i} ({x}): got {g}, expected {want}", stringify!($t)));
                        }
                    }
                }
                let lt = a.less(&b).to_vec().map_err(|e| e.to_string())?;
                let nan = a.isnan().to_vec().map_err(|e| e.to_string())?;
                let ne = a.not_equal(&b).to_vec().map_err(|e| e.to_string())?;
                for i in 0..n {
                    let (x, y) = (to(xa[i]), to(xb[i]));
                    assert_eq!(lt[i], x < y, "{} less ({x}, {y})", stringify!($t));
                    assert_eq!(ne[i], x != y, "{} not_equal ({x}, {y})", stringify!($t));
                    assert_eq!(nan[i], x.is_nan(), "{} isnan ({x})", stringify!($t));
                }
            }
            let _ = d;
            Ok(())
        }
    };
}

float_props!(props_f64, f64, |x| x, |x| x, f64::EPSILON);
float_props!(
    props_f32,
    f32,
    |x| x as f64,
    |x| x as f32,
    f32::EPSILON as f64
);
float_props!(
    props_f16,
    f16,
    |x| x.to_f64(),
    f16::from_f64,
    2f64.powi(-10)
);
float_props!(
    props_bf16,
    bf16,
    |x| x.to_f64(),
    bf16::from_f64,
    2f64.powi(-7)
);

/// Complex arithmetic against `num_complex`, bool logic, and casts between every pair of
/// integer widths (wrapping) on the large strided shapes too.
fn props_complex_bool_casts(_: Device, rng: &mut Rng) -> Result<(), String> {
    for shape in shapes(rng) {
        let n: usize = shape.iter().product();
        // Finite parts (NaN and infinities are covered by the real types above).
        let re: Vec<f64> = float_values(rng, 4 * n + 4)
            .into_iter()
            .map(|x| if x.is_finite() { x } else { 1.5 })
            .collect();
        let za: Vec<c64> = (0..2 * n + 2)
            .map(|i| c64::new(re[2 * i], re[2 * i + 1] * 0.5))
            .collect();
        let zb: Vec<c64> = za.iter().rev().map(|z| z.conj() * 0.75).collect();
        let (a, xa) = make(za, &shape, rng.below(2) == 0)?;
        let (b, xb) = make(zb, &shape, false)?;
        let add = (&a + &b).to_vec().map_err(|e| e.to_string())?;
        let mul = (&a * &b).to_vec().map_err(|e| e.to_string())?;
        let conj = a.conj().to_vec().map_err(|e| e.to_string())?;
        let a32 = a.cast::<c32>().to_vec().map_err(|e| e.to_string())?;
        for i in 0..n {
            let same = |g: c64, w: c64| {
                near(
                    g.re,
                    w.re,
                    4.0,
                    f64::EPSILON * (1.0 + w.norm() / w.re.abs().max(1e-300)),
                ) && near(
                    g.im,
                    w.im,
                    4.0,
                    f64::EPSILON * (1.0 + w.norm() / w.im.abs().max(1e-300)),
                )
            };
            if !same(add[i], xa[i] + xb[i]) || conj[i] != xa[i].conj() {
                return Err(format!(
                    "c64 add/conj element {i}: {:?} {:?}",
                    add[i], conj[i]
                ));
            }
            let w = xa[i] * xb[i];
            if w.re.is_finite() && w.im.is_finite() && !same(mul[i], w) {
                return Err(format!(
                    "c64 mul element {i}: got {:?}, expected {w:?}",
                    mul[i]
                ));
            }
            let c = c32::new(xa[i].re as f32, xa[i].im as f32);
            let ok = |g: f32, w: f32| g == w || (g.is_nan() && w.is_nan());
            if !ok(a32[i].re, c.re) || !ok(a32[i].im, c.im) {
                return Err(format!("c64 -> c32 element {i}: {:?}", a32[i]));
            }
        }
        let bits: Vec<bool> = (0..2 * n + 2).map(|_| rng.below(2) == 0).collect();
        let (p, xp) = make(bits.clone(), &shape, true)?;
        let (q, xq) = make(bits.iter().rev().copied().collect(), &shape, false)?;
        let and = p.and(&q).to_vec().map_err(|e| e.to_string())?;
        let xor = p.xor(&q).to_vec().map_err(|e| e.to_string())?;
        let cnt = p
            .count()
            .and_then(|c| c.item())
            .map_err(|e| e.to_string())?;
        for i in 0..n {
            assert_eq!(and[i], xp[i] && xq[i]);
            assert_eq!(xor[i], xp[i] ^ xq[i]);
        }
        assert_eq!(cnt as usize, xp.iter().filter(|&&b| b).count());
        let iv: Vec<i64> = int_values(rng, 2 * n + 2, i64::MIN as i128, i64::MAX as i128)
            .into_iter()
            .map(|v| v as i64)
            .collect();
        let (x, xv) = make(iv, &shape, true)?;
        let u8s = x.cast::<u8>().to_vec().map_err(|e| e.to_string())?;
        let i16s = x.cast::<i16>().to_vec().map_err(|e| e.to_string())?;
        let u32s = x.cast::<u32>().to_vec().map_err(|e| e.to_string())?;
        let bs = x.cast::<bool>().to_vec().map_err(|e| e.to_string())?;
        for i in 0..n {
            assert_eq!(u8s[i], xv[i] as u8);
            assert_eq!(i16s[i], xv[i] as i16);
            assert_eq!(u32s[i], xv[i] as u32);
            assert_eq!(bs[i], xv[i] != 0);
        }
    }
    Ok(())
}

type Prop = fn(Device, &mut Rng) -> Result<(), String>;

const PROPS: &[(&str, Prop)] = &[
    ("u8", props_u8),
    ("u16", props_u16),
    ("u32", props_u32),
    ("u64", props_u64),
    ("i8", props_i8),
    ("i16", props_i16),
    ("i32", props_i32),
    ("i64", props_i64),
    ("f64", props_f64),
    ("f32", props_f32),
    ("f16", props_f16),
    ("bf16", props_bf16),
    ("complex_bool_casts", props_complex_bool_casts),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, p) in PROPS {
        for (dev, label) in [(Device::CPU, "cpu"), (Device::cuda(0), "cuda")] {
            let body = move || -> TestResult {
                let mut rng = Rng::fresh();
                with_device(dev, || p(dev, &mut rng)).map_err(|e| e.into())
            };
            v.push(if label == "cpu" {
                Test::cpu(format!("props::ops::{label}::{name}"), body)
            } else {
                Test::gpu(format!("props::ops::{label}::{name}"), body)
            });
        }
    }
    v
}
