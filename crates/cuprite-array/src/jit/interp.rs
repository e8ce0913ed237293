//! The interpreter tier (see [`crate::codegen::interp`]): one module per device, built once
//! per machine (in the background, then from the disk cache) and loaded once per process. While
//! it is loaded, the first use of a small new program launches it instead of waiting for an
//! NVRTC build; the program's optimised kernel is built in the background and replaces it.

use super::compile;
use super::config::{FirstUse, JitConfig, trace_note};
use crate::codegen::{BLOCK, interp};
use crate::dtype::DType;
use crate::op::ReduceOp;
use crate::runtime::DeviceState;
use crate::util::FastMap;
use cuprite_driver::{Function, Module, ModuleImage};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// The interpreter's kernels on one device. The reduction kernels are looked up on first use:
/// with the driver's lazy module loading, each lookup loads that kernel's code.
#[derive(Debug)]
pub(crate) struct Interp {
    pub elementwise: Function,
    module: Arc<Module>,
    reductions: Vec<((ReduceOp, DType), LazyKernel)>,
    /// Blocks of [`BLOCK`] threads of the element-wise kernel resident per multiprocessor.
    pub blocks_per_sm: u32,
}

/// A kernel of the module looked up on first use (`None` when the driver could not).
type LazyKernel = OnceLock<Option<Function>>;

impl Interp {
    /// The reduction kernel of `op` accumulating in `acc`, if the interpreter has one (and the
    /// driver could load it).
    pub fn reduction(&self, op: ReduceOp, acc: DType) -> Option<&Function> {
        let (_, slot) = self.reductions.iter().find(|(k, _)| *k == (op, acc))?;
        slot.get_or_init(|| {
            self.module
                .load_function(&interp::reduction_name(op, acc))
                .ok()
        })
        .as_ref()
    }
}

enum Slot {
    Building,
    Ready(Arc<Interp>),
    Failed,
}

static SLOTS: LazyLock<Mutex<FastMap<usize, Slot>>> = LazyLock::new(Default::default);

thread_local! {
    static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the first uses of new programs on this thread built by NVRTC (the quick
/// build) instead of run on the interpreter: to compare the tiers or time the builds.
///
/// ```
/// use cuprite_array::{Array, Device, tuning};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0], &[2])?;
/// let b = tuning::without_interpreter(|| (&a * 3.0).to_vec())?;
/// assert_eq!(b, [3.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn without_interpreter<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            OFF.with(|o| o.set(self.0));
        }
    }
    let _restore = Restore(OFF.with(|o| o.replace(true)));
    f()
}

/// The interpreter's source (the same for every device and process).
pub(crate) static SOURCE: LazyLock<String> = LazyLock::new(interp::source);

/// The disk-cache file of the interpreter built for `sm_{arch}` by this NVRTC (`None` when the
/// disk cache is off). Built once per machine in the background; a process that finds it there
/// runs its very first new kernel on it. Copy it into an image's cache folder to spare the
/// image's first runs the build.
///
/// ```no_run
/// let p = cuprite_array::tuning::compiler::interpreter_cache_path(90)?;
/// println!("{p:?}");
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn interpreter_cache_path(arch: u32) -> crate::error::Result<Option<std::path::PathBuf>> {
    compile::cache_path(&SOURCE, arch)
}

/// The interpreter of the device of `st` when it is loaded, and whether the caller must queue
/// its build (the first call for the device: `worker::Job::Interpreter`). `None` until the
/// build is done, and for good when it failed or the interpreter is turned off.
pub(crate) fn ready(st: &DeviceState) -> (Option<Arc<Interp>>, bool) {
    if JitConfig::get().first_use != FirstUse::Interpreter || OFF.with(|o| o.get()) {
        return (None, false);
    }
    let mut g = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
    match g.get(&st.ordinal) {
        Some(Slot::Ready(i)) => (Some(i.clone()), false),
        Some(_) => (None, false),
        None => {
            g.insert(st.ordinal, Slot::Building);
            (None, true)
        }
    }
}

/// Loads the interpreter's module from its CUBIN `bin` on the device of `st`, and its
/// element-wise kernel.
fn load(st: &DeviceState, bin: Vec<u8>) -> crate::error::Result<Interp> {
    let module = st.ctx.load_module(ModuleImage::cubin(bin))?;
    let elementwise = module.load_function(interp::ELEMENTWISE_NAME)?;
    let blocks_per_sm = elementwise.max_active_blocks_per_sm(BLOCK, 0)?.max(1);
    let reductions = interp::reductions().map(|k| (k, OnceLock::new())).collect();
    Ok(Interp {
        elementwise,
        module,
        reductions,
        blocks_per_sm,
    })
}

/// The interpreter of the device of `st` from the disk cache, loaded on the calling thread
/// and ready for every later use, when the caller was told to have it built ([`ready`]'s
/// `true`) and a build of an earlier process is on disk; `None` otherwise (the slot stays
/// `Building`: the caller queues the build).
pub(crate) fn load_cached(st: &DeviceState) -> Option<Arc<Interp>> {
    let t = std::time::Instant::now();
    let bin = compile::cached_cubin(&SOURCE, st.arch).ok()??;
    let read = t.elapsed();
    let i = Arc::new(load(st, bin).ok()?);
    trace_note(&format!(
        "interpreter loaded from the disk cache (read {:.1} ms, load {:.1} ms)",
        read.as_secs_f64() * 1e3,
        (t.elapsed() - read).as_secs_f64() * 1e3
    ));
    SLOTS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(st.ordinal, Slot::Ready(i.clone()));
    Some(i)
}

/// Builds (or reads from the disk cache) and loads the interpreter of the device of `st`.
pub(crate) fn build(st: &DeviceState) {
    let built = compile::cubin(&SOURCE, st.arch).and_then(|bin| load(st, bin));
    let slot = match built {
        Ok(i) => {
            trace_note("background: interpreter loaded");
            Slot::Ready(Arc::new(i))
        }
        Err(e) => {
            trace_note(&format!(
                "background: the interpreter failed to build ({e}): first uses are quick builds"
            ));
            Slot::Failed
        }
    };
    SLOTS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(st.ordinal, slot);
}
