//! Interop: arrays and raw CUDA in one program (ArrayFire's CUDA interop chapter, done with
//! no copies and no extra synchronisation), DLPack, and ndarray.
//!
//! # ArrayFire's CUDA interop, in cuprite-array
//!
//! | ArrayFire                     | cuprite-array                                               |
//! |-------------------------------|-------------------------------------------------------------|
//! | `Array::new_from_device_ptr`  | [`Array::new_from_device_ptr`] (unsafe, takes ownership)     |
//! | `Array::device_ptr`           | [`Array::device_ptr`] (evaluates, locks)                     |
//! | `Array::lock` / `unlock`      | [`Array::lock`], [`Array::unlock`], [`Array::is_locked`]     |
//! | `get_device` / `set_device`   | [`get_device`](crate::get_device), [`set_device`](crate::set_device) |
//! | `get_device_native_id`        | [`get_device_native_id`], [`set_device_native_id`]           |
//! | `get_stream`                  | [`get_stream`](crate::get_stream): the array stream itself   |
//! | `eval`, `sync`                | [`Array::eval`], [`sync`](crate::sync)                       |
//!
//! and the safe forms: [`Array::from_buffer`] (a [`DeviceBuffer`] becomes an array, no copy),
//! [`Array::device_view`] (a tracked, read-only [`DeviceView`] for kernel arguments; the array is
//! locked while it lives), [`Array::into_buffer`] (the sole owner gets the buffer back).
//!
//! # Ownership rules
//!
//! ArrayFire shows two ways of making an array from device memory. In cuprite-array:
//!
//! 1. **From a [`DeviceBuffer`]**: [`Array::from_buffer`] moves the buffer into the array. No
//!    copy, no `unsafe`, no `lock` needed: the library owns it from then on and frees it
//!    (stream-ordered) when the last array using it is dropped. The buffer keeps its stream
//!    tracking, so work that another stream still has pending on it is waited for (on the
//!    device) by the first array kernel that reads it. [`Array::into_buffer`] gives it back.
//! 2. **From a raw allocation** (`cuMemAlloc`, `cuMemAllocAsync`, another library):
//!    `unsafe` [`Array::new_from_device_ptr`] takes ownership: the pointer must be the start of
//!    an allocation of the array device's primary context, or of that device's default
//!    stream-ordered memory pool (the one the library allocates from), large enough for the
//!    shape, with no
//!    pending work on other streams (finish pending CUDA work first), and nobody
//!    else may free it. The library frees it when the last array is dropped, unless the array
//!    is locked then (see below). A null, misaligned, host, other-device or other-context
//!    pointer, memory of another pool, memory of neither a context nor a pool,
//!    one that is not the start of a large enough allocation, or a shape whose byte count
//!    overflows, is an `Err` (the function's Safety section lists what is checked).
//!
//! **Locking.** [`Array::lock`] (and [`Array::device_ptr`], which implies it) tells the library
//! to neither free nor reuse the memory: when the last array is dropped the memory is left to
//! the caller, who then frees it (e.g. `cuMemFree`, or
//! [`DeviceBuffer::from_raw_parts`](cuprite_driver::DeviceBuffer::from_raw_parts) to let cuprite
//! free it). [`Array::unlock`] gives control back to the library. `unlock` on memory the library
//! never owned (an array imported through DLPack, whose memory goes back to its producer through
//! the DLPack deleter; or a CPU-backend array) is safe: it only clears the flag, and the
//! library still never frees that memory itself. `unlock` on an unlocked array does nothing.
//!
//! **Streams.** Array work of a device runs on its array stream ([`get_stream`](crate::get_stream)),
//! or on the stream a thread chose with [`with_stream`](crate::with_stream) (which also adopts
//! a foreign stream wrapped with [`Stream::from_raw`]). A kernel launched on that stream over
//! array memory needs no synchronisation at all; on any other stream, passing arrays as
//! [`device_view`](Array::device_view)s (or buffers made with `from_buffer`) lets the driver
//! layer's tracking order the work, with one device-side wait and no host synchronisation.
//! [`stats`](fn@stats) and [`thread_stats`] count host synchronisations and cross-stream waits.

pub mod dlpack;
#[cfg(feature = "ndarray")]
mod ndarray;
mod view;

pub use cuprite_driver::{Stats, stats, thread_stats};
pub use dlpack::{
    DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPackTensor, DLPackVersion,
    DLTensor, consumer_stream_handle,
};
pub use view::ArrayDeviceView;

use crate::array::Array;
use crate::device::{Backend, Device, current_device, device_count};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::runtime::state;
use crate::shape::{Layout, checked_numel, numel};
use crate::storage::Storage;
use crate::storage::{DevBuf, Foreign};
use cuprite_driver::pointer::Owner;
use cuprite_driver::{DeviceBuffer, DeviceView, Stream};
use std::sync::Arc;

/// The native (CUDA) device ordinal of array device `id` of the CUDA backend. In
/// cuprite-array they are the same numbers; ids out of range are an `Err`.
///
/// ```
/// // With no GPU, every id is out of range.
/// if cuprite_array::default_backend_name() == "cpu" {
///     assert!(cuprite_array::interop::get_device_native_id(0).is_err());
/// }
/// ```
pub fn get_device_native_id(id: usize) -> Result<i32> {
    let n = cuda_devices();
    if id >= n {
        return Err(Error::InvalidArgument(format!(
            "array device {id} does not exist: the CUDA backend has {n} device(s)"
        )));
    }
    Ok(id as i32)
}

/// Makes the array device whose CUDA ordinal is `native` this thread's current device (and
/// the CUDA backend this thread's backend).
pub fn set_device_native_id(native: i32) -> Result<()> {
    let n = cuda_devices();
    if native < 0 || native as usize >= n {
        return Err(Error::InvalidArgument(format!(
            "CUDA device {native} does not exist: {n} device(s) present"
        )));
    }
    if current_device().backend != Backend::Cuda {
        crate::device::set_backend(Backend::Cuda)?;
    }
    crate::device::set_device(native as usize)
}

fn cuda_devices() -> usize {
    if current_device().backend == Backend::Cuda {
        device_count()
    } else {
        cuprite_driver::Device::count().unwrap_or(0)
    }
}

/// Checks that `ptr` is the start of a device allocation of CUDA device `ordinal` holding at
/// least `bytes`, owned either by that device's primary context (the array library's) or by its
/// default stream-ordered pool (the one the library allocates from).
fn check_device_pointer(ptr: u64, bytes: usize, align: usize, ordinal: usize) -> Result<()> {
    if ptr == 0 {
        return Err(Error::InvalidArgument("a null device pointer".into()));
    }
    if ptr % align as u64 != 0 {
        return Err(Error::InvalidArgument(format!(
            "device pointer {ptr:#x} is not aligned to {align} bytes"
        )));
    }
    let st = state(ordinal)?;
    let info = cuprite_driver::pointer::pointer_info(ptr).map_err(|e| {
        Error::InvalidArgument(format!("{ptr:#x} is not memory CUDA knows of ({e})"))
    })?;
    if info.memory_type != cuprite_driver::pointer::MemoryType::Device {
        return Err(Error::InvalidArgument(format!(
            "{ptr:#x} is not device memory (CUDA memory type {:?})",
            info.memory_type
        )));
    }
    if info.device_ordinal != ordinal {
        return Err(Error::DeviceMismatch(format!(
            "{ptr:#x} is memory of CUDA device {}, the array would live on device {ordinal}",
            info.device_ordinal
        )));
    }
    match info.owner() {
        Owner::Context if info.in_other_context(&st.ctx) => {
            return Err(Error::DeviceMismatch(format!(
                "{ptr:#x} was allocated in another context of CUDA device {ordinal}, not in \
                 its primary context (the array library's)"
            )));
        }
        Owner::Context => {}
        // Pool memory belongs to a device's pool, not to a context: usable (and freeable with
        // cuMemFreeAsync) from the primary context when the pool lets the device read and write.
        Owner::Pool => {
            // Another pool (one an owned context made, or a library's) may be destroyed by its
            // owner while the array still holds its memory: only the pool the array library
            // allocates from itself, which lives as long as the device, is taken.
            if !info.from_pool_of(&st.ctx) {
                return Err(Error::DeviceMismatch(format!(
                    "{ptr:#x} comes from a stream-ordered memory pool other than the default \
                     pool of CUDA device {ordinal} (the one the array library allocates \
                     from): its owner could destroy the pool while the array holds the memory"
                )));
            }
            if !info.pool_grants_read_write(ordinal)? {
                return Err(Error::DeviceMismatch(format!(
                    "{ptr:#x} comes from a stream-ordered memory pool that does not grant CUDA \
                     device {ordinal} read-write access"
                )));
            }
        }
        Owner::Neither => {
            return Err(Error::InvalidArgument(format!(
                "{ptr:#x} is owned by neither a context nor a stream-ordered memory pool (a \
                 virtual memory mapping?): the library could not free it"
            )));
        }
    }
    if info.base != ptr {
        return Err(Error::InvalidArgument(format!(
            "{ptr:#x} is {} bytes into an allocation; only the start of one can be owned",
            ptr - info.base
        )));
    }
    if info.size < bytes {
        return Err(Error::InvalidArgument(format!(
            "the allocation at {ptr:#x} has {} bytes, the shape needs {bytes}",
            info.size
        )));
    }
    Ok(())
}

/// The single CUDA device buffer behind a materialised, contiguous array.
fn cuda_leaf(node: &Arc<Node>) -> Result<(Arc<Storage>, Layout)> {
    let (s, l) = node
        .leaf()
        .ok_or_else(|| Error::InvalidArgument("the array is not evaluated".into()))?;
    match &*s {
        Storage::Cuda(_) => Ok((s, l)),
        Storage::Host(_) => Err(Error::DeviceMismatch(format!(
            "the array lives on the CPU backend ({}), not in device memory",
            node.device
        ))),
    }
}

impl<T: Element> Array<T> {
    /// Makes an array of `shape` from device memory at `ptr`, taking ownership: the library
    /// frees it when the last array using it is dropped (unless locked then). On this thread's
    /// current CUDA device. See the [module docs](crate::interop) for the rules.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use cuprite_array::Array;
    /// let stream = cuprite_array::get_stream(0)?;
    /// let buf = stream.clone_htod(&[1.0f32; 100])?; // a cuprite allocation...
    /// let ptr = buf.leak();                          // ...given up as a raw pointer
    /// // SAFETY: the start of a 400-byte allocation of device 0, owned by no one else.
    /// let a = unsafe { Array::<f32>::new_from_device_ptr(ptr as *mut f32, &[10, 10]) }?;
    /// assert_eq!(a.sum()?.item()?, 100.0);
    /// # Ok(()) }
    /// ```
    ///
    /// # Safety
    ///
    /// `ptr` must be the start of a device allocation of the current device (checked), of at
    /// least `shape`'s size (checked, with the byte count checked for overflow), holding valid
    /// values of `T`, owned by no one else from now on, with no work pending on it on streams
    /// other than the array stream, and freeable with `cuMemFreeAsync` (or `cuMemFree` where
    /// the context does not use memory pools).
    ///
    /// What the driver can tell is checked, and a failure is an `Err`: the pointer is not null,
    /// is aligned for `T`, is device memory (not host, managed or array memory) of the current
    /// device, is the start of its allocation, and the allocation holds `shape`'s bytes. The
    /// allocation's owner must be either the device's primary context (memory of another
    /// context is refused: the driver names the context) or the device's default stream-ordered
    /// memory pool, the one the library allocates from (`cuMemAllocAsync` while the primary
    /// context is current; the driver names the pool and no context). Memory of any other pool
    /// (an owned context's, a library's own) is refused: its owner could destroy the pool while
    /// the array holds the memory. Memory with neither owner (e.g. a
    /// `cuMemMap` mapping) is refused. Not checked: the values, other owners, pending work.
    pub unsafe fn new_from_device_ptr(ptr: *mut T, shape: &[usize]) -> Result<Self> {
        // Checked first: a byte count that wrapped would pass the allocation-size check below.
        let bytes = checked_numel(shape)
            .ok()
            .and_then(|n| n.checked_mul(T::DTYPE.size()))
            .ok_or_else(|| {
                Error::Shape(format!(
                    "new_from_device_ptr: shape {shape:?} of {} needs more bytes than fit in \
                     memory",
                    T::DTYPE
                ))
            })?;
        let device = current_device();
        if device.backend != Backend::Cuda {
            return Err(Error::DeviceMismatch(format!(
                "new_from_device_ptr needs a CUDA device, this thread's device is {device}"
            )));
        }
        check_device_pointer(ptr as u64, bytes, std::mem::align_of::<T>(), device.ordinal)?;
        let stream = crate::runtime::stream_for(device.ordinal)?;
        // SAFETY: the caller's contract (checked above as far as the driver can tell: device
        // memory of this context's device, the start of an allocation of at least `bytes`).
        let buf = unsafe { DeviceBuffer::<u8>::from_raw_parts(ptr as u64, bytes, &stream) };
        Ok(Self::adopt_buffer(buf, shape, device.ordinal, None))
    }

    pub(crate) fn adopt_buffer(
        buf: DeviceBuffer<u8>,
        shape: &[usize],
        ordinal: usize,
        foreign: Option<Foreign>,
    ) -> Self {
        Self::adopt_buffer_with(
            buf,
            numel(shape),
            Layout::contiguous(shape),
            shape,
            ordinal,
            foreign,
        )
    }

    pub(crate) fn adopt_buffer_with(
        buf: DeviceBuffer<u8>,
        len: usize,
        layout: Layout,
        shape: &[usize],
        ordinal: usize,
        foreign: Option<Foreign>,
    ) -> Self {
        let d = DevBuf::adopt(buf, T::DTYPE, len, ordinal, foreign);
        Self::from_storage(
            Arc::new(Storage::Cuda(d)),
            layout,
            shape,
            Device::cuda(ordinal),
        )
    }

    /// Makes an array of `shape` from a device buffer, without a copy: the array owns it from
    /// now on (see [`into_buffer`](Self::into_buffer) to get it back). The buffer's stream
    /// tracking stays: work still pending on it on other streams is waited for by the first
    /// array kernel that reads it (on the device). A length that does not fit `shape`, or a
    /// buffer of another context than the array library's (the device's primary context), is
    /// an `Err`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use cuprite_array::Array;
    /// let stream = cuprite_array::get_stream(0)?;
    /// let buf = stream.clone_htod(&[1.0f32, 2.0, 3.0, 4.0])?;
    /// let a = Array::from_buffer(buf, &[2, 2])?;
    /// assert_eq!((&a * 2.0).to_vec()?, vec![2.0, 4.0, 6.0, 8.0]);
    /// # Ok(()) }
    /// ```
    pub fn from_buffer(buf: DeviceBuffer<T>, shape: &[usize]) -> Result<Self>
    where
        T: bytemuck::Pod,
    {
        let n = checked_numel(shape)?;
        if buf.len() != n {
            return Err(Error::Shape(format!(
                "a device buffer of {} element(s) cannot make an array of shape {shape:?} ({n} \
                 elements)",
                buf.len()
            )));
        }
        let ordinal = buf.context().ordinal();
        // The array library works in each device's primary context.
        if !buf.context().is_primary() {
            return Err(Error::DeviceMismatch(format!(
                "the buffer belongs to another context than the array library's on device \
                 {ordinal} (its primary context)"
            )));
        }
        let bytes = buf.try_cast::<u8>().map_err(|_| {
            Error::InvalidArgument("a buffer that cannot be viewed as bytes".into())
        })?;
        Ok(Self::adopt_buffer(bytes, shape, ordinal, None))
    }

    /// Gives the device buffer back when this array is its only user (no clones, no views, no
    /// pending lazy work using it), contiguous, unlocked, and owned by the library (not a
    /// DLPack import); otherwise the array comes back unchanged as `Err`. No copy.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use cuprite_array::Array;
    /// let a = Array::<f32>::ones(&[8]) * 3.0;
    /// let b = a.clone();
    /// let a = a.into_buffer().unwrap_err(); // shared with b
    /// drop(b);
    /// let buf = a.into_buffer().expect("sole owner");
    /// assert_eq!(buf.len(), 8);
    /// # Ok(()) }
    /// ```
    #[allow(clippy::result_large_err)]
    pub fn into_buffer(self) -> std::result::Result<DeviceBuffer<T>, Self>
    where
        T: bytemuck::Pod,
    {
        if Arc::strong_count(&self.node) != 1 || (!self.node.is_leaf() && self.eval().is_err()) {
            return Err(self);
        }
        let Ok((s, l)) = cuda_leaf(&self.node) else {
            return Err(self);
        };
        let n = self.len();
        let fits = match &*s {
            Storage::Cuda(d) => {
                d.interop.foreign.is_none()
                    && !d.locked.load(std::sync::atomic::Ordering::Acquire)
                    && d.len() == n
            }
            Storage::Host(_) => false,
        };
        // The node's own reference and ours: nobody else shares the storage.
        if !fits || l.offset != 0 || !l.is_contiguous(self.shape()) || Arc::strong_count(&s) != 2 {
            return Err(self);
        }
        self.node.set_op(Op::Const(T::default().to_scalar()));
        // Each step below succeeds by the checks above (two owners, of which the node let go;
        // CUDA storage, unlocked and not foreign, and nobody else to lock it since). Should one
        // fail, the array gets its storage back and is returned unchanged.
        let restore = |s: Arc<Storage>| self.node.set_op(Op::Leaf(s, l.clone()));
        let storage = match Arc::try_unwrap(s) {
            Ok(storage) => storage,
            Err(s) => {
                restore(s);
                return Err(self);
            }
        };
        let mut d = match storage {
            Storage::Cuda(d) => d,
            host => {
                restore(Arc::new(host));
                return Err(self);
            }
        };
        let Some(buf) = d.take_buffer() else {
            restore(Arc::new(Storage::Cuda(d)));
            return Err(self);
        };
        drop(d);
        Ok(buf
            .try_cast::<T>()
            .unwrap_or_else(|_| unreachable!("array buffers are allocated aligned for T")))
    }

    /// Evaluates the array (made contiguous in place when it is a strided view), locks its
    /// memory (see [`lock`](Self::lock)) and returns the device address of its first element.
    /// The memory is read-only for the caller: other arrays may share it.
    ///
    /// Use the pointer on the array stream ([`get_stream`](crate::get_stream)) with no
    /// synchronisation; on another stream, [`sync`](crate::sync) first, or better use
    /// [`device_view`](Self::device_view), which the stream tracking orders for you.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let a = cuprite_array::Array::<f32>::ones(&[16]);
    /// let p = a.device_ptr()?;
    /// assert!(p != 0 && a.is_locked());
    /// a.unlock()?;
    /// # Ok(()) }
    /// ```
    pub fn device_ptr(&self) -> Result<u64> {
        let (s, l) = self.materialise_contiguous()?;
        s.set_locked(self.device(), true);
        match &*s {
            Storage::Cuda(d) => Ok(d.ptr() + (l.offset * T::DTYPE.size()) as u64),
            Storage::Host(_) => unreachable!("cuda_leaf checked"),
        }
    }

    /// Evaluates; when the array is a strided view, replaces its (equal) data with a contiguous
    /// copy. Only ever replaces a non-contiguous leaf, so a view handed out earlier (always of a
    /// contiguous leaf) stays valid.
    pub(crate) fn materialise_contiguous(&self) -> Result<(Arc<Storage>, Layout)> {
        if !self.node.is_leaf() {
            self.eval()?;
        }
        let (s, l) = cuda_leaf(&self.node)?;
        if l.is_contiguous(self.shape()) && l.offset + self.len() <= s.len() {
            return Ok((s, l));
        }
        let c = self.contiguous_storage()?;
        self.node
            .set_op(Op::Leaf(c.clone(), Layout::contiguous(self.shape())));
        Ok((c, Layout::contiguous(self.shape())))
    }

    /// Makes an array of `shape` that uses the memory of `view` as read by the array stream
    /// after the tracked writes to it: a copy (device to device, on the array stream). For
    /// borrowed memory that the array must not own.
    pub fn from_device_view(view: &DeviceView<'_, T>, shape: &[usize]) -> Result<Self>
    where
        T: cuprite_driver::DeviceCopy + bytemuck::Pod,
    {
        let n = checked_numel(shape)?;
        if view.len() != n {
            return Err(Error::Shape(format!(
                "a device view of {} element(s) cannot make an array of shape {shape:?}",
                view.len()
            )));
        }
        let ordinal = view.context().ordinal();
        let stream = crate::runtime::stream_for(ordinal)?;
        let copy: DeviceBuffer<T> = stream.clone_dtod(view)?;
        let bytes = copy
            .try_cast::<u8>()
            .unwrap_or_else(|_| unreachable!("any buffer fits u8"));
        Ok(Self::adopt_buffer(bytes, shape, ordinal, None))
    }
}

/// The stream array work of CUDA device `ordinal` goes to on this thread: the array stream, or
/// the one chosen with [`with_stream`](crate::with_stream).
pub fn current_stream(ordinal: usize) -> Result<Arc<Stream>> {
    crate::runtime::stream_for(ordinal)
}
