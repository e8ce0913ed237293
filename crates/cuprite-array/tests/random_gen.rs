//! `random::Generator` and its distributions against float64 host references: sample mean and
//! variance against the closed forms (within 6 standard errors of `n` draws), and goodness of
//! fit (Kolmogorov–Smirnov against the CDF, Pearson's chi-square against the PMF) at the 0.1%
//! level, with fixed seeds; the sequential bit generators against published values; bad
//! parameters; on the GPU, the same numbers as the CPU backend.

use crate::common::{Body, close};
use cuprite_array::random::{self, BitGenerator, Generator, Mrg32k3a, RandomState, Xorwow};
use cuprite_array::special::lgamma;
use cuprite_array::{Array, Device};
use cuprite_testkit::{Test, TestResult};
use std::collections::HashMap;
use std::f64::consts::PI;

const N: usize = 200_000;

/// `random::default_rng(seed)` on `d`.
fn rng(d: Device, seed: u64) -> Generator {
    random::default_rng(seed).on(d)
}

/// The Kolmogorov–Smirnov statistic of `x` against `cdf`, checked against the 0.1% critical
/// value `1.95 / √n`.
fn ks(mut x: Vec<f64>, cdf: impl Fn(f64) -> f64, what: &str) -> TestResult {
    x.sort_by(f64::total_cmp);
    let n = x.len() as f64;
    let k = x
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let f = cdf(v);
            (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max);
    let lim = 1.95 / n.sqrt();
    assert!(k < lim, "{what}: KS statistic {k} above {lim}");
    Ok(())
}

/// Mean and variance within 6 standard errors of the closed forms (the variance's standard
/// error from the sample's fourth central moment).
fn moments(x: &[f64], mean: f64, var: f64, what: &str) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|a| (a - m).powi(2)).sum::<f64>() / (n - 1.0);
    let m4 = x.iter().map(|a| (a - m).powi(4)).sum::<f64>() / n;
    let se_m = (var / n).sqrt();
    let se_v = ((m4 - v * v).max(0.0) / n).sqrt();
    assert!(
        (m - mean).abs() <= 6.0 * se_m,
        "{what}: mean {m}, want {mean} ± {}",
        6.0 * se_m
    );
    assert!(
        (v - var).abs() <= 6.0 * se_v,
        "{what}: variance {v}, want {var} ± {}",
        6.0 * se_v
    );
}

/// The 0.1% critical value of chi-square with `df` degrees of freedom (Wilson–Hilferty).
fn chi2_crit(df: f64) -> f64 {
    let h = 2.0 / (9.0 * df);
    df * (1.0 - h + 3.09 * h.sqrt()).powi(3)
}

/// Pearson's chi-square of integer draws against `pmf` on `lo..`, bins merged to expected
/// counts of at least 5 (the last bin takes the upper tail).
fn chi2_pmf(x: &[f64], pmf: impl Fn(f64) -> f64, lo: f64, what: &str) -> TestResult {
    let n = x.len() as f64;
    let mut counts: HashMap<i64, f64> = HashMap::new();
    for &v in x {
        assert!(
            v >= lo && v == v.floor(),
            "{what}: draw {v} outside the support"
        );
        *counts.entry(v as i64).or_default() += 1.0;
    }
    let (mut bins, mut cur, mut cum, mut k) = (Vec::new(), (0.0, 0.0), 0.0, lo);
    while n * (1.0 - cum) >= 10.0 && k < lo + 1e7 {
        let p = pmf(k);
        cur.0 += counts.get(&(k as i64)).copied().unwrap_or(0.0);
        cur.1 += n * p;
        cum += p;
        k += 1.0;
        if cur.1 >= 5.0 {
            bins.push(cur);
            cur = (0.0, 0.0);
        }
    }
    let tail: f64 = counts
        .iter()
        .filter(|e| *e.0 as f64 >= k)
        .map(|e| *e.1)
        .sum();
    cur.0 += tail;
    cur.1 += n * (1.0 - cum).max(0.0);
    match bins.last_mut() {
        Some(last) if cur.1 < 5.0 => {
            last.0 += cur.0;
            last.1 += cur.1;
        }
        _ => bins.push(cur),
    }
    let stat: f64 = bins.iter().map(|(o, e)| (o - e) * (o - e) / e).sum();
    let crit = chi2_crit((bins.len() - 1) as f64);
    assert!(bins.len() > 2, "{what}: only {} bins", bins.len());
    assert!(
        stat < crit,
        "{what}: chi-square {stat} above {crit} ({} bins)",
        bins.len()
    );
    Ok(())
}

/// erf (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - t * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))))
            * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

/// The standard normal CDF.
fn phi(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / 2f64.sqrt()))
}

/// The regularised lower incomplete gamma `P(a, x)` (series below `a + 1`, else Lentz's
/// continued fraction).
fn gammp(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let lead = (-x + a * x.ln() - lgamma(a)).exp();
    if x < a + 1.0 {
        let (mut ap, mut del, mut sum) = (a, 1.0 / a, 1.0 / a);
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        return sum * lead;
    }
    let mut b = x + 1.0 - a;
    let (mut c, mut d) = (1e300, 1.0 / b);
    let mut h = d;
    for i in 1..10_000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        d = if d.abs() < 1e-300 { 1e300 } else { 1.0 / d };
        c = b + an / c;
        if c.abs() < 1e-300 {
            c = 1e-300;
        }
        h *= d * c;
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    1.0 - lead * h
}

/// The regularised incomplete beta `I_x(a, b)` (Lentz's continued fraction).
fn betai(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - betai(b, a, 1.0 - x);
    }
    let lead = (lgamma(a + b) - lgamma(a) - lgamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    let tiny = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    d = if d.abs() < tiny { 1.0 / tiny } else { 1.0 / d };
    let mut h = d;
    for m in 1..10_000 {
        let m = m as f64;
        for num in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + num * d;
            d = if d.abs() < tiny { 1.0 / tiny } else { 1.0 / d };
            c = 1.0 + num / c;
            if c.abs() < tiny {
                c = tiny;
            }
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    lead * h / a
}

/// Poisson probabilities of mean `lam` at `0..`, to use as mixture weights.
fn poisson_weights(lam: f64) -> Vec<f64> {
    let mut w: Vec<f64> = (0..(lam + 40.0 * lam.sqrt() + 40.0) as usize)
        .map(|j| (-lam + j as f64 * lam.ln() - lgamma(j as f64 + 1.0)).exp())
        .collect();
    // The upper tail below 1e-17 adds nothing to a CDF.
    let keep = w.iter().rposition(|&p| p > 1e-17).map_or(0, |i| i + 1);
    w.truncate(keep);
    w
}

/// Draws of `f` on `g` as host `f64`.
fn host(a: cuprite_array::Result<Array<f64>>) -> cuprite_array::Result<Vec<f64>> {
    a?.to_vec()
}

fn continuous_transforms(d: Device) -> TestResult {
    let mut g = rng(d, 101);
    let x = host(g.lognormal(0.3, 0.6, &[N]))?;
    moments(
        &x,
        (0.3f64 + 0.18).exp(),
        (0.36f64.exp() - 1.0) * (0.6f64 + 0.36).exp(),
        "lognormal",
    );
    ks(x, |v| phi((v.ln() - 0.3) / 0.6), "lognormal")?;
    let x = host(g.laplace(1.0, 2.0, &[N]))?;
    moments(&x, 1.0, 8.0, "laplace");
    ks(
        x,
        |v| {
            if v < 1.0 {
                0.5 * ((v - 1.0) / 2.0).exp()
            } else {
                1.0 - 0.5 * (-(v - 1.0) / 2.0).exp()
            }
        },
        "laplace",
    )?;
    let x = host(g.logistic(-1.0, 0.5, &[N]))?;
    moments(&x, -1.0, 0.25 * PI * PI / 3.0, "logistic");
    ks(x, |v| 1.0 / (1.0 + (-(v + 1.0) / 0.5).exp()), "logistic")?;
    let x = host(g.gumbel(2.0, 3.0, &[N]))?;
    moments(
        &x,
        2.0 + 0.577_215_664_901_532_9 * 3.0,
        PI * PI * 9.0 / 6.0,
        "gumbel",
    );
    ks(x, |v| (-(-(v - 2.0) / 3.0).exp()).exp(), "gumbel")?;
    let x = host(g.pareto(10.0, &[N]))?;
    moments(&x, 1.0 / 9.0, 10.0 / (81.0 * 8.0), "pareto");
    ks(x, |v| 1.0 - (1.0 + v).powf(-10.0), "pareto")?;
    let x = host(g.power(3.0, &[N]))?;
    moments(&x, 0.75, 3.0 / (16.0 * 5.0), "power");
    ks(x, |v| v.clamp(0.0, 1.0).powi(3), "power")?;
    let x = host(g.rayleigh(2.0, &[N]))?;
    moments(
        &x,
        2.0 * (PI / 2.0).sqrt(),
        (4.0 - PI) / 2.0 * 4.0,
        "rayleigh",
    );
    ks(x, |v| 1.0 - (-v * v / 8.0).exp(), "rayleigh")?;
    let x = host(g.weibull(1.5, &[N]))?;
    let (g1, g2) = (lgamma(1.0 + 1.0 / 1.5).exp(), lgamma(1.0 + 2.0 / 1.5).exp());
    moments(&x, g1, g2 - g1 * g1, "weibull");
    ks(x, |v| 1.0 - (-v.max(0.0).powf(1.5)).exp(), "weibull")?;
    let (l, m, r) = (-1.0, 0.5, 4.0);
    let x = host(g.triangular(l, m, r, &[N]))?;
    moments(
        &x,
        (l + m + r) / 3.0,
        (l * l + m * m + r * r - l * m - l * r - m * r) / 18.0,
        "triangular",
    );
    let tri = |v: f64| {
        if v <= m {
            (v - l).max(0.0).powi(2) / ((r - l) * (m - l))
        } else {
            1.0 - (r - v).max(0.0).powi(2) / ((r - l) * (r - m))
        }
    };
    ks(x, tri, "triangular")?;
    let (mu, lam) = (2.0, 3.0);
    let x = host(g.wald(mu, lam, &[N]))?;
    moments(&x, mu, mu * mu * mu / lam, "wald");
    let wald = |v: f64| {
        let s = (lam / v).sqrt();
        phi(s * (v / mu - 1.0)) + (2.0 * lam / mu).exp() * phi(-s * (v / mu + 1.0))
    };
    ks(x, wald, "wald")?;
    let x = host(g.standard_cauchy(&[N]))?;
    ks(x, |v| 0.5 + v.atan() / PI, "standard_cauchy")?;
    Ok(())
}

fn gamma_family(d: Device) -> TestResult {
    let mut g = rng(d, 202);
    let x = host(g.chisquare(3.0, &[N]))?;
    moments(&x, 3.0, 6.0, "chisquare");
    ks(x, |v| gammp(1.5, v / 2.0), "chisquare")?;
    let (d1, d2) = (5.0, 20.0);
    let x = host(g.f(d1, d2, &[N]))?;
    let var = 2.0 * d2 * d2 * (d1 + d2 - 2.0) / (d1 * (d2 - 2.0).powi(2) * (d2 - 4.0));
    moments(&x, d2 / (d2 - 2.0), var, "f");
    ks(
        x,
        |v| betai(d1 / 2.0, d2 / 2.0, d1 * v / (d1 * v + d2)),
        "f",
    )?;
    let x = host(g.standard_t(10.0, &[N]))?;
    moments(&x, 0.0, 10.0 / 8.0, "standard_t");
    let tcdf = |v: f64| {
        let tail = 0.5 * betai(5.0, 0.5, 10.0 / (10.0 + v * v));
        if v >= 0.0 { 1.0 - tail } else { tail }
    };
    ks(x, tcdf, "standard_t")?;
    // Noncentral chi-square: both of NumPy's branches (df > 1, and df <= 1 through a Poisson
    // mixture of per-element gamma shapes); the CDF is the Poisson mixture of central ones.
    for (k, lam) in [(3.0, 2.0), (0.5, 1.5)] {
        // A quarter of the draws: each CDF value is a sum of many incomplete gammas.
        let x = host(g.noncentral_chisquare(k, lam, &[N / 4]))?;
        moments(&x, k + lam, 2.0 * (k + 2.0 * lam), "noncentral_chisquare");
        let w = poisson_weights(lam / 2.0);
        let cdf = |v: f64| {
            w.iter()
                .enumerate()
                .map(|(j, p)| p * gammp(k / 2.0 + j as f64, v / 2.0))
                .sum::<f64>()
        };
        ks(x, cdf, &format!("noncentral_chisquare({k}, {lam})"))?;
    }
    let (d1, d2, lam) = (3.0, 20.0, 3.0);
    let x = host(g.noncentral_f(d1, d2, lam, &[N / 4]))?;
    moments(
        &x,
        d2 * (d1 + lam) / (d1 * (d2 - 2.0)),
        2.0 * (d2 / d1).powi(2) * ((d1 + lam).powi(2) + (d1 + 2.0 * lam) * (d2 - 2.0))
            / ((d2 - 2.0).powi(2) * (d2 - 4.0)),
        "noncentral_f",
    );
    let w = poisson_weights(lam / 2.0);
    let cdf = |v: f64| {
        let y = d1 * v / (d1 * v + d2);
        w.iter()
            .enumerate()
            .map(|(j, p)| p * betai(d1 / 2.0 + j as f64, d2 / 2.0, y))
            .sum::<f64>()
    };
    ks(x, cdf, "noncentral_f")?;
    // von Mises: the CDF by Simpson's rule on a fine grid of the density.
    let (mu, kappa) = (0.7, 2.5);
    let x = host(g.vonmises(mu, kappa, &[N]))?;
    assert!(x.iter().all(|v| (-PI..=PI).contains(v)));
    let m = 20_000;
    let h = 2.0 * PI / m as f64;
    let dens = |t: f64| (kappa * (t - mu).cos()).exp();
    let mut cum = vec![0.0; m + 1];
    for i in 0..m {
        let a = -PI + i as f64 * h;
        cum[i + 1] = cum[i] + h / 6.0 * (dens(a) + 4.0 * dens(a + h / 2.0) + dens(a + h));
    }
    let total = cum[m];
    let vm = |v: f64| {
        let p = ((v + PI) / h).clamp(0.0, m as f64 - 1e-9);
        let i = p as usize;
        (cum[i] + (cum[i + 1] - cum[i]) * (p - i as f64)) / total
    };
    ks(x, vm, "vonmises")?;
    Ok(())
}

fn discrete_counts(d: Device) -> TestResult {
    let mut g = rng(d, 303);
    let lnc = |n: f64, k: f64| lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
    for lam in [3.5, 50.0, 2500.0] {
        let x = host(g.poisson::<i64>(lam, &[N]).map(|a| a.cast::<f64>()))?;
        moments(&x, lam, lam, &format!("poisson({lam})"));
        let pmf = |k: f64| (-lam + k * lam.ln() - lgamma(k + 1.0)).exp();
        chi2_pmf(&x, pmf, 0.0, &format!("poisson({lam})"))?;
    }
    for (n, p) in [(20.0, 0.3), (1000.0, 0.4), (300.0, 0.85), (5.0, 0.97)] {
        let x = host(
            g.binomial::<i32>(n as i64, p, &[N])
                .map(|a| a.cast::<f64>()),
        )?;
        moments(&x, n * p, n * p * (1.0 - p), &format!("binomial({n}, {p})"));
        let pmf = |k: f64| {
            if k > n {
                0.0
            } else {
                (lnc(n, k) + k * p.ln() + (n - k) * (1.0 - p).ln()).exp()
            }
        };
        chi2_pmf(&x, pmf, 0.0, &format!("binomial({n}, {p})"))?;
    }
    let p = 0.2;
    let x = host(g.geometric::<i64>(p, &[N]).map(|a| a.cast::<f64>()))?;
    moments(&x, 1.0 / p, (1.0 - p) / (p * p), "geometric");
    chi2_pmf(&x, |k| (1.0 - p).powf(k - 1.0) * p, 1.0, "geometric")?;
    let (r, p) = (2.5, 0.3);
    let x = host(
        g.negative_binomial::<i64>(r, p, &[N])
            .map(|a| a.cast::<f64>()),
    )?;
    moments(
        &x,
        r * (1.0 - p) / p,
        r * (1.0 - p) / (p * p),
        "negative_binomial",
    );
    let pmf = |k: f64| {
        (lgamma(k + r) - lgamma(r) - lgamma(k + 1.0) + r * p.ln() + k * (1.0 - p).ln()).exp()
    };
    chi2_pmf(&x, pmf, 0.0, "negative_binomial")?;
    for (good, bad, ns) in [
        (7.0, 13.0, 6.0),
        (500.0, 600.0, 400.0),
        (40.0, 9000.0, 3000.0),
    ] {
        let x = host(
            g.hypergeometric::<i64>(good as i64, bad as i64, ns as i64, &[N])
                .map(|a| a.cast::<f64>()),
        )?;
        let tot = good + bad;
        let mean = ns * good / tot;
        moments(
            &x,
            mean,
            mean * (bad / tot) * (tot - ns) / (tot - 1.0),
            "hypergeometric",
        );
        let pmf = |k: f64| {
            if k > good || k > ns || ns - k > bad {
                0.0
            } else {
                (lnc(good, k) + lnc(bad, ns - k) - lnc(tot, ns)).exp()
            }
        };
        chi2_pmf(
            &x,
            pmf,
            0.0,
            &format!("hypergeometric({good}, {bad}, {ns})"),
        )?;
    }
    let p: f64 = 0.7;
    let x = host(g.logseries::<i64>(p, &[N]).map(|a| a.cast::<f64>()))?;
    let l = (-p).ln_1p();
    moments(
        &x,
        -p / ((1.0 - p) * l),
        -p * (p + l) / ((1.0 - p).powi(2) * l * l),
        "logseries",
    );
    chi2_pmf(&x, |k| -p.powf(k) / (k * l), 1.0, "logseries")?;
    // Zipf(3): ζ(3) is Apéry's constant.
    let x = host(g.zipf::<i64>(3.0, &[N]).map(|a| a.cast::<f64>()))?;
    chi2_pmf(&x, |k| k.powi(-3) / 1.202_056_903_159_594_3, 1.0, "zipf")?;
    Ok(())
}

fn multivariate(d: Device) -> TestResult {
    let mut g = rng(d, 404);
    // Dirichlet: rows sum to 1, each component is Beta(α_j, α₀ - α_j).
    let alpha = [0.5, 2.0, 4.5];
    let x = g.dirichlet::<f64>(&alpha, &[N / 4])?;
    assert_eq!(x.shape(), [N / 4, 3]);
    let v = x.to_vec()?;
    assert!(
        v.chunks(3)
            .all(|r| (r.iter().sum::<f64>() - 1.0).abs() < 1e-12)
    );
    for (j, &a) in alpha.iter().enumerate() {
        let col: Vec<f64> = v.chunks(3).map(|r| r[j]).collect();
        let b = 7.0 - a;
        moments(&col, a / 7.0, a * b / (49.0 * 8.0), "dirichlet");
        ks(col, |t| betai(a, b, t), &format!("dirichlet component {j}"))?;
    }
    // Concentrations far below 1: rows still finite, summing to 1, with Beta moments.
    let x = g.dirichlet::<f64>(&[1e-3, 2e-3], &[N / 4])?.to_vec()?;
    assert!(
        x.chunks(2)
            .all(|r| r.iter().all(|v| v.is_finite()) && (r[0] + r[1] - 1.0).abs() < 1e-12)
    );
    let col: Vec<f64> = x.chunks(2).map(|r| r[0]).collect();
    moments(
        &col,
        1.0 / 3.0,
        2e-6 / (9e-6 * 1.003),
        "dirichlet small alpha",
    );
    // Multinomial: rows sum to n, each count Binomial(n, p_j).
    let (n, pv) = (30i64, [0.1, 0.25, 0.4, 0.25]);
    let x = g.multinomial::<i64>(n, &pv, &[N / 4])?;
    assert_eq!(x.shape(), [N / 4, 4]);
    let v = x.to_vec()?;
    assert!(v.chunks(4).all(|r| r.iter().sum::<i64>() == n));
    for (j, &p) in pv.iter().enumerate() {
        let col: Vec<f64> = v.chunks(4).map(|r| r[j] as f64).collect();
        moments(
            &col,
            n as f64 * p,
            n as f64 * p * (1.0 - p),
            &format!("multinomial {j}"),
        );
    }
    // Multivariate normal: sample means and covariances within 6 standard errors.
    let (mean, cov) = (
        [1.0, -2.0, 0.5],
        [2.0, 0.6, -0.3, 0.6, 1.0, 0.2, -0.3, 0.2, 0.5],
    );
    let x = g.multivariate_normal::<f64>(&mean, &cov, &[N / 2])?;
    assert_eq!(x.shape(), [N / 2, 3]);
    let v = x.to_vec()?;
    let rows = (N / 2) as f64;
    for i in 0..3 {
        let m = v.chunks(3).map(|r| r[i]).sum::<f64>() / rows;
        assert!(
            (m - mean[i]).abs() < 6.0 * (cov[i * 4] / rows).sqrt(),
            "mvn mean {i}: {m}"
        );
        for j in 0..3 {
            let c = v
                .chunks(3)
                .map(|r| (r[i] - mean[i]) * (r[j] - mean[j]))
                .sum::<f64>()
                / rows;
            let se = ((cov[i * 4] * cov[j * 4] + cov[i * 3 + j].powi(2)) / rows).sqrt();
            assert!((c - cov[i * 3 + j]).abs() < 6.0 * se, "mvn cov {i}{j}: {c}");
        }
    }
    // A singular (rank one) covariance is allowed: both coordinates equal.
    let x = g.multivariate_normal::<f64>(&[0.0, 0.0], &[1.0, 1.0, 1.0, 1.0], &[100])?;
    assert!(x.to_vec()?.chunks(2).all(|r| (r[0] - r[1]).abs() < 1e-6));
    Ok(())
}

/// XORWOW and MRG32k3a: published values, then distributions drawn on the host path.
fn sequential_bit_generators(d: Device) -> TestResult {
    // The seed whose scrambled halves are zero starts XORWOW at Marsaglia's published state
    // (x, y, z, w, v) = (123456789, 362436069, 521288629, 88675123, 5783321), d = 6615241;
    // the outputs follow the paper's recurrence, computed here independently.
    let mut x = Xorwow::new(0xf7dc_efdd_aad2_6b49);
    let (mut s, mut dd) = (
        [
            123_456_789u32,
            362_436_069,
            521_288_629,
            88_675_123,
            5_783_321,
        ],
        6_615_241u32,
    );
    for _ in 0..1000 {
        let t = s[0] ^ (s[0] >> 2);
        s = [
            s[1],
            s[2],
            s[3],
            s[4],
            (s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1)),
        ];
        dd = dd.wrapping_add(362_437);
        assert_eq!(x.next_u32(), dd.wrapping_add(s[4]));
    }
    // MRG32k3a: Rosetta Code's published outputs for state (0, 0, 1234567) twice.
    let mut m = Mrg32k3a::from_state([0, 0, 1_234_567, 0, 0, 1_234_567])?;
    let z: Vec<u64> = (0..5).map(|_| m.next_raw() as u64 + 1).collect();
    assert_eq!(
        z,
        [
            1_459_213_977,
            2_827_710_106,
            4_245_671_317,
            3_877_608_661,
            2_595_287_583
        ]
    );
    for bits in [BitGenerator::xorwow(77), BitGenerator::mrg32k3a(77)] {
        let name = bits.name();
        let mut g = Generator::new(bits).on(d);
        let u = g.random::<f64>(&[N])?.to_vec()?;
        ks(u, |v| v.clamp(0.0, 1.0), &format!("{name} random"))?;
        let u = g
            .random::<f32>(&[N])?
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
        ks(u, |v| v.clamp(0.0, 1.0), &format!("{name} random f32"))?;
        let z = g.standard_normal::<f64>(&[N])?.to_vec()?;
        moments(&z, 0.0, 1.0, name);
        ks(z, phi, &format!("{name} standard_normal"))?;
        let x = g.standard_gamma::<f64>(0.5, &[N])?.to_vec()?;
        ks(x, |v| gammp(0.5, v), &format!("{name} standard_gamma"))?;
        let x = host(g.poisson::<i64>(40.0, &[N]).map(|a| a.cast::<f64>()))?;
        chi2_pmf(
            &x,
            |k| (-40.0 + k * 40f64.ln() - lgamma(k + 1.0)).exp(),
            0.0,
            name,
        )?;
        let k = host(g.integers::<i32>(-3, 9, &[N]).map(|a| a.cast::<f64>()))?;
        chi2_pmf(&k, |v| if v < 9.0 { 1.0 / 12.0 } else { 0.0 }, -3.0, name)?;
        let x = host(g.noncentral_chisquare(0.5, 1.0, &[N]))?;
        moments(&x, 1.5, 2.0 * 2.5, &format!("{name} noncentral_chisquare"));
        assert!(g.offset() > 0);
    }
    Ok(())
}

/// The generator's state: draws advance it, seeds repeat, the legacy state is shared safely.
fn generator_state(d: Device) -> TestResult {
    let mut g = rng(d, 5);
    assert_eq!((g.seed(), g.offset(), g.device()), (5, 0, d));
    let a = g.random::<f64>(&[64])?.to_vec()?;
    assert_eq!(
        a,
        cuprite_array::with_device(d, || Array::<f64>::rand_uniform(&[64], 5))?.to_vec()?
    );
    let b = g.random::<f64>(&[64])?.to_vec()?;
    assert_ne!(a, b);
    assert_eq!(g.offset(), 2);
    let mut h = rng(d, 5);
    assert_eq!(h.random::<f64>(&[64])?.to_vec()?, a);
    assert_eq!(h.random::<f64>(&[64])?.to_vec()?, b);
    let p1 = g.poisson::<i64>(30.0, &[100])?.to_vec()?;
    let p2 = g.poisson::<i64>(30.0, &[100])?.to_vec()?;
    assert_ne!(p1, p2);
    assert_eq!(g.poisson::<i64>(3.0, &[2, 0])?.shape(), [2, 0]);
    assert_eq!(g.binomial::<i64>(4, 0.5, &[])?.shape(), Vec::<usize>::new());
    let mut rs = RandomState::new(3);
    let x = rs.rand::<f32>(&[10])?.to_vec()?;
    rs.seed(3);
    assert_eq!(x, rs.rand::<f32>(&[10])?.to_vec()?);
    assert_eq!(rs.randn::<f64>(&[3])?.shape(), [3]);
    let by = g.bytes(33)?;
    assert_eq!(by.len(), 33);
    assert_ne!(by, g.bytes(33)?);
    Ok(())
}

/// The process-wide state: threads drawing at once each get a draw no other thread got.
fn global_state_threads() -> TestResult {
    random::seed(12);
    let draws: Vec<Vec<f64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    (0..5)
                        .map(|_| {
                            random::with_random_state(|rs| rs.rand::<f64>(&[1]))
                                .and_then(|a| a.item())
                        })
                        .collect::<cuprite_array::Result<Vec<f64>>>()
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("thread").expect("draw"))
            .collect()
    });
    let mut all: Vec<f64> = draws.concat();
    all.sort_by(f64::total_cmp);
    all.dedup();
    assert_eq!(all.len(), 20);
    assert_eq!(random::get_random_state().offset(), 20);
    random::set_random_state(RandomState::new(12));
    let first = random::with_random_state(|rs| rs.rand::<f64>(&[1]))?.item()?;
    assert!(all.contains(&first));
    assert_eq!(random::bytes(9)?.len(), 9);
    Ok(())
}

/// Bad parameters are `Err`s naming the value.
fn bad_parameters(d: Device) -> TestResult {
    let mut g = rng(d, 1);
    let cases: Vec<(&str, cuprite_array::Result<()>)> = vec![
        ("1.5", g.binomial::<i64>(10, 1.5, &[1]).map(drop)),
        ("-3", g.binomial::<i64>(-3, 0.5, &[1]).map(drop)),
        ("-1", g.poisson::<i64>(-1.0, &[1]).map(drop)),
        (
            "100000000000000000000",
            g.poisson::<i64>(1e20, &[1]).map(drop),
        ),
        ("3000000000", g.poisson::<i32>(3e9, &[1]).map(drop)),
        ("0", g.geometric::<i64>(0.0, &[1]).map(drop)),
        ("-2", g.negative_binomial::<i64>(-2.0, 0.5, &[1]).map(drop)),
        (
            "1.25",
            g.negative_binomial::<i64>(2.0, 1.25, &[1]).map(drop),
        ),
        ("12", g.hypergeometric::<i64>(5, 6, 12, &[1]).map(drop)),
        ("-1", g.hypergeometric::<i64>(-1, 6, 2, &[1]).map(drop)),
        ("1", g.logseries::<i64>(1.0, &[1]).map(drop)),
        ("1", g.zipf::<i64>(1.0, &[1]).map(drop)),
        (
            "1.2",
            g.multinomial::<i64>(5, &[0.7, 0.5, 0.1], &[1]).map(drop),
        ),
        (
            "-0.1",
            g.multinomial::<i64>(5, &[-0.1, 1.1], &[1]).map(drop),
        ),
        ("0", g.chisquare::<f64>(0.0, &[1]).map(drop)),
        (
            "-1",
            g.noncentral_chisquare::<f64>(2.0, -1.0, &[1]).map(drop),
        ),
        ("0", g.f::<f64>(1.0, 0.0, &[1]).map(drop)),
        (
            "NaN",
            g.noncentral_f::<f64>(f64::NAN, 1.0, 1.0, &[1]).map(drop),
        ),
        ("-4", g.standard_t::<f64>(-4.0, &[1]).map(drop)),
        ("-0.5", g.lognormal::<f64>(0.0, -0.5, &[1]).map(drop)),
        ("-2", g.laplace::<f64>(0.0, -2.0, &[1]).map(drop)),
        ("inf", g.logistic::<f64>(f64::INFINITY, 1.0, &[1]).map(drop)),
        ("-1", g.gumbel::<f64>(0.0, -1.0, &[1]).map(drop)),
        ("0", g.pareto::<f64>(0.0, &[1]).map(drop)),
        ("-1", g.power::<f64>(-1.0, &[1]).map(drop)),
        ("-3", g.rayleigh::<f64>(-3.0, &[1]).map(drop)),
        ("-1", g.weibull::<f64>(-1.0, &[1]).map(drop)),
        ("5, 4", g.triangular::<f64>(0.0, 5.0, 4.0, &[1]).map(drop)),
        ("-1", g.vonmises::<f64>(0.0, -1.0, &[1]).map(drop)),
        ("0", g.wald::<f64>(0.0, 1.0, &[1]).map(drop)),
        ("alpha[1]", g.dirichlet::<f64>(&[1.0, 0.0], &[1]).map(drop)),
        (
            "cov[1][0]",
            g.multivariate_normal::<f64>(&[0.0, 0.0], &[1.0, 0.5, 0.2, 1.0], &[1])
                .map(drop),
        ),
        (
            "eigenvalue",
            g.multivariate_normal::<f64>(&[0.0, 0.0], &[1.0, 2.0, 2.0, 1.0], &[1])
                .map(drop),
        ),
        (
            "3 values",
            g.multivariate_normal::<f64>(&[0.0, 0.0], &[1.0, 2.0, 2.0], &[1])
                .map(drop),
        ),
        ("-1", g.normal::<f64>(0.0, -1.0, &[1]).map(drop)),
        ("[5, 5)", g.integers::<i64>(5, 5, &[1]).map(drop)),
        ("-2", g.exponential::<f64>(-2.0, &[1]).map(drop)),
        ("0", g.beta::<f64>(0.0, 1.0, &[1]).map(drop)),
        (
            "1234567",
            Mrg32k3a::from_state([0, 0, 0, 0, 0, 1_234_567]).map(drop),
        ),
    ];
    for (want, r) in cases {
        let e = r.expect_err(want).to_string();
        assert!(e.contains(want), "message {e:?} does not name {want}");
    }
    // A failed call leaves no partial state behind: the next draw is still reproducible.
    let mut h = rng(d, 2);
    assert!(h.poisson::<i64>(-1.0, &[1]).is_err());
    assert_eq!(h.offset(), 0);
    Ok(())
}

/// CPU and CUDA give the same draws for the same seed.
fn random_gen_cpu_equals_gpu() -> TestResult {
    type Draw = fn(&mut Generator) -> cuprite_array::Result<Array<f64>>;
    let exact: [(&str, Draw); 9] = [
        ("poisson small", |g| {
            Ok(g.poisson::<i64>(3.0, &[50_001])?.cast())
        }),
        ("poisson large", |g| {
            Ok(g.poisson::<i64>(300.0, &[50_001])?.cast())
        }),
        ("binomial small", |g| {
            Ok(g.binomial::<i64>(40, 0.1, &[50_001])?.cast())
        }),
        ("binomial large", |g| {
            Ok(g.binomial::<i64>(5000, 0.7, &[50_001])?.cast())
        }),
        ("hypergeometric", |g| {
            Ok(g.hypergeometric::<i64>(300, 500, 200, &[50_001])?.cast())
        }),
        ("logseries", |g| {
            Ok(g.logseries::<i64>(0.9, &[50_001])?.cast())
        }),
        ("zipf", |g| Ok(g.zipf::<i64>(2.0, &[50_001])?.cast())),
        ("multinomial", |g| {
            Ok(g.multinomial::<i64>(50, &[0.2, 0.3, 0.5], &[10_001])?
                .cast())
        }),
        ("negative_binomial", |g| {
            Ok(g.negative_binomial::<i64>(4.0, 0.3, &[50_001])?.cast())
        }),
    ];
    let near: [(&str, Draw); 8] = [
        ("vonmises", |g| g.vonmises(0.3, 3.0, &[50_001])),
        ("noncentral_chisquare", |g| {
            g.noncentral_chisquare(0.6, 2.0, &[50_001])
        }),
        ("standard_t", |g| g.standard_t(5.0, &[50_001])),
        ("wald", |g| g.wald(1.0, 2.0, &[50_001])),
        ("laplace", |g| g.laplace(0.0, 1.0, &[50_001])),
        ("dirichlet", |g| g.dirichlet(&[0.5, 1.5], &[10_001])),
        ("multivariate_normal", |g| {
            g.multivariate_normal(&[1.0, 2.0], &[2.0, 0.3, 0.3, 1.0], &[10_001])
        }),
        ("xorwow gamma", |g| {
            let mut x = Generator::new(BitGenerator::xorwow(g.seed())).on(g.device());
            x.standard_gamma(0.7, &[10_001])
        }),
    ];
    let run = |d: Device, f: Draw| f(&mut rng(d, 99))?.to_vec();
    for (what, f) in exact {
        let (c, g) = (run(Device::CPU, f)?, run(Device::cuda(0), f)?);
        assert!(c == g, "{what}: CPU and CUDA differ");
    }
    for (what, f) in near {
        let (c, g) = (run(Device::CPU, f)?, run(Device::cuda(0), f)?);
        // von Mises ends in `acos`, whose slope near ±1 magnifies a last-bit difference of
        // `cos` up to about 1e-8 absolute; the rest differ only in the last bits.
        let (rtol, atol) = if what == "vonmises" {
            (1e-9, 1e-8)
        } else {
            (1e-10, 1e-12)
        };
        close(&g, &c, rtol, atol, what)?;
    }
    Ok(())
}

/// The sampler kernel compiles with the library's options (NVRTC only, no GPU): recorded
/// from a dry run of draws of every looping kind.
fn sampler_kernel_compiles() -> TestResult {
    use cuprite_array::tuning;
    tuning::compiler::start_recording();
    let mut g = rng(Device::CPU, 1);
    let drawn = (|| -> cuprite_array::Result<()> {
        g.poisson::<i64>(3.0, &[4])?.to_vec()?;
        g.dirichlet::<f64>(&[0.5, 1.0], &[4])?.to_vec()?;
        g.vonmises::<f64>(0.0, 1.0, &[4])?.to_vec()?;
        Ok(())
    })();
    let sources = tuning::compiler::take_recorded();
    drawn?;
    let src = sources
        .iter()
        .find(|s| s.contains("cuprite_sampler_f64"))
        .ok_or("the sampler kernel was not recorded")?;
    for opts in [
        tuning::compiler::compile_options(90, true),
        tuning::compiler::quick_compile_options(90),
    ] {
        let c = cuprite_driver::nvrtc::compile(src, &opts)?;
        assert!(c.ptx().is_some() || c.cubin().is_some());
    }
    Ok(())
}

/// Random123's known-answer vectors for Philox4x32-10: (counter, key words, output).
const PHILOX_KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
    (
        [0; 4],
        [0; 2],
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
    ),
    (
        [u32::MAX; 4],
        [u32::MAX; 2],
        [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
    ),
    (
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    ),
];

/// The CPU twin of the generator gives the published answers (its key's low half is the
/// first key word).
fn philox_known_answers() -> TestResult {
    for (ctr, k, want) in PHILOX_KAT {
        let key = (k[1] as u64) << 32 | k[0] as u64;
        let got = random::philox4x32_10_full(key, ctr);
        assert_eq!(
            got, want,
            "philox4x32_10 of counter {ctr:08x?}, key {k:08x?}"
        );
        if ctr[2] == 0 && ctr[3] == 0 {
            let c = (ctr[1] as u64) << 32 | ctr[0] as u64;
            assert_eq!(
                random::philox4x32_10(key, c),
                want,
                "the 64-bit counter form"
            );
        }
    }
    Ok(())
}

/// A kernel over the library's one C definition of the generator (`codegen/philox.cu`, included
/// twice: its guard makes the second a no-op): one table row a thread, four counter words and
/// a key in, four words out.
fn philox_table_source() -> String {
    let philox = include_str!("../src/codegen/philox.cu");
    format!(
        "{philox}{philox}
extern \"C\" __global__ void philox_table(const unsigned long long* keys, const unsigned* ctrs,
                                          unsigned* out, unsigned n) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned w[4];
  cu_philox4x32_10(keys[i], ctrs[4 * i], ctrs[4 * i + 1], ctrs[4 * i + 2], ctrs[4 * i + 3], w);
  for (int j = 0; j < 4; ++j) out[4 * i + j] = w[j];
}}
"
    )
}

/// The C generator compiles on its own (NVRTC only, no GPU).
fn philox_c_compiles() -> TestResult {
    let c = cuprite_driver::nvrtc::compile(
        philox_table_source(),
        &cuprite_array::tuning::compiler::compile_options(90, true),
    )?;
    assert!(c.ptx().is_some() || c.cubin().is_some());
    Ok(())
}

/// The C generator gives the Rust twin's words on a table of keys and counters: the
/// known-answer rows, every counter word's carry edges, and fresh random rows.
fn philox_c_matches_rust() -> TestResult {
    use cuprite_driver::LaunchConfig;
    let mut rng = cuprite_testkit::Rng::fresh();
    let mut rows: Vec<(u64, [u32; 4])> = PHILOX_KAT
        .iter()
        .map(|&(c, k, _)| ((k[1] as u64) << 32 | k[0] as u64, c))
        .collect();
    for w in 0..4 {
        for v in [1, u32::MAX, 0x8000_0000] {
            let mut c = [0; 4];
            c[w] = v;
            rows.push((rng.next_u64(), c));
        }
    }
    for _ in 0..1000 {
        let (a, b) = (rng.next_u64(), rng.next_u64());
        let c = [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32];
        rows.push((rng.next_u64(), c));
    }
    let n = rows.len();
    let keys: Vec<u64> = rows.iter().map(|r| r.0).collect();
    let ctrs: Vec<u32> = rows.iter().flat_map(|r| r.1).collect();
    let want: Vec<u32> = rows
        .iter()
        .flat_map(|&(k, c)| random::philox4x32_10_full(k, c))
        .collect();
    let stream = cuprite_array::get_stream(0)?;
    let ctx = stream.context().clone();
    let ptx = cuprite_driver::nvrtc::compile_ptx(philox_table_source())?;
    let f = ctx.load_module(ptx)?.load_function("philox_table")?;
    let kd = stream.clone_htod(&keys)?;
    let cd = stream.clone_htod(&ctrs)?;
    let mut out = stream.clone_htod(&vec![0xdead_beefu32; 4 * n])?; // poisoned
    let nn = n as u32;
    let mut lb = stream.launch_builder(&f);
    lb.arg(&kd).arg(&cd).arg(&mut out).arg(&nn);
    // SAFETY: thread i < n reads keys[i] and ctrs[4i..4i+4] and writes out[4i..4i+4]; the
    // buffers hold n, 4n and 4n elements.
    unsafe { lb.launch(LaunchConfig::for_num_elems(nn)) }?;
    let got = stream.clone_dtoh(&out)?;
    for (i, (g, w)) in got.chunks(4).zip(want.chunks(4)).enumerate() {
        assert_eq!(
            g, w,
            "row {i}: key {:#x}, counter {:08x?}",
            rows[i].0, rows[i].1
        );
    }
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("continuous_transforms", continuous_transforms),
    ("gamma_family", gamma_family),
    ("discrete_counts", discrete_counts),
    ("multivariate", multivariate),
    ("sequential_bit_generators", sequential_bit_generators),
    ("generator_state", generator_state),
    ("bad_parameters", bad_parameters),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::random_gen::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::random_gen::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::cpu(
        "random_gen::global_state_threads",
        global_state_threads,
    ));
    v.push(Test::nvrtc(
        "random_gen::sampler_kernel_compiles",
        sampler_kernel_compiles,
    ));
    v.push(Test::cpu(
        "random_gen::philox_known_answers",
        philox_known_answers,
    ));
    v.push(Test::nvrtc(
        "random_gen::philox_c_compiles",
        philox_c_compiles,
    ));
    v.push(Test::gpu(
        "cuda::random_gen::philox_c_matches_rust",
        philox_c_matches_rust,
    ));
    v.push(Test::gpu(
        "cuda::random_gen::cpu_equals_gpu",
        random_gen_cpu_equals_gpu,
    ));
    v
}
