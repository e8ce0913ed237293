//! CUDA graphs: stream capture ([`Stream::begin_capture`] / [`Stream::end_capture`]), the
//! captured [`Graph`], and its executable form [`GraphExec`] (launch, upload, update).
//!
//! Owns the graph handles and the capture calls. While a stream captures, work enqueued on it
//! (launches, copies, stream-ordered allocations and frees) is recorded into the graph instead
//! of running; the stream tracker keeps ordering work across streams during the capture, and
//! other streams that join the capture are joined back before it ends. It must not track
//! buffers itself.
//!
//! Memory allocated while a stream captures is the graph's (an allocation node): only work
//! captured in the same capture may use it, and the stream tracker refuses any other use with
//! an `Err`. A buffer freed inside the capture becomes a free node; one still held when the
//! capture ends stays the graph's (its drop frees nothing), so such a graph needs
//! [`Graph::instantiate_auto_free`] to be launched more than once.

use crate::capture::{self, CaptureSeq, CapturedUses};
use crate::context::Context;
use crate::context::event_pool::TrackEvent;
use crate::drv;
use crate::error::{Error, Result};
use crate::memory::tracker::{LaunchCell, TrackShared};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUdeviceptr, CUgraph, CUgraphExec};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// How a capture restricts potentially unsafe driver calls (`cuStreamBeginCapture` mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CaptureMode {
    /// Unsafe calls are refused in every thread while any global capture is in progress.
    #[default]
    Global,
    /// Unsafe calls are refused only in the capturing thread.
    ThreadLocal,
    /// Nothing is refused (the caller knows what it does).
    Relaxed,
}

impl CaptureMode {
    fn raw(self) -> sys::CUstreamCaptureMode {
        match self {
            CaptureMode::Global => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
            CaptureMode::ThreadLocal => {
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
            }
            CaptureMode::Relaxed => sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
        }
    }
}

/// Where a stream stands with respect to capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureStatus {
    /// Not capturing.
    None,
    /// Capturing.
    Active,
    /// Capturing, but an error invalidated the capture; `end_capture` will fail.
    Invalidated,
}

impl Stream {
    /// Starts capturing this stream's work into a graph. Work enqueued afterwards (on this
    /// stream, and on streams that wait for it) is recorded, not run, until
    /// [`end_capture`](Self::end_capture). Buffers allocated meanwhile on a capturing stream
    /// are usable only by the captured work: allocate before the capture what must outlive it.
    ///
    /// ```no_run
    /// use cuprite_driver::{CaptureMode, Context};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = Context::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let src = stream.clone_htod(&[1u32, 2, 3])?;
    /// let mut dst = stream.alloc_zeros::<u32>(3)?;
    /// stream.begin_capture(CaptureMode::ThreadLocal)?;
    /// stream.memcpy_dtod(&src, &mut dst)?;
    /// let graph = stream.end_capture()?;
    /// let exec = graph.instantiate()?;
    /// exec.launch(&stream)?;
    /// assert_eq!(stream.clone_dtoh(&dst)?, [1, 2, 3]);
    /// # Ok(()) }
    /// ```
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        let ctx = self.context();
        ctx.bind_to_thread()?;
        // A launch cell of this stream that owes a recording is recorded now: once capturing,
        // a recording here would be captured.
        crate::memory::tracker::pay_debts(self.track_id())?;
        // No context-wide synchronisation may run from here until the capture ends.
        let _gate = ctx.capture_gate();
        ctx.note_capture(self.track_id(), true);
        // SAFETY: a live stream of the current context; the mode is a valid enum value.
        if let Err(e) = unsafe { drv!(cuStreamBeginCapture_v2(self.raw(), mode.raw())) } {
            ctx.note_capture(self.track_id(), false);
            return Err(e);
        }
        capture::begin(self.track_id(), self.raw());
        Ok(())
    }

    /// Ends the capture begun on this stream and returns the graph. Streams that joined the
    /// capture (through the stream tracker) are joined back to this one first.
    pub fn end_capture(&self) -> Result<Graph> {
        // An error deferred from a Drop must not leave the stream capturing: it is returned by
        // the next call instead.
        self.context().bind_to_thread_no_deferred()?;
        let seq = capture::end(self.track_id());
        let joined = match &seq {
            Some(seq) => self.join_members(seq),
            None => Ok(()),
        };
        let mut raw: CUgraph = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer and the stream is live.
        let r = unsafe { drv!(cuStreamEndCapture(self.raw(), &mut raw)) };
        if seq.is_some() {
            // Only now, the stream no longer capturing, may a context-wide synchronisation run.
            self.context().note_capture(self.track_id(), false);
            self.context().run_after_captures();
        }
        if r.is_ok() && !raw.is_null() && joined.is_err() {
            // SAFETY: the graph was just made and is referenced nowhere else.
            let _ = unsafe { sys::cuGraphDestroy(raw) };
        }
        joined?;
        r?;
        if raw.is_null() {
            return Err(Error::InvalidArgument(
                "the capture produced no graph (was it invalidated?)".to_string(),
            ));
        }
        Ok(Graph {
            ctx: self.context().clone(),
            raw,
            access: Arc::new(Mutex::new(())),
            external: seq.as_ref().map(|s| s.external.clone()).unwrap_or_default(),
            uses: seq.map(|s| s.uses).unwrap_or_default(),
        })
    }

    /// Makes this (origin) stream wait for the current end of every stream that joined the
    /// capture, as `cuStreamEndCapture` requires.
    fn join_members(&self, seq: &CaptureSeq) -> Result<()> {
        for (sid, raw) in &seq.members {
            if *sid == seq.origin {
                continue;
            }
            let ev = self.context().capture_event()?;
            // SAFETY: the member stream is live (it is capturing, so it cannot have been
            // destroyed) and the event is ours.
            unsafe { drv!(cuEventRecord(ev.raw, raw.0)) }?;
            // SAFETY: a live stream and the event just recorded in the same capture.
            unsafe { drv!(cuStreamWaitEvent(self.raw(), ev.raw, 0)) }?;
        }
        Ok(())
    }

    /// Whether this stream is in a capture (active or invalidated).
    pub(crate) fn is_capturing(&self) -> Result<bool> {
        Ok(self.capture_status()? != CaptureStatus::None)
    }

    /// Whether this stream is capturing and the work enqueued next would depend on kernel
    /// nodes only (at least one): the case where a launch with programmatic stream
    /// serialization is recorded as programmatic edges. `false` when the stream is not
    /// capturing, when the next node would have no dependency, or when one of them is a copy,
    /// a set, an event or any other node that is not a kernel.
    pub fn capture_follows_kernels(&self) -> Result<bool> {
        self.context().bind_to_thread()?;
        let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        let mut id = 0u64;
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        let mut deps: *const sys::CUgraphNode = std::ptr::null();
        // Asked for (and not read) so that dependencies with edge data are no lossy query.
        let mut edges: *const std::ffi::c_void = std::ptr::null();
        let mut n = 0usize;
        // SAFETY: every out-pointer is valid for its type and the stream is live; the driver
        // leaves `deps` (and `edges`) pointing at `n` entries it owns until the next call on
        // the stream. A driver older than the call (CUDA 12.3) is an `Err`, nothing done.
        unsafe {
            drv!(cuStreamGetCaptureInfo_v3(
                self.raw(),
                &mut status,
                &mut id,
                &mut graph,
                &mut deps,
                &mut edges,
                &mut n
            ))
        }?;
        if status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE
            || n == 0
            || deps.is_null()
        {
            return Ok(false);
        }
        // SAFETY: `deps` points at `n` nodes (above), read before any other call on the stream.
        let nodes = unsafe { std::slice::from_raw_parts(deps, n) };
        for &node in nodes {
            let mut kind = sys::CUgraphNodeType(u32::MAX);
            // SAFETY: a node of the capture's graph and a valid out-pointer.
            unsafe { drv!(cuGraphNodeGetType(node, &mut kind)) }?;
            if kind != sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether this stream is capturing.
    pub fn capture_status(&self) -> Result<CaptureStatus> {
        self.context().bind_to_thread()?;
        let mut s = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: `s` is a valid out-pointer and the stream is live.
        unsafe { drv!(cuStreamIsCapturing(self.raw(), &mut s)) }?;
        Ok(match s {
            sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE => CaptureStatus::Active,
            sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE => CaptureStatus::None,
            _ => CaptureStatus::Invalidated,
        })
    }
}

/// Runs `f` with this thread's capture mode relaxed (`cuThreadExchangeStreamCaptureMode`), then
/// puts the mode back (also when `f` panics): while this thread captures a stream, `f` may make
/// calls a thread-local or global capture refuses, such as a stream-ordered allocation on a
/// stream that is not capturing. Work `f` enqueues on a capturing stream is still captured.
///
/// ```no_run
/// use cuprite_driver::{CaptureMode, Context};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = Context::new(0)?;
/// let (s, side) = (ctx.new_stream()?, ctx.new_stream()?);
/// s.begin_capture(CaptureMode::ThreadLocal)?;
/// // SAFETY: written before any read.
/// let buf = cuprite_driver::graph::with_relaxed_capture_mode(|| unsafe { side.alloc::<u8>(1024) })??;
/// drop(s.end_capture()?);
/// drop(buf);
/// # Ok(()) }
/// ```
pub fn with_relaxed_capture_mode<R>(f: impl FnOnce() -> R) -> Result<R> {
    /// Puts the thread's previous mode back.
    struct Restore(sys::CUstreamCaptureMode);
    impl Drop for Restore {
        fn drop(&mut self) {
            let mut mode = self.0;
            // SAFETY: a valid in/out pointer to a capture mode.
            let _ = unsafe { sys::cuThreadExchangeStreamCaptureMode(&mut mode) };
        }
    }
    let mut mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
    // SAFETY: a valid in/out pointer to a capture mode; the previous mode comes back in it.
    unsafe { drv!(cuThreadExchangeStreamCaptureMode(&mut mode)) }?;
    let _restore = Restore(mode);
    Ok(f())
}

thread_local! {
    /// Work this thread ran differently because its stream was capturing (see
    /// [`note_unprepared_in_capture`]).
    static UNPREPARED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Notes that work on this thread ran differently because its stream was capturing than it
/// would have run outside a capture (a product whose algorithms were not timed, a library route
/// not measured): a caller that captures without a run outside the capture first can compare
/// [`unprepared_in_capture`] before and after, and run once outside the capture when it moved.
pub fn note_unprepared_in_capture() {
    UNPREPARED.with(|c| c.set(c.get().wrapping_add(1)));
}

/// How many times this thread noted work run differently under capture
/// ([`note_unprepared_in_capture`]); only differences matter.
///
/// ```
/// let before = cuprite_driver::graph::unprepared_in_capture();
/// cuprite_driver::graph::note_unprepared_in_capture();
/// assert_eq!(cuprite_driver::graph::unprepared_in_capture(), before.wrapping_add(1));
/// ```
pub fn unprepared_in_capture() -> u64 {
    UNPREPARED.with(std::cell::Cell::get)
}

/// Takes a graph family's lock (see `Graph::access`); the guard's data is nothing, so a panic
/// elsewhere leaves nothing inconsistent.
fn family_lock(m: &Mutex<()>) -> MutexGuard<'_, ()> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A graph of device work, captured from a stream. Destroyed on drop.
pub struct Graph {
    ctx: Arc<Context>,
    raw: CUgraph,
    /// Held by every driver call that takes `raw` or an executable graph instantiated from it
    /// (shared with them): the driver does not synchronise calls on one graph object, read-only
    /// ones and instantiation included, and does not promise that calls on a graph and on its
    /// executable graphs may overlap, so they are serialised here.
    access: Arc<Mutex<()>>,
    external: Vec<Arc<TrackEvent>>,
    /// The allocations (and modules) the captured work uses, kept alive by the graph.
    uses: CapturedUses,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("raw", &self.raw)
            .field("pre_capture_dependencies", &self.external.len())
            .field("buffers_used", &self.uses.buffers.len())
            .finish()
    }
}

// SAFETY: a CUgraph is not tied to a thread; cuprite never mutates it after capture.
unsafe impl Send for Graph {}
// SAFETY: every driver call on `raw` through `&self` holds `access` (see `Graph::lock`), so
// no two run at once.
unsafe impl Sync for Graph {}

impl Graph {
    /// The driver's handle. Calls made with it must not run concurrently with this graph's
    /// own methods on other threads (the driver does not synchronise them).
    pub fn raw(&self) -> CUgraph {
        self.raw
    }

    /// Serialises the driver calls on the graph object (see `access`); the guard's data is
    /// nothing, so a panic elsewhere leaves nothing inconsistent.
    fn lock(&self) -> MutexGuard<'_, ()> {
        family_lock(&self.access)
    }

    /// The number of nodes (kernels, copies, allocations...) in the graph.
    pub fn num_nodes(&self) -> Result<usize> {
        self.ctx.bind_to_thread()?;
        let mut n = 0usize;
        let _serial = self.lock();
        // SAFETY: a null node array asks only for the count, written to `n`; no other call on
        // the graph runs meanwhile (`_serial`).
        unsafe { drv!(cuGraphGetNodes(self.raw, std::ptr::null_mut(), &mut n)) }?;
        Ok(n)
    }

    /// Writes the graph's nodes and edges to `path` as a Graphviz DOT file
    /// (`cuGraphDebugDotPrint`), with every node's parameters (kernel names and arguments,
    /// copy extents, allocation addresses and sizes) when `verbose`.
    ///
    /// # Errors
    /// A path with an interior NUL byte or that is not valid UTF-8, or the driver's error
    /// (for example a folder that does not exist).
    pub fn write_dot(&self, path: &std::path::Path, verbose: bool) -> Result<()> {
        let text = path.to_str().ok_or_else(|| {
            Error::InvalidArgument(format!("{} is not a UTF-8 path", path.display()))
        })?;
        let c = std::ffi::CString::new(text)
            .map_err(|_| Error::InvalidArgument(format!("the path {text:?} holds a NUL byte")))?;
        // CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE is bit 0.
        let flags = u32::from(verbose);
        self.ctx.bind_to_thread()?;
        let _serial = self.lock();
        // SAFETY: a live graph and a NUL-terminated path that outlives the call; the driver
        // only reads the graph and writes the file; no other call on the graph runs meanwhile.
        unsafe { drv!(cuGraphDebugDotPrint(self.raw, c.as_ptr(), flags)) }?;
        Ok(())
    }

    /// Makes an executable graph of it.
    pub fn instantiate(&self) -> Result<GraphExec> {
        self.instantiate_with_flags(0)
    }

    /// Makes an executable graph that frees the memory allocated in it (and not freed in it)
    /// before each relaunch (`CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`).
    pub fn instantiate_auto_free(&self) -> Result<GraphExec> {
        self.instantiate_with_flags(
            sys::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.0 as u64,
        )
    }

    /// Makes an executable graph with raw `CUDA_GRAPH_INSTANTIATE_FLAG_*` flags.
    pub fn instantiate_with_flags(&self, flags: u64) -> Result<GraphExec> {
        self.ctx.bind_to_thread()?;
        let mut raw: CUgraphExec = std::ptr::null_mut();
        let serial = self.lock();
        // SAFETY: `raw` is a valid out-pointer; the graph is live, and no other call on it runs
        // meanwhile (`serial`).
        unsafe { drv!(cuGraphInstantiateWithFlags(&mut raw, self.raw, flags)) }?;
        drop(serial);
        Ok(GraphExec {
            ctx: self.ctx.clone(),
            raw,
            external: self.external.clone(),
            uses: self.uses.clone(),
            graph: None,
            copies: Vec::new(),
            memcpy_nodes: None,
            launches: Mutex::new(Launches::default()),
            family: self.access.clone(),
        })
    }

    /// [`instantiate`](Self::instantiate), the executable graph keeping this graph: the
    /// destinations of its copies can then be moved ([`GraphExec::copy_node_into`],
    /// [`GraphExec::retarget_copy`]), which needs the graph's nodes.
    ///
    /// ```no_run
    /// use cuprite_driver::{CaptureMode, Context};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = Context::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let src = stream.clone_htod(&[1u8, 2, 3])?;
    /// let mut dst = stream.alloc_zeros::<u8>(3)?;
    /// stream.begin_capture(CaptureMode::ThreadLocal)?;
    /// stream.memcpy_dtod(&src, &mut dst)?;
    /// let mut exec = stream.end_capture()?.into_exec()?;
    /// let node = exec.copy_node_into(&dst)?.expect("one copy writes dst");
    /// let mut other = stream.alloc_zeros::<u8>(3)?;
    /// exec.retarget_copy(node, &mut other)?;
    /// exec.launch(&stream)?;
    /// assert_eq!(stream.clone_dtoh(&other)?, [1, 2, 3]);
    /// assert_eq!(stream.clone_dtoh(&dst)?, [0, 0, 0]);
    /// # Ok(()) }
    /// ```
    pub fn into_exec(self) -> Result<GraphExec> {
        let mut exec = self.instantiate()?;
        exec.graph = Some(self);
        Ok(exec)
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        let _serial = self.lock();
        // SAFETY: the graph is ours and nothing else refers to it (executable graphs are
        // independent copies); no call on its executable graphs runs meanwhile (`_serial`).
        if let Err(e) = unsafe { drv!(cuGraphDestroy(self.raw)) } {
            self.ctx.defer("cuGraphDestroy", e);
        }
    }
}

/// An executable graph: launch it on any stream of its context, as often as needed.
pub struct GraphExec {
    ctx: Arc<Context>,
    raw: CUgraphExec,
    external: Vec<Arc<TrackEvent>>,
    /// The allocations (and modules) the captured work uses: kept alive while this lives, and
    /// declared to the stream tracker at each launch.
    uses: CapturedUses,
    /// The graph it was instantiated from, when kept ([`Graph::into_exec`]): its nodes name
    /// the copies whose destination may move. Dropped after the executable graph.
    graph: Option<Graph>,
    /// The copies found by [`copy_node_into`](Self::copy_node_into), indexed by [`CopyNode`].
    copies: Vec<MovableCopy>,
    /// The kept graph's memcpy nodes and their parameters as captured, listed once.
    memcpy_nodes: Option<Vec<(sys::CUgraphNode, sys::CUDA_MEMCPY3D)>>,
    /// The cells its launches' marks name, and what the last launch left in the trackers.
    launches: Mutex<Launches>,
    /// The lock of the graph it was instantiated from (see `Graph::access`), held by every
    /// driver call on `raw` (after `launches` where both are held).
    family: Arc<Mutex<()>>,
}

/// Whether launches write marks naming a [`LaunchCell`] (and skip the trackers of an unchanged
/// access set): on unless the environment variable `CUPRITE_LAUNCH_CELLS` is `0`, which makes
/// every launch declare and mark each buffer with an event of its own. Read once.
fn launch_cells() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CUPRITE_LAUNCH_CELLS").is_none_or(|v| v != "0"))
}

/// Whether a steady launch (the same access set on the same stream, nothing declared again) on
/// a stream cuprite created leaves its cell's recording owed instead of recording it (see
/// `LaunchCell`): on unless the environment variable `CUPRITE_DEFERRED_CELLS` is `0` or
/// [`set_deferred_cells`] turned it off.
///
/// ```
/// let was = cuprite_driver::graph::deferred_cells();
/// cuprite_driver::graph::set_deferred_cells(!was);
/// assert_eq!(cuprite_driver::graph::deferred_cells(), !was);
/// cuprite_driver::graph::set_deferred_cells(was);
/// ```
#[doc(hidden)]
pub fn deferred_cells() -> bool {
    match DEFERRED_CELLS.load(Ordering::Relaxed) {
        2 => {
            let on = std::env::var_os("CUPRITE_DEFERRED_CELLS").is_none_or(|v| v != "0");
            // A `set_deferred_cells` since the load wins.
            let _ = DEFERRED_CELLS.compare_exchange(
                2,
                u8::from(on),
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            DEFERRED_CELLS.load(Ordering::Relaxed) == 1
        }
        v => v == 1,
    }
}

/// 2 until first read from the environment, else 0 (off) or 1 (on).
static DEFERRED_CELLS: AtomicU8 = AtomicU8::new(2);

/// Turns on or off, for the launches that follow in this process, the deferred recording of a
/// steady graph launch's cell (`CUPRITE_DEFERRED_CELLS`): with it, a launch of the same buffers
/// on the same stream as the last one enqueues the graph and nothing else, and the event that
/// later users of its buffers wait for is recorded when the first of them asks for it. For
/// timing both ways in one process; the semantics are the same.
///
/// ```
/// cuprite_driver::graph::set_deferred_cells(false);
/// cuprite_driver::graph::set_deferred_cells(true);
/// ```
#[doc(hidden)]
pub fn set_deferred_cells(on: bool) {
    DEFERRED_CELLS.store(u8::from(on), Ordering::Relaxed);
}

/// Streams a [`GraphExec`] keeps a [`LaunchCell`] for at most; launches on further streams
/// write marks of their own recording.
const CELLS: usize = 16;

/// The launch state of a [`GraphExec`].
#[derive(Default)]
struct Launches {
    /// One cell per stream launched on (outside captures), at most [`CELLS`].
    cells: Vec<Arc<LaunchCell>>,
    /// The last launch, when every mark it wrote names its stream's cell.
    last: Option<Replayed>,
    /// The count of abandoned allocations (`tracker::abandoned`) read before the last check
    /// that found every buffer the launches use live; `None` until one did.
    live_at: Option<u64>,
}

/// What a launch left in the trackers of its own access set (the allocations its captured work
/// uses, the moved copy destinations and the word, in that order): every buffer's marks name
/// `cell` (of stream `stream`, whose tracking id it is), and each tracker had the version in
/// `versions` after them. Until one of those versions changes (someone else wrote a mark),
/// a launch of the same access set on the same stream has nothing to wait for there (its
/// buffers' last uses are its own stream's, or were waited for by it already, as were the
/// graph's pre-capture dependencies) and needs no new marks: recording the cell again makes
/// every mark stand for it.
struct Replayed {
    stream: u64,
    cell: Arc<LaunchCell>,
    /// The word's tracker (its address), 0 without a word.
    word: usize,
    versions: Vec<u64>,
}

/// A copy node of an executable graph whose destination [`GraphExec::retarget_copy`] may move:
/// found by [`GraphExec::copy_node_into`], valid for that graph only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CopyNode(usize);

/// One movable copy: its node (of the kept graph), its parameters as captured (a 1D device
/// copy of `bytes` bytes) and the destination it writes now.
struct MovableCopy {
    node: sys::CUgraphNode,
    params: sys::CUDA_MEMCPY3D,
    bytes: usize,
    /// The tracker of the destination set by the last [`GraphExec::retarget_copy`] (`None`: the
    /// captured one, which `uses` holds): kept alive and declared written at every launch
    /// while the copy writes it.
    moved_to: Option<Arc<TrackShared>>,
    /// Whether `moved_to` is an allocation the captured work already writes (in `uses`, so
    /// declared written at every launch already): it is then not declared twice.
    moved_to_used: bool,
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphExec")
            .field("raw", &self.raw)
            .field("pre_capture_dependencies", &self.external.len())
            .field("buffers_used", &self.uses.buffers.len())
            .finish()
    }
}

// SAFETY: a CUgraphExec is not tied to a thread.
unsafe impl Send for GraphExec {}
// SAFETY: every driver call on `raw` through `&self` (launches, uploads) holds the `launches`
// lock, so no two run at once, and every call on `raw` holds the family lock, so none runs
// beside a call on its graph or the graph's other executable graphs; the others take `&mut
// self`.
unsafe impl Sync for GraphExec {}

impl GraphExec {
    /// The driver's handle.
    pub fn raw(&self) -> CUgraphExec {
        self.raw
    }

    /// Enqueues one run of the graph on `stream` (of the graph's context, else `Err`).
    ///
    /// The run waits for earlier work on `stream`, for the work on other streams that the
    /// captured work depended on when it was captured, and, like a launch, for the work on
    /// other streams that uses the buffers it reads or writes; later users of those buffers on
    /// other streams wait for it in turn. The graph keeps every allocation its work uses alive,
    /// so a buffer dropped since the capture is still valid here; memory cuprite does not own
    /// (a borrowed view, a leaked buffer) whose owner is gone makes this an `Err`.
    #[inline]
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        type B<T> = crate::DeviceBuffer<T>;
        self.launch_with::<B<u8>, B<u8>, B<u64>, B<u8>, B<u8>>(stream, &mut [], None, &mut [])
    }

    /// [`launch`](Self::launch) with device-to-device copies enqueued before the run
    /// (`copies_in`), a 64-bit word written before it (`word`: the destination and its value,
    /// as [`Stream::write_u64`] writes it) and copies enqueued after it (`copies_out`), all
    /// under the run's one declared access set: the stream waits once for the conflicting work
    /// on other streams and records one event, where separate copies and a launch would each
    /// wait and record. For writing a graph's own input buffers before each run and copying
    /// its results out after it. Each pair has one length; every buffer is of `stream`'s
    /// context (else `Err` before anything is enqueued).
    ///
    /// ```no_run
    /// use cuprite_driver::{CaptureMode, Context};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = Context::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let (mut input, mut output) = (stream.alloc_zeros::<u8>(4)?, stream.alloc_zeros::<u8>(4)?);
    /// stream.begin_capture(CaptureMode::ThreadLocal)?;
    /// stream.memcpy_dtod(&input, &mut output)?;
    /// let exec = stream.end_capture()?.instantiate()?;
    /// let (new, mut result) = (stream.clone_htod(&[1u8, 2, 3, 4])?, stream.alloc_zeros::<u8>(4)?);
    /// let no_word = None::<(&mut cuprite_driver::DeviceBuffer<u64>, u64)>;
    /// exec.launch_with(&stream, &mut [(&new, &mut input)], no_word, &mut [(&output, &mut result)])?;
    /// assert_eq!(stream.clone_dtoh(&result)?, [1, 2, 3, 4]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`launch`](Self::launch); a pair whose lengths differ, a buffer of another context,
    /// a word that is not 8 bytes at a 4-byte-aligned address (naming the values).
    pub fn launch_with<SI, DI, W, SO, DO>(
        &self,
        stream: &Stream,
        copies_in: &mut [(&SI, &mut DI)],
        word: Option<(&mut W, u64)>,
        copies_out: &mut [(&SO, &mut DO)],
    ) -> Result<()>
    where
        SI: DeviceRead<u8> + ?Sized,
        DI: DeviceWrite<u8> + ?Sized,
        W: DeviceWrite<u64> + ?Sized,
        SO: DeviceRead<u8> + ?Sized,
        DO: DeviceWrite<u8> + ?Sized,
    {
        if stream.context().raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(format!(
                "GraphExec::launch: the graph belongs to the context of device {} ({:?}), the \
                 stream to another (device {}, {:?}); launch it on a stream of its own context",
                self.ctx.ordinal(),
                self.ctx.raw(),
                stream.context().ordinal(),
                stream.context().raw()
            )));
        }
        let ctx = stream.context();
        let check = |what: &str, i: usize, s: usize, d: usize, local: bool| -> Result<()> {
            if s != d {
                return Err(Error::InvalidArgument(format!(
                    "GraphExec::launch_with: {what} {i} has a source of {s} bytes and a \
                     destination of {d}"
                )));
            }
            if !local {
                return Err(Error::InvalidArgument(format!(
                    "GraphExec::launch_with: {what} {i} has a buffer of another context than \
                     the stream's"
                )));
            }
            Ok(())
        };
        for (i, (src, dst)) in copies_in.iter().enumerate() {
            let local = Arc::ptr_eq(src.tracker().context(), ctx)
                && Arc::ptr_eq(dst.tracker().context(), ctx);
            check("copy in", i, src.len(), dst.len(), local)?;
        }
        for (i, (src, dst)) in copies_out.iter().enumerate() {
            let local = Arc::ptr_eq(src.tracker().context(), ctx)
                && Arc::ptr_eq(dst.tracker().context(), ctx);
            check("copy out", i, src.len(), dst.len(), local)?;
        }
        let word = match word {
            Some((w, value)) => {
                let (bytes, ptr) = (w.num_bytes(), w.device_ptr_mut());
                if bytes != 8 || ptr % 4 != 0 || !Arc::ptr_eq(w.tracker().context(), ctx) {
                    return Err(Error::InvalidArgument(format!(
                        "GraphExec::launch_with: the word is {bytes} bytes at {ptr:#x}; it must \
                         be 8 bytes at a 4-byte-aligned address of the stream's context"
                    )));
                }
                Some((&*w, ptr, value))
            }
            None => None,
        };
        stream.context().bind_to_thread()?;
        let buffers = &self.uses.buffers;
        let moved = || {
            self.copies
                .iter()
                .filter(|c| !c.moved_to_used)
                .filter_map(|c| c.moved_to.as_ref())
        };
        let mut launches = self.launches();
        let _serial = self.serial();
        // Every buffer is checked again only when an allocation was abandoned since the last
        // check found them all live (the count moved).
        let abandoned = crate::memory::tracker::abandoned();
        let checked = launches.live_at == Some(abandoned);
        launches.live_at = None;
        if !checked && moved().any(|b| b.memory_may_be_gone()) {
            return Err(Error::InvalidArgument(
                "GraphExec::launch: a copy destination set by retarget_copy was dropped by its \
                 owner and is not cuprite's to keep alive (borrowed or leaked memory); retarget \
                 it to live memory"
                    .into(),
            ));
        }
        if let Some(i) = (!checked)
            .then(|| buffers.iter().position(|(b, _)| b.memory_may_be_gone()))
            .flatten()
        {
            return Err(Error::InvalidArgument(format!(
                "GraphExec::launch: allocation {i} of the {} this graph uses was dropped by its \
                 owner and is not cuprite's to keep alive (borrowed or leaked memory); \
                 re-capture the graph with live memory",
                buffers.len()
            )));
        }
        launches.live_at = Some(abandoned);
        // Memory the host also reaches (pinned, managed) that the graph uses: its next host
        // access waits for this launch. Marked before the launch is enqueued.
        for &i in &self.uses.host_visible {
            if let Some((b, _)) = buffers.get(i) {
                b.host_sync.mark();
            }
        }
        for b in moved().filter(|b| b.host_visible) {
            b.host_sync.mark();
        }
        let word_key = word
            .as_ref()
            .map_or(0, |(w, _, _)| Arc::as_ptr(&w.tracker().shared) as usize);
        let enqueue_word = |stream: &Stream| -> Result<()> {
            match &word {
                Some((_, ptr, value)) => {
                    // Little-endian halves: the low word first.
                    let (lo, hi) = (*value as u32, (*value >> 32) as u32);
                    // SAFETY: one 32-bit value at `ptr` and one at `ptr + 4`, both inside the 8
                    // aligned bytes of the word (checked above), declared in the launch's
                    // accesses.
                    unsafe { drv!(cuMemsetD32Async(*ptr, lo, 1, stream.raw())) }?;
                    // SAFETY: as above, the second half.
                    unsafe { drv!(cuMemsetD32Async(*ptr + 4, hi, 1, stream.raw())) }
                }
                None => Ok(()),
            }
        };
        let sid = stream.track_id();
        let plain = copies_in.is_empty() && copies_out.is_empty();
        let cells = launch_cells();
        if cells && plain && !capture::any_active() {
            if let Some(last) = &mut launches.last {
                let own = self.own_accesses(word.as_ref().map(|(w, _, _)| *w));
                if last.stream == sid && last.word == word_key {
                    // The same access set on the same stream: only the buffers whose marks
                    // someone else wrote since the last launch are declared again (waited for,
                    // and marked); for the others there is nothing to wait for, and recording
                    // the cell again makes their marks stand for this launch.
                    let mut changed: Vec<(usize, Access<'_>)> = Vec::new();
                    let mut n = 0;
                    for (i, a) in own.enumerate() {
                        if last.versions.get(i) != Some(&a.shared.version()) {
                            changed.push((i, a));
                        }
                        n += 1;
                    }
                    if n == last.versions.len() {
                        let again: Vec<Access<'_>> = changed.iter().map(|&(_, a)| a).collect();
                        if !again.is_empty() {
                            stream.begin_access(&again)?;
                        }
                        let r = enqueue_word(stream).and_then(|()| {
                            // SAFETY: the executable graph and the stream are live and of the
                            // same context.
                            unsafe { drv!(cuGraphLaunch(self.raw, stream.raw())) }
                        });
                        // What was enqueued is recorded even when a later step failed. With
                        // nothing declared again, a cell that may owe its recording only notes
                        // the debt: the first reader of its event records it (see `LaunchCell`).
                        let mut recorded = if again.is_empty()
                            && last.cell.may_owe()
                            && deferred_cells()
                            && r.is_ok()
                        {
                            last.cell.owe();
                            Ok(())
                        } else {
                            stream.record_cell(&last.cell)
                        };
                        if !again.is_empty() && recorded.is_ok() {
                            let mut versions = Vec::with_capacity(again.len());
                            recorded = match stream.end_access_latest(
                                &again,
                                &last.cell,
                                true,
                                &mut versions,
                            ) {
                                Ok(Some(true)) => {
                                    for (&(i, _), v) in changed.iter().zip(versions) {
                                        last.versions[i] = v;
                                    }
                                    Ok(())
                                }
                                Ok(_) => {
                                    launches.last = None;
                                    Ok(())
                                }
                                Err(e) => {
                                    launches.last = None;
                                    Err(e)
                                }
                            };
                        }
                        r?;
                        return recorded;
                    }
                }
            }
        }
        launches.last = None;
        let ins: Vec<(CUdeviceptr, CUdeviceptr, usize)> = copies_in
            .iter_mut()
            .map(|(src, dst)| (dst.device_ptr_mut(), src.device_ptr(), src.len()))
            .collect();
        let outs: Vec<(CUdeviceptr, CUdeviceptr, usize)> = copies_out
            .iter_mut()
            .map(|(src, dst)| (dst.device_ptr_mut(), src.device_ptr(), src.len()))
            .collect();
        let mut accesses: Vec<Access<'_>> = Vec::with_capacity(
            buffers.len()
                + self.copies.len()
                + 2 * (copies_in.len() + copies_out.len())
                + usize::from(word.is_some()),
        );
        // The graph's own access set first (see `Replayed`), then the copies'.
        accesses.extend(buffers.iter().map(|(shared, write)| Access {
            shared,
            write: *write,
        }));
        accesses.extend(moved().map(|shared| Access {
            shared,
            write: true,
        }));
        if let Some((w, _, _)) = &word {
            accesses.push(Access::write(*w));
        }
        let own = accesses.len();
        for (src, dst) in copies_in.iter() {
            accesses.push(Access::read(*src));
            accesses.push(Access::write(&**dst));
        }
        for (src, dst) in copies_out.iter() {
            accesses.push(Access::read(*src));
            accesses.push(Access::write(&**dst));
        }
        stream.begin_access(&accesses)?;
        // Outside a capture, a stream that waited for a pre-capture dependency once (an
        // earlier launch on it) stays ordered after it.
        let real = capture::capture_of(sid) == 0;
        for ev in &self.external {
            if real && ev.waited_by(sid) {
                continue;
            }
            crate::stats::count_stream_wait();
            // SAFETY: a live stream and a live event (kept by `external`, so never
            // re-recorded).
            unsafe { drv!(cuStreamWaitEvent(stream.raw(), ev.raw, 0)) }?;
            if real {
                ev.note_waited(sid);
            }
        }
        let copy = |list: &[(CUdeviceptr, CUdeviceptr, usize)]| -> Result<()> {
            for &(dptr, sptr, bytes) in list {
                if bytes == 0 {
                    continue;
                }
                // SAFETY: both ranges are live allocations of the stream's context holding
                // `bytes` bytes (one length per pair, checked above), declared in `accesses`
                // and so ordered with other streams' work on them.
                unsafe { drv!(cuMemcpyDtoDAsync_v2(dptr, sptr, bytes, stream.raw())) }?;
            }
            Ok(())
        };
        let r = copy(&ins)
            .and_then(|()| enqueue_word(stream))
            .and_then(|()| {
                // SAFETY: the executable graph and the stream are live and of the same context.
                unsafe { drv!(cuGraphLaunch(self.raw, stream.raw())) }
            })
            .and_then(|()| copy(&outs));
        // What was enqueued is recorded even when a later step failed. Outside a capture, the
        // marks name this stream's cell of the graph (a new one recorded here, if any).
        let cell = if real && cells {
            match launches.cells.iter().find(|c| c.stream == sid) {
                Some(c) => Some((c.clone(), false)),
                None if launches.cells.len() < CELLS => match stream.new_cell() {
                    Ok(c) => {
                        launches.cells.push(c.clone());
                        Some((c, true))
                    }
                    Err(e) => {
                        // Nothing recorded: the marks are written the ordinary way.
                        drop(e);
                        None
                    }
                },
                None => None,
            }
        } else {
            None
        };
        let recorded = match cell {
            Some((cell, fresh)) => {
                let mut versions = Vec::with_capacity(accesses.len());
                match stream.end_access_latest(&accesses, &cell, fresh, &mut versions) {
                    Ok(Some(true)) => {
                        versions.truncate(own);
                        launches.last = Some(Replayed {
                            stream: sid,
                            cell,
                            word: word_key,
                            versions,
                        });
                        Ok(())
                    }
                    Ok(_) => Ok(()),
                    Err(e) => Err(e),
                }
            }
            None => stream.end_access(&accesses),
        };
        r?;
        recorded
    }

    /// The launch state, whatever a panic elsewhere left (each update of it is whole).
    fn launches(&self) -> MutexGuard<'_, Launches> {
        self.launches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Serialises a driver call on the executable graph with the calls on its graph and the
    /// graph's other executable graphs (see `Graph::access`).
    fn serial(&self) -> MutexGuard<'_, ()> {
        family_lock(&self.family)
    }

    /// The graph's own access set (see [`Replayed`]) with `word`: the allocations its captured
    /// work uses, the moved copy destinations, the word, in the order `launch_with` declares
    /// them.
    fn own_accesses<'s, W: DeviceWrite<u64> + ?Sized>(
        &'s self,
        word: Option<&'s W>,
    ) -> impl Iterator<Item = Access<'s>> {
        let moved = self
            .copies
            .iter()
            .filter(|c| !c.moved_to_used)
            .filter_map(|c| c.moved_to.as_ref())
            .map(|shared| Access {
                shared,
                write: true,
            });
        let used = self.uses.buffers.iter().map(|(shared, write)| Access {
            shared,
            write: *write,
        });
        used.chain(moved).chain(word.map(|w| Access::write(w)))
    }

    /// The copy node of this graph (instantiated by [`Graph::into_exec`]) that writes all of
    /// `dst` and nothing else: a 1D device-to-device copy of `dst.len()` bytes to its first
    /// byte, the only copy of the graph that writes there. `None` when there is no such node
    /// (or several), or when the graph was not kept. The node's destination may then be moved
    /// by [`retarget_copy`](Self::retarget_copy).
    ///
    /// See [`Graph::into_exec`] for an example.
    ///
    /// # Errors
    /// The driver's, when listing the graph's nodes or reading a copy's parameters fails.
    pub fn copy_node_into<D: DeviceRead<u8> + ?Sized>(
        &mut self,
        dst: &D,
    ) -> Result<Option<CopyNode>> {
        let (want, bytes) = (dst.device_ptr(), dst.len());
        if bytes == 0 || self.graph.is_none() {
            return Ok(None);
        }
        if self.memcpy_nodes.is_none() {
            self.memcpy_nodes = Some(self.list_copies()?);
        }
        let nodes = self.memcpy_nodes.as_deref().unwrap_or_default();
        let device = |t: sys::CUmemorytype| {
            t == sys::CUmemorytype::CU_MEMORYTYPE_DEVICE
                || t == sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED
        };
        let mut found = None;
        for &(node, p) in nodes {
            let to = p.dstDevice.wrapping_add(p.dstXInBytes as u64);
            let flat = p.Height == 1
                && p.Depth == 1
                && p.dstY == 0
                && p.dstZ == 0
                && p.srcY == 0
                && p.srcZ == 0
                && device(p.srcMemoryType)
                && device(p.dstMemoryType);
            // Any copy reaching into `dst` other than one whole 1D copy makes it unmovable.
            let rows = (p.Height as u64).saturating_mul(p.Depth as u64);
            let row = p.WidthInBytes.max(p.dstPitch) as u64;
            let end = to.saturating_add(row.saturating_mul(rows.max(1)));
            let overlaps =
                device(p.dstMemoryType) && to < want.saturating_add(bytes as u64) && end > want;
            if !overlaps {
                continue;
            }
            if !flat || to != want || p.WidthInBytes != bytes || found.is_some() {
                return Ok(None);
            }
            found = Some((node, p));
        }
        let Some((node, params)) = found else {
            return Ok(None);
        };
        if let Some(i) = self.copies.iter().position(|c| c.node == node) {
            return Ok(Some(CopyNode(i)));
        }
        self.copies.push(MovableCopy {
            node,
            params,
            bytes,
            moved_to: None,
            moved_to_used: false,
        });
        Ok(Some(CopyNode(self.copies.len() - 1)))
    }

    /// The memcpy nodes of the kept graph, with their parameters.
    fn list_copies(&self) -> Result<Vec<(sys::CUgraphNode, sys::CUDA_MEMCPY3D)>> {
        let Some(graph) = &self.graph else {
            return Ok(Vec::new());
        };
        self.ctx.bind_to_thread()?;
        // Held while the nodes are read: the graph is only ever ours (`&mut self` excludes
        // other calls through this executable graph), but the lock keeps the rule uniform.
        let _serial = graph.lock();
        let mut n = 0usize;
        // SAFETY: a null node array asks only for the count, written to `n`.
        unsafe { drv!(cuGraphGetNodes(graph.raw, std::ptr::null_mut(), &mut n)) }?;
        let mut nodes: Vec<sys::CUgraphNode> = vec![std::ptr::null_mut(); n];
        // SAFETY: `nodes` holds room for `n` handles, and `n` says so.
        unsafe { drv!(cuGraphGetNodes(graph.raw, nodes.as_mut_ptr(), &mut n)) }?;
        nodes.truncate(n);
        let mut copies = Vec::new();
        for node in nodes {
            let mut kind = sys::CUgraphNodeType::default();
            // SAFETY: a node of the live graph and a valid out-pointer.
            unsafe { drv!(cuGraphNodeGetType(node, &mut kind)) }?;
            if kind != sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMCPY {
                continue;
            }
            let mut p = sys::CUDA_MEMCPY3D::default();
            // SAFETY: a memcpy node of the live graph and a valid out-pointer.
            unsafe { drv!(cuGraphMemcpyNodeGetParams(node, &mut p)) }?;
            copies.push((node, p));
        }
        Ok(copies)
    }

    /// Moves the destination of the copy `node` (found by
    /// [`copy_node_into`](Self::copy_node_into)) to `dst`, of the same length, for the launches
    /// enqueued from now on (`cuGraphExecMemcpyNodeSetParams`; launches already enqueued write
    /// where they did). The graph then keeps `dst`'s allocation alive and declares it written at
    /// each launch, until the copy is moved again; the copy's first destination stays among
    /// the allocations its captured work uses.
    ///
    /// See [`Graph::into_exec`] for an example.
    ///
    /// # Errors
    /// A node of another graph (or found before an [`update`](Self::update)), a destination of
    /// another length or context, or the driver's refusal (naming the values); the copy then
    /// writes where it did.
    pub fn retarget_copy<D: DeviceWrite<u8> + ?Sized>(
        &mut self,
        node: CopyNode,
        dst: &mut D,
    ) -> Result<()> {
        let n = self.copies.len();
        let Some(copy) = self.copies.get_mut(node.0) else {
            return Err(Error::InvalidArgument(format!(
                "GraphExec::retarget_copy: copy node {} is not one of the {n} found in this \
                 graph",
                node.0
            )));
        };
        if copy.node.is_null() {
            return Err(Error::InvalidArgument(format!(
                "GraphExec::retarget_copy: copy node {} was found before an update of the graph; \
                 find it again",
                node.0
            )));
        }
        let (bytes, ptr) = (dst.len(), dst.device_ptr_mut());
        if bytes != copy.bytes {
            return Err(Error::InvalidArgument(format!(
                "GraphExec::retarget_copy: the copy writes {} bytes, the destination has {bytes}",
                copy.bytes
            )));
        }
        if !Arc::ptr_eq(dst.tracker().context(), &self.ctx) {
            return Err(Error::InvalidArgument(
                "GraphExec::retarget_copy: the destination belongs to another context than the \
                 graph's"
                    .into(),
            ));
        }
        let mut p = copy.params;
        p.dstDevice = ptr;
        p.dstXInBytes = 0;
        self.ctx.bind_to_thread()?;
        let family = self.family.clone();
        let serial = family_lock(&family);
        // SAFETY: a memcpy node of the graph this executable graph was instantiated from (kept
        // in `graph`), parameters of the same 1D shape as captured with a destination of
        // `bytes` live bytes of this context (checked above), kept alive by `moved_to` below
        // for as long as the copy writes there; no call on the graph's family runs meanwhile
        // (`serial`).
        unsafe {
            drv!(cuGraphExecMemcpyNodeSetParams(
                self.raw,
                copy.node,
                &p,
                self.ctx.raw()
            ))
        }?;
        drop(serial);
        let shared = &dst.tracker().shared;
        copy.moved_to_used = self
            .uses
            .buffers
            .iter()
            .any(|(b, write)| *write && Arc::ptr_eq(b, shared));
        let left = copy.moved_to.replace(shared.clone());
        // The access set changed: the next launch declares it whole, and checks it whole.
        let launches = self.launches.get_mut().unwrap_or_else(|e| e.into_inner());
        launches.last = None;
        launches.live_at = None;
        // The destination left behind (unless the captured work uses it, which every launch
        // declares) is no longer written by later launches: its marks stop following them.
        if let Some(left) = left {
            if !self.uses.buffers.iter().any(|(b, _)| Arc::ptr_eq(b, &left)) {
                for cell in &launches.cells {
                    crate::memory::tracker::freeze_marks(&left, cell)?;
                }
            }
        }
        Ok(())
    }

    /// Whether the graph's work uses the allocation behind `buf`: `None` when it does not,
    /// `Some(true)` when it writes it, `Some(false)` when it only reads it.
    ///
    /// ```no_run
    /// use cuprite_driver::{CaptureMode, Context};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = Context::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let (src, other) = (stream.clone_htod(&[1u32, 2])?, stream.clone_htod(&[3u32])?);
    /// let mut dst = stream.alloc_zeros::<u32>(2)?;
    /// stream.begin_capture(CaptureMode::ThreadLocal)?;
    /// stream.memcpy_dtod(&src, &mut dst)?;
    /// let exec = stream.end_capture()?.instantiate()?;
    /// assert_eq!(exec.buffer_use(&src), Some(false));
    /// assert_eq!(exec.buffer_use(&dst), Some(true));
    /// assert_eq!(exec.buffer_use(&other), None);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn buffer_use<T, B: crate::DeviceRead<T> + ?Sized>(&self, buf: &B) -> Option<bool> {
        let shared = &buf.tracker().shared;
        self.uses
            .buffers
            .iter()
            .find(|(b, _)| Arc::ptr_eq(b, shared))
            .map(|(_, w)| *w)
    }

    /// How many allocations the graph's work uses (and keeps alive).
    pub fn num_buffers_used(&self) -> usize {
        self.uses.buffers.len()
    }

    /// Uploads the graph's resources to the device ahead of its first launch, on `stream`
    /// (of the graph's context, else `Err`).
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        if stream.context().raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(format!(
                "GraphExec::upload: the graph belongs to the context of device {} ({:?}), the \
                 stream to another (device {}, {:?})",
                self.ctx.ordinal(),
                self.ctx.raw(),
                stream.context().ordinal(),
                stream.context().raw()
            )));
        }
        stream.context().bind_to_thread()?;
        // Serialised with launches (the driver does not synchronise calls on one executable
        // graph).
        let _launches = self.launches();
        let _serial = self.serial();
        // SAFETY: the executable graph and the stream are live and of the same context; no
        // other call on the executable graph runs meanwhile (`_launches`).
        unsafe { drv!(cuGraphUpload(self.raw, stream.raw())) }
    }

    /// Updates this executable graph in place with the parameters of `graph`, which must have
    /// the same topology (typically: the same work re-captured with other arguments). On a
    /// topology change the `Err` says what differed, and the graph is left as it was.
    pub fn update(&mut self, graph: &Graph) -> Result<()> {
        if graph.ctx.raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(
                "GraphExec::update: the graph was captured in another context than this \
                 executable graph's"
                    .into(),
            ));
        }
        self.ctx.bind_to_thread()?;
        for ev in &graph.external {
            if !self.external.iter().any(|e| Arc::ptr_eq(e, ev)) {
                self.external.push(ev.clone());
            }
        }
        let mut info = sys::CUgraphExecUpdateResultInfo {
            result: sys::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
            errorNode: std::ptr::null_mut(),
            errorFromNode: std::ptr::null_mut(),
        };
        let serial = graph.lock();
        // SAFETY: both graphs are live; `info` is a valid out-pointer; no other call on
        // `graph` runs meanwhile (`serial`), nor on this one (`&mut self`).
        let r = unsafe { drv!(cuGraphExecUpdate_v2(self.raw, graph.raw, &mut info)) };
        drop(serial);
        match r {
            Ok(()) => {
                // The graph now runs `graph`'s work: keep what that uses. What only the old
                // work used may go; its last uses are ordered by the stream tracker.
                self.uses = graph.uses.clone();
                // The access set changed: the next launch declares it whole.
                self.launches
                    .get_mut()
                    .unwrap_or_else(|e| e.into_inner())
                    .last = None;
                // The copies now write where `graph` says; what they were moved to stays
                // declared until this executable graph goes (the nodes named are the old graph's).
                for c in &mut self.copies {
                    c.node = std::ptr::null_mut();
                    // `uses` changed: the destination is declared on its own again.
                    c.moved_to_used = false;
                }
                self.memcpy_nodes = Some(Vec::new());
                Ok(())
            }
            Err(e) => {
                use sys::CUgraphExecUpdateResult as U;
                let why = match info.result {
                    U::CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED => "the topology changed",
                    U::CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED => "a node's type changed",
                    U::CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED => {
                        "a kernel node's function changed"
                    }
                    U::CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED => {
                        "a node's parameters changed in a way that cannot be updated"
                    }
                    U::CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED => {
                        "something about the nodes is not supported by update"
                    }
                    U::CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE => {
                        "a kernel's function changed in an unsupported way"
                    }
                    U::CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED => "node attributes changed",
                    _ => "the driver refused the update",
                };
                Err(Error::InvalidArgument(format!(
                    "cannot update the executable graph: {why} ({e})"
                )))
            }
        }
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        let _serial = self.serial();
        // SAFETY: ours; the driver keeps in-flight launches alive until they finish; no call on
        // its graph or the graph's other executable graphs runs meanwhile (`_serial`).
        if let Err(e) = unsafe { drv!(cuGraphExecDestroy(self.raw)) } {
            self.ctx.defer("cuGraphExecDestroy", e);
        }
    }
}
