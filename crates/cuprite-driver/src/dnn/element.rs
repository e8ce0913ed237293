//! The element types cuDNN's convolutions and poolings take ([`DnnElement`]), their compute
//! types, and the host scalars (`alpha`, `beta`) of the type cuDNN reads for them.

use crate::memory::DeviceCopy;
use cuprite_sys::cudnn::{cudnnDataType_t, cudnnMathType_t};
use half::{bf16, f16};
use std::ffi::c_void;

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// An element type of cuDNN tensors: `f16`, `bf16`, `f32`, `f64`. Half types accumulate in
/// `f32` (cuDNN's "pseudo-half" configurations); `f32` in `f32`; `f64` in `f64`.
///
/// ```
/// use cuprite_driver::dnn::DnnElement;
/// use cuprite_driver::sys::cudnn::cudnnDataType_t;
/// assert_eq!(<half::bf16 as DnnElement>::COMPUTE_TYPE, cudnnDataType_t::CUDNN_DATA_FLOAT);
/// ```
pub trait DnnElement: DeviceCopy + std::fmt::Debug + sealed::Sealed {
    /// cuDNN's data type of tensors of this element.
    const DATA_TYPE: cudnnDataType_t;
    /// The accumulation type of its convolutions.
    const COMPUTE_TYPE: cudnnDataType_t;
    /// The short name used in messages.
    const NAME: &'static str;
}

impl DnnElement for f16 {
    const DATA_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_HALF;
    const COMPUTE_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_FLOAT;
    const NAME: &'static str = "f16";
}
impl DnnElement for bf16 {
    const DATA_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_BFLOAT16;
    const COMPUTE_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_FLOAT;
    const NAME: &'static str = "bf16";
}
impl DnnElement for f32 {
    const DATA_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_FLOAT;
    const COMPUTE_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_FLOAT;
    const NAME: &'static str = "f32";
}
impl DnnElement for f64 {
    const DATA_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_DOUBLE;
    const COMPUTE_TYPE: cudnnDataType_t = cudnnDataType_t::CUDNN_DATA_DOUBLE;
    const NAME: &'static str = "f64";
}

static ONE_F32: f32 = 1.0;
static ZERO_F32: f32 = 0.0;
static ONE_F64: f64 = 1.0;
static ZERO_F64: f64 = 0.0;

/// Host pointers to `1` and `0` in the type cuDNN reads its scaling factors in for `T`:
/// `double` for `f64` tensors, `float` for every other type. Static, so they outlive any call.
pub(crate) fn one_zero<T: DnnElement>() -> (*const c_void, *const c_void) {
    if T::DATA_TYPE == cudnnDataType_t::CUDNN_DATA_DOUBLE {
        (
            (&ONE_F64 as *const f64).cast(),
            (&ZERO_F64 as *const f64).cast(),
        )
    } else {
        (
            (&ONE_F32 as *const f32).cast(),
            (&ZERO_F32 as *const f32).cast(),
        )
    }
}

/// The math type a convolution of `T` asks the heuristics with: `f32` without TF32 keeps to
/// FMA arithmetic, `f32` with TF32 lets cuDNN choose (tensor cores in TF32), half types use
/// tensor cores, `f64` its default.
pub(crate) fn requested_math<T: DnnElement>(allow_tf32: bool) -> cudnnMathType_t {
    match T::DATA_TYPE {
        cudnnDataType_t::CUDNN_DATA_FLOAT if !allow_tf32 => cudnnMathType_t::CUDNN_FMA_MATH,
        cudnnDataType_t::CUDNN_DATA_HALF | cudnnDataType_t::CUDNN_DATA_BFLOAT16 => {
            cudnnMathType_t::CUDNN_TENSOR_OP_MATH
        }
        _ => cudnnMathType_t::CUDNN_DEFAULT_MATH,
    }
}

/// Whether an algorithm that runs with math type `math` keeps `T`'s promised precision:
/// `f32` data is never converted to half types, and reaches tensor cores (TF32) only when
/// allowed.
pub(crate) fn math_allowed<T: DnnElement>(math: cudnnMathType_t, allow_tf32: bool) -> bool {
    if T::DATA_TYPE != cudnnDataType_t::CUDNN_DATA_FLOAT {
        return true;
    }
    match math {
        cudnnMathType_t::CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION => false,
        cudnnMathType_t::CUDNN_TENSOR_OP_MATH => allow_tf32,
        _ => true,
    }
}

/// The math type to run an algorithm the heuristics returned with math type `math`: its own,
/// except `f32` without TF32, which stays on FMA arithmetic.
pub(crate) fn run_math<T: DnnElement>(math: cudnnMathType_t, allow_tf32: bool) -> cudnnMathType_t {
    if T::DATA_TYPE == cudnnDataType_t::CUDNN_DATA_FLOAT && !allow_tf32 {
        cudnnMathType_t::CUDNN_FMA_MATH
    } else {
        math
    }
}
