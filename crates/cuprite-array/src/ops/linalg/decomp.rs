//! Decompositions and solvers of square and rectangular matrices (`f32`, `f64`): cuSOLVER on
//! CUDA, faer on the CPU.
//!
//! These evaluate at once (each factorisation checks the matrix — a zero pivot, a minor that
//! is not positive definite — before it returns, which needs the value), and return ordinary
//! arrays on the input's device. A singular matrix is [`Error::Singular`], one that is not
//! positive definite [`Error::NotPositiveDefinite`]: never NaNs in silence. NaN and infinite
//! inputs propagate as IEEE arithmetic makes them.
//!
//! Row-major arrays are column-major transposes for cuSOLVER: each routine picks the operand
//! orientation that needs the fewest copies, and always works on a copy of its input.

use super::gemm::Span;
use crate::array::Array;
use crate::device::{Backend as Kind, Device};
use crate::dtype::{DType, Element, Float};
use crate::error::{Error, Result};
use crate::runtime::{state, stream_of};
use crate::shape::Layout;
use crate::storage::{DevBuf, Storage};
use cuprite::DeviceBuffer;
use cuprite::blas::Fill;
use cuprite::solver::{Solver, SvdVectors};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types of the decompositions: `f32` and `f64`.
#[cfg(feature = "faer")]
pub trait Real:
    Float
    + bytemuck::Pod
    + cuprite::solver::SolverElement<Real = Self>
    + faer::traits::RealField
    + sealed::Sealed
{
    /// Machine epsilon.
    const EPS: f64;
}
/// The element types of the decompositions: `f32` and `f64`.
#[cfg(not(feature = "faer"))]
pub trait Real:
    Float + bytemuck::Pod + cuprite::solver::SolverElement<Real = Self> + sealed::Sealed
{
    /// Machine epsilon.
    const EPS: f64;
}
impl Real for f32 {
    const EPS: f64 = f32::EPSILON as f64;
}
impl Real for f64 {
    const EPS: f64 = f64::EPSILON;
}

/// `(rows, cols)` of a 2-D array, or an `Err` naming the call.
fn dims<T: Element>(call: &str, a: &Array<T>) -> Result<(usize, usize)> {
    match a.shape() {
        &[m, n] => Ok((m, n)),
        s => Err(Error::Shape(format!(
            "{call} takes a 2-D matrix, was given shape {s:?} (stacks of matrices are not \
             supported yet)"
        ))),
    }
}

fn square<T: Element>(call: &str, a: &Array<T>) -> Result<usize> {
    let (m, n) = dims(call, a)?;
    if m != n {
        return Err(Error::Shape(format!(
            "{call} takes a square matrix, was given shape [{m}, {n}]"
        )));
    }
    Ok(n)
}

/// Maps cuSOLVER's conditions to this crate's.
fn solver_err(call: &str, e: cuprite::Error) -> Error {
    match e {
        cuprite::Error::SingularMatrix { index, .. } => Error::Singular(format!(
            "{call}: U[{0}, {0}] of the LU factorisation is exactly zero",
            index - 1
        )),
        cuprite::Error::NotPositiveDefinite { order, .. } => Error::NotPositiveDefinite(format!(
            "{call}: the leading minor of order {order} is not positive definite"
        )),
        e => Error::Cuda(e),
    }
}

// ---------------------------------------------------------------------------------------------
// Host side.

/// The row-major elements of a matrix on the CPU.
#[cfg(feature = "faer")]
fn host<T: Real>(a: &Array<T>) -> Result<Vec<T>> {
    let s = a.contiguous_storage()?;
    match &*s {
        Storage::Host(h) => Ok(bytemuck::cast_slice::<u8, T>(h.bytes()).to_vec()),
        Storage::Cuda(_) => Err(Error::DeviceMismatch(
            "a host matrix was expected on the CPU backend".into(),
        )),
    }
}

#[cfg(feature = "faer")]
fn cpu_array<T: Real>(v: &[T], shape: &[usize]) -> Result<Array<T>> {
    Array::from_slice_on(Device::CPU, v, shape)
}

#[cfg(feature = "faer")]
mod cpu {
    use super::*;
    use faer::linalg::solvers::{DenseSolveCore, Solve};
    use faer::{Mat, MatRef, Side};

    pub(super) fn view<T: Real>(v: &[T], m: usize, n: usize) -> MatRef<'_, T> {
        MatRef::from_row_major_slice(v, m, n)
    }

    pub(super) fn rows<T: Real>(m: MatRef<'_, T>) -> Vec<T> {
        let mut v = Vec::with_capacity(m.nrows() * m.ncols());
        for i in 0..m.nrows() {
            for j in 0..m.ncols() {
                v.push(m[(i, j)]);
            }
        }
        v
    }

    /// The LU factorisation, or `Err` at the first exactly zero pivot.
    pub(super) fn lu<T: Real>(
        call: &str,
        v: &[T],
        n: usize,
    ) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
        let lu = view(v, n, n).partial_piv_lu();
        let u = lu.U();
        let diag: Vec<f64> = (0..n).map(|i| to_f64(u[(i, i)])).collect();
        check_pivots::<T>(call, &diag)?;
        Ok(lu)
    }

    pub(super) fn solve<T: Real>(a: &[T], n: usize, b: &[T], k: usize) -> Result<Vec<T>> {
        let lu = lu("solve", a, n)?;
        let x: Mat<T> = lu.solve(view(b, n, k));
        Ok(rows(x.as_ref()))
    }

    pub(super) fn inv<T: Real>(a: &[T], n: usize) -> Result<Vec<T>> {
        let lu = lu("inv", a, n)?;
        Ok(rows(lu.inverse().as_ref()))
    }

    /// `(sign, log|det|)`; `(0, -inf)` for a singular matrix.
    pub(super) fn slogdet<T: Real>(a: &[T], n: usize) -> (f64, f64) {
        let lu = view(a, n, n).partial_piv_lu();
        let u = lu.U();
        let (fwd, _) = lu.P().arrays();
        let mut sign = perm_sign(fwd);
        let mut log = 0.0f64;
        for i in 0..n {
            let d: f64 = to_f64(u[(i, i)]);
            if d == 0.0 {
                return (0.0, f64::NEG_INFINITY);
            }
            if d < 0.0 {
                sign = -sign;
            }
            log += d.abs().ln();
        }
        (sign, log)
    }

    pub(super) fn cholesky<T: Real>(a: &[T], n: usize) -> Result<Vec<T>> {
        let llt = view(a, n, n)
            .llt(Side::Lower)
            .map_err(|e| Error::NotPositiveDefinite(format!("cholesky: {e:?}")))?;
        Ok(rows(llt.L()))
    }

    pub(super) fn qr<T: Real>(a: &[T], m: usize, n: usize) -> (Vec<T>, Vec<T>) {
        let qr = view(a, m, n).qr();
        let q = qr.compute_thin_Q();
        let k = m.min(n);
        let r = qr.R();
        let mut rv = Vec::with_capacity(k * n);
        for i in 0..k {
            for j in 0..n {
                rv.push(if j >= i { r[(i, j)] } else { T::default() });
            }
        }
        (rows(q.as_ref()), rv)
    }

    pub(super) fn svd<T: Real>(a: &[T], m: usize, n: usize) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
        let s = view(a, m, n)
            .thin_svd()
            .map_err(|e| Error::InvalidArgument(format!("svd did not converge: {e:?}")))?;
        let k = m.min(n);
        let sv: Vec<T> = (0..k).map(|i| s.S()[i]).collect();
        Ok((rows(s.U()), sv, rows(s.V().transpose())))
    }

    pub(super) fn eigh<T: Real>(a: &[T], n: usize) -> Result<(Vec<T>, Vec<T>)> {
        let e = view(a, n, n)
            .self_adjoint_eigen(Side::Lower)
            .map_err(|e| Error::InvalidArgument(format!("eigh did not converge: {e:?}")))?;
        // Ascending eigenvalues, their vectors as columns.
        let mut order: Vec<usize> = (0..n).collect();
        let w: Vec<T> = (0..n).map(|i| e.S()[i]).collect();
        order.sort_by(|&i, &j| to_f64(w[i]).total_cmp(&to_f64(w[j])));
        let u = e.U();
        let mut v = Vec::with_capacity(n * n);
        for i in 0..n {
            for &j in &order {
                v.push(u[(i, j)]);
            }
        }
        Ok((order.iter().map(|&i| w[i]).collect(), v))
    }

    fn perm_sign(fwd: &[usize]) -> f64 {
        let mut seen = vec![false; fwd.len()];
        let mut sign = 1.0;
        for s in 0..fwd.len() {
            if seen[s] {
                continue;
            }
            let mut len = 0;
            let mut j = s;
            while !seen[j] {
                seen[j] = true;
                j = fwd[j];
                len += 1;
            }
            if len % 2 == 0 {
                sign = -sign;
            }
        }
        sign
    }
}

/// `Err` when a pivot of an LU factorisation is zero or negligible: `|u_ii| ≤ n·eps·max|u_jj|`
/// (the solution would be dominated by rounding error, or be infinite).
fn check_pivots<T: Real>(call: &str, diag: &[f64]) -> Result<()> {
    let big = diag.iter().fold(0.0f64, |m, d| m.max(d.abs()));
    let tol = diag.len() as f64 * T::EPS * big;
    for (i, d) in diag.iter().enumerate() {
        if d.abs() <= tol {
            return Err(Error::Singular(format!(
                "{call}: pivot U[{i}, {i}] = {d:e} of the LU factorisation is zero or negligible \
                 (|U[i, i]| ≤ n·eps·max|U[j, j]| = {tol:e})"
            )));
        }
    }
    Ok(())
}

fn to_f64<T: Real>(x: T) -> f64 {
    if std::mem::size_of::<T>() == 4 {
        bytemuck::cast::<T, f32>(x) as f64
    } else {
        bytemuck::cast::<T, f64>(x)
    }
}

fn from_f64<T: Real>(x: f64) -> T {
    if std::mem::size_of::<T>() == 4 {
        bytemuck::cast::<f32, T>(x as f32)
    } else {
        bytemuck::cast::<f64, T>(x)
    }
}

#[cfg(not(feature = "faer"))]
fn no_faer<R>(call: &str) -> Result<R> {
    Err(Error::InvalidArgument(format!(
        "{call} on the CPU needs cuprite-array's `faer` feature"
    )))
}

// ---------------------------------------------------------------------------------------------
// Device side.

type Solvers = Mutex<HashMap<usize, Arc<Solver>>>;

/// The cuSOLVER handle of the array stream of device `ordinal`.
fn solver(ordinal: usize) -> Result<(Arc<Solver>, &'static crate::runtime::DeviceState)> {
    static SOLVERS: OnceLock<Solvers> = OnceLock::new();
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let key = Arc::as_ptr(stream) as usize;
    let mut g = SOLVERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(h) = g.get(&key) {
        return Ok((h.clone(), st));
    }
    let h = Arc::new(Solver::new(stream)?);
    g.insert(key, h.clone());
    Ok((h, st))
}

/// A fresh device buffer holding the row-major elements of `a` (a copy: cuSOLVER overwrites it).
fn fresh<T: Real>(a: &Array<T>) -> Result<DevBuf> {
    let s = a.contiguous_storage()?;
    let Storage::Cuda(src) = &*s else {
        return Err(Error::DeviceMismatch(
            "a device matrix was expected on the CUDA backend".into(),
        ));
    };
    let st = state(src.ordinal())?;
    let stream = stream_of(st);
    let stream = stream.get();
    // SAFETY: written in full by the copy below before anything reads it.
    let d = unsafe { DevBuf::alloc(st, stream, T::DTYPE, src.len()) }?;
    if src.len() > 0 {
        let (Some(from), Some(to)) = (src.live(), d.live()) else {
            return Err(Error::InvalidArgument(
                "a matrix buffer was handed back".into(),
            ));
        };
        // Exactly the matrix's bytes (a buffer may be larger than its array).
        let bytes = src.len() * T::DTYPE.size();
        stream.memcpy_dtod(
            &Span::<u8>::new(from, 0, bytes)?,
            &mut Span::<u8>::new(to, 0, bytes)?,
        )?;
    }
    Ok(d)
}

/// A new uninitialised device buffer of `len` elements of `dtype` on the array stream.
fn scratch(ordinal: usize, dtype: DType, len: usize) -> Result<DevBuf> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    // SAFETY: each caller has cuSOLVER write every element before anything reads it.
    unsafe { DevBuf::alloc(st, stream.get(), dtype, len) }
}

fn buf(d: &DevBuf) -> Result<&DeviceBuffer<u8>> {
    d.live()
        .ok_or_else(|| Error::InvalidArgument("a matrix buffer was handed back".into()))
}

/// A span of all of `d` as `T`.
fn span<T>(d: &DevBuf) -> Result<Span<'_, T>> {
    Span::new(buf(d)?, 0, d.len())
}

fn dev_array<T: Real>(d: DevBuf, shape: &[usize], device: Device) -> Array<T> {
    Array::from_storage(
        Arc::new(Storage::Cuda(d)),
        Layout::contiguous(shape),
        shape,
        device,
    )
}

/// Ones on and above the diagonal of a `rows × cols` matrix (`upper`), or on and below.
fn tri_mask(rows: usize, cols: usize, upper: bool, device: Device) -> Result<Array<bool>> {
    let mut v = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            v.push(if upper { j >= i } else { j <= i });
        }
    }
    Array::from_slice_on(device, &v, &[rows, cols])
}

fn on_cuda<T: Element>(a: &Array<T>) -> bool {
    a.device().backend == Kind::Cuda
}

// ---------------------------------------------------------------------------------------------
// The public functions.

/// Solves `a · x = b` for `x` (`a` square `n × n`; `b` `n` or `n × k`), by LU with partial
/// pivoting (cuSOLVER `getrf`/`getrs`, faer on the CPU). A singular `a` (an exactly zero
/// pivot) is [`Error::Singular`].
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 1.0, 1.0, 3.0], &[2, 2])?;
/// let b = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 5.0], &[2])?;
/// let x = linalg::solve(&a, &b)?.to_vec()?;
/// assert!((x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12);
/// let singular = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 4.0], &[2, 2])?;
/// assert!(linalg::solve(&singular, &b).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn solve<T: Real>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let n = square("solve", a)?;
    crate::array::check_devices(&[&a.node, &b.node])?;
    let (vector, k) = match b.shape() {
        &[r] if r == n => (true, 1),
        &[r, k] if r == n => (false, k),
        s => {
            return Err(Error::Shape(format!(
                "solve: a of shape [{n}, {n}] and b of shape {s:?}: b needs {n} rows (the \
                 contracted axis 1 of a against axis 0 of b)"
            )));
        }
    };
    if !on_cuda(a) {
        #[cfg(feature = "faer")]
        {
            let x = cpu::solve(&host(a)?, n, &host(b)?, k)?;
            let out_shape: Vec<usize> = if vector { vec![n] } else { vec![n, k] };
            return cpu_array(&x, &out_shape);
        }
        #[cfg(not(feature = "faer"))]
        return no_faer("solve");
    }
    let ord = a.device().ordinal;
    let (sv, _) = solver(ord)?;
    // Row-major a is column-major aᵀ: factor aᵀ, then solve (aᵀ)ᵀ·x = b.
    let f = fresh(a)?;
    // b as a column-major n × k matrix: the row-major elements of bᵀ.
    let bt = if vector { b.reshape(&[1, n])? } else { b.t() };
    let x = fresh(&bt.contiguous()?)?;
    let piv = scratch(ord, DType::I64, n)?;
    let f = Arc::new(Storage::Cuda(f));
    let Storage::Cuda(fb) = &*f else {
        unreachable!("made as a device buffer above")
    };
    let (mut fs, mut ps, mut xs) = (span::<T>(fb)?, span::<i64>(&piv)?, span::<T>(&x)?);
    sv.getrf(n, n, &mut fs, n.max(1), &mut ps)
        .map_err(|e| solver_err("solve", e))?;
    // The pivots, read back (n values, the diagonal of the factor) for the negligible test.
    let diag = Array::<T>::from_storage(
        f.clone(),
        Layout {
            offset: 0,
            strides: vec![n as isize + 1],
        },
        &[n],
        a.device(),
    )
    .to_vec()?;
    let diag: Vec<f64> = diag.into_iter().map(to_f64).collect();
    check_pivots::<T>("solve", &diag)?;
    sv.getrs(
        cuprite::blas::Transpose::Trans,
        n,
        k,
        &fs,
        n.max(1),
        &ps,
        &mut xs,
        n.max(1),
    )
    .map_err(|e| solver_err("solve", e))?;
    let _ = (fs, ps, xs);
    // x holds column-major n × k: the row-major k × n transpose.
    let xt = dev_array::<T>(x, &[k, n], a.device());
    if vector { xt.reshape(&[n]) } else { Ok(xt.t()) }
}

/// The inverse of a square matrix (LU; [`Error::Singular`] for an exactly zero pivot).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[4.0, 0.0, 0.0, 2.0], &[2, 2])?;
/// assert_eq!(linalg::inv(&a)?.to_vec()?, [0.25, 0.0, 0.0, 0.5]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn inv<T: Real>(a: &Array<T>) -> Result<Array<T>> {
    let n = square("inv", a)?;
    if !on_cuda(a) {
        #[cfg(feature = "faer")]
        return cpu_array(&cpu::inv(&host(a)?, n)?, &[n, n]);
        #[cfg(not(feature = "faer"))]
        return no_faer("inv");
    }
    let mut eye = vec![T::default(); n * n];
    for i in 0..n {
        eye[i * n + i] = from_f64(1.0);
    }
    let i = Array::from_slice_on(a.device(), &eye, &[n, n])?;
    solve(a, &i).map_err(|e| match e {
        Error::Singular(m) => Error::Singular(m.replace("solve", "inv")),
        e => e,
    })
}

/// `(sign, log|det a|)` of a square matrix (NumPy's `slogdet`): `(0, -inf)` when singular.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 2.0, 3.0, 0.0], &[2, 2])?;
/// let (s, l) = linalg::slogdet(&a)?;
/// assert_eq!(s, -1.0);
/// assert!((l - 6f64.ln()).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn slogdet<T: Real>(a: &Array<T>) -> Result<(f64, f64)> {
    let n = square("slogdet", a)?;
    if n == 0 {
        return Ok((1.0, 0.0));
    }
    if !on_cuda(a) {
        #[cfg(feature = "faer")]
        return Ok(cpu::slogdet(&host(a)?, n));
        #[cfg(not(feature = "faer"))]
        return no_faer("slogdet");
    }
    let ord = a.device().ordinal;
    let (sv, _) = solver(ord)?;
    let f = fresh(a)?;
    let piv = scratch(ord, DType::I64, n)?;
    let r = {
        let (mut fs, mut ps) = (span::<T>(&f)?, span::<i64>(&piv)?);
        sv.getrf(n, n, &mut fs, n, &mut ps)
    };
    match r {
        Ok(()) => {}
        Err(cuprite::Error::SingularMatrix { .. }) => return Ok((0.0, f64::NEG_INFINITY)),
        Err(e) => return Err(Error::Cuda(e)),
    }
    // det(aᵀ) = det(a): the diagonal of U and the pivots, read back.
    let lu: Vec<T> = dev_array::<T>(f, &[n, n], a.device()).to_vec()?;
    let pv: Vec<i64> = dev_array_i64(piv, n, a.device()).to_vec()?;
    let mut sign = 1.0;
    let mut log = 0.0;
    for i in 0..n {
        let d = to_f64(lu[i * n + i]);
        if d < 0.0 {
            sign = -sign;
        }
        log += d.abs().ln();
        if pv[i] != i as i64 + 1 {
            sign = -sign;
        }
    }
    Ok((sign, log))
}

fn dev_array_i64(d: DevBuf, n: usize, device: Device) -> Array<i64> {
    Array::from_storage(
        Arc::new(Storage::Cuda(d)),
        Layout::contiguous(&[n]),
        &[n],
        device,
    )
}

/// The determinant of a square matrix (from its LU factorisation; 0 when singular).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert!((linalg::det(&a)? + 2.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn det<T: Real>(a: &Array<T>) -> Result<f64> {
    let (s, l) = slogdet(a)?;
    Ok(if s == 0.0 { 0.0 } else { s * l.exp() })
}

/// The lower-triangular Cholesky factor `L` of a symmetric positive definite matrix
/// (`a = L·Lᵀ`; only the lower triangle of `a` is read). A matrix that is not positive
/// definite is [`Error::NotPositiveDefinite`].
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[4.0, 2.0, 2.0, 5.0], &[2, 2])?;
/// assert_eq!(linalg::cholesky(&a)?.to_vec()?, [2.0, 0.0, 1.0, 2.0]);
/// let not_spd = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 1.0], &[2, 2])?;
/// assert!(linalg::cholesky(&not_spd).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cholesky<T: Real>(a: &Array<T>) -> Result<Array<T>> {
    let n = square("cholesky", a)?;
    if !on_cuda(a) {
        #[cfg(feature = "faer")]
        return cpu_array(&cpu::cholesky(&host(a)?, n)?, &[n, n]);
        #[cfg(not(feature = "faer"))]
        return no_faer("cholesky");
    }
    let (sv, _) = solver(a.device().ordinal)?;
    // The row-major lower triangle is the column-major upper one: a = Uᵀ·U there, and the
    // row-major reading of U is L.
    let f = fresh(a)?;
    {
        let mut fs = span::<T>(&f)?;
        sv.potrf(Fill::Upper, n, &mut fs, n.max(1))
            .map_err(|e| solver_err("cholesky", e))?;
    }
    let l = dev_array::<T>(f, &[n, n], a.device());
    let mask = tri_mask(n, n, false, a.device())?;
    Array::select(&mask, &l, T::default())?.contiguous()
}

/// The reduced QR factorisation `a = Q·R` of an `m × n` matrix: `Q` `m × k` with orthonormal
/// columns, `R` `k × n` upper triangular, `k = min(m, n)` (NumPy's `mode="reduced"`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 0.0, 4.0, 5.0], &[2, 2])?;
/// let (q, r) = linalg::qr(&a)?;
/// let back = q.matmul(&r)?.to_vec()?;
/// assert!(back.iter().zip([3.0, 0.0, 4.0, 5.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn qr<T: Real>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let (m, n) = dims("qr", a)?;
    let k = m.min(n);
    if !on_cuda(a) {
        #[cfg(feature = "faer")]
        {
            let (q, r) = cpu::qr(&host(a)?, m, n);
            return Ok((cpu_array(&q, &[m, k])?, cpu_array(&r, &[k, n])?));
        }
        #[cfg(not(feature = "faer"))]
        return no_faer("qr");
    }
    if k == 0 {
        let z = |r: usize, c: usize| Array::<T>::zeros(&[r, c]).to_device(a.device());
        return Ok((z(m, k)?, z(k, n)?));
    }
    let ord = a.device().ordinal;
    let (sv, _) = solver(ord)?;
    // Column-major a: the row-major elements of aᵀ.
    let f = fresh(&a.t().contiguous()?)?;
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
}

/// The reduced singular value decomposition `a = U·diag(S)·Vᵀ` of an `m × n` matrix: `U`
/// `m × k`, `S` the `k = min(m, n)` singular values in descending order, `Vᵀ` `k × n`
/// (NumPy's `svd(full_matrices=False)`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 0.0, 0.0, -2.0], &[2, 2])?;
/// let (_u, s, _vt) = linalg::svd(&a)?;
/// let s = s.to_vec()?;
/// assert!((s[0] - 3.0).abs() < 1e-12 && (s[1] - 2.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn svd<T: Real>(a: &Array<T>) -> Result<(Array<T>, Array<T>, Array<T>)> {
    let (m, n) = dims("svd", a)?;
    let k = m.min(n);
    if !on_cuda(a) {
        #[cfg(feature = "faer")]
        {
            let (u, s, vt) = cpu::svd(&host(a)?, m, n)?;
            return Ok((
                cpu_array(&u, &[m, k])?,
                cpu_array(&s, &[k])?,
                cpu_array(&vt, &[k, n])?,
            ));
        }
        #[cfg(not(feature = "faer"))]
        return no_faer("svd");
    }
    let dev = a.device();
    if k == 0 {
        let z = |s: &[usize]| Array::<T>::zeros(s).to_device(dev);
        return Ok((z(&[m, k])?, z(&[k])?, z(&[k, n])?));
    }
    let ord = dev.ordinal;
    let (sv, _) = solver(ord)?;
    // cuSOLVER's gesvd wants rows ≥ columns: decompose the column-major matrix c (r × c, r ≥ c)
    // that is a (m ≥ n: the elements of aᵀ) or aᵀ (m < n: the elements of a).
    let tall = m >= n;
    let (r, c) = if tall { (m, n) } else { (n, m) };
    let f = if tall {
        fresh(&a.t().contiguous()?)?
    } else {
        fresh(a)?
    };
    let s = scratch(ord, T::DTYPE, c)?;
    let u = scratch(ord, T::DTYPE, r * c)?;
    let vt = scratch(ord, T::DTYPE, c * c)?;
    {
        let (mut fs, mut ss, mut us, mut vs) = (
            span::<T>(&f)?,
            span::<T>(&s)?,
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
    let sa = dev_array::<T>(s, &[k], dev);
    // Column-major U (r × c) holds the row-major elements of Uᵀ; likewise Vᵀ (c × c) of V.
    let ut = dev_array::<T>(u, &[c, r], dev);
    let v = dev_array::<T>(vt, &[c, c], dev);
    if tall {
        // a = U·S·Vᵀ directly.
        Ok((ut.t().contiguous()?, sa, v.t().contiguous()?))
    } else {
        // aᵀ = U'·S·V'ᵀ, so a = V'·S·U'ᵀ.
        Ok((v, sa, ut))
    }
}

/// The eigenvalues (ascending) and orthonormal eigenvectors (the columns of `V`) of a
/// symmetric matrix; only its lower triangle is read (NumPy's `eigh`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[2.0, 1.0, 1.0, 2.0], &[2, 2])?;
/// let (w, _v) = linalg::eigh(&a)?;
/// let w = w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn eigh<T: Real>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let n = square("eigh", a)?;
    if !on_cuda(a) {
        #[cfg(feature = "faer")]
        {
            let (w, v) = cpu::eigh(&host(a)?, n)?;
            return Ok((cpu_array(&w, &[n])?, cpu_array(&v, &[n, n])?));
        }
        #[cfg(not(feature = "faer"))]
        return no_faer("eigh");
    }
    let dev = a.device();
    let (sv, _) = solver(dev.ordinal)?;
    let f = fresh(a)?;
    let w = scratch(dev.ordinal, T::DTYPE, n)?;
    if n > 0 {
        let (mut fs, mut ws) = (span::<T>(&f)?, span::<T>(&w)?);
        // The row-major lower triangle is the column-major upper one.
        sv.syevd(true, Fill::Upper, n, &mut fs, n, &mut ws)
            .map_err(|e| solver_err("eigh", e))?;
    }
    // Column-major V: the row-major elements of Vᵀ.
    let vt = dev_array::<T>(f, &[n, n], dev);
    Ok((dev_array::<T>(w, &[n], dev), vt.t().contiguous()?))
}

/// The cutoff below which singular values count as zero: `max(m, n)·eps·s_max`.
fn cutoff<T: Real>(m: usize, n: usize, smax: f64) -> f64 {
    m.max(n) as f64 * T::EPS * smax
}

/// The Moore–Penrose pseudo-inverse (`n × m` for an `m × n` matrix), from the SVD with
/// singular values below `max(m, n)·eps·s_max` treated as zero.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 0.0, 0.0], &[2, 2])?;
/// assert_eq!(linalg::pinv(&a)?.to_vec()?, [1.0, 0.0, 0.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn pinv<T: Real>(a: &Array<T>) -> Result<Array<T>> {
    let (m, n) = dims("pinv", a)?;
    let (u, s, vt) = svd(a)?;
    let sv = s.to_vec()?;
    let smax = sv.first().map_or(0.0, |x| to_f64(*x));
    let tol = cutoff::<T>(m, n, smax);
    let inv: Vec<T> = sv
        .iter()
        .map(|x| {
            let x = to_f64(*x);
            from_f64(if x > tol { 1.0 / x } else { 0.0 })
        })
        .collect();
    let k = sv.len();
    let d = Array::from_slice_on(a.device(), &inv, &[1, k])?;
    // V·diag(1/s)·Uᵀ = (Vᵀ)ᵀ scaled by column, times Uᵀ.
    let vs = vt.t().try_mul(&d)?;
    vs.matmul(&u.t())
}

/// The least-squares solution `x` minimising `‖a·x − b‖₂` (`b` `m` or `m × k`), with the
/// minimum norm when `a` is rank-deficient (from the pseudo-inverse).
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// // Fit y = c0 + c1·t through (0, 1), (1, 3), (2, 5).
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2])?;
/// let y = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 3.0, 5.0], &[3])?;
/// let c = linalg::lstsq(&a, &y)?.to_vec()?;
/// assert!((c[0] - 1.0).abs() < 1e-10 && (c[1] - 2.0).abs() < 1e-10);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lstsq<T: Real>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let (m, n) = dims("lstsq", a)?;
    if b.shape().first() != Some(&m) || b.ndim() > 2 {
        return Err(Error::Shape(format!(
            "lstsq: a of shape [{m}, {n}] and b of shape {:?}: b needs {m} rows (the contracted \
             axis 1 of pinv(a) against axis 0 of b)",
            b.shape()
        )));
    }
    pinv(a)?.matmul(b)
}

/// The numerical rank: the number of singular values above `max(m, n)·eps·s_max`.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 4.0], &[2, 2])?;
/// assert_eq!(linalg::matrix_rank(&a)?, 1);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn matrix_rank<T: Real>(a: &Array<T>) -> Result<usize> {
    let (m, n) = dims("matrix_rank", a)?;
    let (_, s, _) = svd(a)?;
    let sv: Vec<f64> = s.to_vec()?.into_iter().map(to_f64).collect();
    let smax = sv.first().copied().unwrap_or(0.0);
    let tol = cutoff::<T>(m, n, smax);
    Ok(sv.iter().filter(|&&x| x > tol).count())
}

/// Which norm [`norm`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NormOrd {
    /// The Frobenius norm (the 2-norm of a vector): `sqrt(Σ x²)` over every element.
    #[default]
    Fro,
    /// The largest singular value (matrices).
    Spectral,
    /// The sum of the singular values (matrices).
    Nuclear,
    /// The largest column sum of `|x|` (matrices; the 1-norm of a vector).
    One,
    /// The largest row sum of `|x|` (matrices; the largest `|x|` of a vector).
    Inf,
}

/// A matrix or vector norm (see [`NormOrd`]; NumPy's `norm` with `ord` `None`, `2`, `"nuc"`,
/// `1`, `inf`).
///
/// ```
/// use cuprite_array::{Array, Device, linalg::{self, NormOrd}};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[3.0, 0.0, 0.0, -4.0], &[2, 2])?;
/// assert_eq!(linalg::norm(&a, NormOrd::Fro)?, 5.0);
/// assert_eq!(linalg::norm(&a, NormOrd::Spectral)?, 4.0);
/// assert_eq!(linalg::norm(&a, NormOrd::One)?, 4.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn norm<T: Real>(a: &Array<T>, ord: NormOrd) -> Result<f64> {
    let x = a.cast::<f64>();
    match (ord, a.ndim()) {
        (NormOrd::Fro, _) => Ok((&x * &x).sum()?.item()?.sqrt()),
        (NormOrd::One, 1) => Ok(x.abs().sum()?.item()?),
        (NormOrd::Inf, 1) => Ok(x.abs().max()?.item()?),
        (NormOrd::One, 2) => Ok(x.abs().sum_axes(&[0], false)?.max()?.item()?),
        (NormOrd::Inf, 2) => Ok(x.abs().sum_axes(&[1], false)?.max()?.item()?),
        (NormOrd::Spectral | NormOrd::Nuclear, 2) => {
            let (_, s, _) = svd(a)?;
            let s: Vec<f64> = s.to_vec()?.into_iter().map(to_f64).collect();
            Ok(if ord == NormOrd::Spectral {
                s.first().copied().unwrap_or(0.0)
            } else {
                s.iter().sum()
            })
        }
        (o, d) => Err(Error::Shape(format!(
            "norm {o:?} of a {d}-D array of shape {:?} is not defined",
            a.shape()
        ))),
    }
}
