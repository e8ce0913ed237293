//! Counters of what the library did, for tests and tuning.

use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) static EVALUATIONS: AtomicU64 = AtomicU64::new(0);
pub(crate) static COMPILES: AtomicU64 = AtomicU64::new(0);
pub(crate) static DISK_HITS: AtomicU64 = AtomicU64::new(0);
pub(crate) static LINKED_QUICK: AtomicU64 = AtomicU64::new(0);

thread_local! {
    pub(crate) static THREAD_EVALUATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static THREAD_BUILDS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    pub(crate) static THREAD_LINKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
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
