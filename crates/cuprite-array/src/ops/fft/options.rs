//! The options of the transforms ([`FftOpts`], [`FftnOpts`]): NumPy's `n`/`s`, `axis`/`axes`
//! and `norm`, with NumPy's defaults.

use super::norm::FftNorm;

/// Options of the one-axis transforms (`fft_with`, `ifft_with`, `rfft_with`, `irfft_with`,
/// `hfft_with`, `ihfft_with`): NumPy's `n` (default: from the axis length), `axis` (default
/// `-1`, the last) and `norm` (default [`FftNorm::Backward`]).
///
/// ```
/// use cuprite_array::{Array, Device, FftNorm, ops::fft::FftOpts};
/// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 1.0, 1.0], &[3])?;
/// let y = x.fft_with(FftOpts::new().n(4).norm(FftNorm::Ortho))?; // padded to [1, 1, 1, 0]
/// assert_eq!(y.shape(), &[4]);
/// assert!((y.to_vec()?[0].re - 1.5).abs() < 1e-12); // 3 / sqrt(4)
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct FftOpts {
    pub(crate) n: Option<usize>,
    pub(crate) axis: isize,
    pub(crate) norm: FftNorm,
}

impl Default for FftOpts {
    fn default() -> Self {
        FftOpts {
            n: None,
            axis: -1,
            norm: FftNorm::Backward,
        }
    }
}

impl FftOpts {
    /// NumPy's defaults: `n` from the axis, the last axis, [`FftNorm::Backward`].
    pub fn new() -> Self {
        Self::default()
    }
    /// The number of points of the transform (`None`: the default for the axis length).
    pub fn n(self, n: impl Into<Option<usize>>) -> Self {
        FftOpts {
            n: n.into(),
            ..self
        }
    }
    /// The axis transformed (negative counts from the end).
    pub fn axis(self, axis: isize) -> Self {
        FftOpts { axis, ..self }
    }
    /// How the transform pair is scaled.
    pub fn norm(self, norm: FftNorm) -> Self {
        FftOpts { norm, ..self }
    }
}

/// Options of the multi-axis transforms (`fft2_with`, `fftn_with`, `rfftn_with`, ... and
/// their inverses): NumPy's `s` (default: the axes' lengths), `axes` (default: the last two
/// for the 2-D forms, all for the N-D forms, or the last `s.len()` when `s` is given) and
/// `norm` (default [`FftNorm::Backward`]).
///
/// ```
/// use cuprite_array::{Array, Device, ops::fft::FftnOpts};
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 24], &[2, 3, 4])?;
/// assert_eq!(x.rfftn()?.shape(), &[2, 3, 3]);
/// assert_eq!(x.rfftn_with(FftnOpts::new().axes(&[2, 0]))?.shape(), &[2, 3, 4]);
/// assert_eq!(x.fftn_with(FftnOpts::new().s(&[4, 4]))?.shape(), &[2, 4, 4]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct FftnOpts {
    s: Option<Vec<usize>>,
    axes: Option<Vec<isize>>,
    norm: FftNorm,
}

impl FftnOpts {
    /// NumPy's defaults: the axes' lengths, the default axes, [`FftNorm::Backward`].
    pub fn new() -> Self {
        Self::default()
    }
    /// The lengths of the transform along each of the axes.
    pub fn s(self, s: &[usize]) -> Self {
        FftnOpts {
            s: Some(s.to_vec()),
            ..self
        }
    }
    /// The axes transformed (negative counts from the end; `&[]` transforms none).
    pub fn axes(self, axes: &[isize]) -> Self {
        FftnOpts {
            axes: Some(axes.to_vec()),
            ..self
        }
    }
    /// How the transform pair is scaled.
    pub fn norm(self, norm: FftNorm) -> Self {
        FftnOpts { norm, ..self }
    }
    /// `s`, `axes` and `norm` as the transforms take them.
    pub(crate) fn parts(&self) -> (Option<&[usize]>, Option<&[isize]>, FftNorm) {
        (self.s.as_deref(), self.axes.as_deref(), self.norm)
    }
}
