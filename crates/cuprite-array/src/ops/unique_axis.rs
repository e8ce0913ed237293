//! NumPy's `unique(ar, axis=k)` with `return_index`, `return_inverse` and `return_counts`:
//! the distinct slices along an axis, in lexicographic order. The ordering and grouping run
//! on the host over one copy of the data; the distinct slices are then gathered on the
//! array's device.

use crate::array::Array;
use crate::dtype::{Element, Scalar};
use crate::error::Result;
use crate::ops::TakeOpts;
use crate::ops::sort::Unique;
use crate::shape::axis;
use std::cmp::Ordering;

/// NumPy's sort order of one element: numbers ascending, NaN after every number; complex
/// numbers by real part, then imaginary part.
fn cmp_scalar(a: Scalar, b: Scalar) -> Ordering {
    let f = |x: f64, y: f64| match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    };
    match (a, b) {
        (Scalar::I64(x), Scalar::I64(y)) => x.cmp(&y),
        (Scalar::U64(x), Scalar::U64(y)) => x.cmp(&y),
        (Scalar::F32(x), Scalar::F32(y)) => f(x as f64, y as f64),
        (Scalar::F64(x), Scalar::F64(y)) => f(x, y),
        (Scalar::C32(x), Scalar::C32(y)) => {
            f(x.re as f64, y.re as f64).then(f(x.im as f64, y.im as f64))
        }
        (Scalar::C64(x), Scalar::C64(y)) => f(x.re, y.re).then(f(x.im, y.im)),
        _ => Ordering::Equal,
    }
}

impl<T: Element> Array<T> {
    /// NumPy's `unique(ar, return_index=True, return_inverse=True, return_counts=True,
    /// axis=ax)`: the distinct slices along `ax` (each slice compared element by element, as
    /// NumPy's row view does: `-0.0 == 0.0`, and a slice holding NaN equals no other), sorted
    /// lexicographically (NaN after numbers). `values` keeps the other axes; `first` is the
    /// position along `ax` of each slice's first occurrence, `counts` how often it occurs,
    /// and `inverse` (1-D, one entry per position along `ax`) where each slice went.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 0, 0, 1, 0, 0, 2, 3, 4], &[3, 3])?;
    /// let u = a.unique_axis(0)?;
    /// assert_eq!(u.values.to_vec()?, [1, 0, 0, 2, 3, 4]);
    /// assert_eq!((u.first.to_vec()?, u.counts.to_vec()?), (vec![0, 2], vec![2, 1]));
    /// assert_eq!(u.inverse.to_vec()?, [0, 0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn unique_axis(&self, ax: isize) -> Result<Unique<T>> {
        let a = axis(ax, self.ndim())?;
        let n = self.shape()[a];
        // Row length: the other extents' product (it fits, as the array's count does).
        let m: usize = self
            .shape()
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != a)
            .map(|(_, &e)| e)
            .product();
        let rows = self.moveaxis(a as isize, 0)?.reshape(&[n, m])?;
        let v: Vec<Scalar> = rows.to_vec()?.into_iter().map(|x| x.to_scalar()).collect();
        let row = |i: usize| &v[i * m..(i + 1) * m];
        let cmp_rows = |i: usize, j: usize| {
            row(i)
                .iter()
                .zip(row(j))
                .map(|(&x, &y)| cmp_scalar(x, y))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        };
        // Equal as NumPy's `!=` on the row view: element-wise `==` (NaN unequal to itself).
        let same = |i: usize, j: usize| row(i).iter().zip(row(j)).all(|(x, y)| x == y);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| cmp_rows(i, j)); // stable: ties keep their first occurrence
        let (mut first, mut counts) = (Vec::<i64>::new(), Vec::<i64>::new());
        let mut inverse = vec![0i64; n];
        for (k, &i) in order.iter().enumerate() {
            if k == 0 || !same(order[k - 1], i) {
                first.push(i as i64);
                counts.push(0);
            }
            *counts.last_mut().unwrap_or(&mut 0) += 1;
            inverse[i] = first.len() as i64 - 1;
        }
        let dev = self.device();
        let f = Array::from_slice_on(dev, &first, &[first.len()])?;
        Ok(Unique {
            values: self.take_with(&f, TakeOpts::new().axis(a as isize))?,
            counts: Array::from_slice_on(dev, &counts, &[counts.len()])?,
            first: f,
            inverse: Array::from_slice_on(dev, &inverse, &[n])?,
        })
    }
}
