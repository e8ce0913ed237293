//! Savitzky-Golay filters (SciPy's `savgol_coeffs` and `savgol_filter`): each output is the
//! value (or a derivative) at its position of the polynomial fitted by least squares to the
//! window around it.
//!
//! The coefficients are host `f64`: the minimum-norm solution of `A c = y` (`A[k][i] = x_i^k`
//! over the window's positions `x_i` relative to the evaluation point, `y` the derivative's
//! unit vector times `deriv! / delta^deriv`), through a QR factorisation of `Aᵀ` with the
//! positions scaled into `[-1, 1]`. The filter is the array library's `convolve1d` with them
//! (both backends). Its `interp` edges, SciPy's default, replace the first and last
//! `window_length / 2` outputs by the polynomial fitted to the first and last
//! `window_length` samples, evaluated there: each a fixed linear map of those samples (host
//! `f64` from the same factorisation), applied as a matrix product.

use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::image::{Boundary, FilterOpts, ImageElement, convolve1d_with};
use crate::shape::{SliceArg, axis as norm_axis};

/// The most taps a Savitzky-Golay window has.
pub const SAVGOL_MAX_WINDOW: usize = 1 << 16;

/// How [`savgol_filter`] treats the outputs within half a window of the ends.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum SavgolEdges {
    /// The polynomial fitted to the first (last) `window_length` samples, evaluated there
    /// (SciPy's `mode="interp"`, its default).
    #[default]
    Interp,
    /// The window extended past the ends as the boundary says (SciPy's other modes:
    /// `Boundary::Mirror`, `Nearest`, `Wrap`, `Constant(cval)`).
    Extend(Boundary),
}

/// The options of [`savgol_coeffs`] and [`savgol_filter`] (SciPy's keyword arguments, with
/// SciPy's defaults).
///
/// ```
/// use cuprite_array::image::Boundary;
/// use cuprite_array::signal::{SavgolEdges, SavgolOpts};
/// let o = SavgolOpts::new().deriv(1).delta(0.5).axis(0).edges(SavgolEdges::Extend(Boundary::Mirror));
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct SavgolOpts {
    deriv: usize,
    delta: f64,
    axis: isize,
    edges: SavgolEdges,
    pos: Option<f64>,
}

impl Default for SavgolOpts {
    fn default() -> Self {
        SavgolOpts {
            deriv: 0,
            delta: 1.0,
            axis: -1,
            edges: SavgolEdges::Interp,
            pos: None,
        }
    }
}

impl SavgolOpts {
    /// SciPy's defaults: the values themselves (derivative 0), a spacing of 1, the last
    /// axis, `interp` edges, the window's centre.
    pub fn new() -> Self {
        Self::default()
    }
    /// The derivative computed (0: the smoothed values).
    pub fn deriv(self, deriv: usize) -> Self {
        SavgolOpts { deriv, ..self }
    }
    /// The spacing of the samples, which scales a derivative.
    pub fn delta(self, delta: f64) -> Self {
        SavgolOpts { delta, ..self }
    }
    /// The axis filtered ([`savgol_filter`]).
    pub fn axis(self, axis: isize) -> Self {
        SavgolOpts { axis, ..self }
    }
    /// The treatment of the ends ([`savgol_filter`]).
    pub fn edges(self, edges: SavgolEdges) -> Self {
        SavgolOpts { edges, ..self }
    }
    /// The evaluation point within the window, `0 <= pos < window_length` ([`savgol_coeffs`];
    /// default its centre, `window_length / 2`, less a half for an even length).
    pub fn pos(self, pos: f64) -> Self {
        SavgolOpts {
            pos: Some(pos),
            ..self
        }
    }
}

/// The coefficients of a Savitzky-Golay filter (SciPy's `savgol_coeffs(window_length,
/// polyorder, deriv, delta, pos, use="conv")`), in the order a convolution takes them: the
/// first multiplies the last sample of the window. A derivative above `polyorder` gives
/// zeros.
///
/// # Errors
/// `window_length` 0 or above [`SAVGOL_MAX_WINDOW`], `polyorder` not below it, `pos` outside
/// `[0, window_length)`, `delta` zero or not finite. Each named.
///
/// ```
/// use cuprite_array::signal::{SavgolOpts, savgol_coeffs};
/// // SciPy's documented example: savgol_coeffs(5, 2) = [-3, 12, 17, 12, -3] / 35.
/// let c = savgol_coeffs(5, 2, SavgolOpts::new())?;
/// let want = [-3.0, 12.0, 17.0, 12.0, -3.0].map(|v| v / 35.0);
/// assert!(c.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn savgol_coeffs(window_length: usize, polyorder: usize, opts: SavgolOpts) -> Result<Vec<f64>> {
    check("savgol_coeffs", window_length, polyorder, opts.delta)?;
    let half = (window_length / 2) as f64;
    let pos = opts.pos.unwrap_or(if window_length % 2 == 0 {
        half - 0.5
    } else {
        half
    });
    if !(0.0..window_length as f64).contains(&pos) {
        return Err(Error::InvalidArgument(format!(
            "savgol_coeffs: pos {pos} must lie in [0, {window_length}) (the window)"
        )));
    }
    if opts.deriv > polyorder {
        return Ok(vec![0.0; window_length]);
    }
    // Positions relative to `pos`, last first (the convolution's order), scaled into [-1, 1].
    let x: Vec<f64> = (0..window_length).rev().map(|i| i as f64 - pos).collect();
    let s = x.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let u: Vec<f64> = x.iter().map(|v| v / s).collect();
    let qr = Qr::of(&u, polyorder + 1);
    // `A c = y` with `A = D A'` (`D = diag(s^k)`): `A' c = D⁻¹ y`, whose one non-zero entry is
    // `deriv! / (delta s)^deriv`.
    let mut y = vec![0.0; polyorder + 1];
    y[opts.deriv] = factorial(opts.deriv) / (opts.delta * s).powi(opts.deriv as i32);
    Ok(qr.min_norm(&y))
}

/// A Savitzky-Golay filter of `x` along `opts.axis` (SciPy's `savgol_filter(x,
/// window_length, polyorder, deriv, delta, axis, mode)`): [`savgol_coeffs`] applied by
/// [`convolve1d_with`](crate::image::convolve1d_with), with the `interp` edges by default
/// (see [`SavgolEdges`]).
///
/// # Errors
/// Those of [`savgol_coeffs`]; an axis out of range; for `interp` edges, a window longer than
/// the axis. Each named.
///
/// ```
/// use cuprite_array::{Array, signal::{SavgolOpts, savgol_filter}};
/// // A quadratic is its own smoothing, to the ends (interp edges).
/// let x: Vec<f64> = (0..9).map(|i| (i * i) as f64).collect();
/// let y = savgol_filter(&Array::from_slice(&x, &[9])?, 5, 2, SavgolOpts::new())?.to_vec()?;
/// assert!(y.iter().zip(&x).all(|(a, b)| (a - b).abs() < 1e-9));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn savgol_filter<T: ImageElement + Float>(
    x: &Array<T>,
    window_length: usize,
    polyorder: usize,
    opts: SavgolOpts,
) -> Result<Array<T>> {
    let opts = SavgolOpts { pos: None, ..opts };
    let c = savgol_coeffs(window_length, polyorder, opts)?;
    let a = norm_axis(opts.axis, x.ndim())?;
    let boundary = match opts.edges {
        SavgolEdges::Extend(b) => {
            return convolve1d_with(x, &c, FilterOpts::new().axis(a as isize).boundary(b));
        }
        SavgolEdges::Interp => Boundary::Constant(0.0),
    };
    let n = x.shape()[a];
    if window_length > n {
        return Err(Error::InvalidArgument(format!(
            "savgol_filter: window_length {window_length} is longer than axis {a} ({n} \
             samples); interp edges fit the first and last window_length samples"
        )));
    }
    let y = convolve1d_with(x, &c, FilterOpts::new().axis(a as isize).boundary(boundary))?;
    let half = window_length / 2;
    if half == 0 {
        return Ok(y);
    }
    let (first, last) = edge_maps(window_length, polyorder, opts.deriv, opts.delta);
    let dev = x.device();
    let xm = x.moveaxis(a as isize, -1)?;
    let ym = y.moveaxis(a as isize, -1)?;
    let fit = |m: &[f64], from: usize| -> Result<Array<T>> {
        // `m` is `half x window_length` row-major; the product takes its transpose.
        let mt = Array::<f64>::from_slice_on(dev, m, &[half, window_length])?
            .t()
            .cast::<T>();
        last_axis(&xm, from, from + window_length)?.matmul(&mt)
    };
    let head = fit(&first, 0)?;
    let tail = fit(&last, n - window_length)?;
    let mid = last_axis(&ym, half, n - half)?;
    Array::concat(&[&head, &mid, &tail], -1)?.moveaxis(-1, a as isize)
}

/// `x[..., from..to]`.
fn last_axis<T: crate::dtype::Element>(x: &Array<T>, from: usize, to: usize) -> Result<Array<T>> {
    let all = SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    };
    let mut args = vec![all; x.ndim()];
    if let Some(last) = args.last_mut() {
        *last = SliceArg::Range {
            start: Some(from as isize),
            end: Some(to as isize),
            step: 1,
        };
    }
    x.slice(&args)
}

/// The checks shared by both functions, each named.
fn check(what: &str, window_length: usize, polyorder: usize, delta: f64) -> Result<()> {
    if window_length == 0 || window_length > SAVGOL_MAX_WINDOW {
        return Err(Error::InvalidArgument(format!(
            "{what}: window_length {window_length} must be 1 to {SAVGOL_MAX_WINDOW}"
        )));
    }
    if polyorder >= window_length {
        return Err(Error::InvalidArgument(format!(
            "{what}: polyorder {polyorder} must be less than window_length {window_length}"
        )));
    }
    if !(delta.is_finite() && delta != 0.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: delta {delta} must be finite and non-zero"
        )));
    }
    Ok(())
}

/// `k!` as `f64`.
fn factorial(k: usize) -> f64 {
    (1..=k).map(|v| v as f64).product()
}

/// The maps from the first and last `window_length` samples to the `interp` edges' outputs
/// (each `window_length / 2` rows of `window_length`, row-major): the derivative `deriv` of
/// the least-squares polynomial of degree `polyorder` through the window's samples (at
/// positions `0 ..`), at positions `0 .. half` and `window_length - half ..`, over
/// `delta^deriv`.
fn edge_maps(
    window_length: usize,
    polyorder: usize,
    deriv: usize,
    delta: f64,
) -> (Vec<f64>, Vec<f64>) {
    let half = window_length / 2;
    // Positions centred and scaled into [-1, 1].
    let c = (window_length as f64 - 1.0) / 2.0;
    let s = c.max(1.0);
    let u: Vec<f64> = (0..window_length).map(|t| (t as f64 - c) / s).collect();
    let qr = Qr::of(&u, polyorder + 1);
    let scale = 1.0 / (s * delta).powi(deriv as i32);
    let row = |t: usize| -> Vec<f64> {
        // The derivative of each power at `u_t`: k!/(k-d)! u^(k-d).
        let g: Vec<f64> = (0..=polyorder)
            .map(|k| {
                if k < deriv {
                    0.0
                } else {
                    factorial(k) / factorial(k - deriv) * u[t].powi((k - deriv) as i32) * scale
                }
            })
            .collect();
        qr.min_norm(&g)
    };
    let first = (0..half).flat_map(row).collect();
    let last = (window_length - half..window_length)
        .flat_map(row)
        .collect();
    (first, last)
}

/// The thin QR factorisation of the `n x m` matrix `V[i][k] = u_i^k` (`m <= n`), by modified
/// Gram-Schmidt with a second orthogonalisation pass: `Q` (columns orthonormal) and `R` (upper
/// triangular).
struct Qr {
    q: Vec<Vec<f64>>,
    r: Vec<Vec<f64>>,
}

impl Qr {
    fn of(u: &[f64], m: usize) -> Qr {
        let mut q: Vec<Vec<f64>> = Vec::with_capacity(m);
        let mut r = vec![vec![0.0; m]; m];
        for k in 0..m {
            let mut v: Vec<f64> = u.iter().map(|x| x.powi(k as i32)).collect();
            for _ in 0..2 {
                for (j, qj) in q.iter().enumerate() {
                    let d: f64 = qj.iter().zip(&v).map(|(a, b)| a * b).sum();
                    r[j][k] += d;
                    v.iter_mut().zip(qj).for_each(|(a, b)| *a -= d * b);
                }
            }
            let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
            r[k][k] = norm;
            q.push(v.into_iter().map(|a| a / norm).collect());
        }
        Qr { q, r }
    }

    /// `Q R⁻ᵀ y`: the minimum-norm `c` with `Vᵀ c = y`, which is also `V R⁻¹ R⁻ᵀ y`, the
    /// least-squares fit's linear map applied to `y`.
    fn min_norm(&self, y: &[f64]) -> Vec<f64> {
        let m = y.len();
        let mut z = vec![0.0; m];
        for i in 0..m {
            let s: f64 = (0..i).map(|j| self.r[j][i] * z[j]).sum();
            z[i] = (y[i] - s) / self.r[i][i];
        }
        let n = self.q.first().map_or(0, Vec::len);
        (0..n)
            .map(|i| (0..m).map(|k| self.q[k][i] * z[k]).sum())
            .collect()
    }
}
