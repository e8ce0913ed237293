//! The direct convolution as one library call: a kernel and its CPU twin on rayon, both
//! summing every output over the taps in the same order (kernel lines outermost, then the taps
//! of a line in ascending order) and rounding alike (the tiled kernel fuses each tap's multiply
//! and add, the line kernel does not), in the precision of the data (`f32`, `f64`). Three
//! kernels share one typed description: `rolled.cu` for `f32` planes convolved over two axes
//! with a kernel of at most 7 x 7 (see [`Rolled`]), `tiled.cu` for the other planes convolved
//! over two axes with a small kernel (see [`Tiled`]), `direct.cu` (one output line a tile) for
//! everything else.

use super::geom::Geom;
use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

/// Threads a block.
const THREADS: usize = 128;
/// Outputs a thread.
const PER: usize = 8;
/// Taps staged in shared memory at a time.
const TAPS: usize = 1024;

/// Threads across a tile of `tiled.cu` (`CT_BX`).
const CT_BX: usize = 32;
/// Bytes of a vector of `tiled.cu` (`V`: `float4` or `double2`).
const CT_VBYTES: usize = 16;
/// The largest kernel extent along each of the two axes that `tiled.cu` takes: its loops are
/// unrolled over every tap.
const TILED_MAX_M: usize = 16;
/// The static shared memory a block of `tiled.cu` may use.
const TILED_SHARED: usize = 48 * 1024;
/// The registers of an SM, which the launch bounds of `tiled.cu` share out.
const SM_REGISTERS: usize = 65536;

/// Lanes across a strip of `rolled.cu` (one warp).
const RV_LANES: usize = 32;
/// The largest kernel extent along each of the two axes that `rolled.cu` takes (its
/// accumulators and taps live in registers).
const ROLLED_MAX_M: usize = 7;
/// Consecutive outputs a thread of `rolled.cu` along a row (`RV_W`).
const RV_W: usize = 4;
/// Output rows a thread of `rolled.cu` (`RV_H`): at least `ROLLED_MAX_M - 1`.
const RV_H: usize = 13;
/// Warps a block of `rolled.cu` (`RV_WARPS`), stacked down the rows.
const RV_WARPS: usize = 4;
/// The blocks an SM the launch bounds of `rolled.cu` ask for (caps its registers).
const RV_MIN_BLOCKS: usize = 3;
/// Whether `rolled.cu` reads its taps from shared memory at each use (`RV_STAGE`), else
/// keeps them in registers.
const RV_STAGE: bool = false;
/// The steps `rolled.cu` loads a window ahead of its use (`RV_PF`).
const RV_PF: usize = 1;

/// Whether CUDA devices run the calls that `rolled.cu` takes on it (else on `tiled.cu`).
static ROLLED_ON: AtomicBool = AtomicBool::new(true);

/// Runs the direct 2-D convolutions that the rolled kernel takes (`f32` planes convolved over
/// two axes with a kernel of at most 7 x 7) on it (`true`, the default), or on the tiled
/// kernel that takes every plane with a kernel of at most 16 x 16 (`false`), for the whole
/// process. Both compute the same values (the same sums in the same order, each tap fused
/// into its accumulator). For comparing the two and testing both. The CPU backend is not
/// affected.
///
/// ```
/// use cuprite_array::tuning;
/// tuning::set_conv_rolled(false); // the tiled kernel from here on
/// assert!(!tuning::conv_rolled());
/// tuning::set_conv_rolled(true);
/// ```
pub fn set_conv_rolled(on: bool) {
    ROLLED_ON.store(on, Ordering::Relaxed);
}

/// Whether the rolled kernel of the direct 2-D convolution is on ([`set_conv_rolled`]).
///
/// ```
/// assert!(cuprite_array::tuning::conv_rolled());
/// ```
pub fn conv_rolled() -> bool {
    ROLLED_ON.load(Ordering::Relaxed)
}

/// The rolled form of a call (`rolled.cu`): each thread walks `h` output rows of `w`
/// consecutive columns of one plane, keeping its kernel in registers and one accumulator row
/// a kernel row (reused as outputs end), reading each input row it reaches straight from
/// global memory; a block holds `warps` warps stacked down the rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Rolled {
    pub m1: usize,
    pub m2: usize,
    /// Consecutive outputs a thread along a row (`RV_W`), whole vectors.
    pub w: usize,
    /// Output rows a thread (`RV_H`), at least `m1 - 1`.
    pub h: usize,
    /// Warps a block (`RV_WARPS`).
    pub warps: usize,
    /// The blocks an SM the launch bounds ask for.
    pub min_blocks: usize,
    /// Taps read from shared memory at each use (`RV_STAGE`), else held in registers.
    pub stage: bool,
    /// Steps a window is loaded ahead of its use (`RV_PF`), at least 1.
    pub pf: usize,
    /// `s2 - (m2 - 1)` modulo the values a vector (`RV_D`): window column 0 is then aligned.
    pub d: usize,
    /// Rows of `x` and `y` are read and written as 16-byte vectors (`RV_VEC`), as for
    /// [`Tiled::vec`].
    pub vec: bool,
}

impl Rolled {
    /// The rolled form of `g` in elements of `size` bytes, where it applies and is on
    /// ([`set_conv_rolled`]): `f32`, a plane form of `tiled.cu` (so that the CPU twin's
    /// fused sums are the ones it computes too) with a kernel of at most
    /// [`ROLLED_MAX_M`] along both axes, and at most `i32::MAX` blocks.
    pub(crate) fn of(g: &Geom, size: usize) -> Option<Rolled> {
        if !conv_rolled() || size != 4 {
            return None;
        }
        let t = Tiled::of(g, size)?;
        if t.m1 > ROLLED_MAX_M || t.m2 > ROLLED_MAX_M {
            return None;
        }
        let r = Rolled {
            m1: t.m1,
            m2: t.m2,
            w: RV_W,
            h: RV_H,
            warps: RV_WARPS,
            min_blocks: RV_MIN_BLOCKS,
            stage: RV_STAGE,
            pf: RV_PF,
            d: t.d,
            vec: t.vec,
        };
        r.blocks(g).ok().filter(|&n| n <= i32::MAX as u64)?;
        Some(r)
    }

    /// This form with scalar reads and writes of the rows.
    fn unaligned(self) -> Rolled {
        Rolled { vec: false, ..self }
    }

    /// Threads a block.
    fn threads(&self) -> usize {
        RV_LANES * self.warps
    }

    /// Blocks of a launch, one a strip of `32 w` columns and `warps h` rows of a plane,
    /// checked against overflow.
    fn blocks(&self, g: &Geom) -> Result<u64> {
        let [a0, a1, a2] = g.ax;
        [
            g.batch,
            a0.n,
            a1.l.div_ceil(self.h * self.warps),
            a2.l.div_ceil(RV_LANES * self.w),
        ]
        .into_iter()
        .try_fold(1u64, |acc, v| acc.checked_mul(v as u64))
        .ok_or_else(|| Error::InvalidArgument(format!("the blocks of {g:?} overflow")))
    }
}

/// `constexpr int` definitions of `defs`, one a line.
fn constants(defs: &[(&str, usize)]) -> String {
    defs.iter()
        .map(|(k, v)| format!("constexpr int {k} = {v};\n"))
        .collect()
}

/// The kernel of a call: which of the three forms, with its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Form {
    Rolled(Rolled),
    Tiled(Tiled),
    Line,
}

/// The tiled form of a call: kernel extents `m1 x m2` (compile-time in `tiled.cu`), the tile
/// shape, the staged column offset and whether rows are read and written as vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Tiled {
    pub m1: usize,
    pub m2: usize,
    /// Values a 16-byte vector (`CT_VL`).
    pub vl: usize,
    /// Threads down a tile (`CT_BY`).
    pub by: usize,
    /// Output rows a thread (`CT_RY`).
    pub ry: usize,
    /// Column groups of `vl` outputs a thread (`CT_G`).
    pub g: usize,
    /// Blocks loop over the tiles, loading the next one while they compute one
    /// (`CT_PERSIST`); else one block a tile.
    pub persist: bool,
    /// `s2 - (m2 - 1)` modulo `vl` (`CT_D`): staged column 0 is then `vl`-aligned.
    pub d: usize,
    /// Rows of `x` and `y` are read and written as 16-byte vectors (`CT_VEC`): both row
    /// lengths hold whole vectors and both buffers start 16-byte aligned.
    pub vec: bool,
}

impl Tiled {
    /// Outputs a tile: rows, columns.
    fn tile(&self) -> (usize, usize) {
        (self.by * self.ry, CT_BX * self.vl * self.g)
    }

    /// Staged columns a row, rounded up to whole vectors (`CT_HX`).
    fn staged_cols(&self) -> usize {
        (self.d + self.tile().1 + self.m2 - 1).next_multiple_of(self.vl)
    }

    /// The bytes of shared memory a block uses for elements of `size` bytes: the staged
    /// input (`CT_HY` rows of `CT_HX`) and the taps (`m1` rows padded to whole vectors), as
    /// `tiled.cu` lays them out.
    fn shared_bytes(&self, size: usize) -> usize {
        let hy = self.tile().0 + self.m1 - 1;
        (hy * self.staged_cols() + self.m1 * self.m2.next_multiple_of(self.vl)) * size
    }

    /// The blocks an SM the launch bounds ask for, from the 32-bit registers a thread holds
    /// at once: its accumulators, one window of staged values a group, the taps (one row of
    /// them; a row for each of its output rows when rows are longer than 8, which the compiler
    /// loads ahead), the next tile's staged vectors when persistent, and 16 for addresses. An
    /// estimate that the spill-free compiles of the forms `of` picks bear out: too high a
    /// count makes the compiler spill.
    fn min_blocks(&self, size: usize) -> usize {
        let words = size / 4;
        let window = (self.d + self.vl + self.m2 - 1).next_multiple_of(self.vl);
        let row = self.m2.next_multiple_of(self.vl);
        let taps = if row > 8 { self.ry * row } else { row };
        let staged = (self.tile().0 + self.m1 - 1) * self.staged_cols() / self.vl;
        let next = if self.persist {
            staged.div_ceil(self.threads()) * self.vl
        } else {
            0
        };
        let regs = words * (self.g * self.ry * self.vl + self.g * window + taps + next) + 16;
        (SM_REGISTERS / (self.threads() * regs)).clamp(1, 4)
    }

    /// The tiled form of `g` in elements of `size` bytes, where it applies: a kernel of length
    /// 1 along the outermost axis (which then folds into the batch), at most [`TILED_MAX_M`]
    /// along the other two, at least two output rows (else most of a tile would idle), a tile
    /// of some height that fits the shared memory, and at most `i32::MAX` tiles (one block
    /// each). Vectors where the row lengths allow them; [`Tiled::unaligned`] turns them off
    /// for buffers that do not start 16-byte aligned. The shape: `f32` with kernels of at
    /// most 7 x 7 takes eight rows of one group a thread in persistent blocks (the fastest of
    /// the forms tried on a 7 x 7 kernel); the rest four rows of two groups, one block a tile
    /// (a persistent block's prefetched tile would crowd the registers of larger kernels and
    /// of `f64` into spills).
    pub(crate) fn of(g: &Geom, size: usize) -> Option<Tiled> {
        let [a0, a1, a2] = g.ax;
        if a0.m != 1 || a1.m > TILED_MAX_M || a2.m > TILED_MAX_M || a1.l < 2 {
            return None;
        }
        let vl = CT_VBYTES / size;
        let d = (a2.s as i64 - (a2.m as i64 - 1)).rem_euclid(vl as i64) as usize;
        let small = size == 4 && a1.m <= 7 && a2.m <= 7;
        let t = [8, 4, 2, 1]
            .into_iter()
            .map(|by| Tiled {
                m1: a1.m,
                m2: a2.m,
                vl,
                by,
                ry: if small { 8 } else { 4 },
                g: if small { 1 } else { 2 },
                persist: small,
                d,
                vec: a2.n % vl == 0 && a2.l % vl == 0,
            })
            .find(|t| t.shared_bytes(size) <= TILED_SHARED)?;
        t.tiles(g).ok().filter(|&n| n <= i32::MAX as u64)?;
        Some(t)
    }

    /// This form with scalar reads and writes of the rows.
    fn unaligned(self) -> Tiled {
        Tiled { vec: false, ..self }
    }

    /// Threads a block.
    fn threads(&self) -> usize {
        CT_BX * self.by
    }

    /// Blocks of a launch for `tiles` tiles: one a tile, or for persistent blocks the
    /// `resident` ones (at most one a tile).
    fn blocks(&self, tiles: u64, resident: u64) -> u64 {
        if self.persist {
            tiles.min(resident.max(1))
        } else {
            tiles
        }
    }

    /// Tiles of `g` (every plane's), checked against overflow.
    fn tiles(&self, g: &Geom) -> Result<u64> {
        let (ty, tx) = self.tile();
        let [a0, a1, a2] = g.ax;
        [g.batch, a0.n, a1.l.div_ceil(ty), a2.l.div_ceil(tx)]
            .into_iter()
            .try_fold(1u64, |acc, v| acc.checked_mul(v as u64))
            .ok_or_else(|| Error::InvalidArgument(format!("the tiles of {g:?} overflow")))
    }
}

kernel_params! {
    /// The direct convolution of `batch` signals (see `geom.rs` for the indices).
    pub(super) struct ConvArgs<'a> {
        x: ReadBuf<'a> as "T",
        h: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        m0: i64,
        m1: i64,
        m2: i64,
        s0: i64,
        s1: i64,
        s2: i64,
        l0: i64,
        l1: i64,
        l2: i64,
    }
}

/// The direct convolution of input 0 (`x`, shape `geom.x_shape()`) with input 1 (`h`, shape
/// `geom.h_shape()`), both of `dtype` (`f32` or `f64`), into `geom.y_shape()`.
#[derive(Debug)]
pub(crate) struct ConvDirect {
    pub dtype: DType,
    pub geom: Geom,
}

/// The C type of a dtype the call computes in.
fn cty(d: DType) -> &'static str {
    if d == DType::F64 { "double" } else { "float" }
}

impl ConvDirect {
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let g = &self.geom;
        let ok = matches!(self.dtype, DType::F32 | DType::F64)
            && inputs.len() == 2
            && inputs.iter().all(|i| i.dtype == self.dtype)
            && numel(inputs[0].shape) == numel(&g.x_shape())
            && numel(inputs[1].shape) == numel(&g.h_shape());
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the direct convolution made for {:?} of {} was given {:?}",
                g,
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The form of this call: the rolled one where it applies, else the tiled one where it
    /// applies (each with vectors where the row lengths allow them), else the line kernel.
    fn form(&self) -> Form {
        let size = self.dtype.size();
        if let Some(r) = Rolled::of(&self.geom, size) {
            Form::Rolled(r)
        } else if let Some(t) = Tiled::of(&self.geom, size) {
            Form::Tiled(t)
        } else {
            Form::Line
        }
    }

    /// The kernel for this call's form.
    pub(crate) fn kernel(&self) -> KernelSource {
        self.form_kernel(self.form())
    }

    /// The kernel of form `f`.
    fn form_kernel(&self, f: Form) -> KernelSource {
        match f {
            Form::Rolled(r) => self.rolled_kernel(r),
            Form::Tiled(t) => self.tiled_kernel(t),
            Form::Line => self.line_kernel(),
        }
    }

    /// The rolled kernel of `r` (`f32`).
    fn rolled_kernel(&self, r: Rolled) -> KernelSource {
        let name = format!(
            "cuprite_conv_rolled_{}_{}x{}_w{}h{}k{}b{}s{}p{}_d{}{}",
            self.dtype.name(),
            r.m1,
            r.m2,
            r.w,
            r.h,
            r.warps,
            r.min_blocks,
            r.stage as u8,
            r.pf,
            r.d,
            if r.vec { "_v" } else { "" },
        );
        let header = [
            "typedef long long i64t;\ntypedef float T;\ntypedef float4 V;\n".to_string(),
            constants(&[
                ("RV_VL", CT_VBYTES / 4),
                ("RV_M1", r.m1),
                ("RV_M2", r.m2),
                ("RV_W", r.w),
                ("RV_H", r.h),
                ("RV_WARPS", r.warps),
                ("RV_D", r.d),
                ("RV_VEC", r.vec as usize),
                ("RV_STAGE", r.stage as usize),
                ("RV_PF", r.pf),
            ]),
        ]
        .concat();
        let bounds = format!("{}, {}", r.threads(), r.min_blocks);
        let text = [
            header.as_str(),
            include_str!("rolled.cu"),
            crate::codegen::MARKER,
            &crate::codegen::entry::<ConvArgs>(&name, &bounds, "conv_rolled"),
        ]
        .concat();
        KernelSource::new(name, text)
    }

    /// The tiled kernel of `t` for this call's dtype.
    fn tiled_kernel(&self, t: Tiled) -> KernelSource {
        let size = self.dtype.size();
        let name = format!(
            "cuprite_conv_tiled_{}_{}x{}_b{}r{}g{}_d{}{}{}",
            self.dtype.name(),
            t.m1,
            t.m2,
            t.by,
            t.ry,
            t.g,
            t.d,
            if t.vec { "_v" } else { "" },
            if t.persist { "_p" } else { "" }
        );
        let header = format!(
            "typedef long long i64t;\ntypedef {} T;\ntypedef {} V;\nconstexpr int CT_VL = {};\n\
             constexpr int CT_M1 = {};\nconstexpr int CT_M2 = {};\nconstexpr int CT_BY = {};\n\
             constexpr int CT_RY = {};\nconstexpr int CT_G = {};\nconstexpr int CT_D = {};\n\
             constexpr int CT_VEC = {};\nconstexpr int CT_PERSIST = {};\n",
            cty(self.dtype),
            if self.dtype == DType::F64 {
                "double2"
            } else {
                "float4"
            },
            t.vl,
            t.m1,
            t.m2,
            t.by,
            t.ry,
            t.g,
            t.d,
            t.vec as u8,
            t.persist as u8,
        );
        let bounds = format!("{}, {}", t.threads(), t.min_blocks(size));
        let text = format!(
            "{header}{}{}{}",
            include_str!("tiled.cu"),
            crate::codegen::MARKER,
            crate::codegen::entry::<ConvArgs>(&name, &bounds, "conv_tiled")
        );
        KernelSource::new(name, text)
    }

    /// The line kernel for this call's dtype.
    fn line_kernel(&self) -> KernelSource {
        let name = format!("cuprite_conv_direct_{}", self.dtype.name());
        let header = format!(
            "typedef long long i64t;\ntypedef {} T;\nconstexpr int CONV_THREADS = {THREADS};\n\
             constexpr int CONV_PER = {PER};\nconstexpr int CONV_TAPS = {TAPS};\n",
            cty(self.dtype)
        );
        let text = format!(
            "{header}{}{}{}",
            include_str!("direct.cu"),
            crate::codegen::MARKER,
            crate::codegen::entry::<ConvArgs>(&name, &THREADS.to_string(), "conv_direct")
        );
        KernelSource::new(name, text)
    }

    fn key(&self, form: Form) -> u64 {
        let mut h = KeyHasher(0xc04e_0000);
        "conv_direct".hash(&mut h);
        self.dtype.code().hash(&mut h);
        form.hash(&mut h);
        h.finish()
    }

    fn cpu<R: CpuReal>(&self, x: &[R], h: &[R], y: &mut [R]) {
        let g = self.geom;
        // The tiled kernel fuses each tap into its accumulator (rounded once), the line
        // kernel multiplies and adds (`--fmad=false`): the twin rounds as the kernel it
        // stands for.
        let fused = Tiled::of(&g, std::mem::size_of::<R>()).is_some();
        let [a0, a1, a2] = g.ax;
        y.par_chunks_mut(a2.l.max(1))
            .enumerate()
            .for_each(|(line, out)| {
                let k1 = line % a1.l;
                let r = line / a1.l;
                let (k0, b) = (r % a0.l, r / a0.l);
                out.iter_mut().for_each(|v| *v = R::ZERO);
                for j0 in 0..a0.m {
                    let Some(i0) = (k0 + a0.s).checked_sub(j0).filter(|&i| i < a0.n) else {
                        continue;
                    };
                    for j1 in 0..a1.m {
                        let Some(i1) = (k1 + a1.s).checked_sub(j1).filter(|&i| i < a1.n) else {
                            continue;
                        };
                        let xr = &x[((b * a0.n + i0) * a1.n + i1) * a2.n..][..a2.n];
                        let hr = &h[(j0 * a1.m + j1) * a2.m..][..a2.m];
                        for (k2, o) in out.iter_mut().enumerate() {
                            let mut acc = *o;
                            for (j2, &hv) in hr.iter().enumerate() {
                                if let Some(i2) = (k2 + a2.s).checked_sub(j2).filter(|&i| i < a2.n)
                                {
                                    acc = if fused {
                                        hv.mul_add(xr[i2], acc)
                                    } else {
                                        acc + hv * xr[i2]
                                    };
                                }
                            }
                            *o = acc;
                        }
                    }
                }
            });
    }
}

/// The element types the CPU twin sums in.
trait CpuReal:
    Copy + Send + Sync + bytemuck::Pod + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    const ZERO: Self;
    /// `self * b + c` rounded once.
    fn mul_add(self, b: Self, c: Self) -> Self;
}
impl CpuReal for f32 {
    const ZERO: f32 = 0.0;
    fn mul_add(self, b: f32, c: f32) -> f32 {
        f32::mul_add(self, b, c)
    }
}
impl CpuReal for f64 {
    const ZERO: f64 = 0.0;
    fn mul_add(self, b: f64, c: f64) -> f64 {
        f64::mul_add(self, b, c)
    }
}

/// The `len` contiguous elements of a realised device input from its offset.
fn part<'a>(x: &CallInput<'a, DevBuf>, d: DType, len: usize) -> Result<ReadBuf<'a>> {
    ReadBuf::part(x.buf, d, x.layout.offset, len)
}

/// The `len` contiguous elements of a realised host input from its offset.
fn host<'a, R: CpuReal>(x: &CallInput<'a, HostBuf>, len: usize) -> &'a [R] {
    let v: &[R] = bytemuck::cast_slice(x.buf.bytes());
    &v[x.layout.offset..x.layout.offset + len]
}

impl LibraryCall for ConvDirect {
    fn name(&self) -> &str {
        "convolve"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let g = self.geom;
        let (nx, nh, ny) = (
            numel(&g.x_shape()),
            numel(&g.h_shape()),
            numel(&g.y_shape()),
        );
        if self.dtype == DType::F64 {
            let o: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
            self.cpu(host(&inputs[0], nx), host(&inputs[1], nh), &mut o[..ny]);
        } else {
            let o: &mut [f32] = bytemuck::cast_slice_mut(out.bytes_mut());
            self.cpu(host(&inputs[0], nx), host(&inputs[1], nh), &mut o[..ny]);
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
        let g = self.geom;
        let ny = numel(&g.y_shape());
        if ny == 0 {
            return Ok(());
        }
        // Vectors only where both buffers start 16-byte aligned (the row lengths were
        // checked by `Tiled::of`).
        let at16 = |ptr: u64, off: usize| {
            ptr.wrapping_add((off * self.dtype.size()) as u64) % CT_VBYTES as u64 == 0
        };
        let aligned = at16(inputs[0].buf.ptr(), inputs[0].layout.offset) && at16(out.ptr(), 0);
        let form = match self.form() {
            Form::Rolled(r) if !aligned => Form::Rolled(r.unaligned()),
            Form::Tiled(t) if !aligned => Form::Tiled(t.unaligned()),
            f => f,
        };
        let k = crate::jit::library_kernel(st, self.key(form), || self.form_kernel(form))?;
        let [a0, a1, a2] = g.ax;
        let i = |v: usize| v as i64;
        let params = ConvArgs {
            x: part(&inputs[0], self.dtype, numel(&g.x_shape()))?,
            h: part(&inputs[1], self.dtype, numel(&g.h_shape()))?,
            y: WriteBuf::part(out, self.dtype, 0, ny)?,
            batch: i(g.batch),
            n0: i(a0.n),
            n1: i(a1.n),
            n2: i(a2.n),
            m0: i(a0.m),
            m1: i(a1.m),
            m2: i(a2.m),
            s0: i(a0.s),
            s1: i(a1.s),
            s2: i(a2.s),
            l0: i(a0.l),
            l1: i(a1.l),
            l2: i(a2.l),
        };
        let (grid, threads) = match form {
            // One block a strip of rows and columns (at most `i32::MAX`, as `Rolled::of`
            // checked).
            Form::Rolled(r) => (r.blocks(&g)?.clamp(1, i32::MAX as u64) as u32, r.threads()),
            // One block a tile (at most `i32::MAX`, as `Tiled::of` checked), or the resident
            // persistent blocks: every tile does the same work.
            Form::Tiled(t) => (
                t.blocks(t.tiles(&g)?, (st.sms * k.blocks_per_sm) as u64)
                    .clamp(1, i32::MAX as u64) as u32,
                t.threads(),
            ),
            Form::Line => {
                let tiles = (g.batch * a0.l * a1.l) as u64 * a2.l.div_ceil(THREADS * PER) as u64;
                let resident = (st.sms * k.blocks_per_sm).max(1) as u64 * 4;
                (
                    tiles.clamp(1, resident.min(i32::MAX as u64)) as u32,
                    THREADS,
                )
            }
        };
        let a = params.args();
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`) of the element counts the geometry gives (`x_shape`, `h_shape`,
        // `y_shape`, whose products were checked); either kernel reads `x` only at indices
        // inside `[0, n)` along each axis, `h` inside `[0, m)`, and writes `y` only below `l`
        // (the tiled one is chosen only for `m0 == 1`, where its plane index `b * n0 + k0`
        // spans `x` and `y` alike, and is built for this call's `m1`, `m2`). The tiled
        // kernel's 16-byte vectors are built only where both buffers start 16-byte aligned
        // and the row lengths `n2`, `l2` hold whole vectors: a vector starts at a column that
        // is a multiple of its width, inside a row (reads only for a staged block that lies
        // inside the plane, writes only where the whole vector lies below `l2`), so it is
        // aligned and covers elements of that row alone. The rolled kernel (also `m0 == 1`,
        // built for this call's `m1`, `m2`, vectors under the same conditions) reads a row
        // only for `0 <= a < n1` and a value or vector only where it lies inside `[0, n2)`
        // (checked for each thread, or for a whole warp whose every window lies inside the
        // plane), and writes only rows below `l1` and values or whole vectors below `l2`.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (threads as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}
