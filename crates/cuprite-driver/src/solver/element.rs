//! The element types of the dense solvers, and the typed 32-bit cuSOLVER entry points
//! (`orgqr`, `gesvdj`) that each one forwards to.

use crate::blas::Element;
use cuprite_sys::LoadError;
use cuprite_sys::cublas::{cuComplex, cuDoubleComplex};
use cuprite_sys::cusolver::{
    self as sys, cusolverDnHandle_t, cusolverEigMode_t, cusolverStatus_t, gesvdjInfo_t,
};
use num_complex::Complex;
use std::ffi::c_int;

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

/// An element type of the dense solvers: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.
/// Singular values and the eigenvalues of a Hermitian matrix are `T::Real` (`f32` or `f64`);
/// those of a general matrix `T::Complex`.
pub trait SolverElement: Element + Typed {
    /// The complex type of the same precision (the eigenvalues of a general matrix):
    /// `Complex<f32>` for `f32` and `Complex<f32>`, `Complex<f64>` for `f64` and `Complex<f64>`.
    type Complex: Element;
}
impl SolverElement for f32 {
    type Complex = Complex<f32>;
}
impl SolverElement for f64 {
    type Complex = Complex<f64>;
}
impl SolverElement for Complex<f32> {
    type Complex = Complex<f32>;
}
impl SolverElement for Complex<f64> {
    type Complex = Complex<f64>;
}
