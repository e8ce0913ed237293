//! `image` labels and measurements (`label`, `label_batch`, `regions`, `find_objects`, the
//! per-label statistics) against references written here: a breadth-first flood-fill
//! labeller numbering components in raster order of their first element, bounding boxes and
//! sums by plain loops, and SciPy's documented `label` example. Bodies run on every backend;
//! GPU tests check that CUDA agrees with the CPU backend exactly.

use crate::common::{Body, close};
use cuprite_array::image::{self, Moment, Structure, generate_binary_structure};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::collections::VecDeque;

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn unflat(mut f: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        idx[i] = f % shape[i];
        f /= shape[i];
    }
    idx
}

/// Breadth-first labelling of one image (`shape`) under `s` (3 x ... x 3, offsets and their
/// negations connect), components numbered in raster order of their first element.
fn bfs_label(m: &[bool], shape: &[usize], s: &Structure) -> (Vec<i32>, usize) {
    let offs: Vec<Vec<i64>> = (0..s.mask().len())
        .filter(|&f| s.mask()[f] || s.mask()[s.mask().len() - 1 - f])
        .map(|f| unflat(f, s.shape()).iter().map(|&v| v as i64 - 1).collect())
        .filter(|o: &Vec<i64>| o.iter().any(|&v| v != 0))
        .collect();
    let mut lab = vec![0i32; m.len()];
    let mut n = 0;
    for start in 0..m.len() {
        if !m[start] || lab[start] != 0 {
            continue;
        }
        n += 1;
        lab[start] = n;
        let mut q = VecDeque::from([start]);
        while let Some(p) = q.pop_front() {
            let i = unflat(p, shape);
            for o in &offs {
                let j: Vec<i64> = i.iter().zip(o).map(|(&a, &b)| a as i64 + b).collect();
                if j.iter().zip(shape).any(|(&v, &e)| v < 0 || v >= e as i64) {
                    continue;
                }
                let f = j
                    .iter()
                    .zip(shape)
                    .fold(0usize, |a, (&v, &e)| a * e + v as usize);
                if m[f] && lab[f] == 0 {
                    lab[f] = n;
                    q.push_back(f);
                }
            }
        }
    }
    (lab, n as usize)
}

/// Labels of random masks against the flood fill: images inside one tile and images of
/// several tiles (widths not a multiple of the tile), 2-d and 3-d, sparse and dense masks
/// (long components crossing tiles), from `bool`, `u8` (any non-zero set) and `f32` inputs.
fn label_vs_bfs(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(51);
        for (shape, rank, conns, pct) in [
            (vec![3usize, 17, 23], 2usize, vec![1usize, 2], 40u64),
            (vec![2, 6, 7, 8], 3, vec![1, 2, 3], 40),
            (vec![40], 1, vec![1], 40),
            (vec![2, 70, 100], 2, vec![1, 2], 35),
            (vec![1, 67, 97], 2, vec![1, 2], 65),
            (vec![1, 5, 40, 36], 3, vec![1, 2, 3], 30),
        ] {
            let n: usize = shape.iter().product();
            let k = shape.len() - rank;
            let per: usize = shape[k..].iter().product();
            let m: Vec<bool> = (0..n).map(|_| rng.next_u64() % 100 < pct).collect();
            let u: Vec<u8> = m
                .iter()
                .map(|&b| if b { 1 + (rng.next_u64() % 3) as u8 } else { 0 })
                .collect();
            let f: Vec<f32> = m.iter().map(|&b| if b { -0.5 } else { 0.0 }).collect();
            for c in conns {
                let s = generate_binary_structure(rank, c)?;
                let runs = [
                    image::label_batch(&Array::from_slice(&m, &shape)?, &s)?,
                    image::label_batch(&Array::from_slice(&u, &shape)?, &s)?,
                    image::label_batch(&Array::from_slice(&f, &shape)?, &s)?,
                ];
                for (input, (got, counts)) in ["bool", "u8", "f32"].iter().zip(runs) {
                    let got = got.to_vec()?;
                    for b in 0..n / per {
                        let (want, cnt) = bfs_label(&m[b * per..(b + 1) * per], &shape[k..], &s);
                        if got[b * per..(b + 1) * per] != want[..] || counts[b] != cnt {
                            return Err(format!(
                                "label {input} {shape:?} conn {c} image {b}: {} vs {cnt} components",
                                counts[b]
                            )
                            .into());
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

/// SciPy's documented `label` examples, and ArrayFire's `regions`.
fn label_scipy_examples(d: Device) -> TestResult {
    on(d, || {
        let a = Array::from_slice(
            &[
                0u8, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,
            ],
            &[4, 6],
        )?;
        let (l, n) = image::label(&a)?;
        let want = [
            0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 2, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0,
        ];
        if n != 4 || l.to_vec()? != want {
            return Err(format!("label example: {n} {:?}", l.to_vec()?).into());
        }
        let (l, n) = image::label_with(&a, &generate_binary_structure(2, 2)?)?;
        let want = [
            0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 2, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,
        ];
        if n != 2 || l.to_vec()? != want {
            return Err(format!("label example, 8-connected: {n} {:?}", l.to_vec()?).into());
        }
        let r = image::regions(&a.not_equal(0), 2)?.to_vec()?;
        if r != want {
            return Err(format!("regions: {r:?}").into());
        }
        Ok(())
    })
}

fn find_objects_vs_loops(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(52);
        let shape = [5usize, 6, 7];
        let l: Vec<i32> = (0..210)
            .map(|_| (rng.next_u64() % 9) as i32 * i32::from(rng.next_u64() % 3 == 0))
            .collect();
        let got = image::find_objects(&Array::from_slice(&l, &shape)?, 10)?;
        for lab in 1..=10 {
            let pts: Vec<Vec<usize>> = (0..210)
                .filter(|&f| l[f] == lab)
                .map(|f| unflat(f, &shape))
                .collect();
            let want = if pts.is_empty() {
                None
            } else {
                Some(
                    (0..3)
                        .map(|a| {
                            let lo = pts.iter().map(|p| p[a]).min().unwrap();
                            let hi = pts.iter().map(|p| p[a]).max().unwrap();
                            lo..hi + 1
                        })
                        .collect::<Vec<_>>(),
                )
            };
            if got[lab as usize - 1] != want {
                return Err(format!(
                    "find_objects label {lab}: {:?} vs {want:?}",
                    got[lab as usize - 1]
                )
                .into());
            }
        }
        if got.len() != 10 {
            return Err("find_objects length".into());
        }
        // A list longer than both the element count and 2^24 is refused, naming its length;
        // one up to that is all `None` past the present labels.
        let big = Array::from_slice(&[0i64, 1, 1 << 40], &[3])?;
        let e = image::find_objects(&big, 0).unwrap_err().to_string();
        assert!(e.contains("1099511627776 objects"), "{e}");
        let e = image::find_objects(&big, usize::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("max_label {}", usize::MAX)), "{e}");
        let few = Array::from_slice(&[0i64, 1, 3], &[3])?;
        let got = image::find_objects(&few, 1 << 24)?;
        assert_eq!(got.len(), 1 << 24);
        let one = |r: std::ops::Range<usize>| Some(std::iter::once(r).collect::<Vec<_>>());
        assert_eq!(got[..3], [one(1..2), None, one(2..3)]);
        assert!(got[3..].iter().all(Option::is_none));
        Ok(())
    })
}

fn statistics_vs_loops(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(53);
        let shape = [6usize, 9];
        let x: Vec<f64> = (0..54).map(|_| rng.f32_in(-3.0, 3.0) as f64).collect();
        let l: Vec<i32> = (0..54).map(|_| (rng.next_u64() % 6) as i32 - 1).collect();
        let index = [-1i64, 0, 2, 4, 7, -5];
        let xa = Array::from_slice(&x, &shape)?;
        let la = Array::from_slice(&l, &shape)?;
        let sel = |k: i64| -> Vec<(usize, f64)> {
            (0..54)
                .filter(|&f| l[f] as i64 == k)
                .map(|f| (f, x[f]))
                .collect()
        };
        let mut s = Vec::new();
        let mut mn = Vec::new();
        let mut var = Vec::new();
        let mut lo = Vec::new();
        let mut hi = Vec::new();
        let mut com = Vec::new();
        let mut hist = Vec::new();
        for &k in &index {
            let v = sel(k);
            let c = v.len() as f64;
            let sum: f64 = v.iter().map(|p| p.1).sum();
            s.push(sum);
            mn.push(sum / c);
            var.push(v.iter().map(|p| (p.1 - sum / c).powi(2)).sum::<f64>() / c);
            lo.push(if v.is_empty() {
                0.0
            } else {
                v.iter().map(|p| p.1).fold(f64::INFINITY, f64::min)
            });
            hi.push(if v.is_empty() {
                0.0
            } else {
                v.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max)
            });
            for a in 0..2 {
                com.push(
                    v.iter()
                        .map(|p| p.1 * unflat(p.0, &shape)[a] as f64)
                        .sum::<f64>()
                        / sum,
                );
            }
            for b in 0..4 {
                let (e0, e1) = (-2.0 + b as f64, -1.0 + b as f64);
                hist.push(
                    v.iter()
                        .filter(|p| p.1 >= e0 && (p.1 < e1 || (b == 3 && p.1 <= e1)))
                        .count() as f64,
                );
            }
        }
        let nan_eq = |got: Vec<f64>, want: &[f64], what: &str| -> TestResult {
            let g: Vec<f64> = got
                .iter()
                .map(|v| if v.is_nan() { 1e300 } else { *v })
                .collect();
            let w: Vec<f64> = want
                .iter()
                .map(|v| if v.is_nan() { 1e300 } else { *v })
                .collect();
            close(&g, &w, 1e-12, 1e-12, what)
        };
        nan_eq(image::sum_labels(&xa, &la, &index)?.to_vec()?, &s, "sum")?;
        nan_eq(image::mean(&xa, &la, &index)?.to_vec()?, &mn, "mean")?;
        nan_eq(
            image::variance(&xa, &la, &index)?.to_vec()?,
            &var,
            "variance",
        )?;
        let sd: Vec<f64> = var.iter().map(|v| v.sqrt()).collect();
        nan_eq(
            image::standard_deviation(&xa, &la, &index)?.to_vec()?,
            &sd,
            "standard_deviation",
        )?;
        nan_eq(image::minimum(&xa, &la, &index)?.to_vec()?, &lo, "minimum")?;
        nan_eq(image::maximum(&xa, &la, &index)?.to_vec()?, &hi, "maximum")?;
        nan_eq(
            image::center_of_mass(&xa, &la, &index)?.to_vec()?,
            &com,
            "center_of_mass",
        )?;
        let h = image::histogram(&xa, -2.0, 2.0, 4, &la, &index)?.to_vec()?;
        nan_eq(h.iter().map(|&v| v as f64).collect(), &hist, "histogram")?;
        // Labels broadcast to the input.
        let row = Array::from_slice(&[1u8, 2, 1, 2, 1, 2, 1, 2, 1], &[9])?;
        let want: Vec<f64> = [1usize, 2]
            .iter()
            .map(|&k| (0..54).filter(|f| (f % 9) % 2 == k - 1).map(|f| x[f]).sum())
            .collect();
        close(
            &image::sum_labels(&xa, &row, &[1, 2])?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "broadcast labels",
        )?;
        Ok(())
    })
}

fn measure_bad_input(d: Device) -> TestResult {
    on(d, || {
        let x = Array::<u8>::zeros(&[4, 4]);
        let want_err = |r: Result<(), cuprite_array::Error>, needle: &str| -> TestResult {
            match r {
                Err(e) if e.to_string().contains(needle) => Ok(()),
                other => Err(format!("expected an error naming {needle:?}, got {other:?}").into()),
            }
        };
        let s2 = Structure::ones(&[2, 2])?;
        want_err(image::label_with(&x, &s2).map(drop), "equal to 3")?;
        want_err(
            image::label_with(&x, &generate_binary_structure(1, 1)?).map(drop),
            "equal rank",
        )?;
        want_err(
            image::label_batch(&Array::<u8>::zeros(&[3]), &generate_binary_structure(2, 1)?)
                .map(drop),
            "[3]",
        )?;
        want_err(image::regions(&x, 3).map(drop), "connectivity 3")?;
        want_err(
            image::label(&Array::<u8>::zeros(&[1, 1, 1, 1])).map(drop),
            "rank 4",
        )?;
        let l = Array::<i32>::zeros(&[3, 3]);
        want_err(image::sum_labels(&x, &l, &[1]).map(drop), "[3, 3]")?;
        let l = Array::<i32>::zeros(&[4, 4]);
        want_err(
            image::histogram(&x, 1.0, 1.0, 4, &l, &[0]).map(drop),
            "[1, 1]",
        )?;
        Ok(())
    })
}

/// ArrayFire's `moments` and `hist_equal` against loops over the definitions.
fn arrayfire_moments_hist_equal(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(55);
        let x: Vec<f32> = (0..70).map(|_| rng.f32_in(0.0, 4.0)).collect();
        let got =
            image::moments(&Array::from_slice(&x, &[2, 5, 7])?, &Moment::FIRST_ORDER)?.to_vec()?;
        let mut want = Vec::new();
        for b in 0..2 {
            let mut m = [0.0f64; 4];
            for r in 0..5 {
                for c in 0..7 {
                    let v = f64::from(x[b * 35 + r * 7 + c]);
                    m[0] += v;
                    m[1] += r as f64 * v;
                    m[2] += c as f64 * v;
                    m[3] += (r * c) as f64 * v;
                }
            }
            want.extend(m.iter().map(|&v| f64::from(v as f32)));
        }
        let got: Vec<f64> = got.iter().map(|&v| f64::from(v)).collect();
        close(&got, &want, 0.0, 0.0, "moments")?;
        let img: Vec<u8> = (0..60).map(|_| (rng.next_u64() % 16) as u8).collect();
        let mut hist = vec![0u32; 16];
        for &v in &img {
            hist[v as usize] += 1;
        }
        let mut cdf = [0.0f32; 16];
        let mut acc = 0.0f32;
        for (c, &h) in cdf.iter_mut().zip(&hist) {
            acc += h as f32;
            *c = acc;
        }
        let (lo, hi) = (cdf[0], cdf[15]);
        let factor = 15.0f32 / (hi - lo);
        let want: Vec<f64> = img
            .iter()
            .map(|&v| f64::from(((cdf[v as usize] - lo) * factor) as u8))
            .collect();
        let got = image::hist_equal(
            &Array::from_slice(&img, &[6, 10])?,
            &Array::from_slice(&hist, &[16])?,
        )?;
        let got: Vec<f64> = got.to_vec()?.iter().map(|&v| f64::from(v)).collect();
        close(&got, &want, 0.0, 0.0, "hist_equal")
    })
}

/// The region of `confidence_cc` by its description: scale to [1, 2], window statistics,
/// an 8-connected flood fill of the band from the seeds, re-estimated `iters` times.
fn confidence_ref(
    x: &[f64],
    h: usize,
    w: usize,
    seeds: &[[usize; 2]],
    r: usize,
    m: f64,
    iters: usize,
) -> Vec<bool> {
    let (lo, hi) = x
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let v: Vec<f64> = x
        .iter()
        .map(|&p| {
            if hi - lo < 1e-6 {
                2.0
            } else {
                (p - lo) * (1.0 / (hi - lo)) + 1.0
            }
        })
        .collect();
    let var = |s2: f64, s1: f64, n: f64| {
        if n > 1.0 {
            (s2 - s1 * s1 / n) / (n - 1.0)
        } else {
            0.0
        }
    };
    let (mut s1, mut s2, mut n) = (0.0, 0.0, 0.0);
    for s in seeds {
        for a in s[0] - r..=s[0] + r {
            for b in s[1] - r..=s[1] + r {
                s1 += v[a * w + b];
                s2 += v[a * w + b] * v[a * w + b];
                n += 1.0;
            }
        }
    }
    let sv: Vec<f64> = seeds.iter().map(|s| v[s[0] * w + s[1]]).collect();
    let smin = sv.iter().copied().fold(f64::INFINITY, f64::min);
    let smax = sv.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let band = |mean: f64, var: f64| {
        (
            (mean - m * var.sqrt()).min(smin),
            (mean + m * var.sqrt()).max(smax),
        )
    };
    let fill = |lo: f64, hi: f64| {
        let mut seg = vec![false; h * w];
        let mut q: VecDeque<usize> = seeds.iter().map(|s| s[0] * w + s[1]).collect();
        for &p in &q {
            seg[p] = true;
        }
        while let Some(p) = q.pop_front() {
            let (i, j) = ((p / w) as i64, (p % w) as i64);
            for di in -1..=1 {
                for dj in -1..=1 {
                    let (a, b) = (i + di, j + dj);
                    if a < 0 || b < 0 || a >= h as i64 || b >= w as i64 {
                        continue;
                    }
                    let f = a as usize * w + b as usize;
                    if !seg[f] && v[f] >= lo && v[f] <= hi {
                        seg[f] = true;
                        q.push_back(f);
                    }
                }
            }
        }
        seg
    };
    let v0 = var(s2, s1, n);
    let (lo0, hi0) = band(s1 / n, v0);
    let mut seg = fill(lo0, hi0);
    if v0.abs() >= 1e-6 {
        for _ in 0..iters {
            let cnt = seg.iter().filter(|&&b| b).count() as f64;
            let vs: f64 = (0..h * w).filter(|&f| seg[f]).map(|f| v[f]).sum();
            let vq: f64 = (0..h * w).filter(|&f| seg[f]).map(|f| v[f] * v[f]).sum();
            let vv = var(vq, vs, cnt);
            let (lo, hi) = band(vs / cnt, vv);
            seg = fill(lo, hi);
            if vv.abs() < 1e-6 {
                break;
            }
        }
    }
    seg
}

fn arrayfire_confidence_cc(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(56);
        let (h, w) = (24usize, 31usize);
        // Two plateaus with noise on a noisy background.
        let x: Vec<f64> = (0..h * w)
            .map(|f| {
                let (i, j) = (f / w, f % w);
                let base = if (4..15).contains(&i) && (5..20).contains(&j) {
                    100.0
                } else {
                    20.0
                };
                (base + rng.f32_in(-8.0, 8.0) as f64).round()
            })
            .collect();
        let xa = Array::from_slice(&x, &[h, w])?.cast::<u16>();
        for (seeds, radius, mult, iters) in [
            (vec![[8usize, 10usize]], 2usize, 2u32, 3usize),
            (vec![[8, 10], [20, 25]], 1, 1, 0),
            (vec![[10, 12]], 3, 3, 5),
        ] {
            let got = image::confidence_cc(&xa, &seeds, radius, mult, iters, 7.0)?.to_vec()?;
            let want = confidence_ref(&x, h, w, &seeds, radius, f64::from(mult), iters);
            let want: Vec<u16> = want.iter().map(|&b| if b { 7 } else { 0 }).collect();
            if got != want {
                let diff = got.iter().zip(&want).filter(|(a, b)| a != b).count();
                return Err(format!(
                    "confidence_cc {seeds:?} r {radius} m {mult}: {diff} pixels differ"
                )
                .into());
            }
        }
        // A radius past the image (however large) is refused, naming it; the window still
        // reaches the last row and column it may.
        for radius in [12, 1 << 40, usize::MAX] {
            let e = image::confidence_cc(&xa, &[[12, 15]], radius, 1, 0, 7.0).unwrap_err();
            assert!(e.to_string().contains(&format!("radius {radius}")), "{e}");
        }
        image::confidence_cc(&xa, &[[11, 15]], 10, 1, 0, 7.0)?;
        assert!(image::confidence_cc(&xa, &[[11, 15]], 11, 1, 0, 7.0).is_err());
        image::confidence_cc(&xa, &[[22, 29]], 1, 1, 0, 7.0)?;
        assert!(image::confidence_cc(&xa, &[[23, 29]], 1, 1, 0, 7.0).is_err());
        Ok(())
    })
}

/// The host's per-label order statistics of `x` (row-major) under `l` at each label of
/// `index`: minimum, maximum, the flat positions of their first occurrences (0 where the label
/// is absent), and the median (the mean of the middle two of an even count; 0 where absent).
fn order_stats_ref(x: &[f64], l: &[i64], index: &[i64]) -> Vec<(f64, f64, usize, usize, f64)> {
    index
        .iter()
        .map(|&k| {
            let mine: Vec<usize> = (0..x.len()).filter(|&f| l[f] == k).collect();
            let Some(&first) = mine.first() else {
                return (0.0, 0.0, 0, 0, 0.0);
            };
            let (mut lo, mut hi) = (first, first);
            for &f in &mine {
                if x[f] < x[lo] {
                    lo = f;
                }
                if x[f] > x[hi] {
                    hi = f;
                }
            }
            let mut v: Vec<f64> = mine.iter().map(|&f| x[f]).collect();
            v.sort_by(f64::total_cmp);
            let m = v.len();
            let med = (v[(m - 1) / 2] + v[m / 2]) / 2.0;
            (x[lo], x[hi], lo, hi, med)
        })
        .collect()
}

/// `minimum_position`, `maximum_position`, `extrema` and `median` against
/// [`order_stats_ref`] on random label images: values with many ties (small integers) and
/// without, negative labels, labels inside the range but absent, an index below, above and
/// repeated, labels broadcast along rows, 1-, 2- and 3-D inputs, and an empty input.
fn order_statistics_vs_loops(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(57);
        let index = [-3i64, -2, 0, 1, 2, 3, 5, 6, 100, 1];
        for (shape, ties, broadcast) in [
            (vec![7usize, 11], true, false),
            (vec![7, 11], false, false),
            (vec![3, 4, 5], true, false),
            (vec![50], false, false),
            (vec![6, 9], true, true),
        ] {
            let n: usize = shape.iter().product();
            let x: Vec<f64> = (0..n)
                .map(|_| {
                    if ties {
                        (rng.next_u64() % 5) as f64
                    } else {
                        f64::from(rng.f32_in(-10.0, 10.0))
                    }
                })
                .collect();
            // Labels from -2 to 6 with 3 never drawn (4 in its place).
            let lab = |r: u64| match (r % 9) as i64 - 2 {
                3 => 4,
                v => v,
            };
            let w = shape[shape.len() - 1];
            let (l, la): (Vec<i64>, Array<i32>) = if broadcast {
                let row: Vec<i64> = (0..w).map(|_| lab(rng.next_u64())).collect();
                let r32: Vec<i32> = row.iter().map(|&v| v as i32).collect();
                (
                    (0..n).map(|f| row[f % w]).collect(),
                    Array::from_slice(&r32, &[w])?,
                )
            } else {
                let l: Vec<i64> = (0..n).map(|_| lab(rng.next_u64())).collect();
                let l32: Vec<i32> = l.iter().map(|&v| v as i32).collect();
                (l, Array::from_slice(&l32, &shape)?)
            };
            let want = order_stats_ref(&x, &l, &index);
            let coords = |f: usize| {
                unflat(f, &shape)
                    .iter()
                    .map(|&c| c as i64)
                    .collect::<Vec<_>>()
            };
            let want_min_pos: Vec<i64> = want.iter().flat_map(|w| coords(w.2)).collect();
            let want_max_pos: Vec<i64> = want.iter().flat_map(|w| coords(w.3)).collect();
            let want_min: Vec<f64> = want.iter().map(|w| w.0).collect();
            let want_max: Vec<f64> = want.iter().map(|w| w.1).collect();
            let want_med: Vec<f64> = want.iter().map(|w| w.4).collect();
            let what = format!("{shape:?} ties {ties} broadcast {broadcast}");
            let check = |xa: &Array<f64>, xu: Option<&Array<u8>>| -> TestResult {
                let k = index.len();
                let (mnp, mxp, med, e) = match xu {
                    Some(u) => (
                        image::minimum_position(u, &la, &index)?,
                        image::maximum_position(u, &la, &index)?,
                        image::median(u, &la, &index)?,
                        image::extrema(u, &la, &index)?,
                    ),
                    None => (
                        image::minimum_position(xa, &la, &index)?,
                        image::maximum_position(xa, &la, &index)?,
                        image::median(xa, &la, &index)?,
                        image::extrema(xa, &la, &index)?,
                    ),
                };
                if mnp.shape() != [k, shape.len()] || mnp.to_vec()? != want_min_pos {
                    return Err(format!("{what}: minimum_position {:?}", mnp.to_vec()?).into());
                }
                if mxp.to_vec()? != want_max_pos {
                    return Err(format!("{what}: maximum_position {:?}", mxp.to_vec()?).into());
                }
                if med.to_vec()? != want_med {
                    return Err(
                        format!("{what}: median {:?} vs {want_med:?}", med.to_vec()?).into(),
                    );
                }
                if e.minimum.to_vec()? != want_min
                    || e.maximum.to_vec()? != want_max
                    || e.minimum_position.to_vec()? != want_min_pos
                    || e.maximum_position.to_vec()? != want_max_pos
                {
                    return Err(format!("{what}: extrema {e:?}").into());
                }
                Ok(())
            };
            let xa = Array::from_slice(&x, &shape)?;
            check(&xa, None)?;
            if ties {
                let xu: Vec<u8> = x.iter().map(|&v| v as u8).collect();
                check(&xa, Some(&Array::from_slice(&xu, &shape)?))?;
            }
        }
        // An empty input: every label is absent.
        let x = Array::<f32>::zeros(&[0, 3]);
        let l = Array::<i32>::zeros(&[0, 3]);
        if image::minimum_position(&x, &l, &[0, 1])?.to_vec()? != [0; 4]
            || image::median(&x, &l, &[1])?.to_vec()? != [0.0]
        {
            return Err("order statistics of an empty input".into());
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("label_vs_bfs", label_vs_bfs),
    ("label_scipy_examples", label_scipy_examples),
    ("find_objects_vs_loops", find_objects_vs_loops),
    ("statistics_vs_loops", statistics_vs_loops),
    ("order_statistics_vs_loops", order_statistics_vs_loops),
    ("measure_bad_input", measure_bad_input),
    ("arrayfire_moments_hist_equal", arrayfire_moments_hist_equal),
    ("arrayfire_confidence_cc", arrayfire_confidence_cc),
];

/// Labels of large random masks (30% and 60% set, where components are long and unions
/// race) on CUDA equal the CPU backend's, and so do the counts and the statistics.
fn cuda_label_agrees_with_cpu() -> TestResult {
    let mut rng = Rng::seeded(54);
    for (shape, rank, pct) in [
        (vec![1usize, 1024, 1024], 2usize, 30u64),
        (vec![3, 512, 700], 2, 60),
        (vec![2, 64, 64, 64], 3, 30),
    ] {
        let n: usize = shape.iter().product();
        let m: Vec<bool> = (0..n).map(|_| rng.next_u64() % 100 < pct).collect();
        for c in 1..=rank {
            let s = generate_binary_structure(rank, c)?;
            let run = |d: Device| {
                on(d, || -> cuprite_array::Result<(Vec<i32>, Vec<usize>)> {
                    let (l, k) = image::label_batch(&Array::from_slice(&m, &shape)?, &s)?;
                    Ok((l.to_vec()?, k))
                })
            };
            let (a, b) = (run(Device::CPU)?, run(Device::cuda(0))?);
            if a != b {
                return Err(format!(
                    "label {shape:?} conn {c}: CUDA differs ({:?} vs {:?} components)",
                    b.1, a.1
                )
                .into());
            }
        }
    }
    let x: Vec<f32> = (0..512 * 512).map(|_| rng.f32_in(0.0, 1.0)).collect();
    let m: Vec<bool> = x.iter().map(|&v| v < 0.3).collect();
    let stats = |d: Device| {
        on(d, || -> cuprite_array::Result<Vec<f64>> {
            let (l, k) = image::label(&Array::from_slice(&m, &[512, 512])?)?;
            let xa = Array::from_slice(&x, &[512, 512])?;
            let idx: Vec<i64> = (0..=k as i64).collect();
            let mut v = image::minimum(&xa, &l, &idx)?.to_vec()?;
            v.extend(image::maximum(&xa, &l, &idx)?.to_vec()?);
            v.extend(
                image::histogram(&xa, 0.0, 1.0, 7, &l, &idx)?
                    .to_vec()?
                    .iter()
                    .map(|&c| c as f64),
            );
            Ok(v)
        })
    };
    if stats(Device::CPU)? != stats(Device::cuda(0))? {
        return Err("per-label min, max or histogram differ between CUDA and CPU".into());
    }
    Ok(())
}

/// The label kernels, and every kernel the labelling and the measurements generate around
/// them (the mask's comparison, the scatter reductions), compile with NVRTC (no GPU), as
/// recorded by the dry-run backend.
fn label_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        label_vs_bfs(Device::CPU),
        statistics_vs_loops(Device::CPU),
        order_statistics_vs_loops(Device::CPU),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded();
    for r in runs {
        r?;
    }
    for want in [
        "cuprite_label_local",
        "cuprite_label_merge",
        "cuprite_label_wscan",
        "cuprite_label_bscan",
        "cuprite_label_final",
    ] {
        if !sources.iter().any(|s| s.contains(want)) {
            return Err(format!("{want} was not recorded ({} sources)", sources.len()).into());
        }
    }
    crate::codegen::compile_all(&sources)
}

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc("codegen::label_kernels_compile", label_kernels_compile),
        Test::gpu(
            "cuda::image_measure::cuda_label_agrees_with_cpu",
            cuda_label_agrees_with_cpu,
        ),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::image_measure::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::image_measure::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
