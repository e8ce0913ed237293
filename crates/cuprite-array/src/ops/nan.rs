//! NaN-aware reductions and element-wise helpers: `nanprod`, `nanmean`, `nanmax`, `nanmin`,
//! `nanvar`, `nanstd`, `nanmedian`, `nanargmax`, `nanargmin`, `nancumsum`, `nancumprod`,
//! `nan_to_num`, `fmax`, `fmin`.
//!
//! Sums, products and scans are the plain ones fed by a fused select that maps NaN to the
//! operation's identity (0 for sums, 1 for products), so they read the input once. The
//! extremes and their indices are reductions of their own that pass over NaNs
//! ([`ReduceOp::NanMax`] and its kin: a NaN gives way to any number), in the same one pass
//! and with no read-back to the host. A slice of only NaNs gives NaN (NumPy, without its
//! warning), and -1 for the arg-reductions (NumPy raises `ValueError`; a check would cost a
//! synchronisation on every call).

use crate::array::Array;
use crate::dtype::{DType, Element, Float, Scalar, c64};
use crate::error::{Error, Result};
use crate::ops::{AxisOpts, NanToNumOpts, ReduceOp, ReduceOpts, VarOpts};

fn c<T: Element>(x: f64) -> T {
    T::from_scalar(Scalar::F64(x))
}

/// The largest finite value of a float dtype.
fn max_finite(d: DType) -> f64 {
    match d {
        DType::F16 => 65504.0,
        DType::BF16 => 3.389_531_389_251_535_5e38,
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

fn all_axes(nd: usize) -> Vec<isize> {
    (0..nd as isize).collect()
}

impl<T: Float> Array<T> {
    /// `self` with NaNs replaced by `v` (fused).
    fn nan_as(&self, v: f64) -> Result<Array<T>> {
        Array::select(&self.isnan(), c::<T>(v), self)
    }

    /// The sum of the elements along `axes` that are not NaN (real part) and how many there
    /// are (imaginary part), from one reduction pass: each element enters as the complex
    /// number `x + 1i`, a NaN as `0`. Both parts accumulate in `f64`, so the count is exact
    /// below 2^53 elements and the sum of a narrower float is at least as precise as its own
    /// sum.
    fn nan_sum_count(&self, axes: &[isize], keep: bool) -> Result<Array<c64>> {
        let nan = self.isnan();
        let x = Array::select(&nan, c::<T>(0.0), self)?.cast::<c64>();
        let one = Array::select(&nan, c64::new(0.0, 0.0), c64::new(0.0, 1.0))?;
        x.try_add(&one)?
            .sum_axes_with(axes, ReduceOpts::new().keepdims(keep))
    }

    /// The mean of the elements along `axes` that are not NaN, as `f64`, and their count,
    /// both from [`nan_sum_count`](Self::nan_sum_count)'s one pass; an empty count gives a
    /// NaN mean (0 / 0).
    fn nan_mean_count(&self, axes: &[isize], keep: bool) -> Result<(Array<f64>, Array<f64>)> {
        let sc = self.nan_sum_count(axes, keep)?;
        let n = sc.imag();
        Ok((sc.real().try_div(&n)?, n))
    }

    /// Product ignoring NaNs (NumPy's `nanprod`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[2.0f64, f64::NAN, 3.0], &[3])?;
    /// assert_eq!(a.nanprod()?.item()?, 6.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanprod(&self) -> Result<Array<T>> {
        self.nanprod_axes(&all_axes(self.ndim()))
    }
    /// [`nanprod`](Self::nanprod) along `axes`.
    pub fn nanprod_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.nanprod_axes_with(axes, ReduceOpts::new())
    }
    /// [`nanprod_axes`](Self::nanprod_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn nanprod_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        let keepdims = opts.keepdims;
        Ok(self
            .nan_as(1.0)?
            .prod_axes_with(axes, ReduceOpts::new().keepdims(keepdims))?
            .cast::<T>())
    }

    /// Largest element ignoring NaNs; NaN when all are NaN (NumPy's `nanmax`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f32, f32::NAN, 3.0, f32::NAN], &[2, 2])?;
    /// assert_eq!(a.nanmax()?.item()?, 3.0);
    /// assert!(a.nanmax_axes(&[0])?.to_vec()?[1].is_nan());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanmax(&self) -> Result<Array<T>> {
        self.nanmax_axes(&all_axes(self.ndim()))
    }
    /// [`nanmax`](Self::nanmax) along `axes`.
    pub fn nanmax_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.nanmax_axes_with(axes, ReduceOpts::new())
    }
    /// [`nanmax_axes`](Self::nanmax_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn nanmax_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        self.red(ReduceOp::NanMax, Some(axes), opts.keepdims)
    }

    /// Smallest element ignoring NaNs; NaN when all are NaN (NumPy's `nanmin`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f32, f32::NAN, -3.0], &[3])?;
    /// assert_eq!(a.nanmin()?.item()?, -3.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanmin(&self) -> Result<Array<T>> {
        self.nanmin_axes(&all_axes(self.ndim()))
    }
    /// [`nanmin`](Self::nanmin) along `axes`.
    pub fn nanmin_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.nanmin_axes_with(axes, ReduceOpts::new())
    }
    /// [`nanmin_axes`](Self::nanmin_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn nanmin_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        self.red(ReduceOp::NanMin, Some(axes), opts.keepdims)
    }

    /// Mean of the elements that are not NaN; NaN when all are (NumPy's `nanmean`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f64, f64::NAN, 3.0], &[3])?;
    /// assert_eq!(a.nanmean()?.item()?, 2.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanmean(&self) -> Result<Array<T>> {
        self.nanmean_axes(&all_axes(self.ndim()))
    }
    /// [`nanmean`](Self::nanmean) along `axes`.
    pub fn nanmean_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.nanmean_axes_with(axes, ReduceOpts::new())
    }
    /// [`nanmean_axes`](Self::nanmean_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn nanmean_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        Ok(self.nan_mean_count(axes, opts.keepdims)?.0.cast::<T>())
    }

    /// Variance of the elements that are not NaN (the population variance; `ddof` delta
    /// degrees of freedom with [`nanvar_with`](Self::nanvar_with)); NaN when fewer than
    /// `ddof + 1` are (NumPy's `nanvar`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// use cuprite_array::ops::VarOpts;
    /// let a = Array::from_slice(&[1.0f64, f64::NAN, 3.0], &[3])?;
    /// assert_eq!(a.nanvar()?.item()?, 1.0);
    /// assert_eq!(a.nanvar_with(VarOpts::new().ddof(1))?.item()?, 2.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanvar(&self) -> Result<Array<T>> {
        self.nanvar_with(VarOpts::new())
    }
    /// [`nanvar`](Self::nanvar) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn nanvar_with(&self, opts: VarOpts) -> Result<Array<T>> {
        self.nanvar_axes_with(&all_axes(self.ndim()), opts)
    }
    /// [`nanvar`](Self::nanvar) along `axes`.
    pub fn nanvar_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.nanvar_axes_with(axes, VarOpts::new())
    }
    /// [`nanvar_axes`](Self::nanvar_axes) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn nanvar_axes_with(&self, axes: &[isize], opts: VarOpts) -> Result<Array<T>> {
        Ok(self.nanvar_f64(axes, opts)?.cast::<T>())
    }

    /// `nanvar` in `f64`, in the passes [`var`](Self::var) makes: one reduction for the sum
    /// `S` and the count `N` of the non-NaN elements together, one for the squared
    /// deviations from the mean `S / N` (the two-pass formula's precision), and the division
    /// left lazy; the mean never leaves the device. A NaN element adds 0 to the second sum
    /// (chosen by the element itself, so an infinity's `∞ - ∞` still makes the result NaN,
    /// as in NumPy).
    fn nanvar_f64(&self, axes: &[isize], opts: VarOpts) -> Result<Array<f64>> {
        let (ddof, keepdims) = (opts.ddof, opts.keepdims);
        let sc = self.nan_sum_count(axes, true)?;
        let (s, n) = (sc.real(), sc.imag());
        let x = self.cast::<f64>();
        // Narrower floats take `N·x - S = N·(x - S / N)`: no division per element, and their
        // values times any count stay far inside the range of `f64`, whose 53 bits hold
        // `N·x` exactly for `N < 2^29`. `f64` values could overflow that product, so they
        // take the deviation itself (a division per element, as `var` of `f64` makes).
        let scaled = T::DTYPE != DType::F64;
        let d = if scaled {
            x.try_mul(&n)?.try_sub(&s)?
        } else {
            x.try_sub(s.try_div(&n)?)?
        };
        let sq = Array::select(&self.isnan(), 0.0, d.try_mul(&d)?)?;
        let ss = sq.sum_axes_with(axes, ReduceOpts::new().keepdims(keepdims))?;
        let n = n.reshape(ss.shape())?;
        let ss = if scaled {
            ss.try_div(&n)?.try_div(&n)?
        } else {
            ss
        };
        let dof = n - ddof as f64;
        let dof = Array::select(&dof.greater(0.0), &dof, f64::NAN)?;
        ss.try_div(&dof)
    }

    /// Standard deviation of the elements that are not NaN (NumPy's `nanstd`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f64, 3.0, f64::NAN], &[3])?;
    /// assert_eq!(a.nanstd()?.item()?, 1.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanstd(&self) -> Result<Array<T>> {
        self.nanstd_with(VarOpts::new())
    }
    /// [`nanstd`](Self::nanstd) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn nanstd_with(&self, opts: VarOpts) -> Result<Array<T>> {
        self.nanstd_axes_with(&all_axes(self.ndim()), opts)
    }
    /// [`nanstd`](Self::nanstd) along `axes`.
    pub fn nanstd_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.nanstd_axes_with(axes, VarOpts::new())
    }
    /// [`nanstd_axes`](Self::nanstd_axes) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn nanstd_axes_with(&self, axes: &[isize], opts: VarOpts) -> Result<Array<T>> {
        let (ddof, keepdims) = (opts.ddof, opts.keepdims);
        let v = self.nanvar_f64(axes, VarOpts::new().ddof(ddof).keepdims(keepdims))?;
        // √ in f64 keeps this to the `Float` bound (f16/bf16 have no Transcendental sqrt of
        // their own either: they compute in f32).
        Ok(v.sqrt().cast::<T>())
    }

    /// Flat index of the first largest element ignoring NaNs; -1 when every element is NaN
    /// (NumPy's `nanargmax`, which raises `ValueError` there). One pass, and no read-back to
    /// the host: test the result for -1 where a slice may hold only NaNs. An empty array is
    /// an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[f32::NAN, 2.0, 5.0, f32::NAN], &[4])?;
    /// assert_eq!(a.nanargmax()?.item()?, 2);
    /// assert_eq!(Array::from_slice(&[f32::NAN], &[1])?.nanargmax()?.item()?, -1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanargmax(&self) -> Result<Array<i64>> {
        self.arg_reduce(ReduceOp::NanArgMax, None, false)
    }
    /// [`nanargmax`](Self::nanargmax) along `axis`: -1 for each slice of only NaNs.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let nan = f64::NAN;
    /// let a = Array::from_slice(&[nan, 1.0, nan, 4.0, nan, 0.0], &[3, 2])?;
    /// assert_eq!(a.nanargmax_axis(0)?.to_vec()?, vec![-1, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanargmax_axis(&self, axis: isize) -> Result<Array<i64>> {
        self.nanargmax_axis_with(axis, ReduceOpts::new())
    }
    /// [`nanargmax_axis`](Self::nanargmax_axis) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn nanargmax_axis_with(&self, axis: isize, opts: ReduceOpts) -> Result<Array<i64>> {
        self.arg_reduce(ReduceOp::NanArgMax, Some(axis), opts.keepdims)
    }

    /// Flat index of the first smallest element ignoring NaNs; -1 when every element is NaN
    /// (NumPy's `nanargmin`, which raises `ValueError` there; see
    /// [`nanargmax`](Self::nanargmax)).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[f32::NAN, 2.0, -5.0], &[3])?;
    /// assert_eq!(a.nanargmin()?.item()?, 2);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanargmin(&self) -> Result<Array<i64>> {
        self.arg_reduce(ReduceOp::NanArgMin, None, false)
    }
    /// [`nanargmin`](Self::nanargmin) along `axis`: -1 for each slice of only NaNs.
    pub fn nanargmin_axis(&self, axis: isize) -> Result<Array<i64>> {
        self.nanargmin_axis_with(axis, ReduceOpts::new())
    }
    /// [`nanargmin_axis`](Self::nanargmin_axis) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn nanargmin_axis_with(&self, axis: isize, opts: ReduceOpts) -> Result<Array<i64>> {
        self.arg_reduce(ReduceOp::NanArgMin, Some(axis), opts.keepdims)
    }

    /// Cumulative sum along `axis`, NaNs counted as 0 (NumPy's `nancumsum`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f64, f64::NAN, 2.0], &[3])?;
    /// assert_eq!(a.nancumsum(0)?.to_vec()?, vec![1.0, 1.0, 3.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nancumsum(&self, axis: isize) -> Result<Array<T>> {
        Ok(self.nan_as(0.0)?.cumsum(axis)?.cast::<T>())
    }

    /// Cumulative product along `axis`, NaNs counted as 1 (NumPy's `nancumprod`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[2.0f64, f64::NAN, 3.0], &[3])?;
    /// assert_eq!(a.nancumprod(0)?.to_vec()?, vec![2.0, 2.0, 6.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nancumprod(&self, axis: isize) -> Result<Array<T>> {
        Ok(self.nan_as(1.0)?.cumprod(axis)?.cast::<T>())
    }

    /// The median of the elements that are not NaN (along one axis with
    /// [`nanmedian_with`](Self::nanmedian_with));
    /// NaN for a slice of only NaNs (NumPy's `nanmedian`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[4.0f64, f64::NAN, 1.0, 2.0], &[4])?;
    /// assert_eq!(a.nanmedian()?.item()?, 2.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nanmedian(&self) -> Result<Array<T>> {
        self.nanmedian_with(AxisOpts::new())
    }
    /// [`nanmedian`](Self::nanmedian) with NumPy's `axis` ([`AxisOpts`]).
    pub fn nanmedian_with(&self, opts: AxisOpts) -> Result<Array<T>> {
        let axis = opts.axis;
        let (x, ax) = match axis {
            None => (self.flatten()?, 0usize),
            Some(a) => (self.clone(), crate::shape::axis(a, self.ndim())?),
        };
        if x.shape()[ax] == 0 {
            return Err(Error::InvalidArgument(format!(
                "nanmedian of an empty axis (shape {:?})",
                self.shape()
            )));
        }
        // Ascending sort puts NaNs last: the first `k` of each line are the numbers.
        let sorted = x.sort(ax as isize)?;
        let k = x
            .equal(&x)
            .count_axes_with(&[ax as isize], ReduceOpts::new().keepdims(true))?;
        let lo = ((&k - 1i64) / 2i64).clamp(0i64, i64::MAX);
        let hi = (&k / 2i64).clamp(0i64, x.shape()[ax] as i64 - 1);
        let a = sorted.take_along_axis(&lo, ax as isize)?;
        let b = sorted.take_along_axis(&hi, ax as isize)?;
        let m = a.try_add(&b)?.try_mul(c::<T>(0.5))?;
        let m = Array::select(&k.equal(0i64), c::<T>(f64::NAN), &m)?;
        let mut shape = x.shape().to_vec();
        shape.remove(ax);
        m.reshape(&shape)
    }

    /// NaN replaced by 0, +∞ by the largest and −∞ by the most negative finite value of the
    /// dtype (fused; NumPy's `nan_to_num`; other values through
    /// [`nan_to_num_with`](Self::nan_to_num_with)).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[f32::NAN, f32::INFINITY, -f32::INFINITY, 1.0], &[4])?;
    /// assert_eq!(a.nan_to_num()?.to_vec()?, vec![0.0, f32::MAX, f32::MIN, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nan_to_num(&self) -> Result<Array<T>> {
        self.nan_to_num_with(NanToNumOpts::new())
    }

    /// [`nan_to_num`](Self::nan_to_num) with NumPy's `nan`, `posinf` and `neginf`
    /// ([`NanToNumOpts`]).
    pub fn nan_to_num_with(&self, opts: NanToNumOpts<T>) -> Result<Array<T>> {
        let big = max_finite(T::DTYPE);
        let nan = opts.nan.unwrap_or_else(|| c::<T>(0.0));
        let pos = opts.posinf.unwrap_or_else(|| c::<T>(big));
        let neg = opts.neginf.unwrap_or_else(|| c::<T>(-big));
        let x = Array::select(&self.isnan(), nan, self)?;
        let x = Array::select(&self.equal(c::<T>(f64::INFINITY)), pos, &x)?;
        Array::select(&self.equal(c::<T>(f64::NEG_INFINITY)), neg, &x)
    }

    /// Pairwise maximum ignoring a NaN when the other operand is a number (fused; NumPy's
    /// `fmax`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f32, f32::NAN, f32::NAN], &[3])?;
    /// let b = Array::from_slice(&[f32::NAN, 2.0, f32::NAN], &[3])?;
    /// let m = a.fmax(&b)?.to_vec()?;
    /// assert_eq!(&m[..2], &[1.0, 2.0]);
    /// assert!(m[2].is_nan());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fmax(&self, rhs: &Array<T>) -> Result<Array<T>> {
        let m = self.maximum(rhs);
        let m = Array::select(&rhs.isnan(), self, &m)?;
        Array::select(&self.isnan(), rhs, &m)
    }

    /// Pairwise minimum ignoring a NaN when the other operand is a number (NumPy's `fmin`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f32, f32::NAN], &[2])?;
    /// let b = Array::from_slice(&[f32::NAN, 2.0], &[2])?;
    /// assert_eq!(a.fmin(&b)?.to_vec()?, vec![1.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fmin(&self, rhs: &Array<T>) -> Result<Array<T>> {
        let m = self.minimum(rhs);
        let m = Array::select(&rhs.isnan(), self, &m)?;
        Array::select(&self.isnan(), rhs, &m)
    }
}
