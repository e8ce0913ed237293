//! IIR filter design (SciPy's `butter` and `cheby1`, digital low-pass and high-pass): the
//! analog prototype's zeros, poles and gain, moved to the warped cutoff, mapped to the z-plane
//! by the bilinear transform (`fs = 2`, so that cutoffs are fractions of the Nyquist
//! frequency), then expanded into transfer-function coefficients `(b, a)` or second-order
//! sections. Host arithmetic in `f64`.

use crate::dtype::c64;
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// Which band an IIR design passes (SciPy's `btype`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BandType {
    /// Frequencies below the cutoff (SciPy's default).
    #[default]
    Lowpass,
    /// Frequencies above the cutoff.
    Highpass,
}

/// A filter as its zeros, poles and gain.
struct Zpk {
    z: Vec<c64>,
    p: Vec<c64>,
    k: f64,
}

/// The Butterworth analog prototype of order `n`: no zeros, poles `-exp(i pi m / 2n)` for `m
/// = -n + 1, -n + 3, ..., n - 1`, gain 1 (SciPy's `buttap`).
fn buttap(n: usize) -> Zpk {
    let p = (0..n)
        .map(|j| {
            let m = 2.0 * j as f64 - (n as f64 - 1.0);
            -c64::new(0.0, PI * m / (2.0 * n as f64)).exp()
        })
        .collect();
    Zpk {
        z: Vec::new(),
        p,
        k: 1.0,
    }
}

/// The Chebyshev type I analog prototype of order `n` with `rp` dB of passband ripple: poles
/// `-sinh(mu + i theta_m)` with `eps = sqrt(10^(rp / 10) - 1)`, `mu = asinh(1 / eps) / n`,
/// `theta_m = pi m / 2n`; the gain `prod(-p)`, divided by `sqrt(1 + eps^2)` for even `n` so
/// that the DC gain is the bottom of the ripple (SciPy's `cheb1ap`).
fn cheb1ap(n: usize, rp: f64) -> Zpk {
    let eps = (10f64.powf(0.1 * rp) - 1.0).sqrt();
    let mu = (1.0 / eps).asinh() / n as f64;
    let p: Vec<c64> = (0..n)
        .map(|j| {
            let m = 2.0 * j as f64 - (n as f64 - 1.0);
            -c64::new(mu, PI * m / (2.0 * n as f64)).sinh()
        })
        .collect();
    let mut k = p.iter().fold(c64::new(1.0, 0.0), |acc, &v| acc * -v).re;
    if n % 2 == 0 {
        k /= (1.0 + eps * eps).sqrt();
    }
    Zpk {
        z: Vec::new(),
        p,
        k,
    }
}

/// The prototype (cutoff 1 rad/s) moved to cutoff `wo` as a low-pass (`s -> s / wo`) or a
/// high-pass (`s -> wo / s`) filter (SciPy's `lp2lp_zpk`, `lp2hp_zpk`).
fn transform(f: Zpk, wo: f64, btype: BandType) -> Zpk {
    let degree = f.p.len() - f.z.len();
    match btype {
        BandType::Lowpass => Zpk {
            z: f.z.iter().map(|&z| z * wo).collect(),
            p: f.p.iter().map(|&p| p * wo).collect(),
            k: f.k * wo.powi(degree as i32),
        },
        BandType::Highpass => {
            let prod = |v: &[c64]| v.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * -x);
            let k = f.k * (prod(&f.z) / prod(&f.p)).re;
            let mut z: Vec<c64> = f.z.iter().map(|&z| wo / z).collect();
            z.extend(std::iter::repeat_n(c64::new(0.0, 0.0), degree));
            Zpk {
                z,
                p: f.p.iter().map(|&p| wo / p).collect(),
                k,
            }
        }
    }
}

/// The bilinear transform `z = (4 + s) / (4 - s)` (SciPy's `bilinear_zpk` with `fs = 2`):
/// zeros at infinity go to `z = -1`.
fn bilinear(f: Zpk) -> Zpk {
    let fs2 = c64::new(4.0, 0.0);
    let degree = f.p.len() - f.z.len();
    let prod = |v: &[c64]| v.iter().fold(c64::new(1.0, 0.0), |acc, &x| acc * (fs2 - x));
    let k = f.k * (prod(&f.z) / prod(&f.p)).re;
    let mut z: Vec<c64> = f.z.iter().map(|&z| (fs2 + z) / (fs2 - z)).collect();
    z.extend(std::iter::repeat_n(c64::new(-1.0, 0.0), degree));
    Zpk {
        z,
        p: f.p.iter().map(|&p| (fs2 + p) / (fs2 - p)).collect(),
        k,
    }
}

/// The monic polynomial with roots `r`, highest power first, real parts (the roots come in
/// conjugate pairs).
fn poly(r: &[c64]) -> Vec<f64> {
    let mut c = vec![c64::new(1.0, 0.0)];
    for &x in r {
        c.push(c64::new(0.0, 0.0));
        for j in (1..c.len()).rev() {
            let prev = c[j - 1];
            c[j] -= x * prev;
        }
    }
    c.into_iter().map(|v| v.re).collect()
}

/// The checked arguments and the digital design.
fn design(what: &str, n: usize, wn: f64, btype: BandType, proto: Zpk) -> Result<Zpk> {
    if n == 0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: the order must be at least 1, not 0"
        )));
    }
    if !(wn > 0.0 && wn < 1.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the cutoff {wn} must lie strictly between 0 and 1 (the Nyquist frequency)"
        )));
    }
    // The analog cutoff whose bilinear image is `wn` (pre-warping, `fs = 2`).
    let warped = 4.0 * (PI * wn / 2.0).tan();
    Ok(bilinear(transform(proto, warped, btype)))
}

fn check_rp(rp: f64) -> Result<()> {
    if !(rp > 0.0 && rp.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "cheby1: the passband ripple rp = {rp} dB must be positive and finite"
        )));
    }
    Ok(())
}

/// `(b, a)` of a digital design, both of `n + 1` coefficients, `a[0] = 1`.
fn to_ba(f: &Zpk) -> (Vec<f64>, Vec<f64>) {
    let b = poly(&f.z).into_iter().map(|v| v * f.k).collect();
    (b, poly(&f.p))
}

/// Second-order sections `[b0, b1, b2, 1, a1, a2]` of a digital design whose zeros are all
/// real and as many as its poles (the designs here: zeros at `z = -1` or `z = 1`): conjugate
/// pole pairs and a lone real pole each with zeros in the order given, sections ordered by
/// pole magnitude (those nearest the unit circle last), the gain in the first.
fn to_sos(f: &Zpk) -> Vec<[f64; 6]> {
    let mut poles: Vec<c64> = f.p.iter().copied().filter(|p| p.im >= 0.0).collect();
    poles.sort_by(|a, b| a.norm().total_cmp(&b.norm()));
    let mut zeros = f.z.iter().map(|z| z.re);
    let mut sos = Vec::with_capacity(poles.len());
    for p in poles {
        let real = p.im == 0.0;
        let sec = if real {
            let z0 = zeros.next().unwrap_or(0.0);
            [1.0, -z0, 0.0, 1.0, -p.re, 0.0]
        } else {
            let (z0, z1) = (zeros.next().unwrap_or(0.0), zeros.next().unwrap_or(0.0));
            [1.0, -(z0 + z1), z0 * z1, 1.0, -2.0 * p.re, p.norm_sqr()]
        };
        sos.push(sec);
    }
    if let Some(first) = sos.first_mut() {
        for v in &mut first[..3] {
            *v *= f.k;
        }
    }
    sos
}

/// The digital Butterworth filter of order `n` with its -3 dB point at `wn` (a fraction of
/// the Nyquist frequency, in `(0, 1)`), as transfer-function coefficients `(b, a)` (SciPy's
/// `butter(n, wn, btype)`): the analog prototype at the pre-warped cutoff, mapped by the
/// bilinear transform.
///
/// # Errors
/// `n` 0 or `wn` outside `(0, 1)`, named.
///
/// ```
/// use cuprite_array::signal::{BandType, butter};
/// let (b, a) = butter(2, 0.5, BandType::Lowpass)?;
/// // At half the Nyquist frequency: b = (1, 2, 1) / (2 + sqrt 2), a = (1, 0, (2 - sqrt 2) / (2 + sqrt 2)).
/// let s = 2f64.sqrt();
/// assert!((b[0] - 1.0 / (2.0 + s)).abs() < 1e-15 && (b[1] - 2.0 * b[0]).abs() < 1e-15);
/// assert!(a[1].abs() < 1e-15 && (a[2] - (2.0 - s) / (2.0 + s)).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn butter(n: usize, wn: f64, btype: BandType) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(to_ba(&design("butter", n, wn, btype, buttap(n))?))
}

/// [`butter`] as second-order sections `[b0, b1, b2, 1, a1, a2]` for
/// [`sosfilt`](super::sosfilt) and [`sosfiltfilt`](super::sosfiltfilt): a section per
/// conjugate pole pair (and one for the real pole of an odd order), ordered by pole magnitude
/// (nearest the unit circle last), the gain in the first section.
///
/// # Errors
/// As [`butter`].
///
/// ```
/// use cuprite_array::signal::{BandType, butter_sos};
/// let sos = butter_sos(5, 0.2, BandType::Highpass)?;
/// assert_eq!(sos.len(), 3);
/// assert_eq!(sos[0][2], 0.0); // the real pole's first-order section
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn butter_sos(n: usize, wn: f64, btype: BandType) -> Result<Vec<[f64; 6]>> {
    Ok(to_sos(&design("butter", n, wn, btype, buttap(n))?))
}

/// The digital Chebyshev type I filter of order `n` with `rp` dB of equiripple in the
/// passband, whose gain first falls below `-rp` dB at `wn` (a fraction of the Nyquist
/// frequency), as `(b, a)` (SciPy's `cheby1(n, rp, wn, btype)`). The gain at DC is 1 for odd
/// `n` and `-rp` dB for even `n`.
///
/// # Errors
/// `n` 0, `rp` not positive and finite, or `wn` outside `(0, 1)`, named.
///
/// ```
/// use cuprite_array::signal::{BandType, cheby1};
/// let (b, a) = cheby1(4, 1.0, 0.3, BandType::Lowpass)?;
/// // The DC gain sum(b) / sum(a) is -1 dB for an even order.
/// let dc = b.iter().sum::<f64>() / a.iter().sum::<f64>();
/// assert!((20.0 * dc.log10() + 1.0).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheby1(n: usize, rp: f64, wn: f64, btype: BandType) -> Result<(Vec<f64>, Vec<f64>)> {
    check_rp(rp)?;
    Ok(to_ba(&design(
        "cheby1",
        n,
        wn,
        btype,
        cheb1ap(n.max(1), rp),
    )?))
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
pub fn cheby1_sos(n: usize, rp: f64, wn: f64, btype: BandType) -> Result<Vec<[f64; 6]>> {
    check_rp(rp)?;
    Ok(to_sos(&design(
        "cheby1",
        n,
        wn,
        btype,
        cheb1ap(n.max(1), rp),
    )?))
}
