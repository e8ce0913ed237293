//! Whole programs as benchmarks: the work of `crates/cuprite-array/examples/black_scholes.rs`,
//! `kmeans.rs`, `spectral_poisson.rs`, `mlp_train.rs`, `nbody.rs`, `poisson_cg.rs` and
//! `image_pipeline.rs` at their full sizes. The PyTorch peer figures (eager and `torch.compile`)
//! come from `benches/peers/torch_workloads.py`, those of `poisson_cg` (cupyx.scipy.sparse.linalg.cg
//! and a conjugate gradient loop in PyTorch) from `benches/peers/sparse_peers.py` (its loop under
//! `torch.compile` from `torch_workloads.py`), run in the same call on the same GPU.
//!
//! Device figures time K back-to-back calls between one pair of events
//! ([`super::curves::per_call`]), after a warm call and the optimised build.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, TimeUnit};
use cuprite_array::image::{self, InterpOpts};
use cuprite_array::ops::fft::FftnOpts;
use cuprite_array::sparse::{SolveOpts, SparseArray, cg_with};
use cuprite_array::{
    Array, Backend, Device, bf16, c32, current_device, linalg, ops::ScatterOpts, s, with_device,
};

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
        Benchmark {
            name: "workloads/mlp_train",
            group: "workloads",
            needs_gpu: true,
            run: mlp_train,
        },
        Benchmark {
            name: "workloads/nbody",
            group: "workloads",
            needs_gpu: true,
            run: nbody,
        },
        Benchmark {
            name: "workloads/poisson_cg",
            group: "workloads",
            needs_gpu: true,
            run: poisson_cg,
        },
        Benchmark {
            name: "workloads/image_pipeline",
            group: "workloads",
            // On the CPU too (a smaller image, host time): the steps and the check are the same.
            needs_gpu: false,
            run: image_pipeline,
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
    cuprite_array::tuning::wait_tier_up();
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
            let c_sq = (&centroids * &centroids).sum_axes(&[1])?;
            let scores = c_sq - x.matmul(&centroids.t())? * 2.0;
            let labels = scores.argmin_axis(1)?;
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
            let transform = f.rfft2()?;
            (transform * &inverse)
                .irfft2_with(FftnOpts::new().s(&[n, n]))?
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

/// The name of the `workloads/mlp_train` time figure for a batch of `batch` (the layers are
/// `batch/4`-`batch`-`batch/4`: 1024-4096-1024 at the full batch of 4096), which the peer
/// rule matches by its start and by the peer's size text (`batch 4096, 1024-4096-1024`).
///
/// ```
/// use cuprite_cli::bench::workloads::mlp_train_figure;
/// assert!(mlp_train_figure(4096).contains("batch 4096, 1024-4096-1024"));
/// ```
pub fn mlp_train_figure(batch: usize) -> String {
    let (input, hidden, output) = (batch / 4, batch, batch / 4);
    format!("mlp_train step, batch {batch}, {input}-{hidden}-{output} bf16")
}

/// The name of the `workloads/nbody` time figure for `n` bodies.
///
/// ```
/// use cuprite_cli::bench::workloads::nbody_figure;
/// assert!(nbody_figure(16_384).starts_with("nbody step of 16384 bodies"));
/// ```
pub fn nbody_figure(n: usize) -> String {
    format!("nbody step of {n} bodies, all pairs, f32")
}

/// The weights and biases of the two-layer perceptron (or their gradients).
struct Mlp {
    w1: Array<bf16>,
    b1: Array<bf16>,
    w2: Array<bf16>,
    b2: Array<bf16>,
}

/// One SGD step of `out = gelu(x·W1 + b1)·W2 + b2` on the loss `½·Σ(out − y)² / batch`, as
/// in the example: five products, each with the element-wise work around it in its epilogue.
/// The forward product keeps the pre-activation beside GELU's output; the second takes `b2`
/// and `−y` (C); the gradient `(out − y) / batch` is the products' scale; the product that
/// brings it back through W2 multiplies by GELU's derivative and sums the bias gradient; the
/// weight products subtract themselves from the weights (C). Returns the new parameters,
/// evaluated with the loss.
fn mlp_step(p: &Mlp, x: &Array<bf16>, y: &Array<bf16>, lr: f32) -> Result<Mlp, BenchError> {
    let batch = x.shape()[0];
    let (h, z1) = linalg::matmul_gelu_with_input(x, &p.w1, Some(&p.b1))?;
    let diff = h.matmul(&p.w2)? + &p.b2 - y;
    diff.eval()?;
    let loss = (diff.cast::<f32>() * diff.cast::<f32>()).sum()? * (0.5 / batch as f32);
    let (dz1, db1) = linalg::matmul_gelu_grad(&diff, &p.w2.t(), &z1, 1.0 / batch as f64)?;
    let rate = bf16::from_f32(lr);
    let rate_per_sample = bf16::from_f32(lr / batch as f32);
    let next = Mlp {
        w1: &p.w1 - x.t().matmul(&dz1)? * rate,
        b1: &p.b1 - db1 * rate,
        w2: &p.w2 - h.t().matmul(&diff)? * rate_per_sample,
        b2: &p.b2 - diff.sum_axes(&[0])? * rate_per_sample,
    };
    loss.eval()?;
    for a in [&next.w1, &next.b1, &next.w2, &next.b2] {
        a.eval()?;
    }
    Ok(next)
}

fn mlp_train(ctx: &mut BenchCtx) -> BenchResult {
    let batch = ctx.size(4096, 512);
    let (input, hidden, output) = (batch / 4, batch, batch / 4);
    with_device(Device::cuda(0), || {
        let normal = |shape: &[usize], seed: u64, scale: f32| -> Result<Array<bf16>, BenchError> {
            let a = (Array::<f32>::rand_normal(shape, seed)? * scale).cast::<bf16>();
            a.eval()?;
            Ok(a)
        };
        let p = Mlp {
            w1: normal(&[input, hidden], 1, 1.0 / (input as f32).sqrt())?,
            b1: normal(&[hidden], 2, 0.1)?,
            w2: normal(&[hidden, output], 3, 1.0 / (hidden as f32).sqrt())?,
            b2: normal(&[output], 4, 0.1)?,
        };
        let x = normal(&[batch, input], 5, 1.0)?;
        let y = normal(&[batch, output], 6, 1.0)?;
        let lr = 1.0 / hidden as f32;
        let samples = timed(ctx, || {
            mlp_step(&p, &x, &y, lr)?;
            Ok(())
        })?;
        // The step's five products alone, as plain products of the same shapes and layouts
        // (no epilogues): the part of the step that cuBLASLt does on both sides.
        let h = normal(&[batch, hidden], 7, 1.0)?;
        let d = normal(&[batch, output], 8, 1.0)?;
        let products = timed(ctx, || {
            for (a, b) in [
                (x.clone(), p.w1.clone()),
                (h.clone(), p.w2.clone()),
                (d.clone(), p.w2.t()),
                (x.t(), h.clone()),
                (h.t(), d.clone()),
            ] {
                a.matmul(&b)?.eval()?;
            }
            Ok(())
        })?;
        let name = mlp_train_figure(batch);
        let alone = Figure::time(
            format!("{name}: its five products alone "),
            &products,
            TimeUnit::Ms,
        )
        .with_note(
            "x·W1, h·W2, d·W2ᵀ, xᵀ·dz and hᵀ·d as plain bf16 products (cuBLASLt, no epilogue), \
             back to back: the work both sides hand to cuBLASLt, which bounds the step",
        );
        let time = Figure::time(format!("{name} "), &samples, TimeUnit::Ms)
            .with_ceiling("its five products alone", products.median() * 1e3)
            .with_note(
                "forward, backward by hand, SGD, the element-wise work in the products' epilogues; \
             peers (autograd, eager and torch.compile) in benches/peers/torch_workloads.py",
            );
        // Five products: two forward, dh, dW1 and dW2.
        let flops =
            2.0 * batch as f64 * (2.0 * (input * hidden) as f64 + 3.0 * (hidden * output) as f64);
        let rate = Figure::rate(
            format!("{name}, product rate (5 GEMMs)"),
            "TFLOP/s",
            flops / 1e12,
            &samples,
        );
        Ok(vec![time, rate, alone])
    })
}

/// Softening length squared and time step of the N-body workload.
const NBODY_EPS2: f32 = 0.01;
const NBODY_DT: f32 = 1e-3;

/// One symplectic Euler step of `n` bodies under softened gravity, as in the example: the
/// pair terms by broadcasting, reduced over the second body in one fused kernel.
fn nbody_step(pos: &Array<f32>, vel: &Array<f32>, mass: &Array<f32>) -> Result<(), BenchError> {
    let n = pos.shape()[0];
    let d = pos.reshape(&[1, n, 3])? - pos.reshape(&[n, 1, 3])?;
    let component = |c: usize| -> Result<Array<f32>, BenchError> {
        let col = pos.slice(&s![.., c])?;
        Ok(col.reshape(&[1, n, 1])? - col.reshape(&[n, 1, 1])?)
    };
    let (dx, dy, dz) = (component(0)?, component(1)?, component(2)?);
    let inv = (&dx * &dx + &dy * &dy + &dz * &dz + NBODY_EPS2).rsqrt();
    let w = &inv * &inv * &inv * mass.reshape(&[1, n, 1])?;
    let acc = (d * w).sum_axes(&[1])?;
    let vel2 = vel + acc * NBODY_DT;
    let pos2 = pos + &vel2 * NBODY_DT;
    cuprite_array::eval_many(&[&vel2, &pos2])?;
    Ok(())
}

fn nbody(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(16_384, 2048);
    with_device(Device::cuda(0), || {
        let pos = Array::<f32>::rand_normal(&[n, 3], 1)?;
        let vel = Array::<f32>::rand_normal(&[n, 3], 2)? * 0.1;
        let mass = (Array::<f32>::rand_uniform(&[n], 3)? + 0.5) * (1.0 / n as f32);
        cuprite_array::eval_many(&[&pos, &vel, &mass])?;
        let samples = timed(ctx, || nbody_step(&pos, &vel, &mass))?;
        let time = Figure::time(format!("{} ", nbody_figure(n)), &samples, TimeUnit::Ms).with_note(
            "one fused reduction over the pairs; peers in benches/peers/torch_workloads.py",
        );
        let pairs = Figure::rate(
            format!("nbody pair interactions, {n} bodies"),
            "Gpair/s",
            (n * n) as f64 / 1e9,
            &samples,
        );
        Ok(vec![time, pairs])
    })
}

/// The name of the `workloads/poisson_cg` time figure for `iters` iterations on a `g × g` grid.
///
/// ```
/// use cuprite_cli::bench::workloads::poisson_cg_figure;
/// assert!(poisson_cg_figure(200, 1024).starts_with("poisson_cg, 200 iterations"));
/// ```
pub fn poisson_cg_figure(iters: usize, g: usize) -> String {
    format!("poisson_cg, {iters} iterations, 5-point Laplacian {g}², f64")
}

/// The 5-point Laplacian of a `g × g` grid in CSR, assembled on the current device by array
/// work as in the example: five candidate columns per point, kept where the neighbour is
/// inside the grid.
fn device_laplacian(g: usize) -> Result<SparseArray<f64>, BenchError> {
    let n = g * g;
    let gi = g as i64;
    let i = Array::<i64>::arange(0, gi, 1)?.reshape(&[g, 1, 1])?;
    let j = Array::<i64>::arange(0, gi, 1)?.reshape(&[1, g, 1])?;
    let p = &i * gi + &j;
    let step = Array::from_slice(&[-gi, -1, 0, 1, gi], &[1, 1, 5])?;
    let value = Array::from_slice(&[-1.0f64, -1.0, 4.0, -1.0, -1.0], &[1, 1, 5])?;
    let ni = &i + &Array::from_slice(&[-1i64, 0, 0, 0, 1], &[1, 1, 5])?;
    let nj = &j + &Array::from_slice(&[0i64, -1, 0, 1, 0], &[1, 1, 5])?;
    let inside = ni
        .try_greater_equal(0)?
        .try_and(&ni.try_less(gi)?)?
        .try_and(&nj.try_greater_equal(0)?)?
        .try_and(&nj.try_less(gi)?)?;
    let cols = (&p + &step).masked_select(&inside)?;
    let vals = Array::<f64>::zeros(&[g, g, 5])
        .try_add(&value)?
        .masked_select(&inside)?;
    let counts = inside.cast::<i64>().sum_axes(&[2])?.reshape(&[n])?;
    let offsets = Array::concat(&[&Array::<i64>::zeros(&[1]), &counts.cumsum(0)?], 0)?;
    Ok(SparseArray::from_csr_arrays([n, n], offsets, cols, &vals)?)
}

fn poisson_cg(ctx: &mut BenchCtx) -> BenchResult {
    let g = ctx.size(1024, 128);
    let iters = 200;
    with_device(Device::cuda(0), || {
        let a = device_laplacian(g)?;
        let b = Array::<f64>::rand_uniform(&[g * g], 1)?;
        b.eval()?;
        // A tolerance never reached: exactly `iters` iterations, checked every 50, as the
        // peers run them.
        let samples = timed(ctx, || {
            cg_with(
                &a,
                &b,
                SolveOpts::new().rtol(0.0).maxiter(iters).check_every(50),
            )?
            .x
            .eval()?;
            Ok(())
        })?;
        let time = Figure::time(
            format!("{} ", poisson_cg_figure(iters, g)),
            &samples,
            TimeUnit::Ms,
        )
        .with_note(
            "sparse::cg on the example's device-assembled CSR matrix; peers \
             (cupyx.scipy.sparse.linalg.cg, a CG loop in PyTorch) in benches/peers/sparse_peers.py, \
             the loop under torch.compile in benches/peers/torch_workloads.py",
        );
        Ok(vec![time])
    })
}

/// The side of the square cells of the `image_pipeline` image: one disc in each.
pub const IMAGE_CELL: usize = 256;

/// One disc of the `image_pipeline` image: its centre (row, column), its radius (all whole
/// pixels) and its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disc {
    /// The centre's row.
    pub row: usize,
    /// The centre's column.
    pub col: usize,
    /// The radius: the pixels at most this far from the centre are set.
    pub radius: usize,
    /// The value of its pixels (the ground is 0).
    pub value: f32,
}

/// The discs of the `n × n` image of `workloads/image_pipeline`, as
/// `benches/peers/torch_workloads.py` draws them: one in each [`IMAGE_CELL`]-pixel cell,
/// radius 16 to 56, value 0.6 to 1.0, placed by whole-number formulas at least 12 pixels
/// inside its cell, so that no two discs touch even after the Gaussian of radius 8.
///
/// ```
/// use cuprite_cli::bench::workloads::image_discs;
/// let d = image_discs(4096);
/// assert_eq!(d.len(), 256);
/// assert!(d.iter().all(|d| (16..=56).contains(&d.radius) && d.row >= d.radius + 12));
/// ```
pub fn image_discs(n: usize) -> Vec<Disc> {
    let per = n / IMAGE_CELL;
    let mut out = Vec::with_capacity(per * per);
    for a in 0..per {
        for b in 0..per {
            let k = a * per + b;
            let radius = 16 + (k * 37) % 41;
            let room = IMAGE_CELL / 2 - radius - 12;
            let (ya, xa) = ((k * 73) % (2 * room + 1), (k * 91) % (2 * room + 1));
            out.push(Disc {
                row: a * IMAGE_CELL + IMAGE_CELL / 2 + ya - room,
                col: b * IMAGE_CELL + IMAGE_CELL / 2 + xa - room,
                radius,
                value: (0.6 + 0.04 * ((k * 29) % 11) as f64) as f32,
            });
        }
    }
    out
}

/// The `n × n` image of [`image_discs`] (row-major): each disc's value where
/// `(i − row)² + (j − col)² ≤ radius²`, 0 elsewhere.
pub fn image_of_discs(n: usize) -> Vec<f32> {
    let mut img = vec![0.0f32; n * n];
    for d in image_discs(n) {
        let r2 = d.radius * d.radius;
        for i in d.row - d.radius..=d.row + d.radius {
            for j in d.col - d.radius..=d.col + d.radius {
                if i.abs_diff(d.row).pow(2) + j.abs_diff(d.col).pow(2) <= r2 {
                    img[i * n + j] = d.value;
                }
            }
        }
    }
    img
}

/// The name of the `workloads/image_pipeline` time figure for an `n × n` image of `discs`
/// discs, which the peer rules match by its start and by the size `n`.
///
/// ```
/// use cuprite_cli::bench::workloads::image_pipeline_figure;
/// assert!(image_pipeline_figure(4096, 256).starts_with("image_pipeline of a 4096² f32 image"));
/// ```
pub fn image_pipeline_figure(n: usize, discs: usize) -> String {
    format!(
        "image_pipeline of a {n}² f32 image, {discs} discs (gaussian, sobel, canny, label by \
         union-find, measure, shift)"
    )
}

/// What one pass of the image pipeline leaves.
#[derive(Debug)]
pub struct ImagePipeline {
    /// The Sobel gradient magnitude of the smoothed image.
    pub magnitude: Array<f32>,
    /// Canny's edges of the smoothed image.
    pub edges: Array<bool>,
    /// The components of the thresholded image (8-connected), numbered 1..=count.
    pub labels: Array<i32>,
    /// The number of components.
    pub count: usize,
    /// Each component's area in pixels.
    pub area: Array<f64>,
    /// Each component's centroid, `[count, 2]` (row, column).
    pub centroid: Array<f64>,
    /// The smoothed image shifted by (3.5, −2) with linear interpolation.
    pub shifted: Array<f32>,
}

/// One pass of the example's steps on `img`, every result evaluated: a Gaussian of σ 2
/// (SciPy's 17-tap window and `reflect` border), the Sobel derivatives and their magnitude,
/// Canny's edges of the smoothed image (thresholds 0.5 and 0.2 × 0.5 of the largest
/// magnitude), the mask `smoothed > 0.5`, its 8-connected components by union-find (the
/// count read back), each component's area and centroid, and a shift by (3.5, −2) with
/// linear interpolation. Canny's thresholds and the hysteresis loop read values back too.
pub fn image_pipeline_pass(img: &Array<f32>) -> Result<ImagePipeline, BenchError> {
    let smooth = image::gaussian_filter(img, &[2.0])?;
    let gx = image::sobel(&smooth, -1)?;
    let gy = image::sobel(&smooth, -2)?;
    let magnitude = (&gx * &gx + &gy * &gy).sqrt();
    magnitude.eval()?;
    let edges = image::canny(&smooth, 0.2, 0.5)?;
    edges.eval()?;
    let mask = smooth.try_greater(0.5f32)?;
    let (labels, count) = image::label_with(&mask, &image::generate_binary_structure(2, 2)?)?;
    let index: Vec<i64> = (1..=count as i64).collect();
    let ones = mask.cast::<f32>();
    let area = image::sum_labels(&ones, &labels, &index)?;
    let centroid = image::center_of_mass(&ones, &labels, &index)?;
    cuprite_array::eval_many(&[&area, &centroid])?;
    let shifted = image::shift_with(&smooth, &[3.5, -2.0], InterpOpts::new().order(1))?;
    shifted.eval()?;
    Ok(ImagePipeline {
        magnitude,
        edges,
        labels,
        count,
        area,
        centroid,
        shifted,
    })
}

/// Checks a pass over the image of `discs` against the discs drawn: one component for each,
/// each centroid within 0.05 of a disc's centre (each disc and its blurred threshold are
/// symmetric about the centre), each disc matched once, each area between those of the discs
/// of radius `r − 3` and `r + 3`, and some edges. Returns the count of edge pixels.
pub fn check_image_pipeline(p: &ImagePipeline, discs: &[Disc]) -> Result<usize, BenchError> {
    if p.count != discs.len() {
        return Err(format!(
            "image_pipeline: {} components, {} discs drawn",
            p.count,
            discs.len()
        )
        .into());
    }
    let area = p.area.to_vec()?;
    let centroid = p.centroid.to_vec()?;
    let mut matched = vec![false; discs.len()];
    for (k, c) in centroid.chunks(2).enumerate() {
        let hit = discs
            .iter()
            .position(|d| (c[0] - d.row as f64).abs() < 0.05 && (c[1] - d.col as f64).abs() < 0.05);
        let Some(at) = hit.filter(|&at| !matched[at]) else {
            return Err(format!(
                "image_pipeline: component {} has its centroid at ({}, {}), no other disc's centre",
                k + 1,
                c[0],
                c[1]
            )
            .into());
        };
        matched[at] = true;
        let disc_area = |r: f64| std::f64::consts::PI * r * r;
        let r = discs[at].radius as f64;
        if !(disc_area(r - 3.0)..=disc_area(r + 3.0)).contains(&area[k]) {
            return Err(format!(
                "image_pipeline: component {} has {} pixels, its disc of radius {r} about {}",
                k + 1,
                area[k],
                disc_area(r).round()
            )
            .into());
        }
    }
    let edges = p.edges.cast::<u64>().sum()?.item()? as usize;
    if edges == 0 {
        return Err("image_pipeline: Canny found no edge".into());
    }
    Ok(edges)
}

fn image_pipeline(ctx: &mut BenchCtx) -> BenchResult {
    let dev = current_device();
    let on_gpu = dev.backend == Backend::Cuda;
    // One disc needs a whole cell (the sanitizer's quick divisor shrinks the quick size).
    let n = if on_gpu {
        ctx.size(4096, 1024)
    } else {
        ctx.size(512, 512)
    }
    .max(IMAGE_CELL);
    let discs = image_discs(n);
    let img = Array::from_slice_on(dev, &image_of_discs(n), &[n, n])?;
    img.eval()?;
    let first = image_pipeline_pass(&img)?;
    let edge_pixels = check_image_pipeline(&first, &discs)?;
    let name = image_pipeline_figure(n, discs.len());
    let note = format!(
        "{} components = the discs drawn, centroids at their centres; {edge_pixels} edge pixels; \
         peers (labels by max_pool2d min-propagation, eager and torch.compile) in \
         benches/peers/torch_workloads.py",
        first.count
    );
    drop(first);
    if !on_gpu {
        let samples = ctx.try_time_host_per_call(1, |_| image_pipeline_pass(&img).map(|_| ()))?;
        return Ok(vec![
            Figure::time(format!("{name} "), &samples, TimeUnit::Ms).with_note(note),
        ]);
    }
    with_device(dev, || {
        let samples = timed(ctx, || image_pipeline_pass(&img).map(|_| ()))?;
        let mut figs =
            vec![Figure::time(format!("{name} "), &samples, TimeUnit::Ms).with_note(note)];
        if ctx.quick {
            return Ok(figs);
        }
        // Each step alone, from the same inputs: where the time of the whole goes (at the full
        // size only).
        let smooth = image::gaussian_filter(&img, &[2.0])?;
        let mask = smooth.try_greater(0.5f32)?;
        let eight = image::generate_binary_structure(2, 2)?;
        let (labels, count) = image::label_with(&mask, &eight)?;
        let ones = mask.cast::<f32>();
        cuprite_array::eval_many(&[&smooth, &ones])?;
        labels.eval()?;
        let index: Vec<i64> = (1..=count as i64).collect();
        type Step<'a> = Box<dyn FnMut() -> Result<(), BenchError> + 'a>;
        let steps: Vec<(&str, Step)> = vec![
            (
                "gaussian σ 2",
                Box::new(|| Ok(image::gaussian_filter(&img, &[2.0])?.eval()?)),
            ),
            (
                "sobel magnitude",
                Box::new(|| {
                    let gx = image::sobel(&smooth, -1)?;
                    let gy = image::sobel(&smooth, -2)?;
                    Ok((&gx * &gx + &gy * &gy).sqrt().eval()?)
                }),
            ),
            (
                "canny",
                Box::new(|| Ok(image::canny(&smooth, 0.2, 0.5)?.eval()?)),
            ),
            (
                "threshold and label",
                Box::new(|| {
                    let m = smooth.try_greater(0.5f32)?;
                    Ok(image::label_with(&m, &eight)?.0.eval()?)
                }),
            ),
            (
                "area and centroid",
                Box::new(|| {
                    let area = image::sum_labels(&ones, &labels, &index)?;
                    let centroid = image::center_of_mass(&ones, &labels, &index)?;
                    Ok(cuprite_array::eval_many(&[&area, &centroid])?)
                }),
            ),
            (
                "shift (3.5, -2), linear",
                Box::new(|| {
                    let opts = InterpOpts::new().order(1);
                    Ok(image::shift_with(&smooth, &[3.5, -2.0], opts)?.eval()?)
                }),
            ),
        ];
        for (step, f) in steps {
            let s = timed(ctx, f)?;
            figs.push(Figure::time(
                format!("image_pipeline step: {step}, {n}² "),
                &s,
                TimeUnit::Ms,
            ));
        }
        Ok(figs)
    })
}
