//! The stream-ordered memory pool of a context: the device's default pool for a primary
//! context, a pool of its own for an owned one; its release threshold, statistics and trimming.
//!
//! It owns the pool handle and the choice between pool and synchronous allocation. It never
//! binds a context: callers make the pool's context current first.

use crate::device::{Device, DeviceAttribute};
use crate::drv;
use crate::error::{Error, Result};
use cuprite_sys::driver::{self as sys, CUmemoryPool};
use std::sync::atomic::{AtomicBool, Ordering};

/// Statistics of the device's stream-ordered memory pool, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Memory the pool holds from the device now (used + cached).
    pub reserved: u64,
    /// High-water mark of `reserved` since the last reset.
    pub reserved_high: u64,
    /// Memory handed out to live allocations now.
    pub used: u64,
    /// High-water mark of `used` since the last reset.
    pub used_high: u64,
}

/// The pool a context allocates from (null where the device has no pools), and whether new
/// allocations use it.
#[derive(Debug)]
pub(crate) struct MemoryPool {
    raw: CUmemoryPool,
    /// Created for an owned context, and destroyed with it.
    owned: bool,
    enabled: AtomicBool,
}

impl MemoryPool {
    /// The pool for a context of `device` (the current one): the default pool for the primary
    /// context, a new pool otherwise, so that memory an owned context cached is never handed to
    /// another context after it is gone. Its release threshold keeps all freed memory cached.
    pub(crate) fn for_context(device: Device, primary: bool) -> Result<MemoryPool> {
        if device.attribute(DeviceAttribute::MemoryPoolsSupported)? == 0 {
            return Ok(MemoryPool {
                raw: std::ptr::null_mut(),
                owned: false,
                enabled: AtomicBool::new(false),
            });
        }
        let mut raw = std::ptr::null_mut();
        if primary {
            // SAFETY: valid out-pointer and device handle.
            unsafe { drv!(cuDeviceGetDefaultMemPool(&mut raw, device.raw())) }?;
        } else {
            let props = sys::CUmemPoolProps {
                allocType: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
                handleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
                location: sys::CUmemLocation {
                    type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: device.raw(),
                },
                win32SecurityAttributes: std::ptr::null_mut(),
                maxSize: 0,
                usage: 0,
                gpuDirectRDMACapable: 0,
                reserved: [0; 53],
            };
            // SAFETY: valid out-pointer and a fully initialised properties struct.
            unsafe { drv!(cuMemPoolCreate(&mut raw, &props)) }?;
        }
        let pool = MemoryPool {
            raw,
            owned: !primary,
            enabled: AtomicBool::new(true),
        };
        if let Err(e) = pool.set_release_threshold(u64::MAX) {
            let mut pool = pool;
            pool.destroy_if_owned();
            return Err(e);
        }
        Ok(pool)
    }

    /// The driver's handle (null where pools are unsupported).
    pub(crate) fn raw(&self) -> CUmemoryPool {
        self.raw
    }

    /// Whether new allocations are stream-ordered on this pool.
    #[inline]
    pub(crate) fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Chooses pool or synchronous allocation; `Err` when asking for a pool that does not
    /// exist (device `ordinal` has none).
    pub(crate) fn set_enabled(&self, enabled: bool, ordinal: usize) -> Result<()> {
        if enabled && self.raw.is_null() {
            return Err(Error::InvalidArgument(format!(
                "device {ordinal} does not support stream-ordered memory pools"
            )));
        }
        self.enabled.store(enabled, Ordering::Relaxed);
        Ok(())
    }

    fn attr(&self, attr: sys::CUmemPool_attribute) -> Result<u64> {
        let mut v: u64 = 0;
        // SAFETY: these attributes are u64-valued; `v` is a valid out-pointer; the pool lives as
        // long as this object.
        unsafe {
            drv!(cuMemPoolGetAttribute(
                self.raw,
                attr,
                (&mut v as *mut u64).cast()
            ))
        }?;
        Ok(v)
    }

    fn set_attr(&self, attr: sys::CUmemPool_attribute, value: u64) -> Result<()> {
        let mut v = value;
        // SAFETY: the attributes set here are u64-valued; `v` is a valid pointer.
        unsafe {
            drv!(cuMemPoolSetAttribute(
                self.raw,
                attr,
                (&mut v as *mut u64).cast()
            ))
        }
    }

    /// Statistics; all zero without a pool.
    pub(crate) fn stats(&self) -> Result<PoolStats> {
        if self.raw.is_null() {
            return Ok(PoolStats::default());
        }
        use sys::CUmemPool_attribute as A;
        Ok(PoolStats {
            reserved: self.attr(A::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
            reserved_high: self.attr(A::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH)?,
            used: self.attr(A::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
            used_high: self.attr(A::CU_MEMPOOL_ATTR_USED_MEM_HIGH)?,
        })
    }

    /// The release threshold (0 without a pool).
    pub(crate) fn release_threshold(&self) -> Result<u64> {
        if self.raw.is_null() {
            return Ok(0);
        }
        self.attr(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    }

    /// Sets the release threshold (nothing without a pool).
    pub(crate) fn set_release_threshold(&self, bytes: u64) -> Result<()> {
        if self.raw.is_null() {
            return Ok(());
        }
        self.set_attr(
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            bytes,
        )
    }

    /// Releases cached memory down to `keep_bytes`.
    pub(crate) fn trim(&self, keep_bytes: usize) -> Result<()> {
        if self.raw.is_null() {
            return Ok(());
        }
        // SAFETY: the pool lives as long as this object.
        unsafe { drv!(cuMemPoolTrimTo(self.raw, keep_bytes)) }
    }

    /// Resets the high-water marks to the current values.
    pub(crate) fn reset_high_water(&self) -> Result<()> {
        if self.raw.is_null() {
            return Ok(());
        }
        use sys::CUmemPool_attribute as A;
        // Zero is the one value the high-water attributes accept: it resets them.
        self.set_attr(A::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0)?;
        self.set_attr(A::CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0)
    }

    /// The pool's handle; `None` where the device has no pools.
    pub(crate) fn raw_handle(&self) -> Option<sys::CUmemoryPool> {
        (!self.raw.is_null()).then_some(self.raw)
    }

    /// Destroys a pool created for an owned context. Call only once every allocation of it was
    /// freed and those frees completed.
    pub(crate) fn destroy_if_owned(&mut self) {
        if self.owned && !self.raw.is_null() {
            // SAFETY: the pool was created for this context and nothing of it is in use
            // (the caller's contract).
            let _ = unsafe { sys::cuMemPoolDestroy(self.raw) };
            self.raw = std::ptr::null_mut();
        }
    }
}
