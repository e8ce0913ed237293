//! NumPy's `linspace` with every option: `endpoint`, `retstep`, integer results (floored,
//! NumPy 2), and array-valued bounds along a chosen `axis`.

use crate::array::Array;
use crate::device::with_device;
use crate::dtype::{Float, Numeric, Ordered};
use crate::error::{Error, Result};
use crate::ops::LinspaceOpts;
use crate::shape::{axis, broadcast_shapes, checked_numel};

impl<T: Numeric + Ordered> Array<T> {
    /// NumPy's `linspace(start, stop, num, endpoint, retstep=True, dtype=T)` ([`LinspaceOpts`]):
    /// `num` values from `start` toward `stop` and the step between them. With `endpoint` (the
    /// default) the last value is `stop` exactly and the step is `(stop - start) / (num - 1)`
    /// (NaN for one value); without it, `stop` is left out and the step is
    /// `(stop - start) / num`. Values are computed in `f64` as `start + i * step` and cast to
    /// `T`; integer types floor first, as NumPy 2.
    ///
    /// # Errors
    /// A bound that is not finite, or `num` elements beyond the addressable size.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::LinspaceOpts};
    /// let no_end = LinspaceOpts::new().endpoint(false);
    /// let (a, step) = Array::<f64>::linspace_with(2.0, 3.0, 5, no_end)?;
    /// assert_eq!(step, 0.2);
    /// for (x, w) in a.to_vec()?.into_iter().zip([2.0, 2.2, 2.4, 2.6, 2.8]) {
    ///     assert!((x - w).abs() < 1e-15);
    /// }
    /// let (b, _) = Array::<i32>::linspace_with(-1.0, 2.0, 4, LinspaceOpts::new())?;
    /// assert_eq!(b.to_vec()?, [-1, 0, 1, 2]);
    /// let (_, one) = Array::<f32>::linspace_with(0.0, 1.0, 1, LinspaceOpts::new())?;
    /// assert!(one.is_nan());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn linspace_with(
        start: f64,
        stop: f64,
        num: usize,
        opts: LinspaceOpts,
    ) -> Result<(Array<T>, f64)> {
        let endpoint = opts.endpoint;
        checked_numel(&[num])?;
        if !start.is_finite() || !stop.is_finite() {
            return Err(Error::InvalidArgument(format!(
                "linspace: bounds {start} and {stop} must be finite"
            )));
        }
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let delta = stop - start;
        let (step, y) = {
            let i: Array<f64> = Array::arange_len(num)?.cast();
            if div > 0 {
                let step = delta / div as f64;
                // NumPy's form when the step underflows to 0: scale after dividing.
                let y = if step == 0.0 {
                    &i / div as f64 * delta
                } else {
                    &i * step
                };
                (step, y)
            } else {
                (f64::NAN, &i * delta)
            }
        };
        let mut y = y + start;
        if endpoint && num > 1 {
            let last = Array::arange_len(num)?.equal(num as i64 - 1);
            y = Array::select(&last, stop, &y)?;
        }
        if T::DTYPE.is_int() {
            y = y.floor();
        }
        let out = y.cast::<T>();
        out.eval()?;
        Ok((out, step))
    }
}

impl<T: Float> Array<T> {
    /// NumPy's `linspace` with array bounds: `start` and `stop` broadcast together, and the
    /// `num` samples of each pair lie along a new first axis of the result, with the steps as
    /// a second array of the bounds' shape (`endpoint` and the new axis's place through
    /// [`linspace_between_with`](Self::linspace_between_with)).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let lo = Array::from_slice(&[0.0f64, 10.0], &[2])?;
    /// let hi = Array::from_slice(&[1.0f64, 20.0], &[2])?;
    /// let (y, step) = Array::linspace_between(&lo, &hi, 3)?;
    /// assert_eq!((y.shape(), y.to_vec()?), (&[3, 2][..], vec![0.0, 10.0, 0.5, 15.0, 1.0, 20.0]));
    /// assert_eq!(step.to_vec()?, [0.5, 5.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn linspace_between(
        start: &Array<T>,
        stop: &Array<T>,
        num: usize,
    ) -> Result<(Array<T>, Array<T>)> {
        Self::linspace_between_with(start, stop, num, LinspaceOpts::new())
    }

    /// [`linspace_between`](Self::linspace_between) with NumPy's `endpoint` and `axis`
    /// ([`LinspaceOpts`]): the samples lie along the result's axis `axis` (negative from its
    /// end); `endpoint` as in [`linspace_with`](Self::linspace_with).
    ///
    /// # Errors
    /// Bounds that do not broadcast, an axis out of range, or a result beyond the
    /// addressable size.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::LinspaceOpts};
    /// let lo = Array::from_slice(&[0.0f64, 10.0], &[2])?;
    /// let hi = Array::from_slice(&[1.0f64, 20.0], &[2])?;
    /// let o = LinspaceOpts::new().endpoint(true).axis(-1);
    /// let (y, step) = Array::linspace_between_with(&lo, &hi, 3, o)?;
    /// assert_eq!((y.shape(), y.to_vec()?), (&[2, 3][..], vec![0.0, 0.5, 1.0, 10.0, 15.0, 20.0]));
    /// assert_eq!(step.to_vec()?, [0.5, 5.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn linspace_between_with(
        start: &Array<T>,
        stop: &Array<T>,
        num: usize,
        opts: LinspaceOpts,
    ) -> Result<(Array<T>, Array<T>)> {
        let (endpoint, ax) = (opts.endpoint, opts.axis);
        let b = broadcast_shapes(start.shape(), stop.shape())?;
        let a = axis(ax, b.len() + 1)?;
        let mut out = b.clone();
        out.insert(a, num);
        checked_numel(&out)?;
        let (s0, s1) = (start.broadcast_to(&b)?, stop.broadcast_to(&b)?);
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let delta = s1.try_sub(&s0)?;
        let step = if div > 0 {
            &delta / T::from_scalar(crate::dtype::Scalar::F64(div as f64))
        } else {
            with_device(start.device(), || {
                Array::full(&b, T::from_scalar(crate::dtype::Scalar::F64(f64::NAN)))
            })
        };
        let mut sh = vec![1usize; out.len()];
        sh[a] = num;
        let i: Array<T> = with_device(start.device(), || Array::arange_len(num))?
            .cast::<T>()
            .reshape(&sh)?;
        let grow = |x: &Array<T>| x.expand_dims(a as isize);
        let scaled = if div > 0 {
            i.try_mul(&grow(&step)?)?
        } else {
            i.try_mul(&grow(&delta)?)?
        };
        let mut y = scaled.try_add(&grow(&s0)?)?;
        if endpoint && num > 1 {
            let last = with_device(start.device(), || Array::arange_len(num))?
                .equal(num as i64 - 1)
                .reshape(&sh)?;
            y = Array::select(&last, &grow(&s1)?, &y)?;
        }
        Ok((y.broadcast_to(&out)?, step))
    }
}
