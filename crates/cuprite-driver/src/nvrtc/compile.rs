//! Compiling a source: the NVRTC program, its log, its image and the lowered names.

use super::image::{Image, Ptx};
use super::library::{cstring, nvrtc_check, result_name, until_nul};
use super::options::{CompileOptions, Output, resolve_target};
use crate::error::{Error, Result};
use cuprite_sys::nvrtc::{self as sys, nvrtcProgram, nvrtcResult};
use std::ffi::{CStr, c_char};

/// The result of [`compile`]: the image, the architecture it was built for, the compiler's log
/// (warnings) and the lowered names of the name expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    image: Image,
    arch: String,
    log: String,
    lowered: Vec<(String, String)>,
}

impl Compiled {
    /// The compiled image.
    pub fn image(&self) -> &Image {
        &self.image
    }
    /// The compiled image, owned.
    pub fn into_image(self) -> Image {
        self.image
    }
    /// The PTX, when PTX was produced.
    pub fn ptx(&self) -> Option<&Ptx> {
        match &self.image {
            Image::Ptx(p) => Some(p),
            Image::Cubin(_) => None,
        }
    }
    /// The CUBIN bytes, when CUBIN was produced.
    pub fn cubin(&self) -> Option<&[u8]> {
        match &self.image {
            Image::Cubin(c) => Some(c),
            Image::Ptx(_) => None,
        }
    }
    /// The architecture passed to NVRTC, e.g. `compute_90` or `sm_90`.
    pub fn arch(&self) -> &str {
        &self.arch
    }
    /// The compile log (warnings; empty when there were none).
    pub fn log(&self) -> &str {
        &self.log
    }
    /// The lowered (mangled) name of a name expression given in the options.
    pub fn lowered_name(&self, expr: &str) -> Option<&str> {
        self.lowered
            .iter()
            .find(|(e, _)| e == expr)
            .map(|(_, l)| l.as_str())
    }
    /// Every `(name expression, lowered name)` pair, in the order given.
    pub fn lowered_names(&self) -> &[(String, String)] {
        &self.lowered
    }
}

/// Compiles CUDA C++ to PTX for the default architecture (the device's, or
/// [`FALLBACK_ARCH`]). `Err(Error::Nvrtc)` with the whole log when it does not compile.
///
/// ```
/// match cuprite_driver::nvrtc::compile_ptx("extern \"C\" __global__ void k(int *x) { *x = 1; }") {
///     Ok(ptx) => assert!(ptx.as_str().contains(".entry k")),
///     Err(e) => println!("no NVRTC: {e}"),
/// }
/// ```
///
/// [`FALLBACK_ARCH`]: super::FALLBACK_ARCH
pub fn compile_ptx(src: impl AsRef<str>) -> Result<Ptx> {
    let compiled = compile(src, &CompileOptions::new().output(Output::Ptx))?;
    match compiled.image {
        Image::Ptx(p) => Ok(p),
        Image::Cubin(_) => Err(Error::InvalidArgument(
            "NVRTC produced CUBIN where PTX was asked".into(),
        )),
    }
}

/// Compiles CUDA C++ with `opts`. `Err(Error::Nvrtc)` with the whole log when it does not
/// compile; `Err(Error::InvalidArgument)` for contradictory options (CUBIN for a virtual
/// architecture, an architecture that cannot be parsed).
///
/// ```
/// use cuprite_driver::nvrtc::{compile, CompileOptions, Output};
/// let src = "template <typename T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }";
/// let opts = CompileOptions::new().arch("compute_80").output(Output::Ptx)
///     .name_expression("fill<float>");
/// match compile(src, &opts) {
///     Ok(c) => assert!(c.lowered_name("fill<float>").unwrap().starts_with("_Z")),
///     Err(e) => println!("no NVRTC: {e}"),
/// }
/// ```
pub fn compile(src: impl AsRef<str>, opts: &CompileOptions) -> Result<Compiled> {
    let (arch, cubin) = resolve_target(opts)?;
    let args = opts.args()?;

    let name = opts.name.as_deref().unwrap_or("kernel.cu");
    let program = Program::create(src.as_ref(), name, &opts.headers)?;
    crate::fault::check(crate::fault::FaultPoint::NvrtcCompile)?;
    let exprs = opts
        .name_expressions
        .iter()
        .map(|e| cstring(e, "name expression"))
        .collect::<Result<Vec<_>>>()?;
    for e in &exprs {
        // SAFETY: the program is live; `e` is NUL-terminated and outlives the call.
        let status = unsafe { sys::nvrtcAddNameExpression(program.0, e.as_ptr()) };
        nvrtc_check(status, "nvrtcAddNameExpression")?;
    }
    let c_args = args
        .iter()
        .map(|a| cstring(a, "NVRTC option"))
        .collect::<Result<Vec<_>>>()?;
    let ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: the program is live; `ptrs` holds `ptrs.len()` NUL-terminated strings that
    // outlive the call.
    let status = unsafe { sys::nvrtcCompileProgram(program.0, ptrs.len() as i32, ptrs.as_ptr()) }?;
    let log = program.log()?;
    if status != nvrtcResult::NVRTC_SUCCESS {
        return Err(Error::Nvrtc {
            name: result_name(status),
            call: "nvrtcCompileProgram",
            log: if log.is_empty() {
                format!("(empty log; options: {})", args.join(" "))
            } else {
                log
            },
        });
    }
    let image = if cubin {
        Image::Cubin(program.cubin()?)
    } else {
        Image::Ptx(Ptx::from_src(program.ptx()?))
    };
    let mut lowered = Vec::with_capacity(exprs.len());
    for (expr, c) in opts.name_expressions.iter().zip(&exprs) {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: the program is live and compiled; `c` was added before compiling; `p` is a
        // valid out-pointer. The returned string is owned by the program and copied below,
        // before the program is destroyed.
        let status = unsafe { sys::nvrtcGetLoweredName(program.0, c.as_ptr(), &mut p) };
        nvrtc_check(status, "nvrtcGetLoweredName")?;
        if p.is_null() {
            return Err(Error::Nvrtc {
                name: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID".into(),
                call: "nvrtcGetLoweredName",
                log: format!("no lowered name for `{expr}`"),
            });
        }
        // SAFETY: non-null, NUL-terminated, alive while the program is.
        let l = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        lowered.push((expr.clone(), l));
    }
    Ok(Compiled {
        image,
        arch,
        log,
        lowered,
    })
}

/// An NVRTC program, destroyed on drop.
struct Program(nvrtcProgram);

/// NVRTC programs created and not yet destroyed (a leak check for tests).
static LIVE_PROGRAMS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many NVRTC programs exist now: 0 whenever no compile is in progress (a leak check).
#[doc(hidden)]
pub fn live_programs() -> usize {
    LIVE_PROGRAMS.load(std::sync::atomic::Ordering::Acquire)
}

impl Program {
    fn create(src: &str, name: &str, headers: &[(String, String)]) -> Result<Self> {
        let src = cstring(src, "CUDA source")?;
        let name = cstring(name, "program name")?;
        let names = headers
            .iter()
            .map(|(n, _)| cstring(n, "header name"))
            .collect::<Result<Vec<_>>>()?;
        let bodies = headers
            .iter()
            .map(|(_, b)| cstring(b, "header contents"))
            .collect::<Result<Vec<_>>>()?;
        let name_ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
        let body_ptrs: Vec<*const c_char> = bodies.iter().map(|c| c.as_ptr()).collect();
        let mut prog: nvrtcProgram = std::ptr::null_mut();
        // SAFETY: every pointer is a live NUL-terminated string; the two header arrays both
        // have `headers.len()` entries; `prog` is a valid out-pointer.
        let status = unsafe {
            sys::nvrtcCreateProgram(
                &mut prog,
                src.as_ptr(),
                name.as_ptr(),
                headers.len() as i32,
                body_ptrs.as_ptr(),
                name_ptrs.as_ptr(),
            )
        };
        nvrtc_check(status, "nvrtcCreateProgram")?;
        LIVE_PROGRAMS.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(Program(prog))
    }

    fn log(&self) -> Result<String> {
        let mut size = 0usize;
        // SAFETY: live program, valid out-pointer.
        let status = unsafe { sys::nvrtcGetProgramLogSize(self.0, &mut size) };
        nvrtc_check(status, "nvrtcGetProgramLogSize")?;
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: `buf` holds the `size` bytes NVRTC said the log needs (NUL included).
        let status = unsafe { sys::nvrtcGetProgramLog(self.0, buf.as_mut_ptr().cast()) };
        nvrtc_check(status, "nvrtcGetProgramLog")?;
        Ok(until_nul(&buf).trim_end().to_string())
    }

    fn ptx(&self) -> Result<String> {
        let mut size = 0usize;
        // SAFETY: live, compiled program; valid out-pointer.
        let status = unsafe { sys::nvrtcGetPTXSize(self.0, &mut size) };
        nvrtc_check(status, "nvrtcGetPTXSize")?;
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: `buf` holds the `size` bytes NVRTC said the PTX needs (NUL included).
        let status = unsafe { sys::nvrtcGetPTX(self.0, buf.as_mut_ptr().cast()) };
        nvrtc_check(status, "nvrtcGetPTX")?;
        Ok(until_nul(&buf))
    }

    fn cubin(&self) -> Result<Vec<u8>> {
        let mut size = 0usize;
        // SAFETY: live, compiled program; valid out-pointer.
        let status = unsafe { sys::nvrtcGetCUBINSize(self.0, &mut size) };
        nvrtc_check(status, "nvrtcGetCUBINSize")?;
        if size == 0 {
            return Err(Error::Nvrtc {
                name: "NVRTC_ERROR_INVALID_INPUT".into(),
                call: "nvrtcGetCUBINSize",
                log: "no CUBIN was produced (was a virtual compute_XX architecture used?)".into(),
            });
        }
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` holds the `size` bytes NVRTC said the CUBIN needs.
        let status = unsafe { sys::nvrtcGetCUBIN(self.0, buf.as_mut_ptr().cast()) };
        nvrtc_check(status, "nvrtcGetCUBIN")?;
        Ok(buf)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once. The only
        // failure is an invalid handle, which cannot happen here, so the status is not kept.
        let _ = unsafe { sys::nvrtcDestroyProgram(&mut self.0) };
        LIVE_PROGRAMS.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}
