//! The kernel cache and the tier policy: one place decides where a kernel comes from.
//!
//! [`get`] looks in the calling thread's small cache (matched on the program's exact
//! structure: no hash, no lock on a warm launch), then in the process-wide map (keyed by device
//! and structure hash), then on disk, and on a miss builds it: a quick first build (linked with
//! the math library where that is ready) that serves at once while the optimised build runs in
//! the background and replaces it, or the optimised build on the spot when tiers are off.
//!
//! A replaced or cleared kernel is retired, not unloaded: a launch of it may still be in
//! flight. Retired kernels are released by [`take_retired`] once their device has been
//! synchronised (`device_gc`).

use super::compile::{self, tiered};
use super::config::{JitConfig, NvrtcOutput, QuickBuild, trace_note};
use super::interp::Interp;
use super::key::KernelKind;
use super::{disk, math, worker};
use crate::codegen::{BLOCK, KernelSource};
use crate::dtype::Scalar;
use crate::error::Result;
use crate::graph::{Instr, Program};
use crate::runtime::DeviceState;
use crate::util::FastMap;
use cuprite_driver::{Function, Linker, ModuleImage};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

/// A loaded kernel and what launching it needs to know.
#[derive(Debug)]
pub(crate) struct Kernel {
    pub func: Function,
    /// Blocks of [`BLOCK`] threads resident per multiprocessor (the driver's occupancy).
    pub blocks_per_sm: u32,
    /// A quick first build of a vectorised element-wise kernel made as its one-element-per-
    /// thread form (same parameters): launched with one thread per element until the
    /// optimised build replaces it.
    pub scalar: bool,
    /// Set when this is the interpreter standing in for the program's kernel until it is built:
    /// the program's instruction words (see [`crate::codegen::interp`]). Launched with a frame
    /// instead of the kernel's parameters.
    pub interp: Option<Box<[u64]>>,
    /// Built from a source stated to begin with `codegen::GRID_WAIT`
    /// (`KernelSource::grid_wait`): it may be launched as a programmatic dependent.
    pub grid_wait: bool,
    /// Set once the kernel map no longer holds this kernel (replaced by its optimised build, or
    /// cleared): whoever kept it may still launch it, but should look the map up again.
    pub retired: AtomicBool,
}

impl Kernel {
    /// Whether the kernel map has let go of this kernel (see [`Kernel::retired`]).
    pub(crate) fn is_retired(&self) -> bool {
        self.retired.load(Ordering::Acquire)
    }
}

type Map = FastMap<(usize, u64), Arc<Kernel>>;

/// Every device's kernels, by (device ordinal, structure key).
static KERNELS: LazyLock<Mutex<Map>> = LazyLock::new(|| Mutex::new(Map::default()));
/// Kernels replaced or cleared from [`KERNELS`] whose launches may still be in flight.
static RETIRED: Mutex<Vec<Arc<Kernel>>> = Mutex::new(Vec::new());

thread_local! {
    /// While a graph is captured on this thread ([`collect_kernels`]): every kernel handed
    /// out, which the graph's launches may name. The graph keeps them loaded for its life.
    static COLLECTED: RefCell<Option<Vec<Arc<Kernel>>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, beside its result, every kernel this thread took from the cache
/// meanwhile (each once): a CUDA graph captured in `f` launches no other kernel of this
/// module, and must keep these loaded while it can run (see [`retire_all`]).
#[cfg(feature = "capture")]
pub(crate) fn collect_kernels<R>(f: impl FnOnce() -> R) -> (R, Vec<Arc<Kernel>>) {
    /// Puts back the collection of an enclosing call, also on unwinding.
    struct Restore(Option<Vec<Arc<Kernel>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            let _ = COLLECTED.try_with(|c| {
                if let Ok(mut c) = c.try_borrow_mut() {
                    *c = outer;
                }
            });
        }
    }
    let outer = COLLECTED.with(|c| c.borrow_mut().replace(Vec::new()));
    let restore = Restore(outer);
    let r = f();
    let mine = COLLECTED
        .with(|c| c.borrow_mut().take())
        .unwrap_or_default();
    drop(restore);
    (r, mine)
}

/// Notes `k` as used by the graph being captured on this thread, if one is.
pub(crate) fn note_use(k: &Arc<Kernel>) {
    let _ = COLLECTED.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut()
            && let Some(v) = c.as_mut()
            && !v.iter().any(|x| Arc::ptr_eq(x, k))
        {
            v.push(k.clone());
        }
    });
}

/// Hands `kernels` (those of a dropped graph) to the retired list: unloaded only after their
/// device has been synchronised, since a launch of the graph may still be running.
#[cfg(feature = "capture")]
pub(crate) fn retire_all(kernels: Vec<Arc<Kernel>>) {
    if !kernels.is_empty() {
        RETIRED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(kernels);
    }
}
/// Bumped by every change of [`KERNELS`] (under its lock): the per-thread caches in front of
/// it empty themselves when it moves.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// A built kernel image kept for the other devices of its architecture.
struct Image {
    bin: Arc<[u8]>,
    name: String,
    /// A quick build of a vectorised kernel's one-element-per-thread form (see [`Kernel`]).
    scalar: bool,
    /// The optimised build (else a quick first build, replaced in the background).
    optimised: bool,
    /// Built from a source that begins with the grid wait (see [`Kernel::grid_wait`]).
    grid_wait: bool,
}

/// Images by (architecture, structure key): a kernel built for one device is loaded into the
/// other devices of the same architecture as it is, with no second NVRTC build or disk read
/// (work sharded over several GPUs compiles once). Kept only in processes that see more than
/// one GPU, and at most [`MAX_IMAGES`] of them.
static IMAGES: LazyLock<Mutex<FastMap<(u32, u64), Image>>> =
    LazyLock::new(|| Mutex::new(FastMap::default()));
const MAX_IMAGES: usize = 4096;

/// Keeps `bin` (built for the device of `st`) for the other devices of its architecture; an
/// optimised image is never replaced by a quick one.
pub(crate) fn share(
    st: &DeviceState,
    key: u64,
    bin: &[u8],
    name: &str,
    (scalar, optimised, grid_wait): (bool, bool, bool),
) {
    if crate::device::cuda_device_count() < 2 {
        return;
    }
    let mut m = IMAGES.lock().unwrap_or_else(|e| e.into_inner());
    match m.get(&(st.arch, key)) {
        Some(i) if i.optimised && !optimised => return,
        None if m.len() >= MAX_IMAGES => return,
        _ => {}
    }
    m.insert(
        (st.arch, key),
        Image {
            bin: bin.into(),
            name: name.to_string(),
            scalar,
            optimised,
            grid_wait,
        },
    );
}

/// The optimised image under `key` built for another device of `arch`, if one is kept.
pub(crate) fn shared_optimised(arch: u32, key: u64) -> Option<Vec<u8>> {
    let m = IMAGES.lock().unwrap_or_else(|e| e.into_inner());
    m.get(&(arch, key))
        .filter(|i| i.optimised)
        .map(|i| i.bin.to_vec())
}

/// Puts `k` in the map under `(ordinal, key)`, retiring what it replaces.
pub(crate) fn insert(ordinal: usize, key: u64, k: Arc<Kernel>) {
    let mut m = KERNELS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(old) = m.insert((ordinal, key), k) {
        old.retired.store(true, Ordering::Release);
        RETIRED.lock().unwrap_or_else(|e| e.into_inner()).push(old);
    }
    GENERATION.fetch_add(1, Ordering::Release);
}

/// Forgets every kernel of every device: the next use of an expression goes to the disk cache
/// or NVRTC again, as in a new process. The modules stay loaded until `take_retired`.
pub fn clear_kernel_cache() {
    IMAGES.lock().unwrap_or_else(|e| e.into_inner()).clear();
    let mut m = KERNELS.lock().unwrap_or_else(|e| e.into_inner());
    RETIRED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(m.drain().map(|(_, k)| {
            k.retired.store(true, Ordering::Release);
            k
        }));
    GENERATION.fetch_add(1, Ordering::Release);
}

/// The retired kernels, to drop once the devices they ran on have been synchronised.
pub(crate) fn take_retired() -> Vec<Arc<Kernel>> {
    std::mem::take(&mut *RETIRED.lock().unwrap_or_else(|e| e.into_inner()))
}

/// What the kernel key knows of an input (see [`Program::structure_hash`]).
fn input_sig(p: &Program, i: &crate::graph::Input) -> u16 {
    (i.dtype.code() as u16) << 2
        | (i.gather_len.is_some() as u16) << 1
        | (i.gather_len.is_none() && i.layout.is_contiguous(&p.shape)) as u16
}

/// One entry of a thread's cache: the program's exact structure and its kernel.
struct LocalKernel {
    ordinal: usize,
    kind: KernelKind,
    ndim: usize,
    inputs: Vec<u16>,
    consts: Vec<std::mem::Discriminant<Scalar>>,
    instrs: Vec<Instr>,
    outputs: Vec<usize>,
    kernel: Option<Arc<Kernel>>,
}

impl LocalKernel {
    fn matches(&self, ordinal: usize, kind: KernelKind, p: &Program) -> bool {
        self.kernel.is_some()
            && self.ordinal == ordinal
            && self.kind == kind
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

    /// Makes this entry describe `p` (reusing its vectors).
    fn fill(&mut self, ordinal: usize, kind: KernelKind, p: &Program, k: Arc<Kernel>) {
        self.ordinal = ordinal;
        self.kind = kind;
        self.ndim = p.shape.len();
        self.inputs.clear();
        self.inputs.extend(p.inputs.iter().map(|i| input_sig(p, i)));
        self.consts.clear();
        self.consts
            .extend(p.consts.iter().map(std::mem::discriminant));
        self.instrs.clear();
        self.instrs.extend_from_slice(&p.instrs);
        self.outputs.clear();
        self.outputs.extend_from_slice(&p.outputs);
        self.kernel = Some(k);
    }
}

/// A thread's recently used kernels, replaced in turn once full.
struct LocalKernels {
    generation: u64,
    entries: Vec<LocalKernel>,
    next_victim: usize,
}

/// Kernels kept per thread.
const LOCAL_KERNELS: usize = 16;

thread_local! {
    static LOCAL: RefCell<LocalKernels> = const {
        RefCell::new(LocalKernels { generation: 0, entries: Vec::new(), next_victim: 0 })
    };
}

/// The kernel of `prog` (of kind `kind`) on the device of
/// `st`: from this thread's cache, the process's map, the disk, or a build from `make`'s
/// source. `quick` gives the source of the quick first build when it is not `make`'s (the
/// one-element-per-thread form of a vectorised kernel, same parameters). `interp` picks the
/// interpreter's kernel and the program's instruction words when the interpreter can stand in
/// for the first build (see [`super::interp`]).
pub(crate) fn get_or_interp(
    st: &'static DeviceState,
    prog: &Program,
    kind: KernelKind,
    make: impl FnOnce() -> KernelSource,
    quick: impl FnOnce() -> Option<KernelSource>,
    interp: impl FnOnce(&Interp) -> Option<(Function, Vec<u64>)>,
) -> Result<Arc<Kernel>> {
    let generation = GENERATION.load(Ordering::Acquire);
    let hit = LOCAL.with(|l| {
        let mut l = l.try_borrow_mut().ok()?;
        if l.generation != generation {
            for e in l.entries.iter_mut() {
                e.kernel = None;
            }
            l.next_victim = 0;
            l.generation = generation;
        }
        l.entries
            .iter()
            .find(|e| e.matches(st.ordinal, kind, prog))
            .and_then(|e| e.kernel.clone())
    });
    if let Some(k) = hit {
        note_use(&k);
        return Ok(k);
    }
    let k = lookup(st, prog.structure_hash(&kind), make, quick, interp)?;
    note_use(&k);
    LOCAL.with(|l| {
        let Ok(mut l) = l.try_borrow_mut() else {
            return;
        };
        // Kept only when nothing changed since `generation` was read (else the next call looks
        // the map up again).
        if l.generation != generation {
            return;
        }
        if l.entries.len() < LOCAL_KERNELS {
            let mut e = LocalKernel {
                ordinal: st.ordinal,
                kind,
                ndim: 0,
                inputs: Vec::new(),
                consts: Vec::new(),
                instrs: Vec::new(),
                outputs: Vec::new(),
                kernel: None,
            };
            e.fill(st.ordinal, kind, prog, k.clone());
            l.entries.push(e);
            return;
        }
        let at = l.next_victim % LOCAL_KERNELS;
        l.next_victim = at + 1;
        l.entries[at].fill(st.ordinal, kind, prog, k.clone());
    });
    Ok(k)
}

/// [`get_or_interp`] without the interpreter: for kernels launched only with their own
/// parameters.
pub(crate) fn get(
    st: &'static DeviceState,
    prog: &Program,
    kind: KernelKind,
    make: impl FnOnce() -> KernelSource,
    quick: impl FnOnce() -> Option<KernelSource>,
) -> Result<Arc<Kernel>> {
    get_or_interp(st, prog, kind, make, quick, |_| None)
}

/// The kernel under `key` on the device of `st` (a kernel of a library call, keyed by what its
/// source depends on), from the process's map, the disk, or a build of `make`'s source.
pub(crate) fn get_by_key(
    st: &'static DeviceState,
    key: u64,
    make: impl FnOnce() -> KernelSource,
) -> Result<Arc<Kernel>> {
    let k = lookup(st, key, make, || None, |_| None)?;
    note_use(&k);
    Ok(k)
}

/// The kernel under `key` on the device of `st`, built on a miss.
fn lookup(
    st: &'static DeviceState,
    key: u64,
    make: impl FnOnce() -> KernelSource,
    quick: impl FnOnce() -> Option<KernelSource>,
    interp: impl FnOnce(&Interp) -> Option<(Function, Vec<u64>)>,
) -> Result<Arc<Kernel>> {
    if let Some(k) = KERNELS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&(st.ordinal, key))
    {
        return Ok(k.clone());
    }
    let kept = {
        let m = IMAGES.lock().unwrap_or_else(|e| e.into_inner());
        m.get(&(st.arch, key)).map(|i| {
            (
                i.bin.clone(),
                i.name.clone(),
                i.scalar,
                i.optimised,
                i.grid_wait,
            )
        })
    };
    if let Some((bin, name, scalar, optimised, grid_wait)) = kept {
        // Built for another device of this architecture: loaded here as it is.
        let mut k = load(st, bin.to_vec(), &name, grid_wait)?;
        k.scalar = scalar;
        let k = Arc::new(k);
        insert(st.ordinal, key, k.clone());
        if !optimised {
            // Its optimised build, queued after the first device's, is then a kept image too.
            queue_tier_up(st, key, make());
        }
        return Ok(k);
    }
    let src = make();
    let cfg = JitConfig::get();
    if cfg.output == NvrtcOutput::Cubin
        || cuprite_driver::nvrtc::nvrtc_newer_than_driver().is_some()
    {
        // NVRTC straight to CUBIN (the driver could not read NVRTC's PTX, or asked for).
        let bin = compile::cubin_at(&src.source, src.level, st.arch)?;
        share(st, key, &bin, &src.name, (false, true, src.grid_wait));
        let k = Arc::new(load(st, bin, &src.name, src.grid_wait)?);
        insert(st.ordinal, key, k.clone());
        return Ok(k);
    }
    let path = compile::cache_path_at(&src.source, src.level, st.arch)?;
    if let Some(bin) = disk::load(path.as_deref()) {
        share(st, key, &bin, &src.name, (false, true, src.grid_wait));
        let k = Arc::new(load(st, bin, &src.name, src.grid_wait)?);
        insert(st.ordinal, key, k.clone());
        return Ok(k);
    }
    if tiered() {
        // The interpreter stands in while the optimised kernel is built (no NVRTC wait).
        let (mut ip, mut build_interp) = super::interp::ready(st);
        // The first new kernel of the process: the interpreter an earlier process built is
        // loaded here from the disk cache (faster than a quick build), where an exit from this thread waits for the background builds: the optimised
        // build queued below may then be the process's first NVRTC use, on the background
        // thread (see `worker::guard_main_thread_exit`).
        if build_interp && worker::exit_waits_here() {
            if let Some(loaded) = super::interp::load_cached(st) {
                ip = Some(loaded);
                build_interp = false;
            }
        }
        if let Some(ip) = ip {
            if let Some((func, code)) = interp(&ip) {
                let k = Arc::new(Kernel {
                    func,
                    blocks_per_sm: ip.blocks_per_sm,
                    scalar: true,
                    interp: Some(code.into_boxed_slice()),
                    grid_wait: false,
                    retired: AtomicBool::new(false),
                });
                insert(st.ordinal, key, k.clone());
                crate::stats::INTERPRETED.fetch_add(1, Ordering::Relaxed);
                trace_note("first use on the interpreter; optimised build queued");
                queue_tier_up(st, key, src);
                return Ok(k);
            }
        }
        let q = quick();
        let scalar = q.is_some();
        let q = q.as_ref().unwrap_or(&src);
        let built = quick_build(st, q);
        if build_interp {
            // Queued only now: NVRTC is first used by this thread's quick build above, never by
            // the background thread (see `worker::register_exit_hook`).
            worker::queue(worker::Job::Interpreter { st });
        }
        let (mut k, bin) = built?;
        share(st, key, &bin, &q.name, (scalar, false, q.grid_wait));
        k.scalar = scalar;
        let k = Arc::new(k);
        insert(st.ordinal, key, k.clone());
        queue_tier_up(st, key, src);
        return Ok(k);
    }
    let k = Arc::new(optimised_via_driver(st, key, &src)?);
    insert(st.ordinal, key, k.clone());
    Ok(k)
}

/// Loads CUBIN `image` into the device's context and looks up kernel `name` with its
/// occupancy.
/// `grid_wait`: the image was built from a source stated to begin with the grid wait.
pub(crate) fn load(
    st: &DeviceState,
    image: Vec<u8>,
    name: &str,
    grid_wait: bool,
) -> Result<Kernel> {
    let module = st.ctx.load_module(ModuleImage::cubin(image))?;
    let func = module.load_function(name)?;
    let blocks_per_sm = func.max_active_blocks_per_sm(BLOCK, 0)?.max(1);
    Ok(Kernel {
        func,
        blocks_per_sm,
        scalar: false,
        interp: None,
        grid_wait,
        retired: AtomicBool::new(false),
    })
}

/// The quick first build of `src`: the math calls its facts state compiled as relocatable glue
/// and linked with the math library when that is built; else, or when that fails, the whole
/// kernel at NVRTC's fastest setting. The first call queues the math library's build.
fn quick_build(st: &'static DeviceState, src: &KernelSource) -> Result<(Kernel, Vec<u8>)> {
    let (source, name, used) = (src.source.as_str(), src.name.as_str(), src.math);
    // The glue only declares the math functions ahead of the source: the entry point is as
    // the source states it.
    let grid_wait = src.grid_wait;
    let glue = (JitConfig::get().quick_build == QuickBuild::Linked)
        .then(|| math::glue_source(source, used))
        .flatten();
    if let Some(glue) = glue {
        let (libs, build) = math::math_library(st.arch, used);
        if build {
            // NVRTC's relocatable path is first taken here, on this thread, not by the
            // background build (see `worker::register_exit_hook`); then the hook goes after it.
            math::prime_relocatable(st.arch);
            worker::register_exit_hook();
            worker::queue(worker::Job::MathLibrary { arch: st.arch });
        }
        if let Some(libs) = libs {
            let linked = (|| -> Result<(Kernel, Vec<u8>)> {
                let obj = compile::cubin_glue(&glue, st.arch)?;
                let mut link = Linker::new(&st.ctx)?;
                link.add_cubin(&obj, "cuprite_array_glue.cubin")?;
                for l in &libs {
                    link.add_cubin(l, "cuprite_array_math.cubin")?;
                }
                let bin = link.complete()?;
                Ok((load(st, bin.clone(), name, grid_wait)?, bin))
            })();
            match linked {
                Ok(k) => {
                    math::note_linked();
                    worker::exit_hook_after_linker();
                    return Ok(k);
                }
                Err(e) => trace_note(&format!(
                    "linking the quick build with the math library failed ({e}): compiling the whole kernel"
                )),
            }
        }
    }
    let bin = compile::cubin_quick(source, st.arch)?;
    Ok((load(st, bin.clone(), name, grid_wait)?, bin))
}

/// The optimised kernel built on the spot without tiers: PTX from NVRTC, finished by the
/// driver's JIT through its linker (so that the CUBIN can be cached on disk).
fn optimised_via_driver(st: &DeviceState, key: u64, src: &KernelSource) -> Result<Kernel> {
    let path = compile::ptx_cache_path(&src.source, src.level, st.arch)?;
    if let Some(bin) = disk::load(path.as_deref()) {
        share(st, key, &bin, &src.name, (false, true, src.grid_wait));
        return load(st, bin, &src.name, src.grid_wait);
    }
    let ptx = compile::ptx(&src.source, src.level, st.arch)?;
    let linked = (|| -> Result<Vec<u8>> {
        let mut link = Linker::new(&st.ctx)?;
        link.add_ptx(&ptx, "cuprite_array_kernel.ptx")?;
        Ok(link.complete()?)
    })();
    match linked {
        Ok(bin) => {
            disk::store(path.as_deref(), &bin);
            share(st, key, &bin, &src.name, (false, true, src.grid_wait));
            load(st, bin, &src.name, src.grid_wait)
        }
        // The linker only serves to get a CUBIN to cache: load the PTX itself.
        Err(_) => {
            let module = st.ctx.load_module(ModuleImage::ptx(ptx))?;
            let func = module.load_function(&src.name)?;
            let blocks_per_sm = func.max_active_blocks_per_sm(BLOCK, 0)?.max(1);
            Ok(Kernel {
                func,
                blocks_per_sm,
                scalar: false,
                interp: None,
                grid_wait: src.grid_wait,
                retired: AtomicBool::new(false),
            })
        }
    }
}

/// Queues the optimised build of the kernel under `key` for the background thread.
fn queue_tier_up(st: &'static DeviceState, key: u64, source: KernelSource) {
    worker::queue(worker::Job::TierUp(Box::new(move || {
        tier_up(st, key, &source)
    })));
}

/// Builds the optimised kernel and puts it in place of the quick one. On failure the quick
/// kernel stays (it computes the same values).
fn tier_up(st: &'static DeviceState, key: u64, source: &KernelSource) {
    // NVRTC straight to an optimised CUBIN (cached on disk), never the driver's PTX JIT: a
    // library first loaded on this thread would register exit-time destructors after the exit
    // hook, and tear down under a build in progress at exit.
    // Another device of this architecture may have built it already (a sharded program).
    let bin = match shared_optimised(st.arch, key) {
        Some(bin) => Ok(bin),
        None => compile::cubin_at(&source.source, source.level, st.arch),
    };
    let built = bin.and_then(|bin| {
        share(st, key, &bin, &source.name, (false, true, source.grid_wait));
        load(st, bin, &source.name, source.grid_wait)
    });
    if let Ok(k) = built {
        insert(st.ordinal, key, Arc::new(k));
    }
}
