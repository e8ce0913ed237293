//! ArrayFire's names for the neural-network convolution: `convolve2NN` and
//! `convolve2GradientNN`. ArrayFire flips the filter over its two spatial axes (a convolution in
//! the signal-processing sense, where PyTorch's `conv2d` correlates), so these are
//! [`conv2d_with`](super::conv2d_with) and its gradients with the filter flipped. ArrayFire's
//! dimensions `[W, H, C, N]` are cuprite's `[N, C, H, W]` (its first dimensions are cuprite's
//! last), and the stride, padding and dilation are given here in cuprite's axis order
//! (`[along H, along W]`).

use super::conv::{conv_backward_bias, conv_backward_input, conv_backward_weight, conv2d_with};
use super::opts::{Conv2dOpts, ConvLayout};
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// Which gradient [`convolve2_gradient_nn`] computes (ArrayFire's `af_conv_gradient_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvGradient {
    /// With respect to the filter (`AF_CONV_GRADIENT_FILTER`), shaped as the filter.
    Filter,
    /// With respect to the signal (`AF_CONV_GRADIENT_DATA`), shaped as the signal.
    Data,
    /// With respect to a bias added per filter (`AF_CONV_GRADIENT_BIAS`): `[K]`.
    Bias,
}

fn opts<'b, T: Float>(
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
) -> Conv2dOpts<'b, T> {
    Conv2dOpts::new()
        .stride(stride)
        .padding(padding)
        .dilation(dilation)
}

/// ArrayFire's `convolve2NN`: `signal` (`[N, C, H, W]`) convolved with `filter` (`[K, C, kh,
/// kw]`) flipped over its spatial axes, with `stride`, symmetric zero `padding` and `dilation`
/// per spatial axis (`[H, W]`). See [`conv2d_with`](super::conv2d_with).
///
/// # Errors
/// As [`conv2d_with`](super::conv2d_with).
///
/// ```
/// use cuprite_array::{Array, signal::convolve2_nn};
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[1, 1, 2, 2])?;
/// let f = Array::from_slice(&[1.0f32, 0.0, 0.0, 0.0], &[1, 1, 2, 2])?;
/// // The filter flipped: its 1 meets the last input value.
/// assert_eq!(convolve2_nn(&x, &f, [1, 1], [0, 0], [1, 1])?.to_vec()?, [4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn convolve2_nn<T: Float>(
    signal: &Array<T>,
    filter: &Array<T>,
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
) -> Result<Array<T>> {
    conv2d_with(
        signal,
        &filter.flip(&[-2, -1])?,
        opts(stride, padding, dilation),
    )
}

/// ArrayFire's `convolve2GradientNN`: the gradient of [`convolve2_nn`] of `original_signal` and
/// `original_filter` (whose result was `convolved_output`) with respect to `grad_type`'s
/// operand, given the `incoming_gradient` of the result.
///
/// # Errors
/// As [`convolve2_nn`]; `incoming_gradient` and `convolved_output` of different shapes or not
/// the convolution's output shape.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvGradient, convolve2_gradient_nn, convolve2_nn}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[1, 1, 2, 2])?;
/// let f = Array::from_slice(&[1.0f64, 0.0, 0.0, 0.0], &[1, 1, 2, 2])?;
/// let y = convolve2_nn(&x, &f, [1, 1], [0, 0], [1, 1])?;
/// let g = Array::from_slice(&[1.0f64], &[1, 1, 1, 1])?;
/// let df = convolve2_gradient_nn(&g, &x, &f, &y, [1, 1], [0, 0], [1, 1], ConvGradient::Filter)?;
/// assert_eq!(df.to_vec()?, [4.0, 3.0, 2.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn convolve2_gradient_nn<T: Float>(
    incoming_gradient: &Array<T>,
    original_signal: &Array<T>,
    original_filter: &Array<T>,
    convolved_output: &Array<T>,
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    grad_type: ConvGradient,
) -> Result<Array<T>> {
    if incoming_gradient.shape() != convolved_output.shape() {
        return Err(Error::Shape(format!(
            "convolve2_gradient_nn: the incoming gradient has shape {:?}, the convolved output \
             {:?}",
            incoming_gradient.shape(),
            convolved_output.shape()
        )));
    }
    let o = opts(stride, padding, dilation);
    match grad_type {
        ConvGradient::Data => conv_backward_input(
            incoming_gradient,
            &original_filter.flip(&[-2, -1])?,
            original_signal.shape(),
            o,
        ),
        ConvGradient::Filter => conv_backward_weight(
            original_signal,
            incoming_gradient,
            original_filter.shape(),
            o,
        )?
        .flip(&[-2, -1]),
        ConvGradient::Bias => conv_backward_bias(incoming_gradient, ConvLayout::ChannelsFirst),
    }
}
