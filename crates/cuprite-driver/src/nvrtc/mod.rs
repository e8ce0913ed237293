//! Run-time compilation of CUDA C++ with NVRTC.
//!
//! This module owns turning source text into a loadable image ([`Ptx`] text or CUBIN bytes):
//! choosing the target architecture, building NVRTC's option list, collecting the compile log
//! and the lowered names of C++ template instantiations. It must not load modules into a
//! context: that is the module layer's job, which takes an [`Image`].
//!
//! NVRTC needs no GPU. When a driver and a device exist, the default architecture is the
//! device's (the device current on this thread, else device 0); without one it is
//! [`FALLBACK_ARCH`].
//!
//! ```
//! let src = r#"extern "C" __global__ void scale(float *x, float a, int n) {
//!     int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) x[i] *= a;
//! }"#;
//! match cuprite_driver::nvrtc::compile_ptx(src) {
//!     Ok(ptx) => assert!(ptx.as_str().contains(".entry scale")),
//!     Err(e) => println!("no NVRTC here: {e}"),
//! }
//! ```
//!
//! **Which NVRTC.** The library is found as `cuprite_sys::nvrtc::SPEC` says (override:
//! `CUPRITE_NVRTC_PATH`); [`library_path`] tells which file was loaded. PTX from an NVRTC newer
//! than the driver is refused by the driver (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`: the PTX ISA
//! version is newer than the driver's JIT knows). [`Output::Auto`], the default of
//! [`CompileOptions`], therefore compiles to CUBIN for the device in that case (see
//! [`nvrtc_newer_than_driver`]); CUBIN is machine code and needs no JIT.

mod arch;
mod compile;
mod image;
mod library;
mod options;

pub use arch::{auto_prefers_cubin, device_arch, nvrtc_newer_than_driver};
pub use compile::{Compiled, compile, compile_ptx, live_programs};
pub use image::{Image, Ptx};
pub use library::{default_include_paths, library_path, supported_archs, version};
pub use options::{CompileOptions, Output};

/// The architecture used when no device can be asked: the oldest one NVRTC 13 still accepts,
/// so that the PTX loads on every GPU a current driver supports.
pub const FALLBACK_ARCH: u32 = 75;
