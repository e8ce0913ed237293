//! Which C math library functions a kernel calls, recorded as a fact of its source
//! ([`MathUse`] on `KernelSource`), stated by the emitter from the program it emits: a quick
//! build leaves those calls to the prebuilt math library (`jit::math`) and never searches the
//! text for them.

use crate::dtype::{Class, DType};
use crate::graph::{Program, Step};
use crate::op::{BinaryOp, UnaryOp};

/// One-argument C math functions whose calls a quick build leaves to the math library (the
/// `f32` name is the `f`-suffixed one: `sinf` for `sin`).
pub const MATH_UNARY: &[&str] = &[
    "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "lgamma",
    "tgamma",
];
/// Two-argument C math functions left to the math library by a quick build.
pub const MATH_BINARY: &[&str] = &["fmod", "pow", "atan2", "hypot"];

/// Which precisions of the math library a kernel source calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MathUse {
    /// Calls an `f32` function of [`MATH_UNARY`] or [`MATH_BINARY`] (`sinf`, ...).
    pub f32: bool,
    /// Calls an `f64` function (`sin`, ...).
    pub f64: bool,
}

impl MathUse {
    /// Whether it calls any.
    pub fn any(self) -> bool {
        self.f32 || self.f64
    }

    /// Both precisions (a source that may call anything of the library).
    pub const ALL: MathUse = MathUse {
        f32: true,
        f64: true,
    };

    fn note(&mut self, d: DType) {
        match d.class() {
            Class::F64 | Class::C64 => self.f64 = true,
            _ => self.f32 = true,
        }
    }

    /// The math calls of the code of `p`'s steps: its library operations in the precision
    /// they compute in, the random numbers' `f64` transforms, and the complex helpers of its
    /// complex dtypes.
    pub(crate) fn of_program(p: &Program) -> MathUse {
        let mut m = MathUse::default();
        for i in &p.instrs {
            match i.kind {
                Step::Unary(op, a) => {
                    let d = p.instrs[a].dtype;
                    if d.is_float() && lib_unary(op).is_some() || d.is_complex() {
                        m.note(d);
                    }
                }
                Step::Binary(op, a, _) => {
                    let d = p.instrs[a].dtype;
                    if d.is_float() && lib_binary(op).is_some() || d.is_complex() {
                        m.note(d);
                    }
                }
                Step::Rand(..) | Step::RandKeyed(..) => m.f64 = true,
                _ => {}
            }
        }
        m
    }
}

/// The math library function (its `f64` name, one of [`MATH_UNARY`]) that float `op` computes
/// by, when it is one: the emitter's expression and [`MathUse::of_program`] both read it.
pub(super) fn lib_unary(op: UnaryOp) -> Option<&'static str> {
    use UnaryOp::*;
    Some(match op {
        Cbrt => "cbrt",
        Exp | Sigmoid => "exp",
        Exp2 => "exp2",
        Expm1 => "expm1",
        Log => "log",
        Log2 => "log2",
        Log10 => "log10",
        Log1p => "log1p",
        Sin => "sin",
        Cos => "cos",
        Tan => "tan",
        Asin => "asin",
        Acos => "acos",
        Atan => "atan",
        Sinh => "sinh",
        Cosh => "cosh",
        Tanh => "tanh",
        Asinh => "asinh",
        Acosh => "acosh",
        Atanh => "atanh",
        Erf => "erf",
        Erfc => "erfc",
        Lgamma => "lgamma",
        Tgamma => "tgamma",
        _ => return None,
    })
}

/// The math library function (one of [`MATH_BINARY`]) that float `op` computes by.
pub(super) fn lib_binary(op: BinaryOp) -> Option<&'static str> {
    use BinaryOp::*;
    Some(match op {
        Rem | Fmod => "fmod",
        Pow => "pow",
        Atan2 => "atan2",
        Hypot => "hypot",
        _ => return None,
    })
}
