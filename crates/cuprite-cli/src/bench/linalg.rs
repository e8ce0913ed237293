//! Benchmarks of cuprite-array's matrix products: `Array::matmul` on CUDA (each
//! evaluation one cuBLASLt call on the array stream) at the target GEMM shapes, the
//! automatically fused `gelu(a·w + bias)` against the plain product, the host time of a warm
//! small product against the driver layer's `BlasLt::matmul` of the same problem, and the CPU
//! backend's product against faer called directly.
//!
//! Device figures are event-timed on the array stream, `K` evaluations per event pair; TFLOP/s
//! count `2·m·n·k` per product. No figure here carries a PyTorch number:
//! `cuprite bench --peers` judges them against the figures of `benches/peers/torch_blas.py`
//! run in the same call, whose `--quick` sizes are the ones used here in quick mode.

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::{Array, Device, Element, bf16, f16, with_device};
use std::time::Instant;

macro_rules! bench {
    ($name:expr, $gpu:expr, $f:expr) => {
        Benchmark {
            name: $name,
            group: "array",
            needs_gpu: $gpu,
            run: $f,
        }
    };
}

/// The matrix-product benchmarks of the array layer.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        bench!("array/matmul_bf16_8192", true, |b| gemm::<bf16>(
            b,
            (1, 8192, 8192, 8192),
            false
        )),
        bench!("array/matmul_f16_8192", true, |b| gemm::<f16>(
            b,
            (1, 8192, 8192, 8192),
            false
        )),
        bench!("array/matmul_tf32_8192", true, |b| gemm::<f32>(
            b,
            (1, 8192, 8192, 8192),
            true
        )),
        bench!("array/matmul_f32_8192", true, |b| gemm::<f32>(
            b,
            (1, 8192, 8192, 8192),
            false
        )),
        bench!("array/matmul_f64_4096", true, |b| gemm::<f64>(
            b,
            (1, 4096, 4096, 4096),
            false
        )),
        bench!("array/matmul_bf16_batched", true, |b| gemm::<bf16>(
            b,
            (32, 1024, 1024, 128),
            false
        )),
        bench!("array/matmul_bias_gelu_bf16_8192", true, bias_gelu),
        bench!("array/matmul_host_256", true, host_256),
        bench!("array/cpu_matmul_2048", false, cpu_matmul),
        bench!("array/solve_4096_f64", true, solve::<f64>),
        bench!("array/solve_4096_f32", true, solve::<f32>),
    ]
}

fn gpu() -> Device {
    Device::cuda(0)
}

fn rand<T: Element>(shape: &[usize], seed: u64) -> Result<Array<T>, BenchError> {
    // Uniform in [-1, 1): centred data, as the PyTorch peer figures use randn.
    let x = Array::<f32>::rand_uniform(shape, seed)?;
    let x = x.try_mul(2.0f32)?.try_sub(1.0f32)?;
    Ok(x.cast::<T>())
}

/// Event-timed samples of `k` calls of `f` on the array stream of device 0.
fn on_stream(
    ctx: &BenchCtx,
    k: usize,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    let stream = cuprite_array::get_stream(0)?;
    stream.context().bind_to_thread()?;
    // SAFETY: the array stream of device 0 lives for the whole process; its context is bound.
    unsafe {
        ctx.time_device(stream.raw(), || -> Result<(), BenchError> {
            for _ in 0..k {
                f()?;
            }
            Ok(())
        })
    }
}

/// Calls per sample that fill about 10 ms, from one warm call.
fn calls(ctx: &BenchCtx, f: impl FnMut() -> Result<(), BenchError>) -> Result<usize, BenchError> {
    let one = BenchCtx::new(1, 1, ctx.quick);
    let t = on_stream(&one, 1, f)?.median();
    Ok(((10e-3 / t.max(1e-7)).ceil() as usize).clamp(1, 200))
}

fn gemm<T: Element + cuprite_array::dtype::Numeric>(
    ctx: &mut BenchCtx,
    (batch, m, n, k): (usize, usize, usize, usize),
    tf32: bool,
) -> BenchResult {
    // Quick: the sizes of `cuprite bench blas` and of the peer script's `--quick`: a quarter
    // of each axis of a single product, a quarter of the batch of a batched one; each divided
    // again where the smoke test asks (under a sanitizer).
    let (batch, m, n, k) = if batch > 1 {
        (ctx.size(batch, batch / 4), m, n, k)
    } else {
        (
            1,
            ctx.size(m, m / 4),
            ctx.size(n, n / 4),
            ctx.size(k, k / 4),
        )
    };
    with_device(gpu(), || {
        let (sa, sb) = if batch > 1 {
            (vec![batch, m, k], vec![batch, k, n])
        } else {
            (vec![m, k], vec![k, n])
        };
        let a = rand::<T>(&sa, 1)?;
        let b = rand::<T>(&sb, 2)?;
        a.eval()?;
        b.eval()?;
        cuprite_array::linalg::set_allow_tf32(tf32);
        let r = (|| {
            let mut f = || -> Result<(), BenchError> {
                a.matmul(&b)?.eval()?;
                Ok(())
            };
            f()?;
            let kk = calls(ctx, &mut f)?;
            super::kit::cool_down();
            let s = on_stream(ctx, kk, &mut f)?;
            Ok::<_, BenchError>((kk, s))
        })();
        cuprite_array::linalg::set_allow_tf32(false);
        let (kk, s) = r?;
        let flops = 2.0 * (batch * m * n * k) as f64 * kk as f64;
        let what = if tf32 {
            "TF32".to_string()
        } else {
            T::DTYPE.to_string()
        };
        Ok(vec![
            Figure::rate(
                format!("Array::matmul {what} {batch} × {m}×{k} · {k}×{n} (one cuBLASLt call per evaluation)"),
                "TFLOP/s",
                flops / 1e12,
                &s,
            )
            .with_note(format!(
                "{kk} evaluations per event pair (node, call, output buffer, cuBLASLt); peer: \
                 torch.matmul (--peers, benches/peers/torch_blas.py)"
            )),
        ])
    })
}

/// `linalg::solve` of a 4096² system with 64 right-hand sides (getrf, two triangular solves,
/// a row gather; the factor's diagonal and pivots are read back on the way), whole calls on
/// the array stream; the first right-hand side's residual is checked on the host.
fn solve<T: cuprite_array::linalg::Scalar>(ctx: &mut BenchCtx) -> BenchResult {
    let (n, k) = (ctx.size(4096, 1024), 64);
    with_device(gpu(), || {
        let a = rand::<T>(&[n, n], 6)?;
        let b = rand::<T>(&[n, k], 7)?;
        a.eval()?;
        b.eval()?;
        let mut f = || -> Result<(), BenchError> {
            cuprite_array::linalg::solve(&a, &b)?.eval()?;
            Ok(())
        };
        f()?;
        let s = on_stream(ctx, 1, &mut f)?;
        let x = cuprite_array::linalg::solve(&a, &b)?.to_vec()?;
        let (av, bv) = (a.to_vec()?, b.to_vec()?);
        let val = |t: T| t.to_c64().re;
        let (mut r2, mut a2, mut x2) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..n {
            let mut acc = -val(bv[i * k]);
            for j in 0..n {
                acc += val(av[i * n + j]) * val(x[j * k]);
            }
            r2 += acc * acc;
            x2 += val(x[i * k]).powi(2);
        }
        for v in &av {
            a2 += val(*v).powi(2);
        }
        let u = if T::DTYPE == cuprite_array::DType::F64 {
            1.1e-16
        } else {
            6e-8
        };
        if r2.sqrt() > 100.0 * n as f64 * u * a2.sqrt() * x2.sqrt() {
            return Err(format!("solve residual {:.3e} too large", r2.sqrt()).into());
        }
        Ok(vec![
            Figure::time(
                format!("linalg::solve {n}² {} with {k} right-hand sides", T::DTYPE),
                &s,
                TimeUnit::Ms,
            )
            .with_note(
                "whole calls (getrf, 2 × trsm, gather; two small read-backs); peer: \
                 torch.linalg.solve (--peers, benches/peers/torch_blas.py)",
            ),
        ])
    })
}

fn bias_gelu(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(8192, 2048);
    with_device(gpu(), || {
        let a = rand::<bf16>(&[n, n], 3)?;
        let w = rand::<bf16>(&[n, n], 4)?;
        let bias = rand::<bf16>(&[n], 5)?;
        for x in [&a, &w, &bias] {
            x.eval()?;
        }
        let before = cuprite_array::stats::thread_fused_epilogues();
        let mut fused = || -> Result<(), BenchError> {
            a.matmul(&w)?.try_add(&bias)?.gelu().eval()?;
            Ok(())
        };
        let mut plain = || -> Result<(), BenchError> {
            a.matmul(&w)?.eval()?;
            Ok(())
        };
        fused()?;
        plain()?;
        if cuprite_array::stats::thread_fused_epilogues() != before + 1 {
            return Err("gelu(a·w + bias) did not run as one fused call".into());
        }
        let kk = calls(ctx, &mut fused)?;
        let one = BenchCtx::new(ctx.warmup, 1, ctx.quick);
        let (mut tf, mut tp) = (Vec::new(), Vec::new());
        for _ in 0..ctx.repeats {
            tf.push(on_stream(&one, kk, &mut fused)?.median() / kk as f64);
            tp.push(on_stream(&one, kk, &mut plain)?.median() / kk as f64);
        }
        let (sf, sp) = (Samples(tf), Samples(tp));
        let plain_fig = Figure::time(format!("Array::matmul bf16 {n}³, plain"), &sp, TimeUnit::Ms)
            .with_note(format!(
                "{:.0} TFLOP/s; interleaved with the fused expression",
                2.0 * (n as f64).powi(3) / sp.median() / 1e12
            ));
        let fused_fig = Figure::time(
            format!("(a.matmul(w) + bias).gelu() bf16 {n}³: one cuBLASLt call with the BiasGelu epilogue, found in the lazy graph"),
            &sf,
            TimeUnit::Ms,
        )
        .with_ceiling("plain Array::matmul of the same shape (same run)", plain_fig.median)
        .with_target(Target::RatioAtMost(1.03))
        .with_note("peer: F.gelu(x @ w + bias) (--peers, benches/peers/torch_blas.py)");
        Ok(vec![fused_fig, plain_fig])
    })
}

fn host_256(ctx: &mut BenchCtx) -> BenchResult {
    use cuprite_driver::blaslt::{BlasLt, Epilogue, Matmul};
    const N: usize = 256;
    with_device(gpu(), || {
        let a = rand::<f32>(&[N, N], 6)?;
        let b = rand::<f32>(&[N, N], 7)?;
        a.eval()?;
        b.eval()?;
        let ours = || -> Result<(), BenchError> {
            a.matmul(&b)?.eval()?;
            Ok(())
        };
        ours()?;
        let stream = cuprite_array::get_stream(0)?;
        let (va, vb) = (a.to_vec()?, b.to_vec()?);
        let (da, db) = (stream.clone_htod(&va)?, stream.clone_htod(&vb)?);
        let mut dd = stream.alloc_zeros::<f32>(N * N)?;
        let lt = BlasLt::new(&stream)?;
        let mm = Matmul::<f32>::row_major(N, N, N);
        let mut raw = || -> Result<(), BenchError> {
            Ok(lt.matmul(&mm, &da, &db, None, &mut dd, Epilogue::None)?)
        };
        raw()?;
        let iters = ctx.size(200, 200);
        let (mut rs, mut os) = (Vec::new(), Vec::new());
        for round in 0..ctx.warmup + ctx.repeats {
            cuprite_array::sync(gpu())?;
            let t = Instant::now();
            for _ in 0..iters {
                raw()?;
            }
            let r = t.elapsed().as_secs_f64() / iters as f64;
            cuprite_array::sync(gpu())?;
            let t = Instant::now();
            for _ in 0..iters {
                ours()?;
            }
            let o = t.elapsed().as_secs_f64() / iters as f64;
            if round >= ctx.warmup {
                rs.push(r);
                os.push(o);
            }
        }
        cuprite_array::sync(gpu())?;
        let (rs, os) = (Samples(rs), Samples(os));
        Ok(vec![
            Figure::time(
                "host time of a warm 256×256 f32 Array::matmul, call to enqueued (node, schedule, output buffer, cuBLASLt; 200 calls per sample in a full run)",
                &os,
                TimeUnit::Us,
            )
            .with_ceiling("BlasLt::matmul of the same problem on the array stream (interleaved)", rs.median() * 1e6)
            .with_target(Target::RatioAtMost(1.2))
            .with_note("host row; blas/lt_host_time compares BlasLt::matmul with a raw cublasLtMatmul"),
            Figure::time("BlasLt::matmul 256×256 f32, warm (interleaved)", &rs, TimeUnit::Us)
                .with_note("host row"),
        ])
    })
}

fn cpu_matmul(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(2048, 512);
    let mut figs = Vec::new();
    with_device(Device::CPU, || -> Result<(), BenchError> {
        macro_rules! one {
            ($t:ty) => {{
                let a = rand::<$t>(&[n, n], 8)?;
                let b = rand::<$t>(&[n, n], 9)?;
                a.eval()?;
                b.eval()?;
                let ours = ctx.try_time_host_per_call(1, |_| -> Result<(), BenchError> {
                    a.matmul(&b)?.eval()?;
                    Ok(())
                })?;
                let (va, vb) = (a.to_vec()?, b.to_vec()?);
                // faer in the layout it is fastest in, every operand column-major: the
                // row-major product C = A·B is Cᵀ = Bᵀ·Aᵀ, and a row-major matrix read
                // column-major is its transpose.
                let at = faer::MatRef::from_column_major_slice(&va, n, n);
                let bt = faer::MatRef::from_column_major_slice(&vb, n, n);
                let mut ct = faer::Mat::<$t>::zeros(n, n);
                let direct = ctx.time_host(|| {
                    faer::linalg::matmul::matmul(
                        ct.as_mut(),
                        faer::Accum::Replace,
                        bt,
                        at,
                        1.0,
                        faer::Par::rayon(0),
                    )
                });
                // Both compute the same product: compare one row.
                let c = a.matmul(&b)?.to_vec()?;
                let row = n / 3;
                for j in 0..n {
                    let (x, y) = (c[row * n + j] as f64, ct[(j, row)] as f64);
                    if (x - y).abs() > 1e-3 * (1.0 + y.abs()) {
                        return Err(format!(
                            "Array::matmul and faer differ at ({row}, {j}): {x} against {y}"
                        )
                        .into());
                    }
                }
                let gf = 2.0 * (n as f64).powi(3) / ours.median() / 1e9;
                let double = std::mem::size_of::<$t>() == 8;
                let (ps, pflops, isa, threads) = super::host_flops::peak(double, 3);
                let peak_gf = pflops / ps.median() / 1e9;
                figs.push(
                    Figure::time(
                        format!(
                            "CPU backend: Array::matmul {n}² {} (faer, rayon), {gf:.1} GFLOP/s",
                            stringify!($t)
                        ),
                        &ours,
                        TimeUnit::Ms,
                    )
                    .with_ceiling(
                        "faer::linalg::matmul::matmul called directly",
                        direct.median() * 1e3,
                    )
                    .with_target(Target::RatioAtMost(1.2))
                    .with_note(format!(
                        "{} rayon threads; {gf:.1} GFLOP/s is {:.0}% of the host's measured \
                         peak, {peak_gf:.1} GFLOP/s ({threads} threads, {isa:?}, \
                         `ceiling/host_flops`)",
                        rayon::current_num_threads(),
                        100.0 * gf / peak_gf
                    )),
                );
            }};
        }
        one!(f32);
        one!(f64);
        Ok(())
    })?;
    Ok(figs)
}
