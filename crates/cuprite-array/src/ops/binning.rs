//! Histograms with explicit edges in one or more dimensions (NumPy's `histogram(x, bins=edges)`,
//! `histogram2d`, `histogramdd`) and quantiles at several `q` at once. Bins are found by a
//! binary search (a library call), combined by fused index arithmetic, and counted by
//! `bincount`.

use crate::array::Array;
use crate::dtype::{Element, Ordered};
use crate::error::{Error, Result};
use crate::ops::scan::Side;
use crate::ops::sort::QuantileOpts;

/// The bin of each value of `x` in increasing `edges` (NumPy's rule: half-open bins, the last
/// closed), and whether it lies inside the edges at all (NaN does not).
fn bin_of(x: &Array<f64>, edges: &Array<f64>) -> Result<(Array<i64>, Array<bool>)> {
    let nb = edges.len();
    if edges.ndim() != 1 || nb < 2 {
        return Err(Error::Shape(format!(
            "histogram edges must be 1-D with at least 2 values, got shape {:?}",
            edges.shape()
        )));
    }
    let lo = edges.slice(&crate::ops::stacking::along(1, 0, 0, nb - 1))?;
    let hi = edges.slice(&crate::ops::stacking::along(1, 0, 1, nb))?;
    if !hi.greater_equal(&lo).all()?.item()? {
        return Err(Error::InvalidArgument(
            "histogram edges must increase monotonically".into(),
        ));
    }
    let first = edges
        .slice(&crate::ops::stacking::along(1, 0, 0, 1))?
        .reshape(&[0usize; 0])?;
    let last = edges
        .slice(&crate::ops::stacking::along(1, 0, nb - 1, nb))?
        .reshape(&[0usize; 0])?;
    let i = edges.searchsorted(x, Side::Right)? - 1i64;
    let i = Array::select(&x.equal(&last), (nb - 2) as i64, &i)?;
    let inside = x.greater_equal(&first).and(x.less_equal(&last));
    Ok((i, inside))
}

impl<T: Element> Array<T> {
    /// The counts of the values (binned as `f64`) in the bins between increasing `edges`:
    /// half-open except the last, values outside and NaN not counted (NumPy's `histogram`
    /// with an array of bins).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[0.5f32, 1.0, 2.5, 3.0, 9.0], &[5])?;
    /// let e = Array::from_slice(&[0.0f64, 1.0, 2.0, 3.0], &[4])?;
    /// assert_eq!(a.histogram_edges(&e)?.to_vec()?, vec![1, 1, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn histogram_edges(&self, edges: &Array<f64>) -> Result<Array<i64>> {
        histogramdd(&[&self.flatten()?.cast::<f64>()], &[edges])
    }
}

/// The counts of points `(x[i], y[i])` in the grid of bins between `xedges` and `yedges`
/// (NumPy's `histogram2d` with arrays of bins), shape `[len(xedges) - 1, len(yedges) - 1]`.
///
/// ```
/// use cuprite_array::{Array, ops::histogram2d};
/// let x = Array::from_slice(&[0.5f64, 1.5, 1.5], &[3])?;
/// let y = Array::from_slice(&[0.5f64, 0.5, 1.5], &[3])?;
/// let e = Array::from_slice(&[0.0f64, 1.0, 2.0], &[3])?;
/// assert_eq!(histogram2d(&x, &y, &e, &e)?.to_vec()?, vec![1, 0, 1, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn histogram2d(
    x: &Array<f64>,
    y: &Array<f64>,
    xedges: &Array<f64>,
    yedges: &Array<f64>,
) -> Result<Array<i64>> {
    histogramdd(&[x, y], &[xedges, yedges])
}

/// The counts of `D`-dimensional points, coordinate `d` of every point in `coords[d]` (1-D,
/// one length), in the grid of bins between `edges[d]` (NumPy's `histogramdd` with arrays of
/// bins, its sample transposed).
///
/// ```
/// use cuprite_array::{Array, ops::histogramdd};
/// let x = Array::from_slice(&[0.5f64, 1.5], &[2])?;
/// let e = Array::from_slice(&[0.0f64, 1.0, 2.0], &[3])?;
/// assert_eq!(histogramdd(&[&x, &x, &x], &[&e, &e, &e])?.shape(), &[2, 2, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn histogramdd(coords: &[&Array<f64>], edges: &[&Array<f64>]) -> Result<Array<i64>> {
    if coords.is_empty() || coords.len() != edges.len() {
        return Err(Error::Shape(format!(
            "histogramdd: {} coordinate arrays and {} edge arrays",
            coords.len(),
            edges.len()
        )));
    }
    let n = coords[0].len();
    if let Some(c) = coords.iter().find(|c| c.ndim() != 1 || c.len() != n) {
        return Err(Error::Shape(format!(
            "histogramdd needs 1-D coordinates of one length: {:?} and {:?}",
            coords[0].shape(),
            c.shape()
        )));
    }
    let shape: Vec<usize> = edges.iter().map(|e| e.len().saturating_sub(1)).collect();
    let total = crate::shape::checked_numel(&shape)?;
    let mut flat = Array::<i64>::zeros(&[n]).to_device(coords[0].device())?;
    let mut inside = Array::full(&[n], true).to_device(coords[0].device())?;
    for ((c, e), &s) in coords.iter().zip(edges).zip(&shape) {
        let (i, ok) = bin_of(c, e)?;
        flat = (&flat * s as i64).try_add(&i)?;
        inside = inside.and(&ok);
    }
    // Points outside go to one extra bin, dropped after counting.
    let flat = Array::select(&inside, &flat, total as i64)?;
    let counts = flat.bincount(total + 1)?;
    counts
        .slice(&crate::ops::stacking::along(1, 0, 0, total))?
        .reshape(&shape)
}

impl<T: Ordered> Array<T> {
    /// [`quantile`](Self::quantile) at each of `qs`, stacked along a new first axis (NumPy's
    /// `quantile` with an array of `q`).
    ///
    /// ```
    /// use cuprite_array::{Array, QuantileMethod};
    /// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5])?;
    /// let q = a.quantiles(&[0.0, 0.5, 0.9])?;
    /// assert_eq!(q.to_vec()?, vec![1.0, 3.0, 4.6]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn quantiles(&self, qs: &[f64]) -> Result<Array<T::Mean>> {
        self.quantiles_with(qs, QuantileOpts::new())
    }
    /// [`quantiles`](Self::quantiles) with NumPy's `axis` and `method` ([`QuantileOpts`]).
    pub fn quantiles_with(&self, qs: &[f64], opts: QuantileOpts) -> Result<Array<T::Mean>> {
        let parts: Vec<Array<T::Mean>> = qs
            .iter()
            .map(|&q| self.quantile_with(q, opts))
            .collect::<Result<_>>()?;
        Array::stack(&parts.iter().collect::<Vec<_>>(), 0)
    }

    /// [`percentile`](Self::percentile) at each of `ps` (in `[0, 100]`), stacked along a new
    /// first axis.
    ///
    /// ```
    /// use cuprite_array::{Array, QuantileMethod};
    /// use cuprite_array::ops::QuantileOpts;
    /// let a = Array::from_slice(&[0.0f64, 10.0], &[2])?;
    /// assert_eq!(a.percentiles_with(&[25.0, 50.0], QuantileOpts::new().method(QuantileMethod::Lower))?.to_vec()?, vec![0.0, 0.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn percentiles(&self, ps: &[f64]) -> Result<Array<T::Mean>> {
        self.percentiles_with(ps, QuantileOpts::new())
    }
    /// [`percentiles`](Self::percentiles) with NumPy's `axis` and `method` ([`QuantileOpts`]).
    pub fn percentiles_with(&self, ps: &[f64], opts: QuantileOpts) -> Result<Array<T::Mean>> {
        let parts: Vec<Array<T::Mean>> = ps
            .iter()
            .map(|&p| self.percentile_with(p, opts))
            .collect::<Result<_>>()?;
        Array::stack(&parts.iter().collect::<Vec<_>>(), 0)
    }
}
