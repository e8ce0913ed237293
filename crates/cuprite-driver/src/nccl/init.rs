//! Creating communicators: for all local GPUs at once, or for one rank of a group.

use super::clique::{Clique, Slot, SlotState};
use super::comm::Comm;
use super::library::check;
use super::unique_id::UniqueId;
use super::wait::{abort_bounded, abort_limit, default_timeout, wait_ready};
use crate::context::Context;
use crate::error::{Error, Result};
use cuprite_sys::LoadError;
use cuprite_sys::nccl::{self as sys, ncclComm_t};
use std::cell::{Cell, RefCell};
use std::ffi::c_int;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(super) fn check_ranks(nranks: usize, rank: usize) -> Result<c_int> {
    if nranks == 0 || nranks > c_int::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "an NCCL communicator needs between 1 and {} ranks, got {nranks}",
            c_int::MAX
        )));
    }
    if rank >= nranks {
        return Err(Error::InvalidArgument(format!(
            "rank {rank} is out of range for {nranks} rank(s) (ranks are 0..{nranks})"
        )));
    }
    Ok(nranks as c_int)
}

/// Creates communicators for `(context, rank)` pairs of one group of `nranks`, in one NCCL
/// group, and waits for them up to the options' timeout: nonblocking where NCCL allows (a rank
/// that never arrives ends in a timeout), then, when the options ask for blocking ones, split
/// into those where NCCL can (see [`split_blocking`]). On any failure every communicator
/// created is aborted.
pub(super) fn init_ranks(
    members: &[(&Arc<Context>, usize)],
    id: &UniqueId,
    nranks: usize,
    options: CommOptions,
) -> Result<Vec<Comm>> {
    let timeout = options.timeout;
    let n = check_ranks(nranks, members.iter().map(|m| m.1).max().unwrap_or(0))?;
    for (ctx, rank) in members {
        // NCCL's own threads bind the device's primary context (through the CUDA runtime):
        // buffers of an owned context would not be mapped there.
        if !ctx.is_primary() {
            return Err(Error::InvalidArgument(format!(
                "rank {rank}: NCCL communicators need the device's primary context \
                 (Context::new({})), not an owned one",
                ctx.ordinal()
            )));
        }
    }
    let deadline = Instant::now() + timeout;
    let mut raws: Vec<ncclComm_t> = vec![std::ptr::null_mut(); members.len()];
    let abort_all = |raws: &[ncclComm_t], members: &[(&Arc<Context>, usize)]| {
        for (raw, (ctx, _)) in raws.iter().zip(members) {
            if !raw.is_null() {
                // A communicator created above and handed to nobody; an abort that cannot
                // finish is left behind (the init already failed; that error is returned).
                let _ = abort_bounded(*raw, ctx, abort_limit(timeout));
            }
        }
    };
    let created = (|| -> Result<bool> {
        let grouped = members.len() > 1;
        if grouped {
            // SAFETY: no arguments.
            check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
        }
        let mut nonblocking = true;
        let mut first_err = None;
        for (i, (ctx, rank)) in members.iter().enumerate() {
            // NCCL takes the device from the calling thread's current context.
            if let Err(e) = ctx.bind_to_thread() {
                first_err.get_or_insert(e);
                break;
            }
            let mut config = sys::ncclConfig_t {
                blocking: 0,
                ..Default::default()
            };
            // SAFETY: valid out-pointer and config; `id` is 128 bytes passed by value.
            let r = unsafe {
                sys::ncclCommInitRankConfig(&mut raws[i], n, id.0, *rank as c_int, &mut config)
            };
            let r = match r {
                Err(LoadError::SymbolNotFound { .. }) => {
                    // NCCL before 2.14: blocking initialisation only.
                    nonblocking = false;
                    // SAFETY: as above.
                    unsafe { sys::ncclCommInitRank(&mut raws[i], n, id.0, *rank as c_int) }
                }
                r => r,
            };
            if let Err(e) = check(r, "ncclCommInitRankConfig", None) {
                first_err.get_or_insert(e);
                break;
            }
        }
        let end = if grouped {
            // SAFETY: balances the group start above.
            check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", None).map(|_| ())
        } else {
            Ok(())
        };
        if let Some(e) = first_err {
            return Err(e);
        }
        end?;
        Ok(nonblocking)
    })();
    let result = created.and_then(|nonblocking| {
        if nonblocking {
            wait_ready(&raws, deadline, "NCCL communicator initialisation", timeout)?;
        }
        Ok(nonblocking)
    });
    let nonblocking = match result {
        Ok(n) => n,
        Err(e) => {
            abort_all(&raws, members);
            return Err(e);
        }
    };
    let mut blocking = !nonblocking;
    if nonblocking && options.blocking {
        match split_blocking(&raws, members, deadline, timeout) {
            Ok(Some(children)) => {
                release_parents(&raws, members, timeout);
                raws = children;
                blocking = true;
            }
            Ok(None) => {}
            Err(e) => {
                abort_all(&raws, members);
                return Err(e);
            }
        }
    }
    let clique = Arc::new(Clique {
        slots: Mutex::new(
            raws.iter()
                .zip(members)
                .map(|(&raw, (ctx, _))| Slot {
                    raw,
                    ctx: (*ctx).clone(),
                    state: SlotState::Live,
                    marks: Vec::new(),
                })
                .collect(),
        ),
        timeout,
    });
    Ok(raws
        .iter()
        .zip(members)
        .enumerate()
        .map(|(index, (&raw, (ctx, rank)))| Comm {
            raw,
            ctx: (*ctx).clone(),
            rank: *rank,
            nranks,
            timeout,
            clique: clique.clone(),
            index,
            failed: Cell::new(None),
            blocking,
            marks: RefCell::new(Vec::new()),
        })
        .collect())
}

/// Turns freshly initialised nonblocking communicators into blocking ones of the same ranks
/// (`ncclCommSplit` with one colour and the rank as key, `blocking = 1`), in one group, waiting
/// for the split up to `deadline`. `Ok(None)` where NCCL has no `ncclCommSplit` (before 2.18):
/// the nonblocking communicators stay.
///
/// Why: NCCL launches every group of a nonblocking communicator on a thread it creates for
/// that group, which costs tens of microseconds per collective; a blocking communicator
/// launches in the calling thread. Initialisation stays nonblocking so that a rank that never
/// arrives ends in a timeout, and a split waits only for ranks that are already known to be
/// there. On failure the caller aborts the parents, which also stops a split in progress.
fn split_blocking(
    parents: &[ncclComm_t],
    members: &[(&Arc<Context>, usize)],
    deadline: Instant,
    timeout: Duration,
) -> Result<Option<Vec<ncclComm_t>>> {
    // NCCL's background thread writes each child's handle once the split completes: the slots
    // live on the heap and are leaked below if the wait gives up (the write may still come).
    let mut children: Box<[ncclComm_t]> = vec![std::ptr::null_mut(); parents.len()].into();
    let grouped = parents.len() > 1;
    if grouped {
        // SAFETY: no arguments.
        check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
    }
    let mut missing = false;
    let mut first_err = None;
    for (i, (ctx, rank)) in members.iter().enumerate() {
        if let Err(e) = ctx.bind_to_thread() {
            first_err.get_or_insert(e);
            break;
        }
        let mut config = sys::ncclConfig_t {
            blocking: 1,
            ..Default::default()
        };
        // SAFETY: a live, initialised parent; `children[i]` stays valid until NCCL writes it
        // (it is leaked if the wait below gives up); NCCL copies `config` during the call.
        let r = unsafe {
            sys::ncclCommSplit(parents[i], 0, *rank as c_int, &mut children[i], &mut config)
        };
        if let Err(LoadError::SymbolNotFound { .. }) = r {
            missing = true;
            break;
        }
        if let Err(e) = check(r, "ncclCommSplit", Some(parents[i])) {
            first_err.get_or_insert(e);
            break;
        }
    }
    let end = if grouped {
        // SAFETY: balances the group start above.
        check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", None).map(|_| ())
    } else {
        Ok(())
    };
    if let Some(e) = first_err {
        std::mem::forget(children);
        return Err(e);
    }
    if missing && children.iter().all(|c| c.is_null()) && end.is_ok() {
        return Ok(None);
    }
    let waited = end.and_then(|_| {
        wait_ready(
            parents,
            deadline,
            "ncclCommSplit (to blocking communicators)",
            timeout,
        )
    });
    if let Err(e) = waited {
        std::mem::forget(children);
        return Err(e);
    }
    if let Some(i) = children.iter().position(|c| c.is_null()) {
        // The children NCCL did make would be held by nothing: abort them.
        for (raw, (ctx, _)) in children.iter().zip(members) {
            if raw.is_null() {
                continue;
            }
            if let Err(e) = abort_bounded(*raw, ctx, abort_limit(timeout)) {
                ctx.defer("releasing a communicator of an incomplete split", e);
            }
        }
        return Err(Error::InvalidArgument(format!(
            "ncclCommSplit gave no communicator for rank {} (of {} in this process)",
            members[i].1,
            members.len()
        )));
    }
    Ok(Some(children.into_vec()))
}

/// Finalizes (in one group) and destroys the nonblocking parents of a split, bounded by
/// `timeout`; a parent that does not finalize in time is aborted instead. Nothing waits on them
/// any more, so failures are only deferred to the context.
fn release_parents(parents: &[ncclComm_t], members: &[(&Arc<Context>, usize)], timeout: Duration) {
    let finalized = (|| -> Result<()> {
        let grouped = parents.len() > 1;
        if grouped {
            // SAFETY: no arguments.
            check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
        }
        let mut first_err = None;
        for (raw, (ctx, _)) in parents.iter().zip(members) {
            let _ = ctx.bind_to_thread_no_deferred();
            // SAFETY: a live parent communicator that nothing else uses.
            let r = unsafe { sys::ncclCommFinalize(*raw) };
            if let Err(e) = check(r, "ncclCommFinalize", Some(*raw)) {
                first_err.get_or_insert(e);
            }
        }
        if grouped {
            // SAFETY: balances the group start above.
            check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", None)?;
        }
        if let Some(e) = first_err {
            return Err(e);
        }
        wait_ready(
            parents,
            Instant::now() + timeout,
            "ncclCommFinalize",
            timeout,
        )
    })();
    for (raw, (ctx, _)) in parents.iter().zip(members) {
        let _ = ctx.bind_to_thread_no_deferred();
        let r = if finalized.is_ok() {
            // SAFETY: a finalized parent that nothing uses any more.
            check(
                unsafe { sys::ncclCommDestroy(*raw) },
                "ncclCommDestroy",
                None,
            )
            .map(|_| ())
        } else {
            abort_bounded(*raw, ctx, abort_limit(timeout))
        };
        if let Err(e) = r {
            ctx.defer("releasing the parent of a split NCCL communicator", e);
        }
    }
}

/// How [`Comm::init_all_with`] and [`Comm::init_rank_with`] make communicators.
///
/// ```
/// use cuprite_driver::nccl::CommOptions;
/// use std::time::Duration;
/// let fast = CommOptions { blocking: true, ..CommOptions::default() };
/// assert_eq!(fast.timeout, cuprite_driver::nccl::default_timeout());
/// let short = CommOptions::default().with_timeout(Duration::from_secs(5));
/// assert!(!short.blocking);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommOptions {
    /// The bound on every wait: initialisation, the launch of a group, [`Comm::wait`], teardown.
    /// Default: [`default_timeout`].
    pub timeout: Duration,
    /// Blocking communicators: NCCL launches each group in the calling thread, which saves the
    /// thread it otherwise starts per group (tens of microseconds a collective; see the
    /// module's documentation). The price is NCCL's rule that only nonblocking communicators
    /// can time out on the host: a collective or send/receive whose peers never make the
    /// matching call can then block the calling thread for good (work already enqueued on the
    /// GPU stays bounded by [`Comm::wait`] and teardown). Initialisation stays bounded either
    /// way. Needs NCCL 2.18 or later, else the communicators stay nonblocking
    /// ([`Comm::is_blocking`] says which). Default: `false`.
    pub blocking: bool,
}

impl Default for CommOptions {
    fn default() -> Self {
        CommOptions {
            timeout: default_timeout(),
            blocking: false,
        }
    }
}

impl CommOptions {
    /// These options with `timeout`.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        CommOptions { timeout, ..self }
    }
}

impl Comm {
    /// One communicator per context, ranks in the order given, for one process driving all
    /// these GPUs (primary contexts, [`Context::new`], on distinct devices). Waits up to
    /// [`default_timeout`]. Use [`group`] to call the ranks' collectives from one thread.
    ///
    /// [`group`]: super::group
    pub fn init_all(contexts: &[Arc<Context>]) -> Result<Vec<Comm>> {
        Self::init_all_with(contexts, CommOptions::default())
    }

    /// [`init_all`](Self::init_all) with its own bound on every wait.
    pub fn init_all_with_timeout(
        contexts: &[Arc<Context>],
        timeout: Duration,
    ) -> Result<Vec<Comm>> {
        Self::init_all_with(contexts, CommOptions::default().with_timeout(timeout))
    }

    /// [`init_all`](Self::init_all) with [`CommOptions`].
    pub fn init_all_with(contexts: &[Arc<Context>], options: CommOptions) -> Result<Vec<Comm>> {
        if contexts.is_empty() {
            return Err(Error::InvalidArgument(
                "Comm::init_all needs at least one context".into(),
            ));
        }
        for (i, a) in contexts.iter().enumerate() {
            for b in &contexts[..i] {
                if a.ordinal() == b.ordinal() {
                    return Err(Error::InvalidArgument(format!(
                        "Comm::init_all: device {} is given twice; NCCL allows one rank per GPU",
                        a.ordinal()
                    )));
                }
            }
        }
        let id = UniqueId::new()?;
        let members: Vec<(&Arc<Context>, usize)> =
            contexts.iter().enumerate().map(|(r, c)| (c, r)).collect();
        init_ranks(&members, &id, contexts.len(), options)
    }

    /// This process's rank `rank` (of `nranks`) of the communicator named by `id`, on
    /// `context`'s device (its primary context, [`Context::new`]). Every rank must call it with the same `id` and `nranks`. Waits up
    /// to [`default_timeout`] for all ranks to arrive, then aborts and returns
    /// [`Error::Timeout`].
    pub fn init_rank(
        context: &Arc<Context>,
        id: &UniqueId,
        nranks: usize,
        rank: usize,
    ) -> Result<Comm> {
        Self::init_rank_with_timeout(context, id, nranks, rank, default_timeout())
    }

    /// [`init_rank`](Self::init_rank) with its own bound on every wait.
    pub fn init_rank_with_timeout(
        context: &Arc<Context>,
        id: &UniqueId,
        nranks: usize,
        rank: usize,
        timeout: Duration,
    ) -> Result<Comm> {
        let options = CommOptions::default().with_timeout(timeout);
        Self::init_rank_with(context, id, nranks, rank, options)
    }

    /// [`init_rank`](Self::init_rank) with [`CommOptions`].
    pub fn init_rank_with(
        context: &Arc<Context>,
        id: &UniqueId,
        nranks: usize,
        rank: usize,
        options: CommOptions,
    ) -> Result<Comm> {
        check_ranks(nranks, rank)?;
        let mut v = init_ranks(&[(context, rank)], id, nranks, options)?;
        Ok(v.remove(0))
    }
}
