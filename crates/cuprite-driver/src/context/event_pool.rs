//! The events that stream tracking records: created once per context and reused, so that
//! steady-state tracking creates no events. Owns the free list and the [`TrackEvent`] handle
//! that returns its event to the list when the last mark naming it is dropped. It never records
//! or waits: the tracker and the stream code do.

use crate::drv;
use crate::error::Result;
use cuprite_sys::driver::{self as sys, CUevent};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What owns an [`EventPool`] and must stay alive while one of its events is in use (the
/// context: destroying it would destroy the events).
pub(crate) trait EventSource: Send + Sync {
    /// The pool events go back to.
    fn event_pool(&self) -> &EventPool;
}

struct EventHandle(CUevent);
// SAFETY: a driver handle usable from any thread.
unsafe impl Send for EventHandle {}

/// The idle tracking events of one context.
#[derive(Default)]
pub(crate) struct EventPool {
    free: Mutex<Vec<EventHandle>>,
}

impl std::fmt::Debug for EventPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.free.lock().map(|v| v.len()).unwrap_or(0);
        f.debug_struct("EventPool").field("idle", &n).finish()
    }
}

impl EventPool {
    /// An idle event, or a new one (timing disabled) in the current context, which the caller
    /// made the pool's own.
    pub(crate) fn take(&self) -> Result<CUevent> {
        if let Some(h) = self.free.lock().ok().and_then(|mut p| p.pop()) {
            return Ok(h.0);
        }
        Self::create()
    }

    /// A new event (timing disabled) in the current context, not taken from the pool.
    pub(crate) fn create() -> Result<CUevent> {
        let mut ev = std::ptr::null_mut();
        // SAFETY: valid out-pointer and flags; the caller bound the context.
        unsafe {
            drv!(cuEventCreate(
                &mut ev,
                sys::CUevent_flags::CU_EVENT_DISABLE_TIMING.0
            ))
        }?;
        Ok(ev)
    }

    fn give_back(&self, raw: CUevent) {
        if let Ok(mut pool) = self.free.lock() {
            pool.push(EventHandle(raw));
        }
    }

    /// Destroys every idle event (the context is going away; none is in use any more).
    pub(crate) fn destroy_all(&mut self) {
        if let Ok(pool) = self.free.get_mut() {
            for h in pool.drain(..) {
                // SAFETY: pooled events belong to this pool's context and nothing refers to
                // them any more.
                let _ = unsafe { sys::cuEventDestroy_v2(h.0) };
            }
        }
    }
}

/// A driver event used by stream tracking; returned to its context's pool when the last mark
/// that names it is dropped. It keeps its context alive.
pub(crate) struct TrackEvent {
    pub(crate) raw: CUevent,
    owner: Arc<dyn EventSource>,
    /// Whether `raw` goes back to the pool when dropped (else it is destroyed).
    pooled: bool,
    /// Tracking ids of streams (never 0) that, while not capturing, were made to wait for this
    /// recording of `raw`: their later work is ordered after it, so they need not wait again.
    /// Valid for the life of this handle, since `raw` is recorded once per handle: a pooled
    /// event is recorded again only under a new handle. Full slots only mean no more are noted.
    waited_by: [AtomicU64; WAITED_SLOTS],
}

/// Streams a [`TrackEvent`] remembers as having waited for it.
const WAITED_SLOTS: usize = 4;

impl TrackEvent {
    /// Wraps `raw`, taken from `owner`'s pool.
    pub(crate) fn new(raw: CUevent, owner: Arc<dyn EventSource>) -> TrackEvent {
        TrackEvent {
            raw,
            owner,
            pooled: true,
            waited_by: Default::default(),
        }
    }

    /// Wraps `raw`, an event of `owner`'s context that is recorded in a stream capture: it is
    /// destroyed when dropped, never pooled. The driver keeps capture state with an event
    /// recorded in a capture; a pooled event could be recorded again by another thread while
    /// the capture it was recorded in is still being ended, which the driver does not guard.
    pub(crate) fn for_capture(raw: CUevent, owner: Arc<dyn EventSource>) -> TrackEvent {
        TrackEvent {
            raw,
            owner,
            pooled: false,
            waited_by: Default::default(),
        }
    }

    /// Whether the stream with tracking id `sid`, outside any capture, was already made to
    /// wait for this recording (see [`note_waited`](Self::note_waited)).
    #[inline]
    pub(crate) fn waited_by(&self, sid: u64) -> bool {
        sid != 0
            && self
                .waited_by
                .iter()
                .any(|w| w.load(Ordering::Acquire) == sid)
    }

    /// Forgets the streams that waited for the last recording of `raw`, before it is recorded
    /// again under this handle (only by a [`LaunchCell`](crate::memory::tracker::LaunchCell)
    /// holding the handle alone: no stream can be noting a wait meanwhile).
    pub(crate) fn forget_waits(&mut self) {
        for w in &mut self.waited_by {
            *w.get_mut() = 0;
        }
    }

    /// Notes that the stream `sid` was made to wait for this recording by a
    /// `cuStreamWaitEvent` enqueued (returned) while it was not capturing. Call only then: a
    /// capturing stream's wait is an edge of its graph, not an order of the stream's later
    /// work. The store is released after that call, so a thread that sees it enqueues after
    /// the wait.
    pub(crate) fn note_waited(&self, sid: u64) {
        if sid == 0 || self.waited_by(sid) {
            return;
        }
        for w in &self.waited_by {
            if w.compare_exchange(0, sid, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return;
            }
        }
    }
}

impl Drop for TrackEvent {
    fn drop(&mut self) {
        if self.pooled {
            self.owner.event_pool().give_back(self.raw);
        } else {
            // SAFETY: the event is this handle's alone (made for one capture, never pooled),
            // and its context is alive (`owner`). The driver defers the release of an event
            // still pending on the device.
            let _ = unsafe { cuprite_sys::driver::cuEventDestroy_v2(self.raw) };
        }
    }
}

// SAFETY: a CUevent is a driver handle usable from any thread.
unsafe impl Send for TrackEvent {}
// SAFETY: as above; the handle is only passed to thread-safe driver calls.
unsafe impl Sync for TrackEvent {}
