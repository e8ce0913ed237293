//! Scatters along an axis (`scatter`, `scatter_add`, `scatter_max`, `scatter_min`, `index_add`)
//! as one [`ScatterCall`] each, in the accumulation dtype the module docs name.

use super::call::{Reduce, ScatterCall};
use super::{
    IndexFlag, IndexMode, ScatterOpts, check_int, checked_result, known_in_range, normalize,
    unsigned_in_range,
};
use crate::array::{Array, cast_node, expand};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::shape::{axis, numel};
use std::sync::Arc;

/// The call `c` on realised-when-run inputs, as a lazy array of the base's shape and `c.dtype`.
pub(super) fn scatter_node<U: Element>(
    c: ScatterCall,
    base: &Arc<Node>,
    idx: &Arc<Node>,
    vals: &Arc<Node>,
    flag: Option<Arc<Node>>,
) -> Array<U> {
    let mut inputs = vec![base.clone(), idx.clone(), vals.clone()];
    inputs.extend(flag);
    let node = Node::new(
        Op::Library(Arc::new(c), inputs),
        U::DTYPE,
        base.shape.clone(),
        base.device,
    );
    Array::from_node(node)
}

/// The dtype `op` accumulates `d` in (see the module docs), or an `Err` for complex reductions.
fn acc_dtype(d: DType, op: Reduce) -> Result<DType> {
    if op == Reduce::Set {
        return Ok(d);
    }
    Ok(match d {
        DType::F16 | DType::BF16 => DType::F32,
        DType::I8 | DType::I16 => DType::I32,
        DType::Bool | DType::U8 | DType::U16 => DType::U32,
        DType::C32 | DType::C64 => {
            return Err(Error::InvalidArgument(format!(
                "scatter_{} of {d} is not supported (complex values have no atomic {}; \
                 scatter the real and imaginary parts)",
                op.name(),
                op.name()
            )));
        }
        d => d,
    })
}

/// The index node as the call reads it: `i32`/`i64` as they are, other integers cast to i64.
fn call_index(idx: &Arc<Node>) -> (Arc<Node>, DType) {
    match idx.dtype {
        DType::I32 | DType::I64 => (idx.clone(), idx.dtype),
        _ => (cast_node(idx, DType::I64), DType::I64),
    }
}

impl<T: Element> Array<T> {
    /// The shared body: checks, index validation, dtype widening, the call.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scatter_impl<I: Element>(
        &self,
        axis_: isize,
        index: &Array<I>,
        src: &Array<T>,
        op: Reduce,
        opts: ScatterOpts,
        idx1d: bool,
        name: &str,
    ) -> Result<Array<T>> {
        crate::array::check_devices(&[&self.node, &index.node, &src.node])?;
        check_int(index.dtype(), &format!("{name}'s index"))?;
        let ax = axis(axis_, self.ndim())?;
        let s = self.shape();
        let upd: Vec<usize> = if idx1d {
            if index.ndim() != 1 {
                return Err(Error::Shape(format!(
                    "{name} needs a 1-D index, got shape {:?}",
                    index.shape()
                )));
            }
            let mut u = s.to_vec();
            u[ax] = index.len();
            u
        } else {
            let is = index.shape();
            if is.len() != s.len() || (0..s.len()).any(|d| d != ax && is[d] != s[d]) {
                return Err(Error::Shape(format!(
                    "{name}: an index of shape {is:?} for an array of shape {s:?} along axis \
                     {ax}: it must have the array's extents on the other axes"
                )));
            }
            is.to_vec()
        };
        let b = crate::shape::broadcast_shapes(src.shape(), &upd).ok();
        if b.as_deref() != Some(&upd[..]) {
            return Err(Error::Shape(format!(
                "{name}: values of shape {:?} do not broadcast to the {} updates of shape {upd:?}",
                src.shape(),
                numel(&upd)
            )));
        }
        let m = numel(&upd);
        if m == 0 {
            return Ok(self.clone());
        }
        let what = format!("{name}'s index along axis {ax}");
        // The `Error` mode's check is done by the update passes (a flag read back after the
        // call), except for u64 indices, whose values above i64::MAX the passes would read
        // as negative: those, and an empty axis, are checked first. Indices whose value range
        // is known to be valid need neither.
        let fused = opts.mode == IndexMode::Error
            && s[ax] > 0
            && index.dtype() != DType::U64
            && !known_in_range(&index.node, s[ax]);
        if (opts.mode == IndexMode::Error && !fused) || s[ax] == 0 {
            normalize(&index.node, s[ax], IndexMode::Error, &what)?;
        }
        let flag = if fused {
            Some(IndexFlag::new(self.device())?)
        } else {
            None
        };
        let c = acc_dtype(T::DTYPE, op)?;
        let (idx, idx_dtype) = call_index(&unsigned_in_range(&index.node, s[ax], opts.mode));
        let call = ScatterCall {
            op,
            det: opts.deterministic,
            dtype: c,
            idx_dtype,
            outer: numel(&s[..ax]),
            k: upd[ax],
            inner: numel(&s[ax + 1..]),
            n: s[ax],
            idx1d,
            mode: opts.mode,
            checked: flag.is_some(),
        };
        let base = cast_node(&self.node, c);
        let vals = cast_node(&expand(&src.node, &upd), c);
        let fnode = flag.as_ref().map(IndexFlag::node);
        let out: Array<T> = if c == T::DTYPE {
            scatter_node(call, &base, &idx, &vals, fnode)
        } else {
            let wide = scatter_node_dyn(call, &base, &idx, &vals, fnode, c);
            Array::from_node(cast_node(&wide, T::DTYPE))
        };
        checked_result(out, flag, || {
            normalize(&index.node, s[ax], IndexMode::Error, &what).map(drop)
        })
    }

    /// PyTorch's `scatter` (`self` with `self[.., index[p], ..] = src[p]` along `axis` for
    /// every position `p` of `index`): `index` has the array's rank and extents except along
    /// `axis`, `src` broadcasts to `index`'s shape. Duplicate destinations: see
    /// [`ScatterOpts::deterministic`] (last wins) and the module docs.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ScatterOpts};
    /// let a = Array::<i32>::zeros(&[2, 3]);
    /// let i = Array::from_slice(&[2i64, 0], &[2, 1])?;
    /// let v = Array::from_slice(&[7, 8], &[2, 1])?;
    /// assert_eq!(a.scatter(1, &i, &v, ScatterOpts::default())?.to_vec()?, [0, 0, 7, 8, 0, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scatter<I: Element>(
        &self,
        axis_: isize,
        index: &Array<I>,
        src: &Array<T>,
        opts: ScatterOpts,
    ) -> Result<Array<T>> {
        self.scatter_impl(axis_, index, src, Reduce::Set, opts, false, "scatter")
    }

    /// [`scatter`](Self::scatter) adding into the destinations (PyTorch's `scatter_add`):
    /// every duplicate counts.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ScatterOpts};
    /// let a = Array::<f32>::zeros(&[3]);
    /// let i = Array::from_slice(&[0i32, 2, 0, 0], &[4])?;
    /// let v = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(a.scatter_add(0, &i, &v, ScatterOpts::default())?.to_vec()?, [8.0, 0.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scatter_add<I: Element>(
        &self,
        axis_: isize,
        index: &Array<I>,
        src: &Array<T>,
        opts: ScatterOpts,
    ) -> Result<Array<T>> {
        self.scatter_impl(axis_, index, src, Reduce::Add, opts, false, "scatter_add")
    }

    /// [`scatter`](Self::scatter) keeping the largest of the destination and its updates
    /// (PyTorch's `scatter_reduce(.., "amax", include_self=True)`); NaN propagates.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ScatterOpts};
    /// let a = Array::from_slice(&[5i16, 5], &[2])?;
    /// let i = Array::from_slice(&[1u8, 1, 0], &[3])?;
    /// let v = Array::from_slice(&[9i16, 7, 1], &[3])?;
    /// assert_eq!(a.scatter_max(0, &i, &v, ScatterOpts::default())?.to_vec()?, [5, 9]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scatter_max<I: Element>(
        &self,
        axis_: isize,
        index: &Array<I>,
        src: &Array<T>,
        opts: ScatterOpts,
    ) -> Result<Array<T>> {
        self.scatter_impl(axis_, index, src, Reduce::Max, opts, false, "scatter_max")
    }

    /// [`scatter`](Self::scatter) keeping the smallest of the destination and its updates.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ScatterOpts};
    /// let a = Array::from_slice(&[5.0f64, 5.0], &[2])?;
    /// let i = Array::from_slice(&[1i64, 1], &[2])?;
    /// let v = Array::from_slice(&[9.0, -7.0], &[2])?;
    /// assert_eq!(a.scatter_min(0, &i, &v, ScatterOpts::default())?.to_vec()?, [5.0, -7.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn scatter_min<I: Element>(
        &self,
        axis_: isize,
        index: &Array<I>,
        src: &Array<T>,
        opts: ScatterOpts,
    ) -> Result<Array<T>> {
        self.scatter_impl(axis_, index, src, Reduce::Min, opts, false, "scatter_min")
    }

    /// PyTorch's `index_add`: `out[.., index[j], ..] += src[.., j, ..]` along `axis`, `index`
    /// 1-D, `src` of the array's shape with `index.len()` along `axis` (broadcast to it).
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ScatterOpts};
    /// let a = Array::<f32>::zeros(&[2, 2]);
    /// let i = Array::from_slice(&[1i64, 1, 0], &[3])?;
    /// let v = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
    /// let o = ScatterOpts { deterministic: true, ..Default::default() };
    /// assert_eq!(a.index_add(0, &i, &v, o)?.to_vec()?, [5.0, 6.0, 4.0, 6.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn index_add<I: Element>(
        &self,
        axis_: isize,
        index: &Array<I>,
        src: &Array<T>,
        opts: ScatterOpts,
    ) -> Result<Array<T>> {
        self.scatter_impl(axis_, index, src, Reduce::Add, opts, true, "index_add")
    }
}

/// [`scatter_node`] producing a node of run-time dtype `d` (the accumulation dtype).
fn scatter_node_dyn(
    c: ScatterCall,
    base: &Arc<Node>,
    idx: &Arc<Node>,
    vals: &Arc<Node>,
    flag: Option<Arc<Node>>,
    d: DType,
) -> Arc<Node> {
    let mut inputs = vec![base.clone(), idx.clone(), vals.clone()];
    inputs.extend(flag);
    Node::new(
        Op::Library(Arc::new(c), inputs),
        d,
        base.shape.clone(),
        base.device,
    )
}
