//! The NVRTC library: which file was loaded, its version and architectures, the CUDA headers
//! it needs, and its status codes as errors.

use crate::error::{Error, Result};
use cuprite_sys::nvrtc::{self as sys, nvrtcResult};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// NVRTC's version, `(major, minor)`, e.g. `(13, 0)`.
///
/// ```
/// if let Ok((major, minor)) = cuprite_driver::nvrtc::version() {
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
/// match cuprite_driver::nvrtc::library_path() {
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
/// `$CUDA_HOME/include`, `/usr/local/cuda/include`, and, only when none of those holds the
/// headers (asking Python starts a `python3`), the pip wheels `nvidia/cu13/include` and
/// `nvidia/cuda_runtime/include` of the active Python. Only folders that hold `cuda_fp16.h`
/// are kept (the variable's folders are kept as given).
///
/// ```
/// for dir in cuprite_driver::nvrtc::default_include_paths() {
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
        let keep = |out: &mut Vec<PathBuf>, candidates: Vec<PathBuf>| {
            for c in candidates {
                if c.join("cuda_fp16.h").is_file() {
                    let c = c.canonicalize().unwrap_or(c);
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
        };
        let given = out.len();
        keep(&mut out, candidates);
        if out.len() == given {
            let mut wheels = Vec::new();
            for site in cuprite_sys::loader::python_site_dirs() {
                for w in ["nvidia/cu13/include", "nvidia/cuda_runtime/include"] {
                    wheels.push(site.join(w));
                }
            }
            keep(&mut out, wheels);
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

pub(super) fn until_nul(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

pub(super) fn cstring(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|e| {
        Error::InvalidArgument(format!(
            "{what} contains a NUL byte (at byte {})",
            e.nul_position()
        ))
    })
}

/// The `NVRTC_ERROR_*` name of a status.
pub(super) fn result_name(r: nvrtcResult) -> String {
    // SAFETY: nvrtcGetErrorString accepts any value and returns a static string or null.
    match unsafe { sys::nvrtcGetErrorString(r) } {
        // SAFETY: non-null pointer to a static NUL-terminated string owned by NVRTC.
        Ok(p) if !p.is_null() => unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
        _ => format!("nvrtcResult({})", r.0),
    }
}

pub(super) fn nvrtc_check(
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
