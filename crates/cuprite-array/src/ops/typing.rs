//! NumPy's data-type routines that reason about values and casts: `can_cast`,
//! `min_scalar_type`, `common_type`, `isscalar`, and the `asarray_chkfinite` check.
//! `bf16`, which NumPy lacks, is a float of 16 bits ranked with `f16` under
//! [`DType::promote`]'s rules.

use crate::array::Array;
use crate::dtype::{DType, Element, Scalar, c32, c64};
use crate::error::{Error, Result};
use half::{bf16, f16};
use std::any::TypeId;

/// NumPy's `casting=` rules for [`can_cast`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Casting {
    /// `'no'`: only the same type.
    No,
    /// `'equiv'`: the same type (byte order never differs here).
    Equiv,
    /// `'safe'`: every value is preserved (the default).
    #[default]
    Safe,
    /// `'same_kind'`: safe, or within a kind or toward a higher kind
    /// (bool < unsigned < signed < float < complex).
    SameKind,
    /// `'unsafe'`: any cast.
    Unsafe,
}

/// The kind order of NumPy's `same_kind` rule.
fn kind_order(d: DType) -> u8 {
    if d == DType::Bool {
        0
    } else if d.is_unsigned_int() {
        1
    } else if d.is_signed_int() {
        2
    } else if d.is_float() {
        4
    } else {
        5
    }
}

/// NumPy's safe-cast table.
fn safe(from: DType, to: DType) -> bool {
    use DType::*;
    if from == to || from == Bool {
        return true;
    }
    // The narrowest float (real, or complex by its part) holding every integer of `from`.
    let int_float = |bytes: usize| match bytes {
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let part = |d: DType| match d {
        C32 => 4,
        C64 => 8,
        _ => d.size(),
    };
    match (from, to) {
        (_, Bool) => false,
        (f, t) if f.is_int() && t.is_int() => {
            if f.is_unsigned_int() == t.is_unsigned_int() {
                f.size() <= t.size()
            } else {
                f.is_unsigned_int() && f.size() < t.size()
            }
        }
        (f, t) if f.is_int() => {
            let need = int_float(f.size());
            match t {
                BF16 | F16 => need == 2,
                _ => part(t) >= need,
            }
        }
        (BF16, t) => matches!(t, F32 | F64 | C32 | C64),
        (F16, t) => matches!(t, F32 | F64 | C32 | C64),
        (F32, t) => matches!(t, F64 | C32 | C64),
        (F64, t) => t == C64,
        (C32, t) => t == C64,
        _ => false,
    }
}

/// NumPy's `can_cast(from_, to, casting)` for element types. `Safe` is NumPy's table: every
/// value of `from` is held by `to` (a float of at least as many mantissa bits for integers:
/// `u8 → f16`, `i16 → f32`, `i64 → f64` are safe; `i64 → f32` and `u64 → i64` are not).
/// `bf16`, which NumPy lacks, is ranked with `f16` for integer sources and takes no other
/// float but itself.
///
/// ```
/// use cuprite_array::{DType, ops::{Casting, can_cast}};
/// assert!(can_cast(DType::I32, DType::F64, Casting::Safe));
/// assert!(!can_cast(DType::I64, DType::F32, Casting::Safe));
/// assert!(can_cast(DType::F64, DType::F32, Casting::SameKind));
/// assert!(!can_cast(DType::I8, DType::U8, Casting::SameKind));
/// assert!(can_cast(DType::C64, DType::Bool, Casting::Unsafe));
/// ```
pub fn can_cast(from: DType, to: DType, casting: Casting) -> bool {
    match casting {
        Casting::No | Casting::Equiv => from == to,
        Casting::Safe => safe(from, to),
        Casting::SameKind => safe(from, to) || kind_order(from) <= kind_order(to),
        Casting::Unsafe => true,
    }
}

/// NumPy's `min_scalar_type(a)` for a scalar: the smallest type holding its value. An integer
/// ≥ 0 gets the smallest unsigned type, a negative one the smallest signed type; a float in
/// (-65000, 65000) or not finite gets `f16`, else `f32` inside ±3.4e38, else `f64` (precision
/// may be lost, as NumPy allows); complex `c64` fits `c32` when both parts are inside
/// ±3.4e38; `bool`, `f16`, `bf16` and `c32` stay as they are.
///
/// ```
/// use cuprite_array::{DType, ops::min_scalar_type};
/// assert_eq!(min_scalar_type(10i64), DType::U8);
/// assert_eq!(min_scalar_type(-129i32), DType::I16);
/// assert_eq!(min_scalar_type(3.1f64), DType::F16);
/// assert_eq!(min_scalar_type(1e50f64), DType::F64);
/// assert_eq!(min_scalar_type(u64::MAX), DType::U64);
/// ```
pub fn min_scalar_type<T: Element>(value: T) -> DType {
    let unsigned = |v: u64| match v {
        0..=0xff => DType::U8,
        0x100..=0xffff => DType::U16,
        0x1_0000..=0xffff_ffff => DType::U32,
        _ => DType::U64,
    };
    let half_or = |x: f64, wide: DType| {
        if (x > -65000.0 && x < 65000.0) || !x.is_finite() {
            DType::F16
        } else if x > -3.4e38 && x < 3.4e38 {
            DType::F32
        } else {
            wide
        }
    };
    match (T::DTYPE, value.to_scalar()) {
        (DType::Bool | DType::F16 | DType::BF16 | DType::C32, _) => T::DTYPE,
        (_, Scalar::U64(v)) => unsigned(v),
        (_, Scalar::I64(v)) if v >= 0 => unsigned(v as u64),
        (_, Scalar::I64(v)) => {
            if v >= i8::MIN as i64 {
                DType::I8
            } else if v >= i16::MIN as i64 {
                DType::I16
            } else if v >= i32::MIN as i64 {
                DType::I32
            } else {
                DType::I64
            }
        }
        (_, Scalar::F32(x)) => half_or(x as f64, DType::F32),
        (_, Scalar::F64(x)) => half_or(x, DType::F64),
        (_, Scalar::C64(z)) => {
            let fits = |p: f64| p > -3.4e38 && p < 3.4e38;
            if fits(z.re) && fits(z.im) {
                DType::C32
            } else {
                DType::C64
            }
        }
        (d, Scalar::C32(_)) => d,
    }
}

/// NumPy's `common_type(*arrays)`: the float type all the inputs convert to without losing
/// precision: integers count as `f64`, floats as themselves, and the result is complex when
/// any input is (`c32` for 32 bits or fewer, else `c64`). A `bool` input is an `Err`, as NumPy
/// raises; no input gives `f16`, as NumPy.
///
/// ```
/// use cuprite_array::{DType, ops::common_type};
/// assert_eq!(common_type(&[DType::F32, DType::I8])?, DType::F64);
/// assert_eq!(common_type(&[DType::F16, DType::C32])?, DType::C32);
/// assert_eq!(common_type(&[DType::F32])?, DType::F32);
/// assert!(common_type(&[DType::Bool]).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn common_type(dtypes: &[DType]) -> Result<DType> {
    let mut real = DType::F16;
    let mut first = true;
    let mut complex = false;
    for &d in dtypes {
        let r = match d {
            DType::Bool => {
                return Err(Error::InvalidArgument(
                    "common_type: a bool input has no common float type".into(),
                ));
            }
            d if d.is_int() => DType::F64,
            d if d.is_complex() => {
                complex = true;
                d.real()
            }
            d => d,
        };
        real = if first { r } else { DType::promote(real, r) };
        first = false;
    }
    Ok(match (complex, real) {
        (false, r) => r,
        (true, DType::F64) => DType::C64,
        (true, _) => DType::C32,
    })
}

/// NumPy's `isscalar(element)`: whether the value is a scalar: one of the element types
/// (`bool`, integers, floats, complex), a `char` or a string. Arrays, even 0-dimensional
/// ones, are not (as in NumPy).
///
/// ```
/// use cuprite_array::{Array, ops::isscalar};
/// assert!(isscalar(&3.0f64) && isscalar(&true) && isscalar("text"));
/// assert!(!isscalar(&Array::scalar(3.0f64)));
/// assert!(!isscalar(&vec![3.0f64]));
/// ```
pub fn isscalar<V: ?Sized + 'static>(_value: &V) -> bool {
    let t = TypeId::of::<V>();
    [
        TypeId::of::<bool>(),
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<f16>(),
        TypeId::of::<bf16>(),
        TypeId::of::<f32>(),
        TypeId::of::<f64>(),
        TypeId::of::<c32>(),
        TypeId::of::<c64>(),
        TypeId::of::<char>(),
        TypeId::of::<str>(),
        TypeId::of::<String>(),
    ]
    .contains(&t)
}

impl<T: Element> Array<T> {
    /// NumPy's `asarray_chkfinite(a)`: the array itself, or an `Err` when it holds a NaN or an
    /// infinity (in either part of a complex number; integer and `bool` arrays always pass).
    /// Floats are checked on the device in one reduction; complex values on the host.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// assert!(a.asarray_chkfinite().is_ok());
    /// assert!(Array::from_slice(&[1.0f32, f32::NAN], &[2])?.asarray_chkfinite().is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn asarray_chkfinite(&self) -> Result<Array<T>> {
        let d = T::DTYPE;
        let finite = if d.is_float() {
            self.cast::<f64>().isfinite().all()?.item()?
        } else if d.is_complex() {
            self.to_vec()?.into_iter().all(|v| match v.to_scalar() {
                Scalar::C32(z) => z.re.is_finite() && z.im.is_finite(),
                Scalar::C64(z) => z.re.is_finite() && z.im.is_finite(),
                _ => true,
            })
        } else {
            true
        };
        if !finite {
            return Err(Error::InvalidArgument(format!(
                "asarray_chkfinite: the {d} array of shape {:?} holds an infinity or NaN",
                self.shape()
            )));
        }
        Ok(self.clone())
    }
}
