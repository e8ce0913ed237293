//! SciPy's `medfilt`, `medfilt2d` (the median over a window, zeros beyond the edges; through
//! [`image::median_filter_with`](crate::image::median_filter_with)), `order_filter` (any rank
//! over a footprint, zeros beyond the edges; through
//! [`image::rank_filter_with`](crate::image::rank_filter_with)) and `wiener` (local mean and
//! variance by box correlations).

use super::conv::correlate;
use super::elem::{SignalElement, wide};
use super::paths::ConvMethod;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::image::{
    Boundary, FilterOpts, FilterWindow, ImageElement, median_filter_with, rank_filter_with,
};
use crate::ops::{ConvMode, ReduceOpts};

/// The window's extent along each of `ndim` axes: 3 each by default, one value for every
/// axis, or one per axis; each positive (and odd when `odd`).
fn sizes(what: &str, given: Option<&[usize]>, ndim: usize, odd: bool) -> Result<Vec<usize>> {
    let s = match given {
        None => vec![3; ndim],
        Some([k]) => vec![*k; ndim],
        Some(k) if k.len() == ndim => k.to_vec(),
        Some(k) => {
            return Err(Error::Shape(format!(
                "{what}: kernel_size {k:?} needs one value or one for each of {ndim} axes"
            )));
        }
    };
    if let Some(k) = s.iter().find(|&&k| k == 0 || (odd && k % 2 == 0)) {
        return Err(Error::InvalidArgument(format!(
            "{what}: each kernel size must be {}, not {k} (kernel_size {s:?})",
            if odd { "odd" } else { "positive" }
        )));
    }
    Ok(s)
}

/// The median filter of SciPy's `signal.medfilt`: the median of the `kernel_size` window
/// around each element, zeros beyond the edges. `kernel_size` is one odd extent for every
/// axis or one per axis (default 3); at most three axes may have an extent above 1.
///
/// # Errors
/// An even or zero extent, a `kernel_size` of another length than 1 or `x.ndim()`, named.
///
/// ```
/// use cuprite_array::{Array, signal::medfilt};
/// let x = Array::from_slice(&[2.0f64, 6.0, 1.0, 9.0, 4.0], &[5])?;
/// // The ends see a zero beyond the edge.
/// assert_eq!(medfilt(&x, None)?.to_vec()?, [2.0, 2.0, 6.0, 4.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn medfilt<T: ImageElement>(x: &Array<T>, kernel_size: Option<&[usize]>) -> Result<Array<T>> {
    let s = sizes("medfilt", kernel_size, x.ndim(), true)?;
    median_filter_with(
        x,
        &FilterWindow::size(&s),
        FilterOpts::new().boundary(Boundary::Constant(0.0)),
    )
}

/// SciPy's `medfilt2d`: [`medfilt`] of a 2-D array (default window 3 × 3).
///
/// # Errors
/// An array of other than 2 dimensions, and as [`medfilt`].
///
/// ```
/// use cuprite_array::{Array, signal::medfilt2d};
/// let x = Array::from_slice(&[1u8, 9, 2, 8, 3, 7, 4, 6, 5], &[3, 3])?;
/// // The centre sees all nine values; a corner sees four and five zeros.
/// let y = medfilt2d(&x, None)?.to_vec()?;
/// assert_eq!((y[4], y[0]), (5, 0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn medfilt2d<T: ImageElement>(x: &Array<T>, kernel_size: Option<&[usize]>) -> Result<Array<T>> {
    if x.ndim() != 2 {
        return Err(Error::Shape(format!(
            "medfilt2d takes a 2-D array, not shape {:?}",
            x.shape()
        )));
    }
    medfilt(x, kernel_size)
}

/// The most elements of a [`wiener`] window (a box of ones correlated with the array).
const WIENER_MAX: usize = 1 << 24;

fn wiener_core<R: Float + SignalElement>(
    x: &Array<R>,
    s: &[usize],
    noise: Option<f64>,
) -> Result<Array<R>> {
    // `wiener` bounded the product by `WIENER_MAX`.
    let size: usize = s.iter().product();
    let inv = R::from_scalar(crate::dtype::Scalar::F64(1.0 / size as f64));
    let ones = crate::device::with_device(x.device(), || {
        Array::full(s, R::from_scalar(crate::dtype::Scalar::F64(1.0)))
    });
    let box_mean = |v: &Array<R>| -> Result<Array<R>> {
        correlate(v, &ones, ConvMode::Same, ConvMethod::Auto)?.try_mul(inv)
    };
    let lmean = box_mean(x)?;
    let lvar = box_mean(&x.try_mul(x)?)?.try_sub(&lmean.try_mul(&lmean)?)?;
    let all: Vec<isize> = (0..x.ndim() as isize).collect();
    let noise: Array<R> = match noise {
        Some(v) => crate::device::with_device(x.device(), || {
            Array::full(
                &vec![1; x.ndim()],
                R::from_scalar(crate::dtype::Scalar::F64(v)),
            )
        }),
        None => lvar
            .mean_axes_with(&all, ReduceOpts::new().keepdims(true))?
            .cast(),
    };
    let (one, neg) = (
        R::from_scalar(crate::dtype::Scalar::F64(1.0)),
        R::from_scalar(crate::dtype::Scalar::F64(-1.0)),
    );
    let gain = noise.try_div(&lvar)?.try_mul(neg)?.try_add(one)?;
    let res = x.try_sub(&lmean)?.try_mul(&gain)?.try_add(&lmean)?;
    Array::select(&lvar.try_less(&noise)?, &lmean, &res)
}

/// SciPy's Wiener filter: with the local mean `μ` and variance `σ²` over the `mysize` window
/// (zeros beyond the edges, the window sums divided by its size), `μ + (1 - ν / σ²)(x - μ)`
/// where `σ² >= ν`, else `μ`. The noise power `ν` is `noise`, or the mean of the local
/// variances. `mysize` is one extent for every axis or one per axis (default 3); at most three
/// axes may have an extent above 1. Computed in `f64` for `f64`, else `f32`.
///
/// # Errors
/// A zero extent, a window of more than 2^24 elements, a `mysize` of another length than 1 or
/// `x.ndim()`, an empty array, more than three extended axes, each named.
///
/// ```
/// use cuprite_array::{Array, signal::wiener};
/// // A constant's interior is left alone (zero local variance, below the noise estimate).
/// let x = Array::from_slice(&[5.0f64; 6], &[6])?;
/// let y = wiener(&x, None, None)?.to_vec()?;
/// assert_eq!(&y[1..5], &[5.0; 4]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn wiener<T: Float + SignalElement>(
    x: &Array<T>,
    mysize: Option<&[usize]>,
    noise: Option<f64>,
) -> Result<Array<T>> {
    let s = sizes("wiener", mysize, x.ndim(), false)?;
    let size = s.iter().try_fold(1usize, |a, &m| a.checked_mul(m));
    if size.is_none_or(|n| n > WIENER_MAX) {
        return Err(Error::InvalidArgument(format!(
            "wiener: mysize {s:?} gives a window of more than 2^24 elements"
        )));
    }
    if x.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "wiener of an empty array (shape {:?})",
            x.shape()
        )));
    }
    if wide(T::DTYPE) {
        Ok(wiener_core::<f64>(&x.cast(), &s, noise)?.cast())
    } else {
        Ok(wiener_core::<f32>(&x.cast(), &s, noise)?.cast())
    }
}

/// The `rank`-th smallest value (from 0) of the elements under the footprint `domain` (of
/// shape `shape`, row-major, every extent odd, one a dimension of `a`) centred on each element,
/// zeros beyond the edges (SciPy's `order_filter(a, domain, rank)`). The rank counts only the
/// footprint's true elements; a negative rank counts from the largest.
///
/// # Errors
/// A footprint of another dimensionality than `a`, an even extent, a mask whose length is not
/// the shape's product or with no true element, or a rank outside the footprint's count, named.
///
/// ```
/// use cuprite_array::{Array, signal::order_filter};
/// let a = Array::from_slice(&[4.0f64, 1.0, 3.0, 5.0, 2.0], &[5])?;
/// // The largest of each element and its neighbours (rank 2 of 3), zeros past the ends.
/// assert_eq!(order_filter(&a, &[true, true, true], &[3], 2)?.to_vec()?, [4.0, 4.0, 5.0, 5.0, 5.0]);
/// // The smallest of the two neighbours, the element itself left out of the footprint.
/// assert_eq!(order_filter(&a, &[true, false, true], &[3], 0)?.to_vec()?, [0.0, 3.0, 1.0, 2.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn order_filter<T: ImageElement>(
    a: &Array<T>,
    domain: &[bool],
    shape: &[usize],
    rank: isize,
) -> Result<Array<T>> {
    if shape.len() != a.ndim() || shape.iter().any(|&k| k % 2 == 0) {
        return Err(Error::InvalidArgument(format!(
            "order_filter: the domain's shape {shape:?} needs one odd extent for each of the \
             {} dimensions of the array",
            a.ndim()
        )));
    }
    let fp = FilterWindow::new(domain, shape)?;
    rank_filter_with(
        a,
        rank,
        &fp,
        FilterOpts::new().boundary(Boundary::Constant(0.0)),
    )
}
