//! cuSOLVER, dense part (`libcusolver`, `cusolverDn*`): the status and mode enums, the handle
//! and parameter types, and the functions the safe layer (`cuprite_driver::solver`) calls: the 64-bit
//! generic API (`cusolverDnX*`: one entry point for every element type) where it exists, the
//! general eigensolver `cusolverDnXgeev` (CUDA 12.6 and later), the
//! typed 32-bit API for `orgqr`/`ungqr` and the Jacobi SVD, which have no generic form.
//!
//! Loaded on first call from where [`CUSOLVER_SPEC`](crate::libraries::CUSOLVER_SPEC) says; a
//! missing library or symbol is an `Err` of that call. Matrices are column-major (LAPACK).

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use crate::cublas::{
    cuComplex, cuDoubleComplex, cublasFillMode_t, cublasOperation_t, cudaDataType, cudaStream_t,
    libraryPropertyType,
};
use crate::libraries::CUSOLVER;
use core::ffi::{c_char, c_int, c_void};

/// A cuSOLVER status code.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusolverStatus_t(pub c_int);

impl cusolverStatus_t {
    pub const CUSOLVER_STATUS_SUCCESS: Self = Self(0);
    pub const CUSOLVER_STATUS_NOT_INITIALIZED: Self = Self(1);
    pub const CUSOLVER_STATUS_ALLOC_FAILED: Self = Self(2);
    pub const CUSOLVER_STATUS_INVALID_VALUE: Self = Self(3);
    pub const CUSOLVER_STATUS_ARCH_MISMATCH: Self = Self(4);
    pub const CUSOLVER_STATUS_MAPPING_ERROR: Self = Self(5);
    pub const CUSOLVER_STATUS_EXECUTION_FAILED: Self = Self(6);
    pub const CUSOLVER_STATUS_INTERNAL_ERROR: Self = Self(7);
    pub const CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: Self = Self(8);
    pub const CUSOLVER_STATUS_NOT_SUPPORTED: Self = Self(9);
    pub const CUSOLVER_STATUS_ZERO_PIVOT: Self = Self(10);
    pub const CUSOLVER_STATUS_INVALID_LICENSE: Self = Self(11);
    pub const CUSOLVER_STATUS_INVALID_WORKSPACE: Self = Self(31);

    /// Whether this is `CUSOLVER_STATUS_SUCCESS`.
    #[inline(always)]
    pub fn is_success(self) -> bool {
        self.0 == 0
    }

    /// The `CUSOLVER_STATUS_*` name of this code, if it is one cuSOLVER documents.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "CUSOLVER_STATUS_SUCCESS",
            1 => "CUSOLVER_STATUS_NOT_INITIALIZED",
            2 => "CUSOLVER_STATUS_ALLOC_FAILED",
            3 => "CUSOLVER_STATUS_INVALID_VALUE",
            4 => "CUSOLVER_STATUS_ARCH_MISMATCH",
            5 => "CUSOLVER_STATUS_MAPPING_ERROR",
            6 => "CUSOLVER_STATUS_EXECUTION_FAILED",
            7 => "CUSOLVER_STATUS_INTERNAL_ERROR",
            8 => "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
            9 => "CUSOLVER_STATUS_NOT_SUPPORTED",
            10 => "CUSOLVER_STATUS_ZERO_PIVOT",
            11 => "CUSOLVER_STATUS_INVALID_LICENSE",
            12 => "CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED",
            13 => "CUSOLVER_STATUS_IRS_PARAMS_INVALID",
            14 => "CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC",
            15 => "CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE",
            16 => "CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER",
            20 => "CUSOLVER_STATUS_IRS_INTERNAL_ERROR",
            21 => "CUSOLVER_STATUS_IRS_NOT_SUPPORTED",
            22 => "CUSOLVER_STATUS_IRS_OUT_OF_RANGE",
            23 => "CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES",
            25 => "CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED",
            26 => "CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED",
            30 => "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR",
            31 => "CUSOLVER_STATUS_INVALID_WORKSPACE",
            _ => return None,
        })
    }
}

/// Whether an eigen- or singular-value routine also computes vectors.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusolverEigMode_t(pub c_int);

impl cusolverEigMode_t {
    pub const CUSOLVER_EIG_MODE_NOVECTOR: Self = Self(0);
    pub const CUSOLVER_EIG_MODE_VECTOR: Self = Self(1);
}

/// The routine a `cusolverDnSetAdvOptions` call configures.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusolverDnFunction_t(pub c_int);

impl cusolverDnFunction_t {
    pub const CUSOLVERDN_GETRF: Self = Self(0);
    pub const CUSOLVERDN_POTRF: Self = Self(1);
    pub const CUSOLVERDN_GEQRF: Self = Self(3);
    pub const CUSOLVERDN_SYEVD: Self = Self(4);
    pub const CUSOLVERDN_GESVD: Self = Self(5);
}

/// The algorithm `cusolverDnSetAdvOptions` selects.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusolverAlgMode_t(pub c_int);

impl cusolverAlgMode_t {
    pub const CUSOLVER_ALG_0: Self = Self(0);
    pub const CUSOLVER_ALG_1: Self = Self(1);
    pub const CUSOLVER_ALG_2: Self = Self(2);
}

#[repr(C)]
#[derive(Debug)]
pub struct cusolverDnContext {
    _private: [u8; 0],
}
/// A dense cuSOLVER handle.
pub type cusolverDnHandle_t = *mut cusolverDnContext;

#[repr(C)]
#[derive(Debug)]
pub struct cusolverDnParams {
    _private: [u8; 0],
}
/// Options of the 64-bit generic API.
pub type cusolverDnParams_t = *mut cusolverDnParams;

#[repr(C)]
#[derive(Debug)]
pub struct gesvdjInfo {
    _private: [u8; 0],
}
/// Options and results of the Jacobi SVD.
pub type gesvdjInfo_t = *mut gesvdjInfo;

crate::dyn_functions! {
    library: CUSOLVER;
    fn cusolverGetProperty(kind: libraryPropertyType, value: *mut c_int) -> cusolverStatus_t;
    fn cusolverGetVersion(version: *mut c_int) -> cusolverStatus_t;
    fn cusolverDnCreate(handle: *mut cusolverDnHandle_t) -> cusolverStatus_t;
    fn cusolverDnDestroy(handle: cusolverDnHandle_t) -> cusolverStatus_t;
    fn cusolverDnSetStream(handle: cusolverDnHandle_t, stream: cudaStream_t) -> cusolverStatus_t;
    fn cusolverDnCreateParams(params: *mut cusolverDnParams_t) -> cusolverStatus_t;
    fn cusolverDnDestroyParams(params: cusolverDnParams_t) -> cusolverStatus_t;
    fn cusolverDnSetAdvOptions(
        params: cusolverDnParams_t, function: cusolverDnFunction_t, algo: cusolverAlgMode_t
    ) -> cusolverStatus_t;

    fn cusolverDnXgetrf_bufferSize(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, m: i64, n: i64,
        a_type: cudaDataType, a: *const c_void, lda: i64, compute: cudaDataType,
        device_bytes: *mut usize, host_bytes: *mut usize
    ) -> cusolverStatus_t;
    fn cusolverDnXgetrf(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, m: i64, n: i64,
        a_type: cudaDataType, a: *mut c_void, lda: i64, ipiv: *mut i64, compute: cudaDataType,
        device_buf: *mut c_void, device_bytes: usize, host_buf: *mut c_void, host_bytes: usize,
        info: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnXgetrs(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, trans: cublasOperation_t,
        n: i64, nrhs: i64, a_type: cudaDataType, a: *const c_void, lda: i64, ipiv: *const i64,
        b_type: cudaDataType, b: *mut c_void, ldb: i64, info: *mut c_int
    ) -> cusolverStatus_t;

    fn cusolverDnXpotrf_bufferSize(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, uplo: cublasFillMode_t, n: i64,
        a_type: cudaDataType, a: *const c_void, lda: i64, compute: cudaDataType,
        device_bytes: *mut usize, host_bytes: *mut usize
    ) -> cusolverStatus_t;
    fn cusolverDnXpotrf(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, uplo: cublasFillMode_t, n: i64,
        a_type: cudaDataType, a: *mut c_void, lda: i64, compute: cudaDataType,
        device_buf: *mut c_void, device_bytes: usize, host_buf: *mut c_void, host_bytes: usize,
        info: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnXpotrs(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, uplo: cublasFillMode_t, n: i64,
        nrhs: i64, a_type: cudaDataType, a: *const c_void, lda: i64,
        b_type: cudaDataType, b: *mut c_void, ldb: i64, info: *mut c_int
    ) -> cusolverStatus_t;

    fn cusolverDnXgeqrf_bufferSize(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, m: i64, n: i64,
        a_type: cudaDataType, a: *const c_void, lda: i64, tau_type: cudaDataType,
        tau: *const c_void, compute: cudaDataType, device_bytes: *mut usize, host_bytes: *mut usize
    ) -> cusolverStatus_t;
    fn cusolverDnXgeqrf(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, m: i64, n: i64,
        a_type: cudaDataType, a: *mut c_void, lda: i64, tau_type: cudaDataType, tau: *mut c_void,
        compute: cudaDataType,
        device_buf: *mut c_void, device_bytes: usize, host_buf: *mut c_void, host_bytes: usize,
        info: *mut c_int
    ) -> cusolverStatus_t;

    fn cusolverDnSorgqr_bufferSize(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *const f32, lda: c_int,
        tau: *const f32, lwork: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnDorgqr_bufferSize(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *const f64, lda: c_int,
        tau: *const f64, lwork: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnCungqr_bufferSize(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *const cuComplex, lda: c_int,
        tau: *const cuComplex, lwork: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnZungqr_bufferSize(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *const cuDoubleComplex,
        lda: c_int, tau: *const cuDoubleComplex, lwork: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnSorgqr(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *mut f32, lda: c_int,
        tau: *const f32, work: *mut f32, lwork: c_int, info: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnDorgqr(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *mut f64, lda: c_int,
        tau: *const f64, work: *mut f64, lwork: c_int, info: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnCungqr(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *mut cuComplex, lda: c_int,
        tau: *const cuComplex, work: *mut cuComplex, lwork: c_int, info: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnZungqr(
        handle: cusolverDnHandle_t, m: c_int, n: c_int, k: c_int, a: *mut cuDoubleComplex,
        lda: c_int, tau: *const cuDoubleComplex, work: *mut cuDoubleComplex, lwork: c_int,
        info: *mut c_int
    ) -> cusolverStatus_t;

    fn cusolverDnXgesvd_bufferSize(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobu: c_char, jobvt: c_char,
        m: i64, n: i64, a_type: cudaDataType, a: *const c_void, lda: i64,
        s_type: cudaDataType, s: *const c_void, u_type: cudaDataType, u: *const c_void, ldu: i64,
        vt_type: cudaDataType, vt: *const c_void, ldvt: i64, compute: cudaDataType,
        device_bytes: *mut usize, host_bytes: *mut usize
    ) -> cusolverStatus_t;
    fn cusolverDnXgesvd(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobu: c_char, jobvt: c_char,
        m: i64, n: i64, a_type: cudaDataType, a: *mut c_void, lda: i64,
        s_type: cudaDataType, s: *mut c_void, u_type: cudaDataType, u: *mut c_void, ldu: i64,
        vt_type: cudaDataType, vt: *mut c_void, ldvt: i64, compute: cudaDataType,
        device_buf: *mut c_void, device_bytes: usize, host_buf: *mut c_void, host_bytes: usize,
        info: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnXgesvdp_bufferSize(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobz: cusolverEigMode_t,
        econ: c_int, m: i64, n: i64, a_type: cudaDataType, a: *const c_void, lda: i64,
        s_type: cudaDataType, s: *const c_void, u_type: cudaDataType, u: *const c_void, ldu: i64,
        v_type: cudaDataType, v: *const c_void, ldv: i64, compute: cudaDataType,
        device_bytes: *mut usize, host_bytes: *mut usize
    ) -> cusolverStatus_t;
    fn cusolverDnXgesvdp(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobz: cusolverEigMode_t,
        econ: c_int, m: i64, n: i64, a_type: cudaDataType, a: *mut c_void, lda: i64,
        s_type: cudaDataType, s: *mut c_void, u_type: cudaDataType, u: *mut c_void, ldu: i64,
        v_type: cudaDataType, v: *mut c_void, ldv: i64, compute: cudaDataType,
        device_buf: *mut c_void, device_bytes: usize, host_buf: *mut c_void, host_bytes: usize,
        info: *mut c_int, err_sigma: *mut f64
    ) -> cusolverStatus_t;

    fn cusolverDnCreateGesvdjInfo(info: *mut gesvdjInfo_t) -> cusolverStatus_t;
    fn cusolverDnDestroyGesvdjInfo(info: gesvdjInfo_t) -> cusolverStatus_t;
    fn cusolverDnXgesvdjSetTolerance(info: gesvdjInfo_t, tolerance: f64) -> cusolverStatus_t;
    fn cusolverDnXgesvdjSetMaxSweeps(info: gesvdjInfo_t, max_sweeps: c_int) -> cusolverStatus_t;
    fn cusolverDnXgesvdjGetSweeps(
        handle: cusolverDnHandle_t, info: gesvdjInfo_t, sweeps: *mut c_int
    ) -> cusolverStatus_t;
    fn cusolverDnXgesvdjGetResidual(
        handle: cusolverDnHandle_t, info: gesvdjInfo_t, residual: *mut f64
    ) -> cusolverStatus_t;
    fn cusolverDnSgesvdj_bufferSize(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *const f32, lda: c_int, s: *const f32, u: *const f32, ldu: c_int, v: *const f32,
        ldv: c_int, lwork: *mut c_int, params: gesvdjInfo_t
    ) -> cusolverStatus_t;
    fn cusolverDnDgesvdj_bufferSize(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *const f64, lda: c_int, s: *const f64, u: *const f64, ldu: c_int, v: *const f64,
        ldv: c_int, lwork: *mut c_int, params: gesvdjInfo_t
    ) -> cusolverStatus_t;
    fn cusolverDnCgesvdj_bufferSize(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *const cuComplex, lda: c_int, s: *const f32, u: *const cuComplex, ldu: c_int,
        v: *const cuComplex, ldv: c_int, lwork: *mut c_int, params: gesvdjInfo_t
    ) -> cusolverStatus_t;
    fn cusolverDnZgesvdj_bufferSize(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *const cuDoubleComplex, lda: c_int, s: *const f64, u: *const cuDoubleComplex,
        ldu: c_int, v: *const cuDoubleComplex, ldv: c_int, lwork: *mut c_int, params: gesvdjInfo_t
    ) -> cusolverStatus_t;
    fn cusolverDnSgesvdj(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *mut f32, lda: c_int, s: *mut f32, u: *mut f32, ldu: c_int, v: *mut f32, ldv: c_int,
        work: *mut f32, lwork: c_int, info: *mut c_int, params: gesvdjInfo_t
    ) -> cusolverStatus_t;
    fn cusolverDnDgesvdj(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *mut f64, lda: c_int, s: *mut f64, u: *mut f64, ldu: c_int, v: *mut f64, ldv: c_int,
        work: *mut f64, lwork: c_int, info: *mut c_int, params: gesvdjInfo_t
    ) -> cusolverStatus_t;
    fn cusolverDnCgesvdj(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *mut cuComplex, lda: c_int, s: *mut f32, u: *mut cuComplex, ldu: c_int,
        v: *mut cuComplex, ldv: c_int, work: *mut cuComplex, lwork: c_int, info: *mut c_int,
        params: gesvdjInfo_t
    ) -> cusolverStatus_t;
    fn cusolverDnZgesvdj(
        handle: cusolverDnHandle_t, jobz: cusolverEigMode_t, econ: c_int, m: c_int, n: c_int,
        a: *mut cuDoubleComplex, lda: c_int, s: *mut f64, u: *mut cuDoubleComplex, ldu: c_int,
        v: *mut cuDoubleComplex, ldv: c_int, work: *mut cuDoubleComplex, lwork: c_int,
        info: *mut c_int, params: gesvdjInfo_t
    ) -> cusolverStatus_t;

    fn cusolverDnXgeev_bufferSize(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobvl: cusolverEigMode_t,
        jobvr: cusolverEigMode_t, n: i64, a_type: cudaDataType, a: *const c_void, lda: i64,
        w_type: cudaDataType, w: *const c_void, vl_type: cudaDataType, vl: *const c_void,
        ldvl: i64, vr_type: cudaDataType, vr: *const c_void, ldvr: i64, compute: cudaDataType,
        device_bytes: *mut usize, host_bytes: *mut usize
    ) -> cusolverStatus_t;
    fn cusolverDnXgeev(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobvl: cusolverEigMode_t,
        jobvr: cusolverEigMode_t, n: i64, a_type: cudaDataType, a: *mut c_void, lda: i64,
        w_type: cudaDataType, w: *mut c_void, vl_type: cudaDataType, vl: *mut c_void,
        ldvl: i64, vr_type: cudaDataType, vr: *mut c_void, ldvr: i64, compute: cudaDataType,
        device_buf: *mut c_void, device_bytes: usize, host_buf: *mut c_void, host_bytes: usize,
        info: *mut c_int
    ) -> cusolverStatus_t;

    fn cusolverDnXsyevd_bufferSize(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t, n: i64, a_type: cudaDataType, a: *const c_void, lda: i64,
        w_type: cudaDataType, w: *const c_void, compute: cudaDataType,
        device_bytes: *mut usize, host_bytes: *mut usize
    ) -> cusolverStatus_t;
    fn cusolverDnXsyevd(
        handle: cusolverDnHandle_t, params: cusolverDnParams_t, jobz: cusolverEigMode_t,
        uplo: cublasFillMode_t, n: i64, a_type: cudaDataType, a: *mut c_void, lda: i64,
        w_type: cudaDataType, w: *mut c_void, compute: cudaDataType,
        device_buf: *mut c_void, device_bytes: usize, host_buf: *mut c_void, host_bytes: usize,
        info: *mut c_int
    ) -> cusolverStatus_t;
}
