//! Waveform generators (SciPy's `sawtooth`, `square`, `chirp`, `sweep_poly`, `gausspulse` and
//! `unit_impulse`): lazy element-wise functions of a time array, so they fuse into the work
//! that reads them, on either backend. The scalar parameters are checked on the host. The
//! maximum length sequence (`max_len_seq`) is a shift register run on the host.

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

/// A cosine whose frequency follows the polynomial `poly` (SciPy's `sweep_poly(t, poly,
/// phi)`): `cos(2 pi ∫_0^t f(τ) dτ + phi)` with `f(τ) = poly[0] τ^d + ... + poly[d]` (highest
/// power first, NumPy's `poly1d` order) and `phi` in degrees. The integral is evaluated by
/// Horner's rule on the array.
///
/// # Errors
/// `poly` empty, or a coefficient or `phi` not finite, named.
///
/// ```
/// use cuprite_array::{Array, signal::sweep_poly};
/// // f(t) = 2t: the phase 2 pi t², so cos(2 pi) = 1 at t = 1 and cos(pi / 2) = 0 at t = 0.5.
/// let t = Array::from_slice(&[1.0f64, 0.5], &[2])?;
/// let y = sweep_poly(&t, &[2.0, 0.0], 0.0)?.to_vec()?;
/// assert!((y[0] - 1.0).abs() < 1e-12 && y[1].abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sweep_poly<T: Float + Transcendental>(
    t: &Array<T>,
    poly: &[f64],
    phi: f64,
) -> Result<Array<T>> {
    if poly.is_empty() || !poly.iter().chain([&phi]).all(|v| v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "sweep_poly: poly {poly:?} must be non-empty and finite, phi {phi} finite"
        )));
    }
    // The antiderivative's coefficients, highest power first, its constant 0 dropped: the
    // phase is t (c_0 t^d + ... + c_d).
    let d = poly.len();
    let mut acc: Option<Array<T>> = None;
    for (i, c) in poly.iter().enumerate() {
        let v = k::<T>(c / (d - i) as f64);
        acc = Some(match acc {
            None => t.try_mul(k::<T>(0.0))?.try_add(v)?,
            Some(p) => p.try_mul(t)?.try_add(v)?,
        });
    }
    let inner = acc.ok_or_else(|| Error::InvalidArgument("sweep_poly: poly is empty".into()))?;
    let phase = inner.try_mul(t)?.try_mul(k::<T>(2.0 * PI))?;
    Ok(phase.try_add(k::<T>(phi * PI / 180.0))?.cos())
}

/// The most values [`max_len_seq`] gives in one call.
pub const MLS_MAX_LENGTH: usize = 1 << 30;

/// The feedback taps of a maximal-length shift register of `nbits` (2 to 32), as SciPy
/// tabulates them.
fn mls_taps(nbits: usize) -> Option<&'static [usize]> {
    Some(match nbits {
        2 => &[1],
        3 => &[2],
        4 | 5 => &[3],
        6 => &[5],
        7 => &[6],
        8 => &[7, 6, 1],
        9 => &[5],
        10 => &[7],
        11 => &[9],
        12 => &[11, 10, 4],
        13 => &[12, 11, 8],
        14 => &[13, 12, 2],
        15 => &[14],
        16 => &[15, 13, 4],
        17 => &[14],
        18 => &[11],
        19 => &[18, 17, 14],
        20 => &[17],
        21 => &[19],
        22 => &[21],
        23 => &[18],
        24 => &[23, 22, 17],
        25 => &[22],
        26 => &[25, 24, 20],
        27 => &[26, 25, 22],
        28 => &[25],
        29 => &[27],
        30 => &[29, 28, 7],
        31 => &[28],
        32 => &[31, 30, 10],
        _ => return None,
    })
}

/// A maximum length sequence (SciPy's `max_len_seq(nbits, state, length, taps)`): the output
/// of a Fibonacci shift register of `nbits` bits, `length` values of 0 and 1 (default
/// `2^nbits - 1`, one period), and the register's final state to continue from. `state`
/// defaults to all ones; `taps` to SciPy's table for `nbits` in 2 to 32. Computed on the host.
///
/// # Errors
/// `nbits` 0 or above 64, `nbits` outside 2 to 32 without `taps`, no tap or a tap above
/// `nbits`, a state of the wrong size, with a value other than 0 or 1, or all zeros, and a
/// length above [`MLS_MAX_LENGTH`], each named.
///
/// ```
/// use cuprite_array::signal::max_len_seq;
/// let (seq, state) = max_len_seq(3, None, None, None)?;
/// assert_eq!(seq, [1, 1, 1, 0, 1, 0, 0]);
/// assert_eq!(state, [1, 1, 1]); // one whole period brings the register back
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn max_len_seq(
    nbits: usize,
    state: Option<&[u8]>,
    length: Option<usize>,
    taps: Option<&[usize]>,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let bad = |m: String| Err(Error::InvalidArgument(format!("max_len_seq: {m}")));
    if nbits == 0 || nbits > 64 {
        return bad(format!("nbits {nbits} must lie in 1..=64"));
    }
    let mut taps: Vec<usize> = match taps {
        Some(t) => t.to_vec(),
        None => match mls_taps(nbits) {
            Some(t) => t.to_vec(),
            None => {
                return bad(format!(
                    "nbits {nbits} has no tabulated taps (2..=32); pass taps"
                ));
            }
        },
    };
    taps.sort_unstable();
    taps.dedup();
    if taps.is_empty() || taps.iter().any(|&t| t > nbits) {
        return bad(format!(
            "taps {taps:?} must be non-empty, each in 0..={nbits}"
        ));
    }
    let mut reg: Vec<u8> = match state {
        Some(s) => s.to_vec(),
        None => vec![1; nbits],
    };
    if reg.len() != nbits || reg.iter().any(|&b| b > 1) || reg.iter().all(|&b| b == 0) {
        return bad(format!(
            "state {reg:?} must hold {nbits} values of 0 or 1, not all 0"
        ));
    }
    let period = if nbits >= 63 {
        usize::MAX
    } else {
        (1usize << nbits) - 1
    };
    let length = length.unwrap_or(period);
    if length > MLS_MAX_LENGTH {
        return bad(format!("length {length} is above {MLS_MAX_LENGTH}"));
    }
    // The register is a ring: `head` is the oldest bit, which is output, and is replaced by
    // the XOR of itself with the bits `t` places after it.
    let mut seq = Vec::with_capacity(length);
    let mut head = 0;
    for _ in 0..length {
        let out = reg[head];
        seq.push(out);
        let fb = taps.iter().fold(out, |f, &t| f ^ reg[(head + t) % nbits]);
        reg[head] = fb;
        head = (head + 1) % nbits;
    }
    reg.rotate_left(head);
    Ok((seq, reg))
}
