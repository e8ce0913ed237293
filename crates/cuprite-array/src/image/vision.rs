//! Feature detection (ArrayFire's vision family): template matching, FAST, Harris, SUSAN and
//! difference of Gaussians. The per-pixel scores are library calls (`vision_kernels.rs`: a
//! kernel and its CPU twin) or fused element-wise expressions; keypoints are then picked on
//! the array's own device by a 3 x 3 non-maximum suppression (fused), a compaction
//! (`argwhere`) and a `topk` on the scores.

use super::vision_kernels::{Stencil, VisionCall};
use crate::array::Array;
use crate::dtype::{DType, Float, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::TakeOpts;
use crate::shape::SliceArg;
use std::sync::Arc;

/// Keypoints as a struct of arrays (ArrayFire's `features`): element `i` of each array is
/// keypoint `i`. `x` is the column and `y` the row of the pixel; `score` the detector's
/// response; `orientation` in radians (0 for detectors without one); `size` the diameter of
/// the neighbourhood the detector looked at.
#[derive(Debug, Clone)]
pub struct Features {
    /// Columns.
    pub x: Array<f32>,
    /// Rows.
    pub y: Array<f32>,
    /// Responses (larger is stronger).
    pub score: Array<f32>,
    /// Orientations in radians.
    pub orientation: Array<f32>,
    /// Neighbourhood diameters in pixels.
    pub size: Array<f32>,
}

impl Features {
    /// The number of keypoints.
    #[must_use]
    pub fn len(&self) -> usize {
        self.x.shape().first().copied().unwrap_or(0)
    }
    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub(crate) fn lit<T: Float>(x: f64) -> T {
    T::from_scalar(Scalar::F64(x))
}

pub(crate) fn range(start: usize, end: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: 1,
    }
}

pub(crate) const ALL: SliceArg = SliceArg::Range {
    start: None,
    end: None,
    step: 1,
};

/// `x[..., a0..a1, b0..b1]` (the two trailing axes).
pub(crate) fn window<T: Float>(
    x: &Array<T>,
    (a0, a1): (usize, usize),
    (b0, b1): (usize, usize),
) -> Result<Array<T>> {
    let mut args = vec![ALL; x.ndim() - 2];
    args.push(range(a0, a1));
    args.push(range(b0, b1));
    x.slice(&args)
}

/// The `(batch, h, w)` of an image of rank 2 or more, or an `Err` naming the shape.
fn image_dims(shape: &[usize], what: &str) -> Result<(usize, usize, usize)> {
    if shape.len() < 2 {
        return Err(Error::Shape(format!(
            "{what} takes an image of rank 2 or more ([..., h, w]), got shape {shape:?}"
        )));
    }
    let n = shape.len();
    // The product overflows only where another extent is 0 (the array exists): an empty
    // batch then computes nothing.
    let batch = shape[..n - 2]
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .unwrap_or(0);
    Ok((batch, shape[n - 2], shape[n - 1]))
}

/// A 2-D image's `(h, w)`, or an `Err` naming the shape.
fn image2(shape: &[usize], what: &str) -> Result<(usize, usize)> {
    if shape.len() != 2 {
        return Err(Error::Shape(format!(
            "{what} takes a 2-D gray image [h, w], got shape {shape:?}"
        )));
    }
    Ok((shape[0], shape[1]))
}

/// Runs a per-pixel kernel on `img` (and `tpl`) in `T`'s precision where it is `f32` or `f64`,
/// else in `f32`.
fn stencil<T: Float>(st: Stencil, img: &Array<T>, tpl: Option<&Array<T>>) -> Result<Array<T>> {
    if !matches!(T::DTYPE, DType::F32 | DType::F64) {
        let t32 = tpl.map(|t| t.cast::<f32>());
        return Ok(stencil(st, &img.cast::<f32>(), t32.as_ref())?.cast::<T>());
    }
    let (batch, h, w) = image_dims(img.shape(), "a vision kernel")?;
    let mut inputs = vec![img.node.clone()];
    if let Some(t) = tpl {
        inputs.push(t.node.clone());
    }
    let call = Arc::new(VisionCall {
        stencil: st,
        dtype: T::DTYPE,
        batch,
        h,
        w,
    });
    Ok(Array::from_node(Node::new(
        Op::Library(call, inputs),
        T::DTYPE,
        img.shape().to_vec(),
        img.device(),
    )))
}

/// The metrics of [`match_template_with`] (ArrayFire's `af_match_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchType {
    /// Sum of absolute differences (the default).
    #[default]
    Sad,
    /// SAD of the window and the template less their means.
    Zsad,
    /// SAD against the template scaled by the ratio of the means (window / template).
    Lsad,
    /// Sum of squared differences.
    Ssd,
    /// SSD less the means.
    Zssd,
    /// SSD against the scaled template.
    Lssd,
    /// Normalised cross-correlation `Σ I T / √(Σ I² Σ T²)` (1 at a match up to a positive
    /// scale; 0 where a side is all zeros).
    Ncc,
    /// Zero-mean normalised cross-correlation (the Pearson correlation of window and
    /// template: 1 at a match up to scale and offset; 0 where a side is constant).
    Zncc,
    /// The number of unequal pixels (sum of Hamming distances).
    Shd,
}

impl MatchType {
    /// The metric's code in the kernel (`vision_match.cu`).
    fn code(self) -> i64 {
        self as i64
    }
}

/// Options of [`match_template_with`]: the metric ([`MatchType::Sad`] by default, as
/// ArrayFire).
///
/// ```
/// use cuprite_array::image::{MatchOpts, MatchType};
/// assert_eq!(MatchOpts::new().method(MatchType::Zncc).method, MatchType::Zncc);
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchOpts {
    /// The metric.
    pub method: MatchType,
}

impl MatchOpts {
    /// SAD.
    pub fn new() -> Self {
        Self::default()
    }
    /// The metric.
    pub fn method(mut self, method: MatchType) -> Self {
        self.method = method;
        self
    }
}

/// Template matching by the sum of absolute differences (ArrayFire's `matchTemplate` with
/// `AF_SAD`): `out[..., y, x]` compares the `th x tw` template with the window of the image
/// whose top-left pixel is `(y, x)`, pixels past the bottom and right edges taken as 0. The
/// output has the image's shape `[..., h, w]` (leading axes a batch); the best match of a
/// difference metric is its minimum.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::match_template};
/// let img = Array::from_vec((0..20).map(|v| v as f32).collect(), &[4, 5])?;
/// let tpl = Array::from_vec(vec![6.0f32, 7.0, 11.0, 12.0], &[2, 2])?;
/// let sad = match_template(&img, &tpl)?;
/// assert_eq!(sad.argmin()?.item()?, 6); // row 1, column 1
/// assert_eq!(sad.to_vec()?[6], 0.0);
/// # Ok(()) }
/// ```
pub fn match_template<T: Float>(img: &Array<T>, tpl: &Array<T>) -> Result<Array<T>> {
    match_template_with(img, tpl, MatchOpts::new())
}

/// [`match_template`] by another metric ([`MatchType`]).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{MatchOpts, MatchType, match_template_with}};
/// let img = Array::from_vec((0..20).map(|v| ((v * 7) % 11) as f64).collect(), &[4, 5])?;
/// let tpl = img.slice(&cuprite_array::s![1..3, 2..4])?;
/// let z = match_template_with(&img, &tpl, MatchOpts::new().method(MatchType::Zncc))?;
/// assert!((z.to_vec()?[7] - 1.0).abs() < 1e-12); // row 1, column 2
/// # Ok(()) }
/// ```
pub fn match_template_with<T: Float>(
    img: &Array<T>,
    tpl: &Array<T>,
    opts: MatchOpts,
) -> Result<Array<T>> {
    let (_, h, w) = image_dims(img.shape(), "match_template")?;
    let (th, tw) = image2(tpl.shape(), "match_template (template)")?;
    if th == 0 || tw == 0 || th > h || tw > w {
        return Err(Error::Shape(format!(
            "match_template: a template of {th}x{tw} for an image of {h}x{w} (the template must \
             be non-empty and fit in the image)"
        )));
    }
    if img.device() != tpl.device() {
        return Err(Error::DeviceMismatch(format!(
            "match_template: image on {:?}, template on {:?}",
            img.device(),
            tpl.device()
        )));
    }
    let st = Stencil::Match {
        method: opts.method.code(),
        th,
        tw,
    };
    stencil(st, img, Some(&tpl.contiguous()?))
}

/// Where `score` is a strict 3 x 3 local maximum above `min`: at least every neighbour before
/// it in row-major order and more than every one after it, so that of a plateau of equal
/// scores exactly its last pixel stays.
pub(crate) fn peaks(score: &Array<f32>, min: f32) -> Result<Array<bool>> {
    let (h, w) = (score.shape()[0], score.shape()[1]);
    let p = score.pad(&[(1, 1), (1, 1)], f32::NEG_INFINITY)?;
    let mut keep = score.greater(min);
    for dy in 0..3usize {
        for dx in 0..3usize {
            if (dy, dx) == (1, 1) {
                continue;
            }
            let nb = window(&p, (dy, dy + h), (dx, dx + w))?;
            let before = (dy, dx) < (1, 1);
            let ok = if before {
                score.greater_equal(&nb)
            } else {
                score.greater(&nb)
            };
            keep = keep.try_and(&ok)?;
        }
    }
    Ok(keep)
}

/// The keypoints of a `[h, w]` score map: pixels above `min` (3 x 3 maxima when `non_max`),
/// the `max` strongest, strongest first (ties in row-major order), with `size`.
fn extract(score: &Array<f32>, non_max: bool, min: f32, max: usize, size: f32) -> Result<Features> {
    let keep = if non_max {
        peaks(score, min)?
    } else {
        score.greater(min)
    };
    rank(score, &keep, max, size)
}

/// The keypoints where `keep` is set, scored by `values` (`[h, w]` both): the `max` largest,
/// largest first (ties in row-major order), orientation 0 and `size`.
pub(crate) fn rank(
    values: &Array<f32>,
    keep: &Array<bool>,
    max: usize,
    size: f32,
) -> Result<Features> {
    let at = keep.argwhere()?;
    let s = values.masked_select(keep)?;
    let k = s.shape()[0].min(max);
    let (score, order) = s.topk(k, 0)?;
    let at = at.take_with(&order, TakeOpts::new().axis(0))?;
    let y = at.slice(&[ALL, SliceArg::Index(0)])?.cast::<f32>();
    let x = at.slice(&[ALL, SliceArg::Index(1)])?.cast::<f32>();
    let orientation = Array::<f32>::full_like(&score, 0.0);
    let size = Array::<f32>::full_like(&score, size);
    Ok(Features {
        x,
        y,
        score,
        orientation,
        size,
    })
}

/// The keypoint budget `ratio * h * w`, or an `Err` naming a ratio outside `(0, 1]`.
fn budget(ratio: f64, h: usize, w: usize, what: &str) -> Result<usize> {
    if !(ratio > 0.0 && ratio <= 1.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: feature_ratio {ratio} is outside (0, 1]"
        )));
    }
    Ok((ratio * (h * w) as f64).floor() as usize)
}

/// The border a detector with a stencil of radius `least` (`edge >= least`) leaves out of an
/// `h x w` image: `edge`, or `max(h, w, least)` where `edge` is larger. Both test no pixel
/// then (a pixel is tested only where `edge <= x < w - edge` and `edge <= y < h - edge`), so
/// the scores are the same, and the kernels' parameter stays within the image's extents.
fn inner_edge(edge: usize, least: usize, h: usize, w: usize) -> usize {
    edge.min(h.max(w).max(least))
}

/// Options of [`fast_with`] (ArrayFire's `fast` arguments and defaults).
///
/// ```
/// use cuprite_array::image::FastOpts;
/// let o = FastOpts::new().thr(10.0).arc_length(12);
/// assert_eq!((o.thr, o.arc_length, o.non_max, o.edge), (10.0, 12, true, 3));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FastOpts {
    /// How much brighter or darker than the centre a circle pixel must be (20, for 0-255
    /// images).
    pub thr: f64,
    /// The shortest run of such pixels round the circle, 9 to 16 (9: FAST-9).
    pub arc_length: usize,
    /// Keep only 3 x 3 maxima of the score (true).
    pub non_max: bool,
    /// At most this fraction of the pixels become keypoints, the strongest (0.05).
    pub feature_ratio: f64,
    /// Pixels nearer the border than this are not tested, at least 3 (3). An edge that
    /// leaves no pixel to test (`2 edge >= h` or `2 edge >= w`) gives no keypoints.
    pub edge: usize,
}

impl Default for FastOpts {
    fn default() -> Self {
        FastOpts {
            thr: 20.0,
            arc_length: 9,
            non_max: true,
            feature_ratio: 0.05,
            edge: 3,
        }
    }
}

impl FastOpts {
    /// ArrayFire's defaults: threshold 20, FAST-9, non-maximum suppression, ratio 0.05, edge 3.
    pub fn new() -> Self {
        Self::default()
    }
    /// The intensity threshold.
    pub fn thr(mut self, thr: f64) -> Self {
        self.thr = thr;
        self
    }
    /// The arc length, 9 to 16.
    pub fn arc_length(mut self, arc_length: usize) -> Self {
        self.arc_length = arc_length;
        self
    }
    /// Whether to keep only local maxima.
    pub fn non_max(mut self, non_max: bool) -> Self {
        self.non_max = non_max;
        self
    }
    /// The largest fraction of pixels returned.
    pub fn feature_ratio(mut self, feature_ratio: f64) -> Self {
        self.feature_ratio = feature_ratio;
        self
    }
    /// The border left out.
    pub fn edge(mut self, edge: usize) -> Self {
        self.edge = edge;
        self
    }
}

/// FAST corners (ArrayFire's `fast` with its defaults: FAST-9, threshold 20, non-maximum
/// suppression) of a 2-D gray image: a pixel is a corner when 9 consecutive pixels of the
/// 16 on the circle of radius 3 round it are all brighter than it by more than the threshold,
/// or all darker. Its score is the larger of the summed excesses `Σ (c − p − thr)` over the
/// brighter and `Σ (p − c − thr)` over the darker circle pixels. Keypoints come strongest
/// first, with size 7 (the circle's diameter).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::fast};
/// // A white 8 x 8 square on black: its four corners.
/// let mut px = vec![0.0f32; 20 * 20];
/// for y in 6..14 { for x in 6..14 { px[y * 20 + x] = 255.0; } }
/// let f = fast(&Array::from_vec(px, &[20, 20])?)?;
/// assert_eq!(f.len(), 4);
/// let mut at: Vec<_> = f.x.to_vec()?.into_iter().zip(f.y.to_vec()?).collect();
/// at.sort_by(|a, b| a.partial_cmp(b).unwrap());
/// assert_eq!(at, [(6.0, 6.0), (6.0, 13.0), (13.0, 6.0), (13.0, 13.0)]);
/// # Ok(()) }
/// ```
pub fn fast<T: Float>(img: &Array<T>) -> Result<Features> {
    fast_with(img, FastOpts::new())
}

/// [`fast`] with options ([`FastOpts`]).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{FastOpts, fast_with}};
/// let img = Array::<f32>::zeros(&[16, 16]);
/// assert!(fast_with(&img, FastOpts::new().arc_length(12))?.is_empty());
/// assert!(fast_with(&img, FastOpts::new().arc_length(17)).is_err());
/// # Ok(()) }
/// ```
pub fn fast_with<T: Float>(img: &Array<T>, opts: FastOpts) -> Result<Features> {
    let (h, w) = image2(img.shape(), "fast")?;
    if !(9..=16).contains(&opts.arc_length) {
        return Err(Error::InvalidArgument(format!(
            "fast: arc_length {} is outside 9..=16",
            opts.arc_length
        )));
    }
    if !(opts.thr.is_finite() && opts.thr >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "fast: thr {} must be finite and at least 0",
            opts.thr
        )));
    }
    if opts.edge < 3 {
        return Err(Error::InvalidArgument(format!(
            "fast: edge {} is less than the circle's radius 3",
            opts.edge
        )));
    }
    let max = budget(opts.feature_ratio, h, w, "fast")?;
    let st = Stencil::Fast {
        thr: opts.thr,
        arc: opts.arc_length,
        edge: inner_edge(opts.edge, 3, h, w),
    };
    let score = stencil(st, img, None)?.cast::<f32>();
    extract(&score, opts.non_max, 0.0, max, 7.0)
}

/// Options of [`susan_with`] (ArrayFire's `susan` arguments and defaults).
///
/// ```
/// use cuprite_array::image::SusanOpts;
/// let o = SusanOpts::new().geom_thr(18.5);
/// assert_eq!((o.radius, o.diff_thr, o.geom_thr), (3, 32.0, 18.5));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SusanOpts {
    /// The radius of the disc, 1 to 10 (3: the 37-pixel mask).
    pub radius: usize,
    /// The intensity difference `t` of the similarity `exp(−((c − p) / t)⁶)` (32).
    pub diff_thr: f64,
    /// The geometric threshold `g`: a pixel responds with `g − n` where its USAN area `n` is
    /// below it (10).
    pub geom_thr: f64,
    /// At most this fraction of the pixels become keypoints, the strongest (0.05).
    pub feature_ratio: f64,
    /// Pixels nearer the border than this are not tested, at least `radius` (3). An edge
    /// that leaves no pixel to test (`2 edge >= h` or `2 edge >= w`) gives no keypoints.
    pub edge: usize,
}

impl Default for SusanOpts {
    fn default() -> Self {
        SusanOpts {
            radius: 3,
            diff_thr: 32.0,
            geom_thr: 10.0,
            feature_ratio: 0.05,
            edge: 3,
        }
    }
}

impl SusanOpts {
    /// ArrayFire's defaults: radius 3, difference 32, geometric threshold 10, ratio 0.05,
    /// edge 3.
    pub fn new() -> Self {
        Self::default()
    }
    /// The disc's radius.
    pub fn radius(mut self, radius: usize) -> Self {
        self.radius = radius;
        self
    }
    /// The intensity difference.
    pub fn diff_thr(mut self, diff_thr: f64) -> Self {
        self.diff_thr = diff_thr;
        self
    }
    /// The geometric threshold.
    pub fn geom_thr(mut self, geom_thr: f64) -> Self {
        self.geom_thr = geom_thr;
        self
    }
    /// The largest fraction of pixels returned.
    pub fn feature_ratio(mut self, feature_ratio: f64) -> Self {
        self.feature_ratio = feature_ratio;
        self
    }
    /// The border left out.
    pub fn edge(mut self, edge: usize) -> Self {
        self.edge = edge;
        self
    }
}

/// SUSAN corners (ArrayFire's `susan` with its defaults) of a 2-D gray image: the USAN area
/// of a pixel `p` is `n = Σ exp(−((c − p) / t)⁶)` over the pixels `c` of the disc of radius
/// 3 round it (`dx² + dy² ≤ 9`, 37 pixels, `p` included); where `n` is below the geometric
/// threshold `g` the response is `g − n`. Keypoints are the 3 x 3 maxima, strongest first.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{SusanOpts, susan_with}};
/// let mut px = vec![0.0f32; 20 * 20];
/// for y in 6..14 { for x in 6..14 { px[y * 20 + x] = 255.0; } }
/// // A right angle covers 11 of the 37 pixels: corners respond below g = 37 / 2.
/// let f = susan_with(&Array::from_vec(px, &[20, 20])?, SusanOpts::new().geom_thr(18.5))?;
/// assert_eq!(f.len(), 4);
/// # Ok(()) }
/// ```
pub fn susan<T: Float>(img: &Array<T>) -> Result<Features> {
    susan_with(img, SusanOpts::new())
}

/// [`susan`] with options ([`SusanOpts`]).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{SusanOpts, susan_with}};
/// let img = Array::<f32>::zeros(&[16, 16]);
/// assert!(susan_with(&img, SusanOpts::new())?.is_empty());
/// assert!(susan_with(&img, SusanOpts::new().radius(4)).is_err()); // edge 3 < radius 4
/// # Ok(()) }
/// ```
pub fn susan_with<T: Float>(img: &Array<T>, opts: SusanOpts) -> Result<Features> {
    let (h, w) = image2(img.shape(), "susan")?;
    if !(1..=10).contains(&opts.radius) || opts.edge < opts.radius {
        return Err(Error::InvalidArgument(format!(
            "susan: radius {} must be in 1..=10 and edge {} at least the radius",
            opts.radius, opts.edge
        )));
    }
    if !(opts.diff_thr.is_finite() && opts.diff_thr > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "susan: diff_thr {} must be finite and positive",
            opts.diff_thr
        )));
    }
    if !(opts.geom_thr.is_finite() && opts.geom_thr > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "susan: geom_thr {} must be finite and positive",
            opts.geom_thr
        )));
    }
    let max = budget(opts.feature_ratio, h, w, "susan")?;
    let st = Stencil::Susan {
        radius: opts.radius,
        t: opts.diff_thr,
        g: opts.geom_thr,
        edge: inner_edge(opts.edge, opts.radius, h, w),
    };
    let score = stencil(st, img, None)?.cast::<f32>();
    extract(&score, true, 0.0, max, (2 * opts.radius + 1) as f32)
}

/// The normalised Gaussian taps of `n` (odd) points with `sigma`.
pub(crate) fn gaussian_taps(n: usize, sigma: f64) -> Vec<f64> {
    let r = n / 2;
    central_gaussian_taps(r, sigma, r)
}

/// The `2 m + 1` central taps (`m <= r`) of the normalised Gaussian of `2 r + 1` points with
/// `sigma`: the same values as the middle of [`gaussian_taps`] (the same normalising sum, in
/// the same order), without holding the `2 r + 1` taps.
fn central_gaussian_taps(r: usize, sigma: f64, m: usize) -> Vec<f64> {
    let c = r as f64;
    let tap = |i: usize| (-(i as f64 - c).powi(2) / (2.0 * sigma * sigma)).exp();
    let s: f64 = (0..=2 * r).map(tap).sum();
    (r - m..=r + m).map(|i| tap(i) / s).collect()
}

/// `x` (rank 2 or more) correlated with `taps` (odd length) along trailing axis `axis` (0 the
/// rows, 1 the columns of each image), zeros outside the image; same shape.
fn smooth_axis<T: Float>(x: &Array<T>, taps: &[f64], axis: usize) -> Result<Array<T>> {
    let nd = x.ndim();
    let (h, w) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let r = taps.len() / 2;
    let mut widths = vec![(0, 0); nd];
    widths[nd - 2 + axis] = (r, r);
    let p = x.pad(&widths, lit(0.0))?;
    let mut acc: Option<Array<T>> = None;
    for (k, &t) in taps.iter().enumerate() {
        let s = if axis == 0 {
            window(&p, (k, k + h), (0, w))?
        } else {
            window(&p, (0, h), (k, k + w))?
        };
        let term = s * lit::<T>(t);
        acc = Some(match acc {
            None => term,
            Some(a) => a.try_add(&term)?,
        });
    }
    let out = acc.unwrap_or_else(|| x.clone());
    out.eval()?;
    Ok(out)
}

/// `x` smoothed by the separable kernel `taps ⊗ taps` on its two trailing axes, zeros outside
/// the image (ArrayFire's `convolve` with its default, same-size output).
pub(crate) fn smooth<T: Float>(x: &Array<T>, taps: &[f64]) -> Result<Array<T>> {
    smooth_axis(&smooth_axis(x, taps, 0)?, taps, 1)
}

/// The largest radius [`dog`] takes (its Gaussians have at most `2^25 - 1` taps).
const DOG_MAX_RADIUS: usize = (1 << 24) - 1;

/// Difference of Gaussians (ArrayFire's `dog`): `x` blurred by the Gaussian of `2 radius1 + 1`
/// taps less `x` blurred by that of `2 radius2 + 1` taps, each with ArrayFire's default
/// `sigma = 0.25 taps + 0.75`, zeros outside the image; `[..., h, w]` (leading axes a batch).
///
/// # Errors
/// `x` of rank below 2, `radius1` 0 or not below `radius2`, or `radius2` above `2^24 - 1`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::dog};
/// let mut px = vec![0.0f64; 15 * 15];
/// px[7 * 15 + 7] = 1.0;
/// let d = dog(&Array::from_vec(px, &[15, 15])?, 1, 2)?.to_vec()?;
/// // A blob responds positively at its centre.
/// assert!(d[7 * 15 + 7] > 0.0);
/// # Ok(()) }
/// ```
pub fn dog<T: Float>(x: &Array<T>, radius1: usize, radius2: usize) -> Result<Array<T>> {
    let (_, h, w) = image_dims(x.shape(), "dog")?;
    if radius1 == 0 || radius1 >= radius2 {
        return Err(Error::InvalidArgument(format!(
            "dog: radius1 {radius1} must be at least 1 and below radius2 {radius2}"
        )));
    }
    if radius2 > DOG_MAX_RADIUS {
        return Err(Error::InvalidArgument(format!(
            "dog: radius2 {radius2} is above {DOG_MAX_RADIUS}"
        )));
    }
    // A tap `d` from the centre with `|d| >= max(h, w)` reads only the zeros outside the image
    // on both axes: the taps past that are left out, which leaves every sum unchanged.
    let reach = h.max(w).saturating_sub(1);
    let blur = |r: usize| {
        let n = 2 * r + 1;
        smooth(
            x,
            &central_gaussian_taps(r, 0.25 * n as f64 + 0.75, r.min(reach)),
        )
    };
    blur(radius1)?.try_sub(&blur(radius2)?)
}

/// Options of [`harris_with`] (ArrayFire's `harris` arguments and defaults).
///
/// ```
/// use cuprite_array::image::HarrisOpts;
/// let o = HarrisOpts::new().max_corners(100).block_size(5);
/// assert_eq!((o.max_corners, o.min_response, o.sigma, o.block_size, o.k_thr),
///            (100, 1e5, 1.0, 5, 0.04));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HarrisOpts {
    /// At most this many corners, the strongest (500; 0 for all).
    pub max_corners: usize,
    /// The least response kept (1e5, for 0-255 images).
    pub min_response: f64,
    /// The Gaussian window's standard deviation, 0.5 to 5 (1), used when `block_size` is 0.
    pub sigma: f64,
    /// A square window of this side, 3 to 31, instead of the Gaussian (0: Gaussian).
    pub block_size: usize,
    /// Harris's constant `k`, at least 0.01 (0.04).
    pub k_thr: f64,
}

impl Default for HarrisOpts {
    fn default() -> Self {
        HarrisOpts {
            max_corners: 500,
            min_response: 1e5,
            sigma: 1.0,
            block_size: 0,
            k_thr: 0.04,
        }
    }
}

impl HarrisOpts {
    /// ArrayFire's defaults: 500 corners, response 1e5, sigma 1, Gaussian window, k 0.04.
    pub fn new() -> Self {
        Self::default()
    }
    /// The most corners returned (0 for all).
    pub fn max_corners(mut self, max_corners: usize) -> Self {
        self.max_corners = max_corners;
        self
    }
    /// The least response.
    pub fn min_response(mut self, min_response: f64) -> Self {
        self.min_response = min_response;
        self
    }
    /// The Gaussian window's standard deviation.
    pub fn sigma(mut self, sigma: f64) -> Self {
        self.sigma = sigma;
        self
    }
    /// A square window's side (0: Gaussian).
    pub fn block_size(mut self, block_size: usize) -> Self {
        self.block_size = block_size;
        self
    }
    /// Harris's constant.
    pub fn k_thr(mut self, k_thr: f64) -> Self {
        self.k_thr = k_thr;
        self
    }
}

/// The window taps of Harris options, or an `Err` naming the values out of range.
fn harris_taps(o: &HarrisOpts) -> Result<Vec<f64>> {
    if o.block_size > 0 {
        if !(3..=31).contains(&o.block_size) {
            return Err(Error::InvalidArgument(format!(
                "harris: block_size {} is outside 3..=31 (0 for the Gaussian window)",
                o.block_size
            )));
        }
        return Ok(vec![1.0 / o.block_size as f64; o.block_size]);
    }
    if !(0.5..=5.0).contains(&o.sigma) {
        return Err(Error::InvalidArgument(format!(
            "harris: sigma {} is outside [0.5, 5]",
            o.sigma
        )));
    }
    let r = (3.0 * o.sigma).ceil() as usize;
    Ok(gaussian_taps(2 * r + 1, o.sigma))
}

/// The Harris response `det(M) − k tr(M)²` of a `[h, w]` f32 image, `M` the structure tensor
/// of the central-difference gradients averaged over the window `taps ⊗ taps`; 0 within
/// `taps.len() / 2 + 1` pixels of the border (where the window would reach the zero padding).
pub(crate) fn harris_response(img: &Array<f32>, taps: &[f64], k: f64) -> Result<Array<f32>> {
    let (h, w) = (img.shape()[0], img.shape()[1]);
    let p = img.pad(&[(1, 1), (1, 1)], 0.0)?;
    let ix = window(&p, (1, h + 1), (2, w + 2))?.try_sub(&window(&p, (1, h + 1), (0, w))?)? * 0.5;
    let iy = window(&p, (2, h + 2), (1, w + 1))?.try_sub(&window(&p, (0, h), (1, w + 1))?)? * 0.5;
    let t = Array::stack(
        &[&ix.try_mul(&ix)?, &iy.try_mul(&iy)?, &ix.try_mul(&iy)?],
        0,
    )?;
    let m = smooth(&t, taps)?;
    let (sxx, syy, sxy) = (
        m.slice(&[SliceArg::Index(0)])?,
        m.slice(&[SliceArg::Index(1)])?,
        m.slice(&[SliceArg::Index(2)])?,
    );
    let tr = sxx.try_add(&syy)?;
    let det = sxx.try_mul(&syy)?.try_sub(&sxy.try_mul(&sxy)?)?;
    let resp = det.try_sub(&(tr.try_mul(&tr)? * k as f32))?;
    let b = taps.len() / 2 + 1;
    if 2 * b >= h || 2 * b >= w {
        return Ok(Array::<f32>::full_like(img, 0.0));
    }
    window(&resp, (b, h - b), (b, w - b))?.pad(&[(b, b), (b, b)], 0.0)
}

/// Harris corners (ArrayFire's `harris` with its defaults) of a 2-D gray image: the response
/// `det(M) − k tr(M)²` of the structure tensor `M` of the central-difference gradients,
/// averaged over a Gaussian window (sigma 1) or a square block; keypoints are its 3 x 3
/// maxima above `min_response`, strongest first, at most `max_corners`, with size the
/// window's side.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::harris};
/// let mut px = vec![0.0f32; 32 * 32];
/// for y in 10..22 { for x in 10..22 { px[y * 32 + x] = 255.0; } }
/// let f = harris(&Array::from_vec(px, &[32, 32])?)?;
/// assert_eq!(f.len(), 4);
/// # Ok(()) }
/// ```
pub fn harris<T: Float>(img: &Array<T>) -> Result<Features> {
    harris_with(img, HarrisOpts::new())
}

/// [`harris`] with options ([`HarrisOpts`]).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{HarrisOpts, harris_with}};
/// let img = Array::<f32>::zeros(&[16, 16]);
/// assert!(harris_with(&img, HarrisOpts::new().block_size(3))?.is_empty());
/// assert!(harris_with(&img, HarrisOpts::new().k_thr(0.001)).is_err());
/// # Ok(()) }
/// ```
pub fn harris_with<T: Float>(img: &Array<T>, opts: HarrisOpts) -> Result<Features> {
    image2(img.shape(), "harris")?;
    if !(opts.k_thr.is_finite() && opts.k_thr >= 0.01) {
        return Err(Error::InvalidArgument(format!(
            "harris: k_thr {} is below 0.01",
            opts.k_thr
        )));
    }
    if !opts.min_response.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "harris: min_response {} is not finite",
            opts.min_response
        )));
    }
    let taps = harris_taps(&opts)?;
    let resp = harris_response(&img.cast::<f32>(), &taps, opts.k_thr)?;
    let max = if opts.max_corners == 0 {
        usize::MAX
    } else {
        opts.max_corners
    };
    extract(
        &resp,
        true,
        opts.min_response as f32,
        max,
        taps.len() as f32,
    )
}
