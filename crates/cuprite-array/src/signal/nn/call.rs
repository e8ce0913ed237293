//! The convolution's three passes as one library call ([`ConvCall`]): what each pass takes and
//! gives, the checks of its realised inputs, and the dispatch to the CPU loops (`cpu.rs`) and
//! to the CUDA side ([`ConvCall::run_cuda`], the one place every CUDA convolution goes through).

use super::cpu::{self, Acc};
use super::cuda;
use super::dnn::{self, ConvPass};
use super::geom::ConvGeom;
use super::kernels::NnKernel;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};

/// Which pass of the convolution a call computes, and the inputs it takes (all channels
/// first, contiguous).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pass {
    /// `y = act(conv(x, w) + bias)` from `x`, `w` (and `bias`, `[k]`, when `bias` is set).
    Forward { bias: bool, relu: bool },
    /// The input's gradient from the output's gradient `dy` and the weights `w`.
    Input,
    /// The weights' gradient from the input `x` and the output's gradient `dy`.
    Weight,
}

/// One pass of the convolution of geometry `geom` on elements of `dtype` (`f16`, `bf16`,
/// `f32`, `f64`).
#[derive(Debug)]
pub(crate) struct ConvCall {
    pub dtype: DType,
    pub geom: ConvGeom,
    pub pass: Pass,
}

impl ConvCall {
    /// The element counts of the inputs, in order.
    fn in_lens(&self) -> Vec<usize> {
        let g = &self.geom;
        let (x, w, y) = (
            numel(&g.x_shape()),
            numel(&g.w_shape()),
            numel(&g.y_shape()),
        );
        match self.pass {
            Pass::Forward { bias: true, .. } => vec![x, w, g.k],
            Pass::Forward { bias: false, .. } => vec![x, w],
            Pass::Input => vec![y, w],
            Pass::Weight => vec![x, y],
        }
    }

    /// The shape of the result.
    pub(crate) fn out_shape(&self) -> Vec<usize> {
        match self.pass {
            Pass::Forward { .. } => self.geom.y_shape(),
            Pass::Input => self.geom.x_shape(),
            Pass::Weight => self.geom.w_shape(),
        }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let lens = self.in_lens();
        let ok = matches!(
            self.dtype,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64
        ) && inputs.len() == lens.len()
            && inputs
                .iter()
                .zip(&lens)
                .all(|(i, &n)| i.dtype == self.dtype && numel(i.shape) == n);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the convolution pass {:?} made for {:?} of {} was given {:?}",
                self.pass,
                self.geom,
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The kernels the CUDA side launches for this pass: the lowering's, then (but for the
    /// weight gradient) the three of Winograd's 3x3 form.
    pub(super) fn kernels(&self) -> Vec<NnKernel> {
        let lowered: &[NnKernel] = match self.pass {
            Pass::Forward { bias, relu } if bias || relu => {
                &[NnKernel::Im2col, NnKernel::BiasAct, NnKernel::TileSwap]
            }
            Pass::Forward { .. } => &[NnKernel::Im2col, NnKernel::TileSwap],
            Pass::Input => &[
                NnKernel::Im2col,
                NnKernel::Swap,
                NnKernel::Col2im,
                NnKernel::TileSwap,
            ],
            Pass::Weight => {
                return vec![NnKernel::Im2col, NnKernel::Swap, NnKernel::TapSum];
            }
        };
        let winograd = [
            NnKernel::WinoFilter,
            NnKernel::WinoInput,
            NnKernel::WinoOutput,
        ];
        lowered.iter().chain(&winograd).copied().collect()
    }

    fn cpu<A: Acc + Into<f64>>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let lens = self.in_lens();
        let v: Vec<Vec<A>> = inputs
            .iter()
            .zip(&lens)
            .map(|(i, &n)| cpu::widen::<A>(self.dtype, i.buf, i.layout.offset, n))
            .collect();
        let g = &self.geom;
        let r = match self.pass {
            Pass::Forward { relu, .. } => {
                cpu::forward(g, &v[0], &v[1], v.get(2).map(|b| &b[..]), relu)
            }
            Pass::Input => cpu::backward_input(g, &v[0], &v[1]),
            Pass::Weight => cpu::backward_weight(g, &v[0], &v[1]),
        };
        cpu::narrow(self.dtype, &r, out);
    }
}

impl LibraryCall for ConvCall {
    fn name(&self) -> &str {
        match self.pass {
            Pass::Forward { .. } => "conv",
            Pass::Input => "conv_backward_input",
            Pass::Weight => "conv_backward_weight",
        }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        if self.dtype == DType::F64 {
            self.cpu::<f64>(inputs, out);
        } else {
            self.cpu::<f32>(inputs, out);
        }
        Ok(())
    }

    /// The CUDA side of every pass: cuDNN first ([`dnn::conv`]: opened at run time, switched
    /// by `tuning::set_cudnn`, declining what it cannot state or does not support), then the
    /// bias and activation by `nn_bias_act`; else the lowering (`cuda.rs`: patches by
    /// `nn_im2col`, products by cuBLASLt; the input's gradient at stride 1 as the forward pass
    /// of the transposed problem, else gathered by `nn_col2im`), which is correct
    /// for every geometry `ConvGeom` accepts. Both take the inputs channels first and
    /// contiguous.
    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let (d, g) = (self.dtype, &self.geom);
        let which = match self.pass {
            Pass::Forward { .. } => ConvPass::Forward,
            Pass::Input => ConvPass::Input,
            Pass::Weight => ConvPass::Weight,
        };
        if dnn::conv(lane, d, g, which, inputs, out)? {
            return match self.pass {
                Pass::Forward { bias, relu } if bias || relu => {
                    cuda::epilogue(lane, d, g, inputs, out, bias, relu)
                }
                _ => Ok(()),
            };
        }
        match self.pass {
            Pass::Forward { bias, relu } => cuda::forward(lane, d, g, inputs, out, bias, relu),
            Pass::Input => cuda::input_grad(lane, d, g, inputs, out),
            Pass::Weight => cuda::weight_grad(lane, d, g, inputs, out),
        }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        self.kernels()
            .into_iter()
            .filter_map(|k| k.source(self.dtype).ok())
            .map(|s| s.source)
            .collect()
    }
}
