//! The discrete prolate spheroidal (Slepian) sequences (SciPy's `windows.dpss`), computed on
//! the host in `f64` and placed on the current device.
//!
//! The sequences of length `M` and half-bandwidth `NW` are the eigenvectors of the symmetric
//! tridiagonal matrix of Percival and Walden (diagonal `((M - 1 - 2t) / 2)² cos(2πW)`, first
//! off-diagonal `t (M - t) / 2`, `W = NW / M`) for its largest eigenvalues, in decreasing
//! order. Each eigenvalue is found by bisection on Sturm counts, its vector by inverse
//! iteration on a pivoted factorisation of the shifted matrix, made orthogonal to the vectors
//! before it. Signs follow Percival and Walden's convention as SciPy applies it: the even
//! orders sum to a positive value, the odd orders start with a positive lobe.

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// How [`dpss_with`] scales the sequences (SciPy's `norm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DpssNorm {
    /// Unit energy (`2`, SciPy's default when `kmax` is given).
    L2,
    /// Peak 1, an even length's sequences then scaled by `M² / (M² + NW)` (`'approximate'`,
    /// SciPy's default for a single sequence).
    Approximate,
    /// Peak 1, an even length's sequences then scaled so that their sum, shifted by half a
    /// sample in the frequency domain, is `M` (`'subsample'`).
    Subsample,
}

/// Options of [`dpss_with`], with SciPy's defaults: one sequence, symmetric, the norm chosen by
/// whether `kmax` is given.
///
/// ```
/// use cuprite_array::signal::{DpssNorm, DpssOpts};
/// let o = DpssOpts::new().kmax(4).sym(false).norm(DpssNorm::L2);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct DpssOpts {
    kmax: Option<usize>,
    sym: bool,
    norm: Option<DpssNorm>,
}

impl Default for DpssOpts {
    fn default() -> Self {
        DpssOpts {
            kmax: None,
            sym: true,
            norm: None,
        }
    }
}

impl DpssOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The number of sequences (orders `0 .. kmax`); the result is then `[kmax, M]`. Without
    /// it, one sequence of shape `[M]`.
    pub fn kmax(mut self, k: usize) -> Self {
        self.kmax = Some(k);
        self
    }
    /// Symmetric (`true`, the default) or periodic for spectral analysis (`false`: computed
    /// for `M + 1` points, the last dropped).
    pub fn sym(mut self, sym: bool) -> Self {
        self.sym = sym;
        self
    }
    /// The scaling; SciPy's default is [`DpssNorm::L2`] with `kmax`, else
    /// [`DpssNorm::Approximate`].
    pub fn norm(mut self, norm: DpssNorm) -> Self {
        self.norm = Some(norm);
        self
    }
}

/// The first DPSS (Slepian) window of `m` points and half-bandwidth `nw`, with SciPy's
/// defaults (symmetric, peak 1 with the `'approximate'` correction).
///
/// # Errors
/// As [`dpss_with`].
///
/// ```
/// use cuprite_array::signal::dpss;
/// let w = dpss::<f64>(8, 2.0)?.to_vec()?;
/// assert_eq!(w.len(), 8);
/// // Symmetric, largest in the middle.
/// assert!((w[0] - w[7]).abs() < 1e-12 && w[3] > w[0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dpss<T: Float>(m: usize, nw: f64) -> Result<Array<T>> {
    dpss_with(m, nw, &DpssOpts::new())
}

/// The DPSS (Slepian) windows of `m` points and half-bandwidth `nw` (SciPy's
/// `windows.dpss`): `[kmax, m]` with `kmax`, else the first as `[m]`.
///
/// # Errors
/// `nw` not positive, not finite or not below `m / 2`; `kmax` 0 or above `m`; more points
/// than the host's memory holds, named. Fewer than 2 points give ones, as in SciPy.
///
/// ```
/// use cuprite_array::signal::{DpssOpts, dpss_with};
/// let w = dpss_with::<f64>(16, 2.5, &DpssOpts::new().kmax(3))?;
/// assert_eq!(w.shape(), &[3, 16]);
/// // Unit energy, mutually orthogonal.
/// let v = w.to_vec()?;
/// let dot = |a: usize, b: usize| (0..16).map(|i| v[a * 16 + i] * v[b * 16 + i]).sum::<f64>();
/// assert!((dot(0, 0) - 1.0).abs() < 1e-12 && dot(0, 1).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dpss_with<T: Float>(m: usize, nw: f64, opts: &DpssOpts) -> Result<Array<T>> {
    let (w, k) = sequences(m, nw, opts)?;
    let v: Vec<T> = w
        .into_iter()
        .map(|x| T::from_scalar(Scalar::F64(x)))
        .collect();
    match opts.kmax {
        Some(_) => Array::from_slice(&v, &[k, m]),
        None => Array::from_slice(&v, &[m]),
    }
}

/// The concentration ratios of the sequences of [`dpss_with`] (SciPy's `return_ratios`): the
/// fraction of each sequence's energy within the band `[-W, W]`, from its autocorrelation,
/// one value an order.
///
/// # Errors
/// As [`dpss_with`].
///
/// ```
/// use cuprite_array::signal::{DpssOpts, dpss_ratios};
/// let r = dpss_ratios(64, 4.0, &DpssOpts::new().kmax(8))?;
/// // The first 2 NW - 2 orders keep more than 99% of their energy in the band; later
/// // orders less and less.
/// assert!(r[..6].iter().all(|&v| v > 0.99 && v <= 1.0 + 1e-12));
/// assert!(r.windows(2).all(|p| p[1] < p[0]) && r[7] < 0.9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dpss_ratios(m: usize, nw: f64, opts: &DpssOpts) -> Result<Vec<f64>> {
    check(m, nw, opts.kmax)?;
    let k = opts.kmax.unwrap_or(1);
    if m <= 1 {
        return Ok(vec![1.0; k]);
    }
    // The ratios come from the sequences of unit energy, before any truncation; an
    // autocorrelation does not depend on the sign.
    let (mm, ww) = extended(m, nw, opts.sym);
    let raw = tapers(mm, ww, k)?;
    Ok((0..k)
        .map(|j| {
            let x = &raw[j * mm..(j + 1) * mm];
            let r = |lag: usize| {
                if lag == 0 {
                    2.0 * ww
                } else {
                    4.0 * ww * super::windows::sinc(2.0 * ww * lag as f64)
                }
            };
            (0..mm)
                .map(|lag| (0..mm - lag).map(|i| x[i] * x[i + lag]).sum::<f64>() * r(lag))
                .sum()
        })
        .collect())
}

fn check(m: usize, nw: f64, kmax: Option<usize>) -> Result<()> {
    if m <= 1 {
        return Ok(());
    }
    if let Some(k) = kmax {
        if k == 0 || k > m {
            return Err(Error::InvalidArgument(format!(
                "dpss: kmax {k} must lie in 1..={m} (the number of points)"
            )));
        }
    }
    if !(nw > 0.0 && nw.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "dpss: NW {nw} must be positive and finite"
        )));
    }
    if nw >= m as f64 / 2.0 {
        return Err(Error::InvalidArgument(format!(
            "dpss: NW {nw} must be less than M / 2 = {}",
            m as f64 / 2.0
        )));
    }
    crate::util::host_fits::<f64>(m.saturating_add(1), &format!("dpss: {m} points"))?;
    Ok(())
}

/// The points the sequences are computed on (one more when periodic) and `W = NW / M` of them.
fn extended(m: usize, nw: f64, sym: bool) -> (usize, f64) {
    let mm = if sym { m } else { m + 1 };
    (mm, nw / mm as f64)
}

/// The `k` sequences of `m` points (row-major `[k, m]`) and `k`, scaled and signed as SciPy's.
fn sequences(m: usize, nw: f64, opts: &DpssOpts) -> Result<(Vec<f64>, usize)> {
    check(m, nw, opts.kmax)?;
    let k = opts.kmax.unwrap_or(1);
    if m <= 1 {
        return Ok((vec![1.0; k * m], k));
    }
    let norm = opts.norm.unwrap_or(if opts.kmax.is_some() {
        DpssNorm::L2
    } else {
        DpssNorm::Approximate
    });
    let (mm, w) = extended(m, nw, opts.sym);
    let mut v = tapers(mm, w, k)?;
    fix_signs(&mut v, mm, k);
    if norm != DpssNorm::L2 {
        // SciPy divides every sequence by the largest value of them all.
        let peak = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        v.iter_mut().for_each(|x| *x /= peak);
        if mm % 2 == 0 {
            let c = match norm {
                DpssNorm::Approximate => {
                    let m2 = (mm * mm) as f64;
                    m2 / (m2 + nw)
                }
                _ => subsample_correction(&v[..mm]),
            };
            v.iter_mut().for_each(|x| *x *= c);
        }
    }
    if !opts.sym {
        v = v.chunks(mm).flat_map(|r| r[..m].iter().copied()).collect();
    }
    Ok((v, k))
}

/// SciPy's `'subsample'` correction of the first sequence `x` (even length `M`): `M` over the
/// real part of `X[0] + 2 Σ_{l=1}^{M/2} X[l] e^{iπ l (1 - 1/M)}`, `X` its real DFT.
fn subsample_correction(x: &[f64]) -> f64 {
    let mm = x.len();
    let mut s = 0.0;
    for l in 0..=mm / 2 {
        let (mut re, mut im) = (0.0, 0.0);
        for (n, &xn) in x.iter().enumerate() {
            let a = -2.0 * PI * ((l * n) % mm) as f64 / mm as f64;
            re += xn * a.cos();
            im += xn * a.sin();
        }
        if l == 0 {
            s += re;
        } else {
            let ph = PI * (1.0 - 1.0 / mm as f64) * l as f64;
            s += 2.0 * (re * ph.cos() - im * ph.sin());
        }
    }
    mm as f64 / s
}

/// Percival and Walden's sign convention (SciPy's): even orders sum to a positive value; odd
/// orders have a positive first value whose square exceeds `max(1e-7, 1 / M)`.
fn fix_signs(v: &mut [f64], mm: usize, k: usize) {
    let thresh = (1.0 / mm as f64).max(1e-7);
    for j in 0..k {
        let row = &mut v[j * mm..(j + 1) * mm];
        let flip = if j % 2 == 0 {
            row.iter().sum::<f64>() < 0.0
        } else {
            row.iter()
                .find(|&&x| x * x > thresh)
                .is_some_and(|&x| x < 0.0)
        };
        if flip {
            row.iter_mut().for_each(|x| *x = -*x);
        }
    }
}

/// The unit eigenvectors of the DPSS tridiagonal matrix for its `k` largest eigenvalues, in
/// decreasing order, row-major `[k, mm]`.
fn tapers(mm: usize, w: f64, k: usize) -> Result<Vec<f64>> {
    let c = (2.0 * PI * w).cos();
    let d: Vec<f64> = (0..mm)
        .map(|t| {
            let h = (mm as f64 - 1.0 - 2.0 * t as f64) / 2.0;
            h * h * c
        })
        .collect();
    let e: Vec<f64> = (1..mm).map(|t| t as f64 * (mm - t) as f64 / 2.0).collect();
    let bound = d
        .iter()
        .enumerate()
        .map(|(i, di)| {
            let l = if i > 0 { e[i - 1].abs() } else { 0.0 };
            let r = if i + 1 < mm { e[i].abs() } else { 0.0 };
            di.abs() + l + r
        })
        .fold(0.0, f64::max);
    let mut out = Vec::with_capacity(k * mm);
    for j in 0..k {
        let lam = kth_eigenvalue(&d, &e, mm - 1 - j, bound);
        let mut v = inverse_iteration(&d, &e, lam, bound, j)?;
        // Orthogonal to the vectors before it (twice, for the rounding of the first pass).
        for _ in 0..2 {
            for p in 0..j {
                let q = &out[p * mm..(p + 1) * mm];
                let dot: f64 = v.iter().zip(q).map(|(a, b)| a * b).sum();
                v.iter_mut().zip(q).for_each(|(a, b)| *a -= dot * b);
            }
            normalise(&mut v);
        }
        out.extend_from_slice(&v);
    }
    Ok(out)
}

fn normalise(v: &mut [f64]) {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// The number of eigenvalues of the tridiagonal `(d, e)` below `x` (Sturm count).
fn count_below(d: &[f64], e: &[f64], x: f64) -> usize {
    let tiny = f64::MIN_POSITIVE;
    let mut q = d[0] - x;
    let mut n = usize::from(q < 0.0);
    for i in 1..d.len() {
        let qp = if q.abs() < tiny { tiny } else { q };
        q = d[i] - x - e[i - 1] * e[i - 1] / qp;
        n += usize::from(q < 0.0);
    }
    n
}

/// The eigenvalue of index `idx` (ascending from 0) of the tridiagonal `(d, e)`, all of whose
/// eigenvalues lie within `±bound`, by bisection to the spacing of doubles.
fn kth_eigenvalue(d: &[f64], e: &[f64], idx: usize, bound: f64) -> f64 {
    let (mut lo, mut hi) = (-bound - 1.0, bound + 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if count_below(d, e, mid) > idx {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The unit eigenvector of `(d, e)` for the eigenvalue `lam`: three solves of
/// `(T - lam I) x = b` by Gaussian elimination with partial pivoting, from a start vector that
/// differs per order `j`.
fn inverse_iteration(d: &[f64], e: &[f64], lam: f64, bound: f64, j: usize) -> Result<Vec<f64>> {
    let n = d.len();
    // A shift a few roundings off the eigenvalue keeps the factorisation non-singular.
    let eps = f64::EPSILON * bound.max(1.0);
    let shift = lam + 4.0 * eps;
    // The factorisation: U has diagonal u0 and two superdiagonals u1, u2; L multipliers l and
    // the row swaps `swap[i]` (rows i and i + 1 exchanged at step i).
    let mut u0: Vec<f64> = d.iter().map(|&x| x - shift).collect();
    let mut u1: Vec<f64> = e.to_vec();
    u1.push(0.0);
    let mut u2 = vec![0.0; n];
    let mut l = vec![0.0; n];
    let mut swap = vec![false; n];
    for i in 0..n.saturating_sub(1) {
        // Row i + 1 is untouched until this step: its entry below the pivot is `e[i]`.
        let (a, b) = (u0[i], e[i]);
        if b.abs() > a.abs() {
            // Swap rows i and i + 1.
            swap[i] = true;
            let (r0, r1, r2) = (u0[i], u1[i], u2[i]);
            let (s1, s2) = (u0[i + 1], u1[i + 1]);
            u0[i] = b;
            u1[i] = s1;
            u2[i] = s2;
            let m = r0 / b;
            l[i] = m;
            u0[i + 1] = r1 - m * s1;
            u1[i + 1] = r2 - m * s2;
        } else {
            let m = if a == 0.0 { 0.0 } else { b / a };
            l[i] = m;
            u0[i + 1] -= m * u1[i];
            u1[i + 1] -= m * u2[i];
        }
    }
    for x in u0.iter_mut() {
        if x.abs() < eps {
            *x = if *x < 0.0 { -eps } else { eps };
        }
    }
    // A start vector with every component present.
    let mut x: Vec<f64> = (0..n)
        .map(|i| 1.0 + 0.5 * ((i * (j + 3) + 1) as f64 * 0.618_033_988_749_895).fract())
        .collect();
    for _ in 0..3 {
        // Apply L^-1 (with the swaps), then solve U.
        for i in 0..n.saturating_sub(1) {
            if swap[i] {
                x.swap(i, i + 1);
            }
            x[i + 1] -= l[i] * x[i];
        }
        for i in (0..n).rev() {
            let mut s = x[i];
            if i + 1 < n {
                s -= u1[i] * x[i + 1];
            }
            if i + 2 < n {
                s -= u2[i] * x[i + 2];
            }
            x[i] = s / u0[i];
        }
        let big = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !big.is_finite() || big == 0.0 {
            return Err(Error::InvalidArgument(format!(
                "dpss: the inverse iteration for eigenvalue {lam} of {n} points did not \
                 converge"
            )));
        }
        x.iter_mut().for_each(|v| *v /= big);
    }
    normalise(&mut x);
    Ok(x)
}
