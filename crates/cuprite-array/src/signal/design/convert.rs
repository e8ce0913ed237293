//! Conversions between a filter's forms, on the host in `f64` (SciPy's `tf2zpk`, `zpk2tf`,
//! `sos2tf` and `sos2zpk`): transfer-function coefficients `(b, a)` (descending powers, of
//! `z^-1` or `s` alike), zeros, poles and gain, and second-order sections
//! `[b0, b1, b2, a0, a1, a2]`. Roots are the eigenvalues of the companion matrix
//! ([`crate::ops::roots`], on the CPU backend), in no particular order.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::c64;
use crate::error::{Error, Result};

/// A filter as its zeros, poles and gain: `k prod (x - z) / prod (x - p)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZerosPolesGain {
    /// The zeros.
    pub zeros: Vec<c64>,
    /// The poles.
    pub poles: Vec<c64>,
    /// The gain.
    pub gain: f64,
}

/// The most coefficients less one (the degree), roots or states that the conversions,
/// transforms and state-space calls take: far above a useful filter, whose coefficients lose
/// all precision long before it, and low enough that the quadratic and cubic work stays short.
pub const LTI_MAX_ORDER: usize = 2048;

/// The transfer function `(b, a)` normalised (SciPy's `normalize`): `a`'s leading zeros
/// dropped, both divided by `a`'s first coefficient, and `b`'s leading coefficients of
/// magnitude at most `1e-14` (after the division) dropped, one kept when all are (SciPy warns
/// of them as badly conditioned; here [`bad_coefficients`] reports them).
///
/// # Errors
/// `b` or `a` empty, `a` all zeros, a coefficient not finite, more than [`LTI_MAX_ORDER`] + 1
/// coefficients. Each named.
///
/// ```
/// use cuprite_array::signal::normalize;
/// let (b, a) = normalize(&[0.0, 2.0, 4.0], &[0.0, 2.0, 1.0])?;
/// assert_eq!((b, a), (vec![1.0, 2.0], vec![1.0, 0.5]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn normalize(b: &[f64], a: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    normalize_as("normalize", b, a)
}

/// [`normalize`], its errors naming the call `what`.
pub(super) fn normalize_as(what: &str, b: &[f64], a: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    check_poly(what, "numerator", b)?;
    check_poly(what, "denominator", a)?;
    let Some(ia) = a.iter().position(|&v| v != 0.0) else {
        return Err(Error::InvalidArgument(format!(
            "{what}: the denominator {a:?} has no non-zero coefficient"
        )));
    };
    let a0 = a[ia];
    let a: Vec<f64> = a[ia..].iter().map(|v| v / a0).collect();
    let b: Vec<f64> = b.iter().map(|v| v / a0).collect();
    let lead = small_leading(&b).min(b.len() - 1);
    Ok((b[lead..].to_vec(), a))
}

/// The number of leading coefficients of `b` of magnitude at most `1e-14` (all of them when
/// every one is).
fn small_leading(b: &[f64]) -> usize {
    b.iter().position(|v| v.abs() > 1e-14).unwrap_or(b.len())
}

/// SciPy's `BadCoefficients` warning as a value: the numerator of a transfer function began
/// with coefficients of magnitude at most `1e-14` after division by the denominator's first
/// non-zero coefficient, which [`normalize`] drops (keeping one when all are small), so the
/// filter's coefficients are badly conditioned and its results may be meaningless.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadCoefficients {
    /// How many leading numerator coefficients were that small.
    pub small: usize,
    /// How many of them [`normalize`] drops: `small`, or one fewer when every coefficient was
    /// small.
    pub dropped: usize,
}

impl std::fmt::Display for BadCoefficients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "badly conditioned filter coefficients (numerator): {} leading coefficients of \
             magnitude at most 1e-14, {} dropped; the results may be meaningless",
            self.small, self.dropped
        )
    }
}

impl std::error::Error for BadCoefficients {}

/// Whether [`normalize`]`(b, a)` finds the numerator badly conditioned, as SciPy warns with
/// `BadCoefficients` (and the design calls that normalise, such as [`tf2zpk`]): `Some` with
/// the count of small leading coefficients, `None` when the first one is larger than `1e-14`
/// after the division.
///
/// # Errors
/// As [`normalize`].
///
/// ```
/// use cuprite_array::signal::{BadCoefficients, bad_coefficients};
/// assert_eq!(bad_coefficients(&[1.0, 2.0], &[2.0, 1.0])?, None);
/// let bad = bad_coefficients(&[1e-15, 2.0, 4.0], &[1.0, 2.0, 1.0])?;
/// assert_eq!(bad, Some(BadCoefficients { small: 1, dropped: 1 }));
/// // Every coefficient small: one is kept.
/// assert_eq!(bad_coefficients(&[0.0, 1e-16], &[1.0])?.map(|b| b.dropped), Some(1));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[must_use = "the finding is returned"]
pub fn bad_coefficients(b: &[f64], a: &[f64]) -> Result<Option<BadCoefficients>> {
    check_poly("bad_coefficients", "numerator", b)?;
    check_poly("bad_coefficients", "denominator", a)?;
    let Some(&a0) = a.iter().find(|&&v| v != 0.0) else {
        return Err(Error::InvalidArgument(format!(
            "bad_coefficients: the denominator {a:?} has no non-zero coefficient"
        )));
    };
    let scaled: Vec<f64> = b.iter().map(|v| v / a0).collect();
    let small = small_leading(&scaled);
    Ok((small > 0).then(|| BadCoefficients {
        small,
        dropped: small.min(b.len() - 1),
    }))
}

/// Polynomial coefficients `c` named `name`, checked: not empty, every one finite, at most
/// [`LTI_MAX_ORDER`] + 1 of them.
pub(super) fn check_poly(what: &str, name: &str, c: &[f64]) -> Result<()> {
    if c.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the {name} is empty"
        )));
    }
    if c.len() > LTI_MAX_ORDER + 1 {
        return Err(Error::InvalidArgument(format!(
            "{what}: the {name} has {} coefficients, more than {} (LTI_MAX_ORDER + 1)",
            c.len(),
            LTI_MAX_ORDER + 1
        )));
    }
    if let Some(v) = c.iter().find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the {name} coefficient {v} is not finite"
        )));
    }
    Ok(())
}

/// Roots (`name` in messages), checked finite and at most [`LTI_MAX_ORDER`] of them.
pub(super) fn check_roots(what: &str, name: &str, r: &[c64]) -> Result<()> {
    if r.len() > LTI_MAX_ORDER {
        return Err(Error::InvalidArgument(format!(
            "{what}: {} {name}, more than {LTI_MAX_ORDER} (LTI_MAX_ORDER)",
            r.len()
        )));
    }
    if let Some(v) = r.iter().find(|v| !(v.re.is_finite() && v.im.is_finite())) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the {name} include {v}, not finite"
        )));
    }
    Ok(())
}

/// Zeros, poles and gain, checked: every value finite, at most [`LTI_MAX_ORDER`] zeros and as
/// many poles, and no more zeros than poles when `proper` (a transform that needs the
/// relative degree).
pub(super) fn check_zpk(what: &str, f: &ZerosPolesGain, proper: bool) -> Result<()> {
    check_roots(what, "zeros", &f.zeros)?;
    check_roots(what, "poles", &f.poles)?;
    if !f.gain.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the gain {} is not finite",
            f.gain
        )));
    }
    if proper && f.zeros.len() > f.poles.len() {
        return Err(Error::InvalidArgument(format!(
            "{what}: {} zeros and {} poles: an improper transfer function (it needs at least as \
             many poles as zeros)",
            f.zeros.len(),
            f.poles.len()
        )));
    }
    Ok(())
}

/// The zeros, poles and gain of the transfer function `(b, a)` (SciPy's `tf2zpk`): `a`'s
/// leading zeros dropped, both divided by its first coefficient, and `b`'s leading
/// coefficients of magnitude at most `1e-14` dropped (SciPy's `normalize`, which warns of
/// them; one kept when all are); the gain is then `b[0]`, the zeros the roots of `b`, the
/// poles those of `a`.
///
/// # Errors
/// `a` empty or all zeros, `b` empty, a coefficient not finite. Each named.
///
/// ```
/// use cuprite_array::signal::tf2zpk;
/// // (2x - 2) / (x^2 - 0.25): a zero at 1, poles at ±0.5, gain 2.
/// let f = tf2zpk(&[2.0, -2.0], &[1.0, 0.0, -0.25])?;
/// assert_eq!(f.gain, 2.0);
/// assert!((f.zeros[0].re - 1.0).abs() < 1e-12);
/// let mut p: Vec<f64> = f.poles.iter().map(|z| z.re).collect();
/// p.sort_by(f64::total_cmp);
/// assert!((p[0] + 0.5).abs() < 1e-12 && (p[1] - 0.5).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn tf2zpk(b: &[f64], a: &[f64]) -> Result<ZerosPolesGain> {
    let bad = |m: String| Err(Error::InvalidArgument(format!("tf2zpk: {m}")));
    if let Some(v) = b.iter().chain(a).find(|v| !v.is_finite()) {
        return bad(format!("the coefficient {v} is not finite"));
    }
    let Some(ia) = a.iter().position(|&v| v != 0.0) else {
        return bad(format!("the denominator {a:?} has no non-zero coefficient"));
    };
    if b.is_empty() {
        return bad("the numerator is empty".into());
    }
    let a0 = a[ia];
    let a: Vec<f64> = a[ia..].iter().map(|v| v / a0).collect();
    let b: Vec<f64> = b.iter().map(|v| v / a0).collect();
    let lead = b
        .iter()
        .position(|v| v.abs() > 1e-14)
        .unwrap_or(b.len() - 1);
    let b = &b[lead..];
    if b[0] == 0.0 {
        // A numerator of zeros: no zeros, gain 0.
        return Ok(ZerosPolesGain {
            zeros: Vec::new(),
            poles: roots_of(&a)?,
            gain: 0.0,
        });
    }
    let gain = b[0];
    let monic: Vec<f64> = b.iter().map(|v| v / gain).collect();
    Ok(ZerosPolesGain {
        zeros: roots_of(&monic)?,
        poles: roots_of(&a)?,
        gain,
    })
}

/// The transfer function `(b, a)` of zeros, poles and gain (SciPy's `zpk2tf`): `b = k
/// poly(z)`, `a = poly(p)`, descending powers.
///
/// # Errors
/// Zeros or poles not closed under conjugation (their polynomials would have complex
/// coefficients), or not finite. Each named.
///
/// ```
/// use cuprite_array::{c64, signal::{ZerosPolesGain, zpk2tf}};
/// let f = ZerosPolesGain { zeros: vec![c64::new(1.0, 0.0)], poles: vec![c64::new(0.0, 0.5), c64::new(0.0, -0.5)], gain: 2.0 };
/// let (b, a) = zpk2tf(&f)?;
/// assert_eq!((b, a), (vec![2.0, -2.0], vec![1.0, 0.0, 0.25]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn zpk2tf(f: &ZerosPolesGain) -> Result<(Vec<f64>, Vec<f64>)> {
    let b = real_poly("zpk2tf", "zeros", &f.zeros)?;
    let a = real_poly("zpk2tf", "poles", &f.poles)?;
    Ok((b.into_iter().map(|v| v * f.gain).collect(), a))
}

/// The transfer function of second-order sections (SciPy's `sos2tf`): the product of the
/// sections' numerators and of their denominators, each of `2 n + 1` coefficients.
///
/// # Errors
/// No sections, or a coefficient not finite, named.
///
/// ```
/// use cuprite_array::signal::sos2tf;
/// let (b, a) = sos2tf(&[[1.0, 1.0, 0.0, 1.0, -0.5, 0.0], [1.0, 0.0, 1.0, 1.0, 0.0, 0.25]])?;
/// assert_eq!(b, [1.0, 1.0, 1.0, 1.0, 0.0]);
/// assert_eq!(a, [1.0, -0.5, 0.25, -0.125, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sos2tf(sos: &[[f64; 6]]) -> Result<(Vec<f64>, Vec<f64>)> {
    check_sos("sos2tf", sos)?;
    let (mut b, mut a) = (vec![1.0], vec![1.0]);
    for s in sos {
        b = polymul(&b, &s[..3]);
        a = polymul(&a, &s[3..]);
    }
    Ok((b, a))
}

/// The zeros, poles and gain of second-order sections (SciPy's `sos2zpk`): two zeros and two
/// poles a section, in order (those of [`tf2zpk`] of its numerator and denominator, a root
/// fewer counted as a root at 0), the gain the product of the sections'.
///
/// # Errors
/// No sections, a coefficient not finite, a section whose denominator is all zeros. Each
/// named.
///
/// ```
/// use cuprite_array::signal::sos2zpk;
/// let f = sos2zpk(&[[2.0, 0.0, -2.0, 1.0, 0.0, -0.25]])?;
/// assert_eq!(f.gain, 2.0);
/// assert_eq!((f.zeros.len(), f.poles.len()), (2, 2));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sos2zpk(sos: &[[f64; 6]]) -> Result<ZerosPolesGain> {
    check_sos("sos2zpk", sos)?;
    let mut out = ZerosPolesGain {
        gain: 1.0,
        ..Default::default()
    };
    for s in sos {
        let f = tf2zpk(&s[..3], &s[3..])?;
        let pad = |mut v: Vec<c64>| {
            v.resize(2, c64::new(0.0, 0.0));
            v
        };
        out.zeros.extend(pad(f.zeros));
        out.poles.extend(pad(f.poles));
        out.gain *= f.gain;
    }
    Ok(out)
}

/// Sections, checked: at least one, every coefficient finite.
fn check_sos(what: &str, sos: &[[f64; 6]]) -> Result<()> {
    if sos.is_empty() {
        return Err(Error::InvalidArgument(format!("{what}: no sections")));
    }
    if let Some((i, s)) = sos
        .iter()
        .enumerate()
        .find(|(_, s)| !s.iter().all(|v| v.is_finite()))
    {
        return Err(Error::InvalidArgument(format!(
            "{what}: section {i} {s:?} has a coefficient that is not finite"
        )));
    }
    Ok(())
}

/// The roots of the polynomial `c` (descending powers, `c[0] != 0`).
pub(super) fn roots_of(c: &[f64]) -> Result<Vec<c64>> {
    if c.len() < 2 {
        return Ok(Vec::new());
    }
    let p = Array::from_slice_on(Device::CPU, c, &[c.len()])?;
    crate::ops::roots(&p)?.to_vec()
}

/// The product of two polynomials (descending powers).
pub(super) fn polymul(x: &[f64], y: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len() + y.len() - 1];
    for (i, &a) in x.iter().enumerate() {
        for (j, &b) in y.iter().enumerate() {
            out[i + j] += a * b;
        }
    }
    out
}

/// The monic polynomial with the roots `r` (descending powers): real when the roots are
/// closed under conjugation (each root's conjugate among them as often), else an `Err`
/// naming `what`.
pub(super) fn real_poly(call: &str, what: &str, r: &[c64]) -> Result<Vec<f64>> {
    if let Some(v) = r.iter().find(|v| !(v.re.is_finite() && v.im.is_finite())) {
        return Err(Error::InvalidArgument(format!(
            "{call}: the {what} include {v}, not finite"
        )));
    }
    let c = expand(r);
    let scale = c.iter().fold(1.0f64, |m, v| m.max(v.norm()));
    if c.iter().any(|v| v.im.abs() > 1e-10 * scale) {
        return Err(Error::InvalidArgument(format!(
            "{call}: the {what} {r:?} are not closed under conjugation, so their polynomial has \
             complex coefficients"
        )));
    }
    Ok(c.into_iter().map(|v| v.re).collect())
}

/// The monic polynomial with the roots `r`, descending powers, complex.
pub(super) fn expand(r: &[c64]) -> Vec<c64> {
    let mut c = vec![c64::new(0.0, 0.0); r.len() + 1];
    c[0] = c64::new(1.0, 0.0);
    for (i, &x) in r.iter().enumerate() {
        for j in (1..=i + 1).rev() {
            let prev = c[j - 1];
            c[j] -= x * prev;
        }
    }
    c
}
