//! ArrayFire's geometric transforms (`resize`, `transform`, `rotate`, `translate`, `scale`,
//! `skew`, `transform_coords`) on the trailing two axes of an array (ArrayFire's dimensions 0
//! and 1: rows, then columns), the leading axes a batch (its dimensions 2 and 3).
//!
//! A transform matrix `[[t0, t1, t2], [t3, t4, t5]]` (and `[t6, t7, t8]` for a projective one)
//! maps output `(x, y)` (row, column) to the input point `(t0 x + t1 y + t2, t3 x + t4 y + t5)`
//! (divided by `t6 x + t7 y + t8`) when `inverse` is set (ArrayFire's default), and is
//! inverted first otherwise. A point outside `[-1e-4, rows) x [-1e-4, cols)` gives 0; inside,
//! nearest and lower take 0 for a sample outside, bilinear and bicubic repeat the edge, as
//! ArrayFire does. Where ArrayFire's CPU and CUDA backends differ from these rules (their
//! rotation rounds the matrix to three decimals, their forward affine inverse swaps the
//! off-diagonal terms without negating them) cuprite takes the exact matrix and inverse.

use super::elem::ImageElement;
use super::sample::{Kind, Map};
use super::scipy::{Plan, bad, resample};
use crate::array::Array;
use crate::error::Result;
use crate::image::Boundary;

/// ArrayFire's interpolation methods (`af::interpType`) of its geometric transforms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interp {
    /// The nearest sample (`AF_INTERP_NEAREST`; halves round up).
    #[default]
    Nearest,
    /// The sample below (`AF_INTERP_LOWER`: the floor of each coordinate).
    Lower,
    /// Bilinear (`AF_INTERP_BILINEAR`).
    Bilinear,
    /// Bicubic (`AF_INTERP_BICUBIC`): per axis the cubic `a t^3 + b t^2 + c t + d` through
    /// the four samples with ArrayFire's coefficients (`a = v3 - v2 - v0 + v1`).
    Bicubic,
    /// Bicubic spline (`AF_INTERP_BICUBIC_SPLINE`): Catmull-Rom per axis.
    BicubicSpline,
    /// The mean of the input cells each output cell covers ([`resize`] only; PyTorch's
    /// `mode="area"`, which ArrayFire does not have).
    Area,
}

impl Interp {
    /// The resampler's kind and the rule of its samples outside the image.
    fn kind(self, clamp: bool) -> (Kind, Boundary) {
        let hold = if clamp {
            Boundary::Nearest
        } else {
            Boundary::GridConstant(0.0)
        };
        match self {
            Interp::Nearest => (Kind::AfNearest, hold),
            Interp::Lower => (Kind::AfLower, hold),
            Interp::Bilinear => (Kind::AfBilinear, Boundary::Nearest),
            Interp::Bicubic => (Kind::AfBicubic, Boundary::Nearest),
            Interp::BicubicSpline => (Kind::AfBicubicSpline, Boundary::Nearest),
            Interp::Area => (Kind::Area, Boundary::Nearest),
        }
    }
}

/// Options of [`resize_with`]: ArrayFire's `method` (default [`Interp::Nearest`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct ResizeOpts {
    pub(crate) method: Interp,
}

impl ResizeOpts {
    /// ArrayFire's default: nearest.
    pub fn new() -> Self {
        ResizeOpts::default()
    }
    /// The interpolation method.
    pub fn method(self, method: Interp) -> Self {
        ResizeOpts { method }
    }
}

/// Options of [`transform_with`] and [`skew_with`]: ArrayFire's `odim0`, `odim1` (default the
/// input's), `method` (default nearest) and `inverse` (default `true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct TransformOpts {
    pub(crate) odims: Option<(usize, usize)>,
    pub(crate) method: Interp,
    pub(crate) inverse: bool,
}

impl Default for TransformOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl TransformOpts {
    /// ArrayFire's defaults: the input's size, nearest, inverse.
    pub fn new() -> Self {
        TransformOpts {
            odims: None,
            method: Interp::Nearest,
            inverse: true,
        }
    }
    /// The output's rows and columns (the input's where either is 0).
    pub fn odims(self, odim0: usize, odim1: usize) -> Self {
        TransformOpts {
            odims: Some((odim0, odim1)),
            ..self
        }
    }
    /// The interpolation method.
    pub fn method(self, method: Interp) -> Self {
        TransformOpts { method, ..self }
    }
    /// Whether the matrix maps output points to input points (`true`) or input to output.
    pub fn inverse(self, inverse: bool) -> Self {
        TransformOpts { inverse, ..self }
    }
}

/// Options of [`translate_with`] and [`scale_with`]: ArrayFire's `odim0`, `odim1` (default:
/// the input's for translate, the scaled size for scale) and `method` (default nearest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct WarpOpts {
    pub(crate) odims: Option<(usize, usize)>,
    pub(crate) method: Interp,
}

impl WarpOpts {
    /// ArrayFire's defaults.
    pub fn new() -> Self {
        WarpOpts::default()
    }
    /// The output's rows and columns.
    pub fn odims(self, odim0: usize, odim1: usize) -> Self {
        WarpOpts {
            odims: Some((odim0, odim1)),
            ..self
        }
    }
    /// The interpolation method.
    pub fn method(self, method: Interp) -> Self {
        WarpOpts { method, ..self }
    }
}

/// Options of [`rotate_with`]: ArrayFire's `crop` (default `true`: the input's size; `false`:
/// the size that holds the whole rotated input) and `method` (default nearest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct RotateOpts {
    pub(crate) crop: bool,
    pub(crate) method: Interp,
}

impl Default for RotateOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl RotateOpts {
    /// ArrayFire's defaults: cropped, nearest.
    pub fn new() -> Self {
        RotateOpts {
            crop: true,
            method: Interp::Nearest,
        }
    }
    /// Whether the output keeps the input's size.
    pub fn crop(self, crop: bool) -> Self {
        RotateOpts { crop, ..self }
    }
    /// The interpolation method.
    pub fn method(self, method: Interp) -> Self {
        RotateOpts { method, ..self }
    }
}

/// The output size of `odims`: ArrayFire takes the input's size `n` where either is 0.
fn out_dims(odims: Option<(usize, usize)>, n: (usize, usize)) -> (usize, usize) {
    match odims {
        Some((a, b)) if a != 0 && b != 0 => (a, b),
        _ => n,
    }
}

/// The trailing two extents of `x`, or an `Err`.
fn plane<T: ImageElement>(x: &Array<T>, what: &str) -> Result<(usize, usize)> {
    let s = x.shape();
    if s.len() < 2 {
        return Err(bad(format!(
            "{what}: an array of shape {s:?} (at least 2 axes: rows, columns)"
        )));
    }
    Ok((s[s.len() - 2], s[s.len() - 1]))
}

/// `x` resampled by the output-to-input matrix `m` (2 or 3 rows) into `odims`.
fn warp<T: ImageElement>(
    x: &Array<T>,
    m: &[[f64; 3]],
    odims: (usize, usize),
    method: Interp,
    clamp: bool,
    what: &str,
) -> Result<Array<T>> {
    let flat: Vec<f64> = m.iter().flatten().copied().collect();
    if flat.iter().any(|v| !v.is_finite()) {
        return Err(bad(format!("{what}: the matrix {m:?} is not finite")));
    }
    let (kind, mode) = method.kind(clamp);
    if kind == Kind::Area {
        return Err(bad(format!(
            "{what}: the area method is resize's only (nearest, lower, bilinear, bicubic, \
             bicubic spline are taken)"
        )));
    }
    let row = |r: &[f64; 3]| [r[0], r[1], 0.0, r[2]];
    let map = Map::Affine {
        m: [row(&m[0]), row(&m[1]), [0.0; 4]],
        p: m.get(2).map(row),
    };
    let plan = Plan {
        rank: 2,
        map,
        out: vec![odims.0, odims.1],
        kind,
        order: 0,
        mode,
        prefilter: false,
    };
    resample(x, plan, None, what)
}

/// ArrayFire's `resize`: the trailing two axes of `x` resampled to `odim0 x odim1`, output
/// `(x, y)` taking the input at `(x n0 / odim0, y n1 / odim1)`; nearest (samples past the
/// edge repeat it).
///
/// ```
/// use cuprite_array::{Array, Device, image::af};
/// let a = Array::<u8>::from_slice_on(Device::CPU, &[1, 2, 3, 4], &[2, 2])?;
/// // Output 1 takes input 0.5, which rounds up to 1 (ArrayFire's rule).
/// let r = af::resize(&a, 4, 4)?;
/// assert_eq!(r.to_vec()?, vec![1, 2, 2, 2, 3, 4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn resize<T: ImageElement>(x: &Array<T>, odim0: usize, odim1: usize) -> Result<Array<T>> {
    resize_with(x, odim0, odim1, ResizeOpts::new())
}

/// ArrayFire's `resize` with its `method` (and PyTorch's area average).
///
/// ```
/// use cuprite_array::{Array, Device, image::af::{self, Interp, ResizeOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 3.0, 5.0, 7.0], &[1, 4])?;
/// let r = af::resize_with(&a, 1, 2, ResizeOpts::new().method(Interp::Area))?;
/// assert_eq!(r.to_vec()?, vec![2.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn resize_with<T: ImageElement>(
    x: &Array<T>,
    odim0: usize,
    odim1: usize,
    opts: ResizeOpts,
) -> Result<Array<T>> {
    let what = "resize";
    let (n0, n1) = plane(x, what)?;
    if odim0 == 0 || odim1 == 0 {
        return Err(bad(format!(
            "{what}: an output of {odim0} x {odim1} (both above 0)"
        )));
    }
    let (kind, mode) = opts.method.kind(true);
    let (s0, s1) = (n0 as f64 / odim0 as f64, n1 as f64 / odim1 as f64);
    let plan = Plan {
        rank: 2,
        map: Map::Affine {
            m: [[s0, 0.0, 0.0, 0.0], [0.0, s1, 0.0, 0.0], [0.0; 4]],
            p: None,
        },
        out: vec![odim0, odim1],
        kind,
        order: 0,
        mode,
        prefilter: false,
    };
    resample(x, plan, None, what)
}

/// The inverse of the 2 x 3 affine or 3 x 3 projective matrix `m`, or an `Err` where it is
/// singular.
fn invert(m: &[[f64; 3]], what: &str) -> Result<Vec<[f64; 3]>> {
    let mut a = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    for (i, r) in m.iter().enumerate() {
        a[i] = *r;
    }
    let cof =
        |r0: usize, r1: usize, c0: usize, c1: usize| a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0];
    let adj = [
        [cof(1, 2, 1, 2), -cof(0, 2, 1, 2), cof(0, 1, 1, 2)],
        [-cof(1, 2, 0, 2), cof(0, 2, 0, 2), -cof(0, 1, 0, 2)],
        [cof(1, 2, 0, 1), -cof(0, 2, 0, 1), cof(0, 1, 0, 1)],
    ];
    let det = a[0][0] * adj[0][0] + a[0][1] * adj[1][0] + a[0][2] * adj[2][0];
    if det == 0.0 || !det.is_finite() {
        return Err(bad(format!(
            "{what}: the matrix {m:?} is singular (determinant {det}) and cannot be inverted"
        )));
    }
    Ok(adj
        .iter()
        .take(m.len())
        .map(|r| [r[0] / det, r[1] / det, r[2] / det])
        .collect())
}

/// ArrayFire's `transform`: `x` warped by the affine (`2 x 3`) or projective (`3 x 3`) matrix
/// `tf` (see the [module docs](self)); the input's size, nearest, `tf` mapping output points
/// to input points.
///
/// ```
/// use cuprite_array::{Array, Device, image::af};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// // Output (x, y) takes input (x, y + 1): the columns move left, zeros come in.
/// let t = af::transform(&a, &[[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]])?;
/// assert_eq!(t.to_vec()?, vec![2.0, 0.0, 4.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn transform<T: ImageElement>(x: &Array<T>, tf: &[[f64; 3]]) -> Result<Array<T>> {
    transform_with(x, tf, TransformOpts::new())
}

/// ArrayFire's `transform` with its `odim0`, `odim1`, `method` and `inverse`.
///
/// ```
/// use cuprite_array::{Array, Device, image::af::{self, Interp, TransformOpts}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 2.0, 4.0, 6.0], &[1, 4])?;
/// // Forward: input column y goes to column 2 y, read back at half steps.
/// let opts = TransformOpts::new().odims(1, 4).method(Interp::Bilinear).inverse(false);
/// let t = af::transform_with(&a, &[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]], opts)?;
/// assert_eq!(t.to_vec()?, vec![0.0, 1.0, 2.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn transform_with<T: ImageElement>(
    x: &Array<T>,
    tf: &[[f64; 3]],
    opts: TransformOpts,
) -> Result<Array<T>> {
    let what = "transform";
    let (n0, n1) = plane(x, what)?;
    if !(2..=3).contains(&tf.len()) {
        return Err(bad(format!(
            "{what}: a matrix of {} rows (2 for affine, 3 for projective)",
            tf.len()
        )));
    }
    let m = if opts.inverse {
        tf.to_vec()
    } else {
        invert(tf, what)?
    };
    warp(
        x,
        &m,
        out_dims(opts.odims, (n0, n1)),
        opts.method,
        false,
        what,
    )
}

/// ArrayFire's `rotate`: `x` rotated by `theta` radians about its centre, the input's size,
/// nearest.
///
/// ```
/// use cuprite_array::{Array, Device, image::af};
/// let a = Array::<u16>::from_slice_on(Device::CPU, &[1, 2, 3, 4], &[2, 2])?;
/// let r = af::rotate(&a, std::f64::consts::PI)?;
/// assert_eq!(r.to_vec()?, vec![4, 3, 2, 1]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn rotate<T: ImageElement>(x: &Array<T>, theta: f64) -> Result<Array<T>> {
    rotate_with(x, theta, RotateOpts::new())
}

/// ArrayFire's `rotate` with its `crop` and `method`.
///
/// ```
/// use cuprite_array::{Array, Device, image::af::{self, RotateOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let r = af::rotate_with(&a, std::f64::consts::FRAC_PI_2, RotateOpts::new().crop(false))?;
/// assert_eq!(r.shape(), &[3, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn rotate_with<T: ImageElement>(
    x: &Array<T>,
    theta: f64,
    opts: RotateOpts,
) -> Result<Array<T>> {
    let what = "rotate";
    let (n0, n1) = plane(x, what)?;
    if !theta.is_finite() {
        return Err(bad(format!("{what}: angle {theta} is not finite")));
    }
    let (n0f, n1f) = (n0 as f64, n1 as f64);
    let odims = if opts.crop {
        (n0, n1)
    } else {
        let (ac, as_) = (theta.cos().abs(), theta.sin().abs());
        // ArrayFire truncates; a quarter turn's cosine is not exactly 0, hence the nudge.
        let f = |v: f64| (v + 1e-9) as usize;
        (f(n0f * ac + n1f * as_), f(n1f * ac + n0f * as_))
    };
    let (c, s) = ((-theta).cos(), (-theta).sin());
    let (nx, ny) = (0.5 * (n0f - 1.0), 0.5 * (n1f - 1.0));
    let (mx, my) = (0.5 * (odims.0 as f64 - 1.0), 0.5 * (odims.1 as f64 - 1.0));
    let (sx, sy) = (mx * c - my * s, mx * s + my * c);
    let m = [[c, -s, nx - sx], [s, c, ny - sy]];
    warp(x, &m, odims, opts.method, false, what)
}

/// ArrayFire's `translate`: output `(x, y)` takes the input at `(x + trans0, y + trans1)`;
/// the input's size, nearest.
///
/// ```
/// use cuprite_array::{Array, Device, image::af};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[1, 3])?;
/// assert_eq!(af::translate(&a, 0.0, -1.0)?.to_vec()?, vec![0.0, 1.0, 2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn translate<T: ImageElement>(x: &Array<T>, trans0: f64, trans1: f64) -> Result<Array<T>> {
    translate_with(x, trans0, trans1, WarpOpts::new())
}

/// ArrayFire's `translate` with its `odim0`, `odim1` and `method`.
///
/// ```
/// use cuprite_array::{Array, Device, image::af::{self, Interp, WarpOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 2.0, 4.0], &[1, 3])?;
/// let t = af::translate_with(&a, 0.0, 0.5, WarpOpts::new().odims(1, 2).method(Interp::Bilinear))?;
/// assert_eq!(t.to_vec()?, vec![1.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn translate_with<T: ImageElement>(
    x: &Array<T>,
    trans0: f64,
    trans1: f64,
    opts: WarpOpts,
) -> Result<Array<T>> {
    let what = "translate";
    let (n0, n1) = plane(x, what)?;
    let m = [[1.0, 0.0, trans0], [0.0, 1.0, trans1]];
    warp(
        x,
        &m,
        out_dims(opts.odims, (n0, n1)),
        opts.method,
        false,
        what,
    )
}

/// ArrayFire's `scale`: output `(x, y)` takes the input at `(x / scale0, y / scale1)`, the
/// output `n0 scale0 x n1 scale1` (truncated); nearest.
///
/// ```
/// use cuprite_array::{Array, Device, image::af};
/// let a = Array::<u8>::from_slice_on(Device::CPU, &[10, 20], &[1, 2])?;
/// // Output 3 takes input 1.5, which rounds to the missing column 2: 0, as in ArrayFire.
/// assert_eq!(af::scale(&a, 1.0, 2.0)?.to_vec()?, vec![10, 20, 20, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn scale<T: ImageElement>(x: &Array<T>, scale0: f64, scale1: f64) -> Result<Array<T>> {
    scale_with(x, scale0, scale1, WarpOpts::new())
}

/// ArrayFire's `scale` with its `odim0`, `odim1` (with both scales 0, the scales follow from
/// the sizes) and `method`.
///
/// ```
/// use cuprite_array::{Array, Device, image::af::{self, Interp, WarpOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 4.0], &[1, 2])?;
/// let s = af::scale_with(&a, 0.0, 0.0, WarpOpts::new().odims(1, 4).method(Interp::Bilinear))?;
/// assert_eq!(s.to_vec()?, vec![0.0, 2.0, 4.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn scale_with<T: ImageElement>(
    x: &Array<T>,
    scale0: f64,
    scale1: f64,
    opts: WarpOpts,
) -> Result<Array<T>> {
    let what = "scale";
    let (n0, n1) = plane(x, what)?;
    if !(scale0.is_finite() && scale1.is_finite()) {
        return Err(bad(format!(
            "{what}: scales {scale0}, {scale1} are not finite"
        )));
    }
    let (odims, s0, s1) = match opts.odims {
        None => {
            if scale0 == 0.0 || scale1 == 0.0 {
                return Err(bad(format!(
                    "{what}: scales {scale0}, {scale1} without output sizes (both must be non-zero)"
                )));
            }
            let (s0, s1) = (1.0 / scale0, 1.0 / scale1);
            let size = |n: usize, s: f64| {
                let v = n as f64 / s;
                if v >= 0.0 && v < (1u64 << 56) as f64 {
                    Ok(v as usize)
                } else {
                    Err(bad(format!(
                        "{what}: scale {} of an axis of {n} gives {v} values",
                        1.0 / s
                    )))
                }
            };
            ((size(n0, s0)?, size(n1, s1)?), s0, s1)
        }
        Some((o0, o1)) if scale0 == 0.0 || scale1 == 0.0 => {
            if o0 == 0 || o1 == 0 {
                return Err(bad(format!(
                    "{what}: an output of {o0} x {o1} (both above 0)"
                )));
            }
            ((o0, o1), n0 as f64 / o0 as f64, n1 as f64 / o1 as f64)
        }
        Some(o) => (o, 1.0 / scale0, 1.0 / scale1),
    };
    let m = [[s0, 0.0, 0.0], [0.0, s1, 0.0]];
    warp(x, &m, odims, opts.method, false, what)
}

/// ArrayFire's `skew`: `x` sheared by the angles `skew0`, `skew1` (radians): with `inverse`
/// (the default) and one angle 0, output `(x, y)` takes the input at `(x + tan(skew0) y,
/// tan(skew1) x + y)` (see [`skew_with`] for the general matrix); the input's size, nearest.
///
/// ```
/// use cuprite_array::{Array, Device, image::af};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert_eq!(af::skew(&a, 0.0, 0.0)?.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn skew<T: ImageElement>(x: &Array<T>, skew0: f64, skew1: f64) -> Result<Array<T>> {
    skew_with(x, skew0, skew1, TransformOpts::new())
}

/// ArrayFire's `skew` with its `odim0`, `odim1`, `method` and `inverse`. With `tx = tan(skew0)`
/// and `ty = tan(skew1)` the output-to-input matrix is `[[1, ty, 0], [tx, 1, 0]]` without
/// `inverse`; with it, `[[1, tx, 0], [ty, 1, 0]]` when either is 0, else `[[d, ty d, 0], [tx d,
/// d, 0]]` with `d = 1 / (1 - tx ty)` (ArrayFire's shortcut; an `Err` where `|1 - tx ty| <=
/// 1e-12`).
///
/// ```
/// use cuprite_array::{Array, Device, image::af::{self, TransformOpts}};
/// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// // tan(pi/4) = 1: output (x, y) takes input (x, y + x) here.
/// let s = af::skew_with(&a, std::f64::consts::FRAC_PI_4, 0.0, TransformOpts::new().inverse(false))?;
/// assert_eq!(s.to_vec()?, vec![1.0, 2.0, 4.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn skew_with<T: ImageElement>(
    x: &Array<T>,
    skew0: f64,
    skew1: f64,
    opts: TransformOpts,
) -> Result<Array<T>> {
    let what = "skew";
    let (n0, n1) = plane(x, what)?;
    let (tx, ty) = (skew0.tan(), skew1.tan());
    let m = if !opts.inverse {
        [[1.0, ty, 0.0], [tx, 1.0, 0.0]]
    } else if tx == 0.0 || ty == 0.0 {
        [[1.0, tx, 0.0], [ty, 1.0, 0.0]]
    } else {
        let den = 1.0 - tx * ty;
        let d = 1.0 / den;
        if den.abs() <= 1e-12 || !d.is_finite() {
            return Err(bad(format!(
                "{what}: tan({skew0}) tan({skew1}) = 1: the shear is singular"
            )));
        }
        [[d, ty * d, 0.0], [tx * d, d, 0.0]]
    };
    warp(
        x,
        &m,
        out_dims(opts.odims, (n0, n1)),
        opts.method,
        false,
        what,
    )
}

/// ArrayFire's `transform_coords`: the corners `(0, 0)`, `(0, d0)`, `(d1, d0)`, `(d1, 0)` of
/// an image mapped by the projective matrix `tf` (`[x', y'] = (tf[..2] . [x, y, 1]) / (tf[2] .
/// [x, y, 1])`), as ArrayFire lists them.
///
/// ```
/// use cuprite_array::image::af;
/// let c = af::transform_coords(&[[2.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 3.0, 4.0)?;
/// assert_eq!(c, [[1.0, 0.0], [1.0, 3.0], [9.0, 3.0], [9.0, 0.0]]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn transform_coords(tf: &[[f64; 3]; 3], d0: f64, d1: f64) -> Result<[[f64; 2]; 4]> {
    let flat: Vec<f64> = tf.iter().flatten().copied().chain([d0, d1]).collect();
    if flat.iter().any(|v| !v.is_finite()) {
        return Err(bad(format!(
            "transform_coords: the matrix {tf:?} or the sizes {d0}, {d1} are not finite"
        )));
    }
    let at = |x: f64, y: f64| {
        let w = tf[2][0] * x + tf[2][1] * y + tf[2][2];
        [
            (tf[0][0] * x + tf[0][1] * y + tf[0][2]) / w,
            (tf[1][0] * x + tf[1][1] * y + tf[1][2]) / w,
        ]
    };
    Ok([at(0.0, 0.0), at(0.0, d0), at(d1, d0), at(d1, 0.0)])
}
