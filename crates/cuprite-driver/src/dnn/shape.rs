//! What a convolution or a pooling computes, as plain numbers: [`ConvShape`] and [`PoolShape`]
//! (sizes, strides, padding, dilation, groups, [`Layout`]), the output sizes and buffer
//! lengths they imply, and their checks.
//!
//! This module owns the shape arithmetic and every check that needs no GPU: each size in
//! checked arithmetic, every dimension and stride cuDNN receives within its 32-bit `int`, and
//! a message naming the offending value. It calls no library; `desc.rs` turns a checked
//! [`Geometry`] into cuDNN descriptors.
//!
//! cuDNN convolves 2 or 3 spatial dimensions; a 1-d shape is lifted to 2-d with a leading
//! spatial size of 1 (kernel 1, stride 1, padding 0, dilation 1 on that axis), which lays out
//! memory exactly as the 1-d tensor does in both layouts.

use crate::blas::{invalid, to_i32};
use crate::error::Result;

/// How activations and filters are laid out in memory, for any number of spatial dimensions
/// (`L` for 1-d, `H, W` for 2-d, `D, H, W` for 3-d).
///
/// ```
/// use cuprite_driver::dnn::Layout;
/// assert_eq!(Layout::default(), Layout::Nchw);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Channels first: activations `[N, C, spatial...]`, filters `[K, C / groups, kernel...]`
    /// (PyTorch's default).
    #[default]
    Nchw,
    /// Channels last: activations `[N, spatial..., C]`, filters `[K, kernel..., C / groups]`.
    Nhwc,
}

/// One convolution, as PyTorch's `conv1d`/`conv2d`/`conv3d` define it: a cross-correlation
/// (the kernel is not flipped) of `x` (`batch × in_channels × input`) with `groups` groups of
/// filters (`out_channels × in_channels / groups × kernel`), giving `y` (`batch ×
/// out_channels × output`), where along each spatial axis
/// `output = (input + 2·pad − dilation·(kernel − 1) − 1) / stride + 1` (rounded down).
///
/// `N` is the number of spatial dimensions: 1, 2 or 3. Padding is symmetric (the same zero
/// padding before and after, as cuDNN takes it); an asymmetric padding is the caller's pad
/// of the input. [`ConvShape::new`] gives stride 1, no padding, dilation 1, one group and
/// [`Layout::Nchw`]; set the public fields from there.
///
/// ```
/// use cuprite_driver::dnn::ConvShape;
/// let mut s = ConvShape::new(8, 3, [32, 32], 16, [3, 3]);
/// s.stride = [2, 2];
/// s.pad = [1, 1];
/// assert_eq!(s.output()?, [16, 16]);
/// assert_eq!((s.x_len()?, s.w_len()?, s.y_len()?), (8 * 3 * 32 * 32, 16 * 3 * 9, 8 * 16 * 16 * 16));
/// # Ok::<(), cuprite_driver::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvShape<const N: usize> {
    /// Images in the batch.
    pub batch: usize,
    /// Channels of `x`.
    pub in_channels: usize,
    /// Spatial sizes of `x`.
    pub input: [usize; N],
    /// Channels of `y` (the number of filters).
    pub out_channels: usize,
    /// Spatial sizes of each filter.
    pub kernel: [usize; N],
    /// Steps between output positions (at least 1).
    pub stride: [usize; N],
    /// Zero padding on each side of each spatial axis.
    pub pad: [usize; N],
    /// Steps between kernel taps (at least 1; 1 is a dense kernel).
    pub dilation: [usize; N],
    /// Channel groups: input channel group `g` meets only the filters of group `g`
    /// (`in_channels` and `out_channels` are multiples of it; `in_channels` groups of one
    /// channel is a depthwise convolution).
    pub groups: usize,
    /// Memory order of `x`, `y` and the filters.
    pub layout: Layout,
}

impl<const N: usize> ConvShape<N> {
    /// A convolution with stride 1, no padding, dilation 1, one group, [`Layout::Nchw`].
    #[must_use]
    pub fn new(
        batch: usize,
        in_channels: usize,
        input: [usize; N],
        out_channels: usize,
        kernel: [usize; N],
    ) -> Self {
        ConvShape {
            batch,
            in_channels,
            input,
            out_channels,
            kernel,
            stride: [1; N],
            pad: [0; N],
            dilation: [1; N],
            groups: 1,
            layout: Layout::Nchw,
        }
    }

    /// The spatial sizes of `y`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the value when the
    /// shape is unsound (see [`check`](Self::check)).
    pub fn output(&self) -> Result<[usize; N]> {
        let g = self.geometry("ConvShape")?;
        let mut out = [0; N];
        for (i, o) in out.iter_mut().enumerate() {
            *o = g.y_dims[2 + g.lift + i] as usize;
        }
        Ok(out)
    }

    /// The elements of `x` (and of its gradient): `batch · in_channels · ∏ input`.
    ///
    /// # Errors
    /// As [`output`](Self::output).
    pub fn x_len(&self) -> Result<usize> {
        Ok(self.geometry("ConvShape")?.x_len)
    }

    /// The elements of the filters (and of their gradient):
    /// `out_channels · in_channels / groups · ∏ kernel`.
    ///
    /// # Errors
    /// As [`output`](Self::output).
    pub fn w_len(&self) -> Result<usize> {
        Ok(self.geometry("ConvShape")?.w_len)
    }

    /// The elements of `y` (and of its gradient): `batch · out_channels · ∏ output`.
    ///
    /// # Errors
    /// As [`output`](Self::output).
    pub fn y_len(&self) -> Result<usize> {
        Ok(self.geometry("ConvShape")?.y_len)
    }

    /// Checks the shape as every convolution call does before cuDNN sees it: 1 to 3 spatial
    /// dimensions; at least one group, dividing both channel counts; kernel, stride and
    /// dilation at least 1; the dilated kernel no larger than the padded input; every tensor
    /// within cuDNN's 32-bit element counts and strides. Needs no GPU.
    ///
    /// ```
    /// use cuprite_driver::dnn::ConvShape;
    /// let mut s = ConvShape::new(1, 6, [10], 4, [3]);
    /// s.groups = 4; // 6 input channels do not split into 4 groups
    /// assert!(s.check().unwrap_err().to_string().contains("in_channels = 6"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the first wrong value.
    pub fn check(&self) -> Result<()> {
        self.geometry("ConvShape").map(|_| ())
    }

    /// The first spatial axis whose padding on one side is more than the dilated kernel's reach
    /// beyond its first tap (`pad > dilation · (kernel − 1)`): along it, some output positions
    /// see only padding. Such shapes are sound, and the forward pass and the filters' gradient
    /// take them; [`Dnn::conv_backward_data`](super::Dnn::conv_backward_data) refuses them
    /// (see there). `None` when no axis has such padding. Needs no GPU.
    ///
    /// ```
    /// use cuprite_driver::dnn::ConvShape;
    /// let mut s = ConvShape::new(1, 1, [8, 8], 1, [1, 3]);
    /// s.pad = [0, 2];
    /// assert_eq!(s.padding_past_kernel(), None); // 2 ≤ 1 · (3 − 1)
    /// s.pad = [1, 2];
    /// assert_eq!(s.padding_past_kernel(), Some(0)); // a 1-tap kernel with padding
    /// ```
    #[must_use]
    pub fn padding_past_kernel(&self) -> Option<usize> {
        (0..N).find(|&i| {
            let reach = self.kernel[i]
                .saturating_sub(1)
                .saturating_mul(self.dilation[i]);
            self.pad[i] > reach
        })
    }

    /// [`check`](Self::check), and that buffers of `x_len`, `w_len` and `y_len` elements hold
    /// `x` (or its gradient), the filters (or theirs) and `y` (or its gradient): what each
    /// convolution call checks before anything is enqueued. Longer buffers are allowed; only
    /// their first elements are used.
    ///
    /// ```
    /// use cuprite_driver::dnn::ConvShape;
    /// let s = ConvShape::new(2, 3, [5, 5], 4, [3, 3]);
    /// assert!(s.validate(150, 108, 72).is_ok());
    /// assert!(s.validate(150, 107, 72).unwrap_err().to_string().contains("107"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the short buffer, its
    /// length and the length needed.
    pub fn validate(&self, x_len: usize, w_len: usize, y_len: usize) -> Result<()> {
        let g = self.geometry("ConvShape")?;
        check_lens(
            "ConvShape",
            &[
                ("x", x_len, g.x_len),
                ("w", w_len, g.w_len),
                ("y", y_len, g.y_len),
            ],
        )
    }

    /// The checked shape in cuDNN's terms.
    pub(crate) fn geometry(&self, call: &str) -> Result<Geometry> {
        if !(1..=3).contains(&N) {
            return Err(invalid(format!(
                "{call}: {N} spatial dimensions; cuDNN convolves 1, 2 or 3"
            )));
        }
        let groups = self.groups;
        if groups == 0 {
            return Err(invalid(format!("{call}: groups = 0; at least 1 is needed")));
        }
        for (what, c) in [
            ("in_channels", self.in_channels),
            ("out_channels", self.out_channels),
        ] {
            if c % groups != 0 {
                return Err(invalid(format!(
                    "{call}: {what} = {c} is not a multiple of groups = {groups}"
                )));
            }
        }
        let mut out = [0usize; N];
        for (i, o) in out.iter_mut().enumerate() {
            let (k, s, d, p, n) = (
                self.kernel[i],
                self.stride[i],
                self.dilation[i],
                self.pad[i],
                self.input[i],
            );
            for (what, v) in [("kernel", k), ("stride", s), ("dilation", d)] {
                if v == 0 {
                    return Err(invalid(format!(
                        "{call}: {what}[{i}] = 0; at least 1 is needed"
                    )));
                }
            }
            let reach = (k - 1)
                .checked_mul(d)
                .and_then(|r| r.checked_add(1))
                .ok_or_else(|| overflow(call, "the dilated kernel"))?;
            let padded = p
                .checked_mul(2)
                .and_then(|q| q.checked_add(n))
                .ok_or_else(|| overflow(call, "the padded input"))?;
            if reach > padded {
                return Err(invalid(format!(
                    "{call}: along spatial axis {i}, the kernel spans {reach} (kernel = {k}, \
                     dilation = {d}) but the padded input is only {padded} (input = {n}, \
                     pad = {p} per side)"
                )));
            }
            *o = (padded - reach) / s + 1;
        }
        let cin_g = self.in_channels / groups;
        let mut g = Geometry::new(N, self.layout);
        g.x_dims = g.dims(call, "x", self.batch, self.in_channels, &self.input)?;
        g.y_dims = g.dims(call, "y", self.batch, self.out_channels, &out)?;
        g.w_dims = g.dims(call, "w", self.out_channels, cin_g, &self.kernel)?;
        g.x_len = g.len_of(call, "x", &g.x_dims)?;
        g.y_len = g.len_of(call, "y", &g.y_dims)?;
        g.w_len = g.len_of(call, "w", &g.w_dims)?;
        g.x_strides = g.strides(&g.x_dims);
        g.y_strides = g.strides(&g.y_dims);
        for i in 0..N {
            let j = g.lift + i;
            g.pad[j] = to_i32(call, "pad", self.pad[i])?;
            g.stride[j] = to_i32(call, "stride", self.stride[i])?;
            // A one-tap kernel reads the same positions at any dilation: cuDNN sees 1.
            let d = if self.kernel[i] == 1 {
                1
            } else {
                self.dilation[i]
            };
            g.dilation[j] = to_i32(call, "dilation", d)?;
        }
        g.groups = to_i32(call, "groups", groups)?;
        Ok(g)
    }
}

/// Max or average pooling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PoolMode {
    /// The largest value of each window (a NaN in the window gives NaN). The gradient goes to
    /// the position of that value.
    #[default]
    Max,
    /// The window's sum over its full size, padding counting as zeros (PyTorch's
    /// `count_include_pad=True`).
    AvgIncludePad,
    /// The window's sum over the number of its positions inside the input (PyTorch's
    /// `count_include_pad=False`).
    AvgExcludePad,
}

/// One pooling: windows of `window` positions, `stride` apart, over `x` (`batch × channels ×
/// input`) padded by `pad` on each side, giving `y` (`batch × channels × output`) with
/// `output = (input + 2·pad − window) / stride + 1` (rounded down) along each spatial axis.
/// Padding must be smaller than the window (so every window holds an input position) and
/// every input size at least 1.
///
/// ```
/// use cuprite_driver::dnn::{PoolMode, PoolShape};
/// let mut p = PoolShape::new(4, 8, [28, 28], [2, 2], PoolMode::Max);
/// assert_eq!(p.output()?, [14, 14]); // the stride defaults to the window
/// p.stride = [1, 1];
/// assert_eq!(p.output()?, [27, 27]);
/// # Ok::<(), cuprite_driver::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PoolShape<const N: usize> {
    /// Images in the batch.
    pub batch: usize,
    /// Channels (pooled independently).
    pub channels: usize,
    /// Spatial sizes of `x`.
    pub input: [usize; N],
    /// Spatial sizes of each window.
    pub window: [usize; N],
    /// Steps between windows (at least 1).
    pub stride: [usize; N],
    /// Padding on each side of each spatial axis (smaller than the window).
    pub pad: [usize; N],
    /// What a window computes.
    pub mode: PoolMode,
    /// Memory order of `x` and `y`.
    pub layout: Layout,
}

impl<const N: usize> PoolShape<N> {
    /// A pooling with the stride equal to the window, no padding, [`Layout::Nchw`].
    #[must_use]
    pub fn new(
        batch: usize,
        channels: usize,
        input: [usize; N],
        window: [usize; N],
        mode: PoolMode,
    ) -> Self {
        PoolShape {
            batch,
            channels,
            input,
            window,
            stride: window,
            pad: [0; N],
            mode,
            layout: Layout::Nchw,
        }
    }

    /// The spatial sizes of `y`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the value when the
    /// shape is unsound (see [`check`](Self::check)).
    pub fn output(&self) -> Result<[usize; N]> {
        let g = self.geometry("PoolShape")?;
        let mut out = [0; N];
        for (i, o) in out.iter_mut().enumerate() {
            *o = g.y_dims[2 + g.lift + i] as usize;
        }
        Ok(out)
    }

    /// The elements of `x` (and of its gradient).
    ///
    /// # Errors
    /// As [`output`](Self::output).
    pub fn x_len(&self) -> Result<usize> {
        Ok(self.geometry("PoolShape")?.x_len)
    }

    /// The elements of `y` (and of its gradient).
    ///
    /// # Errors
    /// As [`output`](Self::output).
    pub fn y_len(&self) -> Result<usize> {
        Ok(self.geometry("PoolShape")?.y_len)
    }

    /// Checks the shape as every pooling call does: 1 to 3 spatial dimensions; window and
    /// stride at least 1; padding smaller than the window; every input size at least 1 and no
    /// smaller than the window less twice the padding; every tensor within cuDNN's 32-bit
    /// element counts and strides. Needs no GPU.
    ///
    /// ```
    /// use cuprite_driver::dnn::{PoolMode, PoolShape};
    /// let mut p = PoolShape::new(1, 1, [8], [3], PoolMode::AvgExcludePad);
    /// p.pad = [3];
    /// assert!(p.check().unwrap_err().to_string().contains("pad[0] = 3"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the first wrong value.
    pub fn check(&self) -> Result<()> {
        self.geometry("PoolShape").map(|_| ())
    }

    /// [`check`](Self::check), and that buffers of `x_len` and `y_len` elements hold `x` and
    /// `y` (or their gradients). Longer buffers are allowed.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the short buffer.
    pub fn validate(&self, x_len: usize, y_len: usize) -> Result<()> {
        let g = self.geometry("PoolShape")?;
        check_lens("PoolShape", &[("x", x_len, g.x_len), ("y", y_len, g.y_len)])
    }

    /// The checked shape in cuDNN's terms (the window in `kernel`).
    pub(crate) fn geometry(&self, call: &str) -> Result<Geometry> {
        if !(1..=3).contains(&N) {
            return Err(invalid(format!(
                "{call}: {N} spatial dimensions; cuDNN pools 1, 2 or 3"
            )));
        }
        let mut out = [0usize; N];
        for (i, o) in out.iter_mut().enumerate() {
            let (w, s, p, n) = (self.window[i], self.stride[i], self.pad[i], self.input[i]);
            for (what, v) in [("window", w), ("stride", s), ("input", n)] {
                if v == 0 {
                    return Err(invalid(format!(
                        "{call}: {what}[{i}] = 0; at least 1 is needed"
                    )));
                }
            }
            if p >= w {
                return Err(invalid(format!(
                    "{call}: pad[{i}] = {p} is not smaller than window[{i}] = {w}"
                )));
            }
            let padded = p
                .checked_mul(2)
                .and_then(|q| q.checked_add(n))
                .ok_or_else(|| overflow(call, "the padded input"))?;
            if w > padded {
                return Err(invalid(format!(
                    "{call}: window[{i}] = {w} is larger than the padded input {padded} \
                     (input = {n}, pad = {p} per side)"
                )));
            }
            *o = (padded - w) / s + 1;
        }
        let mut g = Geometry::new(N, self.layout);
        g.x_dims = g.dims(call, "x", self.batch, self.channels, &self.input)?;
        g.y_dims = g.dims(call, "y", self.batch, self.channels, &out)?;
        g.x_len = g.len_of(call, "x", &g.x_dims)?;
        g.y_len = g.len_of(call, "y", &g.y_dims)?;
        g.x_strides = g.strides(&g.x_dims);
        g.y_strides = g.strides(&g.y_dims);
        g.pad = [0; 3];
        g.stride = [1; 3];
        g.kernel = [1; 3];
        for i in 0..N {
            let j = g.lift + i;
            g.pad[j] = to_i32(call, "pad", self.pad[i])?;
            g.stride[j] = to_i32(call, "stride", self.stride[i])?;
            g.kernel[j] = to_i32(call, "window", self.window[i])?;
        }
        Ok(g)
    }
}

/// A checked shape in cuDNN's terms: `nb` tensor dimensions (4 for 1-d and 2-d, 5 for 3-d),
/// each tensor's dimensions in `[N, C, spatial...]` order whatever the layout, its packed
/// strides for the layout, and the per-axis parameters over `nb - 2` spatial axes. Every
/// value fits an `i32` and every tensor's element count too (so every stride does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Geometry {
    /// Tensor dimensions: 4 or 5.
    pub nb: usize,
    /// Leading spatial axes of size 1 added to reach cuDNN's 2-d minimum (1 for a 1-d shape).
    pub lift: usize,
    pub layout: Layout,
    pub x_dims: [i32; 5],
    pub x_strides: [i32; 5],
    pub y_dims: [i32; 5],
    pub y_strides: [i32; 5],
    /// Filter dimensions `[K, C / groups, kernel...]` (convolutions only).
    pub w_dims: [i32; 5],
    pub pad: [i32; 3],
    pub stride: [i32; 3],
    pub dilation: [i32; 3],
    /// The pooling window (poolings only).
    pub kernel: [i32; 3],
    pub groups: i32,
    pub x_len: usize,
    pub y_len: usize,
    pub w_len: usize,
}

impl Geometry {
    fn new(spatial: usize, layout: Layout) -> Self {
        let lift = usize::from(spatial == 1);
        Geometry {
            nb: 2 + spatial + lift,
            lift,
            layout,
            x_dims: [1; 5],
            x_strides: [1; 5],
            y_dims: [1; 5],
            y_strides: [1; 5],
            w_dims: [1; 5],
            pad: [0; 3],
            stride: [1; 3],
            dilation: [1; 3],
            kernel: [1; 3],
            groups: 1,
            x_len: 0,
            y_len: 0,
            w_len: 0,
        }
    }

    /// The spatial axes cuDNN sees (2 or 3).
    pub fn spatial(&self) -> usize {
        self.nb - 2
    }

    /// `[outer, channels, spatial...]` (lifted), each within `i32`.
    fn dims(
        &self,
        call: &str,
        what: &str,
        outer: usize,
        channels: usize,
        spatial: &[usize],
    ) -> Result<[i32; 5]> {
        let mut d = [1i32; 5];
        d[0] = to_i32(call, what, outer)?;
        d[1] = to_i32(call, what, channels)?;
        for (i, &s) in spatial.iter().enumerate() {
            d[2 + self.lift + i] = to_i32(call, what, s)?;
        }
        Ok(d)
    }

    /// The element count of a tensor of dimensions `d`, within `i32` (cuDNN's strides and
    /// offsets are 32-bit).
    fn len_of(&self, call: &str, what: &str, d: &[i32; 5]) -> Result<usize> {
        let mut n: usize = 1;
        for &v in &d[..self.nb] {
            n = n
                .checked_mul(v as usize)
                .ok_or_else(|| overflow(call, what))?;
        }
        if n > i32::MAX as usize {
            return Err(invalid(format!(
                "{call}: {what} has {n} elements ({}); cuDNN's 32-bit strides take at most {} \
                 (split the batch)",
                dims_text(&d[..self.nb]),
                i32::MAX
            )));
        }
        Ok(n)
    }

    /// Packed strides of `d` in this layout (the product of later dimensions in memory order).
    /// The caller checked that the element count fits `i32`, so every stride does.
    pub fn strides(&self, d: &[i32; 5]) -> [i32; 5] {
        // Memory order, outermost first, as indices into `d`.
        let mut order = [0usize; 5];
        let nb = self.nb;
        match self.layout {
            Layout::Nchw => {
                for (i, o) in order.iter_mut().enumerate().take(nb) {
                    *o = i;
                }
            }
            Layout::Nhwc => {
                order[0] = 0;
                for i in 2..nb {
                    order[i - 1] = i;
                }
                order[nb - 1] = 1;
            }
        }
        let mut s = [1i32; 5];
        let mut acc = 1i32;
        for &axis in order[..nb].iter().rev() {
            s[axis] = acc;
            acc = acc.saturating_mul(d[axis].max(1));
        }
        s
    }
}

fn overflow(call: &str, what: &str) -> crate::Error {
    invalid(format!("{call}: the size of {what} overflows usize"))
}

fn dims_text(d: &[i32]) -> String {
    d.iter().map(i32::to_string).collect::<Vec<_>>().join(" × ")
}

/// `Err` naming the first `(name, have, need)` whose buffer is shorter than needed.
pub(crate) fn check_lens(call: &str, bufs: &[(&str, usize, usize)]) -> Result<()> {
    for &(what, have, need) in bufs {
        if have < need {
            return Err(invalid(format!(
                "{call}: {what} has {have} elements, but the shape needs {need}"
            )));
        }
    }
    Ok(())
}
