//! cuDNN 9 (`libcudnn`): the status codes, the enums and descriptor types of the legacy
//! (imperative) API, and its functions for convolutions (forward, both gradients, the fused
//! bias and activation), pooling and the descriptors they take.
//!
//! cuDNN 9 is a shim (`libcudnn.so.9`) in front of sub-libraries: the legacy convolutions live
//! in `libcudnn_cnn`, the tensor, filter and pooling functions in `libcudnn_ops`, and the shim
//! exports them all, forwarding each call. Only the shim is opened here (see
//! [`CUDNN_SPEC`](crate::libraries::CUDNN_SPEC) for where it is looked for and how its
//! sub-libraries are preloaded); each symbol is resolved on its own first call. A machine
//! without cuDNN gets an `Err` from that first call naming every place tried.
//!
//! Version numbers: `cudnnGetVersion` returns `major * 10000 + minor * 100 + patch` in cuDNN 9
//! (9.1.0 is `90100`). The status codes are cuDNN 9's (grouped by thousands: 1xxx
//! initialisation, 2xxx bad parameter, 3xxx not supported, 4xxx internal, 5xxx execution);
//! cuDNN 8 numbered them 0 to 15 and is not supported.
//!
//! ```
//! // Works with or without cuDNN: without it this is an Err listing the places tried.
//! match unsafe { cuprite_sys::cudnn::cudnnGetVersion() } {
//!     Ok(v) => println!("cuDNN {}.{}.{}", v / 10000, v / 100 % 100, v % 100),
//!     Err(e) => println!("no cuDNN: {e}"),
//! }
//! ```

#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    missing_docs
)]

use crate::driver::CUstream;
use crate::libraries::CUDNN;
pub use crate::library_types::libraryPropertyType;
use core::ffi::{c_char, c_int, c_void};

/// The most dimensions a cuDNN tensor descriptor takes (`CUDNN_DIM_MAX`).
pub const CUDNN_DIM_MAX: usize = 8;

/// A cuDNN status code (`cudnnStatus_t`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct cudnnStatus_t(pub c_int);

impl cudnnStatus_t {
    pub const CUDNN_STATUS_SUCCESS: Self = Self(0);
    pub const CUDNN_STATUS_NOT_INITIALIZED: Self = Self(1001);
    pub const CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH: Self = Self(1002);
    pub const CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH: Self = Self(1003);
    pub const CUDNN_STATUS_DEPRECATED: Self = Self(1004);
    pub const CUDNN_STATUS_LICENSE_ERROR: Self = Self(1005);
    pub const CUDNN_STATUS_RUNTIME_IN_PROGRESS: Self = Self(1006);
    pub const CUDNN_STATUS_RUNTIME_FP_OVERFLOW: Self = Self(1007);
    pub const CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED: Self = Self(1008);
    pub const CUDNN_STATUS_BAD_PARAM: Self = Self(2000);
    pub const CUDNN_STATUS_INVALID_VALUE: Self = Self(2001);
    pub const CUDNN_STATUS_BAD_PARAM_NULL_POINTER: Self = Self(2002);
    pub const CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER: Self = Self(2003);
    pub const CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED: Self = Self(2004);
    pub const CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND: Self = Self(2005);
    pub const CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT: Self = Self(2006);
    pub const CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH: Self = Self(2007);
    pub const CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH: Self = Self(2008);
    pub const CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES: Self = Self(2009);
    pub const CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE: Self = Self(2010);
    pub const CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH: Self = Self(2011);
    pub const CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE: Self = Self(2012);
    pub const CUDNN_STATUS_NOT_SUPPORTED: Self = Self(3000);
    pub const CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN: Self = Self(3001);
    pub const CUDNN_STATUS_NOT_SUPPORTED_SHAPE: Self = Self(3002);
    pub const CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE: Self = Self(3003);
    pub const CUDNN_STATUS_NOT_SUPPORTED_LAYOUT: Self = Self(3004);
    pub const CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER: Self = Self(3005);
    pub const CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART: Self = Self(3006);
    pub const CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH: Self = Self(3007);
    pub const CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING: Self = Self(3008);
    pub const CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE: Self = Self(3009);
    pub const CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT: Self = Self(3010);
    pub const CUDNN_STATUS_NOT_SUPPORTED_PADDING: Self = Self(3011);
    pub const CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM: Self = Self(3012);
    pub const CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API: Self = Self(3013);
    pub const CUDNN_STATUS_INTERNAL_ERROR: Self = Self(4000);
    pub const CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED: Self = Self(4001);
    pub const CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE: Self = Self(4002);
    pub const CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED: Self = Self(4003);
    pub const CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED: Self = Self(4004);
    pub const CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM: Self = Self(4005);
    pub const CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED: Self = Self(4006);
    pub const CUDNN_STATUS_EXECUTION_FAILED: Self = Self(5000);
    pub const CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER: Self = Self(5001);
    pub const CUDNN_STATUS_EXECUTION_FAILED_CUBLAS: Self = Self(5002);
    pub const CUDNN_STATUS_EXECUTION_FAILED_CUDART: Self = Self(5003);
    pub const CUDNN_STATUS_EXECUTION_FAILED_CURAND: Self = Self(5004);

    /// Whether this is `CUDNN_STATUS_SUCCESS`.
    #[inline(always)]
    pub fn is_success(self) -> bool {
        self.0 == 0
    }

    /// The `CUDNN_STATUS_*` name of this code, if it is one cuDNN 9 documents.
    pub fn name(self) -> Option<&'static str> {
        CUDNNSTATUS_NAMES
            .iter()
            .find(|(c, _)| *c == self)
            .map(|(_, n)| *n)
    }

    /// The category of this code (its thousands), as cuDNN 9 groups them: `"success"`,
    /// `"initialisation or version"`, `"bad parameter"`, `"not supported"`, `"internal
    /// error"`, `"execution failed"`, or `"unknown"`.
    pub fn category(self) -> &'static str {
        match self.0 {
            0 => "success",
            1000..=1999 => "initialisation or version",
            2000..=2999 => "bad parameter",
            3000..=3999 => "not supported",
            4000..=4999 => "internal error",
            5000..=5999 => "execution failed",
            _ => "unknown",
        }
    }
}

impl core::fmt::Debug for cudnnStatus_t {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({})", self.0),
            None => write!(f, "cudnnStatus_t({})", self.0),
        }
    }
}

/// Every status cuDNN 9 declares, with its name.
pub const CUDNNSTATUS_NAMES: &[(cudnnStatus_t, &str)] = &[
    (cudnnStatus_t(0), "CUDNN_STATUS_SUCCESS"),
    (cudnnStatus_t(1001), "CUDNN_STATUS_NOT_INITIALIZED"),
    (
        cudnnStatus_t(1002),
        "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
    ),
    (
        cudnnStatus_t(1003),
        "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH",
    ),
    (cudnnStatus_t(1004), "CUDNN_STATUS_DEPRECATED"),
    (cudnnStatus_t(1005), "CUDNN_STATUS_LICENSE_ERROR"),
    (cudnnStatus_t(1006), "CUDNN_STATUS_RUNTIME_IN_PROGRESS"),
    (cudnnStatus_t(1007), "CUDNN_STATUS_RUNTIME_FP_OVERFLOW"),
    (
        cudnnStatus_t(1008),
        "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
    ),
    (cudnnStatus_t(2000), "CUDNN_STATUS_BAD_PARAM"),
    (cudnnStatus_t(2001), "CUDNN_STATUS_INVALID_VALUE"),
    (cudnnStatus_t(2002), "CUDNN_STATUS_BAD_PARAM_NULL_POINTER"),
    (
        cudnnStatus_t(2003),
        "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER",
    ),
    (cudnnStatus_t(2004), "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED"),
    (cudnnStatus_t(2005), "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND"),
    (
        cudnnStatus_t(2006),
        "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT",
    ),
    (
        cudnnStatus_t(2007),
        "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH",
    ),
    (cudnnStatus_t(2008), "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH"),
    (
        cudnnStatus_t(2009),
        "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES",
    ),
    (cudnnStatus_t(2010), "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE"),
    (
        cudnnStatus_t(2011),
        "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH",
    ),
    (
        cudnnStatus_t(2012),
        "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE",
    ),
    (cudnnStatus_t(3000), "CUDNN_STATUS_NOT_SUPPORTED"),
    (
        cudnnStatus_t(3001),
        "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN",
    ),
    (cudnnStatus_t(3002), "CUDNN_STATUS_NOT_SUPPORTED_SHAPE"),
    (cudnnStatus_t(3003), "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE"),
    (cudnnStatus_t(3004), "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT"),
    (
        cudnnStatus_t(3005),
        "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER",
    ),
    (
        cudnnStatus_t(3006),
        "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART",
    ),
    (
        cudnnStatus_t(3007),
        "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH",
    ),
    (
        cudnnStatus_t(3008),
        "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING",
    ),
    (
        cudnnStatus_t(3009),
        "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE",
    ),
    (
        cudnnStatus_t(3010),
        "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT",
    ),
    (cudnnStatus_t(3011), "CUDNN_STATUS_NOT_SUPPORTED_PADDING"),
    (
        cudnnStatus_t(3012),
        "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM",
    ),
    (
        cudnnStatus_t(3013),
        "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API",
    ),
    (cudnnStatus_t(4000), "CUDNN_STATUS_INTERNAL_ERROR"),
    (
        cudnnStatus_t(4001),
        "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED",
    ),
    (
        cudnnStatus_t(4002),
        "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE",
    ),
    (
        cudnnStatus_t(4003),
        "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
    ),
    (
        cudnnStatus_t(4004),
        "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",
    ),
    (
        cudnnStatus_t(4005),
        "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM",
    ),
    (
        cudnnStatus_t(4006),
        "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED",
    ),
    (cudnnStatus_t(5000), "CUDNN_STATUS_EXECUTION_FAILED"),
    (
        cudnnStatus_t(5001),
        "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER",
    ),
    (cudnnStatus_t(5002), "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS"),
    (cudnnStatus_t(5003), "CUDNN_STATUS_EXECUTION_FAILED_CUDART"),
    (cudnnStatus_t(5004), "CUDNN_STATUS_EXECUTION_FAILED_CURAND"),
];

/// Declares a C enum as a transparent `c_int` newtype with its constants.
macro_rules! c_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $value:expr,)* }) => {
        $(#[$meta])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(pub c_int);

        impl $name {
            $(pub const $variant: Self = Self($value);)*
        }
    };
}

c_enum! {
    /// The element type of a tensor, filter or computation (`cudnnDataType_t`).
    cudnnDataType_t {
        CUDNN_DATA_FLOAT = 0,
        CUDNN_DATA_DOUBLE = 1,
        CUDNN_DATA_HALF = 2,
        CUDNN_DATA_INT8 = 3,
        CUDNN_DATA_INT32 = 4,
        CUDNN_DATA_INT8x4 = 5,
        CUDNN_DATA_UINT8 = 6,
        CUDNN_DATA_UINT8x4 = 7,
        CUDNN_DATA_INT8x32 = 8,
        CUDNN_DATA_BFLOAT16 = 9,
        CUDNN_DATA_INT64 = 10,
        CUDNN_DATA_BOOLEAN = 11,
        CUDNN_DATA_FP8_E4M3 = 12,
        CUDNN_DATA_FP8_E5M2 = 13,
        CUDNN_DATA_FAST_FLOAT_FOR_FP8 = 14,
    }
}

c_enum! {
    /// The memory order of a filter (or a 4-d tensor) (`cudnnTensorFormat_t`). For a filter,
    /// `CUDNN_TENSOR_NCHW` is `[K, C, spatial...]` and `CUDNN_TENSOR_NHWC` is
    /// `[K, spatial..., C]`.
    cudnnTensorFormat_t {
        CUDNN_TENSOR_NCHW = 0,
        CUDNN_TENSOR_NHWC = 1,
        CUDNN_TENSOR_NCHW_VECT_C = 2,
    }
}

c_enum! {
    /// Convolution (the filter flipped) or cross-correlation (`cudnnConvolutionMode_t`).
    cudnnConvolutionMode_t {
        CUDNN_CONVOLUTION = 0,
        CUDNN_CROSS_CORRELATION = 1,
    }
}

c_enum! {
    /// Which arithmetic a convolution may use (`cudnnMathType_t`). For `float` data,
    /// `CUDNN_DEFAULT_MATH` lets cuDNN use TF32 tensor cores; `CUDNN_FMA_MATH` does not.
    cudnnMathType_t {
        CUDNN_DEFAULT_MATH = 0,
        CUDNN_TENSOR_OP_MATH = 1,
        CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
        CUDNN_FMA_MATH = 3,
    }
}

c_enum! {
    /// Whether an algorithm's results are reproducible run to run (`cudnnDeterminism_t`).
    cudnnDeterminism_t {
        CUDNN_NON_DETERMINISTIC = 0,
        CUDNN_DETERMINISTIC = 1,
    }
}

c_enum! {
    /// Forward convolution algorithms (`cudnnConvolutionFwdAlgo_t`).
    cudnnConvolutionFwdAlgo_t {
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
        CUDNN_CONVOLUTION_FWD_ALGO_GEMM = 2,
        CUDNN_CONVOLUTION_FWD_ALGO_DIRECT = 3,
        CUDNN_CONVOLUTION_FWD_ALGO_FFT = 4,
        CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING = 5,
        CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD = 6,
        CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED = 7,
        CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
    }
}

c_enum! {
    /// Algorithms of the gradient with respect to the input (`cudnnConvolutionBwdDataAlgo_t`).
    cudnnConvolutionBwdDataAlgo_t {
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 = 1,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT = 2,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING = 3,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD = 4,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED = 5,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6,
    }
}

c_enum! {
    /// Algorithms of the gradient with respect to the filter
    /// (`cudnnConvolutionBwdFilterAlgo_t`).
    cudnnConvolutionBwdFilterAlgo_t {
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT = 2,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 = 3,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD = 4,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING = 6,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7,
    }
}

c_enum! {
    /// Max or average pooling, the average counting padding or not (`cudnnPoolingMode_t`).
    cudnnPoolingMode_t {
        CUDNN_POOLING_MAX = 0,
        CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1,
        CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2,
        CUDNN_POOLING_MAX_DETERMINISTIC = 3,
    }
}

c_enum! {
    /// Whether a NaN input propagates to the output of max pooling or an activation
    /// (`cudnnNanPropagation_t`).
    cudnnNanPropagation_t {
        CUDNN_NOT_PROPAGATE_NAN = 0,
        CUDNN_PROPAGATE_NAN = 1,
    }
}

c_enum! {
    /// An activation function (`cudnnActivationMode_t`).
    /// `cudnnConvolutionBiasActivationForward` takes `RELU` and `IDENTITY` only.
    cudnnActivationMode_t {
        CUDNN_ACTIVATION_SIGMOID = 0,
        CUDNN_ACTIVATION_RELU = 1,
        CUDNN_ACTIVATION_TANH = 2,
        CUDNN_ACTIVATION_CLIPPED_RELU = 3,
        CUDNN_ACTIVATION_ELU = 4,
        CUDNN_ACTIVATION_IDENTITY = 5,
        CUDNN_ACTIVATION_SWISH = 6,
    }
}

/// Opaque cuDNN objects; only pointers to them are handled.
macro_rules! opaque {
    ($($(#[$meta:meta])* $handle:ident = $st:ident;)*) => {$(
        #[repr(C)]
        #[derive(Debug)]
        pub struct $st {
            _private: [u8; 0],
        }
        $(#[$meta])*
        pub type $handle = *mut $st;
    )*};
}

opaque! {
    /// A cuDNN library context (`cudnnHandle_t`), bound to one device and one stream.
    cudnnHandle_t = cudnnContext;
    /// The dimensions, strides and data type of a tensor.
    cudnnTensorDescriptor_t = cudnnTensorStruct;
    /// The dimensions, format and data type of a convolution filter.
    cudnnFilterDescriptor_t = cudnnFilterStruct;
    /// Padding, strides, dilations, mode, compute type, groups and math type of a convolution.
    cudnnConvolutionDescriptor_t = cudnnConvolutionStruct;
    /// Mode, window, padding and strides of a pooling.
    cudnnPoolingDescriptor_t = cudnnPoolingStruct;
    /// An activation function and its parameters.
    cudnnActivationDescriptor_t = cudnnActivationStruct;
}

/// One algorithm's entry in the results of `cudnnGetConvolutionForwardAlgorithm_v7` and
/// `cudnnFindConvolutionForwardAlgorithmEx` (`cudnnConvolutionFwdAlgoPerf_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct cudnnConvolutionFwdAlgoPerf_t {
    pub algo: cudnnConvolutionFwdAlgo_t,
    /// `CUDNN_STATUS_SUCCESS` when the algorithm runs for these descriptors.
    pub status: cudnnStatus_t,
    /// Milliseconds measured by a `Find` call; an estimate (or -1) from the heuristics.
    pub time: f32,
    /// Workspace bytes the algorithm needs.
    pub memory: usize,
    pub determinism: cudnnDeterminism_t,
    /// The math type the algorithm runs with; set it on the descriptor before running it.
    pub mathType: cudnnMathType_t,
    pub reserved: [c_int; 3],
}

/// One entry of the backward-data algorithm results (`cudnnConvolutionBwdDataAlgoPerf_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct cudnnConvolutionBwdDataAlgoPerf_t {
    pub algo: cudnnConvolutionBwdDataAlgo_t,
    pub status: cudnnStatus_t,
    pub time: f32,
    pub memory: usize,
    pub determinism: cudnnDeterminism_t,
    pub mathType: cudnnMathType_t,
    pub reserved: [c_int; 3],
}

/// One entry of the backward-filter algorithm results (`cudnnConvolutionBwdFilterAlgoPerf_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct cudnnConvolutionBwdFilterAlgoPerf_t {
    pub algo: cudnnConvolutionBwdFilterAlgo_t,
    pub status: cudnnStatus_t,
    pub time: f32,
    pub memory: usize,
    pub determinism: cudnnDeterminism_t,
    pub mathType: cudnnMathType_t,
    pub reserved: [c_int; 3],
}

crate::dyn_functions! {
    library: CUDNN;
    // Version, status strings, handle.
    fn cudnnGetVersion() -> usize;
    fn cudnnGetCudartVersion() -> usize;
    fn cudnnGetProperty(kind: libraryPropertyType, value: *mut c_int) -> cudnnStatus_t;
    fn cudnnGetErrorString(status: cudnnStatus_t) -> *const c_char;
    fn cudnnGetLastErrorString(message: *mut c_char, max_size: usize) -> ();
    fn cudnnCreate(handle: *mut cudnnHandle_t) -> cudnnStatus_t;
    fn cudnnDestroy(handle: cudnnHandle_t) -> cudnnStatus_t;
    fn cudnnSetStream(handle: cudnnHandle_t, stream: CUstream) -> cudnnStatus_t;
    fn cudnnGetStream(handle: cudnnHandle_t, stream: *mut CUstream) -> cudnnStatus_t;

    // Tensor and filter descriptors.
    fn cudnnCreateTensorDescriptor(desc: *mut cudnnTensorDescriptor_t) -> cudnnStatus_t;
    fn cudnnSetTensorNdDescriptor(
        desc: cudnnTensorDescriptor_t,
        data_type: cudnnDataType_t,
        nb_dims: c_int,
        dims: *const c_int,
        strides: *const c_int,
    ) -> cudnnStatus_t;
    fn cudnnSetTensorNdDescriptorEx(
        desc: cudnnTensorDescriptor_t,
        format: cudnnTensorFormat_t,
        data_type: cudnnDataType_t,
        nb_dims: c_int,
        dims: *const c_int,
    ) -> cudnnStatus_t;
    fn cudnnDestroyTensorDescriptor(desc: cudnnTensorDescriptor_t) -> cudnnStatus_t;
    fn cudnnCreateFilterDescriptor(desc: *mut cudnnFilterDescriptor_t) -> cudnnStatus_t;
    fn cudnnSetFilterNdDescriptor(
        desc: cudnnFilterDescriptor_t,
        data_type: cudnnDataType_t,
        format: cudnnTensorFormat_t,
        nb_dims: c_int,
        dims: *const c_int,
    ) -> cudnnStatus_t;
    fn cudnnDestroyFilterDescriptor(desc: cudnnFilterDescriptor_t) -> cudnnStatus_t;

    // Convolution descriptor.
    fn cudnnCreateConvolutionDescriptor(desc: *mut cudnnConvolutionDescriptor_t) -> cudnnStatus_t;
    fn cudnnSetConvolutionNdDescriptor(
        desc: cudnnConvolutionDescriptor_t,
        array_length: c_int,
        pads: *const c_int,
        strides: *const c_int,
        dilations: *const c_int,
        mode: cudnnConvolutionMode_t,
        compute_type: cudnnDataType_t,
    ) -> cudnnStatus_t;
    fn cudnnSetConvolutionGroupCount(desc: cudnnConvolutionDescriptor_t, groups: c_int) -> cudnnStatus_t;
    fn cudnnSetConvolutionMathType(desc: cudnnConvolutionDescriptor_t, math: cudnnMathType_t) -> cudnnStatus_t;
    fn cudnnGetConvolutionNdForwardOutputDim(
        desc: cudnnConvolutionDescriptor_t,
        x_desc: cudnnTensorDescriptor_t,
        w_desc: cudnnFilterDescriptor_t,
        nb_dims: c_int,
        out_dims: *mut c_int,
    ) -> cudnnStatus_t;
    fn cudnnDestroyConvolutionDescriptor(desc: cudnnConvolutionDescriptor_t) -> cudnnStatus_t;

    // Forward convolution.
    fn cudnnGetConvolutionForwardAlgorithmMaxCount(handle: cudnnHandle_t, count: *mut c_int) -> cudnnStatus_t;
    fn cudnnGetConvolutionForwardAlgorithm_v7(
        handle: cudnnHandle_t,
        x_desc: cudnnTensorDescriptor_t,
        w_desc: cudnnFilterDescriptor_t,
        conv_desc: cudnnConvolutionDescriptor_t,
        y_desc: cudnnTensorDescriptor_t,
        requested: c_int,
        returned: *mut c_int,
        results: *mut cudnnConvolutionFwdAlgoPerf_t,
    ) -> cudnnStatus_t;
    fn cudnnFindConvolutionForwardAlgorithmEx(
        handle: cudnnHandle_t,
        x_desc: cudnnTensorDescriptor_t,
        x: *const c_void,
        w_desc: cudnnFilterDescriptor_t,
        w: *const c_void,
        conv_desc: cudnnConvolutionDescriptor_t,
        y_desc: cudnnTensorDescriptor_t,
        y: *mut c_void,
        requested: c_int,
        returned: *mut c_int,
        results: *mut cudnnConvolutionFwdAlgoPerf_t,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> cudnnStatus_t;
    fn cudnnGetConvolutionForwardWorkspaceSize(
        handle: cudnnHandle_t,
        x_desc: cudnnTensorDescriptor_t,
        w_desc: cudnnFilterDescriptor_t,
        conv_desc: cudnnConvolutionDescriptor_t,
        y_desc: cudnnTensorDescriptor_t,
        algo: cudnnConvolutionFwdAlgo_t,
        bytes: *mut usize,
    ) -> cudnnStatus_t;
    fn cudnnConvolutionForward(
        handle: cudnnHandle_t,
        alpha: *const c_void,
        x_desc: cudnnTensorDescriptor_t,
        x: *const c_void,
        w_desc: cudnnFilterDescriptor_t,
        w: *const c_void,
        conv_desc: cudnnConvolutionDescriptor_t,
        algo: cudnnConvolutionFwdAlgo_t,
        workspace: *mut c_void,
        workspace_bytes: usize,
        beta: *const c_void,
        y_desc: cudnnTensorDescriptor_t,
        y: *mut c_void,
    ) -> cudnnStatus_t;
    fn cudnnConvolutionBiasActivationForward(
        handle: cudnnHandle_t,
        alpha1: *const c_void,
        x_desc: cudnnTensorDescriptor_t,
        x: *const c_void,
        w_desc: cudnnFilterDescriptor_t,
        w: *const c_void,
        conv_desc: cudnnConvolutionDescriptor_t,
        algo: cudnnConvolutionFwdAlgo_t,
        workspace: *mut c_void,
        workspace_bytes: usize,
        alpha2: *const c_void,
        z_desc: cudnnTensorDescriptor_t,
        z: *const c_void,
        bias_desc: cudnnTensorDescriptor_t,
        bias: *const c_void,
        activation_desc: cudnnActivationDescriptor_t,
        y_desc: cudnnTensorDescriptor_t,
        y: *mut c_void,
    ) -> cudnnStatus_t;

    // Gradient with respect to the input.
    fn cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle: cudnnHandle_t, count: *mut c_int) -> cudnnStatus_t;
    fn cudnnGetConvolutionBackwardDataAlgorithm_v7(
        handle: cudnnHandle_t,
        w_desc: cudnnFilterDescriptor_t,
        dy_desc: cudnnTensorDescriptor_t,
        conv_desc: cudnnConvolutionDescriptor_t,
        dx_desc: cudnnTensorDescriptor_t,
        requested: c_int,
        returned: *mut c_int,
        results: *mut cudnnConvolutionBwdDataAlgoPerf_t,
    ) -> cudnnStatus_t;
    fn cudnnFindConvolutionBackwardDataAlgorithmEx(
        handle: cudnnHandle_t,
        w_desc: cudnnFilterDescriptor_t,
        w: *const c_void,
        dy_desc: cudnnTensorDescriptor_t,
        dy: *const c_void,
        conv_desc: cudnnConvolutionDescriptor_t,
        dx_desc: cudnnTensorDescriptor_t,
        dx: *mut c_void,
        requested: c_int,
        returned: *mut c_int,
        results: *mut cudnnConvolutionBwdDataAlgoPerf_t,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> cudnnStatus_t;
    fn cudnnGetConvolutionBackwardDataWorkspaceSize(
        handle: cudnnHandle_t,
        w_desc: cudnnFilterDescriptor_t,
        dy_desc: cudnnTensorDescriptor_t,
        conv_desc: cudnnConvolutionDescriptor_t,
        dx_desc: cudnnTensorDescriptor_t,
        algo: cudnnConvolutionBwdDataAlgo_t,
        bytes: *mut usize,
    ) -> cudnnStatus_t;
    fn cudnnConvolutionBackwardData(
        handle: cudnnHandle_t,
        alpha: *const c_void,
        w_desc: cudnnFilterDescriptor_t,
        w: *const c_void,
        dy_desc: cudnnTensorDescriptor_t,
        dy: *const c_void,
        conv_desc: cudnnConvolutionDescriptor_t,
        algo: cudnnConvolutionBwdDataAlgo_t,
        workspace: *mut c_void,
        workspace_bytes: usize,
        beta: *const c_void,
        dx_desc: cudnnTensorDescriptor_t,
        dx: *mut c_void,
    ) -> cudnnStatus_t;

    // Gradient with respect to the filter.
    fn cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle: cudnnHandle_t, count: *mut c_int) -> cudnnStatus_t;
    fn cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        handle: cudnnHandle_t,
        x_desc: cudnnTensorDescriptor_t,
        dy_desc: cudnnTensorDescriptor_t,
        conv_desc: cudnnConvolutionDescriptor_t,
        dw_desc: cudnnFilterDescriptor_t,
        requested: c_int,
        returned: *mut c_int,
        results: *mut cudnnConvolutionBwdFilterAlgoPerf_t,
    ) -> cudnnStatus_t;
    fn cudnnFindConvolutionBackwardFilterAlgorithmEx(
        handle: cudnnHandle_t,
        x_desc: cudnnTensorDescriptor_t,
        x: *const c_void,
        dy_desc: cudnnTensorDescriptor_t,
        dy: *const c_void,
        conv_desc: cudnnConvolutionDescriptor_t,
        dw_desc: cudnnFilterDescriptor_t,
        dw: *mut c_void,
        requested: c_int,
        returned: *mut c_int,
        results: *mut cudnnConvolutionBwdFilterAlgoPerf_t,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> cudnnStatus_t;
    fn cudnnGetConvolutionBackwardFilterWorkspaceSize(
        handle: cudnnHandle_t,
        x_desc: cudnnTensorDescriptor_t,
        dy_desc: cudnnTensorDescriptor_t,
        conv_desc: cudnnConvolutionDescriptor_t,
        dw_desc: cudnnFilterDescriptor_t,
        algo: cudnnConvolutionBwdFilterAlgo_t,
        bytes: *mut usize,
    ) -> cudnnStatus_t;
    fn cudnnConvolutionBackwardFilter(
        handle: cudnnHandle_t,
        alpha: *const c_void,
        x_desc: cudnnTensorDescriptor_t,
        x: *const c_void,
        dy_desc: cudnnTensorDescriptor_t,
        dy: *const c_void,
        conv_desc: cudnnConvolutionDescriptor_t,
        algo: cudnnConvolutionBwdFilterAlgo_t,
        workspace: *mut c_void,
        workspace_bytes: usize,
        beta: *const c_void,
        dw_desc: cudnnFilterDescriptor_t,
        dw: *mut c_void,
    ) -> cudnnStatus_t;
    fn cudnnConvolutionBackwardBias(
        handle: cudnnHandle_t,
        alpha: *const c_void,
        dy_desc: cudnnTensorDescriptor_t,
        dy: *const c_void,
        beta: *const c_void,
        db_desc: cudnnTensorDescriptor_t,
        db: *mut c_void,
    ) -> cudnnStatus_t;

    // Pooling.
    fn cudnnCreatePoolingDescriptor(desc: *mut cudnnPoolingDescriptor_t) -> cudnnStatus_t;
    fn cudnnSetPoolingNdDescriptor(
        desc: cudnnPoolingDescriptor_t,
        mode: cudnnPoolingMode_t,
        nan: cudnnNanPropagation_t,
        nb_dims: c_int,
        window: *const c_int,
        padding: *const c_int,
        strides: *const c_int,
    ) -> cudnnStatus_t;
    fn cudnnGetPoolingNdForwardOutputDim(
        desc: cudnnPoolingDescriptor_t,
        x_desc: cudnnTensorDescriptor_t,
        nb_dims: c_int,
        out_dims: *mut c_int,
    ) -> cudnnStatus_t;
    fn cudnnDestroyPoolingDescriptor(desc: cudnnPoolingDescriptor_t) -> cudnnStatus_t;
    fn cudnnPoolingForward(
        handle: cudnnHandle_t,
        desc: cudnnPoolingDescriptor_t,
        alpha: *const c_void,
        x_desc: cudnnTensorDescriptor_t,
        x: *const c_void,
        beta: *const c_void,
        y_desc: cudnnTensorDescriptor_t,
        y: *mut c_void,
    ) -> cudnnStatus_t;
    fn cudnnPoolingBackward(
        handle: cudnnHandle_t,
        desc: cudnnPoolingDescriptor_t,
        alpha: *const c_void,
        y_desc: cudnnTensorDescriptor_t,
        y: *const c_void,
        dy_desc: cudnnTensorDescriptor_t,
        dy: *const c_void,
        x_desc: cudnnTensorDescriptor_t,
        x: *const c_void,
        beta: *const c_void,
        dx_desc: cudnnTensorDescriptor_t,
        dx: *mut c_void,
    ) -> cudnnStatus_t;

    // Activation descriptor (for the fused convolution).
    fn cudnnCreateActivationDescriptor(desc: *mut cudnnActivationDescriptor_t) -> cudnnStatus_t;
    fn cudnnSetActivationDescriptor(
        desc: cudnnActivationDescriptor_t,
        mode: cudnnActivationMode_t,
        nan: cudnnNanPropagation_t,
        coef: f64,
    ) -> cudnnStatus_t;
    fn cudnnDestroyActivationDescriptor(desc: cudnnActivationDescriptor_t) -> cudnnStatus_t;

    // The graph (backend) API.
    fn cudnnBackendCreateDescriptor(
        kind: cudnnBackendDescriptorType_t,
        desc: *mut cudnnBackendDescriptor_t,
    ) -> cudnnStatus_t;
    fn cudnnBackendDestroyDescriptor(desc: cudnnBackendDescriptor_t) -> cudnnStatus_t;
    fn cudnnBackendFinalize(desc: cudnnBackendDescriptor_t) -> cudnnStatus_t;
    fn cudnnBackendSetAttribute(
        desc: cudnnBackendDescriptor_t,
        name: cudnnBackendAttributeName_t,
        kind: cudnnBackendAttributeType_t,
        count: i64,
        values: *const c_void,
    ) -> cudnnStatus_t;
    fn cudnnBackendGetAttribute(
        desc: cudnnBackendDescriptor_t,
        name: cudnnBackendAttributeName_t,
        kind: cudnnBackendAttributeType_t,
        requested: i64,
        count: *mut i64,
        values: *mut c_void,
    ) -> cudnnStatus_t;
    fn cudnnBackendExecute(
        handle: cudnnHandle_t,
        plan: cudnnBackendDescriptor_t,
        variant_pack: cudnnBackendDescriptor_t,
    ) -> cudnnStatus_t;
}

// ---------------------------------------------------------------------------------------------
// The graph (backend) API: descriptors built attribute by attribute, finalized, and executed
// as a plan with a variant pack of device pointers.

opaque! {
    /// A backend descriptor of any type (`cudnnBackendDescriptor_t`): a tensor, an operation,
    /// an operation graph, engine heuristics, an engine configuration, an execution plan or a
    /// variant pack.
    cudnnBackendDescriptor_t = cudnnBackendDescriptor;
}

c_enum! {
    /// The type of a backend descriptor (`cudnnBackendDescriptorType_t`), the ones cuprite
    /// builds.
    cudnnBackendDescriptorType_t {
        CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR = 1,
        CUDNN_BACKEND_ENGINE_DESCRIPTOR = 2,
        CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3,
        CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR = 4,
        CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR = 10,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR = 11,
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR = 12,
        CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15,
        CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16,
        CUDNN_BACKEND_TENSOR_DESCRIPTOR = 17,
    }
}

c_enum! {
    /// The element type of a backend attribute's values (`cudnnBackendAttributeType_t`).
    cudnnBackendAttributeType_t {
        CUDNN_TYPE_HANDLE = 0,
        CUDNN_TYPE_DATA_TYPE = 1,
        CUDNN_TYPE_BOOLEAN = 2,
        CUDNN_TYPE_INT64 = 3,
        CUDNN_TYPE_FLOAT = 4,
        CUDNN_TYPE_DOUBLE = 5,
        CUDNN_TYPE_VOID_PTR = 6,
        CUDNN_TYPE_CONVOLUTION_MODE = 7,
        CUDNN_TYPE_HEUR_MODE = 8,
        CUDNN_TYPE_KNOB_TYPE = 9,
        CUDNN_TYPE_NAN_PROPOGATION = 10,
        CUDNN_TYPE_NUMERICAL_NOTE = 11,
        CUDNN_TYPE_LAYOUT_TYPE = 12,
        CUDNN_TYPE_ATTRIB_NAME = 13,
        CUDNN_TYPE_POINTWISE_MODE = 14,
        CUDNN_TYPE_BACKEND_DESCRIPTOR = 15,
        CUDNN_TYPE_BEHAVIOR_NOTE = 19,
    }
}

c_enum! {
    /// A backend attribute (`cudnnBackendAttributeName_t`), the ones cuprite sets or reads.
    cudnnBackendAttributeName_t {
        CUDNN_ATTR_CONVOLUTION_COMP_TYPE = 100,
        CUDNN_ATTR_CONVOLUTION_CONV_MODE = 101,
        CUDNN_ATTR_CONVOLUTION_DILATIONS = 102,
        CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES = 103,
        CUDNN_ATTR_CONVOLUTION_POST_PADDINGS = 104,
        CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS = 105,
        CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS = 106,
        CUDNN_ATTR_ENGINEHEUR_MODE = 200,
        CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201,
        CUDNN_ATTR_ENGINEHEUR_RESULTS = 202,
        CUDNN_ATTR_ENGINECFG_ENGINE = 300,
        CUDNN_ATTR_EXECUTION_PLAN_HANDLE = 400,
        CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
        CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA = 700,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA = 701,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC = 702,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W = 703,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X = 704,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y = 705,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA = 706,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA = 707,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC = 708,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W = 709,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX = 710,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY = 711,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA = 712,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA = 713,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC = 714,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW = 715,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X = 716,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY = 717,
        CUDNN_ATTR_OPERATIONGRAPH_HANDLE = 800,
        CUDNN_ATTR_OPERATIONGRAPH_OPS = 801,
        CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900,
        CUDNN_ATTR_TENSOR_DATA_TYPE = 901,
        CUDNN_ATTR_TENSOR_DIMENSIONS = 902,
        CUDNN_ATTR_TENSOR_STRIDES = 903,
        CUDNN_ATTR_TENSOR_UNIQUE_ID = 906,
        CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000,
        CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
        CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003,
        CUDNN_ATTR_ENGINE_GLOBAL_INDEX = 1301,
        CUDNN_ATTR_ENGINE_NUMERICAL_NOTE = 1303,
        CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE = 1305,
    }
}

c_enum! {
    /// A behavioural property of an engine (`cudnnBackendBehaviorNote_t`).
    cudnnBackendBehaviorNote_t {
        CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION = 0,
        CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER = 1,
        CUDNN_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER = 2,
        CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API = 3,
        CUDNN_BEHAVIOR_NOTE_TYPE_COUNT = 4,
    }
}

c_enum! {
    /// How engine heuristics rank engines (`cudnnBackendHeurMode_t`).
    cudnnBackendHeurMode_t {
        CUDNN_HEUR_MODE_INSTANT = 0,
        CUDNN_HEUR_MODE_B = 1,
        CUDNN_HEUR_MODE_FALLBACK = 2,
        CUDNN_HEUR_MODE_A = 3,
    }
}

c_enum! {
    /// A numerical property of an engine (`cudnnBackendNumericalNote_t`).
    cudnnBackendNumericalNote_t {
        CUDNN_NUMERICAL_NOTE_TENSOR_CORE = 0,
        CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS = 1,
        CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION = 2,
        CUDNN_NUMERICAL_NOTE_FFT = 3,
        CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC = 4,
        CUDNN_NUMERICAL_NOTE_WINOGRAD = 5,
        CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4 = 6,
        CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6 = 7,
        CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13 = 8,
        CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP = 9,
        CUDNN_NUMERICAL_NOTE_TYPE_COUNT = 10,
    }
}
