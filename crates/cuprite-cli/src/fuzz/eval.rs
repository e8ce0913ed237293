//! Running a fuzz program on one device: [`Arr`] holds an array of any dtype, and every
//! operation of [`Expr`] is dispatched to the typed `cuprite_array` API.

use super::expr::{Expr, Move, Red, View};
use super::rng::Rng;
use cuprite_array::ops::{BinaryOp, UnaryOp};
use cuprite_array::shape::SliceArg;
use cuprite_array::{Array, DType, Device, Element, bf16, c32, c64, f16, with_device};

pub use super::elem::{FuzzElem, Val};

pub use super::arr::{Arr, IntoArr, api};
use super::arr::{on, on_all, on2};
use cuprite_array::ops::fft::FftOpts;
use cuprite_array::ops::{ReduceOpts, SortOpts, VarOpts};

/// Number of elements of `shape`.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// The shape of the array a leaf's view is taken from.
pub fn source_shape(shape: &[usize], view: &View) -> Vec<usize> {
    let mut s = shape.to_vec();
    match view {
        View::Contig => {}
        View::Transposed => s.reverse(),
        View::Stepped { step, offset } => {
            if let Some(l) = s.last_mut() {
                *l = (*l * step + offset).max(1);
            }
        }
        View::Reversed { offset } => {
            if let Some(l) = s.last_mut() {
                *l += offset;
            }
        }
        View::Broadcast(m) => {
            for (x, &b) in s.iter_mut().zip(m) {
                if b {
                    *x = 1;
                }
            }
        }
    }
    s
}

/// The data of a leaf's source array.
pub fn leaf_data<T: FuzzElem>(shape: &[usize], view: &View, seed: u64, special: bool) -> Vec<T> {
    let mut r = Rng::new(seed);
    (0..numel(&source_shape(shape, view)))
        .map(|_| T::random(&mut r, special))
        .collect()
}

/// The slice arguments a view takes from its source.
pub fn view_slice(shape: &[usize], view: &View) -> Option<Vec<SliceArg>> {
    let rank = shape.len();
    let full = SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    };
    let last = *shape.last()? as isize;
    let mut args = vec![full; rank];
    match view {
        View::Stepped { step, offset } => {
            args[rank - 1] = SliceArg::Range {
                start: Some(*offset as isize),
                end: Some(*offset as isize + last * *step as isize),
                step: *step as isize,
            };
        }
        View::Reversed { .. } => {
            // An empty axis: an empty range (`start: -1` would count from the end).
            args[rank - 1] = SliceArg::Range {
                start: Some((last - 1).max(0)),
                end: if last == 0 { Some(0) } else { None },
                step: -1,
            };
        }
        _ => return None,
    }
    Some(args)
}

fn leaf<T: FuzzElem>(
    shape: &[usize],
    view: &View,
    seed: u64,
    special: bool,
) -> Result<Array<T>, String> {
    let data = leaf_data::<T>(shape, view, seed, special);
    let src = Array::from_vec(data, &source_shape(shape, view)).map_err(api)?;
    let a = match view {
        View::Contig => Ok(src),
        View::Transposed => {
            let p: Vec<usize> = (0..shape.len()).rev().collect();
            src.permute(&p).map_err(api)
        }
        View::Broadcast(_) => src.broadcast_to(shape).map_err(api),
        _ => match view_slice(shape, view) {
            Some(args) => src.slice(&args).map_err(api),
            None => Ok(src),
        },
    }?;
    if COPY_LEAVES.with(|c| c.get()) {
        a.contiguous().map_err(api)
    } else {
        Ok(a)
    }
}

thread_local! {
    static COPY_LEAVES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static LEAVES: std::cell::RefCell<Option<Leaves>> = const { std::cell::RefCell::new(None) };
}

/// Where [`eval`] takes its leaves from, besides making them from their seeds.
enum Leaves {
    /// Make them, and keep each (in the order `eval` visits them).
    Record(Vec<Arr>),
    /// Hand out these, in order (made by a recording run of the same program).
    Replay(std::vec::IntoIter<Arr>),
}

impl Leaves {
    fn next(&mut self) -> Option<Arr> {
        match self {
            Leaves::Record(_) => None,
            Leaves::Replay(it) => it.next(),
        }
    }
}

/// Runs `f` (an [`eval`]) keeping every leaf it makes; returns them with its result.
pub fn recording_leaves<R>(f: impl FnOnce() -> R) -> (R, Vec<Arr>) {
    let prev = LEAVES.with(|l| l.replace(Some(Leaves::Record(Vec::new()))));
    let r = f();
    let made = match LEAVES.with(|l| l.replace(prev)) {
        Some(Leaves::Record(v)) => v,
        _ => Vec::new(),
    };
    (r, made)
}

/// Runs `f` (an [`eval`] of the program whose leaves were recorded) with `leaves` as its
/// leaves: no leaf is made from host data.
pub fn with_leaves<R>(leaves: Vec<Arr>, f: impl FnOnce() -> R) -> R {
    let prev = LEAVES.with(|l| l.replace(Some(Leaves::Replay(leaves.into_iter()))));
    let r = f();
    LEAVES.with(|l| l.replace(prev));
    r
}

/// Runs `f` with every leaf realised as a contiguous copy of its view (a second layout of the
/// same values: the CPU-only differential check), restoring the setting after.
pub fn with_copied_leaves<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            COPY_LEAVES.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(COPY_LEAVES.with(|c| c.replace(true)));
    f()
}

fn movement<T: FuzzElem>(a: &Array<T>, m: &Move) -> Result<Array<T>, String> {
    match m {
        Move::Reshape(s) => a.reshape(s),
        Move::Permute(p) => a.permute(p),
        Move::Slice(args) => {
            let args: Vec<SliceArg> = args
                .iter()
                .map(|x| match *x {
                    Ok((start, end, step)) => SliceArg::Range {
                        start: Some(start),
                        end,
                        step,
                    },
                    Err(i) => SliceArg::Index(i),
                })
                .collect();
            // An index drops its axis (NumPy's rule); the program's shapes keep it with
            // extent 1, so it is put back, lowest axis first.
            let mut r = a.slice(&args);
            for (ax, x) in args.iter().enumerate() {
                if matches!(x, SliceArg::Index(_)) {
                    r = r.and_then(|v| v.expand_dims(ax as isize));
                }
            }
            r
        }
        Move::BroadcastTo(s) => a.broadcast_to(s),
        Move::Flip(ax) => a.flip(ax),
        Move::Pad(w, v) => a.pad(w, T::from_f64(*v)),
        Move::Tile(r) => a.tile(r),
        Move::Roll(s, ax) => a.roll(*s, *ax),
        Move::ExpandDims(ax) => a.expand_dims(*ax),
    }
    .map_err(api)
}

fn concat<T: FuzzElem>(first: &Array<T>, rest: &[Arr], ax: isize) -> Result<Array<T>, String>
where
    Array<T>: IntoArr,
{
    let mut v: Vec<Array<T>> = vec![first.clone()];
    for r in rest {
        v.push(downcast::<T>(r)?);
    }
    let refs: Vec<&Array<T>> = v.iter().collect();
    Array::concat(&refs, ax).map_err(api)
}

/// The typed array inside `a` (its dtype must be `T`'s).
fn downcast<T: FuzzElem>(a: &Arr) -> Result<Array<T>, String> {
    if a.dtype() != T::DTYPE {
        return Err(format!(
            "fuzzer bug: {:?} where {:?} was expected",
            a.dtype(),
            T::DTYPE
        ));
    }
    fn via<T: Element, U: Element>(x: &Array<U>) -> Array<T> {
        // Same dtype: the cast is the identity (no graph node is added).
        x.cast::<T>()
    }
    Ok(match a {
        Arr::Bool(x) => via(x),
        Arr::U8(x) => via(x),
        Arr::U16(x) => via(x),
        Arr::U32(x) => via(x),
        Arr::U64(x) => via(x),
        Arr::I8(x) => via(x),
        Arr::I16(x) => via(x),
        Arr::I32(x) => via(x),
        Arr::I64(x) => via(x),
        Arr::F16(x) => via(x),
        Arr::BF16(x) => via(x),
        Arr::F32(x) => via(x),
        Arr::F64(x) => via(x),
        Arr::C32(x) => via(x),
        Arr::C64(x) => via(x),
    })
}

fn cast_to<T: Element>(a: &Array<T>, d: DType) -> Arr {
    match d {
        DType::Bool => a.cast::<bool>().into_arr(),
        DType::U8 => a.cast::<u8>().into_arr(),
        DType::U16 => a.cast::<u16>().into_arr(),
        DType::U32 => a.cast::<u32>().into_arr(),
        DType::U64 => a.cast::<u64>().into_arr(),
        DType::I8 => a.cast::<i8>().into_arr(),
        DType::I16 => a.cast::<i16>().into_arr(),
        DType::I32 => a.cast::<i32>().into_arr(),
        DType::I64 => a.cast::<i64>().into_arr(),
        DType::F16 => a.cast::<f16>().into_arr(),
        DType::BF16 => a.cast::<bf16>().into_arr(),
        DType::F32 => a.cast::<f32>().into_arr(),
        DType::F64 => a.cast::<f64>().into_arr(),
        DType::C32 => a.cast::<c32>().into_arr(),
        DType::C64 => a.cast::<c64>().into_arr(),
    }
}

fn gather_index(len: usize, seed: u64, extent: usize) -> Vec<i64> {
    let mut r = Rng::new(seed);
    (0..len)
        .map(|_| match r.below(8) {
            0 => r.next_u64() as i64,
            1 => -(r.below(4) as i64) - 1,
            _ => r.below(extent as u64 + 2) as i64,
        })
        .collect()
}

/// The index array of a gather, of dtype `d`.
pub fn gather_values(len: usize, seed: u64, extent: usize) -> Vec<i64> {
    gather_index(len, seed, extent)
}

/// Runs `e` on `dev` and reads the result back: `(dtype, shape, values)`, or the error.
pub fn run(e: &Expr, dev: Device) -> Result<(DType, Vec<usize>, Vec<Val>), String> {
    with_device(dev, || {
        let a = eval(e)?;
        let v = a.values()?;
        Ok((a.dtype(), a.shape(), v))
    })
}

/// Builds the (lazy) array of `e` on the current device.
pub fn eval(e: &Expr) -> Result<Arr, String> {
    match e {
        Expr::Leaf {
            dtype,
            shape,
            view,
            seed,
            special,
        } => {
            if let Some(a) = LEAVES.with(|l| l.borrow_mut().as_mut().and_then(Leaves::next)) {
                return Ok(a);
            }
            let (s, v, k, sp) = (shape, view, *seed, *special);
            let a: Result<Arr, String> = match dtype {
                DType::Bool => Ok(leaf::<bool>(s, v, k, sp)?.into_arr()),
                DType::U8 => Ok(leaf::<u8>(s, v, k, sp)?.into_arr()),
                DType::U16 => Ok(leaf::<u16>(s, v, k, sp)?.into_arr()),
                DType::U32 => Ok(leaf::<u32>(s, v, k, sp)?.into_arr()),
                DType::U64 => Ok(leaf::<u64>(s, v, k, sp)?.into_arr()),
                DType::I8 => Ok(leaf::<i8>(s, v, k, sp)?.into_arr()),
                DType::I16 => Ok(leaf::<i16>(s, v, k, sp)?.into_arr()),
                DType::I32 => Ok(leaf::<i32>(s, v, k, sp)?.into_arr()),
                DType::I64 => Ok(leaf::<i64>(s, v, k, sp)?.into_arr()),
                DType::F16 => Ok(leaf::<f16>(s, v, k, sp)?.into_arr()),
                DType::BF16 => Ok(leaf::<bf16>(s, v, k, sp)?.into_arr()),
                DType::F32 => Ok(leaf::<f32>(s, v, k, sp)?.into_arr()),
                DType::F64 => Ok(leaf::<f64>(s, v, k, sp)?.into_arr()),
                DType::C32 => Ok(leaf::<c32>(s, v, k, sp)?.into_arr()),
                DType::C64 => Ok(leaf::<c64>(s, v, k, sp)?.into_arr()),
            };
            let a = a?;
            LEAVES.with(|l| {
                if let Some(Leaves::Record(made)) = l.borrow_mut().as_mut() {
                    made.push(a.clone());
                }
            });
            Ok(a)
        }
        Expr::Const(d, v) => {
            let x = Array::<f64>::scalar(*v);
            let a = Arr::F64(x);
            cast(&a, *d)
        }
        Expr::Unary(op, a) => unary(*op, eval(a)?),
        Expr::Binary(op, a, b) => binary(*op, eval(a)?, eval(b)?),
        Expr::Cast(d, a) => cast(&eval(a)?, *d),
        Expr::Select(c, a, b) => {
            let Arr::Bool(c) = eval(c)? else {
                return Err("fuzzer bug: select condition not bool".into());
            };
            on2!(eval(a)?, eval(b)?; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64];
                x, y => Array::select(&c, &x, &y).map_err(api)?)
        }
        Expr::Reduce(r, axes, keep, a) => reduce(*r, axes, *keep, eval(a)?),
        Expr::Move(m, a) => on_all!(eval(a)?; x => movement(&x, m)?),
        Expr::Concat(ax, parts) => {
            let arrs: Vec<Arr> = parts.iter().map(eval).collect::<Result<_, _>>()?;
            let (first, rest) = arrs.split_first().ok_or("fuzzer bug: empty concat")?;
            on_all!(first.clone(); x => concat(&x, rest, *ax)?)
        }
        Expr::Gather(ax, idx, len, seed, a) => {
            let x = eval(a)?;
            let s = x.shape();
            let k = if *ax < 0 { *ax + s.len() as isize } else { *ax } as usize;
            let iv = gather_index(*len, *seed, s.get(k).copied().unwrap_or(0));
            let index = cast(&Arr::I64(Array::from_vec(iv, &[*len]).map_err(api)?), *idx)?;
            macro_rules! g {
                ($I:ident) => {{
                    let Arr::$I(i) = index else { unreachable!() };
                    // Out-of-range indices clamp (the fuzzer draws some on purpose).
                    on_all!(x; y => y
                        .take_with(&i, cuprite_array::ops::TakeOpts::new().axis(*ax).mode(cuprite_array::ops::IndexMode::Clamp))
                        .map_err(api)?)
                }};
            }
            match idx {
                DType::U8 => g!(U8),
                DType::I8 => g!(I8),
                DType::I32 => g!(I32),
                DType::U64 => g!(U64),
                _ => g!(I64),
            }
        }
        Expr::Cumsum(ax, a) => {
            on!(eval(a)?; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64];
            x => x.cumsum(*ax).map_err(api)?)
        }
        Expr::Matmul(a, b) => on2!(eval(a)?, eval(b)?; [F16, BF16, F32, F64, C32, C64];
            x, y => x.matmul(&y).map_err(api)?),
        Expr::Fft(ax, real, a) => {
            let x = eval(a)?;
            if *real {
                on!(x; [F32, F64]; y => y.rfft_with(FftOpts::new().axis(*ax)).map_err(api)?)
            } else {
                on!(x; [F32, F64, C32, C64]; y => y.fft_with(FftOpts::new().axis(*ax)).map_err(api)?)
            }
        }
        Expr::Softmax(ax, a) => {
            on!(eval(a)?; [F16, BF16, F32, F64]; x => x.softmax(*ax).map_err(api)?)
        }
        Expr::Sort(ax, desc, a) => {
            on!(eval(a)?; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
            x => x.sort_with(*ax, SortOpts::new().descending(*desc)).map_err(api)?)
        }
        Expr::ArgSort(ax, a) => {
            on!(eval(a)?; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
            x => x.argsort(*ax).map_err(api)?)
        }
        Expr::Cummax(ax, a) => {
            on!(eval(a)?; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
            x => x.cummax(*ax).map_err(api)?)
        }
        Expr::LogSoftmax(ax, a) => {
            on!(eval(a)?; [F16, BF16, F32, F64]; x => x.log_softmax(*ax).map_err(api)?)
        }
        Expr::LogSumExp(ax, keep, a) => {
            on!(eval(a)?; [F16, BF16, F32, F64]; x => x.logsumexp_with(*ax, ReduceOpts::new().keepdims(*keep)).map_err(api)?)
        }
        Expr::Op(row, d, shape, p, kids) => {
            let vals: Vec<Arr> = kids.iter().map(eval).collect::<Result<_, _>>()?;
            (row.eval)(&super::expr::params(p, *d, shape), vals)
        }
    }
}

/// `a` cast to `d`.
pub fn cast(a: &Arr, d: DType) -> Result<Arr, String> {
    Ok(match a {
        Arr::Bool(x) => cast_to(x, d),
        Arr::U8(x) => cast_to(x, d),
        Arr::U16(x) => cast_to(x, d),
        Arr::U32(x) => cast_to(x, d),
        Arr::U64(x) => cast_to(x, d),
        Arr::I8(x) => cast_to(x, d),
        Arr::I16(x) => cast_to(x, d),
        Arr::I32(x) => cast_to(x, d),
        Arr::I64(x) => cast_to(x, d),
        Arr::F16(x) => cast_to(x, d),
        Arr::BF16(x) => cast_to(x, d),
        Arr::F32(x) => cast_to(x, d),
        Arr::F64(x) => cast_to(x, d),
        Arr::C32(x) => cast_to(x, d),
        Arr::C64(x) => cast_to(x, d),
    })
}

fn unary(op: UnaryOp, a: Arr) -> Result<Arr, String> {
    use UnaryOp::*;
    macro_rules! float_un {
        ($($O:ident => $m:ident),*) => {
            match op {
                $($O => return on!(a; [F16, BF16, F32, F64]; x => x.$m()),)*
                _ => {}
            }
        };
    }
    float_un!(Floor => floor, Ceil => ceil, Round => round, Trunc => trunc, Rsqrt => rsqrt,
        Cbrt => cbrt, Exp2 => exp2, Expm1 => expm1, Log2 => log2, Log10 => log10,
        Log1p => log1p, Sin => sin, Cos => cos, Tan => tan, Asin => asin, Acos => acos,
        Atan => atan, Sinh => sinh, Cosh => cosh, Tanh => tanh, Asinh => asinh,
        Acosh => acosh, Atanh => atanh, Erf => erf, Erfc => erfc, Lgamma => lgamma,
        Tgamma => tgamma, Sigmoid => sigmoid);
    match op {
        Neg => on!(a; [I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x => -&x),
        Abs => match a {
            Arr::C32(x) => Ok(x.norm().into_arr()),
            Arr::C64(x) => Ok(x.norm().into_arr()),
            a => on!(a; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.abs()),
        },
        Sign => on!(a; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.sign()),
        Exp => on!(a; [F16, BF16, F32, F64, C32, C64]; x => x.exp()),
        Log => on!(a; [F16, BF16, F32, F64, C32, C64]; x => x.log()),
        Sqrt => on!(a; [F16, BF16, F32, F64, C32, C64]; x => x.sqrt()),
        IsNan => on!(a; [F16, BF16, F32, F64]; x => x.isnan()),
        IsInf => on!(a; [F16, BF16, F32, F64]; x => x.isinf()),
        IsFinite => on!(a; [F16, BF16, F32, F64]; x => x.isfinite()),
        Not => on!(a; [Bool]; x => !&x),
        BitNot => on!(a; [U8, U16, U32, U64, I8, I16, I32, I64]; x => !&x),
        Real => on!(a; [C32, C64]; x => x.real()),
        Imag => on!(a; [C32, C64]; x => x.imag()),
        Conj => on!(a; [C32, C64]; x => x.conj()),
        Arg => on!(a; [C32, C64]; x => x.arg()),
        FrexpMant => on!(a; [F16, BF16, F32, F64]; x => x.frexp().0),
        FrexpExp => on!(a; [F16, BF16, F32, F64]; x => x.frexp().1),
        ModfFrac => on!(a; [F16, BF16, F32, F64]; x => x.modf().0),
        I0 => on!(a; [F16, BF16, F32, F64]; x => x.i0()),
        SignBit => on!(a; [F16, BF16, F32, F64]; x => x.signbit()),
        BitCount => on!(a; [U8, U16, U32, U64, I8, I16, I32, I64]; x => x.bitwise_count()),
        other => Err(format!("fuzzer bug: unary {other:?} on {:?}", a.dtype())),
    }
}

fn binary(op: BinaryOp, a: Arr, b: Arr) -> Result<Arr, String> {
    use BinaryOp::*;
    match op {
        Add => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x, y => x.try_add(&y).map_err(api)?)
        }
        Sub => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x, y => x.try_sub(&y).map_err(api)?)
        }
        Mul => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x, y => x.try_mul(&y).map_err(api)?)
        }
        Div => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x, y => x.try_div(&y).map_err(api)?)
        }
        Rem => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.rem(&y))
        }
        Fmod => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.fmod(&y))
        }
        Pow => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.pow(&y))
        }
        Min => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.minimum(&y))
        }
        Max => {
            on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.maximum(&y))
        }
        Atan2 => on2!(a, b; [F16, BF16, F32, F64]; x, y => x.atan2(&y)),
        Hypot => on2!(a, b; [F16, BF16, F32, F64]; x, y => x.hypot(&y)),
        // The table's exponent operand is truncated; the generator draws whole numbers.
        Ldexp => on2!(a, b; [F16, BF16, F32, F64]; x, y => x.ldexp(&y.cast::<i64>()).map_err(api)?),
        Nextafter => on2!(a, b; [F16, BF16, F32, F64]; x, y => x.nextafter(&y).map_err(api)?),
        Copysign => on2!(a, b; [F16, BF16, F32, F64]; x, y => x.copysign(&y).map_err(api)?),
        Gcd => on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64]; x, y => x.gcd(&y).map_err(api)?),
        Lcm => on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64]; x, y => x.lcm(&y).map_err(api)?),
        Eq => {
            on2!(a, b; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x, y => x.equal(&y))
        }
        Ne => {
            on2!(a, b; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x, y => x.not_equal(&y))
        }
        Lt => {
            on2!(a, b; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.less(&y))
        }
        Le => {
            on2!(a, b; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.less_equal(&y))
        }
        Gt => {
            on2!(a, b; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.greater(&y))
        }
        Ge => {
            on2!(a, b; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x, y => x.greater_equal(&y))
        }
        And => on2!(a, b; [Bool]; x, y => x.and(&y)),
        Or => on2!(a, b; [Bool]; x, y => x.or(&y)),
        Xor => on2!(a, b; [Bool]; x, y => x.xor(&y)),
        BitAnd => on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64]; x, y => &x & &y),
        BitOr => on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64]; x, y => &x | &y),
        BitXor => on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64]; x, y => &x ^ &y),
        Shl => on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64]; x, y => &x << &y),
        Shr => on2!(a, b; [U8, U16, U32, U64, I8, I16, I32, I64]; x, y => &x >> &y),
    }
}

fn reduce(r: Red, axes: &Option<Vec<isize>>, keep: bool, a: Arr) -> Result<Arr, String> {
    let ax: Vec<isize> = match axes {
        Some(v) => v.clone(),
        None => (0..a.shape().len() as isize).collect(),
    };
    let (ax, k) = (&ax[..], keep);
    let one = ax.first().copied().unwrap_or(0);
    match r {
        Red::Sum => {
            on!(a; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x => x.cast_numeric_sum(ax, k)?)
        }
        Red::Prod => {
            on!(a; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x => x.prod_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::Mean => {
            on!(a; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; x => x.mean_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::Min => {
            on!(a; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.min_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::Max => {
            on!(a; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.max_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::ArgMin => {
            on!(a; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.argmin_axis_with(one, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::ArgMax => {
            on!(a; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.argmax_axis_with(one, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::Any => {
            on_all!(a; x => x.any_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::All => {
            on_all!(a; x => x.all_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::Count => {
            on_all!(a; x => x.count_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
        Red::Var(dd) => {
            on!(a; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.var_axes_with(ax, VarOpts::new().ddof(dd).keepdims(k)).map_err(api)?)
        }
        Red::Std(dd) => {
            on!(a; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.std_axes_with(ax, VarOpts::new().ddof(dd).keepdims(k)).map_err(api)?)
        }
        Red::NanSum => {
            on!(a; [F16, BF16, F32, F64]; x => x.nansum_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)?)
        }
    }
}

/// `sum_axes`, which `bool` has through its `i64` cast (it is not `Numeric`).
trait SumAxes {
    type Out: Element;
    fn cast_numeric_sum(&self, ax: &[isize], k: bool) -> Result<Array<Self::Out>, String>;
}
macro_rules! sum_numeric {
    ($($t:ty),*) => {$(
        impl SumAxes for Array<$t> {
            type Out = <$t as Element>::Accum;
            fn cast_numeric_sum(&self, ax: &[isize], k: bool) -> Result<Array<Self::Out>, String> {
                self.sum_axes_with(ax, ReduceOpts::new().keepdims(k)).map_err(api)
            }
        }
    )*};
}
sum_numeric!(
    u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64, c32, c64
);
impl SumAxes for Array<bool> {
    type Out = i64;
    fn cast_numeric_sum(&self, ax: &[isize], k: bool) -> Result<Array<i64>, String> {
        self.cast::<i64>()
            .sum_axes_with(ax, ReduceOpts::new().keepdims(k))
            .map_err(api)
    }
}
