//! FIR filter design by the window method (SciPy's `firwin` with its band forms, and the
//! Kaiser formulas `kaiser_beta`, `kaiser_atten`, `kaiserord`), in `f64` on the host.
//!
//! A design of `numtaps` taps is the ideal response of its pass bands, `sum over bands
//! (right sinc(right m) - left sinc(left m))` at `m = j - (numtaps - 1) / 2`, times the
//! symmetric window, scaled so that the gain at one frequency of the first pass band is 1:
//! its centre, or 0 when it starts at 0, or the Nyquist frequency when it ends there.
//! Frequencies are fractions of the Nyquist frequency, in `(0, 1)`.

use super::super::windows::{Window, sinc, window_values};
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// The most taps [`firwin`], [`firwin_bands`] and [`kaiserord`] design.
pub const FIRWIN_MAX_TAPS: usize = 1 << 24;

/// The most cutoffs [`firwin_bands`] takes (band edges, so half as many bands).
pub const FIRWIN_MAX_CUTOFFS: usize = 1024;

/// The low-pass FIR filter of `numtaps` taps with cutoff `cutoff` (a fraction of the Nyquist
/// frequency, in `(0, 1)`) by the window method (SciPy's `firwin(numtaps, cutoff, window)`
/// with its defaults): `cutoff sinc(cutoff (j - (numtaps - 1) / 2))` times the symmetric
/// window, scaled to a DC gain of 1. [`firwin_bands`] designs the other band forms.
///
/// # Errors
/// `numtaps` 0 or above 2^24, a cutoff outside `(0, 1)`, or a window parameter out of its
/// domain, named.
///
/// ```
/// use cuprite_array::signal::{Window, firwin};
/// let h = firwin(21, 0.25, Window::Hamming)?;
/// assert!((h.iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// assert!((h[0] - h[20]).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn firwin(numtaps: usize, cutoff: f64, window: Window) -> Result<Vec<f64>> {
    design("firwin", numtaps, &[cutoff], true, window)
}

/// The FIR filter of `numtaps` taps whose pass bands lie between the band edges `cutoffs`
/// (fractions of the Nyquist frequency, strictly increasing inside `(0, 1)`), by the window
/// method: SciPy's `firwin(numtaps, cutoffs, window=window, pass_zero=pass_zero)` with
/// `scale=True`. With `pass_zero` the first band, from 0 to `cutoffs[0]`, passes (one cutoff:
/// low-pass; two: band-stop); without it the first band stops (one cutoff: high-pass; two:
/// band-pass). The bands alternate from there, so the last one, up to the Nyquist frequency,
/// passes when `pass_zero` and an odd count of cutoffs differ.
///
/// A Kaiser window for a transition width `width` is
/// `Window::Kaiser(kaiser_beta(kaiser_atten(numtaps, width)))`, SciPy's `width=` argument.
///
/// # Errors
/// `numtaps` 0 or above 2^24; no cutoff, more than 1024, one outside `(0, 1)` or not above
/// the one before; an even `numtaps` for a filter that passes the Nyquist frequency (its
/// response there is 0 whatever the taps); a window parameter out of its domain. Each named.
///
/// ```
/// use cuprite_array::signal::{Window, firwin_bands};
/// // A band-pass filter from 0.2 to 0.4 of the Nyquist frequency: gain 1 at 0.3.
/// let h = firwin_bands(41, &[0.2, 0.4], false, Window::Hamming)?;
/// let gain: f64 = h.iter().enumerate()
///     .map(|(j, v)| v * (std::f64::consts::PI * 0.3 * (j as f64 - 20.0)).cos())
///     .sum();
/// assert!((gain - 1.0).abs() < 1e-12);
/// // A high-pass filter needs an odd number of taps.
/// assert!(firwin_bands(40, &[0.5], false, Window::Hamming).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn firwin_bands(
    numtaps: usize,
    cutoffs: &[f64],
    pass_zero: bool,
    window: Window,
) -> Result<Vec<f64>> {
    design("firwin_bands", numtaps, cutoffs, pass_zero, window)
}

/// The window method for `what`: the checks, the bands, the windowed sum, the scaling.
fn design(
    what: &str,
    numtaps: usize,
    cutoffs: &[f64],
    pass_zero: bool,
    window: Window,
) -> Result<Vec<f64>> {
    if numtaps == 0 || numtaps > FIRWIN_MAX_TAPS {
        return Err(Error::InvalidArgument(format!(
            "{what}: numtaps {numtaps} must be 1 to 2^24"
        )));
    }
    if cutoffs.is_empty() || cutoffs.len() > FIRWIN_MAX_CUTOFFS {
        return Err(Error::InvalidArgument(format!(
            "{what}: {} cutoffs given; 1 to {FIRWIN_MAX_CUTOFFS} are taken",
            cutoffs.len()
        )));
    }
    if let Some((i, &c)) = cutoffs
        .iter()
        .enumerate()
        .find(|&(_, &c)| !(c > 0.0 && c < 1.0))
    {
        return Err(Error::InvalidArgument(format!(
            "{what}: cutoff {i} is {c}; each must lie strictly between 0 and 1 (the Nyquist \
             frequency)"
        )));
    }
    if let Some(i) = (1..cutoffs.len()).find(|&i| cutoffs[i] <= cutoffs[i - 1]) {
        return Err(Error::InvalidArgument(format!(
            "{what}: cutoff {i} ({}) is not above cutoff {} ({}); cutoffs must increase \
             strictly",
            cutoffs[i],
            i - 1,
            cutoffs[i - 1]
        )));
    }
    let pass_nyquist = (cutoffs.len() % 2 == 1) != pass_zero;
    if pass_nyquist && numtaps % 2 == 0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: {numtaps} taps for a filter that passes the Nyquist frequency; an even \
             number of taps has zero response there, so take an odd number"
        )));
    }
    // The band edges, in pairs (left, right) of the pass bands.
    let mut edges = Vec::with_capacity(cutoffs.len() + 2);
    if pass_zero {
        edges.push(0.0);
    }
    edges.extend_from_slice(cutoffs);
    if pass_nyquist {
        edges.push(1.0);
    }
    let w = window_values(window, numtaps, false)?;
    let alpha = (numtaps as f64 - 1.0) / 2.0;
    let h: Vec<f64> = (0..numtaps)
        .map(|j| {
            let m = j as f64 - alpha;
            let ideal: f64 = edges
                .chunks_exact(2)
                .map(|b| b[1] * sinc(b[1] * m) - b[0] * sinc(b[0] * m))
                .sum();
            ideal * w[j]
        })
        .collect();
    let (left, right) = (edges[0], edges[1]);
    let f = if left == 0.0 {
        0.0
    } else if right == 1.0 {
        1.0
    } else {
        0.5 * (left + right)
    };
    let gain: f64 = h
        .iter()
        .enumerate()
        .map(|(j, v)| v * (PI * (j as f64 - alpha) * f).cos())
        .sum();
    Ok(h.into_iter().map(|v| v / gain).collect())
}

/// The Kaiser window's `β` for a stop-band attenuation of `a` dB (SciPy's `kaiser_beta`):
/// `0.1102 (a - 8.7)` above 50 dB, `0.5842 (a - 21)^0.4 + 0.07886 (a - 21)` above 21 dB,
/// else 0.
///
/// ```
/// use cuprite_array::signal::kaiser_beta;
/// assert_eq!(kaiser_beta(20.0), 0.0);
/// assert!((kaiser_beta(60.0) - 0.1102 * 51.3).abs() < 1e-12);
/// ```
#[must_use]
pub fn kaiser_beta(a: f64) -> f64 {
    if a > 50.0 {
        0.1102 * (a - 8.7)
    } else if a > 21.0 {
        0.5842 * (a - 21.0).powf(0.4) + 0.07886 * (a - 21.0)
    } else {
        0.0
    }
}

/// The stop-band attenuation in dB of a Kaiser-window FIR filter of `numtaps` taps and
/// transition width `width` (a fraction of the Nyquist frequency), by Kaiser's formula
/// (SciPy's `kaiser_atten`): `2.285 (numtaps - 1) π width + 7.95`.
///
/// ```
/// use cuprite_array::signal::kaiser_atten;
/// let a = kaiser_atten(101, 0.1);
/// assert!((a - (2.285 * 100.0 * std::f64::consts::PI * 0.1 + 7.95)).abs() < 1e-12);
/// ```
#[must_use]
pub fn kaiser_atten(numtaps: usize, width: f64) -> f64 {
    2.285 * (numtaps as f64 - 1.0) * PI * width + 7.95
}

/// The taps and the Kaiser `β` of a window-method FIR filter whose pass and stop bands
/// deviate from 1 and 0 by at most `10^(-|ripple| / 20)`, with transitions `width` wide (a
/// fraction of the Nyquist frequency): SciPy's `kaiserord(ripple, width)`, returning
/// `(numtaps, beta)`. Design the filter with [`firwin_bands`] and `Window::Kaiser(beta)`
/// (a filter that passes the Nyquist frequency needs `numtaps` made odd).
///
/// # Errors
/// `|ripple|` below 8 dB (outside Kaiser's formula) or not finite; `width` not in `(0, 1]`;
/// more than 2^24 taps needed. Each named.
///
/// ```
/// use cuprite_array::signal::kaiserord;
/// let (numtaps, beta) = kaiserord(65.0, 0.048)?;
/// assert_eq!(numtaps, 167);
/// assert!((beta - 6.20426).abs() < 1e-5);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn kaiserord(ripple: f64, width: f64) -> Result<(usize, f64)> {
    let a = ripple.abs();
    if !a.is_finite() || a < 8.0 {
        return Err(Error::InvalidArgument(format!(
            "kaiserord: a ripple of {ripple} dB is outside Kaiser's formula, which takes at \
             least 8 dB"
        )));
    }
    if !(width > 0.0 && width <= 1.0) {
        return Err(Error::InvalidArgument(format!(
            "kaiserord: the width {width} must lie in (0, 1] (a fraction of the Nyquist \
             frequency)"
        )));
    }
    let n = ((a - 7.95) / 2.285 / (PI * width) + 1.0).ceil();
    if n > FIRWIN_MAX_TAPS as f64 {
        return Err(Error::InvalidArgument(format!(
            "kaiserord: ripple {ripple} dB over a width of {width} needs {n} taps, above 2^24"
        )));
    }
    Ok((n as usize, kaiser_beta(a)))
}
