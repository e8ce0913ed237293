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

pub use crate::codegen::{MATH_BINARY, MATH_UNARY, MathUse};

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

/// `src` as a quick build's glue: every function of the math library in the precisions `used`
/// names declared as its `cq_` wrapper and each of their calls renamed to it by a macro, to be
/// compiled relocatable and linked with the math library; `None` when `used` names none. What
/// `used` says comes from the source's facts ([`crate::codegen::MathUse`], stated by its
/// emitter); the text is not searched.
///
/// ```
/// use cuprite_array::tuning::compiler::{MathUse, glue_source};
/// let used = MathUse { f32: true, f64: false };
/// let glue = glue_source("float f(float x) { return sinf(x) + __expf(x); }", used).unwrap();
/// assert!(glue.contains("extern \"C\" __device__ float cq_sinf(float a);"));
/// assert!(glue.contains("#define sinf cq_sinf"));
/// assert!(!glue.contains("cq_sin("));
/// assert!(glue_source("float g(float x) { return x; }", MathUse::default()).is_none());
/// ```
pub fn glue_source(src: &str, used: MathUse) -> Option<String> {
    if !used.any() {
        return None;
    }
    let mut head = String::new();
    for (on, f64) in [(used.f32, false), (used.f64, true)] {
        if !on {
            continue;
        }
        for (list, two) in [(MATH_UNARY, false), (MATH_BINARY, true)] {
            for f in list {
                let name = if f64 { f.to_string() } else { format!("{f}f") };
                head.push_str(&math_decl(&name, f64, two, false));
                head.push_str(&format!("#define {name} cq_{name}\n"));
            }
        }
    }
    head.push_str(src);
    Some(head)
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
