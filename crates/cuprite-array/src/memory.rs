//! Memory statistics of the array library, per device: what is allocated, in use and locked.
//!
//! Device memory comes from the driver layer's stream-ordered pool; freed buffers stay cached
//! in the pool until [`crate::device_gc`] trims it.

use crate::device::{Backend, Device};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Allocation statistics of one device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemStats {
    /// Bytes in live array buffers.
    pub bytes_in_use: usize,
    /// Live array buffers.
    pub buffers_in_use: usize,
    /// Bytes allocated since the process started (cumulative).
    pub bytes_allocated_total: usize,
    /// Buffers allocated since the process started (cumulative).
    pub buffers_allocated_total: usize,
    /// Bytes in locked buffers (never freed or reused by the manager).
    pub bytes_locked: usize,
    /// Locked buffers.
    pub buffers_locked: usize,
}

pub(crate) const MAX_DEVICES: usize = 16;

/// Cumulative counts: what is in use is what was allocated less what was freed, so that an
/// allocation and a free each update two counters.
pub(crate) struct Counters {
    pub total: AtomicUsize,
    pub total_buffers: AtomicUsize,
    pub freed: AtomicUsize,
    pub freed_buffers: AtomicUsize,
    pub locked: AtomicUsize,
    pub locked_buffers: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: Counters = Counters {
    total: AtomicUsize::new(0),
    total_buffers: AtomicUsize::new(0),
    freed: AtomicUsize::new(0),
    freed_buffers: AtomicUsize::new(0),
    locked: AtomicUsize::new(0),
    locked_buffers: AtomicUsize::new(0),
};

pub(crate) static CUDA: [Counters; MAX_DEVICES] = [ZERO; MAX_DEVICES];
pub(crate) static HOST: Counters = ZERO;

pub(crate) fn counters(d: Device) -> &'static Counters {
    match d.backend {
        Backend::Cpu => &HOST,
        Backend::Cuda => &CUDA[d.ordinal.min(MAX_DEVICES - 1)],
    }
}

pub(crate) fn on_alloc(d: Device, bytes: usize) {
    let c = counters(d);
    c.total.fetch_add(bytes, Ordering::Relaxed);
    c.total_buffers.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn on_free(d: Device, bytes: usize) {
    let c = counters(d);
    // Release: a reader that sees this free (Acquire) also sees its allocation counted.
    c.freed.fetch_add(bytes, Ordering::Release);
    c.freed_buffers.fetch_add(1, Ordering::Release);
}

pub(crate) fn on_lock(d: Device, bytes: usize) {
    let c = counters(d);
    c.locked.fetch_add(bytes, Ordering::Relaxed);
    c.locked_buffers.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn on_unlock(d: Device, bytes: usize) {
    let c = counters(d);
    c.locked.fetch_sub(bytes, Ordering::Relaxed);
    c.locked_buffers.fetch_sub(1, Ordering::Relaxed);
}

/// Statistics of `device`'s array memory.
///
/// ```
/// let s = cuprite_array::mem_stats(cuprite_array::Device::CPU);
/// assert!(s.bytes_in_use >= s.bytes_locked);
/// ```
pub fn mem_stats(device: Device) -> MemStats {
    let c = counters(device);
    // Frees first: every free seen has its allocation seen by the later loads (so in-use
    // counts never go below zero; a free racing with the read can only make them high).
    let freed_buffers = c.freed_buffers.load(Ordering::Acquire);
    let freed = c.freed.load(Ordering::Acquire);
    let total = c.total.load(Ordering::Relaxed);
    let total_buffers = c.total_buffers.load(Ordering::Relaxed);
    MemStats {
        bytes_in_use: total.wrapping_sub(freed),
        buffers_in_use: total_buffers.wrapping_sub(freed_buffers),
        bytes_allocated_total: total,
        buffers_allocated_total: total_buffers,
        bytes_locked: c.locked.load(Ordering::Relaxed),
        buffers_locked: c.locked_buffers.load(Ordering::Relaxed),
    }
}
