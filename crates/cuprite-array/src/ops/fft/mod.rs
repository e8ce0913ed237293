//! Discrete Fourier transforms of arrays, with NumPy's semantics (`numpy.fft`): `fft`, `ifft`,
//! `rfft`, `irfft` along one axis, their 2-D and N-D forms over chosen axes, the sample
//! frequencies (`fftfreq`, `rfftfreq`) and the spectrum shifts (`fftshift`, `ifftshift`).
//!
//! This module owns the user-facing catalogue: argument checks, the resizing of the input to
//! `n` (zero padding or cropping, as NumPy does), output shapes and dtypes, and normalisation.
//! Each transform is **one library call** (see `graph::LibraryCall`, in `call`): cuFFT
//! on the CUDA backend (`cuda`), `rustfft`/`realfft` on rayon on the CPU backend (`cpu`). The
//! scaling of [`FftNorm`] is an element-wise multiply on the call's lazy output, so it fuses
//! with whatever consumes the spectrum (no extra pass).
//!
//! # Semantics
//!
//! - Forward transforms use the exponent sign −1, inverse ones +1; [`FftNorm`] says which
//!   direction is scaled (NumPy's `norm`).
//! - `n` (or `s` for the multi-axis forms) is the length of each transformed axis *of the
//!   transform*: the input is cropped or padded with zeros along that axis first. For `irfft`
//!   it is the length of the real output (default `2 (m − 1)` for an input of `m` points); the
//!   input then needs `n / 2 + 1` points and is cropped or padded to that.
//! - `rfft` along an axis of `n` points gives `n / 2 + 1`; the real axis of `rfftn`/`irfftn`
//!   is the *last* axis of `axes` (as NumPy), the others are complex transforms.
//! - Element types: `f32`/`c32` compute in single precision, `f64`/`c64` in double. A real
//!   input to `fft`/`ifft`/`fftn` is promoted to the complex type; **integer inputs are promoted
//!   to `f64`** (hence `c64`), and `f16`/`bf16` to `f32`, as NumPy promotes them (see
//!   [`FftElement`]). `rfft` of a complex array and `irfft` of a real array are `Err`.
//! - `irfft` ignores the imaginary parts of the zero-frequency point and (for even `n`) of
//!   the Nyquist point, as NumPy does, on both backends. `irfftn`/`irfft2` of a spectrum that
//!   is not the half spectrum of real data (not Hermitian along the complex axes) may differ
//!   between backends: the CPU backend follows NumPy (those parts ignored after the complex
//!   inverse transforms), the CUDA backend follows cuFFT's multi-dimensional complex-to-real
//!   transform. The half spectra of real data give the same result on both.
//! - Bad input is an `Err` naming the values: an axis out of range or given twice, `n = 0`, an
//!   axis of length 0 without `n`, `s` and `axes` of different lengths. An array that is empty
//!   along a non-transformed axis gives an empty result.
//!
//! ```
//! use cuprite_array::{Array, Device, FftNorm, c64};
//! let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[4])?;
//! let y = x.fft(None, -1, FftNorm::Backward)?;
//! let v = y.to_vec()?;
//! assert!((v[0] - c64::new(10.0, 0.0)).norm() < 1e-12);
//! assert!((v[1] - c64::new(-2.0, 2.0)).norm() < 1e-12);
//! let back = y.ifft(None, -1, FftNorm::Backward)?.real().to_vec()?;
//! assert!((back[3] - 4.0).abs() < 1e-12);
//! # Ok::<(), cuprite_array::Error>(())
//! ```

mod call;
mod cpu;
mod cuda;
mod desc;

pub use cuda::plan_cache_stats;

use crate::array::Array;
use crate::dtype::{ComplexElement, Element, Float, Numeric, Scalar, bf16, c32, c64, f16};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::BinaryOp;
use crate::shape::{SliceArg, numel};
use desc::{FftCall, Kind, complex_of};
use std::sync::Arc;

/// How a transform pair is scaled (NumPy's `norm`). `n` is the number of points of the
/// transform (the product of the logical lengths over its axes).
///
/// ```
/// use cuprite_array::{Array, Device, FftNorm};
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 4], &[4])?;
/// let dc = |norm| -> cuprite_array::Result<f32> { Ok(x.fft(None, 0, norm)?.to_vec()?[0].re) };
/// assert_eq!(dc(FftNorm::Backward)?, 4.0); // unscaled forward
/// assert_eq!(dc(FftNorm::Ortho)?, 2.0);    // 1/sqrt(4)
/// assert_eq!(dc(FftNorm::Forward)?, 1.0);  // 1/4
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FftNorm {
    /// The forward transform is unscaled, the inverse scaled by `1/n` (NumPy's default).
    #[default]
    Backward,
    /// Both scaled by `1/sqrt(n)` (the transforms are unitary).
    Ortho,
    /// The forward transform is scaled by `1/n`, the inverse unscaled.
    Forward,
}

impl FftNorm {
    /// The factor applied to the output of a transform of `points` points.
    fn factor(self, points: usize, inverse: bool) -> Option<f64> {
        let n = points as f64;
        match (self, inverse) {
            (FftNorm::Backward, false) | (FftNorm::Forward, true) => None,
            (FftNorm::Ortho, _) => Some(1.0 / n.sqrt()),
            (FftNorm::Backward, true) | (FftNorm::Forward, false) => Some(1.0 / n),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Element types the transforms take: `f32`, `f64`, [`c32`], [`c64`], and — promoted as NumPy
/// promotes them — the integers (to `f64`/`c64`) and `f16`/`bf16` (to `f32`/`c32`).
///
/// `Real` is the real type a transform computes in, `Complex` its complex type.
///
/// ```
/// use cuprite_array::{Array, Device, FftNorm};
/// let x = Array::<i32>::from_slice_on(Device::CPU, &[1, 0, 0, 0], &[4])?;
/// let y = x.fft(None, 0, FftNorm::Backward)?; // Array<c64>
/// assert!(y.to_vec()?.iter().all(|v| (v.re - 1.0).abs() < 1e-15 && v.im == 0.0));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub trait FftElement: Numeric + sealed::Sealed {
    /// The real type the transform computes in (`f32` or `f64`).
    type Real: FftElement + Float;
    /// The complex type of its spectrum ([`c32`] or [`c64`]).
    type Complex: FftElement + ComplexElement<Real = Self::Real>;
}

macro_rules! fft_element {
    ($($t:ty => $r:ty, $c:ty;)*) => {$(
        impl sealed::Sealed for $t {}
        impl FftElement for $t {
            type Real = $r;
            type Complex = $c;
        }
    )*};
}

fft_element! {
    f32 => f32, c32;
    f64 => f64, c64;
    c32 => f32, c32;
    c64 => f64, c64;
    f16 => f32, c32;
    bf16 => f32, c32;
    i8 => f64, c64;
    i16 => f64, c64;
    i32 => f64, c64;
    i64 => f64, c64;
    u8 => f64, c64;
    u16 => f64, c64;
    u32 => f64, c64;
    u64 => f64, c64;
}

/// Which axes a multi-axis form transforms when none are given.
#[derive(Clone, Copy)]
enum DefaultAxes {
    /// The last two (`fft2`, `ifft2`, `rfft2`, `irfft2`).
    LastTwo,
    /// All (`fftn`...), or the last `s.len()` when `s` is given.
    All,
}

impl<T: FftElement> Array<T> {
    /// The discrete Fourier transform along `axis` (negative counts from the end), of `n`
    /// points (`None`: the axis length; the input is cropped or zero-padded to `n`). NumPy's
    /// `fft.fft`. A real input is promoted to complex.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 1.0, 1.0], &[3])?;
    /// let y = x.fft(Some(4), 0, FftNorm::Backward)?; // padded to [1, 1, 1, 0]
    /// assert_eq!(y.shape(), &[4]);
    /// assert!((y.to_vec()?[2].re - 1.0).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fft(&self, n: Option<usize>, axis: isize, norm: FftNorm) -> Result<Array<T::Complex>> {
        one_axis(
            self.cast::<T::Complex>(),
            Kind::Forward,
            n,
            axis,
            norm,
            "fft",
        )
    }

    /// The inverse transform along `axis`, of `n` points; scaled by `1/n` under the default
    /// norm. NumPy's `fft.ifft`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[4.0, 0.0, 0.0, 0.0], &[4])?;
    /// let y = x.ifft(None, 0, FftNorm::Backward)?.to_vec()?;
    /// assert!(y.iter().all(|v| (v.re - 1.0).abs() < 1e-6 && v.im.abs() < 1e-6));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifft(&self, n: Option<usize>, axis: isize, norm: FftNorm) -> Result<Array<T::Complex>> {
        one_axis(
            self.cast::<T::Complex>(),
            Kind::Inverse,
            n,
            axis,
            norm,
            "ifft",
        )
    }

    /// The transform of a real array along `axis`, keeping the `n / 2 + 1` non-redundant
    /// points. NumPy's `fft.rfft`. `Err` for a complex array (use [`fft`](Self::fft)).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 7], &[7])?;
    /// let y = x.rfft(None, 0, FftNorm::Backward)?;
    /// assert_eq!(y.shape(), &[4]);
    /// assert!((y.to_vec()?[0].re - 7.0).abs() < 1e-5);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfft(&self, n: Option<usize>, axis: isize, norm: FftNorm) -> Result<Array<T::Complex>> {
        real_input::<T>("rfft")?;
        one_axis(self.cast::<T::Real>(), Kind::R2C, n, axis, norm, "rfft")
    }

    /// The inverse of [`rfft`](Self::rfft): a Hermitian spectrum along `axis` to `n` real
    /// points (`None`: `2 (m − 1)` for `m` input points; the input is cropped or zero-padded
    /// to `n / 2 + 1`). NumPy's `fft.irfft`. `Err` for a real array. The imaginary parts of
    /// the zero-frequency point (and, for even `n`, of the last) are ignored.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0], &[5])?;
    /// let y = x.rfft(None, 0, FftNorm::Backward)?;
    /// let back = y.irfft(Some(5), 0, FftNorm::Backward)?.to_vec()?;
    /// assert!((back[4] - 5.0).abs() < 1e-12);
    /// assert_eq!(y.irfft(None, 0, FftNorm::Backward)?.shape(), &[4]); // 2 (3 - 1)
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn irfft(&self, n: Option<usize>, axis: isize, norm: FftNorm) -> Result<Array<T::Real>> {
        complex_input::<T>("irfft")?;
        one_axis(self.cast::<T::Complex>(), Kind::C2R, n, axis, norm, "irfft")
    }

    /// The 2-D transform over `axes` (`None`: the last two), with lengths `s` (`None`: the
    /// axes' lengths). NumPy's `fft.fft2`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 6], &[2, 3])?;
    /// let y = x.fft2(None, None, FftNorm::Backward)?.to_vec()?;
    /// assert!((y[0].re - 6.0).abs() < 1e-5 && y[1].norm() < 1e-5);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fft2(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Complex>> {
        let x = self.cast::<T::Complex>();
        many_axes(
            x,
            Kind::Forward,
            s,
            axes,
            DefaultAxes::LastTwo,
            norm,
            "fft2",
        )
    }

    /// The inverse 2-D transform over `axes` (`None`: the last two). NumPy's `fft.ifft2`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let y = x.fft2(None, None, FftNorm::Ortho)?.ifft2(None, None, FftNorm::Ortho)?;
    /// assert!((y.to_vec()?[3].re - 4.0).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifft2(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Complex>> {
        let x = self.cast::<T::Complex>();
        many_axes(
            x,
            Kind::Inverse,
            s,
            axes,
            DefaultAxes::LastTwo,
            norm,
            "ifft2",
        )
    }

    /// The N-D transform over `axes` (`None`: all, or the last `s.len()` when `s` is given),
    /// with lengths `s`. NumPy's `fft.fftn`. No axes (`Some(&[])`) gives the input as complex.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 8], &[2, 2, 2])?;
    /// let y = x.fftn(None, None, FftNorm::Forward)?.to_vec()?;
    /// assert!((y[0].re - 1.0).abs() < 1e-6 && y[7].norm() < 1e-6);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Complex>> {
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::Forward, s, axes, DefaultAxes::All, norm, "fftn")
    }

    /// The inverse N-D transform over `axes` (`None`: all). NumPy's `fft.ifftn`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[8.0, 0.0, 0.0, 0.0], &[2, 2])?;
    /// let y = x.ifftn(None, None, FftNorm::Backward)?.to_vec()?;
    /// assert!(y.iter().all(|v| (v.re - 2.0).abs() < 1e-6));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Complex>> {
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::Inverse, s, axes, DefaultAxes::All, norm, "ifftn")
    }

    /// The 2-D transform of a real array over `axes` (`None`: the last two); the last axis
    /// keeps `n / 2 + 1` points. NumPy's `fft.rfft2`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 12], &[3, 4])?;
    /// assert_eq!(x.rfft2(None, None, FftNorm::Backward)?.shape(), &[3, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfft2(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Complex>> {
        real_input::<T>("rfft2")?;
        let x = self.cast::<T::Real>();
        many_axes(x, Kind::R2C, s, axes, DefaultAxes::LastTwo, norm, "rfft2")
    }

    /// The inverse of [`rfft2`](Self::rfft2). NumPy's `fft.irfft2`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0; 15], &[3, 5])?;
    /// let y = x.rfft2(None, None, FftNorm::Backward)?;
    /// let back = y.irfft2(Some(&[3, 5]), None, FftNorm::Backward)?;
    /// assert!(back.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-12));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn irfft2(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Real>> {
        complex_input::<T>("irfft2")?;
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::C2R, s, axes, DefaultAxes::LastTwo, norm, "irfft2")
    }

    /// The N-D transform of a real array over `axes` (`None`: all): a real transform along
    /// the last of `axes`, then complex ones along the others. NumPy's `fft.rfftn`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 24], &[2, 3, 4])?;
    /// assert_eq!(x.rfftn(None, None, FftNorm::Backward)?.shape(), &[2, 3, 3]);
    /// assert_eq!(x.rfftn(None, Some(&[2, 0]), FftNorm::Backward)?.shape(), &[2, 3, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Complex>> {
        real_input::<T>("rfftn")?;
        let x = self.cast::<T::Real>();
        many_axes(x, Kind::R2C, s, axes, DefaultAxes::All, norm, "rfftn")
    }

    /// The inverse of [`rfftn`](Self::rfftn): complex inverse transforms along all of `axes`
    /// but the last, then a complex-to-real one along the last (output length `s`'s last, by
    /// default `2 (m − 1)`). NumPy's `fft.irfftn`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[2.0; 8], &[2, 4])?;
    /// let y = x.rfftn(None, None, FftNorm::Ortho)?;
    /// let back = y.irfftn(Some(&[2, 4]), None, FftNorm::Ortho)?.to_vec()?;
    /// assert!(back.iter().all(|v| (v - 2.0).abs() < 1e-12));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn irfftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[isize]>,
        norm: FftNorm,
    ) -> Result<Array<T::Real>> {
        complex_input::<T>("irfftn")?;
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::C2R, s, axes, DefaultAxes::All, norm, "irfftn")
    }
}

impl<T: Element> Array<T> {
    /// Moves the zero-frequency point to the centre: a roll by `n / 2` along each of `axes`
    /// (`None`: all). NumPy's `fft.fftshift`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let f = Array::<f64>::fftfreq_on(Device::CPU, 5, 1.0)?;
    /// let v = f.fftshift(None)?.to_vec()?;
    /// assert_eq!(v, [-0.4, -0.2, 0.0, 0.2, 0.4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fftshift(&self, axes: Option<&[isize]>) -> Result<Array<T>> {
        self.shift_half(axes, false)
    }

    /// The inverse of [`fftshift`](Self::fftshift): a roll by `−(n / 2)` along each of `axes`
    /// (`None`: all). NumPy's `fft.ifftshift`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let x = Array::<i32>::from_slice_on(Device::CPU, &[0, 1, 2, 3, 4], &[5])?;
    /// assert_eq!(x.fftshift(None)?.ifftshift(None)?.to_vec()?, [0, 1, 2, 3, 4]);
    /// assert_eq!(x.ifftshift(None)?.to_vec()?, [2, 3, 4, 0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifftshift(&self, axes: Option<&[isize]>) -> Result<Array<T>> {
        self.shift_half(axes, true)
    }

    fn shift_half(&self, axes: Option<&[isize]>, inverse: bool) -> Result<Array<T>> {
        let nd = self.ndim();
        let axes = match axes {
            Some(a) => resolve_axes(a, nd, if inverse { "ifftshift" } else { "fftshift" })?,
            None => (0..nd).collect(),
        };
        let mut out = self.clone();
        for a in axes {
            let half = (self.shape()[a] / 2) as isize;
            if half == 0 {
                continue;
            }
            out = out.roll(if inverse { -half } else { half }, a as isize)?;
        }
        Ok(out)
    }
}

impl<T: Float> Array<T> {
    /// The sample frequencies of an `n`-point transform with sample spacing `d`, in the order
    /// [`fft`](Array::fft) gives them: `[0, 1, …, ⌈n/2⌉ − 1, −⌊n/2⌋, …, −1] / (d n)`, on this
    /// thread's current device. NumPy's `fft.fftfreq`. `Err` for `n = 0` or a `d` that is zero
    /// or not finite.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let f = Array::<f64>::fftfreq_on(Device::CPU, 4, 0.5)?;
    /// assert_eq!(f.to_vec()?, [0.0, 0.5, -1.0, -0.5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fftfreq(n: usize, d: f64) -> Result<Array<T>> {
        Self::fftfreq_on(crate::device::current_device(), n, d)
    }

    /// [`fftfreq`](Self::fftfreq) on `device`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// assert_eq!(Array::<f32>::fftfreq_on(Device::CPU, 3, 1.0)?.shape(), &[3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fftfreq_on(device: crate::Device, n: usize, d: f64) -> Result<Array<T>> {
        let scale = freq_scale(n, d, "fftfreq")?;
        let v: Vec<T> = (0..n)
            .map(|k| {
                let k = if k < n.div_ceil(2) {
                    k as f64
                } else {
                    k as f64 - n as f64
                };
                T::from_scalar(Scalar::F64(k * scale))
            })
            .collect();
        Array::from_slice_on(device, &v, &[n])
    }

    /// The sample frequencies of [`rfft`](Array::rfft)'s output for an `n`-point transform with
    /// spacing `d`: `[0, 1, …, ⌊n/2⌋] / (d n)`. NumPy's `fft.rfftfreq`. `Err` as
    /// [`fftfreq`](Self::fftfreq).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let f = Array::<f64>::rfftfreq_on(Device::CPU, 5, 0.1)?;
    /// let v = f.to_vec()?;
    /// assert_eq!(v.len(), 3);
    /// assert!((v[2] - 4.0).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfftfreq(n: usize, d: f64) -> Result<Array<T>> {
        Self::rfftfreq_on(crate::device::current_device(), n, d)
    }

    /// [`rfftfreq`](Self::rfftfreq) on `device`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// assert_eq!(Array::<f32>::rfftfreq_on(Device::CPU, 8, 1.0)?.shape(), &[5]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfftfreq_on(device: crate::Device, n: usize, d: f64) -> Result<Array<T>> {
        let scale = freq_scale(n, d, "rfftfreq")?;
        let v: Vec<T> = (0..n / 2 + 1)
            .map(|k| T::from_scalar(Scalar::F64(k as f64 * scale)))
            .collect();
        Array::from_slice_on(device, &v, &[n / 2 + 1])
    }
}

/// `1 / (d n)`, or the `Err` for a bad `n` or `d`.
fn freq_scale(n: usize, d: f64, what: &str) -> Result<f64> {
    if n == 0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: n = 0 points; the window length must be at least 1"
        )));
    }
    if d == 0.0 || !d.is_finite() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the sample spacing d = {d} must be finite and non-zero"
        )));
    }
    Ok(1.0 / (d * n as f64))
}

fn real_input<T: Element>(what: &str) -> Result<()> {
    if T::DTYPE.is_complex() {
        return Err(Error::InvalidArgument(format!(
            "{what} takes a real array, not {}: use the complex transform (fft, fftn)",
            T::DTYPE
        )));
    }
    Ok(())
}

fn complex_input<T: Element>(what: &str) -> Result<()> {
    if !T::DTYPE.is_complex() {
        return Err(Error::InvalidArgument(format!(
            "{what} takes a complex (Hermitian) spectrum, not a real {} array: cast it to \
             complex first, or use ifft",
            T::DTYPE
        )));
    }
    Ok(())
}

/// The axes of `axes` as indices into `nd` dimensions, each once.
fn resolve_axes(axes: &[isize], nd: usize, what: &str) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let k = crate::shape::axis(a, nd).map_err(|_| {
            Error::Axis(format!(
                "{what}: axis {a} is out of range for an array of {nd} dimension(s)"
            ))
        })?;
        if out.contains(&k) {
            return Err(Error::Axis(format!(
                "{what}: axis {a} is given twice in {axes:?}"
            )));
        }
        out.push(k);
    }
    Ok(out)
}

fn one_axis<U: Element, O: Element>(
    x: Array<U>,
    kind: Kind,
    n: Option<usize>,
    axis: isize,
    norm: FftNorm,
    what: &str,
) -> Result<Array<O>> {
    // On CUDA a real-to-complex or complex-to-real transform along a non-trailing axis runs
    // along the last axis of a permuted copy: cuFFT needs its real and complex pointers aligned
    // to the complex type, which the interleaved signals of an inner axis are not (seen on the
    // H100: CUFFT_INVALID_VALUE for an f64 rfft along the middle axis of [50, 7, 3]).
    let nd = x.ndim();
    if matches!(kind, Kind::R2C | Kind::C2R)
        && x.device().backend == crate::device::Backend::Cuda
        && nd > 1
    {
        let ax = crate::shape::axis(axis, nd)?;
        if ax != nd - 1 {
            let mut perm: Vec<usize> = (0..nd).filter(|&d| d != ax).collect();
            perm.push(ax);
            let mut back = vec![0; nd];
            for (i, &p) in perm.iter().enumerate() {
                back[p] = i;
            }
            let r: Array<O> = one_axis(x.permute(&perm)?, kind, n, -1, norm, what)?;
            return r.permute(&back);
        }
    }
    let s = n.map(|n| [n]);
    let node = transform(
        &x,
        kind,
        s.as_ref().map(|s| &s[..]),
        Some(&[axis]),
        None,
        norm,
        what,
    )?;
    Ok(Array::from_node(node))
}

fn many_axes<U: Element, O: Element>(
    x: Array<U>,
    kind: Kind,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    default: DefaultAxes,
    norm: FftNorm,
    what: &str,
) -> Result<Array<O>> {
    Ok(Array::from_node(transform(
        &x,
        kind,
        s,
        axes,
        Some(default),
        norm,
        what,
    )?))
}

/// Builds the transform of `x` (already in the call's input dtype: complex for C2C and C2R,
/// real for R2C): resolves the axes and lengths, crops or pads the input, makes the call node
/// and multiplies its output by the norm's factor.
fn transform<U: Element>(
    x: &Array<U>,
    kind: Kind,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    default: Option<DefaultAxes>,
    norm: FftNorm,
    what: &str,
) -> Result<Arc<Node>> {
    let nd = x.ndim();
    let shape = x.shape().to_vec();
    // The axes, in the caller's order (the last is the real one of R2C/C2R).
    let axes: Vec<usize> = match (axes, s, default) {
        (Some(a), _, _) => resolve_axes(a, nd, what)?,
        (None, Some(s), _) if s.len() > nd => {
            return Err(Error::Shape(format!(
                "{what}: s = {s:?} gives {} lengths for an array of {nd} dimension(s)",
                s.len()
            )));
        }
        (None, Some(s), _) => (nd - s.len()..nd).collect(),
        (None, None, Some(DefaultAxes::LastTwo)) => resolve_axes(&[-2, -1], nd, what)?,
        (None, None, _) => (0..nd).collect(),
    };
    if let Some(s) = s {
        if s.len() != axes.len() {
            return Err(Error::Shape(format!(
                "{what}: s = {s:?} gives {} lengths for {} axes {axes:?}",
                s.len(),
                axes.len()
            )));
        }
        if let Some(i) = s.iter().position(|&n| n == 0) {
            return Err(Error::InvalidArgument(format!(
                "{what}: n = 0 points along axis {} (s = {s:?}); every length must be at least 1",
                axes[i]
            )));
        }
    }
    if axes.is_empty() {
        if kind.is_real() {
            return Err(Error::Axis(format!(
                "{what} needs at least one axis (the real one)"
            )));
        }
        return Ok(x.node.clone());
    }
    let last = axes.len() - 1;
    // The logical length n of each transformed axis, and the input length it needs.
    let mut logical = Vec::with_capacity(axes.len());
    let mut need = Vec::with_capacity(axes.len());
    for (i, &a) in axes.iter().enumerate() {
        let m = shape[a];
        let n = match s {
            Some(s) => s[i],
            None if kind == Kind::C2R && i == last => 2 * m.saturating_sub(1),
            None => m,
        };
        if n == 0 {
            return Err(Error::InvalidArgument(format!(
                "{what}: {n} points along axis {a} (of length {m} in shape {shape:?}); give n \
                 of at least 1{}",
                if kind == Kind::C2R && i == last {
                    " (the default output length is 2 (m - 1))"
                } else {
                    ""
                }
            )));
        }
        logical.push(n);
        need.push(if kind == Kind::C2R && i == last {
            n / 2 + 1
        } else {
            n
        });
    }
    let points = logical
        .iter()
        .try_fold(1usize, |p, &n| p.checked_mul(n))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{what}: the transform lengths {logical:?} overflow the number of points"
            ))
        })?;
    // Crop (a view) then pad with zeros (one evaluation), as NumPy does.
    let mut input = x.clone();
    if axes.iter().zip(&need).any(|(&a, &n)| shape[a] > n) {
        let mut args: Vec<SliceArg> = vec![(..).into(); nd];
        for (&a, &n) in axes.iter().zip(&need) {
            if shape[a] > n {
                args[a] = (..n as isize).into();
            }
        }
        input = input.slice(&args)?;
    }
    if axes.iter().zip(&need).any(|(&a, &n)| shape[a] < n) {
        let mut widths = vec![(0, 0); nd];
        for (&a, &n) in axes.iter().zip(&need) {
            if shape[a] < n {
                widths[a] = (0, n - shape[a]);
            }
        }
        input = input.pad(&widths, U::default())?;
    }
    // cuFFT may overwrite a complex-to-real input, and it does not ignore the imaginary parts
    // of the zero-frequency and Nyquist points as NumPy (and the CPU backend) do. On CUDA a
    // one-axis `irfft` reads a private copy with those parts zeroed, made by one fused
    // element-wise expression (free when the input is itself an expression). Over several
    // axes the points NumPy ignores are those of the lines after the complex inverse
    // transforms, not of the input: the call then copies its input on the stream instead (see
    // the module docs for what differs). The CPU backend copies each line and zeroes them.
    let private_input =
        kind == Kind::C2R && axes.len() == 1 && x.device().backend == crate::device::Backend::Cuda;
    if private_input {
        input = drop_edge_imag(&input, axes[last], logical[last])?;
    }
    let shape_in = input.shape().to_vec();
    let mut shape_out = shape_in.clone();
    for (i, &a) in axes.iter().enumerate() {
        shape_out[a] = logical[i];
        if kind == Kind::R2C && i == last {
            shape_out[a] = logical[i] / 2 + 1;
        }
    }
    let real = U::DTYPE.real();
    let out_dtype = if kind == Kind::C2R {
        real
    } else {
        complex_of(real)
    };
    let device = x.device();
    let node = if numel(&shape_out) == 0 {
        // Empty along a batch axis: nothing to transform.
        Node::new(
            Op::Const(Scalar::F64(0.0).cast(out_dtype)),
            out_dtype,
            shape_out,
            device,
        )
    } else {
        let call = FftCall::new(kind, real, shape_in, shape_out.clone(), axes, private_input)?;
        Node::new(
            Op::Library(Arc::new(call), vec![input.node.clone()]),
            out_dtype,
            shape_out,
            device,
        )
    };
    match norm.factor(points, kind.is_inverse()) {
        None => Ok(node),
        Some(f) => {
            let c = Node::new(Op::Const(Scalar::F64(f).cast(real)), real, vec![], device);
            crate::ops::elementwise::binary_node(&node, &c, BinaryOp::Mul)
        }
    }
}

/// `x` (a half spectrum, `n / 2 + 1` points along `axis`) with the imaginary parts of its
/// zero-frequency point and, for even `n`, of its Nyquist point set to zero: a new lazy node
/// no other array holds.
fn drop_edge_imag<U: Element>(x: &Array<U>, axis: usize, n: usize) -> Result<Array<U>> {
    let h = x.shape()[axis];
    let keep: Vec<bool> = (0..h)
        .map(|k| k != 0 && !(n % 2 == 0 && k + 1 == h))
        .collect();
    let mut mshape = vec![1; x.ndim()];
    mshape[axis] = h;
    let mask = Array::<bool>::from_slice_on(x.device(), &keep, &mshape)?;
    let re = crate::ops::elementwise::unary_node(&x.node, crate::ops::UnaryOp::Real);
    let re = Array::<U>::from_node(crate::array::cast_node(&re, U::DTYPE));
    Array::select(&mask, x, &re)
}
