//! Relative extrema (SciPy's `argrelmin`, `argrelmax` and `argrelextrema`): the points of an
//! N-d array that compare true against each of their `order` neighbours on both sides along
//! one axis. The array is extended by `order` values each side (its edge values repeated, or
//! taken periodically), each shifted view compared lazily, the comparisons combined in one
//! fused mask, and its set points listed by `nonzero`.

use super::frames::{norm_axis, slice_axis};
use crate::array::Array;
use crate::dtype::Ordered;
use crate::error::{Error, Result};
use crate::ops::PadMode;

/// How a point must compare with its neighbours to count ([`argrelextrema`]'s comparator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparator {
    /// Strictly below every neighbour (`np.less`: relative minima).
    Less,
    /// Strictly above every neighbour (`np.greater`: relative maxima).
    Greater,
    /// At most every neighbour (`np.less_equal`: flat minima count).
    LessEqual,
    /// At least every neighbour (`np.greater_equal`: flat maxima count).
    GreaterEqual,
}

/// What lies beyond the ends of the axis (SciPy's `mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EdgeMode {
    /// The end value repeated (`clip`): an end point then compares with itself, so a strict
    /// comparator never counts it.
    #[default]
    Clip,
    /// The other end of the axis (`wrap`).
    Wrap,
}

/// The indices, one array a dimension (as [`Array::nonzero`]'s), of the points of `data`
/// that compare as `comparator` says with each of the `order` neighbours on either side
/// along `axis` (SciPy's `argrelextrema(data, comparator, axis, order, mode)`).
///
/// # Errors
/// A 0-dimensional array, an axis out of range, `order` 0, or an empty axis with
/// [`EdgeMode::Wrap`], each named.
///
/// ```
/// use cuprite_array::{Array, signal::{Comparator, EdgeMode, argrelextrema}};
/// let x = Array::from_slice(&[2.0f64, 1.0, 2.0, 3.0, 2.0, 0.0, 1.0], &[7])?;
/// let i = argrelextrema(&x, Comparator::Less, 0, 1, EdgeMode::Clip)?;
/// assert_eq!(i[0].to_vec()?, [1, 5]);
/// let i = argrelextrema(&x, Comparator::Greater, 0, 2, EdgeMode::Clip)?;
/// assert_eq!(i[0].to_vec()?, [3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn argrelextrema<T: Ordered>(
    data: &Array<T>,
    comparator: Comparator,
    axis: isize,
    order: usize,
    mode: EdgeMode,
) -> Result<Vec<Array<i64>>> {
    extrema_mask(data, comparator, axis, order, mode)?.nonzero()
}

/// The mask of [`argrelextrema`]: true where the point is an extremum.
fn extrema_mask<T: Ordered>(
    data: &Array<T>,
    comparator: Comparator,
    axis: isize,
    order: usize,
    mode: EdgeMode,
) -> Result<Array<bool>> {
    if data.ndim() == 0 {
        return Err(Error::Shape(
            "argrelextrema: a 0-dimensional array has no axis to search".into(),
        ));
    }
    let ax = norm_axis("argrelextrema", axis, data.ndim())?;
    if order == 0 {
        return Err(Error::InvalidArgument(
            "argrelextrema: order 0; it must be at least 1".into(),
        ));
    }
    let n = data.shape()[ax];
    if n == 0 {
        if mode == EdgeMode::Wrap {
            return Err(Error::InvalidArgument(format!(
                "argrelextrema: wrap mode along the empty axis {ax} (shape {:?})",
                data.shape()
            )));
        }
        // Empty: no point, and a mask of the data's (empty) shape on its device.
        return data.try_less(data);
    }
    let mut widths = vec![(0, 0); data.ndim()];
    widths[ax] = (order, order);
    let pad = match mode {
        EdgeMode::Clip => PadMode::Edge,
        EdgeMode::Wrap => PadMode::Wrap,
    };
    let ext = data.pad_mode(&widths, pad)?;
    let centre = slice_axis(&ext, ax, order, order + n, 1)?;
    let cmp = |other: &Array<T>| -> Result<Array<bool>> {
        match comparator {
            Comparator::Less => centre.try_less(other),
            Comparator::Greater => centre.try_greater(other),
            Comparator::LessEqual => centre.try_less_equal(other),
            Comparator::GreaterEqual => centre.try_greater_equal(other),
        }
    };
    let mut mask: Option<Array<bool>> = None;
    for s in 1..=order {
        let after = cmp(&slice_axis(&ext, ax, order + s, order + s + n, 1)?)?;
        let before = cmp(&slice_axis(&ext, ax, order - s, order - s + n, 1)?)?;
        let both = after.try_and(&before)?;
        mask = Some(match mask {
            None => both,
            Some(m) => m.try_and(&both)?,
        });
    }
    mask.ok_or_else(|| Error::InvalidArgument("argrelextrema: order 0".into()))
}

/// The relative minima of `data` along `axis` (SciPy's `argrelmin`): [`argrelextrema`] with
/// [`Comparator::Less`].
///
/// # Errors
/// As [`argrelextrema`].
///
/// ```
/// use cuprite_array::{Array, signal::{EdgeMode, argrelmin}};
/// let x = Array::from_slice(&[3, 1, 2, 0, 5, 4, 6], &[7])?;
/// assert_eq!(argrelmin(&x, 0, 1, EdgeMode::Clip)?[0].to_vec()?, [1, 3, 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn argrelmin<T: Ordered>(
    data: &Array<T>,
    axis: isize,
    order: usize,
    mode: EdgeMode,
) -> Result<Vec<Array<i64>>> {
    argrelextrema(data, Comparator::Less, axis, order, mode)
}

/// The relative maxima of `data` along `axis` (SciPy's `argrelmax`): [`argrelextrema`] with
/// [`Comparator::Greater`].
///
/// # Errors
/// As [`argrelextrema`].
///
/// ```
/// use cuprite_array::{Array, signal::{EdgeMode, argrelmax}};
/// // Along the rows of a 2 x 4 array: (row, column) pairs.
/// let x = Array::from_slice(&[0.0f32, 2.0, 1.0, 0.0, 1.0, 0.0, 3.0, 2.0], &[2, 4])?;
/// let i = argrelmax(&x, 1, 1, EdgeMode::Clip)?;
/// assert_eq!((i[0].to_vec()?, i[1].to_vec()?), (vec![0, 1], vec![1, 2]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn argrelmax<T: Ordered>(
    data: &Array<T>,
    axis: isize,
    order: usize,
    mode: EdgeMode,
) -> Result<Vec<Array<i64>>> {
    argrelextrema(data, Comparator::Greater, axis, order, mode)
}
