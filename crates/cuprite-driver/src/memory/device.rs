//! Device memory: the owned [`DeviceBuffer`] and the borrowed views [`DeviceView`] and
//! [`DeviceViewMut`]: slicing, reinterpreting, and the stream-ordered free on drop.
//!
//! This module owns what a buffer is and when its memory goes back; allocation and copies
//! live in `copy.rs`, ordering between streams in `track.rs`.

use super::DeviceCopy;
use super::tracker::{DeviceRead, DeviceWrite, Release, TrackShared, Tracker};
use crate::context::Context;
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::CUdeviceptr;
use std::fmt;
use std::marker::PhantomData;
use std::mem::size_of;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

/// An owned allocation of `len` elements of `T` in device memory, freed stream-ordered on drop.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.default_stream();
/// let mut a = s.clone_htod(&[1.0f32, 2.0, 3.0, 4.0])?;
/// let b = s.clone_dtod(&a.slice(1..3)?)?;
/// s.memset_zeros(&mut a)?;
/// assert_eq!(s.clone_dtoh(&b)?, vec![2.0, 3.0]);
/// assert_eq!(s.clone_dtoh(&a)?, vec![0.0; 4]);
/// # Ok(()) }
/// ```
pub struct DeviceBuffer<T> {
    ptr: CUdeviceptr,
    len: usize,
    tracker: Tracker,
    stream: Arc<Stream>,
    /// Allocated stream-ordered on the pool (freed with `cuMemFreeAsync`), else synchronously.
    pooled: bool,
    /// For a part of another allocation ([`sub_allocation`](DeviceBuffer::sub_allocation)):
    /// what keeps that allocation alive, let go of (instead of a free) when this drops.
    part_of: Option<Arc<dyn std::any::Any + Send + Sync>>,
    _marker: PhantomData<T>,
}

// SAFETY: the buffer owns device memory, reachable only through the driver; T is plain data.
unsafe impl<T: Send> Send for DeviceBuffer<T> {}
// SAFETY: shared access only reads the address and the (mutex-protected) tracker.
unsafe impl<T: Sync> Sync for DeviceBuffer<T> {}

impl<T> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("len", &self.len)
            .field("type", &std::any::type_name::<T>())
            .finish()
    }
}

/// A borrowed, read-only part of a device allocation.
pub struct DeviceView<'a, T> {
    ptr: CUdeviceptr,
    len: usize,
    tracker: &'a Tracker,
    _marker: PhantomData<&'a T>,
}

impl<T> Clone for DeviceView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DeviceView<'_, T> {}

/// A borrowed, writable part of a device allocation.
pub struct DeviceViewMut<'a, T> {
    ptr: CUdeviceptr,
    len: usize,
    tracker: &'a Tracker,
    _marker: PhantomData<&'a mut T>,
}

impl<T> fmt::Debug for DeviceView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceView")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("len", &self.len)
            .finish()
    }
}
impl<T> fmt::Debug for DeviceViewMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceViewMut")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("len", &self.len)
            .finish()
    }
}

// SAFETY: a view is an address, a length and a shared reference to a Sync tracker.
unsafe impl<T: Sync> Send for DeviceView<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for DeviceView<'_, T> {}
// SAFETY: as above; exclusivity is carried by the borrow it came from.
unsafe impl<T: Send> Send for DeviceViewMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for DeviceViewMut<'_, T> {}

fn range_of(r: impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    let start = match r.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match r.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then_some((start, end))
}

/// The bounds of `r`, copied out of it.
fn bounds_of(r: &impl RangeBounds<usize>) -> (Bound<usize>, Bound<usize>) {
    (r.start_bound().cloned(), r.end_bound().cloned())
}

/// The range as Rust writes it (`3..7`, `..=9`, `5..`).
fn describe_range(r: &impl RangeBounds<usize>) -> String {
    let start = match r.start_bound() {
        Bound::Included(s) => s.to_string(),
        Bound::Excluded(s) => format!("{s} (excluded)"),
        Bound::Unbounded => String::new(),
    };
    match r.end_bound() {
        Bound::Included(e) => format!("{start}..={e}"),
        Bound::Excluded(e) => format!("{start}..{e}"),
        Bound::Unbounded => format!("{start}.."),
    }
}

fn bad_range(range: &str, len: usize) -> Error {
    Error::InvalidArgument(format!(
        "slice range {range} is out of bounds of a device buffer of {len} elements"
    ))
}

macro_rules! view_methods {
    () => {
        /// A read-only view of `range`; `None` when out of bounds.
        pub fn try_slice(&self, range: impl RangeBounds<usize>) -> Option<DeviceView<'_, T>> {
            let (s, e) = range_of(range, self.len)?;
            Some(DeviceView {
                ptr: self.ptr + (s * size_of::<T>()) as u64,
                len: e - s,
                tracker: self.tracker_ref(),
                _marker: PhantomData,
            })
        }

        /// A read-only view of `range`; `Err` when out of bounds.
        pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, T>> {
            // The bounds are copied so that the message is written only on failure.
            let bounds = bounds_of(&range);
            let len = self.len;
            self.try_slice(bounds)
                .ok_or_else(|| bad_range(&describe_range(&bounds), len))
        }

        /// Two read-only views, `[0, mid)` and `[mid, len)`; `Err` when `mid > len`.
        pub fn split_at(&self, mid: usize) -> Result<(DeviceView<'_, T>, DeviceView<'_, T>)> {
            if mid > self.len {
                return Err(bad_range(&format!("split at {mid}"), self.len));
            }
            Ok((self.slice(..mid)?, self.slice(mid..)?))
        }

        /// The number of elements.
        #[inline]
        pub fn len(&self) -> usize {
            self.len
        }

        /// Whether there are no elements.
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }

        /// The size in bytes.
        #[inline]
        pub fn num_bytes(&self) -> usize {
            self.len * size_of::<T>()
        }

        /// The device address of the first element.
        #[inline]
        pub fn device_ptr(&self) -> CUdeviceptr {
            self.ptr
        }

        /// The context owning the memory.
        pub fn context(&self) -> &Arc<Context> {
            self.tracker_ref().context()
        }

        /// The same bytes as elements of `U` (bytemuck plain data). `Err` when the byte size or
        /// the address does not fit `U`.
        pub fn view_as<U: bytemuck::Pod>(&self) -> Result<DeviceView<'_, U>>
        where
            T: bytemuck::Pod,
        {
            let bytes = self.num_bytes();
            if size_of::<U>() == 0
                || bytes % size_of::<U>() != 0
                || self.ptr % std::mem::align_of::<U>() as u64 != 0
            {
                return Err(Error::InvalidArgument(format!(
                    "{bytes} bytes at {:#x} cannot be viewed as {}",
                    self.ptr,
                    std::any::type_name::<U>()
                )));
            }
            Ok(DeviceView {
                ptr: self.ptr,
                len: bytes / size_of::<U>(),
                tracker: self.tracker_ref(),
                _marker: PhantomData,
            })
        }
    };
}

macro_rules! view_mut_methods {
    () => {
        /// A writable view of `range`; `None` when out of bounds.
        pub fn try_slice_mut(
            &mut self,
            range: impl RangeBounds<usize>,
        ) -> Option<DeviceViewMut<'_, T>> {
            let (s, e) = range_of(range, self.len)?;
            Some(DeviceViewMut {
                ptr: self.ptr + (s * size_of::<T>()) as u64,
                len: e - s,
                tracker: self.tracker_ref(),
                _marker: PhantomData,
            })
        }

        /// A writable view of `range`; `Err` when out of bounds.
        pub fn slice_mut(
            &mut self,
            range: impl RangeBounds<usize>,
        ) -> Result<DeviceViewMut<'_, T>> {
            let bounds = bounds_of(&range);
            let len = self.len;
            self.try_slice_mut(bounds)
                .ok_or_else(|| bad_range(&describe_range(&bounds), len))
        }

        /// Two writable views, `[0, mid)` and `[mid, len)`; `Err` when `mid > len`. They share
        /// the allocation's tracker (see the [module docs](crate::memory)).
        pub fn split_at_mut(
            &mut self,
            mid: usize,
        ) -> Result<(DeviceViewMut<'_, T>, DeviceViewMut<'_, T>)> {
            if mid > self.len {
                return Err(bad_range(&format!("split at {mid}"), self.len));
            }
            let tracker = self.tracker_ref();
            let a = DeviceViewMut {
                ptr: self.ptr,
                len: mid,
                tracker,
                _marker: PhantomData,
            };
            let b = DeviceViewMut {
                ptr: self.ptr + (mid * size_of::<T>()) as u64,
                len: self.len - mid,
                tracker,
                _marker: PhantomData,
            };
            Ok((a, b))
        }

        /// The whole as a writable view.
        pub fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
            DeviceViewMut {
                ptr: self.ptr,
                len: self.len,
                tracker: self.tracker_ref(),
                _marker: PhantomData,
            }
        }

        /// The same bytes as writable elements of `U` (bytemuck plain data).
        pub fn view_as_mut<U: bytemuck::Pod>(&mut self) -> Result<DeviceViewMut<'_, U>>
        where
            T: bytemuck::Pod,
        {
            let v = self.view_as::<U>()?;
            Ok(DeviceViewMut {
                ptr: v.ptr,
                len: v.len,
                tracker: self.tracker_ref(),
                _marker: PhantomData,
            })
        }
    };
}

impl<T> DeviceBuffer<T> {
    /// A buffer owning `ptr` (`len` elements), allocated on `stream` (`pooled`: on its pool).
    pub(super) fn from_alloc(
        ptr: CUdeviceptr,
        len: usize,
        tracker: Tracker,
        stream: Arc<Stream>,
        pooled: bool,
    ) -> Self {
        DeviceBuffer {
            ptr,
            len,
            tracker,
            stream,
            pooled,
            part_of: None,
            _marker: PhantomData,
        }
    }

    /// A buffer of `len` elements at `ptr`, a part of an allocation that `keep` keeps alive
    /// (an arena handed out in parts): it has a tracker of its own, and when it drops (and its
    /// last graph with it) nothing is freed, `keep` is let go of. Inside a capture on `stream`
    /// it belongs to that capture's graph, as an allocation made there would.
    ///
    /// # Safety
    ///
    /// `ptr` must address `len * size_of::<T>()` bytes of a device allocation of `stream`'s
    /// context that `keep` keeps alive, used by no other buffer while this one lives (parts of
    /// one allocation never overlap), suitably aligned for `T`; the contents are whatever they
    /// are (uninitialised to the caller).
    pub unsafe fn sub_allocation(
        ptr: CUdeviceptr,
        len: usize,
        stream: &Arc<Stream>,
        keep: Arc<dyn std::any::Any + Send + Sync>,
    ) -> Self {
        let tracker = Tracker::new(stream.context().clone());
        if crate::capture::any_active() {
            tracker.set_born_in(crate::capture::capture_of(stream.track_id()));
        }
        DeviceBuffer {
            ptr,
            len,
            tracker,
            stream: stream.clone(),
            pooled: stream.context().uses_memory_pool(),
            part_of: Some(keep),
            _marker: PhantomData,
        }
    }

    /// Whether it is a part of another allocation
    /// ([`sub_allocation`](Self::sub_allocation)), which it does not free.
    pub fn is_sub_allocation(&self) -> bool {
        self.part_of.is_some()
    }

    #[inline]
    fn tracker_ref(&self) -> &Tracker {
        &self.tracker
    }

    view_methods!();
    view_mut_methods!();

    /// The whole as a read-only view.
    pub fn as_view(&self) -> DeviceView<'_, T> {
        DeviceView {
            ptr: self.ptr,
            len: self.len,
            tracker: &self.tracker,
            _marker: PhantomData,
        }
    }

    /// A new buffer with a copy of the contents, allocated and copied on this buffer's stream
    /// (the fallible form of cudarc's `Clone`).
    pub fn try_clone(&self) -> Result<DeviceBuffer<T>>
    where
        T: DeviceCopy,
    {
        self.stream.clone_dtod(self)
    }

    /// A new buffer on `stream` holding a copy of `src` (RustaCUDA's `DeviceBuffer::from_slice`).
    pub fn from_slice(stream: &Arc<Stream>, src: &[T]) -> Result<DeviceBuffer<T>>
    where
        T: DeviceCopy,
    {
        stream.clone_htod(src)
    }

    /// Whether it was allocated stream-ordered on the memory pool (else synchronously).
    pub fn is_pool_allocated(&self) -> bool {
        self.pooled
    }

    /// The stream it was allocated on, and will be freed on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// Moves the buffer to `stream` (of the same context): it is freed there when it drops, and
    /// [`try_clone`](Self::try_clone) copies there. No synchronisation: the buffer's tracking
    /// orders the free after every use still pending on the old stream. For memory that must
    /// outlive the stream it was allocated on, e.g. a foreign stream ([`Stream::from_raw`])
    /// whose owner destroys it (a stream-ordered free on a destroyed stream fails). `Err`, with
    /// the buffer unchanged, for a stream of another context.
    ///
    /// ```no_run
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let user = ctx.new_stream()?;
    /// let mut buf = user.clone_htod(&[1u32, 2, 3])?;
    /// buf.set_stream(&ctx.default_stream())?;
    /// drop(user); // the buffer no longer holds it
    /// assert!(buf.stream().is_default());
    /// # Ok(()) }
    /// ```
    pub fn set_stream(&mut self, stream: &Arc<Stream>) -> Result<()> {
        if !Arc::ptr_eq(stream.context(), self.tracker.context()) {
            return Err(Error::InvalidArgument(
                "set_stream: the stream belongs to another context than the buffer".into(),
            ));
        }
        self.stream = stream.clone();
        Ok(())
    }

    /// The same allocation seen as its bytes (`len * size_of::<T>()` of them), with its
    /// pending work and its stream kept: no copy, nothing freed.
    pub fn into_bytes(self) -> DeviceBuffer<u8> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: `me` is never used again and never dropped; its tracker and stream move into
        // the new buffer exactly once, which then owns the allocation as `self` did. Any bit
        // pattern is a valid `u8`.
        unsafe {
            DeviceBuffer {
                ptr: me.ptr,
                len: me.len * std::mem::size_of::<T>(),
                tracker: std::ptr::read(&me.tracker),
                stream: std::ptr::read(&me.stream),
                pooled: me.pooled,
                part_of: std::ptr::read(&me.part_of),
                _marker: PhantomData,
            }
        }
    }

    /// Gives up ownership: returns the device address and never frees it. Rebuild it with
    /// [`from_raw_parts`](Self::from_raw_parts) to free it later (not a
    /// [`sub_allocation`](Self::sub_allocation), whose allocation is then kept for good).
    pub fn leak(self) -> CUdeviceptr {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: `me` is never used again and never dropped; the tracker and the stream Arc
        // are moved out exactly once so that their own resources are released.
        unsafe {
            drop(std::ptr::read(&me.tracker));
            drop(std::ptr::read(&me.stream));
            // A part of another allocation: that allocation is kept for good (the address
            // stays valid; it is not this buffer's to free).
            std::mem::forget(std::ptr::read(&me.part_of));
        }
        me.ptr
    }

    /// Takes ownership of `len` elements at `ptr`, to be freed on `stream` like cuprite's own
    /// allocations (stream-ordered on the pool, or `cuMemFree` where pools are unsupported).
    ///
    /// # Safety
    ///
    /// `ptr` must be an allocation of `stream`'s context of at least `len * size_of::<T>()`
    /// bytes, made the way cuprite allocates on that context (e.g. returned by
    /// [`leak`](Self::leak)), owned by no one else, holding valid values of `T`, and with no
    /// pending work on other streams.
    pub unsafe fn from_raw_parts(ptr: CUdeviceptr, len: usize, stream: &Arc<Stream>) -> Self {
        DeviceBuffer {
            ptr,
            len,
            tracker: Tracker::new(stream.context().clone()),
            stream: stream.clone(),
            pooled: stream.context().uses_memory_pool(),
            part_of: None,
            _marker: PhantomData,
        }
    }

    /// Reinterprets the whole allocation as elements of `U` (bytemuck plain data). When the
    /// byte size or the alignment does not fit `U`, the buffer comes back unchanged as `Err`.
    pub fn try_cast<U: bytemuck::Pod>(self) -> std::result::Result<DeviceBuffer<U>, Self>
    where
        T: bytemuck::Pod,
    {
        let bytes = self.num_bytes();
        if size_of::<U>() == 0
            || bytes % size_of::<U>() != 0
            || self.ptr % std::mem::align_of::<U>() as u64 != 0
        {
            return Err(self);
        }
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: the fields are moved out exactly once and `me` is never dropped.
        let (tracker, stream, part_of) = unsafe {
            (
                std::ptr::read(&me.tracker),
                std::ptr::read(&me.stream),
                std::ptr::read(&me.part_of),
            )
        };
        Ok(DeviceBuffer {
            ptr: me.ptr,
            len: bytes / size_of::<U>(),
            tracker,
            stream,
            pooled: me.pooled,
            part_of,
            _marker: PhantomData,
        })
    }
}

impl<'a, T> DeviceView<'a, T> {
    #[inline]
    fn tracker_ref(&self) -> &'a Tracker {
        self.tracker
    }

    /// A read-only view of `len` elements at `ptr`, tracked by `tracker` (for memory owned
    /// elsewhere: interop, DLPack). Give every view of one allocation the same tracker.
    ///
    /// # Safety
    ///
    /// `ptr` must address `len` initialised elements of device memory of `tracker`'s context,
    /// valid and not written outside cuprite's tracking for the lifetime `'a`.
    pub unsafe fn from_raw_parts(ptr: CUdeviceptr, len: usize, tracker: &'a Tracker) -> Self {
        DeviceView {
            ptr,
            len,
            tracker,
            _marker: PhantomData,
        }
    }
    view_methods!();
}

impl<'a, T> DeviceViewMut<'a, T> {
    #[inline]
    fn tracker_ref(&self) -> &'a Tracker {
        self.tracker
    }

    /// A writable view of `len` elements at `ptr`, tracked by `tracker` (for memory owned
    /// elsewhere). Give every view of one allocation the same tracker.
    ///
    /// # Safety
    ///
    /// As [`DeviceView::from_raw_parts`], and no other view or owner may access the memory for
    /// the lifetime `'a`.
    pub unsafe fn from_raw_parts(ptr: CUdeviceptr, len: usize, tracker: &'a Tracker) -> Self {
        DeviceViewMut {
            ptr,
            len,
            tracker,
            _marker: PhantomData,
        }
    }
    view_methods!();
    view_mut_methods!();
}

impl<T> super::tracker::sealed::Sealed for DeviceBuffer<T> {}
impl<T> DeviceRead<T> for DeviceBuffer<T> {
    #[inline]
    fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn tracker(&self) -> &Tracker {
        &self.tracker
    }
}
impl<T> DeviceWrite<T> for DeviceBuffer<T> {}

impl<T> super::tracker::sealed::Sealed for DeviceView<'_, T> {}
impl<T> DeviceRead<T> for DeviceView<'_, T> {
    #[inline]
    fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn tracker(&self) -> &Tracker {
        self.tracker
    }
}

impl<T> super::tracker::sealed::Sealed for DeviceViewMut<'_, T> {}
impl<T> DeviceRead<T> for DeviceViewMut<'_, T> {
    #[inline]
    fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn tracker(&self) -> &Tracker {
        self.tracker
    }
}
impl<T> DeviceWrite<T> for DeviceViewMut<'_, T> {}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if self.ptr == 0 {
            return;
        }
        let sid = self.stream.track_id();
        let capture = crate::capture::capture_of(sid);
        let born = self.tracker.shared.born_in();
        let graph = self.tracker.shared.graph_alloc();
        if graph != 0 && graph != capture {
            // Allocated by the graph of a capture that has ended: the memory is that graph's,
            // never accessible to other work (see `check_graph_alloc`). A free here could run
            // before the graph ever allocated it, or beside a launch using it; it stays the
            // graph's.
            return;
        }
        if capture != 0 && born != capture {
            // Its stream is capturing: a free now would become a node of that graph (freeing,
            // at every replay, memory the graph did not allocate). The capture keeps it, and the
            // free happens once the capture and its graphs are gone.
            crate::capture::keep_alive(sid, || self.tracker.shared.clone());
        }
        if let Some(keep) = self.part_of.take() {
            // A part of another allocation: let go of it once nothing uses this part.
            self.tracker
                .set_release(Release::Other(Box::new(move |_| drop(keep))));
            return;
        }
        // Freed now, or by the last graph that still uses it (see `tracker.rs`).
        self.tracker.set_release(Release::Device {
            stream: self.stream.clone(),
            ptr: self.ptr,
            pooled: self.pooled,
            elem: std::any::type_name::<T>(),
            free: free_device,
        });
    }
}

/// Frees `ptr` on `stream` once every pending use of it (tracked by `shared`) is done.
fn free_device(
    stream: &Stream,
    shared: &TrackShared,
    ptr: CUdeviceptr,
    pooled: bool,
) -> Result<()> {
    let ctx = stream.context();
    ctx.bind_to_thread_no_deferred()?;
    if pooled {
        stream.wait_for_all_users(shared)?;
        // SAFETY: `ptr` was allocated on this context and every pending use on other streams is
        // now ordered before this point of `stream`.
        unsafe { drv!(cuMemFreeAsync(ptr, stream.raw())) }
    } else {
        // Synchronous fallback: wait for everything, then free.
        crate::stats::count_host_sync();
        // SAFETY: no arguments; the context is current.
        unsafe { drv!(cuCtxSynchronize()) }?;
        // SAFETY: `ptr` came from cuMemAlloc on this context and nothing uses it any more.
        unsafe { drv!(cuMemFree_v2(ptr)) }
    }
}

#[cfg(test)]
mod tests {
    use super::{bounds_of, describe_range, range_of};

    #[test]
    fn copied_bounds_describe_and_resolve_as_the_range_itself() {
        assert_eq!(describe_range(&bounds_of(&(4..11))), "4..11");
        assert_eq!(describe_range(&bounds_of(&(..=9))), "..=9");
        assert_eq!(describe_range(&bounds_of(&(5..))), "5..");
        assert_eq!(range_of(bounds_of(&(2..7)), 10), Some((2, 7)));
        assert_eq!(range_of(bounds_of(&(4..11)), 10), None);
        assert_eq!(range_of(bounds_of(&(..=usize::MAX)), 10), None);
    }
}
