//! Integer-array gathers along an axis (`take`, `take_along_axis`, `index_select`, `gather`),
//! built on [`super::gather_flat`], and the positions of a mask's true elements for assignment
//! (`masked_select` and `nonzero` themselves are the scan-based compactions of `ops::scan`).

use super::scatter::scatter_node;
use super::{
    IndexMode, TakeOpts, call, checked_result, coord, flat_offset, gather_flat, normalize,
    normalize_fused, place, strides_i64,
};
use crate::array::{Array, expand};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::shape::axis;

impl<T: Element> Array<T> {
    /// NumPy's `take(a, indices)`: elements of the flattened array at `indices` (any integer
    /// dtype, negative counting from the end), in the shape of `indices`. Out-of-range indices
    /// are an `Err` (NumPy's `mode="raise"`; [`take_with`](Self::take_with) takes NumPy's
    /// `axis` and `mode`); the check runs in the gather's kernel, so the call realises its
    /// result and waits for the kernel (the `Clamp` and `Wrap` modes stay lazy and fuse with
    /// what follows), unless the indices' values are known to be in range from how they were
    /// made (`randint`, `arange`, `clamp`, a small upload: see the
    /// [module docs](crate::ops::index)), when there is nothing to check and the call stays
    /// lazy too.
    ///
    /// # Errors
    /// An index outside `[-n, n)`, indices of a non-integer dtype, or another device's array.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::from_slice_on(Device::CPU, &[10, 11, 12, 13, 14, 15], &[2, 3])?;
    /// let i = Array::from_slice(&[2i32, -3], &[2])?;
    /// assert_eq!(a.take(&i)?.to_vec()?, [12, 13]);
    /// assert!(a.take(&Array::from_slice(&[6i64], &[1])?).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn take<I: Element>(&self, indices: &Array<I>) -> Result<Array<T>> {
        self.take_with(indices, TakeOpts::new())
    }

    /// [`take`](Self::take) with NumPy's `axis` and `mode` ([`TakeOpts`]): along an axis, the
    /// result's shape is `shape[..axis] + indices.shape + shape[axis + 1..]`; out-of-range
    /// indices are handled as the [`IndexMode`] says (`Error`: NumPy's `"raise"`, `Clamp`:
    /// `"clip"`, `Wrap`: `"wrap"`).
    ///
    /// # Errors
    /// A bad axis, indices of a non-integer dtype, an out-of-range index in the `Error` mode,
    /// indices into an axis of extent 0, or another device's array.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::{IndexMode, TakeOpts}};
    /// let a = Array::from_slice(&[10, 11, 12, 13, 14, 15], &[2, 3])?;
    /// let i = Array::from_slice(&[2i32, -3], &[2])?;
    /// assert_eq!(a.take_with(&i, TakeOpts::new().axis(1))?.to_vec()?, [12, 10, 15, 13]);
    /// let f = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// let j = Array::from_slice(&[-4i64, 3, 7], &[3])?;
    /// let clip = TakeOpts::new().mode(IndexMode::Clamp);
    /// assert_eq!(f.take_with(&j, clip)?.to_vec()?, [1.0, 3.0, 3.0]);
    /// let wrap = TakeOpts::new().mode(IndexMode::Wrap);
    /// assert_eq!(f.take_with(&j, wrap)?.to_vec()?, [3.0, 1.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn take_with<I: Element>(&self, indices: &Array<I>, opts: TakeOpts) -> Result<Array<T>> {
        let TakeOpts { axis: axis_, mode } = opts;
        crate::array::check_devices(&[&self.node, &indices.node])?;
        let Some(ax) = axis_ else {
            let what = "take's indices";
            let (flat, flag) = normalize_fused(&indices.node, self.len(), mode, what)?;
            let out = gather_flat(&self.flatten()?, &flat)?;
            return checked_result(out, flag, || {
                normalize(&indices.node, self.len(), mode, what).map(drop)
            });
        };
        let ax = axis(ax, self.ndim())?;
        let s = self.shape();
        let what = format!("take's indices along axis {ax}");
        let (norm, flag) = normalize_fused(&indices.node, s[ax], mode, &what)?;
        let j = indices.ndim();
        let mut out = s[..ax].to_vec();
        out.extend_from_slice(indices.shape());
        out.extend_from_slice(&s[ax + 1..]);
        crate::shape::checked_numel(&out)?;
        let st = strides_i64(s);
        let mut terms = Vec::with_capacity(s.len());
        for d in 0..s.len() {
            if d < ax {
                terms.push((coord(d, &out, self.device())?, st[d]));
            } else if d == ax {
                terms.push((place(&norm, ax, &out)?, st[d]));
            } else {
                terms.push((coord(d - 1 + j, &out, self.device())?, st[d]));
            }
        }
        let res = gather_flat(self, &flat_offset(&terms, &out)?)?;
        checked_result(res, flag, || {
            normalize(&indices.node, s[ax], mode, &what).map(drop)
        })
    }

    /// NumPy's `take_along_axis` (PyTorch's `gather`): `out[.., i, ..] = self[.., indices[.., i,
    /// ..], ..]` along `axis`, `indices` of the same rank, the other axes broadcast together.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let i = Array::from_slice(&[2u8, 0, 1, 1], &[2, 2])?;
    /// assert_eq!(a.take_along_axis(&i, 1)?.to_vec()?, [3, 1, 5, 5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn take_along_axis<I: Element>(
        &self,
        indices: &Array<I>,
        axis_: isize,
    ) -> Result<Array<T>> {
        self.take_along_axis_with(indices, axis_, IndexMode::Error)
    }

    /// [`take_along_axis`](Self::take_along_axis) with out-of-range indices handled as `mode`
    /// says.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::IndexMode};
    /// let a = Array::from_slice(&[1, 2, 3], &[1, 3])?;
    /// let i = Array::from_slice(&[5i32, -1], &[1, 2])?;
    /// assert_eq!(a.take_along_axis_with(&i, 1, IndexMode::Clamp)?.to_vec()?, [3, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn take_along_axis_with<I: Element>(
        &self,
        indices: &Array<I>,
        axis_: isize,
        mode: IndexMode,
    ) -> Result<Array<T>> {
        crate::array::check_devices(&[&self.node, &indices.node])?;
        let ax = axis(axis_, self.ndim())?;
        let (s, is) = (self.shape(), indices.shape());
        if is.len() != s.len() {
            return Err(Error::Shape(format!(
                "take_along_axis needs indices of the array's rank {}: got shape {is:?} for {s:?}",
                s.len()
            )));
        }
        let mut out = Vec::with_capacity(s.len());
        for d in 0..s.len() {
            out.push(if d == ax {
                is[d]
            } else if s[d] == is[d] || is[d] == 1 {
                s[d]
            } else if s[d] == 1 {
                is[d]
            } else {
                return Err(Error::Shape(format!(
                    "take_along_axis: indices of shape {is:?} do not broadcast against {s:?} \
                     off axis {ax}"
                )));
            });
        }
        crate::shape::checked_numel(&out)?;
        let what = format!("take_along_axis's indices along axis {ax}");
        let (norm, flag) = normalize_fused(&indices.node, s[ax], mode, &what)?;
        let st = strides_i64(s);
        let mut terms = Vec::new();
        for d in 0..s.len() {
            if d == ax {
                terms.push((expand(&norm.node, &out), st[d]));
            } else if s[d] != 1 {
                terms.push((coord(d, &out, self.device())?, st[d]));
            }
        }
        let res = gather_flat(self, &flat_offset(&terms, &out)?)?;
        checked_result(res, flag, || {
            normalize(&indices.node, s[ax], mode, &what).map(drop)
        })
    }

    /// PyTorch's `index_select`: the slices at `index` (1-D, any integer dtype, negative from
    /// the end) along `axis`; out-of-range indices are an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 2, 3, 4, 5, 6], &[3, 2])?;
    /// let i = Array::from_slice(&[2i64, 0, 2], &[3])?;
    /// assert_eq!(a.index_select(0, &i)?.to_vec()?, [5, 6, 1, 2, 5, 6]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn index_select<I: Element>(&self, axis_: isize, index: &Array<I>) -> Result<Array<T>> {
        if index.ndim() != 1 {
            return Err(Error::Shape(format!(
                "index_select needs a 1-D index, got shape {:?}",
                index.shape()
            )));
        }
        self.take_with(index, TakeOpts::new().axis(axis_))
    }

    /// [`index_select`](Self::index_select) under its older name: rows (along `axis`) picked by
    /// the 1-D `index`. Out-of-range indices are an `Err` (they were clamped before the indexing
    /// module existed; [`take_with`](Self::take_with) and [`IndexMode::Clamp`] keep that
    /// behaviour). PyTorch's n-d `gather` is [`take_along_axis`](Self::take_along_axis).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.gather(1, &Array::from_slice(&[1i32], &[1])?)?.to_vec()?, [2, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn gather<I: Element>(&self, axis_: isize, index: &Array<I>) -> Result<Array<T>> {
        let ax = axis(axis_, self.ndim())?;
        if index.ndim() != 1 {
            return Err(Error::Shape(format!(
                "gather needs a 1-D index, got shape {:?}",
                index.shape()
            )));
        }
        crate::array::check_devices(&[&self.node, &index.node])?;
        if self.shape()[ax] == 0 && !index.is_empty() {
            return Err(Error::Index(format!(
                "gather of {} index(es) along axis {ax} of extent 0 (shape {:?}): no element to \
                 read",
                index.len(),
                self.shape()
            )));
        }
        self.take_with(index, TakeOpts::new().axis(ax as isize))
    }
}

/// The flat positions of the true elements of `mask`, in order: a cumulative count gives each
/// true element its slot, and a scatter (unique slots) writes the positions there.
pub(crate) fn true_positions(mask: &Array<bool>) -> Result<Array<i64>> {
    let flat = mask.flatten()?;
    let len = flat.len();
    let dev = mask.device();
    if len == 0 {
        return Ok(crate::device::with_device(dev, || Array::zeros(&[0])));
    }
    let cs = flat.cast::<i64>().cumsum(0)?;
    cs.eval()?;
    let count = cs.slice(&[crate::shape::SliceArg::Index(-1)])?.item()? as usize;
    // Slot of each element: its rank among the true ones, or one past the end (skipped).
    let slot = Array::select(&flat, &cs.try_sub(1i64)?, i64::MAX)?;
    let base = crate::device::with_device(dev, || Array::<i64>::zeros(&[count]));
    let positions = crate::device::with_device(dev, || Array::<i64>::arange_len(len))?;
    let c = call::ScatterCall {
        op: call::Reduce::Set,
        det: false,
        dtype: DType::I64,
        idx_dtype: DType::I64,
        outer: 1,
        k: len,
        inner: 1,
        n: count,
        idx1d: false,
        mode: IndexMode::Error,
        checked: false,
    };
    Ok(scatter_node(
        c,
        &base.node,
        &slot.node,
        &positions.node,
        None,
    ))
}
