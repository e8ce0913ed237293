//! Geometric transforms (`cuprite_array::image`), as times judged against
//! `benches/peers/image_geometry_peers.py` (CuPy's `cupyx.scipy.ndimage` and PyTorch's
//! `interpolate`/`grid_sample`) by `cuprite bench --peers`:
//!
//! - `image/zoom`: a 4096² f32 image zoomed by 2 (8192² out), order 1 (peers
//!   `cupyx.scipy.ndimage.zoom(order=1)` and `F.interpolate(mode="bilinear",
//!   align_corners=True)`, the same sampling points), and order 3 with the spline prefilter
//!   (peer `cupyx.scipy.ndimage.zoom`, order 3).
//! - `image/rotate`: the same image rotated by 30 degrees, order 1, the input's size (peers
//!   `cupyx.scipy.ndimage.rotate(order=1, reshape=False)` and `F.affine_grid` with
//!   `F.grid_sample(mode="bilinear")`).
//! - `image/resize_bicubic`: three 2048² f32 channels resized to 4096² by ArrayFire's bicubic
//!   (peer `F.interpolate(mode="bicubic")`).

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, TimeUnit};
use cuprite_array::image::{self, RotateOpts, ZoomOpts, af};
use cuprite_array::{Array, Device, with_device};

/// The geometric transform benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "image/zoom",
            group: "image",
            needs_gpu: true,
            run: zoom,
        },
        Benchmark {
            name: "image/rotate",
            group: "image",
            needs_gpu: true,
            run: rotate,
        },
        Benchmark {
            name: "image/resize_bicubic",
            group: "image",
            needs_gpu: true,
            run: resize_bicubic,
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

/// The bandwidth note of a call that reads `read` and writes `written` bytes.
fn bandwidth(s: &Samples, read: f64, written: f64, peers: &str) -> String {
    format!(
        "{:.2} TB/s of the input read and the output written once; peers: {peers} in \
         benches/peers/image_geometry_peers.py",
        (read + written) / s.median() / 1e12
    )
}

fn zoom(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, n], 70)?;
        x.eval()?;
        let bytes = 4.0 * (n * n) as f64;
        let mut figs = Vec::new();
        for (order, label, peers) in [
            (
                1,
                "linear",
                "cupyx.scipy.ndimage.zoom (order 1) and torch F.interpolate (bilinear)",
            ),
            (3, "cubic", "cupyx.scipy.ndimage.zoom (order 3)"),
        ] {
            let opts = ZoomOpts::new().order(order);
            let s = time(ctx, || {
                image::zoom_with(&x, &[2.0, 2.0], opts)?.eval()?;
                Ok(())
            })?;
            figs.push(
                Figure::time(format!("zoom x2 {label}, {n}² f32"), &s, TimeUnit::Ms)
                    .with_note(bandwidth(&s, bytes, 4.0 * bytes, peers)),
            );
        }
        Ok(figs)
    })
}

fn rotate(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, n], 71)?;
        x.eval()?;
        let opts = RotateOpts::new().order(1).reshape(false);
        let s = time(ctx, || {
            image::rotate_with(&x, 30.0, opts)?.eval()?;
            Ok(())
        })?;
        let bytes = 4.0 * (n * n) as f64;
        let f = Figure::time(format!("rotate 30 linear, {n}² f32"), &s, TimeUnit::Ms).with_note(
            bandwidth(
                &s,
                bytes,
                bytes,
                "cupyx.scipy.ndimage.rotate (order 1) and torch F.grid_sample (bilinear)",
            ),
        );
        Ok(vec![f])
    })
}

fn resize_bicubic(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(2048, 256);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[3, n, n], 72)?;
        x.eval()?;
        let opts = af::ResizeOpts::new().method(af::Interp::Bicubic);
        let s = time(ctx, || {
            af::resize_with(&x, 2 * n, 2 * n, opts)?.eval()?;
            Ok(())
        })?;
        let bytes = 3.0 * 4.0 * (n * n) as f64;
        let f = Figure::time(
            format!("resize bicubic 3 x {n}² to x2, f32"),
            &s,
            TimeUnit::Ms,
        )
        .with_note(bandwidth(
            &s,
            bytes,
            4.0 * bytes,
            "torch F.interpolate (bicubic)",
        ));
        Ok(vec![f])
    })
}
