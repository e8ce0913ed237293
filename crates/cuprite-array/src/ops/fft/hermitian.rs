//! The Hermitian transforms `hfft` and `ihfft` (NumPy's `fft.hfft`, `fft.ihfft`): a signal
//! whose spectrum is real, through the real transforms. `hfft(a)` is `irfft(conj(a))` and
//! `ihfft(x)` is `conj(rfft(x))`, each with the scaling direction of `norm` swapped (NumPy's
//! definition), so `ihfft(hfft(a, n), n) == a` under every [`FftNorm`].

use super::build::one_axis;
use super::desc::Kind;
use super::element::FftElement;
use super::norm::FftNorm;
use super::options::FftOpts;
use crate::array::Array;
use crate::error::{Error, Result};

/// The other direction's scaling (`Ortho` stays).
fn swapped(norm: FftNorm) -> FftNorm {
    match norm {
        FftNorm::Backward => FftNorm::Forward,
        FftNorm::Forward => FftNorm::Backward,
        FftNorm::Ortho => FftNorm::Ortho,
    }
}

impl<T: FftElement> Array<T> {
    /// The transform of a signal with Hermitian symmetry (the half spectrum `a` of points
    /// `0..=n/2`) along `axis`: `n` real points (`None`: `2 (m − 1)` for `m` input points).
    /// NumPy's `fft.hfft`: `irfft(conj(a), n)` scaled as the forward transform under `norm`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm, c64};
    /// use cuprite_array::ops::fft::FftOpts;
    /// let a = Array::<c64>::from_slice_on(Device::CPU, &[c64::new(1.0, 0.0), c64::new(2.0, 0.0)], &[2])?;
    /// // The signal [1, 2] with Hermitian extension: sum = 1 + 2 = 3, alternating 1 - 2 = -1.
    /// assert_eq!(a.hfft_with(FftOpts::new().axis(0))?.to_vec()?, [3.0, -1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn hfft(&self) -> Result<Array<T::Real>> {
        self.hfft_with(FftOpts::new())
    }
    /// [`hfft`](Self::hfft) with NumPy's `n`, `axis` and `norm` ([`FftOpts`]).
    pub fn hfft_with(&self, opts: FftOpts) -> Result<Array<T::Real>> {
        let FftOpts { n, axis, norm } = opts;
        let n = match n {
            Some(n) => n,
            None => {
                let m = axis_len(self.shape(), axis, "hfft")?;
                if m == 0 {
                    return Err(Error::InvalidArgument(format!(
                        "hfft: axis {axis} of shape {:?} has no points (n = 2 (m − 1) needs m ≥ 1)",
                        self.shape()
                    )));
                }
                2 * (m - 1)
            }
        };
        let c = self.cast::<T::Complex>().conj();
        one_axis(c, Kind::C2R, Some(n), axis, swapped(norm), "hfft")
    }

    /// The inverse of [`hfft`](Self::hfft): the `n / 2 + 1` points of the half spectrum of the
    /// real signal along `axis` (`n`: `None` for the axis length; cropped or zero-padded).
    /// NumPy's `fft.ihfft`: `conj(rfft(x, n))` scaled as the inverse transform under `norm`.
    /// `Err` for a complex array, as [`rfft`](Self::rfft).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, FftNorm};
    /// use cuprite_array::ops::fft::FftOpts;
    /// let x = Array::<f64>::from_slice_on(Device::CPU, &[3.0, -1.0], &[2])?;
    /// let a = x.ihfft_with(FftOpts::new().axis(0))?.to_vec()?;
    /// assert!((a[0].re - 1.0).abs() < 1e-12 && (a[1].re - 2.0).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ihfft(&self) -> Result<Array<T::Complex>> {
        self.ihfft_with(FftOpts::new())
    }
    /// [`ihfft`](Self::ihfft) with NumPy's `n`, `axis` and `norm` ([`FftOpts`]).
    pub fn ihfft_with(&self, opts: FftOpts) -> Result<Array<T::Complex>> {
        let FftOpts { n, axis, norm } = opts;
        Ok(self
            .rfft_with(FftOpts::new().n(n).axis(axis).norm(swapped(norm)))?
            .conj())
    }
}

/// The length of `axis` (negative counts from the end) of `shape`.
fn axis_len(shape: &[usize], axis: isize, call: &str) -> Result<usize> {
    let nd = shape.len() as isize;
    let a = if axis < 0 { axis + nd } else { axis };
    if !(0..nd).contains(&a) {
        return Err(Error::InvalidArgument(format!(
            "{call}: axis {axis} is out of range for shape {shape:?}"
        )));
    }
    Ok(shape[a as usize])
}
