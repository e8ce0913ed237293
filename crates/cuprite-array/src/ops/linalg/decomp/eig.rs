//! The eigendecomposition of a general square matrix (NumPy's `linalg.eig`, `linalg.eigvals`):
//! cuSOLVER's `geev` on CUDA, the Hessenberg and shifted QR algorithm of [`hqr`](super::hqr)
//! in `f64` on the CPU.

use super::checks::{solver_err, square};
use super::cuda::{dev_array, owned, scratch, solver, span};
use super::hqr;
use super::real::{Scalar, ScalarOps};
use super::stack::per_matrix_to;
use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::ops::stacking::along;
use num_complex::Complex;

/// The complex type of `T`'s precision: the element type of [`eig`]'s results.
pub type ComplexOf<T> = <T as ScalarOps>::Cplx;

/// What [`eig`] returns: the eigenvalues `w` and the eigenvectors as the columns of `v`.
pub type Eig<T> = (Array<ComplexOf<T>>, Array<ComplexOf<T>>);

/// The eigenvalues `w` and right eigenvectors (the columns of `v`: `a·v[:, j] = w[j]·v[:, j]`)
/// of a general square matrix (NumPy's `linalg.eig`). Both are complex ([`c32`] for `f32`
/// and `c32` input, [`c64`] for `f64` and `c64`; NumPy gives a real array when every
/// imaginary part is zero). Each vector has unit 2-norm. For a real matrix, complex
/// eigenvalues come in adjacent conjugate pairs (positive imaginary part first) with
/// conjugate vectors, and real eigenvalues are exactly real with real vectors, as LAPACK's
/// `geev` (which NumPy calls) gives them; the order is the algorithm's, not sorted.
///
/// Stacks `(..., n, n)` give `(..., n)` and `(..., n, n)`. A matrix that is not square, or
/// holds a NaN or an infinity (LAPACK would not converge), is an `Err` naming it.
///
/// [`c32`]: crate::c32
/// [`c64`]: crate::c64
///
/// ```
/// use cuprite_array::{Array, Device, c64, linalg};
/// // A rotation by 90°: eigenvalues ±i.
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, -1.0, 1.0, 0.0], &[2, 2])?;
/// let (w, v) = linalg::eig(&a)?;
/// let w = w.to_vec()?;
/// assert!((w[0] - c64::new(0.0, 1.0)).norm() < 1e-12 && w[1] == w[0].conj());
/// // a·v = v·diag(w)
/// let av = a.cast::<c64>().matmul(&v)?.to_vec()?;
/// let v = v.to_vec()?;
/// assert!((av[0] - v[0] * w[0]).norm() < 1e-12 && (av[3] - v[3] * w[1]).norm() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn eig<T: Scalar>(a: &Array<T>) -> Result<Eig<T>> {
    if a.ndim() > 2 {
        let [w, v] = per_matrix_to("eig", a, |_, m| {
            let (w, v) = eig(m)?;
            Ok([w, v])
        })?;
        return Ok((w, v));
    }
    let (w, v) = general("eig", a, true)?;
    let v = v.ok_or_else(|| Error::InvalidArgument("eig: no eigenvectors came back".into()))?;
    Ok((w, v))
}

/// The eigenvalues of a general square matrix (NumPy's `linalg.eigvals`): [`eig`]'s `w`
/// without the vectors.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 1.0, 0.0, 3.0], &[2, 2])?;
/// let mut w: Vec<f64> = linalg::eigvals(&a)?.to_vec()?.iter().map(|z| z.re).collect();
/// w.sort_by(f64::total_cmp);
/// assert!((w[0] - 2.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// assert!(linalg::eigvals(&Array::<f64>::zeros(&[2, 3])).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn eigvals<T: Scalar>(a: &Array<T>) -> Result<Array<ComplexOf<T>>> {
    if a.ndim() > 2 {
        let [w] = per_matrix_to("eigvals", a, |_, m| Ok([eigvals(m)?]))?;
        return Ok(w);
    }
    Ok(general("eigvals", a, false)?.0)
}

/// The `Err` of a matrix `a` (`n` columns) holding a NaN or an infinity: it names the first such
/// element (read back from `a`).
fn not_finite<T: Scalar>(call: &str, a: &Array<T>, n: usize) -> Result<Error> {
    let v = a.to_vec()?;
    let i = v
        .iter()
        .position(|x| {
            let z = x.to_c64();
            !z.re.is_finite() || !z.im.is_finite()
        })
        .unwrap_or(0);
    Ok(Error::InvalidArgument(format!(
        "{call}: element [{}, {}] is {} (the matrix must be finite)",
        i / n.max(1),
        i % n.max(1),
        v.get(i).map_or(Complex::new(f64::NAN, 0.0), |x| x.to_c64())
    )))
}

type General<T> = (Array<ComplexOf<T>>, Option<Array<ComplexOf<T>>>);

/// The eigenvalues, and with `vectors` the eigenvectors, of one square matrix.
fn general<T: Scalar>(call: &str, a: &Array<T>, vectors: bool) -> Result<General<T>> {
    let n = square(call, a)?;
    let dev = a.device();
    crate::backend::eager(
        a.device(),
        || {
            let c: Vec<Complex<f64>> = a.to_vec()?.into_iter().map(|x| x.to_c64()).collect();
            let (w, v) = hqr::eig(call, &c, n, vectors, !T::DTYPE.is_complex())?;
            let back = |x: &[Complex<f64>], shape: &[usize]| {
                let y: Vec<ComplexOf<T>> = x.iter().map(|&z| ScalarOps::from_c64(z)).collect();
                Array::from_slice_on(Device::CPU, &y, shape)
            };
            let w = back(&w, &[n])?;
            let v = v.map(|v| back(&v, &[n, n])).transpose()?;
            Ok((w, v))
        },
        |ord| {
            if n == 0 {
                let z = |s: &[usize]| Array::<ComplexOf<T>>::zeros(s).to_device(dev);
                return Ok((z(&[0])?, if vectors { Some(z(&[0, 0])?) } else { None }));
            }
            let (sv, _) = solver(ord)?;
            // Whether every element is finite, decided on the device and read back only after
            // the solve, whose `info` read waits for the stream anyway (no round trip of its
            // own). A matrix holding a NaN or an infinity reaches the solver as zeros, on which
            // it is harmless, and the call is then an `Err` naming the element.
            let finite = T::abs_f64(a).isfinite().all()?;
            finite.eval()?;
            // Column-major a: the row-major elements of aᵀ.
            let f = owned(&Array::select(&finite, a.t(), T::default())?)?;
            let w = scratch(ord, <ComplexOf<T> as Element>::DTYPE, n)?;
            let vr = if vectors {
                Some(scratch(ord, T::DTYPE, n * n)?)
            } else {
                None
            };
            let solved = {
                let (mut fs, mut ws) = (
                    span::<T>(&f)?,
                    span::<<T as cuprite_driver::solver::SolverElement>::Complex>(&w)?,
                );
                let mut vs = vr.as_ref().map(span::<T>).transpose()?;
                let vr_arg = vs
                    .as_mut()
                    .map(|s| (s as &mut dyn cuprite_driver::memory::DeviceWrite<T>, n));
                sv.geev(n, &mut fs, n, &mut ws, vr_arg)
            };
            if !finite.item()? {
                return Err(not_finite(call, a, n)?);
            }
            solved.map_err(|e| solver_err(call, e))?;
            let w = dev_array::<ComplexOf<T>>(w, &[n], dev);
            let Some(vr) = vr else {
                return Ok((w, None));
            };
            // Column-major VR holds the row-major elements of Vᵀ.
            let v = dev_array::<T>(vr, &[n, n], dev).t();
            let v = if T::DTYPE.is_complex() {
                v.cast::<ComplexOf<T>>().contiguous()?
            } else {
                unpack_pairs::<T>(&v, &w, n)?
            };
            Ok((w, Some(v)))
        },
    )
}

/// The complex eigenvectors of a real matrix from LAPACK's packed real form `v` (row-major,
/// vectors as columns): a conjugate pair `w[j]` (imaginary part > 0), `w[j+1]` has the
/// vectors `v[:, j] ± i·v[:, j+1]`; a real eigenvalue's column is its vector. One fused
/// expression over the columns shifted by one either way.
fn unpack_pairs<T: Scalar>(
    v: &Array<T>,
    w: &Array<ComplexOf<T>>,
    n: usize,
) -> Result<Array<ComplexOf<T>>> {
    let im = w.cast::<crate::dtype::c64>().imag().reshape(&[1, n])?;
    let (upper, lower) = (im.greater(0.0), im.less(0.0));
    let vc = v.cast::<ComplexOf<T>>();
    let zero = ComplexOf::<T>::default();
    // Column j of `next` is column j+1 of v, of `prev` column j−1 (zero past the ends).
    let next = vc
        .pad(&[(0, 0), (0, 1)], zero)?
        .slice(&along(2, 1, 1, n + 1))?;
    let prev = vc.pad(&[(0, 0), (1, 0)], zero)?.slice(&along(2, 1, 0, n))?;
    let i: ComplexOf<T> = ScalarOps::from_c64(Complex::new(0.0, 1.0));
    // Upper: v_j + i·v_{j+1}; lower: v_{j−1} − i·v_j; real: v_j.
    let up = vc.try_add(&next.try_mul(i)?)?;
    let low = prev.try_sub(&vc.try_mul(i)?)?;
    let r = Array::select(&upper, &up, &Array::select(&lower, &low, &vc)?)?;
    r.contiguous()
}
