//! FIR design by frequency sampling (SciPy's `firwin2`), in `f64` on the host.
//!
//! The desired gain, given at points from 0 to the Nyquist frequency, is interpolated
//! linearly onto `nfreqs` equally spaced frequencies, given the linear phase of a filter of
//! `numtaps` taps (a further quarter turn for the antisymmetric types), and transformed back
//! by the real inverse DFT of length `2 (nfreqs - 1)`; the first `numtaps` values, times the
//! symmetric window, are the taps.

use super::super::windows::{Window, window_values};
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// The most taps [`firwin2`] designs: its inverse DFT is summed directly on the host.
pub const FIRWIN2_MAX_TAPS: usize = 1 << 14;

/// The options of [`firwin2_with`] (SciPy's `nfreqs` and `antisymmetric`).
///
/// ```
/// use cuprite_array::signal::Firwin2Opts;
/// let o = Firwin2Opts::new().nfreqs(1025).antisymmetric(true);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Firwin2Opts {
    nfreqs: Option<usize>,
    antisymmetric: bool,
}

impl Firwin2Opts {
    /// SciPy's defaults: `1 + 2^ceil(log2 numtaps)` frequencies, a symmetric filter.
    pub fn new() -> Self {
        Self::default()
    }
    /// The frequencies the gain is sampled at, above `numtaps`.
    pub fn nfreqs(self, nfreqs: usize) -> Self {
        Firwin2Opts {
            nfreqs: Some(nfreqs),
            ..self
        }
    }
    /// An antisymmetric filter (types III and IV: zero gain at 0, and for odd lengths at the
    /// Nyquist frequency).
    pub fn antisymmetric(self, antisymmetric: bool) -> Self {
        Firwin2Opts {
            antisymmetric,
            ..self
        }
    }
}

/// The FIR filter of `numtaps` taps whose gain follows `gain` at the frequencies `freq`
/// (fractions of the Nyquist frequency, from 0 to 1, non-decreasing; a frequency given twice
/// is a step), linearly between them, by frequency sampling with `window` (SciPy's
/// `firwin2(numtaps, freq, gain, window=window)`). See [`firwin2_with`].
///
/// # Errors
/// As [`firwin2_with`].
///
/// ```
/// use cuprite_array::signal::{Window, firwin2};
/// // SciPy's documented example: 1 up to half the Nyquist frequency, falling to 0 at it.
/// let h = firwin2(150, &[0.0, 0.5, 1.0], &[1.0, 1.0, 0.0], Window::Hamming)?;
/// assert!((h[74] - 0.57310236).abs() < 1e-8 && (h[72] + 0.02286961).abs() < 1e-8);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn firwin2(numtaps: usize, freq: &[f64], gain: &[f64], window: Window) -> Result<Vec<f64>> {
    firwin2_with(numtaps, freq, gain, window, Firwin2Opts::new())
}

/// [`firwin2`] with the sampled frequencies' count and the filter's symmetry
/// ([`Firwin2Opts`]).
///
/// # Errors
/// `numtaps` 0 or above [`FIRWIN2_MAX_TAPS`]; `nfreqs` not above `numtaps` (or below 2);
/// `freq` and `gain` of different lengths or fewer than 2; `freq` not from 0 to 1,
/// decreasing anywhere, a frequency given three times, 0 or 1 given twice, a step too close
/// to a neighbour; a gain not finite; a gain the filter's type cannot have (an even
/// symmetric filter's at the Nyquist frequency, an antisymmetric one's at 0, an odd
/// antisymmetric one's at the Nyquist frequency: each must be 0); a window parameter out of
/// its domain. Each named.
pub fn firwin2_with(
    numtaps: usize,
    freq: &[f64],
    gain: &[f64],
    window: Window,
    opts: Firwin2Opts,
) -> Result<Vec<f64>> {
    let bad = |m: String| Err(Error::InvalidArgument(format!("firwin2: {m}")));
    if numtaps == 0 || numtaps > FIRWIN2_MAX_TAPS {
        return bad(format!("numtaps {numtaps} must be 1 to {FIRWIN2_MAX_TAPS}"));
    }
    let nfreqs = opts.nfreqs.unwrap_or(1 + numtaps.next_power_of_two());
    if nfreqs <= numtaps || nfreqs < 2 {
        return bad(format!(
            "nfreqs {nfreqs} must exceed numtaps {numtaps} (and be at least 2)"
        ));
    }
    if freq.len() != gain.len() || freq.len() < 2 {
        return bad(format!(
            "{} frequencies and {} gains; as many of each, at least 2",
            freq.len(),
            gain.len()
        ));
    }
    let n = freq.len();
    if freq[0] != 0.0 || freq[n - 1] != 1.0 {
        return bad(format!(
            "the frequencies must run from 0 to 1 (the Nyquist frequency), not {} to {}",
            freq[0],
            freq[n - 1]
        ));
    }
    if let Some(i) = (1..n).find(|&i| freq[i].is_nan() || freq[i] < freq[i - 1]) {
        return bad(format!(
            "frequency {i} ({}) is below frequency {} ({}); they must not decrease",
            freq[i],
            i - 1,
            freq[i - 1]
        ));
    }
    if let Some(i) = (2..n).find(|&i| freq[i] == freq[i - 2]) {
        return bad(format!(
            "the frequency {} is given three times (frequencies {} to {i}); at most twice",
            freq[i],
            i - 2
        ));
    }
    if freq[1] == 0.0 || freq[n - 2] == 1.0 {
        return bad("0 and 1 must not be given twice".into());
    }
    if let Some((i, g)) = gain.iter().enumerate().find(|(_, g)| !g.is_finite()) {
        return bad(format!("gain {i} is {g}; each must be finite"));
    }
    let odd = numtaps % 2 == 1;
    let anti = opts.antisymmetric;
    if !anti && !odd && gain[n - 1] != 0.0 {
        return bad(format!(
            "an even-length symmetric filter (type II) has zero gain at the Nyquist frequency; \
             the last gain is {}",
            gain[n - 1]
        ));
    }
    if anti && gain[0] != 0.0 {
        return bad(format!(
            "an antisymmetric filter (types III and IV) has zero gain at 0; the first gain is {}",
            gain[0]
        ));
    }
    if anti && odd && gain[n - 1] != 0.0 {
        return bad(format!(
            "an odd-length antisymmetric filter (type III) has zero gain at the Nyquist \
             frequency; the last gain is {}",
            gain[n - 1]
        ));
    }
    // A step (a frequency given twice) becomes two points `ε` either side of it.
    let mut f = freq.to_vec();
    let eps = f64::EPSILON;
    for k in 0..n - 1 {
        if f[k] == f[k + 1] {
            f[k] -= eps;
            f[k + 1] += eps;
        }
    }
    if let Some(i) = (1..n).find(|&i| f[i] <= f[i - 1]) {
        return bad(format!(
            "frequency {i} ({}) lies within {eps} of a step next to it",
            freq[i]
        ));
    }
    let m = nfreqs - 1;
    let sampled: Vec<f64> = (0..nfreqs)
        .map(|j| interp(j as f64 / m as f64, &f, gain))
        .collect();
    // The spectrum X_j = G_j e^{i phi_j}, phi_j = -pi (numtaps - 1) x_j / 2 (plus a quarter
    // turn when antisymmetric), and its real inverse DFT of length 2m at the first `numtaps`
    // points: (X_0 + X_m (-1)^t + 2 sum_{0<j<m} Re(X_j e^{i pi j t / m})) / 2m, the end terms
    // by their real parts only (as an inverse real DFT takes them).
    let half = (numtaps as f64 - 1.0) / 2.0;
    let quarter = if anti { PI / 2.0 } else { 0.0 };
    let phi = |j: usize| -PI * half * j as f64 / m as f64 + quarter;
    let w = window_values(window, numtaps, false)?;
    let mut h: Vec<f64> = (0..numtaps)
        .map(|t| {
            let turn = |j: usize| PI * (j * t) as f64 / m as f64;
            let ends = sampled[0] * phi(0).cos() + sampled[m] * phi(m).cos() * turn(m).cos();
            let inner: f64 = (1..m)
                .map(|j| 2.0 * sampled[j] * (phi(j) + turn(j)).cos())
                .sum();
            (ends + inner) / (2 * m) as f64 * w[t]
        })
        .collect();
    if anti && odd {
        h[numtaps / 2] = 0.0;
    }
    Ok(h)
}

/// `g` at `x`, linearly interpolated between the points `(f, g)` (`f` increasing, `x` within
/// `[f[0], f[last]]`; held at the ends beyond them).
fn interp(x: f64, f: &[f64], g: &[f64]) -> f64 {
    let last = f.len() - 1;
    if x <= f[0] {
        return g[0];
    }
    if x >= f[last] {
        return g[last];
    }
    let i = f.partition_point(|&v| v <= x).clamp(1, last);
    let (x0, x1) = (f[i - 1], f[i]);
    g[i - 1] + (g[i] - g[i - 1]) * (x - x0) / (x1 - x0)
}
