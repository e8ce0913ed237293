//! LU-based routines: `solve`, `inv`, `slogdet`, `det`.

#[cfg(not(feature = "faer"))]
use super::checks::no_faer;
use super::checks::{check_pivots, sign_and_log, solver_err, square};
#[cfg(feature = "faer")]
use super::cpu::{self, cpu_array, host};
use super::cuda::{blas, dev_array, fresh, owned, solver, span};
use super::real::Scalar;
use super::stack::{matrix_at, per_matrix};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::shape::Layout;
use crate::storage::Storage;
use cuprite_driver::blas::{Fill, Transpose, Triangular};
use cuprite_driver::solver::LuPivots;
use num_complex::Complex;
use std::sync::Arc;

/// Solves `a · x = b` for `x` (`a` square `n × n`; `b` `n` or `n × k`), by LU with partial
/// pivoting (cuSOLVER `getrf`, then two cuBLAS triangular solves; faer on the CPU). A
/// singular `a` (an exactly zero pivot) is [`Error::Singular`]. For a stack `a` of shape
/// `(..., n, n)`, `b` is `n` (one right-hand side for all) or `(..., n, k)` with the same
/// leading axes.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 1.0, 1.0, 3.0], &[2, 2])?;
/// let b = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 5.0], &[2])?;
/// let x = linalg::solve(&a, &b)?.to_vec()?;
/// assert!((x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12);
/// let singular = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 4.0], &[2, 2])?;
/// assert!(linalg::solve(&singular, &b).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn solve<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    if a.ndim() > 2 {
        return solve_stack(a, b);
    }
    let n = square("solve", a)?;
    crate::array::check_devices(&[&a.node, &b.node])?;
    let (vector, k) = match b.shape() {
        &[r] if r == n => (true, 1),
        &[r, k] if r == n => (false, k),
        s => {
            return Err(Error::Shape(format!(
                "solve: a of shape [{n}, {n}] and b of shape {s:?}: b needs {n} rows (the \
                 contracted axis 1 of a against axis 0 of b)"
            )));
        }
    };
    crate::backend::eager(
        a.device(),
        || {
            #[cfg(not(feature = "faer"))]
            return no_faer("solve");
            #[cfg(feature = "faer")]
            {
                let x = cpu::solve(&host(a)?, n, &host(b)?, k)?;
                let out_shape: Vec<usize> = if vector { vec![n] } else { vec![n, k] };
                cpu_array(&x, &out_shape)
            }
        },
        |ord| {
            let (sv, _) = solver(ord)?;
            // Row-major a is column-major aᵀ: factor aᵀ, then solve (aᵀ)ᵀ·x = b.
            let f = fresh(a)?;
            // b as a column-major n × k matrix: the row-major elements of bᵀ.
            let bt = if vector { b.reshape(&[1, n])? } else { b.t() };
            let x = owned(&bt)?;
            let mut piv = LuPivots::new(sv.stream(), n, n)?;
            let f = Arc::new(Storage::Cuda(f));
            let Storage::Cuda(fb) = &*f else {
                unreachable!("made as a device buffer above")
            };
            let (mut fs, mut xs) = (span::<T>(fb)?, span::<T>(&x)?);
            sv.getrf(n, n, &mut fs, n.max(1), &mut piv)
                .map_err(|e| solver_err("solve", e))?;
            // The pivots, read back (n values, the diagonal of the factor) for the negligible test.
            let diag = Array::<T>::from_storage(
                f.clone(),
                Layout {
                    offset: 0,
                    strides: [n as isize + 1][..].into(),
                },
                &[n],
                a.device(),
            )
            .to_vec()?;
            let diag: Vec<f64> = diag.into_iter().map(|d| d.to_c64().norm()).collect();
            check_pivots("solve", &diag)?;
            // aᵀ = P·L·U, so a = Uᵀ·Lᵀ·Pᵀ: two triangular solves on b (cuBLAS `trsm`, as PyTorch
            // does for large matrices: faster than cuSOLVER's `getrs`), then x = P·z, a gather of rows
            // whose order comes from the pivots (read back and checked by getrf).
            let order = pivot_order(piv.values())?;
            let bl = blas(ord)?;
            let one =
                <<T as cuprite_driver::blas::Element>::Scalar as cuprite_driver::blas::Scalar>::ONE;
            for (fill, unit) in [(Fill::Upper, false), (Fill::Lower, true)] {
                let tri = Triangular {
                    left: true,
                    fill,
                    trans: Transpose::Trans,
                    unit_diagonal: unit,
                };
                bl.trsm(tri, n, k, one, &fs, n.max(1), &mut xs, n.max(1))
                    .map_err(|e| solver_err("solve", e))?;
            }
            let _ = (fs, xs);
            // x holds column-major n × k (the row-major k × n transpose) of z; x = P·z takes z's rows
            // (x's columns) in `order`.
            let zt = dev_array::<T>(x, &[k, n], a.device());
            let order = Array::<i64>::from_slice_on(a.device(), &order, &[n])?;
            let xt = zt.index_select(1, &order)?;
            if vector { xt.reshape(&[n]) } else { Ok(xt.t()) }
        },
    )
}

/// The row order of `P·z` for the pivots of `getrf` (1-based, row `i` swapped with row
/// `pivots[i]` in turn): `(P·z)[r] = z[order[r]]`. P is the product of those swaps in order,
/// so applied to z the last swap acts first.
fn pivot_order(pivots: &[i64]) -> Result<Vec<i64>> {
    let n = pivots.len();
    let mut order: Vec<i64> = (0..n as i64).collect();
    for i in (0..n).rev() {
        let p = pivots[i];
        if p < 1 || p as usize > n {
            return Err(Error::InvalidArgument(format!(
                "solve: getrf returned pivot {p} for row {} of {n}",
                i + 1
            )));
        }
        order.swap(i, p as usize - 1);
    }
    Ok(order)
}

/// [`solve`] for a stack `a` of shape `(..., n, n)` and `b` of shape `(n,)` (the same right-hand
/// side for every matrix) or `(..., n, k)` with `a`'s leading axes (NumPy 2's rule).
fn solve_stack<T: Scalar>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let s = a.shape();
    let (batch, mn) = s.split_at(s.len() - 2);
    let n = mn[1];
    if mn[0] != n {
        return Err(Error::Shape(format!(
            "solve takes square matrices, was given a stack of shape {s:?}"
        )));
    }
    match b.shape() {
        &[r] if r == n => {
            let [x] = per_matrix("solve", a, |_, m| Ok([solve(m, b)?]))?;
            Ok(x)
        }
        bs if bs.len() == s.len() && bs[..batch.len()] == *batch && bs[batch.len()] == n => {
            let k = bs[bs.len() - 1];
            let count = crate::shape::checked_numel(batch)?;
            let flat = b.reshape(&[count, n, k])?;
            let [x] = per_matrix("solve", a, |i, m| {
                let bi = if count == 0 {
                    crate::device::with_device(a.device(), || Array::zeros(&[n, k]))
                } else {
                    matrix_at(&flat, i)?
                };
                Ok([solve(m, &bi)?])
            })?;
            Ok(x)
        }
        bs => Err(Error::Shape(format!(
            "solve: a stack of shape {s:?} takes b of shape [{n}] or {batch:?} followed by              [{n}, k], not {bs:?}"
        ))),
    }
}

/// The inverse of a square matrix (LU; [`Error::Singular`] for an exactly zero pivot), or of
/// each matrix of a stack `(..., n, n)`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[4.0, 0.0, 0.0, 2.0], &[2, 2])?;
/// assert_eq!(linalg::inv(&a)?.to_vec()?, [0.25, 0.0, 0.0, 0.5]);
/// // A stack of two matrices:
/// let s = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 0.0, 0.0, 2.0, 4.0, 0.0, 0.0, 4.0], &[2, 2, 2])?;
/// assert_eq!(linalg::inv(&s)?.to_vec()?, [0.5, 0.0, 0.0, 0.5, 0.25, 0.0, 0.0, 0.25]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn inv<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    if a.ndim() > 2 {
        let [r] = per_matrix("inv", a, |_, m| Ok([inv(m)?]))?;
        return Ok(r);
    }
    let n = square("inv", a)?;
    crate::backend::eager(
        a.device(),
        || {
            #[cfg(feature = "faer")]
            return cpu_array(&cpu::inv(&host(a)?, n)?, &[n, n]);
            #[cfg(not(feature = "faer"))]
            return no_faer("inv");
        },
        |_| {
            let mut eye = vec![T::default(); n * n];
            for i in 0..n {
                eye[i * n + i] = T::from_c64(Complex::new(1.0, 0.0));
            }
            let i = Array::from_slice_on(a.device(), &eye, &[n, n])?;
            solve(a, &i).map_err(|e| match e {
                Error::Singular(m) => Error::Singular(m.replace("solve", "inv")),
                e => e,
            })
        },
    )
}

/// `(sign, log|det a|)` of a square matrix (NumPy's `slogdet`): `(0, -inf)` when singular.
/// The sign is `±1.0` (`f64`) for a real matrix and a complex number of modulus 1 ([`c64`])
/// for a complex one.
///
/// [`c64`]: crate::c64
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 2.0, 3.0, 0.0], &[2, 2])?;
/// let (s, l) = linalg::slogdet(&a)?;
/// assert_eq!(s, -1.0);
/// assert!((l - 6f64.ln()).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn slogdet<T: Scalar>(a: &Array<T>) -> Result<(T::Wide, f64)> {
    let (sign, log) = sign_log(a)?;
    Ok((T::wide(sign), log))
}

/// [`slogdet`] with the sign as a complex number.
fn sign_log<T: Scalar>(a: &Array<T>) -> Result<(Complex<f64>, f64)> {
    let n = square("slogdet", a)?;
    if n == 0 {
        return Ok((Complex::new(1.0, 0.0), 0.0));
    }
    crate::backend::eager(
        a.device(),
        || {
            #[cfg(feature = "faer")]
            return Ok(cpu::slogdet(&host(a)?, n));
            #[cfg(not(feature = "faer"))]
            return no_faer("slogdet");
        },
        |ord| {
            let (sv, _) = solver(ord)?;
            let f = fresh(a)?;
            let mut piv = LuPivots::new(sv.stream(), n, n)?;
            let r = {
                let mut fs = span::<T>(&f)?;
                sv.getrf(n, n, &mut fs, n, &mut piv)
            };
            match r {
                Ok(()) => {}
                Err(cuprite_driver::Error::SingularMatrix { .. }) => {
                    return Ok((Complex::new(0.0, 0.0), f64::NEG_INFINITY));
                }
                Err(e) => return Err(Error::Cuda(e)),
            }
            // det(aᵀ) = det(a): the diagonal of U and the pivots, read back.
            let lu: Vec<T> = dev_array::<T>(f, &[n, n], a.device()).to_vec()?;
            let pv = piv.values();
            // Each row exchange of the pivoting flips the sign.
            let swaps = (0..n).filter(|&i| pv[i] != i as i64 + 1).count();
            let perm = if swaps % 2 == 0 { 1.0 } else { -1.0 };
            let diag: Vec<Complex<f64>> = (0..n).map(|i| lu[i * n + i].to_c64()).collect();
            Ok(sign_and_log(&diag, perm))
        },
    )
}

/// The determinant of a square matrix (from its LU factorisation; 0 when singular): `f64` for a
/// real matrix, [`c64`](crate::c64) for a complex one.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert!((linalg::det(&a)? + 2.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn det<T: Scalar>(a: &Array<T>) -> Result<T::Wide> {
    let (s, l) = sign_log(a)?;
    Ok(T::wide(if s.norm() == 0.0 { s } else { s * l.exp() }))
}
