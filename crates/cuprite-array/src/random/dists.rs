//! The per-element samplers of the distributions that need a loop (rejection or a search):
//! Poisson, binomial, hypergeometric, logarithmic series, Zipf, von Mises and gamma with a
//! per-element shape. Each is written once, generic over its source of 64-bit words
//! ([`Words`]): the counter-based per-element stream of [`ElementWords`] (what the library call
//! and, line for line, its CUDA twin in `random::kernels` use) or a sequential bit generator
//! (XORWOW, MRG32k3a, sampled on the host).
//!
//! Every loop is bounded ([`TRIES`] attempts, or the support's size for searches); each
//! sampler's doc names the value it gives when the bound is reached (each attempt accepts with
//! probability above one half, so the bound is never reached in practice).

use super::philox4x32_10_full;

/// Attempts of a rejection loop before its documented fallback value.
pub(crate) const TRIES: u32 = 1024;

/// The fourth Philox counter word of the per-element streams (gamma's library call uses 0
/// and 1), so these streams never overlap gamma's under one key.
pub(crate) const STREAM_TAG: u32 = 2;

/// A source of uniformly distributed 64-bit words.
pub(crate) trait Words {
    /// The next word.
    fn next_u64(&mut self) -> u64;
    /// A uniform `f64` in `[0, 1)`: the top 53 bits of the next word times `2⁻⁵³`.
    fn u01(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// The words of element `i` under `key`: Philox blocks at counters `(i_lo, i_hi, b, 2)` for
/// `b = 0, 1, ...`, each giving two words (`w0:w1`, then `w2:w3`).
pub(crate) struct ElementWords {
    key: u64,
    lo: u32,
    hi: u32,
    block: u32,
    buf: [u32; 4],
    pending: bool,
}

impl ElementWords {
    pub(crate) fn new(key: u64, i: u64) -> ElementWords {
        ElementWords {
            key,
            lo: i as u32,
            hi: (i >> 32) as u32,
            block: 0,
            buf: [0; 4],
            pending: false,
        }
    }
}

impl Words for ElementWords {
    fn next_u64(&mut self) -> u64 {
        if self.pending {
            self.pending = false;
            return ((self.buf[2] as u64) << 32) | self.buf[3] as u64;
        }
        self.buf = philox4x32_10_full(self.key, [self.lo, self.hi, self.block, STREAM_TAG]);
        self.block = self.block.wrapping_add(1);
        self.pending = true;
        ((self.buf[0] as u64) << 32) | self.buf[1] as u64
    }
}

/// `ln(k!)` for a whole `k >= 0`: a table below 10, else Stirling's series for `lnΓ(k + 1)`
/// to the `x⁻⁷` term (absolute error below 1e-12).
pub(crate) fn logfact(k: f64) -> f64 {
    const TABLE: [f64; 10] = [
        0.0,
        0.0,
        std::f64::consts::LN_2,
        1.791_759_469_228_055,
        3.178_053_830_347_945_8,
        4.787_491_742_782_046,
        6.579_251_212_010_101,
        8.525_161_361_065_415,
        10.604_602_902_745_25,
        12.801_827_480_081_469,
    ];
    if k < 10.0 {
        return TABLE[k as usize];
    }
    let x = k + 1.0;
    let z = 1.0 / (x * x);
    let corr = (1.0 / 12.0 - z * (1.0 / 360.0 - z * (1.0 / 1260.0 - z * (1.0 / 1680.0)))) / x;
    (x - 0.5) * x.ln() - x + 0.918_938_533_204_672_7 + corr
}

/// Which sampler, with its scalar parameters (the per-element one is passed apart).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// Per-element `lam`.
    Poisson,
    /// Per-element `n`; probability `p`.
    Binomial { p: f64 },
    /// Per-element `nsample`; `good` and `bad` items.
    Hypergeometric { good: f64, bad: f64 },
    /// Per-element `p`.
    Logseries,
    /// Per-element `a`.
    Zipf,
    /// Per-element `kappa`; mean direction `mu`.
    VonMises { mu: f64 },
    /// Per-element shape `alpha` (scale 1).
    Gamma,
    /// The natural logarithm of a standard gamma draw of per-element shape `alpha` (no
    /// underflow for small shapes).
    LogGamma,
}

impl Kind {
    /// The kernel's encoding: the kind's number and its two scalar parameters.
    pub(crate) fn words(self) -> (u64, f64, f64) {
        match self {
            Kind::Poisson => (0, 0.0, 0.0),
            Kind::Binomial { p } => (1, p, 0.0),
            Kind::Hypergeometric { good, bad } => (2, good, bad),
            Kind::Logseries => (3, 0.0, 0.0),
            Kind::Zipf => (4, 0.0, 0.0),
            Kind::VonMises { mu } => (5, mu, 0.0),
            Kind::Gamma => (6, 0.0, 0.0),
            Kind::LogGamma => (7, 0.0, 0.0),
        }
    }
}

/// One draw of `kind` with per-element parameter `x`.
pub(crate) fn sample(kind: Kind, x: f64, w: &mut impl Words) -> f64 {
    match kind {
        Kind::Poisson => poisson(x, w),
        Kind::Binomial { p } => binomial(x, p, w),
        Kind::Hypergeometric { good, bad } => hypergeometric(good, bad, x, w),
        Kind::Logseries => logseries(x, w),
        Kind::Zipf => zipf(x, w),
        Kind::VonMises { mu } => vonmises(mu, x, w),
        Kind::Gamma => gamma(x, w, false),
        Kind::LogGamma => gamma(x, w, true),
    }
}

/// Poisson with mean `lam >= 0`: below 10 the product of uniforms against `e^-lam` (Knuth;
/// at most [`TRIES`] factors, then the count so far); from 10 Hörmann's PTRS transformed
/// rejection (1993; fallback `floor(lam)`, the mode).
pub(crate) fn poisson(lam: f64, w: &mut impl Words) -> f64 {
    if lam <= 0.0 {
        return 0.0;
    }
    if lam < 10.0 {
        let enlam = (-lam).exp();
        let mut x = 0.0;
        let mut prod = 1.0;
        for _ in 0..TRIES {
            prod *= w.u01();
            if prod > enlam {
                x += 1.0;
            } else {
                return x;
            }
        }
        return x;
    }
    let slam = lam.sqrt();
    let loglam = lam.ln();
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let invalpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    for _ in 0..TRIES {
        let u = w.u01() - 0.5;
        let v = w.u01();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return k;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        if v.ln() + invalpha.ln() - (a / (us * us) + b).ln() <= -lam + k * loglam - logfact(k) {
            return k;
        }
    }
    lam.floor()
}

/// Binomial with `n` trials (a whole number >= 0) of probability `p` in `[0, 1]`, drawn for
/// `min(p, 1 - p)` and mirrored: mean below 10 by inversion (the walk stops at
/// `np + 10·sqrt(npq + 1)`, its fallback), else Hörmann's BTRS (1993; fallback the mode).
pub(crate) fn binomial(n: f64, p: f64, w: &mut impl Words) -> f64 {
    if n <= 0.0 || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return n;
    }
    let flip = p > 0.5;
    let pp = if flip { 1.0 - p } else { p };
    let q = 1.0 - pp;
    let np = n * pp;
    let x = if np < 10.0 {
        let qn = (n * (-pp).ln_1p()).exp();
        let bound = n.min(np + 10.0 * (np * q + 1.0).sqrt()).floor();
        let mut x = 0.0;
        let mut px = qn;
        let mut u = w.u01();
        while u > px && x < bound {
            u -= px;
            x += 1.0;
            px = px * ((n - x + 1.0) * pp) / (x * q);
        }
        x
    } else {
        btrs(n, pp, q, w)
    };
    if flip { n - x } else { x }
}

/// BTRS for `p <= 0.5`, `np >= 10`.
fn btrs(n: f64, p: f64, q: f64, w: &mut impl Words) -> f64 {
    let spq = (n * p * q).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = n * p + 0.5;
    let vr = 0.92 - 4.2 / b;
    let alpha = (2.83 + 5.1 / b) * spq;
    let lpq = (p / q).ln();
    let m = ((n + 1.0) * p).floor();
    let h = logfact(m) + logfact(n - m);
    for _ in 0..TRIES {
        let u = w.u01() - 0.5;
        let v = w.u01();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if k < 0.0 || k > n {
            continue;
        }
        if us >= 0.07 && v <= vr {
            return k;
        }
        let lv = (v * alpha / (a / (us * us) + b)).ln();
        if lv <= h - logfact(k) - logfact(n - k) + (k - m) * lpq {
            return k;
        }
    }
    m
}

/// `ln C(a, b)`.
fn log_choose(a: f64, b: f64) -> f64 {
    logfact(a) - logfact(b) - logfact(a - b)
}

/// The number of good items among `n` drawn without replacement from `good` good and `bad`
/// bad (whole numbers, `n <= good + bad`): inversion by a search outward from the mode, the
/// probabilities by their ratios (expected steps about the standard deviation); when the
/// search spans the support with uniform mass left over (rounding), the mode.
pub(crate) fn hypergeometric(good: f64, bad: f64, n: f64, w: &mut impl Words) -> f64 {
    let total = good + bad;
    let lo = (n - bad).max(0.0);
    let hi = n.min(good);
    if lo >= hi {
        return lo;
    }
    let mode = ((n + 1.0) * (good + 1.0) / (total + 2.0))
        .floor()
        .clamp(lo, hi);
    let pm = (log_choose(good, mode) + log_choose(bad, n - mode) - log_choose(total, n)).exp();
    let mut u = w.u01();
    if u < pm {
        return mode;
    }
    u -= pm;
    let (mut ku, mut pu, mut kd, mut pd) = (mode, pm, mode, pm);
    while ku < hi || kd > lo {
        if ku < hi {
            pu = pu * ((good - ku) * (n - ku)) / ((ku + 1.0) * (bad - n + ku + 1.0));
            ku += 1.0;
            if u < pu {
                return ku;
            }
            u -= pu;
        }
        if kd > lo {
            pd = pd * (kd * (bad - n + kd)) / ((good - kd + 1.0) * (n - kd + 1.0));
            kd -= 1.0;
            if u < pd {
                return kd;
            }
            u -= pd;
        }
    }
    mode
}

/// Logarithmic series with `p` in `[0, 1)`: Kemp's algorithm LK (1981), as NumPy's
/// (fallback 1).
pub(crate) fn logseries(p: f64, w: &mut impl Words) -> f64 {
    let r = (-p).ln_1p();
    for _ in 0..TRIES {
        let v = w.u01();
        if v >= p {
            return 1.0;
        }
        let u = w.u01();
        let q = -(r * u).exp_m1();
        if v <= q * q {
            let k = (1.0 + v.ln() / q.ln()).floor();
            if k < 1.0 || v == 0.0 {
                continue;
            }
            return k;
        }
        if v >= q {
            return 1.0;
        }
        return 2.0;
    }
    1.0
}

/// Zipf with exponent `a > 1`: Devroye's rejection (Non-Uniform Random Variate Generation,
/// X.6), values above `2^63` rejected, as NumPy's (fallback 1).
pub(crate) fn zipf(a: f64, w: &mut impl Words) -> f64 {
    let am1 = a - 1.0;
    let b = 2f64.powf(am1);
    for _ in 0..TRIES {
        let u = 1.0 - w.u01();
        let v = w.u01();
        let x = u.powf(-1.0 / am1).floor();
        if !(1.0..=i64::MAX as f64).contains(&x) {
            continue;
        }
        let t = (1.0 + 1.0 / x).powf(am1);
        if v * x * (t - 1.0) / (b - 1.0) <= t / b {
            return x;
        }
    }
    1.0
}

/// A standard normal from two uniforms (Box–Muller, cosine branch).
pub(crate) fn normal(w: &mut impl Words) -> f64 {
    let u1 = 1.0 - w.u01();
    let u2 = w.u01();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Von Mises on `[-π, π]` with mean direction `mu` and concentration `kappa >= 0`: Best and
/// Fisher's rejection (1979) as NumPy's (uniform below `kappa = 1e-8`, a wrapped normal
/// above `1e6`; fallback `mu`, wrapped).
pub(crate) fn vonmises(mu: f64, kappa: f64, w: &mut impl Words) -> f64 {
    use std::f64::consts::PI;
    if kappa < 1e-8 {
        return PI * (2.0 * w.u01() - 1.0);
    }
    let res = if kappa > 1e6 {
        mu + (1.0 / kappa).sqrt() * normal(w)
    } else {
        let s = if kappa < 1e-5 {
            1.0 / kappa + kappa
        } else {
            let r = 1.0 + (1.0 + 4.0 * kappa * kappa).sqrt();
            let rho = (r - (2.0 * r).sqrt()) / (2.0 * kappa);
            (1.0 + rho * rho) / (2.0 * rho)
        };
        let mut res = mu;
        for _ in 0..TRIES {
            let u = w.u01();
            let z = (PI * u).cos();
            let ww = (1.0 + s * z) / (s + z);
            let y = kappa * (s - ww);
            let v = w.u01();
            if y * (2.0 - y) - v >= 0.0 || (y / v).ln() + 1.0 - y >= 0.0 {
                let a = ww.acos();
                res = if w.u01() < 0.5 { mu - a } else { mu + a };
                break;
            }
        }
        res
    };
    let m = (res.abs() + PI) % (2.0 * PI) - PI;
    if res < 0.0 { -m } else { m }
}

/// Standard gamma with shape `alpha >= 0` (0 gives 0), or with `log` its natural logarithm:
/// Marsaglia and Tsang (2000), boosted by `u^(1/alpha)` below 1 (fallback NaN, as the
/// scalar-shape gamma's).
pub(crate) fn gamma(alpha: f64, w: &mut impl Words, log: bool) -> f64 {
    if alpha <= 0.0 {
        return if log { f64::NEG_INFINITY } else { 0.0 };
    }
    let boost = alpha < 1.0;
    let a = if boost { alpha + 1.0 } else { alpha };
    let d = a - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    for _ in 0..TRIES {
        let x = normal(w);
        let v = 1.0 + c * x;
        let u = w.u01();
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let x2 = x * x;
        if u < 1.0 - 0.0331 * (x2 * x2) || u.ln() < 0.5 * x2 + d * (1.0 - v + v.ln()) {
            let g = d * v;
            if log {
                let lb = if boost {
                    (1.0 - w.u01()).ln() / alpha
                } else {
                    0.0
                };
                return g.ln() + lb;
            }
            if boost {
                return g * (1.0 - w.u01()).powf(1.0 / alpha);
            }
            return g;
        }
    }
    f64::NAN
}
