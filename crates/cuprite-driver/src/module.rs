//! Loaded device code: [`Module`]s (from PTX, CUBIN or fatbin), their [`Function`]s and typed
//! globals.
//!
//! Owns `cuModuleLoad*`/`cuModuleUnload`, function lookup, function attributes and the occupancy
//! calculator. It must not launch anything: `launch.rs` does, using the limits cached here
//! (maximum threads per block, dynamic shared memory limit, parameter sizes) to validate a launch
//! before it reaches the driver.

use crate::context::Context;
use crate::drv;
use crate::error::{Error, Result};
use crate::memory::{DeviceRead, DeviceWrite, Tracker};
use crate::nvrtc::{Compiled, Image, Ptx};
use crate::repr::{DevicePtr, DeviceRepr};
use cuprite_sys::driver::{self as sys, CUfunction, CUfunction_attribute as FA, CUmodule};
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// A compiled image that a [`Module`] can be loaded from.
///
/// Built from PTX text ([`Ptx`], `&str`, `String`), or from CUBIN / fatbin bytes. The driver
/// tells the binary kinds apart by their headers; PTX is JIT-compiled for the context's device.
///
/// ```
/// use cuprite_driver::ModuleImage;
/// let img = ModuleImage::ptx(".version 8.0\n.target sm_90\n.address_size 64\n");
/// assert!(matches!(img, ModuleImage::Ptx(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleImage {
    /// PTX assembly text.
    Ptx(String),
    /// A CUBIN (an ELF object for one architecture).
    Cubin(Vec<u8>),
    /// A fatbin (several CUBINs and/or PTX for several architectures).
    Fatbin(Vec<u8>),
}

impl ModuleImage {
    /// PTX text.
    pub fn ptx(text: impl Into<String>) -> Self {
        ModuleImage::Ptx(text.into())
    }

    /// CUBIN bytes.
    pub fn cubin(bytes: impl Into<Vec<u8>>) -> Self {
        ModuleImage::Cubin(bytes.into())
    }

    /// Fatbin bytes.
    pub fn fatbin(bytes: impl Into<Vec<u8>>) -> Self {
        ModuleImage::Fatbin(bytes.into())
    }

    /// Reads a file: an ELF (`\x7fELF`) is a CUBIN, a fatbin magic (`0xBA55ED50`) a fatbin,
    /// anything else is read as PTX text.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::InvalidArgument(format!("cannot read module file {}: {e}", path.display()))
        })?;
        Ok(Self::from_bytes(bytes))
    }

    /// Classifies raw bytes as [`from_file`](Self::from_file) does.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        if bytes.starts_with(b"\x7fELF") {
            ModuleImage::Cubin(bytes)
        } else if bytes.starts_with(&0xBA55_ED50u32.to_le_bytes()) {
            ModuleImage::Fatbin(bytes)
        } else {
            ModuleImage::Ptx(String::from_utf8_lossy(&bytes).into_owned())
        }
    }
}

impl From<Ptx> for ModuleImage {
    fn from(p: Ptx) -> Self {
        ModuleImage::Ptx(p.into_string())
    }
}
impl From<&Ptx> for ModuleImage {
    fn from(p: &Ptx) -> Self {
        ModuleImage::Ptx(p.as_str().to_string())
    }
}
impl From<Image> for ModuleImage {
    fn from(i: Image) -> Self {
        match i {
            Image::Ptx(p) => p.into(),
            Image::Cubin(b) => ModuleImage::Cubin(b),
        }
    }
}
impl From<Compiled> for ModuleImage {
    fn from(c: Compiled) -> Self {
        c.into_image().into()
    }
}
impl From<&Compiled> for ModuleImage {
    fn from(c: &Compiled) -> Self {
        c.image().clone().into()
    }
}
impl From<&str> for ModuleImage {
    fn from(s: &str) -> Self {
        ModuleImage::Ptx(s.to_string())
    }
}
impl From<String> for ModuleImage {
    fn from(s: String) -> Self {
        ModuleImage::Ptx(s)
    }
}

/// A module loaded into a context: unloaded when the last `Arc` (including those held by its
/// [`Function`]s and [`Global`]s) is dropped.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let ptx = cuprite_driver::nvrtc::compile_ptx(r#"extern "C" __global__ void k(float *x) { x[0] = 1; }"#)?;
/// let module = ctx.load_module(ptx)?;
/// let k = module.load_function("k")?;
/// assert_eq!(k.name(), "k");
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Module {
    ctx: Arc<Context>,
    raw: CUmodule,
    /// One tracker per global variable, shared by every [`Global`] handle of it.
    globals: Mutex<HashMap<String, Arc<Tracker>>>,
}

// SAFETY: a CUmodule is a handle usable from any thread once its context is current there; every
// use here binds the context first.
unsafe impl Send for Module {}
// SAFETY: as above; the driver synchronises concurrent lookups in one module.
unsafe impl Sync for Module {}

impl Context {
    /// Loads a module (PTX, CUBIN or fatbin) into this context. See [`Module::load`].
    pub fn load_module(self: &Arc<Self>, image: impl Into<ModuleImage>) -> Result<Arc<Module>> {
        Module::load(self, image)
    }
}

const LOG_SIZE: usize = 16 * 1024;

impl Module {
    /// Loads `image` into `ctx`. PTX that the driver's JIT refuses gives an `Err` carrying the
    /// JIT's error log.
    pub fn load(ctx: &Arc<Context>, image: impl Into<ModuleImage>) -> Result<Arc<Module>> {
        ctx.bind_to_thread()?;
        crate::fault::check(crate::fault::FaultPoint::ModuleLoad)?;
        let image = image.into();
        let mut raw: CUmodule = std::ptr::null_mut();
        match &image {
            ModuleImage::Ptx(text) => {
                let c = CString::new(text.as_str()).map_err(|e| {
                    Error::InvalidArgument(format!(
                        "PTX text contains a NUL byte (at byte {})",
                        e.nul_position()
                    ))
                })?;
                let mut log = vec![0u8; LOG_SIZE];
                let mut opts = [
                    sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
                    sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                ];
                let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), LOG_SIZE as *mut c_void];
                // SAFETY: `c` is a NUL-terminated image; the option arrays have 2 entries each,
                // the log buffer is LOG_SIZE bytes as declared, and all outlive the call.
                let r = unsafe {
                    drv!(cuModuleLoadDataEx(
                        &mut raw,
                        c.as_ptr().cast(),
                        2,
                        opts.as_mut_ptr(),
                        vals.as_mut_ptr()
                    ))
                };
                if let Err(e) = r {
                    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                    let text = String::from_utf8_lossy(&log[..end]).trim().to_string();
                    return Err(match e {
                        Error::Driver { code, .. }
                            if code == sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                                || (text.contains(".version") && text.contains("nsupported")) =>
                        {
                            let isa = text_ptx_version(image_text(&image));
                            let mut m = unsupported_ptx_message(&e, isa);
                            if !text.is_empty() {
                                m.push_str(&format!("\nJIT log:\n{text}"));
                            }
                            Error::InvalidArgument(m)
                        }
                        Error::Driver { .. } if !text.is_empty() => Error::InvalidArgument(
                            format!("loading PTX failed: {e}\nJIT log:\n{text}"),
                        ),
                        e => e,
                    });
                }
            }
            ModuleImage::Cubin(bytes) | ModuleImage::Fatbin(bytes) => {
                if bytes.is_empty() {
                    return Err(Error::InvalidArgument(
                        "an empty CUBIN/fatbin image cannot be loaded".to_string(),
                    ));
                }
                // The driver trusts the sizes inside the image: check that they stay inside it.
                match &image {
                    ModuleImage::Fatbin(_) => check_fatbin(bytes)?,
                    _ => check_cubin(bytes)?,
                }
                // The driver reads the ELF/fatbin headers in place: give it 8-byte alignment.
                let mut aligned = vec![0u64; bytes.len().div_ceil(8)];
                // SAFETY: `aligned` has at least `bytes.len()` bytes; the regions are distinct.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        bytes.as_ptr(),
                        aligned.as_mut_ptr().cast::<u8>(),
                        bytes.len(),
                    )
                };
                if matches!(image, ModuleImage::Fatbin(_)) {
                    // SAFETY: `aligned` holds the fatbin and outlives the call.
                    unsafe { drv!(cuModuleLoadFatBinary(&mut raw, aligned.as_ptr().cast())) }?;
                } else {
                    // SAFETY: `aligned` holds the CUBIN and outlives the call.
                    unsafe { drv!(cuModuleLoadData(&mut raw, aligned.as_ptr().cast())) }?;
                }
            }
        }
        ctx.note_module(true);
        Ok(Arc::new(Module {
            ctx: ctx.clone(),
            raw,
            globals: Mutex::new(HashMap::new()),
        }))
    }

    /// Loads a PTX, CUBIN or fatbin file (see [`ModuleImage::from_file`]).
    pub fn load_file(ctx: &Arc<Context>, path: impl AsRef<Path>) -> Result<Arc<Module>> {
        Self::load(ctx, ModuleImage::from_file(path)?)
    }

    /// The context this module lives in.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// The driver's handle.
    pub fn raw(&self) -> CUmodule {
        self.raw
    }

    /// The kernel named `name` (its `extern "C"` name, or the lowered name of a C++ template
    /// instance). An unknown name is an `Err` naming it.
    pub fn load_function(self: &Arc<Self>, name: &str) -> Result<Function> {
        self.ctx.bind_to_thread()?;
        let c = CString::new(name)
            .map_err(|_| Error::InvalidArgument(format!("function name {name:?} contains NUL")))?;
        let mut raw: CUfunction = std::ptr::null_mut();
        // SAFETY: `c` is NUL-terminated and the module is loaded (it lives as long as `self`).
        let r = unsafe { drv!(cuModuleGetFunction(&mut raw, self.raw, c.as_ptr())) };
        if let Err(e) = r {
            return Err(match e.code() {
                Some(sys::CUresult::CUDA_ERROR_NOT_FOUND) => {
                    Error::InvalidArgument(format!("no kernel named `{name}` in this module ({e})"))
                }
                _ => e,
            });
        }
        let max_threads = func_attr(raw, FA::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32;
        let max_dyn = func_attr(raw, FA::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)? as u32;
        let param_sizes = param_sizes(raw);
        Ok(Function {
            module: self.clone(),
            raw,
            info: Arc::new(FunctionInfo {
                name: name.to_string(),
                max_threads_per_block: max_threads,
                max_dynamic_shared: AtomicU32::new(max_dyn),
                param_sizes,
            }),
        })
    }

    /// The global variable `name` (a `__device__` or `__constant__` variable), as `len` elements
    /// of `T` where `len` is its size over `size_of::<T>()`. An unknown name, or a size that is
    /// not a multiple of `T`'s, is an `Err`.
    pub fn get_global<T: DeviceRepr>(self: &Arc<Self>, name: &str) -> Result<Global<T>> {
        self.ctx.bind_to_thread()?;
        let c = CString::new(name)
            .map_err(|_| Error::InvalidArgument(format!("global name {name:?} contains NUL")))?;
        let (mut ptr, mut bytes) = (0, 0usize);
        // SAFETY: both out-pointers are valid; `c` is NUL-terminated; the module is loaded.
        let r = unsafe {
            drv!(cuModuleGetGlobal_v2(
                &mut ptr,
                &mut bytes,
                self.raw,
                c.as_ptr()
            ))
        };
        if let Err(e) = r {
            return Err(match e.code() {
                Some(sys::CUresult::CUDA_ERROR_NOT_FOUND) => {
                    Error::InvalidArgument(format!("no global named `{name}` in this module ({e})"))
                }
                _ => e,
            });
        }
        let size = std::mem::size_of::<T>();
        if size == 0 || bytes % size != 0 {
            return Err(Error::InvalidArgument(format!(
                "global `{name}` has {bytes} bytes, not a whole number of {} ({size} bytes)",
                std::any::type_name::<T>()
            )));
        }
        let tracker = self
            .globals
            .lock()
            .map_err(|_| Error::InvalidArgument("module globals lock poisoned".into()))?
            .entry(name.to_string())
            .or_insert_with(|| Arc::new(Tracker::new(self.ctx.clone())))
            .clone();
        Ok(Global {
            module: self.clone(),
            ptr,
            len: bytes / size,
            tracker,
            _t: PhantomData,
        })
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        let raw = RawModule(self.raw);
        let ctx = Arc::downgrade(&self.ctx);
        // An unload synchronises the context, which a capture in progress (of any thread)
        // forbids: it is put off until the captures ended.
        self.ctx.outside_captures(
            "cuModuleUnload",
            Box::new(move || {
                let raw = raw;
                // SAFETY: the module was loaded by us and nothing refers to it any more
                // (functions and globals hold an Arc to it); the context is current.
                unsafe { drv!(cuModuleUnload(raw.0)) }?;
                if let Some(ctx) = ctx.upgrade() {
                    ctx.note_module(false);
                }
                Ok(())
            }),
        );
    }
}

/// A module handle moved into a put-off unload.
struct RawModule(sys::CUmodule);

// SAFETY: a module handle is a plain driver handle, usable from any thread with its context
// current; only the unload that owns this value uses it.
unsafe impl Send for RawModule {}

/// A `__device__`/`__constant__` variable of a loaded module, as a device view of `len()`
/// elements of `T`. It keeps the module loaded.
///
/// It is tracked like a buffer (all handles of one variable share one tracker): copy into and
/// out of it with the stream copy functions, and pass `&global` / `&mut global` to kernels.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.default_stream();
/// let m = ctx.load_module(cuprite_driver::nvrtc::compile_ptx("__constant__ float coeffs[4];")?)?;
/// let mut c = m.get_global::<f32>("coeffs")?;
/// s.memcpy_htod(&[1.0, 2.0, 3.0, 4.0], &mut c)?;
/// assert_eq!(s.clone_dtoh(&c)?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Global<T> {
    module: Arc<Module>,
    ptr: sys::CUdeviceptr,
    len: usize,
    tracker: Arc<Tracker>,
    _t: PhantomData<T>,
}

impl<T> crate::memory::tracker::sealed::Sealed for Global<T> {}
impl<T> DeviceRead<T> for Global<T> {
    fn device_ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn tracker(&self) -> &Tracker {
        &self.tracker
    }
}

impl<T> DeviceWrite<T> for Global<T> {}

impl<T> Global<T> {
    /// The device address.
    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }

    /// The device address as a typed pointer (a [`DeviceRepr`] kernel argument).
    pub fn ptr(&self) -> DevicePtr<T> {
        DevicePtr::new(self.ptr)
    }

    /// The number of `T` elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The module it belongs to.
    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }
}

/// Wraps one CUBIN (for compute capability `arch`, e.g. `90`) in a fatbin container, the format
/// `nvcc -fatbin` writes and `cuModuleLoadFatBinary` reads: a 16-byte container header
/// (magic `0xBA55ED50`, version 1, size of what follows) and one 64-byte entry header (kind 2 =
/// ELF, 64-bit Linux code) before the 8-byte-padded image.
///
/// ```
/// let cubin = b"\x7fELF....".to_vec();
/// let fat = cuprite_driver::module::fatbin_from_cubin(&cubin, 90);
/// assert_eq!(fat.len(), 16 + 64 + 8);
/// assert!(matches!(cuprite_driver::ModuleImage::from_bytes(fat), cuprite_driver::ModuleImage::Fatbin(_)));
/// ```
pub fn fatbin_from_cubin(cubin: &[u8], arch: u32) -> Vec<u8> {
    const ENTRY_HEADER: usize = 64;
    let padded = cubin.len().div_ceil(8) * 8;
    let mut out = Vec::with_capacity(16 + ENTRY_HEADER + padded);
    // Container header.
    out.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // version
    out.extend_from_slice(&16u16.to_le_bytes()); // header size
    out.extend_from_slice(&((ENTRY_HEADER + padded) as u64).to_le_bytes());
    // Entry header.
    out.extend_from_slice(&2u16.to_le_bytes()); // kind: ELF
    out.extend_from_slice(&0x0101u16.to_le_bytes()); // entry format version
    out.extend_from_slice(&(ENTRY_HEADER as u32).to_le_bytes()); // header size
    out.extend_from_slice(&(padded as u64).to_le_bytes()); // padded payload size
    out.extend_from_slice(&(cubin.len() as u32).to_le_bytes()); // payload size
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&arch.to_le_bytes()); // at 0x1c: the architecture
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0x11u64.to_le_bytes()); // flags: 64-bit, Linux
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // uncompressed size: not compressed
    debug_assert_eq!(out.len(), 16 + ENTRY_HEADER);
    out.extend_from_slice(cubin);
    out.resize(16 + ENTRY_HEADER + padded, 0);
    out
}

fn read_le(bytes: &[u8], at: usize, width: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(width)?)?;
    Some(b.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64))
}

/// A 64-bit ELF image whose section headers, and every section with contents, lie inside
/// `bytes` (the driver reads them where the header says).
fn check_cubin(bytes: &[u8]) -> Result<()> {
    let bad = |why: String| {
        Err(Error::InvalidArgument(format!(
            "not a loadable CUBIN ({} bytes): {why}",
            bytes.len()
        )))
    };
    if !bytes.starts_with(b"\x7fELF") {
        return bad("it does not start with the ELF magic \\x7fELF".into());
    }
    if bytes.get(4) != Some(&2) || bytes.len() < 64 {
        return bad("not a complete 64-bit ELF header".into());
    }
    let field = |at, width| read_le(bytes, at, width).unwrap_or(u64::MAX);
    let (shoff, shentsize, shnum) = (field(0x28, 8), field(0x3A, 2), field(0x3C, 2));
    let end = shentsize
        .checked_mul(shnum)
        .and_then(|n| n.checked_add(shoff))
        .unwrap_or(u64::MAX);
    if end > bytes.len() as u64 || (shnum > 0 && shentsize < 64) {
        return bad(format!(
            "its {shnum} section headers of {shentsize} bytes at offset {shoff} end past the image"
        ));
    }
    for i in 0..shnum {
        let h = (shoff + i * shentsize) as usize;
        let (kind, off, size) = (field(h + 4, 4), field(h + 0x18, 8), field(h + 0x20, 8));
        // SHT_NOBITS (8) has no contents in the file.
        if kind != 8 && off.checked_add(size).is_none_or(|e| e > bytes.len() as u64) {
            return bad(format!(
                "section {i} ({size} bytes at offset {off}) ends past the image"
            ));
        }
    }
    Ok(())
}

/// A fatbin container whose declared size lies inside `bytes`.
fn check_fatbin(bytes: &[u8]) -> Result<()> {
    let field = |at, width| read_le(bytes, at, width).unwrap_or(u64::MAX);
    if field(0, 4) != 0xBA55_ED50 || bytes.len() < 16 {
        return Err(Error::InvalidArgument(format!(
            "not a fatbin ({} bytes): no complete container header with the magic 0xBA55ED50",
            bytes.len()
        )));
    }
    let (header, payload) = (field(6, 2), field(8, 8));
    if header
        .checked_add(payload)
        .is_none_or(|e| e > bytes.len() as u64)
    {
        return Err(Error::InvalidArgument(format!(
            "not a loadable fatbin: its header ({header} bytes) and payload ({payload} bytes) end \
             past the image of {} bytes",
            bytes.len()
        )));
    }
    Ok(())
}

fn func_attr(raw: CUfunction, attr: FA) -> Result<i32> {
    let mut v = 0;
    // SAFETY: `v` is a valid out-pointer and `raw` a function of a loaded module.
    unsafe { drv!(cuFuncGetAttribute(&mut v, attr, raw)) }?;
    Ok(v)
}

/// The byte size of each kernel parameter, when the driver can tell (CUDA 12.4+), else `None`.
fn param_sizes(raw: CUfunction) -> Option<Box<[u32]>> {
    let mut sizes = Vec::new();
    for index in 0..4096usize {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: out-pointers are valid; an index past the end gives an error status.
        match unsafe { sys::cuFuncGetParamInfo(raw, index, &mut offset, &mut size) } {
            Ok(r) if r.is_success() => sizes.push(size as u32),
            Ok(r) if r == sys::CUresult::CUDA_ERROR_INVALID_VALUE => {
                return Some(sizes.into_boxed_slice());
            }
            _ => return None,
        }
    }
    None
}

#[derive(Debug)]
pub(crate) struct FunctionInfo {
    pub(crate) name: String,
    pub(crate) max_threads_per_block: u32,
    pub(crate) max_dynamic_shared: AtomicU32,
    pub(crate) param_sizes: Option<Box<[u32]>>,
}

/// A kernel of a loaded [`Module`]. Cheap to clone; keeps its module loaded.
///
/// Launch it with [`Stream::launch_builder`](crate::Stream::launch_builder).
#[derive(Debug, Clone)]
pub struct Function {
    module: Arc<Module>,
    raw: CUfunction,
    pub(crate) info: Arc<FunctionInfo>,
}

// SAFETY: a CUfunction is an immutable handle into a loaded module (kept alive by `module`);
// the driver allows its use from any thread where the context is current.
unsafe impl Send for Function {}
// SAFETY: as above; the only mutable state (dynamic shared limit) is atomic.
unsafe impl Sync for Function {}

/// What the compiler and driver report about a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionAttributes {
    /// Registers per thread.
    pub num_regs: u32,
    /// Statically allocated shared memory per block, in bytes.
    pub static_shared_bytes: u32,
    /// Local memory per thread, in bytes.
    pub local_bytes: u32,
    /// Constant memory the kernel uses, in bytes.
    pub const_bytes: u32,
    /// The largest block this kernel can be launched with.
    pub max_threads_per_block: u32,
    /// The current dynamic shared memory limit, in bytes.
    pub max_dynamic_shared_bytes: u32,
    /// PTX version the kernel was compiled from (major × 10 + minor).
    pub ptx_version: u32,
    /// Binary (SASS) architecture (major × 10 + minor).
    pub binary_version: u32,
}

impl Function {
    /// The name it was looked up by.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The driver's handle.
    pub fn raw(&self) -> CUfunction {
        self.raw
    }

    /// The module it belongs to.
    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }

    /// The context it lives in.
    pub fn context(&self) -> &Arc<Context> {
        &self.module.ctx
    }

    /// The number of parameters the kernel declares, when the driver can tell (CUDA 12.4+).
    pub fn num_params(&self) -> Option<usize> {
        self.info.param_sizes.as_ref().map(|s| s.len())
    }

    /// The byte size of each parameter, when the driver can tell.
    pub fn param_sizes(&self) -> Option<&[u32]> {
        self.info.param_sizes.as_deref()
    }

    /// One raw attribute.
    pub fn attribute(&self, attr: FA) -> Result<i32> {
        func_attr(self.raw, attr)
    }

    /// Registers, shared/local/constant memory and limits.
    pub fn attributes(&self) -> Result<FunctionAttributes> {
        let a = |x| self.attribute(x).map(|v| v as u32);
        Ok(FunctionAttributes {
            num_regs: a(FA::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared_bytes: a(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            local_bytes: a(FA::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            const_bytes: a(FA::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?,
            max_threads_per_block: a(FA::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_dynamic_shared_bytes: a(FA::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?,
            ptx_version: a(FA::CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
            binary_version: a(FA::CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
        })
    }

    /// The dynamic shared memory a launch may ask for, in bytes (48 KiB minus static shared
    /// memory by default; raise it with
    /// [`set_max_dynamic_shared_memory`](Self::set_max_dynamic_shared_memory)).
    pub fn max_dynamic_shared_memory(&self) -> u32 {
        self.info.max_dynamic_shared.load(Ordering::Relaxed)
    }

    /// Lets launches of this kernel ask for up to `bytes` of dynamic shared memory (above the
    /// default 48 KiB, up to the device's opt-in limit). Above that limit it is an `Err`.
    pub fn set_max_dynamic_shared_memory(&self, bytes: u32) -> Result<()> {
        self.context().bind_to_thread()?;
        let device = self.context().device();
        let optin = device.attribute(crate::DeviceAttribute::MaxSharedMemoryPerBlockOptin)?;
        if bytes > optin.max(0) as u32 {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}`: {bytes} bytes of dynamic shared memory asked for, above the {optin} \
                 bytes per block that device {} allows",
                self.name(),
                device.ordinal()
            )));
        }
        // SAFETY: `raw` is a function of a loaded module; the value is range-checked by the
        // driver.
        unsafe {
            drv!(cuFuncSetAttribute(
                self.raw,
                FA::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32
            ))
        }?;
        self.info.max_dynamic_shared.store(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// How many blocks of `block_size` threads using `dynamic_shared_bytes` can be resident on
    /// one multiprocessor.
    pub fn max_active_blocks_per_sm(
        &self,
        block_size: u32,
        dynamic_shared_bytes: usize,
    ) -> Result<u32> {
        self.context().bind_to_thread()?;
        let mut n = 0;
        // SAFETY: `n` is a valid out-pointer; `raw` is a loaded function.
        unsafe {
            drv!(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                self.raw,
                block_size as i32,
                dynamic_shared_bytes
            ))
        }?;
        Ok(n as u32)
    }

    /// The block size that maximises occupancy, with the smallest grid that fills the device at
    /// that size: `(min_grid_size, block_size)`.
    pub fn suggested_block_size(&self, dynamic_shared_bytes: usize) -> Result<(u32, u32)> {
        self.context().bind_to_thread()?;
        let (mut grid, mut block) = (0, 0);
        // SAFETY: out-pointers are valid; no block-size callback; `raw` is a loaded function.
        unsafe {
            drv!(cuOccupancyMaxPotentialBlockSize(
                &mut grid,
                &mut block,
                self.raw,
                None,
                dynamic_shared_bytes,
                0
            ))
        }?;
        Ok((grid as u32, block as u32))
    }

    /// Sets the preferred split of L1 cache and shared memory for this kernel.
    pub fn set_cache_config(&self, config: sys::CUfunc_cache) -> Result<()> {
        self.context().bind_to_thread()?;
        // SAFETY: `raw` is a loaded function; the config is a valid enum value.
        unsafe { drv!(cuFuncSetCacheConfig(self.raw, config)) }
    }
}

fn image_text(image: &ModuleImage) -> &str {
    match image {
        ModuleImage::Ptx(t) => t.as_str(),
        _ => "",
    }
}

/// The `.version` directive of PTX text, e.g. `Some((9, 0))` for `.version 9.0`.
fn text_ptx_version(ptx: &str) -> Option<(u32, u32)> {
    let line = ptx
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(".version"))?;
    let (major, minor) = line.trim_start_matches(".version").trim().split_once('.')?;
    Some((major.trim().parse().ok()?, minor.trim().parse().ok()?))
}

/// Why the driver refused PTX: it was written for a newer PTX ISA than this driver knows,
/// typically by an NVRTC newer than the driver. Says what to do about it.
fn unsupported_ptx_message(e: &Error, ptx_version: Option<(u32, u32)>) -> String {
    let isa = ptx_version.map_or("an unknown version".to_string(), |(a, b)| {
        format!("{a}.{b}")
    });
    let driver = crate::driver_version()
        .map(|(a, b)| format!("CUDA {a}.{b}"))
        .unwrap_or_else(|_| "unknown".into());
    let nvrtc = crate::nvrtc::version()
        .map(|(a, b)| format!("NVRTC {a}.{b}"))
        .unwrap_or_else(|_| "no NVRTC loaded".into());
    format!(
        "{e}\nThe PTX declares ISA version {isa}, newer than this driver ({driver}) can JIT-compile; \
         it was probably produced by a newer compiler ({nvrtc}). Either compile to CUBIN for the \
         device (nvrtc::Output::Cubin, or Output::Auto, which does so when NVRTC is newer than \
         the driver), point CUPRITE_NVRTC_PATH at the NVRTC that matches the driver, or update \
         the driver."
    )
}
