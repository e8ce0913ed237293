//! NumPy's index tricks, choosing routines, editing routines, user functions and strided
//! views, against host references written here with plain loops (or values from NumPy's
//! documentation). Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err};
use cuprite_array::ops::AxisOpts;
use cuprite_array::ops::FillDiagonalOpts;
use cuprite_array::ops::{self, Grid, IndexMode, Trim};
use cuprite_array::{Array, Device, s};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn rand_i64(rng: &mut Rng, n: usize, lo: i64, hi: i64) -> Vec<i64> {
    (0..n)
        .map(|_| lo + (rng.next_u64() % (hi - lo) as u64) as i64)
        .collect()
}

fn grids(d: Device) -> TestResult {
    on(d, || {
        // indices: out[k][i, j, l] == index k, every position checked.
        let dims = [3usize, 4, 2];
        let g = ops::indices::<i64>(&dims)?;
        assert_eq!(g.shape(), &[3, 3, 4, 2]);
        let v = g.to_vec()?;
        let mut p = 0;
        for k in 0..3 {
            for idx in ops::ndindex(&dims) {
                assert_eq!(v[p], idx[k] as i64, "indices at {k} {idx:?}");
                p += 1;
            }
        }
        assert_eq!(ops::indices::<i32>(&[])?.shape(), &[0]);
        // ix_ selects the open mesh: m[r][c] == a[rows[r], cols[c]].
        let mut rng = Rng::fresh();
        let a: Vec<i64> = rand_i64(&mut rng, 30, -100, 100);
        let arr = Array::from_slice(&a, &[5, 6])?;
        let (rows, cols) = (vec![4i64, 0, 2], vec![5i64, 1]);
        let m = ops::ix_(&[
            &Array::from_slice(&rows, &[3])?,
            &Array::from_slice(&cols, &[2])?,
        ])?;
        let flat = &m[0] * 6 + &m[1];
        let got = arr.take(&flat)?.to_vec()?;
        let mut want = Vec::new();
        for &r in &rows {
            for &c in &cols {
                want.push(a[(r * 6 + c) as usize]);
            }
        }
        assert_eq!(got, want);
        assert_err(ops::ix_(&[&arr]), "Shape", "[5, 6]");
        let mask: Vec<bool> = (0..5).map(|i| rows.contains(&i)).collect();
        let mm = ops::ix_masks(&[&Array::from_slice(&mask, &[5])?])?;
        assert_eq!(mm[0].to_vec()?, [0, 2, 4]);
        // mgrid/ogrid against nd_grid arithmetic: start + i*step, count ceil((stop-start)/step).
        let g = ops::mgrid::<f64>(&[Grid::step(-1.0, 1.0, 0.5), Grid::num(2.0, 3.0, 5)])?;
        assert_eq!(g.shape(), &[2, 4, 5]);
        let v = g.to_vec()?;
        for i in 0..4 {
            for j in 0..5 {
                assert_eq!(v[i * 5 + j], -1.0 + 0.5 * i as f64);
                assert!((v[20 + i * 5 + j] - (2.0 + 0.25 * j as f64)).abs() < 1e-15);
            }
        }
        let o = ops::ogrid::<i64>(&[Grid::range(0.0, 3.0), Grid::step(10.0, 0.0, -4.0)])?;
        assert_eq!((o[0].shape(), o[1].shape()), (&[3, 1][..], &[1, 3][..]));
        assert_eq!(o[1].to_vec()?, [10, 6, 2]);
        assert!(ops::mgrid::<f32>(&[Grid::step(0.0, 1.0, 0.0)]).is_err());
        // diag_indices(_from), mask_indices against the triangle's definition.
        let d3 = ops::diag_indices(4, 3)?;
        assert_eq!(d3.len(), 3);
        assert_eq!(d3[2].to_vec()?, [0, 1, 2, 3]);
        assert_err(
            ops::diag_indices_from(&Array::<f32>::zeros(&[3, 3, 2])),
            "Shape",
            "[3, 3, 2]",
        );
        let n = 5;
        let (r, c) = ops::mask_indices(n, |m: &Array<i64>, k| m.tril(k), -1)?;
        let (r, c) = (r.to_vec()?, c.to_vec()?);
        let mut want = (Vec::new(), Vec::new());
        for i in 0..n as i64 {
            for j in 0..n as i64 {
                if j < i {
                    want.0.push(i);
                    want.1.push(j);
                }
            }
        }
        assert_eq!((r, c), want);
        // r_ / c_: NumPy's AxisConcatenator rules, checked against host concatenation.
        let x: Vec<i64> = rand_i64(&mut rng, 6, -9, 9);
        let xa = Array::from_slice(&x, &[6])?;
        let got = cuprite_array::r_![&xa, -3..2, 7, Grid::step(0.0, 6.0, 2.5)]?.to_vec()?;
        let mut want = x.clone();
        want.extend(-3..2);
        want.extend([7, 0, 2, 5]);
        assert_eq!(got, want);
        let cols = cuprite_array::c_![&xa, 0..6, &xa.reshape(&[6, 1])?]?;
        assert_eq!(cols.shape(), &[6, 3]);
        let cv = cols.to_vec()?;
        for i in 0..6 {
            assert_eq!(&cv[i * 3..i * 3 + 3], &[x[i], i as i64, x[i]]);
        }
        let m = Array::from_slice(&x, &[2, 3])?;
        let side = cuprite_array::r_!["1,2,0"; &m, 1..3]?;
        assert_eq!(side.shape(), &[2, 4]);
        let sv = side.to_vec()?;
        for i in 0..2 {
            assert_eq!(
                &sv[i * 4..i * 4 + 4],
                &[x[i * 3], x[i * 3 + 1], x[i * 3 + 2], i as i64 + 1]
            );
        }
        assert_err(cuprite_array::r_!["r"; &m], "InvalidArgument", "\"r\"");
        // ndindex: row-major odometer.
        let all: Vec<Vec<usize>> = ops::ndindex(&[2, 1, 3]).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[4], [1, 0, 1]);
        Ok(())
    })
}

fn choosing(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 200;
        let c: Vec<Vec<i64>> = (0..3).map(|_| rand_i64(&mut rng, n, -50, 50)).collect();
        let idx = rand_i64(&mut rng, n, -4, 7);
        let ch: Vec<Array<i64>> = c
            .iter()
            .map(|v| Array::from_slice(v, &[n]))
            .collect::<Result<_, _>>()?;
        let refs: Vec<&Array<i64>> = ch.iter().collect();
        let ia = Array::from_slice(&idx, &[n])?;
        // choose: wrap is Python's modulo, clip clamps; raise names the bad index.
        let w = ops::choose(&ia, &refs, IndexMode::Wrap)?.to_vec()?;
        let k = ops::choose(&ia, &refs, IndexMode::Clamp)?.to_vec()?;
        for i in 0..n {
            assert_eq!(w[i], c[idx[i].rem_euclid(3) as usize][i], "wrap at {i}");
            assert_eq!(k[i], c[idx[i].clamp(0, 2) as usize][i], "clip at {i}");
        }
        assert!(ops::choose(&ia, &refs, IndexMode::Error).is_err());
        let ok = Array::from_slice(
            &idx.iter()
                .map(|v| v.rem_euclid(3) as u8)
                .collect::<Vec<_>>(),
            &[n],
        )?;
        assert_eq!(ops::choose(&ok, &refs, IndexMode::Error)?.to_vec()?, w);
        // select: the first true condition wins, default elsewhere.
        let x: Vec<i64> = rand_i64(&mut rng, n, -10, 10);
        let xa = Array::from_slice(&x, &[n])?;
        let (c1, c2) = (xa.less(-3), xa.greater(2));
        let sq = &xa * &xa;
        let got = ops::select(&[&c1, &c2], &[&xa, &sq], 99)?.to_vec()?;
        for i in 0..n {
            let want = if x[i] < -3 {
                x[i]
            } else if x[i] > 2 {
                x[i] * x[i]
            } else {
                99
            };
            assert_eq!(got[i], want);
        }
        assert_err(
            ops::select(&[&c1], &[&xa, &sq], 0),
            "InvalidArgument",
            "1 conditions",
        );
        // piecewise: later conditions win; otherwise piece where none holds.
        let xf: Vec<f64> = x.iter().map(|&v| v as f64 / 2.0).collect();
        let xfa = Array::from_slice(&xf, &[n])?;
        let (p1, p2) = (xfa.less(0.0), xfa.greater(-1.0));
        let dbl = |v: &Array<f64>| Ok(v * 2.0);
        let neg = |v: &Array<f64>| Ok(-v);
        let got = ops::piecewise(&xfa, &[&p1, &p2], &[&dbl, &neg])?.to_vec()?;
        for i in 0..n {
            let mut want = 0.0;
            if xf[i] < 0.0 {
                want = xf[i] * 2.0;
            }
            if xf[i] > -1.0 {
                want = -xf[i];
            }
            assert_eq!(got[i], want);
        }
        // fill_diagonal with wrap against NumPy's flat stride rule.
        for (rows, cols, wrap) in [(7usize, 3usize, true), (7, 3, false), (3, 5, false)] {
            let mut a = Array::<i32>::zeros(&[rows, cols]);
            a.fill_diagonal_with(
                &Array::from_slice(&[5, 6], &[2])?,
                FillDiagonalOpts::new().wrap(wrap),
            )?;
            let got = a.to_vec()?;
            let end = if wrap || rows <= cols {
                rows * cols
            } else {
                cols * cols
            };
            let mut want = vec![0; rows * cols];
            for (k, p) in (0..end).step_by(cols + 1).enumerate() {
                want[p] = if k % 2 == 0 { 5 } else { 6 };
            }
            assert_eq!(got, want, "fill_diagonal {rows}x{cols} wrap {wrap}");
        }
        let mut cube = Array::<f32>::zeros(&[3, 3, 3]);
        cube.fill_diagonal(&Array::scalar(1.0))?;
        assert_eq!(cube.sum()?.item()?, 3.0);
        assert_eq!(cube.to_vec()?[13], 1.0);
        // putmask cycles values by flat position.
        let mut a = Array::from_slice(&x, &[20, 10])?;
        let mask = a.greater(0);
        let vals = [7i64, 8, 9];
        a.putmask(&mask, &Array::from_slice(&vals, &[3])?)?;
        let got = a.to_vec()?;
        for i in 0..n {
            assert_eq!(got[i], if x[i] > 0 { vals[i % 3] } else { x[i] });
        }
        Ok(())
    })
}

fn editing(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let v = rand_i64(&mut rng, 24, -9, 9);
        let a = Array::from_slice(&v, &[4, 6])?;
        // delete along an axis and flattened.
        let got = a
            .delete_with(&[1, -1, 1], AxisOpts::new().axis(1))?
            .to_vec()?;
        let want: Vec<i64> = (0..24)
            .filter(|i| i % 6 != 1 && i % 6 != 5)
            .map(|i| v[i])
            .collect();
        assert_eq!(got, want);
        let got = a.delete(&[0, 23])?.to_vec()?;
        assert_eq!(got, v[1..23].to_vec());
        assert_err(
            a.delete_with(&[4], AxisOpts::new().axis(0)),
            "Index",
            "index 4",
        );
        // resize cycles.
        let r = a.resize(&[5, 7])?.to_vec()?;
        assert_eq!(r, (0..35).map(|i| v[i % 24]).collect::<Vec<_>>());
        // trim_zeros on a bounding box.
        let mut z = vec![0i64; 30];
        for (i, j) in [(1usize, 2usize), (3, 4), (2, 1)] {
            z[i * 6 + j] = 7;
        }
        let zt = Array::from_slice(&z, &[5, 6])?;
        let t = zt.trim_zeros(Trim::Both, None)?;
        assert_eq!(t.shape(), &[3, 4]);
        assert_eq!(t.to_vec()?, zt.slice(&s![1..4, 1..5])?.to_vec()?);
        assert_eq!(zt.trim_zeros(Trim::Front, Some(&[1]))?.shape(), &[5, 5]);
        assert_eq!(
            Array::<f32>::zeros(&[4])
                .trim_zeros(Trim::Both, None)?
                .len(),
            0
        );
        // append, expand_dims over several axes, roll over several axes.
        let b = Array::from_slice(&[1i64, 2], &[2])?;
        let ap = a.append(&b)?.to_vec()?;
        assert_eq!(ap.len(), 26);
        assert_eq!(&ap[24..], &[1, 2]);
        assert_eq!(a.expand_dims_axes(&[-1, 0, 2])?.shape(), &[1, 4, 1, 6, 1]);
        assert_err(a.expand_dims_axes(&[1, 1]), "Axis", "repeated");
        let rl = a.roll_axes(&[3, -8], Some(&[0, 1]))?.to_vec()?;
        for i in 0..4 {
            for j in 0..6 {
                let (si, sj) = ((i + 4 - 3) % 4, (j + 8) % 6);
                assert_eq!(rl[i * 6 + j], v[si * 6 + sj]);
            }
        }
        let rf = a.roll_axes(&[5], None)?.to_vec()?;
        assert_eq!(
            rf,
            (0..24).map(|i| v[(i + 24 - 5) % 24]).collect::<Vec<_>>()
        );
        // diff with prepend/append, ediff1d.
        let x = rand_i64(&mut rng, 10, -50, 50);
        let xa = Array::from_slice(&x, &[10])?;
        let got = xa.diff_with(
            2,
            0,
            Some(&Array::scalar(3)),
            Some(&Array::from_slice(&[4, 5], &[2])?),
        )?;
        let mut ext = vec![3];
        ext.extend(&x);
        ext.extend([4, 5]);
        let d1: Vec<i64> = ext.windows(2).map(|w| w[1] - w[0]).collect();
        let d2: Vec<i64> = d1.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(got.to_vec()?, d2);
        let e = xa.ediff1d(Some(&Array::scalar(-1)), None)?.to_vec()?;
        assert_eq!(e.len(), 10);
        assert_eq!(
            e[..9].to_vec(),
            x.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>()
        );
        // argpartition: the partition contract at each kth.
        let f: Vec<f32> = rng.vec_f32(40, -1.0, 1.0);
        let fa = Array::from_slice(&f, &[4, 10])?;
        let p = fa.argpartition(&[3, -2], Some(1))?.to_vec()?;
        for r in 0..4 {
            let row: Vec<f32> = (0..10)
                .map(|j| f[r * 10 + p[r * 10 + j] as usize])
                .collect();
            let mut sorted = f[r * 10..r * 10 + 10].to_vec();
            sorted.sort_by(f32::total_cmp);
            for k in [3usize, 8] {
                assert_eq!(row[k], sorted[k]);
                assert!(row[..k].iter().all(|&y| y <= row[k]));
                assert!(row[k + 1..].iter().all(|&y| y >= row[k]));
            }
        }
        assert_err(fa.argpartition(&[10], Some(1)), "InvalidArgument", "kth 10");
        Ok(())
    })
}

fn functional(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // fromfunction against the formula.
        let f = ops::fromfunction::<f64, f64>(&[3, 4], |ix| Ok(&ix[0] * 1.5 - &ix[1] * &ix[1]))?;
        let v = f.to_vec()?;
        for i in 0..3 {
            for j in 0..4 {
                assert_eq!(v[i * 4 + j], i as f64 * 1.5 - (j * j) as f64);
            }
        }
        // apply_along_axis with a vector result, against row-by-row host work.
        let x: Vec<f64> = rng
            .vec_f32(24, -3.0, 3.0)
            .into_iter()
            .map(f64::from)
            .collect();
        let a = Array::from_slice(&x, &[2, 3, 4])?;
        let r = a.apply_along_axis(1, |col| Array::stack(&[&col.max()?, &col.min()?], 0))?;
        assert_eq!(r.shape(), &[2, 2, 4]);
        let rv = r.to_vec()?;
        for i in 0..2 {
            for l in 0..4 {
                let col: Vec<f64> = (0..3).map(|j| x[i * 12 + j * 4 + l]).collect();
                let mx = col.iter().cloned().fold(f64::MIN, f64::max);
                let mn = col.iter().cloned().fold(f64::MAX, f64::min);
                assert_eq!(rv[i * 8 + l], mx);
                assert_eq!(rv[i * 8 + 4 + l], mn);
            }
        }
        // apply_over_axes keeps the rank.
        let s = a.apply_over_axes(|t, ax| t.sum_axes(&[ax]), &[0, 2])?;
        assert_eq!(s.shape(), &[1, 3, 1]);
        let sv = s.to_vec()?;
        for j in 0..3 {
            let want: f64 = (0..2)
                .flat_map(|i| (0..4).map(move |l| (i, l)))
                .map(|(i, l)| x[i * 12 + j * 4 + l])
                .sum();
            assert!((sv[j] - want).abs() < 1e-12);
        }
        // host vectorize, one and two arguments.
        let m = a.map_host(|t| t > 0.0)?;
        assert_eq!(m.to_vec()?, x.iter().map(|&t| t > 0.0).collect::<Vec<_>>());
        let y = Array::from_slice(&[1i32, 2, 3, 4], &[4])?;
        let z = a.zip_map_host(&y, |p, q| p * q as f64)?.to_vec()?;
        for i in 0..24 {
            assert_eq!(z[i], x[i] * (i % 4 + 1) as f64);
        }
        assert!(
            a.zip_map_host(&Array::from_slice(&[1i32, 2], &[2])?, |p, _| p)
                .is_err()
        );
        Ok(())
    })
}

fn strided(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let x: Vec<i32> = rand_i64(&mut rng, 30, -99, 99)
            .into_iter()
            .map(|v| v as i32)
            .collect();
        let a = Array::from_slice(&x, &[5, 6])?;
        // sliding windows of 2 x 3 over both axes.
        let w = a.sliding_window_view(&[2, 3], None)?;
        assert_eq!(w.shape(), &[4, 4, 2, 3]);
        let wv = w.to_vec()?;
        let mut p = 0;
        for i in 0..4 {
            for j in 0..4 {
                for u in 0..2 {
                    for t in 0..3 {
                        assert_eq!(wv[p], x[(i + u) * 6 + j + t]);
                        p += 1;
                    }
                }
            }
        }
        // windows of a view (a transposed, stepped slice) and of an expression.
        let tv = a.t().slice(&s![..;2, ..])?; // shape [3, 5]
        let w2 = tv.sliding_window_view(&[3], Some(&[1]))?.to_vec()?;
        let e = (&a + 1).sliding_window_view(&[4], Some(&[0]))?.to_vec()?;
        let mut p = 0;
        for i in 0..3 {
            for j in 0..3 {
                for t in 0..3 {
                    assert_eq!(w2[p], x[(j + t) * 6 + 2 * i]);
                    p += 1;
                }
            }
        }
        assert_eq!(
            e[..4].to_vec(),
            (0..4).map(|u| x[u * 6] + 1).collect::<Vec<_>>()
        );
        assert_err(a.sliding_window_view(&[6], Some(&[0])), "Shape", "window 6");
        // as_strided: checked bounds; a valid map read element by element.
        let s2 = a.as_strided(&[3, 4], &[7, -1], 3)?.to_vec()?;
        for i in 0..3 {
            for j in 0..4 {
                assert_eq!(s2[i * 4 + j], x[3 + 7 * i - j]);
            }
        }
        assert_err(
            a.as_strided(&[3, 5], &[7, -1], 3),
            "Index",
            "strides [7, -1]",
        );
        assert_err(a.as_strided(&[2], &[isize::MAX], 0), "Index", "outside");
        // memory queries and order.
        let e = a.contiguous()?;
        let (h1, h2) = (e.slice(&s![..2, ..])?, e.slice(&s![2.., ..])?);
        assert!(!h1.shares_memory(&h2, None)?);
        assert!(h1.shares_memory(&e, None)?);
        assert!(
            e.slice(&s![.., ..3])?
                .may_share_memory(&e.slice(&s![.., 3..])?)
        );
        assert!(
            !e.slice(&s![.., ..3])?
                .shares_memory(&e.slice(&s![.., 3..])?, Some(100))?
        );
        assert!(e.shares_memory(&e, Some(10)).is_err());
        let (lo, hi) = e.byte_bounds().unwrap_or((0, 0));
        assert_eq!(hi - lo, 30 * 4);
        assert!(!(&e + 1).may_share_memory(&e));
        let f = a.asfortranarray()?;
        assert!(f.isfortran() && !a.isfortran());
        assert_eq!(f.to_vec()?, x);
        assert_eq!(f.flat()?.collect::<Vec<_>>(), x);
        assert!(a.require(&[ops::Requirement::F])?.isfortran());
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("grids", grids),
    ("choosing", choosing),
    ("editing", editing),
    ("functional", functional),
    ("strided", strided),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::numpy_idx::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::numpy_idx::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
