//! One-dimensional signal routines: `interp` (one library call: a kernel that searches each
//! query, and its CPU twin), and NumPy's 1-D `convolve` and `correlate` (a fused gather and
//! reduction for short kernels, FFTs for long ones).

mod interp;

use crate::array::{Array, cast_owned};
use crate::dtype::{DType, Element, Float, Numeric, c32, c64};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::TakeOpts;
use crate::ops::UnaryOp;
use crate::ops::elementwise::unary_node;
use crate::ops::fft::FftNorm;
use crate::ops::fft::FftOpts;
use crate::ops::index::IndexMode;
use crate::shape::SliceArg;
use std::sync::Arc;

/// The value types [`interp`] interpolates: `f32` and `f64`, and their complex types.
pub trait InterpValue: Element {
    /// The type of the sample points and queries (`f32` or `f64`).
    type Real: Float;
}
impl InterpValue for f32 {
    type Real = f32;
}
impl InterpValue for f64 {
    type Real = f64;
}
impl InterpValue for c32 {
    type Real = f32;
}
impl InterpValue for c64 {
    type Real = f64;
}

/// The parts of a value as `f64`.
fn parts<V: Element>(v: V) -> (f64, f64) {
    match v.to_scalar() {
        crate::dtype::Scalar::C32(z) => (z.re as f64, z.im as f64),
        crate::dtype::Scalar::C64(z) => (z.re, z.im),
        s => (s.to_f64_lossy(), 0.0),
    }
}

/// The piecewise-linear interpolant through `(xp, fp)` at `x` (NumPy's `interp`): `xp`
/// increasing and 1-D, `fp` as long (real or complex), `x` of any shape. Outside
/// `[xp[0], xp[-1]]` the result is `left` (default `fp[0]`) or `right` (default `fp[-1]`); a NaN
/// query gives NaN. With `period`, the points are taken modulo `period` (then sorted, and
/// `left`/`right` ignored), as NumPy does. One kernel: each query a binary search (the top of
/// the search from shared memory), reads and writes coalesced. Computed in the precision of
/// the inputs (NumPy computes in `f64`).
///
/// ```
/// use cuprite_array::{Array, ops::interp};
/// let xp = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let fp = Array::from_slice(&[3.0f64, 2.0, 0.0], &[3])?;
/// let x = Array::from_slice(&[0.0f64, 1.0, 1.5, 2.72, 3.14], &[5])?;
/// let y = interp(&x, &xp, &fp, None, None, None)?.to_vec()?;
/// assert_eq!(y[..3], [3.0, 3.0, 2.5]);
/// assert!((y[3] - 0.56).abs() < 1e-12 && y[4] == 0.0);
/// assert_eq!(interp(&x, &xp, &fp, None, Some(-99.0), None)?.to_vec()?[4], -99.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn interp<V: InterpValue>(
    x: &Array<V::Real>,
    xp: &Array<V::Real>,
    fp: &Array<V>,
    left: Option<V>,
    right: Option<V>,
    period: Option<f64>,
) -> Result<Array<V>> {
    crate::array::check_devices(&[&x.node, &xp.node, &fp.node])?;
    if xp.ndim() != 1 || fp.ndim() != 1 || xp.len() != fp.len() {
        return Err(Error::Shape(format!(
            "interp needs 1-D sample points and values of one length (xp {:?}, fp {:?})",
            xp.shape(),
            fp.shape()
        )));
    }
    if xp.is_empty() {
        return Err(Error::InvalidArgument(
            "interp: the array of sample points is empty".into(),
        ));
    }
    let (x, xp, fp, left, right) = match period {
        None => (x.clone(), xp.clone(), fp.clone(), left, right),
        Some(p) => {
            let (x, xp, fp) = periodic(x, xp, fp, p)?;
            (x, xp, fp, None, None)
        }
    };
    let n = xp.len();
    let call = Arc::new(interp::Interp {
        real: <V::Real as Element>::DTYPE,
        complex: V::DTYPE.is_complex(),
        nq: x.len(),
        n,
        left: left.map(parts),
        right: right.map(parts),
    });
    Ok(Array::from_node(Node::new(
        Op::Library(call, vec![x.node.clone(), xp.node.clone(), fp.node.clone()]),
        V::DTYPE,
        x.shape().to_vec(),
        x.device(),
    )))
}

/// NumPy's periodic form: queries and points modulo `period`, the points sorted, and one
/// point wrapped around at each end.
type Periodic<V> = (
    Array<<V as InterpValue>::Real>,
    Array<<V as InterpValue>::Real>,
    Array<V>,
);
fn periodic<V: InterpValue>(
    x: &Array<V::Real>,
    xp: &Array<V::Real>,
    fp: &Array<V>,
    period: f64,
) -> Result<Periodic<V>> {
    if period == 0.0 || !period.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "interp needs a finite non-zero period, not {period}"
        )));
    }
    let p = <V::Real as Element>::from_scalar(crate::dtype::Scalar::F64(period.abs()));
    let x = x.rem(p);
    let xp = xp.rem(p);
    let order = xp.argsort(0)?;
    let (xp, fp) = (
        xp.take_with(&order, TakeOpts::new().axis(0))?,
        fp.take_with(&order, TakeOpts::new().axis(0))?,
    );
    let last = |a: &Array<V::Real>| {
        a.slice(&[SliceArg::Range {
            start: Some(-1),
            end: None,
            step: 1,
        }])
    };
    let head = |a: &Array<V::Real>| {
        a.slice(&[SliceArg::Range {
            start: Some(0),
            end: Some(1),
            step: 1,
        }])
    };
    let xp2 = Array::concat(&[&(&last(&xp)? - p), &xp, &(&head(&xp)? + p)], 0)?;
    let fl = fp.slice(&[SliceArg::Range {
        start: Some(-1),
        end: None,
        step: 1,
    }])?;
    let fh = fp.slice(&[SliceArg::Range {
        start: Some(0),
        end: Some(1),
        step: 1,
    }])?;
    let fp2 = Array::concat(&[&fl, &fp, &fh], 0)?;
    Ok((x, xp2, fp2))
}

/// Which part of the full convolution `convolve` and `correlate` return (NumPy's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvMode {
    /// Every point of overlap: `n + m - 1` values.
    Full,
    /// `max(n, m)` values, centred on the full result.
    Same,
    /// Only where the signals overlap completely: `max(n, m) - min(n, m) + 1` values.
    Valid,
}

/// Kernels up to this length are summed directly (a fused gather and reduction); longer ones
/// (of float and complex types) go through FFTs.
const DIRECT_MAX: usize = 64;

impl<T: Numeric> Array<T> {
    /// The discrete linear convolution of two 1-D arrays (NumPy's `convolve`; `mode` as
    /// NumPy's, whose default is [`ConvMode::Full`]). Short kernels are summed directly in one
    /// fused kernel; long ones (floats, complex) are multiplied as FFTs, whose rounding is
    /// that of the transforms. Integers are always summed directly, wrapping as NumPy's do.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ConvMode};
    /// let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    /// let v = Array::from_slice(&[0.0f64, 1.0, 0.5], &[3])?;
    /// assert_eq!(a.convolve(&v, ConvMode::Full)?.to_vec()?, [0.0, 1.0, 2.5, 4.0, 1.5]);
    /// assert_eq!(a.convolve(&v, ConvMode::Same)?.to_vec()?, [1.0, 2.5, 4.0]);
    /// assert_eq!(a.convolve(&v, ConvMode::Valid)?.to_vec()?, [2.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn convolve(&self, v: &Array<T>, mode: ConvMode) -> Result<Array<T>> {
        check_1d("convolve", self, v)?;
        let (a, b) = if v.len() > self.len() {
            (v, self)
        } else {
            (self, v)
        };
        let b = b.flip(&[0])?;
        core(a, &b, mode)
    }

    /// The cross-correlation of two 1-D arrays, `c[k] = sum_n a[n + k] * conj(v[n])` (NumPy's
    /// `correlate`, whose default mode is [`ConvMode::Valid`]; complex `v` conjugated, the
    /// result reversed when `v` is the longer, as NumPy's). Computed as
    /// [`convolve`](Self::convolve) is.
    ///
    /// ```
    /// use cuprite_array::{Array, c64, ops::ConvMode};
    /// let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    /// let v = Array::from_slice(&[0.0f64, 1.0, 0.5], &[3])?;
    /// assert_eq!(a.correlate(&v, ConvMode::Valid)?.to_vec()?, [3.5]);
    /// assert_eq!(a.correlate(&v, ConvMode::Same)?.to_vec()?, [2.0, 3.5, 3.0]);
    /// let z = Array::from_slice(&[c64::new(1.0, 0.0), c64::new(2.0, 0.0), c64::new(3.0, 0.0)], &[3])?;
    /// let w = Array::from_slice(&[c64::new(0.0, 0.0), c64::new(1.0, 0.0), c64::new(0.0, 0.5)], &[3])?;
    /// let c = z.correlate(&w, ConvMode::Same)?.to_vec()?;
    /// assert_eq!(c, [c64::new(1.0, -1.0), c64::new(2.0, -1.5), c64::new(3.0, 0.0)]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn correlate(&self, v: &Array<T>, mode: ConvMode) -> Result<Array<T>> {
        check_1d("correlate", self, v)?;
        let vc = if T::DTYPE.is_complex() {
            Array::from_node(unary_node(&v.node, UnaryOp::Conj))
        } else {
            v.clone()
        };
        if self.len() >= v.len() {
            core(self, &vc, mode)
        } else {
            core(&vc, self, mode)?.flip(&[0])
        }
    }
}

impl Array<bool> {
    /// [`convolve`](Array::convolve) of truth values: whether any product is true (NumPy's
    /// `convolve` of `bool` arrays), summed in `i64`.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ConvMode};
    /// let a = Array::from_slice(&[true, false, false], &[3])?;
    /// let v = Array::from_slice(&[true, true], &[2])?;
    /// assert_eq!(a.convolve(&v, ConvMode::Full)?.to_vec()?, [true, true, false, false]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn convolve(&self, v: &Array<bool>, mode: ConvMode) -> Result<Array<bool>> {
        let c = self.cast::<i64>().convolve(&v.cast::<i64>(), mode)?;
        Ok(c.not_equal(0i64))
    }

    /// [`correlate`](Array::correlate) of truth values (NumPy's `correlate` of `bool`
    /// arrays), summed in `i64`.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ConvMode};
    /// let a = Array::from_slice(&[true, false, false], &[3])?;
    /// let v = Array::from_slice(&[false, true], &[2])?;
    /// assert_eq!(a.correlate(&v, ConvMode::Full)?.to_vec()?, [true, false, false, false]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn correlate(&self, v: &Array<bool>, mode: ConvMode) -> Result<Array<bool>> {
        let c = self.cast::<i64>().correlate(&v.cast::<i64>(), mode)?;
        Ok(c.not_equal(0i64))
    }
}

fn check_1d<T: Element>(what: &str, a: &Array<T>, v: &Array<T>) -> Result<()> {
    crate::array::check_devices(&[&a.node, &v.node])?;
    if a.ndim() != 1 || v.ndim() != 1 {
        return Err(Error::Shape(format!(
            "{what} takes 1-D arrays, not shapes {:?} and {:?}",
            a.shape(),
            v.shape()
        )));
    }
    if a.is_empty() || v.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what} of an empty array (lengths {} and {})",
            a.len(),
            v.len()
        )));
    }
    Ok(())
}

/// `out[k] = sum_j a[k - left + j] * b[j]` (`a` zero outside its range), `n = len(a) >=
/// m = len(b) >= 1`, over the output range of `mode`: NumPy's correlation core.
fn core<T: Numeric>(a: &Array<T>, b: &Array<T>, mode: ConvMode) -> Result<Array<T>> {
    let (n, m) = (a.len(), b.len());
    let (len, left) = match mode {
        ConvMode::Valid => (n - m + 1, 0),
        ConvMode::Same => (n, m / 2),
        ConvMode::Full => (n + m - 1, m - 1),
    };
    let d = T::DTYPE;
    if m <= DIRECT_MAX || !(d.is_float() || d.is_complex()) {
        return direct(a, b, len, left);
    }
    // The full correlation is the convolution with `b` reversed; its window starts at
    // `m - 1 - left`.
    let full = fft_convolve(a, &b.flip(&[0])?)?;
    let start = (m - 1 - left) as isize;
    full.slice(&[SliceArg::Range {
        start: Some(start),
        end: Some(start + len as isize),
        step: 1,
    }])
}

/// The direct sum as one fused gather and row reduction over an `len × m` index grid.
fn direct<T: Numeric>(a: &Array<T>, b: &Array<T>, len: usize, left: usize) -> Result<Array<T>> {
    let (n, m) = (a.len() as i64, b.len());
    crate::shape::checked_numel(&[len, m])?;
    let dev = a.device();
    let (k, j) = crate::device::with_device(dev, || -> Result<_> {
        Ok((
            Array::<i64>::arange_len(len)?.reshape(&[len, 1])?,
            Array::<i64>::arange_len(m)?.reshape(&[1, m])?,
        ))
    })?;
    let idx = &(&k + &j) - left as i64;
    let inside = idx.greater_equal(0i64).and(idx.less(n));
    let g = a.take_with(&idx, TakeOpts::new().axis(0).mode(IndexMode::Clamp))?;
    let g = Array::select(&inside, &g, T::default())?;
    let prod = g.try_mul(&b.reshape(&[1, m])?)?;
    let s = prod.sum_axes(&[1])?;
    Ok(Array::from_node(cast_owned(s.node.clone(), T::DTYPE)))
}

/// The full linear convolution of `a` and `b` by FFTs of a smooth length, computed in `f32`
/// (half types, `f32`, `c32`) or `f64` (`f64`, `c64`).
fn fft_convolve<T: Numeric>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let full = a.len() + b.len() - 1;
    let nf = smooth_len(full);
    let keep = |x: Array<T>| {
        x.slice(&[SliceArg::Range {
            start: Some(0),
            end: Some(full as isize),
            step: 1,
        }])
    };
    let norm = FftNorm::Backward;
    let out = match T::DTYPE {
        DType::F64 => {
            let (fa, fb) = (
                a.cast::<f64>()
                    .rfft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
                b.cast::<f64>()
                    .rfft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
            );
            fa.try_mul(&fb)?
                .irfft_with(FftOpts::new().n(nf).axis(0).norm(norm))?
                .cast::<T>()
        }
        DType::C64 => {
            let (fa, fb) = (
                a.cast::<c64>()
                    .fft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
                b.cast::<c64>()
                    .fft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
            );
            fa.try_mul(&fb)?
                .ifft_with(FftOpts::new().n(nf).axis(0).norm(norm))?
                .cast::<T>()
        }
        DType::C32 => {
            let (fa, fb) = (
                a.cast::<c32>()
                    .fft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
                b.cast::<c32>()
                    .fft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
            );
            fa.try_mul(&fb)?
                .ifft_with(FftOpts::new().n(nf).axis(0).norm(norm))?
                .cast::<T>()
        }
        _ => {
            let (fa, fb) = (
                a.cast::<f32>()
                    .rfft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
                b.cast::<f32>()
                    .rfft_with(FftOpts::new().n(nf).axis(0).norm(norm))?,
            );
            fa.try_mul(&fb)?
                .irfft_with(FftOpts::new().n(nf).axis(0).norm(norm))?
                .cast::<T>()
        }
    };
    keep(out)
}

/// The smallest `2^a 3^b 5^c 7^d` at least `n` (lengths the FFT library does fastest).
fn smooth_len(n: usize) -> usize {
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
