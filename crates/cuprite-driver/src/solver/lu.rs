//! LU factorisation with partial pivoting (`getrf`) and the solve with its factors (`getrs`).

use super::{Sizes, Solver, SolverElement, bad_parameter, check_info_zero};
use crate::blas::{Transpose, check_context, check_matrix, invalid, to_i64};
use crate::error::{Error, Result, check_cusolver};
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceView, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::cusolver as sys;
use std::ffi::c_void;
use std::sync::Arc;

/// The row exchanges of an LU factorisation of an `m × n` matrix: `min(m, n)` 1-based row
/// numbers on the device, written only by [`Solver::getrf`].
///
/// cuSOLVER's `getrs` uses the pivots as row numbers of B, so made-up values would read and
/// write outside B. This type keeps them out of reach: its device buffer can be written only
/// by `getrf`, which reads the pivots back and accepts them only when every `ipiv[i]` lies in
/// `i + 1 ..= m` (LAPACK's contract); [`Solver::getrs`] accepts only pivots that passed, made
/// for its `n × n` matrix. The values can be read ([`values`](Self::values),
/// [`as_view`](Self::as_view)), never written.
///
/// ```no_run
/// use cuprite_driver::solver::{LuPivots, Solver};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.default_stream();
/// let solver = Solver::new(&s)?;
/// // [[0, 1], [1, 0]] (column-major) needs one row exchange.
/// let mut a = s.clone_htod(&[0.0f64, 1.0, 1.0, 0.0])?;
/// let mut ipiv = LuPivots::new(&s, 2, 2)?;
/// assert!(!ipiv.is_factored());
/// solver.getrf(2, 2, &mut a, 2, &mut ipiv)?;
/// assert_eq!(ipiv.values(), &[2, 2]);
/// # Ok(()) }
/// ```
///
/// A buffer of made-up pivots is not accepted:
///
/// ```compile_fail
/// use cuprite_driver::blas::Transpose;
/// use cuprite_driver::solver::Solver;
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.default_stream();
/// let solver = Solver::new(&s)?;
/// let a = s.clone_htod(&[1.0f64, 0.0, 0.0, 1.0])?;
/// let mut b = s.clone_htod(&[1.0f64, 1.0])?;
/// let forged = s.clone_htod(&[1_000_000i64, 2])?;
/// solver.getrs(Transpose::None, 2, 1, &a, 2, &forged, &mut b, 2)?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct LuPivots {
    buf: DeviceBuffer<i64>,
    m: usize,
    n: usize,
    /// The validated values: empty, and `factored` false, until a `getrf` succeeded (or found
    /// the matrix singular); then `min(m, n)` values equal to the device buffer's.
    host: Vec<i64>,
    factored: bool,
}

impl LuPivots {
    /// Room for the pivots of an `m × n` matrix, on `stream`'s context; not usable by
    /// [`Solver::getrs`] until [`Solver::getrf`] filled it.
    ///
    /// ```no_run
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let p = cuprite_driver::solver::LuPivots::new(&ctx.default_stream(), 4, 3)?;
    /// assert_eq!((p.m(), p.n(), p.len()), (4, 3, 3));
    /// # Ok(()) }
    /// ```
    pub fn new(stream: &Arc<Stream>, m: usize, n: usize) -> Result<LuPivots> {
        Ok(LuPivots {
            buf: stream.alloc_zeros::<i64>(m.min(n))?,
            m,
            n,
            host: Vec::new(),
            factored: false,
        })
    }

    /// The rows of the matrix these pivots are for.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The columns of the matrix these pivots are for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The number of pivots, `min(m, n)`.
    pub fn len(&self) -> usize {
        self.m.min(self.n)
    }

    /// Whether there are no pivots (`m` or `n` is 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a [`Solver::getrf`] wrote checked pivots here (also after it found the matrix
    /// singular; not after any other error).
    pub fn is_factored(&self) -> bool {
        self.factored
    }

    /// The pivots, 1-based (row `i + 1` was exchanged with row `values()[i]`); empty until
    /// [`is_factored`](Self::is_factored).
    pub fn values(&self) -> &[i64] {
        &self.host
    }

    /// The pivots on the device, read-only (`min(m, n)` values; zeros until factored).
    pub fn as_view(&self) -> DeviceView<'_, i64> {
        self.buf.as_view()
    }
}

/// Checks the pivots `getrf` wrote for an `m`-row matrix: `p[i]` in `i + 1 ..= m`.
fn check_pivots(call: &'static str, m: usize, p: &[i64]) -> Result<()> {
    match p
        .iter()
        .enumerate()
        .find(|&(i, &v)| v < i as i64 + 1 || v > m as i64)
    {
        None => Ok(()),
        Some((i, v)) => Err(invalid(format!(
            "{call}: pivot {i} is {v}, outside {}..={m}; the pivots are not usable",
            i + 1
        ))),
    }
}

impl Solver {
    /// LU factorisation with partial pivoting of the column-major `m × n` matrix A, in place
    /// (`cusolverDnXgetrf`): `P·A = L·U`, the pivots (1-based rows) in `ipiv`
    /// (`min(m, n)` elements, made by [`LuPivots::new`] for `m × n`). An exactly zero pivot is
    /// [`Error::SingularMatrix`] with its 1-based index (A then holds the factorisation, and
    /// `ipiv` its pivots, as LAPACK leaves them). Waits for the factorisation and reads the
    /// pivots back to check them (see [`LuPivots`]).
    pub fn getrf<T: SolverElement>(
        &self,
        m: usize,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        ipiv: &mut LuPivots,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXgetrf";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, m, n, lda, 1, 0)?;
        check_context(CALL, "ipiv", s, &ipiv.buf)?;
        if (ipiv.m, ipiv.n) != (m, n) {
            return Err(invalid(format!(
                "{CALL}: ipiv was made for a {} × {} matrix, A is {m} × {n}",
                ipiv.m, ipiv.n
            )));
        }
        let (mi, ni, ldai) = (
            to_i64(CALL, "m", m)?,
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "lda", lda)?,
        );
        // Invalid until the values written below have been checked.
        ipiv.factored = false;
        ipiv.host.clear();
        if m == 0 || n == 0 {
            ipiv.factored = true;
            return Ok(());
        }
        let (pa, pp) = (a.device_ptr_mut(), ipiv.buf.device_ptr());
        let dt = T::DATA_TYPE;
        let (h, params) = (self.raw, self.params);
        let info = self.call(
            &[Access::write(&*a), Access::write(&ipiv.buf)],
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
        if info < 0 {
            return Err(bad_parameter(CALL, info));
        }
        let host = s.clone_dtoh(&ipiv.buf)?;
        let checked = check_pivots(CALL, m, &host);
        if checked.is_ok() {
            ipiv.host = host;
            ipiv.factored = true;
        }
        match info {
            0 => checked,
            // A singular matrix whose pivots did not pass stays unfactored.
            i => Err(Error::SingularMatrix {
                call: CALL,
                index: i as i64,
            }),
        }
    }

    /// Solves `op(A)·X = B` with A factored by [`getrf`](Self::getrf) (`cusolverDnXgetrs`):
    /// A `n × n` with its pivots (from `getrf` of that `n × n` matrix: pivots made for another
    /// shape, or not yet factored, are an `Err`), B `n × nrhs` (overwritten with X). Only
    /// enqueues: its `info` can only flag arguments, which are checked here.
    #[allow(clippy::too_many_arguments)]
    pub fn getrs<T: SolverElement>(
        &self,
        trans: Transpose,
        n: usize,
        nrhs: usize,
        a: &dyn DeviceRead<T>,
        lda: usize,
        ipiv: &LuPivots,
        b: &mut dyn DeviceWrite<T>,
        ldb: usize,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXgetrs";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, n, n, lda, 1, 0)?;
        check_matrix(CALL, "B", s, b, n, nrhs, ldb, 1, 0)?;
        check_context(CALL, "ipiv", s, &ipiv.buf)?;
        if (ipiv.m, ipiv.n) != (n, n) {
            return Err(invalid(format!(
                "{CALL}: ipiv holds the pivots of a {} × {} matrix, A is {n} × {n}",
                ipiv.m, ipiv.n
            )));
        }
        if !ipiv.factored {
            return Err(invalid(format!(
                "{CALL}: ipiv holds no pivots yet (getrf has not factored a {n} × {n} matrix \
                 into it)"
            )));
        }
        let (ni, nr, ldai, ldbi) = (
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "nrhs", nrhs)?,
            to_i64(CALL, "lda", lda)?,
            to_i64(CALL, "ldb", ldb)?,
        );
        if n == 0 || nrhs == 0 {
            return Ok(());
        }
        let (pa, pp, pb) = (a.device_ptr(), ipiv.buf.device_ptr(), b.device_ptr_mut());
        let dt = T::DATA_TYPE;
        let (h, params, op) = (self.raw, self.params, trans.raw());
        let info = self.call(
            &[Access::read(a), Access::read(&ipiv.buf), Access::write(&*b)],
            false,
            || Ok(Sizes::default()),
            |_, _, _, _, info| {
                // SAFETY: A, ipiv and B lie inside their buffers (checked); every pivot is a
                // row number in 1..=n (checked by getrf, the only writer of `ipiv.buf`).
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
}
