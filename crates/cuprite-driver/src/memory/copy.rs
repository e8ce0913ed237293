//! Allocation, copies and memsets on a [`Stream`]: [`Stream::alloc`] and friends, host-to-device,
//! device-to-host and device-to-device copies (between contexts too), and memsets.
//!
//! This module owns allocation policy (stream-ordered pool allocation, synchronous fallback,
//! out-of-memory trim-and-retry) and copies. Ordering between streams is decided by
//! `track.rs`; this module only declares each operation's accesses.

use super::device::DeviceBuffer;
use super::tracker::{Access, DeviceRead, DeviceWrite, Tracker};
use super::{DeviceCopy, HostDst, HostSrc};
use crate::drv;
use crate::error::{Error, Result};
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUdeviceptr};
use std::mem::size_of;
use std::sync::Arc;

/// Bytes every device allocation of [`Stream::alloc`] holds beyond those asked for, before
/// rounding up to a multiple of [`ALLOC_GRAIN`]. Library kernels may read whole vectors or
/// tiles of an operand past its last byte and discard what they read there (compute-sanitizer
/// found a cuDNN graph-API bf16 implicit-GEMM engine reading 64 bytes past a 96-byte operand);
/// with the slack those reads stay inside the allocation, so they neither fault nor leave
/// memory cuprite owns. `CUPRITE_ALLOC_EXACT=1` turns the slack off, so that
/// compute-sanitizer sees every read past a buffer's end.
const ALLOC_SLACK: usize = 512;

/// The granule device allocations are rounded up to (the block size of PyTorch's caching
/// allocator, which cuDNN's engines are tested behind).
const ALLOC_GRAIN: usize = 512;

/// The bytes allocated for a buffer of `bytes`: `bytes` plus [`ALLOC_SLACK`], rounded up to
/// [`ALLOC_GRAIN`] (`bytes` itself where `exact`); `None` where that overflows.
fn padded_alloc(bytes: usize, exact: bool) -> Option<usize> {
    if exact {
        return Some(bytes);
    }
    bytes
        .checked_add(ALLOC_SLACK)?
        .checked_next_multiple_of(ALLOC_GRAIN)
}

/// Whether `CUPRITE_ALLOC_EXACT=1` asked for allocations without slack (read once).
fn alloc_exact() -> bool {
    static EXACT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *EXACT.get_or_init(|| std::env::var("CUPRITE_ALLOC_EXACT").is_ok_and(|v| v == "1"))
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
    /// then returns [`Error::OutOfMemory`]; the context stays usable. The allocation holds at
    /// least 512 bytes past the buffer's end, in whole 512-byte granules (unless
    /// `CUPRITE_ALLOC_EXACT=1`), which library kernels that read past their operands' ends
    /// (cuDNN's, for one) land in; the buffer itself is `len` elements.
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
        if crate::capture::any_active() {
            // Allocated inside a capture: an allocation node of that capture's graph.
            tracker.set_graph_alloc(crate::capture::capture_of(self.track_id()));
        }
        let pooled = ctx.uses_memory_pool();
        if bytes == 0 {
            return Ok(DeviceBuffer::from_alloc(
                0,
                len,
                tracker,
                self.clone(),
                pooled,
            ));
        }
        let access = [Access::of_tracker(&tracker, true)];
        self.begin_access(&access)?;
        let ptr = self.alloc_bytes(bytes, pooled)?;
        let buf = DeviceBuffer::from_alloc(ptr, len, tracker, self.clone(), pooled);
        self.end_access(&[Access::write(&buf)])?;
        Ok(buf)
    }

    fn alloc_bytes(&self, bytes: usize, pooled: bool) -> Result<CUdeviceptr> {
        crate::fault::check(crate::fault::FaultPoint::DeviceAlloc)?;
        let ctx = self.context();
        let Some(held) = padded_alloc(bytes, alloc_exact()) else {
            let (free, total) = ctx.mem_info()?;
            return Err(Error::OutOfMemory {
                requested: bytes,
                free,
                total,
            });
        };
        if held > ctx.total_memory() {
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
                unsafe { drv!(cuMemAllocAsync(&mut p, held, self.raw())) }?;
            } else if pooled {
                // SAFETY: valid out-pointer; the context's own pool and a live stream of it.
                unsafe {
                    drv!(cuMemAllocFromPoolAsync(
                        &mut p,
                        held,
                        ctx.raw_memory_pool(),
                        self.raw()
                    ))
                }?;
            } else {
                // SAFETY: valid out-pointer; the context is current.
                unsafe { drv!(cuMemAlloc_v2(&mut p, held)) }?;
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

    /// cudarc's stream-level name of [`clone_htod`](Self::clone_htod).
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

    /// cudarc 0.9's `htod_copy`: a new device buffer filled from `src`, which it takes by value so
    /// that the host does not wait: the `Vec` is kept alive until the copy is done (a host
    /// function on this stream drops it).
    /// On a capturing stream it is an `Err` and nothing is enqueued or allocated: the host
    /// function that keeps `src` alive cannot be captured.
    pub fn htod_copy<T: DeviceCopy>(self: &Arc<Self>, src: Vec<T>) -> Result<DeviceBuffer<T>> {
        if crate::capture::capture_of(self.track_id()) != 0 {
            return Err(Error::InvalidArgument(format!(
                "Stream::htod_copy of {} elements: the stream is capturing a graph, and the host \
                 function that keeps the source alive until the copy is done cannot be \
                 captured (copy from a buffer made before the capture, or use memcpy_htod)",
                src.len()
            )));
        }
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

    /// cudarc 0.9's `sync_reclaim`: copies `buf` to a `Vec` (waiting) and frees it.
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

    /// cudarc's stream-level name of [`clone_dtoh`](Self::clone_dtoh).
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

    /// Copies each `src` of `copies` into its `dst` (same length per pair, else `Err` before
    /// anything is enqueued), all under one declared access set: the stream waits once for the
    /// conflicting work on other streams and records one event for every copy, where as many
    /// [`memcpy_dtod`](Self::memcpy_dtod) calls would each wait and record. Copies between
    /// contexts go one by one through `memcpy_dtod`.
    ///
    /// ```no_run
    /// use cuprite_driver::Context;
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = Context::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let (a, b) = (stream.clone_htod(&[1u8, 2])?, stream.clone_htod(&[3u8, 4, 5])?);
    /// let (mut c, mut d) = (stream.alloc_zeros::<u8>(2)?, stream.alloc_zeros::<u8>(3)?);
    /// stream.memcpy_dtod_batch(&mut [(&a, &mut c), (&b, &mut d)])?;
    /// assert_eq!(stream.clone_dtoh(&c)?, [1, 2]);
    /// assert_eq!(stream.clone_dtoh(&d)?, [3, 4, 5]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// A pair whose lengths differ (naming its index and both lengths), a byte count that
    /// overflows, or the driver's error.
    pub fn memcpy_dtod_batch<T, S, D>(&self, copies: &mut [(&S, &mut D)]) -> Result<()>
    where
        T: DeviceCopy,
        S: DeviceRead<T> + ?Sized,
        D: DeviceWrite<T> + ?Sized,
    {
        let ctx = self.context();
        let mut local = true;
        for (i, (src, dst)) in copies.iter().enumerate() {
            if src.len() != dst.len() {
                return Err(Error::InvalidArgument(format!(
                    "memcpy_dtod_batch: copy {i} has a source of {} elements and a destination \
                     of {}",
                    src.len(),
                    dst.len()
                )));
            }
            bytes_of::<T>(src.len())?;
            local &= Arc::ptr_eq(src.tracker().context(), ctx)
                && Arc::ptr_eq(dst.tracker().context(), ctx);
        }
        if !local {
            for (src, dst) in copies.iter_mut() {
                self.memcpy_dtod(*src, *dst)?;
            }
            return Ok(());
        }
        if copies.iter().all(|(src, _)| src.is_empty()) {
            return Ok(());
        }
        ctx.bind_to_thread()?;
        let ptrs: Vec<(CUdeviceptr, CUdeviceptr, usize)> = copies
            .iter_mut()
            .map(|(src, dst)| (src.device_ptr(), dst.device_ptr_mut(), src.num_bytes()))
            .collect();
        let acc: Vec<Access<'_>> = copies
            .iter()
            .flat_map(|(src, dst)| [Access::read(*src), Access::write(&**dst)])
            .collect();
        self.begin_access(&acc)?;
        let mut r = Ok(());
        for &(sptr, dptr, bytes) in &ptrs {
            if bytes == 0 {
                continue;
            }
            // SAFETY: both ranges are live allocations of this context holding `bytes` bytes
            // (same length, checked above); ordering with other streams is set up above.
            r = unsafe { drv!(cuMemcpyDtoDAsync_v2(dptr, sptr, bytes, self.raw())) };
            if r.is_err() {
                break;
            }
        }
        // What was enqueued is recorded even when a later copy failed.
        let recorded = self.end_access(&acc);
        r?;
        recorded
    }

    /// Writes the 64-bit `value` into the 8 bytes of `dst` with two 32-bit memsets: no copy
    /// from host memory, so nothing to stage or keep alive. `Err` unless `dst` is 8 bytes at a
    /// 4-byte-aligned address.
    ///
    /// ```no_run
    /// use cuprite_driver::Context;
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = Context::new(0)?;
    /// let stream = ctx.new_stream()?;
    /// let mut word = stream.alloc_zeros::<u64>(1)?;
    /// stream.write_u64(&mut word, 0x0123_4567_89ab_cdef)?;
    /// assert_eq!(stream.clone_dtoh(&word)?, [0x0123_4567_89ab_cdef]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// A destination of another size or alignment (naming both), or the driver's error.
    pub fn write_u64<T, D: DeviceWrite<T> + ?Sized>(&self, dst: &mut D, value: u64) -> Result<()> {
        let bytes = dst.num_bytes();
        let ptr = dst.device_ptr_mut();
        if bytes != 8 || ptr % 4 != 0 {
            return Err(Error::InvalidArgument(format!(
                "write_u64: the destination is {bytes} bytes at {ptr:#x}; it must be 8 bytes at \
                 a 4-byte-aligned address"
            )));
        }
        self.context().bind_to_thread()?;
        let acc = [Access::write(&*dst)];
        self.begin_access(&acc)?;
        // Little-endian halves: the low word first.
        let lo = value as u32;
        let hi = (value >> 32) as u32;
        // SAFETY: one 32-bit value at `ptr` and one at `ptr + 4`, both inside the 8 aligned
        // bytes of `dst` (checked above); ordering with other streams is set up above.
        let r = unsafe { drv!(cuMemsetD32Async(ptr, lo, 1, self.raw())) }.and_then(|()| {
            // SAFETY: as above, the second half.
            unsafe { drv!(cuMemsetD32Async(ptr + 4, hi, 1, self.raw())) }
        });
        let recorded = self.end_access(&acc);
        r?;
        recorded
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

#[cfg(test)]
mod slack_tests {
    use super::{ALLOC_GRAIN, ALLOC_SLACK, padded_alloc};

    #[test]
    fn allocations_hold_their_slack_in_whole_granules() {
        // The 96-byte operand a cuDNN engine read 64 bytes past.
        assert_eq!(padded_alloc(96, false), Some(1024));
        assert_eq!(padded_alloc(512, false), Some(1024));
        assert_eq!(padded_alloc(513, false), Some(1536));
        assert_eq!(padded_alloc(1, false), Some(1024));
        for b in [1usize, 95, 4096, (1 << 30) + 7, usize::MAX / 2] {
            let p = padded_alloc(b, false).unwrap();
            assert!(
                p >= b + ALLOC_SLACK && p < b + ALLOC_SLACK + ALLOC_GRAIN,
                "{b} -> {p}"
            );
            assert_eq!(p % ALLOC_GRAIN, 0);
        }
        // Exact where asked, and `None` where the slack overflows.
        assert_eq!(padded_alloc(96, true), Some(96));
        assert_eq!(padded_alloc(usize::MAX - 100, false), None);
        assert_eq!(padded_alloc(usize::MAX - ALLOC_SLACK - 10, false), None);
    }
}
