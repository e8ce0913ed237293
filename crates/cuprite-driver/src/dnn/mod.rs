//! cuDNN: the neural-network convolution (forward, the gradients with respect to the input and
//! to the filters, and the forward pass fused with a bias and a ReLU) and max and average
//! pooling with their gradients, in 1, 2 and 3 spatial dimensions, through a [`Dnn`] handle
//! bound to a context and a cuprite stream.
//!
//! - [`ConvShape`] and [`PoolShape`] say what to compute (sizes, stride, padding, dilation,
//!   groups, [`Layout`] `Nchw` or `Nhwc`); their checks and output sizes need no GPU.
//! - [`Dnn`]'s calls take [`DeviceRead`](crate::DeviceRead) inputs and
//!   [`DeviceWrite`](crate::DeviceWrite) outputs of one [`DnnElement`] type (`f16`, `bf16`,
//!   `f32`, `f64`; half types accumulate in `f32`), tracked across streams like a kernel
//!   launch. Outputs are overwritten: their old contents never reach a result.
//! - The algorithm of each convolution is chosen on the first call of its problem (pass,
//!   shape, element type, precision and determinism settings) and kept per problem in the
//!   handle; its workspace comes from the stream-ordered pool for each call. By default the
//!   choice is measured, as PyTorch's `torch.backends.cudnn.benchmark = True` does: cuDNN times
//!   every candidate on the call's own buffers (`cudnnFind*AlgorithmEx`), the three fastest that
//!   keep the precision and determinism settings are timed again in turns (cuDNN's order of
//!   algorithms of near times moves between processes), and the fastest of those is kept.
//!   [`set_algo_search`] (process-wide) or [`Dnn::set_algo_search`] (one handle) switch to
//!   cuDNN's heuristic choice (`_v7`) instead, which costs no timing runs. A call on a
//!   capturing stream, a cuDNN without the `Find` functions, or a measurement that finds no
//!   allowed algorithm uses the heuristic choice; the first two are measured again by a later
//!   call that can.
//! - `f16`/`bf16` convolutions go through cuDNN's graph (backend) API instead: an execution
//!   plan per problem, made on its first call (measured the same way) and kept in the handle,
//!   so that a later call only binds its buffers and runs it. `f32`/`f64` convolutions take the
//!   legacy API, or, where the duel is on ([`set_api_duel`], [`Dnn::set_api_duel`]; off by
//!   default) on a measuring handle, whichever API ran faster on the problem's first call (its
//!   measured plan and its measured algorithm, each timed the same way on that call's buffers).
//!   [`set_graph_api`] (process-wide) or [`Dnn::set_graph_api`] (one handle) choose one API
//!   for every type. A problem without a plan here takes the legacy API.
//!
//! Invariants: every size is checked (checked arithmetic, cuDNN's 32-bit dimensions and
//! strides, buffer lengths against the shape) before cuDNN sees it, so a safe call never lets
//! cuDNN read or write outside its buffers; a shape with an empty operand does no library
//! call and zero-fills its output (an empty sum). `f32` convolutions use FMA arithmetic unless
//! TF32 is allowed ([`Dnn::set_allow_tf32`]); `f32` data is never converted to a half type.
//!
//! cuDNN 9 is opened on first use from where
//! [`CUDNN_SPEC`](cuprite_sys::libraries::CUDNN_SPEC) says (`CUPRITE_CUDNN_PATH`, the system
//! loader, the toolkit folders, pip's `nvidia-cudnn-cu12`/`-cu13`); without it, [`Dnn::new`]
//! and [`version`] are [`Error::LibraryNotFound`] naming
//! every place tried, and nothing else in cuprite is affected.
//!
//! ```no_run
//! use cuprite_driver::dnn::{ConvShape, Dnn};
//! # fn main() -> cuprite_driver::Result<()> {
//! let ctx = cuprite_driver::Context::new(0)?;
//! let s = ctx.default_stream();
//! let dnn = Dnn::new(&s)?;
//! // One 1-channel 4 × 4 image of ones, a 3 × 3 filter of ones, padding 1.
//! let mut shape = ConvShape::new(1, 1, [4, 4], 1, [3, 3]);
//! shape.pad = [1, 1];
//! let x = s.clone_htod(&[1.0f32; 16])?;
//! let w = s.clone_htod(&[1.0f32; 9])?;
//! let mut y = s.alloc_zeros::<f32>(shape.y_len()?)?;
//! dnn.conv_forward(&shape, &x, &w, &mut y)?;
//! let y = s.clone_dtoh(&y)?;
//! assert_eq!((y[0], y[1], y[5]), (4.0, 6.0, 9.0)); // corner, edge, inside
//! # Ok(()) }
//! ```

macro_rules! cudnn {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        $crate::dnn::check_cudnn(
            ::cuprite_sys::cudnn::$name($($arg),*),
            stringify!($name),
        )
    };
}

mod algo;
mod conv;
mod desc;
mod element;
mod engine;
mod pass;
mod pool;
mod shape;

pub use conv::Activation;
pub use element::DnnElement;
pub use shape::{ConvShape, Layout, PoolMode, PoolShape};

use crate::blas::invalid;
use crate::context::DropWait;
use crate::error::{Error, Result};
use crate::handle_keep::HandleKeep;
use crate::stream::Stream;
use cuprite_sys::LoadError;
use cuprite_sys::cudnn::{cudnnDataType_t, cudnnHandle_t, cudnnStatus_t};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// What a cuDNN status means: its category, cuDNN's own string for it, and cuDNN's message
/// about the failure (the last error of this thread), when it kept one.
fn description(r: cudnnStatus_t) -> String {
    let mut d = r.category().to_string();
    // SAFETY: a status is a plain value; cuDNN returns a static NUL-terminated string.
    if let Ok(p) = unsafe { cuprite_sys::cudnn::cudnnGetErrorString(r) }
        && !p.is_null()
    {
        // SAFETY: non-null and NUL-terminated, as above.
        let s = unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy();
        d.push_str(&format!(" ({s})"));
    }
    let mut buf = [0 as std::ffi::c_char; 1024];
    // SAFETY: `buf` holds the 1024 bytes promised; cuDNN NUL-terminates within them.
    if unsafe { cuprite_sys::cudnn::cudnnGetLastErrorString(buf.as_mut_ptr(), buf.len()) }.is_ok() {
        // SAFETY: NUL-terminated within `buf` (zeroed beforehand).
        let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
        if !s.trim().is_empty() {
            d.push_str(&format!(": {}", s.trim()));
        }
    }
    d
}

/// Turns a raw cuDNN call's outcome into a `Result`, naming `call` on failure.
pub(crate) fn check_cudnn(
    result: std::result::Result<cudnnStatus_t, LoadError>,
    call: &'static str,
) -> Result<()> {
    match result {
        Ok(r) if r.is_success() => Ok(()),
        Ok(r) => Err(Error::Library {
            library: "libcudnn",
            call,
            code: r.0,
            name: r
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("cudnnStatus_t({})", r.0)),
            description: description(r),
        }),
        Err(e) => Err(e.into()),
    }
}

/// The version of the cuDNN library that would be used, as `(major, minor, patch)`. Opens the
/// library; needs no GPU. Without it, an `Err` listing every place it was looked for.
///
/// ```
/// match cuprite_driver::dnn::version() {
///     Ok((major, minor, patch)) => println!("cuDNN {major}.{minor}.{patch}"),
///     Err(e) => println!("no cuDNN: {e}"),
/// }
/// ```
///
/// # Errors
/// [`Error::LibraryNotFound`] when cuDNN is not installed where it is looked for.
pub fn version() -> Result<(u32, u32, u32)> {
    // SAFETY: no arguments and no precondition.
    let v = unsafe { cuprite_sys::cudnn::cudnnGetVersion() }?;
    Ok(((v / 10000) as u32, (v / 100 % 100) as u32, (v % 100) as u32))
}

/// Whether cuDNN can be loaded here (any version; [`Dnn::new`] needs 9.x).
pub fn is_available() -> bool {
    cuprite_sys::libraries::CUDNN.is_available()
}

/// Whether `T` is a half type (`f16`, `bf16`).
fn is_half<T: DnnElement>() -> bool {
    matches!(
        T::DATA_TYPE,
        cudnnDataType_t::CUDNN_DATA_HALF | cudnnDataType_t::CUDNN_DATA_BFLOAT16
    )
}

/// Whether convolution algorithms are measured (the default) for handles that do not say
/// otherwise ([`Dnn::set_algo_search`]).
static ALGO_SEARCH: AtomicBool = AtomicBool::new(true);

/// Chooses how handles that follow the process-wide setting pick the algorithm of a
/// convolution problem they have not seen: `true` (the default) times cuDNN's candidates on
/// the first call's own buffers (`cudnnFind*AlgorithmEx`, like PyTorch's
/// `torch.backends.cudnn.benchmark = True`) and keeps the fastest that the handle's precision
/// and determinism settings allow, for `f32` and `f64` problems, and times the first few
/// graph-API plans of a problem of any type ([`set_graph_api`]; `f16`/`bf16` problems by
/// default); `f16`/`bf16` problems on the legacy API take the heuristic choice unless a handle
/// asks to measure them (the legacy API's measured choices of those ran slower in cuprite's
/// benchmarks); `false` takes cuDNN's heuristic choice (`cudnnGet*Algorithm_v7`, or the first
/// graph-API plan that builds) without timing anything. Choices already cached are kept, except
/// that a heuristic choice is measured by its problem's next call once measuring is on.
///
/// Measuring makes the first call of each problem slower (every candidate runs, and the host
/// waits for the timings); the result of every call is its algorithm's, within the
/// convolution's rounding whichever algorithm that is. A call on a capturing stream never
/// measures (timing would need the host to wait on captured work).
///
/// ```
/// use cuprite_driver::dnn;
/// assert!(dnn::algo_search()); // measured by default
/// dnn::set_algo_search(false); // heuristic choices from here on
/// assert!(!dnn::algo_search());
/// dnn::set_algo_search(true);
/// ```
pub fn set_algo_search(on: bool) {
    ALGO_SEARCH.store(on, Ordering::Relaxed);
}

/// Whether handles that follow the process-wide setting measure their algorithm choices (see
/// [`set_algo_search`]).
pub fn algo_search() -> bool {
    ALGO_SEARCH.load(Ordering::Relaxed)
}

/// An on/off setting (a handle's algorithm search and API duel, the process's duel) stored in
/// an `AtomicU8`: not set (a handle then follows the process), off, on.
const UNSET: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

/// The stored form of an on/off setting: `None` not set.
fn setting_code(v: Option<bool>) -> u8 {
    match v {
        None => UNSET,
        Some(false) => OFF,
        Some(true) => ON,
    }
}

/// The stored setting `code` where it is set, else `otherwise()`.
fn setting_or(code: u8, otherwise: impl FnOnce() -> bool) -> bool {
    match code {
        ON => true,
        OFF => false,
        _ => otherwise(),
    }
}

/// A graph-API setting: follow the process (handles only), off, on, by element type.
const GRAPH_PROCESS: u8 = 0;
const GRAPH_OFF: u8 = 1;
const GRAPH_ON: u8 = 2;
const GRAPH_BY_TYPE: u8 = 3;

/// The process's graph-API setting (`GRAPH_OFF`, `GRAPH_ON` or `GRAPH_BY_TYPE`).
static GRAPH_API: AtomicU8 = AtomicU8::new(GRAPH_BY_TYPE);

/// The process's duel setting (see [`set_api_duel`]): `UNSET` until set or first read, when
/// `CUPRITE_DNN_API_DUEL=1` turns it on.
static API_DUEL: AtomicU8 = AtomicU8::new(UNSET);

/// Turns on or off (the default) the duel of cuDNN's two APIs for the `f32`/`f64`
/// convolutions of handles that do not say otherwise ([`Dnn::set_api_duel`]): where the
/// process chooses the API by element type ([`set_graph_api`]`(None)`) and the handle measures
/// ([`set_algo_search`]), a problem's first call times its measured graph-API plan against its
/// measured legacy algorithm (turns of a few runs between two events on that call's buffers)
/// and keeps the faster. Off, those problems take the legacy API. The duel runs several of
/// cuDNN's graph-API engines on the call's buffers, which the legacy API never does for these
/// types. `CUPRITE_DNN_API_DUEL=1` in the environment turns it on until this is called.
///
/// ```
/// use cuprite_driver::dnn;
/// dnn::set_api_duel(true);
/// assert!(dnn::api_duel());
/// dnn::set_api_duel(false);
/// assert!(!dnn::api_duel());
/// ```
pub fn set_api_duel(on: bool) {
    API_DUEL.store(setting_code(Some(on)), Ordering::Relaxed);
}

/// Whether handles that follow the process time both APIs for `f32`/`f64` problems (see
/// [`set_api_duel`]).
pub fn api_duel() -> bool {
    setting_or(API_DUEL.load(Ordering::Relaxed), || {
        let on = std::env::var("CUPRITE_DNN_API_DUEL").is_ok_and(|v| v == "1");
        // A setter that ran meanwhile wins.
        let v = setting_code(Some(on));
        let _ = API_DUEL.compare_exchange(UNSET, v, Ordering::Relaxed, Ordering::Relaxed);
        API_DUEL.load(Ordering::Relaxed) == ON
    })
}

/// Which of cuDNN's APIs computes a handle's convolution problems of one element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Api {
    /// The legacy API's algorithms.
    Legacy,
    /// The graph API's plans (the legacy API where no plan serves).
    Graph,
    /// Whichever ran faster on the problem's first call (the legacy API where that call could
    /// not time them: on a capturing stream).
    Faster,
}

/// Chooses which of cuDNN's two convolution APIs the convolutions (forward and both
/// gradients; not the fused bias-and-activation call) of handles that do not say otherwise
/// ([`Dnn::set_graph_api`]) use: `Some(true)` the graph (backend) API's execution plans,
/// `Some(false)` the legacy API's algorithms, `None` (the default) by element type: the graph
/// API for `f16`/`bf16` problems; the legacy API for `f32`/`f64` ones, or, where the duel is on
/// ([`set_api_duel`]) and the handle measures ([`set_algo_search`]), the faster of the two on
/// the problem's first call. Both compute the same convolution, within its rounding.
///
/// A graph-API plan is made on a problem's first call and kept in the handle for its life: the
/// first engine cuDNN's heuristics (mode A, then its fallback list) rank that keeps the
/// handle's precision and determinism settings (sums in `f32` for half types, no reduced
/// precision for `f32`/`f64`, TF32 only where allowed) and that builds here, or, while the handle
/// measures ([`set_algo_search`], [`Dnn::set_algo_search`]), the fastest of the first few,
/// timed on that call's own buffers. A problem no plan serves here, one met first on a
/// capturing stream, or one beyond the handle's plan capacity takes the legacy API.
///
/// ```
/// use cuprite_driver::dnn;
/// assert_eq!(dnn::graph_api(), None); // by element type
/// dnn::set_graph_api(Some(false)); // the legacy API for every type from here on
/// assert_eq!(dnn::graph_api(), Some(false));
/// dnn::set_graph_api(None);
/// ```
pub fn set_graph_api(graph: Option<bool>) {
    let v = match graph {
        None => GRAPH_BY_TYPE,
        Some(false) => GRAPH_OFF,
        Some(true) => GRAPH_ON,
    };
    GRAPH_API.store(v, Ordering::Relaxed);
}

/// The process's graph-API setting (see [`set_graph_api`]): `None` by element type.
pub fn graph_api() -> Option<bool> {
    match GRAPH_API.load(Ordering::Relaxed) {
        GRAPH_OFF => Some(false),
        GRAPH_ON => Some(true),
        _ => None,
    }
}

/// A cuDNN handle bound to a context and a cuprite [`Stream`]: every computation is enqueued
/// on that stream, with the workspace it needs taken from the stream-ordered pool. Keeps a
/// cache of algorithm choices per shape. Destroyed on drop (cuDNN waits for the device then),
/// or, when a capture took some of its calls, with the last graph of that capture (which keeps
/// the execution plans those calls ran too).
/// `Send + Sync`; calls from several threads take turns (cuDNN forbids concurrent use of one
/// handle). Make one per stream and keep it: creating a handle costs far more than a call.
///
/// See the [module docs](self) for an example.
pub struct Dnn {
    raw: cudnnHandle_t,
    stream: Arc<Stream>,
    /// Serialises calls; holds the algorithm choices.
    turn: Mutex<algo::AlgoCache>,
    allow_tf32: AtomicBool,
    deterministic: AtomicBool,
    /// `UNSET` (follow the process), `OFF` or `ON`.
    algo_search: AtomicU8,
    /// `GRAPH_BY_TYPE`, `GRAPH_OFF` or `GRAPH_ON`.
    graph_api: AtomicU8,
    /// `UNSET` (follow the process), `OFF` or `ON`.
    api_duel: AtomicU8,
    /// Destroys the handle once neither this nor a graph that captured its work holds it.
    /// Dropped after the plans (`Drop` clears them first).
    keep: Arc<HandleKeep>,
}

// SAFETY: the handle is used only under `turn`'s lock with its context bound to the calling
// thread; cuDNN handles may move between threads.
unsafe impl Send for Dnn {}
// SAFETY: as above: every use of `raw` takes `turn`.
unsafe impl Sync for Dnn {}

impl fmt::Debug for Dnn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dnn")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .field("allow_tf32", &self.allow_tf32())
            .field("deterministic", &self.deterministic())
            .field("algo_search", &self.algo_search())
            .finish()
    }
}

/// Opens, best effort and once, the libraries cuDNN opens by bare name at run time (cuBLASLt
/// for some convolution algorithms, NVRTC for its runtime-compiled engines), so that where
/// cuprite finds them off the system loader's path (a pip wheel), cuDNN's own `dlopen` finds
/// them already loaded. A library missing here is cuDNN's to report when it needs it.
fn preload_dependencies() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = cuprite_sys::libraries::CUBLASLT.path();
        let _ = cuprite_sys::nvrtc::LIBRARY.path();
    });
}

impl Dnn {
    /// A new handle whose work goes on `stream`.
    ///
    /// # Errors
    /// [`Error::LibraryNotFound`] (every place tried) without cuDNN;
    /// [`Error::InvalidArgument`] when the cuDNN found is not version 9, or while `stream` is
    /// capturing (make the handle before the capture begins); a library error when cuDNN
    /// cannot start on this device.
    pub fn new(stream: &Arc<Stream>) -> Result<Dnn> {
        crate::blas::refuse_capturing(stream, "a cuDNN handle")?;
        let (major, minor, patch) = version()?;
        if major != 9 {
            let path = cuprite_sys::libraries::CUDNN.path().unwrap_or("?");
            return Err(invalid(format!(
                "cuDNN {major}.{minor}.{patch} was found ({path}); cuprite needs cuDNN 9 \
                 (set CUPRITE_CUDNN_PATH to a libcudnn.so.9)"
            )));
        }
        preload_dependencies();
        stream.context().bind_to_thread()?;
        let mut raw: cudnnHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { cudnn!(cudnnCreate(&mut raw)) }?;
        let handle = raw as usize;
        let keep = HandleKeep::new(
            stream.context(),
            "a cuDNN handle",
            Box::new(move || {
                // SAFETY: the handle this keep was made for, destroyed once, after every use
                // (the keep is its last holder; captured work is waited for first; cuDNN also
                // waits for the device before releasing it).
                unsafe { cudnn!(cudnnDestroy(handle as cudnnHandle_t)) }
            }),
        );
        let dnn = Dnn {
            raw,
            stream: stream.clone(),
            turn: Mutex::new(algo::AlgoCache::default()),
            allow_tf32: AtomicBool::new(false),
            deterministic: AtomicBool::new(false),
            algo_search: AtomicU8::new(UNSET),
            graph_api: AtomicU8::new(GRAPH_PROCESS),
            api_duel: AtomicU8::new(UNSET),
            keep,
        };
        // SAFETY: a live handle and a live stream of the current context.
        unsafe { cudnn!(cudnnSetStream(raw, stream.raw())) }?;
        Ok(dnn)
    }

    /// The stream everything is enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The raw handle, for calls cuprite does not wrap. Declare their accesses with
    /// [`Stream::begin_access`] / [`Stream::end_access`] and keep the handle's stream.
    pub fn raw(&self) -> cudnnHandle_t {
        self.raw
    }

    /// Lets later `f32` convolutions use TF32 tensor cores (inputs rounded to 10 mantissa
    /// bits), or forbids it again (the default: FMA arithmetic in full `f32`).
    pub fn set_allow_tf32(&self, allow: bool) {
        self.allow_tf32.store(allow, Ordering::Relaxed);
    }

    /// Whether `f32` convolutions may use TF32.
    pub fn allow_tf32(&self) -> bool {
        self.allow_tf32.load(Ordering::Relaxed)
    }

    /// Restricts later convolutions to algorithms whose results are the same run to run (no
    /// atomic accumulation), or lifts the restriction (the default). Some shapes then have no
    /// algorithm: an [`Error::Library`] of status `CUDNN_STATUS_NOT_SUPPORTED`.
    pub fn set_deterministic(&self, deterministic: bool) {
        self.deterministic.store(deterministic, Ordering::Relaxed);
    }

    /// Whether convolutions are restricted to deterministic algorithms.
    pub fn deterministic(&self) -> bool {
        self.deterministic.load(Ordering::Relaxed)
    }

    /// Sets how this handle chooses the algorithm of a convolution problem it has not seen:
    /// `Some(true)` measures (see [`set_algo_search`]), `Some(false)` takes cuDNN's heuristic
    /// choice, `None` (the default) follows [`set_algo_search`].
    pub fn set_algo_search(&self, search: Option<bool>) {
        self.algo_search
            .store(setting_code(search), Ordering::Relaxed);
    }

    /// Whether this handle measures its algorithm choices now (its own setting, else the
    /// process's).
    pub fn algo_search(&self) -> bool {
        setting_or(self.algo_search.load(Ordering::Relaxed), algo_search)
    }

    /// Whether this handle measures the algorithm choices of `T`'s problems: its own setting
    /// when it has one; else the process's, for `f32` and `f64` only (half-precision problems
    /// follow cuDNN's heuristics unless the handle asks to measure them).
    pub(crate) fn algo_search_for<T: DnnElement>(&self) -> bool {
        setting_or(self.algo_search.load(Ordering::Relaxed), || {
            algo_search() && !is_half::<T>()
        })
    }

    /// Sets which of cuDNN's two convolution APIs this handle's convolutions use:
    /// `Some(true)` the graph (backend) API, `Some(false)` the legacy API, `None` (the default)
    /// as the process says ([`set_graph_api`], where both are described).
    pub fn set_graph_api(&self, graph: Option<bool>) {
        let v = match graph {
            None => GRAPH_PROCESS,
            Some(false) => GRAPH_OFF,
            Some(true) => GRAPH_ON,
        };
        self.graph_api.store(v, Ordering::Relaxed);
    }

    /// Sets whether this handle's `f32`/`f64` problems, where the API is chosen by element
    /// type and the handle measures, time both APIs on their first call and keep the faster:
    /// `Some(true)` on, `Some(false)` off, `None` (the default) as the process says
    /// ([`set_api_duel`], where the duel is described).
    pub fn set_api_duel(&self, on: Option<bool>) {
        self.api_duel.store(setting_code(on), Ordering::Relaxed);
    }

    /// Whether this handle times both APIs for `f32`/`f64` problems (its own setting, else the
    /// process's; see [`set_api_duel`]).
    pub fn api_duel(&self) -> bool {
        setting_or(self.api_duel.load(Ordering::Relaxed), api_duel)
    }

    /// Which API this handle's convolutions of `T` use (its own setting, else the process's):
    /// by element type, half types take the graph API, and `f32`/`f64` take whichever of the
    /// two ran faster on the problem's first call where the duel is on and the handle measures
    /// them, else the legacy API.
    pub(crate) fn api_for<T: DnnElement>(&self) -> Api {
        let v = match self.graph_api.load(Ordering::Relaxed) {
            GRAPH_PROCESS => GRAPH_API.load(Ordering::Relaxed),
            v => v,
        };
        match v {
            GRAPH_OFF => Api::Legacy,
            GRAPH_ON => Api::Graph,
            _ if is_half::<T>() => Api::Graph,
            _ if self.api_duel() && self.algo_search_for::<T>() => Api::Faster,
            _ => Api::Legacy,
        }
    }

    /// How many convolution problems this handle timed on both APIs (see [`set_graph_api`]) went
    /// to the graph API, and how many to the legacy API.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a call panicked while holding the handle.
    pub fn faster_api_counts(&self) -> Result<(usize, usize)> {
        Ok(self.begin_unbound()?.faster_counts())
    }

    /// How many graph-API plans this handle keeps (one per problem it computed through the
    /// graph API).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a call panicked while holding the handle.
    pub fn graph_plans(&self) -> Result<usize> {
        Ok(self.begin_unbound()?.plan_count())
    }

    /// How many convolution calls found their algorithm in the handle's cache, and how many
    /// chose one (measured or by cuDNN's heuristics; a measurement replacing a cached
    /// heuristic choice counts as a choice).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a call panicked while holding the handle.
    pub fn algo_cache_counts(&self) -> Result<(u64, u64)> {
        Ok(self.begin_unbound()?.counts())
    }

    /// How many of this handle's algorithm choices were measured (`cudnnFind*AlgorithmEx`)
    /// rather than taken from cuDNN's heuristics.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a call panicked while holding the handle.
    pub fn algo_searches(&self) -> Result<u64> {
        Ok(self.begin_unbound()?.searches())
    }

    fn policy(&self) -> algo::Policy {
        algo::Policy {
            allow_tf32: self.allow_tf32(),
            deterministic: self.deterministic(),
        }
    }

    fn begin_unbound(&self) -> Result<MutexGuard<'_, algo::AlgoCache>> {
        self.turn
            .lock()
            .map_err(|_| invalid("cuDNN handle lock poisoned".into()))
    }

    /// Takes this handle's turn and binds its context to the calling thread, for a call about
    /// to enqueue work on its stream (a capture there keeps the handle alive).
    fn begin(&self) -> Result<MutexGuard<'_, algo::AlgoCache>> {
        let g = self.begin_unbound()?;
        self.stream.context().bind_to_thread()?;
        self.keep.note_use(&self.stream);
        Ok(g)
    }

    /// `plan` is about to be executed on the handle's stream: a capture there keeps it (and
    /// the handle, which is destroyed after it) until its last graph is gone, for the plan owns
    /// the kernels its work runs. One atomic load when no capture is in progress.
    fn keep_plan(&self, plan: &Arc<engine::Plan>) {
        if crate::capture::any_active() {
            let (plan, handle) = (plan.clone(), self.keep.clone());
            let kept = HandleKeep::new(
                self.stream.context(),
                "a cuDNN execution plan",
                Box::new(move || {
                    drop(plan);
                    drop(handle);
                    Ok(())
                }),
            );
            kept.note_use(&self.stream);
        }
    }

    /// A workspace of `bytes` from the stream-ordered pool (freed after the work using it).
    fn workspace(&self, bytes: usize) -> Result<crate::memory::DeviceBuffer<u8>> {
        // SAFETY: cuDNN treats its workspace as scratch; nothing reads it before cuDNN
        // writes it.
        unsafe { self.stream.alloc::<u8>(bytes) }
    }
}

impl Drop for Dnn {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        // Graph-API plans own the kernels their enqueued work runs: they go only once that
        // work is complete, and before the handle they were made on.
        let cache = self.turn.get_mut().unwrap_or_else(|e| e.into_inner());
        if cache.has_plans() {
            match self.stream.synchronize_for_drop() {
                DropWait::Done => cache.clear_plans(),
                // A capture in progress on the stream refused the wait (no error of the
                // capture's): the plans and the handle go after the next context-wide
                // synchronisation that succeeds, never under work that may still run.
                DropWait::Refused => {
                    let (mut plans, keep) = (std::mem::take(cache), self.keep.clone());
                    ctx.after_next_sync(
                        "dropping a Dnn handle's execution plans",
                        Box::new(move || {
                            plans.clear_plans();
                            drop(keep);
                            Ok(())
                        }),
                    );
                }
                // Kept (leaked with the handle's other state) rather than destroyed under
                // work that may still run.
                DropWait::Failed(e) => {
                    ctx.defer("synchronizing a Dnn handle's stream before dropping it", e);
                    std::mem::forget(std::mem::take(cache));
                    std::mem::forget(self.keep.clone());
                }
            }
        }
        // The handle goes with `keep` (here, or with the last graph of captured work; plans a
        // graph keeps hold it too).
    }
}

#[cfg(test)]
mod tests {
    use super::{setting_code, setting_or};

    /// A set setting answers for itself; an unset one asks, and only then.
    #[test]
    fn on_off_settings_follow_the_process_only_when_unset() {
        let asked = std::cell::Cell::new(0);
        let process = |v: bool| {
            asked.set(asked.get() + 1);
            v
        };
        assert!(setting_or(setting_code(Some(true)), || process(false)));
        assert!(!setting_or(setting_code(Some(false)), || process(true)));
        assert_eq!(asked.get(), 0);
        assert!(setting_or(setting_code(None), || process(true)));
        assert!(!setting_or(setting_code(None), || process(false)));
        assert_eq!(asked.get(), 2);
    }
}
