//! Device memory: the owned [`DeviceBuffer`], the borrowed views [`DeviceView`] and
//! [`DeviceViewMut`], and the allocation, copy and memset methods of [`Stream`].
//!
//! This module owns allocation policy (stream-ordered pool allocation, synchronous fallback,
//! out-of-memory trim-and-retry) and copies. Ordering between streams is decided by
//! `track.rs`; this module only declares each operation's accesses.

use super::track::{Access, DeviceRead, DeviceWrite, Tracker};
use super::{DeviceCopy, HostDst, HostSrc};
use crate::context::Context;
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUdeviceptr};
use std::fmt;
use std::marker::PhantomData;
use std::mem::size_of;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

/// An owned allocation of `len` elements of `T` in device memory, freed stream-ordered on drop.
///
/// ```no_run
/// # fn main() -> cuprite::Result<()> {
/// let ctx = cuprite::Context::new(0)?;
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

fn bad_range(len: usize) -> Error {
    Error::InvalidArgument(format!(
        "slice range out of bounds of a device buffer of {len} elements"
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
            let len = self.len;
            self.try_slice(range).ok_or_else(|| bad_range(len))
        }

        /// Two read-only views, `[0, mid)` and `[mid, len)`; `Err` when `mid > len`.
        pub fn split_at(&self, mid: usize) -> Result<(DeviceView<'_, T>, DeviceView<'_, T>)> {
            if mid > self.len {
                return Err(bad_range(self.len));
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
            let len = self.len;
            self.try_slice_mut(range).ok_or_else(|| bad_range(len))
        }

        /// Two writable views, `[0, mid)` and `[mid, len)`; `Err` when `mid > len`. They share
        /// the allocation's tracker (see the [module docs](crate::memory)).
        pub fn split_at_mut(
            &mut self,
            mid: usize,
        ) -> Result<(DeviceViewMut<'_, T>, DeviceViewMut<'_, T>)> {
            if mid > self.len {
                return Err(bad_range(self.len));
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
    /// # fn main() -> cuprite::Result<()> {
    /// let ctx = cuprite::Context::new(0)?;
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

    /// Gives up ownership: returns the device address and never frees it. Rebuild it with
    /// [`from_raw_parts`](Self::from_raw_parts) to free it later.
    pub fn leak(self) -> CUdeviceptr {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: `me` is never used again and never dropped; the tracker and the stream Arc
        // are moved out exactly once so that their own resources are released.
        unsafe {
            drop(std::ptr::read(&me.tracker));
            drop(std::ptr::read(&me.stream));
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
        let (tracker, stream) =
            unsafe { (std::ptr::read(&me.tracker), std::ptr::read(&me.stream)) };
        Ok(DeviceBuffer {
            ptr: me.ptr,
            len: bytes / size_of::<U>(),
            tracker,
            stream,
            pooled: me.pooled,
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
        let what = || format!("free of DeviceBuffer<{}>", std::any::type_name::<T>());
        let ctx = self.tracker.context().clone();
        if let Err(e) = free_device(&self.stream, &self.tracker, self.ptr, self.pooled) {
            ctx.defer(what(), e);
        }
    }
}

fn free_device(stream: &Stream, tracker: &Tracker, ptr: CUdeviceptr, pooled: bool) -> Result<()> {
    let ctx = stream.context();
    ctx.bind_to_thread_no_deferred()?;
    if pooled {
        stream.begin_access(&[Access::of_tracker(tracker, true)])?;
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

/// Copy size in bytes of `n` elements, or an error on overflow.
fn bytes_of<T>(n: usize) -> Result<usize> {
    n.checked_mul(size_of::<T>())
        .ok_or_else(|| Error::InvalidArgument(format!("{n} elements overflow a byte count")))
}

fn check_same_len(what: &str, src: usize, dst: usize) -> Result<()> {
    if src != dst {
        return Err(Error::InvalidArgument(format!(
            "{what}: source has {src} elements but destination has {dst}"
        )));
    }
    Ok(())
}

impl Stream {
    /// Allocates `len` uninitialised elements, stream-ordered on this stream (on the device's
    /// memory pool, whose cached memory makes this cheap), or synchronously where pools are
    /// unsupported. Zero elements allocate nothing. Out of memory: trims the pool, retries once,
    /// then returns [`Error::OutOfMemory`]; the context stays usable.
    ///
    /// # Safety
    ///
    /// The contents are uninitialised: reading them before writing is reading garbage, which
    /// for types with invalid bit patterns (`bool`) is undefined behaviour.
    pub unsafe fn alloc<T: DeviceCopy>(self: &Arc<Self>, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        let ctx = self.context();
        ctx.bind_to_thread()?;
        let tracker = Tracker::new(ctx.clone());
        let pooled = ctx.uses_memory_pool();
        if bytes == 0 {
            return Ok(DeviceBuffer {
                ptr: 0,
                len,
                tracker,
                stream: self.clone(),
                pooled,
                _marker: PhantomData,
            });
        }
        let access = [Access::of_tracker(&tracker, true)];
        self.begin_access(&access)?;
        let ptr = self.alloc_bytes(bytes, pooled)?;
        let buf = DeviceBuffer {
            ptr,
            len,
            tracker,
            stream: self.clone(),
            pooled,
            _marker: PhantomData,
        };
        self.end_access(&[Access::write(&buf)])?;
        Ok(buf)
    }

    fn alloc_bytes(&self, bytes: usize, pooled: bool) -> Result<CUdeviceptr> {
        let ctx = self.context();
        if bytes > ctx.total_memory() {
            // Can never fit: answer at once instead of letting the pool try (and briefly take
            // every free byte of the device from other users while it does).
            let (free, total) = ctx.mem_info()?;
            return Err(Error::OutOfMemory {
                requested: bytes,
                free,
                total,
            });
        }
        let try_once = || -> Result<CUdeviceptr> {
            let mut p = 0;
            if pooled && ctx.is_primary() {
                // SAFETY: valid out-pointer; a live stream of the current context, whose device
                // pool is the default one.
                unsafe { drv!(cuMemAllocAsync(&mut p, bytes, self.raw())) }?;
            } else if pooled {
                // SAFETY: valid out-pointer; the context's own pool and a live stream of it.
                unsafe {
                    drv!(cuMemAllocFromPoolAsync(
                        &mut p,
                        bytes,
                        ctx.raw_memory_pool(),
                        self.raw()
                    ))
                }?;
            } else {
                // SAFETY: valid out-pointer; the context is current.
                unsafe { drv!(cuMemAlloc_v2(&mut p, bytes)) }?;
            }
            Ok(p)
        };
        match try_once() {
            Ok(p) => Ok(p),
            Err(e) if e.code() == Some(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY) => {
                // Let pending frees complete, return cached memory to the device, retry once.
                ctx.synchronize()?;
                ctx.trim(0)?;
                match try_once() {
                    Ok(p) => Ok(p),
                    Err(e) if e.code() == Some(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY) => {
                        let (free, total) = ctx.mem_info()?;
                        Err(Error::OutOfMemory {
                            requested: bytes,
                            free,
                            total,
                        })
                    }
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Allocates `len` elements set to zero (all bytes 0).
    pub fn alloc_zeros<T: DeviceCopy>(self: &Arc<Self>, len: usize) -> Result<DeviceBuffer<T>> {
        // SAFETY: the memory is zeroed below before anyone can read it, and all-zero is a valid
        // value of every DeviceCopy type.
        let mut buf = unsafe { self.alloc::<T>(len) }?;
        self.memset_zeros(&mut buf)?;
        Ok(buf)
    }

    /// A new device buffer holding a copy of `src`.
    #[doc(alias = "htod_sync_copy")]
    pub fn clone_htod<T: DeviceCopy, S: HostSrc<T> + ?Sized>(
        self: &Arc<Self>,
        src: &S,
    ) -> Result<DeviceBuffer<T>> {
        // SAFETY: every element is written by the copy below before it can be read.
        let mut buf = unsafe { self.alloc::<T>(src.host_len()) }?;
        self.memcpy_htod(src, &mut buf)?;
        Ok(buf)
    }

    /// Seed-003 name of [`clone_htod`](Self::clone_htod).
    pub fn memcpy_stod<T: DeviceCopy, S: HostSrc<T> + ?Sized>(
        self: &Arc<Self>,
        src: &S,
    ) -> Result<DeviceBuffer<T>> {
        self.clone_htod(src)
    }

    /// Copies host `src` into device `dst` (same length, else `Err`). Plain host memory may be
    /// reused as soon as this returns; pinned memory is tracked instead (see [`HostSrc`]).
    #[doc(alias = "htod_sync_copy_into")]
    #[doc(alias = "htod_copy_into")]
    pub fn memcpy_htod<T: DeviceCopy, S: HostSrc<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<()> {
        check_same_len("memcpy_htod", src.host_len(), dst.len())?;
        if self.enqueue_htod(src.host_ptr(), src.host_tracker(), dst)? {
            src.after_enqueue(self)?;
        }
        Ok(())
    }

    /// Enqueues a copy of `dst.len()` elements from `src` into `dst`; returns whether anything
    /// was enqueued. The caller keeps `src` alive and unmodified until the copy completes.
    fn enqueue_htod<T: DeviceCopy, D: DeviceWrite<T> + ?Sized>(
        &self,
        src: *const T,
        src_tracker: Option<&Tracker>,
        dst: &mut D,
    ) -> Result<bool> {
        let bytes = bytes_of::<T>(dst.len())?;
        if bytes == 0 {
            return Ok(false);
        }
        self.context().bind_to_thread()?;
        let dptr = dst.device_ptr_mut();
        let acc_dst = Access::write(&*dst);
        match src_tracker {
            Some(t) => {
                let acc = [acc_dst, Access::of_tracker(t, false)];
                self.begin_access(&acc)?;
                // SAFETY: `src` holds `bytes` readable bytes (caller), `dst` as many writable
                // device bytes; ordering with other streams was set up above.
                unsafe { drv!(cuMemcpyHtoDAsync_v2(dptr, src.cast(), bytes, self.raw())) }?;
                self.end_access(&acc)?;
            }
            None => {
                let acc = [acc_dst];
                self.begin_access(&acc)?;
                // SAFETY: as above.
                unsafe { drv!(cuMemcpyHtoDAsync_v2(dptr, src.cast(), bytes, self.raw())) }?;
                self.end_access(&acc)?;
            }
        }
        Ok(true)
    }

    /// Seed-002 `htod_copy`: a new device buffer filled from `src`, which it takes by value so
    /// that the host does not wait: the `Vec` is kept alive until the copy is done (a host
    /// function on this stream drops it).
    pub fn htod_copy<T: DeviceCopy>(self: &Arc<Self>, src: Vec<T>) -> Result<DeviceBuffer<T>> {
        // SAFETY: every element is written by the copy below before it can be read.
        let mut buf = unsafe { self.alloc::<T>(src.len()) }?;
        let src = Arc::new(src);
        if self.enqueue_htod(src.as_ptr(), None, &mut buf)? {
            let keep = src.clone();
            if let Err(e) = self.launch_host_fn(move || drop(keep)) {
                // No host function will hold the data: wait for the copy before letting it go.
                self.synchronize()?;
                return Err(e);
            }
        }
        Ok(buf)
    }

    /// Seed-002 `sync_reclaim`: copies `buf` to a `Vec` (waiting) and frees it.
    pub fn sync_reclaim<T: DeviceCopy>(&self, buf: DeviceBuffer<T>) -> Result<Vec<T>> {
        self.clone_dtoh(&buf)
    }

    /// A new `Vec` holding a copy of device `src`; waits for the copy.
    #[doc(alias = "dtoh_sync_copy")]
    pub fn clone_dtoh<T: DeviceCopy, S: DeviceRead<T> + ?Sized>(&self, src: &S) -> Result<Vec<T>> {
        let mut v: Vec<T> = Vec::with_capacity(src.len());
        let bytes = bytes_of::<T>(src.len())?;
        if bytes > 0 {
            self.context().bind_to_thread()?;
            let acc = [Access::read(src)];
            self.begin_access(&acc)?;
            // SAFETY: `v` has capacity for `len` elements; `src` has as many readable bytes.
            unsafe {
                drv!(cuMemcpyDtoHAsync_v2(
                    v.as_mut_ptr().cast(),
                    src.device_ptr(),
                    bytes,
                    self.raw()
                ))
            }?;
            self.end_access(&acc)?;
            self.synchronize()?;
        }
        // SAFETY: the copy above completed (stream synchronised) and wrote every element with
        // bytes the device holds for a DeviceCopy type.
        unsafe { v.set_len(src.len()) };
        Ok(v)
    }

    /// Seed-003 name of [`clone_dtoh`](Self::clone_dtoh).
    pub fn memcpy_dtov<T: DeviceCopy, S: DeviceRead<T> + ?Sized>(&self, src: &S) -> Result<Vec<T>> {
        self.clone_dtoh(src)
    }

    /// Copies device `src` into host `dst` (same length, else `Err`). Plain host memory: waits
    /// for the copy. Pinned memory: returns at once; its host accessors wait.
    #[doc(alias = "dtoh_sync_copy_into")]
    pub fn memcpy_dtoh<T: DeviceCopy, S: DeviceRead<T> + ?Sized, D: HostDst<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<()> {
        check_same_len("memcpy_dtoh", src.len(), dst.host_len())?;
        let bytes = bytes_of::<T>(src.len())?;
        if bytes == 0 {
            return Ok(());
        }
        self.context().bind_to_thread()?;
        let hptr = dst.host_ptr_mut();
        let acc_src = Access::read(src);
        match dst.host_tracker() {
            Some(t) => {
                let acc = [acc_src, Access::of_tracker(t, true)];
                self.begin_access(&acc)?;
                // SAFETY: `dst` has `bytes` writable bytes (HostDst contract); `src` as many
                // readable device bytes.
                unsafe {
                    drv!(cuMemcpyDtoHAsync_v2(
                        hptr.cast(),
                        src.device_ptr(),
                        bytes,
                        self.raw()
                    ))
                }?;
                self.end_access(&acc)?;
            }
            None => {
                let acc = [acc_src];
                self.begin_access(&acc)?;
                // SAFETY: as above.
                unsafe {
                    drv!(cuMemcpyDtoHAsync_v2(
                        hptr.cast(),
                        src.device_ptr(),
                        bytes,
                        self.raw()
                    ))
                }?;
                self.end_access(&acc)?;
            }
        }
        dst.after_enqueue(self)
    }

    /// Copies device `src` into device `dst` (same length, else `Err`). Works between
    /// contexts and devices too: a peer copy, direct GPU to GPU where the two can reach each
    /// other (peer access is enabled on first use), staged through the host by the driver only
    /// where they cannot; see [`crate::peer`] for the paths and their counters.
    #[doc(alias = "dtod_copy")]
    #[doc(alias = "memcpy_peer")]
    pub fn memcpy_dtod<T: DeviceCopy, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<()> {
        check_same_len("memcpy_dtod", src.len(), dst.len())?;
        let bytes = bytes_of::<T>(src.len())?;
        if bytes == 0 {
            return Ok(());
        }
        self.context().bind_to_thread()?;
        let dptr = dst.device_ptr_mut();
        let sctx = src.tracker().context().clone();
        let dctx = dst.tracker().context().clone();
        let acc = [Access::read(src), Access::write(&*dst)];
        self.begin_access(&acc)?;
        if Arc::ptr_eq(&sctx, &dctx) {
            // SAFETY: both ranges are live allocations of `bytes` bytes; ordering is set up.
            unsafe {
                drv!(cuMemcpyDtoDAsync_v2(
                    dptr,
                    src.device_ptr(),
                    bytes,
                    self.raw()
                ))
            }?;
        } else {
            // Between contexts: direct GPU to GPU where possible, chosen and counted there.
            crate::peer::copy(self, dptr, &dctx, src.device_ptr(), &sctx, bytes)?;
        }
        self.end_access(&acc)
    }

    /// A new buffer (on this stream's context) holding a copy of device `src`.
    pub fn clone_dtod<T: DeviceCopy, S: DeviceRead<T> + ?Sized>(
        self: &Arc<Self>,
        src: &S,
    ) -> Result<DeviceBuffer<T>> {
        // SAFETY: every element is written by the copy below before it can be read.
        let mut dst = unsafe { self.alloc::<T>(src.len()) }?;
        self.memcpy_dtod(src, &mut dst)?;
        Ok(dst)
    }

    fn memset_raw<T, D: DeviceWrite<T> + ?Sized>(
        &self,
        dst: &mut D,
        width: usize,
        value: u32,
    ) -> Result<()> {
        let bytes = dst.num_bytes();
        if bytes == 0 {
            return Ok(());
        }
        let ptr = dst.device_ptr_mut();
        if bytes % width != 0 || ptr % width as u64 != 0 {
            return Err(Error::InvalidArgument(format!(
                "memset of {width}-byte values: {bytes} bytes at {ptr:#x} are not a whole, aligned number of them"
            )));
        }
        self.context().bind_to_thread()?;
        let n = bytes / width;
        let acc = [Access::write(&*dst)];
        self.begin_access(&acc)?;
        // SAFETY: `n` values of `width` bytes fit the destination, which is aligned for them.
        unsafe {
            match width {
                1 => drv!(cuMemsetD8Async(ptr, value as u8, n, self.raw())),
                2 => drv!(cuMemsetD16Async(ptr, value as u16, n, self.raw())),
                _ => drv!(cuMemsetD32Async(ptr, value, n, self.raw())),
            }
        }?;
        self.end_access(&acc)
    }

    /// Sets every byte of `dst` to zero.
    pub fn memset_zeros<T, D: DeviceWrite<T> + ?Sized>(&self, dst: &mut D) -> Result<()> {
        self.memset_raw(dst, 1, 0)
    }

    /// Sets every byte of `dst` to `value`.
    pub fn memset_d8<T: bytemuck::Pod, D: DeviceWrite<T> + ?Sized>(
        &self,
        dst: &mut D,
        value: u8,
    ) -> Result<()> {
        self.memset_raw(dst, 1, value as u32)
    }

    /// Sets every 16-bit word of `dst` to `value`; `Err` unless its size and address are
    /// multiples of 2.
    pub fn memset_d16<T: bytemuck::Pod, D: DeviceWrite<T> + ?Sized>(
        &self,
        dst: &mut D,
        value: u16,
    ) -> Result<()> {
        self.memset_raw(dst, 2, value as u32)
    }

    /// Sets every 32-bit word of `dst` to `value`; `Err` unless its size and address are
    /// multiples of 4.
    pub fn memset_d32<T: bytemuck::Pod, D: DeviceWrite<T> + ?Sized>(
        &self,
        dst: &mut D,
        value: u32,
    ) -> Result<()> {
        self.memset_raw(dst, 4, value)
    }
}
