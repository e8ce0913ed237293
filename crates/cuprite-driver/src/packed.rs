//! Launches with pre-built argument words: for code generators that lay out every kernel
//! parameter as one 8-byte word (pointers, 64-bit integers, doubles, or smaller values padded)
//! and declare the buffers the kernel reads and writes, so that cross-stream tracking orders
//! the launch as it does a [`LaunchArgs`](crate::LaunchArgs) launch.

use crate::drv;
use crate::error::{Error, Result};
use crate::memory::Access;
use crate::module::Function;
use crate::stream::Stream;
use cuprite_sys::driver as sys;
use std::ffi::c_void;

/// Words kept on the stack for a packed launch; more go to the heap.
const INLINE_WORDS: usize = 32;

/// The launch attribute of a packed launch.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Attr {
    Plain,
    Programmatic,
    Cooperative,
}

impl Stream {
    /// Launches `func` over `grid` blocks of `block` threads with `shared_bytes` of dynamic
    /// shared memory; parameter `i` is `words[i]` (each parameter 8 bytes). `accesses` lists
    /// every buffer the kernel touches, so that work on other streams is ordered with it.
    ///
    /// Checked: the function belongs to this stream's context, the number of words matches the
    /// kernel's parameters and each parameter is 8 bytes (where the driver can tell), the
    /// launch dimensions are not zero. Where the driver told the sizes, the words go to it as
    /// one parameter block.
    ///
    /// # Safety
    /// Each word is a valid value for its parameter: every device address in `words` points to
    /// memory of this context that the kernel may access over the whole range it touches, and
    /// that memory is one of `accesses` (or otherwise kept alive and ordered by the caller)
    /// until the kernel has run.
    ///
    /// ```no_run
    /// # fn main() -> cuprite_driver::Result<()> {
    /// use cuprite_driver::{Access, DeviceRead};
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let m = ctx.load_module(cuprite_driver::compile_ptx(
    ///     r#"extern "C" __global__ void fill(float *x, unsigned long long n) {
    ///            unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
    ///            if (i < n) x[i] = 7.0f; }"#,
    /// )?)?;
    /// let f = m.load_function("fill")?;
    /// let s = ctx.new_stream()?;
    /// let buf = s.alloc_zeros::<f32>(1000)?;
    /// let words = [buf.device_ptr(), 1000u64];
    /// // SAFETY: the pointer is `buf`'s, 1000 elements long, declared as written.
    /// unsafe { s.launch_packed(&f, (4, 1, 1), (256, 1, 1), 0, &words, &[Access::write(&buf)]) }?;
    /// assert!(s.clone_dtoh(&buf)?.iter().all(|&v| v == 7.0));
    /// # Ok(()) }
    /// ```
    #[inline]
    pub unsafe fn launch_packed(
        &self,
        func: &Function,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        words: &[u64],
        accesses: &[Access<'_>],
    ) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe {
            self.packed(
                func,
                grid,
                block,
                shared_bytes,
                words,
                accesses,
                Attr::Plain,
            )
        }?;
        Ok(())
    }

    /// [`launch_packed`](Self::launch_packed) as a cooperative launch
    /// (`CU_LAUNCH_ATTRIBUTE_COOPERATIVE`, through `cuLaunchKernelEx`): every block of the grid
    /// is resident on the device at once, so that the blocks may wait for each other (a grid
    /// barrier). The driver refuses a grid larger than the device can hold at once with the
    /// kernel's resources (`CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`), and a device without
    /// cooperative launches: both are an `Err`, with nothing enqueued.
    ///
    /// # Safety
    /// As for [`launch_packed`](Self::launch_packed).
    #[inline]
    pub unsafe fn launch_packed_cooperative(
        &self,
        func: &Function,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        words: &[u64],
        accesses: &[Access<'_>],
    ) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe {
            self.packed(
                func,
                grid,
                block,
                shared_bytes,
                words,
                accesses,
                Attr::Cooperative,
            )
        }?;
        Ok(())
    }

    /// [`launch_packed`](Self::launch_packed) with programmatic stream serialization
    /// (`CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`, through `cuLaunchKernelEx`):
    /// the kernel may begin before the kernel enqueued ahead of it on the stream has finished
    /// (once that one has run `griddepcontrol.launch_dependents` in every block, or ended), and
    /// a stream capture records the dependency between the two as a programmatic graph edge.
    /// Devices of compute capability below 9.0 do not support the attribute: the caller asks
    /// for it only on 9.0 and later. While the stream captures, the attribute is set only where
    /// the launch's node would depend on kernel nodes only (see
    /// [`capture_follows_kernels`](Self::capture_follows_kernels), asked after the launch's
    /// cross-stream waits are enqueued); else the launch is plain. Returns whether it was set.
    ///
    /// # Safety
    /// As for [`launch_packed`](Self::launch_packed), and every thread of the kernel executes
    /// `griddepcontrol.wait` before its first access to global memory (the wait returns once
    /// the grids it depends on have completed and their memory operations are visible), so
    /// that nothing the kernel reads or writes is touched by work ordered before it while it
    /// runs.
    #[inline]
    pub unsafe fn launch_packed_programmatic(
        &self,
        func: &Function,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        words: &[u64],
        accesses: &[Access<'_>],
    ) -> Result<bool> {
        // SAFETY: forwarded to the caller.
        unsafe {
            self.packed(
                func,
                grid,
                block,
                shared_bytes,
                words,
                accesses,
                Attr::Programmatic,
            )
        }
    }

    /// The packed launches; `attr` asks for the programmatic serialization attribute or a
    /// cooperative launch. Returns whether the programmatic attribute was set.
    ///
    /// # Safety
    /// That of [`launch_packed_programmatic`](Self::launch_packed_programmatic) when
    /// `programmatic`, else that of [`launch_packed`](Self::launch_packed).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    unsafe fn packed(
        &self,
        func: &Function,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        words: &[u64],
        accesses: &[Access<'_>],
        attr: Attr,
    ) -> Result<bool> {
        if !std::sync::Arc::ptr_eq(func.context(), self.context()) {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` belongs to another context than the stream it is launched on",
                func.name()
            )));
        }
        if let Some(sizes) = func.param_sizes() {
            if sizes.len() != words.len() || sizes.iter().any(|&s| s != 8) {
                return Err(Error::InvalidArgument(format!(
                    "kernel `{}` takes parameters of {sizes:?} bytes; a packed launch passes {} \
                     parameters of 8 bytes",
                    func.name(),
                    words.len()
                )));
            }
        }
        if grid.0 == 0 || grid.1 == 0 || grid.2 == 0 || block.0 == 0 || block.1 == 0 || block.2 == 0
        {
            return Err(Error::InvalidArgument(format!(
                "launch of `{}` with an empty grid {grid:?} or block {block:?}",
                func.name()
            )));
        }
        self.begin_access(accesses)?;
        self.context().bind_to_thread()?;
        // Under capture, only after kernel nodes (a copy, a set or an event wait before it
        // keeps the plain edge); asked after the waits `begin_access` may have enqueued.
        let programmatic = attr == Attr::Programmatic
            && (self.capture_follows_kernels().unwrap_or(false)
                || matches!(self.capture_status(), Ok(crate::CaptureStatus::None)));
        // Every parameter known to be 8 bytes (checked above) lies at byte `8 * i` of the
        // kernel's parameter buffer: `words` is that buffer as it is, handed over whole through
        // `extra` (the driver copies one block instead of following a pointer per parameter).
        // Otherwise (sizes unknown) one pointer per word.
        let whole = func.param_sizes().is_some() && !words.is_empty();
        let mut size = std::mem::size_of_val(words);
        let mut extra = [
            sys::CU_LAUNCH_PARAM_BUFFER_POINTER,
            words.as_ptr() as *mut c_void,
            sys::CU_LAUNCH_PARAM_BUFFER_SIZE,
            &mut size as *mut usize as *mut c_void,
            sys::CU_LAUNCH_PARAM_END,
        ];
        let mut inline = [std::ptr::null_mut::<c_void>(); INLINE_WORDS];
        let mut heap = Vec::new();
        let (params, extra) = if whole {
            (std::ptr::null_mut(), extra.as_mut_ptr())
        } else {
            let ptrs: &mut [*mut c_void] = if words.len() <= INLINE_WORDS {
                &mut inline[..words.len()]
            } else {
                heap.resize(words.len(), std::ptr::null_mut());
                &mut heap
            };
            for (p, w) in ptrs.iter_mut().zip(words) {
                *p = w as *const u64 as *mut c_void;
            }
            (ptrs.as_mut_ptr(), std::ptr::null_mut())
        };
        let r = if programmatic || attr == Attr::Cooperative {
            let mut value = sys::CUlaunchAttributeValue { pad: [0; 8] };
            let id = if programmatic {
                value.programmaticStreamSerializationAllowed = 1;
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            } else {
                value.cooperative = 1;
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            };
            let mut attr = sys::CUlaunchAttribute {
                id,
                pad: [0; 4],
                value,
            };
            let lc = sys::CUlaunchConfig {
                gridDimX: grid.0,
                gridDimY: grid.1,
                gridDimZ: grid.2,
                blockDimX: block.0,
                blockDimY: block.1,
                blockDimZ: block.2,
                sharedMemBytes: shared_bytes,
                hStream: self.raw(),
                attrs: &mut attr,
                numAttrs: 1,
            };
            // SAFETY: as for the plain launch below (the same function, parameters and
            // stream), and `lc` points at one initialised attribute that lives for the call;
            // with the programmatic attribute the caller guarantees every thread of the kernel
            // executes `griddepcontrol.wait` before it touches global memory; a cooperative
            // launch the device cannot hold at once is refused by the driver.
            unsafe { drv!(cuLaunchKernelEx(&lc, func.raw(), params, extra)) }
        } else {
            // SAFETY: `func` is a loaded kernel of this stream's context (checked), made
            // current above. Either `extra` is a well-formed list whose buffer (`words`,
            // 8-byte aligned, `size` bytes) holds each parameter at its offset (all parameters
            // 8 bytes, checked), or each entry of `params` points at one 8-byte word of
            // `words`; both alive for the call. The caller guarantees the words are valid
            // parameters and the memory they address stays alive and ordered (the accesses
            // above declare it to the tracking).
            unsafe {
                drv!(cuLaunchKernel(
                    func.raw(),
                    grid.0,
                    grid.1,
                    grid.2,
                    block.0,
                    block.1,
                    block.2,
                    shared_bytes,
                    self.raw(),
                    params,
                    extra
                ))
            }
        };
        r?;
        self.end_access(accesses)?;
        Ok(programmatic)
    }
}

impl Stream {
    /// Launches `func`, a kernel of one parameter of `param.len()` bytes (a structure passed by
    /// value, e.g. `const __grid_constant__ S s`), over `grid` blocks of `block` threads; the
    /// driver copies `param` at the launch. `accesses` lists every buffer the kernel touches.
    ///
    /// Checked: the function belongs to this stream's context, takes one parameter of exactly
    /// `param.len()` bytes (where the driver can tell), and the launch dimensions are not zero.
    ///
    /// # Safety
    /// `param` is a valid value of the kernel's parameter type: every device address in it
    /// points to memory of this context that the kernel may access over the whole range it
    /// touches, and that memory is one of `accesses` (or otherwise kept alive and ordered by
    /// the caller) until the kernel has run.
    pub unsafe fn launch_struct(
        &self,
        func: &Function,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        param: &[u8],
        accesses: &[Access<'_>],
    ) -> Result<()> {
        if !std::sync::Arc::ptr_eq(func.context(), self.context()) {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` belongs to another context than the stream it is launched on",
                func.name()
            )));
        }
        if let Some(sizes) = func.param_sizes() {
            if sizes.len() != 1 || sizes[0] as usize != param.len() {
                return Err(Error::InvalidArgument(format!(
                    "kernel `{}` takes parameters of {sizes:?} bytes; a structure launch passes \
                     one of {} bytes",
                    func.name(),
                    param.len()
                )));
            }
        }
        if grid.0 == 0 || grid.1 == 0 || grid.2 == 0 || block.0 == 0 || block.1 == 0 || block.2 == 0
        {
            return Err(Error::InvalidArgument(format!(
                "launch of `{}` with an empty grid {grid:?} or block {block:?}",
                func.name()
            )));
        }
        self.begin_access(accesses)?;
        self.context().bind_to_thread()?;
        let mut ptrs = [param.as_ptr() as *mut c_void];
        // SAFETY: `func` is a loaded kernel of this stream's context (checked), made current
        // above; its one parameter is read from `param` (its size checked where the driver can
        // tell), which lives for the call (the driver copies it at the launch); the caller
        // guarantees it is a valid value and the memory it addresses stays alive and ordered.
        unsafe {
            drv!(cuLaunchKernel(
                func.raw(),
                grid.0,
                grid.1,
                grid.2,
                block.0,
                block.1,
                block.2,
                0,
                self.raw(),
                ptrs.as_mut_ptr(),
                std::ptr::null_mut()
            ))
        }?;
        self.end_access(accesses)
    }

    /// Enqueues a copy of `bytes` bytes from host address `src` to device address `dst`,
    /// with no tracking: for staging loops that order their own buffers with events (the
    /// caller declares the device buffer's access around the loop with
    /// [`begin_access`](Stream::begin_access)/[`end_access`](Stream::end_access)).
    ///
    /// # Safety
    /// `src` is valid for reading `bytes` bytes until the copy has completed (pinned memory for
    /// an asynchronous copy), and `[dst, dst + bytes)` is device memory of this stream's
    /// context that nothing else writes or reads meanwhile.
    pub unsafe fn memcpy_htod_raw(&self, dst: u64, src: *const u8, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.context().bind_to_thread()?;
        // SAFETY: the caller's contract covers both ranges; the stream is live.
        unsafe { drv!(cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, self.raw())) }
    }

    /// Enqueues a copy of `bytes` bytes from device address `src` to host address `dst`, with
    /// no tracking (see [`memcpy_htod_raw`](Self::memcpy_htod_raw)).
    ///
    /// # Safety
    /// `dst` is valid for writing `bytes` bytes until the copy has completed and nothing reads
    /// it meanwhile; `[src, src + bytes)` is device memory of this stream's context whose
    /// writers have finished or are ordered before this copy.
    pub unsafe fn memcpy_dtoh_raw(&self, dst: *mut u8, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.context().bind_to_thread()?;
        // SAFETY: the caller's contract covers both ranges; the stream is live.
        unsafe { drv!(cuMemcpyDtoHAsync_v2(dst.cast(), src, bytes, self.raw())) }
    }
}
