//! The CPU side: the matrix on the host and the faer routines behind each decomposition.

use super::checks::{check_pivots, sign_and_log};
use super::real::{RealOf, Scalar, from_f64};
use crate::array::Array;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::storage::Storage;
use num_complex::Complex;

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{Mat, MatRef, Side};

/// The row-major elements of a matrix on the CPU.
pub(super) fn host<T: Scalar>(a: &Array<T>) -> Result<Vec<T>> {
    let s = a.contiguous_storage()?;
    match &*s {
        Storage::Host(h) => Ok(bytemuck::cast_slice::<u8, T>(h.bytes()).to_vec()),
        Storage::Cuda(_) => Err(Error::DeviceMismatch(
            "a host matrix was expected on the CPU backend".into(),
        )),
    }
}

pub(super) fn cpu_array<T: crate::dtype::Element>(v: &[T], shape: &[usize]) -> Result<Array<T>> {
    Array::from_slice_on(Device::CPU, v, shape)
}

pub(super) fn view<T: Scalar>(v: &[T], m: usize, n: usize) -> MatRef<'_, T> {
    MatRef::from_row_major_slice(v, m, n)
}

pub(super) fn rows<T: Scalar>(m: MatRef<'_, T>) -> Vec<T> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            v.push(m[(i, j)]);
        }
    }
    v
}

/// The LU factorisation, or `Err` at the first exactly zero pivot.
pub(super) fn lu<T: Scalar>(
    call: &str,
    v: &[T],
    n: usize,
) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
    let lu = view(v, n, n).partial_piv_lu();
    let u = lu.U();
    let diag: Vec<f64> = (0..n).map(|i| u[(i, i)].to_c64().norm()).collect();
    check_pivots(call, &diag)?;
    Ok(lu)
}

pub(super) fn solve<T: Scalar>(a: &[T], n: usize, b: &[T], k: usize) -> Result<Vec<T>> {
    let lu = lu("solve", a, n)?;
    let x: Mat<T> = lu.solve(view(b, n, k));
    Ok(rows(x.as_ref()))
}

pub(super) fn inv<T: Scalar>(a: &[T], n: usize) -> Result<Vec<T>> {
    let lu = lu("inv", a, n)?;
    Ok(rows(lu.inverse().as_ref()))
}

/// `(sign, log|det|)`, the sign of modulus 1 (±1 for a real matrix); `(0, -inf)` for a
/// singular matrix.
pub(super) fn slogdet<T: Scalar>(a: &[T], n: usize) -> (Complex<f64>, f64) {
    let lu = view(a, n, n).partial_piv_lu();
    let u = lu.U();
    let (fwd, _) = lu.P().arrays();
    let diag: Vec<Complex<f64>> = (0..n).map(|i| u[(i, i)].to_c64()).collect();
    sign_and_log(&diag, perm_sign(fwd))
}

pub(super) fn cholesky<T: Scalar>(a: &[T], n: usize) -> Result<Vec<T>> {
    let llt = view(a, n, n).llt(Side::Lower).map_err(|e| match e {
        // faer's pivot index counts from 0; the failing leading minor is one larger (the
        // words of the CUDA path, where cuSOLVER reports the order).
        faer::linalg::solvers::LltError::NonPositivePivot { index } => {
            Error::NotPositiveDefinite(format!(
                "cholesky: the leading minor of order {} is not positive definite",
                index + 1
            ))
        }
    })?;
    Ok(rows(llt.L()))
}

pub(super) fn qr<T: Scalar>(a: &[T], m: usize, n: usize) -> (Vec<T>, Vec<T>) {
    let qr = view(a, m, n).qr();
    let q = qr.compute_thin_Q();
    let k = m.min(n);
    let r = qr.R();
    let mut rv = Vec::with_capacity(k * n);
    for i in 0..k {
        for j in 0..n {
            rv.push(if j >= i { r[(i, j)] } else { T::default() });
        }
    }
    (rows(q.as_ref()), rv)
}

/// `U`, the singular values and `Vᴴ`, each row-major.
type HostSvd<T> = (Vec<T>, Vec<RealOf<T>>, Vec<T>);

pub(super) fn svd<T: Scalar>(a: &[T], m: usize, n: usize) -> Result<HostSvd<T>> {
    let s = view(a, m, n).thin_svd().map_err(|_| {
        Error::InvalidArgument(format!(
            "svd of a {m} × {n} matrix did not converge (faer's iteration limit)"
        ))
    })?;
    let k = m.min(n);
    let sv = (0..k).map(|i| real(s.S()[i])).collect();
    // Vᴴ row by row.
    let v = s.V();
    let mut vh = Vec::with_capacity(v.ncols() * v.nrows());
    for i in 0..v.ncols() {
        for j in 0..v.nrows() {
            vh.push(T::from_c64(v[(j, i)].to_c64().conj()));
        }
    }
    Ok((rows(s.U()), sv, vh))
}

pub(super) fn eigh<T: Scalar>(a: &[T], n: usize) -> Result<(Vec<RealOf<T>>, Vec<T>)> {
    // faer sizes its scratch from `n - 1`: an empty matrix has no eigenpairs to ask for.
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let e = view(a, n, n).self_adjoint_eigen(Side::Lower).map_err(|_| {
        Error::InvalidArgument(format!(
            "eigh of a {n} × {n} matrix did not converge (faer's iteration limit)"
        ))
    })?;
    // Ascending eigenvalues, their vectors as columns.
    let mut order: Vec<usize> = (0..n).collect();
    let w: Vec<f64> = (0..n).map(|i| e.S()[i].to_c64().re).collect();
    order.sort_by(|&i, &j| w[i].total_cmp(&w[j]));
    let u = e.U();
    let mut v = Vec::with_capacity(n * n);
    for i in 0..n {
        for &j in &order {
            v.push(u[(i, j)]);
        }
    }
    Ok((order.iter().map(|&i| from_f64(w[i])).collect(), v))
}

/// The real value `x` (a singular value or an eigenvalue held as `T`) as the real type.
fn real<T: Scalar>(x: T) -> RealOf<T> {
    from_f64(x.to_c64().re)
}

pub(super) fn perm_sign(fwd: &[usize]) -> f64 {
    let mut seen = vec![false; fwd.len()];
    let mut sign = 1.0;
    for s in 0..fwd.len() {
        if seen[s] {
            continue;
        }
        let mut len = 0;
        let mut j = s;
        while !seen[j] {
            seen[j] = true;
            j = fwd[j];
            len += 1;
        }
        if len % 2 == 0 {
            sign = -sign;
        }
    }
    sign
}
