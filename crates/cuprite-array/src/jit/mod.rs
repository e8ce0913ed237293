//! The JIT: generated CUDA source in, loaded kernel out.
//!
//! This module owns the whole way from a generated source to a loaded kernel: the in-memory
//! cache (per thread and per process), the tier policy, the background builds, NVRTC options,
//! the disk cache and the math library. Backends only plan and launch. What users may set or
//! read of it is re-exported, with the tiers and the disk cache described, in
//! [`crate::tuning`].

mod cache;
mod compile;
mod config;
mod disk;
mod interp;
mod key;
mod math;
mod pdl;
mod record;
mod worker;

pub use cache::clear_kernel_cache;
pub(crate) use cache::{
    Kernel, get as kernel, get_by_key as library_kernel, get_or_interp as kernel_or_interp,
    note_use as note_kernel_use, take_retired,
};
#[cfg(feature = "capture")]
pub(crate) use cache::{collect_kernels, retire_all};
pub use compile::{
    cache_key, cache_path, compile_options, cubin, glue_compile_options, quick_compile_options,
};
pub use config::{FastCompile, FirstUse, JitConfig, NvrtcOutput, QuickBuild};
pub use disk::{cache_dir, set_cache_dir};
pub use interp::{interpreter_cache_path, without_interpreter};
pub(crate) use key::KernelKind;
pub use math::{
    MATH_BINARY, MATH_UNARY, MathUse, glue_source, math_library_options, math_library_source,
};
pub(crate) use pdl::launch_packed;
pub use pdl::{graph_pdl, set_graph_pdl};
pub(crate) use record::{record, recording};
pub use record::{start_recording, take_recorded};
#[cfg(feature = "capture")]
pub(crate) use worker::builds;
pub use worker::wait_tier_up;
