//! The separable filter of the last two axes as a stencil walked down strips of rows
//! (`filters_strip.cu`): a warp per tile of `32 v` columns by `sh` rows, the input rows in
//! registers, one row buffer per warp for the pass along columns. It computes what the tiled
//! kernel of `filters_sep.rs` computes (same summation orders, the intermediate stored in the
//! image's type) and reads each input value from memory about once, so it serves the small
//! windows (Sobel, Gaussians of a few pixels) that are bound by memory bandwidth.
//!
//! Which strip tiling runs is the knob [`ImageStrip`]: [`set_image_strip`] for the process
//! (initially the environment's `CUPRITE_IMAGE_STRIP`, a name of [`ImageStrip::name`]),
//! [`with_image_strip`] for the work one thread evaluates inside a closure.

use super::boundary::Boundary;
use super::filters_elem::header;
use super::filters_launch::grid_for;
use crate::codegen::{Helpers, KernelParams, KernelSource, ReadBuf, WriteBuf, entry};
use crate::dtype::DType;
use crate::error::Result;
use crate::exec::CudaLane;
use crate::util::KeyHasher;
use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

crate::codegen::kernel_params! {
    /// The separable filter of `batch` images of `h x w` (both kernels' parameters).
    pub(super) struct SepArgs<'a> {
        x: ReadBuf<'a> as "T",
        wy: ReadBuf<'a> as "C",
        wx: ReadBuf<'a> as "C",
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

/// Warps a block of the strip kernel (`ST_WARPS`), each on its own tiles.
const WARPS: usize = 4;
/// The most taps a pass of the strip kernel takes: the halo columns take one lane each.
const MAX_TAPS: usize = 33;
/// The most 32-bit registers a thread's input window may take (`(v + 1) (my + pd)` working
/// values, the rows a pass along rows keeps live): wider windows run on the tiled kernel.
const WINDOW_REGS: usize = 128;
/// The registers a thread needs besides its input window (taps, addresses, mapped columns,
/// the values read back from the row buffer, loads hoisted ahead), for the launch bound.
const OTHER_REGS: usize = 64;
/// The fewest registers a thread is given: the fully unrolled walk down a strip spills below
/// this even for 3 taps.
const MIN_REGS: usize = 128;
/// The registers of an SM.
const SM_REGS: usize = 65536;

/// The tilings of the strip kernel, or [`ImageStrip::Off`] for the tiled kernel of
/// `filters_sep.cu` alone. `V{v}H{sh}P{pd}`: each lane owns `v` consecutive columns (a warp
/// `32 v`), a warp walks `sh` output rows, input rows are loaded `pd` rows ahead of their
/// first use. The strip kernel serves `f16`, `f32` and `f64` images with at most 33 taps a
/// pass whose input window fits the registers; anything else runs on the tiled kernel.
///
/// ```
/// use cuprite_array::tuning::{self, ImageStrip};
/// for s in ImageStrip::ALL {
///     assert_eq!(ImageStrip::parse(s.name()), Some(s));
/// }
/// let s = tuning::with_image_strip(ImageStrip::V2H32P4, tuning::image_strip);
/// assert_eq!(s, ImageStrip::V2H32P4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageStrip {
    /// The tiled kernel only.
    Off,
    /// 4 columns a lane, 32 rows a strip, loads 4 rows ahead (the default).
    V4H32P4,
    /// 4 columns a lane, 16 rows a strip, loads 4 rows ahead.
    V4H16P4,
    /// 4 columns a lane, 64 rows a strip, loads 4 rows ahead.
    V4H64P4,
    /// 4 columns a lane, 32 rows a strip, loads 8 rows ahead.
    V4H32P8,
    /// 2 columns a lane, 32 rows a strip, loads 4 rows ahead.
    V2H32P4,
    /// 2 columns a lane, 64 rows a strip, loads 8 rows ahead.
    V2H64P8,
    /// 1 column a lane, 32 rows a strip, loads 8 rows ahead.
    V1H32P8,
}

/// A strip tiling's numbers (`ST_V`, `ST_SH`, `ST_PD`) and the blocks an SM keeps resident
/// (the launch bound, which caps registers: as many blocks, from 2 to 4, as leave each thread
/// its input window and [`OTHER_REGS`] more, at least [`MIN_REGS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Strip {
    pub v: usize,
    pub sh: usize,
    pub pd: usize,
    pub blocks: usize,
}

impl ImageStrip {
    /// Every choice, [`ImageStrip::Off`] first.
    pub const ALL: [ImageStrip; 8] = [
        ImageStrip::Off,
        ImageStrip::V4H32P4,
        ImageStrip::V4H16P4,
        ImageStrip::V4H64P4,
        ImageStrip::V4H32P8,
        ImageStrip::V2H32P4,
        ImageStrip::V2H64P8,
        ImageStrip::V1H32P8,
    ];

    /// The choice without the environment or a setting: the tiled kernel, until a strip
    /// tiling beats it in `cuprite bench image/` (docs/PERFORMANCE.md has the figures).
    pub const DEFAULT: ImageStrip = ImageStrip::Off;

    /// The choice's name, as `CUPRITE_IMAGE_STRIP` takes it: `off`, `v4h32p4`, ...
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ImageStrip::Off => "off",
            ImageStrip::V4H32P4 => "v4h32p4",
            ImageStrip::V4H16P4 => "v4h16p4",
            ImageStrip::V4H64P4 => "v4h64p4",
            ImageStrip::V4H32P8 => "v4h32p8",
            ImageStrip::V2H32P4 => "v2h32p4",
            ImageStrip::V2H64P8 => "v2h64p8",
            ImageStrip::V1H32P8 => "v1h32p8",
        }
    }

    /// The choice named `s` (as [`ImageStrip::name`] writes it, any case).
    #[must_use]
    pub fn parse(s: &str) -> Option<ImageStrip> {
        let s = s.trim().to_ascii_lowercase();
        Self::ALL.into_iter().find(|c| c.name() == s)
    }

    /// The tiling's numbers (its launch bound left 0); `None` for [`ImageStrip::Off`].
    pub(crate) fn strip(self) -> Option<Strip> {
        let s = |v, sh, pd| {
            Some(Strip {
                v,
                sh,
                pd,
                blocks: 0,
            })
        };
        match self {
            ImageStrip::Off => None,
            ImageStrip::V4H32P4 => s(4, 32, 4),
            ImageStrip::V4H16P4 => s(4, 16, 4),
            ImageStrip::V4H64P4 => s(4, 64, 4),
            ImageStrip::V4H32P8 => s(4, 32, 8),
            ImageStrip::V2H32P4 => s(2, 32, 4),
            ImageStrip::V2H64P8 => s(2, 64, 8),
            ImageStrip::V1H32P8 => s(1, 32, 8),
        }
    }

    fn code(self) -> u8 {
        Self::ALL.iter().position(|&c| c == self).unwrap_or(0) as u8 + 1
    }
}

/// The process's choice, `code()`; 0: not set (the environment's, else the default).
static SET: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// The choice of [`with_image_strip`] on this thread, if any.
    static THREAD: Cell<Option<ImageStrip>> = const { Cell::new(None) };
}

/// The environment's `CUPRITE_IMAGE_STRIP` (read once), else [`ImageStrip::DEFAULT`]. A name
/// that is no choice is reported once on stderr and the default taken.
fn from_env() -> ImageStrip {
    static ENV: OnceLock<ImageStrip> = OnceLock::new();
    *ENV.get_or_init(|| match std::env::var("CUPRITE_IMAGE_STRIP") {
        Ok(s) => ImageStrip::parse(&s).unwrap_or_else(|| {
            eprintln!(
                "cuprite: CUPRITE_IMAGE_STRIP={s:?} is none of {:?}; using {}",
                ImageStrip::ALL.map(ImageStrip::name),
                ImageStrip::DEFAULT.name()
            );
            ImageStrip::DEFAULT
        }),
        Err(_) => ImageStrip::DEFAULT,
    })
}

/// Sets the strip tiling of the CUDA separable filters of the last two axes (Gaussian,
/// uniform, Sobel, Prewitt) for the whole process; [`ImageStrip::Off`] keeps them on the
/// tiled kernel. Every choice computes the same values; for benchmarking and testing them.
///
/// ```
/// use cuprite_array::tuning::{self, ImageStrip};
/// tuning::set_image_strip(ImageStrip::Off);
/// assert_eq!(tuning::image_strip(), ImageStrip::Off);
/// tuning::set_image_strip(ImageStrip::DEFAULT);
/// ```
pub fn set_image_strip(s: ImageStrip) {
    SET.store(s.code(), Ordering::Relaxed);
}

/// The strip tiling the separable filters evaluated on this thread use ([`with_image_strip`]
/// on this thread, else [`set_image_strip`], else `CUPRITE_IMAGE_STRIP`, else
/// [`ImageStrip::DEFAULT`]).
#[must_use]
pub fn image_strip() -> ImageStrip {
    if let Some(s) = THREAD.with(Cell::get) {
        return s;
    }
    match SET.load(Ordering::Relaxed) {
        0 => from_env(),
        c => ImageStrip::ALL[usize::from(c) - 1],
    }
}

/// Runs `f` with the separable filters this thread evaluates on the strip tiling `s`,
/// whatever [`set_image_strip`] says.
pub fn with_image_strip<R>(s: ImageStrip, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<ImageStrip>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(THREAD.with(|t| t.replace(Some(s))));
    f()
}

/// The separable filter of `batch` images of `h x w` of `dtype` on the strip kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StripFilter {
    pub dtype: DType,
    pub y: Pass1,
    pub x: Pass1,
    pub xfirst: bool,
}

impl StripFilter {
    /// The strip tiling this filter runs on under the choice `c`, if it takes one: an element
    /// type it serves, at most [`MAX_TAPS`] taps a pass, an input window within
    /// [`WINDOW_REGS`] registers; with its launch bound.
    pub(crate) fn strip(&self, c: ImageStrip) -> Option<Strip> {
        let mut s = c.strip()?;
        let words = match self.dtype {
            DType::F16 | DType::F32 => 1,
            DType::F64 => 2,
            _ => return None,
        };
        let taps = (1..=MAX_TAPS).contains(&self.y.m) && (1..=MAX_TAPS).contains(&self.x.m);
        let window = (s.v + 1) * (self.y.m + s.pd) * words;
        let regs = (window + OTHER_REGS).max(MIN_REGS);
        s.blocks = (SM_REGS / (WARPS * 32 * regs)).clamp(2, 4);
        (taps && window <= WINDOW_REGS).then_some(s)
    }

    /// The kernel's source for the tiling `s`.
    pub(crate) fn kernel(&self, s: Strip) -> KernelSource {
        let name = format!(
            "cuprite_img_strip_{}_{}x{}_{}{}{}_v{}h{}p{}",
            self.dtype.name(),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym) + 1,
            sym_c(self.x.sym) + 1,
            if self.xfirst { "_xf" } else { "" },
            s.v,
            s.sh,
            s.pd
        );
        let defs = [
            ("ST_MY", self.y.m as i64),
            ("ST_MX", self.x.m as i64),
            ("ST_SYMY", sym_c(self.y.sym)),
            ("ST_SYMX", sym_c(self.x.sym)),
            ("ST_XFIRST", i64::from(self.xfirst)),
            ("ST_V", s.v as i64),
            ("ST_SH", s.sh as i64),
            ("ST_PD", s.pd as i64),
        ]
        .iter()
        .map(|(k, v)| format!("constexpr int {k} = {v};\n"))
        .collect::<String>();
        let body = [
            header(self.dtype),
            defs,
            Boundary::c_source().to_string(),
            include_str!("filters_strip.cu").to_string(),
            entry::<SepArgs>(&name, &format!("{}, {}", WARPS * 32, s.blocks), "img_strip"),
        ]
        .concat();
        KernelSource::generated(name, &body, Helpers::of_dtype(self.dtype))
    }

    /// The kernel cache key of the tiling `s`.
    pub(crate) fn key(&self, s: Strip) -> u64 {
        let mut h = KeyHasher(0x57a1_9e0d);
        "img_strip".hash(&mut h);
        self.dtype.code().hash(&mut h);
        (self.y.m, self.x.m, self.xfirst, self.y.sym, self.x.sym, s).hash(&mut h);
        h.finish()
    }

    /// Launches the tiling `s` on `lane` for `batch h w` values with `params`.
    pub(crate) fn launch(
        &self,
        lane: &CudaLane<'_>,
        s: Strip,
        params: &SepArgs<'_>,
        dims: [usize; 3],
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let k = crate::jit::library_kernel(st, self.key(s), || self.kernel(s))?;
        let [batch, h, w] = dims;
        let tiles = batch * h.div_ceil(s.sh) * w.div_ceil(32 * s.v);
        let grid = grid_for(u64::from(st.sms), s.blocks as u64, tiles, WARPS);
        let a = params.args();
        // SAFETY: the caller's `params` hold checked views (`ReadBuf`/`WriteBuf::part`) of
        // `batch h w` elements for `x` and `y` and of the tap counts for `wy` and `wx`; the
        // kernel reads `x` only at `img_map`ped indices inside `[0, h) x [0, w)` of each image
        // (vector loads only for runs of columns inside a row), the taps below their counts,
        // writes `y` only at outputs inside the images, and its shared memory is static.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                ((WARPS * 32) as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{ImageStrip, Pass1, StripFilter};
    use crate::dtype::DType;

    fn filter(dtype: DType, my: usize, mx: usize) -> StripFilter {
        let p = |m: usize| Pass1 {
            m,
            c: (m / 2) as i64,
            div: 1.0,
            sym: 1,
        };
        StripFilter {
            dtype,
            y: p(my),
            x: p(mx),
            xfirst: false,
        }
    }

    /// Which filters take the strip kernel: the served types, taps up to 33 a pass, and the
    /// input window `(v + 1) (my + pd)` registers (two each for `f64`) within 128.
    #[test]
    fn strip_choice() {
        let c = ImageStrip::V4H32P4;
        // 17 taps: 5 columns x 21 rows = 105 registers.
        assert!(filter(DType::F32, 17, 17).strip(c).is_some());
        assert!(filter(DType::F16, 17, 17).strip(c).is_some());
        // f64: 210 registers; with 2 columns a lane 3 x 21 x 2 = 126.
        assert!(filter(DType::F64, 17, 17).strip(c).is_none());
        assert!(
            filter(DType::F64, 17, 17)
                .strip(ImageStrip::V2H32P4)
                .is_some()
        );
        // 33 taps: 5 x 37 too many, 2 x 41 with one column a lane fits.
        assert!(filter(DType::F32, 33, 3).strip(c).is_none());
        assert!(
            filter(DType::F32, 33, 33)
                .strip(ImageStrip::V1H32P8)
                .is_some()
        );
        assert!(
            filter(DType::F32, 3, 34)
                .strip(ImageStrip::V1H32P8)
                .is_none()
        );
        assert!(filter(DType::U8, 3, 3).strip(c).is_none());
        assert!(filter(DType::F32, 3, 3).strip(ImageStrip::Off).is_none());
        for s in ImageStrip::ALL {
            assert_eq!(ImageStrip::parse(&s.name().to_uppercase()), Some(s));
            if let Some(t) = s.strip() {
                assert!([1, 2, 4].contains(&t.v) && t.sh > 0 && t.pd > 0);
                assert!(filter(DType::F32, 3, 3).strip(s).is_some());
            }
        }
        assert_eq!(ImageStrip::parse("v3h32p4"), None);
    }

    /// The kernel's source names its tiling's constants and entry.
    #[test]
    fn strip_source() {
        let f = filter(DType::F32, 17, 17);
        let s = f.strip(ImageStrip::V2H64P8).expect("a tiling");
        let k = f.kernel(s);
        assert_eq!(k.name, "cuprite_img_strip_f32_17x17_22_v2h64p8");
        for d in [
            "ST_V = 2;",
            "ST_SH = 64;",
            "ST_PD = 8;",
            "ST_MY = 17;",
            "ST_XFIRST = 0;",
        ] {
            assert!(k.source.contains(d), "{d}");
        }
        // 3 x 25 registers of window and 64 more: 3 blocks of 128 threads in 65536.
        assert!(k.source.contains("__launch_bounds__(128, 3)"));
        let d = f.strip(ImageStrip::V4H32P4).expect("a tiling");
        assert_ne!(f.key(s), f.key(d));
        // 5 x 21 + 64: 3 blocks; Sobel's 5 x 7 + 64 is below 128: 4.
        assert_eq!(d.blocks, 3);
        assert_eq!(
            filter(DType::F32, 3, 3)
                .strip(ImageStrip::V4H32P4)
                .map(|s| s.blocks),
            Some(4)
        );
        // The most and the fewest blocks (3 x 21 x 2 + 64 = 190 registers: 2).
        assert_eq!(
            filter(DType::F32, 1, 1)
                .strip(ImageStrip::V1H32P8)
                .map(|s| s.blocks),
            Some(4)
        );
        assert_eq!(
            filter(DType::F64, 17, 17)
                .strip(ImageStrip::V2H32P4)
                .map(|s| s.blocks),
            Some(2)
        );
    }
}
