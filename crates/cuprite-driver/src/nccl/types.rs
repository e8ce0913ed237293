//! The element types and the reductions NCCL takes.

use crate::memory::DeviceCopy;
use cuprite_sys::nccl::{ncclDataType_t, ncclRedOp_t};

mod sealed {
    pub trait Sealed {}
}

/// An element type NCCL reduces and moves: `f16`, `bf16`, `f32`, `f64`, `i8`, `u8`, `i32`,
/// `u32`, `i64`, `u64` (sealed: NCCL knows no others).
///
/// ```
/// use cuprite_driver::nccl::NcclType;
/// assert_eq!(<f32 as NcclType>::NAME, "f32");
/// ```
pub trait NcclType: DeviceCopy + sealed::Sealed {
    /// NCCL's code for the type.
    const DATA_TYPE: ncclDataType_t;
    /// The Rust name, for messages.
    const NAME: &'static str;
}

macro_rules! nccl_types {
    ($($t:ty => $code:ident, $name:literal;)*) => {$(
        impl sealed::Sealed for $t {}
        impl NcclType for $t {
            const DATA_TYPE: ncclDataType_t = ncclDataType_t::$code;
            const NAME: &'static str = $name;
        }
    )*};
}

nccl_types! {
    i8 => ncclInt8, "i8";
    u8 => ncclUint8, "u8";
    i32 => ncclInt32, "i32";
    u32 => ncclUint32, "u32";
    i64 => ncclInt64, "i64";
    u64 => ncclUint64, "u64";
    half::f16 => ncclFloat16, "f16";
    f32 => ncclFloat32, "f32";
    f64 => ncclFloat64, "f64";
    half::bf16 => ncclBfloat16, "bf16";
}

/// A reduction: element-wise over the ranks' buffers.
///
/// `Avg` is the sum divided by the number of ranks (for integers, NCCL's integer division).
/// `Prod` and `Sum` of integers wrap on overflow, as in C.
///
/// ```
/// use cuprite_driver::nccl::ReduceOp;
/// assert_eq!(ReduceOp::ALL.len(), 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum.
    Sum,
    /// Product.
    Prod,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Mean (sum / number of ranks).
    Avg,
}

impl ReduceOp {
    /// Every reduction, in declaration order.
    pub const ALL: [ReduceOp; 5] = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::Avg,
    ];

    pub(super) fn raw(self) -> ncclRedOp_t {
        match self {
            ReduceOp::Sum => ncclRedOp_t::ncclSum,
            ReduceOp::Prod => ncclRedOp_t::ncclProd,
            ReduceOp::Min => ncclRedOp_t::ncclMin,
            ReduceOp::Max => ncclRedOp_t::ncclMax,
            ReduceOp::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}
