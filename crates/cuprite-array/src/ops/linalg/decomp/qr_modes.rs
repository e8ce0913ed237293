//! The other modes of NumPy's `linalg.qr`: `"complete"` (`Q` square), `"r"` (`R` alone) and
//! `"raw"` (LAPACK's Householder reflectors and scalars, as `geqrf` leaves them).

use super::checks::{dims, solver_err};
use super::cuda::{dev_array, owned, scratch, solver, span};
use super::factor::qr;
use super::real::Scalar;
use super::stack::per_matrix;
use crate::array::Array;
use crate::device::Device;
use crate::error::Result;
use crate::ops::stacking::along;
use num_complex::Complex;

/// The complete QR factorisation `a = Q·R` of an `m × n` matrix: `Q` `m × m` unitary, `R`
/// `m × n` upper triangular (NumPy's `qr(a, mode="complete")`). Stacks `(..., m, n)` too.
///
/// The first `min(m, n)` columns of `Q` are [`qr`]'s; the rest complete the basis (the
/// factorisation of `[a | I]`, whose first `n` Householder steps are those of `a`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[3, 1])?;
/// let (q, r) = linalg::qr_complete(&a)?;
/// assert_eq!((q.shape(), r.shape()), (&[3, 3][..], &[3, 1][..]));
/// let back = q.matmul(&r)?.to_vec()?;
/// assert!(back.iter().zip([1.0, 2.0, 3.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qr_complete<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    if a.ndim() > 2 {
        let [q, r] = per_matrix("qr_complete", a, |_, m| qr_complete(m).map(|(q, r)| [q, r]))?;
        return Ok((q, r));
    }
    let (m, n) = dims("qr_complete", a)?;
    if n >= m {
        // Reduced is complete: k = m.
        return qr(a);
    }
    let eye = Array::<T>::eye(m)?.to_device(a.device())?;
    let (q, r) = qr(&Array::concat(&[a, &eye], 1)?)?;
    let r = r.slice(&along(2, 1, 0, n))?.contiguous()?;
    Ok((q, r))
}

/// The `R` of [`qr`] alone, `min(m, n) × n` (NumPy's `qr(a, mode="r")`). Stacks too.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 4.0], &[2, 1])?;
/// let r = linalg::qr_r(&a)?.to_vec()?;
/// assert!((r[0].abs() - 5.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qr_r<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    Ok(qr(a)?.1)
}

/// LAPACK's raw QR factorisation (NumPy's `qr(a, mode="raw")`): `(h, tau)` with `h` the
/// `n × m` transpose of what `geqrf` leaves in the column-major `a` — `R` on and above the
/// diagonal of `hᵀ`, below it the Householder vectors `v_j` (with `v_j[j] = 1` implied) — and
/// `tau` the `min(m, n)` scalars, `Q = H_0·H_1·…` with `H_j = I − tau_j·v_j·v_jᴴ`. 2-D only
/// (NumPy's raw mode takes stacks too: factor each matrix).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 4.0], &[2, 1])?;
/// let (h, tau) = linalg::qr_raw(&a)?;
/// assert_eq!((h.shape(), tau.shape()), (&[1, 2][..], &[1][..]));
/// let (h, tau) = (h.to_vec()?, tau.to_vec()?);
/// assert!((h[0] + 5.0).abs() < 1e-12 && (tau[0] - 1.6).abs() < 1e-12 && (h[1] - 0.5).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qr_raw<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    if a.ndim() > 2 {
        let [h, tau] = per_matrix("qr_raw", a, |_, m| qr_raw(m).map(|(h, t)| [h, t]))?;
        return Ok((h, tau));
    }
    let (m, n) = dims("qr_raw", a)?;
    let k = m.min(n);
    let dev = a.device();
    crate::backend::eager(
        a.device(),
        || {
            let v: Vec<Complex<f64>> = a.to_vec()?.into_iter().map(|x| x.to_c64()).collect();
            let (h, tau) = householder(&v, m, n);
            let back =
                |x: &[Complex<f64>]| -> Vec<T> { x.iter().map(|&z| T::from_c64(z)).collect() };
            Ok((
                Array::from_slice_on(Device::CPU, &back(&h), &[n, m])?,
                Array::from_slice_on(Device::CPU, &back(&tau), &[k])?,
            ))
        },
        |ord| {
            if k == 0 {
                let z = |s: &[usize]| Array::<T>::zeros(s).to_device(dev);
                return Ok((z(&[n, m])?, z(&[0])?));
            }
            let (sv, _) = solver(ord)?;
            let f = owned(&a.t())?;
            let tau = scratch(ord, T::DTYPE, k)?;
            {
                let (mut fs, mut ts) = (span::<T>(&f)?, span::<T>(&tau)?);
                sv.geqrf(m, n, &mut fs, m, &mut ts)
                    .map_err(|e| solver_err("qr_raw", e))?;
            }
            // Column-major m × n is row-major n × m: exactly NumPy's h.
            Ok((
                dev_array::<T>(f, &[n, m], dev),
                dev_array::<T>(tau, &[k], dev),
            ))
        },
    )
}

/// LAPACK's `geqr2` on the row-major `m × n` matrix `a` in `Complex<f64>` (`larfg`'s
/// reflectors: `beta = −sign(Re α)·‖(α, x)‖`, `tau = (beta − α)/beta`,
/// `v = x/(α − beta)`; `Hᴴ` applied to the columns to the right): `(h, tau)`, `h` row-major
/// `n × m` (the column-major result).
fn householder(a: &[Complex<f64>], m: usize, n: usize) -> (Vec<Complex<f64>>, Vec<Complex<f64>>) {
    let zero = Complex::new(0.0, 0.0);
    // Column-major working copy: w[j·m + i] = a[i][j].
    let mut w = vec![zero; m * n];
    for i in 0..m {
        for j in 0..n {
            w[j * m + i] = a[i * n + j];
        }
    }
    let k = m.min(n);
    let mut taus = Vec::with_capacity(k);
    for j in 0..k {
        let col = j * m;
        let alpha = w[col + j];
        let xn = (j + 1..m)
            .map(|i| w[col + i].norm_sqr())
            .sum::<f64>()
            .sqrt();
        if xn == 0.0 && alpha.im == 0.0 {
            taus.push(zero);
            continue;
        }
        let beta = -alpha.re.signum() * (alpha.norm_sqr() + xn * xn).sqrt();
        let tau = Complex::new((beta - alpha.re) / beta, -alpha.im / beta);
        let scale = Complex::new(1.0, 0.0) / (alpha - beta);
        for i in j + 1..m {
            w[col + i] *= scale;
        }
        w[col + j] = Complex::new(beta, 0.0);
        // Columns to the right: c ← (I − conj(tau)·v·vᴴ)·c, v = (1, w[j+1..m, j]).
        for c in j + 1..n {
            let cc = c * m;
            let mut s = w[cc + j];
            for i in j + 1..m {
                s += w[col + i].conj() * w[cc + i];
            }
            let f = tau.conj() * s;
            w[cc + j] -= f;
            for i in j + 1..m {
                let vi = w[col + i];
                w[cc + i] -= f * vi;
            }
        }
        taus.push(tau);
    }
    (w, taus)
}
