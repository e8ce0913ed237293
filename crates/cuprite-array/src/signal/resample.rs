//! Resampling (SciPy's `resample`, `upfirdn`, `resample_poly`, `decimate`) on the array API;
//! their low-pass FIR filters come from `design::firwin`, `decimate`'s default IIR filter from
//! `design::cheby1_sos`.

use super::conv::convolve_axes;
use super::design::{BandType, FIRWIN_MAX_TAPS, cheby1_sos, firwin};
use super::elem::wide;
use super::filters::{sosfilt, sosfiltfilt};
use super::frames::{WindowSpec, along, norm_axis, sc, slice_axis};
use super::paths::ConvMethod;
use super::psd::Work;
use super::upfirdn_modes::{UpfirdnMode, extend};
use super::windows::{Window, window_values};
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::ops::fft::FftOpts;
use crate::ops::{AxisOpts, ConvMode, ReduceOpts};

/// `x` resampled to `num` values along `ax`, its real spectrum weighted first by `w` (the
/// spectral window folded onto the one-sided bins, `nx / 2 + 1` values) when given.
fn resample_core<R: Work>(
    x: &Array<R>,
    num: usize,
    ax: usize,
    w: Option<&[f64]>,
) -> Result<Array<R>> {
    let nx = x.shape()[ax];
    let xf = x.rfft_with(FftOpts::new().axis(ax as isize))?;
    let xf = match w {
        Some(w) => xf.try_mul(&along::<R::Complex>(&xf, ax, w)?)?,
        None => xf,
    };
    let n = num.min(nx);
    let nyq = n / 2 + 1;
    let y = slice_axis(&xf, ax, 0, nyq, 1)?;
    // An even-length common band ends in an unpaired Nyquist bin: doubled when it becomes a
    // paired bin of the shorter output's real spectrum, halved when it splits into +N/2
    // and -N/2 of the longer one.
    let y = if n % 2 == 0 && num != nx {
        let mut f = vec![1.0; nyq];
        f[n / 2] = if num < nx { 2.0 } else { 0.5 };
        y.try_mul(&along::<R::Complex>(&y, ax, &f)?)?
    } else {
        y
    };
    y.irfft_with(FftOpts::new().n(num).axis(ax as isize))?
        .cast::<R>()
        .try_mul(sc::<R>(num as f64 / nx as f64))
}

/// `x` resampled to `num` values along `axis` by the Fourier method (SciPy's `resample`
/// without `t` or `window`): the real spectrum truncated or zero-padded to `num` values
/// (an even common length's Nyquist term doubled when downsampling, halved when upsampling),
/// transformed back and scaled by `num / n`. The signal is taken as periodic. SciPy's default
/// axis is 0. Computed in `f64` for `f64`, else `f32`; real signals.
///
/// # Errors
/// An axis out of range, an empty axis or `num` 0, named.
///
/// ```
/// use cuprite_array::{Array, signal::resample};
/// // A band-limited periodic signal is interpolated exactly.
/// let x: Vec<f64> = (0..8).map(|i| (2.0 * std::f64::consts::PI * i as f64 / 8.0).cos()).collect();
/// let y = resample(&Array::from_slice(&x, &[8])?, 16, 0)?.to_vec()?;
/// for (i, v) in y.iter().enumerate() {
///     assert!((v - (2.0 * std::f64::consts::PI * i as f64 / 16.0).cos()).abs() < 1e-12);
/// }
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn resample<T: Float>(x: &Array<T>, num: usize, axis: isize) -> Result<Array<T>> {
    resample_with(x, num, &ResampleOpts::new().axis(axis))
}

/// Options of [`resample_with`], with SciPy's defaults: axis 0, no spectral window.
///
/// ```
/// use cuprite_array::signal::{ResampleOpts, Window};
/// let o = ResampleOpts::new().axis(-1).window(Window::Hann);
/// # let _ = o;
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use]
pub struct ResampleOpts {
    axis: isize,
    window: Option<WindowSpec>,
}

impl ResampleOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The axis resampled (SciPy's default 0).
    pub fn axis(mut self, axis: isize) -> Self {
        self.axis = axis;
        self
    }
    /// The spectral window (SciPy's `window`): a named window of the signal's length, taken
    /// centred on frequency 0 (`fftshift` of its periodic form), or the weights of the
    /// `fftfreq` bins themselves, one a value of the signal.
    pub fn window(mut self, w: impl Into<WindowSpec>) -> Self {
        self.window = Some(w.into());
        self
    }
}

/// [`resample`] with options (SciPy's `resample` with `window`): before it is truncated or
/// padded, the spectrum is weighted by the window over the `fftfreq` bins; for a real signal
/// the weight of a positive frequency is the mean of the window's values at it and at its
/// negative, as SciPy folds it.
///
/// # Errors
/// As [`resample`]; a window of values whose count is not the signal's length, or a window
/// [`get_window`](super::get_window) refuses, named.
///
/// ```
/// use cuprite_array::{Array, signal::{ResampleOpts, Window, resample_with}};
/// // A constant passes a window whose value at frequency 0 is 1.
/// let x = Array::from_slice(&[3.0f64; 8], &[8])?;
/// let y = resample_with(&x, 12, &ResampleOpts::new().window(Window::Hann))?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 3.0).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn resample_with<T: Float>(x: &Array<T>, num: usize, opts: &ResampleOpts) -> Result<Array<T>> {
    let ax = norm_axis("resample", opts.axis, x.ndim())?;
    let nx = x.shape()[ax];
    if nx == 0 || num == 0 {
        return Err(Error::InvalidArgument(format!(
            "resample: {nx} values to {num} along axis {ax}: both must be positive"
        )));
    }
    let w = match &opts.window {
        None => None,
        Some(spec) => Some(folded_window(spec, nx)?),
    };
    if wide(T::DTYPE) {
        Ok(resample_core::<f64>(&x.cast(), num, ax, w.as_deref())?.cast())
    } else {
        Ok(resample_core::<f32>(&x.cast(), num, ax, w.as_deref())?.cast())
    }
}

/// The spectral window of [`resample_with`] over the `fftfreq` bins of `nx` values, folded
/// onto the `nx / 2 + 1` bins of a real spectrum: `(W[l] + W[-l]) / 2` for `l > 0`.
fn folded_window(spec: &WindowSpec, nx: usize) -> Result<Vec<f64>> {
    let bins = match spec {
        WindowSpec::Values(v) => {
            if v.len() != nx {
                return Err(Error::InvalidArgument(format!(
                    "resample: a window of {} values for a signal of {nx} (one a frequency bin)",
                    v.len()
                )));
            }
            v.clone()
        }
        WindowSpec::Named(w) => {
            // SciPy's `fftshift` of the periodic window: bin `i` takes value
            // `(i + ceil(nx / 2)) mod nx`.
            let v = window_values(*w, nx, true)?;
            let h = nx.div_ceil(2);
            v[h..].iter().chain(&v[..h]).copied().collect()
        }
    };
    let nh = nx / 2 + 1;
    Ok((0..nh)
        .map(|l| {
            if l == 0 {
                bins[0]
            } else {
                (bins[l] + bins[nx - l]) / 2.0
            }
        })
        .collect())
}

fn upfirdn_core<R: Work>(
    h: &[f64],
    x: &Array<R>,
    up: usize,
    down: usize,
    ax: usize,
) -> Result<Array<R>> {
    let xm = x.moveaxis(ax as isize, -1)?;
    let nd = xm.ndim();
    let n = xm.shape()[nd - 1];
    let xu = if up > 1 {
        let mut w = vec![(0, 0); nd + 1];
        w[nd] = (0, up - 1);
        let mut s = xm.shape()[..nd - 1].to_vec();
        // `upfirdn` checked `n up` (and the whole upsampled shape).
        s.push(n * up);
        let z = xm.expand_dims(-1)?.pad(&w, sc::<R>(0.0))?.reshape(&s)?;
        slice_axis(&z, nd - 1, 0, (n - 1) * up + 1, 1)?
    } else {
        xm
    };
    let hv: Vec<R> = h.iter().map(|&v| sc::<R>(v)).collect();
    let ha = Array::from_slice_on(x.device(), &hv, &[h.len()])?;
    let y = convolve_axes(&xu, &ha, &[-1], ConvMode::Full, ConvMethod::Auto)?;
    let len = y.shape()[nd - 1];
    let y = if down > 1 {
        slice_axis(&y, nd - 1, 0, len, down)?
    } else {
        y
    };
    y.moveaxis(-1, ax as isize)
}

fn check_rates(what: &str, up: usize, down: usize) -> Result<()> {
    if up == 0 || down == 0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: up {up} and down {down} must both be at least 1"
        )));
    }
    Ok(())
}

/// Upsamples `x` by `up` (inserting `up - 1` zeros after each value), convolves with the FIR
/// filter `h` and keeps every `down`-th value, along `axis` (SciPy's `upfirdn` with its
/// default zero padding): `((n - 1) up + len(h) - 1) / down + 1` values. The convolution is
/// [`convolve_axes`]' (its method chosen from the sizes). `h` is rounded to the working
/// precision (`f64` for `f64`, else `f32`).
///
/// # Errors
/// An empty `h` or non-finite tap, `up` or `down` 0, an axis out of range or an empty axis,
/// or an upsampled signal or convolution with more elements than fit in memory, named.
///
/// ```
/// use cuprite_array::{Array, signal::upfirdn};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// // Upsampling by 2 with a hold filter repeats each value.
/// assert_eq!(upfirdn(&[1.0, 1.0], &x, 2, 1, -1)?.to_vec()?, [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
/// // Every third value of the plain convolution.
/// assert_eq!(upfirdn(&[1.0], &x, 1, 3, -1)?.to_vec()?, [1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn upfirdn<T: Float>(
    h: &[f64],
    x: &Array<T>,
    up: usize,
    down: usize,
    axis: isize,
) -> Result<Array<T>> {
    upfirdn_with(h, x, up, down, &UpfirdnOpts::new().axis(axis))
}

/// Options of [`upfirdn_with`], with SciPy's defaults: the last axis, zeros beyond the ends.
///
/// ```
/// use cuprite_array::signal::{UpfirdnMode, UpfirdnOpts};
/// let o = UpfirdnOpts::new().axis(0).mode(UpfirdnMode::Constant).cval(1.5);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct UpfirdnOpts {
    axis: isize,
    mode: UpfirdnMode,
    cval: f64,
}

impl Default for UpfirdnOpts {
    fn default() -> Self {
        UpfirdnOpts {
            axis: -1,
            mode: UpfirdnMode::Constant,
            cval: 0.0,
        }
    }
}

impl UpfirdnOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The axis filtered (SciPy's default -1).
    pub fn axis(mut self, axis: isize) -> Self {
        self.axis = axis;
        self
    }
    /// What the signal holds beyond its ends.
    pub fn mode(mut self, mode: UpfirdnMode) -> Self {
        self.mode = mode;
        self
    }
    /// The value beyond the ends with [`UpfirdnMode::Constant`] (ignored by the other modes).
    pub fn cval(mut self, cval: f64) -> Self {
        self.cval = cval;
        self
    }
}

/// [`upfirdn`] with SciPy's extension modes (`mode`, `cval`): the signal is taken to hold the
/// mode's values before and after it ([`UpfirdnMode`]) as far as the filter reaches, and the
/// output has the same `((n - 1) up + len(h) - 1) / down + 1` values.
///
/// # Errors
/// As [`upfirdn`]; a mode that needs two values ([`UpfirdnMode`]) on an axis of one, or a
/// non-finite `cval`, named.
///
/// ```
/// use cuprite_array::{Array, signal::{UpfirdnMode, UpfirdnOpts, upfirdn_with}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 4.0], &[3])?;
/// // A 3-tap moving sum, the edge values repeated beyond the ends.
/// let o = UpfirdnOpts::new().mode(UpfirdnMode::Edge);
/// assert_eq!(upfirdn_with(&[1.0; 3], &x, 1, 1, &o)?.to_vec()?, [3.0, 4.0, 7.0, 10.0, 12.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn upfirdn_with<T: Float>(
    h: &[f64],
    x: &Array<T>,
    up: usize,
    down: usize,
    opts: &UpfirdnOpts,
) -> Result<Array<T>> {
    let axis = opts.axis;
    check_rates("upfirdn", up, down)?;
    if !opts.cval.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "upfirdn: cval {} is not finite",
            opts.cval
        )));
    }
    if h.is_empty() {
        return Err(Error::InvalidArgument("upfirdn: an empty filter h".into()));
    }
    if let Some(v) = h.iter().find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "upfirdn: the filter holds {v}, not a finite value"
        )));
    }
    let ax = norm_axis("upfirdn", axis, x.ndim())?;
    let n = x.shape()[ax];
    if n == 0 {
        return Err(Error::InvalidArgument(format!(
            "upfirdn along an empty axis {ax} (shape {:?})",
            x.shape()
        )));
    }
    // The upsampled signal (`n up` values) and the full convolution (`(n - 1) up + len(h)`)
    // must fit memory along with the other axes.
    let longest = (n - 1)
        .checked_mul(up)
        .and_then(|v| v.checked_add(h.len().max(up)));
    let fits = longest.is_some_and(|l| {
        let mut s = x.shape().to_vec();
        s[ax] = l;
        crate::shape::checked_numel(&s).is_ok()
    });
    if !fits {
        return Err(Error::InvalidArgument(format!(
            "upfirdn: {n} values upsampled by {up} and filtered by {} taps along axis {ax} of \
             shape {:?} have more elements than fit in memory",
            h.len(),
            x.shape()
        )));
    }
    let zeros = opts.mode == UpfirdnMode::Constant && opts.cval == 0.0;
    if wide(T::DTYPE) {
        Ok(upfirdn_ext::<f64>(h, &x.cast(), up, down, ax, zeros, opts)?.cast())
    } else {
        Ok(upfirdn_ext::<f32>(h, &x.cast(), up, down, ax, zeros, opts)?.cast())
    }
}

/// [`upfirdn_core`] of `x` extended by `opts.mode` as far as the filter reaches: `p - 1`
/// values at each end, `p = ceil(len(h) / up)` the taps of a phase. The output is the full
/// rate convolution's values at `k down` past the extension's `(p - 1) up` positions.
fn upfirdn_ext<R: Work>(
    h: &[f64],
    x: &Array<R>,
    up: usize,
    down: usize,
    ax: usize,
    zeros: bool,
    opts: &UpfirdnOpts,
) -> Result<Array<R>> {
    if zeros {
        return upfirdn_core(h, x, up, down, ax);
    }
    let n = x.shape()[ax];
    let reach = h.len().div_ceil(up) - 1;
    let longest = reach
        .checked_mul(2)
        .and_then(|r| r.checked_add(n - 1))
        .and_then(|m| m.checked_mul(up))
        .and_then(|m| m.checked_add(h.len()));
    let fits = longest.is_some_and(|l| {
        let mut s = x.shape().to_vec();
        s[ax] = l;
        crate::shape::checked_numel(&s).is_ok()
    });
    if !fits {
        return Err(Error::InvalidArgument(format!(
            "upfirdn: {n} values extended by {reach} at each end ({:?} mode), upsampled by \
             {up} and filtered by {} taps along axis {ax} of shape {:?} have more elements than \
             fit in memory",
            opts.mode,
            h.len(),
            x.shape()
        )));
    }
    let xe = extend(x, ax, reach, reach, opts.mode, opts.cval)?;
    let y = upfirdn_core(h, &xe, up, 1, ax)?;
    // `upfirdn` checked `(n - 1) up + len(h)` against memory.
    let out_len = ((n - 1) * up + h.len() - 1) / down + 1;
    let start = reach * up;
    slice_axis(&y, ax, start, start + (out_len - 1) * down + 1, down)
}

/// What [`resample_poly`] assumes beyond the signal's ends (SciPy's `padtype`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolyPad {
    /// Zeros (`'constant'` with `cval = 0`, the default).
    #[default]
    Zeros,
    /// The signal's mean (`'mean'`): removed before filtering, added back after.
    Mean,
    /// The signal's median (`'median'`), likewise.
    Median,
    /// The signal's minimum (`'minimum'`), likewise.
    Minimum,
    /// The signal's maximum (`'maximum'`), likewise.
    Maximum,
    /// One of [`upfirdn`]'s extension modes (SciPy's `padtype` of the same name); a constant
    /// other than zero is [`ResamplePolyOpts::cval`].
    Mode(UpfirdnMode),
}

/// Options of [`resample_poly_with`], with SciPy's defaults: axis 0, the filter designed by
/// [`firwin`] with the Kaiser window `β = 5`, zero padding.
///
/// ```
/// use cuprite_array::signal::{PolyPad, ResamplePolyOpts, Window};
/// let o = ResamplePolyOpts::new().axis(-1).window(Window::Hamming).padtype(PolyPad::Mean);
/// # let _ = o;
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct ResamplePolyOpts {
    axis: isize,
    window: WindowSpec,
    pad: PolyPad,
    cval: Option<f64>,
}

impl Default for ResamplePolyOpts {
    fn default() -> Self {
        ResamplePolyOpts {
            axis: 0,
            window: WindowSpec::Named(Window::Kaiser(5.0)),
            pad: PolyPad::Zeros,
            cval: None,
        }
    }
}

impl ResamplePolyOpts {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The axis resampled (SciPy's default 0).
    pub fn axis(mut self, axis: isize) -> Self {
        self.axis = axis;
        self
    }
    /// The window of the designed low-pass filter, or the filter's taps themselves.
    pub fn window(mut self, w: impl Into<WindowSpec>) -> Self {
        self.window = w.into();
        self
    }
    /// What lies beyond the ends.
    pub fn padtype(mut self, p: PolyPad) -> Self {
        self.pad = p;
        self
    }
    /// The constant beyond the ends with `PolyPad::Mode(UpfirdnMode::Constant)` (SciPy's
    /// `cval`; zero when not given). Given with any other padding it is an `Err`, as in SciPy.
    pub fn cval(mut self, cval: f64) -> Self {
        self.cval = Some(cval);
        self
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `x` resampled along `axis` by `up / down` with a polyphase FIR filter, with SciPy's
/// defaults ([`ResamplePolyOpts`]).
///
/// # Errors
/// As [`resample_poly_with`].
///
/// ```
/// use cuprite_array::{Array, signal::resample_poly};
/// let x = Array::from_slice(&[0.0f64; 30], &[30])?;
/// assert_eq!(resample_poly(&x, 3, 2)?.shape(), &[45]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn resample_poly<T: Float>(x: &Array<T>, up: usize, down: usize) -> Result<Array<T>> {
    resample_poly_with(x, up, down, &ResamplePolyOpts::new())
}

/// [`resample_poly`] with options (SciPy's `resample_poly`): `up` and `down` reduced by their
/// greatest common divisor; the low-pass filter [`firwin`]`(20 r + 1, 1 / r, window)` with
/// `r = max(up, down)` (or the given taps), times `up`, zero-padded in front so that the
/// output samples sit at the filter's centre; then [`upfirdn`] and the `ceil(n up / down)`
/// values aligned with the input kept. The mean, median, minimum or maximum padding removes
/// that value before filtering and adds it back after; the other paddings are [`upfirdn`]'s
/// extension modes ([`upfirdn_with`]).
///
/// # Errors
/// `up` or `down` 0, an empty or non-finite filter, an axis out of range or an empty axis,
/// a `cval` given with a padding other than the constant mode, a mode that needs two values
/// on an axis of one, a designed filter of more than 2^24 taps (`max(up, down)` above 838860 after the greatest
/// common divisor), or an output with more elements than fit in memory, named.
///
/// ```
/// use cuprite_array::{Array, signal::{PolyPad, ResamplePolyOpts, resample_poly_with}};
/// // With the mean as the padding a constant stays constant.
/// let x = Array::from_slice(&[2.0f64; 40], &[40])?;
/// let o = ResamplePolyOpts::new().padtype(PolyPad::Mean);
/// let y = resample_poly_with(&x, 2, 3, &o)?.to_vec()?;
/// assert_eq!(y.len(), 27);
/// assert!(y.iter().all(|v| (v - 2.0).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn resample_poly_with<T: Float>(
    x: &Array<T>,
    up: usize,
    down: usize,
    opts: &ResamplePolyOpts,
) -> Result<Array<T>> {
    check_rates("resample_poly", up, down)?;
    let ax = norm_axis("resample_poly", opts.axis, x.ndim())?;
    let n_in = x.shape()[ax];
    if n_in == 0 {
        return Err(Error::InvalidArgument(format!(
            "resample_poly along an empty axis {ax} (shape {:?})",
            x.shape()
        )));
    }
    let g = gcd(up, down);
    let (up, down) = (up / g, down / g);
    if up == 1 && down == 1 {
        return Ok(x.clone());
    }
    let n_out = n_in
        .checked_mul(up)
        .filter(|&v| v <= isize::MAX as usize / 16)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "resample_poly: {n_in} values upsampled by {up} overflow the address space"
            ))
        })?
        .div_ceil(down);
    let (h, half_len) = match &opts.window {
        WindowSpec::Values(v) => {
            if v.is_empty() {
                return Err(Error::InvalidArgument(
                    "resample_poly: an empty filter".into(),
                ));
            }
            (v.clone(), (v.len() - 1) / 2)
        }
        WindowSpec::Named(w) => {
            let r = up.max(down);
            let taps = r
                .checked_mul(20)
                .and_then(|t| t.checked_add(1))
                .filter(|&t| t <= FIRWIN_MAX_TAPS)
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "resample_poly: up {up} and down {down} (over their greatest common \
                         divisor) design a filter of 20 max(up, down) + 1 taps, more than 2^24"
                    ))
                })?;
            (firwin(taps, 1.0 / r as f64, *w)?, taps / 2)
        }
    };
    let n_pre_pad = down - half_len % down;
    // At most `half_len / down + 1` (u128: `down` may be near `usize::MAX`).
    let n_pre_remove = ((half_len as u128 + n_pre_pad as u128) / down as u128) as usize;
    // The fewest zeros `p` after the taps for which `upfirdn`'s output of
    // `((n_in - 1) up + lh + p - 1) / down + 1` values reaches `n_out + n_pre_remove`:
    // `(n_in - 1) up + lh + p - 1 >= (n_out + n_pre_remove - 1) down` (in u128: the terms are
    // below 2^64 each, their products below 2^128).
    let lh = h.len() as u128 + n_pre_pad as u128;
    let reached = ((n_in - 1) as u128) * (up as u128) + lh - 1;
    let need = ((n_out + n_pre_remove - 1) as u128) * (down as u128);
    let n_post_pad = usize::try_from(need.saturating_sub(reached)).map_err(|_| {
        Error::InvalidArgument(format!(
            "resample_poly: up {up} and down {down} of {n_in} values pad the filter past the \
             address space"
        ))
    })?;
    let n_taps = usize::try_from(lh + n_post_pad as u128).unwrap_or(usize::MAX);
    let mut taps: Vec<f64> = crate::util::host_vec(n_taps, "resample_poly: the padded filter")?;
    taps.resize(n_pre_pad, 0.0);
    taps.extend(h.iter().map(|v| v * up as f64));
    taps.extend(std::iter::repeat_n(0.0, n_post_pad));
    let a = ax as isize;
    let keep = ReduceOpts::new().keepdims(true);
    let mut mode = UpfirdnOpts::new().axis(a);
    if let Some(c) = opts.cval {
        if opts.pad != PolyPad::Mode(UpfirdnMode::Constant) {
            return Err(Error::InvalidArgument(format!(
                "resample_poly: cval {c} has no effect with the {:?} padding (only with \
                 PolyPad::Mode(UpfirdnMode::Constant))",
                opts.pad
            )));
        }
        mode = mode.cval(c);
    }
    let background: Option<Array<T>> = match opts.pad {
        PolyPad::Zeros => None,
        PolyPad::Mode(m) => {
            mode = mode.mode(m);
            None
        }
        PolyPad::Mean => Some(x.cast::<f64>().mean_axes_with(&[a], keep)?.cast()),
        PolyPad::Median => Some(
            x.cast::<f64>()
                .median_with(AxisOpts::new().axis(a))?
                .expand_dims(a)?
                .cast(),
        ),
        PolyPad::Minimum => Some(x.min_axes_with(&[a], keep)?),
        PolyPad::Maximum => Some(x.max_axes_with(&[a], keep)?),
    };
    let xs = match &background {
        Some(b) => x.try_sub(b)?,
        None => x.clone(),
    };
    let y = upfirdn_with(&taps, &xs, up, down, &mode)?;
    let y = slice_axis(&y, ax, n_pre_remove, n_pre_remove + n_out, 1)?;
    match &background {
        Some(b) => y.try_add(b),
        None => Ok(y),
    }
}

/// The anti-aliasing filter of [`decimate_with`] (SciPy's `ftype`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DecimateFilter {
    /// The Chebyshev type I low-pass [`cheby1`](super::cheby1)`(n, 0.05, 0.8 / q)` (default
    /// order 8) as second-order sections, run by [`sosfiltfilt`] or [`sosfilt`] (SciPy's
    /// default).
    #[default]
    Iir,
    /// The Hamming-window FIR [`firwin`]`(n + 1, 1 / q)` (default order `20 q`), run by
    /// [`resample_poly_with`] or [`upfirdn`].
    Fir,
}

/// Options of [`decimate_with`]: the filter (default [`DecimateFilter::Iir`]) and its order
/// `n` (default 8 for the IIR filter, `20 q` for the FIR), zero phase (default) or not, the
/// last axis.
///
/// ```
/// use cuprite_array::signal::{DecimateFilter, DecimateOpts};
/// let o = DecimateOpts::new().ftype(DecimateFilter::Fir).n(40).zero_phase(false).axis(0);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct DecimateOpts {
    ftype: DecimateFilter,
    n: Option<usize>,
    zero_phase: bool,
    axis: isize,
}

impl Default for DecimateOpts {
    fn default() -> Self {
        DecimateOpts {
            ftype: DecimateFilter::Iir,
            n: None,
            zero_phase: true,
            axis: -1,
        }
    }
}

impl DecimateOpts {
    /// SciPy's defaults: the order-8 Chebyshev I filter, zero phase, the last axis.
    pub fn new() -> Self {
        Self::default()
    }
    /// The anti-aliasing filter.
    pub fn ftype(mut self, ftype: DecimateFilter) -> Self {
        self.ftype = ftype;
        self
    }
    /// The filter's order (for the FIR filter its taps less one).
    pub fn n(mut self, n: impl Into<Option<usize>>) -> Self {
        self.n = n.into();
        self
    }
    /// Whether the filter's delay is compensated.
    pub fn zero_phase(mut self, z: bool) -> Self {
        self.zero_phase = z;
        self
    }
    /// The axis decimated.
    pub fn axis(mut self, axis: isize) -> Self {
        self.axis = axis;
        self
    }
}

/// `x` low-pass filtered and downsampled by `q` along the last axis (SciPy's `decimate` with
/// its defaults: the order-8 Chebyshev I filter, zero phase; see [`decimate_with`]).
///
/// # Errors
/// As [`decimate_with`].
///
/// ```
/// use cuprite_array::{Array, signal::decimate};
/// let x = Array::from_slice(&[1.0f32; 100], &[100])?;
/// assert_eq!(decimate(&x, 4)?.shape(), &[25]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn decimate<T: Float>(x: &Array<T>, q: usize) -> Result<Array<T>> {
    decimate_with(x, q, &DecimateOpts::new())
}

/// [`decimate`] with options. [`DecimateFilter::Iir`] (SciPy's default `ftype='iir'`): the
/// sections of [`cheby1_sos`]`(n, 0.05, 0.8 / q)` (`n` default 8) run by [`sosfiltfilt`] with
/// zero phase, else by [`sosfilt`], then every `q`-th value from the first.
/// [`DecimateFilter::Fir`]: the filter [`firwin`]`(n + 1, 1 / q, Hamming)` (`n` default `20
/// q`); with zero phase [`resample_poly_with`]`(x, 1, q)` with that filter, otherwise
/// [`upfirdn`] with it and the first `ceil(len / q)` values; `q = 1` returns `x` unfiltered.
/// The coefficients are rounded to the data's working precision, as SciPy rounds them to its
/// dtype.
///
/// # Errors
/// `q` 0, `n` 0, for the FIR filter `n` of 2^24 or more (so `q` of 838861 or more by
/// default), an axis out of range or an empty axis, and with zero phase and the IIR filter a
/// signal not longer than [`sosfiltfilt`]'s `padlen` (27 for order 8), named.
///
/// ```
/// use cuprite_array::{Array, signal::{DecimateFilter, DecimateOpts, decimate_with}};
/// // A slow sinusoid keeps its values at the kept samples (away from the ends): within the
/// // Chebyshev filter's 0.05 dB ripple (twice, forward and back), and closely by the FIR.
/// let x: Vec<f64> = (0..400).map(|i| (i as f64 * 0.02).sin()).collect();
/// let xa = Array::from_slice(&x, &[400])?;
/// let y = decimate_with(&xa, 4, &DecimateOpts::new())?.to_vec()?;
/// assert_eq!(y.len(), 100);
/// assert!((30..70).all(|i| (y[i] - x[4 * i]).abs() < 1.2e-2));
/// let fir = DecimateOpts::new().ftype(DecimateFilter::Fir);
/// let y = decimate_with(&xa, 4, &fir)?.to_vec()?;
/// assert!((30..70).all(|i| (y[i] - x[4 * i]).abs() < 1e-3));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn decimate_with<T: Float>(x: &Array<T>, q: usize, opts: &DecimateOpts) -> Result<Array<T>> {
    if q == 0 {
        return Err(Error::InvalidArgument(
            "decimate: the factor q must be at least 1, not 0".into(),
        ));
    }
    let fir = opts.ftype == DecimateFilter::Fir;
    let n = match opts.n {
        Some(n) => n,
        None if fir => q.saturating_mul(20),
        None => 8,
    };
    if n == 0 || (fir && n >= FIRWIN_MAX_TAPS) {
        return Err(Error::InvalidArgument(format!(
            "decimate: the filter order n {n} (q {q}) must be positive, and below 2^24 for \
             the FIR filter"
        )));
    }
    let ax = norm_axis("decimate", opts.axis, x.ndim())?;
    let len = x.shape()[ax];
    if !fir {
        let sos = cheby1_sos(n, 0.05, 0.8 / q as f64, BandType::Lowpass)?;
        let y = if opts.zero_phase {
            sosfiltfilt(&sos, x, ax as isize, None)?
        } else {
            sosfilt(&sos, x, ax as isize, None)?.0
        };
        return slice_axis(&y, ax, 0, len, q);
    }
    if q == 1 {
        return Ok(x.clone());
    }
    let b = firwin(n + 1, 1.0 / q as f64, Window::Hamming)?;
    if opts.zero_phase {
        let o = ResamplePolyOpts::new().axis(ax as isize).window(b);
        resample_poly_with(x, 1, q, &o)
    } else {
        let y = upfirdn(&b, x, 1, q, ax as isize)?;
        slice_axis(&y, ax, 0, len.div_ceil(q), 1)
    }
}
