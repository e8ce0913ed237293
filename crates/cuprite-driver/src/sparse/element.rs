//! The value and index types cuSPARSE's generic API takes.

use cuprite_sys::cusparse::{cudaDataType, cusparseIndexType_t};
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for num_complex::Complex<f32> {}
    impl Sealed for num_complex::Complex<f64> {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// A value type of the sparse products: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`. The
/// products compute in the value type's own precision, with `alpha` and `beta` of that type.
pub trait SparseElement:
    crate::memory::DeviceCopy + bytemuck::Pod + std::fmt::Debug + sealed::Sealed
{
    /// The library's data type (also the compute type).
    const DATA_TYPE: cudaDataType;
    /// Whether the type is complex.
    const IS_COMPLEX: bool;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
}

impl SparseElement for f32 {
    const DATA_TYPE: cudaDataType = cudaDataType::CUDA_R_32F;
    const IS_COMPLEX: bool = false;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
}
impl SparseElement for f64 {
    const DATA_TYPE: cudaDataType = cudaDataType::CUDA_R_64F;
    const IS_COMPLEX: bool = false;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
}
impl SparseElement for Complex<f32> {
    const DATA_TYPE: cudaDataType = cudaDataType::CUDA_C_32F;
    const IS_COMPLEX: bool = true;
    const ZERO: Self = Complex::new(0.0, 0.0);
    const ONE: Self = Complex::new(1.0, 0.0);
}
impl SparseElement for Complex<f64> {
    const DATA_TYPE: cudaDataType = cudaDataType::CUDA_C_64F;
    const IS_COMPLEX: bool = true;
    const ZERO: Self = Complex::new(0.0, 0.0);
    const ONE: Self = Complex::new(1.0, 0.0);
}

/// An index type of the sparse formats: `i32` or `i64`.
pub trait SparseIndex:
    crate::memory::DeviceCopy + bytemuck::Pod + std::fmt::Debug + Eq + sealed::Sealed
{
    /// The library's index type.
    const INDEX_TYPE: cusparseIndexType_t;
    /// The largest value, as `usize` where it fits.
    const MAX: u64;
}

impl SparseIndex for i32 {
    const INDEX_TYPE: cusparseIndexType_t = cusparseIndexType_t::CUSPARSE_INDEX_32I;
    const MAX: u64 = i32::MAX as u64;
}
impl SparseIndex for i64 {
    const INDEX_TYPE: cusparseIndexType_t = cusparseIndexType_t::CUSPARSE_INDEX_64I;
    const MAX: u64 = i64::MAX as u64;
}
