//! CUDA contexts: the primary context of a device (the default), owned non-primary contexts, the
//! thread-local context stack, limits and configuration, memory-pool statistics, and the
//! per-context state of stream tracking and deferred errors.
//!
//! This module owns context lifetime and the binding of a context to the calling thread. It must
//! not enqueue work: streams (`stream.rs`) and memory (`memory/`) do that.
//!
//! # Binding
//!
//! Every cuprite call that needs a context binds its own one to the calling thread first: it asks
//! the driver which context is current (`cuCtxGetCurrent`, a thread-local read) and sets it only
//! when it differs. Users of the primary context therefore never manage the context stack.
//! RustaCUDA's model (owned contexts, [`ContextStack`], [`CurrentContext`], [`UnownedContext`])
//! is available too.
//!
//! # Stream-tracking mode
//!
//! Each context remembers the first stream on which one of its buffers was used (allocated,
//! copied, set, freed, or declared through [`Stream::begin_access`]). Until a *different* stream
//! touches one of its buffers, the context is in **single-stream mode**: no event is created,
//! recorded or waited on, and tracking costs two relaxed atomic loads per buffer access. The
//! first time another stream touches one of its buffers, the context switches, for good, to
//! **multi-stream mode**: it synchronises once (so that everything enqueued before tracking began
//! is complete) and from then on every access records an event and waits for exactly the
//! conflicting work (see [`crate::memory`]). What counts as "a different stream": any stream
//! other than the first one: another [`Stream`] object created with `new_stream`/`fork`, a
//! foreign stream wrapped with `from_raw` (each wrap is its own stream, even of the same handle,
//! except the null/legacy handle, which is the default stream), and the per-thread default stream
//! of each thread (one per thread). Streams that exist but never touch a buffer do not count.

use crate::device::{Device, DeviceAttribute};
use crate::error::{Error, Result};
use crate::stream::Stream;
use crate::{drv, init};
use cuprite_sys::driver::{self as sys, CUcontext, CUevent, CUmemoryPool};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// A process-unique id, used for streams and contexts.
pub(crate) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Flags of a context: scheduling policy and host mapping (RustaCUDA's `ContextFlags`).
///
/// ```
/// use cuprite::ContextFlags;
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
    fn raw(self) -> sys::CUlimit {
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
    fn from_raw(r: sys::CUfunc_cache) -> Self {
        match r.0 {
            1 => CacheConfig::PreferShared,
            2 => CacheConfig::PreferL1,
            3 => CacheConfig::PreferEqual,
            _ => CacheConfig::PreferNone,
        }
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
    fn raw(self) -> sys::CUsharedconfig {
        use sys::CUsharedconfig as S;
        match self {
            SharedMemoryConfig::DefaultBankSize => S::CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE,
            SharedMemoryConfig::FourByteBankSize => S::CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE,
            SharedMemoryConfig::EightByteBankSize => S::CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE,
        }
    }
    fn from_raw(r: sys::CUsharedconfig) -> Self {
        match r.0 {
            1 => SharedMemoryConfig::FourByteBankSize,
            2 => SharedMemoryConfig::EightByteBankSize,
            _ => SharedMemoryConfig::DefaultBankSize,
        }
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

/// Statistics of the device's stream-ordered memory pool, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Memory the pool holds from the device now (used + cached).
    pub reserved: u64,
    /// High-water mark of `reserved` since the last reset.
    pub reserved_high: u64,
    /// Memory handed out to live allocations now.
    pub used: u64,
    /// High-water mark of `used` since the last reset.
    pub used_high: u64,
}

/// A driver event used by stream tracking; returned to its context's pool when the last mark
/// that names it is dropped, so steady-state tracking creates no events.
pub(crate) struct TrackEvent {
    pub(crate) raw: CUevent,
    ctx: Arc<Context>,
}

impl Drop for TrackEvent {
    fn drop(&mut self) {
        if let Ok(mut pool) = self.ctx.event_pool.lock() {
            pool.push(EventHandle(self.raw));
        }
    }
}

// SAFETY: a CUevent is a driver handle usable from any thread.
unsafe impl Send for TrackEvent {}
// SAFETY: as above; the handle is only passed to thread-safe driver calls.
unsafe impl Sync for TrackEvent {}

struct EventHandle(CUevent);
// SAFETY: a driver handle usable from any thread.
unsafe impl Send for EventHandle {}

/// A CUDA context: the primary context of a device ([`Context::new`]) or an owned one
/// ([`Context::create_and_push`]). Shared as `Arc<Context>`; `Send + Sync`; every call binds it
/// to the calling thread when needed.
///
/// ```no_run
/// # fn main() -> cuprite::Result<()> {
/// let ctx = cuprite::Context::new(0)?;
/// let stream = ctx.default_stream();
/// let buf = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
/// assert_eq!(stream.clone_dtoh(&buf)?, vec![1.0, 2.0, 3.0]);
/// # Ok(()) }
/// ```
pub struct Context {
    raw: CUcontext,
    device: Device,
    primary: bool,
    id: u64,
    pool: CUmemoryPool,
    /// Whether `pool` was created for this (owned) context and is destroyed with it.
    own_pool: bool,
    pool_enabled: AtomicBool,
    total_memory: usize,
    // Stream tracking (see the module docs).
    pub(crate) multi: AtomicBool,
    first_stream: AtomicU64,
    switch: Mutex<bool>,
    settled: AtomicBool,
    event_pool: Mutex<Vec<EventHandle>>,
    // Deferred errors from Drop implementations and host functions.
    has_deferred: AtomicBool,
    deferred: Mutex<Vec<Error>>,
    /// Tracking id of the default stream (streams hold an `Arc` to their context, so the
    /// context cannot hold its streams: each `default_stream()` is a new handle with this id).
    default_stream_id: u64,
    per_thread_stream_id: u64,
    me: Weak<Context>,
}

// SAFETY: the driver's context handle may be used from any thread (the driver API is
// thread-safe); all mutable state here is atomics or behind mutexes.
unsafe impl Send for Context {}
// SAFETY: as above.
unsafe impl Sync for Context {}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.device.ordinal())
            .field("primary", &self.primary)
            .field("raw", &self.raw)
            .field("multi_stream", &self.multi.load(Ordering::Relaxed))
            .finish()
    }
}

type Registry = Mutex<Vec<(usize, Arc<Context>)>>;

fn primary_registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(Vec::new()))
}

impl Context {
    /// The primary context of device `ordinal`, retained for the rest of the process (as the
    /// CUDA runtime does): every `Context::new` of the same ordinal returns the same one, so
    /// stream tracking sees all users of the device, and the device's memory pool is never
    /// torn down under a live allocation. `Err` naming how many devices exist when `ordinal` is
    /// out of range.
    pub fn new(ordinal: usize) -> Result<Arc<Context>> {
        let device = Device::get(ordinal)?;
        let mut reg = primary_registry()
            .lock()
            .map_err(|_| Error::InvalidArgument("context registry poisoned".into()))?;
        if let Some((_, ctx)) = reg.iter().find(|(o, _)| *o == ordinal) {
            return Ok(ctx.clone());
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; the device handle came from cuDeviceGet.
        unsafe { drv!(cuDevicePrimaryCtxRetain(&mut raw, device.raw())) }?;
        let ctx = match Self::wrap(raw, device, true) {
            Ok(c) => c,
            Err(e) => {
                // SAFETY: balances the retain above.
                let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(device.raw()) };
                return Err(e);
            }
        };
        reg.push((ordinal, ctx.clone()));
        Ok(ctx)
    }

    /// The primary context of `ordinal`, first setting its flags (scheduling policy,
    /// `LMEM_RESIZE_TO_MAX`, `SYNC_MEMOPS`; current drivers update an active primary context
    /// too). `MAP_HOST` is always on for primary contexts and the driver refuses it here, so it
    /// is left out of what is passed.
    pub fn new_with_flags(ordinal: usize, flags: ContextFlags) -> Result<Arc<Context>> {
        let device = Device::get(ordinal)?;
        let bits = flags.bits() & !ContextFlags::MAP_HOST.bits();
        // SAFETY: plain flag word and a valid device handle.
        unsafe { drv!(cuDevicePrimaryCtxSetFlags_v2(device.raw(), bits)) }?;
        Self::new(ordinal)
    }

    /// Creates an owned, non-primary context on `device` and pushes it on the calling thread's
    /// context stack (RustaCUDA's `Context::create_and_push`). It is destroyed when the last
    /// `Arc` drops; make sure no other thread still uses it then.
    pub fn create_and_push(flags: ContextFlags, device: Device) -> Result<Arc<Context>> {
        init()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer, flag word and device handle; cuCtxCreate pushes it.
        unsafe { drv!(cuCtxCreate_v2(&mut raw, flags.bits(), device.raw())) }?;
        Self::wrap(raw, device, false)
    }

    fn wrap(raw: CUcontext, device: Device, primary: bool) -> Result<Arc<Context>> {
        let total_memory = device.total_memory()?;
        let pool = if device.attribute(DeviceAttribute::MemoryPoolsSupported)? != 0 {
            let mut pool = std::ptr::null_mut();
            if primary {
                // SAFETY: valid out-pointer and device handle.
                unsafe { drv!(cuDeviceGetDefaultMemPool(&mut pool, device.raw())) }?;
            } else {
                // An owned context gets a pool of its own, destroyed with it: memory it cached
                // is never handed to another context after it is gone.
                let props = sys::CUmemPoolProps {
                    allocType: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
                    handleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
                    location: sys::CUmemLocation {
                        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                        id: device.raw(),
                    },
                    win32SecurityAttributes: std::ptr::null_mut(),
                    maxSize: 0,
                    usage: 0,
                    gpuDirectRDMACapable: 0,
                    reserved: [0; 53],
                };
                // SAFETY: valid out-pointer and a fully initialised properties struct.
                unsafe { drv!(cuMemPoolCreate(&mut pool, &props)) }?;
            }
            let mut threshold: u64 = u64::MAX;
            // SAFETY: the release-threshold attribute takes a pointer to a u64.
            unsafe {
                drv!(cuMemPoolSetAttribute(
                    pool,
                    sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                    (&mut threshold as *mut u64).cast()
                ))
            }?;
            pool
        } else {
            std::ptr::null_mut()
        };
        Ok(Arc::new_cyclic(|me| Context {
            raw,
            device,
            primary,
            id: next_id(),
            pool,
            own_pool: !primary && !pool.is_null(),
            pool_enabled: AtomicBool::new(!pool.is_null()),
            total_memory,
            multi: AtomicBool::new(false),
            first_stream: AtomicU64::new(0),
            switch: Mutex::new(false),
            settled: AtomicBool::new(false),
            event_pool: Mutex::new(Vec::new()),
            has_deferred: AtomicBool::new(false),
            deferred: Mutex::new(Vec::new()),
            default_stream_id: next_id(),
            per_thread_stream_id: next_id(),
            me: me.clone(),
        }))
    }

    /// An `Arc` to this context (contexts only ever live in an `Arc`).
    pub(crate) fn arc(&self) -> Arc<Context> {
        self.me
            .upgrade()
            .expect("a Context is only reachable through a live Arc")
    }

    /// The driver's handle.
    pub fn raw(&self) -> CUcontext {
        self.raw
    }

    /// The device of this context.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.device.ordinal()
    }

    /// Whether this is the device's primary context.
    pub fn is_primary(&self) -> bool {
        self.primary
    }

    /// A process-unique id of this context object.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Makes this context current on the calling thread if it is not already, after returning
    /// any error deferred from a `Drop` (as [`Error::Deferred`]). Every cuprite call does this
    /// itself; call it before raw driver calls of your own.
    #[inline]
    pub fn bind_to_thread(&self) -> Result<()> {
        if self.has_deferred.load(Ordering::Relaxed) {
            if let Some(e) = self.take_deferred() {
                return Err(e);
            }
        }
        let mut cur = std::ptr::null_mut();
        // SAFETY: `cur` is a valid out-pointer.
        unsafe { drv!(cuCtxGetCurrent(&mut cur)) }?;
        if cur != self.raw {
            // SAFETY: `self.raw` is a live context: this object keeps it retained/owned.
            unsafe { drv!(cuCtxSetCurrent(self.raw)) }?;
        }
        Ok(())
    }

    /// Binds without first returning deferred errors (for `Drop` paths, which must not swallow
    /// another operation's error).
    #[inline]
    pub(crate) fn bind_to_thread_no_deferred(&self) -> Result<()> {
        let mut cur = std::ptr::null_mut();
        // SAFETY: `cur` is a valid out-pointer.
        unsafe { drv!(cuCtxGetCurrent(&mut cur)) }?;
        if cur != self.raw {
            // SAFETY: `self.raw` is a live context: this object keeps it retained/owned.
            unsafe { drv!(cuCtxSetCurrent(self.raw)) }?;
        }
        Ok(())
    }

    /// Keeps an error that happened where it could not be returned (a `Drop`, a host function);
    /// the next fallible call on this context returns it.
    pub(crate) fn defer(&self, operation: impl Into<String>, e: Error) {
        if let Ok(mut v) = self.deferred.lock() {
            // A broken context fails every Drop: keep the first errors, not an unbounded list.
            if v.len() >= 64 {
                return;
            }
            v.push(Error::Deferred {
                operation: operation.into(),
                source: Box::new(e),
            });
            self.has_deferred.store(true, Ordering::Release);
        }
    }

    fn take_deferred(&self) -> Option<Error> {
        let mut v = self.deferred.lock().ok()?;
        if v.is_empty() {
            self.has_deferred.store(false, Ordering::Release);
            return None;
        }
        let e = v.remove(0);
        if v.is_empty() {
            self.has_deferred.store(false, Ordering::Release);
        }
        Some(e)
    }

    /// Returns (and clears) the oldest error deferred from a `Drop` or host function, if any,
    /// without making a driver call.
    pub fn check_deferred(&self) -> Result<()> {
        match self.take_deferred() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Waits for all work in this context to finish.
    pub fn synchronize(&self) -> Result<()> {
        self.bind_to_thread()?;
        crate::stats::count_host_sync();
        // SAFETY: no arguments; the context is current.
        unsafe { drv!(cuCtxSynchronize()) }
    }

    /// `(free, total)` device memory in bytes.
    pub fn mem_info(&self) -> Result<(usize, usize)> {
        self.bind_to_thread()?;
        let (mut free, mut total) = (0, 0);
        // SAFETY: valid out-pointers; the context is current.
        unsafe { drv!(cuMemGetInfo_v2(&mut free, &mut total)) }?;
        Ok((free, total))
    }

    /// The default (legacy, null) stream of this context. Every call returns a handle to the
    /// same stream (tracking sees one stream).
    pub fn default_stream(&self) -> Arc<Stream> {
        Arc::new(Stream::default_of(self.arc(), self.default_stream_id))
    }

    /// The per-thread default stream (`CU_STREAM_PER_THREAD`): one stream per calling thread.
    /// Work enqueued on it from two threads goes to two different streams, and tracking treats
    /// them as such.
    pub fn per_thread_stream(&self) -> Arc<Stream> {
        Arc::new(Stream::per_thread_of(self.arc(), self.per_thread_stream_id))
    }

    /// A new non-blocking stream at the default priority.
    pub fn new_stream(&self) -> Result<Arc<Stream>> {
        Stream::create(self.arc(), None)
    }

    /// A new non-blocking stream with `priority` (see [`Context::stream_priority_range`];
    /// lower is higher priority; values outside the range are clamped by the driver).
    pub fn new_stream_with_priority(&self, priority: i32) -> Result<Arc<Stream>> {
        Stream::create(self.arc(), Some(priority))
    }

    /// The context's flags.
    pub fn flags(&self) -> Result<ContextFlags> {
        self.bind_to_thread()?;
        CurrentContext::get_flags()
    }

    /// One resource limit.
    pub fn limit(&self, limit: ResourceLimit) -> Result<usize> {
        self.bind_to_thread()?;
        CurrentContext::get_resource_limit(limit)
    }

    /// Sets one resource limit.
    pub fn set_limit(&self, limit: ResourceLimit, value: usize) -> Result<()> {
        self.bind_to_thread()?;
        CurrentContext::set_resource_limit(limit, value)
    }

    /// The L1/shared-memory preference.
    pub fn cache_config(&self) -> Result<CacheConfig> {
        self.bind_to_thread()?;
        CurrentContext::get_cache_config()
    }

    /// Sets the L1/shared-memory preference.
    pub fn set_cache_config(&self, config: CacheConfig) -> Result<()> {
        self.bind_to_thread()?;
        CurrentContext::set_cache_config(config)
    }

    /// The shared-memory bank size.
    pub fn shared_memory_config(&self) -> Result<SharedMemoryConfig> {
        self.bind_to_thread()?;
        CurrentContext::get_shared_memory_config()
    }

    /// Sets the shared-memory bank size (ignored by devices without configurable banks).
    pub fn set_shared_memory_config(&self, config: SharedMemoryConfig) -> Result<()> {
        self.bind_to_thread()?;
        CurrentContext::set_shared_memory_config(config)
    }

    /// The range of stream priorities.
    pub fn stream_priority_range(&self) -> Result<StreamPriorityRange> {
        self.bind_to_thread()?;
        CurrentContext::get_stream_priority_range()
    }

    /// A non-owning handle to this context, for [`CurrentContext::set_current`] in other
    /// threads (RustaCUDA's model).
    pub fn get_unowned(&self) -> UnownedContext {
        UnownedContext { raw: self.raw }
    }

    /// Lets this context access `peer`'s memory directly (peer-to-peer). Already enabled is
    /// not an error. Copies between contexts work without this too (staged by the driver).
    pub fn enable_peer_access(&self, peer: &Context) -> Result<()> {
        self.bind_to_thread()?;
        // SAFETY: `peer.raw` is a live context; flags must be 0.
        match unsafe { drv!(cuCtxEnablePeerAccess(peer.raw, 0)) } {
            Err(e) if e.code() == Some(sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) => {
                Ok(())
            }
            r => r,
        }
    }

    /// Whether new allocations are stream-ordered on the device's memory pool (else
    /// synchronous `cuMemAlloc`/`cuMemFree`, the fallback where pools are unsupported).
    #[inline]
    pub fn uses_memory_pool(&self) -> bool {
        self.pool_enabled.load(Ordering::Relaxed)
    }

    /// Chooses between stream-ordered pool allocation (the default where supported) and
    /// synchronous allocation for allocations made from now on; each buffer is freed the way it
    /// was allocated. `Err` when asking for pools on a device without them.
    pub fn set_memory_pool_enabled(&self, enabled: bool) -> Result<()> {
        if enabled && self.pool.is_null() {
            return Err(Error::InvalidArgument(format!(
                "device {} does not support stream-ordered memory pools",
                self.device.ordinal()
            )));
        }
        self.pool_enabled.store(enabled, Ordering::Relaxed);
        Ok(())
    }

    /// The device's total memory in bytes (cached at creation).
    pub fn total_memory(&self) -> usize {
        self.total_memory
    }

    /// The memory pool allocations use: the device's default pool for the primary context, a
    /// pool of its own for an owned context (null where pools are unsupported).
    pub fn raw_memory_pool(&self) -> CUmemoryPool {
        self.pool
    }

    fn pool_attr(&self, attr: sys::CUmemPool_attribute) -> Result<u64> {
        let mut v: u64 = 0;
        // SAFETY: these attributes are u64-valued; `v` is a valid out-pointer; the pool is the
        // device's default pool, which lives as long as the device.
        unsafe {
            drv!(cuMemPoolGetAttribute(
                self.pool,
                attr,
                (&mut v as *mut u64).cast()
            ))
        }?;
        Ok(v)
    }

    /// Statistics of the device's memory pool. All zero where pools are unsupported.
    pub fn pool_stats(&self) -> Result<PoolStats> {
        self.bind_to_thread()?;
        if self.pool.is_null() {
            return Ok(PoolStats::default());
        }
        use sys::CUmemPool_attribute as A;
        Ok(PoolStats {
            reserved: self.pool_attr(A::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
            reserved_high: self.pool_attr(A::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH)?,
            used: self.pool_attr(A::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
            used_high: self.pool_attr(A::CU_MEMPOOL_ATTR_USED_MEM_HIGH)?,
        })
    }

    /// The pool's release threshold: freed memory up to this much stays cached for reuse.
    pub fn pool_release_threshold(&self) -> Result<u64> {
        self.bind_to_thread()?;
        if self.pool.is_null() {
            return Ok(0);
        }
        self.pool_attr(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    }

    /// Sets the pool's release threshold (cuprite sets `u64::MAX`: keep everything cached until
    /// [`trim`](Self::trim) or an out-of-memory retry).
    pub fn set_pool_release_threshold(&self, bytes: u64) -> Result<()> {
        self.bind_to_thread()?;
        if self.pool.is_null() {
            return Ok(());
        }
        let mut v = bytes;
        // SAFETY: the release threshold is u64-valued; `v` is a valid pointer.
        unsafe {
            drv!(cuMemPoolSetAttribute(
                self.pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut v as *mut u64).cast()
            ))
        }
    }

    /// Releases cached pool memory down to `keep_bytes` (0: release all that is unused).
    /// Memory whose stream-ordered free has not completed yet is not released; synchronise
    /// first to release everything.
    pub fn trim(&self, keep_bytes: usize) -> Result<()> {
        self.bind_to_thread()?;
        if self.pool.is_null() {
            return Ok(());
        }
        // SAFETY: the default pool is valid for the device's lifetime.
        unsafe { drv!(cuMemPoolTrimTo(self.pool, keep_bytes)) }
    }

    /// Resets the pool's high-water marks to the current values.
    pub fn reset_pool_high_water(&self) -> Result<()> {
        self.bind_to_thread()?;
        if self.pool.is_null() {
            return Ok(());
        }
        use sys::CUmemPool_attribute as A;
        for attr in [
            A::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
            A::CU_MEMPOOL_ATTR_USED_MEM_HIGH,
        ] {
            let mut zero: u64 = 0;
            // SAFETY: the high-water attributes accept a u64 zero to reset.
            unsafe {
                drv!(cuMemPoolSetAttribute(
                    self.pool,
                    attr,
                    (&mut zero as *mut u64).cast()
                ))
            }?;
        }
        Ok(())
    }

    /// Whether this context has switched to multi-stream tracking (see the module docs).
    pub fn is_multi_stream(&self) -> bool {
        self.multi.load(Ordering::Acquire)
    }

    /// Switches this context to multi-stream tracking now (one device-wide synchronisation)
    /// instead of when a second stream first touches one of its buffers. Needed before a stream
    /// capture in which a second stream is used for the first time.
    pub fn enable_multi_stream_tracking(&self) -> Result<()> {
        self.switch_to_multi()
    }

    /// Records that stream `sid` touches a buffer of this context. Returns whether the context
    /// is (now) in multi-stream mode. The single-stream path is two relaxed atomic loads.
    #[inline]
    pub(crate) fn note_stream(&self, sid: u64) -> Result<bool> {
        if self.multi.load(Ordering::Acquire) {
            return Ok(true);
        }
        if self.first_stream.load(Ordering::Relaxed) == sid {
            return Ok(false);
        }
        self.note_stream_slow(sid)
    }

    #[cold]
    fn note_stream_slow(&self, sid: u64) -> Result<bool> {
        match self
            .first_stream
            .compare_exchange(0, sid, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => return Ok(false),
            Err(first) if first == sid => return Ok(false),
            Err(_) => {}
        }
        self.switch_to_multi()?;
        Ok(true)
    }

    /// Enters multi-stream mode: raises the flag first (so that any access completing from now
    /// on records its event), then synchronises once, so that everything enqueued untracked is
    /// complete; trackers never touched in multi-stream mode have no pending work after that.
    #[cold]
    fn switch_to_multi(&self) -> Result<()> {
        let mut settled = self
            .switch
            .lock()
            .map_err(|_| Error::InvalidArgument("context switch lock poisoned".into()))?;
        if *settled {
            return Ok(());
        }
        if crate::graph::active_in_context(self.id) {
            return Err(Error::InvalidArgument(
                "a second stream touched a buffer for the first time during a stream capture: \
                 entering multi-stream tracking needs a device-wide synchronisation, which a \
                 capture forbids; call Context::enable_multi_stream_tracking() before \
                 begin_capture"
                    .into(),
            ));
        }
        self.multi.store(true, Ordering::SeqCst);
        self.bind_to_thread_no_deferred()?;
        crate::stats::count_host_sync();
        // SAFETY: no arguments; the context is current.
        unsafe { drv!(cuCtxSynchronize()) }?;
        *settled = true;
        self.settled.store(true, Ordering::Release);
        Ok(())
    }

    /// Waits until the switch to multi-stream mode (whose flag is already up) has finished its
    /// synchronisation. Called only for trackers never touched in multi-stream mode.
    pub(crate) fn wait_settled(&self) -> Result<()> {
        if self.settled.load(Ordering::Acquire) {
            return Ok(());
        }
        let settled = self
            .switch
            .lock()
            .map_err(|_| Error::InvalidArgument("context switch lock poisoned".into()))?;
        if *settled {
            Ok(())
        } else {
            drop(settled);
            self.switch_to_multi()
        }
    }

    /// An event for tracking, from the pool or new (timing disabled).
    pub(crate) fn track_event(&self) -> Result<Arc<TrackEvent>> {
        let reused = self.event_pool.lock().ok().and_then(|mut p| p.pop());
        let raw = match reused {
            Some(h) => h.0,
            None => {
                let mut ev = std::ptr::null_mut();
                // SAFETY: valid out-pointer and flags; the caller bound the context.
                unsafe {
                    drv!(cuEventCreate(
                        &mut ev,
                        sys::CUevent_flags::CU_EVENT_DISABLE_TIMING.0
                    ))
                }?;
                ev
            }
        };
        Ok(Arc::new(TrackEvent {
            raw,
            ctx: self.arc(),
        }))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // Nothing can report errors from here any more: the context itself is going away.
        // Finish its work first, so that no stream (of any context) still waits on one of its
        // events and no stream-ordered free of its memory is pending when it goes.
        // SAFETY: push/pop of a live context around a synchronize; the pop restores the stack.
        unsafe {
            if matches!(sys::cuCtxPushCurrent_v2(self.raw), Ok(r) if r.is_success()) {
                let _ = sys::cuCtxSynchronize();
                let mut popped = std::ptr::null_mut();
                let _ = sys::cuCtxPopCurrent_v2(&mut popped);
            }
        }
        if let Ok(pool) = self.event_pool.get_mut() {
            for h in pool.drain(..) {
                // SAFETY: pooled events are owned by this context and no longer referenced.
                let _ = unsafe { sys::cuEventDestroy_v2(h.0) };
            }
        }
        if self.own_pool {
            // SAFETY: the pool was created for this context; every buffer of it is gone (they
            // hold the context) and its frees completed in the synchronize above.
            let _ = unsafe { sys::cuMemPoolDestroy(self.pool) };
        }
        if self.primary {
            // SAFETY: balances the cuDevicePrimaryCtxRetain of `Context::new`.
            let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(self.device.raw()) };
        } else {
            // SAFETY: the context was created by cuCtxCreate and is owned by this object.
            let _ = unsafe { sys::cuCtxDestroy_v2(self.raw) };
        }
    }
}

/// Something that names a context: [`Context`] or [`UnownedContext`] (RustaCUDA's sealed
/// `ContextHandle`).
pub trait ContextHandle {
    /// The driver's handle.
    fn raw_context(&self) -> CUcontext;
}

impl ContextHandle for Context {
    fn raw_context(&self) -> CUcontext {
        self.raw
    }
}

impl ContextHandle for Arc<Context> {
    fn raw_context(&self) -> CUcontext {
        self.raw
    }
}

/// A non-owning handle to a context, from [`Context::get_unowned`] or
/// [`CurrentContext::get_current`]. Using it after its context was destroyed makes driver calls
/// fail with an error (never undefined behaviour in cuprite's own calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnownedContext {
    raw: CUcontext,
}

// SAFETY: a driver context handle is usable from any thread.
unsafe impl Send for UnownedContext {}
// SAFETY: as above.
unsafe impl Sync for UnownedContext {}

impl UnownedContext {
    /// The driver's handle.
    pub fn raw(&self) -> CUcontext {
        self.raw
    }

    /// The driver's API version of this context.
    pub fn api_version(&self) -> Result<u32> {
        let mut v = 0;
        // SAFETY: valid out-pointer; an invalid handle yields an error status.
        unsafe { drv!(cuCtxGetApiVersion(self.raw, &mut v)) }?;
        Ok(v)
    }
}

impl ContextHandle for UnownedContext {
    fn raw_context(&self) -> CUcontext {
        self.raw
    }
}

/// The calling thread's context stack (RustaCUDA's `ContextStack`).
#[derive(Debug)]
pub struct ContextStack;

impl ContextStack {
    /// Pushes `ctx` on the calling thread's stack, making it current.
    pub fn push(ctx: &impl ContextHandle) -> Result<()> {
        init()?;
        // SAFETY: the handle names a context kept alive by its owner.
        unsafe { drv!(cuCtxPushCurrent_v2(ctx.raw_context())) }
    }

    /// Pops the current context off the calling thread's stack and returns it.
    pub fn pop() -> Result<UnownedContext> {
        init()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxPopCurrent_v2(&mut raw)) }?;
        Ok(UnownedContext { raw })
    }
}

/// The calling thread's current context (RustaCUDA's `CurrentContext`).
#[derive(Debug)]
pub struct CurrentContext;

impl CurrentContext {
    /// The current context, or `None` when the thread has none.
    pub fn get_current() -> Result<Option<UnownedContext>> {
        init()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetCurrent(&mut raw)) }?;
        Ok((!raw.is_null()).then_some(UnownedContext { raw }))
    }

    /// Replaces the top of the calling thread's stack with `ctx`.
    pub fn set_current(ctx: &impl ContextHandle) -> Result<()> {
        init()?;
        // SAFETY: the handle names a context kept alive by its owner.
        unsafe { drv!(cuCtxSetCurrent(ctx.raw_context())) }
    }

    /// Waits for all work of the current context.
    pub fn synchronize() -> Result<()> {
        crate::stats::count_host_sync();
        // SAFETY: no arguments.
        unsafe { drv!(cuCtxSynchronize()) }
    }

    /// The device of the current context.
    pub fn get_device() -> Result<Device> {
        let mut d = 0;
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetDevice(&mut d)) }?;
        Device::all()?
            .into_iter()
            .find(|x| x.raw() == d)
            .ok_or_else(|| Error::InvalidArgument(format!("unknown device handle {d}")))
    }

    /// The flags of the current context.
    pub fn get_flags() -> Result<ContextFlags> {
        let mut f = 0;
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetFlags(&mut f)) }?;
        Ok(ContextFlags(f))
    }

    /// One resource limit of the current context.
    pub fn get_resource_limit(limit: ResourceLimit) -> Result<usize> {
        let mut v = 0;
        // SAFETY: valid out-pointer and limit selector.
        unsafe { drv!(cuCtxGetLimit(&mut v, limit.raw())) }?;
        Ok(v)
    }

    /// Sets one resource limit of the current context.
    pub fn set_resource_limit(limit: ResourceLimit, value: usize) -> Result<()> {
        // SAFETY: plain values.
        unsafe { drv!(cuCtxSetLimit(limit.raw(), value)) }
    }

    /// The L1/shared preference of the current context.
    pub fn get_cache_config() -> Result<CacheConfig> {
        let mut c = sys::CUfunc_cache::default();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetCacheConfig(&mut c)) }?;
        Ok(CacheConfig::from_raw(c))
    }

    /// Sets the L1/shared preference of the current context.
    pub fn set_cache_config(config: CacheConfig) -> Result<()> {
        // SAFETY: plain value.
        unsafe { drv!(cuCtxSetCacheConfig(config.raw())) }
    }

    /// The shared-memory bank size of the current context.
    pub fn get_shared_memory_config() -> Result<SharedMemoryConfig> {
        let mut c = sys::CUsharedconfig::default();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetSharedMemConfig(&mut c)) }?;
        Ok(SharedMemoryConfig::from_raw(c))
    }

    /// Sets the shared-memory bank size of the current context.
    pub fn set_shared_memory_config(config: SharedMemoryConfig) -> Result<()> {
        // SAFETY: plain value.
        unsafe { drv!(cuCtxSetSharedMemConfig(config.raw())) }
    }

    /// The stream priority range of the current context.
    pub fn get_stream_priority_range() -> Result<StreamPriorityRange> {
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: valid out-pointers.
        unsafe { drv!(cuCtxGetStreamPriorityRange(&mut least, &mut greatest)) }?;
        Ok(StreamPriorityRange { least, greatest })
    }
}
