//! Frequency transforms of analog filters and the bilinear transform (SciPy's `lp2lp`,
//! `lp2hp`, `lp2bp`, `lp2bs`, `bilinear` and their `_zpk` forms), on zeros, poles and gain
//! or on transfer-function coefficients (descending powers of `s`), in `f64` on the host.
//!
//! The substitutions: `s -> s / wo` (low-pass to low-pass), `s -> wo / s` (to high-pass),
//! `s -> (s^2 + wo^2) / (bw s)` (to band-pass), `s -> bw s / (s^2 + wo^2)` (to band-stop),
//! `s -> 2 fs (z - 1) / (z + 1)` (bilinear). The zero-pole forms keep the roots in SciPy's
//! order: a band transform gives every root's `+` image, then every `-` image, then the
//! zeros the transform adds.

use super::convert::{ZerosPolesGain, check_poly, check_zpk, normalize_as};
use crate::dtype::c64;
use crate::error::{Error, Result};

/// Which frequency transform (the substitutions of the module's notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Band {
    Lowpass,
    Highpass,
    Bandpass,
    Bandstop,
}

/// `prod(x - r)` over the roots `r`.
fn prod_minus(x: c64, r: &[c64]) -> c64 {
    r.iter().fold(c64::new(1.0, 0.0), |acc, &v| acc * (x - v))
}

/// The frequency transform `band` of `f` (more poles than zeros or as many: the caller checks)
/// to the centre or cutoff `wo` and width `bw` (band transforms only).
pub(super) fn zpk_transform(f: &ZerosPolesGain, band: Band, wo: f64, bw: f64) -> ZerosPolesGain {
    let degree = f.poles.len() - f.zeros.len();
    let zero = c64::new(0.0, 0.0);
    // The images `h + sqrt(h^2 - wo^2)` of every `h`, then the images `h - sqrt(...)`: the two
    // roots of `s^2 - 2 h s + wo^2`.
    let split = |h: Vec<c64>| -> Vec<c64> {
        let d: Vec<c64> = h.iter().map(|&h| (h * h - wo * wo).sqrt()).collect();
        let plus = h.iter().zip(&d).map(|(&h, &d)| h + d);
        let minus = h.iter().zip(&d).map(|(&h, &d)| h - d);
        plus.chain(minus).collect()
    };
    // `k prod(-z) / prod(-p)`: the gain of the transforms that invert `s`.
    let inverted_gain = || f.gain * (prod_minus(zero, &f.zeros) / prod_minus(zero, &f.poles)).re;
    match band {
        Band::Lowpass => ZerosPolesGain {
            zeros: f.zeros.iter().map(|&z| z * wo).collect(),
            poles: f.poles.iter().map(|&p| p * wo).collect(),
            gain: f.gain * wo.powi(degree as i32),
        },
        Band::Highpass => {
            let mut zeros: Vec<c64> = f.zeros.iter().map(|&z| wo / z).collect();
            zeros.extend(std::iter::repeat_n(zero, degree));
            ZerosPolesGain {
                zeros,
                poles: f.poles.iter().map(|&p| wo / p).collect(),
                gain: inverted_gain(),
            }
        }
        Band::Bandpass => {
            let mut zeros = split(f.zeros.iter().map(|&z| z * (bw / 2.0)).collect());
            zeros.extend(std::iter::repeat_n(zero, degree));
            ZerosPolesGain {
                zeros,
                poles: split(f.poles.iter().map(|&p| p * (bw / 2.0)).collect()),
                gain: f.gain * bw.powi(degree as i32),
            }
        }
        Band::Bandstop => {
            let mut zeros = split(f.zeros.iter().map(|&z| (bw / 2.0) / z).collect());
            zeros.extend(std::iter::repeat_n(c64::new(0.0, wo), degree));
            zeros.extend(std::iter::repeat_n(c64::new(0.0, -wo), degree));
            ZerosPolesGain {
                zeros,
                poles: split(f.poles.iter().map(|&p| (bw / 2.0) / p).collect()),
                gain: inverted_gain(),
            }
        }
    }
}

/// The bilinear transform of `f` at the sampling rate `fs` (as many poles as zeros or more:
/// the caller checks): each root `r` to `(2 fs + r) / (2 fs - r)`, the zeros at infinity to
/// `z = -1`, the gain `k Re(prod(2 fs - z) / prod(2 fs - p))`.
pub(super) fn zpk_bilinear(f: &ZerosPolesGain, fs: f64) -> ZerosPolesGain {
    let fs2 = c64::new(2.0 * fs, 0.0);
    let degree = f.poles.len() - f.zeros.len();
    let map = |r: &[c64]| -> Vec<c64> { r.iter().map(|&r| (fs2 + r) / (fs2 - r)).collect() };
    let mut zeros = map(&f.zeros);
    zeros.extend(std::iter::repeat_n(c64::new(-1.0, 0.0), degree));
    ZerosPolesGain {
        zeros,
        poles: map(&f.poles),
        gain: f.gain * (prod_minus(fs2, &f.zeros) / prod_minus(fs2, &f.poles)).re,
    }
}

/// A frequency, width or rate named `name`, checked positive and finite.
fn check_positive(what: &str, name: &str, v: f64) -> Result<()> {
    if !(v > 0.0 && v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the {name} {v} must be positive and finite"
        )));
    }
    Ok(())
}

/// The analog low-pass filter `f` moved to the cutoff `wo` rad/s (SciPy's `lp2lp_zpk`): `s ->
/// s / wo`, every root times `wo`, the gain times `wo^d` for `d` more poles than zeros.
///
/// # Errors
/// More zeros than poles, a root or the gain not finite, more than [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) roots,
/// `wo` not positive and finite. Each named.
///
/// ```
/// use cuprite_array::signal::{buttap, lp2lp_zpk};
/// let f = lp2lp_zpk(&buttap(2)?, 10.0)?;
/// assert!((f.gain - 100.0).abs() < 1e-12 && (f.poles[0].norm() - 10.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2lp_zpk(f: &ZerosPolesGain, wo: f64) -> Result<ZerosPolesGain> {
    check_zpk("lp2lp_zpk", f, true)?;
    check_positive("lp2lp_zpk", "cutoff wo", wo)?;
    Ok(zpk_transform(f, Band::Lowpass, wo, 0.0))
}

/// The analog low-pass filter `f` turned into a high-pass one with cutoff `wo` rad/s (SciPy's
/// `lp2hp_zpk`): `s -> wo / s`, every root `r` to `wo / r`, a zero at 0 for each of the `d`
/// more poles than zeros, the gain times `Re(prod(-z) / prod(-p))`.
///
/// # Errors
/// As [`lp2lp_zpk`].
///
/// ```
/// use cuprite_array::signal::{buttap, lp2hp_zpk};
/// let f = lp2hp_zpk(&buttap(3)?, 2.0)?;
/// assert_eq!(f.zeros.len(), 3);
/// assert!(f.zeros.iter().all(|z| z.norm() == 0.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2hp_zpk(f: &ZerosPolesGain, wo: f64) -> Result<ZerosPolesGain> {
    check_zpk("lp2hp_zpk", f, true)?;
    check_positive("lp2hp_zpk", "cutoff wo", wo)?;
    Ok(zpk_transform(f, Band::Highpass, wo, 0.0))
}

/// The analog low-pass filter `f` turned into a band-pass one centred on `wo` rad/s with
/// bandwidth `bw` rad/s (SciPy's `lp2bp_zpk`): `s -> (s^2 + wo^2) / (bw s)`, every root `r`
/// to the two roots of `s^2 - r bw s + wo^2` (all the `+` images first, then the `-` ones), a
/// zero at 0 for each of the `d` more poles than zeros, the gain times `bw^d`.
///
/// # Errors
/// As [`lp2lp_zpk`], and `bw` not positive and finite, named.
///
/// ```
/// use cuprite_array::signal::{buttap, lp2bp_zpk};
/// let f = lp2bp_zpk(&buttap(2)?, 5.0, 1.0)?;
/// assert_eq!((f.zeros.len(), f.poles.len()), (2, 4));
/// // The poles' product is wo^4.
/// let prod = f.poles.iter().fold(cuprite_array::c64::new(1.0, 0.0), |a, &p| a * p);
/// assert!((prod.re - 625.0).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2bp_zpk(f: &ZerosPolesGain, wo: f64, bw: f64) -> Result<ZerosPolesGain> {
    check_zpk("lp2bp_zpk", f, true)?;
    check_positive("lp2bp_zpk", "centre wo", wo)?;
    check_positive("lp2bp_zpk", "bandwidth bw", bw)?;
    Ok(zpk_transform(f, Band::Bandpass, wo, bw))
}

/// The analog low-pass filter `f` turned into a band-stop one centred on `wo` rad/s with
/// stopband width `bw` rad/s (SciPy's `lp2bs_zpk`): `s -> bw s / (s^2 + wo^2)`, every root
/// `r` to the two roots of `s^2 - (bw / r) s + wo^2` (the `+` images first), `d` zeros at `+i
/// wo` then `d` at `-i wo` for the `d` more poles than zeros, the gain times `Re(prod(-z) /
/// prod(-p))`.
///
/// # Errors
/// As [`lp2bp_zpk`].
///
/// ```
/// use cuprite_array::signal::{buttap, lp2bs_zpk};
/// let f = lp2bs_zpk(&buttap(1)?, 3.0, 1.0)?;
/// assert_eq!(f.zeros, [cuprite_array::c64::new(0.0, 3.0), cuprite_array::c64::new(0.0, -3.0)]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2bs_zpk(f: &ZerosPolesGain, wo: f64, bw: f64) -> Result<ZerosPolesGain> {
    check_zpk("lp2bs_zpk", f, true)?;
    check_positive("lp2bs_zpk", "centre wo", wo)?;
    check_positive("lp2bs_zpk", "stopband width bw", bw)?;
    Ok(zpk_transform(f, Band::Bandstop, wo, bw))
}

/// The digital filter that the bilinear transform `s = 2 fs (z - 1) / (z + 1)` makes of the
/// analog filter `f` at the sampling rate `fs` (SciPy's `bilinear_zpk`): each root `r` to `(2
/// fs + r) / (2 fs - r)`, the zeros at infinity to `z = -1`, the gain times `Re(prod(2 fs -
/// z) / prod(2 fs - p))`.
///
/// # Errors
/// As [`lp2lp_zpk`], and `fs` not positive and finite, named.
///
/// ```
/// use cuprite_array::signal::{ZerosPolesGain, bilinear_zpk};
/// use cuprite_array::c64;
/// // 1 / (s + 1) at fs = 0.5: the pole s = -1 goes to z = 0, the zero at infinity to -1.
/// let f = ZerosPolesGain { zeros: vec![], poles: vec![c64::new(-1.0, 0.0)], gain: 1.0 };
/// let d = bilinear_zpk(&f, 0.5)?;
/// assert_eq!((d.zeros[0].re, d.poles[0].re, d.gain), (-1.0, 0.0, 0.5));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bilinear_zpk(f: &ZerosPolesGain, fs: f64) -> Result<ZerosPolesGain> {
    check_zpk("bilinear_zpk", f, true)?;
    check_positive("bilinear_zpk", "sampling rate fs", fs)?;
    Ok(zpk_bilinear(f, fs))
}

/// `b` and `a` checked as [`check_poly`] does, and `a` not all zeros.
fn check_ba(what: &str, b: &[f64], a: &[f64]) -> Result<()> {
    check_poly(what, "numerator", b)?;
    check_poly(what, "denominator", a)?;
    if a.iter().all(|&v| v == 0.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the denominator {a:?} has no non-zero coefficient"
        )));
    }
    Ok(())
}

/// The result of a coefficient transform, checked finite (binomial coefficients and powers of
/// `wo` overflow for high orders), then normalised.
fn finish(what: &str, b: &[f64], a: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    if b.iter().chain(a).any(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the transformed coefficients overflow f64 (degree {} over {})",
            b.len().saturating_sub(1),
            a.len().saturating_sub(1)
        )));
    }
    normalize_as(what, b, a)
}

/// The analog low-pass filter `(b, a)` (descending powers of `s`) moved to the cutoff `wo`
/// rad/s (SciPy's `lp2lp`): `s -> s / wo`, the coefficient of `s^j` divided by `wo^j` and
/// both polynomials scaled so that the lower degree's leading power is unchanged, then
/// [`normalize`](super::normalize)d.
///
/// # Errors
/// `b` or `a` empty, `a` all zeros, a coefficient not finite, more than [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) + 1
/// coefficients, `wo` not positive and finite, an overflowing result. Each named.
///
/// ```
/// use cuprite_array::signal::lp2lp;
/// // 1 / (s + 1) to 1 / (s / 2 + 1) = 2 / (s + 2).
/// let (b, a) = lp2lp(&[1.0], &[1.0, 1.0], 2.0)?;
/// assert_eq!((b, a), (vec![2.0], vec![1.0, 2.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2lp(b: &[f64], a: &[f64], wo: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "lp2lp";
    check_ba(what, b, a)?;
    check_positive(what, "cutoff wo", wo)?;
    let (d, n) = (a.len(), b.len());
    let m = d.max(n);
    // pwo[i] = wo^(m - 1 - i)
    let pwo: Vec<f64> = (0..m).map(|i| wo.powi((m - 1 - i) as i32)).collect();
    let (s1, s2) = (n.saturating_sub(d), d.saturating_sub(n));
    let bt: Vec<f64> = b
        .iter()
        .zip(&pwo[s2..])
        .map(|(&v, &p)| v * pwo[s1] / p)
        .collect();
    let at: Vec<f64> = a
        .iter()
        .zip(&pwo[s1..])
        .map(|(&v, &p)| v * pwo[s1] / p)
        .collect();
    finish(what, &bt, &at)
}

/// The analog low-pass filter `(b, a)` turned into a high-pass one with cutoff `wo` rad/s
/// (SciPy's `lp2hp`): `s -> wo / s`, both polynomials multiplied through by `s^m` (`m` the
/// larger degree): the coefficient of `s^j` moves to `s^(m - j)` and is multiplied by `wo^j`;
/// then normalised.
///
/// # Errors
/// As [`lp2lp`].
///
/// ```
/// use cuprite_array::signal::lp2hp;
/// // 1 / (s + 1) to s / (s + wo).
/// let (b, a) = lp2hp(&[1.0], &[1.0, 1.0], 3.0)?;
/// assert_eq!((b, a), (vec![1.0, 0.0], vec![1.0, 3.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2hp(b: &[f64], a: &[f64], wo: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "lp2hp";
    check_ba(what, b, a)?;
    check_positive(what, "cutoff wo", wo)?;
    let m = a.len().max(b.len());
    let pwo: Vec<f64> = (0..m).map(|i| wo.powi(i as i32)).collect();
    // The reversed polynomial, scaled, padded with zeros to `m` coefficients.
    let flip = |c: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; m];
        for (i, &v) in c.iter().rev().enumerate() {
            out[i] = v * pwo[i];
        }
        out
    };
    finish(what, &flip(b), &flip(a))
}

/// The binomial coefficients `C(n, 0..=n)` in `f64` (infinite where they overflow).
fn binomials(n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n + 1);
    let mut v = 1.0;
    for k in 0..=n {
        out.push(v);
        v = v * (n - k) as f64 / (k + 1) as f64;
    }
    out
}

/// The analog low-pass filter `(b, a)` turned into a band-pass one centred on `wo` rad/s with
/// bandwidth `bw` rad/s (SciPy's `lp2bp`): `s -> (s^2 + wo^2) / (bw s)` substituted into both
/// polynomials, multiplied through by `(bw s)^max(N, D)` (degrees `N` of `b`, `D` of `a`),
/// then normalised.
///
/// # Errors
/// As [`lp2lp`], and `bw` not positive and finite, named.
///
/// ```
/// use cuprite_array::signal::lp2bp;
/// // 1 / (s + 1) to bw s / (s^2 + bw s + wo^2).
/// let (b, a) = lp2bp(&[1.0], &[1.0, 1.0], 2.0, 0.5)?;
/// assert_eq!((b, a), (vec![0.5, 0.0], vec![1.0, 0.5, 4.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2bp(b: &[f64], a: &[f64], wo: f64, bw: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "lp2bp";
    check_ba(what, b, a)?;
    check_positive(what, "centre wo", wo)?;
    check_positive(what, "bandwidth bw", bw)?;
    let (nd, dd) = (b.len() - 1, a.len() - 1);
    let ma = nd.max(dd);
    let wosq = wo * wo;
    // ((s^2 + wo^2) / (bw s))^i (bw s)^ma = sum_k C(i, k) wo^(2(i - k)) s^(ma - i + 2k) / bw^i.
    let sub = |c: &[f64], deg: usize| -> Vec<f64> {
        let top = deg + ma;
        let mut out = vec![0.0; top + 1];
        for i in 0..=deg {
            let comb = binomials(i);
            for k in 0..=i {
                let j = ma - i + 2 * k;
                out[top - j] +=
                    comb[k] * c[deg - i] * wosq.powi((i - k) as i32) / bw.powi(i as i32);
            }
        }
        out
    };
    finish(what, &sub(b, nd), &sub(a, dd))
}

/// The analog low-pass filter `(b, a)` turned into a band-stop one centred on `wo` rad/s with
/// stopband width `bw` rad/s (SciPy's `lp2bs`): `s -> bw s / (s^2 + wo^2)` substituted into
/// both polynomials, multiplied through by `(s^2 + wo^2)^max(N, D)`, then normalised.
///
/// # Errors
/// As [`lp2bp`].
///
/// ```
/// use cuprite_array::signal::lp2bs;
/// // 1 / (s + 1) to (s^2 + wo^2) / (s^2 + bw s + wo^2).
/// let (b, a) = lp2bs(&[1.0], &[1.0, 1.0], 2.0, 0.5)?;
/// assert_eq!((b, a), (vec![1.0, 0.0, 4.0], vec![1.0, 0.5, 4.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lp2bs(b: &[f64], a: &[f64], wo: f64, bw: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "lp2bs";
    check_ba(what, b, a)?;
    check_positive(what, "centre wo", wo)?;
    check_positive(what, "stopband width bw", bw)?;
    let (nd, dd) = (b.len() - 1, a.len() - 1);
    let m = nd.max(dd);
    let wosq = wo * wo;
    // (bw s / (s^2 + wo^2))^i (s^2 + wo^2)^m = bw^i s^i sum_k C(m - i, k) s^2k wo^(2(m - i - k)).
    let sub = |c: &[f64], deg: usize| -> Vec<f64> {
        let top = 2 * m;
        let mut out = vec![0.0; top + 1];
        for i in 0..=deg {
            let comb = binomials(m - i);
            for k in 0..=m - i {
                let j = i + 2 * k;
                out[top - j] +=
                    comb[k] * c[deg - i] * wosq.powi((m - i - k) as i32) * bw.powi(i as i32);
            }
        }
        out
    };
    finish(what, &sub(b, nd), &sub(a, dd))
}

/// The product of two polynomials of ascending powers.
fn mul_asc(x: &[f64], y: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len() + y.len() - 1];
    for (i, &u) in x.iter().enumerate() {
        for (j, &v) in y.iter().enumerate() {
            out[i + j] += u * v;
        }
    }
    out
}

/// The digital filter that the bilinear transform `s = 2 fs (z - 1) / (z + 1)` makes of the
/// analog filter `(b, a)` (descending powers of `s`; SciPy's `bilinear`): both polynomials'
/// leading zeros dropped, then `sum_q c_q s^q` with `N` the larger degree becomes `sum_q c_q
/// ((z + 1) / f)^(N - q) ((z - 1) f)^q` with `f = sqrt(2 fs)`, in descending powers of `z`
/// (equally of `z^-1` for [`lfilter`](crate::signal::lfilter)), normalised.
///
/// # Errors
/// As [`lp2lp`], and `fs` not positive and finite, named.
///
/// ```
/// use cuprite_array::signal::bilinear;
/// // 1 / (s + 1) at fs = 0.5: (z + 1) / 2z, i.e. b = [0.5, 0.5], a = [1, 0].
/// let (b, a) = bilinear(&[1.0], &[1.0, 1.0], 0.5)?;
/// assert_eq!((b, a), (vec![0.5, 0.5], vec![1.0, 0.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bilinear(b: &[f64], a: &[f64], fs: f64) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "bilinear";
    check_ba(what, b, a)?;
    check_positive(what, "sampling rate fs", fs)?;
    let trim = |c: &[f64]| -> Vec<f64> {
        let i = c.iter().position(|&v| v != 0.0).unwrap_or(c.len() - 1);
        c[i..].to_vec()
    };
    let (b, a) = (trim(b), trim(a));
    let fac = (2.0 * fs).sqrt();
    let n = a.len().max(b.len()) - 1;
    let zp1 = [1.0 / fac, 1.0 / fac];
    let zm1 = [-fac, fac];
    // powers[i] = (zp1^i, zm1^i), ascending in z.
    let mut powers = vec![(vec![1.0], vec![1.0])];
    for i in 1..=n {
        let (p, m) = &powers[i - 1];
        powers.push((mul_asc(p, &zp1), mul_asc(m, &zm1)));
    }
    let sub = |c: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; n + 1];
        for (q, &v) in c.iter().rev().enumerate() {
            let term = mul_asc(&powers[n - q].0, &powers[q].1);
            for (o, t) in out.iter_mut().zip(&term) {
                *o += v * t;
            }
        }
        out.reverse();
        out
    };
    finish(what, &sub(&b), &sub(&a))
}
