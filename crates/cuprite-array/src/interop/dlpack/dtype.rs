//! Element types to DLPack data types and back, and the names of DLPack device types.

use super::abi::{DLDataType, KDL_BFLOAT, KDL_BOOL, KDL_COMPLEX, KDL_FLOAT, KDL_INT, KDL_UINT};
use crate::dtype::DType;
use crate::error::{Error, Result};

/// The DLPack type of an element type.
pub fn dl_dtype(d: DType) -> DLDataType {
    let (code, bits) = match d {
        DType::Bool => (KDL_BOOL, 8),
        DType::U8 => (KDL_UINT, 8),
        DType::U16 => (KDL_UINT, 16),
        DType::U32 => (KDL_UINT, 32),
        DType::U64 => (KDL_UINT, 64),
        DType::I8 => (KDL_INT, 8),
        DType::I16 => (KDL_INT, 16),
        DType::I32 => (KDL_INT, 32),
        DType::I64 => (KDL_INT, 64),
        DType::F16 => (KDL_FLOAT, 16),
        DType::BF16 => (KDL_BFLOAT, 16),
        DType::F32 => (KDL_FLOAT, 32),
        DType::F64 => (KDL_FLOAT, 64),
        DType::C32 => (KDL_COMPLEX, 64),
        DType::C64 => (KDL_COMPLEX, 128),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

/// The element type of a DLPack type; an unsupported one is an `Err` naming it.
pub fn dtype_of(t: DLDataType) -> Result<DType> {
    let unsupported = || {
        let code = match t.code {
            KDL_INT => "kDLInt",
            KDL_UINT => "kDLUInt",
            KDL_FLOAT => "kDLFloat",
            3 => "kDLOpaqueHandle",
            KDL_BFLOAT => "kDLBfloat",
            KDL_COMPLEX => "kDLComplex",
            KDL_BOOL => "kDLBool",
            _ => "an unknown or float8/float6/float4 code",
        };
        Error::InvalidArgument(format!(
            "unsupported DLPack dtype: code {} ({code}), {} bits, {} lane(s)",
            t.code, t.bits, t.lanes
        ))
    };
    if t.lanes != 1 {
        return Err(unsupported());
    }
    Ok(match (t.code, t.bits) {
        (KDL_BOOL, 8) => DType::Bool,
        (KDL_UINT, 8) => DType::U8,
        (KDL_UINT, 16) => DType::U16,
        (KDL_UINT, 32) => DType::U32,
        (KDL_UINT, 64) => DType::U64,
        (KDL_INT, 8) => DType::I8,
        (KDL_INT, 16) => DType::I16,
        (KDL_INT, 32) => DType::I32,
        (KDL_INT, 64) => DType::I64,
        (KDL_FLOAT, 16) => DType::F16,
        (KDL_BFLOAT, 16) => DType::BF16,
        (KDL_FLOAT, 32) => DType::F32,
        (KDL_FLOAT, 64) => DType::F64,
        (KDL_COMPLEX, 64) => DType::C32,
        (KDL_COMPLEX, 128) => DType::C64,
        _ => return Err(unsupported()),
    })
}

pub(super) fn device_type_name(t: i32) -> &'static str {
    match t {
        1 => "kDLCPU",
        2 => "kDLCUDA",
        3 => "kDLCUDAHost",
        4 => "kDLOpenCL",
        7 => "kDLVulkan",
        8 => "kDLMetal",
        9 => "kDLVPI",
        10 => "kDLROCM",
        11 => "kDLROCMHost",
        12 => "kDLExtDev",
        13 => "kDLCUDAManaged",
        14 => "kDLOneAPI",
        15 => "kDLWebGPU",
        16 => "kDLHexagon",
        17 => "kDLMAIA",
        _ => "an unknown device type",
    }
}
