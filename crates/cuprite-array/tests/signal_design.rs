//! IIR design (`butter`, `cheby1`, `cheby2`, `ellip`, `bessel` and their second-order
//! sections, in the four band types) checked against what the designs must be, derived here:
//! the prototypes' magnitude responses (`1 / (1 + W^2N)`, `1 / (1 + eps^2 T_N(W)^2)`, `1 / (1 +
//! 1 / (eps^2 T_N(1 / W)^2))`, `|theta_N(0) / theta_N(i c W)|^2` of the reverse Bessel
//! polynomial) at the frequency that the bilinear transform's warping `W = tan(w / 2)` and the
//! band substitution give, hence -3 dB, `-rp` dB or `-rs` dB at the edges; the zeros of the
//! all-pole designs (at `z = -1`, `z = 1`, or the band's centre on the unit circle); poles
//! inside the unit circle (the Schur-Cohn step-down test). Elliptic designs against SciPy's
//! coefficients and their equiripple bounds. Order selection against SciPy's orders, the
//! specifications met by the designs, and minimal by the formulas; notch and peak filters by
//! their gains and -3 dB widths; frequency responses and group delays against closed forms.
//! `sosfiltfilt` and the IIR `decimate` against an f64 `filtfilt` written here from SciPy's
//! definition (odd extension, `lfilter_zi` steady state, forward and backward passes), and a
//! sum of two tones that decimation must split. Window-method FIR designs (`firwin_bands`)
//! against sums of sincs written here, their gains in the pass and stop bands, and Kaiser's
//! order formula against the bounds it promises. Least-squares FIR designs (`firls`) against
//! SciPy's taps and the normal equations of their error; equiripple designs (`remez`) against
//! SciPy's taps and the alternation theorem. Analog designs and `freqs` against SciPy's
//! coefficients and responses. Savitzky-Golay coefficients and filters against
//! SciPy's values, and polynomials their fits reproduce. Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::signal::{
    self, BandType, BesselNorm, Cutoff, DecimateOpts, IirFamily, RemezKind, RemezOpts, SavgolEdges,
    SavgolOpts, Window, bessel, bessel_sos, butter, butter_sos, buttord, cheb1ord, cheb2ord,
    cheby1, cheby1_sos, cheby2, cheby2_sos, decimate_with, ellip, ellip_sos, ellipord, firls,
    firwin, firwin_bands, freqs, freqz, group_delay, iir_analog, iirnotch, iirpeak, kaiser_atten,
    kaiser_beta, kaiserord, remez, remez_with, savgol_coeffs, savgol_filter, sosfiltfilt, sosfreqz,
};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::f64::consts::PI;

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// `|H(e^{iw})|^2` of `(b, a)`.
fn gain2(b: &[f64], a: &[f64], w: f64) -> f64 {
    let eval = |c: &[f64]| {
        let (mut re, mut im) = (0.0, 0.0);
        for (k, &v) in c.iter().enumerate() {
            re += v * (w * k as f64).cos();
            im -= v * (w * k as f64).sin();
        }
        re * re + im * im
    };
    eval(b) / eval(a)
}

/// Whether every root of the polynomial `a` (in `z^-1`, `a[0] != 0`) lies inside the unit
/// circle: the Schur-Cohn step-down recursion's reflection coefficients all below 1.
fn stable(a: &[f64]) -> bool {
    let mut c: Vec<f64> = a.iter().map(|v| v / a[0]).collect();
    while c.len() > 1 {
        let m = c.len() - 1;
        let k = c[m];
        if k.abs() >= 1.0 {
            return false;
        }
        c = (0..m)
            .map(|i| (c[i] - k * c[m - i]) / (1.0 - k * k))
            .collect();
    }
    true
}

/// The Chebyshev polynomial `T_n(x)` for `x >= 0`.
fn cheb(n: usize, x: f64) -> f64 {
    if x <= 1.0 {
        (n as f64 * x.acos()).cos()
    } else {
        (n as f64 * x.acosh()).cosh()
    }
}

/// The product of the sections' `|H|^2`.
fn sos_gain2(sos: &[[f64; 6]], w: f64) -> f64 {
    sos.iter().map(|s| gain2(&s[..3], &s[3..], w)).product()
}

/// The prototype's frequency that the digital frequency `w` maps to in a design of `btype`
/// with (digital) edges `e`: `W = tan(w / 2)` against the warped edges, through the low-pass
/// to `btype` substitution (`W / Wc`, `Wc / W`, `(W^2 - W0^2) / (W BW)`, `W BW / (W0^2 - W^2)`),
/// as a magnitude (the prototypes' gains are even).
fn proto_freq(w: f64, e: [f64; 2], btype: BandType) -> f64 {
    let big_w = (w / 2.0).tan();
    let [lo, hi] = e.map(|v| (PI * v / 2.0).tan());
    let (w02, bw) = (lo * hi, hi - lo);
    match btype {
        BandType::Lowpass => big_w / lo,
        BandType::Highpass => lo / big_w,
        BandType::Bandpass => ((big_w * big_w - w02) / (big_w * bw)).abs(),
        BandType::Bandstop => (big_w * bw / (w02 - big_w * big_w)).abs(),
    }
}

/// The product of the polynomials (in `z^-1`) `f`, `n` times.
fn poly_pow(f: &[f64], n: usize) -> Vec<f64> {
    (0..n).fold(vec![1.0], |acc, _| {
        let mut out = vec![0.0; acc.len() + f.len() - 1];
        for (i, &a) in acc.iter().enumerate() {
            for (j, &b) in f.iter().enumerate() {
                out[i + j] += a * b;
            }
        }
        out
    })
}

/// The numerator, up to its gain, of an all-pole prototype of order `n` moved to `btype`:
/// every zero at infinity lands at `z = -1` (low-pass), `z = 1` (high-pass), both (band-pass)
/// or on the unit circle at the band's centre `cos(w0) = (1 - W0^2) / (1 + W0^2)` (band-stop).
fn all_pole_zeros(n: usize, e: [f64; 2], btype: BandType) -> Vec<f64> {
    let w02 = (PI * e[0] / 2.0).tan() * (PI * e[1] / 2.0).tan();
    let c = (1.0 - w02) / (1.0 + w02);
    match btype {
        BandType::Lowpass => poly_pow(&[1.0, 1.0], n),
        BandType::Highpass => poly_pow(&[1.0, -1.0], n),
        BandType::Bandpass => poly_pow(&[1.0, 0.0, -1.0], n),
        BandType::Bandstop => poly_pow(&[1.0, -2.0 * c, 1.0], n),
    }
}

/// One design's coefficients: `order + 1` of each, `a[0] = 1`, the zeros `zeros` (up to
/// the gain) when given, stable, sections of the right count, each stable, and `|H|^2` of
/// both forms against `want` of the prototype's frequency on 63 points.
#[allow(clippy::too_many_arguments)]
fn check_design(
    what: &str,
    (b, a): &(Vec<f64>, Vec<f64>),
    sos: &[[f64; 6]],
    order: usize,
    e: [f64; 2],
    btype: BandType,
    zeros: Option<Vec<f64>>,
    want: &dyn Fn(f64) -> f64,
) -> TestResult {
    if b.len() != order + 1 || a.len() != order + 1 || (a[0] - 1.0).abs() > 1e-15 {
        return Err(format!(
            "{what}: {} and {} coefficients, a[0] = {}",
            b.len(),
            a.len(),
            a[0]
        )
        .into());
    }
    if !stable(a) {
        return Err(format!("{what}: a pole on or outside the unit circle (a = {a:?})").into());
    }
    if let Some(z) = zeros {
        let bz: Vec<f64> = z.iter().map(|v| v * b[0]).collect();
        close(b, &bz, 1e-8, 1e-14, &format!("{what}: zeros"))?;
    }
    for i in 1..64 {
        let w = PI * i as f64 / 64.0;
        let g = want(proto_freq(w, e, btype));
        // The expanded (b, a) of a low cutoff is ill-conditioned (poles clustered near z = 1):
        // coefficients rounded by `e` move |H|^2 by up to `2 e (sum|b| / |B| + sum|a| / |A|)`
        // times itself, where the sections keep 1e-12. Near a band-stop's null of high
        // multiplicity the expansion's own rounding (up to `2^order` times `e` in `B`) exceeds
        // that, so the expanded form is checked where the gain is above 1e-9 only.
        let got = gain2(b, a, w);
        let cond = |c: &[f64]| c.iter().map(|v| v.abs()).sum::<f64>() / gain2(c, &[1.0], w).sqrt();
        let tol = 1e-14 * (cond(b) + cond(a)) * g + 1e-12;
        if g >= 1e-9 && (got - g).abs() > tol {
            return Err(format!("{what}: |H|^2 at w = {w}: {got}, expected {g}").into());
        }
        let gs = sos_gain2(sos, w);
        if (gs - g).abs() > 1e-9 * (1.0 + g) {
            return Err(format!("{what}: sections' |H|^2 at w = {w}: {gs}, expected {g}").into());
        }
    }
    if sos.len() != order.div_ceil(2) || sos.iter().any(|s| s[3] != 1.0 || !stable(&s[3..])) {
        return Err(format!("{what}: sections {sos:?}").into());
    }
    Ok(())
}

/// The edges of a test design of `btype` around `wn`: the one cutoff, or a band from `wn`.
fn test_edges(wn: f64, btype: BandType) -> ([f64; 2], Cutoff) {
    match btype {
        BandType::Lowpass | BandType::Highpass => ([wn, wn], Cutoff::Edge(wn)),
        _ => {
            let hi = wn + (1.0 - wn) * 0.45;
            ([wn, hi], Cutoff::Band(wn, hi))
        }
    }
}

const ALL_BANDS: [BandType; 4] = [
    BandType::Lowpass,
    BandType::Highpass,
    BandType::Bandpass,
    BandType::Bandstop,
];

/// The order of a design of order `n` and `btype`.
fn order_of(n: usize, btype: BandType) -> usize {
    match btype {
        BandType::Lowpass | BandType::Highpass => n,
        _ => 2 * n,
    }
}

fn designs(_d: Device) -> TestResult {
    for btype in ALL_BANDS {
        let band = order_of(1, btype) == 2;
        for n in 1..=if band { 6 } else { 9 } {
            for wn in [0.05, 0.2, 0.5, 0.77] {
                let (e, cut) = test_edges(wn, btype);
                let order = order_of(n, btype);
                let what = format!("butter({n}, {cut:?}, {btype:?})");
                let ba = butter(n, cut, btype)?;
                let sos = butter_sos(n, cut, btype)?;
                let want = |r: f64| 1.0 / (1.0 + r.powi(2 * n as i32));
                let zeros = Some(all_pole_zeros(n, e, btype));
                check_design(&what, &ba, &sos, order, e, btype, zeros, &want)?;
                // -3 dB at each edge (of the sections, the well-conditioned form).
                for edge in e {
                    let g = sos_gain2(&sos, PI * edge);
                    assert!((g - 0.5).abs() < 1e-12, "{what}: {g} at the edge {edge}");
                }
                for rp in [0.05, 0.5, 3.0] {
                    let what = format!("cheby1({n}, {rp}, {cut:?}, {btype:?})");
                    let ba = cheby1(n, rp, cut, btype)?;
                    let sos = cheby1_sos(n, rp, cut, btype)?;
                    let eps2 = 10f64.powf(rp / 10.0) - 1.0;
                    let want = |r: f64| 1.0 / (1.0 + eps2 * cheb(n, r).powi(2));
                    let zeros = Some(all_pole_zeros(n, e, btype));
                    check_design(&what, &ba, &sos, order, e, btype, zeros, &want)?;
                    // -rp dB at each edge.
                    let db = |g2: f64| 10.0 * g2.log10();
                    for edge in e {
                        let g = db(sos_gain2(&sos, PI * edge));
                        assert!((g + rp).abs() < 1e-10, "{what}: {g} dB at the edge {edge}");
                    }
                }
                for rs in [20.0, 45.0, 80.0] {
                    let what = format!("cheby2({n}, {rs}, {cut:?}, {btype:?})");
                    let ba = cheby2(n, rs, cut, btype)?;
                    let sos = cheby2_sos(n, rs, cut, btype)?;
                    // |H|^2 = 1 / (1 + 1 / (eps^2 T_n(1 / W)^2)), eps^2 = 1 / (10^(rs / 10) - 1).
                    let eps2 = 1.0 / (10f64.powf(rs / 10.0) - 1.0);
                    let want = |r: f64| {
                        if r == 0.0 {
                            1.0
                        } else {
                            1.0 / (1.0 + 1.0 / (eps2 * cheb(n, 1.0 / r).powi(2)))
                        }
                    };
                    check_design(&what, &ba, &sos, order, e, btype, None, &want)?;
                    for edge in e {
                        let g = 10.0 * sos_gain2(&sos, PI * edge).log10();
                        assert!((g + rs).abs() < 1e-8, "{what}: {g} dB at the edge {edge}");
                    }
                }
            }
        }
    }
    Ok(())
}

/// `theta_n(s) = sum_m (2n - m)! / (2^(n - m) m! (n - m)!) s^m`, the reverse Bessel polynomial,
/// at the complex point `(re, im)`, as `(re, im)`.
fn theta(n: usize, (re, im): (f64, f64)) -> (f64, f64) {
    let fact = |k: usize| (1..=k).map(|v| v as f64).product::<f64>();
    let mut acc = (0.0, 0.0);
    for m in (0..=n).rev() {
        let c = fact(2 * n - m) / (2f64.powi((n - m) as i32) * fact(m) * fact(n - m));
        acc = (acc.0 * re - acc.1 * im + c, acc.0 * im + acc.1 * re);
    }
    acc
}

/// Bessel designs against `|theta_n(0) / theta_n(i c W)|^2` of the prototype frequency, where
/// `c` is 1 (delay), `theta_n(0)^(1/n)` (phase) or found here by bisection for -3 dB at 1
/// (magnitude); high orders (up to the limit) through their sections alone.
fn bessel_designs(_d: Device) -> TestResult {
    let db = |g2: f64| 10.0 * g2.log10();
    for norm in [BesselNorm::Phase, BesselNorm::Delay, BesselNorm::Mag] {
        // Normalised by delay, the cutoff sits far below the poles, so a high-pass at 0.1 of
        // order 10 has poles within 1e-3 of z = 1, which its expanded `a` (as SciPy's) no
        // longer keeps inside the unit circle.
        let top = if norm == BesselNorm::Delay { 8 } else { 10 };
        for n in 1..=top {
            let power = |c: f64, r: f64| {
                let t0 = theta(n, (0.0, 0.0)).0;
                let (re, im) = theta(n, (0.0, c * r));
                t0 * t0 / (re * re + im * im)
            };
            let c = match norm {
                BesselNorm::Delay => 1.0,
                BesselNorm::Phase => theta(n, (0.0, 0.0)).0.powf(1.0 / n as f64),
                BesselNorm::Mag => {
                    let (mut lo, mut hi) = (1e-3f64, 1e3f64);
                    for _ in 0..200 {
                        let mid = (lo * hi).sqrt();
                        if power(mid, 1.0) > 0.5 {
                            lo = mid;
                        } else {
                            hi = mid;
                        }
                    }
                    lo
                }
            };
            for btype in ALL_BANDS {
                for wn in [0.1, 0.4] {
                    let (e, cut) = test_edges(wn, btype);
                    let what = format!("bessel({n}, {cut:?}, {btype:?}, {norm:?})");
                    let ba = bessel(n, cut, btype, norm)?;
                    let sos = bessel_sos(n, cut, btype, norm)?;
                    let zeros = Some(all_pole_zeros(n, e, btype));
                    let order = order_of(n, btype);
                    check_design(&what, &ba, &sos, order, e, btype, zeros, &|r| power(c, r))?;
                }
            }
        }
    }
    // The highest orders: sections only (the expanded form loses the digits), against the
    // phase-normalised prototype to the accuracy of their poles.
    for n in [14usize, 17, 20] {
        let c = theta(n, (0.0, 0.0)).0.powf(1.0 / n as f64);
        let sos = bessel_sos(n, 0.3, BandType::Lowpass, BesselNorm::Phase)?;
        for i in 0..64 {
            let w = PI * i as f64 / 64.0;
            let r = proto_freq(w, [0.3, 0.3], BandType::Lowpass);
            let t0 = theta(n, (0.0, 0.0)).0;
            let (re, im) = theta(n, (0.0, c * r));
            let want = t0 * t0 / (re * re + im * im);
            let got = sos_gain2(&sos, w);
            assert!(
                (got - want).abs() <= 1e-5 * want + 1e-12,
                "bessel({n}): {got} at {w}, expected {want}"
            );
        }
        assert!(sos.iter().all(|s| stable(&s[3..])), "bessel({n}): {sos:?}");
        let dc = db(sos_gain2(&sos, 0.0));
        assert!(dc.abs() < 1e-9, "bessel({n}): {dc} dB at DC");
    }
    Ok(())
}

/// SciPy's coefficients of four elliptic designs (`scipy.signal.ellip` 1.17.1): the order,
/// `rp`, `rs`, the edges, the band, `b` and `a`.
type EllipCase = (
    usize,
    f64,
    f64,
    Cutoff,
    BandType,
    &'static [f64],
    &'static [f64],
);
const SCIPY_ELLIP: [EllipCase; 4] = [
    (
        5,
        0.5,
        40.0,
        Cutoff::Edge(0.3),
        BandType::Lowpass,
        &[
            0.029996822957963486,
            0.004506531302600191,
            0.03647368255008746,
            0.03647368255008746,
            0.004506531302600191,
            0.029996822957963486,
        ],
        &[
            1.0,
            -2.8647830109784733,
            4.158242401070721,
            -3.4121809495911797,
            1.5980898744867251,
            -0.3374142413664916,
        ],
    ),
    (
        4,
        1.0,
        60.0,
        Cutoff::Edge(0.3),
        BandType::Highpass,
        &[
            0.22152181604795587,
            -0.8484552626630245,
            1.254719225226086,
            -0.8484552626630246,
            0.22152181604795593,
        ],
        &[
            1.0,
            -1.1558967619258695,
            1.143858885549153,
            -0.3223803309291685,
            0.18675020325458677,
        ],
    ),
    (
        3,
        1.0,
        50.0,
        Cutoff::Band(0.2, 0.5),
        BandType::Bandpass,
        &[
            0.04417280996556676,
            -0.0176486440819491,
            -0.08888858230472334,
            0.0,
            0.08888858230472332,
            0.017648644081949102,
            -0.04417280996556673,
        ],
        &[
            1.0,
            -2.3311142315287654,
            3.4983592010597233,
            -3.446926307039787,
            2.6308833403861818,
            -1.2507500192843417,
            0.39888954902976836,
        ],
    ),
    (
        2,
        0.1,
        30.0,
        Cutoff::Band(0.3, 0.6),
        BandType::Bandstop,
        &[
            0.6905036831381957,
            -0.4837213546840747,
            1.459060033582343,
            -0.4837213546840745,
            0.6905036831381955,
        ],
        &[
            1.0,
            -0.576718499691222,
            1.370736279191635,
            -0.4019266682791282,
            0.5022175512187924,
        ],
    ),
];

/// Elliptic designs: [`SCIPY_ELLIP`], and for a grid of orders, ripples and cutoffs the
/// defining bounds of the magnitude: within `[-rp, 0]` dB over the passband, exactly `-rp`
/// dB at its edge, at most `-rs` dB beyond the first frequency where it reaches `-rs` dB, and
/// `-rs` dB at Nyquist for even orders (`|H(inf)|^2 = 1 / (1 + eps_s^2)` of the prototype) or
/// unit gain at DC for odd ones.
fn ellip_designs(_d: Device) -> TestResult {
    for (n, rp, rs, cut, btype, wb, wa) in SCIPY_ELLIP {
        let what = format!("ellip({n}, {rp}, {rs}, {cut:?}, {btype:?})");
        let (b, a) = ellip(n, rp, rs, cut, btype)?;
        close(&b, wb, 1e-11, 1e-14, &format!("{what}: b"))?;
        close(&a, wa, 1e-11, 1e-14, &format!("{what}: a"))?;
    }
    let db = |g2: f64| 10.0 * g2.log10();
    for n in 1..=8usize {
        for (rp, rs) in [(0.1, 40.0), (1.0, 60.0), (3.0, 25.0)] {
            for wn in [0.1, 0.35, 0.7] {
                let what = format!("ellip({n}, {rp}, {rs}, {wn}, Lowpass)");
                let sos = ellip_sos(n, rp, rs, wn, BandType::Lowpass)?;
                let ba = ellip(n, rp, rs, wn, BandType::Lowpass)?;
                if sos.len() != n.div_ceil(2) || !stable(&ba.1) {
                    return Err(format!("{what}: {} sections, a = {:?}", sos.len(), ba.1).into());
                }
                let steps = 4000;
                for i in 0..=steps {
                    let w = PI * wn * i as f64 / steps as f64;
                    let g = db(sos_gain2(&sos, w));
                    assert!(g <= 1e-9 && g >= -rp - 1e-9, "{what}: {g} dB at {w}");
                }
                let g = db(sos_gain2(&sos, PI * wn));
                assert!((g + rp).abs() < 1e-8, "{what}: {g} dB at the cutoff");
                let mut first_stop = None;
                for i in 0..=steps {
                    let w = PI * (wn + (1.0 - wn) * i as f64 / steps as f64);
                    let g = db(sos_gain2(&sos, w));
                    match first_stop {
                        None if g <= -rs => first_stop = Some(w),
                        Some(_) => assert!(g <= -rs + 1e-7, "{what}: {g} dB at {w}"),
                        None => {}
                    }
                }
                assert!(first_stop.is_some(), "{what}: never {rs} dB down");
                if n % 2 == 0 {
                    let g = db(sos_gain2(&sos, PI));
                    assert!((g + rs).abs() < 1e-7, "{what}: {g} dB at Nyquist");
                } else {
                    let dc = db(sos_gain2(&sos, 0.0));
                    assert!(dc.abs() < 1e-9, "{what}: {dc} dB at DC");
                }
                // The sections and the expanded form agree.
                for i in 1..16 {
                    let w = PI * i as f64 / 16.0;
                    let (gs, gb) = (sos_gain2(&sos, w), gain2(&ba.0, &ba.1, w));
                    assert!(
                        (gs - gb).abs() < 1e-7 * (1.0 + gs),
                        "{what}: {gs} vs {gb} at {w}"
                    );
                }
            }
        }
    }
    Ok(())
}

/// Bad design arguments are errors naming the value.
fn design_errors(_d: Device) -> TestResult {
    let lp = BandType::Lowpass;
    assert_err(butter(0, 0.3, lp), "InvalidArgument", "order 0");
    assert_err(butter(1025, 0.3, lp), "InvalidArgument", "order 1025");
    assert_err(butter(3, 1.0, lp), "InvalidArgument", "cutoff 1");
    assert_err(butter(3, f64::NAN, lp), "InvalidArgument", "cutoff NaN");
    assert_err(
        cheby1(3, 0.0, 0.3, BandType::Highpass),
        "InvalidArgument",
        "rp = 0",
    );
    assert_err(cheby1_sos(3, 1.0, -0.1, lp), "InvalidArgument", "-0.1");
    assert_err(
        butter(3, 0.3, BandType::Bandpass),
        "InvalidArgument",
        "not the one frequency 0.3",
    );
    assert_err(
        butter(3, [0.2, 0.4], lp),
        "InvalidArgument",
        "band (0.2, 0.4)",
    );
    assert_err(
        butter_sos(3, [0.4, 0.2], BandType::Bandstop),
        "InvalidArgument",
        "band edges (0.4, 0.2)",
    );
    assert_err(
        cheby2(3, f64::INFINITY, 0.3, lp),
        "InvalidArgument",
        "rs = inf",
    );
    assert_err(ellip(3, 1.0, 1.0, 0.3, lp), "InvalidArgument", "rs = 1 dB");
    assert_err(
        ellip_sos(3, -1.0, 40.0, 0.3, lp),
        "InvalidArgument",
        "rp = -1",
    );
    assert_err(
        bessel(21, 0.3, lp, BesselNorm::Phase),
        "InvalidArgument",
        "order 21",
    );
    Ok(())
}

/// SciPy's `buttord`, `cheb1ord`, `cheb2ord` and `ellipord` (1.17.1) on six specifications
/// each: the function, `wp`, `ws`, `gpass`, `gstop`, the order and the critical frequencies.
type OrdCase = (
    &'static str,
    Cutoff,
    Cutoff,
    f64,
    f64,
    usize,
    &'static [f64],
);
const SCIPY_ORD: [OrdCase; 24] = {
    const L: (Cutoff, Cutoff) = (Cutoff::Edge(0.2), Cutoff::Edge(0.3));
    const H: (Cutoff, Cutoff) = (Cutoff::Edge(0.3), Cutoff::Edge(0.2));
    const BP: (Cutoff, Cutoff) = (Cutoff::Band(0.2, 0.5), Cutoff::Band(0.1, 0.6));
    const BS: (Cutoff, Cutoff) = (Cutoff::Band(0.1, 0.6), Cutoff::Band(0.2, 0.5));
    const L2: (Cutoff, Cutoff) = (Cutoff::Edge(0.05), Cutoff::Edge(0.08));
    const NB: (Cutoff, Cutoff) = (Cutoff::Band(0.3, 0.35), Cutoff::Band(0.28, 0.37));
    [
        ("buttord", L.0, L.1, 3.0, 40.0, 11, &[0.2000403906692605]),
        ("buttord", H.0, H.1, 1.0, 40.0, 12, &[0.28574364670293406]),
        (
            "buttord",
            BP.0,
            BP.1,
            1.0,
            50.0,
            13,
            &[0.19500494623785314, 0.5085905259162993],
        ),
        (
            "buttord",
            BS.0,
            BS.1,
            0.5,
            40.0,
            11,
            &[0.15725588836887708, 0.5798333151067552],
        ),
        (
            "buttord",
            L2.0,
            L2.1,
            0.1,
            60.0,
            19,
            &[0.055175048374701684],
        ),
        (
            "buttord",
            NB.0,
            NB.1,
            2.0,
            30.0,
            7,
            &[0.29907572856841025, 0.3510198478776039],
        ),
        ("cheb1ord", L.0, L.1, 3.0, 40.0, 6, &[0.2]),
        ("cheb1ord", H.0, H.1, 1.0, 40.0, 6, &[0.3]),
        ("cheb1ord", BP.0, BP.1, 1.0, 50.0, 7, &[0.2, 0.5]),
        (
            "cheb1ord",
            BS.0,
            BS.1,
            0.5,
            40.0,
            6,
            &[0.14758232569947782, 0.5999987080915622],
        ),
        ("cheb1ord", L2.0, L2.1, 0.1, 60.0, 10, &[0.05]),
        ("cheb1ord", NB.0, NB.1, 2.0, 30.0, 4, &[0.3, 0.35]),
        ("cheb2ord", L.0, L.1, 3.0, 40.0, 6, &[0.2745644373777229]),
        ("cheb2ord", H.0, H.1, 1.0, 40.0, 6, &[0.2036646842947451]),
        (
            "cheb2ord",
            BP.0,
            BP.1,
            1.0,
            50.0,
            7,
            &[0.15534324910367087, 0.5837600475495753],
        ),
        (
            "cheb2ord",
            BS.0,
            BS.1,
            0.5,
            40.0,
            6,
            &[0.19564701406639515, 0.5074716291059319],
        ),
        (
            "cheb2ord",
            L2.0,
            L2.1,
            0.1,
            60.0,
            10,
            &[0.07402287284687484],
        ),
        (
            "cheb2ord",
            NB.0,
            NB.1,
            2.0,
            30.0,
            4,
            &[0.28438982636574145, 0.36775179680701253],
        ),
        ("ellipord", L.0, L.1, 3.0, 40.0, 4, &[0.2]),
        ("ellipord", H.0, H.1, 1.0, 40.0, 4, &[0.3]),
        ("ellipord", BP.0, BP.1, 1.0, 50.0, 5, &[0.2, 0.5]),
        (
            "ellipord",
            BS.0,
            BS.1,
            0.5,
            40.0,
            4,
            &[0.14758235223075694, 0.5999987080915622],
        ),
        ("ellipord", L2.0, L2.1, 0.1, 60.0, 6, &[0.05]),
        ("ellipord", NB.0, NB.1, 2.0, 30.0, 3, &[0.3, 0.35]),
    ]
};

/// The edges of a [`Cutoff`] as a list.
fn cut_edges(c: Cutoff) -> Vec<f64> {
    match c {
        Cutoff::Edge(w) => vec![w],
        Cutoff::Band(lo, hi) => vec![lo, hi],
    }
}

/// Order selection: [`SCIPY_ORD`]'s orders exactly and frequencies to `1e-9` (band-stop ones,
/// whose passband edges come from a bounded minimisation SciPy stops at `1e-5`, to `1e-4`);
/// the design of every selection meets its specification (at most `gpass` dB down at the
/// passband edges, at least `gstop` dB at the stopband edges); one order less of the low-pass
/// Butterworth and Chebyshev I cannot, by their magnitude formulas.
fn order_selection(_d: Device) -> TestResult {
    let db = |sos: &[[f64; 6]], w: f64| 10.0 * sos_gain2(sos, PI * w).log10();
    for (name, wp, ws, gp, gs, want_n, want_wn) in SCIPY_ORD {
        let what = format!("{name}({wp:?}, {ws:?}, {gp}, {gs})");
        let o = match name {
            "buttord" => buttord(wp, ws, gp, gs)?,
            "cheb1ord" => cheb1ord(wp, ws, gp, gs)?,
            "cheb2ord" => cheb2ord(wp, ws, gp, gs)?,
            _ => ellipord(wp, ws, gp, gs)?,
        };
        assert_eq!(o.order, want_n, "{what}: order");
        let tol = if o.btype == BandType::Bandstop {
            1e-4
        } else {
            1e-9
        };
        close(&cut_edges(o.wn), want_wn, tol, tol, &format!("{what}: wn"))?;
        let sos = match name {
            "buttord" => butter_sos(o.order, o.wn, o.btype)?,
            "cheb1ord" => cheby1_sos(o.order, gp, o.wn, o.btype)?,
            "cheb2ord" => cheby2_sos(o.order, gs, o.wn, o.btype)?,
            _ => ellip_sos(o.order, gp, gs, o.wn, o.btype)?,
        };
        for w in cut_edges(wp) {
            let g = db(&sos, w);
            assert!(g >= -gp - 1e-6, "{what}: {g} dB at the passband edge {w}");
        }
        for w in cut_edges(ws) {
            let g = db(&sos, w);
            assert!(g <= -gs + 1e-6, "{what}: {g} dB at the stopband edge {w}");
        }
    }
    // Minimality of the low-pass orders: the prototype of one order less, scaled to lose
    // exactly `gpass` at the passband edge, loses less than `gstop` at the stopband edge.
    for (wp, ws, gp, gs) in [
        (0.2, 0.3, 3.0, 40.0),
        (0.05, 0.08, 0.1, 60.0),
        (0.4, 0.45, 1.0, 20.0),
    ] {
        let nat = (PI * ws / 2.0).tan() / (PI * wp / 2.0).tan();
        let (ep2, gs_lin) = (10f64.powf(gp / 10.0) - 1.0, 10f64.powf(gs / 10.0));
        let n = buttord(wp, ws, gp, gs)?.order;
        let loss = 1.0 + ep2 * nat.powi(2 * (n as i32 - 1));
        assert!(
            loss < gs_lin,
            "buttord({wp}, {ws}): order {} would do",
            n - 1
        );
        let n = cheb1ord(wp, ws, gp, gs)?.order;
        let loss = 1.0 + ep2 * cheb(n - 1, nat).powi(2);
        assert!(
            loss < gs_lin,
            "cheb1ord({wp}, {ws}): order {} would do",
            n - 1
        );
    }
    let lp = (Cutoff::Edge(0.2), Cutoff::Edge(0.3));
    assert_err(
        buttord(lp.0, lp.1, 0.0, 40.0),
        "InvalidArgument",
        "gpass = 0",
    );
    assert_err(
        cheb1ord(lp.0, lp.1, 3.0, 2.0),
        "InvalidArgument",
        "gstop = 2",
    );
    assert_err(
        cheb2ord(0.2, 0.2, 1.0, 40.0),
        "InvalidArgument",
        "must differ",
    );
    assert_err(
        ellipord([0.2, 0.5], 0.6, 1.0, 40.0),
        "InvalidArgument",
        "both must be one edge",
    );
    assert_err(
        buttord([0.2, 0.5], [0.3, 0.6], 1.0, 40.0),
        "InvalidArgument",
        "ws0 < wp0 < wp1 < ws1",
    );
    assert_err(
        buttord(0.2, 0.2000001, 0.01, 300.0),
        "InvalidArgument",
        "above 1024",
    );
    Ok(())
}

/// `|H(e^{iw})|^2` at the frequency `pi w` of `(b, a)`.
fn at(ba: &(Vec<f64>, Vec<f64>), w: f64) -> f64 {
    gain2(&ba.0, &ba.1, PI * w)
}

/// The notch and the peak: their gains at the centre, DC and Nyquist, and -3 dB points (found
/// here by bisection on each side of the centre) `w0 / q` apart.
fn notch_and_peak(_d: Device) -> TestResult {
    for (w0, q) in [(0.25, 30.0), (0.5, 10.0), (0.1, 2.0), (0.8, 5.0)] {
        let notch = iirnotch(w0, q)?;
        let peak = iirpeak(w0, q)?;
        assert!(at(&notch, w0) < 1e-24, "iirnotch({w0}, {q}) at its centre");
        assert!(
            (at(&peak, w0) - 1.0).abs() < 1e-12,
            "iirpeak({w0}, {q}) at its centre"
        );
        for edge in [0.0, 1.0] {
            assert!((at(&notch, edge) - 1.0).abs() < 1e-12, "iirnotch at {edge}");
            assert!(at(&peak, edge) < 1e-24, "iirpeak at {edge}");
        }
        for (what, ba, rising) in [("iirnotch", &notch, false), ("iirpeak", &peak, true)] {
            // The point in [lo, hi] where |H|^2 crosses 1/2, the centre at `hi` (or at `lo`
            // when `centre_low`): nearer the centre a notch is below 1/2 and a peak above.
            let cross = |mut lo: f64, mut hi: f64, centre_low: bool| {
                for _ in 0..200 {
                    let mid = (lo + hi) / 2.0;
                    let centre_side = (at(ba, mid) > 0.5) == rising;
                    if centre_side == centre_low {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                (lo + hi) / 2.0
            };
            let left = cross(0.0, w0, false);
            let right = cross(w0, 1.0, true);
            let width = right - left;
            assert!(
                (width - w0 / q).abs() < 1e-9,
                "{what}({w0}, {q}): -3 dB points {left} and {right}, {width} apart"
            );
        }
    }
    assert_err(iirnotch(1.0, 10.0), "InvalidArgument", "w0 = 1");
    assert_err(iirpeak(0.3, -2.0), "InvalidArgument", "q = -2");
    Ok(())
}

/// Frequency responses: `freqz` of a two-tap filter against `1 + e^{-iw}` and of Butterworth
/// designs against their magnitude formula, `sosfreqz` against the same formula, group delays
/// of a symmetric FIR filter (`(L - 1) / 2`), a pure delay and a one-pole filter (`(p cos w -
/// p^2) / (1 - 2 p cos w + p^2)`), and named errors.
fn responses(_d: Device) -> TestResult {
    let n = 64;
    let (w, h) = freqz(&[1.0, 1.0], &[1.0], n)?;
    for k in 0..n {
        assert!(
            (w[k] - PI * k as f64 / n as f64).abs() < 1e-15,
            "freqz: w[{k}] = {}",
            w[k]
        );
        let want = (1.0 + (-w[k]).cos(), (-w[k]).sin());
        assert!(
            (h[k].re - want.0).abs() < 1e-14 && (h[k].im - want.1).abs() < 1e-14,
            "freqz of [1, 1] at {}: {}",
            w[k],
            h[k]
        );
    }
    for (order, wn) in [(3usize, 0.2), (6, 0.6)] {
        let want =
            |w: f64| 1.0 / (1.0 + ((w / 2.0).tan() / (PI * wn / 2.0).tan()).powi(2 * order as i32));
        let (b, a) = butter(order, wn, BandType::Lowpass)?;
        let (w, h) = freqz(&b, &a, n)?;
        let (_, hs) = sosfreqz(&butter_sos(order, wn, BandType::Lowpass)?, n)?;
        for k in 0..n {
            let g = want(w[k]);
            assert!(
                (h[k].norm_sqr() - g).abs() < 1e-10,
                "freqz of butter({order}) at {}",
                w[k]
            );
            assert!(
                (hs[k].norm_sqr() - g).abs() < 1e-10,
                "sosfreqz of butter({order}) at {}",
                w[k]
            );
        }
    }
    let (_, gd) = group_delay(&[0.5, -1.0, 3.0, -1.0, 0.5], &[1.0], n)?;
    assert!(
        gd.iter().all(|&d| (d - 2.0).abs() < 1e-10),
        "symmetric FIR: {gd:?}"
    );
    let (_, gd) = group_delay(&[0.0, 0.0, 0.0, 2.0], &[1.0], n)?;
    assert!(
        gd.iter().all(|&d| (d - 3.0).abs() < 1e-12),
        "pure delay: {gd:?}"
    );
    for p in [0.5, -0.8, 0.95] {
        let (w, gd) = group_delay(&[1.0], &[1.0, -p], n)?;
        for k in 0..n {
            let c = w[k].cos();
            let want = (p * c - p * p) / (1.0 - 2.0 * p * c + p * p);
            assert!(
                (gd[k] - want).abs() < 1e-10,
                "one pole {p} at {}: {}",
                w[k],
                gd[k]
            );
        }
    }
    assert_err(freqz(&[1.0], &[1.0], 0), "InvalidArgument", "0 frequencies");
    assert_err(
        freqz(&[1.0], &[0.0, 1.0], 8),
        "InvalidArgument",
        "[0.0, 1.0]",
    );
    assert_err(sosfreqz(&[], 8), "InvalidArgument", "no sections");
    assert_err(
        sosfreqz(&[[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]], 8),
        "InvalidArgument",
        "section 0",
    );
    assert_err(
        group_delay(&[1.0], &[1.0], usize::MAX),
        "InvalidArgument",
        "frequencies",
    );
    Ok(())
}

/// `lfilter` by its definition (direct form II transposed), from the states `zi`.
fn lfilter_ref(b: &[f64], a: &[f64], x: &[f64], zi: &[f64]) -> Vec<f64> {
    let k = b.len().max(a.len());
    let at = |c: &[f64], i: usize| c.get(i).copied().unwrap_or(0.0) / a[0];
    let mut z = zi.to_vec();
    z.resize(k, 0.0);
    x.iter()
        .map(|&v| {
            let y = at(b, 0) * v + z[0];
            for i in 0..k - 1 {
                z[i] = at(b, i + 1) * v - at(a, i + 1) * y + z[i + 1];
            }
            y
        })
        .collect()
}

/// SciPy's `lfilter_zi`: `(I - companion(a)^T) zi = b[1:] - a[1:] b[0]`, solved by Gaussian
/// elimination.
fn lfilter_zi_ref(b: &[f64], a: &[f64]) -> Vec<f64> {
    let k = b.len().max(a.len()) - 1;
    let at = |c: &[f64], i: usize| c.get(i).copied().unwrap_or(0.0) / a[0];
    let mut m = vec![vec![0.0; k + 1]; k];
    for i in 0..k {
        m[i][i] += 1.0;
        m[i][0] += at(a, i + 1);
        if i + 1 < k {
            m[i][i + 1] -= 1.0;
        }
        m[i][k] = at(b, i + 1) - at(a, i + 1) * at(b, 0);
    }
    for c in 0..k {
        let p = (c..k)
            .max_by(|&r, &s| m[r][c].abs().total_cmp(&m[s][c].abs()))
            .unwrap();
        m.swap(c, p);
        for r in 0..k {
            if r != c {
                let f = m[r][c] / m[c][c];
                for j in 0..=k {
                    m[r][j] -= f * m[c][j];
                }
            }
        }
    }
    (0..k).map(|i| m[i][k] / m[i][i]).collect()
}

/// SciPy's `filtfilt(b, a, x, padlen=pad)` of one signal.
fn filtfilt_ref(b: &[f64], a: &[f64], x: &[f64], pad: usize) -> Vec<f64> {
    let n = x.len();
    let mut ext: Vec<f64> = (0..pad).map(|i| 2.0 * x[0] - x[pad - i]).collect();
    ext.extend_from_slice(x);
    ext.extend((0..pad).map(|i| 2.0 * x[n - 1] - x[n - 2 - i]));
    let zi = lfilter_zi_ref(b, a);
    let scaled = |v: f64| zi.iter().map(|z| z * v).collect::<Vec<_>>();
    let mut y = lfilter_ref(b, a, &ext, &scaled(ext[0]));
    y.reverse();
    let mut y = lfilter_ref(b, a, &y, &scaled(y[0]));
    y.reverse();
    y[pad..pad + n].to_vec()
}

/// `sosfiltfilt` and the IIR `decimate` (`f64` and `f32`, two signals along axis 1 and along
/// axis 0) against the reference `filtfilt` of the same filter as `(b, a)`.
fn filtering(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 300usize;
        let x: Vec<f64> = (0..2 * n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
        let xa = Array::from_slice(&x, &[2, n])?;
        let xf = Array::from_slice(&x.iter().map(|&v| v as f32).collect::<Vec<_>>(), &[2, n])?;
        for (order, wn, btype) in [
            (4usize, 0.3, BandType::Lowpass),
            (5, 0.6, BandType::Highpass),
        ] {
            let (b, a) = butter(order, wn, btype)?;
            let sos = butter_sos(order, wn, btype)?;
            let pad = 3 * (order + 1);
            let y = sosfiltfilt(&sos, &xa, 1, None)?.to_vec()?;
            let yf: Vec<f64> = sosfiltfilt(&sos, &xf, -1, None)?
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect();
            let yt = sosfiltfilt(&sos, &xa.permute(&[1, 0])?, 0, Some(7))?
                .permute(&[1, 0])?
                .to_vec()?;
            for r in 0..2 {
                let row = &x[r * n..(r + 1) * n];
                let want = filtfilt_ref(&b, &a, row, pad);
                let what = format!("sosfiltfilt {order} {btype:?} row {r}");
                close(&y[r * n..(r + 1) * n], &want, 1e-9, 1e-10, &what)?;
                close(
                    &yf[r * n..(r + 1) * n],
                    &want,
                    1e-4,
                    1e-4,
                    &format!("{what} f32"),
                )?;
                close(
                    &yt[r * n..(r + 1) * n],
                    &filtfilt_ref(&b, &a, row, 7),
                    1e-9,
                    1e-10,
                    &format!("{what} padlen 7"),
                )?;
            }
        }
        // A band-pass elliptic filter (6 poles in 3 sections) and a band-stop Chebyshev II.
        for (sos, (b, a)) in [
            (
                ellip_sos(3, 0.5, 40.0, [0.2, 0.5], BandType::Bandpass)?,
                ellip(3, 0.5, 40.0, [0.2, 0.5], BandType::Bandpass)?,
            ),
            (
                cheby2_sos(2, 30.0, (0.3, 0.6), BandType::Bandstop)?,
                cheby2(2, 30.0, (0.3, 0.6), BandType::Bandstop)?,
            ),
        ] {
            let y = sosfiltfilt(&sos, &xa, 1, Some(21))?.to_vec()?;
            for r in 0..2 {
                let want = filtfilt_ref(&b, &a, &x[r * n..(r + 1) * n], 21);
                let what = format!("sosfiltfilt of band sections {sos:?} row {r}");
                close(&y[r * n..(r + 1) * n], &want, 1e-8, 1e-9, &what)?;
            }
        }
        // decimate: SciPy's order-8 Chebyshev I at 0.8 / q, zero phase or one pass.
        for q in [2usize, 5] {
            let (b, a) = cheby1(8, 0.05, 0.8 / q as f64, BandType::Lowpass)?;
            let y = decimate_with(&xa, q, &DecimateOpts::new())?;
            assert_eq!(y.shape(), &[2, n.div_ceil(q)]);
            let y = y.to_vec()?;
            let y1 = decimate_with(&xa, q, &DecimateOpts::new().zero_phase(false))?.to_vec()?;
            let yf: Vec<f64> =
                decimate_with(&xf.permute(&[1, 0])?, q, &DecimateOpts::new().axis(0))?
                    .permute(&[1, 0])?
                    .to_vec()?
                    .iter()
                    .map(|&v| v as f64)
                    .collect();
            let m = n.div_ceil(q);
            for r in 0..2 {
                let row = &x[r * n..(r + 1) * n];
                let want: Vec<f64> = filtfilt_ref(&b, &a, row, 27)
                    .into_iter()
                    .step_by(q)
                    .collect();
                let what = format!("decimate q {q} row {r}");
                // The order-8 (b, a) form of the reference rounds at about 1e-8 here.
                close(&y[r * m..(r + 1) * m], &want, 1e-7, 1e-7, &what)?;
                close(
                    &yf[r * m..(r + 1) * m],
                    &want,
                    2e-4,
                    2e-4,
                    &format!("{what} f32 axis 0"),
                )?;
                let want: Vec<f64> = lfilter_ref(&b, &a, row, &[])
                    .into_iter()
                    .step_by(q)
                    .collect();
                close(
                    &y1[r * m..(r + 1) * m],
                    &want,
                    1e-7,
                    1e-7,
                    &format!("{what} one pass"),
                )?;
            }
        }
        assert_err(sosfiltfilt(&[], &xa, 1, None), "InvalidArgument", "section");
        assert_err(
            sosfiltfilt(&butter_sos(2, 0.3, BandType::Lowpass)?, &xa, 1, Some(300)),
            "InvalidArgument",
            "padlen 300",
        );
        let short = Array::from_slice(&[1.0f64; 27], &[27])?;
        assert_err(signal::decimate(&short, 2), "InvalidArgument", "padlen 27");
        Ok(())
    })
}

/// A slow tone survives decimation by 4 and a fast one (above the new Nyquist frequency) is
/// removed: `sin(2 pi 0.02 t) + sin(2 pi 0.4 t)` becomes the slow tone at the kept samples.
fn two_tones(d: Device) -> TestResult {
    on(d, || {
        let n = 2000usize;
        let x: Vec<f32> = (0..n)
            .map(|t| {
                let t = t as f64;
                ((2.0 * PI * 0.02 * t).sin() + (2.0 * PI * 0.4 * t).sin()) as f32
            })
            .collect();
        let y = signal::decimate(&Array::from_slice(&x, &[n])?, 4)?.to_vec()?;
        assert_eq!(y.len(), 500);
        // Away from the ends: the pass band's gain lies within 2 x 0.05 dB of 1 (forward and
        // back), and the fast tone is attenuated far below 1e-3.
        for i in 50..450 {
            let want = (2.0 * PI * 0.02 * (4 * i) as f64).sin();
            let e = (y[i] as f64 - want).abs();
            assert!(e < 1.5e-2, "decimated tone at {i}: {} vs {want}", y[i]);
        }
        Ok(())
    })
}

/// `|H(e^{i pi f})|` of the FIR filter `h` at `f`, a fraction of the Nyquist frequency.
fn fir_gain(h: &[f64], f: f64) -> f64 {
    let (mut re, mut im) = (0.0, 0.0);
    for (j, v) in h.iter().enumerate() {
        re += v * (PI * f * j as f64).cos();
        im -= v * (PI * f * j as f64).sin();
    }
    re.hypot(im)
}

/// The window method written out: the pass bands of `cutoffs` (the first one from 0 when
/// `pass_zero`, the bands alternating, the last to 1 when it passes), each the difference of
/// two ideal low-pass responses, times the symmetric Hamming window, scaled to gain 1 at the
/// first pass band's centre (0 or 1 when it touches an end).
fn firwin_ref(n: usize, cutoffs: &[f64], pass_zero: bool) -> Vec<f64> {
    let mut edges = vec![0.0];
    edges.extend_from_slice(cutoffs);
    edges.push(1.0);
    // Band k lies between edges k and k + 1; band 0 passes when `pass_zero`.
    let bands: Vec<(f64, f64)> = (0..edges.len() - 1)
        .filter(|k| (k % 2 == 0) == pass_zero)
        .map(|k| (edges[k], edges[k + 1]))
        .collect();
    let lowpass = |c: f64, m: f64| {
        if m == 0.0 {
            c
        } else {
            (PI * c * m).sin() / (PI * m)
        }
    };
    let alpha = (n as f64 - 1.0) / 2.0;
    let h: Vec<f64> = (0..n)
        .map(|j| {
            let m = j as f64 - alpha;
            let ideal: f64 = bands
                .iter()
                .map(|&(l, r)| lowpass(r, m) - lowpass(l, m))
                .sum();
            let w = if n == 1 {
                1.0
            } else {
                0.54 - 0.46 * (2.0 * PI * j as f64 / (n - 1) as f64).cos()
            };
            ideal * w
        })
        .collect();
    let (l, r) = bands[0];
    let f = if l == 0.0 {
        0.0
    } else if r == 1.0 {
        1.0
    } else {
        (l + r) / 2.0
    };
    let g: f64 = h
        .iter()
        .enumerate()
        .map(|(j, v)| v * (PI * f * (j as f64 - alpha)).cos())
        .sum();
    h.iter().map(|v| v / g).collect()
}

fn fir_designs(_d: Device) -> TestResult {
    // (taps, cutoffs, pass_zero): low-pass, high-pass, band-pass, band-stop, two pass bands.
    let cases: [(usize, &[f64], bool); 6] = [
        (61, &[0.3], true),
        (61, &[0.45], false),
        (80, &[0.2, 0.5], false),
        (81, &[0.3, 0.6], true),
        (101, &[0.15, 0.3, 0.55, 0.75], false),
        (1, &[0.5], true),
    ];
    for (n, cutoffs, pass_zero) in cases {
        let h = firwin_bands(n, cutoffs, pass_zero, Window::Hamming)?;
        let want = firwin_ref(n, cutoffs, pass_zero);
        close(
            &h,
            &want,
            1e-12,
            1e-15,
            &format!("firwin_bands({n}, {cutoffs:?}, {pass_zero})"),
        )?;
        // Linear phase: mirrored taps, to rounding.
        let top = h.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for j in 0..n {
            assert!(
                (h[j] - h[n - 1 - j]).abs() <= 1e-14 * top,
                "{n} {cutoffs:?}: tap {j} not mirrored"
            );
        }
        if n < 8 {
            continue;
        }
        // Gains away from the transitions (the Hamming window's main lobe is 8 / n wide in
        // fractions of the Nyquist frequency): within 0.01 of 1 in a pass band, below 0.01 in
        // a stop band (each edge's side lobes are 53 dB down, and up to four edges add up).
        let mut edges = vec![0.0];
        edges.extend_from_slice(cutoffs);
        edges.push(1.0);
        let margin = 4.0 / n as f64;
        for k in 0..edges.len() - 1 {
            let passes = (k % 2 == 0) == pass_zero;
            let (lo, hi) = (edges[k] + margin, edges[k + 1] - margin);
            for i in 0..=64 {
                let f = lo + (hi - lo) * i as f64 / 64.0;
                if f > hi {
                    continue;
                }
                let g = fir_gain(&h, f);
                if passes {
                    assert!((g - 1.0).abs() < 1e-2, "{n} {cutoffs:?}: gain {g} at {f}");
                } else {
                    assert!(g < 1e-2, "{n} {cutoffs:?}: gain {g} at {f}, a stop band");
                }
            }
        }
    }
    // The low-pass form is the same design.
    for (n, c) in [(21, 0.25), (64, 0.4), (7, 0.9)] {
        let a = firwin(n, c, Window::Kaiser(5.0))?;
        let b = firwin_bands(n, &[c], true, Window::Kaiser(5.0))?;
        assert_eq!(a, b, "firwin({n}, {c}) against firwin_bands");
    }
    // Kaiser's formulas: SciPy's documented example, the three regimes of beta, and designs
    // that meet the ripple they were sized for.
    let (n65, b65) = kaiserord(65.0, 0.048)?;
    assert_eq!(n65, 167);
    assert!((b65 - 6.20426).abs() < 1e-5, "beta {b65}");
    assert_eq!(kaiser_beta(21.0), 0.0);
    assert!((kaiser_beta(30.0) - (0.5842 * 9f64.powf(0.4) + 0.07886 * 9.0)).abs() < 1e-12);
    assert!((kaiser_beta(80.0) - 0.1102 * 71.3).abs() < 1e-12);
    assert!((kaiser_atten(n65, 0.048) - 65.0).abs() < 2.285 * PI * 0.048 + 1e-9);
    for (ripple, width, cutoff) in [(40.0, 0.1, 0.4), (60.0, 0.05, 0.3), (80.0, 0.08, 0.5)] {
        let (n, beta) = kaiserord(ripple, width)?;
        let h = firwin_bands(n, &[cutoff], true, Window::Kaiser(beta))?;
        let delta = 10f64.powf(-ripple / 20.0);
        for i in 0..=200 {
            let f = i as f64 / 200.0;
            let g = fir_gain(&h, f);
            if f <= cutoff - width / 2.0 {
                assert!(
                    (g - 1.0).abs() < 1.5 * delta,
                    "{ripple} dB: gain {g} at {f}"
                );
            } else if f >= cutoff + width / 2.0 {
                assert!(
                    g < 1.5 * delta,
                    "{ripple} dB: gain {g} at {f}, {delta} allowed"
                );
            }
        }
    }
    Ok(())
}

fn fir_errors(_d: Device) -> TestResult {
    let hw = Window::Hamming;
    assert_err(
        firwin_bands(40, &[0.5], false, hw),
        "InvalidArgument",
        "odd",
    );
    assert_err(
        firwin_bands(40, &[0.2, 0.5], true, hw),
        "InvalidArgument",
        "40 taps",
    );
    assert_err(
        firwin_bands(41, &[0.5, 0.5], false, hw),
        "InvalidArgument",
        "increase",
    );
    assert_err(
        firwin_bands(41, &[0.2, 1.0], false, hw),
        "InvalidArgument",
        "cutoff 1 is 1",
    );
    assert_err(
        firwin_bands(41, &[], true, hw),
        "InvalidArgument",
        "0 cutoffs",
    );
    assert_err(
        firwin_bands(41, &vec![0.5; 1025], true, hw),
        "InvalidArgument",
        "1025 cutoffs",
    );
    assert_err(
        firwin_bands(0, &[0.5], true, hw),
        "InvalidArgument",
        "numtaps 0",
    );
    assert_err(kaiserord(5.0, 0.1), "InvalidArgument", "8 dB");
    assert_err(kaiserord(f64::NAN, 0.1), "InvalidArgument", "NaN dB");
    assert_err(kaiserord(60.0, 0.0), "InvalidArgument", "width 0");
    assert_err(kaiserord(60.0, 1e-9), "InvalidArgument", "above 2^24");
    Ok(())
}

/// SciPy 1.17.1's `firls(numtaps, bands, desired, weight=weight)` for four designs: a
/// low-pass, a weighted band-pass, sloped desired gains, and one tap.
const FIRLS_SCIPY: [(usize, &[[f64; 2]], &[[f64; 2]], &[f64], &[f64]); 4] = [
    (
        11,
        &[[0.0, 0.3], [0.5, 1.0]],
        &[[1.0, 1.0], [0.0, 0.0]],
        &[],
        &[
            -0.0031341874075949214,
            -0.05079294905172158,
            -0.04654239237070646,
            0.08827496702074346,
            0.29418766982526817,
            0.3955296773336026,
        ],
    ),
    (
        21,
        &[[0.0, 0.2], [0.3, 0.6], [0.7, 1.0]],
        &[[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]],
        &[2.0, 1.0, 3.0],
        &[
            -0.00041147963639153357,
            -0.03469695442186125,
            -0.01584192318656572,
            0.053504720453572636,
            0.022532751684625506,
            0.010162515221445307,
            0.07794933587373809,
            -0.08980239855074125,
            -0.27655954519377934,
            0.056804437380343555,
            0.38479397560829987,
        ],
    ),
    (
        15,
        &[[0.0, 0.4], [0.5, 1.0]],
        &[[0.0, 0.8], [1.0, 0.2]],
        &[],
        &[
            -0.0020049631667857257,
            -0.02006701294861838,
            -0.0005095544018700449,
            0.00033189656382398824,
            -0.0052944328061881795,
            -0.18308995423930552,
            -0.04024223141486178,
            0.5508498121523528,
        ],
    ),
    (1, &[[0.0, 1.0]], &[[1.0, 1.0]], &[], &[1.0]),
];

/// `firls` against SciPy's taps (the first half and the centre listed; the rest mirror them),
/// to 1e-12; 201 taps of a narrow low-pass at five taps SciPy gives; a band that a constant
/// response fits exactly (the design is then one tap of 1, which SciPy meets to 2e-7 on its
/// ill-conditioned system); and, for a design with gaps and weights, the normal equations:
/// the error's derivative by each cosine coefficient, integrated here by Simpson's rule over
/// each band, is zero.
fn firls_designs(_d: Device) -> TestResult {
    for (n, bands, desired, weight, half) in FIRLS_SCIPY {
        let h = firls(n, bands, desired, weight)?;
        let want: Vec<f64> = half
            .iter()
            .chain(half.iter().rev().skip(1))
            .copied()
            .collect();
        close(&h, &want, 1e-12, 1e-13, &format!("firls({n}, {bands:?})"))?;
    }
    let h = firls(
        201,
        &[[0.0, 0.1], [0.15, 1.0]],
        &[[1.0, 1.0], [0.0, 0.0]],
        &[],
    )?;
    let picked: Vec<f64> = [0, 50, 100, 150, 200].iter().map(|&i| h[i]).collect();
    let scipy = [
        7.684449967377167e-06,
        0.0017379799295944404,
        0.12529971053584638,
        0.0017379799295944404,
        7.684449967377167e-06,
    ];
    close(&picked, &scipy, 1e-9, 1e-13, "firls(201)")?;
    let h = firls(7, &[[0.1, 0.2]], &[[1.0, 1.0]], &[])?;
    close(
        &h,
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        0.0,
        1e-5,
        "firls(7, one band)",
    )?;
    // Normal equations of a weighted design with sloped gains: for each k,
    // sum_bands w ∫ (A(f) - D(f)) cos(k pi f) df = 0, A the design's response.
    let (n, bands, desired, weight) = (
        25usize,
        [[0.05, 0.25], [0.35, 0.55], [0.7, 0.95]],
        [[0.5, 1.0], [0.0, 0.0], [2.0, 1.5]],
        [1.0, 4.0, 0.5],
    );
    let h = firls(n, &bands, &desired, &weight)?;
    let m = (n - 1) / 2;
    let a = |f: f64| -> f64 {
        h.iter()
            .enumerate()
            .map(|(j, v)| v * (PI * f * (j as f64 - m as f64)).cos())
            .sum()
    };
    for k in 0..=m {
        let mut g = 0.0;
        let mut scale = 0.0;
        for ((b, d), w) in bands.iter().zip(&desired).zip(&weight) {
            let steps = 2000;
            let dx = (b[1] - b[0]) / steps as f64;
            for i in 0..=steps {
                let f = b[0] + i as f64 * dx;
                let target = d[0] + (d[1] - d[0]) * (f - b[0]) / (b[1] - b[0]);
                let c = if i == 0 || i == steps {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                g += w * c * dx / 3.0 * (a(f) - target) * (PI * k as f64 * f).cos();
                scale += w * c * dx / 3.0 * target.abs();
            }
        }
        assert!(
            g.abs() < 1e-9 * scale,
            "firls normal equation {k}: {g} (scale {scale})"
        );
    }
    Ok(())
}

fn firls_errors(_d: Device) -> TestResult {
    let (lp, gains) = ([[0.0, 0.3], [0.4, 1.0]], [[1.0, 1.0], [0.0, 0.0]]);
    assert_err(firls(20, &lp, &gains, &[]), "InvalidArgument", "numtaps 20");
    assert_err(
        firls(4097, &lp, &gains, &[]),
        "InvalidArgument",
        "numtaps 4097",
    );
    assert_err(firls(21, &[], &[], &[]), "InvalidArgument", "0 bands");
    assert_err(
        firls(21, &lp, &gains[..1], &[]),
        "InvalidArgument",
        "1 desired",
    );
    assert_err(
        firls(21, &lp, &gains, &[1.0]),
        "InvalidArgument",
        "1 weights",
    );
    assert_err(
        firls(21, &[[0.0, 0.3], [0.4, 1.5]], &gains, &[]),
        "InvalidArgument",
        "band 1 is [0.4, 1.5]",
    );
    assert_err(
        firls(21, &[[0.0, 0.3], [0.4, 0.4]], &gains, &[]),
        "InvalidArgument",
        "right edge",
    );
    assert_err(
        firls(21, &[[0.0, 0.5], [0.4, 1.0]], &gains, &[]),
        "InvalidArgument",
        "overlap",
    );
    assert_err(
        firls(21, &lp, &[[1.0, 1.0], [0.0, -0.5]], &[]),
        "InvalidArgument",
        "non-negative",
    );
    assert_err(
        firls(21, &lp, &gains, &[1.0, f64::NAN]),
        "InvalidArgument",
        "weight 1 is NaN",
    );
    assert_err(
        firls(21, &lp, &gains, &[0.0, 0.0]),
        "InvalidArgument",
        "singular",
    );
    Ok(())
}

/// One `remez` design checked against SciPy: taps, band edges, desired values, weights, kind,
/// and SciPy's first half of the taps (the centre included for odd lengths).
type RemezCase = (
    usize,
    &'static [[f64; 2]],
    &'static [f64],
    &'static [f64],
    RemezKind,
    &'static [f64],
);

/// SciPy 1.17.1's `remez(numtaps, bands, desired, weight=weight, type=kind, fs=2)` for the
/// four linear-phase types: band-pass of odd and even length, Hilbert transformers and
/// differentiators of odd and even length.
const REMEZ_SCIPY: [RemezCase; 6] = [
    (
        31,
        &[[0.0, 0.4], [0.6, 1.0]],
        &[1.0, 0.0],
        &[],
        RemezKind::Bandpass,
        &[
            -0.002104277637238513,
            1.9344144067320787e-06,
            0.0046465781985608,
            -7.372188033157258e-07,
            -0.009421938587867648,
            2.8744002223216135e-06,
            0.017204932314511274,
            -2.0391173692794445e-06,
            -0.029778452199418985,
            5.169032138705884e-06,
            0.051521794758933794,
            -4.135575096178657e-06,
            -0.09841637851185166,
            4.784969505647419e-06,
            0.315678757144072,
            0.4999956669911299,
        ],
    ),
    (
        32,
        &[[0.0, 0.4], [0.6, 1.0]],
        &[1.0, 0.0],
        &[],
        RemezKind::Bandpass,
        &[
            -0.0009373594378591875,
            -0.0018480827128480762,
            0.002820736508718275,
            0.0037285550617544394,
            -0.005679204047955937,
            -0.007557440231934513,
            0.010623562071940389,
            0.013692648414273903,
            -0.01853115578451619,
            -0.02374977479539482,
            0.03182686805196795,
            0.04180989222438338,
            -0.05827373948635603,
            -0.08510773866748049,
            0.14756126666000688,
            0.448896199561438,
        ],
    ),
    (
        31,
        &[[0.1, 0.9]],
        &[1.0],
        &[],
        RemezKind::Hilbert,
        &[
            0.0041956358903488655,
            0.0,
            0.009282101548804506,
            0.0,
            0.01883580699770617,
            0.0,
            0.03440100801932517,
            0.0,
            0.05955157556970242,
            0.0,
            0.10303763641989425,
            0.0,
            0.19683153562363997,
            0.0,
            0.6313536408821955,
            0.0,
        ],
    ),
    (
        30,
        &[[0.1, 1.0]],
        &[1.0],
        &[],
        RemezKind::Hilbert,
        &[
            0.0030728197633254745,
            0.0033602668610391733,
            0.005130178981755468,
            0.007456321937781698,
            0.010464126291488157,
            0.014309738731050837,
            0.01919845067168728,
            0.025443012557514855,
            0.03351553697044819,
            0.04424695900563884,
            0.0591929308987634,
            0.08171539791012986,
            0.12059212787877915,
            0.20811028189128256,
            0.6352453197969468,
        ],
    ),
    (
        21,
        &[[0.0, 0.8]],
        &[1.0],
        &[],
        RemezKind::Differentiator,
        &[
            -0.00029426212431308337,
            0.0010799366385928944,
            -0.0025093539831230038,
            0.005028107137279497,
            -0.009113517424818796,
            0.015472550833568785,
            -0.025320100229434005,
            0.04130375454735492,
            -0.07128335610438778,
            0.15486183964798866,
            0.0,
        ],
    ),
    (
        20,
        &[[0.04, 1.0]],
        &[1.0],
        &[],
        RemezKind::Differentiator,
        &[
            -0.001165640850868781,
            0.0016633491826699342,
            -0.0011552335432124493,
            0.001339452845791924,
            -0.0017828493091668427,
            0.0025897206116072945,
            -0.0042148758599365,
            0.008178104395277958,
            -0.022586352078038153,
            0.20271026503250672,
        ],
    ),
];

/// The weighted errors of the symmetric filter `h` over `bands` (desired `desired`, weights
/// `weight`), on a grid of `per` points a band, in order of frequency.
fn remez_errors(
    h: &[f64],
    bands: &[[f64; 2]],
    desired: &[f64],
    weight: &[f64],
    per: usize,
) -> Vec<f64> {
    let c = (h.len() as f64 - 1.0) / 2.0;
    let mut e = Vec::new();
    for ((b, d), w) in bands.iter().zip(desired).zip(weight) {
        for i in 0..=per {
            let f = b[0] + (b[1] - b[0]) * i as f64 / per as f64;
            let a: f64 = h
                .iter()
                .enumerate()
                .map(|(j, v)| v * (PI * f * (j as f64 - c)).cos())
                .sum();
            e.push(w * (a - d));
        }
    }
    e
}

/// `remez` against SciPy's taps for the four types (to 1e-12 relative, 1e-13 absolute); a
/// weighted 101-tap low-pass and an 80-tap design of four bands at four taps SciPy gives
/// (the latter with `maxiter=50`: SciPy stops at its default 25 before converging there,
/// cuprite's exchange converges within 25); and the alternation theorem for both: the
/// weighted error, on a grid 64 times denser than the design's, comes within 10% of its
/// largest magnitude with alternating signs at least `r + 1` times (`r` the cosine
/// coefficients), as only a best approximation's error does (the best on the design's grid:
/// between its points, near the band edges, the error passes the level it equals at them by
/// a few percent).
fn remez_designs(_d: Device) -> TestResult {
    for (n, bands, desired, weight, kind, half) in REMEZ_SCIPY {
        let h = remez_with(n, bands, desired, weight, RemezOpts::new().kind(kind))?;
        let sign = if kind == RemezKind::Bandpass {
            1.0
        } else {
            -1.0
        };
        let skip = n % 2;
        let want: Vec<f64> = half
            .iter()
            .copied()
            .chain(half.iter().rev().skip(skip).map(|v| sign * v))
            .collect();
        close(
            &h,
            &want,
            1e-12,
            1e-13,
            &format!("remez({n}, {bands:?}, {kind:?})"),
        )?;
    }
    let lp = ([[0.0, 0.3], [0.35, 1.0]], [1.0, 0.0], [1.0, 100.0]);
    let four = (
        [[0.0, 0.1], [0.2, 0.4], [0.5, 0.7], [0.8, 1.0]],
        [1.0, 0.0, 1.0, 0.0],
        [1.0, 2.0, 1.0, 2.0],
    );
    let h101 = remez(101, &lp.0, &lp.1, &lp.2)?;
    let h80 = remez(80, &four.0, &four.1, &four.2)?;
    let at = |h: &[f64]| -> Vec<f64> {
        let n = h.len();
        [0, n / 4, n / 2, n - 1].iter().map(|&i| h[i]).collect()
    };
    let scipy101 = [
        0.0006136560980825189,
        -0.0019333161209734398,
        0.3176900982729339,
        0.0006136560980825189,
    ];
    let scipy80 = [
        -0.0003618898446768825,
        0.0065162704599157385,
        0.31964938634561707,
        -0.0003618898446768825,
    ];
    close(&at(&h101), &scipy101, 1e-10, 1e-13, "remez(101)")?;
    close(&at(&h80), &scipy80, 1e-10, 1e-13, "remez(80)")?;
    for (h, bands, desired, weight, r) in [
        (&h101, &lp.0[..], &lp.1[..], &lp.2[..], 51usize),
        (&h80, &four.0[..], &four.1[..], &four.2[..], 40),
    ] {
        let e = remez_errors(h, bands, desired, weight, 64 * 16 * r / bands.len());
        let most = e.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut signs: Vec<f64> = Vec::new();
        for v in e.iter().filter(|v| v.abs() >= most * 0.9) {
            if signs.last() != Some(&v.signum()) {
                signs.push(v.signum());
            }
        }
        assert!(
            signs.len() > r,
            "remez({}): {} alternations at the largest error {most}, {} needed",
            h.len(),
            signs.len(),
            r + 1
        );
    }
    Ok(())
}

fn remez_errors_named(_d: Device) -> TestResult {
    let (lp, gains) = ([[0.0, 0.3], [0.4, 1.0]], [1.0, 0.0]);
    let o = RemezOpts::new();
    assert_err(remez(0, &lp, &gains, &[]), "InvalidArgument", "numtaps 0");
    assert_err(
        remez(8192, &lp, &gains, &[]),
        "InvalidArgument",
        "numtaps 8192",
    );
    assert_err(
        remez_with(1, &[[0.1, 0.9]], &[1.0], &[], o.kind(RemezKind::Hilbert)),
        "InvalidArgument",
        "numtaps 1",
    );
    assert_err(remez(21, &[], &[], &[]), "InvalidArgument", "0 bands");
    assert_err(
        remez(21, &lp, &gains[..1], &[]),
        "InvalidArgument",
        "1 desired",
    );
    assert_err(
        remez(21, &lp, &gains, &[1.0]),
        "InvalidArgument",
        "1 weights",
    );
    assert_err(
        remez(21, &[[0.0, 0.3], [0.2, 1.0]], &gains, &[]),
        "InvalidArgument",
        "overlap",
    );
    assert_err(
        remez(21, &[[0.0, 0.3], [0.4, 1.2]], &gains, &[]),
        "InvalidArgument",
        "band 1 is [0.4, 1.2]",
    );
    assert_err(
        remez(21, &lp, &[1.0, f64::NAN], &[]),
        "InvalidArgument",
        "NaN",
    );
    assert_err(
        remez(21, &lp, &gains, &[1.0, 0.0]),
        "InvalidArgument",
        "weight 1 is 0",
    );
    assert_err(
        remez_with(21, &lp, &gains, &[], o.maxiter(0)),
        "InvalidArgument",
        "maxiter 0",
    );
    assert_err(
        remez_with(101, &[[0.0, 0.01]], &[1.0], &[], o.grid_density(1)),
        "InvalidArgument",
        "grid",
    );
    assert_err(
        remez_with(101, &[[0.0, 0.3], [0.3001, 1.0]], &gains, &[], o.maxiter(1)),
        "InvalidArgument",
        "no convergence in 1",
    );
    Ok(())
}

/// `firwin2` against SciPy 1.17.1's taps: a step (a frequency given twice), an even-length
/// band-pass, an odd antisymmetric band, an even antisymmetric design with `nfreqs`, several
/// slopes (to 1e-12 relative, 1e-13 absolute); the documented example; named errors.
fn firwin2_designs(_d: Device) -> TestResult {
    use signal::{Firwin2Opts, firwin2, firwin2_with};
    #[allow(clippy::type_complexity)]
    let cases: [(usize, &[f64], &[f64], Option<usize>, bool, Window, &[f64]); 5] = [
        (
            21,
            &[0.0, 0.3, 0.3, 1.0],
            &[1.0, 1.0, 0.0, 0.0],
            None,
            false,
            Window::Hamming,
            &[
                0.0002599114839803751,
                0.003213372170650411,
                0.00633173461994884,
                0.00303845696749584,
                -0.013585519044967421,
                -0.034683226693989044,
                -0.03035300985502718,
                0.029072139973157603,
                0.13914515290662172,
                0.2500131597161956,
                0.296875,
            ],
        ),
        (
            20,
            &[0.0, 0.4, 0.6, 1.0],
            &[0.0, 1.0, 1.0, 0.0],
            None,
            false,
            Window::Hann,
            &[
                0.0,
                -0.0002201204722518165,
                -0.0009694601675441212,
                -0.0005391204943597827,
                -0.002548569086047917,
                -0.005369948876800763,
                -0.0053152800612036345,
                -0.06816380747479009,
                -0.23930842474544126,
                0.3991126814516735,
            ],
        ),
        (
            21,
            &[0.0, 0.2, 0.8, 1.0],
            &[0.0, 1.0, 1.0, 0.0],
            None,
            true,
            Window::Hamming,
            &[
                0.0,
                -0.0007367037547650147,
                0.0,
                -0.005202179215461165,
                0.0,
                2.099756104739929e-05,
                0.0,
                0.08649460087393053,
                0.0,
                0.5819307744573069,
                0.0,
            ],
        ),
        (
            16,
            &[0.0, 0.5, 1.0],
            &[0.0, 1.0, 1.0],
            Some(33),
            true,
            Window::Boxcar,
            &[
                -0.002665651286648705,
                -0.0035089450891998292,
                0.004853638992378041,
                0.007192259993359967,
                -0.011812897495600359,
                -0.02304180319868375,
                0.06379956592148536,
                0.5732742711121728,
            ],
        ),
        (
            9,
            &[0.0, 0.25, 0.5, 0.5, 1.0],
            &[1.0, 0.5, 0.5, 0.2, 0.1],
            None,
            false,
            Window::Blackman,
            &[
                0.0,
                0.0007296138433178862,
                0.013958138133578095,
                0.1354175356215792,
                0.3874999999999999,
            ],
        ),
    ];
    for (n, freq, gain, nfreqs, anti, window, half) in cases {
        let mut o = Firwin2Opts::new().antisymmetric(anti);
        if let Some(f) = nfreqs {
            o = o.nfreqs(f);
        }
        let h = firwin2_with(n, freq, gain, window, o)?;
        let sign = if anti { -1.0 } else { 1.0 };
        let want: Vec<f64> = half
            .iter()
            .copied()
            .chain(half.iter().rev().skip(n % 2).map(|v| sign * v))
            .collect();
        close(&h, &want, 1e-12, 1e-13, &format!("firwin2({n}, {freq:?})"))?;
    }
    let h = firwin2(150, &[0.0, 0.5, 1.0], &[1.0, 1.0, 0.0], Window::Hamming)?;
    close(
        &h[72..78],
        &[
            -0.02286961,
            -0.06362756,
            0.57310236,
            0.57310236,
            -0.06362756,
            -0.02286961,
        ],
        0.0,
        5e-9,
        "firwin2's documented example",
    )?;
    let hw = Window::Hamming;
    assert_err(
        firwin2(0, &[0.0, 1.0], &[1.0, 1.0], hw),
        "InvalidArgument",
        "numtaps 0",
    );
    assert_err(
        firwin2(20, &[0.0, 1.0], &[1.0, 1.0], hw),
        "InvalidArgument",
        "type II",
    );
    assert_err(
        firwin2_with(
            21,
            &[0.0, 1.0],
            &[1.0, 0.0],
            hw,
            Firwin2Opts::new().antisymmetric(true),
        ),
        "InvalidArgument",
        "zero gain at 0",
    );
    assert_err(
        firwin2(21, &[0.0, 0.5, 0.5, 0.5, 1.0], &[1.0; 5], hw),
        "InvalidArgument",
        "three times",
    );
    assert_err(
        firwin2(21, &[0.1, 1.0], &[1.0, 1.0], hw),
        "InvalidArgument",
        "run from 0",
    );
    assert_err(
        firwin2(21, &[0.0, 0.6, 0.5, 1.0], &[1.0; 4], hw),
        "InvalidArgument",
        "decrease",
    );
    assert_err(
        firwin2_with(
            21,
            &[0.0, 1.0],
            &[1.0, 1.0],
            hw,
            Firwin2Opts::new().nfreqs(21),
        ),
        "InvalidArgument",
        "nfreqs 21",
    );
    Ok(())
}

/// `roots` sorted by real part (rounded to 1e-9), then imaginary part, as (re, im) pairs.
fn sorted_roots(r: &[cuprite_array::c64]) -> Vec<f64> {
    let mut v: Vec<(f64, f64)> = r.iter().map(|z| (z.re, z.im)).collect();
    v.sort_by(|a, b| {
        ((a.0 * 1e9).round(), a.1)
            .partial_cmp(&((b.0 * 1e9).round(), b.1))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    v.into_iter().flat_map(|(a, b)| [a, b]).collect()
}

/// `tf2zpk`, `zpk2tf`, `sos2tf` and `sos2zpk` on SciPy 1.17.1's elliptic band-pass design
/// (order 3, 0.5 dB, 40 dB, 0.2 to 0.5): its zeros, poles and gain against SciPy's (to 1e-9),
/// the round trip back to `(b, a)` (to 1e-12), the sections' product against SciPy's `sos2tf`,
/// `sos2zpk`'s roots against `tf2zpk`'s; a tiny leading numerator coefficient dropped as
/// SciPy's `normalize` drops it; named errors.
fn conversions(_d: Device) -> TestResult {
    use cuprite_array::c64;
    use signal::{ZerosPolesGain, sos2tf, sos2zpk, tf2zpk, zpk2tf};
    let b = [
        0.06572951568054565,
        -0.038276362670985116,
        -0.10256417465609086,
        -1.459488434120041e-17,
        0.10256417465609084,
        0.03827636267098513,
        -0.06572951568054564,
    ];
    let a = [
        1.0,
        -2.2311393945896265,
        3.1506699979796733,
        -2.9896484175754807,
        2.222475241297931,
        -1.0214653448202073,
        0.3125720148056033,
    ];
    let f = tf2zpk(&b, &a)?;
    close(&[f.gain], &[0.06572951568054565], 1e-14, 0.0, "tf2zpk gain")?;
    let pair = |re: [f64; 6], im: [f64; 6]| -> Vec<f64> {
        re.iter().zip(im).flat_map(|(&r, i)| [r, i]).collect()
    };
    let zeros = pair(
        [
            -0.9999999999999989,
            -0.6676168440923411,
            -0.6676168440923411,
            0.9587825576586275,
            0.9587825576586275,
            0.9999999999999982,
        ],
        [
            0.0,
            -0.7445050365740872,
            0.7445050365740872,
            -0.284140822708705,
            0.284140822708705,
            0.0,
        ],
    );
    let poles = pair(
        [
            -0.01843594354810399,
            -0.01843594354810399,
            0.381431372504076,
            0.381431372504076,
            0.7525742683388419,
            0.7525742683388419,
        ],
        [
            -0.8628028596521293,
            0.8628028596521293,
            -0.593053577411987,
            0.593053577411987,
            -0.5270056773321673,
            0.5270056773321673,
        ],
    );
    close(&sorted_roots(&f.zeros), &zeros, 0.0, 1e-9, "tf2zpk zeros")?;
    close(&sorted_roots(&f.poles), &poles, 0.0, 1e-9, "tf2zpk poles")?;
    let (b2, a2) = zpk2tf(&f)?;
    close(&b2, &b, 0.0, 1e-12, "zpk2tf b")?;
    close(&a2, &a, 0.0, 1e-12, "zpk2tf a")?;
    let sos = [
        [
            0.06572951568054565,
            0.0,
            -0.06572951568054565,
            1.0,
            -0.7628627450081562,
            0.49720243761150396,
        ],
        [
            1.0,
            1.335233688184681,
            1.0,
            1.0,
            0.03687188709620863,
            0.7447686586383984,
        ],
        [
            1.0,
            -1.917565115317256,
            0.9999999999999998,
            1.0,
            -1.505148536677679,
            0.8441030133060748,
        ],
    ];
    let (sb, sa) = sos2tf(&sos)?;
    close(
        &sb,
        &[
            0.06572951568054565,
            -0.03827636267098511,
            -0.10256417465609083,
            -1.3877787807814457e-17,
            0.10256417465609081,
            0.03827636267098514,
            -0.06572951568054564,
        ],
        1e-14,
        1e-16,
        "sos2tf b",
    )?;
    close(&sa, &a, 1e-14, 1e-15, "sos2tf a")?;
    let g = sos2zpk(&sos)?;
    close(
        &[g.gain],
        &[0.06572951568054565],
        1e-14,
        0.0,
        "sos2zpk gain",
    )?;
    close(&sorted_roots(&g.zeros), &zeros, 0.0, 1e-9, "sos2zpk zeros")?;
    close(&sorted_roots(&g.poles), &poles, 0.0, 1e-9, "sos2zpk poles")?;
    let tiny = tf2zpk(&[1e-16, 2.0, 1.0], &[2.0, 1.0])?;
    assert_eq!(tiny.gain, 1.0);
    assert_eq!(tiny.zeros.len(), 1);
    close(
        &[tiny.zeros[0].re, tiny.poles[0].re],
        &[-0.5, -0.5],
        0.0,
        1e-15,
        "tiny",
    )?;
    let lopsided = ZerosPolesGain {
        zeros: vec![c64::new(0.0, 1.0)],
        poles: vec![],
        gain: 1.0,
    };
    assert_err(zpk2tf(&lopsided), "InvalidArgument", "conjugation");
    assert_err(
        tf2zpk(&[1.0], &[0.0, 0.0]),
        "InvalidArgument",
        "no non-zero",
    );
    assert_err(sos2tf(&[]), "InvalidArgument", "no sections");
    Ok(())
}

/// One analog design checked against SciPy: family, order, edges (rad/s), band type, and
/// SciPy's `(b, a)`.
type AnalogCase = (
    IirFamily,
    usize,
    Cutoff,
    BandType,
    &'static [f64],
    &'static [f64],
);

/// SciPy 1.17.1's `butter`, `cheby1`, `cheby2`, `ellip` and `bessel` with `analog=True`, one
/// of each band type.
const ANALOG_SCIPY: [AnalogCase; 5] = [
    (
        IirFamily::Butter,
        4,
        Cutoff::Edge(2.0),
        BandType::Lowpass,
        &[16.0],
        &[
            1.0,
            5.226251859505506,
            13.65685424949238,
            20.905007438022025,
            16.0,
        ],
    ),
    (
        IirFamily::Cheby1 { rp: 1.0 },
        3,
        Cutoff::Edge(5.0),
        BandType::Highpass,
        &[0.9999999999999999, 0.0, 0.0, 0.0],
        &[1.0, 12.60321932026163, 50.2914597904642, 254.42356995479383],
    ),
    (
        IirFamily::Cheby2 { rs: 40.0 },
        2,
        Cutoff::Band(1.0, 3.0),
        BandType::Bandpass,
        &[
            0.009999999999999993,
            0.0,
            0.1399999999999999,
            0.0,
            0.08999999999999994,
        ],
        &[
            1.0,
            0.39799497484264795,
            6.079999999999998,
            1.1939849245279435,
            8.999999999999993,
        ],
    ),
    (
        IirFamily::Ellip { rp: 0.5, rs: 30.0 },
        3,
        Cutoff::Band(2.0, 4.0),
        BandType::Bandstop,
        &[
            1.0,
            0.0,
            24.84206803674668,
            0.0,
            198.73654429397348,
            0.0,
            512.0000000000003,
        ],
        &[
            1.0,
            3.784648811460038,
            30.12182744144659,
            70.52104590788599,
            240.97461953157273,
            242.2175239334425,
            512.0000000000002,
        ],
    ),
    (
        IirFamily::Bessel(BesselNorm::Phase),
        3,
        Cutoff::Edge(10.0),
        BandType::Lowpass,
        &[1000.0],
        &[1.0, 24.3288079822936, 246.621207433047, 999.9999999999998],
    ),
];

/// `iir_analog` against SciPy's coefficients (to 1e-11 relative, 1e-12 of the largest
/// coefficient absolute), `freqs` of the elliptic band-stop design against SciPy's response,
/// and named errors.
fn analog_designs(_d: Device) -> TestResult {
    for (family, n, wn, btype, b, a) in ANALOG_SCIPY {
        let (gb, ga) = iir_analog(family, n, wn, btype)?;
        let what = format!("{family:?} {btype:?}");
        let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        close(&gb, b, 1e-11, 1e-12 * scale, &format!("{what} b"))?;
        close(&ga, a, 1e-11, 1e-12 * scale, &format!("{what} a"))?;
    }
    let (b, a) = (ANALOG_SCIPY[3].4, ANALOG_SCIPY[3].5);
    let h = freqs(b, a, &[0.5, 2.5, 3.0, 10.0])?;
    let re = [
        0.9633896815126591,
        0.011943154044743108,
        0.005130946951199058,
        0.9009305160523446,
    ];
    let im = [
        -0.23873654151237245,
        -0.024575910007032544,
        0.024446727287600938,
        0.38708597899815533,
    ];
    let (gre, gim): (Vec<f64>, Vec<f64>) = h.iter().map(|v| (v.re, v.im)).unzip();
    close(&gre, &re, 1e-12, 1e-14, "freqs real")?;
    close(&gim, &im, 1e-12, 1e-14, "freqs imag")?;
    let lp = BandType::Lowpass;
    assert_err(
        iir_analog(IirFamily::Butter, 3, -1.0, lp),
        "InvalidArgument",
        "positive",
    );
    assert_err(
        iir_analog(IirFamily::Butter, 3, [3.0, 2.0], BandType::Bandpass),
        "InvalidArgument",
        "must increase",
    );
    assert_err(
        iir_analog(IirFamily::Cheby1 { rp: 0.0 }, 3, 1.0, lp),
        "InvalidArgument",
        "rp = 0",
    );
    assert_err(
        iir_analog(IirFamily::Butter, 0, 1.0, lp),
        "InvalidArgument",
        "order 0",
    );
    assert_err(
        freqs(&[1.0], &[0.0, 1.0], &[1.0]),
        "InvalidArgument",
        "a[0] != 0",
    );
    Ok(())
}

/// SciPy 1.17.1's `savgol_coeffs(window_length, polyorder, deriv, delta, pos)`.
#[allow(clippy::type_complexity)]
const SAVGOL_COEFFS_SCIPY: [((usize, usize, usize, f64, Option<f64>), &[f64]); 6] = [
    (
        (5, 2, 0, 1.0, None),
        &[
            -0.08571428571428574,
            0.34285714285714275,
            0.4857142857142856,
            0.3428571428571427,
            -0.08571428571428584,
        ],
    ),
    (
        (7, 3, 1, 0.5, None),
        &[
            -0.17460317460317445,
            0.5317460317460315,
            0.4603174603174604,
            0.0,
            -0.46031746031746046,
            -0.5317460317460317,
            0.17460317460317465,
        ],
    ),
    (
        (6, 2, 0, 1.0, None),
        &[
            -0.09374999999999994,
            0.2187499999999999,
            0.37499999999999967,
            0.37499999999999967,
            0.2187499999999997,
            -0.09374999999999993,
        ],
    ),
    (
        (9, 4, 2, 1.0, None),
        &[
            -0.07342657342657533,
            0.2162004662004659,
            0.08799533799533761,
            -0.12296037296037296,
            -0.2156177156177159,
            -0.12296037296037307,
            0.08799533799533796,
            0.21620046620046557,
            -0.07342657342657528,
        ],
    ),
    (
        (5, 2, 0, 1.0, Some(1.0)),
        &[
            -0.14285714285714274,
            0.1714285714285712,
            0.3428571428571427,
            0.3714285714285714,
            0.2571428571428573,
        ],
    ),
    (
        (4, 3, 0, 1.0, None),
        &[
            -0.06250000000000089,
            0.5624999999999996,
            0.5624999999999998,
            -0.06250000000000086,
        ],
    ),
];

/// `savgol_coeffs` against SciPy's (to 1e-12), zeros for a derivative above the order, and
/// named errors.
fn savgol_coefficients(_d: Device) -> TestResult {
    for ((wl, p, deriv, delta, pos), want) in SAVGOL_COEFFS_SCIPY {
        let mut o = SavgolOpts::new().deriv(deriv).delta(delta);
        if let Some(pos) = pos {
            o = o.pos(pos);
        }
        let c = savgol_coeffs(wl, p, o)?;
        close(
            &c,
            want,
            1e-12,
            1e-13,
            &format!("savgol_coeffs({wl}, {p}, {deriv})"),
        )?;
    }
    assert_eq!(
        savgol_coeffs(5, 1, SavgolOpts::new().deriv(2))?,
        vec![0.0; 5]
    );
    assert_err(
        savgol_coeffs(0, 0, SavgolOpts::new()),
        "InvalidArgument",
        "window_length 0",
    );
    assert_err(
        savgol_coeffs(5, 5, SavgolOpts::new()),
        "InvalidArgument",
        "polyorder 5",
    );
    assert_err(
        savgol_coeffs(5, 2, SavgolOpts::new().pos(5.0)),
        "InvalidArgument",
        "pos 5",
    );
    assert_err(
        savgol_coeffs(5, 2, SavgolOpts::new().delta(0.0)),
        "InvalidArgument",
        "delta 0",
    );
    Ok(())
}

/// SciPy 1.17.1's `savgol_filter(x, window_length, polyorder, deriv, delta, mode, cval)` of
/// `x_i = sin(0.9 i) + 0.05 i^2`, `i < 13` (`cval` 0.5 for `constant`).
#[allow(clippy::type_complexity)]
const SAVGOL_FILTER_SCIPY: [((usize, usize, usize, f64, &str), [f64; 13]); 7] = [
    (
        (5, 2, 0, 1.0, "interp"),
        [
            0.018969673227400622,
            0.8113229398163669,
            1.126041500947132,
            0.8563998239739441,
            0.3792028624241617,
            0.3204567853522491,
            1.0651704812490377,
            2.4659885069774834,
            3.9547067493808985,
            4.972277970095148,
            5.391887610074255,
            5.8220008194013735,
            6.107667225873068,
        ],
    ),
    (
        (6, 3, 1, 0.5, "interp"),
        [
            2.90542613847111,
            1.0251360062188193,
            -0.20191502773254788,
            -1.004048071855701,
            -0.14803065291043227,
            1.5011154700510256,
            2.846705402133013,
            3.02177952183691,
            2.0452012384349634,
            0.8073815399041924,
            0.6091262705177636,
            0.7126791444974403,
            1.482983235480499,
        ],
    ),
    (
        (7, 2, 2, 1.0, "interp"),
        [
            -0.07065056003488747,
            -0.07065056003488747,
            -0.07065056003488747,
            -0.07065056003488773,
            0.27669610800077055,
            0.4903226842107054,
            0.4085608346943036,
            0.09328629711708575,
            -0.21690744396635792,
            -0.28727194949441626,
            -0.2872719494944162,
            -0.2872719494944162,
            -0.2872719494944162,
        ],
    ),
    (
        (5, 2, 0, 1.0, "mirror"),
        [
            0.37019314416544036,
            0.6605888189891886,
            1.126041500947132,
            0.8563998239739441,
            0.3792028624241617,
            0.3204567853522491,
            1.0651704812490377,
            2.4659885069774834,
            3.9547067493808985,
            4.972277970095148,
            5.391887610074255,
            5.794543289048951,
            5.927728906480322,
        ],
    ),
    (
        (5, 2, 0, 1.0, "nearest"),
        [
            0.18509657208272018,
            0.7320168398144016,
            1.126041500947132,
            0.8563998239739441,
            0.3792028624241617,
            0.3204567853522491,
            1.0651704812490377,
            2.4659885069774834,
            3.9547067493808985,
            4.972277970095148,
            5.391887610074255,
            5.740834746445337,
            6.073396338206913,
        ],
    ),
    (
        (5, 2, 0, 1.0, "wrap"),
        [
            1.8379929412406635,
            0.19895423096295717,
            1.126041500947132,
            0.8563998239739441,
            0.3792028624241617,
            0.3204567853522491,
            1.0651704812490377,
            2.4659885069774834,
            3.9547067493808985,
            4.972277970095148,
            5.391887610074255,
            6.273897355296782,
            4.4027804908273716,
        ],
    ),
    (
        (4, 2, 0, 1.0, "constant"),
        [
            0.36413090973557205,
            1.0741994365198293,
            1.0793900708547242,
            0.6042135887023559,
            0.23530809741766312,
            0.5545659434887964,
            1.6987691856357,
            3.2560756597320255,
            4.577692917907626,
            5.2688714184192325,
            5.487643108901206,
            6.274477025011368,
            3.3986943639485547,
        ],
    ),
];

/// `savgol_filter` against SciPy's values for every edge mode (f64 to 1e-12, f32 to 1e-5),
/// along the last axis of a 1-d array and along axis 0 of a 2-d stack of the same signal
/// scaled per column; with `interp` edges a cubic is reproduced to the ends, with its first
/// and second derivatives (computed here in closed form); a window longer than the axis with
/// `interp` edges is an `Err`.
fn savgol(d: Device) -> TestResult {
    use cuprite_array::image::Boundary;
    let x: Vec<f64> = (0..13)
        .map(|i| (0.9 * i as f64).sin() + 0.05 * (i * i) as f64)
        .collect();
    let a64 = Array::from_slice_on(d, &x, &[13])?;
    let a32 = Array::from_slice_on(d, &x.iter().map(|&v| v as f32).collect::<Vec<_>>(), &[13])?;
    // Column j of the stack is the signal times j + 1.
    let stack: Vec<f64> = (0..13)
        .flat_map(|i| {
            (0..3).map(move |j| (j + 1) as f64 * ((0.9 * i as f64).sin() + 0.05 * (i * i) as f64))
        })
        .collect();
    let s64 = Array::from_slice_on(d, &stack, &[13, 3])?;
    for ((wl, p, deriv, delta, mode), want) in SAVGOL_FILTER_SCIPY {
        let edges = match mode {
            "interp" => SavgolEdges::Interp,
            "mirror" => SavgolEdges::Extend(Boundary::Mirror),
            "nearest" => SavgolEdges::Extend(Boundary::Nearest),
            "wrap" => SavgolEdges::Extend(Boundary::Wrap),
            _ => SavgolEdges::Extend(Boundary::Constant(0.5)),
        };
        let o = SavgolOpts::new().deriv(deriv).delta(delta).edges(edges);
        let what = format!("savgol_filter({wl}, {p}, {deriv}, {mode})");
        close(
            &savgol_filter(&a64, wl, p, o)?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            &what,
        )?;
        let g32: Vec<f64> = savgol_filter(&a32, wl, p, o)?
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
        close(&g32, &want, 1e-5, 1e-5, &format!("{what} f32"))?;
        if mode != "constant" {
            let g = savgol_filter(&s64, wl, p, o.axis(0))?.to_vec()?;
            for j in 0..3 {
                let col: Vec<f64> = (0..13).map(|i| g[i * 3 + j]).collect();
                let w: Vec<f64> = want.iter().map(|v| v * (j + 1) as f64).collect();
                close(&col, &w, 1e-12, 1e-12, &format!("{what} axis 0 column {j}"))?;
            }
        }
    }
    // A cubic through interp edges: values, slope and curvature, exactly (to rounding).
    let n = 20usize;
    let cubic = |t: f64| 0.5 - 0.3 * t + 0.02 * t * t + 0.004 * t * t * t;
    let slope = |t: f64| -0.3 + 0.04 * t + 0.012 * t * t;
    let curve = |t: f64| 0.04 + 0.024 * t;
    let c: Vec<f64> = (0..n).map(|i| cubic(i as f64 * 0.25)).collect();
    let arr = Array::from_slice_on(d, &c, &[n])?;
    for (deriv, f) in [
        (0usize, &cubic as &dyn Fn(f64) -> f64),
        (1, &slope),
        (2, &curve),
    ] {
        let got =
            savgol_filter(&arr, 7, 3, SavgolOpts::new().deriv(deriv).delta(0.25))?.to_vec()?;
        let want: Vec<f64> = (0..n).map(|i| f(i as f64 * 0.25)).collect();
        close(
            &got,
            &want,
            1e-9,
            1e-9,
            &format!("cubic, derivative {deriv}"),
        )?;
    }
    assert_err(
        savgol_filter(&arr, 21, 3, SavgolOpts::new()),
        "InvalidArgument",
        "window_length 21 is longer",
    );
    Ok(())
}

/// Waveforms against SciPy 1.17.1's values (`sawtooth`, `square`, `chirp` in its four sweeps,
/// `gausspulse`) in f64 (to 1e-12) and f32 (to 1e-4: phases of up to 2 pi · 30 rounded in
/// f32), `unit_impulse`, a NaN time, and named errors.
fn waveforms(d: Device) -> TestResult {
    use signal::{ChirpMethod, chirp, gausspulse, sawtooth, square, unit_impulse};
    let t = [
        -2.5, -0.3, 0.0, 0.4, 1.1, 2.0, 3.3, 4.7, 6.0, 7.5, 9.9, 12.4,
    ];
    let t64 = Array::from_slice_on(d, &t, &[12])?;
    let t32 = t64.cast::<f32>();
    let both = |what: &str,
                f: &dyn Fn(&Array<f64>) -> cuprite_array::Result<Array<f64>>,
                g: &dyn Fn(&Array<f32>) -> cuprite_array::Result<Array<f32>>,
                want: &[f64],
                tol32: f64|
     -> TestResult {
        close(&f(&t64)?.to_vec()?, want, 1e-12, 1e-12, what)?;
        let got: Vec<f64> = g(&t32)?.to_vec()?.iter().map(|&v| v as f64).collect();
        close(&got, want, tol32, tol32, &format!("{what} f32"))
    };
    both(
        "sawtooth(1)",
        &|x| sawtooth(x, 1.0),
        &|x| sawtooth(x, 1.0),
        &[
            0.20422528454052324,
            0.9045070341448629,
            -1.0,
            -0.8726760455264837,
            -0.6498591251978303,
            -0.3633802276324186,
            0.05042262440650913,
            0.4960564650638162,
            0.909859317102744,
            -0.6126758536215698,
            0.15126787321952784,
            0.9470425886790046,
        ],
        1e-5,
    )?;
    both(
        "sawtooth(0.3)",
        &|x| sawtooth(x, 0.3),
        &|x| sawtooth(x, 0.3),
        &[
            0.13682102208496671,
            -0.8635814773498041,
            -1.0,
            -0.5755868184216124,
            0.16713624934056592,
            0.9476860394748837,
            0.35653910799070115,
            -0.2800806643768804,
            -0.871227595861063,
            0.2910804879281004,
            0.21247446682924587,
            -0.9243465552557208,
        ],
        1e-5,
    )?;
    both(
        "sawtooth(0)",
        &|x| sawtooth(x, 0.0),
        &|x| sawtooth(x, 0.0),
        &[
            -0.2042252845405233,
            -0.9045070341448629,
            1.0,
            0.8726760455264837,
            0.6498591251978302,
            0.3633802276324186,
            -0.0504226244065092,
            -0.4960564650638163,
            -0.9098593171027441,
            0.6126758536215698,
            -0.1512678732195279,
            -0.9470425886790046,
        ],
        1e-5,
    )?;
    both(
        "square(0.5)",
        &|x| square(x, 0.5),
        &|x| square(x, 0.5),
        &[
            -1.0, -1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 1.0, -1.0, -1.0,
        ],
        0.0,
    )?;
    both(
        "square(0.2)",
        &|x| square(x, 0.2),
        &|x| square(x, 0.2),
        &[
            -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, 1.0, -1.0, -1.0,
        ],
        0.0,
    )?;
    let tc = Array::from_slice_on(d, &[0.0, 0.13, 0.5, 0.77, 1.0, 1.6, 2.0], &[7])?;
    let sweeps: [(ChirpMethod, f64, f64, f64, [f64; 7]); 5] = [
        (
            ChirpMethod::Linear,
            2.0,
            6.0,
            30.0,
            [
                0.8660254037844387,
                -0.6385529357241924,
                -0.4999999999999992,
                0.2105741326931648,
                0.8660254037844394,
                0.5533915492433465,
                0.8660254037844382,
            ],
        ),
        (
            ChirpMethod::Quadratic { vertex_zero: true },
            2.0,
            6.0,
            0.0,
            [
                1.0,
                -0.06738214485680763,
                0.9659258262890682,
                -0.3553686536966197,
                -0.5000000000000006,
                -0.9169208288346142,
                -0.5000000000000056,
            ],
        ),
        (
            ChirpMethod::Quadratic { vertex_zero: false },
            2.0,
            6.0,
            0.0,
            [
                1.0,
                -0.2673117040698755,
                -0.9659258262890683,
                -0.8949028973886607,
                -0.5000000000000018,
                0.9597072623390692,
                -0.5000000000000021,
            ],
        ),
        (
            ChirpMethod::Logarithmic,
            2.0,
            6.0,
            0.0,
            [
                1.0,
                -0.12226723494584864,
                0.5836507709333228,
                0.8667519231064251,
                -0.5070636821780197,
                0.6968804927565014,
                -0.19917933152710474,
            ],
        ),
        (
            ChirpMethod::Hyperbolic,
            6.0,
            2.0,
            0.0,
            [
                1.0,
                -0.1047005338779603,
                -0.9121532636935961,
                -0.8934954211296892,
                0.5417388714517937,
                -0.10618213601859466,
                -0.8386463890384233,
            ],
        ),
    ];
    for (m, f0, f1, phi, want) in sweeps {
        let got = chirp(&tc, f0, 2.0, f1, m, phi)?.to_vec()?;
        close(&got, &want, 1e-12, 1e-12, &format!("chirp {m:?}"))?;
        let g32: Vec<f64> = chirp(&tc.cast::<f32>(), f0, 2.0, f1, m, phi)?
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
        close(&g32, &want, 1e-4, 1e-4, &format!("chirp {m:?} f32"))?;
    }
    let tg = Array::from_slice_on(d, &[-1e-3, -2.5e-4, 0.0, 3e-4, 8e-4], &[5])?;
    close(
        &gausspulse(&tg, 2000.0, 0.4, -3.0)?.to_vec()?,
        &[
            0.010336550785488926,
            -0.7514472123295316,
            1.0,
            -0.5361069685797574,
            -0.04336686778632177,
        ],
        1e-12,
        1e-12,
        "gausspulse",
    )?;
    cuprite_array::with_device(d, || -> TestResult {
        assert_eq!(unit_impulse::<f64>(&[3], None)?.to_vec()?, [1.0, 0.0, 0.0]);
        let u = unit_impulse::<f32>(&[2, 3], Some(&[1, 2]))?;
        assert_eq!(u.shape(), &[2, 3]);
        assert_eq!(u.to_vec()?, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        assert_err(
            unit_impulse::<f32>(&[2, 3], Some(&[2, 0])),
            "InvalidArgument",
            "[2, 0]",
        );
        Ok(())
    })?;
    let nan = Array::from_slice_on(d, &[f64::NAN, 1.0], &[2])?;
    assert!(square(&nan, 0.5)?.to_vec()?[0].is_nan());
    assert!(sawtooth(&nan, 0.5)?.to_vec()?[0].is_nan());
    assert_err(sawtooth(&t64, 1.5), "InvalidArgument", "width 1.5");
    assert_err(square(&t64, -0.1), "InvalidArgument", "duty -0.1");
    assert_err(
        chirp(&tc, 2.0, 2.0, -6.0, ChirpMethod::Logarithmic, 0.0),
        "InvalidArgument",
        "one sign",
    );
    assert_err(
        chirp(&tc, 0.0, 2.0, 6.0, ChirpMethod::Hyperbolic, 0.0),
        "InvalidArgument",
        "not 0",
    );
    assert_err(
        chirp(&tc, 2.0, 0.0, 6.0, ChirpMethod::Linear, 0.0),
        "InvalidArgument",
        "t1 0",
    );
    assert_err(
        gausspulse(&tg, 1000.0, 0.5, 3.0),
        "InvalidArgument",
        "bwr 3",
    );
    Ok(())
}

/// A signal with peaks, troughs and a two-sample plateau (at 20), as SciPy saw it.
const PEAKS_X: [f64; 60] = [
    0.0, 2.010966, 2.478499, 1.945283, 2.093964, 3.175309, 3.59251, 2.256395, 0.257807, -0.604694,
    -0.303357, -0.45725, -1.810274, -3.025955, -2.579096, -0.979879, -0.070628, -0.416189,
    -0.59556, 0.58649, 2.554447, 2.554447, 1.464748, 0.663499, 1.194759, 1.974839, 1.463196,
    0.007168, -0.590188, 0.341099, 1.377114, 1.073015, 0.037364, -0.021232, 1.134918, 1.864958,
    1.015339, -0.397775, -0.650803, 0.219628, 0.549913, -0.425137, -1.370368, -0.748264, 0.95109,
    1.907661, 1.574176, 1.377602, 2.504905, 4.034698, 4.171678, 2.794019, 1.596377, 1.627069,
    1.827528, 0.705521, -1.324707, -2.384421, -1.730028, -0.723756,
];

/// `find_peaks` against SciPy 1.17.1 on [`PEAKS_X`]: every peak; the peaks meeting all
/// conditions at once (height, threshold, distance, prominence with `wlen`, width at
/// `rel_height` 0.6) with every measure SciPy returns (to 1e-12); a plateau's size and
/// edges; a 2-d signal and a reversed range are errors.
fn peaks(d: Device) -> TestResult {
    use signal::{PeakOpts, find_peaks, peak_widths};
    let x = Array::from_slice_on(d, &PEAKS_X, &[60])?;
    assert_eq!(
        find_peaks(&x, PeakOpts::new())?.indices,
        [2, 6, 10, 16, 20, 25, 30, 35, 40, 45, 50, 54]
    );
    let o = PeakOpts::new()
        .height(0.5, f64::INFINITY)
        .threshold(0.05, f64::INFINITY)
        .distance(4.0)
        .prominence(0.3, f64::INFINITY)
        .width(1.0, f64::INFINITY)
        .wlen(15.0)
        .rel_height(0.6);
    let p = find_peaks(&x, o)?;
    assert_eq!(p.indices, [2, 6, 25, 30, 35, 40, 45, 50]);
    let heights = [
        2.478499, 3.59251, 1.974839, 1.377114, 1.864958, 0.549913, 1.907661, 4.171678,
    ];
    close(
        &p.heights.clone().unwrap_or_default(),
        &heights,
        0.0,
        0.0,
        "heights",
    )?;
    let (lt, rt): (Vec<f64>, Vec<f64>) =
        p.thresholds.clone().unwrap_or_default().into_iter().unzip();
    close(
        &lt,
        &[
            0.467533,
            0.41720099999999993,
            0.7800800000000001,
            1.036015,
            0.7300399999999998,
            0.330285,
            0.9565710000000001,
            0.13698000000000032,
        ],
        1e-12,
        1e-12,
        "left thresholds",
    )?;
    close(
        &rt,
        &[
            0.5332159999999997,
            1.336115,
            0.5116430000000001,
            0.3040989999999999,
            0.8496189999999999,
            0.97505,
            0.33348500000000003,
            1.377659,
        ],
        1e-12,
        1e-12,
        "right thresholds",
    )?;
    let pr = p.prominences.clone().unwrap_or_default();
    close(
        &pr.iter().map(|v| v.0).collect::<Vec<_>>(),
        &[
            0.5332159999999997,
            3.59251,
            1.31134,
            1.3983459999999999,
            2.455146,
            1.200716,
            0.5300590000000001,
            4.919942,
        ],
        1e-12,
        1e-12,
        "prominences",
    )?;
    assert_eq!(
        pr.iter().map(|v| (v.1, v.2)).collect::<Vec<_>>(),
        [
            (0, 3),
            (0, 13),
            (23, 28),
            (28, 33),
            (28, 42),
            (38, 42),
            (42, 47),
            (43, 57)
        ]
    );
    let w = p.widths.clone().unwrap_or_default();
    let col = |k: usize| -> Vec<f64> { w.iter().map(|v| [v.0, v.1, v.2, v.3][k]).collect() };
    close(
        &col(0),
        &[
            1.2842930873328715,
            6.695401013096867,
            2.2016372719876394,
            2.326336205743079,
            3.083893259216971,
            2.1870842831084545,
            1.2861467112252,
            10.260902932338311,
        ],
        1e-12,
        1e-12,
        "widths",
    )?;
    close(
        &col(2),
        &[
            1.3157069126671281,
            0.7145839362773911,
            23.98734329706735,
            29.190158829746675,
            33.357308653721404,
            38.55177998026265,
            44.6675255678878,
            44.280818465121776,
        ],
        1e-12,
        1e-12,
        "left positions",
    )?;
    close(
        &col(3),
        &[
            2.5999999999999996,
            7.409984949374258,
            26.18898056905499,
            31.516495035489754,
            36.441201912938375,
            40.738864263371106,
            45.953672279113,
            54.54172139746009,
        ],
        1e-12,
        1e-12,
        "right positions",
    )?;
    let plateau = find_peaks(&x, PeakOpts::new().plateau_size(2, usize::MAX))?;
    assert_eq!(plateau.indices, [20]);
    assert_eq!(plateau.plateau, Some(vec![(2, 20, 21)]));
    // A non-peak has prominence 0 and width 0, at its own position.
    assert_eq!(peak_widths(&x, &[5], 1.0)?, [(0.0, 3.175309, 5.0, 5.0)]);
    let flat = Array::from_slice_on(d, &[0.0, 1.0, 0.0, 1.0], &[2, 2])?;
    assert_err(find_peaks(&flat, PeakOpts::new()), "Shape", "1-d");
    assert_err(
        find_peaks(&x, PeakOpts::new().height(2.0, 1.0)),
        "InvalidArgument",
        "min <= max",
    );
    assert_err(
        find_peaks(&x, PeakOpts::new().distance(0.5)),
        "InvalidArgument",
        "distance 0.5",
    );
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("filtering", filtering),
    ("two_tones", two_tones),
    ("savgol", savgol),
    ("waveforms", waveforms),
    ("peaks", peaks),
];

pub fn tests() -> Vec<Test> {
    let host: [(&str, Body); 17] = [
        ("fir_designs", fir_designs),
        ("fir_errors", fir_errors),
        ("firls_designs", firls_designs),
        ("firls_errors", firls_errors),
        ("remez_designs", remez_designs),
        ("remez_errors", remez_errors_named),
        ("savgol_coefficients", savgol_coefficients),
        ("analog_designs", analog_designs),
        ("firwin2_designs", firwin2_designs),
        ("conversions", conversions),
        ("responses", responses),
        ("designs", designs),
        ("bessel_designs", bessel_designs),
        ("ellip_designs", ellip_designs),
        ("design_errors", design_errors),
        ("order_selection", order_selection),
        ("notch_and_peak", notch_and_peak),
    ];
    let mut v: Vec<Test> = host
        .into_iter()
        .map(|(name, body)| {
            Test::cpu(format!("cpu::signal_design::{name}"), move || {
                body(Device::CPU)
            })
        })
        .collect();
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::signal_design::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::signal_design::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
