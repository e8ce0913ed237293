//! The operation catalogue: which element-wise operations exist, the dtype each produces, and
//! the semantics both backends implement (documented here, tested in `tests/`).
//!
//! Owns names and typing only; evaluation lives in `backend::cpu` and `codegen`.
//!
//! # Semantics shared by both backends
//!
//! - Integer arithmetic wraps (two's complement), as Rust's `wrapping_*` operations.
//! - **Integer division floors**, as NumPy's `//` (`-7 / 2 == -4`); unsigned division is the same
//!   as truncation. Division by zero gives `0`, and the remainder by zero gives `0` too (NumPy
//!   also gives 0, with a warning); `MIN / -1` wraps to `MIN` (and `MIN % -1` is `0`). Never
//!   undefined behaviour.
//! - `%` ([`Array::rem`](crate::Array::rem), `remainder`) follows NumPy: the result has the
//!   divisor's sign (`-7 % 2 == 1`), so `a == (a / b) * b + a % b` for integers; a float
//!   remainder by zero is NaN. [`Array::fmod`](crate::Array::fmod) is C's rule (the dividend's
//!   sign, as Rust's `%` on primitives).
//! - Shifts take the shift amount modulo the bit width (`x << 33` on `u32` is `x << 1`); `shr`
//!   is arithmetic on signed types.
//! - Integer `pow` wraps; a negative exponent gives `0`, except for bases `1` and `-1`.
//! - Float operations follow IEEE 754: NaN and infinities propagate; pairwise `min`/`max`
//!   return NaN when either operand is NaN (IEEE 754-2019 `minimum`/`maximum`).
//! - `round` (and `rint`) rounds halves to even, as NumPy (`0.5 → 0`, `1.5 → 2`, `2.5 → 2`);
//!   `sign` gives -1, 0 or 1 (NaN for NaN).
//! - float → integer casts saturate and map NaN to 0 (Rust's `as`: `1e10 as i32` is
//!   `i32::MAX`, `-1.0 as u8` is 0, NaN is 0) on both backends; NumPy's result there is
//!   platform-defined (C's undefined behaviour). Integer → integer casts wrap; anything →
//!   `bool` is "not zero"; complex → real takes the real part.
//! - `f16`/`bf16` compute in `f32` and round back after every operation.

mod axis_concat;
mod binning;
mod bits;
mod broadcast;
mod calculus;
mod choosing;
mod compound;
mod covariance;
mod editing;
pub(crate) mod elementwise;
pub mod fft;
mod functional;
mod gradient;
mod histogram;
pub mod index;
pub mod linalg;
mod linspace;
mod loss;
mod mathx;
pub(crate) mod movement;
mod nan;
pub(crate) mod numeric;
mod options;
mod padding;
pub mod poly;
mod poly1d;
mod polynomial;
mod ranges;
pub(crate) mod reduce;
mod repeat;
mod rows;
pub(crate) mod sampling;
pub mod scan;
mod search;
mod setx;
mod signal;
pub(crate) mod sort;
pub(crate) mod stacking;
mod statistics;
mod strided;
mod triangle;
pub(crate) mod tricks;
mod typing;
mod unique_axis;
mod window;
pub use crate::special;
pub use axis_concat::{IntoPiece, Piece, concat_pieces, directive};
pub use binning::{histogram2d, histogramdd};
pub use bits::{BitOrder, base_repr, binary_repr};
pub use broadcast::Broadcast;
pub use choosing::{PieceFn, choose, piecewise, select};
pub use covariance::Cov;
pub use editing::Trim;
pub use functional::fromfunction;
pub use gradient::Spacing;
pub use index::{Idx, IndexArray, IndexMode, ScatterOpts, TakeOpts};
pub use loss::Reduction;
pub use mathx::RealIfClose;
pub use options::{
    AverageOpts, AxesOpts, AxisOpts, ChoiceOpts, CloseOpts, DigitizeOpts, FillDiagonalOpts,
    HistogramOpts, LinspaceOpts, NanToNumOpts, NormOpts, PolyvalOpts, ReduceOpts, SeriesOpts,
    SortOpts, TopkOpts, VarOpts,
};
pub use padding::PadMode;
pub use poly1d::{Poly1d, PolyCov, Polyfit, PolyfitOptions, poly, polyfit_with, polymul, roots};
pub use polynomial::{polyadd, polyfit, polysub, polyval, vander};
pub use search::{lexsort, ravel_multi_index, unravel_index};
pub use setx::setxor1d;
pub use signal::{ConvMode, InterpValue, interp};
pub use sort::QuantileOpts;
pub use stacking::{Indexing, meshgrid};
pub use strided::Requirement;
pub use triangle::{tril_indices, triu_indices};
pub use tricks::{
    Grid, NdIndex, diag_indices, diag_indices_from, indices, indices_sparse, ix_, ix_masks,
    mask_indices, mgrid, ndindex, ogrid,
};
pub use typing::{Casting, can_cast, common_type, isscalar, min_scalar_type};
pub use window::{bartlett, blackman, hamming, hanning, kaiser};

pub use crate::op::{BinaryOp, ReduceOp, UnaryOp};
