//! The element-wise operations of the CPU evaluator over chunks of values, with the
//! semantics documented in [`crate::ops`].

use super::mathx;
use super::values::Vals;
use crate::dtype::{Class, DType, c32, c64};
use crate::op::{BinaryOp, UnaryOp};
use crate::special;

macro_rules! map1 {
    ($v:expr, $Var:ident, $f:expr) => {
        Vals::$Var($v.iter().map(|&x| $f(x)).collect())
    };
}
macro_rules! map2 {
    ($a:expr, $b:expr, $Var:ident, $f:expr) => {
        Vals::$Var($a.iter().zip($b.iter()).map(|(&x, &y)| $f(x, y)).collect())
    };
}

macro_rules! float_unary {
    ($op:expr, $v:expr, $T:ident, $Var:ident) => {{
        use UnaryOp::*;
        let v = $v;
        match $op {
            Neg => map1!(v, $Var, |x: $T| -x),
            Abs => map1!(v, $Var, |x: $T| x.abs()),
            Sign => map1!(v, $Var, |x: $T| if x.is_nan() || x == 0.0 {
                x
            } else {
                x.signum()
            }),
            Floor => map1!(v, $Var, |x: $T| x.floor()),
            Ceil => map1!(v, $Var, |x: $T| x.ceil()),
            Round => map1!(v, $Var, |x: $T| x.round_ties_even()),
            Trunc => map1!(v, $Var, |x: $T| x.trunc()),
            Sqrt => map1!(v, $Var, |x: $T| x.sqrt()),
            Rsqrt => map1!(v, $Var, |x: $T| 1.0 / x.sqrt()),
            Cbrt => map1!(v, $Var, |x: $T| x.cbrt()),
            Exp => map1!(v, $Var, |x: $T| x.exp()),
            Exp2 => map1!(v, $Var, |x: $T| x.exp2()),
            Expm1 => map1!(v, $Var, |x: $T| x.exp_m1()),
            Log => map1!(v, $Var, |x: $T| x.ln()),
            Log2 => map1!(v, $Var, |x: $T| x.log2()),
            Log10 => map1!(v, $Var, |x: $T| x.log10()),
            Log1p => map1!(v, $Var, |x: $T| x.ln_1p()),
            Sin => map1!(v, $Var, |x: $T| x.sin()),
            Cos => map1!(v, $Var, |x: $T| x.cos()),
            Tan => map1!(v, $Var, |x: $T| x.tan()),
            Asin => map1!(v, $Var, |x: $T| x.asin()),
            Acos => map1!(v, $Var, |x: $T| x.acos()),
            Atan => map1!(v, $Var, |x: $T| x.atan()),
            Sinh => map1!(v, $Var, |x: $T| x.sinh()),
            Cosh => map1!(v, $Var, |x: $T| x.cosh()),
            Tanh => map1!(v, $Var, |x: $T| x.tanh()),
            Asinh => map1!(v, $Var, |x: $T| x.asinh()),
            Acosh => map1!(v, $Var, |x: $T| x.acosh()),
            Atanh => map1!(v, $Var, |x: $T| x.atanh()),
            Erf => map1!(v, $Var, |x: $T| special::erf(x as f64) as $T),
            Erfc => map1!(v, $Var, |x: $T| special::erfc(x as f64) as $T),
            Lgamma => map1!(v, $Var, |x: $T| special::lgamma(x as f64) as $T),
            Tgamma => map1!(v, $Var, |x: $T| special::tgamma(x as f64) as $T),
            Sigmoid => map1!(v, $Var, |x: $T| 1.0 / (1.0 + (-x).exp())),
            IsNan => Vals::U64(v.iter().map(|x| x.is_nan() as u64).collect()),
            IsInf => Vals::U64(v.iter().map(|x| x.is_infinite() as u64).collect()),
            IsFinite => Vals::U64(v.iter().map(|x| x.is_finite() as u64).collect()),
            FrexpMant => map1!(v, $Var, |x: $T| mathx::frexp(x as f64).0 as $T),
            FrexpExp => Vals::I64(v.iter().map(|&x| mathx::frexp(x as f64).1 as i64).collect()),
            ModfFrac => map1!(v, $Var, |x: $T| if x.is_infinite() {
                (0.0 as $T).copysign(x)
            } else {
                (x - x.trunc()).copysign(x)
            }),
            I0 => map1!(v, $Var, |x: $T| mathx::i0(x as f64) as $T),
            SignBit => Vals::U64(
                v.iter()
                    .map(|x| (!x.is_nan() && x.is_sign_negative()) as u64)
                    .collect(),
            ),
            o => unreachable!("{o:?} on a float"),
        }
    }};
}

macro_rules! complex_unary {
    ($op:expr, $v:expr, $T:ident, $C:ident, $Var:ident, $RVar:ident) => {{
        use UnaryOp::*;
        let v = $v;
        match $op {
            Neg => map1!(v, $Var, |z: $C| -z),
            Conj => map1!(v, $Var, |z: $C| $C::new(z.re, -z.im)),
            Real => map1!(v, $RVar, |z: $C| z.re),
            Imag => map1!(v, $RVar, |z: $C| z.im),
            Abs => map1!(v, $RVar, |z: $C| z.re.hypot(z.im)),
            Arg => map1!(v, $RVar, |z: $C| z.im.atan2(z.re)),
            Exp => map1!(v, $Var, |z: $C| {
                let e = z.re.exp();
                $C::new(e * z.im.cos(), e * z.im.sin())
            }),
            Log => map1!(v, $Var, |z: $C| $C::new(
                z.re.hypot(z.im).ln(),
                z.im.atan2(z.re)
            )),
            Sqrt => map1!(v, $Var, |z: $C| {
                let r = z.re.hypot(z.im);
                if r == 0.0 {
                    $C::new(0.0, z.im)
                } else if z.re >= 0.0 {
                    let t = ((r + z.re) * 0.5).sqrt();
                    $C::new(t, z.im / (2.0 * t))
                } else {
                    let t = ((r - z.re) * 0.5).sqrt();
                    $C::new(z.im.abs() / (2.0 * t), t.copysign(z.im))
                }
            }),
            o => unreachable!("{o:?} on a complex"),
        }
    }};
}

pub(crate) fn unary(op: UnaryOp, d: DType, v: &Vals) -> Vals {
    use UnaryOp::*;
    match v {
        Vals::F32(v) => float_unary!(op, v, f32, F32),
        Vals::F64(v) => float_unary!(op, v, f64, F64),
        Vals::C32(v) => complex_unary!(op, v, f32, c32, C32, F32),
        Vals::C64(v) => complex_unary!(op, v, f64, c64, C64, F64),
        Vals::I64(v) => match op {
            Neg => map1!(v, I64, |x: i64| x.wrapping_neg()),
            Abs => map1!(v, I64, |x: i64| x.wrapping_abs()),
            Sign => map1!(v, I64, |x: i64| x.signum()),
            BitNot => map1!(v, I64, |x: i64| !x),
            BitCount => Vals::U64(
                v.iter()
                    .map(|x| x.unsigned_abs().count_ones() as u64)
                    .collect(),
            ),
            o => unreachable!("{o:?} on {d}"),
        },
        Vals::U64(v) => match op {
            Neg => map1!(v, U64, |x: u64| x.wrapping_neg()),
            Abs => map1!(v, U64, |x: u64| x),
            Sign => map1!(v, U64, |x: u64| (x != 0) as u64),
            BitNot => map1!(v, U64, |x: u64| !x),
            Not => map1!(v, U64, |x: u64| (x == 0) as u64),
            BitCount => map1!(v, U64, |x: u64| x.count_ones() as u64),
            o => unreachable!("{o:?} on {d}"),
        },
    }
}

/// A float for [`fmin`] and [`fmax`]: NaN and sign-bit tests.
pub(super) trait MinMaxFloat: PartialOrd + Copy {
    /// Whether the value is a NaN.
    fn nan(self) -> bool;
    /// Whether the sign bit is set (`-0.0` included).
    fn negative(self) -> bool;
}
impl MinMaxFloat for f32 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn negative(self) -> bool {
        self.is_sign_negative()
    }
}
impl MinMaxFloat for f64 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn negative(self) -> bool {
        self.is_sign_negative()
    }
}

/// The smaller of `x` and `y`: NaN if either is NaN (the first one), and `-0.0` below `+0.0`
/// (IEEE 754-2019 `minimum`), so a reduction's result does not depend on its order.
pub(super) fn fmin<T: MinMaxFloat>(x: T, y: T) -> T {
    if x.nan() {
        x
    } else if y.nan() || y < x || (y == x && y.negative()) {
        y
    } else {
        x
    }
}
/// The larger of `x` and `y`: NaN if either is NaN (the first one), and `+0.0` above `-0.0`
/// (IEEE 754-2019 `maximum`).
pub(super) fn fmax<T: MinMaxFloat>(x: T, y: T) -> T {
    if x.nan() {
        x
    } else if y.nan() || y > x || (y == x && !y.negative()) {
        y
    } else {
        x
    }
}

macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr, $T:ident, $Var:ident) => {{
        use BinaryOp::*;
        let (a, b) = ($a, $b);
        match $op {
            Add => map2!(a, b, $Var, |x: $T, y: $T| x + y),
            Sub => map2!(a, b, $Var, |x: $T, y: $T| x - y),
            Mul => map2!(a, b, $Var, |x: $T, y: $T| x * y),
            Div => map2!(a, b, $Var, |x: $T, y: $T| x / y),
            Rem => map2!(a, b, $Var, |x: $T, y: $T| {
                // NumPy's rule: the divisor's sign; a zero result is a zero of that sign.
                let m = x % y;
                if m != 0.0 {
                    if (m < 0.0) != (y < 0.0) { m + y } else { m }
                } else if y < 0.0 {
                    -0.0
                } else {
                    0.0
                }
            }),
            Fmod => map2!(a, b, $Var, |x: $T, y: $T| x % y),
            Pow => map2!(a, b, $Var, |x: $T, y: $T| x.powf(y)),
            Min => map2!(a, b, $Var, |x: $T, y: $T| fmin(x, y)),
            Max => map2!(a, b, $Var, |x: $T, y: $T| fmax(x, y)),
            Atan2 => map2!(a, b, $Var, |x: $T, y: $T| x.atan2(y)),
            Hypot => map2!(a, b, $Var, |x: $T, y: $T| x.hypot(y)),
            Ldexp => map2!(a, b, $Var, |x: $T, y: $T| mathx::ldexp(x as f64, y as f64)
                as $T),
            Copysign => map2!(a, b, $Var, |x: $T, y: $T| if y.is_nan() {
                x.abs()
            } else {
                x.copysign(y)
            }),
            Eq => map2!(a, b, U64, |x: $T, y: $T| (x == y) as u64),
            Ne => map2!(a, b, U64, |x: $T, y: $T| (x != y) as u64),
            Lt => map2!(a, b, U64, |x: $T, y: $T| (x < y) as u64),
            Le => map2!(a, b, U64, |x: $T, y: $T| (x <= y) as u64),
            Gt => map2!(a, b, U64, |x: $T, y: $T| (x > y) as u64),
            Ge => map2!(a, b, U64, |x: $T, y: $T| (x >= y) as u64),
            o => unreachable!("{o:?} on a float"),
        }
    }};
}

macro_rules! complex_binary {
    ($op:expr, $a:expr, $b:expr, $C:ident, $Var:ident) => {{
        use BinaryOp::*;
        let (a, b) = ($a, $b);
        match $op {
            Add => map2!(a, b, $Var, |x: $C, y: $C| $C::new(x.re + y.re, x.im + y.im)),
            Sub => map2!(a, b, $Var, |x: $C, y: $C| $C::new(x.re - y.re, x.im - y.im)),
            Mul => map2!(a, b, $Var, |x: $C, y: $C| $C::new(
                x.re * y.re - x.im * y.im,
                x.re * y.im + x.im * y.re
            )),
            Div => map2!(a, b, $Var, |x: $C, y: $C| {
                let d = y.re * y.re + y.im * y.im;
                $C::new(
                    (x.re * y.re + x.im * y.im) / d,
                    (x.im * y.re - x.re * y.im) / d,
                )
            }),
            Eq => map2!(a, b, U64, |x: $C, y: $C| (x.re == y.re && x.im == y.im)
                as u64),
            Ne => map2!(a, b, U64, |x: $C, y: $C| (x.re != y.re || x.im != y.im)
                as u64),
            o => unreachable!("{o:?} on a complex"),
        }
    }};
}

/// Integer division that floors and the remainder that goes with it (`x == q * y + r`, `r`
/// with `y`'s sign), NumPy's `//` and `%`; by zero both give 0, `MIN // -1` wraps to `MIN`.
trait FloorInt: Sized {
    fn floor_div(self, y: Self) -> Self;
    fn floor_mod(self, y: Self) -> Self;
}
impl FloorInt for i64 {
    fn floor_div(self, y: i64) -> i64 {
        if y == 0 {
            return 0;
        }
        let q = self.wrapping_div(y);
        if self.wrapping_rem(y) != 0 && ((self < 0) != (y < 0)) {
            q - 1
        } else {
            q
        }
    }
    fn floor_mod(self, y: i64) -> i64 {
        if y == 0 {
            return 0;
        }
        let r = self.wrapping_rem(y);
        if r != 0 && ((r < 0) != (y < 0)) {
            r + y
        } else {
            r
        }
    }
}
impl FloorInt for u64 {
    fn floor_div(self, y: u64) -> u64 {
        self.checked_div(y).unwrap_or(0)
    }
    fn floor_mod(self, y: u64) -> u64 {
        self.checked_rem(y).unwrap_or(0)
    }
}

/// The magnitude as `u64` (`i64::MIN`'s included).
trait UAbs {
    fn uabs(self) -> u64;
}
impl UAbs for i64 {
    fn uabs(self) -> u64 {
        self.unsigned_abs()
    }
}
impl UAbs for u64 {
    fn uabs(self) -> u64 {
        self
    }
}

fn ipow_i(mut b: i64, e: i64) -> i64 {
    if e < 0 {
        return match b {
            1 => 1,
            -1 => {
                if e % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    let mut e = e as u64;
    let mut r: i64 = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    r
}

fn ipow_u(mut b: u64, mut e: u64) -> u64 {
    let mut r: u64 = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    r
}

macro_rules! int_binary {
    ($op:expr, $a:expr, $b:expr, $T:ident, $Var:ident, $bits:expr, $pow:expr) => {{
        use BinaryOp::*;
        let (a, b) = ($a, $b);
        let mask = ($bits - 1) as u32;
        match $op {
            Add => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_add(y)),
            Sub => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_sub(y)),
            Mul => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_mul(y)),
            Div => map2!(a, b, $Var, |x: $T, y: $T| x.floor_div(y)),
            Rem => map2!(a, b, $Var, |x: $T, y: $T| x.floor_mod(y)),
            Fmod => map2!(a, b, $Var, |x: $T, y: $T| if y == 0 {
                0
            } else {
                x.wrapping_rem(y)
            }),
            Pow => map2!(a, b, $Var, $pow),
            Min => map2!(a, b, $Var, |x: $T, y: $T| x.min(y)),
            Max => map2!(a, b, $Var, |x: $T, y: $T| x.max(y)),
            Eq => map2!(a, b, U64, |x: $T, y: $T| (x == y) as u64),
            Ne => map2!(a, b, U64, |x: $T, y: $T| (x != y) as u64),
            Lt => map2!(a, b, U64, |x: $T, y: $T| (x < y) as u64),
            Le => map2!(a, b, U64, |x: $T, y: $T| (x <= y) as u64),
            Gt => map2!(a, b, U64, |x: $T, y: $T| (x > y) as u64),
            Ge => map2!(a, b, U64, |x: $T, y: $T| (x >= y) as u64),
            And => map2!(a, b, $Var, |x: $T, y: $T| ((x != 0) && (y != 0)) as $T),
            Or => map2!(a, b, $Var, |x: $T, y: $T| ((x != 0) || (y != 0)) as $T),
            Xor => map2!(a, b, $Var, |x: $T, y: $T| ((x != 0) != (y != 0)) as $T),
            BitAnd => map2!(a, b, $Var, |x: $T, y: $T| x & y),
            BitOr => map2!(a, b, $Var, |x: $T, y: $T| x | y),
            BitXor => map2!(a, b, $Var, |x: $T, y: $T| x ^ y),
            Shl => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_shl((y as u32) & mask)),
            Shr => map2!(a, b, $Var, |x: $T, y: $T| x.wrapping_shr((y as u32) & mask)),
            Gcd => map2!(a, b, $Var, |x: $T, y: $T| mathx::gcd(x.uabs(), y.uabs())
                as $T),
            Lcm => map2!(a, b, $Var, |x: $T, y: $T| mathx::lcm(x.uabs(), y.uabs())
                as $T),
            o => unreachable!("{o:?} on an integer"),
        }
    }};
}

pub(crate) fn binary(op: BinaryOp, d: DType, a: &Vals, b: &Vals) -> Vals {
    if op == BinaryOp::Nextafter {
        // In the precision of `d` (the half types are held as `f32`).
        return match (a, b) {
            (Vals::F32(a), Vals::F32(b)) => {
                map2!(
                    a,
                    b,
                    F32,
                    |x: f32, y: f32| mathx::nextafter(d, x as f64, y as f64) as f32
                )
            }
            (Vals::F64(a), Vals::F64(b)) => {
                map2!(a, b, F64, |x: f64, y: f64| mathx::nextafter(d, x, y))
            }
            _ => unreachable!("nextafter on {d}"),
        };
    }
    match (a, b) {
        (Vals::F32(a), Vals::F32(b)) => float_binary!(op, a, b, f32, F32),
        (Vals::F64(a), Vals::F64(b)) => float_binary!(op, a, b, f64, F64),
        (Vals::C32(a), Vals::C32(b)) => complex_binary!(op, a, b, c32, C32),
        (Vals::C64(a), Vals::C64(b)) => complex_binary!(op, a, b, c64, C64),
        (Vals::I64(a), Vals::I64(b)) => {
            int_binary!(op, a, b, i64, I64, d.bits(), |x: i64, y: i64| ipow_i(x, y))
        }
        (Vals::U64(a), Vals::U64(b)) => {
            int_binary!(op, a, b, u64, U64, d.bits(), |x: u64, y: u64| ipow_u(x, y))
        }
        _ => unreachable!("binary {op:?} on mismatched classes"),
    }
}

pub(super) fn select(c: &Vals, a: &Vals, b: &Vals) -> Vals {
    let Vals::U64(c) = c else {
        unreachable!("select condition must be bool")
    };
    macro_rules! sel {
        ($x:expr, $y:expr, $Var:ident) => {
            Vals::$Var(
                c.iter()
                    .zip($x.iter().zip($y.iter()))
                    .map(|(&k, (&x, &y))| if k != 0 { x } else { y })
                    .collect(),
            )
        };
    }
    match (a, b) {
        (Vals::F32(x), Vals::F32(y)) => sel!(x, y, F32),
        (Vals::F64(x), Vals::F64(y)) => sel!(x, y, F64),
        (Vals::I64(x), Vals::I64(y)) => sel!(x, y, I64),
        (Vals::U64(x), Vals::U64(y)) => sel!(x, y, U64),
        (Vals::C32(x), Vals::C32(y)) => sel!(x, y, C32),
        (Vals::C64(x), Vals::C64(y)) => sel!(x, y, C64),
        _ => unreachable!("select branches of different classes"),
    }
}

pub(super) fn cast(v: &Vals, to: DType) -> Vals {
    match (v, to.class()) {
        (Vals::F32(x), Class::F32) => Vals::F32(x.clone()),
        (Vals::F32(x), Class::F64) => map1!(x, F64, |x: f32| x as f64),
        (Vals::F64(x), Class::F32) => map1!(x, F32, |x: f64| x as f32),
        (Vals::I64(x), Class::F32) => map1!(x, F32, |x: i64| x as f32),
        (Vals::U64(x), Class::F32) => map1!(x, F32, |x: u64| x as f32),
        _ => Vals::from_scalars(to, (0..v.len()).map(|i| v.get(i).cast(to))),
    }
}
