//! The host routines of the signal family on random, degenerate and hostile inputs: short or
//! empty coefficient lists, zeros, repeated roots, huge, tiny and non-finite values, odd
//! parameters. Each call must return (`Ok` or `Err`) without panicking; the inputs of a
//! failing case are printed with the seed that replays it.

use cuprite_array::dtype::c64;
use cuprite_array::signal::{
    self, CombType, Discretization, GammatoneType, MinPhaseMethod, RootType, SosPairing,
    StateSpace, ZerosPolesGain,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A value: mostly ordinary, sometimes 0, ±1, a repeat, huge, tiny or not finite.
fn value(rng: &mut Rng, last: f64) -> f64 {
    match rng.next_u64() % 16 {
        0 => 0.0,
        1 => 1.0,
        2 => -1.0,
        3 => last,
        4 => 1e300,
        5 => 1e-300,
        6 if rng.next_u64() % 4 == 0 => f64::NAN,
        7 if rng.next_u64() % 4 == 0 => f64::INFINITY,
        _ => f64::from(rng.f32_in(-3.0, 3.0)),
    }
}

fn list(rng: &mut Rng, max: u64) -> Vec<f64> {
    let n = (rng.next_u64() % (max + 1)) as usize;
    let mut v = Vec::with_capacity(n);
    let mut last = 0.5;
    for _ in 0..n {
        last = value(rng, last);
        v.push(last);
    }
    v
}

fn roots(rng: &mut Rng, max: u64) -> Vec<c64> {
    let re = list(rng, max);
    re.iter()
        .map(|&r| {
            c64::new(
                r,
                if rng.next_u64() % 2 == 0 {
                    0.0
                } else {
                    value(rng, r)
                },
            )
        })
        .collect()
}

fn zpk(rng: &mut Rng) -> ZerosPolesGain {
    ZerosPolesGain {
        zeros: roots(rng, 4),
        poles: roots(rng, 5),
        gain: value(rng, 1.0),
    }
}

fn system(rng: &mut Rng) -> StateSpace {
    let (n, m, p) = (
        (rng.next_u64() % 4) as usize,
        (rng.next_u64() % 3) as usize,
        (rng.next_u64() % 3) as usize,
    );
    let mut mat = |k: usize| -> Vec<f64> {
        // Sometimes one entry too few, to reach the size checks.
        let k = if rng.next_u64() % 10 == 0 {
            k.saturating_sub(1)
        } else {
            k
        };
        let mut last = 0.3;
        (0..k)
            .map(|_| {
                last = value(rng, last);
                last
            })
            .collect()
    };
    StateSpace {
        a: mat(n * n),
        b: mat(n * m),
        c: mat(p * n),
        d: mat(p * m),
        states: n,
        inputs: m,
        outputs: p,
    }
}

/// One round of every host routine on fresh random inputs.
fn round(rng: &mut Rng) {
    let (b, a) = (list(rng, 5), list(rng, 5));
    let f = zpk(rng);
    let w = value(rng, 0.7);
    let _ = signal::tf2zpk(&b, &a);
    let _ = signal::zpk2tf(&f);
    let _ = signal::normalize(&b, &a);
    for p in [
        SosPairing::Nearest,
        SosPairing::KeepOdd,
        SosPairing::Minimal,
    ] {
        let _ = signal::zpk2sos(&f, p, false);
        let _ = signal::zpk2sos(&f, p, true);
        let _ = signal::tf2sos(&b, &a, p, false);
    }
    let _ = signal::lp2lp_zpk(&f, w);
    let _ = signal::lp2hp_zpk(&f, w);
    let _ = signal::lp2bp_zpk(&f, w, value(rng, 0.2));
    let _ = signal::lp2bs_zpk(&f, w, value(rng, 0.2));
    let _ = signal::bilinear_zpk(&f, value(rng, 2.0));
    let _ = signal::lp2lp(&b, &a, w);
    let _ = signal::lp2hp(&b, &a, w);
    let _ = signal::lp2bp(&b, &a, w, value(rng, 0.2));
    let _ = signal::lp2bs(&b, &a, w, value(rng, 0.2));
    let _ = signal::bilinear(&b, &a, value(rng, 2.0));
    let _ = signal::sos2tf(&[[b.first().copied().unwrap_or(1.0), 0.5, 0.1, 1.0, w, 0.2]]);
    let sys = system(rng);
    let _ = signal::tf2ss(&b, &a);
    let _ = signal::zpk2ss(&f);
    let _ = signal::ss2tf(&sys, (rng.next_u64() % 3) as usize);
    let _ = signal::ss2zpk(&sys, 0);
    let dt = value(rng, 0.1);
    for m in [
        Discretization::Zoh,
        Discretization::Foh,
        Discretization::Bilinear,
        Discretization::Euler,
        Discretization::BackwardDiff,
        Discretization::Gbt(value(rng, 0.5)),
        Discretization::Impulse,
    ] {
        let _ = signal::cont2discrete(&sys, dt, m);
    }
    let steps = (rng.next_u64() % 5) as usize;
    let u: Vec<f64> = (0..steps * sys.inputs).map(|_| value(rng, 0.1)).collect();
    let t: Vec<f64> = (0..steps).map(|k| k as f64 * 0.1).collect();
    let _ = signal::dlsim(&sys, dt, &u, None);
    let _ = signal::lsim(&sys, &u, &t, None, rng.next_u64() % 2 == 0);
    let _ = signal::impulse(&sys, None, None, (rng.next_u64() % 5) as usize);
    let _ = signal::step(&sys, None, Some(&t), 3);
    let _ = signal::dimpulse(&sys, dt, steps, None);
    let _ = signal::freqresp(&sys, &[w, 1.0]);
    let _ = signal::bode(&sys, &[w]);
    let _ = signal::dbode(&sys, dt, &[w]);
    let tol = value(rng, 1e-3);
    for rt in [RootType::Min, RootType::Max, RootType::Avg] {
        let _ = signal::residue(&b, &a, tol, rt);
        let _ = signal::residuez(&b, &a, tol, rt);
        let _ = signal::unique_roots(&f.poles, tol, rt);
    }
    let r = roots(rng, 3);
    let _ = signal::invres(&r, &f.poles, &b, tol);
    let _ = signal::invresz(&r, &f.poles, &b, tol);
    let _ = signal::freqs_zpk(&f, &[w, 2.0]);
    let _ = signal::freqz_zpk(&f, (rng.next_u64() % 6) as usize);
    let _ = signal::findfreqs(&b, &a, (rng.next_u64() % 6) as usize);
    let _ = signal::findfreqs_zpk(&f, 4);
    let fs = value(rng, 100.0);
    let _ = signal::iircomb(
        value(rng, 10.0),
        value(rng, 30.0),
        CombType::Notch,
        fs,
        true,
    );
    let _ = signal::iircomb(
        value(rng, 10.0),
        value(rng, 30.0),
        CombType::Peak,
        fs,
        false,
    );
    let _ = signal::gammatone(value(rng, 10.0), GammatoneType::Iir, fs);
    let order = (rng.next_u64() % 30) as usize;
    let _ = signal::gammatone(
        value(rng, 10.0),
        GammatoneType::Fir {
            order,
            numtaps: Some((rng.next_u64() % 40) as usize),
        },
        fs,
    );
    let h = list(rng, 9);
    for m in [MinPhaseMethod::Homomorphic, MinPhaseMethod::Hilbert] {
        let _ = signal::minimum_phase(&h, m, Some((rng.next_u64() % 70) as usize), true);
        let _ = signal::minimum_phase(&h, m, None, false);
    }
    let _ = signal::lfiltic(&b, &a, &h, Some(&b));
    let _ = signal::deconvolve(&b, &a);
    let _ = signal::sosfilt_zi(&[[1.0, w, 0.1, 1.0, value(rng, 0.5), 0.25]]);
    let bits = (rng.next_u64() % 40) as usize;
    let _ = signal::max_len_seq(bits, None, Some((rng.next_u64() % 50) as usize), None);
    let _ = signal::correlation_lags(steps, (rng.next_u64() % 4) as usize, signal::ConvMode::Same);
    let _ = signal::choose_conv_method(&[steps, 3], &[2, steps], signal::ConvMode::Valid);
    let _ = signal::czt_points(steps, c64::new(w, 0.1), c64::new(1.0, 0.0));
    let _ = signal::qmf(&h);
    let nper = (rng.next_u64() % 9) as usize;
    let _ = signal::check_cola(h.clone(), nper, (rng.next_u64() % 9) as usize, 1e-10);
    let _ = signal::check_nola(signal::Window::Hann, nper, nper / 2, 1e-10);
    let _ = signal::savgol_coeffs(
        (rng.next_u64() % 9) as usize,
        (rng.next_u64() % 6) as usize,
        signal::SavgolOpts::new(),
    );
    let _ = signal::firls(
        1 + 2 * (rng.next_u64() % 5) as usize,
        &[[0.0, w.abs().min(1.0)], [0.5, 1.0]],
        &[[1.0, 1.0], [0.0, 0.0]],
        &[],
    );
}

fn no_panics() -> TestResult {
    let seed = Rng::fresh().next_u64();
    let mut rng = Rng::seeded(seed);
    for k in 0..400 {
        let mut case = Rng::seeded(rng.next_u64());
        let copy = case.clone();
        if catch_unwind(AssertUnwindSafe(|| round(&mut case))).is_err() {
            return Err(format!(
                "round {k} panicked (seed {seed}; the round's generator {copy:?})"
            )
            .into());
        }
    }
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![Test::cpu("cpu::signal_robust::no_panics", no_panics)]
}
