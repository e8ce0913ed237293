//! NumPy's `r_` and `c_` as the macros [`r_!`](crate::r_) and [`c_!`](crate::c_): pieces
//! (arrays, scalars, ranges as `arange`, [`Grid`] values as `mgrid`) joined along an axis,
//! with NumPy's `"axis,ndmin,trans1d"` directive string. The work is [`concat_pieces`].

use crate::array::Array;
use crate::dtype::{Element, Numeric, Ordered};
use crate::error::{Error, Result};
use crate::ops::tricks::{Grid, mgrid};
use crate::shape::axis;

/// One piece of [`r_!`](crate::r_)/[`c_!`](crate::c_): an array, or a 1-D range (NumPy's
/// slice items, which the `trans1d` directive turns), or a scalar.
#[derive(Clone, Debug)]
pub struct Piece<T: Element> {
    array: Array<T>,
    range: bool,
    scalar: bool,
}

/// What may stand in an [`r_!`](crate::r_) list: arrays (owned or borrowed), scalars,
/// `Range`s (`arange(start, end, 1)`) and [`Grid`] values (NumPy's `start:stop:step` and
/// `start:stop:nj`).
pub trait IntoPiece<T: Element> {
    /// The piece, or an `Err` (a range that cannot be built).
    fn into_piece(self) -> Result<Piece<T>>;
}

impl<T: Element> IntoPiece<T> for Array<T> {
    fn into_piece(self) -> Result<Piece<T>> {
        let scalar = self.ndim() == 0;
        Ok(Piece {
            array: self,
            range: false,
            scalar,
        })
    }
}
impl<T: Element> IntoPiece<T> for &Array<T> {
    fn into_piece(self) -> Result<Piece<T>> {
        self.clone().into_piece()
    }
}
impl<T: Element> IntoPiece<T> for T {
    fn into_piece(self) -> Result<Piece<T>> {
        Array::scalar(self).into_piece()
    }
}
impl<T: Numeric + Ordered> IntoPiece<T> for std::ops::Range<T> {
    fn into_piece(self) -> Result<Piece<T>> {
        let one = T::from_scalar(crate::dtype::Scalar::U64(1));
        Ok(Piece {
            array: Array::arange(self.start, self.end, one)?,
            range: true,
            scalar: false,
        })
    }
}
impl<T: Numeric> IntoPiece<T> for Grid {
    fn into_piece(self) -> Result<Piece<T>> {
        Ok(Piece {
            array: mgrid::<T>(&[self])?,
            range: true,
            scalar: false,
        })
    }
}

/// NumPy's `AxisConcatenator` (what `r_[...]` and `c_[...]` run): each piece gets at least
/// `ndmin` axes (extents of 1 in front); with `trans1d` set, a piece that had fewer axes has its
/// original axes moved to start at `trans1d` (ranges: their one axis swapped there), then all
/// are joined along `axis`. `r_` is `(0, 1, None)`, `c_` is `(-1, 2, Some(0))`.
///
/// ```
/// use cuprite_array::{Array, ops::{IntoPiece, concat_pieces}};
/// let a = Array::from_slice(&[1, 2], &[2])?;
/// let out = concat_pieces(-1, 2, Some(0), vec![a.into_piece(), (5..7).into_piece()])?;
/// assert_eq!((out.shape(), out.to_vec()?), (&[2, 2][..], vec![1, 5, 2, 6]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn concat_pieces<T: Element>(
    ax: isize,
    ndmin: usize,
    trans1d: Option<isize>,
    pieces: Vec<Result<Piece<T>>>,
) -> Result<Array<T>> {
    let mut arrays = Vec::with_capacity(pieces.len());
    for p in pieces {
        let p = p?;
        let nd = p.array.ndim();
        let mut shape = vec![1usize; ndmin.saturating_sub(nd)];
        shape.extend_from_slice(p.array.shape());
        let mut a = p.array.reshape(&shape)?;
        if let (Some(t), false) = (trans1d, p.scalar) {
            if p.range && ndmin > 1 {
                a = a.swapaxes(-1, t)?;
            } else if !p.range && nd < ndmin {
                // NumPy: axes[:k1] + axes[k2:] + axes[k1:k2] with k2 = ndmin - nd.
                let k2 = ndmin - nd;
                let k1 = if t < 0 { t + k2 as isize + 1 } else { t };
                let k1 = usize::try_from(k1)
                    .ok()
                    .filter(|&k| k <= k2)
                    .ok_or_else(|| {
                        Error::Axis(format!(
                            "r_/c_: trans1d {t} is out of range for ndmin {ndmin}"
                        ))
                    })?;
                let mut perm: Vec<usize> = (0..k1).collect();
                perm.extend(k2..ndmin);
                perm.extend(k1..k2);
                a = a.permute(&perm)?;
            }
        }
        arrays.push(a);
    }
    let Some(first) = arrays.first() else {
        return Err(Error::InvalidArgument("r_/c_: no pieces".into()));
    };
    let a = axis(ax, first.ndim())?;
    Array::concat(&arrays.iter().collect::<Vec<_>>(), a as isize)
}

/// Parses NumPy's directive string `"axis[,ndmin[,trans1d]]"` (the matrix forms `"r"` and `"c"`
/// have no counterpart here: an `Err`).
#[doc(hidden)]
pub fn directive(s: &str) -> Result<(isize, usize, Option<isize>)> {
    let bad = || {
        Error::InvalidArgument(format!(
            "r_/c_: directive {s:?} is not \"axis[,ndmin[,trans1d]]\""
        ))
    };
    let v: Vec<isize> = s
        .split(',')
        .map(|t| t.trim().parse::<isize>().map_err(|_| bad()))
        .collect::<Result<_>>()?;
    match v[..] {
        [a] => Ok((a, 1, None)),
        [a, n] => Ok((a, usize::try_from(n).map_err(|_| bad())?, None)),
        [a, n, t] => Ok((
            a,
            usize::try_from(n).map_err(|_| bad())?,
            (t != -1).then_some(t),
        )),
        _ => Err(bad()),
    }
}

/// NumPy's `r_[...]`: pieces joined along the first axis. Pieces are arrays, scalars, ranges
/// (`a..b`, NumPy's `a:b`) and [`Grid`](crate::ops::Grid) values (`start:stop:step`,
/// `start:stop:nj`); an optional leading directive string `"axis,ndmin,trans1d"` and `;`
/// set the axis, the minimum rank and where 1-D pieces lie, as NumPy's string item does.
///
/// ```
/// use cuprite_array::{Array, ops::Grid, r_};
/// let a = Array::from_slice(&[10, 20], &[2])?;
/// assert_eq!(r_![1..4, 0, &a]?.to_vec()?, [1, 2, 3, 0, 10, 20]);
/// let g = r_![Grid::num(0.0, 1.0, 3), 5.0]?;
/// assert_eq!(g.to_vec()?, [0.0, 0.5, 1.0, 5.0]);
/// let m = Array::from_slice(&[1, 2, 3, 4], &[2, 2])?;
/// assert_eq!(r_!["1"; &m, &m]?.shape(), &[2, 4]);
/// assert_eq!(r_!["0,2"; &a, &a]?.shape(), &[2, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[macro_export]
macro_rules! r_ {
    ($d:literal; $($p:expr),+ $(,)?) => {
        $crate::ops::directive($d).and_then(|(ax, nd, t)| {
            $crate::ops::concat_pieces(ax, nd, t, vec![$($crate::ops::IntoPiece::into_piece($p)),+])
        })
    };
    ($($p:expr),+ $(,)?) => {
        $crate::ops::concat_pieces(0, 1, None, vec![$($crate::ops::IntoPiece::into_piece($p)),+])
    };
}

/// NumPy's `c_[...]`: pieces joined along the last axis with at least 2 axes, 1-D pieces as
/// columns (`r_['-1,2,0', ...]`). Pieces as in [`r_!`](crate::r_).
///
/// ```
/// use cuprite_array::{Array, c_};
/// let a = Array::from_slice(&[1, 2, 3], &[3])?;
/// let b = Array::from_slice(&[4, 5, 6], &[3])?;
/// let c = c_![&a, &b]?;
/// assert_eq!((c.shape(), c.to_vec()?), (&[3, 2][..], vec![1, 4, 2, 5, 3, 6]));
/// let row = c_![Array::from_slice(&[1, 2], &[1, 2])?, 0, 0, Array::from_slice(&[4], &[1, 1])?]?;
/// assert_eq!(row.to_vec()?, [1, 2, 0, 0, 4]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[macro_export]
macro_rules! c_ {
    ($($p:expr),+ $(,)?) => {
        $crate::ops::concat_pieces(-1, 2, Some(0), vec![$($crate::ops::IntoPiece::into_piece($p)),+])
    };
}
