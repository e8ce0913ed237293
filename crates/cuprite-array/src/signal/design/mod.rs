//! Filter design: IIR filters (SciPy's `butter`, `cheby1`, `cheby2`, `ellip` and `bessel`:
//! digital low-pass, high-pass, band-pass and band-stop filters, and their analog forms,
//! which stop after step 3 below with the edges as given; the order selections of
//! [`order`] and its notch and peak filters; the frequency responses of [`response`]), and FIR
//! filters by the window method ([`fir`]), by frequency sampling ([`sampled`]), by least
//! squares ([`lsq`]) and equiripple by the Remez exchange ([`remez`]).
//!
//! The steps below are public too: the prototypes ([`analog`]: [`buttap`], [`cheb1ap`],
//! [`cheb2ap`], [`ellipap`], [`besselap`]), the frequency and bilinear transforms on zeros,
//! poles and gain or on coefficients ([`transform`]: [`lp2lp_zpk`], [`lp2bp`], [`bilinear`],
//! ...), [`normalize`], and SciPy's pole-zero pairing into sections ([`sos`]: [`zpk2sos`],
//! [`tf2sos`] with [`SosPairing`]). Linear systems in state-space form ([`statespace`]:
//! [`StateSpace`], [`tf2ss`], [`ss2tf`], [`zpk2ss`], [`ss2zpk`], and [`cont2discrete`] by
//! the methods of [`Discretization`], on the host matrix exponential of [`matrix`]; their
//! assembly from some of `A`, `B`, `C`, `D`, and pole placement by state feedback
//! ([`poles`]: [`abcd_normalize`], [`place_poles`], [`place_poles_with`])), and
//! their responses ([`simulate`]: [`lsim`], [`impulse`], [`step`], [`freqresp`], [`bode`],
//! and the discrete [`dlsim`], [`dimpulse`], [`dstep`], [`dfreqresp`], [`dbode`]). Partial
//! fractions ([`residue`]: [`residue`], [`residuez`], [`invres`], [`invresz`],
//! [`unique_roots`]). Zero-pole responses and SciPy's analog frequency range ([`zpkresp`]:
//! [`freqs_zpk`], [`freqz_zpk`], [`findfreqs`], [`findfreqs_zpk`]); comb and gammatone
//! filters ([`comb`]: [`iircomb`], [`gammatone`]); minimum-phase FIR filters ([`minphase`]:
//! [`minimum_phase`]). A system as one value in any form and domain ([`lti`]: [`Lti`]), and
//! the general designers [`iirfilter`] and [`iirdesign`] below.
//!
//! Every IIR design takes the same steps, in `f64` on the host:
//! 1. the analog low-pass prototype's zeros, poles and gain ([`proto`]; the elliptic one on
//!    the elliptic functions of [`jacobi`]);
//! 2. the band edges pre-warped (`4 tan(pi w / 2)`: the bilinear transform's frequency map
//!    at `fs = 2`, so that edges are fractions of the Nyquist frequency);
//! 3. the prototype moved to those edges (SciPy's `lp2lp_zpk`, `lp2hp_zpk`, `lp2bp_zpk`,
//!    `lp2bs_zpk`);
//! 4. the bilinear transform to the z-plane, zeros at infinity going to `z = -1`;
//! 5. the roots expanded into transfer-function coefficients `(b, a)`, or paired into
//!    second-order sections.
//!
//! A design of order `n` has `n` poles (low- and high-pass) or `2n` (band-pass and
//! band-stop), and as many zeros.

mod analog;
mod band;
mod comb;
mod convert;
mod fir;
mod jacobi;
mod lsq;
mod lti;
mod matrix;
mod minphase;
mod order;
mod poles;
mod proto;
mod remez;
mod residue;
mod response;
mod sampled;
mod simulate;
mod sos;
mod statespace;
mod transform;
mod zpkresp;

use crate::dtype::c64;
use crate::error::{Error, Result};
pub use analog::{besselap, buttap, cheb1ap, cheb2ap, ellipap};
pub use band::{BandType, Cutoff, IIR_MAX_ORDER};
pub use comb::{COMB_MAX_ORDER, CombType, GammatoneType, gammatone, iircomb};
pub use convert::{
    BadCoefficients, LTI_MAX_ORDER, ZerosPolesGain, bad_coefficients, normalize, sos2tf, sos2zpk,
    tf2zpk, zpk2tf,
};
pub use fir::{
    FIRWIN_MAX_CUTOFFS, FIRWIN_MAX_TAPS, firwin, firwin_bands, kaiser_atten, kaiser_beta, kaiserord,
};
pub use lsq::{FIRLS_MAX_TAPS, firls};
pub use lti::{LTI_DEFAULT_POINTS, Lti, SystemForm, TransferFunction};
pub use minphase::{MinPhaseMethod, minimum_phase};
pub use order::{
    FilterOrder, IirDesignType, band_stop_obj, buttord, cheb1ord, cheb2ord, ellipord, iirnotch,
    iirpeak,
};
pub use poles::{
    MatrixIn, PlacePolesOpts, PlacedPoles, PoleMethod, abcd_normalize, place_poles,
    place_poles_with,
};
pub use proto::BesselNorm;
use proto::{BESSEL_MAX_ORDER, Zpk};
pub use remez::{REMEZ_MAX_TAPS, RemezKind, RemezOpts, remez, remez_with};
pub use residue::{PartialFractions, RootType, invres, invresz, residue, residuez, unique_roots};
pub use response::{RESPONSE_MAX_POINTS, freqs, freqz, freqz_sos, group_delay, sosfreqz};
pub use sampled::{FIRWIN2_MAX_TAPS, Firwin2Opts, firwin2, firwin2_with};
pub use simulate::{
    Response, SIM_MAX_STEPS, bode, dbode, dfreqresp, dimpulse, dlsim, dstep, freqresp, impulse,
    lsim, step,
};
pub use sos::{SosPairing, tf2sos, zpk2sos};
pub use statespace::{
    Discretization, StateSpace, cont2discrete, cont2discrete_tf, ss2tf, ss2zpk, tf2ss, zpk2ss,
};
use std::f64::consts::PI;
use transform::{Band, zpk_bilinear, zpk_transform};
pub use transform::{
    bilinear, bilinear_zpk, lp2bp, lp2bp_zpk, lp2bs, lp2bs_zpk, lp2hp, lp2hp_zpk, lp2lp, lp2lp_zpk,
};
pub use zpkresp::{findfreqs, findfreqs_zpk, freqs_zpk, freqz_zpk};

/// The prototype moved to the pre-warped edges ([`transform::zpk_transform`]: `s -> s / wo`,
/// `wo / s`, `(s^2 + w0^2) / (bw s)` or `bw s / (s^2 + w0^2)`, with `w0` the geometric centre
/// and `bw` the width of the band).
fn to_edges(f: Zpk, edges: [f64; 2], btype: BandType) -> Zpk {
    let [lo, hi] = edges;
    let (band, wo, bw) = match btype {
        BandType::Lowpass => (Band::Lowpass, lo, 0.0),
        BandType::Highpass => (Band::Highpass, lo, 0.0),
        BandType::Bandpass => (Band::Bandpass, (lo * hi).sqrt(), hi - lo),
        BandType::Bandstop => (Band::Bandstop, (lo * hi).sqrt(), hi - lo),
    };
    zpk_transform(&f.into(), band, wo, bw).into()
}

/// The bilinear transform `z = (4 + s) / (4 - s)` (SciPy's `bilinear_zpk` with `fs = 2`):
/// zeros at infinity go to `z = -1`.
fn to_digital(f: Zpk) -> Zpk {
    zpk_bilinear(&f.into(), 2.0).into()
}

/// The monic polynomial with roots `r`, highest power first, real parts (the roots come in
/// conjugate pairs).
fn poly(r: &[c64]) -> Vec<f64> {
    convert::expand(r).into_iter().map(|v| v.re).collect()
}

/// Where a design's frequencies live: digital designs take fractions of the Nyquist frequency,
/// pre-warped and mapped by the bilinear transform; analog designs angular frequencies
/// (rad/s), used as they are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Domain {
    Digital,
    Analog,
}

/// The band edges of `wn` for `btype`, checked: one edge for low- and high-pass designs, two
/// increasing edges for band designs; each in `(0, 1)` (digital) or positive and finite
/// (analog).
fn edges(what: &str, wn: Cutoff, btype: BandType, domain: Domain) -> Result<[f64; 2]> {
    let band = matches!(btype, BandType::Bandpass | BandType::Bandstop);
    let e = match (wn, band) {
        (Cutoff::Edge(w), false) => [w, w],
        (Cutoff::Band(lo, hi), true) => [lo, hi],
        (Cutoff::Edge(w), true) => {
            return Err(Error::InvalidArgument(format!(
                "{what}: a {btype:?} design takes two band edges, not the one frequency {w}"
            )));
        }
        (Cutoff::Band(lo, hi), false) => {
            return Err(Error::InvalidArgument(format!(
                "{what}: a {btype:?} design takes one cutoff, not the band ({lo}, {hi})"
            )));
        }
    };
    let inside = |w: f64| match domain {
        Domain::Digital => w > 0.0 && w < 1.0,
        Domain::Analog => w > 0.0 && w.is_finite(),
    };
    if !e.iter().all(|&w| inside(w)) || (band && e[0] >= e[1]) {
        let shown = if band {
            format!("the band edges ({}, {})", e[0], e[1])
        } else {
            format!("the cutoff {}", e[0])
        };
        let within = match domain {
            Domain::Digital => "lie strictly between 0 and 1 (the Nyquist frequency)",
            Domain::Analog => "be positive and finite (rad/s)",
        };
        let rule = if band { "must increase and " } else { "must " };
        return Err(Error::InvalidArgument(format!(
            "{what}: {shown} {rule}{within}"
        )));
    }
    Ok(e)
}

/// The checked order and edges, then the design of the prototype `proto(n)` (made only once
/// the arguments are checked) in `domain`.
fn design(
    what: &str,
    (n, wn, btype, domain): (usize, Cutoff, BandType, Domain),
    proto: impl FnOnce(usize) -> Result<Zpk>,
) -> Result<Zpk> {
    if n == 0 || n > IIR_MAX_ORDER {
        return Err(Error::InvalidArgument(format!(
            "{what}: the order {n} must lie between 1 and {IIR_MAX_ORDER}"
        )));
    }
    let e = edges(what, wn, btype, domain)?;
    if domain == Domain::Analog {
        return Ok(to_edges(proto(n)?, e, btype));
    }
    // The analog edges whose bilinear images are the digital ones (pre-warping, `fs = 2`).
    let warped = e.map(|w| 4.0 * (PI * w / 2.0).tan());
    Ok(to_digital(to_edges(proto(n)?, warped, btype)))
}

/// A ripple or attenuation in decibels, checked positive and finite.
fn check_db(what: &str, name: &str, db: f64) -> Result<()> {
    if !(db > 0.0 && db.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: {name} = {db} dB must be positive and finite"
        )));
    }
    Ok(())
}

/// A design family and its parameters: what the public functions of each family share.
#[derive(Clone, Copy)]
enum Family {
    Butter,
    Cheby1 { rp: f64 },
    Cheby2 { rs: f64 },
    Ellip { rp: f64, rs: f64 },
    Bessel(BesselNorm),
}

impl Family {
    /// The digital design of order `n` at `wn` for `btype` ([`Family::zpk_in`]).
    fn zpk(self, n: usize, wn: Cutoff, btype: BandType) -> Result<Zpk> {
        self.zpk_in(n, wn, btype, Domain::Digital)
    }

    /// The design of order `n` at `wn` for `btype` in `domain`, its parameters checked
    /// first: ripples and attenuations positive and finite (an elliptic `rs` above its `rp`),
    /// a Bessel order at most [`BESSEL_MAX_ORDER`], then as [`design`] checks.
    fn zpk_in(self, n: usize, wn: Cutoff, btype: BandType, domain: Domain) -> Result<Zpk> {
        let rp = "the passband ripple rp";
        let rs = "the stopband attenuation rs";
        let at = (n, wn, btype, domain);
        match self {
            Family::Butter => design("butter", at, |n| Ok(proto::buttap(n))),
            Family::Cheby1 { rp: r } => {
                check_db("cheby1", rp, r)?;
                design("cheby1", at, |n| Ok(proto::cheb1ap(n, r)))
            }
            Family::Cheby2 { rs: r } => {
                check_db("cheby2", rs, r)?;
                design("cheby2", at, |n| Ok(proto::cheb2ap(n, r)))
            }
            Family::Ellip { rp: p, rs: s } => {
                check_db("ellip", rp, p)?;
                check_db("ellip", rs, s)?;
                if s <= p {
                    return Err(Error::InvalidArgument(format!(
                        "ellip: the stopband attenuation rs = {s} dB must exceed the passband \
                         ripple rp = {p} dB"
                    )));
                }
                design("ellip", at, |n| Ok(proto::ellipap(n, p, s)))
            }
            Family::Bessel(norm) => {
                if n > BESSEL_MAX_ORDER {
                    return Err(Error::InvalidArgument(format!(
                        "bessel: the order {n} exceeds the largest supported, {BESSEL_MAX_ORDER}"
                    )));
                }
                design("bessel", at, |n| proto::besselap(n, norm))
            }
        }
    }
}

/// `(b, a)` of a digital design, both of one coefficient more than the poles, `a[0] = 1`.
fn to_ba(f: &Zpk) -> (Vec<f64>, Vec<f64>) {
    let b = poly(&f.z).into_iter().map(|v| v * f.k).collect();
    (b, poly(&f.p))
}

/// Second-order sections `[b0, b1, b2, 1, a1, a2]` of a digital design, paired as SciPy's
/// `zpk2sos` pairs them by default ([`SosPairing::Nearest`]), the gain in the first section:
/// SciPy's `output='sos'`.
fn to_sos(what: &str, f: Zpk) -> Result<Vec<[f64; 6]>> {
    sos::zpk2sos_as(what, &f.into(), SosPairing::Nearest, false)
}

/// The digital Butterworth filter of order `n` with its -3 dB points at `wn` (fractions of the
/// Nyquist frequency, in `(0, 1)`: one cutoff, or the two edges of a band), as
/// transfer-function coefficients `(b, a)` (SciPy's `butter(n, wn, btype)`): the analog
/// prototype at the pre-warped edges, mapped by the bilinear transform. Band designs have
/// order `2n`.
///
/// # Errors
/// `n` 0 or above [`IIR_MAX_ORDER`], or `wn` outside `(0, 1)`, not increasing, or not as
/// many frequencies as `btype` takes, named.
///
/// ```
/// use cuprite_array::signal::{BandType, butter};
/// let (b, a) = butter(2, 0.5, BandType::Lowpass)?;
/// // At half the Nyquist frequency: b = (1, 2, 1) / (2 + sqrt 2), a = (1, 0, (2 - sqrt 2) / (2 + sqrt 2)).
/// let s = 2f64.sqrt();
/// assert!((b[0] - 1.0 / (2.0 + s)).abs() < 1e-15 && (b[1] - 2.0 * b[0]).abs() < 1e-15);
/// assert!(a[1].abs() < 1e-15 && (a[2] - (2.0 - s) / (2.0 + s)).abs() < 1e-15);
/// // A band-pass design of order 3 has 6 poles.
/// let (b, a) = butter(3, [0.2, 0.4], BandType::Bandpass)?;
/// assert_eq!((b.len(), a.len()), (7, 7));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn butter(n: usize, wn: impl Into<Cutoff>, btype: BandType) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(to_ba(&Family::Butter.zpk(n, wn.into(), btype)?))
}

/// [`butter`] as second-order sections `[b0, b1, b2, 1, a1, a2]` for
/// [`sosfilt`](super::sosfilt) and [`sosfiltfilt`](super::sosfiltfilt), SciPy's
/// `butter(..., output='sos')`: the zeros and poles paired by [`zpk2sos`] with
/// [`SosPairing::Nearest`] (a section per conjugate pole pair or pair of real poles, and a
/// first-order one for the lone real pole of an odd order; the poles nearest the unit circle
/// last), the gain in the first section.
///
/// # Errors
/// As [`butter`].
///
/// ```
/// use cuprite_array::signal::{BandType, butter_sos};
/// let sos = butter_sos(5, 0.2, BandType::Highpass)?;
/// assert_eq!(sos.len(), 3);
/// assert_eq!(sos[0][2], 0.0); // the real pole's first-order section
/// assert_eq!(butter_sos(5, [0.1, 0.3], BandType::Bandstop)?.len(), 5);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn butter_sos(n: usize, wn: impl Into<Cutoff>, btype: BandType) -> Result<Vec<[f64; 6]>> {
    to_sos("butter_sos", Family::Butter.zpk(n, wn.into(), btype)?)
}

/// The digital Chebyshev type I filter of order `n` with `rp` dB of equiripple in the
/// passband, whose gain first falls below `-rp` dB at `wn` (fractions of the Nyquist
/// frequency: a cutoff or a band's edges), as `(b, a)` (SciPy's `cheby1(n, rp, wn, btype)`).
/// The gain at the passband's centre (DC for a low-pass) is 1 for odd `n` and `-rp` dB for
/// even `n`.
///
/// # Errors
/// `rp` not positive and finite, and those of [`butter`], named.
///
/// ```
/// use cuprite_array::signal::{BandType, cheby1};
/// let (b, a) = cheby1(4, 1.0, 0.3, BandType::Lowpass)?;
/// // The DC gain sum(b) / sum(a) is -1 dB for an even order.
/// let dc = b.iter().sum::<f64>() / a.iter().sum::<f64>();
/// assert!((20.0 * dc.log10() + 1.0).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheby1(
    n: usize,
    rp: f64,
    wn: impl Into<Cutoff>,
    btype: BandType,
) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(to_ba(&Family::Cheby1 { rp }.zpk(n, wn.into(), btype)?))
}

/// [`cheby1`] as second-order sections, laid out as [`butter_sos`]'s.
///
/// # Errors
/// As [`cheby1`].
///
/// ```
/// use cuprite_array::signal::{BandType, cheby1_sos};
/// let sos = cheby1_sos(8, 0.05, 0.2, BandType::Lowpass)?;
/// assert_eq!(sos.len(), 4);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheby1_sos(
    n: usize,
    rp: f64,
    wn: impl Into<Cutoff>,
    btype: BandType,
) -> Result<Vec<[f64; 6]>> {
    to_sos(
        "cheby1_sos",
        Family::Cheby1 { rp }.zpk(n, wn.into(), btype)?,
    )
}

/// The digital Chebyshev type II filter of order `n`, flat in the passband, with equiripple
/// at least `rs` dB down in the stopband, which begins at `wn` (fractions of the Nyquist
/// frequency: the gain first reaches `-rs` dB there), as `(b, a)` (SciPy's `cheby2(n, rs, wn,
/// btype)`). Its zeros lie on the unit circle.
///
/// # Errors
/// `rs` not positive and finite, and those of [`butter`], named.
///
/// ```
/// use cuprite_array::signal::{BandType, cheby2};
/// let (b, a) = cheby2(4, 40.0, 0.5, BandType::Lowpass)?;
/// // Unit gain at DC; at Nyquist (z = -1) the even order's gain is the stopband's -40 dB.
/// let at = |z: f64| {
///     let ev = |c: &[f64]| c.iter().rev().fold(0.0, |acc, &v| acc * z + v);
///     ev(&b) / ev(&a)
/// };
/// assert!((at(1.0) - 1.0).abs() < 1e-12);
/// assert!((20.0 * at(-1.0).abs().log10() + 40.0).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheby2(
    n: usize,
    rs: f64,
    wn: impl Into<Cutoff>,
    btype: BandType,
) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(to_ba(&Family::Cheby2 { rs }.zpk(n, wn.into(), btype)?))
}

/// [`cheby2`] as second-order sections, laid out as [`butter_sos`]'s.
///
/// # Errors
/// As [`cheby2`].
///
/// ```
/// use cuprite_array::signal::{BandType, cheby2_sos};
/// let sos = cheby2_sos(6, 60.0, [0.2, 0.5], BandType::Bandpass)?;
/// assert_eq!(sos.len(), 6);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheby2_sos(
    n: usize,
    rs: f64,
    wn: impl Into<Cutoff>,
    btype: BandType,
) -> Result<Vec<[f64; 6]>> {
    to_sos(
        "cheby2_sos",
        Family::Cheby2 { rs }.zpk(n, wn.into(), btype)?,
    )
}

/// The digital elliptic (Cauer) filter of order `n`: `rp` dB of equiripple in the passband,
/// whose gain first falls below `-rp` dB at `wn` (fractions of the Nyquist frequency: a
/// cutoff or a band's edges), and equiripple at least `rs` dB down in the stopband, as `(b,
/// a)` (SciPy's `ellip(n, rp, rs, wn, btype)`). The steepest transition of the designs here
/// for its order. The prototype's poles and zeros come from Jacobi elliptic functions of the
/// selectivity that the degree equation gives for `n`, `rp` and `rs`.
///
/// # Errors
/// `rp` not positive and finite, `rs` not above `rp` or not finite, and those of [`butter`],
/// named.
///
/// ```
/// use cuprite_array::signal::{BandType, ellip};
/// let (b, a) = ellip(5, 0.5, 60.0, 0.25, BandType::Lowpass)?;
/// // An odd order has unit gain at DC.
/// let dc = b.iter().sum::<f64>() / a.iter().sum::<f64>();
/// assert!((dc - 1.0).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ellip(
    n: usize,
    rp: f64,
    rs: f64,
    wn: impl Into<Cutoff>,
    btype: BandType,
) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(to_ba(&Family::Ellip { rp, rs }.zpk(n, wn.into(), btype)?))
}

/// [`ellip`] as second-order sections, laid out as [`butter_sos`]'s.
///
/// # Errors
/// As [`ellip`].
///
/// ```
/// use cuprite_array::signal::{BandType, ellip_sos};
/// let sos = ellip_sos(7, 0.1, 80.0, 0.3, BandType::Highpass)?;
/// assert_eq!(sos.len(), 4);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ellip_sos(
    n: usize,
    rp: f64,
    rs: f64,
    wn: impl Into<Cutoff>,
    btype: BandType,
) -> Result<Vec<[f64; 6]>> {
    to_sos(
        "ellip_sos",
        Family::Ellip { rp, rs }.zpk(n, wn.into(), btype)?,
    )
}

/// The digital Bessel-Thomson filter of order `n` (at most 20), whose analog prototype has
/// the flattest group delay, normalised at `wn` (fractions of the Nyquist frequency: a cutoff
/// or a band's edges) as `norm` says, as `(b, a)` (SciPy's `bessel(n, wn, btype,
/// norm=...)`). The bilinear transform keeps the magnitude's shape but not the flat delay
/// near Nyquist.
///
/// # Errors
/// `n` above 20 (where the poles' accuracy falls below `1e-6` relative), and those of
/// [`butter`], named.
///
/// ```
/// use cuprite_array::signal::{BandType, BesselNorm, bessel};
/// let (b, a) = bessel(4, 0.2, BandType::Lowpass, BesselNorm::Mag)?;
/// // Normalised by magnitude: -3 dB at the cutoff, w = 0.2 pi.
/// let w = 0.2 * std::f64::consts::PI;
/// let h = |c: &[f64]| {
///     let (re, im) = c.iter().enumerate().fold((0.0, 0.0), |(re, im), (k, &v)| {
///         (re + v * (w * k as f64).cos(), im - v * (w * k as f64).sin())
///     });
///     (re * re + im * im).sqrt()
/// };
/// assert!((20.0 * (h(&b) / h(&a)).log10() + 10.0 * 2f64.log10()).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bessel(
    n: usize,
    wn: impl Into<Cutoff>,
    btype: BandType,
    norm: BesselNorm,
) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(to_ba(&Family::Bessel(norm).zpk(n, wn.into(), btype)?))
}

/// [`bessel`] as second-order sections, laid out as [`butter_sos`]'s.
///
/// # Errors
/// As [`bessel`].
///
/// ```
/// use cuprite_array::signal::{BandType, BesselNorm, bessel_sos};
/// let sos = bessel_sos(3, [0.1, 0.2], BandType::Bandpass, BesselNorm::Phase)?;
/// assert_eq!(sos.len(), 3);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bessel_sos(
    n: usize,
    wn: impl Into<Cutoff>,
    btype: BandType,
    norm: BesselNorm,
) -> Result<Vec<[f64; 6]>> {
    to_sos("bessel_sos", Family::Bessel(norm).zpk(n, wn.into(), btype)?)
}

/// The analog filter of `family` (SciPy's `butter`, `cheby1`, `cheby2`, `ellip` or `bessel`
/// with `analog=True`): the prototype moved to the edges `wn` (angular frequencies, rad/s),
/// with no bilinear transform, as `(b, a)`: coefficients of descending powers of `s`, `b`
/// with one more than the zeros (fewer than the poles where the prototype has zeros at
/// infinity), `a[0] = 1`. [`freqs`] evaluates its response.
///
/// # Errors
/// `wn` not positive and finite (rad/s), not increasing, or not as many frequencies as
/// `btype` takes; `n` 0 or above [`IIR_MAX_ORDER`]; the family's own parameters as its
/// digital design checks them. Each named.
///
/// ```
/// use cuprite_array::signal::{IirFamily, BandType, iir_analog};
/// // SciPy: butter(2, 10, analog=True) = (100, [1, 10 sqrt 2, 100]).
/// let (b, a) = iir_analog(IirFamily::Butter, 2, 10.0, BandType::Lowpass)?;
/// assert!((b[0] - 100.0).abs() < 1e-12 && b.len() == 1);
/// assert!((a[1] - 10.0 * 2f64.sqrt()).abs() < 1e-12 && (a[2] - 100.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn iir_analog(
    family: IirFamily,
    n: usize,
    wn: impl Into<Cutoff>,
    btype: BandType,
) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(to_ba(&Family::from(family).zpk_in(
        n,
        wn.into(),
        btype,
        Domain::Analog,
    )?))
}

impl From<IirFamily> for Family {
    fn from(family: IirFamily) -> Self {
        match family {
            IirFamily::Butter => Family::Butter,
            IirFamily::Cheby1 { rp } => Family::Cheby1 { rp },
            IirFamily::Cheby2 { rs } => Family::Cheby2 { rs },
            IirFamily::Ellip { rp, rs } => Family::Ellip { rp, rs },
            IirFamily::Bessel(norm) => Family::Bessel(norm),
        }
    }
}

/// The IIR filter of `family` and order `n` at `wn` for `btype`, as zeros, poles and gain
/// (SciPy's `iirfilter(n, wn, rp, rs, btype, analog, ftype, output='zpk')`): digital, with
/// `wn` fractions of the Nyquist frequency in `(0, 1)`, or with `analog` the analog filter
/// at the angular frequencies `wn` (rad/s). [`zpk2tf`] gives SciPy's default `output='ba'`,
/// [`zpk2sos`] with [`SosPairing::Nearest`] its `output='sos'`. The design is the one
/// [`butter`], [`cheby1`], [`cheby2`], [`ellip`] and [`bessel`] (or [`iir_analog`]) make.
///
/// # Errors
/// As the family's own design: `n` 0 or above [`IIR_MAX_ORDER`], `wn` outside its domain, not
/// increasing, or not as many frequencies as `btype` takes, and the family's ripples and
/// attenuations, each named.
///
/// ```
/// use cuprite_array::signal::{BandType, IirFamily, cheby1, iirfilter, zpk2tf};
/// let f = iirfilter(IirFamily::Cheby1 { rp: 1.0 }, 4, [0.2, 0.5], BandType::Bandpass, false)?;
/// assert_eq!((f.zeros.len(), f.poles.len()), (8, 8));
/// let (b, a) = zpk2tf(&f)?;
/// let (b1, a1) = cheby1(4, 1.0, [0.2, 0.5], BandType::Bandpass)?;
/// assert!(b.iter().zip(&b1).chain(a.iter().zip(&a1)).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[must_use = "the design is returned, not applied"]
pub fn iirfilter(
    family: IirFamily,
    n: usize,
    wn: impl Into<Cutoff>,
    btype: BandType,
    analog: bool,
) -> Result<ZerosPolesGain> {
    let domain = if analog {
        Domain::Analog
    } else {
        Domain::Digital
    };
    Ok(Family::from(family)
        .zpk_in(n, wn.into(), btype, domain)?
        .into())
}

/// The least-order digital IIR filter of `ftype` that loses at most `gpass` dB in the
/// passband (up to the edge or edges `wp`, fractions of the Nyquist frequency) and at least
/// `gstop` dB in the stopband (from `ws` on), as zeros, poles and gain (SciPy's
/// `iirdesign(wp, ws, gpass, gstop, ftype=..., output='zpk')`): the order and edges of the
/// family's order selection ([`buttord`], [`cheb1ord`], [`cheb2ord`], [`ellipord`]), then
/// [`iirfilter`] with `rp = gpass` and `rs = gstop`. The band type follows from where `ws`
/// lies against `wp`. SciPy's default family is [`IirDesignType::Ellip`].
///
/// # Errors
/// As the order selection: `gpass` or `gstop` not finite with `0 < gpass < gstop`, edges
/// outside `(0, 1)`, one edge against a band, a placement of no band type, or an order above
/// [`IIR_MAX_ORDER`]; each named.
///
/// ```
/// use cuprite_array::signal::{IirDesignType, freqz_zpk, iirdesign};
/// let f = iirdesign(0.2, 0.3, 1.0, 40.0, IirDesignType::Ellip)?;
/// // From the stopband edge (0.3 pi rad/sample) on, the response is down by at least 40 dB.
/// let (w, h) = freqz_zpk(&f, 1000)?;
/// let stop = w.iter().zip(&h).filter(|(w, _)| **w >= 0.3 * std::f64::consts::PI);
/// assert!(stop.into_iter().all(|(_, h)| 20.0 * h.norm().log10() <= -40.0 + 1e-9));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[must_use = "the design is returned, not applied"]
pub fn iirdesign(
    wp: impl Into<Cutoff>,
    ws: impl Into<Cutoff>,
    gpass: f64,
    gstop: f64,
    ftype: IirDesignType,
) -> Result<ZerosPolesGain> {
    let (wp, ws) = (wp.into(), ws.into());
    let (o, family) = match ftype {
        IirDesignType::Butter => (buttord(wp, ws, gpass, gstop)?, IirFamily::Butter),
        IirDesignType::Cheby1 => (
            cheb1ord(wp, ws, gpass, gstop)?,
            IirFamily::Cheby1 { rp: gpass },
        ),
        IirDesignType::Cheby2 => (
            cheb2ord(wp, ws, gpass, gstop)?,
            IirFamily::Cheby2 { rs: gstop },
        ),
        IirDesignType::Ellip => (
            ellipord(wp, ws, gpass, gstop)?,
            IirFamily::Ellip {
                rp: gpass,
                rs: gstop,
            },
        ),
    };
    iirfilter(family, o.order, o.wn, o.btype, false)
}

/// The family of an IIR design ([`iirfilter`], [`iir_analog`]) with its parameters: ripples
/// `rp` and attenuations `rs` in dB, the Bessel normalisation (SciPy's `ftype`, `rp`, `rs`
/// and `norm`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IirFamily {
    /// Butterworth ([`butter`]).
    Butter,
    /// Chebyshev type I with `rp` dB of passband ripple ([`cheby1`]).
    Cheby1 {
        /// The passband ripple, dB.
        rp: f64,
    },
    /// Chebyshev type II with `rs` dB of stopband attenuation ([`cheby2`]).
    Cheby2 {
        /// The stopband attenuation, dB.
        rs: f64,
    },
    /// Elliptic (Cauer) with `rp` dB of ripple and `rs` dB of attenuation ([`ellip`]).
    Ellip {
        /// The passband ripple, dB.
        rp: f64,
        /// The stopband attenuation, dB.
        rs: f64,
    },
    /// Bessel/Thomson with its normalisation ([`bessel`]).
    Bessel(BesselNorm),
}
