//! Element-wise methods and Rust operators on [`Array`]: they only build graph nodes.
//!
//! Operators and the binary methods (`+ - * / % & | ^ << >>`, comparisons, `minimum`, `pow`,
//! ...) panic on a shape mismatch or on operands of two devices, with a message naming both
//! shapes (as ndarray does), at the caller's line (`#[track_caller]`). Each has a `try_*` form
//! that returns the same condition as an `Err`: `try_add`, `try_rem`, `try_less`,
//! `try_bitand`, `try_shl`, ...

use crate::array::{Array, Operand, cast_owned, check_devices, expand, finish};
use crate::dtype::{
    Bits, ComplexElement, DType, Element, Float, Integer, Numeric, Ordered, Promote, Signed,
    Transcendental, bf16, c32, c64, f16,
};
use crate::error::{Error, Result};
use crate::graph::{Epilogue, Node, Op};
use crate::ops::{BinaryOp, UnaryOp};
use crate::shape::broadcast_dims;
use std::ops;
use std::sync::Arc;

pub(crate) fn unary_node(a: &Arc<Node>, op: UnaryOp) -> Arc<Node> {
    let d = op
        .result(a.dtype)
        .unwrap_or_else(|| panic!("{op:?} is not defined for {}", a.dtype));
    // A library call that can fold `op` into itself (an epilogue) makes one call node.
    if a.has_library() && !a.is_leaf() && d == a.dtype {
        if let Op::Library(call, inputs) = a.op() {
            if let Some(fused) = call.absorb_unary(op) {
                return Node::new(Op::Library(fused, inputs), d, a.shape.clone(), a.device);
            }
        }
    }
    finish(Node::new(
        Op::Unary(op, a.clone()),
        d,
        a.shape.clone(),
        a.device,
    ))
}

/// Builds `op(a, b)` with broadcasting and promotion.
pub(crate) fn binary_node(a: &Arc<Node>, b: &Arc<Node>, op: BinaryOp) -> Result<Arc<Node>> {
    binary_node_owned(a, b.clone(), op)
}

/// [`binary_node`] taking `b` (no reference count touched when it needs no broadcast or cast).
fn binary_node_owned(a: &Arc<Node>, b: Arc<Node>, op: BinaryOp) -> Result<Arc<Node>> {
    check_devices(&[a, &b])?;
    let shape = broadcast_dims(&a.shape, &b.shape).map_err(|_| {
        Error::Shape(format!(
            "operands of shapes {:?} and {:?} cannot be broadcast together ({op:?})",
            a.shape, b.shape
        ))
    })?;
    // `product + bias`, `product * scale`, `product ± matrix`: folded into the product's call
    // where it can.
    if matches!(op, BinaryOp::Add | BinaryOp::Mul | BinaryOp::Sub) {
        if let Some(n) = absorb_into_call(a, &b, op, &shape) {
            return Ok(n);
        }
    }
    let d = DType::promote(a.dtype, b.dtype);
    let out = op
        .result(d)
        .ok_or_else(|| Error::InvalidArgument(format!("{op:?} is not defined for {d}")))?;
    let a = cast_owned(expand(a, &shape), d);
    let b = cast_owned(
        if b.shape == shape {
            b
        } else {
            expand(&b, &shape)
        },
        d,
    );
    let dev = a.device;
    Ok(finish(Node::new(Op::Binary(op, a, b), out, shape, dev)))
}

/// `op(a, b)` as one library call node, when one operand is an unevaluated call of the result
/// shape that can absorb the other (a GEMM's bias, scale or addend).
fn absorb_into_call(
    a: &Arc<Node>,
    b: &Arc<Node>,
    op: BinaryOp,
    shape: &[usize],
) -> Option<Arc<Node>> {
    let pending = |n: &Arc<Node>| n.has_library() && !n.is_leaf() && n.shape == shape;
    let (lib, other, call_first) = if pending(a) {
        (a, b, true)
    } else if pending(b) {
        (b, a, false)
    } else {
        return None;
    };
    if other.dtype != lib.dtype {
        return None;
    }
    let Op::Library(call, inputs) = lib.op() else {
        return None;
    };
    let e = match op {
        BinaryOp::Add => Epilogue::Add(other),
        BinaryOp::Mul => Epilogue::Scale(other.is_const()?),
        BinaryOp::Sub => Epilogue::Sub { other, call_first },
        _ => return None,
    };
    let (call, inputs) = call.absorb_epilogue(e, &inputs)?;
    Some(Node::new(
        Op::Library(call, inputs),
        lib.dtype,
        lib.shape.clone(),
        lib.device,
    ))
}

#[track_caller]
fn bin<T: Element, U: Element>(a: &Arc<Node>, b: Arc<Node>, op: BinaryOp) -> Array<U> {
    let _ = std::marker::PhantomData::<T>;
    match binary_node_owned(a, b, op) {
        Ok(n) => Array::from_node(n),
        Err(e) => panic!("{e}"),
    }
}

impl<T: Element> Array<T> {
    fn un<U: Element>(&self, op: UnaryOp) -> Array<U> {
        Array::from_node(unary_node(&self.node, op))
    }

    #[track_caller]
    fn bin_op<U: Element>(&self, rhs: impl Operand<T>, op: BinaryOp) -> Array<U> {
        bin::<T, U>(&self.node, rhs.into_node_like(&self.node), op)
    }

    fn try_bin<U: Element>(&self, rhs: impl Operand<T>, op: BinaryOp) -> Result<Array<U>> {
        Ok(Array::from_node(binary_node(
            &self.node,
            &rhs.into_node_like(&self.node),
            op,
        )?))
    }

    /// Element-wise `==` (a `bool` array).
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_equal`](Self::try_equal)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn equal(&self, rhs: impl Operand<T>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Eq)
    }
    /// [`equal`](Self::equal), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_equal(&self, rhs: impl Operand<T>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Eq)
    }

    /// Element-wise `!=`.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_not_equal`](Self::try_not_equal)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn not_equal(&self, rhs: impl Operand<T>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Ne)
    }
    /// [`not_equal`](Self::not_equal), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_not_equal(&self, rhs: impl Operand<T>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Ne)
    }
}

impl<T: Numeric> Array<T> {
    /// `self + rhs`, or an `Err` when the shapes do not broadcast or the devices differ.
    pub fn try_add(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Add)
    }
    /// `self - rhs`, or an `Err`.
    pub fn try_sub(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Sub)
    }
    /// `self * rhs`, or an `Err`.
    pub fn try_mul(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Mul)
    }
    /// `self / rhs`, or an `Err`.
    pub fn try_div(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Div)
    }
}

impl<T: Numeric + Ordered> Array<T> {
    /// Remainder with the divisor's sign, NumPy's `%` (`remainder`): `x - floor(x / y) * y`,
    /// so `-7 % 2 == 1` and `7 % -2 == -1`. Integers by zero give 0; floats by zero give NaN.
    /// [`fmod`](Self::fmod) is C's rule.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[-7i32, 7, -7, 7], &[4])?;
    /// let b = Array::from_slice(&[2i32, 2, -2, -2], &[4])?;
    /// assert_eq!(a.rem(&b).to_vec()?, [1, 1, -1, -1]);
    /// assert_eq!(a.fmod(&b).to_vec()?, [-1, 1, -1, 1]);
    /// assert_eq!((&a / &b).to_vec()?, [-4, 3, 3, -4]); // integer division floors
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_rem`](Self::try_rem)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn rem(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Rem)
    }
    /// NumPy's name for [`rem`](Self::rem) (the divisor's sign).
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_rem`](Self::try_rem)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn remainder(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Rem)
    }
    /// [`rem`](Self::rem), or an `Err` when the shapes do not broadcast or the devices differ.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[7, -7], &[2])?;
    /// assert_eq!(a.try_rem(3)?.to_vec()?, [1, 2]);
    /// assert!(a.try_rem(&Array::<i32>::from_slice_on(Device::CPU, &[1, 2, 3], &[3])?).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn try_rem(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Rem)
    }
    /// Remainder with the dividend's sign, C's `fmod` (and Rust's `%` on primitives):
    /// `x - trunc(x / y) * y`. Integers by zero give 0; floats by zero give NaN.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[-7.5f64, 7.5], &[2])?;
    /// assert_eq!(a.fmod(2.0).to_vec()?, [-1.5, 1.5]);
    /// assert_eq!(a.rem(2.0).to_vec()?, [0.5, 1.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_fmod`](Self::try_fmod)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn fmod(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Fmod)
    }
    /// [`fmod`](Self::fmod), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_fmod(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Fmod)
    }
    /// `self` to the power `rhs` (wrapping for integers; see [`ops`](crate::ops)).
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_pow`](Self::try_pow)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn pow(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Pow)
    }
    /// [`pow`](Self::pow), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_pow(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Pow)
    }
    /// Absolute value (wrapping for `MIN` of signed integers).
    #[must_use]
    pub fn abs(&self) -> Array<T> {
        self.un(UnaryOp::Abs)
    }
    /// -1, 0 or 1 (NaN for NaN).
    #[must_use]
    pub fn sign(&self) -> Array<T> {
        self.un(UnaryOp::Sign)
    }
}

impl<T: Ordered> Array<T> {
    /// Element-wise `<`.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_less`](Self::try_less)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn less(&self, rhs: impl Operand<T>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Lt)
    }
    /// [`less`](Self::less), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_less(&self, rhs: impl Operand<T>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Lt)
    }
    /// Element-wise `<=`.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_less_equal`](Self::try_less_equal)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn less_equal(&self, rhs: impl Operand<T>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Le)
    }
    /// [`less_equal`](Self::less_equal), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_less_equal(&self, rhs: impl Operand<T>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Le)
    }
    /// Element-wise `>`.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_greater`](Self::try_greater)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn greater(&self, rhs: impl Operand<T>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Gt)
    }
    /// [`greater`](Self::greater), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_greater(&self, rhs: impl Operand<T>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Gt)
    }
    /// Element-wise `>=`.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_greater_equal`](Self::try_greater_equal)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn greater_equal(&self, rhs: impl Operand<T>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Ge)
    }
    /// [`greater_equal`](Self::greater_equal), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_greater_equal(&self, rhs: impl Operand<T>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Ge)
    }
    /// Pairwise minimum (NaN if either is NaN; `minimum(0.0, -0.0)` is `-0.0`).
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_minimum`](Self::try_minimum)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn minimum(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Min)
    }
    /// [`minimum`](Self::minimum), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_minimum(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Min)
    }
    /// Pairwise maximum (NaN if either is NaN; `maximum(-0.0, 0.0)` is `0.0`).
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_maximum`](Self::try_maximum)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn maximum(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Max)
    }
    /// [`maximum`](Self::maximum), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_maximum(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Max)
    }
    /// Clamps into `[lo, hi]`.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ.
    #[track_caller]
    #[must_use]
    pub fn clamp(&self, lo: impl Operand<T>, hi: impl Operand<T>) -> Array<T> {
        self.maximum(lo).minimum(hi)
    }
}

impl<T: Transcendental> Array<T> {
    /// e^x.
    #[must_use]
    pub fn exp(&self) -> Array<T> {
        self.un(UnaryOp::Exp)
    }
    /// Natural logarithm.
    #[must_use]
    pub fn log(&self) -> Array<T> {
        self.un(UnaryOp::Log)
    }
    /// Square root (principal branch for complex numbers).
    #[must_use]
    pub fn sqrt(&self) -> Array<T> {
        self.un(UnaryOp::Sqrt)
    }
}

macro_rules! float_methods {
    ($($(#[$m:meta])* $name:ident => $op:ident),* $(,)?) => {
        impl<T: Float> Array<T> {
            $( $(#[$m])* #[must_use] pub fn $name(&self) -> Array<T> { self.un(UnaryOp::$op) } )*
        }
    };
}

float_methods! {
    /// Round down.
    floor => Floor,
    /// Round up.
    ceil => Ceil,
    /// Round to the nearest integer, halves to even (NumPy's `round`/`rint`: `2.5 → 2`).
    round => Round,
    /// The same as [`round`](Self::round) (NumPy's name).
    rint => Round,
    /// Round toward zero.
    trunc => Trunc,
    /// 1/√x.
    rsqrt => Rsqrt,
    /// Cube root.
    cbrt => Cbrt,
    /// 2^x.
    exp2 => Exp2,
    /// e^x − 1, accurate near 0.
    expm1 => Expm1,
    /// log₂.
    log2 => Log2,
    /// log₁₀.
    log10 => Log10,
    /// ln(1 + x), accurate near 0.
    log1p => Log1p,
    /// Sine.
    sin => Sin,
    /// Cosine.
    cos => Cos,
    /// Tangent.
    tan => Tan,
    /// Arc sine.
    asin => Asin,
    /// Arc cosine.
    acos => Acos,
    /// Arc tangent.
    atan => Atan,
    /// Hyperbolic sine.
    sinh => Sinh,
    /// Hyperbolic cosine.
    cosh => Cosh,
    /// Hyperbolic tangent.
    tanh => Tanh,
    /// Inverse hyperbolic sine.
    asinh => Asinh,
    /// Inverse hyperbolic cosine.
    acosh => Acosh,
    /// Inverse hyperbolic tangent.
    atanh => Atanh,
    /// Error function.
    erf => Erf,
    /// Complementary error function.
    erfc => Erfc,
    /// ln |Γ(x)|.
    lgamma => Lgamma,
    /// Γ(x).
    tgamma => Tgamma,
    /// 1 / (1 + e^−x).
    sigmoid => Sigmoid,
}

impl<T: Float> Array<T> {
    /// Whether each element is NaN.
    #[must_use]
    pub fn isnan(&self) -> Array<bool> {
        self.un(UnaryOp::IsNan)
    }
    /// Whether each element is ±∞.
    #[must_use]
    pub fn isinf(&self) -> Array<bool> {
        self.un(UnaryOp::IsInf)
    }
    /// Whether each element is finite.
    #[must_use]
    pub fn isfinite(&self) -> Array<bool> {
        self.un(UnaryOp::IsFinite)
    }
    /// atan2(self, rhs), the angle of the point (rhs, self).
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_atan2`](Self::try_atan2)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn atan2(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Atan2)
    }
    /// [`atan2`](Self::atan2), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_atan2(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Atan2)
    }
    /// √(self² + rhs²) without undue overflow.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_hypot`](Self::try_hypot)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn hypot(&self, rhs: impl Operand<T>) -> Array<T> {
        self.bin_op(rhs, BinaryOp::Hypot)
    }
    /// [`hypot`](Self::hypot), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_hypot(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Hypot)
    }
}

impl<T: ComplexElement> Array<T> {
    /// Real parts.
    #[must_use]
    pub fn real(&self) -> Array<T::Real> {
        self.un(UnaryOp::Real)
    }
    /// Imaginary parts.
    #[must_use]
    pub fn imag(&self) -> Array<T::Real> {
        self.un(UnaryOp::Imag)
    }
    /// Complex conjugates.
    #[must_use]
    pub fn conj(&self) -> Array<T> {
        self.un(UnaryOp::Conj)
    }
    /// Moduli |z|.
    #[must_use]
    pub fn norm(&self) -> Array<T::Real> {
        self.un(UnaryOp::Abs)
    }
    /// Arguments (angles) in (−π, π].
    #[must_use]
    pub fn arg(&self) -> Array<T::Real> {
        self.un(UnaryOp::Arg)
    }
}

impl Array<bool> {
    /// Logical and.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_and`](Self::try_and)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn and(&self, rhs: impl Operand<bool>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::And)
    }
    /// [`and`](Self::and), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_and(&self, rhs: impl Operand<bool>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::And)
    }
    /// Logical or.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_or`](Self::try_or)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn or(&self, rhs: impl Operand<bool>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Or)
    }
    /// [`or`](Self::or), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_or(&self, rhs: impl Operand<bool>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Or)
    }
    /// Logical xor.
    ///
    /// # Panics
    /// When the shapes do not broadcast or the devices differ; [`try_xor`](Self::try_xor)
    /// returns that `Err` instead.
    #[track_caller]
    #[must_use]
    pub fn xor(&self, rhs: impl Operand<bool>) -> Array<bool> {
        self.bin_op(rhs, BinaryOp::Xor)
    }
    /// [`xor`](Self::xor), or an `Err` when the shapes do not broadcast or the devices
    /// differ.
    pub fn try_xor(&self, rhs: impl Operand<bool>) -> Result<Array<bool>> {
        self.try_bin(rhs, BinaryOp::Xor)
    }
}

macro_rules! promoted_op {
    ($Tr:ident, $f:ident, $op:ident) => {
        impl<T: Element + Promote<U>, U: Element> ops::$Tr<Array<U>> for Array<T>
        where
            <T as Promote<U>>::Output: Numeric,
        {
            type Output = Array<<T as Promote<U>>::Output>;
            #[track_caller]
            fn $f(self, rhs: Array<U>) -> Self::Output {
                bin::<T, _>(&self.node, rhs.node, BinaryOp::$op)
            }
        }
        impl<T: Element + Promote<U>, U: Element> ops::$Tr<&Array<U>> for Array<T>
        where
            <T as Promote<U>>::Output: Numeric,
        {
            type Output = Array<<T as Promote<U>>::Output>;
            #[track_caller]
            fn $f(self, rhs: &Array<U>) -> Self::Output {
                bin::<T, _>(&self.node, rhs.node.clone(), BinaryOp::$op)
            }
        }
        impl<T: Element + Promote<U>, U: Element> ops::$Tr<Array<U>> for &Array<T>
        where
            <T as Promote<U>>::Output: Numeric,
        {
            type Output = Array<<T as Promote<U>>::Output>;
            #[track_caller]
            fn $f(self, rhs: Array<U>) -> Self::Output {
                bin::<T, _>(&self.node, rhs.node, BinaryOp::$op)
            }
        }
        impl<T: Element + Promote<U>, U: Element> ops::$Tr<&Array<U>> for &Array<T>
        where
            <T as Promote<U>>::Output: Numeric,
        {
            type Output = Array<<T as Promote<U>>::Output>;
            #[track_caller]
            fn $f(self, rhs: &Array<U>) -> Self::Output {
                bin::<T, _>(&self.node, rhs.node.clone(), BinaryOp::$op)
            }
        }
        impl<T: Numeric> ops::$Tr<T> for Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $f(self, rhs: T) -> Array<T> {
                bin::<T, _>(&self.node, rhs.into_node_like(&self.node), BinaryOp::$op)
            }
        }
        impl<T: Numeric> ops::$Tr<T> for &Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $f(self, rhs: T) -> Array<T> {
                bin::<T, _>(&self.node, rhs.into_node_like(&self.node), BinaryOp::$op)
            }
        }
    };
}

promoted_op!(Add, add, Add);
promoted_op!(Sub, sub, Sub);
promoted_op!(Mul, mul, Mul);
promoted_op!(Div, div, Div);

macro_rules! scalar_left {
    ($($t:ty),*) => {$(
        scalar_left!(@one $t, Add, add, Add);
        scalar_left!(@one $t, Sub, sub, Sub);
        scalar_left!(@one $t, Mul, mul, Mul);
        scalar_left!(@one $t, Div, div, Div);
    )*};
    (@one $t:ty, $Tr:ident, $f:ident, $op:ident) => {
        impl ops::$Tr<Array<$t>> for $t {
            type Output = Array<$t>;
            #[track_caller]
            fn $f(self, rhs: Array<$t>) -> Array<$t> {
                let c = self.into_node_like(&rhs.node);
                bin::<$t, _>(&c, rhs.node, BinaryOp::$op)
            }
        }
        impl ops::$Tr<&Array<$t>> for $t {
            type Output = Array<$t>;
            #[track_caller]
            fn $f(self, rhs: &Array<$t>) -> Array<$t> {
                let c = self.into_node_like(&rhs.node);
                bin::<$t, _>(&c, rhs.node.clone(), BinaryOp::$op)
            }
        }
    };
}

scalar_left!(
    f32, f64, f16, bf16, c32, c64, i8, i16, i32, i64, u8, u16, u32, u64
);

macro_rules! same_type_op {
    ($bound:ident, $Tr:ident, $f:ident, $op:expr) => {
        impl<T: $bound> ops::$Tr<&Array<T>> for &Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $f(self, rhs: &Array<T>) -> Array<T> {
                bin::<T, _>(&self.node, rhs.node.clone(), $op(T::DTYPE))
            }
        }
        impl<T: $bound> ops::$Tr<Array<T>> for Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $f(self, rhs: Array<T>) -> Array<T> {
                bin::<T, _>(&self.node, rhs.node, $op(T::DTYPE))
            }
        }
        impl<T: $bound> ops::$Tr<&Array<T>> for Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $f(self, rhs: &Array<T>) -> Array<T> {
                bin::<T, _>(&self.node, rhs.node.clone(), $op(T::DTYPE))
            }
        }
        impl<T: $bound> ops::$Tr<T> for Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $f(self, rhs: T) -> Array<T> {
                bin::<T, _>(&self.node, rhs.into_node_like(&self.node), $op(T::DTYPE))
            }
        }
        impl<T: $bound> ops::$Tr<T> for &Array<T> {
            type Output = Array<T>;
            #[track_caller]
            fn $f(self, rhs: T) -> Array<T> {
                bin::<T, _>(&self.node, rhs.into_node_like(&self.node), $op(T::DTYPE))
            }
        }
    };
}

fn logical_or_bit(l: BinaryOp, b: BinaryOp) -> impl Fn(DType) -> BinaryOp {
    move |d| if d == DType::Bool { l } else { b }
}

same_type_op!(Numeric, Rem, rem, |_| BinaryOp::Rem);
same_type_op!(
    Bits,
    BitAnd,
    bitand,
    logical_or_bit(BinaryOp::And, BinaryOp::BitAnd)
);
same_type_op!(
    Bits,
    BitOr,
    bitor,
    logical_or_bit(BinaryOp::Or, BinaryOp::BitOr)
);
same_type_op!(
    Bits,
    BitXor,
    bitxor,
    logical_or_bit(BinaryOp::Xor, BinaryOp::BitXor)
);
same_type_op!(Integer, Shl, shl, |_| BinaryOp::Shl);
same_type_op!(Integer, Shr, shr, |_| BinaryOp::Shr);

impl<T: Bits> Array<T> {
    /// `self & rhs` (logical and for `bool`), or an `Err` when the shapes do not broadcast or
    /// the devices differ (the `&` operator panics then).
    pub fn try_bitand(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(
            rhs,
            logical_or_bit(BinaryOp::And, BinaryOp::BitAnd)(T::DTYPE),
        )
    }
    /// `self | rhs` (logical or for `bool`), or an `Err` (the `|` operator panics then).
    pub fn try_bitor(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, logical_or_bit(BinaryOp::Or, BinaryOp::BitOr)(T::DTYPE))
    }
    /// `self ^ rhs` (logical xor for `bool`), or an `Err` (the `^` operator panics then).
    pub fn try_bitxor(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(
            rhs,
            logical_or_bit(BinaryOp::Xor, BinaryOp::BitXor)(T::DTYPE),
        )
    }
}

impl<T: Integer> Array<T> {
    /// `self << rhs` (the amount modulo the bit width), or an `Err` when the shapes do not
    /// broadcast or the devices differ (the `<<` operator panics then).
    pub fn try_shl(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Shl)
    }
    /// `self >> rhs` (arithmetic for signed types), or an `Err` (the `>>` operator panics
    /// then).
    pub fn try_shr(&self, rhs: impl Operand<T>) -> Result<Array<T>> {
        self.try_bin(rhs, BinaryOp::Shr)
    }
}

impl<T: Signed> ops::Neg for Array<T> {
    type Output = Array<T>;
    fn neg(self) -> Array<T> {
        self.un(UnaryOp::Neg)
    }
}
impl<T: Signed> ops::Neg for &Array<T> {
    type Output = Array<T>;
    fn neg(self) -> Array<T> {
        self.un(UnaryOp::Neg)
    }
}
impl<T: Bits> ops::Not for Array<T> {
    type Output = Array<T>;
    fn not(self) -> Array<T> {
        (&self).not()
    }
}
impl<T: Bits> ops::Not for &Array<T> {
    type Output = Array<T>;
    fn not(self) -> Array<T> {
        if T::DTYPE == DType::Bool {
            self.un(UnaryOp::Not)
        } else {
            self.un(UnaryOp::BitNot)
        }
    }
}
