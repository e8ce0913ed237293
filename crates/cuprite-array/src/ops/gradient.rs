//! NumPy's `gradient` in full: every axis or a chosen few, uniform or coordinate spacing per
//! axis, and one-sided edges of first or second order. Interior values are second-order
//! central differences (for uneven coordinates, the three-point formula of NumPy's
//! documentation); everything is slices combined by fused element-wise kernels, with the
//! per-sample coefficients of uneven spacing uploaded once per axis.

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::{Error, Result};
use crate::ops::stacking::along;
use crate::shape::axis;

/// The sample spacing of one axis for [`Array::gradient_with`].
#[derive(Clone, Debug, PartialEq)]
pub enum Spacing {
    /// A constant distance between neighbours (NumPy's scalar `varargs`).
    Uniform(f64),
    /// The coordinate of every sample along the axis (NumPy's array `varargs`), as many as
    /// the axis has samples.
    Coords(Vec<f64>),
}

fn c<T: Float>(x: f64) -> T {
    T::from_scalar(Scalar::F64(x))
}

impl<T: Float> Array<T> {
    /// Coefficients for the interior samples `1..n-1`, shaped to lie along axis `a`.
    fn along_axis(&self, a: usize, v: &[f64]) -> Result<Array<T>> {
        let mut s = vec![1usize; self.ndim()];
        s[a] = v.len();
        let t: Vec<T> = v.iter().map(|&x| c(x)).collect();
        Array::from_slice_on(self.device(), &t, &s)
    }

    /// NumPy's `gradient(f, *varargs, axis=axes, edge_order=edge_order)`: one array per axis
    /// of `axes` (`None`: every axis, in order). `spacing` is empty (unit spacing), one
    /// [`Spacing`] for every axis, or one per axis. `edge_order` 1 or 2 picks one-sided
    /// differences of that order at both ends; an axis needs at least `edge_order + 1`
    /// samples. Integer data: cast to a float type first (NumPy does so itself).
    ///
    /// ```
    /// use cuprite_array::{Array, ops::Spacing};
    /// let f = Array::from_slice(&[1.0f64, 2.0, 4.0, 7.0, 11.0, 16.0], &[6])?;
    /// let x = Spacing::Coords(vec![0.0, 1.0, 1.5, 3.5, 4.0, 6.0]);
    /// let g = f.gradient_with(&[x], None, 1)?;
    /// let want = [1.0, 3.0, 3.5, 6.7, 6.9, 2.5];
    /// for (a, b) in g[0].to_vec()?.iter().zip(want) { assert!((a - b).abs() < 1e-12); }
    /// let g2 = f.gradient_with(&[Spacing::Uniform(2.0)], None, 2)?;
    /// assert_eq!(g2[0].to_vec()?, [0.25, 0.75, 1.25, 1.75, 2.25, 2.75]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn gradient_with(
        &self,
        spacing: &[Spacing],
        axes: Option<&[isize]>,
        edge_order: usize,
    ) -> Result<Vec<Array<T>>> {
        let nd = self.ndim();
        let axes: Vec<usize> = match axes {
            Some(a) => a.iter().map(|&x| axis(x, nd)).collect::<Result<_>>()?,
            None => (0..nd).collect(),
        };
        if !(1..=2).contains(&edge_order) {
            return Err(Error::InvalidArgument(format!(
                "gradient: edge_order {edge_order}; it must be 1 or 2"
            )));
        }
        let spacing: Vec<Spacing> = match spacing.len() {
            0 => vec![Spacing::Uniform(1.0); axes.len()],
            1 => vec![spacing[0].clone(); axes.len()],
            n if n == axes.len() => spacing.to_vec(),
            n => {
                return Err(Error::InvalidArgument(format!(
                    "gradient: {n} spacings for {} axes; give none, one, or one per axis",
                    axes.len()
                )));
            }
        };
        axes.iter()
            .zip(&spacing)
            .map(|(&a, sp)| self.gradient_axis(a, sp, edge_order))
            .collect()
    }

    fn gradient_axis(&self, a: usize, sp: &Spacing, order: usize) -> Result<Array<T>> {
        let n = self.shape()[a];
        if n < order + 1 {
            return Err(Error::Shape(format!(
                "gradient: axis {a} of shape {:?} has {n} samples; edge_order {order} needs at \
                 least {}",
                self.shape(),
                order + 1
            )));
        }
        let nd = self.ndim();
        let s = |lo: usize, hi: usize| self.slice(&along(nd, a, lo, hi));
        // Uniform spacing (also coordinates whose differences are all equal, as NumPy).
        let dx: Option<f64> = match sp {
            Spacing::Uniform(d) => Some(*d),
            Spacing::Coords(x) => {
                if x.len() != n {
                    return Err(Error::Shape(format!(
                        "gradient: {} coordinates for axis {a} of {n} samples",
                        x.len()
                    )));
                }
                let d0 = x[1] - x[0];
                x.windows(2).all(|w| w[1] - w[0] == d0).then_some(d0)
            }
        };
        let x: Vec<f64> = match (dx, sp) {
            (None, Spacing::Coords(x)) => x.clone(),
            _ => Vec::new(),
        };
        let mid = if n > 2 {
            Some(match dx {
                Some(d) => s(2, n)?.try_sub(&s(0, n - 2)?)? * c::<T>(1.0 / (2.0 * d)),
                None => {
                    let (mut ca, mut cb, mut cc) = (Vec::new(), Vec::new(), Vec::new());
                    for i in 1..n - 1 {
                        let (h1, h2) = (x[i] - x[i - 1], x[i + 1] - x[i]);
                        ca.push(-h2 / (h1 * (h1 + h2)));
                        cb.push((h2 - h1) / (h1 * h2));
                        cc.push(h1 / (h2 * (h1 + h2)));
                    }
                    let (ka, kb, kc) = (
                        self.along_axis(a, &ca)?,
                        self.along_axis(a, &cb)?,
                        self.along_axis(a, &cc)?,
                    );
                    (s(0, n - 2)?.try_mul(&ka)?)
                        .try_add(&s(1, n - 1)?.try_mul(&kb)?)?
                        .try_add(&s(2, n)?.try_mul(&kc)?)?
                }
            })
        } else {
            None
        };
        let h = |i: usize| match dx {
            Some(d) => d,
            None => x[i + 1] - x[i],
        };
        // Three-point one-sided weights (w0, w1, w2) on samples (i, i+1, i+2) or (n-3..n).
        let (first, last) = if order == 1 {
            (
                s(1, 2)?.try_sub(&s(0, 1)?)? * c::<T>(1.0 / h(0)),
                s(n - 1, n)?.try_sub(&s(n - 2, n - 1)?)? * c::<T>(1.0 / h(n - 2)),
            )
        } else {
            let (h1, h2) = (h(0), h(1));
            let w = [
                -(2.0 * h1 + h2) / (h1 * (h1 + h2)),
                (h1 + h2) / (h1 * h2),
                -h1 / (h2 * (h1 + h2)),
            ];
            let f = (s(0, 1)? * c::<T>(w[0]))
                .try_add(&(s(1, 2)? * c::<T>(w[1])))?
                .try_add(&(s(2, 3)? * c::<T>(w[2])))?;
            let (h1, h2) = (h(n - 3), h(n - 2));
            let w = [
                h2 / (h1 * (h1 + h2)),
                -(h2 + h1) / (h1 * h2),
                (2.0 * h2 + h1) / (h2 * (h1 + h2)),
            ];
            let l = (s(n - 3, n - 2)? * c::<T>(w[0]))
                .try_add(&(s(n - 2, n - 1)? * c::<T>(w[1])))?
                .try_add(&(s(n - 1, n)? * c::<T>(w[2])))?;
            (f, l)
        };
        match mid {
            Some(m) => Array::concat(&[&first, &m, &last], a as isize),
            None => Array::concat(&[&first, &last], a as isize),
        }
    }
}
