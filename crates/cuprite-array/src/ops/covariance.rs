//! NumPy's `cov` and `corrcoef` with every argument: a second set of variables `y`, `rowvar`,
//! `bias`, `ddof`, frequency and analytic weights; integers, floats and complex numbers
//! (conjugated in the product). One centring pass and one matrix product.

use crate::array::{Array, cast_owned};
use crate::dtype::{DType, Element, Numeric, Scalar};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::ReduceOpts;
use crate::ops::elementwise::{binary_node, unary_node};
use crate::ops::{BinaryOp, UnaryOp};
use std::sync::Arc;

/// The arguments of [`Array::cov_with`] and [`Array::corrcoef_with`] beside the data, with
/// NumPy's defaults (`Cov::new()`: no `y`, `rowvar = true`, `bias = false`, `ddof` from
/// `bias`, no weights).
#[derive(Clone, Debug)]
#[must_use]
pub struct Cov<'a, T: Element> {
    y: Option<&'a Array<T>>,
    rowvar: bool,
    bias: bool,
    ddof: Option<usize>,
    fweights: Option<&'a Array<i64>>,
    aweights: Option<&'a Array<f64>>,
}

impl<T: Element> Default for Cov<'_, T> {
    fn default() -> Self {
        Cov {
            y: None,
            rowvar: true,
            bias: false,
            ddof: None,
            fweights: None,
            aweights: None,
        }
    }
}

impl<'a, T: Element> Cov<'a, T> {
    /// NumPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// More variables, laid out as the data are (NumPy's `y`).
    pub fn y(self, y: &'a Array<T>) -> Self {
        Cov { y: Some(y), ..self }
    }
    /// Whether each row is a variable (`true`, the default) or each column.
    pub fn rowvar(self, rowvar: bool) -> Self {
        Cov { rowvar, ..self }
    }
    /// Normalise by `N` instead of `N - 1` (when `ddof` is not given).
    pub fn bias(self, bias: bool) -> Self {
        Cov { bias, ..self }
    }
    /// Normalise by `N - ddof` (overrides `bias`).
    pub fn ddof(self, ddof: usize) -> Self {
        Cov {
            ddof: Some(ddof),
            ..self
        }
    }
    /// How many times each observation occurs (non-negative).
    pub fn fweights(self, w: &'a Array<i64>) -> Self {
        Cov {
            fweights: Some(w),
            ..self
        }
    }
    /// The relative importance of each observation (non-negative).
    pub fn aweights(self, w: &'a Array<f64>) -> Self {
        Cov {
            aweights: Some(w),
            ..self
        }
    }
}

/// `v` in `like`'s shape and device as dtype `d`.
fn konst<U: Element>(like: &Array<U>, v: f64, d: DType) -> Arc<Node> {
    cast_owned(Array::<f64>::full_like(like, v).node, d)
}

/// The data as a `variables × observations` matrix.
fn as_rows<T: Element>(m: &Array<T>, rowvar: bool, what: &str) -> Result<Array<T>> {
    let x = match m.ndim() {
        0 | 1 => m.reshape(&[1, m.len()])?,
        2 => m.clone(),
        _ => {
            return Err(Error::Shape(format!(
                "{what} takes 1-D or 2-D arrays, not shape {:?}",
                m.shape()
            )));
        }
    };
    Ok(if !rowvar && x.shape()[0] != 1 {
        x.t()
    } else {
        x
    })
}

/// A 1-D weight vector of `n` non-negative values, as `f64`.
fn weights<W: Numeric>(w: &Array<W>, n: usize, what: &str) -> Result<Array<f64>> {
    if w.ndim() != 1 || w.len() != n {
        return Err(Error::Shape(format!(
            "cov: {what} of shape {:?} for {n} observations (one weight each)",
            w.shape()
        )));
    }
    let w = w.cast::<f64>();
    if w.less(0.0).any()?.item()? {
        return Err(Error::InvalidArgument(format!(
            "cov: {what} cannot be negative (found {})",
            w.min()?.item()?
        )));
    }
    Ok(w)
}

impl<T: Numeric> Array<T> {
    /// NumPy's `cov` with all its arguments (see [`Cov`]): the covariance matrix of the
    /// variables (rows, or columns when `rowvar` is false; `y` adds variables), weighted by
    /// `fweights * aweights`, normalised as NumPy does; squeezed (one variable: a 0-d result).
    /// Integers compute in `f64`; floats and complex numbers in their own type (NumPy: at
    /// least `f64`); complex deviations are conjugated in the product.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::Cov};
    /// let x = Array::from_slice(&[-2.1f64, -1.0, 4.3], &[3])?;
    /// let y = Array::from_slice(&[3.0f64, 1.1, 0.12], &[3])?;
    /// let c = x.cov_with(&Cov::new().y(&y))?.to_vec()?;
    /// let want = [11.71, -4.286, -4.286, 2.144133];
    /// assert!(c.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6));
    /// let f = Array::from_slice(&[1i64, 2, 1], &[3])?;
    /// let w = x.cov_with(&Cov::new().fweights(&f).bias(true))?.item()?;
    /// // The mean of -2.1, -1, -1, 4.3 is 0.05; the mean square deviation 6.2225 (bias).
    /// assert!((w - 6.2225).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cov_with(&self, opts: &Cov<'_, T>) -> Result<Array<T::Mean>>
    where
        T::Mean: Numeric,
    {
        let d = <T::Mean as Element>::DTYPE;
        let mut x = as_rows(self, opts.rowvar, "cov")?;
        if let Some(y) = opts.y {
            crate::array::check_devices(&[&self.node, &y.node])?;
            let y = as_rows(y, opts.rowvar, "cov")?;
            x = Array::concat(&[&x, &y], 0)?;
        }
        let x: Array<T::Mean> = x.cast();
        let (nv, n) = (x.shape()[0], x.shape()[1]);
        if nv == 0 {
            return Array::zeros_like(&x).reshape(&[0, 0]);
        }
        let ddof = opts.ddof.unwrap_or(if opts.bias { 0 } else { 1 }) as f64;
        let f = opts
            .fweights
            .map(|w| weights(w, n, "fweights"))
            .transpose()?;
        let a = opts
            .aweights
            .map(|w| weights(w, n, "aweights"))
            .transpose()?;
        let w = match (&f, &a) {
            (Some(f), Some(a)) => Some(f.try_mul(a)?),
            (Some(f), None) => Some(f.clone()),
            (None, Some(a)) => Some(a.clone()),
            (None, None) => None,
        };
        let (xc, fact) = match &w {
            None => {
                let mean: Array<T::Mean> = x
                    .mean_axes_with(&[1], ReduceOpts::new().keepdims(true))?
                    .cast();
                (x.try_sub(&mean)?, n as f64 - ddof)
            }
            Some(w) => {
                let wsum = w.sum()?.item()?;
                let wd: Array<T::Mean> = w.cast();
                let num: Array<T::Mean> = x
                    .try_mul(&wd)?
                    .sum_axes_with(&[1], ReduceOpts::new().keepdims(true))?
                    .cast();
                let mean = Array::from_node(binary_node(
                    &num.node,
                    &konst(&num, wsum, d),
                    BinaryOp::Div,
                )?);
                let fact = match &a {
                    _ if ddof == 0.0 => wsum,
                    None => wsum - ddof,
                    Some(a) => wsum - ddof * w.try_mul(a)?.sum()?.item()? / wsum,
                };
                (x.try_sub(&mean)?, fact)
            }
        };
        // NumPy: no degrees of freedom left divides by zero (infinities and NaN).
        let fact = if fact <= 0.0 { 0.0 } else { fact };
        xc.eval()?;
        let xw = match &w {
            None => xc.clone(),
            Some(w) => xc.try_mul(w.cast::<T::Mean>())?,
        };
        let xt = xw.t();
        let xt = if d.is_complex() {
            Array::from_node(unary_node(&xt.node, UnaryOp::Conj))
        } else {
            xt
        };
        let c = xc.matmul(&xt)?;
        let c = Array::from_node(binary_node(&c.node, &konst(&c, fact, d), BinaryOp::Div)?);
        if nv == 1 {
            c.reshape(&[0usize; 0])
        } else {
            Ok(c)
        }
    }

    /// NumPy's `corrcoef` with `y` and `rowvar` (from `opts`; its other fields are ignored,
    /// as NumPy ignores `bias` and `ddof` here): the covariance matrix normalised by the
    /// standard deviations, real and imaginary parts clipped to `[-1, 1]`.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::Cov};
    /// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    /// let y = Array::from_slice(&[6.0f64, 4.0, 2.0], &[3])?;
    /// let r = x.corrcoef_with(&Cov::new().y(&y))?.to_vec()?;
    /// assert_eq!(r, [1.0, -1.0, -1.0, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn corrcoef_with(&self, opts: &Cov<'_, T>) -> Result<Array<T::Mean>>
    where
        T::Mean: Numeric,
    {
        let mut o = Cov::new().rowvar(opts.rowvar);
        if let Some(y) = opts.y {
            o = o.y(y);
        }
        let c = self.cov_with(&o)?;
        let d = <T::Mean as Element>::DTYPE;
        if c.ndim() == 0 {
            return Ok(Array::from_node(binary_node(
                &c.node,
                &c.node,
                BinaryOp::Div,
            )?));
        }
        c.eval()?;
        let v = c.shape()[0];
        let dg = c.diag()?.node;
        let re = if d.is_complex() {
            unary_node(&dg, UnaryOp::Real)
        } else {
            dg
        };
        let sd = cast_owned(unary_node(&re, UnaryOp::Sqrt), d);
        let sd = Array::<T::Mean>::from_node(sd);
        let r = binary_node(&c.node, &sd.reshape(&[v, 1])?.node, BinaryOp::Div)?;
        let r = binary_node(&r, &sd.reshape(&[1, v])?.node, BinaryOp::Div)?;
        let r = Array::<T::Mean>::from_node(r);
        let clip = |n: Arc<Node>, like: &Array<T::Mean>| -> Result<Arc<Node>> {
            let dn = n.dtype;
            let lo = binary_node(&n, &konst(like, -1.0, dn), BinaryOp::Max)?;
            binary_node(&lo, &konst(like, 1.0, dn), BinaryOp::Min)
        };
        if !d.is_complex() {
            return Ok(Array::from_node(clip(r.node.clone(), &r)?));
        }
        let re = cast_owned(clip(unary_node(&r.node, UnaryOp::Real), &r)?, d);
        let im = cast_owned(clip(unary_node(&r.node, UnaryOp::Imag), &r)?, d);
        let i = Array::<T::Mean>::full_like(
            &r,
            T::Mean::from_scalar(Scalar::C64(crate::dtype::c64::new(0.0, 1.0))),
        );
        let im = binary_node(&im, &i.node, BinaryOp::Mul)?;
        Ok(Array::from_node(binary_node(&re, &im, BinaryOp::Add)?))
    }
}
