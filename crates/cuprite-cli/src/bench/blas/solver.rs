//! The dense solvers of `cuprite_driver::solver` (LU solve, Cholesky, QR, SVD, eigh), in milliseconds
//! per call including the copy of the input each routine overwrites.

use super::common::{Fill32, own_stream, random, time_on, unit_roundoff};
use crate::bench::kit::{BenchCtx, BenchError, BenchResult, Figure, Samples, Target, TimeUnit};
use cuprite_driver::blas::{Blas, ComputeType, Fill, Gemm, Transpose};
use cuprite_driver::solver::{Solver, SvdVectors};
use cuprite_driver::{DeviceBuffer, Stream};
use std::sync::Arc;

/// Fewer samples for the solvers (each call takes milliseconds and synchronises).
fn solver_ctx(b: &BenchCtx) -> BenchCtx {
    BenchCtx::new(1, b.repeats.min(7), b.quick)
}

fn ms_figure(name: String, samples: &Samples, torch_ms: f64, note: &str) -> Figure {
    Figure::time(name, samples, TimeUnit::Ms)
        .with_target(Target::AtMost(torch_ms))
        .with_note(format!(
            "{note}; target: PyTorch's {torch_ms} ms on the H100 (issue #12); same-call PyTorch \
             figure: benches/peers/torch_blas.py"
        ))
}

/// `X = A⁻¹·B` for a 4096² A and 64 right-hand sides: copy A and B, `getrf`, `getrs` (what
/// `torch.linalg.solve` does).
pub(super) fn solve<T: Fill32 + cuprite_driver::solver::SolverElement>(
    b: &mut BenchCtx,
    torch_ms: f64,
) -> BenchResult {
    let (n, nrhs) = (b.size(4096, 1024), 64);
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let a = random::<T>(n * n);
    let rhs = random::<T>(n * nrhs);
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&rhs)?);
    // SAFETY: fully written by the copies before each use.
    let (mut lu, mut x) = unsafe { (s.alloc::<T>(n * n)?, s.alloc::<T>(n * nrhs)?) };
    let mut ipiv = s.alloc_zeros::<i64>(n)?;
    let sc = solver_ctx(b);
    let samples = time_on(&sc, &s, || {
        s.memcpy_dtod(&da, &mut lu)?;
        s.memcpy_dtod(&db, &mut x)?;
        solver.getrf(n, n, &mut lu, n, &mut ipiv)?;
        solver.getrs(Transpose::None, n, nrhs, &lu, n, &ipiv, &mut x, n)?;
        Ok(())
    })?;
    let t_getrf = time_on(&sc, &s, || {
        s.memcpy_dtod(&da, &mut lu)?;
        solver.getrf(n, n, &mut lu, n, &mut ipiv)?;
        Ok(())
    })?;
    s.memcpy_dtod(&db, &mut x)?;
    solver.getrs(Transpose::None, n, nrhs, &lu, n, &ipiv, &mut x, n)?;
    // Residual of the first right-hand side, on the host: ‖A·x − b‖ small against ‖A‖‖x‖.
    let xs = s.clone_dtoh(&x.slice(..n)?)?;
    let (mut r2, mut x2, mut a2) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        let mut acc = -rhs[i].to_f64();
        for j in 0..n {
            acc += a[i + j * n].to_f64() * xs[j].to_f64();
        }
        r2 += acc * acc;
        x2 += xs[i].to_f64().powi(2);
    }
    for v in &a {
        a2 += v.to_f64().powi(2);
    }
    let (_, u) = unit_roundoff::<T>(ComputeType::Default);
    if r2.sqrt() > 100.0 * n as f64 * u * a2.sqrt() * x2.sqrt() {
        return Err(format!("solve residual {:.3e} too large", r2.sqrt()).into());
    }
    Ok(vec![
        ms_figure(
            format!("solve {n}² {} with {nrhs} right-hand sides", T::NAME),
            &samples,
            torch_ms,
            "copy of A and B, getrf (cusolverDnXgetrf), getrs, info checked",
        ),
        Figure::time(
            format!("LU {n}² {} (copy of A and getrf alone)", T::NAME),
            &t_getrf,
            TimeUnit::Ms,
        )
        .with_note(
            "to split the solve figure; PyTorch's torch.linalg.lu_factor in the peer script",
        ),
    ])
}

/// An SPD 4096² f64 matrix made on the device: `M·Mᵀ + n·I`.
fn spd(s: &Arc<Stream>, n: usize) -> Result<DeviceBuffer<f64>, BenchError> {
    let m = s.clone_htod(&random::<f64>(n * n))?;
    let mut eye = vec![0.0f64; n * n];
    for i in 0..n {
        eye[i + i * n] = n as f64;
    }
    let mut c = s.clone_htod(&eye)?;
    let blas = Blas::new(s)?;
    let g = Gemm {
        transb: Transpose::Trans,
        beta: 1.0,
        ldb: n,
        ..Gemm::<f64>::new(n, n, n)
    };
    blas.gemm(&g, &m, &m, &mut c)?;
    Ok(c)
}

pub(super) fn cholesky(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(4096, 1024);
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let a = spd(&s, n)?;
    // SAFETY: fully written by the copy before each use.
    let mut w = unsafe { s.alloc::<f64>(n * n) }?;
    let samples = time_on(&solver_ctx(b), &s, || {
        s.memcpy_dtod(&a, &mut w)?;
        solver.potrf(Fill::Lower, n, &mut w, n)?;
        Ok(())
    })?;
    Ok(vec![ms_figure(
        format!("cholesky {n}² f64"),
        &samples,
        2.29,
        "copy of A, potrf (cusolverDnXpotrf, lower), info checked",
    )])
}

pub(super) fn qr(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(4096, 1024);
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let a = s.clone_htod(&random::<f64>(n * n))?;
    // SAFETY: fully written by the copies before each use.
    let (mut w, mut r) = unsafe { (s.alloc::<f64>(n * n)?, s.alloc::<f64>(n * n)?) };
    let mut tau = s.alloc_zeros::<f64>(n)?;
    let sc = solver_ctx(b);
    let samples = time_on(&sc, &s, || {
        s.memcpy_dtod(&a, &mut w)?;
        solver.geqrf(n, n, &mut w, n, &mut tau)?;
        s.memcpy_dtod(&w, &mut r)?; // R, before orgqr overwrites it
        solver.orgqr(n, n, n, &mut w, n, &tau)?;
        Ok(())
    })?;
    let t_geqrf = time_on(&sc, &s, || {
        s.memcpy_dtod(&a, &mut w)?;
        solver.geqrf(n, n, &mut w, n, &mut tau)?;
        Ok(())
    })?;
    Ok(vec![
        ms_figure(
            format!("qr {n}² f64 (Q and R)"),
            &samples,
            30.6,
            "copy of A, geqrf (cusolverDnXgeqrf), copy of R, orgqr (cusolverDnDorgqr)",
        ),
        Figure::time(
            format!("geqrf {n}² f64 alone (with the copy of A)"),
            &t_geqrf,
            TimeUnit::Ms,
        )
        .with_note("to split the qr figure; PyTorch's torch.geqrf in the peer script"),
    ])
}

pub(super) fn svd(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1024, 512);
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let a = s.clone_htod(&random::<f64>(n * n))?;
    // SAFETY: fully written by the copy / the SVD before each use.
    let (mut w, mut u, mut v) = unsafe {
        (
            s.alloc::<f64>(n * n)?,
            s.alloc::<f64>(n * n)?,
            s.alloc::<f64>(n * n)?,
        )
    };
    let mut sv = s.alloc_zeros::<f64>(n)?;
    let sc = solver_ctx(b);
    let t_gesvd = time_on(&sc, &s, || {
        s.memcpy_dtod(&a, &mut w)?;
        solver.gesvd(
            SvdVectors::Thin,
            n,
            n,
            &mut w,
            n,
            &mut sv,
            Some((&mut u, n)),
            Some((&mut v, n)),
        )?;
        Ok(())
    })?;
    let t_gesvdj = time_on(&sc, &s, || {
        s.memcpy_dtod(&a, &mut w)?;
        solver.gesvdj(
            SvdVectors::Thin,
            n,
            n,
            &mut w,
            n,
            &mut sv,
            Some((&mut u, n)),
            Some((&mut v, n)),
        )?;
        Ok(())
    })?;
    Ok(vec![
        ms_figure(
            format!("svd {n}² f64, QR-based gesvd (U, S, Vᵀ)"),
            &t_gesvd,
            87.6,
            "copy of A, cusolverDnXgesvd (thin)",
        ),
        ms_figure(
            format!("svd {n}² f64, Jacobi gesvdj (U, S, V)"),
            &t_gesvdj,
            87.6,
            "copy of A, cusolverDnDgesvdj (economy)",
        ),
    ])
}

pub(super) fn eigh(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(2048, 512);
    let s = own_stream()?;
    let solver = Solver::new(&s)?;
    let m = random::<f64>(n * n);
    let mut h = vec![0.0f64; n * n];
    for j in 0..n {
        for i in 0..n {
            h[i + j * n] = 0.5 * (m[i + j * n] + m[j + i * n]);
        }
    }
    let a = s.clone_htod(&h)?;
    // SAFETY: fully written by the copy before each use.
    let mut w = unsafe { s.alloc::<f64>(n * n) }?;
    let mut ev = s.alloc_zeros::<f64>(n)?;
    let samples = time_on(&solver_ctx(b), &s, || {
        s.memcpy_dtod(&a, &mut w)?;
        solver.syevd(true, Fill::Lower, n, &mut w, n, &mut ev)?;
        Ok(())
    })?;
    Ok(vec![ms_figure(
        format!("eigh {n}² f64 (values and vectors)"),
        &samples,
        27.9,
        "copy of A, syevd (cusolverDnXsyevd)",
    )])
}
