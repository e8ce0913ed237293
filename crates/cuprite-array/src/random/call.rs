//! The library call of the looping samplers (`random::dists`): one thread (CPU: one rayon
//! task) per element, element `i` drawing from its own counter-based stream, so the CPU and the
//! CUDA kernel of `random::kernels` give the same values.

use super::dists::{ElementWords, Kind, sample};
use crate::array::Array;
use crate::device::current_device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use cuprite_driver::Access;
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
        let gone = || Error::InvalidArgument("sampler on a buffer that was handed back".into());
        let dst = out.live().ok_or_else(gone)?;
        let mut access = Vec::with_capacity(2);
        let mut xs_ptr = 0u64;
        if let Some(x) = inputs.first() {
            let src = x.buf.live().ok_or_else(gone)?;
            xs_ptr = x.buf.ptr() + (x.layout.offset * 8) as u64;
            access.push(Access::read(src));
        }
        access.push(Access::write(dst));
        let (kind, a, b) = self.kind.words();
        let words = [
            out.ptr(),
            self.n as u64,
            self.key,
            kind,
            a.to_bits(),
            b.to_bits(),
            self.x.to_bits(),
            xs_ptr,
        ];
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let grid = self
            .n
            .div_ceil(crate::codegen::BLOCK as usize)
            .clamp(1, resident * 4) as u32;
        // SAFETY: the output is a new buffer of `n` f64 values, the only memory the kernel
        // writes (indices below `n`); the input, when present (else null, never read), holds
        // `n` contiguous f64 from `xs_ptr` (checked above). Both are declared.
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
        vec![super::kernels::sampler_kernel().source]
    }
}
