//! Convolution and correlation over one to three axes of N-d arrays (SciPy's `convolve`,
//! `correlate`, `fftconvolve`, `oaconvolve`; ArrayFire's `convolve1/2/3`, `convolve2_sep`,
//! `fft_convolve1/2/3`), batched over the other axes, by one of three methods.
//!
//! The methods are described in the [`signal`](crate::signal#methods) module docs.

use super::direct::ConvDirect;
use super::elem::{RealFn, SignalElement, bilinear};
use super::geom::{AxisWin, Geom};
use crate::array::Array;
use crate::dtype::{Element, Float};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::elementwise::unary_node;
use crate::ops::fft::{FftElement, FftNorm};
use crate::ops::{ConvMode, UnaryOp};
use crate::shape::SliceArg;
use std::sync::Arc;

/// How a convolution is computed (SciPy's `method`); see the [`signal` module docs](crate::signal#methods).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConvMethod {
    /// Chosen from the sizes: direct for short kernels, else overlap-add or FFT.
    #[default]
    Auto,
    /// The direct sum over every tap.
    Direct,
    /// Through FFTs of the whole signal.
    Fft,
    /// Through FFTs of blocks of the signal, added where they overlap.
    OverlapAdd,
}

/// [`ConvMethod::Auto`] sums kernels of at most this many taps directly.
pub const DIRECT_TAPS: usize = 512;

/// The smallest `2^a 3^b 5^c 7^d` at least `n` (lengths the FFT libraries do fastest).
pub(crate) fn smooth_len(n: usize) -> usize {
    let mut k = n.max(1);
    loop {
        let mut r = k;
        for p in [2, 3, 5, 7] {
            while r % p == 0 {
                r /= p;
            }
        }
        if r == 1 {
            return k;
        }
        k += 1;
    }
}

/// The method `Auto` resolves to for `g` (others are kept, except overlap-add over a kernel
/// along several axes, which is the FFT method).
fn resolve(method: ConvMethod, g: &Geom) -> ConvMethod {
    let long: Vec<usize> = (0..3).filter(|&i| g.ax[i].m > 1).collect();
    let one_axis = long.len() == 1;
    match method {
        ConvMethod::Auto => {
            let taps: usize = g.h_shape().iter().product();
            if taps <= DIRECT_TAPS {
                ConvMethod::Direct
            } else if one_axis && g.ax[long[0]].n >= 8 * g.ax[long[0]].m {
                ConvMethod::OverlapAdd
            } else {
                ConvMethod::Fft
            }
        }
        ConvMethod::OverlapAdd if !one_axis => ConvMethod::Fft,
        m => m,
    }
}

/// A convolution of a batch in the layout of `Geom` (`x` of `x_shape()`, `h` of `h_shape()`).
struct ConvFn {
    geom: Geom,
    method: ConvMethod,
}

impl RealFn for ConvFn {
    fn f32(&self, p: &[Array<f32>]) -> Result<Array<f32>> {
        run(&p[0], &p[1], &self.geom, self.method)
    }
    fn f64(&self, p: &[Array<f64>]) -> Result<Array<f64>> {
        run(&p[0], &p[1], &self.geom, self.method)
    }
}

fn range(start: usize, len: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some((start + len) as isize),
        step: 1,
    }
}

const ALL: SliceArg = SliceArg::Range {
    start: None,
    end: None,
    step: 1,
};

fn run<R: Float + FftElement>(
    x: &Array<R>,
    h: &Array<R>,
    g: &Geom,
    method: ConvMethod,
) -> Result<Array<R>> {
    let x = x.reshape(&g.x_shape())?;
    let h = h.reshape(&g.h_shape())?;
    match resolve(method, g) {
        ConvMethod::Fft => fft_path(&x, &h, g),
        ConvMethod::OverlapAdd => {
            let axis = (0..3).find(|&i| g.ax[i].m > 1);
            match axis {
                Some(a) => oa_path(&x, &h, g, a),
                None => direct(&x, &h, g),
            }
        }
        _ => direct(&x, &h, g),
    }
}

fn direct<R: Float>(x: &Array<R>, h: &Array<R>, g: &Geom) -> Result<Array<R>> {
    let call = Arc::new(ConvDirect {
        dtype: R::DTYPE,
        geom: *g,
    });
    Ok(Array::from_node(Node::new(
        Op::Library(call, vec![x.node.clone(), h.node.clone()]),
        R::DTYPE,
        g.y_shape().to_vec(),
        x.device(),
    )))
}

/// The window `[s, s + l)` of each convolved axis of a full result `[batch, full0, full1,
/// full2]` (or longer).
fn window<R: Element>(full: &Array<R>, g: &Geom) -> Result<Array<R>> {
    let mut args = vec![ALL];
    args.extend(g.ax.iter().map(|a| range(a.s, a.l)));
    full.slice(&args)
}

fn fft_path<R: Float + FftElement>(x: &Array<R>, h: &Array<R>, g: &Geom) -> Result<Array<R>> {
    let axes: Vec<usize> = (0..3).filter(|&i| g.ax[i].full() > 1).collect();
    if axes.is_empty() {
        return direct(x, h, g);
    }
    let s: Vec<usize> = axes.iter().map(|&i| smooth_len(g.ax[i].full())).collect();
    let ax: Vec<isize> = axes.iter().map(|&i| i as isize + 1).collect();
    let norm = FftNorm::Backward;
    let hb = h.reshape(&[1, g.ax[0].m, g.ax[1].m, g.ax[2].m])?;
    let fx = x.rfftn(Some(&s), Some(&ax), norm)?;
    let fh = hb.rfftn(Some(&s), Some(&ax), norm)?;
    let full = fx
        .try_mul(&fh)?
        .irfftn(Some(&s), Some(&ax), norm)?
        .cast::<R>();
    window(&full, g)
}

/// Overlap-add along axis `a` (of the three), the only one where the kernel is longer than 1.
fn oa_path<R: Float + FftElement>(
    x: &Array<R>,
    h: &Array<R>,
    g: &Geom,
    a: usize,
) -> Result<Array<R>> {
    let w = g.ax[a];
    // A power of two (the transforms cuFFT does in the fewest passes), a block at least
    // three times the kernel's length.
    let nfft = (4 * w.m).next_power_of_two().max(64);
    if w.full() <= nfft {
        return fft_path(x, h, g);
    }
    let step = nfft - w.m + 1;
    let blocks = w.n.div_ceil(step);
    // The convolved axis last: [batch, o, o', n], the other two axes of length 1 in h.
    let mut perm = vec![0usize, 1, 2, 3];
    perm.remove(a + 1);
    perm.push(a + 1);
    let xp = x.permute(&perm)?;
    let lead: Vec<usize> = xp.shape()[..3].to_vec();
    let rows: usize = lead.iter().product();
    let xb = xp
        .reshape(&[rows, w.n])?
        .pad(&[(0, 0), (0, blocks * step - w.n)], R::default())?
        .reshape(&[rows, blocks, step])?;
    let norm = FftNorm::Backward;
    let fh = h.reshape(&[w.m])?.rfft(Some(nfft), 0, norm)?;
    let seg = xb
        .rfft(Some(nfft), -1, norm)?
        .try_mul(&fh)?
        .irfft(Some(nfft), -1, norm)?
        .cast::<R>();
    // Block p's first `step` values start at p * step; its last m - 1 spill into block p + 1.
    let head = seg
        .slice(&[ALL, ALL, range(0, step)])?
        .pad(&[(0, 0), (0, 1), (0, 0)], R::default())?;
    let tail = seg
        .slice(&[ALL, ALL, range(step, w.m - 1)])?
        .pad(&[(0, 0), (1, 0), (0, step - (w.m - 1))], R::default())?;
    let full = head
        .try_add(&tail)?
        .reshape(&[rows, (blocks + 1) * step])?
        .slice(&[ALL, range(w.s, w.l)])?;
    let mut shape = lead.clone();
    shape.push(w.l);
    let mut inv = [0usize; 4];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    let y = full.reshape(&shape)?.permute(&inv)?;
    // The other axes' windows (their kernels have one tap).
    let mut args = vec![ALL];
    for (i, ai) in g.ax.iter().enumerate() {
        args.push(if i == a { ALL } else { range(ai.s, ai.l) });
    }
    y.slice(&args)
}

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
fn reverse_conj<T: SignalElement>(h: &Array<T>) -> Result<Array<T>> {
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
