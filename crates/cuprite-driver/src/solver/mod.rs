//! cuSOLVER (dense): LU, Cholesky, QR, SVD and symmetric eigendecomposition on device buffers,
//! through a [`Solver`] handle bound to a context and a cuprite stream.
//!
//! Matrices are column-major (LAPACK convention) with explicit leading dimensions. Every call
//! checks its dimensions against the buffers before cuSOLVER sees them, takes its workspace from
//! the stream-ordered pool (kept in the handle and grown when a call needs more), declares its
//! accesses to the stream tracker like a kernel launch, and then reads cuSOLVER's device `info`
//! (one small copy and a wait for the stream): a singular matrix ([`Error::SingularMatrix`]), a
//! matrix that is not positive definite ([`Error::NotPositiveDefinite`]) or a decomposition that
//! did not converge ([`Error::NotConverged`]) is an `Err` naming the index `info` gave, never
//! a silent result.
//!
//! The 64-bit generic API (`cusolverDnX*`) serves `getrf`, `getrs`, `potrf`, `potrs`, `geqrf`,
//! `gesvd`, `syevd` and `geev`; `orgqr` and the Jacobi SVD `gesvdj` exist only in the 32-bit typed API,
//! whose limits are checked.

use crate::blas::invalid;
use crate::error::{Error, Result, check_cusolver};
use crate::handle_keep::HandleKeep;
use crate::memory::{Access, DeviceBuffer, DeviceRead, HostAllocFlags, PinnedHostBuffer};
use crate::stream::Stream;
use cuprite_sys::cublas::libraryPropertyType;
use cuprite_sys::cusolver::{self as sys, cusolverDnHandle_t, cusolverDnParams_t};
use std::ffi::{c_int, c_void};
use std::fmt;
use std::sync::{Arc, Mutex};

macro_rules! cusolver {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        check_cusolver(sys::$name($($arg),*), stringify!($name))
    };
}

mod cholesky;
mod eig;
mod eigh;
mod element;
mod lu;
mod qr;
mod svd;

pub use element::SolverElement;
pub use lu::LuPivots;
pub use svd::SvdVectors;

/// The version of the cuSOLVER library that would be used, as `(major, minor, patch)`. Opens
/// the library; needs no GPU.
///
/// ```
/// match cuprite_driver::solver::version() {
///     Ok(v) => println!("cuSOLVER {v:?}"),
///     Err(e) => println!("no cuSOLVER: {e}"),
/// }
/// ```
pub fn version() -> Result<(i32, i32, i32)> {
    let mut v = [0i32; 3];
    for (i, p) in [
        libraryPropertyType::MAJOR_VERSION,
        libraryPropertyType::MINOR_VERSION,
        libraryPropertyType::PATCH_LEVEL,
    ]
    .into_iter()
    .enumerate()
    {
        // SAFETY: a valid out-pointer; no other precondition.
        unsafe { cusolver!(cusolverGetProperty(p, &mut v[i])) }?;
    }
    Ok((v[0], v[1], v[2]))
}

struct State {
    workspace: DeviceBuffer<u8>,
    info: DeviceBuffer<i32>,
    host: HostWork,
}

/// The host workspace some routines take (`geev`, `syevd` on large matrices): page-locked
/// where the driver grants it, so that the routine's copies between it and the device run at
/// full speed and without staging; ordinary memory otherwise. Grown on demand, never shrunk.
/// Every routine given host workspace waits for its work before returning (see
/// [`Solver::call`]), so the workspace is never in use when it is replaced.
enum HostWork {
    Pinned(PinnedHostBuffer<u8>),
    Pageable(Vec<u8>),
}

impl HostWork {
    fn len(&self) -> usize {
        match self {
            HostWork::Pinned(b) => b.len(),
            HostWork::Pageable(v) => v.len(),
        }
    }

    /// At least `bytes` bytes (zeroed when new).
    fn grow(&mut self, stream: &Stream, bytes: usize) {
        if self.len() >= bytes {
            return;
        }
        *self = match PinnedHostBuffer::new(stream.context(), bytes, HostAllocFlags::NONE) {
            Ok(b) => HostWork::Pinned(b),
            Err(_) => HostWork::Pageable(vec![0; bytes]),
        };
    }

    fn as_mut_ptr(&mut self) -> Result<*mut u8> {
        Ok(match self {
            HostWork::Pinned(b) => b.as_mut_slice()?.as_mut_ptr(),
            HostWork::Pageable(v) => v.as_mut_ptr(),
        })
    }
}

/// A dense cuSOLVER handle bound to a context and a cuprite [`Stream`]: every routine runs on
/// that stream, with device workspace from the stream-ordered pool. Destroyed on drop, or, when
/// a capture took some of its routines, with the last graph of that capture (which keeps the
/// workspace and `info` too).
/// `Send + Sync`; calls from several threads take turns. The routines whose `info` reports on
/// the matrix (`getrf`, `potrf`, `gesvd`, `gesvdj`, `syevd`, `geev`) wait for it before returning;
/// `getrs`, `potrs`, `geqrf` and `orgqr` only enqueue.
///
/// ```no_run
/// use cuprite_driver::solver::Solver;
/// use cuprite_driver::blas::Transpose;
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.default_stream();
/// let solver = Solver::new(&s)?;
/// // Solve [[2, 1], [1, 3]] x = [3, 5] (column-major).
/// let mut a = s.clone_htod(&[2.0f64, 1.0, 1.0, 3.0])?;
/// let mut b = s.clone_htod(&[3.0f64, 5.0])?;
/// let mut ipiv = cuprite_driver::solver::LuPivots::new(&s, 2, 2)?;
/// solver.getrf(2, 2, &mut a, 2, &mut ipiv)?;
/// solver.getrs(Transpose::None, 2, 1, &a, 2, &ipiv, &mut b, 2)?;
/// let x = s.clone_dtoh(&b)?;
/// assert!((x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12);
/// # Ok(()) }
/// ```
pub struct Solver {
    raw: cusolverDnHandle_t,
    params: cusolverDnParams_t,
    stream: Arc<Stream>,
    /// Destroys the handle once neither this nor a graph that captured its work holds it.
    /// Dropped before `state` (the workspaces).
    keep: Arc<HandleKeep>,
    state: Mutex<State>,
}

// SAFETY: the handle and params are used only under `state`'s lock with the context bound to
// the calling thread; cuSOLVER handles may move between threads.
unsafe impl Send for Solver {}
// SAFETY: as above.
unsafe impl Sync for Solver {}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .field(
                "workspace_bytes",
                &self.state.lock().map(|s| s.workspace.len()).unwrap_or(0),
            )
            .finish()
    }
}

/// The device and host workspace sizes a `*_bufferSize` query returned.
#[derive(Clone, Copy, Default)]
struct Sizes {
    device: usize,
    host: usize,
}

impl Solver {
    /// A new handle whose work goes on `stream`.
    ///
    /// # Errors
    /// An [`Error::InvalidArgument`] while `stream` is capturing: its `info` word (and later
    /// its workspace) would be a graph allocation, gone with that graph while the handle lives
    /// on.
    pub fn new(stream: &Arc<Stream>) -> Result<Solver> {
        stream.context().bind_to_thread()?;
        crate::blas::refuse_capturing(stream, "a cuSOLVER handle")?;
        let info = stream.alloc_zeros::<i32>(1)?;
        // SAFETY: empty until a call sizes it; only cuSOLVER writes it.
        let workspace = unsafe { stream.alloc::<u8>(0) }?;
        let mut raw: cusolverDnHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { cusolver!(cusolverDnCreate(&mut raw)) }?;
        let handle = raw as usize;
        let keep = HandleKeep::new(
            stream.context(),
            "a cuSOLVER handle",
            Box::new(move || {
                // SAFETY: the handle this keep was made for, destroyed once, after every use
                // (the keep is its last holder; captured work is waited for first).
                unsafe { cusolver!(cusolverDnDestroy(handle as cusolverDnHandle_t)) }
            }),
        );
        let mut solver = Solver {
            raw,
            params: std::ptr::null_mut(),
            stream: stream.clone(),
            keep,
            state: Mutex::new(State {
                workspace,
                info,
                host: HostWork::Pageable(Vec::new()),
            }),
        };
        // SAFETY: a live handle and a live stream of the current context.
        unsafe { cusolver!(cusolverDnSetStream(raw, stream.raw())) }?;
        // SAFETY: a valid out-pointer.
        unsafe { cusolver!(cusolverDnCreateParams(&mut solver.params)) }?;
        Ok(solver)
    }

    /// The stream everything is enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The raw handle, for calls cuprite does not wrap.
    pub fn raw(&self) -> cusolverDnHandle_t {
        self.raw
    }

    /// The device workspace currently held, in bytes (grown on demand, never shrunk).
    pub fn workspace_bytes(&self) -> usize {
        self.state.lock().map(|s| s.workspace.len()).unwrap_or(0)
    }

    /// Runs one routine: sizes the workspace with `size`, enqueues `run` between the stream
    /// tracker's begin and end of `acc`, then, with `wait_info`, reads `info` (waiting for the
    /// stream). Without it the call only enqueues, unless the routine took host workspace
    /// (which must outlive its work: then it waits too) and returns 0.
    fn call(
        &self,
        acc: &[Access<'_>],
        wait_info: bool,
        size: impl FnOnce() -> Result<Sizes>,
        run: impl FnOnce(u64, usize, *mut c_void, usize, *mut c_int) -> Result<()>,
    ) -> Result<i32> {
        let mut st = self
            .state
            .lock()
            .map_err(|_| invalid("cuSOLVER handle lock poisoned".into()))?;
        self.stream.context().bind_to_thread()?;
        let sizes = size()?;
        if st.workspace.len() < sizes.device && self.stream.is_capturing()? {
            // A workspace allocated now would be graph memory, invalid outside that graph,
            // that the handle keeps using.
            return Err(invalid(format!(
                "cuSOLVER: the routine needs {} bytes of device workspace and the handle holds \
                 {}; it cannot grow while its stream is capturing: run the routine once before \
                 the capture begins",
                sizes.device,
                st.workspace.len()
            )));
        }
        if st.workspace.len() < sizes.device {
            // The old workspace is freed stream-ordered, after the work that used it. Zeroed:
            // some routines read parts of their workspace before writing them (initcheck
            // reports it for the complex tridiagonal reduction of `syevd`).
            st.workspace = self.stream.alloc_zeros::<u8>(sizes.device)?;
        }
        st.host.grow(&self.stream, sizes.host);
        let ws = st.workspace.device_ptr();
        let info_ptr = st.info.device_ptr() as *mut c_int;
        let host_ptr = st.host.as_mut_ptr()?.cast::<c_void>();
        // The routine's operands, then the handle's workspace and `info`, which it writes (a
        // graph of captured work keeps them, and its launches are ordered with later calls).
        let mut all = Vec::with_capacity(acc.len() + 2);
        all.extend_from_slice(acc);
        all.push(Access::of_tracker(st.workspace.tracker(), true));
        all.push(Access::of_tracker(st.info.tracker(), true));
        self.keep.note_use(&self.stream);
        // Exactly the sizes cuSOLVER asked for (the buffers may be larger).
        self.stream.with_access(&all, || {
            run(ws, sizes.device, host_ptr, sizes.host, info_ptr)
        })?;
        if !wait_info {
            if sizes.host > 0 {
                self.stream.synchronize()?;
            }
            return Ok(0);
        }
        let info = self.stream.clone_dtoh(&st.info)?;
        Ok(info[0])
    }
}

fn bad_parameter(call: &'static str, info: i32) -> Error {
    invalid(format!(
        "{call}: cuSOLVER rejected parameter {} (info = {info})",
        -info
    ))
}

fn check_info_zero(call: &'static str, info: i32) -> Result<()> {
    match info {
        0 => Ok(()),
        i if i < 0 => Err(bad_parameter(call, i)),
        i => Err(Error::NotConverged {
            call,
            info: i as i64,
        }),
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        let r = ctx.bind_to_thread_no_deferred().and_then(|()| {
            if !self.params.is_null() {
                // SAFETY: this object created the params and is their only owner (a host
                // object: captured work does not refer to it).
                unsafe { cusolver!(cusolverDnDestroyParams(self.params)) }?;
            }
            // The handle goes with `keep` (here, or with the last graph of captured work).
            Ok(())
        });
        if let Err(e) = r {
            ctx.defer("cusolverDnDestroy of a Solver handle", e);
        }
    }
}
