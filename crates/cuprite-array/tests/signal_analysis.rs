//! The chirp z-transform (`czt`, `zoom_fft`, `czt_points`) and the Lomb-Scargle periodogram
//! against SciPy 1.17.1's values for the same inputs (each constant names the SciPy call
//! that produced it), the chirp z-transform at the FFT's points against the FFT, and their
//! bad inputs. Bodies run on every backend.

use crate::common::{Body, assert_err, close};
use cuprite_array::dtype::c64;
use cuprite_array::signal::{
    LombNorm, LombOpts, czt, czt_points, lombscargle, lombscargle_amplitude, lombscargle_with,
    zoom_fft,
};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Test, TestResult};
use std::f64::consts::PI;

fn split(v: &[c64]) -> (Vec<f64>, Vec<f64>) {
    (
        v.iter().map(|z| z.re).collect(),
        v.iter().map(|z| z.im).collect(),
    )
}

/// `got` against `want` (pairs of parts), each part within `tol` of the largest modulus.
fn close_c(got: &[c64], want: &[(f64, f64)], tol: f64, what: &str) -> TestResult {
    let scale = want.iter().map(|(a, b)| a.hypot(*b)).fold(0.0, f64::max);
    let (gr, gi) = split(got);
    let wr: Vec<f64> = want.iter().map(|p| p.0).collect();
    let wi: Vec<f64> = want.iter().map(|p| p.1).collect();
    close(&gr, &wr, 0.0, tol * scale, &format!("{what} (real parts)"))?;
    close(
        &gi,
        &wi,
        0.0,
        tol * scale,
        &format!("{what} (imaginary parts)"),
    )
}

/// The test signal `sin(0.7 j) + 0.3 cos(1.3 j²)`, `j` in `0..13`.
fn signal13() -> Vec<f64> {
    (0..13)
        .map(|j| {
            let j = j as f64;
            (0.7 * j).sin() + 0.3 * (1.3 * j * j).cos()
        })
        .collect()
}

fn czt_values(d: Device) -> TestResult {
    let x = signal13();
    let xa = Array::from_slice_on(d, &x, &[13])?;
    let w = c64::from_polar(0.98, -0.4);
    let a = c64::from_polar(1.05, 0.3);
    // scipy.signal.czt(x, 9, w, a)
    close_c(
        &czt(&xa, 9, w, a, -1)?.to_vec()?,
        CZT_REAL,
        1e-12,
        "czt of a real signal",
    )?;
    // The same in f32: computed in c32.
    let y32 = czt(&xa.cast::<f32>(), 9, w, a, 0)?.to_vec()?;
    let y32: Vec<c64> = y32
        .iter()
        .map(|z| c64::new(z.re as f64, z.im as f64))
        .collect();
    close_c(&y32, CZT_REAL, 2e-5, "czt in f32")?;
    // scipy.signal.czt(x + 1j cos(0.5 j), 20, w, a): more points than samples.
    let xc: Vec<c64> = (0..13)
        .map(|j| c64::new(x[j], (0.5 * j as f64).cos()))
        .collect();
    let xc = Array::from_slice_on(d, &xc, &[13])?;
    close_c(
        &czt(&xc, 20, w, a, 0)?.to_vec()?,
        CZT_CPLX,
        1e-12,
        "czt of a complex signal",
    )?;
    // scipy.signal.czt(stack([x, cos(0.2 j)], axis=1), 5, exp(-0.3i), 1, axis=0)
    let mut x2 = Vec::new();
    for (j, v) in x.iter().enumerate() {
        x2.push(*v);
        x2.push((0.2 * j as f64).cos());
    }
    let x2 = Array::from_slice_on(d, &x2, &[13, 2])?;
    let y = czt(&x2, 5, c64::from_polar(1.0, -0.3), c64::new(1.0, 0.0), 0)?;
    if y.shape() != [5, 2] {
        return Err(format!("czt along axis 0: shape {:?}", y.shape()).into());
    }
    close_c(&y.to_vec()?, CZT_AXIS0, 1e-12, "czt along axis 0")?;
    // At the FFT's points the transform is the FFT, for a length of 7 (smooth FFT of 13).
    let x7 = Array::from_slice_on(d, &x[..7], &[7])?;
    let f = x7.fft()?.to_vec()?;
    let f: Vec<(f64, f64)> = f.iter().map(|z| (z.re, z.im)).collect();
    let g = czt(
        &x7,
        7,
        c64::from_polar(1.0, -2.0 * PI / 7.0),
        c64::new(1.0, 0.0),
        0,
    )?;
    close_c(&g.to_vec()?, &f, 1e-13, "czt at the FFT's points")?;
    // scipy.signal.zoom_fft(x, [0.3, 1.7], 7, fs=4), without and with the end point.
    close_c(
        &zoom_fft(&xa, [0.3, 1.7], 7, 4.0, false, 0)?.to_vec()?,
        ZOOM_NOEND,
        1e-12,
        "zoom_fft",
    )?;
    close_c(
        &zoom_fft(&xa, [0.3, 1.7], 7, 4.0, true, 0)?.to_vec()?,
        ZOOM_END,
        1e-12,
        "zoom_fft with the end point",
    )?;
    // A band walked downwards (SciPy takes it as given): the DFT at f1 + k (f2 - f1) / m,
    // summed here directly.
    let (f1, f2, fs, m) = (1.7, 0.3, 4.0, 6);
    let want: Vec<(f64, f64)> = (0..m)
        .map(|k| {
            let f = f1 + k as f64 * (f2 - f1) / m as f64;
            x.iter().enumerate().fold((0.0, 0.0), |(re, im), (j, v)| {
                let ph = -2.0 * PI * f * j as f64 / fs;
                (re + v * ph.cos(), im + v * ph.sin())
            })
        })
        .collect();
    close_c(
        &zoom_fft(&xa, [f1, f2], m, fs, false, 0)?.to_vec()?,
        &want,
        1e-11,
        "zoom_fft over a band walked downwards",
    )?;
    // The points: a w^-k.
    let p = czt_points(3, w, a)?;
    for (k, z) in p.iter().enumerate() {
        let want = a * w.powi(-(k as i32));
        if (z - want).norm() > 1e-14 {
            return Err(format!("czt_points[{k}] = {z}, expected {want}").into());
        }
    }
    Ok(())
}

fn czt_errors(d: Device) -> TestResult {
    let x = Array::from_slice_on(d, &[1.0f64, 2.0, 3.0], &[3])?;
    let one = c64::new(1.0, 0.0);
    assert_err(czt(&x, 0, one, one, 0), "InvalidArgument", "m 0");
    assert_err(
        czt(&x, 3, c64::new(0.0, 0.0), one, 0),
        "InvalidArgument",
        "w 0",
    );
    assert_err(
        czt(&x, 3, one, c64::new(f64::NAN, 0.0), 0),
        "InvalidArgument",
        "NaN",
    );
    assert_err(czt(&x, 3, one, one, 1), "InvalidArgument", "axis 1");
    let empty = Array::<f64>::from_slice_on(d, &[], &[0])?;
    assert_err(czt(&empty, 3, one, one, 0), "InvalidArgument", "0 points");
    assert_err(czt_points(0, one, one), "InvalidArgument", "m 0");
    assert_err(
        zoom_fft(&x, [f64::NAN, 1.0], 4, 4.0, false, 0),
        "InvalidArgument",
        "[NaN, 1]",
    );
    assert_err(
        zoom_fft(&x, [0.0, 1.0], 4, -1.0, false, 0),
        "InvalidArgument",
        "fs -1",
    );
    assert_err(
        zoom_fft(&x, [0.0, 1.0], 1, 2.0, true, 0),
        "InvalidArgument",
        "m 1",
    );
    Ok(())
}

/// The samples of the periodogram tests: times `0.37 i + 0.1 sin(3.1 i)` and values
/// `1.5 sin(1.1 t + 0.4) + 0.5 + 0.2 cos(2.9 t)`, `i` in `0..40`; weights
/// `1 + 0.5 cos²(0.9 i)`; angular frequencies `linspace(0.2, 3.0, 8)`.
fn lomb_inputs() -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let t: Vec<f64> = (0..40)
        .map(|i| 0.37 * i as f64 + 0.1 * (3.1 * i as f64).sin())
        .collect();
    let y = t
        .iter()
        .map(|t| 1.5 * (1.1 * t + 0.4).sin() + 0.5 + 0.2 * (2.9 * t).cos())
        .collect();
    let w = (0..40)
        .map(|i| 1.0 + 0.5 * (0.9 * i as f64).cos().powi(2))
        .collect();
    let f = (0..8).map(|i| 0.2 + 0.4 * i as f64).collect();
    (t, y, w, f)
}

fn lomb_values(d: Device) -> TestResult {
    let (t, y, w, f) = lomb_inputs();
    let ta = Array::from_slice_on(d, &t, &[40])?;
    let ya = Array::from_slice_on(d, &y, &[40])?;
    let fa = Array::from_slice_on(d, &f, &[8])?;
    // scipy.signal.lombscargle(t, y, f)
    close(
        &lombscargle(&ta, &ya, &fa)?.to_vec()?,
        LOMB_POWER,
        1e-11,
        1e-13,
        "lombscargle",
    )?;
    let o = LombOpts::new().normalize(LombNorm::Normalize);
    close(
        &lombscargle_with(&ta, &ya, &fa, &o)?.to_vec()?,
        LOMB_NORM,
        1e-11,
        1e-13,
        "lombscargle normalised",
    )?;
    let o = LombOpts::new().floating_mean(true);
    close(
        &lombscargle_with(&ta, &ya, &fa, &o)?.to_vec()?,
        LOMB_FLOAT,
        1e-11,
        1e-13,
        "lombscargle with a floating mean",
    )?;
    let o = LombOpts::new()
        .floating_mean(true)
        .weights(&w)
        .normalize(LombNorm::Normalize);
    close(
        &lombscargle_with(&ta, &ya, &fa, &o)?.to_vec()?,
        LOMB_FLOAT_W_NORM,
        1e-11,
        1e-13,
        "lombscargle weighted, floating, normalised",
    )?;
    close_c(
        &lombscargle_amplitude(&ta, &ya, &fa, &o)?.to_vec()?,
        LOMB_AMP,
        1e-11,
        "lombscargle amplitude",
    )?;
    // f32 inputs compute in f32.
    let p32 = lombscargle(&ta.cast::<f32>(), &ya.cast::<f32>(), &fa.cast::<f32>())?.to_vec()?;
    let p32: Vec<f64> = p32.iter().map(|&v| v as f64).collect();
    close(&p32, LOMB_POWER, 0.0, 2e-4 * 21.5, "lombscargle in f32")?;
    Ok(())
}

fn lomb_errors(d: Device) -> TestResult {
    let x = Array::from_slice_on(d, &[0.0f64, 1.0, 2.5], &[3])?;
    let y = Array::from_slice_on(d, &[1.0f64, 0.0, -1.0], &[3])?;
    let y2 = Array::from_slice_on(d, &[1.0f64, 0.0], &[2])?;
    let f = Array::from_slice_on(d, &[1.0f64], &[1])?;
    let none = Array::<f64>::from_slice_on(d, &[], &[0])?;
    assert_err(lombscargle(&x, &y2, &f), "Shape", "[2]");
    assert_err(lombscargle(&x, &y, &none), "Shape", "[0]");
    let o = LombOpts::new().weights(&[1.0, -2.0, 1.0]);
    assert_err(lombscargle_with(&x, &y, &f, &o), "InvalidArgument", "-2");
    let o = LombOpts::new().weights(&[0.0, 0.0, 0.0]);
    assert_err(
        lombscargle_with(&x, &y, &f, &o),
        "InvalidArgument",
        "sum to 0",
    );
    let o = LombOpts::new().weights(&[1.0]);
    assert_err(lombscargle_with(&x, &y, &f, &o), "Shape", "1 weights for 3");
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("czt_values", czt_values),
    ("czt_errors", czt_errors),
    ("lomb_values", lomb_values),
    ("lomb_errors", lomb_errors),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::signal_analysis::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::signal_analysis::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}

/// SciPy 1.17.1's `czt_real` (see the body that uses it).
const CZT_REAL: &[(f64, f64)] = &[
    (1.6521185506890734, 0.39411931322634497),
    (0.6428480470940409, -4.743985595509605),
    (-0.6847948072572674, -0.10897787080615928),
    (-0.34492447219028965, 0.24419951221658528),
    (-0.23858311622983286, -0.12432468190425221),
    (0.1601166349933794, 0.07425468860581357),
    (0.3143325580490905, -0.19497499544238428),
    (-0.21606308095025434, -0.06990586366263225),
    (0.18354534422170585, 0.2514966006275923),
];

/// SciPy 1.17.1's `czt_cplx` (see the body that uses it).
const CZT_CPLX: &[(f64, f64)] = &[
    (-0.6497515226858397, 2.3584685585309426),
    (3.930796420679962, -2.4894913408221724),
    (0.1654324818292409, 0.8807617896618878),
    (0.06202568764890023, 0.7878837154658477),
    (0.13411924758181212, 0.30491531656097504),
    (0.4789161853869586, 0.5864288332204184),
    (0.4758907419538535, 0.39933573499221153),
    (-0.2288634004995626, 0.521899467342257),
    (0.05138193778975683, 0.8015206780041821),
    (-0.048837400214202895, 0.5060800539387142),
    (-0.3911312893001851, 0.5965124552609883),
    (-0.6235779382240026, 0.7678201718693201),
    (-1.1784934935452518, 1.370250048347367),
    (-0.9363349901618966, 3.109649445114818),
    (1.5430839505633287, 2.812384340768597),
    (1.5480474759926288, 1.4302031987355008),
    (1.574602689132354, 1.1686435437293745),
    (1.1198555821261797, 0.16928363542520122),
    (0.5142652130463672, 0.42397678330961325),
    (0.41968789950921415, 0.5750096372670692),
];

/// SciPy 1.17.1's `czt_axis0` (see the body that uses it).
const CZT_AXIS0: &[(f64, f64)] = &[
    (3.458780112764785, -4.9343245538895844e-17),
    (3.497353813007913, 5.088522196198634e-17),
    (1.0834560729242242, 1.0700781817397873),
    (5.213373354635937, -3.3877062884614615),
    (4.811514238989757, -5.3850870211471165),
    (-1.0559361951705388, -2.0063114155171236),
    (-4.341878470769158, -1.3679203409568357),
    (1.3983689579434257, -1.481348367503046),
    (0.15773944844866783, -0.6554631362274402),
    (0.08680713050834006, -0.1489655455046811),
];

/// SciPy 1.17.1's `zoom_noend` (see the body that uses it).
const ZOOM_NOEND: &[(f64, f64)] = &[
    (5.55227701633534, -0.20789468581845583),
    (-3.001668440606105, -5.724886399115828),
    (-0.15158434023138034, 0.7643587353627506),
    (-1.4345857079611164, 0.2886628022828281),
    (0.6548322368405262, -0.6650084816668358),
    (-0.3984612292879566, 0.7293219044871797),
    (0.050560931089760904, -0.06732420973403298),
];

/// SciPy 1.17.1's `zoom_end` (see the body that uses it).
const ZOOM_END: &[(f64, f64)] = &[
    (5.552277016335342, -0.20789468581845583),
    (-4.215383667455718, -3.807041698705118),
    (0.127330158113085, -0.7026566392895537),
    (0.32750267778475617, 1.0020192898645062),
    (-0.9402008850801522, -0.021532162121017103),
    (0.24144159940602436, -0.11582381080427213),
    (0.9426717716238298, -0.14509315435256326),
];

/// SciPy 1.17.1's `lomb_amp` (see the body that uses it).
const LOMB_AMP: &[(f64, f64)] = &[
    (-0.04512728899354718, -0.9975297031907029),
    (0.16494062659410486, 0.06412412320139331),
    (1.236797616314083, 0.5224523736673619),
    (-0.5141489528992346, -0.10476830137581467),
    (-0.23782922789901798, -0.007634454446807559),
    (-0.14492382041694854, 0.05377173495265539),
    (-0.14516520492983678, 0.0002767166341518713),
    (0.07759070220915693, 0.21208358062232915),
];

/// SciPy 1.17.1's `lomb_power`.
const LOMB_POWER: &[f64] = &[
    4.924108034282534,
    1.6911512983694919,
    21.522654060628767,
    1.9860851587338888,
    0.3581372940346613,
    0.14695644947025938,
    0.08995046445578109,
    0.5333055453591584,
];

/// SciPy 1.17.1's `lomb_norm`.
const LOMB_NORM: &[f64] = &[
    0.16002952604485898,
    0.054961048552146646,
    0.699468838735933,
    0.06454616032469371,
    0.011639172216436936,
    0.004775965676266376,
    0.0029233172981085833,
    0.01733199862121959,
];

/// SciPy 1.17.1's `lomb_float`.
const LOMB_FLOAT: &[f64] = &[
    1.726863936998427,
    0.29984168021100444,
    18.117333721968407,
    2.8272935276336675,
    0.5917888781677225,
    0.24262521871864962,
    0.1400755034046316,
    0.494328318756314,
];

/// SciPy 1.17.1's `lomb_float_w_norm`.
const LOMB_FLOAT_W_NORM: &[f64] = &[
    0.073629860198872,
    0.013468017525994167,
    0.8146890197507387,
    0.1261566914531666,
    0.025818490802425015,
    0.01088632196605823,
    0.009514531771755447,
    0.023013335642994626,
];
