//! The IIR filter's library call: the three kernels of `iir.cu` (a blocked parallel scan of
//! the state recurrence) and the CPU twin (the recurrence run sequentially along each signal,
//! signals in parallel on rayon). Both compute in the data's precision (`f32`, `f64`) with the
//! coefficients rounded to it; the kernels' carries across chunks and segments go through the
//! state maps' matrix powers (`M^(CHUNK 2^d)`), so the two agree to the filter's rounding, not
//! bit for bit.
//!
//! Output: the `batch * n` filtered values, then (when `want_zf`) the `batch * order` final
//! states.

use crate::codegen::{KernelParams, KernelSource, MaybeWrite, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::runtime::DeviceState;
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use cuprite_driver::Stream;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Samples of a chunk (a thread's share of a segment).
pub(crate) const CHUNK: usize = 8;
/// Threads a block (chunks a segment), `2^LEVELS`.
const THREADS: usize = 256;
/// The scan's steps over a block's chunks.
const LEVELS: usize = 8;
/// Samples a segment (a block's share of a signal).
const SEG: usize = THREADS * CHUNK;
/// The highest filter order the kernels take (a block's shared memory holds a segment and
/// `THREADS * order` states, under 48 KiB in `f64`).
pub(crate) const MAX_ORDER: usize = 8;

kernel_params! {
    /// Pass 1: each segment's end state from a zero start.
    pub(super) struct Seg<'a> {
        x: ReadBuf<'a> as "T",
        coef: ReadBuf<'a> as "T",
        e: WriteBuf<'a> as "T",
        batch: i64,
        n: i64,
        nseg: i64,
    }
}
kernel_params! {
    /// Pass 2: the segments' start states, in place of their end states.
    pub(super) struct Carry<'a> {
        coef: ReadBuf<'a> as "T",
        zi: ReadBuf<'a> as "T",
        e: WriteBuf<'a> as "T",
        batch: i64,
        nseg: i64,
        runs: i64,
    }
}
kernel_params! {
    /// Pass 3: the filtered values (and the final states).
    pub(super) struct Apply<'a> {
        x: ReadBuf<'a> as "T",
        coef: ReadBuf<'a> as "T",
        st: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        zf: MaybeWrite<'a> as "T",
        batch: i64,
        n: i64,
        nseg: i64,
    }
}

/// `batch` signals of `n >= 1` samples (input 0) filtered by the order-`order` filter whose
/// coefficients (input 1, see [`coefficients`]) are normalised by `a[0]`, from the initial
/// states of input 2 (`batch * order` values).
#[derive(Debug)]
pub(crate) struct Lfilter {
    pub dtype: DType,
    pub batch: usize,
    pub n: usize,
    pub order: usize,
    pub want_zf: bool,
}

/// `C = A B` of `k x k` row-major matrices.
fn matmul(a: &[f64], b: &[f64], k: usize) -> Vec<f64> {
    let mut c = vec![0.0; k * k];
    for i in 0..k {
        for l in 0..k {
            let v = a[i * k + l];
            for j in 0..k {
                c[i * k + j] += v * b[l * k + j];
            }
        }
    }
    c
}

/// `A^p` by squaring.
fn matpow(a: &[f64], k: usize, mut p: usize) -> Vec<f64> {
    let mut r: Vec<f64> = (0..k * k)
        .map(|i| if i / k == i % k { 1.0 } else { 0.0 })
        .collect();
    let mut base = a.to_vec();
    while p > 0 {
        if p & 1 == 1 {
            r = matmul(&r, &base, k);
        }
        base = matmul(&base, &base, k);
        p >>= 1;
    }
    r
}

impl Lfilter {
    /// Segments a signal.
    fn segments(&self) -> usize {
        self.n.div_ceil(SEG)
    }

    /// Segments a carry thread takes.
    fn runs(&self) -> usize {
        self.segments().div_ceil(THREADS).max(1)
    }

    /// The coefficient vector the kernels and the twin read: `b` (order + 1 values), `a[1..]`
    /// (order values), both divided by `a[0]`, then `M^(CHUNK 2^d)` for `d` in `0..=LEVELS`
    /// and `Q = (M^SEG)^runs`, where `M` is the state map of one sample (`M[i][0] = -a[i+1]`,
    /// `M[i][i+1] = 1`).
    pub(crate) fn coefficients(&self, b: &[f64], a: &[f64]) -> Vec<f64> {
        let k = self.order;
        let a0 = a[0];
        let at = |i: usize| a.get(i).map_or(0.0, |v| v / a0);
        let bt = |i: usize| b.get(i).map_or(0.0, |v| v / a0);
        let mut c: Vec<f64> = (0..=k).map(bt).collect();
        c.extend((1..=k).map(at));
        let mut m = vec![0.0; k * k];
        for i in 0..k {
            m[i * k] = -at(i + 1);
            if i + 1 < k {
                m[i * k + i + 1] = 1.0;
            }
        }
        let mut p = matpow(&m, k, CHUNK);
        for _ in 0..=LEVELS {
            c.extend(&p);
            p = matmul(&p, &p, k);
        }
        // `c`'s last matrix is M^(CHUNK 2^LEVELS) = M^SEG.
        let seg = c[c.len() - k * k..].to_vec();
        c.extend(matpow(&seg, k, self.runs()));
        c
    }

    fn coef_len(&self) -> usize {
        2 * self.order + 1 + (LEVELS + 2) * self.order * self.order
    }

    pub(crate) fn out_len(&self) -> usize {
        self.batch * self.n
            + if self.want_zf {
                self.batch * self.order
            } else {
                0
            }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = matches!(self.dtype, DType::F32 | DType::F64)
            && self.order >= 1
            && self.n >= 1
            && inputs.len() == 3
            && inputs.iter().all(|i| i.dtype == self.dtype)
            && numel(inputs[0].shape) == self.batch * self.n
            && numel(inputs[1].shape) == self.coef_len()
            && numel(inputs[2].shape) == self.batch * self.order;
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "lfilter made for {:?} was given {:?}",
                self,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    fn kernel(&self, entry: &str) -> KernelSource {
        let name = format!("cuprite_{entry}_{}_{}", self.dtype.name(), self.order);
        let header = format!(
            "typedef long long i64t;\ntypedef {} T;\nconstexpr int ORDER = {};\n\
             constexpr int IIR_CHUNK = {CHUNK};\nconstexpr int IIR_THREADS = {THREADS};\n\
             constexpr int IIR_LEVELS = {LEVELS};\n",
            if self.dtype == DType::F64 {
                "double"
            } else {
                "float"
            },
            self.order
        );
        let bounds = THREADS.to_string();
        let tail = match entry {
            "iir_seg" => crate::codegen::entry::<Seg>(&name, &bounds, entry),
            "iir_carry" => crate::codegen::entry::<Carry>(&name, &bounds, entry),
            _ => crate::codegen::entry::<Apply>(&name, &bounds, entry),
        };
        let text = format!(
            "{header}{}{}{tail}",
            include_str!("iir.cu"),
            crate::codegen::MARKER
        );
        KernelSource::new(name, text)
    }

    fn key(name: &str) -> u64 {
        let mut h = KeyHasher(0x11f_0000);
        name.hash(&mut h);
        h.finish()
    }

    fn cpu<R: Twin>(&self, x: &[R], coef: &[R], zi: &[R], out: &mut [R]) {
        let (n, k) = (self.n, self.order);
        let (ys, zf) = out.split_at_mut(self.batch * n);
        let (b, a) = (&coef[..=k], &coef[k + 1..2 * k + 1]);
        let run = |row: usize, yr: &mut [R]| -> Vec<R> {
            let mut z: Vec<R> = zi[row * k..(row + 1) * k].to_vec();
            for (i, yv) in yr.iter_mut().enumerate() {
                let xv = x[row * n + i];
                let y = b[0] * xv + z[0];
                for j in 0..k - 1 {
                    z[j] = b[j + 1] * xv + z[j + 1] - a[j] * y;
                }
                z[k - 1] = b[k] * xv - a[k - 1] * y;
                *yv = y;
            }
            z
        };
        let finals: Vec<Vec<R>> = ys
            .par_chunks_mut(n)
            .enumerate()
            .map(|(row, yr)| run(row, yr))
            .collect();
        if self.want_zf {
            for (row, z) in finals.iter().enumerate() {
                zf[row * k..(row + 1) * k].copy_from_slice(z);
            }
        }
    }

    fn gpu(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let d = self.dtype;
        let (bn, k) = (self.batch * self.n, self.order);
        let nseg = self.segments();
        let states = self.batch.checked_mul(nseg * k).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "lfilter: {} x {nseg} x {k} states overflow",
                self.batch
            ))
        })?;
        // SAFETY: pass 1 writes every segment's end state (all `batch * nseg * order` values)
        // before pass 2 reads or rewrites them, and pass 3 reads only what pass 2 wrote.
        let scratch = unsafe { DevBuf::alloc(st, stream, d, states) }?;
        let part =
            |i: usize, len: usize| ReadBuf::part(inputs[i].buf, d, inputs[i].layout.offset, len);
        let (x, coef, zi) = (
            part(0, bn)?,
            part(1, self.coef_len())?,
            part(2, self.batch * k)?,
        );
        let e = WriteBuf::part(&scratch, d, 0, states)?;
        let i = |v: usize| v as i64;
        let seg = Seg {
            x,
            coef,
            e,
            batch: i(self.batch),
            n: i(self.n),
            nseg: i(nseg),
        };
        let carry = Carry {
            coef,
            zi,
            e,
            batch: i(self.batch),
            nseg: i(nseg),
            runs: i(self.runs()),
        };
        let (y, zf) = {
            let y = WriteBuf::part(out, d, 0, bn)?;
            let zf = if self.want_zf {
                Some(WriteBuf::part(out, d, bn, self.batch * k)?)
            } else {
                None
            };
            (y, zf)
        };
        let apply = Apply {
            x,
            coef,
            st: e.read(),
            y,
            zf,
            batch: i(self.batch),
            n: i(self.n),
            nseg: i(nseg),
        };
        let segs = (self.batch * nseg) as u64;
        self.launch(st, stream, "iir_seg", segs, &seg)?;
        self.launch(st, stream, "iir_carry", self.batch as u64, &carry)?;
        self.launch(st, stream, "iir_apply", segs, &apply)?;
        drop(scratch);
        Ok(())
    }

    fn launch<'a, P: KernelParams<'a>>(
        &self,
        st: &'static DeviceState,
        stream: &Arc<Stream>,
        entry: &str,
        blocks: u64,
        params: &P,
    ) -> Result<()> {
        let src = self.kernel(entry);
        let key = Self::key(&src.name);
        let k = crate::jit::library_kernel(st, key, move || src)?;
        let resident = (st.sms * k.blocks_per_sm).max(1) as u64 * 8;
        let grid = blocks.clamp(1, resident.min(i32::MAX as u64)) as u32;
        let a = params.args();
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`) of the lengths the passes index: `batch * n` samples and outputs,
        // `batch * nseg * order` states, `batch * order` initial and final states, and the
        // coefficient vector of `2 order + 1 + (LEVELS + 2) order^2` values; every pass bounds
        // its indices by those counts (grid-stride loops over segments and signals, samples
        // past `n` neither read nor written).
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (THREADS as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }
}

/// The element types the CPU twin filters in.
trait Twin:
    Copy
    + Send
    + Sync
    + bytemuck::Pod
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
}
impl Twin for f32 {}
impl Twin for f64 {}

fn host<'a, R: Twin>(x: &CallInput<'a, HostBuf>, len: usize) -> &'a [R] {
    let v: &[R] = bytemuck::cast_slice(x.buf.bytes());
    &v[x.layout.offset..x.layout.offset + len]
}

impl LibraryCall for Lfilter {
    fn name(&self) -> &str {
        "lfilter"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let (bn, nc, nz) = (
            self.batch * self.n,
            self.coef_len(),
            self.batch * self.order,
        );
        let len = self.out_len();
        if self.dtype == DType::F64 {
            let o: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
            let (x, c, z) = (
                host(&inputs[0], bn),
                host(&inputs[1], nc),
                host(&inputs[2], nz),
            );
            self.cpu(x, c, z, &mut o[..len]);
        } else {
            let o: &mut [f32] = bytemuck::cast_slice_mut(out.bytes_mut());
            let (x, c, z) = (
                host(&inputs[0], bn),
                host(&inputs[1], nc),
                host(&inputs[2], nz),
            );
            self.cpu(x, c, z, &mut o[..len]);
        }
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        if self.order > MAX_ORDER {
            return Err(Error::InvalidArgument(format!(
                "lfilter on CUDA takes filters of order up to {MAX_ORDER}, not {} (cascade \
                 second-order sections with sosfilt)",
                self.order
            )));
        }
        self.gpu(lane, inputs, out)
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        ["iir_seg", "iir_carry", "iir_apply"]
            .iter()
            .map(|e| self.kernel(e).source)
            .collect()
    }
}
