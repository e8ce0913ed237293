//! The triangular solve with several right-hand sides (`trsm`).

use super::handle::Blas;
use super::types::{
    Element, Fill, ScalarBytes, Transpose, check_context, check_extent, check_matrix, invalid,
    to_i32,
};
use crate::error::{Result, check_cublas};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cublas::{self as sys, cublasDiagType_t, cublasSideMode_t, cudaDataType};

/// How the triangular matrix of [`Blas::trsm`] enters the equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Triangular {
    /// `op(A) · X = alpha · B` (`true`) or `X · op(A) = alpha · B` (`false`).
    pub left: bool,
    /// Which triangle of `A` holds the matrix (the other is not read).
    pub fill: Fill,
    /// `op(A)`.
    pub trans: Transpose,
    /// Whether the diagonal is all ones (then it is not read).
    pub unit_diagonal: bool,
}

impl Blas {
    /// Solves `op(A) · X = alpha · B` (or `X · op(A) = alpha · B`, see [`Triangular::left`])
    /// for `X`, a column-major `m × n` matrix that overwrites `B` (leading dimension `ldb`); `A`
    /// is triangular, `m × m` (left) or `n × n` (right), leading dimension `lda`. `f32`, `f64`,
    /// `c32` and `c64` (cuBLAS has no half-precision `trsm`: an `Err`). A zero on a non-unit
    /// diagonal gives infinities or NaNs, as in BLAS: check the diagonal first where it matters.
    ///
    /// ```no_run
    /// use cuprite_driver::blas::{Blas, Fill, Transpose, Triangular};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// // A = [[2, 0], [1, 4]] (lower, column-major), b = [2, 9]: x = [1, 2].
    /// let a = s.clone_htod(&[2.0f64, 1.0, 0.0, 4.0])?;
    /// let mut b = s.clone_htod(&[2.0f64, 9.0])?;
    /// let t = Triangular { left: true, fill: Fill::Lower, trans: Transpose::None, unit_diagonal: false };
    /// blas.trsm(t, 2, 1, 1.0, &a, 2, &mut b, 2)?;
    /// assert_eq!(s.clone_dtoh(&b)?, [1.0, 2.0]);
    /// # Ok(()) }
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn trsm<T: Element>(
        &self,
        tri: Triangular,
        m: usize,
        n: usize,
        alpha: T::Scalar,
        a: &dyn DeviceRead<T>,
        lda: usize,
        b: &mut dyn DeviceWrite<T>,
        ldb: usize,
    ) -> Result<()> {
        const CALL: &str = "trsm";
        if !matches!(
            T::DATA_TYPE,
            cudaDataType::CUDA_R_32F
                | cudaDataType::CUDA_R_64F
                | cudaDataType::CUDA_C_32F
                | cudaDataType::CUDA_C_64F
        ) {
            return Err(invalid(format!(
                "trsm: unsupported element type {} (f32, f64, c32 and c64 only)",
                T::NAME
            )));
        }
        let s = &*self.stream;
        let k = if tri.left { m } else { n };
        check_matrix(CALL, "A", s, a, k, k, lda, 1, 0)?;
        check_context(CALL, "B", s, b)?;
        check_extent(CALL, "B", b.len(), m, n, ldb, 1, 0)?;
        let (mi, ni) = (to_i32(CALL, "m", m)?, to_i32(CALL, "n", n)?);
        let (ldai, ldbi) = (to_i32(CALL, "lda", lda)?, to_i32(CALL, "ldb", ldb)?);
        if m == 0 || n == 0 {
            return Ok(());
        }
        let side = if tri.left {
            cublasSideMode_t::CUBLAS_SIDE_LEFT
        } else {
            cublasSideMode_t::CUBLAS_SIDE_RIGHT
        };
        let diag = if tri.unit_diagonal {
            cublasDiagType_t::CUBLAS_DIAG_UNIT
        } else {
            cublasDiagType_t::CUBLAS_DIAG_NON_UNIT
        };
        let (uplo, op) = (tri.fill.raw(), tri.trans.raw());
        let (pa, pb) = (a.device_ptr(), b.device_ptr_mut());
        let alpha = ScalarBytes::plain(alpha);
        let al = alpha.ptr();
        let h = self.raw;
        let _g = self.enter()?;
        let acc = [Access::read(a), Access::write(b), self.workspace_access()];
        // One typed entry point per element type, with the same arguments.
        macro_rules! typed {
            ($f:ident, $t:ty) => {
                cublas!($f(
                    h,
                    side,
                    uplo,
                    op,
                    diag,
                    mi,
                    ni,
                    al.cast(),
                    pa as *const $t,
                    ldai,
                    pb as *mut $t,
                    ldbi
                ))
            };
        }
        self.stream.with_access(&acc, || {
            // SAFETY: A and B were checked to hold the matrices these dimensions and leading
            // dimensions reach, in this handle's context; each typed entry point is called
            // with its own element type (T::DATA_TYPE picks it, checked above) and scalar.
            unsafe {
                match T::DATA_TYPE {
                    cudaDataType::CUDA_R_32F => typed!(cublasStrsm_v2, f32),
                    cudaDataType::CUDA_R_64F => typed!(cublasDtrsm_v2, f64),
                    cudaDataType::CUDA_C_32F => typed!(cublasCtrsm_v2, sys::cuComplex),
                    cudaDataType::CUDA_C_64F => typed!(cublasZtrsm_v2, sys::cuDoubleComplex),
                    other => Err(invalid(format!("trsm: unsupported data type {other:?}"))),
                }
            }
        })
    }
}
