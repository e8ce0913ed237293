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
//! `gesvd` and `syevd`; `orgqr` and the Jacobi SVD `gesvdj` exist only in the 32-bit typed API,
//! whose limits are checked.

use crate::blas::{
    Element, Fill, Transpose, check_context, check_len, check_matrix, invalid, to_i32, to_i64,
};
use crate::error::{Error, Result, check_cusolver};
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::LoadError;
use cuprite_sys::cublas::{cuComplex, cuDoubleComplex, libraryPropertyType};
use cuprite_sys::cusolver::{
    self as sys, cusolverDnHandle_t, cusolverDnParams_t, cusolverEigMode_t, cusolverStatus_t,
    gesvdjInfo_t,
};
use num_complex::Complex;
use std::ffi::{c_int, c_void};
use std::fmt;
use std::sync::{Arc, Mutex};

macro_rules! cusolver {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        check_cusolver(sys::$name($($arg),*), stringify!($name))
    };
}

/// The version of the cuSOLVER library that would be used, as `(major, minor, patch)`. Opens
/// the library; needs no GPU.
///
/// ```
/// match cuprite::solver::version() {
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

mod sealed {
    use super::*;

    type R = std::result::Result<cusolverStatus_t, LoadError>;

    /// The typed 32-bit entry points of one element type.
    pub trait Typed {
        /// # Safety
        /// cuSOLVER's contract for `orgqr_bufferSize`.
        #[allow(clippy::too_many_arguments)]
        unsafe fn orgqr_size(
            h: cusolverDnHandle_t,
            m: c_int,
            n: c_int,
            k: c_int,
            a: u64,
            lda: c_int,
            tau: u64,
            lwork: *mut c_int,
        ) -> R;
        /// # Safety
        /// cuSOLVER's contract for `orgqr`.
        #[allow(clippy::too_many_arguments)]
        unsafe fn orgqr(
            h: cusolverDnHandle_t,
            m: c_int,
            n: c_int,
            k: c_int,
            a: u64,
            lda: c_int,
            tau: u64,
            work: u64,
            lwork: c_int,
            info: *mut c_int,
        ) -> R;
        /// # Safety
        /// cuSOLVER's contract for `gesvdj_bufferSize`.
        #[allow(clippy::too_many_arguments)]
        unsafe fn gesvdj_size(
            h: cusolverDnHandle_t,
            jobz: cusolverEigMode_t,
            econ: c_int,
            m: c_int,
            n: c_int,
            a: u64,
            lda: c_int,
            s: u64,
            u: u64,
            ldu: c_int,
            v: u64,
            ldv: c_int,
            lwork: *mut c_int,
            params: gesvdjInfo_t,
        ) -> R;
        /// # Safety
        /// cuSOLVER's contract for `gesvdj`.
        #[allow(clippy::too_many_arguments)]
        unsafe fn gesvdj(
            h: cusolverDnHandle_t,
            jobz: cusolverEigMode_t,
            econ: c_int,
            m: c_int,
            n: c_int,
            a: u64,
            lda: c_int,
            s: u64,
            u: u64,
            ldu: c_int,
            v: u64,
            ldv: c_int,
            work: u64,
            lwork: c_int,
            info: *mut c_int,
            params: gesvdjInfo_t,
        ) -> R;
    }

    macro_rules! typed {
        ($t:ty, $el:ty, $real:ty, $orgqr_size:ident, $orgqr:ident, $svdj_size:ident, $svdj:ident) => {
            impl Typed for $t {
                unsafe fn orgqr_size(
                    h: cusolverDnHandle_t,
                    m: c_int,
                    n: c_int,
                    k: c_int,
                    a: u64,
                    lda: c_int,
                    tau: u64,
                    lwork: *mut c_int,
                ) -> R {
                    // SAFETY: forwarded to the caller.
                    unsafe {
                        sys::$orgqr_size(h, m, n, k, a as *const $el, lda, tau as *const $el, lwork)
                    }
                }
                unsafe fn orgqr(
                    h: cusolverDnHandle_t,
                    m: c_int,
                    n: c_int,
                    k: c_int,
                    a: u64,
                    lda: c_int,
                    tau: u64,
                    work: u64,
                    lwork: c_int,
                    info: *mut c_int,
                ) -> R {
                    // SAFETY: forwarded to the caller.
                    unsafe {
                        sys::$orgqr(
                            h,
                            m,
                            n,
                            k,
                            a as *mut $el,
                            lda,
                            tau as *const $el,
                            work as *mut $el,
                            lwork,
                            info,
                        )
                    }
                }
                unsafe fn gesvdj_size(
                    h: cusolverDnHandle_t,
                    jobz: cusolverEigMode_t,
                    econ: c_int,
                    m: c_int,
                    n: c_int,
                    a: u64,
                    lda: c_int,
                    s: u64,
                    u: u64,
                    ldu: c_int,
                    v: u64,
                    ldv: c_int,
                    lwork: *mut c_int,
                    params: gesvdjInfo_t,
                ) -> R {
                    // SAFETY: forwarded to the caller.
                    unsafe {
                        sys::$svdj_size(
                            h,
                            jobz,
                            econ,
                            m,
                            n,
                            a as *const $el,
                            lda,
                            s as *const $real,
                            u as *const $el,
                            ldu,
                            v as *const $el,
                            ldv,
                            lwork,
                            params,
                        )
                    }
                }
                unsafe fn gesvdj(
                    h: cusolverDnHandle_t,
                    jobz: cusolverEigMode_t,
                    econ: c_int,
                    m: c_int,
                    n: c_int,
                    a: u64,
                    lda: c_int,
                    s: u64,
                    u: u64,
                    ldu: c_int,
                    v: u64,
                    ldv: c_int,
                    work: u64,
                    lwork: c_int,
                    info: *mut c_int,
                    params: gesvdjInfo_t,
                ) -> R {
                    // SAFETY: forwarded to the caller.
                    unsafe {
                        sys::$svdj(
                            h,
                            jobz,
                            econ,
                            m,
                            n,
                            a as *mut $el,
                            lda,
                            s as *mut $real,
                            u as *mut $el,
                            ldu,
                            v as *mut $el,
                            ldv,
                            work as *mut $el,
                            lwork,
                            info,
                            params,
                        )
                    }
                }
            }
        };
    }

    typed!(
        f32,
        f32,
        f32,
        cusolverDnSorgqr_bufferSize,
        cusolverDnSorgqr,
        cusolverDnSgesvdj_bufferSize,
        cusolverDnSgesvdj
    );
    typed!(
        f64,
        f64,
        f64,
        cusolverDnDorgqr_bufferSize,
        cusolverDnDorgqr,
        cusolverDnDgesvdj_bufferSize,
        cusolverDnDgesvdj
    );
    typed!(
        Complex<f32>,
        cuComplex,
        f32,
        cusolverDnCungqr_bufferSize,
        cusolverDnCungqr,
        cusolverDnCgesvdj_bufferSize,
        cusolverDnCgesvdj
    );
    typed!(
        Complex<f64>,
        cuDoubleComplex,
        f64,
        cusolverDnZungqr_bufferSize,
        cusolverDnZungqr,
        cusolverDnZgesvdj_bufferSize,
        cusolverDnZgesvdj
    );
}

/// An element type of the dense solvers: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.
/// Singular and eigenvalues are `T::Real` (`f32` or `f64`).
pub trait SolverElement: Element + sealed::Typed {}
impl SolverElement for f32 {}
impl SolverElement for f64 {}
impl SolverElement for Complex<f32> {}
impl SolverElement for Complex<f64> {}

/// Which singular vectors an SVD computes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SvdVectors {
    /// Singular values only.
    None,
    /// The first `min(m, n)` left and right singular vectors.
    #[default]
    Thin,
    /// All of them: `U` is `m × m`, `Vᵀ` (or `V`) is `n × n`.
    Full,
}

struct State {
    workspace: DeviceBuffer<u8>,
    info: DeviceBuffer<i32>,
    host: Vec<u8>,
}

/// A dense cuSOLVER handle bound to a context and a cuprite [`Stream`]: every routine runs on
/// that stream, with device workspace from the stream-ordered pool. Destroyed on drop.
/// `Send + Sync`; calls from several threads take turns. The routines whose `info` reports on
/// the matrix (`getrf`, `potrf`, `gesvd`, `gesvdj`, `syevd`) wait for it before returning;
/// `getrs`, `potrs`, `geqrf` and `orgqr` only enqueue.
///
/// ```no_run
/// use cuprite::solver::Solver;
/// use cuprite::blas::Transpose;
/// # fn main() -> cuprite::Result<()> {
/// let ctx = cuprite::Context::new(0)?;
/// let s = ctx.default_stream();
/// let solver = Solver::new(&s)?;
/// // Solve [[2, 1], [1, 3]] x = [3, 5] (column-major).
/// let mut a = s.clone_htod(&[2.0f64, 1.0, 1.0, 3.0])?;
/// let mut b = s.clone_htod(&[3.0f64, 5.0])?;
/// let mut ipiv = s.alloc_zeros::<i64>(2)?;
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
    pub fn new(stream: &Arc<Stream>) -> Result<Solver> {
        stream.context().bind_to_thread()?;
        let info = stream.alloc_zeros::<i32>(1)?;
        // SAFETY: empty until a call sizes it; only cuSOLVER writes it.
        let workspace = unsafe { stream.alloc::<u8>(0) }?;
        let mut raw: cusolverDnHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { cusolver!(cusolverDnCreate(&mut raw)) }?;
        let mut solver = Solver {
            raw,
            params: std::ptr::null_mut(),
            stream: stream.clone(),
            state: Mutex::new(State {
                workspace,
                info,
                host: Vec::new(),
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
        if st.workspace.len() < sizes.device {
            // The old workspace is freed stream-ordered, after the work that used it.
            // SAFETY: scratch space, only written by cuSOLVER before it reads it.
            st.workspace = unsafe { self.stream.alloc::<u8>(sizes.device) }?;
        }
        if st.host.len() < sizes.host {
            st.host.resize(sizes.host, 0);
        }
        let ws = st.workspace.device_ptr();
        let info_ptr = st.info.device_ptr() as *mut c_int;
        let host_ptr = st.host.as_mut_ptr().cast::<c_void>();
        // Exactly the sizes cuSOLVER asked for (the buffers may be larger).
        self.stream.with_access(acc, || {
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

    /// LU factorisation with partial pivoting of the column-major `m × n` matrix A, in place
    /// (`cusolverDnXgetrf`): `P·A = L·U`, the pivots (1-based rows) in `ipiv`
    /// (`min(m, n)` elements). An exactly zero pivot is [`Error::SingularMatrix`] with its
    /// 1-based index (A then holds the factorisation up to there).
    pub fn getrf<T: SolverElement>(
        &self,
        m: usize,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        ipiv: &mut dyn DeviceWrite<i64>,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXgetrf";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, m, n, lda, 1, 0)?;
        check_context(CALL, "ipiv", s, ipiv)?;
        check_len(CALL, "ipiv", ipiv, m.min(n))?;
        let (mi, ni, ldai) = (
            to_i64(CALL, "m", m)?,
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "lda", lda)?,
        );
        if m == 0 || n == 0 {
            return Ok(());
        }
        let (pa, pp) = (a.device_ptr_mut(), ipiv.device_ptr_mut());
        let dt = T::DATA_TYPE;
        let (h, params) = (self.raw, self.params);
        let info = self.call(
            &[Access::write(&*a), Access::write(&*ipiv)],
            true,
            || {
                let mut z = Sizes::default();
                // SAFETY: live handle and params; A lies inside its buffer (checked).
                unsafe {
                    cusolver!(cusolverDnXgetrf_bufferSize(
                        h,
                        params,
                        mi,
                        ni,
                        dt,
                        pa as *const c_void,
                        ldai,
                        dt,
                        &mut z.device,
                        &mut z.host
                    ))
                }?;
                Ok(z)
            },
            |ws, wsl, host, hostl, info| {
                // SAFETY: A and ipiv lie inside their buffers (checked); the workspaces are
                // at least the sizes cuSOLVER asked for; info is one device int.
                unsafe {
                    cusolver!(cusolverDnXgetrf(
                        h,
                        params,
                        mi,
                        ni,
                        dt,
                        pa as *mut c_void,
                        ldai,
                        pp as *mut i64,
                        dt,
                        ws as *mut c_void,
                        wsl,
                        host,
                        hostl,
                        info
                    ))
                }
            },
        )?;
        match info {
            0 => Ok(()),
            i if i > 0 => Err(Error::SingularMatrix {
                call: CALL,
                index: i as i64,
            }),
            i => Err(bad_parameter(CALL, i)),
        }
    }

    /// Solves `op(A)·X = B` with A factored by [`getrf`](Self::getrf) (`cusolverDnXgetrs`):
    /// A `n × n` with its pivots, B `n × nrhs` (overwritten with X). Only enqueues: its `info`
    /// can only flag arguments, which are checked here.
    #[allow(clippy::too_many_arguments)]
    pub fn getrs<T: SolverElement>(
        &self,
        trans: Transpose,
        n: usize,
        nrhs: usize,
        a: &dyn DeviceRead<T>,
        lda: usize,
        ipiv: &dyn DeviceRead<i64>,
        b: &mut dyn DeviceWrite<T>,
        ldb: usize,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXgetrs";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, n, n, lda, 1, 0)?;
        check_matrix(CALL, "B", s, b, n, nrhs, ldb, 1, 0)?;
        check_context(CALL, "ipiv", s, ipiv)?;
        check_len(CALL, "ipiv", ipiv, n)?;
        let (ni, nr, ldai, ldbi) = (
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "nrhs", nrhs)?,
            to_i64(CALL, "lda", lda)?,
            to_i64(CALL, "ldb", ldb)?,
        );
        if n == 0 || nrhs == 0 {
            return Ok(());
        }
        let (pa, pp, pb) = (a.device_ptr(), ipiv.device_ptr(), b.device_ptr_mut());
        let dt = T::DATA_TYPE;
        let (h, params, op) = (self.raw, self.params, trans.raw());
        let info = self.call(
            &[Access::read(a), Access::read(ipiv), Access::write(&*b)],
            false,
            || Ok(Sizes::default()),
            |_, _, _, _, info| {
                // SAFETY: A, ipiv and B lie inside their buffers (checked).
                unsafe {
                    cusolver!(cusolverDnXgetrs(
                        h,
                        params,
                        op,
                        ni,
                        nr,
                        dt,
                        pa as *const c_void,
                        ldai,
                        pp as *const i64,
                        dt,
                        pb as *mut c_void,
                        ldbi,
                        info
                    ))
                }
            },
        )?;
        check_info_zero(CALL, info)
    }

    /// Cholesky factorisation of the Hermitian positive definite `n × n` matrix A, in place
    /// (`cusolverDnXpotrf`): `A = L·Lᴴ` (`Fill::Lower`) or `Uᴴ·U` (`Fill::Upper`), only that
    /// triangle read and written. A matrix that is not positive definite is
    /// [`Error::NotPositiveDefinite`] with the order of the failing leading minor.
    pub fn potrf<T: SolverElement>(
        &self,
        uplo: Fill,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXpotrf";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, n, n, lda, 1, 0)?;
        let (ni, ldai) = (to_i64(CALL, "n", n)?, to_i64(CALL, "lda", lda)?);
        if n == 0 {
            return Ok(());
        }
        let pa = a.device_ptr_mut();
        let dt = T::DATA_TYPE;
        let (h, params, fill) = (self.raw, self.params, uplo.raw());
        let info = self.call(
            &[Access::write(&*a)],
            true,
            || {
                let mut z = Sizes::default();
                // SAFETY: live handle and params; A lies inside its buffer.
                unsafe {
                    cusolver!(cusolverDnXpotrf_bufferSize(
                        h,
                        params,
                        fill,
                        ni,
                        dt,
                        pa as *const c_void,
                        ldai,
                        dt,
                        &mut z.device,
                        &mut z.host
                    ))
                }?;
                Ok(z)
            },
            |ws, wsl, host, hostl, info| {
                // SAFETY: A lies inside its buffer; workspaces as large as asked for.
                unsafe {
                    cusolver!(cusolverDnXpotrf(
                        h,
                        params,
                        fill,
                        ni,
                        dt,
                        pa as *mut c_void,
                        ldai,
                        dt,
                        ws as *mut c_void,
                        wsl,
                        host,
                        hostl,
                        info
                    ))
                }
            },
        )?;
        match info {
            0 => Ok(()),
            i if i > 0 => Err(Error::NotPositiveDefinite {
                call: CALL,
                order: i as i64,
            }),
            i => Err(bad_parameter(CALL, i)),
        }
    }

    /// Solves `A·X = B` with A factored by [`potrf`](Self::potrf) (same `uplo`)
    /// (`cusolverDnXpotrs`): B `n × nrhs`, overwritten with X. Only enqueues.
    #[allow(clippy::too_many_arguments)]
    pub fn potrs<T: SolverElement>(
        &self,
        uplo: Fill,
        n: usize,
        nrhs: usize,
        a: &dyn DeviceRead<T>,
        lda: usize,
        b: &mut dyn DeviceWrite<T>,
        ldb: usize,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXpotrs";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, n, n, lda, 1, 0)?;
        check_matrix(CALL, "B", s, b, n, nrhs, ldb, 1, 0)?;
        let (ni, nr, ldai, ldbi) = (
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "nrhs", nrhs)?,
            to_i64(CALL, "lda", lda)?,
            to_i64(CALL, "ldb", ldb)?,
        );
        if n == 0 || nrhs == 0 {
            return Ok(());
        }
        let (pa, pb) = (a.device_ptr(), b.device_ptr_mut());
        let dt = T::DATA_TYPE;
        let (h, params, fill) = (self.raw, self.params, uplo.raw());
        let info = self.call(
            &[Access::read(a), Access::write(&*b)],
            false,
            || Ok(Sizes::default()),
            |_, _, _, _, info| {
                // SAFETY: A and B lie inside their buffers (checked).
                unsafe {
                    cusolver!(cusolverDnXpotrs(
                        h,
                        params,
                        fill,
                        ni,
                        nr,
                        dt,
                        pa as *const c_void,
                        ldai,
                        dt,
                        pb as *mut c_void,
                        ldbi,
                        info
                    ))
                }
            },
        )?;
        check_info_zero(CALL, info)
    }

    /// QR factorisation of the column-major `m × n` matrix A, in place (`cusolverDnXgeqrf`):
    /// R in the upper triangle, the Householder vectors below it, their factors in `tau`
    /// (`min(m, n)` elements). [`orgqr`](Self::orgqr) forms Q from them. Only enqueues (no
    /// numerical condition to report).
    pub fn geqrf<T: SolverElement>(
        &self,
        m: usize,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        tau: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXgeqrf";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, m, n, lda, 1, 0)?;
        check_context(CALL, "tau", s, tau)?;
        check_len(CALL, "tau", tau, m.min(n))?;
        let (mi, ni, ldai) = (
            to_i64(CALL, "m", m)?,
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "lda", lda)?,
        );
        if m == 0 || n == 0 {
            return Ok(());
        }
        let (pa, pt) = (a.device_ptr_mut(), tau.device_ptr_mut());
        let dt = T::DATA_TYPE;
        let (h, params) = (self.raw, self.params);
        let info = self.call(
            &[Access::write(&*a), Access::write(&*tau)],
            false,
            || {
                let mut z = Sizes::default();
                // SAFETY: live handle and params; A and tau lie inside their buffers.
                unsafe {
                    cusolver!(cusolverDnXgeqrf_bufferSize(
                        h,
                        params,
                        mi,
                        ni,
                        dt,
                        pa as *const c_void,
                        ldai,
                        dt,
                        pt as *const c_void,
                        dt,
                        &mut z.device,
                        &mut z.host
                    ))
                }?;
                Ok(z)
            },
            |ws, wsl, host, hostl, info| {
                // SAFETY: as above; workspaces as large as asked for.
                unsafe {
                    cusolver!(cusolverDnXgeqrf(
                        h,
                        params,
                        mi,
                        ni,
                        dt,
                        pa as *mut c_void,
                        ldai,
                        dt,
                        pt as *mut c_void,
                        dt,
                        ws as *mut c_void,
                        wsl,
                        host,
                        hostl,
                        info
                    ))
                }
            },
        )?;
        check_info_zero(CALL, info)
    }

    /// Forms the first `n` columns of Q (`m × n`, `m ≥ n ≥ k`) from the `k` Householder
    /// reflectors [`geqrf`](Self::geqrf) left in A and `tau`, in place (`cusolverDn?orgqr` /
    /// `?ungqr`; 32-bit arguments). Only enqueues.
    #[allow(clippy::too_many_arguments)]
    pub fn orgqr<T: SolverElement>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        tau: &dyn DeviceRead<T>,
    ) -> Result<()> {
        const CALL: &str = "cusolverDn?orgqr";
        if !(m >= n && n >= k) {
            return Err(invalid(format!(
                "{CALL}: needs m ≥ n ≥ k, got m = {m}, n = {n}, k = {k}"
            )));
        }
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, m, n, lda, 1, 0)?;
        check_context(CALL, "tau", s, tau)?;
        check_len(CALL, "tau", tau, k)?;
        let (mi, ni, ki, ldai) = (
            to_i32(CALL, "m", m)?,
            to_i32(CALL, "n", n)?,
            to_i32(CALL, "k", k)?,
            to_i32(CALL, "lda", lda)?,
        );
        if n == 0 {
            return Ok(());
        }
        let (pa, pt) = (a.device_ptr_mut(), tau.device_ptr());
        let h = self.raw;
        let elem = std::mem::size_of::<T>();
        let info = self.call(
            &[Access::write(&*a), Access::read(tau)],
            false,
            || {
                let mut lwork: c_int = 0;
                // SAFETY: live handle; A and tau lie inside their buffers.
                let r = unsafe { T::orgqr_size(h, mi, ni, ki, pa, ldai, pt, &mut lwork) };
                check_cusolver(r, "cusolverDn?orgqr_bufferSize")?;
                Ok(Sizes {
                    device: (lwork.max(0) as usize).saturating_mul(elem),
                    host: 0,
                })
            },
            |ws, wsl, _, _, info| {
                let lwork = to_i32(CALL, "lwork", wsl / elem)?;
                // SAFETY: as above; the workspace holds at least `lwork` elements of T.
                let r = unsafe { T::orgqr(h, mi, ni, ki, pa, ldai, pt, ws, lwork, info) };
                check_cusolver(r, "cusolverDn?orgqr")
            },
        )?;
        check_info_zero(CALL, info)
    }

    /// Singular value decomposition `A = U·Σ·Vᵀ` (`Vᴴ` for complex) of the column-major `m × n`
    /// matrix A, `m ≥ n` (cuSOLVER's QR-based `cusolverDnXgesvd`; for `m < n` decompose Aᵀ).
    /// A is destroyed. `s` gets the `n` singular values in descending order; `u` (`m × n` for
    /// [`SvdVectors::Thin`], `m × m` for `Full`) and `vt` (`n × n`) are given exactly when
    /// vectors are asked for, each with its leading dimension. Non-convergence is
    /// [`Error::NotConverged`].
    #[allow(clippy::too_many_arguments)]
    pub fn gesvd<T: SolverElement>(
        &self,
        vectors: SvdVectors,
        m: usize,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        s: &mut dyn DeviceWrite<T::Real>,
        u: Option<(&mut dyn DeviceWrite<T>, usize)>,
        vt: Option<(&mut dyn DeviceWrite<T>, usize)>,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXgesvd";
        if m < n {
            return Err(invalid(format!(
                "{CALL}: needs m ≥ n (got {m} × {n}); decompose the transpose instead"
            )));
        }
        let st = &*self.stream;
        check_matrix(CALL, "A", st, a, m, n, lda, 1, 0)?;
        check_context(CALL, "S", st, s)?;
        check_len(CALL, "S", s, n)?;
        let (job, ucols) = match vectors {
            SvdVectors::None => (b'N', 0),
            SvdVectors::Thin => (b'S', n),
            SvdVectors::Full => (b'A', m),
        };
        let (u, ldu) = vector_pair(CALL, "U", vectors, u, m)?;
        let (vt, ldvt) = vector_pair(CALL, "VT", vectors, vt, n)?;
        if let Some(u) = &u {
            check_matrix(CALL, "U", st, &**u, m, ucols, ldu, 1, 0)?;
        }
        if let Some(vt) = &vt {
            check_matrix(CALL, "VT", st, &**vt, n, n, ldvt, 1, 0)?;
        }
        let (mi, ni, ldai, ldui, ldvti) = (
            to_i64(CALL, "m", m)?,
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "lda", lda)?,
            to_i64(CALL, "ldu", ldu)?,
            to_i64(CALL, "ldvt", ldvt)?,
        );
        if n == 0 {
            return Ok(());
        }
        let pa = a.device_ptr_mut();
        let ps = s.device_ptr_mut();
        let pu = u.as_ref().map_or(0, |u| u.device_ptr());
        let pv = vt.as_ref().map_or(0, |v| v.device_ptr());
        let (dt, rt) = (T::DATA_TYPE, <T::Real as Element>::DATA_TYPE);
        let (h, params) = (self.raw, self.params);
        let job = job as std::ffi::c_char;
        let ra = Access::write(&*a);
        let mut acc = [ra; 4];
        acc[1] = Access::write(&*s);
        let mut na = 2;
        if let Some(u) = &u {
            acc[na] = Access::write(&**u);
            na += 1;
        }
        if let Some(v) = &vt {
            acc[na] = Access::write(&**v);
            na += 1;
        }
        let info = self.call(
            &acc[..na],
            true,
            || {
                let mut z = Sizes::default();
                // SAFETY: live handle and params; every matrix lies inside its buffer.
                unsafe {
                    cusolver!(cusolverDnXgesvd_bufferSize(
                        h,
                        params,
                        job,
                        job,
                        mi,
                        ni,
                        dt,
                        pa as *const c_void,
                        ldai,
                        rt,
                        ps as *const c_void,
                        dt,
                        pu as *const c_void,
                        ldui,
                        dt,
                        pv as *const c_void,
                        ldvti,
                        dt,
                        &mut z.device,
                        &mut z.host
                    ))
                }?;
                Ok(z)
            },
            |ws, wsl, host, hostl, info| {
                // SAFETY: as above; workspaces as large as asked for.
                unsafe {
                    cusolver!(cusolverDnXgesvd(
                        h,
                        params,
                        job,
                        job,
                        mi,
                        ni,
                        dt,
                        pa as *mut c_void,
                        ldai,
                        rt,
                        ps as *mut c_void,
                        dt,
                        pu as *mut c_void,
                        ldui,
                        dt,
                        pv as *mut c_void,
                        ldvti,
                        dt,
                        ws as *mut c_void,
                        wsl,
                        host,
                        hostl,
                        info
                    ))
                }
            },
        )?;
        check_info_zero(CALL, info)
    }

    /// Singular value decomposition `A = U·Σ·Vᴴ` by one-sided Jacobi rotations
    /// (`cusolverDn?gesvdj`, 32-bit arguments): any `m × n`, A destroyed. `s` gets the
    /// `min(m, n)` singular values in descending order; `u` is `m × min(m, n)` (`Thin`) or
    /// `m × m` (`Full`), and `v` (V itself, not Vᴴ) `n × min(m, n)` or `n × n`. Often faster
    /// than [`gesvd`](Self::gesvd) on small and medium matrices.
    #[allow(clippy::too_many_arguments)]
    pub fn gesvdj<T: SolverElement>(
        &self,
        vectors: SvdVectors,
        m: usize,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        s: &mut dyn DeviceWrite<T::Real>,
        u: Option<(&mut dyn DeviceWrite<T>, usize)>,
        v: Option<(&mut dyn DeviceWrite<T>, usize)>,
    ) -> Result<()> {
        const CALL: &str = "cusolverDn?gesvdj";
        let st = &*self.stream;
        let p = m.min(n);
        check_matrix(CALL, "A", st, a, m, n, lda, 1, 0)?;
        check_context(CALL, "S", st, s)?;
        check_len(CALL, "S", s, p)?;
        let (ucols, vcols, econ) = match vectors {
            SvdVectors::Full => (m, n, 0),
            _ => (p, p, 1),
        };
        let (u, ldu) = vector_pair(CALL, "U", vectors, u, m)?;
        let (v, ldv) = vector_pair(CALL, "V", vectors, v, n)?;
        if let Some(u) = &u {
            check_matrix(CALL, "U", st, &**u, m, ucols, ldu, 1, 0)?;
        }
        if let Some(v) = &v {
            check_matrix(CALL, "V", st, &**v, n, vcols, ldv, 1, 0)?;
        }
        let (mi, ni, ldai, ldui, ldvi) = (
            to_i32(CALL, "m", m)?,
            to_i32(CALL, "n", n)?,
            to_i32(CALL, "lda", lda)?,
            to_i32(CALL, "ldu", ldu)?,
            to_i32(CALL, "ldv", ldv)?,
        );
        if p == 0 {
            return Ok(());
        }
        let jobz = if vectors == SvdVectors::None {
            cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        } else {
            cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        };
        let pa = a.device_ptr_mut();
        let ps = s.device_ptr_mut();
        // Values only: cuSOLVER's Jacobi SVD still writes U and V (null pointers make it fault, and
        // fault the context), so it gets scratch ones, freed stream-ordered after the call.
        let scratch = if vectors == SvdVectors::None {
            // SAFETY: written by gesvdj before anything reads them; never read here.
            let pair = unsafe {
                (
                    self.stream.alloc::<T>(m * p)?,
                    self.stream.alloc::<T>(n * p)?,
                )
            };
            Some(pair)
        } else {
            None
        };
        let pu = u
            .as_ref()
            .map(|u| u.device_ptr())
            .or(scratch.as_ref().map(|s| s.0.device_ptr()))
            .unwrap_or(0);
        let pv = v
            .as_ref()
            .map(|v| v.device_ptr())
            .or(scratch.as_ref().map(|s| s.1.device_ptr()))
            .unwrap_or(0);
        let h = self.raw;
        let elem = std::mem::size_of::<T>();
        let ra = Access::write(&*a);
        let mut acc = [ra; 4];
        acc[1] = Access::write(&*s);
        let mut na = 2;
        if let Some(u) = &u {
            acc[na] = Access::write(&**u);
            na += 1;
        }
        if let Some(v) = &v {
            acc[na] = Access::write(&**v);
            na += 1;
        }
        let mut params: gesvdjInfo_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cusolver!(cusolverDnCreateGesvdjInfo(&mut params)) }?;
        let r = self.call(
            &acc[..na],
            true,
            || {
                let mut lwork: c_int = 0;
                // SAFETY: live handle and params; every matrix lies inside its buffer.
                let r = unsafe {
                    T::gesvdj_size(
                        h, jobz, econ, mi, ni, pa, ldai, ps, pu, ldui, pv, ldvi, &mut lwork, params,
                    )
                };
                check_cusolver(r, "cusolverDn?gesvdj_bufferSize")?;
                Ok(Sizes {
                    device: (lwork.max(0) as usize).saturating_mul(elem),
                    host: 0,
                })
            },
            |ws, wsl, _, _, info| {
                let lwork = to_i32(CALL, "lwork", wsl / elem)?;
                // SAFETY: as above; the workspace holds at least `lwork` elements of T.
                let r = unsafe {
                    T::gesvdj(
                        h, jobz, econ, mi, ni, pa, ldai, ps, pu, ldui, pv, ldvi, ws, lwork, info,
                        params,
                    )
                };
                check_cusolver(r, "cusolverDn?gesvdj")
            },
        );
        // SAFETY: created above; the call that used it has completed (its info was read).
        unsafe {
            let _ = sys::cusolverDnDestroyGesvdjInfo(params);
        }
        check_info_zero(CALL, r?)
    }

    /// Eigendecomposition of the Hermitian (real symmetric) `n × n` matrix A
    /// (`cusolverDnXsyevd`, divide and conquer): the eigenvalues in ascending order in `w`
    /// (`n` elements of `T::Real`); with `vectors`, A is overwritten by the orthonormal
    /// eigenvectors (column `j` for `w[j]`), else destroyed. Only the `uplo` triangle is read.
    pub fn syevd<T: SolverElement>(
        &self,
        vectors: bool,
        uplo: Fill,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        w: &mut dyn DeviceWrite<T::Real>,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXsyevd";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, n, n, lda, 1, 0)?;
        check_context(CALL, "W", s, w)?;
        check_len(CALL, "W", w, n)?;
        let (ni, ldai) = (to_i64(CALL, "n", n)?, to_i64(CALL, "lda", lda)?);
        if n == 0 {
            return Ok(());
        }
        let jobz = if vectors {
            cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        };
        let (pa, pw) = (a.device_ptr_mut(), w.device_ptr_mut());
        let (dt, rt) = (T::DATA_TYPE, <T::Real as Element>::DATA_TYPE);
        let (h, params, fill) = (self.raw, self.params, uplo.raw());
        let info = self.call(
            &[Access::write(&*a), Access::write(&*w)],
            true,
            || {
                let mut z = Sizes::default();
                // SAFETY: live handle and params; A and W lie inside their buffers.
                unsafe {
                    cusolver!(cusolverDnXsyevd_bufferSize(
                        h,
                        params,
                        jobz,
                        fill,
                        ni,
                        dt,
                        pa as *const c_void,
                        ldai,
                        rt,
                        pw as *const c_void,
                        dt,
                        &mut z.device,
                        &mut z.host
                    ))
                }?;
                Ok(z)
            },
            |ws, wsl, host, hostl, info| {
                // SAFETY: as above; workspaces as large as asked for.
                unsafe {
                    cusolver!(cusolverDnXsyevd(
                        h,
                        params,
                        jobz,
                        fill,
                        ni,
                        dt,
                        pa as *mut c_void,
                        ldai,
                        rt,
                        pw as *mut c_void,
                        dt,
                        ws as *mut c_void,
                        wsl,
                        host,
                        hostl,
                        info
                    ))
                }
            },
        )?;
        check_info_zero(CALL, info)
    }
}

/// The vector output of an SVD: present exactly when vectors are asked for.
#[allow(clippy::type_complexity)]
fn vector_pair<'a, T>(
    call: &str,
    what: &str,
    vectors: SvdVectors,
    buf: Option<(&'a mut dyn DeviceWrite<T>, usize)>,
    rows: usize,
) -> Result<(Option<&'a mut dyn DeviceWrite<T>>, usize)> {
    match (vectors, buf) {
        (SvdVectors::None, None) => Ok((None, rows.max(1))),
        (SvdVectors::None, Some(_)) => Err(invalid(format!(
            "{call}: {what} given but SvdVectors::None asks for singular values only"
        ))),
        (_, None) => Err(invalid(format!(
            "{call}: {vectors:?} singular vectors asked for, but no {what} buffer given"
        ))),
        (_, Some((b, ld))) => Ok((Some(b), ld)),
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
            // SAFETY: this object created both and is their only owner; enqueued work
            // completes, and the workspace is freed stream-ordered after it.
            unsafe {
                if !self.params.is_null() {
                    let _ = sys::cusolverDnDestroyParams(self.params);
                }
                cusolver!(cusolverDnDestroy(self.raw))
            }
        });
        if let Err(e) = r {
            ctx.defer("cusolverDnDestroy of a Solver handle", e);
        }
    }
}
