//! `approx1`/`approx2` as one library call: a kernel (`approx.cu`) and its CPU twin on rayon,
//! which compute the same arithmetic in the same order (coordinates, taps and weights in the
//! real type of the values, the weights of `image::af_weights`).

use crate::codegen::{KernelParams, KernelSource, MaybeRead, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::image::af_weights::{self, Work};
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Threads a block of the grid-stride form (`approx_run`).
const THREADS: usize = 256;
/// Threads a block of the tiled form (`approx_tiled`).
const TILED_THREADS: usize = 128;
/// Threads across a tile of the tiled form (`APX_WX`): a warp takes `32 / WX` rows of it, a
/// patch of the plane that a smooth warp of the grid maps onto few lines of the image.
const WX: usize = 8;
/// Rows of points a block of the tiled form takes (`APX_RB`).
const RB: usize = TILED_THREADS / WX;
/// Bytes of a vector of positions or outputs in the tiled form (`PV`).
const VBYTES: usize = 16;
/// Points a thread takes in one step of its loop (`APX_PER` of `approx.cu`): their position
/// loads are issued together.
const PER: usize = 2;
/// Points a launch aims to cover with separate threads: shared positions with a large batch
/// are grouped so that about this many points remain.
const POINTS: usize = 1 << 18;

/// How values between samples are taken (ArrayFire's interpolation kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Curve {
    /// The sample at `round(c)`.
    Nearest,
    /// The sample at `floor(c)`.
    Lower,
    /// Linear between `floor(c)` and the next sample.
    Linear,
    /// Linear with the fraction smoothed by `(1 - cos(pi t)) / 2`.
    LinearCosine,
    /// ArrayFire's cubic through four samples.
    Cubic,
    /// Catmull-Rom through four samples.
    CubicSpline,
}

impl Curve {
    fn code(self) -> u8 {
        match self {
            Curve::Nearest => 0,
            Curve::Lower => 1,
            Curve::Linear => 2,
            Curve::LinearCosine => 3,
            Curve::Cubic => 4,
            Curve::CubicSpline => 5,
        }
    }

    fn taps(self) -> usize {
        match self {
            Curve::Nearest | Curve::Lower => 1,
            Curve::Linear | Curve::LinearCosine => 2,
            Curve::Cubic | Curve::CubicSpline => 4,
        }
    }
}

kernel_params! {
    /// The parameters of `approx_run` (see `approx.cu`).
    pub(super) struct ApproxArgs<'a> {
        x: ReadBuf<'a> as "VT",
        p0: ReadBuf<'a> as "REAL",
        p1: MaybeRead<'a> as "REAL",
        y: WriteBuf<'a> as "VT",
        batch: i64,
        group: i64,
        n0: i64,
        n1: i64,
        plane: i64,
        cols: i64,
        units: i64,
        pmagic: u64,
        start0: f64,
        step0: f64,
        inv0: f64,
        start1: f64,
        step1: f64,
        inv1: f64,
        off_re: f64,
        off_im: f64,
    }
}

/// The interpolation of input 0 (`batch` signals of `n[..rank]` values of `real`, or of its
/// complex type when `complex`) at `plane` points a signal, whose positions are input 1 (and
/// input 2 when `rank` is 2), `plane` of `real` when `shared` (the same for every signal),
/// else `batch * plane`. A point whose position is NaN on either axis lies off the grid, as one
/// outside it does: it takes `off`. The output is `batch * plane` values, signal-major.
#[derive(Debug, Clone)]
pub(crate) struct Approx {
    pub real: DType,
    pub complex: bool,
    pub rank: usize,
    pub curve: Curve,
    pub batch: usize,
    /// The extents of a signal (`n[1] = 1` when `rank` is 1).
    pub n: [usize; 2],
    pub plane: usize,
    /// Points a row of the plane (its last extent): `plane / cols` rows in two dimensions.
    pub cols: usize,
    pub shared: bool,
    /// `(start, step)` of each axis: position `q` is at coordinate `(q - start) / step`.
    pub grid: [(f64, f64); 2],
    /// The value off the grid, `(re, im)`.
    pub off: (f64, f64),
}

impl Approx {
    fn width(&self) -> usize {
        1 + self.complex as usize
    }

    fn value_dtype(&self) -> DType {
        match (self.real, self.complex) {
            (DType::F64, true) => DType::C64,
            (_, true) => DType::C32,
            (d, false) => d,
        }
    }

    fn npix(&self) -> usize {
        self.n[0] * self.n[1]
    }

    fn npos(&self) -> usize {
        if self.shared {
            self.plane
        } else {
            self.batch * self.plane
        }
    }

    /// Whether a thread may compute the outputs of several signals from one position (shared
    /// positions in groups of more than one signal: `APX_GROUP`).
    fn grouped(&self) -> bool {
        self.shared && self.group() > 1
    }

    /// Signals whose outputs one thread computes from one position (shared positions only).
    fn group(&self) -> usize {
        if !self.shared || self.plane == 0 {
            return 1;
        }
        let total = self.batch.saturating_mul(self.plane);
        (total / POINTS).clamp(1, self.batch.max(1))
    }

    /// The points the kernel's loop runs over.
    fn units(&self) -> usize {
        if self.shared {
            self.batch.div_ceil(self.group()) * self.plane
        } else {
            self.batch * self.plane
        }
    }

    /// Whether every index the kernel forms (and its loop counter past the last point, `grid`
    /// blocks on, which steps by `PER` times the threads of the launch) fits in 32 bits.
    fn small(&self, grid: usize) -> bool {
        let lim = i32::MAX as usize;
        let past = self
            .units()
            .saturating_add(grid.saturating_mul(THREADS * PER));
        self.batch.saturating_mul(self.npix()) < lim
            && self.batch.saturating_mul(self.plane) < lim
            && past < lim
    }

    /// The blocks of a launch (one thread `PER` points, at most `i32::MAX` blocks).
    fn grid(&self) -> usize {
        self.units()
            .div_ceil(THREADS * PER)
            .clamp(1, i32::MAX as usize)
    }

    /// Points a thread of the tiled form takes (`APX_VEC`): a 16-byte vector of real values
    /// where the rows hold whole vectors, else 1.
    fn vec_width(&self) -> usize {
        let vl = VBYTES / self.real.size();
        if !self.complex && self.cols % vl == 0 {
            vl
        } else {
            1
        }
    }

    /// The blocks of the tiled form with `vec` points a thread (one a tile of `RB` rows of
    /// `WX vec` points, of every slab), where it applies: two dimensions, at least one point,
    /// and at most `i32::MAX` blocks.
    fn tiled_blocks(&self, vec: usize) -> Option<usize> {
        if self.rank != 2 || self.plane == 0 || self.cols == 0 {
            return None;
        }
        let slabs = self.units() / self.plane;
        let rows = self.plane / self.cols;
        rows.div_ceil(RB)
            .checked_mul(self.cols.div_ceil(WX * vec))?
            .checked_mul(slabs)
            .filter(|&b| b <= i32::MAX as usize)
    }

    /// The reciprocal of axis `a`'s step in the real type, when it is exact (the step a power
    /// of two, normal, in that type): the kernel then multiplies by it instead of dividing,
    /// which gives the same correctly rounded coordinate. `None`: the kernel divides.
    fn exact_inv(&self, a: usize) -> Option<f64> {
        let step = self.grid[a].1;
        if self.real == DType::F64 {
            let b = step.to_bits();
            let (exp, frac) = ((b >> 52) & 0x7ff, b & ((1u64 << 52) - 1));
            (frac == 0 && exp != 0 && exp != 0x7ff).then(|| 1.0 / step)
        } else {
            let s = step as f32;
            let b = s.to_bits();
            let (exp, frac) = ((b >> 23) & 0xff, b & ((1u32 << 23) - 1));
            (frac == 0 && exp != 0 && exp != 0xff).then(|| (1.0f32 / s) as f64)
        }
    }

    /// The `APX_DIV0 | APX_DIV1 << 1` bits: the axes whose coordinates divide by the step.
    fn divides(&self) -> u8 {
        let d = |a: usize| (a < self.rank && self.exact_inv(a).is_none()) as u8;
        d(0) | (d(1) << 1)
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let want = 1 + self.rank;
        let pos_ok =
            |i: usize| inputs[i].dtype == self.real && numel(inputs[i].shape) == self.npos();
        let ok = matches!(self.real, DType::F32 | DType::F64)
            && (1..=2).contains(&self.rank)
            && (self.rank == 2 || self.n[1] == 1)
            && inputs.len() == want
            && inputs[0].dtype == self.value_dtype()
            && numel(inputs[0].shape) == self.batch * self.npix()
            && pos_ok(1)
            && (self.rank == 1 || pos_ok(2));
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "approx made for {self:?} was given {:?}",
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The kernel for this call's types, rank, curve and index width, with vectors where the
    /// rows allow them.
    pub(crate) fn kernel(&self) -> KernelSource {
        self.kernel_for(self.vec_width())
    }

    /// The kernel with `vec` points a thread in the tiled form (two dimensions), else the
    /// grid-stride loop (`vec` 1).
    fn kernel_for(&self, vec: usize) -> KernelSource {
        let small = self.small(self.grid());
        let div = self.divides();
        let tiled = self.tiled_blocks(vec).is_some();
        let vec = if tiled { vec } else { 1 };
        let threads = if tiled { TILED_THREADS } else { THREADS };
        let name = format!(
            "cuprite_approx{}_{}{}_k{}{}{}_q{div}{}{}",
            self.rank,
            self.real.name(),
            if self.complex { "_c" } else { "" },
            self.curve.code(),
            if self.shared { "_s" } else { "" },
            if small { "" } else { "_i64" },
            if tiled {
                format!("_t{vec}")
            } else {
                String::new()
            },
            if self.grouped() { "_g" } else { "" },
        );
        let double = self.real == DType::F64;
        let real = if double { "double" } else { "float" };
        let vt = match (self.complex, double) {
            (false, _) => real,
            (true, false) => "float2",
            (true, true) => "double2",
        };
        let header = format!(
            "typedef long long i64t;\ntypedef unsigned long long u64t;\ntypedef {real} REAL;\n\
             typedef {vt} VT;\n#define APX_DOUBLE {}\n#define APX_WIDTH {}\n\
             #define APX_RANK {}\n#define APX_KIND {}\n#define APX_SHARED {}\n\
             #define APX_I32 {}\n#define APX_DIV0 {}\n#define APX_DIV1 {}\n\
             #define APX_PER {PER}\n#define APX_THREADS {threads}\n#define APX_WX {WX}\n\
             #define APX_RB {RB}\n#define APX_GROUP {}\n\
             #define APX_VEC {vec}\ntypedef {} PV;\n",
            double as u8,
            self.width(),
            self.rank,
            self.curve.code(),
            self.shared as u8,
            small as u8,
            div & 1,
            div >> 1,
            self.grouped() as u8,
            if double { "double2" } else { "float4" },
        );
        let body = if tiled { "approx_tiled" } else { "approx_run" };
        let text = format!(
            "{header}{}{}{}{}",
            af_weights::C_SOURCE,
            include_str!("approx.cu"),
            crate::codegen::MARKER,
            crate::codegen::entry::<ApproxArgs>(&name, &threads.to_string(), body)
        );
        KernelSource::new(name, text)
    }

    fn key(&self, vec: usize) -> u64 {
        let mut h = KeyHasher(0xa770_0000);
        "approx".hash(&mut h);
        self.real.code().hash(&mut h);
        self.complex.hash(&mut h);
        self.rank.hash(&mut h);
        self.curve.hash(&mut h);
        self.shared.hash(&mut h);
        self.small(self.grid()).hash(&mut h);
        self.divides().hash(&mut h);
        self.tiled_blocks(vec).is_some().hash(&mut h);
        self.grouped().hash(&mut h);
        vec.hash(&mut h);
        h.finish()
    }
}

/// `ceil(2^64 / d)`, the multiplier with which `apx_quot` divides a 32-bit `u` by `d` (the
/// high word of `u * magic`, exact for every `u < 2^32` and `2 <= d < 2^32`: Lemire, Kaser
/// and Kurz, "Faster remainder by direct computation", 2019); 0 for `d <= 1`, which the
/// kernel takes as the identity.
fn div_magic(d: usize) -> u64 {
    if d <= 1 { 0 } else { u64::MAX / d as u64 + 1 }
}

/// The real types the CPU twin computes in.
trait Real: Work + Send + Sync {
    fn floor(self) -> Self;
    fn round(self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            fn floor(self) -> $t {
                <$t>::floor(self)
            }
            fn round(self) -> $t {
                <$t>::round(self)
            }
        }
    };
}
real!(f32);
real!(f64);

/// The taps of one axis: indices and weights (`apx_taps`'s twin).
type Taps<R> = ([usize; 4], [R; 4]);

impl Approx {
    /// The coordinate of position `q` on axis `a`, when it lies on the grid (`apx_coord`; a NaN
    /// coordinate fails both comparisons, so it lies off the grid).
    fn coord<R: Real>(&self, q: R, a: usize) -> Option<R> {
        let (start, step) = self.grid[a];
        let c = (q - R::from_f64(start)) / R::from_f64(step);
        let one = R::from_f64(1.0);
        (c >= R::from_f64(0.0) && c + one <= R::from_f64(self.n[a] as f64)).then_some(c)
    }

    /// The taps of axis `a` for a coordinate `c` on its grid.
    fn taps<R: Real>(&self, c: R, a: usize) -> Taps<R> {
        let n = self.n[a] as i64;
        let clamp = |i: i64| i.clamp(0, n - 1) as usize;
        let mut idx = [0usize; 4];
        let mut w = [R::from_f64(1.0); 4];
        match self.curve {
            Curve::Nearest => idx[0] = c.round().to_f64() as usize,
            Curve::Lower => idx[0] = c.floor().to_f64() as usize,
            Curve::Linear | Curve::LinearCosine => {
                let g = c.floor();
                let gi = g.to_f64() as i64;
                idx[0] = gi as usize;
                idx[1] = clamp(gi + 1);
                let lw = af_weights::linear(c - g, self.curve == Curve::LinearCosine);
                w[..2].copy_from_slice(&lw);
            }
            Curve::Cubic | Curve::CubicSpline => {
                let g = c.floor();
                let gi = g.to_f64() as i64;
                for (k, v) in idx.iter_mut().enumerate() {
                    *v = clamp(gi - 1 + k as i64);
                }
                w = af_weights::cubic(c - g, self.curve == Curve::CubicSpline);
            }
        }
        (idx, w)
    }

    /// Component `ci` of the interpolated value of signal `xb` (`apx_sum`'s twin).
    fn sum<R: Real>(&self, xb: &[R], t: &[Taps<R>; 2], ci: usize) -> R {
        let (wd, nt, n1) = (self.width(), self.curve.taps(), self.n[1]);
        let at = |i0: usize, i1: usize| xb[(i0 * n1 + i1) * wd + ci];
        let zero = R::from_f64(0.0);
        if self.rank == 1 {
            if nt == 1 {
                return at(t[0].0[0], 0);
            }
            return (0..nt).fold(zero, |acc, i| acc + at(t[0].0[i], 0) * t[0].1[i]);
        }
        if nt == 1 {
            return at(t[0].0[0], t[1].0[0]);
        }
        (0..nt).fold(zero, |acc, j| {
            let r = (0..nt).fold(zero, |r, i| r + at(t[0].0[j], t[1].0[i]) * t[1].1[i]);
            acc + r * t[0].1[j]
        })
    }

    /// Fills `y` (`batch * plane` values of `width` parts).
    fn cpu<R: Real>(&self, x: &[R], p: [&[R]; 2], y: &mut [R]) {
        let (wd, plane, npix) = (self.width(), self.plane, self.npix());
        let off = [R::from_f64(self.off.0), R::from_f64(self.off.1)];
        const CHUNK: usize = 4096;
        y.par_chunks_mut(CHUNK * wd)
            .enumerate()
            .for_each(|(c, yc)| {
                for (k, out) in yc.chunks_mut(wd).enumerate() {
                    let o = c * CHUNK + k;
                    let (b, at) = (o / plane, if self.shared { o % plane } else { o });
                    let mut taps = [([0usize; 4], [R::from_f64(1.0); 4]); 2];
                    let mut inside = true;
                    for a in 0..self.rank {
                        match self.coord(p[a][at], a) {
                            Some(cv) if inside => taps[a] = self.taps(cv, a),
                            _ => inside = false,
                        }
                    }
                    if !inside {
                        out.copy_from_slice(&off[..wd]);
                        continue;
                    }
                    let xb = &x[b * npix * wd..(b + 1) * npix * wd];
                    for (ci, v) in out.iter_mut().enumerate() {
                        *v = self.sum(xb, &taps, ci);
                    }
                }
            });
    }

    fn run_typed<R: Real>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let wd = self.width();
        let host = |i: usize, len: usize| -> &[R] {
            let v: &[R] = bytemuck::cast_slice(inputs[i].buf.bytes());
            let off = inputs[i].layout.offset * if i == 0 { wd } else { 1 };
            &v[off..off + len]
        };
        let x = host(0, self.batch * self.npix() * wd);
        let p0 = host(1, self.npos());
        let p1 = if self.rank == 2 {
            host(2, self.npos())
        } else {
            p0
        };
        let ny = self.batch * self.plane * wd;
        let o: &mut [R] = bytemuck::cast_slice_mut(out.bytes_mut());
        self.cpu(x, [p0, p1], &mut o[..ny])
    }
}

impl LibraryCall for Approx {
    fn name(&self) -> &str {
        if self.rank == 1 { "approx1" } else { "approx2" }
    }

    /// Every input is read as `numel` consecutive elements from its layout's offset (both
    /// backends), so a contiguous view goes in as it is: positions sliced out of one stacked
    /// array, or an image that is one of a batch, are not copied first.
    fn accepts_view(&self, _index: usize, shape: &[usize], layout: &Layout, len: usize) -> bool {
        layout.packed_within(shape, len)
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        if self.real == DType::F64 {
            self.run_typed::<f64>(inputs, out);
        } else {
            self.run_typed::<f32>(inputs, out);
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
        let ny = self.batch * self.plane;
        if ny == 0 {
            return Ok(());
        }
        // Vectors only where the positions and the output start 16-byte aligned (the row
        // length was checked by `vec_width`).
        let at16 = |i: usize| {
            let p = &inputs[i];
            p.buf
                .ptr()
                .wrapping_add((p.layout.offset * self.real.size()) as u64)
                % VBYTES as u64
                == 0
        };
        let vec = if at16(1) && (self.rank == 1 || at16(2)) && out.ptr() % VBYTES as u64 == 0 {
            self.vec_width()
        } else {
            1
        };
        let k = crate::jit::library_kernel(st, self.key(vec), || self.kernel_for(vec))?;
        let vd = self.value_dtype();
        let pos = |i: usize| {
            ReadBuf::part(
                inputs[i].buf,
                self.real,
                inputs[i].layout.offset,
                self.npos(),
            )
        };
        let i = |v: usize| v as i64;
        let inv = |a: usize| self.exact_inv(a).unwrap_or(1.0);
        let params = ApproxArgs {
            x: ReadBuf::part(
                inputs[0].buf,
                vd,
                inputs[0].layout.offset,
                self.batch * self.npix(),
            )?,
            p0: pos(1)?,
            p1: if self.rank == 2 { Some(pos(2)?) } else { None },
            y: WriteBuf::part(out, vd, 0, ny)?,
            batch: i(self.batch),
            group: i(self.group()),
            n0: i(self.n[0]),
            n1: i(self.n[1]),
            plane: i(self.plane),
            cols: i(self.cols),
            units: i(self.units()),
            pmagic: if self.small(self.grid()) {
                div_magic(self.plane)
            } else {
                0
            },
            start0: self.grid[0].0,
            step0: self.grid[0].1,
            inv0: inv(0),
            start1: self.grid[1].0,
            step1: self.grid[1].1,
            inv1: inv(1),
            off_re: self.off.0,
            off_im: self.off.1,
        };
        let (grid, threads) = match self.tiled_blocks(vec) {
            Some(blocks) => (blocks, TILED_THREADS),
            None => (self.grid(), THREADS),
        };
        let a = params.args();
        // SAFETY: the words are `approx_run`'s and `approx_tiled`'s parameters in order
        // (`ApproxArgs`); every buffer is a range checked inside its allocation: the signals
        // `batch * n0 * n1` values, the positions `plane` (shared) or `batch * plane` each,
        // the output `batch * plane`. The kernel reads a signal only at taps clamped into
        // `[0, n)` on each axis (taps are formed only for coordinates in `[0, n - 1]`), the
        // positions below their count, and writes each output once below `batch * plane`
        // (the tiled form: a point's row below `plane / cols`, its column below `cols`, and
        // its slab below `units / plane`, one block a tile of every slab); the 32-bit form is
        // taken only where every such index and the loop counter fit. The tiled form's
        // 16-byte vectors are built only for real values whose rows hold whole vectors, with
        // the positions and the output starting 16-byte aligned: a vector starts at a column
        // that is a multiple of its width, so it is aligned and lies inside its row.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid as u32, 1, 1),
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

#[cfg(test)]
mod tests {
    use super::{Approx, Curve, div_magic};
    use crate::dtype::DType;

    /// A rank-2 call of `real` values with `step` along axis 0.
    fn call(real: DType, step: f64) -> Approx {
        Approx {
            real,
            complex: false,
            rank: 2,
            curve: Curve::Linear,
            batch: 1,
            n: [4, 4],
            plane: 1,
            cols: 1,
            shared: true,
            grid: [(0.0, step), (0.0, 1.0)],
            off: (0.0, 0.0),
        }
    }

    /// Values over many magnitudes, both signs, zeros, subnormals, infinities.
    fn samples() -> Vec<f64> {
        let mut v = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 5e-324, 1e-310];
        let mut state = 0x9e37_79b9_u64;
        for _ in 0..4000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let m = (state >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
            let e = ((state >> 3) % 80) as i32 - 40;
            let sign = if state & 1 == 0 { 1.0 } else { -1.0 };
            v.push(sign * m * 2f64.powi(e));
        }
        v.extend([1e300, -1e-300, 3.4e38, 1.2e-38, 1e-45]);
        v
    }

    #[test]
    fn exact_reciprocal_gives_the_quotient() {
        let f32_steps = [1.0, 0.25, -2.0, 2f64.powi(-126), 2f64.powi(127), 1024.0];
        for step in f32_steps {
            let inv = call(DType::F32, step).exact_inv(0).expect("a power of two") as f32;
            let s = step as f32;
            for &q in &samples() {
                let d = q as f32 - 0.5f32;
                assert_eq!((d * inv).to_bits(), (d / s).to_bits(), "f32 {d} / {s}");
            }
        }
        let f64_steps = [1.0, 0.5, -8.0, 2f64.powi(-1022), 2f64.powi(1023)];
        for step in f64_steps {
            let inv = call(DType::F64, step).exact_inv(0).expect("a power of two");
            for &q in &samples() {
                let d = q - 0.5;
                assert_eq!(
                    (d * inv).to_bits(),
                    (d / step).to_bits(),
                    "f64 {d} / {step}"
                );
            }
        }
        for (real, step) in [
            (DType::F32, 0.3),
            (DType::F32, 3.0),
            (DType::F32, 1e-45),
            (DType::F64, 0.1),
            (DType::F64, 5e-324),
            (DType::F64, 1.0 / 3.0),
        ] {
            assert_eq!(call(real, step).exact_inv(0), None, "{real:?} step {step}");
        }
        assert_eq!(call(DType::F32, 0.3).divides(), 1);
        assert_eq!(call(DType::F32, 0.5).divides(), 0);
    }

    /// `apx_quot`'s 32-bit form (`__umul64hi(magic, u)`), as the kernel computes it.
    fn quot(u: u32, d: u32) -> u32 {
        let m = div_magic(d as usize);
        if m == 0 {
            u
        } else {
            ((m as u128 * u as u128) >> 64) as u32
        }
    }

    #[test]
    fn magic_division_is_exact() {
        let lim = i32::MAX as u32;
        let mut ds: Vec<u32> = (1..=300).collect();
        ds.extend([
            4096 * 4096,
            641,
            6700417,
            (1 << 16) + 1,
            (1 << 30) - 1,
            1 << 30,
            lim - 1,
            lim,
        ]);
        // A fixed linear congruential walk over the 31-bit range.
        let mut state = 0x2545_f491_u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as u32 & lim
        };
        for _ in 0..2000 {
            ds.push(next().max(1));
        }
        for &d in &ds {
            let mut us = vec![0, 1, d - 1, d, d.saturating_add(1), lim - 1, lim];
            for k in [2u32, 3, 1000, 65_537] {
                if let Some(v) = d.checked_mul(k) {
                    us.extend([v - 1, v, v + 1]);
                }
            }
            for _ in 0..200 {
                us.push(next());
            }
            for u in us.into_iter().filter(|&u| u <= lim) {
                assert_eq!(quot(u, d), u / d, "{u} / {d}");
            }
        }
    }
}
