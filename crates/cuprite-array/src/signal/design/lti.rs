//! Linear time-invariant systems as one value (SciPy's `lti` and `dlti`, with their forms
//! `TransferFunction`, `ZerosPolesGain` and `StateSpace`), on the host in `f64`.
//!
//! An [`Lti`] holds one [`SystemForm`] and its time domain: continuous, or discrete with a
//! positive finite step `dt`. Its constructors check the form once (a transfer function is
//! [`normalize`](super::normalize)d, zeros, poles and gain are finite, a state-space system
//! passes [`StateSpace`]'s checks), so every method works on a valid system. The conversions
//! (`to_tf`, `to_zpk`, `to_ss`) keep the domain. The responses dispatch on the domain to the
//! continuous calls of [`simulate`](super::simulate) (`lsim`, `impulse`, `step`, `freqresp`,
//! `bode`) or their discrete twins, through the state-space form. A transfer function or
//! zeros, poles and gain describe one input and one output; a state-space system with several
//! outputs has no single set of zeros, and [`Lti::zeros`] says so.

use super::convert::{ZerosPolesGain, check_zpk, normalize_as, tf2zpk, zpk2tf};
use super::simulate::{
    Response, bode, dbode, dfreqresp, dimpulse, dlsim, dstep, freqresp, impulse, lsim, step,
};
use super::statespace::{Discretization, StateSpace, cont2discrete, ss2tf, ss2zpk, tf2ss, zpk2ss};
use crate::dtype::c64;
use crate::error::{Error, Result};

/// A transfer function `num(s) / den(s)` (or of `z`): coefficients of descending powers,
/// normalised so that `den[0] = 1` (SciPy's `TransferFunction`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransferFunction {
    /// The numerator's coefficients, highest power first.
    pub num: Vec<f64>,
    /// The denominator's coefficients, highest power first, `den[0] = 1`.
    pub den: Vec<f64>,
}

/// The form an [`Lti`] keeps its system in.
#[derive(Clone, Debug, PartialEq)]
pub enum SystemForm {
    /// Numerator and denominator (one input, one output).
    Tf(TransferFunction),
    /// Zeros, poles and gain (one input, one output).
    Zpk(ZerosPolesGain),
    /// The matrices `A`, `B`, `C`, `D`.
    Ss(StateSpace),
}

/// A linear time-invariant system: continuous (SciPy's `lti`) or discrete with the step `dt`
/// (SciPy's `dlti`), in one of three forms.
///
/// ```
/// use cuprite_array::signal::{Lti, SystemForm};
/// // 1 / (s^2 + 3 s + 2), poles -1 and -2.
/// let sys = Lti::tf(&[1.0], &[1.0, 3.0, 2.0])?;
/// let mut p: Vec<f64> = sys.poles()?.iter().map(|p| p.re).collect();
/// p.sort_by(f64::total_cmp);
/// assert!((p[0] + 2.0).abs() < 1e-12 && (p[1] + 1.0).abs() < 1e-12);
/// let ss = sys.to_ss()?;
/// assert!(matches!(ss.form(), SystemForm::Ss(s) if s.states == 2));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Lti {
    form: SystemForm,
    dt: Option<f64>,
}

/// The default number of time points of a continuous [`Lti::impulse`] or [`Lti::step`]
/// (SciPy's `N = 100`).
pub const LTI_DEFAULT_POINTS: usize = 100;

impl Lti {
    /// The continuous system `num(s) / den(s)`, normalised (SciPy's `lti(num, den)` and
    /// `TransferFunction`).
    ///
    /// # Errors
    /// As [`normalize`](super::normalize): a denominator of zeros, coefficients not finite,
    /// more than [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER) of them; each named.
    #[must_use = "the system is returned"]
    pub fn tf(num: &[f64], den: &[f64]) -> Result<Self> {
        let (num, den) = normalize_as("Lti::tf", num, den)?;
        Ok(Self::continuous(SystemForm::Tf(TransferFunction {
            num,
            den,
        })))
    }

    /// The continuous system of the zeros, poles and gain `f` (SciPy's `lti(z, p, k)` and
    /// `ZerosPolesGain`).
    ///
    /// # Errors
    /// A zero, pole or gain not finite, or more than [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER)
    /// zeros or poles; each named.
    #[must_use = "the system is returned"]
    pub fn zpk(f: ZerosPolesGain) -> Result<Self> {
        check_zpk("Lti::zpk", &f, false)?;
        Ok(Self::continuous(SystemForm::Zpk(f)))
    }

    /// The continuous state-space system `sys` (SciPy's `lti(A, B, C, D)` and `StateSpace`).
    ///
    /// # Errors
    /// Matrices of other lengths than the dimensions give, entries not finite, or a dimension
    /// above [`LTI_MAX_ORDER`](super::LTI_MAX_ORDER); each named.
    #[must_use = "the system is returned"]
    pub fn ss(sys: StateSpace) -> Result<Self> {
        sys.check("Lti::ss")?;
        Ok(Self::continuous(SystemForm::Ss(sys)))
    }

    fn continuous(form: SystemForm) -> Self {
        Self { form, dt: None }
    }

    /// The same system made discrete with the step `dt`: its form read as a system of `z`
    /// (SciPy's `dlti(..., dt=dt)`), not a discretisation ([`Lti::to_discrete`] is that).
    ///
    /// # Errors
    /// `dt` not positive and finite, named.
    ///
    /// ```
    /// use cuprite_array::signal::Lti;
    /// // y[k] = x[k - 1] + 0.5 y[k - 1]: 1 / (z - 0.5), impulse response 0, 1, 0.5, 0.25.
    /// let sys = Lti::tf(&[1.0], &[1.0, -0.5])?.discrete(0.1)?;
    /// let (t, y) = sys.impulse(None, None, 4)?;
    /// assert!((t[3] - 0.3).abs() < 1e-12);
    /// assert_eq!(y[0], [0.0, 1.0, 0.5, 0.25]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use = "the system is returned"]
    pub fn discrete(self, dt: f64) -> Result<Self> {
        check_step("Lti::discrete", dt)?;
        Ok(Self {
            form: self.form,
            dt: Some(dt),
        })
    }

    /// The system's form.
    #[must_use]
    pub fn form(&self) -> &SystemForm {
        &self.form
    }

    /// The step of a discrete system; `None` for a continuous one.
    #[must_use]
    pub fn dt(&self) -> Option<f64> {
        self.dt
    }

    /// The system's state-space form ([`tf2ss`], [`zpk2ss`]).
    fn state_space(&self) -> Result<StateSpace> {
        match &self.form {
            SystemForm::Tf(f) => tf2ss(&f.num, &f.den),
            SystemForm::Zpk(f) => zpk2ss(f),
            SystemForm::Ss(s) => Ok(s.clone()),
        }
    }

    /// The same system as a transfer function, in the same domain (SciPy's `to_tf`; a
    /// state-space system's through [`ss2tf`] of its only input and output).
    ///
    /// # Errors
    /// A state-space system with other than one input and one output, or zeros and poles
    /// that are not real or in conjugate pairs; each named.
    #[must_use = "the converted system is returned"]
    pub fn to_tf(&self) -> Result<Self> {
        let (num, den) = match &self.form {
            SystemForm::Tf(f) => (f.num.clone(), f.den.clone()),
            SystemForm::Zpk(f) => zpk2tf(f)?,
            SystemForm::Ss(s) => {
                siso("Lti::to_tf", s)?;
                let (mut num, den) = ss2tf(s, 0)?;
                (num.swap_remove(0), den)
            }
        };
        let (num, den) = normalize_as("Lti::to_tf", &num, &den)?;
        Ok(self.with(SystemForm::Tf(TransferFunction { num, den })))
    }

    /// The same system as zeros, poles and gain, in the same domain (SciPy's `to_zpk`).
    ///
    /// # Errors
    /// A state-space system with other than one input and one output, named.
    #[must_use = "the converted system is returned"]
    pub fn to_zpk(&self) -> Result<Self> {
        let f = match &self.form {
            SystemForm::Tf(f) => tf2zpk(&f.num, &f.den)?,
            SystemForm::Zpk(f) => f.clone(),
            SystemForm::Ss(s) => {
                siso("Lti::to_zpk", s)?;
                ss2zpk(s, 0)?
            }
        };
        Ok(self.with(SystemForm::Zpk(f)))
    }

    /// The same system in state-space form, in the same domain (SciPy's `to_ss`: the
    /// controller canonical form of [`tf2ss`]).
    ///
    /// # Errors
    /// Zeros and poles that are not real or in conjugate pairs, named.
    #[must_use = "the converted system is returned"]
    pub fn to_ss(&self) -> Result<Self> {
        Ok(self.with(SystemForm::Ss(self.state_space()?)))
    }

    fn with(&self, form: SystemForm) -> Self {
        Self { form, dt: self.dt }
    }

    /// The poles: the roots of the denominator, the given poles, or the eigenvalues of `A`
    /// (through the characteristic polynomial of [`ss2tf`]).
    ///
    /// # Errors
    /// None for a valid system beyond those of the root finder, which are named.
    #[must_use = "the poles are returned"]
    pub fn poles(&self) -> Result<Vec<c64>> {
        Ok(match &self.form {
            SystemForm::Tf(f) => tf2zpk(&[1.0], &f.den)?.poles,
            SystemForm::Zpk(f) => f.poles.clone(),
            SystemForm::Ss(s) => {
                if s.states == 0 {
                    return Ok(Vec::new());
                }
                // The characteristic polynomial of `A` alone: that of a probe with one
                // input and no coupling.
                let probe = StateSpace {
                    b: vec![0.0; s.states],
                    d: vec![0.0; s.outputs],
                    inputs: 1,
                    ..s.clone()
                };
                let (_, den) = ss2tf(&probe, 0)?;
                tf2zpk(&[1.0], &den)?.poles
            }
        })
    }

    /// The zeros (SciPy's `zeros`): the roots of the numerator, the given zeros, or those of
    /// a state-space system's only input and output.
    ///
    /// # Errors
    /// A state-space system with other than one input and one output, named.
    #[must_use = "the zeros are returned"]
    pub fn zeros(&self) -> Result<Vec<c64>> {
        Ok(match &self.form {
            SystemForm::Tf(f) => tf2zpk(&f.num, &f.den)?.zeros,
            SystemForm::Zpk(f) => f.zeros.clone(),
            SystemForm::Ss(s) => {
                siso("Lti::zeros", s)?;
                ss2zpk(s, 0)?.zeros
            }
        })
    }

    /// The continuous system discretised with the step `dt` by `method` (SciPy's
    /// `lti.to_discrete(dt, method)`, through [`cont2discrete`]), in the form it was in.
    ///
    /// # Errors
    /// A system that is already discrete, `dt` not positive and finite, and the errors of
    /// [`cont2discrete`] and of the conversion back; each named.
    ///
    /// ```
    /// use cuprite_array::signal::{Discretization, Lti, SystemForm};
    /// // 1 / (s + 1) held over steps of 0.1: (1 - e^-0.1) / (z - e^-0.1).
    /// let d = Lti::tf(&[1.0], &[1.0, 1.0])?.to_discrete(0.1, Discretization::Zoh)?;
    /// let e = (-0.1f64).exp();
    /// let SystemForm::Tf(f) = d.form() else { panic!("to_discrete keeps the form") };
    /// // The numerator's leading zero is dropped, as SciPy's normalisation drops it.
    /// assert_eq!(f.num.len(), 1);
    /// assert!((f.num[0] - (1.0 - e)).abs() < 1e-12 && (f.den[1] + e).abs() < 1e-12);
    /// assert_eq!(d.dt(), Some(0.1));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use = "the discrete system is returned"]
    pub fn to_discrete(&self, dt: f64, method: Discretization) -> Result<Self> {
        if let Some(had) = self.dt {
            return Err(Error::InvalidArgument(format!(
                "Lti::to_discrete: the system is already discrete (dt = {had})"
            )));
        }
        check_step("Lti::to_discrete", dt)?;
        let ss = Self {
            form: SystemForm::Ss(cont2discrete(&self.state_space()?, dt, method)?),
            dt: Some(dt),
        };
        match self.form {
            SystemForm::Tf(_) => ss.to_tf(),
            SystemForm::Zpk(_) => ss.to_zpk(),
            SystemForm::Ss(_) => Ok(ss),
        }
    }

    /// The response to the input `u` (`steps x inputs`, row-major) from the state `x0`
    /// (SciPy's `output`): a continuous system at the evenly spaced times `t`, the input
    /// varying linearly between them ([`lsim`]); a discrete system at its steps, `t` then
    /// `None` ([`dlsim`]).
    ///
    /// # Errors
    /// A continuous system without times, a discrete one with them, and the errors of
    /// [`lsim`] or [`dlsim`]; each named.
    #[must_use = "the response is returned"]
    pub fn output(&self, u: &[f64], t: Option<&[f64]>, x0: Option<&[f64]>) -> Result<Response> {
        let sys = self.state_space()?;
        match (self.dt, t) {
            (None, Some(t)) => lsim(&sys, u, t, x0, true),
            (Some(dt), None) => dlsim(&sys, dt, u, x0),
            (None, None) => Err(Error::InvalidArgument(
                "Lti::output: a continuous system needs the input's times".into(),
            )),
            (Some(dt), Some(t)) => Err(Error::InvalidArgument(format!(
                "Lti::output: a discrete system steps at its dt = {dt}; pass no times (got {})",
                t.len()
            ))),
        }
    }

    /// The impulse response from the state `x0` (SciPy's `impulse`): the times and one
    /// response (`steps x outputs`) an input. A continuous system (one input) at the times
    /// `t`, or `n` points over 7 time constants of its slowest pole ([`impulse`]); a discrete
    /// one over `n` steps, `t` then `None` ([`dimpulse`]).
    ///
    /// # Errors
    /// A discrete system with times, and the errors of [`impulse`] or [`dimpulse`]; each
    /// named.
    #[must_use = "the response is returned"]
    pub fn impulse(
        &self,
        x0: Option<&[f64]>,
        t: Option<&[f64]>,
        n: usize,
    ) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
        self.transient("Lti::impulse", x0, t, n, impulse, dimpulse)
    }

    /// The step response from the state `x0` (SciPy's `step`), laid out and dispatched as
    /// [`Lti::impulse`] ([`step`], [`dstep`]).
    ///
    /// # Errors
    /// A discrete system with times, and the errors of [`step`] or [`dstep`]; each named.
    ///
    /// ```
    /// use cuprite_array::signal::Lti;
    /// // 2 / (s + 2): 1 - e^(-2 t).
    /// let (t, y) = Lti::tf(&[2.0], &[1.0, 2.0])?.step(None, None, 20)?;
    /// assert!(y[0].iter().zip(&t).all(|(y, t)| (y - (1.0 - (-2.0 * t).exp())).abs() < 1e-12));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[must_use = "the response is returned"]
    pub fn step(
        &self,
        x0: Option<&[f64]>,
        t: Option<&[f64]>,
        n: usize,
    ) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
        self.transient("Lti::step", x0, t, n, step, dstep)
    }

    #[allow(clippy::type_complexity)]
    fn transient(
        &self,
        what: &str,
        x0: Option<&[f64]>,
        t: Option<&[f64]>,
        n: usize,
        cont: fn(
            &StateSpace,
            Option<&[f64]>,
            Option<&[f64]>,
            usize,
        ) -> Result<(Vec<f64>, Vec<f64>)>,
        disc: fn(&StateSpace, f64, usize, Option<&[f64]>) -> Result<(Vec<f64>, Vec<Vec<f64>>)>,
    ) -> Result<(Vec<f64>, Vec<Vec<f64>>)> {
        let sys = self.state_space()?;
        match (self.dt, t) {
            (None, t) => {
                let (t, y) = cont(&sys, x0, t, n)?;
                Ok((t, vec![y]))
            }
            (Some(dt), None) => disc(&sys, dt, n, x0),
            (Some(dt), Some(t)) => Err(Error::InvalidArgument(format!(
                "{what}: a discrete system steps at its dt = {dt}; pass no times (got {}) and \
                 the number of steps",
                t.len()
            ))),
        }
    }

    /// The frequency response at `w` (SciPy's `freqresp`): `H(i w)` at angular frequencies
    /// (rad/s) of a continuous system ([`freqresp`]), `H(e^(i w))` at rad/sample of a
    /// discrete one ([`dfreqresp`]). One input and one output.
    ///
    /// # Errors
    /// The errors of [`freqresp`] or [`dfreqresp`], named.
    #[must_use = "the response is returned"]
    pub fn freqresp(&self, w: &[f64]) -> Result<Vec<c64>> {
        let sys = self.state_space()?;
        match self.dt {
            None => freqresp(&sys, w),
            Some(_) => dfreqresp(&sys, w),
        }
    }

    /// The Bode magnitude (dB) and phase (degrees, unwrapped) at `w` (SciPy's `bode`): the
    /// frequencies, the magnitudes and the phases. A continuous system's frequencies are
    /// `w` (rad/s); a discrete one's `w` is in rad/sample and the frequencies returned are
    /// `w / dt` ([`dbode`]).
    ///
    /// # Errors
    /// The errors of [`bode`] or [`dbode`], named.
    ///
    /// ```
    /// use cuprite_array::signal::Lti;
    /// // 1 / (s + 1) at its corner: -3.01 dB, -45 degrees.
    /// let (_, mag, phase) = Lti::tf(&[1.0], &[1.0, 1.0])?.bode(&[1.0])?;
    /// assert!((mag[0] + 10.0 * 2f64.log10()).abs() < 1e-12 && (phase[0] + 45.0).abs() < 1e-12);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    #[allow(clippy::type_complexity)]
    #[must_use = "the response is returned"]
    pub fn bode(&self, w: &[f64]) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        let sys = self.state_space()?;
        match self.dt {
            None => {
                let (mag, phase) = bode(&sys, w)?;
                Ok((w.to_vec(), mag, phase))
            }
            Some(dt) => dbode(&sys, dt, w),
        }
    }
}

/// A step checked positive and finite for `what`.
fn check_step(what: &str, dt: f64) -> Result<()> {
    if !(dt > 0.0 && dt.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the step dt = {dt} must be positive and finite"
        )));
    }
    Ok(())
}

/// A state-space system checked to have one input and one output for `what`.
fn siso(what: &str, s: &StateSpace) -> Result<()> {
    if s.inputs != 1 || s.outputs != 1 {
        return Err(Error::InvalidArgument(format!(
            "{what}: the system has {} inputs and {} outputs; this form describes one of each",
            s.inputs, s.outputs
        )));
    }
    Ok(())
}
