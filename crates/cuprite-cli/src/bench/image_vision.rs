//! The vision family (`cuprite_array::image`) on a 1920×1080 image, the GPU against the CPU
//! backend in the same call. The detectors have no GPU peer (the usual references, OpenCV's
//! `cv::cuda` and ArrayFire, are not installed on the benchmark machine, and PyTorch, CuPy and
//! JAX have no FAST, Harris or ORB detector); template matching is judged against
//! `benches/peers/torch_vision.py` (the same SSD and ZNCC as cuDNN correlations and box sums)
//! by `cuprite bench --peers`. Each figure is the time of one whole call (score kernel,
//! non-maximum suppression, compaction, sort; the host read of the keypoint count included)
//! until its results are on the device, with both backends' keypoint counts in the note:
//!
//! - `image/fast`: FAST-9, threshold 20, non-maximum suppression (ArrayFire's defaults).
//! - `image/harris`: Harris, sigma 1, k 0.04, at most 500 corners (ArrayFire's defaults).
//! - `image/orb`: ORB, threshold 20, 400 features, 4 levels of scale 1.5 (ArrayFire's
//!   defaults).
//! - `image/match_template`: a 32×32 template by SSD and ZNCC over the whole image.

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, TimeUnit};
use cuprite_array::image::{
    self, Features, MatchOpts, MatchType, OrbOpts, fast, harris, match_template_with,
};
use cuprite_array::{Array, Device, with_device};

/// The vision benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "image/fast",
            group: "image",
            needs_gpu: true,
            run: bench_fast,
        },
        Benchmark {
            name: "image/harris",
            group: "image",
            needs_gpu: true,
            run: bench_harris,
        },
        Benchmark {
            name: "image/orb",
            group: "image",
            needs_gpu: true,
            run: bench_orb,
        },
        Benchmark {
            name: "image/match_template",
            group: "image",
            needs_gpu: true,
            run: bench_match,
        },
    ]
}

/// A `w × h` gray image in 0..=255: blocks of 24 pixels of random levels (corners of every
/// kind where four meet) with a little noise, from a fixed integer hash.
fn picture(w: usize, h: usize) -> Vec<f32> {
    let hash = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..w * h)
        .map(|i| {
            let (y, x) = (i / w, i % w);
            let cell = ((y / 24) * 1000 + x / 24) as u64;
            let level = (hash(cell + 1) % 256) as f32;
            let noise = (hash(i as u64 + 1_000_003) % 7) as f32 - 3.0;
            (level + noise).clamp(0.0, 255.0)
        })
        .collect()
}

/// Times `detect` on `img` placed on `device`, evaluating every array of the result and
/// waiting for the device; the samples and the keypoint count.
fn time_detect(
    ctx: &BenchCtx,
    device: Device,
    px: &[f32],
    shape: &[usize],
    detect: &dyn Fn(&Array<f32>) -> cuprite_array::Result<Features>,
) -> Result<(Samples, usize), BenchError> {
    with_device(device, || {
        let img = Array::<f32>::from_slice(px, shape)?;
        img.eval()?;
        let mut count = 0;
        let s = ctx.try_time_host_per_call(1, |_| -> Result<(), BenchError> {
            let f = detect(&img)?;
            cuprite_array::eval_many(&[&f.x, &f.y, &f.score, &f.orientation, &f.size])?;
            cuprite_array::sync(device)?;
            count = f.len();
            Ok(())
        })?;
        Ok((s, count))
    })
}

/// The GPU and CPU figures of one detector.
fn detector(
    ctx: &mut BenchCtx,
    label: &str,
    detect: &dyn Fn(&Array<f32>) -> cuprite_array::Result<Features>,
) -> BenchResult {
    let (w, h) = (ctx.size(1920, 480), ctx.size(1080, 270));
    let px = picture(w, h);
    let (gpu, n_gpu) = time_detect(ctx, Device::cuda(0), &px, &[h, w], detect)?;
    let (cpu, n_cpu) = time_detect(ctx, Device::CPU, &px, &[h, w], detect)?;
    let note = format!(
        "{n_gpu} keypoints on the GPU, {n_cpu} on the CPU backend; GPU {:.1}x the CPU backend \
         (no GPU peer installed: OpenCV and ArrayFire are absent)",
        cpu.median() / gpu.median()
    );
    Ok(vec![
        Figure::time(format!("{label} {w}x{h} f32, GPU"), &gpu, TimeUnit::Ms).with_note(note),
        Figure::time(
            format!("{label} {w}x{h} f32, CPU backend"),
            &cpu,
            TimeUnit::Ms,
        )
        .with_note(format!("{n_cpu} keypoints")),
    ])
}

fn bench_fast(ctx: &mut BenchCtx) -> BenchResult {
    detector(ctx, "fast (FAST-9, thr 20, nms)", &|img| fast(img))
}

fn bench_harris(ctx: &mut BenchCtx) -> BenchResult {
    detector(ctx, "harris (sigma 1, 500 corners)", &|img| harris(img))
}

fn bench_orb(ctx: &mut BenchCtx) -> BenchResult {
    detector(ctx, "orb (400 features, 4 levels)", &|img| {
        image::orb_with(img, OrbOpts::new()).map(|(f, _)| f)
    })
}

fn bench_match(ctx: &mut BenchCtx) -> BenchResult {
    let (w, h) = (ctx.size(1920, 480), ctx.size(1080, 270));
    let px = picture(w, h);
    let tpl: Vec<f32> = (0..32 * 32)
        .map(|k| px[(100 + k / 32) * w + 200 + k % 32])
        .collect();
    let mut figs = Vec::new();
    for method in [MatchType::Ssd, MatchType::Zncc] {
        let mut times = Vec::new();
        for device in [Device::cuda(0), Device::CPU] {
            let s = with_device(device, || -> Result<Samples, BenchError> {
                let img = Array::<f32>::from_slice(&px, &[h, w])?;
                let t = Array::<f32>::from_slice(&tpl, &[32, 32])?;
                cuprite_array::eval_many(&[&img, &t])?;
                ctx.try_time_host_per_call(1, |_| -> Result<(), BenchError> {
                    match_template_with(&img, &t, MatchOpts::new().method(method))?.eval()?;
                    cuprite_array::sync(device)?;
                    Ok(())
                })
            })?;
            times.push(s);
        }
        let ratio = times[1].median() / times[0].median();
        figs.push(
            Figure::time(
                format!("match_template {method:?} 32x32 in {w}x{h} f32, GPU"),
                &times[0],
                TimeUnit::Ms,
            )
            .with_note(format!(
                "GPU {ratio:.1}x the CPU backend; peer: torch conv2d correlations in \
                 benches/peers/torch_vision.py"
            )),
        );
        figs.push(Figure::time(
            format!("match_template {method:?} 32x32 in {w}x{h} f32, CPU backend"),
            &times[1],
            TimeUnit::Ms,
        ));
    }
    Ok(figs)
}
