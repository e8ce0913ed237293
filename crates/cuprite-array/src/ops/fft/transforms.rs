//! The transforms as array methods: `fft`, `ifft`, `rfft`, `irfft` and their 2-D and N-D
//! forms.

use super::build::{DefaultAxes, many_axes, one_axis, real_input};
use super::desc::Kind;
use super::element::FftElement;
use super::norm::FftNorm;
use crate::array::Array;
use crate::error::Result;

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
    /// to `n / 2 + 1`). NumPy's `fft.irfft`; a real array is taken as complex with zero
    /// imaginary parts (as NumPy does). The imaginary parts of the zero-frequency point (and,
    /// for even `n`, of the last) are ignored.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0], &[5])?;
    /// let y = x.rfft(None, 0, FftNorm::Backward)?;
    /// let back = y.irfft(Some(5), 0, FftNorm::Backward)?.to_vec()?;
    /// assert!((back[4] - 5.0).abs() < 1e-12);
    /// assert_eq!(y.irfft(None, 0, FftNorm::Backward)?.shape(), &[4]); // 2 (3 - 1)
    /// let flat = Array::<f64>::from_slice_on(Device::CPU, &[4.0, 0.0, 0.0], &[3])?;
    /// assert_eq!(flat.irfft(None, 0, FftNorm::Backward)?.to_vec()?, [1.0; 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn irfft(&self, n: Option<usize>, axis: isize, norm: FftNorm) -> Result<Array<T::Real>> {
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
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::C2R, s, axes, DefaultAxes::All, norm, "irfftn")
    }
}
