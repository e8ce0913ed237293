//! The CUDA side of the sort family: launch sequences over device buffers (contiguous, from
//! offset 0), all on the array stream of the device. Index payloads are `u32` inside, so one
//! call sorts fewer than 2^32 elements (an `Err` beyond).

use super::kernels as K;
use super::kernels_select as S;
use super::keys::KeySpec;
use super::params as P;
use crate::codegen::{KernelParams, KernelSource, ReadBuf, SharedBuf, WriteBuf};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::runtime::{DeviceState, state, stream_of};
use crate::storage::DevBuf;
use crate::util::KeyHasher;
use cuprite_driver::Stream;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A device and its array stream.
pub(crate) struct Gpu {
    pub st: &'static DeviceState,
    pub stream: Arc<Stream>,
}

/// A launch's grid: a number of blocks, or grid-stride work of `n` threads (see [`Gpu::grid`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Grid {
    Blocks(u32),
    Stride(usize),
}

impl From<u32> for Grid {
    fn from(b: u32) -> Grid {
        Grid::Blocks(b)
    }
}

impl Gpu {
    pub fn new(ordinal: usize) -> Result<Gpu> {
        let st = state(ordinal)?;
        Ok(Gpu {
            st,
            stream: stream_of(st).into_arc(),
        })
    }

    /// A new buffer of `len` (at least one) elements; every caller writes what it later reads.
    pub fn alloc(&self, dtype: DType, len: usize) -> Result<DevBuf> {
        // SAFETY: each caller has a kernel write every element it reads afterwards (or zeroes
        // the buffer with `zeros`).
        unsafe { DevBuf::alloc(self.st, &self.stream, dtype, len.max(1)) }
    }

    /// A new zeroed buffer.
    pub fn zeros(&self, dtype: DType, len: usize) -> Result<DevBuf> {
        let mut d = self.alloc(dtype, len)?;
        self.clear(&mut d)?;
        Ok(d)
    }

    /// Zeroes `d` (stream-ordered).
    pub fn clear(&self, d: &mut DevBuf) -> Result<()> {
        let b = d
            .buffer_mut()
            .ok_or_else(|| Error::InvalidArgument("a sort buffer has no allocation".into()))?;
        self.stream.memset_zeros(b)?;
        Ok(())
    }

    /// The bytes of `d` (waits for the stream).
    pub fn download(&self, d: &DevBuf) -> Result<Vec<u8>> {
        crate::runtime::refuse_in_capture(
            "this sort-family call (it reads a count to the host; a data-dependent size)",
        )?;
        Ok(self.stream.clone_dtoh(live(d)?)?)
    }

    /// The grid of a grid-stride kernel with `n` threads' worth of work: one wave, as many
    /// blocks as the kernel keeps resident (resolved at launch, from its occupancy).
    pub fn grid(&self, n: usize) -> Grid {
        Grid::Stride(n)
    }

    /// Blocks of `src` the device holds at once (its occupancy on every multiprocessor).
    pub fn resident(&self, src: KernelSource) -> Result<usize> {
        let k = self.kernel(src)?;
        Ok((self.st.sms as usize * k.blocks_per_sm.max(1) as usize).max(1))
    }

    /// The built kernel of `src` (from the library cache, keyed by its name).
    fn kernel(&self, src: KernelSource) -> Result<Arc<crate::jit::Kernel>> {
        let mut h = KeyHasher(0x50f7_5eed);
        "sort-family".hash(&mut h);
        src.name.hash(&mut h);
        crate::jit::library_kernel(self.st, h.finish(), || src)
    }

    /// Launches `src` over `grid` blocks of 256 threads with its parameters `params`.
    pub fn launch<'a, P: KernelParams<'a>>(
        &self,
        src: KernelSource,
        grid: impl Into<Grid>,
        params: &P,
    ) -> Result<()> {
        let k = self.kernel(src)?;
        // A grid-stride kernel's blocks beyond those resident at once would run as a second,
        // mostly empty wave: one wave of resident blocks.
        let grid = match grid.into() {
            Grid::Blocks(b) => b,
            Grid::Stride(n) => {
                let cap = (self.st.sms as usize * k.blocks_per_sm.max(1) as usize).max(1);
                n.div_ceil(256).clamp(1, cap) as u32
            }
        };
        let a = params.args();
        // SAFETY: every buffer word is a live buffer of the parameters (or 0 where the kernel
        // takes null for an absent one), declared as its parameter's type says; each is at
        // least as long as the element counts passed with it ask (the callers size them so).
        unsafe {
            self.stream.launch_packed(
                &k.func,
                (grid.max(1), 1, 1),
                (256, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }
}

pub(crate) fn live(d: &DevBuf) -> Result<&cuprite_driver::DeviceBuffer<u8>> {
    d.live()
        .ok_or_else(|| Error::InvalidArgument("a sort buffer was handed back while in use".into()))
}

/// Little-endian `u32` words of `b`.
fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The key buffer dtype of `spec`.
fn kdt(spec: KeySpec) -> DType {
    if spec.bits == 64 {
        DType::U64
    } else {
        DType::U32
    }
}

/// All of `d`, read.
fn r(d: &DevBuf) -> Result<ReadBuf<'_>> {
    ReadBuf::all(d)
}

/// All of `d`, written.
fn w(d: &DevBuf) -> Result<WriteBuf<'_>> {
    WriteBuf::all(d)
}

/// All of `d` when given, written.
fn mw(d: Option<&DevBuf>) -> Result<Option<WriteBuf<'_>>> {
    d.map(WriteBuf::all).transpose()
}

/// All of `d` when given, read.
fn mr(d: Option<&DevBuf>) -> Result<Option<ReadBuf<'_>>> {
    d.map(ReadBuf::all).transpose()
}

/// Bytes needed for the row numbers `0..rows`.
fn row_digits(rows: usize) -> usize {
    let bits = usize::BITS - (rows.saturating_sub(1)).leading_zeros();
    (bits as usize).div_ceil(8)
}

/// Checks the `u32` index limit.
pub(crate) fn check_len(total: usize, call: &str) -> Result<()> {
    if total > u32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "{call} of {total} elements on CUDA: at most {} elements per call",
            u32::MAX
        )));
    }
    Ok(())
}

/// Sorts `rows` rows of `n` elements of `x`: values (the input dtype) and/or `i64` indices
/// within each row.
pub(crate) fn sort_rows(
    g: &Gpu,
    x: &DevBuf,
    spec: KeySpec,
    rows: usize,
    n: usize,
    desc: bool,
    want_v: bool,
    want_i: bool,
) -> Result<(Option<DevBuf>, Option<DevBuf>)> {
    let total = rows * n;
    check_len(total, "sort")?;
    let vout = if want_v {
        Some(g.alloc(spec.dtype, total)?)
    } else {
        None
    };
    let iout = if want_i {
        Some(g.alloc(DType::I64, total)?)
    } else {
        None
    };
    if n <= K::tile(spec.bits) {
        let grid = rows.min(1 << 30) as u32;
        let p = P::Rows {
            x: r(x)?,
            vout: mw(vout.as_ref())?,
            iout: mw(iout.as_ref())?,
            rows: rows as u64,
            n: n as u64,
            desc: desc as u64,
        };
        g.launch(K::rows(spec), grid, &p)?;
        return Ok((vout, iout));
    }
    let has_idx = want_i || rows > 1;
    let seg = if rows > 1 { n } else { 0 };
    let kp = spec.bits as usize / 8;
    let sp = if rows > 1 { row_digits(rows) } else { 0 };
    let hist = g.zeros(DType::U32, (kp + sp) * 256)?;
    let tile = K::pass_tile(spec.bits);
    let ntiles = total.div_ceil(tile);
    // The histogram: as many blocks as the device holds at once, each over a run of `tpb`
    // consecutive units; a onesweep pass is one block a tile.
    let units = total.div_ceil(K::HIST_UNIT);
    let tpb = units.div_ceil(units.min(g.resident(K::histogram(spec))?).max(1));
    let p = P::Histogram {
        x: r(x)?,
        hist: w(&hist)?,
        n: total as u64,
        tpb: tpb as u64,
        desc: desc as u64,
        seg: seg as u64,
        sp: sp as u64,
    };
    g.launch(K::histogram(spec), units.div_ceil(tpb) as u32, &p)?;
    // Captured, the histogram cannot be read on the host: every pass runs (a pass over one
    // digit is a stable copy, so the order is the same).
    let h: Option<Vec<u32>> = if crate::runtime::capturing() {
        None
    } else {
        Some(words(&g.download(&hist)?))
    };
    // A pass where one digit holds everything keeps the order: skipped. Without a key pass
    // the input is in order already (the row passes would keep it too).
    let one_digit = |p: usize| {
        h.as_ref().is_some_and(|h| {
            h[p * 256..(p + 1) * 256]
                .iter()
                .any(|&c| c as usize == total)
        })
    };
    let mut passes: Vec<usize> = (0..kp).filter(|&p| !one_digit(p)).collect();
    if passes.is_empty() {
        let p = P::CopyOut {
            x: r(x)?,
            vout: mw(vout.as_ref())?,
            iout: mw(iout.as_ref())?,
            n: total as u64,
            desc: desc as u64,
            seg: seg as u64,
        };
        g.launch(K::copy_out(spec), g.grid(total), &p)?;
        return Ok((vout, iout));
    }
    passes.extend((kp..kp + sp).filter(|&p| !one_digit(p)));
    let m = passes.len();
    // Scratch keys and `u32` indices between passes: pass `j` writes buffer `j % 2`.
    let kd = kdt(spec);
    let scratch = m.min(3) - 1;
    let mut kb = Vec::with_capacity(scratch);
    let mut ib = Vec::with_capacity(scratch);
    for _ in 0..scratch {
        kb.push(g.alloc(kd, total)?);
        if has_idx {
            ib.push(g.alloc(DType::U32, total)?);
        }
    }
    // The look-back status of every tile and digit, then a tile ticket per pass; zeroed once
    // (the words carry their pass's number).
    let status_words = ntiles
        .checked_mul(256)
        .and_then(|w| w.checked_add(1 + m))
        .ok_or_else(|| {
            Error::InvalidArgument(format!("sort of {total} elements: too many tiles"))
        })?;
    let mut status = g.alloc(DType::U64, status_words)?;
    g.clear(&mut status)?;
    for (j, &p) in passes.iter().enumerate() {
        let pass = K::Pass::new(j == 0, j + 1 == m, p >= kp);
        let shift = if p < kp { 8 * p } else { 8 * (p - kp) };
        let (src, iin) = if j == 0 {
            (x, None)
        } else {
            let b = (j - 1) % 2;
            (&kb[b], ib.get(b))
        };
        let (kout, iout_p) = if j + 1 == m {
            (vout.as_ref(), iout.as_ref())
        } else {
            (Some(&kb[j % 2]), ib.get(j % 2))
        };
        let params = P::ScatterPass {
            src: r(src)?,
            iin: mr(iin)?,
            kout: mw(kout)?,
            iout: mw(iout_p)?,
            // This pass's digit counts: row `p` of the histogram.
            totals: ReadBuf::part(&hist, DType::U32, p * 256, 256)?,
            status: SharedBuf::all(&status)?,
            n: total as u64,
            ntiles: ntiles as u64,
            shift: shift as u64,
            seg: seg as u64,
            desc: desc as u64,
            epoch: j as u64 + 1,
        };
        g.launch(K::scatter(spec, pass), ntiles as u32, &params)?;
    }
    Ok((vout, iout))
}

/// Selection state words (see `kernels_select`).
const STATE: usize = 8;

/// Radix selection of the element of rank `rank` (0-based) of `x` (`n` elements) in the order
/// of keys (descending when `flip`), ties by index: returns the state buffer.
pub(crate) fn select(
    g: &Gpu,
    x: &DevBuf,
    spec: KeySpec,
    n: usize,
    flip: bool,
    rank: usize,
) -> Result<DevBuf> {
    check_len(n, "selection")?;
    let state = g.zeros(DType::U64, STATE)?;
    let hist = g.zeros(DType::U32, 256)?;
    let kd = spec.bits as u64 / 8;
    let p = P::SelHist0 {
        x: r(x)?,
        n: n as u64,
        flip: flip as u64,
        hist: w(&hist)?,
        state: w(&state)?,
    };
    g.launch(S::sel_hist0(spec), g.grid(n.div_ceil(8)), &p)?;
    let step = |j: u64| -> Result<()> {
        let p = P::SelStep {
            hist: w(&hist)?,
            state: w(&state)?,
            j,
            kd,
            rank0: rank as u64,
        };
        g.launch(S::sel_step(), 1, &p)
    };
    step(0)?;
    // Keys of two digits or more: the second digit from one more read-only pass over `x`, so
    // that only the elements matching two digits are copied out. With one digit, values in a
    // narrow range crowd into one bucket (uniform f32 in [-1, 1): a quarter of them share the
    // top digit of the largest), and all of those were copied and scanned again.
    let jm: u64 = if kd >= 2 { 2 } else { 1 };
    if jm == 2 {
        let p = P::SelHistX {
            x: r(x)?,
            n: n as u64,
            flip: flip as u64,
            state: r(&state)?,
            hist: w(&hist)?,
            j: 1,
            kd,
        };
        g.launch(S::sel_hist_x(spec), g.grid(n.div_ceil(8)), &p)?;
        step(1)?;
    }
    let ck = g.alloc(kdt(spec), n)?;
    let ci = g.alloc(DType::U32, n)?;
    let p = P::SelCompact {
        x: r(x)?,
        n: n as u64,
        flip: flip as u64,
        state: w(&state)?,
        ckey: w(&ck)?,
        cidx: w(&ci)?,
        jm,
    };
    g.launch(S::sel_compact(spec), g.grid(n.div_ceil(8)), &p)?;
    let cgrid = (g.st.sms * 4).max(1);
    let hist_j = |ck: &DevBuf, ci: &DevBuf, j: u64, cw: u64| -> Result<()> {
        let p = P::SelHist {
            ckey: r(ck)?,
            cidx: r(ci)?,
            state: r(&state)?,
            hist: w(&hist)?,
            j,
            kd,
            cw,
        };
        g.launch(S::sel_hist(spec), cgrid, &p)?;
        step(j)
    };
    hist_j(&ck, &ci, jm, 3)?;
    // The candidates matching one digit more (usually few) go to a second buffer.
    let ck2 = g.alloc(kdt(spec), n)?;
    let ci2 = g.alloc(DType::U32, n)?;
    let p = P::SelRefine {
        ckey: r(&ck)?,
        cidx: r(&ci)?,
        state: w(&state)?,
        okey: w(&ck2)?,
        oidx: w(&ci2)?,
        j: jm + 1,
        kd,
    };
    g.launch(S::sel_refine(spec), cgrid, &p)?;
    for j in jm + 1..kd + 4 {
        hist_j(&ck2, &ci2, j, 6)?;
    }
    Ok(state)
}

/// The `k` (at most [`TOPK_MAX`]) first elements of `x` in key order (descending when
/// `largest`), ties by index: values and `i64` indices.
pub(crate) fn topk(
    g: &Gpu,
    x: &DevBuf,
    spec: KeySpec,
    n: usize,
    k: usize,
    largest: bool,
) -> Result<(DevBuf, DevBuf)> {
    let state = select(g, x, spec, n, largest, k - 1)?;
    let ok = g.alloc(kdt(spec), k)?;
    let oi = g.alloc(DType::U32, k)?;
    let p = P::SelCollect {
        x: r(x)?,
        n: n as u64,
        flip: largest as u64,
        state: w(&state)?,
        okey: w(&ok)?,
        oidx: w(&oi)?,
    };
    g.launch(S::sel_collect(spec), g.grid(n.div_ceil(8)), &p)?;
    let v = g.alloc(spec.dtype, k)?;
    let i = g.alloc(DType::I64, k)?;
    let p = P::SelSortK {
        okey: r(&ok)?,
        oidx: r(&oi)?,
        kk: k as u64,
        flip: largest as u64,
        vout: w(&v)?,
        iout: w(&i)?,
    };
    g.launch(S::sel_sortk(spec), 1, &p)?;
    Ok((v, i))
}

/// The largest `k` [`topk`] selects (above it, a sort).
pub(crate) const TOPK_MAX: usize = 1024;

/// Writes the element selected by `state` to `vout[pos]` (and its index to `iout[pos]`), and
/// to `vout[nanpos]` its value or NaN when the input had one.
pub(crate) fn write_selected(
    g: &Gpu,
    state: &DevBuf,
    spec: KeySpec,
    vout: &DevBuf,
    iout: Option<&DevBuf>,
    pos: usize,
    nanpos: Option<usize>,
) -> Result<()> {
    let p = P::SelValue {
        state: r(state)?,
        // The state holds the selected key in the order it was selected in; written as is.
        flip: 0,
        vout: w(vout)?,
        iout: mw(iout)?,
        pos: pos as u64,
        nanpos: nanpos.map(|p| p as u64).unwrap_or(u64::MAX),
    };
    g.launch(S::sel_value(spec), 1, &p)
}

/// Quantile parameters: elements `lo`, `hi`, weight `t`, method (see `kernels_select::pick`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pick {
    pub lo: usize,
    pub hi: usize,
    pub t: f64,
    pub method: u64,
}

/// Applies `p` to each of `rows` sorted rows of `n` elements: one `out`-dtype value a row.
pub(crate) fn pick(
    g: &Gpu,
    sorted: &DevBuf,
    spec: KeySpec,
    out: DType,
    rows: usize,
    n: usize,
    p: Pick,
) -> Result<DevBuf> {
    let o = g.alloc(out, rows)?;
    let params = P::Pick {
        s: r(sorted)?,
        out: w(&o)?,
        rows: rows as u64,
        n: n as u64,
        lo: p.lo as u64,
        hi: p.hi as u64,
        t: p.t,
        method: p.method,
    };
    g.launch(S::pick(spec, out), g.grid(rows), &params)?;
    Ok(o)
}

/// The mode of each sorted row: values and counts.
pub(crate) fn mode(
    g: &Gpu,
    sorted: &DevBuf,
    spec: KeySpec,
    rows: usize,
    n: usize,
) -> Result<(DevBuf, DevBuf)> {
    let v = g.alloc(spec.dtype, rows)?;
    let c = g.alloc(DType::I64, rows)?;
    let p = P::Mode {
        s: r(sorted)?,
        vout: w(&v)?,
        cout: w(&c)?,
        rows: rows as u64,
        n: n as u64,
    };
    g.launch(S::mode(spec), rows.min(1 << 30) as u32, &p)?;
    Ok((v, c))
}

/// Run flags of sorted values `s` (`mode` of `kernels_select::run_flags`) and their exclusive
/// scan: `(flags, ids, number flagged)`.
pub(crate) fn flags(
    g: &Gpu,
    s: &DevBuf,
    perm: Option<&DevBuf>,
    spec: KeySpec,
    n: usize,
    mode: u64,
    na: usize,
) -> Result<(DevBuf, DevBuf, usize)> {
    let f = g.alloc(DType::U32, n)?;
    let ids = g.alloc(DType::U32, n)?;
    if mode == 2 && perm.is_none() {
        return Err(Error::InvalidArgument(
            "run flags of mode 2 read the permutation: none given".into(),
        ));
    }
    for out in [&f, &ids] {
        let p = P::RunFlags {
            s: r(s)?,
            perm: mr(perm)?,
            flags: w(out)?,
            n: n as u64,
            mode,
            na: na as u64,
        };
        g.launch(S::run_flags(spec), g.grid(n), &p)?;
    }
    let ntiles = n.div_ceil(S::SCAN_TILE);
    let sums = g.alloc(DType::U32, ntiles + 1)?;
    let p = P::ScanTiles {
        data: w(&ids)?,
        sums: w(&sums)?,
        n: n as u64,
    };
    g.launch(S::scan_tiles(), ntiles as u32, &p)?;
    let p = P::ScanSums {
        sums: w(&sums)?,
        ntiles: ntiles as u64,
    };
    g.launch(S::scan_sums(), 1, &p)?;
    let p = P::ScanAdd {
        data: w(&ids)?,
        sums: r(&sums)?,
        n: n as u64,
    };
    g.launch(S::scan_add(), g.grid(n), &p)?;
    let h: Vec<u32> = words(&g.download(&sums)?);
    Ok((f, ids, h[ntiles] as usize))
}

/// `unique` of sorted values `s` with permutation `perm`: values, first indices, counts and
/// the inverse.
pub(crate) fn unique(
    g: &Gpu,
    s: &DevBuf,
    perm: &DevBuf,
    spec: KeySpec,
    n: usize,
) -> Result<[DevBuf; 4]> {
    let (f, ids, nu) = flags(g, s, Some(perm), spec, n, 0, 0)?;
    let uval = g.alloc(spec.dtype, nu)?;
    let first = g.alloc(DType::I64, nu)?;
    let starts = g.alloc(DType::U32, nu)?;
    let inv = g.alloc(DType::I64, n)?;
    let counts = g.alloc(DType::I64, nu)?;
    let p = P::UniqueOut {
        s: r(s)?,
        perm: r(perm)?,
        flags: r(&f)?,
        ids: r(&ids)?,
        uval: w(&uval)?,
        ufirst: w(&first)?,
        starts: w(&starts)?,
        inverse: w(&inv)?,
        n: n as u64,
    };
    g.launch(S::unique_out(spec), g.grid(n), &p)?;
    let p = P::UniqueFirstMin {
        s: r(s)?,
        perm: r(perm)?,
        flags: r(&f)?,
        ids: r(&ids)?,
        ufirst: w(&first)?,
        n: n as u64,
    };
    g.launch(S::unique_first_min(spec), g.grid(n), &p)?;
    let p = P::RunCounts {
        starts: r(&starts)?,
        counts: w(&counts)?,
        nu: nu as u64,
        n: n as u64,
    };
    g.launch(S::run_counts(), g.grid(nu), &p)?;
    Ok([uval, first, counts, inv])
}

/// The flagged elements of sorted `s` (`mode` as in [`flags`]), in order: per chunk of
/// `RUN_CHUNK` elements a count, their exclusive scan, then each chunk writes its elements
/// (the flags are computed twice from `s`, never stored). `perm` is read in mode 2 only.
pub(crate) fn compact(
    g: &Gpu,
    s: &DevBuf,
    perm: Option<&DevBuf>,
    spec: KeySpec,
    n: usize,
    mode: u64,
    na: usize,
) -> Result<(DevBuf, usize)> {
    if mode == 2 && perm.is_none() {
        return Err(Error::InvalidArgument(
            "run compaction of mode 2 reads the permutation: none given".into(),
        ));
    }
    check_len(n, "run compaction")?;
    let chunks = n.div_ceil(S::RUN_CHUNK);
    let counts = g.alloc(DType::U32, chunks + 1)?;
    let p = P::RunCount {
        s: r(s)?,
        perm: mr(perm)?,
        counts: w(&counts)?,
        n: n as u64,
        mode,
        na: na as u64,
    };
    g.launch(S::run_count(spec), chunks as u32, &p)?;
    let p = P::ScanSums {
        sums: w(&counts)?,
        ntiles: chunks as u64,
    };
    g.launch(S::scan_sums(), 1, &p)?;
    let m = words(&g.download(&counts)?)[chunks] as usize;
    let out = g.alloc(spec.dtype, m)?;
    let p = P::RunWrite {
        s: r(s)?,
        perm: mr(perm)?,
        offsets: r(&counts)?,
        out: w(&out)?,
        n: n as u64,
        mode,
        na: na as u64,
    };
    g.launch(S::run_write(spec), chunks as u32, &p)?;
    Ok((out, m))
}

/// `out[i] = v[row(i) * n + perm[i]]` (`total` elements of `dtype`, rows of `n`).
pub(crate) fn gather(
    g: &Gpu,
    v: &DevBuf,
    perm: &DevBuf,
    dtype: DType,
    total: usize,
    n: usize,
) -> Result<DevBuf> {
    let out = g.alloc(dtype, total)?;
    let p = P::Gather {
        v: r(v)?,
        perm: r(perm)?,
        out: w(&out)?,
        total: total as u64,
        n: n as u64,
    };
    g.launch(S::gather(dtype.size()), g.grid(total), &p)?;
    Ok(out)
}

/// Every CUDA source the sort family builds for `spec` (results of quantiles in `mean`): for
/// the compile-only check.
pub(crate) fn all_sources(spec: KeySpec, mean: DType) -> Vec<KernelSource> {
    let mut v = vec![
        K::histogram(spec),
        K::copy_out(spec),
        K::rows(spec),
        S::sel_hist0(spec),
        S::sel_step(),
        S::sel_compact(spec),
        S::sel_hist_x(spec),
        S::sel_hist(spec),
        S::sel_refine(spec),
        S::sel_collect(spec),
        S::sel_sortk(spec),
        S::sel_value(spec),
        S::pick(spec, mean),
        S::mode(spec),
        S::run_flags(spec),
        S::unique_out(spec),
        S::unique_first_min(spec),
        S::run_count(spec),
        S::run_write(spec),
        S::run_counts(),
        S::scan_tiles(),
        S::scan_sums(),
        S::scan_add(),
        S::gather(spec.bits as usize / 8),
    ];
    v.extend(K::Pass::ALL.map(|pass| K::scatter(spec, pass)));
    v
}
