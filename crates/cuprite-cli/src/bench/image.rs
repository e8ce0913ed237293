//! Image filters (`cuprite_array::image`), as times judged against
//! `benches/peers/cupy_ndimage_filters.py` (CuPy's `cupyx.scipy.ndimage`) by
//! `cuprite bench --peers`, each with the bandwidth of reading and writing the image once:
//!
//! - `image/gaussian_filter`: a 4096² f32 image, sigma 2 (17 taps each axis, one fused kernel);
//!   also its bandwidth against a device copy of the same bytes measured in the same run
//!   (target: at least 0.7 of it).
//! - `image/uniform_filter`: the same image, size 9; also its bandwidth against the copy.
//! - `image/median_filter`: the same image, 3×3 and 7×7.
//! - `image/sobel`: the same image, along the last axis; also its bandwidth against the copy
//!   (target: at least 0.8 of it).
//! - `image/gaussian_filter_streaming`: `image/gaussian_filter` on the streaming separable
//!   kernel (`tuning::set_image_streaming(true)`), and its bandwidth against the copy, beside
//!   the tiled kernel that `image/gaussian_filter` runs by default.
//! - `image/gaussian_filter_3d`: a 256³ f32 volume, sigma 2.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::image::{self, FilterWindow};
use cuprite_array::{Array, Device, with_device};
use cuprite_driver::DeviceBuffer;

/// The image filter benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    let b = |name, run| Benchmark {
        name,
        group: "image",
        needs_gpu: true,
        run,
    };
    vec![
        b("image/gaussian_filter", gaussian),
        b("image/gaussian_filter_streaming", gaussian_streaming),
        b("image/uniform_filter", uniform),
        b("image/median_filter", median),
        b("image/sobel", sobel),
        b("image/gaussian_filter_3d", gaussian_3d),
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

/// The peer script named in the figures' notes.
const PEER: &str = "benches/peers/cupy_ndimage_filters.py";

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

/// The figure of `what` on `elems` f32 values: its time, and the bandwidth of reading and
/// writing them once.
fn figure(what: String, s: &Samples, elems: usize, peer: &str) -> Figure {
    let bytes = 2.0 * 4.0 * elems as f64;
    Figure::time(what, s, TimeUnit::Ms).with_note(format!(
        "{:.2} TB/s of the image read and written once; peer: {peer} in {PEER}",
        bytes / s.median() / 1e12
    ))
}

/// The side of the benchmarks' square image and the device seconds per call of `f` on a
/// random image of that side.
fn image_samples(
    ctx: &mut BenchCtx,
    f: impl Fn(&Array<f32>) -> cuprite_array::Result<Array<f32>>,
) -> Result<(usize, Samples), BenchError> {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, n], 70)?;
        x.eval()?;
        let s = time(ctx, || {
            f(&x)?.eval()?;
            Ok(())
        })?;
        Ok((n, s))
    })
}

/// Times `f` on a random `side`² f32 image, as the figure `name` (`{side}²` appended).
fn on_image(
    ctx: &mut BenchCtx,
    name: &str,
    peer: &str,
    f: impl Fn(&Array<f32>) -> cuprite_array::Result<Array<f32>>,
) -> BenchResult {
    let (n, s) = image_samples(ctx, f)?;
    Ok(vec![figure(format!("{name}, {n}² f32"), &s, n * n, peer)])
}

/// Device seconds per device-to-device copy of `elems` f32 on the array stream of device 0:
/// the reference that the filters' bandwidth is judged against.
pub(super) fn copy_time(ctx: &mut BenchCtx, elems: usize) -> Result<Samples, BenchError> {
    let stream = cuprite_array::get_stream(0)?;
    let src = stream.clone_htod(&vec![0.5f32; elems])?;
    // SAFETY: written by the copies below before anything reads it.
    let mut dst: DeviceBuffer<f32> = unsafe { stream.alloc(elems) }?;
    stream.memcpy_dtod(&src, &mut dst)?;
    // SAFETY: the array stream of device 0 lives for the whole process and its (primary)
    // context is current after the caller's arrays were made; the copies are enqueued on it.
    unsafe {
        per_call(ctx, stream.raw(), CALLS, || {
            stream.memcpy_dtod(&src, &mut dst)?;
            Ok(())
        })
    }
}

/// [`on_image`]'s time figure and, after it, the bandwidth of reading and writing the image
/// once against a device copy of the same bytes measured in the same run, with `target` (a
/// least ratio to the copy) where the project set one. The bandwidth figure's name does not
/// start with the time figure's, which the peer rules match.
fn with_bandwidth(
    ctx: &mut BenchCtx,
    name: &str,
    peer: &str,
    target: Option<f64>,
    f: impl Fn(&Array<f32>) -> cuprite_array::Result<Array<f32>>,
) -> BenchResult {
    let (n, s) = image_samples(ctx, f)?;
    let elems = n * n;
    let copy = with_device(Device::cuda(0), || copy_time(ctx, elems))?;
    let tb = 2.0 * 4.0 * elems as f64 / 1e12;
    let mut figs = vec![figure(format!("{name}, {n}² f32"), &s, elems, peer)];
    let mut fig = Figure::rate(
        format!("bandwidth of {name}, {n}² f32 (image read + written once)"),
        "TB/s",
        tb,
        &s,
    )
    .with_ceiling(
        "device copy of the same bytes (reference)",
        tb / copy.median(),
    )
    .with_note(format!(
        "the copy: {elems} f32 device to device on the array stream, {CALLS} calls per event \
         pair"
    ));
    if let Some(t) = target {
        fig = fig.with_target(Target::RatioAtLeast(t));
    }
    figs.push(fig);
    Ok(figs)
}

fn gaussian(ctx: &mut BenchCtx) -> BenchResult {
    with_bandwidth(
        ctx,
        "gaussian_filter sigma 2",
        "cupyx.scipy.ndimage.gaussian_filter",
        Some(0.7),
        |x| image::gaussian_filter(x, &[2.0]),
    )
}

/// `gaussian` on the streaming separable kernel: the streaming kernel on for the call, off
/// again after it (also when it fails).
fn gaussian_streaming(ctx: &mut BenchCtx) -> BenchResult {
    cuprite_array::tuning::set_image_streaming(true);
    let r = with_bandwidth(
        ctx,
        "streaming gaussian_filter sigma 2",
        "cupyx.scipy.ndimage.gaussian_filter",
        None,
        |x| image::gaussian_filter(x, &[2.0]),
    );
    cuprite_array::tuning::set_image_streaming(false);
    r
}

fn uniform(ctx: &mut BenchCtx) -> BenchResult {
    with_bandwidth(
        ctx,
        "uniform_filter 9",
        "cupyx.scipy.ndimage.uniform_filter",
        None,
        |x| image::uniform_filter(x, &[9]),
    )
}

fn sobel(ctx: &mut BenchCtx) -> BenchResult {
    with_bandwidth(
        ctx,
        "sobel axis -1",
        "cupyx.scipy.ndimage.sobel",
        Some(0.8),
        |x| image::sobel(x, -1),
    )
}

fn median(ctx: &mut BenchCtx) -> BenchResult {
    let mut figs = on_image(
        ctx,
        "median_filter 3x3",
        "cupyx.scipy.ndimage.median_filter",
        |x| image::median_filter(x, &FilterWindow::size(&[3])),
    )?;
    figs.extend(on_image(
        ctx,
        "median_filter 7x7",
        "cupyx.scipy.ndimage.median_filter",
        |x| image::median_filter(x, &FilterWindow::size(&[7])),
    )?);
    Ok(figs)
}

fn gaussian_3d(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(256, 64);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, n, n], 71)?;
        x.eval()?;
        let s = time(ctx, || {
            image::gaussian_filter(&x, &[2.0])?.eval()?;
            Ok(())
        })?;
        Ok(vec![figure(
            format!("gaussian_filter 3-d sigma 2, {n}³ f32"),
            &s,
            n * n * n,
            "cupyx.scipy.ndimage.gaussian_filter",
        )])
    })
}
