//! [`HandleKeep`]: the destruction of a library handle (cuBLAS, cuBLASLt, cuSOLVER, cuFFT
//! plan), shared by the handle's owner and the captures (and their graphs) that captured work
//! made with it. The handle's own device memory (a plan's tables, a handle's internal state)
//! is then freed only once the last of them lets go.
//!
//! It owns only that destruction; what the captured work uses besides (workspaces, operands)
//! is declared to the stream tracker by each call and kept by the graph through its tracker.

use crate::context::{Context, DropWait};
use crate::error::Result;
use crate::stream::Stream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How a handle is destroyed (its context is current when it runs).
type Destroy = Box<dyn FnOnce() -> Result<()> + Send>;

/// The destruction of one library handle, run when the last holder drops.
///
/// Invariant: every call that enqueues work with the handle calls [`note_use`](Self::note_use)
/// on its stream first, so that a capture taking that work (and every graph made from it)
/// holds this until it is gone. A handle whose work was captured is destroyed only after its
/// context is synchronised: a launch of the last graph may still be running. When a capture in
/// progress refuses that synchronisation, the destruction is handed to the context, which runs
/// it after its next synchronisation that succeeds (or as it goes).
pub(crate) struct HandleKeep {
    ctx: Arc<Context>,
    what: &'static str,
    captured: AtomicBool,
    destroy: Mutex<Option<Destroy>>,
}

impl HandleKeep {
    /// The destruction `destroy` of a handle of `ctx`; `what` names it in a deferred error.
    pub(crate) fn new(ctx: &Arc<Context>, what: &'static str, destroy: Destroy) -> Arc<Self> {
        Arc::new(HandleKeep {
            ctx: ctx.clone(),
            what,
            captured: AtomicBool::new(false),
            destroy: Mutex::new(Some(destroy)),
        })
    }

    /// Work with the handle is about to be enqueued on `stream`: a capture in progress there
    /// keeps the handle alive. One atomic load when no capture is in progress.
    #[inline]
    pub(crate) fn note_use(self: &Arc<Self>, stream: &Stream) {
        if crate::capture::any_active() {
            let sid = stream.track_id();
            if crate::capture::capture_of(sid) != 0 {
                self.captured.store(true, Ordering::Release);
                crate::capture::keep_alive(sid, || self.clone());
            }
        }
    }
}

impl Drop for HandleKeep {
    fn drop(&mut self) {
        let Some(destroy) = self.destroy.get_mut().ok().and_then(Option::take) else {
            return;
        };
        let captured = self.captured.load(Ordering::Acquire);
        let r = self.ctx.bind_to_thread_no_deferred().and_then(|()| {
            if captured {
                crate::stats::count_host_sync();
                match self.ctx.synchronize_for_drop() {
                    DropWait::Done => {}
                    DropWait::Failed(e) => return Err(e),
                    // A capture in progress refused the synchronisation (it would invalidate
                    // it): the destruction waits for the next one that succeeds, never running
                    // under a launch that may still use the handle.
                    DropWait::Refused => {
                        self.ctx.after_next_sync(self.what, destroy);
                        return Ok(());
                    }
                }
            }
            // A library's destruction may free device memory, which synchronises the context
            // implicitly: it waits for the captures in progress to end.
            self.ctx.outside_captures(self.what, destroy);
            Ok(())
        });
        if let Err(e) = r {
            self.ctx.defer(format!("destruction of {}", self.what), e);
        }
    }
}
