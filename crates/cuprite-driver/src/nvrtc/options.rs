//! The options of a compile, and the exact option list and target they give NVRTC.

use super::arch::{auto_prefers_cubin, default_arch, parse_arch};
use super::library::default_include_paths;
use crate::error::{Error, Result};
use std::path::PathBuf;

/// What [`compile`] should produce.
///
/// [`compile`]: super::compile
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
/// use cuprite_driver::nvrtc::{CompileOptions, Output};
/// let opts = CompileOptions::new()
///     .arch("sm_90")
///     .output(Output::Cubin)
///     .define("N", "256")
///     .use_fast_math(true)
///     .name_expression("axpy<float>");
/// assert_eq!(opts.arch.as_deref(), Some("sm_90"));
/// ```
///
/// [`compile`]: super::compile
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// `sm_XX` or `compute_XX` (a bare `XX` works too); `None`: the current device's, or
    /// [`FALLBACK_ARCH`] when there is none.
    ///
    /// [`FALLBACK_ARCH`]: super::FALLBACK_ARCH
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

impl CompileOptions {
    /// The exact option list [`compile`] passes to NVRTC for these options (the target
    /// architecture first, then include paths, defines, flags and the extra options in order).
    /// What a cache of compiled code should key on.
    ///
    /// ```
    /// let o = cuprite_driver::CompileOptions::new().arch("sm_90").default_includes(false).option("-lineinfo");
    /// assert_eq!(o.args().unwrap(), ["--gpu-architecture=sm_90", "-lineinfo"]);
    /// ```
    ///
    /// [`compile`]: super::compile
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

/// The `--gpu-architecture` value and whether to fetch CUBIN.
pub(super) fn resolve_target(opts: &CompileOptions) -> Result<(String, bool)> {
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
