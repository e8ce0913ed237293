//! `CUresult`: every value the CUDA 13 driver documents, with its name.
//!
//! Generated from `cuda.h` (CUDA 13.5) by listing `enum cudaError_enum`; the values are facts of
//! the driver ABI. `CUresult` is a newtype over `c_int` rather than a Rust enum because a newer
//! driver may return a value this list does not know, and that must not be undefined behaviour.

use core::ffi::c_int;

/// A CUDA driver API status code (`CUresult`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CUresult(pub c_int);

#[allow(missing_docs)]
impl CUresult {
    pub const CUDA_SUCCESS: CUresult = CUresult(0);
    pub const CUDA_ERROR_INVALID_VALUE: CUresult = CUresult(1);
    pub const CUDA_ERROR_OUT_OF_MEMORY: CUresult = CUresult(2);
    pub const CUDA_ERROR_NOT_INITIALIZED: CUresult = CUresult(3);
    pub const CUDA_ERROR_DEINITIALIZED: CUresult = CUresult(4);
    pub const CUDA_ERROR_PROFILER_DISABLED: CUresult = CUresult(5);
    pub const CUDA_ERROR_PROFILER_NOT_INITIALIZED: CUresult = CUresult(6);
    pub const CUDA_ERROR_PROFILER_ALREADY_STARTED: CUresult = CUresult(7);
    pub const CUDA_ERROR_PROFILER_ALREADY_STOPPED: CUresult = CUresult(8);
    pub const CUDA_ERROR_STUB_LIBRARY: CUresult = CUresult(34);
    pub const CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: CUresult = CUresult(36);
    pub const CUDA_ERROR_DEVICE_UNAVAILABLE: CUresult = CUresult(46);
    pub const CUDA_ERROR_MULTICAST_RESOURCE_FULL: CUresult = CUresult(47);
    pub const CUDA_ERROR_NO_DEVICE: CUresult = CUresult(100);
    pub const CUDA_ERROR_INVALID_DEVICE: CUresult = CUresult(101);
    pub const CUDA_ERROR_DEVICE_NOT_LICENSED: CUresult = CUresult(102);
    pub const CUDA_ERROR_INVALID_IMAGE: CUresult = CUresult(200);
    pub const CUDA_ERROR_INVALID_CONTEXT: CUresult = CUresult(201);
    pub const CUDA_ERROR_CONTEXT_ALREADY_CURRENT: CUresult = CUresult(202);
    pub const CUDA_ERROR_MAP_FAILED: CUresult = CUresult(205);
    pub const CUDA_ERROR_UNMAP_FAILED: CUresult = CUresult(206);
    pub const CUDA_ERROR_ARRAY_IS_MAPPED: CUresult = CUresult(207);
    pub const CUDA_ERROR_ALREADY_MAPPED: CUresult = CUresult(208);
    pub const CUDA_ERROR_NO_BINARY_FOR_GPU: CUresult = CUresult(209);
    pub const CUDA_ERROR_ALREADY_ACQUIRED: CUresult = CUresult(210);
    pub const CUDA_ERROR_NOT_MAPPED: CUresult = CUresult(211);
    pub const CUDA_ERROR_NOT_MAPPED_AS_ARRAY: CUresult = CUresult(212);
    pub const CUDA_ERROR_NOT_MAPPED_AS_POINTER: CUresult = CUresult(213);
    pub const CUDA_ERROR_ECC_UNCORRECTABLE: CUresult = CUresult(214);
    pub const CUDA_ERROR_UNSUPPORTED_LIMIT: CUresult = CUresult(215);
    pub const CUDA_ERROR_CONTEXT_ALREADY_IN_USE: CUresult = CUresult(216);
    pub const CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: CUresult = CUresult(217);
    pub const CUDA_ERROR_INVALID_PTX: CUresult = CUresult(218);
    pub const CUDA_ERROR_INVALID_GRAPHICS_CONTEXT: CUresult = CUresult(219);
    pub const CUDA_ERROR_NVLINK_UNCORRECTABLE: CUresult = CUresult(220);
    pub const CUDA_ERROR_JIT_COMPILER_NOT_FOUND: CUresult = CUresult(221);
    pub const CUDA_ERROR_UNSUPPORTED_PTX_VERSION: CUresult = CUresult(222);
    pub const CUDA_ERROR_JIT_COMPILATION_DISABLED: CUresult = CUresult(223);
    pub const CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY: CUresult = CUresult(224);
    pub const CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC: CUresult = CUresult(225);
    pub const CUDA_ERROR_CONTAINED: CUresult = CUresult(226);
    pub const CUDA_ERROR_INSUFFICIENT_LOADER_VERSION: CUresult = CUresult(227);
    pub const CUDA_ERROR_INVALID_SOURCE: CUresult = CUresult(300);
    pub const CUDA_ERROR_FILE_NOT_FOUND: CUresult = CUresult(301);
    pub const CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: CUresult = CUresult(302);
    pub const CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: CUresult = CUresult(303);
    pub const CUDA_ERROR_OPERATING_SYSTEM: CUresult = CUresult(304);
    pub const CUDA_ERROR_INVALID_HANDLE: CUresult = CUresult(400);
    pub const CUDA_ERROR_ILLEGAL_STATE: CUresult = CUresult(401);
    pub const CUDA_ERROR_LOSSY_QUERY: CUresult = CUresult(402);
    pub const CUDA_ERROR_NOT_FOUND: CUresult = CUresult(500);
    pub const CUDA_ERROR_NOT_READY: CUresult = CUresult(600);
    pub const CUDA_ERROR_ILLEGAL_ADDRESS: CUresult = CUresult(700);
    pub const CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: CUresult = CUresult(701);
    pub const CUDA_ERROR_LAUNCH_TIMEOUT: CUresult = CUresult(702);
    pub const CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING: CUresult = CUresult(703);
    pub const CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: CUresult = CUresult(704);
    pub const CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: CUresult = CUresult(705);
    pub const CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: CUresult = CUresult(708);
    pub const CUDA_ERROR_CONTEXT_IS_DESTROYED: CUresult = CUresult(709);
    pub const CUDA_ERROR_ASSERT: CUresult = CUresult(710);
    pub const CUDA_ERROR_TOO_MANY_PEERS: CUresult = CUresult(711);
    pub const CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: CUresult = CUresult(712);
    pub const CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: CUresult = CUresult(713);
    pub const CUDA_ERROR_HARDWARE_STACK_ERROR: CUresult = CUresult(714);
    pub const CUDA_ERROR_ILLEGAL_INSTRUCTION: CUresult = CUresult(715);
    pub const CUDA_ERROR_MISALIGNED_ADDRESS: CUresult = CUresult(716);
    pub const CUDA_ERROR_INVALID_ADDRESS_SPACE: CUresult = CUresult(717);
    pub const CUDA_ERROR_INVALID_PC: CUresult = CUresult(718);
    pub const CUDA_ERROR_LAUNCH_FAILED: CUresult = CUresult(719);
    pub const CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: CUresult = CUresult(720);
    pub const CUDA_ERROR_TENSOR_MEMORY_LEAK: CUresult = CUresult(721);
    pub const CUDA_ERROR_NOT_PERMITTED: CUresult = CUresult(800);
    pub const CUDA_ERROR_NOT_SUPPORTED: CUresult = CUresult(801);
    pub const CUDA_ERROR_SYSTEM_NOT_READY: CUresult = CUresult(802);
    pub const CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: CUresult = CUresult(803);
    pub const CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: CUresult = CUresult(804);
    pub const CUDA_ERROR_MPS_CONNECTION_FAILED: CUresult = CUresult(805);
    pub const CUDA_ERROR_MPS_RPC_FAILURE: CUresult = CUresult(806);
    pub const CUDA_ERROR_MPS_SERVER_NOT_READY: CUresult = CUresult(807);
    pub const CUDA_ERROR_MPS_MAX_CLIENTS_REACHED: CUresult = CUresult(808);
    pub const CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED: CUresult = CUresult(809);
    pub const CUDA_ERROR_MPS_CLIENT_TERMINATED: CUresult = CUresult(810);
    pub const CUDA_ERROR_CDP_NOT_SUPPORTED: CUresult = CUresult(811);
    pub const CUDA_ERROR_CDP_VERSION_MISMATCH: CUresult = CUresult(812);
    pub const CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: CUresult = CUresult(900);
    pub const CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: CUresult = CUresult(901);
    pub const CUDA_ERROR_STREAM_CAPTURE_MERGE: CUresult = CUresult(902);
    pub const CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: CUresult = CUresult(903);
    pub const CUDA_ERROR_STREAM_CAPTURE_UNJOINED: CUresult = CUresult(904);
    pub const CUDA_ERROR_STREAM_CAPTURE_ISOLATION: CUresult = CUresult(905);
    pub const CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: CUresult = CUresult(906);
    pub const CUDA_ERROR_CAPTURED_EVENT: CUresult = CUresult(907);
    pub const CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: CUresult = CUresult(908);
    pub const CUDA_ERROR_TIMEOUT: CUresult = CUresult(909);
    pub const CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: CUresult = CUresult(910);
    pub const CUDA_ERROR_EXTERNAL_DEVICE: CUresult = CUresult(911);
    pub const CUDA_ERROR_INVALID_CLUSTER_SIZE: CUresult = CUresult(912);
    pub const CUDA_ERROR_FUNCTION_NOT_LOADED: CUresult = CUresult(913);
    pub const CUDA_ERROR_INVALID_RESOURCE_TYPE: CUresult = CUresult(914);
    pub const CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION: CUresult = CUresult(915);
    pub const CUDA_ERROR_KEY_ROTATION: CUresult = CUresult(916);
    pub const CUDA_ERROR_STREAM_DETACHED: CUresult = CUresult(917);
    pub const CUDA_ERROR_GRAPH_RECAPTURE_FAILURE: CUresult = CUresult(918);
    pub const CUDA_ERROR_FABRIC_NOT_READY: CUresult = CUresult(919);
    pub const CUDA_ERROR_UNKNOWN: CUresult = CUresult(999);
}

/// Every known `CUresult`, as (value, name), in the order of `cuda.h`.
pub const CURESULT_NAMES: &[(CUresult, &str)] = &[
    (CUresult::CUDA_SUCCESS, "CUDA_SUCCESS"),
    (
        CUresult::CUDA_ERROR_INVALID_VALUE,
        "CUDA_ERROR_INVALID_VALUE",
    ),
    (
        CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        "CUDA_ERROR_OUT_OF_MEMORY",
    ),
    (
        CUresult::CUDA_ERROR_NOT_INITIALIZED,
        "CUDA_ERROR_NOT_INITIALIZED",
    ),
    (
        CUresult::CUDA_ERROR_DEINITIALIZED,
        "CUDA_ERROR_DEINITIALIZED",
    ),
    (
        CUresult::CUDA_ERROR_PROFILER_DISABLED,
        "CUDA_ERROR_PROFILER_DISABLED",
    ),
    (
        CUresult::CUDA_ERROR_PROFILER_NOT_INITIALIZED,
        "CUDA_ERROR_PROFILER_NOT_INITIALIZED",
    ),
    (
        CUresult::CUDA_ERROR_PROFILER_ALREADY_STARTED,
        "CUDA_ERROR_PROFILER_ALREADY_STARTED",
    ),
    (
        CUresult::CUDA_ERROR_PROFILER_ALREADY_STOPPED,
        "CUDA_ERROR_PROFILER_ALREADY_STOPPED",
    ),
    (CUresult::CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY"),
    (
        CUresult::CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
        "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
    ),
    (
        CUresult::CUDA_ERROR_DEVICE_UNAVAILABLE,
        "CUDA_ERROR_DEVICE_UNAVAILABLE",
    ),
    (
        CUresult::CUDA_ERROR_MULTICAST_RESOURCE_FULL,
        "CUDA_ERROR_MULTICAST_RESOURCE_FULL",
    ),
    (CUresult::CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"),
    (
        CUresult::CUDA_ERROR_INVALID_DEVICE,
        "CUDA_ERROR_INVALID_DEVICE",
    ),
    (
        CUresult::CUDA_ERROR_DEVICE_NOT_LICENSED,
        "CUDA_ERROR_DEVICE_NOT_LICENSED",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_IMAGE,
        "CUDA_ERROR_INVALID_IMAGE",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_CONTEXT,
        "CUDA_ERROR_INVALID_CONTEXT",
    ),
    (
        CUresult::CUDA_ERROR_CONTEXT_ALREADY_CURRENT,
        "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
    ),
    (CUresult::CUDA_ERROR_MAP_FAILED, "CUDA_ERROR_MAP_FAILED"),
    (CUresult::CUDA_ERROR_UNMAP_FAILED, "CUDA_ERROR_UNMAP_FAILED"),
    (
        CUresult::CUDA_ERROR_ARRAY_IS_MAPPED,
        "CUDA_ERROR_ARRAY_IS_MAPPED",
    ),
    (
        CUresult::CUDA_ERROR_ALREADY_MAPPED,
        "CUDA_ERROR_ALREADY_MAPPED",
    ),
    (
        CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU,
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
    ),
    (
        CUresult::CUDA_ERROR_ALREADY_ACQUIRED,
        "CUDA_ERROR_ALREADY_ACQUIRED",
    ),
    (CUresult::CUDA_ERROR_NOT_MAPPED, "CUDA_ERROR_NOT_MAPPED"),
    (
        CUresult::CUDA_ERROR_NOT_MAPPED_AS_ARRAY,
        "CUDA_ERROR_NOT_MAPPED_AS_ARRAY",
    ),
    (
        CUresult::CUDA_ERROR_NOT_MAPPED_AS_POINTER,
        "CUDA_ERROR_NOT_MAPPED_AS_POINTER",
    ),
    (
        CUresult::CUDA_ERROR_ECC_UNCORRECTABLE,
        "CUDA_ERROR_ECC_UNCORRECTABLE",
    ),
    (
        CUresult::CUDA_ERROR_UNSUPPORTED_LIMIT,
        "CUDA_ERROR_UNSUPPORTED_LIMIT",
    ),
    (
        CUresult::CUDA_ERROR_CONTEXT_ALREADY_IN_USE,
        "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
    ),
    (
        CUresult::CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
        "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
    ),
    (CUresult::CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"),
    (
        CUresult::CUDA_ERROR_INVALID_GRAPHICS_CONTEXT,
        "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT",
    ),
    (
        CUresult::CUDA_ERROR_NVLINK_UNCORRECTABLE,
        "CUDA_ERROR_NVLINK_UNCORRECTABLE",
    ),
    (
        CUresult::CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
        "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
    ),
    (
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    ),
    (
        CUresult::CUDA_ERROR_JIT_COMPILATION_DISABLED,
        "CUDA_ERROR_JIT_COMPILATION_DISABLED",
    ),
    (
        CUresult::CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
        "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY",
    ),
    (
        CUresult::CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
        "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC",
    ),
    (CUresult::CUDA_ERROR_CONTAINED, "CUDA_ERROR_CONTAINED"),
    (
        CUresult::CUDA_ERROR_INSUFFICIENT_LOADER_VERSION,
        "CUDA_ERROR_INSUFFICIENT_LOADER_VERSION",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_SOURCE,
        "CUDA_ERROR_INVALID_SOURCE",
    ),
    (
        CUresult::CUDA_ERROR_FILE_NOT_FOUND,
        "CUDA_ERROR_FILE_NOT_FOUND",
    ),
    (
        CUresult::CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,
        "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
    ),
    (
        CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
        "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
    ),
    (
        CUresult::CUDA_ERROR_OPERATING_SYSTEM,
        "CUDA_ERROR_OPERATING_SYSTEM",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_HANDLE,
        "CUDA_ERROR_INVALID_HANDLE",
    ),
    (
        CUresult::CUDA_ERROR_ILLEGAL_STATE,
        "CUDA_ERROR_ILLEGAL_STATE",
    ),
    (CUresult::CUDA_ERROR_LOSSY_QUERY, "CUDA_ERROR_LOSSY_QUERY"),
    (CUresult::CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"),
    (CUresult::CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"),
    (
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
        "CUDA_ERROR_ILLEGAL_ADDRESS",
    ),
    (
        CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
    ),
    (
        CUresult::CUDA_ERROR_LAUNCH_TIMEOUT,
        "CUDA_ERROR_LAUNCH_TIMEOUT",
    ),
    (
        CUresult::CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,
        "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
    ),
    (
        CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
        "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
    ),
    (
        CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
        "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
    ),
    (
        CUresult::CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
        "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
    ),
    (
        CUresult::CUDA_ERROR_CONTEXT_IS_DESTROYED,
        "CUDA_ERROR_CONTEXT_IS_DESTROYED",
    ),
    (CUresult::CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT"),
    (
        CUresult::CUDA_ERROR_TOO_MANY_PEERS,
        "CUDA_ERROR_TOO_MANY_PEERS",
    ),
    (
        CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
        "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
    ),
    (
        CUresult::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
        "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
    ),
    (
        CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR,
        "CUDA_ERROR_HARDWARE_STACK_ERROR",
    ),
    (
        CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
        "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    ),
    (
        CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
        "CUDA_ERROR_MISALIGNED_ADDRESS",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE,
        "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    ),
    (CUresult::CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC"),
    (
        CUresult::CUDA_ERROR_LAUNCH_FAILED,
        "CUDA_ERROR_LAUNCH_FAILED",
    ),
    (
        CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
        "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
    ),
    (
        CUresult::CUDA_ERROR_TENSOR_MEMORY_LEAK,
        "CUDA_ERROR_TENSOR_MEMORY_LEAK",
    ),
    (
        CUresult::CUDA_ERROR_NOT_PERMITTED,
        "CUDA_ERROR_NOT_PERMITTED",
    ),
    (
        CUresult::CUDA_ERROR_NOT_SUPPORTED,
        "CUDA_ERROR_NOT_SUPPORTED",
    ),
    (
        CUresult::CUDA_ERROR_SYSTEM_NOT_READY,
        "CUDA_ERROR_SYSTEM_NOT_READY",
    ),
    (
        CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
    ),
    (
        CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
    ),
    (
        CUresult::CUDA_ERROR_MPS_CONNECTION_FAILED,
        "CUDA_ERROR_MPS_CONNECTION_FAILED",
    ),
    (
        CUresult::CUDA_ERROR_MPS_RPC_FAILURE,
        "CUDA_ERROR_MPS_RPC_FAILURE",
    ),
    (
        CUresult::CUDA_ERROR_MPS_SERVER_NOT_READY,
        "CUDA_ERROR_MPS_SERVER_NOT_READY",
    ),
    (
        CUresult::CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
        "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
    ),
    (
        CUresult::CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
        "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
    ),
    (
        CUresult::CUDA_ERROR_MPS_CLIENT_TERMINATED,
        "CUDA_ERROR_MPS_CLIENT_TERMINATED",
    ),
    (
        CUresult::CUDA_ERROR_CDP_NOT_SUPPORTED,
        "CUDA_ERROR_CDP_NOT_SUPPORTED",
    ),
    (
        CUresult::CUDA_ERROR_CDP_VERSION_MISMATCH,
        "CUDA_ERROR_CDP_VERSION_MISMATCH",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
        "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
        "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_MERGE,
        "CUDA_ERROR_STREAM_CAPTURE_MERGE",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
        "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
        "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
        "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
        "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
    ),
    (
        CUresult::CUDA_ERROR_CAPTURED_EVENT,
        "CUDA_ERROR_CAPTURED_EVENT",
    ),
    (
        CUresult::CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
        "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
    ),
    (CUresult::CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT"),
    (
        CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
        "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
    ),
    (
        CUresult::CUDA_ERROR_EXTERNAL_DEVICE,
        "CUDA_ERROR_EXTERNAL_DEVICE",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE,
        "CUDA_ERROR_INVALID_CLUSTER_SIZE",
    ),
    (
        CUresult::CUDA_ERROR_FUNCTION_NOT_LOADED,
        "CUDA_ERROR_FUNCTION_NOT_LOADED",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_RESOURCE_TYPE,
        "CUDA_ERROR_INVALID_RESOURCE_TYPE",
    ),
    (
        CUresult::CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
        "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
    ),
    (CUresult::CUDA_ERROR_KEY_ROTATION, "CUDA_ERROR_KEY_ROTATION"),
    (
        CUresult::CUDA_ERROR_STREAM_DETACHED,
        "CUDA_ERROR_STREAM_DETACHED",
    ),
    (
        CUresult::CUDA_ERROR_GRAPH_RECAPTURE_FAILURE,
        "CUDA_ERROR_GRAPH_RECAPTURE_FAILURE",
    ),
    (
        CUresult::CUDA_ERROR_FABRIC_NOT_READY,
        "CUDA_ERROR_FABRIC_NOT_READY",
    ),
    (CUresult::CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"),
];
