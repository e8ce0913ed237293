//! From a call to a graph node: the checks of the input type and the axes, the resizing to
//! `n`, the call node itself, and the normalisation on its output.

use super::desc::{FftCall, Kind, complex_of};
use super::norm::FftNorm;
use crate::array::Array;
use crate::dtype::{Element, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::BinaryOp;
use crate::shape::{SliceArg, numel};
use std::sync::Arc;

/// Which axes a multi-axis form transforms when none are given.
#[derive(Clone, Copy)]
pub(super) enum DefaultAxes {
    /// The last two (`fft2`, `ifft2`, `rfft2`, `irfft2`).
    LastTwo,
    /// All (`fftn`...), or the last `s.len()` when `s` is given.
    All,
}

pub(super) fn real_input<T: Element>(what: &str) -> Result<()> {
    if T::DTYPE.is_complex() {
        return Err(Error::InvalidArgument(format!(
            "{what} takes a real array, not {}: use the complex transform (fft, fftn)",
            T::DTYPE
        )));
    }
    Ok(())
}

/// The axes of `axes` as indices into `nd` dimensions, each once.
pub(super) fn resolve_axes(axes: &[isize], nd: usize, what: &str) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let k = crate::shape::axis(a, nd).map_err(|_| {
            Error::Axis(format!(
                "{what}: axis {a} is out of range for an array of {nd} dimension(s)"
            ))
        })?;
        if out.contains(&k) {
            return Err(Error::Axis(format!(
                "{what}: axis {a} is given twice in {axes:?}"
            )));
        }
        out.push(k);
    }
    Ok(out)
}

pub(super) fn one_axis<U: Element, O: Element>(
    x: Array<U>,
    kind: Kind,
    n: Option<usize>,
    axis: isize,
    norm: FftNorm,
    what: &str,
) -> Result<Array<O>> {
    // Where the backend's library transforms real signals along the last axis only (cuFFT
    // needs its real and complex pointers aligned to the complex type, which the interleaved
    // signals of an inner axis are not: CUFFT_INVALID_VALUE), a real-to-complex or
    // complex-to-real transform along another axis runs along the last axis of a permuted copy.
    let nd = x.ndim();
    if matches!(kind, Kind::R2C | Kind::C2R)
        && crate::backend::of(x.device()).limits().fft_real_last_axis
        && nd > 1
    {
        let ax = crate::shape::axis(axis, nd)?;
        if ax != nd - 1 {
            let mut perm: Vec<usize> = (0..nd).filter(|&d| d != ax).collect();
            perm.push(ax);
            let mut back = vec![0; nd];
            for (i, &p) in perm.iter().enumerate() {
                back[p] = i;
            }
            let r: Array<O> = one_axis(x.permute(&perm)?, kind, n, -1, norm, what)?;
            return r.permute(&back);
        }
    }
    let s = n.map(|n| [n]);
    let node = transform(
        &x,
        kind,
        s.as_ref().map(|s| &s[..]),
        Some(&[axis]),
        None,
        norm,
        what,
    )?;
    Ok(Array::from_node(node))
}

pub(super) fn many_axes<U: Element, O: Element>(
    x: Array<U>,
    kind: Kind,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    default: DefaultAxes,
    norm: FftNorm,
    what: &str,
) -> Result<Array<O>> {
    Ok(Array::from_node(transform(
        &x,
        kind,
        s,
        axes,
        Some(default),
        norm,
        what,
    )?))
}

/// Builds the transform of `x` (already in the call's input dtype: complex for C2C and C2R,
/// real for R2C): resolves the axes and lengths, crops or pads the input, makes the call node
/// and multiplies its output by the norm's factor.
pub(super) fn transform<U: Element>(
    x: &Array<U>,
    kind: Kind,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    default: Option<DefaultAxes>,
    norm: FftNorm,
    what: &str,
) -> Result<Arc<Node>> {
    let nd = x.ndim();
    let shape = x.shape().to_vec();
    let axes = transform_axes(nd, s, axes, default, what)?;
    if axes.is_empty() {
        if kind.is_real() {
            return Err(Error::Axis(format!(
                "{what} needs at least one axis (the real one)"
            )));
        }
        return Ok(x.node.clone());
    }
    let last = axes.len() - 1;
    // The logical length n of each transformed axis, and the input length it needs.
    let mut logical = Vec::with_capacity(axes.len());
    let mut need = Vec::with_capacity(axes.len());
    for (i, &a) in axes.iter().enumerate() {
        let m = shape[a];
        let n = match s {
            Some(s) => s[i],
            None if kind == Kind::C2R && i == last => 2 * m.saturating_sub(1),
            None => m,
        };
        if n == 0 {
            return Err(Error::InvalidArgument(format!(
                "{what}: {n} points along axis {a} (of length {m} in shape {shape:?}); give n \
                 of at least 1{}",
                if kind == Kind::C2R && i == last {
                    " (the default output length is 2 (m - 1))"
                } else {
                    ""
                }
            )));
        }
        logical.push(n);
        need.push(if kind == Kind::C2R && i == last {
            n / 2 + 1
        } else {
            n
        });
    }
    let points = logical
        .iter()
        .try_fold(1usize, |p, &n| p.checked_mul(n))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{what}: the transform lengths {logical:?} overflow the number of points"
            ))
        })?;
    let mut input = fit_input(x, &axes, &need)?;
    // cuFFT may overwrite a complex-to-real input, and it does not ignore the imaginary parts
    // of the zero-frequency and Nyquist points as NumPy (and the CPU backend) do. On CUDA a
    // one-axis `irfft` reads a private copy with those parts zeroed, made by one fused
    // element-wise expression (free when the input is itself an expression). Over several
    // axes the points NumPy ignores are those of the lines after the complex inverse
    // transforms, not of the input: the call then copies its input on the stream instead (see
    // the module docs for what differs). The CPU backend copies each line and zeroes them.
    let private_input = kind == Kind::C2R
        && axes.len() == 1
        && crate::backend::of(x.device()).limits().fft_c2r_reads_edges;
    if private_input {
        input = drop_edge_imag(&input, axes[last], logical[last])?;
    }
    let shape_in = input.shape().to_vec();
    let mut shape_out = shape_in.clone();
    for (i, &a) in axes.iter().enumerate() {
        shape_out[a] = logical[i];
        if kind == Kind::R2C && i == last {
            shape_out[a] = logical[i] / 2 + 1;
        }
    }
    let real = U::DTYPE.real();
    let out_dtype = if kind == Kind::C2R {
        real
    } else {
        complex_of(real)
    };
    let device = x.device();
    let node = if numel(&shape_out) == 0 {
        // Empty along a batch axis: nothing to transform.
        Node::new(
            Op::Const(Scalar::F64(0.0).cast(out_dtype)),
            out_dtype,
            shape_out,
            device,
        )
    } else {
        let call = FftCall::new(kind, real, shape_in, shape_out.clone(), axes, private_input)?;
        Node::new(
            Op::Library(Arc::new(call), vec![input.node.clone()]),
            out_dtype,
            shape_out,
            device,
        )
    };
    match norm.factor(points, kind.is_inverse()) {
        None => Ok(node),
        Some(f) => {
            let c = Node::new(Op::Const(Scalar::F64(f).cast(real)), real, vec![], device);
            crate::ops::elementwise::binary_node(&node, &c, BinaryOp::Mul)
        }
    }
}

/// The transformed axes in the caller's order (the last is the real one of R2C/C2R): `axes`
/// resolved, else the last `s.len()` axes, else the `default`; checked against `s`.
fn transform_axes(
    nd: usize,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    default: Option<DefaultAxes>,
    what: &str,
) -> Result<Vec<usize>> {
    let axes: Vec<usize> = match (axes, s, default) {
        (Some(a), _, _) => resolve_axes(a, nd, what)?,
        (None, Some(s), _) if s.len() > nd => {
            return Err(Error::Shape(format!(
                "{what}: s = {s:?} gives {} lengths for an array of {nd} dimension(s)",
                s.len()
            )));
        }
        (None, Some(s), _) => (nd - s.len()..nd).collect(),
        (None, None, Some(DefaultAxes::LastTwo)) => resolve_axes(&[-2, -1], nd, what)?,
        (None, None, _) => (0..nd).collect(),
    };
    if let Some(s) = s {
        if s.len() != axes.len() {
            return Err(Error::Shape(format!(
                "{what}: s = {s:?} gives {} lengths for {} axes {axes:?}",
                s.len(),
                axes.len()
            )));
        }
        if let Some(i) = s.iter().position(|&n| n == 0) {
            return Err(Error::InvalidArgument(format!(
                "{what}: n = 0 points along axis {} (s = {s:?}); every length must be at least 1",
                axes[i]
            )));
        }
    }
    Ok(axes)
}

/// `x` cropped (a view) then padded with zeros (one evaluation) to `need` points along each of
/// `axes`, as NumPy does.
fn fit_input<U: Element>(x: &Array<U>, axes: &[usize], need: &[usize]) -> Result<Array<U>> {
    let shape = x.shape();
    let nd = shape.len();
    let mut input = x.clone();
    if axes.iter().zip(need).any(|(&a, &n)| shape[a] > n) {
        let mut args: Vec<SliceArg> = vec![(..).into(); nd];
        for (&a, &n) in axes.iter().zip(need) {
            if shape[a] > n {
                args[a] = (..n as isize).into();
            }
        }
        input = input.slice(&args)?;
    }
    if axes.iter().zip(need).any(|(&a, &n)| shape[a] < n) {
        let mut widths = vec![(0, 0); nd];
        for (&a, &n) in axes.iter().zip(need) {
            if shape[a] < n {
                widths[a] = (0, n - shape[a]);
            }
        }
        input = input.pad(&widths, U::default())?;
    }
    Ok(input)
}

/// `x` (a half spectrum, `n / 2 + 1` points along `axis`) with the imaginary parts of its
/// zero-frequency point and, for even `n`, of its Nyquist point set to zero: a new lazy node
/// no other array holds.
pub(super) fn drop_edge_imag<U: Element>(x: &Array<U>, axis: usize, n: usize) -> Result<Array<U>> {
    let h = x.shape()[axis];
    let mut mshape = vec![1; x.ndim()];
    mshape[axis] = h;
    // The mask is computed on the device from each point's index (no upload, so that it can
    // be captured into a graph): not the zero frequency, and not the Nyquist point of even n.
    let k = Array::<i64>::from_node(Node::new(
        Op::Iota(axis),
        crate::dtype::DType::I64,
        mshape,
        x.device(),
    ));
    let mut mask = k.try_not_equal(0i64)?;
    if n % 2 == 0 {
        let last = i64::try_from(h.saturating_sub(1))
            .map_err(|_| Error::Shape(format!("a half spectrum of {h} points is too long")))?;
        let not_nyquist = k.try_not_equal(last)?;
        mask = Array::from_node(crate::ops::elementwise::binary_node(
            &mask.node,
            &not_nyquist.node,
            BinaryOp::And,
        )?);
    }
    let re = crate::ops::elementwise::unary_node(&x.node, crate::ops::UnaryOp::Real);
    let re = Array::<U>::from_node(crate::array::cast_node(&re, U::DTYPE));
    Array::select(&mask, x, &re)
}
