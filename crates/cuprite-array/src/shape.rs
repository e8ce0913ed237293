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

    /// Whether `shape`'s elements lie packed in row-major order from this layout's offset and
    /// end within a storage of `len` elements: a view a library call may read in place as
    /// `len` contiguous elements from its offset.
    pub(crate) fn packed_within(&self, shape: &[usize], len: usize) -> bool {
        self.is_contiguous(shape)
            && self
                .offset
                .checked_add(numel(shape))
                .is_some_and(|end| end <= len)
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
    /// One index (negative counts from the end); [`Array::slice`](crate::Array::slice) drops
    /// the axis, as NumPy and ndarray do.
    Index(isize),
}

impl SliceArg {
    /// Resolves against an axis of extent `n`, like Python's `slice.indices`: range bounds are
    /// clamped to the axis (a start past the end gives an empty range); an index out of range
    /// is an `Err`. An index resolves to a range of length 1 at that index.
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
                // Saturating: bounds near isize::MIN/MAX clamp instead of wrapping.
                let norm = |v: isize| if v < 0 { v.saturating_add(ni) } else { v };
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

/// An integer usable as a slice bound or index in [`s!`](crate::s): every primitive integer
/// type. Values beyond `isize`'s range saturate (they lie past either end of any axis).
pub trait SliceBound: Copy {
    /// The value as an `isize`, saturating.
    fn to_isize(self) -> isize;
}

macro_rules! slice_bound {
    ($($t:ty),*) => {$(
        impl SliceBound for $t {
            #[allow(irrefutable_let_patterns)]
            fn to_isize(self) -> isize {
                if let Ok(v) = isize::try_from(self) {
                    v
                } else if self > 0 as $t {
                    isize::MAX
                } else {
                    isize::MIN
                }
            }
        }
        impl From<$t> for SliceArg {
            fn from(i: $t) -> Self {
                SliceArg::Index(i.to_isize())
            }
        }
    )*};
}
slice_bound!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

/// A range usable in [`s!`](crate::s): `a..b`, `a..`, `..b`, `..`, `a..=b`, `..=b`, with a
/// step given separately (`s![a..=b;-1]`). An inclusive end is made exclusive in the direction
/// of the step: `5..=1;-1` takes 5, 4, 3, 2, 1.
pub trait SliceRange {
    /// The selection with `step` (non-zero; zero is an `Err` when the slice resolves).
    fn with_step(self, step: isize) -> SliceArg;
}

/// The exclusive end of an inclusive range ending at `b`, for a step's direction; `None` when
/// the inclusive end is the last (first, for negative steps) index counted from the end.
fn inclusive_end(b: isize, step: isize) -> Option<isize> {
    if step < 0 {
        // One before `b`; before index 0 is "past the start" (None), not index -1.
        if b == 0 {
            None
        } else {
            Some(b.saturating_sub(1))
        }
    } else if b == -1 {
        None
    } else {
        Some(b.saturating_add(1))
    }
}

impl<T: SliceBound> SliceRange for std::ops::Range<T> {
    fn with_step(self, step: isize) -> SliceArg {
        SliceArg::Range {
            start: Some(self.start.to_isize()),
            end: Some(self.end.to_isize()),
            step,
        }
    }
}
impl<T: SliceBound> SliceRange for std::ops::RangeFrom<T> {
    fn with_step(self, step: isize) -> SliceArg {
        SliceArg::Range {
            start: Some(self.start.to_isize()),
            end: None,
            step,
        }
    }
}
impl<T: SliceBound> SliceRange for std::ops::RangeTo<T> {
    fn with_step(self, step: isize) -> SliceArg {
        SliceArg::Range {
            start: None,
            end: Some(self.end.to_isize()),
            step,
        }
    }
}
impl<T: SliceBound> SliceRange for std::ops::RangeInclusive<T> {
    fn with_step(self, step: isize) -> SliceArg {
        SliceArg::Range {
            start: Some(self.start().to_isize()),
            end: inclusive_end(self.end().to_isize(), step),
            step,
        }
    }
}
impl<T: SliceBound> SliceRange for std::ops::RangeToInclusive<T> {
    fn with_step(self, step: isize) -> SliceArg {
        SliceArg::Range {
            start: None,
            end: inclusive_end(self.end.to_isize(), step),
            step,
        }
    }
}
impl SliceRange for std::ops::RangeFull {
    fn with_step(self, step: isize) -> SliceArg {
        SliceArg::Range {
            start: None,
            end: None,
            step,
        }
    }
}

macro_rules! range_into_slice_arg {
    ($($r:ident),*) => {$(
        impl<T: SliceBound> From<std::ops::$r<T>> for SliceArg {
            fn from(r: std::ops::$r<T>) -> Self {
                r.with_step(1)
            }
        }
    )*};
}
range_into_slice_arg!(Range, RangeFrom, RangeTo, RangeInclusive, RangeToInclusive);
impl From<std::ops::RangeFull> for SliceArg {
    fn from(r: std::ops::RangeFull) -> Self {
        r.with_step(1)
    }
}

/// Builds an array of [`SliceArg`]s for [`Array::slice`](crate::Array::slice), NumPy style:
/// `s![1..3, ..;2, -1]` (`..;2` is "every second element"; `-1` an index, which drops the
/// axis as in NumPy). Bounds are any integer type (`s![..n]` with `n: usize`); negative values
/// count from the end; `a..=b` includes `b`.
///
/// ```
/// use cuprite_array::{Array, s, shape::SliceArg};
/// let v = s![1..3, ..;-1, 0];
/// assert_eq!(v.len(), 3);
/// assert_eq!(v[1], SliceArg::Range { start: None, end: None, step: -1 });
/// let a = Array::from_slice(&[0i32, 1, 2, 3, 4, 5], &[2, 3])?;
/// let n: usize = 2;
/// assert_eq!(a.slice(&s![1, ..n])?.to_vec()?, vec![3, 4]);    // shape [2]: the index drops axis 0
/// assert_eq!(a.slice(&s![.., 0..=1])?.shape(), &[2, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[macro_export]
macro_rules! s {
    (@one $r:expr ; $step:expr) => {
        $crate::shape::SliceRange::with_step($r, $step)
    };
    (@one $r:expr) => { $crate::shape::SliceArg::from($r) };
    ($($r:expr $(; $step:expr)?),* $(,)?) => {
        [$( $crate::s!(@one $r $(; $step)?) ),*]
    };
}

/// A shape argument of [`Array::reshape`](crate::Array::reshape): extents as any slice, array
/// or `Vec` of `usize`, `isize` or `i32`; signed extents may hold one `-1`, inferred from the
/// element count as in NumPy.
pub trait ShapeArg {
    /// The extents as `isize` (`-1` for the inferred one), `None` when one does not fit.
    fn extents(&self) -> Vec<Option<isize>>;
}

macro_rules! shape_arg {
    ($($t:ty),*) => {$(
        impl ShapeArg for [$t] {
            fn extents(&self) -> Vec<Option<isize>> {
                self.iter().map(|&d| isize::try_from(d).ok()).collect()
            }
        }
        impl<const N: usize> ShapeArg for [$t; N] {
            fn extents(&self) -> Vec<Option<isize>> {
                self[..].extents()
            }
        }
        impl ShapeArg for Vec<$t> {
            fn extents(&self) -> Vec<Option<isize>> {
                self[..].extents()
            }
        }
    )*};
}
shape_arg!(usize, isize, i32);

/// Resolves a [`ShapeArg`] for an array of `len` elements and shape `from`: at most one `-1`,
/// inferred; other extents non-negative; the counts must match. The `Err` names both shapes.
pub(crate) fn resolve_shape<S: ShapeArg + ?Sized>(
    shape: &S,
    from: &[usize],
    len: usize,
) -> Result<Vec<usize>> {
    let ext = shape.extents();
    let shown: Vec<String> = ext
        .iter()
        .map(|e| e.map_or("(too large)".into(), |v| v.to_string()))
        .collect();
    let bad = || {
        Error::Shape(format!(
            "cannot reshape an array of shape {from:?} ({len} elements) to [{}]",
            shown.join(", ")
        ))
    };
    let mut infer = None;
    let mut known = Vec::with_capacity(ext.len());
    for (i, e) in ext.iter().enumerate() {
        match *e {
            Some(-1) if infer.is_none() => {
                infer = Some(i);
                known.push(1);
            }
            Some(v) if v >= 0 => known.push(v as usize),
            _ => return Err(bad()),
        }
    }
    let rest = checked_numel(&known).map_err(|_| bad())?;
    if let Some(i) = infer {
        // The inferred extent makes the counts equal; an empty rest infers nothing.
        if rest == 0 || len % rest != 0 {
            return Err(bad());
        }
        known[i] = len / rest;
    } else if rest != len {
        return Err(bad());
    }
    Ok(known)
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
