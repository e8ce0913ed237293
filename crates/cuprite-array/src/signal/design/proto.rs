//! Analog low-pass prototypes (cutoff 1 rad/s) as zeros, poles and gain, as SciPy's
//! `buttap`, `cheb1ap`, `cheb2ap`, `ellipap` and `besselap` define them. Every prototype has
//! its poles in the left half-plane, its complex roots in conjugate pairs and at most as many
//! zeros as poles.

use super::convert::ZerosPolesGain;
use super::jacobi::{ellipf, ellipk, modulus_of_ratio, sncndn};
use crate::dtype::c64;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// A filter as its zeros, poles and gain.
pub(super) struct Zpk {
    pub z: Vec<c64>,
    pub p: Vec<c64>,
    pub k: f64,
}

impl From<Zpk> for ZerosPolesGain {
    fn from(f: Zpk) -> Self {
        ZerosPolesGain {
            zeros: f.z,
            poles: f.p,
            gain: f.k,
        }
    }
}

impl From<ZerosPolesGain> for Zpk {
    fn from(f: ZerosPolesGain) -> Self {
        Zpk {
            z: f.zeros,
            p: f.poles,
            k: f.gain,
        }
    }
}

/// `prod(-r)` over the roots `r`.
pub(super) fn prod_neg(r: &[c64]) -> c64 {
    r.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x)
}

/// The angles `theta_m = pi m / 2n` for `m = -n + 1, -n + 3, ..., n - 1`.
fn angles(n: usize) -> impl Iterator<Item = f64> {
    (0..n).map(move |j| PI * (2.0 * j as f64 - (n as f64 - 1.0)) / (2.0 * n as f64))
}

/// The Butterworth prototype of order `n`: no zeros, poles `-exp(i theta_m)`, gain 1.
pub(super) fn buttap(n: usize) -> Zpk {
    Zpk {
        z: Vec::new(),
        p: angles(n).map(|t| -c64::new(0.0, t).exp()).collect(),
        k: 1.0,
    }
}

/// The poles `-sinh(mu + i theta_m)` of a Chebyshev type I prototype of order `n` whose
/// ripple factor is `eps`, `mu = asinh(1 / eps) / n`.
fn cheb1_poles(n: usize, eps: f64) -> Vec<c64> {
    let mu = (1.0 / eps).asinh() / n as f64;
    angles(n).map(|t| -c64::new(mu, t).sinh()).collect()
}

/// The ripple factor `sqrt(10^(db / 10) - 1)` of `db` decibels.
pub(super) fn ripple_factor(db: f64) -> f64 {
    (10f64.powf(0.1 * db) - 1.0).sqrt()
}

/// The Chebyshev type I prototype of order `n` with `rp` dB of passband ripple: poles
/// [`cheb1_poles`] with `eps = sqrt(10^(rp / 10) - 1)`, gain `prod(-p)`, divided by
/// `sqrt(1 + eps^2)` for even `n` so that the DC gain is the bottom of the ripple.
pub(super) fn cheb1ap(n: usize, rp: f64) -> Zpk {
    let eps = ripple_factor(rp);
    let p = cheb1_poles(n, eps);
    let mut k = prod_neg(&p).re;
    if n % 2 == 0 {
        k /= (1.0 + eps * eps).sqrt();
    }
    Zpk {
        z: Vec::new(),
        p,
        k,
    }
}

/// The Chebyshev type II prototype of order `n` whose stopband, from 1 rad/s on, is `rs` dB
/// down: `|H(iw)|^2 = 1 / (1 + 1 / (eps^2 T_n(1 / w)^2))` with `eps = 1 / sqrt(10^(rs / 10) -
/// 1)`. Zeros at `+-i / cos((2j - 1) pi / 2n)` (those of `T_n(1 / w)`, none at infinity),
/// poles the reciprocals of the type I poles of ripple factor `eps`, gain for a DC gain of 1.
pub(super) fn cheb2ap(n: usize, rs: f64) -> Zpk {
    let eps = 1.0 / ripple_factor(rs);
    let p: Vec<c64> = cheb1_poles(n, eps).into_iter().map(|v| v.inv()).collect();
    let z: Vec<c64> = (1..=n / 2)
        .flat_map(|j| {
            let w = 1.0 / ((2 * j - 1) as f64 * PI / (2.0 * n as f64)).cos();
            [c64::new(0.0, w), c64::new(0.0, -w)]
        })
        .collect();
    let k = (prod_neg(&p) / prod_neg(&z)).re;
    Zpk { z, p, k }
}

/// `cd(w, k) = cn(w) / dn(w)` of the complex argument `w = x + i y`, modulus `k` (complement
/// `kp`), by the addition formulas over the real arguments `x` (modulus `k`) and `y`
/// (modulus `k'`), Abramowitz and Stegun 16.21.
fn cd_complex(w: c64, k: f64, kp: f64) -> c64 {
    let (s, c, d) = sncndn(w.re, k, kp);
    let (s1, c1, d1) = sncndn(w.im, kp, k);
    let cn = c64::new(c * c1, -s * d * s1 * d1);
    let dn = c64::new(d * c1 * d1, -k * k * s * c * s1);
    cn / dn
}

/// The elliptic (Cauer) prototype of order `n`: `rp` dB of equiripple in the passband up to 1
/// rad/s and at least `rs` dB of attenuation in the stopband, from `1 / k` on, where the
/// selectivity `k` solves the degree equation `n K'(k) / K(k) = K'(k1) / K(k1)` with `k1 =
/// eps_p / eps_s`. With `u_j = (2j - 1) / n` and `v0 = F(atan(1 / eps_p), k1') / (n K(k1))`
/// (Orfanidis, "Lecture notes on elliptic filter design"):
///
/// - zeros `+-i / (k cd(u_j K, k))`, `j = 1..=n / 2`;
/// - poles `i cd((u_j - i v0) K, k)` and their conjugates, and for odd `n` the real pole
///   `-sc(v0 K, k')`;
/// - the gain for a DC gain of 1 (odd `n`) or `1 / sqrt(1 + eps_p^2)` (even `n`).
///
/// `rs > rp > 0` (the caller checks).
pub(super) fn ellipap(n: usize, rp: f64, rs: f64) -> Zpk {
    let (ep, es) = (ripple_factor(rp), ripple_factor(rs));
    let k1 = ep / es;
    let k1p = ((1.0 - k1) * (1.0 + k1)).sqrt();
    let (big_k1, big_k1p) = (ellipk(k1p), ellipk(k1));
    let (k, kp) = modulus_of_ratio(big_k1p / (n as f64 * big_k1));
    let big_k = ellipk(kp);
    let v0 = ellipf((1.0 / ep).atan(), k1) / (n as f64 * big_k1);
    let mut z = Vec::with_capacity(n);
    let mut p = Vec::with_capacity(n);
    for j in 1..=n / 2 {
        let u = (2 * j - 1) as f64 / n as f64;
        let (_, c, d) = sncndn(u * big_k, k, kp);
        let zero = 1.0 / (k * c / d);
        z.extend([c64::new(0.0, zero), c64::new(0.0, -zero)]);
        let pole = c64::new(0.0, 1.0) * cd_complex(c64::new(u * big_k, -v0 * big_k), k, kp);
        // The pole and its mirror `-conj(pole)` have the same |H| on the axis: keep the stable.
        let pole = if pole.re > 0.0 { -pole.conj() } else { pole };
        p.extend([pole, pole.conj()]);
    }
    if n % 2 == 1 {
        let (s1, c1, _) = sncndn(v0 * big_k, kp, k);
        p.push(c64::new(-(s1 / c1).abs(), 0.0));
    }
    let mut gain = (prod_neg(&p) / prod_neg(&z)).re;
    if n % 2 == 0 {
        gain /= (1.0 + ep * ep).sqrt();
    }
    Zpk { z, p, k: gain }
}

/// How a Bessel filter's frequency is normalised (SciPy's `norm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BesselNorm {
    /// The phase response reaches half its high-frequency asymptote (`-n pi / 4` of the
    /// analog prototype) at the cutoff, so that the low-pass and high-pass responses mirror
    /// each other (SciPy's default).
    #[default]
    Phase,
    /// The group delay at DC is `1 / wc`: the prototype's delay is 1 s.
    Delay,
    /// The gain is -3 dB at the cutoff.
    Mag,
}

/// The orders up to which [`besselap`] finds its poles: beyond it, rounding in `theta_n`'s
/// values near its roots moves them by more than `1e-6` of their magnitude.
pub(super) const BESSEL_MAX_ORDER: usize = 20;

/// The logarithm of `theta_n(0) = (2n - 1)!!`, the constant term of the reverse Bessel
/// polynomial (whose leading coefficient is 1).
fn bessel_log_c0(n: usize) -> f64 {
    (1..=n).map(|j| ((2 * j - 1) as f64).ln()).sum()
}

/// `theta_n(s)` and its derivative by the recurrence `theta_k = (2k - 1) theta_(k-1) + s^2
/// theta_(k-2)`, `theta_0 = 1`, `theta_1 = s + 1` (stabler near the roots than the
/// expanded coefficients, which cancel).
fn bessel_theta(n: usize, s: c64) -> (c64, c64) {
    let one = c64::new(1.0, 0.0);
    let (mut t0, mut d0) = (one, c64::new(0.0, 0.0));
    let (mut t1, mut d1) = (s + 1.0, one);
    if n == 0 {
        return (t0, d0);
    }
    for k in 2..=n {
        let f = (2 * k - 1) as f64;
        let (t2, d2) = (t1 * f + s * s * t0, d1 * f + s * t0 * 2.0 + s * s * d0);
        (t0, d0, t1, d1) = (t1, d1, t2, d2);
    }
    (t1, d1)
}

/// The `n` roots of a function given as its value and derivative `eval(s)`, by the
/// Aberth-Ehrlich iteration from points on the unit circle's left half, or `None` if they do
/// not settle. Settled once no root moves by more than `1e-10` of its magnitude, or once the
/// largest step has stayed above its smallest for 30 rounds with that smallest below `1e-5`
/// (rounding in the values sets a floor on the steps, which grows with the order: about
/// `1e-14` at order 7, `1e-12` at 10, `5e-7` at 20); then polished by five more rounds.
fn aberth(n: usize, eval: impl Fn(c64) -> (c64, c64)) -> Option<Vec<c64>> {
    let mut r: Vec<c64> = (0..n)
        .map(|j| c64::from_polar(1.0, PI / 2.0 + PI * (j as f64 + 0.5) / n as f64))
        .collect();
    // (the smallest largest step so far, the round it was taken)
    let mut best = (f64::INFINITY, 0);
    let mut polish = 0;
    for round in 0..1000 {
        let mut moved = 0f64;
        for i in 0..n {
            let (v, dv) = eval(r[i]);
            if v == c64::new(0.0, 0.0) {
                continue;
            }
            let ratio = v / dv;
            let repel: c64 = (0..n)
                .filter(|&j| j != i)
                .map(|j| (r[i] - r[j]).inv())
                .sum();
            let step = ratio / (c64::new(1.0, 0.0) - ratio * repel);
            if !step.is_finite() {
                return None;
            }
            r[i] -= step;
            moved = moved.max(step.norm() / r[i].norm().max(1e-300));
        }
        if moved < best.0 {
            best = (moved, round);
        }
        let stalled = round >= best.1 + 30 && best.0 < 1e-5;
        if moved < 1e-10 || stalled || polish > 0 {
            polish += 1;
            if polish > 5 {
                return Some(r);
            }
        }
    }
    None
}

/// The Bessel-Thomson prototype of order `n` (at most [`BESSEL_MAX_ORDER`]): all poles, the
/// roots of the reverse Bessel polynomial `theta_n`, scaled as `norm` asks, with the gain
/// for a DC gain of 1. The roots are found for the phase normalisation, the roots of
/// `theta_n(c s)` with `c = theta_n(0)^(1/n)`, which lie near the unit circle; conjugate pairs
/// are made exact.
pub(super) fn besselap(n: usize, norm: BesselNorm) -> Result<Zpk> {
    let scale = bessel_log_c0(n) / n as f64;
    let c = scale.exp();
    let roots = aberth(n, |t| {
        let (v, dv) = bessel_theta(n, t * c);
        (v, dv * c)
    })
    .ok_or_else(|| {
        Error::InvalidArgument(format!(
            "bessel: the poles of order {n} did not converge (orders up to {BESSEL_MAX_ORDER})"
        ))
    })?;
    // The real root of an odd order is the one nearest the axis; the others give their
    // upper members, each made an exact conjugate pair.
    let mut roots = roots;
    roots.sort_by(|x, y| x.im.abs().total_cmp(&y.im.abs()));
    let real = (n % 2 == 1).then(|| c64::new(roots[0].re, 0.0));
    let mut p: Vec<c64> = roots[n % 2..]
        .iter()
        .filter(|r| r.im > 0.0)
        .flat_map(|&r| [r, r.conj()])
        .collect();
    p.extend(real);
    if p.len() != n || p.iter().any(|r| r.re >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "bessel: the poles of order {n} did not separate into stable conjugate pairs"
        )));
    }
    let factor = match norm {
        BesselNorm::Phase => 1.0,
        BesselNorm::Delay => scale.exp(),
        BesselNorm::Mag => 1.0 / half_power(&p),
    };
    let p: Vec<c64> = p.into_iter().map(|r| r * factor).collect();
    let k = prod_neg(&p).re;
    Ok(Zpk {
        z: Vec::new(),
        p,
        k,
    })
}

/// The frequency at which the all-pole filter with poles `p` and a DC gain of 1 has half its
/// DC power, by bisection on a log scale (its gain falls monotonically, as a Bessel filter's
/// does).
fn half_power(p: &[c64]) -> f64 {
    let power = |w: f64| {
        p.iter()
            .map(|&r| r.norm_sqr() / (c64::new(0.0, w) - r).norm_sqr())
            .product::<f64>()
    };
    let (mut lo, mut hi) = (1e-6f64, 1e6f64);
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if power(mid) > 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo * hi).sqrt()
}
