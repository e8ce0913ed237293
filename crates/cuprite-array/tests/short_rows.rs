//! The operations of a k-means step at small sizes: reductions along short rows (the
//! one-warp-per-row form on CUDA: argmin/argmax with ties, sums and maxima of a fused broadcast
//! producer, for row widths around the warp size and row counts that leave a block part-full),
//! `bincount` of positions, and `index_add` into few destinations (the shared-memory sum on
//! CUDA), against float64 host references.

use cuprite_array::ops::ReduceOpts;
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};

use crate::common::{Body, close};

/// Row widths: below, at and above a warp, the workloads' 64, the form's largest (1024) and
/// one past it (the block-per-row form).
const WIDTHS: [usize; 8] = [1, 5, 31, 32, 33, 64, 1024, 1025];
/// Rows: not a multiple of the rows a block takes.
const ROWS: usize = 37;

/// Small integers as `f32`, so that most rows hold ties.
fn tied(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| (rng.next_u64() % 7) as f32).collect()
}

/// Index of the first smallest (`min`) or largest value of each row of `w` values.
fn first_extreme(v: &[f32], w: usize, min: bool) -> Vec<f64> {
    v.chunks(w)
        .map(|row| {
            let mut best = 0;
            for (j, &x) in row.iter().enumerate() {
                if (min && x < row[best]) || (!min && x > row[best]) {
                    best = j;
                }
            }
            best as f64
        })
        .collect()
}

fn as_f64(v: &[i64]) -> Vec<f64> {
    v.iter().map(|&i| i as f64).collect()
}

fn arg_last_axis(dev: Device) -> TestResult {
    let mut rng = Rng::seeded(11);
    for w in WIDTHS {
        let v = tied(&mut rng, ROWS * w);
        let a = Array::<f32>::from_slice_on(dev, &v, &[ROWS, w])?;
        let lo = a.argmin_axis(1)?.to_vec()?;
        close(
            &as_f64(&lo),
            &first_extreme(&v, w, true),
            0.0,
            0.0,
            &format!("argmin w={w}"),
        )?;
        let hi = a.argmax_axis_with(-1, ReduceOpts::new().keepdims(true))?;
        if hi.shape() != [ROWS, 1] {
            return Err(format!("argmax keepdims shape {:?}", hi.shape()).into());
        }
        let hi = hi.to_vec()?;
        close(
            &as_f64(&hi),
            &first_extreme(&v, w, false),
            0.0,
            0.0,
            &format!("argmax w={w}"),
        )?;
    }
    Ok(())
}

fn arg_first_axis(dev: Device) -> TestResult {
    // Along axis 0 of a [w, ROWS] array: the rows are columns, strided in memory.
    let mut rng = Rng::seeded(12);
    for w in [3usize, 64, 200] {
        let v = tied(&mut rng, ROWS * w);
        let mut t = vec![0.0f32; ROWS * w];
        for r in 0..ROWS {
            for j in 0..w {
                t[j * ROWS + r] = v[r * w + j];
            }
        }
        let a = Array::<f32>::from_slice_on(dev, &t, &[w, ROWS])?;
        let got = a.argmin_axis(0)?.to_vec()?;
        close(
            &as_f64(&got),
            &first_extreme(&v, w, true),
            0.0,
            0.0,
            &format!("argmin axis 0, w={w}"),
        )?;
    }
    Ok(())
}

fn fused_producer(dev: Device) -> TestResult {
    // `c - 2x` with `c` broadcast over the rows, as the k-means scores are formed.
    let mut rng = Rng::seeded(13);
    for w in WIDTHS {
        let x = rng.vec_f32(ROWS * w, -4.0, 4.0);
        let c = rng.vec_f32(w, -1.0, 1.0);
        let xa = Array::<f32>::from_slice_on(dev, &x, &[ROWS, w])?;
        let ca = Array::<f32>::from_slice_on(dev, &c, &[w])?;
        let scores = &ca - &xa * 2.0;
        let score = |r: usize, j: usize| f64::from(c[j]) - 2.0 * f64::from(x[r * w + j]);
        let sum_ref: Vec<f64> = (0..ROWS)
            .map(|r| (0..w).map(|j| score(r, j)).sum())
            .collect();
        let max_ref: Vec<f64> = (0..ROWS)
            .map(|r| (0..w).map(|j| score(r, j)).fold(f64::MIN, f64::max))
            .collect();
        let arg_ref: Vec<f64> = (0..ROWS)
            .map(|r| {
                let mut best = 0;
                for j in 0..w {
                    if score(r, j) < score(r, best) {
                        best = j;
                    }
                }
                best as f64
            })
            .collect();
        let sum: Vec<f64> = scores
            .sum_axes(&[1])?
            .to_vec()?
            .iter()
            .map(|&s| f64::from(s))
            .collect();
        close(&sum, &sum_ref, 1e-5, 1e-4 * w as f64, &format!("sum w={w}"))?;
        let max: Vec<f64> = scores
            .max_axes(&[-1])?
            .to_vec()?
            .iter()
            .map(|&s| f64::from(s))
            .collect();
        close(&max, &max_ref, 1e-6, 1e-6, &format!("max w={w}"))?;
        // Near-ties may round either way in f32: the chosen index is judged by its score.
        let arg = scores.argmin_axis(1)?.to_vec()?;
        for (r, (&g, &want)) in arg.iter().zip(&arg_ref).enumerate() {
            if g < 0 || g as usize >= w {
                return Err(format!("argmin w={w} row {r}: index {g} out of range").into());
            }
            let (got_v, want_v) = (score(r, g as usize), score(r, want as usize));
            if (got_v - want_v).abs() > 1e-5 * want_v.abs().max(1.0) {
                return Err(format!(
                    "argmin w={w} row {r}: index {g} (score {got_v}), expected {want} ({want_v})"
                )
                .into());
            }
        }
    }
    Ok(())
}

fn bincount_of_positions(dev: Device) -> TestResult {
    // Positions from argmin are known to lie in [0, w): `bincount(w)` needs no read-back, and
    // `bincount(0)` still has max + 1 bins, as NumPy's.
    let mut rng = Rng::seeded(14);
    let w = 8;
    // Rows whose minimum is never in the last two columns: the largest position is at most 5.
    let mut v = rng.vec_f32(ROWS * w, 0.0, 1.0);
    for r in 0..ROWS {
        v[r * w + 6] += 2.0;
        v[r * w + 7] += 2.0;
    }
    let a = Array::<f32>::from_slice_on(dev, &v, &[ROWS, w])?;
    let want_pos = first_extreme(&v, w, true);
    let mut want = vec![0.0f64; w];
    for &p in &want_pos {
        want[p as usize] += 1.0;
    }
    let labels = a.argmin_axis(1)?;
    let full = labels.bincount(w)?.to_vec()?;
    close(&as_f64(&full), &want, 0.0, 0.0, "bincount(8) of positions")?;
    let top = want_pos.iter().fold(0.0f64, |m, &p| m.max(p)) as usize;
    let fitted = a.argmin_axis(1)?.bincount(0)?.to_vec()?;
    close(
        &as_f64(&fitted),
        &want[..=top],
        0.0,
        0.0,
        "bincount(0) of positions",
    )?;
    Ok(())
}

fn index_add_few_destinations(dev: Device) -> TestResult {
    use cuprite_array::ops::ScatterOpts;
    // 70,000 rows of 16 added into 64 rows (label 63 never used): more than 2^16 updates into
    // 1,024 destinations. The base holds -0.0 where nothing lands, which must stay -0.0.
    let (n, d, k) = (70_000usize, 16usize, 64usize);
    let mut rng = Rng::seeded(15);
    let x = rng.vec_f32(n * d, -1.0, 1.0);
    let labels: Vec<i64> = (0..n).map(|_| (rng.next_u64() % 63) as i64).collect();
    let mut base = rng.vec_f32(k * d, -1.0, 1.0);
    base[(k - 1) * d..].fill(-0.0);
    let mut want: Vec<f64> = base.iter().map(|&b| f64::from(b)).collect();
    for (r, &l) in labels.iter().enumerate() {
        for c in 0..d {
            want[l as usize * d + c] += f64::from(x[r * d + c]);
        }
    }
    let xa = Array::<f32>::from_slice_on(dev, &x, &[n, d])?;
    let la = Array::<i64>::from_slice_on(dev, &labels, &[n])?;
    let ba = Array::<f32>::from_slice_on(dev, &base, &[k, d])?;
    let got = ba
        .index_add(0, &la, &xa, ScatterOpts::default())?
        .to_vec()?;
    let got64: Vec<f64> = got.iter().map(|&g| f64::from(g)).collect();
    // About 1,100 terms of magnitude below 1 per destination.
    close(&got64, &want, 1e-4, 2e-3, "index_add f32")?;
    if got[(k - 1) * d..]
        .iter()
        .any(|g| g.to_bits() != (-0.0f32).to_bits())
    {
        return Err("index_add: an untouched -0.0 lost its sign".into());
    }
    // Integers: exact.
    let xi: Vec<i64> = (0..n * d)
        .map(|_| (rng.next_u64() % 2001) as i64 - 1000)
        .collect();
    let mut want_i = vec![0i64; k * d];
    for (r, &l) in labels.iter().enumerate() {
        for c in 0..d {
            want_i[l as usize * d + c] += xi[r * d + c];
        }
    }
    let xia = Array::<i64>::from_slice_on(dev, &xi, &[n, d])?;
    let got_i = Array::<i64>::from_slice_on(dev, &vec![0; k * d], &[k, d])?
        .index_add(0, &la, &xia, ScatterOpts::default())?
        .to_vec()?;
    if got_i != want_i {
        return Err("index_add i64 differs from the host sum".into());
    }
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    (
        "short_rows_index_add_few_destinations",
        index_add_few_destinations,
    ),
    ("short_rows_bincount_of_positions", bincount_of_positions),
    ("short_rows_arg_last_axis", arg_last_axis),
    ("short_rows_arg_first_axis", arg_first_axis),
    ("short_rows_fused_producer", fused_producer),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::{name}"), move || body(Device::CPU)));
        v.push(Test::gpu(format!("cuda::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
