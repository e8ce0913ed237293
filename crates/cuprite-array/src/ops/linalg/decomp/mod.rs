//! Decompositions and solvers of square and rectangular matrices (`f32`, `f64`, `c32`, `c64`;
//! see [`Scalar`]): cuSOLVER on CUDA, faer on the CPU.
//!
//! These evaluate at once (each factorisation checks the matrix — a zero pivot, a minor that
//! is not positive definite — before it returns, which needs the value), and return ordinary
//! arrays on the input's device. A matrix is singular when a pivot of its LU factorisation
//! (with partial pivoting) is exactly zero, LAPACK's and NumPy's rule, the same for `solve`,
//! `inv`, `det` and `slogdet`: `det` is then 0 and `slogdet` `(0, -inf)`; a tiny pivot is no
//! error (`diag(1e-20, 1)` is inverted exactly), so a matrix singular up to rounding gives a
//! finite, meaningless answer, as in NumPy (see `cond` and `matrix_rank` to judge one). A
//! singular matrix is [`Error::Singular`], one that is not
//! positive definite [`Error::NotPositiveDefinite`]: never NaNs in silence. NaN and infinite
//! inputs propagate as IEEE arithmetic makes them.
//!
//! `solve`, `inv`, `cholesky`, `qr`, `svd` and `eigh` also take stacks of matrices (`(..., m, n)`,
//! NumPy's rule): each matrix is factored in turn and the results stacked.
//!
//! Row-major arrays are column-major transposes for cuSOLVER: each routine picks the operand
//! orientation that needs the fewest copies, and always works on a copy of its input.
//!
//! [`Error::Singular`]: crate::Error::Singular
//! [`Error::NotPositiveDefinite`]: crate::Error::NotPositiveDefinite

mod checks;
#[cfg(feature = "faer")]
mod cpu;
mod cuda;
mod derived;
mod eig;
mod factor;
mod forms;
mod hqr;
mod lu;
mod qr_modes;
mod real;
mod stack;

pub use derived::{NormOrd, lstsq, matrix_rank, norm, pinv};
pub use eig::{ComplexOf, Eig, eig, eigvals};
pub use factor::{Svd, cholesky, eigh, qr, svd};
pub use forms::{
    Lstsq, PinvOpts, RankOpts, cond_p, lstsq_full, matrix_rank_with, pinv_with, svd_full,
    svd_hermitian, svdvals, tensorinv, tensorsolve,
};
pub use lu::{det, inv, slogdet, solve};
pub use qr_modes::{qr_complete, qr_r, qr_raw};
pub use real::{Real, RealOf, RealPart, Scalar, ScalarOps};
