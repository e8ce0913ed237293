//! The transforms as array methods: `fft`, `ifft`, `rfft`, `irfft` and their 2-D and N-D
//! forms.

use super::build::{DefaultAxes, many_axes, one_axis, real_input};
use super::desc::Kind;
use super::element::FftElement;
use super::options::{FftOpts, FftnOpts};
use crate::array::Array;
use crate::error::Result;

impl<T: FftElement> Array<T> {
    /// The discrete Fourier transform along the last axis, of as many points as it has.
    /// NumPy's `fft.fft`. A real input is promoted to complex. [`FftOpts`] chooses the `axis`
    /// (negative counts from the end), the number of points `n` (the input is cropped or
    /// zero-padded to `n`) and the `norm`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// use cuprite_array::ops::fft::FftOpts;
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 1.0, 1.0], &[3])?;
    /// let y = x.fft_with(FftOpts::new().n(4).axis(0))?; // padded to [1, 1, 1, 0]
    /// assert_eq!(y.shape(), &[4]);
    /// assert!((y.to_vec()?[2].re - 1.0).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fft(&self) -> Result<Array<T::Complex>> {
        self.fft_with(FftOpts::new())
    }
    /// [`fft`](Self::fft) with NumPy's `n`, `axis` and `norm` ([`FftOpts`]).
    pub fn fft_with(&self, opts: FftOpts) -> Result<Array<T::Complex>> {
        let FftOpts { n, axis, norm } = opts;
        one_axis(
            self.cast::<T::Complex>(),
            Kind::Forward,
            n,
            axis,
            norm,
            "fft",
        )
    }

    /// The inverse transform along the last axis ([`FftOpts`]: another `axis`, `n`, `norm`);
    /// scaled by `1/n` under the default norm. NumPy's `fft.ifft`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// use cuprite_array::ops::fft::FftOpts;
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[4.0, 0.0, 0.0, 0.0], &[4])?;
    /// let y = x.ifft_with(FftOpts::new().axis(0))?.to_vec()?;
    /// assert!(y.iter().all(|v| (v.re - 1.0).abs() < 1e-6 && v.im.abs() < 1e-6));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifft(&self) -> Result<Array<T::Complex>> {
        self.ifft_with(FftOpts::new())
    }
    /// [`ifft`](Self::ifft) with NumPy's `n`, `axis` and `norm` ([`FftOpts`]).
    pub fn ifft_with(&self, opts: FftOpts) -> Result<Array<T::Complex>> {
        let FftOpts { n, axis, norm } = opts;
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
    /// use cuprite_array::ops::fft::FftOpts;
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 7], &[7])?;
    /// let y = x.rfft_with(FftOpts::new().axis(0))?;
    /// assert_eq!(y.shape(), &[4]);
    /// assert!((y.to_vec()?[0].re - 7.0).abs() < 1e-5);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfft(&self) -> Result<Array<T::Complex>> {
        self.rfft_with(FftOpts::new())
    }
    /// [`rfft`](Self::rfft) with NumPy's `n`, `axis` and `norm` ([`FftOpts`]).
    pub fn rfft_with(&self, opts: FftOpts) -> Result<Array<T::Complex>> {
        let FftOpts { n, axis, norm } = opts;
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
    /// use cuprite_array::ops::fft::FftOpts;
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0], &[5])?;
    /// let y = x.rfft_with(FftOpts::new().axis(0))?;
    /// let back = y.irfft_with(FftOpts::new().n(5).axis(0))?.to_vec()?;
    /// assert!((back[4] - 5.0).abs() < 1e-12);
    /// assert_eq!(y.irfft_with(FftOpts::new().axis(0))?.shape(), &[4]); // 2 (3 - 1)
    /// let flat = Array::<f64>::from_slice_on(Device::CPU, &[4.0, 0.0, 0.0], &[3])?;
    /// assert_eq!(flat.irfft_with(FftOpts::new().axis(0))?.to_vec()?, [1.0; 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn irfft(&self) -> Result<Array<T::Real>> {
        self.irfft_with(FftOpts::new())
    }
    /// [`irfft`](Self::irfft) with NumPy's `n`, `axis` and `norm` ([`FftOpts`]).
    pub fn irfft_with(&self, opts: FftOpts) -> Result<Array<T::Real>> {
        let FftOpts { n, axis, norm } = opts;
        one_axis(self.cast::<T::Complex>(), Kind::C2R, n, axis, norm, "irfft")
    }

    /// The 2-D transform over `axes` (`None`: the last two), with lengths `s` (`None`: the
    /// axes' lengths). NumPy's `fft.fft2`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 6], &[2, 3])?;
    /// let y = x.fft2()?.to_vec()?;
    /// assert!((y[0].re - 6.0).abs() < 1e-5 && y[1].norm() < 1e-5);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fft2(&self) -> Result<Array<T::Complex>> {
        self.fft2_with(FftnOpts::new())
    }
    /// [`fft2`](Self::fft2) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn fft2_with(&self, opts: FftnOpts) -> Result<Array<T::Complex>> {
        let (s, axes, norm) = opts.parts();
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
    /// use cuprite_array::ops::fft::FftnOpts;
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let y = x.fft2_with(FftnOpts::new().norm(FftNorm::Ortho))?.ifft2_with(FftnOpts::new().norm(FftNorm::Ortho))?;
    /// assert!((y.to_vec()?[3].re - 4.0).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifft2(&self) -> Result<Array<T::Complex>> {
        self.ifft2_with(FftnOpts::new())
    }
    /// [`ifft2`](Self::ifft2) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn ifft2_with(&self, opts: FftnOpts) -> Result<Array<T::Complex>> {
        let (s, axes, norm) = opts.parts();
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
    /// use cuprite_array::ops::fft::FftnOpts;
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 8], &[2, 2, 2])?;
    /// let y = x.fftn_with(FftnOpts::new().norm(FftNorm::Forward))?.to_vec()?;
    /// assert!((y[0].re - 1.0).abs() < 1e-6 && y[7].norm() < 1e-6);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fftn(&self) -> Result<Array<T::Complex>> {
        self.fftn_with(FftnOpts::new())
    }
    /// [`fftn`](Self::fftn) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn fftn_with(&self, opts: FftnOpts) -> Result<Array<T::Complex>> {
        let (s, axes, norm) = opts.parts();
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::Forward, s, axes, DefaultAxes::All, norm, "fftn")
    }

    /// The inverse N-D transform over `axes` (`None`: all). NumPy's `fft.ifftn`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[8.0, 0.0, 0.0, 0.0], &[2, 2])?;
    /// let y = x.ifftn()?.to_vec()?;
    /// assert!(y.iter().all(|v| (v.re - 2.0).abs() < 1e-6));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifftn(&self) -> Result<Array<T::Complex>> {
        self.ifftn_with(FftnOpts::new())
    }
    /// [`ifftn`](Self::ifftn) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn ifftn_with(&self, opts: FftnOpts) -> Result<Array<T::Complex>> {
        let (s, axes, norm) = opts.parts();
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::Inverse, s, axes, DefaultAxes::All, norm, "ifftn")
    }

    /// The 2-D transform of a real array over `axes` (`None`: the last two); the last axis
    /// keeps `n / 2 + 1` points. NumPy's `fft.rfft2`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 12], &[3, 4])?;
    /// assert_eq!(x.rfft2()?.shape(), &[3, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfft2(&self) -> Result<Array<T::Complex>> {
        self.rfft2_with(FftnOpts::new())
    }
    /// [`rfft2`](Self::rfft2) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn rfft2_with(&self, opts: FftnOpts) -> Result<Array<T::Complex>> {
        let (s, axes, norm) = opts.parts();
        real_input::<T>("rfft2")?;
        let x = self.cast::<T::Real>();
        many_axes(x, Kind::R2C, s, axes, DefaultAxes::LastTwo, norm, "rfft2")
    }

    /// The inverse of [`rfft2`](Self::rfft2). NumPy's `fft.irfft2`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// use cuprite_array::ops::fft::FftnOpts;
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[1.0; 15], &[3, 5])?;
    /// let y = x.rfft2()?;
    /// let back = y.irfft2_with(FftnOpts::new().s(&[3, 5]))?;
    /// assert!(back.to_vec()?.iter().all(|v| (v - 1.0).abs() < 1e-12));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn irfft2(&self) -> Result<Array<T::Real>> {
        self.irfft2_with(FftnOpts::new())
    }
    /// [`irfft2`](Self::irfft2) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn irfft2_with(&self, opts: FftnOpts) -> Result<Array<T::Real>> {
        let (s, axes, norm) = opts.parts();
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::C2R, s, axes, DefaultAxes::LastTwo, norm, "irfft2")
    }

    /// The N-D transform of a real array over `axes` (`None`: all): a real transform along
    /// the last of `axes`, then complex ones along the others. NumPy's `fft.rfftn`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// use cuprite_array::ops::fft::FftnOpts;
    /// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 24], &[2, 3, 4])?;
    /// assert_eq!(x.rfftn()?.shape(), &[2, 3, 3]);
    /// assert_eq!(x.rfftn_with(FftnOpts::new().axes(&[2, 0]))?.shape(), &[2, 3, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn rfftn(&self) -> Result<Array<T::Complex>> {
        self.rfftn_with(FftnOpts::new())
    }
    /// [`rfftn`](Self::rfftn) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn rfftn_with(&self, opts: FftnOpts) -> Result<Array<T::Complex>> {
        let (s, axes, norm) = opts.parts();
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
    /// use cuprite_array::ops::fft::FftnOpts;
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[2.0; 8], &[2, 4])?;
    /// let y = x.rfftn_with(FftnOpts::new().norm(FftNorm::Ortho))?;
    /// let back = y.irfftn_with(FftnOpts::new().s(&[2, 4]).norm(FftNorm::Ortho))?.to_vec()?;
    /// assert!(back.iter().all(|v| (v - 2.0).abs() < 1e-12));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn irfftn(&self) -> Result<Array<T::Real>> {
        self.irfftn_with(FftnOpts::new())
    }
    /// [`irfftn`](Self::irfftn) with NumPy's `s`, `axes` and `norm` ([`FftnOpts`]).
    pub fn irfftn_with(&self, opts: FftnOpts) -> Result<Array<T::Real>> {
        let (s, axes, norm) = opts.parts();
        let x = self.cast::<T::Complex>();
        many_axes(x, Kind::C2R, s, axes, DefaultAxes::All, norm, "irfftn")
    }
}
