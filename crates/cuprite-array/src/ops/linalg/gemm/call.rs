//! [`Gemm`] as a library call: input checks, the dispatch per backend and dtype, and the
//! epilogues the node can absorb.

use super::cpu::widen;
use super::cuda::{Extra, handle};
use super::desc::{Act, Aux, Gemm, describe};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, Epilogue, LibraryCall, Node};
use crate::ops::linalg::span::{Span, SpanNew as _};
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, HostBuf};
use cuprite_driver::DeviceBuffer;
use std::sync::Arc;

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
        let bias = match inputs.get(2) {
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
        Ok(())
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
        if self.small_fits() {
            if self.has_epilogue() {
                crate::stats::note_fused_epilogue();
            }
            let bias = if self.bias {
                Some((inputs[2].buf, inputs[2].layout.offset))
            } else {
                None
            };
            return self.run_small(lane, &ops, (inputs[0].buf, inputs[1].buf), bias, out);
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
