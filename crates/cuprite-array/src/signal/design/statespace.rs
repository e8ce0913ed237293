//! Linear systems in state-space form `x' = A x + B u`, `y = C x + D u` (or `x[k + 1] = A x[k]
//! + B u[k]` for a discrete system) and their conversions (SciPy's `tf2ss`, `ss2tf`,
//! `zpk2ss`, `ss2zpk` and `cont2discrete`), on the host in `f64`.
//!
//! Transfer functions become the controller canonical form; characteristic polynomials are
//! the monic polynomials of the eigenvalues ([`crate::linalg::eigvals`] on the CPU), as
//! NumPy's `poly` of a matrix computes them. Discretisations take the exponential of a
//! (block) matrix ([`matrix::expm`](super::matrix)) or solve with `I - alpha dt A`.

use super::convert::{LTI_MAX_ORDER, ZerosPolesGain, expand, normalize_as, tf2zpk, zpk2tf};
use super::matrix::{expm, eye, matmul, solve, transpose};
use crate::array::Array;
use crate::device::Device;
use crate::error::{Error, Result};

/// A linear system `x' = A x + B u`, `y = C x + D u` with `states` states, `inputs` inputs and
/// `outputs` outputs, its matrices row-major: `a` is `states x states`, `b` `states x
/// inputs`, `c` `outputs x states`, `d` `outputs x inputs` (SciPy's `(A, B, C, D)`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateSpace {
    /// The state matrix `A`, `states x states`, row-major.
    pub a: Vec<f64>,
    /// The input matrix `B`, `states x inputs`, row-major.
    pub b: Vec<f64>,
    /// The output matrix `C`, `outputs x states`, row-major.
    pub c: Vec<f64>,
    /// The feedthrough matrix `D`, `outputs x inputs`, row-major.
    pub d: Vec<f64>,
    /// The number of states.
    pub states: usize,
    /// The number of inputs.
    pub inputs: usize,
    /// The number of outputs.
    pub outputs: usize,
}

impl StateSpace {
    /// The system checked for `what`: each dimension at most [`LTI_MAX_ORDER`], each matrix
    /// of the length its dimensions give, every entry finite.
    pub(super) fn check(&self, what: &str) -> Result<()> {
        let (n, m, p) = (self.states, self.inputs, self.outputs);
        if let Some((name, v)) = [("states", n), ("inputs", m), ("outputs", p)]
            .into_iter()
            .find(|&(_, v)| v > LTI_MAX_ORDER)
        {
            return Err(Error::InvalidArgument(format!(
                "{what}: {v} {name}, more than {LTI_MAX_ORDER} (LTI_MAX_ORDER)"
            )));
        }
        // Each product is below LTI_MAX_ORDER^2, far from overflowing.
        for (name, mat, rows, cols) in [
            ("A", &self.a, n, n),
            ("B", &self.b, n, m),
            ("C", &self.c, p, n),
            ("D", &self.d, p, m),
        ] {
            if mat.len() != rows * cols {
                return Err(Error::InvalidArgument(format!(
                    "{what}: {name} has {} entries, but {rows} x {cols} = {} for {n} states, \
                     {m} inputs and {p} outputs",
                    mat.len(),
                    rows * cols
                )));
            }
            if let Some(v) = mat.iter().find(|v| !v.is_finite()) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: {name} has the entry {v}, not finite"
                )));
            }
        }
        Ok(())
    }
}

/// The state-space form of the transfer function `(b, a)` (descending powers; SciPy's
/// `tf2ss`): the controller canonical form of the [`normalize`](super::normalize)d
/// function, one input and one output. With `a` of `K` coefficients and `b` padded to `K`:
/// `A` has first row `-a[1..]` and ones on its subdiagonal, `B = e_1`, `C = b[1..] - b[0]
/// a[1..]`, `D = b[0]`. A constant function (`K = 1`) is SciPy's one zero state with `D =
/// b[0]`.
///
/// # Errors
/// Those of [`normalize`](super::normalize), and `b` longer than `a` after it (an improper
/// function), named.
///
/// ```
/// use cuprite_array::signal::tf2ss;
/// // (s + 3) / (s^2 + 3 s + 2)
/// let s = tf2ss(&[1.0, 3.0], &[1.0, 3.0, 2.0])?;
/// assert_eq!(s.a, [-3.0, -2.0, 1.0, 0.0]);
/// assert_eq!((s.b, s.c, s.d), (vec![1.0, 0.0], vec![1.0, 3.0], vec![0.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn tf2ss(b: &[f64], a: &[f64]) -> Result<StateSpace> {
    tf2ss_as("tf2ss", b, a)
}

/// [`tf2ss`], its errors naming the call `what`.
fn tf2ss_as(what: &str, b: &[f64], a: &[f64]) -> Result<StateSpace> {
    let (num, den) = normalize_as(what, b, a)?;
    let (m, k) = (num.len(), den.len());
    if m > k {
        return Err(Error::InvalidArgument(format!(
            "{what}: the numerator {num:?} is longer than the denominator {den:?} (normalised): \
             an improper transfer function"
        )));
    }
    let mut padded = vec![0.0; k - m];
    padded.extend(&num);
    if k == 1 {
        return Ok(StateSpace {
            a: vec![0.0],
            b: vec![0.0],
            c: vec![0.0],
            d: vec![padded[0]],
            states: 1,
            inputs: 1,
            outputs: 1,
        });
    }
    let n = k - 1;
    let mut am = vec![0.0; n * n];
    for j in 0..n {
        am[j] = -den[j + 1];
    }
    for i in 1..n {
        am[i * n + i - 1] = 1.0;
    }
    let mut bm = vec![0.0; n];
    bm[0] = 1.0;
    let cm = (0..n)
        .map(|j| padded[j + 1] - padded[0] * den[j + 1])
        .collect();
    Ok(StateSpace {
        a: am,
        b: bm,
        c: cm,
        d: vec![padded[0]],
        states: n,
        inputs: 1,
        outputs: 1,
    })
}

/// The characteristic polynomial `det(s I - m)` of `m` (`n x n`): the monic polynomial of its
/// eigenvalues, real parts.
fn char_poly(m: &[f64], n: usize) -> Result<Vec<f64>> {
    if n == 0 {
        return Ok(vec![1.0]);
    }
    let arr = Array::from_slice_on(Device::CPU, m, &[n, n])?;
    let w = crate::linalg::eigvals(&arr)?.to_vec()?;
    Ok(expand(&w).into_iter().map(|v| v.re).collect())
}

/// The transfer functions from input `input` of `sys` to each output (SciPy's `ss2tf(A, B,
/// C, D, input)`): the common denominator `det(s I - A)` and, for output `k`, the numerator
/// `det(s I - A + B_input C_k) + (D_k,input - 1) det(s I - A)`, each of `states + 1`
/// coefficients (descending powers).
///
/// # Errors
/// `input` not below `sys.inputs`; a system whose matrices do not match its dimensions, with
/// an entry not finite or a dimension above [`LTI_MAX_ORDER`]. Each named.
///
/// ```
/// use cuprite_array::signal::{ss2tf, tf2ss};
/// let (num, den) = ss2tf(&tf2ss(&[1.0, 3.0], &[1.0, 3.0, 2.0])?, 0)?;
/// assert!((den[1] - 3.0).abs() < 1e-12 && (den[2] - 2.0).abs() < 1e-12);
/// assert!(num[0][0].abs() < 1e-12 && (num[0][1] - 1.0).abs() < 1e-12 && (num[0][2] - 3.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ss2tf(sys: &StateSpace, input: usize) -> Result<(Vec<Vec<f64>>, Vec<f64>)> {
    ss2tf_as("ss2tf", sys, input)
}

/// [`ss2tf`], its errors naming the call `what`.
fn ss2tf_as(what: &str, sys: &StateSpace, input: usize) -> Result<(Vec<Vec<f64>>, Vec<f64>)> {
    sys.check(what)?;
    let (n, m, p) = (sys.states, sys.inputs, sys.outputs);
    if input >= m {
        return Err(Error::InvalidArgument(format!(
            "{what}: the input {input} does not exist (the system has {m} inputs)"
        )));
    }
    let den = char_poly(&sys.a, n)?;
    let mut nums = Vec::with_capacity(p);
    for k in 0..p {
        // A - B[:, input] C[k, :]
        let mut am = sys.a.clone();
        for i in 0..n {
            for j in 0..n {
                am[i * n + j] -= sys.b[i * m + input] * sys.c[k * n + j];
            }
        }
        let dk = sys.d[k * m + input];
        let num = char_poly(&am, n)?
            .iter()
            .zip(&den)
            .map(|(v, d)| v + (dk - 1.0) * d)
            .collect();
        nums.push(num);
    }
    Ok((nums, den))
}

/// The state-space form of zeros, poles and gain (SciPy's `zpk2ss`): [`zpk2tf`], then
/// [`tf2ss`].
///
/// # Errors
/// Those of [`zpk2tf`] and [`tf2ss`], named.
///
/// ```
/// use cuprite_array::{c64, signal::{ZerosPolesGain, zpk2ss}};
/// let f = ZerosPolesGain { zeros: vec![], poles: vec![c64::new(-2.0, 0.0)], gain: 4.0 };
/// let s = zpk2ss(&f)?;
/// assert_eq!((s.a, s.b, s.c, s.d), (vec![-2.0], vec![1.0], vec![4.0], vec![0.0]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn zpk2ss(f: &ZerosPolesGain) -> Result<StateSpace> {
    let (b, a) = zpk2tf(f)?;
    tf2ss_as("zpk2ss", &b, &a)
}

/// The zeros, poles and gain of a one-output system from input `input` (SciPy's `ss2zpk`):
/// [`ss2tf`], then [`tf2zpk`].
///
/// # Errors
/// A system with other than one output, and those of [`ss2tf`] and [`tf2zpk`], named.
///
/// ```
/// use cuprite_array::signal::{ss2zpk, tf2ss};
/// let f = ss2zpk(&tf2ss(&[2.0, 6.0], &[1.0, 3.0, 2.0])?, 0)?;
/// assert!((f.gain - 2.0).abs() < 1e-12 && (f.zeros[0].re + 3.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn ss2zpk(sys: &StateSpace, input: usize) -> Result<ZerosPolesGain> {
    if sys.outputs != 1 {
        return Err(Error::InvalidArgument(format!(
            "ss2zpk: the system has {} outputs; zeros, poles and gain describe one",
            sys.outputs
        )));
    }
    let (num, den) = ss2tf_as("ss2zpk", sys, input)?;
    let num = num.into_iter().next().unwrap_or_default();
    tf2zpk(&num, &den)
}

/// How [`cont2discrete`] maps a continuous system to a discrete one (SciPy's `method`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Discretization {
    /// Zero-order hold: the input held over each step (SciPy's default). `A_d = e^(A dt)`,
    /// `B_d = int_0^dt e^(A t) dt B`, from one exponential of `[[A, B], [0, 0]] dt`.
    #[default]
    Zoh,
    /// First-order hold: the input interpolated linearly over each step, from the exponential
    /// of `[[A dt, B dt, 0], [0, 0, I], [0, 0, 0]]`.
    Foh,
    /// The bilinear (Tustin) transform: [`Discretization::Gbt`] with `alpha = 0.5`.
    Bilinear,
    /// Euler's forward difference: [`Discretization::Gbt`] with `alpha = 0`.
    Euler,
    /// The backward difference: [`Discretization::Gbt`] with `alpha = 1`.
    BackwardDiff,
    /// The generalised bilinear transform with `alpha` in `[0, 1]`: `A_d = (I - alpha dt
    /// A)^-1 (I + (1 - alpha) dt A)`, `B_d = (I - alpha dt A)^-1 dt B`, `C_d = C (I - alpha
    /// dt A)^-1`, `D_d = D + alpha C B_d`.
    Gbt(f64),
    /// Impulse invariance for a strictly proper system (`D = 0`): `A_d = e^(A dt)`, `B_d =
    /// A_d B dt`, `D_d = C B dt`.
    Impulse,
}

/// The discrete system that `method` makes of the continuous system `sys` with the step `dt`
/// (SciPy's `cont2discrete((A, B, C, D), dt, method, alpha)`), of the same dimensions.
///
/// # Errors
/// `dt` not positive and finite; a [`Discretization::Gbt`] `alpha` outside `[0, 1]`; a `D`
/// not all zeros (beyond `1e-8`) for [`Discretization::Impulse`]; `I - alpha dt A` singular;
/// an exponential that overflows, or whose block (`states + inputs` for zoh, `states + 2
/// inputs` for foh) exceeds [`LTI_MAX_ORDER`]; and those of the system's checks. Each named.
///
/// ```
/// use cuprite_array::signal::{Discretization, cont2discrete, tf2ss};
/// // 1 / (s + 1) held over dt = 0.5: a = e^-0.5, b = 1 - e^-0.5.
/// let d = cont2discrete(&tf2ss(&[1.0], &[1.0, 1.0])?, 0.5, Discretization::Zoh)?;
/// assert!((d.a[0] - (-0.5f64).exp()).abs() < 1e-15);
/// assert!((d.b[0] - (1.0 - (-0.5f64).exp())).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cont2discrete(sys: &StateSpace, dt: f64, method: Discretization) -> Result<StateSpace> {
    let what = "cont2discrete";
    sys.check(what)?;
    if !(dt > 0.0 && dt.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the step dt = {dt} must be positive and finite"
        )));
    }
    let (n, m, p) = (sys.states, sys.inputs, sys.outputs);
    let overflow = || {
        Error::InvalidArgument(format!(
            "{what}: the matrix exponential for dt = {dt} overflows or is singular"
        ))
    };
    // The exponential's block: `n + m` (zoh), `n + 2m` (foh) or `n` square, at most
    // LTI_MAX_ORDER so that its cubic cost stays bounded.
    let block = match method {
        Discretization::Zoh => n + m,
        Discretization::Foh => n + 2 * m,
        _ => n,
    };
    if block > LTI_MAX_ORDER {
        return Err(Error::InvalidArgument(format!(
            "{what}: {method:?} needs a {block} x {block} matrix exponential for {n} states and \
             {m} inputs, more than {LTI_MAX_ORDER} (LTI_MAX_ORDER)"
        )));
    }
    let mut out = sys.clone();
    match method {
        Discretization::Bilinear => return cont2discrete(sys, dt, Discretization::Gbt(0.5)),
        Discretization::Euler => return cont2discrete(sys, dt, Discretization::Gbt(0.0)),
        Discretization::BackwardDiff => return cont2discrete(sys, dt, Discretization::Gbt(1.0)),
        Discretization::Gbt(alpha) => {
            if !(0.0..=1.0).contains(&alpha) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: the gbt parameter alpha = {alpha} must lie in [0, 1]"
                )));
            }
            let mut ima = eye(n);
            let mut ipa = eye(n);
            for (i, &v) in sys.a.iter().enumerate() {
                ima[i] -= alpha * dt * v;
                ipa[i] += (1.0 - alpha) * dt * v;
            }
            let singular = || {
                Error::InvalidArgument(format!(
                    "{what}: I - alpha dt A is singular for alpha = {alpha}, dt = {dt}"
                ))
            };
            out.a = solve(&ima, &ipa, n, n).ok_or_else(singular)?;
            let bdt: Vec<f64> = sys.b.iter().map(|v| v * dt).collect();
            out.b = solve(&ima, &bdt, n, m).ok_or_else(singular)?;
            let ct = solve(&transpose(&ima, n, n), &transpose(&sys.c, p, n), n, p)
                .ok_or_else(singular)?;
            out.c = transpose(&ct, n, p);
            let cb = matmul(&sys.c, &out.b, p, n, m);
            out.d = sys.d.iter().zip(&cb).map(|(d, v)| d + alpha * v).collect();
        }
        Discretization::Zoh => {
            let (phi, g0, _) = hold_maps(sys, dt, false).ok_or_else(overflow)?;
            out.a = phi;
            out.b = g0;
        }
        Discretization::Foh => {
            // The state x - Γ1 u turns the two input maps into one: B = Γ0 + Φ Γ1, D += C Γ1.
            let (phi, g0, g1) = hold_maps(sys, dt, true).ok_or_else(overflow)?;
            let pg1 = matmul(&phi, &g1, n, n, m);
            out.b = (0..n * m).map(|i| g0[i] + pg1[i]).collect();
            let cg1 = matmul(&sys.c, &g1, p, n, m);
            out.d = sys.d.iter().zip(&cg1).map(|(d, v)| d + v).collect();
            out.a = phi;
        }
        Discretization::Impulse => {
            if let Some(v) = sys.d.iter().find(|v| v.abs() > 1e-8) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: the impulse method takes a strictly proper system (D = 0), but D \
                     has the entry {v}"
                )));
            }
            let adt: Vec<f64> = sys.a.iter().map(|v| v * dt).collect();
            out.a = expm(&adt, n).ok_or_else(overflow)?;
            out.b = matmul(&out.a, &sys.b, n, n, m)
                .into_iter()
                .map(|v| v * dt)
                .collect();
            out.d = matmul(&sys.c, &sys.b, p, n, m)
                .into_iter()
                .map(|v| v * dt)
                .collect();
        }
    }
    Ok(out)
}

/// [`cont2discrete`] of the transfer function `(b, a)` (SciPy's `cont2discrete((b, a), dt,
/// method)`): [`tf2ss`], the discretisation, then [`ss2tf`], as `(b, a)` of the discrete
/// system (descending powers of `z`, equally of `z^-1`).
///
/// # Errors
/// Those of [`tf2ss`] and [`cont2discrete`], named.
///
/// ```
/// use cuprite_array::signal::{Discretization, cont2discrete_tf};
/// // 1 / (s + 1) by Tustin at dt = 1: (z + 1) / (3 z - 1).
/// let (b, a) = cont2discrete_tf(&[1.0], &[1.0, 1.0], 1.0, Discretization::Bilinear)?;
/// assert!((b[0] - 1.0 / 3.0).abs() < 1e-15 && (b[1] - 1.0 / 3.0).abs() < 1e-15);
/// assert!((a[1] + 1.0 / 3.0).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn cont2discrete_tf(
    b: &[f64],
    a: &[f64],
    dt: f64,
    method: Discretization,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let d = cont2discrete(&tf2ss_as("cont2discrete", b, a)?, dt, method)?;
    let (num, den) = ss2tf_as("cont2discrete", &d, 0)?;
    Ok((num.into_iter().next().unwrap_or_default(), den))
}

/// One step `dt` of the continuous system's state under an input held over the step (`foh`
/// false) or varying linearly across it: `(Φ, Γ0, Γ1)` with `x(t + dt) = Φ x(t) + Γ0 u(t) +
/// Γ1 u(t + dt)` (`Γ1` zero for a held input), row-major, from one exponential of
/// `[[A dt, B dt], [0, 0]]` or `[[A dt, B dt, 0], [0, 0, I], [0, 0, 0]]`. `None` when the
/// exponential overflows.
pub(super) fn hold_maps(
    sys: &StateSpace,
    dt: f64,
    foh: bool,
) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let (n, m) = (sys.states, sys.inputs);
    let s = if foh { n + 2 * m } else { n + m };
    let mut em = vec![0.0; s * s];
    for i in 0..n {
        for j in 0..n {
            em[i * s + j] = sys.a[i * n + j] * dt;
        }
        for j in 0..m {
            em[i * s + n + j] = sys.b[i * m + j] * dt;
        }
    }
    if foh {
        for i in 0..m {
            em[(n + i) * s + n + m + i] = 1.0;
        }
    }
    let ms = expm(&em, s)?;
    let block = |col: usize, cols: usize| -> Vec<f64> {
        (0..n * cols)
            .map(|i| ms[(i / cols) * s + col + i % cols])
            .collect()
    };
    let phi = block(0, n);
    if !foh {
        return Some((phi, block(n, m), vec![0.0; n * m]));
    }
    let (whole, slope) = (block(n, m), block(n + m, m));
    let g0 = whole.iter().zip(&slope).map(|(w, s)| w - s).collect();
    Some((phi, g0, slope))
}
