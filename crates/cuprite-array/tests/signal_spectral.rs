//! The spectral routines of `signal` (`welch`, `csd`, `coherence`, `periodogram`,
//! `spectrogram`, `stft`, `istft`) against f64 host references written here from SciPy's
//! definitions (each segment detrended, windowed and transformed by a direct DFT), Parseval's
//! identity, the amplitude of a sinusoid and the round trip under the COLA condition. Bodies
//! run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::signal::{
    self, Average, Detrend, Extension, IstftOpts, PeriodogramOpts, Scaling, SpectrogramMode,
    SpectrogramOpts, StftOpts, WelchOpts, Window,
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

/// The periodic Hann window of `n` points.
fn hann(n: usize) -> Vec<f64> {
    (0..n)
        .map(|j| 0.5 - 0.5 * (2.0 * PI * j as f64 / n as f64).cos())
        .collect()
}

/// The periodic Hamming window of `n` points.
fn hamming(n: usize) -> Vec<f64> {
    (0..n)
        .map(|j| 0.54 - 0.46 * (2.0 * PI * j as f64 / n as f64).cos())
        .collect()
}

/// `s` less its mean (`kind` 1) or its least-squares line (`kind` 2), unchanged for 0.
fn detrend_ref(s: &[f64], kind: u8) -> Vec<f64> {
    let n = s.len() as f64;
    let mean = s.iter().sum::<f64>() / n;
    match kind {
        0 => s.to_vec(),
        1 => s.iter().map(|v| v - mean).collect(),
        _ => {
            let tm = (n - 1.0) / 2.0;
            let (mut sxy, mut sxx) = (0.0, 0.0);
            for (t, v) in s.iter().enumerate() {
                sxy += (t as f64 - tm) * (v - mean);
                sxx += (t as f64 - tm).powi(2);
            }
            let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
            s.iter()
                .enumerate()
                .map(|(t, v)| v - mean - b * (t as f64 - tm))
                .collect()
        }
    }
}

/// The settings of a reference segment transform.
#[derive(Clone)]
struct Seg {
    win: Vec<f64>,
    noverlap: usize,
    nfft: usize,
    detrend: u8,
    onesided: bool,
}

/// The DFT of each detrended, windowed segment of `x`: `[nseg][nfreq]`.
fn seg_dft(x: &[f64], s: &Seg) -> Vec<Vec<c64>> {
    let p = s.win.len();
    let step = p - s.noverlap;
    let nseg = (x.len() - p) / step + 1;
    let nfreq = if s.onesided { s.nfft / 2 + 1 } else { s.nfft };
    (0..nseg)
        .map(|i| {
            let seg = detrend_ref(&x[i * step..i * step + p], s.detrend);
            (0..nfreq)
                .map(|k| {
                    let mut acc = c64::new(0.0, 0.0);
                    for j in 0..p {
                        let ang = -2.0 * PI * (j * k % s.nfft) as f64 / s.nfft as f64;
                        acc += c64::new(ang.cos(), ang.sin()) * (seg[j] * s.win[j]);
                    }
                    acc
                })
                .collect()
        })
        .collect()
}

/// The scale of each frequency's power: `1 / (fs Σ w²)` or `1 / (Σ w)²`, doubled one-sided
/// off 0 and an even transform's Nyquist bin.
fn scales(s: &Seg, fs: f64, density: bool, nfreq: usize) -> Vec<f64> {
    let base = if density {
        1.0 / (fs * s.win.iter().map(|w| w * w).sum::<f64>())
    } else {
        1.0 / s.win.iter().sum::<f64>().powi(2)
    };
    (0..nfreq)
        .map(|k| {
            if s.onesided && k > 0 && !(s.nfft % 2 == 0 && k == s.nfft / 2) {
                2.0 * base
            } else {
                base
            }
        })
        .collect()
}

/// The median of `v` divided by SciPy's bias `1 + Σ_{i=1}^{(n-1)/2} (1/(2i+1) - 1/(2i))`.
fn median_ref(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let m = if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    };
    let bias: f64 = 1.0
        + (1..=(n - 1) / 2)
            .map(|i| 1.0 / (2.0 * i as f64 + 1.0) - 1.0 / (2.0 * i as f64))
            .sum::<f64>();
    m / bias
}

/// Welch's estimate from the definition.
fn welch_ref(x: &[f64], s: &Seg, fs: f64, density: bool, median: bool) -> Vec<f64> {
    let z = seg_dft(x, s);
    let nfreq = z[0].len();
    let sc = scales(s, fs, density, nfreq);
    (0..nfreq)
        .map(|k| {
            let mut p: Vec<f64> = z.iter().map(|r| r[k].norm_sqr() * sc[k]).collect();
            if median {
                median_ref(&mut p)
            } else {
                p.iter().sum::<f64>() / p.len() as f64
            }
        })
        .collect()
}

fn welch_random(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (rows, n) = (3usize, 301usize);
        let x = rvec(&mut rng, rows * n);
        let xa = Array::from_slice(&x, &[rows, n])?;
        let xt = xa.permute(&[1, 0])?.contiguous()?;
        for (p, nov, nfft, det, one, dens, med, fs) in [
            (64usize, 32usize, 64usize, 1u8, true, true, false, 1.0f64),
            (50, 20, 75, 2, true, false, true, 10.0),
            (64, 10, 81, 0, false, true, false, 2.5),
            (33, 0, 33, 1, true, true, true, 1.0),
        ] {
            let s = Seg {
                win: hann(p),
                noverlap: nov,
                nfft,
                detrend: det,
                onesided: one,
            };
            let dt = [None, Some(Detrend::Constant), Some(Detrend::Linear)][det as usize];
            let o = WelchOpts::new()
                .nperseg(p)
                .noverlap(nov)
                .nfft(nfft)
                .detrend(dt)
                .return_onesided(one)
                .scaling(if dens {
                    Scaling::Density
                } else {
                    Scaling::Spectrum
                })
                .average(if med { Average::Median } else { Average::Mean })
                .fs(fs);
            let (f, got) = signal::welch_with(&xa, &o)?;
            let nfreq = if one { nfft / 2 + 1 } else { nfft };
            assert_eq!(got.shape(), &[rows, nfreq]);
            assert_eq!(f.len(), nfreq);
            let df = fs / nfft as f64;
            assert!((f[1] - df).abs() < 1e-12);
            if !one {
                assert!((f[nfft - 1] + df).abs() < 1e-12, "fftfreq order: {f:?}");
            }
            // The same along axis 0 of the transposed signal.
            let (_, gott) = signal::welch_with(&xt, &o.clone().axis(0))?;
            assert_eq!(gott.shape(), &[nfreq, rows]);
            let got = got.to_vec()?;
            let gott = gott.permute(&[1, 0])?.to_vec()?;
            for r in 0..rows {
                let want = welch_ref(&x[r * n..(r + 1) * n], &s, fs, dens, med);
                let what = format!("welch p={p} nov={nov} nfft={nfft} row {r}");
                close(&got[r * nfreq..(r + 1) * nfreq], &want, 1e-9, 1e-14, &what)?;
                close(&gott[r * nfreq..(r + 1) * nfreq], &want, 1e-9, 1e-14, &what)?;
            }
        }
        // f32 in its own precision.
        let x32: Vec<f32> = x[..n].iter().map(|&v| v as f32).collect();
        let (_, got) = signal::welch_with(
            &Array::from_slice(&x32, &[n])?,
            &WelchOpts::new().nperseg(64),
        )?;
        let s = Seg {
            win: hann(64),
            noverlap: 32,
            nfft: 64,
            detrend: 1,
            onesided: true,
        };
        let g: Vec<f64> = got.to_vec()?.iter().map(|&v| v as f64).collect();
        close(
            &g,
            &welch_ref(&x[..n], &s, 1.0, true, false),
            1e-4,
            1e-6,
            "welch f32",
        )?;
        Ok(())
    })
}

fn periodogram_identities(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 200usize;
        let x = rvec(&mut rng, n);
        let xa = Array::from_slice(&x, &[n])?;
        // Parseval: a two-sided boxcar density summed over df = fs / n is the mean square.
        let fs = 4.0;
        let o = PeriodogramOpts::new()
            .detrend(None)
            .return_onesided(false)
            .fs(fs);
        let (f, p) = signal::periodogram_with(&xa, &o)?;
        let ms = x.iter().map(|v| v * v).sum::<f64>() / n as f64;
        let total: f64 = p.to_vec()?.iter().sum::<f64>() * fs / n as f64;
        assert!((total - ms).abs() < 1e-12 * ms.max(1.0), "{total} vs {ms}");
        assert_eq!(f.len(), n);
        // One-sided (doubled) with the mean removed: the variance.
        let (_, p) = signal::periodogram_with(&xa, &PeriodogramOpts::new().fs(fs))?;
        let mean = x.iter().sum::<f64>() / n as f64;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        let total: f64 = p.to_vec()?.iter().sum::<f64>() * fs / n as f64;
        assert!((total - var).abs() < 1e-12, "{total} vs {var}");
        // Against the definition: nfft shorter truncates, longer zero-pads; Hann window.
        for nfft in [150usize, 256] {
            let o = PeriodogramOpts::new().nfft(nfft).window(Window::Hann);
            let (_, p) = signal::periodogram_with(&xa, &o)?;
            let m = nfft.min(n);
            let s = Seg {
                win: hann(m),
                noverlap: 0,
                nfft,
                detrend: 1,
                onesided: true,
            };
            let want = welch_ref(&x[..m], &s, 1.0, true, false);
            close(
                &p.to_vec()?,
                &want,
                1e-9,
                1e-14,
                &format!("periodogram {nfft}"),
            )?;
        }
        // A sinusoid between bins: the flat-top window's spectrum peak is A² / 2 (SciPy's
        // documented use: the peak's square root estimates the RMS amplitude).
        let (amp, f0, fs) = (2.0 * 2f64.sqrt(), 1234.0, 10e3);
        let m = 20000usize;
        let s: Vec<f64> = (0..m)
            .map(|i| amp * (2.0 * PI * f0 * i as f64 / fs).sin())
            .collect();
        let o = WelchOpts::new()
            .fs(fs)
            .window(Window::Flattop)
            .nperseg(1024)
            .scaling(Scaling::Spectrum);
        let (_, p) = signal::welch_with(&Array::from_slice(&s, &[m])?, &o)?;
        let peak = p.to_vec()?.into_iter().fold(0.0, f64::max);
        assert!((peak.sqrt() - 2.0).abs() < 2e-3, "rms {}", peak.sqrt());
        Ok(())
    })
}

fn csd_coherence(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (nx, ny) = (260usize, 240usize);
        let x = rvec(&mut rng, nx);
        let mut y = rvec(&mut rng, ny);
        // y partly a delayed copy of x: coherence well inside (0, 1).
        for i in 3..ny {
            y[i] += 0.8 * x[i - 3];
        }
        let (xa, ya) = (Array::from_slice(&x, &[nx])?, Array::from_slice(&y, &[ny])?);
        let o = WelchOpts::new().nperseg(40).noverlap(15).nfft(48);
        let s = Seg {
            win: hann(40),
            noverlap: 15,
            nfft: 48,
            detrend: 1,
            onesided: true,
        };
        // The shorter signal zero-padded to the longer.
        let mut yp = y.clone();
        yp.resize(nx, 0.0);
        let (zx, zy) = (seg_dft(&x, &s), seg_dft(&yp, &s));
        let nfreq = 25;
        let sc = scales(&s, 1.0, true, nfreq);
        let pxy: Vec<c64> = (0..nfreq)
            .map(|k| {
                let sum: c64 = zx.iter().zip(&zy).map(|(a, b)| a[k].conj() * b[k]).sum();
                sum * (sc[k] / zx.len() as f64)
            })
            .collect();
        let (_, got) = signal::csd_with(&xa, &ya, &o)?;
        let got = got.to_vec()?;
        let re: Vec<f64> = got.iter().map(|z| z.re).collect();
        let im: Vec<f64> = got.iter().map(|z| z.im).collect();
        close(
            &re,
            &pxy.iter().map(|z| z.re).collect::<Vec<_>>(),
            1e-9,
            1e-13,
            "csd re",
        )?;
        close(
            &im,
            &pxy.iter().map(|z| z.im).collect::<Vec<_>>(),
            1e-9,
            1e-13,
            "csd im",
        )?;
        // Median: of the real and imaginary parts separately.
        let (_, gotm) = signal::csd_with(&xa, &ya, &o.clone().average(Average::Median))?;
        let gotm = gotm.to_vec()?;
        for k in 0..nfreq {
            let mut r: Vec<f64> = zx
                .iter()
                .zip(&zy)
                .map(|(a, b)| (a[k].conj() * b[k]).re * sc[k])
                .collect();
            let mut i: Vec<f64> = zx
                .iter()
                .zip(&zy)
                .map(|(a, b)| (a[k].conj() * b[k]).im * sc[k])
                .collect();
            let (wr, wi) = (median_ref(&mut r), median_ref(&mut i));
            close(
                &[gotm[k].re, gotm[k].im],
                &[wr, wi],
                1e-9,
                1e-13,
                "csd median",
            )?;
        }
        // Coherence: |Pxy|² / (Pxx Pyy), each a Welch mean.
        let pxx = welch_ref(&x, &s, 1.0, true, false);
        let pyy = welch_ref(&yp, &s, 1.0, true, false);
        let want: Vec<f64> = (0..nfreq)
            .map(|k| pxy[k].norm_sqr() / pxx[k] / pyy[k])
            .collect();
        let (_, got) = signal::coherence_with(&xa, &ya, &o)?;
        close(&got.to_vec()?, &want, 1e-8, 1e-12, "coherence")?;
        assert!(want.iter().all(|&c| (0.0..=1.0 + 1e-12).contains(&c)));
        Ok(())
    })
}

fn stft_reference(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (rows, n) = (2usize, 100usize);
        let x = rvec(&mut rng, rows * n);
        let xa = Array::from_slice(&x, &[rows, n])?;
        for (p, nov, nfft, ext, padded, dens) in [
            (
                32usize,
                16usize,
                32usize,
                Some(Extension::Zeros),
                true,
                false,
            ),
            (20, 15, 25, Some(Extension::Even), true, true),
            (21, 5, 21, Some(Extension::Odd), false, false),
            (16, 4, 20, Some(Extension::Constant), true, false),
            (30, 10, 30, None, false, false),
        ] {
            let o = StftOpts::new()
                .nperseg(p)
                .noverlap(nov)
                .nfft(nfft)
                .boundary(ext)
                .padded(padded)
                .fs(2.0)
                .scaling(if dens {
                    Scaling::Density
                } else {
                    Scaling::Spectrum
                });
            let (f, t, z) = signal::stft_with(&xa, &o)?;
            let e = p / 2;
            let step = p - nov;
            let s = Seg {
                win: hann(p),
                noverlap: nov,
                nfft,
                detrend: 0,
                onesided: true,
            };
            let scale = if dens {
                1.0 / (2.0 * s.win.iter().map(|w| w * w).sum::<f64>()).sqrt()
            } else {
                1.0 / s.win.iter().sum::<f64>()
            };
            let z = z.to_vec()?;
            let nfreq = nfft / 2 + 1;
            assert_eq!(f.len(), nfreq);
            for r in 0..rows {
                let xr = &x[r * n..(r + 1) * n];
                // The extension from SciPy's definitions.
                let mut v: Vec<f64> = match ext {
                    None => xr.to_vec(),
                    Some(how) => {
                        let mut v = Vec::new();
                        for i in (1..=e).rev() {
                            v.push(match how {
                                Extension::Zeros => 0.0,
                                Extension::Even => xr[i],
                                Extension::Odd => 2.0 * xr[0] - xr[i],
                                Extension::Constant => xr[0],
                            });
                        }
                        v.extend(xr);
                        for i in 1..=e {
                            v.push(match how {
                                Extension::Zeros => 0.0,
                                Extension::Even => xr[n - 1 - i],
                                Extension::Odd => 2.0 * xr[n - 1] - xr[n - 1 - i],
                                Extension::Constant => xr[n - 1],
                            });
                        }
                        v
                    }
                };
                if padded {
                    while (v.len() - p) % step != 0 {
                        v.push(0.0);
                    }
                }
                let want = seg_dft(&v, &s);
                let nseg = want.len();
                assert_eq!(t.len(), nseg, "times p={p}");
                // SciPy's times: `nperseg / 2` as a float taken off each after an extension.
                let shift = if ext.is_some() { p as f64 / 2.0 } else { 0.0 };
                assert!((t[1] - t[0] - step as f64 / 2.0).abs() < 1e-12);
                assert!((t[0] - (p as f64 / 2.0 - shift) / 2.0).abs() < 1e-12);
                for k in 0..nfreq {
                    for i in 0..nseg {
                        let g = z[(r * nfreq + k) * nseg + i];
                        let w = want[i][k] * scale;
                        if (g - w).norm() > 1e-10 {
                            return Err(
                                format!("stft p={p} row {r} bin {k} seg {i}: {g} vs {w}").into()
                            );
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

fn istft_roundtrip(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (a, n, b) = (2usize, 157usize, 3usize);
        let x = rvec(&mut rng, a * n * b);
        // The signal along axis 1 of [a, n, b].
        let xa = Array::from_slice(&x, &[a, n, b])?;
        for (win, p, nov, one) in [
            (Window::Hann, 64usize, 32usize, true),
            (Window::Hamming, 40, 30, true),
            (Window::Hann, 25, 20, false),
        ] {
            let so = StftOpts::new()
                .window(win)
                .nperseg(p)
                .noverlap(nov)
                .axis(1)
                .return_onesided(one);
            let (_, _, z) = signal::stft_with(&xa, &so)?;
            // Frequencies along axis 1, segments last.
            assert_eq!(z.shape()[0], a);
            assert_eq!(z.shape()[2], b);
            let io = IstftOpts::new()
                .window(win)
                .nperseg(p)
                .noverlap(nov)
                .freq_axis(1)
                .time_axis(-1)
                .input_onesided(one);
            let (t, y) = signal::istft_with(&z, &io)?;
            // The other axes in order, the time at time_axis without the frequency axis.
            assert_eq!(y.shape()[..2], [a, b]);
            let m = y.shape()[2];
            assert!(m >= n && t.len() == m);
            let y = y.to_vec()?;
            for i in 0..a {
                for j in 0..b {
                    for k in 0..m {
                        let want = if k < n { x[(i * n + k) * b + j] } else { 0.0 };
                        let got = y[(i * b + j) * m + k];
                        if (got - want).abs() > 1e-10 {
                            return Err(format!(
                                "istft {win:?} p={p}: [{i},{j},{k}] {got} vs {want}"
                            )
                            .into());
                        }
                    }
                }
            }
        }
        // Transposed axes: time before frequency, density scaling, f32.
        let x32: Vec<f32> = x[..n].iter().map(|&v| v as f32).collect();
        let so = StftOpts::new()
            .nperseg(32)
            .scaling(Scaling::Density)
            .fs(3.0);
        let (_, _, z) = signal::stft_with(&Array::from_slice(&x32, &[n])?, &so)?;
        let zt = z.permute(&[1, 0])?;
        let io = IstftOpts::new()
            .nperseg(32)
            .scaling(Scaling::Density)
            .fs(3.0)
            .time_axis(0)
            .freq_axis(1);
        let (t, y) = signal::istft_with(&zt, &io)?;
        assert!((t[3] - 1.0).abs() < 1e-12);
        let g: Vec<f64> = y.to_vec()?[..n].iter().map(|&v| v as f64).collect();
        close(&g, &x[..n], 1e-4, 1e-5, "istft f32")?;
        Ok(())
    })
}

fn spectrogram_reference(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 300usize;
        let x = rvec(&mut rng, n);
        let xa = Array::from_slice(&x, &[n])?;
        // The defaults: Tukey(0.25) of 256 points, overlap 256 / 8.
        let (f, t, s) = signal::spectrogram(&xa)?;
        assert_eq!((f.len(), t.len(), s.shape()), (129, 1, &[129, 1][..]));
        let win = signal::get_window::<f64>(Window::Tukey(0.25), 256, true)?.to_vec()?;
        let seg = Seg {
            win,
            noverlap: 32,
            nfft: 256,
            detrend: 1,
            onesided: true,
        };
        close(
            &s.to_vec()?,
            &welch_ref(&x, &seg, 1.0, true, false),
            1e-9,
            1e-14,
            "spectrogram",
        )?;
        // Magnitude and angle of the stft-scaled transform, Hamming of 50 with overlap 20.
        let seg = Seg {
            win: hamming(50),
            noverlap: 20,
            nfft: 50,
            detrend: 2,
            onesided: true,
        };
        let z = seg_dft(&x, &seg);
        let scale = 1.0 / seg.win.iter().map(|w| w * w).sum::<f64>().sqrt();
        let o = SpectrogramOpts::new()
            .window(Window::Hamming)
            .nperseg(50)
            .noverlap(20)
            .detrend(Detrend::Linear);
        let (_, t, m) = signal::spectrogram_with(&xa, &o.clone().mode(SpectrogramMode::Magnitude))?;
        let (_, _, an) = signal::spectrogram_with(&xa, &o.clone().mode(SpectrogramMode::Angle))?;
        let (_, _, ph) = signal::spectrogram_with(&xa, &o.clone().mode(SpectrogramMode::Phase))?;
        let nseg = z.len();
        // The phase: along the frequencies each value is its angle plus a multiple of 2π, and
        // consecutive values differ by at most π.
        let ph = ph.to_vec()?;
        let tau = 2.0 * PI;
        for i in 0..nseg {
            for k in 0..26 {
                let (g, a) = (ph[k * nseg + i], z[i][k].arg());
                let turns = (g - a) / tau;
                if z[i][k].norm() > 1e-9 && (turns - turns.round()).abs() > 1e-9 {
                    return Err(format!("phase [{k}, {i}]: {g} is not {a} + 2πn").into());
                }
                if k > 0 && (g - ph[(k - 1) * nseg + i]).abs() > PI + 1e-9 {
                    return Err(format!("phase [{k}, {i}]: a jump above π").into());
                }
            }
        }
        assert_eq!(t.len(), nseg);
        assert_eq!(t[1] - t[0], 30.0);
        let (m, an) = (m.to_vec()?, an.to_vec()?);
        for k in 0..26 {
            for i in 0..nseg {
                let w = z[i][k] * scale;
                close(&[m[k * nseg + i]], &[w.norm()], 1e-9, 1e-13, "magnitude")?;
                if w.norm() > 1e-9 {
                    // Compared on the circle: a real value's angle may be π or -π.
                    let g = an[k * nseg + i];
                    close(
                        &[g.cos(), g.sin()],
                        &[w.arg().cos(), w.arg().sin()],
                        0.0,
                        1e-9,
                        "angle",
                    )?;
                }
            }
        }
        Ok(())
    })
}

fn spectral_bad_input(d: Device) -> TestResult {
    on(d, || {
        let x = Array::from_slice(&[1.0f64; 50], &[50])?;
        assert_err(
            signal::welch_with(&x, &WelchOpts::new().nperseg(0)),
            "InvalidArgument",
            "nperseg must be positive",
        );
        assert_err(
            signal::welch_with(&x, &WelchOpts::new().nperseg(20).noverlap(20)),
            "InvalidArgument",
            "noverlap 20",
        );
        assert_err(
            signal::welch_with(&x, &WelchOpts::new().nperseg(20).nfft(10)),
            "InvalidArgument",
            "nfft 10",
        );
        assert_err(
            signal::welch_with(&x, &WelchOpts::new().fs(0.0)),
            "InvalidArgument",
            "fs",
        );
        assert_err(
            signal::welch_with(&x, &WelchOpts::new().window(vec![1.0; 8]).nperseg(9)),
            "InvalidArgument",
            "nperseg 9",
        );
        assert_err(
            signal::welch_with(&x, &WelchOpts::new().axis(2)),
            "InvalidArgument",
            "axis 2",
        );
        assert_err(
            signal::welch(&Array::<f64>::zeros(&[0])),
            "InvalidArgument",
            "empty",
        );
        let y = Array::from_slice(&[1.0f64; 20], &[2, 10])?;
        let x3 = Array::from_slice(&[1.0f64; 150], &[3, 50])?;
        assert_err(signal::csd(&x3, &y), "Shape", "[2, 10]");
        assert_err(
            signal::stft_with(&x, &StftOpts::new().nperseg(8).window(vec![1.0; 4])),
            "InvalidArgument",
            "nperseg 8",
        );
        let z = Array::<c64>::zeros(&[5, 3]);
        assert_err(
            signal::istft_with(&z, &IstftOpts::new().freq_axis(0).time_axis(-2)),
            "InvalidArgument",
            "same axis",
        );
        assert_err(
            signal::istft_with(&z, &IstftOpts::new().noverlap(8)),
            "InvalidArgument",
            "noverlap 8",
        );
        assert_err(signal::istft(&Array::<c64>::zeros(&[5])), "Shape", "[5]");
        Ok(())
    })
}

/// SciPy's handling of lengths and shapes at the edges: a segment longer than the signal cut
/// to it, stft's times for an odd segment, istft's segment length from the frequencies
/// alone, csd broadcasting the other axes.
fn scipy_edges(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 100usize;
        let x = rvec(&mut rng, 2 * n);
        let x0 = &x[..n];
        let xa = Array::from_slice(x0, &[n])?;
        // nperseg 200 of 100 values: one segment of 100, overlap 50 (SciPy warns).
        let s = Seg {
            win: hann(n),
            noverlap: n / 2,
            nfft: n,
            detrend: 1,
            onesided: true,
        };
        let (f, got) = signal::welch_with(&xa, &WelchOpts::new().nperseg(200))?;
        assert_eq!(f.len(), n / 2 + 1);
        close(
            &got.to_vec()?,
            &welch_ref(x0, &s, 1.0, true, false),
            1e-9,
            1e-14,
            "welch, nperseg above the length",
        )?;
        // stft of 5 values with nperseg 8: the length cut before the extension of 2 each side.
        let x5 = Array::from_slice(&x[..5], &[5])?;
        let (f, t, z) = signal::stft_with(
            &x5,
            &StftOpts::new().nperseg(8).boundary(Some(Extension::Even)),
        )?;
        assert_eq!(
            (f.len(), z.shape()),
            (3, &[3, 3][..]),
            "stft of 5 values, nperseg 8"
        );
        assert_eq!(t, [0.0, 3.0, 6.0]);
        // An odd segment after an extension: times from 0 in steps of `step / fs`.
        let (_, t, _) = signal::stft_with(&xa, &StftOpts::new().nperseg(31).fs(2.0))?;
        let step = 31 - 31 / 2;
        for (i, ti) in t.iter().enumerate() {
            assert!(
                (ti - (i * step) as f64 / 2.0).abs() < 1e-12,
                "stft time {i}: {ti}"
            );
        }
        // istft of 17 frequencies with nfft 34: nperseg 2 (17 - 1) = 32, whatever nfft.
        let (_, _, z) = signal::stft_with(&xa, &StftOpts::new().nperseg(32))?;
        let nseg = z.shape()[1];
        let (tt, y) = signal::istft_with(&z, &IstftOpts::new().nfft(34))?;
        let m = 32 + (nseg - 1) * 16 - 32;
        assert_eq!((y.shape(), tt.len()), (&[m][..], m), "istft with nfft 34");
        // csd of x [2, n] with y [n]: each row against y, from the definition.
        let y: Vec<f64> = (0..n).map(|i| x0[(i + 7) % n] * 0.5 + x[n + i]).collect();
        let x2 = Array::from_slice(&x, &[2, n])?;
        let o = WelchOpts::new().nperseg(32);
        let s = Seg {
            win: hann(32),
            noverlap: 16,
            nfft: 32,
            detrend: 1,
            onesided: true,
        };
        let (_, got) = signal::csd_with(&x2, &Array::from_slice(&y, &[n])?, &o)?;
        assert_eq!(got.shape(), &[2, 17]);
        let got = got.to_vec()?;
        let sc = scales(&s, 1.0, true, 17);
        let zy = seg_dft(&y, &s);
        for r in 0..2 {
            let zx = seg_dft(&x[r * n..(r + 1) * n], &s);
            for k in 0..17 {
                let sum: c64 = zx.iter().zip(&zy).map(|(a, b)| a[k].conj() * b[k]).sum();
                let want = sum * (sc[k] / zx.len() as f64);
                let g = got[r * 17 + k];
                if (g - want).norm() > 1e-9 * want.norm() + 1e-13 {
                    return Err(format!("csd broadcast row {r} bin {k}: {g} vs {want}").into());
                }
            }
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("scipy_edges", scipy_edges),
    ("welch_random", welch_random),
    ("periodogram_identities", periodogram_identities),
    ("csd_coherence", csd_coherence),
    ("stft_reference", stft_reference),
    ("istft_roundtrip", istft_roundtrip),
    ("spectrogram_reference", spectrogram_reference),
    ("spectral_bad_input", spectral_bad_input),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::signal_spectral::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::signal_spectral::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
