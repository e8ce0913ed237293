//! The vocabulary of a design: which band it passes ([`BandType`]), at which frequencies
//! ([`Cutoff`]), the highest order any design accepts ([`IIR_MAX_ORDER`]), and the checks of
//! the bands an optimal FIR design takes ([`check_fir_bands`]).

use crate::error::{Error, Result};

/// Which band an IIR design passes (SciPy's `btype`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BandType {
    /// Frequencies below the cutoff (SciPy's default).
    #[default]
    Lowpass,
    /// Frequencies above the cutoff.
    Highpass,
    /// Frequencies between the two edges.
    Bandpass,
    /// Frequencies outside the two edges.
    Bandstop,
}

/// The critical frequencies of a design (SciPy's `Wn`), as fractions of the Nyquist
/// frequency: one for low- and high-pass designs, two (low edge first) for band-pass and
/// band-stop ones. Made from an `f64`, an `[f64; 2]` or an `(f64, f64)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cutoff {
    /// One critical frequency.
    Edge(f64),
    /// The low and the high edge of a band.
    Band(f64, f64),
}

impl From<f64> for Cutoff {
    fn from(w: f64) -> Self {
        Cutoff::Edge(w)
    }
}

impl From<[f64; 2]> for Cutoff {
    fn from([lo, hi]: [f64; 2]) -> Self {
        Cutoff::Band(lo, hi)
    }
}

impl From<(f64, f64)> for Cutoff {
    fn from((lo, hi): (f64, f64)) -> Self {
        Cutoff::Band(lo, hi)
    }
}

/// The highest order any design accepts: far above a useful IIR filter, whose coefficients
/// lose all precision long before it, and low enough that no order allocates much.
pub const IIR_MAX_ORDER: usize = 1024;

/// The bands of an optimal FIR design (`firls`, `remez`) for `what`, checked with their
/// counts: at least one band, as many `desired` entries (named `noun`), as many weights or
/// none; each band's edges in `[0, 1]` (fractions of the Nyquist frequency), the right above
/// the left, each band beginning where the one before ends or later. Each failure named.
pub(super) fn check_fir_bands(
    what: &str,
    bands: &[[f64; 2]],
    (desired, noun): (usize, &str),
    weights: usize,
) -> Result<()> {
    let bad = |m: String| Err(Error::InvalidArgument(format!("{what}: {m}")));
    if bands.is_empty() || desired != bands.len() {
        return bad(format!(
            "{} bands and {desired} {noun}; one per band, at least one band",
            bands.len()
        ));
    }
    if weights != 0 && weights != bands.len() {
        return bad(format!(
            "{weights} weights for {} bands; one per band, or none",
            bands.len()
        ));
    }
    for (i, b) in bands.iter().enumerate() {
        if !b.iter().all(|e| (0.0..=1.0).contains(e)) {
            return bad(format!(
                "band {i} is {b:?}; its edges must lie in [0, 1] (fractions of the Nyquist \
                 frequency)"
            ));
        }
        if b[1] <= b[0] {
            return bad(format!(
                "band {i} is {b:?}; its right edge must lie above its left"
            ));
        }
        if i > 0 && b[0] < bands[i - 1][1] {
            return bad(format!(
                "band {i} {b:?} begins before band {} {:?} ends; bands must increase and not \
                 overlap",
                i - 1,
                bands[i - 1]
            ));
        }
    }
    Ok(())
}
