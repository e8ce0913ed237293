//! SciPy's general IIR designers (`iirfilter`, `iirdesign`, `band_stop_obj`), its
//! `BadCoefficients` condition (`bad_coefficients`), its system
//! objects (`lti`, `dlti`, `TransferFunction`, `ZerosPolesGain`, `StateSpace` as
//! `signal::Lti`) and its transform objects (`CZT`, `ZoomFFT` as `signal::Czt`), against
//! SciPy 1.17.1's values for the same inputs (`data/scipy-signal.txt`, written by
//! `data/scipy_signal.py`). The system tests run on the host; the transform objects run on
//! every backend.

use crate::common::{Body, assert_err, close, reference_in};
use cuprite_array::dtype::c64;
use cuprite_array::signal::{
    BandType, Czt, Discretization, IirDesignType, IirFamily, Lti, StateSpace, SystemForm,
    ZerosPolesGain, bad_coefficients, band_stop_obj, iirdesign, iirfilter, normalize, zpk2tf,
};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Test, TestResult};

fn reference(name: &str) -> Vec<f64> {
    reference_in(&[include_str!("data/scipy-signal.txt")], name)
}

/// Complex values as interleaved real and imaginary parts, as the reference file keeps them.
fn parts(v: &[c64]) -> Vec<f64> {
    v.iter().flat_map(|z| [z.re, z.im]).collect()
}

/// Complex values sorted as NumPy's `sort_complex`: by real part, then imaginary part.
fn sorted(mut v: Vec<c64>) -> Vec<c64> {
    v.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
    v
}

fn ba(f: &ZerosPolesGain) -> cuprite_array::Result<Vec<f64>> {
    let (b, a) = zpk2tf(f)?;
    Ok(b.into_iter().chain(a).collect())
}

fn designs(_d: Device) -> TestResult {
    let f = iirfilter(
        IirFamily::Ellip { rp: 0.5, rs: 50.0 },
        4,
        [0.2, 0.45],
        BandType::Bandstop,
        false,
    )?;
    close(
        &ba(&f)?,
        &reference("iirfilter_ellip_bs_ba"),
        1e-9,
        1e-12,
        "iirfilter ellip band-stop",
    )?;
    let f = iirfilter(
        IirFamily::Cheby1 { rp: 1.0 },
        3,
        [2.0, 5.0],
        BandType::Bandpass,
        true,
    )?;
    let (b, a) = zpk2tf(&f)?;
    close(
        &b,
        &reference("iirfilter_cheby1_analog_b"),
        1e-10,
        1e-10,
        "iirfilter analog numerator",
    )?;
    close(
        &a,
        &reference("iirfilter_cheby1_analog_a"),
        1e-10,
        1e-10,
        "iirfilter analog denominator",
    )?;
    let types = [
        ("butter", IirDesignType::Butter),
        ("cheby1", IirDesignType::Cheby1),
        ("cheby2", IirDesignType::Cheby2),
        ("ellip", IirDesignType::Ellip),
    ];
    for (name, t) in types {
        let lp = iirdesign(0.2, 0.3, 1.0, 40.0, t)?;
        close(
            &ba(&lp)?,
            &reference(&format!("iirdesign_{name}_lp")),
            1e-7,
            1e-12,
            &format!("iirdesign {name} low-pass"),
        )?;
        let bp = iirdesign([0.2, 0.5], [0.1, 0.6], 0.5, 45.0, t)?;
        close(
            &ba(&bp)?,
            &reference(&format!("iirdesign_{name}_bp")),
            1e-7,
            1e-12,
            &format!("iirdesign {name} band-pass"),
        )?;
    }
    // A band-stop's passband edges come from a one-dimensional minimisation, which SciPy's
    // `fminbound` stops at `xtol = 1e-5` of the edge and this one at 1e-12 of the interval:
    // the designs agree to about 1e-5.
    let bs = iirdesign([0.1, 0.6], [0.2, 0.5], 1.0, 30.0, IirDesignType::Cheby2)?;
    close(
        &ba(&bs)?,
        &reference("iirdesign_cheby2_bs"),
        1e-4,
        1e-12,
        "iirdesign cheby2 band-stop",
    )?;
    let mut objs = Vec::new();
    for t in [
        IirDesignType::Butter,
        IirDesignType::Cheby1,
        IirDesignType::Ellip,
    ] {
        for (wp, i) in [(0.4, 0), (0.7, 0), (2.0, 1), (3.5, 1)] {
            objs.push(band_stop_obj(wp, i, [0.5, 3.0], [0.9, 1.5], 1.0, 40.0, t)?);
        }
    }
    close(
        &objs,
        &reference("band_stop_obj"),
        1e-12,
        1e-12,
        "band_stop_obj",
    )?;
    // SciPy's BadCoefficients condition and what normalize keeps, case by case.
    let cases: [(&[f64], &[f64]); 6] = [
        (&[1.0, 2.0], &[2.0, 1.0]),
        (&[1e-15, 2.0, 4.0], &[1.0, 2.0, 1.0]),
        (&[0.0, 0.0, 3.0], &[0.0, 4.0, 1.0]),
        (&[2e-14, 1.0], &[4.0]),
        (&[0.0, 1e-16], &[1.0]),
        (&[1e-13, 1.0], &[1.0, 3.0]),
    ];
    let mut seen = Vec::new();
    for (b, a) in cases {
        let bad = bad_coefficients(b, a)?;
        let (nb, _) = normalize(b, a)?;
        if let Some(f) = bad {
            if nb.len() != b.len() - f.dropped {
                return Err(format!("{b:?}: {f:?} but normalize kept {nb:?}").into());
            }
        }
        seen.extend([f64::from(u8::from(bad.is_some())), nb.len() as f64]);
    }
    close(
        &seen,
        &reference("bad_coefficients"),
        0.0,
        0.0,
        "bad_coefficients",
    )?;
    assert_err(
        bad_coefficients(&[1.0], &[0.0, 0.0]),
        "InvalidArgument",
        "no non-zero",
    );
    assert_err(
        iirdesign(0.3, 0.2, 40.0, 1.0, IirDesignType::Ellip),
        "InvalidArgument",
        "gpass = 40",
    );
    assert_err(
        iirfilter(IirFamily::Butter, 2, 1.5, BandType::Lowpass, false),
        "InvalidArgument",
        "1.5",
    );
    assert_err(
        band_stop_obj(
            0.4,
            2,
            [0.5, 3.0],
            [0.9, 1.5],
            1.0,
            40.0,
            IirDesignType::Butter,
        ),
        "InvalidArgument",
        "ind = 2",
    );
    assert_err(
        band_stop_obj(
            f64::NAN,
            0,
            [0.5, 3.0],
            [0.9, 1.5],
            1.0,
            40.0,
            IirDesignType::Butter,
        ),
        "InvalidArgument",
        "NaN",
    );
    Ok(())
}

fn systems(_d: Device) -> TestResult {
    let sys = Lti::tf(&[1.0, 3.0], &[1.0, 2.0, 5.0, 4.0])?;
    close(
        &parts(&sorted(sys.poles()?)),
        &reference("lti_poles"),
        1e-12,
        1e-12,
        "lti poles",
    )?;
    let zeros = sys.zeros()?;
    if zeros.iter().any(|z| z.im != 0.0) {
        return Err(format!("lti zeros {zeros:?}: expected a real zero").into());
    }
    close(
        &zeros.iter().map(|z| z.re).collect::<Vec<_>>(),
        &reference("lti_zeros"),
        1e-12,
        1e-12,
        "lti zeros",
    )?;
    let ss = sys.to_ss()?;
    let SystemForm::Ss(m) = ss.form() else {
        return Err("to_ss gave another form".into());
    };
    for (name, got) in [("A", &m.a), ("B", &m.b), ("C", &m.c), ("D", &m.d)] {
        close(
            got,
            &reference(&format!("lti_ss_{name}")),
            1e-12,
            1e-12,
            &format!("lti to_ss {name}"),
        )?;
    }
    // The state-space form has the same poles, through its own path.
    close(
        &parts(&sorted(ss.poles()?)),
        &reference("lti_poles"),
        1e-10,
        1e-12,
        "poles of the state-space form",
    )?;
    let d = sys.to_discrete(0.1, Discretization::Bilinear)?;
    let SystemForm::Tf(f) = d.form() else {
        return Err("to_discrete changed the form".into());
    };
    let nd: Vec<f64> = f.num.iter().chain(&f.den).copied().collect();
    close(
        &nd,
        &reference("lti_disc_bilinear"),
        1e-10,
        1e-12,
        "bilinear discretisation",
    )?;
    let zpk = Lti::zpk(ZerosPolesGain {
        zeros: vec![c64::new(-3.0, 0.0)],
        poles: vec![c64::new(-1.0, 0.0), c64::new(-2.0, 0.0)],
        gain: 2.0,
    })?;
    let dz = zpk.to_discrete(0.2, Discretization::Zoh)?;
    let SystemForm::Zpk(g) = dz.form() else {
        return Err("to_discrete changed the form".into());
    };
    close(
        &parts(&sorted(g.zeros.clone())),
        &reference("lti_zpk_disc_zoh_z"),
        1e-10,
        1e-12,
        "zoh zeros",
    )?;
    close(
        &parts(&sorted(g.poles.clone())),
        &reference("lti_zpk_disc_zoh_p"),
        1e-10,
        1e-12,
        "zoh poles",
    )?;
    close(
        &[g.gain],
        &reference("lti_zpk_disc_zoh_k"),
        1e-10,
        1e-12,
        "zoh gain",
    )?;
    let t: Vec<f64> = (0..26).map(|k| k as f64 * 0.2).collect();
    let (_, y) = sys.impulse(None, Some(&t), 0)?;
    close(&y[0], &reference("lti_impulse"), 1e-9, 1e-12, "impulse")?;
    let (_, y) = sys.step(None, Some(&t), 0)?;
    close(&y[0], &reference("lti_step"), 1e-9, 1e-12, "step")?;
    let u: Vec<f64> = t.iter().map(|t| t.sin()).collect();
    let r = sys.output(&u, Some(&t), None)?;
    close(&r.y, &reference("lti_output"), 1e-9, 1e-12, "output")?;
    let (_, mag, phase) = sys.bode(&[0.1, 1.0, 3.0])?;
    let mp: Vec<f64> = mag.into_iter().chain(phase).collect();
    close(&mp, &reference("lti_bode"), 1e-10, 1e-12, "bode")?;

    let dsys = Lti::tf(&[0.2, 0.1], &[1.0, -1.1, 0.5])?.discrete(0.05)?;
    let (t, y) = dsys.impulse(None, None, 8)?;
    close(
        &y[0],
        &reference("dlti_impulse"),
        1e-12,
        1e-14,
        "dlti impulse",
    )?;
    if (t[7] - 0.35).abs() > 1e-12 {
        return Err(format!("dlti impulse times end at {}, expected 0.35", t[7]).into());
    }
    let (_, y) = dsys.step(None, None, 8)?;
    close(&y[0], &reference("dlti_step"), 1e-12, 1e-14, "dlti step")?;
    let u: Vec<f64> = (0..8).map(|k| (k as f64).cos()).collect();
    let r = dsys.output(&u, None, None)?;
    close(&r.y, &reference("dlti_output"), 1e-12, 1e-14, "dlti output")?;
    let h = dsys.freqresp(&[0.1, 1.0, 2.5])?;
    close(
        &parts(&h),
        &reference("dlti_freqresp"),
        1e-12,
        1e-14,
        "dlti freqresp",
    )?;

    // Bad input: each an Err naming the value.
    assert_err(Lti::tf(&[1.0], &[0.0, 0.0]), "InvalidArgument", "Lti::tf");
    assert_err(
        Lti::zpk(ZerosPolesGain {
            zeros: vec![],
            poles: vec![c64::new(f64::NAN, 0.0)],
            gain: 1.0,
        }),
        "InvalidArgument",
        "NaN",
    );
    assert_err(
        Lti::ss(StateSpace {
            a: vec![1.0; 3],
            states: 2,
            ..StateSpace::default()
        }),
        "InvalidArgument",
        "3 entries",
    );
    assert_err(sys.clone().discrete(-1.0), "InvalidArgument", "dt = -1");
    assert_err(
        dsys.to_discrete(0.1, Discretization::Zoh),
        "InvalidArgument",
        "already discrete",
    );
    assert_err(sys.output(&u, None, None), "InvalidArgument", "times");
    assert_err(
        dsys.impulse(None, Some(&[0.0, 1.0]), 2),
        "InvalidArgument",
        "dt = 0.05",
    );
    let mimo = Lti::ss(StateSpace {
        a: vec![-1.0],
        b: vec![1.0, 1.0],
        c: vec![1.0],
        d: vec![0.0, 0.0],
        states: 1,
        inputs: 2,
        outputs: 1,
    })?;
    assert_err(mimo.to_tf(), "InvalidArgument", "2 inputs");
    assert_eq!(mimo.poles()?, vec![c64::new(-1.0, 0.0)]);
    Ok(())
}

fn transforms(d: Device) -> TestResult {
    let x: Vec<f64> = (0..12)
        .map(|i| (0.7 * i as f64).sin() + 0.3 * (2.1 * i as f64).cos())
        .collect();
    let xa = Array::from_slice_on(d, &x, &[12])?;
    let w = c64::from_polar(1.01, -0.23);
    let a = c64::from_polar(0.9, 0.4);
    let t = Czt::new(12, 7, w, a)?;
    close(
        &parts(&t.apply(&xa, 0)?.to_vec()?),
        &reference("czt_obj"),
        1e-10,
        1e-12,
        "CZT object",
    )?;
    // The same object on a batch: each row as alone.
    let two: Vec<f64> = x.iter().chain(x.iter().rev()).copied().collect();
    let rows = t
        .apply(&Array::from_slice_on(d, &two, &[2, 12])?, -1)?
        .to_vec()?;
    close(
        &parts(&rows[..7]),
        &reference("czt_obj"),
        1e-10,
        1e-12,
        "CZT object, first row of two",
    )?;
    let z = Czt::zoom(12, [0.1, 0.3], 9, 1.0, true)?;
    close(
        &parts(&z.apply(&xa, 0)?.to_vec()?),
        &reference("zoomfft_obj"),
        1e-10,
        1e-12,
        "ZoomFFT object",
    )?;
    assert_err(t.apply(&rows_of(d, 11)?, 0), "InvalidArgument", "11 points");
    assert_err(Czt::new(0, 3, w, a), "InvalidArgument", "n 0");
    assert_err(
        Czt::zoom(8, [0.3, f64::INFINITY], 4, 1.0, false),
        "InvalidArgument",
        "[0.3, inf]",
    );
    Ok(())
}

fn rows_of(d: Device, n: usize) -> cuprite_array::Result<Array<f64>> {
    Array::from_slice_on(d, &vec![1.0; n], &[n])
}

pub const BODIES: &[(&str, Body)] = &[("transforms", transforms)];

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::cpu("cpu::signal_systems::designs".to_string(), || {
            designs(Device::CPU)
        }),
        Test::cpu("cpu::signal_systems::systems".to_string(), || {
            systems(Device::CPU)
        }),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::signal_systems::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::signal_systems::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
