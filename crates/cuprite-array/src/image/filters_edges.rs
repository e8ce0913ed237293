//! SciPy's derivative filters: `sobel`, `prewitt`, `laplace`, `gaussian_laplace`,
//! `gaussian_gradient_magnitude`, `generic_laplace` and `generic_gradient_magnitude`, built from 1-d passes as SciPy builds them (each pass stored
//! in the image's type; sums and squares in the image's type, as NumPy's in-place operators).

use super::filters::{FilterOpts, GaussianOpts, gaussian_passes};
use super::filters_elem::ImageElement;
use super::filters_plan::{Pass, norm_axes, passes};
use crate::array::Array;
use crate::error::{Error, Result};

/// The passes of the derivative `d` along `ax` then the smoothing `s` along the other filtered
/// axes, as SciPy's `sobel` and `prewitt` run them.
fn edge_passes(
    what: &str,
    nd: usize,
    ax: isize,
    d: [f64; 3],
    s: [f64; 3],
    opts: &FilterOpts,
) -> Result<Vec<Pass>> {
    let axes = norm_axes(what, opts.axes.as_deref(), nd)?;
    let a = crate::shape::axis(ax, nd)?;
    if !axes.contains(&a) {
        return Err(Error::InvalidArgument(format!(
            "{what}: axis {ax} is not among the filtered axes {:?}",
            opts.axes
        )));
    }
    let p = |axis: usize, w: [f64; 3]| Pass {
        axis,
        w: w.to_vec(),
        c: 1,
        div: 1.0,
    };
    let mut ps = vec![p(a, d)];
    ps.extend(axes.iter().filter(|&&o| o != a).map(|&o| p(o, s)));
    Ok(ps)
}

/// SciPy's `sobel`: the derivative `[-1, 0, 1]` along `axis` and the smoothing `[1, 2, 1]`
/// along every other axis, in `x`'s type (so unsigned results wrap, as in SciPy).
///
/// ```
/// use cuprite_array::{Array, image::sobel};
/// let x = Array::from_slice(&[0.0f32, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0], &[3, 3])?;
/// // A ramp along the last axis: slope 1 times (1 + 2 + 1) times 2 in the interior.
/// assert_eq!(sobel(&x, -1)?.to_vec()?[4], 8.0);
/// assert_eq!(sobel(&x, 0)?.to_vec()?[4], 0.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sobel<T: ImageElement>(x: &Array<T>, axis: isize) -> Result<Array<T>> {
    sobel_with(x, axis, FilterOpts::new())
}

/// [`sobel`] with options (boundary; filtered axes, which must include `axis`).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, sobel_with}};
/// let x = Array::from_slice(&[1.0f64, 1.0, 1.0], &[1, 3])?;
/// let y = sobel_with(&x, 1, FilterOpts::new().boundary(Boundary::Constant(0.0)))?;
/// assert_eq!(y.to_vec()?, [2.0, 0.0, -2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sobel_with<T: ImageElement>(
    x: &Array<T>,
    axis: isize,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let ps = edge_passes(
        "sobel",
        x.ndim(),
        axis,
        [-1.0, 0.0, 1.0],
        [1.0, 2.0, 1.0],
        &opts,
    )?;
    passes(x, &ps, opts.boundary)
}

/// SciPy's `prewitt`: the derivative `[-1, 0, 1]` along `axis` and the smoothing `[1, 1, 1]`
/// along every other axis.
///
/// ```
/// use cuprite_array::{Array, image::prewitt};
/// let x = Array::from_slice(&[0.0f32, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0], &[3, 3])?;
/// assert_eq!(prewitt(&x, 1)?.to_vec()?[4], 6.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn prewitt<T: ImageElement>(x: &Array<T>, axis: isize) -> Result<Array<T>> {
    prewitt_with(x, axis, FilterOpts::new())
}

/// [`prewitt`] with options (as [`sobel_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, prewitt_with}};
/// let x = Array::from_slice(&[0.0f64, 1.0, 2.0, 0.0, 1.0, 2.0], &[2, 3])?;
/// // Each row on its own.
/// let y = prewitt_with(&x, -1, FilterOpts::new().axes(&[-1]))?;
/// assert_eq!(y.to_vec()?, [1.0, 2.0, 1.0, 1.0, 2.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn prewitt_with<T: ImageElement>(
    x: &Array<T>,
    axis: isize,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let ps = edge_passes(
        "prewitt",
        x.ndim(),
        axis,
        [-1.0, 0.0, 1.0],
        [1.0, 1.0, 1.0],
        &opts,
    )?;
    passes(x, &ps, opts.boundary)
}

/// The sum of `parts` in `T` (wrapping for integers, as NumPy's `+=`).
fn sum<T: ImageElement>(parts: Vec<Array<T>>) -> Result<Array<T>> {
    let mut it = parts.into_iter();
    let Some(mut acc) = it.next() else {
        return Err(Error::InvalidArgument(
            "a derivative filter over no axes".to_string(),
        ));
    };
    for p in it {
        acc = acc.try_add(&p)?;
    }
    Ok(acc)
}

/// SciPy's `laplace`: the sum over the filtered axes of the second differences `[1, -2, 1]`.
///
/// ```
/// use cuprite_array::{Array, image::laplace};
/// let x = Array::from_slice(&[0.0f64, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], &[3, 3])?;
/// assert_eq!(laplace(&x)?.to_vec()?[4], -4.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn laplace<T: ImageElement>(x: &Array<T>) -> Result<Array<T>> {
    laplace_with(x, FilterOpts::new())
}

/// [`laplace`] with options (boundary, filtered axes).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, laplace_with}};
/// let x = Array::from_slice(&[1.0f32, 1.0, 1.0], &[3])?;
/// let y = laplace_with(&x, FilterOpts::new().boundary(Boundary::Constant(0.0)))?;
/// assert_eq!(y.to_vec()?, [-1.0, 0.0, -1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn laplace_with<T: ImageElement>(x: &Array<T>, opts: FilterOpts) -> Result<Array<T>> {
    let axes = norm_axes("laplace", opts.axes.as_deref(), x.ndim())?;
    let parts = axes
        .iter()
        .map(|&a| {
            let p = Pass {
                axis: a,
                w: vec![1.0, -2.0, 1.0],
                c: 1,
                div: 1.0,
            };
            passes(x, &[p], opts.boundary)
        })
        .collect::<Result<Vec<_>>>()?;
    sum(parts)
}

/// The Gaussian filters of `x` with derivative `order` along each filtered axis in turn and 0
/// along the others (SciPy's `derivative` and `derivative2` helpers).
fn along_each<T: ImageElement>(
    what: &str,
    x: &Array<T>,
    sigma: &[f64],
    order: usize,
    opts: &GaussianOpts,
) -> Result<Vec<Array<T>>> {
    let axes = norm_axes(what, opts.axes.as_deref(), x.ndim())?;
    (0..axes.len())
        .map(|i| {
            let mut ord = vec![0usize; axes.len()];
            ord[i] = order;
            let o = opts.clone().order(&ord);
            passes(x, &gaussian_passes(what, x.ndim(), sigma, &o)?, o.boundary)
        })
        .collect()
}

/// SciPy's `gaussian_laplace`: the sum over the filtered axes of the second derivative of the
/// Gaussian of `sigma` along that axis (smoothing along the others).
///
/// ```
/// use cuprite_array::{Array, image::gaussian_laplace};
/// // A quadratic bowl x^2 + y^2 has Laplacian 4 away from the edges.
/// let v: Vec<f64> = (0..400).map(|i| ((i / 20) as f64 - 10.0).powi(2) + ((i % 20) as f64 - 10.0).powi(2)).collect();
/// let x = Array::from_slice(&v, &[20, 20])?;
/// let y = gaussian_laplace(&x, &[1.0])?.to_vec()?;
/// assert!((y[10 * 20 + 10] - 4.0).abs() < 1e-2);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_laplace<T: ImageElement>(x: &Array<T>, sigma: &[f64]) -> Result<Array<T>> {
    gaussian_laplace_with(x, sigma, GaussianOpts::new())
}

/// [`gaussian_laplace`] with options (`truncate`, radius, boundary, filtered axes; the orders
/// are the routine's own).
///
/// ```
/// use cuprite_array::{Array, image::{GaussianOpts, gaussian_laplace_with}};
/// let x = Array::from_slice(&(0..16).map(|i| (i * i) as f32).collect::<Vec<_>>(), &[4, 4])?;
/// // Truncated at two sigmas: the same window as a radius of 2 samples.
/// let a = gaussian_laplace_with(&x, &[1.0], GaussianOpts::new().truncate(2.0))?;
/// let b = gaussian_laplace_with(&x, &[1.0], GaussianOpts::new().radius(&[2]))?;
/// assert_eq!(a.to_vec()?, b.to_vec()?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_laplace_with<T: ImageElement>(
    x: &Array<T>,
    sigma: &[f64],
    opts: GaussianOpts,
) -> Result<Array<T>> {
    sum(along_each("gaussian_laplace", x, sigma, 2, &opts)?)
}

/// SciPy's `gaussian_gradient_magnitude`: the square root of the sum over the filtered axes of
/// the squared first derivative of the Gaussian of `sigma` along that axis (squares and sums
/// in `x`'s type, the root taken in `f64` and stored back in `x`'s type).
///
/// ```
/// use cuprite_array::{Array, image::gaussian_gradient_magnitude};
/// // A plane 3x + 4y has gradient magnitude 5 away from the edges.
/// let v: Vec<f64> = (0..400).map(|i| 3.0 * (i / 20) as f64 + 4.0 * (i % 20) as f64).collect();
/// let x = Array::from_slice(&v, &[20, 20])?;
/// let y = gaussian_gradient_magnitude(&x, &[1.0])?.to_vec()?;
/// assert!((y[10 * 20 + 10] - 5.0).abs() < 1e-2);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_gradient_magnitude<T: ImageElement>(
    x: &Array<T>,
    sigma: &[f64],
) -> Result<Array<T>> {
    gaussian_gradient_magnitude_with(x, sigma, GaussianOpts::new())
}

/// [`gaussian_gradient_magnitude`] with options (as [`gaussian_laplace_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{GaussianOpts, gaussian_gradient_magnitude_with}};
/// let x = Array::from_slice(&[2.0f64; 9], &[3, 3])?;
/// let y = gaussian_gradient_magnitude_with(&x, &[0.5], GaussianOpts::new())?;
/// assert!(y.to_vec()?.iter().all(|v| v.abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_gradient_magnitude_with<T: ImageElement>(
    x: &Array<T>,
    sigma: &[f64],
    opts: GaussianOpts,
) -> Result<Array<T>> {
    let parts = along_each("gaussian_gradient_magnitude", x, sigma, 1, &opts)?
        .into_iter()
        .map(|d| d.try_mul(&d))
        .collect::<Result<Vec<_>>>()?;
    Ok(sum(parts)?.cast::<f64>().sqrt().cast::<T>())
}

/// A derivative of an image along one axis, of the image's shape and type: what
/// [`generic_laplace`] and [`generic_gradient_magnitude`] take.
pub type AxisDerivative<'a, T> = dyn Fn(&Array<T>, usize) -> Result<Array<T>> + 'a;

/// SciPy's `generic_laplace`: the sum over every axis of `derivative2(x, axis)`, a second
/// derivative along one axis the caller supplies (its result of `x`'s shape and type).
///
/// # Errors
/// A 0-dimensional array, and the derivative's own errors or results of another shape,
/// named.
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, correlate1d_with, generic_laplace}};
/// // With the [1, -2, 1] difference it is `laplace`.
/// let x = Array::from_slice(&[0.0f64, 1.0, 4.0, 9.0], &[2, 2])?;
/// let d2 = |a: &Array<f64>, ax: usize| {
///     correlate1d_with(a, &[1.0, -2.0, 1.0], FilterOpts::new().axis(ax as isize))
/// };
/// assert_eq!(generic_laplace(&x, &d2)?.to_vec()?, [5.0, 7.0, 1.0, -13.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn generic_laplace<T: ImageElement>(
    x: &Array<T>,
    derivative2: &AxisDerivative<'_, T>,
) -> Result<Array<T>> {
    sum(derivatives("generic_laplace", x, derivative2)?)
}

/// SciPy's `generic_gradient_magnitude`: `sqrt(Σ derivative(x, axis)²)` over every axis, a
/// first derivative along one axis the caller supplies; the squares and their sum in `x`'s
/// type, the root in `f64`, as SciPy's.
///
/// # Errors
/// As [`generic_laplace`].
///
/// ```
/// use cuprite_array::{Array, image::{generic_gradient_magnitude, sobel}};
/// // With Sobel's derivative it is SciPy's gradient magnitude of Sobel filters.
/// let x = Array::from_slice(&[0.0f32, 0.0, 1.0, 1.0], &[2, 2])?;
/// let d = |a: &Array<f32>, ax: usize| sobel(a, ax as isize);
/// let g = generic_gradient_magnitude(&x, &d)?.to_vec()?;
/// assert!(g.iter().all(|v| (v - 4.0).abs() < 1e-6));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn generic_gradient_magnitude<T: ImageElement>(
    x: &Array<T>,
    derivative: &AxisDerivative<'_, T>,
) -> Result<Array<T>> {
    let parts = derivatives("generic_gradient_magnitude", x, derivative)?
        .into_iter()
        .map(|d| d.try_mul(&d))
        .collect::<Result<Vec<_>>>()?;
    Ok(sum(parts)?.cast::<f64>().sqrt().cast::<T>())
}

/// `f(x, axis)` for every axis of `x`, each checked to keep `x`'s shape.
fn derivatives<T: ImageElement>(
    what: &str,
    x: &Array<T>,
    f: &AxisDerivative<'_, T>,
) -> Result<Vec<Array<T>>> {
    if x.ndim() == 0 {
        return Err(Error::Shape(format!(
            "{what}: a 0-dimensional array has no axis to differentiate"
        )));
    }
    (0..x.ndim())
        .map(|a| {
            let d = f(x, a)?;
            if d.shape() != x.shape() {
                return Err(Error::Shape(format!(
                    "{what}: the derivative along axis {a} has shape {:?}, not the image's {:?}",
                    d.shape(),
                    x.shape()
                )));
            }
            Ok(d)
        })
        .collect()
}
