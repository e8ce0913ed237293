//! The `signal` module (N-d convolution and correlation, filters, windows, detrend, hilbert)
//! against f64 host references written here from the definitions (plain loops), and values
//! published in SciPy's documentation or worked by hand. Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, close};
use cuprite_array::signal::{
    self, ConvMethod, ConvMode, Detrend, Extension, FiltfiltOpts, Window, convolve, convolve_axes,
    correlate, filtfilt, filtfilt_with, lfilter, lfilter_zi, sosfilt, sosfiltfilt_with,
};
use cuprite_array::{Array, Device, c64};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn rvec(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect()
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The multi-index of flat index `f` in `shape`.
fn unflat(mut f: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        idx[i] = f % shape[i];
        f /= shape[i];
    }
    idx
}

/// SciPy's N-d convolution by its definition: the full convolution `sum_j h[j] x[k - j]`,
/// then the window of `mode` (`same`: `n` values from `(full - n) / 2`; `valid`: from `m - 1`).
fn conv_ref(
    x: &[f64],
    xs: &[usize],
    h: &[f64],
    hs: &[usize],
    mode: ConvMode,
) -> (Vec<f64>, Vec<usize>) {
    let nd = xs.len();
    let full: Vec<usize> = (0..nd).map(|i| xs[i] + hs[i] - 1).collect();
    let (start, out): (Vec<usize>, Vec<usize>) = (0..nd)
        .map(|i| match mode {
            ConvMode::Full => (0, full[i]),
            ConvMode::Same => ((full[i] - xs[i]) / 2, xs[i]),
            ConvMode::Valid => (hs[i] - 1, xs[i] - hs[i] + 1),
        })
        .unzip();
    let (sx, sh) = (strides(xs), strides(hs));
    let total: usize = out.iter().product();
    let hn: usize = hs.iter().product();
    let mut y = vec![0.0; total];
    for f in 0..total {
        let k = unflat(f, &out);
        let mut acc = 0.0;
        for g in 0..hn {
            let j = unflat(g, hs);
            let mut off = 0usize;
            let mut inside = true;
            for i in 0..nd {
                let p = (k[i] + start[i]) as isize - j[i] as isize;
                if p < 0 || p as usize >= xs[i] {
                    inside = false;
                    break;
                }
                off += p as usize * sx[i];
            }
            if inside {
                let hoff: usize = (0..nd).map(|i| j[i] * sh[i]).sum();
                acc += h[hoff] * x[off];
            }
        }
        y[f] = acc;
    }
    (y, out)
}

/// The 1-D correlation by its definition: lag `k - (m - 1)`, `c[k] = sum_j x[j + lag]
/// conj(h[j])`, then `mode`'s window as SciPy centres it.
fn corr_ref(x: &[c64], h: &[c64], mode: ConvMode) -> Vec<c64> {
    let (n, m) = (x.len(), h.len());
    let full: Vec<c64> = (0..n + m - 1)
        .map(|k| {
            let lag = k as isize - (m as isize - 1);
            let mut acc = c64::new(0.0, 0.0);
            for j in 0..m {
                let p = j as isize + lag;
                if p >= 0 && (p as usize) < n {
                    acc += x[p as usize] * h[j].conj();
                }
            }
            acc
        })
        .collect();
    match mode {
        ConvMode::Full => full,
        ConvMode::Same => full[(m - 1) / 2..(m - 1) / 2 + n].to_vec(),
        ConvMode::Valid => full[m - 1..n].to_vec(),
    }
}

const MODES: [ConvMode; 3] = [ConvMode::Full, ConvMode::Same, ConvMode::Valid];
const METHODS: [ConvMethod; 4] = [
    ConvMethod::Direct,
    ConvMethod::Fft,
    ConvMethod::OverlapAdd,
    ConvMethod::Auto,
];

fn conv_published(d: Device) -> TestResult {
    on(d, || {
        let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
        let v = Array::from_slice(&[0.0f64, 1.0, 0.5], &[3])?;
        // NumPy's/SciPy's documented values.
        for m in METHODS {
            let g = convolve(&a, &v, ConvMode::Full, m)?.to_vec()?;
            close(
                &g,
                &[0.0, 1.0, 2.5, 4.0, 1.5],
                1e-12,
                1e-12,
                "convolve full",
            )?;
            let g = convolve(&a, &v, ConvMode::Same, m)?.to_vec()?;
            close(&g, &[1.0, 2.5, 4.0], 1e-12, 1e-12, "convolve same")?;
            let g = correlate(&a, &v, ConvMode::Same, m)?.to_vec()?;
            close(&g, &[2.0, 3.5, 3.0], 1e-12, 1e-12, "correlate same")?;
            let g = correlate(&a, &v, ConvMode::Full, m)?.to_vec()?;
            close(
                &g,
                &[0.5, 2.0, 3.5, 3.0, 0.0],
                1e-12,
                1e-12,
                "correlate full",
            )?;
        }
        // SciPy's valid mode swaps when the second input is the larger.
        let s = Array::from_slice(&[1.0f64, 2.0], &[2])?;
        let l = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
        let g = convolve(&s, &l, ConvMode::Valid, ConvMethod::Direct)?.to_vec()?;
        close(&g, &[4.0, 7.0, 10.0], 0.0, 0.0, "swapped valid")?;
        // correlate(s, l, valid) = reverse(correlate(l, s)) = [11, 8, 5].
        let g = correlate(&s, &l, ConvMode::Valid, ConvMethod::Direct)?.to_vec()?;
        close(&g, &[11.0, 8.0, 5.0], 0.0, 0.0, "swapped correlate")?;
        Ok(())
    })
}

fn conv_random_nd(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let cases: &[(&[usize], &[usize])] = &[
            (&[40], &[7]),
            (&[9], &[4]),
            (&[2100], &[130]),
            (&[6, 9], &[3, 4]),
            (&[11, 5], &[4, 5]),
            (&[5, 6, 7], &[2, 3, 4]),
            (&[1, 12], &[1, 3]),
        ];
        for &(xs, hs) in cases {
            let (x, h) = (
                rvec(&mut rng, xs.iter().product()),
                rvec(&mut rng, hs.iter().product()),
            );
            let (xa, ha) = (Array::from_slice(&x, xs)?, Array::from_slice(&h, hs)?);
            let scale: f64 = x.iter().map(|v| v.abs()).sum::<f64>();
            for mode in MODES {
                let (want, shape) = conv_ref(&x, xs, &h, hs, mode);
                for m in METHODS {
                    let y = convolve(&xa, &ha, mode, m)?;
                    if y.shape() != shape.as_slice() {
                        return Err(format!(
                            "{xs:?}*{hs:?} {mode:?} {m:?}: shape {:?}, want {shape:?}",
                            y.shape()
                        )
                        .into());
                    }
                    let tol = if m == ConvMethod::Direct {
                        1e-12
                    } else {
                        1e-11 * scale
                    };
                    close(
                        &y.to_vec()?,
                        &want,
                        1e-12,
                        tol,
                        &format!("{xs:?}*{hs:?} {mode:?} {m:?}"),
                    )?;
                }
                // f32 and f16, direct.
                let y = convolve(&xa.cast::<f32>(), &ha.cast::<f32>(), mode, ConvMethod::Auto)?;
                let g: Vec<f64> = y.to_vec()?.iter().map(|&v| v as f64).collect();
                close(
                    &g,
                    &want,
                    1e-4,
                    1e-4,
                    &format!("f32 {xs:?}*{hs:?} {mode:?}"),
                )?;
            }
        }
        // f16: computed in f32, rounded once.
        let x = rvec(&mut rng, 30);
        let h = rvec(&mut rng, 5);
        let (want, _) = conv_ref(&x, &[30], &h, &[5], ConvMode::Same);
        let xa = Array::from_slice(&x, &[30])?.cast::<cuprite_array::f16>();
        let ha = Array::from_slice(&h, &[5])?.cast::<cuprite_array::f16>();
        let g: Vec<f64> = convolve(&xa, &ha, ConvMode::Same, ConvMethod::Direct)?
            .cast::<f64>()
            .to_vec()?;
        close(&g, &want, 5e-3, 5e-3, "f16")?;
        Ok(())
    })
}

fn conv_axes_batched(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // x [3, 5, 8] convolved over axes 0 and 2 with h [2, 3], batched over axis 1.
        let (xs, hs) = ([3usize, 5, 8], [2usize, 3]);
        let x = rvec(&mut rng, 120);
        let h = rvec(&mut rng, 6);
        let (xa, ha) = (Array::from_slice(&x, &xs)?, Array::from_slice(&h, &hs)?);
        for mode in MODES {
            for m in [ConvMethod::Direct, ConvMethod::Fft] {
                let y = convolve_axes(&xa, &ha, &[0, -1], mode, m)?;
                let ys = y.shape().to_vec();
                let yv = y.to_vec()?;
                for b in 0..5 {
                    let xb: Vec<f64> = (0..3)
                        .flat_map(|i| (0..8).map(move |k| (i, k)))
                        .map(|(i, k)| x[(i * 5 + b) * 8 + k])
                        .collect();
                    let (want, shape) = conv_ref(&xb, &[3, 8], &h, &hs, mode);
                    if ys != [shape[0], 5, shape[1]] {
                        return Err(format!("axes shape {ys:?} for {shape:?}").into());
                    }
                    let got: Vec<f64> = (0..shape[0])
                        .flat_map(|i| (0..shape[1]).map(move |k| (i, k)))
                        .map(|(i, k)| yv[(i * 5 + b) * shape[1] + k])
                        .collect();
                    close(
                        &got,
                        &want,
                        1e-12,
                        1e-12,
                        &format!("axes {mode:?} {m:?} batch {b}"),
                    )?;
                }
            }
        }
        // ArrayFire's convolve1 over rows, and convolve2_sep against the outer product.
        let img = rvec(&mut rng, 7 * 9);
        let (col, row) = (rvec(&mut rng, 3), rvec(&mut rng, 4));
        let outer: Vec<f64> = col
            .iter()
            .flat_map(|c| row.iter().map(move |r| c * r))
            .collect();
        let ia = Array::from_slice(&img, &[7, 9])?;
        for mode in MODES {
            let (want, _) = conv_ref(&img, &[7, 9], &outer, &[3, 4], mode);
            let got = signal::convolve2_sep(
                &Array::from_slice(&col, &[3])?,
                &Array::from_slice(&row, &[4])?,
                &ia,
                mode,
                ConvMethod::Auto,
            )?
            .to_vec()?;
            close(
                &got,
                &want,
                1e-12,
                1e-12,
                &format!("convolve2_sep {mode:?}"),
            )?;
            let got = signal::convolve2(
                &ia,
                &Array::from_slice(&outer, &[3, 4])?,
                mode,
                ConvMethod::Direct,
            )?
            .to_vec()?;
            close(&got, &want, 1e-12, 1e-12, &format!("convolve2 {mode:?}"))?;
        }
        // fir: the first n values of the full convolution along the last axis.
        let (want, _) = conv_ref(&img[..9], &[9], &row, &[4], ConvMode::Full);
        let got = signal::fir(&Array::from_slice(&row, &[4])?, &ia)?.to_vec()?;
        close(&got[..9], &want[..9], 1e-12, 1e-12, "fir")?;
        Ok(())
    })
}

fn conv_methods_agree(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // A long signal and kernel: direct, FFT and overlap-add within the FFT's bound
        // 1e-10 sum|x| max|h| (f64) and 1e-5 sum|x| max|h| (f32).
        let (n, m) = (5000usize, 700usize);
        let (x, h) = (rvec(&mut rng, n), rvec(&mut rng, m));
        let bound = 1e-10 * x.iter().map(|v| v.abs()).sum::<f64>();
        let (xa, ha) = (Array::from_slice(&x, &[n])?, Array::from_slice(&h, &[m])?);
        for mode in MODES {
            let (want, _) = conv_ref(&x, &[n], &h, &[m], mode);
            for meth in [ConvMethod::Direct, ConvMethod::Fft, ConvMethod::OverlapAdd] {
                let g = convolve(&xa, &ha, mode, meth)?.to_vec()?;
                close(&g, &want, 0.0, bound, &format!("{mode:?} {meth:?}"))?;
                let g32: Vec<f64> = convolve(&xa.cast::<f32>(), &ha.cast::<f32>(), mode, meth)?
                    .to_vec()?
                    .iter()
                    .map(|&v| v as f64)
                    .collect();
                close(
                    &g32,
                    &want,
                    0.0,
                    1e5 * bound,
                    &format!("f32 {mode:?} {meth:?}"),
                )?;
            }
        }
        Ok(())
    })
}

fn conv_complex(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (n, m) = (23usize, 6usize);
        let x: Vec<c64> = (0..n)
            .map(|_| c64::new(rng.f32_in(-1.0, 1.0) as f64, rng.f32_in(-1.0, 1.0) as f64))
            .collect();
        let h: Vec<c64> = (0..m)
            .map(|_| c64::new(rng.f32_in(-1.0, 1.0) as f64, rng.f32_in(-1.0, 1.0) as f64))
            .collect();
        let (xa, ha) = (Array::from_slice(&x, &[n])?, Array::from_slice(&h, &[m])?);
        for mode in MODES {
            let want = corr_ref(&x, &h, mode);
            for meth in [ConvMethod::Direct, ConvMethod::Fft] {
                let g = correlate(&xa, &ha, mode, meth)?.to_vec()?;
                let (gr, gi): (Vec<f64>, Vec<f64>) = g.iter().map(|z| (z.re, z.im)).unzip();
                let (wr, wi): (Vec<f64>, Vec<f64>) = want.iter().map(|z| (z.re, z.im)).unzip();
                close(
                    &gr,
                    &wr,
                    1e-12,
                    1e-12,
                    &format!("complex re {mode:?} {meth:?}"),
                )?;
                close(
                    &gi,
                    &wi,
                    1e-12,
                    1e-12,
                    &format!("complex im {mode:?} {meth:?}"),
                )?;
            }
        }
        Ok(())
    })
}

fn conv_bad_input(d: Device) -> TestResult {
    on(d, || {
        let x = Array::from_slice(&[1.0f64; 6], &[2, 3])?;
        let long = Array::from_slice(&[1.0f64; 4], &[4])?;
        let e = convolve_axes(&x, &long, &[1], ConvMode::Valid, ConvMethod::Auto).unwrap_err();
        assert!(e.to_string().contains("kernel 4 > signal 3"), "{e}");
        let empty = Array::<f64>::zeros(&[0]);
        assert!(convolve(&long, &empty, ConvMode::Full, ConvMethod::Auto).is_err());
        assert!(convolve(&x, &long, ConvMode::Full, ConvMethod::Auto).is_err());
        assert!(convolve_axes(&x, &long, &[2], ConvMode::Full, ConvMethod::Auto).is_err());
        assert!(convolve_axes(&x, &x, &[0, 0], ConvMode::Full, ConvMethod::Auto).is_err());
        let odd = Array::from_slice(&[1.0f64; 6], &[3, 2])?;
        assert!(convolve(&x, &odd, ConvMode::Valid, ConvMethod::Auto).is_err());
        let four = Array::from_slice(&[1.0f64; 16], &[2, 2, 2, 2])?;
        assert!(convolve(&four, &four, ConvMode::Full, ConvMethod::Auto).is_err());
        let xs = Array::from_slice(&[1.0f64, 2.0], &[2])?;
        let e = lfilter(&[1.0], &[0.0, 1.0], &xs, 0, None).unwrap_err();
        assert!(e.to_string().contains("a[0] is 0"), "{e}");
        assert!(lfilter(&[], &[1.0], &xs, 0, None).is_err());
        assert!(lfilter(&[1.0], &[1.0, 0.5], &empty, 0, None).is_err());
        let zi = Array::from_slice(&[0.0f64, 0.0], &[2])?;
        let e = lfilter(&[1.0], &[1.0, 0.5], &xs, 0, Some(&zi)).unwrap_err();
        assert!(e.to_string().contains("zi has shape [2]"), "{e}");
        assert!(filtfilt(&[1.0, 1.0], &[1.0, 0.5], &xs, 0, None).is_err());
        // Orders above 8 run on the CPU; CUDA's kernels refuse them by name.
        let mut high = vec![1.0; 10];
        high[1] = 0.1;
        let r = lfilter(&[1.0], &high, &xs, 0, None).and_then(|(y, _)| y.to_vec());
        if d == Device::CPU {
            r?;
        } else {
            let e = r.unwrap_err();
            assert!(e.to_string().contains("order up to 8"), "{e}");
        }
        assert!(signal::get_window::<f64>(Window::Gaussian(0.0), 4, true).is_err());
        // More points than the address space (periodic: one more) or the host's memory hold.
        for (n, fft) in [(usize::MAX, true), (usize::MAX, false), (1 << 40, false)] {
            let e = signal::get_window::<f64>(Window::Hann, n, fft).unwrap_err();
            let m = e.to_string();
            assert!(m.contains(&format!("{n} points")), "{m}");
        }
        assert!(Window::from_name("nope").is_err());
        Ok(())
    })
}

/// Columns `lo..hi` of a matrix.
fn cols(x: &Array<f64>, lo: usize, hi: usize) -> Result<Array<f64>, cuprite_array::Error> {
    use cuprite_array::shape::SliceArg;
    let all = SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    };
    let r = SliceArg::Range {
        start: Some(lo as isize),
        end: Some(hi as isize),
        step: 1,
    };
    x.slice(&[all, r])
}

/// The filter by its difference equation, `a0 y[n] = sum b[k] x[n-k] - sum_{k>=1} a[k] y[n-k]`,
/// from rest.
fn lfilter_ref(b: &[f64], a: &[f64], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for n in 0..x.len() {
        let mut acc = 0.0;
        for (k, bk) in b.iter().enumerate() {
            if n >= k {
                acc += bk * x[n - k];
            }
        }
        for (k, ak) in a.iter().enumerate().skip(1) {
            if n >= k {
                acc -= ak * y[n - k];
            }
        }
        y[n] = acc / a[0];
    }
    y
}

fn lfilter_random(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // Stable filters: poles 0.9, -0.5 ± 0.3i, 0.7 (a from the roots).
        let filters: &[(&[f64], &[f64])] = &[
            (&[0.5, 0.25], &[1.0, -0.9]),
            (&[1.0, -0.4, 0.3], &[2.0, 2.0, 0.68]),
            (&[0.2, 0.1, 0.3, -0.1], &[1.0, -0.7]),
            (&[1.0], &[1.0, -1.6, 0.63]),
        ];
        for &(b, a) in filters {
            for n in [1usize, 17, 300, 5000] {
                let x = rvec(&mut rng, 3 * n);
                let xa = Array::from_slice(&x, &[3, n])?;
                let (y, _) = lfilter(b, a, &xa, 1, None)?;
                let want: Vec<f64> = x.chunks(n).flat_map(|r| lfilter_ref(b, a, r)).collect();
                close(
                    &y.to_vec()?,
                    &want,
                    1e-10,
                    1e-10,
                    &format!("lfilter {b:?}/{a:?} n={n}"),
                )?;
                // Along axis 0 of the transpose.
                let (yt, _) = lfilter(b, a, &xa.permute(&[1, 0])?, 0, None)?;
                close(
                    &yt.permute(&[1, 0])?.to_vec()?,
                    &want,
                    1e-10,
                    1e-10,
                    "lfilter axis 0",
                )?;
                // f32.
                let (y32, _) = lfilter(b, a, &xa.cast::<f32>(), -1, None)?;
                let g: Vec<f64> = y32.to_vec()?.iter().map(|&v| v as f64).collect();
                close(&g, &want, 1e-3, 1e-3, &format!("lfilter f32 n={n}"))?;
                // zi/zf: filtering in two pieces, the second from the first's final state.
                if n > 2 {
                    let h = n / 2;
                    let order = a.len().max(b.len()) - 1;
                    let z0 = Array::<f64>::zeros(&[3, order]);
                    let first = cols(&xa, 0, h)?;
                    let second = cols(&xa, h, n)?;
                    let (y1, zf) = lfilter(b, a, &first, 1, Some(&z0))?;
                    let (y2, _) = lfilter(b, a, &second, 1, zf.as_ref())?;
                    let joined = Array::concat(&[&y1, &y2], 1)?.to_vec()?;
                    close(&joined, &want, 1e-10, 1e-10, &format!("lfilter zi n={n}"))?;
                }
            }
        }
        // One long signal (several chunks per carry thread on CUDA).
        let n = 200_000;
        let x = rvec(&mut rng, n);
        let (b, a) = ([0.1, 0.2], [1.0, -1.6, 0.63]);
        let (y, _) = lfilter(&b, &a, &Array::from_slice(&x, &[n])?, 0, None)?;
        close(
            &y.to_vec()?,
            &lfilter_ref(&b, &a, &x),
            1e-9,
            1e-9,
            "lfilter long",
        )?;
        Ok(())
    })
}

/// The steady state of a unit step by iterating the transposed direct form II from rest.
fn zi_ref(b: &[f64], a: &[f64]) -> Vec<f64> {
    let k = a.len().max(b.len()) - 1;
    let bt: Vec<f64> = (0..=k)
        .map(|i| b.get(i).copied().unwrap_or(0.0) / a[0])
        .collect();
    let at: Vec<f64> = (0..=k)
        .map(|i| a.get(i).copied().unwrap_or(0.0) / a[0])
        .collect();
    let mut z = vec![0.0; k];
    for _ in 0..20000 {
        let y = bt[0] + z[0];
        for i in 0..k {
            let next = if i + 1 < k { z[i + 1] } else { 0.0 };
            z[i] = bt[i + 1] + next - at[i + 1] * y;
        }
    }
    z
}

fn filtfilt_sos(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (b, a) = ([0.2, 0.3, 0.1], [1.0, -0.5, 0.2]);
        let zi = lfilter_zi::<f64>(&b, &a)?.to_vec()?;
        close(&zi, &zi_ref(&b, &a), 1e-10, 1e-10, "lfilter_zi")?;
        // Leading zeros of `a` dropped first, as SciPy drops them.
        let zi = lfilter_zi::<f64>(&b, &[0.0, 2.0, -1.0, 0.4])?.to_vec()?;
        close(
            &zi,
            &zi_ref(&b, &[2.0, -1.0, 0.4]),
            1e-10,
            1e-10,
            "lfilter_zi, a = [0, ...]",
        )?;
        assert!(lfilter_zi::<f64>(&b, &[0.0, 0.0]).is_err());
        // A filter of order 0 is a gain, applied both ways.
        let xs: Vec<f64> = rvec(&mut rng, 7);
        let g = filtfilt(&[3.0], &[1.5], &Array::from_slice(&xs, &[7])?, 0, None)?.to_vec()?;
        let want: Vec<f64> = xs.iter().map(|v| 4.0 * v).collect();
        close(&g, &want, 1e-14, 0.0, "filtfilt of order 0")?;
        // filtfilt by its definition: odd extension, forward from zi x[0], backward from
        // zi y[-1], the padding cut off.
        let n = 60;
        let x = rvec(&mut rng, n);
        let pad = 9;
        let mut ext: Vec<f64> = (0..pad).map(|i| 2.0 * x[0] - x[pad - i]).collect();
        ext.extend(&x);
        ext.extend((0..pad).map(|i| 2.0 * x[n - 1] - x[n - 2 - i]));
        let with_zi = |s: &[f64]| -> Vec<f64> {
            // A state z is the response to an input history; adding the step response from
            // zi * s[0] is the filter of s from that state (linearity).
            let z: Vec<f64> = zi_ref(&b, &a).iter().map(|v| v * s[0]).collect();
            let mut st = z;
            s.iter()
                .map(|&xv| {
                    let y = b[0] / a[0] * xv + st[0];
                    for i in 0..2 {
                        let next = if i + 1 < 2 { st[i + 1] } else { 0.0 };
                        st[i] = b[i + 1] / a[0] * xv + next - a[i + 1] / a[0] * y;
                    }
                    y
                })
                .collect()
        };
        let f = with_zi(&ext);
        let r: Vec<f64> = f.iter().rev().copied().collect();
        let bwd: Vec<f64> = with_zi(&r).into_iter().rev().collect();
        let want = &bwd[pad..pad + n];
        let got = filtfilt(&b, &a, &Array::from_slice(&x, &[n])?, 0, None)?.to_vec()?;
        close(&got, want, 1e-10, 1e-10, "filtfilt")?;
        // SciPy's other padtypes: even reflection, the end values, or no extension.
        for (how, name) in [
            (Some(Extension::Even), "even"),
            (Some(Extension::Constant), "constant"),
            (None, "none"),
        ] {
            let pad = if how.is_some() { 5 } else { 0 };
            let mut ext: Vec<f64> = (0..pad)
                .map(|i| match how {
                    Some(Extension::Even) => x[pad - i],
                    _ => x[0],
                })
                .collect();
            ext.extend(&x);
            ext.extend((0..pad).map(|i| match how {
                Some(Extension::Even) => x[n - 2 - i],
                _ => x[n - 1],
            }));
            let f = with_zi(&ext);
            let r: Vec<f64> = f.iter().rev().copied().collect();
            let bwd: Vec<f64> = with_zi(&r).into_iter().rev().collect();
            let o = FiltfiltOpts::new().axis(0).padtype(how).padlen(5);
            let xa = Array::from_slice(&x, &[n])?;
            let got = filtfilt_with(&b, &a, &xa, &o)?.to_vec()?;
            close(
                &got,
                &bwd[pad..pad + n],
                1e-10,
                1e-10,
                &format!("filtfilt {name}"),
            )?;
            // One section: sosfiltfilt is the same filter.
            let sos = [[b[0], b[1], b[2], a[0], a[1], a[2]]];
            let got = sosfiltfilt_with(&sos, &xa, &o)?.to_vec()?;
            close(
                &got,
                &bwd[pad..pad + n],
                1e-10,
                1e-10,
                &format!("sosfiltfilt {name}"),
            )?;
        }
        // sosfilt: the cascade of the sections' difference equations.
        let sos = [
            [0.3, 0.2, 0.1, 1.0, -0.4, 0.1],
            [1.0, -1.0, 0.5, 1.0, 0.3, 0.2],
        ];
        let mut want = x.clone();
        for s in &sos {
            want = lfilter_ref(&s[..3], &s[3..], &want);
        }
        let (got, _) = sosfilt(&sos, &Array::from_slice(&x, &[n])?, 0, None)?;
        close(&got.to_vec()?, &want, 1e-10, 1e-10, "sosfilt")?;
        let zi = Array::<f64>::zeros(&[2, 2]);
        let (_, zf) = sosfilt(&sos, &Array::from_slice(&x, &[n])?, 0, Some(&zi))?;
        assert_eq!(zf.expect("zf").shape(), &[2, 2]);
        Ok(())
    })
}

fn windows_published(d: Device) -> TestResult {
    on(d, || {
        let w = |win: Window, n: usize, fft: bool| -> Result<Vec<f64>, cuprite_array::Error> {
            signal::get_window::<f64>(win, n, fft)?.to_vec()
        };
        // SciPy's documented or hand-worked values.
        close(
            &w(Window::Hann, 4, true)?,
            &[0.0, 0.5, 1.0, 0.5],
            0.0,
            1e-15,
            "hann",
        )?;
        close(
            &w(Window::Hamming, 5, false)?,
            &[0.08, 0.54, 1.0, 0.54, 0.08],
            0.0,
            1e-15,
            "hamming",
        )?;
        close(
            &w(Window::Blackman, 5, false)?,
            &[0.0, 0.34, 1.0, 0.34, 0.0],
            0.0,
            1e-15,
            "blackman",
        )?;
        close(
            &w(Window::Bartlett, 5, false)?,
            &[0.0, 0.5, 1.0, 0.5, 0.0],
            0.0,
            1e-15,
            "bartlett",
        )?;
        close(
            &w(Window::Triang, 4, false)?,
            &[0.25, 0.75, 0.75, 0.25],
            0.0,
            1e-15,
            "triang 4",
        )?;
        close(
            &w(Window::Triang, 5, false)?,
            &[1.0 / 3.0, 2.0 / 3.0, 1.0, 2.0 / 3.0, 1.0 / 3.0],
            0.0,
            1e-15,
            "triang 5",
        )?;
        let g: Vec<f64> = [4.0f64, 1.0, 0.0, 1.0, 4.0]
            .iter()
            .map(|v| (-v / 2.0).exp())
            .collect();
        close(
            &w(Window::Gaussian(1.0), 5, false)?,
            &g,
            0.0,
            1e-15,
            "gaussian",
        )?;
        close(
            &w(Window::Tukey(0.5), 5, false)?,
            &[0.0, 1.0, 1.0, 1.0, 0.0],
            0.0,
            1e-15,
            "tukey",
        )?;
        let i0 = 1.266_065_877_752_008_4;
        close(
            &w(Window::Kaiser(1.0), 3, false)?,
            &[1.0 / i0, 1.0, 1.0 / i0],
            1e-14,
            0.0,
            "kaiser",
        )?;
        close(
            &w(Window::Kaiser(0.0), 4, true)?,
            &[1.0; 4],
            0.0,
            0.0,
            "kaiser 0",
        )?;
        let c: Vec<f64> = (0..4)
            .map(|n| (std::f64::consts::PI * (n as f64 + 0.5) / 4.0).sin())
            .collect();
        close(&w(Window::Cosine, 4, false)?, &c, 0.0, 1e-15, "cosine")?;
        close(&w(Window::Boxcar, 3, true)?, &[1.0; 3], 0.0, 0.0, "boxcar")?;
        close(&w(Window::Hann, 1, true)?, &[1.0], 0.0, 0.0, "one point")?;
        assert_eq!(Window::from_name("hanning")?, Window::Hann);
        Ok(())
    })
}

fn detrend_hilbert(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (rows, n) = (4usize, 50usize);
        let x = rvec(&mut rng, rows * n);
        let xa = Array::from_slice(&x, &[rows, n])?;
        // `s` less its least-squares line, from the normal equations; one value becomes 0.
        let fit = |s: &[f64]| -> Vec<f64> {
            let m = s.len() as f64;
            if s.len() == 1 {
                return vec![0.0];
            }
            let (mut st, mut sx, mut stt, mut stx) = (0.0, 0.0, 0.0, 0.0);
            for (t, &v) in s.iter().enumerate() {
                let t = t as f64;
                st += t;
                sx += v;
                stt += t * t;
                stx += t * v;
            }
            let slope = (m * stx - st * sx) / (m * stt - st * st);
            let icpt = (sx - slope * st) / m;
            s.iter()
                .enumerate()
                .map(|(t, v)| v - icpt - slope * t as f64)
                .collect()
        };
        let got = signal::detrend(&xa, 1, Detrend::Linear)?.to_vec()?;
        let gotc = signal::detrend(&xa.permute(&[1, 0])?, 0, Detrend::Constant)?
            .permute(&[1, 0])?
            .to_vec()?;
        for r in 0..rows {
            let s = &x[r * n..(r + 1) * n];
            close(
                &got[r * n..(r + 1) * n],
                &fit(s),
                1e-12,
                1e-12,
                "detrend linear",
            )?;
            let mean = s.iter().sum::<f64>() / n as f64;
            let want: Vec<f64> = s.iter().map(|v| v - mean).collect();
            close(
                &gotc[r * n..(r + 1) * n],
                &want,
                1e-12,
                1e-12,
                "detrend constant",
            )?;
        }
        // Breakpoints (SciPy's `bp`, here unsorted, repeated, and one at the end): each
        // stretch less its own line.
        let got = signal::detrend_breakpoints(&xa, -1, &[30, 10, 10, 49, 50])?.to_vec()?;
        for r in 0..rows {
            let s = &x[r * n..(r + 1) * n];
            let mut want = fit(&s[..10]);
            want.extend(fit(&s[10..30]));
            want.extend(fit(&s[30..49]));
            want.extend(fit(&s[49..]));
            close(
                &got[r * n..(r + 1) * n],
                &want,
                1e-11,
                1e-12,
                "detrend with breakpoints",
            )?;
        }
        assert!(signal::detrend_breakpoints(&xa, 1, &[51]).is_err());
        // hilbert by the DFT: X, zero negative frequencies, double positive ones, inverse.
        for n in [15usize, 16] {
            let x = rvec(&mut rng, n);
            let tw = |k: usize, j: usize| 2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
            let xf: Vec<c64> = (0..n)
                .map(|k| {
                    (0..n)
                        .map(|j| c64::new(x[j] * tw(k, j).cos(), -x[j] * tw(k, j).sin()))
                        .sum()
                })
                .collect();
            let h: Vec<f64> = (0..n)
                .map(|k| {
                    if k == 0 || 2 * k == n {
                        1.0
                    } else if 2 * k < n {
                        2.0
                    } else {
                        0.0
                    }
                })
                .collect();
            let want: Vec<c64> = (0..n)
                .map(|j| {
                    (0..n)
                        .map(|k| xf[k] * h[k] * c64::new(tw(k, j).cos(), tw(k, j).sin()))
                        .sum::<c64>()
                        / n as f64
                })
                .collect();
            let got = signal::hilbert(&Array::from_slice(&x, &[n])?, None, 0)?.to_vec()?;
            let (gr, gi): (Vec<f64>, Vec<f64>) = got.iter().map(|z| (z.re, z.im)).unzip();
            let (wr, wi): (Vec<f64>, Vec<f64>) = want.iter().map(|z| (z.re, z.im)).unzip();
            close(&gr, &wr, 1e-12, 1e-12, "hilbert re")?;
            close(&gi, &wi, 1e-12, 1e-12, "hilbert im")?;
        }
        Ok(())
    })
}

/// 2-D direct convolution in every mode, f64 and f32, against the definition, and bit for bit
/// against the CPU twin (the kernels sum in the twin's order): the tiled kernel's planes (a
/// kernel of length 1 along the outer axis, at most 16 along the two others) with sizes that
/// are not multiples of a tile, rows that hold whole 16-byte vectors (in `same` mode: vector
/// reads and writes, tiles inside the plane read without bounds checks) and rows that do
/// not, images that span several tiles each way, images smaller than the kernel, a 1x1
/// kernel, 1xN and Nx1 images, even extents, the largest tiled kernel, one past it (the line
/// kernel), a 3-D input whose outer axis folds into the planes, and a batch of
/// planes through `convolve_axes`.
fn conv_2d_tiled(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let cases: &[(&[usize], &[usize])] = &[
        (&[1, 1], &[1, 1]),
        (&[1, 37], &[1, 3]),
        (&[37, 1], &[3, 1]),
        (&[2, 4], &[2, 4]),
        (&[6, 10], &[2, 4]),
        (&[9, 11], &[1, 1]),
        (&[33, 70], &[3, 3]),
        (&[67, 300], &[7, 7]),
        (&[100, 520], &[7, 7]),
        (&[130, 260], &[7, 7]),
        (&[70, 516], &[3, 5]),
        (&[65, 129], &[3, 3]),
        (&[2, 3], &[7, 7]),
        (&[5, 6], &[7, 5]),
        (&[45, 19], &[5, 9]),
        (&[40, 261], &[16, 16]),
        (&[140, 136], &[16, 15]),
        (&[20, 30], &[17, 3]),
        (&[3, 13, 10], &[1, 3, 5]),
    ];
    for &(xs, hs) in cases {
        let (x, h) = (
            rvec(&mut rng, xs.iter().product()),
            rvec(&mut rng, hs.iter().product()),
        );
        let scale: f64 = h.iter().map(|v| v.abs()).sum::<f64>();
        for mode in MODES {
            if mode == ConvMode::Valid && xs.iter().zip(hs).any(|(n, m)| m > n) {
                continue;
            }
            let (want, shape) = conv_ref(&x, xs, &h, hs, mode);
            let what = format!("{xs:?}*{hs:?} {mode:?}");
            let run64 = || -> Result<(Vec<usize>, Vec<f64>), cuprite_array::Error> {
                let y = convolve(
                    &Array::from_slice(&x, xs)?,
                    &Array::from_slice(&h, hs)?,
                    mode,
                    ConvMethod::Direct,
                )?;
                Ok((y.shape().to_vec(), y.to_vec()?))
            };
            let run32 = || -> Result<Vec<f32>, cuprite_array::Error> {
                let y = convolve(
                    &Array::from_slice(&x, xs)?.cast::<f32>(),
                    &Array::from_slice(&h, hs)?.cast::<f32>(),
                    mode,
                    ConvMethod::Direct,
                )?;
                y.to_vec()
            };
            let (ys, g64) = on(d, run64)?;
            if ys != shape {
                return Err(format!("{what}: shape {ys:?}, want {shape:?}").into());
            }
            close(&g64, &want, 1e-12, 1e-12, &format!("f64 {what}"))?;
            let g32 = on(d, run32)?;
            let g: Vec<f64> = g32.iter().map(|&v| v as f64).collect();
            close(&g, &want, 1e-5, 1e-5 * scale, &format!("f32 {what}"))?;
            // The same sums on the CPU twin, bit for bit.
            let (_, c64v) = on(Device::CPU, run64)?;
            let c32 = on(Device::CPU, run32)?;
            let same64 = g64
                .iter()
                .zip(&c64v)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            let same32 = g32
                .iter()
                .zip(&c32)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            if !same64 || !same32 || c64v.len() != g64.len() || c32.len() != g32.len() {
                return Err(format!(
                    "{what}: not the CPU twin's bits (f64 {same64}, f32 {same32})"
                )
                .into());
            }
        }
    }
    // A batch of 3 planes [3, 21, 34] over the last two axes.
    let (xs, hs) = ([3usize, 21, 34], [5usize, 4]);
    let x = rvec(&mut rng, xs.iter().product());
    let h = rvec(&mut rng, 20);
    for mode in MODES {
        let y = on(
            d,
            || -> Result<(Vec<usize>, Vec<f64>), cuprite_array::Error> {
                let y = convolve_axes(
                    &Array::from_slice(&x, &xs)?,
                    &Array::from_slice(&h, &hs)?,
                    &[-2, -1],
                    mode,
                    ConvMethod::Direct,
                )?;
                Ok((y.shape().to_vec(), y.to_vec()?))
            },
        )?;
        let plane = 21 * 34;
        let mut want = Vec::new();
        let mut shape = Vec::new();
        for b in 0..3 {
            let (w, s) = conv_ref(&x[b * plane..(b + 1) * plane], &[21, 34], &h, &hs, mode);
            want.extend(w);
            shape = s;
        }
        if y.0 != [3, shape[0], shape[1]] {
            return Err(format!("batch {mode:?}: shape {:?} for {shape:?}", y.0).into());
        }
        close(&y.1, &want, 1e-12, 1e-12, &format!("batch {mode:?}"))?;
    }
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("conv_published", conv_published),
    ("conv_random_nd", conv_random_nd),
    ("conv_axes_batched", conv_axes_batched),
    ("conv_2d_tiled", conv_2d_tiled),
    ("conv_methods_agree", conv_methods_agree),
    ("conv_complex", conv_complex),
    ("conv_bad_input", conv_bad_input),
    ("lfilter_random", lfilter_random),
    ("filtfilt_sos", filtfilt_sos),
    ("windows_published", windows_published),
    ("detrend_hilbert", detrend_hilbert),
];

/// The tiled direct convolution on CUDA over an image of more tiles than a launch has blocks
/// resident at once (persistent blocks walk several tiles, loading the next tile's input while
/// they compute one): f32 7x7 in every mode and f64 5x5 `same`, bit for bit against the CPU
/// twin and against the f64 definition on the rows and columns around tile edges and at the
/// image's corners.
fn conv_2d_many_tiles() -> TestResult {
    let mut rng = Rng::fresh();
    let (xs, cases): ([usize; 2], [([usize; 2], bool); 2]) =
        ([2200, 2048], [([7, 7], true), ([5, 5], false)]);
    let x = rvec(&mut rng, xs[0] * xs[1]);
    for (hs, single) in cases {
        let h = rvec(&mut rng, hs[0] * hs[1]);
        let modes: &[ConvMode] = if single { &MODES } else { &[ConvMode::Same] };
        for &mode in modes {
            let run = |d: Device| -> Result<(Vec<usize>, Vec<f64>), cuprite_array::Error> {
                on(d, || {
                    let xa = Array::from_slice(&x, &xs)?;
                    let ha = Array::from_slice(&h, &hs)?;
                    if single {
                        let y = convolve(
                            &xa.cast::<f32>(),
                            &ha.cast::<f32>(),
                            mode,
                            ConvMethod::Direct,
                        )?;
                        Ok((
                            y.shape().to_vec(),
                            y.to_vec()?.iter().map(|&v| v as f64).collect(),
                        ))
                    } else {
                        let y = convolve(&xa, &ha, mode, ConvMethod::Direct)?;
                        Ok((y.shape().to_vec(), y.to_vec()?))
                    }
                })
            };
            let (shape, got) = run(Device::cuda(0))?;
            let (tshape, twin) = run(Device::CPU)?;
            let what = format!("{xs:?}*{hs:?} {mode:?} f{}", if single { 32 } else { 64 });
            if shape != tshape || got.len() != twin.len() {
                return Err(format!("{what}: shape {shape:?}, the twin's {tshape:?}").into());
            }
            if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != twin[i].to_bits()) {
                return Err(format!(
                    "{what}: output {i} is {} on CUDA, {} on the twin",
                    got[i], twin[i]
                )
                .into());
            }
            // The definition at rows and columns around multiples of 32 (every tile edge) and
            // at the image's edges.
            let near = |n: usize| -> Vec<usize> {
                (0..n)
                    .filter(|&k| k < 3 || k + 3 >= n || matches!(k % 32, 0 | 1 | 31))
                    .collect()
            };
            let (r0, r1) = ((hs[0] - 1) as isize, (hs[1] - 1) as isize);
            let (s0, s1) = match mode {
                ConvMode::Full => (0, 0),
                ConvMode::Same => (r0 / 2, r1 / 2),
                ConvMode::Valid => (r0, r1),
            };
            let (mut want, mut have) = (Vec::new(), Vec::new());
            for &k0 in &near(shape[0]) {
                for &k1 in &near(shape[1]) {
                    let mut acc = 0.0f64;
                    for j0 in 0..hs[0] as isize {
                        for j1 in 0..hs[1] as isize {
                            let (i0, i1) = (k0 as isize + s0 - j0, k1 as isize + s1 - j1);
                            if i0 >= 0 && i1 >= 0 && (i0 as usize) < xs[0] && (i1 as usize) < xs[1]
                            {
                                let hv = h[(j0 as usize) * hs[1] + j1 as usize];
                                let xv = x[i0 as usize * xs[1] + i1 as usize];
                                acc += if single {
                                    hv as f32 as f64 * (xv as f32 as f64)
                                } else {
                                    hv * xv
                                };
                            }
                        }
                    }
                    want.push(acc);
                    have.push(got[k0 * shape[1] + k1]);
                }
            }
            let scale: f64 = h.iter().map(|v| v.abs()).sum();
            let (rtol, atol) = if single {
                (1e-5, 1e-5 * scale)
            } else {
                (1e-12, 1e-12)
            };
            close(&have, &want, rtol, atol, &what)?;
        }
    }
    Ok(())
}

/// The direct convolution's and the IIR filter's kernels compile with NVRTC (no GPU): the
/// sources the bodies would build on CUDA, recorded by the dry-run backend.
fn signal_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        conv_random_nd(Device::CPU),
        conv_2d_tiled(Device::CPU),
        lfilter_random(Device::CPU),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| {
            s.contains("cuprite_conv_direct")
                || s.contains("cuprite_conv_tiled")
                || s.contains("cuprite_iir_")
        })
        .collect();
    for r in runs {
        r?;
    }
    for want in [
        "cuprite_conv_direct_f32",
        "cuprite_conv_direct_f64",
        "cuprite_conv_tiled_f32_7x7_b8r8g1_d1_v_p",
        "cuprite_conv_tiled_f32_7x7_b8r8g1_d2_p",
        "cuprite_conv_tiled_f64_7x7_b8r4g2_d1_v",
        "cuprite_conv_tiled_f32_16x16_b4r4g2_d0",
        "cuprite_conv_tiled_f64_16x16_b4r4g2_d1",
        "cuprite_conv_tiled_f32_1x1_b8r8g1_d0",
        "cuprite_conv_tiled_f32_3x5_b8r8g1_d2_v_p",
        "cuprite_iir_seg_f64_2",
        "cuprite_iir_carry_f32_2",
        "cuprite_iir_apply_f64_3",
    ] {
        if !sources.iter().any(|s| s.contains(want)) {
            return Err(format!("{want} was not recorded ({} sources)", sources.len()).into());
        }
    }
    crate::codegen::compile_all(&sources)
}

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc("codegen::signal_kernels_compile", signal_kernels_compile),
        Test::gpu("cuda::signal_conv::conv_2d_many_tiles", conv_2d_many_tiles),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::signal_conv::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::signal_conv::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
