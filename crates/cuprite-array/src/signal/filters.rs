//! Linear filters along one axis: SciPy's `lfilter` (with initial conditions), `lfilter_zi`,
//! `lfiltic`, `filtfilt` (odd extension, forward-backward), `sosfilt` (cascaded second-order
//! sections) and `sosfilt_zi`, and `deconvolve` (the polynomial division that inverts a
//! convolution, on the host). Coefficients are host values (`&[f64]`), rounded to the data's working precision
//! (`f32` for `f16`/`bf16`/`f32`, `f64` for `f64`); the data are real.

use super::frames::{Extension, extend, sc};
use super::gust::gust_matrices;
use super::iir::Lfilter;
use crate::array::Array;
use crate::dtype::{ComplexElement, DType, Element, Float, Numeric, Scalar, c64};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::shape::SliceArg;
use std::sync::Arc;

/// The filter's coefficients checked: non-empty, finite, `a[0] != 0`. Returns the order
/// `max(len(a), len(b)) - 1`.
fn check_coefs(what: &str, b: &[f64], a: &[f64]) -> Result<usize> {
    if b.is_empty() || a.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what} needs non-empty coefficients (len(b) = {}, len(a) = {})",
            b.len(),
            a.len()
        )));
    }
    if a[0] == 0.0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: a[0] is 0 (a = {a:?}); the filter is not normalisable"
        )));
    }
    if let Some(v) = b.iter().chain(a).find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: coefficient {v} is not finite (b = {b:?}, a = {a:?})"
        )));
    }
    Ok(b.len().max(a.len()) - 1)
}

fn norm_axis(what: &str, axis: isize, ndim: usize) -> Result<usize> {
    let u = if axis < 0 { axis + ndim as isize } else { axis };
    if u < 0 || u as usize >= ndim {
        return Err(Error::InvalidArgument(format!(
            "{what}: axis {axis} is out of range for {ndim} dimensions"
        )));
    }
    Ok(u as usize)
}

fn range(start: usize, end: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: 1,
    }
}

/// The filter run on `x` (`[batch, n]`, working dtype `W`) from states `zi` (`[batch, order]`).
fn run<W: Float>(
    b: &[f64],
    a: &[f64],
    x: &Array<W>,
    zi: &Array<W>,
    order: usize,
    want_zf: bool,
) -> Result<(Array<W>, Array<W>)> {
    let (batch, n) = (x.shape()[0], x.shape()[1]);
    let call = Lfilter {
        dtype: W::DTYPE,
        batch,
        n,
        order,
        want_zf,
    };
    let coef: Vec<W> = call
        .coefficients(b, a)
        .into_iter()
        .map(|v| W::from_scalar(crate::dtype::Scalar::F64(v)))
        .collect();
    let len = coef.len();
    let coef = Array::from_slice_on(x.device(), &coef, &[len])?;
    let out_len = call.out_len();
    let out: Array<W> = Array::from_node(Node::new(
        Op::Library(
            Arc::new(call),
            vec![x.node.clone(), coef.node.clone(), zi.node.clone()],
        ),
        W::DTYPE,
        vec![out_len],
        x.device(),
    ));
    let y = out.slice(&[range(0, batch * n)])?.reshape(&[batch, n])?;
    let zf = if want_zf {
        out.slice(&[range(batch * n, out_len)])?
            .reshape(&[batch, order])?
    } else {
        crate::with_device(x.device(), || Array::zeros(&[batch, order]))
    };
    Ok((y, zf))
}

/// The filter in the working precision of `T`.
fn run_t<T: Float>(
    b: &[f64],
    a: &[f64],
    x: &Array<T>,
    zi: &Array<T>,
    order: usize,
    want_zf: bool,
) -> Result<(Array<T>, Array<T>)> {
    if T::DTYPE == DType::F64 {
        let (y, z) = run::<f64>(b, a, &x.cast(), &zi.cast(), order, want_zf)?;
        Ok((y.cast(), z.cast()))
    } else {
        let (y, z) = run::<f32>(b, a, &x.cast(), &zi.cast(), order, want_zf)?;
        Ok((y.cast(), z.cast()))
    }
}

/// Filters `x` along `axis` with the rational transfer function `B(z) / A(z)` (SciPy's
/// `lfilter`, the transposed direct form II): `a[0] y[n] = sum_k b[k] x[n-k] - sum_{k>=1}
/// a[k] y[n-k]`. With `zi` (the initial states: `x`'s shape with `axis` of length `max(len(a),
/// len(b)) - 1`, or 1-D of that length for every signal), also returns the final states
/// `zf` in the same shape, as SciPy.
///
/// On CUDA the recurrence is a blocked parallel scan, not a thread a signal: a thread runs a
/// chunk of 8 samples, a block scans its 256 chunks' affine state maps (their matrix powers
/// composed on the host), and one pass per signal scans the blocks' maps; orders up to 8 (a
/// higher order is an `Err` there: cascade sections with [`sosfilt`]). The CPU runs each
/// signal sequentially.
///
/// # Errors
/// Empty coefficients, `a[0] == 0`, a non-finite coefficient, an empty `x` or axis out of
/// range, a `zi` of the wrong shape, each named.
///
/// ```
/// use cuprite_array::{Array, signal::lfilter};
/// let x = Array::from_slice(&[1.0f64, 0.0, 0.0, 0.0], &[4])?;
/// // y[n] = x[n] + 0.5 y[n-1]: the impulse response 0.5^n.
/// let (y, zf) = lfilter(&[1.0], &[1.0, -0.5], &x, 0, None)?;
/// assert_eq!(y.to_vec()?, [1.0, 0.5, 0.25, 0.125]);
/// assert!(zf.is_none());
/// let zi = Array::from_slice(&[1.0f64], &[1])?;
/// let (y, zf) = lfilter(&[1.0], &[1.0, -0.5], &x, 0, Some(&zi))?;
/// assert_eq!(y.to_vec()?, [2.0, 1.0, 0.5, 0.25]);
/// assert_eq!(zf.unwrap().to_vec()?, [0.125]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lfilter<T: Float>(
    b: &[f64],
    a: &[f64],
    x: &Array<T>,
    axis: isize,
    zi: Option<&Array<T>>,
) -> Result<(Array<T>, Option<Array<T>>)> {
    let order = check_coefs("lfilter", b, a)?;
    let ax = norm_axis("lfilter", axis, x.ndim())?;
    let n = x.shape()[ax];
    if x.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "lfilter of an empty array (shape {:?})",
            x.shape()
        )));
    }
    let mut zshape = x.shape().to_vec();
    zshape[ax] = order;
    if let Some(z) = zi {
        crate::array::check_devices(&[&x.node, &z.node])?;
        let one_d = z.ndim() == 1 && z.len() == order;
        if z.shape() != zshape.as_slice() && !one_d {
            return Err(Error::Shape(format!(
                "lfilter: zi has shape {:?}; the filter of order {order} on x of shape {:?} \
                 along axis {ax} needs {zshape:?} (or {order} values)",
                z.shape(),
                x.shape()
            )));
        }
    }
    if order == 0 {
        let g = T::from_scalar(crate::dtype::Scalar::F64(b[0] / a[0]));
        let y = x.try_mul(g)?;
        return Ok((y, zi.map(|z| z.reshape(&zshape)).transpose()?));
    }
    let xm = x.moveaxis(ax as isize, -1)?;
    let lead: Vec<usize> = xm.shape()[..xm.ndim() - 1].to_vec();
    let batch: usize = lead.iter().product();
    let x2 = xm.reshape(&[batch, n])?;
    let z2 = match zi {
        None => crate::with_device(x.device(), || Array::zeros(&[batch, order])),
        Some(z) if z.shape() == zshape.as_slice() => {
            z.moveaxis(ax as isize, -1)?.reshape(&[batch, order])?
        }
        Some(z) => z.reshape(&[1, order])?.broadcast_to(&[batch, order])?,
    };
    let (y, zf) = run_t(b, a, &x2, &z2, order, zi.is_some())?;
    let back = |v: Array<T>, last: usize| -> Result<Array<T>> {
        let mut s = lead.clone();
        s.push(last);
        v.reshape(&s)?.moveaxis(-1, ax as isize)
    };
    let y = back(y, n)?;
    let zf = if zi.is_some() {
        Some(back(zf, order)?)
    } else {
        None
    };
    Ok((y, zf))
}

/// [`lfilter`] of complex signals, complex coefficients or both (SciPy's `lfilter` with
/// complex values), in the precision of `C`'s parts. Real coefficients (every imaginary part
/// zero) filter the real and imaginary parts apart, and `zi` the same way, so that the final
/// states come back as with [`lfilter`]. Complex coefficients run as the same transfer
/// function over a real denominator, `B(z) Ā(z) / (A(z) Ā(z))` with `Ā` the polynomial of
/// the conjugated coefficients, at twice the order (on CUDA at most 8, so complex
/// denominators of order up to 4); the initial states `Z(z)` enter it as `Z(z) Ā(z)` and the
/// final states come back divided by `Ā(z)`.
///
/// # Errors
/// As [`lfilter`]; complex coefficients whose doubled order is above CUDA's limit there,
/// named.
///
/// ```
/// use cuprite_array::{Array, c64, signal::lfilter_complex};
/// // y[n] = x[n] + (i / 2) y[n - 1]: the impulse response (i / 2)^n.
/// let x = Array::from_slice(&[c64::new(1.0, 0.0), c64::new(0.0, 0.0), c64::new(0.0, 0.0)], &[3])?;
/// let (y, _) = lfilter_complex(&[c64::new(1.0, 0.0)], &[c64::new(1.0, 0.0), c64::new(0.0, -0.5)], &x, 0, None)?;
/// let y = y.to_vec()?;
/// assert!((y[1] - c64::new(0.0, 0.5)).norm() < 1e-15 && (y[2] - c64::new(-0.25, 0.0)).norm() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lfilter_complex<C>(
    b: &[c64],
    a: &[c64],
    x: &Array<C>,
    axis: isize,
    zi: Option<&Array<C>>,
) -> Result<(Array<C>, Option<Array<C>>)>
where
    C: ComplexElement + Numeric,
    C::Real: Float,
{
    if b.is_empty() || a.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "lfilter_complex needs non-empty coefficients (len(b) = {}, len(a) = {})",
            b.len(),
            a.len()
        )));
    }
    if a[0] == c64::new(0.0, 0.0) {
        return Err(Error::InvalidArgument(format!(
            "lfilter_complex: a[0] is 0 (a = {a:?}); the filter is not normalisable"
        )));
    }
    if let Some(v) = b
        .iter()
        .chain(a)
        .find(|v| !(v.re.is_finite() && v.im.is_finite()))
    {
        return Err(Error::InvalidArgument(format!(
            "lfilter_complex: coefficient {v} is not finite (b = {b:?}, a = {a:?})"
        )));
    }
    let i = C::from_scalar(Scalar::C64(c64::new(0.0, 1.0)));
    let join = |re: Array<C::Real>, im: Array<C::Real>| -> Result<Array<C>> {
        re.cast::<C>().try_add(&im.cast::<C>().try_mul(i)?)
    };
    let (xr, xi) = (x.real(), x.imag());
    if b.iter().chain(a).all(|v| v.im == 0.0) {
        let br: Vec<f64> = b.iter().map(|v| v.re).collect();
        let ar: Vec<f64> = a.iter().map(|v| v.re).collect();
        let zr = zi.map(|z| z.real());
        let zm = zi.map(|z| z.imag());
        let (yr, zfr) = lfilter(&br, &ar, &xr, axis, zr.as_ref())?;
        let (yi, zfi) = lfilter(&br, &ar, &xi, axis, zm.as_ref())?;
        let zf = match (zfr, zfi) {
            (Some(r), Some(m)) => Some(join(r, m)?),
            _ => None,
        };
        return Ok((join(yr, yi)?, zf));
    }
    let ac: Vec<c64> = a.iter().map(|v| v.conj()).collect();
    let den: Vec<f64> = poly_mul(a, &ac).iter().map(|v| v.re).collect();
    let num = poly_mul(b, &ac);
    let nr: Vec<f64> = num.iter().map(|v| v.re).collect();
    let ni: Vec<f64> = num.iter().map(|v| v.im).collect();
    let ax = norm_axis("lfilter_complex", axis, x.ndim())?;
    let order = b.len().max(a.len()) - 1;
    let order2 = num.len().max(den.len()) - 1;
    // Ā over its first coefficient: the states of the doubled filter are the original's
    // state polynomial times it (`Y = (B X + Z) / A = (B Ā X + Z Ā) / (A Ā)`, normalised).
    let abar: Vec<c64> = ac.iter().map(|v| v / ac[0]).collect();
    // Both parts as one batch along a new first axis: two filters instead of four.
    let parts = Array::concat(&[&xr.expand_dims(0)?, &xi.expand_dims(0)?], 0)?;
    let along = (ax + 1) as isize;
    let states = match zi {
        None => None,
        Some(z) => {
            let rows = StateRows::new(x, z, ax, order)?;
            let (zr, zm) = rows.times(z, &toeplitz(&abar, order, order2), order2)?;
            let (zr, zm) = (rows.back(zr, order2)?, rows.back(zm, order2)?);
            let za = Array::concat(&[&zr.expand_dims(0)?, &zm.expand_dims(0)?], 0)?;
            let zb = crate::with_device(x.device(), || Array::zeros(za.shape()));
            Some((rows, za, zb))
        }
    };
    let (fr, zfa) = lfilter(&nr, &den, &parts, along, states.as_ref().map(|s| &s.1))?;
    let (fi, zfb) = lfilter(&ni, &den, &parts, along, states.as_ref().map(|s| &s.2))?;
    let pick = |v: &Array<C::Real>, k: usize| -> Result<Array<C::Real>> {
        let mut args: Vec<SliceArg> = vec![
            SliceArg::Range {
                start: None,
                end: None,
                step: 1,
            };
            v.ndim()
        ];
        args[0] = SliceArg::Index(k as isize);
        v.slice(&args)
    };
    // (Nr + i Ni) (xr + i xi) = (Nr xr - Ni xi) + i (Nr xi + Ni xr); the states likewise.
    let yr = pick(&fr, 0)?.try_sub(&pick(&fi, 1)?)?;
    let yi = pick(&fr, 1)?.try_add(&pick(&fi, 0)?)?;
    let zf = match (states, zfa, zfb) {
        (Some((rows, _, _)), Some(za), Some(zb)) => {
            let zr = pick(&za, 0)?.try_sub(&pick(&zb, 1)?)?;
            let zm = pick(&za, 1)?.try_add(&pick(&zb, 0)?)?;
            // The original's final states: the doubled filter's divided by Ā (the first
            // `order` coefficients of the series, a product with its inverse's Toeplitz).
            let z2 = join(zr, zm)?;
            let (fr, fm) = rows.times_first(
                &z2,
                &toeplitz(&series_inverse(&abar, order), order, order),
                order,
            )?;
            Some(join(rows.back(fr, order)?, rows.back(fm, order)?)?)
        }
        _ => None,
    };
    Ok((join(yr, yi)?, zf))
}

/// The `rows × cols` matrix `M[i][k] = p[k - i]` (zero outside `p`): a row of coefficients
/// times it is the product of its polynomial with `p`, cut to `cols` coefficients.
fn toeplitz(p: &[c64], rows: usize, cols: usize) -> Vec<c64> {
    let mut m = vec![c64::new(0.0, 0.0); rows * cols];
    for i in 0..rows {
        for (k, &v) in p.iter().enumerate() {
            if i + k < cols {
                m[i * cols + i + k] = v;
            }
        }
    }
    m
}

/// The first `n` coefficients of the power series of `1 / p` (`p[0]` = 1).
fn series_inverse(p: &[c64], n: usize) -> Vec<c64> {
    let mut s: Vec<c64> = Vec::with_capacity(n);
    for k in 0..n {
        let mut v = if k == 0 {
            c64::new(1.0, 0.0)
        } else {
            c64::new(0.0, 0.0)
        };
        for j in 1..=k.min(p.len() - 1) {
            v -= p[j] * s[k - j];
        }
        s.push(v);
    }
    s
}

/// The real and imaginary parts of a complex array.
type Parts<C> = (
    Array<<C as ComplexElement>::Real>,
    Array<<C as ComplexElement>::Real>,
);

/// The states of [`lfilter_complex`] laid out as rows: `axis` moved last, the other axes of
/// `x` flattened (`[batch, k]`), a 1-D `zi` repeated for every signal.
struct StateRows {
    lead: Vec<usize>,
    batch: usize,
    ax: usize,
}

impl StateRows {
    /// Checks `zi` against `x` (its shape with `axis` of length `order`, or `order` values).
    fn new<C: ComplexElement>(
        x: &Array<C>,
        zi: &Array<C>,
        ax: usize,
        order: usize,
    ) -> Result<Self> {
        crate::array::check_devices(&[&x.node, &zi.node])?;
        let mut zshape = x.shape().to_vec();
        zshape[ax] = order;
        let one_d = zi.ndim() == 1 && zi.len() == order;
        if zi.shape() != zshape.as_slice() && !one_d {
            return Err(Error::Shape(format!(
                "lfilter_complex: zi has shape {:?}; the filter of order {order} on x of shape \
                 {:?} along axis {ax} needs {zshape:?} (or {order} values)",
                zi.shape(),
                x.shape()
            )));
        }
        let mut lead = x.shape().to_vec();
        lead.remove(ax);
        let batch = lead.iter().product();
        Ok(StateRows { lead, batch, ax })
    }

    /// The rows of `z` (`[batch, k]`, complex) times the complex `k × cols` matrix `m`, as
    /// real and imaginary parts.
    fn mul<C: ComplexElement + Numeric>(z: &Array<C>, m: &[c64], cols: usize) -> Result<Parts<C>>
    where
        C::Real: Float,
    {
        let k = z.shape()[1];
        let part = |f: fn(&c64) -> f64| -> Result<Array<C::Real>> {
            let v: Vec<C::Real> = m.iter().map(|c| sc::<C::Real>(f(c))).collect();
            Array::from_slice_on(z.device(), &v, &[k, cols])
        };
        let (mr, mi) = (part(|c| c.re)?, part(|c| c.im)?);
        let (zr, zi) = (z.real(), z.imag());
        let re = zr.matmul(&mr)?.try_sub(&zi.matmul(&mi)?)?;
        let im = zr.matmul(&mi)?.try_add(&zi.matmul(&mr)?)?;
        Ok((re, im))
    }

    /// The initial states `zi` as rows, times `m` (`order × cols`).
    fn times<C: ComplexElement + Numeric>(
        &self,
        zi: &Array<C>,
        m: &[c64],
        cols: usize,
    ) -> Result<Parts<C>>
    where
        C::Real: Float,
    {
        let order = if zi.ndim() == 1 {
            zi.len()
        } else {
            zi.shape()[self.ax]
        };
        let rows = if zi.ndim() == 1 {
            zi.reshape(&[1, order])?
                .broadcast_to(&[self.batch, order])?
        } else {
            zi.moveaxis(self.ax as isize, -1)?
                .reshape(&[self.batch, order])?
        };
        Self::mul(&rows, m, cols)
    }

    /// The first `k` states of `z` (laid out as `x` with its axis of any length) as rows,
    /// times `m` (`k × k`).
    fn times_first<C: ComplexElement + Numeric>(
        &self,
        z: &Array<C>,
        m: &[c64],
        k: usize,
    ) -> Result<Parts<C>>
    where
        C::Real: Float,
    {
        let len = z.shape()[self.ax];
        let rows = z
            .moveaxis(self.ax as isize, -1)?
            .reshape(&[self.batch, len])?;
        let rows = rows.slice(&[
            SliceArg::Range {
                start: None,
                end: None,
                step: 1,
            },
            range(0, k),
        ])?;
        Self::mul(&rows, m, k)
    }

    /// Rows of `k` states back in `x`'s layout (its axis of length `k`).
    fn back<E: Element>(&self, r: Array<E>, k: usize) -> Result<Array<E>> {
        let mut shape = self.lead.clone();
        shape.push(k);
        r.reshape(&shape)?.moveaxis(-1, self.ax as isize)
    }
}

/// The product of two polynomials given by their coefficients.
fn poly_mul(p: &[c64], q: &[c64]) -> Vec<c64> {
    let mut out = vec![c64::new(0.0, 0.0); p.len() + q.len() - 1];
    for (i, &pi) in p.iter().enumerate() {
        for (j, &qj) in q.iter().enumerate() {
            out[i + j] += pi * qj;
        }
    }
    out
}

/// The host solution of `(I - M) z = g` for the steady state of a unit step (SciPy's
/// `lfilter_zi`), by Gaussian elimination with partial pivoting.
fn zi_values(b: &[f64], a: &[f64], order: usize) -> Result<Vec<f64>> {
    let a0 = a[0];
    let at = |i: usize| a.get(i).map_or(0.0, |v| v / a0);
    let bt = |i: usize| b.get(i).map_or(0.0, |v| v / a0);
    let k = order;
    // Row i: z_i - (-a_{i+1} z_0 + z_{i+1}) = b_{i+1} - a_{i+1} b_0.
    let mut m = vec![0.0; k * (k + 1)];
    for i in 0..k {
        m[i * (k + 1) + i] += 1.0;
        m[i * (k + 1)] += at(i + 1);
        if i + 1 < k {
            m[i * (k + 1) + i + 1] -= 1.0;
        }
        m[i * (k + 1) + k] = bt(i + 1) - at(i + 1) * bt(0);
    }
    for c in 0..k {
        let p = (c..k)
            .max_by(|&r, &s| {
                m[r * (k + 1) + c]
                    .abs()
                    .total_cmp(&m[s * (k + 1) + c].abs())
            })
            .unwrap_or(c);
        if m[p * (k + 1) + c] == 0.0 {
            return Err(Error::InvalidArgument(format!(
                "lfilter_zi: the filter (b = {b:?}, a = {a:?}) has a pole at z = 1; its step \
                 response has no steady state"
            )));
        }
        for j in 0..=k {
            m.swap(c * (k + 1) + j, p * (k + 1) + j);
        }
        for r in 0..k {
            if r != c {
                let f = m[r * (k + 1) + c] / m[c * (k + 1) + c];
                for j in c..=k {
                    m[r * (k + 1) + j] -= f * m[c * (k + 1) + j];
                }
            }
        }
    }
    Ok((0..k)
        .map(|i| m[i * (k + 1) + k] / m[i * (k + 1) + i])
        .collect())
}

/// The initial state for [`lfilter`] that is the steady state of its step response (SciPy's
/// `lfilter_zi`): `order` values, on the current device. Leading zeros of `a` are dropped
/// first, as SciPy drops them.
///
/// # Errors
/// Empty coefficients, `a` all zeros, or a coefficient not finite, named.
///
/// ```
/// use cuprite_array::signal::{lfilter_zi, lfilter};
/// use cuprite_array::Array;
/// // A unit step filtered from this state stays at the filter's DC gain.
/// let (b, a) = ([0.5, 0.5], [1.0, -0.2]);
/// let zi = lfilter_zi::<f64>(&b, &a)?;
/// let (y, _) = lfilter(&b, &a, &Array::from_slice(&[1.0f64; 4], &[4])?, 0, Some(&zi))?;
/// assert!(y.to_vec()?.iter().all(|v| (v - 1.25).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lfilter_zi<T: Float>(b: &[f64], a: &[f64]) -> Result<Array<T>> {
    let lead = a
        .iter()
        .take(a.len().saturating_sub(1))
        .take_while(|&&v| v == 0.0);
    let a = &a[lead.count()..];
    let order = check_coefs("lfilter_zi", b, a)?;
    let z: Vec<T> = zi_values(b, a, order)?
        .into_iter()
        .map(|v| T::from_scalar(crate::dtype::Scalar::F64(v)))
        .collect();
    Array::from_slice(&z, &[order])
}

/// How [`filtfilt_with`] and [`sosfiltfilt_with`] extend the signal before filtering
/// (SciPy's `axis`, `padtype` and `padlen`).
///
/// ```
/// use cuprite_array::signal::{Extension, FiltfiltOpts};
/// let o = FiltfiltOpts::new().axis(-1).padtype(Extension::Even).padlen(5);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct FiltfiltOpts {
    axis: isize,
    padtype: Option<Extension>,
    padlen: Option<usize>,
    method: FiltfiltMethod,
}

impl Default for FiltfiltOpts {
    fn default() -> Self {
        FiltfiltOpts {
            axis: -1,
            padtype: Some(Extension::Odd),
            padlen: None,
            method: FiltfiltMethod::Pad,
        }
    }
}

/// How [`filtfilt_with`] handles the signal's ends (SciPy's `method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FiltfiltMethod {
    /// The signal extended as `padtype` and `padlen` say, each pass started from the steady
    /// state of the first value it sees (`'pad'`, the default).
    #[default]
    Pad,
    /// Gustafsson's method (`'gust'`): no extension; the initial states of the forward and
    /// backward passes are chosen by least squares so that filtering forward then backward
    /// matches filtering backward then forward. `irlen`, when given and less than half the
    /// signal, is the length of the impulse response taken into account at each end; by
    /// default the whole signal.
    Gust {
        /// The impulse response's length considered at each end (`None`: the whole signal).
        irlen: Option<usize>,
    },
}

impl FiltfiltOpts {
    /// SciPy's defaults: the last axis, the odd extension, the filter's own pad length.
    pub fn new() -> Self {
        Self::default()
    }

    /// The axis filtered (default -1).
    pub fn axis(mut self, axis: isize) -> Self {
        self.axis = axis;
        self
    }

    /// The extension at each end (default [`Extension::Odd`]; `None` extends nothing and
    /// ignores `padlen`, as SciPy's `padtype=None`).
    pub fn padtype(mut self, how: impl Into<Option<Extension>>) -> Self {
        self.padtype = how.into();
        self
    }

    /// The values added at each end (default: three times the filter's length, as the calls
    /// say).
    pub fn padlen(mut self, n: impl Into<Option<usize>>) -> Self {
        self.padlen = n.into();
        self
    }

    /// How the ends are handled (default [`FiltfiltMethod::Pad`]; [`FiltfiltMethod::Gust`]
    /// ignores `padtype` and `padlen`, and [`sosfiltfilt_with`] takes only the default, as
    /// SciPy's `sosfiltfilt` has no method).
    pub fn method(mut self, m: FiltfiltMethod) -> Self {
        self.method = m;
        self
    }
}

/// A signal laid out for the forward-backward filters: `axis` moved last, the other axes
/// flattened to rows (`[batch, n]`), each row extended by `pad` values at each end.
struct PaddedRows<T: Element> {
    ext: Array<T>,
    pad: usize,
    lead: Vec<usize>,
    n: usize,
    ax: usize,
}

impl<T: Float> PaddedRows<T> {
    /// `x` extended as `o` says (`pad` 0 without an extension; `default_pad` when `o` names
    /// no length).
    fn new(what: &str, x: &Array<T>, o: &FiltfiltOpts, default_pad: usize) -> Result<Self> {
        let ax = norm_axis(what, o.axis, x.ndim())?;
        let pad = match o.padtype {
            None => 0,
            Some(_) => o.padlen.unwrap_or(default_pad),
        };
        let n = x.shape()[ax];
        if n <= pad {
            return Err(Error::InvalidArgument(format!(
                "{what}: the signal's length {n} along axis {ax} must exceed padlen {pad}"
            )));
        }
        let xm = x.moveaxis(ax as isize, -1)?;
        let lead: Vec<usize> = xm.shape()[..xm.ndim() - 1].to_vec();
        let batch: usize = lead.iter().product();
        let x2 = xm.reshape(&[batch, n])?;
        let ext = match o.padtype {
            Some(how) if pad > 0 => extend(&x2, pad, how)?,
            _ => x2,
        };
        Ok(PaddedRows {
            ext,
            pad,
            lead,
            n,
            ax,
        })
    }

    /// The rows of `y` (laid out as `ext`) without the padding, back in the signal's layout.
    fn finish(self, y: &Array<T>) -> Result<Array<T>> {
        let all = SliceArg::Range {
            start: None,
            end: None,
            step: 1,
        };
        let y = y.slice(&[all, range(self.pad, self.pad + self.n)])?;
        let mut shape = self.lead;
        shape.push(self.n);
        y.reshape(&shape)?.moveaxis(-1, self.ax as isize)
    }
}

/// The zero-phase forward-backward filter (SciPy's `filtfilt` with its defaults: odd
/// extension of `padlen = 3 max(len(a), len(b))` values, or `padlen` when given, each pass
/// started from `lfilter_zi` scaled by the first value it sees). A filter of order 0 (one
/// coefficient each) scales by `(b[0] / a[0])²`, where SciPy refuses it. [`filtfilt_with`]
/// takes the other extensions.
///
/// # Errors
/// As [`lfilter`], and a signal not longer than `padlen` along `axis`.
///
/// ```
/// use cuprite_array::{Array, signal::filtfilt};
/// // A constant passes a filter of DC gain 1 unchanged.
/// let x = Array::from_slice(&[3.0f64; 20], &[20])?;
/// let y = filtfilt(&[0.2, 0.3], &[1.0, -0.5], &x, 0, None)?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 3.0).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn filtfilt<T: Float>(
    b: &[f64],
    a: &[f64],
    x: &Array<T>,
    axis: isize,
    padlen: Option<usize>,
) -> Result<Array<T>> {
    filtfilt_with(b, a, x, &FiltfiltOpts::new().axis(axis).padlen(padlen))
}

/// [`filtfilt`] with SciPy's `padtype`: the signal extended at each end by its odd or even
/// reflection, its end values, zeros, or not at all ([`FiltfiltOpts`]).
///
/// # Errors
/// As [`filtfilt`].
///
/// ```
/// use cuprite_array::{Array, signal::{Extension, FiltfiltOpts, filtfilt_with}};
/// // Without an extension the ends see the filter start from rest on the first value.
/// let x = Array::from_slice(&[1.0f64; 12], &[12])?;
/// let o = FiltfiltOpts::new().padtype(None);
/// let y = filtfilt_with(&[0.5, 0.5], &[1.0], &x, &o)?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// let o = FiltfiltOpts::new().padtype(Extension::Constant).padlen(3);
/// assert_eq!(filtfilt_with(&[0.5, 0.5], &[1.0], &x, &o)?.shape(), &[12]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn filtfilt_with<T: Float>(
    b: &[f64],
    a: &[f64],
    x: &Array<T>,
    opts: &FiltfiltOpts,
) -> Result<Array<T>> {
    let order = check_coefs("filtfilt", b, a)?;
    if let FiltfiltMethod::Gust { irlen } = opts.method {
        let ax = norm_axis("filtfilt", opts.axis, x.ndim())?;
        return filtfilt_gust(b, a, x, ax, order, irlen);
    }
    let rows = PaddedRows::new("filtfilt", x, opts, 3 * (order + 1))?;
    // A filter of order 0 is a gain, applied once each way, with no state.
    let zi = match order {
        0 => None,
        _ => Some(lfilter_zi::<T>(b, a)?.reshape(&[1, order])?),
    };
    let pass = |s: &Array<T>| -> Result<Array<T>> {
        let Some(zi) = &zi else {
            return Ok(lfilter(b, a, s, 1, None)?.0);
        };
        let x0 = s.slice(&[
            SliceArg::Range {
                start: None,
                end: None,
                step: 1,
            },
            range(0, 1),
        ])?;
        let z = zi.try_mul(&x0)?;
        Ok(lfilter(b, a, s, 1, Some(&z))?.0)
    };
    let y = pass(&rows.ext)?.flip(&[1])?;
    let y = pass(&y)?.flip(&[1])?;
    rows.finish(&y)
}

/// [`filtfilt_with`] by Gustafsson's method ([`FiltfiltMethod::Gust`]) along `ax`: the four
/// passes from rest (forward-backward and backward-forward), the states of least-squares fit
/// to their difference (`gust::gust_matrices`), and the forward-backward result corrected by
/// them (at both ends only, when `irlen` is less than half the signal).
fn filtfilt_gust<T: Float>(
    b: &[f64],
    a: &[f64],
    x: &Array<T>,
    ax: usize,
    order: usize,
    irlen: Option<usize>,
) -> Result<Array<T>> {
    let xm = x.moveaxis(ax as isize, -1)?;
    let lead: Vec<usize> = xm.shape()[..xm.ndim() - 1].to_vec();
    let n = xm.shape()[xm.ndim() - 1];
    if n == 0 {
        return Err(Error::InvalidArgument(format!(
            "filtfilt (Gustafsson) along an empty axis {ax} (shape {:?})",
            x.shape()
        )));
    }
    let back = |y: Array<T>| -> Result<Array<T>> {
        let mut shape = lead.clone();
        shape.push(n);
        y.reshape(&shape)?.moveaxis(-1, ax as isize)
    };
    let batch: usize = lead.iter().product();
    let x2 = xm.reshape(&[batch, n])?;
    if order == 0 {
        // A gain, once each way.
        let g = b[0] / a[0];
        return back(x2.try_mul(sc::<T>(g * g))?);
    }
    let (m, split) = match irlen {
        Some(l) if n > l.saturating_mul(2) => (l, true),
        _ => (n, false),
    };
    crate::util::host_fits::<f64>(
        m.saturating_mul(2).saturating_mul(2 * order),
        &format!("filtfilt (Gustafsson): the {m} x {} matrices", 2 * order),
    )?;
    let g = gust_matrices(b, a, order, m, split)?;
    let f = |s: &Array<T>| -> Result<Array<T>> { Ok(lfilter(b, a, s, 1, None)?.0) };
    let y_fb = f(&f(&x2)?.flip(&[1])?)?.flip(&[1])?;
    let y_bf = f(&f(&x2.flip(&[1])?)?.flip(&[1])?)?;
    let delta = y_bf.try_sub(&y_fb)?;
    let all = SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    };
    let delta = if split {
        let head = delta.slice(&[all, range(0, m)])?;
        let tail = delta.slice(&[all, range(n - m, n)])?;
        Array::concat(&[&head, &tail], 1)?
    } else {
        delta
    };
    let dev = x.device();
    let (rows, cols) = (g.rows, g.cols);
    // Pᵀ (rows × cols) and Wᵀ (cols × rows) in the working type.
    let pt: Vec<T> = (0..rows * cols)
        .map(|i| sc::<T>(g.p[(i % cols) * rows + i / cols]))
        .collect();
    let wt: Vec<T> = (0..cols * rows)
        .map(|i| sc::<T>(g.w[(i % rows) * cols + i / rows]))
        .collect();
    let ic = delta.matmul(&Array::from_slice_on(dev, &pt, &[rows, cols])?)?;
    let wic = ic.matmul(&Array::from_slice_on(dev, &wt, &[cols, rows])?)?;
    let corr = if split {
        let zero = sc::<T>(0.0);
        let head = wic
            .slice(&[all, range(0, m)])?
            .pad(&[(0, 0), (0, n - m)], zero)?;
        let tail = wic
            .slice(&[all, range(m, 2 * m)])?
            .pad(&[(0, 0), (n - m, 0)], zero)?;
        head.try_add(&tail)?
    } else {
        wic
    };
    back(y_fb.try_add(&corr)?)
}

/// Filters `x` along `axis` through cascaded second-order sections (SciPy's `sosfilt`): each
/// row of `sos` is `[b0, b1, b2, a0, a1, a2]`, applied in order by [`lfilter`]. With `zi`
/// (shape `[sections, ...x's shape with axis of length 2]`), also returns the final states in
/// that shape.
///
/// ```
/// use cuprite_array::{Array, signal::{lfilter, sosfilt}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 0.0, -1.0, 0.5], &[5])?;
/// let sos = [[1.0, 0.5, 0.0, 1.0, -0.3, 0.0], [1.0, 0.0, 0.0, 1.0, 0.2, 0.0]];
/// let (y, _) = sosfilt(&sos, &x, 0, None)?;
/// // The same as the product filter: b = (1 + 0.5 z^-1), a = (1 - 0.3 z^-1)(1 + 0.2 z^-1).
/// let (w, _) = lfilter(&[1.0, 0.5], &[1.0, -0.1, -0.06], &x, 0, None)?;
/// let (y, w) = (y.to_vec()?, w.to_vec()?);
/// assert!(y.iter().zip(&w).all(|(p, q)| (p - q).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sosfilt<T: Float>(
    sos: &[[f64; 6]],
    x: &Array<T>,
    axis: isize,
    zi: Option<&Array<T>>,
) -> Result<(Array<T>, Option<Array<T>>)> {
    if sos.is_empty() {
        return Err(Error::InvalidArgument(
            "sosfilt needs at least one second-order section".into(),
        ));
    }
    let ax = norm_axis("sosfilt", axis, x.ndim())?;
    let mut zshape = vec![sos.len()];
    zshape.extend(x.shape());
    zshape[ax + 1] = 2;
    if let Some(z) = zi
        && z.shape() != zshape.as_slice()
    {
        return Err(Error::Shape(format!(
            "sosfilt: zi has shape {:?}; {} sections on x of shape {:?} need {zshape:?}",
            z.shape(),
            sos.len(),
            x.shape()
        )));
    }
    let mut y = x.clone();
    let mut finals = Vec::new();
    for (i, s) in sos.iter().enumerate() {
        let (b, a) = (&s[..3], &s[3..]);
        let zs = zi
            .map(|z| z.slice(&[SliceArg::Index(i as isize)]))
            .transpose()?;
        // Three coefficients each: every section is of order 2, so zi has two states.
        let (yy, zf) = lfilter(b, a, &y, ax as isize, zs.as_ref())?;
        y = yy;
        finals.extend(zf);
    }
    let zf = if zi.is_some() {
        let parts: Vec<Array<T>> = finals
            .iter()
            .map(|z| {
                let mut s = vec![1];
                s.extend(z.shape());
                z.reshape(&s)
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&Array<T>> = parts.iter().collect();
        Some(Array::concat(&refs, 0)?)
    } else {
        None
    };
    Ok((y, zf))
}

/// The initial states of [`sosfilt`]'s sections that are the steady state of its step
/// response (SciPy's `sosfilt_zi`): each section's `lfilter_zi` times the DC gain of the
/// sections before it.
fn sos_zi(what: &str, sos: &[[f64; 6]]) -> Result<Vec<[f64; 2]>> {
    let mut scale = 1.0;
    let mut out = Vec::with_capacity(sos.len());
    for s in sos {
        let (b, a) = (&s[..3], &s[3..]);
        check_coefs(what, b, a)?;
        let z = zi_values(b, a, 2)?;
        out.push([scale * z[0], scale * z[1]]);
        scale *= b.iter().sum::<f64>() / a.iter().sum::<f64>();
    }
    Ok(out)
}

/// The zero-phase forward-backward filter through cascaded second-order sections (SciPy's
/// `sosfiltfilt` with its defaults): the odd extension of `padlen` values each side (default
/// `3 (2 sections + 1 - z)`, `z` the sections whose `b2` and `a2` are both 0, as SciPy counts
/// them), each pass started in every section from its steady state ([`sosfilt`]'s, scaled by
/// the first value the pass sees). Rows of `sos` as [`sosfilt`]'s.
///
/// # Errors
/// No sections, a section's coefficients as [`lfilter`]'s, an axis out of range, or a signal
/// not longer than `padlen` along `axis`, named.
///
/// ```
/// use cuprite_array::{Array, signal::{BandType, butter_sos, sosfiltfilt}};
/// // A constant passes a low-pass filter of DC gain 1 unchanged.
/// let sos = butter_sos(4, 0.3, BandType::Lowpass)?;
/// let y = sosfiltfilt(&sos, &Array::from_slice(&[2.0f64; 40], &[40])?, 0, None)?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 2.0).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sosfiltfilt<T: Float>(
    sos: &[[f64; 6]],
    x: &Array<T>,
    axis: isize,
    padlen: Option<usize>,
) -> Result<Array<T>> {
    sosfiltfilt_with(sos, x, &FiltfiltOpts::new().axis(axis).padlen(padlen))
}

/// [`sosfiltfilt`] with SciPy's `padtype` ([`FiltfiltOpts`], as [`filtfilt_with`]).
///
/// # Errors
/// As [`sosfiltfilt`].
///
/// ```
/// use cuprite_array::{Array, signal::{BandType, Extension, FiltfiltOpts, butter_sos, sosfiltfilt_with}};
/// let sos = butter_sos(2, 0.3, BandType::Lowpass)?;
/// let x = Array::from_slice(&[2.0f64; 40], &[40])?;
/// let y = sosfiltfilt_with(&sos, &x, &FiltfiltOpts::new().padtype(Extension::Even))?.to_vec()?;
/// assert!(y.iter().all(|v| (v - 2.0).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sosfiltfilt_with<T: Float>(
    sos: &[[f64; 6]],
    x: &Array<T>,
    opts: &FiltfiltOpts,
) -> Result<Array<T>> {
    if sos.is_empty() {
        return Err(Error::InvalidArgument(
            "sosfiltfilt needs at least one second-order section".into(),
        ));
    }
    if opts.method != FiltfiltMethod::Pad {
        return Err(Error::InvalidArgument(format!(
            "sosfiltfilt takes the padding method only, not {:?} (as SciPy's sosfiltfilt)",
            opts.method
        )));
    }
    let zi = sos_zi("sosfiltfilt", sos)?;
    let zero_b = sos.iter().filter(|s| s[2] == 0.0).count();
    let zero_a = sos.iter().filter(|s| s[5] == 0.0).count();
    let ntaps = 2 * sos.len() + 1 - zero_b.min(zero_a);
    let rows = PaddedRows::new("sosfiltfilt", x, opts, 3 * ntaps)?;
    let all = SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    };
    let dev = x.device();
    let pass = |s: &Array<T>| -> Result<Array<T>> {
        let x0 = s.slice(&[all, range(0, 1)])?;
        let mut y = s.clone();
        for (sec, z) in sos.iter().zip(&zi) {
            let z: Vec<T> = z
                .iter()
                .map(|&v| T::from_scalar(crate::dtype::Scalar::F64(v)))
                .collect();
            let z = Array::from_slice_on(dev, &z, &[1, 2])?.try_mul(&x0)?;
            y = lfilter(&sec[..3], &sec[3..], &y, 1, Some(&z))?.0;
        }
        Ok(y)
    };
    let y = pass(&rows.ext)?.flip(&[1])?;
    let y = pass(&y)?.flip(&[1])?;
    rows.finish(&y)
}

/// The initial states of [`sosfilt`]'s sections that are the steady state of its step
/// response (SciPy's `sosfilt_zi`): one `[z0, z1]` pair a section, each section's
/// [`lfilter_zi`] scaled by the DC gain of the sections before it. Multiply by the signal's
/// first value to start a filter on a constant.
///
/// # Errors
/// No sections, or a section's coefficients as [`lfilter`]'s, or a section with a pole at
/// `z = 1`, named.
///
/// ```
/// use cuprite_array::signal::{BandType, butter_sos, sosfilt_zi};
/// let sos = butter_sos(4, 0.25, BandType::Lowpass)?;
/// let zi = sosfilt_zi(&sos)?;
/// assert_eq!(zi.len(), 2);
/// // Section 0 at rest on a unit step: its output b0 + z0 equals its DC gain.
/// let s = sos[0];
/// let dc = (s[0] + s[1] + s[2]) / (s[3] + s[4] + s[5]);
/// assert!((s[0] + zi[0][0] - dc).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn sosfilt_zi(sos: &[[f64; 6]]) -> Result<Vec<[f64; 2]>> {
    if sos.is_empty() {
        return Err(Error::InvalidArgument(
            "sosfilt_zi needs at least one section (sos is empty)".into(),
        ));
    }
    sos_zi("sosfilt_zi", sos)
}

/// The initial state of [`lfilter`] that reproduces given past outputs `y` and inputs `x`
/// (SciPy's `lfiltic(b, a, y, x)`): `y[0]` is the latest output, `y[1]` the one before, and so
/// on (as is `x`); missing values are 0 and values past the filter's orders are ignored. The
/// state has `max(len(a), len(b)) - 1` values.
///
/// # Errors
/// The coefficients as [`lfilter`]'s, or a past value not finite, named.
///
/// ```
/// use cuprite_array::{Array, signal::{lfilter, lfiltic}};
/// // y[n] = x[n] + 0.5 y[n-1], whose last output was 2: the next outputs for zero input halve it.
/// let (b, a) = ([1.0], [1.0, -0.5]);
/// let zi = lfiltic(&b, &a, &[2.0], None)?;
/// let (y, _) = lfilter(&b, &a, &Array::from_slice(&[0.0f64; 3], &[3])?, 0, Some(&Array::from_slice(&zi, &[1])?))?;
/// assert_eq!(y.to_vec()?, [1.0, 0.5, 0.25]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lfiltic(b: &[f64], a: &[f64], y: &[f64], x: Option<&[f64]>) -> Result<Vec<f64>> {
    let k = check_coefs("lfiltic", b, a)?;
    let x = x.unwrap_or(&[]);
    if let Some(v) = y.iter().chain(x).find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "lfiltic: past value {v} is not finite"
        )));
    }
    let past = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(0.0);
    let (m, n) = (b.len() - 1, a.len() - 1);
    // z_i = Σ_{j > i} (b_j x[j - i - 1] - a_j y[j - i - 1]) / a_0: the contributions of the
    // past that the direct form II transposed still holds in its i-th delay.
    Ok((0..k)
        .map(|i| {
            let fed: f64 = (i + 1..=m).map(|j| b[j] * past(x, j - i - 1)).sum();
            let back: f64 = (i + 1..=n).map(|j| a[j] * past(y, j - i - 1)).sum();
            (fed - back) / a[0]
        })
        .collect())
}

/// The polynomial division that undoes a convolution (SciPy's `deconvolve(signal, divisor)`):
/// `quotient` and `remainder` with `signal = convolve(divisor, quotient) + remainder`, the
/// quotient of `len(signal) - len(divisor) + 1` values (none, and the remainder the whole
/// signal, when the divisor is the longer). On the host in `f64`.
///
/// # Errors
/// An empty operand, a value not finite, or `divisor[0]` 0, named.
///
/// ```
/// use cuprite_array::signal::deconvolve;
/// // (1 + 2z)(1 + z) = 1 + 3z + 2z²; plus a remainder of 5 in the last place.
/// let (q, r) = deconvolve(&[1.0, 3.0, 7.0], &[1.0, 1.0])?;
/// assert_eq!(q, [1.0, 2.0]);
/// assert_eq!(r, [0.0, 0.0, 5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn deconvolve(signal: &[f64], divisor: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    if signal.is_empty() || divisor.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "deconvolve needs non-empty operands (signal {} values, divisor {})",
            signal.len(),
            divisor.len()
        )));
    }
    if let Some(v) = signal.iter().chain(divisor).find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "deconvolve: value {v} is not finite"
        )));
    }
    if divisor[0] == 0.0 {
        return Err(Error::InvalidArgument(format!(
            "deconvolve: divisor[0] is 0 (divisor = {divisor:?})"
        )));
    }
    let (n, d) = (signal.len(), divisor.len());
    if d > n {
        return Ok((Vec::new(), signal.to_vec()));
    }
    let mut work = signal.to_vec();
    let mut quot = vec![0.0; n - d + 1];
    for i in 0..quot.len() {
        let q = work[i] / divisor[0];
        quot[i] = q;
        for (j, dv) in divisor.iter().enumerate() {
            work[i + j] -= q * dv;
        }
    }
    // The remainder is `signal - convolve(divisor, quotient)`, as SciPy computes it.
    let mut back = vec![0.0; n];
    for (i, q) in quot.iter().enumerate() {
        for (j, dv) in divisor.iter().enumerate() {
            back[i + j] += q * dv;
        }
    }
    let rem = signal.iter().zip(&back).map(|(s, b)| s - b).collect();
    Ok((quot, rem))
}
