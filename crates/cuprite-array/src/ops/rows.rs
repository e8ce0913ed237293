//! Row operations along an axis, as library calls (see [`crate::graph::LibraryCall`]):
//! `softmax`, `log_softmax`, `logsumexp`, `layer_norm`, `rms_norm` and `normalize`. Each is one
//! kernel (CUDA) or one rayon pass (CPU); the input is realised first (fused with the
//! element-wise work that produces it) and element-wise work on the result fuses onto it.
//!
//! # Numerics
//!
//! - Floating-point dtypes only; `f16`/`bf16` (and `f32`) accumulate in `f32` on the GPU,
//!   `f64` in `f64`; the CPU backend computes every dtype in `f64` and rounds once.
//! - softmax, log_softmax and logsumexp subtract the row maximum (no overflow for large
//!   values). A row that is all `-inf` gives NaN from softmax and log_softmax and `-inf` from
//!   logsumexp (as PyTorch); NaN anywhere in a row makes the row's results NaN; a `+inf` makes
//!   softmax NaN and logsumexp `+inf`.
//! - layer_norm uses the biased variance, computed around the mean (two passes over the row).
//! - rms_norm and normalize sum squares in the accumulation type, so an `f32` row whose squares
//!   overflow `f32` gives `inf` norms (as PyTorch).

use crate::array::Array;
use crate::codegen::RowKind;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::runtime::DeviceState;
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use cuprite::{Access, Stream};
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
        let mut inputs = vec![self.node.clone()];
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
    /// removed (kept with length 1 when `keepdims`).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1000.0, 1000.0, 0.0, 0.0], &[2, 2])?;
    /// let l = a.logsumexp(1, false)?;
    /// assert_eq!(l.shape(), &[2]);
    /// assert_eq!(l.to_vec()?, [1000.0 + 2f64.ln(), 2f64.ln()]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn logsumexp(&self, axis: isize, keepdims: bool) -> Result<Array<T>> {
        self.row_call(RowKind::LogSumExp, axis, None, None, 0.0, 2.0, keepdims)
    }

    /// `(x - mean) / sqrt(var + eps) * weight + bias` along `axis` (biased variance); `weight`
    /// and `bias`, when given, have the shape `[n]` of that axis. PyTorch's `layer_norm` over
    /// one axis (its default `eps` is `1e-5`).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 3.0], &[1, 2])?;
    /// let w = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 2.0], &[2])?;
    /// let y = a.layer_norm(-1, Some(&w), None, 0.0)?.to_vec()?;
    /// assert_eq!(y, [-2.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn layer_norm(
        &self,
        axis: isize,
        weight: Option<&Array<T>>,
        bias: Option<&Array<T>>,
        eps: f64,
    ) -> Result<Array<T>> {
        self.row_call(RowKind::LayerNorm, axis, weight, bias, eps, 2.0, false)
    }

    /// `x / sqrt(mean(x^2) + eps) * weight` along `axis`; `weight`, when given, has the shape
    /// `[n]` of that axis.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 4.0, 0.0, 0.0], &[4])?;
    /// let y = a.rms_norm(0, None, 0.0)?.to_vec()?;
    /// let want = [1.2, 1.6, 0.0, 0.0];
    /// assert!(y.iter().zip(want).all(|(y, w)| (y - w).abs() < 1e-12));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rms_norm(&self, axis: isize, weight: Option<&Array<T>>, eps: f64) -> Result<Array<T>> {
        self.row_call(RowKind::RmsNorm, axis, weight, None, eps, 2.0, false)
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
        let want = 1 + self.has_w as usize + self.has_b as usize;
        let total = self.outer * self.n * self.inner;
        let ok = inputs.len() == want
            && inputs.iter().all(|x| x.dtype == self.dtype)
            && numel(inputs[0].shape) == total
            && inputs[1..].iter().all(|x| numel(x.shape) == self.n);
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

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x7203_5000);
        "rows".hash(&mut h);
        self.kind.hash(&mut h);
        self.dtype.code().hash(&mut h);
        self.has_w.hash(&mut h);
        self.has_b.hash(&mut h);
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

    fn cpu<F: RowFloat>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let (n, inner) = (self.n, self.inner);
        let xs: &[F] = bytemuck::cast_slice(inputs[0].buf.bytes());
        let mut params = inputs[1..].iter().map(|p| {
            let v: &[F] = bytemuck::cast_slice(p.buf.bytes());
            v[p.layout.offset..p.layout.offset + n]
                .iter()
                .map(|v| v.to())
                .collect::<Vec<f64>>()
        });
        let w = if self.has_w { params.next() } else { None };
        let b = if self.has_b { params.next() } else { None };
        let xs = &xs[inputs[0].layout.offset..];
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
        match self.dtype {
            DType::F64 => self.cpu::<f64>(inputs, out),
            DType::F32 => self.cpu::<f32>(inputs, out),
            DType::F16 => self.cpu::<f16>(inputs, out),
            DType::BF16 => self.cpu::<bf16>(inputs, out),
            d => {
                return Err(Error::InvalidArgument(format!(
                    "{} needs a floating-point array, not {d}",
                    self.kind.name()
                )));
            }
        }
        Ok(())
    }

    fn run_cuda(
        &self,
        st: &'static DeviceState,
        stream: &Arc<Stream>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let lines = self.outer * self.inner;
        if lines == 0 || self.n == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || {
            crate::codegen::rows_kernel(self.kind, self.dtype, self.has_w, self.has_b)
        })?;
        let Some(dst) = out.live() else {
            return Err(Error::InvalidArgument(format!(
                "{} on a buffer that was handed back",
                self.kind.name()
            )));
        };
        let size = self.dtype.size();
        let mut ptrs = [0u64; 3];
        let mut access = Vec::with_capacity(4);
        for (slot, x) in inputs.iter().enumerate() {
            let Some(src) = x.buf.live() else {
                return Err(Error::InvalidArgument(format!(
                    "{} on a buffer that was handed back",
                    self.kind.name()
                )));
            };
            // Slot 0 is the input, then the weight and the bias in that order when present.
            let at = if slot == 0 {
                0
            } else if slot == 1 && self.has_w {
                1
            } else {
                2
            };
            ptrs[at] = x.buf.ptr() + (x.layout.offset * size) as u64;
            access.push(Access::read(src));
        }
        access.push(Access::write(dst));
        let words = [
            ptrs[0],
            ptrs[1],
            ptrs[2],
            out.ptr(),
            lines as u64,
            self.n as u64,
            self.inner as u64,
            self.eps.to_bits(),
            self.p.to_bits(),
        ];
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let grid = lines.min(resident * 8).min(i32::MAX as usize) as u32;
        // SAFETY: the input is a contiguous realised array of `outer * n * inner` elements
        // starting at `ptrs[0]`, the weight and bias (when present, else null and not read)
        // contiguous arrays of `n`, the output a new buffer of `outer * n * inner` elements
        // (`outer * inner` for logsumexp); the kernel reads and writes only those, all declared.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (crate::codegen::BLOCK, 1, 1),
                0,
                &words,
                &access,
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![crate::codegen::rows_kernel(self.kind, self.dtype, self.has_w, self.has_b).source]
    }
}

impl<I: crate::dtype::Integer> Array<I> {
    /// Checks that every index lies in `0..classes` (reads the minimum and maximum back: a
    /// synchronisation) and returns the indices as `i64`.
    fn class_indices(&self, what: &str, classes: usize) -> Result<Array<i64>> {
        let idx = self.cast::<i64>();
        if classes == 0 || classes > i64::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "{what}: the number of classes must be in 1..=i64::MAX, not {classes}"
            )));
        }
        if !idx.is_empty() {
            let (lo, hi) = (idx.min()?.item()?, idx.max()?.item()?);
            if lo < 0 || hi >= classes as i64 {
                let bad = if lo < 0 { lo } else { hi };
                return Err(Error::Index(format!(
                    "{what}: class index {bad} is out of range for {classes} classes"
                )));
            }
        }
        Ok(idx)
    }

    /// The one-hot encoding of integer class indices: shape `[..., classes]`, `1` at each
    /// index and `0` elsewhere, in dtype `U`. An index outside `0..classes` (a negative one, or
    /// an unsigned one above `i64::MAX`) is an `Err`; the check reads the indices' minimum and
    /// maximum back (a synchronisation), the encoding itself stays lazy and fuses.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let t = Array::<i32>::from_slice_on(Device::CPU, &[2, 0], &[2])?;
    /// assert_eq!(t.one_hot::<f32>(3)?.to_vec()?, [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
    /// assert!(t.one_hot::<f32>(2).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn one_hot<U: Element>(&self, classes: usize) -> Result<Array<U>> {
        let idx = self.class_indices("one_hot", classes)?;
        let iota = crate::with_device(self.device(), || Array::<i64>::arange_len(classes))?;
        let iota = iota.broadcast_to(&[self.shape(), &[classes]].concat())?;
        let idx = idx.expand_dims(-1)?.broadcast_to(iota.shape())?;
        Ok(idx.equal(&iota).cast::<U>())
    }
}

impl<T: crate::dtype::Float> Array<T> {
    /// The mean cross-entropy loss of `self` (logits, shape `[N, C]`) against integer class
    /// `targets` (shape `[N]`): `mean(logsumexp(row) - row[target])`, a 0-d array. PyTorch's
    /// `F.cross_entropy` with `reduction="mean"`. Targets outside `0..C` are an `Err` (checked
    /// by reading their minimum and maximum back: a synchronisation).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let z = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 0.0, 5.0, 5.0], &[2, 2])?;
    /// let t = Array::<i64>::from_slice_on(Device::CPU, &[1, 0], &[2])?;
    /// let l = z.cross_entropy(&t)?.item()?;
    /// assert!((l - 2f64.ln()).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cross_entropy<I: crate::dtype::Integer>(&self, targets: &Array<I>) -> Result<Array<T>> {
        let [n, c] = *self.shape() else {
            return Err(Error::Shape(format!(
                "cross_entropy takes logits of shape [N, C], not {:?}",
                self.shape()
            )));
        };
        if targets.shape() != [n] {
            return Err(Error::Shape(format!(
                "cross_entropy: targets of shape {:?} for logits of shape {:?} (expected [{n}])",
                targets.shape(),
                self.shape()
            )));
        }
        if n == 0 {
            return Err(Error::Shape(
                "cross_entropy of 0 rows (the mean is undefined)".into(),
            ));
        }
        if targets.device() != self.device() {
            return Err(Error::DeviceMismatch(format!(
                "cross_entropy: targets on {:?}, logits on {:?}",
                targets.device(),
                self.device()
            )));
        }
        let hot = targets.one_hot::<bool>(c)?;
        let lse = self.logsumexp(-1, false)?;
        // Realised here: a library call below a reduction's element-wise producer (lse - picked
        // under the mean) is not realised first by the scheduler yet.
        lse.eval()?;
        let zero = crate::with_device(self.device(), || Array::<T>::zeros(&[n, c]));
        let picked = Array::select(&hot, self, &zero)?
            .sum_axes(&[-1], false)?
            .cast::<T>();
        Ok(lse.try_sub(&picked)?.mean()?.cast::<T>())
    }
}
