//! Managed (unified) memory: [`ManagedBuffer`], one address valid on the host and on devices,
//! migrated by the driver on demand or by [`prefetch`](ManagedBuffer::prefetch).
//!
//! This module owns managed allocations, prefetch and advice. Host access waits for device
//! work that may still use the memory.

use super::DeviceCopy;
use super::host_sync::HostSync;
use super::tracker::{DeviceRead, DeviceWrite, Release, Tracker};
use crate::context::Context;
use crate::device::Device;
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUdeviceptr};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// Where managed memory should live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemLocation {
    /// A device.
    Device(Device),
    /// The host.
    Host,
}

impl MemLocation {
    fn raw(self) -> sys::CUmemLocation {
        match self {
            MemLocation::Device(d) => sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: d.raw(),
            },
            MemLocation::Host => sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST,
                id: 0,
            },
        }
    }
}

/// Usage advice for managed memory (`CUmem_advise`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemAdvice {
    /// Mostly read: the driver may keep read-only copies on several processors.
    SetReadMostly,
    /// Undo `SetReadMostly`.
    UnsetReadMostly,
    /// Prefer to keep the pages at the given location.
    SetPreferredLocation,
    /// Undo `SetPreferredLocation`.
    UnsetPreferredLocation,
    /// The given location will access the memory: keep it mapped there.
    SetAccessedBy,
    /// Undo `SetAccessedBy`.
    UnsetAccessedBy,
}

impl MemAdvice {
    fn raw(self) -> sys::CUmem_advise {
        use sys::CUmem_advise as A;
        match self {
            MemAdvice::SetReadMostly => A::CU_MEM_ADVISE_SET_READ_MOSTLY,
            MemAdvice::UnsetReadMostly => A::CU_MEM_ADVISE_UNSET_READ_MOSTLY,
            MemAdvice::SetPreferredLocation => A::CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
            MemAdvice::UnsetPreferredLocation => A::CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
            MemAdvice::SetAccessedBy => A::CU_MEM_ADVISE_SET_ACCESSED_BY,
            MemAdvice::UnsetAccessedBy => A::CU_MEM_ADVISE_UNSET_ACCESSED_BY,
        }
    }
}

/// `len` elements of managed memory (`cuMemAllocManaged`, attached globally).
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// use cuprite_driver::{Context, ManagedBuffer, MemLocation};
/// let ctx = Context::new(0)?;
/// let s = ctx.default_stream();
/// let mut m = ManagedBuffer::from_slice(&ctx, &[1.0f32, 2.0])?;
/// m.prefetch(MemLocation::Device(ctx.device()), &s)?;
/// let d = s.clone_dtod(&m)?;
/// m.as_mut_slice()?[0] = 5.0; // waits for the copy first
/// assert_eq!(s.clone_dtoh(&d)?, vec![1.0, 2.0]);
/// # Ok(()) }
/// ```
pub struct ManagedBuffer<T> {
    ptr: CUdeviceptr,
    len: usize,
    tracker: Tracker,
    _marker: PhantomData<T>,
}

// SAFETY: the buffer owns its memory; host access is mediated by &/&mut borrows.
unsafe impl<T: Send> Send for ManagedBuffer<T> {}
// SAFETY: shared access only reads.
unsafe impl<T: Sync> Sync for ManagedBuffer<T> {}

impl<T> fmt::Debug for ManagedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("len", &self.len)
            .finish()
    }
}

impl<T: DeviceCopy> ManagedBuffer<T> {
    /// `len` zeroed elements of managed memory.
    pub fn new(ctx: &Arc<Context>, len: usize) -> Result<Self> {
        ctx.bind_to_thread()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::InvalidArgument(format!("{len} elements overflow")))?;
        if bytes > ctx.total_memory() {
            // Managed memory beyond the device's size is legal for the driver, but asking for
            // more than the card has can hang the GPU on some systems: refused here.
            return Err(Error::InvalidArgument(format!(
                "managed allocation of {bytes} bytes ({len} elements) is larger than device {}'s \
                 {} bytes",
                ctx.ordinal(),
                ctx.total_memory()
            )));
        }
        let mut ptr = 0;
        if bytes > 0 {
            // SAFETY: valid out-pointer; CU_MEM_ATTACH_GLOBAL is a valid flag.
            unsafe {
                drv!(cuMemAllocManaged(
                    &mut ptr,
                    bytes,
                    sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL.0
                ))
            }?;
            // SAFETY: `ptr` holds `bytes` bytes just allocated; synchronous memset.
            if let Err(e) = unsafe { drv!(cuMemsetD8_v2(ptr, 0, bytes)) } {
                // SAFETY: `ptr` came from cuMemAllocManaged and is not used further.
                let _ = unsafe { sys::cuMemFree_v2(ptr) };
                return Err(e);
            }
        }
        let tracker = Tracker::new_host_visible(ctx.clone());
        // The zeroing above may return before it is done: the first host access waits.
        tracker.host_sync().mark();
        Ok(ManagedBuffer {
            ptr,
            len,
            tracker,
            _marker: PhantomData,
        })
    }

    /// Managed memory holding a copy of `src` (written from the host).
    pub fn from_slice(ctx: &Arc<Context>, src: &[T]) -> Result<Self> {
        let mut b = Self::new(ctx, src.len())?;
        b.as_mut_slice()?.copy_from_slice(src);
        Ok(b)
    }
}

impl<T> ManagedBuffer<T> {
    /// Whether device work may still use the memory (its tracker's: graph launches mark it).
    #[inline]
    fn host_sync(&self) -> &HostSync {
        self.tracker.host_sync()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Waits for device work that may still use this memory (synchronising its context, only
    /// when device access was handed out since the last wait).
    pub fn wait(&self) -> Result<()> {
        self.host_sync()
            .wait(self.tracker.context(), "managed buffer")
    }

    /// The contents on the host, after waiting for device work.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait()?;
        if self.len == 0 {
            return Ok(&[]);
        }
        // SAFETY: managed memory is host-addressable at the same address; `len` initialised
        // elements; no device work is pending (waited above; writers need `&mut self`).
        Ok(unsafe { std::slice::from_raw_parts(self.ptr as usize as *const T, self.len) })
    }

    /// The contents on the host, writable, after waiting for device work.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        if self.len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: as above, and `&mut self` excludes every other access.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr as usize as *mut T, self.len) })
    }

    /// Migrates the pages to `to`, stream-ordered on `stream`.
    pub fn prefetch(&self, to: MemLocation, stream: &Stream) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        stream.context().bind_to_thread()?;
        self.host_sync().mark();
        // SAFETY: a live managed range and stream; flags 0.
        unsafe {
            drv!(cuMemPrefetchAsync_v2(
                self.ptr,
                self.len * std::mem::size_of::<T>(),
                to.raw(),
                0,
                stream.raw()
            ))
        }
    }

    /// Gives the driver usage advice about the whole buffer for `location`.
    pub fn advise(&self, advice: MemAdvice, location: MemLocation) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        self.tracker.context().bind_to_thread()?;
        // SAFETY: a live managed range; advice and location are valid enum values.
        unsafe {
            drv!(cuMemAdvise_v2(
                self.ptr,
                self.len * std::mem::size_of::<T>(),
                advice.raw(),
                location.raw()
            ))
        }
    }
}

impl<T> super::tracker::sealed::Sealed for ManagedBuffer<T> {}
impl<T> DeviceRead<T> for ManagedBuffer<T> {
    /// The device address. Taking it counts as device use: the next host access waits.
    #[inline]
    fn device_ptr(&self) -> CUdeviceptr {
        self.host_sync().mark();
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
impl<T> DeviceWrite<T> for ManagedBuffer<T> {}

impl<T> Drop for ManagedBuffer<T> {
    fn drop(&mut self) {
        if self.ptr == 0 {
            return;
        }
        let ptr = self.ptr;
        // Run now, or once the last graph that uses the memory is gone (see `tracker.rs`).
        self.tracker
            .set_release(Release::Other(Box::new(move |ctx: &Context| {
                ctx.free_after_sync(
                    "free of a ManagedBuffer",
                    Box::new(move || {
                        // SAFETY: `ptr` came from cuMemAllocManaged and no device work uses it
                        // any more (the context was synchronised first).
                        unsafe { drv!(cuMemFree_v2(ptr)) }
                    }),
                );
            })));
    }
}
