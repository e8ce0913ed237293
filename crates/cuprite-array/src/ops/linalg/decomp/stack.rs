//! Stacks of matrices: a factorisation of an array of shape `(..., m, n)` is the factorisation
//! of each of its matrices, stacked along the same leading axes (NumPy's rule for
//! `numpy.linalg`). Each matrix goes through the 2-D routine in turn: one library call per
//! matrix, not one batched call.

use super::real::Scalar;
use crate::array::Array;
use crate::device::with_device;
use crate::error::{Error, Result};
use crate::shape::{SliceArg, checked_numel};
use num_complex::Complex;

/// `f` applied to every matrix of `a` (at least 3-D) with its index in the stack, its `K`
/// results stacked: result `j` has the leading axes of `a` followed by the shape `f` gives
/// it. An error of matrix `b` names it. For an empty stack `f` is called once, with index 0 and
/// an identity-like matrix, for the result shapes.
pub(super) fn per_matrix<T: Scalar, const K: usize>(
    call: &str,
    a: &Array<T>,
    f: impl Fn(usize, &Array<T>) -> Result<[Array<T>; K]>,
) -> Result<[Array<T>; K]> {
    per_matrix_to(call, a, f)
}

/// [`per_matrix`] whose results have another element type `U` than the matrices.
pub(super) fn per_matrix_to<T: Scalar, U: Scalar, const K: usize>(
    call: &str,
    a: &Array<T>,
    f: impl Fn(usize, &Array<T>) -> Result<[Array<U>; K]>,
) -> Result<[Array<U>; K]> {
    let s = a.shape().to_vec();
    let (batch, mn) = s.split_at(s.len() - 2);
    let (m, n) = (mn[0], mn[1]);
    let count = checked_numel(batch)?;
    let device = a.device();
    let stacked = |parts: &[Array<U>], one: &[usize]| -> Result<Array<U>> {
        let shape: Vec<usize> = batch.iter().chain(one).copied().collect();
        if parts.is_empty() {
            return Ok(with_device(device, || Array::zeros(&shape)));
        }
        let refs: Vec<&Array<U>> = parts.iter().collect();
        Array::concat(&refs, 0)?.reshape(&shape)
    };
    if count == 0 {
        // No matrix to factor: the result shapes come from one matrix of ones on the diagonal
        // (factored without an error by every routine here).
        let mut v = crate::util::host_vec(m.saturating_mul(n), call)?;
        v.extend((0..m * n).map(|i| {
            if i / n.max(1) == i % n.max(1) {
                T::from_c64(Complex::new(1.0, 0.0))
            } else {
                T::default()
            }
        }));
        let probe = f(0, &Array::from_slice_on(device, &v, &[m, n])?)?;
        let mut out = Vec::with_capacity(K);
        for r in &probe {
            out.push(stacked(&[], r.shape())?);
        }
        return out.try_into().map_err(|_| unreachable_len());
    }
    let flat = a.reshape(&[count, m, n])?;
    let mut parts: Vec<Vec<Array<U>>> = (0..K).map(|_| Vec::with_capacity(count)).collect();
    let mut one: Vec<Vec<usize>> = vec![Vec::new(); K];
    for b in 0..count {
        let r = f(b, &matrix_at(&flat, b)?).map_err(|e| in_matrix(e, call, b, &s))?;
        for (j, x) in r.into_iter().enumerate() {
            one[j] = x.shape().to_vec();
            parts[j].push(x.expand_dims(0)?);
        }
    }
    let mut out = Vec::with_capacity(K);
    for j in 0..K {
        out.push(stacked(&parts[j], &one[j])?);
    }
    out.try_into().map_err(|_| unreachable_len())
}

/// Matrix `i` of `flat`, an array of shape `(count, m, n)`, as an `m × n` array.
pub(super) fn matrix_at<T: Scalar>(flat: &Array<T>, i: usize) -> Result<Array<T>> {
    let s = flat.shape();
    let all = SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    };
    flat.slice(&[SliceArg::Index(i as isize), all, all])?
        .reshape(&[s[1], s[2]])
}

/// The error of a vector of `K` results that is not `K` long (it always is).
fn unreachable_len() -> Error {
    Error::InvalidArgument("a stacked factorisation lost one of its results".into())
}

/// `e` of matrix `b` of a stack of shape `shape`, saying which matrix.
fn in_matrix(e: Error, call: &str, b: usize, shape: &[usize]) -> Error {
    let at = |m: String| format!("{call}: matrix {b} of the stack of shape {shape:?}: {m}");
    match e {
        Error::Singular(m) => Error::Singular(at(m)),
        Error::NotPositiveDefinite(m) => Error::NotPositiveDefinite(at(m)),
        Error::Shape(m) => Error::Shape(at(m)),
        Error::InvalidArgument(m) => Error::InvalidArgument(at(m)),
        e => e,
    }
}
