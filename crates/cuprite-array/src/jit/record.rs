//! A recording of the CUDA sources the library generates, for the test that compiles every
//! kernel the suite needs without a GPU (the dry-run backend records into it).

use std::sync::Mutex;

static RECORD: Mutex<Option<Vec<String>>> = Mutex::new(None);

/// Starts recording the CUDA source of every kernel the library generates, including the
/// kernels the CPU backend would have needed on a GPU (used to check, without a GPU, that all
/// generated code compiles).
pub fn start_recording() {
    // The interpreter's module is one source whatever the programs: recorded once.
    *RECORD.lock().unwrap_or_else(|e| e.into_inner()) = Some(vec![super::interp::SOURCE.clone()]);
}

/// Stops recording and returns the recorded sources (deduplicated, in order).
pub fn take_recorded() -> Vec<String> {
    let v = RECORD
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    v.into_iter().filter(|s| seen.insert(s.clone())).collect()
}

pub(crate) fn recording() -> bool {
    RECORD.lock().map(|r| r.is_some()).unwrap_or(false)
}

pub(crate) fn record(src: &str) {
    if let Ok(mut r) = RECORD.lock() {
        if let Some(v) = r.as_mut() {
            v.push(src.to_string());
        }
    }
}
