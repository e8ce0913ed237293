//! Frequency responses of filters on the host, in `f64`: digital ones (SciPy's `freqz`,
//! `sosfreqz` and `group_delay`), the transfer function evaluated on the upper half of the
//! unit circle, `z = exp(i w)` for `w = pi k / n`, `k = 0..n`; analog ones (SciPy's `freqs`)
//! on the imaginary axis, `s = i w`.

use crate::dtype::c64;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// The most frequencies a response takes: `2^26` (a gigabyte of `c64`s and frequencies).
pub const RESPONSE_MAX_POINTS: usize = 1 << 26;

/// `n`, checked: at least 1, at most [`RESPONSE_MAX_POINTS`].
fn points(what: &str, n: usize) -> Result<Vec<f64>> {
    if n == 0 || n > RESPONSE_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "{what}: {n} frequencies; take between 1 and {RESPONSE_MAX_POINTS}"
        )));
    }
    Ok((0..n).map(|k| PI * k as f64 / n as f64).collect())
}

/// A denominator, checked: not empty, its first coefficient not 0.
fn check_den(what: &str, a: &[f64]) -> Result<()> {
    match a.first() {
        Some(&a0) if a0 != 0.0 => Ok(()),
        _ => Err(Error::InvalidArgument(format!(
            "{what}: the denominator {a:?} must be non-empty with a[0] != 0"
        ))),
    }
}

/// `sum c[k] z^-k` and `sum k c[k] z^-k` at `z^-1 = e` (Horner in `z^-1`).
fn eval(c: &[f64], e: c64) -> (c64, c64) {
    let (mut v, mut d) = (c64::new(0.0, 0.0), c64::new(0.0, 0.0));
    for (k, &x) in c.iter().enumerate().rev() {
        v = v * e + x;
        d = d * e + x * k as f64;
    }
    (v, d)
}

/// The frequency response `H(e^{iw}) = B / A` of the filter `(b, a)` (coefficients of `z^-k`,
/// SciPy's order) at `n` frequencies `w = pi k / n` from 0 up to (not including) Nyquist, as
/// `(w, h)` (SciPy's `freqz(b, a, worN=n)`).
///
/// # Errors
/// `a` empty or `a[0] == 0`; `n` 0 or above [`RESPONSE_MAX_POINTS`], named.
///
/// ```
/// use cuprite_array::signal::freqz;
/// // A two-point average: H = (1 + e^{-iw}) / 2, 1 at DC, 1/sqrt(2) at w = pi / 2.
/// let (w, h) = freqz(&[0.5, 0.5], &[1.0], 4)?;
/// assert_eq!(w[2], std::f64::consts::FRAC_PI_2);
/// assert!((h[0].re - 1.0).abs() < 1e-15);
/// assert!((h[2].norm() - 0.5f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn freqz(b: &[f64], a: &[f64], n: usize) -> Result<(Vec<f64>, Vec<c64>)> {
    check_den("freqz", a)?;
    let w = points("freqz", n)?;
    let h = w
        .iter()
        .map(|&w| {
            let e = c64::from_polar(1.0, -w);
            eval(b, e).0 / eval(a, e).0
        })
        .collect();
    Ok((w, h))
}

/// The frequency response `H(i w) = B(i w) / A(i w)` of the analog filter `(b, a)`
/// (coefficients of descending powers of `s`, SciPy's order) at the angular frequencies `w`
/// (SciPy's `freqs(b, a, worN=w)`).
///
/// # Errors
/// `a` empty or `a[0] == 0`; more than [`RESPONSE_MAX_POINTS`] frequencies, named.
///
/// ```
/// use cuprite_array::signal::freqs;
/// // H(s) = 1 / (s + 1): 1 at DC, 1/sqrt(2) at w = 1, phase -45 degrees.
/// let h = freqs(&[1.0], &[1.0, 1.0], &[0.0, 1.0])?;
/// assert!((h[0].re - 1.0).abs() < 1e-15);
/// assert!((h[1].norm() - 0.5f64.sqrt()).abs() < 1e-15 && (h[1].arg() + std::f64::consts::FRAC_PI_4).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn freqs(b: &[f64], a: &[f64], w: &[f64]) -> Result<Vec<c64>> {
    check_den("freqs", a)?;
    if w.len() > RESPONSE_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "freqs: {} frequencies; take at most {RESPONSE_MAX_POINTS}",
            w.len()
        )));
    }
    let horner = |c: &[f64], s: c64| c.iter().fold(c64::new(0.0, 0.0), |v, &x| v * s + x);
    Ok(w.iter()
        .map(|&w| {
            let s = c64::new(0.0, w);
            horner(b, s) / horner(a, s)
        })
        .collect())
}

/// The frequency response of second-order sections `[b0, b1, b2, a0, a1, a2]` (as
/// [`sosfilt`](super::super::sosfilt) takes them): the product of the sections' responses at
/// the frequencies of [`freqz`] (SciPy's `sosfreqz`).
///
/// # Errors
/// No sections, a section with `a0 == 0`, and those of [`freqz`], named.
///
/// ```
/// use cuprite_array::signal::{BandType, butter_sos, sosfreqz};
/// let sos = butter_sos(4, 0.5, BandType::Lowpass)?;
/// let (_, h) = sosfreqz(&sos, 2)?;
/// // Unit gain at DC, -3 dB at the cutoff (w = pi / 2).
/// assert!((h[0].norm() - 1.0).abs() < 1e-12);
/// assert!((h[1].norm_sqr() - 0.5).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sosfreqz(sos: &[[f64; 6]], n: usize) -> Result<(Vec<f64>, Vec<c64>)> {
    if sos.is_empty() {
        return Err(Error::InvalidArgument(
            "sosfreqz: no sections (a filter needs at least one)".into(),
        ));
    }
    for (i, s) in sos.iter().enumerate() {
        check_den(&format!("sosfreqz: section {i}"), &s[3..])?;
    }
    let w = points("sosfreqz", n)?;
    let h = w
        .iter()
        .map(|&w| {
            let e = c64::from_polar(1.0, -w);
            sos.iter()
                .map(|s| eval(&s[..3], e).0 / eval(&s[3..], e).0)
                .product()
        })
        .collect();
    Ok((w, h))
}

/// [`sosfreqz`] under the name SciPy gives it from 1.15 on (`freqz_sos`).
///
/// # Errors
/// As [`sosfreqz`].
///
/// ```
/// use cuprite_array::signal::{BandType, butter_sos, freqz_sos, sosfreqz};
/// let sos = butter_sos(3, 0.3, BandType::Highpass)?;
/// assert_eq!(freqz_sos(&sos, 16)?, sosfreqz(&sos, 16)?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn freqz_sos(sos: &[[f64; 6]], n: usize) -> Result<(Vec<f64>, Vec<c64>)> {
    sosfreqz(sos, n)
}

/// The group delay `-d(arg H)/dw` of `(b, a)` in samples at the frequencies of [`freqz`], as
/// `(w, gd)`: `Re(sum k b_k z^-k / B) - Re(sum k a_k z^-k / A)`, 0 where `B` or `A` vanishes
/// (SciPy's `group_delay((b, a), w=n)`, which also sets those to 0).
///
/// # Errors
/// As [`freqz`].
///
/// ```
/// use cuprite_array::signal::group_delay;
/// // A symmetric FIR filter of 5 taps delays every frequency by 2 samples.
/// let (_, gd) = group_delay(&[1.0, 2.0, 3.0, 2.0, 1.0], &[1.0], 8)?;
/// assert!(gd.iter().all(|&d| (d - 2.0).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn group_delay(b: &[f64], a: &[f64], n: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    check_den("group_delay", a)?;
    let w = points("group_delay", n)?;
    let part = |c: &[f64], e: c64| {
        let (v, d) = eval(c, e);
        // A root of the polynomial on the circle: its phase jumps, SciPy reports 0.
        let scale: f64 = c
            .iter()
            .map(|x| x.abs())
            .sum::<f64>()
            .max(f64::MIN_POSITIVE);
        if v.norm() <= 1e-12 * scale {
            None
        } else {
            Some((d / v).re)
        }
    };
    let gd = w
        .iter()
        .map(|&w| {
            let e = c64::from_polar(1.0, -w);
            match (part(b, e), part(a, e)) {
                (Some(nb), Some(na)) => nb - na,
                _ => 0.0,
            }
        })
        .collect();
    Ok((w, gd))
}
