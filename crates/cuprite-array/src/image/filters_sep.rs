//! A separable filter of the last two axes in one pass over memory (`filters_sep.cu`): the
//! correlation along the rows axis and along the columns axis, in SciPy's order, with the
//! intermediate kept in shared memory. Its CPU twin is two passes of the n-d correlation
//! (`filters_corr.rs`), which is what SciPy computes.

use super::boundary::Boundary;
use super::filters_corr::{ImgCorrelate, Win};
use super::filters_elem::{Acc, ImageElement, header, wide};
use super::filters_launch::{by_dtype, grid_for, host, part};
pub(crate) use super::filters_strip::Pass1;
use super::filters_strip::{SepArgs, StripFilter, image_strip, sym_c};
use crate::codegen::{Helpers, KernelParams, KernelSource, WriteBuf};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

/// Threads a block (`SEP_THREADS` in the kernel).
const THREADS: usize = 256;
/// The fewest blocks an SM keeps resident (the kernel's launch bound, capping its registers).
const BLOCKS_PER_SM: usize = 3;
/// Consecutive outputs of a thread along the columns axis (`SEP_R`).
const R: usize = 4;
/// The most taps a pass of the fused kernel takes (its taps live in registers).
pub(crate) const SEP_MAX_TAPS: usize = 33;
/// The most dynamic shared memory the fused kernel asks for.
const SHARED_MAX: usize = 48 * 1024;
/// The output tiles (columns, rows) the kernel may take, largest first: the first whose shared
/// memory fits is used. Both sides are multiples of `R` and of the tile's `SEP_S`.
const TILES: [(usize, usize); 4] = [(64, 64), (64, 32), (32, 32), (32, 16)];

/// The kernel's blocking for one filter: output tile `tw x th` (`SEP_TW`, `SEP_TH`) and
/// consecutive outputs of a thread along the rows axis `s` (`SEP_S`, at most 16, dividing `th`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tiling {
    tw: usize,
    th: usize,
    s: usize,
}

/// The bytes of dynamic shared memory the kernel needs for taps `my`, `mx` in a working type
/// of `esize` bytes on an output tile `tw x th`: the staged input tile (rows of odd stride,
/// rounded up to 16 bytes) and the intermediate (the kernel's `SEP_IN + SEP_MR * SEP_MS`).
fn shared_bytes(my: usize, mx: usize, xfirst: bool, esize: usize, tw: usize, th: usize) -> usize {
    let v = 16 / esize;
    let (sh, sw) = (th + my - 1, tw + mx - 1);
    let input = (sh * (sw | 1)).div_ceil(v) * v;
    let nl = (R + mx - 1).div_ceil(v) * v;
    let (mr, ms) = if xfirst {
        (sh, tw | 1)
    } else {
        (th, tw - R + nl)
    };
    (input + mr * ms) * esize
}

/// The largest tiling of [`TILES`] whose shared memory fits, if any.
fn tiling(my: usize, mx: usize, xfirst: bool, esize: usize) -> Option<Tiling> {
    if !(1..=SEP_MAX_TAPS).contains(&my) || !(1..=SEP_MAX_TAPS).contains(&mx) {
        return None;
    }
    TILES
        .iter()
        .find(|&&(tw, th)| shared_bytes(my, mx, xfirst, esize, tw, th) <= SHARED_MAX)
        .map(|&(tw, th)| Tiling {
            tw,
            th,
            s: (tw * th / THREADS).clamp(1, 16).min(th),
        })
}

/// Input 0 (`batch` images of `h x w`, `dtype`) filtered by input 1 (`y.m` taps along rows)
/// and input 2 (`x.m` taps along columns), both in the working type; rows first unless
/// `xfirst`.
#[derive(Debug)]
pub(crate) struct ImgSep2 {
    pub dtype: DType,
    pub batch: usize,
    pub h: usize,
    pub w: usize,
    pub y: Pass1,
    pub x: Pass1,
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

    /// This filter on the strip kernel (`filters_strip.rs`).
    fn strip_filter(&self) -> StripFilter {
        StripFilter {
            dtype: self.dtype,
            y: self.y,
            x: self.x,
            xfirst: self.xfirst,
        }
    }

    fn esize(&self) -> usize {
        if wide(self.dtype) { 8 } else { 4 }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let wt = if wide(self.dtype) {
            DType::F64
        } else {
            DType::F32
        };
        let ok = inputs.len() == 3
            && inputs[0].dtype == self.dtype
            && inputs[1].dtype == wt
            && inputs[2].dtype == wt
            && numel(inputs[0].shape) == self.batch * self.h * self.w
            && numel(inputs[1].shape) == self.y.m
            && numel(inputs[2].shape) == self.x.m
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
        let body = format!(
            "{}constexpr int SEP_MY = {};\nconstexpr int SEP_MX = {};\n\
             constexpr int SEP_SYMY = {};\nconstexpr int SEP_SYMX = {};\n\
             constexpr bool SEP_XFIRST = {};\nconstexpr int SEP_TW = {};\n\
             constexpr int SEP_TH = {};\nconstexpr int SEP_S = {};\n{}{}{}",
            header(self.dtype),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym),
            sym_c(self.x.sym),
            self.xfirst,
            t.tw,
            t.th,
            t.s,
            Boundary::c_source(),
            include_str!("filters_sep.cu"),
            crate::codegen::entry::<SepArgs>(
                &name,
                &format!("{THREADS}, {BLOCKS_PER_SM}"),
                "img_sep2"
            )
        );
        KernelSource::generated(name, &body, Helpers::of_dtype(self.dtype))
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x1a6e_5e93);
        "img_sep2".hash(&mut h);
        self.dtype.code().hash(&mut h);
        (self.y.m, self.x.m, self.xfirst, self.y.sym, self.x.sym).hash(&mut h);
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
        let wy: &[A] = host(&inputs[1], self.y.m);
        let wx: &[A] = host(&inputs[2], self.x.m);
        let (first, second, w1, w2) = if self.xfirst {
            (self.pass(false), self.pass(true), wx, wy)
        } else {
            (self.pass(true), self.pass(false), wy, wx)
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
        let i = |v: usize| v as i64;
        let params = SepArgs {
            x: part(&inputs[0], self.dtype, n)?,
            wy: part(&inputs[1], inputs[1].dtype, self.y.m)?,
            wx: part(&inputs[2], inputs[2].dtype, self.x.m)?,
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
        };
        let strip = self.strip_filter();
        if let Some(s) = strip.strip(image_strip()) {
            return strip.launch(lane, s, &params, [self.batch, self.h, self.w]);
        }
        let t = self.tiling()?;
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel(t))?;
        let tiles = self.batch * self.h.div_ceil(t.th) * self.w.div_ceil(t.tw);
        let grid = grid_for(u64::from(st.sms), BLOCKS_PER_SM as u64, tiles, 1);
        let shared = shared_bytes(self.y.m, self.x.m, self.xfirst, self.esize(), t.tw, t.th);
        let a = params.args();
        // SAFETY: `x` and `y` are checked views of `batch h w` elements, `wy` and `wx` of their
        // tap counts (`ReadBuf`/`WriteBuf::part` check them inside their allocations); the
        // kernel reads `x` only at `img_map`ped indices inside `[0, h) x [0, w)` of each
        // image, writes `y` only at outputs inside them, and its shared memory is the
        // `shared` bytes asked for here (the kernel's `SEP_IN + SEP_MR * SEP_MS` values for
        // this tiling, at most 48 KiB as `tiling` checked).
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
        let strip = self.strip_filter();
        if let Some(s) = strip.strip(image_strip()) {
            return vec![strip.kernel(s).source];
        }
        self.tiling()
            .map(|t| vec![self.kernel(t).source])
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::{SHARED_MAX, Tiling, shared_bytes, tiling};

    /// The shared memory of a tiling, counted by hand: the input tile's rows (odd stride) and
    /// the intermediate's (16-byte multiples rows first, odd columns first).
    #[test]
    fn shared_memory_of_the_tilings() {
        // f32, 17 x 17 taps, rows first, 64 x 64: 80 rows of 81, then 64 rows of 80.
        assert_eq!(
            shared_bytes(17, 17, false, 4, 64, 64),
            (80 * 81 + 64 * 80) * 4
        );
        // f32, 3 x 3 taps, columns first: 66 rows of 67 (4422, rounded up to 4424), then 66
        // rows of 65.
        assert_eq!(shared_bytes(3, 3, true, 4, 64, 64), (4424 + 66 * 65) * 4);
        // f64, 17 x 17, 32 x 32: 48 rows of 49, then 32 rows of 48 (4 outputs need 20 values).
        assert_eq!(
            shared_bytes(17, 17, false, 8, 32, 32),
            (48 * 49 + 32 * 48) * 8
        );
        let t = |tw, th, s| Some(Tiling { tw, th, s });
        assert_eq!(tiling(17, 17, false, 4), t(64, 64, 16));
        assert_eq!(tiling(33, 33, false, 4), t(64, 32, 8));
        assert_eq!(tiling(17, 17, false, 8), t(32, 32, 4));
        assert_eq!(tiling(33, 33, true, 8), t(32, 16, 2));
        assert_eq!(tiling(34, 3, false, 4), None);
        assert_eq!(tiling(0, 3, false, 4), None);
        for (my, mx) in [(1, 1), (3, 3), (17, 17), (33, 33), (1, 33), (33, 1)] {
            for xfirst in [false, true] {
                for esize in [4, 8] {
                    let t = tiling(my, mx, xfirst, esize).expect("every tap count fits");
                    assert!(shared_bytes(my, mx, xfirst, esize, t.tw, t.th) <= SHARED_MAX);
                    assert_eq!(t.th % t.s, 0);
                    // A pass along rows gives each of the 256 threads one strip.
                    assert_eq!((t.th / t.s) * t.tw, 256);
                }
            }
        }
    }
}
