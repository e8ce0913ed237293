//! Order selection (SciPy's `buttord`, `cheb1ord`, `cheb2ord`, `ellipord`) and the
//! second-order notch and peak designs (`iirnotch`, `iirpeak`).
//!
//! Order selection maps the pass and stop edges to the low-pass prototype's frequency axis
//! (pre-warped, `tan(pi w / 2)`, then through the band's substitution), where the stopband
//! edge nearest the passband lies at `nat` times the passband edge, and takes the least
//! order whose prototype keeps the passband loss at most `gpass` dB while losing at least
//! `gstop` dB from `nat` on. For band-stop specifications the passband edges are first moved
//! inwards, each to the value that needs the least order (as SciPy does).

use super::band::{BandType, Cutoff, IIR_MAX_ORDER};
use super::jacobi::ellipk;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// An order and critical frequencies that meet a specification: pass `(order, wn, btype)`
/// to the design function whose order selection made it ([`buttord`] to
/// [`butter`](super::butter), [`cheb1ord`] to [`cheby1`](super::cheby1) with `rp = gpass`,
/// [`cheb2ord`] to [`cheby2`](super::cheby2) with `rs = gstop`, [`ellipord`] to
/// [`ellip`](super::ellip) with both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FilterOrder {
    /// The least order that meets the specification.
    pub order: usize,
    /// The critical frequencies for the design, as fractions of the Nyquist frequency.
    pub wn: Cutoff,
    /// The band the specification describes.
    pub btype: BandType,
}

/// Which prototype an order selection is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Butter,
    Cheby,
    Ellip,
}

/// The family of a least-order design ([`iirdesign`](super::iirdesign), [`band_stop_obj`]):
/// SciPy's `ftype` of `iirdesign`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IirDesignType {
    /// Butterworth ([`buttord`]).
    Butter,
    /// Chebyshev type I ([`cheb1ord`]).
    Cheby1,
    /// Chebyshev type II ([`cheb2ord`]).
    Cheby2,
    /// Elliptic ([`ellipord`]; SciPy's default).
    #[default]
    Ellip,
}

impl From<IirDesignType> for Kind {
    fn from(t: IirDesignType) -> Self {
        match t {
            IirDesignType::Butter => Kind::Butter,
            IirDesignType::Cheby1 | IirDesignType::Cheby2 => Kind::Cheby,
            IirDesignType::Ellip => Kind::Ellip,
        }
    }
}

/// The real-valued order a band-stop specification needs with its passband edge number
/// `ind` (0 or 1) moved to `wp` (SciPy's `band_stop_obj`, the objective that the order selections
/// minimise): `passb` and `stopb` are the passband and stopband edges on the prototype's
/// axis (pre-warped: `tan(pi w / 2)` of digital edges), `gpass` and `gstop` the losses in dB.
/// The nearest stopband edge lies at `nat = min |s (p0 - p1) / (s^2 - p0 p1)|` over the
/// stopband edges `s`, and the order is the family's for `nat`.
///
/// # Errors
/// `ind` above 1; an edge not positive and finite; `gpass` or `gstop` not finite with `0 <
/// gpass < gstop`. Each named.
///
/// ```
/// use cuprite_array::signal::{IirDesignType, band_stop_obj};
/// // Moving the lower passband edge away from the stopband lowers the order.
/// let (pb, sb) = ([0.5, 3.0], [0.9, 1.5]);
/// let at = |wp| band_stop_obj(wp, 0, pb, sb, 1.0, 40.0, IirDesignType::Butter);
/// assert!(at(0.4)? < at(0.5)?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[must_use = "the order is returned"]
pub fn band_stop_obj(
    wp: f64,
    ind: usize,
    passb: [f64; 2],
    stopb: [f64; 2],
    gpass: f64,
    gstop: f64,
    ftype: IirDesignType,
) -> Result<f64> {
    let what = "band_stop_obj";
    if ind > 1 {
        return Err(Error::InvalidArgument(format!(
            "{what}: ind = {ind} names no passband edge; take 0 or 1"
        )));
    }
    if let Some(v) = [wp, passb[0], passb[1], stopb[0], stopb[1]]
        .into_iter()
        .find(|v| !(*v > 0.0 && v.is_finite()))
    {
        return Err(Error::InvalidArgument(format!(
            "{what}: the edge {v} (wp = {wp}, passb = {passb:?}, stopb = {stopb:?}) must be \
             positive and finite"
        )));
    }
    if !(gpass > 0.0 && gpass.is_finite() && gstop > gpass && gstop.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the passband loss gpass = {gpass} dB and the stopband loss gstop = {gstop} \
             dB must be finite with 0 < gpass < gstop"
        )));
    }
    let mut pb = passb;
    pb[ind] = wp;
    Ok(real_order(
        ftype.into(),
        band_nat(pb, stopb, BandType::Bandstop),
        gpass,
        gstop,
    ))
}

/// A checked specification on the prototype's axis: the band, the pre-warped passband and
/// stopband edges (the passband's moved inwards for a band-stop), and `nat`.
struct Spec {
    btype: BandType,
    passb: [f64; 2],
    nat: f64,
}

/// The nearest stopband edge's frequency on the prototype's axis for the band edges `passb`
/// and `stopb` (pre-warped) of a band-pass or band-stop specification.
fn band_nat(passb: [f64; 2], stopb: [f64; 2], btype: BandType) -> f64 {
    stopb
        .iter()
        .map(|&s| {
            let v = (s * s - passb[0] * passb[1]) / (s * (passb[0] - passb[1]));
            let v = if btype == BandType::Bandstop {
                1.0 / v
            } else {
                v
            };
            v.abs()
        })
        .fold(f64::INFINITY, f64::min)
}

/// The real-valued order that the prototype `kind` needs to lose at most `gpass` dB up to 1
/// and at least `gstop` dB from `nat` on: `log((G_s - 1) / (G_p - 1)) / (2 log(nat))`
/// (Butterworth), `acosh(sqrt((G_s - 1) / (G_p - 1))) / acosh(nat)` (Chebyshev), or
/// `K(1 / nat) K'(k1) / (K'(1 / nat) K(k1))` with `k1 = sqrt((G_p - 1) / (G_s - 1))`
/// (elliptic), `G = 10^(dB / 10)`.
fn real_order(kind: Kind, nat: f64, gpass: f64, gstop: f64) -> f64 {
    let (gs, gp) = (pow10m1(0.1 * gstop), pow10m1(0.1 * gpass));
    match kind {
        Kind::Butter => (gs / gp).log10() / (2.0 * nat.log10()),
        Kind::Cheby => (gs / gp).sqrt().acosh() / nat.acosh(),
        Kind::Ellip => {
            let k0 = 1.0 / nat;
            let k0p = ((1.0 - k0) * (1.0 + k0)).sqrt();
            let k1 = (gp / gs).sqrt();
            let k1p = ((1.0 - k1) * (1.0 + k1)).sqrt();
            // K(k0) K'(k1) / (K'(k0) K(k1)); `ellipk` takes the complementary modulus.
            ellipk(k0p) * ellipk(k1) / (ellipk(k0) * ellipk(k1p))
        }
    }
}

/// `10^x - 1` without cancellation for small `x`.
fn pow10m1(x: f64) -> f64 {
    (x * std::f64::consts::LN_10).exp_m1()
}

/// The minimum over `[lo, hi]` of a function with one minimum there, by golden-section
/// search to `1e-12` of the interval.
fn golden_min(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let tol = 1e-12 * (hi - lo).abs().max(1e-300);
    let (mut a, mut b) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    for _ in 0..200 {
        if (hi - lo).abs() <= tol {
            break;
        }
        if fa <= fb {
            hi = b;
            (b, fb) = (a, fa);
            a = hi - r * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            (a, fa) = (b, fb);
            b = lo + r * (hi - lo);
            fb = f(b);
        }
    }
    (lo + hi) / 2.0
}

/// The checked specification of `what`: `gpass > 0`, `gstop > gpass`, both finite; `wp` and
/// `ws` both one edge or both a band, inside `(0, 1)`, bands increasing, and placed as one of
/// the four band types (low-pass `wp < ws`, high-pass `wp > ws`, band-pass `ws` around `wp`,
/// band-stop `wp` around `ws`).
fn spec(what: &str, kind: Kind, wp: Cutoff, ws: Cutoff, gpass: f64, gstop: f64) -> Result<Spec> {
    if !(gpass > 0.0 && gpass.is_finite() && gstop > gpass && gstop.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the passband loss gpass = {gpass} dB and the stopband loss gstop = {gstop} \
             dB must be finite with 0 < gpass < gstop"
        )));
    }
    let bad =
        |why: &str| Error::InvalidArgument(format!("{what}: wp = {wp:?} and ws = {ws:?}: {why}"));
    let inside = |w: f64| w > 0.0 && w < 1.0;
    let warp = |w: f64| (PI * w / 2.0).tan();
    match (wp, ws) {
        (Cutoff::Edge(p), Cutoff::Edge(s)) => {
            if !(inside(p) && inside(s) && p != s) {
                return Err(bad(
                    "the edges must differ and lie strictly between 0 and 1",
                ));
            }
            let (p, s) = (warp(p), warp(s));
            let (btype, nat) = if p < s {
                (BandType::Lowpass, s / p)
            } else {
                (BandType::Highpass, p / s)
            };
            Ok(Spec {
                btype,
                passb: [p, p],
                nat,
            })
        }
        (Cutoff::Band(p0, p1), Cutoff::Band(s0, s1)) => {
            if ![p0, p1, s0, s1].into_iter().all(inside) {
                return Err(bad("the edges must lie strictly between 0 and 1"));
            }
            let btype = if s0 < p0 && p0 < p1 && p1 < s1 {
                BandType::Bandpass
            } else if p0 < s0 && s0 < s1 && s1 < p1 {
                BandType::Bandstop
            } else {
                return Err(bad(
                    "a band-pass needs ws0 < wp0 < wp1 < ws1, a band-stop wp0 < ws0 < ws1 < wp1",
                ));
            };
            let mut passb = [warp(p0), warp(p1)];
            let stopb = [warp(s0), warp(s1)];
            if btype == BandType::Bandstop {
                // Each passband edge moved inwards to where the order is least, the other
                // kept where given.
                let order_with = |i: usize, v: f64| {
                    let mut pb = passb;
                    pb[i] = v;
                    real_order(kind, band_nat(pb, stopb, btype), gpass, gstop)
                };
                let e0 = golden_min(|v| order_with(0, v), passb[0], stopb[0] - 1e-12);
                let e1 = golden_min(|v| order_with(1, v), stopb[1] + 1e-12, passb[1]);
                passb = [e0, e1];
            }
            Ok(Spec {
                btype,
                passb,
                nat: band_nat(passb, stopb, btype),
            })
        }
        _ => Err(bad("both must be one edge, or both a band")),
    }
}

/// The least whole order of a real order, checked against [`IIR_MAX_ORDER`].
fn whole(what: &str, real: f64) -> Result<usize> {
    let n = real.ceil();
    if !(n.is_finite() && n <= IIR_MAX_ORDER as f64) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the specification needs order {real}, above {IIR_MAX_ORDER}: widen the \
             transition band or relax gpass and gstop"
        )));
    }
    Ok((n as usize).max(1))
}

/// The digital frequencies of the prototype-axis frequencies `w` (pre-warped), as a
/// [`Cutoff`] of the band's kind.
fn unwarp(w: [f64; 2], btype: BandType) -> Cutoff {
    let [a, b] = w.map(|v| v.atan() * 2.0 / PI);
    match btype {
        BandType::Lowpass | BandType::Highpass => Cutoff::Edge(a),
        _ => Cutoff::Band(a.min(b), a.max(b)),
    }
}

/// The least order of a digital Butterworth filter that loses at most `gpass` dB in the
/// passband (up to the edge or edges `wp`) and at least `gstop` dB in the stopband (from `ws`
/// on), with the -3 dB frequencies that give exactly `gpass` dB at the passband edges
/// (SciPy's `buttord`). The band type follows from where `ws` lies against `wp`.
///
/// # Errors
/// `gpass` or `gstop` not finite with `0 < gpass < gstop`; edges outside `(0, 1)`, one edge
/// against a band, or a placement of no band type; an order above [`IIR_MAX_ORDER`].
///
/// ```
/// use cuprite_array::signal::{BandType, butter, buttord};
/// let o = buttord(0.2, 0.3, 3.0, 40.0)?;
/// assert_eq!((o.order, o.btype), (11, BandType::Lowpass));
/// let (b, a) = butter(o.order, o.wn, o.btype)?;
/// assert_eq!(b.len(), 12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn buttord(
    wp: impl Into<Cutoff>,
    ws: impl Into<Cutoff>,
    gpass: f64,
    gstop: f64,
) -> Result<FilterOrder> {
    let s = spec("buttord", Kind::Butter, wp.into(), ws.into(), gpass, gstop)?;
    let order = whole("buttord", real_order(Kind::Butter, s.nat, gpass, gstop))?;
    // The prototype's -3 dB frequency that puts exactly `gpass` dB at 1.
    let w0 = pow10m1(0.1 * gpass).powf(-1.0 / (2.0 * order as f64));
    let [p0, p1] = s.passb;
    let wn = match s.btype {
        BandType::Lowpass => [w0 * p0; 2],
        BandType::Highpass => [p0 / w0; 2],
        BandType::Bandpass => {
            let h = w0 * (p1 - p0) / 2.0;
            let root = (h * h + p0 * p1).sqrt();
            [(root - h).abs(), (root + h).abs()]
        }
        BandType::Bandstop => {
            let d = (p1 - p0) * (p1 - p0) + 4.0 * w0 * w0 * p0 * p1;
            let d = d.sqrt();
            [
                ((p1 - p0) + d).abs() / (2.0 * w0),
                ((p1 - p0) - d).abs() / (2.0 * w0),
            ]
        }
    };
    Ok(FilterOrder {
        order,
        wn: unwarp(wn, s.btype),
        btype: s.btype,
    })
}

/// The least order of a digital Chebyshev type I filter for the specification of
/// [`buttord`], with the passband edges as its critical frequencies (design it with `rp =
/// gpass`; SciPy's `cheb1ord`).
///
/// # Errors
/// As [`buttord`].
///
/// ```
/// use cuprite_array::signal::{BandType, cheb1ord};
/// let o = cheb1ord([0.2, 0.5], [0.1, 0.6], 1.0, 50.0)?;
/// assert_eq!((o.order, o.btype), (7, BandType::Bandpass));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheb1ord(
    wp: impl Into<Cutoff>,
    ws: impl Into<Cutoff>,
    gpass: f64,
    gstop: f64,
) -> Result<FilterOrder> {
    let s = spec("cheb1ord", Kind::Cheby, wp.into(), ws.into(), gpass, gstop)?;
    let order = whole("cheb1ord", real_order(Kind::Cheby, s.nat, gpass, gstop))?;
    Ok(FilterOrder {
        order,
        wn: unwarp(s.passb, s.btype),
        btype: s.btype,
    })
}

/// The least order of a digital Chebyshev type II filter for the specification of
/// [`buttord`], with the frequencies where that order's response first reaches `-gstop` dB
/// as its critical frequencies (design it with `rs = gstop`; SciPy's `cheb2ord`).
///
/// # Errors
/// As [`buttord`].
///
/// ```
/// use cuprite_array::signal::{BandType, cheb2ord};
/// let o = cheb2ord(0.3, 0.2, 1.0, 40.0)?;
/// assert_eq!((o.order, o.btype), (6, BandType::Highpass));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheb2ord(
    wp: impl Into<Cutoff>,
    ws: impl Into<Cutoff>,
    gpass: f64,
    gstop: f64,
) -> Result<FilterOrder> {
    let s = spec("cheb2ord", Kind::Cheby, wp.into(), ws.into(), gpass, gstop)?;
    let real = real_order(Kind::Cheby, s.nat, gpass, gstop);
    let order = whole("cheb2ord", real)?;
    // Where the type II prototype of this order (stopband from 1 on) is `gpass` dB down, as a
    // fraction of its stopband edge: the passband edges sit there.
    let (gs, gp) = (pow10m1(0.1 * gstop), pow10m1(0.1 * gpass));
    let f = 1.0 / ((gs / gp).sqrt().acosh() / order as f64).cosh();
    let [p0, p1] = s.passb;
    let wn = match s.btype {
        BandType::Lowpass => [p0 / f; 2],
        BandType::Highpass => [p0 * f; 2],
        BandType::Bandstop => {
            let h = f * (p0 - p1) / 2.0;
            let n0 = h + (h * h + p1 * p0).sqrt();
            [n0, p0 * p1 / n0]
        }
        BandType::Bandpass => {
            let h = (p0 - p1) / (2.0 * f);
            let n0 = h + (h * h + p1 * p0).sqrt();
            [n0, p0 * p1 / n0]
        }
    };
    Ok(FilterOrder {
        order,
        wn: unwarp(wn, s.btype),
        btype: s.btype,
    })
}

/// The least order of a digital elliptic filter for the specification of [`buttord`], with
/// the passband edges as its critical frequencies (design it with `rp = gpass`, `rs = gstop`;
/// SciPy's `ellipord`).
///
/// # Errors
/// As [`buttord`].
///
/// ```
/// use cuprite_array::signal::{BandType, ellipord};
/// let o = ellipord(0.2, 0.3, 0.5, 60.0)?;
/// assert_eq!((o.order, o.btype), (6, BandType::Lowpass));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ellipord(
    wp: impl Into<Cutoff>,
    ws: impl Into<Cutoff>,
    gpass: f64,
    gstop: f64,
) -> Result<FilterOrder> {
    let s = spec("ellipord", Kind::Ellip, wp.into(), ws.into(), gpass, gstop)?;
    let order = whole("ellipord", real_order(Kind::Ellip, s.nat, gpass, gstop))?;
    Ok(FilterOrder {
        order,
        wn: unwarp(s.passb, s.btype),
        btype: s.btype,
    })
}

/// The checked centre `w0` (a fraction of the Nyquist frequency, in `(0, 1)`) and quality
/// `q` (positive, finite) of a notch or peak, as `(cos(pi w0), 1 / (1 + tan(pi w0 / 2q)))`.
fn notch_terms(what: &str, w0: f64, q: f64) -> Result<(f64, f64)> {
    if !(w0 > 0.0 && w0 < 1.0 && q > 0.0 && q.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the centre w0 = {w0} must lie strictly between 0 and 1 and the quality \
             q = {q} must be positive and finite"
        )));
    }
    let beta = (PI * w0 / q / 2.0).tan();
    Ok(((PI * w0).cos(), 1.0 / (1.0 + beta)))
}

/// The second-order IIR notch at `w0` (a fraction of the Nyquist frequency) with quality
/// `q`: zero gain at `w0`, unit gain at DC and Nyquist, and -3 dB points `w0 / q` apart (in
/// the same units), as `(b, a)` (SciPy's `iirnotch`).
///
/// # Errors
/// `w0` outside `(0, 1)` or `q` not positive and finite, named.
///
/// ```
/// use cuprite_array::signal::iirnotch;
/// let (b, a) = iirnotch(0.25, 30.0)?;
/// // Unit gain at DC: sum(b) / sum(a).
/// assert!((b.iter().sum::<f64>() / a.iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn iirnotch(w0: f64, q: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let (c, g) = notch_terms("iirnotch", w0, q)?;
    Ok((
        vec![g, -2.0 * g * c, g],
        vec![1.0, -2.0 * g * c, 2.0 * g - 1.0],
    ))
}

/// The second-order IIR peak (resonator) at `w0` with quality `q`: unit gain at `w0`, zero
/// at DC and Nyquist, -3 dB points `w0 / q` apart, as `(b, a)` (SciPy's `iirpeak`).
///
/// # Errors
/// As [`iirnotch`].
///
/// ```
/// use cuprite_array::signal::iirpeak;
/// let (b, _a) = iirpeak(0.5, 10.0)?;
/// assert_eq!(b[1], 0.0); // zeros at z = 1 and z = -1
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn iirpeak(w0: f64, q: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let (c, g) = notch_terms("iirpeak", w0, q)?;
    Ok((
        vec![1.0 - g, 0.0, g - 1.0],
        vec![1.0, -2.0 * g * c, 2.0 * g - 1.0],
    ))
}
