//! Statistics with NumPy's semantics: `histogram` and `bincount` (the library call of
//! [`super::histogram`]), `cov` and `corrcoef` (a centring pass and one GEMM), weighted
//! `average` and `ptp`. (`median`, `quantile` and `mode` live with the selection kernels.)
//!
//! Where NumPy needs a value of the data to shape the result (the range of a histogram without
//! one, the length of a `bincount`, whether weights sum to zero), that value is read back: a
//! synchronisation, said in each function's docs.

use super::histogram::Histogram;
use crate::array::Array;
use crate::codegen::HistMode;
use crate::dtype::{DType, Element, Float, Integer, Numeric, Ordered, Scalar, Transcendental};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::{AverageOpts, HistogramOpts, ReduceOpts};
use std::sync::Arc;

/// The `(lo, hi)` of a histogram: checked when given, the data's finite min and max otherwise.
fn hist_range(x: &Array<f64>, bins: usize, range: Option<(f64, f64)>) -> Result<(f64, f64)> {
    if bins == 0 {
        return Err(Error::InvalidArgument(
            "histogram: bins must be at least 1, not 0".into(),
        ));
    }
    if let Some((lo, hi)) = range {
        if !lo.is_finite() || !hi.is_finite() || lo >= hi {
            return Err(Error::InvalidArgument(format!(
                "histogram: range ({lo}, {hi}) must be finite with lo < hi"
            )));
        }
        return Ok((lo, hi));
    }
    if x.is_empty() {
        return Ok((0.0, 1.0));
    }
    let (lo, hi) = (x.min()?.item()?, x.max()?.item()?);
    if !lo.is_finite() || !hi.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "histogram: the data's range [{lo}, {hi}] is not finite (give a range)"
        )));
    }
    Ok(if lo == hi {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    })
}

/// The values a histogram reads: floats as they are, anything else as `f64`.
fn hist_values<T: Element>(a: &Array<T>) -> Result<Arc<Node>> {
    let d = T::DTYPE;
    if d.is_complex() {
        return Err(Error::InvalidArgument(format!(
            "histogram of {d} (complex values have no order)"
        )));
    }
    Ok(if d.is_float() {
        a.flatten()?.node
    } else {
        a.cast::<f64>().flatten()?.node
    })
}

impl<T: Element> Array<T> {
    fn histogram_call(
        &self,
        bins: usize,
        range: Option<(f64, f64)>,
        weights: Option<&Array<f64>>,
    ) -> Result<(Arc<Node>, Array<f64>, Vec<f64>)> {
        let x = hist_values(self)?;
        let (lo, hi) = hist_range(&self.cast::<f64>(), bins, range)?;
        let mut inputs = vec![x.clone()];
        if let Some(w) = weights {
            if w.shape() != self.shape() {
                return Err(Error::Shape(format!(
                    "histogram: weights of shape {:?} for values of shape {:?}",
                    w.shape(),
                    self.shape()
                )));
            }
            inputs.push(w.flatten()?.node);
        }
        let call = Histogram {
            dtype: x.dtype,
            mode: HistMode::Range,
            weighted: weights.is_some(),
            n: self.len(),
            bins,
            lo,
            hi,
        };
        let mut edges: Vec<f64> = crate::util::host_vec(
            bins.saturating_add(1),
            &format!("histogram: the edges of {bins} bins"),
        )?;
        edges.extend((0..=bins).map(|k| call.edge(k)));
        let edges_arr = Array::from_slice_on(self.device(), &edges, &[bins + 1])?;
        let out = if weights.is_some() {
            DType::F64
        } else {
            DType::I64
        };
        let node = Node::new(
            Op::Library(Arc::new(call), inputs),
            out,
            vec![bins],
            self.device(),
        );
        Ok((node, edges_arr, edges))
    }

    /// NumPy's `histogram(a, bins)`: the counts of the values in `bins` equal-width bins over
    /// the data's min and max (read back, a synchronisation; widened by 0.5 each side when
    /// they are equal; `[0, 1]` for no data) and the `bins + 1` edges. Bins are half-open
    /// except the last, which holds the maximum; NaN is not counted. Integer values are
    /// binned as `f64`. [`histogram_with`](Self::histogram_with) takes NumPy's `range`,
    /// `weights` and `density`.
    ///
    /// # Errors
    /// No bins, too many bins for memory, complex values, or data whose range is not finite.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 0.5, 1.0, 2.0, 4.0], &[5])?;
    /// let (counts, edges) = a.histogram(2)?;
    /// assert_eq!(counts.to_vec()?, [3, 2]);
    /// assert_eq!(edges.to_vec()?, [0.0, 2.0, 4.0]);
    /// assert!(a.histogram(0).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn histogram(&self, bins: usize) -> Result<(Array<i64>, Array<f64>)> {
        let (node, edges, _) = self.histogram_call(bins, None, None)?;
        Ok((Array::from_node(node), edges))
    }

    /// [`histogram`](Self::histogram) with NumPy's `range`, `weights` and `density`
    /// ([`HistogramOpts`]); the bins as `f64` (counts, weight sums, or densities). With a
    /// range, values outside it are not counted and the last bin holds `hi`. The density of
    /// bin `i` is `h[i] / (sum(h) · width[i])` (NaN when nothing was counted), so that it
    /// integrates to 1 over the range.
    ///
    /// # Errors
    /// As [`histogram`](Self::histogram), and a range that is not finite with `lo < hi` or
    /// weights of another shape than the values'.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, ops::HistogramOpts};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.1, 0.2, 0.9, 7.0], &[4])?;
    /// let w = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 4.0, 8.0], &[4])?;
    /// let (sums, edges) = a.histogram_with(2, HistogramOpts::new().range(0.0, 1.0).weights(&w))?;
    /// assert_eq!((sums.to_vec()?, edges.to_vec()?), (vec![3.0, 4.0], vec![0.0, 0.5, 1.0]));
    /// let dens = HistogramOpts::new().range(0.0, 1.0).weights(&w).density(true);
    /// assert_eq!(a.histogram_with(2, dens)?.0.to_vec()?, [6.0 / 7.0, 8.0 / 7.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn histogram_with(
        &self,
        bins: usize,
        opts: HistogramOpts<'_>,
    ) -> Result<(Array<f64>, Array<f64>)> {
        let (node, edges, e) = self.histogram_call(bins, opts.range, opts.weights)?;
        let h = if opts.weights.is_some() {
            Array::<f64>::from_node(node)
        } else {
            Array::<i64>::from_node(node).cast::<f64>()
        };
        if !opts.density {
            return Ok((h, edges));
        }
        // NumPy's `h / diff(edges) / h.sum()`, the widths from the edges as uploaded.
        let widths: Vec<f64> = e.windows(2).map(|w| w[1] - w[0]).collect();
        let widths = Array::from_slice_on(self.device(), &widths, &[bins])?;
        let total = h.sum()?;
        let d = h.try_div(&widths)?.try_div(&total)?;
        Ok((d, edges))
    }
}

impl<I: Integer> Array<I> {
    fn bincount_call(&self, minlength: usize, weights: Option<&Array<f64>>) -> Result<Arc<Node>> {
        if self.ndim() != 1 {
            return Err(Error::Shape(format!(
                "bincount takes a 1-D array, not shape {:?}",
                self.shape()
            )));
        }
        let x = self.cast::<i64>();
        let mut bins = minlength;
        // Values known to lie in `[0, minlength)` (argmin/argmax positions, say) need no
        // read-back: `minlength` bins hold them all, whatever their largest value is.
        let known = self
            .node
            .range()
            .is_some_and(|r| r.lo >= 0 && usize::try_from(r.hi).is_ok_and(|h| h < minlength));
        if !x.is_empty() && !known {
            let (lo, hi) = (x.min()?.item()?, x.max()?.item()?);
            let too_big =
                I::DTYPE == DType::U64 && self.cast::<u64>().max()?.item()? > i64::MAX as u64;
            if lo < 0 || too_big {
                return Err(Error::InvalidArgument(format!(
                    "bincount of negative values (the smallest is {lo}); values must be >= 0"
                )));
            }
            let need = usize::try_from(hi)
                .ok()
                .and_then(|h| h.checked_add(1))
                .ok_or_else(|| {
                    Error::InvalidArgument(format!("bincount: {hi} + 1 bins do not fit usize"))
                })?;
            bins = bins.max(need);
        }
        let mut inputs = vec![x.node.clone()];
        if let Some(w) = weights {
            if w.shape() != self.shape() {
                return Err(Error::Shape(format!(
                    "bincount: weights of shape {:?} for values of shape {:?}",
                    w.shape(),
                    self.shape()
                )));
            }
            inputs.push(w.node.clone());
        }
        crate::shape::checked_numel(&[bins, 8])?;
        let call = Histogram {
            dtype: DType::I64,
            mode: HistMode::Int,
            weighted: weights.is_some(),
            n: self.len(),
            bins,
            lo: 0.0,
            hi: 0.0,
        };
        let out = if weights.is_some() {
            DType::F64
        } else {
            DType::I64
        };
        Ok(Node::new(
            Op::Library(Arc::new(call), inputs),
            out,
            vec![bins],
            self.device(),
        ))
    }

    /// NumPy's `bincount`: how often each value `0..=max` occurs in a 1-D array of values
    /// `>= 0`, at least `minlength` bins. Reads the values' min and max back (a
    /// synchronisation); a negative value is an `Err` naming it.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[1, 3, 1], &[3])?;
    /// assert_eq!(a.bincount(0)?.to_vec()?, [0, 2, 0, 1]);
    /// assert_eq!(a.bincount(6)?.to_vec()?, [0, 2, 0, 1, 0, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn bincount(&self, minlength: usize) -> Result<Array<i64>> {
        Ok(Array::from_node(self.bincount_call(minlength, None)?))
    }

    /// [`bincount`](Self::bincount) summing `weights` (the values' shape) per value.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i64>::from_slice_on(Device::CPU, &[0, 2, 0], &[3])?;
    /// let w = Array::<f64>::from_slice_on(Device::CPU, &[0.5, 1.0, 2.0], &[3])?;
    /// assert_eq!(a.bincount_weighted(&w, 0)?.to_vec()?, [2.5, 0.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn bincount_weighted(&self, weights: &Array<f64>, minlength: usize) -> Result<Array<f64>> {
        Ok(Array::from_node(
            self.bincount_call(minlength, Some(weights))?,
        ))
    }
}

impl<T: Numeric + Ordered> Array<T> {
    /// Peak to peak, `max - min`, of all elements (NumPy's `ptp`; integers wrap as NumPy's do).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[4, 9, 2, 7], &[2, 2])?;
    /// assert_eq!(a.ptp()?.item()?, 7);
    /// assert_eq!(a.ptp_axes(&[0])?.to_vec()?, [2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ptp(&self) -> Result<Array<T>> {
        self.max()?.try_sub(&self.min()?)
    }

    /// `max - min` along `axes`.
    pub fn ptp_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.ptp_axes_with(axes, ReduceOpts::new())
    }
    /// [`ptp_axes`](Self::ptp_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn ptp_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        let keepdims = opts.keepdims;
        self.max_axes_with(axes, ReduceOpts::new().keepdims(keepdims))?
            .try_sub(&self.min_axes_with(axes, ReduceOpts::new().keepdims(keepdims))?)
    }
}

impl<T: Float + Transcendental> Array<T> {
    /// NumPy's `average` with its defaults: the mean of all elements (an axis and weights
    /// through [`average_with`](Self::average_with)).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.average()?.item()?, 2.5);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn average(&self) -> Result<Array<T>> {
        self.average_with(AverageOpts::new())
    }

    /// NumPy's `average`: `sum(x * w) / sum(w)` along the options' axis (all elements when
    /// none), the mean without weights. The weights have the values' shape, or (with an axis)
    /// the shape `[n]` of that axis. Weights summing to zero are an `Err` (read back: a
    /// synchronisation).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, ops::AverageOpts};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let w = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 1.0], &[2])?;
    /// assert_eq!(a.average_with(AverageOpts::new().axis(1).weights(&w))?.to_vec()?, [1.25, 3.25]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn average_with(&self, opts: AverageOpts<'_, T>) -> Result<Array<T>> {
        let (axis, weights) = (opts.axis, opts.weights);
        let axes: Vec<isize> = match axis {
            Some(a) => vec![crate::shape::axis(a, self.ndim())? as isize],
            None => (0..self.ndim() as isize).collect(),
        };
        let Some(w) = weights else {
            return Ok(self.mean_axes(&axes)?.cast::<T>());
        };
        let w = if w.shape() == self.shape() {
            w.clone()
        } else if let (Some(a), [n]) = (axis, w.shape()) {
            let ax = crate::shape::axis(a, self.ndim())?;
            if *n != self.shape()[ax] {
                return Err(Error::Shape(format!(
                    "average: weights of length {n} along axis {ax} of length {}",
                    self.shape()[ax]
                )));
            }
            let mut s = vec![1; self.ndim()];
            s[ax] = *n;
            w.reshape(&s)?.broadcast_to(self.shape())?
        } else {
            return Err(Error::Shape(format!(
                "average: weights of shape {:?} for values of shape {:?} (axis {axis:?})",
                w.shape(),
                self.shape()
            )));
        };
        let ws = w.sum_axes(&axes)?;
        if ws.cast::<f64>().equal(0.0).any()?.item()? {
            return Err(Error::InvalidArgument(
                "average: the weights sum to zero".into(),
            ));
        }
        let num = self.try_mul(&w)?.sum_axes(&axes)?;
        Ok(num.cast::<f64>().try_div(ws.cast::<f64>())?.cast::<T>())
    }

    /// NumPy's `cov` with its defaults: the covariance matrix of variables that are the rows
    /// of a 2-D array (a 1-D array is one variable: a 0-d result), normalised by `N - 1`
    /// (`N <= 1` divides by zero, giving inf/NaN as NumPy does). One centring pass and one
    /// matrix product. [`cov_with`](Self::cov_with) takes NumPy's other arguments (`y`,
    /// `rowvar`, `bias`, `ddof`, weights) as a [`Cov`](crate::ops::Cov).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 1.0, 2.0, 2.0, 1.0, 0.0], &[2, 3])?;
    /// assert_eq!(a.cov()?.to_vec()?, [1.0, -1.0, -1.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cov(&self) -> Result<Array<T>> {
        self.cov_rows(true, 1)
    }

    /// The covariance of the rows (`rowvar`) or columns, normalised by `N - ddof`.
    fn cov_rows(&self, rowvar: bool, ddof: usize) -> Result<Array<T>> {
        let x = match self.ndim() {
            1 => self.reshape(&[1, self.len()])?,
            2 if rowvar => self.clone(),
            2 => self.t(),
            _ => {
                return Err(Error::Shape(format!(
                    "cov takes a 1-D or 2-D array, not shape {:?}",
                    self.shape()
                )));
            }
        };
        let n = x.shape()[1];
        let mean = x
            .mean_axes_with(&[1], ReduceOpts::new().keepdims(true))?
            .cast::<T>();
        let xc = x.try_sub(&mean)?;
        xc.eval()?;
        let fact = n.saturating_sub(ddof) as f64;
        let c = xc.matmul(&xc.t())?;
        let c = c.try_div(T::from_scalar(Scalar::F64(fact)))?;
        if self.ndim() == 1 {
            c.reshape(&[0usize; 0])
        } else {
            Ok(c)
        }
    }

    /// NumPy's `corrcoef` with its defaults (each row a variable): the covariance matrix
    /// normalised by the standard deviations, clipped to `[-1, 1]`.
    /// [`corrcoef_with`](Self::corrcoef_with) takes NumPy's other arguments.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 6.0, 4.0, 2.0], &[2, 3])?;
    /// assert_eq!(a.corrcoef()?.to_vec()?, [1.0, -1.0, -1.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn corrcoef(&self) -> Result<Array<T>> {
        let c = self.cov_rows(true, 1)?;
        if c.ndim() == 0 {
            return c.try_div(&c);
        }
        c.eval()?;
        let v = c.shape()[0];
        let sd = c.diag()?.sqrt();
        let r = c
            .try_div(&sd.reshape(&[v, 1])?)?
            .try_div(&sd.reshape(&[1, v])?)?;
        Ok(r.clamp(
            T::from_scalar(Scalar::F64(-1.0)),
            T::from_scalar(Scalar::F64(1.0)),
        ))
    }
}
