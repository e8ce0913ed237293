//! The math library of quick builds: `extern "C"` wrappers of the C math functions, built once
//! per architecture and NVRTC version (in the background, kept on disk) and linked with a quick
//! build's relocatable glue, so that a first use does not wait for NVRTC to assemble inlined
//! math.

use super::compile::{compile_options, path_for};
use super::config::trace_source;
use super::disk;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

/// One-argument C math functions whose calls a quick build leaves to the math library (the
/// `f32` name is the `f`-suffixed one: `sinf` for `sin`).
pub const MATH_UNARY: &[&str] = &[
    "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "lgamma",
    "tgamma",
];
/// Two-argument C math functions left to the math library by a quick build.
pub const MATH_BINARY: &[&str] = &["fmod", "pow", "atan2", "hypot"];

/// The math function `name` (`sinf`, `sin`, `powf`, ...): whether it is double precision and
/// whether it takes two arguments. `None` for anything else.
fn math_fn(name: &str) -> Option<(bool, bool)> {
    let find = |n: &str| {
        if MATH_UNARY.contains(&n) {
            Some(false)
        } else if MATH_BINARY.contains(&n) {
            Some(true)
        } else {
            None
        }
    };
    if let Some(two) = find(name) {
        return Some((true, two));
    }
    let base = name.strip_suffix('f')?;
    find(base).map(|two| (false, two))
}

fn math_decl(name: &str, f64: bool, two: bool, body: bool) -> String {
    let t = if f64 { "double" } else { "float" };
    let args = if two {
        format!("{t} a, {t} b")
    } else {
        format!("{t} a")
    };
    if body {
        let call = if two { "a, b" } else { "a" };
        format!("extern \"C\" __device__ {t} cq_{name}({args}) {{ return {name}({call}); }}\n")
    } else {
        format!("extern \"C\" __device__ {t} cq_{name}({args});\n")
    }
}

/// The source of the math library of one precision: an `extern "C"` wrapper `cq_NAME` for
/// every function of [`MATH_UNARY`] and [`MATH_BINARY`] (`sinf`, ... for `f32`; `sin`, ...
/// for `f64`). Compiled as relocatable code ([`math_library_options`]).
pub fn math_library_source(f64: bool) -> String {
    let mut s = String::new();
    for (list, two) in [(MATH_UNARY, false), (MATH_BINARY, true)] {
        for f in list {
            let name = if f64 { f.to_string() } else { format!("{f}f") };
            s.push_str(&math_decl(&name, f64, two, true));
        }
    }
    s
}

/// The NVRTC options of the math library: the optimised build's, relocatable.
pub fn math_library_options(arch: u32) -> cuprite_driver::nvrtc::CompileOptions {
    compile_options(arch, true).option("-rdc=true")
}

/// Which precisions of the math library a glue source needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MathUse {
    /// Calls an `f32` function (`cq_sinf`, ...).
    pub f32: bool,
    /// Calls an `f64` function (`cq_sin`, ...).
    pub f64: bool,
}

/// `src` with every call of a math library function renamed to its `cq_` wrapper and the
/// wrappers declared at the top (to be compiled relocatable and linked with the math library),
/// and which precisions it needs. `None` when `src` calls none of them.
///
/// ```
/// let (glue, used) = cuprite_array::jit::glue_source("float f(float x) { return sinf(x) + __expf(x); }").unwrap();
/// assert!(glue.contains("cq_sinf(x)") && glue.contains("__expf(x)"));
/// assert!(used.f32 && !used.f64);
/// ```
pub fn glue_source(src: &str) -> Option<(String, MathUse)> {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len() + 256);
    let mut used: Vec<(&str, bool, bool)> = Vec::new();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            if let Some((f64, two)) = math_fn(word) {
                out.push_str(&src[copied..start]);
                out.push_str("cq_");
                out.push_str(word);
                copied = i;
                if !used.iter().any(|u| u.0 == word) {
                    used.push((word, f64, two));
                }
            }
        } else if c.is_ascii_digit() {
            // A number (e.g. `1.5e3f`): not an identifier.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    if used.is_empty() {
        return None;
    }
    out.push_str(&src[copied..]);
    let mut head = String::new();
    let mut mu = MathUse::default();
    for (name, f64, two) in used {
        head.push_str(&math_decl(name, f64, two, false));
        if f64 {
            mu.f64 = true;
        } else {
            mu.f32 = true;
        }
    }
    head.push_str(&out);
    Some((head, mu))
}

/// Counts a quick build that was linked with the math library and loaded.
pub(crate) fn note_linked() {
    crate::stats::LINKED_QUICK.fetch_add(1, Ordering::Relaxed);
    crate::stats::THREAD_LINKED.with(|c| c.set(c.get() + 1));
}

/// The state of the math library of one architecture.
#[derive(Default)]
struct MathLib {
    /// A build was asked for (queued, running or done).
    requested: bool,
    f32: Option<std::sync::Arc<Vec<u8>>>,
    f64: Option<std::sync::Arc<Vec<u8>>>,
}

static MATH_LIBS: Mutex<Vec<(u32, MathLib)>> = Mutex::new(Vec::new());

fn with_lib<R>(arch: u32, f: impl FnOnce(&mut MathLib) -> R) -> R {
    let mut v = MATH_LIBS.lock().unwrap_or_else(|e| e.into_inner());
    let k = match v.iter().position(|(a, _)| *a == arch) {
        Some(k) => k,
        None => {
            v.push((arch, MathLib::default()));
            v.len() - 1
        }
    };
    f(&mut v[k].1)
}

/// The math library images `used` needs for `sm_{arch}`, when built; else `None`, and the
/// first such call returns `true` in the second place: the caller queues [`build_math_library`].
pub(crate) fn math_library(
    arch: u32,
    used: MathUse,
) -> (Option<Vec<std::sync::Arc<Vec<u8>>>>, bool) {
    with_lib(arch, |l| {
        let mut imgs = Vec::new();
        let ready = (!used.f32 || l.f32.is_some()) && (!used.f64 || l.f64.is_some());
        if ready {
            if used.f32 {
                imgs.extend(l.f32.clone());
            }
            if used.f64 {
                imgs.extend(l.f64.clone());
            }
            return (Some(imgs), false);
        }
        let first = !l.requested;
        l.requested = true;
        (None, first)
    })
}

/// Compiles a one-line relocatable program with the math library's options (result unused),
/// so that NVRTC's relocatable path is first taken on the calling thread rather than by the
/// background build of the math library; a no-op when the library of `sm_{arch}` is in the
/// disk cache (the background build then compiles nothing).
pub(crate) fn prime_relocatable(arch: u32) {
    if math_library_path(arch, false)
        .zip(math_library_path(arch, true))
        .is_some_and(|(a, b)| disk::read_entry(&a).is_some() && disk::read_entry(&b).is_some())
    {
        return;
    }
    let _ = cuprite_driver::nvrtc::compile(
        "extern \"C\" __device__ float cq_prime_(float a) { return sinf(a); }\n",
        &math_library_options(arch),
    );
}

/// The disk cache file of the math library of one precision for `sm_{arch}`.
fn math_library_path(arch: u32, f64: bool) -> Option<PathBuf> {
    path_for(
        &math_library_source(f64),
        &math_library_options(arch),
        "mathlib.cubin",
    )
    .ok()
    .flatten()
}

/// Builds (or reads from the disk cache) both precisions of the math library for `sm_{arch}`,
/// `f32` first. On failure the quick builds keep compiling whole kernels.
pub(crate) fn build_math_library(arch: u32) {
    for f64 in [false, true] {
        let src = math_library_source(f64);
        let path = math_library_path(arch, f64);
        let img = match path.as_deref().and_then(disk::read_entry) {
            Some(b) => b,
            None => {
                trace_source(&src, &format!("compiling the math library for sm_{arch}"));
                let Ok(c) = cuprite_driver::nvrtc::compile(&src, &math_library_options(arch))
                else {
                    return;
                };
                let Some(b) = c.cubin().map(<[u8]>::to_vec) else {
                    return;
                };
                disk::store(path.as_deref(), &b);
                b
            }
        };
        let img = std::sync::Arc::new(img);
        with_lib(arch, |l| {
            if f64 {
                l.f64 = Some(img);
            } else {
                l.f32 = Some(img);
            }
        });
    }
}
