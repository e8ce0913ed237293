//! The opcode enums of element-wise operations and reductions, with the dtype each produces.
//!
//! Re-exported by [`crate::ops`], which documents their semantics.

use crate::dtype::DType;

/// Element-wise operations of one operand.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Floor,
    Ceil,
    Round,
    Trunc,
    Sqrt,
    Rsqrt,
    Cbrt,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Erf,
    Erfc,
    Lgamma,
    Tgamma,
    Sigmoid,
    IsNan,
    IsInf,
    IsFinite,
    /// Logical not (on `bool`).
    Not,
    /// Bitwise not (on integers).
    BitNot,
    Real,
    Imag,
    Conj,
    Arg,
    /// The mantissa of `frexp` (in `[0.5, 1)` in magnitude; zero, infinities and NaN as they
    /// are).
    FrexpMant,
    /// The exponent of `frexp` (`i32`; 0 for zero, infinities and NaN).
    FrexpExp,
    /// The fractional part of `modf` (the sign of the operand; ±0 for infinities).
    ModfFrac,
    /// The modified Bessel function of the first kind, order 0 (NumPy's `i0`).
    I0,
    /// The number of 1 bits in the absolute value (`u8`; NumPy's `bitwise_count`).
    BitCount,
    /// Whether the sign bit is set (NaN's and `-0.0`'s included).
    SignBit,
}

/// Element-wise operations of two operands (of one promoted type).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Division; integers floor (NumPy's `//`), by zero give 0.
    Div,
    /// Remainder with the divisor's sign (NumPy's `%`, `remainder`).
    Rem,
    /// Remainder with the dividend's sign (C's `fmod`, Rust's `%`).
    Fmod,
    Pow,
    Min,
    Max,
    Atan2,
    Hypot,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Logical and (on `bool`).
    And,
    /// Logical or (on `bool`).
    Or,
    /// Logical xor (on `bool`).
    Xor,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    /// `a * 2^trunc(b)` (NumPy's `ldexp`; a NaN exponent gives NaN).
    Ldexp,
    /// The next representable value after `a` towards `b`, in `a`'s own precision.
    Nextafter,
    /// The magnitude of `a` with the sign bit of `b` (NaN's sign included).
    Copysign,
    /// The greatest common divisor of the absolute values, computed in 64 bits.
    Gcd,
    /// The least common multiple of the absolute values, computed in 64 bits (wrapping).
    Lcm,
}

impl UnaryOp {
    /// Every unary operation.
    pub const ALL: [UnaryOp; 49] = {
        use UnaryOp::*;
        [
            Neg, Abs, Sign, Floor, Ceil, Round, Trunc, Sqrt, Rsqrt, Cbrt, Exp, Exp2, Expm1, Log,
            Log2, Log10, Log1p, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh,
            Atanh, Erf, Erfc, Lgamma, Tgamma, Sigmoid, IsNan, IsInf, IsFinite, Not, BitNot, Real,
            Imag, Conj, Arg, FrexpMant, FrexpExp, ModfFrac, I0, BitCount, SignBit,
        ]
    };

    /// The dtype of the result for an operand of dtype `d`, or `None` when the operation does
    /// not apply to `d`.
    pub fn result(self, d: DType) -> Option<DType> {
        use UnaryOp::*;
        let float = d.is_float();
        let ok = match self {
            Neg | Abs | Sign => d != DType::Bool,
            Exp | Log | Sqrt => float || d.is_complex(),
            IsNan | IsInf | IsFinite => float,
            Not => d == DType::Bool,
            BitNot | BitCount => d.is_int(),
            Real | Imag | Conj | Arg => d.is_complex(),
            _ => float,
        };
        if !ok {
            return None;
        }
        Some(match self {
            IsNan | IsInf | IsFinite | Not | SignBit => DType::Bool,
            FrexpExp => DType::I32,
            BitCount => DType::U8,
            Real | Imag | Arg => d.real(),
            Abs => d.real(),
            _ => d,
        })
    }
}

impl BinaryOp {
    /// Every binary operation.
    pub const ALL: [BinaryOp; 30] = {
        use BinaryOp::*;
        [
            Add, Sub, Mul, Div, Rem, Fmod, Pow, Min, Max, Atan2, Hypot, Eq, Ne, Lt, Le, Gt, Ge,
            And, Or, Xor, BitAnd, BitOr, BitXor, Shl, Shr, Ldexp, Nextafter, Copysign, Gcd, Lcm,
        ]
    };

    /// The dtype of the result for operands (already promoted) of dtype `d`, or `None`.
    pub fn result(self, d: DType) -> Option<DType> {
        use BinaryOp::*;
        let ok = match self {
            Add | Sub | Mul | Div => d != DType::Bool,
            Rem | Fmod | Pow | Min | Max => d != DType::Bool && !d.is_complex(),
            Atan2 | Hypot | Ldexp | Nextafter | Copysign => d.is_float(),
            Gcd | Lcm => d.is_int(),
            Eq | Ne => true,
            Lt | Le | Gt | Ge => !d.is_complex(),
            And | Or | Xor => d == DType::Bool,
            BitAnd | BitOr | BitXor | Shl | Shr => d.is_int(),
        };
        if !ok {
            return None;
        }
        Some(match self {
            Eq | Ne | Lt | Le | Gt | Ge | And | Or | Xor => DType::Bool,
            _ => d,
        })
    }
}

/// Reductions.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    Any,
    All,
    ArgMin,
    ArgMax,
    /// The smallest element that is not NaN (floats only): NaN only where every element
    /// of the slice is NaN (NumPy's `nanmin`).
    NanMin,
    /// The largest element that is not NaN (floats only; NumPy's `nanmax`).
    NanMax,
    /// The index of the first smallest element that is not NaN (floats only), `-1` where
    /// every element of the slice is NaN.
    NanArgMin,
    /// The index of the first largest element that is not NaN (floats only), `-1` where
    /// every element of the slice is NaN.
    NanArgMax,
}

impl ReduceOp {
    /// Whether the reduction gives an index (`argmin`, `argmax` and their NaN-ignoring forms).
    pub fn is_arg(self) -> bool {
        matches!(
            self,
            ReduceOp::ArgMin | ReduceOp::ArgMax | ReduceOp::NanArgMin | ReduceOp::NanArgMax
        )
    }

    /// Whether the reduction passes over NaNs (`NanMin`, `NanMax`, `NanArgMin`, `NanArgMax`).
    pub fn skips_nan(self) -> bool {
        matches!(
            self,
            ReduceOp::NanMin | ReduceOp::NanMax | ReduceOp::NanArgMin | ReduceOp::NanArgMax
        )
    }

    /// Whether a better element is a smaller one (`Min`, `ArgMin` and their NaN-ignoring
    /// forms).
    pub fn is_min(self) -> bool {
        matches!(
            self,
            ReduceOp::Min | ReduceOp::ArgMin | ReduceOp::NanMin | ReduceOp::NanArgMin
        )
    }

    /// The dtype a reduction of `d` produces: sums and products of `bool`/integers give `i64`
    /// (signed and bool) or `u64` (unsigned), floats and complex keep their type; min/max keep
    /// the type; any/all give `bool`; argmin/argmax give `i64`.
    pub fn result(self, d: DType) -> DType {
        match self {
            ReduceOp::Sum | ReduceOp::Prod => {
                if d.is_unsigned_int() {
                    DType::U64
                } else if d.is_signed_int() || d == DType::Bool {
                    DType::I64
                } else {
                    d
                }
            }
            ReduceOp::Min | ReduceOp::Max | ReduceOp::NanMin | ReduceOp::NanMax => d,
            ReduceOp::Any | ReduceOp::All => DType::Bool,
            ReduceOp::ArgMin | ReduceOp::ArgMax | ReduceOp::NanArgMin | ReduceOp::NanArgMax => {
                DType::I64
            }
        }
    }
}
