//! The analog low-pass prototypes as public calls (SciPy's `buttap`, `cheb1ap`, `cheb2ap`,
//! `ellipap` and `besselap`): zeros, poles and gain of a filter whose cutoff is 1 rad/s, the
//! arguments checked, order 0 giving the constant filter SciPy gives.

use super::band::IIR_MAX_ORDER;
use super::convert::ZerosPolesGain;
use super::proto::{self, BESSEL_MAX_ORDER, BesselNorm};
use crate::error::{Error, Result};

/// `n`, checked: at most `max`.
fn check_order(what: &str, n: usize, max: usize) -> Result<()> {
    if n > max {
        return Err(Error::InvalidArgument(format!(
            "{what}: the order {n} exceeds the largest supported, {max}"
        )));
    }
    Ok(())
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

/// The gain `10^(-db / 20)` alone: the prototype of order 0 whose DC gain is the bottom of a
/// ripple of `db` decibels.
fn constant(db: f64) -> ZerosPolesGain {
    ZerosPolesGain {
        zeros: Vec::new(),
        poles: Vec::new(),
        gain: 10f64.powf(-db / 20.0),
    }
}

/// The Butterworth analog low-pass prototype of order `n` (SciPy's `buttap`): no zeros, the
/// `n` poles `-exp(i pi m / 2n)` for `m = -n + 1, -n + 3, ..., n - 1` on the left half of the
/// unit circle, gain 1; -3 dB at 1 rad/s. Order 0 has no poles.
///
/// # Errors
/// `n` above [`IIR_MAX_ORDER`], named.
///
/// ```
/// use cuprite_array::signal::buttap;
/// let f = buttap(3)?;
/// assert_eq!((f.zeros.len(), f.poles.len(), f.gain), (0, 3, 1.0));
/// assert!(f.poles.iter().all(|p| (p.norm() - 1.0).abs() < 1e-15 && p.re < 0.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn buttap(n: usize) -> Result<ZerosPolesGain> {
    check_order("buttap", n, IIR_MAX_ORDER)?;
    Ok(proto::buttap(n).into())
}

/// The Chebyshev type I analog low-pass prototype of order `n` with `rp` dB of equiripple in
/// the passband, whose gain first falls below `-rp` dB at 1 rad/s (SciPy's `cheb1ap`): no
/// zeros, poles `-sinh(mu + i theta_m)` with `mu = asinh(1 / eps) / n`, the gain for a DC
/// gain of 1 (odd `n`) or `-rp` dB (even `n`). Order 0 is the gain `10^(-rp / 20)`.
///
/// # Errors
/// `n` above [`IIR_MAX_ORDER`], `rp` not positive and finite. Each named.
///
/// ```
/// use cuprite_array::signal::cheb1ap;
/// let f = cheb1ap(2, 1.0)?;
/// // The DC gain k / prod(-p) of an even order is -1 dB.
/// let dc = f.gain / f.poles.iter().fold(cuprite_array::c64::new(1.0, 0.0), |a, &p| a * -p).re;
/// assert!((20.0 * dc.log10() + 1.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheb1ap(n: usize, rp: f64) -> Result<ZerosPolesGain> {
    check_order("cheb1ap", n, IIR_MAX_ORDER)?;
    check_db("cheb1ap", "the passband ripple rp", rp)?;
    if n == 0 {
        return Ok(constant(rp));
    }
    Ok(proto::cheb1ap(n, rp).into())
}

/// The Chebyshev type II analog low-pass prototype of order `n`, flat in the passband, whose
/// stopband from 1 rad/s on is at least `rs` dB down (SciPy's `cheb2ap`): zeros in conjugate
/// pairs on the imaginary axis (`2 floor(n / 2)` of them), poles the reciprocals of a type I
/// prototype's, the gain for a DC gain of 1. Order 0 is the gain 1.
///
/// # Errors
/// `n` above [`IIR_MAX_ORDER`], `rs` not positive and finite. Each named.
///
/// ```
/// use cuprite_array::signal::cheb2ap;
/// let f = cheb2ap(5, 40.0)?;
/// assert_eq!((f.zeros.len(), f.poles.len()), (4, 5));
/// assert!(f.zeros.iter().all(|z| z.re == 0.0 && z.im.abs() > 1.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cheb2ap(n: usize, rs: f64) -> Result<ZerosPolesGain> {
    check_order("cheb2ap", n, IIR_MAX_ORDER)?;
    check_db("cheb2ap", "the stopband attenuation rs", rs)?;
    if n == 0 {
        return Ok(constant(0.0));
    }
    Ok(proto::cheb2ap(n, rs).into())
}

/// The elliptic (Cauer) analog low-pass prototype of order `n` (SciPy's `ellipap`): `rp` dB of
/// equiripple in the passband, whose gain first falls below `-rp` dB at 1 rad/s, and at least
/// `rs` dB of attenuation in the stopband; zeros in conjugate pairs on the imaginary axis,
/// poles from Jacobi elliptic functions, the gain for a DC gain of 1 (odd `n`) or `-rp` dB
/// (even `n`). Order 0 is the gain `10^(-rp / 20)`; order 1 the pole `-1 / eps` with `eps =
/// sqrt(10^(rp / 10) - 1)` and gain `1 / eps`, as SciPy has them.
///
/// # Errors
/// `n` above [`IIR_MAX_ORDER`], `rp` not positive and finite, `rs` not above `rp` or not
/// finite. Each named.
///
/// ```
/// use cuprite_array::signal::ellipap;
/// let f = ellipap(4, 1.0, 40.0)?;
/// assert_eq!((f.zeros.len(), f.poles.len()), (4, 4));
/// assert!(f.poles.iter().all(|p| p.re < 0.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ellipap(n: usize, rp: f64, rs: f64) -> Result<ZerosPolesGain> {
    check_order("ellipap", n, IIR_MAX_ORDER)?;
    check_db("ellipap", "the passband ripple rp", rp)?;
    check_db("ellipap", "the stopband attenuation rs", rs)?;
    if rs <= rp {
        return Err(Error::InvalidArgument(format!(
            "ellipap: the stopband attenuation rs = {rs} dB must exceed the passband ripple \
             rp = {rp} dB"
        )));
    }
    match n {
        0 => Ok(constant(rp)),
        1 => {
            let p = -1.0 / proto::ripple_factor(rp);
            Ok(ZerosPolesGain {
                zeros: Vec::new(),
                poles: vec![crate::dtype::c64::new(p, 0.0)],
                gain: -p,
            })
        }
        _ => Ok(proto::ellipap(n, rp, rs).into()),
    }
}

/// The Bessel-Thomson analog low-pass prototype of order `n` (SciPy's `besselap`): no zeros,
/// the poles of the reverse Bessel polynomial scaled as `norm` says (the phase's midpoint,
/// a group delay of 1 s, or -3 dB at 1 rad/s), the gain for a DC gain of 1. Order 0 is the
/// gain 1.
///
/// # Errors
/// `n` above 20 (the largest order whose poles are found to `1e-6` relative), named.
///
/// ```
/// use cuprite_array::signal::{BesselNorm, besselap};
/// // Order 1 normalised by delay: the pole -1.
/// let f = besselap(1, BesselNorm::Delay)?;
/// assert!((f.poles[0].re + 1.0).abs() < 1e-12 && (f.gain - 1.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn besselap(n: usize, norm: BesselNorm) -> Result<ZerosPolesGain> {
    check_order("besselap", n, BESSEL_MAX_ORDER)?;
    if n == 0 {
        return Ok(constant(0.0));
    }
    Ok(proto::besselap(n, norm)?.into())
}
