//! The operator table of reductions: for each `ReduceOp` its accumulator dtype, its identity
//! and its combine, as C expressions. The reduction kernels and the interpreter's reductions
//! read these three and nothing else, so an operator means the same in both. The scans
//! (`ScanKind`) still have their own identity and operator in `scan.rs`, whose max and min keep
//! the earlier operand on ties. The arg-reductions carry an index beside the value and are
//! combined by their own rule (`reduction.rs`).

use super::{binary_expr, int_limits};
use crate::dtype::{Class, DType};
use crate::op::{BinaryOp, ReduceOp};

/// The dtype a reduction of `src` by `op` accumulates (and writes its partial results) in.
pub(crate) fn acc_dtype(op: ReduceOp, src: DType) -> DType {
    match op {
        ReduceOp::Any | ReduceOp::All => DType::Bool,
        op if op.is_arg() => DType::I64,
        _ => match src.class() {
            Class::F32 => DType::F32,
            Class::F64 => DType::F64,
            Class::I64 => DType::I64,
            Class::U64 => {
                if matches!(op, ReduceOp::Sum | ReduceOp::Prod) {
                    DType::U64
                } else {
                    src
                }
            }
            Class::C32 => DType::C32,
            Class::C64 => DType::C64,
        },
    }
}

/// The C identity of `op` in accumulator dtype `acc` (its C type `at`); `None` for
/// argmin/argmax.
pub(crate) fn identity(op: ReduceOp, acc: DType, at: &str) -> Option<String> {
    use ReduceOp::*;
    Some(match (op, acc.class()) {
        (ArgMin | ArgMax | NanArgMin | NanArgMax, _) => return None,
        // No element yet: a NaN, which every number replaces (and the result of a slice of
        // only NaNs).
        (NanMin | NanMax, Class::F32) => "__int_as_float(0x7fc00000)".into(),
        (NanMin | NanMax, Class::F64) => "__longlong_as_double(0x7ff8000000000000LL)".into(),
        (NanMin, _) => return identity(Min, acc, at),
        (NanMax, _) => return identity(Max, acc, at),
        (Any, _) => "(unsigned char)0".into(),
        (All, _) => "(unsigned char)1".into(),
        (Sum, Class::C32) => "mkc(0.0f, 0.0f, (cf32*)0)".into(),
        (Sum, Class::C64) => "mkc(0.0, 0.0, (cf64*)0)".into(),
        (Prod, Class::C32) => "mkc(1.0f, 0.0f, (cf32*)0)".into(),
        (Prod, Class::C64) => "mkc(1.0, 0.0, (cf64*)0)".into(),
        (Sum, _) => format!("({at})0"),
        (Prod, _) => format!("({at})1"),
        (Min, Class::F32) => "finf()".into(),
        (Min, Class::F64) => "dinf()".into(),
        (Max, Class::F32) => "(-finf())".into(),
        (Max, Class::F64) => "(-dinf())".into(),
        // `bool`: `false` is the smallest value, `true` the largest.
        (Min, _) if acc == DType::Bool => format!("({at})1"),
        (Max, _) if acc == DType::Bool => format!("({at})0"),
        (Min, _) => format!("({at}){}", int_limits(acc).1),
        (Max, _) => format!("({at}){}", int_limits(acc).0),
    })
}

/// The C expression combining accumulators `a` and `b` of dtype `acc` by `op` (floats: min and
/// max propagate NaN, their NaN-ignoring forms pass over it); `None` for the arg-reductions.
pub(crate) fn combine(op: ReduceOp, acc: DType, a: &str, b: &str) -> Option<String> {
    use ReduceOp::*;
    Some(match (op, acc.is_complex(), acc.is_float()) {
        (ArgMin | ArgMax | NanArgMin | NanArgMax, _, _) => return None,
        // `nmin`/`nmax` with the roles of NaN exchanged: a NaN operand gives way to the other
        // one, so a NaN remains only when both are NaN; signed zeros keep their order.
        (NanMin, _, true) => format!(
            "(({b}) != ({b}) ? ({a}) : (({a}) != ({a}) || ({b}) < ({a}) || (({b}) == ({a}) && signbit({b}))) ? ({b}) : ({a}))"
        ),
        (NanMax, _, true) => format!(
            "(({b}) != ({b}) ? ({a}) : (({a}) != ({a}) || ({b}) > ({a}) || (({b}) == ({a}) && !signbit({b}))) ? ({b}) : ({a}))"
        ),
        (NanMin, _, _) => return combine(Min, acc, a, b),
        (NanMax, _, _) => return combine(Max, acc, a, b),
        (Sum, true, _) => format!("cadd({a}, {b})"),
        (Prod, true, _) => format!("cmul({a}, {b})"),
        (Sum, _, _) => binary_expr(BinaryOp::Add, acc, a, b),
        (Prod, _, _) => binary_expr(BinaryOp::Mul, acc, a, b),
        (Min, _, true) => format!("nmin({a}, {b})"),
        (Max, _, true) => format!("nmax({a}, {b})"),
        (Min, _, _) => format!("({a} < {b} ? {a} : {b})"),
        (Max, _, _) => format!("({a} > {b} ? {a} : {b})"),
        (Any, _, _) => format!("(unsigned char)({a} | {b})"),
        (All, _, _) => format!("(unsigned char)({a} & {b})"),
    })
}
