//! A few extreme eigenvalues of a real symmetric sparse matrix: [`eigsh`] (SciPy's
//! `eigsh` with `which='LA'` or `'SA'`), by the Lanczos method with thick restarts, written
//! on the array API so that it runs on every backend.
//!
//! Each step multiplies by `A` and orthogonalises the new vector on the device (two passes
//! of modified Gram–Schmidt; against every basis vector with
//! [`Reorthogonalization::Full`], against the two latest and the Ritz vectors kept at the
//! last restart with [`Reorthogonalization::Selective`]). The coefficients are read back
//! once per cycle of `ncv` steps, where the small projected eigenproblem (tridiagonal, with
//! an arrowhead after a restart) is solved on the host by Jacobi rotations. A cycle that
//! leaves the wanted Ritz pairs unconverged restarts from the most wanted Ritz vectors and
//! the last Lanczos vector (Wu and Simon's thick restart). Once the wanted pairs converge,
//! a cycle from a fresh start vector orthogonal to them looks for eigenvalues the Krylov
//! space missed (a multiple eigenvalue has one direction in it); the run ends when such a
//! cycle changes no wanted value.

use super::{SparseArray, SparseValue};
use crate::array::{Array, eval_many};
use crate::device::with_device;
use crate::dtype::{Float, Transcendental};
use crate::error::{Error, Result};
use crate::ops::linalg::dot;

/// Which end of the spectrum [`eigsh`] looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    /// The largest algebraic eigenvalues (SciPy's `'LA'`).
    Largest,
    /// The smallest algebraic eigenvalues (SciPy's `'SA'`).
    Smallest,
}

/// How [`eigsh`] keeps its Lanczos vectors orthogonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reorthogonalization {
    /// Against every vector of the basis (the most robust; `O(ncv)` dot products a step).
    Full,
    /// Against the two latest vectors and the Ritz vectors kept at the last restart (the
    /// converged ones among them): fewer dot products a step.
    Selective,
}

/// The options of [`eigsh_with`], after SciPy's `eigsh` keywords: `k` (default 6), `which`
/// (here [`Which::Largest`] by default), `ncv` (the basis size, default
/// `min(n, max(2k + 1, 20))`), `maxiter` (restart cycles, default `max(n, 100)`), `tol` (the
/// relative residual `‖A·y − θ·y‖ / max|θ|` each wanted pair must reach; default 1000 unit
/// roundoffs of the value type), `return_eigenvectors` (default `false`), and the
/// [`Reorthogonalization`] (default `Full`).
///
/// ```
/// use cuprite_array::sparse::{EigshOpts, Which};
/// let o = EigshOpts::new(3).which(Which::Smallest).ncv(12).return_eigenvectors(true);
/// assert_eq!((o.get_k(), o.get_which()), (3, Which::Smallest));
/// ```
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EigshOpts {
    k: usize,
    which: Which,
    ncv: Option<usize>,
    maxiter: Option<usize>,
    tol: Option<f64>,
    vectors: bool,
    reorth: Reorthogonalization,
}

impl Default for EigshOpts {
    fn default() -> Self {
        EigshOpts::new(6)
    }
}

impl EigshOpts {
    /// `k` eigenvalues, with the other options at their defaults.
    pub fn new(k: usize) -> Self {
        EigshOpts {
            k,
            which: Which::Largest,
            ncv: None,
            maxiter: None,
            tol: None,
            vectors: false,
            reorth: Reorthogonalization::Full,
        }
    }
    /// Which end of the spectrum.
    pub fn which(mut self, which: Which) -> Self {
        self.which = which;
        self
    }
    /// The Lanczos basis size between restarts (more than `k`, at most `n`).
    pub fn ncv(mut self, ncv: usize) -> Self {
        self.ncv = Some(ncv);
        self
    }
    /// The most restart cycles.
    pub fn maxiter(mut self, maxiter: usize) -> Self {
        self.maxiter = Some(maxiter);
        self
    }
    /// The relative residual each wanted eigenpair must reach.
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = Some(tol);
        self
    }
    /// Return the eigenvectors too.
    pub fn return_eigenvectors(mut self, yes: bool) -> Self {
        self.vectors = yes;
        self
    }
    /// The reorthogonalisation.
    pub fn reorthogonalization(mut self, r: Reorthogonalization) -> Self {
        self.reorth = r;
        self
    }
    /// The number of eigenvalues.
    pub fn get_k(&self) -> usize {
        self.k
    }
    /// Which end of the spectrum.
    pub fn get_which(&self) -> Which {
        self.which
    }
}

/// What [`eigsh`] returns.
#[derive(Clone, Debug)]
pub struct EigshResult<T: SparseValue> {
    /// The `k` eigenvalues, ascending (as SciPy returns them).
    pub values: Vec<f64>,
    /// With [`return_eigenvectors`](EigshOpts::return_eigenvectors): the unit eigenvectors
    /// as the columns of an `[n, k]` array, in the order of `values`.
    pub vectors: Option<Array<T>>,
    /// The matrix–vector products run.
    pub matvecs: usize,
    /// Whether every wanted pair reached the tolerance.
    pub converged: bool,
}

/// [`eigsh_with`] for the `k` largest eigenvalues with the other options at their defaults.
///
/// ```
/// use cuprite_array::{Device, with_device};
/// use cuprite_array::sparse::{SparseArray, eigsh};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     // The 1-D Laplacian of 30 points: eigenvalues 2 − 2·cos(π·i / 31).
///     let n = 30;
///     let a = SparseArray::diags(&[&[-1.0f64; 29], &[2.0; 30], &[-1.0; 29]], &[-1, 0, 1], [n, n])?;
///     let r = eigsh(&a, 2)?;
///     let want = |i: f64| 2.0 - 2.0 * (std::f64::consts::PI * i / 31.0).cos();
///     assert!(r.converged);
///     assert!((r.values[0] - want(29.0)).abs() < 1e-10 && (r.values[1] - want(30.0)).abs() < 1e-10);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn eigsh<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    k: usize,
) -> Result<EigshResult<T>> {
    eigsh_with(a, EigshOpts::new(k))
}

/// The `k` largest or smallest algebraic eigenvalues (and optionally eigenvectors) of a
/// real symmetric `A` by thick-restart Lanczos; the symmetry of `A` is not checked. Each
/// step runs on `A`'s device without a host synchronisation; the coefficients are read back
/// once per cycle of `ncv` steps, where the small projected eigenproblem is solved on the
/// host. Once the wanted pairs converge, a cycle from a fresh start vector orthogonal to
/// them looks for eigenvalues the Krylov space missed (a multiple eigenvalue has a single
/// direction in it); the run ends when such a cycle changes no wanted value. Not converging within `maxiter` cycles is not an error: see
/// [`EigshResult::converged`]. Bad options (`k` not in `1..=n`, `ncv` not in `k+1..=n`
/// unless `k = n = ncv`, a negative tolerance) are an `Err` naming them.
///
/// ```
/// use cuprite_array::{Device, with_device};
/// use cuprite_array::sparse::{EigshOpts, Reorthogonalization, SparseArray, Which, eigsh_with};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[1.0f64, 5.0, -2.0, 3.0, 0.5]], &[0], [5, 5])?;
///     let opts = EigshOpts::new(2)
///         .which(Which::Smallest)
///         .return_eigenvectors(true)
///         .reorthogonalization(Reorthogonalization::Selective);
///     let r = eigsh_with(&a, opts)?;
///     assert!(r.values.iter().zip([-2.0, 0.5]).all(|(g, w)| (g - w).abs() < 1e-12));
///     let v = r.vectors.unwrap();
///     assert_eq!(v.shape(), [5, 2]);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn eigsh_with<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    opts: EigshOpts,
) -> Result<EigshResult<T>> {
    let [n, cols] = a.shape();
    if n != cols {
        return Err(Error::Shape(format!(
            "eigsh: the matrix must be square, not {:?}",
            a.shape()
        )));
    }
    let k = opts.k;
    // SciPy's default `min(n, max(2 k + 1, 20))`, saturating: a `k` past `n` is refused below.
    let m = opts
        .ncv
        .unwrap_or_else(|| n.min(k.saturating_mul(2).saturating_add(1).max(20)));
    let ncv_ok = (m > k && m <= n) || (m == n && k == n);
    let tol_ok = opts.tol.is_none_or(|t| t >= 0.0);
    if k == 0 || k > n || !ncv_ok || !tol_ok {
        return Err(Error::InvalidArgument(format!(
            "eigsh: k = {k}, ncv = {m}, tol = {:?} for a {n} × {n} matrix (need 1 ≤ k ≤ n, \
             k < ncv ≤ n or k = ncv = n, tol ≥ 0)",
            opts.tol
        )));
    }
    let unit = if std::mem::size_of::<T>() == 4 {
        f64::powi(2.0, -24)
    } else {
        f64::powi(2.0, -53)
    };
    let lz = Lanczos {
        a,
        m,
        k,
        which: opts.which,
        reorth: opts.reorth,
        tol: opts.tol.unwrap_or(1e3 * unit),
        unit,
        matvecs: 0,
    };
    lz.run(opts.maxiter.unwrap_or(n.max(100)), opts.vectors)
}

/// One run of [`eigsh_with`].
struct Lanczos<'a, T: SparseValue> {
    a: &'a SparseArray<T>,
    m: usize,
    k: usize,
    which: Which,
    reorth: Reorthogonalization,
    tol: f64,
    unit: f64,
    matvecs: usize,
}

/// The Ritz pairs of one cycle: values ascending, and the eigenvector matrix `s`
/// (row-major `size × size`, column `i` for value `i`).
struct Ritz {
    theta: Vec<f64>,
    s: Vec<f64>,
    size: usize,
}

impl<T: SparseValue + Float + Transcendental> Lanczos<'_, T> {
    fn scalar(&self, v: f64) -> Array<T> {
        with_device(self.a.device(), || Array::scalar(T::from_f64(v)))
    }

    /// A unit start vector orthogonal to `basis` (a fixed pseudo-random draw, `seed`).
    fn start(&self, basis: &[Array<T>], seed: u64) -> Result<Array<T>> {
        let n = self.a.shape()[0];
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let v: Vec<T> = (0..n)
            .map(|_| {
                // xorshift64*: a uniform draw in [-1, 1).
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
                T::from_f64(r as f64 / (1u64 << 52) as f64 - 1.0)
            })
            .collect();
        let mut w = Array::from_slice_on(self.a.device(), &v, &[n])?;
        for _ in 0..2 {
            for b in basis {
                w = w.try_sub(&b.try_mul(&dot(&w, b)?)?)?;
            }
        }
        let nrm = dot(&w, &w)?.sqrt();
        let w = w.try_mul(&super::krylov::safe_div(&self.scalar(1.0), &nrm)?)?;
        w.eval()?;
        Ok(w)
    }

    fn run(mut self, maxiter: usize, want_vectors: bool) -> Result<EigshResult<T>> {
        let m = self.m;
        // The projected matrix (row-major, (m + 1) × (m + 1)): entries of the kept block
        // are written at a restart, the rest read back from the device once per cycle.
        let mut t = vec![0.0f64; (m + 1) * (m + 1)];
        let mut basis = vec![self.start(&[], 1)?];
        let (mut kept, mut cycles, mut fresh) = (0usize, 0usize, 1u64);
        let mut previous: Option<Vec<f64>> = None;
        loop {
            // Steps kept..m: column j of the projected matrix, on the device.
            let mut cols: Vec<(usize, usize, Array<T>)> = Vec::new();
            for j in kept..m {
                let mut w = self.a.spmv(&basis[j])?;
                self.matvecs += 1;
                let against: Vec<usize> = match self.reorth {
                    Reorthogonalization::Full => (0..=j).collect(),
                    Reorthogonalization::Selective => {
                        (0..kept).chain(j.saturating_sub(1).max(kept)..=j).collect()
                    }
                };
                let mut coef: Vec<Option<Array<T>>> = vec![None; j + 1];
                for _ in 0..2 {
                    for &i in &against {
                        let h = dot(&w, &basis[i])?;
                        w = w.try_sub(&basis[i].try_mul(&h)?)?;
                        eval_many(&[&w, &h])?;
                        coef[i] = Some(match coef[i].take() {
                            Some(c) => c.try_add(&h)?,
                            None => h,
                        });
                    }
                }
                let beta = dot(&w, &w)?.sqrt();
                let next = w.try_mul(&super::krylov::safe_div(&self.scalar(1.0), &beta)?)?;
                eval_many(&[&next, &beta])?;
                for (i, c) in coef.into_iter().enumerate() {
                    if let Some(c) = c {
                        cols.push((i, j, c));
                    }
                }
                cols.push((j + 1, j, beta));
                basis.push(next);
            }
            // One read of the cycle's coefficients.
            let refs: Vec<&Array<T>> = cols.iter().map(|c| &c.2).collect();
            let vals = if refs.is_empty() {
                vec![]
            } else {
                Array::stack(&refs, 0)?.to_vec()?
            };
            for (c, v) in cols.iter().zip(vals) {
                let v = v.to_c64().re;
                t[c.0 * (m + 1) + c.1] = v;
                t[c.1 * (m + 1) + c.0] = v;
            }
            cycles += 1;
            let scale = t
                .iter()
                .fold(0.0f64, |s, v| s.max(v.abs()))
                .max(f64::MIN_POSITIVE);
            // An invariant subspace: the first negligible β ends the basis there.
            let size = (kept..m)
                .find(|&j| t[(j + 1) * (m + 1) + j].abs() <= (m as f64) * self.unit * scale)
                .map_or(m, |j| j + 1);
            let beta = if size < m {
                0.0
            } else {
                t[m * (m + 1) + m - 1]
            };
            let ritz = sym_eig(&t, m + 1, size);
            let order = self.wanted_order(&ritz.theta);
            let wanted: Vec<usize> = order.iter().copied().take(self.k.min(size)).collect();
            let tscale = ritz.theta.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            let tscale = if tscale > 0.0 { tscale } else { 1.0 };
            let resid = |i: usize| (beta * ritz.s[(size - 1) * size + i]).abs();
            let converged =
                wanted.len() == self.k && wanted.iter().all(|&i| resid(i) <= self.tol * tscale);
            let mut values: Vec<f64> = wanted.iter().map(|&i| ritz.theta[i]).collect();
            values.sort_by(f64::total_cmp);
            // A converged set unchanged by a cycle from a fresh start ends the run.
            let settled = converged
                && previous.as_ref().is_some_and(|p| {
                    p.iter()
                        .zip(&values)
                        .all(|(x, y)| (x - y).abs() <= self.tol * tscale)
                });
            // Converged on the whole space: nothing is left to find.
            let whole = converged && size == a_n(self.a);
            if settled || whole || cycles >= maxiter {
                let vectors = if want_vectors {
                    let mut ys: Vec<(f64, Array<T>)> = Vec::new();
                    for &i in &wanted {
                        ys.push((ritz.theta[i], self.combine(&basis, &ritz, i)?));
                    }
                    ys.sort_by(|x, y| x.0.total_cmp(&y.0));
                    let refs: Vec<&Array<T>> = ys.iter().map(|y| &y.1).collect();
                    Some(if refs.is_empty() {
                        with_device(self.a.device(), || Array::zeros(&[a_n(self.a), 0]))
                    } else {
                        Array::stack(&refs, 1)?
                    })
                } else {
                    None
                };
                return Ok(EigshResult {
                    values,
                    vectors,
                    matvecs: self.matvecs,
                    converged,
                });
            }
            // Thick restart: the `l` most wanted Ritz vectors, then the last Lanczos vector
            // (or, once converged, a fresh vector orthogonal to them).
            let restart_fresh = converged || size < m;
            let l = (self.k + (m - self.k) / 2).min(m - 1).min(size);
            // Before a fresh vector only converged pairs are kept: the Lanczos relation
            // `A·V = V·T + β·v·eᵀ` loses the last vector `v`, so every kept `y` must satisfy
            // `A·y = θ·y` to the tolerance.
            let keep: Vec<usize> = order
                .iter()
                .copied()
                .take(l)
                .filter(|&i| !restart_fresh || resid(i) <= self.tol * tscale)
                .collect();
            let l = keep.len();
            let mut next_basis = Vec::with_capacity(m + 1);
            for &i in &keep {
                next_basis.push(self.combine(&basis, &ritz, i)?);
            }
            t.iter_mut().for_each(|v| *v = 0.0);
            for (p, &i) in keep.iter().enumerate() {
                t[p * (m + 1) + p] = ritz.theta[i];
            }
            if restart_fresh {
                previous = Some(values);
                fresh += 1;
                let v = self.start(&next_basis, fresh)?;
                next_basis.push(v);
            } else {
                for (p, &i) in keep.iter().enumerate() {
                    let c = beta * ritz.s[(size - 1) * size + i];
                    t[p * (m + 1) + l] = c;
                    t[l * (m + 1) + p] = c;
                }
                next_basis.push(basis[m].clone());
            }
            basis = next_basis;
            kept = l;
        }
    }

    /// The Ritz indices from the most wanted to the least.
    fn wanted_order(&self, theta: &[f64]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..theta.len()).collect();
        if self.which == Which::Largest {
            idx.reverse();
        }
        idx
    }

    /// The Ritz vector `Σ_j s[j, i]·v_j`.
    fn combine(&self, basis: &[Array<T>], ritz: &Ritz, i: usize) -> Result<Array<T>> {
        let mut y = with_device(self.a.device(), || Array::zeros(&[a_n(self.a)]));
        for (j, v) in basis.iter().take(ritz.size).enumerate() {
            y = y.try_add(&v.try_mul(T::from_f64(ritz.s[j * ritz.size + i]))?)?;
            y.eval()?;
        }
        Ok(y)
    }
}

fn a_n<T: SparseValue>(a: &SparseArray<T>) -> usize {
    a.shape()[0]
}

/// The eigenvalues (ascending) and eigenvectors of the leading `size × size` block of the
/// symmetric row-major `ld × ld` matrix `t`, by cyclic Jacobi rotations until the
/// off-diagonal part is below the roundoff of the diagonal.
fn sym_eig(t: &[f64], ld: usize, size: usize) -> Ritz {
    let n = size;
    let mut a: Vec<f64> = (0..n * n).map(|p| t[(p / n) * ld + p % n]).collect();
    let mut v = vec![0.0f64; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    for _sweep in 0..100 {
        let off: f64 = (0..n * n)
            .filter(|p| p / n != p % n)
            .map(|p| a[p] * a[p])
            .sum();
        let diag: f64 = (0..n).map(|i| a[i * n + i] * a[i * n + i]).sum();
        if off <= f64::EPSILON * f64::EPSILON * diag.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let tt = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let tt = if theta == 0.0 { 1.0 } else { tt };
                let c = 1.0 / (tt * tt + 1.0).sqrt();
                let s = tt * c;
                for r in 0..n {
                    let (arp, arq) = (a[r * n + p], a[r * n + q]);
                    a[r * n + p] = c * arp - s * arq;
                    a[r * n + q] = s * arp + c * arq;
                }
                for r in 0..n {
                    let (apr, aqr) = (a[p * n + r], a[q * n + r]);
                    a[p * n + r] = c * apr - s * aqr;
                    a[q * n + r] = s * apr + c * aqr;
                }
                for r in 0..n {
                    let (vrp, vrq) = (v[r * n + p], v[r * n + q]);
                    v[r * n + p] = c * vrp - s * vrq;
                    v[r * n + q] = s * vrp + c * vrq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| a[x * n + x].total_cmp(&a[y * n + y]));
    let theta = order.iter().map(|&i| a[i * n + i]).collect();
    let mut s = vec![0.0f64; n * n];
    for (c, &i) in order.iter().enumerate() {
        for r in 0..n {
            s[r * n + c] = v[r * n + i];
        }
    }
    Ritz { theta, s, size: n }
}
