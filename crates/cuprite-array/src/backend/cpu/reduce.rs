//! Reductions of the CPU evaluator: `outer` rows of `inner` values folded in parallel.

use super::elementwise::{fmax, fmin};
use super::values::Vals;
use super::{CHUNK, run_chunk, store};
use crate::dtype::{Class, DType, Scalar, c32, c64};
use crate::error::Result;
use crate::graph::Program;
use crate::op::ReduceOp;
use crate::storage::HostBuf;
use rayon::prelude::*;

/// An accumulator of one reduction.
#[derive(Clone, Copy, Debug)]
enum Acc {
    F(f64),
    I(i64),
    U(u64),
    C(c64),
    /// Best value so far (as a scalar) and its index.
    Arg(Option<(Scalar, usize)>),
}

fn acc_init(op: ReduceOp, class: Class) -> Acc {
    use ReduceOp::*;
    match (op, class) {
        (ArgMin | ArgMax | NanArgMin | NanArgMax, _) => Acc::Arg(None),
        // No number yet: NaN, which every number replaces.
        (NanMin | NanMax, Class::F32 | Class::F64) => Acc::F(f64::NAN),
        (Any, _) => Acc::U(0),
        (All, _) => Acc::U(1),
        (Sum, Class::F32 | Class::F64) => Acc::F(0.0),
        (Prod, Class::F32 | Class::F64) => Acc::F(1.0),
        (Min, Class::F32 | Class::F64) => Acc::F(f64::INFINITY),
        (Max, Class::F32 | Class::F64) => Acc::F(f64::NEG_INFINITY),
        (Sum, Class::C32 | Class::C64) => Acc::C(c64::new(0.0, 0.0)),
        (Prod, Class::C32 | Class::C64) => Acc::C(c64::new(1.0, 0.0)),
        (Sum, Class::I64) => Acc::I(0),
        (Prod, Class::I64) => Acc::I(1),
        (Min, Class::I64) => Acc::I(i64::MAX),
        (Max, Class::I64) => Acc::I(i64::MIN),
        (Sum, Class::U64) => Acc::U(0),
        (Prod, Class::U64) => Acc::U(1),
        (Min, Class::U64) => Acc::U(u64::MAX),
        (Max, Class::U64) => Acc::U(0),
        (o, c) => unreachable!("{o:?} on {c:?}"),
    }
}

fn scalar_lt(a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => x < y,
        (Scalar::F64(x), Scalar::F64(y)) => x < y,
        (Scalar::I64(x), Scalar::I64(y)) => x < y,
        (Scalar::U64(x), Scalar::U64(y)) => x < y,
        _ => false,
    }
}

fn scalar_nan(a: Scalar) -> bool {
    match a {
        Scalar::F32(x) => x.is_nan(),
        Scalar::F64(x) => x.is_nan(),
        _ => false,
    }
}

/// Whether candidate `(v, i)` beats the current best `(b, j)` for argmin (`min`) / argmax.
fn arg_better(min: bool, v: Scalar, i: usize, b: Scalar, j: usize) -> bool {
    let (vn, bn) = (scalar_nan(v), scalar_nan(b));
    if bn {
        return vn && i < j;
    }
    if vn {
        return true;
    }
    let better = if min {
        scalar_lt(v, b)
    } else {
        scalar_lt(b, v)
    };
    better || (!scalar_lt(v, b) && !scalar_lt(b, v) && i < j)
}

/// `pick(x, y)` (NaN-propagating `fmin`/`fmax`) with a NaN operand giving way to the other:
/// NaN only when both are.
fn skip_nan(x: f64, y: f64, pick: fn(f64, f64) -> f64) -> f64 {
    if y.is_nan() {
        x
    } else if x.is_nan() {
        y
    } else {
        pick(x, y)
    }
}

fn combine(op: ReduceOp, a: Acc, b: Acc) -> Acc {
    use ReduceOp::*;
    match (op, a, b) {
        (Sum, Acc::F(x), Acc::F(y)) => Acc::F(x + y),
        (Prod, Acc::F(x), Acc::F(y)) => Acc::F(x * y),
        (Min, Acc::F(x), Acc::F(y)) => Acc::F(fmin(x, y)),
        (Max, Acc::F(x), Acc::F(y)) => Acc::F(fmax(x, y)),
        (NanMin, Acc::F(x), Acc::F(y)) => Acc::F(skip_nan(x, y, fmin)),
        (NanMax, Acc::F(x), Acc::F(y)) => Acc::F(skip_nan(x, y, fmax)),
        (Sum, Acc::C(x), Acc::C(y)) => Acc::C(x + y),
        (Prod, Acc::C(x), Acc::C(y)) => Acc::C(c64::new(
            x.re * y.re - x.im * y.im,
            x.re * y.im + x.im * y.re,
        )),
        (Sum, Acc::I(x), Acc::I(y)) => Acc::I(x.wrapping_add(y)),
        (Prod, Acc::I(x), Acc::I(y)) => Acc::I(x.wrapping_mul(y)),
        (Min, Acc::I(x), Acc::I(y)) => Acc::I(x.min(y)),
        (Max, Acc::I(x), Acc::I(y)) => Acc::I(x.max(y)),
        (Sum, Acc::U(x), Acc::U(y)) => Acc::U(x.wrapping_add(y)),
        (Prod, Acc::U(x), Acc::U(y)) => Acc::U(x.wrapping_mul(y)),
        (Min, Acc::U(x), Acc::U(y)) => Acc::U(x.min(y)),
        (Max, Acc::U(x), Acc::U(y)) => Acc::U(x.max(y)),
        (Any, Acc::U(x), Acc::U(y)) => Acc::U(((x | y) != 0) as u64),
        (All, Acc::U(x), Acc::U(y)) => Acc::U(((x != 0) && (y != 0)) as u64),
        (ArgMin | ArgMax | NanArgMin | NanArgMax, Acc::Arg(x), Acc::Arg(y)) => match (x, y) {
            (None, y) => Acc::Arg(y),
            (x, None) => Acc::Arg(x),
            (Some((v, i)), Some((w, j))) => {
                if arg_better(op.is_min(), w, j, v, i) {
                    Acc::Arg(Some((w, j)))
                } else {
                    Acc::Arg(Some((v, i)))
                }
            }
        },
        (o, a, b) => unreachable!("combine {o:?} {a:?} {b:?}"),
    }
}

/// Folds a chunk of values (whose first element has reduction index `base`) into `acc`.
fn fold(op: ReduceOp, mut acc: Acc, v: &Vals, base: usize) -> Acc {
    use ReduceOp::*;
    match (op, &mut acc) {
        (ArgMin | ArgMax, _) => {
            for i in 0..v.len() {
                acc = combine(op, acc, Acc::Arg(Some((v.get(i), base + i))));
            }
            acc
        }
        // A NaN does not enter: the accumulators never hold one.
        (NanArgMin | NanArgMax, _) => {
            for i in 0..v.len() {
                let x = v.get(i);
                if !scalar_nan(x) {
                    acc = combine(op, acc, Acc::Arg(Some((x, base + i))));
                }
            }
            acc
        }
        (Any | All, _) => {
            let f = |s: Scalar| Acc::U(!s.is_zero() as u64);
            for i in 0..v.len() {
                acc = combine(op, acc, f(v.get(i)));
            }
            acc
        }
        (_, Acc::F(a)) => {
            let mut x = *a;
            match (op, v) {
                (Sum, Vals::F32(v)) => x += v.iter().map(|&y| y as f64).sum::<f64>(),
                (Sum, Vals::F64(v)) => x += v.iter().sum::<f64>(),
                (Prod, Vals::F32(v)) => v.iter().for_each(|&y| x *= y as f64),
                (Prod, Vals::F64(v)) => v.iter().for_each(|&y| x *= y),
                (Min, Vals::F32(v)) => v.iter().for_each(|&y| x = fmin(x, y as f64)),
                (Min, Vals::F64(v)) => v.iter().for_each(|&y| x = fmin(x, y)),
                (Max, Vals::F32(v)) => v.iter().for_each(|&y| x = fmax(x, y as f64)),
                (Max, Vals::F64(v)) => v.iter().for_each(|&y| x = fmax(x, y)),
                (NanMin, Vals::F32(v)) => v.iter().for_each(|&y| x = skip_nan(x, y as f64, fmin)),
                (NanMin, Vals::F64(v)) => v.iter().for_each(|&y| x = skip_nan(x, y, fmin)),
                (NanMax, Vals::F32(v)) => v.iter().for_each(|&y| x = skip_nan(x, y as f64, fmax)),
                (NanMax, Vals::F64(v)) => v.iter().for_each(|&y| x = skip_nan(x, y, fmax)),
                _ => unreachable!(),
            }
            Acc::F(x)
        }
        (_, _) => {
            for i in 0..v.len() {
                let e = match (v.get(i), acc) {
                    (Scalar::I64(y), Acc::I(_)) => Acc::I(y),
                    (Scalar::U64(y), Acc::U(_)) => Acc::U(y),
                    (Scalar::C32(y), Acc::C(_)) => Acc::C(c64::new(y.re as f64, y.im as f64)),
                    (Scalar::C64(y), Acc::C(_)) => Acc::C(y),
                    (s, a) => unreachable!("fold {s:?} into {a:?}"),
                };
                // A `c32` product is computed in `f32` at every step, as NumPy and the CUDA
                // kernels compute it: a partial product that overflows `f32` becomes infinite,
                // and the next product's cross terms NaN, where `f64` would stay finite.
                if let (Prod, Scalar::C32(y), Acc::C(x)) = (op, v.get(i), acc) {
                    let (a, b) = (x.re as f32, x.im as f32);
                    let (re, im) = (a * y.re - b * y.im, a * y.im + b * y.re);
                    acc = Acc::C(c64::new(re as f64, im as f64));
                    continue;
                }
                acc = combine(op, acc, e);
            }
            acc
        }
    }
}

fn acc_scalar(op: ReduceOp, acc: Acc, src: DType, out: DType) -> Scalar {
    let s = match acc {
        Acc::F(x) => {
            if src.class() == Class::F32 {
                Scalar::F32(x as f32)
            } else {
                Scalar::F64(x)
            }
        }
        Acc::I(x) => Scalar::I64(x),
        Acc::U(x) => Scalar::U64(x),
        Acc::C(z) => {
            if src == DType::C32 {
                Scalar::C32(c32::new(z.re as f32, z.im as f32))
            } else {
                Scalar::C64(z)
            }
        }
        // No element entered: a row of only NaNs for the NaN-ignoring forms (-1).
        Acc::Arg(a) => {
            Scalar::I64(a.map_or(if op.skips_nan() { -1 } else { 0 }, |(_, i)| i as i64))
        }
    };
    s.cast(out)
}

/// Reduces the one output of `prog` (shape `[outer.., inner..]` flattened as `outer x inner`)
/// along its last `inner` elements per row, giving `outer` values of `out`.
pub(crate) fn reduce(
    prog: &Program,
    op: ReduceOp,
    outer: usize,
    inner: usize,
    out: DType,
) -> Result<HostBuf> {
    let src = prog.instrs[prog.outputs[0]].dtype;
    let class = src.class();
    let row = |o: usize, lo: usize, hi: usize| -> Acc {
        let mut acc = acc_init(op, class);
        let mut i = lo;
        while i < hi {
            let len = CHUNK.min(hi - i);
            let v = run_chunk(prog, o * inner + i, len);
            acc = fold(op, acc, &v[0], i);
            i += len;
        }
        acc
    };
    let accs: Vec<Acc> = if outer >= rayon::current_num_threads() * 2 || inner <= CHUNK {
        (0..outer)
            .into_par_iter()
            .map(|o| row(o, 0, inner))
            .collect()
    } else {
        (0..outer)
            .map(|o| {
                let parts: Vec<Acc> = (0..inner.div_ceil(CHUNK * 4))
                    .into_par_iter()
                    .map(|c| row(o, c * CHUNK * 4, ((c + 1) * CHUNK * 4).min(inner)))
                    .collect();
                parts
                    .into_iter()
                    .fold(acc_init(op, class), |a, b| combine(op, a, b))
            })
            .collect()
    };
    let vals = Vals::from_scalars(out, accs.iter().map(|a| acc_scalar(op, *a, src, out)));
    let mut buf = HostBuf::zeroed(out, outer)?;
    let p = buf.bytes_mut().as_mut_ptr();
    // SAFETY: the buffer holds `outer` elements of `out`, written once each, on this thread.
    unsafe { store(p, out, 0..outer, &vals) };
    Ok(buf)
}
