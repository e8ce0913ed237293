//! The factorisations: Cholesky, QR, SVD and the symmetric eigendecomposition.

#[cfg(not(feature = "faer"))]
use super::checks::no_faer;
use super::checks::{dims, solver_err, square};
#[cfg(feature = "faer")]
use super::cpu::{self, cpu_array, host};
use super::cuda::{dev_array, fresh, owned, scratch, solver, span, tri_mask};
use super::real::{RealOf, Scalar, narrow, widen};
use super::stack::per_matrix;
use crate::array::Array;
use crate::error::Result;
use cuprite_driver::blas::Fill;
use cuprite_driver::solver::SvdVectors;

/// The lower-triangular Cholesky factor `L` of a symmetric (complex: Hermitian) positive
/// definite matrix (`a = L·Lᵀ`, complex `a = L·Lᴴ`; only the lower triangle of `a` is read). A
/// matrix that is not positive definite is [`Error::NotPositiveDefinite`].
///
/// [`Error::NotPositiveDefinite`]: crate::Error::NotPositiveDefinite
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[4.0, 2.0, 2.0, 5.0], &[2, 2])?;
/// assert_eq!(linalg::cholesky(&a)?.to_vec()?, [2.0, 0.0, 1.0, 2.0]);
/// let not_spd = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 1.0], &[2, 2])?;
/// assert!(linalg::cholesky(&not_spd).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cholesky<T: Scalar>(a: &Array<T>) -> Result<Array<T>> {
    if a.ndim() > 2 {
        let [l] = per_matrix("cholesky", a, |_, m| Ok([cholesky(m)?]))?;
        return Ok(l);
    }
    let n = square("cholesky", a)?;
    crate::backend::eager(
        a.device(),
        || {
            #[cfg(feature = "faer")]
            return cpu_array(&cpu::cholesky(&host(a)?, n)?, &[n, n]);
            #[cfg(not(feature = "faer"))]
            return no_faer("cholesky");
        },
        |ord| {
            let (sv, _) = solver(ord)?;
            // The row-major lower triangle is the column-major upper one of the matrix the buffer
            // holds column-major, aᵀ (= conj(a) for a Hermitian a): aᵀ = Uᴴ·U there, so a = Uᵀ·conj(U)
            // and L = Uᵀ, the row-major reading of U.
            let f = fresh(a)?;
            {
                let mut fs = span::<T>(&f)?;
                sv.potrf(Fill::Upper, n, &mut fs, n.max(1))
                    .map_err(|e| solver_err("cholesky", e))?;
            }
            let l = dev_array::<T>(f, &[n, n], a.device());
            let mask = tri_mask(n, n, false, a.device())?;
            Array::select(&mask, &l, T::default())?.contiguous()
        },
    )
}

/// The reduced QR factorisation `a = Q·R` of an `m × n` matrix: `Q` `m × k` with orthonormal
/// columns (`QᴴQ = I` for complex `a`), `R` `k × n` upper triangular, `k = min(m, n)` (NumPy's
/// `mode="reduced"`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 0.0, 4.0, 5.0], &[2, 2])?;
/// let (q, r) = linalg::qr(&a)?;
/// let back = q.matmul(&r)?.to_vec()?;
/// assert!(back.iter().zip([3.0, 0.0, 4.0, 5.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qr<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    if a.ndim() > 2 {
        let [q, r] = per_matrix("qr", a, |_, m| qr(m).map(|(q, r)| [q, r]))?;
        return Ok((q, r));
    }
    let (m, n) = dims("qr", a)?;
    let k = m.min(n);
    crate::backend::eager(
        a.device(),
        || {
            #[cfg(not(feature = "faer"))]
            return no_faer("qr");
            #[cfg(feature = "faer")]
            {
                let (q, r) = cpu::qr(&host(a)?, m, n);
                Ok((cpu_array(&q, &[m, k])?, cpu_array(&r, &[k, n])?))
            }
        },
        |ord| {
            if k == 0 {
                let z = |r: usize, c: usize| Array::<T>::zeros(&[r, c]).to_device(a.device());
                return Ok((z(m, k)?, z(k, n)?));
            }
            let (sv, _) = solver(ord)?;
            // Column-major a: the row-major elements of aᵀ.
            let f = owned(&a.t())?;
            let tau = scratch(ord, T::DTYPE, k)?;
            {
                let (mut fs, mut ts) = (span::<T>(&f)?, span::<T>(&tau)?);
                sv.geqrf(m, n, &mut fs, m, &mut ts)
                    .map_err(|e| solver_err("qr", e))?;
            }
            // R: the upper triangle of the first k rows, before orgqr overwrites them.
            let fa = dev_array::<T>(f, &[n, m], a.device()); // (column-major m × n)ᵀ
            let r_full = fa.t().slice(&[
                crate::shape::SliceArg::Range {
                    start: Some(0),
                    end: Some(k as isize),
                    step: 1,
                },
                crate::shape::SliceArg::Range {
                    start: None,
                    end: None,
                    step: 1,
                },
            ])?;
            let mask = tri_mask(k, n, true, a.device())?;
            let r = Array::select(&mask, &r_full, T::default())?.contiguous()?;
            // Q from the reflectors in the first k columns (column-major, contiguous at the start).
            let q = fresh(&fa)?;
            {
                let (mut qs, ts) = (span::<T>(&q)?, span::<T>(&tau)?);
                sv.orgqr(m, k, k, &mut qs, m, &ts)
                    .map_err(|e| solver_err("qr", e))?;
            }
            // The first m·k elements hold column-major m × k Q: the row-major k × m transpose.
            let qa = dev_array::<T>(q, &[n * m], a.device())
                .slice(&[crate::shape::SliceArg::Range {
                    start: Some(0),
                    end: Some((m * k) as isize),
                    step: 1,
                }])?
                .reshape(&[k, m])?
                .t()
                .contiguous()?;
            Ok((qa, r))
        },
    )
}

/// What [`svd`] returns: `U`, the singular values (real), `Vᴴ`.
pub type Svd<T> = (Array<T>, Array<RealOf<T>>, Array<T>);

/// The reduced singular value decomposition `a = U·diag(S)·Vᴴ` of an `m × n` matrix: `U`
/// `m × k`, `S` the `k = min(m, n)` singular values in descending order (real: `f32` or `f64`
/// for complex `a` too), `Vᴴ` `k × n` (`Vᵀ` for real `a`; NumPy's `svd(full_matrices=False)`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 0.0, 0.0, -2.0], &[2, 2])?;
/// let (_u, s, _vt) = linalg::svd(&a)?;
/// let s = s.to_vec()?;
/// assert!((s[0] - 3.0).abs() < 1e-12 && (s[1] - 2.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn svd<T: Scalar>(a: &Array<T>) -> Result<Svd<T>> {
    if a.ndim() > 2 {
        // Stacked as T (the singular values real-valued), then back to the real type.
        let [u, s, vt] = per_matrix("svd", a, |_, m| {
            svd(m).map(|(u, s, vt)| [u, widen::<T>(&s), vt])
        })?;
        return Ok((u, narrow(&s), vt));
    }
    let (m, n) = dims("svd", a)?;
    let k = m.min(n);
    crate::backend::eager(
        a.device(),
        || {
            #[cfg(not(feature = "faer"))]
            return no_faer("svd");
            #[cfg(feature = "faer")]
            {
                let (u, s, vt) = cpu::svd(&host(a)?, m, n)?;
                Ok((
                    cpu_array(&u, &[m, k])?,
                    cpu_array(&s, &[k])?,
                    cpu_array(&vt, &[k, n])?,
                ))
            }
        },
        |ord| {
            let dev = a.device();
            if k == 0 {
                let z = |s: &[usize]| Array::<T>::zeros(s).to_device(dev);
                let s0 = Array::<RealOf<T>>::zeros(&[k]).to_device(dev)?;
                return Ok((z(&[m, k])?, s0, z(&[k, n])?));
            }
            let (sv, _) = solver(ord)?;
            // cuSOLVER's gesvd wants rows ≥ columns: decompose the column-major matrix c (r × c, r ≥ c)
            // that is a (m ≥ n: the elements of aᵀ) or aᵀ (m < n: the elements of a).
            let tall = m >= n;
            let (r, c) = if tall { (m, n) } else { (n, m) };
            let f = if tall { owned(&a.t())? } else { fresh(a)? };
            let s = scratch(ord, <RealOf<T> as crate::dtype::Element>::DTYPE, c)?;
            let u = scratch(ord, T::DTYPE, r * c)?;
            let vt = scratch(ord, T::DTYPE, c * c)?;
            {
                let (mut fs, mut ss, mut us, mut vs) = (
                    span::<T>(&f)?,
                    span::<RealOf<T>>(&s)?,
                    span::<T>(&u)?,
                    span::<T>(&vt)?,
                );
                sv.gesvd(
                    SvdVectors::Thin,
                    r,
                    c,
                    &mut fs,
                    r,
                    &mut ss,
                    Some((&mut us, r)),
                    Some((&mut vs, c)),
                )
                .map_err(|e| solver_err("svd", e))?;
            }
            let sa = dev_array::<RealOf<T>>(s, &[k], dev);
            // Column-major U (r × c) holds the row-major elements of Uᵀ; likewise Vᴴ (c × c) of
            // conj(V). No conjugate is needed: a (tall) = U·S·Vᴴ gives U = (Uᵀ)ᵀ and Vᴴ = (conj V)ᵀ;
            // aᵀ (wide) = U'·S·V'ᴴ gives a = conj(V')·S·U'ᵀ, the two row-major readings.
            let ut = dev_array::<T>(u, &[c, r], dev);
            let v = dev_array::<T>(vt, &[c, c], dev);
            if tall {
                // a = U·S·Vᵀ directly.
                Ok((ut.t().contiguous()?, sa, v.t().contiguous()?))
            } else {
                // aᵀ = U'·S·V'ᵀ, so a = V'·S·U'ᵀ.
                Ok((v, sa, ut))
            }
        },
    )
}

/// The eigenvalues (ascending, real: `f32` or `f64` for a complex matrix too) and orthonormal
/// eigenvectors (the columns of `V`) of a symmetric (complex: Hermitian) matrix; only its lower
/// triangle is read (NumPy's `eigh`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 1.0, 1.0, 2.0], &[2, 2])?;
/// let (w, _v) = linalg::eigh(&a)?;
/// let w = w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn eigh<T: Scalar>(a: &Array<T>) -> Result<(Array<RealOf<T>>, Array<T>)> {
    if a.ndim() > 2 {
        let [w, v] = per_matrix("eigh", a, |_, m| eigh(m).map(|(w, v)| [widen::<T>(&w), v]))?;
        return Ok((narrow(&w), v));
    }
    let n = square("eigh", a)?;
    crate::backend::eager(
        a.device(),
        || {
            #[cfg(not(feature = "faer"))]
            return no_faer("eigh");
            #[cfg(feature = "faer")]
            {
                let (w, v) = cpu::eigh(&host(a)?, n)?;
                Ok((cpu_array(&w, &[n])?, cpu_array(&v, &[n, n])?))
            }
        },
        |ord| {
            let dev = a.device();
            let (sv, _) = solver(ord)?;
            let f = fresh(a)?;
            let w = scratch(ord, <RealOf<T> as crate::dtype::Element>::DTYPE, n)?;
            if n > 0 {
                let (mut fs, mut ws) = (span::<T>(&f)?, span::<RealOf<T>>(&w)?);
                // The row-major lower triangle is the column-major upper one of aᵀ (= conj(a)).
                sv.syevd(true, Fill::Upper, n, &mut fs, n, &mut ws)
                    .map_err(|e| solver_err("eigh", e))?;
            }
            // Column-major Z, the eigenvectors of aᵀ = conj(a): the row-major elements of Zᵀ. Those of
            // a are conj(Z) (the eigenvalues are real), Z itself for a real a.
            let zt = dev_array::<T>(f, &[n, n], dev);
            let v = T::conj_array(&zt.t()).contiguous()?;
            Ok((dev_array::<RealOf<T>>(w, &[n], dev), v))
        },
    )
}
