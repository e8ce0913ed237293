//! Memory: device buffers and views, pinned and managed host memory, the element trait
//! [`DeviceCopy`], the host-side traits copies accept, and stream tracking.
//!
//! # Stream safety
//!
//! Every allocation has a [`Tracker`]: its last writer (an event and the stream it was recorded
//! on) and its pending readers, one event per stream. A copy, memset, free (or a kernel launch,
//! through [`Stream::begin_access`](crate::Stream::begin_access)) on stream `s` waits, on the
//! device, for exactly what it must: the last writer when it reads, and the last writer plus
//! *every* pending reader on other streams when it writes. Then it records one event on `s`
//! and notes itself as writer or reader. While the buffer's context has used only one stream,
//! none of this happens: no event is created, recorded or waited on (see
//! [`crate::context`] for what counts as a second stream).
//!
//! Views ([`DeviceView`], [`DeviceViewMut`]) share their parent's tracker. The cost: two
//! disjoint halves of one buffer written on two streams are ordered one after the other (the
//! second write waits for the first), because the tracker cannot tell that they do not
//! overlap. Allocate separate buffers for work that must overlap.
//!
//! Allocations are stream-ordered on a memory pool whose release threshold keeps freed memory
//! cached for reuse: the device's default pool for the primary context, a pool of its own for
//! each owned context (destroyed with it). See [`Context::pool_stats`](crate::Context::pool_stats)
//! and [`Context::trim`](crate::Context::trim).
//!
//! Dropping a buffer frees it stream-ordered (`cuMemFreeAsync` on its allocation stream, after
//! waiting on the device for its pending users); the host never blocks. A failure there is
//! returned by the context's next fallible call as [`Error::Deferred`](crate::Error::Deferred).

mod copy;
mod device;
mod host;
mod host_sync;
mod managed;
mod track;
pub(crate) mod tracker;

pub use device::{DeviceBuffer, DeviceView, DeviceViewMut};
pub use host::{HostAllocFlags, PinnedHostBuffer};
pub use managed::{ManagedBuffer, MemAdvice, MemLocation};
pub use tracker::{Access, DeviceRead, DeviceWrite, Tracker};

use crate::error::Result;
use crate::stream::Stream;

/// A plain-data element type of device memory: copied byte for byte between host and device,
/// valid whatever its bytes are, no drop glue, no pointers the host would follow.
///
/// Implemented for the primitive numbers, `half::{f16, bf16}`, `num_complex::Complex` of
/// these and fixed arrays of these. Not for `bool`: device work can leave any byte in memory
/// that is read back as `T` (a kernel storing 2 in a `bool` slot), and only 0 and 1 are
/// `bool`s; keep flags as `u8`.
///
/// ```compile_fail
/// fn plain<T: cuprite_driver::DeviceCopy>() {}
/// plain::<bool>();
/// ```
///
/// # Safety
///
/// Implement it only for `Copy` types of C layout (`#[repr(C)]` or `#[repr(transparent)]`),
/// without padding, for which every bit pattern is a valid value (device work may store any
/// bytes, and copies back to the host read them as `T`), and that hold no references.
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => {$(
        // SAFETY: a primitive plain-data type without padding; every bit pattern is a value.
        unsafe impl DeviceCopy for $t {}
    )*};
}
device_copy!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    half::f16,
    half::bf16
);
// SAFETY: `Complex` is `#[repr(C)]` of two plain-data elements of one type (no padding):
// every bit pattern is a value.
unsafe impl<T: DeviceCopy> DeviceCopy for num_complex::Complex<T> {}
// SAFETY: an array of plain-data elements is plain data.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

/// Host memory that a copy to the device can read: slices, `Vec`s, arrays, and
/// [`PinnedHostBuffer`].
///
/// Plain (pageable or unknown) host memory is only borrowed for the duration of the call: the
/// copy's stream is synchronised before returning, so the memory may be reused at once. Pinned
/// buffers are tracked instead, and the call returns without waiting.
///
/// # Safety
///
/// `host_ptr` must point to `host_len` readable elements that stay valid while `self` is
/// borrowed, and `after_enqueue` must make any later host access wait for the copy.
pub unsafe trait HostSrc<T> {
    /// The first element.
    fn host_ptr(&self) -> *const T;
    /// The number of elements.
    fn host_len(&self) -> usize;
    /// The tracker of pinned memory (device-side ordering), `None` for plain memory.
    fn host_tracker(&self) -> Option<&Tracker>;
    /// Called after a copy was enqueued on `stream`.
    fn after_enqueue(&self, stream: &Stream) -> Result<()>;
}

/// Host memory that a copy from the device can write: mutable slices, `Vec`s, arrays, and
/// [`PinnedHostBuffer`]. See [`HostSrc`] for when the host waits.
///
/// # Safety
///
/// As [`HostSrc`], for writable memory.
pub unsafe trait HostDst<T>: HostSrc<T> {
    /// The first element, writable.
    fn host_ptr_mut(&mut self) -> *mut T;
}

// SAFETY: a slice is valid for its length while borrowed; `after_enqueue` synchronises.
unsafe impl<T> HostSrc<T> for [T] {
    fn host_ptr(&self) -> *const T {
        self.as_ptr()
    }
    fn host_len(&self) -> usize {
        self.len()
    }
    fn host_tracker(&self) -> Option<&Tracker> {
        None
    }
    fn after_enqueue(&self, stream: &Stream) -> Result<()> {
        stream.synchronize()
    }
}
// SAFETY: as for slices.
unsafe impl<T> HostDst<T> for [T] {
    fn host_ptr_mut(&mut self) -> *mut T {
        self.as_mut_ptr()
    }
}
// SAFETY: as for slices.
unsafe impl<T> HostSrc<T> for Vec<T> {
    fn host_ptr(&self) -> *const T {
        self.as_ptr()
    }
    fn host_len(&self) -> usize {
        self.len()
    }
    fn host_tracker(&self) -> Option<&Tracker> {
        None
    }
    fn after_enqueue(&self, stream: &Stream) -> Result<()> {
        stream.synchronize()
    }
}
// SAFETY: as for slices.
unsafe impl<T> HostDst<T> for Vec<T> {
    fn host_ptr_mut(&mut self) -> *mut T {
        self.as_mut_ptr()
    }
}
// SAFETY: as for slices.
unsafe impl<T, const N: usize> HostSrc<T> for [T; N] {
    fn host_ptr(&self) -> *const T {
        self.as_ptr()
    }
    fn host_len(&self) -> usize {
        N
    }
    fn host_tracker(&self) -> Option<&Tracker> {
        None
    }
    fn after_enqueue(&self, stream: &Stream) -> Result<()> {
        stream.synchronize()
    }
}
// SAFETY: as for slices.
unsafe impl<T, const N: usize> HostDst<T> for [T; N] {
    fn host_ptr_mut(&mut self) -> *mut T {
        self.as_mut_ptr()
    }
}
