//! Captured programs: [`compile`] turns a closure of array work into a [`Compiled`] program that
//! runs, per input signature (device and input shapes), as one CUDA graph replayed on every
//! call.
//!
//! It owns the cache of captured graphs of one program and the buffers of each: the graph's
//! own copies of the inputs (written before each replay, unless a buffer already holds a copy
//! of the very storage passed, which it then keeps alive), and its outputs (written by the
//! graph's last nodes, copies, and handed out as they are: a copy whose buffer is still held
//! by anyone when the next replay comes is first moved to a free buffer, see `OutputSlot`;
//! where the copies cannot be moved, the outputs are copied out into fresh arrays after each
//! replay instead). A replay is one declared access set on the stream tracker, on the calling
//! thread's stream: the input copies, the key word (two memsets), the launch (with the graph's
//! input buffers and its output buffers of this replay) and, without movable copies, the
//! copies out, so the outputs are ready in that stream's order with no cross-stream wait. A
//! stream the program may not keep until it drops (a foreign or per-thread stream) has the
//! replay enqueued on the graph's private stream instead, and waits for it (no work).
//! Invariants:
//!
//! - a captured graph's addresses are never handed to other work: while capturing, the thread
//!   takes no buffer kept for reuse (`runtime::take_free`, `storage::take_parked`), and a
//!   buffer a graph uses is never kept for reuse when dropped (`runtime::reusable`);
//! - a buffer the user holds is never written by a graph: inputs are copied in, and an output
//!   buffer is written again only once no one but the program holds it and it was never
//!   locked (so no untracked work can have used it);
//! - every allocation made inside a graph is freed inside it: its input and output buffers are
//!   ordinary allocations made before the capture, so nothing of a graph's memory pool is held
//!   outside a launch;
//! - the capture's own allocations are parts of an arena (see `runtime::ArenaGuard`): one
//!   allocation made before it, sized by the eager run's allocations, or, for a capture with
//!   no eager run before it, chunks allocated while it runs on a stream that never captures
//!   ([`arena_stream`]), which the private stream waits for before the first launch; parts
//!   are handed out in order and never reused within the graph, so the graph has no
//!   allocation or free nodes; a part is never kept for reuse (`runtime::reusable`) nor taken
//!   out of an array, and the arena goes with the graph, freed after the launches (on the
//!   private stream, or on the chunks' stream once it waited for the private stream); what
//!   does not fit is allocated by the graph, as without an arena; every byte of the arena is
//!   zeroed where it is allocated, before the first launch, so the row counters that a
//!   one-launch reduction leaves zero need no memset node (`runtime::zeroed_arena_part`);
//! - a first call captures at once unless that capture needs a run outside it first (see
//!   [`Compiled::call`]); a refused capture is never instantiated or launched;
//! - the closure's random draws read their key from a word of the graph's, rewritten before
//!   each launch, and its FFT plans (made by the eager run before the capture) are the graph's
//!   own, dropped after it;
//! - a capture that fails (an `Err` or a panic of the closure) is ended and its graph discarded
//!   before the `Err` is returned, and its stream is kept for another capture only when it is
//!   not capturing;
//! - a dropped graph's private stream waits for every stream its launches were enqueued on
//!   before its FFT plans go and before it is kept for another capture (the launches use its
//!   plans and its cuBLASLt workspace); where it cannot, the plans are leaked and the stream
//!   is not kept.
//!
//! It must not launch kernels itself: the closure's work is the array library's own.

use crate::array::Array;
use crate::device::{Backend, Device};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::fft::GraphPlans;
use crate::random::{CallKey, call_key_offset, keyed_draws, with_call_key};
use crate::runtime::{CaptureFlag, with_stream};
use crate::shape::Layout;
use crate::storage::Storage;
use cuprite_driver::{CaptureMode, CaptureStatus, DeviceRead, DeviceViewMut, GraphExec, Stream};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How many captured graphs (input signatures) a [`Compiled`] program keeps unless told
/// otherwise ([`Compiled::with_cache_limit`]); the least recently used is dropped first.
pub const DEFAULT_GRAPH_LIMIT: usize = 8;

/// The stages of a replay that [`replay_stage_timing`] times, in order.
const STAGES: [&str; 5] = [
    "signature and cache lookup",
    "inputs (which to copy, their views)",
    "output buffers (copies moved off held ones; fresh ones in copy-out mode)",
    "launch (copies in, key word, graph, copies out if any: one access set)",
    "output arrays",
];

/// The stages of a first call (a capture) that [`replay_stage_timing`] times, in order.
const CAPTURE_STAGES: [&str; 7] = [
    "stream, input copies, key word",
    "eager run, only when the capture needs one (kernels, plans, workspaces; output shapes)",
    "optimised builds waited for",
    "capture (the closure recorded, outputs copied)",
    "end of capture and instantiation",
    "output copies found and made movable",
    "first launch",
];

/// Per thread: the stage totals in nanoseconds and the calls timed; `None` while timing is off.
type Totals<const N: usize> = Cell<Option<([u64; N], u64)>>;

thread_local! {
    /// This thread's replay stage totals; `None` while timing is off, so that an untimed
    /// replay reads no clock.
    static STAGE_TIMES: Totals<{ STAGES.len() }> = const { Cell::new(None) };
    /// This thread's capture stage totals, timed and cleared with [`STAGE_TIMES`].
    static CAPTURE_TIMES: Totals<{ CAPTURE_STAGES.len() }> = const { Cell::new(None) };
}

/// Turns on (clearing the totals) or off the timing of each stage of the replays and of the
/// captures this thread makes: a diagnostic for the host cost of [`Compiled::call`], read with
/// [`take_replay_stages`] and [`take_capture_stages`]. Off by default; when off, a call reads
/// no clock.
///
/// ```
/// cuprite_array::replay_stage_timing(true);
/// // ... replays of compiled programs on this thread ...
/// let stages = cuprite_array::take_replay_stages();
/// assert!(stages.iter().all(|(_, secs)| *secs >= 0.0));
/// cuprite_array::replay_stage_timing(false);
/// ```
#[doc(hidden)]
pub fn replay_stage_timing(on: bool) {
    STAGE_TIMES.with(|t| t.set(on.then_some(([0; STAGES.len()], 0))));
    CAPTURE_TIMES.with(|t| t.set(on.then_some(([0; CAPTURE_STAGES.len()], 0))));
}

/// The mean host time in seconds of each stage of the replays timed on this thread since
/// [`replay_stage_timing`] turned timing on or since the last call of this function (which
/// clears the totals): one `(stage, seconds)` per stage, in order, or nothing when timing is
/// off or no replay was timed.
///
/// ```
/// cuprite_array::replay_stage_timing(false);
/// assert!(cuprite_array::take_replay_stages().is_empty());
/// ```
#[doc(hidden)]
#[must_use]
pub fn take_replay_stages() -> Vec<(&'static str, f64)> {
    take_means(&STAGE_TIMES, &STAGES)
}

/// [`take_replay_stages`] for the first calls (captures) timed on this thread: the mean host
/// time of each stage of a capture, from the stream taken to the first launch enqueued.
///
/// ```
/// cuprite_array::replay_stage_timing(false);
/// assert!(cuprite_array::take_capture_stages().is_empty());
/// ```
#[doc(hidden)]
#[must_use]
pub fn take_capture_stages() -> Vec<(&'static str, f64)> {
    take_means(&CAPTURE_TIMES, &CAPTURE_STAGES)
}

/// The mean seconds of each of `names`' stages in `key`'s totals, which it clears.
fn take_means<const N: usize>(
    key: &'static std::thread::LocalKey<Totals<N>>,
    names: &[&'static str; N],
) -> Vec<(&'static str, f64)> {
    key.with(|t| match t.get() {
        Some((sums, n)) if n > 0 => {
            t.set(Some(([0; N], 0)));
            names
                .iter()
                .zip(sums)
                .map(|(name, ns)| (*name, ns as f64 * 1e-9 / n as f64))
                .collect()
        }
        _ => Vec::new(),
    })
}

/// The clock of one call's stages: `lap` is `None` while timing is off.
struct StageClock<const N: usize> {
    lap: Option<(Instant, [u64; N])>,
    key: &'static std::thread::LocalKey<Totals<N>>,
}

impl StageClock<{ STAGES.len() }> {
    /// The clock of a replay.
    fn start() -> Self {
        StageClock::on(&STAGE_TIMES)
    }

    /// A clock that times nothing (a first launch is not a replay).
    fn off() -> Self {
        StageClock {
            lap: None,
            key: &STAGE_TIMES,
        }
    }
}

impl<const N: usize> StageClock<N> {
    /// A clock adding to `key`'s totals, running when they are on.
    fn on(key: &'static std::thread::LocalKey<Totals<N>>) -> Self {
        let on = key.with(|t| t.get().is_some());
        StageClock {
            lap: on.then(|| (Instant::now(), [0; N])),
            key,
        }
    }

    /// Ends stage `i` (begun when the previous one ended).
    fn lap(&mut self, i: usize) {
        if let Some((t, sums)) = &mut self.lap {
            let now = Instant::now();
            let ns = u64::try_from(now.duration_since(*t).as_nanos()).unwrap_or(u64::MAX);
            sums[i] = sums[i].saturating_add(ns);
            *t = now;
        }
    }

    /// Adds this call's stages to the thread's totals.
    fn finish(self) {
        if let Some((_, mine)) = self.lap {
            self.key.with(|t| {
                if let Some((mut sums, n)) = t.get() {
                    for (s, m) in sums.iter_mut().zip(mine) {
                        *s = s.saturating_add(m);
                    }
                    t.set(Some((sums, n + 1)));
                }
            });
        }
    }
}

/// Compiles `f`, a closure of array work from input arrays to output arrays, into a program
/// that is captured as a CUDA graph the first time it runs for each input signature (device
/// and shapes) and replayed afterwards. See [`Compiled::call`].
///
/// ```
/// use cuprite_array::{Array, compile};
/// let step = compile(|x: &[Array<f32>]| {
///     let h = ((&x[0] * 0.5).tanh() + &x[1]) * 2.0;
///     Ok(vec![h.sum()?])
/// });
/// let a = Array::from_slice(&[0.0f32, 1.0, 2.0], &[3])?;
/// let b = Array::from_slice(&[1.0f32, 1.0, 1.0], &[3])?;
/// let out = step.call(&[&a, &b])?;
/// let want: f32 = [0.0f32, 1.0, 2.0].iter().map(|v| ((v * 0.5).tanh() + 1.0) * 2.0).sum();
/// assert!((out[0].item()? - want).abs() < 1e-5);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn compile<T, U, F>(f: F) -> Compiled<T, U, F>
where
    T: Element,
    U: Element,
    F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>>,
{
    Compiled {
        f,
        limit: DEFAULT_GRAPH_LIMIT,
        repeat_random: false,
        cache: Mutex::new(Cache {
            entries: Vec::new(),
            tick: 0,
        }),
    }
}

/// A program made by [`compile`]: its closure and the graphs captured from it, one per input
/// signature, at most [`DEFAULT_GRAPH_LIMIT`] (or the limit given) kept.
pub struct Compiled<T: Element, U: Element, F> {
    f: F,
    limit: usize,
    /// Every call draws with the seeds as given (offset 0).
    repeat_random: bool,
    cache: Mutex<Cache<T, U>>,
}

impl<T: Element, U: Element, F> std::fmt::Debug for Compiled<T, U, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("limit", &self.limit)
            .field(
                "graphs",
                &self
                    .cache
                    .lock()
                    .map(|c| c.entries.len())
                    .unwrap_or_default(),
            )
            .finish()
    }
}

struct Cache<T: Element, U: Element> {
    entries: Vec<Entry<T, U>>,
    /// Calls made so far, on every device: call `n` (counted from 0) keys its random draws
    /// with `call_key_offset(n)`, and an entry's `last_used` is the count after its last call.
    tick: u64,
}

/// What a graph is captured for: the device and every input's shape (the element type is the
/// program's).
#[derive(Clone, PartialEq, Eq, Debug)]
struct Signature {
    device: Device,
    shapes: Vec<Vec<usize>>,
}

struct Entry<T: Element, U: Element> {
    sig: Signature,
    last_used: u64,
    graph: Captured<T, U>,
}

/// One captured graph and the buffers it replays on. Dropped in this order: the outputs (freed
/// stream-ordered after the last replay), the executable graph, its FFT plans, its arena, the
/// inputs, and
/// only then is the stream given back (every free on it is enqueued by then, so none can be
/// captured by the stream's next user).
struct Captured<T: Element, U: Element> {
    /// The graph's outputs, one slot each, in order.
    outputs: Vec<OutputSlot>,
    /// Whether the outputs are handed out as written by the graph (every output's copy can be
    /// moved to another buffer: see [`OutputSlot`]); otherwise they are copied out into fresh
    /// arrays after each launch and no slot's buffer ever leaves the program.
    direct: bool,
    /// Always `Some` until dropped.
    exec: Option<GraphExec>,
    /// The graph's own contiguous copies of the inputs, rewritten before each launch.
    inputs: Vec<Array<T>>,
    /// Per input, the storage whose bytes its buffer in `inputs` holds now (copied from it,
    /// and not rewritten since), or `None` when unknown. Held here, so that storage can be
    /// neither freed, reused nor handed back while it is named: the same storage passed
    /// again holds the same bytes (array storage is never written once made; memory of another
    /// library, which it may write, is never named), and its copy is skipped.
    copied_from: Vec<Option<Arc<Storage>>>,
    /// The `u64` word the captured random draws are keyed by (`seed ^ word`), rewritten
    /// before each launch that `keyed` says reads it.
    key: Arc<Storage>,
    /// Whether the capture recorded a random draw (a kernel that reads `key`).
    keyed: bool,
    /// The cuFFT plans its FFTs run (made by the eager run before the capture): their device
    /// memory lives as long as the graph.
    fft_plans: Option<cuprite_driver::fft::PlanCache>,
    /// The arena the capture's allocations are parts of (see `runtime::ArenaGuard`), one
    /// allocation or the chunks of a growing arena: its memory lives as long as the graph (and
    /// any part still held), and is freed after the launches: on the private stream, or on
    /// `arena_side` (where a growing arena's chunks were allocated) once it waited for the
    /// private stream.
    arena: Vec<Arc<cuprite_driver::DeviceBuffer<u8>>>,
    /// The stream a growing arena's chunks were allocated on (see [`arena_stream`]), `None`
    /// when the arena was allocated on the private stream.
    arena_side: Option<Arc<Stream>>,
    /// The graph's private stream (from [`take_stream`], given back on drop): captures run
    /// here, so no other thread's work can be captured into the graph, and so do the copies in
    /// and launches of a call whose own stream is one the program may not keep (see
    /// [`launch_stream`]).
    stream: Arc<Stream>,
    /// The callers' streams that launches were enqueued on (each once; see [`launch_stream`]):
    /// the private stream is made to wait for each of them before anything the launches use
    /// goes with the program (its FFT plans, the private stream's cuBLASLt workspace handed to
    /// the stream's next user).
    launch_streams: Vec<Arc<Stream>>,
    /// Every kernel the capture took from the JIT cache: kept loaded while the graph can run
    /// (a tier-up or a cache clear retires the cache's copy, and `device_gc` unloads what is
    /// retired), then retired with it.
    kernels: Vec<Arc<crate::jit::Kernel>>,
    /// The element type of the outputs the slots hold.
    out_type: std::marker::PhantomData<fn() -> U>,
}

/// One output of a captured graph: the buffer its last node (a copy) writes at each launch, and
/// the buffers it wrote before, kept for reuse.
///
/// Invariants: `current` is never written by a launch while any other owner holds it (the
/// user's arrays, a lazy node reading it, a device view, an input record) or once it was ever
/// locked (a raw pointer handed out) or while another graph uses it (see [`Target::unheld`]):
/// before a launch, a held `current` is replaced by a free
/// spare or a fresh buffer and the copy moved there. The program holds `current` for as long
/// as the copy writes it, so its memory never goes under a launch; the graph declares it
/// written at each launch, so pending users of it on other streams are waited for. A spare is
/// written again only once free (only the program holds it, unlocked).
struct OutputSlot {
    shape: Vec<usize>,
    device: Device,
    /// Where the copy writes now.
    current: Target,
    /// Earlier targets, still held by their users when replaced (at most [`SPARES`]).
    spares: Vec<Target>,
    /// The graph's copy into `current`, when it can be moved (`None` for an empty output,
    /// which no launch writes, and in copy-out mode).
    node: Option<cuprite_driver::CopyNode>,
}

/// An output buffer of an [`OutputSlot`], the array node handed out for it (a leaf of the whole
/// buffer, whose clones are the outputs of the calls that wrote it: one node per buffer, so a
/// call whose output was dropped makes no new node), and how many graphs held its memory when
/// this program last made its copy write it (its own executable graph and captured graph among
/// them): more holders now means another graph captured a use of it (an output passed into
/// another program's environment), which reads it at that address, so it is never written
/// again.
struct Target {
    buf: Arc<Storage>,
    node: Arc<Node>,
    holds: usize,
}

impl Target {
    /// `buf` (holding an output of `shape` on `device`), with the graphs that hold its memory now
    /// counted as the program's own.
    fn new(buf: Arc<Storage>, shape: &[usize], device: Device) -> Self {
        let holds = graph_holds(&buf);
        let node = Node::new(
            Op::Leaf(buf.clone(), Layout::contiguous(shape)),
            buf.dtype(),
            shape,
            device,
        );
        Target { buf, node, holds }
    }

    /// Whether no one but the program holds the buffer (its own reference and its node's, the
    /// node referenced by the program alone: no array, lazy result or view of it is left) and
    /// no work the library does not track can have used it (it was never locked: no raw
    /// pointer, device view or export of it was handed out), and no other graph uses it: a
    /// launch may write it.
    fn unheld(&self) -> bool {
        let s = &self.buf;
        Arc::strong_count(&self.node) == 1
            && Arc::weak_count(&self.node) == 0
            && Arc::strong_count(s) == 2
            && Arc::weak_count(s) == 0
            && !s.is_locked()
            && !s.was_exposed()
            && graph_holds(s) <= self.holds
    }
}

/// How many graphs (and captures in progress) keep the memory of `s` alive.
fn graph_holds(s: &Storage) -> usize {
    match s {
        Storage::Cuda(d) => d.live().map_or(0, |b| {
            cuprite_driver::DeviceRead::<u8>::tracker(b).graph_holds()
        }),
        Storage::Host(_) => 0,
    }
}

/// The largest arena a capture takes its allocations from (see `Captured::arena`): its parts
/// are never reused within the graph, so a program whose eager run allocates more lets the
/// graph allocate (and reuse) its own memory instead.
const ARENA_MAX_BYTES: usize = 64 << 20;

/// Whether captures take their allocations from an arena (see `Captured::arena`): on unless the
/// environment variable `CUPRITE_GRAPH_ARENA` is `0`, which lets every graph allocate its own
/// memory (allocation and free nodes). Read once.
fn graph_arena() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CUPRITE_GRAPH_ARENA").is_none_or(|v| v != "0"))
}

/// Whether a first call captures at once, running the closure eagerly first only when the
/// capture needs it (see [`Compiled::call`]): on unless the environment variable
/// `CUPRITE_GRAPH_DIRECT` is `0`, which runs the closure eagerly before every capture. Read
/// once.
fn direct_capture() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CUPRITE_GRAPH_DIRECT").is_none_or(|v| v != "0"))
}

/// A stream of `ctx` that the growing arenas of direct captures allocate their chunks on (see
/// `runtime::ArenaGuard::grow`), one per context, kept for the process: it is never capturing
/// (only chunk allocations and frees run on it), and it outlives every chunk.
fn arena_stream(ctx: &Arc<cuprite_driver::Context>) -> Result<Arc<Stream>> {
    static SIDES: Mutex<Vec<Arc<Stream>>> = Mutex::new(Vec::new());
    let mut sides = SIDES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = sides.iter().find(|s| Arc::ptr_eq(s.context(), ctx)) {
        return Ok(s.clone());
    }
    let s = ctx.new_stream()?;
    sides.push(s.clone());
    Ok(s)
}

/// A graph's random key word on CUDA device `ordinal`: 8 bytes holding `offset`, written on
/// `stream` (two memsets).
fn key_word(ordinal: usize, offset: u64, stream: &Stream) -> Result<Arc<Storage>> {
    // SAFETY: `write_u64` writes all 8 bytes before anything reads them; on an `Err` the word
    // is dropped unread.
    let mut bufs = unsafe { crate::backend::cuda::alloc_uninit(ordinal, &[(u64::DTYPE, 1)]) }?;
    let mut word = bufs
        .pop()
        .ok_or_else(|| Error::InvalidArgument("no key word was allocated".into()))?;
    let b = word
        .buffer_mut()
        .ok_or_else(|| Error::InvalidArgument("the key word has no allocation".into()))?;
    stream.write_u64(b, offset)?;
    Ok(Arc::new(Storage::Cuda(word)))
}

/// What a direct capture ([`Captured::capture_direct`]) made.
struct DirectCapture {
    exec: GraphExec,
    outputs: Vec<OutputSlot>,
    direct: bool,
    keyed: bool,
    kernels: Vec<Arc<crate::jit::Kernel>>,
    chunks: Vec<Arc<cuprite_driver::DeviceBuffer<u8>>>,
    side: Arc<Stream>,
}

/// Earlier output buffers an [`OutputSlot`] keeps for reuse: a program whose outputs are held
/// for a few calls and then dropped reuses them; beyond this, the oldest is left to its users.
const SPARES: usize = 2;

impl<T: Element, U: Element> Drop for Captured<T, U> {
    fn drop(&mut self) {
        // The private stream waits for every launch enqueued on a caller's stream, so that
        // what follows on it (the plans' wait, the frees, its next user) comes after them.
        let mut ordered = true;
        for s in std::mem::take(&mut self.launch_streams) {
            // Every stream is joined, whatever the others gave.
            ordered &= join_launches(&self.stream, &s);
        }
        self.outputs.clear();
        drop(self.exec.take());
        match self.fft_plans.take() {
            // Each plan waits for its transforms on the private stream (after the launches)
            // before it goes.
            Some(plans) if ordered => drop(plans),
            // A launch this stream could not be ordered after may still run the plans'
            // transforms: their memory is left to the process rather than freed under it.
            Some(plans) => std::mem::forget(plans),
            None => {}
        }
        let arena = std::mem::take(&mut self.arena);
        if !arena.is_empty() {
            // Freed on the private stream after the launches (joined above), or on the side
            // stream once it waited for the private stream.
            let freed_in_order = ordered
                && self
                    .arena_side
                    .as_ref()
                    .is_none_or(|side| side.join(&self.stream).is_ok());
            if freed_in_order {
                drop(arena);
            } else {
                // A launch the freeing stream could not be ordered after may still use it:
                // left to the process.
                std::mem::forget(arena);
            }
        }
        self.inputs.clear();
        self.copied_from.clear();
        crate::jit::retire_all(std::mem::take(&mut self.kernels));
        if ordered {
            give_stream(self.stream.clone());
        }
        // Otherwise the stream is never handed to another capture: its library workspace stays
        // its own (kept with its handle), whatever launch may still read it.
    }
}

/// Makes `private` wait for the launches enqueued on `caller` so far; `false` when it could
/// not (`caller` is capturing, or the driver refused), so nothing may assume that order.
fn join_launches(private: &Stream, caller: &Stream) -> bool {
    caller.capture_status().ok() == Some(CaptureStatus::None) && private.join(caller).is_ok()
}

/// Callers' streams a graph launches on at most (see [`launch_stream`]).
const LAUNCH_STREAMS: usize = 8;

/// The stream a replay is enqueued on: the caller's own (this thread's array stream of the
/// program's device), so that its outputs are ready in that stream's order with no
/// cross-stream wait, unless the program may not keep that stream until it drops: a foreign
/// stream (its owner may destroy it), a per-thread default stream (another thread's drop
/// would name its own), or a stream beyond the [`LAUNCH_STREAMS`] the graph already keeps
/// (`known`); those replays run on the private stream, and the caller's stream then waits for
/// them.
fn launch_stream<'a>(
    caller: &'a Arc<Stream>,
    private: &'a Arc<Stream>,
    known: &[Arc<Stream>],
) -> &'a Arc<Stream> {
    let kept = known.iter().any(|s| Arc::ptr_eq(s, caller)) || known.len() < LAUNCH_STREAMS;
    if kept
        && Arc::ptr_eq(caller.context(), private.context())
        && !caller.is_foreign()
        && !caller.is_per_thread()
    {
        caller
    } else {
        private
    }
}

/// Streams of dropped graphs, kept per context for the next capture: the library state made
/// per stream (a cuBLASLt handle and its workspace) is then bounded by the number of graphs
/// alive at once, not the number ever captured. A stream here is used by no graph.
static STREAMS: Mutex<Vec<Arc<Stream>>> = Mutex::new(Vec::new());

/// Streams kept in [`STREAMS`] at most.
const STREAMS_KEPT: usize = 64;

/// A stream of `ctx` used by no graph: a kept one, or a new one.
fn take_stream(ctx: &Arc<cuprite_driver::Context>) -> Result<Arc<Stream>> {
    let mut kept = STREAMS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = kept.iter().position(|s| Arc::ptr_eq(s.context(), ctx)) {
        return Ok(kept.swap_remove(i));
    }
    drop(kept);
    Ok(ctx.new_stream()?)
}

/// Keeps `stream` (whose graph is dropped, or whose capture failed) for a later capture, only
/// if it is not capturing: a stream whose capture could not be ended is ended once more and
/// dropped, so that no later capture begins on a stream in an unknown state.
fn give_stream(stream: Arc<Stream>) {
    if stream.capture_status().ok() != Some(CaptureStatus::None) {
        drop(stream.end_capture());
        return;
    }
    let mut kept = STREAMS.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() < STREAMS_KEPT {
        kept.push(stream);
    }
}

/// A capture in progress on `stream`, ended (its graph discarded) when dropped unfinished: on
/// an `Err` or a panic of the closure, the stream never stays capturing.
struct Recording<'a> {
    stream: &'a Arc<Stream>,
    finished: bool,
}

impl<'a> Recording<'a> {
    fn begin(stream: &'a Arc<Stream>) -> Result<Self> {
        stream.begin_capture(CaptureMode::ThreadLocal)?;
        Ok(Recording {
            stream,
            finished: false,
        })
    }

    /// Ends the capture and returns its graph.
    fn end(mut self) -> Result<cuprite_driver::Graph> {
        self.finished = true;
        Ok(self.stream.end_capture()?)
    }
}

impl Drop for Recording<'_> {
    fn drop(&mut self) {
        if !self.finished {
            // Everything the closure made was dropped inside the capture; the graph, never
            // instantiated, goes with its allocations.
            drop(self.stream.end_capture());
        }
    }
}

impl<T, U, F> Compiled<T, U, F>
where
    T: Element,
    U: Element,
    F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>>,
{
    /// Keeps at most `limit` captured graphs (at least one), dropping the least recently used.
    ///
    /// ```
    /// use cuprite_array::{Array, compile};
    /// let double = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * 2.0])).with_cache_limit(2);
    /// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// assert_eq!(double.call(&[&a])?[0].to_vec()?, [2.0, 4.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn with_cache_limit(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// With `on`, every call draws the same random numbers: those of an eager run of the
    /// closure with its seeds. By default call `n` (counted from 0 over every signature) keys
    /// each draw of seed `s` with `s ^ cuprite_array::random::call_key_offset(n)`: the first
    /// call draws as an eager run does, and no two calls draw the same numbers, on CUDA (the
    /// key is a word of device memory that each replay rewrites) as on the CPU.
    ///
    /// ```
    /// use cuprite_array::{Array, compile};
    /// let noise = compile(|x: &[Array<f32>]| {
    ///     Ok(vec![&x[0] + &Array::<f32>::rand_uniform(&[4], 7)?])
    /// });
    /// let zero = Array::from_slice(&[0.0f32; 4], &[4])?;
    /// let (a, b) = (noise.call(&[&zero])?, noise.call(&[&zero])?);
    /// assert_eq!(a[0].to_vec()?, Array::<f32>::rand_uniform(&[4], 7)?.to_vec()?);
    /// assert_ne!(a[0].to_vec()?, b[0].to_vec()?);
    /// let same = compile(|x: &[Array<f32>]| {
    ///     Ok(vec![&x[0] + &Array::<f32>::rand_uniform(&[4], 7)?])
    /// })
    /// .repeat_random(true);
    /// assert_eq!(same.call(&[&zero])?[0].to_vec()?, same.call(&[&zero])?[0].to_vec()?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn repeat_random(mut self, on: bool) -> Self {
        self.repeat_random = on;
        self
    }

    /// The driver handles of the executable graph captured for the signature of `inputs` and
    /// of its private stream (where it was captured; calls replay on the caller's stream, see
    /// [`call`](Self::call)): `None` on the CPU and before the first call with that
    /// signature. For measuring a raw `cuGraphLaunch` of the same graph against
    /// [`call`](Self::call); the handles stay valid while this program keeps that graph (it
    /// is dropped with the program or evicted by a capture of more signatures than the limit).
    /// Launching them directly is `unsafe` and skips the input copies and the tracking.
    ///
    /// ```
    /// use cuprite_array::{Array, compile};
    /// let double = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * 2.0]));
    /// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// double.call(&[&a])?;
    /// // Some on CUDA (the graph was captured by the call), None on the CPU.
    /// assert_eq!(
    ///     double.raw_graph(&[&a])?.is_some(),
    ///     a.device().backend == cuprite_array::Backend::Cuda
    /// );
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn raw_graph(
        &self,
        inputs: &[&Array<T>],
    ) -> Result<
        Option<(
            cuprite_driver::sys::driver::CUgraphExec,
            cuprite_driver::sys::driver::CUstream,
        )>,
    > {
        let sig = signature(inputs)?;
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        Ok(cache
            .entries
            .iter()
            .find(|e| e.sig == sig)
            .and_then(|e| Some((e.graph.exec.as_ref()?.raw(), e.graph.stream.raw()))))
    }

    /// How many output buffers the kept graphs hold now (each output's current buffer and its
    /// spares, see [`call`](Self::call)): a diagnostic of buffer reuse, 0 on the CPU.
    ///
    /// ```
    /// use cuprite_array::{Array, compile};
    /// let double = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * 2.0]));
    /// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// drop(double.call(&[&a])?);
    /// drop(double.call(&[&a])?);
    /// // One buffer on CUDA (the dropped output's is written again), none on the CPU.
    /// assert!(double.output_buffers() <= 1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[doc(hidden)]
    #[must_use]
    pub fn output_buffers(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entries
            .iter()
            .flat_map(|e| &e.graph.outputs)
            .map(|o| 1 + o.spares.len())
            .sum()
    }

    /// How many captured graphs are kept now.
    pub fn num_graphs(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entries
            .len()
    }

    /// Runs the program on `inputs` (all on one device) and returns its outputs, ordinary
    /// arrays that no later call overwrites.
    ///
    /// On the CPU backend the closure runs directly. On CUDA, the first call for a signature
    /// (device and input shapes) runs the closure under stream capture on the program's
    /// private stream, all its lazy work realised there, into a CUDA graph, which it then
    /// launches; its outputs are the graph's, as every later call's are. When that capture
    /// needs something made outside a capture first (a library handle or workspace of the
    /// stream, an FFT plan, a kernel whose optimised build is still on its way, a product's
    /// algorithm timing, a cuDNN route), or fails for any reason, it is discarded unlaunched
    /// and the closure runs twice more: once eagerly (building its kernels, library plans and
    /// workspaces, and reporting its own errors) and once under capture again; so the closure
    /// may run one, two or three times in a first call, and the graph is the same either way
    /// (the same kernels, plans and algorithms an eager call uses once warm). With the
    /// environment variable `CUPRITE_GRAPH_DIRECT=0`, every first call takes the eager run.
    /// Results are bit for bit those of an eager call that runs the same kernels and algorithms:
    /// a reduction's order of additions follows the kernel that runs it (a quick first build
    /// or the optimised build that replaces it), and cuDNN's measured algorithm choices are
    /// made per stream, so an eager call made before the optimised builds are in (see
    /// [`tuning::wait_tier_up`](crate::tuning::wait_tier_up)), or with another measured
    /// choice, may round differently.
    /// Later calls with the same signature copy the inputs (device to device) into the graph's
    /// own input buffers and replay it, without running the closure; an input array whose
    /// memory is the one the graph's buffer was last copied from (the same array, or a clone of
    /// it, passed again: weights passed at every step) is not copied again. The program keeps
    /// the memory of the inputs last copied alive until they are replaced by other inputs or
    /// the graph is dropped. The outputs are buffers of the program's that the graph wrote; a
    /// later call writes one again only once every array (or lazy result, or device view) of
    /// it is dropped and it was never locked (`device_ptr`, DLPack), so outputs held from
    /// earlier calls keep their values, and inputs may be dropped or changed between calls.
    /// A call's copies and launch are enqueued on the calling thread's stream (the array stream,
    /// or the stream of [`with_stream`](crate::with_stream)), so its outputs are in that
    /// stream's order as any array result is; with a foreign or per-thread stream (or more than
    /// eight streams used with one graph) they run on the program's private stream, which that
    /// stream then waits for.
    ///
    /// Inside the capture, anything that waits for the device or reads device memory on the
    /// host (`to_vec`, `item`, `sync`, data-dependent output sizes such as `nonzero`, checked
    /// scatters, cuSOLVER decompositions, out-of-memory retries) is an `Err` naming the call, and so is an FFT the eager
    /// run did not make a plan for (FFT plans and their work areas are made by the eager run,
    /// on the program's stream, and kept by the graph); the capture is ended and discarded,
    /// and the stream and context stay usable. Arrays the closure uses from its
    /// environment are read (or written) at every replay at the address they had when
    /// captured; the graph keeps their memory alive. Random draws use the seed given in the
    /// closure, keyed per call (see [`repeat_random`](Self::repeat_random)).
    ///
    /// Other threads may use the same GPU meanwhile: their context-wide waits ([`sync`],
    /// [`device_gc`], the retry after an out-of-memory error), which the driver forbids during
    /// a capture, wait for it to end.
    ///
    /// [`sync`]: crate::sync
    /// [`device_gc`]: crate::device_gc
    ///
    /// ```
    /// use cuprite_array::{Array, compile};
    /// let norm = compile(|x: &[Array<f32>]| {
    ///     let m = x[0].mean()?;
    ///     Ok(vec![&x[0] - &m])
    /// });
    /// let a = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// assert_eq!(norm.call(&[&a])?[0].to_vec()?, [-1.0, 0.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn call(&self, inputs: &[&Array<T>]) -> Result<Vec<Array<U>>> {
        let mut clock = StageClock::start();
        crate::runtime::refuse_in_capture_because(
            "a compiled program's call",
            "a capture is in progress on this thread (compiled programs do not nest); call the \
             inner program's closure directly",
        )?;
        let sig = LazySignature::of(inputs)?;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let n = cache.tick;
        cache.tick += 1;
        let tick = cache.tick;
        let offset = if self.repeat_random {
            0
        } else {
            call_key_offset(n)
        };
        if sig.device.backend != Backend::Cuda {
            drop(cache);
            // The same keyed draws as a replay's (the key read from a word of memory).
            let owned: Vec<Array<T>> = inputs.iter().map(|&x| x.clone()).collect();
            let word =
                Array::<u64>::from_slice_on(sig.device, &[offset], &[1])?.contiguous_storage()?;
            return crate::device::with_device(sig.device, || {
                with_call_key(CallKey::Device { word, offset }, || (self.f)(&owned))
            });
        }
        if let Some(e) = cache
            .entries
            .iter_mut()
            .find(|e| e.sig.matches(sig.device, inputs))
        {
            e.last_used = tick;
            clock.lap(0);
            let outs = e.graph.replay(inputs, offset, &mut clock)?;
            clock.finish();
            return Ok(outs);
        }
        let sig = signature(inputs)?;
        let (graph, outs) = Captured::capture(&self.f, inputs, sig.device.ordinal, offset)?;
        if cache.entries.len() >= self.limit {
            if let Some(i) = (0..cache.entries.len()).min_by_key(|&i| cache.entries[i].last_used) {
                cache.entries.swap_remove(i);
            }
        }
        cache.entries.push(Entry {
            sig,
            last_used: tick,
            graph,
        });
        Ok(outs)
    }
}

/// The common device of a call's inputs (checked), the rest of their signature read from them
/// only where needed: a replay compares shapes in place, allocating nothing.
struct LazySignature {
    device: Device,
}

impl LazySignature {
    fn of<T: Element>(inputs: &[&Array<T>]) -> Result<Self> {
        let Some(first) = inputs.first() else {
            return Err(Error::InvalidArgument(
                "a compiled program needs at least one input array (its device)".into(),
            ));
        };
        let device = first.device();
        if let Some((i, x)) = inputs
            .iter()
            .enumerate()
            .find(|(_, x)| x.device() != device)
        {
            return Err(Error::DeviceMismatch(format!(
                "a compiled program's inputs must share one device: input 0 is on {device}, \
                 input {i} on {}",
                x.device()
            )));
        }
        Ok(LazySignature { device })
    }
}

impl Signature {
    /// Whether `inputs` (all on `device`) have this signature.
    fn matches<T: Element>(&self, device: Device, inputs: &[&Array<T>]) -> bool {
        self.device == device
            && self.shapes.len() == inputs.len()
            && self
                .shapes
                .iter()
                .zip(inputs)
                .all(|(s, x)| s.as_slice() == x.shape())
    }
}

/// The signature of `inputs`: their common device and shapes; `Err` when there are none or
/// they live on several devices.
fn signature<T: Element>(inputs: &[&Array<T>]) -> Result<Signature> {
    let device = LazySignature::of(inputs)?.device;
    Ok(Signature {
        device,
        shapes: inputs.iter().map(|x| x.shape().to_vec()).collect(),
    })
}

/// Whether a later copy from `s` into a graph's input buffer may be skipped while the buffer
/// still holds a copy of it: CUDA memory of the library's own (array storage is never written
/// once made), not memory of another library (a DLPack import), which that library may write.
fn copy_skippable(s: &Storage) -> bool {
    matches!(s, Storage::Cuda(d) if d.interop.foreign.is_none() && d.live().is_some())
}

/// The device buffer behind a contiguous CUDA storage.
fn device_buffer<'a>(s: &'a Storage, what: &str) -> Result<&'a cuprite_driver::DeviceBuffer<u8>> {
    match s {
        Storage::Cuda(d) => d.live().ok_or_else(|| {
            Error::InvalidArgument(format!("{what} of a compiled program has no allocation"))
        }),
        Storage::Host(_) => Err(Error::DeviceMismatch(format!(
            "{what} of a compiled program on CUDA holds host memory"
        ))),
    }
}

/// A fresh contiguous copy of `x` on CUDA device `ordinal`, made on the current stream.
fn copy_array<E: Element>(x: &Array<E>, ordinal: usize) -> Result<Array<E>> {
    let s = x.contiguous_storage()?;
    let Storage::Cuda(d) = &*s else {
        return Err(Error::DeviceMismatch(format!(
            "an array of {} holds host memory",
            x.device()
        )));
    };
    let copy = crate::backend::cuda::copy_to(d, ordinal)?;
    Ok(Array::from_storage(
        copy,
        Layout::contiguous(x.shape()),
        x.shape(),
        x.device(),
    ))
}

/// Copies the first `bytes` of `src` into `dst`, one of the program's own buffers (a graph
/// input or output, which never leaves the program), on `stream`; `what` names `src` in errors.
fn copy_bytes<E: Element>(
    stream: &Arc<Stream>,
    src: &Storage,
    dst: &Array<E>,
    bytes: usize,
    what: &str,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let dst = dst.contiguous_storage()?;
    let s = device_buffer(src, what)?.slice(0..bytes)?;
    let d = device_buffer(&dst, "a compiled program's buffer")?;
    if bytes > d.len() {
        return Err(Error::Shape(format!(
            "{what} of {bytes} bytes does not fit the graph's buffer of {} bytes",
            d.len()
        )));
    }
    // SAFETY: `d` is the program's own buffer, `bytes` within it (checked above); only this
    // program writes it, and the tracker `d` owns orders the write after earlier reads of it.
    let mut view = unsafe { DeviceViewMut::from_raw_parts(d.device_ptr(), bytes, d.tracker()) };
    stream.memcpy_dtod(&s, &mut view)?;
    Ok(())
}

/// Writes `graph` as a DOT file into the folder `CUPRITE_GRAPH_DOT` names, when it is set (see
/// [`crate::tuning`]): `cuprite-graph-<process>-<n>.dot`, `n` counting the captures of the
/// process.
fn write_dot(graph: &cuprite_driver::Graph) -> Result<()> {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let Some(dir) = std::env::var_os("CUPRITE_GRAPH_DOT") else {
        return Ok(());
    };
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let path =
        std::path::Path::new(&dir).join(format!("cuprite-graph-{}-{n}.dot", std::process::id()));
    Ok(graph.write_dot(&path, true)?)
}

impl<T: Element, U: Element> Captured<T, U> {
    /// Captures `f` on `inputs` (on CUDA device `ordinal`) with the random key offset `offset`,
    /// launches the graph once and returns it with this first call's outputs: the launch's,
    /// handed out like a replay's (never the eager run's: see [`Compiled::call`]).
    fn capture<F>(
        f: &F,
        inputs: &[&Array<T>],
        ordinal: usize,
        offset: u64,
    ) -> Result<(Self, Vec<Array<U>>)>
    where
        F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>>,
    {
        let st = crate::runtime::state(ordinal)?;
        if !st.ctx.uses_memory_pool() {
            return Err(Error::InvalidArgument(format!(
                "compiled programs need stream-ordered allocation (a memory pool), which CUDA \
                 device {ordinal} does not support"
            )));
        }
        let mut clock = StageClock::on(&CAPTURE_TIMES);
        let stream = take_stream(&st.ctx)?;
        let (graph, _eager) =
            match Self::capture_on(f, inputs, ordinal, offset, &stream, &mut clock) {
                Ok(g) => g,
                Err(e) => {
                    // The capture was ended (or never begun): the stream is as it was.
                    give_stream(stream);
                    return Err(e);
                }
            };
        // The first launch is not a replay: its stages are not counted.
        let mut graph = graph;
        let outs = graph.replay(inputs, offset, &mut StageClock::off())?;
        clock.lap(6);
        clock.finish();
        Ok((graph, outs))
    }

    /// [`capture`](Self::capture) on `stream`; returns the graph and the eager run's outputs
    /// (realised, with their shapes).
    #[allow(clippy::type_complexity)]
    fn capture_on<F>(
        f: &F,
        inputs: &[&Array<T>],
        ordinal: usize,
        offset: u64,
        stream: &Arc<Stream>,
        clock: &mut StageClock<{ CAPTURE_STAGES.len() }>,
    ) -> Result<(Self, Vec<(Arc<Storage>, Vec<usize>)>)>
    where
        F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>>,
    {
        let stream = stream.clone();
        let owned: Vec<Array<T>> = with_stream(&stream, || {
            inputs
                .iter()
                .map(|x| copy_array(x, ordinal))
                .collect::<Result<Vec<_>>>()
        })?;
        // What `owned` was copied from: the first launch copies none of them again (neither the
        // eager run nor the capture writes its inputs: array storage is never written once made).
        let copied_from = inputs
            .iter()
            .map(|x| Ok(Some(x.contiguous_storage()?).filter(|s| copy_skippable(s))))
            .collect::<Result<Vec<_>>>()?;
        // The key word, holding this call's offset for the first run (rewritten by each replay):
        // two memsets, no upload from the host.
        let key = with_stream(&stream, || key_word(ordinal, offset, &stream))?;
        clock.lap(0);
        if direct_capture() {
            // Captured at once, when the capture needs nothing prepared by a run before it;
            // otherwise (or on any error of the attempt, which the eager path below meets and
            // reports again if it is the closure's) the eager run and a second capture follow.
            let attempt = Self::capture_direct(f, &owned, &key, offset, ordinal, &stream, clock);
            if let Some(d) = attempt {
                let captured = Captured {
                    outputs: d.outputs,
                    direct: d.direct,
                    exec: Some(d.exec),
                    inputs: owned,
                    copied_from,
                    key,
                    keyed: d.keyed,
                    fft_plans: None,
                    arena: d.chunks,
                    arena_side: Some(d.side),
                    stream,
                    launch_streams: Vec::new(),
                    kernels: d.kernels,
                    out_type: std::marker::PhantomData,
                };
                return Ok((captured, Vec::new()));
            }
        }
        // The eager run: kernels built (the keyed random ones too), library handles, plans and
        // workspaces made, so that the capture records launches only. FFT plans are the
        // graph's own from here on (dropped with `plans` if the capture fails, after it ended).
        let plans = GraphPlans::begin();
        // The eager outputs are kept (realised) through the capture: their memory is then no
        // graph's. The bytes its allocations ask for size the capture's arena.
        let counting = crate::runtime::ArenaGuard::count();
        let eager = with_stream(&stream, || -> Result<Vec<(Arc<Storage>, Vec<usize>)>> {
            let outs = with_call_key(
                CallKey::Device {
                    word: key.clone(),
                    offset,
                },
                || f(&owned),
            )?;
            outs.iter()
                .map(|o| Ok((o.contiguous_storage()?, o.shape().to_vec())))
                .collect()
        })?;
        let arena_bytes = counting.counted();
        drop(counting);
        // The graph's output buffers: fresh buffers of the eager outputs' sizes (so none aliases
        // an input), ordinary pool allocations made before the capture, on the calling thread's
        // stream as any array's (they are handed out as the first call's outputs, and freed or
        // reused as arrays of that stream once the program lets them go). The graph copies its
        // results into them as its last nodes, so no graph allocation outlives the graph.
        let specs: Vec<_> = eager.iter().map(|(s, _)| (s.dtype(), s.len())).collect();
        // SAFETY: the graph's last nodes write every byte of each (`record` copies each output's
        // whole length into it, or fails the capture, which drops them unread) before the
        // first launch hands them out.
        let bufs = unsafe { crate::backend::cuda::alloc_uninit(ordinal, &specs) }?;
        let device = Device::cuda(ordinal);
        let outputs: Vec<Array<U>> = bufs
            .into_iter()
            .zip(&eager)
            .map(|(b, (_, shape))| {
                Array::from_storage(
                    Arc::new(Storage::Cuda(b)),
                    Layout::contiguous(shape),
                    shape,
                    device,
                )
            })
            .collect();
        clock.lap(1);
        // The optimised builds of the kernels just used replace their quick builds (or the
        // interpreter) before the capture: the graph then runs what eager calls run once
        // warm, with the same values bit for bit.
        crate::jit::wait_tier_up();
        // The capture's allocations are parts of one arena of the program's (as many bytes as
        // the eager run asked for), allocated here, before it: the graph then has no allocation
        // or free nodes. Beyond `ARENA_MAX_BYTES`, or for what does not fit, the graph
        // allocates its own memory.
        let arena = if arena_bytes > 0 && arena_bytes <= ARENA_MAX_BYTES && graph_arena() {
            // SAFETY: the memset right after writes every byte before anything reads it.
            let mut base = unsafe { stream.alloc::<u8>(arena_bytes) }?;
            // Zero before the capture, so before every launch of the graph (see
            // `runtime::zeroed_arena_part`).
            stream.memset_zeros(&mut base)?;
            vec![Arc::new(base)]
        } else {
            Vec::new()
        };
        clock.lap(2);
        let keyed = CallKey::Device {
            word: key.clone(),
            offset,
        };
        let draws_before = keyed_draws();
        let serving = arena
            .first()
            .cloned()
            .map(crate::runtime::ArenaGuard::serve);
        let (recorded, kernels) = crate::jit::collect_kernels(|| {
            with_call_key(keyed, || Self::record(f, &owned, &outputs, &stream))
        });
        drop(serving);
        let keyed = keyed_draws() != draws_before;
        clock.lap(3);
        let mut exec = match recorded
            .and_then(Recording::end)
            .and_then(|g| write_dot(&g).map(|()| g))
            .and_then(|g| Ok(g.into_exec()?))
        {
            Ok(e) => e,
            Err(e) => {
                crate::jit::retire_all(kernels);
                return Err(e);
            }
        };
        clock.lap(4);
        let (outputs, direct) = match Self::slots(&mut exec, outputs) {
            Ok(o) => o,
            Err(e) => {
                drop(exec);
                crate::jit::retire_all(kernels);
                return Err(e);
            }
        };
        clock.lap(5);
        // Launched by the caller ([`capture`](Self::capture)), whose outputs are the launch's.
        let captured = Captured {
            outputs,
            direct,
            exec: Some(exec),
            inputs: owned,
            copied_from,
            key,
            keyed,
            fft_plans: plans.finish(),
            arena,
            arena_side: None,
            stream,
            launch_streams: Vec::new(),
            kernels,
            out_type: std::marker::PhantomData,
        };
        Ok((captured, eager))
    }

    /// Captures `f` on `owned` on `stream` with no run before it, its allocations parts of an
    /// arena that grows while the capture runs (see `runtime::ArenaGuard::grow`) and its
    /// outputs' buffers allocated once their shapes are known (see
    /// [`record_direct`](Self::record_direct)); instantiated, its output slots made. `None` when
    /// the capture needs a run outside it first, so that the eager path follows: an `Err` of the
    /// attempt (a library handle or FFT plan not made yet, a host read, an error of the
    /// closure's own, which the eager path meets again), a kernel whose optimised build is on
    /// its way (a background build pending before or queued during the capture), or work that
    /// ran differently for being captured (`unprepared_in_capture` moved: an untimed product,
    /// an unmeasured cuDNN route). The graph of a refused capture is dropped unlaunched.
    #[allow(clippy::too_many_arguments)]
    fn capture_direct<F>(
        f: &F,
        owned: &[Array<T>],
        key: &Arc<Storage>,
        offset: u64,
        ordinal: usize,
        stream: &Arc<Stream>,
        clock: &mut StageClock<{ CAPTURE_STAGES.len() }>,
    ) -> Option<DirectCapture>
    where
        F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>>,
    {
        let (queued, pending) = crate::jit::builds();
        if pending > 0 {
            return None;
        }
        let side = arena_stream(stream.context()).ok()?;
        // No eager run, no optimised builds to wait for.
        clock.lap(1);
        clock.lap(2);
        let unprepared = cuprite_driver::graph::unprepared_in_capture();
        let draws_before = keyed_draws();
        let growing = graph_arena().then(|| {
            crate::runtime::ArenaGuard::grow(stream.clone(), side.clone(), ARENA_MAX_BYTES)
        });
        let keyed = CallKey::Device {
            word: key.clone(),
            offset,
        };
        let (recorded, kernels) = crate::jit::collect_kernels(|| {
            with_call_key(keyed, || Self::record_direct(f, owned, ordinal, stream))
        });
        let chunks = growing
            .as_ref()
            .map(|g| g.take_chunks())
            .unwrap_or_default();
        drop(growing);
        let keyed = keyed_draws() != draws_before;
        clock.lap(3);
        let refuse = |kernels| {
            crate::jit::retire_all(kernels);
            None
        };
        let Ok((recording, outputs)) = recorded else {
            return refuse(kernels);
        };
        let graph = recording.end();
        let prepared = crate::jit::builds() == (queued, 0)
            && cuprite_driver::graph::unprepared_in_capture() == unprepared;
        let Ok(graph) = graph else {
            return refuse(kernels);
        };
        if !prepared {
            drop(graph);
            return refuse(kernels);
        }
        let Ok(mut exec) = write_dot(&graph).and_then(|()| Ok(graph.into_exec()?)) else {
            return refuse(kernels);
        };
        clock.lap(4);
        let Ok((outputs, direct)) = Self::slots(&mut exec, outputs) else {
            drop(exec);
            return refuse(kernels);
        };
        // The launches come after the chunks' allocations on the side stream (the first launch
        // on a caller's stream waits for the private stream).
        if !chunks.is_empty() && stream.join(&side).is_err() {
            drop((outputs, exec));
            return refuse(kernels);
        }
        clock.lap(5);
        Some(DirectCapture {
            exec,
            outputs,
            direct,
            keyed,
            kernels,
            chunks,
            side,
        })
    }

    /// [`record`](Self::record) with no run before it: `f` runs under capture on `stream`, then
    /// its outputs' buffers are allocated (fresh, on the calling thread's stream, as any
    /// array's: they are handed out; the capture mode relaxed for the allocation, which is not
    /// captured) and the graph copies the results into them. Returns the capture, still in
    /// progress, and the buffers as arrays.
    fn record_direct<'s, F>(
        f: &F,
        owned: &[Array<T>],
        ordinal: usize,
        stream: &'s Arc<Stream>,
    ) -> Result<(Recording<'s>, Vec<Array<U>>)>
    where
        F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>>,
    {
        let recording = Recording::begin(stream)?;
        let _flag = CaptureFlag::set();
        let (outs, srcs) = with_stream(stream, || -> Result<_> {
            let outs = f(owned)?;
            let srcs = outs
                .iter()
                .map(|o| o.contiguous_storage())
                .collect::<Result<Vec<_>>>()?;
            Ok((outs, srcs))
        })?;
        // On the calling thread's stream, which is not capturing (the capture runs on the
        // program's private stream).
        let specs: Vec<_> = outs.iter().map(|o| (U::DTYPE, o.len())).collect();
        // SAFETY: the graph's last nodes (the copies below) write every byte of each before
        // the first launch hands them out; on an `Err` the capture fails and they are dropped
        // unread.
        let bufs = cuprite_driver::graph::with_relaxed_capture_mode(|| unsafe {
            crate::backend::cuda::alloc_uninit(ordinal, &specs)
        })??;
        let device = Device::cuda(ordinal);
        let outputs: Vec<Array<U>> = bufs
            .into_iter()
            .zip(&outs)
            .map(|(b, o)| {
                Array::from_storage(
                    Arc::new(Storage::Cuda(b)),
                    Layout::contiguous(o.shape()),
                    o.shape(),
                    device,
                )
            })
            .collect();
        let copied = with_stream(stream, || -> Result<()> {
            for ((o, src), dst) in outs.iter().zip(&srcs).zip(&outputs) {
                copy_bytes(stream, src, dst, o.len() * U::DTYPE.size(), "an output")?;
            }
            // `outs` and every intermediate are dropped here, inside the capture: their frees
            // (of memory the graph allocated) are nodes of the graph.
            drop((outs, srcs));
            Ok(())
        });
        if let Err(e) = copied {
            // Freed on the calling thread's stream (not capturing), the mode relaxed again.
            drop(cuprite_driver::graph::with_relaxed_capture_mode(|| {
                drop(outputs)
            }));
            return Err(e);
        }
        Ok((recording, outputs))
    }

    /// The output slots of a graph whose last nodes copy its results into `outputs`, and
    /// whether they are handed out directly: every non-empty output's copy is found and can
    /// be moved (tried once, to where it writes already). Otherwise the program copies its
    /// outputs out after each launch.
    fn slots(exec: &mut GraphExec, outputs: Vec<Array<U>>) -> Result<(Vec<OutputSlot>, bool)> {
        let mut slots = Vec::with_capacity(outputs.len());
        for o in outputs {
            let current = o.contiguous_storage()?;
            slots.push(OutputSlot {
                shape: o.shape().to_vec(),
                device: o.device(),
                current: Target {
                    buf: current,
                    // The array's node (a leaf of the whole buffer, made by `capture_on`):
                    // only the slot holds it from here on.
                    node: o.node,
                    holds: 0,
                },
                spares: Vec::new(),
                node: None,
            });
        }
        let mut direct = true;
        for slot in &mut slots {
            if slot.current.buf.len() == 0 {
                // No launch writes an empty output.
                continue;
            }
            let buf = device_buffer(&slot.current.buf, "a compiled program's output buffer")?;
            // A graph whose copies cannot be listed or moved runs in copy-out mode.
            let found = match exec.copy_node_into(buf).ok().flatten() {
                Some(node) => {
                    // SAFETY: the program's own output buffer (its whole length), which only
                    // the graph's copy writes.
                    let mut view = unsafe {
                        DeviceViewMut::<u8>::from_raw_parts(
                            buf.device_ptr(),
                            buf.len(),
                            buf.tracker(),
                        )
                    };
                    exec.retarget_copy(node, &mut view).ok().map(|()| node)
                }
                None => None,
            };
            slot.node = found;
            direct &= found.is_some();
        }
        // The graphs holding each buffer now are this program's own (its captured graph and
        // executable graph, and the copy's moved destination).
        for slot in &mut slots {
            slot.current.holds = graph_holds(&slot.current.buf);
        }
        Ok((slots, direct))
    }

    /// Runs `f` on `owned` under capture on `stream` and copies its outputs into `outputs`
    /// (buffers made before the capture, of the eager run's shapes), so that every allocation
    /// of the graph is also freed in it. On `Err` (or a panic) the capture is ended and its
    /// graph dropped; on `Ok` it is still in progress, ended by the returned [`Recording`].
    fn record<'s, F>(
        f: &F,
        owned: &[Array<T>],
        outputs: &[Array<U>],
        stream: &'s Arc<Stream>,
    ) -> Result<Recording<'s>>
    where
        F: Fn(&[Array<T>]) -> Result<Vec<Array<U>>>,
    {
        let recording = Recording::begin(stream)?;
        {
            let _flag = CaptureFlag::set();
            with_stream(stream, || -> Result<()> {
                let outs = f(owned)?;
                if outs.len() != outputs.len() {
                    return Err(Error::InvalidArgument(format!(
                        "a compiled program returned {} outputs under capture and {} eagerly",
                        outs.len(),
                        outputs.len()
                    )));
                }
                // Realised first, so that an error of the work itself is reported before a
                // shape that differs from the eager run's.
                let srcs = outs
                    .iter()
                    .map(|o| o.contiguous_storage())
                    .collect::<Result<Vec<_>>>()?;
                for (i, ((o, src), dst)) in outs.iter().zip(&srcs).zip(outputs).enumerate() {
                    if o.shape() != dst.shape() {
                        return Err(Error::Shape(format!(
                            "output {i} of a compiled program has shape {:?} under capture and \
                             {:?} eagerly",
                            o.shape(),
                            dst.shape()
                        )));
                    }
                    copy_bytes(stream, src, dst, o.len() * U::DTYPE.size(), "an output")?;
                }
                // `outs` and every intermediate are dropped here, inside the capture: their
                // frees are nodes of the graph.
                Ok(())
            })?;
        }
        Ok(recording)
    }

    /// Copies `inputs` into the graph's input buffers (those whose buffer does not already hold
    /// a copy of the same storage) and `offset` into its key word (when it has random draws),
    /// launches it and returns its outputs; `clock` times each stage.
    ///
    /// The copies in, the key word and the launch are one declared access set on the calling
    /// thread's stream ([`launch_stream`]; [`GraphExec::launch_with`]): one wait for the
    /// conflicting work of other streams (the inputs' writers, earlier users of the output
    /// buffers), if any, one event. In direct mode
    /// the outputs are the buffers the graph wrote (each output's copy first moved off a buffer
    /// someone still holds: see [`OutputSlot`]); otherwise the launch's access set also copies
    /// them out into fresh buffers allocated on the calling thread's stream. The outputs are
    /// then ready in that stream's order as any array result is, for tracked work and for raw
    /// pointers used on it alike (where the launch went to the private stream, the calling
    /// thread's stream waits for its event, no work).
    fn replay(
        &mut self,
        inputs: &[&Array<T>],
        offset: u64,
        clock: &mut StageClock<{ STAGES.len() }>,
    ) -> Result<Vec<Array<U>>> {
        let ordinal = self.stream.context().ordinal();
        if self.copied_from.len() != inputs.len() || self.inputs.len() != inputs.len() {
            return Err(Error::InvalidArgument(format!(
                "a compiled program's graph has {} inputs, the call passes {}",
                self.inputs.len(),
                inputs.len()
            )));
        }
        // The inputs to copy: (index, their storage, the graph's buffer, bytes). An input whose
        // buffer holds a copy of this very storage already is skipped, checked in place (no
        // storage handle taken, nothing allocated).
        let mut ins: Vec<(usize, Arc<Storage>, Arc<Storage>, usize)> = Vec::new();
        for (i, x) in inputs.iter().enumerate() {
            if self.copied_from[i]
                .as_ref()
                .is_some_and(|c| x.node.is_whole_leaf_of(c))
            {
                continue;
            }
            let src = x.contiguous_storage()?;
            // The buffer about to be rewritten holds unknown bytes until the launch succeeds.
            self.copied_from[i] = None;
            let bytes = x.len().checked_mul(T::DTYPE.size()).ok_or_else(|| {
                Error::Shape(format!(
                    "input {i} of a compiled program: {} elements overflow a byte count",
                    x.len()
                ))
            })?;
            let dst = self.inputs[i].contiguous_storage()?;
            let cap = device_buffer(&dst, "a compiled program's input buffer")?.len();
            if bytes > cap {
                return Err(Error::Shape(format!(
                    "input {i} of a compiled program has {bytes} bytes, more than the graph's \
                     buffer of {cap} bytes"
                )));
            }
            ins.push((i, src, dst, bytes));
        }
        clock.lap(1);
        let mut fresh = if self.direct {
            self.free_targets(ordinal)?;
            Vec::new()
        } else {
            let specs: Vec<_> = self
                .outputs
                .iter()
                .map(|o| (o.current.buf.dtype(), o.current.buf.len()))
                .collect();
            // SAFETY: every byte of each buffer is written by the launch's copies out below
            // before an array of it is made; on an `Err` they are dropped unread.
            unsafe { crate::backend::cuda::alloc_uninit(ordinal, &specs) }?
        };
        clock.lap(2);
        let caller = crate::runtime::stream_of(crate::runtime::state(ordinal)?);
        let launch = launch_stream(caller.get(), &self.stream, &self.launch_streams);
        let on_caller = !Arc::ptr_eq(launch, &self.stream);
        {
            let exec = self.exec.as_ref().ok_or_else(|| {
                Error::InvalidArgument("a compiled program's graph was dropped".into())
            })?;
            let mut word = if self.keyed {
                let w = device_buffer(&self.key, "the random key word")?;
                if w.len() < 8 {
                    return Err(Error::InvalidArgument(format!(
                        "the random key word of a compiled program has {} bytes, not 8",
                        w.len()
                    )));
                }
                // SAFETY: the word is the program's own 8-byte buffer (checked above); only
                // this program writes it, and its tracker orders the write after the previous
                // launch's read.
                Some(unsafe {
                    DeviceViewMut::<u64>::from_raw_parts(w.device_ptr(), 1, w.tracker())
                })
            } else {
                None
            };
            let mut in_bufs = Vec::with_capacity(ins.len());
            for (_, src, dst, bytes) in &ins {
                if *bytes == 0 {
                    continue;
                }
                let s = device_buffer(src, "an input")?.slice(0..*bytes)?;
                let d = device_buffer(dst, "a compiled program's input buffer")?;
                // SAFETY: `d` is the program's own input buffer, `bytes` within it (checked
                // above); only this program writes it, and the tracker `d` owns orders the
                // write after the previous launch's read of it.
                let view =
                    unsafe { DeviceViewMut::from_raw_parts(d.device_ptr(), *bytes, d.tracker()) };
                in_bufs.push((s, view));
            }
            let mut outs = Vec::with_capacity(fresh.len());
            for (o, f) in self.outputs.iter().zip(fresh.iter_mut()) {
                let bytes = o.current.buf.len() * o.current.buf.dtype().size();
                if bytes == 0 {
                    continue;
                }
                let s = device_buffer(&o.current.buf, "a compiled program's output buffer")?
                    .slice(0..bytes)?;
                let d = f
                    .buffer_mut()
                    .ok_or_else(|| {
                        Error::InvalidArgument("a fresh output buffer has no allocation".into())
                    })?
                    .slice_mut(0..bytes)?;
                outs.push((s, d));
            }
            let mut in_pairs: Vec<_> = in_bufs.iter_mut().map(|(s, d)| (&*s, d)).collect();
            let mut out_pairs: Vec<_> = outs.iter_mut().map(|(s, d)| (&*s, d)).collect();
            if on_caller && !self.launch_streams.iter().any(|s| Arc::ptr_eq(s, launch)) {
                // A first launch there: it waits for all the private stream's work so far (the
                // eager run, which used the plans and the cuBLASLt workspace the graph's nodes
                // use, untracked). Noted before the launch: a join at drop after no launch
                // orders nothing wrongly.
                launch.join(&self.stream)?;
                self.launch_streams.push(launch.clone());
            }
            exec.launch_with(
                launch,
                &mut in_pairs,
                word.as_mut().map(|w| (w, offset)),
                &mut out_pairs,
            )?;
        }
        // The outputs are then ready in the calling thread's stream order, as any array result:
        // launched there, or that stream waits for the launch (no work).
        if on_caller {
            // Enqueued on the caller's stream: in its order already.
        } else if self.direct {
            let bufs = self.outputs.iter().filter_map(|o| match &*o.current.buf {
                Storage::Cuda(d) => d.live(),
                Storage::Host(_) => None,
            });
            crate::backend::cuda::order_after_writes(ordinal, bufs)?;
        } else {
            crate::backend::cuda::order_after_writes(
                ordinal,
                fresh.iter().filter_map(|b| b.live()),
            )?;
        }
        for (i, src, _, _) in ins {
            if copy_skippable(&src) {
                self.copied_from[i] = Some(src);
            }
        }
        clock.lap(3);
        let outs = if self.direct {
            self.outputs
                .iter()
                .map(|o| Array::from_node(o.current.node.clone()))
                .collect()
        } else {
            self.outputs
                .iter()
                .zip(fresh)
                .map(|(o, f)| {
                    Array::from_storage(
                        Arc::new(Storage::Cuda(f)),
                        Layout::contiguous(&o.shape),
                        &o.shape,
                        o.device,
                    )
                })
                .collect()
        };
        clock.lap(4);
        Ok(outs)
    }

    /// Direct mode: moves the copy of every output whose buffer someone else holds onto a free
    /// buffer (a spare no one holds, else a fresh one), so that the next launch writes no
    /// buffer handed out and still held. The replaced buffer becomes a spare (the oldest spare
    /// beyond [`SPARES`] is left to its users).
    fn free_targets(&mut self, ordinal: usize) -> Result<()> {
        let exec = self.exec.as_mut().ok_or_else(|| {
            Error::InvalidArgument("a compiled program's graph was dropped".into())
        })?;
        for slot in &mut self.outputs {
            let Some(node) = slot.node else {
                // An empty output: no launch writes it.
                continue;
            };
            if slot.current.unheld() {
                continue;
            }
            let mut next = match slot.spares.iter().position(Target::unheld) {
                Some(j) => slot.spares.swap_remove(j),
                None => {
                    let spec = [(slot.current.buf.dtype(), slot.current.buf.len())];
                    // SAFETY: the graph's copy writes every byte of it (the copy's length is
                    // the buffer's, checked by `retarget_copy`) before an array of it is handed
                    // out; on an `Err` it is dropped unread.
                    let mut b = unsafe { crate::backend::cuda::alloc_uninit(ordinal, &spec) }?;
                    let b = b.pop().ok_or_else(|| {
                        Error::InvalidArgument("no output buffer was allocated".into())
                    })?;
                    Target::new(Arc::new(Storage::Cuda(b)), &slot.shape, slot.device)
                }
            };
            let buf = device_buffer(&next.buf, "a compiled program's output buffer")?;
            // SAFETY: `next` is a buffer only the program holds (a free spare or a fresh one),
            // its whole length; the graph's copy writes it from the next launch on, and the
            // slot holds it for as long as the copy does.
            let mut view = unsafe {
                DeviceViewMut::<u8>::from_raw_parts(buf.device_ptr(), buf.len(), buf.tracker())
            };
            exec.retarget_copy(node, &mut view)?;
            // Its holders now: the graphs that held it before and the copy moved onto it.
            next.holds = graph_holds(&next.buf);
            let held = std::mem::replace(&mut slot.current, next);
            slot.spares.push(held);
            if slot.spares.len() > SPARES {
                slot.spares.remove(0);
            }
        }
        Ok(())
    }
}
