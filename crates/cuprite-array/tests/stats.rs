//! Statistics (histogram, bincount, cov, corrcoef, average, ptp) against host references, and
//! the random generators (randint, bernoulli, exponential, gamma, beta, permutation, shuffle,
//! choice) by moments, chi-square and Kolmogorov–Smirnov statistics with fixed seeds; on the
//! GPU, the same numbers as the CPU backend. Bodies run on every backend present.

use crate::common::{Body, close};
use cuprite_array::ops::Cov;
use cuprite_array::ops::{AverageOpts, ChoiceOpts, HistogramOpts};
use cuprite_array::{Array, Device, Element, bf16, f16};
use cuprite_testkit::{Rng, Test, TestResult};

/// The reference histogram: the bin of `v` is the last edge `<= v` (the last bin closed).
fn hist_ref(x: &[f64], w: Option<&[f64]>, edges: &[f64]) -> Vec<f64> {
    let bins = edges.len() - 1;
    let mut out = vec![0.0; bins];
    for (i, &v) in x.iter().enumerate() {
        if !(v >= edges[0] && v <= edges[bins]) {
            continue;
        }
        let k = edges
            .partition_point(|&e| e <= v)
            .saturating_sub(1)
            .min(bins - 1);
        out[k] += w.map_or(1.0, |w| w[i]);
    }
    out
}

fn hist_case<T: Element>(a: &Array<T>, bins: usize, range: Option<(f64, f64)>) -> TestResult {
    let x = a.cast::<f64>().to_vec()?;
    let opts = match range {
        Some((lo, hi)) => HistogramOpts::new().range(lo, hi),
        None => HistogramOpts::new(),
    };
    let (c, e) = a.histogram_with(bins, opts)?;
    let edges = e.to_vec()?;
    assert_eq!(edges.len(), bins + 1);
    let (lo, hi) = (edges[0], edges[bins]);
    if let Some(r) = range {
        assert_eq!((lo, hi), r);
    }
    let step = (hi - lo) / bins as f64;
    for (k, &e) in edges[..bins].iter().enumerate() {
        assert_eq!(e, k as f64 * step + lo, "edge {k}");
    }
    let got = c.to_vec()?;
    if range.is_none() {
        // The short form: the same bins as integer counts, the same edges.
        let (ci, ei) = a.histogram(bins)?;
        let ci: Vec<f64> = ci.to_vec()?.iter().map(|&v| v as f64).collect();
        assert_eq!((ci, ei.to_vec()?), (got.clone(), edges.clone()));
    }
    let want = hist_ref(&x, None, &edges);
    assert_eq!(
        got,
        want,
        "{} histogram, {bins} bins over {range:?}",
        T::DTYPE
    );
    let w: Vec<f64> = (0..x.len()).map(|i| ((i * 7) % 13) as f64 * 0.25).collect();
    let wa = Array::from_slice(&w, a.shape())?;
    let (s, _) = a.histogram_with(bins, opts.weights(&wa))?;
    let want = hist_ref(&x, Some(&w), &edges);
    close(&s.to_vec()?, &want, 1e-12, 1e-9, "weighted histogram")?;
    Ok(())
}

fn histogram_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let n = 70_000;
        let mut x: Vec<f32> = rng.vec_f32(n, -3.0, 5.0);
        // NaN, infinities, the range's ends and values on interior edges.
        x[..8].copy_from_slice(&[
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            -2.0,
            4.0,
            0.0,
            1.0,
            3.5,
        ]);
        let a = Array::from_slice(&x, &[7, n / 7])?;
        for bins in [1, 7, 12, 256, 5000, 10_000] {
            hist_case(&a, bins, Some((-2.0, 4.0)))?;
        }
        let finite = Array::from_slice(&x[8..], &[n - 8])?;
        hist_case(&finite, 64, None)?;
        hist_case(&finite.cast::<f64>(), 33, Some((-1.0, 1.0)))?;
        hist_case(&finite.cast::<f16>(), 50, Some((-3.0, 5.0)))?;
        hist_case(&finite.cast::<bf16>(), 50, Some((-3.0, 5.0)))?;
        hist_case(&finite.cast::<i32>(), 8, None)?;
        // All values equal: the range is widened by 0.5 each side; no data: [0, 1].
        let same = Array::from_slice(&[2.0f32; 5], &[5])?;
        let (c, e) = same.histogram(4)?;
        assert_eq!(e.to_vec()?, [1.5, 1.75, 2.0, 2.25, 2.5]);
        assert_eq!(c.to_vec()?, [0, 0, 5, 0]);
        let empty = Array::<f32>::from_slice(&[], &[0])?;
        let (c, e) = empty.histogram(2)?;
        assert_eq!(
            (c.to_vec()?, e.to_vec()?),
            (vec![0, 0], vec![0.0, 0.5, 1.0])
        );
        // Bad input names the values.
        let e = a.histogram(0).unwrap_err().to_string();
        assert!(e.contains("bins") && e.contains('0'), "{e}");
        let e = a
            .histogram_with(4, HistogramOpts::new().range(1.0, 1.0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("(1, 1)"), "{e}");
        crate::common::assert_err(
            a.histogram_with(4, HistogramOpts::new().range(f64::NAN, 1.0)),
            "InvalidArgument",
            "range (NaN, 1)",
        );
        let e = a.histogram(4).unwrap_err().to_string();
        assert!(e.contains("not finite"), "{e}");
        let w = Array::<f64>::zeros(&[3]);
        let e = a
            .histogram_with(4, HistogramOpts::new().range(0.0, 1.0).weights(&w))
            .unwrap_err()
            .to_string();
        assert!(e.contains("[3]") && e.contains("[7, 10000]"), "{e}");
        Ok(())
    })
}

fn bincount_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let v: Vec<i32> = rng
            .vec_u32(50_000)
            .iter()
            .map(|&u| (u % 3000) as i32)
            .collect();
        let a = Array::from_slice(&v, &[v.len()])?;
        let max = *v.iter().max().unwrap() as usize;
        let mut want = vec![0i64; max + 1];
        let mut wsum = vec![0.0; max + 1];
        let w: Vec<f64> = (0..v.len()).map(|i| (i % 5) as f64 - 1.5).collect();
        for (i, &x) in v.iter().enumerate() {
            want[x as usize] += 1;
            wsum[x as usize] += w[i];
        }
        assert_eq!(a.bincount(0)?.to_vec()?, want);
        let long = a.bincount(max + 10)?.to_vec()?;
        assert_eq!(long.len(), max + 10);
        assert_eq!(&long[..=max], &want[..]);
        assert!(long[max + 1..].iter().all(|&c| c == 0));
        let wa = Array::from_slice(&w, &[v.len()])?;
        close(
            &a.bincount_weighted(&wa, 0)?.to_vec()?,
            &wsum,
            1e-12,
            1e-9,
            "bincount weights",
        )?;
        let u = Array::from_slice(&[0u8, 255, 255], &[3])?;
        let c = u.bincount(0)?.to_vec()?;
        assert_eq!((c.len(), c[0], c[255]), (256, 1, 2));
        let empty = Array::<i64>::from_slice(&[], &[0])?;
        assert_eq!(empty.bincount(3)?.to_vec()?, [0, 0, 0]);
        assert_eq!(empty.bincount(0)?.to_vec()?, Vec::<i64>::new());
        let neg = Array::from_slice(&[1i32, -4, 2], &[3])?;
        let e = neg.bincount(0).unwrap_err().to_string();
        assert!(e.contains("-4"), "{e}");
        let e = a
            .bincount_weighted(&Array::zeros(&[2]), 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("[2]"), "{e}");
        crate::common::assert_err(
            Array::from_slice(&[1i32, 2], &[1, 2])?.bincount(0),
            "Shape",
            "not shape [1, 2]",
        );
        Ok(())
    })
}

/// The covariance of the rows of `x` (`v x n`), normalised by `n - ddof`.
fn cov_ref(x: &[f64], v: usize, n: usize, ddof: usize) -> Vec<f64> {
    let means: Vec<f64> = (0..v)
        .map(|i| x[i * n..(i + 1) * n].iter().sum::<f64>() / n as f64)
        .collect();
    let mut c = vec![0.0; v * v];
    for i in 0..v {
        for j in 0..v {
            let s: f64 = (0..n)
                .map(|k| (x[i * n + k] - means[i]) * (x[j * n + k] - means[j]))
                .sum();
            c[i * v + j] = s / (n - ddof) as f64;
        }
    }
    c
}

/// A covariance of 512 variables of 8192 observations (a product with a long contracted axis)
/// in f64 and f32 against the products of the centred rows, in f64 on the host.
fn cov_long_rows(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (v, n) = (512usize, 8192usize);
        let x: Vec<f64> = rng
            .vec_f32(v * n, -1.0, 2.0)
            .iter()
            .map(|&f| f as f64 + 10.0)
            .collect();
        let mut xc = x.clone();
        for r in xc.chunks_mut(n) {
            let m = r.iter().sum::<f64>() / n as f64;
            r.iter_mut().for_each(|e| *e -= m);
        }
        // The reference in f64 on the host (not through the library's own products): the dot
        // products of the centred rows, the upper triangle spread over threads and mirrored.
        let mut want = vec![0.0f64; v * v];
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        std::thread::scope(|scope| {
            for (t, out) in want.chunks_mut(v * v.div_ceil(threads)).enumerate() {
                let xc = &xc;
                scope.spawn(move || {
                    let first = t * v.div_ceil(threads);
                    for (k, o) in out.iter_mut().enumerate() {
                        let (i, j) = (first + k / v, k % v);
                        if j >= i {
                            let (ri, rj) = (&xc[i * n..(i + 1) * n], &xc[j * n..(j + 1) * n]);
                            *o =
                                ri.iter().zip(rj).map(|(p, q)| p * q).sum::<f64>() / (n - 1) as f64;
                        }
                    }
                });
            }
        });
        for i in 0..v {
            for j in 0..i {
                want[i * v + j] = want[j * v + i];
            }
        }
        let a = Array::from_slice(&x, &[v, n])?;
        close(
            &a.cov()?.to_vec()?,
            &want,
            1e-10,
            1e-11,
            "f64 cov of 512 x 8192",
        )?;
        let got32: Vec<f64> = a
            .cast::<f32>()
            .cov()?
            .to_vec()?
            .iter()
            .map(|&f| f as f64)
            .collect();
        // Rows offset by 10 (centred first: no cancellation beyond f32 rounding of the data).
        close(&got32, &want, 1e-3, 2e-4, "f32 cov of 512 x 8192")?;
        Ok(())
    })
}

fn cov_corr_average_ptp(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (v, n) = (5, 300);
        let x: Vec<f64> = rng
            .vec_f32(v * n, -2.0, 3.0)
            .iter()
            .map(|&f| f as f64)
            .collect();
        let a = Array::from_slice(&x, &[v, n])?;
        for ddof in [0, 1] {
            let want = cov_ref(&x, v, n, ddof);
            close(
                &a.cov_with(&Cov::new().ddof(ddof))?.to_vec()?,
                &want,
                1e-11,
                1e-12,
                "f64 cov",
            )?;
            let got: Vec<f64> = a
                .cast::<f32>()
                .cov_with(&Cov::new().ddof(ddof))?
                .to_vec()?
                .iter()
                .map(|&f| f as f64)
                .collect();
            close(&got, &want, 1e-4, 1e-4, "f32 cov")?;
        }
        // Columns as variables: the transpose's rows.
        let want = cov_ref(&x, v, n, 1);
        close(
            &a.t()
                .contiguous()?
                .cov_with(&Cov::new().rowvar(false))?
                .to_vec()?,
            &want,
            1e-11,
            1e-12,
            "rowvar false",
        )?;
        let corr: Vec<f64> = (0..v * v)
            .map(|k| {
                (want[k] / (want[(k / v) * (v + 1)] * want[(k % v) * (v + 1)]).sqrt())
                    .clamp(-1.0, 1.0)
            })
            .collect();
        let got = a.corrcoef()?.to_vec()?;
        close(&got, &corr, 1e-11, 1e-12, "corrcoef")?;
        assert!(
            (0..v).all(|i| (got[i * (v + 1)] - 1.0).abs() < 1e-12),
            "{got:?}"
        );
        // A 1-D array is one variable: a 0-d result.
        let one = Array::from_slice(&x[..n], &[n])?.cov()?;
        assert_eq!(one.shape(), &[] as &[usize]);
        close(&[one.item()?], &[want[0]], 1e-11, 0.0, "1-D cov")?;
        crate::common::assert_err(
            Array::<f64>::zeros(&[2, 2, 2]).cov(),
            "Shape",
            "not shape [2, 2, 2]",
        );
        // average: all elements, along an axis with 1-D weights, with full-shape weights.
        let w: Vec<f64> = (0..n).map(|k| (k % 7) as f64 + 0.5).collect();
        let wa = Array::from_slice(&w, &[n])?;
        let got = a
            .average_with(AverageOpts::new().axis(1).weights(&wa))?
            .to_vec()?;
        let want: Vec<f64> = (0..v)
            .map(|i| (0..n).map(|k| x[i * n + k] * w[k]).sum::<f64>() / w.iter().sum::<f64>())
            .collect();
        close(&got, &want, 1e-12, 1e-12, "average along 1")?;
        let full = wa.reshape(&[1, n])?.broadcast_to(&[v, n])?.contiguous()?;
        close(
            &a.average_with(AverageOpts::new().axis(-1).weights(&full))?
                .to_vec()?,
            &want,
            1e-12,
            1e-12,
            "full weights",
        )?;
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        close(&[a.average()?.item()?], &[mean], 1e-12, 1e-12, "average")?;
        let e = a
            .average_with(AverageOpts::new().axis(1).weights(&Array::zeros(&[n])))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sum to zero"), "{e}");
        crate::common::assert_err(
            a.average_with(AverageOpts::new().axis(0).weights(&wa)),
            "Shape",
            &format!("weights of length {n} along axis 0"),
        );
        crate::common::assert_err(
            a.average_with(AverageOpts::new().weights(&wa)),
            "Shape",
            &format!("weights of shape [{n}]"),
        );
        // ptp.
        let p = a.ptp_axes(&[1])?.to_vec()?;
        for i in 0..v {
            let r = &x[i * n..(i + 1) * n];
            let want = r.iter().cloned().fold(f64::MIN, f64::max)
                - r.iter().cloned().fold(f64::MAX, f64::min);
            assert_eq!(p[i], want);
        }
        let q = Array::from_slice(&[3i16, -7, 12, 0], &[4])?;
        assert_eq!(q.ptp()?.item()?, 19);
        Ok(())
    })
}

/// The Kolmogorov–Smirnov statistic of `x` against `cdf`.
fn ks(mut x: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    x.sort_by(f64::total_cmp);
    let n = x.len() as f64;
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let f = cdf(v);
            (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max)
}

/// Pearson's chi-square statistic of counts against expected counts.
fn chi2(counts: &[f64], expected: &[f64]) -> f64 {
    counts
        .iter()
        .zip(expected)
        .map(|(c, e)| (c - e) * (c - e) / e)
        .sum()
}

fn moments(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    (
        m,
        x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0),
    )
}

fn random_distributions(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let n = 200_000;
        // KS at n = 2e5: the 0.1% critical value is 1.95 / sqrt(n) = 0.0044.
        let ks_lim = 1.95 / (n as f64).sqrt();
        let r = Array::<i32>::randint(-5, 7, &[n], 11)?.to_vec()?;
        let mut counts = vec![0.0; 12];
        for v in &r {
            assert!((-5..7).contains(v));
            counts[(v + 5) as usize] += 1.0;
        }
        // 11 degrees of freedom: the 0.1% critical value is 31.3.
        let c = chi2(&counts, &[n as f64 / 12.0; 12]);
        assert!(c < 31.3, "randint chi2 {c}");
        let big = Array::<i64>::randint(0, 1 << 53, &[1000], 3)?.to_vec()?;
        assert!(big.iter().all(|&v| (0..1 << 53).contains(&v)) && big.iter().any(|&v| v > 1 << 50));
        let b = Array::bernoulli(&[n], 0.3, 5)?.count()?.item()? as f64;
        assert!(
            (b / n as f64 - 0.3).abs() < 4.0 * (0.21 / n as f64).sqrt(),
            "bernoulli {b}"
        );
        let e = Array::<f64>::exponential(&[n], 2.0, 6)?.to_vec()?;
        let (m, var) = moments(&e);
        assert!(
            (m - 2.0).abs() < 0.03 && (var - 4.0).abs() < 0.15,
            "exponential {m} {var}"
        );
        let k = ks(e, |x| 1.0 - (-x / 2.0).exp());
        assert!(k < ks_lim, "exponential KS {k}");
        // gamma(2): CDF 1 - e^-x (1 + x); gamma(1) is exponential; moments for a < 1 and large.
        let g = Array::<f64>::gamma(&[n], 2.0, 1.0, 8)?.to_vec()?;
        let k = ks(g, |x| 1.0 - (-x).exp() * (1.0 + x));
        assert!(k < ks_lim, "gamma(2) KS {k}");
        let g = Array::<f64>::gamma(&[n], 1.0, 3.0, 9)?.to_vec()?;
        let k = ks(g, |x| 1.0 - (-x / 3.0).exp());
        assert!(k < ks_lim, "gamma(1, 3) KS {k}");
        for (alpha, scale) in [(0.3, 1.0), (0.5, 2.0), (7.5, 0.5)] {
            let g = Array::<f32>::gamma(&[n], alpha, scale, 10)?.to_vec()?;
            let g: Vec<f64> = g.iter().map(|&v| v as f64).collect();
            assert!(g.iter().all(|&v| v >= 0.0 && v.is_finite()));
            let (m, var) = moments(&g);
            let (wm, wv) = (alpha * scale, alpha * scale * scale);
            assert!(
                (m - wm).abs() < 5.0 * (wv / n as f64).sqrt(),
                "gamma({alpha}) mean {m}"
            );
            assert!((var - wv).abs() < 0.05 * wv, "gamma({alpha}) var {var}");
        }
        let bt = Array::<f64>::beta(&[n], 1.0, 1.0, 12)?.to_vec()?;
        let k = ks(bt, |x| x.clamp(0.0, 1.0));
        assert!(k < ks_lim, "beta(1, 1) KS {k}");
        let bt = Array::<f64>::beta(&[n], 2.0, 5.0, 13)?.to_vec()?;
        let (m, var) = moments(&bt);
        let (wm, wv) = (2.0 / 7.0, 10.0 / (49.0 * 8.0));
        assert!(
            (m - wm).abs() < 0.002 && (var - wv).abs() < 0.03 * wv,
            "beta {m} {var}"
        );
        // Bad parameters.
        crate::common::assert_err(
            Array::<i32>::randint(3, 3, &[1], 0),
            "InvalidArgument",
            "[3, 3)",
        );
        crate::common::assert_err(
            Array::<u8>::randint(-1, 3, &[1], 0),
            "InvalidArgument",
            "[-1, 3)",
        );
        crate::common::assert_err(
            Array::<i8>::randint(0, 200, &[1], 0),
            "InvalidArgument",
            "[0, 200)",
        );
        crate::common::assert_err(
            Array::<i64>::randint(0, (1 << 53) + 1, &[1], 0),
            "InvalidArgument",
            "[0, 9007199254740993)",
        );
        crate::common::assert_err(
            Array::bernoulli(&[1], f64::NAN, 0),
            "InvalidArgument",
            "p must lie in [0, 1], not NaN",
        );
        crate::common::assert_err(
            Array::<f32>::exponential(&[1], -1.0, 0),
            "InvalidArgument",
            "scale must be finite and positive, not -1",
        );
        let e = Array::<f64>::gamma(&[1], -2.0, 1.0, 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("-2"), "{e}");
        crate::common::assert_err(
            Array::<f64>::beta(&[1], 1.0, 0.0, 0),
            "InvalidArgument",
            "b must be finite and positive, not 0",
        );
        assert_eq!(
            Array::<f64>::gamma(&[0], 1.0, 1.0, 0)?.to_vec()?,
            Vec::<f64>::new()
        );
        Ok(())
    })
}

fn random_indices(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let p = Array::permutation(1000, 3)?.to_vec()?;
        let mut s = p.clone();
        s.sort();
        assert_eq!(s, (0..1000).collect::<Vec<i64>>());
        assert_ne!(p, (0..1000).collect::<Vec<i64>>());
        assert_eq!(p, Array::permutation(1000, 3)?.to_vec()?);
        assert_ne!(p, Array::permutation(1000, 4)?.to_vec()?);
        assert_eq!(Array::permutation(0, 1)?.to_vec()?, Vec::<i64>::new());
        // Position 0 of a 4-permutation is uniform over 4 values (chi-square, 3 dof: 16.3).
        let mut counts = [0.0; 4];
        for seed in 0..4000 {
            counts[Array::permutation(4, seed)?.to_vec()?[0] as usize] += 1.0;
        }
        let c = chi2(&counts, &[1000.0; 4]);
        assert!(c < 16.3, "permutation chi2 {c} {counts:?}");
        // shuffle along axis 1 of a 3-D array: each row of that axis is a permutation.
        let a = Array::<i32>::arange(0, 60, 1)?.reshape(&[3, 5, 4])?;
        let sh = a.shuffle(1, 7)?.to_vec()?;
        let perm = Array::permutation(5, 7)?.to_vec()?;
        for o in 0..3 {
            for i in 0..5 {
                for j in 0..4 {
                    assert_eq!(
                        sh[(o * 5 + i) * 4 + j],
                        ((o * 5 + perm[i] as usize) * 4 + j) as i32
                    );
                }
            }
        }
        crate::common::assert_err(a.shuffle(3, 1), "Axis", "axis 3 is out of range");
        // choice with probabilities: chi-square against them (3 dof: 16.3).
        let pr = [0.1, 0.2, 0.3, 0.4];
        let k = 100_000;
        let c = Array::choice_with(4, k, 21, ChoiceOpts::new().p(&pr))?.to_vec()?;
        let mut counts = [0.0; 4];
        c.iter().for_each(|&i| counts[i as usize] += 1.0);
        let want: Vec<f64> = pr.iter().map(|p| p * k as f64).collect();
        assert!(chi2(&counts, &want) < 16.3, "choice {counts:?}");
        let u = Array::choice(6, 10, 1)?.to_vec()?;
        assert!(u.iter().all(|&i| (0..6).contains(&i)));
        // Without replacement: distinct; with p, zero-probability items never drawn, and the
        // first draw follows p.
        let c = Array::choice_with(50, 50, 2, ChoiceOpts::new().replace(false))?.to_vec()?;
        let mut s = c.clone();
        s.sort();
        assert_eq!(s, (0..50).collect::<Vec<i64>>());
        // A few draws from many items keep only the displaced positions, and make the same
        // draws as the full shuffle: the first k of the permutation with that seed.
        for (n, k) in [(1000, 10), (1000, 249), (97, 24)] {
            assert_eq!(
                Array::choice_with(n, k, 5, ChoiceOpts::new().replace(false))?.to_vec()?,
                Array::permutation(n, 5)?.to_vec()?[..k].to_vec(),
                "choice({n}, {k}) against the permutation"
            );
        }
        let few = Array::choice_with(1 << 62, 3, 8, ChoiceOpts::new().replace(false))?.to_vec()?;
        assert!(
            few.iter().all(|&i| (0..1i64 << 62).contains(&i))
                && few[0] != few[1]
                && few[1] != few[2]
                && few[0] != few[2],
            "{few:?}"
        );
        let pz = [0.5, 0.0, 0.25, 0.25];
        let mut first = [0.0; 4];
        for seed in 0..2000 {
            let c = Array::choice_with(4, 3, seed, ChoiceOpts::new().replace(false).p(&pz))?
                .to_vec()?;
            assert!(
                !c.contains(&1) && c[0] != c[1] && c[1] != c[2] && c[0] != c[2],
                "{c:?}"
            );
            first[c[0] as usize] += 1.0;
        }
        assert!(
            chi2(&[first[0], first[2], first[3]], &[1000.0, 500.0, 500.0]) < 13.8,
            "{first:?}"
        );
        // Bad input names the values.
        let e = Array::choice_with(3, 4, 0, ChoiceOpts::new().replace(false))
            .unwrap_err()
            .to_string();
        assert!(e.contains('4') && e.contains('3'), "{e}");
        let e = Array::choice_with(2, 1, 0, ChoiceOpts::new().p(&[0.5, 0.6]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("1.1"), "{e}");
        let e = Array::choice_with(2, 1, 0, ChoiceOpts::new().p(&[1.5, -0.5]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("-0.5"), "{e}");
        crate::common::assert_err(
            Array::choice_with(2, 1, 0, ChoiceOpts::new().p(&[1.0])),
            "Shape",
            "1 probabilities for 2 items",
        );
        crate::common::assert_err(
            Array::choice_with(3, 3, 0, ChoiceOpts::new().replace(false).p(&pz[1..])),
            "InvalidArgument",
            "probabilities sum to 0.5",
        );
        crate::common::assert_err(
            Array::choice(0, 1, 0),
            "InvalidArgument",
            "1 draws from 0 items",
        );
        assert_eq!(
            Array::choice_with(0, 0, 0, ChoiceOpts::new().replace(false))?.to_vec()?,
            Vec::<i64>::new()
        );
        Ok(())
    })
}

/// CPU and CUDA give the same numbers for the same seeds.
fn random_cpu_equals_gpu() -> TestResult {
    let on = |d: Device, f: &dyn Fn() -> cuprite_array::Result<Vec<f64>>| {
        cuprite_array::with_device(d, f)
    };
    let exact: [(&str, &dyn Fn() -> cuprite_array::Result<Vec<f64>>); 6] = [
        ("randint", &|| {
            Array::<i64>::randint(-1000, 1 << 40, &[100_003], 5)?
                .cast::<f64>()
                .to_vec()
        }),
        ("bernoulli", &|| {
            Array::bernoulli(&[100_003], 0.37, 5)?
                .cast::<f64>()
                .to_vec()
        }),
        ("permutation", &|| {
            Array::permutation(10_007, 5)?.cast::<f64>().to_vec()
        }),
        ("choice", &|| {
            Array::choice_with(30, 5000, 5, ChoiceOpts::new().p(&[1.0 / 30.0; 30]))?
                .cast::<f64>()
                .to_vec()
        }),
        ("shuffle", &|| {
            Array::<f32>::rand_uniform(&[40, 7], 2)?
                .shuffle(0, 5)?
                .cast::<f64>()
                .to_vec()
        }),
        ("uniform", &|| {
            Array::<f64>::rand_uniform(&[1001], 5)?.to_vec()
        }),
    ];
    for (what, f) in exact {
        let (c, g) = (on(Device::CPU, f)?, on(Device::cuda(0), f)?);
        assert!(c == g, "{what}: CPU and CUDA differ");
    }
    let near: [(&str, &dyn Fn() -> cuprite_array::Result<Vec<f64>>); 4] = [
        ("exponential", &|| {
            Array::<f64>::exponential(&[100_003], 1.5, 5)?.to_vec()
        }),
        ("gamma(0.4)", &|| {
            Array::<f64>::gamma(&[100_003], 0.4, 1.0, 5)?.to_vec()
        }),
        ("gamma(3)", &|| {
            Array::<f64>::gamma(&[100_003], 3.0, 2.0, 5)?.to_vec()
        }),
        ("beta", &|| {
            Array::<f64>::beta(&[100_003], 0.7, 2.5, 5)?.to_vec()
        }),
    ];
    for (what, f) in near {
        let (c, g) = (on(Device::CPU, f)?, on(Device::cuda(0), f)?);
        close(&g, &c, 1e-12, 1e-300, what)?;
    }
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("histogram_values", histogram_values),
    ("bincount_values", bincount_values),
    ("cov_corr_average_ptp", cov_corr_average_ptp),
    ("cov_long_rows", cov_long_rows),
    ("random_distributions", random_distributions),
    ("random_indices", random_indices),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::stats::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::stats::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::gpu(
        "cuda::stats::random_cpu_equals_gpu",
        random_cpu_equals_gpu,
    ));
    v
}
