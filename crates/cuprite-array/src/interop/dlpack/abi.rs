//! The C structs and constants of `dlpack.h` (DLPack 1.0), laid out as the header lays them out.

use std::ffi::c_void;

/// The DLPack major version this module speaks.
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// The DLPack minor version this module writes.
pub const DLPACK_MINOR_VERSION: u32 = 0;
/// `kDLCPU`.
pub const KDL_CPU: i32 = 1;
/// `kDLCUDA`.
pub const KDL_CUDA: i32 = 2;
/// `kDLInt`.
pub const KDL_INT: u8 = 0;
/// `kDLUInt`.
pub const KDL_UINT: u8 = 1;
/// `kDLFloat`.
pub const KDL_FLOAT: u8 = 2;
/// `kDLBfloat`.
pub const KDL_BFLOAT: u8 = 4;
/// `kDLComplex`.
pub const KDL_COMPLEX: u8 = 5;
/// `kDLBool`.
pub const KDL_BOOL: u8 = 6;
/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write the memory.
pub const FLAG_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy the consumer owns alone.
pub const FLAG_IS_COPIED: u64 = 1 << 1;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version (ABI).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType` (`kDLCPU` = 1, `kDLCUDA` = 2, ...).
    pub device_type: i32,
    /// The device ordinal.
    pub device_id: i32,
}

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode`.
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Vector lanes (1 for scalars).
    pub lanes: u16,
}

/// `DLTensor`: a borrowed view of N-d memory.
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// The data (with `byte_offset` added, the first element).
    pub data: *mut c_void,
    /// Where the data lives.
    pub device: DLDevice,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for row-major contiguous.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensor` (legacy, unversioned).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer when done; frees this struct too.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned` (DLPack 1.x).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The DLPack version of this struct.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer when done; frees this struct too.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `FLAG_*` bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}
