//! Stream tracking of buffers: the [`Tracker`] each allocation carries, the [`DeviceRead`] /
//! [`DeviceWrite`] traits through which launches and copies reach buffers and views, and the
//! access API on [`Stream`] ([`Stream::begin_access`], [`Stream::end_access`]).
//!
//! This module decides which events to wait for and to record; it must not allocate or copy.

use crate::context::Context;
use crate::context::event_pool::TrackEvent;
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::{CUdeviceptr, CUevent};
use std::fmt;
use std::sync::{Arc, Mutex};

#[derive(Clone)]
struct Mark {
    stream: u64,
    event: Arc<TrackEvent>,
    /// The stream capture the event was recorded in (0: none); see `crate::capture`.
    capture: u64,
}

#[derive(Default)]
struct TrackState {
    /// Whether this tracker was touched since its context entered multi-stream mode. Before
    /// that, its only pending work was on the first stream and the switch synchronised it.
    init: bool,
    writer: Option<Mark>,
    readers: Vec<Mark>,
}

/// The stream-tracking state of one allocation, shared by all views of it: its last writer and
/// its pending readers per stream. Touched only while its context is in multi-stream mode.
pub struct Tracker {
    ctx: Arc<Context>,
    state: Mutex<TrackState>,
}

impl fmt::Debug for Tracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (w, r) = self
            .state
            .lock()
            .map(|s| (s.writer.as_ref().map(|m| m.stream), s.readers.len()))
            .unwrap_or((None, 0));
        f.debug_struct("Tracker")
            .field("last_writer_stream", &w)
            .field("pending_reader_streams", &r)
            .finish()
    }
}

impl Tracker {
    /// A tracker for a new allocation of `ctx`, with no pending work.
    pub fn new(ctx: Arc<Context>) -> Tracker {
        // Created in multi-stream mode: every access to it will be tracked from the start.
        let init = ctx.is_multi_stream();
        Tracker {
            ctx,
            state: Mutex::new(TrackState {
                init,
                ..TrackState::default()
            }),
        }
    }

    /// The context of the tracked allocation.
    #[inline]
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, TrackState>> {
        self.state
            .lock()
            .map_err(|_| Error::InvalidArgument("buffer tracker lock poisoned".into()))
    }

    /// How many streams currently have a pending read recorded (for tests and diagnostics).
    pub fn pending_reader_streams(&self) -> usize {
        self.state.lock().map(|s| s.readers.len()).unwrap_or(0)
    }

    /// Whether a last writer is recorded (only ever in multi-stream mode).
    pub fn has_recorded_writer(&self) -> bool {
        self.state
            .lock()
            .map(|s| s.writer.is_some())
            .unwrap_or(false)
    }
}

/// Device memory that work on a stream may read: [`DeviceBuffer`](crate::DeviceBuffer),
/// [`DeviceView`](crate::DeviceView), [`DeviceViewMut`](crate::DeviceViewMut), managed and
/// mapped pinned memory.
pub trait DeviceRead<T> {
    /// The device address of the first element.
    fn device_ptr(&self) -> CUdeviceptr;
    /// The number of elements.
    fn len(&self) -> usize;
    /// The tracker of the underlying allocation (shared by all views of it).
    fn tracker(&self) -> &Tracker;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The size in bytes.
    fn num_bytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }
}

/// Device memory that work on a stream may write. Taking `&mut` of it is what proves no one
/// else reads it on the host side of Rust's borrow rules; the tracker orders the device side.
pub trait DeviceWrite<T>: DeviceRead<T> {
    /// The device address of the first element, for writing.
    fn device_ptr_mut(&mut self) -> CUdeviceptr {
        self.device_ptr()
    }
}

/// One declared access of enqueued work to a buffer: read or write.
///
/// ```no_run
/// # fn main() -> cuprite::Result<()> {
/// use cuprite::{Access, Context};
/// let ctx = Context::new(0)?;
/// let s = ctx.default_stream();
/// let a = s.alloc_zeros::<f32>(256)?;
/// let mut b = s.alloc_zeros::<f32>(256)?;
/// let acc = [Access::read(&a), Access::write(&b)];
/// s.begin_access(&acc)?;
/// // ... enqueue foreign work on s.raw() that reads a and writes b ...
/// s.end_access(&acc)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Access<'a> {
    tracker: &'a Tracker,
    write: bool,
}

impl<'a> Access<'a> {
    /// The work reads `buf`.
    #[inline]
    pub fn read<T, B: DeviceRead<T> + ?Sized>(buf: &'a B) -> Self {
        Access {
            tracker: buf.tracker(),
            write: false,
        }
    }

    /// The work writes (and may read) `buf`.
    #[inline]
    pub fn write<T, B: DeviceWrite<T> + ?Sized>(buf: &'a B) -> Self {
        Access {
            tracker: buf.tracker(),
            write: true,
        }
    }

    /// An access to whatever `tracker` tracks.
    #[inline]
    pub fn of_tracker(tracker: &'a Tracker, write: bool) -> Self {
        Access { tracker, write }
    }

    /// Whether this is a write.
    pub fn is_write(&self) -> bool {
        self.write
    }
}

impl Stream {
    /// Declares that work about to be enqueued on this stream accesses these buffers: makes the
    /// stream wait (on the device) for the conflicting work on other streams: the last writer
    /// before a read; the last writer and every pending reader before a write. Call
    /// [`end_access`](Self::end_access) with the same list after enqueuing.
    ///
    /// While the buffers' contexts have used only this one stream, this is two relaxed atomic
    /// loads per access: no lock, no allocation, no event.
    #[inline]
    pub fn begin_access(&self, accesses: &[Access<'_>]) -> Result<()> {
        let sid = self.track_id();
        let mut multi = false;
        for a in accesses {
            multi |= a.tracker.ctx.note_stream(sid)?;
        }
        if multi {
            self.begin_access_slow(sid, accesses)
        } else {
            Ok(())
        }
    }

    /// Completes [`begin_access`](Self::begin_access) after the work was enqueued: in
    /// multi-stream mode records one event here and notes it as each buffer's last writer or as
    /// this stream's pending read. In single-stream mode: one relaxed load per access.
    #[inline]
    pub fn end_access(&self, accesses: &[Access<'_>]) -> Result<()> {
        if accesses.iter().all(|a| !a.tracker.ctx.is_multi_stream()) {
            return Ok(());
        }
        self.end_access_slow(accesses)
    }

    /// Runs `enqueue` between [`begin_access`](Self::begin_access) and
    /// [`end_access`](Self::end_access).
    pub fn with_access<R>(
        &self,
        accesses: &[Access<'_>],
        enqueue: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        self.begin_access(accesses)?;
        let r = enqueue()?;
        self.end_access(accesses)?;
        Ok(r)
    }

    #[cold]
    fn begin_access_slow(&self, sid: u64, accesses: &[Access<'_>]) -> Result<()> {
        let mut waited: [CUevent; 8] = [std::ptr::null_mut(); 8];
        let mut n_waited = 0usize;
        // The capture this stream is in (0: none); waits never cross a capture boundary.
        let mut capture = crate::capture::capture_of(sid);
        let mut wait = |m: &Mark| -> Result<()> {
            if !crate::capture::may_wait(&mut capture, sid, self.raw(), m.capture, &m.event) {
                return Ok(());
            }
            let ev = m.event.raw;
            if waited[..n_waited.min(8)].contains(&ev) {
                return Ok(());
            }
            crate::stats::count_stream_wait();
            // SAFETY: a live stream and an event kept alive by the tracker's mark.
            unsafe { drv!(cuStreamWaitEvent(self.raw(), ev, 0)) }?;
            if n_waited < 8 {
                waited[n_waited] = ev;
            }
            n_waited += 1;
            Ok(())
        };
        for a in accesses {
            let ctx = &a.tracker.ctx;
            if !ctx.is_multi_stream() {
                continue;
            }
            let mut st = a.tracker.lock()?;
            if !st.init {
                ctx.wait_settled()?;
                st.init = true;
            }
            if let Some(w) = &st.writer {
                if w.stream != sid {
                    wait(w)?;
                }
            }
            if a.write {
                for r in &st.readers {
                    if r.stream != sid {
                        wait(r)?;
                    }
                }
            }
        }
        Ok(())
    }

    #[cold]
    fn end_access_slow(&self, accesses: &[Access<'_>]) -> Result<()> {
        // The work is already enqueued: a deferred error must not stop it from being recorded
        // (the next call reports that error).
        self.context().bind_to_thread_no_deferred()?;
        let sid = self.track_id();
        let event = self.context().track_event()?;
        // SAFETY: a live event of this stream's context and a live stream.
        unsafe { drv!(cuEventRecord(event.raw, self.raw())) }?;
        let mark = Mark {
            stream: sid,
            event,
            capture: crate::capture::capture_of(sid),
        };
        for a in accesses {
            let ctx = &a.tracker.ctx;
            if !ctx.is_multi_stream() {
                continue;
            }
            let mut st = a.tracker.lock()?;
            if !st.init {
                ctx.wait_settled()?;
                st.init = true;
            }
            if a.write {
                st.writer = Some(mark.clone());
                st.readers.clear();
            } else if let Some(r) = st.readers.iter_mut().find(|r| r.stream == sid) {
                *r = mark.clone();
            } else {
                st.readers.push(mark.clone());
            }
        }
        Ok(())
    }
}
