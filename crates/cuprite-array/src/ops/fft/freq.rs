//! The sample frequencies `fftfreq` and `rfftfreq`.

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::{Error, Result};

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
        let mut v: Vec<T> = crate::util::host_vec(n, "fftfreq")?;
        v.extend((0..n).map(|k| {
            let k = if k < n.div_ceil(2) {
                k as f64
            } else {
                k as f64 - n as f64
            };
            T::from_scalar(Scalar::F64(k * scale))
        }));
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
        let mut v: Vec<T> = crate::util::host_vec(n / 2 + 1, "rfftfreq")?;
        v.extend((0..n / 2 + 1).map(|k| T::from_scalar(Scalar::F64(k as f64 * scale))));
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
