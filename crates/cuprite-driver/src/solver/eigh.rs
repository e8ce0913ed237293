//! Eigendecomposition of a Hermitian (real symmetric) matrix (`syevd`).

use super::{Sizes, Solver, SolverElement, check_info_zero};
use crate::blas::{Element, Fill, check_context, check_len, check_matrix, to_i64};
use crate::error::{Result, check_cusolver};
use crate::memory::{Access, DeviceWrite};
use cuprite_sys::cusolver::{self as sys, cusolverEigMode_t};
use std::ffi::c_void;

impl Solver {
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
