//! [`Comm`]: one rank of a communicator, its state, error polling, waits, abort and
//! teardown, and the checks of a call's arguments.

use super::clique::{Clique, SlotState};
use super::library::{check, nccl_error};
use super::wait::{abort_bounded, abort_limit};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::event::{Event, EventFlags};
use crate::memory::DeviceRead;
use crate::stream::Stream;
use cuprite_sys::driver::CUstream;
use cuprite_sys::nccl::{self as sys, ncclComm_t, ncclResult_t};
use std::cell::{Cell, RefCell};
use std::ffi::c_int;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An NCCL communicator: one rank of a group of GPUs that run collectives together, bound to
/// one [`Context`] (one GPU).
///
/// Made by [`Comm::init_all`] (one process, several GPUs) or [`Comm::init_rank`] (one
/// process per GPU, given a shared [`UniqueId`]). Each collective names the cuprite
/// [`Stream`] (of the communicator's context) it runs on and its buffers, which are tracked as
/// a kernel launch's are. `Send` but not `Sync`: NCCL forbids concurrent calls on one
/// communicator. Dropping it finalizes and destroys it (together with the others made by the
/// same `init_all`, once all are dropped); a failed one is aborted instead.
///
/// ```no_run
/// use cuprite_driver::{Context, nccl::{Comm, ReduceOp, UniqueId}};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = Context::new(0)?;
/// let comm = Comm::init_rank(&ctx, &UniqueId::new()?, 1, 0)?;
/// let s = ctx.default_stream();
/// let x = s.clone_htod(&[1.0f32, 2.0, 3.0])?;
/// let mut y = s.alloc_zeros::<f32>(3)?;
/// comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s)?;
/// assert_eq!(s.clone_dtoh(&y)?, [1.0, 2.0, 3.0]);
/// # Ok(()) }
/// ```
///
/// [`UniqueId`]: super::UniqueId
pub struct Comm {
    pub(super) raw: ncclComm_t,
    pub(super) ctx: Arc<Context>,
    pub(super) rank: usize,
    pub(super) nranks: usize,
    pub(super) timeout: Duration,
    pub(super) clique: Arc<Clique>,
    pub(super) index: usize,
    /// Why the communicator can no longer be used (`None` while it is healthy).
    pub(super) failed: Cell<Option<&'static str>>,
    /// Whether NCCL launches this communicator's work in the calling thread (see the module's
    /// documentation).
    pub(super) blocking: bool,
    /// One event per stream this communicator enqueued work on, recorded after its latest
    /// call there: teardown waits for them (bounded) before finalizing, so that dropping a
    /// communicator whose peer never came cannot hang.
    pub(super) marks: RefCell<Vec<(CUstream, Event)>>,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a time; `Comm` is not
// `Sync`, so calls on one communicator never overlap.
unsafe impl Send for Comm {}

impl fmt::Debug for Comm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Comm")
            .field("rank", &self.rank)
            .field("nranks", &self.nranks)
            .field("device", &self.ctx.ordinal())
            .field("timeout", &self.timeout)
            .field("blocking", &self.blocking)
            .field("failed", &self.failed.get())
            .finish()
    }
}

/// The failure reason of a communicator that was aborted (and needs no teardown).
pub(super) const ABORTED: &str = "aborted";

impl Comm {
    /// This communicator's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.nranks
    }

    /// The context (GPU) of this rank.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// The raw NCCL handle, for calls cuprite does not wrap.
    pub fn raw(&self) -> ncclComm_t {
        self.raw
    }

    /// The bound on every wait for NCCL on this communicator.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sets the bound on every later wait for NCCL on this communicator.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Whether this is a blocking NCCL communicator, whose collectives are launched in the
    /// calling thread ([`CommOptions::blocking`](super::CommOptions::blocking) asked for it and
    /// NCCL is 2.18 or later, or NCCL is older than 2.14 and has no other kind); else NCCL
    /// launches every group on a thread it starts for it, and each wait for that launch is
    /// bounded by the timeout.
    pub fn is_blocking(&self) -> bool {
        self.blocking
    }

    /// Whether an earlier call failed (the communicator then refuses work).
    pub fn is_failed(&self) -> bool {
        self.failed.get().is_some()
    }

    pub(super) fn fail(&self, why: &'static str) {
        if self.failed.get().is_none() {
            self.failed.set(Some(why));
        }
    }

    pub(super) fn usable(&self) -> Result<()> {
        match self.failed.get() {
            None => Ok(()),
            Some(why) => Err(Error::InvalidArgument(format!(
                "NCCL communicator (rank {} of {}) failed earlier ({why}); abort or drop it",
                self.rank, self.nranks
            ))),
        }
    }

    /// Returns NCCL's asynchronous error for this communicator, if it has one (a peer that
    /// failed, a network error...), as `Err`; the communicator then refuses further work.
    pub fn check_async_error(&self) -> Result<()> {
        self.usable()?;
        let mut state = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator and a valid out-pointer.
        let r = unsafe { sys::ncclCommGetAsyncError(self.raw, &mut state) };
        check(r, "ncclCommGetAsyncError", Some(self.raw))?;
        if state.is_success() || state == ncclResult_t::ncclInProgress {
            return Ok(());
        }
        self.fail("asynchronous error");
        Err(nccl_error(state, "ncclCommGetAsyncError", Some(self.raw)))
    }

    /// Waits (on the host) until the work enqueued on `stream` is done, polling this
    /// communicator's asynchronous error, up to [`timeout`](Self::timeout). On an asynchronous
    /// error or a timeout (a peer that died or never called the matching collective) the
    /// communicator is aborted — its kernels stop, so the stream drains — and the error is
    /// returned. Counted as a host synchronisation.
    pub fn wait(&self, stream: &Stream) -> Result<()> {
        self.usable()?;
        crate::stats::count_host_sync();
        let deadline = Instant::now() + self.timeout;
        let start = Instant::now();
        loop {
            if stream.is_idle()? {
                return self.check_async_error();
            }
            if let Err(e) = self.check_async_error() {
                self.abort_in_place();
                return Err(e);
            }
            let now = Instant::now();
            if now >= deadline {
                self.abort_in_place();
                return Err(Error::Timeout {
                    what: format!(
                        "NCCL work of rank {} of {} on its stream did not complete (a peer \
                         missing or dead?); the communicator was aborted",
                        self.rank, self.nranks
                    ),
                    seconds: self.timeout.as_secs_f64(),
                });
            }
            if now - start < Duration::from_micros(100) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200).min(deadline - now));
            }
        }
    }

    /// Aborts the communicator now; the `Comm` stays (refusing work) until it is dropped.
    pub(super) fn abort_in_place(&self) {
        if self.failed.get() == Some(ABORTED) {
            return;
        }
        self.failed.set(Some(ABORTED));
        if let Err(e) = abort_bounded(self.raw, &self.ctx, abort_limit(self.timeout)) {
            self.ctx.defer("ncclCommAbort", e);
        }
    }

    /// Aborts the communicator (`ncclCommAbort`): its pending work stops, its resources are
    /// freed, and peers see an error. Use it when a peer failed; other ranks should abort too.
    pub fn abort(self) -> Result<()> {
        let r = if self.failed.get() == Some(ABORTED) {
            Ok(())
        } else {
            abort_bounded(self.raw, &self.ctx, abort_limit(self.timeout))
        };
        // Whatever NCCL answered, the handle must not be used again.
        self.failed.set(Some(ABORTED));
        drop(self);
        r
    }

    /// Records this communicator's event for `stream` after the work just enqueued there (never
    /// a capturing stream: calls on one are refused). Events of streams that are done are
    /// dropped once more than a few are kept.
    pub(super) fn mark(&self, stream: &Stream) -> Result<()> {
        let mut marks = self.marks.borrow_mut();
        if let Some((_, ev)) = marks.iter().find(|(s, _)| *s == stream.raw()) {
            return ev.record(stream);
        }
        if marks.len() >= 8 {
            marks.retain(|(_, ev)| !matches!(ev.query(), Ok(true)));
        }
        let ev = Event::new(&self.ctx, EventFlags::DISABLE_TIMING)?;
        ev.record(stream)?;
        marks.push((stream.raw(), ev));
        Ok(())
    }

    pub(super) fn check_stream(&self, stream: &Stream, call: &str) -> Result<()> {
        if stream.context().raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(format!(
                "{call}: the stream belongs to device {}'s context, the communicator (rank {}) \
                 to device {}'s",
                stream.context().ordinal(),
                self.rank,
                self.ctx.ordinal()
            )));
        }
        Ok(())
    }

    pub(super) fn check_buffer<T, B: DeviceRead<T> + ?Sized>(
        &self,
        buf: &B,
        call: &str,
        what: &str,
    ) -> Result<()> {
        let bctx = buf.tracker().context();
        if bctx.raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(format!(
                "{call}: the {what} buffer belongs to device {}'s context, the communicator \
                 (rank {}) to device {}'s",
                bctx.ordinal(),
                self.rank,
                self.ctx.ordinal()
            )));
        }
        Ok(())
    }

    pub(super) fn check_root(&self, root: usize, call: &str) -> Result<c_int> {
        if root >= self.nranks {
            return Err(Error::InvalidArgument(format!(
                "{call}: root {root} is out of range for {} rank(s)",
                self.nranks
            )));
        }
        Ok(root as c_int)
    }

    pub(super) fn check_peer(&self, peer: usize, call: &str) -> Result<c_int> {
        if peer >= self.nranks {
            return Err(Error::InvalidArgument(format!(
                "{call}: peer {peer} is out of range for {} rank(s)",
                self.nranks
            )));
        }
        Ok(peer as c_int)
    }

    /// `count × nranks`, or an `Err` naming the overflow.
    pub(super) fn times_ranks(&self, count: usize, call: &str) -> Result<usize> {
        count.checked_mul(self.nranks).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{call}: {count} elements × {} ranks overflows",
                self.nranks
            ))
        })
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        let state = match self.failed.get() {
            None => SlotState::Dropped,
            Some(ABORTED) => SlotState::Aborted,
            Some(_) => SlotState::Failed,
        };
        let marks = self.marks.take().into_iter().map(|(_, ev)| ev).collect();
        if self.clique.set_state(self.index, state, marks) {
            self.clique.teardown();
        }
    }
}
