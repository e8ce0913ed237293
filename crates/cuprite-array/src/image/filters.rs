//! SciPy's linear `ndimage` filters: `correlate`, `convolve` and their 1-d forms,
//! `uniform_filter` and `gaussian_filter` (with derivative orders) and their 1-d forms, with
//! the options values they share.

use super::boundary::Boundary;
use super::filters_elem::ImageElement;
use super::filters_plan::{Pass, centre, correlate_nd, norm_axes, passes, per_axis};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::shape::axis;

/// SciPy's keyword arguments of the `ndimage` filters: the boundary (`mode`, `cval`), the
/// window's `origin` (one value for every axis, or one per filtered axis), the filtered
/// `axes` (`None`: every axis; the others are a batch) and, for the 1-d filters, the `axis`
/// (default the last).
///
/// ```
/// use cuprite_array::image::{Boundary, FilterOpts};
/// let o = FilterOpts::new().boundary(Boundary::Constant(1.0)).origin(&[-1]).axes(&[-2, -1]);
/// assert_eq!(o, FilterOpts::new().boundary(Boundary::Constant(1.0)).origin(&[-1]).axes(&[-2, -1]));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct FilterOpts {
    pub(crate) boundary: Boundary,
    pub(crate) origin: Vec<isize>,
    pub(crate) axes: Option<Vec<isize>>,
    pub(crate) axis: isize,
}

impl Default for FilterOpts {
    fn default() -> Self {
        FilterOpts::new()
    }
}

impl FilterOpts {
    /// SciPy's defaults: `Boundary::Reflect`, origin 0, every axis (the last for 1-d filters).
    pub fn new() -> Self {
        FilterOpts {
            boundary: Boundary::Reflect,
            origin: Vec::new(),
            axes: None,
            axis: -1,
        }
    }
    /// How values past the edges are taken (SciPy's `mode` and `cval`).
    pub fn boundary(self, b: Boundary) -> Self {
        FilterOpts {
            boundary: b,
            ..self
        }
    }
    /// The window's shift: one value for every filtered axis, or one per axis (SciPy's
    /// `origin`; positive values shift the window toward lower indices of the input).
    pub fn origin(self, origin: &[isize]) -> Self {
        FilterOpts {
            origin: origin.to_vec(),
            ..self
        }
    }
    /// The filtered axes (SciPy's `axes`); the others are filtered independently, as a batch.
    pub fn axes(self, axes: &[isize]) -> Self {
        FilterOpts {
            axes: Some(axes.to_vec()),
            ..self
        }
    }
    /// The axis of a 1-d filter (SciPy's `axis`, default -1).
    pub fn axis(self, axis: isize) -> Self {
        FilterOpts { axis, ..self }
    }
}

/// SciPy's keyword arguments of `gaussian_filter` and its relatives: the derivative `order`
/// along each axis (one value, or one per filtered axis; default 0), `truncate` (the window
/// reaches `truncate * sigma + 0.5` samples each side, rounded down; default 4), an explicit
/// `radius` in place of it, the boundary, the filtered `axes` and, for the 1-d filter, the
/// `axis`.
///
/// ```
/// use cuprite_array::image::{Boundary, GaussianOpts};
/// let o = GaussianOpts::new().order(&[0, 1]).truncate(3.0).boundary(Boundary::Nearest);
/// assert_eq!(o.clone(), o);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct GaussianOpts {
    pub(crate) boundary: Boundary,
    pub(crate) order: Vec<usize>,
    pub(crate) truncate: f64,
    pub(crate) radius: Vec<usize>,
    pub(crate) axes: Option<Vec<isize>>,
    pub(crate) axis: isize,
}

impl Default for GaussianOpts {
    fn default() -> Self {
        GaussianOpts::new()
    }
}

impl GaussianOpts {
    /// SciPy's defaults: order 0, `truncate` 4, no radius, `Boundary::Reflect`, every axis.
    pub fn new() -> Self {
        GaussianOpts {
            boundary: Boundary::Reflect,
            order: Vec::new(),
            truncate: 4.0,
            radius: Vec::new(),
            axes: None,
            axis: -1,
        }
    }
    /// How values past the edges are taken.
    pub fn boundary(self, b: Boundary) -> Self {
        GaussianOpts {
            boundary: b,
            ..self
        }
    }
    /// The derivative order along each axis (0 smooths; 1, 2, ... differentiate the Gaussian).
    pub fn order(self, order: &[usize]) -> Self {
        GaussianOpts {
            order: order.to_vec(),
            ..self
        }
    }
    /// The window's half-width in standard deviations (SciPy's `truncate`).
    pub fn truncate(self, truncate: f64) -> Self {
        GaussianOpts { truncate, ..self }
    }
    /// The window's half-width in samples along each axis, in place of `truncate`.
    pub fn radius(self, radius: &[usize]) -> Self {
        GaussianOpts {
            radius: radius.to_vec(),
            ..self
        }
    }
    /// The filtered axes; the others are a batch.
    pub fn axes(self, axes: &[isize]) -> Self {
        GaussianOpts {
            axes: Some(axes.to_vec()),
            ..self
        }
    }
    /// The axis of [`gaussian_filter1d`].
    pub fn axis(self, axis: isize) -> Self {
        GaussianOpts { axis, ..self }
    }
}

/// The 1-d pass of `w` along `a` with `origin`, as SciPy's `correlate1d`.
fn pass_of(what: &str, a: usize, w: Vec<f64>, origin: isize, div: f64) -> Result<Pass> {
    if w.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the weights are empty (at least one tap)"
        )));
    }
    let c = centre(what, w.len(), origin)?;
    Ok(Pass { axis: a, w, c, div })
}

/// SciPy's `correlate1d`: `x` correlated with the 1-d weights `w` along `opts.axis`,
/// `y[i] = sum_j w[j] x[i + j - (len(w) / 2 + origin)]`, in `x`'s type (integers truncated).
///
/// # Errors
/// Empty weights, an axis out of range, or an origin outside `[-(m / 2), (m - 1) / 2]`.
///
/// ```
/// use cuprite_array::{Array, image::correlate1d};
/// // SciPy's documented example.
/// let x = Array::from_slice(&[2u8, 8, 0, 4, 1, 9, 9, 0], &[8])?;
/// assert_eq!(correlate1d(&x, &[1.0, 3.0])?.to_vec()?, [8, 26, 8, 12, 7, 28, 36, 9]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlate1d<T: ImageElement>(x: &Array<T>, w: &[f64]) -> Result<Array<T>> {
    correlate1d_with(x, w, FilterOpts::new())
}

/// [`correlate1d`] with options: `opts.axis`, `opts.boundary`, and one `opts.origin`.
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, correlate1d_with}};
/// let x = Array::from_slice(&[0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], &[7])?;
/// let y = correlate1d_with(&x, &[1.0, 1.0, 1.0], FilterOpts::new().origin(&[-1]))?;
/// assert_eq!(y.to_vec()?, [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlate1d_with<T: ImageElement>(
    x: &Array<T>,
    w: &[f64],
    opts: FilterOpts,
) -> Result<Array<T>> {
    let a = axis(opts.axis, x.ndim())?;
    let origin = per_axis("correlate1d", "origin", &opts.origin, 1, 0)?[0];
    passes(
        x,
        &[pass_of("correlate1d", a, w.to_vec(), origin, 1.0)?],
        opts.boundary,
    )
}

/// SciPy's `convolve1d`: the correlation with `w` reversed (and the origin negated, less one
/// for an even length, as SciPy does).
///
/// ```
/// use cuprite_array::{Array, image::convolve1d};
/// let x = Array::from_slice(&[2u8, 8, 0, 4, 1, 9, 9, 0], &[8])?;
/// assert_eq!(convolve1d(&x, &[1.0, 3.0])?.to_vec()?, [14, 24, 4, 13, 12, 36, 27, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve1d<T: ImageElement>(x: &Array<T>, w: &[f64]) -> Result<Array<T>> {
    convolve1d_with(x, w, FilterOpts::new())
}

/// [`convolve1d`] with options (as [`correlate1d_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, convolve1d_with}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let y = convolve1d_with(&x, &[1.0, 0.0, -1.0], FilterOpts::new().boundary(Boundary::Constant(0.0)))?;
/// assert_eq!(y.to_vec()?, [2.0, 2.0, -2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve1d_with<T: ImageElement>(
    x: &Array<T>,
    w: &[f64],
    opts: FilterOpts,
) -> Result<Array<T>> {
    let origin = per_axis("convolve1d", "origin", &opts.origin, 1, 0)?[0];
    let o = -origin - isize::from(w.len() % 2 == 0);
    let r: Vec<f64> = w.iter().rev().copied().collect();
    correlate1d_with(x, &r, opts.origin(&[o]))
}

/// The filtered axes of `opts` and the centres of windows of extents `m` along them.
fn placed(what: &str, nd: usize, m: &[usize], opts: &FilterOpts) -> Result<(Vec<usize>, Vec<i64>)> {
    let axes = norm_axes(what, opts.axes.as_deref(), nd)?;
    if m.len() != axes.len() {
        return Err(Error::Shape(format!(
            "{what}: weights of shape {m:?} for {} filtered axes (one axis each)",
            axes.len()
        )));
    }
    let origins = per_axis(what, "origin", &opts.origin, axes.len(), 0)?;
    let c = m
        .iter()
        .zip(&origins)
        .map(|(&mm, &o)| centre(what, mm, o))
        .collect::<Result<Vec<_>>>()?;
    Ok((axes, c))
}

/// SciPy's `ndimage.correlate`: `y[i] = sum_j w[j] x[i + j - c]` over the n-d weights `w`
/// (one axis for each axis of `x`, centre `c = m / 2` along each), with the default options.
///
/// # Errors
/// Weights of another rank than the filtered axes, an empty axis of weights, more than three
/// axes where the weights are longer than 1, or an origin outside the window.
///
/// ```
/// use cuprite_array::{Array, image::correlate};
/// let x = Array::from_slice(&(0..9).map(f64::from).collect::<Vec<_>>(), &[3, 3])?;
/// let w = Array::from_slice(&[0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0], &[3, 3])?;
/// // The centre plus its four neighbours, reflected at the edges.
/// assert_eq!(correlate(&x, &w)?.to_vec()?[4], 20.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlate<T: ImageElement>(x: &Array<T>, w: &Array<f64>) -> Result<Array<T>> {
    correlate_with(x, w, FilterOpts::new())
}

/// [`correlate`] with options: the boundary, origins, and the filtered `axes` (the weights
/// have one axis for each, in that order).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, correlate_with}};
/// // Two 1x3 images filtered along the last axis only.
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let w = Array::from_slice(&[1.0, 1.0, 1.0], &[3])?;
/// let o = FilterOpts::new().axes(&[-1]).boundary(Boundary::Constant(0.0));
/// assert_eq!(correlate_with(&x, &w, o)?.to_vec()?, [3.0, 6.0, 5.0, 9.0, 15.0, 11.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlate_with<T: ImageElement>(
    x: &Array<T>,
    w: &Array<f64>,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let (axes, c) = placed("correlate", x.ndim(), w.shape(), &opts)?;
    correlate_nd("correlate", x, w, &axes, &c, opts.boundary)
}

/// SciPy's `ndimage.convolve`: the correlation with the weights reversed along every axis
/// (origins negated, less one along axes of even length).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, convolve_with}};
/// // SciPy's documented example.
/// let a = Array::from_slice(&[1u8, 2, 0, 0, 5, 3, 0, 4, 0, 0, 0, 7, 9, 3, 0, 0], &[4, 4])?;
/// let k = Array::from_slice(&[1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0], &[3, 3])?;
/// let y = convolve_with(&a, &k, FilterOpts::new().boundary(Boundary::Constant(0.0)))?;
/// assert_eq!(y.to_vec()?, [11, 10, 7, 4, 10, 3, 11, 11, 15, 12, 14, 7, 12, 3, 7, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve<T: ImageElement>(x: &Array<T>, w: &Array<f64>) -> Result<Array<T>> {
    convolve_with(x, w, FilterOpts::new())
}

/// [`convolve`] with options (as [`correlate_with`]).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, convolve_with}};
/// let a = Array::from_slice(&[1u8, 2, 0, 0, 5, 3, 0, 4, 0, 0, 0, 7, 9, 3, 0, 0], &[4, 4])?;
/// let k = Array::from_slice(&[1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0], &[3, 3])?;
/// let y = convolve_with(&a, &k, FilterOpts::new().boundary(Boundary::Constant(1.0)))?;
/// assert_eq!(y.to_vec()?, [13, 11, 8, 7, 11, 3, 11, 14, 16, 12, 14, 10, 15, 6, 10, 5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve_with<T: ImageElement>(
    x: &Array<T>,
    w: &Array<f64>,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let axes = norm_axes("convolve", opts.axes.as_deref(), x.ndim())?;
    let m = w.shape().to_vec();
    let origins = per_axis("convolve", "origin", &opts.origin, axes.len(), 0)?;
    let flipped: Vec<isize> = m
        .iter()
        .zip(&origins)
        .map(|(&mm, &o)| -o - isize::from(mm % 2 == 0))
        .collect();
    let all: Vec<isize> = (0..w.ndim() as isize).collect();
    let r = if all.is_empty() {
        w.clone()
    } else {
        w.flip(&all)?
    };
    correlate_with(x, &r, opts.origin(&flipped))
}

/// The largest size of a uniform filter along one axis (taps of weight 1 held on the host
/// and the device, as the Gaussian filters' radius below 2^24).
const UNIFORM_MAX_SIZE: usize = 1 << 24;

/// The filter size of each filtered axis, or an `Err` for a size of 0 or above
/// [`UNIFORM_MAX_SIZE`].
fn sizes(what: &str, size: &[usize], n: usize) -> Result<Vec<usize>> {
    let s = per_axis(what, "size", size, n, 1)?;
    if size.is_empty() || s.iter().any(|&m| m == 0 || m > UNIFORM_MAX_SIZE) {
        return Err(Error::InvalidArgument(format!(
            "{what}: filter sizes {size:?} (each 1 to 2^24, one or one per axis)"
        )));
    }
    Ok(s)
}

/// SciPy's `uniform_filter1d`: the mean of `size` neighbours along `axis` (-1 by default),
/// summed in the working type and divided by `size`.
///
/// # Errors
/// A size of 0 or above 2^24, or an axis out of range.
///
/// ```
/// use cuprite_array::{Array, image::uniform_filter1d};
/// // SciPy's documented example.
/// let x = Array::from_slice(&[2u8, 8, 0, 4, 1, 9, 9, 0], &[8])?;
/// assert_eq!(uniform_filter1d(&x, 3)?.to_vec()?, [4, 3, 4, 1, 4, 6, 6, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn uniform_filter1d<T: ImageElement>(x: &Array<T>, size: usize) -> Result<Array<T>> {
    uniform_filter1d_with(x, size, FilterOpts::new())
}

/// [`uniform_filter1d`] with options (`axis`, `boundary`, one `origin`).
///
/// ```
/// use cuprite_array::{Array, image::{Boundary, FilterOpts, uniform_filter1d_with}};
/// let x = Array::from_slice(&[3.0f64, 6.0, 9.0], &[3])?;
/// let y = uniform_filter1d_with(&x, 3, FilterOpts::new().boundary(Boundary::Constant(0.0)))?;
/// assert_eq!(y.to_vec()?, [3.0, 6.0, 5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn uniform_filter1d_with<T: ImageElement>(
    x: &Array<T>,
    size: usize,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let a = axis(opts.axis, x.ndim())?;
    let s = sizes("uniform_filter1d", &[size], 1)?[0];
    let origin = per_axis("uniform_filter1d", "origin", &opts.origin, 1, 0)?[0];
    let p = pass_of("uniform_filter1d", a, vec![1.0; s], origin, s as f64)?;
    passes(x, &[p], opts.boundary)
}

/// SciPy's `uniform_filter`: 1-d means of `size` values (one, or one per axis) along every
/// filtered axis in turn, each stored in `x`'s type.
///
/// # Errors
/// A size of 0 or above 2^24, sizes not one or one per filtered axis, or an axis out of range.
///
/// ```
/// use cuprite_array::{Array, image::uniform_filter};
/// let x = Array::from_slice(&[9.0f32; 12], &[3, 4])?;
/// assert_eq!(uniform_filter(&x, &[3])?.to_vec()?, vec![9.0; 12]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn uniform_filter<T: ImageElement>(x: &Array<T>, size: &[usize]) -> Result<Array<T>> {
    uniform_filter_with(x, size, FilterOpts::new())
}

/// [`uniform_filter`] with options (boundary, origins, filtered axes).
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, uniform_filter_with}};
/// let x = Array::from_slice(&[0.0f64, 3.0, 0.0, 6.0, 0.0, 9.0], &[2, 3])?;
/// // Only along the rows' axis.
/// let y = uniform_filter_with(&x, &[3], FilterOpts::new().axes(&[1]))?;
/// assert_eq!(y.to_vec()?, [1.0, 1.0, 1.0, 4.0, 5.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn uniform_filter_with<T: ImageElement>(
    x: &Array<T>,
    size: &[usize],
    opts: FilterOpts,
) -> Result<Array<T>> {
    let axes = norm_axes("uniform_filter", opts.axes.as_deref(), x.ndim())?;
    let s = sizes("uniform_filter", size, axes.len())?;
    let origins = per_axis("uniform_filter", "origin", &opts.origin, axes.len(), 0)?;
    let mut ps = Vec::new();
    for ((&a, &n), &o) in axes.iter().zip(&s).zip(&origins) {
        if n > 1 {
            ps.push(pass_of("uniform_filter", a, vec![1.0; n], o, n as f64)?);
        }
    }
    passes(x, &ps, opts.boundary)
}

/// The weights of SciPy's Gaussian of `sigma`, derivative `order`, over `-r..=r`: the
/// normalised Gaussian times the polynomial `q` with `q_0 = 1`, `q_{k+1} = q_k' - x q_k /
/// sigma^2` (the `order`-th derivative of the normalised Gaussian).
pub(crate) fn gaussian_kernel(sigma: f64, order: usize, r: usize) -> Vec<f64> {
    let s2 = sigma * sigma;
    let xs: Vec<f64> = (0..=2 * r).map(|i| i as f64 - r as f64).collect();
    let phi: Vec<f64> = xs.iter().map(|&x| (-0.5 * x * x / s2).exp()).collect();
    let total: f64 = phi.iter().sum();
    // q's coefficients, lowest power first.
    let mut q = vec![1.0f64];
    for _ in 0..order {
        let mut next = vec![0.0; q.len() + 1];
        for (k, &c) in q.iter().enumerate() {
            if k > 0 {
                next[k - 1] += k as f64 * c;
            }
            next[k + 1] -= c / s2;
        }
        q = next;
    }
    xs.iter()
        .zip(&phi)
        .map(|(&x, &p)| {
            let poly = q.iter().rev().fold(0.0, |acc, &c| acc * x + c);
            poly * p / total
        })
        .collect()
}

/// The correlation pass of SciPy's `gaussian_filter1d` along `a`: the kernel reversed.
fn gaussian_pass(
    what: &str,
    a: usize,
    sigma: f64,
    order: usize,
    radius: Option<usize>,
    truncate: f64,
) -> Result<Pass> {
    if !(sigma.is_finite() && sigma > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: sigma {sigma} (a positive, finite standard deviation)"
        )));
    }
    let r = match radius {
        Some(r) => r,
        None => {
            let lw = truncate * sigma + 0.5;
            if !(lw.is_finite() && lw >= 0.0 && lw < (1u64 << 24) as f64) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: truncate {truncate} with sigma {sigma} gives a radius {lw} (a \
                     nonnegative integer below 2^24)"
                )));
            }
            lw as usize
        }
    };
    if r >= 1 << 24 {
        return Err(Error::InvalidArgument(format!(
            "{what}: radius {r} (below 2^24)"
        )));
    }
    let mut w = gaussian_kernel(sigma, order, r);
    w.reverse();
    pass_of(what, a, w, 0, 1.0)
}

/// SciPy's `gaussian_filter1d`: the correlation along `axis` (-1 by default) with the
/// normalised Gaussian of `sigma` over `truncate * sigma` samples each side.
///
/// # Errors
/// `sigma` not positive and finite, a negative or huge radius, or an axis out of range.
///
/// ```
/// use cuprite_array::{Array, image::gaussian_filter1d};
/// // SciPy's documented example.
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5])?;
/// let y = gaussian_filter1d(&x, 1.0)?.to_vec()?;
/// let want = [1.42704095, 2.06782203, 3.0, 3.93217797, 4.57295905];
/// assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-8));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_filter1d<T: ImageElement>(x: &Array<T>, sigma: f64) -> Result<Array<T>> {
    gaussian_filter1d_with(x, sigma, GaussianOpts::new())
}

/// [`gaussian_filter1d`] with options: `axis`, one derivative `order`, `truncate` or one
/// `radius`, and the boundary.
///
/// ```
/// use cuprite_array::{Array, image::{GaussianOpts, gaussian_filter1d_with}};
/// // The first derivative of a ramp is its slope away from the edges.
/// let x = Array::from_slice(&(0..20).map(|i| 2.0 * i as f64).collect::<Vec<_>>(), &[20])?;
/// let d = gaussian_filter1d_with(&x, 1.5, GaussianOpts::new().order(&[1]))?.to_vec()?;
/// // The kernel is cut at four sigmas, so the slope is within 0.2% of 2.
/// assert!((d[10] - 2.0).abs() < 5e-3);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_filter1d_with<T: ImageElement>(
    x: &Array<T>,
    sigma: f64,
    opts: GaussianOpts,
) -> Result<Array<T>> {
    let what = "gaussian_filter1d";
    let a = axis(opts.axis, x.ndim())?;
    let order = per_axis(what, "order", &opts.order, 1, 0)?[0];
    let radius = if opts.radius.is_empty() {
        None
    } else {
        Some(per_axis(what, "radius", &opts.radius, 1, 0)?[0])
    };
    let p = gaussian_pass(what, a, sigma, order, radius, opts.truncate)?;
    passes(x, &[p], opts.boundary)
}

/// The passes of SciPy's `gaussian_filter` of `x` with `sigma` and `opts`.
pub(crate) fn gaussian_passes(
    what: &str,
    nd: usize,
    sigma: &[f64],
    opts: &GaussianOpts,
) -> Result<Vec<Pass>> {
    let axes = norm_axes(what, opts.axes.as_deref(), nd)?;
    let n = axes.len();
    if sigma.is_empty() {
        return Err(Error::InvalidArgument(format!("{what}: no sigma given")));
    }
    let s = per_axis(what, "sigma", sigma, n, 0.0)?;
    let order = per_axis(what, "order", &opts.order, n, 0)?;
    let radius: Vec<Option<usize>> = if opts.radius.is_empty() {
        vec![None; n]
    } else {
        per_axis(what, "radius", &opts.radius, n, 0)?
            .into_iter()
            .map(Some)
            .collect()
    };
    let mut ps = Vec::new();
    for i in 0..n {
        if !(s[i].is_finite() && s[i] >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "{what}: sigma {:?} (each finite and at least 0; 0 leaves an axis unfiltered)",
                sigma
            )));
        }
        // SciPy leaves axes of sigma at most 1e-15 unfiltered.
        if s[i] > 1e-15 {
            ps.push(gaussian_pass(
                what,
                axes[i],
                s[i],
                order[i],
                radius[i],
                opts.truncate,
            )?);
        }
    }
    Ok(ps)
}

/// SciPy's `gaussian_filter`: 1-d Gaussian filters along every filtered axis in turn (each
/// stored in `x`'s type), `sigma` one value or one per axis; an axis of sigma 0 is left as it
/// is.
///
/// # Errors
/// A negative, NaN or infinite sigma, a negative truncation, or counts of sigma, order or
/// radius that fit neither one value nor one per axis.
///
/// ```
/// use cuprite_array::{Array, image::gaussian_filter};
/// // SciPy's documented example (integers truncated after each axis).
/// let x = Array::from_slice(&(0..25).map(|i| 2 * i as u16).collect::<Vec<_>>(), &[5, 5])?;
/// let y = gaussian_filter(&x, &[1.0])?.to_vec()?;
/// assert_eq!(y[..5], [4, 6, 8, 9, 11]);
/// assert_eq!(y[20..], [35, 37, 39, 40, 42]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_filter<T: ImageElement>(x: &Array<T>, sigma: &[f64]) -> Result<Array<T>> {
    gaussian_filter_with(x, sigma, GaussianOpts::new())
}

/// [`gaussian_filter`] with options: derivative orders, `truncate` or radii, the boundary and
/// the filtered axes.
///
/// ```
/// use cuprite_array::{Array, image::{GaussianOpts, gaussian_filter_with}};
/// // A batch of two 4x4 images, each smoothed on its own.
/// let x = Array::from_slice(&[1.0f32; 32], &[2, 4, 4])?;
/// let y = gaussian_filter_with(&x, &[1.0], GaussianOpts::new().axes(&[-2, -1]))?;
/// assert!(y.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-6));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gaussian_filter_with<T: ImageElement>(
    x: &Array<T>,
    sigma: &[f64],
    opts: GaussianOpts,
) -> Result<Array<T>> {
    let ps = gaussian_passes("gaussian_filter", x.ndim(), sigma, &opts)?;
    passes(x, &ps, opts.boundary)
}
