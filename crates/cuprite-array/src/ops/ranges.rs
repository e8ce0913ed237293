//! Logarithmic ranges (NumPy's `logspace`, `geomspace`) on top of `linspace`, fused.

use crate::array::Array;
use crate::dtype::{Float, Transcendental};
use crate::error::{Error, Result};

impl<T: Float + Transcendental> Array<T> {
    /// `base` raised to `n` evenly spaced exponents from `start` to `stop` inclusive (NumPy's
    /// `logspace`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<f64>::logspace(0.0, 3.0, 4, 10.0)?.to_vec()?;
    /// assert!(a.iter().zip([1.0, 10.0, 100.0, 1000.0]).all(|(x, y)| (x - y).abs() < 1e-9 * y));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn logspace(start: f64, stop: f64, n: usize, base: f64) -> Result<Array<T>> {
        let e = Array::<f64>::linspace(start, stop, n)?;
        let r = Array::<f64>::full(&[], base).pow(&e).cast::<T>();
        r.eval()?;
        Ok(r)
    }

    /// `n` values from `start` to `stop` inclusive in geometric progression, the ends exact
    /// (NumPy's `geomspace`); a zero end, or ends of different signs, is an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// assert_eq!(Array::<f64>::geomspace(1.0, 1000.0, 4)?.to_vec()?[3], 1000.0);
    /// let g = Array::<f64>::geomspace(-1.0, -100.0, 3)?.to_vec()?;
    /// assert!((g[1] + 10.0).abs() < 1e-12);
    /// assert!(Array::<f64>::geomspace(0.0, 1.0, 3).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn geomspace(start: f64, stop: f64, n: usize) -> Result<Array<T>> {
        if start == 0.0
            || stop == 0.0
            || (start < 0.0) != (stop < 0.0)
            || !(start * stop).is_finite()
        {
            return Err(Error::InvalidArgument(format!(
                "geomspace({start}, {stop}): the ends must be finite, non-zero and of one sign"
            )));
        }
        let sign = start.signum();
        let e = Array::<f64>::linspace(start.abs().log10(), stop.abs().log10(), n)?;
        let r = Array::<f64>::full(&[], 10.0).pow(&e) * sign;
        let i = Array::arange_len(n)?;
        let r = Array::select(&i.equal(0i64), start, &r)?;
        let r = Array::select(&i.equal(n as i64 - 1), stop, &r)?;
        let r = r.cast::<T>();
        r.eval()?;
        Ok(r)
    }
}
