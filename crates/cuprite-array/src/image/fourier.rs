//! SciPy's Fourier-domain filters (`fourier_gaussian`, `fourier_uniform`, `fourier_shift`,
//! `fourier_ellipsoid`):
//! the spectrum of an image (its FFT along every axis, or along one axis its real FFT of
//! `n` points) multiplied by the transfer function of a Gaussian, a box, a shift or an
//! ellipsoid. The first three are separable: one host-computed factor an axis, broadcast and
//! multiplied lazily, so the products fuse into one element-wise pass on the spectrum's
//! device; the ellipsoid's factor is computed on the host for every element.

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

/// The parameters of a filter of `x` (one, or one an axis) checked and spread over the axes,
/// and the real FFT's axis normalised.
fn check<C: ComplexElement>(
    what: &str,
    x: &Array<C>,
    params: &[f64],
    n: Option<usize>,
    axis: isize,
) -> Result<(Vec<f64>, usize)> {
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
    Ok((per, ax as usize))
}

/// `x` times `factor(f, p)` along each axis, `p` the axis's parameter.
fn apply<C: ComplexElement + Numeric>(
    what: &str,
    x: &Array<C>,
    params: &[f64],
    n: Option<usize>,
    axis: isize,
    factor: impl Fn(f64, f64) -> c64,
) -> Result<Array<C>> {
    let (per, ax) = check(what, x, params, n, axis)?;
    let nd = x.ndim();
    let mut y = x.clone();
    for (a, &p) in per.iter().enumerate() {
        let len = x.shape()[a];
        let rfft_of = if a == ax { n } else { None };
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

/// The Bessel function `J1(x)` for `x >= 0`: its power series below 8, Miller's backward
/// recurrence (normalised by `J0 + 2 Σ J_2k = 1`) below 25, and Hankel's asymptotic
/// expansion beyond. Accurate to about `1e-13` absolute.
fn bessel_j1(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    if x < 8.0 {
        let q = x * x / 4.0;
        let (mut term, mut sum) = (x / 2.0, x / 2.0);
        for k in 0..60 {
            term *= -q / ((k + 1) as f64 * (k + 2) as f64);
            sum += term;
            if term.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        return sum;
    }
    if x < 25.0 {
        // J_{k-1} = (2k / x) J_k - J_{k+1}, from far above the order where J_k is negligible.
        let start = 2 * ((x + 20.0 + 10.0 * x.sqrt()) as usize / 2);
        let (mut above, mut here) = (0.0f64, 1e-30f64);
        let (mut norm, mut j1) = (0.0f64, 0.0f64);
        for k in (1..=start).rev() {
            let below = 2.0 * k as f64 / x * here - above;
            above = here;
            here = below;
            // `here` is now J_{k-1}.
            if k - 1 == 1 {
                j1 = here;
            }
            if (k - 1) % 2 == 0 && k > 1 {
                norm += 2.0 * here;
            }
            if here.abs() > 1e250 {
                above *= 1e-250;
                here *= 1e-250;
                norm *= 1e-250;
                j1 *= 1e-250;
            }
        }
        // `here` is J_0.
        return j1 / (norm + here);
    }
    // sqrt(2 / (pi x)) (P cos c - Q sin c), c = x - 3 pi / 4, with P and Q the even and odd
    // terms of sum_k a_k (±i / x)^k, a_k = a_{k-1} (4 - (2k - 1)²) / (8k).
    let c = x - 0.75 * PI;
    let (mut p, mut q) = (1.0f64, 0.0f64);
    let mut a = 1.0f64;
    let mut last = f64::INFINITY;
    for k in 1..80 {
        a *= (4.0 - ((2 * k - 1) * (2 * k - 1)) as f64) / (8.0 * k as f64 * x);
        if a.abs() >= last || a.abs() < 1e-17 {
            break;
        }
        last = a.abs();
        // i^k: k = 1 -> +i (Q), 2 -> -1 (P), 3 -> -i (Q), 4 -> +1 (P).
        match k % 4 {
            1 => q += a,
            2 => p -= a,
            3 => q -= a,
            _ => p += a,
        }
    }
    (2.0 / (PI * x)).sqrt() * (p * c.cos() - q * c.sin())
}

/// The transfer function of an ellipsoid of unit volume at `r = pi |f s|`: `sin r / r` in one
/// dimension, `2 J1(r) / r` in two, `3 (sin r - r cos r) / r³` in three (1 at `r = 0`).
fn ellipsoid_factor(rank: usize, r: f64) -> f64 {
    if r == 0.0 {
        return 1.0;
    }
    match rank {
        1 => r.sin() / r,
        2 => 2.0 * bessel_j1(r) / r,
        _ if r < 1e-2 => 1.0 - r * r / 10.0 + r.powi(4) / 280.0,
        _ => 3.0 * (r.sin() - r * r.cos()) / (r * r * r),
    }
}

/// The spectrum `x` filtered by an ellipsoid of `size` samples across (one value, or one an
/// axis; SciPy's `fourier_ellipsoid(input, size, n, axis)`) for arrays of 1, 2 or 3
/// dimensions: times the ellipsoid's transfer function at `r = pi sqrt(Σ (f_a s_a)²)`
/// (`sin r / r`, `2 J1(r) / r` or `3 (sin r - r cos r) / r³`); `x` and `n` as
/// [`fourier_gaussian`]'s. The factor is not separable: it is computed on the host, one
/// value an element, and uploaded.
///
/// # Errors
/// An array of rank 0 or above 3, and those of [`fourier_gaussian`], named.
///
/// ```
/// use cuprite_array::{Array, dtype::c64, image::fourier_ellipsoid};
/// // In one dimension the ellipsoid is the box: sin(pi f s) / (pi f s).
/// let x = Array::from_slice(&[c64::new(1.0, 0.0); 4], &[4])?;
/// let y = fourier_ellipsoid(&x, &[2.0], None, -1)?.to_vec()?;
/// assert!((y[1].re - 2.0 / std::f64::consts::PI).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fourier_ellipsoid<C: ComplexElement + Numeric>(
    x: &Array<C>,
    size: &[f64],
    n: Option<usize>,
    axis: isize,
) -> Result<Array<C>> {
    let what = "fourier_ellipsoid";
    let nd = x.ndim();
    if !(1..=3).contains(&nd) {
        return Err(Error::Shape(format!(
            "{what} takes arrays of 1, 2 or 3 dimensions, not shape {:?}",
            x.shape()
        )));
    }
    // The checks of the separable filters, on a factor of 1.
    apply(
        what,
        &x.slice(&vec![(0..0).into(); nd])?,
        size,
        n,
        axis,
        |_, _| c64::new(1.0, 0.0),
    )?;
    let per: Vec<f64> = if size.len() == 1 {
        vec![size[0]; nd]
    } else {
        size.to_vec()
    };
    let ax = if axis < 0 {
        (axis + nd as isize) as usize
    } else {
        axis as usize
    };
    let freqs: Vec<Vec<f64>> = (0..nd)
        .map(|a| frequencies(x.shape()[a], if a == ax { n } else { None }))
        .collect();
    let total = x.len();
    let mut vals = Vec::with_capacity(total);
    let mut idx = vec![0usize; nd];
    for _ in 0..total {
        let sq: f64 = (0..nd).map(|a| (freqs[a][idx[a]] * per[a]).powi(2)).sum();
        let f = ellipsoid_factor(nd, PI * sq.sqrt());
        vals.push(C::from_scalar(Scalar::C64(c64::new(f, 0.0))));
        for a in (0..nd).rev() {
            idx[a] += 1;
            if idx[a] < x.shape()[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    x.try_mul(&Array::from_slice_on(x.device(), &vals, x.shape())?)
}
