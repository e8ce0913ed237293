//! FIR design by least squares (SciPy's `firls`), in `f64` on the host.
//!
//! A design of `numtaps = 2 M + 1` taps is symmetric (linear phase, type I): its response is
//! the cosine series `A(f) = sum_{k=0}^{M} c_k cos(k pi f)`, `f` a fraction of the Nyquist
//! frequency, with taps `h[M] = c_0` and `h[M ± k] = c_k / 2`. The coefficients minimise the
//! weighted squared error `sum_bands w ∫ (A(f) - D(f))^2 df`, `D` linear across each band from
//! its desired gain at the left edge to the one at the right. Setting the gradient to zero
//! gives `G c = r` with `G[k][m] = (q(k - m) + q(k + m)) / 2`, `q(n) = sum_bands w ∫ cos(n pi
//! f) df`, and `r[k] = sum_bands w ∫ D(f) cos(k pi f) df`, both in closed form; `G` is
//! symmetric and positive definite when the bands have width, and is solved by Cholesky's
//! factorisation.

use super::band::check_fir_bands;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// The most taps [`firls`] designs: its system of `(numtaps + 1) / 2` unknowns is solved
/// densely on the host.
pub const FIRLS_MAX_TAPS: usize = 4095;

/// The FIR filter of `numtaps` taps (odd) whose response is closest, in the weighted
/// least-squares sense, to a piecewise-linear desired response (SciPy's `firls(numtaps,
/// bands, desired, weight=weight)` with its default `fs`).
///
/// `bands` are the bands' edges as fractions of the Nyquist frequency, in `[0, 1]`, each band
/// of positive width, in increasing order, none overlapping the next (gaps between them are
/// left out of the error: transition bands). `desired` holds each band's desired gain at its
/// left and right edge (non-negative); the desired response is linear between them. `weight`
/// holds one non-negative weight per band, or is empty for weights of 1.
///
/// # Errors
/// An even `numtaps`, 0 or above [`FIRLS_MAX_TAPS`]; no band, or `desired` or a non-empty
/// `weight` of another length than `bands`; an edge outside `[0, 1]` or not finite, a band
/// of no width, bands out of order or overlapping; a negative or non-finite gain or weight;
/// a system that is singular to working precision (Cholesky's factorisation breaks down:
/// bands of no total weight, or far more taps than the bands determine; SciPy then falls
/// back to a least-squares solve). Each named.
///
/// ```
/// use cuprite_array::signal::firls;
/// // A low-pass filter: pass 0 to 0.3 of the Nyquist frequency, stop from 0.4.
/// let h = firls(31, &[[0.0, 0.3], [0.4, 1.0]], &[[1.0, 1.0], [0.0, 0.0]], &[])?;
/// let gain = |f: f64| -> f64 {
///     h.iter().enumerate().map(|(j, v)| v * (std::f64::consts::PI * f * (j as f64 - 15.0)).cos()).sum()
/// };
/// assert!((gain(0.1) - 1.0).abs() < 0.01 && gain(0.7).abs() < 0.01);
/// assert!((h[0] - h[30]).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn firls(
    numtaps: usize,
    bands: &[[f64; 2]],
    desired: &[[f64; 2]],
    weight: &[f64],
) -> Result<Vec<f64>> {
    check(numtaps, bands, desired, weight)?;
    let m = (numtaps - 1) / 2;
    let w = |i: usize| weight.get(i).copied().unwrap_or(1.0);
    // q(n) for n = 0 ..= 2M: the weighted integrals of cos(n pi f) over the bands.
    let q: Vec<f64> = (0..=2 * m)
        .map(|n| {
            bands
                .iter()
                .enumerate()
                .map(|(i, b)| w(i) * (int_cos(n, b[1]) - int_cos(n, b[0])))
                .sum()
        })
        .collect();
    let r: Vec<f64> = (0..=m)
        .map(|k| {
            bands
                .iter()
                .zip(desired)
                .enumerate()
                .map(|(i, (b, d))| {
                    let slope = (d[1] - d[0]) / (b[1] - b[0]);
                    let at = d[0] - slope * b[0];
                    w(i) * (int_line_cos(k, slope, at, b[1]) - int_line_cos(k, slope, at, b[0]))
                })
                .sum()
        })
        .collect();
    let g: Vec<Vec<f64>> = (0..=m)
        .map(|k| {
            (0..=m)
                .map(|j| 0.5 * (q[k.abs_diff(j)] + q[k + j]))
                .collect()
        })
        .collect();
    let c = cholesky_solve(g, r).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "firls: the least-squares system of {numtaps} taps over the bands {bands:?} with \
             weights {weight:?} is singular to working precision; take fewer taps, wider \
             bands or positive weights"
        ))
    })?;
    let mut h = vec![0.0; numtaps];
    h[m] = c[0];
    for (k, &ck) in c.iter().enumerate().skip(1) {
        h[m + k] = 0.5 * ck;
        h[m - k] = 0.5 * ck;
    }
    Ok(h)
}

/// The checks of [`firls`], SciPy's, each named.
fn check(numtaps: usize, bands: &[[f64; 2]], desired: &[[f64; 2]], weight: &[f64]) -> Result<()> {
    let bad = |m: String| Err(Error::InvalidArgument(format!("firls: {m}")));
    if numtaps % 2 == 0 || numtaps > FIRLS_MAX_TAPS {
        return bad(format!(
            "numtaps {numtaps} must be odd, 1 to {FIRLS_MAX_TAPS} (a symmetric filter of odd \
             length)"
        ));
    }
    check_fir_bands(
        "firls",
        bands,
        (desired.len(), "desired gain pairs"),
        weight.len(),
    )?;
    if let Some((i, d)) = desired
        .iter()
        .enumerate()
        .find(|(_, d)| !d.iter().all(|g| g.is_finite() && *g >= 0.0))
    {
        return bad(format!(
            "the desired gains of band {i} are {d:?}; each must be finite and non-negative"
        ));
    }
    if let Some((i, v)) = weight
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && **v >= 0.0))
    {
        return bad(format!(
            "weight {i} is {v}; each must be finite and non-negative"
        ));
    }
    Ok(())
}

/// `∫_0^f cos(n pi t) dt`: `f` for `n = 0`, else `sin(n pi f) / (n pi)`.
fn int_cos(n: usize, f: f64) -> f64 {
    if n == 0 {
        f
    } else {
        let a = n as f64 * PI;
        (a * f).sin() / a
    }
}

/// `∫_0^f (s t + c) cos(k pi t) dt` (up to a constant of `f`): `s f^2 / 2 + c f` for `k = 0`,
/// else `(s f + c) sin(k pi f) / (k pi) + s cos(k pi f) / (k pi)^2`.
fn int_line_cos(k: usize, s: f64, c: f64, f: f64) -> f64 {
    if k == 0 {
        0.5 * s * f * f + c * f
    } else {
        let a = k as f64 * PI;
        (s * f + c) * (a * f).sin() / a + s * (a * f).cos() / (a * a)
    }
}

/// The solution of `g x = r` for a symmetric `g` by Cholesky's factorisation, `None` where a
/// pivot is not above `n ε` times the largest diagonal element (not positive definite to
/// working precision).
fn cholesky_solve(mut g: Vec<Vec<f64>>, mut r: Vec<f64>) -> Option<Vec<f64>> {
    let n = r.len();
    let floor = n as f64
        * f64::EPSILON
        * g.iter()
            .enumerate()
            .map(|(i, row)| row[i])
            .fold(0.0, f64::max);
    for j in 0..n {
        let (done, rest) = g.split_at_mut(j);
        let row = &mut rest[0];
        for (k, lk) in done.iter().enumerate() {
            // row[k] holds L[j][k] once the loop over k reaches it.
            let s: f64 = (0..k).map(|p| row[p] * lk[p]).sum();
            row[k] = (row[k] - s) / lk[k];
        }
        let d = row[j] - (0..j).map(|p| row[p] * row[p]).sum::<f64>();
        if d.is_nan() || d <= floor {
            return None;
        }
        row[j] = d.sqrt();
    }
    // L y = r, then Lᵀ x = y.
    for i in 0..n {
        let s: f64 = (0..i).map(|p| g[i][p] * r[p]).sum();
        r[i] = (r[i] - s) / g[i][i];
    }
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|p| g[p][i] * r[p]).sum();
        r[i] = (r[i] - s) / g[i][i];
    }
    Some(r)
}
