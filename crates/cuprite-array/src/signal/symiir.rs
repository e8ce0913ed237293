//! Symmetric IIR filters under mirror-symmetric boundaries (SciPy's `symiirorder1` and
//! `symiirorder2`), the recursive cores of the B-spline routines, along the last axis of an
//! array and batched over the others.
//!
//! Each is a causal pass and an anti-causal pass of [`lfilter`] whose first outputs are the
//! sums a mirror-symmetric infinite signal would give: weighted reductions of the signal's
//! first (or last) values, with host weights that decay geometrically. A forward sum stops
//! after the first weight at most `precision` in modulus and must stop before the signal's
//! end; the second-order filter's backward sums stop after the first weight whose square is
//! below `precision` (SciPy's rules).
//!
//! - First order, `c0 / ((1 - z1/z)(1 - z1 z))`: `yp[0] = x[0] + Σ_k z1^(k+1) x[k]`,
//!   `yp[n] = x[n] + z1 yp[n-1]`; `y[N-1] = -c0 / (z1 - 1) yp[N-1]`,
//!   `y[n] = c0 yp[n] + z1 y[n+1]`.
//! - Second order, `cs² / ((1 - a2/z - a3/z²)(1 - a2 z - a3 z²))` with poles `r e^(±iω)`
//!   (`a2 = 2 r cos ω`, `a3 = -r²`, `cs = 1 - 2 r cos ω + r²`): the forward pass starts from
//!   the causal response `hc` (`yp[0] = hc(0) x[0] + Σ hc(k+1) x[k]`, `yp[1] = hc(0) x[1] +
//!   hc(1) x[0] + Σ hc(k+2) x[k]`), the backward one from the symmetric response `hs` of the
//!   whole filter applied to the input (`y[N-1] = Σ (hs(k) + hs(k+1)) x[N-1-k]`, `y[N-2] =
//!   Σ (hs(k-1) + hs(k+2)) x[N-1-k]`).

use super::filters::lfilter;
use super::frames::{sc, slice_axis};
use crate::array::Array;
use crate::dtype::{DType, Float};
use crate::error::{Error, Result};
use crate::ops::ReduceOpts;
use std::f64::consts::PI;

/// SciPy's default precision of the starting sums: `1e-6` for `f32` data, `1e-11` for
/// `f64` (a value `<= 0` or `> 1` asks for it).
pub(crate) fn default_precision(d: DType, precision: f64) -> f64 {
    if precision > 0.0 && precision <= 1.0 {
        precision
    } else if d == DType::F64 {
        1e-11
    } else {
        1e-6
    }
}

/// How many terms of the weights `w(0), w(1), ...` a starting sum takes: up to and including
/// the first of modulus at most `precision`; `Err` when that is not before the `n`-th.
pub(crate) fn terms(
    what: &str,
    n: usize,
    precision: f64,
    w: impl Fn(usize) -> f64,
) -> Result<usize> {
    for k in 0..n {
        if w(k).abs() <= precision {
            if k + 1 >= n {
                break;
            }
            return Ok(k + 1);
        }
    }
    Err(Error::InvalidArgument(format!(
        "{what}: the mirror-symmetric starting sum did not converge to {precision} within the \
         signal's {n} values (a pole too near the unit circle, or too short a signal)"
    )))
}

/// `Σ_k w[k] x[..., k]` along the last axis of `x` (keeping it, of length 1).
fn weighted<T: Float>(x: &Array<T>, w: &[f64]) -> Result<Array<T>> {
    let ax = x.ndim() - 1;
    let wv: Vec<T> = w.iter().map(|&v| sc::<T>(v)).collect();
    let mut shape = vec![1; x.ndim()];
    shape[ax] = w.len();
    let wa = Array::from_slice_on(x.device(), &wv, &shape)?;
    Ok(slice_axis(x, ax, 0, w.len(), 1)?
        .try_mul(&wa)?
        .sum_axes_with(&[-1], ReduceOpts::new().keepdims(true))?
        .cast::<T>())
}

/// The first-order filter pair along the last axis of `x` (at least 2 values), the causal
/// pass started from `x[0] + Σ_k z1^(k+1) x[k]` over `n_terms` terms.
pub(crate) fn forback1<T: Float>(
    x: &Array<T>,
    c0: f64,
    z1: f64,
    n_terms: usize,
) -> Result<Array<T>> {
    let ax = x.ndim() - 1;
    let n = x.shape()[ax];
    let w: Vec<f64> = (0..n_terms).map(|k| z1.powi(k as i32 + 1)).collect();
    let a = [1.0, -z1];
    // lfilter's first output is x[0] + zi: the state is the sum beyond x[0].
    let (yp, _) = lfilter(&[1.0], &a, x, -1, Some(&weighted(x, &w)?))?;
    let last = slice_axis(&yp, ax, n - 1, n, 1)?.try_mul(sc::<T>(-c0 / (z1 - 1.0)))?;
    let rest = slice_axis(&yp.flip(&[-1])?, ax, 1, n, 1)?;
    let (back, _) = lfilter(&[c0], &a, &rest, -1, Some(&last.try_mul(sc::<T>(z1))?))?;
    Array::concat(&[&back.flip(&[-1])?, &last], -1)
}

/// [`forback1`] along the last axis of `x`, its starting sum stopped by SciPy's rule at
/// `precision` (an `Err` named for `what` when that is not within the signal).
pub(crate) fn forback1_to<T: Float>(
    what: &str,
    x: &Array<T>,
    c0: f64,
    z1: f64,
    precision: f64,
) -> Result<Array<T>> {
    let n = x.shape()[x.ndim() - 1];
    forback1(
        x,
        c0,
        z1,
        terms(what, n, precision, |k| z1.powi(k as i32 + 1))?,
    )
}

/// The causal response `hc(k)` of the second-order section with poles `r e^(±iω)`.
fn hc(k: i64, cs: f64, r: f64, omega: f64) -> f64 {
    if k < 0 {
        return 0.0;
    }
    let rk = r.powf(k as f64);
    if omega == 0.0 {
        cs * rk * (k + 1) as f64
    } else if omega == PI {
        cs * rk * (k + 1) as f64 * if k % 2 == 1 { -1.0 } else { 1.0 }
    } else {
        cs * rk * (omega * (k + 1) as f64).sin() / omega.sin()
    }
}

/// The symmetric response `hs(k)` of the forward-backward pair.
fn hs(k: i64, cs: f64, r: f64, omega: f64) -> f64 {
    let rsq = r * r;
    let k = k.unsigned_abs();
    let rk = rsq.powf(k as f64 / 2.0);
    let kf = k as f64;
    if omega == 0.0 || omega == PI {
        let c0 = (1.0 + rsq) / (1.0 - rsq).powi(3) * cs * cs;
        let sign = if omega == PI && k % 2 == 1 { -1.0 } else { 1.0 };
        let gamma = (1.0 - rsq) / (1.0 + rsq) * sign;
        return c0 * rk * (1.0 + gamma * kf);
    }
    let c0 =
        cs * cs * (1.0 + rsq) / (1.0 - rsq) / (1.0 - 2.0 * rsq * (2.0 * omega).cos() + rsq * rsq);
    let gamma = (1.0 - rsq) / (1.0 + rsq) / omega.tan();
    c0 * rk * ((omega * kf).cos() + gamma * (omega * kf).sin())
}

/// How [`forback2`] forms its starting sums.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Start {
    /// Over the whole signal, `yp[1]` weighting `x[0]` by `hc(0)` and `x[1]` by `hc(1)`, as
    /// SciPy's `cspline1d` does.
    Whole,
    /// Truncated by SciPy's precision rule, `yp[1]` weighting `x[1]` by `hc(0)` and `x[0]` by
    /// `hc(1)`, as its `symiirorder2` and `cspline2d` do.
    Precision(f64),
}

/// The second-order filter pair along the last axis of `x` (at least 3 values), its starting
/// sums formed as `start` says.
pub(crate) fn forback2<T: Float>(
    x: &Array<T>,
    r: f64,
    omega: f64,
    start: Start,
    what: &str,
) -> Result<Array<T>> {
    let ax = x.ndim() - 1;
    let n = x.shape()[ax];
    let cs = 1.0 - 2.0 * r * omega.cos() + r * r;
    let a = [1.0, -2.0 * r * omega.cos(), r * r];
    let count = |w: &dyn Fn(usize) -> f64| -> Result<usize> {
        match start {
            Start::Precision(p) => terms(what, n, p, w),
            Start::Whole => Ok(n),
        }
    };
    let h = |k: i64| hc(k, cs, r, omega);
    let s = |k: i64| hs(k, cs, r, omega);
    let k0 = count(&|k| h(k as i64 + 1))?;
    let k1 = count(&|k| h(k as i64 + 2))?;
    let w0: Vec<f64> = (0..k0)
        .map(|k| h(k as i64 + 1) + if k == 0 { h(0) } else { 0.0 })
        .collect();
    let mut w1: Vec<f64> = (0..k1.max(2))
        .map(|k| if k < k1 { h(k as i64 + 2) } else { 0.0 })
        .collect();
    let (first, second) = match start {
        Start::Whole => (h(0), h(1)),
        Start::Precision(_) => (h(1), h(0)),
    };
    w1[0] += first;
    w1[1] += second;
    let (yp0, yp1) = (weighted(x, &w0)?, weighted(x, &w1)?);
    // The state that continues a run whose last outputs were `y1` (latest) and `y0`.
    let state = |y1: &Array<T>, y0: &Array<T>| -> Result<Array<T>> {
        let s0 = y1
            .try_mul(sc::<T>(-a[1]))?
            .try_sub(&y0.try_mul(sc::<T>(a[2]))?)?;
        let s1 = y1.try_mul(sc::<T>(-a[2]))?;
        Array::concat(&[&s0, &s1], -1)
    };
    let (tail, _) = lfilter(
        &[cs],
        &a,
        &slice_axis(x, ax, 2, n, 1)?,
        -1,
        Some(&state(&yp1, &yp0)?),
    )?;
    let yp = Array::concat(&[&yp0, &yp1, &tail], -1)?;
    let xr = x.flip(&[-1])?;
    // SciPy stops the backward sums at the first weight whose square is below `precision`.
    let count_bwd = |w: &dyn Fn(usize) -> f64| -> Result<usize> {
        match start {
            Start::Precision(p) => {
                (0..n)
                    .find(|&k| w(k) * w(k) < p)
                    .map(|k| k + 1)
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "{what}: the mirror-symmetric starting sum did not converge to {p} \
                         within the signal's {n} values"
                        ))
                    })
            }
            Start::Whole => Ok(n),
        }
    };
    let b0 = count_bwd(&|k| s(k as i64) + s(k as i64 + 1))?;
    let b1 = count_bwd(&|k| s(k as i64 - 1) + s(k as i64 + 2))?;
    let v0: Vec<f64> = (0..b0).map(|k| s(k as i64) + s(k as i64 + 1)).collect();
    let v1: Vec<f64> = (0..b1).map(|k| s(k as i64 - 1) + s(k as i64 + 2)).collect();
    let (last, before) = (weighted(&xr, &v0)?, weighted(&xr, &v1)?);
    let head = slice_axis(&yp.flip(&[-1])?, ax, 2, n, 1)?;
    let (back, _) = lfilter(&[cs], &a, &head, -1, Some(&state(&before, &last)?))?;
    Array::concat(&[&back.flip(&[-1])?, &before, &last], -1)
}

fn check_signal<T: Float>(what: &str, x: &Array<T>, min: usize) -> Result<usize> {
    if x.ndim() == 0 || x.shape()[x.ndim() - 1] < min {
        return Err(Error::Shape(format!(
            "{what} needs at least {min} values along the last axis, not shape {:?}",
            x.shape()
        )));
    }
    Ok(x.shape()[x.ndim() - 1])
}

/// The first-order symmetric IIR filter `c0 / ((1 - z1 z^-1)(1 - z1 z))` along the last axis
/// of `x`, batched over the others, under mirror-symmetric boundaries (SciPy's
/// `symiirorder1(x, c0, z1, precision)`; `precision <= 0` takes SciPy's default for the
/// dtype, `1e-6` for `f32` and `1e-11` for `f64`).
///
/// # Errors
/// Fewer than 2 values along the last axis, `|z1| >= 1`, a parameter not finite, or a
/// starting sum that does not converge within the signal (named with the precision).
///
/// ```
/// use cuprite_array::{Array, signal::symiirorder1};
/// // A constant passes with the filter's DC gain c0 / (1 - z1)².
/// let y = symiirorder1(&Array::from_slice(&[1.0f64; 40], &[40])?, 0.25, 0.5, -1.0)?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-9));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn symiirorder1<T: Float>(x: &Array<T>, c0: f64, z1: f64, precision: f64) -> Result<Array<T>> {
    let what = "symiirorder1";
    check_signal(what, x, 2)?;
    if !(c0.is_finite() && z1.is_finite() && z1.abs() < 1.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: c0 {c0} must be finite and |z1| = {} below 1",
            z1.abs()
        )));
    }
    forback1_to(what, x, c0, z1, default_precision(T::DTYPE, precision))
}

/// The second-order symmetric IIR filter with poles `r e^(±iω)` (gain `cs²` with `cs = 1 - 2
/// r cos ω + r²`, so that its DC gain is 1) along the last axis of `x`, batched over the
/// others, under mirror-symmetric boundaries (SciPy's `symiirorder2(x, r, omega,
/// precision)`).
///
/// # Errors
/// Fewer than 3 values along the last axis, `r` not in `[0, 1)`, `omega` not finite, or a
/// starting sum that does not converge within the signal, named.
///
/// ```
/// use cuprite_array::{Array, signal::symiirorder2};
/// // Its DC gain is 1; the backward starting sums stop at weights below sqrt(1e-11).
/// let y = symiirorder2(&Array::from_slice(&[2.0f64; 60], &[60])?, 0.5, 0.8, -1.0)?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 2.0).abs() < 1e-4));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn symiirorder2<T: Float>(
    x: &Array<T>,
    r: f64,
    omega: f64,
    precision: f64,
) -> Result<Array<T>> {
    let what = "symiirorder2";
    check_signal(what, x, 3)?;
    if !((0.0..1.0).contains(&r) && omega.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: r {r} must lie in [0, 1) and omega {omega} be finite"
        )));
    }
    let p = default_precision(T::DTYPE, precision);
    forback2(x, r, omega, Start::Precision(p), what)
}
