//! Window functions (SciPy's `get_window`): computed on the host in `f64` (`nx` values) and
//! placed on the current device.

use crate::array::Array;
use crate::dtype::{Float, Scalar, c64};
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
    /// `(1 - |x|) cos(π|x|) + sin(π|x|) / π` for `x` evenly from -1 to 1, zero at both ends
    /// (`bohman`).
    Bohman,
    /// The piecewise cubic de la Vallée Poussin window (`parzen`).
    Parzen,
    /// `sinc(2n / (M-1) - 1)`, the central lobe of the sinc (`lanczos`).
    Lanczos,
    /// The Bartlett-Hann window, `0.62 - 0.48 f + 0.38 cos(2π f)` with `f = |n/(M-1) - 1/2|`
    /// (`barthann`).
    BartHann,
    /// `α - (1 - α) cos(2πn / (M-1))` (`general_hamming`, α).
    GeneralHamming(f64),
    /// `exp(-|n - (M-1)/2|^(2p) / (2σ^(2p)))`, written `exp(-0.5 |(n - (M-1)/2) / σ|^(2p))`
    /// (`general_gaussian`, p, σ).
    GeneralGaussian(f64, f64),
    /// The Dolph-Chebyshev window whose sidelobes lie `at` decibels below the main lobe
    /// (`chebwin`, at).
    Chebwin(f64),
    /// The Kaiser-Bessel-derived window of the MDCT (`kaiser_bessel_derived`, β): the square
    /// roots of the running sums of a Kaiser window of `M/2 + 1` points, mirrored; defined for
    /// an even `M` and symmetric only.
    KaiserBesselDerived(f64),
    /// Taylor's window of `nbar` nearly constant sidelobes next to the main lobe, `sll`
    /// decibels below it, scaled to 1 at the centre when `norm` (`taylor`; SciPy's defaults
    /// are 4, 30 and true).
    Taylor {
        /// The number of nearly constant sidelobes.
        nbar: usize,
        /// The sidelobes' level below the main lobe, in decibels.
        sll: f64,
        /// Whether the window is 1 at its centre (an odd window's middle value).
        norm: bool,
    },
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
            "bohman" | "bman" | "bmn" => Window::Bohman,
            "parzen" | "parz" | "par" => Window::Parzen,
            "lanczos" | "sinc" => Window::Lanczos,
            "barthann" | "brthan" | "bth" => Window::BartHann,
            "taylor" | "taylorwin" => Window::Taylor {
                nbar: 4,
                sll: 30.0,
                norm: true,
            },
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

/// `sin(πx) / (πx)`, 1 at 0 (NumPy's `sinc`).
pub(crate) fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        (PI * x).sin() / (PI * x)
    }
}

/// The values of `f` at `0..m`, made exactly symmetric from its second half (SciPy computes
/// the Lanczos window so).
fn mirrored(m: usize, f: impl Fn(usize) -> f64) -> Vec<f64> {
    let mut v: Vec<f64> = (m / 2..m).map(f).collect();
    let left: Vec<f64> = v.iter().rev().take(m / 2).copied().collect();
    let mut out = left;
    out.append(&mut v);
    out
}

/// The Dolph-Chebyshev window of `m >= 2` points (SciPy's `chebwin`): the Chebyshev
/// polynomial of order `m - 1` sampled at `β cos(πk / m)`, transformed by a DFT (computed on
/// the CPU backend), its first half mirrored, scaled to a peak of 1.
fn chebwin(m: usize, at: f64) -> Result<Vec<f64>> {
    let order = m as f64 - 1.0;
    let beta = ((10f64.powf(at.abs() / 20.0)).acosh() / order).cosh();
    let p: Vec<f64> = (0..m)
        .map(|k| {
            let x = beta * (PI * k as f64 / m as f64).cos();
            if x > 1.0 {
                (order * x.acosh()).cosh()
            } else if x < -1.0 {
                let sign = if m % 2 == 1 { 1.0 } else { -1.0 };
                sign * (order * (-x).acosh()).cosh()
            } else {
                (order * x.acos()).cos()
            }
        })
        .collect();
    let pc: Vec<c64> = (0..m)
        .map(|k| {
            if m % 2 == 1 {
                c64::new(p[k], 0.0)
            } else {
                c64::from_polar(p[k], PI / m as f64 * k as f64)
            }
        })
        .collect();
    let w: Vec<f64> = crate::device::with_device(crate::device::Device::CPU, || {
        Array::from_slice(&pc, &[m])?.fft()?.to_vec()
    })?
    .iter()
    .map(|z| z.re)
    .collect();
    let v: Vec<f64> = if m % 2 == 1 {
        let n = m.div_ceil(2);
        w[1..n].iter().rev().chain(&w[..n]).copied().collect()
    } else {
        let n = m / 2 + 1;
        w[1..n].iter().rev().chain(&w[1..n]).copied().collect()
    };
    let peak = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Ok(v.iter().map(|x| x / peak).collect())
}

/// Taylor's window of `m` points (SciPy's `taylor`).
fn taylor(m: usize, nbar: usize, sll: f64, norm: bool) -> Vec<f64> {
    let b = 10f64.powf(sll / 20.0);
    let a = b.acosh() / PI;
    let nb = nbar as f64;
    let s2 = nb * nb / (a * a + (nb - 0.5) * (nb - 0.5));
    let ma: Vec<f64> = (1..nbar).map(|v| v as f64).collect();
    let fm: Vec<f64> = ma
        .iter()
        .enumerate()
        .map(|(i, &mi)| {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            let m2 = mi * mi;
            let numer: f64 = ma
                .iter()
                .map(|&mj| 1.0 - m2 / s2 / (a * a + (mj - 0.5) * (mj - 0.5)))
                .product();
            let denom: f64 = 2.0
                * ma.iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, &mj)| 1.0 - m2 / (mj * mj))
                    .product::<f64>();
            sign * numer / denom
        })
        .collect();
    let mf = m as f64;
    let w_at = |n: f64| -> f64 {
        1.0 + 2.0
            * ma.iter()
                .zip(&fm)
                .map(|(&mi, &f)| f * (2.0 * PI * mi * (n - mf / 2.0 + 0.5) / mf).cos())
                .sum::<f64>()
    };
    let scale = if norm {
        1.0 / w_at((mf - 1.0) / 2.0)
    } else {
        1.0
    };
    (0..m).map(|n| w_at(n as f64) * scale).collect()
}

/// The symmetric window of `m >= 2` points.
fn symmetric(w: Window, m: usize) -> Result<Vec<f64>> {
    let mf = m as f64;
    let half = (mf - 1.0) / 2.0;
    Ok(match w {
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
        Window::Tukey(alpha) if alpha <= 0.0 => vec![1.0; m],
        Window::Tukey(alpha) if alpha >= 1.0 => cosine_sum(m, &[0.5, 0.5]),
        Window::Tukey(alpha) => {
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
        Window::Bohman => (0..m)
            .map(|n| {
                if n == 0 || n == m - 1 {
                    return 0.0;
                }
                let x = (2.0 * n as f64 / (mf - 1.0) - 1.0).abs();
                (1.0 - x) * (PI * x).cos() + (PI * x).sin() / PI
            })
            .collect(),
        Window::Parzen => (0..m)
            .map(|n| {
                let a = (n as f64 - half).abs();
                let r = a / (mf / 2.0);
                if a <= half / 2.0 {
                    1.0 - 6.0 * r * r + 6.0 * r * r * r
                } else {
                    2.0 * (1.0 - r).powi(3)
                }
            })
            .collect(),
        Window::Lanczos => mirrored(m, |n| sinc(2.0 * n as f64 / (mf - 1.0) - 1.0)),
        Window::BartHann => (0..m)
            .map(|n| {
                let f = (n as f64 / (mf - 1.0) - 0.5).abs();
                0.62 - 0.48 * f + 0.38 * (2.0 * PI * f).cos()
            })
            .collect(),
        Window::GeneralHamming(alpha) => cosine_sum(m, &[alpha, 1.0 - alpha]),
        Window::GeneralGaussian(p, sig) => (0..m)
            .map(|n| (-0.5 * ((n as f64 - half) / sig).abs().powf(2.0 * p)).exp())
            .collect(),
        Window::Chebwin(at) => chebwin(m, at)?,
        Window::KaiserBesselDerived(beta) => {
            let k = symmetric(Window::Kaiser(beta), m / 2 + 1)?;
            let mut run = 0.0;
            let sums: Vec<f64> = k
                .iter()
                .map(|v| {
                    run += v;
                    run
                })
                .collect();
            let total = sums[m / 2];
            let half: Vec<f64> = sums[..m / 2].iter().map(|c| (c / total).sqrt()).collect();
            half.iter().chain(half.iter().rev()).copied().collect()
        }
        Window::Taylor { nbar, sll, norm } => taylor(m, nbar, sll, norm),
    })
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
        Window::GeneralHamming(a) if !a.is_finite() => {
            return bad("the general Hamming α must be finite, not", a);
        }
        Window::GeneralGaussian(p, _) if !(p > 0.0 && p.is_finite()) => {
            return bad("the general Gaussian p must be positive and finite, not", p);
        }
        Window::GeneralGaussian(_, s) if !(s > 0.0 && s.is_finite()) => {
            return bad("the general Gaussian σ must be positive and finite, not", s);
        }
        Window::Chebwin(at) if !at.is_finite() => {
            return bad("the Chebyshev attenuation must be finite, not", at);
        }
        Window::Taylor { sll, .. } if !(sll > 0.0 && sll.is_finite()) => {
            return bad(
                "the Taylor sidelobe level must be positive and finite, not",
                sll,
            );
        }
        Window::Taylor { nbar: 0, .. } => {
            return Err(Error::InvalidArgument(format!(
                "get_window: the Taylor nbar must be positive, not 0 (of {window:?})"
            )));
        }
        _ => {}
    }
    if let Window::KaiserBesselDerived(beta) = window {
        if !beta.is_finite() {
            return bad("the Kaiser β must be finite, not", beta);
        }
        if fftbins || nx % 2 == 1 {
            return Err(Error::InvalidArgument(format!(
                "get_window: the Kaiser-Bessel-derived window is defined for an even number of \
                 points and symmetric only, not {nx} points with fftbins {fftbins}"
            )));
        }
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
    let mut v = symmetric(window, m)?;
    v.truncate(nx);
    Ok(v)
}

/// The window `window` of `nx` points on the current device (SciPy's `get_window`): periodic
/// when `fftbins` (SciPy's default), symmetric otherwise.
///
/// # Errors
/// A parameter out of its domain (a non-finite Kaiser β, general Hamming α or Chebyshev
/// attenuation; a Gaussian σ, exponential τ, general Gaussian p or σ, or Taylor sidelobe level
/// not positive; a Taylor `nbar` of 0), a Kaiser-Bessel-derived window of an odd length or
/// periodic, or more points than the host's memory holds, named.
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

/// SciPy's `windows.general_cosine`: `Σ_k a[k] cos(k x)` for `x` evenly from -π to π over the
/// window (`Σ_k (-1)^k a[k] cos(2πkn / (M - 1))`), of `m` points; symmetric when `sym`,
/// otherwise periodic (computed for `m + 1` points, the last dropped). Fewer than 2 points
/// give ones, as in SciPy.
///
/// # Errors
/// No coefficient, a non-finite coefficient, or more points than the host's memory holds,
/// named.
///
/// ```
/// use cuprite_array::signal::{Window, general_cosine, get_window};
/// // Hann's window is the sum 0.5 + 0.5 cos(x).
/// let g = general_cosine::<f64>(9, &[0.5, 0.5], true)?.to_vec()?;
/// let h = get_window::<f64>(Window::Hann, 9, false)?.to_vec()?;
/// assert!(g.iter().zip(&h).all(|(a, b)| (a - b).abs() < 1e-15));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn general_cosine<T: Float>(m: usize, a: &[f64], sym: bool) -> Result<Array<T>> {
    if a.is_empty() {
        return Err(Error::InvalidArgument(
            "general_cosine: no coefficient".into(),
        ));
    }
    if let Some(v) = a.iter().find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "general_cosine: the coefficients hold {v}, not a finite value"
        )));
    }
    let vals = if m <= 1 {
        vec![1.0; m]
    } else {
        let mm = if sym { Some(m) } else { m.checked_add(1) };
        let mm = mm.ok_or_else(|| {
            Error::InvalidArgument(format!(
                "general_cosine: {m} points do not fit the address space"
            ))
        })?;
        crate::util::host_fits::<f64>(mm, &format!("general_cosine: a window of {m} points"))?;
        let mut v = cosine_sum(mm, a);
        v.truncate(m);
        v
    };
    let v: Vec<T> = vals
        .into_iter()
        .map(|x| T::from_scalar(Scalar::F64(x)))
        .collect();
    Array::from_slice(&v, &[m])
}
