//! Periodicity of unevenly timed data: the vector strength of event times (SciPy's
//! `vectorstrength`) and the Lomb-Scargle periodogram of samples (SciPy's `lombscargle`, the
//! generalised form of Zechmeister and Kürster): at each angular frequency `ω`, the weighted
//! least-squares fit of `a cos(ω(t - τ)) + b sin(ω(t - τ))` (plus a constant with
//! `floating_mean`) to the samples, `τ` chosen so that the two columns are orthogonal under the
//! weights.
//!
//! Every sum runs over the samples for all frequencies at once: an `F x N` array of phases
//! `ω t`, lazily formed and reduced along the samples, so no `F x N` intermediate is stored
//! where the backend fuses the reductions. Computed in `f64` for `f64` input, else in `f32`.

use super::elem::wide;
use crate::array::Array;
use crate::dtype::{Element, Float, Numeric, Scalar, Transcendental, c64};
use crate::error::{Error, Result};
use crate::ops::ReduceOpts;
use crate::ops::fft::FftElement;

/// What [`lombscargle`] returns at each frequency.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LombNorm {
    /// The fit's power in SciPy's legacy units, `2 (a YC + b YS) N / 4` (`A² N / 4` for a
    /// sinusoid of amplitude `A`; SciPy's `normalize=False` or `"power"`).
    #[default]
    Power,
    /// The fit's power over the weighted power of the data about 0 (about their weighted
    /// mean with `floating_mean`), in `[0, 1]` (SciPy's `normalize=True`).
    Normalize,
}

/// Options of [`lombscargle_with`] and [`lombscargle_amplitude`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LombOpts {
    /// Non-negative weights, one a sample, with a positive sum (default: equal).
    pub weights: Option<Vec<f64>>,
    /// Fit a constant offset at each frequency as well (default false: the data's baseline is
    /// 0).
    pub floating_mean: bool,
    /// The power's normalisation (default [`LombNorm::Power`]).
    pub normalize: LombNorm,
}

impl LombOpts {
    /// SciPy's defaults: equal weights, no offset, [`LombNorm::Power`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
    /// Weights of the samples.
    #[must_use]
    pub fn weights(mut self, w: &[f64]) -> Self {
        self.weights = Some(w.to_vec());
        self
    }
    /// Fits a constant offset at each frequency.
    #[must_use]
    pub fn floating_mean(mut self, on: bool) -> Self {
        self.floating_mean = on;
        self
    }
    /// The power's normalisation.
    #[must_use]
    pub fn normalize(mut self, n: LombNorm) -> Self {
        self.normalize = n;
        self
    }
}

/// The fit at every frequency: `(a, b, tau)` with the sums that the power needs.
struct Fit<R: Element> {
    a: Array<R>,
    b: Array<R>,
    tau: Array<R>,
    yc: Array<R>,
    ys: Array<R>,
    /// The weighted power of the data about 0, or about their mean with `floating_mean`.
    yy: Array<R>,
}

/// Checks the inputs and returns the normalised weights.
fn check<T: Element>(x: &Array<T>, y: &Array<T>, f: &Array<T>, o: &LombOpts) -> Result<Vec<f64>> {
    crate::array::check_devices(&[&x.node, &y.node, &f.node])?;
    if x.ndim() != 1 || x.is_empty() || x.shape() != y.shape() || f.ndim() != 1 || f.is_empty() {
        return Err(Error::Shape(format!(
            "lombscargle: x {:?} and y {:?} must be 1-D of one non-zero length, freqs {:?} \
             1-D and not empty",
            x.shape(),
            y.shape(),
            f.shape()
        )));
    }
    let n = x.len();
    let w = o.weights.clone().unwrap_or_else(|| vec![1.0; n]);
    if w.len() != n {
        return Err(Error::Shape(format!(
            "lombscargle: {} weights for {n} samples",
            w.len()
        )));
    }
    let sum: f64 = w.iter().sum();
    if let Some(bad) = w.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
        return Err(Error::InvalidArgument(format!(
            "lombscargle: weight {bad} is negative or not finite"
        )));
    }
    if !(sum > 0.0 && sum.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "lombscargle: the weights sum to {sum}; the sum must be positive and finite"
        )));
    }
    Ok(w.into_iter().map(|v| v / sum).collect())
}

fn k<R: Element>(v: f64) -> R {
    R::from_scalar(Scalar::F64(v))
}

/// The weighted sum over the samples (axis 1) of `v`, an `F x N` array, keeping the axis.
fn wsum<R: Float>(w: &Array<R>, v: &Array<R>) -> Result<Array<R>> {
    Ok(w.try_mul(v)?
        .sum_axes_with(&[1], ReduceOpts::new().keepdims(true))?
        .cast::<R>())
}

fn fit<R: Float + Transcendental>(
    x: &Array<R>,
    y: &Array<R>,
    f: &Array<R>,
    w: &[f64],
    floating: bool,
) -> Result<Fit<R>> {
    let n = x.len();
    let (nf, dev) = (f.len(), x.device());
    let w: Vec<R> = w.iter().map(|&v| k::<R>(v)).collect();
    let w = Array::from_slice_on(dev, &w, &[1, n])?;
    let y = y.reshape(&[1, n])?;
    let wy = w.try_mul(&y)?;
    let phase = f.reshape(&[nf, 1])?.try_mul(&x.reshape(&[1, n])?)?;
    let sum_y = wy
        .sum_axes_with(&[1], ReduceOpts::new().keepdims(true))?
        .cast::<R>();
    let (c, s) = (phase.cos(), phase.sin());
    let mut cc = wsum(&w, &c.try_mul(&c)?)?;
    let mut ss = cc.try_mul(k::<R>(-1.0))?.try_add(k::<R>(1.0))?;
    let mut cs = wsum(&w, &c.try_mul(&s)?)?;
    if floating {
        let (mc, ms) = (wsum(&w, &c)?, wsum(&w, &s)?);
        cc = cc.try_sub(&mc.try_mul(&mc)?)?;
        ss = ss.try_sub(&ms.try_mul(&ms)?)?;
        cs = cs.try_sub(&mc.try_mul(&ms)?)?;
    }
    let tau = cs
        .try_mul(k::<R>(2.0))?
        .try_atan2(&cc.try_sub(&ss)?)?
        .try_mul(k::<R>(0.5))?;
    let shifted = phase.try_sub(&tau)?;
    let (ct, st) = (shifted.cos(), shifted.sin());
    let mut yc = wsum(&wy, &ct)?;
    let mut ys = wsum(&wy, &st)?;
    let mut cc = wsum(&w, &ct.try_mul(&ct)?)?;
    let mut ss = cc.try_mul(k::<R>(-1.0))?.try_add(k::<R>(1.0))?;
    let mut yy = wsum(&wy, &y)?;
    if floating {
        let (mc, ms) = (wsum(&w, &ct)?, wsum(&w, &st)?);
        yc = yc.try_sub(&sum_y.try_mul(&mc)?)?;
        ys = ys.try_sub(&sum_y.try_mul(&ms)?)?;
        cc = cc.try_sub(&mc.try_mul(&mc)?)?;
        ss = ss.try_sub(&ms.try_mul(&ms)?)?;
        yy = yy.try_sub(&sum_y.try_mul(&sum_y)?)?;
    }
    // Keeps the denominators positive where rounding made them 0 or slightly negative.
    let tiny = k::<R>(if wide(R::DTYPE) {
        f64::EPSILON / 2.0
    } else {
        f64::from(f32::EPSILON) / 2.0
    });
    let (cc, ss) = (cc.try_maximum(tiny)?, ss.try_maximum(tiny)?);
    Ok(Fit {
        a: yc.try_div(&cc)?,
        b: ys.try_div(&ss)?,
        tau,
        yc,
        ys,
        yy,
    })
}

fn power<R: Float + Transcendental>(
    x: &Array<R>,
    y: &Array<R>,
    f: &Array<R>,
    w: &[f64],
    o: &LombOpts,
) -> Result<Array<R>> {
    let ft = fit(x, y, f, w, o.floating_mean)?;
    let p =
        ft.a.try_mul(&ft.yc)?
            .try_add(&ft.b.try_mul(&ft.ys)?)?
            .try_mul(k::<R>(2.0))?;
    let p = match o.normalize {
        LombNorm::Power => p.try_mul(k::<R>(x.len() as f64 / 4.0))?,
        LombNorm::Normalize => p.try_mul(k::<R>(0.5))?.try_div(&ft.yy)?,
    };
    p.reshape(&[f.len()])
}

/// The Lomb-Scargle periodogram of samples `y` taken at times `x`, at the angular
/// frequencies `freqs`, with SciPy's defaults ([`LombOpts::new`]).
///
/// # Errors
/// As [`lombscargle_with`].
///
/// ```
/// use cuprite_array::{Array, signal::lombscargle};
/// // Uneven samples of sin(2 t): the periodogram peaks at angular frequency 2.
/// let t: Vec<f64> = (0..200).map(|i| i as f64 * 0.1 + 0.03 * ((i * 7 % 11) as f64)).collect();
/// let y: Vec<f64> = t.iter().map(|t| (2.0 * t).sin()).collect();
/// let f: Vec<f64> = (1..=40).map(|i| i as f64 * 0.1).collect();
/// let p = lombscargle(&Array::from_slice(&t, &[200])?, &Array::from_slice(&y, &[200])?,
///     &Array::from_slice(&f, &[40])?)?.to_vec()?;
/// let peak = (0..40).max_by(|&i, &j| p[i].total_cmp(&p[j])).unwrap();
/// assert_eq!(f[peak], 2.0);
/// assert!((p[peak] - 200.0 / 4.0).abs() < 2.0); // near A² N / 4 with A = 1
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lombscargle<T: Float + FftElement>(
    x: &Array<T>,
    y: &Array<T>,
    freqs: &Array<T>,
) -> Result<Array<T::Real>> {
    lombscargle_with(x, y, freqs, &LombOpts::new())
}

/// [`lombscargle`] with weights, a floating mean and a normalisation ([`LombOpts`]): SciPy's
/// `lombscargle(x, y, freqs, normalize=..., weights=..., floating_mean=...)`. The result has
/// one value a frequency, in `f64` for `f64` input and `f32` otherwise.
///
/// # Errors
/// `x` and `y` not 1-D of one non-zero length, `freqs` not 1-D or empty, arrays on different
/// devices, a weight count other than the samples', a weight negative or not finite, or
/// weights summing to 0, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{LombNorm, LombOpts, lombscargle_with}};
/// // An offset of 3 on the tone: with a floating mean the normalised power stays near 1.
/// let t: Vec<f64> = (0..100).map(|i| i as f64 * 0.37).collect();
/// let y: Vec<f64> = t.iter().map(|t| 3.0 + t.cos()).collect();
/// let o = LombOpts::new().floating_mean(true).normalize(LombNorm::Normalize);
/// let p = lombscargle_with(&Array::from_slice(&t, &[100])?, &Array::from_slice(&y, &[100])?,
///     &Array::from_slice(&[1.0f64], &[1])?, &o)?.to_vec()?;
/// assert!(p[0] > 0.999);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lombscargle_with<T: Float + FftElement>(
    x: &Array<T>,
    y: &Array<T>,
    freqs: &Array<T>,
    opts: &LombOpts,
) -> Result<Array<T::Real>> {
    let w = check(x, y, freqs, opts)?;
    if wide(T::DTYPE) {
        let c = |a: &Array<T>| a.cast::<f64>();
        Ok(power(&c(x), &c(y), &c(freqs), &w, opts)?.cast())
    } else {
        let c = |a: &Array<T>| a.cast::<f32>();
        Ok(power(&c(x), &c(y), &c(freqs), &w, opts)?.cast())
    }
}

/// The best fit at each frequency as one complex amplitude (SciPy's
/// `lombscargle(..., normalize="amplitude")`): `(a + i b) e^(i τ)` for the fit
/// `a cos(ω(t - τ)) + b sin(ω(t - τ))`, its modulus the fitted amplitude. `opts.normalize`
/// is not used.
///
/// # Errors
/// As [`lombscargle_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{LombOpts, lombscargle_amplitude}};
/// // 2 cos(t) + 1 sin(t): a = 2, b = 1 before the rotation by tau, so |A| = sqrt(5).
/// let t: Vec<f64> = (0..300).map(|i| i as f64 * 0.21).collect();
/// let y: Vec<f64> = t.iter().map(|t| 2.0 * t.cos() + t.sin()).collect();
/// let a = lombscargle_amplitude(&Array::from_slice(&t, &[300])?, &Array::from_slice(&y, &[300])?,
///     &Array::from_slice(&[1.0f64], &[1])?, &LombOpts::new())?.to_vec()?;
/// assert!((a[0].norm() - 5f64.sqrt()).abs() < 1e-9);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lombscargle_amplitude<T: Float + FftElement>(
    x: &Array<T>,
    y: &Array<T>,
    freqs: &Array<T>,
    opts: &LombOpts,
) -> Result<Array<T::Complex>> {
    let w = check(x, y, freqs, opts)?;
    fn amp<R: Float + Transcendental, C: Numeric>(
        x: &Array<R>,
        y: &Array<R>,
        f: &Array<R>,
        w: &[f64],
        floating: bool,
    ) -> Result<Array<C>> {
        let ft = fit(x, y, f, w, floating)?;
        let i = C::from_scalar(Scalar::C64(c64::new(0.0, 1.0)));
        let ab = ft.a.cast::<C>().try_add(&ft.b.cast::<C>().try_mul(i)?)?;
        let rot = ft
            .tau
            .cos()
            .cast::<C>()
            .try_add(&ft.tau.sin().cast::<C>().try_mul(i)?)?;
        ab.try_mul(&rot)?.reshape(&[f.len()])
    }
    if wide(T::DTYPE) {
        let c = |a: &Array<T>| a.cast::<f64>();
        amp(&c(x), &c(y), &c(freqs), &w, opts.floating_mean)
    } else {
        let c = |a: &Array<T>| a.cast::<f32>();
        amp(&c(x), &c(y), &c(freqs), &w, opts.floating_mean)
    }
}

/// What [`vectorstrength`] returns: the strength and the phase at each period.
pub type StrengthPhase<R> = (Array<R>, Array<R>);

/// The vector strength of the event times `events` at each period of `periods` (SciPy's
/// `vectorstrength`): each event a unit vector at angle `2 pi t / period`, their mean's length
/// (1 when every event falls at one phase, near 0 for events spread evenly) and angle. One
/// value of each a period, in `f64` for `f64` input and `f32` otherwise.
///
/// # Errors
/// `events` or `periods` not 1-D or empty, or on different devices, named. A period of 0
/// gives NaN, as SciPy's division does.
///
/// ```
/// use cuprite_array::{Array, signal::vectorstrength};
/// // Events every 2 s, slightly jittered: strength near 1 at a period of 2, phase near 0.
/// let e: Vec<f64> = (0..50).map(|i| 2.0 * i as f64 + 0.01 * ((i % 3) as f64 - 1.0)).collect();
/// let (s, p) = vectorstrength(&Array::from_slice(&e, &[50])?, &Array::from_slice(&[2.0f64, 3.0], &[2])?)?;
/// let (s, p) = (s.to_vec()?, p.to_vec()?);
/// assert!(s[0] > 0.999 && p[0].abs() < 1e-3);
/// assert!(s[1] < 0.1);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn vectorstrength<T: Float + FftElement>(
    events: &Array<T>,
    periods: &Array<T>,
) -> Result<StrengthPhase<T::Real>> {
    crate::array::check_devices(&[&events.node, &periods.node])?;
    if events.ndim() != 1 || events.is_empty() || periods.ndim() != 1 || periods.is_empty() {
        return Err(Error::Shape(format!(
            "vectorstrength takes 1-D non-empty events {:?} and periods {:?}",
            events.shape(),
            periods.shape()
        )));
    }
    fn run<R: Float + Transcendental>(e: &Array<R>, p: &Array<R>) -> Result<(Array<R>, Array<R>)> {
        let (n, np) = (e.len(), p.len());
        let phase = e
            .reshape(&[1, n])?
            .try_div(&p.reshape(&[np, 1])?)?
            .try_mul(k::<R>(2.0 * std::f64::consts::PI))?;
        let mean = |v: Array<R>| -> Result<Array<R>> {
            v.sum_axes(&[1])?
                .cast::<R>()
                .try_mul(k::<R>(1.0 / n as f64))
        };
        let (c, s) = (mean(phase.cos())?, mean(phase.sin())?);
        Ok((c.try_hypot(&s)?, s.try_atan2(&c)?))
    }
    if wide(T::DTYPE) {
        let (s, p) = run(&events.cast::<f64>(), &periods.cast::<f64>())?;
        Ok((s.cast(), p.cast()))
    } else {
        let (s, p) = run(&events.cast::<f32>(), &periods.cast::<f32>())?;
        Ok((s.cast(), p.cast()))
    }
}
