//! The neural-network convolution (PyTorch's `conv1d`/`conv2d`/`conv3d` and their gradients)
//! as lazy library calls: the layouts and checks of the caller's operands, then one
//! [`ConvCall`] node per pass over channels-first data.

use super::call::{ConvCall, Pass};
use super::geom::ConvGeom;
use super::opts::{Conv1dOpts, Conv2dOpts, Conv3dOpts, ConvActivation, ConvLayout, ConvOpts};
use crate::array::{Array, check_devices};
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use std::sync::Arc;

/// The permutation taking channels-last axes (`N, spatial..., C`) to channels first.
fn to_first(nd: usize) -> Vec<usize> {
    let mut p = vec![0, nd - 1];
    p.extend(1..nd - 1);
    p
}

/// The permutation taking channels-first axes back to channels last.
fn to_last(nd: usize) -> Vec<usize> {
    let mut p = vec![0];
    p.extend(2..nd);
    p.push(1);
    p
}

/// `x` (in `layout`) as channels first.
fn first<T: Float>(x: &Array<T>, layout: ConvLayout) -> Result<Array<T>> {
    match layout {
        ConvLayout::ChannelsFirst => Ok(x.clone()),
        ConvLayout::ChannelsLast if x.ndim() >= 2 => x.permute(&to_first(x.ndim())),
        ConvLayout::ChannelsLast => Err(Error::Shape(format!(
            "a channels-last operand needs a batch and a channel axis, not shape {:?}",
            x.shape()
        ))),
    }
}

/// A shape given in `layout`, as channels first.
fn shape_first(shape: &[usize], layout: ConvLayout) -> Vec<usize> {
    match layout {
        ConvLayout::ChannelsLast if shape.len() >= 2 => {
            to_first(shape.len()).iter().map(|&a| shape[a]).collect()
        }
        _ => shape.to_vec(),
    }
}

/// `y` (channels first) in `layout`.
fn back<T: Float>(y: Array<T>, layout: ConvLayout) -> Result<Array<T>> {
    match layout {
        ConvLayout::ChannelsFirst => Ok(y),
        ConvLayout::ChannelsLast => y.permute(&to_last(y.ndim())),
    }
}

/// The geometry of `opts` for channels-first shapes.
fn geom<T: Float, const D: usize>(
    what: &str,
    x_shape: &[usize],
    w_shape: &[usize],
    opts: &ConvOpts<'_, T, D>,
) -> Result<ConvGeom> {
    ConvGeom::new(
        what,
        x_shape,
        w_shape,
        opts.stride,
        opts.padding,
        opts.dilation,
        opts.groups,
    )
}

/// The node of `call` over `inputs` on `device`.
fn node<T: Float>(call: ConvCall, inputs: Vec<Arc<Node>>, device: crate::Device) -> Array<T> {
    let shape = call.out_shape();
    Array::from_node(Node::new(
        Op::Library(Arc::new(call), inputs),
        T::DTYPE,
        shape,
        device,
    ))
}

/// The N-d convolution behind `conv1d`, `conv2d` and `conv3d`.
fn conv_nd<T: Float, const D: usize>(
    what: &str,
    x: &Array<T>,
    w: &Array<T>,
    opts: ConvOpts<'_, T, D>,
) -> Result<Array<T>> {
    let mut nodes = vec![&x.node, &w.node];
    if let Some(b) = opts.bias {
        nodes.push(&b.node);
    }
    check_devices(&nodes)?;
    let xf = first(x, opts.layout)?;
    let g = geom(what, xf.shape(), w.shape(), &opts)?;
    let mut inputs = vec![xf.node.clone(), w.node.clone()];
    if let Some(b) = opts.bias {
        if b.shape() != [g.k] {
            return Err(Error::Shape(format!(
                "{what}: the bias must have shape [{}] (one value per filter), not {:?}",
                g.k,
                b.shape()
            )));
        }
        inputs.push(b.node.clone());
    }
    let pass = Pass::Forward {
        bias: opts.bias.is_some(),
        relu: opts.activation == ConvActivation::Relu,
    };
    let call = ConvCall {
        dtype: T::DTYPE,
        geom: g,
        pass,
    };
    back(node(call, inputs, x.device()), opts.layout)
}

/// The 1-d convolution of `x` (`[N, C, L]`) with the weights `w` (`[K, C, kernel]`), with
/// PyTorch's defaults (stride 1, no padding): see [`conv2d_with`] for the definition.
///
/// ```
/// use cuprite_array::{Array, signal::conv1d};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[1, 1, 4])?;
/// let w = Array::from_slice(&[1.0f64, -1.0], &[1, 1, 2])?;
/// assert_eq!(conv1d(&x, &w)?.to_vec()?, [-1.0, -1.0, -1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv1d<T: Float>(x: &Array<T>, w: &Array<T>) -> Result<Array<T>> {
    conv1d_with(x, w, Conv1dOpts::new())
}

/// [`conv1d`] with options ([`Conv1dOpts`]): see [`conv2d_with`].
///
/// # Errors
/// As [`conv2d_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{Conv1dOpts, conv1d_with}};
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[1, 1, 5])?;
/// let w = Array::from_slice(&[1.0f32, 1.0], &[1, 1, 2])?;
/// let y = conv1d_with(&x, &w, Conv1dOpts::new().stride(2).dilation(2))?;
/// assert_eq!(y.to_vec()?, [4.0, 8.0]); // x[0] + x[2], x[2] + x[4]
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv1d_with<T: Float>(
    x: &Array<T>,
    w: &Array<T>,
    opts: Conv1dOpts<'_, T>,
) -> Result<Array<T>> {
    conv_nd("conv1d", x, w, opts)
}

/// The 2-d convolution of `x` (`[N, C, H, W]`) with the weights `w` (`[K, C, kh, kw]`), with
/// PyTorch's defaults (stride 1, no padding, one group, no bias): see [`conv2d_with`].
///
/// ```
/// use cuprite_array::{Array, signal::conv2d};
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[1, 1, 2, 2])?;
/// let w = Array::from_slice(&[1.0f32, 0.0, 0.0, 1.0], &[1, 1, 2, 2])?;
/// assert_eq!(conv2d(&x, &w)?.to_vec()?, [5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv2d<T: Float>(x: &Array<T>, w: &Array<T>) -> Result<Array<T>> {
    conv2d_with(x, w, Conv2dOpts::new())
}

/// PyTorch's `conv2d` (a cross-correlation, as every deep-learning library's): for input `x`
/// (`[N, C, H, W]`, or `[N, H, W, C]` with [`ConvLayout::ChannelsLast`]) and weights `w`
/// (`[K, C / groups, kh, kw]` in both layouts),
///
/// `y[n, k, q] = act(bias[k] + sum_{c in group(k), j} w[k, c, j] x[n, c, q s + j d - p])`,
///
/// `x` zero outside the input (the padding). Each output axis has `(i + p_before + p_after -
/// d (k - 1) - 1) / s + 1` values. Options: [`ConvOpts`] (stride, padding per axis or per
/// side or `"same"`, dilation, groups, layout, bias, activation).
///
/// On CUDA: through cuDNN where it is installed and takes the problem (the padding the same on
/// both sides of each axis, or a padding after that reaches no further tap), with the bias
/// and activation applied after it by cuprite's kernel; otherwise, or with
/// [`crate::tuning::set_cudnn`]`(false)`, the input's patches are lowered into a scratch
/// matrix (a chunk of images at a time, bounded by
/// [`set_conv_workspace_bytes`](super::set_conv_workspace_bytes)) and multiplied by cuBLASLt.
/// Either way `f16` and `bf16` accumulate in `f32`, `f32` is full precision unless
/// [`crate::linalg::set_allow_tf32`] allows TF32. On the CPU: direct loops in `f32` (`f64` for
/// `f64`). Channels-last data is transposed to channels first and back around the call.
///
/// # Errors
/// Operands on different devices; a rank other than `2 + D`; input channels or filters not
/// divisible by `groups`, or weights with other than `C / groups` channels; a stride or
/// dilation of 0; `"same"` padding with a stride above 1; a dilated kernel longer than the
/// padded input; a bias not of shape `[K]`; sizes that overflow. Each message names the values.
///
/// ```
/// use cuprite_array::{Array, signal::{Conv2dOpts, conv2d_with}};
/// // Two channels in two groups (depthwise), padding 1: each channel times its own weight.
/// let x = Array::from_slice(&[1.0f64, 2.0], &[1, 2, 1, 1])?;
/// let w = Array::from_slice(&[0.0f64, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0,
///                             0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0], &[2, 1, 3, 3])?;
/// let y = conv2d_with(&x, &w, Conv2dOpts::new().padding(1).groups(2))?;
/// assert_eq!(y.to_vec()?, [3.0, 10.0]);
/// assert!(conv2d_with(&x, &w, Conv2dOpts::new().groups(2)).is_err()); // 3x3 kernel on 1x1
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv2d_with<T: Float>(
    x: &Array<T>,
    w: &Array<T>,
    opts: Conv2dOpts<'_, T>,
) -> Result<Array<T>> {
    conv_nd("conv2d", x, w, opts)
}

/// The 3-d convolution of `x` (`[N, C, D, H, W]`) with `w` (`[K, C, kd, kh, kw]`), with
/// PyTorch's defaults: see [`conv2d_with`].
///
/// ```
/// use cuprite_array::{Array, signal::conv3d};
/// let x = Array::from_slice(&[1.0f64; 8], &[1, 1, 2, 2, 2])?;
/// let w = Array::from_slice(&[1.0f64; 8], &[1, 1, 2, 2, 2])?;
/// assert_eq!(conv3d(&x, &w)?.to_vec()?, [8.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv3d<T: Float>(x: &Array<T>, w: &Array<T>) -> Result<Array<T>> {
    conv3d_with(x, w, Conv3dOpts::new())
}

/// [`conv3d`] with options ([`Conv3dOpts`]): see [`conv2d_with`].
///
/// # Errors
/// As [`conv2d_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{Conv3dOpts, conv3d_with}};
/// let x = Array::from_slice(&[1.0f64; 8], &[1, 1, 2, 2, 2])?;
/// let w = Array::from_slice(&[1.0f64], &[1, 1, 1, 1, 1])?;
/// let y = conv3d_with(&x, &w, Conv3dOpts::new().padding([0, 1, 0]))?;
/// assert_eq!(y.shape(), &[1, 1, 2, 4, 2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv3d_with<T: Float>(
    x: &Array<T>,
    w: &Array<T>,
    opts: Conv3dOpts<'_, T>,
) -> Result<Array<T>> {
    conv_nd("conv3d", x, w, opts)
}

/// Refuses an activation in the options of a gradient (the gradients are those of the
/// convolution itself; the bias does not enter them and is ignored).
fn no_activation<T: Float, const D: usize>(what: &str, opts: &ConvOpts<'_, T, D>) -> Result<()> {
    if opts.activation != ConvActivation::None {
        return Err(Error::InvalidArgument(format!(
            "{what} is the gradient of the convolution before its activation ({:?}): apply the \
             activation's gradient to grad_out first and leave it out of the options",
            opts.activation
        )));
    }
    Ok(())
}

/// Checks that `grad_out` has the convolution's output shape (channels first).
fn check_grad(what: &str, g: &ConvGeom, grad: &[usize]) -> Result<()> {
    if grad != g.y_shape() {
        return Err(Error::Shape(format!(
            "{what}: grad_out has shape {grad:?} (channels first), but the convolution of input \
             {:?} with weights {:?} gives {:?}",
            g.x_shape(),
            g.w_shape(),
            g.y_shape()
        )));
    }
    Ok(())
}

/// The gradient of a convolution's output with respect to its input (PyTorch's
/// `torch.nn.grad.conv{1,2,3}d_input`): `dx[n, c, e] = sum_{k in group(c), j, q: q s + j d - p =
/// e} w[k, c, j] grad_out[n, k, q]`, shaped `input_shape` (in the layout of `opts`). `opts`
/// are the forward call's; its bias is ignored, an activation refused.
///
/// On CUDA through cuDNN as the forward call; otherwise, with stride 1, as a forward
/// convolution of `grad_out` (its taps reversed, the weights' channel axes exchanged): its
/// patches lowered and one cuBLASLt product a group, `f16`/`bf16` accumulating in `f32`; with
/// a larger stride the products `wᵀ · grad_out` are lowered patches (cuBLASLt), gathered onto
/// the input by one kernel (each input sums its taps in one order; no atomics).
///
/// # Errors
/// As the forward call for `input_shape` and `weight`; `grad_out` not of the forward output's
/// shape; an activation in `opts`.
///
/// ```
/// use cuprite_array::{Array, signal::{Conv1dOpts, conv_backward_input}};
/// let dy = Array::from_slice(&[1.0f64, 10.0], &[1, 1, 2])?;
/// let w = Array::from_slice(&[1.0f64, 2.0], &[1, 1, 2])?;
/// let dx = conv_backward_input(&dy, &w, &[1, 1, 3], Conv1dOpts::new())?;
/// assert_eq!(dx.to_vec()?, [1.0, 12.0, 20.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv_backward_input<T: Float, const D: usize>(
    grad_out: &Array<T>,
    weight: &Array<T>,
    input_shape: &[usize],
    opts: ConvOpts<'_, T, D>,
) -> Result<Array<T>> {
    let what = "conv_backward_input";
    no_activation(what, &opts)?;
    check_devices(&[&grad_out.node, &weight.node])?;
    let dy = first(grad_out, opts.layout)?;
    let g = geom(
        what,
        &shape_first(input_shape, opts.layout),
        weight.shape(),
        &opts,
    )?;
    check_grad(what, &g, dy.shape())?;
    if g.n == 0 {
        return Ok(crate::device::with_device(grad_out.device(), || {
            Array::zeros(input_shape)
        }));
    }
    let call = ConvCall {
        dtype: T::DTYPE,
        geom: g,
        pass: Pass::Input,
    };
    let dx = node(
        call,
        vec![dy.node.clone(), weight.node.clone()],
        grad_out.device(),
    );
    back(dx, opts.layout)
}

/// The gradient of a convolution's output with respect to its weights (PyTorch's
/// `torch.nn.grad.conv{1,2,3}d_weight`): `dw[k, c, j] = sum_{n, q} grad_out[n, k, q] x[n, c, q s +
/// j d - p]`, shaped `weight_shape` (`[K, C / groups, kernel...]`). `opts` are the forward
/// call's; its bias is ignored, an activation refused.
///
/// On CUDA through cuDNN as the forward call; otherwise the input's patches of a chunk of
/// images are laid side by side and multiplied by
/// `grad_out` in one product a group (cuBLASLt); chunks after the first add onto the sum (in the
/// element type, so `f16`/`bf16` round once a chunk; see
/// [`set_conv_workspace_bytes`](super::set_conv_workspace_bytes)).
///
/// # Errors
/// As the forward call for `x` and `weight_shape`; `grad_out` not of the forward output's
/// shape; an activation in `opts`.
///
/// ```
/// use cuprite_array::{Array, signal::{Conv1dOpts, conv_backward_weight}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[1, 1, 3])?;
/// let dy = Array::from_slice(&[1.0f64, 10.0], &[1, 1, 2])?;
/// let dw = conv_backward_weight(&x, &dy, &[1, 1, 2], Conv1dOpts::new())?;
/// assert_eq!(dw.to_vec()?, [21.0, 32.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv_backward_weight<T: Float, const D: usize>(
    x: &Array<T>,
    grad_out: &Array<T>,
    weight_shape: &[usize],
    opts: ConvOpts<'_, T, D>,
) -> Result<Array<T>> {
    let what = "conv_backward_weight";
    no_activation(what, &opts)?;
    check_devices(&[&x.node, &grad_out.node])?;
    let (xf, dy) = (first(x, opts.layout)?, first(grad_out, opts.layout)?);
    let g = geom(what, xf.shape(), weight_shape, &opts)?;
    check_grad(what, &g, dy.shape())?;
    if g.n == 0 {
        return Ok(crate::device::with_device(x.device(), || {
            Array::zeros(weight_shape)
        }));
    }
    let call = ConvCall {
        dtype: T::DTYPE,
        geom: g,
        pass: Pass::Weight,
    };
    Ok(node(
        call,
        vec![xf.node.clone(), dy.node.clone()],
        x.device(),
    ))
}

/// The gradient of a convolution's output with respect to its bias: `grad_out` summed over
/// every axis but the channel axis of `layout` (`[K]`).
///
/// # Errors
/// `grad_out` with fewer than two axes.
///
/// ```
/// use cuprite_array::{Array, signal::{ConvLayout, conv_backward_bias}};
/// let dy = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[1, 2, 2])?;
/// assert_eq!(conv_backward_bias(&dy, ConvLayout::ChannelsFirst)?.to_vec()?, [3.0, 7.0]);
/// assert_eq!(conv_backward_bias(&dy, ConvLayout::ChannelsLast)?.to_vec()?, [4.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv_backward_bias<T: Float>(grad_out: &Array<T>, layout: ConvLayout) -> Result<Array<T>> {
    let nd = grad_out.ndim();
    if nd < 2 {
        return Err(Error::Shape(format!(
            "conv_backward_bias takes a gradient with batch and channel axes, not shape {:?}",
            grad_out.shape()
        )));
    }
    let ch = match layout {
        ConvLayout::ChannelsFirst => 1,
        ConvLayout::ChannelsLast => nd - 1,
    };
    let axes: Vec<isize> = (0..nd).filter(|&a| a != ch).map(|a| a as isize).collect();
    Ok(grad_out.sum_axes(&axes)?.cast::<T>())
}

/// [`conv_backward_input`] of a 2-d convolution (PyTorch's `torch.nn.grad.conv2d_input`).
///
/// # Errors
/// As [`conv_backward_input`].
///
/// ```
/// use cuprite_array::{Array, signal::{Conv2dOpts, conv2d_backward_input}};
/// let dy = Array::from_slice(&[1.0f32], &[1, 1, 1, 1])?;
/// let w = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[1, 1, 2, 2])?;
/// let dx = conv2d_backward_input(&dy, &w, &[1, 1, 2, 2], Conv2dOpts::new())?;
/// assert_eq!(dx.to_vec()?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv2d_backward_input<T: Float>(
    grad_out: &Array<T>,
    weight: &Array<T>,
    input_shape: &[usize],
    opts: Conv2dOpts<'_, T>,
) -> Result<Array<T>> {
    conv_backward_input(grad_out, weight, input_shape, opts)
}

/// [`conv_backward_weight`] of a 2-d convolution (PyTorch's `torch.nn.grad.conv2d_weight`).
///
/// # Errors
/// As [`conv_backward_weight`].
///
/// ```
/// use cuprite_array::{Array, signal::{Conv2dOpts, conv2d_backward_weight}};
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[1, 1, 2, 2])?;
/// let dy = Array::from_slice(&[2.0f32], &[1, 1, 1, 1])?;
/// let dw = conv2d_backward_weight(&x, &dy, &[1, 1, 2, 2], Conv2dOpts::new())?;
/// assert_eq!(dw.to_vec()?, [2.0, 4.0, 6.0, 8.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn conv2d_backward_weight<T: Float>(
    x: &Array<T>,
    grad_out: &Array<T>,
    weight_shape: &[usize],
    opts: Conv2dOpts<'_, T>,
) -> Result<Array<T>> {
    conv_backward_weight(x, grad_out, weight_shape, opts)
}
