//! The element types image filters take (`u8`, `u16`, `f16`, `f32`, `f64`) and how each is
//! computed, as SciPy's `ndimage` does: sums in `f64` for integers and `f64` (SciPy sums every
//! type in `f64`), in `f32` for `f16` and `f32`; a result is stored in the input's type, an
//! integer truncated toward zero and wrapped modulo its range (SciPy's C conversion, which
//! takes a negative value `v` to `-(u)(-v)`).

use crate::dtype::{DType, Numeric, f16};

mod sealed {
    pub trait Sealed {}
}

/// The element types of images (filters, morphology, geometric transforms): `u8`, `u16`,
/// `f16`, `f32`, `f64`.
pub trait ImageElement: Numeric + bytemuck::Pod + sealed::Sealed {
    /// The float type of results that are not stored in the image's type (ArrayFire's
    /// `bilateral`): `f64` for `f64`, else `f32`.
    type Real: ImageElement + crate::dtype::Float + crate::dtype::Transcendental;
    /// The element type of summed-area tables (ArrayFire's: `u32` for `u8` and `u16`, `f32`
    /// for `f16`, the type itself for `f32` and `f64`).
    type Sum: Numeric;
    #[doc(hidden)]
    fn to_f64(self) -> f64;
    #[doc(hidden)]
    fn store(v: f64) -> Self;
}

impl sealed::Sealed for u8 {}
impl sealed::Sealed for u16 {}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for f64 {}

/// An integer result: truncated toward zero, wrapped modulo the type's range (NaN gives 0;
/// values past `i64` saturate there first, as the kernels' conversion does).
fn wrap_int(v: f64) -> i64 {
    v as i64
}

impl ImageElement for u8 {
    type Real = f32;
    type Sum = u32;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn store(v: f64) -> u8 {
        wrap_int(v) as u8
    }
}
impl ImageElement for u16 {
    type Real = f32;
    type Sum = u32;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn store(v: f64) -> u16 {
        wrap_int(v) as u16
    }
}
impl ImageElement for f16 {
    type Real = f32;
    type Sum = f32;
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    fn store(v: f64) -> f16 {
        // `v` holds an `f32` value (the working type of `f16`), so this is one rounding.
        f16::from_f32(v as f32)
    }
}
impl ImageElement for f32 {
    type Real = f32;
    type Sum = f32;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn store(v: f64) -> f32 {
        v as f32
    }
}
impl ImageElement for f64 {
    type Real = f64;
    type Sum = f64;
    fn to_f64(self) -> f64 {
        self
    }
    fn store(v: f64) -> f64 {
        v
    }
}

/// Whether `d` is summed in `f64` (integers and `f64`) rather than `f32`.
pub(crate) fn wide(d: DType) -> bool {
    !matches!(d, DType::F16 | DType::F32)
}

/// The working type's C name for `d`.
pub(crate) fn acc_c(d: DType) -> &'static str {
    if wide(d) { "double" } else { "float" }
}

/// The C storage type of `d` (halves as their bits).
pub(crate) fn store_c(d: DType) -> &'static str {
    match d {
        DType::U8 => "unsigned char",
        DType::U16 | DType::F16 => "unsigned short",
        DType::F32 => "float",
        _ => "double",
    }
}

/// The typed header of an image kernel for element type `d`: the storage type `T`, the
/// working type `C`, `img_ld`/`img_st` between them (`img_st` as [`ImageElement::store`]),
/// `img_madd(acc, w, v)`, the step `acc + w v` of a weighted sum, and `img_fma(acc, w, v)`, the
/// same step of the separable filters' taps (`filters_taps.cu`). For integers both round the
/// product and the sum separately (no fused multiply-add), as the CPU twin and SciPy do, so
/// that the sums and their truncation agree bit for bit; for floating types `img_fma` rounds
/// once (a fused multiply-add: the CPU twin's sums differ from it in the last place).
pub(crate) fn header(d: DType) -> String {
    let (ld, st) = match d {
        DType::F16 => ("h2f(v)", "f2h(v)"),
        DType::U8 | DType::U16 => ("(C)v", "(T)(i64t)v"),
        _ => ("v", "(T)v"),
    };
    let (madd, fma) = match d {
        DType::U8 | DType::U16 => (
            "__dadd_rn(acc, __dmul_rn(w, v))",
            "__dadd_rn(acc, __dmul_rn(w, v))",
        ),
        DType::F64 => ("acc + w * v", "__fma_rn(w, v, acc)"),
        _ => ("acc + w * v", "__fmaf_rn(w, v, acc)"),
    };
    format!(
        "typedef {} T;\ntypedef {} C;\n\
         __device__ __forceinline__ C img_ld(T v) {{ return {ld}; }}\n\
         __device__ __forceinline__ T img_st(C v) {{ return {st}; }}\n\
         __device__ __forceinline__ C img_madd(C acc, C w, C v) {{ return {madd}; }}\n\
         __device__ __forceinline__ C img_fma(C acc, C w, C v) {{ return {fma}; }}\n",
        store_c(d),
        acc_c(d)
    )
}

/// A working-type value on the host (`f32` or `f64`), as the CPU twins sum.
pub(crate) trait Acc:
    Copy
    + Send
    + Sync
    + PartialOrd
    + bytemuck::Pod
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    const ZERO: Self;
    fn of(v: f64) -> Self;
    fn f64(self) -> f64;
    fn exp(self) -> Self;
}
impl Acc for f32 {
    const ZERO: f32 = 0.0;
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn f64(self) -> f64 {
        f64::from(self)
    }
    fn exp(self) -> f32 {
        f32::exp(self)
    }
}
impl Acc for f64 {
    const ZERO: f64 = 0.0;
    fn of(v: f64) -> f64 {
        v
    }
    fn f64(self) -> f64 {
        self
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
}
