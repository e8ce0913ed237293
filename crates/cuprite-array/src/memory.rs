//! Memory statistics of the array library, per device: what is allocated, in use and locked.
//! Each thread counts its own allocations, frees, locks and unlocks (no locked instruction on
//! the hot path); [`mem_stats`] sums them.
//!
//! Device memory comes from the driver layer's stream-ordered pool; freed buffers stay cached
//! in the pool until [`crate::device_gc`] trims it.

use crate::device::{Backend, Device};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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

/// Cumulative counts: what is in use is what was allocated less what was freed, and what is
/// locked what was locked less what was unlocked, so that each event updates two counters. The
/// events of a thread go to its own [`Flows`]; these hold the counts of threads that ended, and
/// those made where a thread's own are not there (while its thread-locals are torn down).
#[derive(Default)]
pub(crate) struct Counters {
    pub total: AtomicUsize,
    pub total_buffers: AtomicUsize,
    pub freed: AtomicUsize,
    pub freed_buffers: AtomicUsize,
    pub locked: AtomicUsize,
    pub locked_buffers: AtomicUsize,
    pub unlocked: AtomicUsize,
    pub unlocked_buffers: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: Counters = Counters {
    total: AtomicUsize::new(0),
    total_buffers: AtomicUsize::new(0),
    freed: AtomicUsize::new(0),
    freed_buffers: AtomicUsize::new(0),
    locked: AtomicUsize::new(0),
    locked_buffers: AtomicUsize::new(0),
    unlocked: AtomicUsize::new(0),
    unlocked_buffers: AtomicUsize::new(0),
};

pub(crate) static CUDA: [Counters; MAX_DEVICES] = [ZERO; MAX_DEVICES];
pub(crate) static HOST: Counters = ZERO;

pub(crate) fn counters(d: Device) -> &'static Counters {
    match d.backend {
        Backend::Cpu => &HOST,
        Backend::Cuda => &CUDA[d.ordinal.min(MAX_DEVICES - 1)],
    }
}

/// What a buffer went through.
#[derive(Clone, Copy)]
enum Event {
    Alloc,
    Free,
    Lock,
    Unlock,
}

impl Counters {
    /// The (bytes, buffers) counters of `e`.
    fn of(&self, e: Event) -> (&AtomicUsize, &AtomicUsize) {
        match e {
            Event::Alloc => (&self.total, &self.total_buffers),
            Event::Free => (&self.freed, &self.freed_buffers),
            Event::Lock => (&self.locked, &self.locked_buffers),
            Event::Unlock => (&self.unlocked, &self.unlocked_buffers),
        }
    }
}

/// One thread's counts on one device, written by that thread alone (a load and a store, no
/// read-modify-write: a loop of small operations pays no locked instruction for its
/// statistics) and read by [`mem_stats`].
type Flow = Counters;

/// One thread's [`Flow`]s: the host's, then each CUDA device's.
struct Flows([Flow; MAX_DEVICES + 1]);

impl Flows {
    fn of(&self, d: Device) -> &Flow {
        match d.backend {
            Backend::Cpu => &self.0[0],
            Backend::Cuda => &self.0[1 + d.ordinal.min(MAX_DEVICES - 1)],
        }
    }
}

/// The flows of the live threads that counted anything. Locked by [`mem_stats`] for the whole
/// read, and by a thread that ends while it moves its counts into the global [`Counters`].
static THREADS: Mutex<Vec<Arc<Flows>>> = Mutex::new(Vec::new());

/// The calling thread's flows, registered on first use, moved into the globals when it ends.
struct Mine(Arc<Flows>);

impl Mine {
    fn register() -> Mine {
        let f = Arc::new(Flows(std::array::from_fn(|_| Flow::default())));
        lock_threads().push(f.clone());
        Mine(f)
    }
}

impl Drop for Mine {
    fn drop(&mut self) {
        let mut threads = lock_threads();
        for (i, f) in self.0.0.iter().enumerate() {
            let g = if i == 0 { &HOST } else { &CUDA[i - 1] };
            for e in [Event::Alloc, Event::Free, Event::Lock, Event::Unlock] {
                let (fb, fn_) = f.of(e);
                let (gb, gn) = g.of(e);
                gb.fetch_add(fb.load(Ordering::Relaxed), Ordering::Release);
                gn.fetch_add(fn_.load(Ordering::Relaxed), Ordering::Release);
            }
        }
        threads.retain(|f| !Arc::ptr_eq(f, &self.0));
    }
}

thread_local! {
    static MINE: Mine = Mine::register();
}

fn lock_threads() -> std::sync::MutexGuard<'static, Vec<Arc<Flows>>> {
    THREADS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Adds `x` to a counter only the calling thread writes.
fn bump(c: &AtomicUsize, x: usize, order: Ordering) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(x), order);
}

pub(crate) fn on_alloc(d: Device, bytes: usize) {
    count(d, bytes, Event::Alloc);
}

pub(crate) fn on_free(d: Device, bytes: usize) {
    count(d, bytes, Event::Free);
}

pub(crate) fn on_lock(d: Device, bytes: usize) {
    count(d, bytes, Event::Lock);
}

pub(crate) fn on_unlock(d: Device, bytes: usize) {
    count(d, bytes, Event::Unlock);
}

/// Counts event `e` of one buffer of `bytes` in the calling thread's flow (the global counters
/// where it has none now).
fn count(d: Device, bytes: usize, e: Event) {
    // Release for a free or an unlock: a reader that sees it (Acquire) also sees the
    // allocation or lock it undoes counted (made before it on whichever thread, so written
    // before this store).
    let order = match e {
        Event::Free | Event::Unlock => Ordering::Release,
        Event::Alloc | Event::Lock => Ordering::Relaxed,
    };
    let mine = MINE.try_with(|m| {
        let (b, n) = m.0.of(d).of(e);
        bump(b, bytes, order);
        bump(n, 1, order);
    });
    if mine.is_err() {
        let (b, n) = counters(d).of(e);
        b.fetch_add(bytes, order);
        n.fetch_add(1, order);
    }
}

/// Statistics of `device`'s array memory.
///
/// ```
/// let s = cuprite_array::mem_stats(cuprite_array::Device::CPU);
/// assert!(s.bytes_in_use >= s.bytes_locked);
/// ```
pub fn mem_stats(device: Device) -> MemStats {
    let c = counters(device);
    let threads = lock_threads();
    let flows = || threads.iter().map(|f| f.of(device));
    let sum = |global: &AtomicUsize, pick: fn(&Flow) -> &AtomicUsize, order: Ordering| {
        flows().fold(global.load(order), |acc, f| {
            acc.wrapping_add(pick(f).load(order))
        })
    };
    // Frees first: every free seen has its allocation seen by the later loads (so in-use
    // counts never go below zero; a free racing with the read can only make them high).
    let freed_buffers = sum(&c.freed_buffers, |f| &f.freed_buffers, Ordering::Acquire);
    let freed = sum(&c.freed, |f| &f.freed, Ordering::Acquire);
    let total = sum(&c.total, |f| &f.total, Ordering::Relaxed);
    let total_buffers = sum(&c.total_buffers, |f| &f.total_buffers, Ordering::Relaxed);
    // The same order for locks: unlocks first.
    let unlocked_buffers = sum(
        &c.unlocked_buffers,
        |f| &f.unlocked_buffers,
        Ordering::Acquire,
    );
    let unlocked = sum(&c.unlocked, |f| &f.unlocked, Ordering::Acquire);
    let locked = sum(&c.locked, |f| &f.locked, Ordering::Relaxed);
    let locked_buffers = sum(&c.locked_buffers, |f| &f.locked_buffers, Ordering::Relaxed);
    drop(threads);
    MemStats {
        bytes_in_use: total.wrapping_sub(freed),
        buffers_in_use: total_buffers.wrapping_sub(freed_buffers),
        bytes_allocated_total: total,
        buffers_allocated_total: total_buffers,
        bytes_locked: locked.wrapping_sub(unlocked),
        buffers_locked: locked_buffers.wrapping_sub(unlocked_buffers),
    }
}

#[cfg(test)]
mod tests {
    use super::{mem_stats, on_alloc, on_free, on_lock, on_unlock};
    use crate::device::Device;

    /// Counts made on several threads, a buffer allocated on one and freed on another, and
    /// threads that end before the read: the sums are exact. Device 15 is used by nothing else
    /// in the process (the CPU backend's tests run beside this one).
    #[test]
    fn per_thread_counts_sum_exactly_across_threads_and_after_they_end() {
        let d = Device::cuda(15);
        let base = mem_stats(d);
        let (tx, rx) = std::sync::mpsc::channel::<usize>();
        let makers: Vec<_> = (0..4)
            .map(|i| {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    for k in 0..100 {
                        let bytes = 64 * (i + 1) + k;
                        on_alloc(d, bytes);
                        tx.send(bytes).unwrap();
                    }
                })
            })
            .collect();
        drop(tx);
        // The frees on another thread, which ends too.
        let freer = std::thread::spawn(move || {
            let mut n = 0;
            for bytes in rx {
                on_free(d, bytes);
                n += bytes;
            }
            n
        });
        makers.into_iter().for_each(|t| t.join().unwrap());
        let freed = freer.join().unwrap();
        let s = mem_stats(d);
        assert_eq!(s.bytes_allocated_total - base.bytes_allocated_total, freed);
        assert_eq!(
            s.buffers_allocated_total - base.buffers_allocated_total,
            400
        );
        assert_eq!(s.bytes_in_use, base.bytes_in_use);
        assert_eq!(s.buffers_in_use, base.buffers_in_use);
        // One kept in use on this (live) thread.
        on_alloc(d, 1000);
        let t = mem_stats(d);
        assert_eq!(t.bytes_in_use, base.bytes_in_use + 1000);
        assert_eq!(t.buffers_in_use, base.buffers_in_use + 1);
        on_free(d, 1000);
        assert_eq!(mem_stats(d).bytes_in_use, base.bytes_in_use);
        // Locked on this thread, unlocked on one that then ends (its count goes negative
        // alone and the sum stays exact), and locked there for good.
        on_lock(d, 300);
        on_lock(d, 20);
        assert_eq!(mem_stats(d).bytes_locked, base.bytes_locked + 320);
        std::thread::spawn(move || {
            on_unlock(d, 300);
            on_lock(d, 7);
        })
        .join()
        .unwrap();
        let l = mem_stats(d);
        assert_eq!(l.bytes_locked, base.bytes_locked + 27);
        assert_eq!(l.buffers_locked, base.buffers_locked + 2);
        on_unlock(d, 20);
        on_unlock(d, 7);
        assert_eq!(mem_stats(d).buffers_locked, base.buffers_locked);
    }
}
