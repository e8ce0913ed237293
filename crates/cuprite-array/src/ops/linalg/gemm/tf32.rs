//! The switch that lets `f32` products use TF32 tensor cores.

use std::sync::atomic::{AtomicBool, Ordering};

static ALLOW_TF32: AtomicBool = AtomicBool::new(false);

/// Lets `f32` (and `c32`) matrix products on CUDA use TF32 tensor cores (inputs rounded to a
/// 10-bit mantissa, `f32` accumulation), like PyTorch's `allow_tf32`. Off by default: products
/// are computed in full `f32`. Applies to products built after the call.
///
/// ```
/// cuprite_array::linalg::set_allow_tf32(true);
/// assert!(cuprite_array::linalg::allow_tf32());
/// cuprite_array::linalg::set_allow_tf32(false);
/// ```
pub fn set_allow_tf32(on: bool) {
    ALLOW_TF32.store(on, Ordering::Relaxed);
}

/// Whether TF32 is allowed for `f32` products (see [`set_allow_tf32`]).
///
/// ```
/// assert!(!cuprite_array::linalg::allow_tf32());
/// ```
pub fn allow_tf32() -> bool {
    ALLOW_TF32.load(Ordering::Relaxed)
}
