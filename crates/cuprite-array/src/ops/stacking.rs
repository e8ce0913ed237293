//! Stacking, splitting and axis shuffles under NumPy's names: `stack`, the `*stack` family,
//! `split`/`array_split`, `repeat`, `meshgrid`, `squeeze`, `swapaxes`, `moveaxis`, `rot90`.
//!
//! Everything here is built from views (reshape, permute, slice, broadcast), one
//! [`Array::concat`] pass, or (`repeat`) one copy kernel; nothing matches on the device.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::TakeOpts;
use crate::ops::repeat::RepeatRows;
use crate::ops::{AxesOpts, AxisOpts};
use crate::shape::{SliceArg, axis};
use std::sync::Arc;

/// Slice arguments taking `lo..hi` of axis `ax` and all of every other axis.
pub(crate) fn along(ndim: usize, ax: usize, lo: usize, hi: usize) -> Vec<SliceArg> {
    let mut v: Vec<SliceArg> = vec![(..).into(); ndim];
    v[ax] = SliceArg::Range {
        start: Some(lo as isize),
        end: Some(hi as isize),
        step: 1,
    };
    v
}

/// How `meshgrid` lays out its outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Indexing {
    /// Cartesian: the first two outputs' axes swapped (NumPy's default `indexing='xy'`).
    #[default]
    Xy,
    /// Matrix: output `i` varies along axis `i`.
    Ij,
}

impl<T: Element> Array<T> {
    /// Joins arrays of one shape along a new axis `ax` (NumPy's `stack`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2], &[2])?;
    /// let b = Array::from_slice(&[3i32, 4], &[2])?;
    /// let s = Array::stack(&[&a, &b], 1)?;
    /// assert_eq!(s.shape(), &[2, 2]);
    /// assert_eq!(s.to_vec()?, vec![1, 3, 2, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn stack(arrays: &[&Array<T>], ax: isize) -> Result<Array<T>> {
        let first = arrays
            .first()
            .ok_or_else(|| Error::InvalidArgument("stack of no arrays".into()))?;
        if let Some(b) = arrays.iter().find(|b| b.shape() != first.shape()) {
            return Err(Error::Shape(format!(
                "stack needs arrays of one shape: {:?} and {:?}",
                first.shape(),
                b.shape()
            )));
        }
        let a = axis(ax, first.ndim() + 1)?;
        let parts: Vec<Array<T>> = arrays
            .iter()
            .map(|x| x.expand_dims(a as isize))
            .collect::<Result<_>>()?;
        let refs: Vec<&Array<T>> = parts.iter().collect();
        Array::concat(&refs, a as isize)
    }

    /// Joins along the first axis, 1-D arrays taken as rows (NumPy's `vstack`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1u8, 2], &[2])?;
    /// assert_eq!(Array::vstack(&[&a, &a])?.shape(), &[2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn vstack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let parts: Vec<Array<T>> = arrays
            .iter()
            .map(|a| a.atleast_2d())
            .collect::<Result<_>>()?;
        Array::concat(&parts.iter().collect::<Vec<_>>(), 0)
    }

    /// Joins along the second axis (the first for 1-D arrays; NumPy's `hstack`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1u8, 2], &[2])?;
    /// assert_eq!(Array::hstack(&[&a, &a])?.to_vec()?, vec![1, 2, 1, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn hstack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let parts: Vec<Array<T>> = arrays
            .iter()
            .map(|a| a.atleast_1d())
            .collect::<Result<_>>()?;
        let ax = if parts.first().is_some_and(|p| p.ndim() == 1) {
            0
        } else {
            1
        };
        Array::concat(&parts.iter().collect::<Vec<_>>(), ax)
    }

    /// Joins along the third axis, 1-D `[n]` taken as `[1, n, 1]` and 2-D `[m, n]` as
    /// `[m, n, 1]` (NumPy's `dstack`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1u8, 2], &[2])?;
    /// assert_eq!(Array::dstack(&[&a, &a])?.shape(), &[1, 2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn dstack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let parts: Vec<Array<T>> = arrays
            .iter()
            .map(|a| a.atleast_3d())
            .collect::<Result<_>>()?;
        Array::concat(&parts.iter().collect::<Vec<_>>(), 2)
    }

    /// Joins 1-D arrays as columns of a 2-D array (2-D arrays join as they are; NumPy's
    /// `column_stack`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1u8, 2], &[2])?;
    /// let b = Array::from_slice(&[3u8, 4], &[2])?;
    /// assert_eq!(Array::column_stack(&[&a, &b])?.to_vec()?, vec![1, 3, 2, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn column_stack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let parts: Vec<Array<T>> = arrays
            .iter()
            .map(|a| match a.ndim() {
                0 | 1 => a.reshape(&[a.len(), 1]),
                _ => Ok((*a).clone()),
            })
            .collect::<Result<_>>()?;
        Array::concat(&parts.iter().collect::<Vec<_>>(), 1)
    }

    /// The array with at least one axis (a 0-d array becomes `[1]`).
    pub fn atleast_1d(&self) -> Result<Array<T>> {
        match self.ndim() {
            0 => self.reshape(&[1]),
            _ => Ok(self.clone()),
        }
    }

    /// The array with at least two axes (`[n]` becomes `[1, n]`).
    pub fn atleast_2d(&self) -> Result<Array<T>> {
        match self.ndim() {
            0 | 1 => self.reshape(&[1, self.len()]),
            _ => Ok(self.clone()),
        }
    }

    /// The array with at least three axes (`[n]` becomes `[1, n, 1]`, `[m, n]` `[m, n, 1]`).
    pub fn atleast_3d(&self) -> Result<Array<T>> {
        match self.ndim() {
            0 | 1 => self.reshape(&[1, self.len(), 1]),
            2 => self.reshape(&[self.shape()[0], self.shape()[1], 1]),
            _ => Ok(self.clone()),
        }
    }

    /// Splits along `ax` into `sections` pieces of equal extent; an extent that `sections`
    /// does not divide is an `Err` (NumPy's `split` with an integer).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2, 3, 4], &[4])?;
    /// let p = a.split(2, 0)?;
    /// assert_eq!(p[1].to_vec()?, vec![3, 4]);
    /// assert!(a.split(3, 0).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn split(&self, sections: usize, ax: isize) -> Result<Vec<Array<T>>> {
        let a = axis(ax, self.ndim())?;
        let n = self.shape()[a];
        if sections == 0 || n % sections != 0 {
            return Err(Error::InvalidArgument(format!(
                "split: an axis of extent {n} does not split into {sections} equal pieces"
            )));
        }
        self.array_split(sections, ax)
    }

    /// Splits along `ax` into `sections` pieces, the first `n % sections` one element longer
    /// (NumPy's `array_split`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2, 3, 4, 5], &[5])?;
    /// let p = a.array_split(3, 0)?;
    /// assert_eq!(p.iter().map(|x| x.len()).collect::<Vec<_>>(), vec![2, 2, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn array_split(&self, sections: usize, ax: isize) -> Result<Vec<Array<T>>> {
        let a = axis(ax, self.ndim())?;
        if sections == 0 {
            return Err(Error::InvalidArgument("array_split into 0 sections".into()));
        }
        let n = self.shape()[a];
        let (q, r) = (n / sections, n % sections);
        let mut cuts = Vec::with_capacity(sections);
        let mut at = 0;
        for i in 0..sections - 1 {
            at += q + usize::from(i < r);
            cuts.push(at);
        }
        self.split_at(&cuts, ax)
    }

    /// Splits along `ax` before each index of `cuts` (NumPy's `split` with a list); indices
    /// past the end give empty pieces, and decreasing indices are an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2, 3, 4, 5], &[5])?;
    /// let p = a.split_at(&[1, 3], 0)?;
    /// assert_eq!(p[1].to_vec()?, vec![2, 3]);
    /// assert_eq!(p[2].to_vec()?, vec![4, 5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn split_at(&self, cuts: &[usize], ax: isize) -> Result<Vec<Array<T>>> {
        let a = axis(ax, self.ndim())?;
        let n = self.shape()[a];
        if cuts.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::InvalidArgument(format!(
                "split_at: the cut indices {cuts:?} decrease"
            )));
        }
        let mut bounds = vec![0];
        bounds.extend(cuts.iter().map(|&c| c.min(n)));
        bounds.push(n);
        bounds
            .windows(2)
            .map(|w| self.slice(&along(self.ndim(), a, w[0], w[1])))
            .collect()
    }

    /// Repeats each element of the flattened array `repeats` times (along one axis with
    /// [`repeat_with`](Self::repeat_with); NumPy's `repeat` with one count).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// use cuprite_array::ops::AxisOpts;
    /// let a = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.repeat(2)?.to_vec()?, vec![1, 1, 2, 2, 3, 3, 4, 4]);
    /// assert_eq!(a.repeat_with(2, AxisOpts::new().axis(0))?.to_vec()?, vec![1, 2, 1, 2, 3, 4, 3, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn repeat(&self, repeats: usize) -> Result<Array<T>> {
        self.repeat_with(repeats, AxisOpts::new())
    }
    /// [`repeat`](Self::repeat) with NumPy's `axis` ([`AxisOpts`]).
    pub fn repeat_with(&self, repeats: usize, opts: AxisOpts) -> Result<Array<T>> {
        let ax = opts.axis;
        let (x, a) = match ax {
            None => (self.flatten()?, 0),
            Some(ax) => (self.clone(), axis(ax, self.ndim())?),
        };
        let mut out = x.shape().to_vec();
        out[a] = out[a].checked_mul(repeats).ok_or_else(|| {
            Error::Shape(format!(
                "repeating shape {:?} {repeats} times overflows",
                x.shape()
            ))
        })?;
        crate::shape::checked_numel(&out)?;
        if crate::shape::numel(&out) == 0 {
            return Ok(crate::device::with_device(x.device(), || {
                Array::zeros(&out)
            }));
        }
        // One copy kernel: output row `J` (every axis up to `a` folded into the row number)
        // is input row `J / repeats`.
        let call = Arc::new(RepeatRows {
            dtype: T::DTYPE,
            rows: x.shape()[..=a].iter().product(),
            inner: x.shape()[a + 1..].iter().product(),
            reps: repeats,
        });
        Ok(Array::from_node(Node::new(
            Op::Library(call, vec![x.node.clone()]),
            T::DTYPE,
            out,
            x.device(),
        )))
    }

    /// Repeats element `i` along `ax` `counts[i]` times (NumPy's `repeat` with a list).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2, 3], &[3])?;
    /// assert_eq!(a.repeat_each(&[0, 2, 1], 0)?.to_vec()?, vec![2, 2, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn repeat_each(&self, counts: &[usize], ax: isize) -> Result<Array<T>> {
        let a = axis(ax, self.ndim())?;
        if counts.len() != self.shape()[a] {
            return Err(Error::Shape(format!(
                "repeat_each: {} counts for an axis of extent {}",
                counts.len(),
                self.shape()[a]
            )));
        }
        let mut idx: Vec<i64> = Vec::new();
        for (i, &c) in counts.iter().enumerate() {
            idx.extend(std::iter::repeat_n(i as i64, c));
        }
        let n = idx.len();
        let idx = Array::from_slice_on(self.device(), &idx, &[n])?;
        self.take_with(&idx, TakeOpts::new().axis(a as isize))
    }

    /// Removes the axes of extent 1 (only those of [`AxesOpts`] with
    /// [`squeeze_with`](Self::squeeze_with), where naming one of another extent is an `Err`;
    /// NumPy's `squeeze`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// use cuprite_array::ops::AxesOpts;
    /// let a = Array::<f32>::zeros(&[1, 3, 1]);
    /// assert_eq!(a.squeeze()?.shape(), &[3]);
    /// assert_eq!(a.squeeze_with(AxesOpts::new().axes(&[0]))?.shape(), &[3, 1]);
    /// assert!(a.squeeze_with(AxesOpts::new().axes(&[1])).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn squeeze(&self) -> Result<Array<T>> {
        self.squeeze_with(AxesOpts::new())
    }
    /// [`squeeze`](Self::squeeze) with NumPy's `axis` ([`AxesOpts`]).
    pub fn squeeze_with(&self, opts: AxesOpts) -> Result<Array<T>> {
        let axes = opts.get();
        let nd = self.ndim();
        let mut drop = vec![false; nd];
        match axes {
            None => {
                for (d, &s) in drop.iter_mut().zip(self.shape()) {
                    *d = s == 1;
                }
            }
            Some(ax) => {
                for &x in ax {
                    let a = axis(x, nd)?;
                    if self.shape()[a] != 1 {
                        return Err(Error::Shape(format!(
                            "squeeze: axis {x} of shape {:?} has extent {}, not 1",
                            self.shape(),
                            self.shape()[a]
                        )));
                    }
                    drop[a] = true;
                }
            }
        }
        let shape: Vec<usize> = (0..nd)
            .filter(|&i| !drop[i])
            .map(|i| self.shape()[i])
            .collect();
        self.reshape(&shape)
    }

    /// Exchanges axes `a` and `b` (a view; NumPy's `swapaxes`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<f32>::zeros(&[2, 3, 4]);
    /// assert_eq!(a.swapaxes(0, -1)?.shape(), &[4, 3, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array<T>> {
        let (a, b) = (axis(a, self.ndim())?, axis(b, self.ndim())?);
        let mut p: Vec<usize> = (0..self.ndim()).collect();
        p.swap(a, b);
        self.permute(&p)
    }

    /// Moves axis `from` to position `to`, the others keeping their order (a view; NumPy's
    /// `moveaxis`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<f32>::zeros(&[2, 3, 4]);
    /// assert_eq!(a.moveaxis(0, -1)?.shape(), &[3, 4, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn moveaxis(&self, from: isize, to: isize) -> Result<Array<T>> {
        let (f, t) = (axis(from, self.ndim())?, axis(to, self.ndim())?);
        let mut p: Vec<usize> = (0..self.ndim()).filter(|&i| i != f).collect();
        p.insert(t, f);
        self.permute(&p)
    }

    /// Rotates by 90° `k` times in the plane of axes `(a, b)`, from the first toward the
    /// second (a view; NumPy's `rot90`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(m.rot90(1, (0, 1))?.to_vec()?, vec![2, 4, 1, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rot90(&self, k: i64, axes: (isize, isize)) -> Result<Array<T>> {
        let (a, b) = (axis(axes.0, self.ndim())?, axis(axes.1, self.ndim())?);
        if a == b {
            return Err(Error::Axis(format!(
                "rot90 needs two different axes, got {axes:?}"
            )));
        }
        match k.rem_euclid(4) {
            0 => Ok(self.clone()),
            1 => self.flip(&[b as isize])?.swapaxes(a as isize, b as isize),
            2 => self.flip(&[a as isize, b as isize]),
            _ => self.swapaxes(a as isize, b as isize)?.flip(&[b as isize]),
        }
    }
}

/// Coordinate matrices from 1-D coordinate vectors (NumPy's `meshgrid`, copies): with
/// [`Indexing::Xy`] the outputs have shape `[len(x1), len(x0), len(x2), ...]`, with
/// [`Indexing::Ij`] `[len(x0), len(x1), ...]`.
///
/// ```
/// use cuprite_array::{Array, ops::{meshgrid, Indexing}};
/// let x = Array::from_slice(&[1i32, 2, 3], &[3])?;
/// let y = Array::from_slice(&[7i32, 8], &[2])?;
/// let g = meshgrid(&[&x, &y], Indexing::Xy)?;
/// assert_eq!(g[0].to_vec()?, vec![1, 2, 3, 1, 2, 3]);
/// assert_eq!(g[1].to_vec()?, vec![7, 7, 7, 8, 8, 8]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn meshgrid<T: Element>(xs: &[&Array<T>], indexing: Indexing) -> Result<Vec<Array<T>>> {
    let n = xs.len();
    let mut shape: Vec<usize> = xs.iter().map(|x| x.len()).collect();
    let swap = indexing == Indexing::Xy && n >= 2;
    if swap {
        shape.swap(0, 1);
    }
    crate::shape::checked_numel(&shape)?;
    xs.iter()
        .enumerate()
        .map(|(i, x)| {
            let pos = match (swap, i) {
                (true, 0) => 1,
                (true, 1) => 0,
                _ => i,
            };
            let mut s = vec![1; n];
            s[pos] = x.len();
            x.flatten()?.reshape(&s)?.broadcast_to(&shape)?.contiguous()
        })
        .collect()
}
