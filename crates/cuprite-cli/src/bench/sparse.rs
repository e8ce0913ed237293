//! Sparse benchmarks: SpMV of the 5-point 2-D Laplacian (CSR, f32) against the device copy
//! bandwidth measured in the same run (the bytes of reading the matrix and both vectors once),
//! SpMM of the same matrix with 16 columns, and 200 iterations of `sparse::cg` on it; SpMV of a
//! random `2^20 × 2^20` matrix with 16 nonzeros per row at uniformly random columns, SpGEMM
//! `A · A` of a random `65536²` matrix of density `1e-3`, and COO → CSR of `2^24` random
//! triplets already on the device (`from_triplet_arrays`: bounds checked, sorted, values at a
//! repeated position summed, as cupyx's `tocsr` of a device COO matrix). The peer figures
//! (cupyx.scipy.sparse, torch.sparse) come from `benches/peers/sparse_peers.py` run in the same
//! call. The random structures are fresh in every run (seeded from the clock).
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
        Benchmark {
            name: "sparse/spmv_random",
            group: "sparse",
            needs_gpu: true,
            run: spmv_random,
        },
        Benchmark {
            name: "sparse/spgemm_random",
            group: "sparse",
            needs_gpu: true,
            run: spgemm_random,
        },
        Benchmark {
            name: "sparse/coo_to_csr",
            group: "sparse",
            needs_gpu: true,
            run: coo_to_csr,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

/// Times `f` (`CALLS` calls per event pair) after a warm call and the optimised build.
fn timed(ctx: &BenchCtx, f: impl FnMut() -> Result<(), BenchError>) -> Result<Samples, BenchError> {
    timed_k(ctx, CALLS, f)
}

/// Times `f` (`k` calls per event pair) after a warm call and the optimised build.
fn timed_k(
    ctx: &BenchCtx,
    k: usize,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::tuning::wait_tier_up();
    let stream = cuprite_array::get_stream(0)?.raw();
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the arrays of the caller were made.
    unsafe { per_call(ctx, stream, k, f) }
}

/// A seed unique to this run: the clock and the process id.
fn fresh_seed(salt: u64) -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ u64::from(std::process::id()).rotate_left(40) ^ salt.rotate_left(20)
}

/// SplitMix64: the benchmarks' host random structures.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n > 0`; the bias of the modulo is below `n / 2^64`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `[0, 1)` with 24 random bits.
    fn unit_f32(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u32 << 24) as f32
    }
}

/// A CSR structure of `n` rows of `n` columns with `per_row` nonzeros in each row (`per_row
/// <= n`): `per_row` columns drawn uniformly from `[0, n - per_row]`, sorted, and each raised to
/// one past its predecessor where it repeats one, so the columns of a row are strictly
/// increasing and below `n`. Row offsets and column indices.
fn random_rows(n: usize, per_row: usize, seed: u64) -> (Vec<i64>, Vec<i64>) {
    let mut rng = SplitMix(seed);
    let mut off = Vec::with_capacity(n + 1);
    let mut idx = Vec::with_capacity(n * per_row);
    let mut row = vec![0usize; per_row];
    off.push(0i64);
    for _ in 0..n {
        for c in row.iter_mut() {
            *c = rng.below(n - per_row + 1);
        }
        row.sort_unstable();
        for k in 1..per_row {
            row[k] = row[k].max(row[k - 1] + 1);
        }
        idx.extend(row.iter().map(|&c| c as i64));
        off.push(idx.len() as i64);
    }
    (off, idx)
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
        .with_note(
            "cuprite's CSR SpMV kernel (two lanes a row for rows of 2 to 7 entries on average); \
             the matrix and both vectors read or written once",
        );
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
        .with_note("cuprite's CSR SpMM kernel (a lane a column), row-major dense operands");
        // The same products through cuSPARSE, for comparison (no peer, no target).
        let (sv, sm) = through_cusparse(|| {
            let sv = timed(ctx, || {
                a.spmv(&x)?.eval()?;
                Ok(())
            })?;
            let sm = timed(ctx, || {
                a.spmm(&b)?.eval()?;
                Ok(())
            })?;
            Ok((sv, sm))
        })?;
        let spmv_ref = Figure::time(
            format!("cuSPARSE SpMV time, Laplacian {g}² "),
            &sv,
            TimeUnit::Ms,
        )
        .with_note(
            "the same SpMV with tuning::set_sparse_kernels(false): cusparseSpMV, default algorithm",
        );
        let spmm_ref = Figure::time(
            format!("cuSPARSE SpMM, Laplacian {g}² times {k} columns "),
            &sm,
            TimeUnit::Ms,
        )
        .with_note(
            "the same SpMM with tuning::set_sparse_kernels(false): cusparseSpMM, CSR_ALG2 (or the \
             default where refused), row-major operands",
        );
        Ok(vec![rate, time, spmm, spmv_ref, spmm_ref])
    })
}

/// Runs `f` with the CSR products of CUDA devices sent through cuSPARSE, then back to
/// cuprite's kernels (also when `f` fails).
fn through_cusparse<R>(f: impl FnOnce() -> Result<R, BenchError>) -> Result<R, BenchError> {
    cuprite_array::tuning::set_sparse_kernels(false);
    let r = f();
    cuprite_array::tuning::set_sparse_kernels(true);
    r
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

fn spmv_random(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 20, 1 << 14);
    let per_row = 16;
    let seed = fresh_seed(1);
    with_device(Device::cuda(0), || {
        let (off, idx) = random_rows(n, per_row, seed);
        let mut rng = SplitMix(seed ^ 0x5eed);
        let val: Vec<f32> = idx.iter().map(|_| rng.unit_f32()).collect();
        let a = SparseArray::from_csr([n, n], &off, &idx, &val)?;
        let nnz = a.nnz();
        let x = Array::<f32>::rand_uniform(&[n], seed)?;
        x.eval()?;
        let s = timed(ctx, || {
            a.spmv(&x)?.eval()?;
            Ok(())
        })?;
        let time = Figure::time(
            format!("SpMV time, random {n}² with {nnz} nonzeros ({per_row} a row, f32, CSR) "),
            &s,
            TimeUnit::Ms,
        )
        .with_note(
            "cuprite's CSR SpMV kernel; columns uniformly random within each row; peer: \
             cupyx.scipy.sparse A @ x on a matrix of the same sizes",
        );
        let s = through_cusparse(|| {
            timed(ctx, || {
                a.spmv(&x)?.eval()?;
                Ok(())
            })
        })?;
        let reference = Figure::time(
            format!("cuSPARSE SpMV time, random {n}² with {nnz} nonzeros "),
            &s,
            TimeUnit::Ms,
        )
        .with_note("the same SpMV with tuning::set_sparse_kernels(false); no peer");
        Ok(vec![time, reference])
    })
}

fn spgemm_random(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(65536, 4096);
    let density = 1e-3;
    let seed = fresh_seed(2);
    with_device(Device::cuda(0), || {
        let a = SparseArray::<f32>::random([n, n], density, seed)?;
        let nnz = a.nnz();
        let mut product_nnz = 0;
        // Each product holds about `nnz² / n` elements: few calls per event pair.
        let s = timed_k(ctx, 3, || {
            let c = a.matmul(&a)?;
            c.values().eval()?;
            product_nnz = c.nnz();
            Ok(())
        })?;
        let time = Figure::time(
            format!("SpGEMM A·A, random {n}² at density {density} ({nnz} nonzeros, f32, CSR) "),
            &s,
            TimeUnit::Ms,
        )
        .with_note(format!(
            "cuSPARSE SpGEMM; the product holds {product_nnz} nonzeros; peer: cupyx.scipy.sparse \
             A @ A on a matrix of the same size and number of nonzeros"
        ));
        Ok(vec![time])
    })
}

fn coo_to_csr(ctx: &mut BenchCtx) -> BenchResult {
    let t = ctx.size(1 << 24, 1 << 16);
    let n = ctx.size(1 << 20, 1 << 12);
    let mut rng = SplitMix(fresh_seed(3));
    let rows: Vec<i32> = (0..t).map(|_| rng.below(n) as i32).collect();
    let cols: Vec<i32> = (0..t).map(|_| rng.below(n) as i32).collect();
    let vals: Vec<f32> = (0..t).map(|_| rng.unit_f32()).collect();
    with_device(Device::cuda(0), || {
        // The triplets live on the device, as cupyx's COO matrix does; each call checks their
        // bounds, sorts them, sums the values at a repeated position and compresses the rows.
        let (r, c, v) = (
            Array::from_slice(&rows, &[t])?,
            Array::from_slice(&cols, &[t])?,
            Array::from_slice(&vals, &[t])?,
        );
        let mut stored = 0;
        let s = timed(ctx, || {
            let a = SparseArray::from_triplet_arrays([n, n], r.clone(), c.clone(), &v)?;
            a.values().eval()?;
            stored = a.nnz();
            Ok(())
        })?;
        let convert = Figure::time(
            format!("COO → CSR, {t} triplets in a {n}² matrix (f32, duplicates summed) "),
            &s,
            TimeUnit::Ms,
        )
        .with_note(format!(
            "SparseArray::from_triplet_arrays of i32 rows and columns and f32 values on the \
             device ({stored} distinct positions): bounds checked, sorted, duplicates summed, \
             rows compressed; peer: cupyx coo_matrix.tocsr() of the same sizes (sorts and sums \
             duplicates on every call)"
        ));
        // The compression alone: a canonical (sorted, summed) COO matrix to CSR.
        let coo = SparseArray::from_coo_arrays([n, n], r.clone(), c.clone(), &v)?;
        let s = timed(ctx, || {
            coo.to_csr()?.values().eval()?;
            Ok(())
        })?;
        let compress = Figure::time(
            format!(
                "to_csr of a canonical COO, {} elements in a {n}² matrix (f32) ",
                coo.nnz()
            ),
            &s,
            TimeUnit::Ms,
        )
        .with_note("cuSPARSE Xcoo2csr of the sorted row indices; no peer");
        Ok(vec![convert, compress])
    })
}
