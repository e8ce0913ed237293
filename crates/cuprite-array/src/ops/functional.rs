//! User functions over arrays (NumPy's functional programming routines): `fromfunction`,
//! `apply_along_axis`, `apply_over_axes`, and `vectorize` as host closures
//! ([`Array::map_host`], [`Array::zip_map_host`]). Device-side element-wise work needs no
//! `vectorize`: ordinary arithmetic on arrays already fuses into one kernel.

use crate::array::Array;
use crate::device::with_device;
use crate::dtype::{Element, Numeric};
use crate::error::{Error, Result};
use crate::shape::{SliceArg, axis, broadcast_shapes, checked_numel};

/// NumPy's `fromfunction(function, shape, dtype)`: calls `f` once with the index grids of
/// `shape` (one per axis, each of the full shape, as `T`: NumPy's `dtype`) and returns its
/// result. The grids are lazy broadcast views, so element-wise `f`s fuse into one kernel.
///
/// ```
/// use cuprite_array::{Array, ops::fromfunction};
/// let a = fromfunction::<i32, i32>(&[2, 3], |ix| Ok(&ix[0] * 10 + &ix[1]))?;
/// assert_eq!(a.to_vec()?, [0, 1, 2, 10, 11, 12]);
/// let eye = fromfunction::<f64, bool>(&[2, 2], |ix| ix[0].try_equal(&ix[1]))?;
/// assert_eq!(eye.to_vec()?, [true, false, false, true]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fromfunction<T: Numeric, U: Element>(
    shape: &[usize],
    f: impl FnOnce(&[Array<T>]) -> Result<Array<U>>,
) -> Result<Array<U>> {
    let grids = crate::ops::tricks::indices_sparse::<T>(shape)?
        .into_iter()
        .map(|g| g.broadcast_to(shape))
        .collect::<Result<Vec<_>>>()?;
    f(&grids)
}

impl<T: Element> Array<T> {
    /// NumPy's `apply_along_axis(func1d, axis, arr)`: `f` on every 1-D slice along `ax`; the
    /// results (all of one shape) replace that axis, so the output shape is
    /// `shape[..ax] + result shape + shape[ax + 1..]`. `f` runs on the host once per slice
    /// (each slice is a lazy view on the array's device). Zero-size iteration axes are an
    /// `Err`, as in NumPy.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i64, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let s = a.apply_along_axis(0, |col| col.sum())?;
    /// assert_eq!(s.to_vec()?, [5, 7, 9]);
    /// let d = a.apply_along_axis(1, |row| Ok(row.flip(&[0])?.reshape(&[3, 1])?))?;
    /// assert_eq!((d.shape(), d.to_vec()?), (&[2, 3, 1][..], vec![3, 2, 1, 6, 5, 4]));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn apply_along_axis<U: Element>(
        &self,
        ax: isize,
        mut f: impl FnMut(&Array<T>) -> Result<Array<U>>,
    ) -> Result<Array<U>> {
        let nd = self.ndim();
        let a = axis(ax, nd)?;
        let outer: Vec<usize> = (0..nd)
            .filter(|&d| d != a)
            .map(|d| self.shape()[d])
            .collect();
        if outer.contains(&0) {
            return Err(Error::Shape(format!(
                "apply_along_axis: cannot apply along axis {a} of shape {:?}: another axis is \
                 empty",
                self.shape()
            )));
        }
        let mut outs: Vec<Array<U>> = Vec::new();
        for idx in crate::ops::tricks::ndindex(&outer) {
            let mut it = idx.iter();
            let args: Vec<SliceArg> = (0..nd)
                .map(|d| {
                    if d == a {
                        (..).into()
                    } else {
                        SliceArg::Index(*it.next().unwrap_or(&0) as isize)
                    }
                })
                .collect();
            let r = f(&self.slice(&args)?)?;
            if let Some(first) = outs.first()
                && first.shape() != r.shape()
            {
                return Err(Error::Shape(format!(
                    "apply_along_axis: results of shapes {:?} and {:?}; all must match",
                    first.shape(),
                    r.shape()
                )));
            }
            outs.push(r);
        }
        let rs = outs[0].shape().to_vec();
        let stacked = Array::stack(&outs.iter().collect::<Vec<_>>(), 0)?;
        let mut grid = outer.clone();
        grid.extend_from_slice(&rs);
        let g = stacked.reshape(&grid)?;
        // Axes of `g`: outer (before a, after a), then the result's; move the result's to `a`.
        let (no, nr) = (outer.len(), rs.len());
        let mut perm: Vec<usize> = (0..a).collect();
        perm.extend(no..no + nr);
        perm.extend(a..no);
        g.permute(&perm)
    }

    /// NumPy's `apply_over_axes(func, a, axes)`: `f(a, axis)` for each axis in turn, each
    /// result feeding the next; a result with one axis fewer gets it back with extent 1 (so
    /// reductions keep the rank). Any other rank is an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&(0..24).collect::<Vec<i64>>(), &[2, 3, 4])?;
    /// let s = a.apply_over_axes(|x, ax| x.sum_axes(&[ax]), &[0, 2])?;
    /// assert_eq!((s.shape(), s.to_vec()?), (&[1, 3, 1][..], vec![60, 92, 124]));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn apply_over_axes(
        &self,
        mut f: impl FnMut(&Array<T>, isize) -> Result<Array<T>>,
        axes: &[isize],
    ) -> Result<Array<T>> {
        let mut v = self.clone();
        for &x in axes {
            let a = axis(x, v.ndim())?;
            let r = f(&v, a as isize)?;
            v = if r.ndim() == v.ndim() {
                r
            } else if r.ndim() + 1 == v.ndim() {
                r.expand_dims(a as isize)?
            } else {
                return Err(Error::Shape(format!(
                    "apply_over_axes: the function gave shape {:?} for an input of shape {:?}; \
                     it must keep the rank or drop one axis",
                    r.shape(),
                    v.shape()
                )));
            };
        }
        Ok(v)
    }

    /// NumPy's `vectorize(f)(a)`: `f` on every element, on the host (the values are copied
    /// there and the result back to the array's device). For work that stays on the device,
    /// write the expression with array operations instead: it fuses into one kernel.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 5, 10], &[3])?;
    /// let b = a.map_host(|x| if x > 3 { x as f64 / 2.0 } else { -1.0 })?;
    /// assert_eq!(b.to_vec()?, [-1.0, 2.5, 5.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn map_host<U: Element>(&self, f: impl Fn(T) -> U) -> Result<Array<U>> {
        let v: Vec<U> = self.to_vec()?.into_iter().map(f).collect();
        Array::from_slice_on(self.device(), &v, self.shape())
    }

    /// NumPy's `vectorize(f)(a, b)` for two arguments: `f` on every pair after broadcasting
    /// (on the host, as [`map_host`](Self::map_host)). Shapes that do not broadcast, or
    /// arrays on different devices, are an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1u8, 2, 3], &[3, 1])?;
    /// let b = Array::from_slice(&[10.0f32, 20.0], &[2])?;
    /// let c = a.zip_map_host(&b, |x, y| x as f32 * y)?;
    /// assert_eq!((c.shape(), c.to_vec()?), (&[3, 2][..], vec![10., 20., 20., 40., 30., 60.]));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn zip_map_host<U: Element, V: Element>(
        &self,
        other: &Array<U>,
        f: impl Fn(T, U) -> V,
    ) -> Result<Array<V>> {
        if self.device() != other.device() {
            return Err(Error::DeviceMismatch(format!(
                "zip_map_host: arrays on {:?} and {:?}",
                self.device(),
                other.device()
            )));
        }
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        checked_numel(&shape)?;
        let x = self.broadcast_to(&shape)?.to_vec()?;
        let y = other.broadcast_to(&shape)?.to_vec()?;
        let v: Vec<V> = x.into_iter().zip(y).map(|(p, q)| f(p, q)).collect();
        with_device(self.device(), || Array::from_slice(&v, &shape))
    }
}
