//! Page-locked (pinned) host memory: [`PinnedHostBuffer`], the fast path for host↔device copies,
//! also mapped into the device's address space so kernels can read and write it directly.
//!
//! This module owns pinned allocations and the rule that host access waits for device work
//! still using them. It must not copy: copies are `Stream` methods in `device.rs`.

use super::host_sync::HostSync;
use super::tracker::{DeviceRead, DeviceWrite, Release, Tracker};
use super::{DeviceCopy, HostDst, HostSrc};
use crate::context::Context;
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUdeviceptr};
use std::fmt;
use std::sync::Arc;

/// Flags of a pinned allocation (`CU_MEMHOSTALLOC_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct HostAllocFlags(u32);

impl HostAllocFlags {
    /// No flags (cuprite always adds `DEVICEMAP`).
    pub const NONE: HostAllocFlags = HostAllocFlags(0);
    /// Pinned for every context, not only the allocating one.
    pub const PORTABLE: HostAllocFlags = HostAllocFlags(sys::CU_MEMHOSTALLOC_PORTABLE);
    /// Mapped into the device address space (always on in cuprite).
    pub const DEVICEMAP: HostAllocFlags = HostAllocFlags(sys::CU_MEMHOSTALLOC_DEVICEMAP);
    /// Write-combined: faster host→device transfers, very slow host reads.
    pub const WRITECOMBINED: HostAllocFlags = HostAllocFlags(sys::CU_MEMHOSTALLOC_WRITECOMBINED);

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }
    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: HostAllocFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for HostAllocFlags {
    type Output = HostAllocFlags;
    fn bitor(self, rhs: Self) -> Self {
        HostAllocFlags(self.0 | rhs.0)
    }
}

/// `len` elements of page-locked host memory, mapped into the device's address space.
///
/// Copies to and from it return without waiting; its host accessors
/// ([`as_slice`](Self::as_slice), [`as_mut_slice`](Self::as_mut_slice)) wait for device work
/// still using it (by synchronising its context, only when such work was enqueued since the
/// last wait). Kernels may use it directly through [`DeviceRead`]/[`DeviceWrite`].
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// use cuprite_driver::{Context, HostAllocFlags, PinnedHostBuffer};
/// let ctx = Context::new(0)?;
/// let s = ctx.default_stream();
/// let src = PinnedHostBuffer::from_slice(&ctx, &[1u32, 2, 3], HostAllocFlags::NONE)?;
/// let d = s.clone_htod(&src)?;
/// let mut back = PinnedHostBuffer::<u32>::new(&ctx, 3, HostAllocFlags::NONE)?;
/// s.memcpy_dtoh(&d, &mut back)?; // returns at once
/// assert_eq!(back.as_slice()?, &[1, 2, 3]); // waits for the copy
/// # Ok(()) }
/// ```
pub struct PinnedHostBuffer<T> {
    ptr: *mut T,
    len: usize,
    dev_ptr: CUdeviceptr,
    flags: HostAllocFlags,
    tracker: Tracker,
}

// SAFETY: the buffer owns its memory; concurrent host access is mediated by &/&mut borrows.
unsafe impl<T: Send> Send for PinnedHostBuffer<T> {}
// SAFETY: shared access only reads.
unsafe impl<T: Sync> Sync for PinnedHostBuffer<T> {}

impl<T> fmt::Debug for PinnedHostBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedHostBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("flags", &self.flags)
            .finish()
    }
}

impl<T: DeviceCopy> PinnedHostBuffer<T> {
    /// `len` zeroed elements of pinned memory, pinned for `ctx` (add `PORTABLE` for all).
    pub fn new(ctx: &Arc<Context>, len: usize, flags: HostAllocFlags) -> Result<Self> {
        ctx.bind_to_thread()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::InvalidArgument(format!("{len} elements overflow")))?;
        let flags = flags | HostAllocFlags::DEVICEMAP;
        let (ptr, dev_ptr) = if bytes == 0 {
            (std::ptr::NonNull::<T>::dangling().as_ptr(), 0)
        } else {
            let mut p = std::ptr::null_mut();
            // SAFETY: valid out-pointer; flags are CU_MEMHOSTALLOC bits.
            unsafe { drv!(cuMemHostAlloc(&mut p, bytes, flags.bits())) }?;
            // SAFETY: `p` points to `bytes` writable bytes just allocated; zero is a valid T.
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
            let mut d = 0;
            // SAFETY: `p` is a mapped pinned allocation of the current context.
            if let Err(e) = unsafe { drv!(cuMemHostGetDevicePointer_v2(&mut d, p, 0)) } {
                // SAFETY: `p` came from cuMemHostAlloc above and is not used further.
                let _ = unsafe { sys::cuMemFreeHost(p) };
                return Err(e);
            }
            (p.cast::<T>(), d)
        };
        Ok(PinnedHostBuffer {
            ptr,
            len,
            dev_ptr,
            flags,
            tracker: Tracker::new_host_visible(ctx.clone()),
        })
    }

    /// Pinned memory holding a copy of `src`.
    pub fn from_slice(ctx: &Arc<Context>, src: &[T], flags: HostAllocFlags) -> Result<Self> {
        let mut b = Self::new(ctx, src.len(), flags)?;
        b.as_mut_slice()?.copy_from_slice(src);
        Ok(b)
    }
}

impl<T> PinnedHostBuffer<T> {
    /// Whether device work may still use the memory (its tracker's: graph launches mark it).
    #[inline]
    fn host_sync(&self) -> &HostSync {
        self.tracker.host_sync()
    }

    /// Takes ownership of `len` elements of page-locked memory at `ptr`, freed with
    /// `cuMemFreeHost` on drop (a failure there is deferred to `ctx`).
    ///
    /// # Safety
    ///
    /// `ptr` must come from `cuMemHostAlloc`/`cuMemAllocHost` (mapped, for device use through
    /// [`DeviceRead`]) in a context of `ctx`'s device, hold `len` initialised elements, and be
    /// owned by no one else.
    pub unsafe fn from_raw_parts(
        ctx: &Arc<Context>,
        ptr: *mut T,
        len: usize,
        flags: HostAllocFlags,
    ) -> Result<Self> {
        let mut dev_ptr = 0;
        if len > 0 && std::mem::size_of::<T>() > 0 && flags.contains(HostAllocFlags::DEVICEMAP) {
            ctx.bind_to_thread()?;
            // SAFETY: `ptr` is pinned memory of this device (caller's contract).
            unsafe { drv!(cuMemHostGetDevicePointer_v2(&mut dev_ptr, ptr.cast(), 0)) }?;
        }
        Ok(PinnedHostBuffer {
            ptr,
            len,
            dev_ptr,
            flags,
            tracker: Tracker::new_host_visible(ctx.clone()),
        })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The flags it was allocated with.
    pub fn flags(&self) -> HostAllocFlags {
        self.flags
    }

    /// The host address.
    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }

    /// Waits for device work still using this memory (only when some was enqueued since the
    /// last wait).
    pub fn wait(&self) -> Result<()> {
        self.host_sync()
            .wait(self.tracker.context(), "pinned buffer")
    }

    /// The contents, after waiting for device work still using them.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait()?;
        // SAFETY: `ptr` holds `len` initialised elements (zeroed at allocation) and no device
        // work writes them now (waited above; writers need `&mut self`).
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents, writable, after waiting for device work still using them.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        // SAFETY: as above, and `&mut self` excludes every other access.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }
}

impl<T> Drop for PinnedHostBuffer<T> {
    fn drop(&mut self) {
        if self.len == 0 || std::mem::size_of::<T>() == 0 {
            return;
        }
        // A graph still holding the memory may replay later: wait for its work too.
        let sync = self.host_sync().is_dirty() || self.tracker.graph_holds() > 0;
        let ptr = self.ptr as usize;
        // Run now, or once the last graph that uses the memory is gone (see `tracker.rs`).
        self.tracker
            .set_release(Release::Other(Box::new(move |ctx: &Context| {
                let free = Box::new(move || {
                    // SAFETY: `ptr` came from cuMemHostAlloc and no device work uses it any
                    // more (waited for first when `sync`).
                    unsafe { drv!(cuMemFreeHost(ptr as *mut std::ffi::c_void)) }
                });
                if sync {
                    ctx.free_after_sync("cuMemFreeHost of a PinnedHostBuffer", free);
                } else {
                    ctx.outside_captures("cuMemFreeHost of a PinnedHostBuffer", free);
                }
            })));
    }
}

// SAFETY: `ptr` holds `len` elements for as long as the buffer lives; `after_enqueue` marks it
// so that host accessors wait, and the tracker orders device work across streams.
unsafe impl<T> HostSrc<T> for PinnedHostBuffer<T> {
    #[inline]
    fn host_ptr(&self) -> *const T {
        self.ptr
    }
    #[inline]
    fn host_len(&self) -> usize {
        self.len
    }
    #[inline]
    fn host_tracker(&self) -> Option<&Tracker> {
        Some(&self.tracker)
    }
    #[inline]
    fn after_enqueue(&self, _stream: &Stream) -> Result<()> {
        self.host_sync().mark();
        Ok(())
    }
}

// SAFETY: as above, writable.
unsafe impl<T> HostDst<T> for PinnedHostBuffer<T> {
    #[inline]
    fn host_ptr_mut(&mut self) -> *mut T {
        self.ptr
    }
}

impl<T> super::tracker::sealed::Sealed for PinnedHostBuffer<T> {}
impl<T> DeviceRead<T> for PinnedHostBuffer<T> {
    /// The mapped device address. Taking it counts as device use: the next host access waits.
    #[inline]
    fn device_ptr(&self) -> CUdeviceptr {
        self.host_sync().mark();
        self.dev_ptr
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
impl<T> DeviceWrite<T> for PinnedHostBuffer<T> {}
