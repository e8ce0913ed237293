//! Compaction (`argwhere`, `nonzero`, `masked_select`) and `searchsorted` on every backend
//! against a scalar reference (exact): every dtype class, strided and broadcast inputs, sizes
//! around tiles, empty and 0-d arrays, bad input.

use crate::common::Body;
use cuprite_array::{Array, Device, Side, bf16, f16, s};
use cuprite_testkit::{Rng, TestResult};

/// NumPy's argwhere of a row-major `shape` where `set(i)`.
fn argwhere_ref(shape: &[usize], set: impl Fn(usize) -> bool) -> Vec<i64> {
    let n: usize = shape.iter().product();
    let mut out = Vec::new();
    for i in (0..n).filter(|&i| set(i)) {
        let mut rem = i;
        let mut c = vec![0i64; shape.len()];
        for d in (0..shape.len()).rev() {
            c[d] = (rem % shape[d]) as i64;
            rem /= shape[d];
        }
        out.extend(c);
    }
    out
}

/// Sizes around warps, blocks and tiles; the multiples of 4 (32, 1024, 4100, 8192, 12292)
/// take the vectorised kernel on CUDA (whole and partial tiles).
const SIZES: &[usize] = &[
    0, 1, 31, 32, 33, 1023, 1024, 1025, 2047, 2049, 4097, 4100, 8192, 12292, 65537,
];

fn argwhere_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for &n in SIZES {
            for density in [0u64, 1, 50, 100] {
                let x: Vec<i32> = (0..n)
                    .map(|_| {
                        let keep = rng.next_u64() % 100 < density;
                        if keep {
                            1 + (rng.next_u64() % 9) as i32
                        } else {
                            0
                        }
                    })
                    .collect();
                let a = Array::from_slice(&x, &[n])?;
                let w = a.argwhere()?;
                let want = argwhere_ref(&[n], |i| x[i] != 0);
                assert_eq!(w.shape(), &[want.len(), 1]);
                assert_eq!(w.to_vec()?, want, "argwhere of {n} at density {density}%");
            }
        }
        // Several axes, every dtype class, a fused producer and a strided view.
        for shape in [vec![3, 5, 7], vec![40, 130], vec![2, 1, 2049]] {
            let n: usize = shape.iter().product();
            let x: Vec<f32> = (0..n)
                .map(|_| if rng.next_u64() % 3 == 0 { 0.0 } else { 1.5 })
                .collect();
            let a = Array::from_slice(&x, &shape)?;
            let want = argwhere_ref(&shape, |i| x[i] != 0.0);
            assert_eq!(a.argwhere()?.to_vec()?, want, "f32 {shape:?}");
            assert_eq!(a.cast::<f16>().argwhere()?.to_vec()?, want);
            assert_eq!(a.cast::<bf16>().argwhere()?.to_vec()?, want);
            assert_eq!(a.cast::<u8>().argwhere()?.to_vec()?, want);
            assert_eq!(a.cast::<i64>().argwhere()?.to_vec()?, want);
            assert_eq!(a.cast::<f64>().argwhere()?.to_vec()?, want);
            assert_eq!(a.cast::<bool>().argwhere()?.to_vec()?, want);
            let c = a.cast::<cuprite_array::c32>();
            assert_eq!(c.argwhere()?.to_vec()?, want, "complex non-zero test");
            // (x - 1.5) is zero where x was set: a fused producer.
            let want = argwhere_ref(&shape, |i| x[i] == 0.0);
            assert_eq!((&a - 1.5f32).argwhere()?.to_vec()?, want, "fused producer");
            let nz = (&a - 1.5f32).nonzero()?;
            assert_eq!(nz.len(), shape.len());
            let rows = want.len() / shape.len();
            for (ax, col) in nz.iter().enumerate() {
                let wc: Vec<i64> = (0..rows).map(|r| want[r * shape.len() + ax]).collect();
                assert_eq!(col.to_vec()?, wc, "nonzero column {ax}");
            }
        }
        let m = Array::from_slice(&(0..60).map(|i| i % 4).collect::<Vec<i32>>(), &[6, 10])?;
        let v = m.slice(&s![1..;2, ..;3])?.t();
        let dense = v.to_vec()?;
        let want = argwhere_ref(v.shape(), |i| dense[i] != 0);
        assert_eq!(v.argwhere()?.to_vec()?, want, "strided view");
        // Empty and 0-d.
        let e = Array::<f32>::from_slice(&[], &[0, 4])?;
        assert_eq!(e.argwhere()?.shape(), &[0, 2]);
        let z = Array::<f32>::zeros(&[5, 3]);
        assert_eq!(z.argwhere()?.shape(), &[0, 2]);
        assert_eq!(Array::scalar(2.0f32).argwhere()?.shape(), &[1, 0]);
        assert_eq!(Array::scalar(0i8).argwhere()?.shape(), &[0, 0]);
        Ok(())
    })
}

fn masked_select_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for &n in SIZES {
            let x: Vec<i64> = (0..n).map(|i| i as i64 * 3 - 7).collect();
            let m: Vec<bool> = (0..n).map(|_| rng.next_u64() % 3 != 0).collect();
            let a = Array::from_slice(&x, &[n])?;
            let mk = Array::from_slice(&m, &[n])?;
            let want: Vec<i64> = x
                .iter()
                .zip(&m)
                .filter(|(_, m)| **m)
                .map(|(x, _)| *x)
                .collect();
            assert_eq!(
                a.masked_select(&mk)?.to_vec()?,
                want,
                "masked_select of {n}"
            );
            // 4-byte values (16 a thread on CUDA, where the 8-byte ones take 8).
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let wantf: Vec<f32> = want.iter().map(|&v| v as f32).collect();
            let got = Array::from_slice(&xf, &[n])?.masked_select(&mk)?.to_vec()?;
            assert_eq!(got, wantf, "f32 masked_select of {n}");
        }
        // Broadcast mask, every dtype class, a fused value expression.
        let x: Vec<f32> = rng.vec_f32(4 * 1100, -1.0, 1.0);
        let a = Array::from_slice(&x, &[4, 1100])?;
        let row: Vec<bool> = (0..1100).map(|i| i % 7 < 3).collect();
        let mk = Array::from_slice(&row, &[1100])?;
        let want: Vec<f32> = (0..4 * 1100)
            .filter(|i| row[i % 1100])
            .map(|i| x[i])
            .collect();
        assert_eq!(a.masked_select(&mk)?.to_vec()?, want);
        let want2: Vec<f32> = want.iter().map(|v| v * 2.0 + 1.0).collect();
        assert_eq!(
            ((&a * 2.0f32) + 1.0f32).masked_select(&mk)?.to_vec()?,
            want2
        );
        let wh: Vec<f16> = want.iter().map(|&v| f16::from_f32(v)).collect();
        assert_eq!(a.cast::<f16>().masked_select(&mk)?.to_vec()?, wh);
        let wi: Vec<i8> = want.iter().map(|&v| (v * 100.0) as i8).collect();
        assert_eq!(
            (&a * 100.0f32).cast::<i8>().masked_select(&mk)?.to_vec()?,
            wi
        );
        let wd: Vec<f64> = want.iter().map(|&v| v as f64).collect();
        assert_eq!(a.cast::<f64>().masked_select(&mk)?.to_vec()?, wd);
        // The mask broadcast over a column, the values broadcast over rows.
        let col = Array::from_slice(&[true, false, true], &[3, 1])?;
        let r = Array::from_slice(&[1u16, 2], &[2])?;
        assert_eq!(r.masked_select(&col)?.to_vec()?, [1u16, 2, 1, 2]);
        // A mask from a comparison (fused) and strided values.
        let t = a.t();
        let tv = t.to_vec()?;
        let want: Vec<f32> = tv.iter().copied().filter(|&v| v > 0.5).collect();
        assert_eq!(t.masked_select(&t.greater(0.5f32))?.to_vec()?, want);
        // Empty and bad input.
        let e = Array::<f32>::from_slice(&[], &[0])?;
        assert!(
            e.masked_select(&Array::from_slice(&[], &[0])?)?
                .to_vec()?
                .is_empty()
        );
        let err = a.masked_select(&Array::from_slice(&[true, false], &[2])?);
        let err = err.unwrap_err().to_string();
        assert!(err.contains("[2]") && err.contains("[4, 1100]"), "{err}");
        let z = Array::from_slice(&[cuprite_array::c32::new(1.0, 0.0)], &[1])?;
        let err = z
            .masked_select(&Array::from_slice(&[true], &[1])?)
            .unwrap_err()
            .to_string();
        assert!(err.contains("complex"), "{err}");
        Ok(())
    })
}

/// NumPy's searchsorted with NaN last.
fn search_ref(sorted: &[f64], v: f64, right: bool) -> i64 {
    let lt = |a: f64, b: f64| (!a.is_nan() && b.is_nan()) || a < b;
    sorted.partition_point(|&s| if right { !lt(v, s) } else { lt(s, v) }) as i64
}

fn searchsorted_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for &m in &[0usize, 1, 31, 1023, 1025, 5000, 100_003] {
            // Duplicates (integers up to m / 3) and NaN last.
            let mut s: Vec<f32> = (0..m)
                .map(|_| (rng.next_u64() % (m as u64 / 3 + 1)) as f32)
                .collect();
            s.sort_by(|a, b| a.partial_cmp(b).unwrap());
            if m > 4 {
                s[m - 1] = f32::NAN;
            }
            let q: Vec<f32> = (0..3001)
                .map(|i| match i % 5 {
                    0 => s
                        .get(rng.next_u64() as usize % m.max(1))
                        .copied()
                        .unwrap_or(0.0),
                    1 => f32::NAN,
                    _ => (rng.next_u64() % (m as u64 / 3 + 3)) as f32 - 1.0 + 0.5 * (i % 2) as f32,
                })
                .collect();
            let sa = Array::from_slice(&s, &[m])?;
            let qa = Array::from_slice(&q, &[3001])?;
            let sf: Vec<f64> = s.iter().map(|&v| v as f64).collect();
            for (side, right) in [(Side::Left, false), (Side::Right, true)] {
                let want: Vec<i64> = q
                    .iter()
                    .map(|&v| search_ref(&sf, v as f64, right))
                    .collect();
                let got = sa.searchsorted(&qa, side)?.to_vec()?;
                assert_eq!(got, want, "searchsorted {side:?} in {m}");
            }
            // Integer rows, values of another shape, a fused query expression.
            let si: Vec<i32> = s
                .iter()
                .map(|&v| if v.is_nan() { i32::MAX } else { v as i32 })
                .collect();
            let sia = Array::from_slice(&si, &[m])?;
            let qi: Vec<i32> = (0..600)
                .map(|i| (i * 37 % (m as i32 / 3 + 5)) - 2)
                .collect();
            let qia = Array::from_slice(&qi, &[20, 30])?;
            let sff: Vec<f64> = si.iter().map(|&v| v as f64).collect();
            let want: Vec<i64> = qi
                .iter()
                .map(|&v| search_ref(&sff, (v + 1) as f64, true))
                .collect();
            let got = sia.searchsorted(&(&qia + 1i32), Side::Right)?;
            assert_eq!(got.shape(), &[20, 30]);
            assert_eq!(got.to_vec()?, want, "i32 searchsorted in {m}");
        }
        // Per-row (batched) search, u8 and f64.
        let rows: Vec<u8> = vec![1, 3, 3, 7, 0, 0, 2, 9, 5, 5, 5, 5];
        let q: Vec<u8> = vec![3, 0, 8, 0, 2, 10, 5, 4, 6];
        let got = Array::from_slice(&rows, &[3, 4])?
            .searchsorted(&Array::from_slice(&q, &[3, 3])?, Side::Left)?
            .to_vec()?;
        assert_eq!(got, [1i64, 0, 4, 0, 2, 4, 0, 0, 4]);
        let r64: Vec<f64> = rows.iter().map(|&v| v as f64).collect();
        let q64: Vec<f64> = q.iter().map(|&v| v as f64).collect();
        let got = Array::from_slice(&r64, &[3, 4])?
            .searchsorted(&Array::from_slice(&q64, &[3, 3])?, Side::Right)?
            .to_vec()?;
        assert_eq!(got, [3i64, 0, 4, 2, 3, 4, 4, 0, 4]);
        // Bad input and empty queries.
        let s2 = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        let err = s2.searchsorted(&Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?, Side::Left);
        let err = err.unwrap_err().to_string();
        assert!(err.contains("[2, 2]") && err.contains("[3]"), "{err}");
        let err = Array::scalar(1.0f32).searchsorted(&Array::scalar(1.0f32), Side::Left);
        assert!(err.unwrap_err().to_string().contains("0-d"));
        let s1 = Array::from_slice(&[1i64, 2], &[2])?;
        assert!(
            s1.searchsorted(&Array::<i64>::from_slice(&[], &[0])?, Side::Left)?
                .to_vec()?
                .is_empty()
        );
        let z = Array::from_slice(&[cuprite_array::c32::new(1.0, 0.0)], &[1])?;
        assert!(
            z.searchsorted(&z, Side::Left)
                .unwrap_err()
                .to_string()
                .contains("complex")
        );
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("argwhere_values", argwhere_values),
    ("masked_select_values", masked_select_values),
    ("searchsorted_values", searchsorted_values),
];
