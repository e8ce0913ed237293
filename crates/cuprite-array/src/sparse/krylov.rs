//! Krylov solvers: [`cg`], [`bicgstab`], restarted [`gmres`] and [`minres`], written on the
//! array API. Every scalar of a recurrence (step lengths, Hessenberg entries,
//! Givens rotations) is a 0-d array on the solver's device, so on the CUDA backend an
//! iteration launches kernels without waiting for them; the host reads one residual estimate
//! per `check_every` iterations (see [`SolveOpts`]).
//!
//! Divisions of the recurrences are guarded (`0` where the divisor is `0`): an exact solution
//! found early leaves the later iterations updating nothing instead of filling the iterate
//! with NaN.

use super::ops::dot;
use super::precond::{Preconditioner, SolveCallback, SolveOpts, SolveResult};
use super::residual_step::cg_step;
use super::{SparseArray, SparseValue, Transpose};
use crate::array::{Array, eval_many};
use crate::device::with_device;
use crate::dtype::{Float, Transcendental};
use crate::error::{Error, Result};

/// No preconditioning.
struct Identity;

impl<T: SparseValue> Preconditioner<T> for Identity {
    fn apply(&self, r: &Array<T>) -> Result<Array<T>> {
        Ok(r.clone())
    }
}

/// `num / den`, or `0` where `den` is `0`.
pub(super) fn safe_div<T: SparseValue + Float + Transcendental>(
    num: &Array<T>,
    den: &Array<T>,
) -> Result<Array<T>> {
    let q = num.try_div(den)?;
    Array::select(&den.try_not_equal(T::ZERO)?, &q, T::ZERO)
}

/// `‖v‖` as a 0-d array on `v`'s device.
fn norm_dev<T: SparseValue + Float + Transcendental>(v: &Array<T>) -> Result<Array<T>> {
    Ok(dot(v, v)?.sqrt())
}

/// `‖v‖` read back to the host.
fn norm<T: SparseValue + Float + Transcendental>(v: &Array<T>) -> Result<f64> {
    Ok(dot(v, v)?.item()?.magnitude().sqrt())
}

/// What a solver does after [`Run::step`].
enum Step<T: SparseValue> {
    /// Iterate on.
    Go,
    /// Stop: converged, or the estimate is not finite.
    Stop,
    /// The estimate passed but the true residual (here) did not: iterate on from it.
    Refresh(Array<T>),
}

/// The state every solver shares: the problem, the stopping rule and the iteration count.
struct Run<'a, 'o, T: SparseValue> {
    a: &'a SparseArray<T>,
    b: &'a Array<T>,
    /// `max(rtol·‖b‖, atol)`.
    thresh: f64,
    /// `‖b‖`, or 1 for `b = 0`: what residuals are divided by.
    scale: f64,
    maxiter: usize,
    every: usize,
    m: &'o dyn Preconditioner<T>,
    /// No preconditioner was given (`m` is the identity).
    plain: bool,
    callback: Option<SolveCallback<'o>>,
    iterations: usize,
}

impl<'a, 'o, T: SparseValue + Float + Transcendental> Run<'a, 'o, T> {
    /// Checks the arguments; returns the run and the starting iterate.
    fn new(
        name: &'static str,
        a: &'a SparseArray<T>,
        b: &'a Array<T>,
        opts: SolveOpts<'o, T>,
    ) -> Result<(Self, Array<T>)> {
        let [n, cols] = a.shape();
        if n != cols {
            return Err(Error::Shape(format!(
                "{name}: the matrix must be square, not {:?}",
                a.shape()
            )));
        }
        if b.shape() != [n] {
            return Err(Error::Shape(format!(
                "{name}: b has shape {:?}, expected [{n}]",
                b.shape()
            )));
        }
        let bad_tol = |t: f64| t.is_nan() || t < 0.0;
        if opts.check_every == 0 || opts.restart == 0 || bad_tol(opts.rtol) || bad_tol(opts.atol) {
            return Err(Error::InvalidArgument(format!(
                "{name}: check_every = {}, restart = {}, rtol = {}, atol = {} (need \
                 check_every ≥ 1, restart ≥ 1, rtol ≥ 0 and atol ≥ 0)",
                opts.check_every, opts.restart, opts.rtol, opts.atol
            )));
        }
        let device = a.device();
        for (what, d) in [("b", Some(b.device())), ("x0", opts.x0.map(|x| x.device()))] {
            if let Some(d) = d
                && d != device
            {
                return Err(Error::DeviceMismatch(format!(
                    "{name}: {what} is on {d}, the matrix on {device}"
                )));
            }
        }
        let x = match opts.x0 {
            Some(x0) if x0.shape() == [n] => x0.clone(),
            Some(x0) => {
                return Err(Error::Shape(format!(
                    "{name}: x0 has shape {:?}, expected [{n}]",
                    x0.shape()
                )));
            }
            None => with_device(device, || Array::zeros(&[n])),
        };
        let b_norm = norm(b)?;
        let scale = if b_norm > 0.0 { b_norm } else { 1.0 };
        let maxiter = opts.maxiter.unwrap_or_else(|| n.saturating_mul(10));
        let run = Run {
            a,
            b,
            thresh: (opts.rtol * b_norm).max(opts.atol),
            scale,
            maxiter,
            every: opts.check_every,
            m: opts.preconditioner.unwrap_or(&Identity),
            plain: opts.preconditioner.is_none(),
            callback: opts.callback,
            iterations: 0,
        };
        Ok((run, x))
    }

    fn n(&self) -> usize {
        self.b.len()
    }

    /// `b − A·x`.
    fn residual(&self, x: &Array<T>) -> Result<Array<T>> {
        self.a.spmv_with(
            Transpose::None,
            T::from_f64(-1.0),
            x,
            T::one(),
            Some(self.b),
        )
    }

    /// Whether a convergence check is due after this iteration.
    fn due(&self) -> bool {
        self.iterations % self.every == 0 || self.iterations >= self.maxiter
    }

    /// Reports the estimate `est` (of `‖b − A·x‖`) to the callback; whether it passes.
    fn report(&mut self, est: f64) -> bool {
        if let Some(f) = self.callback.as_mut() {
            f(self.iterations, est / self.scale);
        }
        est <= self.thresh
    }

    /// The true residual of `x` and whether it passes.
    fn confirm(&self, x: &Array<T>) -> Result<(Array<T>, bool)> {
        let r = self.residual(x)?;
        r.eval()?;
        let passes = norm(&r)? <= self.thresh;
        Ok((r, passes))
    }

    /// The end of an iteration: counts it and, when a check is due, reads the estimate
    /// `est()` (of `‖b − A·x‖`), reports it, and confirms a passing one with the true
    /// residual of `x`.
    fn step(&mut self, x: &Array<T>, est: impl FnOnce() -> Result<f64>) -> Result<Step<T>> {
        self.iterations += 1;
        if !self.due() {
            return Ok(Step::Go);
        }
        let est = est()?;
        if !est.is_finite() {
            return Ok(Step::Stop);
        }
        if !self.report(est) {
            return Ok(Step::Go);
        }
        let (true_r, passes) = self.confirm(x)?;
        Ok(if passes {
            Step::Stop
        } else {
            Step::Refresh(true_r)
        })
    }

    /// The result for the iterate `x`, with its true residual.
    fn finish(self, x: Array<T>) -> Result<SolveResult<T>> {
        let abs = if self.n() == 0 {
            0.0
        } else {
            norm(&self.residual(&x)?)?
        };
        Ok(SolveResult {
            x,
            iterations: self.iterations,
            residual: abs / self.scale,
            converged: abs <= self.thresh,
        })
    }

    /// A 0-d array of `v` on the matrix's device.
    fn scalar(&self, v: f64) -> Array<T> {
        with_device(self.a.device(), || Array::scalar(T::from_f64(v)))
    }

    fn zeros(&self) -> Array<T> {
        with_device(self.a.device(), || Array::zeros(&[self.n()]))
    }
}

/// [`cg_with`] with SciPy's defaults ([`SolveOpts::new`]).
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{SparseArray, cg};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-1.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
///     // Checked every 10 iterations by default: the first check finds it converged.
///     let r = cg(&a, &b)?;
///     assert!(r.converged && r.residual <= 1e-5);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cg<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
) -> Result<SolveResult<T>> {
    cg_with(a, b, SolveOpts::new())
}

/// Solves `A·x = b` for a real symmetric positive definite `A` by the (preconditioned)
/// conjugate gradient method, as SciPy's `cg`. Not converging within `maxiter` is not an
/// error: see [`SolveResult::converged`]. Where the estimate passes but the true residual
/// does not, the true residual replaces the recurrence's and the iteration goes on.
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{Jacobi, SolveOpts, SparseArray, cg_with};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-1.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
///     let m = Jacobi::new(&a)?;
///     let r = cg_with(&a, &b, SolveOpts::new().rtol(1e-12).preconditioner(&m).check_every(1))?;
///     assert!(r.converged && r.iterations <= 4);
///     let ax = a.spmv(&r.x)?.to_vec()?;
///     assert!(ax.iter().zip([1.0, 2.0, 3.0, 4.0]).all(|(g, w)| (g - w).abs() < 1e-10));
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cg_with<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
    opts: SolveOpts<'_, T>,
) -> Result<SolveResult<T>> {
    let (mut run, mut x) = Run::new("cg", a, b, opts)?;
    let mut r = run.residual(&x)?;
    r.eval()?;
    if run.n() == 0 || norm(&r)? <= run.thresh {
        return run.finish(x);
    }
    let mut z = run.m.apply(&r)?;
    let mut p = z.clone();
    let mut rz = dot(&r, &z)?;
    while run.iterations < run.maxiter {
        // A·p and p·A·p in one pass where the matrix allows it.
        let (ap, pap) = a.spmv_dot(&p)?;
        // Without a preconditioner z is r: the steps of r, x and p and r·r in one call.
        let step = if run.plain {
            cg_step(&r, &ap, &rz, &pap, &x, &p)?
        } else {
            None
        };
        if let Some(step) = step {
            // Realises the call: the four arrays are views of its one output.
            step.r.eval()?;
            x = step.x;
            r = step.r;
            let rr = step.rr;
            match run.step(&x, || Ok(rr.item()?.magnitude().sqrt()))? {
                Step::Go => {
                    p = step.p;
                    rz = rr;
                }
                Step::Stop => break,
                Step::Refresh(true_r) => {
                    // The next direction from the true residual instead.
                    r = true_r;
                    let rz_new = dot(&r, &r)?;
                    p = r.try_add(&p.try_mul(&safe_div(&rz_new, &rz)?)?)?;
                    rz = rz_new;
                    eval_many(&[&p, &rz])?;
                }
            }
            continue;
        }
        let alpha = safe_div(&rz, &pap)?;
        // The step of x along p stays lazy until the update of p below, which reads p too: one
        // kernel then writes both (or a convergence check realises x first).
        x = x.try_add(&p.try_mul(&alpha)?)?;
        r = r.try_sub(&ap.try_mul(&alpha)?)?;
        r.eval()?;
        match run.step(&x, || norm(&r))? {
            Step::Go => {}
            Step::Stop => break,
            Step::Refresh(true_r) => r = true_r,
        }
        z = run.m.apply(&r)?;
        let rz_new = dot(&r, &z)?;
        p = z.try_add(&p.try_mul(&safe_div(&rz_new, &rz)?)?)?;
        rz = rz_new;
        eval_many(&[&p, &x, &rz])?;
    }
    run.finish(x)
}

/// [`bicgstab_with`] with SciPy's defaults ([`SolveOpts::new`]).
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{SparseArray, bicgstab};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     // A nonsymmetric, diagonally dominant matrix.
///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-2.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
///     let r = bicgstab(&a, &b)?;
///     assert!(r.converged && r.residual <= 1e-5);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bicgstab<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
) -> Result<SolveResult<T>> {
    bicgstab_with(a, b, SolveOpts::new())
}

/// Solves `A·x = b` for a square real `A` by the biconjugate gradient stabilised method
/// (van der Vorst's BiCGSTAB, preconditioned on the right as SciPy's `bicgstab`). Not
/// converging within `maxiter` is not an error: see [`SolveResult::converged`]. Where the
/// estimate passes but the true residual does not, the true residual replaces the
/// recurrence's and the iteration goes on.
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{Jacobi, SolveOpts, SparseArray, bicgstab_with};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-2.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
///     let m = Jacobi::new(&a)?;
///     let mut checks = 0;
///     let mut count = |_it: usize, _res: f64| checks += 1;
///     let opts = SolveOpts::new().rtol(1e-12).preconditioner(&m).check_every(1).callback(&mut count);
///     let r = bicgstab_with(&a, &b, opts)?;
///     assert!(r.converged && r.residual <= 1e-12);
///     assert_eq!(checks, r.iterations);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bicgstab_with<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
    opts: SolveOpts<'_, T>,
) -> Result<SolveResult<T>> {
    let (mut run, mut x) = Run::new("bicgstab", a, b, opts)?;
    let mut r = run.residual(&x)?;
    r.eval()?;
    if run.n() == 0 || norm(&r)? <= run.thresh {
        return run.finish(x);
    }
    let rhat = r.clone();
    let (mut rho_prev, mut alpha, mut omega) = (run.scalar(1.0), run.scalar(1.0), run.scalar(1.0));
    let (mut p, mut v) = (run.zeros(), run.zeros());
    while run.iterations < run.maxiter {
        let rho = dot(&rhat, &r)?;
        let beta = safe_div(&rho, &rho_prev)?.try_mul(&safe_div(&alpha, &omega)?)?;
        // On the first pass p = v = 0, so p = r.
        p = r.try_add(&beta.try_mul(&p.try_sub(&v.try_mul(&omega)?)?)?)?;
        let phat = run.m.apply(&p)?;
        v = a.spmv(&phat)?;
        alpha = safe_div(&rho, &dot(&rhat, &v)?)?;
        let s = r.try_sub(&v.try_mul(&alpha)?)?;
        let shat = run.m.apply(&s)?;
        let t = a.spmv(&shat)?;
        omega = safe_div(&dot(&t, &s)?, &dot(&t, &t)?)?;
        x = x.try_add(&phat.try_mul(&alpha)?.try_add(&shat.try_mul(&omega)?)?)?;
        r = s.try_sub(&t.try_mul(&omega)?)?;
        rho_prev = rho;
        eval_many(&[&x, &r, &p, &v])?;
        eval_many(&[&alpha, &omega, &rho_prev])?;
        match run.step(&x, || norm(&r))? {
            Step::Go => {}
            Step::Stop => break,
            Step::Refresh(true_r) => r = true_r,
        }
    }
    run.finish(x)
}

/// [`gmres_with`] with SciPy's defaults ([`SolveOpts::new`]: restarted every 20 iterations).
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{SparseArray, gmres};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 3], &[4.0; 4], &[-2.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4])?;
///     let r = gmres(&a, &b)?;
///     assert!(r.converged && r.iterations <= 4);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gmres<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
) -> Result<SolveResult<T>> {
    gmres_with(a, b, SolveOpts::new())
}

/// Solves `A·x = b` for a square real `A` by GMRES restarted every
/// [`restart`](SolveOpts::restart) iterations (Arnoldi with modified Gram–Schmidt, Givens
/// rotations, preconditioned on the right so that the estimate is of the true residual).
/// `maxiter` counts inner iterations over all restarts. A cycle ends at a passing estimate;
/// then the true residual decides, and a failing one restarts from the current iterate.
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{SolveOpts, SparseArray, gmres_with};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 9], &[4.0; 10], &[-2.0; 9]], &[-1, 0, 1], [10, 10])?;
///     let b = Array::from_slice(&[1.0; 10], &[10])?;
///     let r = gmres_with(&a, &b, SolveOpts::new().restart(3).rtol(1e-10).check_every(1))?;
///     assert!(r.converged && r.residual <= 1e-10);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn gmres_with<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
    opts: SolveOpts<'_, T>,
) -> Result<SolveResult<T>> {
    let m = opts.restart;
    let (mut run, mut x) = Run::new("gmres", a, b, opts)?;
    let r = run.residual(&x)?;
    r.eval()?;
    if run.n() == 0 || norm(&r)? <= run.thresh {
        return run.finish(x);
    }
    let m = m.min(run.n());
    while run.iterations < run.maxiter {
        let r = run.residual(&x)?;
        let (update, end) = gmres_cycle(&mut run, &r, m)?;
        x = x.try_add(&update)?;
        x.eval()?;
        match end {
            CycleEnd::Passed if run.confirm(&x)?.1 => break,
            CycleEnd::NotFinite => break,
            _ => {}
        }
    }
    run.finish(x)
}

/// How a GMRES cycle ended.
enum CycleEnd {
    /// The estimate passed at a check.
    Passed,
    /// The estimate was NaN or infinite at a check.
    NotFinite,
    /// The cycle ran its iterations (or the run its limit).
    Ran,
}

/// One GMRES cycle from the residual `r`: at most `m` Arnoldi steps; returns the update of
/// the iterate, `M⁻¹·V·y`.
fn gmres_cycle<T: SparseValue + Float + Transcendental>(
    run: &mut Run<'_, '_, T>,
    r: &Array<T>,
    m: usize,
) -> Result<(Array<T>, CycleEnd)> {
    let beta = norm_dev(r)?;
    let mut basis = vec![r.try_mul(&safe_div(&run.scalar(1.0), &beta)?)?];
    basis[0].eval()?;
    // cols[l][i] is H[i, l] (rows 0..=l+1), after the rotations.
    let mut cols: Vec<Vec<Array<T>>> = Vec::with_capacity(m);
    let (mut cs, mut sn): (Vec<Array<T>>, Vec<Array<T>>) = (vec![], vec![]);
    let mut g = vec![beta];
    let mut end = CycleEnd::Ran;
    for j in 0..m {
        let mut w = run.a.spmv(&run.m.apply(&basis[j])?)?;
        let mut col = Vec::with_capacity(j + 2);
        for v in &basis {
            let h = dot(&w, v)?;
            w = w.try_sub(&v.try_mul(&h)?)?;
            eval_many(&[&w, &h])?;
            col.push(h);
        }
        let hn = norm_dev(&w)?;
        basis.push(w.try_mul(&safe_div(&run.scalar(1.0), &hn)?)?);
        for i in 0..j {
            let (a1, a2) = (col[i].clone(), col[i + 1].clone());
            col[i] = cs[i].try_mul(&a1)?.try_add(&sn[i].try_mul(&a2)?)?;
            col[i + 1] = cs[i].try_mul(&a2)?.try_sub(&sn[i].try_mul(&a1)?)?;
        }
        let denom = col[j].try_hypot(&hn)?;
        let nonzero = denom.try_not_equal(T::ZERO)?;
        let c = Array::select(&nonzero, col[j].try_div(&denom)?, T::one())?;
        let s = safe_div(&hn, &denom)?;
        col[j] = denom;
        let gj = g[j].clone();
        g.push(s.try_mul(&gj)?.try_mul(T::from_f64(-1.0))?);
        g[j] = c.try_mul(&gj)?;
        let mut fresh: Vec<&Array<T>> = col.iter().collect();
        fresh.extend([&c, &s, &g[j], &g[j + 1]]);
        eval_many(&fresh)?;
        basis[j + 1].eval()?;
        cs.push(c);
        sn.push(s);
        cols.push(col);
        run.iterations += 1;
        // A check at every cycle's end too: a restart from an exact solution would only
        // repeat work.
        if run.due() || j + 1 == m {
            let est = g[j + 1].item()?.magnitude();
            if !est.is_finite() {
                end = CycleEnd::NotFinite;
                break;
            }
            if run.report(est) {
                end = CycleEnd::Passed;
                break;
            }
        }
        if run.iterations >= run.maxiter {
            break;
        }
    }
    // Back substitution: H[0..k, 0..k] · y = g[0..k].
    let k = cols.len();
    let mut y: Vec<Array<T>> = vec![run.scalar(0.0); k];
    for i in (0..k).rev() {
        let mut acc = g[i].clone();
        for l in i + 1..k {
            acc = acc.try_sub(&cols[l][i].try_mul(&y[l])?)?;
        }
        y[i] = safe_div(&acc, &cols[i][i])?;
        y[i].eval()?;
    }
    let mut vy = run.zeros();
    for (v, yi) in basis.iter().zip(&y) {
        vy = vy.try_add(&v.try_mul(yi)?)?;
        vy.eval()?;
    }
    Ok((run.m.apply(&vy)?, end))
}

/// [`minres_with`] with SciPy's defaults ([`SolveOpts::new`]).
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{SparseArray, minres};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     // Symmetric and indefinite (diagonal elements of both signs), which cg cannot take.
///     let a = SparseArray::diags(&[&[1.0f64; 3], &[2.0, -1.0, 3.0, -2.0], &[1.0; 3]], &[-1, 0, 1], [4, 4])?;
///     let b = Array::from_slice(&[1.0, 0.0, 2.0, 1.0], &[4])?;
///     let r = minres(&a, &b)?;
///     assert!(r.converged && r.residual <= 1e-5);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minres<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
) -> Result<SolveResult<T>> {
    minres_with(a, b, SolveOpts::new())
}

/// The scalars of the MINRES recurrence (Paige and Saunders), as 0-d arrays.
struct MinresScalars<T: SparseValue> {
    beta: Array<T>,
    oldb: Array<T>,
    dbar: Array<T>,
    epsln: Array<T>,
    phibar: Array<T>,
    cs: Array<T>,
    sn: Array<T>,
}

/// Solves `A·x = b` for a real symmetric (possibly indefinite) `A` by MINRES (Paige and
/// Saunders, as SciPy's `minres`; the preconditioner must be symmetric positive definite).
/// The estimate checked is the recurrence's residual norm rescaled to the 2-norm of the
/// starting residual; the true residual decides. A preconditioner that is not positive
/// definite makes the estimate NaN, which stops the run unconverged. The symmetry of `A` is
/// not checked.
///
/// ```
/// use cuprite_array::{Array, Device, with_device};
/// use cuprite_array::sparse::{Jacobi, SolveOpts, SparseArray, minres_with};
/// with_device(Device::CPU, || -> cuprite_array::Result<()> {
///     let a = SparseArray::diags(&[&[-1.0f64; 4], &[4.0, 5.0, 6.0, 7.0, 8.0], &[-1.0; 4]], &[-1, 0, 1], [5, 5])?;
///     let b = Array::from_slice(&[1.0; 5], &[5])?;
///     let m = Jacobi::new(&a)?;
///     let r = minres_with(&a, &b, SolveOpts::new().rtol(1e-12).preconditioner(&m))?;
///     assert!(r.converged && r.residual <= 1e-12);
///     Ok(())
/// })?;
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn minres_with<T: SparseValue + Float + Transcendental>(
    a: &SparseArray<T>,
    b: &Array<T>,
    opts: SolveOpts<'_, T>,
) -> Result<SolveResult<T>> {
    let (mut run, mut x) = Run::new("minres", a, b, opts)?;
    let mut r1 = run.residual(&x)?;
    r1.eval()?;
    let r0 = norm(&r1)?;
    if run.n() == 0 || r0 <= run.thresh {
        return run.finish(x);
    }
    let mut y = run.m.apply(&r1)?;
    let beta1 = dot(&r1, &y)?.sqrt();
    let beta1_host = beta1.item()?.magnitude();
    // The estimate φ̄ is in the preconditioner's norm: rescaled so that it starts at ‖r₀‖.
    let to_2norm: f64 = if beta1_host > 0.0 {
        r0 / beta1_host
    } else {
        1.0
    };
    let mut k = MinresScalars {
        beta: beta1.clone(),
        oldb: run.scalar(0.0),
        dbar: run.scalar(0.0),
        epsln: run.scalar(0.0),
        phibar: beta1,
        cs: run.scalar(-1.0),
        sn: run.scalar(0.0),
    };
    let (mut w, mut w2) = (run.zeros(), run.zeros());
    let mut r2 = r1.clone();
    let tiny = T::from_f64(1e-30);
    while run.iterations < run.maxiter {
        let v = y.try_mul(&safe_div(&run.scalar(1.0), &k.beta)?)?;
        y = a.spmv(&v)?;
        if run.iterations > 0 {
            y = y.try_sub(&r1.try_mul(&safe_div(&k.beta, &k.oldb)?)?)?;
        }
        let alfa = dot(&v, &y)?;
        y = y.try_sub(&r2.try_mul(&safe_div(&alfa, &k.beta)?)?)?;
        r1 = r2;
        r2 = y;
        y = run.m.apply(&r2)?;
        k.oldb = k.beta.clone();
        k.beta = dot(&r2, &y)?.sqrt();
        let oldeps = k.epsln.clone();
        let delta = k.cs.try_mul(&k.dbar)?.try_add(&k.sn.try_mul(&alfa)?)?;
        let gbar = k.sn.try_mul(&k.dbar)?.try_sub(&k.cs.try_mul(&alfa)?)?;
        k.epsln = k.sn.try_mul(&k.beta)?;
        k.dbar = k.cs.try_mul(&k.beta)?.try_mul(T::from_f64(-1.0))?;
        let gamma = gbar.try_hypot(&k.beta)?.try_maximum(tiny)?;
        k.cs = gbar.try_div(&gamma)?;
        k.sn = k.beta.try_div(&gamma)?;
        let phi = k.cs.try_mul(&k.phibar)?;
        k.phibar = k.sn.try_mul(&k.phibar)?;
        let w1 = w2;
        w2 = w;
        w = v
            .try_sub(&w1.try_mul(&oldeps)?)?
            .try_sub(&w2.try_mul(&delta)?)?
            .try_div(&gamma)?;
        x = x.try_add(&w.try_mul(&phi)?)?;
        eval_many(&[&x, &w, &r1, &r2, &y])?;
        eval_many(&[&k.beta, &k.oldb, &k.dbar, &k.epsln, &k.phibar, &k.cs, &k.sn])?;
        // A failing true residual is not fed back: the recurrence's vectors stay as they are.
        match run.step(&x, || Ok(k.phibar.item()?.magnitude() * to_2norm))? {
            Step::Stop => break,
            Step::Go | Step::Refresh(_) => {}
        }
    }
    run.finish(x)
}
