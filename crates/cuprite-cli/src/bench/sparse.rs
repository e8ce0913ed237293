//! Sparse benchmarks: SpMV of the 5-point 2-D Laplacian (CSR, f32) against the device copy
//! bandwidth measured in the same run (the bytes of reading the matrix and both vectors once),
//! SpMM of the same matrix with 16 columns, and 200 iterations of `sparse::cg` on it. The peer
//! figures (cupyx.scipy.sparse, torch.sparse) come from a peer script run in the same call.
//!
//! Device figures time K back-to-back calls between one pair of events
//! ([`super::curves::per_call`]); `cg` is timed whole (it waits for the device at its
//! convergence checks).

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::sparse::{SolveOpts, SparseArray, cg_with};
use cuprite_array::{Array, Device, with_device};

/// The sparse benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "sparse/spmv_laplacian",
            group: "sparse",
            needs_gpu: true,
            run: spmv_laplacian,
        },
        Benchmark {
            name: "sparse/cg_laplacian",
            group: "sparse",
            needs_gpu: true,
            run: cg_laplacian,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

/// Times `f` (K calls per event pair) after a warm call and the optimised build.
fn timed(
    ctx: &BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::tuning::wait_tier_up();
    let stream = cuprite_array::get_stream(0)?.raw();
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the arrays of the caller were made.
    unsafe { per_call(ctx, stream, CALLS, f) }
}

/// The 5-point Laplacian of a `g × g` grid (Dirichlet boundary) in CSR: offsets, column
/// indices (sorted within each row) and values.
fn laplacian(g: usize) -> (Vec<i64>, Vec<i64>, Vec<f32>) {
    let n = g * g;
    let (mut off, mut idx, mut val) = (
        vec![0i64],
        Vec::with_capacity(5 * n),
        Vec::with_capacity(5 * n),
    );
    for i in 0..g {
        for j in 0..g {
            let p = (i * g + j) as i64;
            let g = g as i64;
            let cells = [
                (i > 0, p - g, -1.0),
                (j > 0, p - 1, -1.0),
                (true, p, 4.0),
                (j + 1 < g as usize, p + 1, -1.0),
                (i + 1 < g as usize, p + g, -1.0),
            ];
            for (keep, q, v) in cells {
                if keep {
                    idx.push(q);
                    val.push(v);
                }
            }
            off.push(idx.len() as i64);
        }
    }
    (off, idx, val)
}

fn spmv_laplacian(ctx: &mut BenchCtx) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let g = ctx.size(2048, 256);
    with_device(Device::cuda(0), || {
        let (off, idx, val) = laplacian(g);
        let n = g * g;
        let a = SparseArray::from_csr([n, n], &off, &idx, &val)?;
        let nnz = a.nnz();
        let x = Array::<f32>::rand_uniform(&[n], 1)?;
        x.eval()?;
        let s = timed(ctx, || {
            a.spmv(&x)?.eval()?;
            Ok(())
        })?;
        // Values and column indices (4 bytes each per element), row offsets, x and y.
        let bytes = (8 * nnz + 4 * (n + 1) + 8 * n) as f64;
        let rate = Figure::rate(
            format!("SpMV, 5-point Laplacian {g}² ({n} rows, {nnz} nonzeros, f32, CSR)"),
            "TB/s",
            bytes / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_target(Target::RatioAtLeast(0.6))
        .with_note("cuSPARSE SpMV; the matrix and both vectors read or written once");
        let time = Figure::time(format!("SpMV time, Laplacian {g}² "), &s, TimeUnit::Ms);
        let k = 16;
        let b = Array::<f32>::rand_uniform(&[n, k], 2)?;
        b.eval()?;
        let s = timed(ctx, || {
            a.spmm(&b)?.eval()?;
            Ok(())
        })?;
        let spmm = Figure::time(
            format!("SpMM, Laplacian {g}² times {k} columns "),
            &s,
            TimeUnit::Ms,
        )
        .with_note("cuSPARSE SpMM, row-major dense operands");
        Ok(vec![rate, time, spmm])
    })
}

fn cg_laplacian(ctx: &mut BenchCtx) -> BenchResult {
    let g = ctx.size(2048, 256);
    let iters = 200;
    with_device(Device::cuda(0), || {
        let (off, idx, val) = laplacian(g);
        let n = g * g;
        let a = SparseArray::from_csr([n, n], &off, &idx, &val)?;
        let b = Array::<f32>::rand_uniform(&[n], 3)?;
        b.eval()?;
        // A tolerance never reached: exactly `iters` iterations, checked every 50.
        let s = timed(ctx, || {
            let r = cg_with(
                &a,
                &b,
                SolveOpts::new().rtol(0.0).maxiter(iters).check_every(50),
            )?;
            r.x.eval()?;
            Ok(())
        })?;
        let time = Figure::time(
            format!("cg, {iters} iterations, Laplacian {g}² (f32) "),
            &s,
            TimeUnit::Ms,
        )
        .with_note("peer: cupyx.scipy.sparse.linalg.cg with maxiter=200");
        Ok(vec![time])
    })
}
