//! The spectrum shifts `fftshift` and `ifftshift`.

use super::build::resolve_axes;
use crate::array::Array;
use crate::dtype::Element;
use crate::error::Result;
use crate::ops::AxesOpts;

impl<T: Element> Array<T> {
    /// Moves the zero-frequency point to the centre: a roll by `n / 2` along every axis (only
    /// those of [`AxesOpts`] with [`fftshift_with`](Self::fftshift_with)). NumPy's `fft.fftshift`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let f = Array::<f64>::fftfreq_on(Device::CPU, 5, 1.0)?;
    /// let v = f.fftshift()?.to_vec()?;
    /// assert_eq!(v, [-0.4, -0.2, 0.0, 0.2, 0.4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn fftshift(&self) -> Result<Array<T>> {
        self.shift_half(None, false)
    }
    /// [`fftshift`](Self::fftshift) with NumPy's `axes` ([`AxesOpts`]).
    pub fn fftshift_with(&self, opts: AxesOpts) -> Result<Array<T>> {
        self.shift_half(opts.get(), false)
    }

    /// The inverse of [`fftshift`](Self::fftshift): a roll by `−(n / 2)` along every axis
    /// (only those of [`AxesOpts`] with [`ifftshift_with`](Self::ifftshift_with)). NumPy's `fft.ifftshift`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let x = Array::<i32>::from_slice_on(Device::CPU, &[0, 1, 2, 3, 4], &[5])?;
    /// assert_eq!(x.fftshift()?.ifftshift()?.to_vec()?, [0, 1, 2, 3, 4]);
    /// assert_eq!(x.ifftshift()?.to_vec()?, [2, 3, 4, 0, 1]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ifftshift(&self) -> Result<Array<T>> {
        self.shift_half(None, true)
    }
    /// [`ifftshift`](Self::ifftshift) with NumPy's `axes` ([`AxesOpts`]).
    pub fn ifftshift_with(&self, opts: AxesOpts) -> Result<Array<T>> {
        self.shift_half(opts.get(), true)
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
