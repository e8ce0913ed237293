//! cuBLAS: matrix products and vector operations on device buffers, through a [`Blas`] handle
//! bound to a context and a cuprite stream.
//!
//! Operations: [`Blas::gemm`], [`Blas::gemm_strided_batched`], [`Blas::gemv`], [`Blas::dot`],
//! [`Blas::dotc`], [`Blas::axpy`], [`Blas::nrm2`], for every [`Element`] type (`f16`, `bf16`,
//! `f32`, `f64`, `Complex<f32>`, `Complex<f64>`), with an explicit [`ComputeType`] for products
//! (TF32 only when asked for). Operands are [`DeviceRead`](crate::DeviceRead) /
//! [`DeviceWrite`](crate::DeviceWrite) buffers or views, tracked across streams like kernel
//! arguments; every dimension is checked before cuBLAS sees it.
//!
//! The shared vocabulary ([`Element`], [`ComputeType`], [`Transpose`], [`Fill`]) lives here too:
//! [`blaslt`](crate::blaslt) and [`solver`](crate::solver) use it.
//!
//! ```
//! // No GPU needed: an Err listing where cuBLAS was looked for, when it is missing.
//! match cuprite_driver::blas::version() {
//!     Ok(v) => println!("cuBLAS {v:?}"),
//!     Err(e) => println!("{e}"),
//! }
//! ```

macro_rules! cublas {
    ($name:ident ( $($arg:expr),* $(,)? )) => {
        check_cublas(sys::$name($($arg),*), stringify!($name))
    };
}

mod gemm;
mod gemv;
mod handle;
mod level1;
mod trsm;
mod types;

pub use gemm::{Gemm, StridedBatch};
pub use handle::{Blas, version};
pub(crate) use handle::{recommended_workspace, refuse_capturing};
pub use trsm::Triangular;
pub(crate) use types::{
    Compute, ScalarBytes, batched_extent, check_context, check_len, check_matrix, invalid, to_i32,
    to_i64,
};
pub use types::{ComputeType, Element, Fill, Scalar, Transpose};
