//! Awaiting a stream without blocking a thread: [`Stream::synchronize_async`] returns a
//! [`StreamDone`] future, woken by a host function enqueued on the stream.
//!
//! Owns only the future and the state it shares with its host function. The host function
//! never calls CUDA (the driver forbids it there): it sets a flag and wakes the task; every
//! driver call (an error query) happens in `poll`, on the awaiting thread.

use crate::error::{Error, Result};
use crate::graph::CaptureStatus;
use crate::stream::Stream;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

/// What a [`StreamDone`] and its host function share: the future may be dropped first (the
/// host function then only sets a flag nobody reads) or last.
#[derive(Default)]
struct Shared {
    done: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

/// A future resolved once the work enqueued on a stream before [`Stream::synchronize_async`]
/// is done; see there. Dropping it early cancels nothing and leaks nothing.
#[must_use = "a future does nothing unless awaited"]
pub struct StreamDone {
    shared: Arc<Shared>,
    stream: Arc<Stream>,
}

impl std::fmt::Debug for StreamDone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamDone")
            .field("done", &self.shared.done.load(Ordering::Acquire))
            .finish()
    }
}

impl Stream {
    /// A future that resolves once all work enqueued on this stream so far is done, with no
    /// thread blocked meanwhile: a host function enqueued here (`cuLaunchHostFunc`) wakes the
    /// awaiting task. It works under any executor (tokio, `futures::executor::block_on`, a
    /// hand-written one). An error of the stream's work (a faulting kernel) resolves it with
    /// that error instead. Work enqueued after this call is not waited for.
    ///
    /// `Err` at once when the stream is capturing a graph (the host function would become a
    /// node of the graph instead of running).
    ///
    /// ```no_run
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.new_stream()?;
    /// let buf = s.alloc_zeros::<f32>(1 << 20)?;
    /// let done = s.synchronize_async()?;
    /// // ... in an async function: `done.await?;`
    /// # drop((buf, done));
    /// # Ok(()) }
    /// ```
    pub fn synchronize_async(self: &Arc<Self>) -> Result<StreamDone> {
        if self.capture_status()? != CaptureStatus::None {
            return Err(Error::InvalidArgument(
                "Stream::synchronize_async: the stream is capturing a graph; await it after \
                 the capture ends"
                    .into(),
            ));
        }
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        self.launch_host_fn(move || {
            s.done.store(true, Ordering::Release);
            let w = s.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(w) = w {
                w.wake();
            }
        })?;
        Ok(StreamDone {
            shared,
            stream: self.clone(),
        })
    }
}

impl StreamDone {
    /// Whether the work is done (without waiting, and without a driver call).
    pub fn is_done(&self) -> bool {
        self.shared.done.load(Ordering::Acquire)
    }
}

impl Future for StreamDone {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<()>> {
        if self.is_done() {
            return Poll::Ready(Ok(()));
        }
        {
            let mut w = self.shared.waker.lock().unwrap_or_else(|e| e.into_inner());
            match &mut *w {
                Some(old) if old.will_wake(cx.waker()) => {}
                slot => *slot = Some(cx.waker().clone()),
            }
        }
        // Checked again after the waker is in place: a host function that ran in between
        // found no waker to wake.
        if self.is_done() {
            return Poll::Ready(Ok(()));
        }
        // A stream whose work failed may never run the host function: its error resolves the
        // future instead of leaving it pending forever.
        match self.stream.is_idle() {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => Poll::Pending,
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}
