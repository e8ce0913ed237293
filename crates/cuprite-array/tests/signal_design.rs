//! IIR design (`butter`, `cheby1` and their second-order sections) checked against what the
//! designs must be, derived here: the magnitude responses `1 / (1 + (W / Wc)^2N)` and `1 / (1 +
//! eps^2 T_N(W / Wc)^2)` with `W = tan(w / 2)` (the bilinear transform's frequency warping),
//! hence -3 dB and `-rp` dB at the cutoff and the DC gains; all zeros at `z = -1` (low-pass) or
//! `z = 1` (high-pass); poles inside the unit circle (the Schur-Cohn step-down test).
//! `sosfiltfilt` and the IIR `decimate` against an f64 `filtfilt` written here from SciPy's
//! definition (odd extension, `lfilter_zi` steady state, forward and backward passes), and a
//! sum of two tones that decimation must split. Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::signal::{
    self, BandType, DecimateOpts, butter, butter_sos, cheby1, cheby1_sos, decimate_with,
    sosfiltfilt,
};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::f64::consts::PI;

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// `|H(e^{iw})|^2` of `(b, a)`.
fn gain2(b: &[f64], a: &[f64], w: f64) -> f64 {
    let eval = |c: &[f64]| {
        let (mut re, mut im) = (0.0, 0.0);
        for (k, &v) in c.iter().enumerate() {
            re += v * (w * k as f64).cos();
            im -= v * (w * k as f64).sin();
        }
        re * re + im * im
    };
    eval(b) / eval(a)
}

/// Whether every root of the polynomial `a` (in `z^-1`, `a[0] != 0`) lies inside the unit
/// circle: the Schur-Cohn step-down recursion's reflection coefficients all below 1.
fn stable(a: &[f64]) -> bool {
    let mut c: Vec<f64> = a.iter().map(|v| v / a[0]).collect();
    while c.len() > 1 {
        let m = c.len() - 1;
        let k = c[m];
        if k.abs() >= 1.0 {
            return false;
        }
        c = (0..m)
            .map(|i| (c[i] - k * c[m - i]) / (1.0 - k * k))
            .collect();
    }
    true
}

/// The Chebyshev polynomial `T_n(x)` for `x >= 0`.
fn cheb(n: usize, x: f64) -> f64 {
    if x <= 1.0 {
        (n as f64 * x.acos()).cos()
    } else {
        (n as f64 * x.acosh()).cosh()
    }
}

fn binom(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The product of the sections' `|H|^2`.
fn sos_gain2(sos: &[[f64; 6]], w: f64) -> f64 {
    sos.iter().map(|s| gain2(&s[..3], &s[3..], w)).product()
}

/// Checks one design against its magnitude response `want(W / Wc)`.
fn check_design(
    what: &str,
    (b, a): &(Vec<f64>, Vec<f64>),
    sos: &[[f64; 6]],
    n: usize,
    wn: f64,
    btype: BandType,
    want: &dyn Fn(f64) -> f64,
) -> TestResult {
    if b.len() != n + 1 || a.len() != n + 1 || (a[0] - 1.0).abs() > 1e-15 {
        return Err(format!(
            "{what}: {} and {} coefficients, a[0] = {}",
            b.len(),
            a.len(),
            a[0]
        )
        .into());
    }
    if !stable(a) {
        return Err(format!("{what}: a pole on or outside the unit circle (a = {a:?})").into());
    }
    // All zeros at z = -1 (low-pass) or z = 1 (high-pass): b is b0 times (1 +- z^-1)^n.
    let sign: f64 = if btype == BandType::Lowpass {
        1.0
    } else {
        -1.0
    };
    let bz: Vec<f64> = (0..=n)
        .map(|k| b[0] * binom(n, k) * sign.powi(k as i32))
        .collect();
    close(b, &bz, 1e-9, 1e-14, &format!("{what}: zeros"))?;
    let wc = (PI * wn / 2.0).tan();
    for i in 1..64 {
        let w = PI * i as f64 / 64.0;
        let r = (w / 2.0).tan() / wc;
        let r = if btype == BandType::Lowpass {
            r
        } else {
            1.0 / r
        };
        let g = want(r);
        // The expanded (b, a) of a low cutoff is ill-conditioned (poles clustered near z = 1):
        // coefficients rounded by `e` move |H|^2 by up to `2 e (sum|b| / |B| + sum|a| / |A|)`
        // times itself, where the sections keep 1e-12.
        let got = gain2(b, a, w);
        let cond = |c: &[f64]| c.iter().map(|v| v.abs()).sum::<f64>() / gain2(c, &[1.0], w).sqrt();
        let tol = 1e-14 * (cond(b) + cond(a)) * g + 1e-12;
        if (got - g).abs() > tol {
            return Err(format!("{what}: |H|^2 at w = {w}: {got}, expected {g}").into());
        }
        let gs = sos_gain2(sos, w);
        if (gs - g).abs() > 1e-9 * (1.0 + g) {
            return Err(format!("{what}: sections' |H|^2 at w = {w}: {gs}, expected {g}").into());
        }
    }
    if sos.len() != n.div_ceil(2) || sos.iter().any(|s| s[3] != 1.0 || !stable(&s[3..])) {
        return Err(format!("{what}: sections {sos:?}").into());
    }
    Ok(())
}

fn designs(_d: Device) -> TestResult {
    for btype in [BandType::Lowpass, BandType::Highpass] {
        for n in 1..=9usize {
            for wn in [0.05, 0.2, 0.5, 0.77] {
                let what = format!("butter({n}, {wn}, {btype:?})");
                let ba = butter(n, wn, btype)?;
                let sos = butter_sos(n, wn, btype)?;
                let want = |r: f64| 1.0 / (1.0 + r.powi(2 * n as i32));
                check_design(&what, &ba, &sos, n, wn, btype, &want)?;
                // -3 dB at the cutoff; DC (low-pass) or Nyquist (high-pass) gain 1 (of the
                // sections, the well-conditioned form).
                let g = sos_gain2(&sos, PI * wn);
                assert!((g - 0.5).abs() < 1e-12, "{what}: {g} at the cutoff");
                let edge = if btype == BandType::Lowpass { 0.0 } else { PI };
                let e = sos_gain2(&sos, edge);
                assert!((e - 1.0).abs() < 1e-12, "{what}: {e} at the edge");
                for rp in [0.05, 0.5, 3.0] {
                    let what = format!("cheby1({n}, {rp}, {wn}, {btype:?})");
                    let ba = cheby1(n, rp, wn, btype)?;
                    let sos = cheby1_sos(n, rp, wn, btype)?;
                    let eps2 = 10f64.powf(rp / 10.0) - 1.0;
                    let want = |r: f64| 1.0 / (1.0 + eps2 * cheb(n, r).powi(2));
                    check_design(&what, &ba, &sos, n, wn, btype, &want)?;
                    // -rp dB at the cutoff; at DC (or Nyquist) 1 for odd n, -rp dB for even n.
                    let db = |g2: f64| 10.0 * g2.log10();
                    let g = db(sos_gain2(&sos, PI * wn));
                    assert!((g + rp).abs() < 1e-10, "{what}: {g} dB at the cutoff");
                    let e = db(sos_gain2(&sos, edge));
                    let want_e = if n % 2 == 1 { 0.0 } else { -rp };
                    assert!((e - want_e).abs() < 1e-10, "{what}: {e} dB at the edge");
                }
            }
        }
    }
    assert_err(
        butter(0, 0.3, BandType::Lowpass),
        "InvalidArgument",
        "not 0",
    );
    assert_err(
        butter(3, 1.0, BandType::Lowpass),
        "InvalidArgument",
        "cutoff 1",
    );
    assert_err(
        cheby1(3, 0.0, 0.3, BandType::Highpass),
        "InvalidArgument",
        "rp = 0",
    );
    assert_err(
        cheby1_sos(3, 1.0, -0.1, BandType::Lowpass),
        "InvalidArgument",
        "-0.1",
    );
    Ok(())
}

/// `lfilter` by its definition (direct form II transposed), from the states `zi`.
fn lfilter_ref(b: &[f64], a: &[f64], x: &[f64], zi: &[f64]) -> Vec<f64> {
    let k = b.len().max(a.len());
    let at = |c: &[f64], i: usize| c.get(i).copied().unwrap_or(0.0) / a[0];
    let mut z = zi.to_vec();
    z.resize(k, 0.0);
    x.iter()
        .map(|&v| {
            let y = at(b, 0) * v + z[0];
            for i in 0..k - 1 {
                z[i] = at(b, i + 1) * v - at(a, i + 1) * y + z[i + 1];
            }
            y
        })
        .collect()
}

/// SciPy's `lfilter_zi`: `(I - companion(a)^T) zi = b[1:] - a[1:] b[0]`, solved by Gaussian
/// elimination.
fn lfilter_zi_ref(b: &[f64], a: &[f64]) -> Vec<f64> {
    let k = b.len().max(a.len()) - 1;
    let at = |c: &[f64], i: usize| c.get(i).copied().unwrap_or(0.0) / a[0];
    let mut m = vec![vec![0.0; k + 1]; k];
    for i in 0..k {
        m[i][i] += 1.0;
        m[i][0] += at(a, i + 1);
        if i + 1 < k {
            m[i][i + 1] -= 1.0;
        }
        m[i][k] = at(b, i + 1) - at(a, i + 1) * at(b, 0);
    }
    for c in 0..k {
        let p = (c..k)
            .max_by(|&r, &s| m[r][c].abs().total_cmp(&m[s][c].abs()))
            .unwrap();
        m.swap(c, p);
        for r in 0..k {
            if r != c {
                let f = m[r][c] / m[c][c];
                for j in 0..=k {
                    m[r][j] -= f * m[c][j];
                }
            }
        }
    }
    (0..k).map(|i| m[i][k] / m[i][i]).collect()
}

/// SciPy's `filtfilt(b, a, x, padlen=pad)` of one signal.
fn filtfilt_ref(b: &[f64], a: &[f64], x: &[f64], pad: usize) -> Vec<f64> {
    let n = x.len();
    let mut ext: Vec<f64> = (0..pad).map(|i| 2.0 * x[0] - x[pad - i]).collect();
    ext.extend_from_slice(x);
    ext.extend((0..pad).map(|i| 2.0 * x[n - 1] - x[n - 2 - i]));
    let zi = lfilter_zi_ref(b, a);
    let scaled = |v: f64| zi.iter().map(|z| z * v).collect::<Vec<_>>();
    let mut y = lfilter_ref(b, a, &ext, &scaled(ext[0]));
    y.reverse();
    let mut y = lfilter_ref(b, a, &y, &scaled(y[0]));
    y.reverse();
    y[pad..pad + n].to_vec()
}

/// `sosfiltfilt` and the IIR `decimate` (`f64` and `f32`, two signals along axis 1 and along
/// axis 0) against the reference `filtfilt` of the same filter as `(b, a)`.
fn filtering(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 300usize;
        let x: Vec<f64> = (0..2 * n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
        let xa = Array::from_slice(&x, &[2, n])?;
        let xf = Array::from_slice(&x.iter().map(|&v| v as f32).collect::<Vec<_>>(), &[2, n])?;
        for (order, wn, btype) in [
            (4usize, 0.3, BandType::Lowpass),
            (5, 0.6, BandType::Highpass),
        ] {
            let (b, a) = butter(order, wn, btype)?;
            let sos = butter_sos(order, wn, btype)?;
            let pad = 3 * (order + 1);
            let y = sosfiltfilt(&sos, &xa, 1, None)?.to_vec()?;
            let yf: Vec<f64> = sosfiltfilt(&sos, &xf, -1, None)?
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect();
            let yt = sosfiltfilt(&sos, &xa.permute(&[1, 0])?, 0, Some(7))?
                .permute(&[1, 0])?
                .to_vec()?;
            for r in 0..2 {
                let row = &x[r * n..(r + 1) * n];
                let want = filtfilt_ref(&b, &a, row, pad);
                let what = format!("sosfiltfilt {order} {btype:?} row {r}");
                close(&y[r * n..(r + 1) * n], &want, 1e-9, 1e-10, &what)?;
                close(
                    &yf[r * n..(r + 1) * n],
                    &want,
                    1e-4,
                    1e-4,
                    &format!("{what} f32"),
                )?;
                close(
                    &yt[r * n..(r + 1) * n],
                    &filtfilt_ref(&b, &a, row, 7),
                    1e-9,
                    1e-10,
                    &format!("{what} padlen 7"),
                )?;
            }
        }
        // decimate: SciPy's order-8 Chebyshev I at 0.8 / q, zero phase or one pass.
        for q in [2usize, 5] {
            let (b, a) = cheby1(8, 0.05, 0.8 / q as f64, BandType::Lowpass)?;
            let y = decimate_with(&xa, q, &DecimateOpts::new())?;
            assert_eq!(y.shape(), &[2, n.div_ceil(q)]);
            let y = y.to_vec()?;
            let y1 = decimate_with(&xa, q, &DecimateOpts::new().zero_phase(false))?.to_vec()?;
            let yf: Vec<f64> =
                decimate_with(&xf.permute(&[1, 0])?, q, &DecimateOpts::new().axis(0))?
                    .permute(&[1, 0])?
                    .to_vec()?
                    .iter()
                    .map(|&v| v as f64)
                    .collect();
            let m = n.div_ceil(q);
            for r in 0..2 {
                let row = &x[r * n..(r + 1) * n];
                let want: Vec<f64> = filtfilt_ref(&b, &a, row, 27)
                    .into_iter()
                    .step_by(q)
                    .collect();
                let what = format!("decimate q {q} row {r}");
                // The order-8 (b, a) form of the reference rounds at about 1e-8 here.
                close(&y[r * m..(r + 1) * m], &want, 1e-7, 1e-7, &what)?;
                close(
                    &yf[r * m..(r + 1) * m],
                    &want,
                    2e-4,
                    2e-4,
                    &format!("{what} f32 axis 0"),
                )?;
                let want: Vec<f64> = lfilter_ref(&b, &a, row, &[])
                    .into_iter()
                    .step_by(q)
                    .collect();
                close(
                    &y1[r * m..(r + 1) * m],
                    &want,
                    1e-7,
                    1e-7,
                    &format!("{what} one pass"),
                )?;
            }
        }
        assert_err(sosfiltfilt(&[], &xa, 1, None), "InvalidArgument", "section");
        assert_err(
            sosfiltfilt(&butter_sos(2, 0.3, BandType::Lowpass)?, &xa, 1, Some(300)),
            "InvalidArgument",
            "padlen 300",
        );
        let short = Array::from_slice(&[1.0f64; 27], &[27])?;
        assert_err(signal::decimate(&short, 2), "InvalidArgument", "padlen 27");
        Ok(())
    })
}

/// A slow tone survives decimation by 4 and a fast one (above the new Nyquist frequency) is
/// removed: `sin(2 pi 0.02 t) + sin(2 pi 0.4 t)` becomes the slow tone at the kept samples.
fn two_tones(d: Device) -> TestResult {
    on(d, || {
        let n = 2000usize;
        let x: Vec<f32> = (0..n)
            .map(|t| {
                let t = t as f64;
                ((2.0 * PI * 0.02 * t).sin() + (2.0 * PI * 0.4 * t).sin()) as f32
            })
            .collect();
        let y = signal::decimate(&Array::from_slice(&x, &[n])?, 4)?.to_vec()?;
        assert_eq!(y.len(), 500);
        // Away from the ends: the pass band's gain lies within 2 x 0.05 dB of 1 (forward and
        // back), and the fast tone is attenuated far below 1e-3.
        for i in 50..450 {
            let want = (2.0 * PI * 0.02 * (4 * i) as f64).sin();
            let e = (y[i] as f64 - want).abs();
            assert!(e < 1.5e-2, "decimated tone at {i}: {} vs {want}", y[i]);
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[("filtering", filtering), ("two_tones", two_tones)];

pub fn tests() -> Vec<Test> {
    let mut v = vec![Test::cpu("cpu::signal_design::designs", || {
        designs(Device::CPU)
    })];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::signal_design::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::signal_design::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
