//! The general eigenproblem (`eig`, `eigvals`), the Hermitian FFTs, and the other NumPy-level
//! linear algebra and polynomial routines, against f64 host references computed here (or
//! published values), on both backends.

use crate::common::{Body, assert_err, close};
use cuprite_array::{Array, Device, FftNorm, c32, c64, linalg};
use cuprite_testkit::{Rng, Test, TestResult};

type C = c64;

fn rand_vec(rng: &mut Rng, n: usize) -> Vec<f64> {
    rng.vec_f32(n, -1.0, 1.0)
        .into_iter()
        .map(|x| x as f64)
        .collect()
}

/// `‖A·V − V·diag(w)‖_F / (‖A‖_F · n)`, every column of unit norm, on the host in f64.
fn eig_residual(a: &[C], n: usize, w: &[C], v: &[C]) -> Result<f64, String> {
    let an = a
        .iter()
        .map(|z| z.norm_sqr())
        .sum::<f64>()
        .sqrt()
        .max(1e-300);
    let mut r = 0.0;
    for j in 0..n {
        let norm: f64 = (0..n).map(|i| v[i * n + j].norm_sqr()).sum::<f64>().sqrt();
        if (norm - 1.0).abs() > 1e-4 {
            return Err(format!("eigenvector {j} has norm {norm}"));
        }
        for i in 0..n {
            let av: C = (0..n).map(|k| a[i * n + k] * v[k * n + j]).sum();
            r += (av - v[i * n + j] * w[j]).norm_sqr();
        }
    }
    Ok(r.sqrt() / (an * n.max(1) as f64))
}

fn real_to_c(a: &[f64]) -> Vec<C> {
    a.iter().map(|&x| C::new(x, 0.0)).collect()
}

fn eig_real(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    for n in [1usize, 2, 5, 30, 64] {
        let a = rand_vec(&mut rng, n * n);
        let x = Array::from_slice_on(dev, &a, &[n, n])?;
        let (w, v) = linalg::eig(&x)?;
        let (w, v) = (w.to_vec()?, v.to_vec()?);
        let res = eig_residual(&real_to_c(&a), n, &w, &v)?;
        if res > 1e-12 {
            return Err(format!("eig n={n}: residual {res}").into());
        }
        // Σλ = trace (f64 host sum).
        let tr: f64 = (0..n).map(|i| a[i * n + i]).sum();
        let sw: C = w.iter().sum();
        close(&[sw.re, sw.im], &[tr, 0.0], 1e-9, 1e-9, "Σλ = trace")?;
        // Conjugate pairs adjacent and exact, positive imaginary part first; real values
        // exactly real with real vectors.
        let mut j = 0;
        while j < n {
            if w[j].im == 0.0 {
                if (0..n).any(|i| v[i * n + j].im != 0.0) {
                    return Err(format!("n={n}: real eigenvalue {j} has a complex vector").into());
                }
                j += 1;
            } else {
                if w[j].im < 0.0 || j + 1 >= n || w[j + 1] != w[j].conj() {
                    return Err(
                        format!("n={n}: eigenvalue {j} = {} is not a pair's first", w[j]).into(),
                    );
                }
                for i in 0..n {
                    if v[i * n + j + 1] != v[i * n + j].conj() {
                        return Err(format!("n={n}: pair {j} vectors not conjugate").into());
                    }
                }
                j += 2;
            }
        }
        let wv = linalg::eigvals(&x)?.to_vec()?;
        let key = |z: &C| (z.re * 1e6).round() as i64 * 1_000_000_007 + (z.im * 1e6).round() as i64;
        let (mut k1, mut k2): (Vec<i64>, Vec<i64>) =
            (w.iter().map(key).collect(), wv.iter().map(key).collect());
        k1.sort_unstable();
        k2.sort_unstable();
        if k1 != k2 {
            return Err(format!("n={n}: eigvals differ from eig's w").into());
        }
    }
    Ok(())
}

fn eig_complex(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    for n in [3usize, 17] {
        let re = rand_vec(&mut rng, n * n);
        let im = rand_vec(&mut rng, n * n);
        let a: Vec<C> = re.iter().zip(&im).map(|(&r, &i)| C::new(r, i)).collect();
        let (w, v) = linalg::eig(&Array::from_slice_on(dev, &a, &[n, n])?)?;
        let res = eig_residual(&a, n, &w.to_vec()?, &v.to_vec()?)?;
        if res > 1e-12 {
            return Err(format!("complex eig n={n}: residual {res}").into());
        }
        // Single precision.
        let a32: Vec<c32> = a
            .iter()
            .map(|z| c32::new(z.re as f32, z.im as f32))
            .collect();
        let (w, v) = linalg::eig(&Array::from_slice_on(dev, &a32, &[n, n])?)?;
        let up = |x: Vec<c32>| -> Vec<C> {
            x.iter().map(|z| C::new(z.re as f64, z.im as f64)).collect()
        };
        let res = eig_residual(&a, n, &up(w.to_vec()?), &up(v.to_vec()?))?;
        if res > 1e-5 {
            return Err(format!("c32 eig n={n}: residual {res}").into());
        }
    }
    Ok(())
}

/// Published values: a triangular matrix's diagonal, the companion matrix of
/// (x − 1)(x − 2)(x − 3), the rotation by 90° (±i), a Jordan-free 2 × 2 `[[1, 2], [3, 4]]`
/// with eigenvalues (5 ± √33)/2.
fn eig_known(dev: Device) -> TestResult {
    let sorted = |w: Vec<C>| {
        let mut v: Vec<(f64, f64)> = w.iter().map(|z| (z.re, z.im)).collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        v.into_iter()
            .flat_map(|(a, b)| [a, b])
            .collect::<Vec<f64>>()
    };
    let tri = [4.0, 1.0, 2.0, 0.0, -1.0, 5.0, 0.0, 0.0, 2.5];
    let w = linalg::eigvals(&Array::from_slice_on(dev, &tri, &[3, 3])?)?.to_vec()?;
    close(
        &sorted(w),
        &[-1.0, 0.0, 2.5, 0.0, 4.0, 0.0],
        1e-12,
        1e-12,
        "triangular",
    )?;
    // x³ − 6x² + 11x − 6.
    let comp = [6.0, -11.0, 6.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let w = linalg::eigvals(&Array::from_slice_on(dev, &comp, &[3, 3])?)?.to_vec()?;
    close(
        &sorted(w),
        &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0],
        1e-10,
        1e-10,
        "companion",
    )?;
    let rot = [0.0f32, -1.0, 1.0, 0.0];
    let w: Vec<C> = linalg::eigvals(&Array::from_slice_on(dev, &rot, &[2, 2])?)?
        .to_vec()?
        .iter()
        .map(|z| C::new(z.re as f64, z.im as f64))
        .collect();
    close(
        &sorted(w),
        &[0.0, -1.0, 0.0, 1.0],
        1e-6,
        1e-6,
        "rotation f32",
    )?;
    let w =
        linalg::eigvals(&Array::from_slice_on(dev, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?)?.to_vec()?;
    let s = 33f64.sqrt();
    close(
        &sorted(w),
        &[(5.0 - s) / 2.0, 0.0, (5.0 + s) / 2.0, 0.0],
        1e-12,
        1e-12,
        "[[1,2],[3,4]]",
    )?;
    Ok(())
}

fn eig_stack_and_errors(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let a = rand_vec(&mut rng, 2 * 3 * 16);
    let x = Array::from_slice_on(dev, &a, &[2, 3, 4, 4])?;
    let (w, v) = linalg::eig(&x)?;
    if w.shape() != [2, 3, 4] || v.shape() != [2, 3, 4, 4] {
        return Err(format!("stack shapes {:?} {:?}", w.shape(), v.shape()).into());
    }
    let (w, v) = (w.to_vec()?, v.to_vec()?);
    for b in 0..6 {
        let m = real_to_c(&a[b * 16..(b + 1) * 16]);
        let res = eig_residual(&m, 4, &w[b * 4..(b + 1) * 4], &v[b * 16..(b + 1) * 16])?;
        if res > 1e-12 {
            return Err(format!("stack matrix {b}: residual {res}").into());
        }
    }
    let e = linalg::eigvals(&Array::<f64>::zeros(&[0, 0]).to_device(dev)?)?;
    if e.shape() != [0] {
        return Err(format!("0 × 0: shape {:?}", e.shape()).into());
    }
    assert_err(
        linalg::eig(&Array::<f64>::zeros(&[2, 3]).to_device(dev)?),
        "Shape",
        "[2, 3]",
    );
    assert_err(
        linalg::eigvals(&Array::<f64>::zeros(&[4]).to_device(dev)?),
        "Shape",
        "[4]",
    );
    let bad = Array::from_slice_on(dev, &[1.0, f64::NAN, 0.0, 1.0], &[2, 2])?;
    assert_err(linalg::eig(&bad), "InvalidArgument", "NaN");
    let bad = Array::from_slice_on(dev, &[1.0, 0.0, f64::INFINITY, 1.0], &[2, 2])?;
    assert_err(linalg::eigvals(&bad), "InvalidArgument", "[1, 0]");
    Ok(())
}

/// `hfft`/`ihfft` against the direct sums of their definitions in f64:
/// `hfft(a, n)[k] = Σ_{j<n} h_j e^{−2πi jk/n}` (the Hermitian extension `h` of `a`) and
/// `ihfft(x)[k] = (1/n) Σ_j x_j e^{+2πi jk/n}`, with NumPy's `norm` factors.
fn hermitian_fft(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    for (m, n) in [
        (5usize, None),
        (5, Some(9usize)),
        (4, Some(4)),
        (1, Some(1)),
    ] {
        let re = rand_vec(&mut rng, m);
        let im = rand_vec(&mut rng, m);
        let a: Vec<C> = re.iter().zip(&im).map(|(&r, &i)| C::new(r, i)).collect();
        let nn = n.unwrap_or(2 * (m - 1));
        // The Hermitian extension of the first nn/2+1 points (cropped or zero-padded), with
        // the imaginary parts at 0 (and at nn/2 for even nn) ignored as irfft does.
        let half = nn / 2 + 1;
        let get = |j: usize| if j < m { a[j] } else { C::new(0.0, 0.0) };
        let h: Vec<C> = (0..nn)
            .map(|j| {
                let mut z = if j < half { get(j) } else { get(nn - j).conj() };
                if j == 0 || (nn % 2 == 0 && j == nn / 2) {
                    z = C::new(z.re, 0.0);
                }
                z
            })
            .collect();
        let want: Vec<f64> = (0..nn)
            .map(|k| {
                (0..nn)
                    .map(|j| {
                        let t = 2.0 * std::f64::consts::PI * (j * k % nn) as f64 / nn as f64;
                        h[j] * C::new(t.cos(), -t.sin())
                    })
                    .sum::<C>()
                    .re
            })
            .collect();
        let x = Array::from_slice_on(dev, &a, &[m])?;
        for (norm, f) in [
            (FftNorm::Backward, 1.0),
            (FftNorm::Ortho, 1.0 / (nn as f64).sqrt()),
            (FftNorm::Forward, 1.0 / nn as f64),
        ] {
            let got = x.hfft(n, 0, norm)?.to_vec()?;
            let w: Vec<f64> = want.iter().map(|v| v * f).collect();
            close(
                &got,
                &w,
                1e-12,
                1e-12,
                &format!("hfft m={m} n={nn} {norm:?}"),
            )?;
            // ihfft of the real signal: the first nn/2+1 points of (1/nn)·Σ x_j e^{+iθ}.
            let back = Array::from_slice_on(dev, &got, &[nn])?
                .ihfft(None, 0, norm)?
                .to_vec()?;
            let g = 1.0 / (nn as f64 * f * f);
            let want_i: Vec<f64> = (0..half)
                .flat_map(|k| {
                    let z: C = (0..nn)
                        .map(|j| {
                            let t = 2.0 * std::f64::consts::PI * (j * k % nn) as f64 / nn as f64;
                            C::new(t.cos(), t.sin()) * got[j]
                        })
                        .sum::<C>()
                        * g
                        * f;
                    [z.re, z.im]
                })
                .collect();
            let got_i: Vec<f64> = back.iter().flat_map(|z| [z.re, z.im]).collect();
            close(
                &got_i,
                &want_i,
                1e-12,
                1e-12,
                &format!("ihfft n={nn} {norm:?}"),
            )?;
        }
    }
    let x = Array::from_slice_on(dev, &[1.0f32, 2.0], &[1, 2])?;
    assert_err(
        x.hfft(None, 2, FftNorm::Backward),
        "InvalidArgument",
        "axis 2",
    );
    let z = Array::<c64>::zeros(&[0]).to_device(dev)?;
    assert_err(z.hfft(None, 0, FftNorm::Backward), "InvalidArgument", "[0]");
    Ok(())
}

const BODIES: &[(&str, Body)] = &[
    ("eig_real", eig_real),
    ("eig_complex", eig_complex),
    ("eig_known", eig_known),
    ("eig_stack_and_errors", eig_stack_and_errors),
    ("hermitian_fft", hermitian_fft),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::linalg_general::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::linalg_general::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
