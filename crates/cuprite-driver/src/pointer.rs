//! What the driver knows about an address: its memory type, its device, its context and the
//! allocation it lies in. For checking pointers handed over by other libraries.

use crate::context::Context;
use crate::drv;
use crate::error::{Error, Result};
use cuprite_sys::driver::{
    CUcontext, CUmemAccess_flags, CUmemLocation, CUmemLocationType, CUmemoryPool, CUmemorytype,
    CUpointer_attribute,
};

/// The kind of memory an address refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryType {
    /// Page-locked host memory registered with or allocated by CUDA.
    Host,
    /// Device memory.
    Device,
    /// A CUDA array.
    Array,
    /// Managed (unified) memory.
    Unified,
}

/// What [`pointer_info`] found out about an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerInfo {
    /// The kind of memory.
    pub memory_type: MemoryType,
    /// The ordinal of the device the memory belongs to.
    pub device_ordinal: usize,
    /// The address of the first byte of the allocation holding the address.
    pub base: u64,
    /// The size in bytes of that allocation.
    pub size: usize,
    context: CUcontext,
    pool: CUmemoryPool,
}

/// What owns an allocation, as the driver reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A context (`cuMemAlloc` and the like): the driver names it.
    Context,
    /// A stream-ordered memory pool (`cuMemAllocAsync`, `cuMemAllocFromPoolAsync`): the driver
    /// names the pool and no context.
    Pool,
    /// Neither (e.g. managed memory, or a virtual memory mapping of `cuMemMap`).
    Neither,
}

// SAFETY: the context handle is only compared, never used to call the driver; the pool handle
// is only passed to `cuMemPoolGetAccess`, which any thread may call.
unsafe impl Send for PointerInfo {}
// SAFETY: as above.
unsafe impl Sync for PointerInfo {}

impl PointerInfo {
    /// Whether the memory belongs to another context than `ctx` (a primary context and an
    /// owned context of the same device are different contexts). Memory the driver ties to no
    /// context (stream-ordered pool allocations, managed memory) belongs to no other context.
    pub fn in_other_context(&self, ctx: &Context) -> bool {
        !self.context.is_null() && self.context != ctx.raw()
    }

    /// Whether the memory came from the stream-ordered pool that `ctx` allocates from (a
    /// primary context's is its device's default pool, which lives as long as the device; an
    /// owned context's is its own, destroyed with it). `false` for memory of no pool, of
    /// another pool, or where `ctx` uses no pool.
    pub fn from_pool_of(&self, ctx: &Context) -> bool {
        !self.pool.is_null() && ctx.pool_raw() == Some(self.pool)
    }

    /// What owns the allocation: a context, a stream-ordered pool, or neither.
    pub fn owner(&self) -> Owner {
        if !self.context.is_null() {
            Owner::Context
        } else if !self.pool.is_null() {
            Owner::Pool
        } else {
            Owner::Neither
        }
    }

    /// Whether device `ordinal` may read and write the memory of the stream-ordered pool the
    /// allocation came from (`cuMemPoolGetAccess`: a pool always grants its own device; other
    /// devices only what `cuMemPoolSetAccess` gave them). `Ok(false)` for memory of no pool.
    ///
    /// ```no_run
    /// use cuprite_driver::pointer::{Owner, pointer_info};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let buf = ctx.default_stream().alloc_zeros::<f32>(256)?;
    /// let info = pointer_info(cuprite_driver::DeviceRead::device_ptr(&buf))?;
    /// if info.owner() == Owner::Pool {
    ///     assert!(info.pool_grants_read_write(0)?);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn pool_grants_read_write(&self, ordinal: usize) -> Result<bool> {
        if self.pool.is_null() {
            return Ok(false);
        }
        let id = i32::try_from(ordinal).map_err(|_| {
            Error::InvalidArgument(format!("device ordinal {ordinal} does not fit a CUDA id"))
        })?;
        let mut location = CUmemLocation {
            type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id,
        };
        let mut flags = CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE;
        // SAFETY: valid out-pointer and location; the pool outlives the allocation that named
        // it (a pool with allocations outstanding is released only after they are freed).
        unsafe { drv!(cuMemPoolGetAccess(&mut flags, self.pool, &mut location)) }?;
        Ok(flags == CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
    }

    /// Whether `[ptr, ptr + bytes)` lies inside the allocation.
    pub fn contains(&self, ptr: u64, bytes: usize) -> bool {
        let end = self.base.checked_add(self.size as u64);
        let want = ptr.checked_add(bytes as u64);
        match (end, want) {
            (Some(end), Some(want)) => ptr >= self.base && want <= end,
            _ => false,
        }
    }
}

fn attribute<V: Default>(attr: CUpointer_attribute, ptr: u64) -> Result<V> {
    let mut v = V::default();
    // SAFETY: `v` is a valid out-pointer of the size the attribute writes (the callers pick `V`
    // per attribute: u32 for the memory type and the ordinal, a pointer for the context); the
    // driver validates `ptr`.
    unsafe { drv!(cuPointerGetAttribute((&mut v as *mut V).cast(), attr, ptr)) }?;
    Ok(v)
}

/// Asks the driver about `ptr`, an address in device, managed or registered host memory.
/// An address CUDA does not know is an `Err` (the driver's `INVALID_VALUE`), as is null.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let buf = ctx.default_stream().alloc_zeros::<f32>(256)?;
/// let info = cuprite_driver::pointer::pointer_info(cuprite_driver::DeviceRead::device_ptr(&buf))?;
/// assert_eq!(info.memory_type, cuprite_driver::pointer::MemoryType::Device);
/// assert!(!info.in_other_context(&ctx) && info.size >= 1024);
/// # Ok(()) }
/// ```
pub fn pointer_info(ptr: u64) -> Result<PointerInfo> {
    if ptr == 0 {
        return Err(Error::InvalidArgument("a null device pointer".into()));
    }
    crate::init()?;
    let ty: u32 = attribute(CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr)?;
    let memory_type = match CUmemorytype(ty) {
        CUmemorytype::CU_MEMORYTYPE_HOST => MemoryType::Host,
        CUmemorytype::CU_MEMORYTYPE_DEVICE => MemoryType::Device,
        CUmemorytype::CU_MEMORYTYPE_ARRAY => MemoryType::Array,
        CUmemorytype::CU_MEMORYTYPE_UNIFIED => MemoryType::Unified,
        other => {
            return Err(Error::InvalidArgument(format!(
                "{ptr:#x}: the driver reports an unknown memory type {}",
                other.0
            )));
        }
    };
    let ordinal: u32 = attribute(
        CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        ptr,
    )?;
    let context: CUcontext =
        attribute::<usize>(CUpointer_attribute::CU_POINTER_ATTRIBUTE_CONTEXT, ptr)
            .map(|c| c as CUcontext)
            .unwrap_or(std::ptr::null_mut());
    // Drivers before the attribute existed report an error: then no pool is known.
    let pool: CUmemoryPool = attribute::<usize>(
        CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
        ptr,
    )
    .map(|p| p as CUmemoryPool)
    .unwrap_or(std::ptr::null_mut());
    let (mut base, mut size) = (0u64, 0usize);
    // SAFETY: both are valid out-pointers; the driver validates `ptr`.
    unsafe { drv!(cuMemGetAddressRange_v2(&mut base, &mut size, ptr)) }?;
    Ok(PointerInfo {
        memory_type,
        device_ordinal: ordinal as usize,
        base,
        size,
        context,
        pool,
    })
}
