//! Waveform generators (SciPy's `sawtooth`, `square`, `chirp`, `gausspulse` and
//! `unit_impulse`): lazy element-wise functions of a time array, so they fuse into the work
//! that reads them, on either backend. The scalar parameters are checked on the host.

use crate::array::Array;
use crate::dtype::{Float, Scalar, Transcendental};
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// `v` in the element type `T` (rounded once).
fn k<T: Float>(v: f64) -> T {
    T::from_scalar(Scalar::F64(v))
}

/// `t` modulo `2 pi` (the floor's remainder, in `[0, 2 pi)`).
fn phase<T: Float + Transcendental>(t: &Array<T>) -> Array<T> {
    t.rem(k::<T>(2.0 * PI))
}

/// A parameter that must lie in `[0, 1]`, checked.
fn fraction(what: &str, name: &str, v: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(Error::InvalidArgument(format!(
            "{what}: {name} {v} must lie in [0, 1]"
        )))
    }
}

/// A sawtooth wave of period `2 pi` (SciPy's `sawtooth(t, width)`): rising from -1 to 1 over
/// the first `width` of each period, falling back to -1 over the rest (`width` 1: a rising
/// ramp; 0: a falling one; 0.5: a triangle). NaN where `t` is NaN.
///
/// # Errors
/// `width` outside `[0, 1]`, named (SciPy gives NaNs).
///
/// ```
/// use cuprite_array::{Array, signal::sawtooth};
/// let t = Array::from_slice(&[0.0f64, std::f64::consts::PI, 1.5 * std::f64::consts::PI], &[3])?;
/// assert_eq!(sawtooth(&t, 1.0)?.to_vec()?, [-1.0, 0.0, 0.5]);
/// assert_eq!(sawtooth(&t, 0.5)?.to_vec()?, [-1.0, 1.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sawtooth<T: Float + Transcendental>(t: &Array<T>, width: f64) -> Result<Array<T>> {
    let w = fraction("sawtooth", "width", width)?;
    let m = phase(t);
    let rising = &m / k::<T>(PI * w) - k::<T>(1.0);
    let falling = (&m * k::<T>(-1.0) + k::<T>(PI * (w + 1.0))) / k::<T>(PI * (1.0 - w));
    Array::select(&m.less(k::<T>(2.0 * PI * w)), &rising, &falling)
}

/// A square wave of period `2 pi` (SciPy's `square(t, duty)`): 1 over the first `duty` of
/// each period, -1 over the rest. NaN where `t` is NaN.
///
/// # Errors
/// `duty` outside `[0, 1]`, named (SciPy gives NaNs).
///
/// ```
/// use cuprite_array::{Array, signal::square};
/// let t = Array::from_slice(&[0.0f32, 1.0, 4.0, 7.0], &[4])?;
/// assert_eq!(square(&t, 0.5)?.to_vec()?, [1.0, 1.0, -1.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn square<T: Float + Transcendental>(t: &Array<T>, duty: f64) -> Result<Array<T>> {
    let d = fraction("square", "duty", duty)?;
    let m = phase(t);
    let wave = Array::select(&m.less(k::<T>(2.0 * PI * d)), k::<T>(1.0), k::<T>(-1.0))?;
    Array::select(&t.isnan(), k::<T>(f64::NAN), &wave)
}

/// How a [`chirp`]'s frequency moves from `f0` at `t = 0` to `f1` at `t1` (SciPy's `method`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ChirpMethod {
    /// `f(t) = f0 + (f1 - f0) t / t1`.
    #[default]
    Linear,
    /// `f(t) = f0 + (f1 - f0) t^2 / t1^2`, the parabola's vertex at `t = 0`; with
    /// `vertex_zero` false, `f(t) = f1 - (f1 - f0) (t1 - t)^2 / t1^2`, its vertex at `t1`.
    Quadratic {
        /// Where the parabola's vertex lies: `t = 0` (true, SciPy's default) or `t1`.
        vertex_zero: bool,
    },
    /// `f(t) = f0 (f1 / f0)^(t / t1)` (`f0` and `f1` of one sign, not 0).
    Logarithmic,
    /// `f(t) = f0 f1 t1 / ((f0 - f1) t + f1 t1)` (`f0` and `f1` not 0).
    Hyperbolic,
}

/// A swept-frequency cosine (SciPy's `chirp(t, f0, t1, f1, method, phi)`): `cos(2 pi ∫_0^t
/// f(τ) dτ + phi)`, `f` moving from `f0` (Hz) at `t = 0` to `f1` at `t1` as `method` says,
/// `phi` in degrees.
///
/// # Errors
/// A parameter not finite, `t1` 0; for the logarithmic sweep `f0` and `f1` of different
/// signs or 0, for the hyperbolic one either 0. Each named.
///
/// ```
/// use cuprite_array::{Array, signal::{ChirpMethod, chirp}};
/// // A linear sweep from 0 Hz: the phase 2 pi (f1 / t1) t^2 / 2, so cos(pi) at t = 1.
/// let t = Array::from_slice(&[0.0f64, 1.0], &[2])?;
/// let y = chirp(&t, 0.0, 1.0, 1.0, ChirpMethod::Linear, 0.0)?.to_vec()?;
/// assert!((y[0] - 1.0).abs() < 1e-15 && (y[1] + 1.0).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn chirp<T: Float + Transcendental>(
    t: &Array<T>,
    f0: f64,
    t1: f64,
    f1: f64,
    method: ChirpMethod,
    phi: f64,
) -> Result<Array<T>> {
    let bad = |m: String| Err(Error::InvalidArgument(format!("chirp: {m}")));
    if ![f0, t1, f1, phi].iter().all(|v| v.is_finite()) || t1 == 0.0 {
        return bad(format!(
            "f0 {f0}, t1 {t1}, f1 {f1} and phi {phi} must be finite, t1 not 0"
        ));
    }
    let tau = 2.0 * PI;
    let phase = match method {
        ChirpMethod::Linear => {
            let beta = (f1 - f0) / t1;
            (t * k::<T>(f0)).try_add(&(t.try_mul(t)? * k::<T>(0.5 * beta)))? * k::<T>(tau)
        }
        ChirpMethod::Quadratic { vertex_zero } => {
            let beta = (f1 - f0) / (t1 * t1);
            if vertex_zero {
                let cube = t.try_mul(t)?.try_mul(t)?;
                (t * k::<T>(f0)).try_add(&(cube * k::<T>(beta / 3.0)))? * k::<T>(tau)
            } else {
                let back = t * k::<T>(-1.0) + k::<T>(t1);
                let cube = back.try_mul(&back)?.try_mul(&back)? - k::<T>(t1.powi(3));
                (t * k::<T>(f1)).try_add(&(cube * k::<T>(beta / 3.0)))? * k::<T>(tau)
            }
        }
        ChirpMethod::Logarithmic => {
            if f0 * f1 <= 0.0 {
                return bad(format!(
                    "a logarithmic sweep needs f0 {f0} and f1 {f1} of one sign, neither 0"
                ));
            }
            if f0 == f1 {
                t * k::<T>(tau * f0)
            } else {
                let beta = t1 / (f1 / f0).ln();
                ((t * k::<T>((f1 / f0).ln() / t1)).exp() - k::<T>(1.0)) * k::<T>(tau * beta * f0)
            }
        }
        ChirpMethod::Hyperbolic => {
            if f0 == 0.0 || f1 == 0.0 {
                return bad(format!(
                    "a hyperbolic sweep needs f0 {f0} and f1 {f1} not 0"
                ));
            }
            if f0 == f1 {
                t * k::<T>(tau * f0)
            } else {
                // The singular time where the sweep's frequency would be infinite.
                let sing = -f1 * t1 / (f0 - f1);
                (t * k::<T>(-1.0 / sing) + k::<T>(1.0)).abs().log() * k::<T>(-tau * sing * f0)
            }
        }
    };
    Ok((phase + k::<T>(phi * PI / 180.0)).cos())
}

/// A Gaussian-modulated cosine (SciPy's `gausspulse(t, fc, bw, bwr)`, its in-phase output):
/// `exp(-a t^2) cos(2 pi fc t)`, with `a` such that the spectrum's fractional bandwidth
/// `bw` is measured `bwr` dB below its peak: `a = -(pi fc bw)^2 / (4 ln(10^(bwr / 20)))`.
///
/// # Errors
/// `fc` negative, `bw` not positive, `bwr` not negative, or any not finite, named.
///
/// ```
/// use cuprite_array::{Array, signal::gausspulse};
/// let t = Array::from_slice(&[0.0f64, 1e-3], &[2])?;
/// let y = gausspulse(&t, 1000.0, 0.5, -6.0)?.to_vec()?;
/// assert_eq!(y[0], 1.0); // the envelope's peak, cos(0)
/// assert!(y[1] > 0.0 && y[1] < 1.0); // one period later, damped
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gausspulse<T: Float + Transcendental>(
    t: &Array<T>,
    fc: f64,
    bw: f64,
    bwr: f64,
) -> Result<Array<T>> {
    if !(fc.is_finite() && fc >= 0.0 && bw.is_finite() && bw > 0.0 && bwr.is_finite() && bwr < 0.0)
    {
        return Err(Error::InvalidArgument(format!(
            "gausspulse: fc {fc} must be finite and non-negative, bw {bw} finite and \
             positive, bwr {bwr} dB finite and negative"
        )));
    }
    let reference = 10f64.powf(bwr / 20.0);
    let a = -(PI * fc * bw).powi(2) / (4.0 * reference.ln());
    let envelope = (t.try_mul(t)? * k::<T>(-a)).exp();
    envelope.try_mul((t * k::<T>(2.0 * PI * fc)).cos())
}

/// The unit impulse of `shape` (SciPy's `unit_impulse(shape, idx)`): 1 at `idx` (default the
/// first element), 0 elsewhere, on the current device.
///
/// # Errors
/// `idx` not one index per axis, or outside `shape`; a shape whose size overflows. Each
/// named.
///
/// ```
/// use cuprite_array::signal::unit_impulse;
/// assert_eq!(unit_impulse::<f32>(&[4], None)?.to_vec()?, [1.0, 0.0, 0.0, 0.0]);
/// assert_eq!(unit_impulse::<f64>(&[2, 2], Some(&[1, 0]))?.to_vec()?, [0.0, 0.0, 1.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn unit_impulse<T: Float>(shape: &[usize], idx: Option<&[usize]>) -> Result<Array<T>> {
    let n = crate::shape::checked_numel(shape)?;
    let zero = vec![0; shape.len()];
    let at = idx.unwrap_or(&zero);
    if at.len() != shape.len() || at.iter().zip(shape).any(|(i, n)| i >= n) {
        return Err(Error::InvalidArgument(format!(
            "unit_impulse: the index {at:?} is not one inside the shape {shape:?}"
        )));
    }
    let flat = at.iter().zip(shape).fold(0usize, |f, (&i, &n)| f * n + i);
    if n == 0 {
        return Ok(Array::zeros(shape));
    }
    let lin = Array::<i64>::arange(0, n as i64, 1)?;
    lin.equal(flat as i64).cast::<T>().reshape(shape)
}
