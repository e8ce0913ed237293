//! A separable filter of the last two axes in one pass over memory (`filters_sep.cu`): the
//! correlation along the rows axis and along the columns axis, in SciPy's order, the first
//! pass read straight from the image, the intermediate kept in shared memory. The taps travel
//! in the launch's parameters (no upload, which would wait for the stream, on any call). Its
//! CPU twin is two passes of the n-d correlation (`filters_corr.rs`), which is what SciPy
//! computes.

use super::boundary::Boundary;
use super::filters_corr::{ImgCorrelate, Win};
use super::filters_elem::{Acc, ImageElement, header, wide};
use super::filters_launch::{by_dtype, grid_for, host, part};
use crate::codegen::{
    Helpers, KernelParams, KernelSource, LaunchArgs, Param, ReadBuf, WriteBuf, kernel_params,
};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

kernel_params! {
    /// The separable filter of `batch` images of `h x w`, its taps in the form `W`: [`Taps`]
    /// (doubles) or [`FTaps`] (floats).
    pub(super) struct SepArgs<'a, W> {
        x: ReadBuf<'a> as "T",
        wy: W,
        wx: W,
        y: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        cy: i64,
        cx: i64,
        mode: i64,
        cval: f64,
        divy: f64,
        divx: f64,
    }
}

/// The taps of one pass as the kernel takes them, by value: [`SEP_MAX_TAPS`] doubles (`double
/// wy_0, ..., wy_32`, those past the pass's count zero) that the entry hands the body as one
/// `img_taps` (`filters_taps.cu`). The kernel rounds them to its working type, as an upload of
/// the working type's values would.
#[derive(Clone, Copy, Debug)]
pub(super) struct Taps([f64; SEP_MAX_TAPS]);

impl Taps {
    /// The taps `w` (at most [`SEP_MAX_TAPS`]), or an `Err` naming their count.
    pub(super) fn of(w: &[f64]) -> Result<Taps> {
        let mut t = [0.0; SEP_MAX_TAPS];
        t.get_mut(..w.len())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "a separable image filter pass of {} taps (at most {SEP_MAX_TAPS})",
                    w.len()
                ))
            })?
            .copy_from_slice(w);
        Ok(Taps(t))
    }
}

impl<'a> Param<'a> for Taps {
    fn decl(name: &str, _elem: &str) -> String {
        (0..SEP_MAX_TAPS)
            .map(|i| f64::decl(&format!("{name}_{i}"), ""))
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn names(name: &str) -> String {
        let words: Vec<String> = (0..SEP_MAX_TAPS).map(|i| format!("{name}_{i}")).collect();
        format!("img_taps{{{{{}}}}}", words.join(", "))
    }
    fn push(&self, args: &mut LaunchArgs<'a>) {
        for v in self.0 {
            v.push(args);
        }
    }
}

/// The most taps a pass may have to travel as [`FTaps`].
const FTAP_MAX: usize = 17;
/// Words of [`FTaps`]: two float taps each.
const FTAP_WORDS: usize = FTAP_MAX.div_ceil(2);

/// The taps of one pass as float operands, for 4-byte working values and at most [`FTAP_MAX`]
/// taps: [`FTAP_WORDS`] words (`u64t wy_0, ..., wy_8`) of two `f32` taps each (the first in
/// the low half, those past the pass's count zero) that the entry hands the body as one
/// `img_ftaps` (`filters_taps.cu`). The taps are rounded to `f32` here, as a kernel rounds
/// [`Taps`]' doubles to its working type.
#[derive(Clone, Copy, Debug)]
pub(super) struct FTaps([u64; FTAP_WORDS]);

impl FTaps {
    /// The taps `w` (at most [`FTAP_MAX`]), or an `Err` naming their count.
    pub(super) fn of(w: &[f64]) -> Result<FTaps> {
        if w.len() > FTAP_MAX {
            return Err(Error::InvalidArgument(format!(
                "a separable image filter pass of {} float taps (at most {FTAP_MAX})",
                w.len()
            )));
        }
        let mut words = [0u64; FTAP_WORDS];
        for (i, &v) in w.iter().enumerate() {
            words[i / 2] |= u64::from((v as f32).to_bits()) << (32 * (i % 2));
        }
        Ok(FTaps(words))
    }
}

impl<'a> Param<'a> for FTaps {
    fn decl(name: &str, _elem: &str) -> String {
        (0..FTAP_WORDS)
            .map(|i| u64::decl(&format!("{name}_{i}"), ""))
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn names(name: &str) -> String {
        let halves: Vec<String> = (0..FTAP_WORDS)
            .map(|i| format!("img_flo({name}_{i}), img_fhi({name}_{i})"))
            .collect();
        format!("img_ftaps{{{{{}}}}}", halves.join(", "))
    }
    fn push(&self, args: &mut LaunchArgs<'a>) {
        for v in self.0 {
            v.push(args);
        }
    }
}

/// One pass of a separable filter: `m` taps with centre `c` summed in the order `sym`
/// (`filters_corr::sym_of`), the sum divided by `div`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pass1 {
    pub m: usize,
    pub c: i64,
    pub div: f64,
    pub sym: i64,
}

/// The kernel's code of a summation order: 1 symmetric, -1 antisymmetric, 0 plain.
pub(super) fn sym_c(sym: i64) -> i64 {
    if sym == 2 { 0 } else { sym }
}

/// Threads a block (`SEP_THREADS` in the kernel).
const THREADS: usize = 256;
/// The most taps a pass of the fused kernel takes (its taps live in registers).
pub(crate) const SEP_MAX_TAPS: usize = 33;
/// The most dynamic shared memory the fused kernel asks for.
const SHARED_MAX: usize = 48 * 1024;
/// The columns of a tile's intermediate rows first: its output columns and the halo of the
/// pass along columns, so that a first pass of 16 rows a thread gives each of the 256 threads
/// one column of half a 32-row tile.
const FIRST_COLS: usize = 128;
/// The output rows of a tile, largest first: the first whose shared memory fits is used.
const ROWS: [usize; 2] = [32, 16];
/// The most 32-bit registers the values of a thread of a pass along rows may take
/// (`s + taps - 1` working values): `s` is the largest power of two up to 16 within it.
const ROW_WINDOW_REGS: usize = 48;
/// Consecutive outputs of a thread of a second pass along columns (`SEP_R`) by default; the
/// kernel also takes 8.
const R: usize = 4;

/// Output rows a warp of the small-window kernel walks (`S3_S` in `filters_sep3.cu`); its
/// blocks of 8 warps take tiles of 128 columns by 8 times as many rows.
const S3_ROWS: usize = 4;

/// Whether a filter of `my` x `mx` taps with the columns centre `cx` runs on the
/// small-window kernel (`filters_sep3.cu`): at most 3 taps a pass.
fn small(my: usize, mx: usize, cx: i64) -> bool {
    (1..=3).contains(&my) && (1..=3).contains(&mx) && (0..mx as i64).contains(&cx)
}

/// The fewest blocks an SM keeps resident for the small-window kernel, for a working type of
/// `esize` bytes (its launch bound: 64 registers for 4-byte working values, 128 for doubles).
fn small_blocks(esize: usize) -> usize {
    if esize == 4 { 4 } else { 2 }
}

/// The kernel's blocking for one filter: output tile `tw x th` (`SEP_TW`, `SEP_TH`),
/// consecutive outputs of a thread of a pass along rows `s` (`SEP_S`, dividing `th`), the
/// blocks an SM keeps resident (the launch bound, capping registers), and consecutive outputs
/// of a thread of a second pass along columns `r` (`SEP_R`, 4 or 8, dividing `tw`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tiling {
    tw: usize,
    th: usize,
    s: usize,
    blocks: usize,
    r: usize,
}

/// The bytes of dynamic shared memory the kernel needs for taps `my`, `mx` in a working type
/// of `esize` bytes on an output tile `tw x th` with `r` outputs a thread of a second pass along
/// columns: the intermediate, the kernel's `SEP_MR` rows of `SEP_MS` values. Rows first, `th`
/// rows covering every 16-byte load of the pass along columns; columns first, `th + my - 1`
/// rows of `tw`.
fn shared_bytes(
    my: usize,
    mx: usize,
    xfirst: bool,
    esize: usize,
    tile: (usize, usize),
    r: usize,
) -> usize {
    let (tw, th) = tile;
    if xfirst {
        return (th + my - 1) * tw * esize;
    }
    let v = 16 / esize;
    let nl = (r + mx - 1).div_ceil(v) * v;
    th * (tw - r + nl) * esize
}

/// The tiling of a filter: as many output columns (a multiple of 4) as leave the intermediate
/// [`FIRST_COLS`] wide, the most rows of [`ROWS`] whose shared memory fits; 4 blocks an SM
/// (64 registers) for 4-byte working values and at most 17 taps a pass, else 3.
///
/// `CUPRITE_IMAGE_SEP_TILE=cols,rows,blocks[,s[,r]]` (read once; for tuning) replaces
/// [`FIRST_COLS`], [`ROWS`], the blocks an SM (and the most rows a thread of a pass along rows
/// takes, and the outputs a thread of a second pass along columns, 4 or 8) for every filter it
/// gives a tiling that fits; the others keep the default.
fn tiling(my: usize, mx: usize, xfirst: bool, esize: usize) -> Option<Tiling> {
    if !(1..=SEP_MAX_TAPS).contains(&my) || !(1..=SEP_MAX_TAPS).contains(&mx) {
        return None;
    }
    let blocks = if esize == 4 && my <= 17 && mx <= 17 {
        4
    } else {
        3
    };
    let default = TileForm {
        cols: FIRST_COLS,
        rows: ROWS,
        blocks,
        most_s: 16,
        r: R,
    };
    tile_override()
        .and_then(|f| tiling_of(my, mx, xfirst, esize, f))
        .or_else(|| tiling_of(my, mx, xfirst, esize, default))
}

/// How [`tiling_of`] tiles: the intermediate's width `cols`, the output rows to try in order
/// (0 tries none), the blocks an SM, the most rows a thread of a pass along rows takes, and the
/// outputs a thread of a second pass along columns (4 or 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TileForm {
    cols: usize,
    rows: [usize; 2],
    blocks: usize,
    most_s: usize,
    r: usize,
}

/// The tiling of [`tiling`] in the form `f`: output columns as many as leave the intermediate
/// `f.cols` wide (a multiple of `f.r`), the first of `f.rows` that fits shared memory; `None`
/// where none fits.
fn tiling_of(my: usize, mx: usize, xfirst: bool, esize: usize, f: TileForm) -> Option<Tiling> {
    let TileForm {
        cols,
        rows,
        blocks,
        most_s,
        r,
    } = f;
    if r != 4 && r != 8 {
        return None;
    }
    let tw = (cols + 1).checked_sub(mx)? / r * r;
    if tw < r || !(1..=8).contains(&blocks) {
        return None;
    }
    let words = esize / 4;
    rows.iter()
        .filter(|&&th| (1..=64).contains(&th))
        .find(|&&th| shared_bytes(my, mx, xfirst, esize, (tw, th), r) <= SHARED_MAX)
        .map(|&th| {
            let s = [16, 8, 4, 2]
                .into_iter()
                .find(|&s| {
                    s <= th.min(most_s) && th % s == 0 && (s + my - 1) * words <= ROW_WINDOW_REGS
                })
                .unwrap_or(1);
            Tiling {
                tw,
                th,
                s,
                blocks,
                r,
            }
        })
}

/// `CUPRITE_IMAGE_SEP_TILE` as a [`TileForm`] (`s` 16 and `r` [`R`] unless given), where set
/// and well formed.
fn tile_override() -> Option<TileForm> {
    static TILE: std::sync::OnceLock<Option<TileForm>> = std::sync::OnceLock::new();
    *TILE.get_or_init(|| {
        let v = std::env::var("CUPRITE_IMAGE_SEP_TILE").ok()?;
        let n: Vec<usize> = v
            .split(',')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        let (cols, rows, blocks, most_s, r) = match n[..] {
            [c, rows, b] => (c, rows, b, 16, R),
            [c, rows, b, s] => (c, rows, b, s, R),
            [c, rows, b, s, r] => (c, rows, b, s, r),
            _ => return None,
        };
        Some(TileForm {
            cols,
            rows: [rows, 0],
            blocks,
            most_s,
            r,
        })
    })
}

/// The input (`batch` images of `h x w`, `dtype`) filtered by the taps `wy` along rows
/// (`y.m` of them) and `wx` along columns (`x.m`), rounded to the working type; rows first
/// unless `xfirst`.
#[derive(Debug)]
pub(crate) struct ImgSep2 {
    pub dtype: DType,
    pub batch: usize,
    pub h: usize,
    pub w: usize,
    pub y: Pass1,
    pub x: Pass1,
    pub wy: Vec<f64>,
    pub wx: Vec<f64>,
    pub xfirst: bool,
    pub boundary: Boundary,
}

impl ImgSep2 {
    /// Whether the fused kernel takes these taps (else the filter runs as two passes).
    pub(crate) fn fits(dtype: DType, my: usize, mx: usize, xfirst: bool) -> bool {
        let esize = if wide(dtype) { 8 } else { 4 };
        tiling(my, mx, xfirst, esize).is_some()
    }

    fn tiling(&self) -> Result<Tiling> {
        tiling(self.y.m, self.x.m, self.xfirst, self.esize()).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the separable image filter of {} taps x {} taps of {} has no tile that fits \
                 shared memory",
                self.y.m, self.x.m, self.dtype
            ))
        })
    }

    pub(super) fn esize(&self) -> usize {
        if wide(self.dtype) { 8 } else { 4 }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = inputs.len() == 1
            && inputs[0].dtype == self.dtype
            && numel(inputs[0].shape) == self.batch * self.h * self.w
            && self.wy.len() == self.y.m
            && self.wx.len() == self.x.m
            && Self::fits(self.dtype, self.y.m, self.x.m, self.xfirst);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the separable image filter made for {:?} was given {:?}",
                self,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The kernel's source for the tiling `t`.
    fn kernel(&self, t: Tiling) -> KernelSource {
        let name = format!(
            "cuprite_img_sep2_{}_{}x{}_{}{}{}",
            self.dtype.name(),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym) + 1,
            sym_c(self.x.sym) + 1,
            if self.xfirst { "_xf" } else { "" }
        );
        let bounds = format!("{THREADS}, {}", t.blocks);
        let defs = [
            ("IMG_TAPS", SEP_MAX_TAPS as i64),
            ("SEP_MY", self.y.m as i64),
            ("SEP_MX", self.x.m as i64),
            ("SEP_SYMY", sym_c(self.y.sym)),
            ("SEP_SYMX", sym_c(self.x.sym)),
            ("SEP_XFIRST", i64::from(self.xfirst)),
            ("SEP_TW", t.tw as i64),
            ("SEP_TH", t.th as i64),
            ("SEP_S", t.s as i64),
            ("SEP_R", t.r as i64),
            ("SEP_DIVY", i64::from(self.y.div != 1.0)),
            ("SEP_DIVX", i64::from(self.x.div != 1.0)),
        ];
        let cu = include_str!("filters_sep.cu");
        if self.float_taps() {
            sep_source::<SepArgs<FTaps>>(name, self.dtype, &defs, cu, &bounds, "img_sep2")
        } else {
            sep_source::<SepArgs<Taps>>(name, self.dtype, &defs, cu, &bounds, "img_sep2")
        }
    }

    /// Whether the tiled kernel takes its taps as floats ([`FTaps`]): 4-byte working values
    /// and at most [`FTAP_MAX`] taps a pass.
    fn float_taps(&self) -> bool {
        self.esize() == 4 && self.y.m <= FTAP_MAX && self.x.m <= FTAP_MAX
    }

    /// The launch arguments of the fused kernels with the taps `wy`, `wx` in the form `W`.
    fn args<'a, W: Param<'a>>(
        &self,
        inputs: &[CallInput<'a, DevBuf>],
        out: &'a mut DevBuf,
        wy: W,
        wx: W,
    ) -> Result<LaunchArgs<'a>> {
        let n = self.batch * self.h * self.w;
        let i = |v: usize| v as i64;
        Ok(SepArgs {
            x: part(&inputs[0], self.dtype, n)?,
            wy,
            wx,
            y: WriteBuf::part(out, self.dtype, 0, n)?,
            batch: i(self.batch),
            h: i(self.h),
            w: i(self.w),
            cy: self.y.c,
            cx: self.x.c,
            mode: i64::from(self.boundary.code()),
            cval: self.boundary.cval(),
            divy: self.y.div,
            divx: self.x.div,
        }
        .args())
    }

    /// The small-window kernel's source (`filters_sep3.cu`).
    fn kernel3(&self) -> KernelSource {
        let name = format!(
            "cuprite_img_sep3_{}_{}x{}_{}{}{}_c{}",
            self.dtype.name(),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym) + 1,
            sym_c(self.x.sym) + 1,
            if self.xfirst { "_xf" } else { "" },
            self.x.c
        );
        let bounds = format!("256, {}", small_blocks(self.esize()));
        sep_source::<SepArgs<Taps>>(
            name,
            self.dtype,
            &[
                ("IMG_TAPS", SEP_MAX_TAPS as i64),
                ("S3_MY", self.y.m as i64),
                ("S3_MX", self.x.m as i64),
                ("S3_SYMY", sym_c(self.y.sym)),
                ("S3_SYMX", sym_c(self.x.sym)),
                ("S3_XFIRST", i64::from(self.xfirst)),
                ("S3_CX", self.x.c),
                ("S3_S", S3_ROWS as i64),
            ],
            include_str!("filters_sep3.cu"),
            &bounds,
            "img_sep3",
        )
    }

    fn key3(&self) -> u64 {
        let mut h = KeyHasher(0x5e93_0003);
        "img_sep3".hash(&mut h);
        self.dtype.code().hash(&mut h);
        (
            self.y.m,
            self.x.m,
            self.xfirst,
            self.y.sym,
            self.x.sym,
            self.x.c,
        )
            .hash(&mut h);
        h.finish()
    }

    pub(super) fn is_small(&self) -> bool {
        small(self.y.m, self.x.m, self.x.c)
    }

    fn key(&self, t: Tiling) -> u64 {
        let mut h = KeyHasher(0x1a6e_5e94);
        "img_sep2".hash(&mut h);
        self.dtype.code().hash(&mut h);
        (self.y.m, self.x.m, self.xfirst, self.y.sym, self.x.sym).hash(&mut h);
        (self.y.div != 1.0, self.x.div != 1.0).hash(&mut h);
        (t.tw, t.th, t.s, t.blocks, t.r).hash(&mut h);
        h.finish()
    }

    /// One pass of the CPU twin: along rows (`rows`) or columns, as a 1-d correlation along
    /// the middle axis of a `[batch, n, inner]` block.
    fn pass(&self, rows: bool) -> ImgCorrelate {
        let p = if rows { self.y } else { self.x };
        let (batch, n, inner) = if rows {
            (self.batch, self.h, self.w)
        } else {
            (self.batch * self.h, self.w, 1)
        };
        ImgCorrelate {
            dtype: self.dtype,
            win: Win {
                batch,
                n: [1, n, inner],
                m: [1, p.m, 1],
                c: [0, p.c, 0],
            },
            boundary: self.boundary,
            div: p.div,
            sym: p.sym,
        }
    }

    fn run_host<T: ImageElement, A: Acc>(
        &self,
        inputs: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        let n = self.batch * self.h * self.w;
        let x: &[T] = host(&inputs[0], n);
        let wy: Vec<A> = self.wy.iter().map(|&v| A::of(v)).collect();
        let wx: Vec<A> = self.wx.iter().map(|&v| A::of(v)).collect();
        let (first, second, w1, w2) = if self.xfirst {
            (self.pass(false), self.pass(true), &wx, &wy)
        } else {
            (self.pass(true), self.pass(false), &wy, &wx)
        };
        let mut mid = vec![T::store(0.0); n];
        first.cpu(x, w1, &mut mid);
        let o: &mut [T] = bytemuck::cast_slice_mut(out.bytes_mut());
        second.cpu(&mid, w2, &mut o[..n]);
        Ok(())
    }
}

impl LibraryCall for ImgSep2 {
    fn name(&self) -> &str {
        "separable filter"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        fn go<T: ImageElement, A: Acc>(
            s: &ImgSep2,
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
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        let n = self.batch * self.h * self.w;
        if n == 0 {
            return Ok(());
        }
        if self.is_strip() {
            return self.run_strip(lane, inputs, out);
        }
        // The tiled kernel takes float taps where it can, the others doubles.
        let a = if !self.is_small() && self.float_taps() {
            self.args(inputs, out, FTaps::of(&self.wy)?, FTaps::of(&self.wx)?)?
        } else {
            self.args(inputs, out, Taps::of(&self.wy)?, Taps::of(&self.wx)?)?
        };
        if self.is_small() {
            let k = crate::jit::library_kernel(st, self.key3(), || self.kernel3())?;
            let tiles = self.batch * self.h.div_ceil(8 * S3_ROWS) * self.w.div_ceil(128);
            let blocks = small_blocks(self.esize()) as u64;
            let grid = grid_for(u64::from(st.sms), blocks, tiles, 1);
            // SAFETY: `x` and `y` are checked views of `batch h w` elements (`ReadBuf`/
            // `WriteBuf::part` check them inside their allocations), the taps are values; the
            // kernel reads `x` only at `img_map`ped indices inside `[0, h) x [0, w)` of each
            // image (vector loads only of runs of 4 columns inside a row, from an `x` aligned
            // for them with rows a multiple of 4 long), writes `y` only at outputs inside the
            // images, and uses no shared memory.
            unsafe {
                stream.launch_packed(
                    &k.func,
                    (grid, 1, 1),
                    (256, 1, 1),
                    0,
                    &a.words,
                    &a.accesses(),
                )
            }?;
            return Ok(());
        }
        let t = self.tiling()?;
        let k = crate::jit::library_kernel(st, self.key(t), || self.kernel(t))?;
        let tiles = self.batch * self.h.div_ceil(t.th) * self.w.div_ceil(t.tw);
        let grid = grid_for(u64::from(st.sms), t.blocks as u64, tiles, 1);
        let shared = shared_bytes(
            self.y.m,
            self.x.m,
            self.xfirst,
            self.esize(),
            (t.tw, t.th),
            t.r,
        );
        // SAFETY: `x` and `y` are checked views of `batch h w` elements (`ReadBuf`/
        // `WriteBuf::part` check them inside their allocations), the taps are values; the
        // kernel reads `x` only at `img_map`ped indices inside `[0, h) x [0, w)` of each
        // image (vector loads only of runs of 4 columns inside a row, from an `x` aligned for
        // them with rows a multiple of 4 long), writes `y` only at outputs inside them, and its
        // shared memory is the `shared` bytes asked for here (the kernel's `SEP_MR * SEP_MS`
        // values for this tiling, at most 48 KiB as `tiling` checked).
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (THREADS as u32, 1, 1),
                shared as u32,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        if self.is_small() {
            return vec![self.kernel3().source];
        }
        if self.is_strip() {
            return vec![self.kernel_strip().source];
        }
        self.tiling()
            .map(|t| vec![self.kernel(t).source])
            .unwrap_or_default()
    }
}

/// `constexpr int NAME = value;` lines: the compile-time constants a filter kernel's text reads.
pub(super) fn constants(defs: &[(&str, i64)]) -> String {
    defs.iter()
        .map(|(k, v)| format!("constexpr int {k} = {v};\n"))
        .collect()
}

/// The source of a separable filter kernel named `name`: the element header of `dtype`, the
/// constants `defs`, the boundary and tap helpers, the body `cu`, and an entry with launch
/// bounds `bounds` that passes the parameters `P` to the body's function `body_fn`.
pub(super) fn sep_source<'a, P: KernelParams<'a>>(
    name: String,
    dtype: DType,
    defs: &[(&str, i64)],
    cu: &str,
    bounds: &str,
    body_fn: &str,
) -> KernelSource {
    let body = [
        header(dtype),
        constants(defs),
        Boundary::c_source().to_string(),
        include_str!("filters_taps.cu").to_string(),
        cu.to_string(),
        crate::codegen::entry::<P>(&name, bounds, body_fn),
    ]
    .concat();
    KernelSource::generated(name, &body, Helpers::of_dtype(dtype))
}

#[cfg(test)]
mod tests {
    use super::{FIRST_COLS, SHARED_MAX, TileForm, Tiling, shared_bytes, small, tiling, tiling_of};

    /// The shared memory of a tiling, counted by hand: rows first, `th` rows of the 16-byte
    /// loads of the pass along columns; columns first, `th + my - 1` rows of `tw`.
    #[test]
    fn shared_memory_of_the_tilings() {
        // f32, 17 x 17 taps, rows first, 112 x 32: the last thread's loads end at 108 + 20.
        assert_eq!(shared_bytes(17, 17, false, 4, (112, 32), 4), 32 * 128 * 4);
        // 8 outputs a thread: the last thread's loads end at 104 + 24.
        assert_eq!(shared_bytes(17, 17, false, 4, (112, 32), 8), 32 * 128 * 4);
        // f32, 3 x 5 taps, columns first: 34 rows of 124.
        assert_eq!(shared_bytes(3, 5, true, 4, (124, 32), 4), 34 * 124 * 4);
        // f64, 33 x 33, rows first, 96 x 32: 92 + 36 = 128 values a row.
        assert_eq!(shared_bytes(33, 33, false, 8, (96, 32), 4), 32 * 128 * 8);
        // f64, 33 x 33, columns first: 64 rows of 96 (48 KiB).
        assert_eq!(shared_bytes(33, 33, true, 8, (96, 32), 4), 64 * 96 * 8);
        let t = |tw, th, s, blocks| {
            Some(Tiling {
                tw,
                th,
                s,
                blocks,
                r: 4,
            })
        };
        assert_eq!(tiling(17, 17, false, 4), t(112, 32, 16, 4));
        assert_eq!(tiling(33, 33, false, 4), t(96, 32, 16, 3));
        assert_eq!(tiling(4, 3, false, 4), t(124, 32, 16, 4));
        // f64: 8 + 16 values of two registers each fill the 48 of a rows window.
        assert_eq!(tiling(17, 17, false, 8), t(112, 32, 8, 3));
        // 33 doubles a pass along rows: one output a thread.
        assert_eq!(tiling(33, 33, true, 8), t(96, 32, 1, 3));
        assert_eq!(tiling(34, 3, false, 4), None);
        assert_eq!(tiling(0, 3, false, 4), None);
        // Other intermediate widths, rows, blocks and rows a thread (the tuning override's
        // forms), for 17 x 17 taps of f32 rows first.
        let of_r = |cols, rows, blocks, most_s, r| {
            let f = TileForm {
                cols,
                rows: [rows, 0],
                blocks,
                most_s,
                r,
            };
            tiling_of(17, 17, false, 4, f)
        };
        let of = |cols, rows, blocks, most_s| of_r(cols, rows, blocks, most_s, 4);
        assert_eq!(of(272, 32, 4, 16), t(256, 32, 16, 4));
        assert_eq!(of(144, 16, 3, 16), t(128, 16, 16, 3));
        // 16 rows of 8 a thread: every thread of the pass along rows one column.
        assert_eq!(of(128, 16, 6, 8), t(112, 16, 8, 6));
        // 24 rows: the rows a thread of the pass along rows divide them.
        assert_eq!(of(128, 24, 4, 16), t(112, 24, 8, 4));
        // Too narrow for the taps, too many blocks, or rows whose intermediate overflows.
        assert_eq!(of(16, 32, 4, 16), None);
        assert_eq!(of(128, 32, 9, 16), None);
        assert_eq!(of(1024, 32, 4, 16), None);
        // 8 outputs a thread of the pass along columns: the tile's columns a multiple of 8.
        let eight = |tw, th, s, blocks| {
            Some(Tiling {
                tw,
                th,
                s,
                blocks,
                r: 8,
            })
        };
        assert_eq!(of_r(128, 32, 4, 16, 8), eight(112, 32, 16, 4));
        assert_eq!(of_r(140, 16, 4, 8, 8), eight(120, 16, 8, 4));
        assert_eq!(of_r(128, 32, 4, 16, 6), None);
        for (my, mx) in [(1, 1), (3, 3), (17, 17), (33, 33), (1, 33), (33, 1)] {
            for xfirst in [false, true] {
                for esize in [4, 8] {
                    let t = tiling(my, mx, xfirst, esize).expect("every tap count fits");
                    let bytes = shared_bytes(my, mx, xfirst, esize, (t.tw, t.th), t.r);
                    assert!(bytes <= SHARED_MAX);
                    assert_eq!(t.th % t.s, 0);
                    assert_eq!(t.tw % 4, 0);
                    assert!(t.tw + mx - 1 <= FIRST_COLS);
                    assert!((t.s + my - 1) * esize / 4 <= 48 || t.s == 1);
                }
            }
        }
        // The small-window kernel: at most 3 taps a pass, the centre inside the window.
        assert!(small(3, 3, 1) && small(1, 3, 0) && small(3, 2, 1) && small(2, 1, 0));
        assert!(!small(5, 3, 1) && !small(3, 4, 1) && !small(3, 3, 3) && !small(3, 3, -1));
    }
}
