//! Safe CUDA for Rust.
//!
//! Devices, contexts, streams, events, memory, modules, NVRTC, kernel launch and CUDA graphs,
//! with the math libraries on the same streams. Nothing is linked at build time: the driver is
//! opened on first use, and a machine without one gets an [`Error`], never a panic.
//!
//! ```
//! match cuprite_driver::Device::count() {
//!     Ok(n) => println!("{n} CUDA device(s)"),
//!     Err(e) => println!("no CUDA here: {e}"),
//! }
//! ```
//!
//! # Kernels
//!
//! Compile with [`nvrtc`], load with [`Context::load_module`] (PTX, CUBIN or fatbin), look kernels
//! up with [`Module::load_function`], and launch with [`Stream::launch_builder`]: `&buf`
//! arguments are tracked as reads and `&mut buf` as writes, so launches on several streams wait
//! for exactly what they must. Kernel arguments passed by value implement [`DeviceRepr`]
//! (`#[derive(DeviceRepr)]` for `#[repr(C)]` structs). Streams capture into [`Graph`]s.
//! Code written against cudarc's device-centred API (`CudaDevice::new(0)`, modules by name,
//! tuple launches) has [`compat::CudaDevice`], named so to leave [`Device`] to the plain
//! device handle.
//!
//! # Math libraries
//!
//! [`blas`] (cuBLAS: `gemm`, batched `gemm`, `gemv`, `dot`, `axpy`, `nrm2`), [`blaslt`]
//! (cuBLASLt: matrix products with row- or column-major layouts and fused bias/ReLU/GELU
//! epilogues), [`solver`] (cuSOLVER: LU, Cholesky, QR, SVD, symmetric eigensolver) and
//! [`sparse`] (cuSPARSE: SpMV, SpMM, SpGEMM, format conversions). Each
//! handle is bound to a [`Stream`], takes its workspace from the stream-ordered pool, and
//! tracks its operands across streams like a kernel launch. The libraries are opened on first
//! use; a missing one is an `Err` listing where it was looked for.
//!
//! [`fft`] wraps cuFFT: plans bound to a stream, work areas from the stream-ordered pool,
//! transforms tracked across streams like launches, and an LRU plan cache.
//!
//! [`dnn`] wraps cuDNN 9: the neural-network convolution in 1 to 3 spatial dimensions
//! (forward, both gradients, a fused bias and ReLU; NCHW or NHWC; stride, padding, dilation,
//! groups) and max and average pooling with their gradients, through a [`Dnn`] handle with a
//! per-shape cache of cuDNN's algorithm choices.
//!
//! # Several GPUs
//!
//! [`nccl`] runs collectives on these streams with the same tracking as launches, from one
//! process driving every GPU or from one process per GPU (`nccl::rendezvous` finds the others
//! over TCP); [`peer`] copies directly between GPUs that reach each other.
#![deny(missing_docs)]

pub mod blas;
pub mod blaslt;
mod capture;
pub mod compat;
pub mod context;
pub mod device;
pub mod dnn;
pub mod error;
pub mod event;
#[doc(hidden)]
pub mod fault;
pub mod fft;
pub mod graph;
mod handle_keep;
mod host_fn;
pub mod launch;
pub mod linker;
pub mod memory;
pub mod module;
pub mod nccl;
pub mod nvrtc;
mod packed;
pub mod peer;
pub mod pointer;
pub mod repr;
pub mod solver;
pub mod sparse;
pub mod stats;
pub mod stream;
mod stream_future;

pub use blas::Blas;
pub use blaslt::BlasLt;
pub use context::{
    CacheConfig, Context, ContextFlags, ContextHandle, ContextStack, CurrentContext, PoolStats,
    ResourceLimit, SharedMemoryConfig, StreamPriorityRange, UnownedContext,
};
/// `#[derive(DeviceRepr)]`: see [`DeviceRepr`](trait@DeviceRepr) for what it checks.
pub use cuprite_derive::DeviceRepr;
pub use cuprite_sys as sys;
pub use device::{Device, DeviceAttribute};
pub use dnn::Dnn;
pub use error::{Error, Result};
pub use event::{Event, EventFlags};
pub use graph::{CaptureMode, CaptureStatus, CopyNode, Graph, GraphExec};
pub use launch::{INLINE_ARGS, KernelArg, LaunchArgs, LaunchConfig};
pub use linker::Linker;
pub use memory::{
    Access, DeviceBuffer, DeviceCopy, DeviceRead, DeviceView, DeviceViewMut, DeviceWrite,
    HostAllocFlags, HostDst, HostSrc, ManagedBuffer, MemAdvice, MemLocation, PinnedHostBuffer,
    Tracker,
};
pub use module::{Function, FunctionAttributes, Global, Module, ModuleImage};
pub use nvrtc::{CompileOptions, Ptx, compile_ptx};
pub use repr::{DevicePtr, DeviceRepr};
pub use solver::Solver;
pub use stats::{Stats, stats, thread_stats};
pub use stream::Stream;
pub use stream_future::StreamDone;

use std::sync::OnceLock;

/// Initialises the driver (`cuInit`), once per process. Every other call does this itself, so
/// calling it is only needed to learn early whether a driver is present.
///
/// ```
/// if let Err(e) = cuprite_driver::init() {
///     println!("no driver: {e}");
/// }
/// ```
pub fn init() -> Result<()> {
    static INIT: OnceLock<Result<()>> = OnceLock::new();
    INIT.get_or_init(|| {
        // Every driver symbol now, on the first thread that uses the driver: a later first
        // call of a function would otherwise look its symbol up under the system loader's
        // lock, and wait while a background thread opens NVRTC (initialisers held it 10s of
        // ms). A missing library is reported by cuInit below, as before.
        let _ = sys::driver::resolve_symbols();
        // SAFETY: cuInit takes a flags word that must be 0, and has no other precondition.
        unsafe { drv!(cuInit(0)) }
    })
    .clone()
}

/// The CUDA version the installed driver supports, as `(major, minor)`: 13.0 gives `(13, 0)`.
///
/// ```
/// if let Ok((major, minor)) = cuprite_driver::driver_version() {
///     println!("driver supports CUDA {major}.{minor}");
/// }
/// ```
pub fn driver_version() -> Result<(u32, u32)> {
    init()?;
    let mut v = 0;
    // SAFETY: `v` is a valid out-pointer.
    unsafe { drv!(cuDriverGetVersion(&mut v)) }?;
    Ok(((v / 1000) as u32, ((v % 1000) / 10) as u32))
}
