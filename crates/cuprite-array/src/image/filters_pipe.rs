//! The pipelined tile kernel of the separable filters (`filters_pipe.cu`): rows first, at most
//! 17 taps a pass, 4-byte working values (`f16`, `f32`). Resident blocks walk the output tiles,
//! copying the next tile's input window into shared memory asynchronously while they filter
//! the current one; the taps are float launch parameters. It computes what the tiled kernel
//! (`filters_sep.cu`) does, with the same sums in the same order, and shares its CPU twin
//! ([`ImgSep2`]'s two passes of the n-d correlation). It is opt-in
//! ([`set_image_pipelined`]).

use super::filters_launch::part;
use super::filters_sep::{FTAP_MAX, FTaps, ImgSep2, sep_source, sym_c};
use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::CallInput;
use crate::storage::DevBuf;
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether CUDA devices run the filters the pipelined kernel takes on it.
static ON: AtomicBool = AtomicBool::new(false);

/// Runs the separable image filters that the pipelined kernel takes (rows first, at most 17
/// taps a pass, `f16` and `f32` images: `gaussian_filter` up to sigma 2, `uniform_filter` up
/// to 17) on it (`true`), or on the tiled kernel that also takes every other separable filter
/// of the last two axes (`false`, the default), for the whole process. Both compute the same
/// values (the same sums in the same order). For comparing the two (`cuprite bench
/// image/gaussian_filter_pipelined` times the pipelined one) and testing both. The opt-in
/// streaming kernel ([`set_image_streaming`](super::filters_strip::set_image_streaming)) goes
/// before both; the CPU backend is not affected.
///
/// ```
/// use cuprite_array::tuning;
/// tuning::set_image_pipelined(true); // the pipelined kernel from here on
/// assert!(tuning::image_pipelined());
/// tuning::set_image_pipelined(false);
/// ```
pub fn set_image_pipelined(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether the pipelined kernel of the separable image filters is on ([`set_image_pipelined`]).
///
/// ```
/// assert!(!cuprite_array::tuning::image_pipelined());
/// ```
pub fn image_pipelined() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The most taps a pass of the pipelined kernel takes (its taps travel as [`FTaps`]).
const PIPE_MAX_TAPS: usize = FTAP_MAX;

kernel_params! {
    /// The pipelined separable filter of `batch` images of `h x w`.
    pub(super) struct PipeArgs<'a> {
        x: ReadBuf<'a> as "T",
        wy: FTaps,
        wx: FTaps,
        y: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        cy: i64,
        mode: i64,
        cval: f64,
        divy: f64,
        divx: f64,
    }
}

/// Threads a block (`PT_THREADS`).
const PIPE_THREADS: usize = 256;
/// Output columns and rows of a tile (`PT_TW`, `PT_TH`).
const PIPE_TW: usize = 128;
const PIPE_TH: usize = 32;
/// Rows a thread of the pass along rows computes (`PT_S`).
const PIPE_S: usize = 16;
/// The blocks an SM keeps resident (the launch bound, and the grid's blocks an SM).
const PIPE_BLOCKS: usize = 3;

/// Whether the pipelined kernel takes a filter of `my` x `mx` taps (columns centre `cx`) of
/// working values of `esize` bytes, rows first unless `xfirst`.
pub(super) fn pipe_fits(my: usize, mx: usize, cx: i64, xfirst: bool, esize: usize) -> bool {
    !xfirst
        && esize == 4
        && (1..=PIPE_MAX_TAPS).contains(&my)
        && (1..=PIPE_MAX_TAPS).contains(&mx)
        && (0..mx as i64).contains(&cx)
}

/// The bytes of dynamic shared memory of the pipelined kernel for `my` x `mx` taps (columns
/// centre `cx`) of images of `tsize`-byte elements: two input windows of `PT_RH` rows of
/// `PT_RS` values and the intermediate, `PT_TH` rows of `PT_MS` floats (the kernel's layout).
pub(super) fn shared_bytes(my: usize, mx: usize, cx: usize, tsize: usize) -> usize {
    let v = 16 / tsize;
    let cxr = cx.div_ceil(v) * v;
    let rs = (cxr - cx + PIPE_TW + mx - 1).div_ceil(v) * v;
    let rh = PIPE_TH + my - 1;
    let nl = (8 + mx - 1).div_ceil(4) * 4;
    let ms = (PIPE_TW - 8 + nl + 3) / 8 * 8 + 4;
    2 * rh * rs * tsize + PIPE_TH * ms * 4
}

impl ImgSep2 {
    /// Whether this filter runs on the pipelined kernel: it is on, takes the filter, and
    /// neither the small-window kernel (`filters_sep3.cu`) nor the opt-in streaming one does.
    pub(super) fn is_pipe(&self) -> bool {
        image_pipelined()
            && !self.is_small()
            && !self.is_strip()
            && pipe_fits(self.y.m, self.x.m, self.x.c, self.xfirst, self.esize())
    }

    fn tsize(&self) -> usize {
        self.dtype.size()
    }

    /// The pipelined kernel's source.
    pub(super) fn kernel_pipe(&self) -> KernelSource {
        let name = format!(
            "cuprite_img_pipe_{}_{}x{}_{}{}_c{}",
            self.dtype.name(),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym) + 1,
            sym_c(self.x.sym) + 1,
            self.x.c
        );
        sep_source::<PipeArgs>(
            name,
            self.dtype,
            &[
                ("IMG_TAPS", super::filters_sep::SEP_MAX_TAPS as i64),
                ("PT_MY", self.y.m as i64),
                ("PT_MX", self.x.m as i64),
                ("PT_SYMY", sym_c(self.y.sym)),
                ("PT_SYMX", sym_c(self.x.sym)),
                ("PT_CX", self.x.c),
                ("PT_TW", PIPE_TW as i64),
                ("PT_TH", PIPE_TH as i64),
                ("PT_S", PIPE_S as i64),
            ],
            include_str!("filters_pipe.cu"),
            &format!("{PIPE_THREADS}, {PIPE_BLOCKS}"),
            "img_pipe",
        )
    }

    fn key_pipe(&self) -> u64 {
        let mut h = KeyHasher(0x5e93_919e);
        "img_pipe".hash(&mut h);
        self.dtype.code().hash(&mut h);
        (self.y.m, self.x.m, self.y.sym, self.x.sym, self.x.c).hash(&mut h);
        h.finish()
    }

    /// Runs the pipelined kernel (the caller checked the inputs and that [`Self::is_pipe`]);
    /// `false` (nothing launched) where the device cannot give a block its shared memory.
    pub(super) fn run_pipe(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<bool> {
        let CudaLane { st, stream } = *lane;
        let n = self.batch * self.h * self.w;
        if n == 0 {
            return Ok(true);
        }
        let k = crate::jit::library_kernel(st, self.key_pipe(), || self.kernel_pipe())?;
        let shared = shared_bytes(self.y.m, self.x.m, self.x.c as usize, self.tsize());
        let shared32 = u32::try_from(shared).map_err(|_| {
            Error::InvalidArgument(format!("{shared} bytes of shared memory for a block"))
        })?;
        if k.func.max_dynamic_shared_memory() < shared32
            && k.func.set_max_dynamic_shared_memory(shared32).is_err()
        {
            return Ok(false);
        }
        let i = |v: usize| v as i64;
        let params = PipeArgs {
            x: part(&inputs[0], self.dtype, n)?,
            wy: FTaps::of(&self.wy)?,
            wx: FTaps::of(&self.wx)?,
            y: WriteBuf::part(out, self.dtype, 0, n)?,
            batch: i(self.batch),
            h: i(self.h),
            w: i(self.w),
            cy: self.y.c,
            mode: i64::from(self.boundary.code()),
            cval: self.boundary.cval(),
            divy: self.y.div,
            divx: self.x.div,
        };
        let a = params.args();
        let tiles = self.batch * self.w.div_ceil(PIPE_TW) * self.h.div_ceil(PIPE_TH);
        let resident = (st.sms.max(1) as usize) * PIPE_BLOCKS;
        let grid = tiles.clamp(1, resident) as u32;
        // SAFETY: `x` and `y` are checked views of `batch h w` elements (`ReadBuf`/
        // `WriteBuf::part` check them inside their allocations), the taps are values; the
        // kernel copies from `x` only at indices `img_map` keeps inside `[0, h) x [0, w)` of
        // each image (16-byte copies only of windows lying wholly inside, from an `x` aligned
        // for them with rows a whole number of copies long), writes `y` only at outputs inside
        // the images, and its shared memory is the `shared` bytes allowed and asked for here
        // (two windows and the intermediate, the kernel's layout for these taps); it waits for
        // all its asynchronous copies before it ends.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (PIPE_THREADS as u32, 1, 1),
                shared32,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::{pipe_fits, shared_bytes};
    use crate::image::filters_sep::FTaps;

    /// The pipelined kernel's reach, shared memory and taps, counted by hand.
    #[test]
    fn pipe_kernel_plan() {
        // Rows first, 1 to 17 taps a pass, the centre inside, 4-byte working values.
        assert!(pipe_fits(17, 17, 8, false, 4));
        assert!(pipe_fits(4, 3, 1, false, 4));
        assert!(pipe_fits(1, 17, 16, false, 4));
        assert!(!pipe_fits(17, 17, 8, true, 4));
        assert!(!pipe_fits(17, 17, 8, false, 8));
        assert!(!pipe_fits(18, 17, 8, false, 4));
        assert!(!pipe_fits(17, 17, 17, false, 4));
        assert!(!pipe_fits(17, 17, -1, false, 4));
        // f32, 17 x 17, centre 8: windows of 48 rows of 144 values (whole copies of 4, starting
        // 8 columns left), the intermediate 32 rows of 120 + 24 = 144 rounded to 148 (4 modulo 8).
        assert_eq!(shared_bytes(17, 17, 8, 4), 2 * 48 * 144 * 4 + 32 * 148 * 4);
        // f16: copies of 8 values; window rows of 144 values of 2 bytes.
        assert_eq!(shared_bytes(17, 17, 8, 2), 2 * 48 * 144 * 2 + 32 * 148 * 4);
        // 5 x 3 taps, centre 1: the window starts 4 columns left, 3 + 130 values rounded to 136,
        // 36 rows; the intermediate 120 + 12 = 132 (4 modulo 8).
        assert_eq!(shared_bytes(5, 3, 1, 4), 2 * 36 * 136 * 4 + 32 * 132 * 4);
        // Three blocks an SM fit the opt-in limit (227 KiB a block, 228 an SM) at 17 taps.
        assert!(3 * (shared_bytes(17, 17, 8, 4) + 1024) <= 228 * 1024);
        // Two taps a word, the first in the low half; f32 rounding.
        let t = FTaps::of(&[1.0, -2.0, 0.1]).expect("three taps");
        assert_eq!(
            t.0[0],
            (u64::from((-2.0f32).to_bits()) << 32) | u64::from(1.0f32.to_bits())
        );
        assert_eq!(t.0[1], u64::from(0.1f32.to_bits()));
        assert!(t.0[2..].iter().all(|&w| w == 0));
        assert!(FTaps::of(&[0.0; 18]).is_err());
    }
}
