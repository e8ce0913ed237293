//! N-dimensional arrays on the GPU (or all CPU cores), with lazy JIT fusion.
//!
//! ```
//! use cuprite_array::Array;
//! // Runs on CUDA when a GPU is present, else on all CPU cores.
//! let x = Array::<f32>::rand_uniform(&[1000], 7)?;
//! let y = ((&x * 2.0).sin() + x.exp()).sum()?;     // one fused kernel
//! println!("{}", y.item()?);
//! # Ok::<(), cuprite_array::Error>(())
//! ```
//!
//! Element-wise work builds an expression graph (the private `graph` module); it is evaluated when a
//! value is needed ([`Array::to_vec`], [`Array::eval`], a reduction, interop), when it grows
//! past a size limit, or under memory pressure. See [`ops`] for the semantics every backend
//! implements, [`dtype`] for the element types and promotion rules.
//!
//! # Inside (for contributors)
//!
//! Modules import only downward in this list (a `mod.rs` that only re-exports is a facade):
//!
//! | layer | modules | owns |
//! |---|---|---|
//! | several devices | [`mesh`] | a [`mesh::Mesh`] of devices, [`mesh::Sharded`] arrays over it, their collectives |
//! | catalogue | `ops/*`, [`interop`], [`random`] | user-facing operations; library calls (`ops/scan`, `ops/sort`, `ops/fft`, `ops/linalg`, `ops/rows.rs`, `ops/histogram.rs`, the gamma sampler of `ops/sampling.rs`, the scatters of `ops/index`) |
//! | arrays | `array`, `creation`, `display` | `Array<T>`, a handle on a graph node |
//! | scheduling | `schedule` | when a graph is realised: grouping, library calls first, OOM retry, `sync`/`device_gc` |
//! | execution | `backend/` | `trait Backend` (cpu, cuda, dry-run), dispatched in `backend::of` only |
//! | kernels | [`jit`], `codegen/` | source in, loaded kernel out: caches, tiers, NVRTC, disk; CUDA C from a program |
//! | IR | `graph`, `range` | lazy nodes, `Program` (linear, CSE'd), `LibraryCall` nodes (fusion boundaries); value ranges of integer nodes |
//! | data | `storage`, `runtime` | host/device/foreign buffers; per-device context, array stream, buffer reuse |
//! | basics | [`memory`], [`device`], `op`, [`dtype`], [`shape`], `util`, [`special`], [`stats`], [`error`] | statistics, ids, opcodes, types, layouts, hashers |
//!
//! A new element-wise operation is an opcode (`op`) with its CPU evaluation (`backend/cpu`) and
//! its CUDA expression (`codegen`). A new library call (a routine of several kernels, or cuBLAS,
//! cuFFT, NCCL) implements `graph::LibraryCall` in `ops/`, as `ops/scan` does: the scheduler
//! realises its inputs, runs it on the array stream or on rayon, and fuses what consumes it.
//! The crate reaches CUDA only through `cuprite`'s safe API.
#![deny(missing_docs)]
#![allow(
    clippy::needless_range_loop,
    clippy::too_many_arguments,
    private_interfaces
)]

mod array;
pub(crate) mod backend;
pub(crate) mod codegen;
mod creation;
pub mod device;
mod display;
pub mod dtype;
pub mod error;
pub(crate) mod graph;
pub mod interop;
pub mod jit;
#[doc(hidden)]
pub mod literal;
pub mod memory;
pub mod mesh;
pub(crate) mod op;
pub mod ops;
pub mod random;
pub(crate) mod range;
pub(crate) mod runtime;
mod schedule;
pub mod shape;
pub mod special;
pub(crate) mod storage;
pub(crate) mod util;

pub use array::{Array, Operand, eval_many};
pub use backend::cuda::set_vectorize;
pub use device::{
    Backend, Device, current_device, default_backend, default_backend_name, device_count,
    get_device, info, set_backend, set_device, with_device,
};
pub use dtype::{
    Bits, ComplexElement, DType, Element, Float, Integer, Numeric, Ordered, Promote, Signed,
    Transcendental, c32, c64,
};
pub use error::{Error, Result};
pub use half::{bf16, f16};
pub use jit::{clear_kernel_cache, wait_tier_up};
pub use memory::{MemStats, mem_stats};
pub use ops::Reduction;
pub use ops::fft::{FftElement, FftNorm};
pub use ops::linalg;
pub use ops::scan::{ScanOp, Side};
pub use ops::sort::{QuantileMethod, Unique, intersect1d, setdiff1d, sort_by_key, union1d};
pub use runtime::{get_stream, with_stream};
pub use schedule::{device_gc, mem_info, sync};

pub mod stats;
