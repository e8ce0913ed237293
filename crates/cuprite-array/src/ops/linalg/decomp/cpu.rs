//! The CPU side: the matrix on the host and the faer routines behind each decomposition.

use super::checks::check_pivots;
use super::real::{Real, to_f64};
use crate::array::Array;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::storage::Storage;

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{Mat, MatRef, Side};

/// The row-major elements of a matrix on the CPU.
pub(super) fn host<T: Real>(a: &Array<T>) -> Result<Vec<T>> {
    let s = a.contiguous_storage()?;
    match &*s {
        Storage::Host(h) => Ok(bytemuck::cast_slice::<u8, T>(h.bytes()).to_vec()),
        Storage::Cuda(_) => Err(Error::DeviceMismatch(
            "a host matrix was expected on the CPU backend".into(),
        )),
    }
}

pub(super) fn cpu_array<T: Real>(v: &[T], shape: &[usize]) -> Result<Array<T>> {
    Array::from_slice_on(Device::CPU, v, shape)
}

pub(super) fn view<T: Real>(v: &[T], m: usize, n: usize) -> MatRef<'_, T> {
    MatRef::from_row_major_slice(v, m, n)
}

pub(super) fn rows<T: Real>(m: MatRef<'_, T>) -> Vec<T> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            v.push(m[(i, j)]);
        }
    }
    v
}

/// The LU factorisation, or `Err` at the first exactly zero pivot.
pub(super) fn lu<T: Real>(
    call: &str,
    v: &[T],
    n: usize,
) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
    let lu = view(v, n, n).partial_piv_lu();
    let u = lu.U();
    let diag: Vec<f64> = (0..n).map(|i| to_f64(u[(i, i)])).collect();
    check_pivots::<T>(call, &diag)?;
    Ok(lu)
}

pub(super) fn solve<T: Real>(a: &[T], n: usize, b: &[T], k: usize) -> Result<Vec<T>> {
    let lu = lu("solve", a, n)?;
    let x: Mat<T> = lu.solve(view(b, n, k));
    Ok(rows(x.as_ref()))
}

pub(super) fn inv<T: Real>(a: &[T], n: usize) -> Result<Vec<T>> {
    let lu = lu("inv", a, n)?;
    Ok(rows(lu.inverse().as_ref()))
}

/// `(sign, log|det|)`; `(0, -inf)` for a singular matrix.
pub(super) fn slogdet<T: Real>(a: &[T], n: usize) -> (f64, f64) {
    let lu = view(a, n, n).partial_piv_lu();
    let u = lu.U();
    let (fwd, _) = lu.P().arrays();
    let mut sign = perm_sign(fwd);
    let mut log = 0.0f64;
    for i in 0..n {
        let d: f64 = to_f64(u[(i, i)]);
        if d == 0.0 {
            return (0.0, f64::NEG_INFINITY);
        }
        if d < 0.0 {
            sign = -sign;
        }
        log += d.abs().ln();
    }
    (sign, log)
}

pub(super) fn cholesky<T: Real>(a: &[T], n: usize) -> Result<Vec<T>> {
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

pub(super) fn qr<T: Real>(a: &[T], m: usize, n: usize) -> (Vec<T>, Vec<T>) {
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

pub(super) fn svd<T: Real>(a: &[T], m: usize, n: usize) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let s = view(a, m, n).thin_svd().map_err(|_| {
        Error::InvalidArgument(format!(
            "svd of a {m} × {n} matrix did not converge (faer's iteration limit)"
        ))
    })?;
    let k = m.min(n);
    let sv: Vec<T> = (0..k).map(|i| s.S()[i]).collect();
    Ok((rows(s.U()), sv, rows(s.V().transpose())))
}

pub(super) fn eigh<T: Real>(a: &[T], n: usize) -> Result<(Vec<T>, Vec<T>)> {
    let e = view(a, n, n).self_adjoint_eigen(Side::Lower).map_err(|_| {
        Error::InvalidArgument(format!(
            "eigh of a {n} × {n} matrix did not converge (faer's iteration limit)"
        ))
    })?;
    // Ascending eigenvalues, their vectors as columns.
    let mut order: Vec<usize> = (0..n).collect();
    let w: Vec<T> = (0..n).map(|i| e.S()[i]).collect();
    order.sort_by(|&i, &j| to_f64(w[i]).total_cmp(&to_f64(w[j])));
    let u = e.U();
    let mut v = Vec::with_capacity(n * n);
    for i in 0..n {
        for &j in &order {
            v.push(u[(i, j)]);
        }
    }
    Ok((order.iter().map(|&i| w[i]).collect(), v))
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
