//! The vocabulary of a design: which band it passes ([`BandType`]), at which frequencies
//! ([`Cutoff`]), and the highest order any design accepts ([`IIR_MAX_ORDER`]).

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
