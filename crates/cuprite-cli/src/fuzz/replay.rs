//! The replay mode of the fuzzer: each program run eagerly and as a compiled program
//! (`cuprite_array::compile`): captured on the first call and replayed on the next two, every
//! call bit-identical to the eager run.
//!
//! The program's leaves are made from host data, which a capture refuses (the graph would copy
//! from host memory that is gone by the next replay): a first eager run records the leaves it
//! makes, and the compiled closure takes those from its environment ([`eval::with_leaves`]).
//! Its one input is a dummy array on the device (it gives the call its device). Random draws
//! repeat their seeds' numbers in every call (`repeat_random`), as the eager run draws them.

use super::arr::{Arr, IntoArr};
use super::eval::{self, Val};
use super::expr::Expr;
use cuprite_array::{Array, DType, Device, Element, Error, compile, with_device};

/// Words of the error of work a compiled program cannot capture (host reads, data-dependent
/// sizes, uploads): such a program counts as refused, not as a mismatch.
pub const REFUSED: &str = "inside a compiled program";

/// Calls of each compiled program: the capture and two replays.
pub const CALLS: usize = 3;

/// What one run gives: the dtype, the shape and the values.
type Values = (DType, Vec<usize>, Vec<Val>);

/// The shape and values of each call of a compiled program.
type Calls = Vec<(Vec<usize>, Vec<Val>)>;

/// Runs `e` on `device` as a compiled program [`CALLS`] times: the first call's result, or
/// `Err` when the capture fails or a later call gives other bits.
pub fn run_compiled(e: &Expr, device: Device) -> Result<Values, String> {
    with_device(device, || {
        let (eager, leaves) = eval::recording_leaves(|| eval::eval(e));
        let dtype = eager?.dtype();
        let dummy = Array::<u8>::from_slice_on(device, &[0], &[1]).map_err(|e| e.to_string())?;
        macro_rules! each {
            ($($V:ident: $t:ty),*) => {
                match dtype {
                    $(DType::$V => calls::<$t>(e, &leaves, &dummy, |a| match a {
                        Arr::$V(x) => Some(x),
                        _ => None,
                    }),)*
                }
            };
        }
        let runs = each!(Bool: bool, U8: u8, U16: u16, U32: u32, U64: u64, I8: i8, I16: i16,
            I32: i32, I64: i64, F16: cuprite_array::f16, BF16: cuprite_array::bf16, F32: f32,
            F64: f64, C32: cuprite_array::c32, C64: cuprite_array::c64)?;
        let (shape, first) = runs[0].clone();
        for (k, (s, v)) in runs.iter().enumerate().skip(1) {
            if *s != shape || v.len() != first.len() {
                return Err(format!(
                    "call {k} gave shape {s:?} ({} values), the capture's call {shape:?} ({})",
                    v.len(),
                    first.len()
                ));
            }
            if let Some(i) = (0..v.len()).find(|&i| !same_bits(&v[i], &first[i])) {
                return Err(format!(
                    "call {k} (a replay) differs from the capture's call at flat index {i}: \
                     {:?}, first {:?}",
                    v[i], first[i]
                ));
            }
        }
        Ok((dtype, shape, first))
    })
}

/// Whether two values are the same bits (NaN equal to NaN).
pub fn same_bits(a: &Val, b: &Val) -> bool {
    let eq = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Real(x), Val::Real(y)) => eq(*x, *y),
        (Val::Cplx(x, u), Val::Cplx(y, v)) => eq(*x, *y) && eq(*u, *v),
        _ => false,
    }
}

/// The shapes and values of [`CALLS`] calls of `e` compiled, its result an `Array<T>`.
fn calls<T: Element>(
    e: &Expr,
    leaves: &[Arr],
    dummy: &Array<u8>,
    pick: fn(Arr) -> Option<Array<T>>,
) -> Result<Calls, String>
where
    Array<T>: IntoArr,
{
    let prog = compile(|_: &[Array<u8>]| -> cuprite_array::Result<Vec<Array<T>>> {
        let a =
            eval::with_leaves(leaves.to_vec(), || eval::eval(e)).map_err(Error::InvalidArgument)?;
        let dt = a.dtype();
        let x = pick(a).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the compiled program gave {dt:?}, its eager run {:?}",
                T::DTYPE
            ))
        })?;
        Ok(vec![x])
    })
    .repeat_random(true);
    let mut out = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let r = prog.call(&[dummy]).map_err(|e| e.to_string())?;
        let a = r
            .into_iter()
            .next()
            .ok_or("a compiled program returned no array")?
            .into_arr();
        out.push((a.shape(), a.values()?));
    }
    Ok(out)
}
