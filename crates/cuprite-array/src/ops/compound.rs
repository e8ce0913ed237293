//! Compound assignment (`+=`, `-=`, `*=`, `/=`, `%=`, `&=`, `|=`, `^=`, `<<=`, `>>=`) on
//! [`Array`]: `a += b` rebinds `a` to the lazy node `a + b`, so it is copy-on-write as
//! [`Array::assign`] is: clones and views of the old array keep their values.
//!
//! Like the binary operators, each panics (at the caller's line) when the shapes do not
//! broadcast to `a`'s shape or the devices differ; the `try_*` methods (`try_add`, ...) return
//! that `Err`. The result keeps `a`'s shape: an operand that would broadcast `a` to a larger
//! shape panics too, as NumPy's in-place operators raise.
//!
//! ```
//! use cuprite_array::Array;
//! let mut a = Array::from_slice(&[1i32, 2, 3], &[3])?;
//! let before = a.clone();
//! a += 10;
//! a *= &Array::from_slice(&[1, -1, 2], &[3])?;
//! a %= 7;
//! assert_eq!(a.to_vec()?, [4, 2, 5]);
//! assert_eq!(before.to_vec()?, [1, 2, 3]); // copy-on-write
//! # Ok::<(), cuprite_array::Error>(())
//! ```

use crate::array::{Array, Operand};
use crate::dtype::{Bits, Integer, Numeric, Ordered};
use std::ops;

/// Rebinds `a` to `f(a)` after checking the result kept `a`'s shape.
#[track_caller]
fn rebind<T: crate::dtype::Element>(a: &mut Array<T>, r: Array<T>, what: &str) {
    if r.shape() != a.shape() {
        panic!(
            "{what}: the result's shape {:?} differs from the array's {:?} (an in-place operation \
             cannot broadcast its target)",
            r.shape(),
            a.shape()
        );
    }
    *a = r;
}

macro_rules! compound {
    ([$($bound:tt)+], $Tr:ident, $f:ident, $try:ident, $sym:literal) => {
        impl<T: $($bound)+, R: Operand<T>> ops::$Tr<R> for Array<T> {
            #[track_caller]
            fn $f(&mut self, rhs: R) {
                let r = self.$try(rhs).unwrap_or_else(|e| panic!("{e}"));
                rebind(self, r, $sym);
            }
        }
    };
}

compound!([Numeric], AddAssign, add_assign, try_add, "+=");
compound!([Numeric], SubAssign, sub_assign, try_sub, "-=");
compound!([Numeric], MulAssign, mul_assign, try_mul, "*=");
compound!([Numeric], DivAssign, div_assign, try_div, "/=");
compound!([Bits], BitAndAssign, bitand_assign, try_bitand, "&=");
compound!([Bits], BitOrAssign, bitor_assign, try_bitor, "|=");
compound!([Bits], BitXorAssign, bitxor_assign, try_bitxor, "^=");
compound!([Integer], ShlAssign, shl_assign, try_shl, "<<=");
compound!([Integer], ShrAssign, shr_assign, try_shr, ">>=");

// `%=`: NumPy's remainder (the divisor's sign), as `%`.
compound!([Numeric + Ordered], RemAssign, rem_assign, try_rem, "%=");
