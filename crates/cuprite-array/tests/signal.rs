//! 1-D signal routines (`interp`, `convolve`, `correlate`) against f64 host references computed
//! here from the definitions, and the values published in NumPy's documentation. Bodies run
//! on every backend.

// NumPy's documented inputs include 3.14, close to π.
#![allow(clippy::needless_range_loop, clippy::approx_constant)]

use crate::common::{Body, close};
use cuprite_array::ops::{ConvMode, interp};
use cuprite_array::{Array, Device, c32, c64};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// The interpolant by a linear scan for the segment (sorted, distinct `xp`).
fn interp_ref(x: f64, xp: &[f64], fp: &[f64], left: f64, right: f64) -> f64 {
    let n = xp.len();
    if x.is_nan() {
        return x;
    }
    if x < xp[0] {
        return left;
    }
    if x > xp[n - 1] {
        return right;
    }
    for j in 0..n - 1 {
        if x >= xp[j] && x < xp[j + 1] {
            let t = (x - xp[j]) / (xp[j + 1] - xp[j]);
            return fp[j] + t * (fp[j + 1] - fp[j]);
        }
    }
    fp[n - 1]
}

fn interp_published(d: Device) -> TestResult {
    on(d, || {
        let xp = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
        let fp = Array::from_slice(&[3.0f64, 2.0, 0.0], &[3])?;
        let x = Array::from_slice(&[2.5f64, 0.0, 1.0, 1.5, 2.72, 3.14, f64::NAN], &[7])?;
        let got = interp(&x, &xp, &fp, None, None, None)?.to_vec()?;
        close(
            &got,
            &[1.0, 3.0, 3.0, 2.5, 0.56, 0.0, f64::NAN],
            1e-12,
            1e-12,
            "interp",
        )?;
        let got = interp(&x, &xp, &fp, Some(7.0), Some(-99.0), None)?.to_vec()?;
        assert_eq!((got[1], got[5]), (7.0, -99.0));
        // Periodic: NumPy's documented example.
        let x = Array::from_slice(&[-180.0f64, -170., -185., 185., -10., -5., 0., 365.], &[8])?;
        let xp = Array::from_slice(&[190.0f64, -190., 350., -350.], &[4])?;
        let fp = Array::from_slice(&[5.0f64, 10., 3., 4.], &[4])?;
        let got = interp(&x, &xp, &fp, None, None, Some(360.0))?.to_vec()?;
        close(
            &got,
            &[7.5, 5., 8.75, 6.25, 3., 3.25, 3.5, 3.75],
            1e-12,
            1e-12,
            "period",
        )?;
        // Complex values: NumPy's documented example.
        let x = Array::from_slice(&[1.5f64, 4.0], &[2])?;
        let xp = Array::from_slice(&[2.0f64, 3.0, 5.0], &[3])?;
        let fp = Array::from_slice(
            &[c64::new(0.0, 1.0), c64::new(0.0, 0.0), c64::new(2.0, 3.0)],
            &[3],
        )?;
        let got = interp(&x, &xp, &fp, None, None, None)?.to_vec()?;
        assert_eq!(got, [c64::new(0.0, 1.0), c64::new(1.0, 1.5)]);
        // Errors name the values.
        let e = Array::<f64>::zeros(&[0]);
        assert!(interp(&x, &e, &Array::<f64>::zeros(&[0]), None, None, None).is_err());
        assert!(interp(&x, &xp, &Array::<f64>::zeros(&[2]), None, None, None).is_err());
        assert!(interp(&x, &xp, &Array::<f64>::zeros(&[3]), None, None, Some(0.0)).is_err());
        // One sample point: its value at it, left and right around it.
        let one = Array::from_slice(&[2.0f64], &[1])?;
        let v = Array::from_slice(&[5.0f64], &[1])?;
        let q = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
        assert_eq!(
            interp(&q, &one, &v, Some(-1.0), Some(1.0), None)?.to_vec()?,
            [-1.0, 5.0, 1.0]
        );
        Ok(())
    })
}

fn interp_random(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // Many points (more than one shared-memory sample per segment) and queries, f32 and
        // complex f32, some queries on the sample points and outside the range.
        let n = 10_000;
        let mut xs: Vec<f32> = rng.vec_f32(n, -100.0, 100.0);
        xs.sort_by(f32::total_cmp);
        xs.dedup();
        let n = xs.len();
        let fs: Vec<f32> = rng.vec_f32(n, -5.0, 5.0);
        let gs: Vec<f32> = rng.vec_f32(n, -5.0, 5.0);
        let mut q: Vec<f32> = rng.vec_f32(5000, -110.0, 110.0);
        q[..50].copy_from_slice(&xs[..50]);
        q[50] = xs[n - 1];
        let (xp64, fp64, gp64): (Vec<f64>, Vec<f64>, Vec<f64>) = (
            xs.iter().map(|&v| v as f64).collect(),
            fs.iter().map(|&v| v as f64).collect(),
            gs.iter().map(|&v| v as f64).collect(),
        );
        let want: Vec<f64> = q
            .iter()
            .map(|&v| interp_ref(v as f64, &xp64, &fp64, fp64[0], fp64[n - 1]))
            .collect();
        let x = Array::from_slice(&q, &[50, 100])?;
        let xp = Array::from_slice(&xs, &[n])?;
        let fp = Array::from_slice(&fs, &[n])?;
        let got = interp(&x, &xp, &fp, None, None, None)?;
        assert_eq!(got.shape(), [50, 100]);
        let got: Vec<f64> = got.to_vec()?.into_iter().map(f64::from).collect();
        close(&got, &want, 1e-5, 1e-5, "interp f32")?;
        let zs: Vec<c32> = fs.iter().zip(&gs).map(|(&a, &b)| c32::new(a, b)).collect();
        let zp = Array::from_slice(&zs, &[n])?;
        let got = interp(&x, &xp, &zp, Some(c32::new(1.0, 2.0)), None, None)?.to_vec()?;
        for i in 0..q.len() {
            let qi = q[i] as f64;
            let re = interp_ref(qi, &xp64, &fp64, 1.0, fp64[n - 1]);
            let im = interp_ref(qi, &xp64, &gp64, 2.0, gp64[n - 1]);
            close(
                &[got[i].re as f64, got[i].im as f64],
                &[re, im],
                1e-5,
                1e-5,
                "interp c32",
            )?;
        }
        Ok(())
    })
}

/// `sum_n a[n + k] * conj(v[n])` for `k` in `-(m-1)..n`: the full correlation by definition.
fn corr_full(a: &[c64], v: &[c64]) -> Vec<c64> {
    let (n, m) = (a.len() as i64, v.len() as i64);
    (-(m - 1)..n)
        .map(|k| {
            let mut s = c64::new(0.0, 0.0);
            for i in 0..m {
                let t = i + k;
                if t >= 0 && t < n {
                    let (x, y) = (a[t as usize], v[i as usize].conj());
                    s += x * y;
                }
            }
            s
        })
        .collect()
}

fn cvec(rng: &mut Rng, n: usize) -> Vec<c64> {
    let re = rng.vec_f32(n, -1.0, 1.0);
    let im = rng.vec_f32(n, -1.0, 1.0);
    re.iter()
        .zip(&im)
        .map(|(&a, &b)| c64::new(a as f64, b as f64))
        .collect()
}

fn conv_published(d: Device) -> TestResult {
    on(d, || {
        let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
        let v = Array::from_slice(&[0.0f64, 1.0, 0.5], &[3])?;
        assert_eq!(
            a.convolve(&v, ConvMode::Full)?.to_vec()?,
            [0.0, 1.0, 2.5, 4.0, 1.5]
        );
        assert_eq!(a.convolve(&v, ConvMode::Same)?.to_vec()?, [1.0, 2.5, 4.0]);
        assert_eq!(a.convolve(&v, ConvMode::Valid)?.to_vec()?, [2.5]);
        assert_eq!(a.correlate(&v, ConvMode::Valid)?.to_vec()?, [3.5]);
        assert_eq!(a.correlate(&v, ConvMode::Same)?.to_vec()?, [2.0, 3.5, 3.0]);
        assert_eq!(
            a.correlate(&v, ConvMode::Full)?.to_vec()?,
            [0.5, 2.0, 3.5, 3.0, 0.0]
        );
        let z = |v: &[(f64, f64)]| -> Vec<c64> { v.iter().map(|&(a, b)| c64::new(a, b)).collect() };
        let p = Array::from_slice(&z(&[(1.0, 1.0), (2.0, 0.0), (3.0, -1.0)]), &[3])?;
        let q = Array::from_slice(&z(&[(0.0, 0.0), (1.0, 0.0), (0.0, 0.5)]), &[3])?;
        assert_eq!(
            p.correlate(&q, ConvMode::Full)?.to_vec()?,
            z(&[
                (0.5, -0.5),
                (1.0, 0.0),
                (1.5, -1.5),
                (3.0, -1.0),
                (0.0, 0.0)
            ])
        );
        assert_eq!(
            q.correlate(&p, ConvMode::Full)?.to_vec()?,
            z(&[(0.0, 0.0), (3.0, 1.0), (1.5, 1.5), (1.0, 0.0), (0.5, 0.5)])
        );
        // The shorter first: NumPy swaps, then reverses (worked by hand from its definition).
        let s = Array::from_slice(&[1i32, 2], &[2])?;
        let l = Array::from_slice(&[1i32, 2, 3, 4], &[4])?;
        assert_eq!(s.correlate(&l, ConvMode::Same)?.to_vec()?, [11, 8, 5, 2]);
        assert_eq!(s.correlate(&l, ConvMode::Full)?.to_vec()?, [4, 11, 8, 5, 2]);
        assert_eq!(s.correlate(&l, ConvMode::Valid)?.to_vec()?, [11, 8, 5]);
        assert_eq!(s.convolve(&l, ConvMode::Same)?.to_vec()?, [1, 4, 7, 10]);
        // Integers wrap as NumPy's do.
        let big = Array::from_slice(&[100i8, 100], &[2])?;
        assert_eq!(
            big.convolve(&big, ConvMode::Valid)?.to_vec()?,
            [(20000i32 as i8)]
        );
        assert!(
            a.convolve(&Array::<f64>::zeros(&[0]), ConvMode::Full)
                .is_err()
        );
        assert!(
            a.correlate(&Array::<f64>::zeros(&[2, 2]), ConvMode::Full)
                .is_err()
        );
        Ok(())
    })
}

fn conv_random(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // Direct (short) and FFT (long) kernels, both orders, every mode.
        for (n, m) in [
            (50usize, 7usize),
            (9, 40),
            (300, 200),
            (130, 1000),
            (1, 1),
            (65, 65),
        ] {
            let (av, vv) = (cvec(&mut rng, n), cvec(&mut rng, m));
            let full = corr_full(&av, &vv);
            let (a, v) = (Array::from_slice(&av, &[n])?, Array::from_slice(&vv, &[m])?);
            let (lo, hi) = (n.min(m), n.max(m));
            // The window of each mode within the full correlation (n >= m: from the left,
            // centred to the left; n < m: NumPy's reversed computation, centred to the right).
            let same0 = if n >= m { (lo - 1) / 2 } else { lo / 2 };
            for (mode, start, len) in [
                (ConvMode::Full, 0, n + m - 1),
                (ConvMode::Same, same0, hi),
                (ConvMode::Valid, lo - 1, hi - lo + 1),
            ] {
                let got = a.correlate(&v, mode)?.to_vec()?;
                let want = &full[start..start + len];
                let g: Vec<f64> = got.iter().flat_map(|z| [z.re, z.im]).collect();
                let w: Vec<f64> = want.iter().flat_map(|z| [z.re, z.im]).collect();
                close(
                    &g,
                    &w,
                    1e-9,
                    1e-9,
                    &format!("correlate c64 {n}x{m} {mode:?}"),
                )?;
            }
            // Convolution of real parts: correlation with the reversed kernel.
            let ar: Vec<f32> = av.iter().map(|z| z.re as f32).collect();
            let vr: Vec<f32> = vv.iter().map(|z| z.re as f32).collect();
            let vrev: Vec<c64> = vr.iter().rev().map(|&x| c64::new(x as f64, 0.0)).collect();
            let ac: Vec<c64> = ar.iter().map(|&x| c64::new(x as f64, 0.0)).collect();
            let full = corr_full(&ac, &vrev);
            let got = Array::from_slice(&ar, &[n])?
                .convolve(&Array::from_slice(&vr, &[m])?, ConvMode::Full)?
                .to_vec()?;
            let g: Vec<f64> = got.iter().map(|&x| x as f64).collect();
            let w: Vec<f64> = full.iter().map(|z| z.re).collect();
            close(&g, &w, 1e-4, 1e-4, &format!("convolve f32 {n}x{m}"))?;
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("interp_published", interp_published),
    ("interp_random", interp_random),
    ("conv_published", conv_published),
    ("conv_random", conv_random),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::signal::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::signal::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
