//! Run-time compilation of CUDA C++ with NVRTC.
//!
//! This module owns turning source text into a loadable image ([`Ptx`] text or CUBIN bytes):
//! choosing the target architecture, building NVRTC's option list, collecting the compile log
//! and the lowered names of C++ template instantiations. It must not load modules into a
//! context: that is the module layer's job, which takes an [`Image`].
//!
//! NVRTC needs no GPU. When a driver and a device exist, the default architecture is the
//! device's (the device current on this thread, else device 0); without one it is
//! [`FALLBACK_ARCH`].
//!
//! ```
//! let src = r#"extern "C" __global__ void scale(float *x, float a, int n) {
//!     int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) x[i] *= a;
//! }"#;
//! match cuprite::nvrtc::compile_ptx(src) {
//!     Ok(ptx) => assert!(ptx.as_str().contains(".entry scale")),
//!     Err(e) => println!("no NVRTC here: {e}"),
//! }
//! ```
//!
//! **Which NVRTC.** The library is found as `cuprite_sys::nvrtc::SPEC` says (override:
//! `CUPRITE_NVRTC_PATH`); [`library_path`] tells which file was loaded. PTX from an NVRTC newer
//! than the driver is refused by the driver (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`: the PTX ISA
//! version is newer than the driver's JIT knows). [`Output::Auto`], the default of
//! [`CompileOptions`], therefore compiles to CUBIN for the device in that case (see
//! [`nvrtc_newer_than_driver`]); CUBIN is machine code and needs no JIT.

use crate::error::{Error, Result};
use cuprite_sys::nvrtc::{self as sys, nvrtcProgram, nvrtcResult};
use std::ffi::{CStr, CString, c_char};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The architecture used when no device can be asked: the oldest one NVRTC 13 still accepts,
/// so that the PTX loads on every GPU a current driver supports.
pub const FALLBACK_ARCH: u32 = 75;

/// PTX assembly text, as NVRTC emits it and as the driver loads it.
///
/// ```
/// let ptx = cuprite::nvrtc::Ptx::from_src(".version 8.0\n.target sm_75\n.address_size 64\n");
/// assert!(ptx.as_str().starts_with(".version"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ptx {
    text: String,
}

impl Ptx {
    /// PTX from its text.
    pub fn from_src(text: impl Into<String>) -> Self {
        Ptx { text: text.into() }
    }

    /// PTX read from a `.ptx` file; `Err` naming the file if it cannot be read.
    ///
    /// ```
    /// let e = cuprite::nvrtc::Ptx::from_file("/no/such/kernel.ptx").unwrap_err();
    /// assert!(e.to_string().contains("/no/such/kernel.ptx"));
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        std::fs::read_to_string(path)
            .map(Ptx::from_src)
            .map_err(|e| {
                Error::InvalidArgument(format!("cannot read PTX file {}: {e}", path.display()))
            })
    }

    /// The PTX text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The PTX text, owned.
    pub fn into_string(self) -> String {
        self.text
    }

    /// The text as a NUL-terminated string, as `cuModuleLoadData` wants it. `Err` if the text
    /// contains a NUL byte.
    pub fn to_cstring(&self) -> Result<CString> {
        cstring(&self.text, "PTX text")
    }
}

impl From<String> for Ptx {
    fn from(text: String) -> Self {
        Ptx::from_src(text)
    }
}

impl From<&str> for Ptx {
    fn from(text: &str) -> Self {
        Ptx::from_src(text)
    }
}

impl std::fmt::Display for Ptx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// A compiled, loadable image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Image {
    /// PTX, JIT-compiled by the driver when loaded (forward compatible with newer GPUs).
    Ptx(Ptx),
    /// An ELF CUBIN for one real architecture (`sm_XX`).
    Cubin(Vec<u8>),
}

/// What [`compile`] should produce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Output {
    /// PTX for `compute_XX`, unless NVRTC is newer than the driver and a device exists, in
    /// which case CUBIN for the device (the driver would refuse the newer PTX).
    #[default]
    Auto,
    /// PTX text.
    Ptx,
    /// CUBIN for a real architecture `sm_XX` (the device's by default).
    Cubin,
}

/// The options of [`compile`]. Every field has a builder method of the same name.
///
/// ```
/// use cuprite::nvrtc::{CompileOptions, Output};
/// let opts = CompileOptions::new()
///     .arch("sm_90")
///     .output(Output::Cubin)
///     .define("N", "256")
///     .use_fast_math(true)
///     .name_expression("axpy<float>");
/// assert_eq!(opts.arch.as_deref(), Some("sm_90"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// `sm_XX` or `compute_XX` (a bare `XX` works too); `None`: the current device's, or
    /// [`FALLBACK_ARCH`] when there is none.
    pub arch: Option<String>,
    /// PTX, CUBIN, or automatic (see [`Output`]).
    pub output: Output,
    /// Folders searched by `#include` (`--include-path`).
    pub include_paths: Vec<PathBuf>,
    /// Headers given in memory, as `(include name, contents)`.
    pub headers: Vec<(String, String)>,
    /// Macro definitions (`--define-macro`): `(name, Some(value))` or `(name, None)`.
    pub defines: Vec<(String, Option<String>)>,
    /// `--use_fast_math` (implies ftz, fast division and square root, fmad).
    pub use_fast_math: bool,
    /// `--fmad=`: contract multiply and add into FMA. `None`: NVRTC's default (true).
    pub fmad: Option<bool>,
    /// `--ftz=`: flush single-precision denormals to zero. `None`: NVRTC's default (false).
    pub ftz: Option<bool>,
    /// `--prec-div=`: IEEE single-precision division. `None`: NVRTC's default (true).
    pub prec_div: Option<bool>,
    /// `--prec-sqrt=`: IEEE single-precision square root. `None`: NVRTC's default (true).
    pub prec_sqrt: Option<bool>,
    /// `--maxrregcount=`: register limit per thread.
    pub maxrregcount: Option<u32>,
    /// `--generate-line-info`: source line information for profilers.
    pub line_info: bool,
    /// The program's name, as it appears in the log (`name(3): error ...`). Default `kernel.cu`.
    pub name: Option<String>,
    /// C++ expressions naming `__global__` functions or `__device__` variables (typically
    /// template instantiations, e.g. `"axpy<float>"`) whose lowered (mangled) names are wanted.
    pub name_expressions: Vec<String>,
    /// Any other NVRTC options, passed as given (e.g. `"--std=c++20"`).
    pub options: Vec<String>,
    /// Leave out the CUDA header folders found by [`default_include_paths`] (which are
    /// otherwise searched after `include_paths`, so that `#include <cuda_fp16.h>` works).
    pub no_default_includes: bool,
}

impl CompileOptions {
    /// Default options: the device's architecture, automatic output, no extra flags.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`arch`](Self::arch).
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = Some(arch.into());
        self
    }
    /// Sets [`output`](Self::output).
    pub fn output(mut self, output: Output) -> Self {
        self.output = output;
        self
    }
    /// Adds an include folder.
    pub fn include_path(mut self, dir: impl Into<PathBuf>) -> Self {
        self.include_paths.push(dir.into());
        self
    }
    /// Adds an in-memory header that `#include "name"` finds.
    pub fn header(mut self, name: impl Into<String>, contents: impl Into<String>) -> Self {
        self.headers.push((name.into(), contents.into()));
        self
    }
    /// Defines a macro with a value (`-DNAME=VALUE`).
    pub fn define(mut self, name: impl Into<String>, value: impl ToString) -> Self {
        self.defines.push((name.into(), Some(value.to_string())));
        self
    }
    /// Defines a macro without a value (`-DNAME`).
    pub fn define_flag(mut self, name: impl Into<String>) -> Self {
        self.defines.push((name.into(), None));
        self
    }
    /// Sets [`use_fast_math`](Self::use_fast_math).
    pub fn use_fast_math(mut self, on: bool) -> Self {
        self.use_fast_math = on;
        self
    }
    /// Sets [`fmad`](Self::fmad).
    pub fn fmad(mut self, on: bool) -> Self {
        self.fmad = Some(on);
        self
    }
    /// Sets [`ftz`](Self::ftz).
    pub fn ftz(mut self, on: bool) -> Self {
        self.ftz = Some(on);
        self
    }
    /// Sets [`prec_div`](Self::prec_div).
    pub fn prec_div(mut self, on: bool) -> Self {
        self.prec_div = Some(on);
        self
    }
    /// Sets [`prec_sqrt`](Self::prec_sqrt).
    pub fn prec_sqrt(mut self, on: bool) -> Self {
        self.prec_sqrt = Some(on);
        self
    }
    /// Sets [`maxrregcount`](Self::maxrregcount).
    pub fn maxrregcount(mut self, n: u32) -> Self {
        self.maxrregcount = Some(n);
        self
    }
    /// Sets [`line_info`](Self::line_info).
    pub fn line_info(mut self, on: bool) -> Self {
        self.line_info = on;
        self
    }
    /// Sets [`name`](Self::name).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// Adds a name expression (see [`name_expressions`](Self::name_expressions)).
    pub fn name_expression(mut self, expr: impl Into<String>) -> Self {
        self.name_expressions.push(expr.into());
        self
    }
    /// Whether to search the CUDA header folders of [`default_include_paths`] (default: yes).
    pub fn default_includes(mut self, on: bool) -> Self {
        self.no_default_includes = !on;
        self
    }
    /// Adds a raw NVRTC option.
    pub fn option(mut self, opt: impl Into<String>) -> Self {
        self.options.push(opt.into());
        self
    }
}

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
/// match cuprite::nvrtc::compile_ptx("extern \"C\" __global__ void k(int *x) { *x = 1; }") {
///     Ok(ptx) => assert!(ptx.as_str().contains(".entry k")),
///     Err(e) => println!("no NVRTC: {e}"),
/// }
/// ```
pub fn compile_ptx(src: impl AsRef<str>) -> Result<Ptx> {
    let compiled = compile(src, &CompileOptions::new().output(Output::Ptx))?;
    match compiled.image {
        Image::Ptx(p) => Ok(p),
        Image::Cubin(_) => Err(Error::InvalidArgument(
            "NVRTC produced CUBIN where PTX was asked".into(),
        )),
    }
}

impl CompileOptions {
    /// The exact option list [`compile`] passes to NVRTC for these options (the target
    /// architecture first, then include paths, defines, flags and the extra options in order).
    /// What a cache of compiled code should key on.
    ///
    /// ```
    /// let o = cuprite::CompileOptions::new().arch("sm_90").default_includes(false).option("-lineinfo");
    /// assert_eq!(o.args().unwrap(), ["--gpu-architecture=sm_90", "-lineinfo"]);
    /// ```
    pub fn args(&self) -> Result<Vec<String>> {
        let (arch, _) = resolve_target(self)?;
        let mut args: Vec<String> = vec![format!("--gpu-architecture={arch}")];
        for dir in &self.include_paths {
            args.push(format!("--include-path={}", dir.display()));
        }
        if !self.no_default_includes {
            for dir in default_include_paths() {
                args.push(format!("--include-path={}", dir.display()));
            }
        }
        for (name, value) in &self.defines {
            args.push(match value {
                Some(v) => format!("--define-macro={name}={v}"),
                None => format!("--define-macro={name}"),
            });
        }
        if self.use_fast_math {
            args.push("--use_fast_math".into());
        }
        for (flag, v) in [
            ("fmad", self.fmad),
            ("ftz", self.ftz),
            ("prec-div", self.prec_div),
            ("prec-sqrt", self.prec_sqrt),
        ] {
            if let Some(v) = v {
                args.push(format!("--{flag}={v}"));
            }
        }
        if let Some(n) = self.maxrregcount {
            args.push(format!("--maxrregcount={n}"));
        }
        if self.line_info {
            args.push("--generate-line-info".into());
        }
        args.extend(self.options.iter().cloned());
        Ok(args)
    }
}

/// Compiles CUDA C++ with `opts`. `Err(Error::Nvrtc)` with the whole log when it does not
/// compile; `Err(Error::InvalidArgument)` for contradictory options (CUBIN for a virtual
/// architecture, an architecture that cannot be parsed).
///
/// ```
/// use cuprite::nvrtc::{compile, CompileOptions, Output};
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

/// NVRTC's version, `(major, minor)`, e.g. `(13, 0)`.
///
/// ```
/// if let Ok((major, minor)) = cuprite::nvrtc::version() {
///     println!("NVRTC {major}.{minor}");
/// }
/// ```
pub fn version() -> Result<(u32, u32)> {
    static V: OnceLock<Result<(u32, u32)>> = OnceLock::new();
    V.get_or_init(|| {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: both are valid out-pointers.
        let status = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
        nvrtc_check(status, "nvrtcVersion")?;
        Ok((major as u32, minor as u32))
    })
    .clone()
}

/// The file NVRTC was loaded from (loading it if needed).
///
/// ```
/// match cuprite::nvrtc::library_path() {
///     Ok(p) => println!("NVRTC from {p}"),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn library_path() -> Result<String> {
    Ok(sys::LIBRARY.path()?.to_string())
}

/// Folders holding the CUDA headers (`cuda_fp16.h`, `cuda_bf16.h`, ...) that NVRTC does not
/// carry built in, searched after the caller's include paths. Looked for, once per process, in:
/// `CUPRITE_NVRTC_INCLUDE` (a path list), `include/` beside the loaded NVRTC's `lib/` folder (a
/// toolkit or a pip wheel tree such as `nvidia/cu13/`), `$CUDA_PATH/include`,
/// `$CUDA_HOME/include`, `/usr/local/cuda/include`, and the pip wheels `nvidia/cu13/include` and
/// `nvidia/cuda_runtime/include` of the active Python. Only folders that hold `cuda_fp16.h`
/// are kept (the variable's folders are kept as given).
///
/// ```
/// for dir in cuprite::nvrtc::default_include_paths() {
///     println!("CUDA headers in {}", dir.display());
/// }
/// ```
pub fn default_include_paths() -> Vec<PathBuf> {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let mut out: Vec<PathBuf> = Vec::new();
        if let Some(v) = std::env::var_os("CUPRITE_NVRTC_INCLUDE") {
            out.extend(std::env::split_paths(&v).filter(|p| p.is_dir()));
        }
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Ok(lib) = sys::LIBRARY.path() {
            let lib_dir = Path::new(lib).parent().map(Path::to_path_buf);
            if let Some(d) = lib_dir {
                for up in ["../include", "../../include", "../../cuda_runtime/include"] {
                    candidates.push(d.join(up));
                }
            }
        }
        for var in ["CUDA_PATH", "CUDA_HOME"] {
            if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                candidates.push(PathBuf::from(root).join("include"));
            }
        }
        candidates.push(PathBuf::from("/usr/local/cuda/include"));
        candidates.push(PathBuf::from(
            "/usr/local/cuda/targets/x86_64-linux/include",
        ));
        for site in cuprite_sys::loader::python_site_dirs() {
            for w in ["nvidia/cu13/include", "nvidia/cuda_runtime/include"] {
                candidates.push(site.join(w));
            }
        }
        for c in candidates {
            if c.join("cuda_fp16.h").is_file() {
                let c = c.canonicalize().unwrap_or(c);
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        out
    })
    .clone()
}

/// The architectures this NVRTC can compile for, ascending, as numbers (`90` for `sm_90`).
pub fn supported_archs() -> Result<Vec<u32>> {
    static A: OnceLock<Result<Vec<u32>>> = OnceLock::new();
    A.get_or_init(|| {
        let mut n = 0;
        // SAFETY: `n` is a valid out-pointer.
        let status = unsafe { sys::nvrtcGetNumSupportedArchs(&mut n) };
        nvrtc_check(status, "nvrtcGetNumSupportedArchs")?;
        let mut v = vec![0i32; n.max(0) as usize];
        // SAFETY: `v` has room for the `n` entries NVRTC said it will write.
        let status = unsafe { sys::nvrtcGetSupportedArchs(v.as_mut_ptr()) };
        nvrtc_check(status, "nvrtcGetSupportedArchs")?;
        Ok(v.into_iter().map(|a| a as u32).collect())
    })
    .clone()
}

/// `Some((nvrtc, driver))` versions when this NVRTC is newer than the CUDA version the driver
/// supports. PTX from such an NVRTC carries a PTX ISA version the driver's JIT does not know,
/// and loading it fails with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`; CUBIN for the device loads
/// fine, so [`Output::Auto`] picks CUBIN then. `None` when they match, NVRTC is older, or
/// either is missing.
pub fn nvrtc_newer_than_driver() -> Option<((u32, u32), (u32, u32))> {
    let nvrtc = version().ok()?;
    let driver = crate::driver_version().ok()?;
    (nvrtc > driver).then_some((nvrtc, driver))
}

/// Whether [`Output::Auto`] compiles to CUBIN on this machine (see [`nvrtc_newer_than_driver`]).
pub fn auto_prefers_cubin() -> bool {
    nvrtc_newer_than_driver().is_some() && device_arch().is_some()
}

/// The compute capability of the device current on this thread (else device 0), as `90` for
/// 9.0; `None` without a driver or device.
pub fn device_arch() -> Option<u32> {
    use cuprite_sys::driver as d;
    crate::init().ok()?;
    let mut ctx: d::CUcontext = std::ptr::null_mut();
    let mut dev: d::CUdevice = 0;
    // SAFETY: `ctx` is a valid out-pointer.
    let has_ctx = matches!(unsafe { d::cuCtxGetCurrent(&mut ctx) }, Ok(r) if r.is_success())
        && !ctx.is_null();
    // SAFETY: `dev` is a valid out-pointer; a context is current when asked for its device.
    let ok = has_ctx && matches!(unsafe { d::cuCtxGetDevice(&mut dev) }, Ok(r) if r.is_success());
    let device = if ok {
        let count = crate::Device::count().ok()?;
        (0..count)
            .filter_map(|i| crate::Device::get(i).ok())
            .find(|x| x.raw() == dev)?
    } else {
        crate::Device::get(0).ok()?
    };
    let (major, minor) = device.compute_capability().ok()?;
    Some(major * 10 + minor)
}

/// Parses `sm_90`, `compute_90`, `sm_90a`, `90` into `(number, suffix, is_real)`.
fn parse_arch(arch: &str) -> Result<(u32, String, Option<bool>)> {
    let (rest, real) = if let Some(r) = arch.strip_prefix("sm_") {
        (r, Some(true))
    } else if let Some(r) = arch.strip_prefix("compute_") {
        (r, Some(false))
    } else {
        (arch, None)
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let suffix = rest[digits.len()..].to_string();
    match digits.parse::<u32>() {
        Ok(n) if suffix.chars().all(|c| c.is_ascii_alphabetic()) => Ok((n, suffix, real)),
        _ => Err(Error::InvalidArgument(format!(
            "cannot parse architecture `{arch}`: expected sm_XX, compute_XX or XX"
        ))),
    }
}

/// The `--gpu-architecture` value and whether to fetch CUBIN.
fn resolve_target(opts: &CompileOptions) -> Result<(String, bool)> {
    let (number, suffix, real) = match &opts.arch {
        Some(a) => parse_arch(a)?,
        None => (default_arch(), String::new(), None),
    };
    let cubin = match opts.output {
        Output::Ptx => false,
        Output::Cubin => {
            if real == Some(false) {
                return Err(Error::InvalidArgument(format!(
                    "CUBIN needs a real architecture (sm_{number}{suffix}), not compute_{number}{suffix}"
                )));
            }
            true
        }
        Output::Auto => match real {
            Some(r) => r,
            None => auto_prefers_cubin(),
        },
    };
    let prefix = if cubin { "sm" } else { "compute" };
    Ok((format!("{prefix}_{number}{suffix}"), cubin))
}

/// The device's architecture, lowered to the newest one this NVRTC supports (PTX for an older
/// architecture runs on newer GPUs); [`FALLBACK_ARCH`] without a device.
fn default_arch() -> u32 {
    let Some(dev) = device_arch() else {
        return FALLBACK_ARCH;
    };
    match supported_archs() {
        Ok(list) if !list.is_empty() && !list.contains(&dev) => list
            .iter()
            .copied()
            .filter(|&a| a <= dev)
            .max()
            .unwrap_or(dev),
        _ => dev,
    }
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

fn until_nul(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn cstring(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|e| {
        Error::InvalidArgument(format!(
            "{what} contains a NUL byte (at byte {})",
            e.nul_position()
        ))
    })
}

/// The `NVRTC_ERROR_*` name of a status.
fn result_name(r: nvrtcResult) -> String {
    // SAFETY: nvrtcGetErrorString accepts any value and returns a static string or null.
    match unsafe { sys::nvrtcGetErrorString(r) } {
        // SAFETY: non-null pointer to a static NUL-terminated string owned by NVRTC.
        Ok(p) if !p.is_null() => unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
        _ => format!("nvrtcResult({})", r.0),
    }
}

fn nvrtc_check(
    r: std::result::Result<nvrtcResult, cuprite_sys::LoadError>,
    call: &'static str,
) -> Result<()> {
    match r? {
        nvrtcResult::NVRTC_SUCCESS => Ok(()),
        status => Err(Error::Nvrtc {
            name: result_name(status),
            call,
            log: String::new(),
        }),
    }
}
