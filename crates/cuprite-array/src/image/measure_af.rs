//! ArrayFire's image measurements: `moments` (raw moments of each image) and `hist_equal`
//! (histogram equalisation through a given histogram), composed of the crate's reductions,
//! scan and gather.

use super::label::label_batch;
use super::morphology_structure::generate_binary_structure;
use crate::array::Array;
use crate::dtype::Numeric;
use crate::error::{Error, Result};
use crate::ops::IndexMode;
use crate::ops::TakeOpts;

/// One of ArrayFire's raw image moments (`af_moment_type`), over the pixels `(r, c)` (row,
/// column) of an image `I`. ArrayFire's `x` runs along its first axis, the rows of an image
/// it loads (`height x width`), and `y` along the columns; an image here is `[height, width]`
/// too, so `x` is the row `r` and `y` the column `c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Moment {
    /// `sum I(r, c)` (`AF_MOMENT_M00`).
    M00,
    /// `sum r I(r, c)` (`AF_MOMENT_M01`: ArrayFire's `x` times the value).
    M01,
    /// `sum c I(r, c)` (`AF_MOMENT_M10`: ArrayFire's `y` times the value).
    M10,
    /// `sum r c I(r, c)` (`AF_MOMENT_M11`).
    M11,
}

impl Moment {
    /// ArrayFire's `AF_MOMENT_FIRST_ORDER`: all four, in this order.
    pub const FIRST_ORDER: [Moment; 4] = [Moment::M00, Moment::M01, Moment::M10, Moment::M11];
}

/// ArrayFire's `moments`: the raw moments `which` of every image (the trailing two axes; the
/// leading ones a batch), summed in `f64` and given as `f32` of shape `[batch.., which.len()]`.
///
/// ```
/// use cuprite_array::{Array, image::{Moment, moments}};
/// let x = Array::from_slice(&[0.0f32, 1.0, 2.0, 3.0], &[2, 2])?;
/// let m = moments(&x, &Moment::FIRST_ORDER)?;
/// // M00 = 6, M01 = rows: 2 + 3, M10 = columns: 1 + 3, M11 = 3
/// assert_eq!(m.to_vec()?, [6.0, 5.0, 4.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn moments<T: Numeric>(x: &Array<T>, which: &[Moment]) -> Result<Array<f32>> {
    let shape = x.shape().to_vec();
    if shape.len() < 2 || which.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "moments: an image of shape {shape:?} (rank 2 or more) and moments {which:?} (at least one)"
        )));
    }
    let nd = shape.len();
    let (h, w) = (shape[nd - 2], shape[nd - 1]);
    let dev = x.device();
    let xf = x.cast::<f64>();
    let rows: Vec<f64> = (0..h).map(|i| i as f64).collect();
    let cols: Vec<f64> = (0..w).map(|i| i as f64).collect();
    let r = Array::from_slice_on(dev, &rows, &[h, 1])?;
    let c = Array::from_slice_on(dev, &cols, &[1, w])?;
    let mut out = Vec::with_capacity(which.len());
    for m in which {
        let weighted = match m {
            Moment::M00 => xf.clone(),
            Moment::M01 => xf.try_mul(&r)?,
            Moment::M10 => xf.try_mul(&c)?,
            Moment::M11 => xf.try_mul(&r.try_mul(&c)?)?,
        };
        out.push(weighted.sum_axes(&[-2, -1])?);
    }
    let refs: Vec<&Array<f64>> = out.iter().collect();
    Ok(Array::stack(&refs, -1)?.cast::<f32>())
}

/// ArrayFire's `hist_equal`: each value `v` becomes `(cdf[v] - min cdf) (levels - 1) / (max
/// cdf - min cdf)` in `f32`, cast back to the image's type, where `cdf` is the running sum of
/// `hist` (`levels` bins) and `v` is taken as an index (truncated, clamped into the bins).
///
/// ```
/// use cuprite_array::{Array, image::hist_equal};
/// let x = Array::from_slice(&[0u8, 1, 1, 3], &[2, 2])?;
/// let hist = Array::from_slice(&[1u32, 2, 0, 1], &[4])?;
/// // cdf 1 3 3 4: (cdf - 1) * 3 / 3
/// assert_eq!(hist_equal(&x, &hist)?.to_vec()?, [0, 2, 2, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn hist_equal<T: Numeric, H: Numeric>(x: &Array<T>, hist: &Array<H>) -> Result<Array<T>> {
    if hist.ndim() != 1 || hist.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "hist_equal: the histogram must be 1-d and non-empty, given shape {:?}",
            hist.shape()
        )));
    }
    let levels = hist.len();
    let cdf = hist.cast::<f32>().cumsum(0)?;
    let (lo, hi) = (cdf.min()?, cdf.max()?);
    let top = crate::with_device(x.device(), || Array::scalar((levels - 1) as f32));
    let factor = top.try_div(&hi.try_sub(&lo)?)?;
    let norm = cdf.try_sub(&lo)?.try_mul(&factor)?;
    let idx = x
        .cast::<f64>()
        .trunc()
        .maximum(0.0)
        .minimum((levels - 1) as f64)
        .cast::<i64>()
        .reshape(&[x.len()])?;
    let v = norm.take_with(&idx, TakeOpts::new().axis(0).mode(IndexMode::Clamp))?;
    Ok(v.reshape(x.shape())?.cast::<T>())
}

/// `(s2 - s1^2 / n) / (n - 1)`, 0 for `n <= 1` (the sample variance from the sums).
fn sample_var(s2: f64, s1: f64, n: f64) -> f64 {
    if n > 1.0 {
        (s2 - s1 * s1 / n) / (n - 1.0)
    } else {
        0.0
    }
}

/// The 0/1 image of the 8-connected components of `lo <= v <= hi` that hold a seed.
fn flood(v: &Array<f64>, seeds: &Array<i64>, lo: f64, hi: f64) -> Result<Array<f64>> {
    let inside = v.greater_equal(lo).try_and(v.less_equal(hi))?;
    let (lab, counts) = label_batch(&inside, &generate_binary_structure(2, 2)?)?;
    let n = lab.len();
    let flat = lab.reshape(&[n])?.cast::<i64>();
    let hit = flat.take_with(seeds, TakeOpts::new().axis(0))?;
    let top = counts.first().copied().unwrap_or(0);
    let flags = crate::with_device(v.device(), || Array::<i64>::zeros(&[top + 1]));
    let flags = flags.scatter_max(0, &hit, &Array::<i64>::ones_like(&hit), Default::default())?;
    let reached = flags
        .take_with(&flat, TakeOpts::new().axis(0))?
        .try_mul(flat.not_equal(0i64).cast::<i64>())?;
    reached.cast::<f64>().reshape(v.shape())
}

/// ArrayFire's `confidence_cc`: region growing from `seeds` (`[row, column]` each: ArrayFire's
/// `x`, `y`) in a 2-d image. The image is scaled to `[1, 2]`; the mean and sample standard
/// deviation of the `(2 radius + 1)^2` windows around the seeds give the band `mean ±
/// multiplier std` (widened to hold every seed's value), and the 8-connected pixels of the
/// band reached from a seed form the region; then, up to `iterations` times, the band is
/// taken again from the region's own statistics and the region grown anew (stopping early
/// when its variance is below 1e-6). The result holds `segmented_value` in the region and 0
/// elsewhere. Statistics are computed in `f64`; reads them back (synchronisations).
///
/// ```
/// use cuprite_array::{Array, image::confidence_cc};
/// let mut v = vec![0.0f32; 64];
/// for r in 1..6 { for c in 1..6 { v[r * 8 + c] = 9.0; } }
/// let x = Array::from_slice(&v, &[8, 8])?;
/// let y = confidence_cc(&x, &[[3, 3]], 1, 2, 3, 255.0)?.to_vec()?;
/// assert_eq!(y.iter().filter(|&&p| p == 255.0).count(), 25);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn confidence_cc<T: Numeric>(
    x: &Array<T>,
    seeds: &[[usize; 2]],
    radius: usize,
    multiplier: u32,
    iterations: usize,
    segmented_value: f64,
) -> Result<Array<T>> {
    let shape = x.shape().to_vec();
    if shape.len() != 2 || seeds.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "confidence_cc: a 2-d image (given shape {shape:?}) and at least one seed"
        )));
    }
    let (h, w) = (shape[0], shape[1]);
    // ArrayFire's window sums read the summed-area table one before the window.
    // `s <= radius` is `s < radius + 1`, `radius >= h - s` is `s + radius >= h`, without
    // the sums that overflow for a huge radius.
    if let Some(s) = seeds.iter().find(|s| {
        s[0] <= radius
            || s[1] <= radius
            || radius >= h.saturating_sub(s[0])
            || radius >= w.saturating_sub(s[1])
    }) {
        return Err(Error::InvalidArgument(format!(
            "confidence_cc: seed {s:?} with radius {radius} reaches past the image of shape {shape:?} (ArrayFire reads one row and column before the window)"
        )));
    }
    let dev = x.device();
    let xf = x.cast::<f64>();
    let (lo, hi) = (xf.min()?.item()?, xf.max()?.item()?);
    let v = if (hi - lo).abs() < 1e-6 {
        crate::with_device(dev, || Array::<f64>::full(&shape, 2.0))
    } else {
        xf.try_sub(lo)?.try_mul(1.0 / (hi - lo))?.try_add(1.0)?
    };
    let flat = v.reshape(&[h * w])?;
    let r = radius as i64;
    let win: Vec<i64> = seeds
        .iter()
        .flat_map(|s| {
            (-r..=r).flat_map(move |a| {
                (-r..=r).map(move |b| (s[0] as i64 + a) * w as i64 + s[1] as i64 + b)
            })
        })
        .collect();
    let win = Array::from_slice_on(dev, &win, &[win.len()])?;
    let wv = flat.take_with(&win, TakeOpts::new().axis(0))?;
    let s1 = wv.sum()?.item()?;
    let s2 = wv.try_mul(&wv)?.sum()?.item()?;
    let n = win.len() as f64;
    let var = sample_var(s2, s1, n);
    let m = f64::from(multiplier);
    let at: Vec<i64> = seeds.iter().map(|s| (s[0] * w + s[1]) as i64).collect();
    let at = Array::from_slice_on(dev, &at, &[at.len()])?;
    let sv = flat.take_with(&at, TakeOpts::new().axis(0))?;
    let (smin, smax) = (sv.min()?.item()?, sv.max()?.item()?);
    let band = |mean: f64, var: f64| {
        (
            (mean - m * var.sqrt()).min(smin),
            (mean + m * var.sqrt()).max(smax),
        )
    };
    let (mut lo, mut hi) = band(s1 / n, var);
    let mut seg = flood(&v, &at, lo, hi)?;
    if var.abs() >= 1e-6 {
        for _ in 0..iterations {
            let count = seg.sum()?.item()?;
            if count == 0.0 {
                break;
            }
            let valid = seg.try_mul(&v)?;
            let vs = valid.sum()?.item()?;
            let vq = valid.try_mul(&valid)?.sum()?.item()?;
            let var = sample_var(vq, vs, count);
            (lo, hi) = band(vs / count, var);
            seg = flood(&v, &at, lo, hi)?;
            if var.abs() < 1e-6 {
                break;
            }
        }
    }
    Ok(seg.try_mul(segmented_value)?.cast::<T>())
}
