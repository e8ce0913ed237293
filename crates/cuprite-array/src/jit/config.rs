//! The JIT's switches, read once from the environment.

use std::sync::OnceLock;

/// How generated kernels are built. Read once, on first use, from the environment:
///
/// | variable | effect |
/// |---|---|
/// | `CUPRITE_JIT_TRACE=1` | print every generated kernel's source and the JIT's choices to stderr |
/// | `CUPRITE_ARRAY_FAST_COMPILE=0\|min\|mid\|max` | NVRTC's `--Ofast-compile` level of optimised builds (default `0`: full optimisation) |
/// | `CUPRITE_ARRAY_JIT=cubin` | NVRTC straight to CUBIN on the spot, no tiers |
/// | `CUPRITE_ARRAY_TIERED=0` | build the optimised kernel on the spot (no quick first build) |
/// | `CUPRITE_ARRAY_QUICK_LINK=0` | quick builds compile whole kernels (no math library) |
/// | `CUPRITE_ARRAY_NO_VECTOR=1` | start with the vectorised kernel variants off |
/// | `CUPRITE_ARRAY_INTERP=0` | first uses are quick NVRTC builds, never the interpreter |
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitConfig {
    /// `CUPRITE_JIT_TRACE`.
    pub trace: bool,
    /// `CUPRITE_ARRAY_FAST_COMPILE`: `"0"`, `"min"`, `"mid"` or `"max"`.
    pub fast_compile: &'static str,
    /// `CUPRITE_ARRAY_JIT=cubin`.
    pub nvrtc_cubin: bool,
    /// Tiered builds asked for (`CUPRITE_ARRAY_TIERED` not `0`); they also need NVRTC 12.8.
    pub tiered: bool,
    /// `CUPRITE_ARRAY_QUICK_LINK` not `0`.
    pub quick_link: bool,
    /// Vectorised variants on at start (`CUPRITE_ARRAY_NO_VECTOR` unset, empty or `0`).
    pub vectorize: bool,
    /// First uses of small programs run on the interpreter while their kernel is built
    /// (`CUPRITE_ARRAY_INTERP` not `0`; tiered builds only).
    pub interp: bool,
}

impl JitConfig {
    /// The configuration described by `var` (an environment lookup).
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> JitConfig {
        let set = |k: &str| var(k).filter(|v| !v.is_empty() && v != "0");
        JitConfig {
            trace: set("CUPRITE_JIT_TRACE").is_some(),
            fast_compile: match var("CUPRITE_ARRAY_FAST_COMPILE").as_deref() {
                Some("min") => "min",
                Some("mid") => "mid",
                Some("max") => "max",
                _ => "0",
            },
            nvrtc_cubin: var("CUPRITE_ARRAY_JIT").is_some_and(|v| v == "cubin"),
            tiered: var("CUPRITE_ARRAY_TIERED").is_none_or(|v| v != "0"),
            quick_link: var("CUPRITE_ARRAY_QUICK_LINK").is_none_or(|v| v != "0"),
            vectorize: set("CUPRITE_ARRAY_NO_VECTOR").is_none(),
            interp: var("CUPRITE_ARRAY_INTERP").is_none_or(|v| v != "0"),
        }
    }

    /// This process's configuration (read from the environment on the first call).
    ///
    /// ```
    /// let c = cuprite_array::jit::JitConfig::get();
    /// assert!(["0", "min", "mid", "max"].contains(&c.fast_compile));
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
