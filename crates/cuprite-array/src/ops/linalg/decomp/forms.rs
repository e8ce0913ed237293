//! NumPy's fuller signatures of the SVD-based routines: `svd(full_matrices=True)`,
//! `svd(hermitian=True)`, `svdvals`, `pinv(rcond, hermitian)`, `lstsq` with residuals, rank
//! and singular values, `matrix_rank(tol, hermitian, rtol)`, `cond(p)` for every `p`, and the
//! tensor forms `tensorinv` and `tensorsolve`.

use super::checks::dims;
use super::derived::{NormOrd, cutoff, norm};
use super::factor::{Svd, eigh, svd};
use super::lu::{inv, solve};
use super::qr_modes::qr_complete;
use super::real::{RealOf, Scalar, narrow, to_f64, widen};
use super::stack::{matrix_at, per_matrix};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::ops::stacking::along;
use crate::shape::checked_numel;
use num_complex::Complex;

/// `x` as a `T` (imaginary part zero).
fn t_of<T: Scalar>(x: f64) -> T {
    T::from_c64(Complex::new(x, 0.0))
}

/// `[u | rest of q]`: the `m × k` orthonormal columns `u` completed to an `m × m` unitary
/// matrix by the trailing columns of the complete QR factor of `u`.
fn complete_basis<T: Scalar>(u: &Array<T>) -> Result<Array<T>> {
    let (m, k) = dims("svd", u)?;
    if k == m {
        return Ok(u.clone());
    }
    let (q, _) = qr_complete(u)?;
    Array::concat(&[u, &q.slice(&along(2, 1, k, m))?], 1)?.contiguous()
}

/// The full singular value decomposition `a = U·Σ·Vᴴ`: `U` `m × m`, the `min(m, n)`
/// singular values, `Vᴴ` `n × n` (NumPy's `svd(a, full_matrices=True)`, its default). The
/// first `min(m, n)` columns of `U` and rows of `Vᴴ` are [`svd`]'s. Stacks `(..., m, n)` too.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 0.0, 0.0, 0.0, 2.0, 0.0], &[2, 3])?;
/// let (u, s, vt) = linalg::svd_full(&a)?;
/// assert_eq!((u.shape(), s.shape(), vt.shape()), (&[2, 2][..], &[2][..], &[3, 3][..]));
/// let vt = vt.to_vec()?; // orthonormal rows
/// let dot: f64 = (0..3).map(|j| vt[6 + j] * vt[j]).sum();
/// assert!(dot.abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn svd_full<T: Scalar>(a: &Array<T>) -> Result<Svd<T>> {
    if a.ndim() > 2 {
        let [u, s, vt] = per_matrix("svd_full", a, |_, m| {
            svd_full(m).map(|(u, s, vt)| [u, widen::<T>(&s), vt])
        })?;
        return Ok((u, narrow(&s), vt));
    }
    let (u, s, vt) = svd(a)?;
    let u = complete_basis(&u)?;
    // The rows of Vᴴ completed: the columns of V = (Vᴴ)ᴴ, completed, conjugate-transposed.
    let v = complete_basis(&T::conj_array(&vt.t()).contiguous()?)?;
    Ok((u, s, T::conj_array(&v.t()).contiguous()?))
}

/// The singular values alone, descending (NumPy's `svd(a, compute_uv=False)` and
/// `linalg.svdvals`). Stacks `(..., m, n)` give `(..., min(m, n))`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 2.0, 1.0, 0.0], &[2, 2])?;
/// assert_eq!(linalg::svdvals(&a)?.to_vec()?, [2.0, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn svdvals<T: Scalar>(a: &Array<T>) -> Result<Array<RealOf<T>>> {
    Ok(svd(a)?.1)
}

/// The SVD of a Hermitian (real symmetric) matrix from its eigendecomposition (NumPy's
/// `svd(a, hermitian=True)`; only the lower triangle is read): the singular values are the
/// eigenvalues' moduli, descending, `U` the eigenvectors in that order and `Vᴴ` their
/// conjugate transposes with the eigenvalues' signs. Square, so full and reduced agree.
/// Stacks too.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 0.0, -3.0], &[2, 2])?;
/// let (u, s, vt) = linalg::svd_hermitian(&a)?;
/// assert_eq!(s.to_vec()?, [3.0, 1.0]);
/// let back = u.matmul(&Array::from_slice_on(Device::CPU, &[3.0, 0.0, 0.0, 1.0], &[2, 2])?)?.matmul(&vt)?;
/// assert_eq!(back.to_vec()?, [1.0, 0.0, 0.0, -3.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn svd_hermitian<T: Scalar>(a: &Array<T>) -> Result<Svd<T>> {
    if a.ndim() > 2 {
        let [u, s, vt] = per_matrix("svd_hermitian", a, |_, m| {
            svd_hermitian(m).map(|(u, s, vt)| [u, widen::<T>(&s), vt])
        })?;
        return Ok((u, narrow(&s), vt));
    }
    let (w, v) = eigh(a)?;
    let n = v.shape()[0];
    let wv: Vec<f64> = w.to_vec()?.into_iter().map(to_f64).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| wv[j].abs().total_cmp(&wv[i].abs()));
    // P picks the columns in that order; D the signs.
    let mut p = vec![T::default(); n * n];
    let mut d = Vec::with_capacity(n);
    for (dst, &src) in order.iter().enumerate() {
        p[src * n + dst] = t_of::<T>(1.0);
        d.push(t_of::<T>(if wv[src] < 0.0 { -1.0 } else { 1.0 }));
    }
    let dev = a.device();
    let u = v.matmul(&Array::from_slice_on(dev, &p, &[n, n])?)?;
    let sv: Vec<RealOf<T>> = order
        .iter()
        .map(|&i| super::real::from_f64(wv[i].abs()))
        .collect();
    let s = Array::from_slice_on(dev, &sv, &[n])?;
    let signed = u.try_mul(&Array::from_slice_on(dev, &d, &[1, n])?)?;
    let vt = T::conj_array(&signed.t()).contiguous()?;
    Ok((u.contiguous()?, s, vt))
}

/// Options of [`pinv_with`]: NumPy's `rcond` (`rtol` in NumPy 2; default `max(m, n)·eps`) and
/// `hermitian` (default `false`).
///
/// ```
/// use cuprite_array::linalg::PinvOpts;
/// let o = PinvOpts::new().rtol(1e-6).hermitian(true);
/// assert_eq!(o, PinvOpts::new().rcond(1e-6).hermitian(true));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[must_use]
pub struct PinvOpts {
    rcond: Option<f64>,
    hermitian: bool,
}

impl PinvOpts {
    /// NumPy's defaults (`rcond=None`: `max(m, n)·eps`; `hermitian=False`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Singular values at or below `rcond·s_max` count as zero.
    pub fn rcond(self, rcond: f64) -> Self {
        PinvOpts {
            rcond: Some(rcond),
            ..self
        }
    }
    /// NumPy 2's name of [`rcond`](Self::rcond) (the same threshold, relative to `s_max`).
    pub fn rtol(self, rtol: f64) -> Self {
        self.rcond(rtol)
    }
    /// Compute from the eigendecomposition of a Hermitian (real: symmetric) matrix, of which
    /// the lower triangle is read.
    pub fn hermitian(self, hermitian: bool) -> Self {
        PinvOpts { hermitian, ..self }
    }
}

/// The pseudo-inverse with NumPy's full signature (`pinv(a, rcond, hermitian)`, through
/// [`PinvOpts`]): singular values at or below `rcond·s_max` count as zero (by default
/// `max(m, n)·eps`, NumPy's); `hermitian` computes it from the eigendecomposition (lower
/// triangle read). Stacks `(..., m, n)` give `(..., n, m)`.
///
/// # Errors
/// A negative or NaN `rcond`, an array of fewer than 2 dimensions, or a failed
/// decomposition.
///
/// ```
/// use cuprite_array::{Array, Device, linalg::{self, PinvOpts}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 0.0, 0.0, 1e-9], &[2, 2])?;
/// let cut = linalg::pinv_with(&a, PinvOpts::new().rcond(1e-6))?.to_vec()?;
/// assert_eq!(cut, [0.5, 0.0, 0.0, 0.0]);
/// let full = linalg::pinv_with(&a, PinvOpts::new().hermitian(true))?.to_vec()?;
/// assert!((full[3] / 1e9 - 1.0).abs() < 1e-6); // 1/1e-9, to the eigenvalue's accuracy
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn pinv_with<T: Scalar>(a: &Array<T>, opts: PinvOpts) -> Result<Array<T>> {
    let PinvOpts { rcond, hermitian } = opts;
    if rcond.is_some_and(|r| r.is_nan() || r < 0.0) {
        return Err(Error::InvalidArgument(format!(
            "pinv: rcond = {rcond:?} must be a non-negative number"
        )));
    }
    if a.ndim() > 2 {
        let [p] = per_matrix("pinv", a, |_, m| Ok([pinv_with(m, opts)?]))?;
        return Ok(p);
    }
    let (m, n) = dims("pinv", a)?;
    let (u, s, vt) = if hermitian {
        svd_hermitian(a)?
    } else {
        svd(a)?
    };
    let sv: Vec<f64> = s.to_vec()?.into_iter().map(to_f64).collect();
    let smax = sv.first().copied().unwrap_or(0.0);
    let tol = rcond.map_or_else(|| cutoff::<T>(m, n, smax), |r| r * smax);
    let inv: Vec<T> = sv
        .iter()
        .map(|&x| t_of::<T>(if x > tol { 1.0 / x } else { 0.0 }))
        .collect();
    let d = Array::from_slice_on(a.device(), &inv, &[1, sv.len()])?;
    T::conj_array(&vt.t())
        .try_mul(&d)?
        .matmul(&T::conj_array(&u.t()))
}

/// What [`lstsq_full`] returns (NumPy's `lstsq` tuple).
#[derive(Debug, Clone)]
pub struct Lstsq<T: Scalar> {
    /// The least-squares solution of minimum norm (`n` or `n × k`).
    pub x: Array<T>,
    /// The squared 2-norms of the residual columns `b − a·x` (`k`, or `1` for a 1-D `b`)
    /// when `a` has full column rank and `m > n`; empty otherwise (NumPy's rule).
    pub residuals: Array<RealOf<T>>,
    /// The effective rank of `a`.
    pub rank: usize,
    /// The singular values of `a`, descending.
    pub s: Array<RealOf<T>>,
}

/// Least squares with NumPy's full result (`lstsq(a, b, rcond)`): the solution, the residual
/// sums of squares, the rank and the singular values. Singular values at or below
/// `rcond·s_max` count as zero (`None`: `max(m, n)·eps`, NumPy's default). A negative or NaN
/// `rcond`, or `b` without `m` rows, is an `Err`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// // Fit c0 + c1·t through (0, 1), (1, 2), (2, 4).
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2])?;
/// let y = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 4.0], &[3])?;
/// let r = linalg::lstsq_full(&a, &y, None)?;
/// assert_eq!(r.rank, 2);
/// let (x, res) = (r.x.to_vec()?, r.residuals.to_vec()?);
/// assert!((x[0] - 5.0 / 6.0).abs() < 1e-12 && (x[1] - 1.5).abs() < 1e-12);
/// assert!((res[0] - 1.0 / 6.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lstsq_full<T: Scalar>(a: &Array<T>, b: &Array<T>, rcond: Option<f64>) -> Result<Lstsq<T>> {
    if rcond.is_some_and(|r| r.is_nan() || r < 0.0) {
        return Err(Error::InvalidArgument(format!(
            "lstsq: rcond = {rcond:?} must be a non-negative number"
        )));
    }
    let (m, n) = dims("lstsq", a)?;
    if b.shape().first() != Some(&m) || b.ndim() > 2 {
        return Err(Error::Shape(format!(
            "lstsq: a of shape [{m}, {n}] and b of shape {:?}: b needs {m} rows (1-D or 2-D)",
            b.shape()
        )));
    }
    let (u, s, vt) = svd(a)?;
    let sv: Vec<f64> = s.to_vec()?.into_iter().map(to_f64).collect();
    let smax = sv.first().copied().unwrap_or(0.0);
    let tol = rcond.map_or(f64::EPSILON * m.max(n) as f64, |r| r) * smax;
    let rank = sv.iter().filter(|&&x| x > tol).count();
    let inv: Vec<T> = sv
        .iter()
        .map(|&x| t_of::<T>(if x > tol { 1.0 / x } else { 0.0 }))
        .collect();
    let dev = a.device();
    let d = Array::from_slice_on(dev, &inv, &[1, sv.len()])?;
    let x = T::conj_array(&vt.t())
        .try_mul(&d)?
        .matmul(&T::conj_array(&u.t()))?
        .matmul(b)?;
    let residuals = if rank == n && m > n {
        let r = T::abs_f64(&b.try_sub(&a.matmul(&x)?)?);
        let sq = r.try_mul(&r)?;
        let sums = if b.ndim() == 1 {
            sq.sum()?.reshape(&[1])?
        } else {
            sq.sum_axes(&[0])?
        };
        sums.cast::<RealOf<T>>()
    } else {
        Array::<RealOf<T>>::zeros(&[0]).to_device(dev)?
    };
    Ok(Lstsq {
        x,
        residuals,
        rank,
        s,
    })
}

/// The threshold below which singular values count as zero.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum RankTol {
    /// `s_max·max(m, n)·eps` (NumPy's default).
    #[default]
    Default,
    /// An absolute threshold (NumPy's `tol`).
    Abs(f64),
    /// A threshold relative to `s_max` (NumPy's `rtol`).
    Rel(f64),
}

/// Options of [`matrix_rank_with`]: NumPy's `tol` (an absolute threshold), `rtol` (relative to
/// the largest singular value; the default threshold is `s_max·max(m, n)·eps`) and `hermitian`
/// (default `false`). Of `tol` and `rtol` the last one set applies.
///
/// ```
/// use cuprite_array::linalg::RankOpts;
/// assert_eq!(RankOpts::new(), RankOpts::default());
/// assert_ne!(RankOpts::new().tol(1e-6), RankOpts::new().rtol(1e-6));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[must_use]
pub struct RankOpts {
    tol: RankTol,
    hermitian: bool,
}

impl RankOpts {
    /// NumPy's defaults (`tol=None`, `rtol=None`: `s_max·max(m, n)·eps`; `hermitian=False`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Singular values at or below `tol` count as zero (an absolute threshold).
    pub fn tol(self, tol: f64) -> Self {
        RankOpts {
            tol: RankTol::Abs(tol),
            ..self
        }
    }
    /// Singular values at or below `rtol·s_max` count as zero.
    pub fn rtol(self, rtol: f64) -> Self {
        RankOpts {
            tol: RankTol::Rel(rtol),
            ..self
        }
    }
    /// Take the singular values from the eigenvalues of a Hermitian (real: symmetric) matrix,
    /// of which the lower triangle is read.
    pub fn hermitian(self, hermitian: bool) -> Self {
        RankOpts { hermitian, ..self }
    }
}

/// The numerical rank of each matrix (NumPy's `matrix_rank(A, tol, hermitian, rtol)`, through
/// [`RankOpts`]): the number of singular values above the threshold. `hermitian` takes them
/// from the eigenvalues (lower triangle read). A 1-D array has rank 1 unless it is all zeros;
/// stacks `(..., m, n)` give an array of the leading shape (0-d for one matrix).
///
/// # Errors
/// A negative or NaN threshold, or a failed decomposition.
///
/// ```
/// use cuprite_array::{Array, Device, linalg::{self, RankOpts}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 0.0, 1e-8], &[2, 2])?;
/// assert_eq!(linalg::matrix_rank_with(&a, RankOpts::new())?.item()?, 2);
/// assert_eq!(linalg::matrix_rank_with(&a, RankOpts::new().tol(1e-6))?.item()?, 1);
/// let herm = RankOpts::new().rtol(1e-6).hermitian(true);
/// assert_eq!(linalg::matrix_rank_with(&a, herm)?.item()?, 1);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn matrix_rank_with<T: Scalar>(a: &Array<T>, opts: RankOpts) -> Result<Array<i64>> {
    let RankOpts { tol, hermitian } = opts;
    if let RankTol::Abs(t) | RankTol::Rel(t) = tol
        && (t.is_nan() || t < 0.0)
    {
        return Err(Error::InvalidArgument(format!(
            "matrix_rank: threshold {tol:?} must be a non-negative number"
        )));
    }
    let dev = a.device();
    if a.ndim() < 2 {
        let nz = !a.is_empty() && T::abs_f64(a).max()?.item()? != 0.0;
        return Array::from_slice_on(dev, &[i64::from(nz)], &[]);
    }
    let shape = a.shape().to_vec();
    let (batch, mn) = shape.split_at(shape.len() - 2);
    let (m, n) = (mn[0], mn[1]);
    let count = checked_numel(batch)?;
    let flat = a.reshape(&[count, m, n])?;
    let mut ranks = Vec::with_capacity(count);
    for i in 0..count {
        let mat = matrix_at(&flat, i)?;
        let s = if hermitian {
            svd_hermitian(&mat)?.1
        } else {
            svd(&mat)?.1
        };
        let sv: Vec<f64> = s.to_vec()?.into_iter().map(to_f64).collect();
        let smax = sv.first().copied().unwrap_or(0.0);
        let t = match tol {
            RankTol::Default => cutoff::<T>(m, n, smax),
            RankTol::Abs(t) => t,
            RankTol::Rel(r) => r * smax,
        };
        ranks.push(sv.iter().filter(|&&x| x > t).count() as i64);
    }
    Array::from_slice_on(dev, &ranks, batch)
}

/// The condition number in the norm `p` (NumPy's `cond(x, p)` for every `p`: `Spectral`
/// (`None`, `2`) is `σ_max/σ_min`, `NegSpectral` (`-2`) `σ_min/σ_max`; the others
/// `‖x‖_p·‖x⁻¹‖_p` of a square matrix, `inf` for a singular one). Stacks `(..., m, n)` give
/// an array of the leading shape (0-d for one matrix). A non-square matrix with a `p` other
/// than `±2` is an `Err`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg::{self, NormOrd}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 0.0, 4.0], &[2, 2])?;
/// assert_eq!(linalg::cond_p(&a, NormOrd::Spectral)?.item()?, 4.0);
/// assert_eq!(linalg::cond_p(&a, NormOrd::NegSpectral)?.item()?, 0.25);
/// assert_eq!(linalg::cond_p(&a, NormOrd::One)?.item()?, 4.0);
/// let singular = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 4.0], &[2, 2])?;
/// assert_eq!(linalg::cond_p(&singular, NormOrd::Inf)?.item()?, f64::INFINITY);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cond_p<T: Scalar>(a: &Array<T>, p: NormOrd) -> Result<Array<f64>> {
    if a.ndim() < 2 {
        return Err(Error::Shape(format!(
            "cond needs matrices (the last two axes), got shape {:?}",
            a.shape()
        )));
    }
    let shape = a.shape().to_vec();
    let (batch, mn) = shape.split_at(shape.len() - 2);
    let (m, n) = (mn[0], mn[1]);
    let two = matches!(p, NormOrd::Spectral | NormOrd::NegSpectral);
    if !two && m != n {
        return Err(Error::Shape(format!(
            "cond with p = {p:?} needs square matrices, got shape {shape:?} (only ±2 take \
             rectangular ones)"
        )));
    }
    let count = checked_numel(batch)?;
    let flat = a.reshape(&[count, m, n])?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let mat = matrix_at(&flat, i)?;
        let c = if two {
            let sv: Vec<f64> = svd(&mat)?.1.to_vec()?.into_iter().map(to_f64).collect();
            let (hi, lo) = (
                sv.first().copied().unwrap_or(f64::NAN),
                sv.last().copied().unwrap_or(f64::NAN),
            );
            let (num, den) = if p == NormOrd::Spectral {
                (hi, lo)
            } else {
                (lo, hi)
            };
            if den == 0.0 { f64::INFINITY } else { num / den }
        } else {
            match inv(&mat) {
                Ok(im) => norm(&mat, p)? * norm(&im, p)?,
                Err(Error::Singular(_)) => f64::INFINITY,
                Err(e) => return Err(e),
            }
        };
        out.push(c);
    }
    Array::from_slice_on(a.device(), &out, batch)
}

/// The inverse of a tensor for [`tensordot`](crate::linalg::tensordot) over `ind` axes
/// (NumPy's `tensorinv(a, ind)`): `a` of shape `front + back` with `numel(front) =
/// numel(back)` (`front` its first `ind` axes) gives `inv` of shape `back + front` with
/// `tensordot(inv, a, ind)` the identity. `ind = 0`, unequal sizes or a singular reshaped
/// matrix are an `Err`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::eye(6)?.reshape(&[6, 2, 3])?;
/// let ai = linalg::tensorinv(&(a * 4.0), 1)?;
/// assert_eq!(ai.shape(), &[2, 3, 6]);
/// assert_eq!(ai.to_vec()?[0], 0.25);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn tensorinv<T: Scalar>(a: &Array<T>, ind: usize) -> Result<Array<T>> {
    if ind == 0 || ind > a.ndim() {
        return Err(Error::InvalidArgument(format!(
            "tensorinv: ind = {ind} must be in 1..={} for shape {:?}",
            a.ndim(),
            a.shape()
        )));
    }
    let (front, back) = a.shape().split_at(ind);
    let (f, b) = (checked_numel(front)?, checked_numel(back)?);
    if f != b {
        return Err(Error::Shape(format!(
            "tensorinv: shape {:?} splits at {ind} into {front:?} ({f} elements) and {back:?} \
             ({b}), which must be equal",
            a.shape()
        )));
    }
    let out: Vec<usize> = back.iter().chain(front).copied().collect();
    inv(&a.reshape(&[f, b])?)?.reshape(&out)
}

/// Solves `tensordot(a, x, x.ndim) = b` for `x` (NumPy's `tensorsolve(a, b, axes)`): `x` has
/// the shape of `a`'s trailing axes after `b.ndim` leading ones, whose sizes must multiply to
/// `b`'s element count. `axes` first moves those axes of `a` to the end. Mismatched shapes,
/// bad axes or a singular reshaped matrix are an `Err`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = (Array::<f64>::eye(6)? * 2.0).reshape(&[2, 3, 6])?;
/// let b = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 4.0, 6.0, 8.0, 10.0, 12.0], &[2, 3])?;
/// let x = linalg::tensorsolve(&a, &b, None)?;
/// assert_eq!((x.shape(), x.to_vec()?), (&[6][..], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn tensorsolve<T: Scalar>(
    a: &Array<T>,
    b: &Array<T>,
    axes: Option<&[isize]>,
) -> Result<Array<T>> {
    let a = match axes {
        None => a.clone(),
        Some(ax) => {
            let nd = a.ndim();
            let mut moved = Vec::with_capacity(ax.len());
            for &x in ax {
                let k = crate::shape::axis(x, nd)?;
                if moved.contains(&k) {
                    return Err(Error::InvalidArgument(format!(
                        "tensorsolve: axis {x} given twice in {ax:?}"
                    )));
                }
                moved.push(k);
            }
            let mut perm: Vec<usize> = (0..nd).filter(|k| !moved.contains(k)).collect();
            perm.extend(&moved);
            a.permute(&perm)?
        }
    };
    if a.ndim() < b.ndim() || a.shape()[..b.ndim()] != *b.shape() {
        return Err(Error::Shape(format!(
            "tensorsolve: a of shape {:?} must start with b's shape {:?}",
            a.shape(),
            b.shape()
        )));
    }
    let xshape = a.shape()[b.ndim()..].to_vec();
    let (nb, nx) = (b.len(), checked_numel(&xshape)?);
    if nb != nx {
        return Err(Error::Shape(format!(
            "tensorsolve: the unknowns of shape {xshape:?} ({nx}) must be as many as b's {nb} \
             elements (b of shape {:?})",
            b.shape()
        )));
    }
    solve(&a.reshape(&[nb, nx])?, &b.reshape(&[nb])?)?.reshape(&xshape)
}
