//! Equiripple FIR design by the Remez exchange (SciPy's `remez`, the Parks-McClellan
//! program), in `f64` on the host.
//!
//! A linear-phase filter's response is `Q(f) A(f)` with `A(f) = sum_{k<r} a_k cos(2 pi k f)`
//! (`f` in cycles a sample, `0` to `1/2`) and `Q` fixed by its symmetry and length: 1 (odd
//! length, symmetric), `cos(pi f)` (even, symmetric), `sin(2 pi f)` (odd, antisymmetric),
//! `sin(pi f)` (even, antisymmetric). The design minimises the largest weighted error
//! `W(f) |D(f) - Q(f) A(f)|` over a dense grid of the bands, that is `W Q |D / Q - A|`: a
//! Chebyshev approximation by a polynomial of degree `r - 1` in `x = cos(2 pi f)`.
//!
//! The grid is SciPy's: each band from its left edge in steps of `1 / (2 density r)`, its
//! last point moved to its right edge, the first point moved off `f = 0` and the last off
//! `f = 1/2` where `Q` vanishes there. The exchange starts from `r + 1` grid points spread
//! evenly, and repeats: the polynomial through them that errs by `±δ` alternately
//! (barycentric Lagrange interpolation in `x`), then the error over the grid, whose local
//! extremes of at least `|δ|` (neighbours taken within a band), one per run of equal sign
//! (the largest), trimmed to `r + 1` from the smaller end, are the next points. It stops
//! when the points do not change: the error then equioscillates at them, which by the
//! alternation theorem makes the design the best one on the grid. The coefficients are the
//! polynomial's samples at `2 r - 1` equally spaced frequencies, transformed back, and the
//! taps follow from them and `Q`.

use super::band::check_fir_bands;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// The most taps [`remez`] designs: each exchange costs the grid's points times the taps
/// on the host.
pub const REMEZ_MAX_TAPS: usize = 8191;

/// What a [`remez`] design approximates (SciPy's `type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RemezKind {
    /// A symmetric filter with the desired gain in each band.
    #[default]
    Bandpass,
    /// An antisymmetric filter whose gain in each band is the band's desired value times the
    /// frequency in cycles a sample (half the fraction of the Nyquist frequency), weighted by
    /// its inverse where the desired value is not below `1e-4`.
    Differentiator,
    /// An antisymmetric filter with the desired gain in each band (a Hilbert transformer for
    /// a gain of 1).
    Hilbert,
}

/// The options of [`remez_with`]: the kind of design, the exchanges allowed, the grid's
/// density (SciPy's `type`, `maxiter` and `grid_density`, with SciPy's defaults).
///
/// ```
/// use cuprite_array::signal::{RemezKind, RemezOpts};
/// let o = RemezOpts::new().kind(RemezKind::Hilbert).maxiter(40).grid_density(32);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct RemezOpts {
    kind: RemezKind,
    maxiter: usize,
    grid_density: usize,
}

impl Default for RemezOpts {
    fn default() -> Self {
        RemezOpts {
            kind: RemezKind::Bandpass,
            maxiter: 25,
            grid_density: 16,
        }
    }
}

impl RemezOpts {
    /// SciPy's defaults: a band-pass design, 25 exchanges, a grid density of 16.
    pub fn new() -> Self {
        Self::default()
    }
    /// The kind of design.
    pub fn kind(mut self, kind: RemezKind) -> Self {
        self.kind = kind;
        self
    }
    /// The most exchanges before the design is an `Err`.
    pub fn maxiter(mut self, maxiter: usize) -> Self {
        self.maxiter = maxiter;
        self
    }
    /// Grid points a band of `1 / (2 r)` cycles a sample holds (`r` the coefficients).
    pub fn grid_density(mut self, density: usize) -> Self {
        self.grid_density = density;
        self
    }
}

/// The equiripple FIR filter of `numtaps` taps (SciPy's `remez(numtaps, bands, desired,
/// weight=weight, fs=2)`): the linear-phase filter whose largest weighted deviation from
/// `desired[i]` over the bands is least, by the Remez exchange. See [`remez_with`].
///
/// # Errors
/// As [`remez_with`].
///
/// ```
/// use cuprite_array::signal::remez;
/// // A low-pass filter: pass to 0.4 of the Nyquist frequency, stop from 0.6.
/// let h = remez(31, &[[0.0, 0.4], [0.6, 1.0]], &[1.0, 0.0], &[])?;
/// let gain = |f: f64| -> f64 {
///     h.iter().enumerate().map(|(j, v)| v * (std::f64::consts::PI * f * (j as f64 - 15.0)).cos()).sum()
/// };
/// assert!((gain(0.2) - 1.0).abs() < 0.01 && gain(0.8).abs() < 0.01);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn remez(
    numtaps: usize,
    bands: &[[f64; 2]],
    desired: &[f64],
    weight: &[f64],
) -> Result<Vec<f64>> {
    remez_with(numtaps, bands, desired, weight, RemezOpts::new())
}

/// [`remez`] with the kind of design, the exchanges allowed and the grid's density
/// ([`RemezOpts`]).
///
/// `bands` are the bands' edges as fractions of the Nyquist frequency, in `[0, 1]`, each band
/// of positive width, in increasing order, none overlapping the next; `desired` holds one
/// gain a band (for [`RemezKind::Differentiator`] the slope); `weight` one positive weight a
/// band, or is empty for weights of 1. An even-length band-pass design has zero gain at the
/// Nyquist frequency, and an antisymmetric one zero gain at 0 (odd lengths also at the
/// Nyquist frequency), whatever is asked there.
///
/// # Errors
/// `numtaps` above [`REMEZ_MAX_TAPS`], or too few for a coefficient (1 for an antisymmetric
/// design); no band, or `desired` or a non-empty `weight` of another length than `bands`; an
/// edge outside `[0, 1]`, a band of no width, bands out of order or overlapping; a desired
/// gain not finite, a weight not finite and positive; `maxiter` or `grid_density` 0; a grid
/// with fewer points than the exchange needs; no convergence within `maxiter` exchanges
/// (SciPy returns its last design then). Each named.
///
/// ```
/// use cuprite_array::signal::{RemezKind, RemezOpts, remez_with};
/// // A Hilbert transformer of 31 taps over 0.1 to 0.9 of the Nyquist frequency.
/// let o = RemezOpts::new().kind(RemezKind::Hilbert);
/// let h = remez_with(31, &[[0.1, 0.9]], &[1.0], &[], o)?;
/// assert!(h[15].abs() < 1e-12 && (h[0] + h[30]).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn remez_with(
    numtaps: usize,
    bands: &[[f64; 2]],
    desired: &[f64],
    weight: &[f64],
    opts: RemezOpts,
) -> Result<Vec<f64>> {
    let neg = opts.kind != RemezKind::Bandpass;
    let odd = numtaps % 2 == 1;
    // Coefficients of `A`.
    let r = numtaps / 2 + usize::from(odd && !neg);
    check(numtaps, r, bands, desired, weight, opts)?;
    let grid = Grid::of(r, bands, desired, weight, opts, (neg, odd))?;
    let a = exchange(&grid, r, opts.maxiter)?;
    Ok(taps(&a, numtaps, (neg, odd)))
}

/// The checks of [`remez_with`], each named.
fn check(
    numtaps: usize,
    r: usize,
    bands: &[[f64; 2]],
    desired: &[f64],
    weight: &[f64],
    opts: RemezOpts,
) -> Result<()> {
    let bad = |m: String| Err(Error::InvalidArgument(format!("remez: {m}")));
    if r == 0 || numtaps > REMEZ_MAX_TAPS {
        return bad(format!(
            "numtaps {numtaps} must be 1 to {REMEZ_MAX_TAPS} (2 to it for an antisymmetric \
             design)"
        ));
    }
    if opts.maxiter == 0 || opts.grid_density == 0 {
        return bad(format!(
            "maxiter {} and grid_density {} must be at least 1",
            opts.maxiter, opts.grid_density
        ));
    }
    check_fir_bands(
        "remez",
        bands,
        (desired.len(), "desired gains"),
        weight.len(),
    )?;
    if let Some((i, d)) = desired.iter().enumerate().find(|(_, d)| !d.is_finite()) {
        return bad(format!("desired gain {i} is {d}; each must be finite"));
    }
    if let Some((i, v)) = weight
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && **v > 0.0))
    {
        return bad(format!(
            "weight {i} is {v}; each must be finite and positive"
        ));
    }
    Ok(())
}

/// The dense grid of the approximation: frequencies (cycles a sample), `D / Q` and `W Q` at
/// each, and where each band's points end.
struct Grid {
    f: Vec<f64>,
    des: Vec<f64>,
    wt: Vec<f64>,
    /// One past each band's last point.
    ends: Vec<usize>,
}

impl Grid {
    /// SciPy's grid for `r` coefficients (see the module's docs).
    fn of(
        r: usize,
        bands: &[[f64; 2]],
        desired: &[f64],
        weight: &[f64],
        opts: RemezOpts,
        (neg, odd): (bool, bool),
    ) -> Result<Grid> {
        let delf = 0.5 / (opts.grid_density as f64 * r as f64);
        let differentiator = opts.kind == RemezKind::Differentiator;
        let mut g = Grid {
            f: Vec::new(),
            des: Vec::new(),
            wt: Vec::new(),
            ends: Vec::new(),
        };
        for (i, b) in bands.iter().enumerate() {
            let (lo, hi) = (b[0] / 2.0, b[1] / 2.0);
            let w = weight.get(i).copied().unwrap_or(1.0);
            let at = |f: f64| {
                if differentiator {
                    let wt = if desired[i] >= 1e-4 { w / f } else { w };
                    (desired[i] * f, wt)
                } else {
                    (desired[i], w)
                }
            };
            let mut f = if i == 0 && neg && lo < delf { delf } else { lo };
            let start = g.f.len();
            loop {
                g.f.push(f);
                let next = f + delf;
                if next > hi {
                    break;
                }
                f = next;
            }
            // The band's last point moves to its edge (the one before it stays where a
            // rounded step passed the edge).
            if let Some(last) = g.f.last_mut() {
                *last = hi;
            }
            for &f in &g.f[start..] {
                let (d, w) = at(f);
                g.des.push(d);
                g.wt.push(w);
            }
            g.ends.push(g.f.len());
        }
        // `Q` vanishes at 1/2 for an even symmetric and an odd antisymmetric design.
        if neg == odd && g.f.last().is_some_and(|&f| f > 0.5 - delf) {
            g.f.pop();
            g.des.pop();
            g.wt.pop();
            if let Some(e) = g.ends.last_mut() {
                *e -= 1;
            }
        }
        for j in 0..g.f.len() {
            let q = match (neg, odd) {
                (false, true) => continue,
                (false, false) => (PI * g.f[j]).cos(),
                (true, true) => (2.0 * PI * g.f[j]).sin(),
                (true, false) => (PI * g.f[j]).sin(),
            };
            g.des[j] /= q;
            g.wt[j] *= q;
        }
        if g.f.len() < r + 1 {
            return Err(Error::InvalidArgument(format!(
                "remez: the grid of the bands {bands:?} has {} points, fewer than the {} the \
                 exchange needs for {r} coefficients; raise grid_density or widen the bands",
                g.f.len(),
                r + 1
            )));
        }
        Ok(g)
    }
}

/// The polynomial through the points `x` with the values `y` (barycentric weights `ad`).
struct Interp {
    x: Vec<f64>,
    y: Vec<f64>,
    ad: Vec<f64>,
}

impl Interp {
    fn at(&self, x: f64) -> f64 {
        let (mut num, mut den) = (0.0, 0.0);
        for ((&xk, &yk), &ak) in self.x.iter().zip(&self.y).zip(&self.ad) {
            let d = x - xk;
            if d == 0.0 {
                return yk;
            }
            let c = ak / d;
            num += c * yk;
            den += c;
        }
        num / den
    }
}

/// Barycentric weights `1 / prod_{j != k} 2 (x_k - x_j)`, scaled by a common factor (which
/// cancels in every use): summed as logarithms so that no product overflows.
fn weights(x: &[f64]) -> Vec<f64> {
    let logs: Vec<(f64, f64)> = x
        .iter()
        .enumerate()
        .map(|(k, &xk)| {
            let (mut l, mut s) = (0.0, 1.0);
            for (j, &xj) in x.iter().enumerate() {
                if j != k {
                    let d = 2.0 * (xk - xj);
                    l += d.abs().ln();
                    if d < 0.0 {
                        s = -s;
                    }
                }
            }
            (l, s)
        })
        .collect();
    let least = logs.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    logs.iter().map(|&(l, s)| s * (least - l).exp()).collect()
}

/// The exchange on `g` for `r` coefficients (see the module's docs): the cosine
/// coefficients `a_k` of the best `A`.
fn exchange(g: &Grid, r: usize, maxiter: usize) -> Result<Vec<f64>> {
    let n = g.f.len();
    let spread = (n - 1) as f64 / r as f64;
    let mut ext: Vec<usize> = (0..r).map(|j| (j as f64 * spread) as usize).collect();
    ext.push(n - 1);
    let xs: Vec<f64> = g.f.iter().map(|&f| (2.0 * PI * f).cos()).collect();
    for _ in 0..maxiter {
        let p = reference(g, &xs, &ext);
        let dev = p.1;
        let err: Vec<f64> = (0..n)
            .map(|j| g.wt[j] * (g.des[j] - p.0.at(xs[j])))
            .collect();
        let next = extremes(g, &err, dev.abs(), r + 1);
        if next.len() < r + 1 {
            return Err(Error::InvalidArgument(format!(
                "remez: the error alternates at {} grid points, fewer than the {} the \
                 exchange needs (a degenerate design)",
                next.len(),
                r + 1
            )));
        }
        // Converged: the points stay, or the error nowhere exceeds the level it alternates
        // at (ties between more extremes than points could otherwise swap them forever).
        let most = err.iter().fold(0.0f64, |m, e| m.max(e.abs()));
        if next == ext || most <= dev.abs() * (1.0 + 1e-12) {
            return Ok(coefficients(&p.0, r));
        }
        ext = next;
    }
    Err(Error::InvalidArgument(format!(
        "remez: no convergence in {maxiter} exchanges; raise maxiter, or widen the transition \
         bands"
    )))
}

/// The polynomial that errs by `±δ` alternately at the grid points `ext`, and `δ`.
fn reference(g: &Grid, xs: &[f64], ext: &[usize]) -> (Interp, f64) {
    let x: Vec<f64> = ext.iter().map(|&i| xs[i]).collect();
    let ad = weights(&x);
    let sign = |k: usize| if k % 2 == 0 { 1.0 } else { -1.0 };
    let num: f64 = ext.iter().zip(&ad).map(|(&i, a)| a * g.des[i]).sum();
    let den: f64 = ext
        .iter()
        .zip(&ad)
        .enumerate()
        .map(|(k, (&i, a))| sign(k) * a / g.wt[i])
        .sum();
    let dev = num / den;
    let y = ext
        .iter()
        .enumerate()
        .map(|(k, &i)| g.des[i] - sign(k) * dev / g.wt[i])
        .collect();
    (Interp { x, y, ad }, dev)
}

/// The next exchange points: the local extremes of `err` within each band of at least
/// `level` (within rounding), one per run of equal sign (the largest), trimmed to `want`
/// from whichever end is smaller (the last where they tie).
fn extremes(g: &Grid, err: &[f64], level: f64, want: usize) -> Vec<usize> {
    let floor = level * (1.0 - 1e-6);
    let mut picked: Vec<usize> = Vec::new();
    let mut start = 0;
    for &end in &g.ends {
        for j in start..end {
            let e = err[j];
            let s = e.signum();
            let left = j == start || s * e >= s * err[j - 1];
            let right = j + 1 == end || s * e >= s * err[j + 1];
            if !(left && right) || e.abs() < floor {
                continue;
            }
            match picked.last() {
                Some(&p) if err[p].signum() == s => {
                    if e.abs() > err[p].abs() {
                        *picked.last_mut().expect("a point") = j;
                    }
                }
                _ => picked.push(j),
            }
        }
        start = end;
    }
    while picked.len() > want {
        // The last goes unless the first is smaller beyond rounding.
        let (first, last) = (picked[0], picked[picked.len() - 1]);
        if err[first].abs() < err[last].abs() * (1.0 - 1e-9) {
            picked.remove(0);
        } else {
            picked.pop();
        }
    }
    picked
}

/// The cosine coefficients of the polynomial `p` of degree below `r` in `x = cos(2 pi f)`:
/// its values at `f_j = j / (2 r - 1)`, transformed back.
fn coefficients(p: &Interp, r: usize) -> Vec<f64> {
    let cn = (2 * r - 1) as f64;
    let v: Vec<f64> = (0..r)
        .map(|j| p.at((2.0 * PI * j as f64 / cn).cos()))
        .collect();
    (0..r)
        .map(|k| {
            let s: f64 = (1..r)
                .map(|j| v[j] * (2.0 * PI * (j * k) as f64 / cn).cos())
                .sum();
            let a = v[0] + 2.0 * s;
            if k == 0 { a / cn } else { 2.0 * a / cn }
        })
        .collect()
}

/// The `numtaps` taps of the filter whose `A` has the cosine coefficients `a` (`r` of them).
fn taps(a: &[f64], numtaps: usize, (neg, odd): (bool, bool)) -> Vec<f64> {
    let r = a.len();
    let al = |k: usize| a.get(k).copied().unwrap_or(0.0);
    // The taps at distance `n` from the centre (odd lengths, `n = 0 ..`) or `n - 1/2`
    // (even lengths, `n = 1 ..`), on the first half's side.
    let side: Vec<f64> = match (neg, odd) {
        (false, true) => (0..r)
            .map(|n| if n == 0 { al(0) } else { 0.5 * al(n) })
            .collect(),
        (false, false) => (1..=r)
            .map(|n| {
                if n == 1 {
                    0.5 * al(0) + 0.25 * al(1)
                } else {
                    0.25 * (al(n - 1) + al(n))
                }
            })
            .collect(),
        (true, true) => std::iter::once(0.0)
            .chain((1..=r).map(|n| {
                if n == 1 {
                    0.5 * al(0) - 0.25 * al(2)
                } else {
                    0.25 * (al(n - 1) - al(n + 1))
                }
            }))
            .collect(),
        (true, false) => (1..=r)
            .map(|n| {
                if n == 1 {
                    0.5 * al(0) - 0.25 * al(1)
                } else {
                    0.25 * (al(n - 1) - al(n))
                }
            })
            .collect(),
    };
    let mut h = vec![0.0; numtaps];
    let sign = if neg { -1.0 } else { 1.0 };
    for (n, &v) in side.iter().enumerate() {
        // Distance `n` (odd) or `n + 1/2` (even) from the centre: first half, then mirrored.
        let i = if odd {
            numtaps / 2 - n
        } else {
            numtaps / 2 - 1 - n
        };
        h[i] = v;
        h[numtaps - 1 - i] = if odd && n == 0 { v } else { sign * v };
    }
    h
}
