//! The JIT's switches, read once from the environment.

use std::sync::OnceLock;

/// NVRTC's `--Ofast-compile` level (NVRTC 12.8 and newer; older ones build every level as
/// [`FastCompile::Off`]). Each step up trades kernel speed for compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FastCompile {
    /// Full optimisation (no `--Ofast-compile` option).
    #[default]
    Off,
    /// `--Ofast-compile=min`.
    Min,
    /// `--Ofast-compile=mid`.
    Mid,
    /// `--Ofast-compile=max`: NVRTC's fastest setting (the quick first builds).
    Max,
}

impl FastCompile {
    /// The level named `s` (`"0"`, `"min"`, `"mid"`, `"max"`), `None` for any other text.
    ///
    /// ```
    /// use cuprite_array::tuning::FastCompile;
    /// assert_eq!(FastCompile::parse("mid"), Some(FastCompile::Mid));
    /// assert_eq!(FastCompile::parse("fast"), None);
    /// ```
    pub fn parse(s: &str) -> Option<FastCompile> {
        match s {
            "0" => Some(FastCompile::Off),
            "min" => Some(FastCompile::Min),
            "mid" => Some(FastCompile::Mid),
            "max" => Some(FastCompile::Max),
            _ => None,
        }
    }

    /// The NVRTC option of this level (`None` for [`FastCompile::Off`]).
    ///
    /// ```
    /// use cuprite_array::tuning::FastCompile;
    /// assert_eq!(FastCompile::Min.option().as_deref(), Some("--Ofast-compile=min"));
    /// assert_eq!(FastCompile::Off.option(), None);
    /// ```
    pub fn option(self) -> Option<String> {
        let level = match self {
            FastCompile::Off => return None,
            FastCompile::Min => "min",
            FastCompile::Mid => "mid",
            FastCompile::Max => "max",
        };
        Some(format!("--Ofast-compile={level}"))
    }
}

/// What NVRTC hands the driver for an optimised build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum NvrtcOutput {
    /// PTX for `compute_XX`, finished by the driver (cached as the driver's CUBIN); first
    /// uses follow [`FirstUse`]. Taken only when the driver can read this NVRTC's PTX.
    #[default]
    Ptx,
    /// CUBIN for `sm_XX` straight from NVRTC, on the spot (no tiers).
    Cubin,
}

/// What runs the first use of a program whose kernel is not cached yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FirstUse {
    /// The optimised kernel, built on the spot (the caller waits for the full build).
    Optimised,
    /// A quick build at NVRTC's fastest setting now, the optimised one in the background
    /// (needs NVRTC 12.8; older ones build [`FirstUse::Optimised`]).
    QuickBuild,
    /// As [`FirstUse::QuickBuild`], but small programs run on the precompiled interpreter
    /// kernel until their optimised kernel is ready.
    #[default]
    Interpreter,
}

/// How a quick first build is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum QuickBuild {
    /// Math calls compiled as relocatable glue and linked with a prebuilt math library (the
    /// whole kernel when the library is not ready or the link fails).
    #[default]
    Linked,
    /// The whole kernel compiled at NVRTC's fastest setting.
    Whole,
}

/// How generated kernels are built. Read once, on first use, from the environment:
///
/// | variable | effect |
/// |---|---|
/// | `CUPRITE_JIT_TRACE=1` | print every generated kernel's source and the JIT's choices to stderr |
/// | `CUPRITE_ARRAY_FAST_COMPILE=0\|min\|mid\|max` | [`FastCompile`] level of optimised builds (default `0`: full optimisation) |
/// | `CUPRITE_ARRAY_JIT=cubin` | [`NvrtcOutput::Cubin`]: NVRTC straight to CUBIN on the spot, no tiers |
/// | `CUPRITE_ARRAY_TIERED=0` | [`FirstUse::Optimised`]: build the optimised kernel on the spot |
/// | `CUPRITE_ARRAY_INTERP=0` | [`FirstUse::QuickBuild`]: first uses are quick NVRTC builds, never the interpreter |
/// | `CUPRITE_ARRAY_QUICK_LINK=0` | [`QuickBuild::Whole`]: quick builds compile whole kernels (no math library) |
/// | `CUPRITE_ARRAY_NO_VECTOR=1` | start with the vectorised kernel variants off |
/// | `CUPRITE_ARRAY_SCAN_PIPELINE=1` | long scans run the pipelined look-back kernel where the device allows it |
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitConfig {
    /// Whether sources and choices are printed (`CUPRITE_JIT_TRACE` set, not empty, not `0`).
    pub trace: bool,
    /// The optimised builds' level (`CUPRITE_ARRAY_FAST_COMPILE`; unknown values read as
    /// [`FastCompile::Off`]).
    pub fast_compile: FastCompile,
    /// What NVRTC produces for optimised builds (`CUPRITE_ARRAY_JIT`).
    pub output: NvrtcOutput,
    /// What runs first uses (`CUPRITE_ARRAY_TIERED`, `CUPRITE_ARRAY_INTERP`).
    pub first_use: FirstUse,
    /// How quick first builds are made (`CUPRITE_ARRAY_QUICK_LINK`).
    pub quick_build: QuickBuild,
    /// Whether the vectorised variants are on at start (`CUPRITE_ARRAY_NO_VECTOR` unset,
    /// empty or `0`).
    pub vectorize: bool,
    /// Whether long contiguous scans run the pipelined look-back kernel (persistent blocks,
    /// tiles bulk-copied into shared memory; sm_90 to sm_103) instead of the vectorised one
    /// (`CUPRITE_ARRAY_SCAN_PIPELINE` set, not empty, not `0`).
    pub scan_pipeline: bool,
    /// Whether one long contiguous line of a one-input scan runs the chunked kernel (a reduce
    /// pass and a scan pass interleaved over chunks kept in L2) where the device's L2 allows it
    /// (on unless `CUPRITE_ARRAY_NO_SCAN_CHUNKED` is set, not empty, not `0`).
    pub scan_chunked: bool,
}

impl JitConfig {
    /// The configuration described by `var` (an environment lookup).
    ///
    /// ```
    /// use cuprite_array::tuning::{FastCompile, FirstUse, JitConfig};
    /// let c = JitConfig::from_lookup(|k| match k {
    ///     "CUPRITE_ARRAY_FAST_COMPILE" => Some("mid".to_string()),
    ///     "CUPRITE_ARRAY_INTERP" => Some("0".to_string()),
    ///     _ => None,
    /// });
    /// assert_eq!(c.fast_compile, FastCompile::Mid);
    /// assert_eq!(c.first_use, FirstUse::QuickBuild);
    /// ```
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> JitConfig {
        let set = |k: &str| var(k).filter(|v| !v.is_empty() && v != "0");
        let off = |k: &str| var(k).is_some_and(|v| v == "0");
        JitConfig {
            trace: set("CUPRITE_JIT_TRACE").is_some(),
            fast_compile: var("CUPRITE_ARRAY_FAST_COMPILE")
                .and_then(|v| FastCompile::parse(&v))
                .unwrap_or_default(),
            output: if var("CUPRITE_ARRAY_JIT").is_some_and(|v| v == "cubin") {
                NvrtcOutput::Cubin
            } else {
                NvrtcOutput::Ptx
            },
            first_use: if off("CUPRITE_ARRAY_TIERED") {
                FirstUse::Optimised
            } else if off("CUPRITE_ARRAY_INTERP") {
                FirstUse::QuickBuild
            } else {
                FirstUse::Interpreter
            },
            quick_build: if off("CUPRITE_ARRAY_QUICK_LINK") {
                QuickBuild::Whole
            } else {
                QuickBuild::Linked
            },
            vectorize: set("CUPRITE_ARRAY_NO_VECTOR").is_none(),
            scan_pipeline: set("CUPRITE_ARRAY_SCAN_PIPELINE").is_some(),
            scan_chunked: set("CUPRITE_ARRAY_NO_SCAN_CHUNKED").is_none(),
        }
    }

    /// This process's configuration (read from the environment on the first call).
    ///
    /// ```
    /// let c = cuprite_array::tuning::JitConfig::get();
    /// assert!(c.fast_compile.option().is_none_or(|o| o.starts_with("--Ofast-compile=")));
    /// ```
    pub fn get() -> &'static JitConfig {
        static CONFIG: OnceLock<JitConfig> = OnceLock::new();
        CONFIG.get_or_init(|| JitConfig::from_lookup(|k| std::env::var(k).ok()))
    }
}

/// Prints a line about the JIT's choices under `CUPRITE_JIT_TRACE`.
pub(crate) fn trace_note(what: &str) {
    if JitConfig::get().trace {
        eprintln!("// cuprite-array {}: {what}", trace_stamp());
    }
}

/// Prints a kernel source about to be built under `CUPRITE_JIT_TRACE`.
pub(crate) fn trace_source(src: &str, what: &str) {
    if JitConfig::get().trace {
        eprintln!("// cuprite-array {}: {what}\n{src}", trace_stamp());
    }
}

/// `[+<ms since the first trace line> <thread>]`: which thread did what, and when.
fn trace_stamp() -> String {
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    let ms = START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
        * 1e3;
    let t = std::thread::current();
    match t.name() {
        Some(name) => format!("[+{ms:.3} ms {name}]"),
        None => format!("[+{ms:.3} ms {:?}]", t.id()),
    }
}
