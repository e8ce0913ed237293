//! The CUDA runtime of the array library: one [`DeviceState`] per device (its primary context,
//! its array stream, its architecture), the stream each thread's array work goes to
//! ([`with_stream`]), small device buffers kept for reuse, and words of mapped host memory for
//! kernels' error flags (`flag_word`).
//!
//! Owns no kernels and no array buffers: those are `jit` and `storage`, above it.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::util::FastHasher;
use cuprite_driver::{Context, DeviceBuffer, Stream};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex};

/// What the array library keeps per CUDA device: its primary context, its array stream, what
/// kernels are built for, and the buffers kept for reuse.
pub(crate) struct DeviceState {
    pub ordinal: usize,
    pub ctx: Arc<Context>,
    pub stream: Arc<Stream>,
    /// `major * 10 + minor` of the compute capability.
    pub arch: u32,
    pub sms: u32,
    /// Bytes of L2 cache (0 where the driver did not say).
    pub l2_bytes: usize,
    free: Mutex<FreeList>,
    /// The cuFFT plans of the device's FFT calls (`ops::fft`), least recently used dropped
    /// first; emptied by [`gc`] (and so on out-of-memory before the retry), which frees their
    /// work areas.
    pub fft_plans: Mutex<cuprite_driver::fft::PlanCache>,
    /// The device's mapped flag words (made on first use; `None` where pinned memory could
    /// not be had).
    flags: std::sync::OnceLock<Option<FlagWords>>,
    /// [`ROW_COUNTER_BYTES`] zeroed on the array stream when the state is made, until the
    /// backend takes them as its one-launch reductions' row counters: made here, with the
    /// device's state, they are there before anything measures the device's memory.
    pub row_counters: Mutex<Option<DeviceBuffer<u8>>>,
}

/// The bytes of a device's row counters (one 32-bit counter a row of a one-launch reduction).
pub(crate) const ROW_COUNTER_BYTES: usize = 4096;

/// Device buffers of dropped arrays up to [`REUSE_MAX_BYTES`], kept for reuse by exact byte
/// size: a warm operation takes its output from here instead of asking the driver
/// (`cuMemAllocAsync`), and a dropped array goes back here instead of `cuMemFreeAsync` (each
/// also an operation of the stream, which lengthens a loop of large allocations measurably;
/// see docs/perf-log/tuning-notes.md). Reuse is safe on any stream: each buffer keeps its driver-layer
/// tracker, so a new writer on another stream waits for the last reads and writes of the
/// previous owner. Bounded (see the constants); emptied by
/// [`crate::device_gc`] (and so on out-of-memory before the retry).
#[derive(Default)]
struct FreeList {
    by_size: HashMap<usize, Vec<DeviceBuffer<u8>>, BuildHasherDefault<FastHasher>>,
    bytes: usize,
}

/// Largest buffer kept for reuse.
const REUSE_MAX_BYTES: usize = 64 << 20;
/// Largest buffer a thread keeps as its last freed one (and parks, see
/// [`crate::storage::park`]): out of reach of another thread's out-of-memory retry.
const THREAD_MAX_BYTES: usize = 1 << 20;
/// Buffers kept per size.
const REUSE_PER_SIZE: usize = 8;
/// Bytes kept per device in all.
const REUSE_MAX_TOTAL: usize = 256 << 20;

/// The buffer the calling thread dropped last (with its device), kept out of the device's
/// list: a loop of small operations hands the buffer of one result to the next with no lock.
/// Outside the list's bounds (one buffer of at most [`THREAD_MAX_BYTES`] a thread); moved to the
/// list when another takes its place or the thread ends; dropped by [`gc`] on this thread.
struct LastFreed(Option<(usize, DeviceBuffer<u8>)>);

impl Drop for LastFreed {
    fn drop(&mut self) {
        if let Some((ordinal, b)) = self.0.take() {
            keep(ordinal, b);
        }
    }
}

thread_local! {
    static LAST_FREED: RefCell<LastFreed> = const { RefCell::new(LastFreed(None)) };
    /// Whether this thread is capturing a compiled program (`crate::compile`).
    static CAPTURING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as capturing a compiled program while it lives. While set, no
/// buffer kept for reuse is handed out on this thread (a graph would keep its address while
/// the list hands it to other work), and host reads and synchronisations are refused
/// ([`refuse_in_capture`]).
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
pub(crate) struct CaptureFlag(bool);

impl CaptureFlag {
    #[cfg_attr(not(feature = "capture"), allow(dead_code))]
    pub(crate) fn set() -> CaptureFlag {
        CaptureFlag(CAPTURING.with(|c| c.replace(true)))
    }
}

impl Drop for CaptureFlag {
    fn drop(&mut self) {
        let prev = self.0;
        let _ = CAPTURING.try_with(|c| c.set(prev));
    }
}

/// Whether the calling thread is capturing a compiled program.
#[inline]
pub(crate) fn capturing() -> bool {
    CAPTURING.try_with(|c| c.get()).unwrap_or(false)
}

/// `Err` naming `what` when the calling thread is capturing a compiled program: `what` reads
/// device memory on the host or waits for the device, which a captured CUDA graph cannot do.
#[inline]
pub(crate) fn refuse_in_capture(what: &str) -> Result<()> {
    refuse_in_capture_because(
        what,
        "it waits for the device or reads device memory on the host, which a captured CUDA \
         graph cannot do; return the array from the closure and read it after the call",
    )
}

/// `e` as a refusal naming `what` (the words of [`refuse_in_capture_because`]) when the
/// calling thread is capturing a compiled program and `e` is the driver refusing work that a
/// capture cannot hold (a `CUDA_ERROR_STREAM_CAPTURE_*` status, 900 to 908: a synchronisation
/// or blocking copy inside a library, a stream of the capture waited on from outside it); `e`
/// itself otherwise. For the calls whose own code cannot refuse by name what a library does
/// inside them.
pub(crate) fn name_capture_refusal(e: Error, what: &str) -> Error {
    if !capturing() {
        return e;
    }
    let code = match &e {
        Error::Cuda(c) => c.code(),
        _ => None,
    };
    match code {
        Some(c) if (900..=908).contains(&c.0) => refusal(
            what,
            &format!(
                "it does work a captured CUDA graph cannot hold, and the driver refused it ({e})"
            ),
        ),
        _ => e,
    }
}

/// The refusal of `what` inside a compiled program, for the reason `why`.
fn refusal(what: &str, why: &str) -> Error {
    Error::InvalidArgument(format!(
        "{what} cannot run inside a compiled program (cuprite_array::compile): {why}"
    ))
}

/// `Err` naming `what` and `why` when the calling thread is capturing a compiled program.
#[inline]
pub(crate) fn refuse_in_capture_because(what: &str, why: &str) -> Result<()> {
    if capturing() {
        return Err(refusal(what, why));
    }
    Ok(())
}

/// The calling thread's last freed buffer, taken when `wanted(ordinal, buffer)` says so.
fn take_last_freed(wanted: impl Fn(usize, &DeviceBuffer<u8>) -> bool) -> Option<DeviceBuffer<u8>> {
    LAST_FREED
        .try_with(|l| {
            let mut l = l.try_borrow_mut().ok()?;
            match &l.0 {
                Some((o, b)) if wanted(*o, b) => l.0.take().map(|(_, b)| b),
                _ => None,
            }
        })
        .ok()
        .flatten()
}

/// A buffer of exactly `bytes` bytes kept for reuse on the device of `st`, if there is one.
pub(crate) fn take_free(st: &DeviceState, bytes: usize) -> Option<DeviceBuffer<u8>> {
    if bytes == 0 || bytes > REUSE_MAX_BYTES || capturing() {
        return None;
    }
    if bytes <= THREAD_MAX_BYTES {
        let mine = take_last_freed(|o, b| {
            o == st.ordinal && cuprite_driver::DeviceRead::<u8>::len(b) == bytes
        });
        if mine.is_some() {
            return mine;
        }
    }
    let mut f = st.free.lock().unwrap_or_else(|e| e.into_inner());
    let b = f.by_size.get_mut(&bytes)?.pop()?;
    f.bytes -= bytes;
    Some(b)
}

/// Keeps `b` (a dropped array's buffer) for reuse, or drops it (a stream-ordered free).
///
/// Only buffers already on the device's array stream are kept: a kept buffer is freed by
/// [`gc`] or reused long after it was dropped, and a buffer of a user stream (`with_stream`,
/// perhaps a foreign one from `Stream::from_raw`, which its owner destroys once the arrays made
/// on it are gone) must be freed on that stream now, stream-ordered, without tying the two
/// streams together (no wait, no host synchronisation).
pub(crate) fn recycle(ordinal: usize, b: DeviceBuffer<u8>) {
    if !reusable(ordinal, &b) {
        return;
    }
    if cuprite_driver::DeviceRead::<u8>::len(&b) > THREAD_MAX_BYTES {
        keep(ordinal, b);
        return;
    }
    // This thread's last buffer takes `b`'s place in the device's list.
    let mut item = Some((ordinal, b));
    let _ = LAST_FREED.try_with(|l| {
        if let Ok(mut l) = l.try_borrow_mut() {
            item = std::mem::replace(&mut l.0, item.take());
        }
    });
    if let Some((ordinal, b)) = item {
        keep(ordinal, b);
    }
}

/// Whether `b` (a dropped array's buffer on device `ordinal`) is one that [`recycle`] keeps:
/// on the device's array stream, of a size kept for reuse, and used by no captured graph (a
/// graph replays work on its address: handed to other work, its contents would change under
/// that work; the driver layer frees it once the last graph using it is gone).
pub(crate) fn reusable(ordinal: usize, b: &DeviceBuffer<u8>) -> bool {
    let bytes = cuprite_driver::DeviceRead::<u8>::len(b);
    bytes > 0
        && bytes <= REUSE_MAX_BYTES
        && !b.is_sub_allocation()
        && cuprite_driver::DeviceRead::<u8>::tracker(b).graph_holds() == 0
        && FAST
            .get(ordinal)
            .and_then(|s| s.get())
            .is_some_and(|st| Arc::ptr_eq(b.stream(), &st.stream))
}

/// Whether `b` (a dropped array's buffer on device `ordinal`) may be parked by its thread (see
/// [`crate::storage::park`]): [`reusable`] and at most [`THREAD_MAX_BYTES`].
pub(crate) fn parkable(ordinal: usize, b: &DeviceBuffer<u8>) -> bool {
    cuprite_driver::DeviceRead::<u8>::len(b) <= THREAD_MAX_BYTES && reusable(ordinal, b)
}

/// Puts `b` (of device `ordinal`'s array stream, at most [`REUSE_MAX_BYTES`]) in the device's
/// list, or drops it when the list is full.
fn keep(ordinal: usize, b: DeviceBuffer<u8>) {
    let Some(st) = FAST.get(ordinal).and_then(|s| s.get()) else {
        return;
    };
    let bytes = cuprite_driver::DeviceRead::<u8>::len(&b);
    let mut f = st.free.lock().unwrap_or_else(|e| e.into_inner());
    if f.bytes + bytes > REUSE_MAX_TOTAL {
        return;
    }
    let v = f.by_size.entry(bytes).or_default();
    if v.len() < REUSE_PER_SIZE {
        v.push(b);
        f.bytes += bytes;
    }
}

/// The states of devices `0..FAST.len()`, once made (no lock on the hot path).
static FAST: [std::sync::OnceLock<&'static DeviceState>; crate::memory::MAX_DEVICES] =
    [const { std::sync::OnceLock::new() }; crate::memory::MAX_DEVICES];

static STATES: Mutex<Vec<Option<&'static DeviceState>>> = Mutex::new(Vec::new());

/// The state of CUDA device `ordinal` (context, default array stream), created on first use.
pub(crate) fn state(ordinal: usize) -> Result<&'static DeviceState> {
    if let Some(s) = FAST.get(ordinal).and_then(|s| s.get()) {
        return Ok(s);
    }
    let n = crate::device::cuda_device_count();
    if ordinal >= n {
        return Err(Error::InvalidArgument(format!(
            "CUDA device {ordinal} does not exist: {n} device(s) present"
        )));
    }
    let mut v = STATES.lock().unwrap_or_else(|e| e.into_inner());
    if v.len() <= ordinal {
        v.resize(ordinal + 1, None);
    }
    if let Some(s) = v[ordinal] {
        return Ok(s);
    }
    let ctx = Context::new(ordinal)?;
    let stream = ctx.new_stream()?;
    let dev = ctx.device();
    let (maj, min) = dev.compute_capability()?;
    let sms = dev.multiprocessor_count()?;
    let l2_bytes = dev
        .attribute(cuprite_driver::DeviceAttribute::L2CacheSize)
        .map_or(0, |b| usize::try_from(b).unwrap_or(0));
    // SAFETY: zeroed on the same stream before any launch reads it.
    let mut counters = unsafe { stream.alloc::<u8>(ROW_COUNTER_BYTES) }?;
    stream.memset_zeros(&mut counters)?;
    let s: &'static DeviceState = Box::leak(Box::new(DeviceState {
        ordinal,
        ctx,
        stream,
        arch: maj * 10 + min,
        sms,
        l2_bytes,
        free: Mutex::new(FreeList::default()),
        fft_plans: Mutex::new(cuprite_driver::fft::PlanCache::default()),
        flags: std::sync::OnceLock::new(),
        row_counters: Mutex::new(Some(counters)),
    }));
    v[ordinal] = Some(s);
    if let Some(f) = FAST.get(ordinal) {
        let _ = f.set(s);
    }
    Ok(s)
}

thread_local! {
    static STREAM: RefCell<Option<Arc<Stream>>> = const { RefCell::new(None) };
}

/// The state of CUDA device `ordinal` if it was made already (never initialises CUDA).
pub(crate) fn existing_state(ordinal: usize) -> Option<&'static DeviceState> {
    FAST.get(ordinal).and_then(|s| s.get().copied())
}

/// The stream this thread's array work on device `ordinal` goes to.
pub(crate) fn stream_for(ordinal: usize) -> Result<Arc<Stream>> {
    Ok(stream_of(state(ordinal)?).into_arc())
}

/// A stream to launch on: the device's array stream (borrowed, no reference count touched)
/// or this thread's own (see [`with_stream`]).
pub(crate) enum StreamRef {
    Array(&'static Arc<Stream>),
    Own(Arc<Stream>),
}

impl StreamRef {
    pub(crate) fn get(&self) -> &Arc<Stream> {
        match self {
            StreamRef::Array(s) => s,
            StreamRef::Own(s) => s,
        }
    }
    pub(crate) fn into_arc(self) -> Arc<Stream> {
        match self {
            StreamRef::Array(s) => s.clone(),
            StreamRef::Own(s) => s,
        }
    }
}

/// The stream this thread's array work on the device of `st` goes to.
pub(crate) fn stream_of(st: &'static DeviceState) -> StreamRef {
    let own = STREAM.with(|s| {
        s.borrow()
            .as_ref()
            // Only a stream of the array context (the device's primary context): kernels and
            // buffers of the array library live there.
            .filter(|s| Arc::ptr_eq(s.context(), &st.ctx))
            .cloned()
    });
    match own {
        Some(s) => StreamRef::Own(s),
        None => StreamRef::Array(&st.stream),
    }
}

/// Runs `f` with this thread's array work (on the stream's device) going to `stream`.
/// Arrays made on other streams are still safe to use: the driver layer's tracking orders the
/// accesses. Only a stream of the device's primary context (the array library's) is used; the
/// array stream stays in use for a stream of another context. Arrays made on `stream` free
/// their memory on it (stream-ordered, no wait): with a foreign stream ([`Stream::from_raw`]),
/// drop them before its owner destroys it, as `from_raw`'s contract asks. Memory of a user
/// stream is never kept for reuse.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.new_stream()?;
/// let x = cuprite_array::with_stream(&s, || {
///     (cuprite_array::Array::<f32>::ones(&[1024]) * 2.0).sum()
/// })?;
/// assert_eq!(x.item()?, 2048.0);
/// # Ok(()) }
/// ```
pub fn with_stream<R>(stream: &Arc<Stream>, f: impl FnOnce() -> R) -> R {
    let prev = STREAM.with(|s| s.replace(Some(stream.clone())));
    struct Restore(Option<Arc<Stream>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let p = self.0.take();
            STREAM.with(|s| *s.borrow_mut() = p);
        }
    }
    let _r = Restore(prev);
    crate::device::with_device(Device::cuda(stream.context().ordinal()), f)
}

/// The array library's default stream of CUDA device `ordinal`, as a cuprite stream: kernels
/// launched on it are ordered with array work without any synchronisation.
pub fn get_stream(ordinal: usize) -> Result<Arc<Stream>> {
    Ok(state(ordinal)?.stream.clone())
}

/// Waits for all work of device `ordinal`'s context.
pub(crate) fn sync(ordinal: usize) -> Result<()> {
    refuse_in_capture("sync")?;
    Ok(state(ordinal)?.ctx.synchronize()?)
}

/// `(free, total)` bytes of device `ordinal`.
pub(crate) fn mem_info(ordinal: usize) -> Result<(usize, usize)> {
    Ok(state(ordinal)?.ctx.mem_info()?)
}

/// Frees the buffers kept for reuse, waits for the device, and trims its pool. The caches are
/// emptied only after a first context-wide wait, which waits out the captures other threads
/// have in progress: a cached FFT plan dropped here then finds its stream not capturing.
pub(crate) fn gc(ordinal: usize) -> Result<()> {
    refuse_in_capture("device_gc (also run on out-of-memory before a retry)")?;
    let st = state(ordinal)?;
    st.ctx.synchronize()?;
    drop(take_last_freed(|o, _| o == ordinal));
    let kept = std::mem::take(&mut *st.free.lock().unwrap_or_else(|e| e.into_inner()));
    drop(kept);
    st.fft_plans
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
    st.ctx.synchronize()?;
    Ok(st.ctx.trim(0)?)
}

/// `bytes` of device memory on `stream` for an array buffer: a kept buffer of that size, or a
/// new stream-ordered allocation.
///
/// # Safety
/// The memory is not initialised: the caller writes all of it (a kernel or a copy) before
/// anything reads it.
pub(crate) unsafe fn alloc_raw(
    st: &DeviceState,
    stream: &Arc<Stream>,
    bytes: usize,
) -> Result<DeviceBuffer<u8>> {
    if let Some(part) = arena_part(stream, bytes) {
        return Ok(part);
    }
    match take_free(st, bytes) {
        Some(b) => Ok(b),
        // SAFETY: the caller's contract: fully written before any read.
        None => Ok(unsafe { stream.alloc::<u8>(bytes) }?),
    }
}

/// Byte alignment of the parts of a compiled program's arena (that of the pool's allocations).
const ARENA_ALIGN: usize = 256;

/// What this thread's array allocations do for a compiled program's first call
/// (`crate::compile`): count the bytes its eager run asks for (rounded up to [`ARENA_ALIGN`]),
/// which size the arena, or take parts of the arena (in order, never reused) while its capture
/// runs, so that the graph allocates no memory of its own (no allocation or free nodes).
///
/// A capture with no run before it grows its arena instead (`Grow`): chunks allocated while it
/// runs, stream-ordered on `side` (a stream that is not capturing, with this thread's capture
/// mode relaxed for the call), so that the parts' addresses are fixed when handed out and no
/// size has to be known beforehand.
///
/// Every byte of an arena is zero before the graph's first launch: a served base is zeroed by
/// its owner before the capture begins (`crate::compile`), a chunk on `side` as it is
/// allocated. Parts are never reused within the graph, so a part that each launch of the graph
/// leaves zero again (a one-launch reduction's row counters, reset by the block that finishes
/// each row) is zero when every launch begins: [`zeroed_arena_part`] hands such parts out.
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
enum Arena {
    Count(usize),
    Serve {
        base: Arc<DeviceBuffer<u8>>,
        next: usize,
    },
    Grow {
        /// The capturing stream whose allocations it serves.
        capture: Arc<Stream>,
        /// Where its chunks are allocated (and freed).
        side: Arc<Stream>,
        /// The chunks so far; parts are taken from the last one, at `next`.
        chunks: Vec<Arc<DeviceBuffer<u8>>>,
        next: usize,
        /// Bytes of all chunks so far (at most `limit`).
        total: usize,
        limit: usize,
    },
}

/// The smallest chunk of a growing arena (see [`Arena`]); each further chunk is at least as
/// large as all the chunks before it together, so a capture allocates few of them.
const GROW_CHUNK: usize = 1 << 20;

thread_local! {
    static ARENA: RefCell<Option<Arena>> = const { RefCell::new(None) };
}

/// While it lives, this thread's array allocations are counted or served from an arena (see
/// [`Arena`]); what was in force before comes back when it drops.
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
pub(crate) struct ArenaGuard(Option<Arena>);

#[cfg_attr(not(feature = "capture"), allow(dead_code))]
impl ArenaGuard {
    /// Counts the bytes of this thread's array allocations.
    pub(crate) fn count() -> ArenaGuard {
        ArenaGuard(ARENA.with(|a| a.borrow_mut().replace(Arena::Count(0))))
    }

    /// Serves this thread's array allocations on `base`'s stream from `base`, in parts, while
    /// it has room; a stream-ordered allocation otherwise.
    pub(crate) fn serve(base: Arc<DeviceBuffer<u8>>) -> ArenaGuard {
        ArenaGuard(ARENA.with(|a| a.borrow_mut().replace(Arena::Serve { base, next: 0 })))
    }

    /// The bytes counted so far (0 when serving).
    pub(crate) fn counted(&self) -> usize {
        ARENA.with(|a| match &*a.borrow() {
            Some(Arena::Count(n)) => *n,
            _ => 0,
        })
    }

    /// Serves this thread's array allocations on `capture` (a capturing stream) from chunks
    /// allocated on `side` (not capturing) as they are needed, at most `limit` bytes of them in
    /// all; a stream-ordered allocation (on the capturing stream: the graph's own) for what
    /// does not fit. The chunks are taken back with [`take_chunks`](Self::take_chunks).
    #[cfg(feature = "capture")]
    pub(crate) fn grow(capture: Arc<Stream>, side: Arc<Stream>, limit: usize) -> ArenaGuard {
        ArenaGuard(ARENA.with(|a| {
            a.borrow_mut().replace(Arena::Grow {
                capture,
                side,
                chunks: Vec::new(),
                next: 0,
                total: 0,
                limit,
            })
        }))
    }

    /// The chunks a growing arena allocated so far (none for other arenas); it allocates new
    /// ones for later parts.
    #[cfg(feature = "capture")]
    pub(crate) fn take_chunks(&self) -> Vec<Arc<DeviceBuffer<u8>>> {
        ARENA.with(|a| match &mut *a.borrow_mut() {
            Some(Arena::Grow {
                chunks,
                next,
                total,
                ..
            }) => {
                *next = 0;
                *total = 0;
                std::mem::take(chunks)
            }
            _ => Vec::new(),
        })
    }
}

impl Drop for ArenaGuard {
    fn drop(&mut self) {
        let prev = self.0.take();
        let _ = ARENA.try_with(|a| {
            if let Ok(mut a) = a.try_borrow_mut() {
                *a = prev;
            }
        });
    }
}

/// A part of `bytes` bytes of this thread's arena when it serves `stream` and has room (see
/// [`Arena`]); counts `bytes` when counting.
fn arena_part(stream: &Arc<Stream>, bytes: usize) -> Option<DeviceBuffer<u8>> {
    if bytes == 0 {
        return None;
    }
    ARENA
        .try_with(|a| {
            let mut a = a.try_borrow_mut().ok()?;
            let size = bytes.checked_next_multiple_of(ARENA_ALIGN)?;
            match a.as_mut()? {
                Arena::Count(n) => {
                    *n = n.saturating_add(size);
                    None
                }
                Arena::Grow {
                    capture,
                    side,
                    chunks,
                    next,
                    total,
                    limit,
                } => {
                    if !Arc::ptr_eq(capture, stream) {
                        return None;
                    }
                    let fits = chunks
                        .last()
                        .is_some_and(|c| next.checked_add(size).is_some_and(|e| e <= c.len()));
                    if !fits {
                        let want = size.max(GROW_CHUNK).max(*total);
                        let want = want.min(limit.checked_sub(*total)?);
                        if want < size {
                            return None;
                        }
                        // The chunk is allocated and zeroed stream-ordered on `side`, which is
                        // not capturing (the relaxed mode lets this thread call it during its
                        // capture); the capture's user orders the graph's launches after `side`.
                        let chunk = cuprite_driver::graph::with_relaxed_capture_mode(|| {
                            // SAFETY: the memset right after writes every byte before anything
                            // reads it.
                            let mut c = unsafe { side.alloc::<u8>(want) }?;
                            side.memset_zeros(&mut c)?;
                            Ok::<_, cuprite_driver::Error>(c)
                        })
                        .ok()?
                        .ok()?;
                        chunks.push(Arc::new(chunk));
                        *total += want;
                        *next = 0;
                    }
                    carve(chunks.last()?, next, size, bytes, stream)
                }
                Arena::Serve { base, next } => {
                    if !Arc::ptr_eq(base.stream(), stream) {
                        return None;
                    }
                    carve(base, next, size, bytes, stream)
                }
            }
        })
        .ok()
        .flatten()
}

/// A part of `bytes` bytes of this thread's arena when it serves `stream` and has room (never
/// when counting: the caller then allocates as usual, which counts): zero before the graph's
/// first launch (see [`Arena`]), so that work which leaves it zero at the end of each launch
/// needs no memset node of its own in the graph.
pub(crate) fn zeroed_arena_part(stream: &Arc<Stream>, bytes: usize) -> Option<DeviceBuffer<u8>> {
    let serving = ARENA
        .try_with(|a| {
            a.try_borrow()
                .is_ok_and(|a| matches!(&*a, Some(Arena::Serve { .. } | Arena::Grow { .. })))
        })
        .unwrap_or(false);
    if serving {
        arena_part(stream, bytes)
    } else {
        None
    }
}

/// The part `[*next, *next + size)` of `base` as a buffer of `bytes` bytes (`bytes <= size`,
/// `size` a multiple of `ARENA_ALIGN`) ordered on `stream`, advancing `*next` past it; `None`
/// when it does not fit. `base` must be a device allocation of `stream`'s context whose
/// address is `ARENA_ALIGN`-aligned (a pool allocation), with parts below `*next` handed out
/// already.
fn carve(
    base: &Arc<DeviceBuffer<u8>>,
    next: &mut usize,
    size: usize,
    bytes: usize,
    stream: &Arc<Stream>,
) -> Option<DeviceBuffer<u8>> {
    let end = next.checked_add(size)?;
    if end > base.len() || bytes > size {
        return None;
    }
    let ptr = cuprite_driver::DeviceRead::<u8>::device_ptr(&**base) + *next as u64;
    *next = end;
    // SAFETY: `bytes` bytes at `ptr` lie inside `base` (`next + size` is at most its length and
    // `bytes <= size`), a device allocation of `stream`'s context that the part keeps alive;
    // parts are handed out in order and never again, so none overlaps another; `ptr` is
    // `ARENA_ALIGN`-aligned (the base is a pool allocation, aligned at least so, and every
    // part's size is a multiple). The contents are uninitialised: `alloc_raw`'s caller writes
    // them first.
    Some(unsafe {
        DeviceBuffer::sub_allocation(
            ptr,
            bytes,
            stream,
            base.clone() as Arc<dyn std::any::Any + Send + Sync>,
        )
    })
}

/// Words in a device's page of flag words.
const FLAG_WORDS: u32 = 1024;

/// Words of page-locked host memory mapped into a device's address space, one page per device
/// kept for the process: a kernel raises an error flag through a word's device address, and
/// the host reads the word after a synchronisation, with no copy and no launch to clear it.
struct FlagWords {
    /// Owns the page (never dropped: the device state lives for the process).
    _page: cuprite_driver::PinnedHostBuffer<u32>,
    host: *mut u32,
    dev: u64,
    free: Mutex<Vec<u32>>,
}

// SAFETY: the raw pointers address the page `_page` owns, which outlives every user; a word is
// used by one holder at a time (the free list, under its mutex, hands each out once).
unsafe impl Send for FlagWords {}
// SAFETY: as above; shared access only reads the two addresses and locks the free list.
unsafe impl Sync for FlagWords {}

/// One mapped flag word of a device, handed back to the device's page when dropped. The holder
/// must drop it only after the last device work that writes the word is complete.
pub(crate) struct FlagWord {
    words: &'static FlagWords,
    slot: u32,
}

impl FlagWord {
    /// The word's address for kernels.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.words.dev + 4 * self.slot as u64
    }

    /// The word's address on the host.
    pub(crate) fn host_ptr(&self) -> *mut u32 {
        // SAFETY: `slot < FLAG_WORDS`, the page's length in words.
        unsafe { self.words.host.add(self.slot as usize) }
    }
}

impl Drop for FlagWord {
    fn drop(&mut self) {
        self.words
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(self.slot);
    }
}

/// A free flag word of CUDA device `ordinal`, cleared to zero; `None` when the device has no
/// page (pinned memory refused) or every word is taken (the caller falls back to device memory).
pub(crate) fn flag_word(ordinal: usize) -> Result<Option<FlagWord>> {
    let st = state(ordinal)?;
    let words = st.flags.get_or_init(|| {
        let page = cuprite_driver::PinnedHostBuffer::<u32>::new(
            &st.ctx,
            FLAG_WORDS as usize,
            cuprite_driver::HostAllocFlags::NONE,
        )
        .ok()?;
        let dev = cuprite_driver::DeviceRead::device_ptr(&page);
        Some(FlagWords {
            host: page.as_ptr().cast_mut(),
            dev,
            _page: page,
            free: Mutex::new((0..FLAG_WORDS).rev().collect()),
        })
    });
    let Some(words) = words.as_ref() else {
        return Ok(None);
    };
    let slot = words.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
    Ok(slot.map(|slot| {
        let w = FlagWord { words, slot };
        // SAFETY: the word is this holder's alone, and no device work writes it: its previous
        // holder dropped it only after the last such work completed.
        unsafe { w.host_ptr().write_volatile(0) };
        w
    }))
}

#[cfg(test)]
mod capture_refusal_tests {
    use super::{CaptureFlag, name_capture_refusal};
    use crate::error::Error;
    use cuprite_driver::sys::driver::CUresult;

    fn driver(code: i32, call: &'static str) -> Error {
        Error::Cuda(cuprite_driver::Error::Driver {
            code: CUresult(code),
            name: format!("CUresult({code})"),
            description: "a status of the test".into(),
            call,
        })
    }

    #[test]
    fn capture_statuses_name_the_call_while_capturing() {
        // Outside a capture every error passes through.
        let e = name_capture_refusal(driver(900, "cuStreamSynchronize"), "sort");
        assert!(matches!(e, Error::Cuda(_)), "{e}");
        let _capturing = CaptureFlag::set();
        for code in [900, 901, 904, 908] {
            let m = name_capture_refusal(driver(code, "cuStreamSynchronize"), "sort").to_string();
            assert!(
                m.starts_with("invalid argument: sort cannot run inside a compiled program")
                    && m.contains("cuStreamSynchronize failed"),
                "{m}"
            );
        }
        // Other statuses and other errors pass through while capturing too.
        for code in [2, 899, 909] {
            let e = name_capture_refusal(driver(code, "cuMemAlloc_v2"), "sort");
            assert!(matches!(e, Error::Cuda(_)), "{code}: {e}");
        }
        let e = name_capture_refusal(Error::InvalidArgument("n is 0".into()), "sort");
        assert!(
            matches!(&e, Error::InvalidArgument(m) if m == "n is 0"),
            "{e}"
        );
    }
}
