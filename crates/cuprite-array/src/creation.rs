//! Creation functions: ranges, identity and diagonal matrices, random arrays, and the `*_like`
//! constants.
//!
//! # Which constructors return `Result`
//!
//! One rule: a constructor returns `Result` exactly when it checks its arguments or touches a
//! device before returning. The lazy constants — [`Array::zeros`], [`Array::ones`],
//! [`Array::full`], [`Array::scalar`] and their `*_like` forms — check nothing and allocate
//! nothing, so they return the array; a shape too large for memory is an `Err` when the array
//! is evaluated. [`Array::arange`] (a zero step), [`Array::eye`] and the `rand_*` constructors
//! (a shape whose element count overflows), [`Array::linspace`] (evaluated at once so that
//! its last value is exact) and `from_slice` (a length that does not match the shape) return
//! `Result`.

use crate::array::{Array, generated, rand_node};
use crate::dtype::{Element, Float, Numeric, Ordered, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Dist, Op, ViewFn, push_view};
use crate::shape::Layout;

struct Diagonal;
impl ViewFn for Diagonal {
    fn layout(&self, l: &Layout) -> Option<Layout> {
        Some(Layout {
            offset: l.offset,
            strides: [l.strides[0] + l.strides[1]][..].into(),
        })
    }
}

impl Array<i64> {
    /// `0, 1, ..., n-1` as `i64`.
    pub(crate) fn arange_len(n: usize) -> Result<Array<i64>> {
        generated(Op::Iota(0), &[n])
    }
}

impl<T: Numeric + Ordered> Array<T> {
    /// `start, start + step, ...` up to (not including) `stop`; a zero step is an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// assert_eq!(Array::arange(1i32, 8, 3)?.to_vec()?, vec![1, 4, 7]);
    /// assert_eq!(Array::arange(0.0f32, 1.0, 0.25)?.len(), 4);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn arange(start: T, stop: T, step: T) -> Result<Array<T>> {
        let (a, b, s) = (
            start.to_scalar().to_f64_lossy(),
            stop.to_scalar().to_f64_lossy(),
            step.to_scalar().to_f64_lossy(),
        );
        if s == 0.0 || s.is_nan() || a.is_nan() || b.is_nan() {
            return Err(Error::InvalidArgument(format!(
                "arange({a}, {b}, {s}): a zero or NaN step, or a NaN bound"
            )));
        }
        let count = ((b - a) / s).ceil().max(0.0);
        if !count.is_finite() || count > (isize::MAX as usize / 16) as f64 {
            return Err(Error::InvalidArgument(format!(
                "arange({a}, {b}, {s}) would have {count} elements"
            )));
        }
        let n = count as usize;
        let i: Array<T> = Array::arange_len(n)?.cast();
        let r = &i * step + start;
        r.eval()?;
        Ok(r)
    }
}

impl<T: Float + Numeric + Ordered> Array<T> {
    /// `n` evenly spaced values from `start` to `stop` inclusive.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// assert_eq!(Array::linspace(0.0f64, 1.0, 5)?.to_vec()?, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn linspace(start: T, stop: T, n: usize) -> Result<Array<T>> {
        let (a, b) = (
            start.to_scalar().to_f64_lossy(),
            stop.to_scalar().to_f64_lossy(),
        );
        let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
        let i: Array<T> = Array::arange_len(n)?.cast();
        let r = &i * T::from_scalar(Scalar::F64(step)) + start;
        // The last value exactly `stop` (NumPy: a single value is `start`).
        let r = if n > 1 {
            let last = Array::arange_len(n)?.equal((n as i64) - 1);
            Array::select(&last, stop, &r)?
        } else {
            r
        };
        r.eval()?;
        Ok(r)
    }

    /// Uniform random numbers in `[0, 1)` from the Philox generator with `seed`: the same
    /// numbers on every backend.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<f32>::rand_uniform(&[1000], 42)?;
    /// let b = Array::<f32>::rand_uniform(&[1000], 42)?;
    /// assert_eq!(a.to_vec()?, b.to_vec()?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rand_uniform(shape: &[usize], seed: u64) -> Result<Array<T>> {
        rand_node(shape, seed, Dist::Uniform)
    }

    /// Standard normal random numbers (Box–Muller on Philox) with `seed`.
    pub fn rand_normal(shape: &[usize], seed: u64) -> Result<Array<T>> {
        rand_node(shape, seed, Dist::Normal)
    }
}

impl<T: Element> Array<T> {
    /// Zeros of `like`'s shape, on `like`'s device (NumPy's `zeros_like`; lazy, cannot fail).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.5f32, 2.5, 3.5], &[3])?;
    /// assert_eq!(Array::<f32>::zeros_like(&a).to_vec()?, [0.0; 3]);
    /// assert_eq!(Array::<f32>::ones_like(&a).to_vec()?, [1.0; 3]);
    /// assert_eq!(Array::full_like(&a, 7.0).to_vec()?, [7.0; 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn zeros_like<U: Element>(like: &Array<U>) -> Array<T> {
        crate::device::with_device(like.device(), || Array::zeros(like.shape()))
    }

    /// Ones of `like`'s shape, on `like`'s device (NumPy's `ones_like`; lazy, cannot fail).
    #[must_use]
    pub fn ones_like<U: Element>(like: &Array<U>) -> Array<T> {
        crate::device::with_device(like.device(), || Array::ones(like.shape()))
    }

    /// `value` in `like`'s shape, on `like`'s device (NumPy's `full_like`; lazy, cannot fail).
    #[must_use]
    pub fn full_like<U: Element>(like: &Array<U>, value: T) -> Array<T> {
        crate::device::with_device(like.device(), || Array::full(like.shape(), value))
    }

    /// The `n x n` identity matrix.
    pub fn eye(n: usize) -> Result<Array<T>> {
        // n × n must fit before anything (the range itself) is made.
        crate::shape::checked_numel(&[n, n])?;
        let i = Array::arange_len(n)?;
        let eq = i.reshape(&[n, 1])?.equal(i.reshape(&[1, n])?);
        Array::select(
            &eq,
            T::from_scalar(Scalar::U64(1)),
            T::from_scalar(Scalar::U64(0)),
        )
    }

    /// For a 1-D array, the square matrix with it on the diagonal; for a 2-D array, its main
    /// diagonal (a view).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(m.diag()?.to_vec()?, vec![1, 4]);
    /// assert_eq!(m.diag()?.diag()?.to_vec()?, vec![1, 0, 0, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn diag(&self) -> Result<Array<T>> {
        match self.ndim() {
            1 => {
                let n = self.len();
                let i = Array::arange_len(n)?;
                let eq = i.reshape(&[n, 1])?.equal(i.reshape(&[1, n])?);
                let row = self.reshape(&[1, n])?;
                Array::select(&eq, &row, T::from_scalar(Scalar::U64(0)))
            }
            2 => {
                let n = self.shape()[0].min(self.shape()[1]);
                if let Some(m) = push_view(&self.node, &[n], &Diagonal) {
                    return Ok(Array::from_node(m));
                }
                self.contiguous()?.diag()
            }
            d => Err(Error::Shape(format!(
                "diag needs a 1-D or 2-D array, not {d}-D"
            ))),
        }
    }
}
