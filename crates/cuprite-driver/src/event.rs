//! Events: markers recorded on a stream, to wait for, query, or time.
//!
//! This module owns user-visible events and the stream calls that wait through one
//! ([`Stream::wait`], [`Stream::join`], [`Stream::record_event`]): a wait for captured work
//! makes the waiting stream a member of that capture (`capture.rs`). The events that stream
//! tracking records internally are pooled per context (`context/event_pool.rs`) and never
//! exposed.

use crate::context::Context;
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUevent};
use std::sync::{Arc, Mutex, MutexGuard};

/// Flags of an event (`CUevent_flags`).
///
/// ```
/// use cuprite_driver::EventFlags;
/// let f = EventFlags::BLOCKING_SYNC | EventFlags::DISABLE_TIMING;
/// assert!(f.contains(EventFlags::DISABLE_TIMING));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct EventFlags(u32);

impl EventFlags {
    /// Timing on, spin-wait on synchronize.
    pub const DEFAULT: EventFlags = EventFlags(0);
    /// `synchronize` blocks the thread instead of spinning.
    pub const BLOCKING_SYNC: EventFlags = EventFlags(1);
    /// No timing data (cheaper to record and wait on).
    pub const DISABLE_TIMING: EventFlags = EventFlags(2);
    /// Usable across processes (needs `DISABLE_TIMING`).
    pub const INTERPROCESS: EventFlags = EventFlags(4);

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }
    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: EventFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for EventFlags {
    type Output = EventFlags;
    fn bitor(self, rhs: Self) -> Self {
        EventFlags(self.0 | rhs.0)
    }
}

/// A CUDA event.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// use cuprite_driver::{Context, Event, EventFlags};
/// let ctx = Context::new(0)?;
/// let s = ctx.default_stream();
/// let start = Event::new(&ctx, EventFlags::DEFAULT)?;
/// let end = Event::new(&ctx, EventFlags::DEFAULT)?;
/// start.record(&s)?;
/// let _x = s.alloc_zeros::<f32>(1 << 20)?;
/// end.record(&s)?;
/// end.synchronize()?;
/// println!("{} ms", start.elapsed_ms(&end)?);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Event {
    raw: CUevent,
    ctx: Arc<Context>,
    flags: EventFlags,
    /// The capture its last recording was made in (0: none). Held locked across each
    /// recording and each wait on it, so that a wait sees the capture of the recording it
    /// waits for, and the waiting stream joins that capture (see [`Stream::wait`]).
    recorded_in: Mutex<u64>,
}

// SAFETY: a CUevent may be used from any thread; the driver API is thread-safe.
unsafe impl Send for Event {}
// SAFETY: as above; no interior mutability here.
unsafe impl Sync for Event {}

impl Event {
    /// A new event of `ctx`.
    pub fn new(ctx: &Arc<Context>, flags: EventFlags) -> Result<Event> {
        ctx.bind_to_thread()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the flags are driver flag bits.
        unsafe { drv!(cuEventCreate(&mut raw, flags.bits())) }?;
        Ok(Event {
            raw,
            ctx: ctx.clone(),
            flags,
            recorded_in: Mutex::new(0),
        })
    }

    /// The driver's handle.
    pub fn raw(&self) -> CUevent {
        self.raw
    }

    /// The flags it was created with.
    pub fn flags(&self) -> EventFlags {
        self.flags
    }

    /// The context it belongs to.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// Records the event at the current end of `stream`'s work. The stream must belong to the
    /// event's context (the driver records nothing across contexts): for another context,
    /// record an event of the stream's own context and wait on that one, from any context
    /// ([`Stream::wait`], [`Stream::join`]).
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if stream.context().raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(format!(
                "Event::record: the event belongs to the context {:?} of device {}, the stream to \
                 the context {:?} of device {}; an event can only be recorded on a stream of its \
                 own context (record one of the stream's context instead: Stream::wait and \
                 Stream::join work across contexts)",
                self.ctx.raw(),
                self.ctx.ordinal(),
                stream.context().raw(),
                stream.context().ordinal()
            )));
        }
        self.ctx.bind_to_thread()?;
        let mut recorded_in = self.recorded_in();
        // SAFETY: live event and stream.
        unsafe { drv!(cuEventRecord(self.raw, stream.raw())) }?;
        *recorded_in = crate::capture::capture_of(stream.track_id());
        Ok(())
    }

    /// The capture of its last recording, locked (see `recorded_in`); a plain number, whole
    /// whatever a panic elsewhere left.
    fn recorded_in(&self) -> MutexGuard<'_, u64> {
        self.recorded_in.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks the host until the recorded work is done.
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.bind_to_thread()?;
        crate::stats::count_host_sync();
        // SAFETY: live event.
        unsafe { drv!(cuEventSynchronize(self.raw)) }
    }

    /// Whether the recorded work is done (true also when never recorded).
    pub fn query(&self) -> Result<bool> {
        self.ctx.bind_to_thread()?;
        // SAFETY: live event.
        match unsafe { drv!(cuEventQuery(self.raw)) } {
            Ok(()) => Ok(true),
            Err(e) if e.code() == Some(sys::CUresult::CUDA_ERROR_NOT_READY) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Milliseconds between this event and `end` (both recorded and complete, timing enabled).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        self.ctx.bind_to_thread()?;
        let mut ms = 0.0f32;
        // SAFETY: valid out-pointer and live events.
        unsafe { drv!(cuEventElapsedTime(&mut ms, self.raw, end.raw)) }?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: this object owns the event; pending waits on it stay valid (the driver
        // releases it once they complete).
        if let Err(e) = unsafe { drv!(cuEventDestroy_v2(self.raw)) } {
            self.ctx.defer("cuEventDestroy of an Event", e);
        }
    }
}

impl Stream {
    /// Makes this stream wait (on the device) for `event`'s last record. The event may belong
    /// to another context (of this device or another).
    ///
    /// When that record was made on a capturing stream (and the capture is still in progress),
    /// this stream joins the capture, as with [`join`](Self::join): its later work is captured
    /// into the same graph, which keeps what that work uses alive. A stream already in another
    /// capture is refused with an `Err`.
    pub fn wait(&self, event: &Event) -> Result<()> {
        self.context().bind_to_thread()?;
        let sid = self.track_id();
        // Held until the stream is registered: a recording on another thread waits, so the
        // capture read here is the one of the recording waited for.
        let recorded_in = event.recorded_in();
        let joins = crate::capture::prepare_join(sid, *recorded_in, "Stream::wait")?;
        crate::stats::count_stream_wait();
        // SAFETY: a live event and stream.
        unsafe { drv!(cuStreamWaitEvent(self.raw(), event.raw(), 0)) }?;
        crate::capture::join(joins, sid, self.raw());
        drop(recorded_in);
        Ok(())
    }

    /// Makes this stream wait (on the device, not the host) for all work enqueued on `other`
    /// so far. `other` may belong to another context (of this device or another): the event
    /// is recorded in `other`'s context and waited for in this one.
    ///
    /// When `other` is capturing (a capture begun with [`begin_capture`](Self::begin_capture)),
    /// this stream joins that capture, as CUDA's fork pattern does: its later work is captured
    /// into the same graph, which keeps what that work uses alive; the capture's
    /// [`end_capture`](Self::end_capture) joins it back. A stream already in another capture is
    /// refused with an `Err` (a wait across two captures would invalidate both).
    #[doc(alias = "wait_for")]
    pub fn join(&self, other: &Stream) -> Result<()> {
        let sid = self.track_id();
        let joins = crate::capture::prepare_join(
            sid,
            crate::capture::capture_of(other.track_id()),
            "Stream::join",
        )?;
        let octx = other.context();
        octx.bind_to_thread()?;
        let ev = octx.event_for(other.is_capturing()?)?;
        // SAFETY: a live event and stream of the same, current context.
        unsafe { drv!(cuEventRecord(ev.raw, other.raw())) }?;
        self.context().bind_to_thread()?;
        crate::stats::count_stream_wait();
        // SAFETY: a live stream of the current context and a live event, which the driver lets
        // come from another context.
        unsafe { drv!(cuStreamWaitEvent(self.raw(), ev.raw, 0)) }?;
        // From here the driver captures this stream's work into `other`'s capture.
        crate::capture::join(joins, sid, self.raw());
        Ok(())
    }

    /// Records a new event here (timing disabled unless `flags` ask otherwise) and returns it.
    pub fn record_event(&self, flags: EventFlags) -> Result<Event> {
        let ev = Event::new(self.context(), flags)?;
        ev.record(self)?;
        Ok(ev)
    }
}
