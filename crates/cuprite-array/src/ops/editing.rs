//! Editing whole arrays, NumPy's way: `delete`, `resize`, `trim_zeros`, `append` (with
//! `axis=None`), `expand_dims` and `roll` over several axes, `diff` with `prepend`/`append`,
//! `ediff1d`, and `argpartition`. Each is a composition of views, gathers and
//! concatenations, so it runs on the array's device.

use crate::array::Array;
use crate::device::with_device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::ops::AxisOpts;
use crate::ops::TakeOpts;
use crate::ops::index::IndexMode;
use crate::shape::{SliceArg, axis, checked_numel};

/// Which ends [`Array::trim_zeros`] trims (NumPy's `trim='f'`, `'b'`, `'fb'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Trim {
    /// Leading zeros only (`'f'`).
    Front,
    /// Trailing zeros only (`'b'`).
    Back,
    /// Both ends (`'fb'`, the default).
    #[default]
    Both,
}

impl<T: Element> Array<T> {
    /// NumPy's `delete(arr, obj, axis)`: the array without the entries at `obj` along `axis`
    /// (`None`: of the flattened array). Negative positions count from the end; repeats are
    /// removed once; a position outside the axis is an `Err` naming it. A boolean mask is
    /// given as its true positions.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// use cuprite_array::ops::AxisOpts;
    /// let a = Array::from_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], &[3, 4])?;
    /// assert_eq!(a.delete_with(&[1], AxisOpts::new().axis(0))?.to_vec()?, [1, 2, 3, 4, 9, 10, 11, 12]);
    /// assert_eq!(a.delete_with(&[0, -1], AxisOpts::new().axis(1))?.shape(), &[3, 2]);
    /// assert_eq!(a.delete(&[1, 3, 5])?.to_vec()?, [1, 3, 5, 7, 8, 9, 10, 11, 12]);
    /// assert!(a.delete_with(&[4], AxisOpts::new().axis(1)).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn delete(&self, obj: &[i64]) -> Result<Array<T>> {
        self.delete_with(obj, AxisOpts::new())
    }
    /// [`delete`](Self::delete) with NumPy's `axis` ([`AxisOpts`]).
    pub fn delete_with(&self, obj: &[i64], opts: AxisOpts) -> Result<Array<T>> {
        let ax = opts.axis;
        let (src, a) = match ax {
            None => (self.flatten()?, 0),
            Some(x) => (self.clone(), axis(x, self.ndim())?),
        };
        let n = src.shape()[a];
        let mut drop = vec![false; n];
        for &i in obj {
            let j = if i < 0 { i + n as i64 } else { i };
            if j < 0 || j >= n as i64 {
                return Err(Error::Index(format!(
                    "delete: index {i} is out of bounds for axis {a} with size {n}"
                )));
            }
            drop[j as usize] = true;
        }
        let keep: Vec<i64> = (0..n as i64).filter(|&i| !drop[i as usize]).collect();
        let k = Array::from_slice_on(src.device(), &keep, &[keep.len()])?;
        src.take_with(&k, TakeOpts::new().axis(a as isize))
    }

    /// NumPy's `resize(a, new_shape)`: the flattened elements repeated (cycled) to fill
    /// `shape`; an empty array gives zeros.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[0, 1, 2, 3], &[2, 2])?;
    /// assert_eq!(a.resize(&[2, 3])?.to_vec()?, [0, 1, 2, 3, 0, 1]);
    /// assert_eq!(a.resize(&[1, 2])?.to_vec()?, [0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn resize(&self, shape: &[usize]) -> Result<Array<T>> {
        let n = checked_numel(shape)?;
        if self.is_empty() {
            return Ok(with_device(self.device(), || Array::zeros(shape)));
        }
        let i = with_device(self.device(), || Array::arange_len(n))?;
        self.flatten()?
            .take_with(&i, TakeOpts::new().mode(IndexMode::Wrap))?
            .reshape(shape)
    }

    /// NumPy's `trim_zeros(filt, trim, axis)`: the array without its leading and/or trailing
    /// hyperplanes of zeros along each of `axes` (`None`: every axis), as a view. The bounding
    /// box comes from one host pass over the "not zero" mask (`-0.0` is zero, NaN is not). An
    /// all-zero array trims to empty at the trimmed ends, as in NumPy.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::Trim};
    /// let a = Array::from_slice(&[0, 0, 0, 1, 2, 3, 0, 2, 1, 0], &[10])?;
    /// assert_eq!(a.trim_zeros(Trim::Both, None)?.to_vec()?, [1, 2, 3, 0, 2, 1]);
    /// assert_eq!(a.trim_zeros(Trim::Back, None)?.to_vec()?, [0, 0, 0, 1, 2, 3, 0, 2, 1]);
    /// let m = Array::from_slice(&[0, 0, 0, 0, 1, 0, 0, 2, 0], &[3, 3])?;
    /// assert_eq!(m.trim_zeros(Trim::Both, None)?.to_vec()?, [1, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn trim_zeros(&self, trim: Trim, axes: Option<&[isize]>) -> Result<Array<T>> {
        let nd = self.ndim();
        let axes: Vec<usize> = match axes {
            Some(a) => a.iter().map(|&x| axis(x, nd)).collect::<Result<_>>()?,
            None => (0..nd).collect(),
        };
        let v = self.to_vec()?;
        let shape = self.shape();
        // The bounding box [start, stop) of the non-zero elements (all 0 when there is none).
        let mut start = vec![usize::MAX; nd];
        let mut stop = vec![0usize; nd];
        let mut any = false;
        for (flat, idx) in crate::ops::tricks::ndindex(shape).enumerate() {
            if v[flat] != T::default() {
                any = true;
                for d in 0..nd {
                    start[d] = start[d].min(idx[d]);
                    stop[d] = stop[d].max(idx[d] + 1);
                }
            }
        }
        if !any {
            start = vec![0; nd];
            stop = vec![0; nd];
        }
        let args: Vec<SliceArg> = (0..nd)
            .map(|d| {
                let lo = if axes.contains(&d) && trim != Trim::Back {
                    start[d]
                } else {
                    0
                };
                let hi = if axes.contains(&d) && trim != Trim::Front {
                    stop[d]
                } else {
                    shape[d]
                };
                (lo.min(hi) as isize..hi as isize).into()
            })
            .collect();
        self.slice(&args)
    }

    /// NumPy's `append(arr, values, axis)`: with `axis` `None` both are flattened first;
    /// otherwise [`concat`](Self::concat) along it (shapes must agree on the other axes).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// use cuprite_array::ops::AxisOpts;
    /// let a = Array::from_slice(&[1, 2, 3, 4], &[2, 2])?;
    /// let b = Array::from_slice(&[5, 6], &[1, 2])?;
    /// assert_eq!(a.append(&b)?.to_vec()?, [1, 2, 3, 4, 5, 6]);
    /// assert_eq!(a.append_with(&b, AxisOpts::new().axis(0))?.shape(), &[3, 2]);
    /// assert!(a.append_with(&b, AxisOpts::new().axis(1)).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn append(&self, values: &Array<T>) -> Result<Array<T>> {
        self.append_with(values, AxisOpts::new())
    }
    /// [`append`](Self::append) with NumPy's `axis` ([`AxisOpts`]).
    pub fn append_with(&self, values: &Array<T>, opts: AxisOpts) -> Result<Array<T>> {
        match opts.axis {
            None => Array::concat(&[&self.flatten()?, &values.flatten()?], 0),
            Some(a) => Array::concat(&[self, values], a),
        }
    }

    /// NumPy's `expand_dims(a, axis)` with several axes: each position in `axes` refers to the
    /// result (of `ndim + axes.len()` axes; negative from its end) and gets extent 1. A repeated
    /// or out-of-range position is an `Err`. A view.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<f32>::zeros(&[2, 3]);
    /// assert_eq!(a.expand_dims_axes(&[0, -1])?.shape(), &[1, 2, 3, 1]);
    /// assert_eq!(a.expand_dims_axes(&[1, 2])?.shape(), &[2, 1, 1, 3]);
    /// assert!(a.expand_dims_axes(&[0, -4]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn expand_dims_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        let out = self.ndim() + axes.len();
        let mut new = vec![false; out];
        for &x in axes {
            let a = axis(x, out)?;
            if std::mem::replace(&mut new[a], true) {
                return Err(Error::Axis(format!(
                    "expand_dims: axis {x} repeated in {axes:?}"
                )));
            }
        }
        let mut src = self.shape().iter();
        let shape: Vec<usize> = new
            .iter()
            .map(|&n| if n { 1 } else { *src.next().unwrap_or(&1) })
            .collect();
        self.reshape(&shape)
    }

    /// NumPy's `roll(a, shift, axis)` with several shifts and axes: `shifts` and `axes`
    /// broadcast against each other (one of them may have a single entry) and shifts on a
    /// repeated axis add up; `axes` `None` rolls the flattened array by a single shift and
    /// restores the shape.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], &[2, 5])?;
    /// assert_eq!(a.roll_axes(&[1], None)?.to_vec()?, [9, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    /// assert_eq!(a.roll_axes(&[1, -2], Some(&[0, 1]))?.to_vec()?, [7, 8, 9, 5, 6, 2, 3, 4, 0, 1]);
    /// assert_eq!(a.roll_axes(&[1], Some(&[1, 1]))?.to_vec()?, a.roll(2, 1)?.to_vec()?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn roll_axes(&self, shifts: &[isize], axes: Option<&[isize]>) -> Result<Array<T>> {
        let Some(axes) = axes else {
            let &[s] = shifts else {
                return Err(Error::InvalidArgument(format!(
                    "roll: {} shifts without axes; the flattened array takes one",
                    shifts.len()
                )));
            };
            return self.flatten()?.roll(s, 0)?.reshape(self.shape());
        };
        let n = shifts.len().max(axes.len());
        if (shifts.len() != n && shifts.len() != 1) || (axes.len() != n && axes.len() != 1) {
            return Err(Error::Shape(format!(
                "roll: shifts {shifts:?} and axes {axes:?} do not broadcast"
            )));
        }
        let mut total = vec![0isize; self.ndim()];
        for k in 0..n {
            let a = axis(axes[k.min(axes.len() - 1)], self.ndim())?;
            let s = shifts[k.min(shifts.len() - 1)];
            let len = self.shape()[a].max(1) as isize;
            total[a] = (total[a] + s.rem_euclid(len)).rem_euclid(len);
        }
        let mut out = self.clone();
        for (a, &s) in total.iter().enumerate() {
            if s != 0 {
                out = out.roll(s, a as isize)?;
            }
        }
        Ok(out)
    }

    /// NumPy's `diff(a, n, axis, prepend, append)`: `prepend` and `append` are joined to the
    /// array along `axis` first (a 0-d one is broadcast to a slab of extent 1), then the
    /// `n`-th difference is taken. `n == 0` returns the array unchanged, as NumPy.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let x = Array::from_slice(&[1, 2, 4, 7], &[4])?;
    /// let d = x.diff_with(1, 0, Some(&Array::scalar(0)), Some(&Array::from_slice(&[0], &[1])?))?;
    /// assert_eq!(d.to_vec()?, [1, 1, 2, 3, -7]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn diff_with(
        &self,
        n: usize,
        ax: isize,
        prepend: Option<&Array<T>>,
        append: Option<&Array<T>>,
    ) -> Result<Array<T>> {
        if n == 0 {
            return Ok(self.clone());
        }
        let a = axis(ax, self.ndim())?;
        let slab = |v: &Array<T>| -> Result<Array<T>> {
            if v.ndim() == 0 {
                let mut s = self.shape().to_vec();
                s[a] = 1;
                v.broadcast_to(&s)
            } else {
                Ok(v.clone())
            }
        };
        let mut parts = Vec::new();
        if let Some(p) = prepend {
            parts.push(slab(p)?);
        }
        parts.push(self.clone());
        if let Some(p) = append {
            parts.push(slab(p)?);
        }
        let joined = if parts.len() == 1 {
            self.clone()
        } else {
            Array::concat(&parts.iter().collect::<Vec<_>>(), a as isize)?
        };
        joined.diff(n, a as isize)
    }

    /// NumPy's `ediff1d(ary, to_end, to_begin)`: the differences of the flattened array, with
    /// `to_begin` and `to_end` (flattened) joined before and after.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let x = Array::from_slice(&[1, 2, 4, 7, 0], &[5])?;
    /// let e = x.ediff1d(Some(&Array::scalar(88)), Some(&Array::from_slice(&[-99, 0], &[2])?))?;
    /// assert_eq!(e.to_vec()?, [-99, 0, 1, 2, 3, -7, 88]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ediff1d(
        &self,
        to_end: Option<&Array<T>>,
        to_begin: Option<&Array<T>>,
    ) -> Result<Array<T>> {
        let d = self.flatten()?.diff(1, 0)?;
        let mut parts = Vec::new();
        if let Some(b) = to_begin {
            parts.push(b.flatten()?);
        }
        parts.push(d);
        if let Some(e) = to_end {
            parts.push(e.flatten()?);
        }
        Array::concat(&parts.iter().collect::<Vec<_>>(), 0)
    }

    /// NumPy's `argpartition(a, kth, axis)`: indices that would partition the array so that
    /// each `kth` position holds the element a full sort puts there, with no larger element
    /// before it and no smaller after (`axis` `None`: the flattened array). Negative `kth` count
    /// from the end; one outside the axis is an `Err`. The result is a full stable argsort,
    /// which meets that contract for every `kth` at once.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[3, 4, 2, 1], &[4])?;
    /// let p = a.argpartition(&[2], None)?;
    /// assert_eq!(a.take(&p)?.to_vec()?[2], 3);
    /// assert!(a.argpartition(&[4], None).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn argpartition(&self, kth: &[i64], ax: Option<isize>) -> Result<Array<i64>> {
        let (src, a) = match ax {
            None => (self.flatten()?, 0),
            Some(x) => (self.clone(), axis(x, self.ndim())? as isize),
        };
        let n = src.shape()[a as usize] as i64;
        if let Some(k) = kth.iter().find(|&&k| k < -n || k >= n) {
            return Err(Error::InvalidArgument(format!(
                "argpartition: kth {k} is out of bounds for an axis of size {n}"
            )));
        }
        src.argsort(a)
    }
}
