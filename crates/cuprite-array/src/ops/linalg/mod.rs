//! Linear algebra on arrays: matrix and tensor products (one GEMM library call each, with the
//! element-wise work around them folded into its epilogue) and decompositions.
//!
//! CUDA runs cuBLASLt and cuSOLVER through `cuprite`; the CPU backend runs faer (the default
//! `faer` feature). Everything here builds lazy graph nodes; the calls run when a value is
//! needed, like any other array work.
//!
//! ```
//! use cuprite_array::{Array, Device, linalg};
//! let a = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 0.0, 0.0, 4.0], &[2, 2])?;
//! let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 1.0], &[2])?;
//! assert_eq!(linalg::matmul(&a, &x)?.to_vec()?, [2.0, 4.0]);
//! # Ok::<(), cuprite_array::Error>(())
//! ```

mod decomp;
mod einsum;
mod gelu_grad;
mod gelu_mlp;
mod gemm;
mod powers;
mod products;
mod span;

pub use decomp::{
    ComplexOf, Eig, Lstsq, NormOrd, PinvOpts, RankOpts, Real, RealOf, RealPart, Scalar, ScalarOps,
    Svd, cholesky, cond_p, det, eig, eigh, eigvals, inv, lstsq, lstsq_full, matrix_rank,
    matrix_rank_with, norm, pinv, pinv_with, qr, qr_complete, qr_r, qr_raw, slogdet, solve, svd,
    svd_full, svd_hermitian, svdvals, tensorinv, tensorsolve,
};
pub use einsum::einsum;
pub(crate) use gelu_grad::{column_sums, column_sums_on, plain_column_sums};
pub use gelu_mlp::{
    gelu_grad_fused, matmul_gelu_grad, matmul_gelu_with_input, set_gelu_grad_fused,
};
pub(crate) use gemm::{MatIn, StridedProduct};
pub use gemm::{
    allow_tf32, gemm_tuning, set_allow_tf32, set_gemm_tuning, set_small_gemm, small_gemm,
};
pub use powers::{cond, matrix_power, norm_axes, norm_axes_with};
pub use products::{dot, inner, matmul, outer, tensordot, vdot};
pub(crate) use span::{Span, SpanNew};
