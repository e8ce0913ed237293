//! Cholesky factorisation (`potrf`) and the solve with its factor (`potrs`).

use super::{Sizes, Solver, SolverElement, bad_parameter, check_info_zero};
use crate::blas::{Fill, check_matrix, to_i64};
use crate::error::{Error, Result, check_cusolver};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cusolver as sys;
use std::ffi::c_void;

impl Solver {
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
}
