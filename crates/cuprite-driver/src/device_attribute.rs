// Generated from cuda.h (CUDA 13.5): one variant per distinct attribute value.

/// Every device attribute the CUDA 13 driver knows, for [`Device::attribute`](crate::Device::attribute).
///
/// Each variant maps to one `CU_DEVICE_ATTRIBUTE_*` value; [`DeviceAttribute::ALL`] lists them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceAttribute {
    /// `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK`
    MaxThreadsPerBlock,
    /// `CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X`
    MaxBlockDimX,
    /// `CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y`
    MaxBlockDimY,
    /// `CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z`
    MaxBlockDimZ,
    /// `CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X`
    MaxGridDimX,
    /// `CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y`
    MaxGridDimY,
    /// `CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z`
    MaxGridDimZ,
    /// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK`
    MaxSharedMemoryPerBlock,
    /// `CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY`
    TotalConstantMemory,
    /// `CU_DEVICE_ATTRIBUTE_WARP_SIZE`
    WarpSize,
    /// `CU_DEVICE_ATTRIBUTE_MAX_PITCH`
    MaxPitch,
    /// `CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK`
    MaxRegistersPerBlock,
    /// `CU_DEVICE_ATTRIBUTE_CLOCK_RATE`
    ClockRate,
    /// `CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT`
    TextureAlignment,
    /// `CU_DEVICE_ATTRIBUTE_GPU_OVERLAP`
    GpuOverlap,
    /// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`
    MultiprocessorCount,
    /// `CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT`
    KernelExecTimeout,
    /// `CU_DEVICE_ATTRIBUTE_INTEGRATED`
    Integrated,
    /// `CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY`
    CanMapHostMemory,
    /// `CU_DEVICE_ATTRIBUTE_COMPUTE_MODE`
    ComputeMode,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH`
    MaximumTexture1dWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH`
    MaximumTexture2dWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT`
    MaximumTexture2dHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH`
    MaximumTexture3dWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT`
    MaximumTexture3dHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH`
    MaximumTexture3dDepth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH`
    MaximumTexture2dLayeredWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT`
    MaximumTexture2dLayeredHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS`
    MaximumTexture2dLayeredLayers,
    /// `CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT`
    SurfaceAlignment,
    /// `CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS`
    ConcurrentKernels,
    /// `CU_DEVICE_ATTRIBUTE_ECC_ENABLED`
    EccEnabled,
    /// `CU_DEVICE_ATTRIBUTE_PCI_BUS_ID`
    PciBusId,
    /// `CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID`
    PciDeviceId,
    /// `CU_DEVICE_ATTRIBUTE_TCC_DRIVER`
    TccDriver,
    /// `CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE`
    MemoryClockRate,
    /// `CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH`
    GlobalMemoryBusWidth,
    /// `CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`
    L2CacheSize,
    /// `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR`
    MaxThreadsPerMultiprocessor,
    /// `CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT`
    AsyncEngineCount,
    /// `CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING`
    UnifiedAddressing,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH`
    MaximumTexture1dLayeredWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS`
    MaximumTexture1dLayeredLayers,
    /// `CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER`
    CanTex2dGather,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH`
    MaximumTexture2dGatherWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT`
    MaximumTexture2dGatherHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE`
    MaximumTexture3dWidthAlternate,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE`
    MaximumTexture3dHeightAlternate,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE`
    MaximumTexture3dDepthAlternate,
    /// `CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID`
    PciDomainId,
    /// `CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`
    TexturePitchAlignment,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH`
    MaximumTexturecubemapWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH`
    MaximumTexturecubemapLayeredWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS`
    MaximumTexturecubemapLayeredLayers,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH`
    MaximumSurface1dWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH`
    MaximumSurface2dWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT`
    MaximumSurface2dHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH`
    MaximumSurface3dWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT`
    MaximumSurface3dHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH`
    MaximumSurface3dDepth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH`
    MaximumSurface1dLayeredWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS`
    MaximumSurface1dLayeredLayers,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH`
    MaximumSurface2dLayeredWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT`
    MaximumSurface2dLayeredHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS`
    MaximumSurface2dLayeredLayers,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH`
    MaximumSurfacecubemapWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH`
    MaximumSurfacecubemapLayeredWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS`
    MaximumSurfacecubemapLayeredLayers,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH`
    MaximumTexture1dLinearWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH`
    MaximumTexture2dLinearWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT`
    MaximumTexture2dLinearHeight,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH`
    MaximumTexture2dLinearPitch,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH`
    MaximumTexture2dMipmappedWidth,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT`
    MaximumTexture2dMipmappedHeight,
    /// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR`
    ComputeCapabilityMajor,
    /// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR`
    ComputeCapabilityMinor,
    /// `CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH`
    MaximumTexture1dMipmappedWidth,
    /// `CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED`
    StreamPrioritiesSupported,
    /// `CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED`
    GlobalL1CacheSupported,
    /// `CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED`
    LocalL1CacheSupported,
    /// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR`
    MaxSharedMemoryPerMultiprocessor,
    /// `CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR`
    MaxRegistersPerMultiprocessor,
    /// `CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY`
    ManagedMemory,
    /// `CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD`
    MultiGpuBoard,
    /// `CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID`
    MultiGpuBoardGroupId,
    /// `CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED`
    HostNativeAtomicSupported,
    /// `CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO`
    SingleToDoublePrecisionPerfRatio,
    /// `CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS`
    PageableMemoryAccess,
    /// `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS`
    ConcurrentManagedAccess,
    /// `CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED`
    ComputePreemptionSupported,
    /// `CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM`
    CanUseHostPointerForRegisteredMem,
    /// `CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1`
    CanUseStreamMemOpsV1,
    /// `CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1`
    CanUse64BitStreamMemOpsV1,
    /// `CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1`
    CanUseStreamWaitValueNorV1,
    /// `CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH`
    CooperativeLaunch,
    /// `CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH`
    CooperativeMultiDeviceLaunch,
    /// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`
    MaxSharedMemoryPerBlockOptin,
    /// `CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES`
    CanFlushRemoteWrites,
    /// `CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED`
    HostRegisterSupported,
    /// `CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES`
    PageableMemoryAccessUsesHostPageTables,
    /// `CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST`
    DirectManagedMemAccessFromHost,
    /// `CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED`
    VirtualAddressManagementSupported,
    /// `CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED`
    HandleTypePosixFileDescriptorSupported,
    /// `CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED`
    HandleTypeWin32HandleSupported,
    /// `CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED`
    HandleTypeWin32KmtHandleSupported,
    /// `CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR`
    MaxBlocksPerMultiprocessor,
    /// `CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED`
    GenericCompressionSupported,
    /// `CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE`
    MaxPersistingL2CacheSize,
    /// `CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE`
    MaxAccessPolicyWindowSize,
    /// `CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED`
    GpuDirectRdmaWithCudaVmmSupported,
    /// `CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK`
    ReservedSharedMemoryPerBlock,
    /// `CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED`
    SparseCudaArraySupported,
    /// `CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED`
    ReadOnlyHostRegisterSupported,
    /// `CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED`
    TimelineSemaphoreInteropSupported,
    /// `CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED`
    MemoryPoolsSupported,
    /// `CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED`
    GpuDirectRdmaSupported,
    /// `CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS`
    GpuDirectRdmaFlushWritesOptions,
    /// `CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING`
    GpuDirectRdmaWritesOrdering,
    /// `CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES`
    MempoolSupportedHandleTypes,
    /// `CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH`
    ClusterLaunch,
    /// `CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED`
    DeferredMappingCudaArraySupported,
    /// `CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS`
    CanUse64BitStreamMemOps,
    /// `CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR`
    CanUseStreamWaitValueNor,
    /// `CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED`
    DmaBufSupported,
    /// `CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED`
    IpcEventSupported,
    /// `CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT`
    MemSyncDomainCount,
    /// `CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED`
    TensorMapAccessSupported,
    /// `CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED`
    HandleTypeFabricSupported,
    /// `CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS`
    UnifiedFunctionPointers,
    /// `CU_DEVICE_ATTRIBUTE_NUMA_CONFIG`
    NumaConfig,
    /// `CU_DEVICE_ATTRIBUTE_NUMA_ID`
    NumaId,
    /// `CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`
    MulticastSupported,
    /// `CU_DEVICE_ATTRIBUTE_MPS_ENABLED`
    MpsEnabled,
    /// `CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID`
    HostNumaId,
    /// `CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED`
    D3d12CigSupported,
    /// `CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK`
    MemDecompressAlgorithmMask,
    /// `CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH`
    MemDecompressMaximumLength,
    /// `CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED`
    VulkanCigSupported,
    /// `CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID`
    GpuPciDeviceId,
    /// `CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID`
    GpuPciSubsystemId,
    /// `CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED`
    HostNumaVirtualMemoryManagementSupported,
    /// `CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED`
    HostNumaMemoryPoolsSupported,
    /// `CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED`
    HostNumaMultinodeIpcSupported,
    /// `CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED`
    HostMemoryPoolsSupported,
    /// `CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED`
    HostVirtualMemoryManagementSupported,
    /// `CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED`
    HostAllocDmaBufSupported,
    /// `CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED`
    OnlyPartialHostNativeAtomicSupported,
    /// `CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED`
    AtomicReductionSupported,
    /// `CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_COUNT`
    LocalityDomainCount,
    /// `CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK`
    MaxOversizedSharedMemoryPerBlock,
    /// `CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED`
    D3d12CigStreamsSupported,
    /// `CU_DEVICE_ATTRIBUTE_DMA_BUF_MMAP_SUPPORTED`
    DmaBufMmapSupported,
    /// `CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED`
    LogicalEndpointUnicastSupported,
    /// `CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED`
    LogicalEndpointMulticastSupported,
    /// `CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED`
    LogicalEndpointCountedOpsSupported,
    /// `CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED`
    LogicalEndpointUnicastAccessOnOwnerDeviceSupported,
    /// `CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT`
    LocalityDomainMultiprocessorCount,
    /// `CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES`
    LogicalEndpointSupportedHandleTypes,
    /// `CU_DEVICE_ATTRIBUTE_VULKAN_CIG_STREAMS_SUPPORTED`
    VulkanCigStreamsSupported,
    /// `CU_DEVICE_ATTRIBUTE_TENSOR_MAP_LARGE_TENSOR_MIN_SIZE`
    TensorMapLargeTensorMinSize,
    /// `CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED`
    GpuDirectRdmaWithLocalizedMemorySupported,
}

impl DeviceAttribute {
    /// Every attribute, in driver order.
    pub const ALL: &'static [DeviceAttribute] = &[
        DeviceAttribute::MaxThreadsPerBlock,
        DeviceAttribute::MaxBlockDimX,
        DeviceAttribute::MaxBlockDimY,
        DeviceAttribute::MaxBlockDimZ,
        DeviceAttribute::MaxGridDimX,
        DeviceAttribute::MaxGridDimY,
        DeviceAttribute::MaxGridDimZ,
        DeviceAttribute::MaxSharedMemoryPerBlock,
        DeviceAttribute::TotalConstantMemory,
        DeviceAttribute::WarpSize,
        DeviceAttribute::MaxPitch,
        DeviceAttribute::MaxRegistersPerBlock,
        DeviceAttribute::ClockRate,
        DeviceAttribute::TextureAlignment,
        DeviceAttribute::GpuOverlap,
        DeviceAttribute::MultiprocessorCount,
        DeviceAttribute::KernelExecTimeout,
        DeviceAttribute::Integrated,
        DeviceAttribute::CanMapHostMemory,
        DeviceAttribute::ComputeMode,
        DeviceAttribute::MaximumTexture1dWidth,
        DeviceAttribute::MaximumTexture2dWidth,
        DeviceAttribute::MaximumTexture2dHeight,
        DeviceAttribute::MaximumTexture3dWidth,
        DeviceAttribute::MaximumTexture3dHeight,
        DeviceAttribute::MaximumTexture3dDepth,
        DeviceAttribute::MaximumTexture2dLayeredWidth,
        DeviceAttribute::MaximumTexture2dLayeredHeight,
        DeviceAttribute::MaximumTexture2dLayeredLayers,
        DeviceAttribute::SurfaceAlignment,
        DeviceAttribute::ConcurrentKernels,
        DeviceAttribute::EccEnabled,
        DeviceAttribute::PciBusId,
        DeviceAttribute::PciDeviceId,
        DeviceAttribute::TccDriver,
        DeviceAttribute::MemoryClockRate,
        DeviceAttribute::GlobalMemoryBusWidth,
        DeviceAttribute::L2CacheSize,
        DeviceAttribute::MaxThreadsPerMultiprocessor,
        DeviceAttribute::AsyncEngineCount,
        DeviceAttribute::UnifiedAddressing,
        DeviceAttribute::MaximumTexture1dLayeredWidth,
        DeviceAttribute::MaximumTexture1dLayeredLayers,
        DeviceAttribute::CanTex2dGather,
        DeviceAttribute::MaximumTexture2dGatherWidth,
        DeviceAttribute::MaximumTexture2dGatherHeight,
        DeviceAttribute::MaximumTexture3dWidthAlternate,
        DeviceAttribute::MaximumTexture3dHeightAlternate,
        DeviceAttribute::MaximumTexture3dDepthAlternate,
        DeviceAttribute::PciDomainId,
        DeviceAttribute::TexturePitchAlignment,
        DeviceAttribute::MaximumTexturecubemapWidth,
        DeviceAttribute::MaximumTexturecubemapLayeredWidth,
        DeviceAttribute::MaximumTexturecubemapLayeredLayers,
        DeviceAttribute::MaximumSurface1dWidth,
        DeviceAttribute::MaximumSurface2dWidth,
        DeviceAttribute::MaximumSurface2dHeight,
        DeviceAttribute::MaximumSurface3dWidth,
        DeviceAttribute::MaximumSurface3dHeight,
        DeviceAttribute::MaximumSurface3dDepth,
        DeviceAttribute::MaximumSurface1dLayeredWidth,
        DeviceAttribute::MaximumSurface1dLayeredLayers,
        DeviceAttribute::MaximumSurface2dLayeredWidth,
        DeviceAttribute::MaximumSurface2dLayeredHeight,
        DeviceAttribute::MaximumSurface2dLayeredLayers,
        DeviceAttribute::MaximumSurfacecubemapWidth,
        DeviceAttribute::MaximumSurfacecubemapLayeredWidth,
        DeviceAttribute::MaximumSurfacecubemapLayeredLayers,
        DeviceAttribute::MaximumTexture1dLinearWidth,
        DeviceAttribute::MaximumTexture2dLinearWidth,
        DeviceAttribute::MaximumTexture2dLinearHeight,
        DeviceAttribute::MaximumTexture2dLinearPitch,
        DeviceAttribute::MaximumTexture2dMipmappedWidth,
        DeviceAttribute::MaximumTexture2dMipmappedHeight,
        DeviceAttribute::ComputeCapabilityMajor,
        DeviceAttribute::ComputeCapabilityMinor,
        DeviceAttribute::MaximumTexture1dMipmappedWidth,
        DeviceAttribute::StreamPrioritiesSupported,
        DeviceAttribute::GlobalL1CacheSupported,
        DeviceAttribute::LocalL1CacheSupported,
        DeviceAttribute::MaxSharedMemoryPerMultiprocessor,
        DeviceAttribute::MaxRegistersPerMultiprocessor,
        DeviceAttribute::ManagedMemory,
        DeviceAttribute::MultiGpuBoard,
        DeviceAttribute::MultiGpuBoardGroupId,
        DeviceAttribute::HostNativeAtomicSupported,
        DeviceAttribute::SingleToDoublePrecisionPerfRatio,
        DeviceAttribute::PageableMemoryAccess,
        DeviceAttribute::ConcurrentManagedAccess,
        DeviceAttribute::ComputePreemptionSupported,
        DeviceAttribute::CanUseHostPointerForRegisteredMem,
        DeviceAttribute::CanUseStreamMemOpsV1,
        DeviceAttribute::CanUse64BitStreamMemOpsV1,
        DeviceAttribute::CanUseStreamWaitValueNorV1,
        DeviceAttribute::CooperativeLaunch,
        DeviceAttribute::CooperativeMultiDeviceLaunch,
        DeviceAttribute::MaxSharedMemoryPerBlockOptin,
        DeviceAttribute::CanFlushRemoteWrites,
        DeviceAttribute::HostRegisterSupported,
        DeviceAttribute::PageableMemoryAccessUsesHostPageTables,
        DeviceAttribute::DirectManagedMemAccessFromHost,
        DeviceAttribute::VirtualAddressManagementSupported,
        DeviceAttribute::HandleTypePosixFileDescriptorSupported,
        DeviceAttribute::HandleTypeWin32HandleSupported,
        DeviceAttribute::HandleTypeWin32KmtHandleSupported,
        DeviceAttribute::MaxBlocksPerMultiprocessor,
        DeviceAttribute::GenericCompressionSupported,
        DeviceAttribute::MaxPersistingL2CacheSize,
        DeviceAttribute::MaxAccessPolicyWindowSize,
        DeviceAttribute::GpuDirectRdmaWithCudaVmmSupported,
        DeviceAttribute::ReservedSharedMemoryPerBlock,
        DeviceAttribute::SparseCudaArraySupported,
        DeviceAttribute::ReadOnlyHostRegisterSupported,
        DeviceAttribute::TimelineSemaphoreInteropSupported,
        DeviceAttribute::MemoryPoolsSupported,
        DeviceAttribute::GpuDirectRdmaSupported,
        DeviceAttribute::GpuDirectRdmaFlushWritesOptions,
        DeviceAttribute::GpuDirectRdmaWritesOrdering,
        DeviceAttribute::MempoolSupportedHandleTypes,
        DeviceAttribute::ClusterLaunch,
        DeviceAttribute::DeferredMappingCudaArraySupported,
        DeviceAttribute::CanUse64BitStreamMemOps,
        DeviceAttribute::CanUseStreamWaitValueNor,
        DeviceAttribute::DmaBufSupported,
        DeviceAttribute::IpcEventSupported,
        DeviceAttribute::MemSyncDomainCount,
        DeviceAttribute::TensorMapAccessSupported,
        DeviceAttribute::HandleTypeFabricSupported,
        DeviceAttribute::UnifiedFunctionPointers,
        DeviceAttribute::NumaConfig,
        DeviceAttribute::NumaId,
        DeviceAttribute::MulticastSupported,
        DeviceAttribute::MpsEnabled,
        DeviceAttribute::HostNumaId,
        DeviceAttribute::D3d12CigSupported,
        DeviceAttribute::MemDecompressAlgorithmMask,
        DeviceAttribute::MemDecompressMaximumLength,
        DeviceAttribute::VulkanCigSupported,
        DeviceAttribute::GpuPciDeviceId,
        DeviceAttribute::GpuPciSubsystemId,
        DeviceAttribute::HostNumaVirtualMemoryManagementSupported,
        DeviceAttribute::HostNumaMemoryPoolsSupported,
        DeviceAttribute::HostNumaMultinodeIpcSupported,
        DeviceAttribute::HostMemoryPoolsSupported,
        DeviceAttribute::HostVirtualMemoryManagementSupported,
        DeviceAttribute::HostAllocDmaBufSupported,
        DeviceAttribute::OnlyPartialHostNativeAtomicSupported,
        DeviceAttribute::AtomicReductionSupported,
        DeviceAttribute::LocalityDomainCount,
        DeviceAttribute::MaxOversizedSharedMemoryPerBlock,
        DeviceAttribute::D3d12CigStreamsSupported,
        DeviceAttribute::DmaBufMmapSupported,
        DeviceAttribute::LogicalEndpointUnicastSupported,
        DeviceAttribute::LogicalEndpointMulticastSupported,
        DeviceAttribute::LogicalEndpointCountedOpsSupported,
        DeviceAttribute::LogicalEndpointUnicastAccessOnOwnerDeviceSupported,
        DeviceAttribute::LocalityDomainMultiprocessorCount,
        DeviceAttribute::LogicalEndpointSupportedHandleTypes,
        DeviceAttribute::VulkanCigStreamsSupported,
        DeviceAttribute::TensorMapLargeTensorMinSize,
        DeviceAttribute::GpuDirectRdmaWithLocalizedMemorySupported,
    ];

    /// The raw driver selector.
    pub fn raw(self) -> sys::CUdevice_attribute {
        match self {
            DeviceAttribute::MaxThreadsPerBlock => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            DeviceAttribute::MaxBlockDimX => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
            DeviceAttribute::MaxBlockDimY => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
            DeviceAttribute::MaxBlockDimZ => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
            DeviceAttribute::MaxGridDimX => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
            DeviceAttribute::MaxGridDimY => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
            DeviceAttribute::MaxGridDimZ => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
            DeviceAttribute::MaxSharedMemoryPerBlock => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            DeviceAttribute::TotalConstantMemory => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY,
            DeviceAttribute::WarpSize => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE,
            DeviceAttribute::MaxPitch => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PITCH,
            DeviceAttribute::MaxRegistersPerBlock => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
            DeviceAttribute::ClockRate => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
            DeviceAttribute::TextureAlignment => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
            DeviceAttribute::GpuOverlap => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP,
            DeviceAttribute::MultiprocessorCount => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            DeviceAttribute::KernelExecTimeout => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT,
            DeviceAttribute::Integrated => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_INTEGRATED,
            DeviceAttribute::CanMapHostMemory => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
            DeviceAttribute::ComputeMode => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE,
            DeviceAttribute::MaximumTexture1dWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH,
            DeviceAttribute::MaximumTexture2dWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
            DeviceAttribute::MaximumTexture2dHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT,
            DeviceAttribute::MaximumTexture3dWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
            DeviceAttribute::MaximumTexture3dHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
            DeviceAttribute::MaximumTexture3dDepth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH,
            DeviceAttribute::MaximumTexture2dLayeredWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
            DeviceAttribute::MaximumTexture2dLayeredHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT,
            DeviceAttribute::MaximumTexture2dLayeredLayers => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
            DeviceAttribute::SurfaceAlignment => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT,
            DeviceAttribute::ConcurrentKernels => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS,
            DeviceAttribute::EccEnabled => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_ECC_ENABLED,
            DeviceAttribute::PciBusId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
            DeviceAttribute::PciDeviceId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
            DeviceAttribute::TccDriver => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TCC_DRIVER,
            DeviceAttribute::MemoryClockRate => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
            DeviceAttribute::GlobalMemoryBusWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
            DeviceAttribute::L2CacheSize => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
            DeviceAttribute::MaxThreadsPerMultiprocessor => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            DeviceAttribute::AsyncEngineCount => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT,
            DeviceAttribute::UnifiedAddressing => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
            DeviceAttribute::MaximumTexture1dLayeredWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH,
            DeviceAttribute::MaximumTexture1dLayeredLayers => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
            DeviceAttribute::CanTex2dGather => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER,
            DeviceAttribute::MaximumTexture2dGatherWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH,
            DeviceAttribute::MaximumTexture2dGatherHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT,
            DeviceAttribute::MaximumTexture3dWidthAlternate => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE,
            DeviceAttribute::MaximumTexture3dHeightAlternate => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE,
            DeviceAttribute::MaximumTexture3dDepthAlternate => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE,
            DeviceAttribute::PciDomainId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
            DeviceAttribute::TexturePitchAlignment => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
            DeviceAttribute::MaximumTexturecubemapWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH,
            DeviceAttribute::MaximumTexturecubemapLayeredWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH,
            DeviceAttribute::MaximumTexturecubemapLayeredLayers => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS,
            DeviceAttribute::MaximumSurface1dWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH,
            DeviceAttribute::MaximumSurface2dWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH,
            DeviceAttribute::MaximumSurface2dHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT,
            DeviceAttribute::MaximumSurface3dWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH,
            DeviceAttribute::MaximumSurface3dHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT,
            DeviceAttribute::MaximumSurface3dDepth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH,
            DeviceAttribute::MaximumSurface1dLayeredWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH,
            DeviceAttribute::MaximumSurface1dLayeredLayers => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS,
            DeviceAttribute::MaximumSurface2dLayeredWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH,
            DeviceAttribute::MaximumSurface2dLayeredHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT,
            DeviceAttribute::MaximumSurface2dLayeredLayers => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS,
            DeviceAttribute::MaximumSurfacecubemapWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH,
            DeviceAttribute::MaximumSurfacecubemapLayeredWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH,
            DeviceAttribute::MaximumSurfacecubemapLayeredLayers => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS,
            DeviceAttribute::MaximumTexture1dLinearWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH,
            DeviceAttribute::MaximumTexture2dLinearWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
            DeviceAttribute::MaximumTexture2dLinearHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
            DeviceAttribute::MaximumTexture2dLinearPitch => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH,
            DeviceAttribute::MaximumTexture2dMipmappedWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH,
            DeviceAttribute::MaximumTexture2dMipmappedHeight => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT,
            DeviceAttribute::ComputeCapabilityMajor => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            DeviceAttribute::ComputeCapabilityMinor => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            DeviceAttribute::MaximumTexture1dMipmappedWidth => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH,
            DeviceAttribute::StreamPrioritiesSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED,
            DeviceAttribute::GlobalL1CacheSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED,
            DeviceAttribute::LocalL1CacheSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED,
            DeviceAttribute::MaxSharedMemoryPerMultiprocessor => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            DeviceAttribute::MaxRegistersPerMultiprocessor => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
            DeviceAttribute::ManagedMemory => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY,
            DeviceAttribute::MultiGpuBoard => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD,
            DeviceAttribute::MultiGpuBoardGroupId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID,
            DeviceAttribute::HostNativeAtomicSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED,
            DeviceAttribute::SingleToDoublePrecisionPerfRatio => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO,
            DeviceAttribute::PageableMemoryAccess => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS,
            DeviceAttribute::ConcurrentManagedAccess => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
            DeviceAttribute::ComputePreemptionSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED,
            DeviceAttribute::CanUseHostPointerForRegisteredMem => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
            DeviceAttribute::CanUseStreamMemOpsV1 => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1,
            DeviceAttribute::CanUse64BitStreamMemOpsV1 => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1,
            DeviceAttribute::CanUseStreamWaitValueNorV1 => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1,
            DeviceAttribute::CooperativeLaunch => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
            DeviceAttribute::CooperativeMultiDeviceLaunch => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH,
            DeviceAttribute::MaxSharedMemoryPerBlockOptin => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            DeviceAttribute::CanFlushRemoteWrites => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES,
            DeviceAttribute::HostRegisterSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED,
            DeviceAttribute::PageableMemoryAccessUsesHostPageTables => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES,
            DeviceAttribute::DirectManagedMemAccessFromHost => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST,
            DeviceAttribute::VirtualAddressManagementSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED,
            DeviceAttribute::HandleTypePosixFileDescriptorSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
            DeviceAttribute::HandleTypeWin32HandleSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED,
            DeviceAttribute::HandleTypeWin32KmtHandleSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED,
            DeviceAttribute::MaxBlocksPerMultiprocessor => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
            DeviceAttribute::GenericCompressionSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED,
            DeviceAttribute::MaxPersistingL2CacheSize => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
            DeviceAttribute::MaxAccessPolicyWindowSize => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE,
            DeviceAttribute::GpuDirectRdmaWithCudaVmmSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED,
            DeviceAttribute::ReservedSharedMemoryPerBlock => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            DeviceAttribute::SparseCudaArraySupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED,
            DeviceAttribute::ReadOnlyHostRegisterSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED,
            DeviceAttribute::TimelineSemaphoreInteropSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED,
            DeviceAttribute::MemoryPoolsSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            DeviceAttribute::GpuDirectRdmaSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
            DeviceAttribute::GpuDirectRdmaFlushWritesOptions => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS,
            DeviceAttribute::GpuDirectRdmaWritesOrdering => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
            DeviceAttribute::MempoolSupportedHandleTypes => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES,
            DeviceAttribute::ClusterLaunch => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
            DeviceAttribute::DeferredMappingCudaArraySupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED,
            DeviceAttribute::CanUse64BitStreamMemOps => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
            DeviceAttribute::CanUseStreamWaitValueNor => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR,
            DeviceAttribute::DmaBufSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
            DeviceAttribute::IpcEventSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED,
            DeviceAttribute::MemSyncDomainCount => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT,
            DeviceAttribute::TensorMapAccessSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED,
            DeviceAttribute::HandleTypeFabricSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED,
            DeviceAttribute::UnifiedFunctionPointers => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS,
            DeviceAttribute::NumaConfig => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_NUMA_CONFIG,
            DeviceAttribute::NumaId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_NUMA_ID,
            DeviceAttribute::MulticastSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED,
            DeviceAttribute::MpsEnabled => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MPS_ENABLED,
            DeviceAttribute::HostNumaId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID,
            DeviceAttribute::D3d12CigSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED,
            DeviceAttribute::MemDecompressAlgorithmMask => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK,
            DeviceAttribute::MemDecompressMaximumLength => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH,
            DeviceAttribute::VulkanCigSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED,
            DeviceAttribute::GpuPciDeviceId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID,
            DeviceAttribute::GpuPciSubsystemId => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID,
            DeviceAttribute::HostNumaVirtualMemoryManagementSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
            DeviceAttribute::HostNumaMemoryPoolsSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED,
            DeviceAttribute::HostNumaMultinodeIpcSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED,
            DeviceAttribute::HostMemoryPoolsSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED,
            DeviceAttribute::HostVirtualMemoryManagementSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
            DeviceAttribute::HostAllocDmaBufSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED,
            DeviceAttribute::OnlyPartialHostNativeAtomicSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED,
            DeviceAttribute::AtomicReductionSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED,
            DeviceAttribute::LocalityDomainCount => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_COUNT,
            DeviceAttribute::MaxOversizedSharedMemoryPerBlock => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK,
            DeviceAttribute::D3d12CigStreamsSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED,
            DeviceAttribute::DmaBufMmapSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_DMA_BUF_MMAP_SUPPORTED,
            DeviceAttribute::LogicalEndpointUnicastSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED,
            DeviceAttribute::LogicalEndpointMulticastSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED,
            DeviceAttribute::LogicalEndpointCountedOpsSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED,
            DeviceAttribute::LogicalEndpointUnicastAccessOnOwnerDeviceSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED,
            DeviceAttribute::LocalityDomainMultiprocessorCount => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT,
            DeviceAttribute::LogicalEndpointSupportedHandleTypes => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES,
            DeviceAttribute::VulkanCigStreamsSupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VULKAN_CIG_STREAMS_SUPPORTED,
            DeviceAttribute::TensorMapLargeTensorMinSize => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TENSOR_MAP_LARGE_TENSOR_MIN_SIZE,
            DeviceAttribute::GpuDirectRdmaWithLocalizedMemorySupported => sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED,
        }
    }

    /// The driver's name for this attribute (`CU_DEVICE_ATTRIBUTE_...`).
    pub fn name(self) -> &'static str {
        match self {
            DeviceAttribute::MaxThreadsPerBlock => "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
            DeviceAttribute::MaxBlockDimX => "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X",
            DeviceAttribute::MaxBlockDimY => "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y",
            DeviceAttribute::MaxBlockDimZ => "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z",
            DeviceAttribute::MaxGridDimX => "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X",
            DeviceAttribute::MaxGridDimY => "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y",
            DeviceAttribute::MaxGridDimZ => "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z",
            DeviceAttribute::MaxSharedMemoryPerBlock => "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK",
            DeviceAttribute::TotalConstantMemory => "CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY",
            DeviceAttribute::WarpSize => "CU_DEVICE_ATTRIBUTE_WARP_SIZE",
            DeviceAttribute::MaxPitch => "CU_DEVICE_ATTRIBUTE_MAX_PITCH",
            DeviceAttribute::MaxRegistersPerBlock => "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK",
            DeviceAttribute::ClockRate => "CU_DEVICE_ATTRIBUTE_CLOCK_RATE",
            DeviceAttribute::TextureAlignment => "CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT",
            DeviceAttribute::GpuOverlap => "CU_DEVICE_ATTRIBUTE_GPU_OVERLAP",
            DeviceAttribute::MultiprocessorCount => "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT",
            DeviceAttribute::KernelExecTimeout => "CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT",
            DeviceAttribute::Integrated => "CU_DEVICE_ATTRIBUTE_INTEGRATED",
            DeviceAttribute::CanMapHostMemory => "CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY",
            DeviceAttribute::ComputeMode => "CU_DEVICE_ATTRIBUTE_COMPUTE_MODE",
            DeviceAttribute::MaximumTexture1dWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH",
            DeviceAttribute::MaximumTexture2dWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH",
            DeviceAttribute::MaximumTexture2dHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT",
            DeviceAttribute::MaximumTexture3dWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH",
            DeviceAttribute::MaximumTexture3dHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT",
            DeviceAttribute::MaximumTexture3dDepth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH",
            DeviceAttribute::MaximumTexture2dLayeredWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH",
            DeviceAttribute::MaximumTexture2dLayeredHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT",
            DeviceAttribute::MaximumTexture2dLayeredLayers => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS",
            DeviceAttribute::SurfaceAlignment => "CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT",
            DeviceAttribute::ConcurrentKernels => "CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS",
            DeviceAttribute::EccEnabled => "CU_DEVICE_ATTRIBUTE_ECC_ENABLED",
            DeviceAttribute::PciBusId => "CU_DEVICE_ATTRIBUTE_PCI_BUS_ID",
            DeviceAttribute::PciDeviceId => "CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID",
            DeviceAttribute::TccDriver => "CU_DEVICE_ATTRIBUTE_TCC_DRIVER",
            DeviceAttribute::MemoryClockRate => "CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE",
            DeviceAttribute::GlobalMemoryBusWidth => "CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH",
            DeviceAttribute::L2CacheSize => "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE",
            DeviceAttribute::MaxThreadsPerMultiprocessor => "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR",
            DeviceAttribute::AsyncEngineCount => "CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT",
            DeviceAttribute::UnifiedAddressing => "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING",
            DeviceAttribute::MaximumTexture1dLayeredWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH",
            DeviceAttribute::MaximumTexture1dLayeredLayers => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS",
            DeviceAttribute::CanTex2dGather => "CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER",
            DeviceAttribute::MaximumTexture2dGatherWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH",
            DeviceAttribute::MaximumTexture2dGatherHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT",
            DeviceAttribute::MaximumTexture3dWidthAlternate => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE",
            DeviceAttribute::MaximumTexture3dHeightAlternate => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE",
            DeviceAttribute::MaximumTexture3dDepthAlternate => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE",
            DeviceAttribute::PciDomainId => "CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID",
            DeviceAttribute::TexturePitchAlignment => "CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT",
            DeviceAttribute::MaximumTexturecubemapWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH",
            DeviceAttribute::MaximumTexturecubemapLayeredWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH",
            DeviceAttribute::MaximumTexturecubemapLayeredLayers => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS",
            DeviceAttribute::MaximumSurface1dWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH",
            DeviceAttribute::MaximumSurface2dWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH",
            DeviceAttribute::MaximumSurface2dHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT",
            DeviceAttribute::MaximumSurface3dWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH",
            DeviceAttribute::MaximumSurface3dHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT",
            DeviceAttribute::MaximumSurface3dDepth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH",
            DeviceAttribute::MaximumSurface1dLayeredWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH",
            DeviceAttribute::MaximumSurface1dLayeredLayers => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS",
            DeviceAttribute::MaximumSurface2dLayeredWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH",
            DeviceAttribute::MaximumSurface2dLayeredHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT",
            DeviceAttribute::MaximumSurface2dLayeredLayers => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS",
            DeviceAttribute::MaximumSurfacecubemapWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH",
            DeviceAttribute::MaximumSurfacecubemapLayeredWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH",
            DeviceAttribute::MaximumSurfacecubemapLayeredLayers => "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS",
            DeviceAttribute::MaximumTexture1dLinearWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH",
            DeviceAttribute::MaximumTexture2dLinearWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH",
            DeviceAttribute::MaximumTexture2dLinearHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT",
            DeviceAttribute::MaximumTexture2dLinearPitch => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH",
            DeviceAttribute::MaximumTexture2dMipmappedWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH",
            DeviceAttribute::MaximumTexture2dMipmappedHeight => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT",
            DeviceAttribute::ComputeCapabilityMajor => "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",
            DeviceAttribute::ComputeCapabilityMinor => "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
            DeviceAttribute::MaximumTexture1dMipmappedWidth => "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH",
            DeviceAttribute::StreamPrioritiesSupported => "CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED",
            DeviceAttribute::GlobalL1CacheSupported => "CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED",
            DeviceAttribute::LocalL1CacheSupported => "CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED",
            DeviceAttribute::MaxSharedMemoryPerMultiprocessor => "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
            DeviceAttribute::MaxRegistersPerMultiprocessor => "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR",
            DeviceAttribute::ManagedMemory => "CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY",
            DeviceAttribute::MultiGpuBoard => "CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD",
            DeviceAttribute::MultiGpuBoardGroupId => "CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID",
            DeviceAttribute::HostNativeAtomicSupported => "CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED",
            DeviceAttribute::SingleToDoublePrecisionPerfRatio => "CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO",
            DeviceAttribute::PageableMemoryAccess => "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS",
            DeviceAttribute::ConcurrentManagedAccess => "CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS",
            DeviceAttribute::ComputePreemptionSupported => "CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED",
            DeviceAttribute::CanUseHostPointerForRegisteredMem => "CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM",
            DeviceAttribute::CanUseStreamMemOpsV1 => "CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1",
            DeviceAttribute::CanUse64BitStreamMemOpsV1 => "CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1",
            DeviceAttribute::CanUseStreamWaitValueNorV1 => "CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1",
            DeviceAttribute::CooperativeLaunch => "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH",
            DeviceAttribute::CooperativeMultiDeviceLaunch => "CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH",
            DeviceAttribute::MaxSharedMemoryPerBlockOptin => "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
            DeviceAttribute::CanFlushRemoteWrites => "CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES",
            DeviceAttribute::HostRegisterSupported => "CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED",
            DeviceAttribute::PageableMemoryAccessUsesHostPageTables => "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES",
            DeviceAttribute::DirectManagedMemAccessFromHost => "CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST",
            DeviceAttribute::VirtualAddressManagementSupported => "CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED",
            DeviceAttribute::HandleTypePosixFileDescriptorSupported => "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED",
            DeviceAttribute::HandleTypeWin32HandleSupported => "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED",
            DeviceAttribute::HandleTypeWin32KmtHandleSupported => "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED",
            DeviceAttribute::MaxBlocksPerMultiprocessor => "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR",
            DeviceAttribute::GenericCompressionSupported => "CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED",
            DeviceAttribute::MaxPersistingL2CacheSize => "CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE",
            DeviceAttribute::MaxAccessPolicyWindowSize => "CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE",
            DeviceAttribute::GpuDirectRdmaWithCudaVmmSupported => "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED",
            DeviceAttribute::ReservedSharedMemoryPerBlock => "CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK",
            DeviceAttribute::SparseCudaArraySupported => "CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED",
            DeviceAttribute::ReadOnlyHostRegisterSupported => "CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED",
            DeviceAttribute::TimelineSemaphoreInteropSupported => "CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED",
            DeviceAttribute::MemoryPoolsSupported => "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED",
            DeviceAttribute::GpuDirectRdmaSupported => "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED",
            DeviceAttribute::GpuDirectRdmaFlushWritesOptions => "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS",
            DeviceAttribute::GpuDirectRdmaWritesOrdering => "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING",
            DeviceAttribute::MempoolSupportedHandleTypes => "CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES",
            DeviceAttribute::ClusterLaunch => "CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH",
            DeviceAttribute::DeferredMappingCudaArraySupported => "CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED",
            DeviceAttribute::CanUse64BitStreamMemOps => "CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS",
            DeviceAttribute::CanUseStreamWaitValueNor => "CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR",
            DeviceAttribute::DmaBufSupported => "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED",
            DeviceAttribute::IpcEventSupported => "CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED",
            DeviceAttribute::MemSyncDomainCount => "CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT",
            DeviceAttribute::TensorMapAccessSupported => "CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED",
            DeviceAttribute::HandleTypeFabricSupported => "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED",
            DeviceAttribute::UnifiedFunctionPointers => "CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS",
            DeviceAttribute::NumaConfig => "CU_DEVICE_ATTRIBUTE_NUMA_CONFIG",
            DeviceAttribute::NumaId => "CU_DEVICE_ATTRIBUTE_NUMA_ID",
            DeviceAttribute::MulticastSupported => "CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED",
            DeviceAttribute::MpsEnabled => "CU_DEVICE_ATTRIBUTE_MPS_ENABLED",
            DeviceAttribute::HostNumaId => "CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID",
            DeviceAttribute::D3d12CigSupported => "CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED",
            DeviceAttribute::MemDecompressAlgorithmMask => "CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK",
            DeviceAttribute::MemDecompressMaximumLength => "CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH",
            DeviceAttribute::VulkanCigSupported => "CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED",
            DeviceAttribute::GpuPciDeviceId => "CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID",
            DeviceAttribute::GpuPciSubsystemId => "CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID",
            DeviceAttribute::HostNumaVirtualMemoryManagementSupported => "CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED",
            DeviceAttribute::HostNumaMemoryPoolsSupported => "CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED",
            DeviceAttribute::HostNumaMultinodeIpcSupported => "CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED",
            DeviceAttribute::HostMemoryPoolsSupported => "CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED",
            DeviceAttribute::HostVirtualMemoryManagementSupported => "CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED",
            DeviceAttribute::HostAllocDmaBufSupported => "CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED",
            DeviceAttribute::OnlyPartialHostNativeAtomicSupported => "CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED",
            DeviceAttribute::AtomicReductionSupported => "CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED",
            DeviceAttribute::LocalityDomainCount => "CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_COUNT",
            DeviceAttribute::MaxOversizedSharedMemoryPerBlock => "CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK",
            DeviceAttribute::D3d12CigStreamsSupported => "CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED",
            DeviceAttribute::DmaBufMmapSupported => "CU_DEVICE_ATTRIBUTE_DMA_BUF_MMAP_SUPPORTED",
            DeviceAttribute::LogicalEndpointUnicastSupported => "CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED",
            DeviceAttribute::LogicalEndpointMulticastSupported => "CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED",
            DeviceAttribute::LogicalEndpointCountedOpsSupported => "CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED",
            DeviceAttribute::LogicalEndpointUnicastAccessOnOwnerDeviceSupported => "CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED",
            DeviceAttribute::LocalityDomainMultiprocessorCount => "CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT",
            DeviceAttribute::LogicalEndpointSupportedHandleTypes => "CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES",
            DeviceAttribute::VulkanCigStreamsSupported => "CU_DEVICE_ATTRIBUTE_VULKAN_CIG_STREAMS_SUPPORTED",
            DeviceAttribute::TensorMapLargeTensorMinSize => "CU_DEVICE_ATTRIBUTE_TENSOR_MAP_LARGE_TENSOR_MIN_SIZE",
            DeviceAttribute::GpuDirectRdmaWithLocalizedMemorySupported => "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED",
        }
    }
}
