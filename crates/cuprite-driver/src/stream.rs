//! Streams: the default and per-thread streams, owned streams (with priorities), foreign
//! streams wrapped without ownership, dependencies between streams (`fork`, `join`, `wait`),
//! and Rust closures run on a stream (`launch_host_fn`).
//!
//! This module owns stream handles and stream-to-stream ordering (`join` and `wait` live in
//! `event.rs`, beside the capture registry they update). Copies and allocations on a stream
//! live in `memory/`; the access-tracking API (`begin_access`/`end_access`) in
//! `memory/track.rs`.

use crate::context::{Context, DropWait, next_id};
use crate::drv;
use crate::error::{Error, Result};
use cuprite_sys::driver::{self as sys, CUstream};
use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, OnceLock, Weak};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The legacy null stream.
    Default,
    /// `CU_STREAM_PER_THREAD`: a different stream in each thread.
    PerThread,
    /// Created here, destroyed on drop.
    Owned,
    /// Wrapped with `from_raw`; never destroyed here.
    Foreign,
}

/// A CUDA stream of one [`Context`]: work enqueued on it runs in order. Shared as `Arc<Stream>`,
/// `Send + Sync`.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let a = ctx.default_stream();
/// let b = a.fork()?; // b first waits for everything already on a
/// let x = b.clone_htod(&[1u32, 2, 3])?;
/// a.join(&b)?; // a waits for what b has so far
/// assert_eq!(a.clone_dtoh(&x)?, vec![1, 2, 3]);
/// # Ok(()) }
/// ```
pub struct Stream {
    raw: CUstream,
    ctx: Arc<Context>,
    id: u64,
    kind: Kind,
}

// SAFETY: a CUstream handle may be used from any thread; the driver API is thread-safe.
unsafe impl Send for Stream {}
// SAFETY: as above; the struct has no interior mutability.
unsafe impl Sync for Stream {}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream")
            .field("raw", &self.raw)
            .field("kind", &self.kind)
            .field("id", &self.id)
            .field("device", &self.ctx.ordinal())
            .finish()
    }
}

thread_local! {
    static THREAD_ID: u64 = next_id();
}

impl Context {
    /// The default (legacy, null) stream of this context. Every call returns a handle to the
    /// same stream (tracking sees one stream).
    pub fn default_stream(&self) -> Arc<Stream> {
        Arc::new(Stream::default_of(self.arc(), self.special_stream_ids().0))
    }

    /// The per-thread default stream (`CU_STREAM_PER_THREAD`): one stream per calling thread.
    /// Work enqueued on it from two threads goes to two different streams, and tracking treats
    /// them as such.
    pub fn per_thread_stream(&self) -> Arc<Stream> {
        Arc::new(Stream::per_thread_of(
            self.arc(),
            self.special_stream_ids().1,
        ))
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
}

impl Stream {
    fn default_of(ctx: Arc<Context>, id: u64) -> Stream {
        Stream {
            raw: std::ptr::null_mut(),
            ctx,
            id,
            kind: Kind::Default,
        }
    }

    fn per_thread_of(ctx: Arc<Context>, id: u64) -> Stream {
        Stream {
            raw: sys::CU_STREAM_PER_THREAD,
            ctx,
            id,
            kind: Kind::PerThread,
        }
    }

    fn create(ctx: Arc<Context>, priority: Option<i32>) -> Result<Arc<Stream>> {
        ctx.bind_to_thread()?;
        let mut raw = std::ptr::null_mut();
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING.0;
        match priority {
            // SAFETY: valid out-pointer and flags; the context is current.
            None => unsafe { drv!(cuStreamCreate(&mut raw, flags)) }?,
            // SAFETY: as above; any priority is clamped by the driver.
            Some(p) => unsafe { drv!(cuStreamCreateWithPriority(&mut raw, flags, p)) }?,
        }
        Ok(Arc::new(Stream {
            raw,
            ctx,
            id: next_id(),
            kind: Kind::Owned,
        }))
    }

    /// Wraps a stream owned elsewhere (another library, a `CUstream` from C). It is never
    /// destroyed by cuprite. A null handle (or `CU_STREAM_LEGACY`) is the context's default
    /// stream, and `CU_STREAM_PER_THREAD` its per-thread stream; each other wrap counts as its
    /// own stream for tracking (wrapping the same handle twice is safe, only slower).
    ///
    /// Buffers allocated on the wrapper are freed on it (stream-ordered) when they drop: move
    /// those that may outlive the foreign stream to a stream of cuprite's first, with
    /// [`DeviceBuffer::set_stream`](crate::DeviceBuffer::set_stream).
    ///
    /// # Safety
    ///
    /// `raw` must be a stream of `ctx` (or null / a special handle) and stay valid as long as
    /// the returned `Stream` and everything enqueued through it are in use.
    pub unsafe fn from_raw(ctx: &Arc<Context>, raw: CUstream) -> Arc<Stream> {
        if raw.is_null() || raw == sys::CU_STREAM_LEGACY {
            return ctx.default_stream();
        }
        if raw == sys::CU_STREAM_PER_THREAD {
            return ctx.per_thread_stream();
        }
        Arc::new(Stream {
            raw,
            ctx: ctx.clone(),
            id: next_id(),
            kind: Kind::Foreign,
        })
    }

    /// The driver's handle (null for the default stream).
    #[inline]
    pub fn raw(&self) -> CUstream {
        self.raw
    }

    /// The context this stream belongs to.
    #[inline]
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// Whether this is the context's default (null) stream.
    pub fn is_default(&self) -> bool {
        self.kind == Kind::Default
    }

    /// Whether this is the per-thread default stream.
    pub fn is_per_thread(&self) -> bool {
        self.kind == Kind::PerThread
    }

    /// Whether this wraps a stream owned elsewhere ([`Stream::from_raw`]): holding this `Arc`
    /// does not keep the driver's stream alive, so memory that must outlive the owner's stream
    /// is best moved to a stream of cuprite's with [`DeviceBuffer::set_stream`](crate::DeviceBuffer::set_stream).
    pub fn is_foreign(&self) -> bool {
        self.kind == Kind::Foreign
    }

    /// Whether cuprite created this stream and destroys it when dropped.
    #[inline]
    pub(crate) fn is_owned(&self) -> bool {
        self.kind == Kind::Owned
    }

    /// The identity stream tracking uses: the stream's own id, or for the per-thread stream one
    /// id per (thread, context).
    #[inline]
    pub(crate) fn track_id(&self) -> u64 {
        if self.kind == Kind::PerThread {
            let t = THREAD_ID.with(|t| *t);
            (1 << 63) | (t << 24) | (self.ctx.id() & 0xff_ffff)
        } else {
            self.id
        }
    }

    /// A new stream that first waits for all work already enqueued here, at the same priority.
    #[doc(alias = "fork_default_stream")]
    pub fn fork(&self) -> Result<Arc<Stream>> {
        let prio = self.priority()?;
        let s = Stream::create(self.ctx.clone(), Some(prio))?;
        s.join(self)?;
        Ok(s)
    }

    /// Blocks the host until all work on this stream is done.
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.bind_to_thread()?;
        crate::stats::count_host_sync();
        // SAFETY: a live stream.
        unsafe { drv!(cuStreamSynchronize(self.raw)) }
    }

    /// [`synchronize`](Self::synchronize) for `Drop` paths: binds without returning deferred
    /// errors (another operation's), and is [refused](DropWait::Refused), waiting for nothing,
    /// while this stream is capturing (the driver would refuse the wait and invalidate the
    /// capture). No capture begins between the check and the wait.
    pub(crate) fn synchronize_for_drop(&self) -> DropWait {
        let r = (|| -> Result<bool> {
            self.ctx.bind_to_thread_no_deferred()?;
            let _gate = self.ctx.no_capture_begins();
            let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
            // SAFETY: a live stream of the current context; `status` is a valid out-pointer.
            unsafe { drv!(cuStreamIsCapturing(self.raw, &mut status)) }?;
            if status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
                return Ok(false);
            }
            crate::stats::count_host_sync();
            // SAFETY: a live stream of the current context.
            unsafe { drv!(cuStreamSynchronize(self.raw)) }?;
            Ok(true)
        })();
        match r {
            Ok(true) => DropWait::Done,
            Ok(false) => DropWait::Refused,
            Err(e) => DropWait::Failed(e),
        }
    }

    /// Whether all work enqueued here is done (`cuStreamQuery`), without blocking.
    pub fn is_idle(&self) -> Result<bool> {
        self.ctx.bind_to_thread()?;
        // SAFETY: a live stream.
        match unsafe { drv!(cuStreamQuery(self.raw)) } {
            Ok(()) => Ok(true),
            Err(e) if e.code() == Some(sys::CUresult::CUDA_ERROR_NOT_READY) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// This stream's priority (lower is higher priority).
    pub fn priority(&self) -> Result<i32> {
        self.ctx.bind_to_thread()?;
        let mut p = 0;
        // SAFETY: valid out-pointer and live stream.
        unsafe { drv!(cuStreamGetPriority(self.raw, &mut p)) }?;
        Ok(p)
    }

    /// Runs `f` on a driver thread once all work enqueued before it here is done; work enqueued
    /// after it waits for it. A panic in `f` is caught (it never unwinds into the driver) and
    /// returned by the context's next fallible call as [`Error::Deferred`].
    ///
    /// `f` must not call CUDA (the driver forbids it in host functions): every cuprite call
    /// that would reach the driver from inside `f` returns an `Err` without calling it, and a
    /// cuprite object dropped there (its last owner being `f`) leaks what its drop would free. On a stream that is capturing a graph
    /// (or whose capture was invalidated) it is an `Err` and nothing is enqueued: a host
    /// function captured into a graph would run at every launch of it, and `f` runs once.
    ///
    /// ```no_run
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.new_stream()?;
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// s.launch_host_fn(move || tx.send(42).unwrap())?;
    /// s.synchronize()?;
    /// assert_eq!(rx.recv().unwrap(), 42);
    /// # Ok(()) }
    /// ```
    pub fn launch_host_fn<F: FnOnce() + Send + 'static>(&self, f: F) -> Result<()> {
        self.ctx.bind_to_thread()?;
        let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: `status` is a valid out-pointer and the stream is live; the query is allowed
        // during a capture and changes nothing.
        unsafe { drv!(cuStreamIsCapturing(self.raw, &mut status)) }?;
        if status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
            return Err(Error::InvalidArgument(
                "Stream::launch_host_fn: the stream is capturing a graph; a host function \
                 captured into it would run at every launch of the graph, and its closure runs \
                 once (enqueue it after the capture ends)"
                    .into(),
            ));
        }
        let payload = Box::new(HostFn {
            f: Box::new(f),
            ctx: Arc::downgrade(&self.ctx),
        });
        let p = Box::into_raw(payload);
        // SAFETY: the trampoline takes back ownership of `p` exactly once, when the driver runs
        // it; it never unwinds.
        let r = unsafe {
            drv!(cuLaunchHostFunc(
                self.raw,
                Some(host_fn_trampoline),
                p.cast()
            ))
        };
        if r.is_err() {
            // SAFETY: the driver refused the call, so it will never run the trampoline; we still
            // own `p`.
            drop(unsafe { Box::from_raw(p) });
        }
        r
    }
}

struct HostFn {
    f: Box<dyn FnOnce() + Send>,
    ctx: Weak<Context>,
}

unsafe extern "C" fn host_fn_trampoline(p: *mut c_void) {
    // SAFETY: `p` came from Box::into_raw in launch_host_fn and the driver runs this once.
    let payload = unsafe { Box::from_raw(p.cast::<HostFn>()) };
    let HostFn { f, ctx } = *payload;
    // Driver calls made by `f`, or by drops it causes, are refused while it runs.
    let ran =
        crate::host_fn::run_marked(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    if let Err(panic) = ran {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-string payload".to_string());
        if let Some(ctx) = ctx.upgrade() {
            ctx.defer(
                "host function launched with Stream::launch_host_fn",
                Error::HostFnPanicked { message: msg },
            );
        }
    }
}

/// What a dropped stream tells the capture registry (`crate::capture` sets it when the first
/// capture begins, so that this module depends on nothing above it): given the stream's track
/// id, it takes the stream out of every capture it joined, and says whether the stream began a
/// capture still in progress, which the drop then ends.
pub(crate) static CAPTURE_DROP_HOOK: OnceLock<fn(u64) -> bool> = OnceLock::new();

/// What a dropping stream cuprite owns runs before it is destroyed, set by the launch-cell
/// tracker when it makes the first cell that may owe a recording (so that this module depends
/// on nothing above it; unset, no cell can owe one): given the stream's track id and handle,
/// it records the stream's owed cells and closes them.
pub(crate) static CELL_DEBT_HOOK: OnceLock<fn(u64, sys::CUstream) -> Result<()>> = OnceLock::new();

impl Drop for Stream {
    fn drop(&mut self) {
        // A stream that joined a capture leaves it; one that began a capture ends it, and the
        // graph (or the driver's refusal of an unfinished one) is discarded: the registry
        // never names a destroyed stream.
        if CAPTURE_DROP_HOOK
            .get()
            .is_some_and(|leave_all| leave_all(self.track_id()))
        {
            drop(self.end_capture());
        }
        if self.kind == Kind::Owned {
            // The launch cells of this stream that owe a recording are recorded while the
            // stream still exists (their marks may still be waited for).
            let debts = CELL_DEBT_HOOK
                .get()
                .map_or(Ok(()), |close| close(self.track_id(), self.raw));
            if let Err(e) = debts {
                self.ctx
                    .defer("a launch cell's recording as its Stream drops", e);
            }
            // Work still enqueued completes; the driver releases the stream afterwards.
            // SAFETY: this object created the stream and is its only owner.
            if let Err(e) = unsafe { drv!(cuStreamDestroy_v2(self.raw)) } {
                self.ctx.defer("cuStreamDestroy of a Stream", e);
            }
        }
    }
}
