//! The operation catalogue: which element-wise operations exist, the dtype each produces, and
//! the semantics both backends implement (documented here, tested in `tests/`).
//!
//! Owns names and typing only; evaluation lives in `backend::cpu` and `codegen`.
//!
//! # Semantics shared by both backends
//!
//! - Integer arithmetic wraps (two's complement), as Rust's `wrapping_*` operations.
//! - **Integer division by zero** gives `0`, and the remainder by zero gives `0` too; `MIN / -1`
//!   wraps to `MIN` (and `MIN % -1` is `0`). Never undefined behaviour.
//! - `rem` truncates (the result has the sign of the dividend), like Rust's `%` and C's `fmod`.
//! - Shifts take the shift amount modulo the bit width (`x << 33` on `u32` is `x << 1`); `shr`
//!   is arithmetic on signed types.
//! - Integer `pow` wraps; a negative exponent gives `0`, except for bases `1` and `-1`.
//! - Float operations follow IEEE 754: NaN and infinities propagate; pairwise `min`/`max`
//!   return NaN when either operand is NaN (IEEE 754-2019 `minimum`/`maximum`).
//! - `round` rounds half away from zero; `sign` gives -1, 0 or 1 (NaN for NaN).
//! - float → integer casts saturate and map NaN to 0 (Rust's `as`); integer → integer casts
//!   wrap; anything → `bool` is "not zero"; complex → real takes the real part.
//! - `f16`/`bf16` compute in `f32` and round back after every operation.

mod binning;
mod calculus;
pub(crate) mod elementwise;
pub mod fft;
mod histogram;
pub mod index;
pub mod linalg;
mod loss;
pub(crate) mod movement;
mod nan;
mod numeric;
mod padding;
mod polynomial;
mod ranges;
pub(crate) mod reduce;
mod rows;
mod sampling;
pub mod scan;
mod search;
pub(crate) mod sort;
pub(crate) mod stacking;
mod statistics;
mod triangle;
mod window;
pub use crate::special;
pub use binning::{histogram2d, histogramdd};
pub use index::{Idx, IndexArray, IndexMode, ScatterOpts};
pub use loss::Reduction;
pub use padding::PadMode;
pub use polynomial::{polyadd, polyfit, polysub, polyval, vander};
pub use search::{lexsort, ravel_multi_index, unravel_index};
pub use stacking::{Indexing, meshgrid};
pub use triangle::{tril_indices, triu_indices};
pub use window::{bartlett, blackman, hamming, hanning, kaiser};

pub use crate::op::{BinaryOp, ReduceOp, UnaryOp};
