//! NumPy-level routines (stacking, triangles, NaN-aware reductions, ...) against host
//! references computed here in f64 on fresh random data. Bodies run on every backend present.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, close};
use cuprite_array::ops::AxesOpts;
use cuprite_array::ops::AxisOpts;
use cuprite_array::ops::NanToNumOpts;
use cuprite_array::ops::VarOpts;
use cuprite_array::ops::{Indexing, meshgrid, tril_indices, triu_indices};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// Row-major position of `idx` in `shape`.
fn at(shape: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut v = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        v[d] = k % shape[d];
        k /= shape[d];
    }
    v
}

fn stacking(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (m, n) = (3, 5);
        let xs: Vec<Vec<f32>> = (0..3).map(|_| rng.vec_f32(m * n, -1.0, 1.0)).collect();
        let arrs: Vec<Array<f32>> = xs
            .iter()
            .map(|x| Array::from_slice(x, &[m, n]))
            .collect::<Result<_, _>>()?;
        let refs: Vec<&Array<f32>> = arrs.iter().collect();
        for ax in 0..3 {
            let s = Array::stack(&refs, ax as isize)?;
            let mut shape = vec![m, n];
            shape.insert(ax, 3);
            assert_eq!(s.shape(), &shape[..]);
            let got = s.to_vec()?;
            for k in 0..got.len() {
                let mut i = unravel(k, &shape);
                let which = i.remove(ax);
                assert_eq!(got[k], xs[which][at(&[m, n], &i)], "stack axis {ax} at {k}");
            }
        }
        // split / array_split / split_at undo concat.
        let c = Array::concat(&refs, 1)?;
        let parts = c.split(3, 1)?;
        for (p, x) in parts.iter().zip(&xs) {
            assert_eq!(&p.to_vec()?, x);
        }
        let v = rng.vec_f32(11, -1.0, 1.0);
        let a = Array::from_slice(&v, &[11])?;
        let p = a.array_split(4, 0)?;
        let lens: Vec<usize> = p.iter().map(|x| x.len()).collect();
        assert_eq!(lens, [3, 3, 3, 2]);
        let joined: Vec<f32> = p.iter().flat_map(|x| x.to_vec().unwrap()).collect();
        assert_eq!(joined, v);
        assert!(a.split(4, 0).is_err());
        assert!(a.split_at(&[5, 2], 0).is_err());
        // repeat
        let r = arrs[0].repeat_with(3, AxisOpts::new().axis(1))?.to_vec()?;
        for i in 0..m {
            for j in 0..3 * n {
                assert_eq!(r[i * 3 * n + j], xs[0][i * n + j / 3]);
            }
        }
        let r = a
            .repeat_each(&(0..11).map(|i| i % 3).collect::<Vec<_>>(), 0)?
            .to_vec()?;
        let want: Vec<f32> = v
            .iter()
            .enumerate()
            .flat_map(|(i, &x)| std::iter::repeat_n(x, i % 3))
            .collect();
        assert_eq!(r, want);
        // *stack
        let h = Array::hstack(&[&a, &a])?.to_vec()?;
        assert_eq!(h, [v.clone(), v.clone()].concat());
        assert_eq!(Array::vstack(&[&a, &a])?.shape(), &[2, 11]);
        assert_eq!(Array::dstack(&refs)?.shape(), &[m, n, 3]);
        let cs = Array::column_stack(&[&a, &a])?.to_vec()?;
        assert_eq!(cs.len(), 22);
        assert_eq!((cs[2], cs[3]), (v[1], v[1]));
        // axis moves and rot90 against index arithmetic
        let t = Array::from_slice(&rng.vec_f32(24, -1.0, 1.0), &[2, 3, 4])?;
        let tv = t.to_vec()?;
        let mv = t.moveaxis(0, 2)?;
        assert_eq!(mv.shape(), &[3, 4, 2]);
        let got = mv.to_vec()?;
        for k in 0..24 {
            let i = unravel(k, &[3, 4, 2]);
            assert_eq!(got[k], tv[at(&[2, 3, 4], &[i[2], i[0], i[1]])]);
        }
        assert_eq!(t.swapaxes(0, 2)?.shape(), &[4, 3, 2]);
        let r1 = arrs[0].rot90(1, (0, 1))?;
        assert_eq!(r1.shape(), &[n, m]);
        let got = r1.to_vec()?;
        for i in 0..n {
            for j in 0..m {
                // NumPy: rot90(a)[i, j] = a[j, n - 1 - i]
                assert_eq!(got[i * m + j], xs[0][j * n + (n - 1 - i)]);
            }
        }
        let r3 = arrs[0].rot90(-1, (0, 1))?.to_vec()?;
        for i in 0..n {
            for j in 0..m {
                assert_eq!(r3[i * m + j], xs[0][(m - 1 - j) * n + i]);
            }
        }
        assert_eq!(arrs[0].rot90(2, (0, 1))?.to_vec()?, {
            let mut w = xs[0].clone();
            w.reverse();
            w
        });
        let s = Array::<f32>::zeros(&[1, 4, 1]);
        assert_eq!(s.squeeze()?.shape(), &[4]);
        assert!(s.squeeze_with(AxesOpts::new().axes(&[1])).is_err());
        // meshgrid
        let x = Array::from_slice(&v[..4], &[4])?;
        let y = Array::from_slice(&v[4..7], &[3])?;
        let g = meshgrid(&[&x, &y], Indexing::Xy)?;
        assert_eq!(g[0].shape(), &[3, 4]);
        let (g0, g1) = (g[0].to_vec()?, g[1].to_vec()?);
        for i in 0..3 {
            for j in 0..4 {
                assert_eq!((g0[i * 4 + j], g1[i * 4 + j]), (v[j], v[4 + i]));
            }
        }
        let g = meshgrid(&[&x, &y], Indexing::Ij)?;
        assert_eq!(g[1].shape(), &[4, 3]);
        assert_eq!(g[1].to_vec()?[5], v[4 + 2]);
        Ok(())
    })
}

fn triangles(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (b, m, n) = (2, 4, 6);
        let x = rng.vec_f32(b * m * n, -1.0, 1.0);
        let a = Array::from_slice(&x, &[b, m, n])?;
        for k in [-2i64, -1, 0, 1, 3, 9] {
            let (lo, up) = (a.tril(k)?.to_vec()?, a.triu(k)?.to_vec()?);
            for q in 0..x.len() {
                let i = unravel(q, &[b, m, n]);
                let below = (i[2] as i64 - i[1] as i64) <= k;
                let above = (i[2] as i64 - i[1] as i64) >= k;
                assert_eq!(lo[q], if below { x[q] } else { 0.0 }, "tril {k} at {q}");
                assert_eq!(up[q], if above { x[q] } else { 0.0 }, "triu {k} at {q}");
            }
            let (r, c) = tril_indices(m, k, n)?;
            let (r, c) = (r.to_vec()?, c.to_vec()?);
            let want: Vec<(i64, i64)> = (0..m as i64)
                .flat_map(|i| (0..n as i64).map(move |j| (i, j)))
                .filter(|(i, j)| j - i <= k)
                .collect();
            assert_eq!(r.into_iter().zip(c).collect::<Vec<_>>(), want);
            let (r, c) = triu_indices(m, k, n)?;
            let want: Vec<(i64, i64)> = (0..m as i64)
                .flat_map(|i| (0..n as i64).map(move |j| (i, j)))
                .filter(|(i, j)| j - i >= k)
                .collect();
            assert_eq!(
                r.to_vec()?.into_iter().zip(c.to_vec()?).collect::<Vec<_>>(),
                want
            );
            // eye_k, diag_k, diagonal, trace
            let e = Array::<f64>::eye_k(m, n, k)?.to_vec()?;
            let t = Array::<f64>::tri(m, n, k)?.to_vec()?;
            for i in 0..m {
                for j in 0..n {
                    let dk = j as i64 - i as i64;
                    assert_eq!(e[i * n + j], f64::from(u8::from(dk == k)));
                    assert_eq!(t[i * n + j], f64::from(u8::from(dk <= k)));
                }
            }
            let m0 = a.slice(&[cuprite_array::shape::SliceArg::Range {
                start: Some(1),
                end: Some(2),
                step: 1,
            }])?;
            let m0 = m0.reshape(&[m, n])?;
            let diag_ref: Vec<f32> = (0..m)
                .filter_map(|i| {
                    let j = i as i64 + k;
                    (j >= 0 && (j as usize) < n).then(|| x[m * n + i * n + j as usize])
                })
                .collect();
            assert_eq!(m0.diag_k(k)?.to_vec()?, diag_ref, "diag_k {k}");
            let tr: f64 = diag_ref.iter().map(|&v| v as f64).sum();
            close(&[m0.trace(k)?.item()? as f64], &[tr], 1e-5, 1e-6, "trace")?;
            let dg = a.diagonal(k, 1, 2)?;
            assert_eq!(dg.shape()[0], b);
            assert_eq!(dg.to_vec()?[diag_ref.len()..], diag_ref[..]);
            // 1-D diag_k builds the matrix back.
            let v = Array::from_slice(&diag_ref, &[diag_ref.len()])?;
            let big = v.diag_k(k)?;
            let s = diag_ref.len() + k.unsigned_abs() as usize;
            assert_eq!(big.shape(), &[s, s]);
            let bv = big.to_vec()?;
            for i in 0..s {
                for j in 0..s {
                    let want = if j as i64 - i as i64 == k {
                        diag_ref[i.min(j)]
                    } else {
                        0.0
                    };
                    assert_eq!(bv[i * s + j], want);
                }
            }
        }
        Ok(())
    })
}

/// NaN-aware reductions against f64 loops over the non-NaN values, per column.
fn nan_reductions(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (m, n) = (37, 5);
        let mut x: Vec<f64> = rng
            .vec_f32(m * n, -2.0, 2.0)
            .into_iter()
            .map(f64::from)
            .collect();
        for (i, v) in x.iter_mut().enumerate() {
            // Column 4 is all NaN, the others about a third.
            if i % n == 4 || rng.f32_in(0.0, 1.0) < 0.3 {
                *v = f64::NAN;
            }
        }
        let a = Array::from_slice(&x, &[m, n])?;
        let cols: Vec<Vec<f64>> = (0..n)
            .map(|j| {
                (0..m)
                    .map(|i| x[i * n + j])
                    .filter(|v| !v.is_nan())
                    .collect()
            })
            .collect();
        let f = |g: &dyn Fn(&[f64]) -> f64| -> Vec<f64> {
            cols.iter()
                .map(|c| if c.is_empty() { f64::NAN } else { g(c) })
                .collect()
        };
        let sum = |c: &[f64]| c.iter().sum::<f64>();
        let mean = |c: &[f64]| sum(c) / c.len() as f64;
        let var = |c: &[f64], dd: f64| {
            let mu = mean(c);
            c.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / (c.len() as f64 - dd)
        };
        close(
            &a.nanmean_axes(&[0])?.to_vec()?,
            &f(&mean),
            1e-12,
            1e-12,
            "nanmean",
        )?;
        close(
            &a.nanmax_axes(&[0])?.to_vec()?,
            &f(&|c| c.iter().cloned().fold(f64::MIN, f64::max)),
            0.0,
            0.0,
            "nanmax",
        )?;
        close(
            &a.nanmin_axes(&[0])?.to_vec()?,
            &f(&|c| c.iter().cloned().fold(f64::MAX, f64::min)),
            0.0,
            0.0,
            "nanmin",
        )?;
        close(
            &a.nanvar_axes_with(&[0], VarOpts::new().ddof(1))?.to_vec()?,
            &f(&|c| var(c, 1.0)),
            1e-10,
            1e-12,
            "nanvar",
        )?;
        close(
            &a.nanstd_axes(&[0])?.to_vec()?,
            &f(&|c| var(c, 0.0).sqrt()),
            1e-10,
            1e-12,
            "nanstd",
        )?;
        let mut prod_ref: Vec<f64> = cols.iter().map(|c| c.iter().product()).collect();
        prod_ref[4] = 1.0; // NumPy: the empty product
        close(
            &a.nanprod_axes(&[0])?.to_vec()?,
            &prod_ref,
            1e-10,
            1e-300,
            "nanprod",
        )?;
        let mut sum_ref: Vec<f64> = cols.iter().map(|c| sum(c)).collect();
        sum_ref[4] = 0.0;
        close(
            &a.nansum_axes(&[0])?.to_vec()?,
            &sum_ref,
            1e-12,
            1e-12,
            "nansum",
        )?;
        let med = |c: &[f64]| {
            let mut s = c.to_vec();
            s.sort_by(f64::total_cmp);
            (s[(s.len() - 1) / 2] + s[s.len() / 2]) / 2.0
        };
        let t = a.t().contiguous()?;
        close(
            &t.nanmedian_with(AxisOpts::new().axis(1))?.to_vec()?,
            &f(&med),
            0.0,
            0.0,
            "nanmedian",
        )?;
        let all: Vec<f64> = x.iter().cloned().filter(|v| !v.is_nan()).collect();
        close(
            &[a.nanmedian()?.item()?],
            &[med(&all)],
            0.0,
            0.0,
            "nanmedian all",
        )?;
        close(
            &[a.nanmean()?.item()?],
            &[mean(&all)],
            1e-12,
            0.0,
            "nanmean all",
        )?;
        // arg-reductions: the all-NaN column gives -1 (CuPy's rule; NumPy raises).
        let am = a.nanargmax_axis(0)?.to_vec()?;
        let an = a.nanargmin_axis(0)?.to_vec()?;
        assert_eq!((am[4], an[4]), (-1, -1), "arg of the all-NaN column");
        for j in 0..4 {
            let col: Vec<f64> = (0..m).map(|i| x[i * n + j]).collect();
            let best = |better: &dyn Fn(f64, f64) -> bool| {
                let mut b = None;
                for (i, &v) in col.iter().enumerate() {
                    if !v.is_nan() && b.is_none_or(|k: usize| better(v, col[k])) {
                        b = Some(i);
                    }
                }
                b.unwrap() as i64
            };
            assert_eq!(am[j], best(&|v, w| v > w), "nanargmax col {j}");
            assert_eq!(an[j], best(&|v, w| v < w), "nanargmin col {j}");
        }
        let flat = a.nanargmax()?.item()? as usize;
        assert_eq!(x[flat], all.iter().cloned().fold(f64::MIN, f64::max));
        // nancumsum along rows
        let cs = a.nancumsum(0)?.to_vec()?;
        let mut run = vec![0.0; n];
        for i in 0..m {
            for j in 0..n {
                if !x[i * n + j].is_nan() {
                    run[j] += x[i * n + j];
                }
                close(&[cs[i * n + j]], &[run[j]], 1e-12, 1e-12, "nancumsum")?;
            }
        }
        // nan_to_num, fmax
        let y = Array::from_slice(&[f32::NAN, f32::INFINITY, -f32::INFINITY, 2.5], &[4])?;
        assert_eq!(
            y.nan_to_num_with(NanToNumOpts::new().nan(7.0))?.to_vec()?,
            [7.0, f32::MAX, f32::MIN, 2.5]
        );
        assert_eq!(y.nan_to_num()?.to_vec()?, [0.0, f32::MAX, f32::MIN, 2.5]);
        assert_eq!(
            y.nan_to_num_with(NanToNumOpts::new().posinf(1.0).neginf(-2.0))?
                .to_vec()?,
            [0.0, 1.0, -2.0, 2.5]
        );
        let z = Array::from_slice(&[1.0f32, 3.0, f32::NAN, 0.5], &[4])?;
        assert_eq!(
            y.fmax(&z)?.to_vec()?,
            [1.0, f32::INFINITY, -f32::INFINITY, 2.5]
        );
        assert_eq!(y.fmin(&z)?.to_vec()?, [1.0, 3.0, -f32::INFINITY, 0.5]);
        Ok(())
    })
}

/// NaN-aware reductions of `f32` (their sum and count share one pass) and the arg-reductions'
/// all-NaN check, against f64 loops over the non-NaN values.
fn nan_reductions_f32(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (m, n) = (6, 1000);
        let mut x = rng.vec_f32(m * n, -3.0, 5.0);
        for (i, v) in x.iter_mut().enumerate() {
            // Row 2 is all NaN, the others about a tenth.
            if i / n == 2 || rng.f32_in(0.0, 1.0) < 0.1 {
                *v = f32::NAN;
            }
        }
        let a = Array::from_slice(&x, &[m, n])?;
        let rows: Vec<Vec<f64>> = (0..m)
            .map(|r| {
                x[r * n..(r + 1) * n]
                    .iter()
                    .filter(|v| !v.is_nan())
                    .map(|&v| f64::from(v))
                    .collect()
            })
            .collect();
        let mean = |c: &[f64]| c.iter().sum::<f64>() / c.len() as f64;
        let var = |c: &[f64], dd: f64| {
            let mu = mean(c);
            c.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / (c.len() as f64 - dd)
        };
        let per_row = |g: &dyn Fn(&[f64]) -> f64| -> Vec<f64> {
            rows.iter()
                .map(|c| if c.is_empty() { f64::NAN } else { g(c) })
                .collect()
        };
        let f64s = |v: Vec<f32>| v.into_iter().map(f64::from).collect::<Vec<_>>();
        close(
            &f64s(a.nanmean_axes(&[1])?.to_vec()?),
            &per_row(&mean),
            1e-6,
            1e-6,
            "nanmean f32",
        )?;
        close(
            &f64s(a.nanvar_axes_with(&[1], VarOpts::new().ddof(1))?.to_vec()?),
            &per_row(&|c| var(c, 1.0)),
            1e-5,
            1e-6,
            "nanvar f32",
        )?;
        let all: Vec<f64> = rows.concat();
        close(
            &[
                f64::from(a.nanmean()?.item()?),
                f64::from(a.nanvar()?.item()?),
            ],
            &[mean(&all), var(&all, 0.0)],
            1e-5,
            1e-6,
            "nanmean/nanvar f32 of all",
        )?;
        // The first largest non-NaN element, found on the host.
        let best = x.iter().enumerate().filter(|(_, v)| !v.is_nan()).fold(
            (0usize, f32::NEG_INFINITY),
            |b, (i, &v)| {
                if v > b.1 { (i, v) } else { b }
            },
        );
        assert_eq!(a.nanargmax()?.item()?, best.0 as i64);
        let per_row = a.nanargmax_axis(1)?.to_vec()?;
        assert_eq!(per_row[2], -1, "nanargmax of the all-NaN row");
        let all_nan = Array::from_slice(&[f32::NAN; 5], &[5])?;
        assert_eq!(all_nan.nanargmin()?.item()?, -1);
        assert!(all_nan.nanmax()?.item()?.is_nan());
        assert!(all_nan.nanmean()?.item()?.is_nan());
        Ok(())
    })
}

/// `nanmax`/`nanmin` of `f32`, `f16` and `bf16` rows holding NaNs, infinities, signed zeros and
/// values at the types' limits: per row the extreme of the non-NaN values (by a host scan), NaN
/// for a row of only NaNs, the infinity where a row's extreme is one.
fn nan_extremes_narrow(d: Device) -> TestResult {
    use cuprite_array::{bf16, f16};
    let nan = f32::NAN;
    let rows: [[f32; 4]; 6] = [
        [nan, nan, nan, nan],
        [f32::NEG_INFINITY, nan, -3.0, nan],
        [f32::INFINITY, 2.0, nan, f32::NEG_INFINITY],
        [-0.0, 0.0, nan, -0.0],
        [f32::MAX, -f32::MAX, 1.0, nan],
        [nan, f32::NEG_INFINITY, f32::NEG_INFINITY, nan],
    ];
    let scan = |r: &[f32], max: bool| -> f32 {
        let v: Vec<f32> = r.iter().copied().filter(|x| !x.is_nan()).collect();
        if v.is_empty() {
            return nan;
        }
        v.iter().copied().fold(v[0], |b, x| {
            // +0 above -0, as the plain reductions order them.
            let above = x > b || (x == b && b.is_sign_negative() && x.is_sign_positive());
            let below = x < b || (x == b && b.is_sign_positive() && x.is_sign_negative());
            if (max && above) || (!max && below) {
                x
            } else {
                b
            }
        })
    };
    let same = |got: f32, want: f32| {
        (got.is_nan() && want.is_nan())
            || (got == want && got.is_sign_negative() == want.is_sign_negative())
    };
    cuprite_array::with_device(d, || {
        let flat: Vec<f32> = rows.concat();
        let a = Array::from_slice(&flat, &[6, 4])?;
        let h = Array::from_slice(
            &flat.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>(),
            &[6, 4],
        )?;
        let b = Array::from_slice(
            &flat.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>(),
            &[6, 4],
        )?;
        for max in [true, false] {
            let got32 = if max {
                a.nanmax_axes(&[1])?
            } else {
                a.nanmin_axes(&[1])?
            }
            .to_vec()?;
            let got16: Vec<f32> = if max {
                h.nanmax_axes(&[1])?
            } else {
                h.nanmin_axes(&[1])?
            }
            .to_vec()?
            .into_iter()
            .map(f32::from)
            .collect();
            let gotb: Vec<f32> = if max {
                b.nanmax_axes(&[1])?
            } else {
                b.nanmin_axes(&[1])?
            }
            .to_vec()?
            .into_iter()
            .map(f32::from)
            .collect();
            for (i, r) in rows.iter().enumerate() {
                let want = scan(r, max);
                let want16 = scan(&r.map(|x| f32::from(f16::from_f32(x))), max);
                let wantb = scan(&r.map(|x| f32::from(bf16::from_f32(x))), max);
                if !same(got32[i], want) || !same(got16[i], want16) || !same(gotb[i], wantb) {
                    return Err(format!(
                        "row {i} {r:?} max={max}: f32 {} (want {want}), f16 {} (want {want16}), \
                         bf16 {} (want {wantb})",
                        got32[i], got16[i], gotb[i]
                    )
                    .into());
                }
            }
        }
        let all = if a.nanmax()?.item()?.is_nan() {
            "NaN"
        } else {
            "number"
        };
        if all != "number" || a.nanmax()?.item()? != f32::INFINITY {
            return Err(format!("nanmax of all: {all}").into());
        }
        Ok(())
    })
}

/// The passes over memory (fused evaluations, library calls and reduction passes, counted by
/// the library) that one call of `f` makes on this thread.
fn passes(f: &dyn Fn() -> TestResult) -> Result<u64, Box<dyn std::error::Error + Send + Sync>> {
    use cuprite_array::stats::{thread_evaluations, thread_reduction_passes};
    let before = thread_evaluations() + thread_reduction_passes();
    f()?;
    Ok(thread_evaluations() + thread_reduction_passes() - before)
}

/// Each NaN-aware reduction and scan makes as many passes as its plain form (the NaN handling
/// fused into the same kernels), in f32 and f64, over all elements and along an axis; a
/// NaN-aware mean or variance at most one more, its division by the count of non-NaN elements
/// (an array) being a pass where the plain form's division by a constant count may be folded
/// into its reduction. The values are checked against f64 host loops by the bodies above.
/// Every call runs once first and the optimised builds are waited for once, so the counted
/// calls run the same tier.
fn nan_passes(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (m, n) = (4, 1 << 16);
        let mut x = rng.vec_f32(m * n, -3.0, 5.0);
        for v in x.iter_mut() {
            if rng.f32_in(0.0, 1.0) < 0.1 {
                *v = f32::NAN;
            }
        }
        let a = Array::from_slice(&x, &[m, n])?;
        let xd: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        let b = Array::from_slice(&xd, &[m, n])?;
        type Call<'a> = Box<dyn Fn() -> TestResult + 'a>;
        let mut pairs: Vec<(String, Call<'_>, Call<'_>)> = Vec::new();
        macro_rules! same {
            ($arr:expr, $nan:ident, $plain:ident $(, $arg:expr)*) => {{
                let arr = &$arr;
                pairs.push((
                    format!("{} and {} ({:?})", stringify!($nan), stringify!($plain), arr.dtype()),
                    Box::new(move || Ok(arr.$nan($($arg),*)?.eval()?)),
                    Box::new(move || Ok(arr.$plain($($arg),*)?.eval()?)),
                ));
            }};
        }
        macro_rules! all {
            ($arr:expr) => {{
                same!($arr, nansum, sum);
                same!($arr, nanprod, prod);
                same!($arr, nanmean, mean);
                same!($arr, nanvar, var);
                same!($arr, nanstd, std);
                same!($arr, nanvar_axes, var_axes, &[1]);
                same!($arr, nanmean_axes, mean_axes, &[0]);
                same!($arr, nancumsum, cumsum, 1);
                same!($arr, nancumsum, cumsum, 0);
                same!($arr, nancumprod, cumprod, 1);
                same!($arr, nanmax, max);
                same!($arr, nanmin, min);
                same!($arr, nanmax_axes, max_axes, &[1]);
                same!($arr, nanmin_axes, min_axes, &[0]);
                same!($arr, nanargmax, argmax);
                same!($arr, nanargmin, argmin);
                same!($arr, nanargmax_axis, argmax_axis, 1);
                same!($arr, nanargmin_axis, argmin_axis, 0);
            }};
        }
        all!(a);
        all!(b);
        for (_, nan, plain) in &pairs {
            nan()?;
            plain()?;
        }
        cuprite_array::tuning::wait_tier_up();
        for (what, nan, plain) in &pairs {
            let (k_nan, k_plain) = (passes(nan.as_ref())?, passes(plain.as_ref())?);
            let divides = what.starts_with("nanmean") || what.starts_with("nanvar");
            let most = k_plain + u64::from(divides);
            assert!(
                (k_plain..=most).contains(&k_nan),
                "{what}: {k_nan} passes against {k_plain}"
            );
            assert!(k_plain > 0, "{what}: the plain form counted no pass");
        }
        Ok(())
    })
}

/// The non-NaN extreme of `v` and the index of its first occurrence, by NumPy's rules
/// (derived here, not from the library): NaNs skipped; the value ordered with `-0.0` below
/// `+0.0` (cuprite's documented order); the index of the first element equal (IEEE) to the
/// extreme. A slice of only NaNs: NaN and -1 (cuprite's rule for the index; NumPy raises).
fn nan_extreme_ref(v: &[f64], max: bool) -> (f64, i64) {
    let mut val: Option<f64> = None;
    let mut arg: Option<(f64, usize)> = None;
    for (i, &x) in v.iter().enumerate() {
        if x.is_nan() {
            continue;
        }
        let beats = |b: f64| {
            if max {
                x > b || (x == b && b.is_sign_negative() && x.is_sign_positive())
            } else {
                x < b || (x == b && b.is_sign_positive() && x.is_sign_negative())
            }
        };
        if val.is_none_or(beats) {
            val = Some(x);
        }
        if arg.is_none_or(|(b, _)| if max { x > b } else { x < b }) {
            arg = Some((x, i));
        }
    }
    (val.unwrap_or(f64::NAN), arg.map_or(-1, |a| a.1 as i64))
}

/// The same value, NaN-ness and sign.
fn same_f64(got: f64, want: f64) -> bool {
    (got.is_nan() && want.is_nan())
        || (got == want && got.is_sign_negative() == want.is_sign_negative())
}

/// Lines of `x` (`[m, n]` row-major) along `axis` (0: columns, 1: rows), as f64.
fn lines(x: &[f64], m: usize, n: usize, axis: usize) -> Vec<Vec<f64>> {
    if axis == 1 {
        x.chunks(n).map(|r| r.to_vec()).collect()
    } else {
        (0..n)
            .map(|j| (0..m).map(|i| x[i * n + j]).collect())
            .collect()
    }
}

macro_rules! check_nan_extremes {
    ($t:ty, $a:expr, $x:expr, $m:expr, $n:expr, $what:expr) => {{
        let (a, x, m, n): (&Array<$t>, &[f64], usize, usize) = (&$a, &$x, $m, $n);
        let f = |v: Vec<$t>| v.into_iter().map(f64::from).collect::<Vec<f64>>();
        for max in [true, false] {
            for axis in [0usize, 1] {
                let want: Vec<(f64, i64)> = lines(x, m, n, axis)
                    .iter()
                    .map(|l| nan_extreme_ref(l, max))
                    .collect();
                let ax = [axis as isize];
                let (v, i) = if max {
                    (a.nanmax_axes(&ax)?, a.nanargmax_axis(axis as isize)?)
                } else {
                    (a.nanmin_axes(&ax)?, a.nanargmin_axis(axis as isize)?)
                };
                let (v, i) = (f(v.to_vec()?), i.to_vec()?);
                for (k, w) in want.iter().enumerate() {
                    if !same_f64(v[k], w.0) || i[k] != w.1 {
                        return Err(format!(
                            "{} {} max={max} axis {axis} line {k}: got ({}, {}), want {w:?}",
                            $what,
                            stringify!($t),
                            v[k],
                            i[k]
                        )
                        .into());
                    }
                }
            }
            let w = nan_extreme_ref(x, max);
            let (v, i) = if max {
                (a.nanmax()?.item()?, a.nanargmax()?.item()?)
            } else {
                (a.nanmin()?.item()?, a.nanargmin()?.item()?)
            };
            if !same_f64(f64::from(v), w.0) || i != w.1 {
                return Err(format!(
                    "{} {} max={max} flat: got ({v}, {i}), want {w:?}",
                    $what,
                    stringify!($t)
                )
                .into());
            }
        }
    }};
}

/// `nanmax`/`nanmin`/`nanargmax`/`nanargmin` of `f32` and `f64` on hand-made rows: a row of
/// only NaNs, a NaN first, a NaN last, only `-inf` among NaNs, repeated extremes (the first
/// index wins), signed zeros, one number last; along both axes, over everything, and with
/// `keepdims`; against [`nan_extreme_ref`].
fn nan_extreme_edges(d: Device) -> TestResult {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let rows: [[f64; 8]; 7] = [
        [nan; 8],
        [nan, 3.0, -1.0, 7.0, 2.0, -5.0, 7.0, 0.5],
        [1.0, -2.0, 4.0, 4.0, -2.0, 0.0, 3.0, nan],
        [nan, -inf, nan, -inf, nan, nan, nan, nan],
        [2.0, 9.0, -9.0, 9.0, nan, -9.0, 1.0, 2.0],
        [-0.0, 0.0, nan, -0.0, 0.0, nan, -0.0, -0.0],
        [nan, nan, nan, nan, nan, nan, nan, inf],
    ];
    let x: Vec<f64> = rows.concat();
    on(d, || {
        let (m, n) = (7, 8);
        let a64 = Array::from_slice(&x, &[m, n])?;
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let a32 = Array::from_slice(&x32, &[m, n])?;
        check_nan_extremes!(f64, a64, x, m, n, "edges");
        check_nan_extremes!(f32, a32, x, m, n, "edges");
        // keepdims keeps the reduced axis with extent 1.
        let o = cuprite_array::ops::ReduceOpts::new().keepdims(true);
        assert_eq!(a32.nanmax_axes_with(&[1], o)?.shape(), &[m, 1]);
        assert_eq!(a32.nanargmin_axis_with(0, o)?.shape(), &[1, n]);
        // Column 0 holds NaN, NaN, 1, NaN, 2, -0, NaN: its smallest number is row 5's.
        assert_eq!(a32.nanargmin_axis_with(0, o)?.to_vec()?[0], 5);
        // An empty array has no extreme (NumPy raises too).
        let e = Array::<f32>::zeros(&[0]);
        assert!(e.nanmax().is_err() && e.nanargmax().is_err());
        Ok(())
    })
}

/// The same over lines long enough for the two-stage arg-reduction (chunks of a line reduced
/// first): a line of only NaNs (every chunk NaN), a line with a NaN first and its extremes
/// last, a line with one number among NaNs; per line, over everything, and along the first
/// axis of the transpose (long columns).
fn nan_extreme_long(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (m, n) = (3usize, 1usize << 16);
    let mut x: Vec<f64> = rng
        .vec_f32(m * n, -1.0, 1.0)
        .into_iter()
        .map(f64::from)
        .collect();
    for (i, v) in x.iter_mut().enumerate() {
        let (r, c) = (i / n, i % n);
        let drop = match r {
            0 => true,
            1 => c == 0 || (c != n - 1 && rng.f32_in(0.0, 1.0) < 0.3),
            _ => c != 40000,
        };
        if drop {
            *v = f64::NAN;
        }
    }
    x[2 * n - 1] = 5.0;
    x[2 * n + 40000] = -2.5;
    on(d, || {
        let a64 = Array::from_slice(&x, &[m, n])?;
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let a32 = Array::from_slice(&x32, &[m, n])?;
        check_nan_extremes!(f64, a64, x, m, n, "long rows");
        check_nan_extremes!(f32, a32, x, m, n, "long rows");
        // One line alone, flat: only NaNs, and one number among NaNs.
        let row = |r: usize| a32.slice(&[cuprite_array::shape::SliceArg::Index(r as isize)]);
        assert_eq!(row(0)?.nanargmax()?.item()?, -1);
        assert!(row(0)?.nanmax()?.item()?.is_nan());
        assert_eq!(row(2)?.nanargmin()?.item()?, 40000);
        assert_eq!(row(2)?.nanmax()?.item()?, -2.5);
        // Long columns.
        let t = a32.t().contiguous()?;
        let xt: Vec<f64> = (0..n * m).map(|k| x[(k % m) * n + k / m]).collect();
        check_nan_extremes!(f32, t, xt, n, m, "long columns");
        Ok(())
    })
}

/// NumPy's `repeat` (derived by hand: output position `j` along the axis reads input position
/// `i` for the `counts[i]` positions `j` after the counts before `i`) of `x` of `shape` along
/// `axis` (`None`: the flattened array).
fn repeat_ref<T: Copy>(
    x: &[T],
    shape: &[usize],
    axis: Option<usize>,
    counts: &[usize],
) -> (Vec<T>, Vec<usize>) {
    let (shape, ax) = match axis {
        None => (vec![x.len()], 0),
        Some(a) => (shape.to_vec(), a),
    };
    let src: Vec<usize> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| std::iter::repeat_n(i, c))
        .collect();
    let mut out_shape = shape.clone();
    out_shape[ax] = src.len();
    let total: usize = out_shape.iter().product();
    let out = (0..total)
        .map(|k| {
            let mut idx = unravel(k, &out_shape);
            idx[ax] = src[idx[ax]];
            x[at(&shape, &idx)]
        })
        .collect();
    (out, out_shape)
}

/// `repeat` with the counts 0, 1 and 3 along every axis and over the flattened array,
/// `repeat_each` with per-element counts (zeros among them), element sizes 1, 2, 4, 8 and 16
/// bytes, a view starting one element in (not 16-byte aligned), rows a whole number of
/// 16-byte stores wide, lengths that leave a partial last store, and arrays of many blocks;
/// against [`repeat_ref`].
fn repeat_counts(d: Device) -> TestResult {
    use cuprite_array::c64;
    let mut rng = Rng::fresh();
    on(d, || {
        let shape = [2usize, 3, 4];
        let x = rng.vec_f32(24, -1.0, 1.0);
        let a = Array::from_slice(&x, &shape)?;
        for reps in [0usize, 1, 3] {
            let (want, ws) = repeat_ref(&x, &shape, None, &[reps; 24]);
            let got = a.repeat(reps)?;
            assert_eq!(
                (got.shape(), got.to_vec()?),
                (&ws[..], want),
                "flat x{reps}"
            );
            for ax in 0..3 {
                let (want, ws) = repeat_ref(&x, &shape, Some(ax), &vec![reps; shape[ax]]);
                let got = a.repeat_with(reps, AxisOpts::new().axis(ax as isize))?;
                assert_eq!(
                    (got.shape(), got.to_vec()?),
                    (&ws[..], want),
                    "axis {ax} x{reps}"
                );
            }
        }
        // Negative axes name the same axis.
        assert_eq!(
            a.repeat_with(2, AxisOpts::new().axis(-1))?.to_vec()?,
            a.repeat_with(2, AxisOpts::new().axis(2))?.to_vec()?
        );
        // Per-element counts.
        for (ax, counts) in [
            (1usize, vec![2usize, 0, 3]),
            (2, vec![0, 0, 0, 0]),
            (0, vec![1, 1]),
        ] {
            let (want, ws) = repeat_ref(&x, &shape, Some(ax), &counts);
            let got = a.repeat_each(&counts, ax as isize)?;
            assert_eq!(
                (got.shape(), got.to_vec()?),
                (&ws[..], want),
                "repeat_each {counts:?}"
            );
        }
        assert!(a.repeat_each(&[1, 2], 1).is_err());
        // Element sizes 1, 2, 8 and 16 bytes; 45 bytes leave a partial last store.
        let u: Vec<u8> = (0..15u8).map(|i| i.wrapping_mul(37)).collect();
        let (want, _) = repeat_ref(&u, &[5, 3], None, &[3; 15]);
        assert_eq!(Array::from_slice(&u, &[5, 3])?.repeat(3)?.to_vec()?, want);
        let h: Vec<i16> = (0..7).map(|i| i * 1000 - 3000).collect();
        let (want, _) = repeat_ref(&h, &[7], Some(0), &[5; 7]);
        assert_eq!(Array::from_slice(&h, &[7])?.repeat(5)?.to_vec()?, want);
        let g: Vec<f64> = (0..6).map(|i| i as f64 * 0.25 - 1.0).collect();
        let (want, _) = repeat_ref(&g, &[3, 2], Some(0), &[2; 3]);
        let got = Array::from_slice(&g, &[3, 2])?.repeat_with(2, AxisOpts::new().axis(0))?;
        assert_eq!(got.to_vec()?, want);
        let z: Vec<c64> = (0..4).map(|i| c64::new(i as f64, -(i as f64))).collect();
        let (want, _) = repeat_ref(&z, &[4], None, &[3; 4]);
        assert_eq!(Array::from_slice(&z, &[4])?.repeat(3)?.to_vec()?, want);
        // A view one element in: rows of 4 f32 that are not 16-byte aligned in memory.
        let base = rng.vec_f32(37, -1.0, 1.0);
        let view = Array::from_slice(&base, &[37])?
            .slice(&[(1..37).into()])?
            .reshape(&[9, 4])?;
        let (want, ws) = repeat_ref(&base[1..], &[9, 4], Some(0), &[2; 9]);
        let got = view.repeat_with(2, AxisOpts::new().axis(0))?;
        assert_eq!((got.shape(), got.to_vec()?), (&ws[..], want), "offset view");
        // Rows of 8 f32 (whole 16-byte loads), and arrays of many blocks.
        for (shape, ax, reps) in [
            (vec![3usize, 8], Some(0usize), 3usize),
            (vec![1000, 12], Some(0), 7),
            (vec![100_003], None, 2),
            (vec![37, 3, 5], Some(1), 4),
        ] {
            let len: usize = shape.iter().product();
            let v = rng.vec_f32(len, -1.0, 1.0);
            let arr = Array::from_slice(&v, &shape)?;
            let n_ax = ax.map_or(len, |a| shape[a]);
            let (want, ws) = repeat_ref(&v, &shape, ax, &vec![reps; n_ax]);
            let got = match ax {
                None => arr.repeat(reps)?,
                Some(a) => arr.repeat_with(reps, AxisOpts::new().axis(a as isize))?,
            };
            assert_eq!(got.shape(), &ws[..], "{shape:?} x{reps}");
            assert!(got.to_vec()? == want, "{shape:?} axis {ax:?} x{reps}");
        }
        // A lazy input is computed first.
        let (want, _) = repeat_ref(
            &x.iter().map(|v| v * 2.0).collect::<Vec<f32>>(),
            &shape,
            Some(1),
            &[2; 3],
        );
        let got = (&a * 2.0f32).repeat_with(2, AxisOpts::new().axis(1))?;
        assert_eq!(got.to_vec()?, want, "lazy input");
        Ok(())
    })
}

/// `tril`/`triu` (and `tri`) with `k` below, on and above the diagonal and beyond the matrix
/// (`i64::MIN`, `i64::MAX`), on square, wide and tall matrices, batched, rows a multiple of 4
/// wide (the vectorised kernel) or not, of `f32` and `i32` and of a lazy input; against the
/// index comparison (NumPy: `tril` keeps `j - i <= k`, `triu` keeps `j - i >= k`).
fn triangles_wide(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    on(d, || {
        let shapes: [&[usize]; 7] = [
            &[4, 8],
            &[8, 4],
            &[3, 5],
            &[2, 3, 8],
            &[2, 8, 4],
            &[2, 6, 3],
            &[2, 2, 5, 12],
        ];
        let ks = [i64::MIN, -9, -3, -1, 0, 1, 2, 5, 9, i64::MAX];
        for shape in shapes {
            let nd = shape.len();
            let len: usize = shape.iter().product();
            let x = rng.vec_f32(len, -1.0, 1.0);
            let a = Array::from_slice(&x, shape)?;
            let xi: Vec<i32> = (0..len as i32).map(|i| i * 7 - 50).collect();
            let ai = Array::from_slice(&xi, shape)?;
            let lazy = &a * 3.0f32;
            for k in ks {
                let keep = |q: usize, lower: bool| {
                    let idx = unravel(q, shape);
                    let dk = idx[nd - 1] as i128 - idx[nd - 2] as i128;
                    if lower {
                        dk <= k as i128
                    } else {
                        dk >= k as i128
                    }
                };
                for lower in [true, false] {
                    let (f, i, l) = if lower {
                        (a.tril(k)?, ai.tril(k)?, lazy.tril(k)?)
                    } else {
                        (a.triu(k)?, ai.triu(k)?, lazy.triu(k)?)
                    };
                    assert_eq!(f.shape(), shape);
                    let (f, i, l) = (f.to_vec()?, i.to_vec()?, l.to_vec()?);
                    for q in 0..len {
                        let kept = keep(q, lower);
                        let (wf, wi, wl) = if kept {
                            (x[q], xi[q], x[q] * 3.0)
                        } else {
                            (0.0, 0, 0.0)
                        };
                        if f[q] != wf || i[q] != wi || l[q] != wl {
                            return Err(format!(
                                "{shape:?} k={k} lower={lower} at {q}: got ({}, {}, {}), \
                                 want ({wf}, {wi}, {wl})",
                                f[q], i[q], l[q]
                            )
                            .into());
                        }
                    }
                }
            }
        }
        let t = Array::<f32>::tri(3, 8, 2)?.to_vec()?;
        for i in 0..3 {
            for j in 0..8 {
                assert_eq!(t[i * 8 + j], f32::from(u8::from(j as i64 - i as i64 <= 2)));
            }
        }
        assert!(Array::from_slice(&[1.0f32, 2.0], &[2])?.tril(0).is_err());
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("stacking", stacking),
    ("triangles", triangles),
    ("nan_reductions", nan_reductions),
    ("nan_reductions_f32", nan_reductions_f32),
    ("nan_extremes_narrow", nan_extremes_narrow),
    ("nan_passes", nan_passes),
    ("nan_extreme_edges", nan_extreme_edges),
    ("nan_extreme_long", nan_extreme_long),
    ("repeat_counts", repeat_counts),
    ("triangles_wide", triangles_wide),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::numpy_fn::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::numpy_fn::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
