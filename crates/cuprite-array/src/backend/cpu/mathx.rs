//! Scalar helpers of the CPU evaluator for the floating-point decompositions and integer
//! functions of the operation table (`frexp`, `ldexp`, `nextafter`, `i0`, `gcd`, `lcm`), with
//! the semantics their CUDA twins in the prelude compute.

use crate::dtype::DType;
use half::{bf16, f16};

/// `(m, e)` with `x = m * 2^e` and `0.5 <= |m| < 1`; zero, infinities and NaN give `(x, 0)`.
/// Exact for every `f64` (subnormals included), so also for every narrower float.
pub(super) fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    // A subnormal is scaled into the normal range first (by 2^64, exactly).
    let (y, shift) = if x.abs() < f64::MIN_POSITIVE {
        (x * f64::from_bits(0x43f0_0000_0000_0000), -64)
    } else {
        (x, 0)
    };
    let bits = y.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    // The exponent field set to 1022 puts the magnitude in [0.5, 1).
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022u64 << 52));
    (m, biased - 1022 + shift)
}

/// `x * 2^n`, rounded once (as C's `scalbn`): the scale is applied in steps that are exact
/// until the last, which rounds.
pub(super) fn scalbn(mut x: f64, mut n: i32) -> f64 {
    let p2 = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
    if n > 1023 {
        x *= p2(1023);
        n -= 1023;
        if n > 1023 {
            x *= p2(1023);
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        // 2^-1022 * 2^53: stays normal, so only the final product rounds.
        x *= p2(-1022) * p2(53);
        n += 1022 - 53;
        if n < -1022 {
            x *= p2(-1022) * p2(53);
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    x * p2(n)
}

/// The exponent operand of `ldexp` as an integer: truncated and clamped to a range beyond
/// which every result is already 0 or infinite.
pub(super) fn ldexp_exp(e: f64) -> i32 {
    e.clamp(-2200.0, 2200.0) as i32
}

/// `ldexp(x, e)` of an `f64`; NaN exponent gives NaN.
pub(super) fn ldexp(x: f64, e: f64) -> f64 {
    if e.is_nan() {
        return e;
    }
    scalbn(x, ldexp_exp(e))
}

/// The representable value after `x` towards `y` in a sign-magnitude format whose bits
/// `to`/`from` convert (`sign`: its sign bit; bits 1 are its smallest subnormal).
fn next_bits(x: f64, y: f64, to: impl Fn(f64) -> u64, from: impl Fn(u64) -> f64, sign: u64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        let t = from(1);
        return if y > 0.0 { t } else { from(sign | 1) };
    }
    let b = to(x);
    // Away from zero when moving in the direction of x's sign.
    let up = (y > x) == (x > 0.0);
    from(if up { b + 1 } else { b - 1 })
}

/// `nextafter` in the precision of `d` (a real float dtype; values given as `f64`).
pub(super) fn nextafter(d: DType, x: f64, y: f64) -> f64 {
    match d {
        DType::F64 => next_bits(x, y, f64::to_bits, f64::from_bits, 1 << 63),
        DType::F16 => next_bits(
            x,
            y,
            |v| f16::from_f64(v).to_bits() as u64,
            |b| f16::from_bits(b as u16).to_f64(),
            1 << 15,
        ),
        DType::BF16 => next_bits(
            x,
            y,
            |v| bf16::from_f64(v).to_bits() as u64,
            |b| bf16::from_bits(b as u16).to_f64(),
            1 << 15,
        ),
        _ => next_bits(
            x,
            y,
            |v| (v as f32).to_bits() as u64,
            |b| f32::from_bits(b as u32) as f64,
            1 << 31,
        ),
    }
}

/// The modified Bessel function of the first kind of order 0: its power series
/// `sum ((x/2)^k / k!)^2` up to `|x| = 30`, the asymptotic series
/// `e^x / sqrt(2 pi x) * sum prod_j (2j-1)^2 / (8 j x)` beyond.
pub(crate) fn i0(x: f64) -> f64 {
    let ax = x.abs();
    if !ax.is_finite() {
        return ax;
    }
    if ax <= 30.0 {
        let q = 0.25 * ax * ax;
        let (mut term, mut sum) = (1.0f64, 1.0f64);
        for k in 1..200 {
            let k = k as f64;
            term *= q / (k * k);
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        return sum;
    }
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..40 {
        let j = (2 * k - 1) as f64;
        term *= j * j / (8.0 * k as f64 * ax);
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    // e^x split in two halves so that the quotient reaches the top of the range.
    let h = (0.5 * ax).exp();
    h * (h / (2.0 * std::f64::consts::PI * ax).sqrt()) * sum
}

/// The greatest common divisor of `a` and `b`.
pub(super) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The least common multiple of `a` and `b` (0 when either is), wrapping.
pub(super) fn lcm(a: u64, b: u64) -> u64 {
    let g = gcd(a, b);
    a.checked_div(g).map_or(0, |q| q.wrapping_mul(b))
}
