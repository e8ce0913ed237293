//! cuSPARSE (`libcusparse`): the status and option enums, the handle and descriptor types, and
//! the functions the safe layer (`cuprite_driver::sparse`) calls: the generic API (sparse and
//! dense descriptors, SpMV, SpMM, SpGEMM, the triangular solves SpSV and SpSM), the format
//! conversions `Xcoo2csr` and `Csr2cscEx2`, and the legacy incomplete factorisations
//! `csrilu02` and `csric02` (with their legacy matrix descriptor, `int` sizes and indices).
//!
//! Loaded on first call from where [`CUSPARSE_SPEC`](crate::libraries::CUSPARSE_SPEC) says; a
//! missing library or symbol is an `Err` of that call. Indices are 0-based unless a descriptor
//! says otherwise; the generic API takes every size as `i64`.

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use crate::driver::CUstream;
use crate::libraries::CUSPARSE;
pub use crate::library_types::{cudaDataType, libraryPropertyType};
use core::ffi::{c_char, c_int, c_void};

/// A cuSPARSE status code.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct cusparseStatus_t(pub c_int);

/// Every status `cusparse.h` declares, with its name.
pub const CUSPARSESTATUS_NAMES: &[(cusparseStatus_t, &str)] = &[
    (cusparseStatus_t(0), "CUSPARSE_STATUS_SUCCESS"),
    (cusparseStatus_t(1), "CUSPARSE_STATUS_NOT_INITIALIZED"),
    (cusparseStatus_t(2), "CUSPARSE_STATUS_ALLOC_FAILED"),
    (cusparseStatus_t(3), "CUSPARSE_STATUS_INVALID_VALUE"),
    (cusparseStatus_t(4), "CUSPARSE_STATUS_ARCH_MISMATCH"),
    (cusparseStatus_t(5), "CUSPARSE_STATUS_MAPPING_ERROR"),
    (cusparseStatus_t(6), "CUSPARSE_STATUS_EXECUTION_FAILED"),
    (cusparseStatus_t(7), "CUSPARSE_STATUS_INTERNAL_ERROR"),
    (
        cusparseStatus_t(8),
        "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
    ),
    (cusparseStatus_t(9), "CUSPARSE_STATUS_ZERO_PIVOT"),
    (cusparseStatus_t(10), "CUSPARSE_STATUS_NOT_SUPPORTED"),
    (
        cusparseStatus_t(11),
        "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
    ),
];

impl cusparseStatus_t {
    pub const CUSPARSE_STATUS_SUCCESS: Self = Self(0);
    pub const CUSPARSE_STATUS_NOT_INITIALIZED: Self = Self(1);
    pub const CUSPARSE_STATUS_ALLOC_FAILED: Self = Self(2);
    pub const CUSPARSE_STATUS_INVALID_VALUE: Self = Self(3);
    pub const CUSPARSE_STATUS_ARCH_MISMATCH: Self = Self(4);
    pub const CUSPARSE_STATUS_MAPPING_ERROR: Self = Self(5);
    pub const CUSPARSE_STATUS_EXECUTION_FAILED: Self = Self(6);
    pub const CUSPARSE_STATUS_INTERNAL_ERROR: Self = Self(7);
    pub const CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: Self = Self(8);
    pub const CUSPARSE_STATUS_ZERO_PIVOT: Self = Self(9);
    pub const CUSPARSE_STATUS_NOT_SUPPORTED: Self = Self(10);
    pub const CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: Self = Self(11);

    /// Whether this is `CUSPARSE_STATUS_SUCCESS`.
    #[inline(always)]
    pub fn is_success(self) -> bool {
        self.0 == 0
    }

    /// The `CUSPARSE_STATUS_*` name of this code, if it is one cuSPARSE documents.
    pub fn name(self) -> Option<&'static str> {
        CUSPARSESTATUS_NAMES
            .iter()
            .find(|(c, _)| *c == self)
            .map(|(_, n)| *n)
    }
}

impl core::fmt::Debug for cusparseStatus_t {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({})", self.0),
            None => write!(f, "cusparseStatus_t({})", self.0),
        }
    }
}

/// Whether an operand is used as is, transposed, or conjugate-transposed.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseOperation_t(pub c_int);

impl cusparseOperation_t {
    pub const CUSPARSE_OPERATION_NON_TRANSPOSE: Self = Self(0);
    pub const CUSPARSE_OPERATION_TRANSPOSE: Self = Self(1);
    pub const CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE: Self = Self(2);
}

/// Whether stored indices count from 0 or from 1.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseIndexBase_t(pub c_int);

impl cusparseIndexBase_t {
    pub const CUSPARSE_INDEX_BASE_ZERO: Self = Self(0);
    pub const CUSPARSE_INDEX_BASE_ONE: Self = Self(1);
}

/// The integer type of a descriptor's offsets and indices.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseIndexType_t(pub c_int);

impl cusparseIndexType_t {
    pub const CUSPARSE_INDEX_16U: Self = Self(1);
    pub const CUSPARSE_INDEX_32I: Self = Self(2);
    pub const CUSPARSE_INDEX_64I: Self = Self(3);
}

/// The memory order of a dense matrix descriptor.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseOrder_t(pub c_int);

impl cusparseOrder_t {
    pub const CUSPARSE_ORDER_COL: Self = Self(1);
    pub const CUSPARSE_ORDER_ROW: Self = Self(2);
}

/// The storage format of a sparse matrix descriptor (`cusparseSpMatGetFormat`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseFormat_t(pub c_int);

impl cusparseFormat_t {
    pub const CUSPARSE_FORMAT_CSR: Self = Self(1);
    pub const CUSPARSE_FORMAT_CSC: Self = Self(2);
    pub const CUSPARSE_FORMAT_COO: Self = Self(3);
    pub const CUSPARSE_FORMAT_BLOCKED_ELL: Self = Self(5);
}

/// The algorithm of `cusparseSpMV`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseSpMVAlg_t(pub c_int);

impl cusparseSpMVAlg_t {
    pub const CUSPARSE_SPMV_ALG_DEFAULT: Self = Self(0);
    pub const CUSPARSE_SPMV_COO_ALG1: Self = Self(1);
    pub const CUSPARSE_SPMV_CSR_ALG1: Self = Self(2);
    pub const CUSPARSE_SPMV_CSR_ALG2: Self = Self(3);
    pub const CUSPARSE_SPMV_COO_ALG2: Self = Self(4);
}

/// The algorithm of `cusparseSpMM`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseSpMMAlg_t(pub c_int);

impl cusparseSpMMAlg_t {
    pub const CUSPARSE_SPMM_ALG_DEFAULT: Self = Self(0);
    pub const CUSPARSE_SPMM_COO_ALG1: Self = Self(1);
    pub const CUSPARSE_SPMM_COO_ALG2: Self = Self(2);
    pub const CUSPARSE_SPMM_COO_ALG3: Self = Self(3);
    pub const CUSPARSE_SPMM_CSR_ALG1: Self = Self(4);
    pub const CUSPARSE_SPMM_COO_ALG4: Self = Self(5);
    pub const CUSPARSE_SPMM_CSR_ALG2: Self = Self(6);
    pub const CUSPARSE_SPMM_CSR_ALG3: Self = Self(12);
    pub const CUSPARSE_SPMM_BLOCKED_ELL_ALG1: Self = Self(13);
}

/// The algorithm of `cusparseSpGEMM_*`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseSpGEMMAlg_t(pub c_int);

impl cusparseSpGEMMAlg_t {
    pub const CUSPARSE_SPGEMM_DEFAULT: Self = Self(0);
    pub const CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC: Self = Self(1);
    pub const CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC: Self = Self(2);
}

/// Whether `Csr2cscEx2` moves the values too (`NUMERIC`) or only the pattern (`SYMBOLIC`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseAction_t(pub c_int);

impl cusparseAction_t {
    pub const CUSPARSE_ACTION_SYMBOLIC: Self = Self(0);
    pub const CUSPARSE_ACTION_NUMERIC: Self = Self(1);
}

/// The algorithm of `cusparseCsr2cscEx2`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseCsr2CscAlg_t(pub c_int);

impl cusparseCsr2CscAlg_t {
    pub const CUSPARSE_CSR2CSC_ALG_DEFAULT: Self = Self(1);
    pub const CUSPARSE_CSR2CSC_ALG1: Self = Self(1);
}

/// An attribute of a sparse matrix descriptor (`cusparseSpMatSetAttribute`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseSpMatAttribute_t(pub c_int);

impl cusparseSpMatAttribute_t {
    pub const CUSPARSE_SPMAT_FILL_MODE: Self = Self(0);
    pub const CUSPARSE_SPMAT_DIAG_TYPE: Self = Self(1);
}

/// Which triangle of a matrix a triangular solve reads.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseFillMode_t(pub c_int);

impl cusparseFillMode_t {
    pub const CUSPARSE_FILL_MODE_LOWER: Self = Self(0);
    pub const CUSPARSE_FILL_MODE_UPPER: Self = Self(1);
}

/// Whether a triangular solve takes the diagonal as stored or as ones.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseDiagType_t(pub c_int);

impl cusparseDiagType_t {
    pub const CUSPARSE_DIAG_TYPE_NON_UNIT: Self = Self(0);
    pub const CUSPARSE_DIAG_TYPE_UNIT: Self = Self(1);
}

/// The algorithm of `cusparseSpSV_*`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseSpSVAlg_t(pub c_int);

impl cusparseSpSVAlg_t {
    pub const CUSPARSE_SPSV_ALG_DEFAULT: Self = Self(0);
}

/// The algorithm of `cusparseSpSM_*`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseSpSMAlg_t(pub c_int);

impl cusparseSpSMAlg_t {
    pub const CUSPARSE_SPSM_ALG_DEFAULT: Self = Self(0);
}

/// The matrix type of a legacy matrix descriptor (`cusparseSetMatType`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseMatrixType_t(pub c_int);

impl cusparseMatrixType_t {
    pub const CUSPARSE_MATRIX_TYPE_GENERAL: Self = Self(0);
    pub const CUSPARSE_MATRIX_TYPE_SYMMETRIC: Self = Self(1);
    pub const CUSPARSE_MATRIX_TYPE_HERMITIAN: Self = Self(2);
    pub const CUSPARSE_MATRIX_TYPE_TRIANGULAR: Self = Self(3);
}

/// Whether a legacy analysis records level information (`USE_LEVEL`) or not.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cusparseSolvePolicy_t(pub c_int);

impl cusparseSolvePolicy_t {
    pub const CUSPARSE_SOLVE_POLICY_NO_LEVEL: Self = Self(0);
    pub const CUSPARSE_SOLVE_POLICY_USE_LEVEL: Self = Self(1);
}

macro_rules! opaque {
    ($($(#[$m:meta])* $ptr:ident => $obj:ident;)*) => {$(
        #[repr(C)]
        #[derive(Debug)]
        pub struct $obj {
            _private: [u8; 0],
        }
        $(#[$m])*
        pub type $ptr = *mut $obj;
    )*};
}

opaque! {
    /// A cuSPARSE handle.
    cusparseHandle_t => cusparseContext;
    /// A sparse matrix descriptor of the generic API (CSR, CSC, COO...).
    cusparseSpMatDescr_t => cusparseSpMatDescr;
    /// A dense vector descriptor of the generic API.
    cusparseDnVecDescr_t => cusparseDnVecDescr;
    /// A dense matrix descriptor of the generic API.
    cusparseDnMatDescr_t => cusparseDnMatDescr;
    /// The state of one SpGEMM between its work estimation, compute and copy steps.
    cusparseSpGEMMDescr_t => cusparseSpGEMMDescr;
    /// The analysis of one sparse triangular solve, between its analysis and solve steps.
    cusparseSpSVDescr_t => cusparseSpSVDescr;
    /// The analysis of one sparse triangular solve with several right-hand sides.
    cusparseSpSMDescr_t => cusparseSpSMDescr;
    /// A legacy matrix descriptor (type, index base, fill mode, diagonal type).
    cusparseMatDescr_t => cusparseMatDescr;
    /// The analysis and zero-pivot state of one `csrilu02` factorisation.
    csrilu02Info_t => csrilu02Info;
    /// The analysis and zero-pivot state of one `csric02` factorisation.
    csric02Info_t => csric02Info;
}

/// The runtime's stream type: the same object as the driver's `CUstream`.
pub type cudaStream_t = CUstream;

crate::dyn_functions! {
    library: CUSPARSE;
    fn cusparseGetProperty(kind: libraryPropertyType, value: *mut c_int) -> cusparseStatus_t;
    fn cusparseGetErrorName(status: cusparseStatus_t) -> *const c_char;
    fn cusparseGetErrorString(status: cusparseStatus_t) -> *const c_char;
    fn cusparseCreate(handle: *mut cusparseHandle_t) -> cusparseStatus_t;
    fn cusparseDestroy(handle: cusparseHandle_t) -> cusparseStatus_t;
    fn cusparseGetVersion(handle: cusparseHandle_t, version: *mut c_int) -> cusparseStatus_t;
    fn cusparseSetStream(handle: cusparseHandle_t, stream: cudaStream_t) -> cusparseStatus_t;
    fn cusparseGetStream(handle: cusparseHandle_t, stream: *mut cudaStream_t) -> cusparseStatus_t;

    fn cusparseCreateCsr(
        descr: *mut cusparseSpMatDescr_t, rows: i64, cols: i64, nnz: i64,
        row_offsets: *mut c_void, col_indices: *mut c_void, values: *mut c_void,
        row_offsets_type: cusparseIndexType_t, col_indices_type: cusparseIndexType_t,
        base: cusparseIndexBase_t, value_type: cudaDataType
    ) -> cusparseStatus_t;
    fn cusparseCreateCsc(
        descr: *mut cusparseSpMatDescr_t, rows: i64, cols: i64, nnz: i64,
        col_offsets: *mut c_void, row_indices: *mut c_void, values: *mut c_void,
        col_offsets_type: cusparseIndexType_t, row_indices_type: cusparseIndexType_t,
        base: cusparseIndexBase_t, value_type: cudaDataType
    ) -> cusparseStatus_t;
    fn cusparseCreateCoo(
        descr: *mut cusparseSpMatDescr_t, rows: i64, cols: i64, nnz: i64,
        row_indices: *mut c_void, col_indices: *mut c_void, values: *mut c_void,
        index_type: cusparseIndexType_t, base: cusparseIndexBase_t, value_type: cudaDataType
    ) -> cusparseStatus_t;
    fn cusparseDestroySpMat(descr: cusparseSpMatDescr_t) -> cusparseStatus_t;
    fn cusparseSpMatGetSize(
        descr: cusparseSpMatDescr_t, rows: *mut i64, cols: *mut i64, nnz: *mut i64
    ) -> cusparseStatus_t;
    fn cusparseSpMatGetFormat(
        descr: cusparseSpMatDescr_t, format: *mut cusparseFormat_t
    ) -> cusparseStatus_t;
    fn cusparseCsrSetPointers(
        descr: cusparseSpMatDescr_t, row_offsets: *mut c_void, col_indices: *mut c_void,
        values: *mut c_void
    ) -> cusparseStatus_t;

    fn cusparseCreateDnVec(
        descr: *mut cusparseDnVecDescr_t, size: i64, values: *mut c_void, value_type: cudaDataType
    ) -> cusparseStatus_t;
    fn cusparseDestroyDnVec(descr: cusparseDnVecDescr_t) -> cusparseStatus_t;
    fn cusparseCreateDnMat(
        descr: *mut cusparseDnMatDescr_t, rows: i64, cols: i64, ld: i64, values: *mut c_void,
        value_type: cudaDataType, order: cusparseOrder_t
    ) -> cusparseStatus_t;
    fn cusparseDestroyDnMat(descr: cusparseDnMatDescr_t) -> cusparseStatus_t;

    fn cusparseSpMV_bufferSize(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, alpha: *const c_void,
        a: cusparseSpMatDescr_t, x: cusparseDnVecDescr_t, beta: *const c_void,
        y: cusparseDnVecDescr_t, compute_type: cudaDataType, alg: cusparseSpMVAlg_t,
        buffer_size: *mut usize
    ) -> cusparseStatus_t;
    fn cusparseSpMV(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, alpha: *const c_void,
        a: cusparseSpMatDescr_t, x: cusparseDnVecDescr_t, beta: *const c_void,
        y: cusparseDnVecDescr_t, compute_type: cudaDataType, alg: cusparseSpMVAlg_t,
        buffer: *mut c_void
    ) -> cusparseStatus_t;

    fn cusparseSpMM_bufferSize(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseDnMatDescr_t,
        beta: *const c_void, c: cusparseDnMatDescr_t, compute_type: cudaDataType,
        alg: cusparseSpMMAlg_t, buffer_size: *mut usize
    ) -> cusparseStatus_t;
    fn cusparseSpMM(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseDnMatDescr_t,
        beta: *const c_void, c: cusparseDnMatDescr_t, compute_type: cudaDataType,
        alg: cusparseSpMMAlg_t, buffer: *mut c_void
    ) -> cusparseStatus_t;

    fn cusparseSpGEMM_createDescr(descr: *mut cusparseSpGEMMDescr_t) -> cusparseStatus_t;
    fn cusparseSpGEMM_destroyDescr(descr: cusparseSpGEMMDescr_t) -> cusparseStatus_t;
    fn cusparseSpGEMM_workEstimation(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseSpMatDescr_t,
        beta: *const c_void, c: cusparseSpMatDescr_t, compute_type: cudaDataType,
        alg: cusparseSpGEMMAlg_t, descr: cusparseSpGEMMDescr_t, buffer_size1: *mut usize,
        buffer1: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseSpGEMM_compute(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseSpMatDescr_t,
        beta: *const c_void, c: cusparseSpMatDescr_t, compute_type: cudaDataType,
        alg: cusparseSpGEMMAlg_t, descr: cusparseSpGEMMDescr_t, buffer_size2: *mut usize,
        buffer2: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseSpGEMM_copy(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseSpMatDescr_t,
        beta: *const c_void, c: cusparseSpMatDescr_t, compute_type: cudaDataType,
        alg: cusparseSpGEMMAlg_t, descr: cusparseSpGEMMDescr_t
    ) -> cusparseStatus_t;

    fn cusparseSpMatSetAttribute(
        descr: cusparseSpMatDescr_t, attribute: cusparseSpMatAttribute_t, data: *mut c_void,
        data_size: usize
    ) -> cusparseStatus_t;
    fn cusparseSpSV_createDescr(descr: *mut cusparseSpSVDescr_t) -> cusparseStatus_t;
    fn cusparseSpSV_destroyDescr(descr: cusparseSpSVDescr_t) -> cusparseStatus_t;
    fn cusparseSpSV_bufferSize(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, alpha: *const c_void,
        a: cusparseSpMatDescr_t, x: cusparseDnVecDescr_t, y: cusparseDnVecDescr_t,
        compute_type: cudaDataType, alg: cusparseSpSVAlg_t, descr: cusparseSpSVDescr_t,
        buffer_size: *mut usize
    ) -> cusparseStatus_t;
    fn cusparseSpSV_analysis(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, alpha: *const c_void,
        a: cusparseSpMatDescr_t, x: cusparseDnVecDescr_t, y: cusparseDnVecDescr_t,
        compute_type: cudaDataType, alg: cusparseSpSVAlg_t, descr: cusparseSpSVDescr_t,
        buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseSpSV_solve(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, alpha: *const c_void,
        a: cusparseSpMatDescr_t, x: cusparseDnVecDescr_t, y: cusparseDnVecDescr_t,
        compute_type: cudaDataType, alg: cusparseSpSVAlg_t, descr: cusparseSpSVDescr_t
    ) -> cusparseStatus_t;

    fn cusparseSpSM_createDescr(descr: *mut cusparseSpSMDescr_t) -> cusparseStatus_t;
    fn cusparseSpSM_destroyDescr(descr: cusparseSpSMDescr_t) -> cusparseStatus_t;
    fn cusparseSpSM_bufferSize(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseDnMatDescr_t,
        c: cusparseDnMatDescr_t, compute_type: cudaDataType, alg: cusparseSpSMAlg_t,
        descr: cusparseSpSMDescr_t, buffer_size: *mut usize
    ) -> cusparseStatus_t;
    fn cusparseSpSM_analysis(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseDnMatDescr_t,
        c: cusparseDnMatDescr_t, compute_type: cudaDataType, alg: cusparseSpSMAlg_t,
        descr: cusparseSpSMDescr_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseSpSM_solve(
        handle: cusparseHandle_t, op_a: cusparseOperation_t, op_b: cusparseOperation_t,
        alpha: *const c_void, a: cusparseSpMatDescr_t, b: cusparseDnMatDescr_t,
        c: cusparseDnMatDescr_t, compute_type: cudaDataType, alg: cusparseSpSMAlg_t,
        descr: cusparseSpSMDescr_t
    ) -> cusparseStatus_t;

    fn cusparseCreateMatDescr(descr: *mut cusparseMatDescr_t) -> cusparseStatus_t;
    fn cusparseDestroyMatDescr(descr: cusparseMatDescr_t) -> cusparseStatus_t;
    fn cusparseSetMatType(descr: cusparseMatDescr_t, ty: cusparseMatrixType_t) -> cusparseStatus_t;
    fn cusparseSetMatIndexBase(
        descr: cusparseMatDescr_t, base: cusparseIndexBase_t
    ) -> cusparseStatus_t;
    fn cusparseCreateCsrilu02Info(info: *mut csrilu02Info_t) -> cusparseStatus_t;
    fn cusparseDestroyCsrilu02Info(info: csrilu02Info_t) -> cusparseStatus_t;
    fn cusparseCreateCsric02Info(info: *mut csric02Info_t) -> cusparseStatus_t;
    fn cusparseDestroyCsric02Info(info: csric02Info_t) -> cusparseStatus_t;
    fn cusparseScsrilu02_bufferSize(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f32, row_offsets: *const c_int, col_indices: *const c_int,
        info: csrilu02Info_t, buffer_size: *mut c_int
    ) -> cusparseStatus_t;
    fn cusparseScsrilu02_analysis(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *const f32, row_offsets: *const c_int, col_indices: *const c_int,
        info: csrilu02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseScsrilu02(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f32, row_offsets: *const c_int, col_indices: *const c_int,
        info: csrilu02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseDcsrilu02_bufferSize(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f64, row_offsets: *const c_int, col_indices: *const c_int,
        info: csrilu02Info_t, buffer_size: *mut c_int
    ) -> cusparseStatus_t;
    fn cusparseDcsrilu02_analysis(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *const f64, row_offsets: *const c_int, col_indices: *const c_int,
        info: csrilu02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseDcsrilu02(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f64, row_offsets: *const c_int, col_indices: *const c_int,
        info: csrilu02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseScsric02_bufferSize(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f32, row_offsets: *const c_int, col_indices: *const c_int,
        info: csric02Info_t, buffer_size: *mut c_int
    ) -> cusparseStatus_t;
    fn cusparseScsric02_analysis(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *const f32, row_offsets: *const c_int, col_indices: *const c_int,
        info: csric02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseScsric02(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f32, row_offsets: *const c_int, col_indices: *const c_int,
        info: csric02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseDcsric02_bufferSize(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f64, row_offsets: *const c_int, col_indices: *const c_int,
        info: csric02Info_t, buffer_size: *mut c_int
    ) -> cusparseStatus_t;
    fn cusparseDcsric02_analysis(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *const f64, row_offsets: *const c_int, col_indices: *const c_int,
        info: csric02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseDcsric02(
        handle: cusparseHandle_t, m: c_int, nnz: c_int, descr: cusparseMatDescr_t,
        values: *mut f64, row_offsets: *const c_int, col_indices: *const c_int,
        info: csric02Info_t, policy: cusparseSolvePolicy_t, buffer: *mut c_void
    ) -> cusparseStatus_t;
    fn cusparseXcsrilu02_zeroPivot(
        handle: cusparseHandle_t, info: csrilu02Info_t, position: *mut c_int
    ) -> cusparseStatus_t;
    fn cusparseXcsric02_zeroPivot(
        handle: cusparseHandle_t, info: csric02Info_t, position: *mut c_int
    ) -> cusparseStatus_t;

    fn cusparseXcoo2csr(
        handle: cusparseHandle_t, coo_rows: *const c_int, nnz: c_int, m: c_int,
        csr_row_offsets: *mut c_int, base: cusparseIndexBase_t
    ) -> cusparseStatus_t;
    fn cusparseCsr2cscEx2_bufferSize(
        handle: cusparseHandle_t, m: c_int, n: c_int, nnz: c_int, csr_values: *const c_void,
        csr_row_offsets: *const c_int, csr_col_indices: *const c_int, csc_values: *mut c_void,
        csc_col_offsets: *mut c_int, csc_row_indices: *mut c_int, value_type: cudaDataType,
        action: cusparseAction_t, base: cusparseIndexBase_t, alg: cusparseCsr2CscAlg_t,
        buffer_size: *mut usize
    ) -> cusparseStatus_t;
    fn cusparseCsr2cscEx2(
        handle: cusparseHandle_t, m: c_int, n: c_int, nnz: c_int, csr_values: *const c_void,
        csr_row_offsets: *const c_int, csr_col_indices: *const c_int, csc_values: *mut c_void,
        csc_col_offsets: *mut c_int, csc_row_indices: *mut c_int, value_type: cudaDataType,
        action: cusparseAction_t, base: cusparseIndexBase_t, alg: cusparseCsr2CscAlg_t,
        buffer: *mut c_void
    ) -> cusparseStatus_t;
}
