//! Row operations along an axis, as library calls (see [`crate::graph::LibraryCall`]):
//! `softmax`, `log_softmax`, `logsumexp`, `layer_norm`, `rms_norm` and `normalize`. Each is one
//! kernel (CUDA) or one rayon pass (CPU); the input is realised first (fused with the
//! element-wise work that produces it) and element-wise work on the result fuses onto it.
//!
//! # Numerics
//!
//! - Floating-point dtypes only; `f16`/`bf16` (and `f32`) accumulate in `f32` on the GPU,
//!   `f64` in `f64`; the CPU backend computes every dtype in `f64` and rounds once. On the
//!   GPU, `f16`/`bf16` exponentials below the smallest normal `f32` are flushed to 0.
//! - softmax, log_softmax and logsumexp subtract the row maximum (no overflow for large
//!   values). A row that is all `-inf` gives NaN from softmax and log_softmax and `-inf` from
//!   logsumexp (as PyTorch); NaN anywhere in a row makes the row's results NaN; a `+inf` makes
//!   the whole row of softmax and of log_softmax NaN (`inf - inf` in the shift, as NumPy,
//!   SciPy and PyTorch) and logsumexp `+inf`.
//! - layer_norm uses the biased variance, computed around the mean (two passes over the row).
//! - rms_norm and normalize sum squares in the accumulation type, so an `f32` row whose squares
//!   overflow `f32` gives `inf` norms (as PyTorch).

use crate::array::Array;
use crate::codegen::kargs::{BufAt, KernelParams};
use crate::codegen::{RowArgs, RowBind, RowKind, RowShape, RowSpec};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op, Program, Step};
use crate::ops::{NormOpts, ReduceOpts};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use half::{bf16, f16};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A row operation on a contiguous array viewed as `outer x n x inner`, along `n`.
#[derive(Debug)]
struct RowOp {
    kind: RowKind,
    dtype: DType,
    outer: usize,
    n: usize,
    inner: usize,
    has_w: bool,
    has_b: bool,
    eps: f64,
    p: f64,
    /// The element-wise work producing the rows, evaluated inside the row kernel: the call's
    /// first inputs are then the producer's inputs (read where they lie, any layout).
    producer: Option<Producer>,
}

/// An element-wise producer fused into a row operation.
#[derive(Debug)]
struct Producer {
    prog: Program,
    ax: usize,
    hash: u64,
}

/// Most inputs a fused producer may have (kernel parameters stay small).
const MAX_PRODUCER_INPUTS: usize = 8;

/// The producer of `node` when it can be read inside the row kernel: an unevaluated
/// element-wise graph over realised arrays, no library call below it, no gathers, iotas,
/// random numbers or complex values.
fn fused_producer(node: &Arc<Node>, ax: usize) -> Option<Producer> {
    if node.is_leaf() || node.has_library() {
        return None;
    }
    let prog = Program::build(std::slice::from_ref(node));
    let plain = prog.instrs.iter().all(|i| {
        !i.dtype.is_complex()
            && !matches!(
                i.kind,
                Step::Gather(..)
                    | Step::Check(..)
                    | Step::Iota(_)
                    | Step::Rand(..)
                    | Step::RandKeyed(..)
            )
    });
    if !plain
        || prog.inputs.len() > MAX_PRODUCER_INPUTS
        || prog.inputs.iter().any(|i| i.gather_len.is_some())
        || prog.outputs.len() != 1
    {
        return None;
    }
    let hash = prog.structure_hash(&crate::jit::KernelKind::RowProducer { axis: ax });
    Some(Producer { prog, ax, hash })
}

/// The machine epsilon of a float dtype (the gap above 1): `rms_norm`'s default `eps`.
fn machine_eps(d: DType) -> f64 {
    match d {
        DType::F16 => f16::EPSILON.to_f64(),
        DType::BF16 => bf16::EPSILON.to_f64(),
        DType::F32 => <f64 as From<f32>>::from(f32::EPSILON),
        _ => f64::EPSILON,
    }
}

impl<T: Element> Array<T> {
    /// Checks the dtype and axis and returns `(axis, outer, n, inner)`.
    fn row_geometry(&self, what: &str, axis: isize) -> Result<(usize, usize, usize, usize)> {
        if !T::DTYPE.is_float() {
            return Err(Error::InvalidArgument(format!(
                "{what} needs a floating-point array (f16, bf16, f32, f64), not {}",
                T::DTYPE
            )));
        }
        let shape = self.shape();
        if shape.is_empty() {
            return Err(Error::Axis(format!(
                "{what}: axis {axis} is out of range for a 0-dimensional array"
            )));
        }
        let ax = crate::shape::axis(axis, shape.len())?;
        Ok((ax, numel(&shape[..ax]), shape[ax], numel(&shape[ax + 1..])))
    }

    /// Builds the call node; `params` are `(weight, bias)` checked against `n`.
    #[allow(clippy::too_many_arguments)]
    fn row_call(
        &self,
        kind: RowKind,
        axis: isize,
        weight: Option<&Array<T>>,
        bias: Option<&Array<T>>,
        eps: f64,
        p: f64,
        keepdims: bool,
    ) -> Result<Array<T>> {
        let what = kind.name();
        let (ax, outer, n, inner) = self.row_geometry(what, axis)?;
        let producer = fused_producer(&self.node, ax);
        let mut inputs = match &producer {
            Some(p) => p
                .prog
                .inputs
                .iter()
                .map(|i| {
                    Node::new(
                        Op::Leaf(i.storage.clone(), i.layout.clone()),
                        i.dtype,
                        self.shape().to_vec(),
                        self.device(),
                    )
                })
                .collect(),
            None => vec![self.node.clone()],
        };
        for (label, a) in [("weight", weight), ("bias", bias)] {
            if let Some(a) = a {
                if a.shape() != [n] {
                    return Err(Error::Shape(format!(
                        "{what}: {label} of shape {:?} does not match the {n} elements of axis {ax}",
                        a.shape()
                    )));
                }
                if a.device() != self.device() {
                    return Err(Error::DeviceMismatch(format!(
                        "{what}: {label} is on {:?}, the input on {:?}",
                        a.device(),
                        self.device()
                    )));
                }
                inputs.push(a.node.clone());
            }
        }
        if !eps.is_finite() || eps < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "{what}: eps must be finite and not negative, not {eps}"
            )));
        }
        let mut shape = self.shape().to_vec();
        if kind == RowKind::LogSumExp {
            if n == 0 {
                return Err(Error::Shape(format!(
                    "logsumexp along axis {ax} of length 0 (shape {shape:?})"
                )));
            }
            if keepdims {
                shape[ax] = 1;
            } else {
                shape.remove(ax);
            }
        }
        let call = Arc::new(RowOp {
            kind,
            dtype: T::DTYPE,
            outer,
            n,
            inner,
            has_w: weight.is_some(),
            has_b: bias.is_some(),
            eps,
            p,
            producer,
        });
        let node = Node::new(Op::Library(call, inputs), T::DTYPE, shape, self.device());
        Ok(Array::from_node(node))
    }

    /// `exp(x - max) / sum(exp(x - max))` along `axis` (negative counts from the end), in one
    /// pass over each row. Floating-point arrays only.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[1e4, 1e4 + 1.0], &[2])?;
    /// let s = a.softmax(-1)?.to_vec()?;
    /// assert!((s[1] - 0.7310586).abs() < 1e-6);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn softmax(&self, axis: isize) -> Result<Array<T>> {
        self.row_call(RowKind::Softmax, axis, None, None, 0.0, 2.0, false)
    }

    /// `x - max - log(sum(exp(x - max)))` along `axis`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 0.0], &[2])?;
    /// assert_eq!(a.log_softmax(0)?.to_vec()?, [-(2f64.ln()); 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn log_softmax(&self, axis: isize) -> Result<Array<T>> {
        self.row_call(RowKind::LogSoftmax, axis, None, None, 0.0, 2.0, false)
    }

    /// `log(sum(exp(x)))` along `axis`, computed as `max + log(sum(exp(x - max)))`; the axis is
    /// removed (kept with length 1 by [`logsumexp_with`](Self::logsumexp_with) and
    /// [`ReduceOpts::keepdims`](crate::ops::ReduceOpts::keepdims)).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1000.0, 1000.0, 0.0, 0.0], &[2, 2])?;
    /// let l = a.logsumexp(1)?;
    /// assert_eq!(l.shape(), &[2]);
    /// assert_eq!(l.to_vec()?, [1000.0 + 2f64.ln(), 2f64.ln()]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn logsumexp(&self, axis: isize) -> Result<Array<T>> {
        self.logsumexp_with(axis, ReduceOpts::new())
    }
    /// [`logsumexp`](Self::logsumexp) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn logsumexp_with(&self, axis: isize, opts: ReduceOpts) -> Result<Array<T>> {
        let keepdims = opts.keepdims;
        self.row_call(RowKind::LogSumExp, axis, None, None, 0.0, 2.0, keepdims)
    }

    /// `(x - mean) / sqrt(var + eps)` along `axis` (biased variance, `eps = 1e-5`): PyTorch's
    /// `layer_norm` over one axis without weight or bias (see
    /// [`layer_norm_with`](Self::layer_norm_with)).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 3.0], &[1, 2])?;
    /// let y = a.layer_norm(-1)?.to_vec()?;
    /// let want = 1.0 / (1.0f64 + 1e-5).sqrt();
    /// assert!((y[0] + want).abs() < 1e-15 && (y[1] - want).abs() < 1e-15);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn layer_norm(&self, axis: isize) -> Result<Array<T>> {
        self.layer_norm_with(axis, NormOpts::new())
    }

    /// [`layer_norm`](Self::layer_norm) with PyTorch's `eps`, `weight` and `bias`
    /// ([`NormOpts`]): `(x - mean) / sqrt(var + eps) * weight + bias`; `weight` and `bias`
    /// have the shape `[n]` of that axis.
    ///
    /// # Errors
    /// A weight or bias of another shape, a negative or non-finite `eps`, a bad axis.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, ops::NormOpts};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 3.0], &[1, 2])?;
    /// let w = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 2.0], &[2])?;
    /// let y = a.layer_norm_with(-1, NormOpts::new().weight(&w).eps(0.0))?.to_vec()?;
    /// assert_eq!(y, [-2.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn layer_norm_with(&self, axis: isize, opts: NormOpts<'_, T>) -> Result<Array<T>> {
        let eps = opts.eps.unwrap_or(1e-5);
        self.row_call(
            RowKind::LayerNorm,
            axis,
            opts.weight,
            opts.bias,
            eps,
            2.0,
            false,
        )
    }

    /// `x / sqrt(mean(x^2) + eps)` along `axis`, `eps` the dtype's machine epsilon (PyTorch's
    /// `rms_norm` default; see [`rms_norm_with`](Self::rms_norm_with)).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 4.0, 0.0, 0.0], &[4])?;
    /// let y = a.rms_norm(0)?.to_vec()?;
    /// let want = [1.2, 1.6, 0.0, 0.0];
    /// assert!(y.iter().zip(want).all(|(y, w)| (y - w).abs() < 1e-12));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rms_norm(&self, axis: isize) -> Result<Array<T>> {
        self.rms_norm_with(axis, NormOpts::new())
    }

    /// [`rms_norm`](Self::rms_norm) with PyTorch's `eps` and `weight` ([`NormOpts`]):
    /// `x / sqrt(mean(x^2) + eps) * weight`, `weight` of the shape `[n]` of that axis.
    ///
    /// # Errors
    /// A bias (RMS norm has none), a weight of another shape, a negative or non-finite `eps`,
    /// a bad axis.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, ops::NormOpts};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 4.0], &[2])?;
    /// let w = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0], &[2])?;
    /// // mean square (9 + 16) / 2 = 12.5, plus eps 0.5: 13, whose root divides.
    /// let y = a.rms_norm_with(0, NormOpts::new().eps(0.5).weight(&w))?.to_vec()?;
    /// let r = 13f64.sqrt();
    /// assert!((y[0] - 3.0 / r).abs() < 1e-12 && (y[1] - 8.0 / r).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rms_norm_with(&self, axis: isize, opts: NormOpts<'_, T>) -> Result<Array<T>> {
        if opts.bias.is_some() {
            return Err(Error::InvalidArgument(
                "rms_norm takes no bias (set only eps and weight)".into(),
            ));
        }
        let eps = opts.eps.unwrap_or_else(|| machine_eps(T::DTYPE));
        self.row_call(RowKind::RmsNorm, axis, opts.weight, None, eps, 2.0, false)
    }

    /// `x / max(||x||_p, eps)` along `axis`: PyTorch's `F.normalize` (`p = 2.0`,
    /// `eps = 1e-12` there). `p` must be finite and positive.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 4.0], &[2])?;
    /// let close = |y: Vec<f64>, w: [f64; 2]| y.iter().zip(w).all(|(y, w)| (y - w).abs() < 1e-12);
    /// assert!(close(a.normalize(0, 2.0, 1e-12)?.to_vec()?, [0.6, 0.8]));
    /// assert!(close(a.normalize(0, 1.0, 1e-12)?.to_vec()?, [3.0 / 7.0, 4.0 / 7.0]));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn normalize(&self, axis: isize, p: f64, eps: f64) -> Result<Array<T>> {
        if !p.is_finite() || p <= 0.0 {
            return Err(Error::InvalidArgument(format!(
                "normalize: p must be finite and positive, not {p}"
            )));
        }
        self.row_call(
            RowKind::Normalize { p2: p == 2.0 },
            axis,
            None,
            None,
            eps,
            p,
            false,
        )
    }
}

/// A float element the CPU path computes in `f64`.
trait RowFloat: Copy + Send + Sync + bytemuck::Pod {
    fn to(self) -> f64;
    fn from(v: f64) -> Self;
}
impl RowFloat for f64 {
    fn to(self) -> f64 {
        self
    }
    fn from(v: f64) -> Self {
        v
    }
}
impl RowFloat for f32 {
    fn to(self) -> f64 {
        self as f64
    }
    fn from(v: f64) -> Self {
        v as f32
    }
}
impl RowFloat for f16 {
    fn to(self) -> f64 {
        self.to_f64()
    }
    fn from(v: f64) -> Self {
        f16::from_f64(v)
    }
}
impl RowFloat for bf16 {
    fn to(self) -> f64 {
        self.to_f64()
    }
    fn from(v: f64) -> Self {
        bf16::from_f64(v)
    }
}

impl RowOp {
    /// Checks that the inputs are what the call was made for.
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let nx = self.x_inputs();
        let want = nx + self.has_w as usize + self.has_b as usize;
        let total = self.outer * self.n * self.inner;
        let x_dtype = |k: usize| match &self.producer {
            Some(p) => p.prog.inputs[k].dtype,
            None => self.dtype,
        };
        let ok = inputs.len() == want
            && inputs[..nx]
                .iter()
                .enumerate()
                .all(|(k, x)| x.dtype == x_dtype(k) && numel(x.shape) == total)
            && inputs[nx..]
                .iter()
                .all(|x| x.dtype == self.dtype && numel(x.shape) == self.n);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "{} made for {total} elements of {} was given {:?}",
                self.kind.name(),
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// How many of the call's inputs make the rows (the producer's inputs, or the one input).
    fn x_inputs(&self) -> usize {
        self.producer.as_ref().map_or(1, |p| p.prog.inputs.len())
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x7203_5000);
        if let Some(p) = &self.producer {
            p.hash.hash(&mut h);
            p.ax.hash(&mut h);
        }
        "rows".hash(&mut h);
        self.kind.hash(&mut h);
        self.dtype.code().hash(&mut h);
        self.has_w.hash(&mut h);
        self.has_b.hash(&mut h);
        self.row_shape().hash(&mut h);
        h.finish()
    }

    /// One line in `f64`: `line` holds the inputs, `w`/`b` the parameters; writes `out`
    /// (one value for logsumexp).
    fn line(&self, line: &mut [f64], w: Option<&[f64]>, b: Option<&[f64]>) {
        let n = line.len() as f64;
        match self.kind {
            RowKind::Softmax | RowKind::LogSoftmax | RowKind::LogSumExp => {
                let m = line
                    .iter()
                    .fold(f64::NEG_INFINITY, |m, &x| if x > m { x } else { m });
                let s: f64 = line
                    .iter()
                    .map(|&x| {
                        if x == f64::NEG_INFINITY {
                            0.0
                        } else if x == m {
                            1.0
                        } else {
                            (x - m).exp()
                        }
                    })
                    .sum();
                match self.kind {
                    // A +inf in the line: inf - inf in the shift makes every output NaN.
                    RowKind::Softmax | RowKind::LogSoftmax if m == f64::INFINITY => {
                        line.fill(f64::NAN)
                    }
                    RowKind::Softmax => line.iter_mut().for_each(|x| *x = (*x - m).exp() / s),
                    RowKind::LogSoftmax => {
                        let l = s.ln();
                        line.iter_mut().for_each(|x| *x = (*x - m) - l)
                    }
                    _ => line[0] = m + s.ln(),
                }
                return;
            }
            RowKind::LayerNorm => {
                let mean = line.iter().sum::<f64>() / n;
                let var = line.iter().map(|&x| (x - mean) * (x - mean)).sum::<f64>() / n;
                let r = 1.0 / (var + self.eps).sqrt();
                line.iter_mut().for_each(|x| *x = (*x - mean) * r);
            }
            RowKind::RmsNorm => {
                let ms = line.iter().map(|&x| x * x).sum::<f64>() / n;
                let r = 1.0 / (ms + self.eps).sqrt();
                line.iter_mut().for_each(|x| *x *= r);
            }
            RowKind::Normalize { .. } => {
                let p = self.p;
                let nrm = line
                    .iter()
                    .map(|&x| x.abs().powf(p))
                    .sum::<f64>()
                    .powf(1.0 / p);
                let inv = 1.0 / if nrm > self.eps { nrm } else { self.eps };
                line.iter_mut().for_each(|x| *x *= inv);
            }
        }
        if let Some(w) = w {
            line.iter_mut().zip(w).for_each(|(x, w)| *x *= w);
        }
        if let Some(b) = b {
            line.iter_mut().zip(b).for_each(|(x, b)| *x += b);
        }
    }

    /// The CPU path: the rows in `x` (contiguous from element `x_off`), the parameters in
    /// `params` (weight, then bias, as present).
    fn cpu<F: RowFloat>(
        &self,
        x: &HostBuf,
        x_off: usize,
        params: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) {
        let (n, inner) = (self.n, self.inner);
        let xs: &[F] = bytemuck::cast_slice(x.bytes());
        let mut params = params.iter().map(|p| {
            let v: &[F] = bytemuck::cast_slice(p.buf.bytes());
            v[p.layout.offset..p.layout.offset + n]
                .iter()
                .map(|v| v.to())
                .collect::<Vec<f64>>()
        });
        let w = if self.has_w { params.next() } else { None };
        let b = if self.has_b { params.next() } else { None };
        let xs = &xs[x_off..];
        let os: &mut [F] = bytemuck::cast_slice_mut(out.bytes_mut());
        let plane = n * inner;
        let lse = self.kind == RowKind::LogSumExp;
        let out_plane = if lse { inner } else { plane };
        if plane == 0 || out_plane == 0 {
            return;
        }
        os.par_chunks_mut(out_plane)
            .zip(xs.par_chunks(plane))
            .for_each(|(o, x)| {
                let mut line = vec![0.0f64; n];
                for j in 0..inner {
                    for (i, v) in line.iter_mut().enumerate() {
                        *v = x[i * inner + j].to();
                    }
                    self.line(&mut line, w.as_deref(), b.as_deref());
                    if lse {
                        o[j] = F::from(line[0]);
                    } else {
                        for (i, v) in line.iter().enumerate() {
                            o[i * inner + j] = F::from(*v);
                        }
                    }
                }
            });
    }
}

impl LibraryCall for RowOp {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let nx = self.x_inputs();
        // A fused producer is evaluated into a contiguous buffer first on the CPU.
        let made = match &self.producer {
            Some(p) => Some(crate::backend::cpu::eval(&p.prog)?.remove(0)),
            None => None,
        };
        let (x, x_off) = match &made {
            Some(b) => (b, 0),
            None => (inputs[0].buf, inputs[0].layout.offset),
        };
        let params = &inputs[nx..];
        match self.dtype {
            DType::F64 => self.cpu::<f64>(x, x_off, params, out),
            DType::F32 => self.cpu::<f32>(x, x_off, params, out),
            DType::F16 => self.cpu::<f16>(x, x_off, params, out),
            DType::BF16 => self.cpu::<bf16>(x, x_off, params, out),
            d => {
                return Err(Error::InvalidArgument(format!(
                    "{} needs a floating-point array, not {d}",
                    self.kind.name()
                )));
            }
        }
        Ok(())
    }

    fn run_cuda<'a>(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'a, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        let lines = self.outer * self.inner;
        if lines == 0 || self.n == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let nx = self.x_inputs();
        // The weight and the bias follow the rows' inputs, in that order when present.
        let at = |x: &CallInput<'a, DevBuf>| BufAt {
            buf: x.buf,
            elem: x.layout.offset,
        };
        let mut params = inputs[nx..].iter();
        let w = if self.has_w {
            params.next().map(at)
        } else {
            None
        };
        let b = if self.has_b {
            params.next().map(at)
        } else {
            None
        };
        let args = RowArgs {
            spec: self.spec(),
            bind: Some(RowBind {
                inputs: inputs[..nx].iter().map(|x| (x.buf, x.layout)).collect(),
                w,
                b,
                out,
                lines,
                n: self.n,
                inner: self.inner,
                eps: self.eps,
                p: self.p,
            }),
        }
        .launch_args()?;
        let shape = self.row_shape();
        let threads = shape.block();
        // `blocks_per_sm` counts blocks of `BLOCK` threads; smaller blocks fit more.
        let per_sm = (k.blocks_per_sm * (crate::codegen::BLOCK / threads)).clamp(1, 32);
        let resident = (st.sms * per_sm).max(1) as usize;
        // One wave of blocks, each looping over its lines: the streaming form (contiguous
        // aligned lines) reads a block's next line while it works on this one. Lines held in
        // registers and written back whole take a block each instead (the hardware keeps
        // enough of them in flight) when they are of at least `ONE_LINE_BYTES`, or layer_norm
        // lines without a weight or a bias; held lines with a weight or a bias, and held
        // half-precision logsumexp lines (one value written a line), run as two waves, which
        // even out the tail; packed logsumexp lines take a group of threads each (a block, or
        // a warp of a block of several lines) (docs/perf-log/ has the sweeps).
        const ONE_LINE_BYTES: usize = 16 << 10;
        let held = shape.holds(self.n);
        let weighted = self.has_w || self.has_b;
        let blocks = match self.kind {
            _ if shape.packed => lines.div_ceil(shape.lines as usize),
            RowKind::LogSumExp if held && self.dtype.size() <= 2 => resident.saturating_mul(2),
            RowKind::LogSumExp => resident,
            RowKind::LayerNorm if held && !weighted => lines,
            _ if held && self.n * self.dtype.size() >= ONE_LINE_BYTES => lines,
            _ if held && weighted => resident.saturating_mul(2),
            _ => resident,
        };
        let grid = lines.min(blocks).min(i32::MAX as usize) as u32;
        // SAFETY: the words and accesses come from the kernel's own parameter description
        // (`RowArgs`), which made its signature: the rows are either one contiguous realised
        // array of `outer * n * inner` elements from its offset, or the fused producer's
        // inputs, each read through its own offset and strides over the rows' shape (layouts
        // the scheduler handed over with their storage, so every element they address lies in
        // it); the weight and bias (when present) are contiguous arrays of `n`; the output is
        // a new buffer of `outer * n * inner` elements (`outer * inner` for logsumexp). The
        // kernel reads and writes only those, all declared by kind.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (threads, 1, 1),
                0,
                &args.words,
                &args.access,
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }

    fn accepts_view(
        &self,
        index: usize,
        _shape: &[usize],
        _layout: &crate::shape::Layout,
        _storage_len: usize,
    ) -> bool {
        // A fused producer's inputs are read through their layouts (broadcasts included).
        self.producer.is_some() && index < self.x_inputs()
    }
}

impl RowOp {
    /// What the row kernel of this call depends on.
    fn spec(&self) -> RowSpec<'_> {
        RowSpec {
            kind: self.kind,
            dtype: self.dtype,
            has_w: self.has_w,
            has_b: self.has_b,
            shape: self.row_shape(),
            producer: self.producer.as_ref().map(|p| (&p.prog, p.ax)),
        }
    }

    /// How a line of this call is spread over a block.
    fn row_shape(&self) -> RowShape {
        RowShape::for_call(self.kind, self.n, self.dtype, self.producer.is_none())
    }

    fn kernel(&self) -> crate::codegen::KernelSource {
        crate::codegen::rows_kernel(self.spec())
    }
}
