//! Counters of what the library did, for tests and tuning.

use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) static EVALUATIONS: AtomicU64 = AtomicU64::new(0);
pub(crate) static COMPILES: AtomicU64 = AtomicU64::new(0);
pub(crate) static DISK_HITS: AtomicU64 = AtomicU64::new(0);
pub(crate) static LINKED_QUICK: AtomicU64 = AtomicU64::new(0);
pub(crate) static INTERPRETED: AtomicU64 = AtomicU64::new(0);
pub(crate) static FUSED_EPILOGUES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    pub(crate) static THREAD_EVALUATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_BUILDS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    pub(crate) static THREAD_LINKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_FUSED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_CUDNN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_COOP_CG: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_MAPPED_FLAGS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_SMALL: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_REDUCTION_PASSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_PROGRAMMATIC: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts one kernel the calling thread launched as a programmatic dependent.
pub(crate) fn note_programmatic_launch() {
    THREAD_PROGRAMMATIC.with(|c| c.set(c.get() + 1));
}

/// Kernels the calling thread launched as programmatic dependents of the kernel before them:
/// only while capturing a compiled program with `tuning::set_graph_pdl` on, on devices of
/// compute capability 9.0 and later. For tests.
///
/// ```
/// use cuprite_array::{Array, Device, stats};
/// let before = stats::thread_programmatic_launches();
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0], &[2])?;
/// let _ = (&a * 2.0).sum()?;
/// assert_eq!(stats::thread_programmatic_launches(), before);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn thread_programmatic_launches() -> u64 {
    THREAD_PROGRAMMATIC.with(|c| c.get())
}

/// Counts one pass of a reduction over its rows (a kernel launch on CUDA, a call on the CPU)
/// started by the calling thread.
pub(crate) fn note_reduction_pass() {
    THREAD_REDUCTION_PASSES.with(|c| c.set(c.get() + 1));
}

/// Reduction passes the calling thread started: each CUDA reduction kernel launched (a
/// reduction whose blocks do not combine their partials themselves takes two) and each CPU
/// reduction. Reductions run when they are called and are not counted in
/// [`thread_evaluations`]; the two together count the passes a computation makes. For tests.
///
/// ```
/// use cuprite_array::{Array, Device, stats};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[3])?;
/// let before = stats::thread_reduction_passes();
/// let s = a.sum()?;
/// assert_eq!(stats::thread_reduction_passes() - before, 1);
/// assert_eq!(s.item()?, 6.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn thread_reduction_passes() -> u64 {
    THREAD_REDUCTION_PASSES.with(|c| c.get())
}

/// Counts one evaluation launched from a noted small form on the calling thread.
pub(crate) fn note_small_launch() {
    THREAD_SMALL.with(|c| c.set(c.get() + 1));
}

/// Evaluations the calling thread launched on CUDA from a noted small form: one element-wise
/// step over contiguous arrays and constants (`&a + 1.0`, `a.exp()`), launched without
/// linearising its graph once the same form ran before. For tests and tuning.
pub fn thread_small_op_launches() -> u64 {
    THREAD_SMALL.with(|c| c.get())
}

/// Counts one index-check flag read from mapped host memory on the calling thread.
pub(crate) fn note_mapped_flag_read() {
    THREAD_MAPPED_FLAGS.with(|c| c.set(c.get() + 1));
}

/// Checked index calls (the default [`IndexMode`](crate::ops::IndexMode)) on CUDA whose
/// out-of-range flag the calling thread read straight from a word of mapped host memory: no
/// copy back and no launch to clear it (the other calls read a device word back). For tests.
pub fn thread_mapped_flag_reads() -> u64 {
    THREAD_MAPPED_FLAGS.with(|c| c.get())
}

/// Counts a compilation or disk-cache load done on the calling thread.
pub(crate) fn note_thread_build() {
    THREAD_BUILDS.with(|c| c.set(c.get() + 1));
}

/// NVRTC compilations and disk-cache loads done by the calling thread so far (the
/// background optimised builds run on their own thread and are not counted here). Unlike
/// [`compiles`] and [`disk_hits`], not moved by other threads' work.
pub fn thread_builds() -> u64 {
    THREAD_BUILDS.with(|c| c.get())
}

/// Fused evaluations (kernels or CPU passes) run so far in this process.
pub fn evaluations() -> u64 {
    EVALUATIONS.load(Ordering::Relaxed)
}

/// Fused evaluations started by the calling thread so far.
pub fn thread_evaluations() -> u64 {
    THREAD_EVALUATIONS.with(|c| c.get())
}
/// NVRTC compilations so far (not counting in-memory or disk cache hits). With tiered
/// compilation (see [`crate::tuning`]) a new kernel counts twice, its quick and its optimised
/// build, the second once the background build has run ([`crate::tuning::wait_tier_up`]).
pub fn compiles() -> u64 {
    COMPILES.load(Ordering::Relaxed)
}
/// Kernels loaded from the disk cache so far.
pub fn disk_hits() -> u64 {
    DISK_HITS.load(Ordering::Relaxed)
}
/// Quick first builds compiled without their math functions and linked with the math
/// library (see [`crate::tuning`]), so far; also counted in [`compiles`].
pub fn linked_quick_builds() -> u64 {
    LINKED_QUICK.load(Ordering::Relaxed)
}
/// [`linked_quick_builds`] of the calling thread.
pub fn thread_linked_quick_builds() -> u64 {
    THREAD_LINKED.with(|c| c.get())
}
/// New programs whose first use ran on the interpreter (no NVRTC build waited for; see
/// [`crate::tuning`]), so far.
pub fn interpreted_first_uses() -> u64 {
    INTERPRETED.load(Ordering::Relaxed)
}

/// Library calls run so far that folded element-wise work on their output into the call itself
/// (a matrix product's bias, ReLU, GELU or scale epilogue, found in the lazy graph): each counts
/// once per run, on either backend.
///
/// ```
/// use cuprite_array::{Array, Device, stats};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, -2.0, 3.0, -4.0], &[2, 2])?;
/// let bias = Array::<f32>::from_slice_on(Device::CPU, &[0.5, 0.5], &[2])?;
/// let before = stats::fused_epilogues();
/// let y = (a.matmul(&a)? + &bias).relu();
/// assert_eq!(y.to_vec()?, [0.0, 6.5, 0.0, 10.5]);
/// assert!(stats::fused_epilogues() > before);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fused_epilogues() -> u64 {
    FUSED_EPILOGUES.load(Ordering::Relaxed)
}

/// Counts one fused epilogue, run on the calling thread.
pub(crate) fn note_fused_epilogue() {
    FUSED_EPILOGUES.fetch_add(1, Ordering::Relaxed);
    THREAD_FUSED.with(|c| c.set(c.get() + 1));
}

/// [`fused_epilogues`] run by the calling thread (not moved by other threads' work).
///
/// ```
/// let before = cuprite_array::stats::thread_fused_epilogues();
/// assert_eq!(cuprite_array::stats::thread_fused_epilogues(), before);
/// ```
pub fn thread_fused_epilogues() -> u64 {
    THREAD_FUSED.with(|c| c.get())
}

/// Convolution passes and poolings the calling thread has run through cuDNN (rather than
/// cuprite's kernels; see [`crate::tuning::set_cudnn`]). The CPU backend never adds to it.
///
/// ```
/// use cuprite_array::{Array, Device, signal, stats};
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[1, 1, 3])?;
/// let w = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 1.0], &[1, 1, 2])?;
/// let before = stats::thread_cudnn_calls();
/// assert_eq!(signal::conv1d(&x, &w)?.to_vec()?, [3.0, 5.0]);
/// assert_eq!(stats::thread_cudnn_calls(), before);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn thread_cudnn_calls() -> u64 {
    THREAD_CUDNN.with(|c| c.get())
}

/// Counts one call run through cuDNN on the calling thread.
pub(crate) fn note_cudnn_call() {
    THREAD_CUDNN.with(|c| c.set(c.get() + 1));
}

/// Unpreconditioned CG steps (`sparse::cg` without a preconditioner) the calling thread has run
/// as one cooperative launch on CUDA (see [`crate::tuning::set_cg_fused`]). The CPU backend
/// never adds to it.
///
/// ```
/// use cuprite_array::{Array, Device, with_device, stats};
/// use cuprite_array::sparse::{SparseArray, cg};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-1.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
///     let before = stats::thread_cooperative_cg_steps();
///     assert!(cg(&a, &b)?.converged);
///     assert_eq!(stats::thread_cooperative_cg_steps(), before);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn thread_cooperative_cg_steps() -> u64 {
    THREAD_COOP_CG.with(|c| c.get())
}

/// Counts one cooperative CG step launched on the calling thread.
pub(crate) fn note_cooperative_cg_step() {
    THREAD_COOP_CG.with(|c| c.set(c.get() + 1));
}

/// Where the host time of evaluations goes on the calling thread, by phase (feature
/// `host-profile`; without it the marks compile to nothing and [`take_host_phases`] is absent).
/// For tuning the per-call overhead: `cuprite bench array/small_op_host`, built with
/// `--features host-profile`, prints it. Each mark reads the clock once.
#[cfg(feature = "host-profile")]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostPhases {
    /// Single-node evaluations measured.
    pub evaluations: u64,
    /// Realise's checks and building the program from the graph, nanoseconds in all.
    pub build_ns: u64,
    /// Device state, stream and the output buffer.
    pub buffer_ns: u64,
    /// The kernel lookup (this thread's cache, the process map, a build).
    pub lookup_ns: u64,
    /// The launch parameters and the launch (the safe layer's checks, tracking, the driver).
    pub launch_ns: u64,
    /// The result storage and the node turned into a leaf.
    pub finish_ns: u64,
}

/// A phase of an evaluation (see [`HostPhases`]).
#[derive(Clone, Copy)]
pub(crate) enum Phase {
    Build,
    Buffer,
    Lookup,
    Launch,
    Finish,
}

#[cfg(feature = "host-profile")]
thread_local! {
    static PHASES: std::cell::Cell<(Option<std::time::Instant>, [u64; 5], u64)> =
        const { std::cell::Cell::new((None, [0; 5], 0)) };
}

/// Starts timing an evaluation on this thread.
#[inline(always)]
pub(crate) fn phase_start() {
    #[cfg(feature = "host-profile")]
    PHASES.with(|p| {
        let (_, acc, n) = p.get();
        p.set((Some(std::time::Instant::now()), acc, n));
    });
}

/// Charges the time since the previous mark to `phase` (nothing when no evaluation is timed).
#[inline(always)]
pub(crate) fn phase_end(phase: Phase) {
    #[cfg(feature = "host-profile")]
    PHASES.with(|p| {
        let (last, mut acc, mut n) = p.get();
        if let Some(t) = last {
            let now = std::time::Instant::now();
            acc[phase as usize] += (now - t).as_nanos() as u64;
            if matches!(phase, Phase::Finish) {
                n += 1;
                p.set((None, acc, n));
            } else {
                p.set((Some(now), acc, n));
            }
        }
    });
    #[cfg(not(feature = "host-profile"))]
    let _ = phase;
}

/// The phases accumulated on this thread since the last call, and a reset.
///
/// ```
/// # #[cfg(feature = "host-profile")] {
/// use cuprite_array::{Array, Device};
/// let _ = cuprite_array::stats::take_host_phases();
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0], &[2])?;
/// (&a + 1.0f32).eval()?;
/// assert_eq!(cuprite_array::stats::take_host_phases().evaluations, 1);
/// # }
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[cfg(feature = "host-profile")]
pub fn take_host_phases() -> HostPhases {
    PHASES.with(|p| {
        let (_, acc, n) = p.get();
        p.set((None, [0; 5], 0));
        HostPhases {
            evaluations: n,
            build_ns: acc[Phase::Build as usize],
            buffer_ns: acc[Phase::Buffer as usize],
            lookup_ns: acc[Phase::Lookup as usize],
            launch_ns: acc[Phase::Launch as usize],
            finish_ns: acc[Phase::Finish as usize],
        }
    })
}

#[cfg(feature = "host-profile")]
thread_local! {
    static LAST_LAUNCH: std::cell::RefCell<Option<(cuprite_driver::Function, Vec<u64>, u32)>> =
        const { std::cell::RefCell::new(None) };
}

/// Notes the kernel, parameter words and grid of this thread's latest element-wise launch
/// (feature `host-profile`), for timing the same launch alone.
#[inline(always)]
pub(crate) fn note_launch(_func: &cuprite_driver::Function, _words: &[u64], _grid: u32) {
    #[cfg(feature = "host-profile")]
    LAST_LAUNCH.with(|l| *l.borrow_mut() = Some((_func.clone(), _words.to_vec(), _grid)));
}

/// The kernel, parameter words and grid of this thread's latest element-wise launch (feature
/// `host-profile`): the small-op benchmark launches them again alone to tell the driver's cost
/// of that kernel from the array layer's.
#[cfg(feature = "host-profile")]
pub fn last_launch() -> Option<(cuprite_driver::Function, Vec<u64>, u32)> {
    LAST_LAUNCH.with(|l| l.borrow().clone())
}
