//! The bounds of every wait for NCCL: the default timeout, the polling of nonblocking
//! communicators, and aborts that cannot hang.

use super::library::{check, nccl_error};
use crate::context::Context;
use crate::error::{Error, Result};
use cuprite_sys::nccl::{self as sys, ncclComm_t, ncclResult_t};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The default bound of every wait for NCCL: `CUPRITE_NCCL_TIMEOUT` seconds, else 120 s.
pub fn default_timeout() -> Duration {
    std::env::var("CUPRITE_NCCL_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(120))
}

/// Polls `ncclCommGetAsyncError` of every communicator in `raws` until none is in progress,
/// up to `deadline`. Spins briefly first (a ready communicator answers at once), then sleeps
/// in growing steps up to 1 ms.
pub(super) fn wait_ready(
    raws: &[ncclComm_t],
    deadline: Instant,
    what: &str,
    timeout: Duration,
) -> Result<()> {
    let mut pending: Vec<ncclComm_t> = raws.to_vec();
    let start = Instant::now();
    let mut sleep = Duration::from_micros(20);
    loop {
        let mut i = 0;
        while i < pending.len() {
            let mut state = ncclResult_t::ncclSuccess;
            // SAFETY: a live communicator and a valid out-pointer.
            let r = unsafe { sys::ncclCommGetAsyncError(pending[i], &mut state) };
            check(r, "ncclCommGetAsyncError", Some(pending[i]))?;
            if state == ncclResult_t::ncclInProgress {
                i += 1;
            } else if state.is_success() {
                pending.swap_remove(i);
            } else {
                return Err(nccl_error(state, "ncclCommGetAsyncError", Some(pending[i])));
            }
        }
        if pending.is_empty() {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(Error::Timeout {
                what: format!(
                    "{what}: {} of {} communicator(s) still in progress",
                    pending.len(),
                    raws.len()
                ),
                seconds: timeout.as_secs_f64(),
            });
        }
        // A collective's launch finishes within tens of microseconds: poll without giving up
        // the core at first (a sleep costs at least the scheduler's granularity, ~50 µs), then
        // yield, and only sleep once the wait is long.
        let waited = now - start;
        if waited < Duration::from_micros(200) {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        } else if waited < Duration::from_millis(5) {
            std::thread::yield_now();
        } else {
            std::thread::sleep(sleep.min(deadline - now));
            sleep = (sleep * 2).min(Duration::from_millis(1));
        }
    }
}

/// A communicator handle moved to the thread that aborts it.
pub(super) struct SendComm(ncclComm_t);
// SAFETY: NCCL allows a communicator to be aborted from any thread; the handle is used by that
// thread alone once sent.
unsafe impl Send for SendComm {}

/// Aborts `raw` (`ncclCommAbort`) on a helper thread and waits for it at most `limit`: an abort
/// that NCCL cannot finish (a peer's socket that never answers) must not hang the caller. Past
/// the limit the thread is left to finish on its own and an `Err` says so.
pub(super) fn abort_bounded(raw: ncclComm_t, ctx: &Arc<Context>, limit: Duration) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    let ctx2 = ctx.clone();
    let h = SendComm(raw);
    let spawned = std::thread::Builder::new()
        .name("cuprite-nccl-abort".into())
        .spawn(move || {
            let h = h;
            let _ = ctx2.bind_to_thread_no_deferred();
            // SAFETY: a live communicator that its owner no longer uses.
            let r = unsafe { sys::ncclCommAbort(h.0) };
            let _ = tx.send(check(r, "ncclCommAbort", None).map(|_| ()));
        });
    if let Err(e) = spawned {
        return Err(Error::InvalidArgument(format!(
            "cannot start a thread to abort an NCCL communicator: {e}"
        )));
    }
    match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => Err(Error::Timeout {
            what: "ncclCommAbort did not return; it goes on in a background thread".into(),
            seconds: limit.as_secs_f64(),
        }),
    }
}

/// How long an abort may take before the caller stops waiting for it.
pub(super) fn abort_limit(timeout: Duration) -> Duration {
    timeout.clamp(Duration::from_secs(5), Duration::from_secs(30))
}
