//! Element-wise NumPy routines composed from the operation table (each fuses into the lazy
//! graph as one kernel): `isclose`, `signbit`, `copysign`, `floor_divide`, `divmod`,
//! `logaddexp`, `logaddexp2`, `sinc`, `heaviside`, `isposinf`, `isneginf`; and the checks
//! `allclose`, `array_equal`, `array_equiv` that reduce them.

use crate::array::Array;
use crate::dtype::{Element, Float, Numeric, Ordered, Scalar, Transcendental};
use crate::error::Result;
use crate::ops::CloseOpts;
use crate::ops::UnaryOp;
use crate::ops::elementwise::unary_node;

pub(crate) fn c<T: Element>(x: f64) -> T {
    T::from_scalar(Scalar::F64(x))
}

impl<T: Float> Array<T> {
    /// Whether `|self - other| <= atol + rtol * |other|` element-wise, infinities equal only to
    /// themselves, NaNs equal to each other with [`CloseOpts::equal_nan`] (fused; NumPy's `isclose`, whose
    /// defaults are `rtol = 1e-5`, `atol = 1e-8`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// use cuprite_array::ops::CloseOpts;
    /// let a = Array::from_slice(&[1.0f64, 1.0, f64::INFINITY, f64::NAN], &[4])?;
    /// let b = Array::from_slice(&[1.0 + 1e-9, 1.1, f64::INFINITY, f64::NAN], &[4])?;
    /// assert_eq!(a.isclose_with(&b, CloseOpts::new().equal_nan(true))?.to_vec()?, vec![true, false, true, true]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn isclose(&self, other: &Array<T>) -> Result<Array<bool>> {
        self.isclose_with(other, CloseOpts::new())
    }
    /// [`isclose`](Self::isclose) with the tolerances and NaN rule of [`CloseOpts`].
    pub fn isclose_with(&self, other: &Array<T>, opts: CloseOpts) -> Result<Array<bool>> {
        let CloseOpts {
            rtol,
            atol,
            equal_nan,
        } = opts;
        let (a, b) = (self.cast::<f64>(), other.cast::<f64>());
        let diff = a.try_sub(&b)?.abs();
        let tol = b.abs() * rtol + atol;
        let finite = a.isfinite().and(b.isfinite());
        let close = Array::select(&finite, diff.less_equal(&tol), a.equal(&b))?;
        if equal_nan {
            Ok(close.or(a.isnan().and(b.isnan())))
        } else {
            Ok(close)
        }
    }

    /// Whether every pair is [`isclose`](Self::isclose) (NumPy's `allclose`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// assert!(a.allclose(&(&a + 1e-7f32))?);
    /// assert!(!a.allclose(&(&a + 1.0f32))?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn allclose(&self, other: &Array<T>) -> Result<bool> {
        self.allclose_with(other, CloseOpts::new())
    }
    /// [`allclose`](Self::allclose) with the tolerances and NaN rule of [`CloseOpts`].
    pub fn allclose_with(&self, other: &Array<T>, opts: CloseOpts) -> Result<bool> {
        self.isclose_with(other, opts)?.all()?.item()
    }

    /// Whether each element is +∞ (NumPy's `isposinf`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[f32::INFINITY, -f32::INFINITY], &[2])?;
    /// assert_eq!(a.isposinf().to_vec()?, vec![true, false]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn isposinf(&self) -> Array<bool> {
        self.equal(c::<T>(f64::INFINITY))
    }

    /// Whether each element is −∞ (NumPy's `isneginf`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[f32::INFINITY, -f32::INFINITY], &[2])?;
    /// assert_eq!(a.isneginf().to_vec()?, vec![false, true]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn isneginf(&self) -> Array<bool> {
        self.equal(c::<T>(f64::NEG_INFINITY))
    }

    /// `sin(πx) / (πx)`, 1 at 0 (NumPy's normalised `sinc`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[0.0f64, 0.5, 1.0], &[3])?;
    /// let s = a.sinc()?.to_vec()?;
    /// assert_eq!(s[0], 1.0);
    /// assert!((s[1] - 2.0 / std::f64::consts::PI).abs() < 1e-15);
    /// assert!(s[2].abs() < 1e-15);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sinc(&self) -> Result<Array<T>> {
        let px = self * c::<T>(std::f64::consts::PI);
        let zero = self.equal(c::<T>(0.0));
        // A zero denominator is replaced by 1 before dividing, so no NaN is made to be dropped.
        let den = Array::select(&zero, c::<T>(1.0), &px)?;
        let q = px.sin().try_div(&den)?;
        Array::select(&zero, c::<T>(1.0), &q)
    }

    /// 0 for negative, `h0` for zero and 1 for positive elements; NaN stays NaN (NumPy's
    /// `heaviside`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[-2.0f32, 0.0, 3.0], &[3])?;
    /// assert_eq!(a.heaviside(0.5)?.to_vec()?, vec![0.0, 0.5, 1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn heaviside(&self, h0: T) -> Result<Array<T>> {
        let pos = Array::select(&self.greater(c::<T>(0.0)), c::<T>(1.0), self)?;
        let z = Array::select(&self.equal(c::<T>(0.0)), h0, &pos)?;
        Array::select(&self.less(c::<T>(0.0)), c::<T>(0.0), &z)
    }
}

impl<T: Float + Transcendental> Array<T> {
    /// `log(exp(self) + exp(other))` without overflow (fused; NumPy's `logaddexp`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1000.0f64, 0.0], &[2])?;
    /// let b = Array::from_slice(&[1000.0f64, 0.0], &[2])?;
    /// let r = a.logaddexp(&b)?.to_vec()?;
    /// assert!((r[0] - (1000.0 + 2f64.ln())).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn logaddexp(&self, other: &Array<T>) -> Result<Array<T>> {
        let m = self.maximum(other);
        let d = self.try_sub(other)?.abs();
        let r = m.try_add(
            (Array::<T>::full_like(&d, c::<T>(0.0)).try_sub(&d)?)
                .exp()
                .log1p(),
        )?;
        // Equal operands (±∞ included, where the difference is NaN): x + ln 2.
        Array::select(
            &self.equal(other),
            &(self + c::<T>(std::f64::consts::LN_2)),
            &r,
        )
    }

    /// `log2(2^self + 2^other)` without overflow (fused; NumPy's `logaddexp2`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[3.0f64], &[1])?;
    /// let b = Array::from_slice(&[3.0f64], &[1])?;
    /// assert_eq!(a.logaddexp2(&b)?.to_vec()?, vec![4.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn logaddexp2(&self, other: &Array<T>) -> Result<Array<T>> {
        let m = self.maximum(other);
        let d = self.try_sub(other)?.abs();
        let t = Array::<T>::full_like(&d, c::<T>(0.0))
            .try_sub(&d)?
            .exp2()
            .log1p();
        let r = m.try_add(&(t * c::<T>(std::f64::consts::LOG2_E)))?;
        Array::select(&self.equal(other), &(self + c::<T>(1.0)), &r)
    }
}

impl<T: Numeric + Ordered> Array<T> {
    /// The floor of `self / rhs` (NumPy's `floor_divide`, `//`): integers round toward −∞
    /// (`-7 // 2 == -4`; division by zero gives 0); floats follow NumPy's exact rule from the
    /// remainder (`1.0 // 0.1 == 9.0`). Fused.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[-7i32, 7, 7], &[3])?;
    /// let b = Array::from_slice(&[2i32, -2, 2], &[3])?;
    /// assert_eq!(a.floor_divide(&b)?.to_vec()?, vec![-4, -4, 3]);
    /// let x = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(x.floor_divide(&Array::from_slice(&[0.1f64], &[1])?)?.to_vec()?, vec![9.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn floor_divide(&self, rhs: &Array<T>) -> Result<Array<T>> {
        Ok(self.divmod(rhs)?.0)
    }

    /// `(floor_divide, remainder)`, the remainder taking the sign of `rhs` (NumPy's `divmod`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[-7i64, 7], &[2])?;
    /// let b = Array::from_slice(&[2i64, -2], &[2])?;
    /// let (q, r) = a.divmod(&b)?;
    /// assert_eq!(q.to_vec()?, vec![-4, -4]);
    /// assert_eq!(r.to_vec()?, vec![1, -1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn divmod(&self, rhs: &Array<T>) -> Result<(Array<T>, Array<T>)> {
        let zero = c::<T>(0.0);
        // Truncated remainder (C's fmod), then moved to the divisor's sign.
        let m = self.rem(rhs);
        let fix = m.not_equal(zero).and(m.less(zero).xor(rhs.less(zero)));
        let m2 = Array::select(&fix, &m.try_add(rhs)?, &m)?;
        if !T::DTYPE.is_float() {
            let q = self.try_div(rhs)?;
            let q = Array::select(&fix, &(&q - c::<T>(1.0)), &q)?;
            return Ok((q, m2));
        }
        // NumPy's float rule: div = (a - fmod(a, b)) / b, less 1 when the remainder moved,
        // rounded to the nearest whole number; b == 0 gives a / b.
        let div = self.try_sub(&m)?.try_div(rhs)?;
        let div = Array::select(&fix, &(&div - c::<T>(1.0)), &div)?;
        let fl = Array::<T>::from_node(unary_node(&div.node, UnaryOp::Floor));
        let up = div.try_sub(&fl)?.greater(c::<T>(0.5));
        let q = Array::select(&up, &(&fl + c::<T>(1.0)), &fl)?;
        let q = Array::select(&div.equal(zero), &self.try_div(rhs)?.try_mul(zero)?, &q)?;
        let q = Array::select(&rhs.equal(zero), &self.try_div(rhs)?, &q)?;
        let m2 = Array::select(&rhs.equal(zero), &m, &m2)?;
        Ok((q, m2))
    }
}

impl<T: Element> Array<T> {
    /// Whether `self` and `other` have one shape and equal elements (NumPy's `array_equal`;
    /// NaN is unequal to itself).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2], &[2])?;
    /// assert!(a.array_equal(&a)?);
    /// assert!(!a.array_equal(&a.reshape(&[1, 2])?)?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn array_equal(&self, other: &Array<T>) -> Result<bool> {
        if self.shape() != other.shape() {
            return Ok(false);
        }
        self.equal(other).all()?.item()
    }

    /// Whether `self` and `other` broadcast together with equal elements (NumPy's
    /// `array_equiv`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2, 1, 2], &[2, 2])?;
    /// assert!(a.array_equiv(&Array::from_slice(&[1i32, 2], &[2])?)?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn array_equiv(&self, other: &Array<T>) -> Result<bool> {
        if crate::shape::broadcast_shapes(self.shape(), other.shape()).is_err() {
            return Ok(false);
        }
        self.equal(other).all()?.item()
    }
}
