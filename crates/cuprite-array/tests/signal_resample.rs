//! Resampling (`resample`, `upfirdn`, `resample_poly`, `decimate`, `firwin`) and SciPy's
//! `medfilt`/`medfilt2d`/`wiener` against f64 host references written here from SciPy's
//! definitions (a direct DFT, plain loops), and band-limited sinusoids that resampling must
//! reproduce. Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::signal::{
    self, DecimateFilter, DecimateOpts, PolyPad, ResamplePolyOpts, Window, decimate_with, resample,
    upfirdn,
};
use cuprite_array::{Array, Device, c64};
use cuprite_testkit::{Rng, Test, TestResult};
use std::f64::consts::PI;

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn rvec(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect()
}

/// SciPy's `resample` of a real signal from its definition: the DFT's first `min(n, num) / 2
/// + 1` terms (the common even length's Nyquist term doubled when downsampling, halved when
/// upsampling), the real inverse DFT of `num` points, times `num / n`.
fn resample_ref(x: &[f64], num: usize) -> Vec<f64> {
    let nx = x.len();
    let n = nx.min(num);
    let nyq = n / 2 + 1;
    let mut y: Vec<c64> = (0..nyq)
        .map(|k| {
            (0..nx)
                .map(|j| {
                    let a = -2.0 * PI * (j * k) as f64 / nx as f64;
                    c64::new(a.cos(), a.sin()) * x[j]
                })
                .sum()
        })
        .collect();
    if n % 2 == 0 && num != nx {
        y[n / 2] *= if num < nx { 2.0 } else { 0.5 };
    }
    y.resize(num / 2 + 1, c64::new(0.0, 0.0));
    (0..num)
        .map(|m| {
            let mut acc = y[0].re;
            for k in 1..=(num - 1) / 2 {
                let a = 2.0 * PI * (k * m) as f64 / num as f64;
                acc += 2.0 * (y[k] * c64::new(a.cos(), a.sin())).re;
            }
            if num % 2 == 0 {
                acc += y[num / 2].re * if m % 2 == 0 { 1.0 } else { -1.0 };
            }
            acc / num as f64 * (num as f64 / nx as f64)
        })
        .collect()
}

/// `upfirdn` by its definition: `y[j] = Σ_i h[i] u[j down - i]` with `u[k up] = x[k]`.
fn upfirdn_ref(h: &[f64], x: &[f64], up: usize, down: usize) -> Vec<f64> {
    let len = ((x.len() - 1) * up + h.len() - 1) / down + 1;
    (0..len)
        .map(|j| {
            let mut acc = 0.0;
            for (i, &hi) in h.iter().enumerate() {
                let k = j * down;
                if k >= i && (k - i) % up == 0 && (k - i) / up < x.len() {
                    acc += hi * x[(k - i) / up];
                }
            }
            acc
        })
        .collect()
}

fn bessel_i0(x: f64) -> f64 {
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..200 {
        term *= (x / 2.0) * (x / 2.0) / (k * k) as f64;
        sum += term;
    }
    sum
}

/// SciPy's `firwin(m, c, window)` low-pass: `c sinc(c (j - (m-1)/2))` times the symmetric
/// window, summing to 1.
fn firwin_ref(m: usize, c: f64, win: &dyn Fn(usize, usize) -> f64) -> Vec<f64> {
    let a = (m as f64 - 1.0) / 2.0;
    let h: Vec<f64> = (0..m)
        .map(|j| {
            let t = c * (j as f64 - a);
            let s = if t == 0.0 {
                1.0
            } else {
                (PI * t).sin() / (PI * t)
            };
            c * s * win(j, m)
        })
        .collect();
    let s: f64 = h.iter().sum();
    h.iter().map(|v| v / s).collect()
}

fn kaiser5(j: usize, m: usize) -> f64 {
    let r = 2.0 * j as f64 / (m as f64 - 1.0) - 1.0;
    bessel_i0(5.0 * (1.0 - r * r).max(0.0).sqrt()) / bessel_i0(5.0)
}

fn hamming_sym(j: usize, m: usize) -> f64 {
    0.54 - 0.46 * (2.0 * PI * j as f64 / (m as f64 - 1.0)).cos()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// SciPy's `resample_poly` (zero padding) written from its source's steps.
fn resample_poly_ref(x: &[f64], up: usize, down: usize, taps: Option<&[f64]>) -> Vec<f64> {
    let g = gcd(up, down);
    let (up, down) = (up / g, down / g);
    let n_in = x.len();
    let n_out = (n_in * up).div_ceil(down);
    let (h, half) = match taps {
        Some(t) => (t.to_vec(), (t.len() - 1) / 2),
        None => {
            let r = up.max(down);
            (firwin_ref(20 * r + 1, 1.0 / r as f64, &kaiser5), 10 * r)
        }
    };
    let pre = down - half % down;
    let remove = (half + pre) / down;
    let mut post = 0;
    while ((n_in - 1) * up + h.len() + pre + post - 1) / down + 1 < n_out + remove {
        post += 1;
    }
    let mut t = vec![0.0; pre];
    t.extend(h.iter().map(|v| v * up as f64));
    t.extend(vec![0.0; post]);
    upfirdn_ref(&t, x, up, down)[remove..remove + n_out].to_vec()
}

fn resample_fft(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // Band-limited periodic signals come back exactly at the new rate.
        let n = 32usize;
        let f = |t: f64| (2.0 * PI * 3.0 * t).cos() + 0.5 * (2.0 * PI * 5.0 * t).sin();
        let x: Vec<f64> = (0..n).map(|i| f(i as f64 / n as f64)).collect();
        for num in [48usize, 20, 33, 32] {
            let y = resample(&Array::from_slice(&x, &[n])?, num, 0)?.to_vec()?;
            let want: Vec<f64> = (0..num).map(|i| f(i as f64 / num as f64)).collect();
            close(&y, &want, 1e-12, 1e-12, &format!("resample sinusoid {num}"))?;
        }
        // Random signals against the definition, even and odd lengths both ways, batched
        // along axis 1 of [2, n, 3].
        for (n, num) in [
            (20usize, 30usize),
            (20, 12),
            (21, 30),
            (21, 14),
            (16, 7),
            (15, 40),
        ] {
            let x = rvec(&mut rng, 2 * n * 3);
            let xa = Array::from_slice(&x, &[2, n, 3])?;
            let y = resample(&xa, num, 1)?;
            assert_eq!(y.shape(), &[2, num, 3]);
            let y = y.to_vec()?;
            for a in 0..2 {
                for c in 0..3 {
                    let col: Vec<f64> = (0..n).map(|i| x[(a * n + i) * 3 + c]).collect();
                    let got: Vec<f64> = (0..num).map(|i| y[(a * num + i) * 3 + c]).collect();
                    close(
                        &got,
                        &resample_ref(&col, num),
                        1e-11,
                        1e-12,
                        &format!("resample {n}->{num}"),
                    )?;
                }
            }
        }
        // f32.
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let y = resample(&Array::from_slice(&x32, &[n])?, 48, -1)?.to_vec()?;
        let y: Vec<f64> = y.iter().map(|&v| v as f64).collect();
        close(&y, &resample_ref(&x, 48), 1e-5, 1e-5, "resample f32")?;
        Ok(())
    })
}

fn upfirdn_poly(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 37usize;
        let x = rvec(&mut rng, 2 * n);
        let xa = Array::from_slice(&x, &[2, n])?;
        for (m, up, down) in [
            (5usize, 1usize, 1usize),
            (7, 3, 1),
            (4, 1, 3),
            (9, 4, 3),
            (1, 2, 5),
        ] {
            let h = rvec(&mut rng, m);
            let y = upfirdn(&h, &xa, up, down, -1)?;
            let len = y.shape()[1];
            let y = y.to_vec()?;
            for r in 0..2 {
                let want = upfirdn_ref(&h, &x[r * n..(r + 1) * n], up, down);
                close(
                    &y[r * len..(r + 1) * len],
                    &want,
                    1e-12,
                    1e-12,
                    &format!("upfirdn {m} {up}/{down}"),
                )?;
            }
            // Along axis 0 of the transpose.
            let yt = upfirdn(&h, &xa.permute(&[1, 0])?, up, down, 0)?
                .permute(&[1, 0])?
                .to_vec()?;
            close(&yt, &y, 1e-12, 1e-12, "upfirdn axis 0")?;
        }
        // resample_poly against SciPy's steps (default Kaiser design, axis 0).
        for (up, down) in [(3usize, 2usize), (2, 3), (1, 4), (5, 1), (4, 6)] {
            let y =
                signal::resample_poly(&Array::from_slice(&x[..n], &[n])?, up, down)?.to_vec()?;
            close(
                &y,
                &resample_poly_ref(&x[..n], up, down, None),
                1e-10,
                1e-12,
                &format!("resample_poly {up}/{down}"),
            )?;
        }
        // Mean padding: the mean removed and added back.
        let mean = x[..n].iter().sum::<f64>() / n as f64;
        let xc: Vec<f64> = x[..n].iter().map(|v| v - mean).collect();
        let o = ResamplePolyOpts::new().padtype(PolyPad::Mean);
        let y =
            signal::resample_poly_with(&Array::from_slice(&x[..n], &[n])?, 3, 2, &o)?.to_vec()?;
        let want: Vec<f64> = resample_poly_ref(&xc, 3, 2, None)
            .iter()
            .map(|v| v + mean)
            .collect();
        close(&y, &want, 1e-10, 1e-12, "resample_poly mean")?;
        // A slow sinusoid is resampled to the sinusoid at the new rate, away from the ends.
        let m = 300usize;
        let s: Vec<f64> = (0..m).map(|i| (0.05 * i as f64).sin()).collect();
        let y = signal::resample_poly(&Array::from_slice(&s, &[m])?, 5, 3)?.to_vec()?;
        assert_eq!(y.len(), 500);
        for i in 60..440 {
            let want = (0.05 * i as f64 * 3.0 / 5.0).sin();
            assert!(
                (y[i] - want).abs() < 2e-3,
                "resample_poly sinusoid {i}: {} vs {want}",
                y[i]
            );
        }
        // decimate: the Hamming design of 20 q + 1 taps through resample_poly, or upfirdn.
        let q = 3;
        let b = firwin_ref(20 * q + 1, 1.0 / q as f64, &hamming_sym);
        close(
            &signal::firwin(20 * q + 1, 1.0 / q as f64, Window::Hamming)?,
            &b,
            1e-13,
            1e-15,
            "firwin",
        )?;
        let xa = Array::from_slice(&x[..n], &[n])?;
        let fir = DecimateOpts::new().ftype(DecimateFilter::Fir);
        let y = decimate_with(&xa, q, &fir)?.to_vec()?;
        close(
            &y,
            &resample_poly_ref(&x[..n], 1, q, Some(&b)),
            1e-10,
            1e-12,
            "decimate",
        )?;
        let y = decimate_with(&xa, q, &fir.zero_phase(false))?.to_vec()?;
        let want = upfirdn_ref(&b, &x[..n], 1, q)[..n.div_ceil(q)].to_vec();
        close(&y, &want, 1e-10, 1e-12, "decimate not zero-phase")?;
        // Bad input names the values.
        assert_err(upfirdn(&[1.0], &xa, 0, 1, 0), "InvalidArgument", "up 0");
        assert_err(upfirdn(&[1.0], &xa, 1, 0, 0), "InvalidArgument", "down 0");
        assert_err(upfirdn(&[], &xa, 1, 1, 0), "InvalidArgument", "empty");
        assert_err(signal::resample_poly(&xa, 0, 2), "InvalidArgument", "up 0");
        assert_err(resample(&xa, 0, 0), "InvalidArgument", "to 0");
        assert_err(resample(&xa, 5, 1), "InvalidArgument", "axis 1");
        assert_err(signal::decimate(&xa, 0), "InvalidArgument", "not 0");
        assert_err(
            signal::firwin(11, 1.5, Window::Hann),
            "InvalidArgument",
            "1.5",
        );
        // Lengths past the address space or the documented limits are refused, named.
        assert_err(
            signal::firwin(1 << 40, 0.5, Window::Hann),
            "InvalidArgument",
            "numtaps 1099511627776",
        );
        assert_err(
            signal::firwin((1 << 24) + 1, 0.5, Window::Hann),
            "InvalidArgument",
            "numtaps 16777217",
        );
        assert_err(
            upfirdn(&[1.0], &xa, 1 << 62, 1, 0),
            "InvalidArgument",
            "upsampled by 4611686018427387904",
        );
        assert_err(
            signal::resample_poly(&xa, usize::MAX, 1),
            "InvalidArgument",
            &format!("upsampled by {}", usize::MAX),
        );
        assert_err(
            signal::resample_poly(&xa, 1 << 40, 3),
            "InvalidArgument",
            "up 1099511627776 and down 3",
        );
        assert_err(
            signal::resample_poly(&xa, 838_861, 1),
            "InvalidArgument",
            "up 838861",
        );
        let taps = ResamplePolyOpts::new().window(vec![1.0]);
        assert_err(
            signal::resample_poly_with(&xa, 1, 1 << 60, &taps),
            "InvalidArgument",
            "1152921504606846977 values",
        );
        assert_err(
            decimate_with(&xa, 1 << 60, &fir),
            "InvalidArgument",
            "q 1152921504606846976",
        );
        assert_err(
            decimate_with(&xa, 2, &fir.n(usize::MAX)),
            "InvalidArgument",
            &format!("n {}", usize::MAX),
        );
        Ok(())
    })
}

/// The median of the window around each element of a row-major `[r, c]` array, zeros beyond
/// the edges (the upper median of an even count does not arise: the extents are odd).
fn medfilt_ref(x: &[f64], r: usize, c: usize, kr: usize, kc: usize) -> Vec<f64> {
    let mut out = vec![0.0; r * c];
    for i in 0..r {
        for j in 0..c {
            let mut w = Vec::new();
            for a in 0..kr {
                for b in 0..kc {
                    let (ii, jj) = (
                        i as isize + a as isize - (kr / 2) as isize,
                        j as isize + b as isize - (kc / 2) as isize,
                    );
                    let inside = ii >= 0 && jj >= 0 && (ii as usize) < r && (jj as usize) < c;
                    w.push(if inside {
                        x[ii as usize * c + jj as usize]
                    } else {
                        0.0
                    });
                }
            }
            w.sort_by(f64::total_cmp);
            out[i * c + j] = w[w.len() / 2];
        }
    }
    out
}

/// SciPy's `wiener` of a row-major `[r, c]` array from its formula.
fn wiener_ref(x: &[f64], r: usize, c: usize, kr: usize, kc: usize, noise: Option<f64>) -> Vec<f64> {
    let size = (kr * kc) as f64;
    let boxed = |v: &dyn Fn(usize) -> f64| -> Vec<f64> {
        let mut out = vec![0.0; r * c];
        for i in 0..r {
            for j in 0..c {
                let mut s = 0.0;
                for a in 0..kr {
                    for b in 0..kc {
                        // SciPy's 'same' window of the full correlation with ones: the
                        // offsets -(k / 2) ..= (k - 1) / 2.
                        let ii = i as isize + a as isize - (kr / 2) as isize;
                        let jj = j as isize + b as isize - (kc / 2) as isize;
                        if ii >= 0 && jj >= 0 && (ii as usize) < r && (jj as usize) < c {
                            s += v(ii as usize * c + jj as usize);
                        }
                    }
                }
                out[i * c + j] = s / size;
            }
        }
        out
    };
    let mean = boxed(&|k| x[k]);
    let sq = boxed(&|k| x[k] * x[k]);
    let var: Vec<f64> = (0..r * c).map(|k| sq[k] - mean[k] * mean[k]).collect();
    let nu = noise.unwrap_or(var.iter().sum::<f64>() / (r * c) as f64);
    (0..r * c)
        .map(|k| {
            if var[k] < nu {
                mean[k]
            } else {
                (x[k] - mean[k]) * (1.0 - nu / var[k]) + mean[k]
            }
        })
        .collect()
}

fn medfilt_wiener(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (r, c) = (9usize, 11usize);
        let x = rvec(&mut rng, r * c);
        let xa = Array::from_slice(&x, &[r, c])?;
        let y = signal::medfilt2d(&xa, None)?.to_vec()?;
        close(&y, &medfilt_ref(&x, r, c, 3, 3), 0.0, 0.0, "medfilt2d 3x3")?;
        let y = signal::medfilt(&xa, Some(&[3, 5]))?.to_vec()?;
        close(&y, &medfilt_ref(&x, r, c, 3, 5), 0.0, 0.0, "medfilt 3x5")?;
        let y = signal::medfilt(&Array::from_slice(&x[..c], &[c])?, Some(&[5]))?.to_vec()?;
        close(
            &y,
            &medfilt_ref(&x[..c], 1, c, 1, 5),
            0.0,
            0.0,
            "medfilt 1-D",
        )?;
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let y = signal::medfilt(&Array::from_slice(&x32, &[r, c])?, None)?.to_vec()?;
        let want: Vec<f32> = medfilt_ref(&x, r, c, 3, 3)
            .iter()
            .map(|&v| v as f32)
            .collect();
        assert_eq!(y, want);
        for (kr, kc, noise) in [(3usize, 3usize, None), (3, 5, None), (5, 2, Some(0.05))] {
            let y = signal::wiener(&xa, Some(&[kr, kc]), noise)?.to_vec()?;
            close(
                &y,
                &wiener_ref(&x, r, c, kr, kc, noise),
                1e-10,
                1e-12,
                &format!("wiener {kr}x{kc}"),
            )?;
        }
        let y = signal::wiener(&Array::from_slice(&x32, &[r, c])?, None, None)?.to_vec()?;
        let y: Vec<f64> = y.iter().map(|&v| v as f64).collect();
        close(
            &y,
            &wiener_ref(&x, r, c, 3, 3, None),
            1e-3,
            1e-4,
            "wiener f32",
        )?;
        assert_err(signal::medfilt(&xa, Some(&[4])), "InvalidArgument", "not 4");
        assert_err(signal::medfilt(&xa, Some(&[3, 3, 3])), "Shape", "[3, 3, 3]");
        assert_err(
            signal::medfilt2d(&Array::from_slice(&x[..c], &[c])?, None),
            "Shape",
            "[11]",
        );
        assert_err(
            signal::wiener(&xa, Some(&[0]), None),
            "InvalidArgument",
            "not 0",
        );
        // Windows of more than 2^24 elements (or whose element count overflows) are refused.
        assert_err(
            signal::wiener(&xa, Some(&[1 << 32, 1 << 32]), None),
            "InvalidArgument",
            "[4294967296, 4294967296]",
        );
        assert_err(
            signal::wiener(&xa, Some(&[4097, 4097]), None),
            "InvalidArgument",
            "[4097, 4097]",
        );
        assert_err(
            signal::medfilt(&xa, Some(&[(1 << 40) + 1])),
            "InvalidArgument",
            "[1099511627777, 1099511627777]",
        );
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("resample_fft", resample_fft),
    ("upfirdn_poly", upfirdn_poly),
    ("medfilt_wiener", medfilt_wiener),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::signal_resample::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::signal_resample::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
