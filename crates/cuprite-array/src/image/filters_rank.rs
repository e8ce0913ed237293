//! The rank filter (SciPy's `rank_filter` and the median, minimum, maximum and percentile
//! filters built on it) as one library call: a kernel (`filters_rank.cu`, and
//! `filters_rank2d.cu` for full boxes over the last two axes) and its CPU twin on rayon, all
//! giving the value of one rank among the footprint's values in the order `<` with NaN above
//! every number, with the boundary mapping of `boundary.rs`/`boundary.cu`.

use super::boundary::Boundary;
use super::filters_elem::{Acc, ImageElement};
use super::filters_launch::{by_dtype, filter_kernel, filter_key, host, launch_grid_stride, part};
use crate::codegen::{KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use rayon::prelude::*;

/// Threads a block.
const THREADS: usize = 128;
/// Footprints of at most this many elements are selected in registers.
const REG: usize = 64;
/// Threads a block of the box kernel (`R2_TX * R2_TY` in `filters_rank2d.cu`).
const THREADS_2D: usize = 256;
/// Rows and columns of outputs a block of the box kernel computes per tile (`R2_TY * 2` and
/// `R2_TX * 2`).
const TILE_2D: [usize; 2] = [16, 64];

kernel_params! {
    /// The rank filter of `batch` blocks of `n0 x n1 x n2` values.
    pub(super) struct RankArgs<'a> {
        x: ReadBuf<'a> as "T",
        off: ReadBuf<'a> as "i64t",
        y: WriteBuf<'a> as "T",
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        lo0: i64,
        lo1: i64,
        lo2: i64,
        hi0: i64,
        hi1: i64,
        hi2: i64,
        mode: i64,
        cval: f64,
    }
}

kernel_params! {
    /// The rank filter of a full box over the last two axes of `planes` images of `n1 x n2`.
    pub(super) struct Rank2dArgs<'a> {
        x: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        planes: i64,
        n1: i64,
        n2: i64,
        mode: i64,
        cval: f64,
    }
}

/// A footprint that is a full box over the last two axes: its first offsets and extents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Box2d {
    lo: [i64; 2],
    ext: [usize; 2],
}

/// The order of the rank selection: `<`, with NaN above every number and NaNs equal.
fn rank_order<A: Acc>(a: &A, c: &A) -> std::cmp::Ordering {
    a.partial_cmp(c)
        .unwrap_or_else(|| a.f64().is_nan().cmp(&c.f64().is_nan()))
}

/// Input 0 (`batch` blocks of `n` values, `dtype`) filtered by the value of rank `rank` among
/// the values at the offsets of input 1 (`i64`, three per footprint element, less the
/// centre). `cval` is the constant already in the image's type.
#[derive(Debug)]
pub(crate) struct ImgRank {
    pub dtype: DType,
    pub batch: usize,
    pub n: [usize; 3],
    pub offs: Vec<[i64; 3]>,
    pub rank: usize,
    pub boundary: Boundary,
    pub cval: f64,
}

impl ImgRank {
    fn len(&self) -> usize {
        self.batch * numel(&self.n)
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = inputs.len() == 2
            && inputs[0].dtype == self.dtype
            && inputs[1].dtype == DType::I64
            && numel(inputs[0].shape) == self.len()
            && numel(inputs[1].shape) == 3 * self.offs.len()
            && self.rank < self.offs.len();
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the rank filter made for {} blocks of {:?} of {} (rank {} of {}) was given {:?}",
                self.batch,
                self.n,
                self.dtype,
                self.rank,
                self.offs.len(),
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The box of the footprint when it is a full box of 2 to `REG` elements over the last two
    /// axes (every offset along the first axis zero, each offset once).
    fn box2d(&self) -> Option<Box2d> {
        let k = self.offs.len();
        if !(2..=REG).contains(&k) || self.offs.iter().any(|o| o[0] != 0) {
            return None;
        }
        let (lo, hi) = self.bounds();
        let ext = [(hi[1] - lo[1] + 1) as usize, (hi[2] - lo[2] + 1) as usize];
        if ext[0] * ext[1] != k {
            return None;
        }
        let mut seen = vec![false; k];
        for o in &self.offs {
            let at = (o[1] - lo[1]) as usize * ext[1] + (o[2] - lo[2]) as usize;
            if std::mem::replace(&mut seen[at], true) {
                return None;
            }
        }
        Some(Box2d {
            lo: [lo[1], lo[2]],
            ext,
        })
    }

    fn kernel2d(&self, b: Box2d) -> KernelSource {
        let (k, r) = (self.offs.len(), self.rank);
        let up = usize::from(k - r < r + 1);
        let [h, w] = b.ext;
        filter_kernel::<Rank2dArgs>(
            format!("cuprite_img_rank2d_{}_{h}x{w}_{r}", self.dtype.name()),
            self.dtype,
            &format!(
                "constexpr int R2_H = {h};\nconstexpr int R2_W = {w};\n\
                 constexpr int R2_LO1 = {};\nconstexpr int R2_LO2 = {};\n\
                 constexpr int R2_R = {r};\nconstexpr int R2_UP = {up};\n{}",
                b.lo[0],
                b.lo[1],
                Boundary::c_source()
            ),
            include_str!("filters_rank2d.cu"),
            "img_rank2d",
            THREADS_2D,
        )
    }

    fn key2d(&self, b: Box2d) -> u64 {
        filter_key(0x1a6e_4a4d, "img_rank2d", self.dtype, (b, self.rank))
    }

    pub(crate) fn kernel(&self) -> KernelSource {
        let (k, r) = (self.offs.len(), self.rank);
        filter_kernel::<RankArgs>(
            format!("cuprite_img_rank_{}_{k}_{r}", self.dtype.name()),
            self.dtype,
            &format!(
                "constexpr int RANK_K = {k};\nconstexpr int RANK_R = {r};\n\
                 constexpr int RANK_REG = {REG};\n{}",
                Boundary::c_source()
            ),
            include_str!("filters_rank.cu"),
            "img_rank",
            THREADS,
        )
    }

    fn key(&self) -> u64 {
        filter_key(
            0x1a6e_4a4c,
            "img_rank",
            self.dtype,
            (self.offs.len(), self.rank),
        )
    }

    /// The smallest and largest offset along each axis.
    fn bounds(&self) -> ([i64; 3], [i64; 3]) {
        let mut lo = [0i64; 3];
        let mut hi = [0i64; 3];
        for a in 0..3 {
            lo[a] = self.offs.iter().map(|o| o[a]).min().unwrap_or(0);
            hi[a] = self.offs.iter().map(|o| o[a]).max().unwrap_or(0);
        }
        (lo, hi)
    }

    fn cpu<T: ImageElement, A: Acc>(&self, x: &[T], y: &mut [T]) {
        let [n0, n1, n2] = self.n;
        let b = self.boundary;
        let cv = A::of(self.cval);
        let k = self.offs.len();
        y.par_chunks_mut(n2.max(1))
            .enumerate()
            .for_each(|(line, out)| {
                let k1 = line % n1;
                let (k0, bi) = ((line / n1) % n0, line / n1 / n0);
                let xb = &x[bi * n0 * n1 * n2..][..n0 * n1 * n2];
                let mut v: Vec<A> = Vec::with_capacity(k);
                for (k2, o) in out.iter_mut().enumerate() {
                    v.clear();
                    for d in &self.offs {
                        let at = |kk: usize, dd: i64, n: usize| b.map(kk as i64 + dd, n as i64);
                        v.push(
                            match (at(k0, d[0], n0), at(k1, d[1], n1), at(k2, d[2], n2)) {
                                (Some(i0), Some(i1), Some(i2)) => A::of(
                                    xb[((i0 as usize) * n1 + i1 as usize) * n2 + i2 as usize]
                                        .to_f64(),
                                ),
                                _ => cv,
                            },
                        );
                    }
                    let (_, r, _) = v.select_nth_unstable_by(self.rank, rank_order::<A>);
                    *o = T::store(r.f64());
                }
            });
    }

    fn run_host<T: ImageElement, A: Acc>(
        &self,
        inputs: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        let n = self.len();
        let x: &[T] = host(&inputs[0], n);
        let o: &mut [T] = bytemuck::cast_slice_mut(out.bytes_mut());
        self.cpu::<T, A>(x, &mut o[..n]);
        Ok(())
    }
}

impl LibraryCall for ImgRank {
    fn name(&self) -> &str {
        "rank_filter"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        fn go<T: ImageElement, A: Acc>(
            s: &ImgRank,
            i: &[CallInput<'_, HostBuf>],
            o: &mut HostBuf,
        ) -> Result<()> {
            s.run_host::<T, A>(i, o)
        }
        by_dtype!(self.dtype, go(self, inputs, out))
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let n = self.len();
        if n == 0 {
            return Ok(());
        }
        let i = |v: usize| v as i64;
        if let Some(b) = self.box2d() {
            let k = crate::jit::library_kernel(lane.st, self.key2d(b), || self.kernel2d(b))?;
            let planes = self.batch * self.n[0];
            let tiles = planes * self.n[1].div_ceil(TILE_2D[0]) * self.n[2].div_ceil(TILE_2D[1]);
            let params = Rank2dArgs {
                x: part(&inputs[0], self.dtype, n)?,
                y: WriteBuf::part(out, self.dtype, 0, n)?,
                planes: i(planes),
                n1: i(self.n[1]),
                n2: i(self.n[2]),
                mode: i64::from(self.boundary.code()),
                cval: self.cval,
            };
            // SAFETY: `x` and `y` are checked views of `planes n1 n2` elements; the kernel
            // reads `x` only at `img_map`ped indices in `[0, n)` along each axis of a plane
            // below `planes`, and writes `y` only at outputs inside the images.
            return unsafe {
                launch_grid_stride(
                    lane,
                    &k,
                    &params,
                    tiles.saturating_mul(THREADS_2D),
                    THREADS_2D,
                )
            };
        }
        let k = crate::jit::library_kernel(lane.st, self.key(), || self.kernel())?;
        let (lo, hi) = self.bounds();
        let params = RankArgs {
            x: part(&inputs[0], self.dtype, n)?,
            off: part(&inputs[1], DType::I64, 3 * self.offs.len())?,
            y: WriteBuf::part(out, self.dtype, 0, n)?,
            batch: i(self.batch),
            n0: i(self.n[0]),
            n1: i(self.n[1]),
            n2: i(self.n[2]),
            lo0: lo[0],
            lo1: lo[1],
            lo2: lo[2],
            hi0: hi[0],
            hi1: hi[1],
            hi2: hi[2],
            mode: i64::from(self.boundary.code()),
            cval: self.cval,
        };
        // SAFETY: `x` and `y` are checked views of `batch n0 n1 n2` elements and `off` of three
        // per footprint element (`ReadBuf`/`WriteBuf::part` check them inside their
        // allocations); the kernel reads `x` directly only where every offset stays inside
        // `[lo, hi]` of an output inside the block, else at `img_map`ped indices in `[0, n)`
        // along each axis, and writes `y` only below the total.
        unsafe { launch_grid_stride(lane, &k, &params, n, THREADS) }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        match self.box2d() {
            Some(b) => vec![self.kernel2d(b).source],
            None => vec![self.kernel().source],
        }
    }
}
