//! Spectral estimates from overlapping windowed segments (SciPy's `_spectral_helper` and the
//! routines on it): `welch`, `csd`, `coherence`, `periodogram`, `spectrogram`, `stft`. Each
//! segment is cut by a strided view, detrended, windowed and transformed by the FFT along the
//! last axis; the other axes are a batch. A complex signal (as SciPy's: two-sided spectra) is
//! transformed as its real and imaginary parts, joined after the transform.

use super::elem::wide;
use super::frames::{Extension, along_last, extend, norm_axis, sc, segments, slice_axis, triage};
use super::psd_opts::{
    Average, Common, PeriodogramOpts, Scaling, SpectrogramMode, SpectrogramOpts, StftOpts,
    WelchOpts,
};
use crate::array::Array;
use crate::dtype::{Float, c32, c64};
use crate::error::{Error, Result};
use crate::ops::fft::{FftElement, FftOpts};
use crate::ops::{AxisOpts, ReduceOpts};

/// What [`spectrogram`] and [`stft`] return: the frequencies, the segments' centre times and
/// the values (frequencies along the signal's axis, segments along a new last axis).
pub type TimeFrequency<A> = (Vec<f64>, Vec<f64>, Array<A>);

/// A real working type of the spectral routines (`f32` or `f64`).
pub(crate) trait Work:
    Float + crate::dtype::Element<Mean = Self> + FftElement<Real = Self> + super::elem::SignalElement
{
}
impl Work for f32 {}
impl Work for f64 {}

/// The checked segment settings of one call.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub win: Vec<f64>,
    pub nperseg: usize,
    pub noverlap: usize,
    pub nfft: usize,
}

impl Plan {
    pub(crate) fn step(&self) -> usize {
        self.nperseg - self.noverlap
    }
}

/// The segment settings of `c` for a signal of `n` values, `noverlap` defaulting to
/// `default_overlap(nperseg)`.
pub(crate) fn plan(
    what: &str,
    c: &Common,
    n: usize,
    default_overlap: fn(usize) -> usize,
) -> Result<Plan> {
    if !(c.fs > 0.0 && c.fs.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the sampling frequency fs must be positive and finite, not {}",
            c.fs
        )));
    }
    let (win, nperseg) = triage(what, &c.window, c.nperseg, n)?;
    let nfft = c.nfft.unwrap_or(nperseg);
    if nfft < nperseg {
        return Err(Error::InvalidArgument(format!(
            "{what}: nfft {nfft} is less than nperseg {nperseg}"
        )));
    }
    let noverlap = c.noverlap.unwrap_or_else(|| default_overlap(nperseg));
    if noverlap >= nperseg {
        return Err(Error::InvalidArgument(format!(
            "{what}: noverlap {noverlap} must be less than nperseg {nperseg}"
        )));
    }
    Ok(Plan {
        win,
        nperseg,
        noverlap,
        nfft,
    })
}

/// The frequencies of a transform of `nfft` points: `rfftfreq` when one-sided, else
/// `fftfreq` (NumPy's order), for sampling frequency `fs`.
pub(crate) fn freqs(nfft: usize, fs: f64, onesided: bool) -> Vec<f64> {
    let d = fs / nfft as f64;
    if onesided {
        (0..=nfft / 2).map(|k| k as f64 * d).collect()
    } else {
        (0..nfft)
            .map(|k| {
                let k = if k < nfft.div_ceil(2) {
                    k as isize
                } else {
                    k as isize - nfft as isize
                };
                k as f64 * d
            })
            .collect()
    }
}

/// `x` with `axis` moved last, checked non-empty.
fn signal_last<E: crate::dtype::Element>(
    what: &str,
    x: &Array<E>,
    axis: isize,
) -> Result<(Array<E>, usize)> {
    if x.ndim() == 0 || x.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what} of an empty signal (shape {:?})",
            x.shape()
        )));
    }
    let ax = norm_axis(what, axis, x.ndim())?;
    Ok((x.moveaxis(ax as isize, -1)?, ax))
}

/// A signal of the spectral routines in the working type `R`: real, or complex. A complex
/// signal's spectra are two-sided whatever `return_onesided` says, as SciPy makes them; its
/// segment transforms are those of its real and imaginary parts, joined (every step before
/// the transform, detrending and extension included, acts on the parts apart).
pub(crate) enum Sig<R: Work> {
    Real(Array<R>),
    Complex(Array<R::Complex>),
}

impl<R: Work> Sig<R> {
    /// `x` in the working type: complex when `T` is.
    fn of<T: FftElement>(x: &Array<T>) -> Self {
        if T::DTYPE.is_complex() {
            Sig::Complex(x.cast())
        } else {
            Sig::Real(x.cast())
        }
    }

    fn shape(&self) -> &[usize] {
        match self {
            Sig::Real(x) => x.shape(),
            Sig::Complex(x) => x.shape(),
        }
    }

    /// The signal with `axis` moved last, checked non-empty.
    fn last(&self, what: &str, axis: isize) -> Result<(Sig<R>, usize)> {
        match self {
            Sig::Real(x) => signal_last(what, x, axis).map(|(x, a)| (Sig::Real(x), a)),
            Sig::Complex(z) => signal_last(what, z, axis).map(|(z, a)| (Sig::Complex(z), a)),
        }
    }

    /// `c` as this signal takes it: two-sided when complex.
    fn sided(&self, c: &Common) -> Common {
        let mut c = c.clone();
        if matches!(self, Sig::Complex(_)) {
            c.onesided = false;
        }
        c
    }

    /// [`segment_ffts`] of the signal (`c` already [`sided`](Self::sided)).
    fn ffts(
        &self,
        c: &Common,
        p: &Plan,
        boundary: Option<Extension>,
        padded: bool,
    ) -> Result<(Array<R::Complex>, Vec<f64>)> {
        match self {
            Sig::Real(x) => segment_ffts(x, c, p, boundary, padded),
            Sig::Complex(z) => {
                let (fr, t) = segment_ffts(&z.real(), c, p, boundary, padded)?;
                let (fi, _) = segment_ffts(&z.imag(), c, p, boundary, padded)?;
                Ok((fr.try_add(&fi.try_mul(unit_i::<R>())?)?, t))
            }
        }
    }
}

/// `i` in the complex working type.
fn unit_i<R: Work>() -> R::Complex {
    <R::Complex as crate::dtype::Element>::from_scalar(crate::dtype::Scalar::C64(c64::new(
        0.0, 1.0,
    )))
}

/// The transforms of the segments of `x` (`[..., n]`, the signal last):
/// `[..., nseg, nfreq]`, and the segments' centre times.
pub(crate) fn segment_ffts<R: Work>(
    x: &Array<R>,
    c: &Common,
    p: &Plan,
    boundary: Option<Extension>,
    padded: bool,
) -> Result<(Array<R::Complex>, Vec<f64>)> {
    let la = x.ndim() - 1;
    let half = p.nperseg / 2;
    let mut x = match boundary {
        Some(how) => extend(x, half, how)?,
        None => x.clone(),
    };
    let step = p.step();
    if padded {
        let len = x.shape()[la];
        let nadd = ((step - (len - p.nperseg) % step) % step) % p.nperseg;
        if nadd > 0 {
            let mut w = vec![(0, 0); x.ndim()];
            w[la] = (0, nadd);
            x = x.pad(&w, sc::<R>(0.0))?;
        }
    }
    let len = x.shape()[la];
    let s = segments(&x, p.nperseg, step, c.detrend, &p.win)?;
    let opts = FftOpts::new().n(p.nfft).axis(-1);
    let f = if c.onesided {
        s.rfft_with(opts)?
    } else {
        s.fft_with(opts)?
    };
    let nseg = (len - p.nperseg) / step + 1;
    // SciPy takes `nperseg / 2` as a float here, though the extension is `nperseg / 2`
    // values rounded down: an odd segment's first time is then half a sample early.
    let shift = if boundary.is_some() {
        p.nperseg as f64 / 2.0
    } else {
        0.0
    };
    let t = (0..nseg)
        .map(|i| (p.nperseg as f64 / 2.0 + (i * step) as f64 - shift) / c.fs)
        .collect();
    Ok((f, t))
}

/// The scale of the power of each frequency: `1 / (fs Σ w²)` or `1 / (Σ w)²`, doubled for the
/// frequencies that stand for a negative one too when one-sided (all but 0 and an even
/// transform's Nyquist frequency).
fn power_scale(c: &Common, p: &Plan, nfreq: usize) -> Vec<f64> {
    let s = match c.scaling {
        Scaling::Density => 1.0 / (c.fs * p.win.iter().map(|w| w * w).sum::<f64>()),
        Scaling::Spectrum => 1.0 / p.win.iter().sum::<f64>().powi(2),
    };
    (0..nfreq)
        .map(|k| {
            let paired = c.onesided && k > 0 && !(p.nfft % 2 == 0 && k == p.nfft / 2);
            if paired { 2.0 * s } else { s }
        })
        .collect()
}

/// `|z|²`.
fn power_of<R: Work>(z: &Array<R::Complex>) -> Result<Array<R>> {
    let (re, im) = (z.real(), z.imag());
    re.try_mul(&re)?.try_add(&im.try_mul(&im)?)
}

/// The bias of the median of `n` values drawn from `χ²₂` relative to their mean (SciPy's
/// `_median_bias`).
fn median_bias(n: usize) -> f64 {
    1.0 + (1..=(n - 1) / 2)
        .map(|i| {
            let ii = 2.0 * i as f64;
            1.0 / (ii + 1.0) - 1.0 / ii
        })
        .sum::<f64>()
}

/// The real spectra `s` (`[..., nseg, nfreq]`) combined over their segments.
fn average_real<R: Work>(s: &Array<R>, how: Average) -> Result<Array<R>> {
    let nseg = s.shape()[s.ndim() - 2];
    match how {
        Average::Mean => Ok(s.mean_axes_with(&[-2], ReduceOpts::new())?.cast::<R>()),
        Average::Median => s
            .median_with(AxisOpts::new().axis(-2))?
            .cast::<R>()
            .try_mul(sc::<R>(1.0 / median_bias(nseg))),
    }
}

/// The welch estimate of `x` (signal moved last) in `R`: frequencies and `[..., nfreq]`.
fn welch_core<R: Work>(x: &Sig<R>, o: &WelchOpts, what: &str) -> Result<(Vec<f64>, Array<R>)> {
    let (xl, ax) = x.last(what, o.c.axis)?;
    let c = xl.sided(&o.c);
    let p = plan(what, &c, xl.shape()[xl.shape().len() - 1], |n| n / 2)?;
    let (z, _) = xl.ffts(&c, &p, None, false)?;
    let nfreq = z.shape()[z.ndim() - 1];
    let pw = power_of::<R>(&z)?.try_mul(&along_last::<R>(&z, &power_scale(&c, &p, nfreq))?)?;
    let avg = average_real(&pw, o.average)?;
    Ok((
        freqs(p.nfft, c.fs, c.onesided),
        avg.moveaxis(-1, ax as isize)?,
    ))
}

/// Runs `$body` with `R` the working type of `$t`, its transforms' real type (`f64` for
/// `f64`, `c64` and the integers, else `f32`).
macro_rules! in_work {
    ($t:ty, $r:ident => $body:expr) => {
        if wide(<<$t as FftElement>::Real as crate::dtype::Element>::DTYPE) {
            type $r = f64;
            $body
        } else {
            type $r = f32;
            $body
        }
    };
}

/// The power spectral density of `x` by Welch's method with SciPy's defaults ([`WelchOpts`]):
/// frequencies and the estimate, whose `axis` holds the frequencies.
///
/// # Errors
/// As [`welch_with`].
///
/// ```
/// use cuprite_array::{Array, signal::welch};
/// // White noise of variance 1 has a one-sided density near 2 (fs = 1).
/// let x: Vec<f64> = (0..4096u64).map(|i| ((i * 2654435761 % 1000) as f64 / 1000.0 - 0.5) * 12f64.sqrt()).collect();
/// let (f, p) = welch(&Array::from_slice(&x, &[4096])?)?;
/// assert_eq!((f.len(), p.shape()), (129, &[129][..]));
/// assert_eq!(f[128], 0.5);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn welch<T: FftElement>(x: &Array<T>) -> Result<(Vec<f64>, Array<T::Real>)> {
    welch_with(x, &WelchOpts::new())
}

/// [`welch`] with options: the segments (`nperseg` values, `noverlap` shared by neighbours)
/// each detrended, windowed, transformed with `nfft` points and scaled
/// ([`Scaling::Density`]: by `1 / (fs Σ w²)`; [`Scaling::Spectrum`]: `1 / (Σ w)²`; one-sided
/// powers doubled except at 0 and an even `nfft`'s Nyquist frequency), then averaged. Computed
/// in `f64` for `f64`, `c64` and the integers, else in `f32`. A complex signal's estimate is
/// two-sided (every frequency of `fftfreq`, in its order) whatever `return_onesided` says, as
/// SciPy's.
///
/// # Errors
/// An empty signal, an axis out of range, a non-positive or non-finite `fs`, `nperseg` 0 (one
/// above the signal's length is cut to it), a window of values whose length differs from
/// `nperseg` or exceeds the signal, `nfft < nperseg`, `noverlap >= nperseg`, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{Scaling, WelchOpts, Window, welch_with}};
/// // A unit sinusoid at a bin frequency: the power spectrum holds A²/2 = 0.5 there.
/// let n = 1024;
/// let x: Vec<f64> = (0..n).map(|i| (2.0 * std::f64::consts::PI * 8.0 * i as f64 / 64.0).sin()).collect();
/// let o = WelchOpts::new().nperseg(64).window(Window::Boxcar).scaling(Scaling::Spectrum);
/// let (f, p) = welch_with(&Array::from_slice(&x, &[n])?, &o)?;
/// let p = p.to_vec()?;
/// assert_eq!(f[8], 0.125);
/// assert!((p[8] - 0.5).abs() < 1e-12 && p[3].abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn welch_with<T: FftElement>(
    x: &Array<T>,
    opts: &WelchOpts,
) -> Result<(Vec<f64>, Array<T::Real>)> {
    in_work!(T, R => {
        let (f, p) = welch_core::<R>(&Sig::of(x), opts, "welch")?;
        Ok((f, p.cast()))
    })
}

/// The cross spectral density `conj(X) Y` in `R`, before averaging: `[..., nseg, nfreq]` with
/// the signal last, and the axis. A complex `x` or `y` makes the spectra two-sided.
fn cross_segments<R: Work>(
    x: &Sig<R>,
    y: &Sig<R>,
    c: &Common,
    what: &str,
) -> Result<(Vec<f64>, Array<R::Complex>, usize)> {
    let (xl, ax) = x.last(what, c.axis)?;
    let (yl, ay) = y.last(what, c.axis)?;
    let c = &yl.sided(&xl.sided(c));
    let (xs, ys) = (xl.shape().to_vec(), yl.shape().to_vec());
    // The other axes broadcast together (SciPy's rule); the output's frequency axis goes
    // where the signal's axis was in the operand of more dimensions.
    let (xo, yo) = (&xs[..xs.len() - 1], &ys[..ys.len() - 1]);
    let outer = crate::shape::broadcast_shapes(xo, yo).map_err(|_| {
        Error::Shape(format!(
            "{what}: x of shape {:?} and y of shape {:?} do not broadcast off axis {}",
            x.shape(),
            y.shape(),
            c.axis
        ))
    })?;
    let ax = if xs.len() >= ys.len() { ax } else { ay };
    // The shorter signal is zero-padded to the longer's length.
    let n = xs[xs.len() - 1].max(ys[ys.len() - 1]);
    let xl = xl.spread(&outer, n)?;
    let yl = yl.spread(&outer, n)?;
    let p = plan(what, c, n, |n| n / 2)?;
    let (zx, _) = xl.ffts(c, &p, None, false)?;
    let (zy, _) = yl.ffts(c, &p, None, false)?;
    let nfreq = zx.shape()[zx.ndim() - 1];
    let s = along_last::<R::Complex>(&zx, &power_scale(c, &p, nfreq))?;
    let pxy = zx.conj().try_mul(&zy)?.try_mul(&s)?;
    Ok((freqs(p.nfft, c.fs, c.onesided), pxy, ax))
}

/// `a` (the signal last) broadcast to `outer` off its last axis and zero-padded there to `n`
/// values.
fn spread_to<E: crate::dtype::Element>(a: Array<E>, outer: &[usize], n: usize) -> Result<Array<E>> {
    let m = a.shape()[a.ndim() - 1];
    let mut s = outer.to_vec();
    s.push(m);
    let a = if s == a.shape() {
        a
    } else {
        a.broadcast_to(&s)?
    };
    if m == n {
        return Ok(a);
    }
    let mut w = vec![(0, 0); a.ndim()];
    w[a.ndim() - 1] = (0, n - m);
    a.pad(&w, E::from_scalar(crate::dtype::Scalar::F64(0.0)))
}

impl<R: Work> Sig<R> {
    /// [`spread_to`] of either kind.
    fn spread(self, outer: &[usize], n: usize) -> Result<Sig<R>> {
        Ok(match self {
            Sig::Real(x) => Sig::Real(spread_to(x, outer, n)?),
            Sig::Complex(z) => Sig::Complex(spread_to(z, outer, n)?),
        })
    }
}

fn csd_core<R: Work>(
    x: &Sig<R>,
    y: &Sig<R>,
    o: &WelchOpts,
) -> Result<(Vec<f64>, Array<R::Complex>)> {
    let (f, pxy, ax) = cross_segments(x, y, &o.c, "csd")?;
    let avg = match o.average {
        Average::Mean => pxy.mean_axes_with(&[-2], ReduceOpts::new())?.cast(),
        Average::Median => {
            let re = average_real::<R>(&pxy.real(), Average::Median)?.cast::<R::Complex>();
            let im = average_real::<R>(&pxy.imag(), Average::Median)?.cast::<R::Complex>();
            re.try_add(&im.try_mul(unit_i::<R>())?)?
        }
    };
    Ok((f, avg.moveaxis(-1, ax as isize)?))
}

/// The cross power spectral density of `x` and `y` by Welch's method with SciPy's defaults
/// ([`WelchOpts`]): frequencies and `conj(X) Y` averaged over the segments.
///
/// # Errors
/// As [`csd_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{csd, welch}};
/// // The cross spectrum of a signal with itself is its power spectrum.
/// let x: Vec<f64> = (0..300).map(|i| ((i * 37 % 11) as f64).sin()).collect();
/// let x = Array::from_slice(&x, &[300])?;
/// let (_, pxy) = csd(&x, &x)?;
/// let (_, pxx) = welch(&x)?;
/// for (a, b) in pxy.to_vec()?.iter().zip(pxx.to_vec()?) {
///     assert!((a.re - b).abs() < 1e-12 && a.im.abs() < 1e-12);
/// }
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn csd<T: FftElement>(x: &Array<T>, y: &Array<T>) -> Result<(Vec<f64>, Array<T::Complex>)> {
    csd_with(x, y, &WelchOpts::new())
}

/// [`csd`] with options (as [`welch_with`]). The shorter signal is zero-padded to the longer's
/// length; the other axes broadcast together, NumPy's rules.
///
/// # Errors
/// As [`welch_with`], and shapes that do not broadcast off the signal's axis, named.
///
/// ```
/// use cuprite_array::{Array, signal::{WelchOpts, csd_with}};
/// let x = Array::from_slice(&[1.0f64, 0.0, -1.0, 0.0], &[4])?;
/// let y = Array::from_slice(&[0.0f64, 1.0, 0.0, -1.0], &[4])?;
/// // y lags x by a quarter period: the cross spectrum at f = 1/4 is purely imaginary.
/// let (f, p) = csd_with(&x, &y, &WelchOpts::new().detrend(None))?;
/// assert_eq!(f, [0.0, 0.25, 0.5]);
/// assert!(p.to_vec()?[1].re.abs() < 1e-12 && p.to_vec()?[1].im.abs() > 0.1);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn csd_with<T: FftElement>(
    x: &Array<T>,
    y: &Array<T>,
    opts: &WelchOpts,
) -> Result<(Vec<f64>, Array<T::Complex>)> {
    crate::array::check_devices(&[&x.node, &y.node])?;
    if wide(<T::Real as crate::dtype::Element>::DTYPE) {
        let (f, p) = csd_core::<f64>(&Sig::of(x), &Sig::of(y), opts)?;
        Ok((f, p.cast::<c64>().cast()))
    } else {
        let (f, p) = csd_core::<f32>(&Sig::of(x), &Sig::of(y), opts)?;
        Ok((f, p.cast::<c32>().cast()))
    }
}

/// The magnitude-squared coherence `|Pxy|² / (Pxx Pyy)` of `x` and `y` with SciPy's defaults
/// ([`WelchOpts`]).
///
/// # Errors
/// As [`coherence_with`].
///
/// ```
/// use cuprite_array::{Array, signal::coherence};
/// // A signal and a scaled copy are fully coherent.
/// let x: Vec<f64> = (0..512).map(|i| ((i * i % 17) as f64).cos()).collect();
/// let y: Vec<f64> = x.iter().map(|v| -3.0 * v).collect();
/// let (_, c) = coherence(&Array::from_slice(&x, &[512])?, &Array::from_slice(&y, &[512])?)?;
/// assert!(c.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-9));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn coherence<T: FftElement>(x: &Array<T>, y: &Array<T>) -> Result<(Vec<f64>, Array<T::Real>)> {
    coherence_with(x, y, &WelchOpts::new())
}

/// [`coherence`] with options (as [`welch_with`]; the averaging is always the mean, as
/// SciPy's).
///
/// # Errors
/// As [`csd_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{WelchOpts, coherence_with}};
/// let x: Vec<f32> = (0..64).map(|i| (i as f32 * 0.7).sin()).collect();
/// let x = Array::from_slice(&x, &[64])?;
/// let (f, c) = coherence_with(&x, &x, &WelchOpts::new().nperseg(16).fs(8.0))?;
/// assert_eq!((f.len(), f[8]), (9, 4.0));
/// assert!(c.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-4));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn coherence_with<T: FftElement>(
    x: &Array<T>,
    y: &Array<T>,
    opts: &WelchOpts,
) -> Result<(Vec<f64>, Array<T::Real>)> {
    let o = opts.clone().average(Average::Mean);
    crate::array::check_devices(&[&x.node, &y.node])?;
    in_work!(T, R => {
        let (x, y) = (Sig::<R>::of(x), Sig::<R>::of(y));
        let (f, pxx) = welch_core::<R>(&x, &o, "coherence")?;
        let (_, pyy) = welch_core::<R>(&y, &o, "coherence")?;
        let (_, pxy) = csd_core::<R>(&x, &y, &o)?;
        let c = power_of::<R>(&pxy)?.try_div(&pxx)?.try_div(&pyy)?;
        Ok((f, c.cast()))
    })
}

/// The periodogram of `x` with SciPy's defaults ([`PeriodogramOpts`]): the power spectral
/// density from one segment of the whole signal.
///
/// # Errors
/// As [`periodogram_with`].
///
/// ```
/// use cuprite_array::{Array, signal::periodogram};
/// let (f, p) = periodogram(&Array::from_slice(&[1.0f64, -1.0, 1.0, -1.0], &[4])?)?;
/// assert_eq!(f, [0.0, 0.25, 0.5]);
/// // All the power (variance 1, fs = 1) sits at the Nyquist frequency, which is not doubled.
/// let p = p.to_vec()?;
/// assert!(p[0].abs() < 1e-12 && p[1].abs() < 1e-12 && (p[2] - 4.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn periodogram<T: FftElement>(x: &Array<T>) -> Result<(Vec<f64>, Array<T::Real>)> {
    periodogram_with(x, &PeriodogramOpts::new())
}

/// [`periodogram`] with options: one segment of the signal's length, or of `nfft` values
/// when `nfft` is shorter (the signal truncated), zero-padded to `nfft` when longer.
///
/// # Errors
/// As [`welch_with`]; a window of values must be as long as the segment.
///
/// ```
/// use cuprite_array::{Array, signal::{PeriodogramOpts, Scaling, periodogram_with}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
/// let (f, p) = periodogram_with(&x, &PeriodogramOpts::new().nfft(8).detrend(None).scaling(Scaling::Spectrum))?;
/// assert_eq!(f.len(), 5);
/// // The DC power of a spectrum-scaled boxcar periodogram is the squared mean.
/// assert!((p.to_vec()?[0] - 6.25).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn periodogram_with<T: FftElement>(
    x: &Array<T>,
    opts: &PeriodogramOpts,
) -> Result<(Vec<f64>, Array<T::Real>)> {
    if x.ndim() == 0 || x.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "periodogram of an empty signal (shape {:?})",
            x.shape()
        )));
    }
    let ax = norm_axis("periodogram", opts.c.axis, x.ndim())?;
    let n = x.shape()[ax];
    let mut c = opts.c.clone();
    let (x, nperseg, nfft) = match c.nfft {
        None => (x.clone(), n, None),
        Some(0) => {
            return Err(Error::InvalidArgument(
                "periodogram: nfft must be positive, not 0".into(),
            ));
        }
        Some(m) if m >= n => (x.clone(), n, Some(m)),
        Some(m) => (slice_axis(x, ax, 0, m, 1)?, m, None),
    };
    c.nperseg = Some(nperseg);
    c.noverlap = Some(0);
    c.nfft = nfft;
    let o = WelchOpts {
        c,
        average: Average::Mean,
    };
    in_work!(T, R => {
        let (f, p) = welch_core::<R>(&Sig::of(&x), &o, "periodogram")?;
        Ok((f, p.cast()))
    })
}

fn spectrogram_core<R: Work>(x: &Sig<R>, o: &SpectrogramOpts) -> Result<TimeFrequency<R>> {
    let what = "spectrogram";
    let (xl, ax) = x.last(what, o.c.axis)?;
    let c = xl.sided(&o.c);
    let p = plan(what, &c, xl.shape()[xl.shape().len() - 1], |n| n / 8)?;
    let (z, t) = xl.ffts(&c, &p, None, false)?;
    let nfreq = z.shape()[z.ndim() - 1];
    let scale = power_scale(&c, &p, nfreq);
    let s = match o.mode {
        SpectrogramMode::Psd => power_of::<R>(&z)?.try_mul(&along_last::<R>(&z, &scale)?)?,
        mode => {
            // The scaled transform of stft: the square root of the unpaired scale.
            let s0 = scale[0].sqrt();
            let zs = z.try_mul(&along_last::<R::Complex>(&z, &[s0])?)?;
            match mode {
                SpectrogramMode::Magnitude => zs.norm(),
                // The frequencies are the last axis here.
                SpectrogramMode::Phase => zs.arg().unwrap(None, -1, std::f64::consts::TAU)?,
                _ => zs.arg(),
            }
        }
    };
    Ok((
        freqs(p.nfft, c.fs, c.onesided),
        t,
        s.moveaxis(-1, ax as isize)?,
    ))
}

/// The spectrogram of `x` with SciPy's defaults ([`SpectrogramOpts`]): frequencies, segment
/// times and the power of each segment, with the frequencies along `axis` and the segments
/// along a new last axis.
///
/// # Errors
/// As [`welch_with`].
///
/// ```
/// use cuprite_array::{Array, signal::spectrogram};
/// let x: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.3).sin()).collect();
/// let (f, t, s) = spectrogram(&Array::from_slice(&x, &[1000])?)?;
/// // Segments of 256 values stepping by 256 - 32.
/// assert_eq!((f.len(), t.len(), s.shape()), (129, 4, &[129, 4][..]));
/// assert_eq!(t[0], 128.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn spectrogram<T: FftElement>(x: &Array<T>) -> Result<TimeFrequency<T::Real>> {
    spectrogram_with(x, &SpectrogramOpts::new())
}

/// [`spectrogram`] with options: each segment's power (scaled as [`welch_with`]'s), or the
/// modulus or argument of its transform scaled by the square root of the (undoubled) scale.
///
/// # Errors
/// As [`welch_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{SpectrogramMode, SpectrogramOpts, spectrogram_with}};
/// let x = Array::from_slice(&[0.0f64; 40], &[2, 20])?;
/// let o = SpectrogramOpts::new().nperseg(8).noverlap(4).mode(SpectrogramMode::Magnitude);
/// let (f, t, s) = spectrogram_with(&x, &o)?;
/// assert_eq!(s.shape(), &[2, 5, 4]);
/// assert_eq!(t, [4.0, 8.0, 12.0, 16.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn spectrogram_with<T: FftElement>(
    x: &Array<T>,
    opts: &SpectrogramOpts,
) -> Result<TimeFrequency<T::Real>> {
    in_work!(T, R => {
        let (f, t, s) = spectrogram_core::<R>(&Sig::of(x), opts)?;
        Ok((f, t, s.cast()))
    })
}

fn stft_core<R: Work>(x: &Sig<R>, o: &StftOpts) -> Result<TimeFrequency<R::Complex>> {
    let what = "stft";
    let (xl, ax) = x.last(what, o.c.axis)?;
    let c = xl.sided(&o.c);
    let p = plan(what, &c, xl.shape()[xl.shape().len() - 1], |n| n / 2)?;
    let (z, t) = xl.ffts(&c, &p, o.boundary, o.padded)?;
    let s = match o.c.scaling {
        Scaling::Density => 1.0 / (o.c.fs * p.win.iter().map(|w| w * w).sum::<f64>()),
        Scaling::Spectrum => 1.0 / p.win.iter().sum::<f64>().powi(2),
    };
    let zs = z.try_mul(&along_last::<R::Complex>(&z, &[s.sqrt()])?)?;
    Ok((
        freqs(p.nfft, c.fs, c.onesided),
        t,
        zs.moveaxis(-1, ax as isize)?,
    ))
}

/// The short-time Fourier transform of `x` with SciPy's defaults ([`StftOpts`]): frequencies,
/// segment times and the transforms, with the frequencies along `axis` and the segments along
/// a new last axis.
///
/// # Errors
/// As [`stft_with`].
///
/// ```
/// use cuprite_array::{Array, signal::stft};
/// let x: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.3).sin()).collect();
/// let (f, t, z) = stft(&Array::from_slice(&x, &[1000])?)?;
/// // 1000 values + 128 zeros each side, padded to 1280: 9 segments of 256 stepping by 128.
/// assert_eq!((f.len(), t.len(), z.shape()), (129, 9, &[129, 9][..]));
/// assert_eq!((t[0], t[8]), (0.0, 1024.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn stft<T: FftElement>(x: &Array<T>) -> Result<TimeFrequency<T::Complex>> {
    stft_with(x, &StftOpts::new())
}

/// [`stft`] with options: the signal extended by `nperseg / 2` values at each end
/// ([`Extension`], or not), zero-padded to a whole number of segments when `padded`, cut into
/// segments as [`welch_with`]'s, each detrended (default: not), windowed and transformed,
/// scaled by `1 / Σ w` ([`Scaling::Spectrum`]) or `1 / sqrt(fs Σ w²)` ([`Scaling::Density`]).
///
/// # Errors
/// As [`welch_with`], and an even or odd extension longer than the signal less one, named.
///
/// ```
/// use cuprite_array::{Array, signal::{StftOpts, stft_with}};
/// let x = Array::from_slice(&[1.0f64; 16], &[16])?;
/// let (f, t, z) = stft_with(&x, &StftOpts::new().nperseg(8).boundary(None).padded(false))?;
/// assert_eq!((f.len(), t), (5, vec![4.0, 8.0, 12.0]));
/// // A constant under the Hann window: the DC bin Σ w x / Σ w = 1, the next -1/2, none above.
/// let z = z.to_vec()?; // [frequency][segment]
/// assert!((z[0].re - 1.0).abs() < 1e-12 && (z[3].re + 0.5).abs() < 1e-12 && z[6].norm() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn stft_with<T: FftElement>(
    x: &Array<T>,
    opts: &StftOpts,
) -> Result<TimeFrequency<T::Complex>> {
    if wide(<T::Real as crate::dtype::Element>::DTYPE) {
        let (f, t, z) = stft_core::<f64>(&Sig::of(x), opts)?;
        Ok((f, t, z.cast::<c64>().cast()))
    } else {
        let (f, t, z) = stft_core::<f32>(&Sig::of(x), opts)?;
        Ok((f, t, z.cast::<c32>().cast()))
    }
}
