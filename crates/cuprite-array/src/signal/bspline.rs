//! B-spline signal processing (SciPy's `cspline1d`, `qspline1d`, `cspline1d_eval`,
//! `qspline1d_eval` and `gauss_spline`): the coefficients of the cubic or quadratic B-spline
//! that interpolates (or, for cubics with `lamb > 0`, smooths) a 1-D signal under
//! mirror-symmetric boundaries, and the spline evaluated anywhere.
//!
//! The interpolating coefficients are a causal and an anti-causal first-order recursive
//! filter ([`lfilter`]) with the pole `z = √3 - 2` (cubic) or `2√2 - 3` (quadratic), scaled by
//! 6 or 8. The causal pass starts from the mirror-symmetric sum `Σ_k z^k x_k` (the terms below
//! `2^-60` of the largest dropped), the anti-causal one from `z / (z - 1)` times the last causal
//! value. The smoothing cubic runs a second-order filter with the complex pole pair
//! `ρ e^(±iω)` forward and backward, started from SciPy's closed-form sums of the signal.
//! Every sum is a weighted reduction of the signal on its device; the filters are the lazy
//! [`lfilter`] scans, so the whole computation stays on the current backend.

use super::filters::lfilter;
use super::frames::{sc, slice_axis};
use crate::array::Array;
use crate::dtype::{Float, Transcendental};
use crate::error::{Error, Result};
use crate::ops::{IndexMode, ReduceOpts, TakeOpts};

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

/// `Σ_k w_k x_k` over the first `w.len()` values of `x`, as a 1-value array.
fn weighted<T: Float>(x: &Array<T>, w: &[f64]) -> Result<Array<T>> {
    let n = w.len().min(x.len());
    let wv: Vec<T> = w[..n].iter().map(|&v| sc::<T>(v)).collect();
    let wa = Array::from_slice_on(x.device(), &wv, &[n])?;
    Ok(slice_axis(x, 0, 0, n, 1)?
        .try_mul(&wa)?
        .sum_axes_with(&[0], ReduceOpts::new().keepdims(true))?
        .cast::<T>())
}

/// The coefficients of the interpolating spline with pole `z`, scaled by `gain`.
fn first_order<T: Float>(x: &Array<T>, z: f64, gain: f64) -> Result<Array<T>> {
    let k = x.len();
    if k == 1 {
        // A one-sample signal is a constant under mirror symmetry, its coefficient itself.
        return Ok(x.clone());
    }
    let powers: Vec<f64> = std::iter::successors(Some(1.0f64), |p| Some(p * z))
        .take_while(|p| p.abs() >= CUTOFF)
        .take(k)
        .collect();
    let sum = weighted(x, &powers)?;
    let a = [1.0, -z];
    let (yplus, _) = lfilter(&[1.0], &a, x, 0, Some(&sum.try_mul(sc::<T>(z))?))?;
    let last = slice_axis(&yplus, 0, k - 1, k, 1)?.try_mul(sc::<T>(z / (z - 1.0)))?;
    let rev = yplus.flip(&[0])?;
    let rest = slice_axis(&rev, 0, 1, k, 1)?;
    let (back, _) = lfilter(&[-z], &a, &rest, 0, Some(&last.try_mul(sc::<T>(z))?))?;
    Array::concat(&[&back.flip(&[0])?, &last], 0)?.try_mul(sc::<T>(gain))
}

/// The pole pair `(ρ, ω)` of the smoothing cubic spline of weight `lamb` (SciPy's
/// `_coeff_smooth`).
fn smooth_poles(lamb: f64) -> (f64, f64) {
    let root = (3.0 + 144.0 * lamb).sqrt();
    let xi = 1.0 - 96.0 * lamb + 24.0 * lamb * root;
    let omega = (144.0 * lamb - 1.0).sqrt().atan2(xi.sqrt());
    let rho = (24.0 * lamb - 1.0 - xi.sqrt()) / (24.0 * lamb)
        * ((48.0 * lamb + 24.0 * lamb * root) / xi).sqrt();
    (rho, omega)
}

/// The smoothing cubic spline's coefficients (SciPy's `_cubic_smooth_coeff`).
fn smoothing<T: Float>(x: &Array<T>, lamb: f64) -> Result<Array<T>> {
    let k = x.len();
    let (rho, om) = smooth_poles(lamb);
    let cs = 1.0 - 2.0 * rho * om.cos() + rho * rho;
    // The causal response `hc` and the symmetric one `hs` of the filter, at lag `j`.
    let hc = |j: i64| {
        if j < 0 {
            0.0
        } else {
            cs / om.sin() * rho.powf(j as f64) * (om * (j + 1) as f64).sin()
        }
    };
    let c0 = cs * cs * (1.0 + rho * rho)
        / (1.0 - rho * rho)
        / (1.0 - 2.0 * rho * rho * (2.0 * om).cos() + rho.powi(4));
    let gamma = (1.0 - rho * rho) / (1.0 + rho * rho) / om.tan();
    let hs = |j: i64| {
        let a = j.unsigned_abs() as f64;
        c0 * rho.powf(a) * ((om * a).cos() + gamma * (om * a).sin())
    };
    // The responses decay as ρ^j: later terms below the cut-off are dropped.
    let terms = if rho.abs() > 0.0 && rho.abs() < 1.0 {
        k.min(((CUTOFF.ln() / rho.abs().ln()).ceil() as usize).saturating_add(3))
    } else {
        k
    };
    let ki = terms as i64;
    // Forward starting values: yp[0] = zi_2 and yp[1] = zi_1, as SciPy orders them.
    let w2: Vec<f64> = (0..ki)
        .map(|j| hc(j + 1) + if j == 0 { hc(0) } else { 0.0 })
        .collect();
    let w1: Vec<f64> = (0..ki)
        .map(|j| {
            hc(j + 2)
                + match j {
                    0 => hc(0),
                    1 => hc(1),
                    _ => 0.0,
                }
        })
        .collect();
    let (zi2, zi1) = (weighted(x, &w2)?, weighted(x, &w1)?);
    let a = [1.0, -2.0 * rho * om.cos(), rho * rho];
    // The state that continues a run whose last outputs were `y1` (latest) and `y0`.
    let state = |y1: &Array<T>, y0: &Array<T>| -> Result<Array<T>> {
        let s0 = y1
            .try_mul(sc::<T>(-a[1]))?
            .try_sub(&y0.try_mul(sc::<T>(a[2]))?)?;
        let s1 = y1.try_mul(sc::<T>(-a[2]))?;
        Array::concat(&[&s0, &s1], 0)
    };
    let (tail, _) = lfilter(
        &[cs],
        &a,
        &slice_axis(x, 0, 2, k, 1)?,
        0,
        Some(&state(&zi1, &zi2)?),
    )?;
    let yp = Array::concat(&[&zi2, &zi1, &tail], 0)?;
    // Backward starting values from the reversed signal: y[k - 2] = b1, y[k - 1] = b2.
    let xr = x.flip(&[0])?;
    let v2: Vec<f64> = (0..ki).map(|j| hs(j) + hs(j + 1)).collect();
    let v1: Vec<f64> = (0..ki).map(|j| hs(j - 1) + hs(j + 2)).collect();
    let (b2, b1) = (weighted(&xr, &v2)?, weighted(&xr, &v1)?);
    let head = slice_axis(&yp.flip(&[0])?, 0, 2, k, 1)?;
    let (back, _) = lfilter(&[cs], &a, &head, 0, Some(&state(&b1, &b2)?))?;
    Array::concat(&[&back.flip(&[0])?, &b1, &b2], 0)
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
    smoothing(x, lamb)
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
