//! Frequency responses of filters given as zeros, poles and gain (SciPy's `freqs_zpk` and
//! `freqz_zpk`), and the frequencies SciPy picks to show an analog response (`findfreqs`),
//! on the host in `f64`.

use super::convert::{ZerosPolesGain, check_poly, check_zpk, roots_of};
use super::response::RESPONSE_MAX_POINTS;
use crate::dtype::c64;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// `k prod(x - z) / prod(x - p)` at `x`.
fn eval(f: &ZerosPolesGain, x: c64) -> c64 {
    let num = f
        .zeros
        .iter()
        .fold(c64::new(1.0, 0.0), |acc, &z| acc * (x - z));
    let den = f
        .poles
        .iter()
        .fold(c64::new(1.0, 0.0), |acc, &p| acc * (x - p));
    num / den * f.gain
}

/// The frequency response `H(i w) = k prod(i w - z) / prod(i w - p)` of the analog filter `f`
/// at the angular frequencies `w` (SciPy's `freqs_zpk(z, p, k, worN=w)`; [`findfreqs_zpk`]
/// gives SciPy's default frequencies).
///
/// # Errors
/// A root or the gain not finite, more than [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) roots,
/// more than [`RESPONSE_MAX_POINTS`] frequencies. Each named.
///
/// ```
/// use cuprite_array::{c64, signal::{ZerosPolesGain, freqs_zpk}};
/// // 1 / (s + 1): 1/sqrt(2) at w = 1.
/// let f = ZerosPolesGain { zeros: vec![], poles: vec![c64::new(-1.0, 0.0)], gain: 1.0 };
/// let h = freqs_zpk(&f, &[0.0, 1.0])?;
/// assert_eq!(h[0], c64::new(1.0, 0.0));
/// assert!((h[1].norm() - 0.5f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn freqs_zpk(f: &ZerosPolesGain, w: &[f64]) -> Result<Vec<c64>> {
    check_zpk("freqs_zpk", f, false)?;
    if w.len() > RESPONSE_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "freqs_zpk: {} frequencies; take at most {RESPONSE_MAX_POINTS}",
            w.len()
        )));
    }
    Ok(w.iter().map(|&w| eval(f, c64::new(0.0, w))).collect())
}

/// The frequency response `H(e^{iw}) = k prod(e^{iw} - z) / prod(e^{iw} - p)` of the digital
/// filter `f` at `n` frequencies `w = pi j / n` from 0 up to (not including) Nyquist, as `(w,
/// h)` (SciPy's `freqz_zpk(z, p, k, worN=n)`).
///
/// # Errors
/// `n` 0 or above [`RESPONSE_MAX_POINTS`]; a root or the gain not finite, more than
/// [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) roots. Each named.
///
/// ```
/// use cuprite_array::{c64, signal::{ZerosPolesGain, freqz_zpk}};
/// // A zero at -1 with gain 0.5: the two-point average, 1 at DC.
/// let f = ZerosPolesGain { zeros: vec![c64::new(-1.0, 0.0)], poles: vec![c64::new(0.0, 0.0)], gain: 0.5 };
/// let (w, h) = freqz_zpk(&f, 4)?;
/// assert_eq!((w[0], h[0]), (0.0, c64::new(1.0, 0.0)));
/// assert!((h[2].norm() - 0.5f64.sqrt()).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn freqz_zpk(f: &ZerosPolesGain, n: usize) -> Result<(Vec<f64>, Vec<c64>)> {
    check_zpk("freqz_zpk", f, false)?;
    if n == 0 || n > RESPONSE_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "freqz_zpk: {n} frequencies; take between 1 and {RESPONSE_MAX_POINTS}"
        )));
    }
    let w: Vec<f64> = (0..n).map(|k| PI * k as f64 / n as f64).collect();
    let h = w
        .iter()
        .map(|&w| eval(f, c64::from_polar(1.0, w)))
        .collect();
    Ok((w, h))
}

/// SciPy's frequency range for `n` points from the poles `ep` and zeros `tz`.
fn range(ep: &[c64], tz: &[c64], n: usize) -> Vec<f64> {
    let fallback = [c64::new(-1000.0, 0.0)];
    let ep = if ep.is_empty() { &fallback[..] } else { ep };
    // The poles and the finite zeros (below 1e5 in magnitude) of the upper half-plane.
    let ez: Vec<c64> = ep
        .iter()
        .filter(|v| v.im >= 0.0)
        .chain(tz.iter().filter(|v| v.norm() < 1e5 && v.im >= 0.0))
        .copied()
        .collect();
    // Roots at the origin count as 1 (`integ`), so that their logarithms stay finite.
    let integ = |v: &c64| if v.norm() < 1e-10 { 1.0 } else { 0.0 };
    let hi = ez
        .iter()
        .map(|v| 3.0 * (v.re + integ(v)).abs() + 1.5 * v.im)
        .fold(f64::NEG_INFINITY, f64::max);
    let lo = ez
        .iter()
        .map(|v| (v.re + integ(v)).abs() + 2.0 * v.im)
        .fold(f64::INFINITY, f64::min);
    // NumPy rounds half to even.
    let hfreq = (hi.log10() + 0.5).round_ties_even();
    let lfreq = ((0.1 * lo).log10() - 0.5).round_ties_even();
    if n == 1 {
        return vec![10f64.powf(lfreq)];
    }
    let step = (hfreq - lfreq) / (n - 1) as f64;
    (0..n)
        .map(|i| {
            let e = if i == n - 1 {
                hfreq
            } else {
                lfreq + i as f64 * step
            };
            10f64.powf(e)
        })
        .collect()
}

/// The number of frequencies `n`, checked: between 1 and [`RESPONSE_MAX_POINTS`].
fn check_n(what: &str, n: usize) -> Result<()> {
    if n == 0 || n > RESPONSE_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "{what}: {n} frequencies; take between 1 and {RESPONSE_MAX_POINTS}"
        )));
    }
    Ok(())
}

/// `n` angular frequencies spaced logarithmically over the range where the analog filter
/// `(num, den)` (descending powers of `s`) changes (SciPy's `findfreqs(num, den, n)`): from
/// the roots of the upper half-plane (poles, and zeros below `1e5` in magnitude; a pole at
/// -1000 when there are none; roots at the origin counted as 1), the decades
/// `round(log10(0.1 min(|Re r| + 2 Im r)) - 0.5)` to `round(log10(max(3 |Re r| + 1.5 Im r))
/// + 0.5)`, rounding half to even.
///
/// # Errors
/// `n` 0 or above [`RESPONSE_MAX_POINTS`], `num` or `den` empty, with a coefficient not
/// finite or a leading zero, more than [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) + 1
/// coefficients. Each named.
///
/// ```
/// use cuprite_array::signal::findfreqs;
/// // 1 / (s + 1): from 10^-2 to 10^1.
/// let w = findfreqs(&[1.0], &[1.0, 1.0], 4)?;
/// assert_eq!(w, [0.01, 0.1, 1.0, 10.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn findfreqs(num: &[f64], den: &[f64], n: usize) -> Result<Vec<f64>> {
    let what = "findfreqs";
    check_n(what, n)?;
    for (name, c) in [("numerator", num), ("denominator", den)] {
        check_poly(what, name, c)?;
        if c.len() > 1 && c[0] == 0.0 {
            return Err(Error::InvalidArgument(format!(
                "{what}: the {name} {c:?} has a leading zero"
            )));
        }
    }
    Ok(range(&roots_of(den)?, &roots_of(num)?, n))
}

/// [`findfreqs`] of a filter given as zeros and poles (SciPy's `findfreqs(z, p, n,
/// kind='zp')`, the frequencies `freqs_zpk` takes by default).
///
/// # Errors
/// `n` 0 or above [`RESPONSE_MAX_POINTS`], a root not finite, more than
/// [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) roots. Each named.
///
/// ```
/// use cuprite_array::{c64, signal::{ZerosPolesGain, findfreqs_zpk}};
/// let f = ZerosPolesGain { zeros: vec![], poles: vec![c64::new(-1.0, 0.0)], gain: 1.0 };
/// assert_eq!(findfreqs_zpk(&f, 2)?, [0.01, 10.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn findfreqs_zpk(f: &ZerosPolesGain, n: usize) -> Result<Vec<f64>> {
    check_n("findfreqs_zpk", n)?;
    check_zpk("findfreqs_zpk", f, false)?;
    Ok(range(&f.poles, &f.zeros, n))
}
