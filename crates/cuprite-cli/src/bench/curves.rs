//! Size sweeps for the charts of `cuprite bench --plot`: copy bandwidth against size (pinned
//! host→device, device→host, device→device), the array library's fused element-wise chain,
//! sum and fused dot product against size beside a device copy of the same arrays (the
//! reference: a copy is not a ceiling, the fused chain can beat it since it reads 4 arrays and
//! writes 1), and the time of a C2C FFT (`cuprite_driver::fft`) against size.
//!
//! Each size is timed with K back-to-back calls between one pair of events ([`per_call`]), so
//! the host's own cost of a call does not sit inside a small kernel's window; K falls as the
//! size grows. The charts' names are the constants below: peer files (`benches/peers/`) use
//! the same names to be drawn beside.

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples};
use cuprite_array::{Array, Device, with_device};
use cuprite_driver::{Context, DeviceBuffer, HostAllocFlags, PinnedHostBuffer, Stream};
use cuprite_sys::driver::CUstream;
use std::sync::Arc;

/// Chart of the copy sweep between host and device (PCIe or NVLink-C2C speeds).
pub const CHART_COPIES: &str =
    "copies between pinned host memory and the device: bandwidth against size";
/// Chart of the device-to-device copy sweep (device memory speeds: a chart of its own, as it
/// is 50 times the host copies).
pub const CHART_DEVICE_COPY: &str = "device-to-device copies: bandwidth against size";
/// Chart of the array sweep.
pub const CHART_ARRAY: &str = "array kernels against a device copy of the same arrays";
/// Chart of the FFT sweep (time per transform: the y axis is logarithmic).
pub const CHART_FFT: &str = "C2C FFT of f32 complex numbers: time per transform against size";
/// Chart of host time per call, sample by sample, beside the raw driver call of the same run.
pub const CHART_HOST: &str = "host time per call against the raw driver call";

/// The sweep benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "curves/copies",
            group: "curves",
            needs_gpu: true,
            run: copies,
        },
        Benchmark {
            name: "curves/array",
            group: "curves",
            needs_gpu: true,
            run: array,
        },
        Benchmark {
            name: "curves/fft",
            group: "curves",
            needs_gpu: true,
            run: fft,
        },
    ]
}

/// Device time per call of `enqueue`, from event pairs around `k` back-to-back calls each:
/// `warmup` untimed rounds, then `repeats` samples (seconds per call).
///
/// # Safety
///
/// As [`BenchCtx::time_device`]: `stream` is a live stream of the context current on this
/// thread, and `enqueue` only enqueues on it.
pub unsafe fn per_call(
    ctx: &BenchCtx,
    stream: CUstream,
    k: usize,
    mut enqueue: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    let k = k.max(1);
    // SAFETY: forwarded from this function's contract.
    let s = unsafe {
        ctx.time_device(stream, || -> Result<(), BenchError> {
            for _ in 0..k {
                enqueue()?;
            }
            Ok(())
        })
    }?;
    Ok(Samples(s.0.iter().map(|t| t / k as f64).collect()))
}

/// Calls per event pair for work on `bytes`: enough that a sample lasts well beyond the event
/// resolution and the host's per-call cost, at most `cap`.
fn calls_for(bytes: usize, cap: usize) -> usize {
    ((256usize << 20) / bytes.max(1)).clamp(1, cap)
}

/// `64 KiB`, `1 MiB`...
fn size_text(bytes: usize) -> String {
    if bytes >= 1 << 30 {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

fn fresh_words(n: usize, salt: u64) -> Vec<u32> {
    let mut s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x1234_5678, |d| d.as_nanos() as u64)
        ^ salt;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}

fn time_on(
    ctx: &BenchCtx,
    s: &Arc<Stream>,
    k: usize,
    f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    s.context().bind_to_thread()?;
    // SAFETY: `s` is a live stream of the context just bound, and outlives the call; `f` only
    // enqueues copies on it.
    unsafe { per_call(ctx, s.raw(), k, f) }
}

fn copies(ctx: &mut BenchCtx) -> BenchResult {
    let c = Context::new(0)?;
    let s = c.new_stream()?;
    let top = if ctx.quick { 22 } else { 28 };
    let mut figs = Vec::new();
    for log2 in (16..=top).step_by(2) {
        let bytes = 1usize << log2;
        let n = bytes / 4;
        let k = calls_for(bytes, 64);
        ctx.status(format!("copies of {}", size_text(bytes)));
        let host = fresh_words(n, log2 as u64);
        let pinned = PinnedHostBuffer::from_slice(&c, &host, HostAllocFlags::NONE)?;
        // SAFETY: written by the copies below before anything reads it.
        let mut dev: DeviceBuffer<u32> = unsafe { s.alloc(n) }?;
        let h2d = time_on(ctx, &s, k, || Ok(s.memcpy_htod(&pinned, &mut dev)?))?;
        if s.clone_dtoh(&dev)? != host {
            return Err(format!("host→device copy of {bytes} bytes gave wrong data").into());
        }
        let mut back = PinnedHostBuffer::<u32>::new(&c, n, HostAllocFlags::NONE)?;
        let d2h = time_on(ctx, &s, k, || Ok(s.memcpy_dtoh(&dev, &mut back)?))?;
        s.synchronize()?;
        if back.as_slice()? != &host[..] {
            return Err(format!("device→host copy of {bytes} bytes gave wrong data").into());
        }
        // SAFETY: written by the copies below before anything reads it.
        let mut dst: DeviceBuffer<u32> = unsafe { s.alloc(n) }?;
        let d2d = time_on(ctx, &s, k, || Ok(s.memcpy_dtod(&dev, &mut dst)?))?;
        if s.clone_dtoh(&dst)? != host {
            return Err(format!("device→device copy of {bytes} bytes gave wrong data").into());
        }
        let gb = bytes as f64 / 1e9;
        let size = size_text(bytes);
        let x = bytes as f64;
        let note = format!("{k} copies per event pair");
        figs.push(
            Figure::rate(format!("H2D pinned {size}"), "GB/s", gb, &h2d)
                .with_note(note.clone())
                .plot_at(
                    CHART_COPIES,
                    "H2D (pinned host → device)",
                    "bytes per copy",
                    x,
                ),
        );
        figs.push(
            Figure::rate(format!("D2H pinned {size}"), "GB/s", gb, &d2h)
                .with_note(note.clone())
                .plot_at(
                    CHART_COPIES,
                    "D2H (device → pinned host)",
                    "bytes per copy",
                    x,
                ),
        );
        figs.push(
            Figure::rate(format!("D2D {size} (read + write)"), "GB/s", 2.0 * gb, &d2d)
                .with_note(note)
                .plot_at(
                    CHART_DEVICE_COPY,
                    "D2D (bytes read + written)",
                    "bytes per copy",
                    x,
                ),
        );
    }
    Ok(figs)
}

fn rand(n: usize, seed: u64) -> Result<Array<f32>, BenchError> {
    Ok(Array::<f32>::rand_uniform(&[n], seed)?)
}

fn array(ctx: &mut BenchCtx) -> BenchResult {
    let top = if ctx.quick { 20 } else { 26 };
    let gpu = Device::cuda(0);
    with_device(gpu, || {
        let stream = cuprite_array::get_stream(0)?;
        let raw = stream.raw();
        let mut figs = Vec::new();
        for log2 in (14..=top).step_by(2) {
            let n = 1usize << log2;
            let k = calls_for(4 * n, 100);
            ctx.status(format!("arrays of {n} f32"));
            let (a, b, c, d) = (rand(n, 11)?, rand(n, 12)?, rand(n, 13)?, rand(n, 14)?);
            let chain = || (&a * &b + &c).sin() * d.exp() - &a / 2.0;
            // Steady state: the optimised kernels, not the quick first builds.
            chain().eval()?;
            a.sum()?.eval()?;
            (&a * &b).sum()?.eval()?;
            cuprite_array::tuning::wait_tier_up();
            let sync = || cuprite_array::sync(gpu).map_err(BenchError::from);
            sync()?;
            // SAFETY: the array stream of device 0 lives for the whole process and its (primary)
            // context is current after the array calls above; the closure only enqueues array
            // work on it.
            let t_chain = unsafe {
                per_call(ctx, raw, k, || {
                    chain().eval()?;
                    Ok(())
                })
            }?;
            // SAFETY: as for the chain.
            let t_sum = unsafe {
                per_call(ctx, raw, k, || {
                    a.sum()?.eval()?;
                    Ok(())
                })
            }?;
            // SAFETY: as for the chain.
            let t_dot = unsafe {
                per_call(ctx, raw, k, || {
                    (&a * &b).sum()?.eval()?;
                    Ok(())
                })
            }?;
            // The reference: a device copy of one such array, on the same stream.
            let src = stream.clone_htod(&a.to_vec()?)?;
            // SAFETY: written by the copies below before anything reads it.
            let mut dst: DeviceBuffer<f32> = unsafe { stream.alloc(n) }?;
            // SAFETY: as for the chain; the copy is enqueued on the same stream.
            let t_copy = unsafe {
                per_call(ctx, raw, k, || {
                    stream.memcpy_dtod(&src, &mut dst)?;
                    Ok(())
                })
            }?;
            sync()?;
            // A spot check of the chain's values against the host.
            let (va, vb, vc, vd) = (a.to_vec()?, b.to_vec()?, c.to_vec()?, d.to_vec()?);
            let got = chain().to_vec()?;
            for i in [0, n / 3, n - 1] {
                let want = (va[i] * vb[i] + vc[i]).sin() * vd[i].exp() - va[i] / 2.0;
                if (got[i] - want).abs() > 1e-5 * (1.0 + want.abs()) {
                    return Err(format!("chain element {i} of {n}: {} vs {want}", got[i]).into());
                }
            }
            let x = n as f64;
            let el = "f32 elements per array";
            let bytes = |arrays: f64| arrays * 4.0 * x / 1e9;
            let copy = Figure::rate(
                format!("device copy of {n} f32 (read + write)"),
                "GB/s",
                bytes(2.0),
                &t_copy,
            )
            .with_note(format!(
                "the reference of this size; {k} calls per event pair"
            ))
            .plot_at(CHART_ARRAY, "device copy (reference, read + write)", el, x);
            let reference = copy.median;
            figs.push(copy);
            figs.push(
                Figure::rate(
                    format!("fused 8-op chain over {n} f32 (4 in + 1 out)"),
                    "GB/s",
                    bytes(5.0),
                    &t_chain,
                )
                .with_ceiling("device copy of the same size (reference)", reference)
                .plot_at(CHART_ARRAY, "fused 8-op chain (4 in + 1 out)", el, x),
            );
            figs.push(
                Figure::rate(
                    format!("sum of {n} f32 (reads)"),
                    "GB/s",
                    bytes(1.0),
                    &t_sum,
                )
                .with_ceiling("device copy of the same size (reference)", reference)
                .plot_at(CHART_ARRAY, "sum (reads)", el, x),
            );
            figs.push(
                Figure::rate(
                    format!("fused sum(a*b) over {n} f32 (reads)"),
                    "GB/s",
                    bytes(2.0),
                    &t_dot,
                )
                .with_ceiling("device copy of the same size (reference)", reference)
                .plot_at(CHART_ARRAY, "fused sum(a*b) (reads)", el, x),
            );
        }
        Ok(figs)
    })
}

fn fft(ctx: &mut BenchCtx) -> BenchResult {
    use cuprite_driver::fft::{PlanCache, PlanDesc, Precision};
    use num_complex::Complex;
    let c = Context::new(0)?;
    let s = c.new_stream()?;
    let mut cache = PlanCache::new(4);
    let top = if ctx.quick { 16 } else { 24 };
    let mut figs = Vec::new();
    for log2 in (10..=top).step_by(2) {
        let n = 1usize << log2;
        let k = ctx.size(calls_for(8 * n, 100), calls_for(8 * n, 100));
        ctx.status(format!("FFT of {n}"));
        let words = fresh_words(2 * n, log2 as u64);
        let x: Vec<Complex<f32>> = words
            .chunks(2)
            .map(|w| {
                let f = |v: u32| (v >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
                Complex::new(f(w[0]), f(w[1]))
            })
            .collect();
        let dx = s.clone_htod(&x)?;
        let mut dy = s.alloc_zeros::<Complex<f32>>(n)?;
        let desc = PlanDesc::c2c(Precision::F32, &[n]);
        // The plan is made (and cached) before timing, whatever the warm-up count.
        cache.get(&s, &desc)?;
        let t = time_on(ctx, &s, k, || {
            cache.get(&s, &desc)?.exec_forward(&dx, &mut dy)?;
            Ok(())
        })?;
        // The DC bin is the sum of the input.
        let got = s.clone_dtoh(&dy.slice(..1)?)?[0];
        let want: f64 = x.iter().map(|v| f64::from(v.re)).sum();
        if (f64::from(got.re) - want).abs() > 1e-3 * (n as f64).sqrt() {
            return Err(
                format!("FFT of {n}: DC bin {} but the input sums to {want}", got.re).into(),
            );
        }
        figs.push(
            Figure::time(
                format!("C2C FFT of {n} f32 complex (PlanCache lookup + transform)"),
                &t,
                super::kit::TimeUnit::Us,
            )
            .with_note(format!("{k} calls per event pair"))
            .plot_at(
                CHART_FFT,
                "cuprite_driver::fft C2C f32",
                "complex elements",
                n as f64,
            ),
        );
    }
    Ok(figs)
}
