//! Value ranges of integer nodes: bounds that every element of a node lies within, known from
//! how the node was made.
//!
//! Invariant: a node with range `[lo, hi]` has no element below `lo` or above `hi`. Ranges come
//! from constants, coordinates, small host uploads, positions that sorts, arg-reductions and
//! searches return (`Array::known_in`), and flow through `min`/`max` (so `clamp`),
//! sums, differences and products that cannot wrap, remainders by a positive divisor,
//! selections and casts that keep every value; anything else has no range. The indexing calls
//! skip their run-time check, and the synchronisation it costs, for indices whose range lies
//! inside the axis. Gathers and scatters clamp in the kernel whatever the check found, so a
//! range can at worst hide an `Err`, never cause an access out of bounds.

use crate::dtype::{DType, Scalar};
use crate::op::BinaryOp;

/// Inclusive bounds of an integer node's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueRange {
    pub lo: i64,
    pub hi: i64,
}

impl ValueRange {
    /// Whether every value lies in `[lo, hi]`.
    pub fn within(self, lo: i64, hi: i64) -> bool {
        lo <= self.lo && self.hi <= hi
    }
}

/// Inclusive bounds, wide enough for every integer dtype.
type Bounds = (i128, i128);

/// The values a dtype can hold (`bool` as 0 and 1); `None` for floating and complex types.
pub(crate) fn bounds(d: DType) -> Option<Bounds> {
    Some(match d {
        DType::Bool => (0, 1),
        DType::U8 => (0, u8::MAX as i128),
        DType::U16 => (0, u16::MAX as i128),
        DType::U32 => (0, u32::MAX as i128),
        DType::U64 => (0, u64::MAX as i128),
        DType::I8 => (i8::MIN as i128, i8::MAX as i128),
        DType::I16 => (i16::MIN as i128, i16::MAX as i128),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DType::I64 => (i64::MIN as i128, i64::MAX as i128),
        _ => return None,
    })
}

/// What is known of an operand: its range, else everything its dtype can hold.
fn wide(r: Option<ValueRange>, d: DType) -> Option<Bounds> {
    match r {
        Some(r) => Some((r.lo as i128, r.hi as i128)),
        None => bounds(d),
    }
}

/// `[lo, hi]` as the range of a `d` node: `None` when it is empty, leaves `d` (the operation
/// would wrap) or tells nothing beyond `d` itself.
fn fit(lo: i128, hi: i128, d: DType) -> Option<ValueRange> {
    let (dl, dh) = bounds(d)?;
    if lo > hi || lo < dl || hi > dh || (lo, hi) == (dl, dh) {
        return None;
    }
    Some(ValueRange {
        lo: i64::try_from(lo).ok()?,
        hi: i64::try_from(hi).ok()?,
    })
}

/// A constant broadcast to a `d` node.
pub(crate) fn of_const(c: Scalar, d: DType) -> Option<ValueRange> {
    let v = match c {
        Scalar::I64(v) => v as i128,
        Scalar::U64(v) => v as i128,
        _ => return None,
    };
    fit(v, v, d)
}

/// The coordinate along an axis of `extent` (i64).
pub(crate) fn of_coordinate(extent: usize) -> Option<ValueRange> {
    fit(0, extent as i128 - 1, DType::I64)
}

/// The values of a small host upload of dtype `d`.
pub(crate) fn of_values(values: impl Iterator<Item = Scalar>, d: DType) -> Option<ValueRange> {
    let (mut lo, mut hi) = (i128::MAX, i128::MIN);
    for v in values {
        let v = match v {
            Scalar::I64(v) => v as i128,
            Scalar::U64(v) => v as i128,
            _ => return None,
        };
        lo = lo.min(v);
        hi = hi.max(v);
    }
    fit(lo, hi, d)
}

/// What is known of two integer operands of a `d` node's operation (`None` unless both are of
/// dtype `d`).
fn operands(
    d: DType,
    a: (Option<ValueRange>, DType),
    b: (Option<ValueRange>, DType),
) -> Option<(Bounds, Bounds)> {
    if !d.is_int() || a.1 != d || b.1 != d {
        return None;
    }
    Some((wide(a.0, d)?, wide(b.0, d)?))
}

/// `op(a, b)` for a `d` node whose operands are `(range, dtype)` pairs.
pub(crate) fn of_binary(
    op: BinaryOp,
    d: DType,
    a: (Option<ValueRange>, DType),
    b: (Option<ValueRange>, DType),
) -> Option<ValueRange> {
    let ((al, ah), (bl, bh)) = operands(d, a, b)?;
    let (lo, hi) = match op {
        BinaryOp::Min => (al.min(bl), ah.min(bh)),
        BinaryOp::Max => (al.max(bl), ah.max(bh)),
        BinaryOp::Add => (al + bl, ah + bh),
        BinaryOp::Sub => (al - bh, ah - bl),
        BinaryOp::Mul => {
            // Two u64 bounds may overflow even i128: then nothing is known.
            let c = [
                al.checked_mul(bl)?,
                al.checked_mul(bh)?,
                ah.checked_mul(bl)?,
                ah.checked_mul(bh)?,
            ];
            (*c.iter().min()?, *c.iter().max()?)
        }
        // NumPy's remainder by a positive divisor: in [0, divisor).
        BinaryOp::Rem if bl > 0 => (0, if al >= 0 { ah.min(bh - 1) } else { bh - 1 }),
        // C's remainder: the dividend's sign, magnitude below the divisor's.
        BinaryOp::Fmod if bl > 0 => {
            let lo = if al < 0 { al.max(1 - bh) } else { 0 };
            let hi = if ah > 0 { ah.min(bh - 1) } else { 0 };
            (lo, hi)
        }
        _ => return None,
    };
    fit(lo, hi, d)
}

/// `cond ? a : b` for a `d` node.
pub(crate) fn of_select(
    d: DType,
    a: (Option<ValueRange>, DType),
    b: (Option<ValueRange>, DType),
) -> Option<ValueRange> {
    let ((al, ah), (bl, bh)) = operands(d, a, b)?;
    fit(al.min(bl), ah.max(bh), d)
}

/// A cast of a `from` node with range `r` to `to`: the range when every value survives the
/// cast (`bool` is 0 and 1).
pub(crate) fn of_cast(from: DType, r: Option<ValueRange>, to: DType) -> Option<ValueRange> {
    if !to.is_int() || !(from.is_int() || from == DType::Bool) {
        return None;
    }
    let (lo, hi) = wide(r, from)?;
    fit(lo, hi, to)
}

/// The tighter of two facts about the same values.
pub(crate) fn both(a: Option<ValueRange>, b: Option<ValueRange>) -> Option<ValueRange> {
    match (a, b) {
        (Some(a), Some(b)) => Some(ValueRange {
            lo: a.lo.max(b.lo),
            hi: a.hi.min(b.hi),
        }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(lo: i64, hi: i64) -> Option<ValueRange> {
        Some(ValueRange { lo, hi })
    }

    #[test]
    fn clamp_bounds_an_unknown_operand() {
        let d = DType::I64;
        let low = of_binary(BinaryOp::Max, d, (None, d), (r(0, 0), d));
        assert_eq!(low, r(0, i64::MAX));
        assert_eq!(of_binary(BinaryOp::Min, d, (low, d), (r(9, 9), d)), r(0, 9));
        let u = DType::U64;
        assert_eq!(of_binary(BinaryOp::Mul, u, (None, u), (None, u)), None);
        let x = of_binary(BinaryOp::Min, d, (None, d), (r(99, 99), d));
        assert_eq!(x, r(i64::MIN, 99));
        assert_eq!(of_binary(BinaryOp::Max, d, (x, d), (r(0, 0), d)), r(0, 99));
    }

    #[test]
    fn arithmetic_that_may_wrap_has_no_range() {
        let d = DType::I32;
        let big = r(0, i32::MAX as i64);
        assert_eq!(of_binary(BinaryOp::Add, d, (big, d), (r(1, 1), d)), None);
        assert_eq!(
            of_binary(BinaryOp::Add, d, (r(0, 9), d), (r(5, 5), d)),
            r(5, 14)
        );
        assert_eq!(
            of_binary(BinaryOp::Sub, d, (r(0, 9), d), (r(1, 3), d)),
            r(-3, 8)
        );
        let u = DType::U8;
        assert_eq!(
            of_binary(BinaryOp::Sub, u, (r(0, 9), u), (r(1, 1), u)),
            None
        );
        assert_eq!(
            of_binary(BinaryOp::Mul, d, (r(-2, 3), d), (r(4, 5), d)),
            r(-10, 15)
        );
        assert_eq!(
            of_binary(BinaryOp::Div, d, (r(0, 9), d), (r(1, 1), d)),
            None
        );
    }

    #[test]
    fn remainders_by_a_positive_divisor() {
        let d = DType::I64;
        // NumPy's remainder: the divisor's sign.
        assert_eq!(
            of_binary(BinaryOp::Rem, d, (None, d), (r(7, 7), d)),
            r(0, 6)
        );
        assert_eq!(
            of_binary(BinaryOp::Rem, d, (r(0, 3), d), (r(7, 7), d)),
            r(0, 3)
        );
        assert_eq!(
            of_binary(BinaryOp::Rem, d, (r(-3, 2), d), (r(7, 7), d)),
            r(0, 6)
        );
        // C's remainder: the dividend's sign.
        assert_eq!(
            of_binary(BinaryOp::Fmod, d, (None, d), (r(7, 7), d)),
            r(-6, 6)
        );
        assert_eq!(
            of_binary(BinaryOp::Fmod, d, (r(-3, 2), d), (r(7, 7), d)),
            r(-3, 2)
        );
        assert_eq!(of_binary(BinaryOp::Rem, d, (None, d), (r(0, 7), d)), None);
        assert_eq!(
            of_binary(
                BinaryOp::Rem,
                DType::U64,
                (None, DType::U64),
                (r(10, 10), DType::U64)
            ),
            r(0, 9)
        );
    }

    #[test]
    fn casts_and_constants() {
        assert_eq!(of_cast(DType::I64, r(-1, 300), DType::U8), None);
        assert_eq!(of_cast(DType::I64, r(0, 200), DType::U8), r(0, 200));
        assert_eq!(
            of_cast(DType::I64, r(0, 255), DType::U8),
            None,
            "all of u8: nothing known"
        );
        assert_eq!(of_cast(DType::Bool, None, DType::I32), r(0, 1));
        assert_eq!(of_cast(DType::F32, None, DType::I32), None);
        assert_eq!(of_cast(DType::U8, None, DType::I64), r(0, 255));
        assert_eq!(of_const(Scalar::I64(-4), DType::I16), r(-4, -4));
        assert_eq!(of_const(Scalar::U64(u64::MAX), DType::U64), None);
        assert_eq!(of_const(Scalar::F64(1.0), DType::I64), None);
        assert_eq!(of_coordinate(5), r(0, 4));
        assert_eq!(of_coordinate(0), None);
        let v = [3i64, -2, 9].map(Scalar::I64);
        assert_eq!(of_values(v.into_iter(), DType::I64), r(-2, 9));
        assert_eq!(of_values(std::iter::empty(), DType::I64), None);
        assert_eq!(
            of_select(DType::I32, (r(0, 3), DType::I32), (r(-5, 1), DType::I32)),
            r(-5, 3)
        );
        assert_eq!(both(r(0, 10), r(5, 20)), r(5, 10));
        assert!(r(2, 3).unwrap().within(0, 3) && !r(-1, 3).unwrap().within(0, 3));
    }
}
