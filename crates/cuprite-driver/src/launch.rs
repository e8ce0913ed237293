//! Kernel launch: [`LaunchConfig`], the [`LaunchArgs`] builder and the [`KernelArg`] trait.
//!
//! Owns argument marshalling (kept inline in the builder: no allocation for up to
//! [`INLINE_ARGS`] arguments), validation of a launch against the kernel's and device's limits
//! before it reaches the driver, the stream-tracking declarations of buffer arguments (`&buf` is
//! a read, `&mut buf` a write), timing events and launch attributes (`cuLaunchKernelEx`). It must
//! not decide how streams wait for each other: that is the stream tracker's job
//! ([`Stream::begin_access`]/[`Stream::end_access`]).

use crate::drv;
use crate::error::{Error, Result};
use crate::event::{Event, EventFlags};
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceView, DeviceViewMut, DeviceWrite};
use crate::module::{Function, Global};
use crate::repr::DeviceRepr;
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUlaunchAttribute, CUlaunchAttributeID as LA};
use std::ffi::c_void;
use std::mem::MaybeUninit;

/// How many arguments a [`LaunchArgs`] holds without allocating.
pub const INLINE_ARGS: usize = 16;

/// The shape of a launch: grid and block dimensions and dynamic shared memory.
///
/// ```
/// use cuprite_driver::LaunchConfig;
/// let cfg = LaunchConfig::for_num_elems(3000);
/// assert_eq!(cfg.block_dim, (1024, 1, 1));
/// assert_eq!(cfg.grid_dim, (3, 1, 1));
/// assert_eq!(cfg.shared_mem_bytes, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid, `(x, y, z)`.
    pub grid_dim: (u32, u32, u32),
    /// Threads per block, `(x, y, z)`.
    pub block_dim: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// One thread per element, 1024 threads per block, enough blocks to cover `n` (a grid of
    /// zero blocks when `n == 0`, which a launch refuses).
    pub fn for_num_elems(n: u32) -> Self {
        const NUM_THREADS: u32 = 1024;
        LaunchConfig {
            grid_dim: (n.div_ceil(NUM_THREADS), 1, 1),
            block_dim: (NUM_THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// Threads in one block.
    pub fn threads_per_block(&self) -> u64 {
        self.block_dim.0 as u64 * self.block_dim.1 as u64 * self.block_dim.2 as u64
    }
}

/// A small vector that stays inline for `INLINE_ARGS` elements.
struct ArgVec<T: Copy> {
    len: usize,
    inline: [MaybeUninit<T>; INLINE_ARGS],
    heap: Vec<T>,
}

impl<T: Copy> ArgVec<T> {
    #[inline(always)]
    fn new() -> Self {
        ArgVec {
            len: 0,
            inline: [const { MaybeUninit::uninit() }; INLINE_ARGS],
            heap: Vec::new(),
        }
    }

    #[inline(always)]
    fn push(&mut self, v: T) {
        if self.len < INLINE_ARGS {
            self.inline[self.len] = MaybeUninit::new(v);
        } else {
            if self.heap.is_empty() {
                self.heap.reserve(INLINE_ARGS * 2);
                for v in &self.inline {
                    // SAFETY: all INLINE_ARGS inline elements were written (len == INLINE_ARGS).
                    self.heap.push(unsafe { v.assume_init() });
                }
            }
            self.heap.push(v);
        }
        self.len += 1;
    }

    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        if self.len <= INLINE_ARGS {
            // SAFETY: the first `len` inline elements were written by `push`.
            unsafe { std::slice::from_raw_parts(self.inline.as_ptr().cast::<T>(), self.len) }
        } else {
            &self.heap
        }
    }

    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        if self.len <= INLINE_ARGS {
            // SAFETY: the first `len` inline elements were written by `push`.
            unsafe {
                std::slice::from_raw_parts_mut(self.inline.as_mut_ptr().cast::<T>(), self.len)
            }
        } else {
            &mut self.heap
        }
    }
}

/// One argument slot: its byte size, and its value when it is a device address (`inline`:
/// its parameter pointer is set to point here at each launch; a borrowed scalar's points at
/// the scalar).
#[derive(Clone, Copy)]
struct Slot {
    value: u64,
    size: u32,
    inline: bool,
}

/// The kernel launch builder: made by [`Stream::launch_builder`], fed with [`arg`](Self::arg),
/// fired with [`launch`](Self::launch).
///
/// A `&buffer` argument is declared as a read and a `&mut buffer` as a write: the launch waits
/// for exactly the work on other streams that it must (the last writer before a read, every
/// reader and the last writer before a write), and nothing while one stream is in use.
///
/// ```no_run
/// use cuprite_driver::{Context, LaunchConfig};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = Context::new(0)?;
/// let stream = ctx.default_stream();
/// let ptx = cuprite_driver::nvrtc::compile_ptx(r#"
///     extern "C" __global__ void axpy(float a, const float *x, float *y, int n) {
///         int i = blockIdx.x * blockDim.x + threadIdx.x;
///         if (i < n) y[i] += a * x[i];
///     }"#)?;
/// let f = ctx.load_module(ptx)?.load_function("axpy")?;
/// let x = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
/// let mut y = stream.clone_htod(&[10.0f32, 20.0, 30.0])?;
/// let n = 3i32;
/// unsafe {
///     stream.launch_builder(&f).arg(&2.0f32).arg(&x).arg(&mut y).arg(&n)
///         .launch(LaunchConfig::for_num_elems(3))?;
/// }
/// assert_eq!(stream.clone_dtoh(&y)?, [12.0, 24.0, 36.0]);
/// # Ok(()) }
/// ```
pub struct LaunchArgs<'a> {
    stream: &'a Stream,
    func: &'a Function,
    params: ArgVec<*mut c_void>,
    slots: ArgVec<Slot>,
    accesses: ArgVec<Access<'a>>,
    record: Option<EventFlags>,
    attrs: [MaybeUninit<CUlaunchAttribute>; 5],
    num_attrs: usize,
}

impl std::fmt::Debug for LaunchArgs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchArgs")
            .field("function", &self.func.name())
            .field("args", &self.slots.len)
            .field("tracked", &self.accesses.len)
            .field("record", &self.record)
            .field("attributes", &self.num_attrs)
            .finish()
    }
}

/// Something that can be passed to a kernel through [`LaunchArgs::arg`].
///
/// Implemented for `&T` where `T: DeviceRepr` (passed by value), and for shared and mutable
/// references to device buffers and views (passed as a device pointer, and tracked as a read
/// or a write). Other crates implement it for their own buffer types with
/// [`LaunchArgs::push_read`] / [`LaunchArgs::push_write`].
pub trait KernelArg<'a> {
    /// Appends `self` to `args`.
    fn push_to(self, args: &mut LaunchArgs<'a>);
}

impl<'a, T: DeviceRepr> KernelArg<'a> for &'a T {
    #[inline(always)]
    fn push_to(self, args: &mut LaunchArgs<'a>) {
        args.push_value(self);
    }
}

macro_rules! buffer_args {
    ($(($($lt:lifetime),*) $ty:ty;)*) => {$(
        impl<'a, $($lt,)* T> KernelArg<'a> for &'a $ty {
            #[inline(always)]
            fn push_to(self, args: &mut LaunchArgs<'a>) {
                args.push_read(self);
            }
        }
    )*};
}

buffer_args! {
    () Global<T>;
    () DeviceBuffer<T>;
    ('b) DeviceView<'b, T>;
    ('b) DeviceViewMut<'b, T>;
}

impl<'a, T> KernelArg<'a> for &'a mut DeviceBuffer<T> {
    #[inline(always)]
    fn push_to(self, args: &mut LaunchArgs<'a>) {
        args.push_write(self);
    }
}

impl<'a, T> KernelArg<'a> for &'a mut Global<T> {
    #[inline(always)]
    fn push_to(self, args: &mut LaunchArgs<'a>) {
        args.push_write(self);
    }
}

impl<'a, 'b, T> KernelArg<'a> for &'a mut DeviceViewMut<'b, T> {
    #[inline(always)]
    fn push_to(self, args: &mut LaunchArgs<'a>) {
        args.push_write(self);
    }
}

impl Stream {
    /// Starts a launch of `func` on this stream. See [`LaunchArgs`].
    #[inline]
    pub fn launch_builder<'a>(&'a self, func: &'a Function) -> LaunchArgs<'a> {
        LaunchArgs {
            stream: self,
            func,
            params: ArgVec::new(),
            slots: ArgVec::new(),
            accesses: ArgVec::new(),
            record: None,
            attrs: [const { MaybeUninit::uninit() }; 5],
            num_attrs: 0,
        }
    }
}

impl<'a> LaunchArgs<'a> {
    /// Appends one kernel argument: `&value` for a [`DeviceRepr`] value, `&buf`/`&view` for a
    /// buffer the kernel reads, `&mut buf`/`&mut view` for one it writes.
    #[inline(always)]
    pub fn arg<A: KernelArg<'a>>(&mut self, arg: A) -> &mut Self {
        arg.push_to(self);
        self
    }

    /// Appends a value passed by copy.
    #[inline(always)]
    pub fn push_value<T: DeviceRepr>(&mut self, value: &'a T) {
        self.params.push((value as *const T).cast_mut().cast());
        self.slots.push(Slot {
            value: 0,
            size: std::mem::size_of::<T>() as u32,
            inline: false,
        });
    }

    /// Appends a device buffer the kernel only reads, passed as its device pointer.
    #[inline(always)]
    pub fn push_read<T, B: DeviceRead<T> + ?Sized>(&mut self, buf: &'a B) {
        self.push_ptr(buf.device_ptr());
        self.accesses.push(Access::read(buf));
    }

    /// Appends a device buffer the kernel writes (and may read), passed as its device pointer.
    #[inline(always)]
    pub fn push_write<T, B: DeviceWrite<T> + ?Sized>(&mut self, buf: &'a B) {
        self.push_ptr(buf.device_ptr());
        self.accesses.push(Access::write(buf));
    }

    #[inline(always)]
    fn push_ptr(&mut self, ptr: sys::CUdeviceptr) {
        self.params.push(std::ptr::null_mut());
        self.slots.push(Slot {
            value: ptr,
            size: 8,
            inline: true,
        });
    }

    /// Makes [`launch`](Self::launch) return two events recorded (with `flags`) just before
    /// and just after the kernel, for timing it:
    /// `let (start, end) = unsafe { builder.launch(cfg) }?.unwrap();`.
    pub fn record_kernel_launch(&mut self, flags: EventFlags) -> &mut Self {
        self.record = Some(flags);
        self
    }

    fn push_attr(&mut self, id: LA, value: sys::CUlaunchAttributeValue) -> Result<()> {
        // Replace an attribute set twice.
        for a in &mut self.attrs[..self.num_attrs] {
            // SAFETY: the first `num_attrs` entries were written.
            let a = unsafe { a.assume_init_mut() };
            if a.id == id {
                a.value = value;
                return Ok(());
            }
        }
        if self.num_attrs == self.attrs.len() {
            return Err(Error::InvalidArgument(
                "too many launch attributes".to_string(),
            ));
        }
        self.attrs[self.num_attrs] = MaybeUninit::new(CUlaunchAttribute {
            id,
            pad: [0; 4],
            value,
        });
        self.num_attrs += 1;
        Ok(())
    }

    /// Launches as thread-block clusters of `(x, y, z)` blocks (Hopper and later, through
    /// `cuLaunchKernelEx`). The grid must be a multiple of the cluster shape.
    pub fn cluster_dim(&mut self, dim: (u32, u32, u32)) -> &mut Self {
        let mut v = sys::CUlaunchAttributeValue { pad: [0; 8] };
        v.clusterDim = [dim.0, dim.1, dim.2];
        // As many slots as attribute kinds the builder sets: this cannot overflow.
        let _ = self.push_attr(LA::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, v);
        self
    }

    /// Launches with this scheduling priority (lower numbers are higher priority; see
    /// `cuCtxGetStreamPriorityRange`), through `cuLaunchKernelEx`.
    pub fn priority(&mut self, priority: i32) -> &mut Self {
        let mut v = sys::CUlaunchAttributeValue { pad: [0; 8] };
        v.priority = priority;
        let _ = self.push_attr(LA::CU_LAUNCH_ATTRIBUTE_PRIORITY, v);
        self
    }

    /// Makes the launch cooperative (grid-wide sync allowed) through `cuLaunchKernelEx`.
    pub fn cooperative(&mut self, yes: bool) -> &mut Self {
        let mut v = sys::CUlaunchAttributeValue { pad: [0; 8] };
        v.cooperative = yes as i32;
        let _ = self.push_attr(LA::CU_LAUNCH_ATTRIBUTE_COOPERATIVE, v);
        self
    }

    /// Launches with programmatic stream serialization through `cuLaunchKernelEx`: the kernel
    /// may begin before the kernel ahead of it on the stream has finished, and a stream capture
    /// records the dependency as a programmatic graph edge. Only for devices of compute
    /// capability 9.0 and later; see the safety contract of [`launch`](Self::launch) for what
    /// the kernel must then do.
    pub fn programmatic_serialization(&mut self, yes: bool) -> &mut Self {
        let mut v = sys::CUlaunchAttributeValue { pad: [0; 8] };
        v.programmaticStreamSerializationAllowed = yes as i32;
        let _ = self.push_attr(LA::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, v);
        self
    }

    /// How many arguments were pushed.
    pub fn num_args(&self) -> usize {
        self.slots.len
    }

    /// Checks `cfg` and the arguments against the kernel and device limits.
    fn validate(&self, cfg: &LaunchConfig) -> Result<()> {
        let f = &self.func.info;
        if self.func.context().raw() != self.stream.context().raw() {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` was loaded in another context than the stream it is launched on",
                f.name
            )));
        }
        let (gx, gy, gz) = cfg.grid_dim;
        let (bx, by, bz) = cfg.block_dim;
        if gx == 0 || gy == 0 || gz == 0 {
            return Err(Error::InvalidArgument(format!(
                "launch of `{}` with an empty grid {:?}: every grid dimension must be at least 1",
                f.name, cfg.grid_dim
            )));
        }
        if bx == 0 || by == 0 || bz == 0 {
            return Err(Error::InvalidArgument(format!(
                "launch of `{}` with an empty block {:?}",
                f.name, cfg.block_dim
            )));
        }
        // The grid limits of every GPU of compute capability 5.0 and later.
        if gx > i32::MAX as u32 || gy > 65_535 || gz > 65_535 {
            return Err(Error::InvalidArgument(format!(
                "launch of `{}` with grid {:?}: a grid has at most 2147483647 × 65535 × 65535 blocks",
                f.name, cfg.grid_dim
            )));
        }
        for a in &self.attrs[..self.num_attrs] {
            // SAFETY: the first `num_attrs` entries were written.
            let a = unsafe { a.assume_init_ref() };
            if a.id == LA::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {
                // SAFETY: a cluster-dimension attribute was written through `clusterDim`.
                let [cx, cy, cz] = unsafe { a.value.clusterDim };
                if cx == 0 || cy == 0 || cz == 0 || gx % cx != 0 || gy % cy != 0 || gz % cz != 0 {
                    return Err(Error::InvalidArgument(format!(
                        "launch of `{}` with grid {:?} in clusters of {:?}: every cluster \
                         dimension must be at least 1 and divide the grid's",
                        f.name,
                        cfg.grid_dim,
                        (cx, cy, cz)
                    )));
                }
            }
        }
        let threads = cfg.threads_per_block();
        if threads > f.max_threads_per_block as u64 || bx > 1024 || by > 1024 || bz > 64 {
            return Err(Error::InvalidArgument(format!(
                "launch of `{}` with block {:?} ({threads} threads): this kernel allows at most \
                 {} threads per block (and at most 1024 × 1024 × 64 per dimension)",
                f.name, cfg.block_dim, f.max_threads_per_block
            )));
        }
        let max_shared = f
            .max_dynamic_shared
            .load(std::sync::atomic::Ordering::Relaxed);
        if cfg.shared_mem_bytes > max_shared {
            return Err(Error::InvalidArgument(format!(
                "launch of `{}` asks for {} bytes of dynamic shared memory, above its limit of \
                 {max_shared} bytes (raise it with Function::set_max_dynamic_shared_memory)",
                f.name, cfg.shared_mem_bytes
            )));
        }
        if let Some(sizes) = &f.param_sizes {
            let slots = self.slots.as_slice();
            if sizes.len() != slots.len() {
                return Err(Error::InvalidArgument(format!(
                    "kernel `{}` takes {} parameter(s), but {} argument(s) were given",
                    f.name,
                    sizes.len(),
                    slots.len()
                )));
            }
            for (i, (s, &want)) in slots.iter().zip(sizes.iter()).enumerate() {
                if s.size != want {
                    return Err(Error::InvalidArgument(format!(
                        "argument {i} of kernel `{}` is {} bytes, but the parameter is {want} bytes",
                        f.name, s.size
                    )));
                }
            }
        }
        Ok(())
    }

    /// Points every inline slot's parameter at its value. Done at each launch: the builder
    /// may have moved since the argument was pushed (or since an earlier launch).
    #[inline(always)]
    fn fix_params(&mut self) -> *mut *mut c_void {
        let slots = self.slots.as_mut_slice();
        let params = self.params.as_mut_slice();
        for (p, slot) in params.iter_mut().zip(slots.iter_mut()) {
            if slot.inline {
                // The pointer stays valid until the builder is next mutated or moved, which
                // cannot happen while `launch` holds `&mut self`.
                *p = std::ptr::addr_of_mut!(slot.value).cast();
            }
        }
        params.as_mut_ptr()
    }

    /// Enqueues the kernel on the stream.
    ///
    /// Returns the (start, end) events when [`record_kernel_launch`](Self::record_kernel_launch)
    /// was called. A zero grid, a block larger than the kernel allows, dynamic shared memory
    /// above its limit, or (where the driver can tell) a wrong number or size of arguments is
    /// an `Err` before anything is enqueued.
    ///
    /// # Safety
    ///
    /// The kernel must read its arguments as the types pushed, stay within the buffers it is
    /// given, and write only those pushed as `&mut`. With
    /// [`programmatic_serialization`](Self::programmatic_serialization) on, every thread of the
    /// kernel executes `griddepcontrol.wait` before its first access to global memory.
    #[inline]
    pub unsafe fn launch(&mut self, cfg: LaunchConfig) -> Result<Option<(Event, Event)>> {
        // SAFETY: forwarded to the caller.
        unsafe { self.launch_inner(cfg, false) }
    }

    /// Like [`launch`](Self::launch), but cooperative (`cuLaunchCooperativeKernel`): every block
    /// is resident at once, so the kernel may synchronise the whole grid. A grid larger than
    /// the device can hold at once is an `Err` from the driver.
    ///
    /// # Safety
    ///
    /// As for [`launch`](Self::launch).
    pub unsafe fn launch_cooperative(
        &mut self,
        cfg: LaunchConfig,
    ) -> Result<Option<(Event, Event)>> {
        // SAFETY: forwarded to the caller.
        unsafe { self.launch_inner(cfg, true) }
    }

    #[inline(always)]
    unsafe fn launch_inner(
        &mut self,
        cfg: LaunchConfig,
        cooperative: bool,
    ) -> Result<Option<(Event, Event)>> {
        self.validate(&cfg)?;
        if cooperative && self.num_attrs > 0 {
            // Launch attributes go through cuLaunchKernelEx: cooperative becomes one of them.
            self.cooperative(true);
        }
        let stream = self.stream;
        stream.context().bind_to_thread()?;
        let params = self.fix_params();
        let accesses = self.accesses.as_slice();
        if !accesses.is_empty() {
            stream.begin_access(accesses)?;
        }
        let events = match self.record {
            Some(flags) => {
                let start = Event::new(stream.context(), flags)?;
                start.record(stream)?;
                Some(start)
            }
            None => None,
        };
        if let Err(e) = crate::fault::check(crate::fault::FaultPoint::KernelLaunch) {
            // As a failed launch: the accesses declared above are completed, nothing ran.
            let _ = stream.end_access(accesses);
            return Err(e);
        }
        let raw_f = self.func.raw();
        let (gx, gy, gz) = cfg.grid_dim;
        let (bx, by, bz) = cfg.block_dim;
        let r = if self.num_attrs > 0 {
            let lc = sys::CUlaunchConfig {
                gridDimX: gx,
                gridDimY: gy,
                gridDimZ: gz,
                blockDimX: bx,
                blockDimY: by,
                blockDimZ: bz,
                sharedMemBytes: cfg.shared_mem_bytes,
                hStream: stream.raw(),
                attrs: self.attrs.as_mut_ptr().cast(),
                numAttrs: self.num_attrs as u32,
            };
            // SAFETY: `lc` points at `num_attrs` initialised attributes; `params` holds one
            // pointer per kernel parameter, each to live bytes of the right size (checked
            // where the driver tells sizes); the rest is the caller's contract.
            unsafe { drv!(cuLaunchKernelEx(&lc, raw_f, params, std::ptr::null_mut())) }
        } else if cooperative {
            // SAFETY: as above.
            unsafe {
                drv!(cuLaunchCooperativeKernel(
                    raw_f,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    cfg.shared_mem_bytes,
                    stream.raw(),
                    params
                ))
            }
        } else {
            // SAFETY: as above.
            unsafe {
                drv!(cuLaunchKernel(
                    raw_f,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    cfg.shared_mem_bytes,
                    stream.raw(),
                    params,
                    std::ptr::null_mut()
                ))
            }
        };
        let end_access = if accesses.is_empty() {
            Ok(())
        } else {
            stream.end_access(accesses)
        };
        r?;
        end_access?;
        // A captured launch keeps its kernel's module loaded for as long as the graph lives.
        crate::capture::keep_alive(stream.track_id(), || self.func.module().clone());
        match events {
            Some(start) => {
                let end = Event::new(stream.context(), self.record.unwrap_or_default())?;
                end.record(stream)?;
                Ok(Some((start, end)))
            }
            None => Ok(None),
        }
    }
}
