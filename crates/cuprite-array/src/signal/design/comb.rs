//! Comb filters and gammatone filters (SciPy's `iircomb` and `gammatone`), designed on the
//! host in `f64` as transfer functions `(b, a)` for [`lfilter`](crate::signal::lfilter).

use crate::error::{Error, Result};
use std::f64::consts::PI;

/// The most coefficients less one (the comb's order `fs / w0`, or a gammatone FIR filter's
/// taps) that [`iircomb`] and [`gammatone`] design: `2^24`.
pub const COMB_MAX_ORDER: usize = 1 << 24;

/// Which comb [`iircomb`] designs (SciPy's `ftype`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CombType {
    /// Notches at the multiples of `w0` (SciPy's default).
    #[default]
    Notch,
    /// Peaks at the multiples of `w0`.
    Peak,
}

/// A sampling rate, checked positive and finite.
fn check_fs(what: &str, fs: f64) -> Result<()> {
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the sampling rate fs = {fs} must be positive and finite"
        )));
    }
    Ok(())
}

/// The IIR comb filter of `N = fs / w0` (an integer) delays with notches or peaks at the
/// multiples of `w0` (in the units of `fs`), each `w0 / q` wide at -3 dB (SciPy's
/// `iircomb(w0, q, ftype, fs, pass_zero=pass_zero)`): `b = [bx, 0, ..., 0, +-cx]` and `a = [1,
/// 0, ..., 0, +-ax]` of `N + 1` coefficients, with `beta = tan(N w_delta / 4)` for the width
/// `w_delta = 2 pi w0 / (fs q)`, `ax = (1 - beta) / (1 + beta)`, `bx`, `cx` the gains of the
/// notch (`1 / (1 + beta)`) or peak (`beta / (1 + beta)`). The last coefficients are
/// negative for a notch without `pass_zero` or a peak with it, so that the notches (or
/// peaks) sit at the multiples of `w0` from 0, or half way between them.
///
/// # Errors
/// `fs` not positive and finite, `w0` not strictly between 0 and `fs / 2`, `fs / w0` not an
/// integer (to `1e-14` relative), above [`COMB_MAX_ORDER`], `q` not positive and finite.
/// Each named.
///
/// ```
/// use cuprite_array::signal::{CombType, iircomb};
/// // Notches at 0, 1000, 2000, ... Hz for fs = 8000 Hz: N = 8.
/// let (b, a) = iircomb(1000.0, 30.0, CombType::Notch, 8000.0, false)?;
/// assert_eq!((b.len(), a.len()), (9, 9));
/// // The gain at DC is 0: sum(b) = 0.
/// assert!(b.iter().sum::<f64>().abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn iircomb(
    w0: f64,
    q: f64,
    ftype: CombType,
    fs: f64,
    pass_zero: bool,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "iircomb";
    check_fs(what, fs)?;
    if !(w0 > 0.0 && w0 < fs / 2.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: w0 = {w0} must lie strictly between 0 and {} (Nyquist)",
            fs / 2.0
        )));
    }
    if !(q > 0.0 && q.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the quality factor q = {q} must be positive and finite"
        )));
    }
    // Python's round: half to even.
    let ratio = (fs / w0).round_ties_even();
    if ratio > COMB_MAX_ORDER as f64 {
        return Err(Error::InvalidArgument(format!(
            "{what}: fs / w0 = {ratio} delays, more than {COMB_MAX_ORDER} (COMB_MAX_ORDER)"
        )));
    }
    let n = ratio as usize;
    if (w0 - fs / ratio).abs() / fs > 1e-14 {
        return Err(Error::InvalidArgument(format!(
            "{what}: fs = {fs} must be a whole multiple of w0 = {w0}"
        )));
    }
    let w_delta = 2.0 * PI * w0 / fs / q;
    let (g0, g) = match ftype {
        CombType::Notch => (1.0, 0.0),
        CombType::Peak => (0.0, 1.0),
    };
    let beta = (n as f64 * w_delta / 4.0).tan();
    let ax = (1.0 - beta) / (1.0 + beta);
    let bx = (g0 + g * beta) / (1.0 + beta);
    let cx = (g0 - g * beta) / (1.0 + beta);
    let negative = match ftype {
        CombType::Peak => pass_zero,
        CombType::Notch => !pass_zero,
    };
    let sgn = if negative { -1.0 } else { 1.0 };
    let mut b = vec![0.0; n + 1];
    let mut a = vec![0.0; n + 1];
    b[0] = bx;
    b[n] = sgn * cx;
    a[0] = 1.0;
    a[n] = sgn * ax;
    Ok((b, a))
}

/// Which gammatone filter [`gammatone`] designs (SciPy's `ftype`, `order` and `numtaps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GammatoneType {
    /// The sampled gammatone impulse response of order `order` (1 to 24; SciPy's default 4)
    /// over `numtaps` taps (`None`: SciPy's default `max(floor(0.015 fs), 15)`).
    Fir {
        /// The order of the gammatone function, 1 to 24.
        order: usize,
        /// The number of taps, or SciPy's default.
        numtaps: Option<usize>,
    },
    /// Slaney's fourth-order IIR approximation: 5 numerator and 9 denominator coefficients.
    Iir,
}

impl Default for GammatoneType {
    fn default() -> Self {
        GammatoneType::Fir {
            order: 4,
            numtaps: None,
        }
    }
}

/// The gammatone filter centred on `freq` (in the units of `fs`), the auditory filter whose
/// bandwidth is 1.019 equivalent rectangular bandwidths `ERB = freq / 9.26449 + 24.7` (SciPy's
/// `gammatone(freq, ftype, order, numtaps, fs)`), as `(b, a)`. The FIR form samples
/// `t^(n-1) e^(-2 pi bw t) cos(2 pi freq t)` at `t = k / fs` and scales it by
/// `2 (2 pi bw)^n / ((n-1)! fs)` (`a = [1]`); the IIR form is Slaney's fourth-order
/// approximation, its gain normalised to 1 at `freq`.
///
/// # Errors
/// `fs` not positive and finite, `freq` not strictly between 0 and `fs / 2`, an FIR order
/// outside 1 to 24, 0 taps or more than [`COMB_MAX_ORDER`]. Each named.
///
/// ```
/// use cuprite_array::signal::{GammatoneType, gammatone};
/// let (b, a) = gammatone(440.0, GammatoneType::Iir, 16000.0)?;
/// assert_eq!((b.len(), a.len()), (5, 9));
/// let (b, a) = gammatone(440.0, GammatoneType::default(), 16000.0)?;
/// assert_eq!((b.len(), a), (240, vec![1.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gammatone(freq: f64, ftype: GammatoneType, fs: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "gammatone";
    check_fs(what, fs)?;
    if !(freq > 0.0 && freq < fs / 2.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the frequency {freq} must lie strictly between 0 and {} (Nyquist)",
            fs / 2.0
        )));
    }
    let erb = freq / 9.26449 + 24.7;
    match ftype {
        GammatoneType::Fir { order, numtaps } => {
            if !(1..=24).contains(&order) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: the order {order} must lie between 1 and 24"
                )));
            }
            // Python's int(): toward zero (fs * 0.015 is positive).
            let taps = numtaps.unwrap_or_else(|| ((fs * 0.015) as usize).max(15));
            if taps == 0 || taps > COMB_MAX_ORDER {
                return Err(Error::InvalidArgument(format!(
                    "{what}: {taps} taps; take between 1 and {COMB_MAX_ORDER}"
                )));
            }
            let bw = 1.019 * erb;
            let factorial: f64 = (1..order).map(|k| k as f64).product();
            let scale = 2.0 * (2.0 * PI * bw).powi(order as i32) / factorial / fs;
            let b = (0..taps)
                .map(|k| {
                    let t = k as f64 / fs;
                    let v = t.powi(order as i32 - 1) * (-2.0 * PI * bw * t).exp();
                    v * (2.0 * PI * freq * t).cos() * scale
                })
                .collect();
            Ok((b, vec![1.0]))
        }
        GammatoneType::Iir => Ok(slaney(freq, erb, fs)),
    }
}

/// Slaney's fourth-order gammatone approximation at `freq` with the bandwidth `erb` (before
/// its 1.019 factor) and sampling rate `fs`: four cascaded resonator pairs expanded into 5
/// numerator and 9 denominator coefficients, the gain `g` for unit gain at `freq`.
fn slaney(freq: f64, erb: f64, fs: f64) -> (Vec<f64>, Vec<f64>) {
    use crate::dtype::c64;
    let t = 1.0 / fs;
    let bw = 2.0 * PI * 1.019 * erb;
    let fr = 2.0 * freq * PI * t;
    let bwt = bw * t;
    let ei = |x: f64| c64::from_polar(1.0, x);
    let g1 = ei(2.0 * fr) * (-2.0 * t);
    let g2 = c64::from_polar((-bwt).exp(), fr) * (2.0 * t);
    let g3 = (3.0 + 2f64.powf(1.5)).sqrt() * fr.sin();
    let g4 = (3.0 - 2f64.powf(1.5)).sqrt() * fr.sin();
    let g5 = ei(2.0 * fr);
    let mut g = g1 + g2 * (fr.cos() - g4);
    g *= g1 + g2 * (fr.cos() + g4);
    g *= g1 + g2 * (fr.cos() - g3);
    g *= g1 + g2 * (fr.cos() + g3);
    let d = (g5 * -2.0 + (g5 + 1.0) * 2.0 / bwt.exp()) - 2.0 / (2.0 * bwt).exp();
    g /= d.powi(4);
    let g = g.norm();
    let e = |k: f64| (k * bw * t).exp();
    let t4 = t.powi(4);
    let b = vec![
        t4 / g,
        -4.0 * t4 * fr.cos() / e(1.0) / g,
        6.0 * t4 * (2.0 * fr).cos() / e(2.0) / g,
        -4.0 * t4 * (3.0 * fr).cos() / e(3.0) / g,
        t4 * (4.0 * fr).cos() / e(4.0) / g,
    ];
    let c1 = fr.cos();
    let c2 = (2.0 * fr).cos();
    let c3 = (3.0 * fr).cos();
    let c4 = (4.0 * fr).cos();
    let a = vec![
        1.0,
        -8.0 * c1 / e(1.0),
        4.0 * (4.0 + 3.0 * c2) / e(2.0),
        -8.0 * (6.0 * c1 + c3) / e(3.0),
        2.0 * (18.0 + 16.0 * c2 + c4) / e(4.0),
        -8.0 * (6.0 * c1 + c3) / e(5.0),
        4.0 * (4.0 + 3.0 * c2) / e(6.0),
        -8.0 * c1 / e(7.0),
        (-8.0 * bw * t).exp(),
    ];
    (b, a)
}
