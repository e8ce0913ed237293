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
//! copied, set, freed, or declared through [`Stream::begin_access`](crate::Stream::begin_access)). Until a *different* stream
//! touches one of its buffers, the context is in **single-stream mode**: no event is created,
//! recorded or waited on, and tracking costs two relaxed atomic loads per buffer access. The
//! first time another stream touches one of its buffers, the context switches, for good, to
//! **multi-stream mode**: it synchronises once (so that everything enqueued before tracking began
//! is complete) and from then on every access records an event and waits for exactly the
//! conflicting work (see [`crate::memory`]). What counts as "a different stream": any stream
//! other than the first one: another [`Stream`](crate::Stream) object created with `new_stream`/`fork`, a
//! foreign stream wrapped with `from_raw` (each wrap is its own stream, even of the same handle,
//! except the null/legacy handle, which is the default stream), and the per-thread default stream
//! of each thread (one per thread). Streams that exist but never touch a buffer do not count.

//!
//! # Layout
//!
//! This file holds [`Context`] itself: creation, binding, and the calls that delegate to its
//! parts, each in a submodule that knows nothing of `Context`: `config` (flags, limits, cache
//! and shared-memory preferences), `pool` (the memory pool), `tracking` (the stream-tracking
//! mode), `event_pool` (the events tracking records), `deferred` (errors kept for the next
//! call) and `stack` (the thread's context stack, RustaCUDA's model).

mod config;
mod deferred;
pub(crate) mod event_pool;
mod pool;
mod stack;
mod tracking;

pub use config::{
    CacheConfig, ContextFlags, ResourceLimit, SharedMemoryConfig, StreamPriorityRange,
};
pub use pool::PoolStats;
pub use stack::{ContextHandle, ContextStack, CurrentContext, UnownedContext};

use crate::device::Device;
use crate::error::{Error, Result};
use crate::{drv, init};
use cuprite_sys::driver::{self as sys, CUcontext, CUmemoryPool};
use deferred::DeferredErrors;
use event_pool::{EventPool, EventSource, TrackEvent};
use pool::MemoryPool;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use tracking::TrackingMode;

/// A process-unique id, used for streams and contexts.
pub(crate) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A CUDA context: the primary context of a device ([`Context::new`]) or an owned one
/// ([`Context::create_and_push`]). Shared as `Arc<Context>`; `Send + Sync`; every call binds it
/// to the calling thread when needed.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
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
    pool: MemoryPool,
    total_memory: usize,
    tracking: TrackingMode,
    events: EventPool,
    deferred: DeferredErrors,
    /// Work that must follow a context-wide synchronisation which a capture in progress
    /// refused (the destruction of a library handle whose work a graph captured): run after
    /// the next synchronisation of the context that succeeds, or as the context goes.
    after_sync: Mutex<Vec<AfterSync>>,
    /// Driver calls that a capture in progress forbids in any thread (they synchronise the
    /// context implicitly: a module's unload, a pinned buffer's free), put off by
    /// [`Context::outside_captures`] until the last capture in progress ended, or as the
    /// context goes.
    after_captures: Mutex<Vec<AfterSync>>,
    /// Modules loaded in this context and not yet unloaded.
    modules: AtomicUsize,
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
            .field("multi_stream", &self.tracking.is_multi())
            .finish()
    }
}

impl EventSource for Context {
    fn event_pool(&self) -> &EventPool {
        &self.events
    }
}

type Registry = Mutex<Vec<(usize, Arc<Context>)>>;

fn primary_registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(Vec::new()))
}

/// The owned contexts ([`Context::create_and_push`]) by their driver handle, held weakly: an
/// entry whose context is gone no longer upgrades (a later context may have the same handle;
/// only the entry that upgrades is its). Pruned of gone entries as one is added.
type OwnedRegistry = Mutex<Vec<(usize, Weak<Context>)>>;

fn owned_registry() -> &'static OwnedRegistry {
    static REG: OnceLock<OwnedRegistry> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(Vec::new()))
}

/// The live cuprite context whose driver handle is `raw`, if cuprite made it.
fn context_of(raw: CUcontext) -> Option<Arc<Context>> {
    let primary = primary_registry()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(_, c)| c.raw == raw)
        .map(|(_, c)| c.clone());
    primary.or_else(|| {
        owned_registry()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|(r, _)| *r == raw as usize)
            .find_map(|(_, w)| w.upgrade())
    })
}

impl CurrentContext {
    /// Waits for all work of the current context. A context cuprite made (a device's primary
    /// context, which [`Context::new`] returns, or one of [`Context::create_and_push`]) is
    /// synchronised as [`Context::synchronize`] does, so a stream capture in progress there is
    /// waited out or refused rather than invalidated; a context made elsewhere is synchronised
    /// directly. `Err` when the thread has no current context.
    pub fn synchronize() -> Result<()> {
        let Some(current) = CurrentContext::get_current()? else {
            return Err(Error::InvalidArgument(
                "CurrentContext::synchronize: the calling thread has no current context".into(),
            ));
        };
        if let Some(ctx) = context_of(current.raw_context()) {
            return ctx.synchronize();
        }
        crate::stats::count_host_sync();
        // SAFETY: no arguments; a context is current.
        unsafe { drv!(cuCtxSynchronize()) }
    }
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
        let ctx = Self::wrap(raw, device, false).inspect_err(|_| {
            // SAFETY: the context was just created here and nothing else refers to it.
            let _ = unsafe { sys::cuCtxDestroy_v2(raw) };
        })?;
        let mut reg = owned_registry().lock().unwrap_or_else(|e| e.into_inner());
        reg.retain(|(_, w)| w.strong_count() > 0);
        reg.push((raw as usize, Arc::downgrade(&ctx)));
        Ok(ctx)
    }

    fn wrap(raw: CUcontext, device: Device, primary: bool) -> Result<Arc<Context>> {
        let total_memory = device.total_memory()?;
        let pool = MemoryPool::for_context(device, primary)?;
        Ok(Arc::new_cyclic(|me| Context {
            raw,
            device,
            primary,
            id: next_id(),
            pool,
            total_memory,
            tracking: TrackingMode::default(),
            events: EventPool::default(),
            deferred: DeferredErrors::default(),
            after_sync: Mutex::new(Vec::new()),
            after_captures: Mutex::new(Vec::new()),
            modules: AtomicUsize::new(0),
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

    /// The tracking ids of the default and the per-thread stream.
    pub(crate) fn special_stream_ids(&self) -> (u64, u64) {
        (self.default_stream_id, self.per_thread_stream_id)
    }

    /// Makes this context current on the calling thread if it is not already, after returning
    /// any error deferred from a `Drop` (as [`Error::Deferred`]). Every cuprite call does this
    /// itself; call it before raw driver calls of your own.
    #[inline]
    pub fn bind_to_thread(&self) -> Result<()> {
        if self.deferred.pending() {
            if let Some(e) = self.deferred.take() {
                return Err(e);
            }
        }
        self.bind_to_thread_no_deferred()
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
        self.deferred.push(operation.into(), e);
    }

    /// The handle of the stream-ordered pool this context allocates from, if it has one
    /// (compared, never used to call the driver, outside this crate's pool code).
    pub(crate) fn pool_raw(&self) -> Option<sys::CUmemoryPool> {
        self.pool.raw_handle()
    }

    /// Returns (and clears) the oldest error deferred from a `Drop` or host function, if any,
    /// without making a driver call.
    pub fn check_deferred(&self) -> Result<()> {
        match self.deferred.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Waits for all work in this context to finish.
    ///
    /// The driver forbids synchronising a context while one of its streams is capturing (the
    /// capture would be invalidated). A capture in progress that another thread began is
    /// therefore waited out first, and no capture begins until the synchronisation is done;
    /// one that the calling thread began makes this an `Err` (it could never end meanwhile).
    /// So a thread must not wait here for work that a capturing thread does only after this
    /// returns.
    pub fn synchronize(&self) -> Result<()> {
        self.bind_to_thread()?;
        self.tracking
            .synchronize_after_captures("Context::synchronize", || {
                crate::stats::count_host_sync();
                // SAFETY: no arguments; the context is current.
                unsafe { drv!(cuCtxSynchronize()) }
            })?;
        self.run_after_sync();
        Ok(())
    }

    /// [`synchronize`](Self::synchronize) for `Drop` paths: binds without returning deferred
    /// errors (another operation's), and is [refused](DropWait::Refused) while any capture is
    /// in progress (a drop never waits for another thread).
    pub(crate) fn synchronize_for_drop(&self) -> DropWait {
        if let Err(e) = self.bind_to_thread_no_deferred() {
            return DropWait::Failed(e);
        }
        match self.tracking.try_synchronize_outside_captures(|| {
            // SAFETY: no arguments; the context is current.
            unsafe { drv!(cuCtxSynchronize()) }
        }) {
            Ok(Ok(())) => {
                self.run_after_sync();
                DropWait::Done
            }
            Ok(Err(e)) => DropWait::Failed(e),
            Err(_) => DropWait::Refused,
        }
    }

    /// Runs `free` (named `what` in a deferred error) once no work of this context can still
    /// use what it frees: after a context-wide synchronisation now or, while a capture is in
    /// progress (which forbids one, and which a drop does not wait for), after the next one
    /// that succeeds. When the synchronisation fails otherwise, `free` never runs (what it
    /// would free is leaked) and the error is deferred.
    pub(crate) fn free_after_sync(&self, what: &'static str, free: AfterSyncFn) {
        match self.synchronize_for_drop() {
            DropWait::Done => self.outside_captures(what, free),
            DropWait::Refused => self.after_next_sync(what, free),
            DropWait::Failed(e) => self.defer(what, e),
        }
    }

    /// Runs `f` (named `what` in a deferred error) now, unless a stream capture is in progress
    /// on this context: a driver call that synchronises the context implicitly (a module's
    /// unload, a pinned buffer's free) would then be refused and would invalidate the capture,
    /// so `f` runs once the last capture in progress ended (see
    /// [`run_after_captures`](Self::run_after_captures)), or as the context goes. No capture
    /// begins while `f` runs. The context is current when it runs.
    pub(crate) fn outside_captures(&self, what: &'static str, f: AfterSyncFn) {
        // Within such a call already (what it drops as it ends): the gate is held, no capture
        // is in progress, and taking the gate again could wait behind a capture's beginning.
        if OUTSIDE_CAPTURES.with(|c| c.get()) {
            if let Err(e) = self.bind_to_thread_no_deferred().and_then(|()| f()) {
                self.defer(what, e);
            }
            return;
        }
        let gate = self.tracking.gate_read();
        if self.captures_in_progress() != 0 {
            self.after_captures
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((what, f));
            return;
        }
        let r = within_gate(|| self.bind_to_thread_no_deferred().and_then(|()| f()));
        drop(gate);
        if let Err(e) = r {
            self.defer(what, e);
        }
    }

    /// Runs what [`outside_captures`](Self::outside_captures) put off, when no capture is in
    /// progress on this context any more (called as a capture ends).
    pub(crate) fn run_after_captures(&self) {
        let gate = self.tracking.gate_read();
        if self.captures_in_progress() != 0 {
            return;
        }
        let due = std::mem::take(
            &mut *self
                .after_captures
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        if due.is_empty() {
            return;
        }
        let bound = self.bind_to_thread_no_deferred();
        let mut errors = Vec::new();
        within_gate(|| {
            for (what, f) in due {
                if let Err(e) = bound.clone().and_then(|()| f()) {
                    errors.push((what, e));
                }
            }
        });
        drop(gate);
        for (what, e) in errors {
            self.defer(what, e);
        }
    }

    /// How many stream captures are in progress on this context now.
    pub(crate) fn captures_in_progress(&self) -> usize {
        self.tracking.captures_in_progress()
    }

    /// Held while a call that a capture in progress would forbid checks that none is and runs:
    /// no capture begins on this context meanwhile. `None` within work of
    /// [`outside_captures`](Self::outside_captures), whose thread holds a gate already (taking
    /// this one too could wait behind a capture's beginning that waits for the first).
    pub(crate) fn no_capture_begins(&self) -> Option<std::sync::RwLockReadGuard<'_, ()>> {
        (!OUTSIDE_CAPTURES.with(|c| c.get())).then(|| self.tracking.gate_read())
    }

    /// Runs `f` (named `what` in a deferred error) after the next context-wide synchronisation
    /// that succeeds, or as the context goes, whichever is first. The context is current when
    /// it runs.
    pub(crate) fn after_next_sync(&self, what: &'static str, f: AfterSyncFn) {
        self.after_sync
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((what, f));
    }

    /// Runs what waited for a synchronisation (every device use of it is finished).
    fn run_after_sync(&self) {
        let due = std::mem::take(&mut *self.after_sync.lock().unwrap_or_else(|e| e.into_inner()));
        for (what, f) in due {
            if let Err(e) = f() {
                self.defer(what, e);
            }
        }
    }

    /// `(free, total)` device memory in bytes.
    pub fn mem_info(&self) -> Result<(usize, usize)> {
        self.bind_to_thread()?;
        let (mut free, mut total) = (0, 0);
        // SAFETY: valid out-pointers; the context is current.
        unsafe { drv!(cuMemGetInfo_v2(&mut free, &mut total)) }?;
        Ok((free, total))
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
        UnownedContext::from_raw(self.raw)
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
        self.pool.is_enabled()
    }

    /// Chooses between stream-ordered pool allocation (the default where supported) and
    /// synchronous allocation for allocations made from now on; each buffer is freed the way it
    /// was allocated. `Err` when asking for pools on a device without them.
    pub fn set_memory_pool_enabled(&self, enabled: bool) -> Result<()> {
        self.pool.set_enabled(enabled, self.device.ordinal())
    }

    /// The device's total memory in bytes (cached at creation).
    pub fn total_memory(&self) -> usize {
        self.total_memory
    }

    /// The memory pool allocations use: the device's default pool for the primary context, a
    /// pool of its own for an owned context (null where pools are unsupported).
    pub fn raw_memory_pool(&self) -> CUmemoryPool {
        self.pool.raw()
    }

    /// Statistics of the device's memory pool. All zero where pools are unsupported.
    pub fn pool_stats(&self) -> Result<PoolStats> {
        self.bind_to_thread()?;
        self.pool.stats()
    }

    /// The pool's release threshold: freed memory up to this much stays cached for reuse.
    pub fn pool_release_threshold(&self) -> Result<u64> {
        self.bind_to_thread()?;
        self.pool.release_threshold()
    }

    /// Sets the pool's release threshold (cuprite sets `u64::MAX`: keep everything cached until
    /// [`trim`](Self::trim) or an out-of-memory retry).
    pub fn set_pool_release_threshold(&self, bytes: u64) -> Result<()> {
        self.bind_to_thread()?;
        self.pool.set_release_threshold(bytes)
    }

    /// Releases cached pool memory down to `keep_bytes` (0: release all that is unused).
    /// Memory whose stream-ordered free has not completed yet is not released; synchronise
    /// first to release everything.
    pub fn trim(&self, keep_bytes: usize) -> Result<()> {
        self.bind_to_thread()?;
        self.pool.trim(keep_bytes)
    }

    /// Resets the pool's high-water marks to the current values.
    pub fn reset_pool_high_water(&self) -> Result<()> {
        self.bind_to_thread()?;
        self.pool.reset_high_water()
    }

    /// Whether this context has switched to multi-stream tracking (see the module docs).
    #[inline]
    pub fn is_multi_stream(&self) -> bool {
        self.tracking.is_multi()
    }

    /// Switches this context to multi-stream tracking now (one device-wide synchronisation)
    /// instead of when a second stream first touches one of its buffers. Needed before a stream
    /// capture in which a second stream is used for the first time.
    pub fn enable_multi_stream_tracking(&self) -> Result<()> {
        self.tracking.switch_to_multi(|| self.settle())
    }

    /// The one synchronisation of the switch to multi-stream mode.
    fn settle(&self) -> Result<()> {
        self.bind_to_thread_no_deferred()?;
        crate::stats::count_host_sync();
        // SAFETY: no arguments; the context is current.
        unsafe { drv!(cuCtxSynchronize()) }
    }

    /// Records that stream `sid` touches a buffer of this context. Returns whether the context
    /// is (now) in multi-stream mode. The single-stream path is two relaxed atomic loads.
    #[inline]
    pub(crate) fn note_stream(&self, sid: u64) -> Result<bool> {
        self.tracking.note_stream(sid, || self.settle())
    }

    /// Waits until the switch to multi-stream mode (whose flag is already up) has finished its
    /// synchronisation. Called only for trackers never touched in multi-stream mode.
    pub(crate) fn wait_settled(&self) -> Result<()> {
        self.tracking.wait_settled(|| self.settle())
    }

    /// A stream capture begun by the calling thread on the stream `sid` of this context began
    /// (`true`) or ended (`false`). While one is in progress the switch to multi-stream mode is
    /// refused, and context-wide synchronisations wait for its end (or are refused, on the
    /// capturing thread and in `Drop` paths).
    pub(crate) fn note_capture(&self, sid: u64, began: bool) {
        self.tracking.note_capture(sid, began);
    }

    /// Held while a capture begins: no context-wide synchronisation runs meanwhile.
    pub(crate) fn capture_gate(&self) -> std::sync::RwLockWriteGuard<'_, ()> {
        self.tracking.capture_gate()
    }

    /// How many modules are loaded in this context now (loaded by cuprite and not yet
    /// unloaded: a module is unloaded when its last `Arc`, function or global handle drops).
    ///
    /// ```no_run
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let before = ctx.loaded_modules();
    /// let m = ctx.load_module(cuprite_driver::nvrtc::compile_ptx("extern \"C\" __global__ void k() {}")?)?;
    /// assert_eq!(ctx.loaded_modules(), before + 1);
    /// drop(m);
    /// assert_eq!(ctx.loaded_modules(), before);
    /// # Ok(()) }
    /// ```
    pub fn loaded_modules(&self) -> usize {
        self.modules.load(Ordering::Acquire)
    }

    /// A module was loaded (`true`) or unloaded (`false`) in this context.
    pub(crate) fn note_module(&self, loaded: bool) {
        if loaded {
            self.modules.fetch_add(1, Ordering::AcqRel);
        } else {
            self.modules.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// An event for tracking, from the pool or new (timing disabled). The caller bound the
    /// context.
    pub(crate) fn track_event(&self) -> Result<Arc<TrackEvent>> {
        let raw = self.events.take()?;
        Ok(Arc::new(TrackEvent::new(raw, self.arc())))
    }

    /// An event to record on a capturing stream: new, and destroyed (never pooled) when its
    /// last mark goes. The caller bound the context.
    pub(crate) fn capture_event(&self) -> Result<Arc<TrackEvent>> {
        let raw = EventPool::create()?;
        Ok(Arc::new(TrackEvent::for_capture(raw, self.arc())))
    }

    /// [`capture_event`](Self::capture_event) when `capturing`, else
    /// [`track_event`](Self::track_event).
    pub(crate) fn event_for(&self, capturing: bool) -> Result<Arc<TrackEvent>> {
        if capturing {
            self.capture_event()
        } else {
            self.track_event()
        }
    }
}

thread_local! {
    /// Whether this thread runs work of [`Context::outside_captures`] now (holding a context's
    /// capture gate).
    static OUTSIDE_CAPTURES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` marked as work of [`Context::outside_captures`] on this thread.
fn within_gate<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            OUTSIDE_CAPTURES.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(OUTSIDE_CAPTURES.with(|c| c.replace(true)));
    f()
}

/// What a wait in a `Drop` (for the work that used what it frees) came to.
#[derive(Debug)]
pub(crate) enum DropWait {
    /// The work is done.
    Done,
    /// A capture in progress refused the wait, which would have invalidated it: decided when
    /// it was refused, under the gate that keeps captures from beginning. Nothing failed;
    /// captured work may use what the drop frees until after the next context-wide
    /// synchronisation that succeeds ([`Context::after_next_sync`]).
    Refused,
    /// The wait failed: what the drop frees is leaked rather than freed under work that may
    /// still run, and the error is deferred.
    Failed(Error),
}

/// Work run after a context-wide synchronisation (see `Context::after_next_sync`).
pub(crate) type AfterSyncFn = Box<dyn FnOnce() -> Result<()> + Send>;
type AfterSync = (&'static str, AfterSyncFn);

impl Drop for Context {
    fn drop(&mut self) {
        // Nothing can report errors from here any more: the context itself is going away.
        // Finish its work first, so that no stream (of any context) still waits on one of its
        // events and no stream-ordered free of its memory is pending when it goes.
        // SAFETY: push/pop of a live context around a synchronize; the pop restores the stack.
        unsafe {
            if matches!(sys::cuCtxPushCurrent_v2(self.raw), Ok(r) if r.is_success()) {
                let _ = sys::cuCtxSynchronize();
                // What waited for a synchronisation runs now, the context current.
                let due =
                    std::mem::take(self.after_sync.get_mut().unwrap_or_else(|e| e.into_inner()));
                for (_, f) in due {
                    let _ = f();
                }
                let put_off = std::mem::take(
                    self.after_captures
                        .get_mut()
                        .unwrap_or_else(|e| e.into_inner()),
                );
                for (_, f) in put_off {
                    let _ = f();
                }
                let mut popped = std::ptr::null_mut();
                let _ = sys::cuCtxPopCurrent_v2(&mut popped);
            }
        }
        self.events.destroy_all();
        // Every buffer of the pool is gone (they hold the context) and its frees completed in
        // the synchronize above.
        self.pool.destroy_if_owned();
        if self.primary {
            // SAFETY: balances the cuDevicePrimaryCtxRetain of `Context::new`.
            let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(self.device.raw()) };
        } else {
            // SAFETY: the context was created by cuCtxCreate and is owned by this object.
            let _ = unsafe { sys::cuCtxDestroy_v2(self.raw) };
        }
    }
}

impl stack::sealed::Sealed for Context {}

impl ContextHandle for Context {
    fn raw_context(&self) -> CUcontext {
        self.raw
    }
}

impl stack::sealed::Sealed for Arc<Context> {}

impl ContextHandle for Arc<Context> {
    fn raw_context(&self) -> CUcontext {
        self.raw
    }
}
