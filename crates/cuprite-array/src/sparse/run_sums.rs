//! The sums of the runs of equal keys after a stable sort ([`RunSums`]): the values at one
//! position of a list of triplets, read through the sort's permutation and added in their
//! stable order, as one library call: a CUDA kernel (`run_sums.cu`) and its CPU twin, which add
//! the same terms in the same order (so both backends give the same bits).

use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Threads a block, and the number of lanes a long run is split over (`RS_LANES` in the
/// kernel): a run of more entries is summed lane by lane.
const LANES: usize = 256;

kernel_params! {
    /// The sums of `m` runs over `n` sorted entries of `comps` components.
    pub(super) struct RunSumArgs<'a> {
        vals: ReadBuf<'a> as "T",
        perm: ReadBuf<'a> as "i64t",
        starts: ReadBuf<'a> as "i64t",
        out: WriteBuf<'a> as "T",
        n: i64,
        m: i64,
        comps: i64,
    }
}

/// Input 0: `n` values of `dtype` (`f32`, `f64`, `c32` or `c64`); input 1: `n` `i64`
/// positions of input 0 in sorted order (a permutation of `0..n`); input 2: the `m` sorted
/// positions where a run of equal keys starts (rising from 0, below `n`). Output: `m` values,
/// the sum of each run (see `run_sums.cu` for the order of the additions).
#[derive(Debug)]
pub(crate) struct RunSums {
    pub dtype: DType,
    pub n: usize,
    pub m: usize,
}

/// The real type of the components of `d`, and how many a value holds.
fn components(d: DType) -> Option<(DType, usize)> {
    match d {
        DType::F32 => Some((DType::F32, 1)),
        DType::F64 => Some((DType::F64, 1)),
        DType::C32 => Some((DType::F32, 2)),
        DType::C64 => Some((DType::F64, 2)),
        _ => None,
    }
}

impl RunSums {
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<(DType, usize)> {
        let comp = components(self.dtype);
        let ok = comp.is_some()
            && inputs.len() == 3
            && inputs[0].dtype == self.dtype
            && inputs[1].dtype == DType::I64
            && inputs[2].dtype == DType::I64
            && crate::shape::numel(inputs[0].shape) == self.n
            && crate::shape::numel(inputs[1].shape) == self.n
            && crate::shape::numel(inputs[2].shape) == self.m;
        match comp {
            Some(c) if ok => Ok(c),
            _ => Err(Error::InvalidArgument(format!(
                "the run sums made for {} {:?} values in {} runs were given {:?}",
                self.n,
                self.dtype,
                self.m,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            ))),
        }
    }

    fn kernel(real: DType) -> KernelSource {
        let name = format!("cuprite_sparse_run_sums_{}", real.name());
        let cty = if real == DType::F64 {
            "double"
        } else {
            "float"
        };
        let header = format!("typedef long long i64t;\ntypedef {cty} T;\n");
        let entry = crate::codegen::entry::<RunSumArgs>(&name, &LANES.to_string(), "run_sums");
        let text = format!(
            "{header}{}{}{entry}",
            include_str!("run_sums.cu"),
            crate::codegen::MARKER
        );
        KernelSource::new(name, text)
    }

    fn key(real: DType) -> u64 {
        let mut h = KeyHasher(0x5a45_5e00);
        "sparse-run-sums".hash(&mut h);
        real.code().hash(&mut h);
        h.finish()
    }
}

/// The sum of run `[s, e)` of component `c` (the twin of `run_sums` in `run_sums.cu`).
fn run_sum<R: Copy + Default + std::ops::Add<Output = R>>(
    vals: &[R],
    perm: &[i64],
    comps: usize,
    (s, e): (usize, usize),
    c: usize,
) -> R {
    let n = perm.len();
    let val = |j: usize| match usize::try_from(perm[j]) {
        Ok(p) if p < n => vals[p * comps + c],
        _ => R::default(),
    };
    if e <= s {
        return R::default();
    }
    if e - s <= LANES {
        return (s + 1..e).fold(val(s), |acc, j| acc + val(j));
    }
    let lane = |l: usize| {
        (s + l + LANES..e)
            .step_by(LANES)
            .fold(val(s + l), |acc, j| acc + val(j))
    };
    (1..LANES).fold(lane(0), |acc, l| acc + lane(l))
}

/// The CPU twin: every run of `starts` over `n = perm.len()` entries, in parallel.
fn cpu<R: Copy + Default + Send + Sync + std::ops::Add<Output = R>>(
    vals: &[R],
    perm: &[i64],
    starts: &[i64],
    comps: usize,
    out: &mut [R],
) {
    let (n, m) = (perm.len(), starts.len());
    let clamp = |v: i64| usize::try_from(v).map_or(0, |v| v.min(n));
    out.par_chunks_mut(comps).enumerate().for_each(|(k, o)| {
        let s = clamp(starts[k]);
        let e = if k + 1 < m { clamp(starts[k + 1]) } else { n }.max(s);
        for (c, slot) in o.iter_mut().enumerate() {
            *slot = run_sum(vals, perm, comps, (s, e), c);
        }
    });
}

impl LibraryCall for RunSums {
    fn name(&self) -> &str {
        "sparse_run_sums"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        let (real, comps) = self.check(inputs)?;
        if self.m == 0 {
            return Ok(());
        }
        let offset = |x: &CallInput<'_, HostBuf>, per: usize| x.layout.offset * per;
        let perm: &[i64] = bytemuck::cast_slice(inputs[1].buf.bytes());
        let perm = &perm[inputs[1].layout.offset..][..self.n];
        let starts: &[i64] = bytemuck::cast_slice(inputs[2].buf.bytes());
        let starts = &starts[inputs[2].layout.offset..][..self.m];
        let len = self.n * comps;
        if real == DType::F64 {
            let v: &[f64] = bytemuck::cast_slice(inputs[0].buf.bytes());
            let v = &v[offset(&inputs[0], comps)..][..len];
            let o: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
            cpu(v, perm, starts, comps, &mut o[..self.m * comps]);
        } else {
            let v: &[f32] = bytemuck::cast_slice(inputs[0].buf.bytes());
            let v = &v[offset(&inputs[0], comps)..][..len];
            let o: &mut [f32] = bytemuck::cast_slice_mut(out.bytes_mut());
            cpu(v, perm, starts, comps, &mut o[..self.m * comps]);
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
        let (real, comps) = self.check(inputs)?;
        if self.m == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, Self::key(real), || Self::kernel(real))?;
        let a = RunSumArgs {
            vals: ReadBuf::part(
                inputs[0].buf,
                real,
                inputs[0].layout.offset * comps,
                self.n * comps,
            )?,
            perm: ReadBuf::part(inputs[1].buf, DType::I64, inputs[1].layout.offset, self.n)?,
            starts: ReadBuf::part(inputs[2].buf, DType::I64, inputs[2].layout.offset, self.m)?,
            out: WriteBuf::part(out, real, 0, self.m * comps)?,
            n: self.n as i64,
            m: self.m as i64,
            comps: comps as i64,
        }
        .args();
        let tiles = self.m.div_ceil(LANES) as u64;
        let resident = (st.sms * k.blocks_per_sm).max(1) as u64;
        let grid = tiles.clamp(1, resident.min(i32::MAX as u64)) as u32;
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`) of the lengths `check` verified: `n * comps` components of the values,
        // `n` permutation entries, `m` starts and `m * comps` outputs. The kernel clamps every
        // start into `[0, n]`, reads a value only at a permutation entry inside `[0, n)`, and
        // writes output `k * comps + c` only for `k < m` and `c < comps`; its blocks have
        // `LANES` threads, the size of its shared arrays.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (LANES as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        match components(self.dtype) {
            Some((real, _)) => vec![Self::kernel(real).source],
            None => Vec::new(),
        }
    }
}
