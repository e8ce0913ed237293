//! NumPy-level routines (element-wise helpers, windows, index arithmetic, polynomials,
//! calculus, binning, padding, linalg extras, `.npy`/`.npz`) against f64 host references
//! computed here, or values published in NumPy's documentation. Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::ops::CloseOpts;
use cuprite_array::ops::DigitizeOpts;
use cuprite_array::ops::{self, PadMode};
use cuprite_array::{Array, Device, io, linalg};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn f64v(v: Vec<f32>) -> Vec<f64> {
    v.into_iter().map(f64::from).collect()
}

fn elementwise(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 500;
        let x = f64v(rng.vec_f32(n, -20.0, 20.0));
        let mut y = f64v(rng.vec_f32(n, -20.0, 20.0));
        y[0] = 0.0;
        y[1] = -0.0;
        let (a, b) = (Array::from_slice(&x, &[n])?, Array::from_slice(&y, &[n])?);
        // logaddexp against the direct formula (the values are small enough not to overflow).
        let want: Vec<f64> = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p.exp() + q.exp()).ln())
            .collect();
        close(
            &a.logaddexp(&b)?.to_vec()?,
            &want,
            1e-13,
            1e-13,
            "logaddexp",
        )?;
        let want: Vec<f64> = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p.exp2() + q.exp2()).log2())
            .collect();
        close(
            &a.logaddexp2(&b)?.to_vec()?,
            &want,
            1e-13,
            1e-13,
            "logaddexp2",
        )?;
        // divmod on floats: Python's floor division and modulo (q * b + r == a, r has b's sign).
        let yz: Vec<f64> = y.iter().map(|v| if *v == 0.0 { 1.5 } else { *v }).collect();
        let bz = Array::from_slice(&yz, &[n])?;
        let (q, r) = a.divmod(&bz)?;
        let (q, r) = (q.to_vec()?, r.to_vec()?);
        for i in 0..n {
            assert_eq!(
                q[i],
                (x[i] / yz[i]).floor(),
                "floor_divide at {i}: {} / {}",
                x[i],
                yz[i]
            );
            let m = x[i] - yz[i] * (x[i] / yz[i]).floor();
            close(&[r[i]], &[m], 1e-12, 1e-12, "mod")?;
            assert!(r[i] == 0.0 || (r[i] < 0.0) == (yz[i] < 0.0));
        }
        // integers: floor division and Euclid-style modulo of Rust's i64 (div_euclid differs
        // for negative divisors, so floor is computed directly).
        let xi: Vec<i64> = x.iter().map(|v| (*v * 10.0) as i64).collect();
        let yi: Vec<i64> = y.iter().map(|v| (*v * 3.0) as i64).collect();
        let (ai, bi) = (Array::from_slice(&xi, &[n])?, Array::from_slice(&yi, &[n])?);
        let (q, r) = ai.divmod(&bi)?;
        let (q, r) = (q.to_vec()?, r.to_vec()?);
        for i in 0..n {
            let (p, s) = (xi[i], yi[i]);
            let (wq, wr) = if s == 0 {
                (0, 0)
            } else {
                let fq = (p as f64 / s as f64).floor() as i64;
                (fq, p - fq * s)
            };
            assert_eq!((q[i], r[i]), (wq, wr), "divmod({p}, {s})");
        }
        // signbit / copysign
        let sb = b.signbit().to_vec()?;
        let cs = a.copysign(&b)?.to_vec()?;
        for i in 0..n {
            assert_eq!(sb[i], y[i].is_sign_negative(), "signbit at {i}");
            assert_eq!(cs[i], x[i].copysign(y[i]), "copysign at {i}");
        }
        // isclose by the formula
        let z: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(i, v)| v + (i % 7) as f64 * 1e-6 * v.abs())
            .collect();
        let c = Array::from_slice(&z, &[n])?;
        let got = a
            .isclose_with(&c, CloseOpts::new().rtol(2e-6).atol(0.0))?
            .to_vec()?;
        for i in 0..n {
            assert_eq!(
                got[i],
                (x[i] - z[i]).abs() <= 2e-6 * z[i].abs(),
                "isclose at {i}"
            );
        }
        assert!(a.allclose_with(&a, CloseOpts::new().rtol(0.0).atol(0.0))?);
        assert!(a.array_equal(&a)? && !a.array_equal(&b)?);
        // sinc, heaviside
        let want: Vec<f64> = x
            .iter()
            .map(|v| {
                if *v == 0.0 {
                    1.0
                } else {
                    (std::f64::consts::PI * v).sin() / (std::f64::consts::PI * v)
                }
            })
            .collect();
        close(&a.sinc()?.to_vec()?, &want, 1e-12, 1e-14, "sinc")?;
        let h = b.heaviside(0.5)?.to_vec()?;
        for i in 0..n {
            let w = if y[i] < 0.0 {
                0.0
            } else if y[i] > 0.0 {
                1.0
            } else {
                0.5
            };
            assert_eq!(h[i], w);
        }
        Ok(())
    })
}

fn windows_and_ranges(d: Device) -> TestResult {
    on(d, || {
        use std::f64::consts::PI;
        for m in [0usize, 1, 2, 7, 64] {
            let ph = |k: usize| 2.0 * PI * k as f64 / (m as f64 - 1.0);
            let mk = |f: &dyn Fn(usize) -> f64| -> Vec<f64> {
                (0..m).map(|k| if m == 1 { 1.0 } else { f(k) }).collect()
            };
            close(
                &ops::hanning::<f64>(m)?.to_vec()?,
                &mk(&|k| 0.5 - 0.5 * ph(k).cos()),
                0.0,
                1e-15,
                "hanning",
            )?;
            close(
                &ops::hamming::<f64>(m)?.to_vec()?,
                &mk(&|k| 0.54 - 0.46 * ph(k).cos()),
                0.0,
                1e-15,
                "hamming",
            )?;
            close(
                &ops::blackman::<f64>(m)?.to_vec()?,
                &mk(&|k| 0.42 - 0.5 * ph(k).cos() + 0.08 * (2.0 * ph(k)).cos()),
                0.0,
                1e-15,
                "blackman",
            )?;
            close(
                &ops::bartlett::<f64>(m)?.to_vec()?,
                &mk(&|k| 1.0 - (2.0 * k as f64 / (m as f64 - 1.0) - 1.0).abs()),
                0.0,
                1e-15,
                "bartlett",
            )?;
        }
        // NumPy's documented np.kaiser(12, 14) (to the 8 digits the documentation prints).
        let want = [
            7.72686684e-06,
            3.46009194e-03,
            4.65200189e-02,
            2.29737120e-01,
            5.99885316e-01,
            9.45674898e-01,
            9.45674898e-01,
            5.99885316e-01,
            2.29737120e-01,
            4.65200189e-02,
            3.46009194e-03,
            7.72686684e-06,
        ];
        close(
            &ops::kaiser::<f64>(12, 14.0)?.to_vec()?,
            &want,
            1e-7,
            1e-13,
            "kaiser",
        )?;
        let l = Array::<f64>::logspace(-1.0, 2.0, 7, 2.0)?.to_vec()?;
        let want: Vec<f64> = (0..7).map(|k| 2f64.powf(-1.0 + 0.5 * k as f64)).collect();
        close(&l, &want, 1e-14, 0.0, "logspace")?;
        let g = Array::<f32>::geomspace(1.0, 256.0, 9)?.to_vec()?;
        let want: Vec<f64> = (0..9).map(|k| 2f64.powi(k)).collect();
        close(&f64v(g), &want, 1e-6, 0.0, "geomspace")?;
        Ok(())
    })
}

fn search_and_index(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let shape = [3usize, 5, 7];
        let n = 105;
        let flat: Vec<i64> = (0..200)
            .map(|_| (rng.next_u64() % n as u64) as i64)
            .collect();
        let fa = Array::from_slice(&flat, &[200])?;
        let c = ops::unravel_index(&fa, &shape)?;
        let cv: Vec<Vec<i64>> = c.iter().map(|a| a.to_vec()).collect::<Result<_, _>>()?;
        for (k, &f) in flat.iter().enumerate() {
            let f = f as usize;
            assert_eq!(
                (cv[0][k], cv[1][k], cv[2][k]),
                ((f / 35) as i64, (f / 7 % 5) as i64, (f % 7) as i64)
            );
        }
        let back = ops::ravel_multi_index(&[&c[0], &c[1], &c[2]], &shape)?.to_vec()?;
        assert_eq!(back, flat);
        assert!(ops::unravel_index(&Array::from_slice(&[105i64], &[1])?, &shape).is_err());
        // lexsort of two keys against a host stable sort
        let k1: Vec<i32> = (0..300).map(|_| (rng.next_u64() % 5) as i32).collect();
        let k2: Vec<i32> = (0..300).map(|_| (rng.next_u64() % 7) as i32).collect();
        let mut want: Vec<i64> = (0..300).collect();
        want.sort_by_key(|&i| (k2[i as usize], k1[i as usize]));
        let got = ops::lexsort(&[
            &Array::from_slice(&k1, &[300])?,
            &Array::from_slice(&k2, &[300])?,
        ])?;
        assert_eq!(got.to_vec()?, want);
        // isin against a host set
        let e: Vec<i32> = (0..400).map(|_| (rng.next_u64() % 1000) as i32).collect();
        let t: Vec<i32> = (0..150).map(|_| (rng.next_u64() % 1000) as i32).collect();
        let got = Array::from_slice(&e, &[20, 20])?.isin(&Array::from_slice(&t, &[150])?)?;
        let want: Vec<bool> = e.iter().map(|v| t.contains(v)).collect();
        assert_eq!(got.to_vec()?, want);
        let fnan = Array::from_slice(&[f32::NAN, 1.0], &[2])?;
        assert_eq!(fnan.isin(&fnan)?.to_vec()?, [false, true]);
        // digitize against partition_point
        let bins: Vec<f64> = (0..10).map(|k| k as f64 * 1.5 - 3.0).collect();
        let x = f64v(rng.vec_f32(300, -5.0, 12.0));
        let xa = Array::from_slice(&x, &[300])?;
        let ba = Array::from_slice(&bins, &[10])?;
        let want: Vec<i64> = x
            .iter()
            .map(|v| bins.partition_point(|b| b <= v) as i64)
            .collect();
        assert_eq!(xa.digitize(&ba)?.to_vec()?, want);
        let want: Vec<i64> = x
            .iter()
            .map(|v| bins.partition_point(|b| b < v) as i64)
            .collect();
        assert_eq!(
            xa.digitize_with(&ba, DigitizeOpts::new().right(true))?
                .to_vec()?,
            want
        );
        // decreasing bins: NumPy's rule bins[i-1] > x >= bins[i]
        let rb: Vec<f64> = bins.iter().rev().copied().collect();
        let want: Vec<i64> = x
            .iter()
            .map(|v| rb.iter().filter(|b| *b > v).count() as i64)
            .collect();
        assert_eq!(
            xa.digitize(&Array::from_slice(&rb, &[10])?)?.to_vec()?,
            want
        );
        Ok(())
    })
}

fn polynomials_and_calculus(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let p = f64v(rng.vec_f32(5, -2.0, 2.0));
        let x = f64v(rng.vec_f32(100, -3.0, 3.0));
        let (pa, xa) = (Array::from_slice(&p, &[5])?, Array::from_slice(&x, &[100])?);
        let want: Vec<f64> = x
            .iter()
            .map(|v| {
                p.iter()
                    .enumerate()
                    .map(|(i, c)| c * v.powi(4 - i as i32))
                    .sum()
            })
            .collect();
        close(
            &ops::polyval(&pa, &xa)?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "polyval",
        )?;
        // Exact samples of p: the fit gives p back.
        let y = ops::polyval(&pa, &xa)?;
        close(
            &ops::polyfit(&xa, &y, 4)?.to_vec()?,
            &p,
            1e-8,
            1e-8,
            "polyfit",
        )?;
        // gradient and trapezoid along both axes of a 2-D array
        let (m, n) = (6, 9);
        let f = f64v(rng.vec_f32(m * n, -1.0, 1.0));
        let fa = Array::from_slice(&f, &[m, n])?;
        let g = fa.gradient(0.5, 1)?.to_vec()?;
        for i in 0..m {
            for j in 0..n {
                let r = &f[i * n..(i + 1) * n];
                let w = if j == 0 {
                    (r[1] - r[0]) / 0.5
                } else if j == n - 1 {
                    (r[n - 1] - r[n - 2]) / 0.5
                } else {
                    (r[j + 1] - r[j - 1]) / 1.0
                };
                close(&[g[i * n + j]], &[w], 1e-12, 1e-12, "gradient")?;
            }
        }
        let t = fa.trapezoid(0.25, 0)?.to_vec()?;
        for j in 0..n {
            let w: f64 = (1..m)
                .map(|i| (f[i * n + j] + f[(i - 1) * n + j]) * 0.125)
                .sum();
            close(&[t[j]], &[w], 1e-12, 1e-12, "trapezoid")?;
        }
        // cross of row vectors, kron of matrices
        let u = f64v(rng.vec_f32(12, -1.0, 1.0));
        let v = f64v(rng.vec_f32(12, -1.0, 1.0));
        let cr = Array::from_slice(&u, &[4, 3])?
            .cross(&Array::from_slice(&v, &[4, 3])?)?
            .to_vec()?;
        for r in 0..4 {
            let (a, b) = (&u[r * 3..r * 3 + 3], &v[r * 3..r * 3 + 3]);
            let w = [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            close(&cr[r * 3..r * 3 + 3], &w, 1e-12, 1e-12, "cross")?;
        }
        let (a, b) = (
            Array::from_slice(&u[..6], &[2, 3])?,
            Array::from_slice(&v[..8], &[4, 2])?,
        );
        let k = a.kron(&b)?;
        assert_eq!(k.shape(), &[8, 6]);
        let kv = k.to_vec()?;
        for i in 0..8 {
            for j in 0..6 {
                assert_eq!(
                    kv[i * 6 + j],
                    u[(i / 4) * 3 + j / 2] * v[(i % 4) * 2 + j % 2]
                );
            }
        }
        Ok(())
    })
}

fn binning_and_padding(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let x = f64v(rng.vec_f32(1000, -1.0, 11.0));
        let y = f64v(rng.vec_f32(1000, -1.0, 11.0));
        let ex: Vec<f64> = vec![0.0, 1.0, 2.5, 4.0, 8.0, 10.0];
        let ey: Vec<f64> = vec![0.0, 5.0, 10.0];
        let bin = |v: f64, e: &[f64]| -> Option<usize> {
            let last = e.len() - 1;
            if !(v >= e[0] && v <= e[last]) {
                return None;
            }
            Some(
                e.partition_point(|b| *b <= v)
                    .saturating_sub(1)
                    .min(last - 1),
            )
        };
        let (xa, ya) = (
            Array::from_slice(&x, &[1000])?,
            Array::from_slice(&y, &[1000])?,
        );
        let (exa, eya) = (Array::from_slice(&ex, &[6])?, Array::from_slice(&ey, &[3])?);
        let mut h1 = vec![0i64; 5];
        let mut h2 = vec![0i64; 10];
        for i in 0..1000 {
            if let Some(b) = bin(x[i], &ex) {
                h1[b] += 1;
                if let Some(c) = bin(y[i], &ey) {
                    h2[b * 2 + c] += 1;
                }
            }
        }
        assert_eq!(xa.histogram_edges(&exa)?.to_vec()?, h1);
        assert_eq!(ops::histogram2d(&xa, &ya, &exa, &eya)?.to_vec()?, h2);
        // several quantiles: the linear method by its formula
        let mut s = x.clone();
        s.sort_by(f64::total_cmp);
        let qs = [0.0f64, 0.1, 0.5, 0.77, 1.0];
        let want: Vec<f64> = qs
            .iter()
            .map(|q| {
                let h: f64 = 999.0 * q;
                let (lo, g) = (h.floor() as usize, h - h.floor());
                s[lo] + (s[(lo + 1).min(999)] - s[lo]) * g
            })
            .collect();
        close(
            &xa.quantiles(&qs)?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "quantiles",
        )?;
        // pad: the examples of NumPy's documentation for np.pad([1, 2, 3, 4, 5], (2, 3), mode)
        let a = Array::from_slice(&[1i32, 2, 3, 4, 5], &[5])?;
        let cases: [(PadMode, [i32; 10]); 4] = [
            (PadMode::Edge, [1, 1, 1, 2, 3, 4, 5, 5, 5, 5]),
            (PadMode::Reflect, [3, 2, 1, 2, 3, 4, 5, 4, 3, 2]),
            (PadMode::Symmetric, [2, 1, 1, 2, 3, 4, 5, 5, 4, 3]),
            (PadMode::Wrap, [4, 5, 1, 2, 3, 4, 5, 1, 2, 3]),
        ];
        for (mode, want) in cases {
            assert_eq!(a.pad_mode(&[(2, 3)], mode)?.to_vec()?, want, "{mode:?}");
        }
        let af = a.cast::<f64>();
        assert_eq!(
            af.pad_linear_ramp(&[(2, 3)], (5.0, -4.0))?.to_vec()?,
            [5.0, 3.0, 1.0, 2.0, 3.0, 4.0, 5.0, 2.0, -1.0, -4.0]
        );
        // 2-D reflect against index mirroring on the host
        let m = Array::from_slice(&(0..12).collect::<Vec<i32>>(), &[3, 4])?;
        let p = m.pad_mode(&[(1, 2), (3, 0)], PadMode::Reflect)?;
        assert_eq!(p.shape(), &[6, 7]);
        let pv = p.to_vec()?;
        let refl = |i: i64, n: i64| {
            let r = i.rem_euclid(2 * (n - 1));
            if r < n { r } else { 2 * (n - 1) - r }
        };
        for i in 0..6 {
            for j in 0..7 {
                let (si, sj) = (refl(i - 1, 3), refl(j - 3, 4));
                assert_eq!(pv[(i * 7 + j) as usize], (si * 4 + sj) as i32);
            }
        }
        Ok(())
    })
}

fn linalg_extras(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 4;
        let a = f64v(rng.vec_f32(n * n, -0.5, 0.5));
        let mul = |x: &[f64], y: &[f64]| -> Vec<f64> {
            (0..n * n)
                .map(|k| (0..n).map(|t| x[k / n * n + t] * y[t * n + k % n]).sum())
                .collect()
        };
        let aa = Array::from_slice(&a, &[n, n])?;
        let mut want = a.clone();
        for _ in 1..5 {
            want = mul(&want, &a);
        }
        close(
            &linalg::matrix_power(&aa, 5)?.to_vec()?,
            &want,
            1e-10,
            1e-12,
            "matrix_power",
        )?;
        let eye: Vec<f64> = (0..n * n)
            .map(|k| f64::from(u8::from(k / n == k % n)))
            .collect();
        close(
            &linalg::matrix_power(&aa, 0)?.to_vec()?,
            &eye,
            0.0,
            0.0,
            "matrix_power 0",
        )?;
        let inv = linalg::matrix_power(&aa, -1)?.to_vec()?;
        close(&mul(&inv, &a), &eye, 1e-9, 1e-9, "matrix_power -1")?;
        let dg = Array::from_slice(&[3.0f64, 0.0, 0.0, 0.0, -0.5, 0.0, 0.0, 0.0, 1.5], &[3, 3])?;
        close(&[linalg::cond(&dg)?], &[6.0], 1e-12, 0.0, "cond")?;
        let v = rng.vec_f32(24, -1.0, 1.0);
        let va = Array::from_slice(&v, &[4, 6])?;
        for (ord, f) in [
            (
                2.0,
                Box::new(|r: &[f64]| r.iter().map(|x| x * x).sum::<f64>().sqrt())
                    as Box<dyn Fn(&[f64]) -> f64>,
            ),
            (1.0, Box::new(|r: &[f64]| r.iter().map(|x| x.abs()).sum())),
            (
                f64::INFINITY,
                Box::new(|r: &[f64]| r.iter().fold(0.0, |m, x| x.abs().max(m))),
            ),
            (
                3.0,
                Box::new(|r: &[f64]| r.iter().map(|x| x.abs().powi(3)).sum::<f64>().cbrt()),
            ),
        ] {
            let want: Vec<f64> = (0..4)
                .map(|i| f(&f64v(v[i * 6..i * 6 + 6].to_vec())))
                .collect();
            close(
                &linalg::norm_axes(&va, ord, &[1])?.to_vec()?,
                &want,
                1e-12,
                1e-12,
                "norm_axes",
            )?;
        }
        Ok(())
    })
}

fn npy_files(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let v = rng.vec_f32(60, -1.0, 1.0);
        let a = Array::from_slice(&v, &[3, 4, 5])?;
        let b = Array::<f32>::from_npy_bytes(&a.to_npy_bytes()?)?;
        assert_eq!((b.shape(), b.to_vec()?), (&[3usize, 4, 5][..], v.clone()));
        let bytes = a.to_npy_bytes()?;
        assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
        let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + hl) % 64, 0);
        let h = std::str::from_utf8(&bytes[10..10 + hl])?;
        assert_eq!(
            h.trim_end(),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, 5), }"
        );
        // A big-endian, Fortran-ordered file written by hand to the format's specification.
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        let hdr = "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }";
        let hdr = format!("{hdr:<53}\n");
        f.extend_from_slice(&(hdr.len() as u16).to_le_bytes());
        f.extend_from_slice(hdr.as_bytes());
        // Column-major [[1, 2, 3], [4, 5, 6]]: 1 4 2 5 3 6.
        for x in [1i32, 4, 2, 5, 3, 6] {
            f.extend_from_slice(&x.to_be_bytes());
        }
        let r = Array::<i32>::from_npy_bytes(&f)?;
        assert_eq!(
            (r.shape(), r.to_vec()?),
            (&[2usize, 3][..], vec![1, 2, 3, 4, 5, 6])
        );
        assert!(Array::<u32>::from_npy_bytes(&f).is_err());
        assert!(Array::<i32>::from_npy_bytes(&f[..f.len() - 1]).is_err());
        // A descr that starts with a character of several bytes is refused, naming it.
        for descr in ["éi4", "é", "\u{1F600}<i4"] {
            let mut g = b"\x93NUMPY\x01\x00".to_vec();
            let hdr = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,), }}");
            let hdr = format!("{hdr:<60}\n");
            g.extend_from_slice(&(hdr.len() as u16).to_le_bytes());
            g.extend_from_slice(hdr.as_bytes());
            g.extend_from_slice(&7i32.to_le_bytes());
            assert_err(Array::<i32>::from_npy_bytes(&g), "Io", descr);
        }
        // npz round trip with mixed types, through a file
        let mut w = io::NpzWriter::new();
        w.add("a", &a)?;
        let flags = Array::from_slice(&[true, false, true], &[3])?;
        w.add("flags", &flags)?;
        w.add(
            "z",
            &Array::from_slice(&[cuprite_array::c64::new(1.0, -2.0)], &[1])?,
        )?;
        let path =
            std::env::temp_dir().join(format!("cuprite-npz-{}-{}.npz", std::process::id(), d));
        w.save(&path)?;
        let z = io::Npz::open(&path)?;
        std::fs::remove_file(&path).ok();
        assert_eq!(z.names(), ["a", "flags", "z"]);
        assert_eq!(z.get::<f32>("a")?.to_vec()?, v);
        assert_eq!(z.get::<bool>("flags")?.to_vec()?, [true, false, true]);
        assert_eq!(
            z.get::<cuprite_array::c64>("z")?.item()?,
            cuprite_array::c64::new(1.0, -2.0)
        );
        assert!(z.get::<f32>("missing").is_err());
        // A flipped byte fails the CRC check.
        let mut w = io::NpzWriter::new();
        w.add("a", &a)?;
        let mut zb = w.finish()?;
        zb[100] ^= 1;
        assert!(io::Npz::from_bytes(zb).is_err());
        // A zip64 local-header offset near the end of the address space is a truncated
        // archive, named (a central entry, its extra block 0x0001, the end record).
        let mut z = Vec::new();
        z.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        z.extend_from_slice(&[0; 24]); // versions, flags, method, time, date, CRC, two sizes
        z.extend_from_slice(&1u16.to_le_bytes()); // name length
        z.extend_from_slice(&12u16.to_le_bytes()); // extra length
        z.extend_from_slice(&[0; 10]); // comment length, disk, attributes
        z.extend_from_slice(&u32::MAX.to_le_bytes()); // local offset: in the extra block
        z.push(b'a');
        z.extend_from_slice(&1u16.to_le_bytes());
        z.extend_from_slice(&8u16.to_le_bytes());
        z.extend_from_slice(&(u64::MAX - 1).to_le_bytes());
        z.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        z.extend_from_slice(&[0; 6]);
        z.extend_from_slice(&1u16.to_le_bytes()); // entries
        z.extend_from_slice(&[0; 4]);
        z.extend_from_slice(&0u32.to_le_bytes()); // central directory at byte 0
        z.extend_from_slice(&[0; 2]);
        assert_err(
            io::Npz::from_bytes(z),
            "Io",
            &format!("truncated at byte {}", u64::MAX - 1),
        );
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("elementwise", elementwise),
    ("windows_and_ranges", windows_and_ranges),
    ("search_and_index", search_and_index),
    ("polynomials_and_calculus", polynomials_and_calculus),
    ("binning_and_padding", binning_and_padding),
    ("linalg_extras", linalg_extras),
    ("npy_files", npy_files),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::numpy_fn2::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::numpy_fn2::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
