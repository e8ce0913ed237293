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
use std::cell::Cell;
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

/// Creates communicators (nonblocking where NCCL allows) for `(context, rank)` pairs of one
/// group of `nranks`, in one NCCL group, and waits for them up to `timeout`. On any failure
/// every communicator created is aborted.
pub(super) fn init_ranks(
    members: &[(&Arc<Context>, usize)],
    id: &UniqueId,
    nranks: usize,
    timeout: Duration,
) -> Result<Vec<Comm>> {
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
        Ok(())
    });
    if let Err(e) = result {
        abort_all(&raws, members);
        return Err(e);
    }
    let clique = Arc::new(Clique {
        slots: Mutex::new(
            raws.iter()
                .zip(members)
                .map(|(&raw, (ctx, _))| Slot {
                    raw,
                    ctx: (*ctx).clone(),
                    state: SlotState::Live,
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
        })
        .collect())
}

impl Comm {
    /// One communicator per context, ranks in the order given, for one process driving all
    /// these GPUs (primary contexts, [`Context::new`], on distinct devices). Waits up to
    /// [`default_timeout`]. Use [`group`] to call the ranks' collectives from one thread.
    ///
    /// [`group`]: super::group
    pub fn init_all(contexts: &[Arc<Context>]) -> Result<Vec<Comm>> {
        Self::init_all_with_timeout(contexts, default_timeout())
    }

    /// [`init_all`](Self::init_all) with its own bound on every wait.
    pub fn init_all_with_timeout(
        contexts: &[Arc<Context>],
        timeout: Duration,
    ) -> Result<Vec<Comm>> {
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
        init_ranks(&members, &id, contexts.len(), timeout)
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
        check_ranks(nranks, rank)?;
        let mut v = init_ranks(&[(context, rank)], id, nranks, timeout)?;
        Ok(v.remove(0))
    }
}
