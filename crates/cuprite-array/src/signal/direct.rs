//! The direct convolution as one library call: a kernel and its CPU twin on rayon, both
//! summing every output over the taps in the same order (kernel lines outermost, then the taps
//! of a line in ascending order) and rounding alike (the tiled kernel fuses each tap's multiply
//! and add, the line kernel does not), in the precision of the data (`f32`, `f64`). Two kernels
//! share one typed description: `tiled.cu` for planes convolved over two axes with a small
//! kernel (see [`Tiled`]), `direct.cu` (one output line a tile) for everything else.

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
    /// each; the kernel splits tile indices into plane, row and column in 32 bits). Vectors where the row lengths allow them; [`Tiled::unaligned`] turns them off
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

    /// The tiled form of this call, where it applies.
    fn tiled(&self) -> Option<Tiled> {
        Tiled::of(&self.geom, self.dtype.size())
    }

    /// The kernel for this call: the tiled one where it applies (with vectors where the row
    /// lengths allow them), else the line kernel.
    pub(crate) fn kernel(&self) -> KernelSource {
        match self.tiled() {
            Some(t) => self.tiled_kernel(t),
            None => self.line_kernel(),
        }
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

    fn key(&self, tiled: Option<Tiled>) -> u64 {
        let mut h = KeyHasher(0xc04e_0000);
        "conv_direct".hash(&mut h);
        self.dtype.code().hash(&mut h);
        tiled.hash(&mut h);
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
        let tiled = self.tiled().map(|t| {
            if at16(inputs[0].buf.ptr(), inputs[0].layout.offset) && at16(out.ptr(), 0) {
                t
            } else {
                t.unaligned()
            }
        });
        let k = crate::jit::library_kernel(st, self.key(tiled), || match tiled {
            Some(t) => self.tiled_kernel(t),
            None => self.line_kernel(),
        })?;
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
        let (grid, threads) = match tiled {
            // One block a tile (at most `i32::MAX`, as `Tiled::of` checked), or the resident
            // persistent blocks: every tile does the same work.
            Some(t) => (
                t.blocks(t.tiles(&g)?, (st.sms * k.blocks_per_sm) as u64)
                    .clamp(1, i32::MAX as u64) as u32,
                t.threads(),
            ),
            None => {
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
        // aligned and covers elements of that row alone.
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
