//! A naive discrete Fourier transform in `f64`: the reference that FFT results (cuFFT through
//! `cuprite_driver::fft`, and the array library's GPU and CPU backends) are checked against.
//!
//! Every transform here is a plain sum over `O(n)` terms per output point along each axis
//! (no fast algorithm), with twiddle factors taken at the exact angle `2π (j·k mod n) / n`, so
//! its own error is that of `f64` sums. Arrays are row-major (C order); transforms are
//! unnormalised, with exponent sign −1 forward and +1 inverse, as cuFFT, NumPy's `norm =
//! "backward"` forward and FFTW define them.
//!
//! ```
//! use cuprite_testkit::dft::{dft, rel_error};
//! use num_complex::Complex;
//! // A delta's transform is all ones.
//! let mut x = vec![Complex::new(0.0, 0.0); 8];
//! x[0] = Complex::new(1.0, 0.0);
//! let y = dft(&x, &[8], false);
//! assert!(rel_error(&y, &vec![Complex::new(1.0, 0.0); 8]) < 1e-15);
//! ```

use num_complex::Complex;

type C64 = Complex<f64>;

fn twiddles(n: usize, inverse: bool) -> Vec<C64> {
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|k| {
            let a = sign * 2.0 * std::f64::consts::PI * k as f64 / n as f64;
            Complex::new(a.cos(), a.sin())
        })
        .collect()
}

/// The transform of the row-major array `x` of `shape` along `axis` only.
pub fn dft_axis(x: &[C64], shape: &[usize], axis: usize, inverse: bool) -> Vec<C64> {
    let total: usize = shape.iter().product();
    assert_eq!(
        x.len(),
        total,
        "dft_axis: {} elements for shape {shape:?}",
        x.len()
    );
    assert!(axis < shape.len(), "dft_axis: axis {axis} of {shape:?}");
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer = total.checked_div(n * inner).unwrap_or(0);
    let w = twiddles(n, inverse);
    let mut y = vec![Complex::new(0.0, 0.0); total];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            for k in 0..n {
                let mut acc = Complex::new(0.0, 0.0);
                for j in 0..n {
                    acc += x[base + j * inner] * w[(j * k) % n];
                }
                y[base + k * inner] = acc;
            }
        }
    }
    y
}

/// The transform of the row-major array `x` of `shape` over its last `rank` axes: a batch of
/// `rank`-dimensional transforms (the leading axes are the batch).
pub fn dft_last(x: &[C64], shape: &[usize], rank: usize, inverse: bool) -> Vec<C64> {
    assert!(rank <= shape.len(), "dft_last: rank {rank} of {shape:?}");
    let mut y = x.to_vec();
    for axis in shape.len() - rank..shape.len() {
        y = dft_axis(&y, shape, axis, inverse);
    }
    y
}

/// The transform of the row-major array `x` of `shape` over all its axes.
pub fn dft(x: &[C64], shape: &[usize], inverse: bool) -> Vec<C64> {
    dft_last(x, shape, shape.len(), inverse)
}

/// The real-to-complex transform over the last `rank` axes of `shape` (leading axes: batch):
/// the full transform, keeping `n/2 + 1` points of the last axis. Its shape is `shape` with
/// the last size `n/2 + 1`.
pub fn rdft_last(x: &[f64], shape: &[usize], rank: usize) -> Vec<C64> {
    let xc: Vec<C64> = x.iter().map(|&v| Complex::new(v, 0.0)).collect();
    let full = dft_last(&xc, shape, rank, false);
    let n = *shape.last().expect("rdft_last: empty shape");
    let h = n / 2 + 1;
    full.chunks(n)
        .flat_map(|row| row[..h].iter().copied())
        .collect()
}

/// The complex-to-real transform over the last `rank` axes of `shape` (the real output's
/// shape; leading axes: batch) of the half spectrum `x` (last axis `n/2 + 1` long): the
/// inverse transform of its Hermitian extension, real part. Meant for consistent half spectra
/// (those of real data); of others, each library keeps a different part.
pub fn irdft_last(x: &[C64], shape: &[usize], rank: usize) -> Vec<f64> {
    let n = *shape.last().expect("irdft_last: empty shape");
    let h = n / 2 + 1;
    let lead = &shape[..shape.len() - 1];
    let rows: usize = lead.iter().product();
    assert_eq!(x.len(), rows * h, "irdft_last: {} elements", x.len());
    // The transformed leading axes (the last rank-1 of them) are mirrored for the Hermitian
    // extension; batch axes are not.
    let first_t = shape.len() - rank;
    let mut full = vec![Complex::new(0.0, 0.0); rows * n];
    let mut idx = vec![0usize; lead.len()];
    for r in 0..rows {
        // idx = the multi-index of row r.
        let mut rem = r;
        for a in (0..lead.len()).rev() {
            idx[a] = rem % lead[a];
            rem /= lead[a];
        }
        // The row of the mirrored multi-index (-k mod n on transformed axes).
        let mut mirror = 0;
        for a in 0..lead.len() {
            let k = if a >= first_t {
                (lead[a] - idx[a]) % lead[a]
            } else {
                idx[a]
            };
            mirror = mirror * lead[a] + k;
        }
        for k in 0..n {
            full[r * n + k] = if k < h {
                x[r * h + k]
            } else {
                x[mirror * h + (n - k)].conj()
            };
        }
    }
    dft_last(&full, shape, rank, true)
        .into_iter()
        .map(|c| c.re)
        .collect()
}

/// `‖a − b‖₂ / ‖b‖₂` (or `‖a − b‖₂` when `b` is zero): the relative error of `a` against the
/// reference `b`. NaN anywhere gives NaN (so a poisoned value left in place fails a check).
pub fn rel_error(a: &[C64], b: &[C64]) -> f64 {
    assert_eq!(a.len(), b.len(), "rel_error: lengths differ");
    let num: f64 = a.iter().zip(b).map(|(x, y)| (x - y).norm_sqr()).sum();
    let den: f64 = b.iter().map(|y| y.norm_sqr()).sum();
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}

/// [`rel_error`] of real vectors.
pub fn rel_error_real(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "rel_error_real: lengths differ");
    let num: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    let den: f64 = b.iter().map(|y| y * y).sum();
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}
