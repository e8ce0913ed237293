//! A gravitational N-body step as a whole program: every pairwise force at once by
//! broadcasting (bodies `i` along axis 0, bodies `j` along axis 1), reduced over `j` in one
//! fused kernel (the `N × N` pairs are never stored), then a symplectic Euler step.
//!
//! ```text
//! cargo run --release -p cuprite-array --example nbody            # CUDA: 16,384 bodies
//! cargo run --release -p cuprite-array --example nbody -- --small # 1,024 bodies
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example nbody  # 1,024 on the CPU
//! ```
//!
//! Softened gravity with G = 1: `aᵢ = Σⱼ mⱼ (rⱼ − rᵢ) / (|rⱼ − rᵢ|² + ε²)^{3/2}`, then
//! `v' = v + a·dt`, `r' = r + v'·dt`. The check is independent of the array code: the
//! accelerations against the same sum in f64 on the host (every body on a small system, a
//! sample of bodies on a large one), the total momentum (pairwise forces cancel, so it must
//! not change beyond rounding), and, on a small system, the total energy after the step
//! against the f64 host step's. It exits with an error on any mismatch.

use cuprite_array::{Array, Device, s};

/// Softening length squared.
const EPS2: f32 = 0.01;
/// Time step.
const DT: f32 = 1e-3;

/// The accelerations `[n, 3]` of bodies at `pos` (`[n, 3]`) with masses `mass` (`[n]`).
fn accelerations(pos: &Array<f32>, mass: &Array<f32>) -> cuprite_array::Result<Array<f32>> {
    let n = pos.shape()[0];
    // rⱼ − rᵢ for every pair, [n, n, 3]: a lazy broadcast, never stored.
    let d = pos.reshape(&[1, n, 3])? - pos.reshape(&[n, 1, 3])?;
    // The squared distance from the coordinate columns, [n, n, 1].
    let component = |c: usize| -> cuprite_array::Result<Array<f32>> {
        let col = pos.slice(&s![.., c])?;
        Ok(col.reshape(&[1, n, 1])? - col.reshape(&[n, 1, 1])?)
    };
    let (dx, dy, dz) = (component(0)?, component(1)?, component(2)?);
    let inv = (&dx * &dx + &dy * &dy + &dz * &dz + EPS2).rsqrt();
    let w = &inv * &inv * &inv * mass.reshape(&[1, n, 1])?;
    // Σⱼ over axis 1: one fused reduction of the element-wise pair terms.
    (d * w).sum_axes(&[1])
}

/// One step: (accelerations, new positions, new velocities), evaluated.
fn step(
    pos: &Array<f32>,
    vel: &Array<f32>,
    mass: &Array<f32>,
) -> cuprite_array::Result<(Array<f32>, Array<f32>, Array<f32>)> {
    let acc = accelerations(pos, mass)?;
    let vel2 = vel + &acc * DT;
    let pos2 = pos + &vel2 * DT;
    cuprite_array::eval_many(&[&vel2, &pos2])?;
    Ok((acc, pos2, vel2))
}

/// The f64 acceleration of body `i`, and the sum of the magnitudes of its terms (the scale of
/// its rounding error).
fn host_acceleration(pos: &[f64], mass: &[f64], i: usize) -> ([f64; 3], f64) {
    let (mut a, mut scale) = ([0.0; 3], 0.0);
    for (j, &m) in mass.iter().enumerate() {
        let d = [0, 1, 2].map(|c| pos[3 * j + c] - pos[3 * i + c]);
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + f64::from(EPS2);
        let w = m / (r2 * r2.sqrt());
        for c in 0..3 {
            a[c] += w * d[c];
        }
        scale += w * r2.sqrt();
    }
    (a, scale)
}

/// Total energy (kinetic + softened potential) in f64.
fn host_energy(pos: &[f64], vel: &[f64], mass: &[f64]) -> f64 {
    let n = mass.len();
    let mut e = 0.0;
    for i in 0..n {
        let v2: f64 = (0..3).map(|c| vel[3 * i + c] * vel[3 * i + c]).sum();
        e += 0.5 * mass[i] * v2;
        for j in i + 1..n {
            let r2: f64 = (0..3)
                .map(|c| (pos[3 * j + c] - pos[3 * i + c]).powi(2))
                .sum::<f64>()
                + f64::from(EPS2);
            e -= mass[i] * mass[j] / r2.sqrt();
        }
    }
    e
}

fn to_f64(a: &Array<f32>) -> cuprite_array::Result<Vec<f64>> {
    Ok(a.to_vec()?.into_iter().map(f64::from).collect())
}

/// A system of `n` bodies: positions, velocities and masses (total mass 1), from `seed`.
fn system(n: usize, seed: u64) -> cuprite_array::Result<[Array<f32>; 3]> {
    let pos = Array::<f32>::rand_normal(&[n, 3], seed)?;
    let vel = Array::<f32>::rand_normal(&[n, 3], seed + 1)? * 0.1;
    let mass = (Array::<f32>::rand_uniform(&[n], seed + 2)? + 0.5) * (1.0 / n as f32);
    cuprite_array::eval_many(&[&pos, &vel, &mass])?;
    Ok([pos, vel, mass])
}

/// Runs one step of `n` bodies and checks it; `energy`: also compare the energy with the f64
/// host step's (O(n²) on the host). Returns the step's wall time in ms.
fn run(n: usize, energy: bool) -> Result<f64, Box<dyn std::error::Error>> {
    let [pos, vel, mass] = system(n, 1)?;
    let start = std::time::Instant::now();
    let (acc, pos2, vel2) = step(&pos, &vel, &mass)?;
    cuprite_array::sync(cuprite_array::current_device())?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let (p, v, m) = (to_f64(&pos)?, to_f64(&vel)?, to_f64(&mass)?);
    let (a, p2, v2) = (to_f64(&acc)?, to_f64(&pos2)?, to_f64(&vel2)?);

    // Accelerations: every body of a small system, 257 spread-out bodies of a large one.
    let sample: Vec<usize> = if n <= 2048 {
        (0..n).collect()
    } else {
        (0..257).map(|k| k * (n - 1) / 256).collect()
    };
    for &i in &sample {
        let (want, scale) = host_acceleration(&p, &m, i);
        for c in 0..3 {
            let got = a[3 * i + c];
            // f32 terms summed: each term within a few ulp, the sum's rounding bounded by a few
            // hundred ulp of the magnitudes it adds.
            let err = (got - want[c]).abs();
            if err.is_nan() || err > 3e-5 * scale {
                return Err(format!(
                    "{n} bodies: acceleration of body {i}, axis {c}: {got}, the f64 sum is {}",
                    want[c]
                )
                .into());
            }
        }
    }

    // Momentum: Σ mᵢ aᵢ = 0 exactly, so Σ m v may move only by rounding: the accelerations'
    // (as above) and each new velocity's (half an f32 ulp, under 1e-7 of it).
    let dt = f64::from(DT);
    let mut scale_sum = 0.0;
    for &i in &sample {
        scale_sum += m[i] * host_acceleration(&p, &m, i).1;
    }
    let acc_scale = scale_sum * n as f64 / sample.len() as f64;
    for c in 0..3 {
        let before: f64 = (0..n).map(|i| m[i] * v[3 * i + c]).sum();
        let after: f64 = (0..n).map(|i| m[i] * v2[3 * i + c]).sum();
        let speeds: f64 = (0..n).map(|i| m[i] * v2[3 * i + c].abs()).sum();
        let tol = 3e-5 * acc_scale * dt + 1e-7 * speeds;
        let moved = (after - before).abs();
        if moved.is_nan() || moved > tol {
            return Err(format!(
                "{n} bodies: momentum along axis {c} moved from {before:e} to {after:e} \
                 (rounding allows {tol:e})"
            )
            .into());
        }
    }

    if energy {
        // The f64 host step from the same state, and both energies.
        let mut hv = v.clone();
        let mut hp = p.clone();
        for i in 0..n {
            let (acc_i, _) = host_acceleration(&p, &m, i);
            for c in 0..3 {
                hv[3 * i + c] += acc_i[c] * dt;
                hp[3 * i + c] += hv[3 * i + c] * dt;
            }
        }
        let (e0, e_host, e_got) = (
            host_energy(&p, &v, &m),
            host_energy(&hp, &hv, &m),
            host_energy(&p2, &v2, &m),
        );
        let err = (e_got - e_host).abs();
        if err.is_nan() || err > 1e-6 * e0.abs() {
            return Err(format!(
                "{n} bodies: energy after the step {e_got}, after the f64 host step {e_host} \
                 (before: {e0})"
            )
            .into());
        }
        println!(
            "{n} bodies: energy {e0:.9} before, {e_got:.9} after (f64 host step: {e_host:.9})"
        );
    }
    Ok(ms)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", cuprite_array::info());
    let args: Vec<String> = std::env::args().collect();
    let on_cpu = cuprite_array::current_device() == Device::CPU;
    let full =
        args.iter().any(|a| a == "--full") || (!on_cpu && !args.iter().any(|a| a == "--small"));
    // The energy check is O(n²) on the host: at 1,024 bodies, before a large run.
    if full {
        run(1024, true)?;
    }
    let n = if full { 16_384 } else { 1024 };
    let ms = run(n, n <= 2048)?;
    println!(
        "one all-pairs step of {n} bodies in {ms:.3} ms (on CUDA the first use includes \
         compiling the kernels); accelerations match the f64 sums, momentum is kept"
    );
    Ok(())
}
