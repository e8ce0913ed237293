//! The chirp z-transform (SciPy's `czt`, `zoom_fft` and `czt_points`, and its `CZT` and
//! `ZoomFFT` as [`Czt`]) by Bluestein's algorithm, on the current backend.
//!
//! The transform of `n` points `x_j` at the `m` points `z_k = a w^-k` is
//! `X_k = Σ_j x_j a^-j w^(jk)`. With `jk = (j² + k² - (k - j)²) / 2` it becomes
//! `X_k = w^(k²/2) Σ_j (x_j a^-j w^(j²/2)) w^(-(k-j)²/2)`: a product by a chirp, a
//! convolution with the conjugate chirp (done by FFTs of a smooth length of at least
//! `n + m - 1` points, circularly, the chirp's negative lags wrapped to the end), and a
//! product by the chirp again. The chirps are computed on the host in `f64` as
//! `exp((k²/2) ln w)`, so their phases carry a rounding of about `k² |arg w| ε`, as SciPy's do.

use super::frames::norm_axis;
use super::paths::smooth_len;
use crate::array::Array;
use crate::dtype::{Element, Scalar, c64};
use crate::error::{Error, Result};
use crate::ops::fft::{FftElement, FftOpts};
use crate::shape::SliceArg;
use std::f64::consts::PI;

/// The most points a transform takes or gives along its axis (its FFT has fewer than
/// `2 CZT_MAX_POINTS` points).
pub const CZT_MAX_POINTS: usize = 1 << 28;

/// Checks `m`, `w` and `a` of a transform named `what`.
fn check(what: &str, m: usize, w: c64, a: c64) -> Result<()> {
    if m == 0 || m > CZT_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "{what}: m {m} must lie in 1..={CZT_MAX_POINTS}"
        )));
    }
    let finite = |z: c64| z.re.is_finite() && z.im.is_finite();
    if !finite(w) || !finite(a) || w == c64::new(0.0, 0.0) || a == c64::new(0.0, 0.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: w {w} and a {a} must be finite and not 0"
        )));
    }
    Ok(())
}

/// The points at which [`czt`] evaluates the z-transform: `z_k = a w^-k` for `k` in
/// `0..m` (SciPy's `czt_points`).
///
/// # Errors
/// `m` 0 or above [`CZT_MAX_POINTS`], `w` or `a` 0 or not finite, each named.
///
/// ```
/// use cuprite_array::{dtype::c64, signal::czt_points};
/// // The FFT's points: the m-th roots of unity, counter-clockwise from 1.
/// let w = c64::from_polar(1.0, -2.0 * std::f64::consts::PI / 4.0);
/// let z = czt_points(4, w, c64::new(1.0, 0.0))?;
/// assert!((z[1] - c64::new(0.0, 1.0)).norm() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn czt_points(m: usize, w: c64, a: c64) -> Result<Vec<c64>> {
    check("czt_points", m, w, a)?;
    Ok((0..m).map(|k| a * w.powf(-(k as f64))).collect())
}

/// `v` as an array along `axis` of an `ndim`-dimensional array (ones elsewhere), on `like`'s
/// device.
fn along_axis<C: Element>(
    like: &Array<impl Element>,
    ndim: usize,
    axis: usize,
    v: &[c64],
) -> Result<Array<C>> {
    let mut shape = vec![1; ndim];
    shape[axis] = v.len();
    let vals: Vec<C> = v.iter().map(|&z| C::from_scalar(Scalar::C64(z))).collect();
    Array::from_slice_on(like.device(), &vals, &shape)
}

/// A chirp z-transform fixed for `n` input points and `m` output points on the spiral `z_k =
/// a w^-k` (SciPy's `CZT(n, m, w, a)`; [`Czt::zoom`] is its `ZoomFFT`): the chirps and the
/// convolution kernel computed once, then [`Czt::apply`] to as many arrays as wanted, each
/// along one axis of `n` points.
///
/// ```
/// use cuprite_array::{Array, dtype::c64, signal::Czt};
/// let t = Czt::new(4, 4, c64::from_polar(1.0, -std::f64::consts::PI / 2.0), c64::new(1.0, 0.0))?;
/// assert_eq!((t.n(), t.m()), (4, 4));
/// let x = Array::from_slice(&[1.0f64, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0], &[2, 4])?;
/// let y = t.apply(&x, -1)?.to_vec()?;
/// // A unit impulse at 0 transforms to ones; at 1 to the points' inverses, 1, -i, -1, i.
/// assert!(y[..4].iter().all(|v| (v - c64::new(1.0, 0.0)).norm() < 1e-12));
/// assert!((y[5] - c64::new(0.0, -1.0)).norm() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Czt {
    n: usize,
    m: usize,
    w: c64,
    a: c64,
    nfft: usize,
    /// `a^-j w^(j²/2)` for the `n` inputs.
    pre: Vec<c64>,
    /// `w^(k²/2)` for the `m` outputs.
    post: Vec<c64>,
    /// `w^(-l²/2)` at the lags `l` in `-(n - 1)..m`, negative lags wrapped to the end of
    /// `nfft` points.
    kernel: Vec<c64>,
}

impl Czt {
    /// The transform of `n` points to the `m` points `a w^-k`.
    ///
    /// # Errors
    /// `n` or `m` 0 or above [`CZT_MAX_POINTS`], `w` or `a` 0 or not finite, each named.
    #[must_use = "the transform is returned"]
    pub fn new(n: usize, m: usize, w: c64, a: c64) -> Result<Self> {
        Self::new_as("Czt::new", n, m, w, a)
    }

    fn new_as(what: &str, n: usize, m: usize, w: c64, a: c64) -> Result<Self> {
        check(what, m, w, a)?;
        if n == 0 || n > CZT_MAX_POINTS {
            return Err(Error::InvalidArgument(format!(
                "{what}: n {n} input points must lie in 1..={CZT_MAX_POINTS}"
            )));
        }
        let nfft = smooth_len(n + m - 1);
        let lw = w.ln();
        // w^(k²/2) = exp((k²/2) ln w).
        let chirp = |k: usize| ((k as f64) * (k as f64) * 0.5 * lw).exp();
        let la = a.ln();
        let pre = (0..n)
            .map(|j| (-(j as f64) * la).exp() * chirp(j))
            .collect();
        let post = (0..m).map(chirp).collect();
        let mut kernel = vec![c64::new(0.0, 0.0); nfft];
        for (k, v) in kernel.iter_mut().enumerate().take(m) {
            *v = chirp(k).inv();
        }
        for j in 1..n {
            kernel[nfft - j] = chirp(j).inv();
        }
        Ok(Self {
            n,
            m,
            w,
            a,
            nfft,
            pre,
            post,
            kernel,
        })
    }

    /// The DFT of `n` points on `m` frequencies spaced evenly over the band `[f1, f2]` in the
    /// units of `fs` (SciPy's `ZoomFFT(n, [f1, f2], m, fs, endpoint)`): the transform on the
    /// unit circle from `exp(2 pi i f1 / fs)` in steps of `(f2 - f1) / m` (of `(f2 - f1) / (m -
    /// 1)` with `endpoint`, so that `f2` is the last point). SciPy's `fn = f` is `band = [0,
    /// f]`.
    ///
    /// # Errors
    /// `f1`, `f2` or `fs` not finite, `fs` not positive, `endpoint` with `m` 1, and
    /// [`Czt::new`]'s errors, each named. A band with `f2` below `f1` is walked downwards.
    #[must_use = "the transform is returned"]
    pub fn zoom(n: usize, band: [f64; 2], m: usize, fs: f64, endpoint: bool) -> Result<Self> {
        let what = "Czt::zoom";
        let [f1, f2] = band;
        if !(f1.is_finite() && f2.is_finite() && fs.is_finite() && fs > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "{what}: the band [{f1}, {f2}] must be finite, fs {fs} finite and positive"
            )));
        }
        if endpoint && m == 1 {
            return Err(Error::InvalidArgument(format!(
                "{what}: m 1 with endpoint has no step between its ends"
            )));
        }
        let steps = if endpoint { m - 1 } else { m };
        let w = c64::from_polar(1.0, -2.0 * PI * (f2 - f1) / (steps.max(1) as f64 * fs));
        let a = c64::from_polar(1.0, 2.0 * PI * f1 / fs);
        Self::new_as(what, n, m, w, a)
    }

    /// The number of input points.
    #[must_use]
    pub fn n(&self) -> usize {
        self.n
    }

    /// The number of output points.
    #[must_use]
    pub fn m(&self) -> usize {
        self.m
    }

    /// The points `z_k = a w^-k` the transform is evaluated at ([`czt_points`]).
    #[must_use]
    pub fn points(&self) -> Vec<c64> {
        (0..self.m)
            .map(|k| self.a * self.w.powf(-(k as f64)))
            .collect()
    }

    /// The transform of `x` along `axis`, which must have `n` points: complex, with `m` points
    /// along `axis` and the other axes unchanged. Real inputs are promoted to complex as the
    /// FFT promotes them.
    ///
    /// # Errors
    /// An axis out of range, or of another length than `n`, named.
    #[must_use = "the transform is returned"]
    pub fn apply<T: FftElement>(&self, x: &Array<T>, axis: isize) -> Result<Array<T::Complex>> {
        self.apply_as("Czt::apply", x, axis)
    }

    fn apply_as<T: FftElement>(
        &self,
        what: &str,
        x: &Array<T>,
        axis: isize,
    ) -> Result<Array<T::Complex>> {
        let ax = norm_axis(what, axis, x.ndim())?;
        if x.shape()[ax] != self.n {
            return Err(Error::InvalidArgument(format!(
                "{what}: the axis {ax} of shape {:?} has {} points; the transform takes {}",
                x.shape(),
                x.shape()[ax],
                self.n
            )));
        }
        let nd = x.ndim();
        let pre = along_axis::<T::Complex>(x, nd, ax, &self.pre)?;
        let post = along_axis::<T::Complex>(x, nd, ax, &self.post)?;
        let kernel = along_axis::<T::Complex>(x, nd, ax, &self.kernel)?;
        let opts = FftOpts::new().n(self.nfft).axis(ax as isize);
        let u = x.cast::<T::Complex>().try_mul(&pre)?.fft_with(opts)?;
        let y = u
            .try_mul(&kernel.fft_with(opts)?)?
            .ifft_with(opts)?
            .cast::<T::Complex>();
        let mut args: Vec<SliceArg> = vec![(..).into(); nd];
        args[ax] = SliceArg::Range {
            start: Some(0),
            end: Some(self.m as isize),
            step: 1,
        };
        y.slice(&args)?.try_mul(&post)
    }
}

/// The chirp z-transform of `x` along `axis` (SciPy's `czt(x, m, w, a, axis=axis)`): the
/// z-transform `X_k = Σ_j x_j z_k^-j` at the `m` points `z_k = a w^-k` of a spiral
/// ([`czt_points`]). With `w = exp(-2 pi i / m)`, `a = 1` and `m` the axis's length it is the
/// DFT. Real inputs are promoted to complex as the FFT promotes them; the result is complex,
/// with `m` points along `axis` and the other axes unchanged.
///
/// The method and its rounding are in the module's notes: for a spiral of `|w| != 1` the
/// values span `|w|^(±k²/2)`, and large `m` or `n` lose precision as they do in SciPy.
///
/// # Errors
/// An axis out of range or empty, `m` 0 or above [`CZT_MAX_POINTS`], `w` or `a` 0 or not
/// finite, each named.
///
/// ```
/// use cuprite_array::{Array, dtype::c64, signal::czt};
/// // The DFT of [1, 2, 3, 4] through the chirp z-transform.
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
/// let w = c64::from_polar(1.0, -std::f64::consts::PI / 2.0);
/// let y = czt(&x, 4, w, c64::new(1.0, 0.0), -1)?.to_vec()?;
/// let want = [c64::new(10.0, 0.0), c64::new(-2.0, 2.0), c64::new(-2.0, 0.0), c64::new(-2.0, -2.0)];
/// for (g, e) in y.iter().zip(want) {
///     assert!((g - e).norm() < 1e-12);
/// }
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn czt<T: FftElement>(
    x: &Array<T>,
    m: usize,
    w: c64,
    a: c64,
    axis: isize,
) -> Result<Array<T::Complex>> {
    let ax = norm_axis("czt", axis, x.ndim())?;
    let n = x.shape()[ax];
    if n == 0 || n > CZT_MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "czt: the axis {ax} of shape {:?} has {n} points; it must have 1..={CZT_MAX_POINTS}",
            x.shape()
        )));
    }
    Czt::new_as("czt", n, m, w, a)?.apply_as("czt", x, ax as isize)
}

/// The DFT of `x` along `axis` on `m` frequencies spaced evenly over the band
/// `[f1, f2]` (SciPy's `zoom_fft(x, [f1, f2], m, fs=fs, endpoint=endpoint, axis=axis)`): the
/// chirp z-transform on the unit circle from `exp(2 pi i f1 / fs)` in steps of
/// `(f2 - f1) / m` (of `(f2 - f1) / (m - 1)` with `endpoint`, so that `f2` is the last
/// point). Frequencies are in the units of `fs`; SciPy's `fn = f` is `band = [0, f]`.
///
/// # Errors
/// `f1`, `f2` or `fs` not finite, `fs` not positive, `endpoint` with `m` 1, and [`czt`]'s
/// errors, each named. A band with `f2` below `f1` is walked downwards, as SciPy's is.
///
/// ```
/// use cuprite_array::{Array, signal::zoom_fft};
/// // A tone at 0.25 cycles a sample, seen between 0.2 and 0.3.
/// let x: Vec<f64> = (0..64).map(|j| (2.0 * std::f64::consts::PI * 0.25 * j as f64).cos()).collect();
/// let x = Array::from_slice(&x, &[64])?;
/// let y = zoom_fft(&x, [0.2, 0.3], 11, 1.0, true, 0)?.to_vec()?;
/// let peak = (0..11).max_by(|&i, &j| y[i].norm().total_cmp(&y[j].norm())).unwrap();
/// assert_eq!(peak, 5); // 0.25 is the sixth of 0.20, 0.21, ..., 0.30
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn zoom_fft<T: FftElement>(
    x: &Array<T>,
    band: [f64; 2],
    m: usize,
    fs: f64,
    endpoint: bool,
    axis: isize,
) -> Result<Array<T::Complex>> {
    let ax = norm_axis("zoom_fft", axis, x.ndim())?;
    Czt::zoom(x.shape()[ax], band, m, fs, endpoint)?.apply_as("zoom_fft", x, ax as isize)
}
