//! [`Gemm`] as a library call: input checks, the dispatch per backend and dtype, and the
//! epilogues the node can absorb.

use super::cpu::widen;
use super::cuda::handle;
use super::desc::{Act, Gemm, describe};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, Epilogue, LibraryCall, Node};
use crate::ops::linalg::span::Span;
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
        let want = self.count() * self.m * self.n;
        if out.len() != want {
            return Err(Error::InvalidArgument(format!(
                "matmul output holds {} elements, {want} expected",
                out.len()
            )));
        }
        if self.has_epilogue() {
            crate::stats::note_fused_epilogue();
        }
        let (a, b) = (inputs[0].buf.bytes(), inputs[1].buf.bytes());
        let bias = inputs.get(2).map(|x| x.buf.bytes());
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
        let want = self.count() * self.m * self.n;
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
        let o = live(out)?;
        if self.k == 0 {
            // An empty inner dimension: the product is zero (cuBLASLt refuses k = 0).
            let mut z = Span::<u8>::new(o, 0, out.len() * self.dtype.size())?;
            stream.memset_zeros(&mut z)?;
            return Ok(());
        }
        let (a, b) = (live(inputs[0].buf)?, live(inputs[1].buf)?);
        let bias = match inputs.get(2) {
            Some(x) => Some((live(x.buf)?, x.layout.offset)),
            None => None,
        };
        if self.has_epilogue() {
            crate::stats::note_fused_epilogue();
        }
        let lt = handle(st, stream)?;
        macro_rules! typed {
            ($t:ty, $alpha:expr) => {
                self.cuda_typed::<$t>(&lt, &ops, a, b, bias, o, $alpha)
            };
        }
        let al = self.alpha;
        match self.dtype {
            DType::F32 => typed!(f32, al as f32),
            DType::F64 => typed!(f64, al),
            DType::F16 => typed!(half::f16, al as f32),
            DType::BF16 => typed!(half::bf16, al as f32),
            DType::C32 => typed!(
                num_complex::Complex<f32>,
                num_complex::Complex::new(al as f32, 0.0)
            ),
            DType::C64 => typed!(
                num_complex::Complex<f64>,
                num_complex::Complex::new(al, 0.0)
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
        if self.dtype.is_complex() || self.k == 0 {
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
        match e {
            Epilogue::Scale(c) => {
                if self.bias || self.act != Act::None {
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
                // dtype and device, not a constant.
                if self.bias
                    || self.act != Act::None
                    || bias.dtype != self.dtype
                    || bias.device != inputs[0].device
                    || bias.is_const().is_some()
                    || bias.shape.last().copied() != Some(self.n)
                    || numel(&bias.shape) != self.n
                {
                    return None;
                }
                next.bias = true;
                ins.push(bias.clone());
            }
            Epilogue::Relu | Epilogue::GeluTanh => {
                if self.act != Act::None {
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
            return false;
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
