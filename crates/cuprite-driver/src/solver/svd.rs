//! Singular value decomposition: QR-based (`gesvd`) and Jacobi (`gesvdj`).

use super::{Sizes, Solver, SolverElement, check_info_zero};
use crate::blas::{Element, check_context, check_len, check_matrix, invalid, to_i32, to_i64};
use crate::error::{Result, check_cusolver};
use crate::memory::{Access, DeviceWrite};
use cuprite_sys::cusolver::{self as sys, cusolverEigMode_t, gesvdjInfo_t};
use std::ffi::{c_int, c_void};

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

impl Solver {
    /// Singular value decomposition `A = U·Σ·Vᵀ` (`Vᴴ` for complex) of the column-major `m × n`
    /// matrix A, `m ≥ n` (cuSOLVER's QR-based `cusolverDnXgesvd`; for `m < n` decompose Aᵀ).
    /// A is destroyed. `s` gets the `n` singular values in descending order; `u` (`m × n` for
    /// [`SvdVectors::Thin`], `m × m` for `Full`) and `vt` (`n × n`) are given exactly when
    /// vectors are asked for, each with its leading dimension. Non-convergence is
    /// [`Error::NotConverged`].
    ///
    /// [`Error::NotConverged`]: crate::Error::NotConverged
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
