//! Element types: the [`DType`] tag, the [`Element`] trait of Rust element types, and the type
//! promotion rules.
//!
//! This module owns what an element *is* (size, storage layout, its CUDA C spelling, the class
//! it is computed in); it must not know about graphs or backends.
//!
//! # Promotion rules
//!
//! A binary operation on arrays of two element types `A` and `B` first casts both to
//! `promote(A, B)` ([`DType::promote`], and at the type level [`Promote`]):
//!
//! 1. equal types stay as they are; `bool` with anything gives the other type;
//! 2. two unsigned (or two signed) integers give the wider one;
//! 3. a signed and an unsigned integer give the signed one when it is strictly wider, else the
//!    signed integer twice as wide as the unsigned one, capped at `i64` (`u64` with any signed
//!    type gives `i64`: values above `i64::MAX` wrap);
//! 4. an integer with a float gives the narrowest float, at least as wide as that float, that
//!    holds every value of the integer type exactly, as NumPy 2 does: 8-bit integers keep the
//!    float (`i8 + f16 → f16`, `u8 + bf16 → bf16`), 16-bit integers give at least `f32`
//!    (`i16 + f16 → f32`), 32- and 64-bit integers give `f64` (`i64 + f32 → f64`, so
//!    16777217 survives);
//! 5. `f16` with `bf16` gives `f32`; other float pairs give the wider;
//! 6. a complex type with an integer gives the complex type whose parts rule 4 gives for the
//!    integer and the parts' type (`i16 + c32 → c32`, `i32 + c32 → c64`); with a float, the complex type of
//!    the wider of the float and the complex type's parts; two complex types give the wider.
//!
//! # How elements are computed
//!
//! Both backends compute in the same *class*: `f16`/`bf16`/`f32` in `f32` (half types are rounded
//! back after every operation, round-to-nearest-even), `f64` in `f64`, signed integers as `i64`
//! and unsigned integers and `bool` as `u64`, wrapped back to their width after every operation
//! (so integer arithmetic wraps, as Rust's `wrapping_*` does), complex types in their own type.

pub use half::{bf16, f16};
use num_complex::Complex;

/// Complex `f32`.
#[allow(non_camel_case_types)]
pub type c32 = Complex<f32>;
/// Complex `f64`.
#[allow(non_camel_case_types)]
pub type c64 = Complex<f64>;

/// The element type of an array, as a run-time tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`, stored as one byte 0 or 1.
    Bool,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// IEEE half precision ([`half::f16`]).
    F16,
    /// bfloat16 ([`half::bf16`]).
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// Complex `f32` ([`c32`]).
    C32,
    /// Complex `f64` ([`c64`]).
    C64,
}

/// The class a dtype is computed in (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    F32,
    F64,
    I64,
    U64,
    C32,
    C64,
}

impl DType {
    /// Every element type.
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C32,
        DType::C64,
    ];

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::U64 | DType::I64 | DType::F64 | DType::C32 => 8,
            DType::C64 => 16,
        }
    }

    /// The Rust name of the type (`"f32"`, `"c64"`...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C32 => "c32",
            DType::C64 => "c64",
        }
    }

    /// Real floating point (`f16`, `bf16`, `f32`, `f64`).
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Complex.
    pub const fn is_complex(self) -> bool {
        matches!(self, DType::C32 | DType::C64)
    }

    /// A signed integer.
    pub const fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// An unsigned integer (not `bool`).
    pub const fn is_unsigned_int(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// Any integer (not `bool`).
    pub const fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        (self.size() * 8) as u32
    }

    /// The real type of a complex type; other types are their own.
    pub const fn real(self) -> DType {
        match self {
            DType::C32 => DType::F32,
            DType::C64 => DType::F64,
            d => d,
        }
    }

    pub(crate) const fn class(self) -> Class {
        match self {
            DType::Bool | DType::U8 | DType::U16 | DType::U32 | DType::U64 => Class::U64,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => Class::I64,
            DType::F16 | DType::BF16 | DType::F32 => Class::F32,
            DType::F64 => Class::F64,
            DType::C32 => Class::C32,
            DType::C64 => Class::C64,
        }
    }

    /// Stable small number, for hashing kernel structure.
    pub(crate) const fn code(self) -> u8 {
        self as u8
    }

    /// The CUDA C type an element is stored as.
    pub(crate) const fn c_storage(self) -> &'static str {
        match self {
            DType::Bool | DType::U8 => "unsigned char",
            DType::I8 => "signed char",
            DType::U16 | DType::F16 | DType::BF16 => "unsigned short",
            DType::I16 => "short",
            DType::U32 => "unsigned int",
            DType::I32 => "int",
            DType::U64 => "unsigned long long",
            DType::I64 => "long long",
            DType::F32 => "float",
            DType::F64 => "double",
            DType::C32 => "cf32",
            DType::C64 => "cf64",
        }
    }

    /// The CUDA C type values are computed in (the class, at its natural width).
    pub(crate) const fn c_compute(self) -> &'static str {
        match self {
            DType::F16 | DType::BF16 => "float",
            d => d.c_storage(),
        }
    }

    fn rank(self) -> u8 {
        match self {
            DType::Bool => 0,
            d if d.is_int() => 1,
            d if d.is_float() => 2,
            _ => 3,
        }
    }

    /// The type both operands of a binary operation are cast to (see the module docs).
    ///
    /// ```
    /// use cuprite_array::DType;
    /// assert_eq!(DType::promote(DType::U8, DType::I8), DType::I16);
    /// assert_eq!(DType::promote(DType::I64, DType::F32), DType::F64);
    /// assert_eq!(DType::promote(DType::I8, DType::F16), DType::F16);
    /// assert_eq!(DType::promote(DType::U16, DType::F16), DType::F32);
    /// assert_eq!(DType::promote(DType::C32, DType::F64), DType::C64);
    /// ```
    pub fn promote(a: DType, b: DType) -> DType {
        use DType::*;
        if a == b {
            return a;
        }
        if a == Bool {
            return b;
        }
        if b == Bool {
            return a;
        }
        let (lo, hi) = if a.rank() <= b.rank() { (a, b) } else { (b, a) };
        match (lo.rank(), hi.rank()) {
            (1, 1) => {
                if lo.is_signed_int() == hi.is_signed_int() {
                    if lo.size() >= hi.size() { lo } else { hi }
                } else {
                    let (s, u) = if lo.is_signed_int() {
                        (lo, hi)
                    } else {
                        (hi, lo)
                    };
                    if s.size() > u.size() {
                        s
                    } else {
                        match u {
                            U8 => I16,
                            U16 => I32,
                            _ => I64,
                        }
                    }
                }
            }
            // The narrowest float holding the integer (8-bit: any; 16-bit: f32; wider: f64).
            (1, 2) => match lo.size() {
                1 => hi,
                2 if hi == F64 => F64,
                2 => F32,
                _ => F64,
            },
            (2, 2) => {
                if matches!((lo, hi), (F16, BF16) | (BF16, F16)) {
                    F32
                } else if lo.size() >= hi.size() {
                    lo
                } else {
                    hi
                }
            }
            (1, 3) => {
                if lo.size() >= 4 {
                    C64
                } else {
                    hi
                }
            }
            (2, 3) => {
                if lo == F64 {
                    C64
                } else {
                    hi
                }
            }
            _ => {
                // both complex
                C64
            }
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A value in its compute class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    F32(f32),
    F64(f64),
    I64(i64),
    U64(u64),
    C32(c32),
    C64(c64),
}

impl Scalar {
    /// Casts a class value to dtype `to`, with the cast rules of the crate (saturating
    /// float→int, NaN→0, wrapping int→int, complex→real takes the real part).
    pub(crate) fn cast(self, to: DType) -> Scalar {
        let s = match (self, to.class()) {
            (Scalar::F32(x), Class::F32) => Scalar::F32(x),
            (Scalar::F32(x), Class::F64) => Scalar::F64(x as f64),
            (Scalar::F64(x), Class::F32) => Scalar::F32(x as f32),
            (Scalar::F64(x), Class::F64) => Scalar::F64(x),
            (Scalar::I64(x), Class::F32) => Scalar::F32(x as f32),
            (Scalar::I64(x), Class::F64) => Scalar::F64(x as f64),
            (Scalar::U64(x), Class::F32) => Scalar::F32(x as f32),
            (Scalar::U64(x), Class::F64) => Scalar::F64(x as f64),
            (Scalar::C32(x), c) => {
                return Scalar::F32(x.re).cast_real_or_complex(to, c, x.im as f64);
            }
            (Scalar::C64(x), c) => return Scalar::F64(x.re).cast_real_or_complex(to, c, x.im),
            (x, Class::C32) => {
                let Scalar::F32(re) = x.cast(DType::F32) else {
                    unreachable!()
                };
                Scalar::C32(c32::new(re, 0.0))
            }
            (x, Class::C64) => {
                let Scalar::F64(re) = x.cast(DType::F64) else {
                    unreachable!()
                };
                Scalar::C64(c64::new(re, 0.0))
            }
            (x, Class::I64 | Class::U64) => {
                if to == DType::Bool {
                    return Scalar::U64(!x.is_zero() as u64);
                }
                let i = match x {
                    Scalar::F32(f) => float_to_int(f as f64, to, f.is_nan()),
                    Scalar::F64(f) => float_to_int(f, to, f.is_nan()),
                    Scalar::I64(i) => i as u64,
                    Scalar::U64(u) => u,
                    _ => unreachable!(),
                };
                return Scalar::U64(i).wrap_int(to);
            }
        };
        s.round_to(to)
    }

    fn cast_real_or_complex(self, to: DType, c: Class, im: f64) -> Scalar {
        match c {
            Class::C32 => {
                let Scalar::F32(re) = self.cast(DType::F32) else {
                    unreachable!()
                };
                Scalar::C32(c32::new(re, im as f32))
            }
            Class::C64 => {
                let Scalar::F64(re) = self.cast(DType::F64) else {
                    unreachable!()
                };
                Scalar::C64(c64::new(re, im))
            }
            _ => {
                if to == DType::Bool {
                    return Scalar::U64((!self.is_zero() || im != 0.0) as u64);
                }
                self.cast(to)
            }
        }
    }

    /// Wraps an integer value (held as raw 64 bits) to the width and class of `to`.
    fn wrap_int(self, to: DType) -> Scalar {
        let bits = match self {
            Scalar::U64(u) => u,
            Scalar::I64(i) => i as u64,
            _ => unreachable!(),
        };
        match to {
            DType::Bool => Scalar::U64((bits != 0) as u64),
            DType::U8 => Scalar::U64(bits as u8 as u64),
            DType::U16 => Scalar::U64(bits as u16 as u64),
            DType::U32 => Scalar::U64(bits as u32 as u64),
            DType::U64 => Scalar::U64(bits),
            DType::I8 => Scalar::I64(bits as i8 as i64),
            DType::I16 => Scalar::I64(bits as i16 as i64),
            DType::I32 => Scalar::I64(bits as i32 as i64),
            DType::I64 => Scalar::I64(bits as i64),
            _ => unreachable!(),
        }
    }

    fn round_to(self, to: DType) -> Scalar {
        match (self, to) {
            (Scalar::F32(x), DType::F16) => Scalar::F32(f16::from_f32(x).to_f32()),
            (Scalar::F32(x), DType::BF16) => Scalar::F32(bf16::from_f32(x).to_f32()),
            (s, _) => s,
        }
    }

    pub(crate) fn is_zero(self) -> bool {
        match self {
            Scalar::F32(x) => x == 0.0,
            Scalar::F64(x) => x == 0.0,
            Scalar::I64(x) => x == 0,
            Scalar::U64(x) => x == 0,
            Scalar::C32(x) => x.re == 0.0 && x.im == 0.0,
            Scalar::C64(x) => x.re == 0.0 && x.im == 0.0,
        }
    }

    /// The value as 64 raw bits plus a second word (complex imaginary part), for kernel
    /// parameters.
    pub(crate) fn to_f64_lossy(self) -> f64 {
        match self {
            Scalar::F32(x) => x as f64,
            Scalar::F64(x) => x,
            Scalar::I64(x) => x as f64,
            Scalar::U64(x) => x as f64,
            Scalar::C32(x) => x.re as f64,
            Scalar::C64(x) => x.re,
        }
    }
}

/// Saturating float → integer conversion of Rust's `as` (NaN → 0), as raw bits.
fn float_to_int(f: f64, to: DType, nan: bool) -> u64 {
    if nan {
        return 0;
    }
    match to {
        DType::U8 => f as u8 as u64,
        DType::U16 => f as u16 as u64,
        DType::U32 => f as u32 as u64,
        DType::U64 => f as u64,
        DType::I8 => f as i8 as i64 as u64,
        DType::I16 => f as i16 as i64 as u64,
        DType::I32 => f as i32 as i64 as u64,
        DType::I64 => f as i64 as u64,
        _ => unreachable!(),
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that can be an array element: `bool`, the integers, `f16`, `bf16`, `f32`, `f64`,
/// [`c32`] and [`c64`].
pub trait Element:
    Copy + Send + Sync + std::fmt::Debug + PartialEq + Default + 'static + sealed::Sealed
{
    /// The run-time tag of this type.
    const DTYPE: DType;
    /// The element type of sums and products (`i64` for signed integers and `bool`, `u64` for
    /// unsigned integers, the type itself for floats and complex).
    type Accum: Element;
    /// The element type of means, variances and standard deviations (`f64` for integers and
    /// `bool`, the type itself otherwise; the real type for the variance of complex numbers is
    /// not provided).
    type Mean: Element;
    #[doc(hidden)]
    fn to_scalar(self) -> Scalar;
    #[doc(hidden)]
    fn from_scalar(s: Scalar) -> Self;
    #[doc(hidden)]
    fn slice_bytes(v: &[Self]) -> &[u8];
    #[doc(hidden)]
    fn from_bytes(b: &[u8]) -> Vec<Self>;
    /// Formats one element as NumPy would (used by `Display`).
    #[doc(hidden)]
    fn fmt_elem(self) -> String;
}

/// Element types with a real floating-point value (`f16`, `bf16`, `f32`, `f64`).
pub trait Float: Numeric + Ordered {}
/// Integer element types.
pub trait Integer: Element {}
/// Signed numbers (signed integers, floats, complex): those with a meaningful negation.
pub trait Signed: Element {}
/// Complex element types; `Real` is the type of their parts.
pub trait ComplexElement: Element {
    /// `f32` for [`c32`], `f64` for [`c64`].
    type Real: Float;
}
/// Types with `exp`, `log` and `sqrt`: the floats and complex types.
pub trait Transcendental: Element {}
/// Types with bitwise operations: the integers and `bool` (on which they are logical).
pub trait Bits: Element {}
/// Element types with an order (all but complex).
pub trait Ordered: Element {}
/// Numeric types (all but `bool`).
pub trait Numeric: Element {}

fn fmt_float(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else if x == x.trunc() && x.abs() < 1e16 {
        format!("{x:.0}.")
    } else if x.abs() >= 1e-4 && x.abs() < 1e16 {
        let s = format!("{x:.8}");
        let s = s.trim_end_matches('0');
        s.to_string()
    } else {
        format!("{x:.8e}")
    }
}

macro_rules! pod_bytes {
    () => {
        fn slice_bytes(v: &[Self]) -> &[u8] {
            bytemuck::cast_slice(v)
        }
        fn from_bytes(b: &[u8]) -> Vec<Self> {
            let mut v = vec![Self::default(); b.len() / std::mem::size_of::<Self>()];
            bytemuck::cast_slice_mut::<Self, u8>(&mut v).copy_from_slice(b);
            v
        }
    };
}

macro_rules! int_element {
    ($t:ty, $d:ident, $cls:ident, $via:ty) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            type Accum = $via;
            type Mean = f64;
            fn to_scalar(self) -> Scalar {
                Scalar::$cls(self as $via)
            }
            fn from_scalar(s: Scalar) -> Self {
                match s.cast(DType::$d) {
                    Scalar::$cls(v) => v as $t,
                    _ => unreachable!(),
                }
            }
            pod_bytes!();
            fn fmt_elem(self) -> String {
                self.to_string()
            }
        }
        impl Integer for $t {}
        impl Bits for $t {}
        impl Ordered for $t {}
        impl Numeric for $t {}
    };
}

int_element!(u8, U8, U64, u64);
int_element!(u16, U16, U64, u64);
int_element!(u32, U32, U64, u64);
int_element!(u64, U64, U64, u64);
int_element!(i8, I8, I64, i64);
int_element!(i16, I16, I64, i64);
int_element!(i32, I32, I64, i64);
int_element!(i64, I64, I64, i64);
impl Signed for i8 {}
impl Signed for i16 {}
impl Signed for i32 {}
impl Signed for i64 {}

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    type Accum = i64;
    type Mean = f64;
    fn to_scalar(self) -> Scalar {
        Scalar::U64(self as u64)
    }
    fn from_scalar(s: Scalar) -> Self {
        !s.is_zero()
    }
    fn slice_bytes(v: &[Self]) -> &[u8] {
        // SAFETY: `bool` is one byte whose only values, 0 and 1, are valid `u8`s; the slice
        // keeps its length and lifetime.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), v.len()) }
    }
    fn from_bytes(b: &[u8]) -> Vec<Self> {
        b.iter().map(|&x| x != 0).collect()
    }
    fn fmt_elem(self) -> String {
        if self { "true".into() } else { "false".into() }
    }
}
impl Ordered for bool {}
impl Bits for bool {}

macro_rules! float_element {
    ($t:ty, $d:ident, $cls:ident, $to:expr, $from:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            type Accum = $t;
            type Mean = $t;
            fn to_scalar(self) -> Scalar {
                Scalar::$cls($to(self))
            }
            fn from_scalar(s: Scalar) -> Self {
                match s.cast(DType::$d) {
                    Scalar::$cls(v) => $from(v),
                    _ => unreachable!(),
                }
            }
            pod_bytes!();
            fn fmt_elem(self) -> String {
                fmt_float($to(self) as f64)
            }
        }
        impl Float for $t {}
        impl Transcendental for $t {}
        impl Signed for $t {}
        impl Ordered for $t {}
        impl Numeric for $t {}
    };
}

float_element!(f32, F32, F32, |x: f32| x, |x: f32| x);
float_element!(f64, F64, F64, |x: f64| x, |x: f64| x);
float_element!(f16, F16, F32, |x: f16| x.to_f32(), f16::from_f32);
float_element!(bf16, BF16, F32, |x: bf16| x.to_f32(), bf16::from_f32);

macro_rules! complex_element {
    ($t:ty, $d:ident, $real:ty) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            type Accum = $t;
            type Mean = $t;
            fn to_scalar(self) -> Scalar {
                Scalar::$d(self)
            }
            fn from_scalar(s: Scalar) -> Self {
                match s.cast(DType::$d) {
                    Scalar::$d(v) => v,
                    _ => unreachable!(),
                }
            }
            pod_bytes!();
            fn fmt_elem(self) -> String {
                let im = self.im as f64;
                let sign = if im < 0.0 || (im == 0.0 && im.is_sign_negative()) {
                    "-"
                } else {
                    "+"
                };
                format!(
                    "{}{}{}j",
                    fmt_float(self.re as f64),
                    sign,
                    fmt_float(im.abs())
                )
            }
        }
        impl Transcendental for $t {}
        impl ComplexElement for $t {
            type Real = $real;
        }
        impl Signed for $t {}
        impl Numeric for $t {}
    };
}

complex_element!(c32, C32, f32);
complex_element!(c64, C64, f64);

/// The result type of a binary operation between `Self` and `Rhs` (see the module docs).
pub trait Promote<Rhs: Element>: Element {
    /// The promoted type.
    type Output: Element;
}

include!("promote_table.rs");
