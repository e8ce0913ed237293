//! Window functions (NumPy's `hanning`, `hamming`, `blackman`, `bartlett`, `kaiser`): `m`
//! points, symmetric, built element-wise from an index range on the current device (one fused
//! kernel each; `kaiser` evaluates its Bessel function on the host, `m` values).

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::Result;

fn c<T: Float>(x: f64) -> T {
    T::from_scalar(Scalar::F64(x))
}

/// `2πn / (m - 1)` for `n` in `0..m`, or `None` when `m < 2` (the window is all ones).
fn phase<T: Float>(m: usize) -> Result<Option<Array<T>>> {
    if m < 2 {
        return Ok(None);
    }
    let n: Array<T> = Array::arange_len(m)?.cast();
    Ok(Some(
        n * c::<T>(2.0 * std::f64::consts::PI / (m - 1) as f64),
    ))
}

fn cosine_sum<T: Float>(m: usize, a: &[f64]) -> Result<Array<T>> {
    let Some(p) = phase::<T>(m)? else {
        return Ok(Array::ones(&[m]));
    };
    let mut w = Array::full(&[m], c::<T>(a[0]));
    for (k, &ak) in a.iter().enumerate().skip(1) {
        let sign = if k % 2 == 1 { -ak } else { ak };
        w = w.try_add(&((&p * c::<T>(k as f64)).cos() * c::<T>(sign)))?;
    }
    w.eval()?;
    Ok(w)
}

/// The Hann window `0.5 - 0.5 cos(2πn / (m - 1))` (NumPy's `hanning`).
///
/// ```
/// let w = cuprite_array::ops::hanning::<f64>(5)?.to_vec()?;
/// assert!((w[1] - 0.5).abs() < 1e-15 && (w[2] - 1.0).abs() < 1e-15 && w[0] == 0.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn hanning<T: Float>(m: usize) -> Result<Array<T>> {
    cosine_sum(m, &[0.5, 0.5])
}

/// The Hamming window `0.54 - 0.46 cos(2πn / (m - 1))` (NumPy's `hamming`).
///
/// ```
/// let w = cuprite_array::ops::hamming::<f64>(3)?.to_vec()?;
/// assert!((w[0] - 0.08).abs() < 1e-15 && (w[1] - 1.0).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn hamming<T: Float>(m: usize) -> Result<Array<T>> {
    cosine_sum(m, &[0.54, 0.46])
}

/// The Blackman window `0.42 - 0.5 cos(2πn/(m-1)) + 0.08 cos(4πn/(m-1))` (NumPy's
/// `blackman`).
///
/// ```
/// let w = cuprite_array::ops::blackman::<f64>(3)?.to_vec()?;
/// assert!(w[0].abs() < 1e-15 && (w[1] - 1.0).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn blackman<T: Float>(m: usize) -> Result<Array<T>> {
    cosine_sum(m, &[0.42, 0.5, 0.08])
}

/// The triangular Bartlett window `1 - |2n/(m-1) - 1|` (NumPy's `bartlett`).
///
/// ```
/// let w = cuprite_array::ops::bartlett::<f32>(5)?.to_vec()?;
/// assert_eq!(w, vec![0.0, 0.5, 1.0, 0.5, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bartlett<T: Float>(m: usize) -> Result<Array<T>> {
    if m < 2 {
        return Ok(Array::ones(&[m]));
    }
    let n: Array<T> = Array::arange_len(m)?.cast();
    let t = (n * c::<T>(2.0 / (m - 1) as f64)) - c::<T>(1.0);
    let w = Array::full(&[], c::<T>(1.0)).try_sub(t.abs())?;
    w.eval()?;
    Ok(w)
}

/// The modified Bessel function of the first kind, order 0, by its power series (which
/// converges for every real argument; terms are summed until they stop changing the sum).
pub(crate) fn bessel_i0(x: f64) -> f64 {
    let q = x * x / 4.0;
    let (mut term, mut sum, mut k) = (1.0f64, 1.0f64, 1.0f64);
    while term > sum * 1e-17 {
        term *= q / (k * k);
        sum += term;
        k += 1.0;
    }
    sum
}

/// The Kaiser window `I0(β sqrt(1 - (2n/(m-1) - 1)²)) / I0(β)` (NumPy's `kaiser`).
///
/// ```
/// let w = cuprite_array::ops::kaiser::<f64>(3, 0.0)?.to_vec()?;
/// assert_eq!(w, vec![1.0, 1.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn kaiser<T: Float>(m: usize, beta: f64) -> Result<Array<T>> {
    if m < 2 {
        return Ok(Array::ones(&[m]));
    }
    let den = bessel_i0(beta);
    let v: Vec<T> = (0..m)
        .map(|n| {
            let t = 2.0 * n as f64 / (m - 1) as f64 - 1.0;
            c::<T>(bessel_i0(beta * (1.0 - t * t).max(0.0).sqrt()) / den)
        })
        .collect();
    Array::from_slice(&v, &[m])
}
