//! Matrix and tensor products with NumPy semantics: `matmul`, `dot`, `vdot`, `inner`, `outer`,
//! `tensordot` and a GEMM-shaped subset of `einsum`, plus the `relu` and `gelu` activations
//! that a product's epilogue can absorb.
//!
//! Owns shapes, broadcasting and the error messages; every product becomes one [`Gemm`] call
//! node (views of the operands around it), whose output shape is the NumPy result shape.

use super::gemm::{Act, Aux, Gemm, Post, allow_tf32};
use crate::array::{Array, check_devices};
use crate::dtype::{DType, Float, Numeric, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Epilogue, Node, Op};
use crate::ops::elementwise::{binary_node, unary_node};
use crate::ops::{BinaryOp, UnaryOp};
use crate::shape::{broadcast_shapes, checked_numel};
use std::sync::Arc;

/// Refuses the element types no product library handles.
fn check_dtype(call: &str, d: DType) -> Result<()> {
    match d {
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::C32 | DType::C64 => Ok(()),
        d => Err(Error::InvalidArgument(format!(
            "{call} of {d} is not supported: matrix products take f16, bf16, f32, f64, c32 or \
             c64 (cast integers to f64 first: exact while every partial sum stays below 2^53)"
        ))),
    }
}

/// The product node of `a` (`[..., m, k]`) and `b` (`[..., k, n]`), both at least 2-D, whose
/// batch dimensions broadcast to `batch`, shaped `out_shape` (`numel(batch)·m·n` elements).
fn gemm_node(
    a: &Arc<Node>,
    b: &Arc<Node>,
    batch: Vec<usize>,
    out_shape: Vec<usize>,
) -> Result<Arc<Node>> {
    let (na, nb) = (a.shape.len(), b.shape.len());
    let (m, k, n) = (a.shape[na - 2], a.shape[na - 1], b.shape[nb - 1]);
    checked_numel(&out_shape)?;
    let call = Gemm {
        dtype: a.dtype,
        m,
        n,
        k,
        batch,
        alpha: 1.0,
        bias: false,
        act: Act::None,
        tf32: allow_tf32(),
        addend: false,
        beta: 0.0,
        aux: Aux::None,
        post: Post::NONE,
    };
    Ok(Node::new(
        Op::Library(Arc::new(call), vec![a.clone(), b.clone()]),
        a.dtype,
        out_shape,
        a.device,
    ))
}

/// NumPy's `matmul` (the `@` operator) on nodes.
fn matmul_node<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    if !T::DTYPE.is_int() {
        check_dtype("matmul", T::DTYPE)?;
    }
    check_devices(&[&a.node, &b.node])?;
    let (sa, sb) = (a.shape(), b.shape());
    if sa.is_empty() || sb.is_empty() {
        return Err(Error::Shape(format!(
            "matmul: operands of shapes {sa:?} and {sb:?}: a 0-dimensional operand has no axis \
             to contract (multiply element-wise instead)"
        )));
    }
    let a2 = if sa.len() == 1 {
        a.reshape(&[1, sa[0]])?
    } else {
        a.clone()
    };
    let b2 = if sb.len() == 1 {
        b.reshape(&[sb[0], 1])?
    } else {
        b.clone()
    };
    let (xa, xb) = (a2.shape(), b2.shape());
    let (ka, kb) = (xa[xa.len() - 1], xb[xb.len() - 2]);
    if ka != kb {
        return Err(Error::Shape(format!(
            "matmul: shapes {sa:?} and {sb:?} do not align: the contracted axes are axis {} of \
             the first ({ka} elements) and axis {} of the second ({kb} elements)",
            sa.len() - 1,
            sb.len().saturating_sub(2),
        )));
    }
    let (ba, bb) = (&xa[..xa.len() - 2], &xb[..xb.len() - 2]);
    let batch = broadcast_shapes(ba, bb).map_err(|_| {
        Error::Shape(format!(
            "matmul: shapes {sa:?} and {sb:?}: the batch axes {ba:?} and {bb:?} do not broadcast \
             together"
        ))
    })?;
    let mut out = batch.clone();
    if sa.len() > 1 {
        out.push(xa[xa.len() - 2]);
    }
    if sb.len() > 1 {
        out.push(xb[xb.len() - 1]);
    }
    if T::DTYPE.is_int() {
        return int_matmul(&a2, &b2, &out);
    }
    Ok(Array::from_node(gemm_node(&a2.node, &b2.node, batch, out)?))
}

/// The integer product of `a` (`[..., m, k]`) and `b` (`[..., k, n]`) shaped `out`: the
/// products `a[..., m, k, 1] * b[..., 1, k, n]` summed over `k` in one fused reduction (no
/// library multiplies integers). Exact with NumPy's wrapping: each product wraps in `T`, the
/// sum runs in 64 bits and wraps back to `T`, which equals the sum wrapped in `T` throughout.
fn int_matmul<T: Numeric>(a: &Array<T>, b: &Array<T>, out: &[usize]) -> Result<Array<T>> {
    let rows = a.expand_dims(-1)?;
    let cols = b.expand_dims(-3)?;
    let terms = rows.try_mul(&cols)?;
    terms.sum_axes(&[-2])?.cast::<T>().reshape(out)
}

impl<T: Numeric> Array<T> {
    /// The matrix product with NumPy's `matmul` semantics: 2-D × 2-D is the matrix product; a
    /// 1-D operand is a row (first) or column (second) vector whose axis is dropped from the
    /// result; operands with more axes are stacks of matrices whose batch axes broadcast.
    ///
    /// Lazy: one library call (cuBLASLt on CUDA, faer on the CPU). Transposed, padded and
    /// broadcast operands are read in place where the library can (no copy). Element-wise work
    /// on the result that the library can fold in — `+ bias` over the last axis, `* scalar`,
    /// then [`relu`](Self::relu) or [`gelu`](Self::gelu) — becomes part of the same call (see
    /// [`crate::stats::fused_epilogues`]). A single small `f32` product that CUDA runs with
    /// this crate's own kernel (see [`crate::linalg::set_small_gemm`]) also takes `tanh`, and
    /// after ReLU or `tanh` a scale and one addend of the result's shape: `(h·W + b).tanh() ·
    /// 0.5 + h · 0.5` is one call. `f16`/`bf16` accumulate in `f32`; `f32` is full
    /// precision unless [`crate::linalg::set_allow_tf32`] allows TF32. Integer products are
    /// exact and wrap as NumPy's do: a fused multiply-and-sum reduction on either backend (no
    /// library call, so slower than a float GEMM). Shapes whose contracted axes differ are an
    /// `Err` (the message names both shapes).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// let b = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2])?;
    /// assert_eq!(a.matmul(&b)?.to_vec()?, [4.0, 5.0, 10.0, 11.0]);
    /// assert_eq!(a.t().matmul(&a)?.shape(), &[3, 3]); // the transpose is read in place
    /// assert!(a.matmul(&a).is_err()); // 3 ≠ 2
    /// let i = Array::<i32>::from_slice_on(Device::CPU, &[1, -2, 3, 4], &[2, 2])?;
    /// assert_eq!(i.matmul(&i)?.to_vec()?, [-5, -10, 15, 10]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn matmul(&self, rhs: &Array<T>) -> Result<Array<T>> {
        matmul_node(self, rhs)
    }
}

/// NumPy's `matmul`: see [`Array::matmul`].
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// let v = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 1.0], &[2])?;
/// assert_eq!(linalg::matmul(&a, &v)?.to_vec()?, [3.0, 7.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn matmul<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    a.matmul(b)
}

/// Resolves axis lists for `tensordot`-style contractions.
fn resolve_axes(
    call: &str,
    shape: &[usize],
    axes: &[isize],
    other: &[usize],
) -> Result<Vec<usize>> {
    let nd = shape.len() as isize;
    let mut out = Vec::with_capacity(axes.len());
    for &ax in axes {
        let a = if ax < 0 { ax + nd } else { ax };
        if a < 0 || a >= nd || out.contains(&(a as usize)) {
            return Err(Error::Axis(format!(
                "{call}: axes {axes:?} are not distinct axes of shape {shape:?} (other operand \
                 {other:?})"
            )));
        }
        out.push(a as usize);
    }
    Ok(out)
}

/// NumPy's `tensordot`: the sum of products over `axes_a` of `a` paired with `axes_b` of `b`;
/// the result's axes are `a`'s remaining axes, then `b`'s. One (non-batched) GEMM on views of
/// the operands (a permutation the strides cannot express is copied first).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
/// let b = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 1.0, 1.0], &[3])?;
/// // Contract axis 0 of a with axis 0 of b: column sums.
/// assert_eq!(linalg::tensordot(&a, &b, &[0], &[0])?.to_vec()?, [9.0, 12.0]);
/// assert!(linalg::tensordot(&a, &b, &[1], &[0]).is_err()); // 2 ≠ 3
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn tensordot<T: Numeric>(
    a: &Array<T>,
    b: &Array<T>,
    axes_a: &[isize],
    axes_b: &[isize],
) -> Result<Array<T>> {
    check_dtype("tensordot", T::DTYPE)?;
    check_devices(&[&a.node, &b.node])?;
    let (sa, sb) = (a.shape(), b.shape());
    if axes_a.len() != axes_b.len() {
        return Err(Error::Axis(format!(
            "tensordot: shapes {sa:?} and {sb:?}: {} axes {axes_a:?} of the first paired with {} \
             axes {axes_b:?} of the second",
            axes_a.len(),
            axes_b.len()
        )));
    }
    let ca = resolve_axes("tensordot", sa, axes_a, sb)?;
    let cb = resolve_axes("tensordot", sb, axes_b, sa)?;
    for (&x, &y) in ca.iter().zip(&cb) {
        if sa[x] != sb[y] {
            return Err(Error::Shape(format!(
                "tensordot: shapes {sa:?} and {sb:?} do not align: contracted axis {x} of the \
                 first has {} elements, axis {y} of the second {}",
                sa[x], sb[y]
            )));
        }
    }
    let fa: Vec<usize> = (0..sa.len()).filter(|i| !ca.contains(i)).collect();
    let fb: Vec<usize> = (0..sb.len()).filter(|i| !cb.contains(i)).collect();
    let k: usize = ca.iter().map(|&i| sa[i]).product();
    let m: usize = fa.iter().map(|&i| sa[i]).product();
    let n: usize = fb.iter().map(|&i| sb[i]).product();
    let pa: Vec<usize> = fa.iter().chain(&ca).copied().collect();
    let pb: Vec<usize> = cb.iter().chain(&fb).copied().collect();
    let a2 = a.permute(&pa)?.reshape(&[m, k])?;
    let b2 = b.permute(&pb)?.reshape(&[k, n])?;
    let out: Vec<usize> = fa
        .iter()
        .map(|&i| sa[i])
        .chain(fb.iter().map(|&i| sb[i]))
        .collect();
    Ok(Array::from_node(gemm_node(
        &a2.node,
        &b2.node,
        Vec::new(),
        out,
    )?))
}

/// NumPy's `dot`: for 1-D operands the inner product (a 0-d array); for 2-D the matrix
/// product; otherwise the sum over the last axis of `a` and the second-to-last of `b` (the
/// last for a 1-D `b`). A 0-d operand multiplies element-wise.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[3])?;
/// assert_eq!(linalg::dot(&x, &x)?.item()?, 14.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dot<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Ok(Array::from_node(binary_node(
            &a.node,
            &b.node,
            BinaryOp::Mul,
        )?));
    }
    let axis_b = if b.ndim() == 1 {
        0
    } else {
        b.ndim() as isize - 2
    };
    tensordot(a, b, &[a.ndim() as isize - 1], &[axis_b])
}

/// NumPy's `inner`: the sum of products over the last axes of both (a 0-d operand multiplies).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert_eq!(linalg::inner(&a, &a)?.to_vec()?, [5.0, 11.0, 11.0, 25.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn inner<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Ok(Array::from_node(binary_node(
            &a.node,
            &b.node,
            BinaryOp::Mul,
        )?));
    }
    tensordot(a, b, &[-1], &[-1])
}

/// NumPy's `vdot`: the flattened operands' inner product with the first conjugated (a 0-d
/// array); the element counts must match.
///
/// ```
/// use cuprite_array::{Array, Device, c64, linalg};
/// let z = Array::<c64>::from_slice_on(Device::CPU, &[c64::new(1.0, 1.0)], &[1])?;
/// assert_eq!(linalg::vdot(&z, &z)?.item()?, c64::new(2.0, 0.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn vdot<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    check_dtype("vdot", T::DTYPE)?;
    if a.len() != b.len() {
        return Err(Error::Shape(format!(
            "vdot: shapes {:?} and {:?} hold {} and {} elements (the flattened operands are \
             contracted)",
            a.shape(),
            b.shape(),
            a.len(),
            b.len()
        )));
    }
    let fa = a.flatten()?;
    let fa = if T::DTYPE.is_complex() {
        Array::from_node(unary_node(&fa.node, UnaryOp::Conj))
    } else {
        fa
    };
    let (x, y) = (fa.reshape(&[1, a.len()])?, b.reshape(&[b.len(), 1])?);
    Ok(Array::from_node(gemm_node(
        &x.node,
        &y.node,
        Vec::new(),
        Vec::new(),
    )?))
}

/// NumPy's `outer`: `out[i, j] = a.flat[i] · b.flat[j]` (element-wise, fused; no library
/// call).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<i32>::from_slice_on(Device::CPU, &[1, 2], &[2])?;
/// let b = Array::<i32>::from_slice_on(Device::CPU, &[1, 10, 100], &[3])?;
/// assert_eq!(linalg::outer(&a, &b)?.to_vec()?, [1, 10, 100, 2, 20, 200]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn outer<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let x = a.reshape(&[a.len(), 1])?;
    let y = b.reshape(&[1, b.len()])?;
    Ok(Array::from_node(binary_node(
        &x.node,
        &y.node,
        BinaryOp::Mul,
    )?))
}

/// The library call below `n` and its inputs, when `n` is an unevaluated call node.
pub(crate) fn pending_call(n: &Arc<Node>) -> Option<crate::graph::Absorbed> {
    if !n.has_library() || n.is_leaf() {
        return None;
    }
    match n.op() {
        Op::Library(c, i) => Some((c, i)),
        _ => None,
    }
}

/// `e` folded into the call of `n`, when the call can take it.
fn absorbed(n: &Arc<Node>, e: Epilogue<'_>) -> Option<Arc<Node>> {
    let (call, inputs) = pending_call(n)?;
    let (call, inputs) = call.absorb_epilogue(e, &inputs)?;
    Some(Node::new(
        Op::Library(call, inputs),
        n.dtype,
        n.shape.clone(),
        n.device,
    ))
}

fn konst(v: f64, like: &Arc<Node>) -> Arc<Node> {
    Node::new(
        Op::Const(Scalar::F64(v).cast(like.dtype)),
        like.dtype,
        like.shape.clone(),
        like.device,
    )
}

impl<T: Float> Array<T> {
    /// `max(x, 0)` element-wise (NaN stays NaN). Directly on a matrix product (after an
    /// optional bias), it becomes the product's epilogue: one library call.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[-1.0, 0.5], &[2])?;
    /// assert_eq!(x.relu().to_vec()?, [0.0, 0.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn relu(&self) -> Array<T> {
        if let Some(n) = absorbed(&self.node, Epilogue::Relu) {
            return Array::from_node(n);
        }
        self.maximum(T::default())
    }

    /// GELU in its tanh approximation, `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))` (PyTorch's
    /// `gelu(approximate="tanh")`; within 1e-3 of the exact `0.5·x·(1 + erf(x/√2))`), which is
    /// what cuBLASLt's epilogue computes: directly on a matrix product (after an optional
    /// bias) it becomes the product's epilogue, one library call; elsewhere it fuses like any
    /// element-wise expression.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 1.0], &[2])?;
    /// let y = x.gelu().to_vec()?;
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 0.841192).abs() < 1e-6);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn gelu(&self) -> Array<T> {
        if let Some(n) = absorbed(&self.node, Epilogue::GeluTanh) {
            return Array::from_node(n);
        }
        let x = &self.node;
        // Built node by node (operands of one shape and dtype): a product below is not asked
        // to absorb a piece of the expression (`0.5 · x` as its scale would make it run twice).
        let b = |l: &Arc<Node>, r: &Arc<Node>, op| {
            crate::array::finish(Node::new(
                Op::Binary(op, l.clone(), r.clone()),
                l.dtype,
                l.shape.clone(),
                l.device,
            ))
        };
        let x3 = b(&b(x, x, BinaryOp::Mul), x, BinaryOp::Mul);
        let inner = b(
            &b(
                x,
                &b(&konst(0.044715, x), &x3, BinaryOp::Mul),
                BinaryOp::Add,
            ),
            &konst(0.797_884_560_802_865_4, x),
            BinaryOp::Mul,
        );
        let t = unary_node(&inner, UnaryOp::Tanh);
        let one_t = b(&konst(1.0, x), &t, BinaryOp::Add);
        let half_x = b(&konst(0.5, x), x, BinaryOp::Mul);
        Array::from_node(b(&half_x, &one_t, BinaryOp::Mul))
    }
}
