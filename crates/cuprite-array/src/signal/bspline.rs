//! B-spline signal processing (SciPy's `cspline1d`, `qspline1d`, `cspline1d_eval`,
//! `qspline1d_eval`, `cspline2d`, `qspline2d`, `spline_filter`, `sepfir2d` and
//! `gauss_spline`): the coefficients of the cubic or quadratic B-spline that interpolates (or,
//! for cubics with `lamb > 0`, smooths) a 1-D signal or a 2-D image under mirror-symmetric
//! boundaries, the spline evaluated anywhere, and the separable mirror-symmetric FIR filter
//! that turns 2-D coefficients back into an image. The recursive cores are
//! [`symiir`](super::symiir)'s; a 2-D transform filters the rows, then the columns.
//!
//! The interpolating coefficients are a causal and an anti-causal first-order recursive
//! filter ([`lfilter`](super::lfilter)) with the pole `z = √3 - 2` (cubic) or `2√2 - 3` (quadratic), scaled by
//! 6 or 8. The causal pass starts from the mirror-symmetric sum `Σ_k z^k x_k` (the terms below
//! `2^-60` of the largest dropped), the anti-causal one from `z / (z - 1)` times the last causal
//! value. The smoothing cubic runs a second-order filter with the complex pole pair
//! `ρ e^(±iω)` forward and backward, started from SciPy's closed-form sums of the signal.
//! Every sum is a weighted reduction of the signal on its device; the filters are the lazy
//! [`lfilter`](super::lfilter) scans, so the whole computation stays on the current backend.

use super::elem::SignalElement;
use super::frames::sc;
use super::symiir::{Start, forback1, forback1_to, forback2};
use crate::array::Array;
use crate::dtype::{Float, Transcendental};
use crate::error::{Error, Result};
use crate::ops::{IndexMode, TakeOpts};

/// The weights' cut-off: terms of a mirror-symmetric sum below this fraction of the first are
/// dropped.
const CUTOFF: f64 = 1.0 / (1u64 << 60) as f64;

fn check_1d<T: Float>(what: &str, x: &Array<T>) -> Result<usize> {
    if x.ndim() != 1 || x.is_empty() {
        return Err(Error::Shape(format!(
            "{what} takes a non-empty 1-D signal, not shape {:?}",
            x.shape()
        )));
    }
    Ok(x.len())
}

/// The coefficients of the interpolating spline with pole `z`, scaled by `gain`: the
/// first-order pair with `c0 = -gain z`, its starting sum over the terms above the cut-off.
fn first_order<T: Float>(x: &Array<T>, z: f64, gain: f64) -> Result<Array<T>> {
    let k = x.len();
    if k == 1 {
        // A one-sample signal is a constant under mirror symmetry, its coefficient itself.
        return Ok(x.clone());
    }
    let terms = (0..k)
        .take_while(|&j| z.abs().powi(j as i32 + 1) >= CUTOFF)
        .count()
        .max(1);
    forback1(x, -gain * z, z, terms)
}

/// The pole pair `(ρ, ω)` of the smoothing cubic spline of weight `lamb` (SciPy's
/// `_coeff_smooth` and `compute_root_from_lambda`).
pub(crate) fn smooth_poles(lamb: f64) -> (f64, f64) {
    let root = (3.0 + 144.0 * lamb).sqrt();
    let xi = 1.0 - 96.0 * lamb + 24.0 * lamb * root;
    let omega = (144.0 * lamb - 1.0).sqrt().atan2(xi.sqrt());
    let rho = (24.0 * lamb - 1.0 - xi.sqrt()) / (24.0 * lamb)
        * ((48.0 * lamb + 24.0 * lamb * root) / xi).sqrt();
    (rho, omega)
}

/// The cubic B-spline coefficients of the 1-D signal `x` under mirror-symmetric boundaries
/// (SciPy's `cspline1d(signal, lamb)`): interpolating for `lamb` 0, smoothing with weight
/// `lamb` on the spline's second derivative for `lamb > 1/144` (where the smoothing filter's
/// poles are complex). Computed in `x`'s precision on its device. Choice: a one-sample
/// signal's coefficient is the sample, the exact mirror-symmetric answer (SciPy returns about
/// 0.15 times it for `lamb` 0).
///
/// # Errors
/// `x` not 1-D or empty; `lamb` not finite, negative, in `(0, 1/144]` (SciPy fails there
/// with a math domain error), or positive with fewer than 3 samples, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{cspline1d, cspline1d_eval}};
/// let x: Vec<f64> = (0..40).map(|i| (0.3 * i as f64).sin()).collect();
/// let c = cspline1d(&Array::from_slice(&x, &[40])?, 0.0)?;
/// // The spline interpolates: at the sample points it gives the samples back.
/// let at: Vec<f64> = (0..40).map(|i| i as f64).collect();
/// let y = cspline1d_eval(&c, &Array::from_slice(&at, &[40])?, 1.0, 0.0)?.to_vec()?;
/// assert!(y.iter().zip(&x).all(|(g, w)| (g - w).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cspline1d<T: Float>(x: &Array<T>, lamb: f64) -> Result<Array<T>> {
    let k = check_1d("cspline1d", x)?;
    if !(lamb.is_finite() && lamb >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "cspline1d: lamb {lamb} must be finite and non-negative"
        )));
    }
    if lamb == 0.0 {
        return first_order(x, 3f64.sqrt() - 2.0, 6.0);
    }
    if lamb <= 1.0 / 144.0 {
        return Err(Error::InvalidArgument(format!(
            "cspline1d: lamb {lamb} must be 0 or above 1/144 for a smoothing spline"
        )));
    }
    if k < 3 {
        return Err(Error::InvalidArgument(format!(
            "cspline1d: a smoothing spline (lamb {lamb}) needs at least 3 samples, not {k}"
        )));
    }
    let (rho, omega) = smooth_poles(lamb);
    forback2(x, rho, omega, Start::Whole, "cspline1d")
}

/// The quadratic B-spline coefficients of the 1-D signal `x` under mirror-symmetric
/// boundaries (SciPy's `qspline1d(signal)`, which has no smoothing form). A one-sample
/// signal's coefficient is the sample, as [`cspline1d`]'s.
///
/// # Errors
/// `x` not 1-D or empty, named.
///
/// ```
/// use cuprite_array::{Array, signal::{qspline1d, qspline1d_eval}};
/// let x = Array::from_slice(&[1.0f64, 3.0, 2.0, 5.0, 4.0], &[5])?;
/// let c = qspline1d(&x)?;
/// let y = qspline1d_eval(&c, &Array::from_slice(&[1.0f64, 3.0], &[2])?, 1.0, 0.0)?.to_vec()?;
/// assert!((y[0] - 3.0).abs() < 1e-9 && (y[1] - 5.0).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qspline1d<T: Float>(x: &Array<T>) -> Result<Array<T>> {
    check_1d("qspline1d", x)?;
    first_order(x, 2.0 * 2f64.sqrt() - 3.0, 8.0)
}

/// The spline with coefficients `c` at the points `(t - x0) / dx`, folded into `[0, n - 1]`
/// by mirror symmetry, summed over the `taps` nearest knots with the basis `basis`.
fn evaluate<T: Float + Transcendental>(
    what: &str,
    c: &Array<T>,
    t: &Array<T>,
    dx: f64,
    x0: f64,
    taps: usize,
    basis: impl Fn(&Array<T>) -> Result<Array<T>>,
) -> Result<Array<T>> {
    crate::array::check_devices(&[&c.node, &t.node])?;
    let n = check_1d(what, c)?;
    if !(dx.is_finite() && dx != 0.0 && x0.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: dx {dx} must be finite and not 0, x0 {x0} finite"
        )));
    }
    let u = t.try_sub(sc::<T>(x0))?.try_div(sc::<T>(dx))?;
    // The mirror-symmetric extension has period 2 (n - 1); fold u into [0, n - 1].
    let u = if n == 1 {
        u.try_mul(sc::<T>(0.0))?
    } else {
        let period = 2.0 * (n - 1) as f64;
        let m = u.abs().try_rem(sc::<T>(period))?;
        let flipped = m.try_mul(sc::<T>(-1.0))?.try_add(sc::<T>(period))?;
        Array::select(&m.greater(sc::<T>((n - 1) as f64)), &flipped, &m)?
    };
    let half = (taps as f64) / 2.0;
    let lower = u.try_sub(sc::<T>(half))?.floor().try_add(sc::<T>(1.0))?;
    let clamp = TakeOpts::new().mode(IndexMode::Clamp);
    let mut sum: Option<Array<T>> = None;
    for i in 0..taps {
        let j = lower.try_add(sc::<T>(i as f64))?;
        let term = c
            .take_with(&j.cast::<i64>(), clamp)?
            .try_mul(&basis(&u.try_sub(&j)?)?)?;
        sum = Some(match sum {
            None => term,
            Some(s) => s.try_add(&term)?,
        });
    }
    sum.ok_or_else(|| Error::InvalidArgument(format!("{what}: no knots")))
}

/// The cubic B-spline `β3(v)`: `2/3 - v² + |v|³/2` for `|v| < 1`, `(2 - |v|)³ / 6` for
/// `|v| < 2`, else 0.
fn cubic<T: Float + Transcendental>(v: &Array<T>) -> Result<Array<T>> {
    let a = v.abs();
    let a2 = a.try_mul(&a)?;
    let inner = a2
        .try_mul(&a)?
        .try_mul(sc::<T>(0.5))?
        .try_sub(&a2)?
        .try_add(sc::<T>(2.0 / 3.0))?;
    let d = a.try_mul(sc::<T>(-1.0))?.try_add(sc::<T>(2.0))?;
    let outer = d.try_mul(&d)?.try_mul(&d)?.try_mul(sc::<T>(1.0 / 6.0))?;
    let mid = Array::select(&a.less(sc::<T>(1.0)), &inner, &outer)?;
    Array::select(&a.less(sc::<T>(2.0)), &mid, sc::<T>(0.0))
}

/// The quadratic B-spline `β2(v)`: `3/4 - v²` for `|v| < 1/2`, `(|v| - 3/2)² / 2` for
/// `|v| < 3/2`, else 0.
fn quadratic<T: Float + Transcendental>(v: &Array<T>) -> Result<Array<T>> {
    let a = v.abs();
    let inner = a
        .try_mul(&a)?
        .try_mul(sc::<T>(-1.0))?
        .try_add(sc::<T>(0.75))?;
    let d = a.try_sub(sc::<T>(1.5))?;
    let outer = d.try_mul(&d)?.try_mul(sc::<T>(0.5))?;
    let mid = Array::select(&a.less(sc::<T>(0.5)), &inner, &outer)?;
    Array::select(&a.less(sc::<T>(1.5)), &mid, sc::<T>(0.0))
}

/// The cubic spline of coefficients `c` ([`cspline1d`]'s, knots `x0 + j dx`) at the points `t`
/// of any shape (SciPy's `cspline1d_eval(cj, newx, dx, x0)`): points outside the knots are
/// folded back by mirror symmetry. The result has `t`'s shape.
///
/// # Errors
/// `c` not 1-D or empty, `dx` 0 or not finite, `x0` not finite, or the arrays on different
/// devices, each named.
///
/// ```
/// use cuprite_array::{Array, signal::cspline1d_eval};
/// // Coefficients all 1 make the constant 1 (the B-splines sum to 1), inside and out.
/// let c = Array::from_slice(&[1.0f64; 5], &[5])?;
/// let y = cspline1d_eval(&c, &Array::from_slice(&[-3.3f64, 0.5, 2.25, 9.0], &[4])?, 1.0, 0.0)?;
/// assert!(y.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cspline1d_eval<T: Float + Transcendental>(
    c: &Array<T>,
    t: &Array<T>,
    dx: f64,
    x0: f64,
) -> Result<Array<T>> {
    evaluate("cspline1d_eval", c, t, dx, x0, 4, cubic)
}

/// The quadratic spline of coefficients `c` ([`qspline1d`]'s) at the points `t` (SciPy's
/// `qspline1d_eval(cj, newx, dx, x0)`), as [`cspline1d_eval`] evaluates the cubic.
///
/// # Errors
/// As [`cspline1d_eval`].
///
/// ```
/// use cuprite_array::{Array, signal::qspline1d_eval};
/// let c = Array::from_slice(&[2.0f32; 4], &[4])?;
/// let y = qspline1d_eval(&c, &Array::from_slice(&[0.3f32, 1.7, 5.5], &[3])?, 1.0, 0.0)?;
/// assert!(y.to_vec()?.iter().all(|v| (v - 2.0).abs() < 1e-6));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qspline1d_eval<T: Float + Transcendental>(
    c: &Array<T>,
    t: &Array<T>,
    dx: f64,
    x0: f64,
) -> Result<Array<T>> {
    evaluate("qspline1d_eval", c, t, dx, x0, 3, quadratic)
}

/// The Gaussian approximation of the B-spline basis of order `n` (SciPy's `gauss_spline(x,
/// n)`): `exp(-x² / (2 σ²)) / sqrt(2 pi σ²)` with `σ² = (n + 1) / 12`, element-wise and lazy.
///
/// ```
/// use cuprite_array::{Array, signal::gauss_spline};
/// let y = gauss_spline(&Array::from_slice(&[0.0f64], &[1])?, 3)?.to_vec()?;
/// assert!((y[0] - 1.0 / (2.0 * std::f64::consts::PI / 3.0).sqrt()).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
///
/// # Errors
/// None for any input; the `Result` is that of the lazy operations.
pub fn gauss_spline<T: Float + Transcendental>(x: &Array<T>, n: u32) -> Result<Array<T>> {
    let var = (f64::from(n) + 1.0) / 12.0;
    x.try_mul(x)?
        .try_mul(sc::<T>(-0.5 / var))?
        .exp()
        .try_mul(sc::<T>(1.0 / (2.0 * std::f64::consts::PI * var).sqrt()))
}

fn check_2d<T: Float>(what: &str, x: &Array<T>) -> Result<()> {
    if x.ndim() != 2 || x.shape().iter().any(|&n| n < 2) {
        return Err(Error::Shape(format!(
            "{what} takes a 2-D image of at least 2 x 2, not shape {:?}",
            x.shape()
        )));
    }
    Ok(())
}

/// `f` along the rows of the 2-D `x`, then along its columns.
fn rows_then_columns<T: Float>(
    x: &Array<T>,
    f: &dyn Fn(&Array<T>) -> Result<Array<T>>,
) -> Result<Array<T>> {
    let rows = f(x)?;
    Ok(f(&rows.t())?.t())
}

/// SciPy's default precision of the 2-D splines' starting sums: `1e-3` for `f32`, `1e-6` for
/// `f64` (a value `< 0` or `>= 1` asks for it).
fn precision_2d<T: Float>(precision: f64) -> f64 {
    if (0.0..1.0).contains(&precision) {
        precision
    } else if T::DTYPE == crate::dtype::DType::F64 {
        1e-6
    } else {
        1e-3
    }
}

/// The cubic B-spline coefficients of the 2-D image `x` under mirror-symmetric boundaries
/// (SciPy's `cspline2d(signal, lamb, precision)`): interpolating for `lamb <= 1/144`, else
/// smoothing with weight `lamb`; the rows are filtered, then the columns. The starting sums
/// stop at SciPy's `precision` (`< 0`: `1e-3` for `f32`, `1e-6` for `f64`).
///
/// # Errors
/// `x` not 2-D of at least 2 x 2, `lamb` not finite or negative, or a starting sum that does
/// not converge within a row or column, named.
///
/// ```
/// use cuprite_array::{Array, signal::{cspline2d, sepfir2d}};
/// // Filtering the coefficients with [1, 4, 1] / 6 both ways gives the image back.
/// let v: Vec<f64> = (0..1024).map(|i| ((i % 32) as f64 * 0.3).sin() + (i / 32) as f64 * 0.1).collect();
/// let x = Array::from_slice(&v, &[32, 32])?;
/// let c = cspline2d(&x, 0.0, 1e-12)?;
/// let h = [1.0 / 6.0, 4.0 / 6.0, 1.0 / 6.0];
/// let back = sepfir2d(&c, &h, &h)?.to_vec()?;
/// assert!(back.iter().zip(&v).all(|(b, v)| (b - v).abs() < 1e-9));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cspline2d<T: Float>(x: &Array<T>, lamb: f64, precision: f64) -> Result<Array<T>> {
    let what = "cspline2d";
    check_2d(what, x)?;
    if !(lamb.is_finite() && lamb >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: lamb {lamb} must be finite and non-negative"
        )));
    }
    let p = precision_2d::<T>(precision);
    if lamb <= 1.0 / 144.0 {
        let r = 3f64.sqrt() - 2.0;
        return rows_then_columns(x, &|a: &Array<T>| forback1_to(what, a, -6.0 * r, r, p));
    }
    let (rho, omega) = smooth_poles(lamb);
    rows_then_columns(x, &|a: &Array<T>| {
        forback2(a, rho, omega, Start::Precision(p), what)
    })
}

/// The quadratic B-spline coefficients of the 2-D image `x` under mirror-symmetric
/// boundaries (SciPy's `qspline2d(signal, 0, precision)`; SciPy has no smoothing form), the
/// rows then the columns, the starting sums stopped at `precision` as [`cspline2d`]'s.
///
/// # Errors
/// As [`cspline2d`].
///
/// ```
/// use cuprite_array::{Array, signal::{qspline2d, sepfir2d}};
/// let v: Vec<f32> = (0..144).map(|i| ((i % 12) as f32 * 0.4).cos()).collect();
/// let c = qspline2d(&Array::from_slice(&v, &[12, 12])?, -1.0)?;
/// let h = [0.125f64, 0.75, 0.125];
/// let back = sepfir2d(&c, &h, &h)?.to_vec()?;
/// assert!(back.iter().zip(&v).all(|(b, v)| (b - v).abs() < 1e-3));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qspline2d<T: Float>(x: &Array<T>, precision: f64) -> Result<Array<T>> {
    let what = "qspline2d";
    check_2d(what, x)?;
    let p = precision_2d::<T>(precision);
    let r = 2.0 * 2f64.sqrt() - 3.0;
    rows_then_columns(x, &|a: &Array<T>| forback1_to(what, a, -8.0 * r, r, p))
}

/// The 2-D image `x` convolved along its rows with `hrow` and along its columns with `hcol`
/// (each of odd length), the image mirrored beyond its edges with the edge values repeated
/// (SciPy's `sepfir2d(input, hrow, hcol)`); the result has `x`'s shape.
///
/// # Errors
/// `x` not 2-D or empty, a filter empty, of even length or not finite, named.
///
/// ```
/// use cuprite_array::{Array, signal::sepfir2d};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// // Convolving with [1, 0, 0] takes each value's right neighbour, the mirror repeating the
/// // last value.
/// let y = sepfir2d(&x, &[1.0, 0.0, 0.0], &[1.0])?;
/// assert_eq!(y.to_vec()?, [2.0, 3.0, 3.0, 5.0, 6.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sepfir2d<T: SignalElement>(x: &Array<T>, hrow: &[f64], hcol: &[f64]) -> Result<Array<T>> {
    use crate::ops::{ConvMode, PadMode};
    if x.ndim() != 2 || x.is_empty() {
        return Err(Error::Shape(format!(
            "sepfir2d takes a non-empty 2-D array, not shape {:?}",
            x.shape()
        )));
    }
    for (name, h) in [("hrow", hrow), ("hcol", hcol)] {
        if h.len() % 2 == 0 || h.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "sepfir2d: {name} {h:?} must have an odd number of finite taps"
            )));
        }
    }
    let pass = |a: &Array<T>, h: &[f64], axis: usize| -> Result<Array<T>> {
        let half = h.len() / 2;
        let mut widths = [(0, 0); 2];
        widths[axis] = (half, half);
        let padded = a.pad_mode(&widths, PadMode::Symmetric)?;
        let taps: Vec<T> = h.iter().map(|&v| sc::<T>(v)).collect();
        let taps = Array::from_slice_on(a.device(), &taps, &[h.len()])?;
        super::conv::convolve_axes(
            &padded,
            &taps,
            &[axis as isize],
            ConvMode::Valid,
            super::paths::ConvMethod::Auto,
        )
    };
    pass(&pass(x, hrow, 1)?, hcol, 0)
}

/// SciPy's `spline_filter(Iin, lmbda)`: the image smoothed by a cubic smoothing spline of
/// weight `lmbda` ([`cspline2d`] at its default precision), turned back into values by the
/// B-spline's `[1, 4, 1] / 6` filter both ways ([`sepfir2d`]; its taps rounded to `f32`, as
/// SciPy's are).
///
/// # Errors
/// As [`cspline2d`].
///
/// ```
/// use cuprite_array::{Array, signal::spline_filter};
/// // A constant image is left as it is, up to the default precision's truncated sums (as
/// // in SciPy, whose largest deviation here is 0.016).
/// let y = spline_filter(&Array::from_slice(&[3.0f64; 1600], &[40, 40])?, 5.0)?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 3.0).abs() < 0.02));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn spline_filter<T: Float + SignalElement>(x: &Array<T>, lmbda: f64) -> Result<Array<T>> {
    let c = cspline2d(x, lmbda, -1.0)?;
    // SciPy's taps are `[1, 4, 1] / 6` in f32.
    let h = [1.0f32 / 6.0, 4.0 / 6.0, 1.0 / 6.0].map(f64::from);
    sepfir2d(&c, &h, &h)
}
