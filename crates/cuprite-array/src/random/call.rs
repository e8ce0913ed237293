//! The library call of the looping samplers (`random::dists`): one thread (CPU: one rayon
//! task) per element, element `i` drawing from its own counter-based stream, so the CPU and the
//! CUDA kernel of `random::kernels` give the same values.

use super::dists::{ElementWords, Kind, sample};
use super::kernels::SamplerArgs;
use crate::array::Array;
use crate::codegen::{KernelParams, ReadBuf, WriteBuf};
use crate::device::current_device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// `n` draws of `kind` under Philox key `key`, the per-element parameter `x` or, with an
/// input, that input's values (`n` f64, contiguous).
#[derive(Debug)]
struct Sampler {
    kind: Kind,
    n: usize,
    key: u64,
    x: f64,
}

/// Draws of `kind` of `shape` on the current device: element `i` from the stream of `(key, i)`
/// with per-element parameter `xs[i]` (an array of `shape`) or `x`.
pub(crate) fn sampler_node(
    kind: Kind,
    shape: &[usize],
    key: u64,
    x: f64,
    xs: Option<&Array<f64>>,
) -> Result<Array<f64>> {
    let n = crate::shape::checked_numel(shape)?;
    let mut inputs = Vec::new();
    if let Some(xs) = xs {
        if xs.shape() != shape {
            return Err(Error::Shape(format!(
                "sampler: parameters of shape {:?} for draws of shape {shape:?}",
                xs.shape()
            )));
        }
        inputs.push(xs.contiguous()?.node);
    }
    let call = Arc::new(Sampler { kind, n, key, x });
    let node = Node::new(
        Op::Library(call, inputs),
        DType::F64,
        shape.to_vec(),
        current_device(),
    );
    Ok(Array::from_node(node))
}

impl Sampler {
    fn check<B>(&self, inputs: &[CallInput<'_, B>], len: usize, dtype: DType) -> Result<()> {
        let bad_input = inputs.iter().any(|x| {
            x.dtype != DType::F64
                || x.shape.iter().product::<usize>() != self.n
                || !x.layout.is_contiguous(x.shape)
        });
        if inputs.len() > 1 || bad_input || len != self.n || dtype != DType::F64 {
            return Err(Error::InvalidArgument(format!(
                "sampler made for {} values was given {} inputs and {len} of {dtype}",
                self.n,
                inputs.len(),
            )));
        }
        Ok(())
    }
}

impl LibraryCall for Sampler {
    fn name(&self) -> &str {
        "sampler"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs, out.len(), out.dtype())?;
        let xs: Option<&[f64]> = inputs.first().map(|x| {
            let v: &[f64] = bytemuck::cast_slice(x.buf.bytes());
            &v[x.layout.offset..x.layout.offset + self.n]
        });
        let os: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
        os.par_iter_mut().enumerate().for_each(|(i, o)| {
            let x = xs.map_or(self.x, |v| v[i]);
            *o = sample(self.kind, x, &mut ElementWords::new(self.key, i as u64));
        });
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs, out.len(), out.dtype())?;
        if self.n == 0 {
            return Ok(());
        }
        let mut h = KeyHasher(0x5a3b_0000);
        super::kernels::SAMPLER_NAME.hash(&mut h);
        let k = crate::jit::library_kernel(st, h.finish(), super::kernels::sampler_kernel)?;
        let xs = match inputs.first() {
            Some(x) => Some(ReadBuf::part(x.buf, DType::F64, x.layout.offset, self.n)?),
            None => None,
        };
        let (kind, a, b) = self.kind.words();
        let args = SamplerArgs {
            out: WriteBuf::part(out, DType::F64, 0, self.n)?,
            n: self.n as i64,
            key: self.key,
            kind: kind as i64,
            a,
            b,
            x0: self.x,
            xs,
        }
        .args();
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let grid = self
            .n
            .div_ceil(crate::codegen::BLOCK as usize)
            .clamp(1, resident * 4) as u32;
        // SAFETY: the words are `SamplerArgs` in the entry point's order. The kernel writes
        // `out[i]` and reads `xs[i]` (when given; null is never read) for `i < n` only: the
        // output is `n` f64 and the input `n` contiguous f64 from its offset, both views
        // checked inside their buffers and declared with the launch.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (crate::codegen::BLOCK, 1, 1),
                0,
                &args.words,
                &args.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![super::kernels::sampler_kernel().source]
    }
}
