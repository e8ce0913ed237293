//! Reductions over a middle axis of broadcast expressions (the n-body form: axis 1 of an
//! `[a, b, c]` product of `[a, 1, c]` and `[1, b, c]` views, short and long `b`), over two of
//! three axes, and arg-reductions along short rows (several rows a warp on CUDA) with ties and
//! NaNs, against float64 (or exact integer) host loops.
//!
//! The float data are small integers, so every element and every partial sum is exact in f32
//! and the results must equal the host's whatever the order of summation.

use cuprite_array::ops::{ReduceOpts, VarOpts};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};

use crate::common::{Body, close};

/// `(a, b, c)`: short and long reduced extents, few and many outputs.
const SHAPES: [(usize, usize, usize); 6] = [
    (3, 5, 4),
    (2, 1000, 3),
    (2, 100_000, 3),
    (64, 64, 3),
    (37, 33, 1),
    (1, 4097, 2),
];

/// Integers in `[lo, hi]` as `f64`.
fn ints(rng: &mut Rng, n: usize, lo: i64, hi: i64) -> Vec<f64> {
    let span = (hi - lo + 1) as u64;
    (0..n)
        .map(|_| (lo + (rng.next_u64() % span) as i64) as f64)
        .collect()
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// The host's value of element `(i, j, k)` of `x[i, 0, k] * y[0, j, k] + z[0, j, 0]`.
fn element(x: &[f64], y: &[f64], z: &[f64], c: usize, (i, j, k): (usize, usize, usize)) -> f64 {
    x[i * c + k] * y[j * c + k] + z[j]
}

/// What a reduction over axis 1 computes from the elements of one output, in f64.
#[derive(Clone, Copy)]
enum HostOp {
    Sum,
    Prod,
    Min,
    Max,
    ArgMin,
    ArgMax,
    Mean,
}

/// NumPy's result of `op` over `v`: sums and products of everything (NaN spreads), the
/// extremes NaN where any element is NaN, the arg-reductions the first NaN's index, else the
/// first extreme's.
fn host_reduce(op: HostOp, v: &[f64]) -> f64 {
    let first_nan = v.iter().position(|x| x.is_nan());
    match op {
        HostOp::Sum => v.iter().sum(),
        HostOp::Prod => v.iter().product(),
        HostOp::Mean => v.iter().sum::<f64>() / v.len() as f64,
        HostOp::Min | HostOp::Max if first_nan.is_some() => f64::NAN,
        HostOp::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
        HostOp::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        HostOp::ArgMin | HostOp::ArgMax => {
            if let Some(p) = first_nan {
                return p as f64;
            }
            let mut best = 0;
            for (j, &x) in v.iter().enumerate() {
                let better = match op {
                    HostOp::ArgMin => x < v[best],
                    _ => x > v[best],
                };
                if better {
                    best = j;
                }
            }
            best as f64
        }
    }
}

/// Each output `(i, k)` of reducing `x * y + z` (shapes `[a, 1, c]`, `[1, b, c]`, `[1, b, 1]`)
/// over axis 1 by `op`, in f64.
fn host_axis1(
    op: HostOp,
    (x, y, z): (&[f64], &[f64], &[f64]),
    (a, b, c): (usize, usize, usize),
) -> Vec<f64> {
    let mut out = Vec::with_capacity(a * c);
    let mut col = Vec::with_capacity(b);
    for i in 0..a {
        for k in 0..c {
            col.clear();
            col.extend((0..b).map(|j| element(x, y, z, c, (i, j, k))));
            out.push(host_reduce(op, &col));
        }
    }
    out
}

fn to_f64<T: Copy + Into<f64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

fn as_f64(v: &[i64]) -> Vec<f64> {
    v.iter().map(|&i| i as f64).collect()
}

/// The broadcast expression `x * y + z` on `dev` from host values.
fn expr(
    dev: Device,
    (x, y, z): (&[f64], &[f64], &[f64]),
    (a, b, c): (usize, usize, usize),
) -> cuprite_array::Result<Array<f32>> {
    let xa = Array::<f32>::from_slice_on(dev, &f32s(x), &[a, 1, c])?;
    let ya = Array::<f32>::from_slice_on(dev, &f32s(y), &[1, b, c])?;
    let za = Array::<f32>::from_slice_on(dev, &f32s(z), &[1, b, 1])?;
    Ok(&xa * &ya + &za)
}

fn axis1_f32(dev: Device) -> TestResult {
    let mut rng = Rng::seeded(31);
    for (a, b, c) in SHAPES {
        let what = |op: &str| format!("{op} over axis 1 of [{a}, {b}, {c}]");
        let x = ints(&mut rng, a * c, -3, 3);
        let y = ints(&mut rng, b * c, -4, 4);
        let z = ints(&mut rng, b, -5, 5);
        let ins = (&x[..], &y[..], &z[..]);
        let e = expr(dev, ins, (a, b, c))?;
        let sum = to_f64(&e.sum_axes(&[1])?.to_vec()?);
        close(
            &sum,
            &host_axis1(HostOp::Sum, ins, (a, b, c)),
            0.0,
            0.0,
            &what("sum"),
        )?;
        let mean = to_f64(&e.mean_axes(&[1])?.to_vec()?);
        close(
            &mean,
            &host_axis1(HostOp::Mean, ins, (a, b, c)),
            1e-6,
            1e-6,
            &what("mean"),
        )?;
        let min = to_f64(&e.min_axes(&[1])?.to_vec()?);
        close(
            &min,
            &host_axis1(HostOp::Min, ins, (a, b, c)),
            0.0,
            0.0,
            &what("min"),
        )?;
        let max = to_f64(&e.max_axes(&[-2])?.to_vec()?);
        close(
            &max,
            &host_axis1(HostOp::Max, ins, (a, b, c)),
            0.0,
            0.0,
            &what("max"),
        )?;
        let lo = as_f64(&e.argmin_axis(1)?.to_vec()?);
        close(
            &lo,
            &host_axis1(HostOp::ArgMin, ins, (a, b, c)),
            0.0,
            0.0,
            &what("argmin"),
        )?;
        let hi = as_f64(&e.argmax_axis(1)?.to_vec()?);
        close(
            &hi,
            &host_axis1(HostOp::ArgMax, ins, (a, b, c)),
            0.0,
            0.0,
            &what("argmax"),
        )?;
        if b <= 1000 {
            // Factors of magnitude 1 or 2 (few 2s): the products stay exact in f32.
            let px: Vec<f64> = (0..a * c)
                .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
                .collect();
            let py: Vec<f64> = (0..b * c)
                .map(|_| match rng.next_u64() % 64 {
                    0 => 2.0,
                    r if r % 2 == 0 => -1.0,
                    _ => 1.0,
                })
                .collect();
            let pz = vec![0.0; b];
            let pins = (&px[..], &py[..], &pz[..]);
            let prod = to_f64(&expr(dev, pins, (a, b, c))?.prod_axes(&[1])?.to_vec()?);
            close(
                &prod,
                &host_axis1(HostOp::Prod, pins, (a, b, c)),
                1e-6,
                0.0,
                &what("prod"),
            )?;
        }
    }
    Ok(())
}

fn axis1_nan(dev: Device) -> TestResult {
    // NaNs in some of `y`'s entries: every output whose column meets one is NaN (sum, min,
    // max) or names the first NaN (argmin, argmax); the others are exact.
    let mut rng = Rng::seeded(32);
    for (a, b, c) in SHAPES {
        let what = |op: &str| format!("{op} with NaNs over axis 1 of [{a}, {b}, {c}]");
        let x = ints(&mut rng, a * c, 1, 3);
        let mut y = ints(&mut rng, b * c, -4, 4);
        for _ in 0..(b * c / 50).max(1) {
            let at = (rng.next_u64() % (b * c) as u64) as usize;
            y[at] = f64::NAN;
        }
        let z = ints(&mut rng, b, -5, 5);
        let ins = (&x[..], &y[..], &z[..]);
        let e = expr(dev, ins, (a, b, c))?;
        let sum = to_f64(&e.sum_axes(&[1])?.to_vec()?);
        close(
            &sum,
            &host_axis1(HostOp::Sum, ins, (a, b, c)),
            0.0,
            0.0,
            &what("sum"),
        )?;
        let min = to_f64(&e.min_axes(&[1])?.to_vec()?);
        close(
            &min,
            &host_axis1(HostOp::Min, ins, (a, b, c)),
            0.0,
            0.0,
            &what("min"),
        )?;
        let max = to_f64(&e.max_axes(&[1])?.to_vec()?);
        close(
            &max,
            &host_axis1(HostOp::Max, ins, (a, b, c)),
            0.0,
            0.0,
            &what("max"),
        )?;
        let lo = as_f64(&e.argmin_axis(1)?.to_vec()?);
        close(
            &lo,
            &host_axis1(HostOp::ArgMin, ins, (a, b, c)),
            0.0,
            0.0,
            &what("argmin"),
        )?;
        let hi = as_f64(&e.argmax_axis(1)?.to_vec()?);
        close(
            &hi,
            &host_axis1(HostOp::ArgMax, ins, (a, b, c)),
            0.0,
            0.0,
            &what("argmax"),
        )?;
    }
    Ok(())
}

fn axis1_integers(dev: Device) -> TestResult {
    // i32 `x * y + z` (wrapping in i32 as NumPy's, values far from it): sums in i64 and the
    // extremes, exact.
    let mut rng = Rng::seeded(33);
    for (a, b, c) in SHAPES {
        let what = |op: &str| format!("i32 {op} over axis 1 of [{a}, {b}, {c}]");
        let x = ints(&mut rng, a * c, -1000, 1000);
        let y = ints(&mut rng, b * c, -1000, 1000);
        let z = ints(&mut rng, b, -1000, 1000);
        let i32s = |v: &[f64]| -> Vec<i32> { v.iter().map(|&x| x as i32).collect() };
        let xa = Array::<i32>::from_slice_on(dev, &i32s(&x), &[a, 1, c])?;
        let ya = Array::<i32>::from_slice_on(dev, &i32s(&y), &[1, b, c])?;
        let za = Array::<i32>::from_slice_on(dev, &i32s(&z), &[1, b, 1])?;
        let e = &xa * &ya + &za;
        let ins = (&x[..], &y[..], &z[..]);
        // Sums of at most 10^5 terms below 1.001e6: exact in f64.
        let sum: Vec<f64> = e
            .sum_axes(&[1])?
            .to_vec()?
            .iter()
            .map(|&s| s as f64)
            .collect();
        close(
            &sum,
            &host_axis1(HostOp::Sum, ins, (a, b, c)),
            0.0,
            0.0,
            &what("sum"),
        )?;
        let min = to_f64(&e.min_axes(&[1])?.to_vec()?);
        close(
            &min,
            &host_axis1(HostOp::Min, ins, (a, b, c)),
            0.0,
            0.0,
            &what("min"),
        )?;
        let max = to_f64(&e.max_axes(&[1])?.to_vec()?);
        close(
            &max,
            &host_axis1(HostOp::Max, ins, (a, b, c)),
            0.0,
            0.0,
            &what("max"),
        )?;
        let lo = as_f64(&e.argmin_axis(1)?.to_vec()?);
        close(
            &lo,
            &host_axis1(HostOp::ArgMin, ins, (a, b, c)),
            0.0,
            0.0,
            &what("argmin"),
        )?;
        let hi = as_f64(&e.argmax_axis(1)?.to_vec()?);
        close(
            &hi,
            &host_axis1(HostOp::ArgMax, ins, (a, b, c)),
            0.0,
            0.0,
            &what("argmax"),
        )?;
        if b <= 64 {
            // Factors 1, -1 and a few 2s: the i64 products are exact.
            let py: Vec<i32> = (0..b * c)
                .map(|i| match rng.next_u64() % 16 {
                    0 => 2,
                    _ if i % 2 == 0 => -1,
                    _ => 1,
                })
                .collect();
            let pya = Array::<i32>::from_slice_on(dev, &py, &[1, b, c])?;
            let prod: Vec<f64> = (&xa.sign() * &pya)
                .prod_axes(&[1])?
                .to_vec()?
                .iter()
                .map(|&p| p as f64)
                .collect();
            let sx: Vec<f64> = x
                .iter()
                .map(|v| v.signum() * f64::from(*v != 0.0))
                .collect();
            let pyf: Vec<f64> = py.iter().map(|&v| f64::from(v)).collect();
            let zero = vec![0.0; b];
            let want = host_axis1(HostOp::Prod, (&sx, &pyf, &zero), (a, b, c));
            close(&prod, &want, 0.0, 0.0, &what("prod"))?;
        }
    }
    Ok(())
}

fn two_of_three_axes(dev: Device) -> TestResult {
    // Over axes (0, 2) and (1, 2) of the same expression: two reduced axes, one kept.
    let mut rng = Rng::seeded(34);
    for (a, b, c) in [(3usize, 5usize, 4usize), (7, 300, 3), (64, 64, 5)] {
        let x = ints(&mut rng, a * c, -3, 3);
        let y = ints(&mut rng, b * c, -4, 4);
        let z = ints(&mut rng, b, -5, 5);
        let ins = (&x[..], &y[..], &z[..]);
        let e = expr(dev, ins, (a, b, c))?;
        let got02 = to_f64(&e.sum_axes(&[0, 2])?.to_vec()?);
        let want02: Vec<f64> = (0..b)
            .map(|j| {
                (0..a)
                    .flat_map(|i| (0..c).map(move |k| (i, j, k)))
                    .map(|t| element(&x, &y, &z, c, t))
                    .sum()
            })
            .collect();
        close(
            &got02,
            &want02,
            0.0,
            0.0,
            &format!("sum over (0, 2) of [{a}, {b}, {c}]"),
        )?;
        let got12 = to_f64(&e.max_axes(&[1, 2])?.to_vec()?);
        let want12: Vec<f64> = (0..a)
            .map(|i| {
                (0..b)
                    .flat_map(|j| (0..c).map(move |k| (i, j, k)))
                    .map(|t| element(&x, &y, &z, c, t))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        close(
            &got12,
            &want12,
            0.0,
            0.0,
            &format!("max over (1, 2) of [{a}, {b}, {c}]"),
        )?;
    }
    Ok(())
}

/// Row widths of the several-rows-a-warp form (one to 32 lanes a row) and past it.
const WIDTHS: [usize; 14] = [1, 2, 3, 7, 8, 16, 17, 63, 64, 100, 128, 129, 256, 257];

fn short_rows_ties_nans(dev: Device) -> TestResult {
    // Rows of small integers (ties in most rows), NaN in about one row of five; row counts
    // that leave a warp and a block part-full. NumPy: the first NaN's index, else the first
    // extreme's; the NaN-ignoring forms skip NaNs (no row is all NaN).
    let mut rng = Rng::seeded(35);
    for rows in [37usize, 1000] {
        for w in WIDTHS {
            let mut v = ints(&mut rng, rows * w, 0, 6);
            for r in 0..rows {
                if rng.next_u64() % 5 == 0 && w > 1 {
                    let at = (rng.next_u64() % w as u64) as usize;
                    v[r * w + at] = f64::NAN;
                }
            }
            let what = |op: &str| format!("{op} of {rows} rows of {w}");
            let a = Array::<f32>::from_slice_on(dev, &f32s(&v), &[rows, w])?;
            let want =
                |op: HostOp| -> Vec<f64> { v.chunks(w).map(|row| host_reduce(op, row)).collect() };
            let lo = as_f64(&a.argmin_axis(1)?.to_vec()?);
            close(&lo, &want(HostOp::ArgMin), 0.0, 0.0, &what("argmin"))?;
            let hi = as_f64(&a.argmax_axis(-1)?.to_vec()?);
            close(&hi, &want(HostOp::ArgMax), 0.0, 0.0, &what("argmax"))?;
            let min = to_f64(&a.min_axes(&[1])?.to_vec()?);
            close(&min, &want(HostOp::Min), 0.0, 0.0, &what("min"))?;
            let sum = to_f64(&a.sum_axes(&[1])?.to_vec()?);
            close(&sum, &want(HostOp::Sum), 0.0, 0.0, &what("sum"))?;
            // NaN-ignoring: NaNs out of the rows, then the first extreme among the rest.
            let skip = |min: bool| -> Vec<f64> {
                v.chunks(w)
                    .map(|row| {
                        let mut best: Option<usize> = None;
                        for (j, &x) in row.iter().enumerate() {
                            if x.is_nan() {
                                continue;
                            }
                            if best.is_none_or(|b| if min { x < row[b] } else { x > row[b] }) {
                                best = Some(j);
                            }
                        }
                        best.map_or(-1.0, |b| b as f64)
                    })
                    .collect()
            };
            if w > 1 {
                let nlo = as_f64(&a.nanargmin_axis(1)?.to_vec()?);
                close(&nlo, &skip(true), 0.0, 0.0, &what("nanargmin"))?;
            }
            // Integers and f64: the same rows, NaNs as a large value.
            let ints_v: Vec<i32> = v
                .iter()
                .map(|&x| if x.is_nan() { 99 } else { x as i32 })
                .collect();
            let iv: Vec<f64> = ints_v.iter().map(|&x| f64::from(x)).collect();
            let ia = Array::<i32>::from_slice_on(dev, &ints_v, &[rows, w])?;
            let want_i =
                |op: HostOp| -> Vec<f64> { iv.chunks(w).map(|row| host_reduce(op, row)).collect() };
            let ilo = as_f64(&ia.argmin_axis(1)?.to_vec()?);
            close(&ilo, &want_i(HostOp::ArgMin), 0.0, 0.0, &what("i32 argmin"))?;
            let ihi = as_f64(&ia.argmax_axis(1)?.to_vec()?);
            close(&ihi, &want_i(HostOp::ArgMax), 0.0, 0.0, &what("i32 argmax"))?;
            let da = Array::<f64>::from_slice_on(dev, &v, &[rows, w])?;
            let dlo = as_f64(&da.argmin_axis(1)?.to_vec()?);
            close(&dlo, &want(HostOp::ArgMin), 0.0, 0.0, &what("f64 argmin"))?;
        }
    }
    Ok(())
}

/// `(a, b)` for the rows reduced together along a short last axis: few and many rows, short
/// rows (lanes of a warp each), long rows (a block each, or several blocks a row combined),
/// odd extents.
const GROUP_SHAPES: [(usize, usize); 6] =
    [(5, 7), (33, 300), (3, 5000), (301, 1100), (2, 9001), (1, 1)];

/// The host's value of element `(i, j, k)` of `x[i, 0, k] * y[0, j, k] + z[0, j, 0]^2 -
/// w[i, 0, 0]`: `x` varies along the last axis and is constant along rows, `y` varies along
/// both, `z` and `w` are constant along the last axis (`w` also along rows).
fn grouped_element(
    (x, y, z, w): (&[f64], &[f64], &[f64], &[f64]),
    c: usize,
    (i, j, k): (usize, usize, usize),
) -> f64 {
    x[i * c + k] * y[j * c + k] + z[j] * z[j] - w[i]
}

/// Each output `(i, k)` of reducing [`grouped_element`] over `j` by `op`, in f64.
fn host_grouped(
    op: HostOp,
    ins: (&[f64], &[f64], &[f64], &[f64]),
    (a, b, c): (usize, usize, usize),
) -> Vec<f64> {
    let mut out = Vec::with_capacity(a * c);
    for i in 0..a {
        for k in 0..c {
            let col: Vec<f64> = (0..b).map(|j| grouped_element(ins, c, (i, j, k))).collect();
            out.push(host_reduce(op, &col));
        }
    }
    out
}

/// Reductions over axis 1 of `[a, b, c]` broadcast expressions whose last axis is short
/// (`c` from 1 to 5: rows reduced together on CUDA up to 4, one at a time past it), with
/// inputs of stride 0 along it, for every reduction (sums, means, products, extremes, their
/// indices, the NaN-ignoring forms, any, all, counts), f32, f64, i32 and i64, NaNs among the
/// float data; each against the f64 host loop. The data are small integers, so every result
/// is exact whatever the order of summation (products: factors of magnitude 1 and 2).
fn grouped_rows(dev: Device) -> TestResult {
    let mut rng = Rng::seeded(36);
    macro_rules! exprs {
        ($t:ty, $ins:expr, $a:expr, $b:expr, $c:expr) => {{
            let conv = |v: &[f64]| -> Vec<$t> { v.iter().map(|&x| x as $t).collect() };
            let (x, y, z, w) = $ins;
            let xa = Array::<$t>::from_slice_on(dev, &conv(x), &[$a, 1, $c])?;
            let ya = Array::<$t>::from_slice_on(dev, &conv(y), &[1, $b, $c])?;
            let za = Array::<$t>::from_slice_on(dev, &conv(z), &[1, $b, 1])?;
            let wa = Array::<$t>::from_slice_on(dev, &conv(w), &[$a, 1, 1])?;
            &xa * &ya + &za * &za - &wa
        }};
    }
    for c in 1..=5usize {
        for (a, b) in GROUP_SHAPES {
            let shape = (a, b, c);
            let what = |t: &str, op: &str| format!("{t} {op} over axis 1 of [{a}, {b}, {c}]");
            let x = ints(&mut rng, a * c, -3, 3);
            let y = ints(&mut rng, b * c, -4, 4);
            let z = ints(&mut rng, b, -2, 2);
            let w = ints(&mut rng, a, -5, 5);
            let ins = (&x[..], &y[..], &z[..], &w[..]);
            let want = |op: HostOp| host_grouped(op, ins, shape);
            // Twice: the first use may run a quick build or the interpreter.
            for _ in 0..2 {
                let e = exprs!(f32, ins, a, b, c);
                let got = to_f64(&e.sum_axes(&[1])?.to_vec()?);
                close(&got, &want(HostOp::Sum), 0.0, 0.0, &what("f32", "sum"))?;
                let got = to_f64(&e.mean_axes(&[1])?.to_vec()?);
                close(&got, &want(HostOp::Mean), 1e-6, 1e-6, &what("f32", "mean"))?;
                let got = to_f64(&e.min_axes(&[1])?.to_vec()?);
                close(&got, &want(HostOp::Min), 0.0, 0.0, &what("f32", "min"))?;
                let got = to_f64(&e.max_axes(&[1])?.to_vec()?);
                close(&got, &want(HostOp::Max), 0.0, 0.0, &what("f32", "max"))?;
                let got = as_f64(&e.argmin_axis(1)?.to_vec()?);
                close(
                    &got,
                    &want(HostOp::ArgMin),
                    0.0,
                    0.0,
                    &what("f32", "argmin"),
                )?;
                let got = as_f64(&e.argmax_axis(1)?.to_vec()?);
                close(
                    &got,
                    &want(HostOp::ArgMax),
                    0.0,
                    0.0,
                    &what("f32", "argmax"),
                )?;
            }
            // Any, all and count of the elements that are not zero.
            let e = exprs!(f32, ins, a, b, c);
            let nonzero = |f: fn(&[f64]) -> f64| -> Vec<f64> {
                let mut out = Vec::with_capacity(a * c);
                for i in 0..a {
                    for k in 0..c {
                        let col: Vec<f64> = (0..b)
                            .map(|j| f64::from(grouped_element(ins, c, (i, j, k)) != 0.0))
                            .collect();
                        out.push(f(&col));
                    }
                }
                out
            };
            let bools = |v: Vec<bool>| -> Vec<f64> { v.into_iter().map(f64::from).collect() };
            let got = bools(e.any_axes(&[1])?.to_vec()?);
            let want_any = nonzero(|v| f64::from(v.iter().any(|&x| x != 0.0)));
            close(&got, &want_any, 0.0, 0.0, &what("f32", "any"))?;
            let got = bools(e.all_axes(&[1])?.to_vec()?);
            let want_all = nonzero(|v| f64::from(v.iter().all(|&x| x != 0.0)));
            close(&got, &want_all, 0.0, 0.0, &what("f32", "all"))?;
            let got = as_f64(&e.count_axes(&[1])?.to_vec()?);
            let want_count = nonzero(|v| v.iter().sum());
            close(&got, &want_count, 0.0, 0.0, &what("f32", "count"))?;
            let e = exprs!(f64, ins, a, b, c);
            let got = e.sum_axes(&[1])?.to_vec()?;
            close(&got, &want(HostOp::Sum), 0.0, 0.0, &what("f64", "sum"))?;
            let got = e.min_axes(&[1])?.to_vec()?;
            close(&got, &want(HostOp::Min), 0.0, 0.0, &what("f64", "min"))?;
            let got = as_f64(&e.argmax_axis(1)?.to_vec()?);
            close(
                &got,
                &want(HostOp::ArgMax),
                0.0,
                0.0,
                &what("f64", "argmax"),
            )?;
            let e = exprs!(i32, ins, a, b, c);
            let got = as_f64(&e.sum_axes(&[1])?.to_vec()?);
            close(&got, &want(HostOp::Sum), 0.0, 0.0, &what("i32", "sum"))?;
            let got = to_f64(&e.max_axes(&[1])?.to_vec()?);
            close(&got, &want(HostOp::Max), 0.0, 0.0, &what("i32", "max"))?;
            let got = as_f64(&e.argmin_axis(1)?.to_vec()?);
            close(
                &got,
                &want(HostOp::ArgMin),
                0.0,
                0.0,
                &what("i32", "argmin"),
            )?;
            let e = exprs!(i64, ins, a, b, c);
            let got = as_f64(&e.sum_axes(&[1])?.to_vec()?);
            close(&got, &want(HostOp::Sum), 0.0, 0.0, &what("i64", "sum"))?;
            let got = as_f64(&e.min_axes(&[1])?.to_vec()?);
            close(&got, &want(HostOp::Min), 0.0, 0.0, &what("i64", "min"))?;

            // Products: `x` of ±1, `y` of ±1 and a few 2s, `z = 0`, `w = 0` (exact).
            if b <= 1500 {
                let px: Vec<f64> = (0..a * c)
                    .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
                    .collect();
                let py: Vec<f64> = (0..b * c)
                    .map(|_| match rng.next_u64() % 64 {
                        0 => 2.0,
                        r if r % 2 == 0 => -1.0,
                        _ => 1.0,
                    })
                    .collect();
                let (pz, pw) = (vec![0.0; b], vec![0.0; a]);
                let pins = (&px[..], &py[..], &pz[..], &pw[..]);
                let pe = exprs!(f32, pins, a, b, c);
                let got = to_f64(&pe.prod_axes(&[1])?.to_vec()?);
                let want_p = host_grouped(HostOp::Prod, pins, shape);
                close(&got, &want_p, 1e-6, 0.0, &what("f32", "prod"))?;
                let pe = exprs!(i32, pins, a, b, c);
                let got = as_f64(&pe.prod_axes(&[1])?.to_vec()?);
                close(&got, &want_p, 0.0, 0.0, &what("i32", "prod"))?;
            }

            // NaNs in `y` (along rows and along the last axis) and in `z` (every output of
            // an element's row): NaN spreads through sums and extremes, argmin names the first.
            let mut ny = y.clone();
            let mut nz = z.clone();
            for _ in 0..(b * c / 40).max(1) {
                let at = (rng.next_u64() % (b * c) as u64) as usize;
                ny[at] = f64::NAN;
            }
            if b > 2 {
                nz[b / 2] = f64::NAN;
            }
            let nins = (&x[..], &ny[..], &nz[..], &w[..]);
            let ne = exprs!(f32, nins, a, b, c);
            let nwant = |op: HostOp| host_grouped(op, nins, shape);
            let got = to_f64(&ne.sum_axes(&[1])?.to_vec()?);
            close(&got, &nwant(HostOp::Sum), 0.0, 0.0, &what("f32 NaN", "sum"))?;
            let got = to_f64(&ne.max_axes(&[1])?.to_vec()?);
            close(&got, &nwant(HostOp::Max), 0.0, 0.0, &what("f32 NaN", "max"))?;
            let got = as_f64(&ne.argmin_axis(1)?.to_vec()?);
            close(
                &got,
                &nwant(HostOp::ArgMin),
                0.0,
                0.0,
                &what("f32 NaN", "argmin"),
            )?;
            // NaN-ignoring: the smallest value that is not NaN, and its first index.
            let skip = |want_index: bool| -> Vec<f64> {
                let mut out = Vec::new();
                for i in 0..a {
                    for k in 0..c {
                        let mut best: Option<(usize, f64)> = None;
                        for j in 0..b {
                            let v = grouped_element(nins, c, (i, j, k));
                            if !v.is_nan() && best.is_none_or(|(_, m)| v < m) {
                                best = Some((j, v));
                            }
                        }
                        out.push(match best {
                            Some((j, v)) => {
                                if want_index {
                                    j as f64
                                } else {
                                    v
                                }
                            }
                            None => {
                                if want_index {
                                    -1.0
                                } else {
                                    f64::NAN
                                }
                            }
                        });
                    }
                }
                out
            };
            let got = to_f64(&ne.nanmin_axes(&[1])?.to_vec()?);
            close(&got, &skip(false), 0.0, 0.0, &what("f32 NaN", "nanmin"))?;
            let got = as_f64(&ne.nanargmin_axis(1)?.to_vec()?);
            close(&got, &skip(true), 0.0, 0.0, &what("f32 NaN", "nanargmin"))?;

            // A column of `y` beside `y` itself (the same buffer: on CUDA read once, through
            // `y`'s read of the column's row), times `w` of another buffer.
            let ya = Array::<f32>::from_slice_on(dev, &f32s(&y), &[1, b, c])?;
            let last = ya
                .slice(&cuprite_array::s![.., .., c - 1])?
                .reshape(&[1, b, 1])?;
            let wa = Array::<f32>::from_slice_on(dev, &f32s(&w), &[a, 1, 1])?;
            let col = &ya * &last + &wa;
            let want_col = |min: bool| -> Vec<f64> {
                let mut out = Vec::with_capacity(a * c);
                for &wi in &w {
                    for k in 0..c {
                        let v = (0..b).map(|j| y[j * c + k] * y[j * c + c - 1] + wi);
                        out.push(if min {
                            v.fold(f64::INFINITY, f64::min)
                        } else {
                            v.sum()
                        });
                    }
                }
                out
            };
            let got = to_f64(&col.sum_axes(&[1])?.to_vec()?);
            close(&got, &want_col(false), 0.0, 0.0, &what("f32 column", "sum"))?;
            let got = to_f64(&col.min_axes(&[1])?.to_vec()?);
            close(&got, &want_col(true), 0.0, 0.0, &what("f32 column", "min"))?;

            // An expression with no input along the last axis: every output of a row equal.
            let flat = (Array::<f32>::from_slice_on(dev, &f32s(&z), &[1, b, 1])?
                * Array::<f32>::from_slice_on(dev, &f32s(&w), &[a, 1, 1])?)
            .broadcast_to(&[a, b, c])?;
            let got = to_f64(&flat.sum_axes(&[1])?.to_vec()?);
            let want_flat: Vec<f64> = (0..a * c)
                .map(|o| z.iter().map(|&zj| zj * w[o / c]).sum())
                .collect();
            close(&got, &want_flat, 0.0, 0.0, &what("f32 flat", "sum"))?;
        }
    }
    Ok(())
}

/// The n-body form (`(d * w).sum_axes(&[1])` with `d = pos[j] - pos[i]` of shape `[n, n, 3]`
/// and `w = rsqrt(|d|^2 + eps)^3 * mass[j]` of shape `[n, n, 1]`, built from columns of
/// `pos`), in f32 and f64, against the f64 host sums within the rounding of their terms.
fn grouped_nbody(dev: Device) -> TestResult {
    let mut rng = Rng::seeded(37);
    for n in [1usize, 2, 37, 300, 1031] {
        let pos: Vec<f64> = (0..n * 3)
            .map(|_| (rng.next_u64() % 20001) as f64 / 10000.0 - 1.0)
            .collect();
        let mass: Vec<f64> = (0..n)
            .map(|_| 0.5 + (rng.next_u64() % 1000) as f64 / 1000.0)
            .collect();
        let eps = 0.01;
        let mut want = vec![0.0; n * 3];
        let mut scale = vec![0.0; n];
        for i in 0..n {
            for j in 0..n {
                let d = [0, 1, 2].map(|c| pos[3 * j + c] - pos[3 * i + c]);
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps;
                let wt = mass[j] / (r2 * r2.sqrt());
                for c in 0..3 {
                    want[3 * i + c] += wt * d[c];
                }
                scale[i] += wt * r2.sqrt();
            }
        }
        macro_rules! acc {
            ($t:ty) => {{
                let p = Array::<$t>::from_slice_on(
                    dev,
                    &pos.iter().map(|&v| v as $t).collect::<Vec<_>>(),
                    &[n, 3],
                )?;
                let m = Array::<$t>::from_slice_on(
                    dev,
                    &mass.iter().map(|&v| v as $t).collect::<Vec<_>>(),
                    &[n],
                )?;
                let d = p.reshape(&[1, n, 3])? - p.reshape(&[n, 1, 3])?;
                let col = |c: usize| -> cuprite_array::Result<Array<$t>> {
                    let v = p.slice(&cuprite_array::s![.., c])?;
                    Ok(v.reshape(&[1, n, 1])? - v.reshape(&[n, 1, 1])?)
                };
                let (dx, dy, dz) = (col(0)?, col(1)?, col(2)?);
                let inv = (&dx * &dx + &dy * &dy + &dz * &dz + eps as $t).rsqrt();
                let wt = &inv * &inv * &inv * m.reshape(&[1, n, 1])?;
                (d * wt).sum_axes(&[1])?.to_vec()?
            }};
        }
        for _ in 0..2 {
            let got32: Vec<f64> = acc!(f32).into_iter().map(f64::from).collect();
            let got64: Vec<f64> = acc!(f64);
            for (got, tol, t) in [(&got32, 3e-5, "f32"), (&got64, 1e-12, "f64")] {
                for (o, (&g, &w)) in got.iter().zip(&want).enumerate() {
                    let err = (g - w).abs();
                    if err.is_nan() || err > tol * scale[o / 3] {
                        return Err(format!(
                            "{t} n-body of {n}: acceleration {o}: {g}, the f64 sum is {w}"
                        )
                        .into());
                    }
                }
            }
        }
    }
    Ok(())
}

/// The output (row-major over the kept axes) that element `flat` of an array of `shape` goes
/// to when reduced over `axes`.
fn output_of(flat: usize, shape: &[usize], axes: &[usize]) -> usize {
    let (mut rest, mut o, mut step) = (flat, 0, 1);
    for a in (0..shape.len()).rev() {
        let i = rest % shape[a];
        rest /= shape[a];
        if !axes.contains(&a) {
            o += i * step;
            step *= shape[a];
        }
    }
    o
}

/// The exact sums of `v` (shape `shape`) over `axes`, per output, and the count each sums.
fn host_sums(v: &[f64], shape: &[usize], axes: &[usize]) -> (Vec<f64>, usize) {
    let count: usize = axes.iter().map(|&a| shape[a]).product();
    let mut sums = vec![0.0; v.len() / count.max(1)];
    for (flat, &x) in v.iter().enumerate() {
        sums[output_of(flat, shape, axes)] += x;
    }
    (sums, count)
}

/// Means and variances over every form of the reduction kernels (blocks combining a row's
/// partials, a block a row, lanes of a warp a row, columns, two axes), whose division the CUDA
/// backend folds into the reduction's last kernel. The data are small integers, so each sum is
/// exact in any order and each `f32`/`f64` mean must equal the host's quotient of the exact sum
/// by the count, rounded once in that dtype, bit for bit; with `keepdims` too; an `i32` mean
/// (in `f64`) likewise. Variances (`ddof` 0 and 1) and standard deviations against float64.
fn mean_division(dev: Device) -> TestResult {
    let mut rng = Rng::seeded(47);
    let cases: [(&[usize], &[usize]); 6] = [
        (&[100_000], &[0]),
        (&[3, 50_000], &[1]),
        (&[50, 3000], &[1]),
        (&[1000, 17], &[1]),
        (&[4096, 40], &[0]),
        (&[6, 7, 300], &[0, 2]),
    ];
    for (shape, axes) in cases {
        let n: usize = shape.iter().product();
        let v = ints(&mut rng, n, -16, 16);
        let (sums, count) = host_sums(&v, shape, axes);
        let ax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
        let what = |t: &str, op: &str| format!("{t} {op} of {shape:?} over {axes:?}");
        let a32 = Array::from_slice_on(dev, &f32s(&v), shape)?;
        let a64 = Array::from_slice_on(dev, &v, shape)?;
        let ai =
            Array::from_slice_on(dev, &v.iter().map(|&x| x as i32).collect::<Vec<_>>(), shape)?;
        let want32: Vec<u32> = sums
            .iter()
            .map(|&s| (s as f32 / count as f32).to_bits())
            .collect();
        let want64: Vec<u64> = sums.iter().map(|&s| (s / count as f64).to_bits()).collect();
        let keep = ReduceOpts::new().keepdims(true);
        for (got, t) in [
            (a32.mean_axes(&ax)?.to_vec()?, "f32"),
            (a32.mean_axes_with(&ax, keep)?.to_vec()?, "f32 keepdims"),
        ] {
            let bits: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
            if bits != want32 {
                return Err(format!("{}: {got:?}", what(t, "mean")).into());
            }
        }
        for (got, t) in [
            (a64.mean_axes(&ax)?.to_vec()?, "f64"),
            (a64.mean_axes_with(&ax, keep)?.to_vec()?, "f64 keepdims"),
            (ai.mean_axes(&ax)?.to_vec()?, "i32"),
        ] {
            let bits: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
            if bits != want64 {
                return Err(format!("{}: {got:?}", what(t, "mean")).into());
            }
        }
        // Variances: the squared deviations from each output's exact mean, in f64.
        for ddof in [0usize, 1] {
            let mut sq = vec![0.0; sums.len()];
            for (flat, &x) in v.iter().enumerate() {
                let o = output_of(flat, shape, axes);
                let d = x - sums[o] / count as f64;
                sq[o] += d * d;
            }
            let var: Vec<f64> = sq.iter().map(|&s| s / (count - ddof) as f64).collect();
            let std: Vec<f64> = var.iter().map(|v| v.sqrt()).collect();
            let opts = VarOpts::new().ddof(ddof);
            let checks = [
                (
                    to_f64(&a32.var_axes_with(&ax, opts)?.to_vec()?),
                    &var,
                    1e-5,
                    "f32 var",
                ),
                (
                    a64.var_axes_with(&ax, opts)?.to_vec()?,
                    &var,
                    1e-12,
                    "f64 var",
                ),
                (
                    a64.std_axes_with(&ax, opts)?.to_vec()?,
                    &std,
                    1e-12,
                    "f64 std",
                ),
            ];
            for (got, want, tol, t) in checks {
                let name = what(t, &format!("ddof {ddof}"));
                close(&got, want, tol, tol.min(1e-6), &name)?;
            }
        }
    }
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("reduce_axes_axis1_f32", axis1_f32),
    ("reduce_axes_axis1_nan", axis1_nan),
    ("reduce_axes_axis1_integers", axis1_integers),
    ("reduce_axes_two_of_three", two_of_three_axes),
    ("reduce_axes_short_rows_ties_nans", short_rows_ties_nans),
    ("reduce_axes_grouped_rows", grouped_rows),
    ("reduce_axes_grouped_nbody", grouped_nbody),
    ("reduce_axes_mean_division", mean_division),
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
