//! Eigendecomposition of a general (non-symmetric, non-Hermitian) matrix (`geev`).

use super::{Sizes, Solver, SolverElement, check_info_zero};
use crate::blas::{Element, check_context, check_len, check_matrix, to_i64};
use crate::error::{Result, check_cusolver};
use crate::memory::{Access, DeviceWrite};
use cuprite_sys::cusolver::{self as sys, cusolverEigMode_t};
use std::ffi::c_void;

impl Solver {
    /// Eigenvalues and, with `vr`, right eigenvectors of the general column-major `n × n`
    /// matrix A (`cusolverDnXgeev`, Hessenberg reduction and the shifted QR algorithm; needs
    /// cuSOLVER from CUDA 12.6 on, an `Err` of this call before). A is destroyed.
    ///
    /// `w` gets the `n` eigenvalues as `T::Complex` (for a real A, conjugate pairs adjacent,
    /// the one with positive imaginary part first). `vr` (`n × n`, its leading dimension
    /// beside it) gets the eigenvectors of unit 2-norm, as LAPACK's `geev` stores them: for a
    /// complex A column `j` belongs to `w[j]`; for a real A a real eigenvalue's vector is
    /// column `j`, and a conjugate pair `w[j], w[j+1]` has the vectors `vr[:, j] ± i·vr[:, j+1]`.
    /// Left eigenvectors are not computed. Non-convergence of the QR algorithm is
    /// [`Error::NotConverged`]; the call waits for `info`.
    ///
    /// [`Error::NotConverged`]: crate::Error::NotConverged
    pub fn geev<T: SolverElement>(
        &self,
        n: usize,
        a: &mut dyn DeviceWrite<T>,
        lda: usize,
        w: &mut dyn DeviceWrite<T::Complex>,
        vr: Option<(&mut dyn DeviceWrite<T>, usize)>,
    ) -> Result<()> {
        const CALL: &str = "cusolverDnXgeev";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, n, n, lda, 1, 0)?;
        check_context(CALL, "W", s, w)?;
        check_len(CALL, "W", w, n)?;
        let (pv, ldvr, jobvr) = match &vr {
            Some((v, ld)) => {
                check_matrix(CALL, "VR", s, &**v, n, n, *ld, 1, 0)?;
                (
                    v.device_ptr(),
                    *ld,
                    cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR,
                )
            }
            None => (0, 1, cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR),
        };
        let (ni, ldai, ldvri) = (
            to_i64(CALL, "n", n)?,
            to_i64(CALL, "lda", lda)?,
            to_i64(CALL, "ldvr", ldvr)?,
        );
        if n == 0 {
            return Ok(());
        }
        let jobvl = cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR;
        let (pa, pw) = (a.device_ptr_mut(), w.device_ptr_mut());
        let (dt, wt) = (T::DATA_TYPE, <T::Complex as Element>::DATA_TYPE);
        let (h, params) = (self.raw, self.params);
        let mut acc = vec![Access::write(&*a), Access::write(&*w)];
        if let Some((v, _)) = &vr {
            acc.push(Access::write(&**v));
        }
        let null = std::ptr::null_mut::<c_void>();
        let info = self.call(
            &acc,
            true,
            || {
                let mut z = Sizes::default();
                // SAFETY: live handle and params; A, W and VR (when asked for) lie inside their
                // buffers (checked above); VL is not referenced under NOVECTOR.
                unsafe {
                    cusolver!(cusolverDnXgeev_bufferSize(
                        h,
                        params,
                        jobvl,
                        jobvr,
                        ni,
                        dt,
                        pa as *const c_void,
                        ldai,
                        wt,
                        pw as *const c_void,
                        dt,
                        null as *const c_void,
                        1,
                        dt,
                        pv as *const c_void,
                        ldvri,
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
                    cusolver!(cusolverDnXgeev(
                        h,
                        params,
                        jobvl,
                        jobvr,
                        ni,
                        dt,
                        pa as *mut c_void,
                        ldai,
                        wt,
                        pw as *mut c_void,
                        dt,
                        null,
                        1,
                        dt,
                        pv as *mut c_void,
                        ldvri,
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
