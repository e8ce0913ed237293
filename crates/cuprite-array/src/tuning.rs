//! The JIT's knobs (tiers, caches, vectorisation), and what benchmarks and tests read of the
//! compiler ([`compiler`]).
//!
//! The JIT (internal to the crate) owns the whole way from a generated source to a loaded kernel: the in-memory
//! cache (per thread and per process), the tier policy, the background builds, NVRTC options,
//! the disk cache and the math library. Backends only plan and launch.
//!
//! # Compilation
//!
//! Generated sources include nothing and are compiled with `-default-device -minimal` (see
//! [`compiler::compile_options`]). The first use of a new expression is **tiered**: NVRTC builds a
//! quick CUBIN at its fastest setting ([`compiler::quick_compile_options`]) that serves the first use,
//! while a background thread builds the optimised kernel (NVRTC straight to CUBIN at
//! `--Ofast-compile=min`; never the driver's PTX JIT, whose library, first loaded on that thread,
//! would be torn down at exit under a build in progress), writes it to the disk cache and swaps
//! it into the in-memory cache; [`wait_tier_up`] waits for those builds, and the process waits for
//! a build in progress at exit (from a thread-local guard of the main thread, which the C
//! library's `exit` runs before any `atexit` handler or library destructor).
//!
//! The quick build leaves the math functions out: a generated kernel's calls to the C math
//! library (`sinf`, `exp`, `lgammaf`, `pow`, ... : [`compiler::MATH_UNARY`], [`compiler::MATH_BINARY`]) become
//! calls to `cq_` wrappers, compiled as relocatable code, and the driver's linker joins the
//! result with a **math library** of those wrappers ([`compiler::math_library_source`]), built once per
//! architecture and NVRTC version in the background (started by the first quick build of a
//! process, kept in the disk cache). Most of a first build's time is NVRTC assembling the
//! inlined math functions (`sinf`'s argument reduction alone doubles it), so this cuts a first
//! use to NVRTC's fixed cost plus the glue. Until the library is ready, and wherever linking
//! fails, the quick build compiles the whole kernel as before. The library functions are the
//! same CUDA math functions, so the tiers agree (see [Agreement of the tiers](#agreement-of-the-tiers)).
//! At exit the process waits for a library build in progress
//! (once per machine and NVRTC version; `cuprite bench array/jit_first_use` times it).
//!
//! Before any of that, a first use may not wait for NVRTC at all: the **interpreter** is one
//! module per device (built once per machine in the background, started by the first new
//! program of a process; later processes load it from the disk cache for their first new
//! program, on the main thread) whose kernels evaluate a small program
//! from its instruction list (`codegen::interp`: up to 48 instructions over `bool`, `i32`,
//! `i64`, `f32` and `f64`; element-wise with one output, or reduced by sum, product, min or max).
//! Once it is loaded, a new program it can run is launched on it at once while its optimised
//! kernel is built in the background; the optimised kernel replaces it as above. NVRTC takes
//! tens of milliseconds for even a trivial new kernel, so this is what makes a first use cost
//! a launch. Its cases come from the same expression emitters as the compiled kernels.
//! `CUPRITE_ARRAY_INTERP=0` turns it off; [`crate::stats::interpreted_first_uses`] counts it.
//!
//! In a process that sees several GPUs, a kernel built for one device is kept as its image and
//! loaded as it is on every other device of the same architecture (quick and optimised builds
//! alike), so work sharded over several GPUs ([`crate::mesh`]) compiles once per architecture.
//!
//! The environment switches are read once into [`JitConfig`].
//!
//! # Agreement of the tiers
//!
//! The same expression gives the same values on its first use and on every later one:
//!
//! - **Element-wise results agree bit for bit** between the interpreter, the quick build (linked
//!   or whole) and the optimised build. Every tier is compiled with the same pinned
//!   floating-point options ([`compiler::compile_options`]): `--fmad=false` (no multiply and add
//!   contracted into one rounding: the interpreter runs one instruction at a time and could
//!   not contract, and the CPU backend does not either), `--ftz=false`, `--prec-div=true`,
//!   `--prec-sqrt=true`; all tiers emit each operation with the same expression emitters and
//!   call the same CUDA math functions. The bound is 0 ulp.
//! - **Minimum and maximum reductions** (and `any`, `all`, `argmin`, `argmax`, integer sums)
//!   agree exactly: their result does not depend on the order of combination.
//! - **Floating-point sums and products** are combined in an order that depends on the tier
//!   (the interpreter and the quick build one element per thread and a tree per block of
//!   256 threads, the optimised build a loop per thread first). Each
//!   order's result lies within `γ(n − 1) · Σ|xᵢ|` of the exact sum of its `n` terms, where
//!   `γ(k) = k ε / (1 − k ε)` and `ε` is the unit roundoff of the accumulator (`2⁻²⁴` for
//!   `f32` and the half types, which accumulate in `f32`; `2⁻⁵³` for `f64`), so two tiers'
//!   sums differ by at most **`2 γ(n − 1) Σ|xᵢ|`** (a mean: the same divided by `n`; a product:
//!   `2 γ(n − 1) |Π xᵢ|`), plus one rounding of the result to a half type.
//!
//! Against the CPU backend, element-wise results differ only where a math-library function
//! (`sinf`, `exp`, ...) of CUDA and of the host differ (a few ulp each, see the CUDA
//! Programming Guide's accuracy tables); `+ - * /`, `sqrt` and conversions agree bit for bit.
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
//! `CUPRITE_GRAPH_DOT=FOLDER` writes each graph that `compile` (feature `capture`) captures to that folder
//! as a Graphviz DOT file with every node's parameters, before it is instantiated.
//!
//! # Knobs
//!
//! ```
//! use cuprite_array::{Array, tuning};
//! tuning::set_vectorize(true); // the default: vectorised loads where alignment allows
//! let y = (Array::<f32>::ones(&[8]) * 2.0).sum()?;
//! tuning::wait_tier_up(); // optimised builds of the kernels used so far are in place
//! assert_eq!(y.item()?, 16.0);
//! # Ok::<(), cuprite_array::Error>(())
//! ```

pub use crate::backend::cuda::set_vectorize;
pub use crate::image::filters_strip::{image_streaming, set_image_streaming};
pub use crate::jit::{
    FastCompile, FirstUse, JitConfig, NvrtcOutput, QuickBuild, cache_dir, clear_kernel_cache,
    graph_pdl, set_cache_dir, set_graph_pdl, wait_tier_up, without_interpreter,
};
pub use crate::signal::nn::dnn::{
    CudnnLayout, cudnn, cudnn_layout, set_cudnn, set_cudnn_layout, with_cudnn,
};
pub use crate::signal::nn::winograd::{conv_winograd, set_conv_winograd};
pub use crate::sparse::csr_product::set_sparse_kernels;
pub use crate::sparse::residual_step::set_cg_fused;
/// How cuDNN picks each convolution problem's algorithm on its first call: measured (the
/// default, like PyTorch's `torch.backends.cudnn.benchmark = True`) or cuDNN's heuristics; see
/// [`cuprite_driver::dnn::set_algo_search`].
pub use cuprite_driver::dnn::{
    algo_search as cudnn_algo_search, set_algo_search as set_cudnn_algo_search,
};
/// Whether `f32`/`f64` convolutions whose API is chosen by element type time the graph API's
/// plan against the legacy API's algorithm on a problem's first call (while algorithms are
/// measured) and keep the faster; off by default (`CUPRITE_DNN_API_DUEL=1` turns it on); see
/// [`cuprite_driver::dnn::set_api_duel`].
pub use cuprite_driver::dnn::{api_duel as cudnn_api_duel, set_api_duel as set_cudnn_api_duel};
/// Which cuDNN API the convolutions use: by default (`None`) its graph (backend) API for
/// `f16`/`bf16` and its legacy API for `f32`/`f64` (unless the duel below is on); or one of
/// them for every type; see [`cuprite_driver::dnn::set_graph_api`].
pub use cuprite_driver::dnn::{graph_api as cudnn_graph_api, set_graph_api as set_cudnn_graph_api};

/// What benchmarks and tests read of the JIT compiler: the NVRTC options of each tier, cache
/// keys and paths, the quick build's math library and glue, and the recording of generated
/// sources (for compiling every kernel without a GPU). Nothing here changes how arrays run.
pub mod compiler {
    pub use crate::jit::{
        MATH_BINARY, MATH_UNARY, MathUse, cache_key, cache_path, compile_options, cubin,
        glue_compile_options, glue_source, interpreter_cache_path, math_library_options,
        math_library_source, quick_compile_options, start_recording, take_recorded,
    };
}
