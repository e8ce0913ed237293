//! SciPy's per-label measurements (`sum_labels`, `mean`, `variance`, `minimum`, `maximum`,
//! `center_of_mass`, `histogram`): the values grouped by label with the crate's scatter
//! reductions (one bin a label value between the smallest and the largest label), then the
//! bins of the labels in `index` gathered. A label of `index` with no element gives a count of
//! 0: its sum 0, its mean and variance NaN, its minimum and maximum 0.

use crate::array::Array;
use crate::dtype::{Integer, Numeric};
use crate::error::{Error, Result};
use crate::ops::TakeOpts;
use crate::shape::SliceArg;

/// The most label values (largest minus smallest plus one) the bins cover.
const MAX_BINS: i64 = 1 << 28;

/// The labels as bin positions (`label - lo`, flat, broadcast to the input's shape), the bin
/// count, and the positions of `index` among the bins (clamped into them) with whether each
/// lies among them.
pub(super) struct Bins {
    pub(super) pos: Array<i64>,
    pub(super) bins: usize,
    pub(super) at: Array<i64>,
    pub(super) found: Array<bool>,
}

/// [`Bins`] of `labels` for an input of `shape` on `dev`; `what` names the caller in errors.
pub(super) fn label_bins<L: Integer>(
    what: &str,
    shape: &[usize],
    dev: crate::Device,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Bins> {
    let n: usize = shape.iter().product();
    let l = labels.broadcast_to(shape).map_err(|_| {
        Error::InvalidArgument(format!(
            "{what}: labels of shape {:?} do not broadcast to the input's {shape:?}",
            labels.shape()
        ))
    })?;
    let l = l.cast::<i64>().contiguous()?.reshape(&[n])?;
    let (lo, hi) = if n == 0 {
        (0, 0)
    } else {
        (l.min()?.item()?, l.max()?.item()?)
    };
    let span = hi
        .checked_sub(lo)
        .and_then(|s| s.checked_add(1))
        .unwrap_or(i64::MAX);
    if span > MAX_BINS {
        return Err(Error::InvalidArgument(format!(
            "{what}: labels from {lo} to {hi} span over {MAX_BINS} values"
        )));
    }
    let at: Vec<i64> = index
        .iter()
        .map(|&i| (i.saturating_sub(lo)).clamp(0, span - 1))
        .collect();
    let found: Vec<bool> = index.iter().map(|&i| i >= lo && i <= hi && n > 0).collect();
    Ok(Bins {
        pos: l.try_sub(lo)?,
        bins: span as usize,
        at: Array::from_slice_on(dev, &at, &[at.len()])?,
        found: Array::from_slice_on(dev, &found, &[found.len()])?,
    })
}

/// The values as `f64`, flat, beside the [`Bins`] of their labels.
struct Groups {
    x: Array<f64>,
    pos: Array<i64>,
    bins: usize,
    at: Array<i64>,
    found: Array<bool>,
}

fn groups<T: Numeric, L: Integer>(
    what: &str,
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Groups> {
    let shape = x.shape().to_vec();
    let n: usize = shape.iter().product();
    let b = label_bins(what, &shape, x.device(), labels, index)?;
    Ok(Groups {
        x: x.cast::<f64>().contiguous()?.reshape(&[n])?,
        pos: b.pos,
        bins: b.bins,
        at: b.at,
        found: b.found,
    })
}

impl Groups {
    fn zeros(&self) -> Array<f64> {
        crate::with_device(self.x.device(), || Array::<f64>::zeros(&[self.bins]))
    }
    /// The per-label sums of `v` at the labels of `index` (0 where not found).
    fn sum_of(&self, v: &Array<f64>) -> Result<Array<f64>> {
        let s = self
            .zeros()
            .scatter_add(0, &self.pos, v, Default::default())?;
        Array::select(
            &self.found,
            &s.take_with(&self.at, TakeOpts::new().axis(0))?,
            0.0,
        )
    }
    fn count(&self) -> Result<Array<f64>> {
        self.sum_of(&Array::<f64>::ones_like(&self.x))
    }
}

/// SciPy's `sum_labels`: the sum of the values of each label in `index` (labels broadcast to
/// the input's shape).
///
/// ```
/// use cuprite_array::{Array, image::sum_labels};
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let l = Array::from_slice(&[1i32, 1, 0, 2], &[2, 2])?;
/// assert_eq!(sum_labels(&x, &l, &[0, 1, 2, 5])?.to_vec()?, [3.0, 3.0, 4.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sum_labels<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    let g = groups("sum_labels", x, labels, index)?;
    g.sum_of(&g.x)
}

/// SciPy's `mean` per label.
///
/// ```
/// use cuprite_array::{Array, image::mean};
/// let x = Array::from_slice(&[1u8, 2, 3, 6], &[4])?;
/// let l = Array::from_slice(&[1i64, 1, 2, 2], &[4])?;
/// assert_eq!(mean(&x, &l, &[1, 2])?.to_vec()?, [1.5, 4.5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn mean<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    let g = groups("mean", x, labels, index)?;
    g.sum_of(&g.x)?.try_div(&g.count()?)
}

/// SciPy's `variance` per label (the population variance: squared deviations from the
/// label's mean, over its count).
///
/// ```
/// use cuprite_array::{Array, image::variance};
/// let x = Array::from_slice(&[1.0f64, 3.0, 5.0, 5.0], &[4])?;
/// let l = Array::from_slice(&[1i32, 1, 2, 2], &[4])?;
/// assert_eq!(variance(&x, &l, &[1, 2])?.to_vec()?, [1.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn variance<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    let g = groups("variance", x, labels, index)?;
    let sums = g.zeros().scatter_add(0, &g.pos, &g.x, Default::default())?;
    let counts = g.zeros().scatter_add(
        0,
        &g.pos,
        &Array::<f64>::ones_like(&g.x),
        Default::default(),
    )?;
    let means = sums.try_div(&counts)?;
    let dev =
        g.x.try_sub(&means.take_with(&g.pos, TakeOpts::new().axis(0))?)?;
    let ss = g.sum_of(&dev.try_mul(&dev)?)?;
    ss.try_div(&g.count()?)
}

/// SciPy's `standard_deviation` per label: the square root of [`variance`].
///
/// ```
/// use cuprite_array::{Array, image::standard_deviation};
/// let x = Array::from_slice(&[1.0f32, 5.0, 2.0, 2.0], &[4])?;
/// let l = Array::from_slice(&[1i32, 1, 2, 2], &[4])?;
/// assert_eq!(standard_deviation(&x, &l, &[1, 2])?.to_vec()?, [2.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn standard_deviation<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    Ok(variance(x, labels, index)?.sqrt())
}

/// The minimum (`max` false) or maximum of each label of `index`, 0 where it has no element.
fn extreme<T: Numeric, L: Integer>(
    what: &str,
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
    max: bool,
) -> Result<Array<f64>> {
    let g = groups(what, x, labels, index)?;
    let init = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let base = crate::with_device(g.x.device(), || Array::<f64>::full(&[g.bins], init));
    let e = if max {
        base.scatter_max(0, &g.pos, &g.x, Default::default())?
    } else {
        base.scatter_min(0, &g.pos, &g.x, Default::default())?
    };
    let has = g.count()?.greater(0.0);
    Array::select(&has, &e.take_with(&g.at, TakeOpts::new().axis(0))?, 0.0)
}

/// SciPy's `minimum` per label (as `f64`).
///
/// ```
/// use cuprite_array::{Array, image::minimum};
/// let x = Array::from_slice(&[4u16, 2, 9, 7], &[4])?;
/// let l = Array::from_slice(&[1u8, 1, 2, 2], &[4])?;
/// assert_eq!(minimum(&x, &l, &[1, 2, 3])?.to_vec()?, [2.0, 7.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minimum<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    extreme("minimum", x, labels, index, false)
}

/// SciPy's `maximum` per label (as `f64`).
///
/// ```
/// use cuprite_array::{Array, image::maximum};
/// let x = Array::from_slice(&[4.0f32, 2.0, 9.0, 7.0], &[4])?;
/// let l = Array::from_slice(&[1i32, 1, 2, 2], &[4])?;
/// assert_eq!(maximum(&x, &l, &[2, 1])?.to_vec()?, [9.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn maximum<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    extreme("maximum", x, labels, index, true)
}

/// SciPy's `center_of_mass` per label: `[index.len(), rank]`, the value-weighted mean
/// coordinate along each axis.
///
/// ```
/// use cuprite_array::{Array, image::center_of_mass};
/// let x = Array::from_slice(&[0.0f64, 1.0, 0.0, 0.0, 1.0, 3.0], &[2, 3])?;
/// let l = Array::from_slice(&[1i32; 6], &[2, 3])?;
/// assert_eq!(center_of_mass(&x, &l, &[1])?.to_vec()?, [0.8, 1.6]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn center_of_mass<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    let g = groups("center_of_mass", x, labels, index)?;
    let shape = x.shape().to_vec();
    let norm = g.sum_of(&g.x)?;
    let dev = x.device();
    let mut cols = Vec::with_capacity(shape.len());
    for (a, &m) in shape.iter().enumerate() {
        let mut s = vec![1usize; shape.len()];
        s[a] = m;
        let c: Vec<f64> = (0..m).map(|i| i as f64).collect();
        let coord = Array::from_slice_on(dev, &c, &s)?
            .broadcast_to(&shape)?
            .contiguous()?
            .reshape(&[g.x.len()])?;
        cols.push(g.sum_of(&g.x.try_mul(&coord)?)?.try_div(&norm)?);
    }
    if cols.is_empty() {
        return Ok(crate::with_device(dev, || {
            Array::<f64>::zeros(&[index.len(), 0])
        }));
    }
    Array::stack(&cols.iter().collect::<Vec<_>>(), 1)
}

/// SciPy's `histogram` per label: `[index.len(), bins]` counts of the values in `bins` equal
/// bins over `[min, max]` (the last bin closed; values outside are not counted).
///
/// ```
/// use cuprite_array::{Array, image::histogram};
/// let x = Array::from_slice(&[0.1f32, 0.6, 0.7, 0.2, 1.0, 5.0], &[6])?;
/// let l = Array::from_slice(&[1i32, 1, 1, 2, 2, 2], &[6])?;
/// assert_eq!(histogram(&x, 0.0, 1.0, 2, &l, &[1, 2])?.to_vec()?, [1, 2, 1, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn histogram<T: Numeric, L: Integer>(
    x: &Array<T>,
    min: f64,
    max: f64,
    bins: usize,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<i64>> {
    if bins == 0 || min >= max || !min.is_finite() || !max.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "histogram: {bins} bins over [{min}, {max}] (at least one bin, finite min < max)"
        )));
    }
    let g = groups("histogram", x, labels, index)?;
    let total = g
        .bins
        .checked_mul(bins)
        .filter(|&t| t < i64::MAX as usize)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "histogram: {} labels x {bins} bins overflow",
                g.bins
            ))
        })?;
    // The bin of each value, `bins` (the last one) for `max` itself; values outside go to a
    // spare slot past the end.
    let scale = bins as f64 / (max - min);
    let b =
        g.x.try_sub(min)?
            .try_mul(scale)?
            .floor()
            .minimum(bins as f64 - 1.0)
            .cast::<i64>();
    let inside = g.x.greater_equal(min).try_and(g.x.less_equal(max))?;
    let key = g.pos.try_mul(bins as i64)?.try_add(&b)?;
    let key = Array::select(&inside, &key, total as i64)?;
    let base = crate::with_device(g.x.device(), || Array::<i64>::zeros(&[total + 1]));
    let ones = Array::<i64>::ones_like(&key);
    let counts = base.scatter_add(0, &key, &ones, Default::default())?;
    let head = SliceArg::Range {
        start: Some(0),
        end: Some(total as isize),
        step: 1,
    };
    let per = counts.slice(&[head])?.reshape(&[g.bins, bins])?;
    let rows = per.take_with(&g.at, TakeOpts::new().axis(0))?;
    let f = g.found.reshape(&[index.len(), 1])?;
    Array::select(&f, &rows, 0i64)
}
