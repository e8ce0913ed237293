//! Array buffers: host memory (the CPU backend), device memory (the CUDA backend), and memory
//! another library owns (a DLPack import), with the lock flag and the allocation statistics.
//!
//! A buffer only holds bytes; how they are read (dtype, layout) is the graph's business.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use cuprite_driver::{Access, DeviceBuffer, Stream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Materialised element data.
pub(crate) enum Storage {
    /// Host memory (the CPU backend).
    Host(crate::storage::HostBuf),
    /// Device memory (the CUDA backend).
    Cuda(DevBuf),
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Storage::Host(h) => write!(f, "Host({} x {})", h.len(), h.dtype()),
            Storage::Cuda(d) => write!(f, "Cuda({} x {})", d.len(), d.dtype()),
        }
    }
}

impl Storage {
    fn lock_flag(&self) -> &std::sync::atomic::AtomicBool {
        match self {
            Storage::Host(h) => &h.locked,
            Storage::Cuda(d) => &d.locked,
        }
    }

    pub fn is_locked(&self) -> bool {
        self.lock_flag().load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn set_locked(&self, device: Device, on: bool) {
        if let (true, Storage::Cuda(d)) = (on, self) {
            d.exposed.store(true, std::sync::atomic::Ordering::Release);
        }
        let was = self
            .lock_flag()
            .swap(on, std::sync::atomic::Ordering::AcqRel);
        let bytes = self.len() * self.dtype().size();
        match (was, on) {
            (false, true) => crate::memory::on_lock(device, bytes),
            (true, false) => crate::memory::on_unlock(device, bytes),
            _ => {}
        }
    }

    /// Whether this device memory was ever locked (a raw pointer, a device view or a DLPack
    /// export handed out): work the library does not track may have used it, so only a free
    /// ordered on the stream it belongs to may hand it to other work.
    #[cfg(feature = "capture")]
    pub fn was_exposed(&self) -> bool {
        match self {
            Storage::Host(_) => false,
            Storage::Cuda(d) => d.exposed.load(std::sync::atomic::Ordering::Acquire),
        }
    }

    /// Whether this memory is `device`'s: host memory for the CPU, the same GPU for CUDA.
    pub fn is_on(&self, device: Device) -> bool {
        match self {
            Storage::Host(_) => device.backend == crate::device::Backend::Cpu,
            Storage::Cuda(d) => {
                device.backend == crate::device::Backend::Cuda && d.ordinal() == device.ordinal
            }
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            Storage::Host(h) => h.dtype(),
            Storage::Cuda(d) => d.dtype(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Storage::Host(h) => h.len(),
            Storage::Cuda(d) => d.len(),
        }
    }
}

/// A host buffer of `len` elements of `dtype`, 8-byte aligned.
pub(crate) struct HostBuf {
    words: Vec<u64>,
    len: usize,
    dtype: DType,
    pub(crate) locked: std::sync::atomic::AtomicBool,
}

impl Drop for HostBuf {
    fn drop(&mut self) {
        let bytes = self.len * self.dtype.size();
        crate::memory::on_free(Device::CPU, bytes);
        if self.locked.load(std::sync::atomic::Ordering::Acquire) {
            // Locked memory is the user's: never freed or reused by the library.
            std::mem::forget(std::mem::take(&mut self.words));
            crate::memory::on_unlock(Device::CPU, bytes);
        } else {
            kept::keep(std::mem::take(&mut self.words));
        }
    }
}

/// Large host buffers kept after their array is dropped, for the next buffer of the same size.
/// Fresh memory comes from the system zeroed but is faulted in page by page at first touch,
/// from whichever threads write it first; clearing a kept buffer on every core costs less.
/// Bounded (a few buffers, 256 MiB); [`release_kept`] frees them (`device_gc` of the CPU).
mod kept {
    use rayon::prelude::*;
    use std::sync::Mutex;

    /// Buffers below 4 MiB (in 8-byte words) are not kept.
    const MIN_WORDS: usize = (4 << 20) / 8;
    const MAX_WORDS: usize = (256 << 20) / 8;
    const MAX_BUFFERS: usize = 4;

    static KEPT: Mutex<Vec<Vec<u64>>> = Mutex::new(Vec::new());

    /// A kept buffer of exactly `n` words, cleared to zero.
    pub(super) fn take(n: usize) -> Option<Vec<u64>> {
        if n < MIN_WORDS {
            return None;
        }
        let mut v = {
            let mut k = KEPT.lock().unwrap_or_else(|e| e.into_inner());
            let i = k.iter().position(|v| v.len() == n)?;
            k.swap_remove(i)
        };
        v.par_chunks_mut(1 << 15).for_each(|c| c.fill(0));
        Some(v)
    }

    /// Keeps `v` (oldest kept buffers dropped first to stay within the bounds).
    pub(super) fn keep(v: Vec<u64>) {
        if v.len() < MIN_WORDS || v.len() > MAX_WORDS {
            return;
        }
        let mut k = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        while !k.is_empty()
            && (k.len() >= MAX_BUFFERS
                || k.iter().map(Vec::len).sum::<usize>() + v.len() > MAX_WORDS)
        {
            k.remove(0);
        }
        k.push(v);
    }

    /// Frees every kept buffer.
    pub(crate) fn release() {
        KEPT.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// Frees the host buffers kept for reuse (see `kept`).
pub(crate) fn release_kept_host() {
    kept::release();
}

impl HostBuf {
    /// `len` zeroed elements of `dtype`; an `Err` (not an abort) when the size overflows or
    /// the host has not that much memory.
    pub fn zeroed(dtype: DType, len: usize) -> Result<HostBuf> {
        let bytes = byte_size(dtype, len)?;
        let n = bytes.div_ceil(8);
        let too_big = || {
            crate::Error::InvalidArgument(format!(
                "cannot allocate {bytes} bytes of host memory for {len} elements of {dtype}"
            ))
        };
        let words = if n == 0 {
            Vec::new()
        } else if let Some(v) = kept::take(n) {
            v
        } else {
            let layout = std::alloc::Layout::array::<u64>(n).map_err(|_| too_big())?;
            // SAFETY: `layout` has a non-zero size (n > 0).
            let p = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u64>();
            if p.is_null() {
                return Err(too_big());
            }
            // SAFETY: `p` was allocated by the global allocator with the layout of `n` u64s
            // (so capacity `n`), and all-zero bytes are `n` valid u64 values. Zeroed pages come
            // from the system lazily (as `vec![0; n]` does), not written here.
            unsafe { Vec::from_raw_parts(p, n, n) }
        };
        crate::memory::on_alloc(Device::CPU, bytes);
        Ok(HostBuf {
            words,
            len,
            dtype,
            locked: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub fn from_bytes(dtype: DType, len: usize, bytes: &[u8]) -> Result<HostBuf> {
        let mut b = HostBuf::zeroed(dtype, len)?;
        let dst = b.bytes_mut();
        if dst.len() != bytes.len() {
            return Err(crate::Error::InvalidArgument(format!(
                "{} bytes given for {len} elements of {dtype} ({} bytes)",
                bytes.len(),
                dst.len()
            )));
        }
        dst.copy_from_slice(bytes);
        Ok(b)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[..self.len * self.dtype.size()]
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let n = self.len * self.dtype.size();
        &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..n]
    }
}

/// Device memory of one array buffer.
pub(crate) struct DevBuf {
    buf: Option<DeviceBuffer<u8>>,
    len: usize,
    dtype: DType,
    ordinal: usize,
    /// Locked by the user: the manager never frees or reuses it (see `lock`).
    pub(crate) locked: AtomicBool,
    /// Set when first locked, never cleared (see [`Storage::was_exposed`]).
    exposed: AtomicBool,
    /// Interop state (see `crate::interop`): live device views, and for memory owned by
    /// another library (DLPack import) the keeper it is released through (never freed here).
    pub(crate) interop: BufState,
    /// Kept by [`park`] and counted as freed there: not counted again when it drops. Set and
    /// cleared only while the storage has no other owner (atomic so that clearing needs no
    /// exclusive borrow).
    parked: AtomicBool,
}

impl DevBuf {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn ptr(&self) -> u64 {
        self.buf.as_ref().map(|b| b.device_ptr_raw()).unwrap_or(0)
    }
    /// The allocation, or an `Err` once it was handed back (by `Array::into_buffer`; only a
    /// storage with no other owner gives its buffer away, so a live array never sees this).
    pub(crate) fn buffer(&self) -> Result<&DeviceBuffer<u8>> {
        self.buf.as_ref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "a device buffer of {} {} element(s) that was handed back (into_buffer)",
                self.len, self.dtype
            ))
        })
    }
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }
    /// Interop hook: an array buffer made of an existing allocation (counted as allocated).
    pub(crate) fn adopt(
        buf: DeviceBuffer<u8>,
        dtype: DType,
        len: usize,
        ordinal: usize,
        foreign: Option<Foreign>,
    ) -> DevBuf {
        crate::memory::on_alloc(Device::cuda(ordinal), len * dtype.size());
        DevBuf {
            buf: Some(buf),
            len,
            dtype,
            ordinal,
            locked: AtomicBool::new(false),
            exposed: AtomicBool::new(false),
            interop: BufState::new(foreign),
            parked: AtomicBool::new(false),
        }
    }
    /// Interop hook: takes the allocation out (the buffer then drops as empty).
    pub(crate) fn take_buffer(&mut self) -> Option<DeviceBuffer<u8>> {
        if self.interop.foreign.is_some()
            || self.locked.load(Ordering::Acquire)
            || self.buf.as_ref().is_some_and(|b| b.is_sub_allocation())
        {
            // A part of a compiled program's arena is not an allocation of its own.
            return None;
        }
        self.buf.take()
    }
}

trait RawPtr {
    fn device_ptr_raw(&self) -> u64;
}
impl RawPtr for DeviceBuffer<u8> {
    fn device_ptr_raw(&self) -> u64 {
        cuprite_driver::DeviceRead::<u8>::device_ptr(self)
    }
}

impl DevBuf {
    /// A new buffer of `len` elements of `dtype` on `stream` of the device of `st`.
    ///
    /// # Safety
    /// The memory is not initialised: the caller writes all of it before anything reads it.
    pub(crate) unsafe fn alloc(
        st: &crate::runtime::DeviceState,
        stream: &Arc<Stream>,
        dtype: DType,
        len: usize,
    ) -> Result<DevBuf> {
        let bytes = byte_size(dtype, len)?;
        // SAFETY: the caller's contract.
        let buf = unsafe { crate::runtime::alloc_raw(st, stream, bytes) }?;
        crate::memory::on_alloc(Device::cuda(st.ordinal), bytes);
        Ok(DevBuf {
            buf: Some(buf),
            len,
            dtype,
            ordinal: st.ordinal,
            locked: AtomicBool::new(false),
            exposed: AtomicBool::new(false),
            interop: BufState::default(),
            parked: AtomicBool::new(false),
        })
    }

    /// The allocation, when there is one (`None` only while a buffer is handed back).
    pub(crate) fn live(&self) -> Option<&DeviceBuffer<u8>> {
        self.buf.as_ref()
    }

    /// The allocation, mutable (for a copy into it).
    pub(crate) fn buffer_mut(&mut self) -> Option<&mut DeviceBuffer<u8>> {
        self.buf.as_mut()
    }
}

/// The bytes of `len` elements of `dtype`, or an `Err` naming both when that overflows.
pub(crate) fn byte_size(dtype: DType, len: usize) -> Result<usize> {
    len.checked_mul(dtype.size()).ok_or_else(|| {
        crate::Error::InvalidArgument(format!(
            "{len} elements of {dtype} do not fit in the address space"
        ))
    })
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        let bytes = self.len * self.dtype.size();
        if !*self.parked.get_mut() {
            crate::memory::on_free(Device::cuda(self.ordinal), bytes);
        }
        if let Some(b) = self.buf.take() {
            if let Some(f) = self.interop.foreign.take() {
                // Another library's memory: handed back to it after our last use.
                release_foreign(b, f);
                if self.locked.load(Ordering::Acquire) {
                    crate::memory::on_unlock(Device::cuda(self.ordinal), bytes);
                }
                return;
            }
            if self.locked.load(Ordering::Acquire) {
                // The user holds this memory: it is neither freed nor reused.
                let _ = b.leak();
                crate::memory::on_unlock(Device::cuda(self.ordinal), bytes);
                return;
            }
            // Otherwise kept for reuse, or dropped: a stream-ordered free after its last use.
            crate::runtime::recycle(self.ordinal, b);
        }
    }
}

/// The calling thread's last dropped small device buffer, kept whole (its `Storage` with it)
/// for the thread's next result of the same byte size on the same device: a loop of small
/// operations hands one result's storage to the next without allocating or freeing anything.
/// Only memory the library owns alone qualifies (no other reference, not locked, not foreign,
/// on the device's array stream, at most the size a thread keeps); it counts as freed while it
/// is kept. Reuse is stream-ordered as for any kept buffer (see `crate::runtime`). Dropped
/// when another buffer takes its place, when the thread ends, and by [`drop_parked`].
struct Parked(Option<Arc<Storage>>);

thread_local! {
    static PARKED: std::cell::RefCell<Parked> = const { std::cell::RefCell::new(Parked(None)) };
}

/// Keeps `s` (the storage of a dropped leaf) as the thread's parked buffer when it qualifies
/// (see [`Parked`]); drops it otherwise.
pub(crate) fn park(s: Arc<Storage>) {
    // Host storage never qualifies: no thread-local touched for it.
    if !matches!(&*s, Storage::Cuda(_)) {
        return;
    }
    let mut s = Some(s);
    let _ = PARKED.try_with(|p| {
        let Ok(mut p) = p.try_borrow_mut() else {
            return;
        };
        let Some(Storage::Cuda(d)) = s.as_mut().and_then(Arc::get_mut) else {
            return;
        };
        let qualifies = !*d.parked.get_mut()
            && d.interop.foreign.is_none()
            && !*d.locked.get_mut()
            && d.buf
                .as_ref()
                .is_some_and(|b| crate::runtime::parkable(d.ordinal, b));
        if !qualifies {
            return;
        }
        crate::memory::on_free(Device::cuda(d.ordinal), d.len * d.dtype.size());
        *d.parked.get_mut() = true;
        let old = std::mem::replace(&mut p.0, s.take());
        drop(p);
        drop(old);
    });
    drop(s);
}

/// The thread's parked storage as a buffer of `len` elements of `dtype` on device `ordinal`,
/// when it has exactly that many bytes there (counted as allocated again).
///
/// # Safety
/// As for [`DevBuf::alloc`]: the memory holds an earlier array's bytes; the caller writes all
/// of it before anything reads it.
pub(crate) unsafe fn take_parked(ordinal: usize, dtype: DType, len: usize) -> Option<Arc<Storage>> {
    if crate::runtime::capturing() {
        // A captured graph would keep the parked buffer's address (see `runtime::take_free`).
        return None;
    }
    let bytes = len.checked_mul(dtype.size())?;
    let mut s = PARKED
        .try_with(|p| {
            let mut p = p.try_borrow_mut().ok()?;
            let fits = matches!(p.0.as_deref(), Some(Storage::Cuda(d))
                if d.ordinal == ordinal && d.len * d.dtype.size() == bytes);
            if fits { p.0.take() } else { None }
        })
        .ok()
        .flatten()?;
    match &*s {
        // The same elements again (a loop of one operation): only the flag changes.
        Storage::Cuda(d) if d.dtype == dtype && d.len == len => {
            d.parked.store(false, Ordering::Relaxed)
        }
        _ => {
            // Unique since it was parked: nothing else ever sees a parked storage.
            let Some(Storage::Cuda(d)) = Arc::get_mut(&mut s) else {
                return None;
            };
            d.dtype = dtype;
            d.len = len;
            *d.parked.get_mut() = false;
        }
    }
    crate::memory::on_alloc(Device::cuda(ordinal), bytes);
    Some(s)
}

/// Drops the calling thread's parked storage if it is on device `ordinal` (its buffer then
/// goes the way of any dropped buffer).
pub(crate) fn drop_parked(ordinal: usize) {
    let s = PARKED
        .try_with(|p| {
            let mut p = p.try_borrow_mut().ok()?;
            match p.0.as_deref() {
                Some(Storage::Cuda(d)) if d.ordinal == ordinal => p.0.take(),
                _ => None,
            }
        })
        .ok()
        .flatten();
    drop(s);
}

/// The interop state of one device buffer of the array library.
#[derive(Default)]
pub(crate) struct BufState {
    /// Set for memory another library owns (a DLPack import).
    pub(crate) foreign: Option<Foreign>,
    /// Live [`ArrayDeviceView`]s of the buffer.
    pub(crate) views: std::sync::atomic::AtomicU32,
    /// Whether the views locked the buffer (it was unlocked when the first one was made).
    pub(crate) view_locked: std::sync::atomic::AtomicBool,
}

impl BufState {
    pub(crate) fn new(foreign: Option<Foreign>) -> BufState {
        BufState {
            foreign,
            ..BufState::default()
        }
    }
}

/// The keeper of memory another library owns (a DLPack import): released through it after the
/// array library's last use of the memory, never freed by the library.
pub(crate) struct Foreign {
    release: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl Foreign {
    pub(crate) fn new(release: impl FnOnce() + Send + 'static) -> Foreign {
        Foreign {
            release: Mutex::new(Some(Box::new(release))),
        }
    }
}

/// Hands foreign memory back to its owner: the buffer's stream first waits (on the device) for
/// pending uses on other streams, the host waits for that stream only when it still has work,
/// then the owner's release runs. Never frees the memory itself.
pub(crate) fn release_foreign(buf: DeviceBuffer<u8>, f: Foreign) {
    let stream = buf.stream().clone();
    // Errors here cannot be returned (this runs in Drop); the memory goes back to its owner in
    // any case so that it is not leaked.
    let acc = [Access::write(&buf)];
    if stream.begin_access(&acc).is_ok() && !stream.is_idle().unwrap_or(false) {
        let _ = stream.synchronize();
    }
    let _ = buf.leak();
    let r = f.release.lock().ok().and_then(|mut g| g.take());
    if let Some(r) = r {
        r();
    }
}
