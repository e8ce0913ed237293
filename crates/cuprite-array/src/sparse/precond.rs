//! Preconditioners of the iterative solvers ([`Preconditioner`], [`Jacobi`]) and their
//! options ([`SolveOpts`]) and result ([`SolveResult`]).

use super::{SparseArray, SparseFormat, SparseValue};
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// An approximation `M⁻¹` of a matrix's inverse, applied to a residual by the iterative
/// solvers (SciPy's `M`). It must be linear; `minres` also needs it symmetric positive
/// definite. Implement it to bring another preconditioner.
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{Preconditioner, SolveOpts, SparseArray, gmres_with};
/// /// Halves the residual: a (poor) stand-in for `A⁻¹` of `A = 2·I`.
/// struct Half;
/// impl Preconditioner<f64> for Half {
///     fn apply(&self, r: &Array<f64>) -> cuprite_array::Result<Array<f64>> {
///         r.try_mul(0.5)
///     }
/// }
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::<f64>::eye(3)?.scale(2.0)?;
///     let b = Array::from_slice(&[2.0, 4.0, 6.0], &[3])?;
///     let r = gmres_with(&a, &b, SolveOpts::new().preconditioner(&Half).check_every(1))?;
///     assert!(r.converged && r.iterations == 1);
///     assert_eq!(r.x.to_vec()?, [1.0, 2.0, 3.0]);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub trait Preconditioner<T: SparseValue> {
    /// `M⁻¹ · r` for a vector `r` (lazy array work: it runs on the solver's device without a
    /// host synchronisation).
    fn apply(&self, r: &Array<T>) -> Result<Array<T>>;
}

/// The Jacobi (diagonal) preconditioner: multiplies by the inverse of the matrix's diagonal.
#[derive(Clone, Debug)]
pub struct Jacobi<T: SparseValue> {
    inv_diag: Array<T>,
}

impl<T: SparseValue + Float> Jacobi<T> {
    /// The Jacobi preconditioner of a square `a`; an `Err` naming the first row whose
    /// diagonal element is zero (or not stored).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, with_device};
    /// use cuprite_array::sparse::{Jacobi, Preconditioner, SparseArray};
    /// with_device(Device::CPU, || -> cuprite_array::Result<()> {
    ///     let a = SparseArray::diags(&[&[2.0f64, 4.0]], &[0], [2, 2])?;
    ///     let m = Jacobi::new(&a)?;
    ///     let r = Array::from_slice(&[1.0, 1.0], &[2])?;
    ///     assert_eq!(m.apply(&r)?.to_vec()?, [0.5, 0.25]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn new(a: &SparseArray<T>) -> Result<Self> {
        let [rows, cols] = a.shape();
        if rows != cols {
            return Err(Error::Shape(format!(
                "Jacobi: the matrix must be square, not {:?}",
                a.shape()
            )));
        }
        Ok(Jacobi {
            inv_diag: inverse_diagonal(a, "Jacobi")?,
        })
    }
}

impl<T: SparseValue + Float> Preconditioner<T> for Jacobi<T> {
    fn apply(&self, r: &Array<T>) -> Result<Array<T>> {
        r.try_mul(&self.inv_diag)
    }
}

/// What a solver calls at each convergence check: the iterations run so far and the
/// relative residual estimate it checks.
pub type SolveCallback<'a> = &'a mut dyn FnMut(usize, f64);

/// The options of the iterative solvers ([`cg_with`](super::cg_with),
/// [`bicgstab_with`](super::bicgstab_with), [`gmres_with`](super::gmres_with),
/// [`minres_with`](super::minres_with)), named after
/// SciPy's keyword arguments: `x0`, `rtol`, `atol`, `maxiter`, `M` (here
/// [`preconditioner`](Self::preconditioner)), `callback`, `restart` (GMRES only), and
/// `check_every`, cuprite's own. Unlike most options values it is not `Copy` (it borrows the
/// preconditioner, the start and the callback).
///
/// A solver stops when `‖b − A·x‖ ≤ max(rtol·‖b‖, atol)`, tested every `check_every`
/// iterations: there the host reads the solver's residual estimate (on a GPU the only
/// synchronisation of the loop), calls the callback, and, when the estimate passes,
/// confirms with the true residual.
///
/// ```
/// use cuprite_array::sparse::SolveOpts;
/// let o = SolveOpts::<f64>::new().rtol(1e-8).maxiter(500).check_every(5).restart(30);
/// assert_eq!((o.get_rtol(), o.get_maxiter(), o.get_check_every()), (1e-8, Some(500), 5));
/// ```
#[must_use]
pub struct SolveOpts<'a, T: SparseValue> {
    pub(super) x0: Option<&'a Array<T>>,
    pub(super) rtol: f64,
    pub(super) atol: f64,
    pub(super) maxiter: Option<usize>,
    pub(super) check_every: usize,
    pub(super) restart: usize,
    pub(super) preconditioner: Option<&'a dyn Preconditioner<T>>,
    pub(super) callback: Option<SolveCallback<'a>>,
}

impl<T: SparseValue> std::fmt::Debug for SolveOpts<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolveOpts")
            .field("x0", &self.x0.map(|x| x.shape().to_vec()))
            .field("rtol", &self.rtol)
            .field("atol", &self.atol)
            .field("maxiter", &self.maxiter)
            .field("check_every", &self.check_every)
            .field("restart", &self.restart)
            .field("preconditioner", &self.preconditioner.is_some())
            .field("callback", &self.callback.is_some())
            .finish()
    }
}

impl<T: SparseValue> Default for SolveOpts<'_, T> {
    fn default() -> Self {
        SolveOpts {
            x0: None,
            rtol: 1e-5,
            atol: 0.0,
            maxiter: None,
            check_every: 10,
            restart: 20,
            preconditioner: None,
            callback: None,
        }
    }
}

impl<'a, T: SparseValue> SolveOpts<'a, T> {
    /// SciPy's defaults: start at zeros, `rtol` 1e-5, `atol` 0, at most `10·n` iterations,
    /// no preconditioner, no callback, GMRES restarted every 20 iterations; a check every 10
    /// iterations.
    pub fn new() -> Self {
        Self::default()
    }
    /// The starting guess (zeros when not given).
    pub fn x0(mut self, x0: &'a Array<T>) -> Self {
        self.x0 = Some(x0);
        self
    }
    /// The relative tolerance on `‖b − A·x‖ / ‖b‖`.
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.rtol = rtol;
        self
    }
    /// The absolute tolerance on `‖b − A·x‖`.
    pub fn atol(mut self, atol: f64) -> Self {
        self.atol = atol;
        self
    }
    /// The most iterations to run (for GMRES, inner iterations over all restarts).
    pub fn maxiter(mut self, maxiter: usize) -> Self {
        self.maxiter = Some(maxiter);
        self
    }
    /// Test convergence every this many iterations (at least 1).
    pub fn check_every(mut self, k: usize) -> Self {
        self.check_every = k;
        self
    }
    /// GMRES: the Krylov subspace dimension between restarts (at least 1).
    pub fn restart(mut self, m: usize) -> Self {
        self.restart = m;
        self
    }
    /// The preconditioner (SciPy's `M`), e.g. [`Jacobi`].
    pub fn preconditioner(mut self, m: &'a dyn Preconditioner<T>) -> Self {
        self.preconditioner = Some(m);
        self
    }
    /// Called at each convergence check with the iterations so far and the relative
    /// residual estimate.
    pub fn callback(mut self, f: SolveCallback<'a>) -> Self {
        self.callback = Some(f);
        self
    }
    /// The relative tolerance.
    pub fn get_rtol(&self) -> f64 {
        self.rtol
    }
    /// The iteration limit (`None`: `10·n`).
    pub fn get_maxiter(&self) -> Option<usize> {
        self.maxiter
    }
    /// The iterations between convergence checks.
    pub fn get_check_every(&self) -> usize {
        self.check_every
    }
}

/// What [`cg`](super::cg), [`bicgstab`](super::bicgstab), [`gmres`](super::gmres) and
/// [`minres`](super::minres) return.
#[derive(Clone, Debug)]
pub struct SolveResult<T: SparseValue> {
    /// The last iterate.
    pub x: Array<T>,
    /// The iterations run.
    pub iterations: usize,
    /// The true `‖b − A·x‖ / ‖b‖` of `x` (`‖A·x‖` when `b = 0`), computed at the end.
    pub residual: f64,
    /// Whether `‖b − A·x‖ ≤ max(rtol·‖b‖, atol)`.
    pub converged: bool,
}

/// `1 / A[i, i]` for every row, or an `Err` naming the first row whose diagonal is zero.
fn inverse_diagonal<T: SparseValue + Float>(a: &SparseArray<T>, what: &str) -> Result<Array<T>> {
    let h = a.to_format(SparseFormat::Csr)?.host()?;
    let mut d = vec![T::ZERO; h.rows];
    for i in 0..h.rows {
        for p in h.major[i]..h.major[i + 1] {
            if h.minor[p] == i {
                d[i] = h.vals[p];
            }
        }
        if d[i] == T::ZERO {
            return Err(Error::InvalidArgument(format!(
                "{what}: A[{i}, {i}] is zero"
            )));
        }
    }
    let inv: Vec<T> = d
        .iter()
        .map(|&v| T::from_f64(1.0 / v.to_c64().re))
        .collect();
    Array::from_slice_on(a.device(), &inv, &[h.rows])
}
