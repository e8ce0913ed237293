//! The neural-network convolution and pooling (PyTorch's `torch.nn.functional.conv1d/2d/3d`,
//! `max_pool2d`, `avg_pool2d`, and their gradients; ArrayFire's `convolve2NN` and
//! `convolve2GradientNN`), re-exported by [`crate::signal`].
//!
//! One N-d core over one to three spatial axes (`geom.rs`), channels first or last, with
//! stride, padding (symmetric, per side, or `"same"`), dilation, groups, and a bias and ReLU
//! fused into the forward call. Each pass is one library call node ([`call::ConvCall`]): on
//! the CPU direct loops on rayon (`cpu.rs`); on CUDA, [`call::ConvCall`]'s `run_cuda` is the
//! single entry of every pass: cuDNN first where it is installed and states the problem
//! ([`dnn`], switched by `tuning::set_cudnn`), else the fallback: the input's patches lowered
//! into a matrix by a kernel of this family (`lower.cu`) and multiplied by cuBLASLt
//! (`cuda.rs`), or for `3 x 3` kernels at stride 1 in `f32` and `f64` Winograd's
//! F(2 x 2, 3 x 3) (`winograd.rs`, `winograd.cu`). Pooling is a library call of its own (`pool.rs`, `pool.cu`; its forward pass
//! through cuDNN too), whose gradients are gathers (no atomics) that sum in the CPU twin's
//! order.
//!
//! Element types `f16`, `bf16`, `f32`, `f64`; the half types are computed in `f32`.

mod af;
mod call;
mod conv;
mod cpu;
mod cuda;
pub(crate) mod dnn;
mod geom;
mod kernels;
mod opts;
mod pool;
pub(crate) mod winograd;
mod workspace;

pub use af::{ConvGradient, convolve2_gradient_nn, convolve2_nn};
pub use conv::{
    conv_backward_bias, conv_backward_input, conv_backward_weight, conv1d, conv1d_with, conv2d,
    conv2d_backward_input, conv2d_backward_weight, conv2d_with, conv3d, conv3d_with,
};
pub use opts::{
    Conv1dOpts, Conv2dOpts, Conv3dOpts, ConvActivation, ConvLayout, ConvOpts, Padding, PerAxis,
    Pool2dOpts, PoolOpts,
};
pub use pool::{
    avg_pool2d, avg_pool2d_backward, avg_pool2d_with, max_pool2d, max_pool2d_backward,
    max_pool2d_with,
};
pub use workspace::{conv_workspace_bytes, set_conv_workspace_bytes};
