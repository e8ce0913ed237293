//! Second-order sections from zeros, poles and gain or from a transfer function, paired as
//! SciPy's `zpk2sos` and `tf2sos` pair them ([`SosPairing`]).
//!
//! The roots are first split into conjugate pairs and real roots as SciPy's `_cplxreal` does
//! (relative tolerance `100 eps`): each pair kept as its member of positive imaginary part,
//! averaged with its partner's conjugate, pairs ordered by real part then imaginary
//! magnitude, real roots after them by value. The sections are then built from the last to
//! the first, each from the remaining pole nearest the unit circle (digital) or the
//! imaginary axis (analog), so that the sections nearest instability come last.

use super::convert::{ZerosPolesGain, check_zpk, tf2zpk};
use crate::dtype::c64;
use crate::error::{Error, Result};

/// How [`zpk2sos`] pairs poles with zeros (SciPy's `pairing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SosPairing {
    /// Each pole (pair) takes the zeros nearest it; an odd count of poles gets a pole and a
    /// zero at the origin added, so that every section is of second order (SciPy's default
    /// for digital filters).
    #[default]
    Nearest,
    /// As `Nearest`, but an odd count keeps one first-order section (its second pole and zero
    /// at the origin).
    KeepOdd,
    /// No roots added: sections may have fewer zeros than poles, their numerators shifted to
    /// the right (`[0, b0, b1]` or `[0, 0, b0]`); the only pairing of an analog conversion.
    Minimal,
}

/// Whether a split root is real (the split leaves real roots with a zero imaginary part).
fn is_real(v: c64) -> bool {
    v.im == 0.0
}

/// The roots `r` split as the module's notes say: the conjugate pairs' upper members, then
/// the real roots; `None` if a complex root has no conjugate within the tolerance.
fn split_pairs(r: &[c64]) -> Option<Vec<c64>> {
    let tol = 100.0 * f64::EPSILON;
    let mut z = r.to_vec();
    // Stable sort by real part, then by imaginary magnitude (SciPy's lexsort).
    z.sort_by(|a, b| {
        a.re.total_cmp(&b.re)
            .then(a.im.abs().total_cmp(&b.im.abs()))
    });
    let real = |v: &c64| v.im.abs() <= tol * v.norm();
    let reals: Vec<c64> = z
        .iter()
        .filter(|v| real(v))
        .map(|v| c64::new(v.re, 0.0))
        .collect();
    let mut up: Vec<c64> = z
        .iter()
        .filter(|v| !real(v) && v.im > 0.0)
        .copied()
        .collect();
    let mut down: Vec<c64> = z
        .iter()
        .filter(|v| !real(v) && v.im < 0.0)
        .copied()
        .collect();
    if up.len() != down.len() {
        return None;
    }
    // Runs of (nearly) equal real parts among the upper members, each run (and the same
    // positions among the lower ones) sorted by imaginary magnitude.
    let mut start = 0;
    while start < up.len() {
        let mut stop = start;
        while stop + 1 < up.len() && up[stop + 1].re - up[stop].re <= tol * up[stop].norm() {
            stop += 1;
        }
        for v in [&mut up, &mut down] {
            v[start..=stop].sort_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
        }
        start = stop + 1;
    }
    if up
        .iter()
        .zip(&down)
        .any(|(u, d)| (u - d.conj()).norm() > tol * d.norm())
    {
        return None;
    }
    let mut out: Vec<c64> = up
        .iter()
        .zip(&down)
        .map(|(u, d)| (u + d.conj()) / 2.0)
        .collect();
    out.extend(reals);
    Some(out)
}

/// The index of the first element of `v` (among those `keep` accepts) that minimises `key`.
fn argmin(v: &[c64], keep: impl Fn(c64) -> bool, key: impl Fn(c64) -> f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &x) in v.iter().enumerate() {
        if !keep(x) {
            continue;
        }
        let k = key(x);
        if best.is_none_or(|(_, b)| k < b) {
            best = Some((i, k));
        }
    }
    best.map(|(i, _)| i)
}

/// Removes and returns the element of `v` nearest to `to` among those `keep` accepts, ties to
/// the first.
fn take_nearest(v: &mut Vec<c64>, to: c64, keep: impl Fn(c64) -> bool) -> Option<c64> {
    let i = argmin(v, keep, |x| (x - to).norm())?;
    Some(v.remove(i))
}

/// The coefficients (descending powers, 3 - fewer leading zeros) of the monic polynomial
/// with the roots `r` (at most two, closed under conjugation), right-aligned in 3 slots.
fn section_poly(r: &[c64]) -> [f64; 3] {
    match *r {
        [] => [0.0, 0.0, 1.0],
        [x] => [0.0, 1.0, -x.re],
        [x, y] => {
            let s = -x - y;
            let p = x * y;
            [1.0, s.re, p.re]
        }
        _ => [0.0; 3],
    }
}

/// One section from its zeros and poles (at most two of each).
fn section(z: &[c64], p: &[c64]) -> [f64; 6] {
    let (b, a) = (section_poly(z), section_poly(p));
    [b[0], b[1], b[2], a[0], a[1], a[2]]
}

/// Second-order sections `[b0, b1, b2, a0, a1, a2]` of the filter `f` (SciPy's `zpk2sos(z,
/// p, k, pairing, analog=analog)`): section by section from the last, the remaining pole
/// nearest the unit circle (digital) or the imaginary axis (analog) with its conjugate or the
/// next such real pole, and the zeros nearest it (a conjugate pair or two real zeros; a
/// complex pair when one real pole and one real zero remain with one zero more than the
/// poles; a lone real pole a first-order section with the real zero nearest it). The gain
/// goes into the first section. A filter without roots is the one section `[k, 0, 0, 1, 0,
/// 0]` (digital) or `[0, 0, k, 0, 0, 1]` (analog). Digital filters with more zeros than poles
/// get poles at the origin, and the reverse, unless `pairing` is [`SosPairing::Minimal`].
///
/// # Errors
/// `analog` with a pairing other than [`SosPairing::Minimal`], more zeros than poles with
/// [`SosPairing::Minimal`], a complex root without its conjugate, a root or the gain not
/// finite, more than [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) roots. Each named.
///
/// ```
/// use cuprite_array::signal::{SosPairing, bilinear_zpk, buttap, lp2lp_zpk, zpk2sos};
/// // SciPy's butter(3, 0.25, output='zpk'): the prototype at the pre-warped cutoff, then
/// // the bilinear transform at fs = 2.
/// let f = bilinear_zpk(&lp2lp_zpk(&buttap(3)?, 4.0 * (std::f64::consts::PI / 8.0).tan())?, 2.0)?;
/// let sos = zpk2sos(&f, SosPairing::Nearest, false)?;
/// // Three poles: a pole and a zero at the origin added, two sections.
/// assert_eq!(sos.len(), 2);
/// assert!(sos.iter().all(|s| s[3] == 1.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn zpk2sos(f: &ZerosPolesGain, pairing: SosPairing, analog: bool) -> Result<Vec<[f64; 6]>> {
    zpk2sos_as("zpk2sos", f, pairing, analog)
}

/// [`zpk2sos`], its errors naming the call `what`.
pub(super) fn zpk2sos_as(
    what: &str,
    f: &ZerosPolesGain,
    pairing: SosPairing,
    analog: bool,
) -> Result<Vec<[f64; 6]>> {
    check_zpk(what, f, false)?;
    let bad = |m: String| Err(Error::InvalidArgument(format!("{what}: {m}")));
    if analog && pairing != SosPairing::Minimal {
        return bad(format!(
            "an analog conversion takes the pairing Minimal, not {pairing:?}"
        ));
    }
    let k = f.gain;
    if f.zeros.is_empty() && f.poles.is_empty() {
        return Ok(vec![if analog {
            [0.0, 0.0, k, 0.0, 0.0, 1.0]
        } else {
            [k, 0.0, 0.0, 1.0, 0.0, 0.0]
        }]);
    }
    let (mut z, mut p) = (f.zeros.clone(), f.poles.clone());
    let zero = c64::new(0.0, 0.0);
    let sections = if pairing == SosPairing::Minimal {
        if p.len() < z.len() {
            return bad(format!(
                "{} zeros and {} poles: the pairing Minimal needs at least as many poles as \
                 zeros",
                z.len(),
                p.len()
            ));
        }
        p.len().div_ceil(2)
    } else {
        let n = p.len().max(z.len());
        p.resize(n, zero);
        z.resize(n, zero);
        if n % 2 == 1 && pairing == SosPairing::Nearest {
            p.push(zero);
            z.push(zero);
        }
        n.div_ceil(2)
    };
    let unpaired = |name: &str, r: &[c64]| {
        Error::InvalidArgument(format!(
            "{what}: the {name} {r:?} include a complex value without its conjugate"
        ))
    };
    let mut z = split_pairs(&z).ok_or_else(|| unpaired("zeros", &f.zeros))?;
    let mut p = split_pairs(&p).ok_or_else(|| unpaired("poles", &f.poles))?;
    // How near a pole is to instability: the smaller, the nearer.
    let margin = |x: c64| {
        if analog {
            x.re.abs()
        } else {
            (1.0 - x.norm()).abs()
        }
    };
    let count_real = |v: &[c64]| v.iter().filter(|&&x| is_real(x)).count();
    let lost = || {
        Error::InvalidArgument(format!(
            "{what}: the zeros {:?} cannot be paired with the poles {:?} as {pairing:?}",
            f.zeros, f.poles
        ))
    };
    let mut sos = vec![[0.0; 6]; sections];
    for si in (0..sections).rev() {
        let i = argmin(&p, |_| true, margin).ok_or_else(lost)?;
        let p1 = p.remove(i);
        sos[si] = if is_real(p1) && count_real(&p) == 0 {
            // The last real pole: a first-order section.
            if pairing != SosPairing::Minimal {
                let z1 = take_nearest(&mut z, p1, is_real).ok_or_else(lost)?;
                section(&[z1, zero], &[p1, zero])
            } else if !z.is_empty() {
                let z1 = take_nearest(&mut z, p1, is_real).ok_or_else(lost)?;
                section(&[z1], &[p1])
            } else {
                section(&[], &[p1])
            }
        } else if p.len() + 1 == z.len()
            && !is_real(p1)
            && count_real(&p) == 1
            && count_real(&z) == 1
        {
            // One real pole and one real zero left to pair with each other: this pole takes
            // a complex zero pair.
            let z1 = take_nearest(&mut z, p1, |x| !is_real(x)).ok_or_else(lost)?;
            section(&[z1, z1.conj()], &[p1, p1.conj()])
        } else {
            let p2 = if is_real(p1) {
                let j = argmin(&p, is_real, margin).ok_or_else(lost)?;
                p.remove(j)
            } else {
                p1.conj()
            };
            match take_nearest(&mut z, p1, |_| true) {
                Some(z1) if !is_real(z1) => section(&[z1, z1.conj()], &[p1, p2]),
                Some(z1) if !z.is_empty() => {
                    let z2 = take_nearest(&mut z, p1, is_real).ok_or_else(lost)?;
                    section(&[z1, z2], &[p1, p2])
                }
                Some(z1) => section(&[z1], &[p1, p2]),
                None => section(&[], &[p1, p2]),
            }
        };
    }
    if let Some(first) = sos.first_mut() {
        for v in &mut first[..3] {
            *v *= k;
        }
    }
    Ok(sos)
}

/// Second-order sections of the transfer function `(b, a)` (SciPy's `tf2sos(b, a, pairing,
/// analog=analog)`): its zeros, poles and gain by [`tf2zpk`], then [`zpk2sos`].
///
/// # Errors
/// Those of [`tf2zpk`] and [`zpk2sos`], named.
///
/// ```
/// use cuprite_array::signal::{SosPairing, tf2sos};
/// // (1 + z^-1)^2 / (1 - 0.25 z^-2): one section.
/// let sos = tf2sos(&[1.0, 2.0, 1.0], &[1.0, 0.0, -0.25], SosPairing::Nearest, false)?;
/// assert_eq!(sos.len(), 1);
/// assert!((sos[0][1] - 2.0).abs() < 1e-7 && (sos[0][5] + 0.25).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn tf2sos(b: &[f64], a: &[f64], pairing: SosPairing, analog: bool) -> Result<Vec<[f64; 6]>> {
    zpk2sos_as("tf2sos", &tf2zpk(b, a)?, pairing, analog)
}
