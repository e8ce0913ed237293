//! The driver's linker: joins relocatable device code (CUBIN or PTX objects, e.g. NVRTC output
//! built with `-rdc=true`) into one executable CUBIN.
//!
//! Owns the `CUlinkState` handle and nothing else; loading the result is [`Module::load`].
//!
//! [`Module::load`]: crate::Module::load

use crate::context::Context;
use crate::drv;
use crate::error::{Error, Result};
use cuprite_sys::driver::{CUjitInputType, CUlinkState};
use std::ffi::{CString, c_void};
use std::sync::Arc;

/// A link in progress, for the device of one context. Destroyed on drop.
///
/// ```no_run
/// # fn main() -> cuprite_driver::Result<()> {
/// use cuprite_driver::nvrtc::{CompileOptions, Output, compile};
/// let ctx = cuprite_driver::Context::new(0)?;
/// let (maj, min) = ctx.device().compute_capability()?;
/// let opts = CompileOptions::new()
///     .arch(format!("sm_{maj}{min}"))
///     .output(Output::Cubin)
///     .option("-rdc=true");
/// let lib = compile(r#"extern "C" __device__ float twice(float x) { return 2 * x; }"#, &opts)?;
/// let main = compile(
///     r#"extern "C" __device__ float twice(float);
///        extern "C" __global__ void k(float *x) { x[0] = twice(x[0]); }"#,
///     &opts,
/// )?;
/// let mut link = cuprite_driver::Linker::new(&ctx)?;
/// link.add_cubin(main.cubin().unwrap(), "main")?;
/// link.add_cubin(lib.cubin().unwrap(), "lib")?;
/// let module = ctx.load_module(cuprite_driver::ModuleImage::cubin(link.complete()?))?;
/// let _k = module.load_function("k")?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Linker {
    ctx: Arc<Context>,
    raw: CUlinkState,
}

// SAFETY: a link state is host-side state of the driver, used by one owner at a time (every
// method takes `&mut self` or `self`); the driver allows it on any thread.
unsafe impl Send for Linker {}

impl Linker {
    /// A new link for the device of `ctx`, without options.
    pub fn new(ctx: &Arc<Context>) -> Result<Linker> {
        ctx.bind_to_thread()?;
        let mut raw: CUlinkState = std::ptr::null_mut();
        // SAFETY: no options (null arrays, count 0); `raw` is a valid out-pointer; the context
        // is current on this thread.
        unsafe {
            drv!(cuLinkCreate_v2(
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut raw
            ))
        }?;
        Ok(Linker {
            ctx: ctx.clone(),
            raw,
        })
    }

    /// Adds a relocatable CUBIN, named `name` in the linker's messages.
    pub fn add_cubin(&mut self, cubin: &[u8], name: &str) -> Result<()> {
        self.add(CUjitInputType::CU_JIT_INPUT_CUBIN, cubin, name)
    }

    /// Adds PTX text (compiled by the driver's JIT as part of the link).
    pub fn add_ptx(&mut self, ptx: &str, name: &str) -> Result<()> {
        let mut text = Vec::with_capacity(ptx.len() + 1);
        text.extend_from_slice(ptx.as_bytes());
        text.push(0);
        self.add(CUjitInputType::CU_JIT_INPUT_PTX, &text, name)
    }

    fn add(&mut self, kind: CUjitInputType, data: &[u8], name: &str) -> Result<()> {
        if data.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "an empty image ({name}) cannot be linked"
            )));
        }
        let cname = CString::new(name).map_err(|_| {
            Error::InvalidArgument(format!("a link input name with a NUL byte: {name:?}"))
        })?;
        self.ctx.bind_to_thread()?;
        // SAFETY: `raw` is a live link state; `data` is a complete image of `data.len()` bytes
        // (PTX NUL-terminated by `add_ptx`) that the driver copies before returning; `cname`
        // is NUL-terminated; no per-input options.
        unsafe {
            drv!(cuLinkAddData_v2(
                self.raw,
                kind,
                data.as_ptr() as *mut c_void,
                data.len(),
                cname.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ))
        }
    }

    /// Completes the link: the executable CUBIN (a copy; the link state is destroyed).
    pub fn complete(self) -> Result<Vec<u8>> {
        self.ctx.bind_to_thread()?;
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `raw` is live; `out` and `size` are valid out-pointers.
        unsafe { drv!(cuLinkComplete(self.raw, &mut out, &mut size)) }?;
        if out.is_null() || size == 0 {
            return Err(Error::InvalidArgument(
                "cuLinkComplete returned no CUBIN".into(),
            ));
        }
        // SAFETY: the driver returned `size` bytes at `out`, owned by the link state, which is
        // destroyed only when `self` drops, after this copy.
        Ok(unsafe { std::slice::from_raw_parts(out as *const u8, size) }.to_vec())
    }
}

impl Drop for Linker {
    fn drop(&mut self) {
        // SAFETY: made by cuLinkCreate and destroyed once, here. The state holds host memory
        // only: a failure leaves nothing to report.
        let _ = unsafe { cuprite_sys::driver::cuLinkDestroy(self.raw) };
    }
}
