//! The plain configuration values of a context: its flags, resource limits, cache and
//! shared-memory preferences, and the stream-priority range. Each maps to one driver enum; this
//! module owns only those conversions and makes no driver call.

use cuprite_sys::driver as sys;

/// Flags of a context: scheduling policy and host mapping (RustaCUDA's `ContextFlags`).
///
/// ```
/// use cuprite_driver::ContextFlags;
/// let f = ContextFlags::MAP_HOST | ContextFlags::SCHED_AUTO;
/// assert!(f.contains(ContextFlags::MAP_HOST));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ContextFlags(u32);

impl ContextFlags {
    /// Let the driver choose between spinning and yielding while waiting for the GPU.
    pub const SCHED_AUTO: ContextFlags = ContextFlags(0);
    /// Spin while waiting for the GPU (lowest latency, busy CPU).
    pub const SCHED_SPIN: ContextFlags = ContextFlags(1);
    /// Yield the thread while waiting for the GPU.
    pub const SCHED_YIELD: ContextFlags = ContextFlags(2);
    /// Block the thread on a synchronisation primitive while waiting.
    pub const SCHED_BLOCKING_SYNC: ContextFlags = ContextFlags(4);
    /// Allow mapped pinned host memory (always on for current drivers).
    pub const MAP_HOST: ContextFlags = ContextFlags(8);
    /// Keep local-memory allocations after a kernel that needed a lot of it.
    pub const LMEM_RESIZE_TO_MAX: ContextFlags = ContextFlags(16);
    /// Make memory operations synchronous on this context.
    pub const SYNC_MEMOPS: ContextFlags = ContextFlags(128);

    /// The empty set (same as `SCHED_AUTO`).
    pub const fn empty() -> Self {
        ContextFlags(0)
    }
    /// From the raw `CUctx_flags` bits.
    pub const fn from_bits(bits: u32) -> Self {
        ContextFlags(bits)
    }
    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }
    /// Whether every bit of `other` is set here (`SCHED_AUTO`, being 0, is always contained).
    pub const fn contains(self, other: ContextFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for ContextFlags {
    type Output = ContextFlags;
    fn bitor(self, rhs: Self) -> Self {
        ContextFlags(self.0 | rhs.0)
    }
}

/// Resource limits of a context (`CUlimit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResourceLimit {
    /// Stack size in bytes of each GPU thread.
    StackSize,
    /// Size in bytes of the FIFO used by device `printf`.
    PrintfFifoSize,
    /// Size in bytes of the heap used by device `malloc`.
    MallocHeapSize,
    /// Maximum nesting depth of a grid that can synchronise on child grids.
    DeviceRuntimeSyncDepth,
    /// Maximum number of outstanding device-runtime launches.
    DeviceRuntimePendingLaunchCount,
    /// L2 fetch granularity in bytes (a hint).
    MaxL2FetchGranularity,
    /// Persisting L2 cache size in bytes.
    PersistingL2CacheSize,
}

impl ResourceLimit {
    pub(crate) fn raw(self) -> sys::CUlimit {
        use sys::CUlimit as L;
        match self {
            ResourceLimit::StackSize => L::CU_LIMIT_STACK_SIZE,
            ResourceLimit::PrintfFifoSize => L::CU_LIMIT_PRINTF_FIFO_SIZE,
            ResourceLimit::MallocHeapSize => L::CU_LIMIT_MALLOC_HEAP_SIZE,
            ResourceLimit::DeviceRuntimeSyncDepth => L::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH,
            ResourceLimit::DeviceRuntimePendingLaunchCount => {
                L::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
            }
            ResourceLimit::MaxL2FetchGranularity => L::CU_LIMIT_MAX_L2_FETCH_GRANULARITY,
            ResourceLimit::PersistingL2CacheSize => L::CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
        }
    }
}

/// Preference between L1 cache and shared memory (`CUfunc_cache`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheConfig {
    /// No preference.
    PreferNone,
    /// More shared memory, less L1.
    PreferShared,
    /// More L1, less shared memory.
    PreferL1,
    /// Equal L1 and shared memory.
    PreferEqual,
}

impl CacheConfig {
    pub(crate) fn raw(self) -> sys::CUfunc_cache {
        use sys::CUfunc_cache as C;
        match self {
            CacheConfig::PreferNone => C::CU_FUNC_CACHE_PREFER_NONE,
            CacheConfig::PreferShared => C::CU_FUNC_CACHE_PREFER_SHARED,
            CacheConfig::PreferL1 => C::CU_FUNC_CACHE_PREFER_L1,
            CacheConfig::PreferEqual => C::CU_FUNC_CACHE_PREFER_EQUAL,
        }
    }
    /// The value for a raw driver value; `None` for one this crate does not know.
    pub(crate) fn from_raw(r: sys::CUfunc_cache) -> Option<Self> {
        Some(match r.0 {
            0 => CacheConfig::PreferNone,
            1 => CacheConfig::PreferShared,
            2 => CacheConfig::PreferL1,
            3 => CacheConfig::PreferEqual,
            _ => return None,
        })
    }
}

/// Shared-memory bank size (`CUsharedconfig`); current GPUs report the default and ignore sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedMemoryConfig {
    /// The device's default bank size.
    DefaultBankSize,
    /// Four-byte banks.
    FourByteBankSize,
    /// Eight-byte banks.
    EightByteBankSize,
}

impl SharedMemoryConfig {
    pub(crate) fn raw(self) -> sys::CUsharedconfig {
        use sys::CUsharedconfig as S;
        match self {
            SharedMemoryConfig::DefaultBankSize => S::CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE,
            SharedMemoryConfig::FourByteBankSize => S::CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE,
            SharedMemoryConfig::EightByteBankSize => S::CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE,
        }
    }
    /// The value for a raw driver value; `None` for one this crate does not know.
    pub(crate) fn from_raw(r: sys::CUsharedconfig) -> Option<Self> {
        Some(match r.0 {
            0 => SharedMemoryConfig::DefaultBankSize,
            1 => SharedMemoryConfig::FourByteBankSize,
            2 => SharedMemoryConfig::EightByteBankSize,
            _ => return None,
        })
    }
}

/// The range of stream priorities; lower numbers are higher priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamPriorityRange {
    /// The lowest priority (the default, typically 0).
    pub least: i32,
    /// The highest priority (typically negative).
    pub greatest: i32,
}
