//! The FFT library call: one node of the graph per transform, whatever its axes. It owns what
//! the call computes (kind, precision, input and output shapes, axes) and its checks; the
//! CPU (`super::cpu`) and CUDA (`super::cuda`) implementations decide how.

use super::desc::{FftCall, Kind};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};

impl LibraryCall for FftCall {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Forward => "fft",
            Kind::Inverse => "ifft",
            Kind::R2C => "rfft",
            Kind::C2R => "irfft",
        }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        let [x] = inputs else {
            return Err(Error::InvalidArgument("an FFT takes one input".into()));
        };
        self.check(x)?;
        if numel(&self.shape_out) == 0 {
            return Ok(());
        }
        super::cpu::run(self, x, out)
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let [x] = inputs else {
            return Err(Error::InvalidArgument("an FFT takes one input".into()));
        };
        self.check(x)?;
        if numel(&self.shape_out) == 0 {
            return Ok(());
        }
        super::cuda::run(self, st, stream, x, out)
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        // cuFFT: no generated kernels.
        Vec::new()
    }
}
