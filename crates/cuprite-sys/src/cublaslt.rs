//! cuBLASLt (`libcublasLt`): matmul with layouts, epilogues and algorithm heuristics. Its status
//! codes, compute types and data types are cuBLAS's ([`crate::cublas`]).
//!
//! Loaded on first call from where [`CUBLASLT_SPEC`](crate::libraries::CUBLASLT_SPEC) says; a
//! missing library or symbol is an `Err` of that call.

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use crate::cublas::{
    cublasComputeType_t, cublasStatus_t, cudaDataType, cudaStream_t, libraryPropertyType,
};
use crate::libraries::CUBLASLT;
use core::ffi::{c_char, c_int, c_void};

#[repr(C)]
#[derive(Debug)]
pub struct cublasLtContext {
    _private: [u8; 0],
}
/// A cuBLASLt handle.
pub type cublasLtHandle_t = *mut cublasLtContext;

#[repr(C)]
#[derive(Debug)]
pub struct cublasLtMatrixLayoutOpaque_t {
    _data: [u64; 14],
}
/// A matrix layout descriptor.
pub type cublasLtMatrixLayout_t = *mut cublasLtMatrixLayoutOpaque_t;

#[repr(C)]
#[derive(Debug)]
pub struct cublasLtMatmulDescOpaque_t {
    _data: [u64; 32],
}
/// A matmul operation descriptor.
pub type cublasLtMatmulDesc_t = *mut cublasLtMatmulDescOpaque_t;

#[repr(C)]
#[derive(Debug)]
pub struct cublasLtMatmulPreferenceOpaque_t {
    _data: [u64; 8],
}
/// A heuristic search preference descriptor.
pub type cublasLtMatmulPreference_t = *mut cublasLtMatmulPreferenceOpaque_t;

/// A configured algorithm: plain data, copied freely (and reusable with the same library).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct cublasLtMatmulAlgo_t {
    pub data: [u64; 8],
}

/// One result of `cublasLtMatmulAlgoGetHeuristic`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cublasLtMatmulHeuristicResult_t {
    pub algo: cublasLtMatmulAlgo_t,
    pub workspaceSize: usize,
    pub state: cublasStatus_t,
    pub wavesCount: f32,
    pub reserved: [c_int; 4],
}

impl Default for cublasLtMatmulHeuristicResult_t {
    fn default() -> Self {
        cublasLtMatmulHeuristicResult_t {
            algo: cublasLtMatmulAlgo_t::default(),
            workspaceSize: 0,
            state: cublasStatus_t(0),
            wavesCount: 0.0,
            reserved: [0; 4],
        }
    }
}

/// The memory order of a matrix layout.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasLtOrder_t(pub c_int);

impl cublasLtOrder_t {
    pub const CUBLASLT_ORDER_COL: Self = Self(0);
    pub const CUBLASLT_ORDER_ROW: Self = Self(1);
}

/// Attributes of a matrix layout (`cublasLtMatrixLayoutSetAttribute`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasLtMatrixLayoutAttribute_t(pub c_int);

impl cublasLtMatrixLayoutAttribute_t {
    /// `uint32_t` (a `cudaDataType`).
    pub const CUBLASLT_MATRIX_LAYOUT_TYPE: Self = Self(0);
    /// `int32_t` (a `cublasLtOrder_t`).
    pub const CUBLASLT_MATRIX_LAYOUT_ORDER: Self = Self(1);
    /// `uint64_t`.
    pub const CUBLASLT_MATRIX_LAYOUT_ROWS: Self = Self(2);
    /// `uint64_t`.
    pub const CUBLASLT_MATRIX_LAYOUT_COLS: Self = Self(3);
    /// `int64_t`.
    pub const CUBLASLT_MATRIX_LAYOUT_LD: Self = Self(4);
    /// `int32_t`.
    pub const CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: Self = Self(5);
    /// `int64_t`, in elements.
    pub const CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: Self = Self(6);
}

/// Attributes of a matmul descriptor (`cublasLtMatmulDescSetAttribute`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasLtMatmulDescAttributes_t(pub c_int);

impl cublasLtMatmulDescAttributes_t {
    /// `int32_t` (a `cublasComputeType_t`).
    pub const CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: Self = Self(0);
    /// `int32_t` (a `cudaDataType`).
    pub const CUBLASLT_MATMUL_DESC_SCALE_TYPE: Self = Self(1);
    /// `int32_t` (a `cublasLtPointerMode_t`).
    pub const CUBLASLT_MATMUL_DESC_POINTER_MODE: Self = Self(2);
    /// `int32_t` (a `cublasOperation_t`).
    pub const CUBLASLT_MATMUL_DESC_TRANSA: Self = Self(3);
    /// `int32_t` (a `cublasOperation_t`).
    pub const CUBLASLT_MATMUL_DESC_TRANSB: Self = Self(4);
    /// `int32_t` (a `cublasOperation_t`).
    pub const CUBLASLT_MATMUL_DESC_TRANSC: Self = Self(5);
    /// `uint32_t` (a `cublasLtEpilogue_t`).
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE: Self = Self(7);
    /// `const void *` (bias) or `void *` (bias gradient).
    pub const CUBLASLT_MATMUL_DESC_BIAS_POINTER: Self = Self(8);
    /// `int64_t`.
    pub const CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: Self = Self(10);
    /// `void *` (forward) or `const void *` (backward).
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: Self = Self(11);
    /// `int64_t`.
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: Self = Self(12);
    /// `int64_t`.
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE: Self = Self(13);
    /// `int32_t` (a `cudaDataType`).
    pub const CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: Self = Self(22);
    /// `int32_t` (a `cudaDataType`).
    pub const CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: Self = Self(26);
}

/// What the epilogue of a matmul does to its result.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasLtEpilogue_t(pub u32);

impl cublasLtEpilogue_t {
    pub const CUBLASLT_EPILOGUE_DEFAULT: Self = Self(1);
    pub const CUBLASLT_EPILOGUE_RELU: Self = Self(2);
    pub const CUBLASLT_EPILOGUE_RELU_AUX: Self = Self(2 | 128);
    pub const CUBLASLT_EPILOGUE_BIAS: Self = Self(4);
    pub const CUBLASLT_EPILOGUE_RELU_BIAS: Self = Self(2 | 4);
    pub const CUBLASLT_EPILOGUE_RELU_AUX_BIAS: Self = Self(2 | 128 | 4);
    pub const CUBLASLT_EPILOGUE_DRELU: Self = Self(8 | 128);
    pub const CUBLASLT_EPILOGUE_DRELU_BGRAD: Self = Self(8 | 128 | 16);
    pub const CUBLASLT_EPILOGUE_GELU: Self = Self(32);
    pub const CUBLASLT_EPILOGUE_GELU_AUX: Self = Self(32 | 128);
    pub const CUBLASLT_EPILOGUE_GELU_BIAS: Self = Self(32 | 4);
    pub const CUBLASLT_EPILOGUE_GELU_AUX_BIAS: Self = Self(32 | 128 | 4);
    pub const CUBLASLT_EPILOGUE_DGELU: Self = Self(64 | 128);
    pub const CUBLASLT_EPILOGUE_DGELU_BGRAD: Self = Self(64 | 128 | 16);
    pub const CUBLASLT_EPILOGUE_BGRADA: Self = Self(256);
    pub const CUBLASLT_EPILOGUE_BGRADB: Self = Self(512);
}

/// How split-k partial results are reduced (`cublasLtReductionScheme_t`), as mask bits.
pub const CUBLASLT_REDUCTION_SCHEME_INPLACE: u32 = 1;
/// Reduction in a workspace of the compute type.
pub const CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE: u32 = 2;
/// Reduction in a workspace of the output type.
pub const CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE: u32 = 4;

/// Attributes of a heuristic search preference (`cublasLtMatmulPreferenceSetAttribute`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cublasLtMatmulPreferenceAttributes_t(pub c_int);

impl cublasLtMatmulPreferenceAttributes_t {
    /// `uint32_t`.
    pub const CUBLASLT_MATMUL_PREF_SEARCH_MODE: Self = Self(0);
    /// `uint64_t`.
    pub const CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: Self = Self(1);
    /// `uint32_t`: a mask of `CUBLASLT_REDUCTION_SCHEME_*`.
    pub const CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK: Self = Self(3);
    /// `uint32_t`.
    pub const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES: Self = Self(5);
    /// `uint32_t`.
    pub const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES: Self = Self(6);
    /// `uint32_t`.
    pub const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES: Self = Self(7);
    /// `uint32_t`.
    pub const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES: Self = Self(8);
}

crate::dyn_functions! {
    library: CUBLASLT;
    fn cublasLtCreate(handle: *mut cublasLtHandle_t) -> cublasStatus_t;
    fn cublasLtDestroy(handle: cublasLtHandle_t) -> cublasStatus_t;
    fn cublasLtGetVersion() -> usize;
    fn cublasLtGetProperty(kind: libraryPropertyType, value: *mut c_int) -> cublasStatus_t;
    fn cublasLtGetStatusName(status: cublasStatus_t) -> *const c_char;
    fn cublasLtGetStatusString(status: cublasStatus_t) -> *const c_char;

    fn cublasLtMatrixLayoutCreate(
        layout: *mut cublasLtMatrixLayout_t, data_type: cudaDataType, rows: u64, cols: u64, ld: i64
    ) -> cublasStatus_t;
    fn cublasLtMatrixLayoutDestroy(layout: cublasLtMatrixLayout_t) -> cublasStatus_t;
    fn cublasLtMatrixLayoutSetAttribute(
        layout: cublasLtMatrixLayout_t, attr: cublasLtMatrixLayoutAttribute_t,
        buf: *const c_void, size: usize
    ) -> cublasStatus_t;

    fn cublasLtMatmulDescCreate(
        desc: *mut cublasLtMatmulDesc_t, compute: cublasComputeType_t, scale_type: cudaDataType
    ) -> cublasStatus_t;
    fn cublasLtMatmulDescDestroy(desc: cublasLtMatmulDesc_t) -> cublasStatus_t;
    fn cublasLtMatmulDescSetAttribute(
        desc: cublasLtMatmulDesc_t, attr: cublasLtMatmulDescAttributes_t,
        buf: *const c_void, size: usize
    ) -> cublasStatus_t;

    fn cublasLtMatmulPreferenceCreate(pref: *mut cublasLtMatmulPreference_t) -> cublasStatus_t;
    fn cublasLtMatmulPreferenceDestroy(pref: cublasLtMatmulPreference_t) -> cublasStatus_t;
    fn cublasLtMatmulPreferenceSetAttribute(
        pref: cublasLtMatmulPreference_t, attr: cublasLtMatmulPreferenceAttributes_t,
        buf: *const c_void, size: usize
    ) -> cublasStatus_t;

    fn cublasLtMatmulAlgoGetHeuristic(
        handle: cublasLtHandle_t, desc: cublasLtMatmulDesc_t,
        a: cublasLtMatrixLayout_t, b: cublasLtMatrixLayout_t,
        c: cublasLtMatrixLayout_t, d: cublasLtMatrixLayout_t,
        pref: cublasLtMatmulPreference_t, requested: c_int,
        results: *mut cublasLtMatmulHeuristicResult_t, returned: *mut c_int
    ) -> cublasStatus_t;

    fn cublasLtMatmul(
        handle: cublasLtHandle_t, desc: cublasLtMatmulDesc_t,
        alpha: *const c_void,
        a: *const c_void, a_desc: cublasLtMatrixLayout_t,
        b: *const c_void, b_desc: cublasLtMatrixLayout_t,
        beta: *const c_void,
        c: *const c_void, c_desc: cublasLtMatrixLayout_t,
        d: *mut c_void, d_desc: cublasLtMatrixLayout_t,
        algo: *const cublasLtMatmulAlgo_t,
        workspace: *mut c_void, workspace_bytes: usize,
        stream: cudaStream_t
    ) -> cublasStatus_t;
}
