//! cuSPARSE: sparse × dense products (SpMV, SpMM), sparse × sparse products (SpGEMM), triangular
//! solves (SpSV, SpSM), the incomplete factorisations ILU(0) and IC(0) (the legacy
//! `csrilu02`/`csric02`), and the COO → CSR and CSR → CSC conversions on device buffers,
//! through a [`Sparse`] handle bound to a context and a cuprite stream.
//!
//! A sparse operand is a [`SpMat`]: CSR, CSC or COO with 0-based `i32` or `i64` indices. Its
//! constructor checks every length against the dimensions; what it cannot check without
//! reading the device (monotone offsets, indices in range) is the caller's promise, which is why
//! it is `unsafe` (`cuprite_array::sparse` checks these on the host when a matrix is built).
//! Dense operands are row-major with a leading dimension. Each call takes its work buffer from
//! the stream-ordered pool, declares its accesses to the stream tracker like a kernel launch,
//! and maps a cuSPARSE status to [`Error::Library`] naming the call. SpMV and SpMM take real
//! values only (`f32`, `f64`): complex values are an `Err` until their products pass on a GPU
//! (one crashed the process inside the library).

use crate::blas::invalid;
use crate::error::{Error, Result};
use crate::handle_keep::HandleKeep;
use crate::stream::Stream;
use cuprite_sys::LoadError;
use cuprite_sys::cusparse::{self as sys, cusparseHandle_t, cusparseStatus_t};
use std::fmt;
use std::sync::{Arc, Mutex};

macro_rules! cusparse {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        $crate::sparse::check_cusparse(
            ::cuprite_sys::cusparse::$name($($arg),*),
            stringify!($name),
        )
    };
}

mod convert;
mod element;
mod incomplete;
mod matrix;
mod products;
mod triangular;

pub use element::{SparseElement, SparseIndex};
pub use incomplete::{Incomplete, IncompleteElement};
pub use matrix::{Format, SpMat};
pub use products::CsrBuffers;
pub use triangular::{SpsvPlan, Triangle};

/// What a cuSPARSE status means.
fn description(r: cusparseStatus_t) -> &'static str {
    match r.0 {
        1 => "the library was not initialised",
        2 => "a resource allocation failed inside cuSPARSE",
        3 => "an unsupported value or parameter was passed",
        4 => "the device lacks a required feature",
        5 => "an access to GPU memory space failed",
        6 => "the GPU program failed to execute",
        7 => "an internal cuSPARSE operation failed",
        8 => "the matrix type is not supported",
        9 => "a zero pivot was met",
        10 => "the operation or data type combination is not supported",
        11 => "the resources for the computation are insufficient",
        _ => "see the cuSPARSE documentation",
    }
}

/// Turns a raw cuSPARSE call's outcome into a `Result`, naming `call` on failure.
pub(crate) fn check_cusparse(
    result: std::result::Result<cusparseStatus_t, LoadError>,
    call: &'static str,
) -> Result<()> {
    match result {
        Ok(r) if r.is_success() => Ok(()),
        Ok(r) => Err(Error::Library {
            library: "libcusparse",
            call,
            code: r.0,
            name: r
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("cusparseStatus_t({})", r.0)),
            description: description(r).to_string(),
        }),
        Err(e) => Err(e.into()),
    }
}

/// The version of the cuSPARSE library that would be used, as `(major, minor, patch)`. Opens
/// the library; needs no GPU.
///
/// ```
/// match cuprite_driver::sparse::version() {
///     Ok(v) => println!("cuSPARSE {v:?}"),
///     Err(e) => println!("no cuSPARSE: {e}"),
/// }
/// ```
pub fn version() -> Result<(i32, i32, i32)> {
    use cuprite_sys::library_types::libraryPropertyType as P;
    let mut v = [0i32; 3];
    for (i, p) in [P::MAJOR_VERSION, P::MINOR_VERSION, P::PATCH_LEVEL]
        .into_iter()
        .enumerate()
    {
        // SAFETY: a valid out-pointer; no other precondition.
        unsafe { cusparse!(cusparseGetProperty(p, &mut v[i])) }?;
    }
    Ok((v[0], v[1], v[2]))
}

/// A cuSPARSE handle bound to a context and a cuprite [`Stream`]: every routine runs on that
/// stream. Destroyed on drop, or, when a capture took some of its calls, with the last graph of
/// that capture. `Send + Sync`; calls from several threads take turns. Products
/// only enqueue; [`spgemm`](Self::spgemm) waits for the stream once, to learn the product's
/// number of nonzeros.
///
/// ```no_run
/// use cuprite_driver::blas::Transpose;
/// use cuprite_driver::sparse::{Format, Sparse, SpMat};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.default_stream();
/// let sp = Sparse::new(&s)?;
/// // [[1, 0], [2, 3]] in CSR.
/// let offsets = s.clone_htod(&[0i32, 1, 3])?;
/// let indices = s.clone_htod(&[0i32, 0, 1])?;
/// let values = s.clone_htod(&[1.0f64, 2.0, 3.0])?;
/// // SAFETY: the offsets rise from 0 to 3 and every column index is below 2.
/// let a = unsafe { SpMat::new(Format::Csr, 2, 2, &offsets, &indices, &values) }?;
/// let x = s.clone_htod(&[1.0f64, 1.0])?;
/// let mut y = s.alloc_zeros::<f64>(2)?;
/// sp.spmv(Transpose::None, 1.0, &a, &x, 0.0, &mut y)?;
/// assert_eq!(s.clone_dtoh(&y)?, [1.0, 5.0]);
/// # Ok(()) }
/// ```
pub struct Sparse {
    raw: cusparseHandle_t,
    stream: Arc<Stream>,
    turn: Mutex<()>,
    /// Destroys the handle once neither this nor a graph that captured its work holds it.
    keep: Arc<HandleKeep>,
}

// SAFETY: the handle is used only under `turn`'s lock with the context bound to the calling
// thread; cuSPARSE handles may move between threads.
unsafe impl Send for Sparse {}
// SAFETY: as above.
unsafe impl Sync for Sparse {}

impl fmt::Debug for Sparse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sparse")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .finish()
    }
}

impl Sparse {
    /// A new handle whose work goes on `stream`. `Err` while `stream` is capturing (make
    /// handles before the capture begins).
    pub fn new(stream: &Arc<Stream>) -> Result<Sparse> {
        stream.context().bind_to_thread()?;
        crate::blas::refuse_capturing(stream, "a cuSPARSE handle")?;
        let mut raw: cusparseHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { cusparse!(cusparseCreate(&mut raw)) }?;
        let handle = raw as usize;
        let keep = HandleKeep::new(
            stream.context(),
            "a cuSPARSE handle",
            Box::new(move || {
                // SAFETY: the handle this keep was made for, destroyed once, after every use
                // (the keep is its last holder; captured work is waited for first).
                unsafe { cusparse!(cusparseDestroy(handle as cusparseHandle_t)) }
            }),
        );
        let sp = Sparse {
            raw,
            stream: stream.clone(),
            turn: Mutex::new(()),
            keep,
        };
        // SAFETY: a live handle and a live stream of the current context.
        unsafe { cusparse!(cusparseSetStream(raw, stream.raw())) }?;
        Ok(sp)
    }

    /// The stream everything is enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The raw handle, for calls cuprite does not wrap.
    pub fn raw(&self) -> cusparseHandle_t {
        self.raw
    }

    /// Takes this handle's turn and binds its context to the calling thread, for a call about
    /// to enqueue work on its stream (a capture there keeps the handle alive).
    fn begin(&self) -> Result<std::sync::MutexGuard<'_, ()>> {
        let g = self
            .turn
            .lock()
            .map_err(|_| invalid("cuSPARSE handle lock poisoned".into()))?;
        self.stream.context().bind_to_thread()?;
        self.keep.note_use(&self.stream);
        Ok(g)
    }

    /// A work buffer of `bytes` from the stream-ordered pool (freed after the work using it).
    fn workspace(&self, bytes: usize) -> Result<crate::memory::DeviceBuffer<u8>> {
        // SAFETY: cuSPARSE treats its work buffer as scratch; nothing reads it before cuSPARSE
        // writes it.
        unsafe { self.stream.alloc::<u8>(bytes) }
    }
}

/// The operation code of `t` for elements of type `T` (a conjugate transpose of real
/// elements is a plain transpose).
fn op_of<T: SparseElement>(t: crate::blas::Transpose) -> sys::cusparseOperation_t {
    use crate::blas::Transpose as Tr;
    match t {
        Tr::None => sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
        Tr::ConjTrans if T::IS_COMPLEX => {
            sys::cusparseOperation_t::CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE
        }
        Tr::Trans | Tr::ConjTrans => sys::cusparseOperation_t::CUSPARSE_OPERATION_TRANSPOSE,
    }
}
