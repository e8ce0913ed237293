//! Wavelets and the continuous wavelet transform (SciPy's `ricker`, `morlet`, `morlet2`, `qmf`
//! and `cwt`, which CuPy keeps and SciPy 1.15 removed, with SciPy 1.14's definitions). The
//! wavelets are computed on the host in `f64` and placed on the current device; the transform
//! is one `same`-mode convolution a width along the signal's last axis.

use super::conv::{convolve_axes, reverse_conj};
use super::elem::SignalElement;
use super::paths::ConvMethod;
use crate::array::Array;
use crate::dtype::{Element, Float, Scalar, c64};
use crate::error::{Error, Result};
use crate::ops::ConvMode;
use crate::ops::fft::FftElement;
use std::f64::consts::PI;

/// The most points a wavelet takes.
pub const WAVELET_MAX_POINTS: usize = 1 << 26;

fn check_points(what: &str, m: usize) -> Result<()> {
    if m == 0 || m > WAVELET_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "{what}: {m} points; it takes 1..={WAVELET_MAX_POINTS}"
        )));
    }
    Ok(())
}

fn positive(what: &str, name: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: {name} {v} must be finite and positive"
        )));
    }
    Ok(())
}

fn upload<E: Element>(v: impl Iterator<Item = Scalar>, n: usize) -> Result<Array<E>> {
    let vals: Vec<E> = v.map(E::from_scalar).collect();
    Array::from_slice(&vals, &[n])
}

/// The Ricker wavelet ("Mexican hat"; SciPy's `ricker(points, a)`) of `points` values centred
/// on `(points - 1) / 2`: `A (1 - t²/a²) exp(-t² / (2 a²))` with `A = 2 / (sqrt(3 a) pi^(1/4))`,
/// on the current device.
///
/// # Errors
/// `points` 0 or above [`WAVELET_MAX_POINTS`], `a` not finite and positive, named.
///
/// ```
/// use cuprite_array::signal::ricker;
/// let w = ricker::<f64>(5, 1.5)?.to_vec()?;
/// assert!((w[2] - 2.0 / ((4.5f64).sqrt() * std::f64::consts::PI.powf(0.25))).abs() < 1e-15);
/// assert_eq!(w[0], w[4]); // symmetric
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ricker<T: Float>(points: usize, a: f64) -> Result<Array<T>> {
    check_points("ricker", points)?;
    positive("ricker", "a", a)?;
    let amp = 2.0 / ((3.0 * a).sqrt() * PI.powf(0.25));
    let centre = (points as f64 - 1.0) / 2.0;
    upload(
        (0..points).map(|i| {
            let t2 = (i as f64 - centre).powi(2);
            Scalar::F64(amp * (1.0 - t2 / (a * a)) * (-t2 / (2.0 * a * a)).exp())
        }),
        points,
    )
}

/// The Morlet wavelet of SciPy's `morlet(M, w, s, complete)`: `M` points of
/// `pi^(-1/4) (exp(i w x) - c) exp(-x² / 2)` on `x` evenly from `-2 pi s` to `2 pi s`, with the
/// correction `c = exp(-w² / 2)` that makes its mean zero when `complete` (else `c = 0`), on
/// the current device in `T`'s complex type.
///
/// # Errors
/// `M` 0 or above [`WAVELET_MAX_POINTS`], `w` not finite, `s` not finite and positive, named.
///
/// ```
/// use cuprite_array::signal::morlet;
/// let m = morlet::<f64>(5, 5.0, 1.0, true)?.to_vec()?;
/// // At x = 0 (the middle point) the value is pi^(-1/4) (1 - exp(-12.5)).
/// assert!((m[2].re - std::f64::consts::PI.powf(-0.25) * (1.0 - (-12.5f64).exp())).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn morlet<T: FftElement>(
    m: usize,
    w: f64,
    s: f64,
    complete: bool,
) -> Result<Array<T::Complex>> {
    check_points("morlet", m)?;
    positive("morlet", "s", s)?;
    if !w.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "morlet: w {w} must be finite"
        )));
    }
    let corr = if complete { (-0.5 * w * w).exp() } else { 0.0 };
    let (lo, hi) = (-2.0 * PI * s, 2.0 * PI * s);
    let step = if m > 1 {
        (hi - lo) / (m - 1) as f64
    } else {
        0.0
    };
    upload(
        (0..m).map(|i| {
            let x = if i + 1 == m && m > 1 {
                hi
            } else {
                lo + step * i as f64
            };
            let z = (c64::from_polar(1.0, w * x) - corr) * ((-0.5 * x * x).exp() * PI.powf(-0.25));
            Scalar::C64(z)
        }),
        m,
    )
}

/// The Morlet wavelet of SciPy's `morlet2(M, s, w)`, scaled for [`cwt`]: `M` points of
/// `sqrt(1 / s) pi^(-1/4) exp(i w x) exp(-x² / 2)` at `x = (k - (M - 1) / 2) / s`, on the
/// current device in `T`'s complex type.
///
/// # Errors
/// `M` 0 or above [`WAVELET_MAX_POINTS`], `s` not finite and positive, `w` not finite, named.
///
/// ```
/// use cuprite_array::signal::morlet2;
/// let m = morlet2::<f32>(7, 2.0, 5.0)?.to_vec()?;
/// let peak = (0.5f32).sqrt() * std::f32::consts::PI.powf(-0.25);
/// assert!((m[3].re - peak).abs() < 1e-6 && m[3].im.abs() < 1e-6);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn morlet2<T: FftElement>(m: usize, s: f64, w: f64) -> Result<Array<T::Complex>> {
    check_points("morlet2", m)?;
    positive("morlet2", "s", s)?;
    if !w.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "morlet2: w {w} must be finite"
        )));
    }
    let centre = (m as f64 - 1.0) / 2.0;
    let scale = (1.0 / s).sqrt() * PI.powf(-0.25);
    upload(
        (0..m).map(|k| {
            let x = (k as f64 - centre) / s;
            Scalar::C64(c64::from_polar(scale * (-0.5 * x * x).exp(), w * x))
        }),
        m,
    )
}

/// The quadrature mirror filter of the low-pass filter `hk` (SciPy's `qmf`): `hk` reversed,
/// with the sign of every odd-indexed value flipped.
///
/// ```
/// use cuprite_array::signal::qmf;
/// assert_eq!(qmf(&[1.0, 2.0, 3.0, 4.0]), [4.0, -3.0, 2.0, -1.0]);
/// ```
#[must_use]
pub fn qmf(hk: &[f64]) -> Vec<f64> {
    hk.iter()
        .rev()
        .enumerate()
        .map(|(k, v)| if k % 2 == 0 { *v } else { -v })
        .collect()
}

/// The continuous wavelet transform of `data` along its last axis (SciPy's `cwt(data,
/// wavelet, widths)`): for each width `a`, `data` convolved (`same` mode) with the reversed
/// conjugate of `wavelet(n, a)`, a wavelet of `n = min(ceil(10 a), len)` points (SciPy's
/// `min(10 a, len)`, the same for widths whose tenfold is whole). The result has a new
/// leading axis of the widths: shape `[widths.len(), ...data.shape]`. `wavelet` makes its
/// array on the current device, which is `data`'s while it runs; a complex wavelet takes
/// complex data (cast a real signal first).
///
/// # Errors
/// `data` 0-dimensional or empty, no widths, a width not finite and positive, the wavelet's
/// own error, or a wavelet of other than `n` values, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{cwt, ricker}};
/// // A Ricker bump of width 3 answers most strongly at width 3, at its centre.
/// let x = ricker::<f64>(64, 3.0)?;
/// let y = cwt(&x, &[1.0, 3.0, 8.0], &|n, a| ricker::<f64>(n, a))?;
/// assert_eq!(y.shape(), &[3, 64]);
/// let y = y.to_vec()?;
/// let best = (0..3).max_by(|&i, &j| y[i * 64 + 32].total_cmp(&y[j * 64 + 32])).unwrap();
/// assert_eq!(best, 1);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cwt<T: SignalElement>(
    data: &Array<T>,
    widths: &[f64],
    wavelet: &dyn Fn(usize, f64) -> Result<Array<T>>,
) -> Result<Array<T>> {
    if data.ndim() == 0 || data.is_empty() || widths.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "cwt needs non-empty data with an axis (shape {:?}) and widths ({} given)",
            data.shape(),
            widths.len()
        )));
    }
    let len = data.shape()[data.ndim() - 1];
    let mut rows = Vec::with_capacity(widths.len());
    for &a in widths {
        positive("cwt", "width", a)?;
        let n = ((10.0 * a).ceil() as usize).clamp(1, len);
        let w = crate::device::with_device(data.device(), || wavelet(n, a))?;
        if w.shape() != [n] {
            return Err(Error::Shape(format!(
                "cwt: the wavelet of width {a} has shape {:?}; it must have {n} values",
                w.shape()
            )));
        }
        let y = convolve_axes(
            data,
            &reverse_conj(&w)?,
            &[-1],
            ConvMode::Same,
            ConvMethod::Auto,
        )?;
        rows.push(y.expand_dims(0)?);
    }
    let refs: Vec<&Array<T>> = rows.iter().collect();
    Array::concat(&refs, 0)
}
