//! Assignment: slices (`assign`, `fill`), masks (`masked_fill`, `masked_assign`) and flat
//! integer indices (`put`). Each writes a new buffer (copy-on-write, see the module docs):
//! `self` then names it, and every other array keeps what it had.

use super::call::{Reduce, ScatterCall};
use super::scatter::scatter_node;
use super::take::true_positions;
use super::{IndexMode, check_int, normalize, unsigned_in_range};
use crate::array::{Array, cast_node, expand};
use crate::backend;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{Node, Program};
use crate::shape::{Layout, SliceArg, SliceSpec, numel};

impl<T: Element> Array<T> {
    /// `self[slices] = value` (NumPy): `value` broadcast to the region the slices (see
    /// [`slice`](Self::slice); an index drops its axis, steps may be negative)
    /// select. `self` becomes a new array; clones and views of the old one are unchanged.
    ///
    /// ```
    /// use cuprite_array::{Array, s};
    /// let mut a = Array::<i32>::zeros(&[2, 4]);
    /// let before = a.clone();
    /// a.assign(&s![.., 1..;2], &Array::from_slice(&[5, 6], &[2])?)?;
    /// assert_eq!(a.to_vec()?, [0, 5, 0, 6, 0, 5, 0, 6]);
    /// assert_eq!(before.to_vec()?, [0; 8]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn assign(&mut self, slices: &[SliceArg], value: &Array<T>) -> Result<()> {
        crate::array::check_devices(&[&self.node, &value.node])?;
        if slices.len() > self.ndim() {
            return Err(Error::Index(format!(
                "{} slice arguments for an array of {} axes",
                slices.len(),
                self.ndim()
            )));
        }
        let mut specs: Vec<SliceSpec> = Vec::with_capacity(self.ndim());
        for (i, &n) in self.shape().iter().enumerate() {
            specs.push(match slices.get(i) {
                Some(a) => a.resolve(n, i)?,
                None => SliceSpec {
                    start: 0,
                    step: 1,
                    len: n,
                },
            });
        }
        let region: Vec<usize> = specs.iter().map(|s| s.len).collect();
        // The region as `slice` shows it: indexed axes dropped (NumPy's rule).
        let shown: Vec<usize> = region
            .iter()
            .enumerate()
            .filter(|&(i, _)| !matches!(slices.get(i), Some(SliceArg::Index(_))))
            .map(|(_, &d)| d)
            .collect();
        let b = crate::shape::broadcast_shapes(value.shape(), &shown).ok();
        if b.as_deref() != Some(&shown[..]) {
            return Err(Error::Shape(format!(
                "assign: a value of shape {:?} does not broadcast to the region of shape \
                 {shown:?} that the slices select",
                value.shape()
            )));
        }
        if numel(&region) == 0 {
            return Ok(());
        }
        let value = value.broadcast_to(&shown)?.reshape(&region)?;
        let shape = self.shape().to_vec();
        let full = Layout::contiguous(&shape);
        let target = full.slice(&specs);
        let v = expand(&value.node, &region);
        let nodes = [self.node.clone(), v];
        crate::schedule::realize_calls_below(&nodes)?;
        let pieces = vec![
            (Program::build(std::slice::from_ref(&nodes[0])), full),
            (Program::build(std::slice::from_ref(&nodes[1])), target),
        ];
        let dev = self.device();
        let s = crate::schedule::with_oom_retry(dev, || {
            backend::of(dev).eval_into_views(dev, T::DTYPE, numel(&shape), &pieces)
        })?;
        *self = Array::from_storage(s, Layout::contiguous(&shape), &shape, dev);
        Ok(())
    }

    /// `self[slices] = value` for one value (see [`assign`](Self::assign)).
    ///
    /// ```
    /// use cuprite_array::{Array, s};
    /// let mut a = Array::<f32>::zeros(&[3]);
    /// a.fill(&s![-1], 2.5)?;
    /// assert_eq!(a.to_vec()?, [0.0, 0.0, 2.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fill(&mut self, slices: &[SliceArg], value: T) -> Result<()> {
        let v = crate::device::with_device(self.device(), || Array::scalar(value));
        self.assign(slices, &v)
    }

    /// `value` where `mask` (broadcast to the array's shape) is true, the array elsewhere
    /// (PyTorch's `masked_fill`; a new array, fused element-wise).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 2, 3, 4], &[2, 2])?;
    /// let m = Array::from_slice(&[true, false], &[1, 2])?;
    /// assert_eq!(a.masked_fill(&m, 0)?.to_vec()?, [0, 2, 0, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn masked_fill(&self, mask: &Array<bool>, value: T) -> Result<Array<T>> {
        let b = crate::shape::broadcast_shapes(mask.shape(), self.shape()).ok();
        if b.as_deref() != Some(self.shape()) {
            return Err(Error::Shape(format!(
                "masked_fill: a mask of shape {:?} does not broadcast to the array's shape {:?}",
                mask.shape(),
                self.shape()
            )));
        }
        let v = crate::device::with_device(self.device(), || Array::scalar(value));
        Array::select(mask, &v, self)
    }

    /// `self[mask] = values` (NumPy): the true elements of `mask` (the array's shape), in
    /// row-major order, take `values` broadcast to their count.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let mut a = Array::from_slice(&[1, 2, 3, 4], &[4])?;
    /// let m = a.greater(2);
    /// a.masked_assign(&m, &Array::from_slice(&[30, 40], &[2])?)?;
    /// assert_eq!(a.to_vec()?, [1, 2, 30, 40]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn masked_assign(&mut self, mask: &Array<bool>, values: &Array<T>) -> Result<()> {
        if mask.shape() != self.shape() {
            return Err(Error::Shape(format!(
                "masked_assign: a mask of shape {:?} for an array of shape {:?}: they must be \
                 equal",
                mask.shape(),
                self.shape()
            )));
        }
        let pos = true_positions(mask)?;
        self.put_impl(&pos.node, values, IndexMode::Error, "masked_assign")
    }

    /// NumPy's `put` (`a.flat[indices] = values`): `values` broadcast to `indices`' shape,
    /// negative indices from the end, out of range an `Err`; duplicate indices: the last one
    /// wins on both backends (a deterministic scatter).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let mut a = Array::<u8>::zeros(&[2, 2]);
    /// a.put(&Array::from_slice(&[-1i64, 0, -1], &[3])?, &Array::from_slice(&[1, 2, 3], &[3])?)?;
    /// assert_eq!(a.to_vec()?, [2, 0, 0, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn put<I: Element>(&mut self, indices: &Array<I>, values: &Array<T>) -> Result<()> {
        self.put_with(indices, values, IndexMode::Error)
    }

    /// [`put`](Self::put) with out-of-range indices handled as `mode` says.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::IndexMode};
    /// let mut a = Array::<i32>::zeros(&[3]);
    /// let i = Array::from_slice(&[4i32], &[1])?;
    /// a.put_with(&i, &Array::scalar(9), IndexMode::Wrap)?;
    /// assert_eq!(a.to_vec()?, [0, 9, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn put_with<I: Element>(
        &mut self,
        indices: &Array<I>,
        values: &Array<T>,
        mode: IndexMode,
    ) -> Result<()> {
        check_int(indices.dtype(), "put's indices")?;
        self.put_impl(&indices.node, values, mode, "put")
    }

    fn put_impl(
        &mut self,
        idx: &std::sync::Arc<Node>,
        values: &Array<T>,
        mode: IndexMode,
        name: &str,
    ) -> Result<()> {
        crate::array::check_devices(&[&self.node, idx, &values.node])?;
        let is = idx.shape.clone();
        let b = crate::shape::broadcast_shapes(values.shape(), &is).ok();
        if b.as_deref() != Some(&is[..]) {
            return Err(Error::Shape(format!(
                "{name}: values of shape {:?} do not broadcast to the indices' shape {is:?}",
                values.shape()
            )));
        }
        let m = numel(&is);
        if m == 0 {
            return Ok(());
        }
        let n = self.len();
        if mode == IndexMode::Error || n == 0 {
            normalize(idx, n, IndexMode::Error, &format!("{name}'s indices"))?;
        }
        let idx = &unsigned_in_range(idx, n, mode);
        let (idx, idx_dtype) = match idx.dtype {
            DType::I32 | DType::I64 => (idx.clone(), idx.dtype),
            _ => (cast_node(idx, DType::I64), DType::I64),
        };
        // The call reads every input as a flat run of its elements: no reshape needed.
        let vals = expand(&values.node, &is);
        let c = ScatterCall {
            op: Reduce::Set,
            det: true,
            dtype: T::DTYPE,
            idx_dtype,
            outer: 1,
            k: m,
            inner: 1,
            n,
            idx1d: false,
            mode,
            checked: false,
        };
        *self = scatter_node(c, &self.node, &idx, &vals, None);
        Ok(())
    }
}
