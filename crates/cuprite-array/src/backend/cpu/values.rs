//! A chunk of values of the CPU evaluator, in their compute class.

use crate::dtype::{Class, DType, Scalar, c32, c64};
use half::{bf16, f16};

/// A chunk of values in their compute class.
#[derive(Clone, Debug)]
pub(crate) enum Vals {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    C32(Vec<c32>),
    C64(Vec<c64>),
}

impl Vals {
    pub(super) fn len(&self) -> usize {
        match self {
            Vals::F32(v) => v.len(),
            Vals::F64(v) => v.len(),
            Vals::I64(v) => v.len(),
            Vals::U64(v) => v.len(),
            Vals::C32(v) => v.len(),
            Vals::C64(v) => v.len(),
        }
    }

    pub(super) fn splat(s: Scalar, n: usize) -> Vals {
        match s {
            Scalar::F32(x) => Vals::F32(vec![x; n]),
            Scalar::F64(x) => Vals::F64(vec![x; n]),
            Scalar::I64(x) => Vals::I64(vec![x; n]),
            Scalar::U64(x) => Vals::U64(vec![x; n]),
            Scalar::C32(x) => Vals::C32(vec![x; n]),
            Scalar::C64(x) => Vals::C64(vec![x; n]),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Scalar {
        match self {
            Vals::F32(v) => Scalar::F32(v[i]),
            Vals::F64(v) => Scalar::F64(v[i]),
            Vals::I64(v) => Scalar::I64(v[i]),
            Vals::U64(v) => Scalar::U64(v[i]),
            Vals::C32(v) => Scalar::C32(v[i]),
            Vals::C64(v) => Scalar::C64(v[i]),
        }
    }

    /// Collects scalars that all have the class of `d` (the evaluator only produces those).
    pub(super) fn from_scalars(d: DType, it: impl Iterator<Item = Scalar>) -> Vals {
        macro_rules! collect {
            ($($class:ident),*) => {
                match d.class() {
                    $(Class::$class => Vals::$class(
                        it.map(|s| match s {
                            Scalar::$class(x) => x,
                            other => unreachable!("a {other:?} in a {d:?} column"),
                        })
                        .collect(),
                    ),)*
                }
            };
        }
        collect!(F32, F64, I64, U64, C32, C64)
    }

    /// Wraps integers to the width of `d` and rounds half floats.
    pub(super) fn normalize(&mut self, d: DType) {
        match (self, d) {
            (Vals::F32(v), DType::F16) => {
                v.iter_mut().for_each(|x| *x = f16::from_f32(*x).to_f32())
            }
            (Vals::F32(v), DType::BF16) => {
                v.iter_mut().for_each(|x| *x = bf16::from_f32(*x).to_f32())
            }
            (Vals::I64(v), DType::I8) => v.iter_mut().for_each(|x| *x = *x as i8 as i64),
            (Vals::I64(v), DType::I16) => v.iter_mut().for_each(|x| *x = *x as i16 as i64),
            (Vals::I64(v), DType::I32) => v.iter_mut().for_each(|x| *x = *x as i32 as i64),
            (Vals::U64(v), DType::U8) => v.iter_mut().for_each(|x| *x = *x as u8 as u64),
            (Vals::U64(v), DType::U16) => v.iter_mut().for_each(|x| *x = *x as u16 as u64),
            (Vals::U64(v), DType::U32) => v.iter_mut().for_each(|x| *x = *x as u32 as u64),
            (Vals::U64(v), DType::Bool) => v.iter_mut().for_each(|x| *x = (*x != 0) as u64),
            _ => {}
        }
    }
}
