//! Image morphology and labelling (`cuprite_array::image`), as times judged against
//! `benches/peers/image_morph_peers.py` (CuPy's `cupyx.scipy.ndimage`) by `cuprite bench
//! --peers`:
//!
//! - `image/grey_dilation_5x5`: a 4096² f32 image dilated by a 5×5 box (`size`), mode
//!   `reflect`; peer `cupyx.scipy.ndimage.grey_dilation(size=(5, 5))`.
//! - `image/label`: the 4-connected components of a 4096² random mask (30% set), numbered as
//!   SciPy numbers them, with their count read back; peer `cupyx.scipy.ndimage.label`.
//! - `image/distance_transform_edt`: the exact Euclidean distance transform of the same kind
//!   of mask; peer `cupyx.scipy.ndimage.distance_transform_edt` (figure only).
//! - `image/binary_erosion`: a 4096² bool mask eroded by the 3×3 cross; peer
//!   `cupyx.scipy.ndimage.binary_erosion` (figure only).

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, TimeUnit};
use cuprite_array::image::{self, Footprint};
use cuprite_array::{Array, Device, with_device};

/// The morphology and labelling benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "image/grey_dilation_5x5",
            group: "image",
            needs_gpu: true,
            run: grey_dilation_5x5,
        },
        Benchmark {
            name: "image/label",
            group: "image",
            needs_gpu: true,
            run: label,
        },
        Benchmark {
            name: "image/distance_transform_edt",
            group: "image",
            needs_gpu: true,
            run: edt,
        },
        Benchmark {
            name: "image/binary_erosion",
            group: "image",
            needs_gpu: true,
            run: binary_erosion,
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
    // work (and reads back a count), which runs on that stream.
    unsafe { per_call(ctx, stream, CALLS, &mut f) }
}

/// A random `n x n` mask with 30% of its elements set.
fn mask(n: usize, seed: u64) -> Result<Array<bool>, BenchError> {
    let m = Array::<f32>::rand_uniform(&[n, n], seed)?.less(0.3f32);
    m.eval()?;
    Ok(m)
}

fn grey_dilation_5x5(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, n], 70)?;
        x.eval()?;
        let fp = Footprint::size(&[5, 5])?;
        let s = time(ctx, || {
            image::grey_dilation(&x, &fp)?.eval()?;
            Ok(())
        })?;
        let bytes = 2.0 * 4.0 * (n * n) as f64;
        let f = Figure::time(format!("grey_dilation 5x5, {n}² f32"), &s, TimeUnit::Ms).with_note(
            format!(
                "{:.2} TB/s of the image read and written once; peer: \
                 cupyx.scipy.ndimage.grey_dilation in benches/peers/image_morph_peers.py",
                bytes / s.median() / 1e12
            ),
        );
        Ok(vec![f])
    })
}

fn label(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let m = mask(n, 71)?;
        let mut count = 0;
        let s = time(ctx, || {
            let (l, c) = image::label(&m)?;
            l.eval()?;
            count = c;
            Ok(())
        })?;
        let f = Figure::time(
            format!("label 4-connected, {n}² mask 30% set"),
            &s,
            TimeUnit::Ms,
        )
        .with_note(format!(
            "{count} components, count read back each call; peer: cupyx.scipy.ndimage.label \
                 in benches/peers/image_morph_peers.py"
        ));
        Ok(vec![f])
    })
}

fn edt(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let m = !&mask(n, 72)?;
        let s = time(ctx, || {
            image::distance_transform_edt(&m)?.eval()?;
            Ok(())
        })?;
        let f = Figure::time(
            format!("distance_transform_edt, {n}² mask 70% set, f64"),
            &s,
            TimeUnit::Ms,
        )
        .with_note("peer: cupyx.scipy.ndimage.distance_transform_edt in benches/peers/image_morph_peers.py");
        Ok(vec![f])
    })
}

fn binary_erosion(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    with_device(Device::cuda(0), || {
        let m = !&mask(n, 73)?;
        let s = time(ctx, || {
            image::binary_erosion(&m)?.eval()?;
            Ok(())
        })?;
        let f = Figure::time(format!("binary_erosion cross, {n}² bool"), &s, TimeUnit::Ms)
            .with_note(
                "peer: cupyx.scipy.ndimage.binary_erosion in benches/peers/image_morph_peers.py",
            );
        Ok(vec![f])
    })
}
