//! Time and frequency responses of linear systems in state-space form (SciPy's `lsim`,
//! `impulse`, `step`, `freqresp`, `bode` for continuous systems and `dlsim`, `dimpulse`,
//! `dstep`, `dfreqresp`, `dbode` for discrete ones), on the host in `f64`.
//!
//! A discrete system is stepped as it is defined. A continuous one is stepped exactly for
//! inputs held over each step (zero-order hold) or varying linearly across it (first-order
//! hold) on evenly spaced times: one matrix exponential of the block matrix of
//! [`Discretization::Zoh`](super::Discretization) or [`Discretization::Foh`] gives the state
//! map and the input maps, which then step the true state. Frequency responses evaluate
//! `C (s I - A)^-1 B + D` through the transfer function of [`ss2tf`], at `s = i w` or
//! `z = e^(i w)`.
//!
//! Responses are row-major: `y` holds `steps x outputs` values, `x` `steps x states`.

use super::convert::tf2zpk;
use super::statespace::{StateSpace, hold_maps, ss2tf};
use crate::dtype::c64;
use crate::error::{Error, Result};

/// The most time steps a simulation takes.
pub const SIM_MAX_STEPS: usize = 1 << 26;

/// A simulated response: the times, the outputs (`steps x outputs`, row-major) and the
/// states (`steps x states`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Response {
    /// The time of each step.
    pub t: Vec<f64>,
    /// The outputs, one row a step.
    pub y: Vec<f64>,
    /// The states, one row a step.
    pub x: Vec<f64>,
}

/// Checks a simulation's input `u` (`steps x inputs`), initial state and step count.
fn check_run(
    what: &str,
    sys: &StateSpace,
    u: &[f64],
    steps: usize,
    x0: Option<&[f64]>,
) -> Result<Vec<f64>> {
    sys.check(what)?;
    if steps == 0 || steps > SIM_MAX_STEPS {
        return Err(Error::InvalidArgument(format!(
            "{what}: {steps} steps; it takes 1..={SIM_MAX_STEPS}"
        )));
    }
    if u.len() != steps * sys.inputs {
        return Err(Error::Shape(format!(
            "{what}: {} input values for {steps} steps of {} inputs",
            u.len(),
            sys.inputs
        )));
    }
    if let Some(v) = u.iter().find(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: input value {v} is not finite"
        )));
    }
    match x0 {
        None => Ok(vec![0.0; sys.states]),
        Some(x) if x.len() != sys.states || x.iter().any(|v| !v.is_finite()) => {
            Err(Error::InvalidArgument(format!(
                "{what}: the initial state {x:?} needs {} finite values",
                sys.states
            )))
        }
        Some(x) => Ok(x.to_vec()),
    }
}

/// `y = C x + D u` appended to `out`.
fn output(sys: &StateSpace, x: &[f64], u: &[f64], out: &mut Vec<f64>) {
    for r in 0..sys.outputs {
        let cx: f64 = (0..sys.states)
            .map(|j| sys.c[r * sys.states + j] * x[j])
            .sum();
        let du: f64 = (0..sys.inputs)
            .map(|j| sys.d[r * sys.inputs + j] * u[j])
            .sum();
        out.push(cx + du);
    }
}

/// `m x` (an `n x k` matrix times a `k`-vector).
fn apply(m: &[f64], x: &[f64], n: usize) -> Vec<f64> {
    let k = x.len();
    (0..n)
        .map(|i| (0..k).map(|j| m[i * k + j] * x[j]).sum())
        .collect()
}

/// The discrete system `sys` of step `dt` driven by `u` (`steps x inputs`, row-major) from the
/// state `x0` (default zero): SciPy's `dlsim((A, B, C, D, dt), u, x0=x0)`, times `k dt`.
///
/// # Errors
/// The system's own errors, `dt` not finite and positive, an input of another length than
/// `steps x inputs` (steps from 1 to [`SIM_MAX_STEPS`]) or not finite, an initial state of
/// another length or not finite, each named.
///
/// ```
/// use cuprite_array::signal::{StateSpace, dlsim};
/// // x[k + 1] = 0.5 x[k] + u[k], y = x: the step response 0, 1, 1.5, 1.75.
/// let sys = StateSpace { a: vec![0.5], b: vec![1.0], c: vec![1.0], d: vec![0.0], states: 1, inputs: 1, outputs: 1 };
/// let r = dlsim(&sys, 0.1, &[1.0; 4], None)?;
/// assert_eq!(r.y, [0.0, 1.0, 1.5, 1.75]);
/// assert!((r.t[3] - 0.3).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dlsim(sys: &StateSpace, dt: f64, u: &[f64], x0: Option<&[f64]>) -> Result<Response> {
    let what = "dlsim";
    positive_step(what, dt)?;
    if sys.inputs == 0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: the system has no inputs to drive"
        )));
    }
    let steps = u.len() / sys.inputs;
    let mut x = check_run(what, sys, u, steps, x0)?;
    let n = sys.states;
    let mut r = Response {
        t: (0..steps).map(|k| k as f64 * dt).collect(),
        y: Vec::with_capacity(steps * sys.outputs),
        x: Vec::with_capacity(steps * n),
    };
    for k in 0..steps {
        let uk = &u[k * sys.inputs..(k + 1) * sys.inputs];
        r.x.extend_from_slice(&x);
        output(sys, &x, uk, &mut r.y);
        let ax = apply(&sys.a, &x, n);
        let bu = apply(&sys.b, uk, n);
        x = ax.iter().zip(&bu).map(|(a, b)| a + b).collect();
    }
    Ok(r)
}

fn positive_step(what: &str, dt: f64) -> Result<()> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the step dt = {dt} must be finite and positive"
        )));
    }
    Ok(())
}

/// The input of `steps` steps that is `value(k)` on input `j` and 0 on the others.
fn unit_input(sys: &StateSpace, j: usize, steps: usize, value: impl Fn(usize) -> f64) -> Vec<f64> {
    let mut u = vec![0.0; steps * sys.inputs];
    for k in 0..steps {
        u[k * sys.inputs + j] = value(k);
    }
    u
}

/// The responses of the discrete system `sys` (step `dt`) to a unit impulse on each input in
/// turn, over `steps` steps from the state `x0` (SciPy's `dimpulse(..., x0, n=steps)`): the
/// times and one `steps x outputs` response an input.
///
/// # Errors
/// As [`dlsim`], and a system without inputs, named.
///
/// ```
/// use cuprite_array::signal::{StateSpace, dimpulse};
/// let sys = StateSpace { a: vec![0.5], b: vec![1.0], c: vec![1.0], d: vec![0.0], states: 1, inputs: 1, outputs: 1 };
/// let (_, y) = dimpulse(&sys, 1.0, 4, None)?;
/// assert_eq!(y[0], [0.0, 1.0, 0.5, 0.25]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dimpulse(
    sys: &StateSpace,
    dt: f64,
    steps: usize,
    x0: Option<&[f64]>,
) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
    per_input("dimpulse", sys, steps, |j| {
        dlsim(
            sys,
            dt,
            &unit_input(sys, j, steps, |k| f64::from(u8::from(k == 0))),
            x0,
        )
    })
}

/// The responses of the discrete system `sys` (step `dt`) to a unit step on each input in
/// turn (SciPy's `dstep`), as [`dimpulse`] gives them.
///
/// # Errors
/// As [`dimpulse`].
///
/// ```
/// use cuprite_array::signal::{StateSpace, dstep};
/// let sys = StateSpace { a: vec![0.5], b: vec![1.0], c: vec![1.0], d: vec![0.0], states: 1, inputs: 1, outputs: 1 };
/// let (_, y) = dstep(&sys, 1.0, 4, None)?;
/// assert_eq!(y[0], [0.0, 1.0, 1.5, 1.75]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dstep(
    sys: &StateSpace,
    dt: f64,
    steps: usize,
    x0: Option<&[f64]>,
) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
    per_input("dstep", sys, steps, |j| {
        dlsim(sys, dt, &unit_input(sys, j, steps, |_| 1.0), x0)
    })
}

fn per_input(
    what: &str,
    sys: &StateSpace,
    steps: usize,
    run: impl Fn(usize) -> Result<Response>,
) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
    if sys.inputs == 0 || steps == 0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: a system of {} inputs over {steps} steps; it needs both",
            sys.inputs
        )));
    }
    let mut t = Vec::new();
    let mut ys = Vec::with_capacity(sys.inputs);
    for j in 0..sys.inputs {
        let r = run(j)?;
        t = r.t;
        ys.push(r.y);
    }
    Ok((t, ys))
}

/// The continuous system `sys` driven by `u` (`steps x inputs`, row-major) at the evenly
/// spaced times `t`, from the state `x0` (SciPy's `lsim(system, U, T, X0, interp)`): the input
/// varies linearly between the times with `interp` (first-order hold), or is held over each
/// step without. Exact for such inputs up to the matrix exponential's rounding.
///
/// # Errors
/// The system's own errors, times not finite, not increasing or not evenly spaced (to
/// `1e-9` of the step), fewer than one, an input of another length than `steps x inputs` or
/// not finite, an initial state of another length, or a matrix exponential that overflows,
/// each named.
///
/// ```
/// use cuprite_array::signal::{lsim, tf2ss};
/// // 1 / (s + 1) with a unit step: 1 - e^-t.
/// let sys = tf2ss(&[1.0], &[1.0, 1.0])?;
/// let t: Vec<f64> = (0..5).map(|k| k as f64 * 0.5).collect();
/// let r = lsim(&sys, &[1.0; 5], &t, None, true)?;
/// assert!(r.y.iter().zip(&t).all(|(y, t)| (y - (1.0 - (-t).exp())).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn lsim(
    sys: &StateSpace,
    u: &[f64],
    t: &[f64],
    x0: Option<&[f64]>,
    interp: bool,
) -> Result<Response> {
    let what = "lsim";
    let steps = t.len();
    let mut x = check_run(what, sys, u, steps, x0)?;
    if t.iter().any(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the times hold a value that is not finite"
        )));
    }
    let dt = if steps > 1 { t[1] - t[0] } else { 0.0 };
    if steps > 1
        && (dt <= 0.0
            || t.windows(2)
                .any(|w| ((w[1] - w[0]) - dt).abs() > 1e-9 * dt.abs().max(f64::MIN_POSITIVE)))
    {
        return Err(Error::InvalidArgument(format!(
            "{what}: the times must increase in equal steps (the first step is {dt})"
        )));
    }
    let (n, m) = (sys.states, sys.inputs);
    let mut r = Response {
        t: t.to_vec(),
        y: Vec::with_capacity(steps * sys.outputs),
        x: Vec::with_capacity(steps * n),
    };
    r.x.extend_from_slice(&x);
    output(sys, &x, &u[..m], &mut r.y);
    if steps == 1 {
        return Ok(r);
    }
    let (ad, b0, b1) = hold_maps(sys, dt, interp).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{what}: the matrix exponential for the step {dt} overflows"
        ))
    })?;
    for k in 1..steps {
        let (prev, cur) = (&u[(k - 1) * m..k * m], &u[k * m..(k + 1) * m]);
        let ax = apply(&ad, &x, n);
        let p = apply(&b0, prev, n);
        let q = apply(&b1, cur, n);
        x = (0..n).map(|i| ax[i] + p[i] + q[i]).collect();
        r.x.extend_from_slice(&x);
        output(sys, &x, cur, &mut r.y);
    }
    Ok(r)
}

/// SciPy's default response times for `sys`: `n` points from 0 to 7 time constants of its
/// slowest pole (`1 / min |Re p|`, 1 when that is 0).
fn default_times(what: &str, sys: &StateSpace, n: usize) -> Result<Vec<f64>> {
    if !(2..=SIM_MAX_STEPS).contains(&n) {
        return Err(Error::InvalidArgument(format!(
            "{what}: {n} time points; it takes 2..={SIM_MAX_STEPS}"
        )));
    }
    let (_, den) = ss2tf(sys, 0)?;
    let poles = tf2zpk(&[1.0], &den)?.poles;
    let r = poles
        .iter()
        .map(|p| p.re.abs())
        .fold(f64::INFINITY, f64::min);
    let r = if r == 0.0 || !r.is_finite() { 1.0 } else { r };
    let end = 7.0 / r;
    Ok((0..n).map(|k| end * k as f64 / (n - 1) as f64).collect())
}

/// The response of the single-input system `sys` to a unit impulse at `t = 0` (SciPy's
/// `impulse(system, X0, T, N)`): the free response from the state `B + x0`, at the times `t`
/// (default: `n` points over 7 time constants of the slowest pole). Returns the times and the
/// outputs (`steps x outputs`).
///
/// # Errors
/// A system with other than one input, the errors of [`lsim`], or `n` below 2 without times,
/// each named.
///
/// ```
/// use cuprite_array::signal::{impulse, tf2ss};
/// // 1 / (s + 2): e^(-2 t).
/// let (t, y) = impulse(&tf2ss(&[1.0], &[1.0, 2.0])?, None, None, 50)?;
/// assert!((t[49] - 3.5).abs() < 1e-12); // 7 / 2
/// assert!(y.iter().zip(&t).all(|(y, t)| (y - (-2.0 * t).exp()).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn impulse(
    sys: &StateSpace,
    x0: Option<&[f64]>,
    t: Option<&[f64]>,
    n: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "impulse";
    single_input(what, sys)?;
    let t = match t {
        Some(t) => t.to_vec(),
        None => default_times(what, sys, n)?,
    };
    let mut start: Vec<f64> = sys.b.clone();
    if let Some(x) = x0 {
        if x.len() != sys.states {
            return Err(Error::InvalidArgument(format!(
                "{what}: the initial state {x:?} needs {} values",
                sys.states
            )));
        }
        start.iter_mut().zip(x).for_each(|(s, v)| *s += v);
    }
    let r = lsim(sys, &vec![0.0; t.len()], &t, Some(&start), false)?;
    Ok((r.t, r.y))
}

/// The response of the single-input system `sys` to a unit step at `t = 0` from the state
/// `x0` (SciPy's `step(system, X0, T, N)`), at the times `t` or [`impulse`]'s default times.
///
/// # Errors
/// As [`impulse`].
///
/// ```
/// use cuprite_array::signal::{step, tf2ss};
/// let (t, y) = step(&tf2ss(&[1.0], &[1.0, 1.0])?, None, None, 20)?;
/// assert!(y.iter().zip(&t).all(|(y, t)| (y - (1.0 - (-t).exp())).abs() < 1e-12));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn step(
    sys: &StateSpace,
    x0: Option<&[f64]>,
    t: Option<&[f64]>,
    n: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let what = "step";
    single_input(what, sys)?;
    let t = match t {
        Some(t) => t.to_vec(),
        None => default_times(what, sys, n)?,
    };
    let r = lsim(sys, &vec![1.0; t.len()], &t, x0, false)?;
    Ok((r.t, r.y))
}

fn single_input(what: &str, sys: &StateSpace) -> Result<()> {
    if sys.inputs != 1 {
        return Err(Error::InvalidArgument(format!(
            "{what}: the system has {} inputs; it takes one",
            sys.inputs
        )));
    }
    Ok(())
}

/// `Σ c_k v^(d - k)` by Horner's rule.
fn horner(c: &[f64], v: c64) -> c64 {
    c.iter().fold(c64::new(0.0, 0.0), |acc, &x| acc * v + x)
}

/// The response `H(v)` of the single-input, single-output system at each `v` of `at`.
fn response(what: &str, sys: &StateSpace, at: impl Iterator<Item = c64>) -> Result<Vec<c64>> {
    single_input(what, sys)?;
    if sys.outputs != 1 {
        return Err(Error::InvalidArgument(format!(
            "{what}: the system has {} outputs; it takes one",
            sys.outputs
        )));
    }
    let (num, den) = ss2tf(sys, 0)?;
    let num = num.into_iter().next().unwrap_or_default();
    Ok(at.map(|v| horner(&num, v) / horner(&den, v)).collect())
}

fn check_freqs(what: &str, w: &[f64]) -> Result<()> {
    if w.is_empty() || w.iter().any(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the frequencies must be finite and at least one"
        )));
    }
    Ok(())
}

/// The frequency response `H(i w)` of the continuous single-input, single-output system at
/// the angular frequencies `w` (SciPy's `freqresp(system, w)`).
///
/// # Errors
/// A system with other than one input and one output, its own errors, or frequencies empty
/// or not finite, named.
///
/// ```
/// use cuprite_array::signal::{freqresp, tf2ss};
/// // 1 / (s + 1) at w = 1: 1 / (1 + i) = (1 - i) / 2.
/// let h = freqresp(&tf2ss(&[1.0], &[1.0, 1.0])?, &[1.0])?;
/// assert!((h[0].re - 0.5).abs() < 1e-15 && (h[0].im + 0.5).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn freqresp(sys: &StateSpace, w: &[f64]) -> Result<Vec<c64>> {
    check_freqs("freqresp", w)?;
    response("freqresp", sys, w.iter().map(|&w| c64::new(0.0, w)))
}

/// The frequency response `H(e^(i w))` of the discrete single-input, single-output system at
/// the frequencies `w` in radians a sample (SciPy's `dfreqresp(system, w)`).
///
/// # Errors
/// As [`freqresp`].
///
/// ```
/// use cuprite_array::signal::{StateSpace, dfreqresp};
/// // y[k] = x[k - 1] (a delay): H = e^(-i w).
/// let sys = StateSpace { a: vec![0.0], b: vec![1.0], c: vec![1.0], d: vec![0.0], states: 1, inputs: 1, outputs: 1 };
/// let h = dfreqresp(&sys, &[0.5])?;
/// assert!((h[0] - num_complex::Complex::from_polar(1.0, -0.5)).norm() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dfreqresp(sys: &StateSpace, w: &[f64]) -> Result<Vec<c64>> {
    check_freqs("dfreqresp", w)?;
    response("dfreqresp", sys, w.iter().map(|&w| c64::from_polar(1.0, w)))
}

/// The magnitude in dB and the unwrapped phase in degrees of responses `h`.
fn magnitude_phase(h: &[c64]) -> (Vec<f64>, Vec<f64>) {
    let mag = h.iter().map(|z| 20.0 * z.norm().log10()).collect();
    let mut phase: Vec<f64> = h.iter().map(|z| z.arg()).collect();
    // Unwrap: each jump of more than pi moved by a multiple of 2 pi (NumPy's `unwrap`).
    let tau = 2.0 * std::f64::consts::PI;
    let mut shift = 0.0;
    for k in 1..phase.len() {
        let d = phase[k] + shift - phase[k - 1];
        if d.abs() > std::f64::consts::PI {
            shift -= tau * (d / tau).round();
        }
        phase[k] += shift;
    }
    (mag, phase.iter().map(|p| p.to_degrees()).collect())
}

/// The Bode plot of the continuous single-input, single-output system at the angular
/// frequencies `w` (SciPy's `bode(system, w)`): magnitude in dB and phase in degrees,
/// unwrapped along `w`.
///
/// # Errors
/// As [`freqresp`].
///
/// ```
/// use cuprite_array::signal::{bode, tf2ss};
/// let (mag, phase) = bode(&tf2ss(&[1.0], &[1.0, 1.0])?, &[1.0])?;
/// assert!((mag[0] + 10.0 * 2f64.log10()).abs() < 1e-12 && (phase[0] + 45.0).abs() < 1e-12);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bode(sys: &StateSpace, w: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok(magnitude_phase(&freqresp(sys, w)?))
}

/// The Bode plot of the discrete single-input, single-output system of step `dt` at the
/// frequencies `w` in radians a sample (SciPy's `dbode(system, w)`): the frequencies in
/// radians a time unit (`w / dt`), the magnitude in dB and the unwrapped phase in degrees.
///
/// # Errors
/// As [`freqresp`], and `dt` not finite and positive, named.
///
/// ```
/// use cuprite_array::signal::{StateSpace, dbode};
/// let sys = StateSpace { a: vec![0.0], b: vec![1.0], c: vec![1.0], d: vec![0.0], states: 1, inputs: 1, outputs: 1 };
/// let (w, mag, phase) = dbode(&sys, 0.1, &[0.5, 3.0])?;
/// assert!((w[1] - 30.0).abs() < 1e-12 && mag[0].abs() < 1e-12);
/// assert!((phase[1] + 3.0f64.to_degrees()).abs() < 1e-9); // a delay's phase, unwrapped
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn dbode(sys: &StateSpace, dt: f64, w: &[f64]) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    positive_step("dbode", dt)?;
    let (mag, phase) = magnitude_phase(&dfreqresp(sys, w)?);
    Ok((w.iter().map(|w| w / dt).collect(), mag, phase))
}
