//! Incomplete factorisations without fill-in as preconditioners of the Krylov solvers:
//! [`Ilu0`] (`A ≈ L·U`) and [`Ic0`] (`A ≈ L·Lᵀ`), computed on the pattern of `A`.
//!
//! On the CUDA backend the factorisation is cuSPARSE's `csrilu02`/`csric02`, which take
//! 32-bit indices (the factor has them; a matrix too large for them is an `Err`), and each
//! application two triangular solves analysed once (SpSV), enqueued without a host
//! synchronisation. On the CPU backend the same factorisation (the same row-by-row
//! elimination, in `f64`) and the same substitutions run on the host. Either way a pivot
//! that is zero (or, for IC(0), not positive), a diagonal element not stored included, is
//! an `Err` naming its row.

use super::host::Host;
use super::precond::Preconditioner;
use super::triangular::{TriangularOpts, checked_diagonal, host_solve};
use super::{IndexType, SparseArray, SparseFormat, SparseValue};
use crate::array::Array;
use crate::device::Backend;
use crate::dtype::Float;
use crate::error::{Error, Result};
use cuprite_driver::sparse::Incomplete;

/// How a factor is applied: on the host, or through analysed solves on a GPU.
#[derive(Debug)]
enum Apply<T: SparseValue> {
    Host { h: Host<T>, diag: Vec<f64> },
    Cuda(Box<[super::cuda::TriangularPlan<T>; 2]>),
}

/// A factor and the two triangular solves that apply its inverse.
#[derive(Debug)]
struct Factored<T: SparseValue> {
    factor: SparseArray<T>,
    steps: [TriangularOpts; 2],
    apply: Apply<T>,
}

impl<T: SparseValue + Float> Factored<T> {
    fn new(a: &SparseArray<T>, kind: Incomplete) -> Result<Self> {
        let what = match kind {
            Incomplete::Lu => "ilu0",
            Incomplete::Cholesky => "ic0",
        };
        let [rows, cols] = a.shape();
        if rows != cols {
            return Err(Error::Shape(format!(
                "{what}: the matrix must be square, not {:?}",
                a.shape()
            )));
        }
        let mut csr = a.to_format(SparseFormat::Csr)?;
        // An empty matrix takes the host path on every backend (nothing for cuSPARSE to do).
        let cuda = a.device().backend == Backend::Cuda && rows > 0;
        if cuda && csr.index_type() == IndexType::I64 {
            // cuSPARSE's legacy factorisations take 32-bit indices (an `Err` when the sizes
            // do not fit them).
            csr = csr.with_index_type(IndexType::I32)?;
        }
        // A diagonal element not stored is found here on both backends, with one message.
        let h = csr.host()?;
        if let Some(row) =
            (0..rows).find(|&i| !(h.major[i]..h.major[i + 1]).any(|p| h.minor[p] == i))
        {
            return Err(pivot_error(what, row, None));
        }
        let factored = if cuda {
            match super::cuda::incomplete(&csr, kind)? {
                Ok(f) => f,
                // The host elimination of the same matrix names the pivot the way the CPU
                // backend does (cuSPARSE reports a negative IC(0) pivot as a zero one).
                Err(row) => {
                    return Err(factor_host(&h, kind, what)
                        .err()
                        .unwrap_or_else(|| pivot_error(what, row, None)));
                }
            }
        } else {
            csr.like(factor_host(&h, kind, what)?)?
        };
        // The pivots checked on the host on both backends: cuSPARSE does not report a
        // negative IC(0) pivot (its square root is NaN), nor a factor that overflowed.
        let fh = factored.host()?;
        check_pivots(&fh, kind, what)?;
        let (factor, steps) = match kind {
            Incomplete::Lu => (
                factored,
                [
                    TriangularOpts::new().lower(true).unit_diagonal(true),
                    TriangularOpts::new().lower(false),
                ],
            ),
            Incomplete::Cholesky => (
                factored.tril(0)?,
                [
                    TriangularOpts::new().lower(true),
                    TriangularOpts::new().lower(true).transpose(true),
                ],
            ),
        };
        let apply = if cuda {
            let plan = |o: TriangularOpts| {
                let op = if o.is_transpose() {
                    super::Transpose::Trans
                } else {
                    super::Transpose::None
                };
                let triangle = cuprite_driver::sparse::Triangle {
                    lower: o.is_lower(),
                    unit_diagonal: o.is_unit_diagonal(),
                };
                super::cuda::TriangularPlan::new(&factor, op, triangle)
            };
            Apply::Cuda(Box::new([plan(steps[0])?, plan(steps[1])?]))
        } else {
            let h = factor.host()?;
            let diag = checked_diagonal(&h, false, what)?;
            Apply::Host { h, diag }
        };
        Ok(Factored {
            factor,
            steps,
            apply,
        })
    }

    fn apply(&self, r: &Array<T>) -> Result<Array<T>> {
        let n = self.factor.shape()[0];
        if r.shape() != [n] {
            return Err(Error::Shape(format!(
                "incomplete factorisation: r has shape {:?}, expected [{n}]",
                r.shape()
            )));
        }
        self.factor.same_device("r", r.device())?;
        match &self.apply {
            Apply::Cuda(plans) => plans[1].solve(&plans[0].solve(r)?),
            Apply::Host { h, diag } => {
                let rv: Vec<f64> = r.to_vec()?.iter().map(|v| v.to_c64().re).collect();
                let y = host_solve(h, diag, self.steps[0], &rv, 1);
                let z = host_solve(h, diag, self.steps[1], &y, 1);
                let out: Vec<T> = z.iter().map(|&v| T::from_f64(v)).collect();
                Array::from_slice_on(r.device(), &out, &[n])
            }
        }
    }
}

/// The `Err` of a zero (or, with a value, a bad) pivot in row `row`.
fn pivot_error(what: &str, row: usize, value: Option<f64>) -> Error {
    match value {
        None => Error::Singular(format!(
            "{what}: zero pivot in row {row} (A[{row}, {row}] is zero or not stored, or \
             elimination made it zero)"
        )),
        Some(v) => Error::Singular(format!(
            "{what}: the pivot of row {row} is {v} (not usable: {})",
            if what == "ic0" {
                "IC(0) needs positive pivots; is the matrix symmetric positive definite?"
            } else {
                "zero or not finite"
            }
        )),
    }
}

/// Checks every pivot of a factored CSR matrix: stored, finite, nonzero (ILU(0)) or
/// positive (IC(0)); an `Err` names the first bad row.
fn check_pivots<T: SparseValue>(h: &Host<T>, kind: Incomplete, what: &str) -> Result<()> {
    for i in 0..h.rows {
        let p = (h.major[i]..h.major[i + 1]).find(|&p| h.minor[p] == i);
        let Some(p) = p else {
            return Err(pivot_error(what, i, None));
        };
        let v = h.vals[p].to_c64().re;
        let ok = v.is_finite()
            && match kind {
                Incomplete::Lu => v != 0.0,
                Incomplete::Cholesky => v > 0.0,
            };
        if !ok {
            return Err(pivot_error(what, i, Some(v)));
        }
    }
    Ok(())
}

/// The incomplete factorisation of the square canonical CSR `h` on its own pattern, in
/// `f64` (the elimination of cuSPARSE's `csrilu02` and `csric02`, row by row):
/// - ILU(0): for each row `i` and each stored `k < i` in ascending order,
///   `a[i,k] /= a[k,k]`, then `a[i,j] -= a[i,k]·a[k,j]` for every stored `j > k` of row `k`
///   that row `i` also stores.
/// - IC(0): for each row `i` and each stored `k ≤ i` in ascending order,
///   `s = a[i,k] − Σ l[i,j]·l[k,j]` over the `j < k` stored in both rows; `l[i,k] = s / l[k,k]`
///   for `k < i`, `l[i,i] = √s`. The strict upper triangle is left as it was.
pub(super) fn factor_host<T: SparseValue>(
    h: &Host<T>,
    kind: Incomplete,
    what: &str,
) -> Result<Host<T>> {
    let n = h.rows;
    let mut v: Vec<f64> = h.vals.iter().map(|x| x.to_c64().re).collect();
    let diag_pos: Vec<Option<usize>> = (0..n)
        .map(|i| (h.major[i]..h.major[i + 1]).find(|&p| h.minor[p] == i))
        .collect();
    // pos[j] = the position of (i, j) in the row `i` being factorised, or usize::MAX.
    let mut pos = vec![usize::MAX; h.cols];
    for i in 0..n {
        let row = h.major[i]..h.major[i + 1];
        for p in row.clone() {
            pos[h.minor[p]] = p;
        }
        let Some(dp) = diag_pos[i] else {
            return Err(pivot_error(what, i, None));
        };
        match kind {
            Incomplete::Lu => {
                for p in row.clone() {
                    let k = h.minor[p];
                    if k >= i {
                        break;
                    }
                    // Row k is final: its pivot was checked when it was factorised.
                    let dk = diag_pos[k].map_or(0.0, |q| v[q]);
                    v[p] /= dk;
                    let lik = v[p];
                    for q in h.major[k]..h.major[k + 1] {
                        let j = h.minor[q];
                        if j > k && pos[j] != usize::MAX {
                            v[pos[j]] -= lik * v[q];
                        }
                    }
                }
                if v[dp] == 0.0 || !v[dp].is_finite() {
                    return Err(pivot_error(what, i, Some(v[dp])));
                }
            }
            Incomplete::Cholesky => {
                for p in row.clone() {
                    let k = h.minor[p];
                    if k > i {
                        break;
                    }
                    let mut s = v[p];
                    for q in h.major[k]..h.major[k + 1] {
                        let j = h.minor[q];
                        if j >= k {
                            break;
                        }
                        if pos[j] != usize::MAX {
                            s -= v[pos[j]] * v[q];
                        }
                    }
                    if k < i {
                        v[p] = s / diag_pos[k].map_or(0.0, |q| v[q]);
                    } else if s > 0.0 && s.is_finite() {
                        v[p] = s.sqrt();
                    } else {
                        return Err(pivot_error(what, i, Some(s)));
                    }
                }
            }
        }
        for p in row {
            pos[h.minor[p]] = usize::MAX;
        }
    }
    Ok(Host {
        vals: v.iter().map(|&x| T::from_f64(x)).collect(),
        ..h.clone()
    })
}

/// The ILU(0) preconditioner: `A ≈ L·U` on the pattern of `A`, applied as `U⁻¹·L⁻¹·r` by
/// two triangular solves. For the nonsymmetric solvers ([`gmres`](super::gmres),
/// [`bicgstab`](super::bicgstab)).
///
/// On the CUDA backend the factorisation is cuSPARSE's `csrilu02` (32-bit indices: the
/// factor has them, and a matrix too large for them is an `Err`) and each application two
/// SpSV solves analysed once, enqueued without a host synchronisation. On the CPU backend
/// the same row-by-row elimination runs on the host in `f64`, and so do the substitutions.
#[derive(Debug)]
pub struct Ilu0<T: SparseValue>(Factored<T>);

impl<T: SparseValue + Float> Ilu0<T> {
    /// The ILU(0) factorisation of a square `a`; an `Err` naming the first row with a zero
    /// pivot (a diagonal element not stored included).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{Ilu0, Preconditioner, SparseArray};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     // A tridiagonal matrix: ILU(0) is its exact LU, so M⁻¹·(A·x) = x.
    ///     let a = SparseArray::diags(&[&[-1.0f64; 2], &[4.0; 3], &[-2.0; 2]], &[-1, 0, 1], [3, 3])?;
    ///     let m = Ilu0::new(&a)?;
    ///     let x = Array::from_slice(&[1.0, 2.0, 3.0], &[3])?;
    ///     let back = m.apply(&a.spmv(&x)?)?.to_vec()?;
    ///     assert!(back.iter().zip([1.0, 2.0, 3.0]).all(|(g, w)| (g - w).abs() < 1e-12));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn new(a: &SparseArray<T>) -> Result<Self> {
        Ok(Ilu0(Factored::new(a, Incomplete::Lu)?))
    }

    /// The factors in one CSR matrix on the pattern of `A`: `L` below the diagonal (its unit
    /// diagonal not stored), `U` on and above it.
    pub fn factor(&self) -> &SparseArray<T> {
        &self.0.factor
    }
}

impl<T: SparseValue + Float> Preconditioner<T> for Ilu0<T> {
    fn apply(&self, r: &Array<T>) -> Result<Array<T>> {
        self.0.apply(r)
    }
}

/// The IC(0) preconditioner: `A ≈ L·Lᵀ` on the lower triangle of the pattern of a symmetric
/// positive definite `A`, applied as `L⁻ᵀ·L⁻¹·r` by two triangular solves. For
/// [`cg`](super::cg) and [`minres`](super::minres). The backends work as for [`Ilu0`]
/// (cuSPARSE's `csric02` on CUDA).
#[derive(Debug)]
pub struct Ic0<T: SparseValue>(Factored<T>);

impl<T: SparseValue + Float> Ic0<T> {
    /// The IC(0) factorisation of a square `a` (its lower triangle is read); an `Err` naming
    /// the first row whose pivot is not positive (a diagonal element not stored included).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{Ic0, SolveOpts, SparseArray, cg_with};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-1.0; 3]], &[-1, 0, 1], [4, 4])?;
    ///     // Tridiagonal: IC(0) is the exact Cholesky factor, and cg converges at once.
    ///     let m = Ic0::new(&a)?;
    ///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
    ///     let r = cg_with(&a, &b, SolveOpts::new().preconditioner(&m).rtol(1e-12).check_every(1))?;
    ///     assert!(r.converged && r.iterations == 1);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn new(a: &SparseArray<T>) -> Result<Self> {
        Ok(Ic0(Factored::new(a, Incomplete::Cholesky)?))
    }

    /// The lower triangular factor `L` (CSR, on the lower triangle of the pattern of `A`).
    pub fn factor(&self) -> &SparseArray<T> {
        &self.0.factor
    }
}

impl<T: SparseValue + Float> Preconditioner<T> for Ic0<T> {
    fn apply(&self, r: &Array<T>) -> Result<Array<T>> {
        self.0.apply(r)
    }
}
