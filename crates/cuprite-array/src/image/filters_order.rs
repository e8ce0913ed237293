//! SciPy's order-statistic filters: `rank_filter`, `median_filter`, `percentile_filter`,
//! `minimum_filter`, `maximum_filter` and the 1-d minimum and maximum, over a box (`size`) or
//! any footprint.

use super::filters::FilterOpts;
use super::filters_elem::ImageElement;
use super::filters_plan::{Placed, centre, norm_axes, per_axis, rank_nd};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::shape::{axis, checked_numel};

/// The most values a box window takes (or, for the minimum and maximum of a box, which
/// filter one axis at a time, the longest side).
const WINDOW_MAX: usize = 1 << 24;

/// The window of an order-statistic filter: a box of sizes (SciPy's `size`: one value for
/// every filtered axis, or one per axis) or a footprint (SciPy's `footprint`: a boolean mask
/// with one axis per filtered axis). A box takes at most 2^24 values (for the minimum and
/// maximum filters, which filter a box one axis at a time, at most 2^24 a side): a filter
/// over a larger one is an `Err` naming its sizes.
///
/// ```
/// use cuprite_array::image::FilterWindow;
/// let cross = FilterWindow::new(&[false, true, false, true, true, true, false, true, false], &[3, 3])?;
/// assert_eq!(cross.count(), 5);
/// assert_eq!(FilterWindow::size(&[3, 5]).count(), 15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterWindow {
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Size(Vec<usize>),
    Mask(Vec<bool>, Vec<usize>),
}

impl FilterWindow {
    /// A box of `size` values along each filtered axis (one value: every axis).
    #[must_use]
    pub fn size(size: &[usize]) -> FilterWindow {
        FilterWindow {
            kind: Kind::Size(size.to_vec()),
        }
    }

    /// The footprint `mask` of `shape` (row-major).
    ///
    /// # Errors
    /// A mask whose length is not the shape's product, or one with no `true` element (SciPy
    /// refuses an all-zero footprint).
    pub fn new(mask: &[bool], shape: &[usize]) -> Result<FilterWindow> {
        if checked_numel(shape)? != mask.len() || !mask.contains(&true) {
            return Err(Error::InvalidArgument(format!(
                "a footprint of shape {shape:?} needs that many elements (given {}) and at least \
                 one true element ({} true)",
                mask.len(),
                mask.iter().filter(|&&b| b).count()
            )));
        }
        Ok(FilterWindow {
            kind: Kind::Mask(mask.to_vec(), shape.to_vec()),
        })
    }

    /// The number of values the window takes (for a size of one value, along one axis),
    /// `usize::MAX` where that count does not fit.
    #[must_use]
    pub fn count(&self) -> usize {
        match &self.kind {
            Kind::Size(s) => s.iter().fold(1usize, |a, &m| a.saturating_mul(m)),
            Kind::Mask(m, _) => m.iter().filter(|&&b| b).count(),
        }
    }

    /// The mask and its extents over `n` filtered axes. A box filtered one axis at a time
    /// (`separable`) takes a mask of its longest side, each side at most [`WINDOW_MAX`]; any
    /// other box a mask of its every element, at most [`WINDOW_MAX`] of them.
    pub(super) fn resolve(
        &self,
        what: &str,
        n: usize,
        separable: bool,
    ) -> Result<(Vec<bool>, Vec<usize>)> {
        match &self.kind {
            Kind::Size(s) => {
                let s = per_axis(what, "size", s, n, 1)?;
                if self.is_empty_size() || s.contains(&0) {
                    return Err(Error::InvalidArgument(format!(
                        "{what}: filter sizes {s:?} (each at least 1)"
                    )));
                }
                let len = if separable {
                    s.iter().copied().max().unwrap_or(1)
                } else {
                    s.iter()
                        .try_fold(1usize, |a, &m| a.checked_mul(m))
                        .unwrap_or(usize::MAX)
                };
                if len > WINDOW_MAX {
                    let of = if separable { "a side" } else { "elements" };
                    return Err(Error::InvalidArgument(format!(
                        "{what}: filter sizes {s:?} give a window of more than 2^24 {of}"
                    )));
                }
                Ok((vec![true; len], s))
            }
            Kind::Mask(m, shape) => {
                if shape.len() != n {
                    return Err(Error::Shape(format!(
                        "{what}: a footprint of shape {shape:?} for {n} filtered axes"
                    )));
                }
                Ok((m.clone(), shape.clone()))
            }
        }
    }

    fn is_empty_size(&self) -> bool {
        matches!(&self.kind, Kind::Size(s) if s.is_empty())
    }
}

/// Which value of the window a filter takes.
#[derive(Clone, Copy, Debug)]
enum Pick {
    Rank(isize),
    Median,
    Percentile(f64),
    Min,
    Max,
}

/// SciPy's rank of `pick` among `k` values, or an `Err` naming it.
fn rank_of(what: &str, pick: Pick, k: usize) -> Result<usize> {
    let r = match pick {
        Pick::Min => 0,
        Pick::Max => k as isize - 1,
        Pick::Median => (k / 2) as isize,
        Pick::Rank(r) => {
            if r < 0 {
                r + k as isize
            } else {
                r
            }
        }
        Pick::Percentile(p) => {
            let p = if p < 0.0 { p + 100.0 } else { p };
            if !(0.0..=100.0).contains(&p) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: percentile {p} (it must lie in [-100, 100])"
                )));
            }
            if p == 100.0 {
                k as isize - 1
            } else {
                (k as f64 * p / 100.0) as isize
            }
        }
    };
    if r < 0 || r as usize >= k {
        return Err(Error::InvalidArgument(format!(
            "{what}: rank {pick:?} is outside a window of {k} values"
        )));
    }
    Ok(r as usize)
}

/// The filter `pick` of `x` over `fp` with `opts`.
fn order_filter<T: ImageElement>(
    what: &str,
    x: &Array<T>,
    pick: Pick,
    fp: &FilterWindow,
    opts: &FilterOpts,
) -> Result<Array<T>> {
    let axes = norm_axes(what, opts.axes.as_deref(), x.ndim())?;
    // A box's minimum or maximum is separable: 1-d passes along each axis in turn, as SciPy.
    let separable = matches!(fp.kind, Kind::Size(_)) && matches!(pick, Pick::Min | Pick::Max);
    let (mask, m) = fp.resolve(what, axes.len(), separable)?;
    let origins = per_axis(what, "origin", &opts.origin, axes.len(), 0)?;
    let c = m
        .iter()
        .zip(&origins)
        .map(|(&mm, &o)| centre(what, mm, o))
        .collect::<Result<Vec<_>>>()?;
    if separable {
        let mut y = x.clone();
        for (i, &a) in axes.iter().enumerate() {
            if m[i] > 1 {
                let fp1 = Placed {
                    mask: &mask[..m[i]],
                    m: &m[i..=i],
                    c: &c[i..=i],
                };
                let r1 = if matches!(pick, Pick::Min) {
                    0
                } else {
                    m[i] - 1
                };
                y = rank_nd(what, &y, &fp1, &[a], r1, opts.boundary)?;
            }
        }
        return Ok(y);
    }
    let k = mask.iter().filter(|&&b| b).count();
    let r = rank_of(what, pick, k)?;
    let placed = Placed {
        mask: &mask,
        m: &m,
        c: &c,
    };
    rank_nd(what, x, &placed, &axes, r, opts.boundary)
}

/// SciPy's `rank_filter`: the value of rank `rank` (0 the smallest; negative counts from the
/// largest) among the window's values, with the default options.
///
/// # Errors
/// A rank outside the window, a zero size, a box of more than 2^24 values, a footprint of
/// another rank than the filtered axes, an origin outside the window, or more than three axes
/// where the window is longer than 1.
///
/// ```
/// use cuprite_array::{Array, image::{FilterWindow, rank_filter}};
/// let x = Array::from_slice(&[5u8, 1, 4, 2, 3], &[5])?;
/// // The second smallest of each three neighbours (reflected at the ends).
/// assert_eq!(rank_filter(&x, 1, &FilterWindow::size(&[3]))?.to_vec()?, [5, 4, 2, 3, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn rank_filter<T: ImageElement>(
    x: &Array<T>,
    rank: isize,
    fp: &FilterWindow,
) -> Result<Array<T>> {
    rank_filter_with(x, rank, fp, FilterOpts::new())
}

/// [`rank_filter`] with options (boundary, origins, filtered axes). A constant boundary's
/// value is taken in `x`'s type, as SciPy does.
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, FilterWindow, rank_filter_with}};
/// let x = Array::from_slice(&[5.0f32, 1.0, 4.0], &[3])?;
/// let o = FilterOpts::new().boundary(Boundary::Constant(9.0));
/// assert_eq!(rank_filter_with(&x, -1, &FilterWindow::size(&[3]), o)?.to_vec()?, [9.0, 5.0, 9.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn rank_filter_with<T: ImageElement>(
    x: &Array<T>,
    rank: isize,
    fp: &FilterWindow,
    opts: FilterOpts,
) -> Result<Array<T>> {
    order_filter("rank_filter", x, Pick::Rank(rank), fp, &opts)
}

/// SciPy's `median_filter`: the value of rank `count / 2` of the window (the upper median of
/// an even count).
///
/// ```
/// use cuprite_array::{Array, image::{FilterWindow, median_filter}};
/// let x = Array::from_slice(&[1.0f64, 9.0, 2.0, 3.0, 8.0, 4.0], &[6])?;
/// assert_eq!(median_filter(&x, &FilterWindow::size(&[3]))?.to_vec()?, [1.0, 2.0, 3.0, 3.0, 4.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn median_filter<T: ImageElement>(x: &Array<T>, fp: &FilterWindow) -> Result<Array<T>> {
    median_filter_with(x, fp, FilterOpts::new())
}

/// [`median_filter`] with options (as [`rank_filter_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, FilterWindow, median_filter_with}};
/// // Two rows filtered on their own.
/// let x = Array::from_slice(&[3u16, 1, 2, 9, 7, 8], &[2, 3])?;
/// let y = median_filter_with(&x, &FilterWindow::size(&[3]), FilterOpts::new().axes(&[1]))?;
/// assert_eq!(y.to_vec()?, [3, 2, 2, 9, 8, 8]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn median_filter_with<T: ImageElement>(
    x: &Array<T>,
    fp: &FilterWindow,
    opts: FilterOpts,
) -> Result<Array<T>> {
    order_filter("median_filter", x, Pick::Median, fp, &opts)
}

/// SciPy's `percentile_filter`: the value of rank `count * p / 100` (rounded down; 100 the
/// largest, negative `p` counted from 100).
///
/// ```
/// use cuprite_array::{Array, image::{FilterWindow, percentile_filter}};
/// let x = Array::from_slice(&[4.0f32, 1.0, 3.0, 2.0], &[4])?;
/// assert_eq!(percentile_filter(&x, 100.0, &FilterWindow::size(&[3]))?.to_vec()?, [4.0, 4.0, 3.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn percentile_filter<T: ImageElement>(
    x: &Array<T>,
    percentile: f64,
    fp: &FilterWindow,
) -> Result<Array<T>> {
    percentile_filter_with(x, percentile, fp, FilterOpts::new())
}

/// [`percentile_filter`] with options (as [`rank_filter_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, FilterWindow, percentile_filter_with}};
/// let x = Array::from_slice(&[4.0f32, 1.0, 3.0, 2.0], &[4])?;
/// let y = percentile_filter_with(&x, -100.0, &FilterWindow::size(&[3]), FilterOpts::new())?;
/// assert_eq!(y.to_vec()?, [1.0, 1.0, 1.0, 2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn percentile_filter_with<T: ImageElement>(
    x: &Array<T>,
    percentile: f64,
    fp: &FilterWindow,
    opts: FilterOpts,
) -> Result<Array<T>> {
    if percentile.is_nan() {
        return Err(Error::InvalidArgument(
            "percentile_filter: percentile NaN".to_string(),
        ));
    }
    order_filter(
        "percentile_filter",
        x,
        Pick::Percentile(percentile),
        fp,
        &opts,
    )
}

/// SciPy's `minimum_filter`: the smallest value of the window (a box runs as 1-d passes).
///
/// ```
/// use cuprite_array::{Array, image::{FilterWindow, minimum_filter}};
/// let x = Array::from_slice(&[3u8, 1, 4, 1, 5, 9, 2, 6, 5], &[3, 3])?;
/// assert_eq!(minimum_filter(&x, &FilterWindow::size(&[3]))?.to_vec()?, [1, 1, 1, 1, 1, 1, 1, 1, 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minimum_filter<T: ImageElement>(x: &Array<T>, fp: &FilterWindow) -> Result<Array<T>> {
    minimum_filter_with(x, fp, FilterOpts::new())
}

/// [`minimum_filter`] with options (as [`rank_filter_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, FilterWindow, minimum_filter_with}};
/// let x = Array::from_slice(&[3.0f64, 1.0, 4.0], &[3])?;
/// let o = FilterOpts::new().boundary(Boundary::Constant(0.0));
/// assert_eq!(minimum_filter_with(&x, &FilterWindow::size(&[2]), o)?.to_vec()?, [0.0, 1.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minimum_filter_with<T: ImageElement>(
    x: &Array<T>,
    fp: &FilterWindow,
    opts: FilterOpts,
) -> Result<Array<T>> {
    order_filter("minimum_filter", x, Pick::Min, fp, &opts)
}

/// SciPy's `maximum_filter`: the largest value of the window.
///
/// ```
/// use cuprite_array::{Array, image::{FilterWindow, maximum_filter}};
/// let x = Array::from_slice(&[3u8, 1, 4, 1, 5, 9, 2, 6, 5], &[3, 3])?;
/// assert_eq!(maximum_filter(&x, &FilterWindow::size(&[3]))?.to_vec()?, [5, 9, 9, 6, 9, 9, 6, 9, 9]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn maximum_filter<T: ImageElement>(x: &Array<T>, fp: &FilterWindow) -> Result<Array<T>> {
    maximum_filter_with(x, fp, FilterOpts::new())
}

/// [`maximum_filter`] with options (as [`rank_filter_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, FilterWindow, maximum_filter_with}};
/// let x = Array::from_slice(&[3.0f32, 1.0, 4.0, 1.0], &[4])?;
/// let fp = FilterWindow::new(&[true, false, true], &[3])?;
/// assert_eq!(maximum_filter_with(&x, &fp, FilterOpts::new())?.to_vec()?, [3.0, 4.0, 1.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn maximum_filter_with<T: ImageElement>(
    x: &Array<T>,
    fp: &FilterWindow,
    opts: FilterOpts,
) -> Result<Array<T>> {
    order_filter("maximum_filter", x, Pick::Max, fp, &opts)
}

/// The 1-d filter `pick` of `size` along `opts.axis`.
fn order1d<T: ImageElement>(
    what: &str,
    x: &Array<T>,
    size: usize,
    pick: Pick,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let a = axis(opts.axis, x.ndim())? as isize;
    let o = FilterOpts {
        axes: Some(vec![a]),
        ..opts
    };
    order_filter(what, x, pick, &FilterWindow::size(&[size]), &o)
}

/// SciPy's `minimum_filter1d`: the smallest of `size` neighbours along the last axis.
///
/// ```
/// use cuprite_array::{Array, image::minimum_filter1d};
/// // SciPy's documented example.
/// let x = Array::from_slice(&[2u8, 8, 0, 4, 1, 9, 9, 0], &[8])?;
/// assert_eq!(minimum_filter1d(&x, 3)?.to_vec()?, [2, 0, 0, 0, 1, 1, 0, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minimum_filter1d<T: ImageElement>(x: &Array<T>, size: usize) -> Result<Array<T>> {
    minimum_filter1d_with(x, size, FilterOpts::new())
}

/// [`minimum_filter1d`] with options (`axis`, boundary, one origin).
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, minimum_filter1d_with}};
/// let x = Array::from_slice(&[2u8, 8, 0, 4], &[2, 2])?;
/// assert_eq!(minimum_filter1d_with(&x, 2, FilterOpts::new().axis(0))?.to_vec()?, [2, 8, 0, 4]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minimum_filter1d_with<T: ImageElement>(
    x: &Array<T>,
    size: usize,
    opts: FilterOpts,
) -> Result<Array<T>> {
    order1d("minimum_filter1d", x, size, Pick::Min, opts)
}

/// SciPy's `maximum_filter1d`: the largest of `size` neighbours along the last axis.
///
/// ```
/// use cuprite_array::{Array, image::maximum_filter1d};
/// // SciPy's documented example.
/// let x = Array::from_slice(&[2u8, 8, 0, 4, 1, 9, 9, 0], &[8])?;
/// assert_eq!(maximum_filter1d(&x, 3)?.to_vec()?, [8, 8, 8, 4, 9, 9, 9, 9]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn maximum_filter1d<T: ImageElement>(x: &Array<T>, size: usize) -> Result<Array<T>> {
    maximum_filter1d_with(x, size, FilterOpts::new())
}

/// [`maximum_filter1d`] with options (`axis`, boundary, one origin).
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, maximum_filter1d_with}};
/// let x = Array::from_slice(&[2u8, 8, 0, 4], &[2, 2])?;
/// assert_eq!(maximum_filter1d_with(&x, 2, FilterOpts::new().axis(0))?.to_vec()?, [2, 8, 2, 8]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn maximum_filter1d_with<T: ImageElement>(
    x: &Array<T>,
    size: usize,
    opts: FilterOpts,
) -> Result<Array<T>> {
    order1d("maximum_filter1d", x, size, Pick::Max, opts)
}
