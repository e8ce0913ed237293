//! Element-wise NumPy routines that are operations of the table (each fuses into the lazy
//! graph): `frexp`, `ldexp`, `nextafter`, `modf`, `i0`, `gcd`, `lcm`, `bitwise_count`; the
//! compositions `float_power`, `iscomplex`, `isreal`; `real_if_close` (one reduction, then a
//! host decision) and `unwrap` (a difference, a fused correction and a cumulative sum).

use crate::array::{Array, cast_owned};
use crate::dtype::{ComplexElement, DType, Element, Float, Integer, Numeric, Ordered, c32, c64};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::elementwise::{binary_node, unary_node};
use crate::ops::numeric::c;
use crate::ops::{BinaryOp, UnaryOp};
use std::sync::Arc;

/// `a` in the type its floating-point routines compute in (`f64` for integers).
fn real_node<T: Element>(a: &Array<T>) -> Arc<Node> {
    cast_owned(a.node.clone(), <T::Mean as Element>::DTYPE)
}

/// The floating-point decompositions, also of integers (computed in `f64`, as NumPy casts them).
impl<T: Numeric + Ordered> Array<T>
where
    T::Mean: Float,
{
    /// `(mantissa, exponent)` with `self = mantissa * 2^exponent` and the mantissa's magnitude
    /// in `[0.5, 1)`; zero, infinities and NaN give themselves and exponent 0 (NumPy's `frexp`;
    /// two fused outputs).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[8.0f32, -0.75, 0.0], &[3])?;
    /// let (m, e) = a.frexp();
    /// assert_eq!(m.to_vec()?, vec![0.5, -0.75, 0.0]);
    /// assert_eq!(e.to_vec()?, vec![4, 0, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn frexp(&self) -> (Array<T::Mean>, Array<i32>) {
        let x = real_node(self);
        (
            Array::from_node(unary_node(&x, UnaryOp::FrexpMant)),
            Array::from_node(unary_node(&x, UnaryOp::FrexpExp)),
        )
    }

    /// `self * 2^exp`, rounded once (NumPy's `ldexp`; broadcasting, fused). The half types
    /// compute in `f32` and round once at the end.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = Array::from_slice(&[0.5f64, -0.75, 1.0], &[3])?;
    /// let e = Array::from_slice(&[4i32, 1, -1075], &[3])?;
    /// assert_eq!(m.ldexp(&e)?.to_vec()?, vec![8.0, -1.5, 0.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ldexp<I: Integer>(&self, exp: &Array<I>) -> Result<Array<T::Mean>> {
        // Exponents beyond ±2200 give 0 or ∞ for every finite value: clamped while integers,
        // then exact in the compute type.
        let e = if I::DTYPE.is_unsigned_int() {
            exp.cast::<u64>().minimum(2200u64).cast::<i64>()
        } else {
            exp.cast::<i64>().clamp(-2200i64, 2200i64)
        };
        let m = <T::Mean as Element>::DTYPE;
        let compute = if matches!(m, DType::F16 | DType::BF16) {
            DType::F32
        } else {
            m
        };
        let x = cast_owned(self.node.clone(), compute);
        let r = binary_node(&x, &cast_owned(e.node, compute), BinaryOp::Ldexp)?;
        Ok(Array::from_node(cast_owned(r, m)))
    }

    /// The next representable value after each element towards `to`, in this type's own
    /// precision (NumPy's `nextafter`; broadcasting, fused).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f32, 0.0], &[2])?;
    /// let b = Array::from_slice(&[2.0f32, -1.0], &[2])?;
    /// let n = a.nextafter(&b)?.to_vec()?;
    /// assert_eq!(n, vec![1.0 + f32::EPSILON, -f32::from_bits(1)]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nextafter(&self, to: &Array<T>) -> Result<Array<T::Mean>> {
        Ok(Array::from_node(binary_node(
            &real_node(self),
            &real_node(to),
            BinaryOp::Nextafter,
        )?))
    }

    /// `(fractional, integral)` parts, both with the sign of the element; infinities give
    /// `(±0, ±∞)` (NumPy's `modf`; two fused outputs).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[3.25f64, -2.5, f64::INFINITY], &[3])?;
    /// let (f, i) = a.modf();
    /// assert_eq!(f.to_vec()?, vec![0.25, -0.5, 0.0]);
    /// assert_eq!(i.to_vec()?, vec![3.0, -2.0, f64::INFINITY]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn modf(&self) -> (Array<T::Mean>, Array<T::Mean>) {
        let x = real_node(self);
        (
            Array::from_node(unary_node(&x, UnaryOp::ModfFrac)),
            Array::from_node(unary_node(&x, UnaryOp::Trunc)),
        )
    }

    /// The modified Bessel function of the first kind of order 0 (NumPy's `i0`; fused).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[0.0f64, 1.0], &[2])?;
    /// let v = a.i0().to_vec()?;
    /// assert_eq!(v[0], 1.0);
    /// assert!((v[1] - 1.2660658777520082).abs() < 1e-15);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn i0(&self) -> Array<T::Mean> {
        Array::from_node(unary_node(&real_node(self), UnaryOp::I0))
    }

    /// Whether the sign bit of each element is set: negative numbers and `-0.0` (NumPy's
    /// `signbit`; fused, one table operation). A NaN gives `false` whatever its sign bit: the
    /// sign of a NaN made by an invalid operation (`0/0`, `fmod(x, 0)`) is the hardware's (set
    /// on x86 CPUs, clear on GPUs), so reading it would make the backends disagree.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[-1.0f32, -0.0, 0.0, 2.0, -f32::NAN], &[5])?;
    /// assert_eq!(a.signbit().to_vec()?, vec![true, true, false, false, false]);
    /// assert_eq!(Array::from_slice(&[-3i8, 4], &[2])?.signbit().to_vec()?, vec![true, false]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn signbit(&self) -> Array<bool> {
        Array::from_node(unary_node(&real_node(self), UnaryOp::SignBit))
    }

    /// The magnitude of `self` with the sign bit of `sign` (fused, one table operation; NumPy's
    /// `copysign`, broadcasting; integers give `f64`). A NaN `sign` counts as positive, for the
    /// reason given at [`signbit`](Self::signbit).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1.0f64, -2.0, 3.0, 4.0], &[4])?;
    /// let s = Array::from_slice(&[-1.0f64, 1.0, -0.0, -f64::NAN], &[4])?;
    /// assert_eq!(a.copysign(&s)?.to_vec()?, vec![-1.0, 2.0, -3.0, 4.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn copysign(&self, sign: &Array<T>) -> Result<Array<T::Mean>> {
        Ok(Array::from_node(binary_node(
            &real_node(self),
            &real_node(sign),
            BinaryOp::Copysign,
        )?))
    }

    /// The phase unwrapped along `axis`: wherever consecutive elements jump by more than
    /// `discont` (default `period / 2`), multiples of `period` are added so that the jump is at
    /// most `period / 2` (NumPy's `unwrap` with `discont`, `axis` and `period`, `2π` there;
    /// integers compute in `f64`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let p = Array::from_slice(&[0.0f64, 3.0, 6.5, 0.5], &[4])?;
    /// let u = p.unwrap(None, -1, std::f64::consts::TAU)?.to_vec()?;
    /// let tau = std::f64::consts::TAU;
    /// assert_eq!(u, vec![0.0, 3.0, 6.5 - tau, 0.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn unwrap(&self, discont: Option<f64>, axis: isize, period: f64) -> Result<Array<T::Mean>> {
        let p: Array<T::Mean> = self.cast();
        p.unwrap_real(discont, axis, period)
    }
}

impl<T: Float> Array<T> {
    fn unwrap_real(&self, discont: Option<f64>, axis: isize, period: f64) -> Result<Array<T>> {
        let ax = crate::shape::axis(axis, self.ndim())?;
        if !(period.is_finite() && period > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "unwrap needs a finite positive period, not {period}"
            )));
        }
        if self.shape()[ax] < 2 {
            return Ok(self.clone());
        }
        let high = period / 2.0;
        let discont = discont.unwrap_or(high);
        let dd = self.diff(1, axis)?;
        let ddmod = dd.try_add(c::<T>(high))?.rem(c::<T>(period)) - c::<T>(high);
        // A jump of exactly half a period keeps its own sign.
        let tie = ddmod.equal(c::<T>(-high)).and(dd.greater(c::<T>(0.0)));
        let ddmod = Array::select(&tie, c::<T>(high), &ddmod)?;
        let small = dd.abs().less(c::<T>(discont));
        let fix = Array::select(&small, c::<T>(0.0), &ddmod.try_sub(&dd)?)?;
        let cs: Array<T> = fix.cumsum(axis)?.cast();
        let mut widths = vec![(0usize, 0usize); self.ndim()];
        widths[ax] = (1, 0);
        self.try_add(&cs.pad(&widths, c::<T>(0.0))?)
    }
}

impl<T: Integer> Array<T> {
    /// The greatest common divisor of the absolute values (NumPy's `gcd`; `gcd(0, 0) = 0`;
    /// broadcasting, fused; computed in 64 bits, wrapped to the type as NumPy's `MIN` is).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[12i32, -18, 0], &[3])?;
    /// let b = Array::from_slice(&[18i32, 12, 5], &[3])?;
    /// assert_eq!(a.gcd(&b)?.to_vec()?, vec![6, 6, 5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn gcd(&self, rhs: &Array<T>) -> Result<Array<T>> {
        Ok(Array::from_node(binary_node(
            &self.node,
            &rhs.node,
            BinaryOp::Gcd,
        )?))
    }

    /// The least common multiple of the absolute values (NumPy's `lcm`; 0 when either is 0;
    /// broadcasting, fused; wraps on overflow, as NumPy does).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[4u8, 6, 0], &[3])?;
    /// let b = Array::from_slice(&[6u8, 10, 3], &[3])?;
    /// assert_eq!(a.lcm(&b)?.to_vec()?, vec![12, 30, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn lcm(&self, rhs: &Array<T>) -> Result<Array<T>> {
        Ok(Array::from_node(binary_node(
            &self.node,
            &rhs.node,
            BinaryOp::Lcm,
        )?))
    }

    /// The number of 1 bits in the absolute value of each element, as `u8` (NumPy's
    /// `bitwise_count`; fused).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[7i16, -8, 0, i16::MIN], &[4])?;
    /// assert_eq!(a.bitwise_count().to_vec()?, vec![3u8, 1, 0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn bitwise_count(&self) -> Array<u8> {
        Array::from_node(unary_node(&self.node, UnaryOp::BitCount))
    }
}

impl<T: Ordered> Array<T> {
    /// `self ** rhs` computed in `f64` whatever the input type (NumPy's `float_power`;
    /// broadcasting, fused). Complex arrays have their own `float_power`, in `c64`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[2i32, 10, -8], &[3])?;
    /// let b = Array::from_slice(&[-1i32, 20, 2], &[3])?;
    /// assert_eq!(a.float_power(&b)?.to_vec()?, vec![0.5, 1e20, 64.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn float_power(&self, rhs: &Array<T>) -> Result<Array<f64>> {
        let a = cast_owned(self.node.clone(), DType::F64);
        let b = cast_owned(rhs.node.clone(), DType::F64);
        Ok(Array::from_node(binary_node(&a, &b, BinaryOp::Pow)?))
    }
}

/// `a ** b` of complex numbers in `c64`: `exp(b log a)`, with NumPy's special cases
/// (`b == 0` gives 1; `a == 0` gives 0 for a positive real `b`, NaN otherwise).
fn complex_power(a: &Array<c64>, b: &Array<c64>) -> Result<Array<c64>> {
    let one = c64::new(1.0, 0.0);
    let zero = c64::new(0.0, 0.0);
    let nan = c64::new(f64::NAN, f64::NAN);
    let general = b.try_mul(a.log())?.exp();
    let (br, bi) = (b.real(), b.imag());
    let a0 = a.equal(zero);
    let b0 = b.equal(zero);
    let at_zero = Array::select(&br.greater(0.0).and(bi.equal(0.0)), zero, nan)?;
    let r = Array::select(&a0, &at_zero, &general)?;
    Array::select(&b0, one, &r)
}

macro_rules! complex_routines {
    ($C:ty) => {
        impl Array<$C> {
            /// `self ** rhs` computed in `c64` (NumPy's `float_power` of complex arrays, with
            /// its special cases: `x ** 0 = 1`, `0 ** b = 0` for a positive real `b`, NaN
            /// for other `b`; broadcasting, fused).
            ///
            /// ```
            /// use cuprite_array::{Array, c32, c64};
            #[doc = concat!("let a = Array::from_slice(&[", stringify!($C), "::new(0.0, 1.0)], &[1])?;")]
            #[doc = concat!("let b = Array::from_slice(&[", stringify!($C), "::new(2.0, 0.0)], &[1])?;")]
            /// let r = a.float_power(&b)?.to_vec()?;
            /// assert!((r[0].re + 1.0).abs() < 1e-15 && r[0].im.abs() < 1e-15);
            /// # Ok::<(), cuprite_array::Error>(())
            /// ```
            pub fn float_power(&self, rhs: &Array<$C>) -> Result<Array<c64>> {
                complex_power(&self.cast(), &rhs.cast())
            }

            /// The real parts when every imaginary part is below `tol` in magnitude
            /// (`tol > 1` counts machine epsilons of the part type, as NumPy's default
            /// `tol = 100`); else the array unchanged (NumPy's `real_if_close`; one reduction
            /// and a host decision).
            ///
            /// ```
            /// use cuprite_array::{Array, RealIfClose};
            #[doc = concat!("use cuprite_array::", stringify!($C), ";")]
            #[doc = concat!("let a = Array::from_slice(&[", stringify!($C), "::new(2.0, 1e-20)], &[1])?;")]
            /// match a.real_if_close(100.0)? {
            ///     RealIfClose::Real(r) => assert_eq!(r.to_vec()?, vec![2.0]),
            ///     RealIfClose::Complex(_) => unreachable!(),
            /// }
            /// # Ok::<(), cuprite_array::Error>(())
            /// ```
            pub fn real_if_close(&self, tol: f64) -> Result<RealIfClose<$C>> {
                let eps = if <$C as Element>::DTYPE == DType::C32 {
                    f32::EPSILON as f64
                } else {
                    f64::EPSILON
                };
                if tol.is_nan() {
                    return Err(Error::InvalidArgument(
                        "real_if_close needs a tolerance, not NaN".into(),
                    ));
                }
                let tol = if tol > 1.0 { tol * eps } else { tol };
                let im = self.imag().abs();
                let t = <<$C as ComplexElement>::Real as Element>::from_scalar(
                    crate::dtype::Scalar::F64(tol),
                );
                if im.less(t).all()?.item()? {
                    Ok(RealIfClose::Real(self.real()))
                } else {
                    Ok(RealIfClose::Complex(self.clone()))
                }
            }
        }
    };
}
complex_routines!(c32);
complex_routines!(c64);

/// What [`Array::real_if_close`] returns: the real parts, or the complex array unchanged.
#[derive(Clone, Debug)]
pub enum RealIfClose<C: ComplexElement> {
    /// Every imaginary part was within the tolerance: the real parts.
    Real(Array<C::Real>),
    /// Some imaginary part was not: the input.
    Complex(Array<C>),
}

impl<T: Element> Array<T> {
    /// Whether each element has a nonzero imaginary part (`false` everywhere for real types;
    /// NumPy's `iscomplex`; fused).
    ///
    /// ```
    /// use cuprite_array::{Array, c32};
    /// let a = Array::from_slice(&[c32::new(1.0, 0.0), c32::new(1.0, 2.0)], &[2])?;
    /// assert_eq!(a.iscomplex().to_vec()?, vec![false, true]);
    /// assert_eq!(Array::from_slice(&[1.0f32], &[1])?.iscomplex().to_vec()?, vec![false]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn iscomplex(&self) -> Array<bool> {
        if T::DTYPE.is_complex() {
            let im = unary_node(&self.node, UnaryOp::Imag);
            let zero = cast_owned(Array::<f64>::full_like(self, 0.0).node, im.dtype);
            Array::from_node(binary_node(&im, &zero, BinaryOp::Ne).expect("one shape"))
        } else {
            Array::<bool>::full_like(self, false)
        }
    }

    /// Whether each element has a zero imaginary part (`true` everywhere for real types;
    /// NumPy's `isreal`; fused).
    ///
    /// ```
    /// use cuprite_array::{Array, c64};
    /// let a = Array::from_slice(&[c64::new(1.0, 0.0), c64::new(1.0, 2.0)], &[2])?;
    /// assert_eq!(a.isreal().to_vec()?, vec![true, false]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn isreal(&self) -> Array<bool> {
        !&self.iscomplex()
    }
}

impl<T: Numeric> Array<T> {
    /// Rounds to `decimals` decimal places, halves to even (NumPy's `round`/`around`: `x *
    /// 10^d`, rounded, divided back; negative `decimals` round to tens, hundreds, ...).
    /// Integers compute in `f64` and come back to their type (unchanged for `decimals >= 0`);
    /// complex numbers round both parts (fused).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[0.5f64, 1.5, 2.5, 1.234, -0.125], &[5])?;
    /// assert_eq!(a.around(0).to_vec()?, [0.0, 2.0, 2.0, 1.0, -0.0]);
    /// assert_eq!(a.around(2).to_vec()?, [0.5, 1.5, 2.5, 1.23, -0.12]);
    /// let i = Array::from_slice(&[15i32, 25, -35, 123], &[4])?;
    /// assert_eq!(i.around(-1).to_vec()?, [20, 20, -40, 120]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use]
    pub fn around(&self, decimals: i32) -> Array<T> {
        let d = T::DTYPE;
        if d.is_int() && decimals >= 0 {
            return self.clone();
        }
        let cd = if d.is_int() { DType::F64 } else { d };
        let f = 10f64.powi(decimals.unsigned_abs() as i32);
        let (op1, op2) = if decimals >= 0 {
            (BinaryOp::Mul, BinaryOp::Div)
        } else {
            (BinaryOp::Div, BinaryOp::Mul)
        };
        let k = cast_owned(Array::<f64>::full_like(self, f).node, cd);
        let x = cast_owned(self.node.clone(), cd);
        let y = binary_node(&x, &k, op1).expect("one shape");
        let r = if cd.is_complex() {
            let re = cast_owned(
                unary_node(&unary_node(&y, UnaryOp::Real), UnaryOp::Round),
                cd,
            );
            let im = cast_owned(
                unary_node(&unary_node(&y, UnaryOp::Imag), UnaryOp::Round),
                cd,
            );
            let i = cast_owned(Array::<c64>::full_like(self, c64::new(0.0, 1.0)).node, cd);
            let im = binary_node(&im, &i, BinaryOp::Mul).expect("one shape");
            binary_node(&re, &im, BinaryOp::Add).expect("one shape")
        } else {
            unary_node(&y, UnaryOp::Round)
        };
        let r = binary_node(&r, &k, op2).expect("one shape");
        Array::from_node(cast_owned(r, d))
    }
}
