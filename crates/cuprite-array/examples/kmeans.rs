//! k-means clustering (Lloyd's iterations) as a whole program: a distance matrix by one matrix
//! product, the nearest centroid of every point, the new centroids by a scatter-add and a
//! count, all as array work; then a check of the result.
//!
//! ```text
//! cargo run --release -p cuprite-array --example kmeans            # 2^14 points, 16 clusters
//! cargo run --release -p cuprite-array --example kmeans -- --full  # 2^22 points, 64 clusters
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example kmeans
//! ```
//!
//! The points are drawn around known centres (the corners of a hypercube of side 20, noise of
//! deviation 0.8 in 16 dimensions), so the answer is known without the array code: every point
//! must end in the cluster of its own centre, and every centroid must equal the mean of that
//! cluster's points, computed in f64 on the host. It exits with an error on any mismatch.

use cuprite_array::{Array, ops::ScatterOpts};

/// Dimensions of the points.
const DIM: usize = 16;
/// Lloyd iterations.
const ITERATIONS: usize = 10;

/// One Lloyd iteration: the label of every point, and the new centroids (an empty cluster keeps
/// its centroid).
fn lloyd_step(
    x: &Array<f32>,
    centroids: &Array<f32>,
    k: usize,
) -> cuprite_array::Result<(Array<i64>, Array<f32>)> {
    // |x - c|^2 = |x|^2 - 2 x.c + |c|^2; |x|^2 is the same for every c of a point, so the
    // nearest centroid is the smallest |c|^2 - 2 x.c.
    let c_sq = (centroids * centroids).sum_axes(&[1])?; // [k]
    let scores = c_sq - x.matmul(&centroids.t())? * 2.0; // [n, k]
    let labels = scores.argmin_axis(1)?; // [n]
    let sums = Array::<f32>::zeros(&[k, DIM]).index_add(0, &labels, x, ScatterOpts::default())?;
    let counts = labels.bincount(k)?.cast::<f32>().reshape(&[k, 1])?;
    // An empty cluster (count 0) gets (0 + old) / 1; the others sums / count.
    let keep_old = (&counts * -1.0 + 1.0).maximum(0.0);
    let new = (sums + centroids * &keep_old) / counts.maximum(1.0);
    Ok((labels, new))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", cuprite_array::info());
    let full = std::env::args().any(|a| a == "--full");
    let (n, k) = if full {
        (1usize << 22, 64usize)
    } else {
        (1 << 14, 16)
    };
    let bits = k.trailing_zeros() as usize; // k is a power of two, at most 2^DIM

    // Centre j: coordinate b is +10 or -10 by bit b of j (b < bits), 0 beyond.
    let mut centres = vec![0.0f32; k * DIM];
    for j in 0..k {
        for b in 0..bits {
            centres[j * DIM + b] = if j >> b & 1 == 1 { 10.0 } else { -10.0 };
        }
    }
    let centres = Array::from_vec(centres, &[k, DIM])?;
    // Point i belongs to centre i % k; the first k points seed the centroids, one per cluster.
    let truth = Array::<i64>::arange(0, n as i64, 1)? % k as i64;
    let x = centres.index_select(0, &truth)? + Array::<f32>::rand_normal(&[n, DIM], 1)? * 0.8;
    x.eval()?;
    let mut centroids = x.index_select(0, &Array::<i64>::arange(0, k as i64, 1)?)?;

    let start = std::time::Instant::now();
    let mut labels = None;
    for _ in 0..ITERATIONS {
        let (l, c) = lloyd_step(&x, &centroids, k)?;
        c.eval()?;
        centroids = c;
        labels = Some(l);
    }
    cuprite_array::sync(cuprite_array::current_device())?;
    let elapsed = start.elapsed();

    let labels = labels.ok_or("no iteration ran")?.to_vec()?;
    if let Some(i) = (0..n).find(|&i| labels[i] != (i % k) as i64) {
        return Err(format!(
            "point {i} is in cluster {}, its centre is {}",
            labels[i],
            i % k
        )
        .into());
    }
    let (xs, got) = (x.to_vec()?, centroids.to_vec()?);
    let mut sums = vec![0.0f64; k * DIM];
    for (i, row) in xs.chunks_exact(DIM).enumerate() {
        for (s, &v) in sums[(i % k) * DIM..][..DIM].iter_mut().zip(row) {
            *s += f64::from(v);
        }
    }
    let per_cluster = (n / k) as f64;
    let mut worst = 0.0f64;
    for (j, (&g, &s)) in got.iter().zip(&sums).enumerate() {
        let want = s / per_cluster;
        let err = (f64::from(g) - want).abs();
        worst = worst.max(err);
        if err.is_nan() || err > 1e-3 {
            return Err(format!(
                "centroid {} coordinate {}: {g}, the mean of its points is {want}",
                j / DIM,
                j % DIM
            )
            .into());
        }
    }
    println!(
        "{n} points, {k} clusters, {ITERATIONS} iterations in {:.3} ms (on CUDA the first use \
         includes compiling the kernels); every label right, centroids within {worst:.1e} of \
         the f64 means",
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}
