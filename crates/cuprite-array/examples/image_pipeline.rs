//! An image pipeline on a synthetic picture (three bright discs on a dark ground, made in
//! code): Gaussian smoothing, Sobel and Canny edges, a threshold, connected-component
//! labelling, per-label measurements and a sub-pixel shift.
//!
//! ```text
//! cargo run --release -p cuprite-array --example image_pipeline
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example image_pipeline
//! cargo run --release -p cuprite-array --example image_pipeline -- --full
//! ```
//!
//! It runs on CUDA when a GPU is present, else on the CPU, and checks every step against
//! values computed here on the host in f64 from the definitions (a Gaussian window, Sobel's
//! 3 x 3 stencil, a two-point interpolation, areas and centroids by plain loops). It exits
//! with an error at the first mismatch.
//!
//! With `--full` it then runs the steps of `cuprite bench workloads/image_pipeline` on its
//! 4096 x 4096 image of 256 discs that do not touch (Canny's edges of the smoothed image,
//! 8-connected labels) and checks them against the discs drawn: one component for each, each
//! centroid at a disc's centre, each area near the disc's.

use cuprite_array::image::{self, InterpOpts};
use cuprite_array::{Array, current_device};
use std::time::Instant;

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
    if std::env::args().any(|a| a == "--full") {
        full_size()?;
    }
    Ok(())
}

/// The discs of the full-size image, as `cuprite bench workloads/image_pipeline` and its
/// PyTorch peer draw them: (row, column, radius, value), one in each 256-pixel cell of an
/// `n x n` image, at least 12 pixels inside its cell.
fn full_discs(n: usize) -> Vec<(usize, usize, usize, f32)> {
    let (cell, per) = (256, n / 256);
    (0..per * per)
        .map(|k| {
            let (a, b) = (k / per, k % per);
            let r = 16 + (k * 37) % 41;
            let room = cell / 2 - r - 12;
            let row = a * cell + cell / 2 + (k * 73) % (2 * room + 1) - room;
            let col = b * cell + cell / 2 + (k * 91) % (2 * room + 1) - room;
            (row, col, r, (0.6 + 0.04 * ((k * 29) % 11) as f64) as f32)
        })
        .collect()
}

/// The benchmark's pipeline on its 4096 x 4096 image, checked against the discs drawn.
fn full_size() -> Result<(), Box<dyn std::error::Error>> {
    let n = 4096;
    let discs = full_discs(n);
    let mut host = vec![0.0f32; n * n];
    for &(ci, cj, r, v) in &discs {
        for i in ci - r..=ci + r {
            for j in cj - r..=cj + r {
                if i.abs_diff(ci).pow(2) + j.abs_diff(cj).pow(2) <= r * r {
                    host[i * n + j] = v;
                }
            }
        }
    }
    let img = Array::from_slice(&host, &[n, n])?;
    img.eval()?;
    let t = Instant::now();
    let smooth = image::gaussian_filter(&img, &[2.0])?;
    let (gx, gy) = (image::sobel(&smooth, -1)?, image::sobel(&smooth, -2)?);
    let magnitude = (&gx * &gx + &gy * &gy).sqrt();
    let edges = image::canny(&smooth, 0.2, 0.5)?;
    let mask = smooth.try_greater(0.5f32)?;
    let (labels, count) = image::label_with(&mask, &image::generate_binary_structure(2, 2)?)?;
    let index: Vec<i64> = (1..=count as i64).collect();
    let ones = mask.cast::<f32>();
    let area = image::sum_labels(&ones, &labels, &index)?.to_vec()?;
    let com = image::center_of_mass(&ones, &labels, &index)?.to_vec()?;
    let moved = image::shift_with(&smooth, &[3.5, -2.0], InterpOpts::new().order(1))?;
    cuprite_array::eval_many(&[&magnitude, &moved])?;
    let n_edges = edges.cast::<u64>().sum()?.item()?;
    let secs = t.elapsed().as_secs_f64();
    check!(
        count == discs.len(),
        "{count} components, {} discs",
        discs.len()
    );
    let mut seen = vec![false; discs.len()];
    for (k, c) in com.chunks(2).enumerate() {
        // Each disc and its blurred threshold are symmetric about the disc's centre.
        let d = discs
            .iter()
            .position(|d| near(c[0], d.0 as f64, 0.05) && near(c[1], d.1 as f64, 0.05))
            .filter(|&d| !seen[d])
            .ok_or(format!(
                "label {}: centroid ({}, {}) at no disc's centre",
                k + 1,
                c[0],
                c[1]
            ))?;
        seen[d] = true;
        let a = |r: f64| std::f64::consts::PI * r * r;
        let r = discs[d].2 as f64;
        check!(
            (a(r - 3.0)..=a(r + 3.0)).contains(&area[k]),
            "label {}: {} pixels for a disc of radius {r}",
            k + 1,
            area[k]
        );
    }
    check!(n_edges > 0, "canny found no edge at full size");
    println!(
        "{n}x{n} image of {} discs: {count} components at the discs' centres, {n_edges} edge \
         pixels, {:.1} ms (first run, kernels compiled included)",
        discs.len(),
        secs * 1e3
    );
    Ok(())
}
