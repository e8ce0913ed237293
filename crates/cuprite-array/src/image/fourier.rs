//! SciPy's Fourier-domain filters (`fourier_gaussian`, `fourier_uniform`, `fourier_shift`):
//! the spectrum of an image (its FFT along every axis, or along one axis its real FFT of
//! `n` points) multiplied by the transfer function of a Gaussian, a box or a shift. Each is
//! separable: one host-computed factor an axis, broadcast and multiplied lazily, so the
//! products fuse into one element-wise pass on the spectrum's device.

use crate::array::Array;
use crate::dtype::{ComplexElement, Numeric, Scalar, c64};
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// The frequency of each index along an axis of `len` values, in cycles a sample: the FFT's
/// order (`fftfreq`), or `k / n` along the real FFT's axis of an `n`-point signal.
fn frequencies(len: usize, rfft_of: Option<usize>) -> Vec<f64> {
    match rfft_of {
        Some(n) => (0..len).map(|k| k as f64 / n as f64).collect(),
        None => (0..len)
            .map(|k| {
                let k = if k < len.div_ceil(2) {
                    k as f64
                } else {
                    k as f64 - len as f64
                };
                k / len as f64
            })
            .collect(),
    }
}

/// `x` times `factor(axis, f, p)` along each axis, `p` the axis's parameter.
fn apply<C: ComplexElement + Numeric>(
    what: &str,
    x: &Array<C>,
    params: &[f64],
    n: Option<usize>,
    axis: isize,
    factor: impl Fn(f64, f64) -> c64,
) -> Result<Array<C>> {
    let nd = x.ndim();
    if nd == 0 {
        return Err(Error::Shape(format!(
            "{what}: a 0-dimensional array has no axis to filter"
        )));
    }
    let per: Vec<f64> = match params.len() {
        1 => vec![params[0]; nd],
        k if k == nd => params.to_vec(),
        k => {
            return Err(Error::InvalidArgument(format!(
                "{what}: {k} parameters for {nd} axes; it takes one, or one an axis"
            )));
        }
    };
    if let Some(v) = per.iter().find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the parameter {v} is not finite"
        )));
    }
    let ax = if axis < 0 { axis + nd as isize } else { axis };
    if ax < 0 || ax as usize >= nd {
        return Err(Error::InvalidArgument(format!(
            "{what}: axis {axis} is out of range for {nd} dimensions"
        )));
    }
    if n == Some(0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: n 0; the real FFT's signal length must be positive"
        )));
    }
    let mut y = x.clone();
    for (a, &p) in per.iter().enumerate() {
        let len = x.shape()[a];
        let rfft_of = if a == ax as usize { n } else { None };
        let vals: Vec<C> = frequencies(len, rfft_of)
            .into_iter()
            .map(|f| C::from_scalar(Scalar::C64(factor(f, p))))
            .collect();
        let mut shape = vec![1; nd];
        shape[a] = len;
        y = y.try_mul(&Array::from_slice_on(x.device(), &vals, &shape)?)?;
    }
    Ok(y)
}

/// The spectrum `x` filtered by a Gaussian of standard deviation `sigma` (one value, or one
/// an axis; SciPy's `fourier_gaussian(input, sigma, n, axis)`): times `exp(-2 pi² σ² f²)`
/// along each axis. `x` is the FFT along every axis, or with `n` the real FFT of an
/// `n`-point signal along `axis`.
///
/// # Errors
/// A 0-dimensional array, a parameter count other than 1 or the rank, a parameter not
/// finite, an axis out of range, or `n` 0, named.
///
/// ```
/// use cuprite_array::{Array, dtype::c64, image::fourier_gaussian};
/// // The DC term is kept; the Nyquist term of 4 points is scaled by exp(-pi² / 2).
/// let x = Array::from_slice(&[c64::new(1.0, 0.0); 4], &[4])?;
/// let y = fourier_gaussian(&x, &[1.0], None, -1)?.to_vec()?;
/// assert_eq!(y[0].re, 1.0);
/// assert!((y[2].re - (-std::f64::consts::PI.powi(2) / 2.0).exp()).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fourier_gaussian<C: ComplexElement + Numeric>(
    x: &Array<C>,
    sigma: &[f64],
    n: Option<usize>,
    axis: isize,
) -> Result<Array<C>> {
    apply("fourier_gaussian", x, sigma, n, axis, |f, s| {
        c64::new((-2.0 * PI * PI * s * s * f * f).exp(), 0.0)
    })
}

/// The spectrum `x` filtered by a box of `size` samples (one value, or one an axis; SciPy's
/// `fourier_uniform(input, size, n, axis)`): times `sin(pi f s) / (pi f s)` (1 at `f = 0`)
/// along each axis; `x` and `n` as [`fourier_gaussian`]'s.
///
/// # Errors
/// As [`fourier_gaussian`].
///
/// ```
/// use cuprite_array::{Array, dtype::c32, image::fourier_uniform};
/// // A box of 2 samples cancels the Nyquist frequency.
/// let x = Array::from_slice(&[c32::new(1.0, 0.0); 4], &[4])?;
/// let y = fourier_uniform(&x, &[2.0], None, 0)?.to_vec()?;
/// assert!(y[2].re.abs() < 1e-7 && y[0].re == 1.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fourier_uniform<C: ComplexElement + Numeric>(
    x: &Array<C>,
    size: &[f64],
    n: Option<usize>,
    axis: isize,
) -> Result<Array<C>> {
    apply("fourier_uniform", x, size, n, axis, |f, s| {
        let a = PI * f * s;
        c64::new(if a == 0.0 { 1.0 } else { a.sin() / a }, 0.0)
    })
}

/// The spectrum `x` of an image shifted by `shift` samples (one value, or one an axis;
/// SciPy's `fourier_shift(input, shift, n, axis)`): times `exp(-2 pi i f s)` along each
/// axis, so that the inverse transform is the image moved by `s` (periodically); `x` and `n`
/// as [`fourier_gaussian`]'s.
///
/// # Errors
/// As [`fourier_gaussian`].
///
/// ```
/// use cuprite_array::{Array, dtype::c64, image::fourier_shift};
/// // A one-sample shift of [1, 0, 0, 0] through the FFT gives [0, 1, 0, 0].
/// let x = Array::from_slice(&[1.0f64, 0.0, 0.0, 0.0], &[4])?.fft()?;
/// let y = fourier_shift(&x, &[1.0], None, -1)?.ifft()?.to_vec()?;
/// assert!((y[1].re - 1.0).abs() < 1e-15 && y[0].norm() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fourier_shift<C: ComplexElement + Numeric>(
    x: &Array<C>,
    shift: &[f64],
    n: Option<usize>,
    axis: isize,
) -> Result<Array<C>> {
    apply("fourier_shift", x, shift, n, axis, |f, s| {
        c64::from_polar(1.0, -2.0 * PI * f * s)
    })
}
