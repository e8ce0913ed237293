//! The communicators one process creates together, and what became of each.

use super::library::check;
use super::wait::{abort_bounded, abort_limit, wait_ready};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::event::Event;
use cuprite_sys::nccl::{self as sys, ncclComm_t};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What became of one communicator of a clique.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlotState {
    /// In use by its `Comm`.
    Live,
    /// Its `Comm` was dropped in good order: finalize and destroy with the others.
    Dropped,
    /// Failed or timed out: abort when the clique goes.
    Failed,
    /// Already aborted.
    Aborted,
}

pub(super) struct Slot {
    pub(super) raw: ncclComm_t,
    pub(super) ctx: Arc<Context>,
    pub(super) state: SlotState,
    /// The events its `Comm` recorded after its latest work on each stream.
    pub(super) marks: Vec<Event>,
}

/// The communicators created together in this process (one by `init_rank`, all by
/// `init_all`). NCCL's teardown of communicators that share a process is collective among
/// them, so they are finalized and destroyed together, in one group, when the last of their
/// `Comm`s is dropped, wherever that happens.
pub(super) struct Clique {
    pub(super) slots: Mutex<Vec<Slot>>,
    pub(super) timeout: Duration,
}

// SAFETY: the raw communicators are only touched under the mutex, and NCCL allows a
// communicator to be finalized, destroyed or aborted from any thread.
unsafe impl Send for Clique {}
// SAFETY: as above.
unsafe impl Sync for Clique {}

impl Clique {
    pub(super) fn set_state(&self, index: usize, state: SlotState, marks: Vec<Event>) -> bool {
        let Ok(mut slots) = self.slots.lock() else {
            return false;
        };
        slots[index].state = state;
        slots[index].marks = marks;
        slots.iter().all(|s| s.state != SlotState::Live)
    }

    /// Finalizes (in one group) and destroys the dropped communicators and aborts the failed
    /// ones. Called once, when no `Comm` of the clique is left.
    pub(super) fn teardown(&self) {
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        // A blocking communicator's finalize waits for its work: wait here first, bounded, and
        // abort the ones whose work does not finish (a peer that never came).
        let deadline = Instant::now() + self.timeout;
        for s in slots.iter_mut() {
            if s.state == SlotState::Dropped && !marks_done(&s.marks, deadline) {
                s.state = SlotState::Failed;
            }
            s.marks.clear();
        }
        let ok: Vec<usize> = (0..slots.len())
            .filter(|&i| slots[i].state == SlotState::Dropped)
            .collect();
        let mut finalize_failed: Option<Error> = None;
        if !ok.is_empty() {
            let r = (|| -> Result<()> {
                let raws: Vec<ncclComm_t> = ok.iter().map(|&i| slots[i].raw).collect();
                let grouped = ok.len() > 1;
                if grouped {
                    // SAFETY: no arguments.
                    check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
                }
                let mut first_err = None;
                for &i in &ok {
                    let _ = slots[i].ctx.bind_to_thread_no_deferred();
                    // SAFETY: a live communicator that no `Comm` uses any more.
                    let r = unsafe { sys::ncclCommFinalize(slots[i].raw) };
                    if let Err(e) = check(r, "ncclCommFinalize", Some(slots[i].raw)) {
                        first_err.get_or_insert(e);
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
                let deadline = Instant::now() + self.timeout;
                wait_ready(&raws, deadline, "ncclCommFinalize", self.timeout)
            })();
            if let Err(e) = r {
                // Finalize did not complete: abort instead of destroying (which would wait).
                for &i in &ok {
                    slots[i].state = SlotState::Failed;
                }
                finalize_failed = Some(e);
            }
        }
        for s in slots.iter_mut() {
            let _ = s.ctx.bind_to_thread_no_deferred();
            let (call, r) = match s.state {
                // SAFETY: a finalized communicator no `Comm` uses any more.
                SlotState::Dropped => ("ncclCommDestroy", unsafe { sys::ncclCommDestroy(s.raw) }),
                SlotState::Failed => {
                    s.state = SlotState::Aborted;
                    if let Err(e) = abort_bounded(s.raw, &s.ctx, abort_limit(self.timeout)) {
                        s.ctx
                            .defer("ncclCommAbort of a failed NCCL communicator", e);
                    }
                    continue;
                }
                SlotState::Aborted | SlotState::Live => continue,
            };
            s.state = SlotState::Aborted;
            if let Err(e) = check(r, call, None) {
                s.ctx.defer(format!("{call} of an NCCL communicator"), e);
            }
        }
        if let Some(e) = finalize_failed {
            if let Some(s) = slots.first() {
                s.ctx.defer(
                    "ncclCommFinalize of NCCL communicators (aborted instead)",
                    e,
                );
            }
        }
    }
}

/// Whether every event in `marks` completes by `deadline` (an event that cannot be queried
/// counts as not done).
fn marks_done(marks: &[Event], deadline: Instant) -> bool {
    let start = Instant::now();
    for ev in marks {
        loop {
            match ev.query() {
                Ok(true) => break,
                Ok(false) => {}
                Err(_) => return false,
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            if now - start < Duration::from_millis(1) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(500).min(deadline - now));
            }
        }
    }
    true
}
