//! Scans along an axis (`cumsum`, `cumprod`, `cummax`, `cummin`, inclusive and exclusive,
//! `scan_by_key`), `diff`, compaction (`argwhere`, `nonzero`, `masked_select`) and
//! `searchsorted`.
//!
//! Every scan, compaction and search is a fused library call (a `FusedCall` node of the lazy graph):
//! its input is **not** realised first; the call's kernel (CUDA) or chunked pass (CPU) reads it
//! through the element-wise program that produces it, so `(a * b + c).cumsum(0)` reads `a`, `b`
//! and `c` once and writes only the scan. The result is an ordinary lazy array: element-wise
//! work on it fuses onto the scan's output.
//!
//! Dtypes follow NumPy and PyTorch: `cumsum` and `cumprod` run in the dtype [`sum`] gives
//! (`i64` for signed integers and `bool`, `u64` for unsigned integers, wrapping; floats in their
//! own type, `f16`/`bf16` accumulated in `f32` and rounded once per output); `cummax` and
//! `cummin` keep the dtype, and a NaN propagates to every later element of its line (as in
//! PyTorch). Exclusive scans are the `_exclusive` variants: element `i` holds the scan of the
//! elements before it, the first one the operator's identity (0, 1, the dtype's lowest or
//! highest value, -inf or +inf). Complex arrays are refused (no order; complex sums are not
//! supported yet).
//!
//! [`sum`]: Array::sum

mod call;
mod compact;
mod cpu;
mod search;

use crate::array::Array;
use crate::codegen::{ScanKind, ScanSpec, Sink};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::op::BinaryOp;
use crate::shape::{SliceArg, numel};
use call::ScanCall;
use std::sync::Arc;

/// The operator of [`Array::scan_by_key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    /// Running sum.
    Sum,
    /// Running product.
    Prod,
    /// Running maximum (NaN propagates).
    Max,
    /// Running minimum (NaN propagates).
    Min,
}

impl ScanOp {
    fn kind(self) -> ScanKind {
        match self {
            ScanOp::Sum => ScanKind::Sum,
            ScanOp::Prod => ScanKind::Prod,
            ScanOp::Max => ScanKind::Max,
            ScanOp::Min => ScanKind::Min,
        }
    }
}

/// Which index [`Array::searchsorted`] returns for a value equal to elements of the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first suitable index (`sorted[i - 1] < v <= sorted[i]`).
    Left,
    /// The last suitable index (`sorted[i - 1] <= v < sorted[i]`).
    Right,
}

/// `(outer, n, inner)` of a scan of `shape` along `axis` (a 0-d array scans as one element).
fn line_dims(shape: &[usize], axis: isize, what: &str) -> Result<(usize, usize, usize)> {
    if shape.is_empty() {
        if axis != 0 && axis != -1 {
            return Err(Error::Axis(format!(
                "{what}: axis {axis} is out of range for a 0-dimensional array"
            )));
        }
        return Ok((1, 1, 1));
    }
    let ax = crate::shape::axis(axis, shape.len()).map_err(|_| {
        Error::Axis(format!(
            "{what}: axis {axis} is out of range for an array of shape {shape:?}"
        ))
    })?;
    Ok((numel(&shape[..ax]), shape[ax], numel(&shape[ax + 1..])))
}

/// The lazy scan of `values` (already in the output dtype) along `axis`, with `keys` when
/// segmented.
fn scan_node(
    values: Arc<Node>,
    keys: Option<Arc<Node>>,
    op: ScanKind,
    axis: isize,
    exclusive: bool,
    what: &str,
) -> Result<Arc<Node>> {
    let out = values.dtype;
    if out.is_complex() {
        return Err(Error::InvalidArgument(format!(
            "{what} of {out} is not supported (complex scans)"
        )));
    }
    let (outer, n, inner) = line_dims(&values.shape, axis, what)?;
    let shape = values.shape.clone();
    let device = values.device;
    let keyed = keys.is_some();
    let mut inputs = vec![values];
    inputs.extend(keys);
    let call = Arc::new(ScanCall {
        spec: ScanSpec {
            sink: Sink::Scan {
                op,
                exclusive,
                keyed,
            },
            out,
        },
        outer,
        n,
        inner,
        inputs: inputs.len(),
    });
    Ok(Node::new(Op::Library(call, inputs), out, shape, device))
}

impl<T: Element> Array<T> {
    fn accum_scan(
        &self,
        op: ScanKind,
        axis: isize,
        exclusive: bool,
        what: &str,
    ) -> Result<Array<T::Accum>> {
        if T::DTYPE.is_complex() {
            return Err(Error::InvalidArgument(format!(
                "{what} of {} is not supported (complex scans)",
                T::DTYPE
            )));
        }
        let input = self.cast::<T::Accum>();
        let node = scan_node(input.node.clone(), None, op, axis, exclusive, what)?;
        Ok(Array::from_node(node))
    }

    fn same_scan(
        &self,
        op: ScanKind,
        axis: isize,
        exclusive: bool,
        what: &str,
    ) -> Result<Array<T>> {
        let node = scan_node(self.node.clone(), None, op, axis, exclusive, what)?;
        Ok(Array::from_node(node))
    }

    /// Inclusive cumulative sum along `axis` (negative counts from the end), in the dtype
    /// [`sum`](Self::sum) gives. NumPy's `cumsum`. The input is read fused (not realised).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(a.cumsum(1)?.to_vec()?, [1, 3, 6, 4, 9, 15]);
    /// assert_eq!(a.cumsum(0)?.to_vec()?, [1, 2, 3, 5, 7, 9]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cumsum(&self, axis: isize) -> Result<Array<T::Accum>> {
        self.accum_scan(ScanKind::Sum, axis, false, "cumsum")
    }

    /// Exclusive cumulative sum: element `i` is the sum of the elements before it (0 first).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<u8>::from_slice_on(Device::CPU, &[3, 1, 2], &[3])?;
    /// assert_eq!(a.cumsum_exclusive(0)?.to_vec()?, [0u64, 3, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cumsum_exclusive(&self, axis: isize) -> Result<Array<T::Accum>> {
        self.accum_scan(ScanKind::Sum, axis, true, "cumsum_exclusive")
    }

    /// Inclusive cumulative product along `axis`, in the dtype [`prod`](Self::prod) gives
    /// (integers wrap).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(a.cumprod(0)?.to_vec()?, [1.0, 2.0, 6.0, 24.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cumprod(&self, axis: isize) -> Result<Array<T::Accum>> {
        self.accum_scan(ScanKind::Prod, axis, false, "cumprod")
    }

    /// Exclusive cumulative product (1 first).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[2, 3, 4], &[3])?;
    /// assert_eq!(a.cumprod_exclusive(0)?.to_vec()?, [1i64, 2, 6]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cumprod_exclusive(&self, axis: isize) -> Result<Array<T::Accum>> {
        self.accum_scan(ScanKind::Prod, axis, true, "cumprod_exclusive")
    }

    /// Running maximum along `axis`, in the array's dtype; a NaN propagates to the rest of its
    /// line. PyTorch's `cummax` values.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 3.0, 2.0, f32::NAN, 5.0], &[5])?;
    /// let m = a.cummax(0)?.to_vec()?;
    /// assert_eq!(&m[..3], [1.0, 3.0, 3.0]);
    /// assert!(m[3].is_nan() && m[4].is_nan());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cummax(&self, axis: isize) -> Result<Array<T>> {
        self.same_scan(ScanKind::Max, axis, false, "cummax")
    }

    /// Exclusive running maximum (the dtype's lowest value, or -inf, first).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i8>::from_slice_on(Device::CPU, &[4, 1, 7], &[3])?;
    /// assert_eq!(a.cummax_exclusive(0)?.to_vec()?, [i8::MIN, 4, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cummax_exclusive(&self, axis: isize) -> Result<Array<T>> {
        self.same_scan(ScanKind::Max, axis, true, "cummax_exclusive")
    }

    /// Running minimum along `axis`, in the array's dtype; a NaN propagates.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[5, 3, 4, 1], &[2, 2])?;
    /// assert_eq!(a.cummin(0)?.to_vec()?, [5, 3, 4, 1]);
    /// assert_eq!(a.cummin(1)?.to_vec()?, [5, 3, 4, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cummin(&self, axis: isize) -> Result<Array<T>> {
        self.same_scan(ScanKind::Min, axis, false, "cummin")
    }

    /// Exclusive running minimum (the dtype's highest value, or +inf, first).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<u16>::from_slice_on(Device::CPU, &[4, 9, 2], &[3])?;
    /// assert_eq!(a.cummin_exclusive(0)?.to_vec()?, [u16::MAX, 4, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cummin_exclusive(&self, axis: isize) -> Result<Array<T>> {
        self.same_scan(ScanKind::Min, axis, true, "cummin_exclusive")
    }

    /// A segmented scan (ArrayFire's `scanByKey`): along `axis`, a new segment starts wherever
    /// `keys` (same shape, any real dtype) differs from the previous element's key, and the
    /// scan restarts there. Runs in the dtype [`sum`](Self::sum) gives, for every operator
    /// (max and min values are exact in it). Keys and values are both read fused.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, ScanOp};
    /// let v = Array::<i32>::from_slice_on(Device::CPU, &[1, 2, 3, 4, 5], &[5])?;
    /// let k = Array::<u8>::from_slice_on(Device::CPU, &[0, 0, 1, 1, 0], &[5])?;
    /// assert_eq!(v.scan_by_key(&k, ScanOp::Sum, 0, false)?.to_vec()?, [1i64, 3, 3, 7, 5]);
    /// assert_eq!(v.scan_by_key(&k, ScanOp::Sum, 0, true)?.to_vec()?, [0i64, 1, 0, 3, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scan_by_key<K: Element>(
        &self,
        keys: &Array<K>,
        op: ScanOp,
        axis: isize,
        exclusive: bool,
    ) -> Result<Array<T::Accum>> {
        if T::DTYPE.is_complex() || K::DTYPE.is_complex() {
            return Err(Error::InvalidArgument(format!(
                "scan_by_key of {} values by {} keys is not supported (complex scans or keys)",
                T::DTYPE,
                K::DTYPE
            )));
        }
        if keys.shape() != self.shape() {
            return Err(Error::Shape(format!(
                "scan_by_key: keys of shape {:?} for values of shape {:?} (they must match)",
                keys.shape(),
                self.shape()
            )));
        }
        crate::array::check_devices(&[&self.node, &keys.node])?;
        let input = self.cast::<T::Accum>();
        let node = scan_node(
            input.node.clone(),
            Some(keys.node.clone()),
            op.kind(),
            axis,
            exclusive,
            "scan_by_key",
        )?;
        Ok(Array::from_node(node))
    }

    /// The `n`-th discrete difference along `axis` (NumPy's `diff`): `x[i + 1] - x[i]`,
    /// applied `n` times (integers wrap; for `bool`, `x[i + 1] != x[i]`). The axis shrinks by
    /// `n` (to 0 when `n` exceeds it). Lazy and element-wise.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[1, 4, 9, 16], &[4])?;
    /// assert_eq!(a.diff(1, 0)?.to_vec()?, [3, 5, 7]);
    /// assert_eq!(a.diff(2, -1)?.to_vec()?, [2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn diff(&self, n: usize, axis: isize) -> Result<Array<T>> {
        let nd = self.ndim();
        if nd == 0 {
            return Err(Error::Axis(
                "diff needs at least one axis; the array is 0-dimensional".into(),
            ));
        }
        let ax = crate::shape::axis(axis, nd).map_err(|_| {
            Error::Axis(format!(
                "diff: axis {axis} is out of range for an array of shape {:?}",
                self.shape()
            ))
        })?;
        let full = SliceArg::Range {
            start: None,
            end: None,
            step: 1,
        };
        let op = if T::DTYPE == DType::Bool {
            BinaryOp::Ne
        } else {
            BinaryOp::Sub
        };
        let mut cur = self.clone();
        for _ in 0..n {
            let len = cur.shape()[ax];
            if len == 0 {
                break;
            }
            let mut hi = vec![full; nd];
            let mut lo = vec![full; nd];
            hi[ax] = SliceArg::Range {
                start: Some(1),
                end: None,
                step: 1,
            };
            lo[ax] = SliceArg::Range {
                start: None,
                end: Some(len as isize - 1),
                step: 1,
            };
            let (h, l) = (cur.slice(&hi)?, cur.slice(&lo)?);
            let node = crate::ops::elementwise::binary_node(&h.node, &l.node, op)?;
            cur = Array::from_node(node);
        }
        Ok(cur)
    }
}
