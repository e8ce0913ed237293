//! What an exported tensor keeps alive, and the deleters that release it (DLPack calls one
//! exactly once).

use super::abi::{DLManagedTensor, DLManagedTensorVersioned};
use crate::graph::Node;
use cuprite_driver::Stream;
use std::sync::Arc;

/// What an exported tensor keeps alive. The managed struct comes first, so a pointer to it is
/// a pointer to the whole.
#[repr(C)]
pub(super) struct Export<M> {
    pub(super) managed: M,
    pub(super) shape: Vec<i64>,
    pub(super) strides: Vec<i64>,
    pub(super) node: Arc<Node>,
    /// The consumer's stream, which the array stream waits for before the memory can be freed.
    pub(super) consumer: Option<(Arc<Stream>, Arc<Stream>)>,
}

impl<M> Export<M> {
    pub(super) fn finish(self) {
        if let Some((array_stream, consumer)) = &self.consumer {
            // The array stream (where the memory is freed or reused) waits for the consumer's
            // work so far. Errors cannot be returned from a deleter; the wait is best effort.
            let _ = array_stream.join(consumer);
        }
        drop(self);
    }
}

pub(super) unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if m.is_null() {
        return;
    }
    // SAFETY: `m` came from `Box::into_raw` of an `Export<DLManagedTensorVersioned>` (first
    // field, repr(C)) in `export`, and DLPack calls the deleter once.
    let e = unsafe { Box::from_raw(m.cast::<Export<DLManagedTensorVersioned>>()) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || e.finish()));
}

pub(super) unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if m.is_null() {
        return;
    }
    // SAFETY: as in `delete_versioned`, for `Export<DLManagedTensor>`.
    let e = unsafe { Box::from_raw(m.cast::<Export<DLManagedTensor>>()) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || e.finish()));
}
