//! QR factorisation (`geqrf`) and the explicit `Q` from its reflectors (`orgqr`).

use super::{Sizes, Solver, SolverElement, check_info_zero};
use crate::blas::{check_context, check_len, check_matrix, invalid, to_i32, to_i64};
use crate::error::{Result, check_cusolver};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cusolver as sys;
use std::ffi::{c_int, c_void};

impl Solver {
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
}
