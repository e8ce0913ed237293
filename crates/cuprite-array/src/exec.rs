//! Where a library call's CUDA work runs ([`CudaLane`]): the one runtime type the execution
//! methods of a library call take, so that the IR (`graph`) names no runtime or driver type.

use crate::runtime::DeviceState;
use cuprite_driver::Stream;
use std::sync::Arc;

/// A device and the array stream a library call enqueues on (the stream belongs to the
/// device's context; the caller keeps it alive for the call).
#[derive(Clone, Copy)]
pub(crate) struct CudaLane<'a> {
    /// The device's runtime state: its context, kernel caches and properties.
    pub st: &'static DeviceState,
    /// The stream every launch, copy and library call of the call goes on.
    pub stream: &'a Arc<Stream>,
}
