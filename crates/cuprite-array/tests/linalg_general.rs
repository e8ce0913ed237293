//! The general eigenproblem (`eig`, `eigvals`), the Hermitian FFTs, and the other NumPy-level
//! linear algebra and polynomial routines, against f64 host references computed here (or
//! published values), on both backends.

use crate::common::{Body, assert_err, close};
use cuprite_array::linalg::PinvOpts;
use cuprite_array::ops::fft::FftOpts;
use cuprite_array::ops::{PolyvalOpts, SeriesOpts};
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
    // (x + 1)(x + 1.0001)(x + 3) = x³ + 5.0001x² + 7.0004x + 3.0003: two close real roots,
    // which rounding must not turn into a conjugate pair (their sum is the trace's share).
    let close_roots = [-5.0001, -7.0004, -3.0003, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let w = linalg::eigvals(&Array::from_slice_on(dev, &close_roots, &[3, 3])?)?.to_vec()?;
    close(
        &sorted(w),
        &[-3.0, 0.0, -1.0001, 0.0, -1.0, 0.0],
        1e-8,
        1e-8,
        "companion with close real roots",
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
    // A non-finite element inside a larger matrix (real, then a complex one whose imaginary
    // part is NaN), after which the same matrix made finite decomposes as usual.
    let n = 40;
    let mut m = rand_vec(&mut rng, n * n);
    m[5 * n + 7] = f64::NEG_INFINITY;
    assert_err(
        linalg::eig(&Array::from_slice_on(dev, &m, &[n, n])?),
        "InvalidArgument",
        "element [5, 7] is -inf",
    );
    let mut z = real_to_c(&rand_vec(&mut rng, 9));
    z[4] = C::new(0.5, f64::NAN);
    assert_err(
        linalg::eigvals(&Array::from_slice_on(dev, &z, &[3, 3])?),
        "InvalidArgument",
        "element [1, 1]",
    );
    m[5 * n + 7] = 0.25;
    let (w, v) = linalg::eig(&Array::from_slice_on(dev, &m, &[n, n])?)?;
    let res = eig_residual(&real_to_c(&m), n, &w.to_vec()?, &v.to_vec()?)?;
    if res > 1e-12 {
        return Err(format!("eig after a refused matrix: residual {res}").into());
    }
    Ok(())
}

/// `count` uniform values in [0, 1) from SplitMix64 of `seed` (the generator of the
/// `numpy/eig` benchmark's matrix, repeated here so the test needs nothing from the CLI).
fn splitmix_uniform(count: usize, seed: u64) -> Vec<f64> {
    (1..=count as u64)
        .map(|i| {
            let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
        })
        .collect()
}

/// A matrix of the `numpy/eig` benchmark's kind (uniform entries in [0, 1), so positive): one
/// dominant real eigenvalue near n/2 and the rest, many of them conjugate pairs, in a disc of
/// radius about √(n/12). The pairs `A·v = λ·v` hold in f64 on the host; Σλ is the trace; the
/// dominant eigenvalue matches the Perron root found by power iteration on the host, and its
/// vector is real with components of one sign (Perron–Frobenius; LAPACK's normalisation makes
/// the largest component real, so the whole vector is real).
fn eig_uniform_dominant(dev: Device) -> TestResult {
    for (n, seed) in [(96usize, 1024u64), (128, 7)] {
        let a = splitmix_uniform(n * n, seed);
        let (w, v) = linalg::eig(&Array::from_slice_on(dev, &a, &[n, n])?)?;
        let (w, v) = (w.to_vec()?, v.to_vec()?);
        let res = eig_residual(&real_to_c(&a), n, &w, &v)?;
        if res > 1e-12 {
            return Err(format!("uniform n={n}: residual {res}").into());
        }
        let tr: f64 = (0..n).map(|i| a[i * n + i]).sum();
        let sw: C = w.iter().sum();
        close(&[sw.re, sw.im], &[tr, 0.0], 1e-10, 1e-10, "Σλ = trace")?;
        let mut pairs = 0;
        let mut j = 0;
        while j < n {
            if w[j].im != 0.0 {
                if w[j].im < 0.0 || j + 1 >= n || w[j + 1] != w[j].conj() {
                    return Err(format!("n={n}: eigenvalue {j} = {} unpaired", w[j]).into());
                }
                pairs += 1;
                j += 2;
            } else {
                j += 1;
            }
        }
        if pairs < n / 4 {
            return Err(format!("n={n}: only {pairs} conjugate pairs").into());
        }
        // Power iteration for the Perron root: the second eigenvalue is under a tenth of the
        // first in modulus, so 60 steps leave far less than 1e-30 of other directions.
        let mut x = vec![1.0f64; n];
        let mut root = 0.0;
        for _ in 0..60 {
            let y: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|k| a[i * n + k] * x[k]).sum())
                .collect();
            root = y.iter().map(|t| t * t).sum::<f64>().sqrt();
            x = y.iter().map(|t| t / root).collect();
        }
        let top = (0..n)
            .max_by(|&p, &q| w[p].norm().total_cmp(&w[q].norm()))
            .ok_or("no eigenvalues")?;
        close(
            &[w[top].re, w[top].im],
            &[root, 0.0],
            1e-12,
            1e-12,
            &format!("Perron root n={n}"),
        )?;
        let col: Vec<C> = (0..n).map(|i| v[i * n + top]).collect();
        let sign = col[0].re.signum();
        if col.iter().any(|z| z.im != 0.0 || z.re * sign <= 0.0) {
            return Err(format!("n={n}: the Perron vector is not real of one sign").into());
        }
        // Against the normalised power-iteration vector (both of unit norm, same sign).
        let got: Vec<f64> = col.iter().map(|z| z.re * sign).collect();
        close(&got, &x, 1e-12, 1e-12, &format!("Perron vector n={n}"))?;
    }
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
            let got = x
                .hfft_with(FftOpts::new().n(n).axis(0).norm(norm))?
                .to_vec()?;
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
                .ihfft_with(FftOpts::new().axis(0).norm(norm))?
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
        x.hfft_with(FftOpts::new().axis(2)),
        "InvalidArgument",
        "axis 2",
    );
    let z = Array::<c64>::zeros(&[0]).to_device(dev)?;
    assert_err(
        z.hfft_with(FftOpts::new().axis(0)),
        "InvalidArgument",
        "[0]",
    );
    Ok(())
}

/// Row-major `m × k` times `k × n` in f64.
fn mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for l in 0..k {
            for j in 0..n {
                c[i * n + j] += a[i * k + l] * b[l * n + j];
            }
        }
    }
    c
}

fn tr(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..n * m).map(|i| a[(i % m) * n + i / m]).collect()
}

fn eye(n: usize) -> Vec<f64> {
    (0..n * n).map(|i| f64::from(i / n == i % n)).collect()
}

/// The inverse by Gauss–Jordan with partial pivoting, f64; `None` when singular.
fn host_inv(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut m = a.to_vec();
    let mut r = eye(n);
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| m[i * n + c].abs().total_cmp(&m[j * n + c].abs()))?;
        if m[p * n + c] == 0.0 {
            return None;
        }
        for j in 0..n {
            m.swap(c * n + j, p * n + j);
            r.swap(c * n + j, p * n + j);
        }
        let d = m[c * n + c];
        for j in 0..n {
            m[c * n + j] /= d;
            r[c * n + j] /= d;
        }
        for i in 0..n {
            if i != c {
                let f = m[i * n + c];
                for j in 0..n {
                    m[i * n + j] -= f * m[c * n + j];
                    r[i * n + j] -= f * r[c * n + j];
                }
            }
        }
    }
    Some(r)
}

fn qr_forms(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    for (m, n) in [(5usize, 3usize), (3, 5), (4, 4)] {
        let a = rand_vec(&mut rng, m * n);
        let x = Array::from_slice_on(dev, &a, &[m, n])?;
        let (q, r) = linalg::qr_complete(&x)?;
        if q.shape() != [m, m] || r.shape() != [m, n] {
            return Err(format!("complete {m}×{n}: shapes {:?} {:?}", q.shape(), r.shape()).into());
        }
        let (q, r) = (q.to_vec()?, r.to_vec()?);
        close(
            &mm(&tr(&q, m, m), &q, m, m, m),
            &eye(m),
            0.0,
            1e-12,
            "QᵀQ = I",
        )?;
        close(&mm(&q, &r, m, m, n), &a, 0.0, 1e-12, "QR = A")?;
        for i in 0..m {
            for j in 0..i.min(n) {
                if r[i * n + j] != 0.0 {
                    return Err(format!("R[{i}, {j}] = {}", r[i * n + j]).into());
                }
            }
        }
        let rr = linalg::qr_r(&x)?;
        let k = m.min(n);
        close(&rr.to_vec()?, &r[..k * n], 0.0, 1e-12, "mode r")?;
        // Raw: Q = H_0·…·H_{k−1}, H_j = I − tau_j v_j v_jᵀ; R the upper triangle of hᵀ.
        let (h, tau) = linalg::qr_raw(&x)?;
        if h.shape() != [n, m] || tau.shape() != [k] {
            return Err(format!("raw {m}×{n}: shapes {:?} {:?}", h.shape(), tau.shape()).into());
        }
        let (h, tau) = (tr(&h.to_vec()?, n, m), tau.to_vec()?); // now m × n
        let mut qq = eye(m);
        for j in 0..k {
            let v: Vec<f64> = (0..m)
                .map(|i| match i.cmp(&j) {
                    std::cmp::Ordering::Less => 0.0,
                    std::cmp::Ordering::Equal => 1.0,
                    std::cmp::Ordering::Greater => h[i * n + j],
                })
                .collect();
            let hj: Vec<f64> = (0..m * m)
                .map(|t| f64::from(t / m == t % m) - tau[j] * v[t / m] * v[t % m])
                .collect();
            qq = mm(&qq, &hj, m, m, m);
        }
        let rraw: Vec<f64> = (0..m * n)
            .map(|t| if t % n >= t / n { h[t] } else { 0.0 })
            .collect();
        close(&mm(&qq, &rraw, m, m, n), &a, 0.0, 1e-12, "raw: H…H·R = A")?;
    }
    // Complex raw: QR = A with H_j = I − tau_j v vᴴ.
    let (m, n) = (4usize, 3usize);
    let re = rand_vec(&mut rng, m * n);
    let im = rand_vec(&mut rng, m * n);
    let a: Vec<C> = re.iter().zip(&im).map(|(&r, &i)| C::new(r, i)).collect();
    let (h, tau) = linalg::qr_raw(&Array::from_slice_on(dev, &a, &[m, n])?)?;
    let (h, tau) = (h.to_vec()?, tau.to_vec()?);
    let hv = |i: usize, j: usize| h[j * m + i]; // hᵀ[i][j]
    let mut y: Vec<C> = (0..m * n)
        .map(|t| {
            if t % n >= t / n {
                hv(t / n, t % n)
            } else {
                C::new(0.0, 0.0)
            }
        })
        .collect();
    for j in (0..n).rev() {
        let v: Vec<C> = (0..m)
            .map(|i| {
                if i < j {
                    C::new(0.0, 0.0)
                } else if i == j {
                    C::new(1.0, 0.0)
                } else {
                    hv(i, j)
                }
            })
            .collect();
        for c in 0..n {
            let s: C = (0..m).map(|i| v[i].conj() * y[i * n + c]).sum();
            for i in 0..m {
                y[i * n + c] -= tau[j] * v[i] * s;
            }
        }
    }
    let flat = |x: &[C]| x.iter().flat_map(|z| [z.re, z.im]).collect::<Vec<f64>>();
    close(&flat(&y), &flat(&a), 0.0, 1e-12, "complex raw")?;
    // Stacks: each matrix's raw factors.
    let st = rand_vec(&mut rng, 2 * 12);
    let (h, tau) = linalg::qr_raw(&Array::from_slice_on(dev, &st, &[2, 4, 3])?)?;
    if h.shape() != [2, 3, 4] || tau.shape() != [2, 3] {
        return Err(format!("stacked raw shapes {:?} {:?}", h.shape(), tau.shape()).into());
    }
    let (h1, t1) = linalg::qr_raw(&Array::from_slice_on(dev, &st[12..], &[4, 3])?)?;
    close(
        &h.to_vec()?[12..],
        &h1.to_vec()?,
        1e-14,
        1e-14,
        "stacked raw h",
    )?;
    close(
        &tau.to_vec()?[3..],
        &t1.to_vec()?,
        1e-14,
        1e-14,
        "stacked raw tau",
    )?;
    assert_err(
        linalg::qr_raw(&Array::<f64>::zeros(&[3]).to_device(dev)?),
        "Shape",
        "[3]",
    );
    Ok(())
}

fn svd_forms(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    for (m, n) in [(5usize, 3usize), (3, 5)] {
        let a = rand_vec(&mut rng, m * n);
        let x = Array::from_slice_on(dev, &a, &[m, n])?;
        let (u, s, vt) = linalg::svd_full(&x)?;
        let k = m.min(n);
        if u.shape() != [m, m] || s.shape() != [k] || vt.shape() != [n, n] {
            return Err(format!(
                "svd_full shapes {:?} {:?} {:?}",
                u.shape(),
                s.shape(),
                vt.shape()
            )
            .into());
        }
        let (u, s, vt) = (u.to_vec()?, s.to_vec()?, vt.to_vec()?);
        close(&mm(&tr(&u, m, m), &u, m, m, m), &eye(m), 0.0, 1e-12, "UᵀU")?;
        close(
            &mm(&vt, &tr(&vt, n, n), n, n, n),
            &eye(n),
            0.0,
            1e-12,
            "VᵀV",
        )?;
        let sig: Vec<f64> = (0..m * n)
            .map(|t| if t / n == t % n { s[t / n] } else { 0.0 })
            .collect();
        close(
            &mm(&mm(&u, &sig, m, m, n), &vt, m, n, n),
            &a,
            0.0,
            1e-12,
            "UΣVᵀ = A",
        )?;
        close(&linalg::svdvals(&x)?.to_vec()?, &s, 1e-12, 0.0, "svdvals")?;
    }
    // Hermitian: the singular values are |eigenvalues| of a symmetric matrix with known
    // spectrum Q·diag(d)·Qᵀ (Q a signed permutation).
    let d = [-5.0, 2.0, 0.5, -1.0];
    let perm = [2usize, 0, 3, 1];
    let mut qm = vec![0.0; 16];
    for (i, &p) in perm.iter().enumerate() {
        qm[i * 4 + p] = if i % 2 == 0 { 1.0 } else { -1.0 };
    }
    let dm: Vec<f64> = (0..16)
        .map(|t| if t / 4 == t % 4 { d[t / 4] } else { 0.0 })
        .collect();
    let a = mm(&mm(&qm, &dm, 4, 4, 4), &tr(&qm, 4, 4), 4, 4, 4);
    let x = Array::from_slice_on(dev, &a, &[4, 4])?;
    let (u, s, vt) = linalg::svd_hermitian(&x)?;
    close(
        &s.to_vec()?,
        &[5.0, 2.0, 1.0, 0.5],
        1e-12,
        0.0,
        "hermitian s",
    )?;
    let sig: Vec<f64> = (0..16)
        .map(|t| {
            if t / 4 == t % 4 {
                [5.0, 2.0, 1.0, 0.5][t / 4]
            } else {
                0.0
            }
        })
        .collect();
    close(
        &mm(&mm(&u.to_vec()?, &sig, 4, 4, 4), &vt.to_vec()?, 4, 4, 4),
        &a,
        0.0,
        1e-12,
        "hermitian UΣVᵀ",
    )?;
    // pinv: A·P·A = A, P·A·P = P, both forms; rcond drops the small value of diag(2, 1e-9).
    let p = linalg::pinv_with(&x, PinvOpts::new().hermitian(true))?.to_vec()?;
    let want = host_inv(&a, 4).ok_or("singular reference")?;
    close(&p, &want, 0.0, 1e-12, "hermitian pinv = inv")?;
    let tall = rand_vec(&mut rng, 15);
    let t = Array::from_slice_on(dev, &tall, &[5, 3])?;
    let p = linalg::pinv_with(&t, PinvOpts::new().rcond(1e-10))?.to_vec()?;
    close(
        &mm(&mm(&tall, &p, 5, 3, 5), &tall, 5, 5, 3),
        &tall,
        0.0,
        1e-12,
        "A·P·A",
    )?;
    close(
        &mm(&mm(&p, &tall, 3, 5, 3), &p, 3, 3, 5),
        &p,
        0.0,
        1e-12,
        "P·A·P",
    )?;
    // The defaults are NumPy's: the same as the short form.
    assert_eq!(
        linalg::pinv_with(&t, PinvOpts::new())?.to_vec()?,
        linalg::pinv(&t)?.to_vec()?
    );
    let dg = Array::from_slice_on(dev, &[2.0, 0.0, 0.0, 1e-9], &[2, 2])?;
    close(
        &linalg::pinv_with(&dg, PinvOpts::new().rcond(1e-6))?.to_vec()?,
        &[0.5, 0.0, 0.0, 0.0],
        0.0,
        0.0,
        "rcond cut",
    )?;
    close(
        &linalg::pinv_with(&dg, PinvOpts::new().rtol(1e-12))?.to_vec()?,
        &[0.5, 0.0, 0.0, 1e9],
        1e-9,
        0.0,
        "rcond kept",
    )?;
    assert_err(
        linalg::pinv_with(&dg, PinvOpts::new().rcond(-1.0)),
        "InvalidArgument",
        "-1",
    );
    let st = linalg::pinv_with(
        &Array::from_slice_on(dev, &[2.0, 0.0, 0.0, 4.0, 1.0, 0.0, 0.0, 1.0], &[2, 2, 2])?,
        PinvOpts::new(),
    )?;
    close(
        &st.to_vec()?,
        &[0.5, 0.0, 0.0, 0.25, 1.0, 0.0, 0.0, 1.0],
        0.0,
        1e-15,
        "stacked pinv",
    )?;
    Ok(())
}

fn lstsq_rank_cond(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (m, n, k) = (7usize, 3usize, 2usize);
    let a = rand_vec(&mut rng, m * n);
    let b = rand_vec(&mut rng, m * k);
    // Normal equations in f64: x = (AᵀA)⁻¹Aᵀb.
    let at = tr(&a, m, n);
    let x_ref = mm(
        &mm(
            &host_inv(&mm(&at, &a, n, m, n), n).ok_or("singular")?,
            &at,
            n,
            n,
            m,
        ),
        &b,
        n,
        m,
        k,
    );
    let r_ref: Vec<f64> = {
        let ax = mm(&a, &x_ref, m, n, k);
        (0..k)
            .map(|c| (0..m).map(|i| (b[i * k + c] - ax[i * k + c]).powi(2)).sum())
            .collect()
    };
    let (xa, xb) = (
        Array::from_slice_on(dev, &a, &[m, n])?,
        Array::from_slice_on(dev, &b, &[m, k])?,
    );
    let r = linalg::lstsq_full(&xa, &xb, None)?;
    close(&r.x.to_vec()?, &x_ref, 1e-10, 1e-12, "lstsq x")?;
    close(
        &r.residuals.to_vec()?,
        &r_ref,
        1e-10,
        1e-14,
        "lstsq residuals",
    )?;
    if r.rank != n || r.s.shape() != [n] {
        return Err(format!("lstsq rank {} s {:?}", r.rank, r.s.shape()).into());
    }
    let b1v: Vec<f64> = (0..m).map(|i| b[i * k]).collect();
    let r1 = linalg::lstsq_full(&xa, &Array::from_slice_on(dev, &b1v, &[m])?, Some(1e-12))?;
    if r1.residuals.shape() != [1] || r1.x.shape() != [n] {
        return Err(format!("1-D b: residuals {:?}", r1.residuals.shape()).into());
    }
    close(
        &r1.residuals.to_vec()?,
        &r_ref[..1],
        1e-10,
        1e-14,
        "1-D residual",
    )?;
    // Rank-deficient: the third column is the sum of the first two; no residuals.
    let def: Vec<f64> = (0..m * n)
        .map(|t| {
            if t % n == 2 {
                a[t - 2] + a[t - 1]
            } else {
                a[t]
            }
        })
        .collect();
    let xd = Array::from_slice_on(dev, &def, &[m, n])?;
    let rd = linalg::lstsq_full(&xd, &xb, None)?;
    if rd.rank != 2 || rd.residuals.shape() != [0] {
        return Err(format!(
            "deficient: rank {} residuals {:?}",
            rd.rank,
            rd.residuals.shape()
        )
        .into());
    }
    assert_err(
        linalg::lstsq_full(&xa, &Array::<f64>::zeros(&[3]).to_device(dev)?, None),
        "Shape",
        "[3]",
    );
    assert_err(
        linalg::lstsq_full(&xa, &xb, Some(f64::NAN)),
        "InvalidArgument",
        "NaN",
    );
    // matrix_rank: the deficient matrix, thresholds, stacks, 1-D.
    use linalg::RankOpts;
    let mr = |x: &Array<f64>, o| -> Result<Vec<i64>, cuprite_array::Error> {
        linalg::matrix_rank_with(x, o)?.to_vec()
    };
    if mr(&xd, RankOpts::new())? != [2] || mr(&xa, RankOpts::new())? != [3] {
        return Err("matrix_rank default".into());
    }
    let dg = Array::from_slice_on(
        dev,
        &[1.0, 0.0, 0.0, 0.0, 1e-3, 0.0, 0.0, 0.0, 1e-9],
        &[3, 3],
    )?;
    if mr(&dg, RankOpts::new().tol(1e-6))? != [2]
        || mr(&dg, RankOpts::new().rtol(1e-2).hermitian(true))? != [1]
        || mr(&dg, RankOpts::new().hermitian(true))? != [3]
    {
        return Err("matrix_rank thresholds".into());
    }
    let stack = Array::concat(&[&xd.expand_dims(0)?, &xa.expand_dims(0)?], 0)?;
    if mr(&stack, RankOpts::new())? != [2, 3] {
        return Err("matrix_rank stack".into());
    }
    if mr(&Array::<f64>::zeros(&[4]).to_device(dev)?, RankOpts::new())? != [0] {
        return Err("matrix_rank of zeros".into());
    }
    assert_err(
        linalg::matrix_rank_with(&dg, RankOpts::new().tol(-1.0)),
        "InvalidArgument",
        "-1",
    );
    // cond for every p against host norms of A and of its f64 inverse.
    use linalg::NormOrd;
    let c = rand_vec(&mut rng, 16);
    let ci = host_inv(&c, 4).ok_or("singular")?;
    let col = |x: &[f64], f: fn(f64, f64) -> f64, init: f64| {
        (0..4)
            .map(|j| (0..4).map(|i| x[i * 4 + j].abs()).sum::<f64>())
            .fold(init, f)
    };
    let row = |x: &[f64], f: fn(f64, f64) -> f64, init: f64| {
        (0..4)
            .map(|i| (0..4).map(|j| x[i * 4 + j].abs()).sum::<f64>())
            .fold(init, f)
    };
    let fro = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let xc = Array::from_slice_on(dev, &c, &[4, 4])?;
    for (p, want) in [
        (
            NormOrd::One,
            col(&c, f64::max, 0.0) * col(&ci, f64::max, 0.0),
        ),
        (
            NormOrd::NegOne,
            col(&c, f64::min, f64::INFINITY) * col(&ci, f64::min, f64::INFINITY),
        ),
        (
            NormOrd::Inf,
            row(&c, f64::max, 0.0) * row(&ci, f64::max, 0.0),
        ),
        (
            NormOrd::NegInf,
            row(&c, f64::min, f64::INFINITY) * row(&ci, f64::min, f64::INFINITY),
        ),
        (NormOrd::Fro, fro(&c) * fro(&ci)),
    ] {
        close(
            &linalg::cond_p(&xc, p)?.to_vec()?,
            &[want],
            1e-10,
            0.0,
            &format!("cond {p:?}"),
        )?;
    }
    // A signed permutation times diag(d): singular values |d|.
    let d = [3.0, -0.5, 2.0, 1.0];
    let sp: Vec<f64> = (0..16)
        .map(|t| {
            if (t / 4 + 1) % 4 == t % 4 {
                d[t / 4]
            } else {
                0.0
            }
        })
        .collect();
    let xs = Array::from_slice_on(dev, &sp, &[4, 4])?;
    let nuc = (3.0 + 0.5 + 2.0 + 1.0) * (1.0 / 3.0 + 2.0 + 0.5 + 1.0);
    for (p, want) in [
        (NormOrd::Spectral, 6.0),
        (NormOrd::NegSpectral, 1.0 / 6.0),
        (NormOrd::Nuclear, nuc),
    ] {
        close(
            &linalg::cond_p(&xs, p)?.to_vec()?,
            &[want],
            1e-12,
            0.0,
            &format!("cond {p:?}"),
        )?;
    }
    let sing = Array::from_slice_on(dev, &[1.0, 2.0, 2.0, 4.0], &[2, 2])?;
    close(
        &linalg::cond_p(&sing, NormOrd::One)?.to_vec()?,
        &[f64::INFINITY],
        0.0,
        0.0,
        "singular cond",
    )?;
    assert_err(linalg::cond_p(&xa, NormOrd::One), "Shape", "[7, 3]");
    close(
        &linalg::cond_p(&xa, NormOrd::Spectral)?.to_vec()?,
        &[r.s.to_vec()?[0] / r.s.to_vec()?[2]],
        1e-12,
        0.0,
        "rectangular cond",
    )?;
    Ok(())
}

fn tensor_forms(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let a = rand_vec(&mut rng, 36);
    let x = Array::from_slice_on(dev, &a, &[2, 3, 6])?;
    let ai = linalg::tensorinv(&x, 2)?;
    if ai.shape() != [6, 2, 3] {
        return Err(format!("tensorinv shape {:?}", ai.shape()).into());
    }
    close(
        &mm(&ai.to_vec()?, &a, 6, 6, 6),
        &eye(6),
        0.0,
        1e-10,
        "tensorinv·a = I",
    )?;
    let b = rand_vec(&mut rng, 6);
    let sol = linalg::tensorsolve(&x, &Array::from_slice_on(dev, &b, &[2, 3])?, None)?;
    if sol.shape() != [6] {
        return Err(format!("tensorsolve shape {:?}", sol.shape()).into());
    }
    close(&mm(&a, &sol.to_vec()?, 6, 6, 1), &b, 0.0, 1e-10, "a·x = b")?;
    // axes: a laid out as (6, 2, 3) with the unknown axis first, moved to the end.
    let a2 = x.permute(&[2, 0, 1])?.contiguous()?;
    let sol2 = linalg::tensorsolve(&a2, &Array::from_slice_on(dev, &b, &[2, 3])?, Some(&[0]))?;
    close(
        &sol2.to_vec()?,
        &sol.to_vec()?,
        1e-12,
        1e-12,
        "tensorsolve axes",
    )?;
    assert_err(linalg::tensorinv(&x, 1), "Shape", "[2, 3, 6]");
    assert_err(linalg::tensorinv(&x, 0), "InvalidArgument", "ind = 0");
    assert_err(
        linalg::tensorsolve(&x, &Array::<f64>::zeros(&[3, 2]).to_device(dev)?, None),
        "Shape",
        "[3, 2]",
    );
    assert_err(
        linalg::tensorsolve(
            &x,
            &Array::<f64>::zeros(&[2, 3]).to_device(dev)?,
            Some(&[0, 0]),
        ),
        "InvalidArgument",
        "twice",
    );
    Ok(())
}

/// Brute-force einsum in f64 over letter labels (explicit output): every assignment of the
/// labels is visited once.
fn einsum_ref(spec: &str, ops: &[(&[f64], &[usize])]) -> (Vec<f64>, Vec<usize>) {
    let (lhs, out) = spec.split_once("->").expect("explicit");
    let ins: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    let out: Vec<char> = out.chars().collect();
    let mut labels: Vec<(char, usize)> = Vec::new();
    for (t, (_, sh)) in ins.iter().zip(ops) {
        for (&c, &n) in t.iter().zip(sh.iter()) {
            match labels.iter_mut().find(|(x, _)| *x == c) {
                Some((_, s)) => *s = (*s).max(n),
                None => labels.push((c, n)),
            }
        }
    }
    let size = |c: char| labels.iter().find(|(x, _)| *x == c).map_or(1, |x| x.1);
    let oshape: Vec<usize> = out.iter().map(|&c| size(c)).collect();
    let mut res = vec![0.0; oshape.iter().product()];
    let total: usize = labels.iter().map(|x| x.1).product();
    for mut idx in 0..total {
        let mut val = vec![0usize; labels.len()];
        for (i, (_, n)) in labels.iter().enumerate().rev() {
            val[i] = idx % n;
            idx /= n;
        }
        let get = |c: char| val[labels.iter().position(|x| x.0 == c).expect("label")];
        let mut p = 1.0;
        for (t, (data, sh)) in ins.iter().zip(ops) {
            let mut off = 0;
            for (&c, &n) in t.iter().zip(sh.iter()) {
                // A size-1 axis broadcasts.
                off = off * n + if n == 1 { 0 } else { get(c) };
            }
            p *= data[off];
        }
        let mut o = 0;
        for (&c, &n) in out.iter().zip(&oshape) {
            o = o * n + get(c);
        }
        res[o] += p;
    }
    (res, oshape)
}

fn einsum_general(dev: Device) -> TestResult {
    let mut rng = Rng::fresh();
    // (spec given to einsum, the letter spec of the reference, shapes)
    let cases: &[(&str, &str, &[&[usize]])] = &[
        ("ij,jk->ik", "ij,jk->ik", &[&[3, 4], &[4, 5]]),
        ("bij,bjk->bik", "bij,bjk->bik", &[&[2, 3, 4], &[2, 4, 5]]),
        ("ii->i", "ii->i", &[&[4, 4]]),
        ("ii", "ii->", &[&[4, 4]]),
        ("bii->b", "bii->b", &[&[3, 4, 4]]),
        ("iij->j", "iij->j", &[&[3, 3, 2]]),
        ("ij->", "ij->", &[&[3, 4]]),
        ("ij", "ij->ij", &[&[3, 4]]),
        ("ba", "ba->ab", &[&[3, 4]]),
        ("i,i,i->", "i,i,i->", &[&[5], &[5], &[5]]),
        ("ij,jk,kl->il", "ij,jk,kl->il", &[&[2, 3], &[3, 4], &[4, 2]]),
        (
            "ab,bc,cd,de",
            "ab,bc,cd,de->ae",
            &[&[2, 3], &[3, 2], &[2, 4], &[4, 3]],
        ),
        ("ij,ij->ij", "ij,ij->ij", &[&[3, 4], &[3, 4]]),
        ("i,j->ij", "i,j->ij", &[&[3], &[4]]),
        ("ij,j->i", "ij,j->i", &[&[3, 4], &[4]]),
        ("ijk,jil->kl", "ijk,jil->kl", &[&[2, 3, 4], &[3, 2, 5]]),
        ("Ab,bA->", "Ab,bA->", &[&[3, 4], &[4, 3]]),
        ("ij,ik->jk", "ij,ik->jk", &[&[3, 1], &[3, 4]]),
        ("i,i->i", "i,i->i", &[&[1], &[4]]),
        (
            "...ij,...jk->...ik",
            "xyij,yjk->xyik",
            &[&[2, 3, 3, 4], &[3, 4, 2]],
        ),
        (
            "...ij,...jk",
            "xyij,yjk->xyik",
            &[&[2, 1, 3, 4], &[2, 4, 2]],
        ),
        ("i...->...", "ixy->xy", &[&[3, 2, 4]]),
        ("...ii->...i", "xii->xi", &[&[2, 3, 3]]),
        ("a...b,b...", "axyb,bxy->xya", &[&[2, 1, 3, 4], &[4, 5, 3]]),
    ];
    for &(spec, letters, shapes) in cases {
        let data: Vec<Vec<f64>> = shapes
            .iter()
            .map(|s| rand_vec(&mut rng, s.iter().product()))
            .collect();
        // The reference shapes: the ellipsis axes right-aligned as the letters name them.
        let (lhs, _) = letters.split_once("->").expect("explicit");
        let ref_ops: Vec<(&[f64], Vec<usize>)> = data
            .iter()
            .zip(shapes.iter())
            .zip(lhs.split(','))
            .map(|((d, s), t)| {
                let mut sh = vec![1usize; t.len() - s.len()];
                sh.extend(s.iter());
                (d.as_slice(), sh)
            })
            .collect();
        let refs: Vec<(&[f64], &[usize])> =
            ref_ops.iter().map(|(d, s)| (*d, s.as_slice())).collect();
        let (want, wshape) = einsum_ref(letters, &refs);
        let arrs: Vec<Array<f64>> = data
            .iter()
            .zip(shapes.iter())
            .map(|(d, s)| Array::from_slice_on(dev, d, s))
            .collect::<Result<_, _>>()?;
        let refs_a: Vec<&Array<f64>> = arrs.iter().collect();
        let got = linalg::einsum(spec, &refs_a)?;
        // The reference's leading broadcast axes of size 1 are not in einsum's result.
        let gshape: Vec<usize> = got.shape().to_vec();
        let wn: usize = wshape.iter().product();
        if gshape.iter().product::<usize>() != wn {
            return Err(format!("{spec}: shape {gshape:?}, expected {wshape:?}").into());
        }
        close(&got.to_vec()?, &want, 1e-12, 1e-12, spec)?;
    }
    // Integers wrap in their type; f32 is exact on small integers.
    let ia = Array::from_slice_on(dev, &[1i32, 2, 3, 4, 5, 6, 7, 8, 9], &[3, 3])?;
    assert_eq!(linalg::einsum("ii", &[&ia])?.item()?, 15);
    assert_eq!(
        linalg::einsum("ij,jk->ik", &[&ia, &ia])?.to_vec()?,
        [30, 36, 42, 66, 81, 96, 102, 126, 150]
    );
    let big = Array::from_slice_on(dev, &[i32::MAX, 1], &[2])?;
    assert_eq!(linalg::einsum("i->", &[&big])?.item()?, i32::MIN);
    let f = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
    assert_eq!(linalg::einsum("i,i", &[&f, &f])?.item()?, 14.0);
    let x = Array::<f64>::zeros(&[3, 4]).to_device(dev)?;
    assert_err(linalg::einsum("ijk", &[&x]), "InvalidArgument", "\"ijk\"");
    assert_err(
        linalg::einsum("ij,ij", &[&x, &x.t()]),
        "InvalidArgument",
        "'i'",
    );
    assert_err(
        linalg::einsum("ii", &[&x]),
        "InvalidArgument",
        "'i' has 3 and 4",
    );
    assert_err(linalg::einsum("ij->ii", &[&x]), "InvalidArgument", "'i'");
    assert_err(linalg::einsum("ij->k", &[&x]), "InvalidArgument", "'k'");
    assert_err(
        linalg::einsum("...j->j", &[&x]),
        "InvalidArgument",
        "no '...'",
    );
    assert_err(linalg::einsum("i1", &[&x]), "InvalidArgument", "'1'");
    assert_err(
        linalg::einsum("ij,jk", &[&x]),
        "InvalidArgument",
        "2 operand labels",
    );
    Ok(())
}

fn horner_dec(c: &[f64], x: f64) -> f64 {
    c.iter().fold(0.0, |acc, &k| acc * x + k)
}

fn conv(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            r[i + j] += x * y;
        }
    }
    r
}

fn poly_classic(dev: Device) -> TestResult {
    use cuprite_array::ops::{self, Poly1d, PolyCov, PolyfitOptions};
    let mut rng = Rng::fresh();
    let a = rand_vec(&mut rng, 4);
    let b = rand_vec(&mut rng, 3);
    let (xa, xb) = (
        Array::from_slice_on(dev, &a, &[4])?,
        Array::from_slice_on(dev, &b, &[3])?,
    );
    close(
        &ops::polymul(&xa, &xb)?.to_vec()?,
        &conv(&a, &b),
        1e-14,
        1e-14,
        "polymul",
    )?;
    let ia = Array::from_slice_on(dev, &[3i32, -1], &[2])?;
    assert_eq!(ops::polymul(&ia, &ia)?.to_vec()?, [9, -6, 1]);
    assert_err(
        ops::polymul(&xa, &Array::<f64>::zeros(&[0]).to_device(dev)?),
        "Shape",
        "0",
    );
    // poly from roots and from a matrix (its characteristic polynomial).
    let r = [2.0, 3.0, -1.0];
    let want = conv(&conv(&[1.0, -2.0], &[1.0, -3.0]), &[1.0, 1.0]);
    close(
        &ops::poly(&Array::from_slice_on(dev, &r, &[3])?)?.to_vec()?,
        &want,
        1e-14,
        1e-14,
        "poly",
    )?;
    let m = [1.0, 2.0, 3.0, 4.0];
    close(
        &ops::poly(&Array::from_slice_on(dev, &m, &[2, 2])?)?.to_vec()?,
        &[1.0, -5.0, -2.0],
        1e-12,
        1e-12,
        "poly of a matrix",
    )?;
    // roots: published values.
    let sort = |v: Vec<C>| {
        let mut v: Vec<(f64, f64)> = v.iter().map(|z| (z.re, z.im)).collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        v.into_iter()
            .flat_map(|(a, b)| [a, b])
            .collect::<Vec<f64>>()
    };
    let rt = |c: &[f64]| -> Result<Vec<f64>, cuprite_array::Error> {
        Ok(sort(
            ops::roots(&Array::from_slice_on(dev, c, &[c.len()])?)?.to_vec()?,
        ))
    };
    let h = 3f64.sqrt() / 2.0;
    close(
        &rt(&[1.0, 0.0, 0.0, -1.0])?,
        &[-0.5, -h, -0.5, h, 1.0, 0.0],
        1e-12,
        1e-12,
        "x³ − 1",
    )?;
    close(
        &rt(&[0.0, 0.0, 2.0, 0.0, -4.0, 0.0])?,
        &[-2f64.sqrt(), 0.0, 0.0, 0.0, 2f64.sqrt(), 0.0],
        1e-12,
        1e-12,
        "leading/trailing zeros",
    )?;
    if !rt(&[5.0])?.is_empty() || !rt(&[0.0, 0.0])?.is_empty() {
        return Err("roots of a constant".into());
    }
    let zc = [C::new(1.0, 0.0), C::new(0.0, -3.0), C::new(-2.0, 0.0)]; // (x − i)(x − 2i)
    let zr = sort(ops::roots(&Array::from_slice_on(dev, &zc, &[3])?)?.to_vec()?);
    close(&zr, &[0.0, 1.0, 0.0, 2.0], 1e-12, 1e-12, "complex roots")?;
    assert_err(
        ops::roots(&Array::from_slice_on(dev, &[1.0, f64::NAN, 1.0], &[3])?),
        "InvalidArgument",
        "NaN",
    );
    assert_err(
        ops::roots(&Array::<f64>::zeros(&[2, 2]).to_device(dev)?),
        "Shape",
        "[2, 2]",
    );
    // polyfit with weights and covariance against the weighted normal equations in f64.
    let (n, deg) = (9usize, 2usize);
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 1.0).collect();
    let y = rand_vec(&mut rng, n);
    let w: Vec<f64> = rand_vec(&mut rng, n)
        .iter()
        .map(|v| 1.0 + v.abs())
        .collect();
    let o = deg + 1;
    let v: Vec<f64> = (0..n * o)
        .map(|t| x[t / o].powi((o - 1 - t % o) as i32))
        .collect();
    let wv: Vec<f64> = (0..n * o).map(|t| v[t] * w[t / o]).collect();
    let wy: Vec<f64> = (0..n).map(|i| y[i] * w[i]).collect();
    let ata_inv = host_inv(&mm(&tr(&wv, n, o), &wv, o, n, o), o).ok_or("singular")?;
    let c = mm(&mm(&ata_inv, &tr(&wv, n, o), o, o, n), &wy, o, n, 1);
    let resid: f64 = (0..n)
        .map(|i| (wy[i] - (0..o).map(|j| wv[i * o + j] * c[j]).sum::<f64>()).powi(2))
        .sum();
    let (xx, yy, ww) = (
        Array::from_slice_on(dev, &x, &[n])?,
        Array::from_slice_on(dev, &y, &[n])?,
        Array::from_slice_on(dev, &w, &[n])?,
    );
    let opts = |cov| PolyfitOptions {
        rcond: None,
        w: Some(&ww),
        cov,
    };
    let f = ops::polyfit_with(&xx, &yy, deg, opts(PolyCov::Scaled))?;
    close(
        &f.coeffs.to_vec()?,
        &c,
        1e-10,
        1e-12,
        "polyfit coefficients",
    )?;
    close(
        &f.residuals.to_vec()?,
        &[resid],
        1e-10,
        1e-14,
        "polyfit residuals",
    )?;
    let fac = resid / (n - o) as f64;
    let cov_s: Vec<f64> = ata_inv.iter().map(|v| v * fac).collect();
    close(
        &f.cov.clone().ok_or("no cov")?.to_vec()?,
        &cov_s,
        1e-9,
        1e-13,
        "scaled cov",
    )?;
    let fu = ops::polyfit_with(&xx, &yy, deg, opts(PolyCov::Unscaled))?;
    close(
        &fu.cov.ok_or("no cov")?.to_vec()?,
        &ata_inv,
        1e-9,
        1e-13,
        "unscaled cov",
    )?;
    if f.rank != o || f.singular_values.shape() != [o] || f.rcond != n as f64 * f64::EPSILON {
        return Err(format!("polyfit report: rank {} rcond {}", f.rank, f.rcond).into());
    }
    // 2-D y: one fit per column; the covariance stacks along a last axis.
    let y2: Vec<f64> = (0..2 * n)
        .map(|t| if t % 2 == 0 { y[t / 2] } else { 2.0 * y[t / 2] })
        .collect();
    let f2 = ops::polyfit_with(
        &xx,
        &Array::from_slice_on(dev, &y2, &[n, 2])?,
        deg,
        opts(PolyCov::Scaled),
    )?;
    let c2: Vec<f64> = (0..2 * o)
        .map(|t| if t % 2 == 0 { c[t / 2] } else { 2.0 * c[t / 2] })
        .collect();
    close(&f2.coeffs.to_vec()?, &c2, 1e-10, 1e-12, "2-D polyfit")?;
    let cov2 = f2.cov.ok_or("no cov")?;
    if cov2.shape() != [o, o, 2] {
        return Err(format!("2-D cov shape {:?}", cov2.shape()).into());
    }
    assert_err(
        ops::polyfit_with(
            &xx,
            &yy,
            deg,
            PolyfitOptions {
                w: Some(&xa),
                ..Default::default()
            },
        ),
        "Shape",
        "[4]",
    );
    assert_err(
        ops::polyfit_with(&xx, &yy, 9, opts(PolyCov::Scaled)),
        "InvalidArgument",
        "exceed",
    );
    // poly1d.
    let p = Poly1d::new(&Array::from_slice_on(
        dev,
        &[0.0, 0.0, 2.0, -3.0, 1.0],
        &[5],
    )?)?;
    close(
        &p.coeffs().to_vec()?,
        &[2.0, -3.0, 1.0],
        0.0,
        0.0,
        "leading zeros dropped",
    )?;
    let q = Poly1d::new(&xb)?;
    let xs = rand_vec(&mut rng, 5);
    let xs_a = Array::from_slice_on(dev, &xs, &[5])?;
    let ev: Vec<f64> = xs
        .iter()
        .map(|&t| horner_dec(&[2.0, -3.0, 1.0], t))
        .collect();
    close(&p.eval(&xs_a)?.to_vec()?, &ev, 1e-14, 1e-14, "poly1d eval")?;
    close(
        &p.try_mul(&q)?.coeffs().to_vec()?,
        &conv(&[2.0, -3.0, 1.0], &b),
        1e-14,
        1e-14,
        "poly1d mul",
    )?;
    close(
        &p.try_add(&q)?.coeffs().to_vec()?,
        &[2.0 + b[0], -3.0 + b[1], 1.0 + b[2]],
        1e-14,
        1e-14,
        "poly1d add",
    )?;
    close(
        &p.try_sub(&p)?.coeffs().to_vec()?,
        &[0.0],
        0.0,
        0.0,
        "p − p",
    )?;
    let cubic = Poly1d::new(&Array::from_slice_on(dev, &[1.0, 2.0, 3.0, 4.0], &[4])?)?;
    close(
        &cubic.deriv(2)?.coeffs().to_vec()?,
        &[6.0, 4.0],
        0.0,
        0.0,
        "deriv 2",
    )?;
    close(
        &cubic.deriv(5)?.coeffs().to_vec()?,
        &[0.0],
        0.0,
        0.0,
        "deriv past degree",
    )?;
    close(
        &cubic.integ(1, &[7.0])?.coeffs().to_vec()?,
        &[0.25, 2.0 / 3.0, 1.5, 4.0, 7.0],
        1e-15,
        0.0,
        "integ",
    )?;
    close(
        &cubic.integ(2, &[1.0, 2.0])?.coeffs().to_vec()?,
        &[0.05, 2.0 / 12.0, 0.5, 2.0, 1.0, 2.0],
        1e-15,
        0.0,
        "integ 2",
    )?;
    close(
        &cubic.integ(2, &[])?.deriv(2)?.coeffs().to_vec()?,
        &[1.0, 2.0, 3.0, 4.0],
        1e-14,
        0.0,
        "integ then deriv",
    )?;
    assert_err(
        cubic.integ(3, &[1.0, 2.0]),
        "InvalidArgument",
        "2 integration constants",
    );
    close(
        &sort(p.roots()?.to_vec()?),
        &[0.5, 0.0, 1.0, 0.0],
        1e-12,
        1e-12,
        "poly1d roots",
    )?;
    let fr = Poly1d::from_roots(&Array::from_slice_on(dev, &[0.5, 1.0], &[2])?)?;
    close(
        &fr.coeffs().to_vec()?,
        &[1.0, -1.5, 0.5],
        1e-15,
        0.0,
        "from_roots",
    )?;
    Ok(())
}

fn poly_series(dev: Device) -> TestResult {
    use cuprite_array::ops::poly;
    let mut rng = Rng::fresh();
    let c = rand_vec(&mut rng, 4);
    let xs = rand_vec(&mut rng, 6);
    let (ca, xa) = (
        Array::from_slice_on(dev, &c, &[4])?,
        Array::from_slice_on(dev, &xs, &[2, 3])?,
    );
    let inc = |c: &[f64], x: f64| c.iter().rev().fold(0.0, |acc, &k| acc * x + k);
    let want: Vec<f64> = xs.iter().map(|&x| inc(&c, x)).collect();
    let got = poly::polyval(&xa, &ca)?;
    if got.shape() != [2, 3] {
        return Err(format!("polyval shape {:?}", got.shape()).into());
    }
    close(&got.to_vec()?, &want, 1e-14, 1e-14, "polyval")?;
    // 2-D c: columns are series; tensor gives every series at every x.
    let c2 = rand_vec(&mut rng, 6); // 3 coefficients × 2 series
    let c2a = Array::from_slice_on(dev, &c2, &[3, 2])?;
    let col = |j: usize| [c2[j], c2[2 + j], c2[4 + j]];
    let t = poly::polyval(&xa, &c2a)?;
    let tw: Vec<f64> = (0..2)
        .flat_map(|j| xs.iter().map(move |&x| inc(&col(j), x)))
        .collect();
    if t.shape() != [2, 2, 3] {
        return Err(format!("tensor polyval shape {:?}", t.shape()).into());
    }
    close(&t.to_vec()?, &tw, 1e-14, 1e-14, "tensor polyval")?;
    let x2 = Array::from_slice_on(dev, &xs[..2], &[2])?;
    let nt: Vec<f64> = (0..2).map(|j| inc(&col(j), xs[j])).collect();
    close(
        &poly::polyval_with(&x2, &c2a, PolyvalOpts::new().tensor(false))?.to_vec()?,
        &nt,
        1e-14,
        1e-14,
        "polyval tensor=false",
    )?;
    // polyvalfromroots.
    let r = rand_vec(&mut rng, 3);
    let want: Vec<f64> = xs
        .iter()
        .map(|&x| r.iter().map(|&q| x - q).product())
        .collect();
    close(
        &poly::polyvalfromroots(&xa, &Array::from_slice_on(dev, &r, &[3])?)?.to_vec()?,
        &want,
        1e-14,
        1e-14,
        "polyvalfromroots",
    )?;
    // polycompanion: its eigenvalues are the roots of the series.
    let cs = [-6.0, 11.0, -6.0, 1.0]; // (x−1)(x−2)(x−3), increasing
    let comp = poly::polycompanion(&Array::from_slice_on(dev, &cs, &[4])?)?;
    close(
        &comp.to_vec()?,
        &[0.0, 0.0, 6.0, 1.0, 0.0, -11.0, 0.0, 1.0, 6.0],
        0.0,
        0.0,
        "polycompanion",
    )?;
    let mut ev: Vec<f64> = linalg::eigvals(&comp)?
        .to_vec()?
        .iter()
        .map(|z| z.re)
        .collect();
    ev.sort_by(f64::total_cmp);
    close(&ev, &[1.0, 2.0, 3.0], 1e-10, 0.0, "companion eigenvalues")?;
    assert_err(
        poly::polycompanion(&Array::from_slice_on(dev, &[1.0], &[1])?),
        "InvalidArgument",
        "1 coefficient",
    );
    // polyvander: x.shape + (deg + 1,), increasing powers.
    let v = poly::polyvander(&xa, 3)?;
    if v.shape() != [2, 3, 4] {
        return Err(format!("polyvander shape {:?}", v.shape()).into());
    }
    let vw: Vec<f64> = xs
        .iter()
        .flat_map(|&x| (0..4).map(move |p| x.powi(p)))
        .collect();
    close(&v.to_vec()?, &vw, 1e-15, 1e-15, "polyvander")?;
    let z = poly::polyvander(&Array::from_slice_on(dev, &[0i32, 2], &[2])?, 2)?;
    assert_eq!(z.to_vec()?, [1, 0, 0, 1, 2, 4]);
    // polyutils.
    let s = poly::as_series(&[
        &Array::from_slice_on(dev, &[1.0, 0.0, 0.0], &[3])?,
        &Array::full(&[], 2.0).to_device(dev)?,
    ])?;
    close(&s[0].to_vec()?, &[1.0], 0.0, 0.0, "as_series trims")?;
    close(&s[1].to_vec()?, &[2.0], 0.0, 0.0, "as_series 0-d")?;
    let s = poly::as_series_with(
        &[&Array::from_slice_on(dev, &[1.0, 0.0], &[2])?],
        SeriesOpts::new().trim(false),
    )?;
    close(
        &s[0].to_vec()?,
        &[1.0, 0.0],
        0.0,
        0.0,
        "as_series untrimmed",
    )?;
    assert_err(
        poly::as_series(&[&Array::<f64>::zeros(&[0]).to_device(dev)?]),
        "Shape",
        "array 0 is empty",
    );
    assert_err(
        poly::as_series(&[&ca, &Array::<f64>::zeros(&[2, 2]).to_device(dev)?]),
        "Shape",
        "array 1",
    );
    close(
        &poly::trimseq(&Array::from_slice_on(dev, &[0.0, 3.0, 0.0], &[3])?)?.to_vec()?,
        &[0.0, 3.0],
        0.0,
        0.0,
        "trimseq",
    )?;
    let tc = Array::from_slice_on(
        dev,
        &[C::new(1.0, 0.0), C::new(0.0, 1e-3), C::new(1e-9, 0.0)],
        &[3],
    )?;
    let got: Vec<f64> = poly::trimcoef(&tc, 1e-6)?
        .to_vec()?
        .iter()
        .flat_map(|z| [z.re, z.im])
        .collect();
    close(&got, &[1.0, 0.0, 0.0, 1e-3], 0.0, 0.0, "trimcoef complex")?;
    close(
        &poly::trimcoef(&ca, 10.0)?.to_vec()?,
        &[0.0],
        0.0,
        0.0,
        "trimcoef all small",
    )?;
    assert_err(poly::trimcoef(&ca, -1.0), "InvalidArgument", "-1");
    Ok(())
}

const BODIES: &[(&str, Body)] = &[
    ("eig_real", eig_real),
    ("eig_complex", eig_complex),
    ("eig_known", eig_known),
    ("eig_stack_and_errors", eig_stack_and_errors),
    ("eig_uniform_dominant", eig_uniform_dominant),
    ("hermitian_fft", hermitian_fft),
    ("qr_forms", qr_forms),
    ("svd_forms", svd_forms),
    ("lstsq_rank_cond", lstsq_rank_cond),
    ("tensor_forms", tensor_forms),
    ("einsum_general", einsum_general),
    ("poly_classic", poly_classic),
    ("poly_series", poly_series),
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
