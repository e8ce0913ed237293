//! [`group`]: NCCL calls of several ranks or several collectives launched together, with the
//! accesses recorded once the group has ended.

use super::comm::Comm;
use super::library::{Status, check};
use super::wait::{default_timeout, wait_ready};
use crate::error::{Error, Result};
use crate::memory::Access;
use crate::stream::Stream;
use cuprite_sys::LoadError;
use cuprite_sys::nccl::{self as sys, ncclComm_t, ncclResult_t};
use std::cell::Cell;
use std::fmt;
use std::time::Instant;

/// One enqueued NCCL call of a group, waiting for the group's end to be recorded.
pub(super) struct Pending<'a> {
    pub(super) comm: &'a Comm,
    pub(super) stream: &'a Stream,
    pub(super) accesses: [Option<Access<'a>>; 2],
}

/// The calls of one [`group`]: NCCL launches them together at the group's end
/// (`ncclGroupStart`/`ncclGroupEnd`), which is how one thread drives several ranks, and how a
/// rank issues sends and receives that depend on each other.
///
/// Its methods take the same arguments as [`Comm`]'s, plus the communicator. Buffers are
/// borrowed for the whole group (`'a`): NCCL enqueues the work only at the group's end, and
/// only then is each buffer's access recorded for the stream tracker.
pub struct Group<'a> {
    pub(super) pending: Vec<Pending<'a>>,
    pub(super) comms: Vec<&'a Comm>,
    /// Whether the NCCL group was closed (by `group`, or by `Drop` when `f` panicked).
    pub(super) ended: bool,
}

impl fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("calls", &self.pending.len())
            .field("communicators", &self.comms.len())
            .finish()
    }
}

thread_local! {
    /// Whether this thread is inside `group`'s closure.
    static IN_GROUP: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`'s NCCL calls as one group (`ncclGroupStart` … `ncclGroupEnd`), then waits (up to
/// the communicators' timeout) for a nonblocking group to be launched, and records every
/// buffer access for the stream tracker. An `Err` of `f` is returned after the group was
/// closed (calls enqueued before it still run, and are tracked); so is a panic of `f`.
///
/// Inside `f`, make every NCCL call through the [`Group`]: a [`Comm`] method or another
/// `group` there is refused with an `Err`, because NCCL launches nested work only at the
/// outermost group's end, after which alone its buffer accesses can be recorded. Calls of one
/// group must not depend on each other's results (NCCL may run them in any order).
///
/// ```no_run
/// use cuprite_driver::{Context, nccl::{self, Comm}};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = Context::new(0)?;
/// let comm = &Comm::init_all(&[ctx.clone()])?[0];
/// let s = ctx.default_stream();
/// let a = s.clone_htod(&[1u32, 2, 3])?;
/// let mut b = s.alloc_zeros::<u32>(3)?;
/// // A rank sending to itself: the send and the receive must be in one group.
/// nccl::group(|g| {
///     g.send(comm, &a, 0, &s)?;
///     g.recv(comm, &mut b, 0, &s)
/// })?;
/// assert_eq!(s.clone_dtoh(&b)?, [1, 2, 3]);
/// # Ok(()) }
/// ```
pub fn group<'a, R>(f: impl FnOnce(&mut Group<'a>) -> Result<R>) -> Result<R> {
    if IN_GROUP.with(|g| g.get()) {
        return Err(Error::InvalidArgument(
            "an NCCL call inside nccl::group that does not go through its Group (a Comm method \
             or a nested group): NCCL would launch it only at the outer group's end, so its \
             buffers could not be tracked; call the Group's methods instead"
                .into(),
        ));
    }
    // SAFETY: no arguments.
    check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
    IN_GROUP.with(|g| g.set(true));
    let mut g = Group {
        pending: Vec::new(),
        comms: Vec::new(),
        ended: false,
    };
    let r = f(&mut g);
    g.end().and(r)
}

impl Drop for Group<'_> {
    /// Closes the group if `f` panicked, so that the thread's NCCL group is balanced and the
    /// work enqueued so far is tracked.
    fn drop(&mut self) {
        let _ = self.end();
    }
}

impl<'a> Group<'a> {
    /// Closes the NCCL group, waits for a nonblocking launch, and records the accesses. Once.
    pub(super) fn end(&mut self) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        IN_GROUP.with(|g| g.set(false));
        // SAFETY: balances the group start of `group`.
        let end = check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", None);
        let mut result = match end {
            Ok(Status::Done) => Ok(()),
            Ok(Status::InProgress) => {
                let raws: Vec<ncclComm_t> = self.comms.iter().map(|c| c.raw).collect();
                let timeout = self
                    .comms
                    .iter()
                    .map(|c| c.timeout)
                    .max()
                    .unwrap_or_else(default_timeout);
                let r = wait_ready(&raws, Instant::now() + timeout, "ncclGroupEnd", timeout);
                if r.is_err() {
                    for c in &self.comms {
                        c.fail("a group did not complete");
                    }
                }
                r
            }
            Err(e) => {
                for c in &self.comms {
                    c.fail("ncclGroupEnd failed");
                }
                Err(e)
            }
        };
        // The work is enqueued (or failed to be, in which case recording it is harmless):
        // record each access after it, so later users of the buffers wait for the collective.
        for p in &self.pending {
            let acc: Vec<Access<'a>> = p.accesses.iter().flatten().copied().collect();
            if let Err(e) = p
                .stream
                .end_access(&acc)
                .and_then(|_| p.comm.mark(p.stream))
            {
                if result.is_ok() {
                    result = Err(e);
                }
            }
        }
        result
    }

    /// Checks, binds, declares the accesses, makes the call, and remembers it for the end.
    pub(super) fn enqueue(
        &mut self,
        comm: &'a Comm,
        stream: &'a Stream,
        accesses: [Option<Access<'a>>; 2],
        call: &'static str,
        f: impl FnOnce() -> std::result::Result<ncclResult_t, LoadError>,
    ) -> Result<()> {
        comm.check_async_error()?;
        comm.check_stream(stream, call)?;
        if crate::capture::capture_of(stream.track_id()) != 0 {
            // A graph holding the collective would outlive the communicator's teardown (which
            // the group of ranks drives, not the graph): refused before NCCL sees it.
            return Err(Error::InvalidArgument(format!(
                "{call}: the stream (rank {}) is capturing a graph; NCCL calls are not captured \
                 (run them outside the capture, between launches of the graph)",
                comm.rank
            )));
        }
        comm.ctx.bind_to_thread()?;
        let acc_buf: [Access<'a>; 2];
        let acc: &[Access<'a>] = match accesses {
            [Some(a), Some(b)] => {
                acc_buf = [a, b];
                &acc_buf
            }
            [Some(a), None] | [None, Some(a)] => {
                acc_buf = [a, a];
                &acc_buf[..1]
            }
            [None, None] => &[],
        };
        stream.begin_access(acc)?;
        match check(f(), call, Some(comm.raw)) {
            Ok(_) => {}
            Err(e) => {
                if matches!(e, Error::Nccl { .. }) {
                    comm.fail("a call failed");
                }
                return Err(e);
            }
        }
        self.pending.push(Pending {
            comm,
            stream,
            accesses,
        });
        if !self.comms.iter().any(|c| std::ptr::eq(*c, comm)) {
            self.comms.push(comm);
        }
        Ok(())
    }
}
