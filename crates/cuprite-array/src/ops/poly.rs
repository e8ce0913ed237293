//! NumPy's `numpy.polynomial.polynomial` power series, coefficients in *increasing* powers
//! (`c[0] + c[1]·x + …`): `polyval`, `polyvalfromroots`, `polycompanion`, `polyvander`, and
//! the `polyutils` helpers `as_series`, `trimseq`, `trimcoef`.
//!
//! Evaluations are fused element-wise expressions over the coefficients (read as views);
//! the helpers that depend on the coefficients' values (trimming, the companion matrix)
//! read them back first.
//!
//! ```
//! use cuprite_array::{Array, ops::poly};
//! let c = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?; // 1 + 2x + 3x²
//! let x = Array::from_slice(&[0.0f64, 1.0, 2.0], &[3])?;
//! assert_eq!(poly::polyval(&x, &c)?.to_vec()?, [1.0, 6.0, 17.0]);
//! # Ok::<(), cuprite_array::Error>(())
//! ```

use crate::array::Array;
use crate::dtype::Numeric;
use crate::error::{Error, Result};
use crate::ops::linalg::Scalar;
use crate::ops::stacking::along;
use crate::ops::{PolyvalOpts, SeriesOpts};
use num_complex::Complex;

/// Coefficient `i` of `c` (along axis 0), shaped to broadcast against an `x` of `xdim`
/// dimensions: `c.shape[1:] + (1,)·xdim` under `tensor`, `c.shape[1:]` otherwise.
fn coef<T: Numeric>(c: &Array<T>, i: usize, xdim: usize, tensor: bool) -> Result<Array<T>> {
    let row = c.slice(&along(c.ndim(), 0, i, i + 1))?;
    let mut shape: Vec<usize> = c.shape()[1..].to_vec();
    if tensor {
        shape.extend(std::iter::repeat_n(1, xdim));
    }
    row.reshape(&shape)
}

fn nonempty<T: Numeric>(call: &str, c: &Array<T>) -> Result<()> {
    if c.ndim() == 0 || c.shape()[0] == 0 {
        return Err(Error::Shape(format!(
            "{call}: the coefficients of shape {:?} hold no series (axis 0 must be non-empty)",
            c.shape()
        )));
    }
    Ok(())
}

/// The power series with coefficients `c` (axis 0, increasing powers) at `x`, by Horner's
/// rule, fused (NumPy's `polynomial.polynomial.polyval(x, c)`). For an N-D `c` each column
/// `c[:, j…]` is a series, evaluated at every `x` (result shape `c.shape[1:] + x.shape`);
/// with [`PolyvalOpts::tensor`]`(false)`, `c.shape[1:]` broadcasts against `x` instead.
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// use cuprite_array::ops::PolyvalOpts;
/// let c = Array::from_slice(&[1i64, 0, -1, 1], &[2, 2])?; // columns 1 − x and x
/// let x = Array::from_slice(&[2i64, 3], &[2])?;
/// assert_eq!(poly::polyval(&x, &c)?.to_vec()?, [-1, -2, 2, 3]);
/// assert_eq!(poly::polyval_with(&x, &c, PolyvalOpts::new().tensor(false))?.to_vec()?, [-1, 3]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polyval<T: Numeric>(x: &Array<T>, c: &Array<T>) -> Result<Array<T>> {
    polyval_with(x, c, PolyvalOpts::new())
}

/// [`polyval`] with NumPy's `tensor` ([`PolyvalOpts`]).
pub fn polyval_with<T: Numeric>(x: &Array<T>, c: &Array<T>, opts: PolyvalOpts) -> Result<Array<T>> {
    let tensor = opts.tensor;
    nonempty("polyval", c)?;
    let n = c.shape()[0];
    let mut y = coef(c, n - 1, x.ndim(), tensor)?.try_add(&x.try_mul(T::default())?)?;
    for i in (0..n - 1).rev() {
        y = y.try_mul(x)?.try_add(&coef(c, i, x.ndim(), tensor)?)?;
    }
    Ok(y)
}

/// The polynomial with roots `r` (axis 0) at `x`: `Π (x − r_i)`, fused (NumPy's
/// `polyvalfromroots(x, r)`; [`PolyvalOpts`] as in [`polyval`]).
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// let r = Array::from_slice(&[1.0f64, 2.0], &[2])?;
/// let x = Array::from_slice(&[0.0f64, 3.0], &[2])?;
/// assert_eq!(poly::polyvalfromroots(&x, &r)?.to_vec()?, [2.0, 2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polyvalfromroots<T: Numeric>(x: &Array<T>, r: &Array<T>) -> Result<Array<T>> {
    polyvalfromroots_with(x, r, PolyvalOpts::new())
}

/// [`polyvalfromroots`] with NumPy's `tensor` ([`PolyvalOpts`]).
pub fn polyvalfromroots_with<T: Numeric>(
    x: &Array<T>,
    r: &Array<T>,
    opts: PolyvalOpts,
) -> Result<Array<T>> {
    let tensor = opts.tensor;
    nonempty("polyvalfromroots", r)?;
    let n = r.shape()[0];
    let mut y = x.try_sub(&coef(r, 0, x.ndim(), tensor)?)?;
    for i in 1..n {
        y = y.try_mul(&x.try_sub(&coef(r, i, x.ndim(), tensor)?)?)?;
    }
    Ok(y)
}

/// The companion matrix of the 1-D series `c` (NumPy's `polycompanion`): `n × n` for degree
/// `n = len(c) − 1`, ones on the subdiagonal and `−c[:n]/c[n]` in the last column, whose
/// eigenvalues are the roots. A series of degree below 1 is an `Err`.
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// let c = Array::from_slice(&[6.0f64, -5.0, 1.0], &[3])?; // (x − 2)(x − 3)
/// assert_eq!(poly::polycompanion(&c)?.to_vec()?, [0.0, -6.0, 1.0, 5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polycompanion<T: Scalar>(c: &Array<T>) -> Result<Array<T>> {
    let c = &as_series_with(&[c], SeriesOpts::new().trim(false))?[0];
    if c.len() < 2 {
        return Err(Error::InvalidArgument(format!(
            "polycompanion: the series must have degree at least 1, got {} coefficient(s)",
            c.len()
        )));
    }
    let v: Vec<Complex<f64>> = c.to_vec()?.into_iter().map(|x| x.to_c64()).collect();
    let n = v.len() - 1;
    let lead = v[n];
    let mut m = vec![T::default(); n * n];
    for i in 0..n {
        if i > 0 {
            m[i * n + i - 1] = T::from_c64(Complex::new(1.0, 0.0));
        }
        m[i * n + n - 1] = T::from_c64(-v[i] / lead);
    }
    Array::from_slice_on(c.device(), &m, &[n, n])
}

/// The Vandermonde matrix of increasing powers (NumPy's `polyvander(x, deg)`): shape
/// `x.shape + (deg + 1,)`, `v[..., i] = x^i` (`x⁰ = 1`, also at 0), by repeated products.
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// let x = Array::from_slice(&[2.0f64, 3.0], &[2])?;
/// assert_eq!(poly::polyvander(&x, 2)?.to_vec()?, [1.0, 2.0, 4.0, 1.0, 3.0, 9.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polyvander<T: Numeric>(x: &Array<T>, deg: usize) -> Result<Array<T>> {
    let cols = deg
        .checked_add(1)
        .ok_or_else(|| Error::InvalidArgument(format!("polyvander: deg = {deg} overflows")))?;
    let mut shape = x.shape().to_vec();
    shape.push(cols);
    crate::shape::checked_numel(&shape)?;
    let one = T::from_scalar(crate::dtype::Scalar::U64(1));
    let mut v = vec![x.try_mul(T::default())?.try_add(one)?];
    for i in 1..cols {
        let next = v[i - 1].try_mul(x)?;
        v.push(next);
    }
    let refs: Vec<&Array<T>> = v.iter().collect();
    Array::stack(&refs, -1)
}

/// How many leading coefficients of `v` to keep: through the last whose modulus exceeds
/// `tol` (at least one).
fn kept<T: Scalar>(v: &[T], tol: f64) -> usize {
    v.iter()
        .rposition(|x| x.to_c64().norm() > tol)
        .map_or(1, |i| i + 1)
}

/// NumPy's `polyutils.as_series(alist)`: each array as a 1-D series (a 0-d array becomes
/// length 1), with trailing zeros dropped (at least one coefficient kept; all kept with
/// [`SeriesOpts::trim`]`(false)`). An empty array or one of 2 or more dimensions is an `Err` naming it.
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// let a = Array::from_slice(&[1.0f64, 2.0, 0.0, 0.0], &[4])?;
/// let s = poly::as_series(&[&a, &Array::full(&[], 3.0)])?;
/// assert_eq!((s[0].to_vec()?, s[1].to_vec()?), (vec![1.0, 2.0], vec![3.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn as_series<T: Scalar>(alist: &[&Array<T>]) -> Result<Vec<Array<T>>> {
    as_series_with(alist, SeriesOpts::new())
}

/// [`as_series`] with NumPy's `trim` ([`SeriesOpts`]).
pub fn as_series_with<T: Scalar>(alist: &[&Array<T>], opts: SeriesOpts) -> Result<Vec<Array<T>>> {
    let trim = opts.trim;
    let mut out = Vec::with_capacity(alist.len());
    for (i, a) in alist.iter().enumerate() {
        if a.ndim() > 1 {
            return Err(Error::Shape(format!(
                "as_series: array {i} of shape {:?} is not 1-D",
                a.shape()
            )));
        }
        if a.is_empty() {
            return Err(Error::Shape(format!("as_series: array {i} is empty")));
        }
        let s = a.reshape(&[a.len()])?;
        out.push(if trim { trimseq(&s)? } else { s });
    }
    Ok(out)
}

/// The 1-D series `seq` without its trailing zeros, keeping at least one coefficient
/// (NumPy's `polyutils.trimseq`; an empty series is returned as it is).
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// let a = Array::from_slice(&[0.0f64, 0.0, 0.0], &[3])?;
/// assert_eq!(poly::trimseq(&a)?.to_vec()?, [0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn trimseq<T: Scalar>(seq: &Array<T>) -> Result<Array<T>> {
    if seq.ndim() != 1 {
        return Err(Error::Shape(format!(
            "trimseq: needs a 1-D series, got shape {:?}",
            seq.shape()
        )));
    }
    if seq.is_empty() {
        return Ok(seq.clone());
    }
    let k = kept(&seq.to_vec()?, 0.0);
    seq.slice(&along(1, 0, 0, k))
}

/// The series `c` without its trailing coefficients of modulus at most `tol` (NumPy's
/// `polyutils.trimcoef(c, tol)`; all of them small gives `[0]`). A negative or NaN `tol` is
/// an `Err`.
///
/// ```
/// use cuprite_array::{Array, ops::poly};
/// let c = Array::from_slice(&[2.0f64, -1.0, 1e-3, -1e-5], &[4])?;
/// assert_eq!(poly::trimcoef(&c, 1e-4)?.to_vec()?, [2.0, -1.0, 1e-3]);
/// assert_eq!(poly::trimcoef(&c, 10.0)?.to_vec()?, [0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn trimcoef<T: Scalar>(c: &Array<T>, tol: f64) -> Result<Array<T>> {
    if tol.is_nan() || tol < 0.0 {
        return Err(Error::InvalidArgument(format!(
            "trimcoef: tol = {tol} must be non-negative"
        )));
    }
    let c = &as_series_with(&[c], SeriesOpts::new().trim(false))?[0];
    let v = c.to_vec()?;
    match v.iter().rposition(|x| x.to_c64().norm() > tol) {
        Some(i) => c.slice(&along(1, 0, 0, i + 1)),
        None => Array::from_slice_on(c.device(), &[T::default()], &[1]),
    }
}
