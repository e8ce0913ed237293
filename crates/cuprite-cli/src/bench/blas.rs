//! Benchmarks of the driver layer's matrix products through `cuprite_driver::blaslt` (the call
//! cuprite-array's matmul makes) and `cuprite_driver::blas`, a fused bias+GELU epilogue against the
//! plain product, the host cost of a warm small cuBLASLt matmul against a raw `cublasLtMatmul`
//! of the same problem, and the dense solvers of `cuprite_driver::solver`.
//!
//! Products are timed with events, `K` back-to-back calls per event pair (enough for about
//! 10 ms), on fresh random data, and reported in TFLOP/s (`2·m·n·k` per product); a sample of
//! the result is checked against the host. Solver figures are milliseconds per call, including
//! the copy of the input the routine overwrites (as `torch.linalg` copies it too). No figure
//! here carries a PyTorch number: `cuprite bench --peers` judges them against the figures of
//! `benches/peers/torch_blas.py` run in the same call (see `super::report::PEER_RULES`).

mod common;
mod solver;

use super::kit::{
    BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit, cool_down,
};
use cuprite_driver::blas::{Blas, ComputeType, Gemm};
use cuprite_driver::blaslt::{BlasLt, Epilogue, Matmul, Tuning};
use cuprite_driver::sys::cublas::{cublasComputeType_t, cublasOperation_t, cudaDataType};
use cuprite_driver::sys::cublaslt as lt;
use cuprite_driver::{DeviceBuffer, Stream};
use half::{bf16, f16};
use std::ffi::c_void;
use std::time::Instant;

use common::{Fill32, own_stream, random, seed, time_on, unit_roundoff};
use solver::{cholesky, eigh, qr, solve, svd};

macro_rules! bench {
    ($name:expr, $f:expr) => {
        Benchmark {
            name: $name,
            group: "blas",
            needs_gpu: true,
            run: $f,
        }
    };
}

/// The BLAS and solver benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        bench!("blas/gemm_bf16_8192", |b| gemm::<bf16>(
            b,
            Shape::square(8192, 2048),
            ComputeType::Default,
            true
        )),
        bench!("blas/gemm_f16_8192", |b| gemm::<f16>(
            b,
            Shape::square(8192, 2048),
            ComputeType::Default,
            true
        )),
        bench!("blas/gemm_tf32_8192", |b| gemm::<f32>(
            b,
            Shape::square(8192, 2048),
            ComputeType::Tf32,
            false
        )),
        bench!("blas/gemm_f32_8192", |b| gemm::<f32>(
            b,
            Shape::square(8192, 2048),
            ComputeType::Default,
            false
        )),
        bench!("blas/gemm_f64_4096", |b| gemm::<f64>(
            b,
            Shape::square(4096, 1024),
            ComputeType::Default,
            false
        )),
        bench!("blas/gemm_bf16_4096x11008x4096", |b| {
            let sh = Shape {
                m: b.size(4096, 1024),
                n: b.size(11008, 2752),
                k: b.size(4096, 1024),
                batch: 1,
            };
            gemm::<bf16>(b, sh, ComputeType::Default, false)
        }),
        bench!("blas/gemm_bf16_batched_32x1024x1024x128", |b| {
            let sh = Shape {
                m: 1024,
                n: 1024,
                k: 128,
                batch: b.size(32, 8),
            };
            gemm::<bf16>(b, sh, ComputeType::Default, false)
        }),
        bench!("blas/bias_gelu_bf16_8192", bias_gelu),
        bench!("blas/lt_host_256_f32", lt_host_time),
        bench!("blas/solve_4096_f64", solve::<f64>),
        bench!("blas/solve_4096_f32", solve::<f32>),
        bench!("blas/cholesky_4096_f64", cholesky),
        bench!("blas/qr_4096_f64", qr),
        bench!("blas/svd_1024_f64", svd),
        bench!("blas/eigh_2048_f64", eigh),
    ]
}

/// The problem of a (batched) product.
#[derive(Clone, Copy, Debug)]
struct Shape {
    m: usize,
    n: usize,
    k: usize,
    batch: usize,
}

impl Shape {
    fn square(full: usize, quick: usize) -> impl Fn(&BenchCtx) -> Shape {
        move |b| {
            let n = b.size(full, quick);
            Shape {
                m: n,
                n,
                k: n,
                batch: 1,
            }
        }
    }

    fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64 * self.batch as f64
    }
}

/// Where a benchmark gets its problem: fixed, or from the run's size setting.
trait ShapeOf {
    fn get(&self, b: &BenchCtx) -> Shape;
}
impl ShapeOf for Shape {
    fn get(&self, _: &BenchCtx) -> Shape {
        *self
    }
}
impl<F: Fn(&BenchCtx) -> Shape> ShapeOf for F {
    fn get(&self, b: &BenchCtx) -> Shape {
        self(b)
    }
}

/// Seconds per call of `f` (which enqueues on `s`), `k` back-to-back calls per event pair
/// ([`super::curves::per_call`]), with `ctx`'s warm-up and repeats.
fn per_call(
    ctx: &BenchCtx,
    s: &Stream,
    k: usize,
    f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    s.context().bind_to_thread()?;
    // SAFETY: `s` is a live stream of the context just bound, and outlives the call.
    unsafe { super::curves::per_call(ctx, s.raw(), k, f) }
}

/// How many back-to-back calls fill about 10 ms, from one warm call timed with events.
fn calls_per_sample(
    ctx: &BenchCtx,
    s: &Stream,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<usize, BenchError> {
    let one = BenchCtx::new(1, 1, ctx.quick);
    let t = time_on(&one, s, &mut f)?.median();
    Ok(((10e-3 / t.max(1e-7)).ceil() as usize).clamp(1, 200))
}

/// Checks 24 random entries of the row-major product `d = a · b` (batch 0) on the host:
/// `|d - ref| ≤ 2·k·u_acc·Σ|a||b| + 2·u_out·|ref|`, `u_acc` that of the compute type.
fn check_product<T: Fill32>(
    s: &Stream,
    sh: &Shape,
    a: &[T],
    b: &[T],
    d: &DeviceBuffer<T>,
    u_acc: f64,
    u_out: f64,
) -> Result<(), BenchError> {
    let got = s.clone_dtoh(&d.slice(..sh.m * sh.n)?)?;
    let mut r = seed();
    for _ in 0..24 {
        r = r.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let (i, j) = ((r >> 20) as usize % sh.m, (r >> 42) as usize % sh.n);
        let (mut acc, mut abs) = (0.0f64, 0.0f64);
        for l in 0..sh.k {
            let p = a[i * sh.k + l].to_f64() * b[l * sh.n + j].to_f64();
            acc += p;
            abs += p.abs();
        }
        let g = got[i * sh.n + j].to_f64();
        let tol = 2.0 * sh.k as f64 * u_acc * abs + 2.0 * u_out * acc.abs();
        if (g - acc).abs() > tol || g.is_nan() {
            return Err(format!("product entry ({i}, {j}) is {g}, want {acc} ± {tol:.3e}").into());
        }
    }
    Ok(())
}

/// A row-major product `D = A · B` through `BlasLt::matmul` (and, with `also_cublas`, the same
/// product through `Blas::gemm` as `Dᵀ = Bᵀ · Aᵀ`), in TFLOP/s.
fn gemm<T: Fill32>(
    b: &mut BenchCtx,
    shape: impl ShapeOf,
    compute: ComputeType,
    also_cublas: bool,
) -> BenchResult {
    let sh = shape.get(b);
    let s = own_stream()?;
    b.status(format!("random {} data", T::NAME));
    let a = random::<T>(sh.m * sh.k * sh.batch);
    let bm = random::<T>(sh.k * sh.n * sh.batch);
    let da = s.clone_htod(&a)?;
    let db = s.clone_htod(&bm)?;
    let mut dd = s.alloc_zeros::<T>(sh.m * sh.n * sh.batch)?;
    let lt = BlasLt::new(&s)?;
    let mm = Matmul {
        compute,
        ..Matmul::<T::Scalar>::row_major(sh.m, sh.n, sh.k).with_batch(sh.batch)
    };
    let mut call = || -> Result<(), BenchError> {
        Ok(lt.matmul(&mm, &da, &db, None, &mut dd, Epilogue::None)?)
    };
    call()?;
    let k = calls_per_sample(b, &s, &mut call)?;
    b.status(format!("cuBLASLt {} × {k}", T::NAME));
    cool_down();
    let samples = per_call(b, &s, k, &mut call)?;
    let (u_acc, u_out) = unit_roundoff::<T>(compute);
    check_product(&s, &sh, &a, &bm, &dd, u_acc, u_out)?;
    let label = if sh.batch > 1 {
        format!(
            "{} batched GEMM {} × ({}×{} · {}×{}), {compute:?} compute",
            T::NAME,
            sh.batch,
            sh.m,
            sh.k,
            sh.k,
            sh.n
        )
    } else {
        format!(
            "{} GEMM {}×{}×{}, {compute:?} compute",
            T::NAME,
            sh.m,
            sh.n,
            sh.k
        )
    };
    let tflop = sh.flops() / 1e12;
    let mut figs = vec![
        Figure::rate(format!("{label} (cuBLASLt)"), "TFLOP/s", tflop, &samples).with_note(format!(
            "row-major, {k} back-to-back calls per event pair; peer: torch.matmul (--peers, \
                 benches/peers/torch_blas.py)"
        )),
    ];
    {
        // The same product on a handle that times cuBLASLt's candidates on the first call (what
        // cuprite-array's matmul does for products this large).
        let tuned = BlasLt::new(&s)?;
        tuned.set_tuning(Some(Tuning::default()));
        let mut dt = s.alloc_zeros::<T>(sh.m * sh.n * sh.batch)?;
        let mut call3 = || -> Result<(), BenchError> {
            Ok(tuned.matmul(&mm, &da, &db, None, &mut dt, Epilogue::None)?)
        };
        let t0 = Instant::now();
        call3()?;
        s.synchronize()?;
        let first_ms = t0.elapsed().as_secs_f64() * 1e3;
        b.status(format!("cuBLASLt tuned {} × {k}", T::NAME));
        cool_down();
        let s3 = per_call(b, &s, k, &mut call3)?;
        check_product(&s, &sh, &a, &bm, &dt, u_acc, u_out)?;
        figs.push(
            Figure::rate(format!("{label} (cuBLASLt, tuned)"), "TFLOP/s", tflop, &s3).with_note(
                format!(
                    "Tuning::default(): {} of the problem's plans tuned; the first call, with \
                     the tuning, took {first_ms:.1} ms",
                    tuned.tuned_plans()
                ),
            ),
        );
    }
    if also_cublas && sh.batch == 1 {
        let blas = Blas::new(&s)?;
        let g = Gemm {
            compute,
            ldc: sh.n,
            lda: sh.k,
            ldb: sh.n,
            ..Gemm::<T::Scalar>::new(sh.n, sh.m, sh.k)
        };
        let mut c2 = s.alloc_zeros::<T>(sh.m * sh.n)?;
        // Row-major D = A·B is column-major Dᵀ = Bᵀ·Aᵀ: B first.
        let mut call2 = || -> Result<(), BenchError> { Ok(blas.gemm(&g, &db, &da, &mut c2)?) };
        call2()?;
        b.status(format!("cuBLAS {} × {k}", T::NAME));
        cool_down();
        let s2 = per_call(b, &s, k, &mut call2)?;
        check_product(&s, &sh, &a, &bm, &c2, u_acc, u_out)?;
        figs.push(
            Figure::rate(format!("{label} (cuBLAS gemm)"), "TFLOP/s", tflop, &s2)
                .with_note("cublasGemmEx through Blas::gemm, same data"),
        );
    }
    Ok(figs)
}

/// `gelu(x · w + bias)` in bf16 as one cuBLASLt call with the BiasGelu epilogue, against the
/// plain product of the same shape, samples interleaved: the epilogue should be nearly free.
fn bias_gelu(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(8192, 2048);
    let sh = Shape {
        m: n,
        n,
        k: n,
        batch: 1,
    };
    let s = own_stream()?;
    b.status("random bf16 data");
    let a = random::<bf16>(n * n);
    let w = random::<bf16>(n * n);
    let bias = random::<bf16>(n);
    let (da, dw, dbias) = (s.clone_htod(&a)?, s.clone_htod(&w)?, s.clone_htod(&bias)?);
    let mut d = s.alloc_zeros::<bf16>(n * n)?;
    let lt = BlasLt::new(&s)?;
    let mm = Matmul::<f32>::row_major(n, n, n);
    let mut fused = || -> Result<(), BenchError> {
        Ok(lt.matmul(&mm, &da, &dw, None, &mut d, Epilogue::BiasGelu(&dbias))?)
    };
    fused()?;
    let k = calls_per_sample(b, &s, &mut fused)?;
    let mut d2 = s.alloc_zeros::<bf16>(n * n)?;
    let one = BenchCtx::new(b.warmup, 1, b.quick);
    let (mut tf, mut tp) = (Vec::new(), Vec::new());
    for _ in 0..b.repeats {
        let fused = || -> Result<(), BenchError> {
            Ok(lt.matmul(&mm, &da, &dw, None, &mut d, Epilogue::BiasGelu(&dbias))?)
        };
        tf.push(per_call(&one, &s, k, fused)?.median());
        let plain = || -> Result<(), BenchError> {
            Ok(lt.matmul(&mm, &da, &dw, None, &mut d2, Epilogue::None)?)
        };
        tp.push(per_call(&one, &s, k, plain)?.median());
    }
    // Spot-check the fused result: gelu(pre + bias), pre within 2·k·u32·Σ|a||w|.
    let got = s.clone_dtoh(&d.slice(..n * n)?)?;
    let mut r = seed();
    for _ in 0..16 {
        r = r.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let (i, j) = ((r >> 20) as usize % n, (r >> 42) as usize % n);
        let (mut acc, mut abs) = (bias[j].to_f64(), bias[j].to_f64().abs());
        for l in 0..n {
            let p = a[i * n + l].to_f64() * w[l * n + j].to_f64();
            acc += p;
            abs += p.abs();
        }
        let c = (2.0 / std::f64::consts::PI).sqrt();
        let want = 0.5 * acc * (1.0 + (c * (acc + 0.044715 * acc.powi(3))).tanh());
        let tol =
            1.2 * 2.0 * n as f64 * 2f64.powi(-24) * abs + 2.0 * 2f64.powi(-8) * want.abs() + 1e-3;
        let g = got[i * n + j].to_f64();
        if (g - want).abs() > tol || g.is_nan() {
            return Err(
                format!("bias+gelu entry ({i}, {j}) is {g}, want {want} ± {tol:.3e}").into(),
            );
        }
    }
    let (sf, sp) = (Samples(tf), Samples(tp));
    let plain = Figure::time(
        format!("bf16 GEMM {n}³, plain (cuBLASLt)"),
        &sp,
        TimeUnit::Ms,
    )
    .with_note(format!(
        "{:.0} TFLOP/s; interleaved with the fused call, {k} calls per event pair",
        sh.flops() / sp.median() / 1e12
    ));
    let fused_fig = Figure::time(
        format!("gelu(x·w + bias) bf16 {n}³, one call with the BiasGelu epilogue"),
        &sf,
        TimeUnit::Ms,
    )
    .with_ceiling("plain GEMM of the same shape (same run)", plain.median)
    .with_target(Target::RatioAtMost(1.03))
    .with_note("peer: F.gelu(F.linear(x, w, bias)) (--peers, benches/peers/torch_blas.py)");
    Ok(vec![fused_fig, plain])
}

/// Host time of a warm 256×256×256 f32 `BlasLt::matmul`, call to enqueued, against a raw
/// `cublasLtMatmul` of the same problem with descriptors and algorithm prepared once (the same
/// handle, stream, workspace), samples interleaved.
fn lt_host_time(b: &mut BenchCtx) -> BenchResult {
    const N: usize = 256;
    let s = own_stream()?;
    let a = random::<f32>(N * N);
    let bm = random::<f32>(N * N);
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&bm)?);
    let mut d = s.alloc_zeros::<f32>(N * N)?;
    let d_raw = s.alloc_zeros::<f32>(N * N)?;
    let handle = BlasLt::new(&s)?;
    let mm = Matmul::<f32>::col_major(N, N, N);
    handle.matmul(&mm, &da, &db, None, &mut d, Epilogue::None)?;
    let raw = RawLt::new(&handle, N)?;
    let (pa, pb, pd) = (da.device_ptr(), db.device_ptr(), d_raw.device_ptr());
    let raw_call = || raw.call(pa, pb, pd, s.raw());
    raw_call()?;
    s.synchronize()?;
    if s.clone_dtoh(&d)? != s.clone_dtoh(&d_raw)? {
        return Err("cuprite and raw cuBLASLt products differ".into());
    }
    let iters = b.size(200, 50);
    let sample = |f: &mut dyn FnMut() -> Result<(), BenchError>| -> Result<f64, BenchError> {
        s.synchronize()?;
        let t = Instant::now();
        for _ in 0..iters {
            f()?;
        }
        let dt = t.elapsed().as_secs_f64() / iters as f64;
        s.synchronize()?;
        Ok(dt)
    };
    let mut ours = || -> Result<(), BenchError> {
        Ok(handle.matmul(&mm, &da, &db, None, &mut d, Epilogue::None)?)
    };
    let mut rawf = || -> Result<(), BenchError> { raw_call() };
    for _ in 0..b.warmup.max(1) {
        sample(&mut rawf)?;
        sample(&mut ours)?;
    }
    let (mut tr, mut to) = (Vec::new(), Vec::new());
    for _ in 0..b.repeats {
        tr.push(sample(&mut rawf)?);
        to.push(sample(&mut ours)?);
    }
    let raw_fig = Figure::time(
        "raw cublasLtMatmul 256³ f32 (prepared descriptors)",
        &Samples(tr),
        TimeUnit::Us,
    );
    let fig = Figure::time(
        "host time of a warm BlasLt::matmul 256³ f32, call to enqueued",
        &Samples(to),
        TimeUnit::Us,
    )
    .with_ceiling("raw cublasLtMatmul (same run)", raw_fig.median)
    .with_target(Target::RatioAtMost(1.2))
    .with_note(format!(
        "{iters} calls per sample after a sync, interleaved with the raw calls; includes \
         argument checks, the plan lookup and stream tracking"
    ));
    Ok(vec![fig, raw_fig])
}

/// A column-major f32 `n³` cuBLASLt problem prepared once through `cuprite-sys`.
struct RawLt {
    handle: lt::cublasLtHandle_t,
    desc: lt::cublasLtMatmulDesc_t,
    layout: lt::cublasLtMatrixLayout_t,
    algo: lt::cublasLtMatmulAlgo_t,
    workspace: DeviceBuffer<u8>,
}

fn ltcheck(
    r: Result<cuprite_driver::sys::cublas::cublasStatus_t, cuprite_driver::sys::LoadError>,
    what: &str,
) -> Result<(), BenchError> {
    match r {
        Ok(st) if st.is_success() => Ok(()),
        Ok(st) => Err(format!("{what} failed: {:?}", st.name()).into()),
        Err(e) => Err(e.into()),
    }
}

impl RawLt {
    fn new(owner: &BlasLt, n: usize) -> Result<RawLt, BenchError> {
        let s = owner.stream();
        // SAFETY: scratch space handed to cuBLASLt only.
        let workspace = unsafe { s.alloc::<u8>(owner.workspace_bytes()) }?;
        let mut desc = std::ptr::null_mut();
        let mut layout = std::ptr::null_mut();
        // SAFETY: valid out-pointers and plain values; the context is current (bound by
        // the allocation above).
        unsafe {
            ltcheck(
                lt::cublasLtMatmulDescCreate(
                    &mut desc,
                    cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    cudaDataType::CUDA_R_32F,
                ),
                "cublasLtMatmulDescCreate",
            )?;
            let op = cublasOperation_t::CUBLAS_OP_N.0;
            for attr in [
                lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
                lt::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB,
            ] {
                ltcheck(
                    lt::cublasLtMatmulDescSetAttribute(desc, attr, (&op as *const i32).cast(), 4),
                    "cublasLtMatmulDescSetAttribute",
                )?;
            }
            ltcheck(
                lt::cublasLtMatrixLayoutCreate(
                    &mut layout,
                    cudaDataType::CUDA_R_32F,
                    n as u64,
                    n as u64,
                    n as i64,
                ),
                "cublasLtMatrixLayoutCreate",
            )?;
            let mut pref = std::ptr::null_mut();
            ltcheck(
                lt::cublasLtMatmulPreferenceCreate(&mut pref),
                "cublasLtMatmulPreferenceCreate",
            )?;
            let ws = workspace.len() as u64;
            ltcheck(
                lt::cublasLtMatmulPreferenceSetAttribute(
                    pref,
                    lt::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    (&ws as *const u64).cast(),
                    8,
                ),
                "cublasLtMatmulPreferenceSetAttribute",
            )?;
            let mut result = lt::cublasLtMatmulHeuristicResult_t::default();
            let mut count = 0;
            ltcheck(
                lt::cublasLtMatmulAlgoGetHeuristic(
                    owner.raw(),
                    desc,
                    layout,
                    layout,
                    layout,
                    layout,
                    pref,
                    1,
                    &mut result,
                    &mut count,
                ),
                "cublasLtMatmulAlgoGetHeuristic",
            )?;
            let _ = lt::cublasLtMatmulPreferenceDestroy(pref);
            if count < 1 {
                return Err("no cuBLASLt algorithm for the raw 256³ problem".into());
            }
            Ok(RawLt {
                handle: owner.raw(),
                desc,
                layout,
                algo: result.algo,
                workspace,
            })
        }
    }

    fn call(
        &self,
        a: u64,
        b: u64,
        d: u64,
        stream: cuprite_driver::sys::driver::CUstream,
    ) -> Result<(), BenchError> {
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: live descriptors of an n³ f32 problem; a, b, d are n² f32 device buffers
        // that outlive the call's work (the caller synchronises before dropping them).
        unsafe {
            ltcheck(
                lt::cublasLtMatmul(
                    self.handle,
                    self.desc,
                    (&alpha as *const f32).cast(),
                    a as *const c_void,
                    self.layout,
                    b as *const c_void,
                    self.layout,
                    (&beta as *const f32).cast(),
                    d as *const c_void,
                    self.layout,
                    d as *mut c_void,
                    self.layout,
                    &self.algo,
                    self.workspace.device_ptr() as *mut c_void,
                    self.workspace.len(),
                    stream,
                ),
                "cublasLtMatmul",
            )
        }
    }
}

impl Drop for RawLt {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once; the handle belongs to the BlasLt.
        unsafe {
            let _ = lt::cublasLtMatrixLayoutDestroy(self.layout);
            let _ = lt::cublasLtMatmulDescDestroy(self.desc);
        }
    }
}
