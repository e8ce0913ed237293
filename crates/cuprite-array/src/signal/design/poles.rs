//! Pole placement by state feedback (SciPy's `place_poles`) and the checked assembly of
//! state-space matrices (SciPy's `abcd_normalize`), on the host in `f64`.
//!
//! [`place_poles`] finds `K` (`inputs x states`) such that `A - B K` has the requested
//! eigenvalues, choosing among the gains that do (for more than one input there are many)
//! one whose eigenvector matrix `X` is well conditioned, by raising `|det X|` over the unit
//! columns of `X` (Kautsky, Nichols and Van Dooren, "Robust pole assignment in linear state
//! feedback", 1985, method 0; Tits and Yang, "Globally convergent algorithms for robust pole
//! assignment by state feedback", 1996). It follows SciPy's steps, so that the same inputs
//! give SciPy's gain:
//! 1. `B = [U0 U1] [Z; 0]` by Householder QR (LAPACK's `geqrf` reflectors and signs), `U0`
//!    the first `rank(B)` columns;
//! 2. when `rank(B)` equals the states, `X = I` and `K` is the least-squares solution of `B K
//!    = A - D`, `D` the poles' real block diagonal (`[[a, b], [-b, a]]` for `a ± bi`);
//! 3. else, for each pole `p` (a complex pair once), the orthonormal basis `S_p` of the
//!    vectors `x` with `U1ᵀ (A - p̄ I) x = 0` (the last `rank(B)` columns of the full Q of
//!    `(A - p I)ᵀ U1`), and `X`'s first columns the normalised sums of each basis (real and
//!    imaginary parts of the sum for a complex pair);
//! 4. with `rank(B) > 1`, sweeps that replace columns of `X` (one by its projection on
//!    `S_p` of the normal to the others, [`PoleMethod::Knv0`]; pairs by the rank-2 updates of
//!    Tits and Yang, [`PoleMethod::Yt`]) until `|det X|` changes by less than `rtol`
//!    relatively;
//! 5. `M = X diag(poles) X⁻¹` and `K = -Re(Z⁻¹ U0ᵀ (M - A))`.
//!
//! Poles are ordered as SciPy orders them: the real ones ascending, then each complex pole
//! of negative imaginary part (ascending by real, then imaginary part) followed by its
//! conjugate. The small dense factorisations (Householder QR, one-sided Jacobi SVD, LU) are
//! this module's own, in real or complex `f64`; the closed loop's eigenvalues come from
//! [`crate::linalg::eigvals`] on the CPU.

use super::convert::{LTI_MAX_ORDER, check_roots};
use super::matrix::solve;
use super::statespace::StateSpace;
use crate::array::Array;
use crate::device::Device;
use crate::dtype::c64;
use crate::error::{Error, Result};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A matrix given to [`abcd_normalize`]: its entries row-major, then its rows and columns.
pub type MatrixIn<'a> = (&'a [f64], usize, usize);

/// The state-space system of the matrices given (SciPy's `abcd_normalize(A, B, C, D)`): a
/// matrix left out, or given with no entries (a dimension 0), becomes the zero matrix of the
/// shape the others imply. The states are the first non-zero of `A`'s rows, `B`'s rows and
/// `C`'s columns; the inputs of `B`'s and `D`'s columns; the outputs of `C`'s and `D`'s rows
/// (each 0 when none is). Then `A` must be `states x states`, `B` `states x inputs`, `C`
/// `outputs x states` and `D` `outputs x inputs`.
///
/// # Errors
/// `A`, `B` and `C` all left out (no states), `B` and `D` (no inputs), or `C` and `D` (no
/// outputs); a matrix whose entries are not its rows times its columns; a dimension above
/// [`LTI_MAX_ORDER`]; a shape that does not fit the dimensions found; an entry not finite.
/// Each named.
///
/// ```
/// use cuprite_array::signal::abcd_normalize;
/// // SciPy: abcd_normalize(A=[[1, 2], [3, 4]], B=[[-1], [5]], D=2.5) gives C = [[0, 0]].
/// let a = [1.0, 2.0, 3.0, 4.0];
/// let s = abcd_normalize(Some((&a, 2, 2)), Some((&[-1.0, 5.0], 2, 1)), None, Some((&[2.5], 1, 1)))?;
/// assert_eq!((s.states, s.inputs, s.outputs), (2, 1, 1));
/// assert_eq!((s.c, s.d), (vec![0.0, 0.0], vec![2.5]));
/// // D alone cannot say how many states there are.
/// assert!(abcd_normalize(None, None, None, Some((&[1.0], 1, 1))).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn abcd_normalize(
    a: Option<MatrixIn>,
    b: Option<MatrixIn>,
    c: Option<MatrixIn>,
    d: Option<MatrixIn>,
) -> Result<StateSpace> {
    let what = "abcd_normalize";
    let bad = |m: String| Err(Error::InvalidArgument(format!("{what}: {m}")));
    if a.is_none() && b.is_none() && c.is_none() {
        return bad("A, B and C are all left out, so the number of states is unknown".into());
    }
    if b.is_none() && d.is_none() {
        return bad("B and D are both left out, so the number of inputs is unknown".into());
    }
    if c.is_none() && d.is_none() {
        return bad("C and D are both left out, so the number of outputs is unknown".into());
    }
    let named = [("A", a), ("B", b), ("C", c), ("D", d)];
    for (name, m) in named {
        let Some((v, rows, cols)) = m else { continue };
        if rows > LTI_MAX_ORDER || cols > LTI_MAX_ORDER {
            return bad(format!(
                "{name} is {rows} x {cols}, above {LTI_MAX_ORDER} (LTI_MAX_ORDER)"
            ));
        }
        // Both factors are at most LTI_MAX_ORDER: the product does not overflow.
        if v.len() != rows * cols {
            return bad(format!(
                "{name} has {} entries, but {rows} x {cols} = {}",
                v.len(),
                rows * cols
            ));
        }
    }
    let shape = |m: Option<MatrixIn>| m.map_or((0, 0), |(_, r, c)| (r, c));
    let (sa, sb, sc, sd) = (shape(a), shape(b), shape(c), shape(d));
    let first = |dims: &[usize]| dims.iter().copied().find(|&v| v != 0).unwrap_or(0);
    let n = first(&[sa.0, sb.0, sc.1]);
    let p = first(&[sb.1, sd.1]);
    let q = first(&[sc.0, sd.0]);
    let mut mats = Vec::with_capacity(4);
    for ((name, m), want) in named.into_iter().zip([(n, n), (n, p), (q, n), (q, p)]) {
        let got = shape(m);
        let v = match m {
            Some((v, r, c)) if r * c > 0 => v.to_vec(),
            _ => vec![0.0; want.0 * want.1],
        };
        if got.0 * got.1 > 0 && got != want {
            return bad(format!(
                "{name} is {} x {}, but {} x {} for {n} states, {p} inputs and {q} outputs",
                got.0, got.1, want.0, want.1
            ));
        }
        mats.push(v);
    }
    let [am, bm, cm, dm]: [Vec<f64>; 4] = mats
        .try_into()
        .map_err(|_| Error::InvalidArgument(format!("{what}: four matrices expected")))?;
    let sys = StateSpace {
        a: am,
        b: bm,
        c: cm,
        d: dm,
        states: n,
        inputs: p,
        outputs: q,
    };
    sys.check(what)?;
    Ok(sys)
}

/// How [`place_poles_with`] makes the closed loop's eigenvectors well conditioned (SciPy's
/// `method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PoleMethod {
    /// Tits and Yang's rank-2 updates (SciPy's `'YT'`, the default): real poles in pairs in
    /// the order of their paper, each complex pair by its own update, a lone real pole by
    /// [`PoleMethod::Knv0`]'s.
    #[default]
    Yt,
    /// Kautsky, Nichols and Van Dooren's method 0 (SciPy's `'KNV0'`): each column of `X` in
    /// turn replaced by the unit vector of its pole's space nearest the normal to the
    /// others. Real poles only.
    Knv0,
}

/// The options of [`place_poles_with`]: the method, the relative change of `|det X|` at
/// which the sweeps stop, and the most sweeps (SciPy's `method`, `rtol` and `maxiter`, with
/// SciPy's defaults). A negative `rtol` runs all `maxiter` sweeps.
///
/// ```
/// use cuprite_array::signal::{PlacePolesOpts, PoleMethod};
/// let o = PlacePolesOpts::new().method(PoleMethod::Knv0).rtol(1e-6).maxiter(100);
/// # let _ = o;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct PlacePolesOpts {
    method: PoleMethod,
    rtol: f64,
    maxiter: usize,
}

impl Default for PlacePolesOpts {
    fn default() -> Self {
        PlacePolesOpts {
            method: PoleMethod::Yt,
            rtol: 1e-3,
            maxiter: 30,
        }
    }
}

impl PlacePolesOpts {
    /// SciPy's defaults: [`PoleMethod::Yt`], `rtol = 1e-3`, 30 sweeps.
    pub fn new() -> Self {
        Self::default()
    }
    /// The method.
    pub fn method(mut self, method: PoleMethod) -> Self {
        self.method = method;
        self
    }
    /// The relative change of `|det X|` below which the sweeps stop (at most 1; negative to
    /// run every sweep).
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.rtol = rtol;
        self
    }
    /// The most sweeps (at least 1).
    pub fn maxiter(mut self, maxiter: usize) -> Self {
        self.maxiter = maxiter;
        self
    }
}

/// What [`place_poles`] returns (SciPy's `full_state_feedback` bunch).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlacedPoles {
    /// The gain `K`, `inputs x states`, row-major: `A - B K` has the requested poles.
    pub gain_matrix: Vec<f64>,
    /// The eigenvalues of `A - B K`, ordered as the requested poles are.
    pub computed_poles: Vec<c64>,
    /// The requested poles: the real ones ascending, then each complex pole of negative
    /// imaginary part (ascending by real, then imaginary part) followed by its conjugate.
    pub requested_poles: Vec<c64>,
    /// SciPy's `X`, `states x states`, row-major: `(A - B K) X = X diag(requested_poles)`. The
    /// identity when `rank(B)` equals the states (`A - B K` is then the poles' real block
    /// diagonal).
    pub x: Vec<c64>,
    /// The relative change of `|det X|` in the last sweep: 0 when `rank(B)` is 1 (nothing to
    /// choose), `None` when it equals the states (SciPy's NaN).
    pub rtol: Option<f64>,
    /// The sweeps made: 0 when `rank(B)` is 1, `None` when it equals the states (SciPy's
    /// NaN).
    pub nb_iter: Option<usize>,
    /// Whether the last sweep's change fell below the `rtol` asked (and `|det X|` stayed
    /// above `sqrt(eps)`); true when there was nothing to sweep. SciPy warns when not.
    pub converged: bool,
}

/// The state-feedback gain `K` that places the eigenvalues of `A - B K` at `poles` (SciPy's
/// `place_poles(A, B, poles)`: [`place_poles_with`] with [`PlacePolesOpts::new`], Tits and
/// Yang's method, `rtol = 1e-3`, at most 30 sweeps). `a` is `states x states` and `b`
/// `states x inputs`, row-major.
///
/// # Errors
/// As [`place_poles_with`].
///
/// ```
/// use cuprite_array::{c64, signal::place_poles};
/// // A double integrator with one input: K = [2, 3] puts the poles at -1 and -2.
/// let f = place_poles(&[0.0, 1.0, 0.0, 0.0], &[0.0, 1.0], 2, 1, &[c64::new(-1.0, 0.0), c64::new(-2.0, 0.0)])?;
/// assert!((f.gain_matrix[0] - 2.0).abs() < 1e-12 && (f.gain_matrix[1] - 3.0).abs() < 1e-12);
/// assert!((f.computed_poles[0].re + 2.0).abs() < 1e-12 && (f.computed_poles[1].re + 1.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn place_poles(
    a: &[f64],
    b: &[f64],
    states: usize,
    inputs: usize,
    poles: &[c64],
) -> Result<PlacedPoles> {
    place_poles_with(a, b, states, inputs, poles, PlacePolesOpts::new())
}

/// The state-feedback gain `K` (`inputs x states`) that places the eigenvalues of `A - B K`
/// at `poles`, choosing among the gains that do one whose eigenvector matrix `X` has a large
/// `|det X|` by `opts`' method (SciPy's `place_poles(A, B, poles, method, rtol, maxiter)`;
/// the module's notes give the steps). `a` is `states x states` and `b` `states x inputs`,
/// row-major. The same inputs give SciPy's gain to rounding (amplified by the conditioning
/// of the updates): both take the same start and the same updates. `X`'s columns agree up to
/// sign (a complex pair's up to a unit factor): where an update's projection vanishes SciPy
/// takes a singular vector of LAPACK's sign, here of the Jacobi SVD's. The gain does not
/// depend on the signs, except that a repeated pole's columns may then settle on another
/// basis of the pole's space.
///
/// With one input (`rank(B) = 1`) the gain is the only one and nothing is swept; with
/// `rank(B)` equal to the states, `X = I`. Each sweep costs `O(states^5)` for Tits and Yang's
/// method (`O(states^2)` pairs, a QR of `X` each) and `O(states^4)` for method 0.
///
/// # Errors
/// No states, or states or inputs above [`LTI_MAX_ORDER`]; `a` or `b` not of the length
/// their dimensions give, or with an entry not finite; a pole not finite, complex poles not
/// in conjugate pairs, other than `states` poles; a pole repeated more often than `rank(B)`
/// (every pole when `B` is 0); complex poles for [`PoleMethod::Knv0`]; `maxiter` 0; `rtol`
/// above 1 or NaN; `rank(B)` below both the inputs and the states (SciPy's triangular solve
/// for `K` then has no square system); an `X` that is singular (the poles cannot be placed:
/// an uncontrollable system). Each named.
///
/// ```
/// use cuprite_array::{Array, Device, c64, linalg, signal::{PlacePolesOpts, PoleMethod, place_poles_with}};
/// // SciPy's example: four states, two inputs, real poles by KNV0.
/// let a = [1.380, -0.2077, 6.715, -5.676, -0.5814, -4.290, 0.0, 0.6750,
///          1.067, 4.273, -6.654, 5.893, 0.0480, 4.273, 1.343, -2.104];
/// let b = [0.0, 5.679, 1.136, 1.136, 0.0, 0.0, -3.146, 0.0];
/// let p = [-0.2, -0.5, -5.0566, -8.6659].map(|v| c64::new(v, 0.0));
/// let f = place_poles_with(&a, &b, 4, 2, &p, PlacePolesOpts::new().method(PoleMethod::Knv0))?;
/// // SciPy: K[0] = [0.20071427, -0.96665799, 0.24066128, -0.10279785].
/// assert!((f.gain_matrix[0] - 0.20071427).abs() < 1e-8 && (f.gain_matrix[3] + 0.10279785).abs() < 1e-8);
/// // The eigenvalues of A - B K, found apart from the call.
/// let mut abk = a.to_vec();
/// for i in 0..4 { for j in 0..4 { for k in 0..2 { abk[i * 4 + j] -= b[i * 2 + k] * f.gain_matrix[k * 4 + j]; } } }
/// let mut w: Vec<f64> = linalg::eigvals(&Array::from_slice_on(Device::CPU, &abk, &[4, 4])?)?
///     .to_vec()?.iter().map(|z| z.re).collect();
/// w.sort_by(f64::total_cmp);
/// assert!(w.iter().zip([-8.6659, -5.0566, -0.5, -0.2]).all(|(x, y)| (x - y).abs() < 1e-10));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn place_poles_with(
    a: &[f64],
    b: &[f64],
    states: usize,
    inputs: usize,
    poles: &[c64],
    opts: PlacePolesOpts,
) -> Result<PlacedPoles> {
    let what = "place_poles";
    let (n, m) = (states, inputs);
    let p = check_placement(what, (a, b, n, m), poles, opts)?;
    let bad = |msg: String| Error::InvalidArgument(format!("{what}: {msg}"));
    let rank = rank_of(b, n, m);
    for pole in &p {
        let times = p.iter().filter(|&q| q == pole).count();
        if times > rank {
            return Err(bad(format!(
                "the pole {pole} is asked for {times} times, more than rank(B) = {rank}"
            )));
        }
    }
    let (gain, x, sweep) = if rank == n {
        (full_rank_gain(what, a, b, n, m, &p)?, eye_c(n), None)
    } else {
        if rank < m {
            return Err(bad(format!(
                "B has rank {rank}, below both its {m} columns (inputs) and the {n} states: its \
                 columns are dependent, and the gain's triangular system is not square"
            )));
        }
        let (gain, x, sweep) = robust_gain(what, (a, b, n, m), &p, rank, opts)?;
        (gain, x, Some(sweep))
    };
    if let Some(v) = gain.iter().find(|v| !v.is_finite()) {
        return Err(bad(format!(
            "the gain has the entry {v}: the poles cannot be placed (check the \
             controllability of (A, B))"
        )));
    }
    let mut abk = a.to_vec();
    for i in 0..n {
        for k in 0..m {
            let bik = b[i * m + k];
            for j in 0..n {
                abk[i * n + j] -= bik * gain[k * n + j];
            }
        }
    }
    let arr = Array::from_slice_on(Device::CPU, &abk, &[n, n])?;
    let w = crate::linalg::eigvals(&arr)?.to_vec()?;
    let computed = order_poles(&w).map_err(|z| {
        bad(format!(
            "the eigenvalue {z} of A - B K has no conjugate among the others"
        ))
    })?;
    let (rtol, nb_iter, converged) = match sweep {
        None => (None, None, true),
        Some(s) => (Some(s.change), Some(s.sweeps), s.stopped),
    };
    Ok(PlacedPoles {
        gain_matrix: gain,
        computed_poles: computed,
        requested_poles: p,
        x,
        rtol,
        nb_iter,
        converged,
    })
}

/// The checks of [`place_poles_with`] before any factorisation: dimensions, lengths, finite
/// entries, poles in conjugate pairs and as many as the states, the method's and the
/// options' constraints. The poles ordered.
fn check_placement(
    what: &str,
    (a, b, n, m): (&[f64], &[f64], usize, usize),
    poles: &[c64],
    opts: PlacePolesOpts,
) -> Result<Vec<c64>> {
    let bad = |msg: String| Err(Error::InvalidArgument(format!("{what}: {msg}")));
    if n == 0 {
        return bad("A has no states (0 x 0)".into());
    }
    if let Some((name, v)) = [("states", n), ("inputs", m)]
        .into_iter()
        .find(|&(_, v)| v > LTI_MAX_ORDER)
    {
        return bad(format!(
            "{v} {name}, more than {LTI_MAX_ORDER} (LTI_MAX_ORDER)"
        ));
    }
    // Each product is below LTI_MAX_ORDER^2, far from overflowing.
    for (name, mat, rows, cols) in [("A", a, n, n), ("B", b, n, m)] {
        if mat.len() != rows * cols {
            return bad(format!(
                "{name} has {} entries, but {rows} x {cols} = {} for {n} states and {m} inputs",
                mat.len(),
                rows * cols
            ));
        }
        if let Some(v) = mat.iter().find(|v| !v.is_finite()) {
            return bad(format!("{name} has the entry {v}, not finite"));
        }
    }
    check_roots(what, "poles", poles)?;
    let p = order_poles(poles).map_err(|z| {
        let times = |v: c64| poles.iter().filter(|&&q| q == v).count();
        Error::InvalidArgument(format!(
            "{what}: the complex pole {z} is asked for {} times but its conjugate {} {} times: \
             complex poles come in conjugate pairs",
            times(z),
            z.conj(),
            times(z.conj())
        ))
    })?;
    if p.len() != n {
        return bad(format!(
            "{} poles for {n} states: there must be one a state",
            p.len()
        ));
    }
    if opts.method == PoleMethod::Knv0
        && let Some(z) = p.iter().find(|z| z.im != 0.0)
    {
        return bad(format!(
            "KNV0 places real poles only, and {z} is complex (Yt places complex poles)"
        ));
    }
    if opts.maxiter == 0 {
        return bad("maxiter = 0: at least one sweep is needed".into());
    }
    if opts.rtol.is_nan() || opts.rtol > 1.0 {
        return bad(format!(
            "rtol = {} must be at most 1 (negative to run every sweep)",
            opts.rtol
        ));
    }
    Ok(p)
}

/// `p` ordered as SciPy's `_order_complex_poles` orders it: the real values ascending, then
/// for each value of negative imaginary part (ascending by real, then imaginary part) whose
/// conjugate is among `p`, the value and its conjugate. `Err` with a complex value whose
/// conjugate is not among `p` as often as it is.
fn order_poles(p: &[c64]) -> std::result::Result<Vec<c64>, c64> {
    let lex = |x: &c64, y: &c64| x.re.total_cmp(&y.re).then(x.im.total_cmp(&y.im));
    let mut out: Vec<c64> = p.iter().copied().filter(|z| z.im == 0.0).collect();
    out.sort_by(lex);
    let mut neg: Vec<c64> = p.iter().copied().filter(|z| z.im < 0.0).collect();
    neg.sort_by(lex);
    for z in neg {
        if p.contains(&z.conj()) {
            out.extend([z, z.conj()]);
        }
    }
    if out.len() != p.len() {
        let times = |v: c64| p.iter().filter(|&&q| q == v).count();
        let lone = p
            .iter()
            .copied()
            .find(|&z| z.im != 0.0 && times(z) != times(z.conj()));
        return Err(lone.unwrap_or_default());
    }
    Ok(out)
}

/// The `n x n` identity, complex.
fn eye_c(n: usize) -> Vec<c64> {
    let mut m = vec![c64::new(0.0, 0.0); n * n];
    for i in 0..n {
        m[i * n + i] = c64::new(1.0, 0.0);
    }
    m
}

/// The gain when `rank(B)` equals the states `n` (`B` is `n x m`, `m >= n`): the
/// least-squares (minimum-norm) solution of `B K = D - A` negated, `D` the poles' real block
/// diagonal, from the QR of `Bᵀ = Q R`: `K0 = Q R⁻ᵀ (D - A)`.
fn full_rank_gain(
    what: &str,
    a: &[f64],
    b: &[f64],
    n: usize,
    m: usize,
    p: &[c64],
) -> Result<Vec<f64>> {
    let mut diag = vec![0.0; n * n];
    let mut idx = 0;
    while idx < n {
        let z = p[idx];
        diag[idx * n + idx] = z.re;
        if z.im != 0.0 && idx + 1 < n {
            diag[idx * n + idx + 1] = -z.im;
            diag[(idx + 1) * n + idx + 1] = z.re;
            diag[(idx + 1) * n + idx] = z.im;
            idx += 1;
        }
        idx += 1;
    }
    let rhs: Vec<f64> = diag.iter().zip(a).map(|(d, a)| d - a).collect();
    let bt: Vec<f64> = (0..m * n).map(|i| b[(i % n) * m + i / n]).collect();
    let f = Qr::new(&bt, m, n);
    // R (n x n, the top of the factor) is upper triangular: Rᵀ y = rhs by forward substitution.
    let mut y = vec![0.0; n * n];
    for i in 0..n {
        let d = f.r[i * n + i];
        if d == 0.0 {
            return Err(Error::InvalidArgument(format!(
                "{what}: B's rows are dependent (a zero pivot in the QR of Bᵀ)"
            )));
        }
        for j in 0..n {
            let mut v = rhs[i * n + j];
            for l in 0..i {
                v -= f.r[l * n + i] * y[l * n + j];
            }
            y[i * n + j] = v / d;
        }
    }
    // K0 = Q[:, :n] y (m x n), K = -K0.
    let mut gain = vec![0.0; m * n];
    for l in 0..n {
        let q = f.q_col(l);
        for (r, &qv) in q.iter().enumerate() {
            for j in 0..n {
                gain[r * n + j] -= qv * y[l * n + j];
            }
        }
    }
    Ok(gain)
}

/// The gain when `rank(B) = rank < n`, and `X` and the sweeps' outcome:
/// steps 1 and 3 to 5 of the module's notes.
fn robust_gain(
    what: &str,
    (a, b, n, m): (&[f64], &[f64], usize, usize),
    p: &[c64],
    rank: usize,
    opts: PlacePolesOpts,
) -> Result<(Vec<f64>, Vec<c64>, Sweep)> {
    let fb = Qr::new(b, n, m);
    let u: Vec<Vec<f64>> = (0..n).map(|c| fb.q_col(c)).collect();
    let (u0, u1) = u.split_at(rank);
    let nr = n - rank;
    // The bases S_p (columns, complex) and X's starting columns (real parts, imaginary parts
    // for a complex pair).
    let mut ker: Vec<Vec<Vec<c64>>> = Vec::with_capacity(n);
    let mut x: Vec<Vec<f64>> = Vec::with_capacity(n);
    let mut j = 0;
    while j < n {
        let z = p[j];
        // (A - z I)ᵀ U1: n x (n - rank).
        let space = |i: usize, c: usize| -> c64 {
            let at_u: f64 = (0..n).map(|l| a[l * n + i] * u1[c][l]).sum();
            c64::new(at_u, 0.0) - z * u1[c][i]
        };
        let basis: Vec<Vec<c64>> = if z.im == 0.0 {
            let s: Vec<f64> = (0..n * nr).map(|k| space(k / nr, k % nr).re).collect();
            let f = Qr::new(&s, n, nr);
            (nr..n)
                .map(|c| f.q_col(c).into_iter().map(|v| c64::new(v, 0.0)).collect())
                .collect()
        } else {
            let s: Vec<c64> = (0..n * nr).map(|k| space(k / nr, k % nr)).collect();
            let f = Qr::new(&s, n, nr);
            (nr..n).map(|c| f.q_col(c)).collect()
        };
        let mut t = vec![c64::new(0.0, 0.0); n];
        for col in &basis {
            for (ti, v) in t.iter_mut().zip(col) {
                *ti += v;
            }
        }
        let norm = t.iter().map(|v| v.norm_sqr()).sum::<f64>().sqrt();
        for v in &mut t {
            *v /= norm;
        }
        if z.im != 0.0 && j + 1 < n {
            x.push(t.iter().map(|v| v.re).collect());
            x.push(t.iter().map(|v| v.im).collect());
            ker.push(basis.clone());
            ker.push(basis);
            j += 2;
        } else {
            x.push(t.iter().map(|v| v.re).collect());
            ker.push(basis);
            j += 1;
        }
    }
    let sweep = if rank > 1 {
        match opts.method {
            PoleMethod::Yt => yt_loop(&ker, &mut x, p, opts),
            PoleMethod::Knv0 => knv0_loop(&ker, &mut x, opts),
        }
    } else {
        Sweep {
            change: 0.0,
            sweeps: 0,
            stopped: true,
        }
    };
    // X as complex columns: a complex pair's (re, im) become (re - i im, re + i im).
    let mut xc: Vec<Vec<c64>> = x
        .iter()
        .map(|col| col.iter().map(|&v| c64::new(v, 0.0)).collect())
        .collect();
    let mut idx = 0;
    while idx + 1 < n {
        if p[idx].im != 0.0 {
            let (re, im) = (&x[idx], &x[idx + 1]);
            xc[idx] = re.iter().zip(im).map(|(&r, &i)| c64::new(r, -i)).collect();
            xc[idx + 1] = re.iter().zip(im).map(|(&r, &i)| c64::new(r, i)).collect();
            idx += 1;
        }
        idx += 1;
    }
    // Xᵀ Mᵀ = diag(p) Xᵀ, then G = U0ᵀ (M - A) (rank x n) and Z K0 = G.
    let xt: Vec<c64> = (0..n * n).map(|k| xc[k / n][k % n]).collect();
    let rhs: Vec<c64> = (0..n * n).map(|k| p[k / n] * xc[k / n][k % n]).collect();
    let cannot = || {
        Error::InvalidArgument(format!(
            "{what}: X is singular, so the poles cannot be placed (check the controllability \
             of (A, B), or ask for other poles)"
        ))
    };
    let mt = solve(&xt, &rhs, n, n).ok_or_else(cannot)?;
    let mut g = vec![c64::new(0.0, 0.0); rank * n];
    for (r, ur) in u0.iter().enumerate() {
        for j in 0..n {
            g[r * n + j] = (0..n).map(|l| (mt[j * n + l] - a[l * n + j]) * ur[l]).sum();
        }
    }
    let z: Vec<c64> = (0..rank * m)
        .map(|k| c64::new(fb.r[(k / m) * m + k % m], 0.0))
        .collect();
    let k0 = solve(&z, &g, rank, n).ok_or_else(cannot)?;
    let gain = k0.iter().map(|v| -v.re).collect();
    let x_out = (0..n * n).map(|k| xc[k % n][k / n]).collect();
    Ok((gain, x_out, sweep))
}

/// `|a - b| <= 1e-8 + 1e-5 |b|` (NumPy's `allclose` of two numbers).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-8 + 1e-5 * b.abs()
}

/// Every entry of `v` within `1e-8` of 0 (NumPy's `allclose(v, 0)`).
fn near_zero<T: Field>(v: &[T]) -> bool {
    v.iter().all(|x| x.abs2().sqrt() <= 1e-8)
}

/// The 2-norm of `v`.
fn norm2<T: Field>(v: &[T]) -> f64 {
    v.iter().map(|x| x.abs2()).sum::<f64>().sqrt()
}

/// `sqrt(eps)`: below it `|det X|` counts as singular in the sweeps' stopping test.
const SQRT_EPS: f64 = 1.4901161193847656e-8;

/// What the sweeps came to: the last relative change of `|det X|`, the sweeps made, and
/// whether the change fell below `rtol` (with `|det X|` above `sqrt(eps)`).
#[derive(Clone, Copy, Debug)]
struct Sweep {
    change: f64,
    sweeps: usize,
    stopped: bool,
}

/// The sweeps' stopping test after a sweep took `|det X|` from `before` to `after`:
/// `(relative change, stop)`.
fn det_change(before: f64, x: &[Vec<f64>]) -> (f64, bool) {
    let after = det_abs(x).max(SQRT_EPS);
    let change = ((after - before) / after).abs();
    (change, after > SQRT_EPS)
}

/// Method 0's sweeps: each column of `X` in turn by [`knv0_update`], until the relative change
/// of `|det X|` falls below `rtol` or `maxiter` sweeps are done.
fn knv0_loop(ker: &[Vec<Vec<c64>>], x: &mut [Vec<f64>], opts: PlacePolesOpts) -> Sweep {
    sweep_until(x, opts, |x| {
        for j in 0..x.len() {
            knv0_update(ker, x, j);
        }
    })
}

/// `pass` applied to `X` until the relative change of `|det X|` over a pass falls below
/// `rtol` with `X` regular, or `maxiter` passes are done.
fn sweep_until(
    x: &mut [Vec<f64>],
    opts: PlacePolesOpts,
    mut pass: impl FnMut(&mut [Vec<f64>]),
) -> Sweep {
    let (mut change, mut sweeps, mut stop) = (f64::NAN, 0, false);
    while sweeps < opts.maxiter && !stop {
        let before = det_abs(x);
        pass(x);
        let (c, regular) = det_change(before, x);
        change = c;
        stop = c < opts.rtol && regular;
        sweeps += 1;
    }
    Sweep {
        change,
        sweeps,
        stopped: stop,
    }
}

/// Column `j` of `X` replaced by the unit vector along the projection on `S_j` of the normal
/// to the other columns (the last column of the full Q of `X` without column `j`); kept when
/// the projection is (near) zero.
fn knv0_update(ker: &[Vec<Vec<c64>>], x: &mut [Vec<f64>], j: usize) {
    let n = x.len();
    let others = without(x, &[j]);
    let q = Qr::new(&others, n, n - 1).q_col(n - 1);
    let mut y = vec![0.0; n];
    for col in &ker[j] {
        let dot: f64 = col.iter().zip(&q).map(|(c, qv)| c.re * qv).sum();
        for (yi, c) in y.iter_mut().zip(col) {
            *yi += c.re * dot;
        }
    }
    if !near_zero(&y) {
        let norm = norm2(&y);
        x[j] = y.iter().map(|v| v / norm).collect();
    }
}

/// The columns of `x` (column vectors of one length) but those in `skip`, as a row-major
/// matrix.
fn without(x: &[Vec<f64>], skip: &[usize]) -> Vec<f64> {
    let n = x.first().map_or(0, Vec::len);
    let keep: Vec<&Vec<f64>> = x
        .iter()
        .enumerate()
        .filter(|(c, _)| !skip.contains(c))
        .map(|(_, col)| col)
        .collect();
    let k = keep.len();
    (0..n * k).map(|i| keep[i % k][i / k]).collect()
}

/// Tits and Yang's update order (1-based in their paper, 0-based here): pairs of real poles,
/// a lone real pole with itself (method 0's update), and each complex pair, in the paper's
/// steps 1 to 3 as SciPy lays them out.
fn yt_order(p: &[c64]) -> Vec<(usize, usize)> {
    let nb_real = p.iter().filter(|z| z.im == 0.0).count();
    let hnb = nb_real / 2;
    let odd = nb_real % 2;
    let mut order: Vec<(usize, usize)> = Vec::new();
    if nb_real > 0 {
        order.push((nb_real, 1));
    }
    let comp: Vec<usize> = (nb_real + 1..=p.len()).step_by(2).collect();
    let lone = hnb == 0 && p.first().is_some_and(|z| z.im == 0.0);
    let complex_pairs = |order: &mut Vec<(usize, usize)>| {
        order.extend(comp.iter().map(|&c| (c, c + 1)));
    };
    // Step 1.
    order.extend((1..hnb + odd).map(|r| (2 * r, 2 * r + 1)));
    complex_pairs(&mut order);
    order.extend((1..=hnb).map(|r| (2 * r - 1, 2 * r)));
    if lone {
        order.push((1, 1));
    }
    complex_pairs(&mut order);
    // Step 2.
    for j in 2..hnb + odd {
        order.extend((1..=hnb).map(|i| (i, i + j)));
    }
    if lone {
        order.push((1, 1));
    }
    complex_pairs(&mut order);
    for j in 2..hnb + odd {
        for i in hnb + 1..=nb_real {
            let k = if i + j > nb_real {
                i + j - nb_real
            } else {
                i + j
            };
            order.push((i, k));
        }
    }
    if lone {
        order.push((1, 1));
    }
    complex_pairs(&mut order);
    // Step 3.
    order.extend((1..=hnb).map(|i| (i, i + hnb)));
    if lone {
        order.push((1, 1));
    }
    complex_pairs(&mut order);
    order.into_iter().map(|(i, j)| (i - 1, j - 1)).collect()
}

/// Tits and Yang's sweeps over [`yt_order`] until the relative change of `|det X|` falls
/// below `rtol` or `maxiter` sweeps are done.
fn yt_loop(ker: &[Vec<Vec<c64>>], x: &mut [Vec<f64>], p: &[c64], opts: PlacePolesOpts) -> Sweep {
    let n = x.len();
    let order = yt_order(p);
    sweep_until(x, opts, |x| {
        for &(i, j) in &order {
            if i == j {
                knv0_update(ker, x, i);
                continue;
            }
            let others = without(x, &[i, j]);
            let f = Qr::new(&others, n, n - 2);
            let (u, v) = (f.q_col(n - 2), f.q_col(n - 1));
            if p[i].im == 0.0 {
                yt_real(ker, x, (i, j), &u, &v);
            } else {
                yt_complex(ker, x, (i, j), &u, &v);
            }
        }
    })
}

/// `Kᵀ w` for the columns `k` of a basis (real parts) and a real vector `w`.
fn project_t(k: &[Vec<c64>], w: &[f64]) -> Vec<c64> {
    k.iter()
        .map(|col| c64::new(col.iter().zip(w).map(|(c, v)| c.re * v).sum(), 0.0))
        .collect()
}

/// `K c` for the columns `k` of a basis and coefficients `c`.
fn combine_cols(k: &[Vec<c64>], c: &[c64]) -> Vec<c64> {
    let n = k.first().map_or(0, Vec::len);
    let mut out = vec![c64::new(0.0, 0.0); n];
    for (col, &w) in k.iter().zip(c) {
        for (o, v) in out.iter_mut().zip(col) {
            *o += v * w;
        }
    }
    out
}

/// Tits and Yang's update of the real pair `(i, j)` (their section 6.1): with `u`, `v` an
/// orthonormal basis of the normals to the other columns, the leading singular vectors of
/// `S_iᵀ (u vᵀ - v uᵀ) S_j` (both pairs when the two largest singular values are close) span
/// the space onto which `[x_i; x_j]` is projected and scaled to norm `sqrt 2`.
fn yt_real(
    ker: &[Vec<Vec<c64>>],
    x: &mut [Vec<f64>],
    (i, j): (usize, usize),
    u: &[f64],
    v: &[f64],
) {
    let n = x.len();
    let (ki, kj) = (&ker[i], &ker[j]);
    let r = ki.len();
    // m = (Kiᵀ u)(Kjᵀ v)ᵀ - (Kiᵀ v)(Kjᵀ u)ᵀ
    let (iu, jv, iv, ju) = (
        project_t(ki, u),
        project_t(kj, v),
        project_t(ki, v),
        project_t(kj, u),
    );
    let m: Vec<c64> = (0..r * r)
        .map(|k| iu[k / r] * jv[k % r] - iv[k / r] * ju[k % r])
        .collect();
    let s = Svd::new(&m, r, r);
    let pairs = if s.sigma.len() > 1 && close(s.sigma[0], s.sigma[1]) {
        2
    } else {
        1
    };
    // The columns of [Ki mu; Kj nu].
    let cols: Vec<Vec<f64>> = (0..pairs.min(s.sigma.len()))
        .map(|l| {
            let top = combine_cols(ki, &s.u[l]);
            let bottom = combine_cols(kj, &s.v[l]);
            top.iter().chain(&bottom).map(|z| z.re).collect()
        })
        .collect();
    let xij: Vec<f64> = x[i].iter().chain(&x[j]).copied().collect();
    let mut y = vec![0.0; 2 * n];
    for col in &cols {
        let dot: f64 = col.iter().zip(&xij).map(|(a, b)| a * b).sum();
        for (yi, c) in y.iter_mut().zip(col) {
            *yi += c * dot;
        }
    }
    let y = if near_zero(&y) {
        cols.first().cloned().unwrap_or(y)
    } else {
        let scale = std::f64::consts::SQRT_2 / norm2(&y);
        y.iter().map(|v| v * scale).collect()
    };
    x[i] = y[..n].to_vec();
    x[j] = y[n..].to_vec();
}

/// Tits and Yang's update of the complex pair held as `(x_i, x_j) = (re, im)` (their section
/// 6.2): with `w = sqrt 2 (u + i v)`, the leading eigenvectors (largest moduli) of the
/// Hermitian `S_iᴴ (w wᴴ - w̄ wᵀ) S_i` (both when their moduli are close) span the space onto
/// which `x_i + i x_j` is projected and made a unit vector.
fn yt_complex(
    ker: &[Vec<Vec<c64>>],
    x: &mut [Vec<f64>],
    (i, j): (usize, usize),
    u: &[f64],
    v: &[f64],
) {
    let k = &ker[i];
    let r = k.len();
    let s2 = std::f64::consts::SQRT_2;
    let w: Vec<c64> = u
        .iter()
        .zip(v)
        .map(|(a, b)| c64::new(s2 * a, s2 * b))
        .collect();
    // m = (Kᴴ w)(Kᴴ w)ᴴ - (Kᴴ w̄)(Kᴴ w̄)ᴴ, Hermitian: its singular values are its eigenvalues'
    // moduli, its left singular vectors its eigenvectors.
    let kw: Vec<c64> = k
        .iter()
        .map(|col| col.iter().zip(&w).map(|(c, wv)| c.conj() * wv).sum())
        .collect();
    let kwb: Vec<c64> = k
        .iter()
        .map(|col| col.iter().zip(&w).map(|(c, wv)| c.conj() * wv.conj()).sum())
        .collect();
    let m: Vec<c64> = (0..r * r)
        .map(|l| kw[l / r] * kw[l % r].conj() - kwb[l / r] * kwb[l % r].conj())
        .collect();
    let s = Svd::new(&m, r, r);
    let vecs = if s.sigma.len() > 1 && close(s.sigma[0], s.sigma[1]) {
        2
    } else {
        1
    };
    let cols: Vec<Vec<c64>> = (0..vecs.min(s.sigma.len()))
        .map(|l| combine_cols(k, &s.u[l]))
        .collect();
    let xij: Vec<c64> = x[i]
        .iter()
        .zip(&x[j])
        .map(|(&re, &im)| c64::new(re, im))
        .collect();
    let mut y = vec![c64::new(0.0, 0.0); xij.len()];
    for col in &cols {
        let dot: c64 = col.iter().zip(&xij).map(|(c, xv)| c.conj() * xv).sum();
        for (yi, c) in y.iter_mut().zip(col) {
            *yi += c * dot;
        }
    }
    let y = if near_zero(&y) {
        cols.first().cloned().unwrap_or(y)
    } else {
        let norm = norm2(&y);
        y.iter().map(|v| v / norm).collect()
    };
    x[i] = y.iter().map(|v| v.re).collect();
    x[j] = y.iter().map(|v| v.im).collect();
}

/// `|det X|` of the square matrix of columns `x`, by LU with partial pivoting (0 when a
/// pivot is).
fn det_abs(x: &[Vec<f64>]) -> f64 {
    let n = x.len();
    // Row-major from columns; the determinant of the transpose is the same.
    let mut a: Vec<f64> = x.iter().flatten().copied().collect();
    let mut det = 1.0f64;
    for col in 0..n {
        let Some(piv) =
            (col..n).max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs()))
        else {
            return 0.0;
        };
        let d = a[piv * n + col];
        if d == 0.0 {
            return 0.0;
        }
        if piv != col {
            for j in 0..n {
                a.swap(piv * n + j, col * n + j);
            }
        }
        det *= d;
        for i in col + 1..n {
            let f = a[i * n + col] / d;
            for j in col + 1..n {
                a[i * n + j] -= f * a[col * n + j];
            }
        }
    }
    det.abs()
}

/// The numerical rank of `b` (`n x m`): the singular values above `max(n, m) eps s_max`
/// (NumPy's `matrix_rank`).
fn rank_of(b: &[f64], n: usize, m: usize) -> usize {
    // The one-sided Jacobi SVD of the factor with fewer columns.
    let s = if m <= n {
        let bc: Vec<c64> = b.iter().map(|&v| c64::new(v, 0.0)).collect();
        Svd::new(&bc, n, m)
    } else {
        let bt: Vec<c64> = (0..m * n)
            .map(|k| c64::new(b[(k % n) * m + k / n], 0.0))
            .collect();
        Svd::new(&bt, m, n)
    };
    let smax = s.sigma.first().copied().unwrap_or(0.0);
    let tol = smax * n.max(m) as f64 * f64::EPSILON;
    s.sigma.iter().filter(|&&v| v > tol).count()
}

/// The real and complex entries of the factorisations: `f64` and [`c64`].
trait Field:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// The conjugate (itself for a real).
    fn conj(self) -> Self;
    /// The real part.
    fn re(self) -> f64;
    /// The imaginary part (0 for a real).
    fn im(self) -> f64;
    /// `re + i im` (`re` for a real, whose `im` is 0 where this is called).
    fn from_parts(re: f64, im: f64) -> Self;
    /// `|self|^2`.
    fn abs2(self) -> f64;
}

impl Field for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn conj(self) -> Self {
        self
    }
    fn re(self) -> f64 {
        self
    }
    fn im(self) -> f64 {
        0.0
    }
    fn from_parts(re: f64, _im: f64) -> Self {
        re
    }
    fn abs2(self) -> f64 {
        self * self
    }
}

impl Field for c64 {
    const ZERO: Self = c64::new(0.0, 0.0);
    const ONE: Self = c64::new(1.0, 0.0);
    fn conj(self) -> Self {
        c64::conj(&self)
    }
    fn re(self) -> f64 {
        self.re
    }
    fn im(self) -> f64 {
        self.im
    }
    fn from_parts(re: f64, im: f64) -> Self {
        c64::new(re, im)
    }
    fn abs2(self) -> f64 {
        self.norm_sqr()
    }
}

/// The Householder QR of a `rows x cols` matrix as LAPACK's `geqr2` computes it: for each of
/// the `min(rows, cols)` columns, the reflector `H = I - tau v vᴴ` (`v[0] = 1`) that takes
/// the column's part from the diagonal down to `(beta, 0, ..., 0)` with `beta = -sign(Re
/// alpha) |(alpha, x)|`, `tau = 0` when that part is already so with a real `alpha`. `A = Q
/// R` with `Q = H_1 H_2 ... H_k`.
struct Qr<T> {
    rows: usize,
    /// The reflectors' vectors, the `i`th of `rows - i` entries.
    v: Vec<Vec<T>>,
    /// The reflectors' factors.
    tau: Vec<T>,
    /// `R`, `rows x cols`, row-major (zeros below the diagonal).
    r: Vec<T>,
}

impl<T: Field> Qr<T> {
    /// The factorisation of `a` (`rows x cols`, row-major).
    fn new(a: &[T], rows: usize, cols: usize) -> Self {
        let mut r = a.to_vec();
        let k = rows.min(cols);
        let (mut vs, mut taus) = (Vec::with_capacity(k), Vec::with_capacity(k));
        for i in 0..k {
            let alpha = r[i * cols + i];
            let tail: Vec<T> = (i + 1..rows).map(|l| r[l * cols + i]).collect();
            let xnorm = norm2(&tail);
            let mut v = Vec::with_capacity(rows - i);
            v.push(T::ONE);
            if xnorm == 0.0 && alpha.im() == 0.0 {
                v.extend(tail);
                vs.push(v);
                taus.push(T::ZERO);
                continue;
            }
            let (ar, ai) = (alpha.re(), alpha.im());
            let beta = -ar.hypot(ai).hypot(xnorm).copysign(ar);
            let tau = T::from_parts((beta - ar) / beta, -ai / beta);
            let scale = T::ONE / (alpha - T::from_parts(beta, 0.0));
            v.extend(tail.iter().map(|&t| t * scale));
            r[i * cols + i] = T::from_parts(beta, 0.0);
            for l in i + 1..rows {
                r[l * cols + i] = T::ZERO;
            }
            // Hᴴ = I - conj(tau) v vᴴ applied to the columns on the right.
            let tc = tau.conj();
            for c in i + 1..cols {
                let mut dot = T::ZERO;
                for (l, &vl) in v.iter().enumerate() {
                    dot = dot + vl.conj() * r[(i + l) * cols + c];
                }
                let f = tc * dot;
                for (l, &vl) in v.iter().enumerate() {
                    let e = &mut r[(i + l) * cols + c];
                    *e = *e - vl * f;
                }
            }
            vs.push(v);
            taus.push(tau);
        }
        Qr {
            rows,
            v: vs,
            tau: taus,
            r,
        }
    }

    /// Column `c` of the full `Q` (`rows x rows`): `H_1 ... H_k e_c`.
    fn q_col(&self, c: usize) -> Vec<T> {
        let mut q = vec![T::ZERO; self.rows];
        if let Some(e) = q.get_mut(c) {
            *e = T::ONE;
        }
        for (i, (v, &tau)) in self.v.iter().zip(&self.tau).enumerate().rev() {
            let mut dot = T::ZERO;
            for (l, &vl) in v.iter().enumerate() {
                dot = dot + vl.conj() * q[i + l];
            }
            let f = tau * dot;
            for (l, &vl) in v.iter().enumerate() {
                q[i + l] = q[i + l] - vl * f;
            }
        }
        q
    }
}

/// A singular value decomposition `A = U diag(sigma) Vᴴ` of a `rows x cols` complex matrix
/// (`rows >= cols`) by one-sided Jacobi rotations (Hestenes): the singular values descending,
/// `u` and `v` their left and right singular vectors (columns; a left one is zero where its
/// singular value is).
struct Svd {
    sigma: Vec<f64>,
    u: Vec<Vec<c64>>,
    v: Vec<Vec<c64>>,
}

impl Svd {
    /// The decomposition of `a` (`rows x cols`, row-major, `rows >= cols`).
    fn new(a: &[c64], rows: usize, cols: usize) -> Self {
        let mut w: Vec<Vec<c64>> = (0..cols)
            .map(|c| (0..rows).map(|r| a[r * cols + c]).collect())
            .collect();
        let mut v: Vec<Vec<c64>> = (0..cols)
            .map(|c| {
                let mut e = vec![c64::new(0.0, 0.0); cols];
                e[c] = c64::new(1.0, 0.0);
                e
            })
            .collect();
        // Each sweep rotates every pair of columns not yet orthogonal to working precision;
        // the off-diagonal mass falls quadratically, and 60 sweeps bound the work.
        for _ in 0..60 {
            let mut rotated = false;
            for p in 0..cols {
                for q in p + 1..cols {
                    let alpha = norm2(&w[p]).powi(2);
                    let beta = norm2(&w[q]).powi(2);
                    let gamma: c64 = w[p].iter().zip(&w[q]).map(|(x, y)| x.conj() * y).sum();
                    let g = gamma.norm();
                    if g == 0.0 || g <= f64::EPSILON * (alpha * beta).sqrt() {
                        continue;
                    }
                    rotated = true;
                    let zeta = (beta - alpha) / (2.0 * g);
                    let t = zeta.signum() / (zeta.abs() + zeta.hypot(1.0));
                    let cs = 1.0 / t.hypot(1.0);
                    let sn = cs * t;
                    let ph = gamma / g;
                    for cols_of in [&mut w, &mut v] {
                        let (lo, hi) = cols_of.split_at_mut(q);
                        let (cp, cq) = (&mut lo[p], &mut hi[0]);
                        for (x, y) in cp.iter_mut().zip(cq.iter_mut()) {
                            let (xo, yo) = (*x, *y);
                            *x = xo * cs - yo * ph.conj() * sn;
                            *y = xo * ph * sn + yo * cs;
                        }
                    }
                }
            }
            if !rotated {
                break;
            }
        }
        let mut idx: Vec<usize> = (0..cols).collect();
        let sig: Vec<f64> = w.iter().map(|c| norm2(c)).collect();
        idx.sort_by(|&x, &y| sig[y].total_cmp(&sig[x]));
        let sigma = idx.iter().map(|&c| sig[c]).collect();
        let u = idx
            .iter()
            .map(|&c| {
                let s = sig[c];
                w[c].iter()
                    .map(|z| if s > 0.0 { z / s } else { c64::new(0.0, 0.0) })
                    .collect()
            })
            .collect();
        let v = idx.iter().map(|&c| v[c].clone()).collect();
        Svd { sigma, u, v }
    }
}
