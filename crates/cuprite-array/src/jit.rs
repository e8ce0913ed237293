//! Kernel caches: the disk cache of compiled CUBINs, NVRTC compilation, and the recording of
//! generated sources (for the test that compiles every kernel the suite generates).
//!
//! The in-memory cache (structure hash → loaded function, no source built on a hit) lives with
//! the CUDA backend, which owns loaded modules. This module owns files and the compiler.
//!
//! # Compilation
//!
//! Generated sources include nothing and are compiled with `-default-device -minimal` (see
//! [`compile_options`]). The first use of a new expression is **tiered**: NVRTC builds a
//! quick CUBIN at its fastest setting ([`quick_compile_options`]) that serves the first use,
//! while a background thread builds the optimised kernel (NVRTC straight to CUBIN at
//! `--Ofast-compile=min`; never the driver's PTX JIT, whose library, first loaded on that thread,
//! would be torn down at exit under a build in progress), writes it to the disk cache and swaps
//! it into the in-memory cache; [`crate::wait_tier_up`] waits for those builds, and the process waits for
//! a build in progress at exit.
//!
//! The quick build leaves the math functions out: a generated kernel's calls to the C math
//! library (`sinf`, `exp`, `lgammaf`, `pow`, ... : [`MATH_UNARY`], [`MATH_BINARY`]) become
//! calls to `cq_` wrappers, compiled as relocatable code, and the driver's linker joins the
//! result with a **math library** of those wrappers ([`math_library_source`]), built once per
//! architecture and NVRTC version in the background (started by the first quick build of a
//! process, kept in the disk cache). Most of a first build's time is NVRTC assembling the
//! inlined math functions (`sinf`'s argument reduction alone doubles it), so this cuts a first
//! use to NVRTC's fixed cost plus the glue. Until the library is ready, and wherever linking
//! fails, the quick build compiles the whole kernel as before. The library functions are the
//! same CUDA math functions, so the tiers agree up to where the optimiser fuses a multiply and
//! an add into one rounding (tested to a relative 1e-4 for `f32`, 1e-11 for `f64`; the chains
//! measured agreed bit for bit). At exit the process waits for a library build in progress
//! (once per machine and NVRTC version; `cuprite bench array/jit_first_use` times it).
//!
//! Environment: `CUPRITE_ARRAY_QUICK_LINK=0` (quick builds compile the whole kernel, no math
//! library), `CUPRITE_ARRAY_TIERED=0` (build the optimised
//! kernel on the spot, as PTX finished by the driver's JIT), `CUPRITE_ARRAY_FAST_COMPILE=0|min|mid|max` (the optimised build's
//! level), `CUPRITE_ARRAY_JIT=cubin` (NVRTC straight to CUBIN, no tiering).
//!
//! # Disk cache
//!
//! One file per kernel under `CUPRITE_CACHE_DIR`, else the platform cache folder
//! (`$XDG_CACHE_HOME/cuprite` or `~/.cache/cuprite` on Linux, `~/Library/Caches/cuprite` on
//! macOS, `%LOCALAPPDATA%\cuprite` on Windows), named by a 128-bit hash of the source, the
//! compile options, the architecture and the NVRTC version. Files are written to a temporary
//! name and renamed into place (atomic: a concurrent reader sees the old file or the new one,
//! never half of one). Each file carries a magic tag, its length and a checksum; a file that
//! does not check out is ignored, and the kernel is compiled and the file rewritten.
//! `CUPRITE_JIT_TRACE=1` prints every generated kernel's source to stderr before it is built.

use crate::error::Result;
use crate::graph::Fnv;
use std::hash::Hasher;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

const MAGIC: &[u8; 8] = b"CPRTKRN1";

static DIR_OVERRIDE: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Overrides the disk cache folder for this process (`None`: back to the environment and
/// platform default). Useful in tests and for applications that manage their own folders.
pub fn set_cache_dir(dir: Option<PathBuf>) {
    *DIR_OVERRIDE.lock().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// The disk cache folder, when one can be determined.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = DIR_OVERRIDE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
    {
        return Some(d);
    }
    if let Some(d) = std::env::var_os("CUPRITE_CACHE_DIR") {
        if !d.is_empty() {
            return Some(PathBuf::from(d));
        }
    }
    if cfg!(windows) {
        return std::env::var_os("LOCALAPPDATA").map(|d| PathBuf::from(d).join("cuprite"));
    }
    if cfg!(target_os = "macos") {
        return std::env::var_os("HOME").map(|h| PathBuf::from(h).join("Library/Caches/cuprite"));
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME") {
        if !x.is_empty() {
            return Some(PathBuf::from(x).join("cuprite"));
        }
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cuprite"))
}

fn hash128(parts: &[&[u8]]) -> u128 {
    let mut a = Fnv(0xcbf2_9ce4_8422_2325);
    let mut b = Fnv(0x6c62_272e_07bb_0142);
    for p in parts {
        a.write(p);
        a.write(&[0xff]);
        b.write(&(p.len() as u64).to_le_bytes());
        b.write(p);
    }
    ((a.finish() as u128) << 64) | b.finish() as u128
}

fn checksum(b: &[u8]) -> u64 {
    let mut h = Fnv(0x1234_5678_9abc_def1);
    h.write(b);
    h.finish()
}

/// Reads a cache file; `None` when missing or corrupt.
fn read_entry(path: &std::path::Path) -> Option<Vec<u8>> {
    let data = std::fs::read(path).ok()?;
    if data.len() < 24 || &data[..8] != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(data[8..16].try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(data[16..24].try_into().ok()?);
    let body = &data[24..];
    if body.len() != len || checksum(body) != sum {
        return None;
    }
    Some(body.to_vec())
}

/// Writes a cache file atomically (temporary file, then rename). Failures are ignored: the
/// cache is an optimisation.
fn write_entry(path: &std::path::Path, body: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(
        ".{}.{}.{nanos}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("k"),
        std::process::id()
    ));
    let mut data = Vec::with_capacity(body.len() + 24);
    data.extend_from_slice(MAGIC);
    data.extend_from_slice(&(body.len() as u64).to_le_bytes());
    data.extend_from_slice(&checksum(body).to_le_bytes());
    data.extend_from_slice(body);
    if std::fs::write(&tmp, &data).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

fn tracing() -> bool {
    std::env::var("CUPRITE_JIT_TRACE").is_ok_and(|v| !v.is_empty() && v != "0")
}

fn trace(src: &str, what: &str) {
    if tracing() {
        eprintln!("// cuprite-array: {what}\n{src}");
    }
}

/// Prints a line about the JIT's choices under `CUPRITE_JIT_TRACE`.
pub(crate) fn trace_note(what: &str) {
    if tracing() {
        eprintln!("// cuprite-array: {what}");
    }
}

/// NVRTC's `--Ofast-compile` level for generated kernels (NVRTC 12.8 and newer): `min` by
/// default (NVRTC leaves out its most compile-time-intensive optimisations, keeping most of the
/// code's performance: a generated kernel compiles in about half the time). Set with
/// `CUPRITE_ARRAY_FAST_COMPILE=0|min|mid|max` (`0`: NVRTC's full optimisation).
fn fast_compile() -> &'static str {
    static LEVEL: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    LEVEL.get_or_init(
        || match std::env::var("CUPRITE_ARRAY_FAST_COMPILE").as_deref() {
            Ok("0" | "off" | "") => "0",
            Ok("mid") => "mid",
            Ok("max") => "max",
            _ => "min",
        },
    )
}

/// Whether first uses compile straight to CUBIN with NVRTC (`CUPRITE_ARRAY_JIT=cubin`) rather
/// than to PTX finished by the driver's JIT (the default, faster).
pub(crate) fn nvrtc_cubin() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("CUPRITE_ARRAY_JIT").is_ok_and(|v| v == "cubin"))
}

/// The NVRTC options every generated kernel is compiled with, for `sm_{arch}` (CUBIN) or
/// `compute_{arch}` (PTX, for the driver to finish): no include paths (generated kernels
/// include nothing), `-default-device`, and `-minimal` where this NVRTC has it (12.4 and
/// newer: leaves out texture, device-runtime and driver-type declarations, a faster front
/// end for small programs).
pub fn compile_options(arch: u32, cubin: bool) -> cuprite::nvrtc::CompileOptions {
    options_at(arch, cubin, fast_compile())
}

/// [`compile_options`] at `--Ofast-compile` level `level` (`"0"`: none).
fn options_at(arch: u32, cubin: bool, level: &str) -> cuprite::nvrtc::CompileOptions {
    use cuprite::nvrtc::{CompileOptions, Output};
    let (arch, output) = if cubin {
        (format!("sm_{arch}"), Output::Cubin)
    } else {
        (format!("compute_{arch}"), Output::Ptx)
    };
    let mut o = CompileOptions::new()
        .arch(arch)
        .output(output)
        .name("cuprite_array_kernel.cu")
        .default_includes(false)
        .option("-default-device");
    let v = cuprite::nvrtc::version().unwrap_or((0, 0));
    if v >= (12, 4) {
        o = o.option("-minimal");
    }
    if v >= (12, 8) && level != "0" {
        o = o.option(format!("--Ofast-compile={level}"));
    }
    o
}

/// Whether a first use runs a quickly compiled kernel while the optimised one is built in the
/// background (see `backend::cuda`): on by default where NVRTC has `--Ofast-compile` (12.8
/// and newer); `CUPRITE_ARRAY_TIERED=0` turns it off (every first use then waits for the
/// optimised kernel).
pub(crate) fn tiered() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("CUPRITE_ARRAY_TIERED").map_or(true, |v| v != "0")
            && cuprite::nvrtc::version().is_ok_and(|v| v >= (12, 8))
    })
}

/// The path of the cache file of `src` compiled for `sm_{arch}`. The file holds a CUBIN,
/// whether NVRTC or the driver (from NVRTC's PTX) produced it.
pub fn cache_path(src: &str, arch: u32) -> Result<Option<PathBuf>> {
    let v = cuprite::nvrtc::version()?;
    Ok(cache_file(
        src,
        b"cubin;-default-device;-minimal",
        arch,
        v,
        "cubin",
    ))
}

/// The disk cache file (`<key>.<ext>`) of `src` built with the options named by `tag` for
/// `sm_{arch}` by NVRTC `version`.
fn cache_file(src: &str, tag: &[u8], arch: u32, version: (u32, u32), ext: &str) -> Option<PathBuf> {
    let key = hash128(&[
        src.as_bytes(),
        tag,
        fast_compile().as_bytes(),
        &arch.to_le_bytes(),
        &version.0.to_le_bytes(),
        &version.1.to_le_bytes(),
    ]);
    cache_dir().map(|d| d.join(format!("{key:032x}.{ext}")))
}

/// The cached CUBIN at `path` (`None`: missing or corrupt), counted as a disk hit.
pub(crate) fn cached(path: Option<&std::path::Path>) -> Option<Vec<u8>> {
    let b = read_entry(path?)?;
    crate::stats::DISK_HITS.fetch_add(1, Ordering::Relaxed);
    crate::stats::note_thread_build();
    Some(b)
}

/// Stores `cubin` at `path` (atomically; failures ignored).
pub(crate) fn store(path: Option<&std::path::Path>, cubin: &[u8]) {
    if let Some(p) = path {
        write_entry(p, cubin);
    }
}

/// The NVRTC options of a kernel's quick first build: CUBIN for `sm_{arch}` at NVRTC's
/// fastest setting (`--Ofast-compile=max`, NVRTC 12.8 and newer), with NVRTC's own assembler
/// (much faster than the driver's JIT for these small kernels).
pub fn quick_compile_options(arch: u32) -> cuprite::nvrtc::CompileOptions {
    options_at(arch, true, "max")
}

/// CUBIN of a kernel's quick first build ([`quick_compile_options`]), run only until the
/// optimised build replaces it; never cached.
pub(crate) fn cubin_quick(src: &str, arch: u32) -> Result<Vec<u8>> {
    compile_cubin(
        src,
        &quick_compile_options(arch),
        &format!("compiling for sm_{arch} (quick first build)"),
    )
}

/// CUBIN of `src` compiled by NVRTC with `opts` (traced as `what`, counted as a compilation).
fn compile_cubin(src: &str, opts: &cuprite::nvrtc::CompileOptions, what: &str) -> Result<Vec<u8>> {
    trace(src, what);
    let compiled = cuprite::nvrtc::compile(src, opts)?;
    crate::stats::COMPILES.fetch_add(1, Ordering::Relaxed);
    crate::stats::note_thread_build();
    Ok(compiled
        .cubin()
        .ok_or_else(|| crate::Error::InvalidArgument("NVRTC returned no CUBIN".into()))?
        .to_vec())
}

/// PTX for `src` on `compute_{arch}`, NUL-terminated, compiled by NVRTC (not cached: the
/// caller caches the CUBIN the driver makes of it).
pub(crate) fn ptx(src: &str, arch: u32) -> Result<Vec<u8>> {
    trace(src, &format!("compiling for compute_{arch}"));
    let compiled = cuprite::nvrtc::compile(src, &options_at(arch, false, fast_compile()))?;
    crate::stats::COMPILES.fetch_add(1, Ordering::Relaxed);
    crate::stats::note_thread_build();
    let ptx = compiled
        .ptx()
        .ok_or_else(|| crate::Error::InvalidArgument("NVRTC returned no PTX".into()))?;
    let mut b = ptx.as_str().as_bytes().to_vec();
    b.push(0);
    Ok(b)
}

/// CUBIN for `src` on `sm_{arch}`: from the disk cache, or compiled with NVRTC (and cached).
pub fn cubin(src: &str, arch: u32) -> Result<Vec<u8>> {
    let path = cache_path(src, arch)?;
    if let Some(b) = cached(path.as_deref()) {
        return Ok(b);
    }
    let bin = compile_cubin(
        src,
        &compile_options(arch, true),
        &format!("compiling for sm_{arch}"),
    )?;
    store(path.as_deref(), &bin);
    Ok(bin)
}

static RECORD: Mutex<Option<Vec<String>>> = Mutex::new(None);

/// Starts recording the CUDA source of every kernel the library generates, including the
/// kernels the CPU backend would have needed on a GPU (used to check, without a GPU, that all
/// generated code compiles).
pub fn start_recording() {
    *RECORD.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
}

/// Stops recording and returns the recorded sources (deduplicated, in order).
pub fn take_recorded() -> Vec<String> {
    let v = RECORD
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    v.into_iter().filter(|s| seen.insert(s.clone())).collect()
}

pub(crate) fn recording() -> bool {
    RECORD.lock().map(|r| r.is_some()).unwrap_or(false)
}

pub(crate) fn record(src: &str) {
    if let Ok(mut r) = RECORD.lock() {
        if let Some(v) = r.as_mut() {
            v.push(src.to_string());
        }
    }
}

/// Whether quick builds leave their math functions to the math library (default);
/// `CUPRITE_ARRAY_QUICK_LINK=0` compiles them whole.
pub(crate) fn quick_link() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("CUPRITE_ARRAY_QUICK_LINK").map_or(true, |v| v != "0"))
}

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
pub fn math_library_options(arch: u32) -> cuprite::nvrtc::CompileOptions {
    compile_options(arch, true).option("-rdc=true")
}

/// The NVRTC options of a quick build's glue (see [`glue_source`]): the quick build's,
/// relocatable.
pub fn glue_compile_options(arch: u32) -> cuprite::nvrtc::CompileOptions {
    quick_compile_options(arch).option("-rdc=true")
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

/// Relocatable CUBIN of a quick build's glue ([`glue_compile_options`]); never cached.
pub(crate) fn cubin_glue(glue: &str, arch: u32) -> Result<Vec<u8>> {
    compile_cubin(
        glue,
        &glue_compile_options(arch),
        &format!("compiling for sm_{arch} (quick first build, math linked)"),
    )
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
        .is_some_and(|(a, b)| read_entry(&a).is_some() && read_entry(&b).is_some())
    {
        return;
    }
    let _ = cuprite::nvrtc::compile(
        "extern \"C\" __device__ float cq_prime_(float a) { return sinf(a); }\n",
        &math_library_options(arch),
    );
}

/// The disk cache file of the math library of one precision for `sm_{arch}`.
fn math_library_path(arch: u32, f64: bool) -> Option<PathBuf> {
    cache_file(
        &math_library_source(f64),
        b"mathlib;cubin;-rdc=true;-default-device;-minimal",
        arch,
        cuprite::nvrtc::version().unwrap_or((0, 0)),
        "mathlib.cubin",
    )
}

/// Builds (or reads from the disk cache) both precisions of the math library for `sm_{arch}`,
/// `f32` first. On failure the quick builds keep compiling whole kernels.
pub(crate) fn build_math_library(arch: u32) {
    for f64 in [false, true] {
        let src = math_library_source(f64);
        let path = math_library_path(arch, f64);
        let img = match path.as_deref().and_then(read_entry) {
            Some(b) => b,
            None => {
                trace(&src, &format!("compiling the math library for sm_{arch}"));
                let Ok(c) = cuprite::nvrtc::compile(&src, &math_library_options(arch)) else {
                    return;
                };
                let Some(b) = c.cubin().map(<[u8]>::to_vec) else {
                    return;
                };
                store(path.as_deref(), &b);
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
