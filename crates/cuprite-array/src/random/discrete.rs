//! The integer distributions of [`Generator`]: geometric by inverting its CDF (element-wise,
//! fused), the rest through the looping samplers of `random::dists` (Poisson and binomial by
//! Hörmann's transformed rejection, hypergeometric by inversion from the mode, logarithmic
//! series by Kemp's method, Zipf by Devroye's rejection), negative binomial and multinomial
//! composed from them. Counts are made as exact `f64` integers and cast to `I`.

use super::dists::Kind;
use super::generator::{Generator, int_max, need, positive};
use crate::array::Array;
use crate::device::with_device;
use crate::dtype::Integer;
use crate::error::{Error, Result};

/// The largest Poisson mean taken: draws stay below `2^53`, where `f64` counts are exact.
pub const POISSON_LAM_MAX: f64 = 9.0e15;

/// The largest count `n` taken by binomial and multinomial (`2^53`).
pub const COUNT_MAX: i64 = 1 << 53;

/// `Err` unless draws of mean `m` (and spread `sd`) fit in `I`.
fn fits<I: Integer>(call: &str, what: &str, v: f64, top: f64) -> Result<()> {
    let max = int_max(I::DTYPE);
    if top > max {
        return Err(Error::InvalidArgument(format!(
            "{call}: {what} = {v} gives values beyond {}'s largest {max}",
            I::DTYPE
        )));
    }
    Ok(())
}

impl Generator {
    /// Binomial counts of `n >= 0` trials (at most `2^53`, within `I`) with success probability
    /// `p` in `[0, 1]`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(1).binomial::<i64>(100, 0.3, &[20000])?;
    /// assert!((x.cast::<f64>().mean()?.item()? - 30.0).abs() < 0.2);
    /// assert!(cuprite_array::random::default_rng(1).binomial::<i64>(10, 1.5, &[1]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn binomial<I: Integer>(&mut self, n: i64, p: f64, shape: &[usize]) -> Result<Array<I>> {
        need(
            (0..=COUNT_MAX).contains(&n),
            "binomial",
            "n",
            "in [0, 2^53]",
            n as f64,
        )?;
        need((0.0..=1.0).contains(&p), "binomial", "p", "in [0, 1]", p)?;
        fits::<I>("binomial", "n", n as f64, n as f64)?;
        Ok(self
            .sampled(Kind::Binomial { p }, shape, n as f64, None)?
            .cast::<I>())
    }

    /// Poisson counts of mean `lam` in `[0, 9e15]` (values must fit `I`).
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(2).poisson::<i32>(4.0, &[20000])?;
    /// assert!((x.cast::<f64>().mean()?.item()? - 4.0).abs() < 0.1);
    /// assert!(cuprite_array::random::default_rng(2).poisson::<i32>(-1.0, &[1]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn poisson<I: Integer>(&mut self, lam: f64, shape: &[usize]) -> Result<Array<I>> {
        need(
            (0.0..=POISSON_LAM_MAX).contains(&lam),
            "poisson",
            "lam",
            "in [0, 9e15]",
            lam,
        )?;
        fits::<I>("poisson", "lam", lam, lam + 20.0 * lam.sqrt() + 50.0)?;
        Ok(self.sampled(Kind::Poisson, shape, lam, None)?.cast::<I>())
    }

    /// Geometric counts (trials to the first success, from 1) with `p` in `(0, 1]`:
    /// `ceil(ln(1 - u) / ln(1 - p))`, at least 1. Counts beyond `I` saturate.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(3).geometric::<i64>(0.25, &[20000])?;
    /// assert!((x.cast::<f64>().mean()?.item()? - 4.0).abs() < 0.15);
    /// assert!(cuprite_array::random::default_rng(3).geometric::<i64>(0.0, &[1]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn geometric<I: Integer>(&mut self, p: f64, shape: &[usize]) -> Result<Array<I>> {
        need(p > 0.0 && p <= 1.0, "geometric", "p", "in (0, 1]", p)?;
        let l = (-p).ln_1p();
        let u = self.u01(shape)?;
        Ok(((-u).log1p() / l).ceil().maximum(1.0).cast::<I>())
    }

    /// Negative binomial counts (failures before the `n`-th success, `n > 0` real) with `p`
    /// in `(0, 1]`: a Poisson of gamma-distributed mean `Γ(n) · (1 - p) / p`, as NumPy's.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(4).negative_binomial::<i64>(3.0, 0.5, &[20000])?;
    /// assert!((x.cast::<f64>().mean()?.item()? - 3.0).abs() < 0.1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn negative_binomial<I: Integer>(
        &mut self,
        n: f64,
        p: f64,
        shape: &[usize],
    ) -> Result<Array<I>> {
        positive("negative_binomial", "n", n)?;
        need(
            p > 0.0 && p <= 1.0,
            "negative_binomial",
            "p",
            "in (0, 1]",
            p,
        )?;
        let mean = n * (1.0 - p) / p;
        let sd = (mean / p).sqrt();
        fits::<I>("negative_binomial", "n", n, mean + 40.0 * sd + 50.0)?;
        if mean > POISSON_LAM_MAX / 4.0 {
            return Err(Error::InvalidArgument(format!(
                "negative_binomial: n = {n} and p = {p} give a mean {mean} beyond 2.25e15"
            )));
        }
        let y = self.gammas(shape, n)? * ((1.0 - p) / p);
        Ok(self
            .sampled(Kind::Poisson, shape, 0.0, Some(&y))?
            .cast::<I>())
    }

    /// Hypergeometric counts: good items among `nsample` drawn without replacement from
    /// `ngood` good and `nbad` bad (all `>= 0`, `nsample <= ngood + nbad`, and
    /// `ngood + nbad < 10^9` as NumPy's `Generator` requires).
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(5).hypergeometric::<i64>(30, 70, 20, &[20000])?;
    /// assert!((x.cast::<f64>().mean()?.item()? - 6.0).abs() < 0.06);
    /// assert!(cuprite_array::random::default_rng(5).hypergeometric::<i64>(3, 4, 8, &[1]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn hypergeometric<I: Integer>(
        &mut self,
        ngood: i64,
        nbad: i64,
        nsample: i64,
        shape: &[usize],
    ) -> Result<Array<I>> {
        need(
            ngood >= 0,
            "hypergeometric",
            "ngood",
            "not negative",
            ngood as f64,
        )?;
        need(
            nbad >= 0,
            "hypergeometric",
            "nbad",
            "not negative",
            nbad as f64,
        )?;
        let total = ngood as i128 + nbad as i128;
        if total >= 1_000_000_000 {
            return Err(Error::InvalidArgument(format!(
                "hypergeometric: ngood + nbad = {total} must be below 10^9"
            )));
        }
        if nsample < 0 || nsample as i128 > total {
            return Err(Error::InvalidArgument(format!(
                "hypergeometric: nsample must lie in [0, ngood + nbad = {total}], not {nsample}"
            )));
        }
        fits::<I>("hypergeometric", "nsample", nsample as f64, nsample as f64)?;
        let kind = Kind::Hypergeometric {
            good: ngood as f64,
            bad: nbad as f64,
        };
        Ok(self.sampled(kind, shape, nsample as f64, None)?.cast::<I>())
    }

    /// Logarithmic series counts (from 1) with `p` in `[0, 1)`.
    ///
    /// ```
    /// let p: f64 = 0.6;
    /// let x = cuprite_array::random::default_rng(6).logseries::<i64>(p, &[20000])?;
    /// let want = -p / ((1.0 - p) * (-p).ln_1p());
    /// assert!((x.cast::<f64>().mean()?.item()? - want).abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn logseries<I: Integer>(&mut self, p: f64, shape: &[usize]) -> Result<Array<I>> {
        need((0.0..1.0).contains(&p), "logseries", "p", "in [0, 1)", p)?;
        Ok(self.sampled(Kind::Logseries, shape, p, None)?.cast::<I>())
    }

    /// Zipf counts (from 1) with exponent `a > 1` (finite); counts beyond `I` saturate.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(7).zipf::<i64>(3.0, &[20000])?.to_vec()?;
    /// let ones = x.iter().filter(|&&v| v == 1).count() as f64 / 20000.0;
    /// assert!((ones - 1.0 / 1.2020569031595942).abs() < 0.02);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn zipf<I: Integer>(&mut self, a: f64, shape: &[usize]) -> Result<Array<I>> {
        need(
            a.is_finite() && a > 1.0,
            "zipf",
            "a",
            "finite and above 1",
            a,
        )?;
        Ok(self.sampled(Kind::Zipf, shape, a, None)?.cast::<I>())
    }

    /// Multinomial counts of `n >= 0` trials (at most `2^53`) over `pvals.len()` categories,
    /// of shape `shape + [pvals.len()]`: conditional binomials category by category, as
    /// NumPy's. Each `pvals` entry lies in `[0, 1]`; the last is implied by the others (their
    /// sum may not exceed `1 + 1e-12`).
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(8).multinomial::<i64>(10, &[0.2, 0.3, 0.5], &[100])?;
    /// assert_eq!(x.shape(), [100, 3]);
    /// let s = x.sum_axes(&[-1])?.to_vec()?;
    /// assert!(s.iter().all(|&v| v == 10));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn multinomial<I: Integer>(
        &mut self,
        n: i64,
        pvals: &[f64],
        shape: &[usize],
    ) -> Result<Array<I>> {
        need(
            (0..=COUNT_MAX).contains(&n),
            "multinomial",
            "n",
            "in [0, 2^53]",
            n as f64,
        )?;
        fits::<I>("multinomial", "n", n as f64, n as f64)?;
        let Some((_, head)) = pvals.split_last() else {
            return Err(Error::InvalidArgument(
                "multinomial: pvals has no entries".into(),
            ));
        };
        for (i, &p) in pvals.iter().enumerate() {
            need(
                (0.0..=1.0).contains(&p),
                "multinomial",
                &format!("pvals[{i}]"),
                "in [0, 1]",
                p,
            )?;
        }
        let s: f64 = head.iter().sum();
        need(
            s <= 1.0 + 1e-12,
            "multinomial",
            "sum(pvals[:-1])",
            "at most 1",
            s,
        )?;
        let dev = self.device();
        let mut left = with_device(dev, || Array::<f64>::full(shape, n as f64));
        let mut rest = 1.0;
        let mut parts = Vec::with_capacity(pvals.len());
        for &p in head {
            let cond = if rest > 0.0 {
                (p / rest).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let x = self.sampled(Kind::Binomial { p: cond }, shape, 0.0, Some(&left))?;
            left = left.try_sub(&x)?;
            rest -= p;
            parts.push(x);
        }
        parts.push(left);
        let refs: Vec<&Array<f64>> = parts.iter().collect();
        Ok(with_device(dev, || Array::stack(&refs, -1))?.cast::<I>())
    }
}
