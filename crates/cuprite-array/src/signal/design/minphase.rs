//! Minimum-phase FIR filters from linear-phase ones (SciPy's `minimum_phase`), on the host
//! in `f64`, its transforms by the crate's FFT on the CPU backend.

use super::response::RESPONSE_MAX_POINTS;
use crate::array::Array;
use crate::device::Device;
use crate::dtype::c64;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// How [`minimum_phase`] finds the minimum-phase filter (SciPy's `method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MinPhaseMethod {
    /// The real cepstrum of the magnitude response folded onto its causal half (SciPy's
    /// default): the output's magnitude approximates the square root of the input's (or the
    /// input's, without `half`).
    #[default]
    Homomorphic,
    /// The discrete Hilbert transform of the log of the shifted, rescaled and square-rooted
    /// zero-phase response: meant for equiripple (Remez) filters.
    Hilbert,
}

/// The DFT (`inverse`: the inverse DFT, scaled by `1 / n`) of `x` on the CPU backend.
fn dft(x: &[c64], inverse: bool) -> Result<Vec<c64>> {
    let a = Array::from_slice_on(Device::CPU, x, &[x.len()])?;
    let y = if inverse { a.ifft()? } else { a.fft()? };
    y.to_vec()
}

/// `h` zero-padded to `n` points, complex.
fn padded(h: &[f64], n: usize) -> Vec<c64> {
    let mut x = vec![c64::new(0.0, 0.0); n];
    for (v, &h) in x.iter_mut().zip(h) {
        *v = c64::new(h, 0.0);
    }
    x
}

/// The minimum-phase filter of the linear-phase FIR filter `h` (symmetric, at least 3 taps;
/// SciPy's `minimum_phase(h, method, n_fft, half=half)`), by the method of
/// [`MinPhaseMethod`], on transforms of `n_fft` points (`None`: SciPy's default, the power
/// of two at least `2 (len(h) - 1) / 0.01`). With `half` the result has `len(h) / 2` taps
/// (rounded up) and a magnitude response approximating the square root of `h`'s; without
/// it (homomorphic only), `len(h)` taps and `h`'s magnitude. SciPy warns of an asymmetric
/// `h`; here it is transformed as given.
///
/// # Errors
/// `h` of fewer than 3 taps or with a value not finite; `n_fft` below `len(h)` or above
/// [`RESPONSE_MAX_POINTS`]; [`MinPhaseMethod::Hilbert`] without `half`; a magnitude
/// response of zeros (homomorphic), or a result not finite (a Hilbert input whose response
/// is not that of an equiripple low-pass filter). Each named.
///
/// ```
/// use cuprite_array::signal::{MinPhaseMethod, minimum_phase};
/// // A symmetric 5-tap filter: (1 + z^-1)^4 / 16, whose minimum-phase half is about
/// // (1 + z^-1)^2 / 4.
/// let h = [1.0, 4.0, 6.0, 4.0, 1.0].map(|v| v / 16.0);
/// let m = minimum_phase(&h, MinPhaseMethod::Homomorphic, None, true)?;
/// assert_eq!(m.len(), 3);
/// assert!((m[0] - 0.25).abs() < 0.02 && (m[1] - 0.5).abs() < 0.02 && (m[2] - 0.25).abs() < 0.02);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minimum_phase(
    h: &[f64],
    method: MinPhaseMethod,
    n_fft: Option<usize>,
    half: bool,
) -> Result<Vec<f64>> {
    let what = "minimum_phase";
    let bad = |m: String| Err(Error::InvalidArgument(format!("{what}: {m}")));
    let len = h.len();
    if len <= 2 {
        return bad(format!("h has {len} taps; it needs at least 3"));
    }
    if let Some(v) = h.iter().find(|v| !v.is_finite()) {
        return bad(format!("h has the tap {v}, not finite"));
    }
    if method == MinPhaseMethod::Hilbert && !half {
        return bad("the Hilbert method takes half = true only".into());
    }
    // SciPy's default: 2^ceil(log2(2 (len - 1) / 0.01)), the length checked first so that
    // it stays far from overflowing.
    let n = match n_fft {
        Some(n) => n,
        None if len <= RESPONSE_MAX_POINTS => (200 * (len - 1)).next_power_of_two(),
        None => RESPONSE_MAX_POINTS + 1,
    };
    if n < len || n > RESPONSE_MAX_POINTS {
        return bad(format!(
            "n_fft = {n} must lie between len(h) = {len} and {RESPONSE_MAX_POINTS}"
        ));
    }
    let n_half = len / 2;
    let spectrum = dft(&padded(h, n), false)?;
    let out = match method {
        MinPhaseMethod::Homomorphic => {
            let mag: Vec<f64> = spectrum.iter().map(|v| v.norm()).collect();
            let floor = mag
                .iter()
                .copied()
                .filter(|&v| v > 0.0)
                .fold(f64::INFINITY, f64::min);
            if !floor.is_finite() {
                return bad("the magnitude response of h is zero everywhere".into());
            }
            let scale = if half { 0.5 } else { 1.0 };
            let logs: Vec<c64> = mag
                .iter()
                .map(|&v| c64::new((v + 1e-7 * floor).ln() * scale, 0.0))
                .collect();
            // The real cepstrum folded onto its causal half (SciPy's window): 1 at 0, 2 for
            // 0 < k < n / 2, 1 at k = (n - 1) / 2 for odd n, 0 beyond.
            let cep = dft(&logs, true)?;
            let stop = n / 2;
            let folded: Vec<c64> = cep
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    let w = if k == 0 || (n % 2 == 1 && k == stop) {
                        1.0
                    } else if k < stop {
                        2.0
                    } else {
                        0.0
                    };
                    c64::new(v.re * w, 0.0)
                })
                .collect();
            let spec: Vec<c64> = dft(&folded, false)?.iter().map(|v| v.exp()).collect();
            dft(&spec, true)?.iter().map(|v| v.re).collect::<Vec<f64>>()
        }
        MinPhaseMethod::Hilbert => {
            // The zero-phase response: the spectrum advanced by n_half samples.
            let mut zp: Vec<f64> = spectrum
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    let w = k as f64 * (2.0 * PI / n as f64 * n_half as f64);
                    (v * c64::from_polar(1.0, w)).re
                })
                .collect();
            let max = zp.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min = zp.iter().copied().fold(f64::INFINITY, f64::min);
            let (dp, ds) = (max - 1.0, -min);
            let s = 4.0 / ((1.0 + dp + ds).sqrt() + (1.0 - dp + ds).sqrt()).powi(2);
            for v in &mut zp {
                *v = ((*v + ds) * s).sqrt() + 1e-10;
            }
            // The discrete Hilbert transform of log |H|: the cepstrum's sign function, 0 at DC
            // and at the midpoint.
            let logs: Vec<c64> = zp.iter().map(|&v| c64::new(v.ln(), 0.0)).collect();
            let cep = dft(&logs, true)?;
            let mid = n / 2;
            let signed: Vec<c64> = cep
                .iter()
                .enumerate()
                .map(|(k, &v)| {
                    if k == 0 || k == mid {
                        c64::new(0.0, 0.0)
                    } else if k < mid {
                        v
                    } else {
                        -v
                    }
                })
                .collect();
            let phase = dft(&signed, false)?;
            let spec: Vec<c64> = zp.iter().zip(&phase).map(|(&m, p)| p.exp() * m).collect();
            dft(&spec, true)?.iter().map(|v| v.re).collect::<Vec<f64>>()
        }
    };
    let n_out = if half { n_half + len % 2 } else { len };
    let out = out[..n_out].to_vec();
    if let Some(v) = out.iter().find(|v| !v.is_finite()) {
        return bad(format!(
            "the result has the value {v}: the response of h does not suit the {method:?} \
             method"
        ));
    }
    Ok(out)
}
