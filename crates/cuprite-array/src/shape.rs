//! Shapes, strides, broadcasting and strided views.
//!
//! Owns the index arithmetic of row-major (C order) arrays: element counts, contiguous strides,
//! NumPy broadcasting, and the view transforms that need no copy (broadcast, permute, slice with
//! steps, flip, reshape where strides allow). It must not touch data.

use crate::error::{Error, Result};

/// Number of elements of a shape (1 for a scalar shape `[]`). A shape whose count does not fit
/// `usize` gives `usize::MAX` (never a wrapped count): no allocation of it can succeed, and
/// [`checked_numel`] names it.
pub fn numel(shape: &[usize]) -> usize {
    if shape.contains(&0) {
        return 0;
    }
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .unwrap_or(usize::MAX)
}

/// The element count of `shape`, or an `Err` naming it when the count (or the byte size of
/// the largest element type, 16 bytes) does not fit the address space.
///
/// ```
/// use cuprite_array::shape::checked_numel;
/// assert_eq!(checked_numel(&[3, 4]).unwrap(), 12);
/// assert!(checked_numel(&[1 << 32, 1 << 32]).is_err());
/// assert_eq!(checked_numel(&[0, usize::MAX]).unwrap(), 0);
/// ```
pub fn checked_numel(shape: &[usize]) -> Result<usize> {
    if shape.contains(&0) {
        return Ok(0);
    }
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize / 16)
        .ok_or_else(|| {
            Error::Shape(format!(
                "shape {shape:?} has more elements than fit in memory"
            ))
        })
}

/// Row-major strides (in elements) of a contiguous array of `shape` (saturating: a shape
/// too large for memory never reaches an evaluation, see [`checked_numel`]).
pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut s = Strides::repeat(0, shape.len());
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(shape[i].max(1).min(isize::MAX as usize) as isize);
    }
    s
}

/// The shape two shapes broadcast to, NumPy's rules: aligned on the right, each pair of
/// extents equal or one of them 1.
///
/// ```
/// use cuprite_array::shape::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap(), vec![3, 4]);
/// assert!(broadcast_shapes(&[3], &[4]).is_err());
/// ```
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    broadcast_dims(a, b).map(|d| d.to_vec())
}

/// [`broadcast_shapes`] into inline dimensions (no allocation up to 6 axes).
pub(crate) fn broadcast_dims(a: &[usize], b: &[usize]) -> Result<Dims> {
    if a == b {
        return Ok(Dims::from(a));
    }
    let n = a.len().max(b.len());
    let mut out = Dims::new();
    for i in 0..n {
        let da = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let db = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out.push(if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::Shape(format!(
                "shapes {a:?} and {b:?} cannot be broadcast together"
            )));
        });
    }
    Ok(out)
}

/// A strided window onto a buffer: element `idx` (a multi-index of the owning node's shape)
/// lives at `offset + Σ idx[i] * strides[i]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Layout {
    pub offset: usize,
    pub strides: Strides,
}

/// The strides of a layout: up to 6 axes inline (no allocation to make or clone a layout of
/// the common ranks), more on the heap.
pub(crate) type Strides = crate::util::Small<isize, 6>;

/// The extents of a node: up to 6 axes inline, more on the heap.
pub(crate) type Dims = crate::util::Small<usize, 6>;

impl Layout {
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            offset: 0,
            strides: contiguous_strides(shape),
        }
    }

    /// Whether the layout is row-major contiguous for `shape` (extents of 1 ignored).
    pub fn is_contiguous(&self, shape: &[usize]) -> bool {
        if shape.contains(&0) {
            // No element is addressed: any strides describe the (empty) contiguous array.
            return true;
        }
        let mut acc = 1isize;
        for i in (0..shape.len()).rev() {
            if shape[i] != 1 && self.strides[i] != acc {
                return false;
            }
            acc = acc.saturating_mul(shape[i] as isize);
        }
        true
    }

    /// The highest and lowest element offsets touched (for bounds and 32-bit checks).
    pub fn extent(&self, shape: &[usize]) -> (isize, isize) {
        let mut lo = self.offset as isize;
        let mut hi = self.offset as isize;
        if numel(shape) == 0 {
            return (lo, hi);
        }
        for (d, s) in shape.iter().zip(&self.strides) {
            let span = (*d as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        (lo, hi)
    }

    /// Broadcasts a layout of `from` to shape `to` (already checked compatible).
    pub fn broadcast(&self, from: &[usize], to: &[usize]) -> Layout {
        let n = to.len();
        let k = n - from.len();
        let mut strides: Strides = std::iter::repeat_n(0, n).collect();
        for i in 0..from.len() {
            strides[k + i] = if from[i] == 1 && to[k + i] != 1 {
                0
            } else {
                self.strides[i]
            };
        }
        Layout {
            offset: self.offset,
            strides,
        }
    }

    pub fn permute(&self, perm: &[usize]) -> Layout {
        Layout {
            offset: self.offset,
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
        }
    }

    pub fn slice(&self, ranges: &[SliceSpec]) -> Layout {
        let mut offset = self.offset as isize;
        let mut strides = self.strides.clone();
        for (i, r) in ranges.iter().enumerate() {
            offset += r.start as isize * self.strides[i];
            strides[i] = self.strides[i] * r.step;
        }
        Layout {
            offset: offset as usize,
            strides,
        }
    }

    /// Strides for viewing `from` as `to` without a copy, when possible.
    pub fn reshape(&self, from: &[usize], to: &[usize]) -> Option<Layout> {
        if self.is_contiguous(from) {
            return Some(Layout {
                offset: self.offset,
                strides: contiguous_strides(to),
            });
        }
        // Drop extents of 1 and merge runs that are contiguous among themselves.
        let dims: Vec<(usize, isize)> = from
            .iter()
            .zip(&self.strides)
            .filter(|(d, _)| **d != 1)
            .map(|(d, s)| (*d, *s))
            .collect();
        let mut out: Strides = std::iter::repeat_n(0isize, to.len()).collect();
        let mut di = 0;
        let mut ti = 0;
        while ti < to.len() {
            if to[ti] == 1 {
                out[ti] = 0;
                ti += 1;
                continue;
            }
            if di >= dims.len() {
                return None;
            }
            // Group source dims [di, dj) and target dims [ti, tj) with equal products.
            let mut sp = dims[di].0;
            let mut tp = to[ti];
            let mut dj = di + 1;
            let mut tj = ti + 1;
            while sp != tp {
                if sp < tp {
                    if dj >= dims.len() {
                        return None;
                    }
                    sp *= dims[dj].0;
                    dj += 1;
                } else {
                    if tj >= to.len() {
                        return None;
                    }
                    tp *= to[tj];
                    tj += 1;
                }
            }
            for k in di..dj - 1 {
                if dims[k].1 != dims[k + 1].1 * dims[k + 1].0 as isize {
                    return None;
                }
            }
            let mut acc = dims[dj - 1].1;
            for t in (ti..tj).rev() {
                out[t] = acc;
                acc *= to[t] as isize;
            }
            di = dj;
            ti = tj;
        }
        if di != dims.len() {
            return None;
        }
        Some(Layout {
            offset: self.offset,
            strides: out,
        })
    }
}

/// One axis of a slice: `start`, `step` (non-zero, may be negative) and the resulting `len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSpec {
    /// First index taken.
    pub start: usize,
    /// Step between taken indices.
    pub step: isize,
    /// Number of indices taken.
    pub len: usize,
}

/// An axis selection of the [`s!`](crate::s) macro: a range with a step, or one index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceArg {
    /// `start..end;step`, `None` meaning the end of the axis (or its start for negative steps).
    Range {
        /// First index (negative counts from the end).
        start: Option<isize>,
        /// One past the last index (negative counts from the end).
        end: Option<isize>,
        /// Step, non-zero.
        step: isize,
    },
    /// One index (negative counts from the end); the axis is kept with extent 1.
    Index(isize),
}

impl SliceArg {
    /// Resolves against an axis of extent `n`, like Python's `slice.indices`.
    pub fn resolve(&self, n: usize, axis: usize) -> Result<SliceSpec> {
        let ni = n as isize;
        match *self {
            SliceArg::Index(i) => {
                let j = if i < 0 { i + ni } else { i };
                if j < 0 || j >= ni {
                    return Err(Error::Index(format!(
                        "index {i} is out of range for axis {axis} of extent {n}"
                    )));
                }
                Ok(SliceSpec {
                    start: j as usize,
                    step: 1,
                    len: 1,
                })
            }
            SliceArg::Range { start, end, step } => {
                if step == 0 {
                    return Err(Error::Index(format!("slice step 0 on axis {axis}")));
                }
                let norm = |v: isize| if v < 0 { v + ni } else { v };
                let (lo, hi) = if step > 0 {
                    (
                        start.map(norm).unwrap_or(0).clamp(0, ni),
                        end.map(norm).unwrap_or(ni).clamp(0, ni),
                    )
                } else {
                    (
                        start.map(norm).unwrap_or(ni - 1).clamp(-1, ni - 1),
                        end.map(norm).unwrap_or(-1).clamp(-1, ni - 1),
                    )
                };
                if let (Some(s), true) = (start, step > 0) {
                    if norm(s) > ni || norm(s) < 0 {
                        return Err(Error::Index(format!(
                            "slice start {s} is out of range for axis {axis} of extent {n}"
                        )));
                    }
                }
                // Without overflow for any step (`isize::MIN` included).
                let len = if step > 0 && hi > lo {
                    ((hi - lo) as usize).div_ceil(step as usize)
                } else if step < 0 && lo > hi {
                    ((lo - hi) as usize).div_ceil(step.unsigned_abs())
                } else {
                    0
                };
                Ok(SliceSpec {
                    start: if len == 0 { 0 } else { lo as usize },
                    step,
                    len,
                })
            }
        }
    }
}

impl From<std::ops::Range<isize>> for SliceArg {
    fn from(r: std::ops::Range<isize>) -> Self {
        SliceArg::Range {
            start: Some(r.start),
            end: Some(r.end),
            step: 1,
        }
    }
}
impl From<std::ops::RangeFrom<isize>> for SliceArg {
    fn from(r: std::ops::RangeFrom<isize>) -> Self {
        SliceArg::Range {
            start: Some(r.start),
            end: None,
            step: 1,
        }
    }
}
impl From<std::ops::RangeTo<isize>> for SliceArg {
    fn from(r: std::ops::RangeTo<isize>) -> Self {
        SliceArg::Range {
            start: None,
            end: Some(r.end),
            step: 1,
        }
    }
}
impl From<std::ops::RangeFull> for SliceArg {
    fn from(_: std::ops::RangeFull) -> Self {
        SliceArg::Range {
            start: None,
            end: None,
            step: 1,
        }
    }
}
impl From<isize> for SliceArg {
    fn from(i: isize) -> Self {
        SliceArg::Index(i)
    }
}

/// Builds an array of [`SliceArg`]s for [`Array::slice`](crate::Array::slice), NumPy style:
/// `s![1..3, ..;2, -1]` (`..;2` is "every second element", `-1` an index keeping the axis).
/// Bounds are `isize` so negative values count from the end.
///
/// ```
/// use cuprite_array::{s, shape::SliceArg};
/// let v = s![1..3, ..;-1, 0];
/// assert_eq!(v.len(), 3);
/// assert_eq!(v[1], SliceArg::Range { start: None, end: None, step: -1 });
/// ```
#[macro_export]
macro_rules! s {
    (@one $r:expr ; $step:expr) => {{
        let r: $crate::shape::SliceArg = ($r).into();
        match r {
            $crate::shape::SliceArg::Range { start, end, .. } => {
                $crate::shape::SliceArg::Range { start, end, step: $step }
            }
            other => other,
        }
    }};
    (@one $r:expr) => { $crate::shape::SliceArg::from($r) };
    ($($r:expr $(; $step:expr)?),* $(,)?) => {
        [$( $crate::s!(@one $r $(; $step)?) ),*]
    };
}

/// Normalises a possibly negative axis.
pub(crate) fn axis(ax: isize, ndim: usize) -> Result<usize> {
    let a = if ax < 0 { ax + ndim as isize } else { ax };
    if a < 0 || a >= ndim as isize {
        return Err(Error::Axis(format!(
            "axis {ax} is out of range for an array of {ndim} dimension(s)"
        )));
    }
    Ok(a as usize)
}
