//! Scan, compaction and search benchmarks: cumsum of 2^26 f32 against the device
//! copy bandwidth measured in the same run, the fused `cumsum(a*b + c)` (its producer read
//! inside the scan), `argwhere` (PyTorch's `nonzero`) and `masked_select` of 2^26, and
//! `searchsorted` of 2^24 queries in 2^20 sorted values. The PyTorch peer figures come from
//! `benches/peers/torch_scan.py`, run in the same call on the same GPU.
//!
//! Device figures time K back-to-back calls between one pair of events
//! ([`super::curves::per_call`]); compactions read their count back (a synchronisation inside
//! each call, as PyTorch's do).

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::{Array, Device, Side, with_device};

/// The scan benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "scan/cumsum",
            group: "scan",
            needs_gpu: true,
            run: cumsum,
        },
        Benchmark {
            name: "scan/compact",
            group: "scan",
            needs_gpu: true,
            run: compact,
        },
        Benchmark {
            name: "scan/searchsorted",
            group: "scan",
            needs_gpu: true,
            run: searchsorted,
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

/// Times `f` (K calls per event pair) after a warm call and the optimised build.
fn timed(
    ctx: &BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::tuning::wait_tier_up();
    let stream = stream_raw()?;
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the arrays of the caller were made.
    unsafe { per_call(ctx, stream, CALLS, f) }
}

fn cumsum(ctx: &mut BenchCtx) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let n = ctx.size(1 << 26, 1 << 20);
    with_device(gpu(), || {
        let x = Array::<f32>::rand_uniform(&[n], 1)?;
        x.eval()?;
        let s = timed(ctx, || {
            x.cumsum(0)?.eval()?;
            Ok(())
        })?;
        let rate = Figure::rate(
            format!("cumsum of {n} f32 (reads + writes)"),
            "TB/s",
            8.0 * n as f64 / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_target(Target::RatioAtLeast(0.85))
        .with_note(
            "single-pass decoupled look-back; peer: torch.cumsum in benches/peers/torch_scan.py",
        );
        let time = Figure::time(format!("cumsum time of {n} f32 "), &s, TimeUnit::Ms);
        let (a, b, c) = (
            Array::<f32>::rand_uniform(&[n], 2)?,
            Array::<f32>::rand_uniform(&[n], 3)?,
            Array::<f32>::rand_uniform(&[n], 4)?,
        );
        let s = timed(ctx, || {
            (&(&a * &b) + &c).cumsum(0)?.eval()?;
            Ok(())
        })?;
        let fused = Figure::rate(
            format!("fused cumsum(a*b + c) of {n} f32 (3 reads + 1 write)"),
            "TB/s",
            16.0 * n as f64 / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_target(Target::RatioAtLeast(0.85))
        .with_note("the producer is evaluated inside the scan kernel (no intermediate)");
        let fused_time = Figure::time(
            format!("fused cumsum(a*b + c) time of {n} f32 "),
            &s,
            TimeUnit::Ms,
        );
        Ok(vec![rate, time, fused, fused_time])
    })
}

fn compact(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 26, 1 << 20);
    with_device(gpu(), || {
        let x = Array::<f32>::rand_uniform(&[n], 5)?;
        let mask = x.greater(0.5f32);
        mask.eval()?;
        let s = timed(ctx, || {
            mask.argwhere()?.eval()?;
            Ok(())
        })?;
        let nz = Figure::time(
            format!("nonzero (argwhere) of {n} bool, half set "),
            &s,
            TimeUnit::Ms,
        )
        .with_note("a fused count, then one flag-scan-scatter pass");
        let s = timed(ctx, || {
            x.masked_select(&mask)?.eval()?;
            Ok(())
        })?;
        let ms = Figure::time(
            format!("masked_select of {n} f32, half set "),
            &s,
            TimeUnit::Ms,
        );
        Ok(vec![nz, ms])
    })
}

fn searchsorted(ctx: &mut BenchCtx) -> BenchResult {
    let q = ctx.size(1 << 24, 1 << 18);
    let m = ctx.size(1 << 20, 1 << 16);
    with_device(gpu(), || {
        // Sorted by construction: a running sum of positive values.
        let sorted = Array::<f32>::rand_uniform(&[m], 6)?.cumsum(0)?;
        sorted.eval()?;
        let values = (Array::<f32>::rand_uniform(&[q], 7)? * (m as f32 / 2.0)).contiguous()?;
        let s = timed(ctx, || {
            sorted.searchsorted(&values, Side::Left)?.eval()?;
            Ok(())
        })?;
        Ok(vec![
            Figure::time(
                format!("searchsorted of {q} f32 queries in {m} sorted "),
                &s,
                TimeUnit::Ms,
            )
            .with_note("samples of the sorted row in shared memory"),
        ])
    })
}
