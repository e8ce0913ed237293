//! Window functions (SciPy's `get_window`): computed on the host in `f64` (`nx` values) and
//! placed on the current device.

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::{Error, Result};
use std::f64::consts::PI;

/// A window of [`get_window`], with its parameter where it takes one (SciPy's names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Window {
    /// All ones (`boxcar`, `rectangular`).
    Boxcar,
    /// The triangle that does not reach zero at the ends (`triang`).
    Triang,
    /// `0.5 - 0.5 cos(2πn / (M-1))` (`hann`).
    Hann,
    /// `0.54 - 0.46 cos(2πn / (M-1))` (`hamming`).
    Hamming,
    /// `0.42 - 0.5 cos(2πn/(M-1)) + 0.08 cos(4πn/(M-1))` (`blackman`).
    Blackman,
    /// The triangle that reaches zero at the ends (`bartlett`).
    Bartlett,
    /// The five-term flat-top window (`flattop`).
    Flattop,
    /// The four-term minimum Blackman-Harris window (`blackmanharris`).
    BlackmanHarris,
    /// Nuttall's four-term window (`nuttall`).
    Nuttall,
    /// `sin(π (n + 1/2) / M)` (`cosine`).
    Cosine,
    /// `I0(β sqrt(1 - (2n/(M-1) - 1)²)) / I0(β)` (`kaiser`, β).
    Kaiser(f64),
    /// `exp(-(n - (M-1)/2)² / (2σ²))` (`gaussian`, σ).
    Gaussian(f64),
    /// A cosine taper over the fraction `α` of the window (`tukey`, α).
    Tukey(f64),
    /// `exp(-|n - (M-1)/2| / τ)` (`exponential`, τ, centred).
    Exponential(f64),
}

impl Window {
    /// The window SciPy names `name` among those without a parameter (`"hann"`, `"hanning"`,
    /// `"boxcar"`, ...); `Err` naming an unknown or parametrised name.
    ///
    /// ```
    /// use cuprite_array::signal::Window;
    /// assert_eq!(Window::from_name("hann")?, Window::Hann);
    /// assert!(Window::from_name("kaiser").is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_name(name: &str) -> Result<Window> {
        Ok(match name {
            "boxcar" | "box" | "ones" | "rect" | "rectangular" => Window::Boxcar,
            "triang" | "triangle" | "tri" => Window::Triang,
            "hann" | "hanning" | "han" => Window::Hann,
            "hamming" | "hamm" | "ham" => Window::Hamming,
            "blackman" | "black" | "blk" => Window::Blackman,
            "bartlett" | "bart" | "brt" => Window::Bartlett,
            "flattop" | "flat" | "flt" => Window::Flattop,
            "blackmanharris" | "blackharr" | "bkh" => Window::BlackmanHarris,
            "nuttall" | "nutl" | "nut" => Window::Nuttall,
            "cosine" | "halfcosine" => Window::Cosine,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "get_window: unknown window {name:?} (a window with a parameter, such as \
                     kaiser or gaussian, is given as its Window variant)"
                )));
            }
        })
    }
}

/// `I0(x)`, the modified Bessel function of the first kind of order 0, by its series.
fn bessel_i0(x: f64) -> f64 {
    let q = x * x / 4.0;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..500 {
        term *= q / (k as f64 * k as f64);
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    sum
}

fn cosine_sum(m: usize, a: &[f64]) -> Vec<f64> {
    (0..m)
        .map(|n| {
            let p = 2.0 * PI * n as f64 / (m - 1) as f64;
            a.iter()
                .enumerate()
                .map(|(k, &ak)| if k % 2 == 1 { -ak } else { ak } * (k as f64 * p).cos())
                .sum()
        })
        .collect()
}

/// The symmetric window of `m >= 2` points.
fn symmetric(w: Window, m: usize) -> Vec<f64> {
    let mf = m as f64;
    let half = (mf - 1.0) / 2.0;
    match w {
        Window::Boxcar => vec![1.0; m],
        Window::Triang => {
            let k = m.div_ceil(2);
            let up: Vec<f64> = (1..=k)
                .map(|n| {
                    if m % 2 == 0 {
                        (2.0 * n as f64 - 1.0) / mf
                    } else {
                        2.0 * n as f64 / (mf + 1.0)
                    }
                })
                .collect();
            let mut v = up.clone();
            let skip = m % 2;
            v.extend(up.iter().rev().skip(skip));
            v
        }
        Window::Hann => cosine_sum(m, &[0.5, 0.5]),
        Window::Hamming => cosine_sum(m, &[0.54, 0.46]),
        Window::Blackman => cosine_sum(m, &[0.42, 0.5, 0.08]),
        Window::Flattop => cosine_sum(
            m,
            &[
                0.21557895,
                0.41663158,
                0.277263158,
                0.083578947,
                0.006947368,
            ],
        ),
        Window::BlackmanHarris => cosine_sum(m, &[0.35875, 0.48829, 0.14128, 0.01168]),
        Window::Nuttall => cosine_sum(m, &[0.3635819, 0.4891775, 0.1365995, 0.0106411]),
        Window::Bartlett => (0..m)
            .map(|n| {
                let t = 2.0 * n as f64 / (mf - 1.0);
                if n as f64 <= half { t } else { 2.0 - t }
            })
            .collect(),
        Window::Cosine => (0..m).map(|n| (PI * (n as f64 + 0.5) / mf).sin()).collect(),
        Window::Kaiser(beta) => (0..m)
            .map(|n| {
                let r = 2.0 * n as f64 / (mf - 1.0) - 1.0;
                bessel_i0(beta * (1.0 - r * r).max(0.0).sqrt()) / bessel_i0(beta)
            })
            .collect(),
        Window::Gaussian(s) => (0..m)
            .map(|n| {
                let d = n as f64 - half;
                (-d * d / (2.0 * s * s)).exp()
            })
            .collect(),
        Window::Exponential(tau) => (0..m)
            .map(|n| (-(n as f64 - half).abs() / tau).exp())
            .collect(),
        Window::Tukey(alpha) => {
            if alpha <= 0.0 {
                return vec![1.0; m];
            }
            if alpha >= 1.0 {
                return cosine_sum(m, &[0.5, 0.5]);
            }
            let width = (alpha * (mf - 1.0) / 2.0).floor() as usize;
            (0..m)
                .map(|n| {
                    let nf = n as f64;
                    if n <= width {
                        0.5 * (1.0 + (PI * (-1.0 + 2.0 * nf / alpha / (mf - 1.0))).cos())
                    } else if n >= m - width - 1 {
                        0.5 * (1.0
                            + (PI * (-2.0 / alpha + 1.0 + 2.0 * nf / alpha / (mf - 1.0))).cos())
                    } else {
                        1.0
                    }
                })
                .collect()
        }
    }
}

/// The values of `window` at `nx` points: symmetric when `fftbins` is false, periodic (the
/// symmetric window of `nx + 1` points without its last, for spectral analysis) when true, as
/// SciPy's `get_window` (whose default is periodic).
pub(crate) fn window_values(window: Window, nx: usize, fftbins: bool) -> Result<Vec<f64>> {
    let bad = |what: &str, v: f64| {
        Err(Error::InvalidArgument(format!(
            "get_window: {what} {v} (of {window:?})"
        )))
    };
    match window {
        Window::Kaiser(b) if !b.is_finite() => return bad("the Kaiser β must be finite, not", b),
        Window::Gaussian(s) if !(s > 0.0 && s.is_finite()) => {
            return bad("the Gaussian σ must be positive and finite, not", s);
        }
        Window::Exponential(t) if !(t > 0.0 && t.is_finite()) => {
            return bad("the exponential τ must be positive and finite, not", t);
        }
        Window::Tukey(a) if a.is_nan() => return bad("the Tukey α must be a number, not", a),
        _ => {}
    }
    if nx <= 1 {
        return Ok(vec![1.0; nx]);
    }
    let m = if fftbins { nx.checked_add(1) } else { Some(nx) };
    let m = m.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "get_window: {nx} points do not fit the address space"
        ))
    })?;
    crate::util::host_fits::<f64>(m, &format!("get_window: a window of {nx} points"))?;
    let mut v = symmetric(window, m);
    v.truncate(nx);
    Ok(v)
}

/// The window `window` of `nx` points on the current device (SciPy's `get_window`): periodic
/// when `fftbins` (SciPy's default), symmetric otherwise.
///
/// # Errors
/// A parameter out of its domain (a non-finite Kaiser β, a Gaussian σ or exponential τ not
/// positive), or more points than the host's memory holds, named.
///
/// ```
/// use cuprite_array::signal::{Window, get_window};
/// let w = get_window::<f64>(Window::Hann, 4, true)?.to_vec()?;
/// assert!(w.iter().zip([0.0, 0.5, 1.0, 0.5]).all(|(g, e)| (g - e).abs() < 1e-15));
/// let w = get_window::<f64>(Window::Triang, 3, false)?.to_vec()?;
/// assert_eq!(w, [0.5, 1.0, 0.5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn get_window<T: Float>(window: Window, nx: usize, fftbins: bool) -> Result<Array<T>> {
    let v: Vec<T> = window_values(window, nx, fftbins)?
        .into_iter()
        .map(|x| T::from_scalar(Scalar::F64(x)))
        .collect();
    Array::from_slice(&v, &[nx])
}
