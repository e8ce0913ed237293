//! A recording of the CUDA sources the library generates, for the test that compiles every
//! kernel the suite needs without a GPU (the dry-run backend records into it).
//!
//! Recording belongs to the thread that starts it: only that thread's CPU-backend work goes
//! through the dry-run backend and is recorded, so work on other threads (other tests of the
//! same process) computes as usual and cannot empty or fill another thread's recording.

use std::cell::RefCell;

thread_local! {
    static RECORD: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Starts recording, on this thread, the CUDA source of every kernel the library generates,
/// including the kernels the CPU backend would have needed on a GPU (used to check, without a
/// GPU, that all generated code compiles). While it records, this thread's CPU-backend
/// evaluations are dry runs: they record kernels and compute nothing.
pub fn start_recording() {
    // The interpreter's module is one source whatever the programs: recorded once.
    RECORD.with(|r| *r.borrow_mut() = Some(vec![super::interp::SOURCE.clone()]));
}

/// Stops this thread's recording and returns the recorded sources (deduplicated, in order).
pub fn take_recorded() -> Vec<String> {
    let v = RECORD.with(|r| r.borrow_mut().take()).unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    v.into_iter().filter(|s| seen.insert(s.clone())).collect()
}

pub(crate) fn recording() -> bool {
    RECORD.with(|r| r.borrow().is_some())
}

pub(crate) fn record(src: &str) {
    RECORD.with(|r| {
        if let Some(v) = r.borrow_mut().as_mut() {
            v.push(src.to_string());
        }
    });
}
