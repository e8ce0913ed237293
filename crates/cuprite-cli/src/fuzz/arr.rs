//! [`Arr`]: an array of any dtype, and the macros that dispatch an operation over its
//! variants to the typed `cuprite_array` API.

use super::elem::{FuzzElem, Val};
use cuprite_array::{Array, DType, Element, bf16, c32, c64, f16};

/// An array of any dtype.
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub enum Arr {
    Bool(Array<bool>),
    U8(Array<u8>),
    U16(Array<u16>),
    U32(Array<u32>),
    U64(Array<u64>),
    I8(Array<i8>),
    I16(Array<i16>),
    I32(Array<i32>),
    I64(Array<i64>),
    F16(Array<f16>),
    BF16(Array<bf16>),
    F32(Array<f32>),
    F64(Array<f64>),
    C32(Array<c32>),
    C64(Array<c64>),
}

/// Wraps a typed array.
pub trait IntoArr {
    /// The array as an [`Arr`].
    fn into_arr(self) -> Arr;
}

macro_rules! into_arr {
    ($($V:ident: $t:ty),*) => {$(
        impl IntoArr for Array<$t> {
            fn into_arr(self) -> Arr { Arr::$V(self) }
        }
    )*};
}
into_arr!(Bool: bool, U8: u8, U16: u16, U32: u32, U64: u64, I8: i8, I16: i16, I32: i32,
    I64: i64, F16: f16, BF16: bf16, F32: f32, F64: f64, C32: c32, C64: c64);

/// `match` over the listed variants of one [`Arr`]; the body's array is wrapped back.
macro_rules! on {
    ($x:expr; [$($V:ident),*]; $a:ident => $body:expr) => {
        match $x {
            $(Arr::$V($a) => Ok(IntoArr::into_arr($body)),)*
            #[allow(unreachable_patterns)]
            other => Err(format!("fuzzer bug: {:?} given to an operation not defined for it", other.dtype())),
        }
    };
}
/// `match` over two [`Arr`]s of the same listed variant.
macro_rules! on2 {
    ($x:expr, $y:expr; [$($V:ident),*]; $a:ident, $b:ident => $body:expr) => {
        match ($x, $y) {
            $((Arr::$V($a), Arr::$V($b)) => Ok(IntoArr::into_arr($body)),)*
            #[allow(unreachable_patterns)]
            (p, q) => Err(format!("fuzzer bug: {:?} and {:?} given to a binary operation", p.dtype(), q.dtype())),
        }
    };
}
/// Every variant, for a body generic over `FuzzElem`.
macro_rules! on_all {
    ($x:expr; $a:ident => $body:expr) => {
        on!($x; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C32, C64]; $a => $body)
    };
}
pub(super) use {on, on_all, on2};

impl Arr {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Arr::Bool(_) => DType::Bool,
            Arr::U8(_) => DType::U8,
            Arr::U16(_) => DType::U16,
            Arr::U32(_) => DType::U32,
            Arr::U64(_) => DType::U64,
            Arr::I8(_) => DType::I8,
            Arr::I16(_) => DType::I16,
            Arr::I32(_) => DType::I32,
            Arr::I64(_) => DType::I64,
            Arr::F16(_) => DType::F16,
            Arr::BF16(_) => DType::BF16,
            Arr::F32(_) => DType::F32,
            Arr::F64(_) => DType::F64,
            Arr::C32(_) => DType::C32,
            Arr::C64(_) => DType::C64,
        }
    }

    /// The shape.
    pub fn shape(&self) -> Vec<usize> {
        fn s<T: Element>(a: &Array<T>) -> Vec<usize> {
            a.shape().to_vec()
        }
        match self {
            Arr::Bool(a) => s(a),
            Arr::U8(a) => s(a),
            Arr::U16(a) => s(a),
            Arr::U32(a) => s(a),
            Arr::U64(a) => s(a),
            Arr::I8(a) => s(a),
            Arr::I16(a) => s(a),
            Arr::I32(a) => s(a),
            Arr::I64(a) => s(a),
            Arr::F16(a) => s(a),
            Arr::BF16(a) => s(a),
            Arr::F32(a) => s(a),
            Arr::F64(a) => s(a),
            Arr::C32(a) => s(a),
            Arr::C64(a) => s(a),
        }
    }

    /// The values, read back to the host.
    pub fn values(&self) -> Result<Vec<Val>, String> {
        fn v<T: FuzzElem>(a: &Array<T>) -> Result<Vec<Val>, String> {
            Ok(a.to_vec().map_err(api)?.into_iter().map(T::val).collect())
        }
        match self {
            Arr::Bool(a) => v(a),
            Arr::U8(a) => v(a),
            Arr::U16(a) => v(a),
            Arr::U32(a) => v(a),
            Arr::U64(a) => v(a),
            Arr::I8(a) => v(a),
            Arr::I16(a) => v(a),
            Arr::I32(a) => v(a),
            Arr::I64(a) => v(a),
            Arr::F16(a) => v(a),
            Arr::BF16(a) => v(a),
            Arr::F32(a) => v(a),
            Arr::F64(a) => v(a),
            Arr::C32(a) => v(a),
            Arr::C64(a) => v(a),
        }
    }
}

/// An API error as text: its kind (the enum variant) first, so that both backends' errors
/// compare by kind.
pub fn api(e: cuprite_array::Error) -> String {
    // `Debug` is the variant's name, then `(`driver variant`)` or `: ` and the message.
    let debug = format!("{e:?}");
    let kind = debug.split(['(', ':']).next().unwrap_or("");
    format!("{kind}: {e}")
}
