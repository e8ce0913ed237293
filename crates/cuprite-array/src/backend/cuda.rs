//! The CUDA backend: device buffers on cuprite's stream-ordered pool, the per-device array
//! stream, the in-memory kernel cache, and launches of generated kernels.
//!
//! Every launch declares its reads and writes through cuprite's access API, so arrays shared
//! between threads working on different streams are ordered by the driver layer's tracking
//! (and single-stream programs pay nothing for it).

use super::Storage;
use crate::codegen::{self, BLOCK, ParamPlan, VEC, Variant};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Fnv, Program};
use crate::ops::ReduceOp;
use crate::shape::{Layout, numel};
use cuprite::sys::driver as sys;
use cuprite::{Access, Context, DeviceBuffer, Stream};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Device memory of one array buffer.
pub(crate) struct DevBuf {
    buf: Option<DeviceBuffer<u8>>,
    len: usize,
    dtype: DType,
    ordinal: usize,
    /// Locked by the user: the manager never frees or reuses it (see `lock`).
    pub(crate) locked: AtomicBool,
    /// Interop state (see `crate::interop`): live device views, and for memory owned by
    /// another library (DLPack import) the keeper it is released through (never freed here).
    pub(crate) interop: crate::interop::BufState,
}

impl DevBuf {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn ptr(&self) -> u64 {
        self.buf.as_ref().map(|b| b.device_ptr_raw()).unwrap_or(0)
    }
    pub(crate) fn buffer(&self) -> &DeviceBuffer<u8> {
        self.buf.as_ref().expect("live buffer")
    }
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }
    /// Interop hook: an array buffer made of an existing allocation (counted as allocated).
    pub(crate) fn adopt(
        buf: DeviceBuffer<u8>,
        dtype: DType,
        len: usize,
        ordinal: usize,
        foreign: Option<crate::interop::Foreign>,
    ) -> DevBuf {
        crate::memory::on_alloc(Device::cuda(ordinal), len * dtype.size());
        DevBuf {
            buf: Some(buf),
            len,
            dtype,
            ordinal,
            locked: AtomicBool::new(false),
            interop: crate::interop::BufState::new(foreign),
        }
    }
    /// Interop hook: takes the allocation out (the buffer then drops as empty).
    pub(crate) fn take_buffer(&mut self) -> Option<DeviceBuffer<u8>> {
        if self.interop.foreign.is_some() || self.locked.load(Ordering::Acquire) {
            return None;
        }
        self.buf.take()
    }
}

trait RawPtr {
    fn device_ptr_raw(&self) -> u64;
}
impl RawPtr for DeviceBuffer<u8> {
    fn device_ptr_raw(&self) -> u64 {
        cuprite::DeviceRead::<u8>::device_ptr(self)
    }
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        let bytes = self.len * self.dtype.size();
        crate::memory::on_free(Device::cuda(self.ordinal), bytes);
        if let Some(b) = self.buf.take() {
            if let Some(f) = self.interop.foreign.take() {
                // Another library's memory: handed back to it after our last use.
                crate::interop::release_foreign(b, f);
                if self.locked.load(Ordering::Acquire) {
                    crate::memory::on_unlock(Device::cuda(self.ordinal), bytes);
                }
                return;
            }
            if self.locked.load(Ordering::Acquire) {
                // The user holds this memory: it is neither freed nor reused.
                let _ = b.leak();
                crate::memory::on_unlock(Device::cuda(self.ordinal), bytes);
                return;
            }
            // Otherwise kept for reuse, or dropped: a stream-ordered free after its last use.
            recycle(self.ordinal, b);
        }
    }
}

pub(crate) struct DeviceState {
    pub ctx: Arc<Context>,
    pub stream: Arc<Stream>,
    pub arch: u32,
    pub sms: u32,
    kernels: KernelMap,
    free: Mutex<FreeList>,
}

/// Small device buffers of dropped arrays, kept for reuse by exact byte size: a warm small
/// operation takes its output from here instead of asking the driver (`cuMemAllocAsync`), and
/// a dropped small array goes back here instead of `cuMemFreeAsync`. Reuse is safe on any
/// stream: each buffer keeps its driver-layer tracker, so a new writer on another stream waits
/// for the last reads and writes of the previous owner. Bounded (see the constants); emptied by
/// [`crate::device_gc`] (and so on out-of-memory before the retry).
#[derive(Default)]
struct FreeList {
    by_size: HashMap<usize, Vec<DeviceBuffer<u8>>, BuildHasherDefault<crate::graph::FastHasher>>,
    bytes: usize,
}

/// Largest buffer kept for reuse.
const REUSE_MAX_BYTES: usize = 1 << 20;
/// Buffers kept per size.
const REUSE_PER_SIZE: usize = 8;
/// Bytes kept per device in all.
const REUSE_MAX_TOTAL: usize = 32 << 20;

/// A buffer of exactly `bytes` bytes from the reuse list of device `ordinal`, if one is kept.
fn take_free(st: &DeviceState, bytes: usize) -> Option<DeviceBuffer<u8>> {
    if bytes == 0 || bytes > REUSE_MAX_BYTES {
        return None;
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
fn recycle(ordinal: usize, b: DeviceBuffer<u8>) {
    let bytes = cuprite::DeviceRead::<u8>::len(&b);
    if bytes == 0 || bytes > REUSE_MAX_BYTES {
        return;
    }
    let Some(st) = FAST.get(ordinal).and_then(|s| s.get()) else {
        return;
    };
    if !Arc::ptr_eq(b.stream(), &st.stream) {
        return;
    }
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

#[derive(Clone, Copy)]
struct Kernel {
    f: sys::CUfunction,
    /// Blocks of `BLOCK` threads resident per multiprocessor (from the driver's occupancy).
    blocks_per_sm: u32,
    /// A quick first build of a vectorised element-wise kernel made as its one-element-per-
    /// thread form (same parameters): launched with one thread per element until the optimised
    /// build replaces it.
    scalar: bool,
}
// SAFETY: a CUfunction is a driver handle usable from any thread; its module is never unloaded.
unsafe impl Send for Kernel {}

/// The in-memory kernel cache of one device. Every change (a build inserted, a quick build
/// replaced by its optimised one, a clear) bumps [`KERNEL_GEN`], which invalidates the
/// per-thread caches in front of it ([`cached_kernel`]).
#[derive(Default)]
struct KernelMap(Mutex<HashMap<u64, Kernel, BuildHasherDefault<crate::graph::FastHasher>>>);

/// Bumped after every change of any device's [`KernelMap`] (under its lock).
static KERNEL_GEN: AtomicU64 = AtomicU64::new(0);

impl KernelMap {
    /// The map, locked (as `Mutex::lock`). A mutable use of the guard bumps [`KERNEL_GEN`]
    /// when it drops.
    fn lock(&self) -> std::sync::LockResult<KernelGuard<'_>> {
        match self.0.lock() {
            Ok(g) => Ok(KernelGuard { g, changed: false }),
            Err(e) => Err(std::sync::PoisonError::new(KernelGuard {
                g: e.into_inner(),
                changed: false,
            })),
        }
    }
}

struct KernelGuard<'a> {
    g: std::sync::MutexGuard<
        'a,
        HashMap<u64, Kernel, BuildHasherDefault<crate::graph::FastHasher>>,
    >,
    changed: bool,
}

impl std::ops::Deref for KernelGuard<'_> {
    type Target = HashMap<u64, Kernel, BuildHasherDefault<crate::graph::FastHasher>>;
    fn deref(&self) -> &Self::Target {
        &self.g
    }
}

impl std::ops::DerefMut for KernelGuard<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.changed = true;
        &mut self.g
    }
}

impl Drop for KernelGuard<'_> {
    fn drop(&mut self) {
        if self.changed {
            // Still under the map's lock (the fields drop after this): a thread that sees the
            // new generation then reads the changed map.
            KERNEL_GEN.fetch_add(1, Ordering::Release);
        }
    }
}

/// This thread's recently used kernels, matched on the exact structure of the program (what
/// [`Program::structure_hash`] hashes): a warm launch finds its kernel without hashing the
/// program or locking the device's map. Emptied whenever [`KERNEL_GEN`] moves.
struct LocalKernels {
    generation: u64,
    entries: Vec<LocalKernel>,
    /// The entry replaced next once full.
    next: usize,
}

struct LocalKernel {
    st: *const DeviceState,
    salt: u64,
    ndim: usize,
    inputs: Vec<u16>,
    consts: Vec<std::mem::Discriminant<crate::dtype::Scalar>>,
    instrs: Vec<crate::graph::Instr>,
    outputs: Vec<usize>,
    kernel: Kernel,
}

/// Kernels kept per thread.
const LOCAL_KERNELS: usize = 16;

thread_local! {
    static LOCAL: RefCell<LocalKernels> = const {
        RefCell::new(LocalKernels {
            generation: 0,
            entries: Vec::new(),
            next: 0,
        })
    };
}

/// What the kernel key knows of an input (see [`Program::structure_hash`]).
fn input_sig(p: &Program, i: &crate::graph::Input) -> u16 {
    (i.dtype.code() as u16) << 2
        | (i.gather_len.is_some() as u16) << 1
        | (i.gather_len.is_none() && i.layout.is_contiguous(&p.shape)) as u16
}

impl LocalKernel {
    fn matches(&self, st: *const DeviceState, salt: u64, p: &Program) -> bool {
        self.st == st
            && self.salt == salt
            && self.ndim == p.shape.len()
            && self.instrs == p.instrs
            && self.outputs == p.outputs
            && self.inputs.len() == p.inputs.len()
            && self.consts.len() == p.consts.len()
            && self
                .inputs
                .iter()
                .zip(&p.inputs)
                .all(|(s, i)| *s == input_sig(p, i))
            && self
                .consts
                .iter()
                .zip(&p.consts)
                .all(|(d, c)| *d == std::mem::discriminant(c))
    }
}

/// The kernel of `p` with key salt `salt` on the device of `st`: from this thread's cache, else
/// from `lookup` given the key (the device's map, or a build on a miss).
fn cached_kernel(
    st: &'static DeviceState,
    p: &Program,
    salt: u64,
    lookup: impl FnOnce(u64) -> Result<Kernel>,
) -> Result<Kernel> {
    let stp: *const DeviceState = st;
    let generation = KERNEL_GEN.load(Ordering::Acquire);
    let hit = LOCAL.with(|l| {
        let mut l = l.try_borrow_mut().ok()?;
        if l.generation != generation {
            // Emptied, keeping the entries' vectors: no entry matches a null device.
            for e in l.entries.iter_mut() {
                e.st = std::ptr::null();
            }
            l.next = 0;
            l.generation = generation;
        }
        l.entries
            .iter()
            .find(|e| e.matches(stp, salt, p))
            .map(|e| e.kernel)
    });
    if let Some(k) = hit {
        return Ok(k);
    }
    let k = lookup(p.structure_hash(salt))?;
    LOCAL.with(|l| {
        let Ok(mut l) = l.try_borrow_mut() else {
            return;
        };
        // Kept only when nothing changed since `generation` was read before the lookup (else the
        // next call looks the map up again).
        if l.generation != generation {
            return;
        }
        if l.entries.len() < LOCAL_KERNELS {
            l.entries.push(LocalKernel {
                st: stp,
                salt,
                ndim: p.shape.len(),
                inputs: p.inputs.iter().map(|i| input_sig(p, i)).collect(),
                consts: p.consts.iter().map(std::mem::discriminant).collect(),
                instrs: p.instrs.clone(),
                outputs: p.outputs.clone(),
                kernel: k,
            });
            return;
        }
        // Full: the entries are replaced in turn, reusing their vectors.
        let at = l.next % LOCAL_KERNELS;
        l.next = at + 1;
        let e = &mut l.entries[at];
        e.st = stp;
        e.salt = salt;
        e.ndim = p.shape.len();
        e.inputs.clear();
        e.inputs.extend(p.inputs.iter().map(|i| input_sig(p, i)));
        e.consts.clear();
        e.consts.extend(p.consts.iter().map(std::mem::discriminant));
        e.instrs.clear();
        e.instrs.extend_from_slice(&p.instrs);
        e.outputs.clear();
        e.outputs.extend_from_slice(&p.outputs);
        e.kernel = k;
    });
    Ok(k)
}

static STATES: Mutex<Vec<Option<&'static DeviceState>>> = Mutex::new(Vec::new());

/// The state of CUDA device `ordinal` (context, default array stream), created on first use.
pub(crate) fn state(ordinal: usize) -> Result<&'static DeviceState> {
    if let Some(s) = FAST.get(ordinal).and_then(|s| s.get()) {
        return Ok(s);
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
    let s: &'static DeviceState = Box::leak(Box::new(DeviceState {
        ctx,
        stream,
        arch: maj * 10 + min,
        sms,
        kernels: KernelMap::default(),
        free: Mutex::new(FreeList::default()),
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

/// The stream this thread's array work on device `ordinal` goes to.
pub(crate) fn stream_for(ordinal: usize) -> Result<Arc<Stream>> {
    Ok(stream_of(state(ordinal)?).into_arc())
}

/// A stream to launch on: the device's array stream (borrowed, no reference count touched)
/// or this thread's own (see [`with_stream`]).
enum StreamRef {
    Array(&'static Arc<Stream>),
    Own(Arc<Stream>),
}

impl StreamRef {
    fn get(&self) -> &Arc<Stream> {
        match self {
            StreamRef::Array(s) => s,
            StreamRef::Own(s) => s,
        }
    }
    fn into_arc(self) -> Arc<Stream> {
        match self {
            StreamRef::Array(s) => s.clone(),
            StreamRef::Own(s) => s,
        }
    }
}

/// The stream this thread's array work on the device of `st` goes to.
fn stream_of(st: &'static DeviceState) -> StreamRef {
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
/// let ctx = cuprite::Context::new(0)?;
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

/// Forgets every loaded kernel of every device (the modules stay loaded): the next use of an
/// expression goes to the disk cache or NVRTC again, as in a new process. For benchmarks and
/// tests of the caches.
pub fn clear_kernel_cache() {
    let v = STATES.lock().unwrap_or_else(|e| e.into_inner());
    for s in v.iter().flatten() {
        s.kernels.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

fn alloc(ordinal: usize, stream: &Arc<Stream>, dtype: DType, len: usize) -> Result<DevBuf> {
    alloc_on(state(ordinal)?, ordinal, stream, dtype, len)
}

/// [`alloc`] with the device's state at hand.
fn alloc_on(
    st: &DeviceState,
    ordinal: usize,
    stream: &Arc<Stream>,
    dtype: DType,
    len: usize,
) -> Result<DevBuf> {
    let bytes = len * dtype.size();
    let buf = match take_free(st, bytes) {
        Some(b) => b,
        // SAFETY: every buffer made here is fully written by a kernel or copy before any read.
        None => unsafe { stream.alloc::<u8>(bytes) }?,
    };
    crate::memory::on_alloc(Device::cuda(ordinal), bytes);
    Ok(DevBuf {
        buf: Some(buf),
        len,
        dtype,
        ordinal,
        locked: AtomicBool::new(false),
        interop: Default::default(),
    })
}

pub(crate) fn upload(
    ordinal: usize,
    dtype: DType,
    len: usize,
    bytes: &[u8],
) -> Result<Arc<Storage>> {
    let stream = stream_for(ordinal)?;
    let mut d = alloc(ordinal, &stream, dtype, len)?;
    if !bytes.is_empty() {
        let b = d.buf.as_mut().expect("live buffer");
        stream.memcpy_htod(bytes, b)?;
    }
    Ok(Arc::new(Storage::Cuda(d)))
}

pub(crate) fn download(d: &DevBuf) -> Result<Vec<u8>> {
    let stream = stream_for(d.ordinal)?;
    if d.len == 0 {
        return Ok(Vec::new());
    }
    Ok(stream.clone_dtoh(d.buffer())?)
}

fn dev_of(s: &Storage, ordinal: usize) -> Result<&DevBuf> {
    match s {
        Storage::Cuda(d) if d.ordinal == ordinal => Ok(d),
        Storage::Cuda(d) => Err(Error::DeviceMismatch(format!(
            "an input lives on CUDA device {}, the operation runs on device {ordinal}",
            d.ordinal
        ))),
        Storage::Host(_) => Err(Error::DeviceMismatch(
            "an input lives on the CPU backend, the operation runs on CUDA".into(),
        )),
    }
}

/// Loads a module image (CUBIN, or NUL-terminated PTX for the driver to compile) into the
/// current context.
fn load_image(image: &[u8]) -> Result<sys::CUmodule> {
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `image` is a complete CUBIN or NUL-terminated PTX image that outlives the call;
    // `module` is a valid out-pointer; the caller made the device's context current.
    let r = unsafe { sys::cuModuleLoadData(&mut module, image.as_ptr().cast()) };
    cuprite::error::check(r, "cuModuleLoadData")?;
    Ok(module)
}

/// A driver link state, destroyed on drop.
struct LinkState(sys::CUlinkState);

impl LinkState {
    /// A new link state without options, for the current context's device.
    fn new() -> Result<LinkState> {
        let mut state: sys::CUlinkState = std::ptr::null_mut();
        // SAFETY: no options (null arrays with count 0); `state` is a valid out-pointer; the
        // caller made the device's context current.
        let r = unsafe {
            sys::cuLinkCreate_v2(0, std::ptr::null_mut(), std::ptr::null_mut(), &mut state)
        };
        cuprite::error::check(r, "cuLinkCreate")?;
        Ok(LinkState(state))
    }

    /// Adds one input image of `kind` (`ptx` NUL-terminated), named `name` in messages.
    fn add(&self, kind: sys::CUjitInputType, data: &[u8], name: &std::ffi::CStr) -> Result<()> {
        // SAFETY: `self.0` is a live link state; `data` is a complete image of `data.len()`
        // bytes (PTX NUL-terminated) that outlives the call (the driver copies it); `name` is
        // NUL-terminated; no per-input options.
        let r = unsafe {
            sys::cuLinkAddData_v2(
                self.0,
                kind,
                data.as_ptr() as *mut c_void,
                data.len(),
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        Ok(cuprite::error::check(r, "cuLinkAddData")?)
    }

    /// Completes the link: a copy of the executable CUBIN.
    fn complete(self) -> Result<Vec<u8>> {
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `self.0` is live; `out` and `size` are valid out-pointers.
        let r = unsafe { sys::cuLinkComplete(self.0, &mut out, &mut size) };
        cuprite::error::check(r, "cuLinkComplete")?;
        if out.is_null() || size == 0 {
            return Err(Error::InvalidArgument(
                "cuLinkComplete returned no CUBIN".into(),
            ));
        }
        // SAFETY: the driver returned `size` bytes at `out`, owned by the link state, which is
        // alive until `self` drops after this copy.
        Ok(unsafe { std::slice::from_raw_parts(out as *const u8, size) }.to_vec())
    }
}

impl Drop for LinkState {
    fn drop(&mut self) {
        // SAFETY: the state was created by cuLinkCreate and is destroyed once, here. Nothing
        // to report on failure: the state only holds host memory.
        let _ = unsafe { sys::cuLinkDestroy(self.0) };
    }
}

/// The driver's CUBIN for NUL-terminated `ptx` (the driver's JIT compiler, through its
/// linker so that the result can be cached on disk), for the current context's device.
fn link_ptx(ptx: &[u8]) -> Result<Vec<u8>> {
    let link = LinkState::new()?;
    link.add(
        sys::CUjitInputType::CU_JIT_INPUT_PTX,
        ptx,
        c"cuprite_array_kernel.ptx",
    )?;
    link.complete()
}

/// Links relocatable CUBINs (a quick build's glue and the math library) into one executable
/// CUBIN with the driver's linker, for the current context's device.
fn link_cubins(parts: &[&[u8]]) -> Result<Vec<u8>> {
    let link = LinkState::new()?;
    for p in parts {
        link.add(
            sys::CUjitInputType::CU_JIT_INPUT_CUBIN,
            p,
            c"cuprite_array_part.cubin",
        )?;
    }
    link.complete()
}

/// The function for a kernel of structure `key`, built by `make` on a miss (`quick`: the source
/// of a quick first build when it differs, see [`kernel_entry`]).
///
/// A miss reads the disk cache (a CUBIN: load it). Else, by default (see [`jit::tiered`]),
/// a quick first build serves the first use at once ([`quick_module`]: NVRTC at its fastest
/// setting, the math functions linked from the prebuilt math library where it is ready),
/// while a background thread builds the optimised kernel (NVRTC straight to an optimised
/// CUBIN), caches it on disk for the next process and replaces the quick one in the in-memory
/// cache ([`wait_tier_up`] waits for it). Without tiering the optimised build is made on the
/// spot. Where the driver is older than NVRTC (it could not read NVRTC's PTX), or with
/// `CUPRITE_ARRAY_JIT=cubin`, NVRTC compiles straight to CUBIN instead.
///
/// [`jit::tiered`]: crate::jit
fn kernel(
    st: &'static DeviceState,
    key: u64,
    make: impl FnOnce() -> codegen::KernelSource,
    quick: impl FnOnce() -> Option<codegen::KernelSource>,
) -> Result<Kernel> {
    kernel_entry(st, key, make, quick)
}

/// [`kernel`]. `quick`, asked for only on a miss that takes the quick path, gives the source
/// of the quick build when it is not `make`'s: the one-element-per-thread form of a vectorised
/// element-wise kernel (same parameters), which NVRTC builds faster.
fn kernel_entry(
    st: &'static DeviceState,
    key: u64,
    make: impl FnOnce() -> codegen::KernelSource,
    quick: impl FnOnce() -> Option<codegen::KernelSource>,
) -> Result<Kernel> {
    if let Some(k) = st
        .kernels
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
    {
        return Ok(*k);
    }
    let src = make();
    st.ctx.bind_to_thread()?;
    let direct_cubin =
        crate::jit::nvrtc_cubin() || cuprite::nvrtc::nvrtc_newer_than_driver().is_some();
    let module = if direct_cubin {
        load_image(&crate::jit::cubin(&src.source, st.arch)?)?
    } else {
        let path = crate::jit::cache_path(&src.source, st.arch)?;
        match crate::jit::cached(path.as_deref()) {
            Some(bin) => load_image(&bin)?,
            None if crate::jit::tiered() => {
                let q = quick();
                let scalar = q.is_some();
                let q = q.as_ref().unwrap_or(&src);
                let m = quick_module(st, &q.source)?;
                let mut k = function(m, &q.name)?;
                k.scalar = scalar;
                st.kernels
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, k);
                queue_job(Job::TierUp(TierJob { st, key, src }));
                return Ok(k);
            }
            None => optimised(&src.source, st.arch, path.as_deref())?,
        }
    };
    let k = function(module, &src.name)?;
    st.kernels
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, k);
    Ok(k)
}

/// The module of a quick first build of `source`: its math calls compiled as relocatable glue
/// and linked with the math library when that is built (see [`crate::jit`]); else, or when
/// that fails, the whole kernel at NVRTC's fastest setting. The first call queues the math
/// library's build.
fn quick_module(st: &'static DeviceState, source: &str) -> Result<sys::CUmodule> {
    if let Some((glue, used)) = crate::jit::quick_link()
        .then(|| crate::jit::glue_source(source))
        .flatten()
    {
        let (libs, build) = crate::jit::math_library(st.arch, used);
        if build {
            // NVRTC's relocatable path is first taken here, on this thread, not by the
            // background build (see `register_exit_hook`); then the hook goes after it.
            crate::jit::prime_relocatable(st.arch);
            register_exit_hook();
            queue_job(Job::MathLibrary(st));
        }
        if let Some(libs) = libs {
            let linked = (|| -> Result<sys::CUmodule> {
                let obj = crate::jit::cubin_glue(&glue, st.arch)?;
                let mut parts: Vec<&[u8]> = vec![&obj];
                parts.extend(libs.iter().map(|l| l.as_slice()));
                load_image(&link_cubins(&parts)?)
            })();
            match linked {
                Ok(m) => {
                    crate::jit::note_linked();
                    exit_hook_after_linker();
                    return Ok(m);
                }
                Err(e) => crate::jit::trace_note(&format!(
                    "linking the quick build with the math library failed ({e}): compiling the whole kernel"
                )),
            }
        }
    }
    load_image(&crate::jit::cubin_quick(source, st.arch)?)
}

/// The optimised module of `source`: PTX from NVRTC, a CUBIN from the driver's JIT (cached at
/// `path`), loaded.
fn optimised(source: &str, arch: u32, path: Option<&std::path::Path>) -> Result<sys::CUmodule> {
    let ptx = crate::jit::ptx(source, arch)?;
    match link_ptx(&ptx) {
        Ok(bin) => {
            let m = load_image(&bin)?;
            crate::jit::store(path, &bin);
            Ok(m)
        }
        // The linker path is only there to get a CUBIN to cache: load the PTX.
        Err(_) => load_image(&ptx),
    }
}

/// Function `name` of `module`, with its occupancy.
fn function(module: sys::CUmodule, name: &str) -> Result<Kernel> {
    let name = std::ffi::CString::new(name).expect("kernel names have no NUL");
    let mut f: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: `module` is loaded; `name` is NUL-terminated; `f` is a valid out-pointer.
    let r = unsafe { sys::cuModuleGetFunction(&mut f, module, name.as_ptr()) };
    cuprite::error::check(r, "cuModuleGetFunction")?;
    let mut blocks: std::ffi::c_int = 0;
    // SAFETY: `f` is a loaded function; `blocks` is a valid out-pointer; no dynamic shared
    // memory.
    let r = unsafe {
        sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, f, BLOCK as i32, 0)
    };
    cuprite::error::check(r, "cuOccupancyMaxActiveBlocksPerMultiprocessor")?;
    Ok(Kernel {
        f,
        blocks_per_sm: blocks.max(1) as u32,
        scalar: false,
    })
}

/// An optimised build to make in the background.
struct TierJob {
    st: &'static DeviceState,
    key: u64,
    src: codegen::KernelSource,
}

/// Work of the background JIT thread.
enum Job {
    /// The optimised build of a kernel whose quick build serves until then.
    TierUp(TierJob),
    /// The math library of a device's architecture (see [`crate::jit`]).
    MathLibrary(&'static DeviceState),
}

/// Pending background jobs (one thread runs them in order) and how many are queued or
/// running.
struct TierQueue {
    state: Mutex<(std::collections::VecDeque<Job>, usize, bool)>,
    changed: std::sync::Condvar,
}

static TIER: TierQueue = TierQueue {
    state: Mutex::new((std::collections::VecDeque::new(), 0, false)),
    changed: std::sync::Condvar::new(),
};

fn run_job(job: Job) {
    match job {
        Job::TierUp(j) => tier_up(j),
        Job::MathLibrary(st) => {
            crate::jit::trace_note("background: building the math library");
            crate::jit::build_math_library(st.arch);
            crate::jit::trace_note("background: math library built");
        }
    }
}

fn queue_job(job: Job) {
    let mut g = TIER.state.lock().unwrap_or_else(|e| e.into_inner());
    g.0.push_back(job);
    g.1 += 1;
    if !g.2 {
        let started = std::thread::Builder::new()
            .name("cuprite-array-jit".into())
            .spawn(tier_worker)
            .is_ok();
        g.2 = started;
        if started {
            register_exit_hook();
        }
        if !started {
            // No thread: build here (the quick kernel stays until then).
            let jobs: Vec<Job> = g.0.drain(..).collect();
            g.1 -= jobs.len();
            drop(g);
            for j in jobs {
                run_job(j);
            }
            return;
        }
    }
    TIER.changed.notify_all();
}

fn tier_worker() {
    loop {
        let job = {
            let mut g = TIER.state.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(j) = g.0.pop_front() {
                    break j;
                }
                g = TIER.changed.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        };
        // A panic must not leave the count up (waiters would wait for ever).
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_job(job)));
        let mut g = TIER.state.lock().unwrap_or_else(|e| e.into_inner());
        g.1 -= 1;
        TIER.changed.notify_all();
    }
}

/// Builds the optimised kernel of `job` and puts it in the in-memory cache in place of the
/// quick one. On failure the quick kernel stays (it computes the same values).
fn tier_up(job: TierJob) {
    let r = (|| -> Result<Kernel> {
        job.st.ctx.bind_to_thread()?;
        // NVRTC straight to an optimised CUBIN (cached on disk by `jit::cubin`), never the
        // driver's PTX JIT: the driver loads its JIT compiler library on first use, and a
        // library first loaded on this thread registers its exit-time destructors after
        // `tier_at_exit`, so at exit they would run first and tear it down under a build in
        // progress (seen on the H100: an abort in free() or a hang at exit).
        let m = load_image(&crate::jit::cubin(&job.src.source, job.st.arch)?)?;
        function(m, &job.src.name)
    })();
    if let Ok(k) = r {
        job.st
            .kernels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(job.key, k);
    }
}

/// Registers [`tier_at_exit`] (again): exit-time destructors and `atexit` handlers run in the
/// reverse order of registration, and a library first loaded, or a code path of one first
/// taken, after the last registration registers destructors that would run before the hook,
/// tearing down what a background build in progress still uses (seen on the H100: a segfault
/// at exit in about 1 run in 10 while the math library or a build after it was in progress).
/// So the hook is registered when the background thread starts, after the driver's linker is
/// first used, and after NVRTC's relocatable path is first taken. Running it more than once is
/// harmless: the later runs find nothing to wait for.
fn register_exit_hook() {
    unsafe extern "C" {
        fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
    }
    // SAFETY: `atexit` is the C library's, called with a function that lives for the whole
    // process and does not unwind (it only takes a lock and waits).
    let _ = unsafe { atexit(tier_at_exit) };
}

/// [`register_exit_hook`] once, after the driver's linker was first used in this process.
fn exit_hook_after_linker() {
    static DONE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    DONE.get_or_init(register_exit_hook);
}

/// At exit: drops the builds not started and waits for the one in progress, so that the
/// process does not tear NVRTC or the driver down under a build.
extern "C" fn tier_at_exit() {
    let mut g = TIER.state.lock().unwrap_or_else(|e| e.into_inner());
    let dropped = g.0.len();
    g.0.clear();
    g.1 -= dropped;
    if g.1 > 0 || dropped > 0 {
        crate::jit::trace_note(&format!(
            "at exit: {dropped} background builds dropped, waiting for the one in progress"
        ));
    }
    while g.1 > 0 {
        g = TIER.changed.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

/// Waits until every optimised kernel build started in the background is done (they replace
/// the quick first builds of new expressions), and the math library's build if one is under
/// way (see the crate's JIT notes). For benchmarks of steady-state kernels, and for tests that
/// count compilations.
pub fn wait_tier_up() {
    let mut g = TIER.state.lock().unwrap_or_else(|e| e.into_inner());
    while g.1 > 0 {
        g = TIER.changed.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

/// Launches `f` over `grid` blocks on `stream`, declaring the accesses.
fn launch(
    st: &DeviceState,
    stream: &Arc<Stream>,
    f: sys::CUfunction,
    grid: u32,
    words: &[u64],
    reads: &[&DevBuf],
    writes: &[&DevBuf],
) -> Result<()> {
    // The accesses, inline for up to 16 buffers (no allocation on the hot path).
    let mut acc: Inline<Access<'_>, 16> = Inline::new();
    for d in reads {
        if let Some(b) = d.buf.as_ref() {
            acc.push(Access::read(b));
        }
    }
    for d in writes {
        if let Some(b) = d.buf.as_ref() {
            acc.push(Access::write(b));
        }
    }
    let acc: &[Access<'_>] = &acc;
    stream.begin_access(acc)?;
    st.ctx.bind_to_thread()?;
    let mut inline = [std::ptr::null_mut::<c_void>(); 32];
    let mut heap = Vec::new();
    let ptrs: &mut [*mut c_void] = if words.len() <= inline.len() {
        &mut inline[..words.len()]
    } else {
        heap.resize(words.len(), std::ptr::null_mut());
        &mut heap
    };
    for (p, w) in ptrs.iter_mut().zip(words) {
        *p = w as *const u64 as *mut c_void;
    }
    // SAFETY: `f` is a loaded kernel whose parameters are all 8 bytes, in the order of `words`
    // (codegen::params and ParamPlan are written together); each pointer in `ptrs` points into
    // `words`, alive for the call; the pointers passed as kernel arguments are live device
    // buffers of this context, kept alive by the caller until the work is done (frees are
    // stream-ordered after the accesses declared above).
    let r = unsafe {
        sys::cuLaunchKernel(
            f,
            grid,
            1,
            1,
            BLOCK,
            1,
            1,
            0,
            stream.raw(),
            ptrs.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    cuprite::error::check(r, "cuLaunchKernel")?;
    stream.end_access(acc)?;
    Ok(())
}

/// The salt of a kernel key ([`Program::structure_hash`]): variant and kind of kernel.
fn salt_of(v: Variant, kind: u64) -> u64 {
    (v.idx32 as u64) | (v.vector as u64) << 1 | (v.strided_out as u64) << 2 | kind << 8
}

static VECTOR: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(2);

/// Turns the vectorised kernel variants on or off (on by default; `CUPRITE_ARRAY_NO_VECTOR=1`
/// starts with them off). For diagnosis and tests of both code paths.
pub fn set_vectorize(on: bool) {
    VECTOR.store(on as u8, Ordering::Relaxed);
}

fn vector_allowed() -> bool {
    match VECTOR.load(Ordering::Relaxed) {
        2 => {
            let on =
                std::env::var("CUPRITE_ARRAY_NO_VECTOR").map_or(true, |v| v.is_empty() || v == "0");
            VECTOR.store(on as u8, Ordering::Relaxed);
            on
        }
        v => v == 1,
    }
}

fn aligned(ptr: u64, off: usize, size: usize) -> bool {
    (ptr + (off * size) as u64) % (VEC * size) as u64 == 0
}

/// Up to `N` values inline, more on the heap: the per-launch lists (inputs, pointers) without
/// an allocation in the common case.
pub(crate) struct Inline<T: Copy, const N: usize> {
    inline: Option<[T; N]>,
    heap: Vec<T>,
    len: usize,
}

impl<T: Copy, const N: usize> Inline<T, N> {
    pub(crate) fn new() -> Self {
        Inline {
            inline: None,
            heap: Vec::new(),
            len: 0,
        }
    }

    pub(crate) fn push(&mut self, x: T) {
        if self.len < N {
            match self.inline.as_mut() {
                Some(a) => a[self.len] = x,
                None => self.inline = Some([x; N]),
            }
        } else {
            if self.len == N {
                self.heap
                    .extend_from_slice(self.inline.as_ref().map_or(&[][..], |a| &a[..]));
            }
            self.heap.push(x);
        }
        self.len += 1;
    }

    pub(crate) fn extend_from_slice(&mut self, xs: &[T]) {
        for &x in xs {
            self.push(x);
        }
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        if self.len > N {
            &self.heap
        } else {
            self.inline.as_ref().map_or(&[][..], |a| &a[..self.len])
        }
    }
}

impl<T: Copy, const N: usize> FromIterator<T> for Inline<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = Inline::new();
        for x in iter {
            v.push(x);
        }
        v
    }
}

impl<T: Copy, const N: usize> std::ops::Deref for Inline<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

/// Evaluates `p` into `outs` (contiguous, or one output through `out_layout`) on `stream`.
fn run_elementwise(
    st: &'static DeviceState,
    ordinal: usize,
    stream: &Arc<Stream>,
    p: &Program,
    outs: &[&DevBuf],
    out_layout: Option<&Layout>,
) -> Result<()> {
    let n = numel(&p.shape);
    if n == 0 {
        return Ok(());
    }
    let mut ins: Inline<&DevBuf, 16> = Inline::new();
    for i in &p.inputs {
        ins.push(dev_of(&i.storage, ordinal)?);
    }
    let in_ptrs: Inline<u64, 16> = ins.iter().map(|d| d.ptr()).collect();
    let strided_out = out_layout.is_some_and(|l| !l.is_contiguous(&p.shape));
    let out_off = out_layout.map(|l| l.offset).unwrap_or(0);
    let out_ptrs: Inline<u64, 8> = outs
        .iter()
        .map(|d| {
            if strided_out {
                d.ptr()
            } else {
                d.ptr() + (out_off * d.dtype.size()) as u64
            }
        })
        .collect();
    let idx32 = p.fits_i32()
        && out_layout.is_none_or(|l| {
            let (lo, hi) = l.extent(&p.shape);
            lo >= 0 && hi < i32::MAX as isize
        });
    let vector = vector_allowed()
        && !strided_out
        && codegen::vectorisable(p)
        && p.inputs
            .iter()
            .zip(in_ptrs.iter())
            .all(|(i, &ptr)| aligned(ptr, i.layout.offset, i.dtype.size()))
        && outs
            .iter()
            .zip(out_ptrs.iter())
            .all(|(d, &ptr)| aligned(ptr, 0, d.dtype.size()));
    let v = Variant {
        idx32,
        vector,
        strided_out,
    };
    let k = cached_kernel(st, p, salt_of(v, 1), |key| {
        kernel(
            st,
            key,
            || codegen::elementwise(p, v),
            // The quick build of a vectorised kernel: its one-element-per-thread form.
            || {
                v.vector
                    .then(|| codegen::elementwise(p, Variant { vector: false, ..v }))
            },
        )
    })?;
    let plan = ParamPlan::new(
        p,
        v,
        &in_ptrs,
        &out_ptrs,
        out_layout.filter(|_| strided_out),
    );
    let per_block = BLOCK as usize * if vector && !k.scalar { VEC } else { 1 };
    let grid = n.div_ceil(per_block) as u32;
    launch(st, stream, k.f, grid, &plan.words, &ins, outs)
}

pub(crate) fn eval(ordinal: usize, p: &Program) -> Result<Vec<Arc<Storage>>> {
    let n = numel(&p.shape);
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let outs: Vec<DevBuf> = p
        .outputs
        .iter()
        .map(|&o| alloc_on(st, ordinal, stream, p.instrs[o].dtype, n))
        .collect::<Result<_>>()?;
    {
        let refs: Inline<&DevBuf, 8> = outs.iter().collect();
        run_elementwise(st, ordinal, stream, p, &refs, None)?;
    }
    Ok(outs
        .into_iter()
        .map(|d| Arc::new(Storage::Cuda(d)))
        .collect())
}

/// [`eval`] of a program of one output.
pub(crate) fn eval_one(ordinal: usize, p: &Program) -> Result<Arc<Storage>> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let dtype = p.instrs[p.outputs[0]].dtype;
    let out = alloc_on(st, ordinal, stream, dtype, numel(&p.shape))?;
    run_elementwise(st, ordinal, stream, p, &[&out], None)?;
    Ok(Arc::new(Storage::Cuda(out)))
}

pub(crate) fn assemble(
    ordinal: usize,
    dtype: DType,
    len: usize,
    pieces: &[(Program, Layout)],
) -> Result<Arc<Storage>> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let out = alloc_on(st, ordinal, stream, dtype, len)?;
    for (p, l) in pieces {
        run_elementwise(st, ordinal, stream, p, &[&out], Some(l))?;
    }
    Ok(Arc::new(Storage::Cuda(out)))
}

pub(crate) fn reduce(
    ordinal: usize,
    p: &Program,
    op: ReduceOp,
    outer: usize,
    inner: usize,
    out_d: DType,
) -> Result<Arc<Storage>> {
    let st = state(ordinal)?;
    let stream = stream_for(ordinal)?;
    if outer == 0 {
        return Ok(Arc::new(Storage::Cuda(alloc(ordinal, &stream, out_d, 0)?)));
    }
    let src_d = p.instrs[p.outputs[0]].dtype;
    let arg = matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax);
    // Blocks per row: enough to fill the GPU once (every block resident at the same time, so
    // that no block waits for a second wave), at least 16 elements per thread.
    let most = inner.div_ceil(BLOCK as usize * 16).max(1);
    let guess = if arg {
        1
    } else {
        most.min((st.sms as usize * 8 / outer).max(1))
    };
    let ins: Vec<&DevBuf> = p
        .inputs
        .iter()
        .map(|i| dev_of(&i.storage, ordinal))
        .collect::<Result<_>>()?;
    let in_ptrs: Vec<u64> = ins.iter().map(|d| d.ptr()).collect();
    let vector = vector_allowed()
        && codegen::vectorisable(p)
        && inner % VEC == 0
        && p.inputs
            .iter()
            .zip(&in_ptrs)
            .all(|(i, &ptr)| aligned(ptr, i.layout.offset, i.dtype.size()));
    // 32-bit index math with room for the loop counters to step past the end.
    let idx32 = p.fits_i32() && numel(&p.shape) < (i32::MAX as usize) / 2;
    let v = Variant {
        idx32,
        vector,
        strided_out: false,
    };
    let pass_d = if guess > 1 {
        codegen::acc_dtype(op, src_d)
    } else {
        out_d
    };
    let mut h = Fnv(0);
    h.write_u8(pass_d.code());
    let kind = 2 | (op as u64) << 4 | h.finish() << 12;
    let k = cached_kernel(st, p, salt_of(v, kind), |key| {
        kernel(st, key, || codegen::reduction(p, op, pass_d, v), || None)
    })?;
    let chunks = if guess > 1 {
        // The kernel's own occupancy (its register count decides how many blocks fit).
        let resident = st.sms as usize * k.blocks_per_sm.max(1) as usize;
        guess.min((resident / outer).max(1)).max(2)
    } else {
        1
    };
    let out = alloc(ordinal, &stream, pass_d, outer * chunks)?;
    let mut plan = ParamPlan::new(p, v, &in_ptrs, &[out.ptr()], None);
    plan.words.extend_from_slice(&[inner as u64, chunks as u64]);
    launch(
        st,
        &stream,
        k.f,
        (outer * chunks) as u32,
        &plan.words,
        &ins,
        &[&out],
    )?;
    let out = Arc::new(Storage::Cuda(out));
    if chunks == 1 {
        return Ok(out);
    }
    let shape = [outer, chunks];
    let leaf = crate::graph::Node::new(
        crate::graph::Op::Leaf(out, Layout::contiguous(&shape)),
        pass_d,
        shape.to_vec(),
        Device::cuda(ordinal),
    );
    let p2 = Program::build(&[leaf]);
    reduce(ordinal, &p2, op, outer, chunks, out_d)
}

pub(crate) fn sync(ordinal: usize) -> Result<()> {
    Ok(state(ordinal)?.ctx.synchronize()?)
}

pub(crate) fn mem_info(ordinal: usize) -> Result<(usize, usize)> {
    Ok(state(ordinal)?.ctx.mem_info()?)
}

pub(crate) fn gc(ordinal: usize) -> Result<()> {
    let st = state(ordinal)?;
    let kept = std::mem::take(&mut *st.free.lock().unwrap_or_else(|e| e.into_inner()));
    drop(kept);
    st.ctx.synchronize()?;
    Ok(st.ctx.trim(0)?)
}
