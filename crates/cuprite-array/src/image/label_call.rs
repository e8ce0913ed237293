//! The connected-component labels of a batch of binary volumes as one library call: five
//! kernels (`label.cu`: tile-local union-find in shared memory, the unions across tiles, two
//! prefix sums of the root bits, the final numbering) and the sequential CPU twin. Both give
//! every set pixel the number of its component in SciPy's order (1, 2, ... by the raster order
//! of each component's first pixel), 0 elsewhere, followed by each image's count.

use crate::codegen::{KernelParams, KernelSource, ReadBuf, SharedBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::runtime::DeviceState;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Threads a block (`LB_THREADS`) of every kernel but `label_merge`.
const THREADS: usize = 256;
/// Threads a block of `label_merge` (a tile's 94 edge pixels, or its 1024 pixels, a block).
const MERGE_THREADS: usize = 128;
/// The side of a tile of `label_local` (`LB_T`).
const TILE: usize = 32;
/// Words of root bits a block of `label_wscan` sums (`LB_WB`).
const WORDS_A_BLOCK: usize = 1024;
/// The most blocks a launch's second grid dimension takes.
const GRID_Y: usize = 65535;

kernel_params! {
    /// The tile-local unions and the tile roots (see `label.cu`).
    pub(super) struct LocalArgs<'a> {
        m: ReadBuf<'a> as "unsigned char",
        lab: SharedBuf<'a> as "int",
        bits: SharedBuf<'a> as "unsigned",
        nbm: i64,
        planes: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        wpr: i64,
    }
}

kernel_params! {
    /// The unions across tiles and planes.
    pub(super) struct MergeArgs<'a> {
        m: ReadBuf<'a> as "unsigned char",
        lab: SharedBuf<'a> as "int",
        bits: SharedBuf<'a> as "unsigned",
        nbm: i64,
        planes: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        wpr: i64,
        all: i64,
    }
}

kernel_params! {
    /// The roots before each word inside its run, and each run's total.
    pub(super) struct WscanArgs<'a> {
        bits: ReadBuf<'a> as "unsigned",
        wpre: WriteBuf<'a> as "int",
        bsum: WriteBuf<'a> as "int",
        batch: i64,
        wpi: i64,
        bpi: i64,
    }
}

kernel_params! {
    /// The runs' totals made exclusive prefix sums, and each image's count.
    pub(super) struct BscanArgs<'a> {
        bsum: WriteBuf<'a> as "int",
        counts: WriteBuf<'a> as "int",
        batch: i64,
        bpi: i64,
    }
}

kernel_params! {
    /// Every pixel's label.
    pub(super) struct FinalArgs<'a> {
        lab: ReadBuf<'a> as "int",
        bits: ReadBuf<'a> as "unsigned",
        wpre: ReadBuf<'a> as "int",
        bpre: ReadBuf<'a> as "int",
        out: WriteBuf<'a> as "int",
        batch: i64,
        per: i64,
        n2: i64,
        wpr: i64,
        wpi: i64,
        bpi: i64,
    }
}

/// The labels (`i32`) of the components of input 0 (`u8` or `bool`, set where non-zero,
/// `batch` volumes of extents `n`) under the neighbour offsets `nb` (each earlier in raster
/// order than the pixel, each coordinate -1, 0 or 1), then each image's count: an output of
/// `batch * per + batch` values.
#[derive(Debug)]
pub(crate) struct Label {
    pub batch: usize,
    pub n: [usize; 3],
    pub nb: Vec<[i64; 3]>,
}

/// The shape of the root-bit words: words a row, an image, and runs of
/// [`WORDS_A_BLOCK`] words an image.
#[derive(Clone, Copy)]
struct Words {
    wpr: usize,
    wpi: usize,
    bpi: usize,
}

impl Label {
    fn per(&self) -> usize {
        self.n.iter().product()
    }

    /// The output's length: the labels, then one count an image.
    pub(crate) fn out_len(&self) -> usize {
        self.batch * self.per() + self.batch
    }

    /// The kernels' neighbour bits: bit `(o0 + 1) 9 + (o1 + 1) 3 + (o2 + 1)` for offset `o`
    /// (below 13 for an offset earlier in raster order).
    fn nb_mask(&self) -> i64 {
        self.nb
            .iter()
            .map(|o| 1i64 << ((o[0] + 1) * 9 + (o[1] + 1) * 3 + (o[2] + 1)))
            .fold(0, |a, b| a | b)
    }

    fn words(&self) -> Words {
        let wpr = self.n[2].div_ceil(32);
        let wpi = self.n[0] * self.n[1] * wpr;
        Words {
            wpr,
            wpi,
            bpi: wpi.div_ceil(WORDS_A_BLOCK),
        }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = inputs.len() == 1
            && matches!(inputs[0].dtype, DType::U8 | DType::Bool)
            && crate::shape::numel(inputs[0].shape) == self.batch * self.per()
            && self.per() <= i32::MAX as usize
            && self
                .nb
                .iter()
                .all(|&o| o < [0, 0, 0] && o.iter().all(|v| (-1..=1).contains(v)));
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "label made for {} x {:?} (at most 2^31 - 1 pixels an image) was given {:?}",
                self.batch,
                self.n,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    fn kernel(entry: &str) -> KernelSource {
        let name = format!("cuprite_{entry}");
        let t = THREADS.to_string();
        let entry_text = match entry {
            "label_local" => crate::codegen::entry::<LocalArgs>(&name, &t, entry),
            "label_merge" => {
                crate::codegen::entry::<MergeArgs>(&name, &MERGE_THREADS.to_string(), entry)
            }
            "label_wscan" => crate::codegen::entry::<WscanArgs>(&name, &t, entry),
            "label_bscan" => crate::codegen::entry::<BscanArgs>(&name, &t, entry),
            _ => crate::codegen::entry::<FinalArgs>(&name, &t, entry),
        };
        let text = format!(
            "typedef long long i64t;\n{}{}{entry_text}",
            include_str!("label.cu"),
            crate::codegen::MARKER,
        );
        KernelSource::new(name, text)
    }

    fn launch<'a, P: KernelParams<'a>>(
        st: &'static DeviceState,
        lane: &CudaLane<'_>,
        entry: &str,
        grid: (usize, usize),
        params: &P,
    ) -> Result<()> {
        let threads = if entry == "label_merge" {
            MERGE_THREADS
        } else {
            THREADS
        };
        let mut h = KeyHasher(0x1a9e_1001);
        entry.hash(&mut h);
        let k = crate::jit::library_kernel(st, h.finish(), || Self::kernel(entry))?;
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize * 4;
        let gx = grid.0.clamp(1, resident.min(i32::MAX as usize)) as u32;
        let gy = grid.1.clamp(1, GRID_Y) as u32;
        let a = params.args();
        // SAFETY: every buffer holds what `run_cuda` sized it for (ranges checked inside their
        // allocations): `m`, `lab` and `out` `batch * per` values, `bits` and `wpre` `batch *
        // wpi` words, `bsum` `batch * bpi`, `counts` `batch`. The kernels index them below
        // those counts (a neighbour only after its coordinates are checked inside the volume,
        // a word only for a row and column inside it), and `lab`
        // holds only -1 or indices inside its own image once `label_local` has run, so every
        // pointer chase stays inside the image.
        unsafe {
            lane.stream.launch_packed(
                &k.func,
                (gx, gy, 1),
                (threads as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    /// The CPU twin: union by smaller root, then the numbering in raster order, one image a
    /// task; `out` holds the labels, then the counts.
    fn cpu(&self, m: &[u8], out: &mut [i32]) {
        let per = self.per();
        let n = self.n.map(|v| v as i64);
        let lin: Vec<i64> = self
            .nb
            .iter()
            .map(|o| (o[0] * n[1] + o[1]) * n[2] + o[2])
            .collect();
        let (labels, counts) = out.split_at_mut(self.batch * per);
        labels
            .par_chunks_mut(per)
            .zip(m.par_chunks(per))
            .zip(counts.par_iter_mut())
            .for_each(|((o, mi), count)| {
                fn find(l: &[i32], mut a: usize) -> usize {
                    while l[a] as usize != a {
                        a = l[a] as usize;
                    }
                    a
                }
                let mut l: Vec<i32> = (0..per)
                    .map(|p| if mi[p] != 0 { p as i32 } else { -1 })
                    .collect();
                for p in 0..per {
                    if mi[p] == 0 {
                        continue;
                    }
                    let i = [
                        (p / (self.n[1] * self.n[2])) as i64,
                        ((p / self.n[2]) % self.n[1]) as i64,
                        (p % self.n[2]) as i64,
                    ];
                    for (o, &d) in self.nb.iter().zip(&lin) {
                        let inside = (0..3).all(|a| (0..n[a]).contains(&(i[a] + o[a])));
                        let q = (p as i64 + d) as usize;
                        if !inside || mi[q] == 0 {
                            continue;
                        }
                        let (a, b) = (find(&l, p), find(&l, q));
                        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
                        l[hi] = lo as i32;
                    }
                }
                // A root is its component's first pixel: roots are numbered in raster order,
                // and every other pixel takes its root's number, already given.
                let mut c = 0i32;
                for p in 0..per {
                    o[p] = if l[p] < 0 {
                        0
                    } else {
                        let r = find(&l, p);
                        l[p] = r as i32;
                        if r == p {
                            c += 1;
                            c
                        } else {
                            o[r]
                        }
                    };
                }
                *count = c;
            });
    }
}

impl LibraryCall for Label {
    fn name(&self) -> &str {
        "label"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let total = self.batch * self.per();
        let off = inputs[0].layout.offset;
        let m = &inputs[0].buf.bytes()[off..off + total];
        let o: &mut [i32] = bytemuck::cast_slice_mut(out.bytes_mut());
        self.cpu(m, &mut o[..self.out_len()]);
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let CudaLane { st, stream } = *lane;
        let per = self.per();
        let total = self.batch * per;
        if self.batch == 0 {
            return Ok(());
        }
        let wd = self.words();
        let nwords = self.batch * wd.wpi;
        let nruns = self.batch * wd.bpi;
        // One scratch buffer: the links `lab` (`total`), the root bits and their prefix sums
        // (`nwords` each), the runs' sums (`nruns`).
        let over =
            || Error::InvalidArgument(format!("label: {total} pixels and {nwords} words overflow"));
        let o_bits = total;
        let o_wpre = o_bits.checked_add(nwords).ok_or_else(over)?;
        let o_bsum = o_wpre.checked_add(nwords).ok_or_else(over)?;
        let scratch = o_bsum.checked_add(nruns).ok_or_else(over)?;
        // SAFETY: `label_local` writes every element of `lab` (set or -1) and every word of
        // `bits` (one tile row a word) before `label_merge` and the later kernels read them;
        // `label_wscan` writes every `wpre` word and `bsum` value before `label_bscan` and
        // `label_final` read them.
        let work = unsafe { DevBuf::alloc(st, stream, DType::I32, scratch.max(1)) }?;
        let part = |start: usize, len: usize| ReadBuf::part(&work, DType::I32, start, len);
        let part_w = |start: usize, len: usize| WriteBuf::part(&work, DType::I32, start, len);
        let i = |v: usize| v as i64;
        let (planes, n0, n1, n2) = (
            i(self.batch * self.n[0]),
            i(self.n[0]),
            i(self.n[1]),
            i(self.n[2]),
        );
        let counts = WriteBuf::part(out, DType::I32, total, self.batch)?;
        if per > 0 {
            let m = ReadBuf::part(inputs[0].buf, DType::U8, inputs[0].layout.offset, total)?;
            let labs = SharedBuf::part(&work, DType::I32, 0, total)?;
            let bitw = SharedBuf::part(&work, DType::I32, o_bits, nwords)?;
            // Grid x over a plane's tiles, grid y over the planes.
            let tiles = (
                self.n[1].div_ceil(TILE) * self.n[2].div_ceil(TILE),
                self.batch * self.n[0],
            );
            let local = LocalArgs {
                m,
                lab: labs,
                bits: bitw,
                nbm: self.nb_mask(),
                planes,
                n0,
                n1,
                n2,
                wpr: i(wd.wpr),
            };
            Self::launch(st, lane, "label_local", tiles, &local)?;
            // Neighbours in other planes make every pixel of a tile a candidate; else only the
            // pixels on its first row, first column and last column have neighbours outside.
            let all = self.n[0] > 1 && self.nb.iter().any(|o| o[0] != 0);
            if !self.nb.is_empty() {
                let merge = MergeArgs {
                    m,
                    lab: labs,
                    bits: bitw,
                    nbm: self.nb_mask(),
                    planes,
                    n0,
                    n1,
                    n2,
                    wpr: i(wd.wpr),
                    all: i64::from(all),
                };
                Self::launch(st, lane, "label_merge", tiles, &merge)?;
            }
        }
        let wscan = WscanArgs {
            bits: part(o_bits, nwords)?,
            wpre: part_w(o_wpre, nwords)?,
            bsum: part_w(o_bsum, nruns)?,
            batch: i(self.batch),
            wpi: i(wd.wpi),
            bpi: i(wd.bpi),
        };
        if nruns > 0 {
            Self::launch(st, lane, "label_wscan", (nruns, 1), &wscan)?;
        }
        let bscan = BscanArgs {
            bsum: part_w(o_bsum, nruns)?,
            counts,
            batch: i(self.batch),
            bpi: i(wd.bpi),
        };
        Self::launch(st, lane, "label_bscan", (self.batch, 1), &bscan)?;
        if per > 0 {
            let fin = FinalArgs {
                lab: part(0, total)?,
                bits: part(o_bits, nwords)?,
                wpre: part(o_wpre, nwords)?,
                bpre: part(o_bsum, nruns)?,
                out: WriteBuf::part(out, DType::I32, 0, total)?,
                batch: i(self.batch),
                per: i(per),
                n2,
                wpr: i(wd.wpr),
                wpi: i(wd.wpi),
                bpi: i(wd.bpi),
            };
            let gx = per.div_ceil(THREADS);
            Self::launch(st, lane, "label_final", (gx, self.batch), &fin)?;
        }
        drop(work);
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        [
            "label_local",
            "label_merge",
            "label_wscan",
            "label_bscan",
            "label_final",
        ]
        .iter()
        .map(|e| Self::kernel(e).source)
        .collect()
    }
}
