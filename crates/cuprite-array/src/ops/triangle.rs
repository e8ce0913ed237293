//! Triangles and diagonals with an offset: `tri`, `tril`, `triu`, their index lists, `eye`
//! and `diag` with `k`, `diagonal`, `trace`.
//!
//! Masks are fused element-wise selects on an index comparison (one pass, no mask array);
//! offset diagonals are strided views of the input.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element, Numeric, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::TakeOpts;
use crate::shape::axis;

/// The lower-triangle mask of the last two axes of `shape` (at least two): each element's
/// column minus its row `<= k`, in `i64`. The coordinates are computed where the mask is used
/// (fused, no memory read), at the full shape: a coordinate node cannot be broadcast as a
/// view, and broadcasting one would realise the mask.
fn lower_mask(device: Device, shape: &[usize], k: i64) -> Result<Array<bool>> {
    crate::shape::checked_numel(shape)?;
    let nd = shape.len();
    let coord = |axis| {
        Array::<i64>::from_node(Node::new(
            Op::Iota(axis),
            DType::I64,
            shape.to_vec(),
            device,
        ))
    };
    Ok((&coord(nd - 1) - &coord(nd - 2)).less_equal(k))
}

fn one<T: Element>() -> T {
    T::from_scalar(Scalar::U64(1))
}

fn zero<T: Element>() -> T {
    T::from_scalar(Scalar::U64(0))
}

impl<T: Element> Array<T> {
    /// The `[n, m]` matrix of ones at and below diagonal `k`, zeros above (NumPy's `tri`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// assert_eq!(Array::<i32>::tri(2, 3, 0)?.to_vec()?, vec![1, 0, 0, 1, 1, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn tri(n: usize, m: usize, k: i64) -> Result<Array<T>> {
        Array::select(
            &lower_mask(crate::device::current_device(), &[n, m], k)?,
            one::<T>(),
            zero::<T>(),
        )
    }

    /// The `[n, m]` matrix with ones on diagonal `k` (above the main one for `k > 0`; NumPy's
    /// `eye(N, M, k)`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// assert_eq!(Array::<u8>::eye_k(2, 3, 1)?.to_vec()?, vec![0, 1, 0, 0, 0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn eye_k(n: usize, m: usize, k: i64) -> Result<Array<T>> {
        crate::shape::checked_numel(&[n, m])?;
        let r = Array::arange_len(n)?.reshape(&[n, 1])?;
        let c = Array::arange_len(m)?.reshape(&[1, m])?;
        Array::select(&(&c - &r).equal(k), one::<T>(), zero::<T>())
    }

    /// The lower triangle of the last two axes: elements above diagonal `k` zeroed (fused;
    /// NumPy's `tril`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = Array::from_slice(&[1i32, 2, 3, 4, 5, 6, 7, 8, 9], &[3, 3])?;
    /// assert_eq!(m.tril(0)?.to_vec()?, vec![1, 0, 0, 4, 5, 0, 7, 8, 9]);
    /// assert_eq!(m.tril(-1)?.to_vec()?, vec![0, 0, 0, 4, 0, 0, 7, 8, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn tril(&self, k: i64) -> Result<Array<T>> {
        self.two_axes("tril")?;
        Array::select(
            &lower_mask(self.device(), self.shape(), k)?,
            self,
            zero::<T>(),
        )
    }

    /// The upper triangle of the last two axes: elements below diagonal `k` zeroed (fused;
    /// NumPy's `triu`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(m.triu(0)?.to_vec()?, vec![1, 2, 0, 4]);
    /// assert_eq!(m.triu(1)?.to_vec()?, vec![0, 2, 0, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn triu(&self, k: i64) -> Result<Array<T>> {
        self.two_axes("triu")?;
        // Above or on diagonal `k`: not below diagonal `k - 1` (saturating: `k = i64::MIN`
        // keeps nothing below any diagonal a matrix has).
        Array::select(
            &lower_mask(self.device(), self.shape(), k.saturating_sub(1))?,
            zero::<T>(),
            self,
        )
    }

    /// `Err` unless the array has the two axes a triangle is taken in.
    fn two_axes(&self, what: &str) -> Result<()> {
        match self.shape() {
            [_, _, ..] => Ok(()),
            s => Err(Error::Shape(format!(
                "{what} needs at least 2 axes, got shape {s:?}"
            ))),
        }
    }

    /// Diagonal `k` of the plane of axes `(a, b)`, as the last axis of the result (a view;
    /// NumPy's `diagonal(offset, axis1, axis2)`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(m.diagonal(1, 0, 1)?.to_vec()?, vec![2, 6]);
    /// assert_eq!(m.diagonal(-1, 0, 1)?.to_vec()?, vec![4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn diagonal(&self, k: i64, a: isize, b: isize) -> Result<Array<T>> {
        let nd = self.ndim();
        let (a, b) = (axis(a, nd)?, axis(b, nd)?);
        if a == b {
            return Err(Error::Axis(format!(
                "diagonal needs two different axes, got {a} twice"
            )));
        }
        let mut p: Vec<usize> = (0..nd).filter(|&i| i != a && i != b).collect();
        p.extend([a, b]);
        let x = self.permute(&p)?;
        let (n, m) = (self.shape()[a] as i64, self.shape()[b] as i64);
        let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
        let len = (n - r0).min(m - c0).max(0) as usize;
        // Starts past the end (a diagonal outside the matrix) are clamped: the length is 0.
        let (r0, c0) = (r0.min(n), c0.min(m));
        let mut args = vec![crate::shape::SliceArg::from(..); nd];
        let rng = |s: i64| crate::shape::SliceArg::Range {
            start: Some(s as isize),
            end: Some((s + len as i64) as isize),
            step: 1,
        };
        args[nd - 2] = rng(r0);
        args[nd - 1] = rng(c0);
        let sq = x.slice(&args)?;
        // The square trailing block, flattened, read with a step of `len + 1`: its diagonal.
        let mut shape = sq.shape()[..nd - 2].to_vec();
        let sq_len = len
            .checked_mul(len)
            .ok_or_else(|| Error::Shape(format!("diagonal of length {len} overflows")))?;
        let mut flat_shape = shape.clone();
        flat_shape.push(sq_len);
        let flat = sq.reshape(&flat_shape)?;
        shape.push(len);
        if len == 0 {
            return flat.reshape(&shape);
        }
        let mut args = vec![crate::shape::SliceArg::from(..); nd - 1];
        args[nd - 2] = crate::shape::SliceArg::Range {
            start: Some(0),
            end: None,
            step: (len + 1) as isize,
        };
        flat.slice(&args)
    }

    /// For a 1-D array, the square matrix with it on diagonal `k`; for a 2-D array, its
    /// diagonal `k` (NumPy's `diag(v, k)`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let v = Array::from_slice(&[1i32, 2], &[2])?;
    /// assert_eq!(v.diag_k(1)?.to_vec()?, vec![0, 1, 0, 0, 0, 2, 0, 0, 0]);
    /// assert_eq!(v.diag_k(1)?.diag_k(1)?.to_vec()?, vec![1, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn diag_k(&self, k: i64) -> Result<Array<T>> {
        match self.ndim() {
            1 => {
                let n = self.len() + k.unsigned_abs() as usize;
                crate::shape::checked_numel(&[n, n])?;
                let coord = |axis| {
                    Array::<i64>::from_node(Node::new(
                        Op::Iota(axis),
                        DType::I64,
                        vec![n, n],
                        self.device(),
                    ))
                };
                let (r, c) = (coord(0), coord(1));
                let on = (&c - &r).equal(k);
                // Row r of the diagonal holds v[min(r, c)]: index by the smaller coordinate.
                let pos = Array::select(&r.less(&c), &r, &c)?;
                let last = self.len() as i64 - 1;
                let pos = pos.clamp(0i64, last.max(0));
                if self.is_empty() {
                    return Ok(crate::device::with_device(self.device(), || {
                        Array::zeros(&[n, n])
                    }));
                }
                let vals = self
                    .take_with(&pos.contiguous()?.flatten()?, TakeOpts::new().axis(0))?
                    .reshape(&[n, n])?;
                Array::select(&on, &vals, zero::<T>())
            }
            2 => self.diagonal(k, 0, 1),
            d => Err(Error::Shape(format!(
                "diag_k needs a 1-D or 2-D array, not {d}-D"
            ))),
        }
    }
}

impl<T: Numeric> Array<T> {
    /// The sum of diagonal `k` of the plane of axes `(0, 1)`, the other axes kept (NumPy's
    /// `trace(offset)`), in the sum dtype.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(m.trace(0)?.item()?, 5i64);
    /// assert_eq!(m.trace(1)?.item()?, 2i64);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn trace(&self, k: i64) -> Result<Array<T::Accum>> {
        self.diagonal(k, 0, 1)?.sum_axes(&[-1])
    }
}

/// Row and column indices of the lower triangle (at and below diagonal `k`) of an `[n, m]`
/// matrix, row by row (NumPy's `tril_indices`).
///
/// ```
/// use cuprite_array::ops::tril_indices;
/// let (r, c) = tril_indices(3, 0, 3)?;
/// assert_eq!(r.to_vec()?, vec![0, 1, 1, 2, 2, 2]);
/// assert_eq!(c.to_vec()?, vec![0, 0, 1, 0, 1, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn tril_indices(n: usize, k: i64, m: usize) -> Result<(Array<i64>, Array<i64>)> {
    let mask = lower_mask(crate::device::current_device(), &[n, m], k)?;
    let nz = mask.nonzero()?;
    Ok((nz[0].clone(), nz[1].clone()))
}

/// Row and column indices of the upper triangle (at and above diagonal `k`; NumPy's
/// `triu_indices`).
///
/// ```
/// use cuprite_array::ops::triu_indices;
/// let (r, c) = triu_indices(2, 0, 3)?;
/// assert_eq!(r.to_vec()?, vec![0, 0, 0, 1, 1]);
/// assert_eq!(c.to_vec()?, vec![0, 1, 2, 1, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn triu_indices(n: usize, k: i64, m: usize) -> Result<(Array<i64>, Array<i64>)> {
    let mask = lower_mask(
        crate::device::current_device(),
        &[n, m],
        k.saturating_sub(1),
    )?;
    let nz = mask.not_equal(true).nonzero()?;
    Ok((nz[0].clone(), nz[1].clone()))
}
