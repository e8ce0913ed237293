//! `+ - * /` and unary `-` on [`Sharded`] arrays: sugar over [`Sharded::try_zip`] and
//! [`Sharded::try_map`] for one element type.
//!
//! # Panics
//!
//! Like the operators on [`Array`], they panic at the caller's line (`#[track_caller]`),
//! naming both layouts or shapes, where the operands do not fit: different meshes, different
//! splits, shapes that do not broadcast. The `try_*` methods ([`try_add`](Sharded::try_add),
//! [`try_sub`](Sharded::try_sub), [`try_mul`](Sharded::try_mul), [`try_div`](Sharded::try_div))
//! return the same condition as an `Err`.

use super::sharded::Sharded;
use crate::array::Array;
use crate::dtype::{Numeric, Signed};
use crate::error::Result;
use std::ops;

impl<T: Numeric> Sharded<T> {
    /// `self + rhs` rank by rank, or an `Err` (see [`zip`](Self::zip) for the layouts).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::Mesh};
    /// let m = Mesh::cpu(2)?;
    /// let a = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0, 3.0], &[3])?.shard(&m, 0)?;
    /// assert_eq!(a.try_add(&a)?.gather(Device::CPU)?.to_vec()?, [2.0, 4.0, 6.0]);
    /// let b = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0, 3.0], &[3])?.shard(&Mesh::cpu(3)?, 0)?;
    /// assert!(a.try_add(&b).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn try_add(&self, rhs: &Sharded<T>) -> Result<Sharded<T>> {
        self.try_zip(rhs, |a, b| a.try_add(b))
    }
    /// `self - rhs` rank by rank, or an `Err`.
    pub fn try_sub(&self, rhs: &Sharded<T>) -> Result<Sharded<T>> {
        self.try_zip(rhs, |a, b| a.try_sub(b))
    }
    /// `self * rhs` rank by rank, or an `Err`.
    pub fn try_mul(&self, rhs: &Sharded<T>) -> Result<Sharded<T>> {
        self.try_zip(rhs, |a, b| a.try_mul(b))
    }
    /// `self / rhs` rank by rank, or an `Err`.
    pub fn try_div(&self, rhs: &Sharded<T>) -> Result<Sharded<T>> {
        self.try_zip(rhs, |a, b| a.try_div(b))
    }
}

/// The result, or a panic with the error's message at the caller's operator.
#[track_caller]
fn unwrap<T: crate::dtype::Element>(r: Result<Sharded<T>>) -> Sharded<T> {
    match r {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

macro_rules! sharded_op {
    ($Tr:ident, $f:ident, $try:ident) => {
        impl<T: Numeric> ops::$Tr<&Sharded<T>> for &Sharded<T> {
            type Output = Sharded<T>;
            #[track_caller]
            fn $f(self, rhs: &Sharded<T>) -> Sharded<T> {
                unwrap(self.$try(rhs))
            }
        }
        impl<T: Numeric> ops::$Tr<Sharded<T>> for Sharded<T> {
            type Output = Sharded<T>;
            #[track_caller]
            fn $f(self, rhs: Sharded<T>) -> Sharded<T> {
                unwrap(self.$try(&rhs))
            }
        }
        impl<T: Numeric> ops::$Tr<&Sharded<T>> for Sharded<T> {
            type Output = Sharded<T>;
            #[track_caller]
            fn $f(self, rhs: &Sharded<T>) -> Sharded<T> {
                unwrap(self.$try(rhs))
            }
        }
        impl<T: Numeric> ops::$Tr<T> for &Sharded<T> {
            type Output = Sharded<T>;
            #[track_caller]
            fn $f(self, rhs: T) -> Sharded<T> {
                unwrap(self.try_map(|a: &Array<T>| a.$try(rhs)))
            }
        }
        impl<T: Numeric> ops::$Tr<T> for Sharded<T> {
            type Output = Sharded<T>;
            #[track_caller]
            fn $f(self, rhs: T) -> Sharded<T> {
                unwrap(self.try_map(|a: &Array<T>| a.$try(rhs)))
            }
        }
    };
}

sharded_op!(Add, add, try_add);
sharded_op!(Sub, sub, try_sub);
sharded_op!(Mul, mul, try_mul);
sharded_op!(Div, div, try_div);

impl<T: Signed> ops::Neg for &Sharded<T> {
    type Output = Sharded<T>;
    #[track_caller]
    fn neg(self) -> Sharded<T> {
        unwrap(self.map(|a| -a))
    }
}
impl<T: Signed> ops::Neg for Sharded<T> {
    type Output = Sharded<T>;
    #[track_caller]
    fn neg(self) -> Sharded<T> {
        -&self
    }
}
