//! Reductions over a leading axis of row-major arrays (NumPy's `sum(axis=0)`): the reduced
//! axis strided, neighbouring outputs reading neighbouring elements (the column form on
//! CUDA), over extents that cross every chunk and output-group edge, for 2-D arrays, 3-D
//! `[r, c, 2]` arrays, sliced (non-contiguous) views and fused expressions, in f32, f64, bf16
//! and i32, against float64 (or exact integer) host loops.
//!
//! The data are small integers, so every element and partial sum is exact in the accumulator
//! and the results equal the host's whatever the order of summation (bf16 results are the
//! exact sum rounded once to bf16).

use cuprite_array::{Array, Device, Numeric, Ordered, bf16, s};
use cuprite_testkit::{Rng, Test, TestResult};

use crate::common::{Body, close};

/// Extents of the reduced and of the kept axis.
const EXTENTS: [usize; 5] = [1, 3, 33, 1000, 4097];

/// The most elements of one tested array.
const MOST: usize = 4_200_000;

/// Integers in `[lo, hi]` as `f64`.
fn ints(rng: &mut Rng, n: usize, lo: i64, hi: i64) -> Vec<f64> {
    let span = (hi - lo + 1) as u64;
    (0..n)
        .map(|_| (lo + (rng.next_u64() % span) as i64) as f64)
        .collect()
}

/// Factors of magnitude 1, and a few 2s where `twos`: products stay exact.
fn factors(rng: &mut Rng, n: usize, twos: bool) -> Vec<f64> {
    (0..n)
        .map(|_| match rng.next_u64() % 64 {
            0 if twos => 2.0,
            r if r % 2 == 0 => -1.0,
            _ => 1.0,
        })
        .collect()
}

/// Per output `k` of `cols` outputs: `f` over the `rows` values `v[j * cols + k]`.
fn host_axis0(v: &[f64], rows: usize, cols: usize, f: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    (0..cols)
        .map(|k| {
            let col: Vec<f64> = (0..rows).map(|j| v[j * cols + k]).collect();
            f(&col)
        })
        .collect()
}

fn h_sum(c: &[f64]) -> f64 {
    c.iter().sum()
}
fn h_prod(c: &[f64]) -> f64 {
    c.iter().product()
}
fn h_min(c: &[f64]) -> f64 {
    c.iter().copied().fold(f64::INFINITY, f64::min)
}
fn h_max(c: &[f64]) -> f64 {
    c.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}
fn h_any(c: &[f64]) -> f64 {
    c.iter().any(|&x| x != 0.0) as u8 as f64
}
fn h_all(c: &[f64]) -> f64 {
    c.iter().all(|&x| x != 0.0) as u8 as f64
}

/// A dtype under test: host values in and out through `f64`.
trait Kind: Numeric + Ordered + Copy {
    /// The largest magnitude of the test's integers (so sums stay exact).
    const SPAN: i64;
    /// Whether products may hold factors of 2 (a float: no overflow in the tested lengths).
    const TWOS: bool;
    fn of(x: f64) -> Self;
    fn back(self) -> f64;
    /// The exact `x` as the dtype's sum rounds it.
    fn rounded(x: f64) -> f64 {
        Self::of(x).back()
    }
}

impl Kind for f32 {
    const SPAN: i64 = 4;
    const TWOS: bool = true;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn back(self) -> f64 {
        self as f64
    }
}
impl Kind for f64 {
    const SPAN: i64 = 4;
    const TWOS: bool = true;
    fn of(x: f64) -> Self {
        x
    }
    fn back(self) -> f64 {
        self
    }
}
impl Kind for bf16 {
    const SPAN: i64 = 3;
    const TWOS: bool = true;
    fn of(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn back(self) -> f64 {
        self.to_f64()
    }
}
impl Kind for i32 {
    const SPAN: i64 = 5;
    const TWOS: bool = false;
    fn of(x: f64) -> Self {
        x as i32
    }
    fn back(self) -> f64 {
        self as f64
    }
}

impl Kind for i64 {
    const SPAN: i64 = 5;
    const TWOS: bool = false;
    fn of(x: f64) -> Self {
        x as i64
    }
    fn back(self) -> f64 {
        self as f64
    }
}

fn back_all<T: Kind>(v: Vec<T>) -> Vec<f64> {
    v.into_iter().map(Kind::back).collect()
}

/// The host values and the array of shape `shape` (`[r, c]` or `[r, c, 2]`) holding them,
/// as a view of a wider array where `sliced` (its last axis twice as long, the first half
/// taken), so that the reduced axis is strided and the array is not contiguous.
fn make<T: Kind>(
    dev: Device,
    vals: &[f64],
    shape: &[usize],
    sliced: bool,
) -> cuprite_array::Result<Array<T>> {
    if !sliced {
        let h: Vec<T> = vals.iter().map(|&x| T::of(x)).collect();
        return Array::from_slice_on(dev, &h, shape);
    }
    let last = *shape.last().unwrap_or(&1);
    let lines = vals.len() / last.max(1);
    let mut wide = Vec::with_capacity(vals.len() * 2);
    for l in 0..lines {
        wide.extend(vals[l * last..(l + 1) * last].iter().map(|&x| T::of(x)));
        wide.extend((0..last).map(|_| T::of(7.0)));
    }
    let mut wshape = shape.to_vec();
    if let Some(w) = wshape.last_mut() {
        *w *= 2;
    }
    let w = Array::from_slice_on(dev, &wide, &wshape)?;
    if shape.len() == 2 {
        w.slice(&s![.., ..last])
    } else {
        w.slice(&s![.., .., ..last])
    }
}

/// Every reduction over axis 0 of `x` (host values `v`, `rows` by `cols` outputs) against
/// the host's: sum, mean, min, max, any, all, and prod of `p` (host values of factors).
fn check_all<T: Kind>(
    dev: Device,
    (v, p): (&[f64], &[f64]),
    shape: &[usize],
    sliced: bool,
    what: &str,
) -> TestResult
where
    T::Accum: Kind,
{
    let rows = shape[0];
    let cols: usize = shape[1..].iter().product();
    let x = make::<T>(dev, v, shape, sliced)?;
    let sum = back_all(x.sum_axes(&[0])?.to_vec()?);
    let want: Vec<f64> = host_axis0(v, rows, cols, h_sum)
        .into_iter()
        .map(<T::Accum as Kind>::rounded)
        .collect();
    close(&sum, &want, 0.0, 0.0, &format!("sum of {what}"))?;
    let mean: Vec<f64> = x
        .mean_axes(&[0])?
        .cast::<f64>()
        .to_vec()?
        .into_iter()
        .collect();
    let want_mean = host_axis0(v, rows, cols, |c| h_sum(c) / c.len() as f64);
    close(&mean, &want_mean, 1e-2, 1e-2, &format!("mean of {what}"))?;
    let min = back_all(x.min_axes(&[0])?.to_vec()?);
    close(
        &min,
        &host_axis0(v, rows, cols, h_min),
        0.0,
        0.0,
        &format!("min of {what}"),
    )?;
    let max = back_all(x.max_axes(&[-(shape.len() as isize)])?.to_vec()?);
    close(
        &max,
        &host_axis0(v, rows, cols, h_max),
        0.0,
        0.0,
        &format!("max of {what}"),
    )?;
    let any: Vec<f64> = x
        .any_axes(&[0])?
        .to_vec()?
        .into_iter()
        .map(|b| b as u8 as f64)
        .collect();
    close(
        &any,
        &host_axis0(v, rows, cols, h_any),
        0.0,
        0.0,
        &format!("any of {what}"),
    )?;
    let all: Vec<f64> = x
        .all_axes(&[0])?
        .to_vec()?
        .into_iter()
        .map(|b| b as u8 as f64)
        .collect();
    close(
        &all,
        &host_axis0(v, rows, cols, h_all),
        0.0,
        0.0,
        &format!("all of {what}"),
    )?;
    let px = make::<T>(dev, p, shape, sliced)?;
    let prod = back_all(px.prod_axes(&[0])?.to_vec()?);
    close(
        &prod,
        &host_axis0(p, rows, cols, h_prod),
        0.0,
        0.0,
        &format!("prod of {what}"),
    )?;
    Ok(())
}

/// Values for `n` elements: small integers, and in some runs of outputs only zeros or
/// never a zero (so that `any` and `all` take both values).
fn values<T: Kind>(rng: &mut Rng, n: usize, cols: usize) -> Vec<f64> {
    let mut v = ints(rng, n, -T::SPAN, T::SPAN);
    for (i, x) in v.iter_mut().enumerate() {
        match (i % cols.max(1)) % 5 {
            1 => *x = 0.0,
            2 if *x == 0.0 => *x = 1.0,
            _ => {}
        }
    }
    v
}

/// Every shape of [`EXTENTS`] (up to `most` elements), 2-D and `[r, c, 2]`, whole and sliced.
fn leading_of<T: Kind>(dev: Device, seed: u64, most: usize, t: &str) -> TestResult
where
    T::Accum: Kind,
{
    let mut rng = Rng::seeded(seed);
    for r in EXTENTS {
        for c in EXTENTS {
            for shape in [vec![r, c], vec![r, c, 2]] {
                let n: usize = shape.iter().product();
                if n > most {
                    continue;
                }
                let cols = n / r;
                let v = values::<T>(&mut rng, n, cols);
                // No 2s in integer products: i64 holds at most 62 doublings.
                let p = factors(&mut rng, n, T::TWOS);
                for sliced in [false, true] {
                    let what = format!("{t} {shape:?}{}", if sliced { " (sliced)" } else { "" });
                    check_all::<T>(dev, (&v, &p), &shape, sliced, &what)?;
                }
            }
        }
    }
    Ok(())
}

fn leading_f32(dev: Device) -> TestResult {
    leading_of::<f32>(dev, 41, MOST, "f32")
}

fn leading_f64(dev: Device) -> TestResult {
    leading_of::<f64>(dev, 42, MOST / 4, "f64")
}

fn leading_bf16(dev: Device) -> TestResult {
    leading_of::<bf16>(dev, 43, MOST / 4, "bf16")
}

fn leading_i32(dev: Device) -> TestResult {
    leading_of::<i32>(dev, 44, MOST / 4, "i32")
}

/// A fused producer: `x * y + z` with `y` a row (`[1, c]`, constant along the reduced axis)
/// and `z` a column (`[r, 1]`, constant along the outputs), summed and maxed over axis 0.
fn leading_fused(dev: Device) -> TestResult {
    let mut rng = Rng::seeded(45);
    for (r, c) in [(4097, 33), (1000, 1000), (33, 4097), (3, 3), (100_000, 3)] {
        let x = ints(&mut rng, r * c, -3, 3);
        let y = ints(&mut rng, c, -2, 2);
        let z = ints(&mut rng, r, -4, 4);
        let f = |v: &[f64]| -> Vec<f32> { v.iter().map(|&a| a as f32).collect() };
        let xa = Array::<f32>::from_slice_on(dev, &f(&x), &[r, c])?;
        let ya = Array::<f32>::from_slice_on(dev, &f(&y), &[1, c])?;
        let za = Array::<f32>::from_slice_on(dev, &f(&z), &[r, 1])?;
        let e = &xa * &ya + &za;
        let host: Vec<f64> = (0..r * c).map(|i| x[i] * y[i % c] + z[i / c]).collect();
        let what = format!("x * y + z of [{r}, {c}]");
        let sum: Vec<f64> = e
            .sum_axes(&[0])?
            .to_vec()?
            .into_iter()
            .map(f64::from)
            .collect();
        close(
            &sum,
            &host_axis0(&host, r, c, h_sum),
            0.0,
            0.0,
            &format!("sum of {what}"),
        )?;
        let max: Vec<f64> = e
            .max_axes(&[0])?
            .to_vec()?
            .into_iter()
            .map(f64::from)
            .collect();
        close(
            &max,
            &host_axis0(&host, r, c, h_max),
            0.0,
            0.0,
            &format!("max of {what}"),
        )?;
        // The transposed producer (the reduced axis contiguous) on the same data.
        let t = xa.permute(&[1, 0])?;
        let sum_t: Vec<f64> = t
            .sum_axes(&[1])?
            .to_vec()?
            .into_iter()
            .map(f64::from)
            .collect();
        close(
            &sum_t,
            &host_axis0(&x, r, c, h_sum),
            0.0,
            0.0,
            &format!("sum over axis 1 of the transpose of [{r}, {c}]"),
        )?;
    }
    Ok(())
}

/// Random floats: the sum over axis 0 is the same, bit for bit, on every run, and near the
/// float64 sum.
fn leading_deterministic(dev: Device) -> TestResult {
    let mut rng = Rng::seeded(46);
    for (r, c) in [(4097, 1000), (100_000, 3), (64, 4096)] {
        let x: Vec<f64> = (0..r * c)
            .map(|_| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
            .collect();
        let xf: Vec<f32> = x.iter().map(|&a| a as f32).collect();
        let a = Array::<f32>::from_slice_on(dev, &xf, &[r, c])?;
        let first = a.sum_axes(&[0])?.to_vec()?;
        for _ in 0..3 {
            let again = a.sum_axes(&[0])?.to_vec()?;
            let same = first
                .iter()
                .zip(&again)
                .all(|(p, q)| p.to_bits() == q.to_bits());
            if !same {
                return Err(format!("sum over axis 0 of [{r}, {c}] differs between runs").into());
            }
        }
        let exact: Vec<f64> = xf.iter().map(|&a| a as f64).collect();
        let want = host_axis0(&exact, r, c, h_sum);
        let scale = host_axis0(&exact, r, c, |col| col.iter().map(|v| v.abs()).sum());
        for (k, (&g, &w)) in first.iter().zip(&want).enumerate() {
            if (g as f64 - w).abs() > 1e-5 * scale[k] + 1e-6 {
                return Err(format!("[{r}, {c}] output {k}: {g}, the f64 sum is {w}").into());
            }
        }
    }
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("reduce_leading_f32", leading_f32),
    ("reduce_leading_f64", leading_f64),
    ("reduce_leading_bf16", leading_bf16),
    ("reduce_leading_i32", leading_i32),
    ("reduce_leading_fused", leading_fused),
    ("reduce_leading_deterministic", leading_deterministic),
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
