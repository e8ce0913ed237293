//! The overlap-add conditions of the short-time Fourier transform (SciPy's `check_COLA` and
//! `check_NOLA`), on the host: the window's values, summed over the segments that overlap one
//! step of the hop, must be constant (COLA: plain overlap-add reconstructs) or nowhere zero
//! (NOLA: [`istft`](super::istft) can divide by the summed squared window).

use super::frames::WindowSpec;
use super::windows::window_values;
use crate::error::{Error, Result};

/// The window's values for `nperseg` and the hop's step, checked.
fn setup(
    what: &str,
    window: &WindowSpec,
    nperseg: usize,
    noverlap: usize,
) -> Result<(Vec<f64>, usize)> {
    if nperseg == 0 || noverlap >= nperseg {
        return Err(Error::InvalidArgument(format!(
            "{what}: nperseg {nperseg} must be positive and noverlap {noverlap} below it"
        )));
    }
    let win = match window {
        WindowSpec::Named(w) => window_values(*w, nperseg, true)?,
        WindowSpec::Values(v) => {
            if v.len() != nperseg {
                return Err(Error::InvalidArgument(format!(
                    "{what}: a window of {} values for nperseg {nperseg}",
                    v.len()
                )));
            }
            if let Some(x) = v.iter().find(|x| !x.is_finite()) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: window value {x} is not finite"
                )));
            }
            v.clone()
        }
    };
    Ok((win, nperseg - noverlap))
}

/// `f(w)` of the window values summed over each position of one hop: entry `i` is the sum of
/// `f(win[i + j step])` over the segments that cover it.
fn bin_sums(win: &[f64], step: usize, f: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut sums = vec![0.0; step];
    for (i, w) in win.iter().enumerate() {
        sums[i % step] += f(*w);
    }
    sums
}

/// Whether overlap-adding `window` at a hop of `nperseg - noverlap` gives a constant within
/// `tol` (SciPy's `check_COLA`): the largest deviation of the per-position sums from their
/// median is below `tol`. A named window is taken in its periodic form, as the spectral
/// routines take it.
///
/// # Errors
/// `nperseg` 0, `noverlap` not below it, a window of values of another length or not finite,
/// or a named window's bad parameter, each named.
///
/// ```
/// use cuprite_array::signal::{Window, check_cola};
/// assert!(check_cola(Window::Hann, 256, 128, 1e-10)?);
/// assert!(!check_cola(Window::Hann, 256, 100, 1e-10)?);
/// assert!(check_cola(vec![1.0; 8], 8, 0, 1e-10)?); // boxcar, no overlap
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn check_cola(
    window: impl Into<WindowSpec>,
    nperseg: usize,
    noverlap: usize,
    tol: f64,
) -> Result<bool> {
    let (win, step) = setup("check_cola", &window.into(), nperseg, noverlap)?;
    let sums = bin_sums(&win, step, |w| w);
    let mut sorted = sums.clone();
    sorted.sort_by(f64::total_cmp);
    let m = sorted.len();
    let median = if m % 2 == 1 {
        sorted[m / 2]
    } else {
        (sorted[m / 2 - 1] + sorted[m / 2]) / 2.0
    };
    let worst = sums.iter().map(|s| (s - median).abs()).fold(0.0, f64::max);
    Ok(worst < tol)
}

/// Whether the squared `window`, overlap-added at a hop of `nperseg - noverlap`, stays above
/// `tol` everywhere (SciPy's `check_NOLA`): the condition under which the inverse STFT
/// exists. A named window is taken in its periodic form.
///
/// # Errors
/// As [`check_cola`].
///
/// ```
/// use cuprite_array::signal::{Window, check_nola};
/// assert!(check_nola(Window::Hann, 256, 128, 1e-10)?);
/// // Without overlap the periodic Hann window's first value, 0, is never covered.
/// assert!(!check_nola(Window::Hann, 256, 0, 1e-10)?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn check_nola(
    window: impl Into<WindowSpec>,
    nperseg: usize,
    noverlap: usize,
    tol: f64,
) -> Result<bool> {
    let (win, step) = setup("check_nola", &window.into(), nperseg, noverlap)?;
    let sums = bin_sums(&win, step, |w| w * w);
    Ok(sums.iter().all(|s| *s > tol))
}
