//! The CUDA driver API (`libcuda`): handle types, structures, constants and functions.
//!
//! Functions are declared with [`dyn_functions!`](crate::dyn_functions): each returns
//! `Result<CUresult, LoadError>`, `Err` when the driver or that one symbol is missing. Versioned
//! symbols (`_v2`) are named explicitly, as the C header's macros would pick them; the
//! per-thread-default-stream variants (`_ptsz`) are not used: pass [`CU_STREAM_PER_THREAD`] as a
//! stream handle instead.

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

mod attribute;
mod enums;
mod result;

pub use attribute::CUdevice_attribute;
pub use enums::*;
pub use result::{CURESULT_NAMES, CUresult};

use crate::loader::{DynLibrary, LibrarySpec};
use core::ffi::{c_char, c_int, c_uint, c_void};

/// Where `libcuda` is looked for. The driver is never part of the toolkit folders (they hold
/// only link stubs), so those are skipped.
pub static SPEC: LibrarySpec = LibrarySpec {
    name: "libcuda",
    env_var: "CUPRITE_CUDA_PATH",
    unix_names: &["libcuda.so.1", "libcuda.so"],
    windows_names: &["nvcuda.dll"],
    in_toolkit: false,
    wheel_dirs: &[],
    companions: &[],
    prefer_major: None,
};

/// The process-wide handle of the driver library.
pub static LIBRARY: DynLibrary = DynLibrary::new(&SPEC);

pub type CUdevice = c_int;
pub type CUdeviceptr = u64;

macro_rules! opaque_handle {
    ($($name:ident => $inner:ident),* $(,)?) => {$(
        #[repr(C)]
        #[derive(Debug)]
        pub struct $inner {
            _private: [u8; 0],
        }
        pub type $name = *mut $inner;
    )*};
}

opaque_handle! {
    CUcontext => CUctx_st,
    CUmodule => CUmod_st,
    CUfunction => CUfunc_st,
    CUlibrary => CUlib_st,
    CUkernel => CUkern_st,
    CUstream => CUstream_st,
    CUevent => CUevent_st,
    CUgraph => CUgraph_st,
    CUgraphNode => CUgraphNode_st,
    CUgraphExec => CUgraphExec_st,
    CUmemoryPool => CUmemPoolHandle_st,
    CUlinkState => CUlinkState_st,
}

/// The legacy default stream, as an explicit handle.
pub const CU_STREAM_LEGACY: CUstream = 0x1 as CUstream;
/// The calling thread's per-thread default stream.
pub const CU_STREAM_PER_THREAD: CUstream = 0x2 as CUstream;

pub const CU_MEMHOSTALLOC_PORTABLE: c_uint = 0x01;
pub const CU_MEMHOSTALLOC_DEVICEMAP: c_uint = 0x02;
pub const CU_MEMHOSTALLOC_WRITECOMBINED: c_uint = 0x04;
pub const CU_MEMHOSTREGISTER_PORTABLE: c_uint = 0x01;
pub const CU_MEMHOSTREGISTER_DEVICEMAP: c_uint = 0x02;
pub const CU_MEMHOSTREGISTER_IOMEMORY: c_uint = 0x04;
pub const CU_MEMHOSTREGISTER_READ_ONLY: c_uint = 0x08;
pub const CU_DEVICE_CPU: CUdevice = -1;
pub const CU_DEVICE_INVALID: CUdevice = -2;
/// Ends `cuLaunchKernel`'s `extra` list.
pub const CU_LAUNCH_PARAM_END: *mut c_void = core::ptr::null_mut();
/// In `cuLaunchKernel`'s `extra` list: the next entry points at all parameters packed as the
/// kernel lays them out.
pub const CU_LAUNCH_PARAM_BUFFER_POINTER: *mut c_void = core::ptr::without_provenance_mut(0x01);
/// In `cuLaunchKernel`'s `extra` list: the next entry points at a `size_t` holding the size of
/// the packed parameter buffer.
pub const CU_LAUNCH_PARAM_BUFFER_SIZE: *mut c_void = core::ptr::without_provenance_mut(0x02);

/// A device's 16-byte UUID.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CUuuid {
    pub bytes: [c_char; 16],
}

/// A memory location: a device, the host, or a host NUMA node.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CUmemLocation {
    pub type_: CUmemLocationType,
    pub id: c_int,
}

/// Properties of a memory pool (`cuMemPoolCreate`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemPoolProps {
    pub allocType: CUmemAllocationType,
    pub handleTypes: CUmemAllocationHandleType,
    pub location: CUmemLocation,
    pub win32SecurityAttributes: *mut c_void,
    pub maxSize: usize,
    pub usage: u16,
    pub gpuDirectRDMACapable: u8,
    pub reserved: [u8; 53],
}

/// Access rights of a device to a pool or mapping.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemAccessDesc {
    pub location: CUmemLocation,
    pub flags: CUmemAccess_flags,
}

/// L2 access policy window (launch attribute 1).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUaccessPolicyWindow {
    pub base_ptr: *mut c_void,
    pub num_bytes: usize,
    pub hitRatio: f32,
    pub hitProp: c_uint,
    pub missProp: c_uint,
}

/// The value of a launch attribute: a 64-byte union in C. The accessors below cover the members
/// cuprite writes; `pad` keeps size and alignment exact.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUlaunchAttributeValue {
    pub pad: [u64; 8],
    pub cooperative: c_int,
    pub clusterDim: [c_uint; 3],
    pub clusterSchedulingPolicyPreference: c_uint,
    pub programmaticStreamSerializationAllowed: c_int,
    pub priority: c_int,
    pub accessPolicyWindow: CUaccessPolicyWindow,
}

impl core::fmt::Debug for CUlaunchAttributeValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // SAFETY: every bit pattern is a valid `[u64; 8]`, and the union is 64 bytes.
        write!(f, "CUlaunchAttributeValue({:x?})", unsafe { self.pad })
    }
}

/// One launch attribute: id, padding to 8 bytes, value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUlaunchAttribute {
    pub id: CUlaunchAttributeID,
    pub pad: [u8; 4],
    pub value: CUlaunchAttributeValue,
}

/// The configuration of `cuLaunchKernelEx`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUlaunchConfig {
    pub gridDimX: c_uint,
    pub gridDimY: c_uint,
    pub gridDimZ: c_uint,
    pub blockDimX: c_uint,
    pub blockDimY: c_uint,
    pub blockDimZ: c_uint,
    pub sharedMemBytes: c_uint,
    pub hStream: CUstream,
    pub attrs: *mut CUlaunchAttribute,
    pub numAttrs: c_uint,
}

/// What `cuGraphExecUpdate` reports.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUgraphExecUpdateResultInfo {
    pub result: CUgraphExecUpdateResult,
    pub errorNode: CUgraphNode,
    pub errorFromNode: CUgraphNode,
}

/// A 3D (or 1D, with `Height` and `Depth` 1) memory copy: `CUDA_MEMCPY3D`, as a memcpy graph
/// node holds it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_MEMCPY3D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcZ: usize,
    pub srcLOD: usize,
    pub srcMemoryType: CUmemorytype,
    pub srcHost: *const c_void,
    pub srcDevice: CUdeviceptr,
    pub srcArray: *mut c_void,
    pub reserved0: *mut c_void,
    pub srcPitch: usize,
    pub srcHeight: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstZ: usize,
    pub dstLOD: usize,
    pub dstMemoryType: CUmemorytype,
    pub dstHost: *mut c_void,
    pub dstDevice: CUdeviceptr,
    pub dstArray: *mut c_void,
    pub reserved1: *mut c_void,
    pub dstPitch: usize,
    pub dstHeight: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
    pub Depth: usize,
}

impl Default for CUDA_MEMCPY3D {
    fn default() -> Self {
        CUDA_MEMCPY3D {
            srcXInBytes: 0,
            srcY: 0,
            srcZ: 0,
            srcLOD: 0,
            srcMemoryType: CUmemorytype(0),
            srcHost: core::ptr::null(),
            srcDevice: 0,
            srcArray: core::ptr::null_mut(),
            reserved0: core::ptr::null_mut(),
            srcPitch: 0,
            srcHeight: 0,
            dstXInBytes: 0,
            dstY: 0,
            dstZ: 0,
            dstLOD: 0,
            dstMemoryType: CUmemorytype(0),
            dstHost: core::ptr::null_mut(),
            dstDevice: 0,
            dstArray: core::ptr::null_mut(),
            reserved1: core::ptr::null_mut(),
            dstPitch: 0,
            dstHeight: 0,
            WidthInBytes: 0,
            Height: 0,
            Depth: 0,
        }
    }
}

/// A host function enqueued with `cuLaunchHostFunc`.
pub type CUhostFn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;
/// Block size to dynamic shared memory, for the occupancy calculator.
pub type CUoccupancyB2DSize = Option<unsafe extern "C" fn(block_size: c_int) -> usize>;

crate::dyn_functions! {
    library: LIBRARY;
    // Initialisation, version, errors.
    fn cuInit(flags: c_uint) -> CUresult;
    fn cuDriverGetVersion(version: *mut c_int) -> CUresult;
    fn cuGetErrorName(error: CUresult, name: *mut *const c_char) -> CUresult;
    fn cuGetErrorString(error: CUresult, text: *mut *const c_char) -> CUresult;
    // Devices.
    fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult;
    fn cuDeviceGetCount(count: *mut c_int) -> CUresult;
    fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult;
    fn cuDeviceGetUuid_v2(uuid: *mut CUuuid, dev: CUdevice) -> CUresult;
    fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult;
    fn cuDeviceGetAttribute(pi: *mut c_int, attrib: CUdevice_attribute, dev: CUdevice) -> CUresult;
    fn cuDeviceGetPCIBusId(pci_bus_id: *mut c_char, len: c_int, dev: CUdevice) -> CUresult;
    fn cuDeviceGetByPCIBusId(dev: *mut CUdevice, pci_bus_id: *const c_char) -> CUresult;
    fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) -> CUresult;
    fn cuDeviceGetP2PAttribute(value: *mut c_int, attrib: CUdevice_P2PAttribute, src: CUdevice, dst: CUdevice) -> CUresult;
    fn cuDeviceGetDefaultMemPool(pool: *mut CUmemoryPool, dev: CUdevice) -> CUresult;
    fn cuDeviceGetMemPool(pool: *mut CUmemoryPool, dev: CUdevice) -> CUresult;
    // Primary contexts.
    fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult;
    fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult;
    fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult;
    fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult;
    fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult;
    // Contexts.
    fn cuCtxCreate_v2(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CUresult;
    fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult;
    fn cuCtxPushCurrent_v2(ctx: CUcontext) -> CUresult;
    fn cuCtxPopCurrent_v2(pctx: *mut CUcontext) -> CUresult;
    fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult;
    fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult;
    fn cuCtxGetDevice(device: *mut CUdevice) -> CUresult;
    fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult;
    fn cuCtxGetApiVersion(ctx: CUcontext, version: *mut c_uint) -> CUresult;
    fn cuCtxGetId(ctx: CUcontext, id: *mut u64) -> CUresult;
    fn cuCtxSynchronize() -> CUresult;
    fn cuCtxGetLimit(value: *mut usize, limit: CUlimit) -> CUresult;
    fn cuCtxSetLimit(limit: CUlimit, value: usize) -> CUresult;
    fn cuCtxGetCacheConfig(config: *mut CUfunc_cache) -> CUresult;
    fn cuCtxSetCacheConfig(config: CUfunc_cache) -> CUresult;
    fn cuCtxGetSharedMemConfig(config: *mut CUsharedconfig) -> CUresult;
    fn cuCtxSetSharedMemConfig(config: CUsharedconfig) -> CUresult;
    fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult;
    fn cuCtxEnablePeerAccess(peer: CUcontext, flags: c_uint) -> CUresult;
    fn cuCtxDisablePeerAccess(peer: CUcontext) -> CUresult;
    // Memory.
    fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult;
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    fn cuMemAllocAsync(dptr: *mut CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemAllocFromPoolAsync(dptr: *mut CUdeviceptr, bytes: usize, pool: CUmemoryPool, stream: CUstream) -> CUresult;
    fn cuMemFreeAsync(dptr: CUdeviceptr, stream: CUstream) -> CUresult;
    fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult;
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytes: usize, flags: c_uint) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    fn cuMemHostGetDevicePointer_v2(dptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) -> CUresult;
    fn cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void) -> CUresult;
    fn cuMemHostRegister_v2(p: *mut c_void, bytes: usize, flags: c_uint) -> CUresult;
    fn cuMemHostUnregister(p: *mut c_void) -> CUresult;
    fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytes: usize, flags: c_uint) -> CUresult;
    fn cuMemPrefetchAsync_v2(dptr: CUdeviceptr, count: usize, location: CUmemLocation, flags: c_uint, stream: CUstream) -> CUresult;
    fn cuMemAdvise_v2(dptr: CUdeviceptr, count: usize, advice: CUmem_advise, location: CUmemLocation) -> CUresult;
    fn cuMemGetAddressRange_v2(base: *mut CUdeviceptr, size: *mut usize, dptr: CUdeviceptr) -> CUresult;
    fn cuPointerGetAttribute(data: *mut c_void, attribute: CUpointer_attribute, ptr: CUdeviceptr) -> CUresult;
    // Copies and sets.
    fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) -> CUresult;
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemcpyPeer(dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, bytes: usize) -> CUresult;
    fn cuMemcpyPeerAsync(dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemsetD8_v2(dst: CUdeviceptr, value: u8, count: usize) -> CUresult;
    fn cuMemsetD16_v2(dst: CUdeviceptr, value: u16, count: usize) -> CUresult;
    fn cuMemsetD32_v2(dst: CUdeviceptr, value: c_uint, count: usize) -> CUresult;
    fn cuMemsetD8Async(dst: CUdeviceptr, value: u8, count: usize, stream: CUstream) -> CUresult;
    fn cuMemsetD16Async(dst: CUdeviceptr, value: u16, count: usize, stream: CUstream) -> CUresult;
    fn cuMemsetD32Async(dst: CUdeviceptr, value: c_uint, count: usize, stream: CUstream) -> CUresult;
    // Memory pools.
    fn cuMemPoolCreate(pool: *mut CUmemoryPool, props: *const CUmemPoolProps) -> CUresult;
    fn cuMemPoolDestroy(pool: CUmemoryPool) -> CUresult;
    fn cuMemPoolSetAttribute(pool: CUmemoryPool, attr: CUmemPool_attribute, value: *mut c_void) -> CUresult;
    fn cuMemPoolGetAttribute(pool: CUmemoryPool, attr: CUmemPool_attribute, value: *mut c_void) -> CUresult;
    fn cuMemPoolTrimTo(pool: CUmemoryPool, min_bytes_to_keep: usize) -> CUresult;
    fn cuMemPoolSetAccess(pool: CUmemoryPool, map: *const CUmemAccessDesc, count: usize) -> CUresult;
    fn cuMemPoolGetAccess(flags: *mut CUmemAccess_flags, pool: CUmemoryPool, location: *mut CUmemLocation) -> CUresult;
    // Streams.
    fn cuStreamCreate(stream: *mut CUstream, flags: c_uint) -> CUresult;
    fn cuStreamCreateWithPriority(stream: *mut CUstream, flags: c_uint, priority: c_int) -> CUresult;
    fn cuStreamDestroy_v2(stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
    fn cuStreamQuery(stream: CUstream) -> CUresult;
    fn cuStreamWaitEvent(stream: CUstream, event: CUevent, flags: c_uint) -> CUresult;
    fn cuStreamGetPriority(stream: CUstream, priority: *mut c_int) -> CUresult;
    fn cuStreamGetFlags(stream: CUstream, flags: *mut c_uint) -> CUresult;
    fn cuStreamGetCtx(stream: CUstream, pctx: *mut CUcontext) -> CUresult;
    fn cuStreamGetId(stream: CUstream, id: *mut u64) -> CUresult;
    fn cuLaunchHostFunc(stream: CUstream, func: CUhostFn, user_data: *mut c_void) -> CUresult;
    fn cuStreamBeginCapture_v2(stream: CUstream, mode: CUstreamCaptureMode) -> CUresult;
    fn cuStreamEndCapture(stream: CUstream, graph: *mut CUgraph) -> CUresult;
    fn cuStreamIsCapturing(stream: CUstream, status: *mut CUstreamCaptureStatus) -> CUresult;
    fn cuStreamGetCaptureInfo_v3(stream: CUstream, status: *mut CUstreamCaptureStatus, id: *mut u64, graph: *mut CUgraph, deps: *mut *const CUgraphNode, edge_data: *mut *const c_void, num_deps: *mut usize) -> CUresult;
    fn cuThreadExchangeStreamCaptureMode(mode: *mut CUstreamCaptureMode) -> CUresult;
    // Events.
    fn cuEventCreate(event: *mut CUevent, flags: c_uint) -> CUresult;
    fn cuEventDestroy_v2(event: CUevent) -> CUresult;
    fn cuEventRecord(event: CUevent, stream: CUstream) -> CUresult;
    fn cuEventRecordWithFlags(event: CUevent, stream: CUstream, flags: c_uint) -> CUresult;
    fn cuEventSynchronize(event: CUevent) -> CUresult;
    fn cuEventQuery(event: CUevent) -> CUresult;
    fn cuEventElapsedTime(ms: *mut f32, start: CUevent, end: CUevent) -> CUresult;
    // Modules, libraries, functions.
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    fn cuModuleLoadDataEx(module: *mut CUmodule, image: *const c_void, num_options: c_uint, options: *mut CUjit_option, values: *mut *mut c_void) -> CUresult;
    fn cuModuleLoadFatBinary(module: *mut CUmodule, fat_cubin: *const c_void) -> CUresult;
    fn cuModuleUnload(module: CUmodule) -> CUresult;
    fn cuModuleGetFunction(func: *mut CUfunction, module: CUmodule, name: *const c_char) -> CUresult;
    fn cuModuleGetGlobal_v2(dptr: *mut CUdeviceptr, bytes: *mut usize, module: CUmodule, name: *const c_char) -> CUresult;
    fn cuFuncGetAttribute(value: *mut c_int, attrib: CUfunction_attribute, func: CUfunction) -> CUresult;
    fn cuFuncSetAttribute(func: CUfunction, attrib: CUfunction_attribute, value: c_int) -> CUresult;
    fn cuFuncSetCacheConfig(func: CUfunction, config: CUfunc_cache) -> CUresult;
    fn cuFuncGetParamInfo(func: CUfunction, index: usize, offset: *mut usize, size: *mut usize) -> CUresult;
    fn cuFuncGetName(name: *mut *const c_char, func: CUfunction) -> CUresult;
    fn cuLinkCreate_v2(num_options: c_uint, options: *mut CUjit_option, values: *mut *mut c_void, state: *mut CUlinkState) -> CUresult;
    fn cuLinkAddData_v2(state: CUlinkState, kind: CUjitInputType, data: *mut c_void, size: usize, name: *const c_char, num_options: c_uint, options: *mut CUjit_option, values: *mut *mut c_void) -> CUresult;
    fn cuLinkComplete(state: CUlinkState, cubin: *mut *mut c_void, size: *mut usize) -> CUresult;
    fn cuLinkDestroy(state: CUlinkState) -> CUresult;
    // Launch.
    fn cuLaunchKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult;
    fn cuLaunchKernelEx(config: *const CUlaunchConfig, f: CUfunction, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult;
    fn cuLaunchCooperativeKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void) -> CUresult;
    // Occupancy.
    fn cuOccupancyMaxActiveBlocksPerMultiprocessor(num_blocks: *mut c_int, func: CUfunction, block_size: c_int, dynamic_smem: usize) -> CUresult;
    fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(num_blocks: *mut c_int, func: CUfunction, block_size: c_int, dynamic_smem: usize, flags: c_uint) -> CUresult;
    fn cuOccupancyMaxPotentialBlockSize(min_grid: *mut c_int, block_size: *mut c_int, func: CUfunction, b2d: CUoccupancyB2DSize, dynamic_smem: usize, block_size_limit: c_int) -> CUresult;
    fn cuOccupancyAvailableDynamicSMemPerBlock(dynamic_smem: *mut usize, func: CUfunction, num_blocks: c_int, block_size: c_int) -> CUresult;
    fn cuOccupancyMaxActiveClusters(num_clusters: *mut c_int, func: CUfunction, config: *const CUlaunchConfig) -> CUresult;
    // Graphs.
    fn cuGraphCreate(graph: *mut CUgraph, flags: c_uint) -> CUresult;
    fn cuGraphDestroy(graph: CUgraph) -> CUresult;
    fn cuGraphGetNodes(graph: CUgraph, nodes: *mut CUgraphNode, count: *mut usize) -> CUresult;
    fn cuGraphInstantiateWithFlags(exec: *mut CUgraphExec, graph: CUgraph, flags: u64) -> CUresult;
    fn cuGraphExecDestroy(exec: CUgraphExec) -> CUresult;
    fn cuGraphLaunch(exec: CUgraphExec, stream: CUstream) -> CUresult;
    fn cuGraphUpload(exec: CUgraphExec, stream: CUstream) -> CUresult;
    fn cuGraphExecUpdate_v2(exec: CUgraphExec, graph: CUgraph, info: *mut CUgraphExecUpdateResultInfo) -> CUresult;
    fn cuGraphDebugDotPrint(graph: CUgraph, path: *const c_char, flags: c_uint) -> CUresult;
    fn cuGraphNodeGetType(node: CUgraphNode, kind: *mut CUgraphNodeType) -> CUresult;
    fn cuGraphMemcpyNodeGetParams(node: CUgraphNode, params: *mut CUDA_MEMCPY3D) -> CUresult;
    fn cuGraphExecMemcpyNodeSetParams(exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_MEMCPY3D, ctx: CUcontext) -> CUresult;
}
