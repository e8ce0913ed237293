//! cuBLASLt: matrix products with row- or column-major layouts, batch strides and fused
//! epilogues (bias, ReLU, GELU and their gradients), through a [`BlasLt`] handle bound to a
//! context and a cuprite stream.
//!
//! [`BlasLt::matmul`] computes, for each of `batch` products,
//! `D = epilogue(alpha · A · B + beta · C)` with `A` `m × k`, `B` `k × n` and `C`, `D` `m × n`,
//! each operand described by a [`Layout`] (order, leading dimension, batch stride). Transposed
//! and strided views are layouts too: a row-major `k × m` matrix read as its transpose is the
//! column-major `m × k` layout with the same leading dimension, so no copy is ever needed.
//!
//! The algorithm cuBLASLt's heuristic picks is cached in the handle per problem (shape, element
//! and compute type, layouts, epilogue, pointer alignment), with its descriptors: a warm call
//! checks its arguments, finds its plan, and enqueues. With [`BlasLt::set_tuning`], the first
//! call of a large problem times the heuristic's candidates instead and keeps the fastest.
//! This module owns the translation of row-major problems into cuBLASLt's column-major frame;
//! it must not decide stream order (that is
//! [`Stream::with_access`](crate::stream::Stream::with_access)'s job).

use crate::error::{Result, check_cublaslt};
use cuprite_sys::cublas::libraryPropertyType;
use cuprite_sys::cublaslt as sys;

macro_rules! lt {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        check_cublaslt(sys::$name($($arg),*), stringify!($name))
    };
}

mod cache;
mod epilogue;
mod handle;
mod layout;
mod matmul;
mod plan;
mod tune;
mod tuning;

pub use epilogue::Epilogue;
pub use handle::BlasLt;
pub use layout::{Layout, Matmul, Order};
pub use tuning::Tuning;

/// The version of the cuBLASLt library that would be used, as `(major, minor, patch)`. Opens
/// the library; needs no GPU.
///
/// ```
/// match cuprite_driver::blaslt::version() {
///     Ok(v) => println!("cuBLASLt {v:?}"),
///     Err(e) => println!("no cuBLASLt: {e}"),
/// }
/// ```
pub fn version() -> Result<(i32, i32, i32)> {
    let mut v = [0i32; 3];
    for (i, p) in [
        libraryPropertyType::MAJOR_VERSION,
        libraryPropertyType::MINOR_VERSION,
        libraryPropertyType::PATCH_LEVEL,
    ]
    .into_iter()
    .enumerate()
    {
        // SAFETY: a valid out-pointer; no other precondition.
        unsafe { lt!(cublasLtGetProperty(p, &mut v[i])) }?;
    }
    Ok((v[0], v[1], v[2]))
}
