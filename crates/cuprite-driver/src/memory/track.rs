//! The stream tracker: the access API on [`Stream`] ([`Stream::begin_access`],
//! [`Stream::end_access`]) that launches, copies, frees and graph replays go through. It
//! decides which events to wait for and to record, and tells the capture registry what captured
//! work touched; it must not allocate or copy.

use super::tracker::{
    Access, CapturedMarks, Deferred, LaunchCell, Mark, MarkEvent, RawStream, TrackShared,
};
use crate::capture;
use crate::drv;
use crate::error::Result;
use crate::stream::Stream;
use cuprite_sys::driver::CUevent;
use std::sync::Arc;

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
            if a.shared.host_visible && !Arc::ptr_eq(&a.shared.ctx, self.context()) {
                return Err(foreign_host_memory(&a.shared.ctx, self));
            }
            multi |= a.shared.ctx.note_stream(sid)?;
        }
        if multi {
            self.begin_access_slow(sid, accesses.iter().map(|a| (&**a.shared, a.write)))?;
        }
        if accesses.iter().any(|a| a.shared.graph_alloc() != 0) {
            // Memory a capture's graph allocates exists only for that graph's work.
            check_graph_alloc(sid, accesses)?;
        }
        if capture::any_active() {
            // Captured work keeps what it touches alive for as long as its graph lives.
            capture::record(sid, accesses);
        }
        Ok(())
    }

    /// Orders this stream after every pending use of `shared` (before freeing its memory).
    pub(crate) fn wait_for_all_users(&self, shared: &TrackShared) -> Result<()> {
        let sid = self.track_id();
        if shared.ctx.note_stream(sid)? {
            self.begin_access_slow(sid, std::iter::once((shared, true)))?;
        }
        Ok(())
    }

    /// Completes [`begin_access`](Self::begin_access) after the work was enqueued: in
    /// multi-stream mode records one event here and notes it as each buffer's last writer or as
    /// this stream's pending read. In single-stream mode: one relaxed load per access.
    #[inline]
    pub fn end_access(&self, accesses: &[Access<'_>]) -> Result<()> {
        if accesses.iter().all(|a| !a.shared.ctx.is_multi_stream()) {
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
    fn begin_access_slow<'x>(
        &self,
        sid: u64,
        accesses: impl Iterator<Item = (&'x TrackShared, bool)>,
    ) -> Result<()> {
        let mut waited: [CUevent; 8] = [std::ptr::null_mut(); 8];
        let mut n_waited = 0usize;
        // The capture this stream is in (0: none); waits never cross a capture boundary.
        let mut capture = capture::capture_of(sid);
        let mut wait = |m: &Mark| -> Result<()> {
            let event = m.event.now()?;
            if !capture::may_wait(&mut capture, sid, self.raw(), m.capture, &event) {
                return Ok(());
            }
            // Outside any capture, a stream that already waited for this recording is ordered
            // after it for good (stream order); inside one, the wait is a graph edge and is
            // always made.
            let real = capture == 0 && m.capture == 0;
            if real && event.waited_by(sid) {
                return Ok(());
            }
            let ev = event.raw;
            if waited[..n_waited.min(8)].contains(&ev) {
                return Ok(());
            }
            crate::stats::count_stream_wait();
            // SAFETY: a live stream and an event kept alive by the tracker's mark.
            unsafe { drv!(cuStreamWaitEvent(self.raw(), ev, 0)) }?;
            if real {
                event.note_waited(sid);
            }
            if n_waited < 8 {
                waited[n_waited] = ev;
            }
            n_waited += 1;
            Ok(())
        };
        for (shared, write) in accesses {
            let ctx = &shared.ctx;
            if !ctx.is_multi_stream() {
                continue;
            }
            let mut st = shared.lock()?;
            if !st.init {
                ctx.wait_settled()?;
                st.init = true;
            }
            // Work that runs as enqueued: waited for outside a capture, remembered as a
            // pre-capture dependency of the graph inside one.
            if let Some(w) = &st.writer {
                if w.stream != sid {
                    wait(w)?;
                }
            }
            if write {
                for r in &st.readers {
                    if r.stream != sid {
                        wait(r)?;
                    }
                }
            }
            // Captured work: ordered among its capture's streams only (`may_wait` skips it for
            // other streams, and for streams of other threads than the capture's).
            let c = &st.captured;
            if c.capture != 0 {
                if let Some(w) = &c.writer {
                    if w.stream != sid {
                        wait(w)?;
                    }
                }
                if write {
                    for r in &c.readers {
                        if r.stream != sid {
                            wait(r)?;
                        }
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
        let capture = capture::capture_of(sid);
        let event = self.context().event_for(capture != 0)?;
        // SAFETY: a live event of this stream's context and a live stream.
        unsafe { drv!(cuEventRecord(event.raw, self.raw())) }?;
        let mark = Mark {
            stream: sid,
            event: MarkEvent::Fixed(event),
            capture,
        };
        for a in accesses {
            let ctx = &a.shared.ctx;
            if !ctx.is_multi_stream() {
                continue;
            }
            let mut guard = a.shared.lock()?;
            let st = &mut *guard;
            if !st.init {
                ctx.wait_settled()?;
                st.init = true;
            }
            // Captured work does not run now: its marks never replace those of real work.
            let (writer, readers) = if capture == 0 {
                (&mut st.writer, &mut st.readers)
            } else {
                if st.captured.capture != capture {
                    st.captured = CapturedMarks {
                        capture,
                        ..CapturedMarks::default()
                    };
                }
                (&mut st.captured.writer, &mut st.captured.readers)
            };
            note_use(writer, readers, &mark, a.write);
            a.shared.bump_version();
        }
        Ok(())
    }

    /// [`end_access`](Self::end_access) for the launch of an executable graph on this stream,
    /// outside any capture (the caller checked): `cell` (this stream's cell of that graph,
    /// already recorded after the launch when `recorded`) is recorded, and every mark written
    /// names it. `versions` gets, per access, the version its tracker has after this (a tracker
    /// declared twice: the later one). Returns `None` when no marks were written (the context
    /// is in single-stream mode), else whether every buffer read has no last writer naming
    /// another cell (whose recordings would stand for new writes without a new version): only
    /// then does a launch of the same set that skips unchanged trackers wait for all it must.
    pub(crate) fn end_access_latest(
        &self,
        accesses: &[Access<'_>],
        cell: &Arc<LaunchCell>,
        recorded: bool,
        versions: &mut Vec<u64>,
    ) -> Result<Option<bool>> {
        versions.clear();
        if accesses.iter().any(|a| !a.shared.ctx.is_multi_stream()) {
            // Single-stream mode (all of them, one context): no marks. Mixed cannot be: the
            // caller's buffers all belong to the stream's context.
            self.end_access(accesses)?;
            return Ok(None);
        }
        self.context().bind_to_thread_no_deferred()?;
        if !recorded {
            self.record_cell(cell)?;
        }
        let sid = self.track_id();
        let mark = Mark {
            stream: sid,
            event: MarkEvent::Latest(cell.clone()),
            capture: 0,
        };
        let mut clean = true;
        for a in accesses {
            let mut guard = a.shared.lock()?;
            let st = &mut *guard;
            if !st.init {
                a.shared.ctx.wait_settled()?;
                st.init = true;
            }
            note_use(&mut st.writer, &mut st.readers, &mark, a.write);
            if let Some(Mark {
                event: MarkEvent::Latest(c),
                ..
            }) = &st.writer
            {
                clean &= Arc::ptr_eq(c, cell);
            }
            versions.push(a.shared.bump_version());
        }
        for i in 0..accesses.len() {
            for j in i + 1..accesses.len() {
                if Arc::ptr_eq(accesses[i].shared, accesses[j].shared) {
                    versions[i] = versions[i].max(versions[j]);
                }
            }
        }
        Ok(Some(clean))
    }

    /// Records `cell` (of this stream) after the work enqueued here so far: its event again when
    /// no one else holds it (waits already enqueued on it keep the recording they saw), else a
    /// fresh one from the pool. Under the cell's lock, so the cell only moves forward in this
    /// stream's order; a recording the cell owed is paid by this one. The caller bound the
    /// context.
    pub(crate) fn record_cell(&self, cell: &LaunchCell) -> Result<()> {
        cell.record(self.context(), self.raw())
    }

    /// A new cell of this stream, recorded after the work enqueued here so far; one that may
    /// owe its later recordings when this stream is one cuprite created (and destroys only
    /// after paying them). The caller bound the context.
    pub(crate) fn new_cell(&self) -> Result<Arc<LaunchCell>> {
        let ev = self.context().track_event()?;
        // SAFETY: a live event of this stream's context and a live stream.
        unsafe { drv!(cuEventRecord(ev.raw, self.raw())) }?;
        let deferred = self.is_owned().then(|| Deferred {
            raw: RawStream(self.raw()),
            ctx: self.context().clone(),
        });
        Ok(LaunchCell::new(self.track_id(), ev, deferred))
    }
}

/// Notes `mark` as the last writer (`write`: the pending readers are cleared) or as its stream's
/// pending read.
#[inline]
fn note_use(writer: &mut Option<Mark>, readers: &mut Vec<Mark>, mark: &Mark, write: bool) {
    if write {
        *writer = Some(mark.clone());
        readers.clear();
    } else if let Some(r) = readers.iter_mut().find(|r| r.stream == mark.stream) {
        *r = mark.clone();
    } else {
        readers.push(mark.clone());
    }
}

/// Refuses work outside a capture on memory its graph allocates (after the waits of the slow
/// path, which may have made the stream a member of that capture): its address is backed only
/// between the graph's allocation node and its free, so work that is not part of that graph
/// (before the graph runs, after its free, or racing a relaunch) would touch unmapped or
/// reused memory.
#[cold]
fn check_graph_alloc(sid: u64, accesses: &[Access<'_>]) -> Result<()> {
    let capture = capture::capture_of(sid);
    match accesses
        .iter()
        .map(|a| a.shared.graph_alloc())
        .find(|&b| b != 0 && b != capture)
    {
        None => Ok(()),
        Some(born) => Err(crate::error::Error::InvalidArgument(format!(
            "a buffer allocated inside stream capture {born} is used by work {} (stream tracking \
             id {sid}); memory allocated inside a capture belongs to that capture's graph and is \
             used only by work captured there (allocate before the capture what must outlive it)",
            if capture == 0 {
                "outside any capture".to_string()
            } else {
                format!("of capture {capture}")
            }
        ))),
    }
}

/// The `Err` for pinned or managed memory of `ctx` used by work on `stream` of another
/// context: its host accessors wait for their own context only, so that work could still run
/// while the host reads or writes the memory.
#[cold]
fn foreign_host_memory(ctx: &crate::context::Context, stream: &Stream) -> crate::error::Error {
    crate::error::Error::InvalidArgument(format!(
        "pinned or managed memory of the context {:?} (device {}) used on a stream of the \
         context {:?} (device {}); host-visible memory is used only by streams of its own \
         context (copy it through a device buffer of the other context)",
        ctx.raw(),
        ctx.ordinal(),
        stream.context().raw(),
        stream.context().ordinal()
    ))
}
