//! The value types of sparse arrays ([`SparseValue`]: `f32`, `f64`, `c32`, `c64`) and the
//! index types the caller may hand in ([`IndexValue`]).

use crate::dtype::{Element, Numeric, c32, c64};
use num_complex::Complex;
use std::ops::{Add, Mul};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for crate::dtype::c32 {}
    impl Sealed for crate::dtype::c64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for usize {}
}

/// A value type of sparse arrays: `f32`, `f64`, [`c32`], [`c64`], the
/// types cuSPARSE multiplies. Products accumulate in the value type, on both backends.
///
/// ```
/// use cuprite_array::sparse::SparseValue;
/// assert_eq!(<f64 as SparseValue>::from_f64(2.5).magnitude(), 2.5);
/// ```
pub trait SparseValue:
    Element
    + Numeric
    + cuprite_driver::sparse::SparseElement
    + Add<Output = Self>
    + Mul<Output = Self>
    + PartialEq
    + sealed::Sealed
{
    /// One.
    fn one() -> Self;
    /// The complex conjugate (the value itself for real types).
    fn conj(self) -> Self;
    /// `|v|` in `f64` (the modulus for complex types).
    fn magnitude(self) -> f64;
    /// The value as a complex `f64`.
    fn to_c64(self) -> Complex<f64>;
    /// The real `v` rounded to this type.
    fn from_f64(v: f64) -> Self;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl SparseValue for $t {
            fn one() -> Self {
                1.0
            }
            fn conj(self) -> Self {
                self
            }
            fn magnitude(self) -> f64 {
                (self as f64).abs()
            }
            fn to_c64(self) -> Complex<f64> {
                Complex::new(self as f64, 0.0)
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    )*};
}
real!(f32, f64);

macro_rules! complex {
    ($($t:ty, $r:ty);*) => {$(
        impl SparseValue for $t {
            fn one() -> Self {
                Complex::new(1.0, 0.0)
            }
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            fn magnitude(self) -> f64 {
                Complex::new(self.re as f64, self.im as f64).norm()
            }
            fn to_c64(self) -> Complex<f64> {
                Complex::new(self.re as f64, self.im as f64)
            }
            fn from_f64(v: f64) -> Self {
                Complex::new(v as $r, 0.0)
            }
        }
    )*};
}
complex!(c32, f32; c64, f64);

/// An integer type that row pointers and indices may be given in: `i32`, `i64`, `u32`, `u64`,
/// `usize`. A negative value is an `Err` naming its position.
///
/// ```
/// use cuprite_array::sparse::IndexValue;
/// assert_eq!((-1i32).to_index(), None);
/// assert_eq!(7u64.to_index(), Some(7));
/// ```
pub trait IndexValue: Copy + std::fmt::Display + sealed::Sealed {
    /// The value as an index, `None` when negative or too large for `usize`.
    fn to_index(self) -> Option<usize>;
}

macro_rules! index {
    ($($t:ty),*) => {$(
        impl IndexValue for $t {
            fn to_index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
        }
    )*};
}
index!(i32, i64, u32, u64, usize);
