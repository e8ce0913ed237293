//! `detrend`, `hilbert` and `hilbert2` (SciPy's), as array expressions on the current backend:
//! reductions and FFTs along one axis (two for `hilbert2`).

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::{Error, Result};
use crate::ops::ReduceOpts;
use crate::ops::fft::{FftElement, FftOpts, FftnOpts};

/// What [`detrend`] removes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detrend {
    /// The least-squares line (SciPy's `type='linear'`, the default).
    #[default]
    Linear,
    /// The mean (SciPy's `type='constant'`).
    Constant,
}

fn norm_axis(what: &str, axis: isize, ndim: usize) -> Result<usize> {
    let u = if axis < 0 { axis + ndim as isize } else { axis };
    if u < 0 || u as usize >= ndim {
        return Err(Error::InvalidArgument(format!(
            "{what}: axis {axis} is out of range for {ndim} dimensions"
        )));
    }
    Ok(u as usize)
}

/// The shape that places `n` values along `axis` of an `ndim`-dimensional array (ones
/// elsewhere), for broadcasting.
fn along(ndim: usize, axis: usize, n: usize) -> Vec<usize> {
    let mut s = vec![1; ndim];
    s[axis] = n;
    s
}

/// The analytic signal's multipliers of an `n`-point spectrum: 1 at DC (and at Nyquist for
/// even `n`), 2 at the positive frequencies, 0 at the negative ones.
fn gains(n: usize) -> Vec<f64> {
    let mut h = vec![0.0f64; n];
    h[0] = 1.0;
    if n % 2 == 0 {
        h[n / 2] = 1.0;
        h[1..n / 2].iter_mut().for_each(|v| *v = 2.0);
    } else {
        h[1..n.div_ceil(2)].iter_mut().for_each(|v| *v = 2.0);
    }
    h
}

/// `x` less its mean or its least-squares line along `axis` (SciPy's `detrend`; with
/// breakpoints, [`detrend_breakpoints`]), computed in `x`'s precision.
///
/// # Errors
/// An axis out of range or an empty axis, named.
///
/// ```
/// use cuprite_array::{Array, signal::{Detrend, detrend}};
/// let x = Array::from_slice(&[1.0f64, 3.0, 5.0, 7.0], &[4])?;
/// assert!(detrend(&x, 0, Detrend::Linear)?.to_vec()?.iter().all(|v| v.abs() < 1e-12));
/// assert_eq!(detrend(&x, 0, Detrend::Constant)?.to_vec()?, [-3.0, -1.0, 1.0, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn detrend<T: Float>(x: &Array<T>, axis: isize, kind: Detrend) -> Result<Array<T>> {
    let ax = norm_axis("detrend", axis, x.ndim())?;
    let n = x.shape()[ax];
    if n == 0 {
        return Err(Error::InvalidArgument(format!(
            "detrend along an empty axis {ax} (shape {:?})",
            x.shape()
        )));
    }
    let c = |v: f64| T::from_scalar(Scalar::F64(v));
    let mean = x
        .mean_axes_with(&[ax as isize], ReduceOpts::new().keepdims(true))?
        .cast::<T>();
    let centred = x.try_sub(&mean)?;
    if kind == Detrend::Constant {
        return Ok(centred);
    }
    // t - mean(t) for t = 0..n; its sum of squares is n (n² - 1) / 12.
    let sxx = n as f64 * ((n * n) as f64 - 1.0) / 12.0;
    if sxx == 0.0 {
        return Ok(centred);
    }
    let t: Array<T> = crate::device::with_device(x.device(), || -> Result<Array<T>> {
        let t: Array<T> = Array::<i64>::arange_len(n)?.cast();
        t.try_sub(c((n as f64 - 1.0) / 2.0))?
            .reshape(&along(x.ndim(), ax, n))
    })?;
    let slope = centred
        .try_mul(&t)?
        .sum_axes_with(&[ax as isize], ReduceOpts::new().keepdims(true))?
        .cast::<T>()
        .try_mul(c(1.0 / sxx))?;
    centred.try_sub(&slope.try_mul(&t)?)
}

/// `x` less a least-squares line fitted to each stretch between breakpoints along `axis`
/// (SciPy's `detrend(x, axis, 'linear', bp)`): the breakpoints are indices along the axis,
/// taken sorted and without repeats, with 0 and the axis's length added; each stretch
/// `[bp[i], bp[i+1])` loses its own line, as [`detrend`] removes one from the whole axis.
///
/// # Errors
/// An axis out of range, an empty axis, or a breakpoint past the axis's length, named.
///
/// ```
/// use cuprite_array::{Array, signal::detrend_breakpoints};
/// // Two ramps of different slopes joined at index 3: each stretch is a line, so nothing
/// // is left.
/// let x = Array::from_slice(&[0.0f64, 1.0, 2.0, 10.0, 8.0, 6.0, 4.0], &[7])?;
/// let y = detrend_breakpoints(&x, 0, &[3])?.to_vec()?;
/// assert!(y.iter().all(|v| v.abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn detrend_breakpoints<T: Float>(x: &Array<T>, axis: isize, bp: &[usize]) -> Result<Array<T>> {
    let ax = norm_axis("detrend_breakpoints", axis, x.ndim())?;
    let n = x.shape()[ax];
    if n == 0 {
        return Err(Error::InvalidArgument(format!(
            "detrend_breakpoints along an empty axis {ax} (shape {:?})",
            x.shape()
        )));
    }
    if let Some(b) = bp.iter().find(|&&b| b > n) {
        return Err(Error::InvalidArgument(format!(
            "detrend_breakpoints: breakpoint {b} is past the axis's length {n} (axis {ax})"
        )));
    }
    let mut cuts: Vec<usize> = bp.iter().copied().chain([0, n]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let parts = cuts
        .windows(2)
        .map(|w| {
            let mut args: Vec<crate::shape::SliceArg> = vec![(..).into(); x.ndim()];
            args[ax] = crate::shape::SliceArg::Range {
                start: Some(w[0] as isize),
                end: Some(w[1] as isize),
                step: 1,
            };
            detrend(&x.slice(&args)?, ax as isize, Detrend::Linear)
        })
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Array<T>> = parts.iter().collect();
    Array::concat(&refs, ax as isize)
}

/// The analytic signal of `x` along `axis` (SciPy's `hilbert`): the FFT of `n` points
/// (default the axis's length; zero-padded or truncated), its negative frequencies zeroed and
/// its positive ones doubled, transformed back. The imaginary part is the Hilbert transform.
///
/// # Errors
/// An axis out of range, or `n` (or the axis's length) zero, named.
///
/// ```
/// use cuprite_array::{Array, signal::hilbert};
/// // cos becomes cos + i sin.
/// let n = 8;
/// let x: Vec<f64> = (0..n).map(|k| (2.0 * std::f64::consts::PI * k as f64 / n as f64).cos()).collect();
/// let z = hilbert(&Array::from_slice(&x, &[n])?, None, 0)?.to_vec()?;
/// for (k, v) in z.iter().enumerate() {
///     let p = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
///     assert!((v.re - p.cos()).abs() < 1e-12 && (v.im - p.sin()).abs() < 1e-12);
/// }
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn hilbert<T: Float + FftElement>(
    x: &Array<T>,
    n: Option<usize>,
    axis: isize,
) -> Result<Array<T::Complex>> {
    let ax = norm_axis("hilbert", axis, x.ndim())?;
    let n = n.unwrap_or(x.shape()[ax]);
    if n == 0 {
        return Err(Error::InvalidArgument(format!(
            "hilbert of zero points along axis {ax} (shape {:?})",
            x.shape()
        )));
    }
    let hv: Vec<T::Complex> = gains(n)
        .into_iter()
        .map(|v| <T::Complex as crate::dtype::Element>::from_scalar(Scalar::F64(v)))
        .collect();
    let hv = Array::from_slice_on(x.device(), &hv, &along(x.ndim(), ax, n))?;
    let opts = FftOpts::new().n(n).axis(ax as isize);
    let f = x.fft_with(opts)?;
    Ok(f.try_mul(&hv)?.ifft_with(opts)?.cast::<T::Complex>())
}

/// The 2-D analytic signal of `x` over its last two axes, batched over the others (SciPy's
/// `hilbert2`): the 2-D FFT of `n = [rows, cols]` points (default the axes' lengths;
/// zero-padded or truncated), multiplied along each axis by 1 at DC, 2 at the positive
/// frequencies and 0 elsewhere (the Nyquist frequency of an even length included, as SciPy's
/// `hilbert2` has it, unlike [`hilbert`]), transformed back.
///
/// # Errors
/// Fewer than two dimensions, or a length of 0, named.
///
/// ```
/// use cuprite_array::{Array, signal::hilbert2};
/// // A constant image has only a DC term: its analytic signal is itself.
/// let z = hilbert2(&Array::from_slice(&[2.0f64; 12], &[3, 4])?, None)?.to_vec()?;
/// assert!(z.iter().all(|v| (v.re - 2.0).abs() < 1e-12 && v.im.abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn hilbert2<T: Float + FftElement>(
    x: &Array<T>,
    n: Option<[usize; 2]>,
) -> Result<Array<T::Complex>> {
    let nd = x.ndim();
    if nd < 2 {
        return Err(Error::Shape(format!(
            "hilbert2 needs at least 2 dimensions, not shape {:?}",
            x.shape()
        )));
    }
    let [r, c] = n.unwrap_or([x.shape()[nd - 2], x.shape()[nd - 1]]);
    if r == 0 || c == 0 {
        return Err(Error::InvalidArgument(format!(
            "hilbert2 of {r} x {c} points (shape {:?})",
            x.shape()
        )));
    }
    // SciPy's 2-D multipliers: 1 at DC, 2 at the positive frequencies, 0 at the negative
    // ones and, unlike the 1-D transform's, at the Nyquist frequency of an even length.
    let half = |n: usize| -> Vec<f64> {
        (0..n)
            .map(|i| match i {
                0 => 1.0,
                i if i < n.div_ceil(2) => 2.0,
                _ => 0.0,
            })
            .collect()
    };
    let (hr, hc) = (half(r), half(c));
    let hv: Vec<T::Complex> = hr
        .iter()
        .flat_map(|a| hc.iter().map(move |b| a * b))
        .map(|v| <T::Complex as crate::dtype::Element>::from_scalar(Scalar::F64(v)))
        .collect();
    let mut shape = vec![1; nd];
    shape[nd - 2] = r;
    shape[nd - 1] = c;
    let hv = Array::from_slice_on(x.device(), &hv, &shape)?;
    let opts = FftnOpts::new().s(&[r, c]).axes(&[-2, -1]);
    let f = x.fft2_with(opts.clone())?;
    Ok(f.try_mul(&hv)?.ifft2_with(opts)?.cast::<T::Complex>())
}
