//! The one error type of the `cuprite-driver` crate.
//!
//! Owns the mapping from driver and NVRTC status codes to [`Error`], and the helpers that turn a
//! raw call's result into a `Result`. It must not decide policy (retries, deferral): callers do.

use cuprite_sys::LoadError;
use cuprite_sys::driver::{self as sys, CUresult};
use std::ffi::CStr;

/// A `Result` with [`Error`] as its error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in cuprite.
///
/// `Display` is the readable message; `Debug` is the variant's name followed by the same
/// message, so that `fn main() -> cuprite_driver::Result<()>` prints something a person can read:
///
/// ```
/// let e = cuprite_driver::Error::InvalidArgument("n must be positive, got 0".into());
/// assert_eq!(e.to_string(), "invalid argument: n must be positive, got 0");
/// assert_eq!(format!("{e:?}"), "InvalidArgument: invalid argument: n must be positive, got 0");
/// ```
#[derive(Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A driver call returned an error status.
    #[error("{call} failed: {name} ({}): {description}", .code.0)]
    Driver {
        /// The status code.
        code: CUresult,
        /// Its `CUDA_ERROR_*` name (or `CUresult(n)` when unknown).
        name: String,
        /// The driver's description of it.
        description: String,
        /// The driver function that failed.
        call: &'static str,
    },
    /// A CUDA library could not be found.
    #[error("{library} not found; tried:\n  - {}", .tried.join("\n  - "))]
    LibraryNotFound {
        /// The library, e.g. `libcuda`.
        library: &'static str,
        /// Every place tried, with the reason each failed.
        tried: Vec<String>,
    },
    /// A library lacks one function (typically: the installed version is older).
    #[error(
        "{library} ({path}) has no symbol `{symbol}`; the installed version is probably too old for this call"
    )]
    SymbolNotFound {
        /// The library.
        library: &'static str,
        /// The missing function.
        symbol: &'static str,
        /// The file the library was loaded from.
        path: String,
    },
    /// A CUDA math library (cuFFT, ...) returned an error status.
    #[error("{call} failed: {name} ({code}): {description}")]
    Library {
        /// The library, e.g. `libcufft`.
        library: &'static str,
        /// The library function that failed.
        call: &'static str,
        /// The library's status code.
        code: i32,
        /// Its name in the library's header (e.g. `CUFFT_INVALID_SIZE`), or the number.
        name: String,
        /// What it means.
        description: String,
    },
    /// NVRTC failed; `log` is the compiler's whole log.
    #[error("{call} failed: {name}\n{log}")]
    Nvrtc {
        /// The `NVRTC_ERROR_*` name.
        name: String,
        /// The NVRTC function that failed.
        call: &'static str,
        /// The full compile log (may be empty).
        log: String,
    },
    /// An argument was rejected before reaching the driver.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A device allocation failed even after trimming cached memory.
    #[error("out of device memory: asked for {requested} bytes, {free} bytes free of {total}")]
    OutOfMemory {
        /// Bytes asked for.
        requested: usize,
        /// Bytes free on the device when it failed.
        free: usize,
        /// Total device memory.
        total: usize,
    },
    /// An operation that ran in a `Drop` failed; reported by the next fallible call.
    #[error("an earlier {operation} (in a Drop) failed: {source}")]
    Deferred {
        /// What the `Drop` was doing, e.g. `free of DeviceBuffer<f32>`.
        operation: String,
        /// Why it failed.
        source: Box<Error>,
    },
    /// A factorisation found the matrix singular (cuSOLVER's `info` after `getrf`).
    #[error(
        "{call}: the matrix is singular: U({index}, {index}) is exactly zero (1-based, from cuSOLVER's info)"
    )]
    SingularMatrix {
        /// The routine, e.g. `cusolverDnXgetrf`.
        call: &'static str,
        /// The 1-based index of the first zero diagonal element of U.
        index: i64,
    },
    /// A Cholesky factorisation found the matrix not positive definite (`potrf`'s `info`).
    #[error(
        "{call}: the matrix is not positive definite: its leading minor of order {order} is not positive (from cuSOLVER's info)"
    )]
    NotPositiveDefinite {
        /// The routine, e.g. `cusolverDnXpotrf`.
        call: &'static str,
        /// The order of the first leading minor that is not positive definite (1-based).
        order: i64,
    },
    /// An iterative decomposition (SVD, eigenvalues) did not converge (cuSOLVER's `info`).
    #[error("{call} did not converge (cuSOLVER's info = {info})")]
    NotConverged {
        /// The routine, e.g. `cusolverDnXgesvd`.
        call: &'static str,
        /// The positive `info` value (for `gesvd`: how many superdiagonals did not converge).
        info: i64,
    },
    /// An NCCL call failed (see [`crate::nccl`]): NCCL's status name, its description and, where
    /// NCCL kept one, the last error message of the communicator.
    #[error("{call} failed: {name}: {detail}")]
    Nccl {
        /// The NCCL function that failed (or the cuprite step that polled it).
        call: &'static str,
        /// The `ncclResult_t` code.
        code: i32,
        /// Its `nccl*` name.
        name: String,
        /// NCCL's description and last error message.
        detail: String,
    },
    /// A bounded wait ran out of time (an NCCL communicator or a rank rendezvous that did not
    /// complete): returned instead of hanging.
    #[error("timed out after {seconds:.1} s: {what}")]
    Timeout {
        /// What was waited for.
        what: String,
        /// How long it was waited for.
        seconds: f64,
    },
    /// Processes could not find each other (see [`crate::nccl::rendezvous`]): a bad
    /// environment, a network error, or a peer speaking another protocol.
    #[error("rendezvous failed: {0}")]
    Rendezvous(String),
    /// A Rust closure run on a stream (`Stream::launch_host_fn`) panicked; the panic was caught.
    #[error("a host function panicked: {message}")]
    HostFnPanicked {
        /// The panic message.
        message: String,
    },
}

impl Error {
    /// The variant's name, e.g. `"LibraryNotFound"` (what `Debug` puts before the message).
    ///
    /// ```
    /// let e = cuprite_driver::Error::InvalidArgument("x".into());
    /// assert_eq!(e.variant_name(), "InvalidArgument");
    /// ```
    pub fn variant_name(&self) -> &'static str {
        match self {
            Error::Driver { .. } => "Driver",
            Error::LibraryNotFound { .. } => "LibraryNotFound",
            Error::SymbolNotFound { .. } => "SymbolNotFound",
            Error::Library { .. } => "Library",
            Error::Nvrtc { .. } => "Nvrtc",
            Error::InvalidArgument(_) => "InvalidArgument",
            Error::OutOfMemory { .. } => "OutOfMemory",
            Error::Deferred { .. } => "Deferred",
            Error::HostFnPanicked { .. } => "HostFnPanicked",
            Error::Nccl { .. } => "Nccl",
            Error::Timeout { .. } => "Timeout",
            Error::Rendezvous(_) => "Rendezvous",
            Error::SingularMatrix { .. } => "SingularMatrix",
            Error::NotPositiveDefinite { .. } => "NotPositiveDefinite",
            Error::NotConverged { .. } => "NotConverged",
        }
    }
}

/// The variant's name, then the `Display` message (which may span several lines, e.g. the
/// places a library was looked for).
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {self}", self.variant_name())
    }
}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::LibraryNotFound { library, tried } => {
                Error::LibraryNotFound { library, tried }
            }
            LoadError::SymbolNotFound {
                library,
                symbol,
                path,
            } => Error::SymbolNotFound {
                library,
                symbol,
                path,
            },
        }
    }
}

impl Error {
    /// The error for a driver status that is not `CUDA_SUCCESS`.
    #[cold]
    pub fn driver(code: CUresult, call: &'static str) -> Self {
        let name = code
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("CUresult({})", code.0));
        let mut description = driver_description(code);
        if is_sticky_code(code) {
            description.push_str(
                " — a sticky error: the context can no longer be used (every later call on it \
                 fails); the process must exit to use this GPU again",
            );
        }
        Error::Driver {
            code,
            name,
            description,
            call,
        }
    }

    /// The driver status code, when this is a driver error.
    pub fn code(&self) -> Option<CUresult> {
        match self {
            Error::Driver { code, .. } => Some(*code),
            Error::Deferred { source, .. } => source.code(),
            _ => None,
        }
    }

    /// Whether this error means the context is unusable (a sticky error such as a device-side
    /// trap or illegal address): every later call on that context fails too.
    pub fn is_sticky(&self) -> bool {
        self.code().is_some_and(is_sticky_code)
    }
}

/// Whether `code` is one of the errors that leave a context unusable. Not
/// `CUDA_ERROR_CONTEXT_IS_DESTROYED`: that one says a handle named a context that is gone (a use
/// after destruction), while other contexts and a new one work on.
fn is_sticky_code(code: CUresult) -> bool {
    matches!(
        code,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

fn driver_description(code: CUresult) -> String {
    let mut p: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: `p` is a valid out-pointer; the driver returns a static NUL-terminated string.
    match unsafe { sys::cuGetErrorString(code, &mut p) } {
        Ok(r) if r.is_success() && !p.is_null() => {
            // SAFETY: non-null pointer to a static C string owned by the driver.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
        _ => "no description available".to_string(),
    }
}

/// Turns a raw driver call's outcome into a `Result`, naming `call` on failure.
#[inline(always)]
pub fn check(result: std::result::Result<CUresult, LoadError>, call: &'static str) -> Result<()> {
    match result {
        Ok(r) if r.is_success() => Ok(()),
        Ok(r) => Err(Error::driver(r, call)),
        Err(e) => Err(e.into()),
    }
}

/// The error for a cuBLAS or cuBLASLt status that is not `CUBLAS_STATUS_SUCCESS`.
#[cold]
pub fn cublas_error(
    library: &'static str,
    status: cuprite_sys::cublas::cublasStatus_t,
    call: &'static str,
) -> Error {
    let description = if library == "libcublasLt" {
        // SAFETY: takes a status by value; returns a static NUL-terminated string or null.
        unsafe { cuprite_sys::cublaslt::cublasLtGetStatusString(status) }
    } else {
        // SAFETY: as above.
        unsafe { cuprite_sys::cublas::cublasGetStatusString(status) }
    };
    let description = match description {
        // SAFETY: non-null pointer to a static C string owned by the library.
        Ok(p) if !p.is_null() => unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
        _ => "no description available".to_string(),
    };
    Error::Library {
        library,
        call,
        code: status.0,
        name: status
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("cublasStatus_t({})", status.0)),
        description,
    }
}

/// Turns a raw cuBLAS call's outcome into a `Result`, naming `call` on failure.
#[inline(always)]
pub fn check_cublas(
    result: std::result::Result<cuprite_sys::cublas::cublasStatus_t, LoadError>,
    call: &'static str,
) -> Result<()> {
    match result {
        Ok(r) if r.is_success() => Ok(()),
        Ok(r) => Err(cublas_error("libcublas", r, call)),
        Err(e) => Err(e.into()),
    }
}

/// Turns a raw cuBLASLt call's outcome into a `Result`, naming `call` on failure.
#[inline(always)]
pub fn check_cublaslt(
    result: std::result::Result<cuprite_sys::cublas::cublasStatus_t, LoadError>,
    call: &'static str,
) -> Result<()> {
    match result {
        Ok(r) if r.is_success() => Ok(()),
        Ok(r) => Err(cublas_error("libcublasLt", r, call)),
        Err(e) => Err(e.into()),
    }
}

/// What a cuSOLVER status means (cuSOLVER has no function that says).
fn cusolver_description(r: cuprite_sys::cusolver::cusolverStatus_t) -> &'static str {
    match r.0 {
        1 => "the library was not initialised",
        2 => "a resource allocation failed inside cuSOLVER",
        3 => "an unsupported value or parameter was passed",
        4 => "the device lacks a required feature",
        6 => "the GPU program failed to execute",
        7 => "an internal cuSOLVER operation failed",
        8 => "the matrix type is not supported",
        9 => "not supported",
        10 => "a zero pivot was met",
        31 => "the workspace is invalid",
        _ => "see the cuSOLVER documentation",
    }
}

/// Turns a raw cuSOLVER call's outcome into a `Result`, naming `call` on failure.
#[inline(always)]
pub fn check_cusolver(
    result: std::result::Result<cuprite_sys::cusolver::cusolverStatus_t, LoadError>,
    call: &'static str,
) -> Result<()> {
    match result {
        Ok(r) if r.is_success() => Ok(()),
        Ok(r) => Err(Error::Library {
            library: "libcusolver",
            call,
            code: r.0,
            name: r
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("cusolverStatus_t({})", r.0)),
            description: cusolver_description(r).to_string(),
        }),
        Err(e) => Err(e.into()),
    }
}

/// `Err` naming `call` when this thread runs a host function's body, where CUDA forbids driver
/// calls (see `host_fn.rs`); one thread-local read.
#[doc(hidden)]
#[inline(always)]
pub fn refuse_in_host_fn(call: &'static str) -> Result<()> {
    if crate::host_fn::active() {
        return Err(host_fn_refused(call));
    }
    Ok(())
}

#[cold]
fn host_fn_refused(call: &'static str) -> Error {
    Error::InvalidArgument(format!(
        "{call} called inside a host function (Stream::launch_host_fn, or a drop it caused); \
         CUDA forbids driver calls there, so it was not made (whatever needed it, a free or a \
         destroy, is left undone)"
    ))
}

/// Calls a `cuprite_sys::driver` function and checks its status, naming the call on failure.
///
/// The expansion calls the `unsafe fn` directly, so the call site must be inside an `unsafe`
/// block with its own `// SAFETY:` comment: `unsafe { drv!(cuCtxSynchronize()) }?`.
#[macro_export]
#[doc(hidden)]
macro_rules! drv {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        match $crate::error::refuse_in_host_fn(stringify!($name)) {
            Ok(()) => $crate::error::check(::cuprite_sys::driver::$name($($arg),*), stringify!($name)),
            Err(e) => Err(e),
        }
    };
}
