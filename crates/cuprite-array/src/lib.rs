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
//! Element-wise work builds an expression graph; it is evaluated when a value is needed
//! ([`Array::to_vec`], [`Array::eval`], a reduction, interop), when it grows past a size limit,
//! or under memory pressure. A new expression is compiled once by NVRTC into one kernel and
//! cached in memory and on disk. See [`ops`] for the semantics every backend implements and
//! [`dtype`] for the element types and promotion rules (NumPy's, with each difference listed).
//!
//! # Backends
//!
//! Each array lives on a [`Device`]: a CUDA GPU, or the CPU backend (rayon, with faer for
//! linear algebra and rustfft for FFTs), which is the default where there is no GPU and the
//! same program runs on both. Mixing devices is an `Err`, never a silent copy.
//! `CUPRITE_BACKEND=cpu|cuda` chooses the default; [`info`] says which one is in use.
//!
//! # What arrays can do
//!
//! - Element-wise arithmetic and math functions, broadcasting, views and slices ([`s!`]).
//! - Reductions, scans ([`ops::scan`]), sorting and set operations ([`Array::sort`],
//!   [`Array::unique`], [`union1d`]), indexing, scatters and assignment ([`ops::index`]), row
//!   operations such as softmax and layer_norm, statistics (histograms, covariance, quantiles),
//!   random numbers ([`random`]: the same numbers on the CPU and the GPU).
//! - Matrix products and decompositions ([`linalg`]; cuBLASLt and cuSOLVER on CUDA, with the
//!   bias and activation that follow a product fused into it), FFTs ([`ops::fft`]).
//! - Several GPUs: [`mesh::Mesh`] and [`mesh::Sharded`] arrays, with reductions through NCCL.
//! - Signal processing ([`signal`]): N-d convolution and correlation (direct, FFT,
//!   overlap-add), FIR and IIR filters and their design, interpolation and resampling,
//!   spectral analysis, and the neural-network convolution and pooling with their gradients.
//! - Images and vision ([`image`]): SciPy's `ndimage` filters, morphology, labels and
//!   measurements and geometric transforms, colour conversions, and ArrayFire's vision
//!   functions.
//! - Sparse matrices ([`sparse`]): CSR, CSC and COO storage, products, triangular solves and
//!   Krylov solvers.
//! - Waiting without blocking a thread: [`Array::to_vec_async`], [`Array::item_async`] and
//!   [`Array::sync_async`] are futures that any executor can await. With the `capture`
//!   feature, `compile` captures a closure of array work into a CUDA graph on its first call
//!   and replays it afterwards.
//!
//! # Interop
//!
//! [`interop`]: custom kernels on array memory, launched on the array's own stream
//! ([`get_stream`]) with no extra synchronisation; arrays over foreign device pointers;
//! DLPack with PyTorch, CuPy and JAX; `ndarray` (feature `ndarray`).
//!
//! Tuning knobs (JIT tiers, caches, vectorisation) are in [`tuning`].
//!
//! # Whole programs
//!
//! The crate's examples are programs that check their own results, on the CPU and on the GPU
//! (`cargo run --release -p cuprite-array --example NAME`): `black_scholes` (option prices, one
//! fused kernel each), `kmeans` (Lloyd's iterations: a matrix product, an argmin, a
//! scatter-add), `spectral_poisson` (a 2-D Poisson solve by FFT), `mlp_train` (a bf16
//! perceptron's training step with its backward pass written with array operations),
//! `nbody` (all-pairs gravity by broadcasting, reduced in one fused kernel) and
//! `image_pipeline` (Gaussian, Sobel and Canny edges, labels, per-label measurements and a
//! sub-pixel shift of a synthetic image). Each has a `cuprite bench workloads/NAME` figure
//! beside PyTorch eager and `torch.compile`.
#![deny(missing_docs)]
#![allow(
    clippy::needless_range_loop,
    clippy::too_many_arguments,
    private_interfaces
)]

mod array;
mod array_async;
pub(crate) mod backend;
pub(crate) mod codegen;
#[cfg(feature = "capture")]
mod compile;
mod creation;
pub mod device;
mod display;
pub mod dtype;
pub mod error;
pub(crate) mod exec;
pub(crate) mod graph;
pub mod image;
pub mod interop;
pub mod io;
pub(crate) mod jit;
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
pub mod signal;
pub mod sparse;
pub mod special;
pub(crate) mod storage;
pub mod tuning;
pub(crate) mod util;

pub use array::{Array, Operand, eval_many};
#[cfg(feature = "capture")]
pub use compile::{Compiled, DEFAULT_GRAPH_LIMIT, compile};
#[cfg(feature = "capture")]
#[doc(hidden)]
pub use compile::{replay_stage_timing, take_capture_stages, take_replay_stages};
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
pub use memory::{MemStats, mem_stats};
pub use ops::RealIfClose;
pub use ops::Reduction;
pub use ops::fft::{FftElement, FftNorm};
pub use ops::linalg;
pub use ops::scan::{ScanOp, Side};
pub use ops::sort::{
    QuantileMethod, Unique, intersect1d, setdiff1d, sort_by_key, sort_by_key_with, union1d,
};
pub use runtime::{get_stream, with_stream};
pub use schedule::{device_gc, mem_info, sync};

pub mod stats;
