//! Convolution and filtering (`cuprite_array::signal`), as times judged against
//! `benches/peers/cupy_signal.py` (CuPy's `cupyx.scipy.signal` and `cupyx.scipy.ndimage`, and
//! PyTorch's `conv2d`) by `cuprite bench --peers`:
//!
//! - `conv/convolve1d_127`: a 2^24 f32 signal convolved with 127 taps, `same` (the method
//!   chosen automatically: direct); peers `cupyx.scipy.signal.convolve` (direct) and
//!   `fftconvolve`.
//! - `conv/convolve1d_4097`: the same signal with 4097 taps (automatic: overlap-add); peers
//!   `fftconvolve` and `oaconvolve`.
//! - `conv/convolve2d_7x7`: a 4096² f32 image with a 7×7 kernel, `same` (direct); peers
//!   `torch.nn.functional.conv2d` and `cupyx.scipy.ndimage.convolve`; also its bandwidth against a device
//!   copy of the same bytes measured in the same run (target ≥ 0.7×).
//! - `signal/lfilter`: a second-order IIR filter over 2^24 f32; peer `cupyx.scipy.signal.lfilter`.
//! - `signal/approx2`: ArrayFire's bilinear `approx2` of a 4096² f32 image at 4096² points (the
//!   pixel grid rotated by 10 degrees about the centre and shifted), as the bandwidth of reading
//!   the image, both position arrays and writing the result once, judged against the device
//!   copy bandwidth (target ≥ 0.8×; no peer).

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::signal::{self, ApproxMethod, ConvMethod, ConvMode};
use cuprite_array::{Array, Device, with_device};

/// The convolution and filtering benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "conv/convolve1d_127",
            group: "conv",
            needs_gpu: true,
            run: conv1d_127,
        },
        Benchmark {
            name: "conv/convolve1d_4097",
            group: "conv",
            needs_gpu: true,
            run: conv1d_4097,
        },
        Benchmark {
            name: "conv/convolve2d_7x7",
            group: "conv",
            needs_gpu: true,
            run: conv2d_7x7,
        },
        Benchmark {
            name: "signal/lfilter",
            group: "signal",
            needs_gpu: true,
            run: lfilter,
        },
        Benchmark {
            name: "signal/approx2",
            group: "signal",
            needs_gpu: true,
            run: approx2_bilinear,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

/// Device seconds per call of `f` (its steady state: the optimised kernels built first).
fn time(
    ctx: &mut BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::tuning::wait_tier_up();
    let stream = cuprite_array::get_stream(0)?.raw();
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the caller's arrays were made on it; `f` only enqueues array
    // work, which runs on that stream.
    unsafe { per_call(ctx, stream, CALLS, &mut f) }
}

/// A 1-D convolution of `n` f32 values with `m` taps, `same`, each method the automatic
/// choice and the explicit ones named in `methods`.
fn conv1d(ctx: &mut BenchCtx, m: usize, methods: &[(ConvMethod, &str)]) -> BenchResult {
    let n = ctx.size(1 << 24, 1 << 18);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n], 60)?;
        let h = Array::<f32>::rand_uniform(&[m], 61)?;
        cuprite_array::eval_many(&[&x, &h])?;
        let mut figs = Vec::new();
        for &(method, label) in methods {
            let s = time(ctx, || {
                signal::convolve(&x, &h, ConvMode::Same, method)?.eval()?;
                Ok(())
            })?;
            figs.push(
                Figure::time(
                    format!("convolve {m} taps same ({label}), {n} f32"),
                    &s,
                    TimeUnit::Ms,
                )
                .with_note("peers: cupyx.scipy.signal in benches/peers/cupy_signal.py"),
            );
        }
        Ok(figs)
    })
}

fn conv1d_127(ctx: &mut BenchCtx) -> BenchResult {
    conv1d(
        ctx,
        127,
        &[(ConvMethod::Auto, "auto"), (ConvMethod::Fft, "fft")],
    )
}

fn conv1d_4097(ctx: &mut BenchCtx) -> BenchResult {
    conv1d(
        ctx,
        4097,
        &[
            (ConvMethod::Auto, "auto"),
            (ConvMethod::Fft, "fft"),
            (ConvMethod::OverlapAdd, "overlap-add"),
        ],
    )
}

fn conv2d_7x7(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, n], 62)?;
        let h = Array::<f32>::rand_uniform(&[7, 7], 63)?;
        cuprite_array::eval_many(&[&x, &h])?;
        let s = time(ctx, || {
            signal::convolve(&x, &h, ConvMode::Same, ConvMethod::Auto)?.eval()?;
            Ok(())
        })?;
        // Read the image once and write the result once.
        let tb = 2.0 * 4.0 * (n * n) as f64 / 1e12;
        let f = Figure::time(format!("convolve2 7x7 same, {n}² f32"), &s, TimeUnit::Ms).with_note(
            "peers: torch conv2d and cupyx.scipy.ndimage.convolve in benches/peers/cupy_signal.py",
        );
        let copy = super::image::copy_time(ctx, n * n)?;
        let bw = Figure::rate(
            format!("bandwidth of convolve2 7x7 same, {n}² f32 (image read + written once)"),
            "TB/s",
            tb,
            &s,
        )
        .with_ceiling(
            "device copy of the same bytes (reference)",
            tb / copy.median(),
        )
        .with_target(Target::RatioAtLeast(0.7))
        .with_note(format!(
            "the copy: {} f32 device to device on the array stream, {CALLS} calls per event pair",
            n * n
        ));
        Ok(vec![f, bw])
    })
}

fn lfilter(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 24, 1 << 18);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n], 64)?;
        x.eval()?;
        // A second-order low-pass section (poles 0.8 ± 0.2i).
        let (b, a) = ([0.2, 0.3, 0.1], [1.0, -1.6, 0.68]);
        let s = time(ctx, || {
            signal::lfilter(&b, &a, &x, 0, None)?.0.eval()?;
            Ok(())
        })?;
        let f = Figure::time(format!("lfilter order 2 of {n} f32"), &s, TimeUnit::Ms)
            .with_note("peer: cupyx.scipy.signal.lfilter in benches/peers/cupy_signal.py");
        Ok(vec![f])
    })
}

fn approx2_bilinear(ctx: &mut BenchCtx) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, n], 65)?;
        // Output pixel (i, j) samples the input at the grid rotated by 10 degrees about the
        // centre and shifted by (3.3, -2.7): mostly inside, a margin off the grid.
        let (sin, cos) = 10f32.to_radians().sin_cos();
        let ctr = (n as f32 - 1.0) / 2.0;
        let i = Array::<f32>::arange(0.0, n as f32, 1.0)?.reshape(&[n, 1])? - ctr;
        let j = Array::<f32>::arange(0.0, n as f32, 1.0)?.reshape(&[1, n])? - ctr;
        let p0 = &(&(&i * cos) - &(&j * sin)) + (ctr + 3.3);
        let p1 = &(&(&i * sin) + &(&j * cos)) + (ctr - 2.7);
        cuprite_array::eval_many(&[&x, &p0, &p1])?;
        let s = time(ctx, || {
            signal::approx2(&x, &p0, &p1, ApproxMethod::Bilinear, 0.0)?.eval()?;
            Ok(())
        })?;
        // The image, both position arrays and the result, each read or written once.
        let bytes = 4.0 * 4.0 * (n * n) as f64;
        let f = Figure::rate(
            format!("approx2 bilinear, {n}² f32 image at {n}² rotated points"),
            "TB/s",
            bytes / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_target(Target::RatioAtLeast(0.8))
        .with_note(format!(
            "image, pos0, pos1 read and the result written once; {CALLS} calls per event \
             pair, nothing read back between them"
        ));
        Ok(vec![f])
    })
}
