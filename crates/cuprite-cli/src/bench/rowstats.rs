//! Row-operation and statistics benchmarks: softmax, layer_norm and logsumexp over
//! 16384 × 4096 in f32 and bf16 against the device copy bandwidth of the same run (the bytes
//! each must move: one read and one write of the rows; logsumexp writes one value per row), the
//! fused `softmax(x * scale + mask)`, a 256-bin histogram of 2^26 f32 and the covariance of
//! 1024 variables × 65536 observations. The PyTorch figures come from
//! `benches/peers/torch_rows.py` and `benches/peers/torch_stats.py`, run in the same call on
//! the same GPU, and are judged by `cuprite bench --peers`.
//!
//! Device figures time K back-to-back calls between one pair of events
//! ([`super::curves::per_call`]), as the peer scripts do.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Target, TimeUnit};
use cuprite_array::ops::{HistogramOpts, NormOpts};
use cuprite_array::{Array, Device, bf16, with_device};

/// The row-operation and statistics benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "rowops/softmax",
            group: "rowops",
            needs_gpu: true,
            run: softmax,
        },
        Benchmark {
            name: "rowops/layer_norm",
            group: "rowops",
            needs_gpu: true,
            run: layer_norm,
        },
        Benchmark {
            name: "rowops/logsumexp",
            group: "rowops",
            needs_gpu: true,
            run: logsumexp,
        },
        Benchmark {
            name: "stats/histogram",
            group: "stats",
            needs_gpu: true,
            run: histogram,
        },
        Benchmark {
            name: "stats/cov",
            group: "stats",
            needs_gpu: true,
            run: cov,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

fn gpu() -> Device {
    Device::cuda(0)
}

fn stream_raw() -> Result<cuprite_sys::driver::CUstream, BenchError> {
    Ok(cuprite_array::get_stream(0)?.raw())
}

/// The benchmarked rows: 16384 × 4096 (64 × 4096 with `--quick`).
fn rows(ctx: &BenchCtx) -> (usize, usize) {
    (ctx.size(16384, 64), 4096)
}

/// A row operation on an array of `T`.
type RowOp<'a, T> = &'a dyn Fn(&Array<T>) -> Result<Array<T>, BenchError>;

/// Times `op` on the rows in f32 and in bf16: figures in TB/s of `bytes_per_elem(size)`
/// per element, against the device copy ceiling (target 85%).
fn row_figures(
    ctx: &mut BenchCtx,
    what: &str,
    moved: &str,
    elems_moved: f64,
    op: RowOp<'_, f32>,
    op16: RowOp<'_, bf16>,
) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let (r, c) = rows(ctx);
    let n = r * c;
    with_device(gpu(), || {
        let stream = stream_raw()?;
        let x = Array::<f32>::rand_normal(&[r, c], 1)?;
        op(&x)?.eval()?;
        cuprite_array::tuning::wait_tier_up();
        // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
        // context is current after the arrays above were made.
        let s32 = unsafe {
            per_call(ctx, stream, CALLS, || -> Result<(), BenchError> {
                op(&x)?.eval()?;
                Ok(())
            })
        }?;
        let xb = x.cast::<bf16>();
        xb.eval()?;
        drop(x);
        op16(&xb)?.eval()?;
        cuprite_array::tuning::wait_tier_up();
        // SAFETY: as above.
        let s16 = unsafe {
            per_call(ctx, stream, CALLS, || -> Result<(), BenchError> {
                op16(&xb)?.eval()?;
                Ok(())
            })
        }?;
        let mut figs = Vec::new();
        for (dt, size, s) in [("f32", 4.0, &s32), ("bf16", 2.0, &s16)] {
            figs.push(
                Figure::rate(
                    format!("{what} {dt} over {n} elements ({r} rows of {c}), {moved}"),
                    "TB/s",
                    elems_moved * n as f64 * size / 1e12,
                    s,
                )
                .against(&ceiling)
                .with_target(Target::RatioAtLeast(0.85))
                .with_note(format!(
                    "{CALLS} calls per event pair; peer: benches/peers/torch_rows.py"
                )),
            );
        }
        Ok(figs)
    })
}

fn softmax(ctx: &mut BenchCtx) -> BenchResult {
    let mut figs = row_figures(
        ctx,
        "softmax",
        "one read + one write",
        2.0,
        &|x| Ok(x.softmax(-1)?),
        &|x| Ok(x.softmax(-1)?),
    )?;
    // The fused producer: softmax(x * 0.125 + mask) reads x and the mask once.
    let ceiling = ctx.device_copy_ceiling()?;
    let (r, c) = rows(ctx);
    let n = r * c;
    let s = with_device(gpu(), || -> Result<_, BenchError> {
        let stream = stream_raw()?;
        let x = Array::<f32>::rand_normal(&[r, c], 2)?;
        let mask = Array::<f32>::rand_uniform(&[c], 3)?;
        let f = || -> Result<(), BenchError> {
            (&x * 0.125f32 + &mask).softmax(-1)?.eval()?;
            Ok(())
        };
        f()?;
        cuprite_array::tuning::wait_tier_up();
        // SAFETY: as in `row_figures`.
        unsafe { per_call(ctx, stream, CALLS, f) }
    })?;
    figs.push(
        Figure::rate(
            format!("softmax(x * scale + mask) f32 over {n} elements ({r} rows of {c}), the producer fused: one read + one write"),
            "TB/s",
            8.0 * n as f64 / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_target(Target::RatioAtLeast(0.85))
        .with_note("peer: torch eager (x * scale + mask).softmax(-1) in benches/peers/torch_rows.py"),
    );
    Ok(figs)
}

fn layer_norm(ctx: &mut BenchCtx) -> BenchResult {
    let c = rows(ctx).1;
    let (w, b) = with_device(gpu(), || -> Result<_, BenchError> {
        let w = Array::<f32>::rand_uniform(&[c], 4)?;
        let b = Array::<f32>::rand_uniform(&[c], 5)?;
        Ok((w, b))
    })?;
    let (w16, b16) = (w.cast::<bf16>(), b.cast::<bf16>());
    w16.eval()?;
    b16.eval()?;
    row_figures(
        ctx,
        "layer_norm",
        "with weight and bias, one read + one write",
        2.0,
        &|x| Ok(x.layer_norm_with(-1, NormOpts::new().weight(&w).bias(&b))?),
        &|x| Ok(x.layer_norm_with(-1, NormOpts::new().weight(&w16).bias(&b16))?),
    )
}

fn logsumexp(ctx: &mut BenchCtx) -> BenchResult {
    row_figures(
        ctx,
        "logsumexp",
        "one read (one value written per row)",
        1.0,
        &|x| Ok(x.logsumexp(-1)?),
        &|x| Ok(x.logsumexp(-1)?),
    )
}

fn histogram(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 26, 1 << 20);
    with_device(gpu(), || {
        let stream = stream_raw()?;
        let x = Array::<f32>::rand_uniform(&[n], 6)?;
        let f = || -> Result<(), BenchError> {
            x.histogram_with(256, HistogramOpts::new().range(0.0, 1.0))?
                .0
                .eval()?;
            Ok(())
        };
        f()?;
        cuprite_array::tuning::wait_tier_up();
        // SAFETY: as in `row_figures`.
        let s = unsafe { per_call(ctx, stream, CALLS, f) }?;
        Ok(vec![
            Figure::time(
                format!("histogram of {n} f32 into 256 bins over [0, 1]"),
                &s,
                TimeUnit::Ms,
            )
            .with_note(
                "shared-memory privatised counts; the call uploads its 257 edges too; peer: torch.histc in benches/peers/torch_stats.py",
            ),
        ])
    })
}

fn cov(ctx: &mut BenchCtx) -> BenchResult {
    let (v, o) = (1024, ctx.size(65536, 4096));
    with_device(gpu(), || {
        let stream = stream_raw()?;
        let x = Array::<f32>::rand_normal(&[v, o], 7)?;
        let f = || -> Result<(), BenchError> {
            x.cov()?.eval()?;
            Ok(())
        };
        f()?;
        cuprite_array::tuning::wait_tier_up();
        // SAFETY: as in `row_figures`.
        let s = unsafe { per_call(ctx, stream, 3, f) }?;
        Ok(vec![
            Figure::time(
                format!(
                    "cov of {v} variables × {o} observations f32, {} elements",
                    v * o
                ),
                &s,
                TimeUnit::Ms,
            )
            .with_note(
                "centring pass + one f32 GEMM; peer: torch.cov in benches/peers/torch_stats.py",
            ),
        ])
    })
}
