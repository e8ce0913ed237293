//! The CUDA side of a scatter call: the launch sequence of each form (see [`super::cuda`] for
//! the kernels), every kernel given its typed parameters by name.

use super::cuda::{
    Bin, BinFinish, Combine, Copy, Fill, FixedFinish, FixedMax, FixedSum, LastFind, LastWrite,
    PART_THREADS, Partition, PartitionSum, Passes, Plan, Set, THREADS, Updates,
};
use super::desc::{PART_TILE, Reduce, ScatterCall};
use crate::codegen::{KernelParams, KernelSource, MaybeWrite, ReadBuf, WriteBuf};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::CallInput;
use crate::jit::Kernel;
use crate::runtime::DeviceState;
use crate::storage::DevBuf;
use cuprite_driver::Stream;
use std::sync::Arc;

/// The device and stream a call's kernels are built for and launched on.
struct Gpu<'s> {
    st: &'static DeviceState,
    stream: &'s Arc<Stream>,
}

impl Gpu<'_> {
    fn kernel(&self, src: KernelSource) -> Result<Arc<Kernel>> {
        let key = ScatterCall::key(&src.name);
        crate::jit::library_kernel(self.st, key, move || src)
    }

    /// A new scratch buffer of `len` elements of `dtype`; the caller's first pass writes every
    /// element a later pass reads.
    fn scratch(&self, dtype: DType, len: usize) -> Result<DevBuf> {
        // SAFETY: each caller's fill or partitioning pass writes every element that a later
        // pass reads (see the callers).
        unsafe { DevBuf::alloc(self.st, self.stream, dtype, len) }
    }

    /// Launches `k` over `grid` blocks of `block` threads.
    fn launch<'a, P: KernelParams<'a>>(
        &self,
        k: &Kernel,
        grid: u32,
        block: u32,
        params: &P,
    ) -> Result<()> {
        let a = params.args();
        // SAFETY: every word of a buffer parameter is the address of a live buffer range
        // checked inside its allocation (`ReadBuf`/`WriteBuf`), declared as it is used; the
        // element counts passed with them are those the ranges were made for, and the kernels
        // skip any destination outside `[0, n_out)` (`dest_of`).
        unsafe {
            self.stream.launch_packed(
                &k.func,
                (grid.max(1), 1, 1),
                (block, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    /// Builds `src` and launches it grid-stride over `len` items: one wave of resident blocks
    /// at most.
    fn stride<'a, P: KernelParams<'a>>(&self, src: KernelSource, len: u64, p: &P) -> Result<()> {
        let k = self.kernel(src)?;
        let resident = (self.st.sms * k.blocks_per_sm).max(1) as u64 * 8;
        let grid = len
            .div_ceil(THREADS as u64)
            .clamp(1, resident.min(i32::MAX as u64));
        self.launch(&k, grid as u32, THREADS, p)
    }
}

/// The realised operands of one call.
struct Operands<'a> {
    idx: ReadBuf<'a>,
    vals: ReadBuf<'a>,
    out: WriteBuf<'a>,
    flag: MaybeWrite<'a>,
}

/// The first `len` elements of input `x` (realised, contiguous) from its layout offset.
fn input<'a>(x: &CallInput<'a, DevBuf>, d: DType, len: usize) -> Result<ReadBuf<'a>> {
    ReadBuf::part(x.buf, d, x.layout.offset, len)
}

impl ScatterCall {
    fn updates<'a>(&self, chk: MaybeWrite<'a>) -> Updates<'a> {
        Updates {
            m: (self.outer * self.k * self.inner) as i64,
            k: self.k as i64,
            inner: self.inner as i64,
            n: self.n as i64,
            idx1d: self.idx1d,
            mode: self.mode as i64,
            hglob: self.hglob() as i64,
            chk,
        }
    }

    /// Enqueues the call on `stream`: the base copied into `out`, then the updates.
    pub(super) fn launch_cuda(
        &self,
        st: &'static DeviceState,
        stream: &Arc<Stream>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let (m, n_out) = (self.m(), self.n_out());
        let (base, idx, vals) = (&inputs[0], &inputs[1], &inputs[2]);
        let o = Operands {
            idx: input(idx, self.idx_dtype, self.len_idx())?,
            vals: input(vals, self.dtype, m)?,
            out: WriteBuf::part(out, self.dtype, 0, n_out)?,
            flag: match inputs.get(3) {
                Some(f) => Some(WriteBuf::part(f.buf, DType::U32, f.layout.offset, 1)?),
                None => None,
            },
        };
        let g = Gpu { st, stream };
        let plan = Plan::new(self);
        if n_out > 0 {
            let copy = Copy {
                src: input(base, self.dtype, n_out)?,
                dst: o.out,
                n: n_out as i64,
            };
            g.stride(plan.copy, n_out as u64, &copy)?;
        }
        if m == 0 || n_out == 0 {
            return Ok(());
        }
        match plan.passes {
            Passes::Atomic { update, parts } => self.run_atomic(&g, &o, update, parts),
            Passes::Last { fill, find, write } => self.run_last(&g, &o, [fill, find, write]),
            Passes::Binned { fill, bin, finish } => self.run_binned(&g, &o, [fill, bin, finish]),
            Passes::Fixed {
                fill,
                max,
                sum,
                finish,
            } => self.run_fixed(&g, &o, [fill, max, sum, finish]),
        }
    }

    /// Deterministic set: `win[d]`, filled with -1, takes the largest update number of each
    /// destination; then that update alone writes it.
    fn run_last(&self, g: &Gpu<'_>, o: &Operands<'_>, k: [KernelSource; 3]) -> Result<()> {
        let [fill, find, write] = k;
        let (m, n) = (self.m() as u64, self.n_out());
        let win = g.scratch(DType::I64, n)?;
        let w = WriteBuf::all(&win)?;
        let f = Fill {
            s: w,
            n: n as i64,
            v: u64::MAX,
        };
        g.stride(fill, n as u64, &f)?;
        let p = LastFind {
            idx: o.idx,
            win: w,
            upd: self.updates(o.flag),
        };
        g.stride(find, m, &p)?;
        let p = LastWrite {
            idx: o.idx,
            v: o.vals,
            out: o.out,
            win: w.read(),
            upd: self.updates(o.flag),
        };
        g.stride(write, m, &p)
    }

    /// Deterministic binned `f32` sum (see [`ScatterCall::bins`]): a flag word per
    /// destination, then `bins` integer bins of every destination, all zeroed first.
    fn run_binned(&self, g: &Gpu<'_>, o: &Operands<'_>, k: [KernelSource; 3]) -> Result<()> {
        let [fill, bin, finish] = k;
        let Some((w, bins)) = self.bins() else {
            return Err(Error::InvalidArgument(format!(
                "a binned scatter sum of {} has no bins",
                self.dtype
            )));
        };
        let (m, n) = (self.m() as u64, self.n_out());
        // `bins()` checked that `(bins + 1) * n` fits.
        let sc = g.scratch(DType::U64, (bins + 1) * n)?;
        let f = Fill {
            s: WriteBuf::all(&sc)?,
            n: ((bins + 1) * n) as i64,
            v: 0,
        };
        g.stride(fill, ((bins + 1) * n) as u64, &f)?;
        let fl = WriteBuf::part(&sc, DType::U64, 0, n)?;
        let acc = WriteBuf::part(&sc, DType::U64, n, bins * n)?;
        let p = Bin {
            idx: o.idx,
            v: o.vals,
            acc,
            fl,
            nd: n as i64,
            w: w as i64,
            upd: self.updates(o.flag),
        };
        g.stride(bin, m, &p)?;
        let p = BinFinish {
            out: o.out,
            acc: acc.read(),
            fl: fl.read(),
            n: n as i64,
            w: w as i64,
            nb: bins as i64,
        };
        g.stride(finish, n as u64, &p)
    }

    /// Deterministic fixed-point float sum: per destination its largest magnitude, its count,
    /// its integer sum and its flags, all zeroed first.
    fn run_fixed(&self, g: &Gpu<'_>, o: &Operands<'_>, k: [KernelSource; 4]) -> Result<()> {
        let [fill, max, sum, finish] = k;
        let (m, n) = (self.m() as u64, self.n_out());
        let words = n.checked_mul(4).ok_or_else(|| {
            Error::InvalidArgument(format!("a scatter sum into {n} destinations is too large"))
        })?;
        let sc = g.scratch(DType::U64, words)?;
        let f = Fill {
            s: WriteBuf::all(&sc)?,
            n: words as i64,
            v: 0,
        };
        g.stride(fill, words as u64, &f)?;
        let [mx, cnt, acc, fl] = [0, 1, 2, 3].map(|i| WriteBuf::part(&sc, DType::U64, i * n, n));
        let (mx, cnt, acc, fl) = (mx?, cnt?, acc?, fl?);
        let p = FixedMax {
            idx: o.idx,
            v: o.vals,
            mx,
            cnt,
            upd: self.updates(o.flag),
        };
        g.stride(max, m, &p)?;
        let p = FixedSum {
            idx: o.idx,
            v: o.vals,
            mx: mx.read(),
            cnt: cnt.read(),
            acc,
            fl,
            upd: self.updates(o.flag),
        };
        g.stride(sum, m, &p)?;
        let p = FixedFinish {
            out: o.out,
            mx: mx.read(),
            cnt: cnt.read(),
            acc: acc.read(),
            fl: fl.read(),
            n: n as i64,
            hglob: self.hglob() as i64,
        };
        g.stride(finish, n as u64, &p)
    }

    /// Atomic set/add/max/min; the partitioned `f32` sum where it applies and its scratch can
    /// be had (memory short: the plain atomic pass).
    fn run_atomic(
        &self,
        g: &Gpu<'_>,
        o: &Operands<'_>,
        update: KernelSource,
        parts: Option<(KernelSource, KernelSource)>,
    ) -> Result<()> {
        if let (Some((first, second)), Some(p)) = (parts, self.partitions()) {
            if self.run_partitioned(g, o, p, first, second)? {
                return Ok(());
            }
        }
        let m = self.m() as u64;
        let upd = self.updates(o.flag);
        if self.op == Reduce::Set {
            let p = Set {
                idx: o.idx,
                v: o.vals,
                out: o.out,
                upd,
            };
            g.stride(update, m, &p)
        } else {
            let p = Combine {
                idx: o.idx,
                v: o.vals,
                out: o.out,
                upd,
            };
            if self.shared_sum() {
                // Each block flushes its copy once: as few blocks as fill the GPU.
                let k = g.kernel(update)?;
                let resident = (g.st.sms * k.blocks_per_sm).max(1) as u64;
                let grid = m.div_ceil(THREADS as u64).clamp(1, resident);
                return g.launch(&k, grid as u32, THREADS, &p);
            }
            g.stride(update, m, &p)
        }
    }

    /// The partitioned `f32` sum (see [`ScatterCall::partitions`]) over `parts` partitions;
    /// `false` (nothing launched) when its scratch cannot be allocated. The scratch holds the
    /// values (`m` `f32`), the local destinations (`m` `u16`, in `ceil(m / 2)` words) and a
    /// row of `parts + 1` offsets per tile.
    fn run_partitioned(
        &self,
        g: &Gpu<'_>,
        o: &Operands<'_>,
        parts: usize,
        first: KernelSource,
        second: KernelSource,
    ) -> Result<bool> {
        let m = self.m();
        let tiles = m.div_ceil(PART_TILE);
        let rows = tiles.checked_mul(parts + 1);
        let words = rows.and_then(|r| r.checked_add(m + m.div_ceil(2)));
        let (Some(rows), Some(words)) = (rows, words) else {
            return Ok(false);
        };
        if tiles > i32::MAX as usize {
            return Ok(false);
        }
        // Without the scratch (memory short), the plain atomic kernel.
        let Ok(sc) = g.scratch(DType::U32, words) else {
            return Ok(false);
        };
        let lv = WriteBuf::part(&sc, DType::F32, 0, m)?;
        let ld = WriteBuf::part(&sc, DType::U16, 2 * m, m)?;
        let off = WriteBuf::part(&sc, DType::U32, m + m.div_ceil(2), rows)?;
        let (k1, k2) = (g.kernel(first)?, g.kernel(second)?);
        // Splits of a partition: as many as fill the resident blocks once (a second, partial
        // wave would leave most SMs idle at the end).
        let per_sm = k2.func.max_active_blocks_per_sm(PART_THREADS as u32, 0)?;
        let resident = (g.st.sms * per_sm).max(1) as usize;
        let ks = (resident / parts).max(1);
        // One block a tile of `PART_TILE` updates; it writes its tile's scratch entries and
        // its row of offsets; destinations outside the output are skipped.
        let p = Partition {
            idx: o.idx,
            v: o.vals,
            ld,
            lv,
            off,
            parts: parts as i64,
            upd: self.updates(o.flag),
        };
        g.launch(&k1, tiles as u32, PART_THREADS as u32, &p)?;
        // Block `b` reads partition `b / ks` of every tile's segment and adds to output
        // destinations below `n_out` only.
        let p = PartitionSum {
            ld: ld.read(),
            lv: lv.read(),
            off: off.read(),
            tiles: tiles as i64,
            parts: parts as i64,
            ks: ks as i64,
            n_out: self.n_out() as i64,
            out: o.out,
        };
        let grid = u32::try_from(parts * ks).unwrap_or(u32::MAX);
        g.launch(&k2, grid, PART_THREADS as u32, &p)?;
        Ok(true)
    }
}
