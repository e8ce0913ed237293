//! LU factorisation with partial pivoting (`getrf`) and the solve with its factors (`getrs`).

use super::{Sizes, Solver, SolverElement, bad_parameter, check_info_zero};
use crate::blas::{Transpose, check_context, check_len, check_matrix, to_i64};
use crate::error::{Error, Result, check_cusolver};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cusolver as sys;
use std::ffi::c_void;

impl Solver {
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
}
