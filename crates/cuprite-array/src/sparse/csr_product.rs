//! The products of a CSR matrix with a dense vector (SpMV) or a row-major dense matrix (SpMM)
//! as one library call ([`CsrProduct`]): CUDA kernels (`csr_product.cu`) and their CPU twin.
//! SpMV of rows of mean length from `PAIR_FROM` up to `PAIR_BELOW` takes two lanes a row; other
//! short rows (mean length below `STREAM_BELOW`) run in the CSR-stream form (a block stages its
//! rows' products in shared memory, read with coalesced loads, and a thread a row adds them);
//! longer rows take a sub-warp of lanes a row sized from the mean row length, and SpMM a
//! sub-warp sized from the number of columns. SpMV of a square matrix of short rows can also
//! give `xᵀ·A·x` in the same launch ([`CsrProduct::dot`]: per-thread sums, a halving in each
//! block, the last block to finish adding the blocks' partials). The CPU twin does the same
//! operations in the same order (so both backends give the same bits). The result is an
//! ordinary lazy array.

use crate::codegen::{
    KernelParams, KernelSource, MaybeRead, ReadBuf, SharedBuf, WriteBuf, kernel_params,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

/// Threads a block (a multiple of the warp size); the CSR-stream SpMV's rows a block.
const THREADS: usize = 256;

/// SpMV of a matrix whose mean row length (`nnz / rows`, rounded down) is below this runs in
/// the CSR-stream form; at and above it a sub-warp of 16 or 32 lanes takes a row, which reads
/// a row's entries coalesced on its own. Below it those lanes would idle or the rows be split
/// over sub-warps of 8 or fewer lanes, whose reads of the entries are only partly coalesced.
const STREAM_BELOW: usize = 16;

/// SpMV of a matrix whose mean row length is at least `PAIR_FROM` and below `PAIR_BELOW` takes
/// two lanes a row (the sub-warp form): with rows this short, a warp's sixteen rows still read
/// their entries as one contiguous run, with no block barrier between the loads and the sums.
const PAIR_FROM: usize = 2;
const PAIR_BELOW: usize = 8;

/// The most blocks of the two-lane SpMV with its dot, so that each block's threads take
/// several rows before the block sums them once: a fixed number (not the device's resident
/// count), so that the order of the dot, which follows the grid, is the same on every device
/// and in the CPU twin. `CUPRITE_ARRAY_SPMV_DOT_GRID` sets another (for timing), read once.
const PAIR_DOT_GRID: u64 = 1024;

/// [`PAIR_DOT_GRID`], or the positive count `CUPRITE_ARRAY_SPMV_DOT_GRID` gives.
fn pair_dot_grid() -> u64 {
    static GRID: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *GRID.get_or_init(|| {
        std::env::var("CUPRITE_ARRAY_SPMV_DOT_GRID")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|&g| (1..=i32::MAX as u64).contains(&g))
            .unwrap_or(PAIR_DOT_GRID)
    })
}

/// Whether CUDA devices run these products as cuprite's kernels (else through cuSPARSE).
static ON_CUDA: AtomicBool = AtomicBool::new(true);

/// Sends the real SpMV and SpMM products of CSR matrices (and of transposed CSC ones) on CUDA
/// devices through cuSPARSE (`false`) instead of cuprite's kernels, or back to the kernels
/// (`true`, the default), for the whole process. The CPU backend always runs the kernels' twin.
/// For comparing the two paths (`cuprite bench sparse/spmv_laplacian` times both) and testing
/// both.
///
/// ```
/// use cuprite_array::tuning;
/// tuning::set_sparse_kernels(false); // cuSPARSE from here on
/// tuning::set_sparse_kernels(true);
/// ```
pub fn set_sparse_kernels(on: bool) {
    ON_CUDA.store(on, Ordering::Relaxed);
}

/// Whether CUDA devices run the products as cuprite's kernels ([`set_sparse_kernels`]).
pub(crate) fn kernels_on_cuda() -> bool {
    ON_CUDA.load(Ordering::Relaxed)
}

kernel_params! {
    /// `y = alpha · A · x (+ beta · y0)` for the `rows × k` CSR `A` of `nnz` entries.
    pub(super) struct SpmvArgs<'a> {
        off: ReadBuf<'a> as "I",
        idx: ReadBuf<'a> as "I",
        val: ReadBuf<'a> as "T",
        x: ReadBuf<'a> as "T",
        y0: MaybeRead<'a> as "T",
        y: WriteBuf<'a> as "T",
        rows: i64,
        k: i64,
        nnz: i64,
        alpha: f64,
        beta: f64,
    }
}

kernel_params! {
    /// `y[..rows] = A · x` and `y[rows] = Σ y[r] · x[r]` for the square `rows × rows` CSR `A`
    /// of `nnz` entries (`k == rows`): `part` holds a partial a block, `count` one counter
    /// that is zero at the launch.
    pub(super) struct SpmvDotArgs<'a> {
        off: ReadBuf<'a> as "I",
        idx: ReadBuf<'a> as "I",
        val: ReadBuf<'a> as "T",
        x: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        part: SharedBuf<'a> as "T",
        count: SharedBuf<'a> as "unsigned",
        rows: i64,
        k: i64,
        nnz: i64,
    }
}

kernel_params! {
    /// `C = alpha · A · B (+ beta · C0)` for row-major `B` (`k × n`) and `C` (`rows × n`).
    pub(super) struct SpmmArgs<'a> {
        off: ReadBuf<'a> as "I",
        idx: ReadBuf<'a> as "I",
        val: ReadBuf<'a> as "T",
        bm: ReadBuf<'a> as "T",
        c0: MaybeRead<'a> as "T",
        c: WriteBuf<'a> as "T",
        rows: i64,
        k: i64,
        nnz: i64,
        n: i64,
        alpha: f64,
        beta: f64,
    }
}

/// `alpha · A · X (+ beta · Y0)` for a `rows × k` CSR matrix `A` with `nnz` entries: input 0
/// its `rows + 1` offsets and input 1 its column indices (both of `index`, `i32` or `i64`),
/// input 2 its values (`dtype`, `f32` or `f64`), input 3 the dense `X` (`k` elements, or
/// `k × n` row-major for SpMM), input 4 (when `accumulate`) `Y0`, shaped like the output
/// (`rows`, or `rows × n`). With `dot`, the output has one more element, `xᵀ·A·x`.
#[derive(Debug)]
pub(crate) struct CsrProduct {
    pub dtype: DType,
    pub index: DType,
    pub rows: usize,
    pub k: usize,
    pub nnz: usize,
    /// `None`: SpMV; `Some(n)`: SpMM with `n` columns.
    pub n: Option<usize>,
    pub alpha: f64,
    pub beta: f64,
    pub accumulate: bool,
    /// SpMV only, of a square matrix with short rows ([`CsrProduct::dot_fits`]), `alpha` 1,
    /// `beta` 0 and no `Y0`: element `rows` of the output is `Σ y[r] · x[r]`, in the order of
    /// `csr_product.cu`.
    pub dot: bool,
}

/// The power of two nearest below `v` (at least 1), at most 32.
fn pow2_below(v: usize) -> usize {
    let v = v.clamp(1, 32);
    1 << (usize::BITS - 1 - v.leading_zeros())
}

impl CsrProduct {
    /// The CSR-stream SpMV's tile entries a thread (`Some`), when SpMV runs in that form: the
    /// power of two at or above the mean row length + 2, from 4 to 16, so that a block's
    /// `THREADS` rows of a matrix with rows of about the mean length fit one tile (a block whose
    /// rows hold more walks its range in several tiles, in the same order). `None`: the
    /// sub-warp form (SpMM, SpMV of rows of mean length `STREAM_BELOW` or more, or of mean
    /// length from `PAIR_FROM` up to `PAIR_BELOW`).
    fn stream_slots(&self) -> Option<usize> {
        let mean = self.nnz / self.rows.max(1);
        (self.n.is_none() && mean < STREAM_BELOW && !Self::paired(mean))
            .then(|| (mean + 2).next_power_of_two().clamp(4, 16))
    }

    /// Whether SpMV of rows of mean length `mean` takes two lanes a row.
    fn paired(mean: usize) -> bool {
        (PAIR_FROM..PAIR_BELOW).contains(&mean)
    }

    /// Lanes a row, which fix the order of a row's additions: the CSR-stream SpMV adds a row
    /// on one thread (1: the order of one lane); SpMV of rows of mean length from `PAIR_FROM`
    /// up to `PAIR_BELOW` takes 2; otherwise SpMV takes the power of two at or below the mean
    /// row length (a row's entries spread over the lanes, each lane about one), SpMM the power
    /// of two at or above the number of columns (each lane one column), both at most a warp.
    pub(crate) fn lanes(&self) -> usize {
        let mean = self.nnz / self.rows.max(1);
        match self.n {
            None if self.stream_slots().is_some() => 1,
            None if Self::paired(mean) => 2,
            None => pow2_below(mean),
            Some(n) => n.clamp(1, 32).next_power_of_two(),
        }
    }

    fn out_len(&self) -> usize {
        self.rows * self.n.unwrap_or(1) + usize::from(self.dot)
    }

    /// Whether SpMV of a `rows × k` matrix of `nnz` entries can give its dot in the same
    /// launch: a square matrix whose SpMV runs in the CSR-stream or the two-lane form.
    pub(crate) fn dot_fits(rows: usize, k: usize, nnz: usize) -> bool {
        rows == k && rows > 0 && nnz / rows < STREAM_BELOW
    }

    /// The blocks of the CSR-stream SpMV of `rows` rows (a block each [`THREADS`] rows; the
    /// kernel strides over any rows beyond the grid).
    pub(super) fn stream_grid(rows: usize) -> u32 {
        (rows as u64)
            .div_ceil(THREADS as u64)
            .clamp(1, i32::MAX as u64) as u32
    }

    /// The blocks of this SpMV's launch with its dot: [`CsrProduct::stream_grid`] in the
    /// CSR-stream form; in the two-lane form, a block for each `THREADS / 2` rows, at most
    /// [`pair_dot_grid`] (the kernel strides over the rest). The order of the dot follows it.
    fn dot_grid(&self) -> u32 {
        if self.stream_slots().is_some() {
            Self::stream_grid(self.rows)
        } else {
            (self.rows as u64 * self.lanes() as u64)
                .div_ceil(THREADS as u64)
                .clamp(1, pair_dot_grid()) as u32
        }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let len = |i: usize| crate::shape::numel(inputs[i].shape);
        let ok = matches!(self.dtype, DType::F32 | DType::F64)
            && matches!(self.index, DType::I32 | DType::I64)
            && inputs.len() == 4 + self.accumulate as usize
            && inputs[0].dtype == self.index
            && inputs[1].dtype == self.index
            && inputs[2..].iter().all(|x| x.dtype == self.dtype)
            && len(0) == self.rows + 1
            && len(1) == self.nnz
            && len(2) == self.nnz
            && len(3) == self.k * self.n.unwrap_or(1)
            && (!self.accumulate || len(4) == self.out_len())
            && (!self.dot
                || (self.n.is_none()
                    && Self::dot_fits(self.rows, self.k, self.nnz)
                    && !self.accumulate
                    && self.alpha == 1.0
                    && self.beta == 0.0));
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the sparse product made for a {} × {} CSR matrix of {} {:?} entries ({:?} \
                 indices), {:?} columns, was given {:?}",
                self.rows,
                self.k,
                self.nnz,
                self.dtype,
                self.index,
                self.n,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    fn kernel(&self) -> KernelSource {
        let kind = if self.n.is_some() { "spmm" } else { "spmv" };
        let sub = self.lanes();
        let slots = self.stream_slots();
        let dot = if self.dot { "_dot" } else { "" };
        let name = match slots {
            Some(q) => format!(
                "cuprite_sparse_spmv_stream_{}_{}_t{q}{dot}",
                self.dtype.name(),
                self.index.name()
            ),
            None => format!(
                "cuprite_sparse_{kind}_{}_{}_s{sub}{dot}",
                self.dtype.name(),
                self.index.name()
            ),
        };
        let t = if self.dtype == DType::F64 {
            "double"
        } else {
            "float"
        };
        let i = if self.index == DType::I64 {
            "long long"
        } else {
            "int"
        };
        let mut header = format!(
            "typedef long long i64t;\ntypedef {t} T;\ntypedef {i} I;\n#define CP_SUB {sub}\n"
        );
        let body = match slots {
            Some(q) => {
                header += &format!("#define CP_BLOCK {THREADS}\n#define CP_SLOTS {q}\n");
                if self.dot {
                    header += "#define CP_DOT\n";
                    "csr_spmv_stream_dot".to_string()
                } else {
                    "csr_spmv_stream".to_string()
                }
            }
            None if self.dot => {
                header += &format!("#define CP_BLOCK {THREADS}\n#define CP_DOT\n");
                "csr_spmv_dot".to_string()
            }
            None => format!("csr_{kind}"),
        };
        let threads = THREADS.to_string();
        let entry = if self.n.is_some() {
            crate::codegen::entry::<SpmmArgs>(&name, &threads, &body)
        } else if self.dot {
            crate::codegen::entry::<SpmvDotArgs>(&name, &threads, &body)
        } else {
            crate::codegen::entry::<SpmvArgs>(&name, &threads, &body)
        };
        let text = format!(
            "{header}{}{}{entry}",
            include_str!("csr_product.cu"),
            crate::codegen::MARKER
        );
        KernelSource::new(name, text)
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x5a45_c500);
        "sparse-csr-product".hash(&mut h);
        self.n.is_some().hash(&mut h);
        self.lanes().hash(&mut h);
        self.stream_slots().hash(&mut h);
        self.dot.hash(&mut h);
        self.dtype.code().hash(&mut h);
        self.index.code().hash(&mut h);
        h.finish()
    }

    /// The CPU twin over host slices (offsets and indices as `i64`).
    fn cpu<R: Real>(
        &self,
        off: &[i64],
        idx: &[i64],
        val: &[R],
        x: &[R],
        y0: Option<&[R]>,
        out: &mut [R],
    ) {
        let (nnz, k) = (self.nnz as i64, self.k as i64);
        let (alpha, beta) = (R::of(self.alpha), R::of(self.beta));
        let bounds = |r: usize| {
            let s = off[r].clamp(0, nnz);
            (s as usize, off[r + 1].clamp(s, nnz) as usize)
        };
        let column = |p: usize| usize::try_from(idx[p]).ok().filter(|&j| (j as i64) < k);
        let finish = |acc: R, at: usize| {
            let t = alpha * acc;
            match y0 {
                Some(y0) => t + beta * y0[at],
                None => t,
            }
        };
        match self.n {
            None => {
                // One lane (the CSR-stream form, or a sub-warp of one): the row's products
                // added from zero in ascending p, no butterfly.
                let sub = self.lanes();
                let (ys, dot) = out.split_at_mut(self.rows);
                ys.par_iter_mut().enumerate().for_each(|(r, o)| {
                    let (s, e) = bounds(r);
                    let mut lanes = [R::of(0.0); 32];
                    for (l, acc) in lanes.iter_mut().enumerate().take(sub) {
                        for p in (s + l..e).step_by(sub) {
                            if let Some(j) = column(p) {
                                *acc = *acc + val[p] * x[j];
                            }
                        }
                    }
                    // The butterfly of the kernel's shuffles; lane 0's value is kept.
                    let mut o2 = sub / 2;
                    while o2 > 0 {
                        let prev = lanes;
                        for l in 0..sub {
                            lanes[l] = prev[l] + prev[l ^ o2];
                        }
                        o2 /= 2;
                    }
                    *o = finish(lanes[0], r);
                });
                if let Some(d) = dot.first_mut() {
                    let grid = self.dot_grid() as usize;
                    *d = if self.stream_slots().is_some() {
                        dot_twin(ys, x, grid)
                    } else {
                        subwarp_dot_twin(ys, x, grid, sub)
                    };
                }
            }
            Some(n) => {
                if n == 0 {
                    return;
                }
                out.par_chunks_mut(n).enumerate().for_each(|(r, row)| {
                    let (s, e) = bounds(r);
                    for (col, o) in row.iter_mut().enumerate() {
                        let mut acc = R::of(0.0);
                        for p in s..e {
                            if let Some(j) = column(p) {
                                acc = acc + val[p] * x[j * n + col];
                            }
                        }
                        *o = finish(acc, r * n + col);
                    }
                });
            }
        }
    }

    fn run_cpu_typed<R: Real>(
        &self,
        inputs: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        let indices = |x: &CallInput<'_, HostBuf>, len: usize| -> Vec<i64> {
            let b = x.buf.bytes();
            if self.index == DType::I64 {
                let v: &[i64] = bytemuck::cast_slice(b);
                v[x.layout.offset..][..len].to_vec()
            } else {
                let v: &[i32] = bytemuck::cast_slice(b);
                v[x.layout.offset..][..len]
                    .iter()
                    .map(|&i| i as i64)
                    .collect()
            }
        };
        let vals = |x: &CallInput<'_, HostBuf>, len: usize| -> Vec<R> {
            let v: &[R] = bytemuck::cast_slice(x.buf.bytes());
            v[x.layout.offset..][..len].to_vec()
        };
        let off = indices(&inputs[0], self.rows + 1);
        let idx = indices(&inputs[1], self.nnz);
        let val = vals(&inputs[2], self.nnz);
        let x = vals(&inputs[3], self.k * self.n.unwrap_or(1));
        let y0 = self.accumulate.then(|| vals(&inputs[4], self.out_len()));
        let o: &mut [R] = bytemuck::cast_slice_mut(out.bytes_mut());
        self.cpu(
            &off,
            &idx,
            &val,
            &x,
            y0.as_deref(),
            &mut o[..self.out_len()],
        );
        Ok(())
    }
}

/// `Σ y[r] · x[r]` in the order of the CSR-stream kernel with its dot (`csr_spmv_stream_dot`)
/// launched with `grid` blocks of [`THREADS`]: thread `t` of block `b` adds its rows `b ·
/// THREADS + t`, `+ grid · THREADS`, ... from zero in that order; then [`blocks_twin`].
/// `x` holds at least `y.len()` elements (a square matrix).
pub(super) fn dot_twin<R: Real>(y: &[R], x: &[R], grid: usize) -> R {
    let rows = y.len();
    let stride = grid * THREADS;
    blocks_twin(grid, |b, t| {
        let mut acc = R::of(0.0);
        for r in (b * THREADS + t..rows).step_by(stride) {
            acc = acc + y[r] * x[r];
        }
        acc
    })
}

/// `Σ y[r] · x[r]` in the order of the sub-warp kernel with its dot (`csr_spmv_dot`) of `sub`
/// lanes a row launched with `grid` blocks of [`THREADS`]: lane 0 of each sub-warp adds the
/// products of the rows it writes from zero in the order it writes them (sub-warp `s` of warp
/// `w` the rows `w · 32 / sub + s`, `+ grid · THREADS / sub`, ...), every other thread holds
/// zero; then [`blocks_twin`].
fn subwarp_dot_twin<R: Real>(y: &[R], x: &[R], grid: usize, sub: usize) -> R {
    let rows = y.len();
    let per_warp = 32 / sub;
    let stride = grid * THREADS / sub;
    blocks_twin(grid, |b, t| {
        let mut acc = R::of(0.0);
        if t % sub == 0 {
            let first = (b * THREADS + t) / 32 * per_warp + (t % 32) / sub;
            for r in (first..rows).step_by(stride) {
                acc = acc + y[r] * x[r];
            }
        }
        acc
    })
}

/// The end of a dot in the kernels' order, from each thread's sum `sum(b, t)` (block `b` of
/// `grid`, thread `t` of [`THREADS`]): each block's sums halved (`s[i] + s[i + h]` for `h` from
/// `THREADS / 2` down to 1) into its partial; the partials added from zero by thread `t` (`t`,
/// `t + THREADS`, ...) and halved the same way.
fn blocks_twin<R: Real>(grid: usize, sum: impl Fn(usize, usize) -> R + Sync) -> R {
    let halve = |v: &mut [R; THREADS]| {
        let mut h = THREADS / 2;
        while h > 0 {
            for i in 0..h {
                v[i] = v[i] + v[i + h];
            }
            h /= 2;
        }
        v[0]
    };
    let parts: Vec<R> = (0..grid)
        .into_par_iter()
        .map(|b| {
            let mut sums = [R::of(0.0); THREADS];
            for (t, acc) in sums.iter_mut().enumerate() {
                *acc = sum(b, t);
            }
            halve(&mut sums)
        })
        .collect();
    let mut sums = [R::of(0.0); THREADS];
    for (t, acc) in sums.iter_mut().enumerate() {
        for p in parts.iter().skip(t).step_by(THREADS) {
            *acc = *acc + *p;
        }
    }
    halve(&mut sums)
}

/// The element types of the CPU twin.
pub(super) trait Real:
    Copy + Send + Sync + bytemuck::Pod + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    fn of(v: f64) -> Self;
}
impl Real for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
}
impl Real for f64 {
    fn of(v: f64) -> f64 {
        v
    }
}

impl LibraryCall for CsrProduct {
    fn name(&self) -> &str {
        if self.n.is_some() { "spmm" } else { "spmv" }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        if self.out_len() == 0 {
            return Ok(());
        }
        if self.dtype == DType::F64 {
            self.run_cpu_typed::<f64>(inputs, out)
        } else {
            self.run_cpu_typed::<f32>(inputs, out)
        }
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        if self.out_len() == 0 {
            return Ok(());
        }
        let kern = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let part = |i: usize, d: DType, len: usize| {
            ReadBuf::part(inputs[i].buf, d, inputs[i].layout.offset, len)
        };
        let (t, ix) = (self.dtype, self.index);
        let (off, idx, val) = (
            part(0, ix, self.rows + 1)?,
            part(1, ix, self.nnz)?,
            part(2, t, self.nnz)?,
        );
        let y0 = if self.accumulate {
            Some(part(4, t, self.out_len())?)
        } else {
            None
        };
        let y = WriteBuf::part(out, t, 0, self.out_len())?;
        let i = |v: usize| v as i64;
        let dot_grid = self.dot_grid();
        // The dot's scratch: a partial a block, and a counter that is zero at the launch and
        // left zero by it.
        let scratch = if self.dot {
            // SAFETY: each block writes its partial before it counts itself, and the last block
            // reads the partials only once every block has counted.
            let part = unsafe { DevBuf::alloc(st, stream, t, dot_grid as usize) }?;
            let count = crate::backend::cuda::zeroed_counters(st, stream, 1)?;
            Some((part, count))
        } else {
            None
        };
        let a = match (self.n, &scratch) {
            (None, Some(sc)) => SpmvDotArgs {
                off,
                idx,
                val,
                x: part(3, t, self.k)?,
                y,
                part: SharedBuf::part(&sc.0, t, 0, dot_grid as usize)?,
                count: SharedBuf::part(sc.1.buf(), DType::U32, 0, 1)?,
                rows: i(self.rows),
                k: i(self.k),
                nnz: i(self.nnz),
            }
            .args(),
            (None, None) => SpmvArgs {
                off,
                idx,
                val,
                x: part(3, t, self.k)?,
                y0,
                y,
                rows: i(self.rows),
                k: i(self.k),
                nnz: i(self.nnz),
                alpha: self.alpha,
                beta: self.beta,
            }
            .args(),
            (Some(n), _) => SpmmArgs {
                off,
                idx,
                val,
                bm: part(3, t, self.k * n)?,
                c0: y0,
                c: y,
                rows: i(self.rows),
                k: i(self.k),
                nnz: i(self.nnz),
                n: i(n),
                alpha: self.alpha,
                beta: self.beta,
            }
            .args(),
        };
        let grid = if self.stream_slots().is_some() || self.dot {
            dot_grid
        } else {
            let threads = self.rows as u64 * self.lanes() as u64;
            let resident = (st.sms * kern.blocks_per_sm).max(1) as u64 * 8;
            threads
                .div_ceil(THREADS as u64)
                .clamp(1, resident.min(i32::MAX as u64)) as u32
        };
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`) of the lengths `check` verified (`rows + 1` offsets, `nnz` indices and
        // values, `k` or `k · n` elements of the dense operand, the output's `rows` or
        // `rows · n`, and as many of the initial value when given, else a null word the kernel
        // tests). The kernels clamp each offset into `[0, nnz]`, read the dense operand only at
        // a column inside `[0, k)`, and write output rows below `rows` (columns below `n`);
        // their blocks hold `THREADS` threads, a multiple of the warp size, as the shuffles of
        // SpMV need, and the `CP_BLOCK` the CSR-stream SpMV and the forms with a dot are built
        // for (the shared tile is indexed by thread below `CP_BLOCK · CP_SLOTS`, the dot's
        // shared sums below `CP_BLOCK`). With the dot, the output holds `rows + 1` elements
        // (the last the dot, written by the last block only), the scratch a partial for each
        // of the `dot_grid` blocks launched and a counter that is zero at the launch (the last
        // block sets it back to zero), and `x` (`k == rows` elements,
        // checked) is read at every row below `k`.
        unsafe {
            stream.launch_packed(
                &kern.func,
                (grid, 1, 1),
                (THREADS as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        if matches!(self.dtype, DType::F32 | DType::F64)
            && matches!(self.index, DType::I32 | DType::I64)
        {
            vec![self.kernel().source]
        } else {
            Vec::new()
        }
    }

    /// Every input is read packed from its offset on both backends: a contiguous view inside
    /// its storage (a solver's direction, a slice of a longer output) is read in place.
    fn accepts_view(
        &self,
        _index: usize,
        shape: &[usize],
        layout: &crate::shape::Layout,
        len: usize,
    ) -> bool {
        layout.packed_within(shape, len)
    }
}
