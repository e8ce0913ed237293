//! The options of the neural-network convolution and pooling (PyTorch's keyword arguments):
//! per-axis sizes, the padding, the data layout, the fused activation, and the options values
//! [`ConvOpts`] and [`PoolOpts`] with PyTorch's defaults.

use crate::array::Array;
use crate::dtype::Float;

/// One size per spatial axis: a single `usize` stands for every axis, an array gives one each
/// (PyTorch's `int or tuple`).
///
/// ```
/// use cuprite_array::signal::PerAxis;
/// assert_eq!(PerAxis::<2>::from(3), PerAxis([3, 3]));
/// assert_eq!(PerAxis::from([1, 2]), PerAxis([1, 2]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PerAxis<const D: usize>(pub [usize; D]);

impl<const D: usize> From<usize> for PerAxis<D> {
    fn from(v: usize) -> Self {
        PerAxis([v; D])
    }
}

impl<const D: usize> From<[usize; D]> for PerAxis<D> {
    fn from(v: [usize; D]) -> Self {
        PerAxis(v)
    }
}

/// The zeros a convolution adds around its input along each spatial axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding<const D: usize> {
    /// `(before, after)` zeros along each axis.
    Sides([(usize, usize); D]),
    /// PyTorch's `padding="same"`: the output as long as the input along each axis (stride 1
    /// only), `d (k - 1)` zeros in all, the smaller half before.
    Same,
}

/// Where the channel axis lies: PyTorch's default `N, C, spatial...` (NCHW), or channels last
/// (`N, spatial..., C`: NHWC). The weights are `[K, C / groups, kernel...]` in both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ConvLayout {
    /// `N, C, spatial...` (NCL, NCHW, NCDHW).
    #[default]
    ChannelsFirst,
    /// `N, spatial..., C` (NLC, NHWC, NDHWC).
    ChannelsLast,
}

/// The activation a convolution applies to its result after the bias.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConvActivation {
    /// The result as it is.
    #[default]
    None,
    /// `max(y, 0)`; a NaN stays NaN (PyTorch's `relu`).
    Relu,
}

/// Options of the convolutions ([`conv2d_with`](super::conv2d_with) and its 1-d and 3-d
/// forms, and their gradients): PyTorch's `stride` (1), `padding` (0), `dilation` (1),
/// `groups` (1) and `bias` (none), plus the data layout (channels first) and an activation
/// fused after the bias (none). `D` is the number of spatial axes; [`Conv1dOpts`],
/// [`Conv2dOpts`] and [`Conv3dOpts`] name the three.
///
/// ```
/// use cuprite_array::{Array, signal::{Conv2dOpts, ConvActivation, conv2d_with}};
/// let x = Array::from_slice(&[1.0f32, -2.0, 3.0, -4.0], &[1, 1, 2, 2])?;
/// let w = Array::from_slice(&[1.0f32], &[1, 1, 1, 1])?;
/// let b = Array::from_slice(&[0.5f32], &[1])?;
/// let opts = Conv2dOpts::new().bias(&b).activation(ConvActivation::Relu);
/// assert_eq!(conv2d_with(&x, &w, opts)?.to_vec()?, [1.5, 0.0, 3.5, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct ConvOpts<'b, T: Float, const D: usize> {
    pub(crate) stride: [usize; D],
    pub(crate) padding: Padding<D>,
    pub(crate) dilation: [usize; D],
    pub(crate) groups: usize,
    pub(crate) layout: ConvLayout,
    pub(crate) bias: Option<&'b Array<T>>,
    pub(crate) activation: ConvActivation,
}

/// [`ConvOpts`] of a 1-d convolution.
pub type Conv1dOpts<'b, T> = ConvOpts<'b, T, 1>;
/// [`ConvOpts`] of a 2-d convolution.
pub type Conv2dOpts<'b, T> = ConvOpts<'b, T, 2>;
/// [`ConvOpts`] of a 3-d convolution.
pub type Conv3dOpts<'b, T> = ConvOpts<'b, T, 3>;

impl<T: Float, const D: usize> Default for ConvOpts<'_, T, D> {
    fn default() -> Self {
        ConvOpts {
            stride: [1; D],
            padding: Padding::Sides([(0, 0); D]),
            dilation: [1; D],
            groups: 1,
            layout: ConvLayout::ChannelsFirst,
            bias: None,
            activation: ConvActivation::None,
        }
    }
}

impl<'b, T: Float, const D: usize> ConvOpts<'b, T, D> {
    /// PyTorch's defaults: stride 1, no padding, dilation 1, one group, no bias, channels
    /// first, no activation.
    pub fn new() -> Self {
        Self::default()
    }
    /// The step between windows along each axis (at least 1).
    pub fn stride(self, stride: impl Into<PerAxis<D>>) -> Self {
        ConvOpts {
            stride: stride.into().0,
            ..self
        }
    }
    /// As many zeros before as after the input along each axis (PyTorch's `padding=p`).
    pub fn padding(self, padding: impl Into<PerAxis<D>>) -> Self {
        let p = padding.into().0;
        ConvOpts {
            padding: Padding::Sides(p.map(|v| (v, v))),
            ..self
        }
    }
    /// `(before, after)` zeros along each axis (PyTorch pads unevenly only through `F.pad`).
    pub fn padding_sides(self, sides: [(usize, usize); D]) -> Self {
        ConvOpts {
            padding: Padding::Sides(sides),
            ..self
        }
    }
    /// PyTorch's `padding="same"` (stride 1 only): see [`Padding::Same`].
    pub fn padding_same(self) -> Self {
        ConvOpts {
            padding: Padding::Same,
            ..self
        }
    }
    /// The spacing between kernel taps along each axis (at least 1).
    pub fn dilation(self, dilation: impl Into<PerAxis<D>>) -> Self {
        ConvOpts {
            dilation: dilation.into().0,
            ..self
        }
    }
    /// The channel groups: input channel `c` meets only the filters of its group (`C` and `K`
    /// divisible by `groups`; `groups == C` is the depthwise convolution).
    pub fn groups(self, groups: usize) -> Self {
        ConvOpts { groups, ..self }
    }
    /// Where the channel axis lies in the input and the output.
    pub fn layout(self, layout: ConvLayout) -> Self {
        ConvOpts { layout, ..self }
    }
    /// One value per output channel (`[K]`), added to the result (forward only).
    pub fn bias(self, bias: &'b Array<T>) -> Self {
        ConvOpts {
            bias: Some(bias),
            ..self
        }
    }
    /// The activation applied after the bias (forward only).
    pub fn activation(self, activation: ConvActivation) -> Self {
        ConvOpts { activation, ..self }
    }
}

/// Options of the pooling calls ([`max_pool2d_with`](super::max_pool2d_with),
/// [`avg_pool2d_with`](super::avg_pool2d_with) and their gradients): PyTorch's `stride`
/// (default: the kernel size), `padding` (0, at most half the kernel), `ceil_mode` (`false`)
/// and `count_include_pad` (`true`, average pooling only), plus the data layout.
///
/// ```
/// use cuprite_array::{Array, signal::{Pool2dOpts, avg_pool2d_with}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[1, 1, 2, 2])?;
/// let o = Pool2dOpts::new().stride(1).padding(1).count_include_pad(false);
/// let y = avg_pool2d_with(&x, 2, o)?;
/// assert_eq!(y.shape(), &[1, 1, 3, 3]);
/// assert_eq!(y.to_vec()?, [1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 3.0, 3.5, 4.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct PoolOpts<const D: usize> {
    pub(crate) stride: Option<[usize; D]>,
    pub(crate) padding: [usize; D],
    pub(crate) ceil_mode: bool,
    pub(crate) count_include_pad: bool,
    pub(crate) layout: ConvLayout,
}

/// [`PoolOpts`] of a 2-d pooling.
pub type Pool2dOpts = PoolOpts<2>;

impl<const D: usize> Default for PoolOpts<D> {
    fn default() -> Self {
        PoolOpts {
            stride: None,
            padding: [0; D],
            ceil_mode: false,
            count_include_pad: true,
            layout: ConvLayout::ChannelsFirst,
        }
    }
}

impl<const D: usize> PoolOpts<D> {
    /// PyTorch's defaults: stride equal to the kernel, no padding, floor mode, padding counted
    /// in averages, channels first.
    pub fn new() -> Self {
        Self::default()
    }
    /// The step between windows along each axis (at least 1).
    pub fn stride(self, stride: impl Into<PerAxis<D>>) -> Self {
        PoolOpts {
            stride: Some(stride.into().0),
            ..self
        }
    }
    /// The implicit padding on both sides of each axis (`-inf` for max pooling, zeros for
    /// average pooling), at most half the kernel.
    pub fn padding(self, padding: impl Into<PerAxis<D>>) -> Self {
        PoolOpts {
            padding: padding.into().0,
            ..self
        }
    }
    /// Round the output length up instead of down, so that a last partial window counts
    /// when it starts inside the input or its left padding.
    pub fn ceil_mode(self, ceil_mode: bool) -> Self {
        PoolOpts { ceil_mode, ..self }
    }
    /// Divide an average by the whole window clipped to the padded input (`true`) or by the
    /// input elements it covers (`false`).
    pub fn count_include_pad(self, count_include_pad: bool) -> Self {
        PoolOpts {
            count_include_pad,
            ..self
        }
    }
    /// Where the channel axis lies.
    pub fn layout(self, layout: ConvLayout) -> Self {
        PoolOpts { layout, ..self }
    }
}
