//! Colour conversions (ArrayFire's `rgb2gray`, `gray2rgb`, `rgb2hsv`, `hsv2rgb`, `rgb2ycbcr`,
//! `ycbcr2rgb`, `colorSpace`) as lazy element-wise expressions: each conversion is one fused
//! kernel on the GPU and one pass on the CPU, and fuses further with what surrounds it.
//!
//! Colour images are floating point, channels last (`[..., 3]`: a `[h, w, 3]` image, a batch
//! `[n, h, w, 3]`, or a list of colours `[n, 3]`); gray images have no channel axis. RGB and
//! HSV values lie in `[0, 1]` (hue too, as a fraction of a turn, as in ArrayFire and MATLAB);
//! Y'CbCr values are the digital ones of the standards (Y' in `[16, 235]`, Cb and Cr in
//! `[16, 240]`). Convert `u8` pixels with `img.cast::<f32>() / 255.0`.

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::{Error, Result};
use crate::shape::SliceArg;

fn c<T: Float>(x: f64) -> T {
    T::from_scalar(Scalar::F64(x))
}

/// Channel `k` of a `[..., n]` array (the last axis dropped).
fn channel<T: Float>(img: &Array<T>, k: usize) -> Result<Array<T>> {
    let mut args = vec![
        SliceArg::Range {
            start: None,
            end: None,
            step: 1
        };
        img.ndim() - 1
    ];
    args.push(SliceArg::Index(k as isize));
    img.slice(&args)
}

/// The three channels of a `[..., 3]` colour array, or an `Err` naming its shape.
fn split3<T: Float>(img: &Array<T>, what: &str) -> Result<[Array<T>; 3]> {
    if img.ndim() < 2 || img.shape()[img.ndim() - 1] != 3 {
        return Err(Error::Shape(format!(
            "{what} takes a colour array of shape [..., 3] (rank 2 or more, channels last), \
             got shape {:?}",
            img.shape()
        )));
    }
    Ok([channel(img, 0)?, channel(img, 1)?, channel(img, 2)?])
}

/// Three channels joined along a new last axis.
fn join3<T: Float>(a: &Array<T>, b: &Array<T>, c: &Array<T>) -> Result<Array<T>> {
    Array::stack(&[a, b, c], -1)
}

/// The weights of [`rgb2gray_with`] and the factors of [`gray2rgb_with`] (ArrayFire's
/// `rPercent`, `gPercent`, `bPercent`).
///
/// ```
/// use cuprite_array::image::GrayOpts;
/// // ArrayFire's defaults for rgb2gray: the BT.709 luma weights.
/// assert_eq!(GrayOpts::new().r, 0.2126);
/// assert_eq!(GrayOpts::bt601(), GrayOpts::new().r(0.299).g(0.587).b(0.114));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrayOpts {
    /// The weight of red.
    pub r: f64,
    /// The weight of green.
    pub g: f64,
    /// The weight of blue.
    pub b: f64,
}

impl Default for GrayOpts {
    /// ArrayFire's defaults of `rgb2gray`: 0.2126, 0.7152, 0.0722 (BT.709's luma weights).
    fn default() -> Self {
        GrayOpts {
            r: 0.2126,
            g: 0.7152,
            b: 0.0722,
        }
    }
}

impl GrayOpts {
    /// ArrayFire's defaults of `rgb2gray` (0.2126, 0.7152, 0.0722).
    pub fn new() -> Self {
        Self::default()
    }
    /// BT.601's luma weights 0.299, 0.587, 0.114 (OpenCV's and MATLAB's `rgb2gray`).
    pub fn bt601() -> Self {
        GrayOpts {
            r: 0.299,
            g: 0.587,
            b: 0.114,
        }
    }
    /// The weight of red.
    pub fn r(mut self, r: f64) -> Self {
        self.r = r;
        self
    }
    /// The weight of green.
    pub fn g(mut self, g: f64) -> Self {
        self.g = g;
        self
    }
    /// The weight of blue.
    pub fn b(mut self, b: f64) -> Self {
        self.b = b;
        self
    }
    fn check(self, what: &str) -> Result<Self> {
        if [self.r, self.g, self.b].iter().all(|v| v.is_finite()) {
            Ok(self)
        } else {
            Err(Error::InvalidArgument(format!(
                "{what}: weights {}, {}, {} must be finite",
                self.r, self.g, self.b
            )))
        }
    }
}

/// Gray from RGB, `0.2126 R + 0.7152 G + 0.0722 B` (ArrayFire's `rgb2gray` and its defaults):
/// `[..., 3]` to `[...]`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::rgb2gray};
/// let px = Array::from_vec(vec![1.0f64, 0.0, 0.0, 0.5, 0.5, 0.5], &[1, 2, 3])?;
/// let g = rgb2gray(&px)?;
/// assert_eq!(g.shape(), &[1, 2]);
/// let v = g.to_vec()?;
/// assert!((v[0] - 0.2126).abs() < 1e-12 && (v[1] - 0.5).abs() < 1e-12);
/// # Ok(()) }
/// ```
pub fn rgb2gray<T: Float>(img: &Array<T>) -> Result<Array<T>> {
    rgb2gray_with(img, GrayOpts::new())
}

/// [`rgb2gray`] with other weights: `r R + g G + b B`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{GrayOpts, rgb2gray_with}};
/// let px = Array::from_vec(vec![0.0f32, 1.0, 0.0], &[1, 3])?;
/// assert_eq!(rgb2gray_with(&px, GrayOpts::bt601())?.to_vec()?, [0.587]);
/// # Ok(()) }
/// ```
pub fn rgb2gray_with<T: Float>(img: &Array<T>, opts: GrayOpts) -> Result<Array<T>> {
    let o = opts.check("rgb2gray")?;
    let [r, g, b] = split3(img, "rgb2gray")?;
    (r * c::<T>(o.r))
        .try_add(g * c::<T>(o.g))?
        .try_add(b * c::<T>(o.b))
}

/// RGB from gray, every channel the gray value (ArrayFire's `gray2rgb` with its default factors
/// 1): `[...]` to `[..., 3]`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::gray2rgb};
/// let g = Array::from_vec(vec![0.25f32, 1.0], &[1, 2])?;
/// let rgb = gray2rgb(&g)?;
/// assert_eq!(rgb.shape(), &[1, 2, 3]);
/// assert_eq!(rgb.to_vec()?, [0.25, 0.25, 0.25, 1.0, 1.0, 1.0]);
/// # Ok(()) }
/// ```
pub fn gray2rgb<T: Float>(gray: &Array<T>) -> Result<Array<T>> {
    gray2rgb_with(gray, GrayOpts::new().r(1.0).g(1.0).b(1.0))
}

/// [`gray2rgb`] with factors: the channels `r Y`, `g Y`, `b Y`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{GrayOpts, gray2rgb_with}};
/// let g = Array::from_vec(vec![0.5f64], &[1])?;
/// let rgb = gray2rgb_with(&g, GrayOpts::new().r(1.0).g(0.5).b(0.0))?;
/// assert_eq!(rgb.to_vec()?, [0.5, 0.25, 0.0]);
/// # Ok(()) }
/// ```
pub fn gray2rgb_with<T: Float>(gray: &Array<T>, opts: GrayOpts) -> Result<Array<T>> {
    let o = opts.check("gray2rgb")?;
    if gray.ndim() == 0 {
        return Err(Error::Shape(
            "gray2rgb takes a gray array of rank 1 or more, got a scalar".into(),
        ));
    }
    join3(
        &(gray * c::<T>(o.r)),
        &(gray * c::<T>(o.g)),
        &(gray * c::<T>(o.b)),
    )
}

/// HSV from RGB (ArrayFire's `rgb2hsv`): `V = max(R, G, B)`, `S = (V − min) / V` (0 for
/// black), and the hue as a fraction of a turn in `[0, 1)` (0 for grays), red at 0, green at
/// 1/3, blue at 2/3.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::rgb2hsv};
/// let px = Array::from_vec(vec![0.0f64, 0.5, 0.0], &[1, 3])?;
/// let hsv = rgb2hsv(&px)?.to_vec()?;
/// assert!((hsv[0] - 1.0 / 3.0).abs() < 1e-12);
/// assert_eq!(&hsv[1..], [1.0, 0.5]);
/// # Ok(()) }
/// ```
pub fn rgb2hsv<T: Float>(img: &Array<T>) -> Result<Array<T>> {
    let [r, g, b] = split3(img, "rgb2hsv")?;
    let v = r.maximum(&g).maximum(&b);
    let lo = r.minimum(&g).minimum(&b);
    let chroma = v.try_sub(&lo)?;
    let zero = c::<T>(0.0);
    let one = c::<T>(1.0);
    let pos = chroma.greater(zero);
    // Divisors made 1 where they are 0, so that the unselected branch stays finite.
    let cs = Array::select(&pos, &chroma, one)?;
    let lit = v.greater(zero);
    let s = Array::select(&lit, chroma.try_div(Array::select(&lit, &v, one)?)?, zero)?;
    // The sextant: measured from the largest channel, ties resolved red, then green.
    let hr = g.try_sub(&b)?.try_div(&cs)?;
    let hg = b.try_sub(&r)?.try_div(&cs)? + c::<T>(2.0);
    let hb = r.try_sub(&g)?.try_div(&cs)? + c::<T>(4.0);
    let h6 = Array::select(&v.equal(&r), &hr, Array::select(&v.equal(&g), &hg, &hb)?)?;
    let h = (h6 / c::<T>(6.0)).remainder(one);
    let h = Array::select(&pos, &h, zero)?;
    join3(&h, &s, &v)
}

/// RGB from HSV (ArrayFire's `hsv2rgb`), the inverse of [`rgb2hsv`]: hue a fraction of a turn
/// (taken modulo 1), saturation and value in `[0, 1]`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::hsv2rgb};
/// let hsv = Array::from_vec(vec![2.0f64 / 3.0, 1.0, 0.5], &[1, 3])?;
/// let rgb = hsv2rgb(&hsv)?.to_vec()?;
/// assert!(rgb[0].abs() < 1e-12 && rgb[1].abs() < 1e-12 && (rgb[2] - 0.5).abs() < 1e-12);
/// # Ok(()) }
/// ```
pub fn hsv2rgb<T: Float>(img: &Array<T>) -> Result<Array<T>> {
    let [h, s, v] = split3(img, "hsv2rgb")?;
    let h6 = &h * c::<T>(6.0);
    let vs = v.try_mul(&s)?;
    // Channel n (5 red, 3 green, 1 blue): V − V S clamp(min(k, 4 − k), 0, 1) with
    // k = (n + 6 H) mod 6.
    let chan = |n: f64| -> Result<Array<T>> {
        let k = (&h6 + c::<T>(n)).remainder(c::<T>(6.0));
        let w = k
            .minimum((&k * c::<T>(-1.0)) + c::<T>(4.0))
            .clamp(c::<T>(0.0), c::<T>(1.0));
        v.try_sub(vs.try_mul(&w)?)
    };
    join3(&chan(5.0)?, &chan(3.0)?, &chan(1.0)?)
}

/// The Y'CbCr standards of [`rgb2ycbcr_with`] (ArrayFire's `af_ycc_std`), by their luma
/// weights `kr`, `kb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum YccStd {
    /// ITU-R BT.601: `kr = 0.299`, `kb = 0.114` (ArrayFire's default).
    #[default]
    Bt601,
    /// ITU-R BT.709: `kr = 0.2126`, `kb = 0.0722`.
    Bt709,
    /// ITU-R BT.2020: `kr = 0.2627`, `kb = 0.0593`.
    Bt2020,
}

impl YccStd {
    /// The luma weights `(kr, kb)` (green's is `1 − kr − kb`).
    #[must_use]
    pub fn weights(self) -> (f64, f64) {
        match self {
            YccStd::Bt601 => (0.299, 0.114),
            YccStd::Bt709 => (0.2126, 0.0722),
            YccStd::Bt2020 => (0.2627, 0.0593),
        }
    }
}

/// Options of [`rgb2ycbcr_with`], [`ycbcr2rgb_with`] and [`color_space_with`]: the Y'CbCr
/// standard (BT.601 by default, as ArrayFire).
///
/// ```
/// use cuprite_array::image::{YccOpts, YccStd};
/// assert_eq!(YccOpts::new().standard, YccStd::Bt601);
/// assert_eq!(YccOpts::new().standard(YccStd::Bt709).standard, YccStd::Bt709);
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct YccOpts {
    /// The standard.
    pub standard: YccStd,
}

impl YccOpts {
    /// BT.601.
    pub fn new() -> Self {
        Self::default()
    }
    /// The standard.
    pub fn standard(mut self, standard: YccStd) -> Self {
        self.standard = standard;
        self
    }
}

/// Digital Y'CbCr from RGB in `[0, 1]` by BT.601 (ArrayFire's `rgb2ycbcr` default): with
/// `Y = kr R + (1 − kr − kb) G + kb B`, `Y' = 16 + 219 Y`, `Cb = 128 + 112 (B − Y) / (1 − kb)`,
/// `Cr = 128 + 112 (R − Y) / (1 − kr)`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::rgb2ycbcr};
/// let white_black = Array::from_vec(vec![1.0f64, 1.0, 1.0, 0.0, 0.0, 0.0], &[2, 3])?;
/// let y = rgb2ycbcr(&white_black)?.to_vec()?;
/// let want = [235.0, 128.0, 128.0, 16.0, 128.0, 128.0];
/// assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-9));
/// # Ok(()) }
/// ```
pub fn rgb2ycbcr<T: Float>(img: &Array<T>) -> Result<Array<T>> {
    rgb2ycbcr_with(img, YccOpts::new())
}

/// [`rgb2ycbcr`] by another standard.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{YccOpts, YccStd, rgb2ycbcr_with}};
/// let red = Array::from_vec(vec![1.0f64, 0.0, 0.0], &[1, 3])?;
/// let y = rgb2ycbcr_with(&red, YccOpts::new().standard(YccStd::Bt709))?.to_vec()?;
/// assert!((y[0] - (16.0 + 219.0 * 0.2126)).abs() < 1e-9 && (y[2] - 240.0).abs() < 1e-9);
/// # Ok(()) }
/// ```
pub fn rgb2ycbcr_with<T: Float>(img: &Array<T>, opts: YccOpts) -> Result<Array<T>> {
    let (kr, kb) = opts.standard.weights();
    let [r, g, b] = split3(img, "rgb2ycbcr")?;
    let y = (&r * c::<T>(kr))
        .try_add(&g * c::<T>(1.0 - kr - kb))?
        .try_add(&b * c::<T>(kb))?;
    let cb = b.try_sub(&y)? * c::<T>(112.0 / (1.0 - kb)) + c::<T>(128.0);
    let cr = r.try_sub(&y)? * c::<T>(112.0 / (1.0 - kr)) + c::<T>(128.0);
    join3(&(y * c::<T>(219.0) + c::<T>(16.0)), &cb, &cr)
}

/// RGB from digital Y'CbCr by BT.601 (ArrayFire's `ycbcr2rgb` default), the inverse of
/// [`rgb2ycbcr`].
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::ycbcr2rgb};
/// let gray = Array::from_vec(vec![125.5f64, 128.0, 128.0], &[1, 3])?;
/// let rgb = ycbcr2rgb(&gray)?.to_vec()?;
/// assert!(rgb.iter().all(|v| (v - 0.5).abs() < 1e-12));
/// # Ok(()) }
/// ```
pub fn ycbcr2rgb<T: Float>(img: &Array<T>) -> Result<Array<T>> {
    ycbcr2rgb_with(img, YccOpts::new())
}

/// [`ycbcr2rgb`] by another standard.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{YccOpts, YccStd, rgb2ycbcr_with, ycbcr2rgb_with}};
/// let o = YccOpts::new().standard(YccStd::Bt2020);
/// let px = Array::from_vec(vec![0.2f64, 0.4, 0.9], &[1, 3])?;
/// let back = ycbcr2rgb_with(&rgb2ycbcr_with(&px, o)?, o)?.to_vec()?;
/// assert!(back.iter().zip([0.2, 0.4, 0.9]).all(|(a, b)| (a - b).abs() < 1e-12));
/// # Ok(()) }
/// ```
pub fn ycbcr2rgb_with<T: Float>(img: &Array<T>, opts: YccOpts) -> Result<Array<T>> {
    let (kr, kb) = opts.standard.weights();
    let [y, cb, cr] = split3(img, "ycbcr2rgb")?;
    let l = (y - c::<T>(16.0)) * c::<T>(1.0 / 219.0);
    let pb = cb - c::<T>(128.0);
    let pr = cr - c::<T>(128.0);
    let r = l.try_add(&pr * c::<T>((1.0 - kr) / 112.0))?;
    let b = l.try_add(&pb * c::<T>((1.0 - kb) / 112.0))?;
    let g = l.try_sub(&r * c::<T>(kr))?.try_sub(&b * c::<T>(kb))? * c::<T>(1.0 / (1.0 - kr - kb));
    join3(&r, &g, &b)
}

/// The colour spaces of [`color_space`] (ArrayFire's `af_cspace_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorSpace {
    /// One channel, no channel axis.
    Gray,
    /// Red, green, blue in `[0, 1]`.
    Rgb,
    /// Hue (a fraction of a turn), saturation, value.
    Hsv,
    /// Digital Y'CbCr of a standard ([`YccOpts`]).
    YCbCr,
}

/// `img` converted from the space `from` to the space `to` (ArrayFire's `colorSpace`), through
/// RGB where neither is RGB; gray from RGB with [`rgb2gray`]'s weights, Y'CbCr by BT.601.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{ColorSpace, color_space}};
/// let hsv = Array::from_vec(vec![0.0f64, 0.0, 0.5], &[1, 3])?;
/// let ycc = color_space(&hsv, ColorSpace::YCbCr, ColorSpace::Hsv)?.to_vec()?;
/// assert!((ycc[0] - (16.0 + 219.0 * 0.5)).abs() < 1e-9 && (ycc[1] - 128.0).abs() < 1e-9);
/// # Ok(()) }
/// ```
pub fn color_space<T: Float>(img: &Array<T>, to: ColorSpace, from: ColorSpace) -> Result<Array<T>> {
    color_space_with(img, to, from, YccOpts::new())
}

/// [`color_space`] with the Y'CbCr standard.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{ColorSpace, YccOpts, YccStd, color_space_with}};
/// let g = Array::from_vec(vec![0.0f64, 1.0], &[2])?;
/// let o = YccOpts::new().standard(YccStd::Bt709);
/// let y = color_space_with(&g, ColorSpace::YCbCr, ColorSpace::Gray, o)?.to_vec()?;
/// assert!((y[3] - 235.0).abs() < 1e-9 && (y[4] - 128.0).abs() < 1e-9);
/// # Ok(()) }
/// ```
pub fn color_space_with<T: Float>(
    img: &Array<T>,
    to: ColorSpace,
    from: ColorSpace,
    opts: YccOpts,
) -> Result<Array<T>> {
    if to == from {
        return Ok(img.clone());
    }
    let rgb = match from {
        ColorSpace::Rgb => img.clone(),
        ColorSpace::Gray => gray2rgb(img)?,
        ColorSpace::Hsv => hsv2rgb(img)?,
        ColorSpace::YCbCr => ycbcr2rgb_with(img, opts)?,
    };
    match to {
        ColorSpace::Rgb => Ok(rgb),
        ColorSpace::Gray => rgb2gray(&rgb),
        ColorSpace::Hsv => rgb2hsv(&rgb),
        ColorSpace::YCbCr => rgb2ycbcr_with(&rgb, opts),
    }
}
