//! Differences and integrals on samples, and vector products (NumPy's `gradient`,
//! `trapezoid`, `cross`, `kron`): slices (views) combined by fused element-wise kernels.

use crate::array::Array;
use crate::dtype::{Float, Numeric, Ordered};
use crate::error::{Error, Result};
use crate::ops::stacking::along;
use crate::shape::axis;

impl<T: Float> Array<T> {
    /// The gradient along `ax` with sample spacing `dx`: central differences inside, one-sided
    /// first differences at both ends (NumPy's `gradient(f, dx, axis=ax)`, `edge_order=1`).
    /// An axis of fewer than 2 samples is an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let f = Array::from_slice(&[1.0f64, 2.0, 4.0, 7.0, 11.0], &[5])?;
    /// assert_eq!(f.gradient(1.0, 0)?.to_vec()?, vec![1.0, 1.5, 2.5, 3.5, 4.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn gradient(&self, dx: f64, ax: isize) -> Result<Array<T>> {
        let a = axis(ax, self.ndim())?;
        let n = self.shape()[a];
        if n < 2 {
            return Err(Error::Shape(format!(
                "gradient needs at least 2 samples along axis {ax}, shape {:?}",
                self.shape()
            )));
        }
        let nd = self.ndim();
        let s = |lo, hi| self.slice(&along(nd, a, lo, hi));
        let c = |x: f64| T::from_scalar(crate::dtype::Scalar::F64(x));
        let first = s(1, 2)?.try_sub(&s(0, 1)?)? * c(1.0 / dx);
        let last = s(n - 1, n)?.try_sub(&s(n - 2, n - 1)?)? * c(1.0 / dx);
        if n == 2 {
            return Array::concat(&[&first, &last], a as isize);
        }
        let mid = s(2, n)?.try_sub(&s(0, n - 2)?)? * c(0.5 / dx);
        Array::concat(&[&first, &mid, &last], a as isize)
    }

    /// The integral along `ax` by the trapezoidal rule with spacing `dx` (NumPy's `trapezoid`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let y = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    /// assert_eq!(y.trapezoid(1.0, 0)?.item()?, 4.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn trapezoid(&self, dx: f64, ax: isize) -> Result<Array<T>> {
        let a = axis(ax, self.ndim())?;
        let n = self.shape()[a];
        let nd = self.ndim();
        if n < 2 {
            let mut shape = self.shape().to_vec();
            shape.remove(a);
            return Array::zeros(&shape).to_device(self.device());
        }
        let s = |lo, hi| self.slice(&along(nd, a, lo, hi));
        let h = T::from_scalar(crate::dtype::Scalar::F64(dx / 2.0));
        let t = s(1, n)?.try_add(&s(0, n - 1)?)? * h;
        Ok(t.sum_axes(&[a as isize])?.cast::<T>())
    }

    /// [`trapezoid`](Self::trapezoid) at sample points `x` (1-D, the axis' length).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let y = Array::from_slice(&[1.0f64, 1.0, 1.0], &[3])?;
    /// let x = Array::from_slice(&[0.0f64, 1.0, 3.0], &[3])?;
    /// assert_eq!(y.trapezoid_x(&x, 0)?.item()?, 3.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn trapezoid_x(&self, x: &Array<T>, ax: isize) -> Result<Array<T>> {
        let a = axis(ax, self.ndim())?;
        let n = self.shape()[a];
        if x.ndim() != 1 || x.len() != n {
            return Err(Error::Shape(format!(
                "trapezoid_x: x of shape {:?} for an axis of {n} samples",
                x.shape()
            )));
        }
        let nd = self.ndim();
        if n < 2 {
            return self.trapezoid(1.0, ax);
        }
        let s = |lo, hi| self.slice(&along(nd, a, lo, hi));
        let mut dshape = vec![1; nd];
        dshape[a] = n - 1;
        let dx = x
            .slice(&along(1, 0, 1, n))?
            .try_sub(&x.slice(&along(1, 0, 0, n - 1))?)?
            .reshape(&dshape)?;
        let half = T::from_scalar(crate::dtype::Scalar::F64(0.5));
        let t = s(1, n)?.try_add(&s(0, n - 1)?)?.try_mul(&dx)? * half;
        Ok(t.sum_axes(&[a as isize])?.cast::<T>())
    }
}

impl<T: Numeric + Ordered> Array<T> {
    /// The cross product of 3-vectors along the last axis (other axes broadcast; NumPy's
    /// `cross`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let x = Array::from_slice(&[1i32, 0, 0], &[3])?;
    /// let y = Array::from_slice(&[0i32, 1, 0], &[3])?;
    /// assert_eq!(x.cross(&y)?.to_vec()?, vec![0, 0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cross(&self, other: &Array<T>) -> Result<Array<T>> {
        if self.shape().last() != Some(&3) || other.shape().last() != Some(&3) {
            return Err(Error::Shape(format!(
                "cross needs 3-vectors along the last axis, got shapes {:?} and {:?}",
                self.shape(),
                other.shape()
            )));
        }
        let (na, nb) = (self.ndim(), other.ndim());
        let ca = |i: usize| self.slice(&along(na, na - 1, i, i + 1));
        let cb = |i: usize| other.slice(&along(nb, nb - 1, i, i + 1));
        let comp = |i: usize, j: usize| -> Result<Array<T>> {
            ca(i)?.try_mul(&cb(j)?)?.try_sub(&ca(j)?.try_mul(&cb(i)?)?)
        };
        let (x, y, z) = (comp(1, 2)?, comp(2, 0)?, comp(0, 1)?);
        Array::concat(&[&x, &y, &z], -1)
    }

    /// The Kronecker product: blocks `self[i] * other` (NumPy's `kron`; the fewer axes are
    /// padded with leading 1s). One fused kernel.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2], &[2])?;
    /// let b = Array::from_slice(&[1i32, 10, 100], &[3])?;
    /// assert_eq!(a.kron(&b)?.to_vec()?, vec![1, 10, 100, 2, 20, 200]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn kron(&self, other: &Array<T>) -> Result<Array<T>> {
        let nd = self.ndim().max(other.ndim());
        let pad = |s: &[usize]| {
            let mut v = vec![1; nd - s.len()];
            v.extend_from_slice(s);
            v
        };
        let (sa, sb) = (pad(self.shape()), pad(other.shape()));
        let ia: Vec<usize> = sa.iter().flat_map(|&s| [s, 1]).collect();
        let ib: Vec<usize> = sb.iter().flat_map(|&s| [1, s]).collect();
        let out: Vec<usize> = sa
            .iter()
            .zip(&sb)
            .map(|(a, b)| a.checked_mul(*b))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::Shape("kron: the result's shape overflows".into()))?;
        crate::shape::checked_numel(&out)?;
        let p = self.reshape(&ia)?.try_mul(&other.reshape(&ib)?)?;
        p.contiguous()?.reshape(&out)
    }
}
