//! The stream-tracking mode of one context: single-stream until a second stream touches one of
//! its buffers, then multi-stream for good (see [`crate::context`]). Owns the switch and the
//! count of captures in progress that forbids it; the synchronisation the switch needs is
//! passed in by the context.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, RwLock, RwLockWriteGuard};
use std::thread::ThreadId;
use std::time::Duration;

#[derive(Debug, Default)]
pub(crate) struct TrackingMode {
    /// Raised first when switching, so that every access completing afterwards is recorded.
    multi: AtomicBool,
    /// The tracking id of the first stream that touched a buffer (0: none yet).
    first_stream: AtomicU64,
    /// Held while switching; `true` once the switch's synchronisation finished.
    switch: Mutex<bool>,
    /// Lock-free copy of the value under `switch`.
    settled: AtomicBool,
    /// Stream captures in progress on streams of this context.
    captures: AtomicUsize,
    /// Held (shared) across a context-wide synchronisation and (exclusively) while a capture
    /// begins: such a synchronisation never runs while a capture is in progress, which it
    /// would invalidate (the driver forbids synchronising a context with a capturing stream,
    /// from any thread).
    gate: RwLock<()>,
    /// The captures in progress: the tracking id of the stream that began each and the thread
    /// that began it (one entry per count in `captures`). Notified each time one ends, for
    /// synchronisations that wait for the captures of other threads to end.
    owners: (Mutex<Vec<(u64, ThreadId)>>, Condvar),
}

impl TrackingMode {
    /// Whether the context is in multi-stream mode.
    #[inline]
    pub(crate) fn is_multi(&self) -> bool {
        self.multi.load(Ordering::Acquire)
    }

    /// Records that stream `sid` touches a buffer; returns whether the context is (now) in
    /// multi-stream mode. `settle` synchronises the context (needed once, when switching).
    #[inline]
    pub(crate) fn note_stream(
        &self,
        sid: u64,
        settle: impl FnOnce() -> Result<()>,
    ) -> Result<bool> {
        if self.multi.load(Ordering::Acquire) {
            return Ok(true);
        }
        if self.first_stream.load(Ordering::Relaxed) == sid {
            return Ok(false);
        }
        self.note_stream_slow(sid, settle)
    }

    #[cold]
    fn note_stream_slow(&self, sid: u64, settle: impl FnOnce() -> Result<()>) -> Result<bool> {
        match self
            .first_stream
            .compare_exchange(0, sid, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => return Ok(false),
            Err(first) if first == sid => return Ok(false),
            Err(_) => {}
        }
        self.switch_to_multi(settle)?;
        Ok(true)
    }

    /// Enters multi-stream mode: raises the flag first (so that any access completing from now
    /// on records its event), then runs `settle` once, so that everything enqueued untracked
    /// is complete; trackers never touched in multi-stream mode have no pending work after
    /// that. Refused while a capture of this context is in progress (it forbids the
    /// synchronisation).
    #[cold]
    pub(crate) fn switch_to_multi(&self, settle: impl FnOnce() -> Result<()>) -> Result<()> {
        let mut settled = self
            .switch
            .lock()
            .map_err(|_| Error::InvalidArgument("context switch lock poisoned".into()))?;
        if *settled {
            return Ok(());
        }
        // No capture may begin until the synchronisation below is done.
        let _gate = self.gate.read().unwrap_or_else(|e| e.into_inner());
        if self.captures.load(Ordering::Acquire) != 0 {
            return Err(Error::InvalidArgument(
                "a second stream touched a buffer for the first time during a stream capture: \
                 entering multi-stream tracking needs a device-wide synchronisation, which a \
                 capture forbids; call Context::enable_multi_stream_tracking() before \
                 begin_capture"
                    .into(),
            ));
        }
        self.multi.store(true, Ordering::SeqCst);
        settle()?;
        *settled = true;
        self.settled.store(true, Ordering::Release);
        Ok(())
    }

    /// Waits until the switch to multi-stream mode (whose flag is already up) has finished its
    /// synchronisation. Called only for trackers never touched in multi-stream mode.
    pub(crate) fn wait_settled(&self, settle: impl FnOnce() -> Result<()>) -> Result<()> {
        if self.settled.load(Ordering::Acquire) {
            return Ok(());
        }
        let settled = self
            .switch
            .lock()
            .map_err(|_| Error::InvalidArgument("context switch lock poisoned".into()))?;
        if *settled {
            Ok(())
        } else {
            drop(settled);
            self.switch_to_multi(settle)
        }
    }

    /// Runs `sync`, a context-wide synchronisation, unless a capture is in progress on this
    /// context: then `Err` with the number of captures in progress, decided under the gate
    /// that keeps captures from beginning, so that the caller knows that it was refused.
    pub(crate) fn try_synchronize_outside_captures(
        &self,
        sync: impl FnOnce() -> Result<()>,
    ) -> std::result::Result<Result<()>, usize> {
        let _gate = self.gate.read().unwrap_or_else(|e| e.into_inner());
        match self.captures.load(Ordering::Acquire) {
            0 => Ok(sync()),
            n => Err(n),
        }
    }

    /// Runs `sync`, a context-wide synchronisation, once no capture is in progress on this
    /// context: the captures in progress are waited out first when the calling thread began
    /// none of them (else an `Err` naming `what`, and the captures are left intact). No
    /// capture begins until the synchronisation is done.
    pub(crate) fn synchronize_after_captures(
        &self,
        what: &str,
        sync: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let me = std::thread::current().id();
        loop {
            let gate = self.gate.read().unwrap_or_else(|e| e.into_inner());
            if self.captures.load(Ordering::Acquire) == 0 {
                return sync();
            }
            let owners = self.owners.0.lock().unwrap_or_else(|e| e.into_inner());
            if owners.iter().any(|&(_, t)| t == me) {
                return Err(Self::refusal(what, owners.len()));
            }
            // Released while waiting, so that the captures can end (their ends take neither
            // lock's write side: only a beginning takes the gate's).
            drop(gate);
            if !owners.is_empty() {
                // The timeout only bounds the wait should a notification be missed.
                drop(
                    self.owners
                        .1
                        .wait_timeout(owners, Duration::from_millis(20)),
                );
            }
        }
    }

    fn refusal(what: &str, n: usize) -> Error {
        Error::InvalidArgument(format!(
            "{what}: {n} stream capture(s) in progress on this context; synchronising the whole \
             context would invalidate them (synchronise a stream outside the capture, or end \
             the capture first)"
        ))
    }

    /// How many captures are in progress on this context.
    pub(crate) fn captures_in_progress(&self) -> usize {
        self.captures.load(Ordering::Acquire)
    }

    /// Held while a call that a capture forbids runs: no capture begins meanwhile.
    pub(crate) fn gate_read(&self) -> std::sync::RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Excludes context-wide synchronisations while a capture begins (see `gate`).
    pub(crate) fn capture_gate(&self) -> RwLockWriteGuard<'_, ()> {
        self.gate.write().unwrap_or_else(|e| e.into_inner())
    }

    /// A capture begun on the stream `sid` of this context by the calling thread began (`true`)
    /// or ended (`false`).
    pub(crate) fn note_capture(&self, sid: u64, began: bool) {
        let mut owners = self.owners.0.lock().unwrap_or_else(|e| e.into_inner());
        if began {
            owners.push((sid, std::thread::current().id()));
            self.captures.fetch_add(1, Ordering::AcqRel);
        } else if let Some(i) = owners.iter().position(|&(s, _)| s == sid) {
            owners.swap_remove(i);
            self.captures.fetch_sub(1, Ordering::AcqRel);
            self.owners.1.notify_all();
        }
    }
}
