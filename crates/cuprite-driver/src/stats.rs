//! Counters of the two costs that interop must avoid: host synchronisations (the host thread
//! blocks until device work is done) and cross-stream waits (a stream made to wait on the
//! device for an event of another stream).
//!
//! Counted where the driver layer issues them: [`Stream::synchronize`](crate::Stream::synchronize),
//! [`Context::synchronize`](crate::Context::synchronize), [`Event::synchronize`](crate::Event::synchronize),
//! the one-time switch to multi-stream tracking, the synchronous free fallback (host
//! synchronisations); and every `cuStreamWaitEvent` of the stream tracker,
//! [`Stream::join`](crate::Stream::join) and [`Stream::wait`](crate::Stream::wait) (stream waits).
//! Blocking copies to pageable host memory synchronise through `Stream::synchronize` and are
//! counted too. Each count is one relaxed atomic add plus one thread-local add.
//!
//! ```
//! let before = cuprite_driver::thread_stats();
//! // ... work ...
//! let d = cuprite_driver::thread_stats().since(&before);
//! assert_eq!(d.host_syncs, 0);
//! ```

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

static HOST_SYNCS: AtomicU64 = AtomicU64::new(0);
static STREAM_WAITS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static THREAD: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// A snapshot of the counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Host synchronisations (the host blocked until device work finished).
    pub host_syncs: u64,
    /// Cross-stream waits enqueued (`cuStreamWaitEvent`).
    pub stream_waits: u64,
}

impl Stats {
    /// The counts accumulated since `earlier` (a snapshot of the same scope).
    pub fn since(&self, earlier: &Stats) -> Stats {
        Stats {
            host_syncs: self.host_syncs.wrapping_sub(earlier.host_syncs),
            stream_waits: self.stream_waits.wrapping_sub(earlier.stream_waits),
        }
    }
}

/// The counters of the whole process.
pub fn stats() -> Stats {
    Stats {
        host_syncs: HOST_SYNCS.load(Ordering::Relaxed),
        stream_waits: STREAM_WAITS.load(Ordering::Relaxed),
    }
}

/// The counters of what the calling thread issued (unaffected by other threads: what tests
/// assert on).
pub fn thread_stats() -> Stats {
    let (h, w) = THREAD.with(|c| c.get());
    Stats {
        host_syncs: h,
        stream_waits: w,
    }
}

#[inline]
pub(crate) fn count_host_sync() {
    HOST_SYNCS.fetch_add(1, Ordering::Relaxed);
    THREAD.with(|c| {
        let (h, w) = c.get();
        c.set((h + 1, w))
    });
}

#[inline]
pub(crate) fn count_stream_wait() {
    STREAM_WAITS.fetch_add(1, Ordering::Relaxed);
    THREAD.with(|c| {
        let (h, w) = c.get();
        c.set((h, w + 1))
    });
}
