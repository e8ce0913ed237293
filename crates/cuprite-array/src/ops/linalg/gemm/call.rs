//! [`Gemm`] as a library call: input checks, the dispatch per backend and dtype, and the
//! epilogues the node can absorb.

use super::cpu::widen;
use super::cuda::{Extra, handle};
use super::desc::{Act, Aux, Gemm, Post, describe};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, Epilogue, LibraryCall, Node, Op};
use crate::op::{BinaryOp, UnaryOp};
use crate::ops::linalg::span::{Span, SpanNew as _};
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, HostBuf};
use cuprite_driver::DeviceBuffer;
use std::sync::Arc;

impl Gemm {
    /// The [`Post`] stage on the CPU, in place on the `f32` output: `scale · y + beta · P`.
    fn cpu_post(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        if self.post == Post::NONE {
            return Ok(());
        }
        if self.dtype != DType::F32 || self.count() != 1 {
            return Err(Error::InvalidArgument(format!(
                "matmul's stage after the activation takes one f32 product, was given {} \
                 products of {}",
                self.count(),
                self.dtype
            )));
        }
        let (scale, beta) = (self.post.scale as f32, self.post.beta as f32);
        let y: &mut [f32] = bytemuck::cast_slice_mut(out.bytes_mut());
        match self.post_index() {
            Some(i) => {
                let x = &inputs[i];
                let bytes = x.buf.bytes();
                let range = x
                    .layout
                    .offset
                    .checked_mul(4)
                    .and_then(|start| Some(start..start.checked_add(y.len().checked_mul(4)?)?));
                let p: &[f32] = range
                    .and_then(|r| bytes.get(r))
                    .map(bytemuck::cast_slice)
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "matmul's post addend buffer holds {} bytes, {} needed from offset {}",
                            bytes.len(),
                            y.len() * 4,
                            x.layout.offset
                        ))
                    })?;
                y.iter_mut()
                    .zip(p)
                    .for_each(|(v, p)| *v = scale * *v + beta * p);
            }
            None => y.iter_mut().for_each(|v| *v *= scale),
        }
        Ok(())
    }

    /// `e` after the activation, as the [`Post`] stage: a constant scale (before any post
    /// addend: a scaled product that is also used unscaled, such as the input of the next
    /// layer, would otherwise run twice), then one full `m × n` addend or subtrahend, whose
    /// constant factor (`c · x` or `x · c`) is taken into `beta`.
    fn absorb_post(&self, e: Epilogue<'_>, inputs: &[Arc<Node>]) -> Option<crate::graph::Absorbed> {
        let mut next = self.clone();
        let mut ins = inputs.to_vec();
        let factor = |c: Scalar| match c {
            Scalar::F32(x) => Some(x as f64),
            Scalar::F64(x) => Some(x),
            _ => None,
        };
        // A full matrix of the product's shape, dtype and device, not a constant.
        let full = |x: &Arc<Node>| {
            let nd = x.shape.len();
            x.dtype == self.dtype
                && x.device == inputs[0].device
                && x.is_const().is_none()
                && nd >= 2
                && (x.shape[nd - 2], x.shape[nd - 1]) == (self.m, self.n)
                && numel(&x.shape) == self.m * self.n
        };
        // `other` as `(P, c)` with `other = c · P`.
        let split = |other: &Arc<Node>| -> Option<(Arc<Node>, f64)> {
            if !full(other) {
                return None;
            }
            if let Op::Binary(BinaryOp::Mul, l, r) = other.op() {
                for (x, c) in [(&l, &r), (&r, &l)] {
                    if let Some(c) = c.is_const().and_then(factor) {
                        if full(x) && x.shape == other.shape {
                            return Some((x.clone(), c));
                        }
                    }
                }
            }
            Some((other.clone(), 1.0))
        };
        match e {
            Epilogue::Scale(c) => {
                if self.post.add {
                    return None;
                }
                next.post.scale *= factor(c)?;
            }
            Epilogue::Add(other) | Epilogue::Sub { other, .. } => {
                if self.post.add || self.addend {
                    return None;
                }
                let (x, c) = split(other)?;
                next.post.add = true;
                next.post.beta = c;
                if let Epilogue::Sub { call_first, .. } = e {
                    if call_first {
                        next.post.beta = -c;
                    } else {
                        next.post.scale = -next.post.scale;
                    }
                }
                ins.push(x);
            }
            Epilogue::Relu | Epilogue::GeluTanh => return None,
        }
        (next.small_shape() && next.count() == 1).then_some((Arc::new(next), ins))
    }
}

impl LibraryCall for Gemm {
    fn name(&self) -> &str {
        "matmul"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        let lens = [
            inputs.first().map_or(0, |i| i.buf.len()),
            inputs.get(1).map_or(0, |i| i.buf.len()),
        ];
        let ops = self.operands(inputs, lens)?;
        let want = self.out_len();
        if out.len() != want {
            return Err(Error::InvalidArgument(format!(
                "matmul output holds {} elements, {want} expected",
                out.len()
            )));
        }
        if self.has_epilogue() {
            crate::stats::note_fused_epilogue();
        }
        if self.addend || self.aux != Aux::None {
            return self.cpu_extended(&ops, inputs, out);
        }
        let (a, b) = (inputs[0].buf.bytes(), inputs[1].buf.bytes());
        // The bias's `n` values from its offset.
        let bias = match inputs.get(2).filter(|_| self.bias) {
            Some(x) => {
                let size = self.dtype.size();
                let start = x.layout.offset * size;
                let bytes = x.buf.bytes();
                Some(bytes.get(start..start + self.n * size).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "matmul bias buffer holds {} bytes, {} needed from offset {}",
                        bytes.len(),
                        self.n * size,
                        x.layout.offset
                    ))
                })?)
            }
            None => None,
        };
        macro_rules! native {
            ($t:ty) => {
                self.cpu_typed::<$t>(
                    &ops,
                    bytemuck::cast_slice(a),
                    bytemuck::cast_slice(b),
                    bias.map(bytemuck::cast_slice),
                    bytemuck::cast_slice_mut(out.bytes_mut()),
                )
            };
        }
        match self.dtype {
            DType::F32 => native!(f32),
            DType::F64 => native!(f64),
            DType::C32 => native!(num_complex::Complex<f32>),
            DType::C64 => native!(num_complex::Complex<f64>),
            DType::F16 | DType::BF16 => {
                // Products of the half types accumulate in f32 and round once (as cuBLASLt's
                // default compute type does).
                let (a, b) = (widen(self.dtype, a), widen(self.dtype, b));
                let bias = bias.map(|x| widen(self.dtype, x));
                let mut o = vec![0f32; want];
                self.cpu_typed::<f32>(&ops, &a, &b, bias.as_deref(), &mut o);
                let dst = out.bytes_mut();
                if self.dtype == DType::F16 {
                    let d: &mut [half::f16] = bytemuck::cast_slice_mut(dst);
                    d.iter_mut()
                        .zip(&o)
                        .for_each(|(d, x)| *d = half::f16::from_f32(*x));
                } else {
                    let d: &mut [half::bf16] = bytemuck::cast_slice_mut(dst);
                    d.iter_mut()
                        .zip(&o)
                        .for_each(|(d, x)| *d = half::bf16::from_f32(*x));
                }
            }
            d => {
                return Err(Error::InvalidArgument(format!(
                    "matmul of {d} is not supported"
                )));
            }
        }
        self.cpu_post(inputs, out)
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let lens = [
            inputs.first().map_or(0, |i| i.buf.len()),
            inputs.get(1).map_or(0, |i| i.buf.len()),
        ];
        let ops = self.operands(inputs, lens)?;
        let want = self.out_len();
        if out.len() != want {
            return Err(Error::InvalidArgument(format!(
                "matmul output holds {} elements, {want} expected",
                out.len()
            )));
        }
        fn live(b: &DevBuf) -> Result<&DeviceBuffer<u8>> {
            b.live().ok_or_else(|| {
                Error::InvalidArgument("matmul on a buffer that was handed back".into())
            })
        }
        if want == 0 {
            return Ok(());
        }
        if self.small_fits() || self.needs_small() {
            if self.has_epilogue() {
                crate::stats::note_fused_epilogue();
            }
            let at = |i: Option<usize>| i.map(|i| (inputs[i].buf, inputs[i].layout.offset));
            let (bias, post) = (at(self.bias.then_some(2)), at(self.post_index()));
            return self.run_small(lane, &ops, (inputs[0].buf, inputs[1].buf), bias, post, out);
        }
        let o = live(out)?;
        if self.k == 0 && (self.addend || self.aux != Aux::None) {
            // Never built (an empty contraction absorbs nothing).
            return Err(Error::InvalidArgument(
                "matmul with an addend or an auxiliary result needs k > 0".into(),
            ));
        }
        if self.k == 0 {
            // An empty inner dimension: the product is zero (cuBLASLt refuses k = 0).
            let mut z = Span::<u8>::new(o, 0, out.len() * self.dtype.size())?;
            stream.memset_zeros(&mut z)?;
            return Ok(());
        }
        let (a, b) = (live(inputs[0].buf)?, live(inputs[1].buf)?);
        let input = |i: Option<usize>| -> Result<Option<(&DeviceBuffer<u8>, usize)>> {
            match i {
                Some(i) => Ok(Some((live(inputs[i].buf)?, inputs[i].layout.offset))),
                None => Ok(None),
            }
        };
        let extra = Extra {
            bias: input(self.bias.then_some(2))?,
            addend: input(self.addend_index())?,
            pre: input(self.pre_index())?,
        };
        if self.has_epilogue() {
            crate::stats::note_fused_epilogue();
        }
        let lt = handle(st, stream)?;
        macro_rules! typed {
            ($t:ty, $alpha:expr, $beta:expr) => {
                self.cuda_typed::<$t>(&lt, &ops, a, b, &extra, o, $alpha, $beta)
            };
        }
        let (al, be) = (self.alpha, self.beta);
        match self.dtype {
            DType::F32 => typed!(f32, al as f32, be as f32),
            DType::F64 => typed!(f64, al, be),
            DType::F16 => typed!(half::f16, al as f32, be as f32),
            DType::BF16 => typed!(half::bf16, al as f32, be as f32),
            DType::C32 => typed!(
                num_complex::Complex<f32>,
                num_complex::Complex::new(al as f32, 0.0),
                num_complex::Complex::new(be as f32, 0.0)
            ),
            DType::C64 => typed!(
                num_complex::Complex<f64>,
                num_complex::Complex::new(al, 0.0),
                num_complex::Complex::new(be, 0.0)
            ),
            d => Err(Error::InvalidArgument(format!(
                "matmul of {d} is not supported"
            ))),
        }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        Vec::new()
    }

    fn absorb_unary(&self, op: UnaryOp) -> Option<Arc<dyn LibraryCall>> {
        // `tanh` right after the product (and its bias): only the small kernel runs it.
        if op != UnaryOp::Tanh
            || self.act != Act::None
            || self.addend
            || self.aux != Aux::None
            || self.post != Post::NONE
        {
            return None;
        }
        let mut next = self.clone();
        next.act = Act::Tanh;
        (next.small_shape() && super::small_gemm()).then(|| Arc::new(next) as Arc<dyn LibraryCall>)
    }

    fn absorb_epilogue(
        &self,
        e: Epilogue<'_>,
        inputs: &[Arc<Node>],
    ) -> Option<crate::graph::Absorbed> {
        // An empty contraction never runs a GEMM (its product is written as zeros), so it has
        // no epilogue to run: the element-wise work stays a kernel of its own.
        if self.dtype.is_complex() || self.k == 0 || self.aux != Aux::None {
            return None;
        }
        if self.act == Act::Tanh || (self.act == Act::Relu && self.small_fits()) {
            return self.absorb_post(e, inputs);
        }
        // cuBLASLt's f64 products take a bias or a ReLU, not GELU nor the two together.
        let f64_limited = self.dtype == DType::F64
            && crate::backend::of(inputs[0].device)
                .limits()
                .gemm_f64_epilogues_limited;
        if f64_limited && (self.bias || self.act != Act::None) && !matches!(e, Epilogue::Scale(_)) {
            return None;
        }
        if f64_limited && matches!(e, Epilogue::GeluTanh) {
            return None;
        }
        let mut next = self.clone();
        let mut ins = inputs.to_vec();
        // A full matrix of the product's shape, dtype and device (no broadcast, not a
        // constant) beside a single product without activation: C of `alpha·A·B + beta·C`.
        let addend_ok = |other: &Arc<Node>| {
            let nd = other.shape.len();
            !self.addend
                && self.act == Act::None
                && !f64_limited
                && self.count() == 1
                && other.dtype == self.dtype
                && other.device == inputs[0].device
                && other.is_const().is_none()
                && nd >= 2
                && (other.shape[nd - 2], other.shape[nd - 1]) == (self.m, self.n)
                && numel(&other.shape) == self.m * self.n
        };
        match e {
            Epilogue::Scale(c) => {
                if self.bias || self.act != Act::None || self.addend {
                    return None;
                }
                next.alpha *= match c {
                    Scalar::F32(x) => x as f64,
                    Scalar::F64(x) => x,
                    _ => return None,
                };
            }
            Epilogue::Add(bias) => {
                // A bias over the last axis (one value per output column), of the product's
                // dtype and device, not a constant; otherwise a full matrix as C.
                let is_bias = !self.bias
                    && self.act == Act::None
                    && bias.dtype == self.dtype
                    && bias.device == inputs[0].device
                    && bias.is_const().is_none()
                    && bias.shape.last().copied() == Some(self.n)
                    && numel(&bias.shape) == self.n;
                if is_bias {
                    next.bias = true;
                    // The bias comes before C among the inputs.
                    ins.insert(2, bias.clone());
                } else if addend_ok(bias) {
                    next.addend = true;
                    next.beta = 1.0;
                    ins.push(bias.clone());
                } else {
                    return None;
                }
            }
            Epilogue::Sub { other, call_first } => {
                // `x - C`: beta = -1; `C - x`: the product negated (alpha), beta = 1, which a
                // bias cannot follow (it would need negating too).
                if !addend_ok(other) || (!call_first && self.bias) {
                    return None;
                }
                next.addend = true;
                if call_first {
                    next.beta = -1.0;
                } else {
                    next.alpha = -next.alpha;
                    next.beta = 1.0;
                }
                ins.push(other.clone());
            }
            Epilogue::Relu | Epilogue::GeluTanh => {
                if self.act != Act::None || self.addend {
                    return None;
                }
                next.act = if matches!(e, Epilogue::Relu) {
                    Act::Relu
                } else {
                    Act::GeluTanh
                };
            }
        }
        Some((Arc::new(next), ins))
    }

    fn accepts_view(
        &self,
        index: usize,
        shape: &[usize],
        layout: &Layout,
        storage_len: usize,
    ) -> bool {
        if index > 1 {
            // The bias, C and the pre-activation: read packed from their offset.
            let len = numel(shape);
            return layout.is_contiguous(shape)
                && layout
                    .offset
                    .checked_add(len)
                    .is_some_and(|e| e <= storage_len);
        }
        let dims = if index == 0 {
            (self.m, self.k)
        } else {
            (self.k, self.n)
        };
        let Some(d) = describe(shape, layout, &self.batch) else {
            return false;
        };
        // cuBLASLt's batch is one stride per operand: a batch that does not collapse is copied.
        d.batch_stride.is_some()
            && d.end(dims.0, dims.1, self.count())
                .is_some_and(|e| e <= storage_len)
    }
}

#[cfg(test)]
mod tests {
    use crate::graph::Op;
    use crate::{Array, Device};
    use std::sync::Arc;

    /// The inputs of `a`'s node when it is one matrix product, `None` otherwise.
    fn product_inputs(a: &Array<f32>) -> Option<Vec<Arc<crate::graph::Node>>> {
        match a.node.op() {
            Op::Library(call, ins) if call.name() == "matmul" => Some(ins),
            _ => None,
        }
    }

    /// A layer `tanh(h·W + b)·0.5 + h·0.5` is one product with the bias, `tanh`, the scale and
    /// `h` as its post addend (the `0.5` taken into its factor), and the next layer reads the
    /// same `h` node as its A and its addend, so that nothing runs twice; other forms stay
    /// element-wise.
    #[test]
    fn layer_becomes_one_product() {
        crate::with_device(Device::CPU, || {
            let before = crate::linalg::small_gemm();
            crate::linalg::set_small_gemm(true);
            // Stored values (a constant is never an addend or a bias).
            let stored = |shape: &[usize]| {
                let n: usize = shape.iter().product();
                Array::<f32>::from_slice_on(Device::CPU, &vec![0.25; n], shape).unwrap()
            };
            let (h, w, b) = (stored(&[64, 256]), stored(&[256, 256]), stored(&[256]));
            let layer = |h: &Array<f32>| (h.matmul(&w).unwrap() + &b).tanh() * 0.5f32 + h * 0.5f32;
            let h1 = layer(&h);
            let ins = product_inputs(&h1).expect("one product");
            assert_eq!(ins.len(), 4);
            assert!(Arc::ptr_eq(&ins[3], &h.node));
            let h2 = layer(&h1);
            let ins2 = product_inputs(&h2).expect("one product");
            assert!(Arc::ptr_eq(&ins2[0], &h1.node) && Arc::ptr_eq(&ins2[3], &h1.node));
            // A scale after the post addend would make a second product of `h1`.
            assert!(product_inputs(&(&h1 * 2.0f32)).is_none());
            // A product too large for the small kernel keeps `tanh` element-wise.
            let big = stored(&[1024, 256]);
            assert!(product_inputs(&big.matmul(&w).unwrap().tanh()).is_none());
            // So does a product whose kernel is switched off.
            crate::linalg::set_small_gemm(false);
            assert!(product_inputs(&h.matmul(&w).unwrap().tanh()).is_none());
            crate::linalg::set_small_gemm(before);
        });
    }
}
