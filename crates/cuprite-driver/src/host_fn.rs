//! The mark of a thread running the body of a host function ([`Stream::launch_host_fn`]): CUDA
//! forbids driver calls there (they may fail, or deadlock the stream that runs the function),
//! so every driver call cuprite makes checks it first (`error::refuse_in_host_fn`) and returns
//! an `Err` instead.
//!
//! Invariant: the mark is set only while `host_fn_trampoline` (in `stream.rs`) runs a closure,
//! on the driver's thread, and cleared before the trampoline returns, panic or not.
//!
//! [`Stream::launch_host_fn`]: crate::stream::Stream::launch_host_fn

use std::cell::Cell;

thread_local! {
    static IN_HOST_FN: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with this thread marked as running a host function.
pub(crate) fn run_marked<R>(f: impl FnOnce() -> R) -> R {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            IN_HOST_FN.with(|m| m.set(false));
        }
    }
    IN_HOST_FN.with(|m| m.set(true));
    let _clear = Clear;
    f()
}

/// Whether this thread runs a host function's body now; one thread-local read.
#[inline(always)]
pub(crate) fn active() -> bool {
    IN_HOST_FN.with(Cell::get)
}
