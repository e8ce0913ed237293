//! Whole programs as benchmarks: the work of `crates/cuprite-array/examples/black_scholes.rs`,
//! `kmeans.rs` and `spectral_poisson.rs` at their full sizes. The PyTorch peer figures (eager and `torch.compile`)
//! come from `benches/peers/torch_workloads.py`, run in the same call on the same GPU.
//!
//! Device figures time K back-to-back calls between one pair of events
//! ([`super::curves::per_call`]), after a warm call and the optimised build.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, TimeUnit};
use cuprite_array::{Array, Device, FftNorm, c32, ops::ScatterOpts, with_device};

/// The workload benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "workloads/black_scholes",
            group: "workloads",
            needs_gpu: true,
            run: black_scholes,
        },
        Benchmark {
            name: "workloads/kmeans",
            group: "workloads",
            needs_gpu: true,
            run: kmeans,
        },
        Benchmark {
            name: "workloads/spectral_poisson",
            group: "workloads",
            needs_gpu: true,
            run: spectral_poisson,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

/// Times `f` (K calls per event pair) after a warm call and the optimised build.
fn timed(
    ctx: &BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::wait_tier_up();
    let stream = cuprite_array::get_stream(0)?.raw();
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the arrays of the caller were made.
    unsafe { per_call(ctx, stream, CALLS, f) }
}

/// Black-Scholes call and put prices (spot `s`, strike `k`, years `t`), as in the example.
fn prices(s: &Array<f32>, k: &Array<f32>, t: &Array<f32>) -> (Array<f32>, Array<f32>) {
    let (rate, vol) = (0.02f32, 0.30f32);
    let vol_sqrt_t = t.sqrt() * vol;
    let d1 = ((s / k).log() + t * (rate + 0.5 * vol * vol)) / &vol_sqrt_t;
    let d2 = &d1 - &vol_sqrt_t;
    let cdf = |x: &Array<f32>| (x * -std::f32::consts::FRAC_1_SQRT_2).erfc() * 0.5;
    let discounted_k = k * (t * -rate).exp();
    let call = s * cdf(&d1) - &discounted_k * cdf(&d2);
    let put = &discounted_k * cdf(&-&d2) - s * cdf(&-&d1);
    (call, put)
}

fn black_scholes(ctx: &mut BenchCtx) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let n = ctx.size(1 << 24, 1 << 18);
    with_device(Device::cuda(0), || {
        let s = Array::<f32>::rand_uniform(&[n], 1)? * 25.0 + 5.0;
        let k = Array::<f32>::rand_uniform(&[n], 2)? * 99.0 + 1.0;
        let t = Array::<f32>::rand_uniform(&[n], 3)? * 9.75 + 0.25;
        cuprite_array::eval_many(&[&s, &k, &t])?;
        let samples = timed(ctx, || {
            let (call, put) = prices(&s, &k, &t);
            cuprite_array::eval_many(&[&call, &put])?;
            Ok(())
        })?;
        let time = Figure::time(
            format!("black_scholes of {n} options "),
            &samples,
            TimeUnit::Ms,
        )
        .with_note("peers: eager and torch.compile in benches/peers/torch_workloads.py");
        // Three inputs read, two prices written.
        let rate = Figure::rate(
            format!("black_scholes bandwidth, {n} options (3 reads + 2 writes)"),
            "TB/s",
            20.0 * n as f64 / 1e12,
            &samples,
        )
        .against(&ceiling);
        Ok(vec![time, rate])
    })
}

/// Points, dimensions and clusters of the k-means workload.
const KMEANS_DIM: usize = 16;
const KMEANS_CLUSTERS: usize = 64;

fn kmeans(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 22, 1 << 16);
    let (k, d) = (KMEANS_CLUSTERS, KMEANS_DIM);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_normal(&[n, d], 1)? * 10.0;
        let centroids = x.index_select(0, &Array::<i64>::arange(0, k as i64, 1)?)?;
        cuprite_array::eval_many(&[&x, &centroids])?;
        // One Lloyd iteration, as in the example: the distance matrix by a product, the nearest
        // centroid, the new centroids by a scatter-add and a count.
        let samples = timed(ctx, || {
            let c_sq = (&centroids * &centroids).sum_axes(&[1], false)?;
            let scores = c_sq - x.matmul(&centroids.t())? * 2.0;
            let labels = scores.argmin_axis(1, false)?;
            let sums =
                Array::<f32>::zeros(&[k, d]).index_add(0, &labels, &x, ScatterOpts::default())?;
            let counts = labels.bincount(k)?.cast::<f32>().reshape(&[k, 1])?;
            let keep_old = (&counts * -1.0 + 1.0).maximum(0.0);
            ((sums + &centroids * &keep_old) / counts.maximum(1.0)).eval()?;
            Ok(())
        })?;
        let time = Figure::time(
            format!("kmeans iteration, {n} points in {d}-D, {k} clusters "),
            &samples,
            TimeUnit::Ms,
        )
        .with_note("peers: eager and torch.compile in benches/peers/torch_workloads.py");
        Ok(vec![time])
    })
}

fn spectral_poisson(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(4096, 512);
    let m = n / 2 + 1;
    with_device(Device::cuda(0), || {
        let f = Array::<f32>::rand_normal(&[n, n], 1)?;
        // -1/k² for the wave numbers of an n × n periodic grid, 0 at the mean, as in the example.
        let ky = Array::<f32>::fftfreq(n, 1.0 / n as f64)?.reshape(&[n, 1])?;
        let kx = Array::<f32>::rfftfreq(n, 1.0 / n as f64)?.reshape(&[1, m])?;
        let k2 = &ky * &ky + &kx * &kx;
        let at_mean = (&k2 * -1.0 + 1.0).maximum(0.0);
        let inverse = ((&at_mean - 1.0) / (&k2 + &at_mean)).cast::<c32>();
        cuprite_array::eval_many(&[&inverse])?;
        f.eval()?;
        let samples = timed(ctx, || {
            let transform = f.rfft2(None, None, FftNorm::Backward)?;
            (transform * &inverse)
                .irfft2(Some(&[n, n]), None, FftNorm::Backward)?
                .eval()?;
            Ok(())
        })?;
        let time = Figure::time(
            format!("spectral_poisson solve of {n} x {n} f32 "),
            &samples,
            TimeUnit::Ms,
        )
        .with_note("rfft2, a fused scaling, irfft2; peers in benches/peers/torch_workloads.py");
        Ok(vec![time])
    })
}
