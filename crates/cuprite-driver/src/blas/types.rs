//! The vocabulary the BLAS, BLASLt and solver modules share: the [`Element`] trait that maps a
//! Rust element type to the library's data type and scalar type, [`ComputeType`], [`Transpose`],
//! [`Fill`], and the checks every call runs on its dimensions before the library sees them
//! (leading dimensions, buffer lengths in checked arithmetic, 32-bit limits).
//!
//! This module owns no handle and calls no library.

use crate::error::{Error, Result};
use crate::memory::{DeviceCopy, DeviceRead};
use crate::stream::Stream;
use cuprite_sys::cublas::{
    cublasComputeType_t as CT, cublasFillMode_t, cublasOperation_t, cudaDataType,
};
use half::{bf16, f16};
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
}

/// The type of `alpha`, `beta` and scalar results: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.
pub trait Scalar:
    DeviceCopy + bytemuck::Pod + std::fmt::Debug + PartialEq + sealed::Sealed
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The library's data type of this scalar.
    const DATA_TYPE: cudaDataType;
    /// The value as `f16` bits (the real part), for the `F16` compute type.
    fn to_f16_bits(self) -> u16;
}

macro_rules! scalar {
    ($($t:ty, $zero:expr, $one:expr, $dt:ident, $to_f64:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const DATA_TYPE: cudaDataType = cudaDataType::$dt;
            fn to_f16_bits(self) -> u16 {
                #[allow(clippy::redundant_closure_call)]
                f16::from_f64(($to_f64)(self)).to_bits()
            }
        }
    )*};
}

scalar! {
    f32, 0.0, 1.0, CUDA_R_32F, |x: f32| x as f64;
    f64, 0.0, 1.0, CUDA_R_64F, |x: f64| x;
    Complex<f32>, Complex::new(0.0, 0.0), Complex::new(1.0, 0.0), CUDA_C_32F, |x: Complex<f32>| x.re as f64;
    Complex<f64>, Complex::new(0.0, 0.0), Complex::new(1.0, 0.0), CUDA_C_64F, |x: Complex<f64>| x.re;
}

/// An element type of cuBLAS, cuBLASLt and cuSOLVER matrices: `f16`, `bf16`, `f32`, `f64`,
/// `Complex<f32>`, `Complex<f64>`. Maps the Rust type to the library's data type, the type of
/// its scalars and of its real values (norms, singular values).
///
/// ```
/// use cuprite_driver::blas::Element;
/// use cuprite_driver::sys::cublas::cudaDataType;
/// assert_eq!(<half::bf16 as Element>::DATA_TYPE, cudaDataType::CUDA_R_16BF);
/// let alpha: <half::f16 as Element>::Scalar = 1.5f32; // f16 products scale in f32
/// # let _ = alpha;
/// ```
pub trait Element: DeviceCopy + sealed::Sealed + std::fmt::Debug {
    /// The library's data type of this element.
    const DATA_TYPE: cudaDataType;
    /// The short name used in messages (`f16`, `c64`...).
    const NAME: &'static str;
    /// Whether the type is complex.
    const IS_COMPLEX: bool;
    /// The type of `alpha` and `beta` under the default compute type: `f32` for `f16`, `bf16`
    /// and `f32`; `f64`; `Complex<f32>`; `Complex<f64>`.
    type Scalar: Scalar;
    /// The type of norms (`nrm2`) and of singular and eigenvalues: the element type itself for
    /// real types, the real part's type for complex ones.
    type Real: Element;
}

macro_rules! element {
    ($($t:ty, $dt:ident, $name:expr, $cplx:expr, $scalar:ty, $real:ty;)*) => {$(
        impl Element for $t {
            const DATA_TYPE: cudaDataType = cudaDataType::$dt;
            const NAME: &'static str = $name;
            const IS_COMPLEX: bool = $cplx;
            type Scalar = $scalar;
            type Real = $real;
        }
    )*};
}

impl sealed::Sealed for f16 {}
impl sealed::Sealed for bf16 {}

element! {
    f16, CUDA_R_16F, "f16", false, f32, f16;
    bf16, CUDA_R_16BF, "bf16", false, f32, bf16;
    f32, CUDA_R_32F, "f32", false, f32, f32;
    f64, CUDA_R_64F, "f64", false, f64, f64;
    Complex<f32>, CUDA_C_32F, "c32", true, Complex<f32>, f32;
    Complex<f64>, CUDA_C_64F, "c64", true, Complex<f64>, f64;
}

/// The precision of the multiply-accumulate of a product. [`Default`](Self::Default) is the
/// element type's own precision (`f32` accumulation for `f16`/`bf16`/`f32`/`Complex<f32>`,
/// `f64` for `f64`/`Complex<f64>`). Reduced-precision modes are opt-in: [`Tf32`](Self::Tf32)
/// never happens unless asked for.
///
/// ```
/// use cuprite_driver::blas::ComputeType;
/// assert_eq!(ComputeType::default(), ComputeType::Default);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ComputeType {
    /// The element type's natural precision (see the type's docs).
    #[default]
    Default,
    /// `f16` accumulation (`f16` data only; `alpha`/`beta` are rounded to `f16`).
    F16,
    /// `f32` accumulation (`f16`, `bf16`, `f32`, `Complex<f32>` data).
    F32,
    /// `f32` accumulation with no reduced-precision shortcut at all.
    F32Pedantic,
    /// `f32` data on TF32 tensor cores (`f32`, `Complex<f32>` data).
    Tf32,
    /// `f32` data, inputs rounded to `f16` on tensor cores.
    F32FastF16,
    /// `f32` data, inputs rounded to `bf16` on tensor cores.
    F32FastBf16,
    /// `f64` accumulation (`f64`, `Complex<f64>` data).
    F64,
    /// `f64` accumulation with no shortcut.
    F64Pedantic,
}

/// A resolved compute type: the library's value and whether scalars are `f16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Compute {
    pub raw: CT,
    pub half_scalars: bool,
}

impl ComputeType {
    /// The library's compute type for element type `T`, or `Err` when `T` does not support it.
    pub(crate) fn resolve<T: Element>(self) -> Result<Compute> {
        let dt = T::DATA_TYPE;
        let is = |d: cudaDataType| dt == d;
        let f32ish = is(cudaDataType::CUDA_R_32F) || is(cudaDataType::CUDA_C_32F);
        let half = is(cudaDataType::CUDA_R_16F) || is(cudaDataType::CUDA_R_16BF);
        let f64ish = is(cudaDataType::CUDA_R_64F) || is(cudaDataType::CUDA_C_64F);
        let raw = match self {
            ComputeType::Default if f64ish => CT::CUBLAS_COMPUTE_64F,
            ComputeType::Default => CT::CUBLAS_COMPUTE_32F,
            ComputeType::F16 if is(cudaDataType::CUDA_R_16F) => CT::CUBLAS_COMPUTE_16F,
            ComputeType::F32 if f32ish || half => CT::CUBLAS_COMPUTE_32F,
            ComputeType::F32Pedantic if f32ish || half => CT::CUBLAS_COMPUTE_32F_PEDANTIC,
            ComputeType::Tf32 if f32ish => CT::CUBLAS_COMPUTE_32F_FAST_TF32,
            ComputeType::F32FastF16 if f32ish => CT::CUBLAS_COMPUTE_32F_FAST_16F,
            ComputeType::F32FastBf16 if f32ish => CT::CUBLAS_COMPUTE_32F_FAST_16BF,
            ComputeType::F64 if f64ish => CT::CUBLAS_COMPUTE_64F,
            ComputeType::F64Pedantic if f64ish => CT::CUBLAS_COMPUTE_64F_PEDANTIC,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "compute type {other:?} is not available for {} elements",
                    T::NAME
                )));
            }
        };
        Ok(Compute {
            raw,
            half_scalars: raw == CT::CUBLAS_COMPUTE_16F,
        })
    }
}

/// `alpha` or `beta` as the bytes the library reads (host pointer mode): the scalar itself, or
/// its `f16` rounding under the `F16` compute type; always 16-byte aligned, which cuBLAS needs
/// for `Complex<f64>` scalars.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub(crate) struct ScalarBytes([u8; 16]);

impl ScalarBytes {
    pub fn new<S: Scalar>(s: S, compute: Compute) -> Self {
        let mut b = [0u8; 16];
        if compute.half_scalars {
            b[..2].copy_from_slice(&s.to_f16_bits().to_ne_bytes());
        } else {
            let src = bytemuck::bytes_of(&s);
            b[..src.len()].copy_from_slice(src);
        }
        ScalarBytes(b)
    }

    /// The scalar itself (no compute-type rounding), 16-byte aligned as cuBLAS loads
    /// `cuDoubleComplex` (a misaligned host scalar crashes it).
    pub fn plain<S: Scalar>(s: S) -> Self {
        let mut b = [0u8; 16];
        let src = bytemuck::bytes_of(&s);
        b[..src.len()].copy_from_slice(src);
        ScalarBytes(b)
    }

    pub fn ptr(&self) -> *const std::ffi::c_void {
        self.0.as_ptr().cast()
    }

    /// Whether every bit is zero (a `+0` scalar; `-0` counts as not zero).
    pub fn is_zero_bits(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }
}

/// How an operand enters a product: as is, transposed, or conjugate-transposed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Transpose {
    /// `op(A) = A`.
    #[default]
    None,
    /// `op(A) = Aᵀ`.
    Trans,
    /// `op(A) = Aᴴ` (the same as `Trans` for real types).
    ConjTrans,
}

impl Transpose {
    pub(crate) fn raw(self) -> cublasOperation_t {
        match self {
            Transpose::None => cublasOperation_t::CUBLAS_OP_N,
            Transpose::Trans => cublasOperation_t::CUBLAS_OP_T,
            Transpose::ConjTrans => cublasOperation_t::CUBLAS_OP_C,
        }
    }

    /// Whether the operand is transposed (either way).
    pub fn is_transposed(self) -> bool {
        self != Transpose::None
    }
}

/// Which triangle of a symmetric (Hermitian) matrix holds the data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Fill {
    /// The lower triangle.
    #[default]
    Lower,
    /// The upper triangle.
    Upper,
}

impl Fill {
    pub(crate) fn raw(self) -> cublasFillMode_t {
        match self {
            Fill::Lower => cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
            Fill::Upper => cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
        }
    }
}

// ----- checks shared by every library call -----

pub(crate) fn invalid(msg: String) -> Error {
    Error::InvalidArgument(msg)
}

/// `v` as a 32-bit library argument, or `Err` naming it (never truncated).
pub(crate) fn to_i32(call: &str, what: &str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| {
        invalid(format!(
            "{call}: {what} = {v} exceeds the 32-bit limit of the library's argument ({})",
            i32::MAX
        ))
    })
}

/// `v` as a 64-bit library argument, or `Err` naming it.
pub(crate) fn to_i64(call: &str, what: &str, v: usize) -> Result<i64> {
    i64::try_from(v).map_err(|_| {
        invalid(format!(
            "{call}: {what} = {v} exceeds the 64-bit limit of the library's argument"
        ))
    })
}

fn overflow(call: &str, what: &str) -> Error {
    invalid(format!("{call}: the size of {what} overflows usize"))
}

/// The elements a column-major `rows × cols` matrix with leading dimension `ld` spans:
/// `(cols - 1) * ld + rows`, 0 for an empty matrix. `Err` when `ld < max(1, rows)`.
pub(crate) fn col_major_extent(
    call: &str,
    what: &str,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<usize> {
    if ld < rows.max(1) {
        return Err(invalid(format!(
            "{call}: leading dimension of {what} is {ld}, but it must be at least max(1, rows) = {} \
             ({rows} × {cols} column-major)",
            rows.max(1)
        )));
    }
    if rows == 0 || cols == 0 {
        return Ok(0);
    }
    (cols - 1)
        .checked_mul(ld)
        .and_then(|x| x.checked_add(rows))
        .ok_or_else(|| overflow(call, what))
}

/// The elements `batch` matrices of `extent` elements each, `stride` apart, span.
pub(crate) fn batched_extent(
    call: &str,
    what: &str,
    extent: usize,
    batch: usize,
    stride: usize,
) -> Result<usize> {
    if batch == 0 || extent == 0 {
        return Ok(0);
    }
    (batch - 1)
        .checked_mul(stride)
        .and_then(|x| x.checked_add(extent))
        .ok_or_else(|| overflow(call, what))
}

/// The elements a vector of `n` elements with increment `inc` spans. `Err` for `inc == 0`.
pub(crate) fn vector_extent(call: &str, what: &str, n: usize, inc: usize) -> Result<usize> {
    if inc == 0 {
        return Err(invalid(format!(
            "{call}: the increment of {what} must be at least 1"
        )));
    }
    if n == 0 {
        return Ok(0);
    }
    (n - 1)
        .checked_mul(inc)
        .and_then(|x| x.checked_add(1))
        .ok_or_else(|| overflow(call, what))
}

/// `Err` unless `buf` holds at least `need` elements.
pub(crate) fn check_len<T>(
    call: &str,
    what: &str,
    buf: &(impl DeviceRead<T> + ?Sized),
    need: usize,
) -> Result<()> {
    if buf.len() < need {
        return Err(invalid(format!(
            "{call}: {what} has {} elements, but the given dimensions need {need}",
            buf.len()
        )));
    }
    Ok(())
}

/// `Err` unless `buf` belongs to the context of `stream`.
pub(crate) fn check_context<T>(
    call: &str,
    what: &str,
    stream: &Stream,
    buf: &(impl DeviceRead<T> + ?Sized),
) -> Result<()> {
    if !std::sync::Arc::ptr_eq(buf.tracker().context(), stream.context()) {
        return Err(invalid(format!(
            "{call}: {what} belongs to another context than the handle's stream"
        )));
    }
    Ok(())
}

/// The length checks for one column-major matrix operand of `len` elements: leading
/// dimension, and length for `batch` matrices `stride` apart. Returns one matrix's extent.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_extent(
    call: &str,
    what: &str,
    len: usize,
    rows: usize,
    cols: usize,
    ld: usize,
    batch: usize,
    stride: usize,
) -> Result<usize> {
    let extent = col_major_extent(call, what, rows, cols, ld)?;
    let need = batched_extent(call, what, extent, batch, stride)?;
    if len < need {
        return Err(invalid(format!(
            "{call}: {what} has {len} elements, but the given dimensions need {need}"
        )));
    }
    Ok(extent)
}

/// The common case of the checks above for one matrix operand: context, leading dimension,
/// and length for `batch` matrices `stride` apart.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_matrix<T>(
    call: &str,
    what: &str,
    stream: &Stream,
    buf: &(impl DeviceRead<T> + ?Sized),
    rows: usize,
    cols: usize,
    ld: usize,
    batch: usize,
    stride: usize,
) -> Result<usize> {
    check_context(call, what, stream, buf)?;
    check_extent(call, what, buf.len(), rows, cols, ld, batch, stride)
}
