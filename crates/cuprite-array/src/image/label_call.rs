//! The connected-component roots of a batch of binary volumes as one library call: three
//! union-find kernels (`label.cu`) and the sequential CPU twin, both giving every set pixel the
//! index (inside its image) of its component's first pixel in raster order, -1 elsewhere.

use crate::codegen::{KernelParams, KernelSource, ReadBuf, SharedBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::runtime::DeviceState;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Threads a block.
const THREADS: usize = 256;

kernel_params! {
    /// Every set pixel its own root (see `label.cu`).
    pub(super) struct InitArgs<'a> {
        m: ReadBuf<'a> as "unsigned char",
        lab: SharedBuf<'a> as "int",
        batch: i64,
        per: i64,
    }
}

kernel_params! {
    /// The unions of every set pixel with its set earlier neighbours.
    pub(super) struct MergeArgs<'a> {
        m: ReadBuf<'a> as "unsigned char",
        lab: SharedBuf<'a> as "int",
        nb: ReadBuf<'a> as "i64t",
        nnb: i64,
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
    }
}

kernel_params! {
    /// Every set pixel pointed at its root.
    pub(super) struct CompressArgs<'a> {
        lab: SharedBuf<'a> as "int",
        batch: i64,
        per: i64,
    }
}

/// The roots (`i32`) of the components of input 0 (`u8`, 0 or 1, `batch` volumes of extents
/// `n`) under the neighbour offsets `nb` (input 1: four `i64` words each, every offset earlier
/// in raster order than the pixel).
#[derive(Debug)]
pub(crate) struct LabelRoots {
    pub batch: usize,
    pub n: [usize; 3],
    pub nb: Vec<[i64; 3]>,
}

impl LabelRoots {
    fn per(&self) -> usize {
        self.n.iter().product()
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = inputs.len() == 2
            && inputs[0].dtype == DType::U8
            && crate::shape::numel(inputs[0].shape) == self.batch * self.per()
            && crate::shape::numel(inputs[1].shape) == 4 * self.nb.len()
            && self.per() <= i32::MAX as usize;
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
        let entry_text = match entry {
            "label_init" => crate::codegen::entry::<InitArgs>(&name, &THREADS.to_string(), entry),
            "label_merge" => crate::codegen::entry::<MergeArgs>(&name, &THREADS.to_string(), entry),
            _ => crate::codegen::entry::<CompressArgs>(&name, &THREADS.to_string(), entry),
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
        total: usize,
        params: &P,
    ) -> Result<()> {
        let mut h = KeyHasher(0x1a9e_1000);
        entry.hash(&mut h);
        let k = crate::jit::library_kernel(st, h.finish(), || Self::kernel(entry))?;
        let resident = (st.sms * k.blocks_per_sm).max(1) as u64 * 4;
        let grid = (total.div_ceil(THREADS) as u64).clamp(1, resident.min(i32::MAX as u64)) as u32;
        let a = params.args();
        // SAFETY: `m` and `lab` hold `batch * n0 * n1 * n2` elements and `nb` four words a
        // neighbour (ranges checked inside their allocations); each pass indexes them below
        // those counts (a neighbour only after its coordinates are checked inside the
        // volume), and `lab` holds only -1 or indices inside its own image once `label_init`
        // has run, so every pointer chase stays inside the image.
        unsafe {
            lane.stream.launch_packed(
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

    /// The CPU twin: union by smaller root, one image a task.
    fn cpu(&self, m: &[u8], lab: &mut [i32]) {
        let per = self.per();
        let n = self.n.map(|v| v as i64);
        let lin: Vec<i64> = self
            .nb
            .iter()
            .map(|o| (o[0] * n[1] + o[1]) * n[2] + o[2])
            .collect();
        lab.par_chunks_mut(per)
            .zip(m.par_chunks(per))
            .for_each(|(l, mi)| {
                fn find(l: &[i32], mut a: usize) -> usize {
                    while l[a] as usize != a {
                        a = l[a] as usize;
                    }
                    a
                }
                for p in 0..per {
                    l[p] = if mi[p] != 0 { p as i32 } else { -1 };
                }
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
                        let (a, b) = (find(l, p), find(l, q));
                        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
                        l[hi] = lo as i32;
                    }
                }
                for p in 0..per {
                    if l[p] >= 0 {
                        l[p] = find(l, p) as i32;
                    }
                }
            });
    }
}

impl LibraryCall for LabelRoots {
    fn name(&self) -> &str {
        "label"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let total = self.batch * self.per();
        if total == 0 {
            return Ok(());
        }
        let off = inputs[0].layout.offset;
        let m = &inputs[0].buf.bytes()[off..off + total];
        let o: &mut [i32] = bytemuck::cast_slice_mut(out.bytes_mut());
        self.cpu(m, &mut o[..total]);
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let st = lane.st;
        let total = self.batch * self.per();
        if total == 0 {
            return Ok(());
        }
        let m = ReadBuf::part(inputs[0].buf, DType::U8, inputs[0].layout.offset, total)?;
        let nb = ReadBuf::part(
            inputs[1].buf,
            DType::I64,
            inputs[1].layout.offset,
            4 * self.nb.len(),
        )?;
        let lab = SharedBuf::all(out)?;
        let i = |v: usize| v as i64;
        let (batch, per) = (i(self.batch), i(self.per()));
        let init = InitArgs { m, lab, batch, per };
        Self::launch(st, lane, "label_init", total, &init)?;
        if !self.nb.is_empty() {
            let merge = MergeArgs {
                m,
                lab,
                nb,
                nnb: i(self.nb.len()),
                batch,
                n0: i(self.n[0]),
                n1: i(self.n[1]),
                n2: i(self.n[2]),
            };
            Self::launch(st, lane, "label_merge", total, &merge)?;
        }
        let compress = CompressArgs { lab, batch, per };
        Self::launch(st, lane, "label_compress", total, &compress)
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        ["label_init", "label_merge", "label_compress"]
            .iter()
            .map(|e| Self::kernel(e).source)
            .collect()
    }
}
