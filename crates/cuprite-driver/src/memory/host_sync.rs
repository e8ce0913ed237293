//! When host code may read memory that device work can still be using.
//!
//! Pinned and managed buffers are visible to the host and the device at once. The tracker of
//! each allocation keeps one [`HostSync`]: a flag set whenever device access is handed out
//! (an enqueue on the buffer, a launch of a graph whose work uses it), and cleared by the one
//! wait (a context synchronisation) that makes host access safe again. It owns only that rule;
//! the buffers and graphs decide when to mark, the buffers when to wait.

use crate::context::Context;
use crate::error::{Error, Result};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// "Device work may still use this memory", and the wait that ends it.
#[derive(Debug)]
pub(crate) struct HostSync {
    dirty: AtomicBool,
    lock: Mutex<()>,
}

impl HostSync {
    /// `dirty` says whether the memory starts out possibly in use by the device.
    pub(crate) fn new(dirty: bool) -> Self {
        HostSync {
            dirty: AtomicBool::new(dirty),
            lock: Mutex::new(()),
        }
    }

    /// Device work may use the memory from now on.
    pub(crate) fn mark(&self) {
        self.dirty.store(true, Ordering::Release);
    }

    /// Whether device work may still use the memory.
    pub(crate) fn is_dirty(&self) -> bool {
        self.dirty.load(Ordering::Acquire)
    }

    /// Waits (synchronising `ctx`) only when device access was handed out since the last wait;
    /// concurrent callers wait once.
    pub(crate) fn wait(&self, ctx: &Context, what: &str) -> Result<()> {
        if self.is_dirty() {
            let _g = self
                .lock
                .lock()
                .map_err(|_| Error::InvalidArgument(format!("{what} lock poisoned")))?;
            if self.is_dirty() {
                ctx.synchronize()?;
                self.dirty.store(false, Ordering::Release);
            }
        }
        Ok(())
    }
}
