//! SciPy's `generic_filter` and `generic_filter1d`: a function of the caller applied to every
//! window of an image, or to every line along one axis, on the host. The image is read back
//! once as `f64`, each window gathered with the boundary's index mapping
//! ([`Boundary::map`](super::Boundary::map)) or its constant, and the results written back in
//! the image's type to its device. The windows are those of SciPy's filters: the window of
//! `m` taps at `p` starts at `p - m / 2 - origin`.

use super::boundary::Boundary;
use super::filters::FilterOpts;
use super::filters_elem::ImageElement;
use super::filters_order::FilterWindow;
use super::filters_plan::{centre, per_axis};
use crate::array::Array;
use crate::dtype::Scalar;
use crate::error::{Error, Result};

/// The value a constant boundary gives beyond the edges (0 where the boundary maps every
/// index inside).
fn outside(b: Boundary) -> f64 {
    match b {
        Boundary::Constant(c) | Boundary::GridConstant(c) => c,
        _ => 0.0,
    }
}

/// The value at `idx` (one index an axis, possibly outside) of `v` (row-major, `shape`).
fn at(v: &[f64], shape: &[usize], idx: &[i64], b: Boundary) -> f64 {
    let mut flat = 0usize;
    for (a, &i) in idx.iter().enumerate() {
        match b.map(i, shape[a] as i64) {
            Some(j) => flat = flat * shape[a] + j as usize,
            None => return outside(b),
        }
    }
    v[flat]
}

fn back<T: ImageElement>(x: &Array<T>, out: Vec<f64>) -> Result<Array<T>> {
    let vals: Vec<T> = out
        .into_iter()
        .map(|v| T::from_scalar(Scalar::F64(v)))
        .collect();
    Array::from_slice_on(x.device(), &vals, x.shape())
}

/// SciPy's `generic_filter`: `function` of the values under the window `fp` (its true
/// elements, in row-major order) around each element of `x`, over every axis, with `opts`'
/// boundary and origins; the results rounded to `x`'s type as the crate's casts round. Run
/// on the host.
///
/// # Errors
/// A 0-dimensional or empty image, a window of another rank or of no element, an origin
/// outside the window, or a failed read, named.
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, FilterWindow, generic_filter}};
/// // The range (largest minus smallest) of each 3-window, edges reflected.
/// let x = Array::from_slice(&[1.0f64, 4.0, 2.0, 8.0], &[4])?;
/// let range = |v: &[f64]| v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min);
/// let y = generic_filter(&x, &range, &FilterWindow::size(&[3]), FilterOpts::new())?;
/// assert_eq!(y.to_vec()?, [3.0, 3.0, 6.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn generic_filter<T: ImageElement>(
    x: &Array<T>,
    function: &dyn Fn(&[f64]) -> f64,
    fp: &FilterWindow,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let what = "generic_filter";
    let nd = x.ndim();
    if nd == 0 || x.is_empty() {
        return Err(Error::Shape(format!(
            "{what} takes a non-empty image with axes, not shape {:?}",
            x.shape()
        )));
    }
    let (mask, wshape) = fp.resolve(what, nd, false)?;
    let origin = per_axis(what, "origin", &opts.origin, nd, 0)?;
    let starts: Vec<i64> = (0..nd)
        .map(|a| centre(what, wshape[a], origin[a]))
        .collect::<Result<_>>()?;
    let offsets: Vec<Vec<i64>> = mask
        .iter()
        .enumerate()
        .filter(|(_, on)| **on)
        .map(|(f, _)| {
            let mut rest = f;
            let mut k = vec![0i64; nd];
            for a in (0..nd).rev() {
                k[a] = (rest % wshape[a]) as i64 - starts[a];
                rest /= wshape[a];
            }
            k
        })
        .collect();
    let v = x.cast::<f64>().to_vec()?;
    let shape = x.shape().to_vec();
    let mut out = Vec::with_capacity(v.len());
    let mut idx = vec![0i64; nd];
    let mut window = Vec::with_capacity(offsets.len());
    let mut pos = vec![0i64; nd];
    for _ in 0..v.len() {
        window.clear();
        for k in &offsets {
            for a in 0..nd {
                pos[a] = idx[a] + k[a];
            }
            window.push(at(&v, &shape, &pos, opts.boundary));
        }
        out.push(function(&window));
        for a in (0..nd).rev() {
            idx[a] += 1;
            if (idx[a] as usize) < shape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    back(x, out)
}

/// SciPy's `generic_filter1d`: for each line of `x` along `opts`' axis, `function(input,
/// output)` with the line extended to `n + filter_size - 1` values by the boundary (starting
/// `filter_size / 2 + origin` before the line) and an output line of `n` values to fill; the
/// results rounded to `x`'s type. Run on the host.
///
/// # Errors
/// A 0-dimensional or empty image, an axis out of range, `filter_size` 0, an origin outside
/// the window, or a failed read, named.
///
/// ```
/// use cuprite_array::{Array, image::{FilterOpts, generic_filter1d}};
/// // A 2-tap moving sum along the rows.
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let sum2 = |i: &[f64], o: &mut [f64]| {
///     for (k, v) in o.iter_mut().enumerate() {
///         *v = i[k] + i[k + 1];
///     }
/// };
/// let y = generic_filter1d(&x, &sum2, 2, FilterOpts::new())?;
/// assert_eq!(y.to_vec()?, [2.0, 3.0, 5.0, 8.0, 9.0, 11.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn generic_filter1d<T: ImageElement>(
    x: &Array<T>,
    function: &dyn Fn(&[f64], &mut [f64]),
    filter_size: usize,
    opts: FilterOpts,
) -> Result<Array<T>> {
    let what = "generic_filter1d";
    let nd = x.ndim();
    if nd == 0 || x.is_empty() {
        return Err(Error::Shape(format!(
            "{what} takes a non-empty image with axes, not shape {:?}",
            x.shape()
        )));
    }
    if filter_size == 0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: filter_size 0; it must be at least 1"
        )));
    }
    let ax = crate::shape::axis(opts.axis, nd)?;
    let origin = per_axis(what, "origin", &opts.origin, 1, 0)?[0];
    let start = centre(what, filter_size, origin)?;
    let v = x.cast::<f64>().to_vec()?;
    let shape = x.shape().to_vec();
    let n = shape[ax];
    let inner: usize = shape[ax + 1..].iter().product();
    let outer: usize = shape[..ax].iter().product();
    let mut out = vec![0.0; v.len()];
    let mut line = vec![0.0; n + filter_size - 1];
    let mut res = vec![0.0; n];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            for (k, slot) in line.iter_mut().enumerate() {
                let p = k as i64 - start;
                *slot = match opts.boundary.map(p, n as i64) {
                    Some(j) => v[base + j as usize * inner],
                    None => outside(opts.boundary),
                };
            }
            function(&line, &mut res);
            for (k, r) in res.iter().enumerate() {
                out[base + k * inner] = *r;
            }
        }
    }
    back(x, out)
}
