//! Arg-reductions of few long lines (the whole array, or the last axis of an array with few
//! rows), which cut each line into chunks reduced by many blocks and then combine the chunks'
//! extremes: the first extreme (the first NaN where there is one) at every line length, with
//! ties across chunk borders, against a host scan.

use cuprite_array::ops::ReduceOpts;
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};

use crate::common::Body;

/// Line lengths: two with many divisors, one without (a prime: the one-stage reduction), one
/// whose extreme lies in the last chunk.
const LENGTHS: [usize; 3] = [1 << 16, 3 << 17, 65_537];

/// Small integers as `f32`, so that the extreme is tied across many chunks.
fn tied(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| (rng.next_u64() % 50) as f32).collect()
}

/// Index of the first largest (or smallest) value; the first NaN wins over every number.
fn first_extreme(v: &[f32], min: bool) -> i64 {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return i as i64;
    }
    let mut best = 0;
    for (j, &x) in v.iter().enumerate() {
        if (min && x < v[best]) || (!min && x > v[best]) {
            best = j;
        }
    }
    best as i64
}

fn flat_lines(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    for n in LENGTHS {
        let mut v = tied(&mut rng, n);
        // A new maximum and minimum near the end, once in the middle of a chunk.
        v[n - 3] = 99.0;
        v[n - 5] = -1.0;
        let a = Array::from_slice_on(d, &v, &[n])?;
        for (min, got) in [(false, a.argmax()?), (true, a.argmin()?)] {
            let want = first_extreme(&v, min);
            if got.shape() != [] as [usize; 0] || got.item()? != want {
                return Err(
                    format!("n={n} min={min}: got {:?}, want {want}", got.to_vec()?).into(),
                );
            }
        }
        // Ties only: the first occurrence.
        let flat = vec![7.0f32; n];
        let b = Array::from_slice_on(d, &flat, &[n])?;
        if b.argmax()?.item()? != 0 || b.argmin()?.item()? != 0 {
            return Err(format!("n={n}: ties did not give index 0").into());
        }
        // A NaN after a tie of maxima: the NaN.
        let mut w = v.clone();
        w[n / 2 + 1] = f32::NAN;
        let c = Array::from_slice_on(d, &w, &[n])?;
        let want = first_extreme(&w, false);
        if c.argmax()?.item()? != want || c.argmin()?.item()? != want {
            return Err(format!("n={n}: the NaN at {want} was not found first").into());
        }
    }
    Ok(())
}

fn last_axis_lines(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (rows, n) = (3, 3usize << 16);
    let v = tied(&mut rng, rows * n);
    let a = Array::from_slice_on(d, &v, &[rows, n])?;
    let want: Vec<i64> = v.chunks(n).map(|r| first_extreme(r, false)).collect();
    let got = a.argmax_axis(-1)?;
    if got.shape() != [rows] || got.to_vec()? != want {
        return Err(format!("argmax rows: got {:?}, want {want:?}", got.to_vec()?).into());
    }
    let kept = a.argmin_axis_with(1, ReduceOpts::new().keepdims(true))?;
    let want: Vec<i64> = v.chunks(n).map(|r| first_extreme(r, true)).collect();
    if kept.shape() != [rows, 1] || kept.to_vec()? != want {
        return Err(format!(
            "argmin keepdims: got {:?} {:?}, want {want:?}",
            kept.shape(),
            kept.to_vec()?
        )
        .into());
    }
    Ok(())
}

const BODIES: &[(&str, Body)] = &[
    ("flat_lines", flat_lines),
    ("last_axis_lines", last_axis_lines),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::long_lines::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::long_lines::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
