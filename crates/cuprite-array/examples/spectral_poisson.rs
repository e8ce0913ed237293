//! A 2-D Poisson solve by FFT as a whole program: the Laplace equation `∇²u = f` on the periodic
//! square `[0, 2π)²`, solved by dividing the transform of `f` by `-(kx² + ky²)`.
//!
//! ```text
//! cargo run --release -p cuprite-array --example spectral_poisson            # 256² grid
//! cargo run --release -p cuprite-array --example spectral_poisson -- --full  # 4096² grid
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example spectral_poisson
//! ```
//!
//! The check is independent of the array code: `f` is the Laplacian of a known
//! `u = sin(3x) cos(5y) + cos(7x + 2y) / 2`, worked out by hand as
//! `f = -34 sin(3x) cos(5y) - 26.5 cos(7x + 2y)`, and every point of the solution is compared
//! with that `u`, computed in f64 on the host. The spectral solve is exact for such a
//! band-limited `u` up to rounding. It exits with an error on any mismatch.

use cuprite_array::ops::fft::FftnOpts;
use cuprite_array::{Array, c32};
use std::f64::consts::TAU;

/// The solution the right-hand side is made from, at `(x, y)`.
fn exact(x: f64, y: f64) -> f64 {
    (3.0 * x).sin() * (5.0 * y).cos() + 0.5 * (7.0 * x + 2.0 * y).cos()
}

/// `u` with `∇²u = f` and mean zero, on an `n × n` periodic grid (axis 0: y, axis 1: x).
fn solve(f: &Array<f32>, n: usize) -> cuprite_array::Result<Array<f32>> {
    let m = n / 2 + 1;
    // Integer wave numbers: `fftfreq` with spacing 1/n.
    let ky = Array::<f32>::fftfreq(n, 1.0 / n as f64)?.reshape(&[n, 1])?;
    let kx = Array::<f32>::rfftfreq(n, 1.0 / n as f64)?.reshape(&[1, m])?;
    let k2 = &ky * &ky + &kx * &kx; // [n, m]; 0 only for the mean, 1 or more elsewhere
    // 1 at the mean, 0 elsewhere; the mean of u is set to 0.
    let at_mean = (&k2 * -1.0 + 1.0).maximum(0.0);
    let inverse = (&at_mean - 1.0) / (&k2 + &at_mean); // -1/k² (0 at the mean)
    let transform = f.rfft2()?;
    (transform * inverse.cast::<c32>()).irfft2_with(FftnOpts::new().s(&[n, n]))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", cuprite_array::info());
    let full = std::env::args().any(|a| a == "--full");
    let n = if full { 4096 } else { 256 };

    let step = (TAU / n as f64) as f32;
    let x = (Array::<f32>::arange(0.0, n as f32, 1.0)? * step).reshape(&[1, n])?;
    let y = (Array::<f32>::arange(0.0, n as f32, 1.0)? * step).reshape(&[n, 1])?;
    let f = (&x * 3.0).sin() * (&y * 5.0).cos() * -34.0 + (&x * 7.0 + &y * 2.0).cos() * -26.5;
    f.eval()?;

    let start = std::time::Instant::now();
    let u = solve(&f, n)?;
    u.eval()?;
    cuprite_array::sync(cuprite_array::current_device())?;
    let elapsed = start.elapsed();

    let u = u.to_vec()?;
    let mut worst = 0.0f64;
    for (i, row) in u.chunks_exact(n).enumerate() {
        let yi = TAU * i as f64 / n as f64;
        for (j, &got) in row.iter().enumerate() {
            let want = exact(TAU * j as f64 / n as f64, yi);
            let err = (f64::from(got) - want).abs();
            if err.is_nan() || err > 1e-4 {
                return Err(
                    format!("u at row {i}, column {j}: {got}, the exact value is {want}").into(),
                );
            }
            worst = worst.max(err);
        }
    }
    println!(
        "{n}² Poisson solve in {:.3} ms (on CUDA the first use includes compiling the kernels \
         and making the FFT plans); every point within {worst:.1e} of the exact solution",
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}
