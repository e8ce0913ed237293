//! What follows from the SVD: pseudo-inverse, least squares, rank, and matrix norms.

use super::checks::dims;
use super::factor::svd;
use super::real::{Scalar, to_f64};
use crate::array::Array;
use crate::error::{Error, Result};
use num_complex::Complex;

/// The cutoff below which singular values count as zero: `max(m, n)·eps·s_max`.
pub(super) fn cutoff<T: Scalar>(m: usize, n: usize, smax: f64) -> f64 {
    m.max(n) as f64 * T::EPS * smax
}

/// The Moore–Penrose pseudo-inverse (`n × m` for an `m × n` matrix), from the SVD with
/// singular values below `max(m, n)·eps·s_max` treated as zero: `V·diag(1/s)·Uᴴ`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 0.0, 0.0], &[2, 2])?;
/// assert_eq!(linalg::pinv(&a)?.to_vec()?, [1.0, 0.0, 0.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn pinv<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    let (m, n) = dims("pinv", a)?;
    let (u, s, vt) = svd(a)?;
    let sv = s.to_vec()?;
    let smax = sv.first().map_or(0.0, |x| to_f64(*x));
    let tol = cutoff::<T>(m, n, smax);
    let inv: Vec<T> = sv
        .iter()
        .map(|x| {
            let x = to_f64(*x);
            T::from_c64(Complex::new(if x > tol { 1.0 / x } else { 0.0 }, 0.0))
        })
        .collect();
    let k = sv.len();
    let d = Array::from_slice_on(a.device(), &inv, &[1, k])?;
    // V·diag(1/s)·Uᴴ = (Vᴴ)ᴴ scaled by column, times Uᴴ.
    let vs = T::conj_array(&vt.t()).try_mul(&d)?;
    vs.matmul(&T::conj_array(&u.t()))
}

/// The least-squares solution `x` minimising `‖a·x − b‖₂` (`b` `m` or `m × k`), with the
/// minimum norm when `a` is rank-deficient (from the pseudo-inverse).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// // Fit y = c0 + c1·t through (0, 1), (1, 3), (2, 5).
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2])?;
/// let y = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 3.0, 5.0], &[3])?;
/// let c = linalg::lstsq(&a, &y)?.to_vec()?;
/// assert!((c[0] - 1.0).abs() < 1e-10 && (c[1] - 2.0).abs() < 1e-10);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lstsq<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let (m, n) = dims("lstsq", a)?;
    if b.shape().first() != Some(&m) || b.ndim() > 2 {
        return Err(Error::Shape(format!(
            "lstsq: a of shape [{m}, {n}] and b of shape {:?}: b needs {m} rows (the contracted \
             axis 1 of pinv(a) against axis 0 of b)",
            b.shape()
        )));
    }
    pinv(a)?.matmul(b)
}

/// The numerical rank: the number of singular values above `max(m, n)·eps·s_max`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 4.0], &[2, 2])?;
/// assert_eq!(linalg::matrix_rank(&a)?, 1);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn matrix_rank<T: Scalar>(a: &Array<T>) -> Result<usize> {
    let (m, n) = dims("matrix_rank", a)?;
    let (_, s, _) = svd(a)?;
    let sv: Vec<f64> = s.to_vec()?.into_iter().map(to_f64).collect();
    let smax = sv.first().copied().unwrap_or(0.0);
    let tol = cutoff::<T>(m, n, smax);
    Ok(sv.iter().filter(|&&x| x > tol).count())
}

/// Which norm [`norm`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NormOrd {
    /// The Frobenius norm (the 2-norm of a vector): `sqrt(Σ |x|²)` over every element.
    #[default]
    Fro,
    /// The largest singular value (matrices).
    Spectral,
    /// The sum of the singular values (matrices).
    Nuclear,
    /// The largest column sum of `|x|` (matrices; the 1-norm of a vector).
    One,
    /// The largest row sum of `|x|` (matrices; the largest `|x|` of a vector).
    Inf,
    /// The smallest column sum of `|x|` (matrices; `(Σ 1/|x|)⁻¹` of a vector). NumPy's `-1`.
    NegOne,
    /// The smallest row sum of `|x|` (matrices; the smallest `|x|` of a vector). NumPy's `-inf`.
    NegInf,
    /// The smallest singular value (matrices; `(Σ |x|⁻²)^(−1/2)` of a vector). NumPy's `-2`.
    NegSpectral,
}

/// A matrix or vector norm (see [`NormOrd`]; NumPy's `norm` with `ord` `None`/`"fro"`, `2`,
/// `"nuc"`, `1`, `inf`, `-1`, `-inf`, `-2`; for a vector `Spectral` is the 2-norm).
///
/// ```
/// use cuprite_array::{Array, Device, linalg::{self, NormOrd}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 0.0, 0.0, -4.0], &[2, 2])?;
/// assert_eq!(linalg::norm(&a, NormOrd::Fro)?, 5.0);
/// assert_eq!(linalg::norm(&a, NormOrd::Spectral)?, 4.0);
/// assert_eq!(linalg::norm(&a, NormOrd::One)?, 4.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn norm<T: Scalar>(a: &Array<T>, ord: NormOrd) -> Result<f64> {
    // |x| in f64 (the modulus of a complex element).
    let x = T::abs_f64(a);
    match (ord, a.ndim()) {
        (NormOrd::Fro, _) => Ok((&x * &x).sum()?.item()?.sqrt()),
        (NormOrd::One, 1) => Ok(x.sum()?.item()?),
        (NormOrd::Inf, 1) => Ok(x.max()?.item()?),
        (NormOrd::Spectral, 1) => Ok((&x * &x).sum()?.item()?.sqrt()),
        (NormOrd::NegInf, 1) => Ok(x.min()?.item()?),
        (NormOrd::NegOne, 1) => Ok(1.0 / x.pow(-1.0).sum()?.item()?),
        (NormOrd::NegSpectral, 1) => Ok(1.0 / x.pow(-2.0).sum()?.item()?.sqrt()),
        (NormOrd::NegOne, 2) => Ok(x.sum_axes(&[0])?.min()?.item()?),
        (NormOrd::NegInf, 2) => Ok(x.sum_axes(&[1])?.min()?.item()?),
        (NormOrd::One, 2) => Ok(x.sum_axes(&[0])?.max()?.item()?),
        (NormOrd::Inf, 2) => Ok(x.sum_axes(&[1])?.max()?.item()?),
        (NormOrd::Spectral | NormOrd::Nuclear | NormOrd::NegSpectral, 2) => {
            let (_, s, _) = svd(a)?;
            let s: Vec<f64> = s.to_vec()?.into_iter().map(to_f64).collect();
            Ok(match ord {
                NormOrd::Spectral => s.first().copied().unwrap_or(0.0),
                NormOrd::NegSpectral => s.last().copied().unwrap_or(0.0),
                _ => s.iter().sum(),
            })
        }
        (o, d) => Err(Error::Shape(format!(
            "norm {o:?} of a {d}-D array of shape {:?} is not defined",
            a.shape()
        ))),
    }
}
