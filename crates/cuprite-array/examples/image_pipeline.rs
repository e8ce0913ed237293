//! An image pipeline on a synthetic picture (three bright discs on a dark ground, made in
//! code): Gaussian smoothing, Sobel and Canny edges, a threshold, connected-component
//! labelling, per-label measurements and a sub-pixel shift.
//!
//! ```text
//! cargo run --release -p cuprite-array --example image_pipeline
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example image_pipeline
//! ```
//!
//! It runs on CUDA when a GPU is present, else on the CPU, and checks every step against
//! values computed here on the host in f64 from the definitions (a Gaussian window, Sobel's
//! 3 x 3 stencil, a two-point interpolation, areas and centroids by plain loops). It exits
//! with an error at the first mismatch.

use cuprite_array::image::{self, InterpOpts};
use cuprite_array::{Array, current_device};

const H: usize = 96;
const W: usize = 128;
/// The discs: centre row, centre column, radius.
const DISCS: [(f64, f64, f64); 3] = [(24.0, 30.0, 10.0), (60.0, 90.0, 14.0), (70.0, 28.0, 8.0)];

/// Returns an error with the message when the condition fails.
macro_rules! check {
    ($ok:expr, $($msg:tt)*) => {
        if !$ok {
            return Err(format!($($msg)*).into());
        }
    };
}

fn near(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() < tol
}

/// The distance from pixel `p` (row-major) to the centre of disc `d`.
fn dist(p: usize, d: &(f64, f64, f64)) -> f64 {
    ((p / W) as f64 - d.0).hypot((p % W) as f64 - d.1)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", cuprite_array::info());
    let host: Vec<f32> = (0..H * W)
        .map(|p| f32::from(u8::from(DISCS.iter().any(|d| dist(p, d) <= d.2))))
        .collect();
    let img = Array::from_slice(&host, &[H, W])?;

    // 1. Gaussian smoothing (sigma 2, SciPy's window of radius round(4 sigma) = 8).
    let (sigma, r) = (2.0f64, 8usize);
    let smooth = image::gaussian_filter(&img, &[sigma])?;
    let s = smooth.to_vec()?;
    let w: Vec<f64> = (0..=2 * r)
        .map(|k| (-0.5 * ((k as f64 - r as f64) / sigma).powi(2)).exp())
        .collect();
    let norm: f64 = w.iter().sum::<f64>().powi(2);
    for i in (r..H - r).step_by(5) {
        for j in (r..W - r).step_by(5) {
            let mut want = 0.0;
            for (a, wa) in w.iter().enumerate() {
                for (b, wb) in w.iter().enumerate() {
                    want += wa * wb * f64::from(host[(i + a - r) * W + j + b - r]);
                }
            }
            let got = f64::from(s[i * W + j]);
            check!(near(got, want / norm, 1e-5), "gaussian at ({i}, {j})");
        }
    }

    // 2. Sobel derivatives of the smoothed image, and Canny's edges of the original.
    let gx = image::sobel(&smooth, -1)?.to_vec()?;
    let at = |i: usize, j: usize| f64::from(s[i * W + j]);
    for i in (1..H - 1).step_by(3) {
        for j in (1..W - 1).step_by(3) {
            let want = (at(i - 1, j + 1) - at(i - 1, j - 1))
                + 2.0 * (at(i, j + 1) - at(i, j - 1))
                + (at(i + 1, j + 1) - at(i + 1, j - 1));
            check!(
                near(f64::from(gx[i * W + j]), want, 1e-5),
                "sobel at ({i}, {j})"
            );
        }
    }
    let edges = image::canny(&img, 0.2, 0.5)?.to_vec()?;
    let n_edges = edges.iter().filter(|&&e| e).count();
    for p in (0..H * W).filter(|&p| edges[p]) {
        let on_rim = DISCS.iter().any(|d| near(dist(p, d), d.2, 2.1));
        check!(on_rim, "canny edge at pixel {p} off every rim");
    }
    check!(n_edges > 100, "canny found only {n_edges} edge pixels");

    // 3. Threshold, label the blobs and measure each one.
    let mask = smooth.try_greater(0.5f32)?;
    let (labels, n) = image::label(&mask)?;
    check!(n == DISCS.len(), "{n} components, not {}", DISCS.len());
    let index: Vec<i64> = (1..=n as i64).collect();
    let ones = mask.cast::<f32>();
    let area = image::sum_labels(&ones, &labels, &index)?.to_vec()?;
    let com = image::center_of_mass(&ones, &labels, &index)?.to_vec()?;
    for (k, c) in com.chunks(2).enumerate() {
        // The disc nearest this label's centroid, and its area and centroid from the host's
        // own threshold of the smoothed values.
        let (ci, cj) = (c[0], c[1]);
        let d = DISCS
            .iter()
            .min_by(|a, b| {
                (a.0 - ci)
                    .hypot(a.1 - cj)
                    .total_cmp(&(b.0 - ci).hypot(b.1 - cj))
            })
            .ok_or("no discs")?;
        let mine: Vec<usize> = (0..H * W)
            .filter(|&p| s[p] > 0.5 && dist(p, d) < 2.0 * d.2)
            .collect();
        let a = mine.len() as f64;
        let hi = mine.iter().map(|&p| (p / W) as f64).sum::<f64>() / a;
        let hj = mine.iter().map(|&p| (p % W) as f64).sum::<f64>() / a;
        check!(area[k] == a, "label {}: area {} vs {a}", k + 1, area[k]);
        check!(
            near(ci, hi, 1e-9) && near(cj, hj, 1e-9),
            "label {}: centroid",
            k + 1
        );
        println!("blob {}: {a} pixels, centroid ({ci:.2}, {cj:.2})", k + 1);
    }

    // 4. A shift by (3.5, -2) with linear interpolation: each output is the mean of two inputs.
    let moved = image::shift_with(&smooth, &[3.5, -2.0], InterpOpts::new().order(1))?.to_vec()?;
    for i in 4..H {
        for j in 0..W - 2 {
            let want = 0.5 * (at(i - 4, j + 2) + at(i - 3, j + 2));
            check!(
                near(f64::from(moved[i * W + j]), want, 1e-6),
                "shift at ({i}, {j})"
            );
        }
    }
    println!(
        "{H}x{W} image on {}: {n} blobs, {n_edges} edge pixels; every step matches the host",
        current_device()
    );
    Ok(())
}
