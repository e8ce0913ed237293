//! Errors that happened where they could not be returned (a `Drop`, a host function), kept per
//! context until its next fallible call returns them. Owns only the list and its cap.

use crate::error::Error;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A broken context fails every `Drop`: keep the first errors, not an unbounded list.
const MAX_KEPT: usize = 64;

/// The deferred errors of one context, oldest first.
#[derive(Debug, Default)]
pub(crate) struct DeferredErrors {
    /// Whether `list` may be non-empty: the one relaxed load on every call's fast path.
    pending: AtomicBool,
    list: Mutex<Vec<Error>>,
}

impl DeferredErrors {
    /// Whether an error may be waiting (cheap; confirm with [`take`](Self::take)).
    #[inline]
    pub(crate) fn pending(&self) -> bool {
        self.pending.load(Ordering::Relaxed)
    }

    /// Keeps `e`, raised by `operation`, as an [`Error::Deferred`].
    pub(crate) fn push(&self, operation: String, e: Error) {
        if let Ok(mut v) = self.list.lock() {
            if v.len() >= MAX_KEPT {
                return;
            }
            v.push(Error::Deferred {
                operation,
                source: Box::new(e),
            });
            self.pending.store(true, Ordering::Release);
        }
    }

    /// Removes and returns the oldest error.
    pub(crate) fn take(&self) -> Option<Error> {
        let mut v = self.list.lock().ok()?;
        if v.is_empty() {
            self.pending.store(false, Ordering::Release);
            return None;
        }
        let e = v.remove(0);
        if v.is_empty() {
            self.pending.store(false, Ordering::Release);
        }
        Some(e)
    }
}
