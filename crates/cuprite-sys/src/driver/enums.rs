//! Driver API enumerations and flag sets, as `c_int`/`c_uint` newtypes with associated constants.
//!
//! Generated from `cuda.h` (CUDA 13.5) for the enums cuprite uses; values are ABI facts. Newtypes
//! rather than Rust enums, because the driver may hand back values newer than this list.

/// `CUctx_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUctx_flags(pub u32);
#[allow(missing_docs)]
impl CUctx_flags {
    pub const CU_CTX_SCHED_AUTO: CUctx_flags = CUctx_flags(0);
    pub const CU_CTX_SCHED_SPIN: CUctx_flags = CUctx_flags(1);
    pub const CU_CTX_SCHED_YIELD: CUctx_flags = CUctx_flags(2);
    pub const CU_CTX_SCHED_BLOCKING_SYNC: CUctx_flags = CUctx_flags(4);
    pub const CU_CTX_BLOCKING_SYNC: CUctx_flags = CUctx_flags(4);
    pub const CU_CTX_SCHED_MASK: CUctx_flags = CUctx_flags(7);
    pub const CU_CTX_MAP_HOST: CUctx_flags = CUctx_flags(8);
    pub const CU_CTX_COREDUMP_ENABLE: CUctx_flags = CUctx_flags(32);
    pub const CU_CTX_USER_COREDUMP_ENABLE: CUctx_flags = CUctx_flags(64);
    pub const CU_CTX_SYNC_MEMOPS: CUctx_flags = CUctx_flags(128);
    pub const CU_CTX_FLAGS_MASK: CUctx_flags = CUctx_flags(255);
}

/// `CUstream_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUstream_flags(pub u32);
#[allow(missing_docs)]
impl CUstream_flags {
    pub const CU_STREAM_DEFAULT: CUstream_flags = CUstream_flags(0);
    pub const CU_STREAM_NON_BLOCKING: CUstream_flags = CUstream_flags(1);
}

/// `CUevent_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUevent_flags(pub u32);
#[allow(missing_docs)]
impl CUevent_flags {
    pub const CU_EVENT_DEFAULT: CUevent_flags = CUevent_flags(0);
    pub const CU_EVENT_BLOCKING_SYNC: CUevent_flags = CUevent_flags(1);
    pub const CU_EVENT_DISABLE_TIMING: CUevent_flags = CUevent_flags(2);
    pub const CU_EVENT_INTERPROCESS: CUevent_flags = CUevent_flags(4);
}

/// `CUevent_record_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUevent_record_flags(pub u32);
#[allow(missing_docs)]
impl CUevent_record_flags {
    pub const CU_EVENT_RECORD_DEFAULT: CUevent_record_flags = CUevent_record_flags(0);
    pub const CU_EVENT_RECORD_EXTERNAL: CUevent_record_flags = CUevent_record_flags(1);
}

/// `CUevent_wait_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUevent_wait_flags(pub u32);
#[allow(missing_docs)]
impl CUevent_wait_flags {
    pub const CU_EVENT_WAIT_DEFAULT: CUevent_wait_flags = CUevent_wait_flags(0);
    pub const CU_EVENT_WAIT_EXTERNAL: CUevent_wait_flags = CUevent_wait_flags(1);
}

/// `CUlimit`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUlimit(pub u32);
#[allow(missing_docs)]
impl CUlimit {
    pub const CU_LIMIT_STACK_SIZE: CUlimit = CUlimit(0);
    pub const CU_LIMIT_PRINTF_FIFO_SIZE: CUlimit = CUlimit(1);
    pub const CU_LIMIT_MALLOC_HEAP_SIZE: CUlimit = CUlimit(2);
    pub const CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: CUlimit = CUlimit(3);
    pub const CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: CUlimit = CUlimit(4);
    pub const CU_LIMIT_MAX_L2_FETCH_GRANULARITY: CUlimit = CUlimit(5);
    pub const CU_LIMIT_PERSISTING_L2_CACHE_SIZE: CUlimit = CUlimit(6);
    pub const CU_LIMIT_SHMEM_SIZE: CUlimit = CUlimit(7);
    pub const CU_LIMIT_CIG_ENABLED: CUlimit = CUlimit(8);
    pub const CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED: CUlimit = CUlimit(9);
    pub const CU_LIMIT_PER_BLOCK_MEMORY_SIZE: CUlimit = CUlimit(10);
}

/// `CUfunc_cache`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUfunc_cache(pub u32);
#[allow(missing_docs)]
impl CUfunc_cache {
    pub const CU_FUNC_CACHE_PREFER_NONE: CUfunc_cache = CUfunc_cache(0);
    pub const CU_FUNC_CACHE_PREFER_SHARED: CUfunc_cache = CUfunc_cache(1);
    pub const CU_FUNC_CACHE_PREFER_L1: CUfunc_cache = CUfunc_cache(2);
    pub const CU_FUNC_CACHE_PREFER_EQUAL: CUfunc_cache = CUfunc_cache(3);
}

/// `CUsharedconfig`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUsharedconfig(pub u32);
#[allow(missing_docs)]
impl CUsharedconfig {
    pub const CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE: CUsharedconfig = CUsharedconfig(0);
    pub const CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE: CUsharedconfig = CUsharedconfig(1);
    pub const CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE: CUsharedconfig = CUsharedconfig(2);
}

/// `CUfunction_attribute`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUfunction_attribute(pub u32);
#[allow(missing_docs)]
impl CUfunction_attribute {
    pub const CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: CUfunction_attribute =
        CUfunction_attribute(0);
    pub const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: CUfunction_attribute = CUfunction_attribute(1);
    pub const CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: CUfunction_attribute = CUfunction_attribute(2);
    pub const CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: CUfunction_attribute = CUfunction_attribute(3);
    pub const CU_FUNC_ATTRIBUTE_NUM_REGS: CUfunction_attribute = CUfunction_attribute(4);
    pub const CU_FUNC_ATTRIBUTE_PTX_VERSION: CUfunction_attribute = CUfunction_attribute(5);
    pub const CU_FUNC_ATTRIBUTE_BINARY_VERSION: CUfunction_attribute = CUfunction_attribute(6);
    pub const CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: CUfunction_attribute = CUfunction_attribute(7);
    pub const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: CUfunction_attribute =
        CUfunction_attribute(8);
    pub const CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: CUfunction_attribute =
        CUfunction_attribute(9);
    pub const CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: CUfunction_attribute =
        CUfunction_attribute(10);
    pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: CUfunction_attribute =
        CUfunction_attribute(11);
    pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: CUfunction_attribute =
        CUfunction_attribute(12);
    pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: CUfunction_attribute =
        CUfunction_attribute(13);
    pub const CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: CUfunction_attribute =
        CUfunction_attribute(14);
    pub const CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: CUfunction_attribute =
        CUfunction_attribute(15);
    pub const CU_FUNC_ATTRIBUTE_DEVICE_NODE_UPDATE_SUPPORTED: CUfunction_attribute =
        CUfunction_attribute(16);
    pub const CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE: CUfunction_attribute = CUfunction_attribute(17);
}

/// `CUmemorytype`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmemorytype(pub u32);
#[allow(missing_docs)]
impl CUmemorytype {
    pub const CU_MEMORYTYPE_HOST: CUmemorytype = CUmemorytype(1);
    pub const CU_MEMORYTYPE_DEVICE: CUmemorytype = CUmemorytype(2);
    pub const CU_MEMORYTYPE_ARRAY: CUmemorytype = CUmemorytype(3);
    pub const CU_MEMORYTYPE_UNIFIED: CUmemorytype = CUmemorytype(4);
}

/// `CUgraphNodeType`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUgraphNodeType(pub u32);
#[allow(missing_docs)]
impl CUgraphNodeType {
    pub const CU_GRAPH_NODE_TYPE_KERNEL: CUgraphNodeType = CUgraphNodeType(0);
    pub const CU_GRAPH_NODE_TYPE_MEMCPY: CUgraphNodeType = CUgraphNodeType(1);
    pub const CU_GRAPH_NODE_TYPE_MEMSET: CUgraphNodeType = CUgraphNodeType(2);
}

/// `CUmem_advise`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmem_advise(pub u32);
#[allow(missing_docs)]
impl CUmem_advise {
    pub const CU_MEM_ADVISE_SET_READ_MOSTLY: CUmem_advise = CUmem_advise(1);
    pub const CU_MEM_ADVISE_UNSET_READ_MOSTLY: CUmem_advise = CUmem_advise(2);
    pub const CU_MEM_ADVISE_SET_PREFERRED_LOCATION: CUmem_advise = CUmem_advise(3);
    pub const CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: CUmem_advise = CUmem_advise(4);
    pub const CU_MEM_ADVISE_SET_ACCESSED_BY: CUmem_advise = CUmem_advise(5);
    pub const CU_MEM_ADVISE_UNSET_ACCESSED_BY: CUmem_advise = CUmem_advise(6);
}

/// `CUmemLocationType`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmemLocationType(pub u32);
#[allow(missing_docs)]
impl CUmemLocationType {
    pub const CU_MEM_LOCATION_TYPE_INVALID: CUmemLocationType = CUmemLocationType(0);
    pub const CU_MEM_LOCATION_TYPE_NONE: CUmemLocationType = CUmemLocationType(0);
    pub const CU_MEM_LOCATION_TYPE_DEVICE: CUmemLocationType = CUmemLocationType(1);
    pub const CU_MEM_LOCATION_TYPE_HOST: CUmemLocationType = CUmemLocationType(2);
    pub const CU_MEM_LOCATION_TYPE_HOST_NUMA: CUmemLocationType = CUmemLocationType(3);
    pub const CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: CUmemLocationType = CUmemLocationType(4);
    pub const CU_MEM_LOCATION_TYPE_INVISIBLE: CUmemLocationType = CUmemLocationType(5);
    pub const CU_MEM_LOCATION_TYPE_DEVICE_LOCALITY_DOMAIN: CUmemLocationType = CUmemLocationType(6);
}

/// `CUmemPool_attribute`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmemPool_attribute(pub u32);
#[allow(missing_docs)]
impl CUmemPool_attribute {
    pub const CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: CUmemPool_attribute =
        CUmemPool_attribute(1);
    pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: CUmemPool_attribute =
        CUmemPool_attribute(2);
    pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: CUmemPool_attribute =
        CUmemPool_attribute(3);
    pub const CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: CUmemPool_attribute = CUmemPool_attribute(4);
    pub const CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: CUmemPool_attribute = CUmemPool_attribute(5);
    pub const CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: CUmemPool_attribute = CUmemPool_attribute(6);
    pub const CU_MEMPOOL_ATTR_USED_MEM_CURRENT: CUmemPool_attribute = CUmemPool_attribute(7);
    pub const CU_MEMPOOL_ATTR_USED_MEM_HIGH: CUmemPool_attribute = CUmemPool_attribute(8);
    pub const CU_MEMPOOL_ATTR_ALLOCATION_TYPE: CUmemPool_attribute = CUmemPool_attribute(9);
    pub const CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES: CUmemPool_attribute = CUmemPool_attribute(10);
    pub const CU_MEMPOOL_ATTR_LOCATION_ID: CUmemPool_attribute = CUmemPool_attribute(11);
    pub const CU_MEMPOOL_ATTR_LOCATION_TYPE: CUmemPool_attribute = CUmemPool_attribute(12);
    pub const CU_MEMPOOL_ATTR_MAX_POOL_SIZE: CUmemPool_attribute = CUmemPool_attribute(13);
    pub const CU_MEMPOOL_ATTR_HW_DECOMPRESS_ENABLED: CUmemPool_attribute = CUmemPool_attribute(14);
    pub const CU_MEMPOOL_ATTR_LOCALITY_DOMAIN_ID: CUmemPool_attribute = CUmemPool_attribute(15);
}

/// `CUmemAllocationType`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmemAllocationType(pub u32);
#[allow(missing_docs)]
impl CUmemAllocationType {
    pub const CU_MEM_ALLOCATION_TYPE_INVALID: CUmemAllocationType = CUmemAllocationType(0);
    pub const CU_MEM_ALLOCATION_TYPE_PINNED: CUmemAllocationType = CUmemAllocationType(1);
    pub const CU_MEM_ALLOCATION_TYPE_MANAGED: CUmemAllocationType = CUmemAllocationType(2);
}

/// `CUmemAllocationHandleType`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmemAllocationHandleType(pub u32);
#[allow(missing_docs)]
impl CUmemAllocationHandleType {
    pub const CU_MEM_HANDLE_TYPE_NONE: CUmemAllocationHandleType = CUmemAllocationHandleType(0);
    pub const CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: CUmemAllocationHandleType =
        CUmemAllocationHandleType(1);
    pub const CU_MEM_HANDLE_TYPE_WIN32: CUmemAllocationHandleType = CUmemAllocationHandleType(2);
    pub const CU_MEM_HANDLE_TYPE_WIN32_KMT: CUmemAllocationHandleType =
        CUmemAllocationHandleType(4);
    pub const CU_MEM_HANDLE_TYPE_FABRIC: CUmemAllocationHandleType = CUmemAllocationHandleType(8);
}

/// `CUmemAccess_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmemAccess_flags(pub u32);
#[allow(missing_docs)]
impl CUmemAccess_flags {
    pub const CU_MEM_ACCESS_FLAGS_PROT_NONE: CUmemAccess_flags = CUmemAccess_flags(0);
    pub const CU_MEM_ACCESS_FLAGS_PROT_READ: CUmemAccess_flags = CUmemAccess_flags(1);
    pub const CU_MEM_ACCESS_FLAGS_PROT_READWRITE: CUmemAccess_flags = CUmemAccess_flags(3);
}

/// `CUstreamCaptureMode`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUstreamCaptureMode(pub u32);
#[allow(missing_docs)]
impl CUstreamCaptureMode {
    pub const CU_STREAM_CAPTURE_MODE_GLOBAL: CUstreamCaptureMode = CUstreamCaptureMode(0);
    pub const CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: CUstreamCaptureMode = CUstreamCaptureMode(1);
    pub const CU_STREAM_CAPTURE_MODE_RELAXED: CUstreamCaptureMode = CUstreamCaptureMode(2);
}

/// `CUstreamCaptureStatus`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUstreamCaptureStatus(pub u32);
#[allow(missing_docs)]
impl CUstreamCaptureStatus {
    pub const CU_STREAM_CAPTURE_STATUS_NONE: CUstreamCaptureStatus = CUstreamCaptureStatus(0);
    pub const CU_STREAM_CAPTURE_STATUS_ACTIVE: CUstreamCaptureStatus = CUstreamCaptureStatus(1);
    pub const CU_STREAM_CAPTURE_STATUS_INVALIDATED: CUstreamCaptureStatus =
        CUstreamCaptureStatus(2);
}

/// `CUjit_option`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUjit_option(pub u32);
#[allow(missing_docs)]
impl CUjit_option {
    pub const CU_JIT_MAX_REGISTERS: CUjit_option = CUjit_option(0);
    pub const CU_JIT_THREADS_PER_BLOCK: CUjit_option = CUjit_option(1);
    pub const CU_JIT_WALL_TIME: CUjit_option = CUjit_option(2);
    pub const CU_JIT_INFO_LOG_BUFFER: CUjit_option = CUjit_option(3);
    pub const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: CUjit_option = CUjit_option(4);
    pub const CU_JIT_ERROR_LOG_BUFFER: CUjit_option = CUjit_option(5);
    pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: CUjit_option = CUjit_option(6);
    pub const CU_JIT_OPTIMIZATION_LEVEL: CUjit_option = CUjit_option(7);
    pub const CU_JIT_TARGET_FROM_CUCONTEXT: CUjit_option = CUjit_option(8);
    pub const CU_JIT_TARGET: CUjit_option = CUjit_option(9);
    pub const CU_JIT_FALLBACK_STRATEGY: CUjit_option = CUjit_option(10);
    pub const CU_JIT_GENERATE_DEBUG_INFO: CUjit_option = CUjit_option(11);
    pub const CU_JIT_LOG_VERBOSE: CUjit_option = CUjit_option(12);
    pub const CU_JIT_GENERATE_LINE_INFO: CUjit_option = CUjit_option(13);
    pub const CU_JIT_CACHE_MODE: CUjit_option = CUjit_option(14);
    pub const CU_JIT_NEW_SM3X_OPT: CUjit_option = CUjit_option(15);
    pub const CU_JIT_FAST_COMPILE: CUjit_option = CUjit_option(16);
    pub const CU_JIT_GLOBAL_SYMBOL_NAMES: CUjit_option = CUjit_option(17);
    pub const CU_JIT_GLOBAL_SYMBOL_ADDRESSES: CUjit_option = CUjit_option(18);
    pub const CU_JIT_GLOBAL_SYMBOL_COUNT: CUjit_option = CUjit_option(19);
    pub const CU_JIT_LTO: CUjit_option = CUjit_option(20);
    pub const CU_JIT_FTZ: CUjit_option = CUjit_option(21);
    pub const CU_JIT_PREC_DIV: CUjit_option = CUjit_option(22);
    pub const CU_JIT_PREC_SQRT: CUjit_option = CUjit_option(23);
    pub const CU_JIT_FMA: CUjit_option = CUjit_option(24);
    pub const CU_JIT_REFERENCED_KERNEL_NAMES: CUjit_option = CUjit_option(25);
    pub const CU_JIT_REFERENCED_KERNEL_COUNT: CUjit_option = CUjit_option(26);
    pub const CU_JIT_REFERENCED_VARIABLE_NAMES: CUjit_option = CUjit_option(27);
    pub const CU_JIT_REFERENCED_VARIABLE_COUNT: CUjit_option = CUjit_option(28);
    pub const CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES: CUjit_option = CUjit_option(29);
    pub const CU_JIT_POSITION_INDEPENDENT_CODE: CUjit_option = CUjit_option(30);
    pub const CU_JIT_MIN_CTA_PER_SM: CUjit_option = CUjit_option(31);
    pub const CU_JIT_MAX_THREADS_PER_BLOCK: CUjit_option = CUjit_option(32);
    pub const CU_JIT_OVERRIDE_DIRECTIVE_VALUES: CUjit_option = CUjit_option(33);
    pub const CU_JIT_SPLIT_COMPILE: CUjit_option = CUjit_option(34);
    pub const CU_JIT_BINARY_LOADER_THREAD_COUNT: CUjit_option = CUjit_option(35);
}

/// `CUjitInputType`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUjitInputType(pub u32);
#[allow(missing_docs)]
impl CUjitInputType {
    pub const CU_JIT_INPUT_CUBIN: CUjitInputType = CUjitInputType(0);
    pub const CU_JIT_INPUT_PTX: CUjitInputType = CUjitInputType(1);
    pub const CU_JIT_INPUT_FATBINARY: CUjitInputType = CUjitInputType(2);
    pub const CU_JIT_INPUT_OBJECT: CUjitInputType = CUjitInputType(3);
    pub const CU_JIT_INPUT_LIBRARY: CUjitInputType = CUjitInputType(4);
    pub const CU_JIT_INPUT_NVVM: CUjitInputType = CUjitInputType(5);
}

/// `CUpointer_attribute`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUpointer_attribute(pub u32);
#[allow(missing_docs)]
impl CUpointer_attribute {
    pub const CU_POINTER_ATTRIBUTE_CONTEXT: CUpointer_attribute = CUpointer_attribute(1);
    pub const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: CUpointer_attribute = CUpointer_attribute(2);
    pub const CU_POINTER_ATTRIBUTE_DEVICE_POINTER: CUpointer_attribute = CUpointer_attribute(3);
    pub const CU_POINTER_ATTRIBUTE_HOST_POINTER: CUpointer_attribute = CUpointer_attribute(4);
    pub const CU_POINTER_ATTRIBUTE_P2P_TOKENS: CUpointer_attribute = CUpointer_attribute(5);
    pub const CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: CUpointer_attribute = CUpointer_attribute(6);
    pub const CU_POINTER_ATTRIBUTE_BUFFER_ID: CUpointer_attribute = CUpointer_attribute(7);
    pub const CU_POINTER_ATTRIBUTE_IS_MANAGED: CUpointer_attribute = CUpointer_attribute(8);
    pub const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: CUpointer_attribute = CUpointer_attribute(9);
    pub const CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: CUpointer_attribute =
        CUpointer_attribute(10);
    pub const CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: CUpointer_attribute = CUpointer_attribute(11);
    pub const CU_POINTER_ATTRIBUTE_RANGE_SIZE: CUpointer_attribute = CUpointer_attribute(12);
    pub const CU_POINTER_ATTRIBUTE_MAPPED: CUpointer_attribute = CUpointer_attribute(13);
    pub const CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: CUpointer_attribute =
        CUpointer_attribute(14);
    pub const CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: CUpointer_attribute =
        CUpointer_attribute(15);
    pub const CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: CUpointer_attribute = CUpointer_attribute(16);
    pub const CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: CUpointer_attribute = CUpointer_attribute(17);
    pub const CU_POINTER_ATTRIBUTE_MAPPING_SIZE: CUpointer_attribute = CUpointer_attribute(18);
    pub const CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: CUpointer_attribute = CUpointer_attribute(19);
    pub const CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: CUpointer_attribute = CUpointer_attribute(20);
    pub const CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: CUpointer_attribute =
        CUpointer_attribute(21);
    pub const CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL: CUpointer_attribute =
        CUpointer_attribute(22);
}

/// `CUgraphExecUpdateResult`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUgraphExecUpdateResult(pub u32);
#[allow(missing_docs)]
impl CUgraphExecUpdateResult {
    pub const CU_GRAPH_EXEC_UPDATE_SUCCESS: CUgraphExecUpdateResult = CUgraphExecUpdateResult(0);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR: CUgraphExecUpdateResult = CUgraphExecUpdateResult(1);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED: CUgraphExecUpdateResult =
        CUgraphExecUpdateResult(2);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED: CUgraphExecUpdateResult =
        CUgraphExecUpdateResult(3);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED: CUgraphExecUpdateResult =
        CUgraphExecUpdateResult(4);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED: CUgraphExecUpdateResult =
        CUgraphExecUpdateResult(5);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED: CUgraphExecUpdateResult =
        CUgraphExecUpdateResult(6);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE: CUgraphExecUpdateResult =
        CUgraphExecUpdateResult(7);
    pub const CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED: CUgraphExecUpdateResult =
        CUgraphExecUpdateResult(8);
}

/// `CUlaunchAttributeID`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUlaunchAttributeID(pub u32);
#[allow(missing_docs)]
impl CUlaunchAttributeID {
    pub const CU_LAUNCH_ATTRIBUTE_IGNORE: CUlaunchAttributeID = CUlaunchAttributeID(0);
    pub const CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: CUlaunchAttributeID =
        CUlaunchAttributeID(1);
    pub const CU_LAUNCH_ATTRIBUTE_COOPERATIVE: CUlaunchAttributeID = CUlaunchAttributeID(2);
    pub const CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: CUlaunchAttributeID =
        CUlaunchAttributeID(3);
    pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: CUlaunchAttributeID = CUlaunchAttributeID(4);
    pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: CUlaunchAttributeID =
        CUlaunchAttributeID(5);
    pub const CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: CUlaunchAttributeID =
        CUlaunchAttributeID(6);
    pub const CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT: CUlaunchAttributeID = CUlaunchAttributeID(7);
    pub const CU_LAUNCH_ATTRIBUTE_PRIORITY: CUlaunchAttributeID = CUlaunchAttributeID(8);
    pub const CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: CUlaunchAttributeID = CUlaunchAttributeID(9);
    pub const CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: CUlaunchAttributeID = CUlaunchAttributeID(10);
    pub const CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION: CUlaunchAttributeID =
        CUlaunchAttributeID(11);
    pub const CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT: CUlaunchAttributeID =
        CUlaunchAttributeID(12);
    pub const CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE: CUlaunchAttributeID =
        CUlaunchAttributeID(13);
    pub const CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: CUlaunchAttributeID =
        CUlaunchAttributeID(14);
    pub const CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING: CUlaunchAttributeID =
        CUlaunchAttributeID(16);
    pub const CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE: CUlaunchAttributeID =
        CUlaunchAttributeID(17);
    pub const CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE: CUlaunchAttributeID = CUlaunchAttributeID(18);
}

/// `CUgraphInstantiate_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUgraphInstantiate_flags(pub u32);
#[allow(missing_docs)]
impl CUgraphInstantiate_flags {
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH: CUgraphInstantiate_flags =
        CUgraphInstantiate_flags(1);
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: CUgraphInstantiate_flags =
        CUgraphInstantiate_flags(2);
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: CUgraphInstantiate_flags =
        CUgraphInstantiate_flags(4);
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY: CUgraphInstantiate_flags =
        CUgraphInstantiate_flags(8);
}

/// `CUdevice_P2PAttribute`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUdevice_P2PAttribute(pub u32);
#[allow(missing_docs)]
impl CUdevice_P2PAttribute {
    pub const CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: CUdevice_P2PAttribute =
        CUdevice_P2PAttribute(1);
    pub const CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED: CUdevice_P2PAttribute =
        CUdevice_P2PAttribute(2);
    pub const CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: CUdevice_P2PAttribute =
        CUdevice_P2PAttribute(3);
    pub const CU_DEVICE_P2P_ATTRIBUTE_ACCESS_ACCESS_SUPPORTED: CUdevice_P2PAttribute =
        CUdevice_P2PAttribute(4);
    pub const CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: CUdevice_P2PAttribute =
        CUdevice_P2PAttribute(4);
    pub const CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: CUdevice_P2PAttribute =
        CUdevice_P2PAttribute(5);
}

/// `CUmemAttach_flags`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CUmemAttach_flags(pub u32);
#[allow(missing_docs)]
impl CUmemAttach_flags {
    pub const CU_MEM_ATTACH_GLOBAL: CUmemAttach_flags = CUmemAttach_flags(1);
    pub const CU_MEM_ATTACH_HOST: CUmemAttach_flags = CUmemAttach_flags(2);
    pub const CU_MEM_ATTACH_SINGLE: CUmemAttach_flags = CUmemAttach_flags(4);
}
