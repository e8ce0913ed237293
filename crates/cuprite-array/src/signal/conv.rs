//! Convolution and correlation over one to three axes of N-d arrays (SciPy's `convolve`,
//! `correlate`, `fftconvolve`, `oaconvolve`; ArrayFire's `convolve1/2/3`, `convolve2_sep`,
//! `fft_convolve1/2/3`), batched over the other axes, by one of three methods.
//!
//! The methods are described in the [`signal`](crate::signal#methods) module docs.

use super::elem::{SignalElement, bilinear};
use super::geom::{AxisWin, Geom};
use super::paths::{ConvFn, ConvMethod, auto_method};
use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::ops::elementwise::unary_node;
use crate::ops::{ConvMode, UnaryOp};

/// Normalised, distinct axes of an array of `ndim` axes.
fn norm_axes(what: &str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let u = if a < 0 { a + ndim as isize } else { a };
        if u < 0 || u as usize >= ndim || out.contains(&(u as usize)) {
            return Err(Error::InvalidArgument(format!(
                "{what}: axis {a} is out of range or repeated for {ndim} dimensions (axes {axes:?})"
            )));
        }
        out.push(u as usize);
    }
    Ok(out)
}

/// `x` convolved with `h` over `axes` of `x` (`h` has one axis each), output windows
/// `wins`, batched over the other axes of `x`.
fn conv_windows<T: SignalElement>(
    x: &Array<T>,
    h: &Array<T>,
    axes: &[usize],
    wins: &[AxisWin],
    method: ConvMethod,
) -> Result<Array<T>> {
    crate::array::check_devices(&[&x.node, &h.node])?;
    let nd = x.ndim();
    let others: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
    let batch =
        crate::shape::checked_numel(&others.iter().map(|&a| x.shape()[a]).collect::<Vec<_>>())?;
    // Axes where neither operand extends go to the batch.
    let (mut keep_axes, mut keep_wins) = (Vec::new(), Vec::new());
    for (&a, w) in axes.iter().zip(wins) {
        if w.n > 1 || w.m > 1 || w.l != 1 {
            keep_axes.push(a);
            keep_wins.push(*w);
        }
    }
    if keep_wins.len() > 3 {
        return Err(Error::InvalidArgument(format!(
            "convolution over {} axes of length above 1 (at most 3; shapes {:?} and {:?})",
            keep_wins.len(),
            x.shape(),
            h.shape()
        )));
    }
    if keep_wins.is_empty() {
        keep_wins.push(AxisWin::ONE);
    }
    let g = Geom::new(batch, &keep_wins)?;
    let mut perm = others.clone();
    perm.extend(axes);
    let xp = x.permute(&perm)?;
    let f = ConvFn { geom: g, method };
    let y = bilinear(&xp, h, &f)?;
    let mut shape: Vec<usize> = others.iter().map(|&a| x.shape()[a]).collect();
    shape.extend(wins.iter().map(|w| w.l));
    let mut inv = vec![0usize; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    y.reshape(&shape)?.permute(&inv)
}

/// `h` reversed along every axis and conjugated (the correlation's kernel).
pub(crate) fn reverse_conj<T: SignalElement>(h: &Array<T>) -> Result<Array<T>> {
    let axes: Vec<isize> = (0..h.ndim() as isize).collect();
    let r = h.flip(&axes)?;
    Ok(if T::DTYPE.is_complex() {
        Array::from_node(unary_node(&r.node, UnaryOp::Conj))
    } else {
        r
    })
}

/// The convolution of `x` with `h` along `axes` of `x` (`h` has one axis for each, in that
/// order), batched over the other axes: each output axis is `mode`'s window of the full
/// convolution (SciPy's; `same` keeps `x`'s length, starting `(m - 1) / 2` into the full
/// result). At most three of the axes may have a signal or kernel longer than 1.
///
/// # Errors
/// Axes out of range or repeated, `h.ndim() != axes.len()`, an empty operand, a kernel longer
/// than the signal in [`ConvMode::Valid`], or more than three convolved axes, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, convolve_axes}};
/// // Two signals (rows), one kernel along the last axis.
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 0.0, 1.0, 0.0], &[2, 3])?;
/// let h = Array::from_slice(&[1.0f64, 1.0], &[2])?;
/// let y = convolve_axes(&x, &h, &[-1], ConvMode::Full, ConvMethod::Direct)?;
/// assert_eq!(y.to_vec()?, [1.0, 3.0, 5.0, 3.0, 0.0, 1.0, 1.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve_axes<T: SignalElement>(
    x: &Array<T>,
    h: &Array<T>,
    axes: &[isize],
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    let axes = norm_axes("convolve", axes, x.ndim())?;
    if h.ndim() != axes.len() {
        return Err(Error::Shape(format!(
            "convolve over {} axes takes a kernel of {} dimensions, not shape {:?}",
            axes.len(),
            axes.len(),
            h.shape()
        )));
    }
    let wins = axes
        .iter()
        .zip(h.shape())
        .map(|(&a, &m)| AxisWin::of_mode("convolve", x.shape()[a], m, mode))
        .collect::<Result<Vec<_>>>()?;
    conv_windows(x, h, &axes, &wins, method)
}

/// The correlation of `x` with `h` along `axes` (SciPy's `correlate`: `z[k] = sum_j x[k + j -
/// c] conj(h[j])`), the convolution with `h` reversed and conjugated, in `mode`'s window
/// (`same` centred as SciPy's). Batched as [`convolve_axes`].
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, correlate_axes}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let h = Array::from_slice(&[0.0f64, 1.0, 0.5], &[3])?;
/// let y = correlate_axes(&x, &h, &[0], ConvMode::Same, ConvMethod::Auto)?;
/// assert_eq!(y.to_vec()?, [2.0, 3.5, 3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlate_axes<T: SignalElement>(
    x: &Array<T>,
    h: &Array<T>,
    axes: &[isize],
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    convolve_axes(x, &reverse_conj(h)?, axes, mode, method)
}

/// The operands of an every-axis convolution in `valid` mode, swapped when `in2` is at least as
/// large along every axis (SciPy's rule); `Err` when neither is.
fn valid_order<'a, T: Element>(
    what: &str,
    a: &'a Array<T>,
    b: &'a Array<T>,
    mode: ConvMode,
) -> Result<bool> {
    if a.ndim() != b.ndim() {
        return Err(Error::Shape(format!(
            "{what} takes arrays of one dimensionality, not shapes {:?} and {:?}",
            a.shape(),
            b.shape()
        )));
    }
    if mode != ConvMode::Valid {
        return Ok(false);
    }
    let ge = a.shape().iter().zip(b.shape()).all(|(x, y)| x >= y);
    let le = a.shape().iter().zip(b.shape()).all(|(x, y)| x <= y);
    if ge {
        Ok(false)
    } else if le {
        Ok(true)
    } else {
        Err(Error::InvalidArgument(format!(
            "{what} in valid mode needs one input at least as large as the other along every \
             axis (shapes {:?} and {:?})",
            a.shape(),
            b.shape()
        )))
    }
}

/// The N-d convolution of `in1` and `in2` over every axis (SciPy's `signal.convolve`): both of
/// one dimensionality, the output `mode`'s window of the full convolution (in `valid` mode the
/// operands are swapped when `in2` is the larger, as SciPy does). `method` as the [`signal` module
/// docs](crate::signal#methods) say. At most three axes may be longer than 1 in either operand.
///
/// # Errors
/// Different dimensionalities, an empty operand, `valid` mode with neither operand the larger
/// along every axis, or more than three extended axes, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, convolve}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let v = Array::from_slice(&[0.0f64, 1.0, 0.5], &[3])?;
/// assert_eq!(convolve(&a, &v, ConvMode::Full, ConvMethod::Direct)?.to_vec()?, [0.0, 1.0, 2.5, 4.0, 1.5]);
/// let f = convolve(&a, &v, ConvMode::Same, ConvMethod::Fft)?.to_vec()?;
/// assert!(f.iter().zip([1.0, 2.5, 4.0]).all(|(g, w)| (g - w).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve<T: SignalElement>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    let (a, b) = if valid_order("convolve", in1, in2, mode)? {
        (in2, in1)
    } else {
        (in1, in2)
    };
    let axes: Vec<isize> = (0..a.ndim() as isize).collect();
    convolve_axes(a, b, &axes, mode, method)
}

/// The N-d cross-correlation of `in1` and `in2` over every axis (SciPy's `signal.correlate`):
/// `z[k] = sum_j in1[j + k - c] conj(in2[j])`, computed as the convolution with `in2` reversed
/// and conjugated, in `mode`'s window (`same` centred as SciPy's). In `valid` mode with `in2`
/// the larger, the operands are swapped and the result reversed and conjugated, as SciPy.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, correlate}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let v = Array::from_slice(&[0.0f64, 1.0, 0.5], &[3])?;
/// assert_eq!(correlate(&a, &v, ConvMode::Valid, ConvMethod::Auto)?.to_vec()?, [3.5]);
/// assert_eq!(correlate(&a, &v, ConvMode::Full, ConvMethod::Direct)?.to_vec()?, [0.5, 2.0, 3.5, 3.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlate<T: SignalElement>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    let axes: Vec<isize> = (0..in1.ndim() as isize).collect();
    if valid_order("correlate", in1, in2, mode)? {
        let z = correlate_axes(in2, in1, &axes, mode, method)?;
        return reverse_conj(&z);
    }
    correlate_axes(in1, in2, &axes, mode, method)
}

/// [`convolve`] by FFTs (SciPy's `fftconvolve`; ArrayFire's `fft_convolve1/2/3` over every
/// axis).
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMode, fftconvolve}};
/// let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let v = Array::from_slice(&[1.0f64, 1.0], &[2])?;
/// let y = fftconvolve(&a, &v, ConvMode::Full)?.to_vec()?;
/// assert!(y.iter().zip([1.0, 3.0, 5.0, 3.0]).all(|(g, w)| (g - w).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fftconvolve<T: SignalElement>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
) -> Result<Array<T>> {
    convolve(in1, in2, mode, ConvMethod::Fft)
}

/// [`convolve`] by overlap-add (SciPy's `oaconvolve`): along the one axis where the kernel is
/// longer than 1 (FFTs of the whole signal otherwise); suits a long signal with a long kernel.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMode, oaconvolve}};
/// let a = Array::from_slice(&[1.0f64; 1000], &[1000])?;
/// let v = Array::from_slice(&[0.5f64; 20], &[20])?;
/// let y = oaconvolve(&a, &v, ConvMode::Valid)?.to_vec()?;
/// assert_eq!(y.len(), 981);
/// assert!(y.iter().all(|g| (g - 10.0).abs() < 1e-9));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn oaconvolve<T: SignalElement>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: ConvMode,
) -> Result<Array<T>> {
    convolve(in1, in2, mode, ConvMethod::OverlapAdd)
}

/// ArrayFire's `convolve1`: `signal` convolved with the 1-D `filter` along its last axis
/// (ArrayFire's first, fastest-varying dimension), batched over the others.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, convolve1}};
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let f = Array::from_slice(&[1.0f32, -1.0], &[2])?;
/// assert_eq!(convolve1(&x, &f, ConvMode::Full, ConvMethod::Auto)?.to_vec()?, [1.0, 1.0, -2.0, 3.0, 1.0, -4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve1<T: SignalElement>(
    signal: &Array<T>,
    filter: &Array<T>,
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    convolve_axes(signal, filter, &[-1], mode, method)
}

/// ArrayFire's `convolve2`: `signal` convolved with the 2-D `filter` over its last two axes,
/// batched over the others.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, convolve2}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let f = Array::from_slice(&[1.0f64], &[1, 1])?;
/// assert_eq!(convolve2(&x, &f, ConvMode::Same, ConvMethod::Direct)?.to_vec()?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve2<T: SignalElement>(
    signal: &Array<T>,
    filter: &Array<T>,
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    convolve_axes(signal, filter, &[-2, -1], mode, method)
}

/// ArrayFire's `convolve3`: `signal` convolved with the 3-D `filter` over its last three axes,
/// batched over the others.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, convolve3}};
/// let x = Array::from_slice(&[1.0f64; 8], &[2, 2, 2])?;
/// let f = Array::from_slice(&[1.0f64; 8], &[2, 2, 2])?;
/// assert_eq!(convolve3(&x, &f, ConvMode::Valid, ConvMethod::Direct)?.to_vec()?, [8.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve3<T: SignalElement>(
    signal: &Array<T>,
    filter: &Array<T>,
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    convolve_axes(signal, filter, &[-3, -2, -1], mode, method)
}

/// ArrayFire's `convolve2_sep`: the separable 2-D convolution of `signal` over its last two
/// axes with the kernel `col ⊗ row`: `col` along the second-last axis (down each column),
/// `row` along the last, each in `mode`'s window; batched over the other axes.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvMethod, ConvMode, convolve2_sep}};
/// let x = Array::from_slice(&[0.0f64, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], &[3, 3])?;
/// let col = Array::from_slice(&[1.0f64, 2.0, 1.0], &[3])?;
/// let row = Array::from_slice(&[1.0f64, 0.0, -1.0], &[3])?;
/// let y = convolve2_sep(&col, &row, &x, ConvMode::Same, ConvMethod::Auto)?.to_vec()?;
/// assert_eq!(y, [1.0, 0.0, -1.0, 2.0, 0.0, -2.0, 1.0, 0.0, -1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve2_sep<T: SignalElement>(
    col: &Array<T>,
    row: &Array<T>,
    signal: &Array<T>,
    mode: ConvMode,
    method: ConvMethod,
) -> Result<Array<T>> {
    if signal.ndim() < 2 || col.ndim() != 1 || row.ndim() != 1 {
        return Err(Error::Shape(format!(
            "convolve2_sep takes a signal of at least 2 dimensions and 1-D filters, not shapes \
             {:?}, {:?} and {:?}",
            signal.shape(),
            col.shape(),
            row.shape()
        )));
    }
    let r = convolve_axes(signal, row, &[-1], mode, method)?;
    convolve_axes(&r, col, &[-2], mode, method)
}

/// ArrayFire's `fir`: each signal along the last axis of `x` filtered by the finite impulse
/// response `b` (1-D), `y[k] = sum_j b[j] x[k - j]` for `k < n` (the first `n` values of the
/// full convolution: a causal filter from a zero state, SciPy's `lfilter(b, [1], x)`).
///
/// ```
/// use cuprite_array::{Array, signal::fir};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
/// let b = Array::from_slice(&[0.5f64, 0.5], &[2])?;
/// assert_eq!(fir(&b, &x)?.to_vec()?, [0.5, 1.5, 2.5, 3.5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn fir<T: SignalElement>(b: &Array<T>, x: &Array<T>) -> Result<Array<T>> {
    if b.ndim() != 1 || x.ndim() == 0 {
        return Err(Error::Shape(format!(
            "fir takes 1-D taps and a signal of at least one dimension, not shapes {:?} and {:?}",
            b.shape(),
            x.shape()
        )));
    }
    let ax = x.ndim() - 1;
    let n = x.shape()[ax];
    let w = AxisWin::of_mode("fir", n, b.len(), ConvMode::Full)?;
    let w = AxisWin { l: n, ..w };
    conv_windows(x, b, &[ax], &[w], ConvMethod::Auto)
}

/// The lag of each output of a 1-D [`correlate`] of signals of `in1_len` and `in2_len`
/// values in `mode` (SciPy's `correlation_lags`): output `i` is `Σ_n in1[n + lag_i]
/// conj(in2[n])`. `full` gives `-(in2_len - 1)..=in1_len - 1`; `same` the `in1_len` lags
/// centred in those as SciPy centres them; `valid` `0..=in1_len - in2_len` (or
/// `in1_len - in2_len..=0` when `in2` is the longer).
///
/// # Errors
/// A length 0, or lengths whose sum overflows, named.
///
/// ```
/// use cuprite_array::signal::{ConvMode, correlation_lags};
/// assert_eq!(correlation_lags(5, 3, ConvMode::Full)?, [-2, -1, 0, 1, 2, 3, 4]);
/// assert_eq!(correlation_lags(5, 3, ConvMode::Same)?, [-1, 0, 1, 2, 3]);
/// assert_eq!(correlation_lags(3, 5, ConvMode::Valid)?, [-2, -1, 0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn correlation_lags(in1_len: usize, in2_len: usize, mode: ConvMode) -> Result<Vec<i64>> {
    let total = in1_len
        .checked_add(in2_len)
        .filter(|t| *t <= i64::MAX as usize);
    if in1_len == 0 || in2_len == 0 || total.is_none() {
        return Err(Error::InvalidArgument(format!(
            "correlation_lags: lengths {in1_len} and {in2_len} must be positive, with a sum \
             that fits i64"
        )));
    }
    let (n1, n2) = (in1_len as i64, in2_len as i64);
    Ok(match mode {
        ConvMode::Full => (-(n2 - 1)..n1).collect(),
        ConvMode::Same => {
            let first = -(n2 - 1) + (n1 + n2 - 1) / 2 - n1 / 2;
            (first..first + n1).collect()
        }
        ConvMode::Valid => {
            let bound = n1 - n2;
            if bound >= 0 {
                (0..=bound).collect()
            } else {
                (bound..=0).collect()
            }
        }
    })
}

/// The method [`ConvMethod::Auto`] takes for a [`convolve`] or [`correlate`] of operands of
/// shapes `in1` and `in2` in `mode` (SciPy's `choose_conv_method`, from the shapes only): the
/// rule of the [`signal` module docs](crate::signal#methods), on the operands as `valid` mode
/// orders them.
///
/// # Errors
/// Shapes of different lengths or with a zero extent, or `valid` mode with neither operand the
/// larger along every axis, named.
///
/// ```
/// use cuprite_array::signal::{ConvMethod, ConvMode, choose_conv_method};
/// assert_eq!(choose_conv_method(&[1 << 20], &[127], ConvMode::Same)?, ConvMethod::Direct);
/// assert_eq!(choose_conv_method(&[1 << 20], &[4097], ConvMode::Same)?, ConvMethod::OverlapAdd);
/// assert_eq!(choose_conv_method(&[512, 512], &[31, 31], ConvMode::Full)?, ConvMethod::Fft);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn choose_conv_method(in1: &[usize], in2: &[usize], mode: ConvMode) -> Result<ConvMethod> {
    if in1.len() != in2.len() || in1.iter().chain(in2).any(|&v| v == 0) {
        return Err(Error::Shape(format!(
            "choose_conv_method takes shapes of one length without zero extents, not {in1:?} \
             and {in2:?}"
        )));
    }
    let ge = in1.iter().zip(in2).all(|(a, b)| a >= b);
    let le = in1.iter().zip(in2).all(|(a, b)| a <= b);
    let (n, m) = match mode {
        ConvMode::Valid if ge => (in1, in2),
        ConvMode::Valid if le => (in2, in1),
        ConvMode::Valid => {
            return Err(Error::InvalidArgument(format!(
                "choose_conv_method in valid mode needs one shape at least as large as the \
                 other along every axis ({in1:?} and {in2:?})"
            )));
        }
        _ => (in1, in2),
    };
    Ok(auto_method(n, m))
}
