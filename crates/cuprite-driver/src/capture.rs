//! The stream captures in progress, process-wide: which streams belong to which capture, and
//! which work from before a capture its captured work depends on. The stream tracker asks it
//! whether a wait may cross a capture boundary; `graph.rs` opens and closes its entries.
//!
//! It owns only this registry: it makes no driver call.

use crate::context::event_pool::TrackEvent;
use crate::memory::tracker::{Access, RawStream, TrackShared};
use cuprite_sys::driver::CUstream;
use std::any::Any;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// One capture sequence in progress: the stream that began it and every stream that joined it
/// (they are joined back before it ends), and the pre-capture work it depends on (waited for
/// before each launch of its executable graph).
///
/// Invariant: a stream whose work the driver captures into this sequence is one of its
/// `members`, so that what the work uses is recorded ([`record`], [`keep_alive`]). Every safe
/// call that can make a stream wait for captured work registers it: a tracked wait
/// ([`may_wait`]), [`Stream::join`](crate::Stream::join) and `fork`, and
/// [`Stream::wait`](crate::Stream::wait) on an event recorded in the capture ([`join`]).
pub(crate) struct CaptureSeq {
    id: u64,
    /// The tracking id of the stream that began it.
    pub(crate) origin: u64,
    /// The thread that began it: only its streams may join it (see [`may_wait`]).
    thread: std::thread::ThreadId,
    /// Every stream in it, the origin included: (tracking id, handle).
    pub(crate) members: Vec<(u64, RawStream)>,
    /// Events of work from before the capture that captured work waited for.
    pub(crate) external: Vec<Arc<TrackEvent>>,
    /// What captured work used: the allocations it touched, whether it wrote each, and other
    /// things it needs alive (the modules of captured kernels).
    pub(crate) uses: CapturedUses,
}

/// What the work of one capture uses, kept alive by the capture and then by its graphs.
#[derive(Default, Clone)]
pub(crate) struct CapturedUses {
    /// Each allocation once, with whether any captured work writes it.
    pub(crate) buffers: Vec<(Arc<TrackShared>, bool)>,
    /// The indices in `buffers` of the memory the host also reaches (pinned, managed): the
    /// ones a launch marks for the host's next access, listed so that a launch touches no
    /// other allocation's host flag.
    pub(crate) host_visible: Vec<usize>,
    pub(crate) others: Vec<Arc<dyn Any + Send + Sync>>,
}

impl CapturedUses {
    fn add_buffer(&mut self, shared: &Arc<TrackShared>, write: bool) {
        match self
            .buffers
            .iter_mut()
            .find(|(b, _)| Arc::ptr_eq(b, shared))
        {
            Some((_, w)) => *w |= write,
            None => {
                if shared.host_visible {
                    self.host_visible.push(self.buffers.len());
                }
                self.buffers.push((shared.clone(), write));
            }
        }
    }
}

static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static NEXT_CAPTURE: AtomicU64 = AtomicU64::new(1);
static CAPTURES: Mutex<Vec<CaptureSeq>> = Mutex::new(Vec::new());

fn captures() -> MutexGuard<'static, Vec<CaptureSeq>> {
    // A poisoned registry only means a panic elsewhere mid-update; its data stays consistent
    // (each update is a single push/remove).
    CAPTURES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether any stream capture started by cuprite is in progress.
pub(crate) fn any_active() -> bool {
    ACTIVE.load(Ordering::Acquire) != 0
}

/// Registers a capture begun on the stream `origin` (handle `raw`).
pub(crate) fn begin(origin: u64, raw: CUstream) {
    // From now on a dropped stream leaves the captures it joined (see `leave_all`).
    let _ = crate::stream::CAPTURE_DROP_HOOK.set(leave_all);
    captures().push(CaptureSeq {
        id: NEXT_CAPTURE.fetch_add(1, Ordering::Relaxed),
        origin,
        thread: std::thread::current().id(),
        members: vec![(origin, RawStream(raw))],
        external: Vec::new(),
        uses: CapturedUses::default(),
    });
    ACTIVE.fetch_add(1, Ordering::AcqRel);
}

/// Unregisters the capture begun on the stream `origin` and returns it (`None`: none was).
pub(crate) fn end(origin: u64) -> Option<CaptureSeq> {
    let mut reg = captures();
    let pos = reg.iter().position(|c| c.origin == origin)?;
    let seq = reg.remove(pos);
    ACTIVE.fetch_sub(1, Ordering::AcqRel);
    Some(seq)
}

/// The capture that the stream with tracking id `sid` is part of (0: none). One atomic load
/// when no capture is in progress.
#[inline]
pub(crate) fn capture_of(sid: u64) -> u64 {
    if !any_active() {
        return 0;
    }
    captures()
        .iter()
        .find(|c| c.members.iter().any(|m| m.0 == sid))
        .map_or(0, |c| c.id)
}

/// Registers the stream `sid` (handle `raw`) as a member of the capture `capture` (when that
/// capture is still in progress and the stream not yet in it): the stream was just made to
/// wait for work of that capture ([`Stream::join`](crate::Stream::join),
/// [`Stream::wait`](crate::Stream::wait)), so the driver captures its later work into the
/// same graph, and what that work uses must be kept alive by the graph as the origin's is.
/// The caller paid the stream's debts before the wait ([`prepare_join`]).
pub(crate) fn join(capture: u64, sid: u64, raw: CUstream) {
    if capture == 0 {
        return;
    }
    let mut reg = captures();
    if let Some(c) = reg.iter_mut().find(|c| c.id == capture) {
        if !c.members.iter().any(|m| m.0 == sid) {
            c.members.push((sid, RawStream(raw)));
        }
    }
}

/// Before the stream `sid` waits for work of the capture `target` (0: none) through `what`:
/// the capture it will join by that wait (0: none, it is in `target` already, or `target` is
/// none or ended), its launch cells that owe a recording recorded first (a recording made once it
/// captures would be captured). A stream in another capture is refused: a wait across two
/// captures would invalidate both.
pub(crate) fn prepare_join(sid: u64, target: u64, what: &str) -> crate::Result<u64> {
    if target == 0 || !captures().iter().any(|c| c.id == target) {
        // No capture, or one that ended: waiting joins nothing.
        return Ok(0);
    }
    let mine = capture_of(sid);
    if mine == target {
        return Ok(0);
    }
    if mine != 0 {
        return Err(crate::Error::InvalidArgument(format!(
            "{what}: the waiting stream (tracking id {sid}) is in capture {mine} and the work it \
             would wait for in capture {target}; a stream cannot wait across two captures"
        )));
    }
    crate::memory::tracker::pay_debts(sid)?;
    Ok(target)
}

/// Notes what work enqueued on the stream `sid` accesses, when that stream is capturing:
/// the capture (and later its graphs) keeps those allocations alive. Memory allocated inside
/// the same capture belongs to its graph and is left out.
pub(crate) fn record(sid: u64, accesses: &[Access<'_>]) {
    let mut reg = captures();
    let Some(c) = reg
        .iter_mut()
        .find(|c| c.members.iter().any(|m| m.0 == sid))
    else {
        return;
    };
    for a in accesses {
        if a.shared.born_in() != c.id {
            c.uses.add_buffer(a.shared, a.write);
        }
    }
}

/// Keeps `thing` alive for as long as the capture the stream `sid` is in, and its graphs, live
/// (nothing when that stream is not capturing).
#[inline]
pub(crate) fn keep_alive(sid: u64, thing: impl FnOnce() -> Arc<dyn Any + Send + Sync>) {
    if any_active() {
        keep_alive_slow(sid, thing());
    }
}

#[cold]
fn keep_alive_slow(sid: u64, thing: Arc<dyn Any + Send + Sync>) {
    let mut reg = captures();
    if let Some(c) = reg
        .iter_mut()
        .find(|c| c.members.iter().any(|m| m.0 == sid))
    {
        if !c.uses.others.iter().any(|x| Arc::ptr_eq(x, &thing)) {
            c.uses.others.push(thing);
        }
    }
}

/// Decides whether the stream `sid` (in capture `*capture`, 0 for none) may wait for a mark
/// recorded in capture `mark_capture`, so that no wait crosses a capture boundary:
///
/// - same capture (or both outside any): wait;
/// - the stream is outside, the mark inside a capture still in progress, on the thread that
///   began it: wait, which makes the stream join that capture (CUDA's fork pattern); it is
///   registered so `end_capture` joins it back;
/// - the same on another thread: skip (the captured work does not run now; the graph's launches
///   are ordered with that stream's work by the tracker), so that no other thread's work is
///   captured into the graph and no stream that thread may destroy becomes a member;
/// - the stream captures, the mark is from before: skip here, and remember the event, which
///   every launch of the resulting graph waits for first;
/// - the mark is from a capture that ended (or another capture): skip (that work never runs
///   as such; the graph's launches are ordered by their own stream).
pub(crate) fn may_wait(
    capture: &mut u64,
    sid: u64,
    raw: CUstream,
    mark_capture: u64,
    event: &Arc<TrackEvent>,
) -> bool {
    if mark_capture == *capture {
        return true;
    }
    let mut reg = captures();
    if *capture == 0 {
        if let Some(c) = reg.iter_mut().find(|c| c.id == mark_capture) {
            if c.thread != std::thread::current().id() {
                return false;
            }
            // The stream's launch cells that owe a recording are recorded before it joins:
            // once it is capturing, a recording there would be captured. One that cannot be
            // recorded keeps the stream out of the capture (no wait, as for another thread's).
            if crate::memory::tracker::pay_debts(sid).is_err() {
                return false;
            }
            c.members.push((sid, RawStream(raw)));
            *capture = mark_capture;
            return true;
        }
        return false;
    }
    if mark_capture == 0 {
        if let Some(c) = reg.iter_mut().find(|c| c.id == *capture) {
            if !c.external.iter().any(|e| Arc::ptr_eq(e, event)) {
                c.external.push(event.clone());
            }
        }
    }
    false
}

/// The stream `sid` is being destroyed: it leaves every capture it joined (ending such a
/// capture then fails, as the driver's unjoined-work check does, instead of recording an event
/// on a destroyed stream). Returns whether a capture begun on it is still registered (its
/// owner must end it before destroying the stream).
pub(crate) fn leave_all(sid: u64) -> bool {
    if !any_active() {
        return false;
    }
    let mut reg = captures();
    let mut origin = false;
    for c in reg.iter_mut() {
        if c.origin == sid {
            origin = true;
        } else {
            c.members.retain(|m| m.0 != sid);
        }
    }
    origin
}
