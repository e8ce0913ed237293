//! NumPy's index tricks as functions: `indices`, `ix_`, `mgrid`/`ogrid` (ranges as [`Grid`]
//! values, since Python's slice syntax has no Rust form), `diag_indices(_from)`,
//! `mask_indices` and the `ndindex` iterator. Every array result is built from `arange`
//! views and broadcasts, so it is lazy and runs on the current device.

use crate::array::Array;
use crate::dtype::{Element, Numeric};
use crate::error::{Error, Result};
use crate::shape::checked_numel;

/// `arange(n)` as `T`, shaped to lie along axis `at` of `nd` axes (extent 1 elsewhere).
fn ramp_along<T: Numeric>(n: usize, at: usize, nd: usize) -> Result<Array<T>> {
    let mut s = vec![1usize; nd];
    s[at] = n;
    Array::arange_len(n)?.cast::<T>().reshape(&s)
}

/// The index grid of `dims` (NumPy's `indices(dims)`): shape `[dims.len(), *dims]`, where
/// `out[k][i0, i1, ...] == ik`. The element type is the caller's (NumPy's `dtype=`).
///
/// ```
/// use cuprite_array::ops::indices;
/// let g = indices::<i64>(&[2, 3])?;
/// assert_eq!(g.shape(), &[2, 2, 3]);
/// assert_eq!(g.to_vec()?, [0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn indices<T: Numeric>(dims: &[usize]) -> Result<Array<T>> {
    let mut out = vec![dims.len()];
    out.extend_from_slice(dims);
    checked_numel(&out)?;
    if dims.is_empty() {
        return Ok(Array::zeros(&[0]));
    }
    let parts = indices_sparse::<T>(dims)?
        .into_iter()
        .map(|p| p.broadcast_to(dims))
        .collect::<Result<Vec<_>>>()?;
    Array::stack(&parts.iter().collect::<Vec<_>>(), 0)
}

/// NumPy's `indices(dims, sparse=True)`: one array per axis, `arange(dims[k])` shaped with
/// extent 1 on every other axis, so that they broadcast to the full grid.
///
/// ```
/// use cuprite_array::ops::indices_sparse;
/// let g = indices_sparse::<i32>(&[2, 3])?;
/// assert_eq!((g[0].shape(), g[1].shape()), (&[2, 1][..], &[1, 3][..]));
/// assert_eq!(g[1].to_vec()?, [0, 1, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn indices_sparse<T: Numeric>(dims: &[usize]) -> Result<Vec<Array<T>>> {
    checked_numel(dims)?;
    (0..dims.len())
        .map(|k| ramp_along(dims[k], k, dims.len()))
        .collect()
}

/// NumPy's `ix_`: each 1-D sequence shaped to lie along its own axis, so that indexing with
/// all of them selects the open mesh (the cross product). A sequence that is not 1-D is an
/// `Err`; for a boolean mask pass its [`nonzero`](Array::nonzero) positions.
///
/// ```
/// use cuprite_array::{Array, ops::ix_};
/// let r = Array::from_slice(&[0i64, 1], &[2])?;
/// let c = Array::from_slice(&[2i64, 4], &[2])?;
/// let m = ix_(&[&r, &c])?;
/// assert_eq!((m[0].shape(), m[1].shape()), (&[2, 1][..], &[1, 2][..]));
/// // The flat positions of the selected 2 x 2 block of a 5-column matrix:
/// assert_eq!((&m[0] * 5 + &m[1]).to_vec()?, [2, 4, 7, 9]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ix_<T: Element>(seqs: &[&Array<T>]) -> Result<Vec<Array<T>>> {
    let nd = seqs.len();
    seqs.iter()
        .enumerate()
        .map(|(k, s)| {
            if s.ndim() != 1 {
                return Err(Error::Shape(format!(
                    "ix_: sequence {k} has shape {:?}; each must be 1-D",
                    s.shape()
                )));
            }
            let mut sh = vec![1usize; nd];
            sh[k] = s.len();
            s.reshape(&sh)
        })
        .collect()
}

/// One axis of [`mgrid`]/[`ogrid`]: NumPy's `start:stop:step` (a half-open range with a step)
/// or `start:stop:num*1j` (`num` points with both ends included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Grid {
    /// `start, start + step, ...` while below `stop` (above it for a negative step).
    Step {
        /// The first value.
        start: f64,
        /// The bound, excluded.
        stop: f64,
        /// The spacing, not zero.
        step: f64,
    },
    /// `num` evenly spaced values from `start` to `stop`, both included (NumPy's complex step).
    Num {
        /// The first value.
        start: f64,
        /// The last value.
        stop: f64,
        /// The count.
        num: usize,
    },
}

impl Grid {
    /// NumPy's `start:stop` (step 1).
    pub fn range(start: f64, stop: f64) -> Grid {
        Grid::Step {
            start,
            stop,
            step: 1.0,
        }
    }
    /// NumPy's `start:stop:step`.
    pub fn step(start: f64, stop: f64, step: f64) -> Grid {
        Grid::Step { start, stop, step }
    }
    /// NumPy's `start:stop:num*1j`.
    pub fn num(start: f64, stop: f64, num: usize) -> Grid {
        Grid::Num { start, stop, num }
    }

    /// (count, first value, spacing), NumPy's `nd_grid` arithmetic.
    fn plan(&self) -> Result<(usize, f64, f64)> {
        match *self {
            Grid::Step { start, stop, step } => {
                let c = ((stop - start) / step).ceil();
                if step == 0.0 || !c.is_finite() || !start.is_finite() {
                    return Err(Error::InvalidArgument(format!(
                        "grid {start}:{stop}:{step}: the step must be non-zero and the bounds \
                         finite"
                    )));
                }
                if c > (isize::MAX as usize / 16) as f64 {
                    return Err(Error::InvalidArgument(format!(
                        "grid {start}:{stop}:{step} has too many points"
                    )));
                }
                Ok((c.max(0.0) as usize, start, step))
            }
            Grid::Num { start, stop, num } => {
                if !start.is_finite() || !stop.is_finite() {
                    return Err(Error::InvalidArgument(format!(
                        "grid {start}:{stop}:{num}j: the bounds must be finite"
                    )));
                }
                let step = if num > 1 {
                    (stop - start) / (num - 1) as f64
                } else {
                    1.0
                };
                Ok((num, start, step))
            }
        }
    }
}

fn grid_axes<T: Numeric>(ranges: &[Grid]) -> Result<(Vec<usize>, Vec<Array<T>>)> {
    let plans = ranges.iter().map(Grid::plan).collect::<Result<Vec<_>>>()?;
    let dims: Vec<usize> = plans.iter().map(|p| p.0).collect();
    checked_numel(&dims)?;
    let nd = dims.len();
    let axes = plans
        .iter()
        .enumerate()
        .map(|(k, &(n, start, step))| {
            let v = ramp_along::<f64>(n, k, nd)? * step + start;
            Ok(v.cast::<T>())
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((dims, axes))
}

/// NumPy's `mgrid[...]`, one [`Grid`] per axis: the dense grid of shape
/// `[ranges.len(), n0, n1, ...]` (a single range gives its 1-D values, as in NumPy). Values are
/// computed in `f64` (`start + i * step`) and cast to `T`.
///
/// ```
/// use cuprite_array::ops::{Grid, mgrid};
/// // np.mgrid[0:2, 0:1:3j]
/// let g = mgrid::<f64>(&[Grid::range(0.0, 2.0), Grid::num(0.0, 1.0, 3)])?;
/// assert_eq!(g.shape(), &[2, 2, 3]);
/// assert_eq!(g.to_vec()?, [0., 0., 0., 1., 1., 1., 0., 0.5, 1., 0., 0.5, 1.]);
/// assert_eq!(mgrid::<i32>(&[Grid::step(5.0, 0.0, -2.0)])?.to_vec()?, [5, 3, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn mgrid<T: Numeric>(ranges: &[Grid]) -> Result<Array<T>> {
    let (dims, axes) = grid_axes::<T>(ranges)?;
    if axes.len() == 1 {
        return axes[0].flatten();
    }
    let mut out = vec![dims.len()];
    out.extend_from_slice(&dims);
    checked_numel(&out)?;
    let full = axes
        .iter()
        .map(|a| a.broadcast_to(&dims))
        .collect::<Result<Vec<_>>>()?;
    Array::stack(&full.iter().collect::<Vec<_>>(), 0)
}

/// NumPy's `ogrid[...]`: the open grid, one array per range with extent 1 on the other axes
/// (a single range gives one 1-D array).
///
/// ```
/// use cuprite_array::ops::{Grid, ogrid};
/// let g = ogrid::<f32>(&[Grid::range(0.0, 3.0), Grid::num(-1.0, 1.0, 5)])?;
/// assert_eq!((g[0].shape(), g[1].shape()), (&[3, 1][..], &[1, 5][..]));
/// assert_eq!(g[1].to_vec()?, [-1.0, -0.5, 0.0, 0.5, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ogrid<T: Numeric>(ranges: &[Grid]) -> Result<Vec<Array<T>>> {
    Ok(grid_axes::<T>(ranges)?.1)
}

/// NumPy's `diag_indices(n, ndim)`: `ndim` copies of `arange(n)`, the index tuple of the
/// main diagonal of an `n`-cube of `ndim` axes.
///
/// ```
/// use cuprite_array::ops::diag_indices;
/// let d = diag_indices(3, 2)?;
/// assert_eq!((d.len(), d[1].to_vec()?), (2, vec![0, 1, 2]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn diag_indices(n: usize, ndim: usize) -> Result<Vec<Array<i64>>> {
    let a = Array::arange_len(n)?;
    Ok(vec![a; ndim])
}

/// NumPy's `diag_indices_from(a)`: [`diag_indices`] for an array of at least 2 axes, all of
/// the same extent (an `Err` naming the shape otherwise).
///
/// ```
/// use cuprite_array::{Array, ops::diag_indices_from};
/// let a = Array::<f32>::zeros(&[4, 4]);
/// assert_eq!(diag_indices_from(&a)?[0].to_vec()?, [0, 1, 2, 3]);
/// assert!(diag_indices_from(&Array::<f32>::zeros(&[4, 3])).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn diag_indices_from<T: Element>(a: &Array<T>) -> Result<Vec<Array<i64>>> {
    let s = a.shape();
    if s.len() < 2 || s.iter().any(|&d| d != s[0]) {
        return Err(Error::Shape(format!(
            "diag_indices_from needs at least 2 axes of equal extent, got shape {s:?}"
        )));
    }
    diag_indices(s[0], s.len())
}

/// NumPy's `mask_indices(n, mask_func, k)`: the (row, column) positions where
/// `mask_func(ones((n, n)), k)` is non-zero, in row-major order.
///
/// ```
/// use cuprite_array::{Array, ops::mask_indices};
/// let (r, c) = mask_indices(3, |m: &Array<i64>, k| m.triu(k), 1)?;
/// assert_eq!((r.to_vec()?, c.to_vec()?), (vec![0, 0, 1], vec![1, 2, 2]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn mask_indices<F>(n: usize, mask_func: F, k: i64) -> Result<(Array<i64>, Array<i64>)>
where
    F: FnOnce(&Array<i64>, i64) -> Result<Array<i64>>,
{
    checked_numel(&[n, n])?;
    let m = mask_func(&Array::ones(&[n, n]), k)?;
    if m.shape() != [n, n] {
        return Err(Error::Shape(format!(
            "mask_indices: mask_func returned shape {:?}, expected [{n}, {n}]",
            m.shape()
        )));
    }
    let mut nz = m.nonzero()?.into_iter();
    match (nz.next(), nz.next()) {
        (Some(r), Some(c)) => Ok((r, c)),
        _ => Err(Error::Shape(
            "mask_indices: nonzero gave fewer than 2 axes".into(),
        )),
    }
}

/// NumPy's `ndindex(*shape)`: every multi-index of `shape` in row-major order (one empty
/// index for the scalar shape `[]`, none when an extent is 0).
///
/// ```
/// use cuprite_array::ops::ndindex;
/// let v: Vec<Vec<usize>> = ndindex(&[2, 2]).collect();
/// assert_eq!(v, [vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
/// assert_eq!(ndindex(&[]).count(), 1);
/// assert_eq!(ndindex(&[3, 0]).count(), 0);
/// ```
#[must_use]
pub fn ndindex(shape: &[usize]) -> NdIndex {
    NdIndex {
        shape: shape.to_vec(),
        next: (!shape.contains(&0)).then(|| vec![0; shape.len()]),
    }
}

/// The iterator of [`ndindex`].
#[derive(Clone, Debug)]
pub struct NdIndex {
    shape: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Iterator for NdIndex {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        let cur = self.next.take()?;
        let mut n = cur.clone();
        // Odometer increment: the last axis fastest; past the first axis the walk ends.
        for ax in (0..n.len()).rev() {
            n[ax] += 1;
            if n[ax] < self.shape[ax] {
                self.next = Some(n);
                return Some(cur);
            }
            n[ax] = 0;
        }
        Some(cur)
    }
}

/// NumPy's `ix_` for boolean sequences: each 1-D mask stands for its true positions (as NumPy
/// converts it), then as [`ix_`].
///
/// ```
/// use cuprite_array::{Array, ops::ix_masks};
/// let r = Array::from_slice(&[true, false, true], &[3])?;
/// let c = Array::from_slice(&[false, true], &[2])?;
/// let m = ix_masks(&[&r, &c])?;
/// assert_eq!((m[0].to_vec()?, m[1].to_vec()?), (vec![0, 2], vec![1]));
/// assert_eq!(m[0].shape(), &[2, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ix_masks(masks: &[&Array<bool>]) -> Result<Vec<Array<i64>>> {
    let mut pos = Vec::with_capacity(masks.len());
    for (k, m) in masks.iter().enumerate() {
        if m.ndim() != 1 {
            return Err(Error::Shape(format!(
                "ix_: mask {k} has shape {:?}; each must be 1-D",
                m.shape()
            )));
        }
        pos.push(m.nonzero()?.remove(0));
    }
    ix_(&pos.iter().collect::<Vec<_>>())
}
