//! SciPy's per-label order statistics (`minimum_position`, `maximum_position`, `extrema`,
//! `median`): the elements put in order by label and, within a label, by value, with two
//! stable sorts (the values' first, then the labels'), so each label's elements lie together
//! and equal values keep their row-major order. A label's first element is then its minimum at
//! its first position in row-major order; sorting the values descending instead gives the
//! maximum at its first position; the middle one or two of the ascending run give the median.
//!
//! A label of `index` with no element gives the position `(0, ..., 0)` (as SciPy) and the
//! value 0 (as [`minimum`](super::minimum) and [`maximum`](super::maximum)); NaN sorts after
//! every number.

use super::measure::{Bins, label_bins};
use crate::array::Array;
use crate::dtype::{Integer, Numeric};
use crate::error::Result;
use crate::ops::SortOpts;
use crate::ops::TakeOpts;

/// The flat elements of one input in label-then-value order, with each label bin's count and
/// the start of its run in that order.
struct Runs<T: Numeric> {
    x: Array<T>,
    bins: Bins,
    counts: Array<i64>,
    starts: Array<i64>,
}

impl<T: Numeric> Runs<T> {
    fn new<L: Integer>(what: &str, x: &Array<T>, labels: &Array<L>, index: &[i64]) -> Result<Self> {
        let shape = x.shape().to_vec();
        let n: usize = shape.iter().product();
        let bins = label_bins(what, &shape, x.device(), labels, index)?;
        let counts = crate::with_device(x.device(), || Array::<i64>::zeros(&[bins.bins]))
            .scatter_add(
                0,
                &bins.pos,
                &Array::<i64>::ones_like(&bins.pos),
                Default::default(),
            )?;
        let starts = counts.cumsum_exclusive(0)?;
        Ok(Runs {
            x: x.contiguous()?.reshape(&[n])?,
            bins,
            counts,
            starts,
        })
    }

    /// The number of elements.
    fn len(&self) -> usize {
        self.x.len()
    }

    /// The flat positions of the elements in label order and, within a label, by value
    /// (descending when `desc`), ties in row-major order.
    fn order(&self, desc: bool) -> Result<Array<i64>> {
        let by_value = self.x.argsort_with(0, SortOpts::new().descending(desc))?;
        let by_label = self
            .bins
            .pos
            .take_with(&by_value, TakeOpts::new().axis(0))?
            .argsort(0)?;
        by_value.take_with(&by_label, TakeOpts::new().axis(0))
    }

    /// For each label of `index`: its count, and the start of its run (0 where it has none).
    fn at_index(&self) -> Result<(Array<i64>, Array<i64>)> {
        let c = self
            .counts
            .take_with(&self.bins.at, TakeOpts::new().axis(0))?;
        let c = Array::select(&self.bins.found, &c, 0i64)?;
        let s = self
            .starts
            .take_with(&self.bins.at, TakeOpts::new().axis(0))?;
        let s = Array::select(&c.greater(0i64), &s, 0i64)?;
        Ok((c, s))
    }

    /// The flat position of each label's first element in `order` (0 where it has none).
    fn first(&self, order: &Array<i64>) -> Result<Array<i64>> {
        let (c, s) = self.at_index()?;
        let p = order.take_with(&s, TakeOpts::new().axis(0))?;
        Array::select(&c.greater(0i64), &p, 0i64)
    }

    /// The values at flat positions `p` as `f64`, 0 where the label has no element.
    fn values(&self, p: &Array<i64>) -> Result<Array<f64>> {
        let (c, _) = self.at_index()?;
        let v = self.x.take_with(p, TakeOpts::new().axis(0))?.cast::<f64>();
        Array::select(&c.greater(0i64), &v, 0.0)
    }
}

/// Flat positions `p` (`[k]`) as row-major coordinates in `shape`: `[k, shape.len()]`.
fn unravel(p: &Array<i64>, shape: &[usize]) -> Result<Array<i64>> {
    let k = p.len();
    if shape.is_empty() {
        return Ok(crate::with_device(p.device(), || {
            Array::<i64>::zeros(&[k, 0])
        }));
    }
    let cols = crate::ops::unravel_index(p, shape)?;
    Array::stack(&cols.iter().collect::<Vec<_>>(), 1)
}

/// An empty input: every label of `index` is absent.
fn none<T: Numeric>(x: &Array<T>, index: &[i64]) -> (Array<f64>, Array<i64>) {
    crate::with_device(x.device(), || {
        (
            Array::<f64>::zeros(&[index.len()]),
            Array::<i64>::zeros(&[index.len(), x.ndim()]),
        )
    })
}

/// SciPy's `minimum_position` per label: `[index.len(), rank]`, the coordinates of the
/// label's smallest value (the first in row-major order where several are equal), `(0, ..., 0)`
/// for a label with no element. Labels broadcast to the input's shape.
///
/// # Errors
/// Labels that do not broadcast to the input, labels spanning too many values, or a complex
/// input.
///
/// ```
/// use cuprite_array::{Array, image::minimum_position};
/// // SciPy's example: the minima of the three components of `b`.
/// let b = Array::from_slice(&[1u8, 2, 0, 1, 5, 3, 0, 4, 0, 0, 0, 7, 9, 3, 0, 0], &[4, 4])?;
/// let l = Array::from_slice(&[1i32, 1, 0, 2, 1, 1, 0, 2, 0, 0, 0, 2, 3, 3, 0, 0], &[4, 4])?;
/// let p = minimum_position(&b, &l, &[1, 2, 3, 9])?;
/// assert_eq!(p.to_vec()?, [0, 0, 0, 3, 3, 1, 0, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minimum_position<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<i64>> {
    let r = Runs::new("minimum_position", x, labels, index)?;
    if r.len() == 0 {
        return Ok(none(x, index).1);
    }
    unravel(&r.first(&r.order(false)?)?, x.shape())
}

/// SciPy's `maximum_position` per label: `[index.len(), rank]`, the coordinates of the
/// label's largest value (the first in row-major order where several are equal), `(0, ..., 0)`
/// for a label with no element. Labels broadcast to the input's shape.
///
/// # Errors
/// As [`minimum_position`].
///
/// ```
/// use cuprite_array::{Array, image::maximum_position};
/// let a = Array::from_slice(&[1.0f32, 2.0, 0.0, 0.0, 5.0, 3.0, 0.0, 4.0,
///                             0.0, 0.0, 0.0, 7.0, 9.0, 3.0, 0.0, 0.0], &[4, 4])?;
/// // SciPy's example: one label a column; column 2 holds only zeros, so its first.
/// let l = Array::from_slice(&[0i64, 1, 2, 3], &[4])?;
/// assert_eq!(maximum_position(&a, &l, &[1, 2, 3])?.to_vec()?, [1, 1, 0, 2, 2, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn maximum_position<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<i64>> {
    let r = Runs::new("maximum_position", x, labels, index)?;
    if r.len() == 0 {
        return Ok(none(x, index).1);
    }
    unravel(&r.first(&r.order(true)?)?, x.shape())
}

/// What [`extrema`] returns: per label of `index`, the smallest and largest values (as
/// `f64`, 0 for a label with no element) and their coordinates (`[index.len(), rank]`, as
/// [`minimum_position`] and [`maximum_position`]).
#[derive(Clone, Debug)]
pub struct Extrema {
    /// The smallest value of each label.
    pub minimum: Array<f64>,
    /// The largest value of each label.
    pub maximum: Array<f64>,
    /// The coordinates of each label's first smallest value.
    pub minimum_position: Array<i64>,
    /// The coordinates of each label's first largest value.
    pub maximum_position: Array<i64>,
}

/// SciPy's `extrema` per label: the minima, maxima and their positions at once (one grouping
/// of the labels, two sorts).
///
/// # Errors
/// As [`minimum_position`].
///
/// ```
/// use cuprite_array::{Array, image::extrema};
/// // SciPy's example: the three components of `a`.
/// let a = Array::from_slice(&[1i32, 2, 0, 0, 5, 3, 0, 4, 0, 0, 0, 7, 9, 3, 0, 0], &[4, 4])?;
/// let l = Array::from_slice(&[1u8, 1, 0, 0, 1, 1, 0, 2, 0, 0, 0, 2, 3, 3, 0, 0], &[4, 4])?;
/// let e = extrema(&a, &l, &[1, 2, 3])?;
/// assert_eq!(e.minimum.to_vec()?, [1.0, 4.0, 3.0]);
/// assert_eq!(e.maximum.to_vec()?, [5.0, 7.0, 9.0]);
/// assert_eq!(e.minimum_position.to_vec()?, [0, 0, 1, 3, 3, 1]);
/// assert_eq!(e.maximum_position.to_vec()?, [1, 0, 2, 3, 3, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn extrema<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Extrema> {
    let r = Runs::new("extrema", x, labels, index)?;
    if r.len() == 0 {
        let (v, p) = none(x, index);
        return Ok(Extrema {
            minimum: v.clone(),
            maximum: v,
            minimum_position: p.clone(),
            maximum_position: p,
        });
    }
    let lo = r.first(&r.order(false)?)?;
    let hi = r.first(&r.order(true)?)?;
    Ok(Extrema {
        minimum: r.values(&lo)?,
        maximum: r.values(&hi)?,
        minimum_position: unravel(&lo, x.shape())?,
        maximum_position: unravel(&hi, x.shape())?,
    })
}

/// SciPy's `median` per label (as `f64`): the middle value of the label's sorted values, or
/// the mean of the middle two for an even count (taken in `f64`, so exact for every input
/// type); 0 for a label with no element. Labels broadcast to the input's shape.
///
/// # Errors
/// As [`minimum_position`].
///
/// ```
/// use cuprite_array::{Array, image::median};
/// // SciPy's example: the medians of the three components.
/// let a = Array::from_slice(&[1u16, 2, 0, 1, 5, 3, 0, 4, 0, 0, 0, 7, 9, 3, 0, 0], &[4, 4])?;
/// let l = Array::from_slice(&[1i32, 1, 0, 2, 1, 1, 0, 2, 0, 0, 0, 2, 3, 3, 0, 0], &[4, 4])?;
/// assert_eq!(median(&a, &l, &[1, 2, 3, 4])?.to_vec()?, [2.5, 4.0, 6.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn median<T: Numeric, L: Integer>(
    x: &Array<T>,
    labels: &Array<L>,
    index: &[i64],
) -> Result<Array<f64>> {
    let r = Runs::new("median", x, labels, index)?;
    if r.len() == 0 {
        return Ok(none(x, index).0);
    }
    let order = r.order(false)?;
    let (c, s) = r.at_index()?;
    // The middle pair of a run of `c` from `s`: `s + (c - 1) / 2` and `s + c / 2` (one
    // element when `c` is odd); a label with no element reads the run start 0.
    let below = c.try_sub(1i64)?.maximum(0i64).try_div(2i64)?;
    let lo = order.take_with(&s.try_add(&below)?, TakeOpts::new().axis(0))?;
    let hi = order.take_with(&s.try_add(&c.try_div(2i64)?)?, TakeOpts::new().axis(0))?;
    let lo = r.values(&lo)?;
    let hi = r.values(&hi)?;
    lo.try_add(&hi)?.try_mul(0.5)
}
