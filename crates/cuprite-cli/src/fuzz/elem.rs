//! Element values of fuzz programs: how random data of each dtype is made ([`FuzzElem`]), how
//! a value is compared ([`Val`]) and written as a Rust literal.

use super::rng::Rng;
use cuprite_array::{Element, bf16, c32, c64, f16};

/// A value read back, in a form both backends' results compare in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// An integer or `bool` (exact).
    Int(i128),
    /// A real float.
    Real(f64),
    /// A complex float.
    Cplx(f64, f64),
}

/// An element type the fuzzer makes data of.
pub trait FuzzElem: Element {
    /// A value of this type near `x` (saturating; `bool`: not zero).
    fn from_f64(x: f64) -> Self;
    /// A random value: full-range bits, small values and edge values for integers; small and
    /// edge values (NaN and infinities when `special`) for floats.
    fn random(r: &mut Rng, special: bool) -> Self;
    /// The value for comparison.
    fn val(self) -> Val;
    /// A Rust expression of this value.
    fn lit(self) -> String;
}

fn random_int(r: &mut Rng, min: i128, max: i128) -> i128 {
    match r.below(10) {
        0..=4 => r.below(17) as i128 - 8,
        5..=7 => r.next_u64() as i128,
        _ => *r.pick(&[min, max, 0, 1, -1, min + 1, max - 1]),
    }
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl FuzzElem for $t {
            fn from_f64(x: f64) -> Self { x as $t }
            fn random(r: &mut Rng, _: bool) -> Self {
                let span = (<$t>::MAX as i128) - (<$t>::MIN as i128) + 1;
                let v = random_int(r, <$t>::MIN as i128, <$t>::MAX as i128);
                (v.rem_euclid(span) + <$t>::MIN as i128) as $t
            }
            fn val(self) -> Val { Val::Int(self as i128) }
            fn lit(self) -> String { format!("{}{}", self, stringify!($t)) }
        }
    )*};
}
int_elem!(u8, u16, u32, u64, i8, i16, i32, i64);

impl FuzzElem for bool {
    fn from_f64(x: f64) -> Self {
        x != 0.0
    }
    fn random(r: &mut Rng, _: bool) -> Self {
        r.below(2) == 1
    }
    fn val(self) -> Val {
        Val::Int(self as i128)
    }
    fn lit(self) -> String {
        self.to_string()
    }
}

fn random_float(r: &mut Rng, special: bool) -> f64 {
    match r.below(20) {
        0..=7 => r.below(17) as f64 - 8.0,
        8..=15 => (r.unit() * 2.0 - 1.0) * 4.0,
        16 => (r.unit() * 2.0 - 1.0) * 16.0,
        17 => *r.pick(&[0.0, -0.0, 0.5, -0.5, 0.25, 1e-3, -1e-3]),
        _ if special => *r.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]),
        _ => r.below(33) as f64 / 4.0 - 4.0,
    }
}

fn float_lit(x: f64, t: &str) -> String {
    if x.is_nan() {
        format!("{t}::NAN")
    } else if x == f64::INFINITY {
        format!("{t}::INFINITY")
    } else if x == f64::NEG_INFINITY {
        format!("{t}::NEG_INFINITY")
    } else {
        format!("{x:?}{t}")
    }
}

impl FuzzElem for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn random(r: &mut Rng, s: bool) -> Self {
        random_float(r, s) as f32
    }
    fn val(self) -> Val {
        Val::Real(self as f64)
    }
    fn lit(self) -> String {
        float_lit(self as f64, "f32")
    }
}
impl FuzzElem for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn random(r: &mut Rng, s: bool) -> Self {
        random_float(r, s)
    }
    fn val(self) -> Val {
        Val::Real(self)
    }
    fn lit(self) -> String {
        float_lit(self, "f64")
    }
}
macro_rules! half_elem {
    ($($t:ident),*) => {$(
        impl FuzzElem for $t {
            fn from_f64(x: f64) -> Self { $t::from_f64(x) }
            fn random(r: &mut Rng, s: bool) -> Self { $t::from_f64(random_float(r, s)) }
            fn val(self) -> Val { Val::Real(self.to_f64()) }
            fn lit(self) -> String {
                format!("{}::from_bits({:#06x})", stringify!($t), self.to_bits())
            }
        }
    )*};
}
half_elem!(f16, bf16);
macro_rules! complex_elem {
    ($($t:ident: $r:ident),*) => {$(
        impl FuzzElem for $t {
            fn from_f64(x: f64) -> Self { $t::new(x as $r, 0.0) }
            fn random(r: &mut Rng, s: bool) -> Self {
                $t::new(random_float(r, s) as $r, random_float(r, s) as $r)
            }
            fn val(self) -> Val { Val::Cplx(self.re as f64, self.im as f64) }
            fn lit(self) -> String {
                format!(
                    "{}::new({}, {})",
                    stringify!($t),
                    float_lit(self.re as f64, stringify!($r)),
                    float_lit(self.im as f64, stringify!($r))
                )
            }
        }
    )*};
}
complex_elem!(c32: f32, c64: f64);
