//! Level-1 calls: `dot`, `dotc`, `axpy`, `nrm2`; results written on the device.

use super::handle::Blas;
use super::types::{Element, Scalar, ScalarBytes, check_context, check_len, to_i32, vector_extent};
use crate::error::{Result, check_cublas};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use cuprite_sys::cublas::{self as sys, cublasHandle_t, cublasPointerMode_t, cudaDataType};
use std::ffi::c_void;

impl Blas {
    /// `result[0] = Σ x_i · y_i` (no conjugation), written on the device: no host wait.
    /// `f16`/`bf16` accumulate in `f32`. See [`dotc`](Self::dotc) for `Σ conj(x_i) · y_i`.
    ///
    /// ```no_run
    /// use cuprite_driver::blas::Blas;
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let x = s.clone_htod(&[1.0f64, 2.0, 3.0])?;
    /// let mut r = s.alloc_zeros::<f64>(1)?;
    /// blas.dot(3, &x, 1, &x, 1, &mut r)?;
    /// assert_eq!(s.clone_dtoh(&r)?, [14.0]);
    /// # Ok(()) }
    /// ```
    pub fn dot<T: Element>(
        &self,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &dyn DeviceRead<T>,
        incy: usize,
        result: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.dot_impl(false, n, x, incx, y, incy, result)
    }

    /// `result[0] = Σ conj(x_i) · y_i` (the same as [`dot`](Self::dot) for real types).
    pub fn dotc<T: Element>(
        &self,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &dyn DeviceRead<T>,
        incy: usize,
        result: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.dot_impl(T::IS_COMPLEX, n, x, incx, y, incy, result)
    }

    #[allow(clippy::too_many_arguments)]
    fn dot_impl<T: Element>(
        &self,
        conj: bool,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &dyn DeviceRead<T>,
        incy: usize,
        result: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "dot";
        let s = &*self.stream;
        for (what, v, inc) in [("x", x, incx), ("y", y, incy)] {
            check_context(CALL, what, s, v)?;
            check_len(CALL, what, v, vector_extent(CALL, what, n, inc)?)?;
        }
        check_context(CALL, "result", s, result)?;
        check_len(CALL, "result", result, 1)?;
        let ni = to_i32(CALL, "n", n)?;
        let (incxi, incyi) = (to_i32(CALL, "incx", incx)?, to_i32(CALL, "incy", incy)?);
        let dt = T::DATA_TYPE;
        let exec = exec_type(dt);
        let (px, py, pr) = (x.device_ptr(), y.device_ptr(), result.device_ptr_mut());
        let _g = self.enter()?;
        let _mode = DevicePointerMode::set(self.raw)?;
        let acc = [
            Access::read(x),
            Access::read(y),
            Access::write(result),
            self.workspace_access(),
        ];
        self.stream.with_access(&acc, || {
            // SAFETY: x and y hold the elements n and the increments reach, result holds one
            // element of T; the pointer mode is device for the result, restored after.
            unsafe {
                if conj {
                    cublas!(cublasDotcEx(
                        self.raw,
                        ni,
                        px as *const c_void,
                        dt,
                        incxi,
                        py as *const c_void,
                        dt,
                        incyi,
                        pr as *mut c_void,
                        dt,
                        exec
                    ))
                } else {
                    cublas!(cublasDotEx(
                        self.raw,
                        ni,
                        px as *const c_void,
                        dt,
                        incxi,
                        py as *const c_void,
                        dt,
                        incyi,
                        pr as *mut c_void,
                        dt,
                        exec
                    ))
                }
            }
        })
    }

    /// `y = alpha · x + y` over `n` elements strided by `incx`/`incy`. `f16`/`bf16` compute in
    /// `f32` (`alpha` is `f32`).
    ///
    /// ```no_run
    /// use cuprite_driver::blas::Blas;
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let x = s.clone_htod(&[1.0f32, 2.0])?;
    /// let mut y = s.clone_htod(&[10.0f32, 20.0])?;
    /// blas.axpy(2, 3.0, &x, 1, &mut y, 1)?;
    /// assert_eq!(s.clone_dtoh(&y)?, [13.0, 26.0]);
    /// # Ok(()) }
    /// ```
    pub fn axpy<T: Element>(
        &self,
        n: usize,
        alpha: T::Scalar,
        x: &dyn DeviceRead<T>,
        incx: usize,
        y: &mut dyn DeviceWrite<T>,
        incy: usize,
    ) -> Result<()> {
        const CALL: &str = "axpy";
        let s = &*self.stream;
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, y)?;
        check_len(CALL, "x", x, vector_extent(CALL, "x", n, incx)?)?;
        check_len(CALL, "y", y, vector_extent(CALL, "y", n, incy)?)?;
        let ni = to_i32(CALL, "n", n)?;
        let (incxi, incyi) = (to_i32(CALL, "incx", incx)?, to_i32(CALL, "incy", incy)?);
        let dt = T::DATA_TYPE;
        let exec = exec_type(dt);
        let (px, py) = (x.device_ptr(), y.device_ptr_mut());
        let alpha = ScalarBytes::plain(alpha);
        let al = alpha.ptr();
        let _g = self.enter()?;
        let acc = [Access::read(x), Access::write(y), self.workspace_access()];
        self.stream.with_access(&acc, || {
            // SAFETY: x and y hold the elements n and the increments reach; alpha is a host
            // scalar of its declared type.
            unsafe {
                cublas!(cublasAxpyEx(
                    self.raw,
                    ni,
                    al.cast(),
                    <T::Scalar as Scalar>::DATA_TYPE,
                    px as *const c_void,
                    dt,
                    incxi,
                    py as *mut c_void,
                    dt,
                    incyi,
                    exec
                ))
            }
        })
    }

    /// `result[0] = ‖x‖₂` over `n` elements strided by `incx`, written on the device (as
    /// `T::Real`: `f32` for `Complex<f32>`, the type itself for real types).
    ///
    /// ```no_run
    /// use cuprite_driver::blas::Blas;
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let blas = Blas::new(&s)?;
    /// let x = s.clone_htod(&[3.0f32, 4.0])?;
    /// let mut r = s.alloc_zeros::<f32>(1)?;
    /// blas.nrm2(2, &x, 1, &mut r)?;
    /// assert_eq!(s.clone_dtoh(&r)?, [5.0]);
    /// # Ok(()) }
    /// ```
    pub fn nrm2<T: Element>(
        &self,
        n: usize,
        x: &dyn DeviceRead<T>,
        incx: usize,
        result: &mut dyn DeviceWrite<T::Real>,
    ) -> Result<()> {
        const CALL: &str = "nrm2";
        let s = &*self.stream;
        check_context(CALL, "x", s, x)?;
        check_len(CALL, "x", x, vector_extent(CALL, "x", n, incx)?)?;
        check_context(CALL, "result", s, result)?;
        check_len(CALL, "result", result, 1)?;
        let ni = to_i32(CALL, "n", n)?;
        let incxi = to_i32(CALL, "incx", incx)?;
        let rt = <T::Real as Element>::DATA_TYPE;
        let exec = exec_type(rt);
        let (px, pr) = (x.device_ptr(), result.device_ptr_mut());
        let _g = self.enter()?;
        let _mode = DevicePointerMode::set(self.raw)?;
        let acc = [
            Access::read(x),
            Access::write(result),
            self.workspace_access(),
        ];
        self.stream.with_access(&acc, || {
            // SAFETY: x holds the elements n and incx reach, result one element of T::Real;
            // the pointer mode is device for the result, restored after.
            unsafe {
                cublas!(cublasNrm2Ex(
                    self.raw,
                    ni,
                    px as *const c_void,
                    T::DATA_TYPE,
                    incxi,
                    pr as *mut c_void,
                    rt,
                    exec
                ))
            }
        })
    }
}

/// The execution type of the `*Ex` level-1 calls: `f32` for the half types, else the type.
fn exec_type(dt: cudaDataType) -> cudaDataType {
    if dt == cudaDataType::CUDA_R_16F || dt == cudaDataType::CUDA_R_16BF {
        cudaDataType::CUDA_R_32F
    } else {
        dt
    }
}

/// Device pointer mode for the life of the guard (results written to device memory), host mode
/// again on drop. Only made while the handle's lock is held.
struct DevicePointerMode(cublasHandle_t);

impl DevicePointerMode {
    fn set(h: cublasHandle_t) -> Result<Self> {
        // SAFETY: a live handle, used under its lock.
        unsafe {
            cublas!(cublasSetPointerMode_v2(
                h,
                cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE
            ))
        }?;
        Ok(DevicePointerMode(h))
    }
}

impl Drop for DevicePointerMode {
    fn drop(&mut self) {
        // SAFETY: as in `set`. Setting a mode cannot fail on a live handle.
        let _ = unsafe {
            sys::cublasSetPointerMode_v2(self.0, cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)
        };
    }
}
