//! A data-parallel training step: linear regression by gradient descent, each device holding a
//! block of the samples and a replica of the weights.
//!
//! Per step, every device computes its residuals and its share of the gradient in fused
//! kernels on its own stream; one all-reduce (NCCL between GPUs) sums the shares, and every
//! device applies the same update to its replica. The same code runs on every GPU of the
//! machine, on the first N (`--gpus N`), or on N logical CPU devices (`--cpu N`, the default
//! where there is no GPU). It checks that the loss falls, that the weights approach the true
//! ones, and that the replicas agree bit for bit.
//!
//! ```text
//! cargo run --release -p cuprite-array --example data_parallel [-- --gpus 2 | --cpu 4]
//! ```

use cuprite_array::mesh::{Mesh, Sharded};
use cuprite_array::{Array, Device, device_count};

/// Samples on GPUs, and on CPU meshes (a debug build of the CPU backend is slow).
const SAMPLES_GPU: usize = 1 << 20;
const SAMPLES_CPU: usize = 1 << 12;
const FEATURES: usize = 32;
const STEPS: usize = 60;
const RATE: f32 = 0.5;

/// The mesh named on the command line.
fn mesh() -> cuprite_array::Result<Mesh> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = |i: usize| args.get(i + 1).and_then(|v| v.parse::<usize>().ok());
    match args.first().map(String::as_str) {
        Some("--cpu") => Mesh::cpu(count(0).unwrap_or(2)),
        Some("--gpus") => {
            let n = count(0).unwrap_or(1);
            Mesh::new(&(0..n).map(Device::cuda).collect::<Vec<_>>())
        }
        _ => Mesh::cuda_all().or_else(|_| Mesh::cpu(2)),
    }
}

/// One step: the loss before it, and the new weights.
fn step(
    samples: usize,
    x: &Sharded<f32>,
    y: &Sharded<f32>,
    w: &Sharded<f32>,
) -> cuprite_array::Result<(f32, Sharded<f32>)> {
    let residual = x.try_zip(w, |x, w| (x * w).sum_axes(&[1]))? - y;
    let grad = x
        .try_zip(&residual, |x, r| Ok(x * r.expand_dims(1)?))?
        .sum_axes(&[0])?; // local sums + one all-reduce: the same gradient everywhere
    let loss = residual.map(|r| r * r)?.mean()?.shards()[0].item()?;
    let scale = 2.0 * RATE / samples as f32;
    let w = w.zip(&grad, |w, g| w - g * scale)?;
    Ok((loss, w))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = mesh()?;
    let samples = match mesh.backend() {
        cuprite_array::Backend::Cuda => SAMPLES_GPU,
        cuprite_array::Backend::Cpu => SAMPLES_CPU,
    };
    println!(
        "data_parallel: {samples} samples x {FEATURES} features over [{}] ({} CUDA device(s) present)",
        mesh.devices()
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        if mesh.backend() == cuprite_array::Backend::Cuda {
            device_count()
        } else {
            0
        }
    );
    // Synthetic data on the first device: y = x . w_true + noise.
    let home = mesh.devices()[0];
    let (x, y, w_true) = cuprite_array::with_device(home, || -> cuprite_array::Result<_> {
        let x = Array::<f32>::rand_normal(&[samples, FEATURES], 1)?;
        let w_true = Array::<f32>::rand_uniform(&[FEATURES], 2)? * 2.0 - 1.0;
        let noise = Array::<f32>::rand_normal(&[samples], 3)? * 0.01;
        let y = (&x * &w_true).sum_axes(&[1])? + noise;
        Ok((x, y, w_true))
    })?;
    let (xs, ys) = (x.shard(&mesh, 0)?, y.shard(&mesh, 0)?);
    let mut w = Array::<f32>::zeros(&[FEATURES])
        .to_device(home)?
        .replicate(&mesh)?;
    let t0 = std::time::Instant::now();
    let mut losses = Vec::with_capacity(STEPS);
    for _ in 0..STEPS {
        let (loss, next) = step(samples, &xs, &ys, &w)?;
        losses.push(loss);
        w = next;
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "loss {:.5} -> {:.6} in {STEPS} steps ({:.2} ms a step)",
        losses[0],
        losses[STEPS - 1],
        secs * 1e3 / STEPS as f64
    );
    assert!(
        losses[STEPS - 1] < losses[0] * 1e-2,
        "the loss did not fall: {losses:?}"
    );
    assert!(
        losses.windows(2).all(|p| p[1] <= p[0] * 1.0001),
        "the loss rose: {losses:?}"
    );
    // The replicas agree bit for bit, and approach the true weights.
    let first = w.shards()[0].to_vec()?;
    for (r, s) in w.shards().iter().enumerate() {
        assert_eq!(s.to_vec()?, first, "replica {r} differs from replica 0");
    }
    let truth = w_true.to_vec()?;
    let err = first
        .iter()
        .zip(&truth)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!(
        "largest weight error {err:.2e}; {} replicas agree",
        mesh.len()
    );
    assert!(err < 1e-2, "weights off by {err}");
    Ok(())
}
