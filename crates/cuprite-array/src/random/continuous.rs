//! The continuous distributions of [`Generator`] beyond the basic ones: transforms of
//! uniforms, normals and gammas written as array expressions (element-wise, so they fuse into
//! one kernel with whatever consumes them), and von Mises through the looping sampler.

use super::dists::Kind;
use super::generator::{Generator, finite, need, non_negative, positive};
use crate::array::Array;
use crate::device::with_device;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::ops::ReduceOpts;

/// The smallest uniform the open-interval transforms use in place of 0 (NumPy redraws a 0;
/// here it maps to `2⁻⁵⁴`, a change of probability `2⁻⁵³` per draw).
const TINY: f64 = 1.0 / 18_014_398_509_481_984.0;

impl Generator {
    /// Chi-square draws with `df > 0` degrees of freedom: `2 · Γ(df / 2)`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(1).chisquare::<f64>(4.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 4.0).abs() < 0.15);
    /// assert!(cuprite_array::random::default_rng(1).chisquare::<f64>(0.0, &[1]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn chisquare<T: Float>(&mut self, df: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("chisquare", "df", df)?;
        Ok((self.gammas(shape, df / 2.0)? * 2.0).cast::<T>())
    }

    /// `f64` noncentral chi-square draws (NumPy's construction).
    fn ncx2(&mut self, df: f64, nonc: f64, shape: &[usize]) -> Result<Array<f64>> {
        if nonc == 0.0 {
            return Ok(self.gammas(shape, df / 2.0)? * 2.0);
        }
        if df > 1.0 {
            let chi = self.gammas(shape, (df - 1.0) / 2.0)? * 2.0;
            let n = self.normals(shape)? + nonc.sqrt();
            return chi.try_add(&(&n * &n));
        }
        let i = self.sampled(Kind::Poisson, shape, nonc / 2.0, None)?;
        let alpha = i + df / 2.0;
        Ok(self.sampled(Kind::Gamma, shape, 0.0, Some(&alpha))? * 2.0)
    }

    /// Noncentral chi-square draws with `df > 0` and noncentrality `nonc >= 0`, as NumPy
    /// makes them: for `df > 1` a central chi-square of `df - 1` plus `(Z + √nonc)²`, else a
    /// chi-square of `df + 2K` with `K` Poisson of mean `nonc / 2`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(2).noncentral_chisquare::<f64>(3.0, 2.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 5.0).abs() < 0.2);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn noncentral_chisquare<T: Float>(
        &mut self,
        df: f64,
        nonc: f64,
        shape: &[usize],
    ) -> Result<Array<T>> {
        positive("noncentral_chisquare", "df", df)?;
        non_negative("noncentral_chisquare", "nonc", nonc)?;
        Ok(self.ncx2(df, nonc, shape)?.cast::<T>())
    }

    /// F (Fisher–Snedecor) draws with `dfnum > 0` and `dfden > 0`: a ratio of scaled
    /// chi-squares.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(3).f::<f64>(5.0, 10.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 1.25).abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn f<T: Float>(&mut self, dfnum: f64, dfden: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("f", "dfnum", dfnum)?;
        positive("f", "dfden", dfden)?;
        let num = self.gammas(shape, dfnum / 2.0)? * (2.0 / dfnum);
        let den = self.gammas(shape, dfden / 2.0)? * (2.0 / dfden);
        Ok(num.try_div(&den)?.cast::<T>())
    }

    /// Noncentral F draws with `dfnum > 0`, `dfden > 0` and `nonc >= 0`:
    /// `(X / dfnum) / (Y / dfden)` for a noncentral chi-square `X` and a chi-square `Y`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(4).noncentral_f::<f64>(3.0, 20.0, 3.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 20.0 * 6.0 / (3.0 * 18.0)).abs() < 0.1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn noncentral_f<T: Float>(
        &mut self,
        dfnum: f64,
        dfden: f64,
        nonc: f64,
        shape: &[usize],
    ) -> Result<Array<T>> {
        positive("noncentral_f", "dfnum", dfnum)?;
        positive("noncentral_f", "dfden", dfden)?;
        non_negative("noncentral_f", "nonc", nonc)?;
        let t = self.ncx2(dfnum, nonc, shape)? * dfden;
        let d = self.gammas(shape, dfden / 2.0)? * (2.0 * dfnum);
        Ok(t.try_div(&d)?.cast::<T>())
    }

    /// Student's t draws with `df > 0`: `Z · √(df/2) / √Γ(df/2)`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(5).standard_t::<f64>(10.0, &[20000])?;
    /// assert!(x.mean()?.item()?.abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn standard_t<T: Float>(&mut self, df: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("standard_t", "df", df)?;
        let z = self.normals(shape)? * (df / 2.0).sqrt();
        let g = self.gammas(shape, df / 2.0)?.sqrt();
        Ok(z.try_div(&g)?.cast::<T>())
    }

    /// Standard Cauchy draws: the ratio of two standard normals.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(6).standard_cauchy::<f64>(&[20001])?;
    /// assert!(x.median()?.item()?.abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn standard_cauchy<T: Float>(&mut self, shape: &[usize]) -> Result<Array<T>> {
        let a = self.normals(shape)?;
        let b = self.normals(shape)?;
        Ok(a.try_div(&b)?.cast::<T>())
    }

    /// Log-normal draws: `exp(mean + sigma · Z)`, `mean` finite, `sigma >= 0`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(7).lognormal::<f64>(0.0, 0.5, &[20000])?;
    /// assert!((x.mean()?.item()? - 0.125f64.exp()).abs() < 0.02);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn lognormal<T: Float>(
        &mut self,
        mean: f64,
        sigma: f64,
        shape: &[usize],
    ) -> Result<Array<T>> {
        finite("lognormal", "mean", mean)?;
        non_negative("lognormal", "sigma", sigma)?;
        Ok((self.normals(shape)? * sigma + mean).exp().cast::<T>())
    }

    /// Laplace draws with location `loc` and `scale >= 0`, by inverting the CDF.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(8).laplace::<f64>(1.0, 2.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 1.0).abs() < 0.1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn laplace<T: Float>(&mut self, loc: f64, scale: f64, shape: &[usize]) -> Result<Array<T>> {
        finite("laplace", "loc", loc)?;
        non_negative("laplace", "scale", scale)?;
        let u = self.u01(shape)?;
        let hi = (2.0 - &u * 2.0).log() * -scale + loc;
        let lo = (&u * 2.0).maximum(2.0 * TINY).log() * scale + loc;
        Ok(Array::select(&u.greater_equal(0.5), &hi, &lo)?.cast::<T>())
    }

    /// Logistic draws with location `loc` and `scale >= 0`: `loc + scale · ln(u / (1 - u))`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(9).logistic::<f64>(-1.0, 1.0, &[20000])?;
    /// assert!((x.mean()?.item()? + 1.0).abs() < 0.1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn logistic<T: Float>(
        &mut self,
        loc: f64,
        scale: f64,
        shape: &[usize],
    ) -> Result<Array<T>> {
        finite("logistic", "loc", loc)?;
        non_negative("logistic", "scale", scale)?;
        let u = self.u01(shape)?.maximum(TINY);
        let r = u.try_div(&(1.0 - &u))?;
        Ok((r.log() * scale + loc).cast::<T>())
    }

    /// Gumbel draws with location `loc` and `scale >= 0`: `loc - scale · ln(-ln(1 - u))`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(10).gumbel::<f64>(0.0, 1.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 0.5772156649).abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn gumbel<T: Float>(&mut self, loc: f64, scale: f64, shape: &[usize]) -> Result<Array<T>> {
        finite("gumbel", "loc", loc)?;
        non_negative("gumbel", "scale", scale)?;
        let one_minus = (1.0 - self.u01(shape)?).minimum(1.0 - 2.0 * TINY);
        Ok(((-one_minus.log()).log() * -scale + loc).cast::<T>())
    }

    /// Pareto II (Lomax) draws with shape `a > 0`, NumPy's `pareto`: `(1 - u)^(-1/a) - 1`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(11).pareto::<f64>(5.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 0.25).abs() < 0.02);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn pareto<T: Float>(&mut self, a: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("pareto", "a", a)?;
        Ok(((-self.u01(shape)?).log1p() * (-1.0 / a))
            .expm1()
            .cast::<T>())
    }

    /// Power-function draws on `[0, 1]` with exponent `a > 0`: `u^(1/a)`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(12).power::<f64>(3.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 0.75).abs() < 0.01);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn power<T: Float>(&mut self, a: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("power", "a", a)?;
        Ok(self.u01(shape)?.pow(1.0 / a).cast::<T>())
    }

    /// Rayleigh draws with `scale >= 0`: `scale · √(-2 ln(1 - u))`.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(13).rayleigh::<f64>(2.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 2.0 * (std::f64::consts::PI / 2.0).sqrt()).abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rayleigh<T: Float>(&mut self, scale: f64, shape: &[usize]) -> Result<Array<T>> {
        non_negative("rayleigh", "scale", scale)?;
        Ok((((-self.u01(shape)?).log1p() * -2.0).sqrt() * scale).cast::<T>())
    }

    /// Weibull draws with shape `a >= 0`: `(-ln(1 - u))^(1/a)` (0 everywhere for `a = 0`).
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(14).weibull::<f64>(1.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 1.0).abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn weibull<T: Float>(&mut self, a: f64, shape: &[usize]) -> Result<Array<T>> {
        non_negative("weibull", "a", a)?;
        let u = self.u01(shape)?;
        if a == 0.0 {
            return Ok((u * 0.0).cast::<T>());
        }
        Ok((-(-u).log1p()).pow(1.0 / a).cast::<T>())
    }

    /// Triangular draws on `[left, right]` with peak `mode` (`left <= mode <= right`,
    /// `left < right`, all finite), by inverting the CDF.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(15).triangular::<f64>(0.0, 1.0, 4.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 5.0 / 3.0).abs() < 0.05);
    /// assert!(cuprite_array::random::default_rng(15).triangular::<f64>(0.0, 5.0, 4.0, &[1]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn triangular<T: Float>(
        &mut self,
        left: f64,
        mode: f64,
        right: f64,
        shape: &[usize],
    ) -> Result<Array<T>> {
        for (what, v) in [("left", left), ("mode", mode), ("right", right)] {
            finite("triangular", what, v)?;
        }
        if !(left <= mode && mode <= right && left < right) {
            return Err(Error::InvalidArgument(format!(
                "triangular: need left <= mode <= right and left < right, not {left}, {mode}, {right}"
            )));
        }
        let base = right - left;
        let ratio = (mode - left) / base;
        let (lp, rp) = ((mode - left) * base, (right - mode) * base);
        let u = self.u01(shape)?;
        let lo = (&u * lp).sqrt() + left;
        let hi = right - ((1.0 - &u) * rp).sqrt();
        Ok(Array::select(&u.less_equal(ratio), &lo, &hi)?.cast::<T>())
    }

    /// Von Mises draws on `[-π, π]` with mean direction `mu` (finite) and concentration
    /// `kappa >= 0`: Best and Fisher's rejection, as NumPy's (see the sampler's notes in the
    /// module documentation).
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(16).vonmises::<f64>(0.5, 4.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 0.5).abs() < 0.02);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn vonmises<T: Float>(&mut self, mu: f64, kappa: f64, shape: &[usize]) -> Result<Array<T>> {
        finite("vonmises", "mu", mu)?;
        non_negative("vonmises", "kappa", kappa)?;
        Ok(self
            .sampled(Kind::VonMises { mu }, shape, kappa, None)?
            .cast::<T>())
    }

    /// Wald (inverse Gaussian) draws with `mean > 0` and `scale > 0`: Michael, Schucany and
    /// Haas's transformation of a normal and a uniform, as NumPy's.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(17).wald::<f64>(2.0, 3.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 2.0).abs() < 0.06);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn wald<T: Float>(&mut self, mean: f64, scale: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("wald", "mean", mean)?;
        positive("wald", "scale", scale)?;
        let z = self.normals(shape)?;
        let y = &z * &z * mean;
        let root = (&y * (4.0 * scale) + &y * &y).sqrt();
        let x = (y - root) * (mean / (2.0 * scale)) + mean;
        let u = self.u01(shape)?;
        let keep = u.try_less_equal(&(mean / (&x + mean)))?;
        let other = (mean * mean) / &x;
        Ok(Array::select(&keep, &x, &other)?.cast::<T>())
    }

    /// Dirichlet draws of concentrations `alpha` (each finite and > 0, at least one), of
    /// shape `shape + [alpha.len()]`: independent gammas normalised along the last axis,
    /// drawn as logarithms and normalised in log space (no underflow to `0 / 0` for small
    /// concentrations, where NumPy switches to stick-breaking).
    ///
    /// ```
    /// let mut g = cuprite_array::random::default_rng(18);
    /// let x = g.dirichlet::<f64>(&[1.0, 2.0, 3.0], &[1000])?;
    /// let s = x.sum_axes(&[-1])?.to_vec()?;
    /// assert!(s.iter().all(|v| (v - 1.0).abs() < 1e-12));
    /// let tiny = g.dirichlet::<f64>(&[1e-3, 1e-3], &[1000])?.to_vec()?;
    /// assert!(tiny.iter().all(|v| v.is_finite()));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn dirichlet<T: Float>(&mut self, alpha: &[f64], shape: &[usize]) -> Result<Array<T>> {
        if alpha.is_empty() {
            return Err(Error::InvalidArgument(
                "dirichlet: alpha has no entries".into(),
            ));
        }
        for (i, &a) in alpha.iter().enumerate() {
            positive("dirichlet", &format!("alpha[{i}]"), a)?;
        }
        let logs = alpha
            .iter()
            .map(|&a| self.sampled(Kind::LogGamma, shape, a, None))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Array<f64>> = logs.iter().collect();
        let l = with_device(self.device(), || Array::stack(&refs, -1))?;
        let e = l
            .try_sub(&l.max_axes_with(&[-1], ReduceOpts::new().keepdims(true))?)?
            .exp();
        let s = e.sum_axes_with(&[-1], ReduceOpts::new().keepdims(true))?;
        Ok(e.try_div(&s)?.cast::<T>())
    }

    /// Multivariate normal draws of `mean` (length `d`) and covariance `cov` (`d × d`,
    /// row-major, symmetric positive semi-definite), of shape `shape + [d]`:
    /// `mean + Z · A^T` with `A = V · diag(√λ)` from the eigendecomposition `cov = V Λ V^T`
    /// (NumPy's default `svd` factor; a singular covariance is allowed). A non-symmetric
    /// covariance (beyond `1e-8` relative) or an eigenvalue below `-1e-8 · max|λ|` is an `Err`.
    ///
    /// ```
    /// let mut g = cuprite_array::random::default_rng(19);
    /// let x = g.multivariate_normal::<f64>(&[1.0, -1.0], &[1.0, 0.5, 0.5, 2.0], &[20000])?;
    /// assert_eq!(x.shape(), [20000, 2]);
    /// let m = x.mean_axes(&[0])?.to_vec()?;
    /// assert!((m[0] - 1.0).abs() < 0.05 && (m[1] + 1.0).abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn multivariate_normal<T: Float>(
        &mut self,
        mean: &[f64],
        cov: &[f64],
        shape: &[usize],
    ) -> Result<Array<T>> {
        let d = mean.len();
        if d == 0 || cov.len() != d * d {
            return Err(Error::Shape(format!(
                "multivariate_normal: a mean of {d} entries needs a {d} x {d} covariance, not {} values",
                cov.len()
            )));
        }
        for (i, &v) in mean.iter().chain(cov).enumerate() {
            need(
                v.is_finite(),
                "multivariate_normal",
                &format!("value {i} of mean and cov"),
                "finite",
                v,
            )?;
        }
        let scale = cov
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        for i in 0..d {
            for j in 0..i {
                let (a, b) = (cov[i * d + j], cov[j * d + i]);
                if (a - b).abs() > 1e-8 * scale {
                    return Err(Error::InvalidArgument(format!(
                        "multivariate_normal: cov is not symmetric: cov[{i}][{j}] = {a}, cov[{j}][{i}] = {b}"
                    )));
                }
            }
        }
        let factor = with_device(crate::device::Device::CPU, || -> Result<Vec<f64>> {
            let c = Array::from_slice(cov, &[d, d])?;
            let (w, v) = crate::ops::linalg::eigh(&c)?;
            let (w, v) = (w.to_vec()?, v.to_vec()?);
            let top = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            if let Some(&bad) = w.iter().find(|&&x| x < -1e-8 * top) {
                return Err(Error::InvalidArgument(format!(
                    "multivariate_normal: cov is not positive semi-definite (eigenvalue {bad})"
                )));
            }
            // A^T[k][i] = V[i][k] · √λ_k.
            let mut at = vec![0.0; d * d];
            for i in 0..d {
                for k in 0..d {
                    at[k * d + i] = v[i * d + k] * w[k].max(0.0).sqrt();
                }
            }
            Ok(at)
        })?;
        let m = crate::shape::checked_numel(shape)?;
        let mut out_shape = shape.to_vec();
        out_shape.push(d);
        crate::shape::checked_numel(&out_shape)?;
        let z = self.normals(&[m, d])?;
        with_device(self.device(), || {
            let at = Array::from_slice(&factor, &[d, d])?;
            let mu = Array::from_slice(mean, &[d])?;
            let x = z.matmul(&at)?.try_add(&mu)?;
            Ok(x.reshape(&out_shape[..])?.cast::<T>())
        })
    }
}
