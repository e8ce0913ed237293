//! SciPy's `convolve2d` and `correlate2d`: 2-D convolution and correlation whose `full` and
//! `same` outputs see the first input extended beyond its edges by a fill value, periodically,
//! or mirrored. The extension is a pad of `k - 1` values each side along each axis (`k` the
//! kernel's extent there), after which every output is a `valid` window of the padded input,
//! computed by [`convolve`]/[`correlate`] (method chosen by size). A zero fill skips the pad.

use super::conv::{convolve, correlate};
use super::elem::SignalElement;
use super::frames::sc;
use super::paths::ConvMethod;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::ops::{ConvMode, PadMode};
use crate::shape::SliceArg;

/// What [`convolve2d`] and [`correlate2d`] see beyond the first input's edges (SciPy's
/// `boundary` and `fillvalue`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConvBoundary {
    /// The value (SciPy's `fill`; `Fill(0.0)` is the default).
    Fill(f64),
    /// The input repeated periodically (`wrap`).
    Wrap,
    /// The input mirrored, its edge values repeated (`symm`: `b a | a b c | c b`).
    Symm,
}

impl Default for ConvBoundary {
    fn default() -> Self {
        ConvBoundary::Fill(0.0)
    }
}

fn check<T: SignalElement>(what: &str, in1: &Array<T>, in2: &Array<T>) -> Result<()> {
    if in1.ndim() != 2 || in2.ndim() != 2 || in1.is_empty() || in2.is_empty() {
        return Err(Error::Shape(format!(
            "{what} takes two non-empty 2-D arrays, not shapes {:?} and {:?}",
            in1.shape(),
            in2.shape()
        )));
    }
    Ok(())
}

/// `in1` padded by `k - 1` values each side along both axes as `boundary` says.
fn extend<T: SignalElement>(
    in1: &Array<T>,
    k: &[usize],
    boundary: ConvBoundary,
) -> Result<Array<T>> {
    let widths = [(k[0] - 1, k[0] - 1), (k[1] - 1, k[1] - 1)];
    match boundary {
        ConvBoundary::Fill(v) => in1.pad(&widths, sc::<T>(v)),
        ConvBoundary::Wrap => in1.pad_mode(&widths, PadMode::Wrap),
        ConvBoundary::Symm => in1.pad_mode(&widths, PadMode::Symmetric),
    }
}

/// The `m[0] x m[1]` window of `full` starting at `start`.
fn window<T: SignalElement>(full: &Array<T>, start: [usize; 2], m: &[usize]) -> Result<Array<T>> {
    let r = |s: usize, n: usize| SliceArg::Range {
        start: Some(s as isize),
        end: Some((s + n) as isize),
        step: 1,
    };
    full.slice(&[r(start[0], m[0]), r(start[1], m[1])])
}

/// The 2-D convolution of `in1` with `in2` (SciPy's `convolve2d(in1, in2, mode, boundary,
/// fillvalue)`): `full` and `same` outputs read `in1` extended as `boundary` says; `same` is
/// the window of `full` of `in1`'s shape starting at `(k - 1) / 2` (rounded down) along
/// each axis; `valid` never reads the extension and, as SciPy's, swaps the operands when
/// `in2` is the larger along both axes.
///
/// # Errors
/// An operand not 2-D or empty, or `valid` mode with neither operand the larger along both
/// axes, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvBoundary, ConvMode, convolve2d}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let k = Array::from_slice(&[1.0f64, 1.0], &[1, 2])?;
/// // Each value plus its left neighbour; left of column 0 the row wraps around.
/// let y = convolve2d(&a, &k, ConvMode::Same, ConvBoundary::Wrap)?;
/// assert_eq!(y.to_vec()?, [3.0, 3.0, 7.0, 7.0]);
/// let y = convolve2d(&a, &k, ConvMode::Same, ConvBoundary::Fill(10.0))?;
/// assert_eq!(y.to_vec()?, [11.0, 3.0, 13.0, 7.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve2d<T: SignalElement>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
    boundary: ConvBoundary,
) -> Result<Array<T>> {
    check("convolve2d", in1, in2)?;
    if mode == ConvMode::Valid || boundary == ConvBoundary::Fill(0.0) {
        return convolve(in1, in2, mode, ConvMethod::Auto);
    }
    let k = in2.shape();
    let full = convolve(
        &extend(in1, k, boundary)?,
        in2,
        ConvMode::Valid,
        ConvMethod::Auto,
    )?;
    if mode == ConvMode::Full {
        return Ok(full);
    }
    window(&full, [(k[0] - 1) / 2, (k[1] - 1) / 2], in1.shape())
}

/// The 2-D cross-correlation of `in1` with `in2` (SciPy's `correlate2d(in1, in2, mode,
/// boundary, fillvalue)`): `z[i, j] = Σ in1[i + p, j + q] conj(in2[p, q])` over the lags of
/// `mode`, `in1` extended as `boundary` says; `same` is the window of `full` of `in1`'s shape
/// starting at `k / 2` (rounded down) along each axis, as SciPy centres it (which differs
/// from [`correlate`]'s `same` for kernels of even extent).
///
/// # Errors
/// As [`convolve2d`].
///
/// ```
/// use cuprite_array::{Array, signal::{ConvBoundary, ConvMode, correlate2d}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let k = Array::from_slice(&[1.0f64, 1.0], &[2, 1])?;
/// // Each value plus the one below it, the rows mirrored beyond the bottom.
/// let y = correlate2d(&a, &k, ConvMode::Same, ConvBoundary::Symm)?;
/// assert_eq!(y.to_vec()?, [4.0, 6.0, 6.0, 8.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlate2d<T: SignalElement>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
    boundary: ConvBoundary,
) -> Result<Array<T>> {
    check("correlate2d", in1, in2)?;
    if mode == ConvMode::Valid {
        return correlate(in1, in2, mode, ConvMethod::Auto);
    }
    let k = in2.shape();
    let full = if boundary == ConvBoundary::Fill(0.0) {
        correlate(in1, in2, ConvMode::Full, ConvMethod::Auto)?
    } else {
        correlate(
            &extend(in1, k, boundary)?,
            in2,
            ConvMode::Valid,
            ConvMethod::Auto,
        )?
    };
    if mode == ConvMode::Full {
        return Ok(full);
    }
    window(&full, [k[0] / 2, k[1] / 2], in1.shape())
}
