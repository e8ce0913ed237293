//! The calling thread's context stack (RustaCUDA's model): [`ContextStack`], [`CurrentContext`]
//! and the non-owning [`UnownedContext`]. Owns the calls that act on whichever context is
//! current; it never creates or destroys one.

use super::config::{
    CacheConfig, ContextFlags, ResourceLimit, SharedMemoryConfig, StreamPriorityRange,
};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::{drv, init};
use cuprite_sys::driver::{self as sys, CUcontext};

/// The seal of [`ContextHandle`]: a public trait in a private module, so no crate outside this
/// one can name it and therefore none can implement [`ContextHandle`].
pub(crate) mod sealed {
    /// Implemented only by this crate's context types, whose handles name live contexts.
    pub trait Sealed {}
}

/// Something that names a context: [`Context`](crate::Context) or [`UnownedContext`] (RustaCUDA's sealed
/// `ContextHandle`).
///
/// The trait is sealed: [`ContextStack::push`] and [`CurrentContext::set_current`] hand
/// [`raw_context`](ContextHandle::raw_context) to the driver, so only this crate's types, whose
/// handles come from the driver, may implement it. An implementation elsewhere does not compile:
///
/// ```compile_fail
/// use cuprite_driver::ContextHandle;
/// use cuprite_driver::sys::driver::CUcontext;
///
/// struct Forged;
/// impl ContextHandle for Forged {
///     fn raw_context(&self) -> CUcontext {
///         0x1234 as CUcontext
///     }
/// }
/// ```
///
/// Reading a handle's raw value is allowed:
///
/// ```no_run
/// use cuprite_driver::{Context, ContextHandle, ContextStack};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = Context::new(0)?;
/// assert!(!ctx.raw_context().is_null());
/// ContextStack::push(&ctx)?;
/// # Ok(())
/// # }
/// ```
pub trait ContextHandle: sealed::Sealed {
    /// The driver's handle.
    fn raw_context(&self) -> CUcontext;
}

/// A non-owning handle to a context, from [`Context::get_unowned`](crate::Context::get_unowned) or
/// [`CurrentContext::get_current`]. Using it after its context was destroyed makes driver calls
/// fail with an error (never undefined behaviour in cuprite's own calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnownedContext {
    raw: CUcontext,
}

// SAFETY: a driver context handle is usable from any thread.
unsafe impl Send for UnownedContext {}
// SAFETY: as above.
unsafe impl Sync for UnownedContext {}

impl UnownedContext {
    /// Wraps a driver handle without owning it.
    pub(crate) fn from_raw(raw: CUcontext) -> Self {
        UnownedContext { raw }
    }

    /// The driver's handle.
    pub fn raw(&self) -> CUcontext {
        self.raw
    }

    /// The driver's API version of this context.
    pub fn api_version(&self) -> Result<u32> {
        let mut v = 0;
        // SAFETY: valid out-pointer; an invalid handle yields an error status.
        unsafe { drv!(cuCtxGetApiVersion(self.raw, &mut v)) }?;
        Ok(v)
    }
}

impl sealed::Sealed for UnownedContext {}

impl ContextHandle for UnownedContext {
    fn raw_context(&self) -> CUcontext {
        self.raw
    }
}

/// The calling thread's context stack (RustaCUDA's `ContextStack`).
#[derive(Debug)]
pub struct ContextStack;

impl ContextStack {
    /// Pushes `ctx` on the calling thread's stack, making it current.
    pub fn push(ctx: &impl ContextHandle) -> Result<()> {
        init()?;
        // SAFETY: the handle names a context kept alive by its owner.
        unsafe { drv!(cuCtxPushCurrent_v2(ctx.raw_context())) }
    }

    /// Pops the current context off the calling thread's stack and returns it.
    pub fn pop() -> Result<UnownedContext> {
        init()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxPopCurrent_v2(&mut raw)) }?;
        Ok(UnownedContext { raw })
    }
}

/// The calling thread's current context (RustaCUDA's `CurrentContext`).
#[derive(Debug)]
pub struct CurrentContext;

impl CurrentContext {
    /// The current context, or `None` when the thread has none.
    pub fn get_current() -> Result<Option<UnownedContext>> {
        init()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetCurrent(&mut raw)) }?;
        Ok((!raw.is_null()).then_some(UnownedContext { raw }))
    }

    /// Replaces the top of the calling thread's stack with `ctx`.
    pub fn set_current(ctx: &impl ContextHandle) -> Result<()> {
        init()?;
        // SAFETY: the handle names a context kept alive by its owner.
        unsafe { drv!(cuCtxSetCurrent(ctx.raw_context())) }
    }

    /// The device of the current context.
    pub fn get_device() -> Result<Device> {
        let mut d = 0;
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetDevice(&mut d)) }?;
        Device::all()?
            .into_iter()
            .find(|x| x.raw() == d)
            .ok_or_else(|| Error::InvalidArgument(format!("unknown device handle {d}")))
    }

    /// The flags of the current context.
    pub fn get_flags() -> Result<ContextFlags> {
        let mut f = 0;
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetFlags(&mut f)) }?;
        Ok(ContextFlags::from_bits(f))
    }

    /// One resource limit of the current context.
    pub fn get_resource_limit(limit: ResourceLimit) -> Result<usize> {
        let mut v = 0;
        // SAFETY: valid out-pointer and limit selector.
        unsafe { drv!(cuCtxGetLimit(&mut v, limit.raw())) }?;
        Ok(v)
    }

    /// Sets one resource limit of the current context.
    pub fn set_resource_limit(limit: ResourceLimit, value: usize) -> Result<()> {
        // SAFETY: plain values.
        unsafe { drv!(cuCtxSetLimit(limit.raw(), value)) }
    }

    /// The L1/shared preference of the current context.
    pub fn get_cache_config() -> Result<CacheConfig> {
        let mut c = sys::CUfunc_cache::default();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetCacheConfig(&mut c)) }?;
        CacheConfig::from_raw(c).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the driver reported an unknown cache config {}",
                c.0
            ))
        })
    }

    /// Sets the L1/shared preference of the current context.
    pub fn set_cache_config(config: CacheConfig) -> Result<()> {
        // SAFETY: plain value.
        unsafe { drv!(cuCtxSetCacheConfig(config.raw())) }
    }

    /// The shared-memory bank size of the current context.
    pub fn get_shared_memory_config() -> Result<SharedMemoryConfig> {
        let mut c = sys::CUsharedconfig::default();
        // SAFETY: valid out-pointer.
        unsafe { drv!(cuCtxGetSharedMemConfig(&mut c)) }?;
        SharedMemoryConfig::from_raw(c).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the driver reported an unknown shared-memory config {}",
                c.0
            ))
        })
    }

    /// Sets the shared-memory bank size of the current context.
    pub fn set_shared_memory_config(config: SharedMemoryConfig) -> Result<()> {
        // SAFETY: plain value.
        unsafe { drv!(cuCtxSetSharedMemConfig(config.raw())) }
    }

    /// The stream priority range of the current context.
    pub fn get_stream_priority_range() -> Result<StreamPriorityRange> {
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: valid out-pointers.
        unsafe { drv!(cuCtxGetStreamPriorityRange(&mut least, &mut greatest)) }?;
        Ok(StreamPriorityRange { least, greatest })
    }
}
