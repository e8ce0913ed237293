//! SciPy's smaller signal routines against SciPy 1.17.1's values for the same inputs (read
//! from `data/scipy-signal.txt`, written by `data/scipy_signal.py`; the inputs are formulas
//! evaluated here and there alike): `convolve2d` and `correlate2d` in every mode and
//! boundary, relative extrema, `correlation_lags`, `deconvolve`, `lfiltic`, `sosfilt_zi`,
//! `hilbert2`, `sweep_poly`, `max_len_seq`, `check_cola`/`check_nola`, `vectorstrength`, and
//! the B-spline routines (`cspline1d` interpolating and smoothing, `qspline1d`, their
//! evaluation, `gauss_spline`), the windows beyond the cosine sums (`get_window`), and the
//! wavelets and `cwt` (against SciPy 1.14.1, the last SciPy with them:
//! `data/scipy-wavelets.txt`, written by `data/scipy_wavelets.py`).
//! Where a property pins the result independently (a deconvolution's product, a filter
//! started from `lfiltic`'s state), it is checked as well. Bodies run on every backend.

use crate::common::{Body, assert_err, close, grid, reference_in};
use cuprite_array::signal::{
    Average, BandType, BesselNorm, Comparator, ConvBoundary, ConvMode, Detrend, DpssNorm, DpssOpts,
    EdgeMode, FiltfiltMethod, FiltfiltOpts, PolyPad, ResampleOpts, ResamplePolyOpts, Scaling,
    SpectrogramMode, SpectrogramOpts, StateSpace, StftOpts, UpfirdnMode, UpfirdnOpts, WelchOpts,
    Window, argrelextrema, argrelmax, bessel_sos, bode, butter_sos, cheby1_sos, cheby2_sos,
    check_cola, check_nola, coherence_with, convolve2d, correlate2d, correlation_lags, csd_with,
    cspline1d, cspline1d_eval, cspline2d, cwt, dbode, deconvolve, dfreqresp, dimpulse, dlsim, dpss,
    dpss_ratios, dpss_with, dstep, ellip_sos, filtfilt_with, freqresp, gauss_spline,
    general_cosine, get_window, hilbert2, impulse, lfilter, lfilter_complex, lfiltic, lsim,
    max_len_seq, morlet, morlet2, order_filter, periodogram, qmf, qspline1d, qspline1d_eval,
    qspline2d, resample_poly_with, resample_with, ricker, sepfir2d, sosfilt_zi, sosfiltfilt_with,
    spectrogram_with, spline_filter, step, stft_with, sweep_poly, symiirorder1, symiirorder2,
    tf2ss, upfirdn_with, vectorstrength, welch_with,
};
use cuprite_array::{Array, Device, c32, c64};
use cuprite_testkit::{Test, TestResult};

fn reference(name: &str) -> Vec<f64> {
    reference_in(
        &[
            include_str!("data/scipy-signal.txt"),
            include_str!("data/scipy-wavelets.txt"),
        ],
        name,
    )
}

fn reference_i(name: &str) -> Vec<i64> {
    reference(name).iter().map(|&v| v as i64).collect()
}

fn conv2d_modes(d: Device) -> TestResult {
    let a = grid(5, 6, |i, j| (0.9 * i + 1.7 * j).sin() + 0.1 * i);
    let k = grid(3, 4, |i, j| (1.1 * i - 0.6 * j).cos() + 0.2 * j);
    let k2 = grid(7, 9, |i, j| (0.3 * i * j + 0.5).sin());
    let a = Array::from_slice_on(d, &a, &[5, 6])?;
    let k = Array::from_slice_on(d, &k, &[3, 4])?;
    let k2 = Array::from_slice_on(d, &k2, &[7, 9])?;
    let modes = [
        ("full", ConvMode::Full),
        ("same", ConvMode::Same),
        ("valid", ConvMode::Valid),
    ];
    let bounds = [
        ("fill0", ConvBoundary::Fill(0.0)),
        ("fill15", ConvBoundary::Fill(1.5)),
        ("wrap", ConvBoundary::Wrap),
        ("symm", ConvBoundary::Symm),
    ];
    type F =
        fn(&Array<f64>, &Array<f64>, ConvMode, ConvBoundary) -> cuprite_array::Result<Array<f64>>;
    let fns: [(&str, F); 2] = [("conv2d", convolve2d), ("corr2d", correlate2d)];
    for (fname, f) in fns {
        for (mname, mode) in modes {
            for (bname, b) in bounds {
                if mode == ConvMode::Valid && bname != "fill0" {
                    continue;
                }
                let name = format!("{fname}_{mname}_{bname}");
                close(
                    &f(&a, &k, mode, b)?.to_vec()?,
                    &reference(&name),
                    1e-12,
                    1e-12,
                    &name,
                )?;
            }
        }
        // A kernel larger than the image: the extension repeats or mirrors more than once.
        for (mname, mode) in &modes[..2] {
            for (bname, b) in [("wrap", ConvBoundary::Wrap), ("symm", ConvBoundary::Symm)] {
                let name = format!("{fname}_big_{mname}_{bname}");
                close(
                    &f(&a, &k2, *mode, b)?.to_vec()?,
                    &reference(&name),
                    1e-12,
                    1e-12,
                    &name,
                )?;
            }
        }
        let name = format!("{fname}_valid_swapped");
        close(
            &f(&k, &a, ConvMode::Valid, ConvBoundary::default())?.to_vec()?,
            &reference(&name),
            1e-12,
            1e-12,
            &name,
        )?;
    }
    // f32 in its own precision.
    let y = convolve2d(
        &a.cast::<f32>(),
        &k.cast::<f32>(),
        ConvMode::Same,
        ConvBoundary::Symm,
    )?;
    let y: Vec<f64> = y.to_vec()?.iter().map(|&v| v as f64).collect();
    close(
        &y,
        &reference("conv2d_same_symm"),
        1e-5,
        1e-5,
        "convolve2d in f32",
    )?;
    // Bad input.
    let v = Array::from_slice_on(d, &[1.0f64, 2.0], &[2])?;
    assert_err(
        convolve2d(&v, &k, ConvMode::Full, ConvBoundary::Wrap),
        "Shape",
        "[2]",
    );
    let tall = Array::from_slice_on(d, &[0.0f64; 8], &[8, 1])?;
    assert_err(
        correlate2d(&a, &tall, ConvMode::Valid, ConvBoundary::Wrap),
        "InvalidArgument",
        "[8, 1]",
    );
    Ok(())
}

fn relative_extrema(d: Device) -> TestResult {
    let x: Vec<f64> = (0..30)
        .map(|i| {
            let i = i as f64;
            (3.0 * (1.3 * i).sin() + (0.4 * i * i).cos()).round_ties_even()
        })
        .collect();
    let xa = Array::from_slice_on(d, &x, &[30])?;
    let comps = [
        ("less", Comparator::Less),
        ("greater", Comparator::Greater),
        ("le", Comparator::LessEqual),
        ("ge", Comparator::GreaterEqual),
    ];
    for (cname, c) in comps {
        for order in 1..=3 {
            for (mname, m) in [("clip", EdgeMode::Clip), ("wrap", EdgeMode::Wrap)] {
                let name = format!("argrel_{cname}_{order}_{mname}");
                let got = argrelextrema(&xa, c, 0, order, m)?;
                if got.len() != 1 || got[0].to_vec()? != reference_i(&name) {
                    return Err(format!("{name}: got {:?}", got[0].to_vec()?).into());
                }
            }
        }
    }
    // Integers take the same path.
    let xi: Vec<i32> = x.iter().map(|&v| v as i32).collect();
    let got = argrelextrema(
        &Array::from_slice_on(d, &xi, &[30])?,
        Comparator::Less,
        0,
        2,
        EdgeMode::Wrap,
    )?;
    if got[0].to_vec()? != reference_i("argrel_less_2_wrap") {
        return Err("argrelextrema of i32 differs from SciPy's".into());
    }
    let x2 = grid(6, 7, |i, j| {
        (2.0 * (0.7 * i + 1.1 * j * j).sin()).round_ties_even()
    });
    let x2 = Array::from_slice_on(d, &x2, &[6, 7])?;
    for ax in 0..2 {
        let got = argrelmax(&x2, ax, 1, EdgeMode::Clip)?;
        let rows = reference_i(&format!("argrel2_max_ax{ax}_rows"));
        let cols = reference_i(&format!("argrel2_max_ax{ax}_cols"));
        if got[0].to_vec()? != rows || got[1].to_vec()? != cols {
            return Err(format!("argrelmax of a 6 x 7 array along axis {ax}").into());
        }
    }
    assert_err(
        argrelextrema(&xa, Comparator::Less, 0, 0, EdgeMode::Clip),
        "InvalidArgument",
        "order 0",
    );
    assert_err(
        argrelextrema(&xa, Comparator::Less, 1, 1, EdgeMode::Clip),
        "InvalidArgument",
        "axis 1",
    );
    let empty = Array::<f64>::from_slice_on(d, &[], &[0])?;
    if !argrelextrema(&empty, Comparator::Less, 0, 1, EdgeMode::Clip)?[0]
        .to_vec()?
        .is_empty()
    {
        return Err("an empty array has no extrema".into());
    }
    Ok(())
}

fn filter_helpers(d: Device) -> TestResult {
    // correlation_lags against SciPy's rule, spelled out for each case.
    let cases = [(5, 3), (6, 3), (3, 5), (4, 4), (6, 4), (1, 1), (2, 7)];
    for (n1, n2) in cases {
        let full = correlation_lags(n1, n2, ConvMode::Full)?;
        let want: Vec<i64> = (-(n2 as i64 - 1)..n1 as i64).collect();
        if full != want {
            return Err(format!("full lags of {n1}, {n2}: {full:?}").into());
        }
        // `same`: the n1 lags of `full` starting len(full) / 2 - n1 / 2 in.
        let same = correlation_lags(n1, n2, ConvMode::Same)?;
        let start = full.len() / 2 - n1 / 2;
        if same != full[start..start + n1] {
            return Err(format!("same lags of {n1}, {n2}: {same:?}").into());
        }
        let valid = correlation_lags(n1, n2, ConvMode::Valid)?;
        let want: Vec<i64> = if n1 >= n2 {
            (0..=(n1 - n2) as i64).collect()
        } else {
            (-((n2 - n1) as i64)..=0).collect()
        };
        if valid != want {
            return Err(format!("valid lags of {n1}, {n2}: {valid:?}").into());
        }
    }
    assert_err(
        correlation_lags(0, 3, ConvMode::Full),
        "InvalidArgument",
        "lengths 0 and 3",
    );

    // deconvolve: SciPy's values, and the product that they must rebuild.
    let sig: Vec<f64> = (0..9).map(|i| (0.5 * i as f64).sin() + 1.0).collect();
    let dv = [2.0, -0.5, 0.25];
    let (q, r) = deconvolve(&sig, &dv)?;
    close(
        &q,
        &reference("deconv_q"),
        1e-13,
        1e-14,
        "deconvolve quotient",
    )?;
    close(
        &r,
        &reference("deconv_r"),
        1e-13,
        1e-14,
        "deconvolve remainder",
    )?;
    let mut back = r.clone();
    for (i, qv) in q.iter().enumerate() {
        for (j, dvj) in dv.iter().enumerate() {
            back[i + j] += qv * dvj;
        }
    }
    close(
        &back,
        &sig,
        1e-14,
        1e-14,
        "quotient times divisor plus remainder",
    )?;
    assert_err(
        deconvolve(&sig, &[0.0, 1.0]),
        "InvalidArgument",
        "divisor[0] is 0",
    );
    let (q, r) = deconvolve(&[1.0, 2.0], &dv)?;
    if !q.is_empty() || r != [1.0, 2.0] {
        return Err("a longer divisor leaves the whole signal as remainder".into());
    }

    // lfiltic: SciPy's states, and a filter started from one continuing a run it did not see.
    let (b, a) = ([0.2, 0.3, -0.1, 0.05], [1.5, -0.4, 0.2]);
    close(
        &lfiltic(&b, &a, &[0.7, -0.2, 0.4], None)?,
        &reference("lfiltic_y"),
        1e-14,
        1e-15,
        "lfiltic",
    )?;
    close(
        &lfiltic(&b, &a, &[0.7], Some(&[1.0, -2.0, 0.5, 9.0]))?,
        &reference("lfiltic_yx"),
        1e-14,
        1e-15,
        "lfiltic with inputs",
    )?;
    let xs: Vec<f64> = (0..20).map(|i| (0.9 * i as f64).cos()).collect();
    let (y, _) = lfilter(&b, &a, &Array::from_slice_on(d, &xs, &[20])?, 0, None)?;
    let y = y.to_vec()?;
    let past_y: Vec<f64> = (0..3).map(|j| y[9 - j]).collect();
    let past_x: Vec<f64> = (0..3).map(|j| xs[9 - j]).collect();
    let zi = lfiltic(&b, &a, &past_y, Some(&past_x))?;
    let zi = Array::from_slice_on(d, &zi, &[3])?;
    let (tail, _) = lfilter(
        &b,
        &a,
        &Array::from_slice_on(d, &xs[10..], &[10])?,
        0,
        Some(&zi),
    )?;
    close(
        &tail.to_vec()?,
        &y[10..],
        1e-12,
        1e-13,
        "lfilter continued from lfiltic's state",
    )?;
    assert_err(
        lfiltic(&b, &[0.0, 1.0], &[1.0], None),
        "InvalidArgument",
        "a[0] is 0",
    );

    // sosfilt_zi of SciPy's own sections.
    let flat = reference("sos_ellip");
    let sos: Vec<[f64; 6]> = flat
        .chunks(6)
        .map(|c| [c[0], c[1], c[2], c[3], c[4], c[5]])
        .collect();
    let zi: Vec<f64> = sosfilt_zi(&sos)?.into_iter().flatten().collect();
    close(
        &zi,
        &reference("sosfilt_zi_ellip"),
        1e-10,
        1e-12,
        "sosfilt_zi",
    )?;
    assert_err(sosfilt_zi(&[]), "InvalidArgument", "sos is empty");
    Ok(())
}

fn generators(d: Device) -> TestResult {
    // hilbert2 of a 2 x 4 x 5 stack, slice by slice against SciPy's 4 x 5 transforms.
    let h: Vec<f64> = (0..2)
        .flat_map(|k| {
            grid(4, 5, move |i, j| {
                (0.3 * i + 0.8 * j + k as f64).sin() + 0.2 * i * j
            })
        })
        .collect();
    let ha = Array::from_slice_on(d, &h, &[2, 4, 5])?;
    let z = hilbert2(&ha, None)?.to_vec()?;
    let parts: Vec<f64> = z.iter().flat_map(|c| [c.re, c.im]).collect();
    close(
        &parts[..40],
        &reference("hilbert2_0"),
        1e-12,
        1e-12,
        "hilbert2 slice 0",
    )?;
    close(
        &parts[40..],
        &reference("hilbert2_1"),
        1e-12,
        1e-12,
        "hilbert2 slice 1",
    )?;
    let first = Array::from_slice_on(d, &h[..20], &[4, 5])?;
    let z = hilbert2(&first, Some([6, 3]))?.to_vec()?;
    let parts: Vec<f64> = z.iter().flat_map(|c| [c.re, c.im]).collect();
    close(
        &parts,
        &reference("hilbert2_pad"),
        1e-12,
        1e-12,
        "hilbert2 of 6 x 3 points",
    )?;
    assert_err(
        hilbert2(&Array::from_slice_on(d, &[1.0f64], &[1])?, None),
        "Shape",
        "[1]",
    );

    // sweep_poly on linspace(-1, 3, 17).
    let t: Vec<f64> = (0..17).map(|i| -1.0 + 0.25 * i as f64).collect();
    let ta = Array::from_slice_on(d, &t, &[17])?;
    let y = sweep_poly(&ta, &[0.05, -0.3, 1.2, 2.0], 30.0)?.to_vec()?;
    close(&y, &reference("sweep_poly"), 1e-12, 1e-12, "sweep_poly")?;
    assert_err(sweep_poly(&ta, &[], 0.0), "InvalidArgument", "poly []");

    // max_len_seq: SciPy's sequences and final states.
    let bits = |s: &str| -> Vec<u8> { s.bytes().map(|b| b - b'0').collect() };
    let (seq, st) = max_len_seq(5, None, None, None)?;
    if seq != bits("1111100110100100001010111011000") || st != [1, 1, 1, 1, 1] {
        return Err(format!("max_len_seq(5): {seq:?}, {st:?}").into());
    }
    let (seq, st) = max_len_seq(4, Some(&[1, 0, 1, 1]), Some(20), Some(&[3]))?;
    if seq != bits("10110010001111010110") || st != [0, 1, 0, 0] {
        return Err(format!("max_len_seq(4, taps [3]): {seq:?}, {st:?}").into());
    }
    let (seq, st) = max_len_seq(10, None, Some(40), None)?;
    if seq != bits("1111111111000111000100111011001010111011") || st != bits("1101010001") {
        return Err(format!("max_len_seq(10, 40): {seq:?}, {st:?}").into());
    }
    // A whole period of 8 bits has 128 ones and 127 zeros, and returns to the start.
    let (seq, st) = max_len_seq(8, None, None, None)?;
    if seq.len() != 255 || seq.iter().filter(|&&b| b == 1).count() != 128 || st != [1; 8] {
        return Err("max_len_seq(8) is not one maximal period".into());
    }
    assert_err(
        max_len_seq(40, None, None, None),
        "InvalidArgument",
        "nbits 40",
    );
    assert_err(
        max_len_seq(4, Some(&[0, 0, 0, 0]), None, None),
        "InvalidArgument",
        "[0, 0, 0, 0]",
    );
    assert_err(
        max_len_seq(4, None, None, Some(&[5])),
        "InvalidArgument",
        "[5]",
    );

    // check_cola / check_nola against SciPy's answers for the same windows.
    let want = reference_i("cola_nola");
    let cases = [
        (Window::Hann, 256, 128),
        (Window::Hann, 256, 100),
        (Window::Hamming, 128, 64),
        (Window::Boxcar, 64, 0),
        (Window::Blackman, 300, 200),
        (Window::Hann, 255, 170),
        (Window::Triang, 100, 50),
        (Window::Bartlett, 100, 50),
    ];
    for (i, (w, n, o)) in cases.into_iter().enumerate() {
        let got = [
            check_cola(w, n, o, 1e-10)? as i64,
            check_nola(w, n, o, 1e-10)? as i64,
        ];
        if got != want[2 * i..2 * i + 2] {
            return Err(format!("check_cola/check_nola of {w:?}, {n}, {o}: {got:?}").into());
        }
    }
    assert_err(
        check_cola(Window::Hann, 8, 8, 1e-10),
        "InvalidArgument",
        "noverlap 8",
    );
    assert_err(
        check_nola(vec![1.0; 3], 4, 1, 1e-10),
        "InvalidArgument",
        "3 values",
    );

    // vectorstrength of jittered event times.
    let ev: Vec<f64> = (0..60)
        .map(|i| 0.37 * i as f64 + 0.05 * (2.3 * i as f64).sin())
        .collect();
    let ea = Array::from_slice_on(d, &ev, &[60])?;
    let pa = Array::from_slice_on(d, &[0.37f64, 0.5, 1.11, 0.74], &[4])?;
    let (s, p) = vectorstrength(&ea, &pa)?;
    close(
        &s.to_vec()?,
        &reference("vs_strength"),
        1e-12,
        1e-13,
        "vector strength",
    )?;
    close(
        &p.to_vec()?,
        &reference("vs_phase"),
        1e-11,
        1e-12,
        "vector phase",
    )?;
    assert_err(
        vectorstrength(&ea, &Array::from_slice_on(d, &[1.0f64; 4], &[2, 2])?),
        "Shape",
        "[2, 2]",
    );
    Ok(())
}

fn bsplines(d: Device) -> TestResult {
    let x: Vec<f64> = (0..12)
        .map(|i| (0.8 * i as f64).sin() + 0.05 * (i * i) as f64)
        .collect();
    let xa = Array::from_slice_on(d, &x, &[12])?;
    let c = cspline1d(&xa, 0.0)?;
    close(
        &c.to_vec()?,
        &reference("cspline_0"),
        1e-12,
        1e-12,
        "cspline1d",
    )?;
    let q = qspline1d(&xa)?;
    close(
        &q.to_vec()?,
        &reference("qspline_0"),
        1e-12,
        1e-12,
        "qspline1d",
    )?;
    close(
        &cspline1d(&xa, 0.5)?.to_vec()?,
        &reference("cspline_smooth_05"),
        1e-10,
        1e-12,
        "cspline1d smoothing 0.5",
    )?;
    close(
        &cspline1d(&xa, 3.0)?.to_vec()?,
        &reference("cspline_smooth_3"),
        1e-10,
        1e-12,
        "cspline1d smoothing 3",
    )?;
    let pts = [
        -4.7, -0.3, 0.0, 0.5, 1.25, 3.999, 7.5, 10.9, 11.0, 12.6, 25.1,
    ];
    let pa = Array::from_slice_on(d, &pts, &[11])?;
    close(
        &cspline1d_eval(&c, &pa, 1.0, 0.0)?.to_vec()?,
        &reference("cspline_eval"),
        1e-12,
        1e-12,
        "cspline1d_eval",
    )?;
    close(
        &cspline1d_eval(&c, &pa, 0.5, -1.0)?.to_vec()?,
        &reference("cspline_eval_dx"),
        1e-12,
        1e-12,
        "cspline1d_eval with dx, x0",
    )?;
    close(
        &qspline1d_eval(&q, &pa, 1.0, 0.0)?.to_vec()?,
        &reference("qspline_eval"),
        1e-12,
        1e-12,
        "qspline1d_eval",
    )?;
    close(
        &gauss_spline(&pa, 3)?.to_vec()?,
        &reference("gauss_spline"),
        1e-14,
        1e-16,
        "gauss_spline",
    )?;
    // Interpolation: the splines give the samples back at the knots, once the signal is long
    // enough that the truncated mirror sums (z^n with n samples) are below rounding.
    let long: Vec<f64> = (0..40)
        .map(|i| (0.37 * i as f64).cos() + 0.01 * i as f64)
        .collect();
    let la = Array::from_slice_on(d, &long, &[40])?;
    let knots: Vec<f64> = (0..40).map(|i| i as f64).collect();
    let ka = Array::from_slice_on(d, &knots, &[40])?;
    let got = cspline1d_eval(&cspline1d(&la, 0.0)?, &ka, 1.0, 0.0)?.to_vec()?;
    close(&got, &long, 1e-12, 1e-12, "cubic spline at its knots")?;
    let got = qspline1d_eval(&qspline1d(&la)?, &ka, 1.0, 0.0)?.to_vec()?;
    close(&got, &long, 1e-12, 1e-12, "quadratic spline at its knots")?;
    // f32 in its own precision.
    let c32: Vec<f64> = cspline1d(&xa.cast::<f32>(), 0.0)?
        .to_vec()?
        .iter()
        .map(|&v| v as f64)
        .collect();
    close(
        &c32,
        &reference("cspline_0"),
        1e-5,
        1e-5,
        "cspline1d in f32",
    )?;
    assert_err(cspline1d(&xa, 0.005), "InvalidArgument", "lamb 0.005");
    assert_err(cspline1d(&xa, -1.0), "InvalidArgument", "lamb -1");
    assert_err(
        qspline1d(&Array::from_slice_on(d, &[1.0f64; 4], &[2, 2])?),
        "Shape",
        "[2, 2]",
    );
    assert_err(cspline1d_eval(&c, &pa, 0.0, 0.0), "InvalidArgument", "dx 0");
    Ok(())
}

fn order_filters(d: Device) -> TestResult {
    let a = grid(6, 7, |i, j| {
        (5.0 * (1.7 * i + 0.6 * j * j).sin()).round_ties_even()
    });
    let a = Array::from_slice_on(d, &a, &[6, 7])?;
    let cross = [false, true, false, true, true, true, false, true, false];
    let got = order_filter(&a, &cross, &[3, 3], 0)?.to_vec()?;
    close(
        &got,
        &reference("order_cross_0"),
        0.0,
        0.0,
        "order_filter cross rank 0",
    )?;
    let got = order_filter(&a, &cross, &[3, 3], 2)?.to_vec()?;
    close(
        &got,
        &reference("order_cross_2"),
        0.0,
        0.0,
        "order_filter cross rank 2",
    )?;
    let got = order_filter(&a, &[true; 15], &[3, 5], 7)?.to_vec()?;
    close(
        &got,
        &reference("order_box35_7"),
        0.0,
        0.0,
        "order_filter 3 x 5 rank 7",
    )?;
    // f32 gives the same ranks.
    let got: Vec<f64> = order_filter(&a.cast::<f32>(), &cross, &[3, 3], 2)?
        .to_vec()?
        .iter()
        .map(|&v| v as f64)
        .collect();
    close(
        &got,
        &reference("order_cross_2"),
        0.0,
        0.0,
        "order_filter of f32",
    )?;
    assert_err(
        order_filter(&a, &[true; 6], &[3, 2], 0),
        "InvalidArgument",
        "[3, 2]",
    );
    assert_err(
        order_filter(&a, &[true; 3], &[3], 0),
        "InvalidArgument",
        "[3]",
    );
    Ok(())
}

fn parts(v: &[cuprite_array::dtype::c64]) -> Vec<f64> {
    v.iter().flat_map(|z| [z.re, z.im]).collect()
}

fn wavelets(d: Device) -> TestResult {
    let on = |f: &dyn Fn() -> TestResult| cuprite_array::device::with_device(d, f);
    on(&|| {
        close(
            &ricker::<f64>(9, 2.0)?.to_vec()?,
            &reference("ricker_9_2"),
            1e-14,
            1e-15,
            "ricker(9, 2)",
        )?;
        close(
            &ricker::<f64>(10, 1.5)?.to_vec()?,
            &reference("ricker_10_1.5"),
            1e-14,
            1e-15,
            "ricker(10, 1.5)",
        )?;
        close(
            &parts(&morlet::<f64>(8, 5.0, 1.0, true)?.to_vec()?),
            &reference("morlet_8"),
            1e-13,
            1e-15,
            "morlet",
        )?;
        close(
            &parts(&morlet::<f64>(7, 4.0, 0.5, false)?.to_vec()?),
            &reference("morlet_7_incomplete"),
            1e-13,
            1e-15,
            "morlet, incomplete",
        )?;
        close(
            &parts(&morlet2::<f64>(9, 2.0, 5.0)?.to_vec()?),
            &reference("morlet2_9"),
            1e-13,
            1e-15,
            "morlet2",
        )?;
        close(
            &qmf(&[0.5, 1.5, -2.0, 0.25, 3.0]),
            &reference("qmf"),
            0.0,
            0.0,
            "qmf",
        )?;
        assert_err(ricker::<f64>(0, 1.0), "InvalidArgument", "0 points");
        assert_err(morlet2::<f64>(4, -1.0, 5.0), "InvalidArgument", "s -1");
        Ok(())
    })?;
    let x: Vec<f64> = (0..40)
        .map(|i| (0.4 * i as f64).sin() + 0.3 * (1.7 * i as f64).cos())
        .collect();
    let xa = Array::from_slice_on(d, &x, &[40])?;
    let y = cwt(&xa, &[1.0, 2.0, 3.5, 6.0], &|n, a| ricker::<f64>(n, a))?;
    if y.shape() != [4, 40] {
        return Err(format!("cwt shape {:?}", y.shape()).into());
    }
    close(
        &y.to_vec()?,
        &reference("cwt_ricker"),
        1e-12,
        1e-13,
        "cwt with ricker",
    )?;
    let xc = xa.cast::<cuprite_array::dtype::c64>();
    let y = cwt(&xc, &[1.0, 2.5, 5.0], &|n, s| morlet2::<f64>(n, s, 6.0))?;
    close(
        &parts(&y.to_vec()?),
        &reference("cwt_morlet2"),
        1e-12,
        1e-13,
        "cwt with morlet2",
    )?;
    assert_err(
        cwt(&xa, &[0.0], &|n, a| ricker::<f64>(n, a)),
        "InvalidArgument",
        "width 0",
    );
    assert_err(
        cwt(&xa, &[2.0], &|_, a| ricker::<f64>(3, a)),
        "Shape",
        "20 values",
    );
    Ok(())
}

fn systems(_d: Device) -> TestResult {
    let sys = StateSpace {
        a: vec![-0.5, 1.2, 0.0, -1.0, -0.3, 0.4, 0.2, 0.0, -1.1],
        b: vec![1.0, 0.0, 0.5, -1.0, 0.0, 2.0],
        c: vec![1.0, 0.0, -0.5, 0.3, 1.0, 0.0],
        d: vec![0.0, 0.1, 0.0, 0.0],
        states: 3,
        inputs: 2,
        outputs: 2,
    };
    let t: Vec<f64> = (0..25).map(|k| k as f64 * 0.2).collect();
    let u: Vec<f64> = t
        .iter()
        .flat_map(|t| [(1.3 * t).sin(), (0.7 * t).cos() + 0.5])
        .collect();
    let x0 = [0.2, -0.1, 0.3];
    for (interp, name) in [(true, "foh"), (false, "zoh")] {
        let r = lsim(&sys, &u, &t, Some(&x0), interp)?;
        close(
            &r.y,
            &reference(&format!("lsim_{name}_y")),
            1e-10,
            1e-12,
            &format!("lsim {name} outputs"),
        )?;
        close(
            &r.x,
            &reference(&format!("lsim_{name}_x")),
            1e-10,
            1e-12,
            &format!("lsim {name} states"),
        )?;
    }
    let dsys = StateSpace {
        a: vec![0.6, 0.2, 0.0, -0.3, 0.5, 0.1, 0.0, 0.4, -0.2],
        ..sys.clone()
    };
    let r = dlsim(&dsys, 0.1, &u, Some(&x0))?;
    close(&r.y, &reference("dlsim_y"), 1e-13, 1e-14, "dlsim outputs")?;
    close(&r.x, &reference("dlsim_x"), 1e-13, 1e-14, "dlsim states")?;
    let (_, yi) = dimpulse(&dsys, 0.1, 12, None)?;
    let (_, ys) = dstep(&dsys, 0.1, 12, None)?;
    for j in 0..2 {
        close(
            &yi[j],
            &reference(&format!("dimpulse_{j}")),
            1e-13,
            1e-14,
            "dimpulse",
        )?;
        close(
            &ys[j],
            &reference(&format!("dstep_{j}")),
            1e-13,
            1e-14,
            "dstep",
        )?;
    }
    let siso = tf2ss(&[0.5, 2.0, 1.0], &[1.0, 0.8, 2.5, 0.6])?;
    let (ti, yi) = impulse(&siso, None, None, 30)?;
    close(
        &ti,
        &reference("impulse_t"),
        1e-12,
        1e-12,
        "impulse's default times",
    )?;
    close(&yi, &reference("impulse_y"), 1e-10, 1e-12, "impulse")?;
    let (_, ys) = step(&siso, Some(&[0.1, 0.0, -0.2]), None, 30)?;
    close(&ys, &reference("step_y"), 1e-10, 1e-12, "step from a state")?;
    let w = [0.05, 0.3, 1.0, 1.6, 2.2, 5.0, 20.0];
    let h: Vec<f64> = freqresp(&siso, &w)?
        .iter()
        .flat_map(|z| [z.re, z.im])
        .collect();
    close(&h, &reference("freqresp"), 1e-12, 1e-13, "freqresp")?;
    let (mag, ph) = bode(&siso, &w)?;
    close(&mag, &reference("bode_mag"), 1e-12, 1e-12, "bode magnitude")?;
    close(&ph, &reference("bode_phase"), 1e-12, 1e-10, "bode phase")?;
    let dsiso = tf2ss(&[0.2, 0.1], &[1.0, -1.1, 0.5])?;
    let wd = [0.1, 0.5, 1.0, 2.0, 2.9, 3.1];
    let h: Vec<f64> = dfreqresp(&dsiso, &wd)?
        .iter()
        .flat_map(|z| [z.re, z.im])
        .collect();
    close(&h, &reference("dfreqresp"), 1e-12, 1e-13, "dfreqresp")?;
    let (wo, mag, ph) = dbode(&dsiso, 0.05, &wd)?;
    close(&wo, &reference("dbode_w"), 1e-15, 0.0, "dbode frequencies")?;
    close(
        &mag,
        &reference("dbode_mag"),
        1e-12,
        1e-12,
        "dbode magnitude",
    )?;
    close(&ph, &reference("dbode_phase"), 1e-12, 1e-10, "dbode phase")?;
    // Bad input.
    assert_err(
        lsim(&sys, &u[..10], &t, None, true),
        "Shape",
        "10 input values",
    );
    let mut uneven = t.clone();
    uneven[3] += 0.01;
    assert_err(
        lsim(&sys, &u, &uneven, None, true),
        "InvalidArgument",
        "equal steps",
    );
    assert_err(dlsim(&dsys, 0.0, &u, None), "InvalidArgument", "dt = 0");
    assert_err(impulse(&sys, None, None, 10), "InvalidArgument", "2 inputs");
    assert_err(freqresp(&siso, &[f64::NAN]), "InvalidArgument", "finite");
    Ok(())
}

fn symmetric_iir(d: Device) -> TestResult {
    let sx: Vec<f64> = (0..30)
        .map(|i| (0.45 * i as f64).sin() + 0.2 * (1.9 * i as f64).cos())
        .collect();
    let xa = Array::from_slice_on(d, &sx, &[30])?;
    close(
        &symiirorder1(&xa, 0.5, 0.1, -1.0)?.to_vec()?,
        &reference("symiir1"),
        1e-12,
        1e-12,
        "symiirorder1",
    )?;
    close(
        &symiirorder1(&xa, 0.8, -0.6, 1e-5)?.to_vec()?,
        &reference("symiir1_p"),
        1e-12,
        1e-12,
        "symiirorder1 at 1e-5",
    )?;
    let second: Vec<f64> = (0..30).map(|i| (0.3 * i as f64).cos()).collect();
    let rows = Array::from_slice_on(d, &[sx.clone(), second].concat(), &[2, 30])?;
    close(
        &symiirorder1(&rows, 0.5, 0.1, -1.0)?.to_vec()?,
        &reference("symiir1_rows"),
        1e-12,
        1e-12,
        "symiirorder1 of rows",
    )?;
    close(
        &symiirorder2(&xa, 0.5, 0.7, 1e-7)?.to_vec()?,
        &reference("symiir2"),
        1e-10,
        1e-10,
        "symiirorder2",
    )?;
    close(
        &symiirorder2(&xa, 0.3, 1.2, -1.0)?.to_vec()?,
        &reference("symiir2_default"),
        1e-10,
        1e-10,
        "symiirorder2 default",
    )?;
    // SciPy refuses these too: 41 terms of 0.6^k to reach 1e-9 in 30 samples.
    assert_err(
        symiirorder1(&xa, 0.8, -0.6, 1e-9),
        "InvalidArgument",
        "did not converge",
    );
    assert_err(
        symiirorder1(&xa, 1.0, 1.0, -1.0),
        "InvalidArgument",
        "below 1",
    );
    assert_err(
        symiirorder2(&xa, 1.5, 0.3, -1.0),
        "InvalidArgument",
        "r 1.5",
    );

    let im = grid(20, 22, |i, j| (0.5 * i + 0.3 * j).sin() + 0.05 * i * j);
    let ima = Array::from_slice_on(d, &im, &[20, 22])?;
    close(
        &cspline2d(&ima, 0.0, 1e-10)?.to_vec()?,
        &reference("cspline2d"),
        1e-11,
        1e-11,
        "cspline2d",
    )?;
    close(
        &cspline2d(&ima, 0.0, -1.0)?.to_vec()?,
        &reference("cspline2d_default"),
        1e-11,
        1e-11,
        "cspline2d default precision",
    )?;
    close(
        &cspline2d(&ima, 2.0, 1e-4)?.to_vec()?,
        &reference("cspline2d_smooth"),
        1e-11,
        1e-11,
        "cspline2d smoothing",
    )?;
    close(
        &qspline2d(&ima, 1e-10)?.to_vec()?,
        &reference("qspline2d"),
        1e-11,
        1e-11,
        "qspline2d",
    )?;
    let got = sepfir2d(&ima, &[0.1, 0.2, 0.4, -0.3, 0.6], &[0.5, 1.0, -0.3])?.to_vec()?;
    close(&got, &reference("sepfir2d"), 1e-12, 1e-12, "sepfir2d")?;
    let im2 = grid(36, 40, |i, j| (0.2 * i - 0.35 * j).cos() + 0.01 * i);
    let im2 = Array::from_slice_on(d, &im2, &[36, 40])?;
    close(
        &spline_filter(&im2, 5.0)?.to_vec()?,
        &reference("spline_filter"),
        1e-11,
        1e-11,
        "spline_filter",
    )?;
    assert_err(
        sepfir2d(&ima, &[1.0, 1.0], &[1.0]),
        "InvalidArgument",
        "hrow",
    );
    assert_err(cspline2d(&xa, 0.0, -1.0), "Shape", "[30]");
    Ok(())
}

/// The windows beyond the cosine sums against SciPy's `get_window` (and `windows.taylor`
/// for options `get_window` does not pass), symmetric and periodic, at lengths 1, 2, 7, 8 and
/// 16; the names `get_window` accepts for them.
fn windows_more(d: Device) -> TestResult {
    cuprite_array::with_device(d, || -> TestResult {
        let cases = [
            ("bohman", Window::Bohman),
            ("parzen", Window::Parzen),
            ("lanczos", Window::Lanczos),
            ("barthann", Window::BartHann),
            ("general_hamming", Window::GeneralHamming(0.6)),
            ("general_gaussian", Window::GeneralGaussian(1.5, 2.0)),
            ("chebwin", Window::Chebwin(60.0)),
            ("chebwin40", Window::Chebwin(40.0)),
            (
                "taylor",
                Window::Taylor {
                    nbar: 4,
                    sll: 30.0,
                    norm: true,
                },
            ),
            (
                "taylor_3_25_raw",
                Window::Taylor {
                    nbar: 3,
                    sll: 25.0,
                    norm: false,
                },
            ),
        ];
        for (name, w) in cases {
            for m in [1usize, 2, 7, 8, 16] {
                for fft in [false, true] {
                    let key = format!("win_{name}_{m}_{}", if fft { "p" } else { "s" });
                    let got = get_window::<f64>(w, m, fft)?.to_vec()?;
                    close(&got, &reference(&key), 1e-12, 1e-15, &key)?;
                }
            }
        }
        // Kaiser-Bessel-derived: even lengths, symmetric only.
        for m in [2usize, 8, 16] {
            for (b, bs) in [(4.0, "4.0"), (8.6, "8.6")] {
                let key = format!("win_kbd_{m}_{bs}");
                let got = get_window::<f64>(Window::KaiserBesselDerived(b), m, false)?.to_vec()?;
                close(&got, &reference(&key), 1e-12, 1e-15, &key)?;
            }
        }
        for (m, fft) in [(7, false), (8, true)] {
            assert_err(
                get_window::<f64>(Window::KaiserBesselDerived(4.0), m, fft),
                "InvalidArgument",
                "Kaiser-Bessel-derived",
            );
        }
        for (name, w) in [
            ("bohman", Window::Bohman),
            ("parz", Window::Parzen),
            ("sinc", Window::Lanczos),
            ("brthan", Window::BartHann),
        ] {
            assert_eq!(Window::from_name(name)?, w, "{name}");
        }
        assert_err(
            get_window::<f64>(Window::GeneralGaussian(0.0, 1.0), 4, true),
            "InvalidArgument",
            "p must be positive",
        );
        assert_err(
            get_window::<f64>(
                Window::Taylor {
                    nbar: 0,
                    sll: 30.0,
                    norm: true,
                },
                4,
                true,
            ),
            "InvalidArgument",
            "nbar",
        );
        assert_err(
            get_window::<f64>(Window::Chebwin(f64::NAN), 4, true),
            "InvalidArgument",
            "NaN",
        );
        Ok(())
    })
}

/// `upfirdn` with each of SciPy's extension modes (up, down, a filter reaching past a signal
/// of three values, along the first axis of a 2-D array), and `resample_poly` with each
/// padtype, against SciPy's values; the modes' errors.
fn upfirdn_modes(d: Device) -> TestResult {
    let xu: Vec<f64> = (0..7)
        .map(|i| (0.7 * i as f64).sin() + 0.05 * (i * i) as f64)
        .collect();
    let hu: Vec<f64> = (0..9).map(|i| (0.4 * i as f64).cos() + 0.1).collect();
    let x = Array::from_slice_on(d, &xu, &[7])?;
    let x3 = Array::from_slice_on(d, &xu[..3], &[3])?;
    let two: Vec<f64> = xu.iter().flat_map(|&v| [v, -2.0 * v]).collect();
    let x2 = Array::from_slice_on(d, &two, &[7, 2])?;
    let names = [
        "constant",
        "symmetric",
        "reflect",
        "edge",
        "wrap",
        "smooth",
        "antisymmetric",
        "antireflect",
        "line",
    ];
    for name in names {
        let mode = UpfirdnMode::from_name(name)?;
        let cval = if name == "constant" { 1.5 } else { 0.0 };
        let o = UpfirdnOpts::new().mode(mode).cval(cval);
        for (up, down) in [(1, 1), (2, 1), (1, 3), (3, 2)] {
            let key = format!("upfirdn_{name}_{up}_{down}");
            let got = upfirdn_with(&hu, &x, up, down, &o)?.to_vec()?;
            close(&got, &reference(&key), 1e-12, 1e-12, &key)?;
        }
        let key = format!("upfirdn_short_{name}");
        close(
            &upfirdn_with(&hu, &x3, 1, 2, &o)?.to_vec()?,
            &reference(&key),
            1e-12,
            1e-12,
            &key,
        )?;
        let key = format!("upfirdn_axis0_{name}");
        close(
            &upfirdn_with(&hu[..4], &x2, 2, 3, &o.axis(0))?.to_vec()?,
            &reference(&key),
            1e-12,
            1e-12,
            &key,
        )?;
    }
    let xr: Vec<f64> = (0..40)
        .map(|i| (0.3 * i as f64).cos() + 0.02 * i as f64)
        .collect();
    let xr = Array::from_slice_on(d, &xr, &[40])?;
    let pads = names
        .iter()
        .map(|&n| Ok((n, PolyPad::Mode(UpfirdnMode::from_name(n)?))))
        .chain([
            Ok(("mean", PolyPad::Mean)),
            Ok(("median", PolyPad::Median)),
            Ok(("minimum", PolyPad::Minimum)),
            Ok(("maximum", PolyPad::Maximum)),
        ])
        .collect::<cuprite_array::Result<Vec<_>>>()?;
    for (name, pad) in pads {
        let key = format!("rpoly_{name}");
        let o = ResamplePolyOpts::new().padtype(pad);
        let got = resample_poly_with(&xr, 3, 2, &o)?.to_vec()?;
        close(&got, &reference(&key), 1e-12, 1e-12, &key)?;
    }
    let o = ResamplePolyOpts::new()
        .padtype(PolyPad::Mode(UpfirdnMode::Constant))
        .cval(2.5);
    close(
        &resample_poly_with(&xr, 3, 2, &o)?.to_vec()?,
        &reference("rpoly_constant_cval"),
        1e-12,
        1e-12,
        "rpoly_constant_cval",
    )?;
    assert_err(
        resample_poly_with(
            &xr,
            3,
            2,
            &ResamplePolyOpts::new().padtype(PolyPad::Mean).cval(1.0),
        ),
        "InvalidArgument",
        "cval 1 has no effect",
    );
    let one = Array::from_slice_on(d, &[2.0f64], &[1])?;
    for mode in [UpfirdnMode::Reflect, UpfirdnMode::Line] {
        assert_err(
            upfirdn_with(&hu, &one, 1, 1, &UpfirdnOpts::new().mode(mode)),
            "InvalidArgument",
            "needs at least 2 values",
        );
    }
    // The modes that read one value extend a single value: every window holds three 2s.
    let edge = upfirdn_with(
        &[1.0; 3],
        &one,
        1,
        1,
        &UpfirdnOpts::new().mode(UpfirdnMode::Edge),
    )?;
    close(
        &edge.to_vec()?,
        &[6.0, 6.0, 6.0],
        0.0,
        0.0,
        "edge of one value",
    )?;
    assert_err(
        upfirdn_with(&hu, &x, 1, 1, &UpfirdnOpts::new().cval(f64::NAN)),
        "InvalidArgument",
        "cval NaN is not finite",
    );
    assert_err(
        UpfirdnMode::from_name("mirror"),
        "InvalidArgument",
        "mirror",
    );
    Ok(())
}

/// `resample` with a spectral window (named, of odd and even lengths, or the bins' weights),
/// downsampling, upsampling and at the same length, against SciPy's values.
fn resample_window(d: Device) -> TestResult {
    for (nx, num) in [(16usize, 24usize), (15, 10), (9, 9)] {
        let xs: Vec<f64> = (0..nx)
            .map(|i| (0.5 * i as f64).sin() + 0.1 * i as f64)
            .collect();
        let x = Array::from_slice_on(d, &xs, &[nx])?;
        for (wn, w) in [("hann", Window::Hann), ("kaiser", Window::Kaiser(6.0))] {
            let key = format!("resample_win_{wn}_{nx}_{num}");
            let got = resample_with(&x, num, &ResampleOpts::new().window(w))?.to_vec()?;
            close(&got, &reference(&key), 1e-12, 1e-12, &key)?;
        }
        // numpy's fftfreq: 0, 1, ..., then the negative frequencies.
        let wv: Vec<f64> = (0..nx)
            .map(|k| {
                let f = if k <= (nx - 1) / 2 {
                    k as f64
                } else {
                    k as f64 - nx as f64
                } / nx as f64;
                1.0 / (1.0 + 0.2 * f.abs() * nx as f64)
            })
            .collect();
        let key = format!("resample_winv_{nx}_{num}");
        let got = resample_with(&x, num, &ResampleOpts::new().window(wv))?.to_vec()?;
        close(&got, &reference(&key), 1e-12, 1e-12, &key)?;
    }
    let x = Array::from_slice_on(d, &[1.0f64, 2.0, 3.0, 4.0], &[4])?;
    assert_err(
        resample_with(&x, 6, &ResampleOpts::new().window(vec![1.0; 3])),
        "InvalidArgument",
        "a window of 3 values for a signal of 4",
    );
    Ok(())
}

/// The Slepian windows (`dpss`) in every norm, symmetric and periodic, their concentration
/// ratios, and `general_cosine`, against SciPy's values; the sequences' orthonormality
/// checked directly. The windows are made on the current device, `d`.
fn dpss_windows(d: Device) -> TestResult {
    cuprite_array::with_device(d, dpss_windows_here)
}

fn dpss_windows_here() -> TestResult {
    for (m, nw, k, nws) in [
        (16usize, 2.5, 4usize, "2.5"),
        (33, 3.0, 5, "3.0"),
        (64, 4.0, 7, "4.0"),
        (7, 1.5, 3, "1.5"),
        (200, 3.5, 6, "3.5"),
    ] {
        for sym in [true, false] {
            let tag = format!("{m}_{nws}_{k}_{}", if sym { "s" } else { "p" });
            let o = DpssOpts::new().sym(sym);
            let key = format!("dpss_{tag}");
            let w = dpss_with::<f64>(m, nw, &o.kmax(k))?.to_vec()?;
            close(&w, &reference(&key), 1e-9, 1e-11, &key)?;
            if sym {
                for a in 0..k {
                    for b in 0..k {
                        let dot: f64 = (0..m).map(|i| w[a * m + i] * w[b * m + i]).sum();
                        let want = if a == b { 1.0 } else { 0.0 };
                        if (dot - want).abs() > 1e-12 {
                            return Err(format!("dpss {tag}: <{a}, {b}> = {dot}").into());
                        }
                    }
                }
            }
            let key = format!("dpss_one_{tag}");
            close(
                &dpss_with::<f64>(m, nw, &o)?.to_vec()?,
                &reference(&key),
                1e-9,
                1e-11,
                &key,
            )?;
            for (nm, norm) in [
                ("approximate", DpssNorm::Approximate),
                ("subsample", DpssNorm::Subsample),
            ] {
                let key = format!("dpss_{nm}_{tag}");
                let got = dpss_with::<f64>(m, nw, &o.kmax(k).norm(norm))?.to_vec()?;
                close(&got, &reference(&key), 1e-9, 1e-11, &key)?;
            }
            let key = format!("dpss_ratios_{tag}");
            close(
                &dpss_ratios(m, nw, &o.kmax(k))?,
                &reference(&key),
                1e-9,
                1e-12,
                &key,
            )?;
        }
    }
    for m in [1usize, 2, 9, 10] {
        for sym in [true, false] {
            let key = format!("gcos_{m}_{}", if sym { "s" } else { "p" });
            let got = general_cosine::<f64>(m, &[0.3, 0.45, 0.2, 0.05], sym)?.to_vec()?;
            close(&got, &reference(&key), 1e-14, 1e-15, &key)?;
        }
    }
    assert_err(dpss::<f64>(8, 4.0), "InvalidArgument", "less than M / 2");
    assert_err(
        dpss::<f64>(8, 0.0),
        "InvalidArgument",
        "NW 0 must be positive",
    );
    assert_err(
        dpss_with::<f64>(8, 2.0, &DpssOpts::new().kmax(9)),
        "InvalidArgument",
        "kmax 9 must lie in 1..=8",
    );
    assert_err(
        general_cosine::<f64>(8, &[], true),
        "InvalidArgument",
        "no coefficient",
    );
    Ok(())
}

/// `filtfilt` by Gustafsson's method against SciPy's values: IIR and FIR filters, the whole
/// signal and the ends only (`irlen`), along the first axis of a 2-D signal, and a signal
/// shorter than twice the order (the minimum-norm states); `sosfiltfilt` refuses the method.
fn filtfilt_gust(d: Device) -> TestResult {
    let gx: Vec<f64> = (0..50)
        .map(|i| {
            let t = i as f64;
            (0.37 * t).sin() + 0.3 * (1.9 * t).cos() + 0.01 * t
        })
        .collect();
    let x = Array::from_slice_on(d, &gx, &[50])?;
    for nm in ["butter3", "cheby4", "fir3"] {
        let b = reference(&format!("gust_b_{nm}"));
        let a = reference(&format!("gust_a_{nm}"));
        for (irlen, tag) in [(None, "None"), (Some(10), "10"), (Some(30), "30")] {
            let key = format!("gust_{nm}_{tag}");
            let o = FiltfiltOpts::new().method(FiltfiltMethod::Gust { irlen });
            let got = filtfilt_with(&b, &a, &x, &o)?.to_vec()?;
            close(&got, &reference(&key), 1e-9, 1e-11, &key)?;
        }
    }
    let b = reference("gust_b_cheby4");
    let a = reference("gust_a_cheby4");
    let g2: Vec<f64> = (0..40)
        .flat_map(|i| [gx[i], (0.2 * i as f64).cos(), -gx[10 + i]])
        .collect();
    let x2 = Array::from_slice_on(d, &g2, &[40, 3])?;
    for (irlen, key) in [
        (None, "gust_cheby4_axis0"),
        (Some(8), "gust_cheby4_axis0_irlen8"),
    ] {
        let o = FiltfiltOpts::new()
            .axis(0)
            .method(FiltfiltMethod::Gust { irlen });
        let got = filtfilt_with(&b, &a, &x2, &o)?.to_vec()?;
        close(&got, &reference(key), 1e-9, 1e-11, key)?;
    }
    let short = Array::from_slice_on(d, &gx[..5], &[5])?;
    let o = FiltfiltOpts::new().method(FiltfiltMethod::Gust { irlen: None });
    close(
        &filtfilt_with(&b, &a, &short, &o)?.to_vec()?,
        &reference("gust_cheby4_short"),
        1e-8,
        1e-10,
        "gust_cheby4_short",
    )?;
    assert_err(
        sosfiltfilt_with(&[[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]], &x, &o),
        "InvalidArgument",
        "padding method only",
    );
    Ok(())
}

/// The transposed direct form II in complex arithmetic from the state `z`, on the host.
fn df2t_complex(b: &[c64], a: &[c64], x: &[c64], z: &mut [c64]) -> Vec<c64> {
    let p = z.len();
    let at = |k: usize| a.get(k).copied().unwrap_or_default() / a[0];
    let bt = |k: usize| b.get(k).copied().unwrap_or_default() / a[0];
    x.iter()
        .map(|&xi| {
            let y = bt(0) * xi + z.first().copied().unwrap_or_default();
            for k in 0..p {
                let next = if k + 1 < p {
                    z[k + 1]
                } else {
                    c64::new(0.0, 0.0)
                };
                z[k] = bt(k + 1) * xi + next - at(k + 1) * y;
            }
            y
        })
        .collect()
}

/// `lfilter_complex` against the complex recurrence run on the host: real coefficients on a
/// complex signal with complex initial states (final states checked), complex coefficients
/// along the first axis, in `c64` and `c32`, from complex initial states too.
fn lfilter_complex_values(d: Device) -> TestResult {
    let cx = |i: usize, j: usize| {
        let t = i as f64;
        c64::new(
            (0.3 * t + j as f64).sin(),
            (0.7 * t - 0.5 * j as f64).cos() * 0.5,
        )
    };
    // Real coefficients, rows of 40 along the last axis, complex states.
    let (b, a) = ([0.2, 0.3, -0.1], [1.0, -0.5, 0.2]);
    let bc: Vec<c64> = b.iter().map(|&v| c64::new(v, 0.0)).collect();
    let ac: Vec<c64> = a.iter().map(|&v| c64::new(v, 0.0)).collect();
    let xs: Vec<c64> = (0..2)
        .flat_map(|j| (0..40).map(move |i| cx(i, j)))
        .collect();
    let zs = [
        c64::new(0.5, -0.2),
        c64::new(0.1, 0.3),
        c64::new(-0.4, 0.0),
        c64::new(0.2, 0.7),
    ];
    let x = Array::from_slice_on(d, &xs, &[2, 40])?;
    let zi = Array::from_slice_on(d, &zs, &[2, 2])?;
    let (y, zf) = lfilter_complex(&bc, &ac, &x, 1, Some(&zi))?;
    let (y, zf) = (y.to_vec()?, zf.ok_or("no final states")?.to_vec()?);
    for r in 0..2 {
        let mut z = [zs[2 * r], zs[2 * r + 1]];
        let want = df2t_complex(&bc, &ac, &xs[r * 40..(r + 1) * 40], &mut z);
        for (k, (g, w)) in y[r * 40..(r + 1) * 40].iter().zip(&want).enumerate() {
            if (g - w).norm() > 1e-12 * (1.0 + w.norm()) {
                return Err(
                    format!("real coefficients, row {r}, value {k}: {g} against {w}").into(),
                );
            }
        }
        for k in 0..2 {
            if (zf[2 * r + k] - z[k]).norm() > 1e-12 {
                return Err(
                    format!("final state {r},{k}: {} against {}", zf[2 * r + k], z[k]).into(),
                );
            }
        }
    }
    // Complex coefficients, along the first axis of a [30, 3] array.
    let b = [c64::new(1.0, 0.5), c64::new(0.0, -0.3), c64::new(0.2, 0.0)];
    let a = [c64::new(1.5, 0.0), c64::new(-0.4, 0.3), c64::new(0.1, -0.2)];
    let xs: Vec<c64> = (0..30)
        .flat_map(|i| (0..3).map(move |j| cx(i, j)))
        .collect();
    let x = Array::from_slice_on(d, &xs, &[30, 3])?;
    let y = lfilter_complex(&b, &a, &x, 0, None)?.0.to_vec()?;
    let x32: Vec<c32> = xs
        .iter()
        .map(|v| c32::new(v.re as f32, v.im as f32))
        .collect();
    let y32 = lfilter_complex(&b, &a, &Array::from_slice_on(d, &x32, &[30, 3])?, 0, None)?
        .0
        .to_vec()?;
    for j in 0..3 {
        let col: Vec<c64> = (0..30).map(|i| xs[i * 3 + j]).collect();
        let want = df2t_complex(&b, &a, &col, &mut [c64::new(0.0, 0.0); 2]);
        for (i, w) in want.iter().enumerate() {
            let g = y[i * 3 + j];
            if (g - w).norm() > 1e-11 * (1.0 + w.norm()) {
                return Err(format!("complex coefficients at ({i}, {j}): {g} against {w}").into());
            }
            let g = y32[i * 3 + j];
            let g = c64::new(g.re as f64, g.im as f64);
            if (g - w).norm() > 1e-4 * (1.0 + w.norm()) {
                return Err(format!("c32 at ({i}, {j}): {g} against {w}").into());
            }
        }
    }
    // Complex coefficients from complex states ([2, 3]: the axis of length 2), their final
    // states; and one state vector for every signal.
    let zs: Vec<c64> = (0..6)
        .map(|k| c64::new(0.3 * k as f64 - 0.7, 0.2 - 0.15 * k as f64))
        .collect();
    let zi = Array::from_slice_on(d, &zs, &[2, 3])?;
    let (y, zf) = lfilter_complex(&b, &a, &x, 0, Some(&zi))?;
    let (y, zf) = (y.to_vec()?, zf.ok_or("no final states")?.to_vec()?);
    let zi1 = Array::from_slice_on(d, &zs[..2], &[2])?;
    let y1 = lfilter_complex(&b, &a, &x, 0, Some(&zi1))?.0.to_vec()?;
    for j in 0..3 {
        let col: Vec<c64> = (0..30).map(|i| xs[i * 3 + j]).collect();
        let mut z = [zs[j], zs[3 + j]];
        let want = df2t_complex(&b, &a, &col, &mut z);
        let mut z1 = [zs[0], zs[1]];
        let want1 = df2t_complex(&b, &a, &col, &mut z1);
        for (i, (w, w1)) in want.iter().zip(&want1).enumerate() {
            for (g, w, what) in [(y[i * 3 + j], w, "zi"), (y1[i * 3 + j], w1, "1-D zi")] {
                if (g - w).norm() > 1e-11 * (1.0 + w.norm()) {
                    return Err(format!(
                        "complex coefficients, {what}, at ({i}, {j}): {g} against {w}"
                    )
                    .into());
                }
            }
        }
        for k in 0..2 {
            let g = zf[k * 3 + j];
            if (g - z[k]).norm() > 1e-11 * (1.0 + z[k].norm()) {
                return Err(format!("complex final state ({k}, {j}): {g} against {}", z[k]).into());
            }
        }
    }
    let bad = Array::from_slice_on(d, &zs[..3], &[3])?;
    assert_err(
        lfilter_complex(&b, &a, &x, 0, Some(&bad)),
        "Shape",
        "zi has shape [3]",
    );
    Ok(())
}

/// The spectral routines of complex signals (two-sided, as SciPy's) against SciPy's values:
/// `welch` (mean, median, linear detrend with spectrum scaling), `periodogram`, `csd` with a
/// real and with a complex partner, `coherence`, `spectrogram` in each mode and `stft`; a real
/// signal before a complex one gives the conjugate of the reverse order (SciPy 1.17 refuses
/// that order).
fn complex_spectra(d: Device) -> TestResult {
    let zc: Vec<c64> = (0..200)
        .map(|i| {
            let t = i as f64;
            c64::new(
                (0.4 * t).cos() + 0.3 * (1.3 * t).sin() + 0.01 * t,
                (0.7 * t).sin() - 0.2 * (2.1 * t).cos(),
            )
        })
        .collect();
    let yr: Vec<f64> = (0..200)
        .map(|i| {
            let t = i as f64;
            (0.45 * t).sin() + 0.1 * (0.05 * t * t).cos()
        })
        .collect();
    let flat = |v: Vec<c64>| -> Vec<f64> { v.into_iter().flat_map(|z| [z.re, z.im]).collect() };
    let z = Array::from_slice_on(d, &zc, &[200])?;
    let y = Array::from_slice_on(d, &yr, &[200])?;
    let chk = |got: &[f64], key: &str| close(got, &reference(key), 1e-9, 1e-12, key);
    for (av, a) in [("mean", Average::Mean), ("median", Average::Median)] {
        let (f, p) = welch_with(&z, &WelchOpts::new().fs(2.0).nperseg(32).average(a))?;
        chk(&p.to_vec()?, &format!("cx_welch_{av}"))?;
        chk(&f, &format!("cx_welch_{av}_f"))?;
    }
    let o = WelchOpts::new()
        .nperseg(40)
        .noverlap(10)
        .detrend(Detrend::Linear)
        .window(Window::Hamming)
        .scaling(Scaling::Spectrum);
    chk(&welch_with(&z, &o)?.1.to_vec()?, "cx_welch_lin")?;
    let z64 = z.slice(&[(0..64).into()])?;
    let (f, p) = periodogram(&z64)?;
    chk(&p.to_vec()?, "cx_periodogram")?;
    chk(&f, "cx_periodogram_f")?;
    let o = WelchOpts::new().nperseg(32);
    let zr = Array::from_slice_on(
        d,
        &yr.iter().map(|&v| c64::new(v, 0.0)).collect::<Vec<_>>(),
        &[200],
    )?;
    let pzy = csd_with(&z, &zr, &o)?.1.to_vec()?;
    chk(&flat(pzy.clone()), "cx_csd_real")?;
    // A real `y` as its own type: the same values.
    let (_, pyz) = csd_with(&y.cast::<c64>(), &z, &o)?;
    let conj: Vec<c64> = pzy.iter().map(|v| v.conj()).collect();
    close(
        &flat(pyz.to_vec()?),
        &flat(conj),
        1e-12,
        1e-14,
        "csd(y, z) = conj(csd(z, y))",
    )?;
    let rot = c64::from_polar(1.0, 0.3);
    let w: Vec<c64> = zc.iter().zip(&yr).map(|(a, b)| a * rot + b).collect();
    let w = Array::from_slice_on(d, &w, &[200])?;
    let om = WelchOpts::new().nperseg(32).average(Average::Median);
    chk(
        &flat(csd_with(&z, &w, &om)?.1.to_vec()?),
        "cx_csd_both_median",
    )?;
    let zy: Vec<c64> = zc.iter().zip(&yr).map(|(a, b)| a + b).collect();
    let zy = Array::from_slice_on(d, &zy, &[200])?;
    chk(&coherence_with(&z, &zy, &o)?.1.to_vec()?, "cx_coherence")?;
    for (name, mode) in [
        ("psd", SpectrogramMode::Psd),
        ("magnitude", SpectrogramMode::Magnitude),
        ("angle", SpectrogramMode::Angle),
        ("phase", SpectrogramMode::Phase),
    ] {
        let (_, _, sg) = spectrogram_with(&z, &SpectrogramOpts::new().nperseg(24).mode(mode))?;
        chk(&sg.to_vec()?, &format!("cx_spec_{name}"))?;
    }
    let (f, t, st) = stft_with(&z, &StftOpts::new().nperseg(20))?;
    chk(&flat(st.to_vec()?), "cx_stft")?;
    chk(&f, "cx_stft_f")?;
    chk(&t, "cx_stft_t")?;
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("complex_spectra", complex_spectra),
    ("lfilter_complex_values", lfilter_complex_values),
    ("filtfilt_gust", filtfilt_gust),
    ("dpss_windows", dpss_windows),
    ("resample_window", resample_window),
    ("upfirdn_modes", upfirdn_modes),
    ("windows_more", windows_more),
    ("symmetric_iir", symmetric_iir),
    ("wavelets", wavelets),
    ("order_filters", order_filters),
    ("bsplines", bsplines),
    ("conv2d_modes", conv2d_modes),
    ("relative_extrema", relative_extrema),
    ("filter_helpers", filter_helpers),
    ("generators", generators),
];

fn sos_designs(_d: Device) -> TestResult {
    let flat = |v: Vec<[f64; 6]>| -> Vec<f64> { v.into_iter().flatten().collect() };
    let cases: [(&str, Vec<[f64; 6]>); 6] = [
        ("sos_butter_5_hp", butter_sos(5, 0.2, BandType::Highpass)?),
        (
            "sos_butter_4_bs",
            butter_sos(4, [0.1, 0.3], BandType::Bandstop)?,
        ),
        (
            "sos_cheby1_7_lp",
            cheby1_sos(7, 0.5, 0.35, BandType::Lowpass)?,
        ),
        (
            "sos_cheby2_6_bp",
            cheby2_sos(6, 60.0, [0.2, 0.5], BandType::Bandpass)?,
        ),
        (
            "sos_ellip_7_hp",
            ellip_sos(7, 0.1, 80.0, 0.3, BandType::Highpass)?,
        ),
        (
            "sos_bessel_3_bp",
            bessel_sos(3, [0.1, 0.2], BandType::Bandpass, BesselNorm::Phase)?,
        ),
    ];
    for (name, sos) in cases {
        close(&flat(sos), &reference(name), 1e-9, 1e-12, name)?;
    }
    Ok(())
}

/// The filters build their states on the input's device whatever the current device is: a
/// CPU input filtered while the thread's current device is a GPU (never touched: the arrays
/// are lazy and every input is on the CPU) gives the values of the plain call.
fn current_device_elsewhere() -> TestResult {
    let (b, a) = ([0.2, 0.3, -0.1], [1.0, -0.4, 0.2]);
    let xs: Vec<f64> = (0..12).map(|i| (0.8 * i as f64).sin()).collect();
    let x = Array::from_slice_on(Device::CPU, &xs, &[2, 6])?;
    let (want, _) = lfilter(&b, &a, &x, 1, None)?;
    let want = want.to_vec()?;
    let got = cuprite_array::with_device(Device::cuda(0), || lfilter(&b, &a, &x, 1, None))?;
    if got.0.device() != Device::CPU {
        return Err(format!("lfilter's output lives on {:?}", got.0.device()).into());
    }
    close(
        &got.0.to_vec()?,
        &want,
        0.0,
        0.0,
        "lfilter under another current device",
    )
}

pub fn tests() -> Vec<Test> {
    // Host computations: one run.
    let mut v = vec![
        Test::cpu(
            "cpu::signal_more::current_device_elsewhere".to_string(),
            current_device_elsewhere,
        ),
        Test::cpu("cpu::signal_more::systems".to_string(), || {
            systems(Device::CPU)
        }),
        Test::cpu("cpu::signal_more::sos_designs".to_string(), || {
            sos_designs(Device::CPU)
        }),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::signal_more::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::signal_more::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
