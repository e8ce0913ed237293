//! The cudarc-0.9-style flow, as a thin layer over the core API: [`CudaDevice`], a
//! handle holding a context, its default stream and a registry of modules by name.
//!
//! Named `CudaDevice` (not `Device`) so that it does not clash with [`crate::Device`], the
//! plain device handle. Everything here forwards to [`Context`], [`Stream`], [`Module`] and
//! [`LaunchArgs`]: buffers are ordinary [`DeviceBuffer`]s with the same stream tracking, so code
//! can mix both styles. It owns only the name registry, tuple launches and the extra-stream
//! synchronisation rules of that API. Sub-slices are the buffers' own
//! [`try_slice`](DeviceBuffer::try_slice) / [`try_slice_mut`](DeviceBuffer::try_slice_mut).
//!
//! ```no_run
//! use cuprite_driver::compat::{CudaDevice, LaunchConfig};
//! # fn main() -> cuprite_driver::Result<()> {
//! let dev = CudaDevice::new(0)?;
//! let ptx = cuprite_driver::nvrtc::compile_ptx(
//!     r#"extern "C" __global__ void twice(float *out, const float *inp, int n) {
//!         int i = blockIdx.x * blockDim.x + threadIdx.x;
//!         if (i < n) out[i] = 2.0f * inp[i];
//!     }"#,
//! )?;
//! dev.load_ptx(ptx, "m", &["twice"])?;
//! let f = dev.get_func("m", "twice")?;
//! let inp = dev.htod_sync_copy(&[1.0f32, 2.0, 3.0])?;
//! let mut out = dev.alloc_zeros::<f32>(3)?;
//! unsafe { f.launch(LaunchConfig::for_num_elems(3), (&mut out, &inp, 3i32)) }?;
//! assert_eq!(dev.sync_reclaim(out)?, [2.0, 4.0, 6.0]);
//! # Ok(()) }
//! ```

use crate::context::Context;
use crate::error::{Error, Result};
use crate::launch::LaunchArgs;
use crate::memory::{DeviceBuffer, DeviceCopy, DeviceView, DeviceViewMut};
use crate::module::{Function, Module, ModuleImage};
use crate::repr::{DevicePtr, DeviceRepr};
use crate::stream::Stream;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

pub use crate::launch::LaunchConfig;

/// cudarc 0.9's name of [`DeviceBuffer`].
pub type CudaSlice<T> = DeviceBuffer<T>;
/// cudarc 0.9's name of [`DeviceView`].
pub type CudaView<'a, T> = DeviceView<'a, T>;
/// cudarc 0.9's name of [`DeviceViewMut`].
pub type CudaViewMut<'a, T> = DeviceViewMut<'a, T>;

/// A device handle in the cudarc 0.9 style: a context, its default stream, and modules by name.
/// Shared as `Arc<CudaDevice>`.
#[derive(Debug)]
pub struct CudaDevice {
    ctx: Arc<Context>,
    stream: Arc<Stream>,
    modules: RwLock<HashMap<String, Arc<Module>>>,
}

impl CudaDevice {
    /// The device with this ordinal (its primary context, bound to the calling thread).
    pub fn new(ordinal: usize) -> Result<Arc<CudaDevice>> {
        let ctx = Context::new(ordinal)?;
        let stream = ctx.default_stream();
        Ok(Arc::new(CudaDevice {
            ctx,
            stream,
            modules: RwLock::new(HashMap::new()),
        }))
    }

    /// The ordinal.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// The context.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// The stream every call of this handle uses.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// Makes this device's context current on the calling thread (needed by the cudarc 0.9-style API
    /// before using a device from another thread; cuprite calls bind by themselves anyway).
    pub fn bind_to_thread(&self) -> Result<()> {
        self.ctx.bind_to_thread()
    }

    /// Loads `ptx` (or any [`ModuleImage`]) as module `module_name`, checking that each of
    /// `func_names` exists in it (an `Err` names a missing one). Loading a name again replaces
    /// the module.
    pub fn load_ptx(
        &self,
        ptx: impl Into<ModuleImage>,
        module_name: &str,
        func_names: &[&str],
    ) -> Result<()> {
        let module = self.ctx.load_module(ptx)?;
        for name in func_names {
            module.load_function(name)?;
        }
        self.modules
            .write()
            .map_err(|_| Error::InvalidArgument("module registry lock poisoned".into()))?
            .insert(module_name.to_string(), module);
        Ok(())
    }

    /// Whether module `module_name` is loaded and has a kernel `func_name`.
    pub fn has_func(&self, module_name: &str, func_name: &str) -> bool {
        let module = self
            .modules
            .read()
            .ok()
            .and_then(|m| m.get(module_name).cloned());
        module.is_some_and(|m| m.load_function(func_name).is_ok())
    }

    /// The kernel `func_name` of module `module_name`; `Err` naming whichever is unknown.
    pub fn get_func(self: &Arc<Self>, module_name: &str, func_name: &str) -> Result<CudaFunction> {
        let module = self
            .modules
            .read()
            .map_err(|_| Error::InvalidArgument("module registry lock poisoned".into()))?
            .get(module_name)
            .cloned()
            .ok_or_else(|| {
                Error::InvalidArgument(format!("no module named `{module_name}` was loaded"))
            })?;
        Ok(CudaFunction {
            func: module.load_function(func_name)?,
            device: self.clone(),
        })
    }

    /// `n` zeroed elements.
    pub fn alloc_zeros<T: DeviceCopy>(&self, n: usize) -> Result<CudaSlice<T>> {
        self.stream.alloc_zeros(n)
    }

    /// `n` uninitialised elements.
    ///
    /// # Safety
    ///
    /// The contents are garbage until written; read them only after a write.
    pub unsafe fn alloc<T: DeviceCopy>(&self, n: usize) -> Result<CudaSlice<T>> {
        // SAFETY: forwarded to the caller.
        unsafe { self.stream.alloc(n) }
    }

    /// Copies `src` to a new device buffer, taking the host vector.
    pub fn htod_copy<T: DeviceCopy>(&self, src: Vec<T>) -> Result<CudaSlice<T>> {
        self.stream.clone_htod(&src)
    }

    /// Copies `src` to a new device buffer.
    pub fn htod_sync_copy<T: DeviceCopy>(&self, src: &[T]) -> Result<CudaSlice<T>> {
        self.stream.clone_htod(src)
    }

    /// Copies `src` into `dst` (same length).
    pub fn htod_sync_copy_into<T: DeviceCopy>(
        &self,
        src: &[T],
        dst: &mut CudaSlice<T>,
    ) -> Result<()> {
        self.stream.memcpy_htod(src, dst)
    }

    /// Copies `src` back to a new vector.
    pub fn dtoh_sync_copy<T: DeviceCopy>(&self, src: &CudaSlice<T>) -> Result<Vec<T>> {
        self.stream.clone_dtoh(src)
    }

    /// Copies `src` into `dst` (same length).
    pub fn dtoh_sync_copy_into<T: DeviceCopy>(
        &self,
        src: &CudaSlice<T>,
        dst: &mut [T],
    ) -> Result<()> {
        self.stream.memcpy_dtoh(src, dst)
    }

    /// Copies `src` back and frees it.
    pub fn sync_reclaim<T: DeviceCopy>(&self, src: CudaSlice<T>) -> Result<Vec<T>> {
        let v = self.stream.clone_dtoh(&src)?;
        drop(src);
        Ok(v)
    }

    /// Waits for all work on this device's stream.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize()
    }

    /// A new stream that waits for the default stream's work so far; when it is dropped, the
    /// default stream waits for the work enqueued on it.
    pub fn fork_default_stream(self: &Arc<Self>) -> Result<CudaStream> {
        Ok(CudaStream {
            stream: self.stream.fork()?,
            device: self.clone(),
        })
    }

    /// Makes the default stream wait for the work enqueued on `stream` so far.
    pub fn wait_for(&self, stream: &CudaStream) -> Result<()> {
        self.stream.join(&stream.stream)
    }
}

/// An extra stream of a [`CudaDevice`]: synchronised with the default stream when made
/// (it waits for it) and when dropped (the default stream waits for it).
#[derive(Debug)]
pub struct CudaStream {
    stream: Arc<Stream>,
    device: Arc<CudaDevice>,
}

impl CudaStream {
    /// The core stream.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }
}

impl Drop for CudaStream {
    fn drop(&mut self) {
        if let Err(e) = self.device.stream.join(&self.stream) {
            self.device
                .ctx
                .defer("joining a dropped CudaStream to the default stream", e);
        }
    }
}

/// A kernel of a [`CudaDevice`], launched with a tuple of arguments.
#[derive(Debug, Clone)]
pub struct CudaFunction {
    func: Function,
    device: Arc<CudaDevice>,
}

impl CudaFunction {
    /// The core function.
    pub fn function(&self) -> &Function {
        &self.func
    }

    /// Launches on the device's stream with `params`, a tuple of up to 12 arguments:
    /// `&mut buf` (written), `&buf` (read), views, scalars by value or by reference.
    ///
    /// # Safety
    ///
    /// As for [`LaunchArgs::launch`].
    pub unsafe fn launch<P: LaunchParams>(&self, cfg: LaunchConfig, params: P) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.launch_on(&self.device.stream, cfg, params) }
    }

    /// Launches on an extra stream of the device.
    ///
    /// # Safety
    ///
    /// As for [`LaunchArgs::launch`].
    pub unsafe fn launch_on_stream<P: LaunchParams>(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        params: P,
    ) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.launch_on(&stream.stream, cfg, params) }
    }

    unsafe fn launch_on<P: LaunchParams>(
        &self,
        stream: &Stream,
        cfg: LaunchConfig,
        params: P,
    ) -> Result<()> {
        let mut b = stream.launch_builder(&self.func);
        params.push_all(&mut b);
        // SAFETY: forwarded to the caller.
        unsafe { b.launch(cfg) }.map(|_| ())
    }
}

/// One element of a launch tuple.
pub trait TupleArg {
    /// Appends `self` to the builder.
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>);
}

macro_rules! by_value {
    ($($t:ty),*) => {$(
        impl TupleArg for $t {
            #[inline(always)]
            fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
                b.push_value(self);
            }
        }
    )*};
}

by_value!(
    bool,
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64,
    half::f16,
    half::bf16
);

impl<T> TupleArg for DevicePtr<T> {
    #[inline(always)]
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
        b.push_value(self);
    }
}

impl<T: DeviceRepr> TupleArg for &T {
    #[inline(always)]
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
        b.push_value(&**self);
    }
}

impl<T> TupleArg for &DeviceBuffer<T> {
    #[inline(always)]
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
        b.push_read(&**self);
    }
}

impl<T> TupleArg for &mut DeviceBuffer<T> {
    #[inline(always)]
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
        b.push_write(&**self);
    }
}

impl<T> TupleArg for &DeviceView<'_, T> {
    #[inline(always)]
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
        b.push_read(&**self);
    }
}

impl<T> TupleArg for &DeviceViewMut<'_, T> {
    #[inline(always)]
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
        b.push_read(&**self);
    }
}

impl<T> TupleArg for &mut DeviceViewMut<'_, T> {
    #[inline(always)]
    fn push<'a>(&'a self, b: &mut LaunchArgs<'a>) {
        b.push_write(&**self);
    }
}

/// A tuple of up to 12 [`TupleArg`]s.
pub trait LaunchParams {
    /// Appends every element, in order.
    fn push_all<'a>(&'a self, b: &mut LaunchArgs<'a>);
}

macro_rules! tuples {
    ($(($($name:ident $idx:tt),*);)*) => {$(
        impl<$($name: TupleArg),*> LaunchParams for ($($name,)*) {
            #[inline(always)]
            fn push_all<'a>(&'a self, b: &mut LaunchArgs<'a>) {
                $( self.$idx.push(b); )*
            }
        }
    )*};
}

tuples! {
    (A 0);
    (A 0, B 1);
    (A 0, B 1, C 2);
    (A 0, B 1, C 2, D 3);
    (A 0, B 1, C 2, D 3, E 4);
    (A 0, B 1, C 2, D 3, E 4, F 5);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
}
