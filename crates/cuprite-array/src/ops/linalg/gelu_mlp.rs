//! Products that also store a second result, for training a layer with GELU: the forward
//! product keeps its pre-activation beside the activation, the backward product multiplies by
//! GELU's derivative at that pre-activation and sums the result into the bias gradient. On
//! CUDA each product is one cuBLASLt call with a gradient epilogue (`GELU_AUX_BIAS`, `DGELU`),
//! the bias gradient a column sum after it; on the CPU one pass in `f64`, rounded once. With
//! [`set_gelu_grad_fused`] on, the backward product is a plain one followed by one pass that
//! multiplies by the derivative and sums the columns (`gelu_grad`), on both backends.
//!
//! Both are eager: they evaluate their operands and the product, and return realised arrays. A shape or type cuBLASLt's epilogues do not take (`f64`, a
//! result row length that is not a multiple of 8) is computed by the same arithmetic as
//! separate operations.

use super::gelu_grad::GeluGradRows;
use super::gemm::{Act, Aux, Gemm, Post, allow_tf32};
use crate::array::{Array, check_devices};
use crate::dtype::{DType, Float, Transcendental};
use crate::error::{Error, Result};
use crate::graph::{LibraryCall, Node, Op};
use crate::schedule::contiguous_storage;
use crate::shape::{Layout, checked_numel};
use crate::util::EnvSwitch;
use std::sync::Arc;

static FUSED_GRAD: EnvSwitch = EnvSwitch::new("CUPRITE_ARRAY_GELU_GRAD_FUSED", false);

/// Chooses how [`matmul_gelu_grad`] runs on CUDA (and on the CPU, its twin): on, a plain
/// product (its scale as the product's) and one kernel pass that reads the product and the
/// pre-activation once, writes `g` once and sums its columns; off (the default;
/// `CUPRITE_ARRAY_GELU_GRAD_FUSED=1` starts with it on), a product with cuBLASLt's `DGELU`
/// epilogue and a column sum of its result (on the CPU, one pass). Both round
/// `g` to the element type and sum the rounded values in `f32`; the fused pass rounds the
/// product once more before multiplying. Applies to calls made after it.
///
/// ```
/// use cuprite_array::linalg::{gelu_grad_fused, set_gelu_grad_fused};
/// let before = gelu_grad_fused();
/// set_gelu_grad_fused(false);
/// assert!(!gelu_grad_fused());
/// set_gelu_grad_fused(before);
/// ```
pub fn set_gelu_grad_fused(on: bool) {
    FUSED_GRAD.set(on);
}

/// Whether [`matmul_gelu_grad`] takes the fused pass on CUDA (see [`set_gelu_grad_fused`]).
pub fn gelu_grad_fused() -> bool {
    FUSED_GRAD.get()
}

/// √(2/π), the constant of GELU's tanh form.
const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
/// The cubic coefficient of GELU's tanh form.
const CUBIC: f64 = 0.044_715;

/// `(m, k, n)` of the product of 2-D `a` (`m × k`) and `b` (`k × n`) on one device.
fn dims<T: Float>(call: &str, a: &Array<T>, b: &Array<T>) -> Result<(usize, usize, usize)> {
    check_devices(&[&a.node, &b.node])?;
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() != 2 || sb.len() != 2 || sa[1] != sb[0] {
        return Err(Error::Shape(format!(
            "{call}: a ({sa:?}) and b ({sb:?}) must be matrices m × k and k × n"
        )));
    }
    Ok((sa[0], sa[1], sb[1]))
}

/// Whether cuBLASLt's gradient epilogues take this product: a half type or `f32`, no empty
/// dimension, rows of D (and of the auxiliary matrix) a multiple of 8 elements long.
fn epilogue_fits(dtype: DType, m: usize, n: usize, k: usize) -> bool {
    matches!(dtype, DType::F16 | DType::BF16 | DType::F32) && m > 0 && k > 0 && n > 0 && n % 8 == 0
}

/// Runs `call` on `inputs` into one buffer of `len` elements and returns the `m × n` matrix
/// at its start and the `tail` elements (shaped `tail_shape`) after it.
fn run_split<T: Float>(
    call: Arc<dyn LibraryCall>,
    inputs: Vec<Arc<Node>>,
    like: &Array<T>,
    (m, n): (usize, usize),
    tail_shape: &[usize],
) -> Result<(Array<T>, Array<T>)> {
    let plane = m * n;
    let tail = checked_numel(tail_shape)?;
    let len = plane
        .checked_add(tail)
        .ok_or_else(|| Error::Shape(format!("{m} × {n} plus {tail} elements overflow usize")))?;
    let node = Node::new(
        Op::Library(call, inputs),
        T::DTYPE,
        vec![len],
        like.device(),
    );
    let storage = contiguous_storage(&node)?;
    let head = Array::from_storage(
        storage.clone(),
        Layout::contiguous(&[m, n]),
        &[m, n],
        like.device(),
    );
    let mut l = Layout::contiguous(tail_shape);
    l.offset = plane;
    let rest = Array::from_storage(storage, l, tail_shape, like.device());
    Ok((head, rest))
}

/// `(gelu(a·b + bias), a·b + bias)`: a layer's activation and its pre-activation (which the
/// backward pass needs, see [`matmul_gelu_grad`]), with GELU in its tanh form (as
/// [`Array::gelu`]). `a` is `m × k`, `b` `k × n`, `bias` (optional) `n` elements. On CUDA, one
/// cuBLASLt call (epilogue `GELU_AUX_BIAS`): the pre-activation is accumulated in `f32` for
/// the half types, and both results are rounded once from it.
///
/// Eager: evaluates and returns realised arrays.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0], &[1, 2])?;
/// let b = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 0.0, 0.0, -1.0], &[2, 2])?;
/// let bias = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 2.0], &[2])?;
/// let (h, pre) = linalg::matmul_gelu_with_input(&a, &b, Some(&bias))?;
/// assert_eq!(pre.to_vec()?, [1.0, 0.0]);
/// let h = h.to_vec()?;
/// assert!((h[0] - 0.841_192).abs() < 1e-5 && h[1] == 0.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
///
/// # Errors
/// Operands that are not `m × k` and `k × n` matrices, a bias that is not `n` elements, operands
/// on different devices; a library error from the product.
pub fn matmul_gelu_with_input<T: Float + Transcendental>(
    a: &Array<T>,
    b: &Array<T>,
    bias: Option<&Array<T>>,
) -> Result<(Array<T>, Array<T>)> {
    const CALL: &str = "matmul_gelu_with_input";
    let (m, k, n) = dims(CALL, a, b)?;
    if let Some(x) = bias {
        check_devices(&[&a.node, &x.node])?;
        if x.len() != n || x.shape().last() != Some(&n) {
            return Err(Error::Shape(format!(
                "{CALL}: the bias has shape {:?}; it must hold one value per column of the \
                 product ({n})",
                x.shape()
            )));
        }
    }
    let on_cpu = a.device() == crate::Device::CPU;
    if !(epilogue_fits(T::DTYPE, m, n, k) || on_cpu && k > 0) {
        let mut pre = a.matmul(b)?;
        if let Some(x) = bias {
            pre = pre.try_add(x)?;
        }
        pre.eval()?;
        let h = pre.gelu();
        h.eval()?;
        return Ok((h, pre));
    }
    let mut inputs = vec![a.node.clone(), b.node.clone()];
    if let Some(x) = bias {
        inputs.push(x.reshape(&[n])?.node.clone());
    }
    let call = Gemm {
        dtype: T::DTYPE,
        m,
        n,
        k,
        batch: Vec::new(),
        alpha: 1.0,
        bias: bias.is_some(),
        act: Act::GeluTanh,
        tf32: allow_tf32(),
        addend: false,
        beta: 0.0,
        aux: Aux::GeluInput,
        post: Post::NONE,
    };
    run_split(Arc::new(call), inputs, a, (m, n), &[m, n])
}

/// `(g, g summed over its rows)` with `g = scale·(a·b) ⊙ gelu'(pre)`: the gradient of a GELU
/// layer's pre-activation from the product that brings the gradient of its output back
/// (`a` `m × k`, `b` `k × n`, typically `dy · Wᵀ`), and the gradient of its bias (`n`
/// elements). `pre` is the `m × n` pre-activation [`matmul_gelu_with_input`] returned; GELU's
/// derivative is that of its tanh form. On CUDA, a product accumulating in `f32` for the half
/// types, with cuBLASLt's `DGELU` epilogue, and the bias gradient summed from its rounded
/// result (in `f32` for the half types); or (see [`set_gelu_grad_fused`]) a plain product and
/// one pass that multiplies by the derivative and sums the columns of the rounded `g`.
///
/// Eager: evaluates and returns realised arrays.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[2.0, 4.0], &[2, 1])?;
/// let b = Array::<f32>::from_slice_on(Device::CPU, &[1.0], &[1, 1])?;
/// let pre = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 0.0], &[2, 1])?;
/// // gelu'(0) = ½: g = 0.5·[2, 4]·½.
/// let (g, db) = linalg::matmul_gelu_grad(&a, &b, &pre, 0.5)?;
/// assert_eq!(g.to_vec()?, [0.5, 1.0]);
/// assert_eq!(db.to_vec()?, [1.5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
///
/// # Errors
/// Operands that are not `m × k` and `k × n` matrices, `pre` not `m × n`, operands on
/// different devices; a library error from the product.
pub fn matmul_gelu_grad<T: Float + Transcendental>(
    a: &Array<T>,
    b: &Array<T>,
    pre: &Array<T>,
    scale: f64,
) -> Result<(Array<T>, Array<T>)> {
    const CALL: &str = "matmul_gelu_grad";
    let (m, k, n) = dims(CALL, a, b)?;
    check_devices(&[&a.node, &pre.node])?;
    if pre.shape() != [m, n] {
        return Err(Error::Shape(format!(
            "{CALL}: pre has shape {:?}; the product is {m} × {n}",
            pre.shape()
        )));
    }
    let on_cpu = a.device() == crate::Device::CPU;
    let fits = epilogue_fits(T::DTYPE, m, n, k);
    if !(fits || on_cpu && k > 0) {
        // The same arithmetic as separate operations, in f64, rounded once.
        let prod = a.matmul(b)?.cast::<f64>() * scale;
        let z = pre.cast::<f64>();
        let z2 = &z * &z;
        let t = ((&z2 * CUBIC + 1.0) * &z * SQRT_2_OVER_PI).tanh();
        let du = (&z2 * (3.0 * CUBIC) + 1.0) * SQRT_2_OVER_PI;
        let g = prod * ((&t + 1.0) * 0.5 + &z * 0.5 * (1.0 - &t * &t) * du);
        g.eval()?;
        let db = g.sum_axes(&[0])?.cast::<T>();
        let g = g.cast::<T>();
        db.eval()?;
        g.eval()?;
        return Ok((g, db));
    }
    let fused = gelu_grad_fused();
    if on_cpu && !(fits && fused) {
        // One pass computes both.
        let call = Gemm {
            dtype: T::DTYPE,
            m,
            n,
            k,
            batch: Vec::new(),
            alpha: scale,
            bias: false,
            act: Act::None,
            tf32: allow_tf32(),
            addend: false,
            beta: 0.0,
            aux: Aux::GeluGrad,
            post: Post::NONE,
        };
        let inputs = vec![a.node.clone(), b.node.clone(), pre.node.clone()];
        return run_split(Arc::new(call), inputs, a, (m, n), &[n]);
    }
    // A plain product and one pass for the derivative and the column sums (on the CPU, the
    // twin of the CUDA path), or on CUDA the derivative as the product's epilogue and a pass
    // for the sums (cuBLASLt's fused bias gradient runs as a separate, slower pass).
    let call = Gemm {
        dtype: T::DTYPE,
        m,
        n,
        k,
        batch: Vec::new(),
        alpha: scale,
        bias: false,
        act: Act::None,
        tf32: allow_tf32(),
        addend: false,
        beta: 0.0,
        aux: if fused { Aux::None } else { Aux::GeluDeriv },
        post: Post::NONE,
    };
    let mut inputs = vec![a.node.clone(), b.node.clone()];
    if !fused {
        inputs.push(pre.node.clone());
    }
    let (prod, _) = run_split(Arc::new(call), inputs, a, (m, n), &[0])?;
    if fused {
        let rows = GeluGradRows {
            dtype: T::DTYPE,
            rows: m,
            cols: n,
            deriv: true,
        };
        let inputs = vec![prod.node.clone(), pre.node.clone()];
        return run_split(Arc::new(rows), inputs, a, (m, n), &[n]);
    }
    let db = prod.sum_axes(&[0])?.cast::<T>();
    db.eval()?;
    Ok((prod, db))
}
