//! The conjugate gradient method ([`cg`]) for symmetric positive definite sparse systems,
//! written on the array API: on the CUDA backend every step runs on the device (the step
//! lengths stay 0-d device arrays) and the host waits only at the convergence checks.

use super::{SparseArray, SparseFormat, SparseValue};
use crate::array::{Array, eval_many};
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::ops::linalg::dot;

/// The options of [`cg`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CgOptions {
    /// Stop when `‖b − A·x‖ ≤ tol · ‖b‖` (2-norms).
    pub tol: f64,
    /// The most iterations to run.
    pub max_iter: usize,
    /// Precondition with the inverse of A's diagonal (Jacobi).
    pub jacobi: bool,
    /// Check convergence every this many iterations (each check waits for the device once).
    pub check_every: usize,
}

impl Default for CgOptions {
    /// `tol` 1e-5 (SciPy's `rtol`), 1000 iterations, no preconditioner, a check every
    /// iteration.
    fn default() -> Self {
        CgOptions {
            tol: 1e-5,
            max_iter: 1000,
            jacobi: false,
            check_every: 1,
        }
    }
}

/// What [`cg`] returns.
#[derive(Clone, Debug)]
pub struct CgResult<T: SparseValue> {
    /// The last iterate.
    pub x: Array<T>,
    /// The iterations run.
    pub iterations: usize,
    /// `‖b − A·x‖ / ‖b‖` at the last check (from the recurrence of the residual; 0 for
    /// `b = 0`).
    pub residual: f64,
    /// Whether `residual ≤ tol`.
    pub converged: bool,
}

/// Solves `A·x = b` for a real symmetric positive definite `A` by conjugate gradients from `x0` (zeros when `None`), optionally with a Jacobi
/// preconditioner. Not converging within `max_iter` is not an error: see
/// [`CgResult::converged`]. A zero on A's diagonal with `jacobi` is an `Err` naming its row.
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{CgOptions, SparseArray, cg};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-1.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
///     let r = cg(&a, &b, None, &CgOptions { tol: 1e-12, ..CgOptions::default() })?;
///     assert!(r.converged && r.iterations <= 4);
///     let ax = a.spmv(&r.x)?.to_vec()?;
///     assert!(ax.iter().zip([1.0, 2.0, 3.0, 4.0]).all(|(g, w)| (g - w).abs() < 1e-10));
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cg<T: SparseValue + Float>(
    a: &SparseArray<T>,
    b: &Array<T>,
    x0: Option<&Array<T>>,
    opts: &CgOptions,
) -> Result<CgResult<T>> {
    let [n, cols] = a.shape();
    if n != cols {
        return Err(Error::Shape(format!(
            "cg: the matrix must be square, not {:?}",
            a.shape()
        )));
    }
    if b.shape() != [n] {
        return Err(Error::Shape(format!(
            "cg: b has shape {:?}, expected [{n}]",
            b.shape()
        )));
    }
    if opts.check_every == 0 || opts.tol.is_nan() || opts.tol < 0.0 {
        return Err(Error::InvalidArgument(format!(
            "cg: check_every = {} and tol = {} (need check_every ≥ 1 and tol ≥ 0)",
            opts.check_every, opts.tol
        )));
    }
    let inv_diag = if opts.jacobi {
        Some(inverse_diagonal(a, "cg: Jacobi preconditioner")?)
    } else {
        None
    };
    let precondition = |r: &Array<T>| -> Result<Array<T>> {
        match &inv_diag {
            Some(d) => r.try_mul(d),
            None => Ok(r.clone()),
        }
    };
    let norm = |v: &Array<T>| -> Result<f64> { Ok(dot(v, v)?.item()?.magnitude().sqrt()) };
    let b_norm = norm(b)?;
    let mut x = match x0 {
        Some(x0) if x0.shape() == [n] => x0.clone(),
        Some(x0) => {
            return Err(Error::Shape(format!(
                "cg: x0 has shape {:?}, expected [{n}]",
                x0.shape()
            )));
        }
        None => crate::device::with_device(a.device(), || Array::zeros(&[n])),
    };
    let mut r = match x0 {
        Some(_) => a.spmv_with(
            super::Transpose::None,
            T::from_f64(-1.0),
            &x,
            T::one(),
            Some(b),
        )?,
        None => b.clone(),
    };
    let scale = if b_norm > 0.0 { b_norm } else { 1.0 };
    let mut residual = norm(&r)? / scale;
    let mut iterations = 0;
    if residual <= opts.tol || n == 0 {
        return Ok(CgResult {
            x,
            iterations,
            residual,
            converged: true,
        });
    }
    let mut z = precondition(&r)?;
    let mut p = z.clone();
    let mut rz = dot(&r, &z)?;
    while iterations < opts.max_iter {
        let ap = a.spmv(&p)?;
        let alpha = rz.try_div(&dot(&p, &ap)?)?;
        x = x.try_add(&p.try_mul(&alpha)?)?;
        r = r.try_sub(&ap.try_mul(&alpha)?)?;
        eval_many(&[&x, &r])?;
        iterations += 1;
        if iterations % opts.check_every == 0 || iterations == opts.max_iter {
            residual = norm(&r)? / scale;
            if residual <= opts.tol || !residual.is_finite() {
                break;
            }
        }
        z = precondition(&r)?;
        let rz_new = dot(&r, &z)?;
        p = z.try_add(&p.try_mul(&rz_new.try_div(&rz)?)?)?;
        rz = rz_new;
        eval_many(&[&p, &rz])?;
    }
    Ok(CgResult {
        x,
        iterations,
        residual,
        converged: residual <= opts.tol,
    })
}

/// `1 / A[i, i]` for every row, or an `Err` naming the first row whose diagonal is zero.
pub(super) fn inverse_diagonal<T: SparseValue + Float>(
    a: &SparseArray<T>,
    what: &str,
) -> Result<Array<T>> {
    let h = a.to_format(SparseFormat::Csr)?.host()?;
    let mut d = vec![T::ZERO; h.rows];
    for i in 0..h.rows {
        for p in h.major[i]..h.major[i + 1] {
            if h.minor[p] == i {
                d[i] = h.vals[p];
            }
        }
        if d[i] == T::ZERO {
            return Err(Error::InvalidArgument(format!(
                "{what}: A[{i}, {i}] is zero"
            )));
        }
    }
    let inv: Vec<T> = d
        .iter()
        .map(|&v| T::from_f64(1.0 / v.to_c64().re))
        .collect();
    Array::from_slice_on(a.device(), &inv, &[h.rows])
}
