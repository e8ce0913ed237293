//! Polynomials with coefficients highest power first (NumPy's `polyval`, `polyfit`,
//! `vander`, `polyadd`, `polysub`): Horner's rule as one fused kernel, fits by least squares
//! on the Vandermonde matrix (a library call).

use crate::array::Array;
use crate::dtype::{Float, Numeric, Ordered};
use crate::error::{Error, Result};
use crate::ops::linalg::Scalar;
use crate::ops::stacking::along;

/// The value at each `x` of the polynomial with coefficients `p`, highest power first
/// (NumPy's `polyval`; Horner's rule, fused: `p` entries are read as views).
///
/// ```
/// use cuprite_array::{Array, ops::polyval};
/// let p = Array::from_slice(&[3.0f64, 0.0, 1.0], &[3])?; // 3x² + 1
/// let x = Array::from_slice(&[1.0f64, 2.0], &[2])?;
/// assert_eq!(polyval(&p, &x)?.to_vec()?, vec![4.0, 13.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polyval<T: Numeric + Ordered>(p: &Array<T>, x: &Array<T>) -> Result<Array<T>> {
    if p.ndim() != 1 {
        return Err(Error::Shape(format!(
            "polyval needs 1-D coefficients, got shape {:?}",
            p.shape()
        )));
    }
    let mut y = Array::<T>::zeros(x.shape()).to_device(x.device())?;
    for i in 0..p.len() {
        let c = p.slice(&along(1, 0, i, i + 1))?.reshape(&[0usize; 0])?;
        y = y.try_mul(x)?.try_add(&c)?;
    }
    Ok(y)
}

/// The Vandermonde matrix of 1-D `x` with `n` columns, powers decreasing: column `j` is
/// `x^(n-1-j)` (NumPy's `vander`).
///
/// ```
/// use cuprite_array::{Array, ops::vander};
/// let x = Array::from_slice(&[2.0f64, 3.0], &[2])?;
/// assert_eq!(vander(&x, 3)?.to_vec()?, vec![4.0, 2.0, 1.0, 9.0, 3.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn vander<T: Numeric + Ordered>(x: &Array<T>, n: usize) -> Result<Array<T>> {
    if x.ndim() != 1 {
        return Err(Error::Shape(format!(
            "vander needs a 1-D array, got shape {:?}",
            x.shape()
        )));
    }
    crate::shape::checked_numel(&[x.len(), n])?;
    // Exponents n-1, ..., 0 (computed in i64, then cast).
    let e: Array<T> = crate::device::with_device(x.device(), || -> Result<Array<T>> {
        Ok((Array::full(&[], n as i64 - 1) - Array::arange_len(n)?).cast::<T>())
    })?;
    let col = x.reshape(&[x.len(), 1])?;
    let r = col.broadcast_to(&[x.len(), n])?.pow(&e.reshape(&[1, n])?);
    // x⁰ is 1, 0⁰ included.
    let z = Array::select(
        &e.reshape(&[1, n])?.equal(T::default()),
        T::from_scalar(crate::dtype::Scalar::U64(1)),
        &r,
    )?;
    z.eval()?;
    Ok(z)
}

/// The least-squares polynomial of degree `deg` through `(x, y)`, coefficients highest power
/// first (NumPy's `polyfit` without weights; solved by [`lstsq`](crate::linalg::lstsq)).
///
/// ```
/// use cuprite_array::{Array, ops::polyfit};
/// let x = Array::from_slice(&[0.0f64, 1.0, 2.0, 3.0], &[4])?;
/// let y = Array::from_slice(&[1.0f64, 3.0, 5.0, 7.0], &[4])?;
/// let p = polyfit(&x, &y, 1)?.to_vec()?;
/// assert!((p[0] - 2.0).abs() < 1e-10 && (p[1] - 1.0).abs() < 1e-10);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polyfit<T: Scalar + Float>(x: &Array<T>, y: &Array<T>, deg: usize) -> Result<Array<T>> {
    if x.ndim() != 1 || y.shape().first() != Some(&x.len()) || y.ndim() > 2 {
        return Err(Error::Shape(format!(
            "polyfit needs 1-D x and y (or 2-D y) of one length, got {:?} and {:?}",
            x.shape(),
            y.shape()
        )));
    }
    let n = deg
        .checked_add(1)
        .ok_or_else(|| Error::InvalidArgument("polyfit degree overflows".into()))?;
    let v = vander(x, n)?;
    crate::ops::linalg::lstsq(&v, y)
}

/// The sum of two polynomials, coefficients highest power first (NumPy's `polyadd`).
///
/// ```
/// use cuprite_array::{Array, ops::polyadd};
/// let a = Array::from_slice(&[1i32, 2], &[2])?;
/// let b = Array::from_slice(&[1i32, 0, 0], &[3])?;
/// assert_eq!(polyadd(&a, &b)?.to_vec()?, vec![1, 1, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polyadd<T: Numeric + Ordered>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let n = a.len().max(b.len());
    let pa = a.pad(&[(n - a.len(), 0)], T::default())?;
    let pb = b.pad(&[(n - b.len(), 0)], T::default())?;
    pa.try_add(&pb)
}

/// The difference of two polynomials (NumPy's `polysub`).
///
/// ```
/// use cuprite_array::{Array, ops::polysub};
/// let a = Array::from_slice(&[1i32, 2], &[2])?;
/// let b = Array::from_slice(&[1i32, 0, 0], &[3])?;
/// assert_eq!(polysub(&a, &b)?.to_vec()?, vec![-1, 1, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn polysub<T: Numeric + Ordered>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let n = a.len().max(b.len());
    let pa = a.pad(&[(n - a.len(), 0)], T::default())?;
    let pb = b.pad(&[(n - b.len(), 0)], T::default())?;
    pa.try_sub(&pb)
}
