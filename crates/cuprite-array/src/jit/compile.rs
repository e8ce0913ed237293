//! NVRTC builds of generated kernels: the option sets of each tier, and compilation to CUBIN
//! or PTX, cached on disk by [`super::disk`] under the exact option list.

use super::config::{FastCompile, FirstUse, JitConfig, trace_source};
use super::disk;
use crate::error::{Error, Result};
use cuprite_driver::nvrtc::{CompileOptions, Output};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// The NVRTC options every generated kernel is compiled with, for `sm_{arch}` (CUBIN) or
/// `compute_{arch}` (PTX, for the driver to finish): no include paths (generated kernels
/// include nothing), `-default-device`, the pinned floating-point options `--fmad=false
/// --ftz=false --prec-div=true --prec-sqrt=true` (every tier computes the same values: see
/// the module docs of [`crate::tuning`]), `-minimal` where this NVRTC has it (12.4 and newer),
/// and the configured `--Ofast-compile` level (12.8 and newer; see [`JitConfig`]).
pub fn compile_options(arch: u32, cubin: bool) -> CompileOptions {
    options_at(arch, cubin, JitConfig::get().fast_compile)
}

/// The NVRTC options of a kernel's quick first build: CUBIN for `sm_{arch}` at NVRTC's
/// fastest setting (`--Ofast-compile=max`, NVRTC 12.8 and newer).
pub fn quick_compile_options(arch: u32) -> CompileOptions {
    options_at(arch, true, FastCompile::Max)
}

/// The NVRTC options of a quick build's glue (see [`super::glue_source`]): the quick
/// build's, relocatable.
pub fn glue_compile_options(arch: u32) -> CompileOptions {
    quick_compile_options(arch).option("-rdc=true")
}

/// [`compile_options`] at `--Ofast-compile` level `level`.
fn options_at(arch: u32, cubin: bool, level: FastCompile) -> CompileOptions {
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
        .option("-default-device")
        // The floating-point semantics are pinned, the same in every tier (see "Agreement of
        // the tiers" in the module docs): no multiply-add contraction (the interpreter
        // evaluates one instruction at a time and cannot contract), IEEE division and square
        // root, denormals kept.
        .fmad(false)
        .ftz(false)
        .prec_div(true)
        .prec_sqrt(true);
    let v = cuprite_driver::nvrtc::version().unwrap_or((0, 0));
    if v >= (12, 4) {
        o = o.option("-minimal");
    }
    if let Some(flag) = level.option().filter(|_| v >= (12, 8)) {
        o = o.option(flag);
    }
    o
}

/// Whether first uses take the tiers (a quick build now, the optimised one in the
/// background): asked for in the configuration, and NVRTC 12.8 or newer.
pub(crate) fn tiered() -> bool {
    JitConfig::get().first_use != FirstUse::Optimised
        && cuprite_driver::nvrtc::version().is_ok_and(|v| v >= (12, 8))
}

/// The path of the disk cache file of `src` built with `opts`, when a cache folder exists.
pub(crate) fn path_for(src: &str, opts: &CompileOptions, ext: &str) -> Result<Option<PathBuf>> {
    let v = cuprite_driver::nvrtc::version()?;
    Ok(disk::entry_path(src, &opts.args()?, v, ext))
}

/// The disk-cache key of `src` built with `opts`: a hash of the source, the exact option list
/// NVRTC is given (see [`CompileOptions::args`]) and the NVRTC version.
///
/// ```no_run
/// let o = cuprite_array::tuning::compiler::compile_options(90, true);
/// let a = cuprite_array::tuning::compiler::cache_key("k", &o)?;
/// assert_ne!(a, cuprite_array::tuning::compiler::cache_key("k", &o.clone().option("-lineinfo"))?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cache_key(src: &str, opts: &CompileOptions) -> Result<u128> {
    Ok(disk::key(
        src,
        &opts.args()?,
        cuprite_driver::nvrtc::version()?,
    ))
}

/// The path of the cache file of `src` compiled for `sm_{arch}` as an optimised CUBIN at the
/// configured level: what [`cubin`] reads and writes. Derived from the exact option list passed
/// to NVRTC.
pub fn cache_path(src: &str, arch: u32) -> Result<Option<PathBuf>> {
    cache_path_at(src, None, arch)
}

/// [`cache_path`] of an optimised build at `level` (`None`: the configured one).
pub(crate) fn cache_path_at(
    src: &str,
    level: Option<FastCompile>,
    arch: u32,
) -> Result<Option<PathBuf>> {
    path_for(src, &options_for(level, arch, true), "cubin")
}

/// The optimised-build options at `level`: [`compile_options`] when `None`, else those at
/// that `--Ofast-compile` level (part of the options, so of the cache key).
fn options_for(level: Option<FastCompile>, arch: u32, cubin: bool) -> CompileOptions {
    match level {
        Some(level) => options_at(arch, cubin, level),
        None => compile_options(arch, cubin),
    }
}

/// Compiles `src` with `opts` (traced as `what`, counted as a compilation).
fn compile(
    src: &str,
    opts: &CompileOptions,
    what: &str,
) -> Result<cuprite_driver::nvrtc::Compiled> {
    trace_source(src, what);
    let compiled = cuprite_driver::nvrtc::compile(src, opts)?;
    crate::stats::COMPILES.fetch_add(1, Ordering::Relaxed);
    crate::stats::note_thread_build();
    Ok(compiled)
}

/// CUBIN of `src` compiled by NVRTC with `opts` (not cached).
pub(crate) fn compile_cubin(src: &str, opts: &CompileOptions, what: &str) -> Result<Vec<u8>> {
    Ok(compile(src, opts, what)?
        .cubin()
        .ok_or_else(|| Error::InvalidArgument("NVRTC returned no CUBIN".into()))?
        .to_vec())
}

/// CUBIN for `src` on `sm_{arch}` with the optimised options at the configured level: from
/// the disk cache, or compiled with NVRTC (and cached).
pub fn cubin(src: &str, arch: u32) -> Result<Vec<u8>> {
    cubin_at(src, None, arch)
}

/// [`cubin`] at `level` (`None`: the configured one).
pub(crate) fn cubin_at(src: &str, level: Option<FastCompile>, arch: u32) -> Result<Vec<u8>> {
    let opts = options_for(level, arch, true);
    let path = path_for(src, &opts, "cubin")?;
    if let Some(b) = disk::load(path.as_deref()) {
        return Ok(b);
    }
    let bin = compile_cubin(src, &opts, &format!("compiling for sm_{arch}"))?;
    disk::store(path.as_deref(), &bin);
    Ok(bin)
}

/// The CUBIN [`cubin`] would return for `src` on `sm_{arch}` when it is in the disk cache
/// (`None` when it is not, or the cache is off); never compiles.
pub(crate) fn cached_cubin(src: &str, arch: u32) -> Result<Option<Vec<u8>>> {
    Ok(disk::load(cache_path(src, arch)?.as_deref()))
}

/// PTX text for `src` on `compute_{arch}` with the optimised options at `level` (not cached:
/// the caller caches the CUBIN the driver makes of it, under [`ptx_cache_path`]).
pub(crate) fn ptx(src: &str, level: Option<FastCompile>, arch: u32) -> Result<String> {
    let c = compile(
        src,
        &options_for(level, arch, false),
        &format!("compiling for compute_{arch}"),
    )?;
    Ok(c.ptx()
        .ok_or_else(|| Error::InvalidArgument("NVRTC returned no PTX".into()))?
        .as_str()
        .to_string())
}

/// The cache file of the CUBIN the driver makes from [`ptx`]'s output for `sm_{arch}`.
pub(crate) fn ptx_cache_path(
    src: &str,
    level: Option<FastCompile>,
    arch: u32,
) -> Result<Option<PathBuf>> {
    path_for(
        src,
        &options_for(level, arch, false),
        &format!("sm{arch}.cubin"),
    )
}

/// CUBIN of a kernel's quick first build ([`quick_compile_options`]); never cached.
pub(crate) fn cubin_quick(src: &str, arch: u32) -> Result<Vec<u8>> {
    compile_cubin(
        src,
        &quick_compile_options(arch),
        &format!("compiling for sm_{arch} (quick first build)"),
    )
}

/// Relocatable CUBIN of a quick build's glue ([`glue_compile_options`]); never cached.
pub(crate) fn cubin_glue(glue: &str, arch: u32) -> Result<Vec<u8>> {
    compile_cubin(
        glue,
        &glue_compile_options(arch),
        &format!("compiling for sm_{arch} (quick first build, math linked)"),
    )
}
