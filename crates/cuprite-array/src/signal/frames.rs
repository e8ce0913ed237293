//! The pieces the spectral routines share: axis checks, slices along one axis, the window
//! argument, boundary extensions and the cutting of a signal into overlapping segments.

use super::spectral::{Detrend, detrend};
use super::windows::{Window, window_values};
use crate::array::Array;
use crate::dtype::{Element, Float, Scalar};
use crate::error::{Error, Result};
use crate::shape::SliceArg;

/// `axis` normalised for `ndim` dimensions; `Err` naming it when out of range.
pub(crate) fn norm_axis(what: &str, axis: isize, ndim: usize) -> Result<usize> {
    let u = if axis < 0 { axis + ndim as isize } else { axis };
    if u < 0 || u as usize >= ndim {
        return Err(Error::InvalidArgument(format!(
            "{what}: axis {axis} is out of range for {ndim} dimensions"
        )));
    }
    Ok(u as usize)
}

/// `v` in the element type `T`.
pub(crate) fn sc<T: Element>(v: f64) -> T {
    T::from_scalar(Scalar::F64(v))
}

/// `x[..., start..end; step]` along `axis` (every other axis whole).
pub(crate) fn slice_axis<T: Element>(
    x: &Array<T>,
    axis: usize,
    start: usize,
    end: usize,
    step: usize,
) -> Result<Array<T>> {
    let mut args: Vec<SliceArg> = vec![(..).into(); x.ndim()];
    args[axis] = SliceArg::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: step as isize,
    };
    x.slice(&args)
}

/// `v` (host values) placed along the last axis of an array of `like`'s dimensions, on
/// `like`'s device, for broadcasting.
pub(crate) fn along_last<T: Element>(like: &Array<impl Element>, v: &[f64]) -> Result<Array<T>> {
    along(like, like.ndim().max(1) - 1, v)
}

/// `v` (host values) placed along `axis` of an array of `like`'s dimensions (ones
/// elsewhere), on `like`'s device, for broadcasting.
pub(crate) fn along<T: Element>(
    like: &Array<impl Element>,
    axis: usize,
    v: &[f64],
) -> Result<Array<T>> {
    let mut shape = vec![1; like.ndim().max(1)];
    shape[axis] = v.len();
    let vals: Vec<T> = v.iter().map(|&x| sc::<T>(x)).collect();
    Array::from_slice_on(like.device(), &vals, &shape)
}

/// The window of the spectral routines: one of [`get_window`](super::get_window)'s windows by
/// name (its periodic form, as SciPy's spectral routines take it), or the values themselves.
#[derive(Clone, Debug, PartialEq)]
pub enum WindowSpec {
    /// A window computed for the segment length (`nperseg`).
    Named(Window),
    /// The window's values; their count is the segment length.
    Values(Vec<f64>),
}

impl From<Window> for WindowSpec {
    fn from(w: Window) -> Self {
        WindowSpec::Named(w)
    }
}

impl From<Vec<f64>> for WindowSpec {
    fn from(v: Vec<f64>) -> Self {
        WindowSpec::Values(v)
    }
}

impl From<&[f64]> for WindowSpec {
    fn from(v: &[f64]) -> Self {
        WindowSpec::Values(v.to_vec())
    }
}

/// The window's values and the segment length (SciPy's `_triage_segments`): a named window
/// takes `nperseg` (default 256), cut to the signal's length `n` where it is longer (SciPy
/// warns and does the same); a window of values sets the length, which `nperseg` must then
/// equal and which may not exceed `n`.
pub(crate) fn triage(
    what: &str,
    window: &WindowSpec,
    nperseg: Option<usize>,
    n: usize,
) -> Result<(Vec<f64>, usize)> {
    let (w, p) = match window {
        WindowSpec::Named(w) => {
            if nperseg == Some(0) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: nperseg must be positive, not 0"
                )));
            }
            let p = nperseg.unwrap_or(256).min(n);
            if p == 0 {
                return Err(Error::InvalidArgument(format!(
                    "{what}: nperseg must be positive, not 0"
                )));
            }
            (window_values(*w, p, true)?, p)
        }
        WindowSpec::Values(v) => {
            if v.is_empty() {
                return Err(Error::InvalidArgument(format!("{what}: an empty window")));
            }
            if let Some(p) = nperseg
                && p != v.len()
            {
                return Err(Error::InvalidArgument(format!(
                    "{what}: nperseg {p} differs from the window's length {}",
                    v.len()
                )));
            }
            if v.len() > n {
                return Err(Error::InvalidArgument(format!(
                    "{what}: the window's length {} exceeds the signal's length {n}",
                    v.len()
                )));
            }
            (v.clone(), v.len())
        }
    };
    if let Some(v) = w.iter().find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the window holds {v}, not a finite value"
        )));
    }
    Ok((w, p))
}

/// How a signal is extended at each end: by [`stft`](super::stft), `nperseg / 2` values
/// before it is cut into segments (SciPy's `boundary`, zeros by default); by
/// [`filtfilt_with`](super::filtfilt_with), `padlen` values before the two passes (SciPy's
/// `padtype`, odd by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Extension {
    /// Zeros (`'zeros'`, [`Extension::default`]).
    #[default]
    Zeros,
    /// The signal mirrored about its end values, which are not repeated (`'even'`).
    Even,
    /// The mirror image negated about the end values (`'odd'`).
    Odd,
    /// The end values repeated (`'constant'`).
    Constant,
}

/// `x` (`[..., n]`) extended by `e` values at each end of its last axis.
pub(crate) fn extend<T: Float>(x: &Array<T>, e: usize, how: Extension) -> Result<Array<T>> {
    if e == 0 {
        return Ok(x.clone());
    }
    let nd = x.ndim();
    let la = nd - 1;
    let n = x.shape()[la];
    if matches!(how, Extension::Even | Extension::Odd) && e >= n {
        return Err(Error::InvalidArgument(format!(
            "the {how:?} extension by {e} values needs a signal longer than {e}, not {n}"
        )));
    }
    let mut widths = vec![(0, 0); nd];
    widths[la] = (e, e);
    if how == Extension::Zeros {
        return x.pad(&widths, sc::<T>(0.0));
    }
    let first = slice_axis(x, la, 0, 1, 1)?;
    let last = slice_axis(x, la, n - 1, n, 1)?;
    let (left, right) = if how == Extension::Constant {
        let mut s = x.shape().to_vec();
        s[la] = e;
        (first.broadcast_to(&s)?, last.broadcast_to(&s)?)
    } else {
        let left = slice_axis(x, la, 1, e + 1, 1)?.flip(&[la as isize])?;
        let right = slice_axis(x, la, n - 1 - e, n - 1, 1)?.flip(&[la as isize])?;
        if how == Extension::Odd {
            let two = sc::<T>(2.0);
            (
                first.try_mul(two)?.try_sub(&left)?,
                last.try_mul(two)?.try_sub(&right)?,
            )
        } else {
            (left, right)
        }
    };
    Array::concat(&[&left, x, &right], la as isize)
}

/// The segments of `x` (`[..., n]`): `[..., nseg, nperseg]` with segment `i` starting at
/// `i * step`, `nseg = (n - nperseg) / step + 1` (`n >= nperseg`), each detrended and
/// multiplied by `win`.
pub(crate) fn segments<T: Float>(
    x: &Array<T>,
    nperseg: usize,
    step: usize,
    detrend_kind: Option<Detrend>,
    win: &[f64],
) -> Result<Array<T>> {
    let nd = x.ndim();
    let v = x.sliding_window_view(&[nperseg], Some(&[-1]))?;
    let n_win = v.shape()[nd - 1];
    let v = slice_axis(&v, nd - 1, 0, n_win, step)?;
    let v = match detrend_kind {
        Some(k) => detrend(&v, -1, k)?,
        None => v,
    };
    v.try_mul(&along_last::<T>(&v, win)?)
}
