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
//! a build in progress at exit. Environment: `CUPRITE_ARRAY_TIERED=0` (build the optimised
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

fn trace(src: &str, what: &str) {
    if std::env::var("CUPRITE_JIT_TRACE").is_ok_and(|v| !v.is_empty() && v != "0") {
        eprintln!("// cuprite-array: {what}\n{src}");
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
    let (maj, min) = cuprite::nvrtc::version()?;
    let key = hash128(&[
        src.as_bytes(),
        b"cubin;-default-device;-minimal",
        fast_compile().as_bytes(),
        &arch.to_le_bytes(),
        &maj.to_le_bytes(),
        &min.to_le_bytes(),
    ]);
    Ok(cache_dir().map(|d| d.join(format!("{key:032x}.cubin"))))
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
    trace(src, &format!("compiling for sm_{arch} (quick first build)"));
    let compiled = cuprite::nvrtc::compile(src, &quick_compile_options(arch))?;
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
    trace(src, &format!("compiling for sm_{arch}"));
    let compiled = cuprite::nvrtc::compile(src, &compile_options(arch, true))?;
    crate::stats::COMPILES.fetch_add(1, Ordering::Relaxed);
    crate::stats::note_thread_build();
    let bin = compiled
        .cubin()
        .ok_or_else(|| crate::Error::InvalidArgument("NVRTC returned no CUBIN".into()))?
        .to_vec();
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
