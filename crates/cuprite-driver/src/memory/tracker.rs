//! What stream tracking knows of one allocation: the [`Tracker`] each allocation carries (its
//! last writer and pending readers), the [`DeviceRead`] / [`DeviceWrite`] traits through which
//! launches and copies reach buffers and views, and [`Access`], one declared use.
//!
//! A tracker is shared: the allocation's owner holds the [`Tracker`], and every graph whose
//! captured work used the allocation holds its [`TrackShared`] too. The owner hands over how to
//! free the memory ([`Release`]) when it drops; the memory is freed when the last of them goes,
//! so a graph never replays into memory that was freed (or reused) under it.
//!
//! This module holds state only: which events to wait for and record is `track.rs`'s job.

use super::host_sync::HostSync;
use crate::context::Context;
use crate::context::event_pool::TrackEvent;
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUdeviceptr};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// One recorded use: the event recorded after it, on which stream, in which capture.
#[derive(Clone)]
pub(crate) struct Mark {
    pub(crate) stream: u64,
    pub(crate) event: MarkEvent,
    /// The stream capture the event was recorded in (0: none); see `crate::capture`.
    pub(crate) capture: u64,
}

/// What a [`Mark`] waits for: the one recording made after its use, or the latest recording
/// of a [`LaunchCell`] (made after its use or later on the same stream, so waiting for it
/// orders after the use too).
#[derive(Clone)]
pub(crate) enum MarkEvent {
    Fixed(Arc<TrackEvent>),
    Latest(Arc<LaunchCell>),
}

/// The event a [`MarkEvent`] stands for now, borrowed or taken from its cell.
pub(crate) enum EventNow<'a> {
    Borrowed(&'a Arc<TrackEvent>),
    Taken(Arc<TrackEvent>),
}

impl std::ops::Deref for EventNow<'_> {
    type Target = Arc<TrackEvent>;
    fn deref(&self) -> &Arc<TrackEvent> {
        match self {
            EventNow::Borrowed(e) => e,
            EventNow::Taken(e) => e,
        }
    }
}

impl MarkEvent {
    /// The event to wait for now (a cell that owes a recording is recorded first).
    #[inline]
    pub(crate) fn now(&self) -> Result<EventNow<'_>> {
        Ok(match self {
            MarkEvent::Fixed(e) => EventNow::Borrowed(e),
            MarkEvent::Latest(c) => EventNow::Taken(c.latest()?),
        })
    }
}

/// The event recorded after the latest launch of one executable graph on one stream (outside
/// any capture). The marks of that graph's launches on that stream name the cell rather than
/// one recording: a later launch that touches the same buffers the same way records the cell
/// again instead of rewriting every buffer's marks.
///
/// A cell of a stream cuprite owns ([`Deferred`]) may instead *owe* its recording: a steady
/// launch that declares nothing new only notes that the cell's event no longer follows the
/// latest launch, and whoever first reads the cell's event (a wait, a frozen mark) records it
/// then, on the cell's stream, after everything enqueued there so far.
///
/// Invariants: the cell is recorded only on its stream, under its lock (so its event only
/// moves forward in that stream's order), and only after the work of every mark naming it was
/// enqueued; waiting for its latest event then orders after each of those uses (and perhaps
/// after later work of the same stream: a wait that is longer, never shorter). `owed` is
/// cleared only under the lock, just before a recording; while it is set,
/// [`latest`](Self::latest) records before it answers, and the stream is not capturing (a debt
/// is paid before the stream begins or joins a capture, [`pay_debts`], and before it is
/// destroyed, [`close_debts`]), so the recording is real work.
pub(crate) struct LaunchCell {
    /// The tracking id of the stream it is recorded on.
    pub(crate) stream: u64,
    pub(crate) current: Mutex<Arc<TrackEvent>>,
    /// A launch named by the cell's marks was enqueued after `current` was recorded.
    owed: AtomicBool,
    /// Where an owed recording is made: `None` for a cell that never owes one.
    deferred: Option<Deferred>,
    /// The stream was destroyed ([`close_debts`]): nothing is recorded for a debt any more.
    closed: AtomicBool,
}

/// The stream a [`LaunchCell`] that may owe a recording is recorded on: one cuprite created
/// and destroys (never a foreign, per-thread or null stream, whose handle may name another
/// stream or none by the time the debt is paid), alive until its debts are paid
/// ([`pay_debts`] runs before it is destroyed).
pub(crate) struct Deferred {
    pub(crate) raw: RawStream,
    pub(crate) ctx: Arc<Context>,
}

/// A raw stream handle kept beside the state that names it (a capture's members, a deferred
/// cell's stream).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawStream(pub(crate) sys::CUstream);
// SAFETY: a stream handle is usable from any thread.
unsafe impl Send for RawStream {}
// SAFETY: as above; the wrapper has no interior mutability.
unsafe impl Sync for RawStream {}

/// The cells that may owe a recording, for [`pay_debts`].
static DEBTORS: Mutex<Vec<std::sync::Weak<LaunchCell>>> = Mutex::new(Vec::new());

/// Records every cell of the stream `sid` that owes a recording: before that stream begins or
/// joins a capture (a recording made later would be captured). Each cell of the stream is
/// locked in turn, so a recording another thread is making there has been made when this
/// returns. Returns the first error; every cell is tried.
pub(crate) fn pay_debts(sid: u64) -> Result<()> {
    let mut first = Ok(());
    for c in cells_of(sid) {
        let r = c.latest().map(drop);
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// [`pay_debts`] for a stream about to be destroyed (handle `raw`): afterwards no cell of it
/// records again (its handle is gone). A debt that cannot be paid is settled by waiting on the
/// host for the stream's work, which the cell's last recording then stands for (done is done).
/// Returns the first error.
pub(crate) fn close_debts(sid: u64, raw: sys::CUstream) -> Result<()> {
    let mut first = Ok(());
    let mut synced = false;
    for c in cells_of(sid) {
        let r = c.latest().map(drop);
        let cur = c.current.lock().unwrap_or_else(|e| e.into_inner());
        if r.is_err() && !synced {
            // SAFETY: the stream is live (its drop is running this) and of the cell's context.
            let s = unsafe { drv!(cuStreamSynchronize(raw)) };
            synced = true;
            if first.is_ok() {
                first = s;
            }
        }
        c.owed.store(false, Ordering::Release);
        c.closed.store(true, Ordering::Release);
        // Any thread that records the cell from here on finds it closed under this lock.
        drop(cur);
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// The live cells of the stream `sid` that may owe a recording.
fn cells_of(sid: u64) -> Vec<Arc<LaunchCell>> {
    DEBTORS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter_map(std::sync::Weak::upgrade)
        .filter(|c| c.stream == sid)
        .collect()
}

impl LaunchCell {
    /// A cell of stream `stream` whose first recording is `event` (recorded on that stream);
    /// with `deferred`, one that may owe its later recordings (listed for [`pay_debts`]).
    pub(crate) fn new(
        stream: u64,
        event: Arc<TrackEvent>,
        deferred: Option<Deferred>,
    ) -> Arc<Self> {
        let lazy = deferred.is_some();
        let cell = Arc::new(LaunchCell {
            stream,
            current: Mutex::new(event),
            owed: AtomicBool::new(false),
            deferred,
            closed: AtomicBool::new(false),
        });
        if lazy {
            let _ = crate::stream::CELL_DEBT_HOOK.set(close_debts);
            let mut debtors = DEBTORS.lock().unwrap_or_else(|e| e.into_inner());
            debtors.retain(|w| w.strong_count() > 0);
            debtors.push(Arc::downgrade(&cell));
        }
        cell
    }

    /// Whether the cell may owe its recording ([`owe`](Self::owe)).
    #[inline]
    pub(crate) fn may_owe(&self) -> bool {
        self.deferred.is_some()
    }

    /// Notes that a launch named by the cell's marks was enqueued on its stream after its last
    /// recording: the next reader records it. Only for a cell that [`may_owe`](Self::may_owe),
    /// and only while its stream is not capturing.
    ///
    /// No lock: a reader clears the debt (under the lock) before it records, so a debt noted
    /// while it records is either covered by that recording (made after this launch was
    /// enqueued) or left for the next reader.
    #[inline]
    pub(crate) fn owe(&self) {
        self.owed.store(true, Ordering::Release);
    }

    /// Its latest recording; one owed is made first, on the cell's stream (its context bound).
    pub(crate) fn latest(&self) -> Result<Arc<TrackEvent>> {
        let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = &self.deferred {
            if !self.closed.load(Ordering::Acquire) && self.owed.swap(false, Ordering::AcqRel) {
                let r = record_owed(&mut cur, d);
                if let Err(e) = r {
                    // Still owed: the next reader tries again.
                    self.owed.store(true, Ordering::Release);
                    return Err(e);
                }
            }
        }
        Ok(cur.clone())
    }

    /// Records the cell on `stream` (its own, the context bound by the caller), after the work
    /// enqueued there so far; pays any debt.
    pub(crate) fn record(&self, ctx: &Context, stream: sys::CUstream) -> Result<()> {
        let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        // Cleared first: a debt noted meanwhile is left for the next reader.
        let owed = self.owed.swap(false, Ordering::AcqRel);
        let r = record_locked(&mut cur, ctx, stream);
        if r.is_err() && owed {
            self.owed.store(true, Ordering::Release);
        }
        r
    }
}

/// Records an owed cell's event (`cur`, under the cell's lock) on its stream, with its context
/// current for the call; the context current before (perhaps another, perhaps none) is current
/// again after it, so the reader that pays the debt finds its thread as it left it.
fn record_owed(cur: &mut Arc<TrackEvent>, d: &Deferred) -> Result<()> {
    let mut prev = std::ptr::null_mut();
    // SAFETY: `prev` is a valid out-pointer.
    unsafe { drv!(cuCtxGetCurrent(&mut prev)) }?;
    let own = d.ctx.raw();
    if prev != own {
        // SAFETY: a live context: the cell keeps it.
        unsafe { drv!(cuCtxSetCurrent(own)) }?;
    }
    let r = record_locked(cur, &d.ctx, d.raw.0);
    if prev != own {
        // SAFETY: the context that was current on this thread a moment ago (or none).
        let back = unsafe { drv!(cuCtxSetCurrent(prev)) };
        return r.and(back);
    }
    r
}

/// Records a cell's event (`cur`, under the cell's lock) on `stream`: its event again when no
/// one else holds it (waits already enqueued on it keep the recording they saw), else a fresh
/// one from `ctx`'s pool.
fn record_locked(cur: &mut Arc<TrackEvent>, ctx: &Context, stream: sys::CUstream) -> Result<()> {
    if let Some(ev) = Arc::get_mut(cur) {
        // No other handle: no stream can be noting a wait for the old recording.
        ev.forget_waits();
        // SAFETY: a live event of the stream's context and a live stream (the caller's, or a
        // cell's stream, destroyed only after its debts are paid).
        return unsafe { drv!(cuEventRecord(ev.raw, stream)) };
    }
    let ev = ctx.track_event()?;
    // SAFETY: as above.
    unsafe { drv!(cuEventRecord(ev.raw, stream)) }?;
    *cur = ev;
    Ok(())
}

/// Invariant: `writer` and `readers` are marks of work that runs as enqueued (recorded outside
/// any capture); marks recorded inside a capture go to `captured` only, so a capture never
/// hides real work from later users, and a stream outside the capture never sees them (it
/// would join the capture by waiting for one).
#[derive(Default)]
pub(crate) struct TrackState {
    /// Whether this tracker was touched since its context entered multi-stream mode. Before
    /// that, its only pending work was on the first stream and the switch synchronised it.
    pub(crate) init: bool,
    pub(crate) writer: Option<Mark>,
    pub(crate) readers: Vec<Mark>,
    /// The last writer and readers recorded inside one capture (the latest that touched the
    /// allocation): they order that capture's streams among themselves.
    pub(crate) captured: CapturedMarks,
}

/// Marks recorded inside the capture `capture` (0: none yet).
#[derive(Default)]
pub(crate) struct CapturedMarks {
    pub(crate) capture: u64,
    pub(crate) writer: Option<Mark>,
    pub(crate) readers: Vec<Mark>,
}

/// How an allocation's memory goes back once nothing uses it any more.
pub(crate) enum Release {
    /// A device allocation of `ptr`, freed by `free` on `stream` after every pending use
    /// (`pooled`: stream-ordered, else synchronously). `elem` (a type name) names it in a
    /// deferred error.
    Device {
        stream: Arc<Stream>,
        ptr: CUdeviceptr,
        pooled: bool,
        elem: &'static str,
        free: DeviceFree,
    },
    /// Anything else, run on the context once nothing uses the memory.
    Other(Box<dyn FnOnce(&Context) + Send>),
}

/// Frees the device memory `ptr` tracked by a [`TrackShared`] on a stream, after its pending
/// uses (`device.rs` provides it: the free needs the stream tracker, above this module).
pub(crate) type DeviceFree = fn(&Stream, &TrackShared, CUdeviceptr, bool) -> Result<()>;

/// The state behind a [`Tracker`], shared with the graphs that use the allocation.
pub(crate) struct TrackShared {
    pub(crate) ctx: Arc<Context>,
    state: Mutex<TrackState>,
    /// The capture the memory was allocated in (0: none). Such memory belongs to that capture's
    /// graph, which allocates it itself: graphs need not keep it.
    born_in: AtomicU64,
    /// The capture whose graph allocated the memory itself (an allocation node; 0: none). Unlike
    /// memory carved from an allocation made outside (which is only `born_in` its capture),
    /// its address is backed only while that graph's allocation lives, so only work of that
    /// capture may use it.
    graph_alloc: AtomicU64,
    /// The owner ([`Tracker`]) is gone.
    owner_gone: AtomicBool,
    /// Set by the owner as it drops; run when the last holder drops.
    release: Mutex<Option<Release>>,
    /// Bumped, under the state's lock, whenever a mark of the state is written: a graph that
    /// wrote the marks of its buffers knows, from the versions it left, whether anyone wrote
    /// one since.
    version: AtomicU64,
    /// "Device work may still use this memory", for memory the host also reaches (pinned,
    /// managed): marked by every enqueue that hands its device address out and by every launch
    /// of a graph that uses it, cleared by the host wait of its owner's host accessors.
    pub(crate) host_sync: HostSync,
    /// The host reaches the memory too (pinned, managed): only streams of `ctx` may use it, so
    /// that the host wait (a synchronisation of `ctx`) covers every device use.
    pub(crate) host_visible: bool,
}

impl TrackShared {
    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, TrackState>> {
        self.state
            .lock()
            .map_err(|_| Error::InvalidArgument("buffer tracker lock poisoned".into()))
    }

    /// The capture its memory was allocated in (0: none).
    #[inline]
    pub(crate) fn born_in(&self) -> u64 {
        self.born_in.load(Ordering::Relaxed)
    }

    /// The capture whose graph allocated the memory (0: none; see `graph_alloc`).
    #[inline]
    pub(crate) fn graph_alloc(&self) -> u64 {
        self.graph_alloc.load(Ordering::Relaxed)
    }

    /// The version of the marks (see `version`), read without the lock.
    #[inline]
    pub(crate) fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Notes that a mark was written; returns the new version. Call under the state's lock.
    #[inline]
    pub(crate) fn bump_version(&self) -> u64 {
        self.version.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// Whether the memory is gone or no longer cuprite's to keep: the owner dropped and left no
    /// way to free it (borrowed or leaked memory).
    pub(crate) fn memory_may_be_gone(&self) -> bool {
        self.owner_gone.load(Ordering::Acquire)
            && self.release.lock().map(|r| r.is_none()).unwrap_or(true)
    }
}

impl Drop for TrackShared {
    fn drop(&mut self) {
        let release = self.release.get_mut().ok().and_then(Option::take);
        match release {
            Some(Release::Device {
                stream,
                ptr,
                pooled,
                elem,
                free,
            }) => {
                if let Err(e) = free(&stream, self, ptr, pooled) {
                    self.ctx.defer(format!("free of DeviceBuffer<{elem}>"), e);
                }
            }
            Some(Release::Other(f)) => f(&self.ctx),
            None => {}
        }
    }
}

/// The stream-tracking state of one allocation, shared by all views of it: its last writer and
/// its pending readers per stream. Touched only while its context is in multi-stream mode.
pub struct Tracker {
    pub(crate) shared: Arc<TrackShared>,
}

impl fmt::Debug for Tracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (w, r) = self
            .shared
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
        Tracker::with_host(ctx, false)
    }

    /// A tracker for memory the host reaches too (pinned, managed): only streams of `ctx`
    /// may use it (see `TrackShared::host_visible`).
    pub(crate) fn new_host_visible(ctx: Arc<Context>) -> Tracker {
        Tracker::with_host(ctx, true)
    }

    fn with_host(ctx: Arc<Context>, host_visible: bool) -> Tracker {
        // Created in multi-stream mode: every access to it will be tracked from the start.
        let init = ctx.is_multi_stream();
        Tracker {
            shared: Arc::new(TrackShared {
                ctx,
                state: Mutex::new(TrackState {
                    init,
                    ..TrackState::default()
                }),
                born_in: AtomicU64::new(0),
                graph_alloc: AtomicU64::new(0),
                owner_gone: AtomicBool::new(false),
                release: Mutex::new(None),
                version: AtomicU64::new(0),
                host_sync: HostSync::new(false),
                host_visible,
            }),
        }
    }

    /// The context of the tracked allocation.
    #[inline]
    pub fn context(&self) -> &Arc<Context> {
        &self.shared.ctx
    }

    /// Whether device work may still use the memory, and the host wait that ends it.
    #[inline]
    pub(crate) fn host_sync(&self) -> &HostSync {
        &self.shared.host_sync
    }

    /// How many streams currently have a pending read recorded (for tests and diagnostics).
    pub fn pending_reader_streams(&self) -> usize {
        self.shared.lock().map(|s| s.readers.len()).unwrap_or(0)
    }

    /// Whether a last writer is recorded (only ever in multi-stream mode).
    pub fn has_recorded_writer(&self) -> bool {
        self.shared
            .lock()
            .map(|s| s.writer.is_some())
            .unwrap_or(false)
    }

    /// How many graphs (and captures in progress) keep this allocation alive.
    pub fn graph_holds(&self) -> usize {
        Arc::strong_count(&self.shared) - 1
    }

    /// Notes that the memory was allocated inside capture `capture` (its graph owns it).
    pub(crate) fn set_born_in(&self, capture: u64) {
        self.shared.born_in.store(capture, Ordering::Relaxed);
    }

    /// Notes that the graph of capture `capture` allocates the memory itself (an allocation
    /// node): it is also born in that capture.
    pub(crate) fn set_graph_alloc(&self, capture: u64) {
        self.set_born_in(capture);
        self.shared.graph_alloc.store(capture, Ordering::Relaxed);
    }

    /// Hands over how to free the memory: done once the last graph holding it is gone (at once
    /// when none does). Called by the owner as it drops.
    pub(crate) fn set_release(&self, release: Release) {
        if let Ok(mut r) = self.shared.release.lock() {
            *r = Some(release);
        }
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        self.shared.owner_gone.store(true, Ordering::Release);
        // Held by a graph (or a capture) and left with no way to free it: launches that checked
        // their buffers before this must check again (`memory_may_be_gone`).
        if Arc::strong_count(&self.shared) > 1 && self.shared.memory_may_be_gone() {
            ABANDONED.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// Counts the allocations whose owner dropped, leaving no way to free them, while a graph held
/// them: a launch that found every buffer of its graph live when this count read `n` finds them
/// live again while it still reads `n`.
static ABANDONED: AtomicU64 = AtomicU64::new(0);

/// The count of allocations abandoned while a graph held them (see [`ABANDONED`]).
#[inline]
pub(crate) fn abandoned() -> u64 {
    ABANDONED.load(Ordering::Acquire)
}

/// Keeps [`DeviceRead`] and [`DeviceWrite`] to the driver's own types: the address and length
/// they report are handed to the driver as they are, so only types whose address and length
/// come from a live allocation (or a checked window of one) may implement them.
pub(crate) mod sealed {
    /// The private supertrait of [`DeviceRead`](super::DeviceRead).
    pub trait Sealed {}
}

/// Device memory that work on a stream may read: [`DeviceBuffer`](crate::DeviceBuffer),
/// [`DeviceView`](crate::DeviceView), [`DeviceViewMut`](crate::DeviceViewMut), module
/// globals, managed and mapped pinned memory.
///
/// Sealed: `device_ptr()` and `len()` are trusted by every copy and launch, so only cuprite's
/// types implement it. Memory owned elsewhere is reached through
/// [`DeviceView::from_raw_parts`](crate::DeviceView::from_raw_parts) and
/// [`DeviceViewMut::from_raw_parts`](crate::DeviceViewMut::from_raw_parts), whose contract
/// the caller upholds with `unsafe`:
///
/// ```compile_fail
/// use cuprite_driver::{DeviceRead, Tracker};
/// struct Fake<'a>(&'a Tracker);
/// impl DeviceRead<u8> for Fake<'_> {
///     fn device_ptr(&self) -> u64 { 0xdead_0000 }
///     fn len(&self) -> usize { 1 << 30 }
///     fn tracker(&self) -> &Tracker { self.0 }
/// }
/// ```
pub trait DeviceRead<T>: sealed::Sealed {
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
/// # fn main() -> cuprite_driver::Result<()> {
/// use cuprite_driver::{Access, Context};
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
#[derive(Clone, Copy)]
pub struct Access<'a> {
    pub(crate) shared: &'a Arc<TrackShared>,
    pub(crate) write: bool,
}

impl fmt::Debug for Access<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Access")
            .field("tracker", &Arc::as_ptr(self.shared))
            .field("write", &self.write)
            .finish()
    }
}

impl<'a> Access<'a> {
    /// The work reads `buf`.
    #[inline]
    pub fn read<T, B: DeviceRead<T> + ?Sized>(buf: &'a B) -> Self {
        Access {
            shared: &buf.tracker().shared,
            write: false,
        }
    }

    /// The work writes (and may read) `buf`.
    #[inline]
    pub fn write<T, B: DeviceWrite<T> + ?Sized>(buf: &'a B) -> Self {
        Access {
            shared: &buf.tracker().shared,
            write: true,
        }
    }

    /// An access to whatever `tracker` tracks.
    #[inline]
    pub fn of_tracker(tracker: &'a Tracker, write: bool) -> Self {
        Access {
            shared: &tracker.shared,
            write,
        }
    }

    /// Whether this is a write.
    pub fn is_write(&self) -> bool {
        self.write
    }
}

/// Makes the marks of `shared` that name `cell` name its latest recording instead, so that
/// later recordings of the cell (launches that no longer use this buffer) are not waited for by
/// its users.
pub(crate) fn freeze_marks(shared: &TrackShared, cell: &Arc<LaunchCell>) -> Result<()> {
    let mut st = shared.lock()?;
    let named = |m: &Mark| matches!(&m.event, MarkEvent::Latest(c) if Arc::ptr_eq(c, cell));
    let st = &mut *st;
    let marks = st.writer.iter_mut().chain(st.readers.iter_mut());
    let mut latest = None;
    for m in marks {
        if named(m) {
            let ev = match &latest {
                Some(ev) => Arc::clone(ev),
                None => latest.insert(cell.latest()?).clone(),
            };
            m.event = MarkEvent::Fixed(ev);
        }
    }
    if latest.is_some() {
        shared.bump_version();
    }
    Ok(())
}
