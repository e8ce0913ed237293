//! cuBLAS (`libcublas`): the status, operation and type enums, the handle, and the functions the
//! safe layer (`cuprite_driver::blas`) calls, and the CUDA library-wide `cudaDataType` and
//! `libraryPropertyType` of [`crate::library_types`], re-exported here since every cuBLAS,
//! cuBLASLt and cuSOLVER call takes them.
//!
//! Loaded on first call from where [`CUBLAS_SPEC`](crate::libraries::CUBLAS_SPEC) says; a missing
//! library or symbol is an `Err` of that call. All matrices are column-major (BLAS convention).

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use crate::driver::CUstream;
use crate::libraries::CUBLAS;
pub use crate::library_types::{cudaDataType, libraryPropertyType};
use core::ffi::{c_char, c_int, c_longlong, c_void};

/// A cuBLAS (and cuBLASLt) status code.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasStatus_t(pub c_int);

impl cublasStatus_t {
    pub const CUBLAS_STATUS_SUCCESS: Self = Self(0);
    pub const CUBLAS_STATUS_NOT_INITIALIZED: Self = Self(1);
    pub const CUBLAS_STATUS_ALLOC_FAILED: Self = Self(3);
    pub const CUBLAS_STATUS_INVALID_VALUE: Self = Self(7);
    pub const CUBLAS_STATUS_ARCH_MISMATCH: Self = Self(8);
    pub const CUBLAS_STATUS_MAPPING_ERROR: Self = Self(11);
    pub const CUBLAS_STATUS_EXECUTION_FAILED: Self = Self(13);
    pub const CUBLAS_STATUS_INTERNAL_ERROR: Self = Self(14);
    pub const CUBLAS_STATUS_NOT_SUPPORTED: Self = Self(15);
    pub const CUBLAS_STATUS_LICENSE_ERROR: Self = Self(16);

    /// Whether this is `CUBLAS_STATUS_SUCCESS`.
    #[inline(always)]
    pub fn is_success(self) -> bool {
        self.0 == 0
    }

    /// The `CUBLAS_STATUS_*` name of this code, if it is one cuBLAS documents.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "CUBLAS_STATUS_SUCCESS",
            1 => "CUBLAS_STATUS_NOT_INITIALIZED",
            3 => "CUBLAS_STATUS_ALLOC_FAILED",
            7 => "CUBLAS_STATUS_INVALID_VALUE",
            8 => "CUBLAS_STATUS_ARCH_MISMATCH",
            11 => "CUBLAS_STATUS_MAPPING_ERROR",
            13 => "CUBLAS_STATUS_EXECUTION_FAILED",
            14 => "CUBLAS_STATUS_INTERNAL_ERROR",
            15 => "CUBLAS_STATUS_NOT_SUPPORTED",
            16 => "CUBLAS_STATUS_LICENSE_ERROR",
            _ => return None,
        })
    }
}

/// Whether an operand is used as is, transposed, or conjugate-transposed.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasOperation_t(pub c_int);

impl cublasOperation_t {
    pub const CUBLAS_OP_N: Self = Self(0);
    pub const CUBLAS_OP_T: Self = Self(1);
    pub const CUBLAS_OP_C: Self = Self(2);
}

/// Which triangle of a matrix is referenced.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasFillMode_t(pub c_int);

impl cublasFillMode_t {
    pub const CUBLAS_FILL_MODE_LOWER: Self = Self(0);
    pub const CUBLAS_FILL_MODE_UPPER: Self = Self(1);
    pub const CUBLAS_FILL_MODE_FULL: Self = Self(2);
}

/// Which side of the right-hand sides a triangular matrix stands on (`trsm`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasSideMode_t(pub c_int);

impl cublasSideMode_t {
    pub const CUBLAS_SIDE_LEFT: Self = Self(0);
    pub const CUBLAS_SIDE_RIGHT: Self = Self(1);
}

/// Whether a triangular matrix's diagonal is read or taken as all ones.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasDiagType_t(pub c_int);

impl cublasDiagType_t {
    pub const CUBLAS_DIAG_NON_UNIT: Self = Self(0);
    pub const CUBLAS_DIAG_UNIT: Self = Self(1);
}

/// Whether scalars (alpha, beta, results) live in host or device memory.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasPointerMode_t(pub c_int);

impl cublasPointerMode_t {
    pub const CUBLAS_POINTER_MODE_HOST: Self = Self(0);
    pub const CUBLAS_POINTER_MODE_DEVICE: Self = Self(1);
}

/// The handle-wide math mode (`cublasSetMathMode`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasMath_t(pub c_int);

impl cublasMath_t {
    pub const CUBLAS_DEFAULT_MATH: Self = Self(0);
    pub const CUBLAS_PEDANTIC_MATH: Self = Self(2);
    pub const CUBLAS_TF32_TENSOR_OP_MATH: Self = Self(3);
    pub const CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION: Self = Self(16);
}

/// The precision of multiply-accumulate in the `*Ex` functions and cuBLASLt.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasComputeType_t(pub c_int);

impl cublasComputeType_t {
    pub const CUBLAS_COMPUTE_16F: Self = Self(64);
    pub const CUBLAS_COMPUTE_16F_PEDANTIC: Self = Self(65);
    pub const CUBLAS_COMPUTE_32F: Self = Self(68);
    pub const CUBLAS_COMPUTE_32F_PEDANTIC: Self = Self(69);
    pub const CUBLAS_COMPUTE_32F_FAST_16F: Self = Self(74);
    pub const CUBLAS_COMPUTE_32F_FAST_16BF: Self = Self(75);
    pub const CUBLAS_COMPUTE_32F_FAST_TF32: Self = Self(77);
    pub const CUBLAS_COMPUTE_64F: Self = Self(70);
    pub const CUBLAS_COMPUTE_64F_PEDANTIC: Self = Self(71);
    pub const CUBLAS_COMPUTE_32I: Self = Self(72);
    pub const CUBLAS_COMPUTE_32I_PEDANTIC: Self = Self(73);
}

/// The GEMM algorithm of `cublasGemmEx` (since CUDA 11 only the defaults matter).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasGemmAlgo_t(pub c_int);

impl cublasGemmAlgo_t {
    pub const CUBLAS_GEMM_DEFAULT: Self = Self(-1);
    pub const CUBLAS_GEMM_DEFAULT_TENSOR_OP: Self = Self(99);
}

#[repr(C)]
#[derive(Debug)]
pub struct cublasContext {
    _private: [u8; 0],
}
/// A cuBLAS handle.
pub type cublasHandle_t = *mut cublasContext;
/// The runtime's stream type: the same object as the driver's `CUstream`.
pub type cudaStream_t = CUstream;
/// `cuComplex`: real and imaginary `float`s.
pub type cuComplex = [f32; 2];
/// `cuDoubleComplex`: real and imaginary `double`s.
pub type cuDoubleComplex = [f64; 2];
/// `__half`, as its bits.
pub type half = u16;
/// `__nv_bfloat16`, as its bits.
pub type bfloat16 = u16;

crate::dyn_functions! {
    library: CUBLAS;
    fn cublasCreate_v2(handle: *mut cublasHandle_t) -> cublasStatus_t;
    fn cublasDestroy_v2(handle: cublasHandle_t) -> cublasStatus_t;
    fn cublasGetVersion_v2(handle: cublasHandle_t, version: *mut c_int) -> cublasStatus_t;
    fn cublasGetProperty(kind: libraryPropertyType, value: *mut c_int) -> cublasStatus_t;
    fn cublasGetStatusName(status: cublasStatus_t) -> *const c_char;
    fn cublasGetStatusString(status: cublasStatus_t) -> *const c_char;
    fn cublasSetStream_v2(handle: cublasHandle_t, stream: cudaStream_t) -> cublasStatus_t;
    fn cublasGetStream_v2(handle: cublasHandle_t, stream: *mut cudaStream_t) -> cublasStatus_t;
    fn cublasSetWorkspace_v2(handle: cublasHandle_t, workspace: *mut c_void, bytes: usize) -> cublasStatus_t;
    fn cublasSetPointerMode_v2(handle: cublasHandle_t, mode: cublasPointerMode_t) -> cublasStatus_t;
    fn cublasGetPointerMode_v2(handle: cublasHandle_t, mode: *mut cublasPointerMode_t) -> cublasStatus_t;
    fn cublasSetMathMode(handle: cublasHandle_t, mode: cublasMath_t) -> cublasStatus_t;
    fn cublasGetMathMode(handle: cublasHandle_t, mode: *mut cublasMath_t) -> cublasStatus_t;

    fn cublasGemmEx(
        handle: cublasHandle_t, transa: cublasOperation_t, transb: cublasOperation_t,
        m: c_int, n: c_int, k: c_int,
        alpha: *const c_void,
        a: *const c_void, a_type: cudaDataType, lda: c_int,
        b: *const c_void, b_type: cudaDataType, ldb: c_int,
        beta: *const c_void,
        c: *mut c_void, c_type: cudaDataType, ldc: c_int,
        compute: cublasComputeType_t, algo: cublasGemmAlgo_t
    ) -> cublasStatus_t;
    fn cublasGemmStridedBatchedEx(
        handle: cublasHandle_t, transa: cublasOperation_t, transb: cublasOperation_t,
        m: c_int, n: c_int, k: c_int,
        alpha: *const c_void,
        a: *const c_void, a_type: cudaDataType, lda: c_int, stride_a: c_longlong,
        b: *const c_void, b_type: cudaDataType, ldb: c_int, stride_b: c_longlong,
        beta: *const c_void,
        c: *mut c_void, c_type: cudaDataType, ldc: c_int, stride_c: c_longlong,
        batch_count: c_int, compute: cublasComputeType_t, algo: cublasGemmAlgo_t
    ) -> cublasStatus_t;

    fn cublasSgemv_v2(
        handle: cublasHandle_t, trans: cublasOperation_t, m: c_int, n: c_int,
        alpha: *const f32, a: *const f32, lda: c_int, x: *const f32, incx: c_int,
        beta: *const f32, y: *mut f32, incy: c_int
    ) -> cublasStatus_t;
    fn cublasDgemv_v2(
        handle: cublasHandle_t, trans: cublasOperation_t, m: c_int, n: c_int,
        alpha: *const f64, a: *const f64, lda: c_int, x: *const f64, incx: c_int,
        beta: *const f64, y: *mut f64, incy: c_int
    ) -> cublasStatus_t;
    fn cublasCgemv_v2(
        handle: cublasHandle_t, trans: cublasOperation_t, m: c_int, n: c_int,
        alpha: *const cuComplex, a: *const cuComplex, lda: c_int, x: *const cuComplex, incx: c_int,
        beta: *const cuComplex, y: *mut cuComplex, incy: c_int
    ) -> cublasStatus_t;
    fn cublasZgemv_v2(
        handle: cublasHandle_t, trans: cublasOperation_t, m: c_int, n: c_int,
        alpha: *const cuDoubleComplex, a: *const cuDoubleComplex, lda: c_int,
        x: *const cuDoubleComplex, incx: c_int,
        beta: *const cuDoubleComplex, y: *mut cuDoubleComplex, incy: c_int
    ) -> cublasStatus_t;
    /// Half-precision matrix and vectors, `float` scalars and accumulation.
    fn cublasHSHgemvStridedBatched(
        handle: cublasHandle_t, trans: cublasOperation_t, m: c_int, n: c_int,
        alpha: *const f32, a: *const half, lda: c_int, stride_a: c_longlong,
        x: *const half, incx: c_int, stride_x: c_longlong,
        beta: *const f32, y: *mut half, incy: c_int, stride_y: c_longlong, batch_count: c_int
    ) -> cublasStatus_t;
    /// bfloat16 matrix and vectors, `float` scalars and accumulation.
    fn cublasTSTgemvStridedBatched(
        handle: cublasHandle_t, trans: cublasOperation_t, m: c_int, n: c_int,
        alpha: *const f32, a: *const bfloat16, lda: c_int, stride_a: c_longlong,
        x: *const bfloat16, incx: c_int, stride_x: c_longlong,
        beta: *const f32, y: *mut bfloat16, incy: c_int, stride_y: c_longlong, batch_count: c_int
    ) -> cublasStatus_t;

    fn cublasStrsm_v2(
        handle: cublasHandle_t, side: cublasSideMode_t, uplo: cublasFillMode_t,
        trans: cublasOperation_t, diag: cublasDiagType_t, m: c_int, n: c_int,
        alpha: *const f32, a: *const f32, lda: c_int, b: *mut f32, ldb: c_int
    ) -> cublasStatus_t;
    fn cublasDtrsm_v2(
        handle: cublasHandle_t, side: cublasSideMode_t, uplo: cublasFillMode_t,
        trans: cublasOperation_t, diag: cublasDiagType_t, m: c_int, n: c_int,
        alpha: *const f64, a: *const f64, lda: c_int, b: *mut f64, ldb: c_int
    ) -> cublasStatus_t;
    fn cublasCtrsm_v2(
        handle: cublasHandle_t, side: cublasSideMode_t, uplo: cublasFillMode_t,
        trans: cublasOperation_t, diag: cublasDiagType_t, m: c_int, n: c_int,
        alpha: *const cuComplex, a: *const cuComplex, lda: c_int, b: *mut cuComplex, ldb: c_int
    ) -> cublasStatus_t;
    fn cublasZtrsm_v2(
        handle: cublasHandle_t, side: cublasSideMode_t, uplo: cublasFillMode_t,
        trans: cublasOperation_t, diag: cublasDiagType_t, m: c_int, n: c_int,
        alpha: *const cuDoubleComplex, a: *const cuDoubleComplex, lda: c_int,
        b: *mut cuDoubleComplex, ldb: c_int
    ) -> cublasStatus_t;

    fn cublasDotEx(
        handle: cublasHandle_t, n: c_int,
        x: *const c_void, x_type: cudaDataType, incx: c_int,
        y: *const c_void, y_type: cudaDataType, incy: c_int,
        result: *mut c_void, result_type: cudaDataType, execution_type: cudaDataType
    ) -> cublasStatus_t;
    fn cublasDotcEx(
        handle: cublasHandle_t, n: c_int,
        x: *const c_void, x_type: cudaDataType, incx: c_int,
        y: *const c_void, y_type: cudaDataType, incy: c_int,
        result: *mut c_void, result_type: cudaDataType, execution_type: cudaDataType
    ) -> cublasStatus_t;
    fn cublasAxpyEx(
        handle: cublasHandle_t, n: c_int,
        alpha: *const c_void, alpha_type: cudaDataType,
        x: *const c_void, x_type: cudaDataType, incx: c_int,
        y: *mut c_void, y_type: cudaDataType, incy: c_int,
        execution_type: cudaDataType
    ) -> cublasStatus_t;
    fn cublasNrm2Ex(
        handle: cublasHandle_t, n: c_int,
        x: *const c_void, x_type: cudaDataType, incx: c_int,
        result: *mut c_void, result_type: cudaDataType, execution_type: cudaDataType
    ) -> cublasStatus_t;
}
