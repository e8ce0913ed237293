//! The pooling calls of [`Dnn`]: forward and its gradient, max and average.
//!
//! Each call checks the shape and every buffer (context, length), answers an empty batch or
//! channel count without calling cuDNN, and declares its accesses to the stream tracker around
//! the one enqueuing cuDNN call.

use super::Dnn;
use super::desc::{PoolDesc, TensorDesc};
use super::element::{DnnElement, one_zero};
use super::shape::{PoolShape, check_lens};
use crate::blas::check_context;
use crate::error::Result;
use crate::memory::{Access, DeviceRead, DeviceWrite};
use std::ffi::c_void;

impl Dnn {
    /// `y = pool(x)` as `shape` says (PyTorch's `max_pool*d` / `avg_pool*d` with
    /// `ceil_mode=False`), overwriting `y`. `x` and `y` hold at least
    /// [`x_len`](PoolShape::x_len) and [`y_len`](PoolShape::y_len) elements in
    /// `shape.layout`. Only enqueues.
    ///
    /// ```no_run
    /// use cuprite_driver::dnn::{Dnn, PoolMode, PoolShape};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let dnn = Dnn::new(&s)?;
    /// let shape = PoolShape::new(1, 1, [6], [2], PoolMode::Max);
    /// let x = s.clone_htod(&[1.0f32, 5.0, 2.0, 0.0, -1.0, 3.0])?;
    /// let mut y = s.alloc_zeros::<f32>(shape.y_len()?)?;
    /// dnn.pooling_forward(&shape, &x, &mut y)?;
    /// assert_eq!(s.clone_dtoh(&y)?, [5.0, 2.0, 3.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for an unsound shape (see
    /// [`PoolShape::check`]), a buffer of another context or shorter than the shape needs; a
    /// library error naming the cuDNN call that refused.
    pub fn pooling_forward<T: DnnElement, const N: usize>(
        &self,
        shape: &PoolShape<N>,
        x: &dyn DeviceRead<T>,
        y: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "pooling_forward";
        let g = shape.geometry(CALL)?;
        let s = &*self.stream;
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, &*y)?;
        check_lens(CALL, &[("x", x.len(), g.x_len), ("y", y.len(), g.y_len)])?;
        if g.y_len == 0 {
            return Ok(());
        }
        // Held until the work is enqueued: one handle serves one thread at a time.
        let _turn = self.begin()?;
        let xd = TensorDesc::new::<T>(g.nb, &g.x_dims, &g.x_strides)?;
        let yd = TensorDesc::new::<T>(g.nb, &g.y_dims, &g.y_strides)?;
        let pd = PoolDesc::new(&g, shape.mode)?;
        let (px, py) = (
            x.device_ptr() as *const c_void,
            y.device_ptr_mut() as *mut c_void,
        );
        let (one, zero) = one_zero::<T>();
        let h = self.raw;
        let acc = [Access::read(x), Access::write(&*y)];
        s.with_access(&acc, || {
            // SAFETY: the descriptors describe exactly the checked shape and each buffer
            // holds the elements its descriptor spans; the scalars are static host values of
            // the type cuDNN reads for `T`; the handle is bound to this stream.
            unsafe { cudnn!(cudnnPoolingForward(h, pd.0, one, xd.0, px, zero, yd.0, py)) }
        })
    }

    /// `dx`, the gradient of a pooling's input from its input `x`, its output `y` (as
    /// [`pooling_forward`](Self::pooling_forward) gave it) and the gradient `dy` of that
    /// output, overwriting `dx`. Max pooling sends each gradient to the position of its
    /// window's maximum; average pooling spreads it over the window. Only enqueues.
    ///
    /// # Errors
    /// As [`pooling_forward`](Self::pooling_forward).
    pub fn pooling_backward<T: DnnElement, const N: usize>(
        &self,
        shape: &PoolShape<N>,
        x: &dyn DeviceRead<T>,
        y: &dyn DeviceRead<T>,
        dy: &dyn DeviceRead<T>,
        dx: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "pooling_backward";
        let g = shape.geometry(CALL)?;
        let s = &*self.stream;
        check_context(CALL, "x", s, x)?;
        check_context(CALL, "y", s, y)?;
        check_context(CALL, "dy", s, dy)?;
        check_context(CALL, "dx", s, &*dx)?;
        check_lens(
            CALL,
            &[
                ("x", x.len(), g.x_len),
                ("y", y.len(), g.y_len),
                ("dy", dy.len(), g.y_len),
                ("dx", dx.len(), g.x_len),
            ],
        )?;
        if g.x_len == 0 {
            return Ok(());
        }
        // Held until the work is enqueued: one handle serves one thread at a time.
        let _turn = self.begin()?;
        let xd = TensorDesc::new::<T>(g.nb, &g.x_dims, &g.x_strides)?;
        let yd = TensorDesc::new::<T>(g.nb, &g.y_dims, &g.y_strides)?;
        let pd = PoolDesc::new(&g, shape.mode)?;
        let (px, py, pdy, pdx) = (
            x.device_ptr() as *const c_void,
            y.device_ptr() as *const c_void,
            dy.device_ptr() as *const c_void,
            dx.device_ptr_mut() as *mut c_void,
        );
        let (one, zero) = one_zero::<T>();
        let h = self.raw;
        let acc = [
            Access::read(x),
            Access::read(y),
            Access::read(dy),
            Access::write(&*dx),
        ];
        s.with_access(&acc, || {
            // SAFETY: as in `pooling_forward`; `dy` and `dx` have `y`'s and `x`'s descriptors.
            unsafe {
                cudnn!(cudnnPoolingBackward(
                    h, pd.0, one, yd.0, py, yd.0, pdy, xd.0, px, zero, xd.0, pdx
                ))
            }
        })
    }
}
