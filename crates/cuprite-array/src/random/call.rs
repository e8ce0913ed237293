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

/// `n` draws of `kind` under the Philox key `seed ^ w`, with the per-element parameter `x` or,
/// when `has_xs`, the values of the first input (`n` f64, contiguous); `w` is the `u64` of the
/// last input (a compiled program's call key word) when `keyed`, else 0.
#[derive(Debug)]
struct Sampler {
    kind: Kind,
    n: usize,
    seed: u64,
    x: f64,
    has_xs: bool,
    keyed: bool,
}

/// Draws of `kind` of `shape` on the current device: element `i` from the stream of `(key, i)`
/// with per-element parameter `xs[i]` (an array of `shape`) or `x`, the key keyed per call
/// inside a compiled program ([`crate::random::keyed_seed`]).
pub(crate) fn sampler_node(
    kind: Kind,
    shape: &[usize],
    key: u64,
    x: f64,
    xs: Option<&Array<f64>>,
) -> Result<Array<f64>> {
    let n = crate::shape::checked_numel(shape)?;
    let dev = current_device();
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
    let (seed, word) = crate::random::keyed_seed(key, dev);
    let keyed = word.is_some();
    inputs.extend(word);
    let call = Arc::new(Sampler {
        kind,
        n,
        seed,
        x,
        has_xs: xs.is_some(),
        keyed,
    });
    let node = Node::new(Op::Library(call, inputs), DType::F64, shape.to_vec(), dev);
    Ok(Array::from_node(node))
}

impl Sampler {
    /// Checks the inputs (the parameters when `has_xs`, then the key word when `keyed`) and the
    /// output's length and dtype.
    fn check<B>(&self, inputs: &[CallInput<'_, B>], len: usize, dtype: DType) -> Result<()> {
        let want = usize::from(self.has_xs) + usize::from(self.keyed);
        let bad_xs = self.has_xs
            && inputs.first().is_some_and(|x| {
                x.dtype != DType::F64
                    || x.shape.iter().product::<usize>() != self.n
                    || !x.layout.is_contiguous(x.shape)
            });
        let bad_word = self.keyed
            && inputs
                .last()
                .is_some_and(|w| w.dtype != DType::U64 || w.shape.iter().product::<usize>() != 1);
        if inputs.len() != want || bad_xs || bad_word || len != self.n || dtype != DType::F64 {
            return Err(Error::InvalidArgument(format!(
                "sampler made for {} values ({} parameters, {} key word) was given {} inputs \
                 and {len} of {dtype}",
                self.n,
                if self.has_xs { "per-element" } else { "scalar" },
                if self.keyed { "one" } else { "no" },
                inputs.len(),
            )));
        }
        Ok(())
    }

    /// The key word's input, when keyed.
    fn word<'c, 'a, B>(&self, inputs: &'c [CallInput<'a, B>]) -> Option<&'c CallInput<'a, B>> {
        if self.keyed { inputs.last() } else { None }
    }
}

impl LibraryCall for Sampler {
    fn name(&self) -> &str {
        "sampler"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs, out.len(), out.dtype())?;
        let xs: Option<&[f64]> = match inputs.first() {
            Some(x) if self.has_xs => {
                let v: &[f64] = bytemuck::cast_slice(x.buf.bytes());
                let at = x.layout.offset;
                let end = at.checked_add(self.n);
                Some(end.and_then(|e| v.get(at..e)).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "sampler parameters from {at}, {} of them, lie past their {} values",
                        self.n,
                        v.len()
                    ))
                })?)
            }
            _ => None,
        };
        let key = match self.word(inputs) {
            Some(w) => self.seed ^ super::host_key_word(w, "the sampler")?,
            None => self.seed,
        };
        let os: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
        os.par_iter_mut().enumerate().for_each(|(i, o)| {
            let x = xs.map_or(self.x, |v| v[i]);
            *o = sample(self.kind, x, &mut ElementWords::new(key, i as u64));
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
            Some(x) if self.has_xs => {
                Some(ReadBuf::part(x.buf, DType::F64, x.layout.offset, self.n)?)
            }
            _ => None,
        };
        let word = match self.word(inputs) {
            Some(w) => Some(ReadBuf::part(w.buf, DType::U64, w.layout.offset, 1)?),
            None => None,
        };
        let (kind, a, b) = self.kind.words();
        let args = SamplerArgs {
            out: WriteBuf::part(out, DType::F64, 0, self.n)?,
            n: self.n as i64,
            key: self.seed,
            kind: kind as i64,
            a,
            b,
            x0: self.x,
            xs,
            word,
        }
        .args();
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let grid = self
            .n
            .div_ceil(crate::codegen::BLOCK as usize)
            .clamp(1, resident * 4) as u32;
        // SAFETY: the words are `SamplerArgs` in the entry point's order. The kernel writes
        // `out[i]` and reads `xs[i]` (when given; null is never read) for `i < n` only, and
        // `word[0]` (when given): the output is `n` f64, the parameters `n` contiguous f64 from
        // their offset and the key one u64, each view checked inside its buffer and declared
        // with the launch.
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
