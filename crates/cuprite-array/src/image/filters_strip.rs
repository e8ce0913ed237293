//! The streaming kernel of the separable filters (`filters_strip.cu`): rows first, at most 17
//! taps a pass, 4-byte working values (`f16`, `f32`). A block walks a segment of rows of one
//! strip of columns and keeps the window of the pass along rows in registers, so that each
//! input value is read about once; the pass along columns reads the intermediate from shared
//! memory. It computes what the tiled kernel (`filters_sep.cu`) does, with the same sums, and
//! shares its CPU twin ([`ImgSep2`]'s two passes of the n-d correlation).

use super::filters_launch::{grid_for, part};
use super::filters_sep::{ImgSep2, SEP_MAX_TAPS, Taps, sep_source, sym_c};
use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::error::Result;
use crate::exec::CudaLane;
use crate::graph::CallInput;
use crate::storage::DevBuf;
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether CUDA devices run the filters the streaming kernel takes on it (else on the tiled
/// kernel, `filters_sep.cu`).
static ON: AtomicBool = AtomicBool::new(false);

/// Runs the separable image filters that the streaming kernel takes (rows first, at most 17
/// taps a pass, `f16` and `f32` images: `gaussian_filter` up to sigma 2, `uniform_filter` up
/// to 17) on it (`true`), or on the tiled kernel that also takes every other separable filter
/// of the last two axes (`false`, the default), for the whole process. Both compute the
/// same values (the same sums in the same order). For comparing the two (`cuprite bench
/// image/gaussian_filter_streaming` times the streaming one) and testing both. The CPU backend is not
/// affected.
///
/// ```
/// use cuprite_array::tuning;
/// tuning::set_image_streaming(true); // the streaming kernel from here on
/// assert!(tuning::image_streaming());
/// tuning::set_image_streaming(false);
/// ```
pub fn set_image_streaming(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether the streaming kernel of the separable image filters is on ([`set_image_streaming`]).
///
/// ```
/// assert!(!cuprite_array::tuning::image_streaming());
/// ```
pub fn image_streaming() -> bool {
    ON.load(Ordering::Relaxed)
}

kernel_params! {
    /// The streaming separable filter of `batch` images of `h x w`, in segments of `seg` rows.
    pub(super) struct StripArgs<'a> {
        x: ReadBuf<'a> as "T",
        wy: Taps,
        wx: Taps,
        y: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        cy: i64,
        seg: i64,
        mode: i64,
        cval: f64,
        divy: f64,
        divx: f64,
    }
}

/// Output columns a strip (`ST_W`).
const STRIP_W: usize = 128;
/// Rows a step (`ST_U`): the segments are multiples of it.
const STRIP_U: usize = 16;
/// Consecutive outputs of a thread of the pass along columns (`ST_R`).
const STRIP_R: usize = 4;
/// Threads a block (`ST_THREADS`): one a column of the strip and a warp for the halo.
const STRIP_THREADS: usize = STRIP_W + 32;
/// The blocks an SM keeps resident (the launch bound, capping registers).
const STRIP_BLOCKS: usize = 4;
/// The most taps a pass of the streaming kernel takes (its window lives in registers).
const STRIP_MAX_TAPS: usize = 17;
/// The fewest rows a segment has (each segment re-reads `my - 1` rows of warm-up).
const STRIP_MIN_ROWS: usize = 64;

/// Whether the streaming kernel takes a filter of `my` x `mx` taps (columns centre `cx`) of
/// working values of `esize` bytes, rows first unless `xfirst`.
pub(super) fn strip_fits(my: usize, mx: usize, cx: i64, xfirst: bool, esize: usize) -> bool {
    !xfirst
        && esize == 4
        && (1..=STRIP_MAX_TAPS).contains(&my)
        && (1..=STRIP_MAX_TAPS).contains(&mx)
        && (0..mx as i64).contains(&cx)
}

// The taps of a pass travel as the tiled kernel's (`Taps`, at most `SEP_MAX_TAPS`).
const _: () = assert!(STRIP_MAX_TAPS <= SEP_MAX_TAPS);

/// The bytes of dynamic shared memory of the streaming kernel for `mx` taps along columns:
/// two buffers of `STRIP_U` rows of `ST_MS` 4-byte values (the strip's columns, the halo, and
/// the last 16-byte loads' padding).
pub(super) fn shared_bytes(mx: usize) -> usize {
    let nl = (STRIP_R + mx - 1).div_ceil(4) * 4;
    2 * STRIP_U * (STRIP_W - STRIP_R + nl) * 4
}

/// The rows of a segment for `batch` images of `h x w` on `sms` SMs: the image's rows cut into
/// as many segments as give every SM `STRIP_BLOCKS` blocks at once (one round of blocks), but
/// no segment shorter than `STRIP_MIN_ROWS` (the window's warm-up is re-read per segment); a
/// multiple of `STRIP_U`.
pub(super) fn segment(batch: usize, h: usize, w: usize, sms: usize) -> usize {
    let strips = (batch * w.div_ceil(STRIP_W)).max(1);
    let want = (sms * STRIP_BLOCKS).div_ceil(strips).max(1);
    let rows = h.div_ceil(want).max(STRIP_MIN_ROWS);
    rows.div_ceil(STRIP_U) * STRIP_U
}

impl ImgSep2 {
    /// Whether this filter runs on the streaming kernel: it is on, takes the filter, and the
    /// small-window kernel (`filters_sep3.cu`) does not.
    pub(super) fn is_strip(&self) -> bool {
        image_streaming()
            && !self.is_small()
            && strip_fits(self.y.m, self.x.m, self.x.c, self.xfirst, self.esize())
    }

    /// The streaming kernel's source.
    pub(super) fn kernel_strip(&self) -> KernelSource {
        let name = format!(
            "cuprite_img_strip_{}_{}x{}_{}{}_c{}",
            self.dtype.name(),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym) + 1,
            sym_c(self.x.sym) + 1,
            self.x.c
        );
        sep_source::<StripArgs>(
            name,
            self.dtype,
            &[
                ("IMG_TAPS", SEP_MAX_TAPS as i64),
                ("ST_MY", self.y.m as i64),
                ("ST_MX", self.x.m as i64),
                ("ST_SYMY", sym_c(self.y.sym)),
                ("ST_SYMX", sym_c(self.x.sym)),
                ("ST_CX", self.x.c),
                ("ST_W", STRIP_W as i64),
                ("ST_U", STRIP_U as i64),
                ("ST_R", STRIP_R as i64),
            ],
            include_str!("filters_strip.cu"),
            &format!("{STRIP_THREADS}, {STRIP_BLOCKS}"),
            "img_strip",
        )
    }

    fn key_strip(&self) -> u64 {
        let mut h = KeyHasher(0x5e93_5791);
        "img_strip".hash(&mut h);
        self.dtype.code().hash(&mut h);
        (self.y.m, self.x.m, self.y.sym, self.x.sym, self.x.c).hash(&mut h);
        h.finish()
    }

    /// Runs the streaming kernel (the caller checked the inputs and that [`Self::is_strip`]).
    pub(super) fn run_strip(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let n = self.batch * self.h * self.w;
        if n == 0 {
            return Ok(());
        }
        let seg = segment(self.batch, self.h, self.w, st.sms as usize);
        let i = |v: usize| v as i64;
        let params = StripArgs {
            x: part(&inputs[0], self.dtype, n)?,
            wy: Taps::of(&self.wy)?,
            wx: Taps::of(&self.wx)?,
            y: WriteBuf::part(out, self.dtype, 0, n)?,
            batch: i(self.batch),
            h: i(self.h),
            w: i(self.w),
            cy: self.y.c,
            seg: i(seg),
            mode: i64::from(self.boundary.code()),
            cval: self.boundary.cval(),
            divy: self.y.div,
            divx: self.x.div,
        };
        let a = params.args();
        let k = crate::jit::library_kernel(st, self.key_strip(), || self.kernel_strip())?;
        let tiles = self.batch * self.w.div_ceil(STRIP_W) * self.h.div_ceil(seg);
        let grid = grid_for(u64::from(st.sms), STRIP_BLOCKS as u64, tiles, 1);
        let shared = shared_bytes(self.x.m);
        // SAFETY: `x` and `y` are checked views of `batch h w` elements (`ReadBuf`/
        // `WriteBuf::part` check them inside their allocations), the taps are values; the
        // kernel reads `x` only at columns `img_map` keeps inside `[0, w)` and rows inside
        // `[0, h)` of each image (directly only where the whole run of rows lies inside,
        // else through `img_map`), writes `y` only at outputs inside the images, and its shared
        // memory is the `shared` bytes asked for here (two buffers of `ST_U` rows of `ST_MS`
        // values, the kernel's layout for these taps, under 48 KiB).
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (STRIP_THREADS as u32, 1, 1),
                shared as u32,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{STRIP_U, segment, shared_bytes, strip_fits};

    /// The streaming kernel's reach, shared memory and segments, counted by hand.
    #[test]
    fn strip_kernel_plan() {
        // Rows first, 1 to 17 taps a pass, the centre inside, 4-byte working values.
        assert!(strip_fits(17, 17, 8, false, 4));
        assert!(strip_fits(4, 3, 1, false, 4));
        assert!(strip_fits(1, 17, 16, false, 4));
        assert!(!strip_fits(17, 17, 8, true, 4));
        assert!(!strip_fits(17, 17, 8, false, 8));
        assert!(!strip_fits(33, 17, 8, false, 4));
        assert!(!strip_fits(17, 25, 12, false, 4));
        assert!(!strip_fits(17, 17, 17, false, 4));
        // 17 taps along columns: 4 + 16 values a thread, rows of 124 + 20 = 144.
        assert_eq!(shared_bytes(17), 2 * 16 * 144 * 4);
        // 3 taps: 4 + 2 values rounded to 8, rows of 132.
        assert_eq!(shared_bytes(3), 2 * 16 * 132 * 4);
        assert!(shared_bytes(17) <= 48 * 1024);
        // 4096 x 4096 on 132 SMs: 32 strips, 17 segments wanted, 241 rows rounded to 256.
        assert_eq!(segment(1, 4096, 4096, 132), 256);
        // Few rows: at least 64 a segment.
        assert_eq!(segment(1, 100, 4096, 132), 64);
        // 64 images of 4 strips: 3 segments of 100 rows, rounded up to whole steps.
        assert_eq!(segment(64, 300, 512, 132), 112);
        for (b, h, w) in [(1, 1, 1), (3, 17, 9), (1, 4095, 4097), (2, 5000, 3)] {
            let s = segment(b, h, w, 132);
            assert!(s % STRIP_U == 0 && s >= 64, "{b} {h} {w}: {s}");
        }
    }
}
