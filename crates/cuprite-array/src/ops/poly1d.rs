//! NumPy's `poly1d` class and the classic polynomial routines beside `polyval` (coefficients
//! highest power first): `poly`, `roots` (companion-matrix eigenvalues), `polymul`, and
//! `polyfit` with weights, covariance and the full least-squares report.

use crate::array::Array;
use crate::dtype::Numeric;
use crate::error::{Error, Result};
use crate::ops::PolyvalOpts;
use crate::ops::TakeOpts;
use crate::ops::linalg::{self, ComplexOf, RealOf, Scalar, ScalarOps};
use crate::ops::poly as series;
use crate::ops::stacking::along;
use num_complex::Complex;

type C = Complex<f64>;

fn one_d<T: crate::dtype::Element>(call: &str, a: &Array<T>) -> Result<()> {
    if a.ndim() != 1 {
        return Err(Error::Shape(format!(
            "{call}: needs a 1-D array, got shape {:?}",
            a.shape()
        )));
    }
    Ok(())
}

/// The product of two polynomials (NumPy's `polymul`): the convolution of their 1-D
/// coefficient arrays, `len(a) + len(b) − 1` long, as one gather into a Toeplitz matrix and
/// one matrix product. Either order of coefficients works (the convolution is the same).
///
/// ```
/// use cuprite_array::{Array, ops::polymul};
/// let a = Array::from_slice(&[1i64, 2], &[2])?; // x + 2
/// let b = Array::from_slice(&[1i64, -3, 1], &[3])?;
/// assert_eq!(polymul(&a, &b)?.to_vec()?, [1, -1, -5, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polymul<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    one_d("polymul", a)?;
    one_d("polymul", b)?;
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return Err(Error::Shape(format!(
            "polymul: empty coefficients (lengths {n} and {m})"
        )));
    }
    let l = n + m - 1;
    crate::shape::checked_numel(&[l, m])?;
    // t[k, j] = a[k − j] where 0 ≤ k − j < n, else 0.
    let mut idx = Vec::with_capacity(l * m);
    let mut inside = Vec::with_capacity(l * m);
    for k in 0..l {
        for j in 0..m {
            let ok = k >= j && k - j < n;
            idx.push(if ok { (k - j) as i64 } else { 0 });
            inside.push(ok);
        }
    }
    let dev = a.device();
    let idx = Array::from_slice_on(dev, &idx, &[l * m])?;
    let inside = Array::from_slice_on(dev, &inside, &[l, m])?;
    let t = a
        .take_with(&idx, TakeOpts::new().axis(0))?
        .reshape(&[l, m])?;
    let t = Array::select(&inside, &t, T::default())?;
    t.matmul(&b.reshape(&[m, 1])?)?.reshape(&[l])
}

/// The monic polynomial with the given roots (NumPy's `poly`): from a 1-D array of roots, or
/// from a square matrix its characteristic polynomial (the roots its eigenvalues). Highest
/// power first, `len + 1` coefficients (an empty array gives `[1]`). For real input the
/// complex roots of a matrix come in conjugate pairs and the coefficients are real.
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// let r = Array::from_slice(&[2.0f64, 3.0], &[2])?;
/// assert_eq!(poly(&r)?.to_vec()?, [1.0, -5.0, 6.0]);
/// let m = Array::from_slice(&[0.0f64, -1.0, 1.0, 0.0], &[2, 2])?; // eigenvalues ±i
/// let c = poly(&m)?.to_vec()?;
/// assert!((c[0] - 1.0).abs() < 1e-12 && c[1].abs() < 1e-12 && (c[2] - 1.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn poly<T: Scalar>(seq_of_zeros: &Array<T>) -> Result<Array<T>> {
    let z = seq_of_zeros;
    let r: Vec<C> = match z.shape() {
        [n, m] if n == m => linalg::eigvals(z)?
            .to_vec()?
            .into_iter()
            .map(|x| x.to_c64())
            .collect(),
        [_] | [] => z.to_vec()?.into_iter().map(|x| x.to_c64()).collect(),
        s => {
            return Err(Error::Shape(format!(
                "poly: needs a 1-D array of roots or a square matrix, got shape {s:?}"
            )));
        }
    };
    let mut c = vec![C::new(1.0, 0.0)];
    for &root in &r {
        c.push(C::new(0.0, 0.0));
        for i in (1..c.len()).rev() {
            let prev = c[i - 1];
            c[i] -= root * prev;
        }
    }
    let v: Vec<T> = c.into_iter().map(T::from_c64).collect();
    Array::from_slice_on(z.device(), &v, &[v.len()])
}

/// The roots of the polynomial with 1-D coefficients `p`, highest power first (NumPy's
/// `roots`): the eigenvalues of the companion matrix of `p` with its leading zeros dropped,
/// then one zero root per trailing zero. Complex ([`c32`]/[`c64`]); none for a constant. A
/// NaN or infinite coefficient is an `Err`.
///
/// [`c32`]: crate::c32
/// [`c64`]: crate::c64
///
/// ```
/// use cuprite_array::{Array, ops::roots};
/// let p = Array::from_slice(&[1.0f64, -6.0, 11.0, -6.0, 0.0], &[5])?; // x(x−1)(x−2)(x−3)
/// let mut r: Vec<f64> = roots(&p)?.to_vec()?.iter().map(|z| z.re).collect();
/// r.sort_by(f64::total_cmp);
/// assert!(r.iter().zip([0.0, 1.0, 2.0, 3.0]).all(|(a, b)| (a - b).abs() < 1e-10));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn roots<T: Scalar>(p: &Array<T>) -> Result<Array<ComplexOf<T>>> {
    one_d("roots", p)?;
    let v: Vec<C> = p.to_vec()?.into_iter().map(|x| x.to_c64()).collect();
    let dev = p.device();
    let nz = |z: &C| z.norm() != 0.0 || z.re.is_nan() || z.im.is_nan();
    let (Some(first), Some(last)) = (v.iter().position(nz), v.iter().rposition(nz)) else {
        return Array::<ComplexOf<T>>::zeros(&[0]).to_device(dev);
    };
    let trailing = v.len() - last - 1;
    let q = &v[first..=last];
    let n = q.len();
    let mut parts: Vec<Array<ComplexOf<T>>> = Vec::new();
    if n > 1 {
        let k = n - 1;
        let mut a = vec![T::default(); k * k];
        for j in 0..k {
            a[j] = T::from_c64(-q[j + 1] / q[0]);
        }
        for i in 1..k {
            a[i * k + i - 1] = T::from_c64(C::new(1.0, 0.0));
        }
        parts.push(linalg::eigvals(&Array::from_slice_on(dev, &a, &[k, k])?)?);
    }
    parts.push(Array::<ComplexOf<T>>::zeros(&[trailing]).to_device(dev)?);
    let refs: Vec<&Array<ComplexOf<T>>> = parts.iter().collect();
    Array::concat(&refs, 0)?.contiguous()
}

/// Which covariance [`polyfit_with`] returns (NumPy's `cov`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolyCov {
    /// None (`cov=False`).
    #[default]
    None,
    /// Scaled by the residual variance `resid / (len(x) − deg − 1)` (`cov=True`).
    Scaled,
    /// Unscaled (`cov="unscaled"`, for weights `1/σ` of known errors).
    Unscaled,
}

/// The options of [`polyfit_with`]: NumPy's `rcond`, `w` and `cov`.
#[derive(Clone, Copy, Debug)]
pub struct PolyfitOptions<'a, T: Scalar> {
    /// Relative cutoff for small singular values (`None`: `len(x)·eps`).
    pub rcond: Option<f64>,
    /// Weights of the points (`1/σ` for Gaussian errors), multiplying the residuals.
    pub w: Option<&'a Array<T>>,
    /// The covariance to compute.
    pub cov: PolyCov,
}

impl<T: Scalar> Default for PolyfitOptions<'_, T> {
    fn default() -> Self {
        PolyfitOptions {
            rcond: None,
            w: None,
            cov: PolyCov::None,
        }
    }
}

/// What [`polyfit_with`] returns: NumPy's `full=True` report and the covariance.
#[derive(Clone, Debug)]
pub struct Polyfit<T: Scalar> {
    /// The coefficients, highest power first (`deg + 1`, or `(deg + 1) × k` for a 2-D `y`).
    pub coeffs: Array<T>,
    /// The weighted residual sum of squares (see [`linalg::Lstsq`]).
    pub residuals: Array<RealOf<T>>,
    /// The effective rank of the scaled Vandermonde matrix.
    pub rank: usize,
    /// Its singular values.
    pub singular_values: Array<RealOf<T>>,
    /// The cutoff used.
    pub rcond: f64,
    /// The covariance of the coefficients when asked for: `(deg+1) × (deg+1)`, or
    /// `(deg+1) × (deg+1) × k` for a 2-D `y`.
    pub cov: Option<Array<T>>,
}

/// Least-squares polynomial fit with NumPy's full signature (`polyfit(x, y, deg, rcond,
/// full, w, cov)`): the Vandermonde matrix of `x` (1-D) is weighted by `w`, its columns
/// scaled to unit norm, and solved by [`linalg::lstsq_full`]; every output of NumPy's `full`
/// and `cov` forms comes back. `y` is 1-D or 2-D (one fit per column). Mismatched lengths, a
/// negative `rcond`, or a scaled covariance from too few points or a rank-deficient fit are
/// an `Err`.
///
/// ```
/// use cuprite_array::{Array, ops::{polyfit_with, PolyCov, PolyfitOptions}};
/// let x = Array::from_slice(&[0.0f64, 1.0, 2.0, 3.0], &[4])?;
/// let y = Array::from_slice(&[1.0f64, 3.0, 5.0, 8.0], &[4])?;
/// let f = polyfit_with(&x, &y, 1, PolyfitOptions { cov: PolyCov::Scaled, ..Default::default() })?;
/// let c = f.coeffs.to_vec()?;
/// assert!((c[0] - 2.3).abs() < 1e-12 && (c[1] - 0.8).abs() < 1e-12);
/// assert_eq!((f.rank, f.cov.expect("asked for").shape()), (2, &[2, 2][..]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polyfit_with<T: Scalar>(
    x: &Array<T>,
    y: &Array<T>,
    deg: usize,
    opts: PolyfitOptions<'_, T>,
) -> Result<Polyfit<T>> {
    let m = x.len();
    if x.ndim() != 1 || y.shape().first() != Some(&m) || y.ndim() > 2 || m == 0 {
        return Err(Error::Shape(format!(
            "polyfit: needs a non-empty 1-D x and a y (1-D or 2-D) of as many rows, got {:?} \
             and {:?}",
            x.shape(),
            y.shape()
        )));
    }
    let order = deg
        .checked_add(1)
        .ok_or_else(|| Error::InvalidArgument(format!("polyfit: deg = {deg} overflows")))?;
    let rcond = opts.rcond.unwrap_or(m as f64 * T::EPS);
    if rcond.is_nan() || rcond < 0.0 {
        return Err(Error::InvalidArgument(format!(
            "polyfit: rcond = {rcond} must be non-negative"
        )));
    }
    let col = |a: &Array<T>| -> Result<Array<T>> {
        if y.ndim() == 2 {
            a.reshape(&[m, 1])
        } else {
            Ok(a.clone())
        }
    };
    let mut lhs = series::polyvander(x, deg)?.flip(&[-1])?;
    let mut rhs = y.clone();
    if let Some(w) = opts.w {
        if w.shape() != [m] {
            return Err(Error::Shape(format!(
                "polyfit: w of shape {:?} needs shape [{m}] (one weight per point)",
                w.shape()
            )));
        }
        lhs = lhs.try_mul(&w.reshape(&[m, 1])?)?;
        rhs = rhs.try_mul(&col(w)?)?;
    }
    let mag = T::abs_f64(&lhs);
    let scale = mag.try_mul(&mag)?.sum_axes(&[0])?.sqrt().cast::<T>();
    let lhs = lhs.try_div(&scale.reshape(&[1, order])?)?.contiguous()?;
    let r = linalg::lstsq_full(&lhs, &rhs, Some(rcond))?;
    let sc = if y.ndim() == 2 {
        scale.reshape(&[order, 1])?
    } else {
        scale.clone()
    };
    let coeffs = r.x.try_div(&sc)?.contiguous()?;
    let cov = match opts.cov {
        PolyCov::None => None,
        c => Some(covariance(
            &lhs,
            &scale,
            &r.residuals,
            c,
            m,
            order,
            y.ndim(),
        )?),
    };
    Ok(Polyfit {
        coeffs,
        residuals: r.residuals,
        rank: r.rank,
        singular_values: r.s,
        rcond,
        cov,
    })
}

/// NumPy's covariance of a fit: `inv(lhsᵀ·lhs) / outer(scale, scale)`, times the residual
/// variance under [`PolyCov::Scaled`].
fn covariance<T: Scalar>(
    lhs: &Array<T>,
    scale: &Array<T>,
    resid: &Array<RealOf<T>>,
    cov: PolyCov,
    m: usize,
    order: usize,
    ydim: usize,
) -> Result<Array<T>> {
    let base = linalg::inv(&lhs.t().matmul(lhs)?)?.try_div(
        &scale
            .reshape(&[order, 1])?
            .try_mul(&scale.reshape(&[1, order])?)?,
    )?;
    if cov == PolyCov::Unscaled {
        return base.contiguous();
    }
    if m <= order {
        return Err(Error::InvalidArgument(format!(
            "polyfit: {m} points must exceed the order {order} to scale the covariance"
        )));
    }
    if resid.is_empty() {
        return Err(Error::InvalidArgument(
            "polyfit: the fit is rank-deficient, so there are no residuals to scale the \
             covariance by"
                .into(),
        ));
    }
    let fac = resid
        .cast::<T>()
        .try_div(T::from_c64(C::new((m - order) as f64, 0.0)))?;
    if ydim == 2 {
        let k = fac.len();
        base.reshape(&[order, order, 1])?
            .try_mul(&fac.reshape(&[1, 1, k])?)?
            .contiguous()
    } else {
        base.try_mul(&fac.reshape(&[0usize; 0])?)?.contiguous()
    }
}

/// A polynomial in one variable, coefficients highest power first (NumPy's `poly1d`):
/// evaluation, arithmetic, derivatives, integrals and roots. Leading zeros are dropped (at
/// least one coefficient kept), as NumPy does.
///
/// ```
/// use cuprite_array::{Array, ops::Poly1d};
/// let p = Poly1d::new(&Array::from_slice(&[1.0f64, -3.0, 2.0], &[3])?)?; // (x − 1)(x − 2)
/// let x = Array::from_slice(&[0.0f64, 3.0], &[2])?;
/// assert_eq!(p.eval(&x)?.to_vec()?, [2.0, 2.0]);
/// assert_eq!(p.deriv(1)?.coeffs().to_vec()?, [2.0, -3.0]);
/// assert_eq!(p.try_mul(&p)?.order(), 4);
/// let q = Poly1d::from_roots(&Array::from_slice(&[1.0f64, 2.0], &[2])?)?;
/// assert_eq!(q.coeffs().to_vec()?, p.coeffs().to_vec()?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Poly1d<T: Scalar> {
    c: Array<T>,
}

impl<T: Scalar> Poly1d<T> {
    /// The polynomial with coefficients `c` (1-D, or 0-d for a constant; empty: the zero
    /// polynomial), highest power first.
    pub fn new(c: &Array<T>) -> Result<Self> {
        if c.ndim() > 1 {
            return Err(Error::Shape(format!(
                "poly1d: needs 1-D coefficients, got shape {:?}",
                c.shape()
            )));
        }
        let c = c.reshape(&[c.len()])?;
        let v = c.to_vec()?;
        let first = v
            .iter()
            .position(|x| x.to_c64().norm() != 0.0 || x.to_c64().is_nan());
        let c = match first {
            Some(i) => c.slice(&along(1, 0, i, v.len()))?.contiguous()?,
            None => Array::from_slice_on(c.device(), &[T::default()], &[1])?,
        };
        Ok(Poly1d { c })
    }

    /// The monic polynomial with roots `r` (NumPy's `poly1d(r, r=True)`; see [`poly`]).
    pub fn from_roots(r: &Array<T>) -> Result<Self> {
        Poly1d::new(&poly(r)?)
    }

    /// The coefficients, highest power first.
    pub fn coeffs(&self) -> &Array<T> {
        &self.c
    }

    /// The degree (NumPy's `order`).
    pub fn order(&self) -> usize {
        self.c.len() - 1
    }

    /// The value at each element of `x` (NumPy's `p(x)`), fused.
    pub fn eval(&self, x: &Array<T>) -> Result<Array<T>> {
        series::polyval_with(x, &self.c.flip(&[0])?, PolyvalOpts::new().tensor(false))
    }

    /// The roots (see [`roots`]).
    pub fn roots(&self) -> Result<Array<ComplexOf<T>>> {
        roots(&self.c)
    }

    /// The sum, or an `Err` when the devices differ.
    pub fn try_add(&self, o: &Poly1d<T>) -> Result<Poly1d<T>> {
        Poly1d::new(&padded(&self.c, &o.c, false)?)
    }

    /// The difference, or an `Err` when the devices differ.
    pub fn try_sub(&self, o: &Poly1d<T>) -> Result<Poly1d<T>> {
        Poly1d::new(&padded(&self.c, &o.c, true)?)
    }

    /// The product (see [`polymul`]), or an `Err` when the devices differ.
    pub fn try_mul(&self, o: &Poly1d<T>) -> Result<Poly1d<T>> {
        Poly1d::new(&polymul(&self.c, &o.c)?)
    }

    /// The `m`-th derivative (NumPy's `deriv(m)`, `polyder`); past the degree, zero.
    pub fn deriv(&self, m: usize) -> Result<Poly1d<T>> {
        let mut c = self.c.clone();
        for _ in 0..m {
            let n = c.len();
            if n <= 1 {
                return Poly1d::new(&Array::from_slice_on(c.device(), &[T::default()], &[1])?);
            }
            let e: Vec<T> = (1..n)
                .rev()
                .map(|p| T::from_c64(C::new(p as f64, 0.0)))
                .collect();
            let e = Array::from_slice_on(c.device(), &e, &[n - 1])?;
            c = c.slice(&along(1, 0, 0, n - 1))?.try_mul(&e)?;
        }
        Poly1d::new(&c)
    }

    /// The `m`-th antiderivative (NumPy's `integ(m, k)`, `polyint`): `k` holds the
    /// integration constants, the first for the first integration (empty: zeros; one value:
    /// used for every step; else at least `m`).
    pub fn integ(&self, m: usize, k: &[T]) -> Result<Poly1d<T>> {
        if k.len() > 1 && k.len() < m {
            return Err(Error::InvalidArgument(format!(
                "poly1d.integ: {} integration constants for m = {m} (0, 1 or at least m)",
                k.len()
            )));
        }
        let mut c = self.c.clone();
        for step in 0..m {
            let n = c.len();
            let d: Vec<T> = (1..=n)
                .rev()
                .map(|p| T::from_c64(C::new(p as f64, 0.0)))
                .collect();
            let kk = match k.len() {
                0 => T::default(),
                1 => k[0],
                _ => k[step],
            };
            let dev = c.device();
            let tail = Array::from_slice_on(dev, &[kk], &[1])?;
            c = Array::concat(
                &[&c.try_div(&Array::from_slice_on(dev, &d, &[n])?)?, &tail],
                0,
            )?;
        }
        Poly1d::new(&c)
    }
}

/// `a ± b` with the shorter padded by leading zeros.
fn padded<T: Scalar>(a: &Array<T>, b: &Array<T>, sub: bool) -> Result<Array<T>> {
    let n = a.len().max(b.len());
    let pa = a.pad(&[(n - a.len(), 0)], T::default())?;
    let pb = b.pad(&[(n - b.len(), 0)], T::default())?;
    if sub {
        pa.try_sub(&pb)
    } else {
        pa.try_add(&pb)
    }
}
