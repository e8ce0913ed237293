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
/// compilation (see [`crate::jit`]) a new kernel counts twice, its quick and its optimised
/// build, the second once the background build has run ([`crate::wait_tier_up`]).
pub fn compiles() -> u64 {
    COMPILES.load(Ordering::Relaxed)
}
/// Kernels loaded from the disk cache so far.
pub fn disk_hits() -> u64 {
    DISK_HITS.load(Ordering::Relaxed)
}
/// Quick first builds compiled without their math functions and linked with the math
/// library (see [`crate::jit`]), so far; also counted in [`compiles`].
pub fn linked_quick_builds() -> u64 {
    LINKED_QUICK.load(Ordering::Relaxed)
}
/// [`linked_quick_builds`] of the calling thread.
pub fn thread_linked_quick_builds() -> u64 {
    THREAD_LINKED.with(|c| c.get())
}
/// New programs whose first use ran on the interpreter (no NVRTC build waited for; see
/// [`crate::jit`]), so far.
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
