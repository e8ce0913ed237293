//! Argument checks shared by the decompositions, and cuSOLVER's conditions as this crate's errors.

use super::real::Scalar;
use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use num_complex::Complex;

/// `(rows, cols)` of a 2-D array, or an `Err` naming the call.
pub(super) fn dims<T: Element>(call: &str, a: &Array<T>) -> Result<(usize, usize)> {
    match a.shape() {
        &[m, n] => Ok((m, n)),
        s => Err(Error::Shape(format!(
            "{call} takes a 2-D matrix, was given shape {s:?} (stacks of matrices: \
             solve, inv, cholesky, qr, svd and eigh)"
        ))),
    }
}

pub(super) fn square<T: Element>(call: &str, a: &Array<T>) -> Result<usize> {
    let (m, n) = dims(call, a)?;
    if m != n {
        return Err(Error::Shape(format!(
            "{call} takes a square matrix, was given shape [{m}, {n}]"
        )));
    }
    Ok(n)
}

/// Maps cuSOLVER's conditions to this crate's.
pub(super) fn solver_err(call: &str, e: cuprite_driver::Error) -> Error {
    match e {
        cuprite_driver::Error::SingularMatrix { index, .. } => Error::Singular(format!(
            "{call}: U[{0}, {0}] of the LU factorisation is exactly zero",
            index - 1
        )),
        cuprite_driver::Error::NotPositiveDefinite { order, .. } => Error::NotPositiveDefinite(
            format!("{call}: the leading minor of order {order} is not positive definite"),
        ),
        e => Error::Cuda(e),
    }
}

/// `Err` when a pivot of an LU factorisation is zero or negligible: `|u_ii| ≤ n·eps·max|u_jj|`
/// (the solution would be dominated by rounding error, or be infinite). `diag` holds the
/// moduli `|u_ii|`.
pub(super) fn check_pivots<T: Scalar>(call: &str, diag: &[f64]) -> Result<()> {
    let big = diag.iter().fold(0.0f64, |m, d| m.max(d.abs()));
    let tol = diag.len() as f64 * T::EPS * big;
    for (i, d) in diag.iter().enumerate() {
        if d.abs() <= tol {
            return Err(Error::Singular(format!(
                "{call}: pivot |U[{i}, {i}]| = {d:e} of the LU factorisation is zero or negligible \
                 (|U[i, i]| ≤ n·eps·max|U[j, j]| = {tol:e})"
            )));
        }
    }
    Ok(())
}

/// `(sign, log|det|)` of a triangular factor's diagonal and the sign of its permutation.
pub(super) fn sign_and_log(diag: &[Complex<f64>], perm: f64) -> (Complex<f64>, f64) {
    let mut sign = Complex::new(perm, 0.0);
    let mut log = 0.0f64;
    for &d in diag {
        let m = d.norm();
        if m == 0.0 {
            return (Complex::new(0.0, 0.0), f64::NEG_INFINITY);
        }
        sign *= d / m;
        log += m.ln();
    }
    // The product of unit numbers drifts off modulus 1 by rounding: back onto the circle.
    (sign / sign.norm(), log)
}

#[cfg(not(feature = "faer"))]
pub(super) fn no_faer<R>(call: &str) -> Result<R> {
    Err(Error::InvalidArgument(format!(
        "{call} on the CPU needs cuprite-array's `faer` feature"
    )))
}
