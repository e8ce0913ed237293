//! Matrix powers, condition numbers and vector norms along an axis (NumPy's
//! `linalg.matrix_power`, `linalg.cond`, `linalg.norm(x, ord, axis)`), composed from GEMM,
//! `inv`, `svd` and fused reductions.

use super::decomp::{Scalar, inv, svd};
use super::products::matmul;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::ops::ReduceOpts;

/// `a` multiplied by itself `k` times by repeated squaring (`k = 0`: the identity; `k < 0`:
/// the power of the inverse), batched over leading axes (NumPy's `linalg.matrix_power`).
///
/// ```
/// use cuprite_array::{Array, linalg};
/// let a = Array::from_slice(&[1.0f64, 1.0, 0.0, 1.0], &[2, 2])?;
/// assert_eq!(linalg::matrix_power(&a, 3)?.to_vec()?, vec![1.0, 3.0, 0.0, 1.0]);
/// assert_eq!(linalg::matrix_power(&a, -1)?.to_vec()?, vec![1.0, -1.0, 0.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn matrix_power<T: Scalar>(a: &Array<T>, k: i64) -> Result<Array<T>> {
    let n = match a.shape() {
        [.., r, c] if r == c => *r,
        s => {
            return Err(Error::Shape(format!(
                "matrix_power needs square matrices in the last two axes, got shape {s:?}"
            )));
        }
    };
    let base = if k < 0 { inv(a)? } else { a.clone() };
    let mut e = k.unsigned_abs();
    let eye = Array::<T>::eye(n)?.to_device(a.device())?;
    let mut result = eye.broadcast_to(a.shape())?;
    let mut sq = base;
    let mut first = true;
    while e > 0 {
        if e & 1 == 1 {
            result = if first {
                sq.clone()
            } else {
                matmul(&result, &sq)?
            };
            first = false;
        }
        e >>= 1;
        if e > 0 {
            sq = matmul(&sq, &sq)?;
        }
    }
    result.contiguous()
}

/// The 2-norm condition number `σ_max / σ_min` of a matrix (NumPy's `linalg.cond(a)`; ∞ for a
/// singular one), from the singular values.
///
/// ```
/// use cuprite_array::{Array, linalg};
/// let a = Array::from_slice(&[2.0f64, 0.0, 0.0, 0.5], &[2, 2])?;
/// assert!((linalg::cond(&a)? - 4.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cond<T: Scalar>(a: &Array<T>) -> Result<f64> {
    if a.ndim() != 2 {
        return Err(Error::Shape(format!(
            "cond needs a matrix, got shape {:?}",
            a.shape()
        )));
    }
    let (_, s, _) = svd(a)?;
    let s = s.cast::<f64>();
    let (hi, lo) = (s.max()?.item()?, s.min()?.item()?);
    Ok(if lo == 0.0 { f64::INFINITY } else { hi / lo })
}

/// Vector `ord`-norms along `axes` (NumPy's `linalg.norm(x, ord, axis)` for vectors): `2.0`
/// the Euclidean norm, `1.0` the sum of magnitudes, `f64::INFINITY` / `-f64::INFINITY` the
/// largest / smallest magnitude, `0.0` the count of non-zeros, any other `p`
/// `(Σ|x|^p)^(1/p)`. One fused reduction.
///
/// ```
/// use cuprite_array::{Array, linalg};
/// let a = Array::from_slice(&[3.0f64, 4.0, 0.0, 1.0], &[2, 2])?;
/// assert_eq!(linalg::norm_axes(&a, 2.0, &[1])?.to_vec()?, vec![5.0, 1.0]);
/// assert_eq!(linalg::norm_axes(&a, f64::INFINITY, &[0])?.to_vec()?, vec![3.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn norm_axes<T: Float>(x: &Array<T>, ord: f64, axes: &[isize]) -> Result<Array<f64>> {
    norm_axes_with(x, ord, axes, ReduceOpts::new())
}

/// [`norm_axes`] with NumPy's `keepdims` ([`ReduceOpts`]).
///
/// ```
/// use cuprite_array::{Array, linalg, ops::ReduceOpts};
/// let a = Array::from_slice(&[3.0f64, 4.0, 0.0, 1.0], &[2, 2])?;
/// let n = linalg::norm_axes_with(&a, 2.0, &[1], ReduceOpts::new().keepdims(true))?;
/// assert_eq!(n.shape(), &[2, 1]);
/// assert_eq!(n.to_vec()?, vec![5.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn norm_axes_with<T: Float>(
    x: &Array<T>,
    ord: f64,
    axes: &[isize],
    opts: ReduceOpts,
) -> Result<Array<f64>> {
    let keepdims = opts.keepdims;
    let m = x.cast::<f64>().abs();
    if ord == 2.0 {
        Ok(m.try_mul(&m)?
            .sum_axes_with(axes, ReduceOpts::new().keepdims(keepdims))?
            .sqrt())
    } else if ord == 1.0 {
        m.sum_axes_with(axes, ReduceOpts::new().keepdims(keepdims))
    } else if ord == f64::INFINITY {
        m.max_axes_with(axes, ReduceOpts::new().keepdims(keepdims))
    } else if ord == f64::NEG_INFINITY {
        m.min_axes_with(axes, ReduceOpts::new().keepdims(keepdims))
    } else if ord == 0.0 {
        Ok(
            m.count_axes_with(axes, ReduceOpts::new().keepdims(keepdims))?
                .cast::<f64>(),
        )
    } else if ord.is_nan() {
        Err(Error::InvalidArgument("norm_axes: ord is NaN".into()))
    } else {
        Ok(m.pow(ord)
            .sum_axes_with(axes, ReduceOpts::new().keepdims(keepdims))?
            .pow(1.0 / ord))
    }
}
