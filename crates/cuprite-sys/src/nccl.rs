//! NCCL, the NVIDIA collective communication library (`libnccl.so.2`): types and functions.
//!
//! The library is [`crate::libraries::NCCL`], looked for as [`crate::libraries::NCCL_SPEC`]
//! says (`CUPRITE_NCCL_PATH`, the toolkit, the system loader, the `nvidia-nccl-cu13`/`-cu12`
//! wheels' `nvidia/nccl/lib`). It is opened on the first call of any function here; a missing
//! library is an `Err` naming every place tried, a missing symbol (an NCCL older than the call)
//! an `Err` naming the symbol.
//!
//! ```
//! let mut v = 0;
//! // SAFETY: `v` is a valid out-pointer.
//! match unsafe { cuprite_sys::nccl::ncclGetVersion(&mut v) } {
//!     Ok(r) => println!("NCCL {v} ({r:?})"),
//!     Err(e) => println!("no NCCL: {e}"),
//! }
//! ```
//!
//! Values follow `nccl.h` of NCCL 2.x. Only what the safe layer needs is declared: init
//! (plain, with a config, all at once), destroy/finalize/abort, asynchronous error polling,
//! the collectives, point-to-point send/recv and groups.

#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    missing_docs
)]

use crate::driver::CUstream;
use crate::libraries::NCCL;
use core::ffi::{c_char, c_int, c_void};

/// An NCCL status code (`ncclResult_t`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ncclResult_t(pub c_int);

impl ncclResult_t {
    pub const ncclSuccess: ncclResult_t = ncclResult_t(0);
    pub const ncclUnhandledCudaError: ncclResult_t = ncclResult_t(1);
    pub const ncclSystemError: ncclResult_t = ncclResult_t(2);
    pub const ncclInternalError: ncclResult_t = ncclResult_t(3);
    pub const ncclInvalidArgument: ncclResult_t = ncclResult_t(4);
    pub const ncclInvalidUsage: ncclResult_t = ncclResult_t(5);
    pub const ncclRemoteError: ncclResult_t = ncclResult_t(6);
    pub const ncclInProgress: ncclResult_t = ncclResult_t(7);
    pub const ncclTimeout: ncclResult_t = ncclResult_t(8);

    /// The `nccl*` name of this code, if NCCL documents it.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "ncclSuccess",
            1 => "ncclUnhandledCudaError",
            2 => "ncclSystemError",
            3 => "ncclInternalError",
            4 => "ncclInvalidArgument",
            5 => "ncclInvalidUsage",
            6 => "ncclRemoteError",
            7 => "ncclInProgress",
            8 => "ncclTimeout",
            _ => return None,
        })
    }

    /// Whether this is `ncclSuccess`.
    #[inline(always)]
    pub fn is_success(self) -> bool {
        self.0 == 0
    }
}

impl core::fmt::Debug for ncclResult_t {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({})", self.0),
            None => write!(f, "ncclResult_t({})", self.0),
        }
    }
}

/// Bytes of an [`ncclUniqueId`].
pub const NCCL_UNIQUE_ID_BYTES: usize = 128;

/// The identifier every rank of one communicator is created with (`ncclUniqueId`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ncclUniqueId {
    pub internal: [u8; NCCL_UNIQUE_ID_BYTES],
}

#[repr(C)]
#[derive(Debug)]
pub struct ncclComm {
    _private: [u8; 0],
}
/// A communicator handle.
pub type ncclComm_t = *mut ncclComm;

/// An element type (`ncclDataType_t`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ncclDataType_t(pub c_int);

impl ncclDataType_t {
    pub const ncclInt8: ncclDataType_t = ncclDataType_t(0);
    pub const ncclUint8: ncclDataType_t = ncclDataType_t(1);
    pub const ncclInt32: ncclDataType_t = ncclDataType_t(2);
    pub const ncclUint32: ncclDataType_t = ncclDataType_t(3);
    pub const ncclInt64: ncclDataType_t = ncclDataType_t(4);
    pub const ncclUint64: ncclDataType_t = ncclDataType_t(5);
    pub const ncclFloat16: ncclDataType_t = ncclDataType_t(6);
    pub const ncclFloat32: ncclDataType_t = ncclDataType_t(7);
    pub const ncclFloat64: ncclDataType_t = ncclDataType_t(8);
    /// Since NCCL 2.10.
    pub const ncclBfloat16: ncclDataType_t = ncclDataType_t(9);
}

/// A reduction operation (`ncclRedOp_t`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ncclRedOp_t(pub c_int);

impl ncclRedOp_t {
    pub const ncclSum: ncclRedOp_t = ncclRedOp_t(0);
    pub const ncclProd: ncclRedOp_t = ncclRedOp_t(1);
    pub const ncclMax: ncclRedOp_t = ncclRedOp_t(2);
    pub const ncclMin: ncclRedOp_t = ncclRedOp_t(3);
    /// Since NCCL 2.10.
    pub const ncclAvg: ncclRedOp_t = ncclRedOp_t(4);
}

/// `NCCL_CONFIG_UNDEF_INT`: a config field left to NCCL's default.
pub const NCCL_CONFIG_UNDEF_INT: c_int = c_int::MIN;
/// `NCCL_API_MAGIC`, the `magic` of an initialised config.
pub const NCCL_API_MAGIC: u32 = 0xcafe_beef;

/// `NCCL_VERSION(x, y, z)` as the header computes it.
pub const fn nccl_version(x: c_int, y: c_int, z: c_int) -> c_int {
    if x <= 2 && y <= 8 {
        x * 1000 + y * 100 + z
    } else {
        x * 10000 + y * 100 + z
    }
}

/// The leading fields of `ncclConfig_t` as of NCCL 2.17 (the struct only grows at its end).
///
/// NCCL copies `min(size, its own sizeof)` bytes over its defaults and ignores fields newer
/// than `version`, so this prefix, with `size` set to its own size and `version` to 2.17, is
/// read correctly by every NCCL from 2.17 on; 2.14–2.16 read `blocking` only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ncclConfig_t {
    pub size: usize,
    pub magic: u32,
    pub version: u32,
    pub blocking: c_int,
    pub cgaClusterSize: c_int,
    pub minCTAs: c_int,
    pub maxCTAs: c_int,
    pub netName: *const c_char,
}

impl Default for ncclConfig_t {
    /// `NCCL_CONFIG_INITIALIZER` for this prefix: every field left to NCCL.
    fn default() -> Self {
        ncclConfig_t {
            size: core::mem::size_of::<ncclConfig_t>(),
            magic: NCCL_API_MAGIC,
            version: nccl_version(2, 17, 0) as u32,
            blocking: NCCL_CONFIG_UNDEF_INT,
            cgaClusterSize: NCCL_CONFIG_UNDEF_INT,
            minCTAs: NCCL_CONFIG_UNDEF_INT,
            maxCTAs: NCCL_CONFIG_UNDEF_INT,
            netName: core::ptr::null(),
        }
    }
}

/// The CUDA runtime's stream type, the same handle as the driver's.
pub type cudaStream_t = CUstream;

crate::dyn_functions! {
    library: NCCL;
    fn ncclGetVersion(version: *mut c_int) -> ncclResult_t;
    fn ncclGetUniqueId(unique_id: *mut ncclUniqueId) -> ncclResult_t;
    fn ncclCommInitRank(comm: *mut ncclComm_t, nranks: c_int, comm_id: ncclUniqueId, rank: c_int) -> ncclResult_t;
    /// Since NCCL 2.14.
    fn ncclCommInitRankConfig(comm: *mut ncclComm_t, nranks: c_int, comm_id: ncclUniqueId, rank: c_int, config: *mut ncclConfig_t) -> ncclResult_t;
    fn ncclCommInitAll(comm: *mut ncclComm_t, ndev: c_int, devlist: *const c_int) -> ncclResult_t;
    /// Since NCCL 2.14.
    fn ncclCommFinalize(comm: ncclComm_t) -> ncclResult_t;
    fn ncclCommDestroy(comm: ncclComm_t) -> ncclResult_t;
    fn ncclCommAbort(comm: ncclComm_t) -> ncclResult_t;
    /// Since NCCL 2.18.
    fn ncclCommSplit(comm: ncclComm_t, color: c_int, key: c_int, newcomm: *mut ncclComm_t, config: *mut ncclConfig_t) -> ncclResult_t;
    fn ncclGetErrorString(result: ncclResult_t) -> *const c_char;
    /// Since NCCL 2.13.
    fn ncclGetLastError(comm: ncclComm_t) -> *const c_char;
    fn ncclCommGetAsyncError(comm: ncclComm_t, async_error: *mut ncclResult_t) -> ncclResult_t;
    fn ncclCommCount(comm: ncclComm_t, count: *mut c_int) -> ncclResult_t;
    fn ncclCommCuDevice(comm: ncclComm_t, device: *mut c_int) -> ncclResult_t;
    fn ncclCommUserRank(comm: ncclComm_t, rank: *mut c_int) -> ncclResult_t;
    fn ncclReduce(sendbuff: *const c_void, recvbuff: *mut c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t, root: c_int, comm: ncclComm_t, stream: cudaStream_t) -> ncclResult_t;
    fn ncclBroadcast(sendbuff: *const c_void, recvbuff: *mut c_void, count: usize, datatype: ncclDataType_t, root: c_int, comm: ncclComm_t, stream: cudaStream_t) -> ncclResult_t;
    fn ncclAllReduce(sendbuff: *const c_void, recvbuff: *mut c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t, comm: ncclComm_t, stream: cudaStream_t) -> ncclResult_t;
    fn ncclReduceScatter(sendbuff: *const c_void, recvbuff: *mut c_void, recvcount: usize, datatype: ncclDataType_t, op: ncclRedOp_t, comm: ncclComm_t, stream: cudaStream_t) -> ncclResult_t;
    fn ncclAllGather(sendbuff: *const c_void, recvbuff: *mut c_void, sendcount: usize, datatype: ncclDataType_t, comm: ncclComm_t, stream: cudaStream_t) -> ncclResult_t;
    /// Since NCCL 2.7.
    fn ncclSend(sendbuff: *const c_void, count: usize, datatype: ncclDataType_t, peer: c_int, comm: ncclComm_t, stream: cudaStream_t) -> ncclResult_t;
    /// Since NCCL 2.7.
    fn ncclRecv(recvbuff: *mut c_void, count: usize, datatype: ncclDataType_t, peer: c_int, comm: ncclComm_t, stream: cudaStream_t) -> ncclResult_t;
    fn ncclGroupStart() -> ncclResult_t;
    fn ncclGroupEnd() -> ncclResult_t;
}
