//! The matrix-vector product (`gemv`).

use super::handle::Blas;
use super::types::{
    Element, ScalarBytes, Transpose, check_context, check_len, check_matrix, invalid, to_i32,
    vector_extent,
};
use crate::error::{Result, check_cublas};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cublas::{self as sys, cudaDataType};

impl Blas {
    /// `y = alpha · op(A) · x + beta · y`, A column-major `m × n` with leading dimension `lda`,
    /// `x` and `y` strided by `incx`/`incy` (at least 1). `f16` and `bf16` accumulate in `f32`.
    ///
    /// ```no_run
    /// use cuprite_driver::blas::{Blas, Transpose};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let a = s.clone_htod(&[1.0f32, 3.0, 2.0, 4.0])?; // [[1, 2], [3, 4]]
    /// let x = s.clone_htod(&[1.0f32, 1.0])?;
    /// let mut y = s.alloc_zeros::<f32>(2)?;
    /// blas.gemv(Transpose::None, 2, 2, 1.0, &a, 2, &x, 1, 0.0, &mut y, 1)?;
    /// assert_eq!(s.clone_dtoh(&y)?, [3.0, 7.0]);
    /// # Ok(()) }
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<T: Element>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        alpha: T::Scalar,
        a: &dyn DeviceRead<T>,
        lda: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        beta: T::Scalar,
        y: &mut dyn DeviceWrite<T>,
        incy: usize,
    ) -> Result<()> {
        const CALL: &str = "gemv";
        let s = &*self.stream;
        check_matrix(CALL, "A", s, a, m, n, lda, 1, 0)?;
        let (xn, yn) = if trans.is_transposed() {
            (m, n)
        } else {
            (n, m)
        };
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, y)?;
        check_len(CALL, "x", x, vector_extent(CALL, "x", xn, incx)?)?;
        check_len(CALL, "y", y, vector_extent(CALL, "y", yn, incy)?)?;
        let (mi, ni, ldai) = (
            to_i32(CALL, "m", m)?,
            to_i32(CALL, "n", n)?,
            to_i32(CALL, "lda", lda)?,
        );
        let (incxi, incyi) = (to_i32(CALL, "incx", incx)?, to_i32(CALL, "incy", incy)?);
        if m == 0 || n == 0 {
            return Ok(());
        }
        let (pa, px, py) = (a.device_ptr(), x.device_ptr(), y.device_ptr_mut());
        let (alpha, beta) = (ScalarBytes::plain(alpha), ScalarBytes::plain(beta));
        let (al, be) = (alpha.ptr(), beta.ptr());
        let op = trans.raw();
        let h = self.raw;
        let _g = self.enter()?;
        let acc = [
            Access::read(a),
            Access::read(x),
            Access::write(y),
            self.workspace_access(),
        ];
        self.stream.with_access(&acc, || {
            // SAFETY: A, x and y were checked to hold the elements these dimensions and
            // increments reach; each typed entry point is called with its own element type
            // (T::DATA_TYPE picks it) and that type's scalar type.
            unsafe {
                match T::DATA_TYPE {
                    cudaDataType::CUDA_R_32F => cublas!(cublasSgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const f32,
                        ldai,
                        px as *const f32,
                        incxi,
                        be.cast(),
                        py as *mut f32,
                        incyi
                    )),
                    cudaDataType::CUDA_R_64F => cublas!(cublasDgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const f64,
                        ldai,
                        px as *const f64,
                        incxi,
                        be.cast(),
                        py as *mut f64,
                        incyi
                    )),
                    cudaDataType::CUDA_C_32F => cublas!(cublasCgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const sys::cuComplex,
                        ldai,
                        px as *const sys::cuComplex,
                        incxi,
                        be.cast(),
                        py as *mut sys::cuComplex,
                        incyi
                    )),
                    cudaDataType::CUDA_C_64F => cublas!(cublasZgemv_v2(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const sys::cuDoubleComplex,
                        ldai,
                        px as *const sys::cuDoubleComplex,
                        incxi,
                        be.cast(),
                        py as *mut sys::cuDoubleComplex,
                        incyi
                    )),
                    cudaDataType::CUDA_R_16F => cublas!(cublasHSHgemvStridedBatched(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const u16,
                        ldai,
                        0,
                        px as *const u16,
                        incxi,
                        0,
                        be.cast(),
                        py as *mut u16,
                        incyi,
                        0,
                        1
                    )),
                    cudaDataType::CUDA_R_16BF => cublas!(cublasTSTgemvStridedBatched(
                        h,
                        op,
                        mi,
                        ni,
                        al.cast(),
                        pa as *const u16,
                        ldai,
                        0,
                        px as *const u16,
                        incxi,
                        0,
                        be.cast(),
                        py as *mut u16,
                        incyi,
                        0,
                        1
                    )),
                    other => Err(invalid(format!("gemv: unsupported data type {other:?}"))),
                }
            }
        })
    }
}
