//! The process-wide bound on the scratch memory of a convolution on CUDA (the lowered patches
//! of a chunk of images), like [`crate::linalg::set_allow_tf32`] for products.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The default bound: 1 GiB.
const DEFAULT: usize = 1 << 30;

static WORKSPACE: AtomicUsize = AtomicUsize::new(DEFAULT);

/// Bounds the lowered patches a convolution on CUDA holds at a time to `bytes` (default 1 GiB):
/// images go in chunks whose patches fit (one image a chunk at least, whatever the bound), so
/// a smaller bound saves memory at the cost of more, smaller products. The weights' gradient
/// sums the chunks' products in the element type, so for `f16`/`bf16` each further chunk adds
/// one rounding of the partial sum. Applies to passes run after the call on cuprite's
/// kernels; cuDNN takes the workspace its algorithm asks for from the stream-ordered pool.
///
/// ```
/// use cuprite_array::signal::{conv_workspace_bytes, set_conv_workspace_bytes};
/// let before = conv_workspace_bytes();
/// set_conv_workspace_bytes(256 << 20);
/// assert_eq!(conv_workspace_bytes(), 256 << 20);
/// set_conv_workspace_bytes(before);
/// ```
pub fn set_conv_workspace_bytes(bytes: usize) {
    WORKSPACE.store(bytes, Ordering::Relaxed);
}

/// The bound set by [`set_conv_workspace_bytes`].
///
/// ```
/// let b = cuprite_array::signal::conv_workspace_bytes();
/// assert_eq!(b, cuprite_array::signal::conv_workspace_bytes());
/// ```
pub fn conv_workspace_bytes() -> usize {
    WORKSPACE.load(Ordering::Relaxed)
}
