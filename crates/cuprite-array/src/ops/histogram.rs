//! The histogram library call behind `histogram` and `bincount`: counts (`i64`) or weighted
//! sums (`f64`) of values falling in bins. CPU: per-chunk private bins on rayon, then added;
//! CUDA: the shared-memory privatised kernel of `codegen::histogram_kernel`. Both backends put
//! every value in the same bin (the arithmetic is spelled out once, in [`bin_of`] and its CUDA
//! twin); unweighted counts are exact, weighted sums are `f64` sums in some order.

use crate::codegen::{
    HIST_SHARED_BYTES, HistMode, HistogramParams, KernelParams, ReadBuf, WriteBuf,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use half::{bf16, f16};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// A histogram of `n` values of `dtype` into `bins` bins (see [`HistMode`]); input 0 is the
/// values, input 1 (when `weighted`) `n` `f64` weights. Output: `bins` `i64` counts, or `f64`
/// sums when weighted.
#[derive(Debug)]
pub(crate) struct Histogram {
    pub dtype: DType,
    pub mode: HistMode,
    pub weighted: bool,
    pub n: usize,
    pub bins: usize,
    pub lo: f64,
    pub hi: f64,
}

impl Histogram {
    /// The width of one bin, as the edges are computed (`lo + k * step`).
    pub(crate) fn step(&self) -> f64 {
        (self.hi - self.lo) / self.bins as f64
    }

    /// Edge `k` of `0..=bins`: NumPy's `linspace(lo, hi, bins + 1)`.
    pub(crate) fn edge(&self, k: usize) -> f64 {
        if k >= self.bins {
            self.hi
        } else {
            k as f64 * self.step() + self.lo
        }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let want = 1 + self.weighted as usize;
        let ok = inputs.len() == want
            && inputs[0].dtype == self.dtype
            && numel(inputs[0].shape) == self.n
            && inputs[1..]
                .iter()
                .all(|w| w.dtype == DType::F64 && numel(w.shape) == self.n);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "histogram made for {} values of {} was given {:?}",
                self.n,
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    fn key(&self, private: bool) -> u64 {
        let mut h = KeyHasher(0x4157_0000);
        "histogram".hash(&mut h);
        self.dtype.code().hash(&mut h);
        self.mode.hash(&mut h);
        self.weighted.hash(&mut h);
        private.hash(&mut h);
        h.finish()
    }

    /// Whether the bins fit a block's shared memory.
    fn private(&self) -> bool {
        let acc = if self.weighted { 8 } else { 4 };
        self.bins.saturating_mul(acc) <= HIST_SHARED_BYTES
    }
}

/// The bin of `v` (see the module docs), or `None` outside `[lo, hi]` or NaN.
#[inline]
pub(crate) fn bin_of(h: &Histogram, step: f64, v: f64) -> Option<usize> {
    if !(v >= h.lo && v <= h.hi) {
        return None;
    }
    let bins = h.bins as i64;
    let edge = |k: i64| {
        if k >= bins {
            h.hi
        } else {
            k as f64 * step + h.lo
        }
    };
    let mut k = ((v - h.lo) / (h.hi - h.lo) * h.bins as f64) as i64;
    k = k.clamp(0, bins - 1);
    if v < edge(k) {
        k -= 1;
    } else if k != bins - 1 && v >= edge(k + 1) {
        k += 1;
    }
    usize::try_from(k).ok()
}

/// Values of the input as `f64` (the binning arithmetic) or `i64` (integer bins).
trait HistValue: Copy + Send + Sync + bytemuck::Pod {
    fn f(self) -> f64;
    fn i(self) -> i64 {
        0
    }
}
impl HistValue for f64 {
    fn f(self) -> f64 {
        self
    }
}
impl HistValue for f32 {
    fn f(self) -> f64 {
        self as f64
    }
}
impl HistValue for f16 {
    fn f(self) -> f64 {
        self.to_f64()
    }
}
impl HistValue for bf16 {
    fn f(self) -> f64 {
        self.to_f64()
    }
}
impl HistValue for i64 {
    fn f(self) -> f64 {
        self as f64
    }
    fn i(self) -> i64 {
        self
    }
}

impl Histogram {
    fn cpu<V: HistValue>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let xs: &[V] = bytemuck::cast_slice(inputs[0].buf.bytes());
        let xs = &xs[inputs[0].layout.offset..inputs[0].layout.offset + self.n];
        let ws: Option<&[f64]> = inputs.get(1).map(|w| {
            let v: &[f64] = bytemuck::cast_slice(w.buf.bytes());
            &v[w.layout.offset..w.layout.offset + self.n]
        });
        let step = self.step();
        let bins = self.bins;
        let bin = |v: V| match self.mode {
            HistMode::Range => bin_of(self, step, v.f()),
            HistMode::Int => usize::try_from(v.i()).ok().filter(|&k| k < bins),
        };
        const CHUNK: usize = 1 << 16;
        let sums = xs
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, x)| {
                let mut acc = vec![0f64; if ws.is_some() { bins } else { 0 }];
                let mut cnt = vec![0u64; if ws.is_some() { 0 } else { bins }];
                for (j, &v) in x.iter().enumerate() {
                    if let Some(k) = bin(v) {
                        match ws {
                            Some(w) => acc[k] += w[c * CHUNK + j],
                            None => cnt[k] += 1,
                        }
                    }
                }
                (acc, cnt)
            })
            .reduce(
                || (Vec::new(), Vec::new()),
                |(mut a, mut c), (b, d)| {
                    if a.is_empty() {
                        a = b;
                    } else {
                        a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    }
                    if c.is_empty() {
                        c = d;
                    } else {
                        c.iter_mut().zip(&d).for_each(|(x, y)| *x += y);
                    }
                    (a, c)
                },
            );
        if self.weighted {
            let os: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
            for (o, v) in os.iter_mut().zip(&sums.0) {
                *o = *v;
            }
        } else {
            let os: &mut [i64] = bytemuck::cast_slice_mut(out.bytes_mut());
            for (o, v) in os.iter_mut().zip(&sums.1) {
                *o = *v as i64;
            }
        }
    }
}

impl LibraryCall for Histogram {
    fn name(&self) -> &str {
        match self.mode {
            HistMode::Range => "histogram",
            HistMode::Int => "bincount",
        }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        out.bytes_mut().fill(0);
        match self.dtype {
            DType::F64 => self.cpu::<f64>(inputs, out),
            DType::F32 => self.cpu::<f32>(inputs, out),
            DType::F16 => self.cpu::<f16>(inputs, out),
            DType::BF16 => self.cpu::<bf16>(inputs, out),
            DType::I64 => self.cpu::<i64>(inputs, out),
            d => {
                return Err(Error::InvalidArgument(format!(
                    "histogram of {d} (floats and i64 only)"
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
        self.check(inputs)?;
        if self.bins == 0 {
            return Ok(());
        }
        {
            let Some(o) = out.buffer_mut() else {
                return Err(Error::InvalidArgument(
                    "histogram on a buffer that was handed back".into(),
                ));
            };
            stream.memset_zeros(o)?;
        }
        if self.n == 0 {
            return Ok(());
        }
        let private = self.private();
        let k = crate::jit::library_kernel(st, self.key(private), || {
            crate::codegen::histogram_kernel(self.dtype, self.mode, self.weighted, private)
        })?;
        let (x, w) = (&inputs[0], inputs.get(1));
        let params = HistogramParams {
            x: ReadBuf::part(x.buf, x.dtype, x.layout.offset, self.n)?,
            w: match w {
                Some(w) => Some(ReadBuf::part(w.buf, DType::F64, w.layout.offset, self.n)?),
                None => None,
            },
            out: WriteBuf::all(out)?,
            n: self.n as i64,
            bins: self.bins as i64,
            lo: self.lo,
            hi: self.hi,
            step: self.step(),
        };
        let args = params.args();
        let acc = if self.weighted { 8 } else { 4 };
        let shared = if private { (self.bins * acc) as u32 } else { 0 };
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let per_block = crate::codegen::BLOCK as usize * 16;
        let grid = self.n.div_ceil(per_block).clamp(1, resident * 2) as u32;
        // SAFETY: `x` holds `n` contiguous values of `dtype`, `w` (read only when weighted,
        // else null) `n` f64 weights, the output `bins` accumulators zeroed above (ranges
        // checked inside their buffers); the kernel reads and writes only those (bins checked
        // `< bins`), all declared by their parameters' types.
        // The dynamic shared memory holds `bins` accumulators when `private`.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (crate::codegen::BLOCK, 1, 1),
                shared,
                &args.words,
                &args.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![
            crate::codegen::histogram_kernel(self.dtype, self.mode, self.weighted, true).source,
            crate::codegen::histogram_kernel(self.dtype, self.mode, self.weighted, false).source,
        ]
    }
}
