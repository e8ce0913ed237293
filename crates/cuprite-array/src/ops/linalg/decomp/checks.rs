//! Argument checks shared by the decompositions, and cuSOLVER's conditions as this crate's errors.

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

/// `Err` when a pivot of an LU factorisation is exactly zero: LAPACK's (and NumPy's) rule, the
/// one rule of `solve`, `inv`, `det` and `slogdet` (a zero pivot makes `det` 0 and `slogdet`
/// `(0, -inf)`). A tiny pivot is no error, whatever its size against the others: the matrix
/// `diag(1e-20, 1)` is inverted exactly. `diag` holds the moduli `|u_ii|`.
pub(super) fn check_pivots(call: &str, diag: &[f64]) -> Result<()> {
    match diag.iter().position(|&d| d == 0.0) {
        None => Ok(()),
        Some(i) => Err(Error::Singular(format!(
            "{call}: U[{i}, {i}] of the LU factorisation is exactly zero"
        ))),
    }
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
