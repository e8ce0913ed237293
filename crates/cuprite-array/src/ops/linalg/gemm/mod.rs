//! The (batched) matrix product as a library call: cuBLASLt on CUDA (small single `f32`
//! products: a kernel of this crate), faer on the CPU, with the
//! epilogue (scale, bias, ReLU, GELU; on the small kernel also `tanh` and a scaled addend
//! after the activation) folded in when the lazy graph asks for it.
//!
//! Owns the call node [`Gemm`], how an operand's realised layout maps to a leading dimension
//! and a batch stride (so transposed, padded and broadcast operands are read in place), and
//! the per-stream cuBLASLt handles, and [`StridedProduct`]: one strided-batched product on
//! realised buffers for library calls that lay out their own operands. Shapes and NumPy
//! semantics are decided by `products`.

mod call;
mod cpu;
mod cuda;
mod desc;
mod small;
mod strided;
mod tf32;
mod tune;

pub(crate) use cpu::{gelu_grad, narrow_f64, widen_f64};
pub(crate) use desc::{Act, Aux, Gemm, Post};
pub use small::{set_small_gemm, small_gemm};
pub(crate) use strided::{MatIn, StridedProduct};
pub use tf32::{allow_tf32, set_allow_tf32};
pub use tune::{gemm_tuning, set_gemm_tuning};
