//! Filter transforms and linear systems on the host (`buttap`..`besselap`, the `lp2*` and
//! bilinear transforms in both forms, `normalize`, `zpk2sos`/`tf2sos` with each pairing, the
//! state-space conversions and `cont2discrete`, partial fractions, zero-pole responses, comb
//! and gammatone filters, `minimum_phase`) against SciPy's values, pasted from SciPy 1.17.1
//! with the call that produced them, and against properties that hold whatever SciPy says:
//! round trips between forms, and responses of transformed filters equal to the prototype's
//! at the mapped frequency.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::Device;
use cuprite_array::c64;
use cuprite_array::signal::{
    self, BesselNorm, CombType, Discretization, GammatoneType, MinPhaseMethod, PartialFractions,
    RootType, SosPairing, StateSpace, ZerosPolesGain, besselap, bilinear, bilinear_zpk, buttap,
    cheb1ap, cheb2ap, cont2discrete, cont2discrete_tf, ellipap, findfreqs, findfreqs_zpk,
    freqs_zpk, freqz_zpk, gammatone, iircomb, invres, invresz, lp2bp, lp2bp_zpk, lp2bs, lp2bs_zpk,
    lp2hp, lp2hp_zpk, lp2lp, lp2lp_zpk, minimum_phase, normalize, residue, residuez, ss2tf, ss2zpk,
    tf2sos, tf2ss, unique_roots, zpk2sos, zpk2ss,
};
use cuprite_testkit::{Test, TestResult};
use std::f64::consts::PI;

fn c(re: f64, im: f64) -> c64 {
    c64::new(re, im)
}

fn zpk(z: &[c64], p: &[c64], k: f64) -> ZerosPolesGain {
    ZerosPolesGain {
        zeros: z.to_vec(),
        poles: p.to_vec(),
        gain: k,
    }
}

/// Complex values as interleaved `(re, im)`.
fn flat(v: &[c64]) -> Vec<f64> {
    v.iter().flat_map(|z| [z.re, z.im]).collect()
}

/// Roots sorted by real part, then imaginary part, after rounding away the last bits (so
/// that conjugates and near-equal real parts order alike on both sides).
fn sorted(v: &[c64]) -> Vec<c64> {
    let mut v = v.to_vec();
    // `+ 0.0` makes -0 and 0 one key.
    let key = |z: &c64| ((z.re * 1e9).round() + 0.0, (z.im * 1e9).round() + 0.0);
    v.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    v
}

/// `f` against `want` root for root in the given order.
fn same_zpk(f: &ZerosPolesGain, want: &ZerosPolesGain, tol: f64, what: &str) -> TestResult {
    close(
        &flat(&f.zeros),
        &flat(&want.zeros),
        tol,
        tol,
        &format!("{what} zeros"),
    )?;
    close(
        &flat(&f.poles),
        &flat(&want.poles),
        tol,
        tol,
        &format!("{what} poles"),
    )?;
    close(&[f.gain], &[want.gain], tol, 0.0, &format!("{what} gain"))
}

/// `f` against `want` as sets of roots.
fn same_roots(f: &ZerosPolesGain, want: &ZerosPolesGain, tol: f64, what: &str) -> TestResult {
    let (a, b) = (sorted(&f.zeros), sorted(&want.zeros));
    close(&flat(&a), &flat(&b), tol, tol, &format!("{what} zeros"))?;
    let (a, b) = (sorted(&f.poles), sorted(&want.poles));
    close(&flat(&a), &flat(&b), tol, tol, &format!("{what} poles"))?;
    close(&[f.gain], &[want.gain], tol, 0.0, &format!("{what} gain"))
}

/// Sections against SciPy's, row by row.
fn same_sos(got: &[[f64; 6]], want: &[[f64; 6]], tol: f64, what: &str) -> TestResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} sections, expected {}", got.len(), want.len()).into());
    }
    let g: Vec<f64> = got.iter().flatten().copied().collect();
    let w: Vec<f64> = want.iter().flatten().copied().collect();
    close(&g, &w, tol, tol, what)
}

/// `k prod(s - z) / prod(s - p)` at `s`.
fn zpk_at(f: &ZerosPolesGain, s: c64) -> c64 {
    let num = f.zeros.iter().fold(c(f.gain, 0.0), |acc, &z| acc * (s - z));
    f.poles.iter().fold(num, |acc, &p| acc / (s - p))
}

/// `sum c[i] s^(n - 1 - i)` at `s` (descending powers).
fn poly_at(coef: &[f64], s: c64) -> c64 {
    coef.iter().fold(c(0.0, 0.0), |acc, &v| acc * s + v)
}

/// The prototypes against SciPy's roots and gains, as sets.
fn prototypes(_d: Device) -> TestResult {
    let cases: [(ZerosPolesGain, (&[c64], &[c64], f64), &str); 12] = [
        // SciPy buttap(4)
        (
            buttap(4)?,
            (
                &[],
                &[
                    c(-0.38268343236508984, 0.9238795325112867),
                    c(-0.9238795325112867, 0.3826834323650898),
                    c(-0.9238795325112867, -0.3826834323650898),
                    c(-0.38268343236508984, -0.9238795325112867),
                ],
                1.0,
            ),
            "buttap(4)",
        ),
        // SciPy cheb1ap(3, 1.0)
        (
            cheb1ap(3, 1.0)?,
            (
                &[],
                &[
                    c(-0.24708530247119026, 0.9659986749948669),
                    c(-0.4941706049423804, -0.0),
                    c(-0.24708530247119026, -0.9659986749948669),
                ],
                0.49130668209006784,
            ),
            "cheb1ap(3, 1.0)",
        ),
        // SciPy cheb1ap(4, 0.5)
        (
            cheb1ap(4, 0.5)?,
            (
                &[],
                &[
                    c(-0.17535306957759994, 1.0162528927169086),
                    c(-0.4233397587779947, 0.4209457309642335),
                    c(-0.4233397587779947, -0.4209457309642335),
                    c(-0.17535306957759994, -1.0162528927169086),
                ],
                0.35784689515539864,
            ),
            "cheb1ap(4, 0.5)",
        ),
        // SciPy cheb2ap(4, 40.0)
        (
            cheb2ap(4, 40.0)?,
            (
                &[
                    c(-0.0, -1.082392200292394),
                    c(-0.0, -2.613125929752753),
                    c(0.0, 2.613125929752753),
                    c(0.0, 1.082392200292394),
                ],
                &[
                    c(-0.17116012188825785, -0.47610224689532044),
                    c(-0.5045370360501146, -0.24079048688074278),
                    c(-0.5045370360501146, 0.24079048688074278),
                    c(-0.17116012188825785, 0.47610224689532044),
                ],
                0.009999999999999995,
            ),
            "cheb2ap(4, 40.0)",
        ),
        // SciPy cheb2ap(5, 30.0)
        (
            cheb2ap(5, 30.0)?,
            (
                &[
                    c(-0.0, -1.0514622242382672),
                    c(-0.0, -1.7013016167040798),
                    c(0.0, 1.7013016167040798),
                    c(0.0, 1.0514622242382672),
                ],
                &[
                    c(-0.16240987627423428, -0.7349279946959252),
                    c(-0.6222489819648376, -0.6647121685109684),
                    c(-1.0778712106732897, 0.0),
                    c(-0.6222489819648376, 0.6647121685109684),
                    c(-0.16240987627423428, 0.7349279946959252),
                ],
                0.15819299929208316,
            ),
            "cheb2ap(5, 30.0)",
        ),
        // SciPy ellipap(5, 0.5, 50.0)
        (
            ellipap(5, 0.5, 50.0)?,
            (
                &[
                    c(0.0, 2.3025582755128777),
                    c(0.0, 1.5410150753076293),
                    c(0.0, -2.3025582755128777),
                    c(0.0, -1.5410150753076293),
                ],
                &[
                    c(-0.4278836078333788, 0.0),
                    c(-0.28476603661320876, -0.7055272663717959),
                    c(-0.08097308608632943, -1.012527744573531),
                    c(-0.28476603661320876, 0.7055272663717959),
                    c(-0.08097308608632943, 1.012527744573531),
                ],
                0.020297706779619968,
            ),
            "ellipap(5, 0.5, 50.0)",
        ),
        // SciPy ellipap(4, 1.0, 40.0)
        (
            ellipap(4, 1.0, 40.0)?,
            (
                &[
                    c(0.0, 3.5252874329960022),
                    c(0.0, 1.6095504012251538),
                    c(0.0, -3.5252874329960022),
                    c(0.0, -1.6095504012251538),
                ],
                &[
                    c(-0.3642905958734215, -0.47860276764064974),
                    c(-0.10528126462117136, -0.9937108112087721),
                    c(-0.3642905958734215, 0.47860276764064974),
                    c(-0.10528126462117136, 0.9937108112087721),
                ],
                0.009999999999999997,
            ),
            "ellipap(4, 1.0, 40.0)",
        ),
        // SciPy ellipap(1, 1.0, 40.0)
        (
            ellipap(1, 1.0, 40.0)?,
            (&[], &[c(-1.9652267283602716, 0.0)], 1.9652267283602716),
            "ellipap(1, 1.0, 40.0)",
        ),
        // SciPy besselap(4, Phase)
        (
            besselap(4, BesselNorm::Phase)?,
            (
                &[],
                &[
                    c(-0.6572111716718827, 0.830161435004873),
                    c(-0.9047587967882447, 0.27091873300387465),
                    c(-0.9047587967882447, -0.27091873300387465),
                    c(-0.6572111716718827, -0.830161435004873),
                ],
                1.0,
            ),
            "besselap(4, BesselNorm::Phase)",
        ),
        // SciPy besselap(5, Mag)
        (
            besselap(5, BesselNorm::Mag)?,
            (
                &[],
                &[
                    c(-0.9576765485626815, 1.4711243207303943),
                    c(-1.3808773258604392, 0.717909587626768),
                    c(-1.5023162714474785, 0.0),
                    c(-1.3808773258604392, -0.717909587626768),
                    c(-0.9576765485626815, -1.4711243207303943),
                ],
                11.212836685370513,
            ),
            "besselap(5, BesselNorm::Mag)",
        ),
        // SciPy besselap(3, Delay)
        (
            besselap(3, BesselNorm::Delay)?,
            (
                &[],
                &[
                    c(-1.838907322686957, 1.7543809597837212),
                    c(-2.3221853546260856, -0.0),
                    c(-1.838907322686957, -1.7543809597837212),
                ],
                15.0,
            ),
            "besselap(3, BesselNorm::Delay)",
        ),
        // SciPy cheb1ap(0, 2.0)
        (
            cheb1ap(0, 2.0)?,
            (&[], &[], 0.7943282347242815),
            "cheb1ap(0, 2.0)",
        ),
    ];
    for (got, (z, p, k), what) in cases {
        // The Bessel poles come from an iteration; the others from closed forms.
        same_roots(&got, &zpk(z, p, k), 1e-11, what)?;
    }
    for f in [buttap(0)?, cheb2ap(0, 20.0)?, besselap(0, BesselNorm::Mag)?] {
        if !(f.zeros.is_empty() && f.poles.is_empty() && f.gain == 1.0) {
            return Err(format!("order 0: {f:?}, expected the gain 1 alone").into());
        }
    }
    close(
        &[ellipap(0, 3.0, 40.0)?.gain],
        &[10f64.powf(-0.15)],
        1e-15,
        0.0,
        "ellipap(0)",
    )
}

/// The zero-pole transforms against SciPy's, root for root in SciPy's order.
fn zpk_transforms(_d: Device) -> TestResult {
    let f = zpk(
        &[c(0.0, 1.5), c(0.0, -1.5)],
        &[c(-0.3, 0.9), c(-0.3, -0.9), c(-0.7, 0.0)],
        0.8,
    );
    let cases = [
        // SciPy lp2lp_zpk(z, p, k, 2.5)
        (
            lp2lp_zpk(&f, 2.5)?,
            zpk(
                &[c(0.0, 3.75), c(0.0, -3.75)],
                &[c(-0.75, 2.25), c(-0.75, -2.25), c(-1.75, 0.0)],
                2.0,
            ),
            "lp2lp_zpk(&f, 2.5)",
        ),
        // SciPy lp2hp_zpk(z, p, k, 2.5)
        (
            lp2hp_zpk(&f, 2.5)?,
            zpk(
                &[
                    c(0.0, -1.6666666666666665),
                    c(-0.0, 1.6666666666666665),
                    c(0.0, 0.0),
                ],
                &[
                    c(-0.8333333333333333, -2.5),
                    c(-0.8333333333333333, 2.5),
                    c(-3.5714285714285716, -0.0),
                ],
                2.857142857142857,
            ),
            "lp2hp_zpk(&f, 2.5)",
        ),
        // SciPy lp2bp_zpk(z, p, k, 2.0, 0.5)
        (
            lp2bp_zpk(&f, 2.0, 0.5)?,
            zpk(
                &[
                    c(0.0, 2.4098525745124633),
                    c(0.0, -2.4098525745124633),
                    c(0.0, -1.6598525745124633),
                    c(0.0, 1.6598525745124633),
                    c(0.0, 0.0),
                ],
                &[
                    c(-0.06660963721507887, -1.7862360374127304),
                    c(-0.06660963721507887, 1.7862360374127304),
                    c(-0.175, -1.992329039089678),
                    c(-0.08339036278492112, 2.2362360374127306),
                    c(-0.08339036278492112, -2.2362360374127306),
                    c(-0.175, 1.992329039089678),
                ],
                0.4,
            ),
            "lp2bp_zpk(&f, 2.0, 0.5)",
        ),
        // SciPy lp2bs_zpk(z, p, k, 2.0, 0.5)
        (
            lp2bs_zpk(&f, 2.0, 0.5)?,
            zpk(
                &[
                    c(0.0, -2.173599096465382),
                    c(0.0, -1.840265763132049),
                    c(0.0, 1.840265763132049),
                    c(-0.0, 2.173599096465382),
                    c(0.0, 2.0),
                    c(0.0, -2.0),
                ],
                &[
                    c(-0.07298839621565159, 1.7638675659733747),
                    c(-0.07298839621565159, -1.7638675659733747),
                    c(-0.35714285714285715, 1.9678539019937016),
                    c(-0.09367827045101507, -2.2638675659733747),
                    c(-0.09367827045101507, 2.2638675659733747),
                    c(-0.35714285714285715, -1.9678539019937016),
                ],
                2.857142857142857,
            ),
            "lp2bs_zpk(&f, 2.0, 0.5)",
        ),
        // SciPy bilinear_zpk(z, p, k, 10.0)
        (
            bilinear_zpk(&f, 10.0)?,
            zpk(
                &[
                    c(0.9888129272840273, 0.14916096954630204),
                    c(0.9888129272840273, -0.14916096954630204),
                    c(-1.0, 0.0),
                ],
                &[
                    c(0.9665778638895617, 0.0871881811576653),
                    c(0.9665778638895617, -0.0871881811576653),
                    c(0.9323671497584541, 0.0),
                ],
                0.0376505054972312,
            ),
            "bilinear_zpk(&f, 10.0)",
        ),
    ];
    for (got, want, what) in cases {
        if what.starts_with("lp2bs") {
            // The images of roots on the imaginary axis fall on the square root's branch cut,
            // where NumPy's signed zeros pick the other member of a pair first: as sets.
            same_roots(&got, &want, 1e-13, what)?;
        } else {
            same_zpk(&got, &want, 1e-13, what)?;
        }
    }
    Ok(())
}

/// The coefficient transforms against SciPy's.
fn tf_transforms(_d: Device) -> TestResult {
    let (b, a): (&[f64], &[f64]) = (&[0.5, 1.0, 2.0], &[1.0, 1.5, 2.5, 1.0]);
    let cases: [((Vec<f64>, Vec<f64>), (&[f64], &[f64]), &str); 5] = [
        // SciPy lp2lp([0.5, 1.0, 2.0], [1.0, 1.5, 2.5, 1.0], ...)
        (
            lp2lp(b, a, 2.5)?,
            (&[1.25, 6.25, 31.25], &[1.0, 3.75, 15.625, 15.625]),
            "lp2lp(b, a, 2.5)",
        ),
        // SciPy lp2hp([0.5, 1.0, 2.0], [1.0, 1.5, 2.5, 1.0], ...)
        (
            lp2hp(b, a, 2.5)?,
            (&[2.0, 2.5, 3.125, 0.0], &[1.0, 6.25, 9.375, 15.625]),
            "lp2hp(b, a, 2.5)",
        ),
        // SciPy lp2bp([0.5, 1.0, 2.0], [1.0, 1.5, 2.5, 1.0], ...)
        (
            lp2bp(b, a, 2.0, 0.5)?,
            (
                &[0.25, 0.25, 2.25, 1.0, 4.0, 0.0],
                &[1.0, 0.75, 12.625, 6.125, 50.5, 12.0, 64.0],
            ),
            "lp2bp(b, a, 2.0, 0.5)",
        ),
        // SciPy lp2bs([0.5, 1.0, 2.0], [1.0, 1.5, 2.5, 1.0], ...)
        (
            lp2bs(b, a, 2.0, 0.5)?,
            (
                &[2.0, 0.5, 24.125, 4.0, 96.5, 8.0, 128.0],
                &[1.0, 1.25, 12.375, 10.125, 49.5, 20.0, 64.0],
            ),
            "lp2bs(b, a, 2.0, 0.5)",
        ),
        // SciPy bilinear([0.5, 1.0, 2.0], [1.0, 1.5, 2.5, 1.0], ...)
        (
            bilinear(b, a, 10.0)?,
            (
                &[
                    0.02566177320540978,
                    -0.020113281701537394,
                    -0.02473702462143105,
                    0.021038030285516124,
                ],
                &[
                    1.0,
                    -2.837475436365738,
                    2.6994567102069125,
                    -0.8610565252571957,
                ],
            ),
            "bilinear(b, a, 10.0)",
        ),
    ];
    for ((gb, ga), (wb, wa), what) in cases {
        close(&gb, wb, 1e-13, 1e-15, &format!("{what} b"))?;
        close(&ga, wa, 1e-13, 1e-15, &format!("{what} a"))?;
    }
    let (b, a): (&[f64], &[f64]) = (&[1.0, 2.0, 3.0], &[2.0, 4.0]);
    let cases: [((Vec<f64>, Vec<f64>), (&[f64], &[f64]), &str); 5] = [
        // SciPy lp2lp([1.0, 2.0, 3.0], [2.0, 4.0], ...)
        (
            lp2lp(b, a, 2.5)?,
            (&[0.2, 1.0, 3.75], &[1.0, 5.0]),
            "lp2lp(b, a, 2.5)",
        ),
        // SciPy lp2hp([1.0, 2.0, 3.0], [2.0, 4.0], ...)
        (
            lp2hp(b, a, 2.5)?,
            (&[0.75, 1.25, 1.5625], &[1.0, 1.25, 0.0]),
            "lp2hp(b, a, 2.5)",
        ),
        // SciPy lp2bp([1.0, 2.0, 3.0], [2.0, 4.0], ...)
        (
            lp2bp(b, a, 2.0, 0.5)?,
            (&[1.0, 1.0, 8.75, 4.0, 16.0], &[1.0, 1.0, 4.0, 0.0]),
            "lp2bp(b, a, 2.0, 0.5)",
        ),
        // SciPy lp2bs([1.0, 2.0, 3.0], [2.0, 4.0], ...)
        (
            lp2bs(b, a, 2.0, 0.5)?,
            (
                &[0.75, 0.25, 6.0625, 1.0, 12.0],
                &[1.0, 0.25, 8.0, 1.0, 16.0],
            ),
            "lp2bs(b, a, 2.0, 0.5)",
        ),
        // SciPy bilinear([1.0, 2.0, 3.0], [2.0, 4.0], ...)
        (
            bilinear(b, a, 10.0)?,
            (
                &[10.068181818181818, -18.045454545454547, 8.25],
                &[1.0, 0.1818181818181818, -0.8181818181818181],
            ),
            "bilinear(b, a, 10.0)",
        ),
    ];
    for ((gb, ga), (wb, wa), what) in cases {
        close(&gb, wb, 1e-13, 1e-15, &format!("{what} b"))?;
        close(&ga, wa, 1e-13, 1e-15, &format!("{what} a"))?;
    }
    // normalize: leading zeros of a dropped, then b's leading coefficients below 1e-14.
    // SciPy normalize([0, 1e-15, 2, 4], [0, 2, 1]) = ([1, 2], [1, 0.5]).
    let (b, a) = normalize(&[0.0, 1e-15, 2.0, 4.0], &[0.0, 2.0, 1.0])?;
    close(&b, &[1.0, 2.0], 0.0, 0.0, "normalize b")?;
    close(&a, &[1.0, 0.5], 0.0, 0.0, "normalize a")?;
    // SciPy normalize([0, 0, 1e-15], [0, 2, 1]) = ([5e-16], [1, 0.5]): one coefficient kept.
    let (b, _) = normalize(&[0.0, 0.0, 1e-15], &[0.0, 2.0, 1.0])?;
    close(&b, &[5e-16], 1e-15, 0.0, "normalize keeps one")
}

/// The transforms' responses: each transformed filter at `s` equals the prototype at the
/// mapped frequency, in both forms, and the two forms agree.
fn transform_responses(_d: Device) -> TestResult {
    let proto = ellipap(4, 1.0, 40.0)?;
    let (pb, pa) = signal::zpk2tf(&proto)?;
    let (wo, bw, fs) = (3.0, 1.5, 8.0);
    for w in [0.2, 0.9, 2.7, 3.0, 4.4, 11.0] {
        let s = c(0.0, w);
        let maps: [(ZerosPolesGain, (Vec<f64>, Vec<f64>), c64, &str); 4] = [
            (
                lp2lp_zpk(&proto, wo)?,
                lp2lp(&pb, &pa, wo)?,
                s / wo,
                "lp2lp",
            ),
            (
                lp2hp_zpk(&proto, wo)?,
                lp2hp(&pb, &pa, wo)?,
                wo / s,
                "lp2hp",
            ),
            (
                lp2bp_zpk(&proto, wo, bw)?,
                lp2bp(&pb, &pa, wo, bw)?,
                (s * s + wo * wo) / (s * bw),
                "lp2bp",
            ),
            (
                lp2bs_zpk(&proto, wo, bw)?,
                lp2bs(&pb, &pa, wo, bw)?,
                s * bw / (s * s + wo * wo),
                "lp2bs",
            ),
        ];
        for (f, (b, a), at, what) in maps {
            let want = zpk_at(&proto, at);
            let got = zpk_at(&f, s);
            let tf = poly_at(&b, s) / poly_at(&a, s);
            let tol = 1e-9 * (1.0 + want.norm());
            if (got - want).norm() > tol || (tf - want).norm() > tol {
                return Err(
                    format!("{what} at w = {w}: zpk {got}, tf {tf}, prototype {want}").into(),
                );
            }
        }
        // The bilinear transform: z = e^{i W / fs} answers to s = 2 fs tan(W / 2 fs) i.
        let d = bilinear_zpk(&proto, fs)?;
        let (db, da) = bilinear(&pb, &pa, fs)?;
        let z = c64::from_polar(1.0, w / fs);
        let want = zpk_at(&proto, c(0.0, 2.0 * fs * (w / (2.0 * fs)).tan()));
        let got = zpk_at(&d, z);
        let tf = poly_at(&db, z) / poly_at(&da, z);
        let tol = 1e-9 * (1.0 + want.norm());
        if (got - want).norm() > tol || (tf - want).norm() > tol {
            return Err(format!("bilinear at w = {w}: zpk {got}, tf {tf}, analog {want}").into());
        }
    }
    Ok(())
}

/// The digital design of a prototype at the edges `wn` (fractions of Nyquist) as SciPy's
/// `iirfilter(..., output='zpk')` makes it: pre-warped edges, band transform, bilinear at
/// `fs = 2`.
fn digital(
    proto: ZerosPolesGain,
    wn: &[f64],
    btype: &str,
) -> Result<ZerosPolesGain, cuprite_array::Error> {
    let warp: Vec<f64> = wn.iter().map(|&w| 4.0 * (PI * w / 2.0).tan()).collect();
    let analog = match btype {
        "lowpass" => lp2lp_zpk(&proto, warp[0])?,
        "highpass" => lp2hp_zpk(&proto, warp[0])?,
        "bandpass" => lp2bp_zpk(&proto, (warp[0] * warp[1]).sqrt(), warp[1] - warp[0])?,
        _ => lp2bs_zpk(&proto, (warp[0] * warp[1]).sqrt(), warp[1] - warp[0])?,
    };
    bilinear_zpk(&analog, 2.0)
}

/// `zpk2sos` and `tf2sos` against SciPy's sections: designs of odd and even orders in each
/// band, roots chosen to reach the special cases, each pairing, analog conversions.
fn sos_pairing(_d: Device) -> TestResult {
    let designs = [
        digital(buttap(4)?, &[0.3], "lowpass")?,
        digital(buttap(5)?, &[0.3], "highpass")?,
        digital(cheb1ap(5, 1.0)?, &[0.2, 0.5], "bandpass")?,
        digital(ellipap(3, 0.5, 40.0)?, &[0.4], "lowpass")?,
        digital(cheb2ap(4, 40.0)?, &[0.2, 0.4], "bandstop")?,
        digital(ellipap(5, 1.0, 60.0)?, &[0.3], "highpass")?,
        zpk(
            &[c(-1.0, 0.0), c(0.5, 0.0), c(0.2, 0.9), c(0.2, -0.9)],
            &[
                c(0.9, 0.0),
                c(-0.3, 0.0),
                c(0.5, 0.5),
                c(0.5, -0.5),
                c(0.1, 0.0),
            ],
            2.0,
        ),
        zpk(
            &[c(0.5, 0.0), c(0.3, 0.0)],
            &[
                c(0.9, 0.0),
                c(-0.3, 0.0),
                c(0.5, 0.5),
                c(0.5, -0.5),
                c(0.1, 0.0),
            ],
            2.0,
        ),
    ];
    let pairings = [
        SosPairing::Nearest,
        SosPairing::KeepOdd,
        SosPairing::Minimal,
    ];
    let want: [&[[f64; 6]]; 24] = [
        // SciPy zpk2sos(*butter(4, 0.3, output='zpk'), pairing='nearest')
        &[
            [
                0.01856301062689717,
                0.03712602125379434,
                0.01856301062689717,
                1.0,
                -0.6727409111915273,
                0.14453519983312102,
            ],
            [1.0, 2.0, 1.0, 1.0, -0.8976579400366445, 0.5271869046315972],
        ],
        // SciPy zpk2sos(*butter(4, 0.3, output='zpk'), pairing='keep_odd')
        &[
            [
                0.01856301062689717,
                0.03712602125379434,
                0.01856301062689717,
                1.0,
                -0.6727409111915273,
                0.14453519983312102,
            ],
            [1.0, 2.0, 1.0, 1.0, -0.8976579400366445, 0.5271869046315972],
        ],
        // SciPy zpk2sos(*butter(4, 0.3, output='zpk'), pairing='minimal')
        &[
            [
                0.01856301062689717,
                0.03712602125379434,
                0.01856301062689717,
                1.0,
                -0.6727409111915273,
                0.14453519983312102,
            ],
            [1.0, 2.0, 1.0, 1.0, -0.8976579400366445, 0.5271869046315972],
        ],
        // SciPy zpk2sos(*butter(5, 0.3, 'highpass', output='zpk'), pairing='nearest')
        &[
            [
                0.2018850138698864,
                -0.4037700277397728,
                0.2018850138698864,
                1.0,
                -0.32491969623290634,
                0.0,
            ],
            [1.0, -2.0, 1.0, 1.0, -0.7105255165406029, 0.208818210000029],
            [1.0, -1.0, 0.0, 1.0, -0.9404564036679569, 0.6],
        ],
        // SciPy zpk2sos(*butter(5, 0.3, 'highpass', output='zpk'), pairing='keep_odd')
        &[
            [
                0.2018850138698864,
                -0.2018850138698864,
                0.0,
                1.0,
                -0.32491969623290634,
                0.0,
            ],
            [1.0, -2.0, 1.0, 1.0, -0.7105255165406029, 0.208818210000029],
            [1.0, -2.0, 1.0, 1.0, -0.9404564036679569, 0.6],
        ],
        // SciPy zpk2sos(*butter(5, 0.3, 'highpass', output='zpk'), pairing='minimal')
        &[
            [
                0.0,
                0.2018850138698864,
                -0.2018850138698864,
                0.0,
                1.0,
                -0.32491969623290634,
            ],
            [1.0, -2.0, 1.0, 1.0, -0.7105255165406029, 0.208818210000029],
            [1.0, -2.0, 1.0, 1.0, -0.9404564036679569, 0.6],
        ],
        // SciPy zpk2sos(*cheby1(5, 1, [0.2, 0.5], 'bandpass', output='zpk'), pairing='nearest')
        &[
            [
                0.002020169397617656,
                0.004040338795235312,
                0.002020169397617656,
                1.0,
                -0.8880585159935646,
                0.7429129729922833,
            ],
            [1.0, 2.0, 1.0, 1.0, -0.35741459104519613, 0.7736979453087192],
            [1.0, 0.0, -1.0, 1.0, -1.3322991067533385, 0.8355338027019079],
            [
                1.0,
                -2.0,
                1.0,
                1.0,
                -0.008642223912274219,
                0.9126208390300945,
            ],
            [1.0, -2.0, 1.0, 1.0, -1.5725180783708461, 0.9475110244321693],
        ],
        // SciPy zpk2sos(*cheby1(5, 1, [0.2, 0.5], 'bandpass', output='zpk'), pairing='keep_odd')
        &[
            [
                0.002020169397617656,
                0.004040338795235312,
                0.002020169397617656,
                1.0,
                -0.8880585159935646,
                0.7429129729922833,
            ],
            [1.0, 2.0, 1.0, 1.0, -0.35741459104519613, 0.7736979453087192],
            [1.0, 0.0, -1.0, 1.0, -1.3322991067533385, 0.8355338027019079],
            [
                1.0,
                -2.0,
                1.0,
                1.0,
                -0.008642223912274219,
                0.9126208390300945,
            ],
            [1.0, -2.0, 1.0, 1.0, -1.5725180783708461, 0.9475110244321693],
        ],
        // SciPy zpk2sos(*cheby1(5, 1, [0.2, 0.5], 'bandpass', output='zpk'), pairing='minimal')
        &[
            [
                0.002020169397617656,
                0.004040338795235312,
                0.002020169397617656,
                1.0,
                -0.8880585159935646,
                0.7429129729922833,
            ],
            [1.0, 2.0, 1.0, 1.0, -0.35741459104519613, 0.7736979453087192],
            [1.0, 0.0, -1.0, 1.0, -1.3322991067533385, 0.8355338027019079],
            [
                1.0,
                -2.0,
                1.0,
                1.0,
                -0.008642223912274219,
                0.9126208390300945,
            ],
            [1.0, -2.0, 1.0, 1.0, -1.5725180783708461, 0.9475110244321693],
        ],
        // SciPy zpk2sos(*ellip(3, 0.5, 40, 0.4, output='zpk'), pairing='nearest')
        &[
            [
                0.11567336562932588,
                0.1552823187693704,
                0.11567336562932588,
                1.0,
                -0.35239382914454725,
                0.0,
            ],
            [1.0, 1.0, 0.0, 1.0, -0.38971534128798885, 0.583740560403199],
        ],
        // SciPy zpk2sos(*ellip(3, 0.5, 40, 0.4, output='zpk'), pairing='keep_odd')
        &[
            [
                0.11567336562932588,
                0.11567336562932588,
                0.0,
                1.0,
                -0.35239382914454725,
                0.0,
            ],
            [
                1.0,
                1.3424206853889857,
                1.0,
                1.0,
                -0.38971534128798885,
                0.583740560403199,
            ],
        ],
        // SciPy zpk2sos(*ellip(3, 0.5, 40, 0.4, output='zpk'), pairing='minimal')
        &[
            [
                0.0,
                0.11567336562932588,
                0.11567336562932588,
                0.0,
                1.0,
                -0.35239382914454725,
            ],
            [
                1.0,
                1.3424206853889857,
                1.0,
                1.0,
                -0.38971534128798885,
                0.583740560403199,
            ],
        ],
        // SciPy zpk2sos(*cheby2(4, 40, [0.2, 0.4], 'bandstop', output='zpk'), pairing='nearest')
        &[
            [
                0.25110154253136985,
                -0.2567084946412702,
                0.2511015425313698,
                1.0,
                -0.3980530595071463,
                0.2604538704899867,
            ],
            [
                1.0,
                -1.4121673155173435,
                1.0000000000000002,
                1.0,
                -1.180950590561392,
                0.4644657786809546,
            ],
            [
                1.0,
                -0.6704314195200096,
                1.0,
                1.0,
                0.0017828464080578386,
                0.6432236421297942,
            ],
            [
                1.0,
                -1.5973501378433435,
                1.0,
                1.0,
                -1.6310666807559433,
                0.8231461088938898,
            ],
        ],
        // SciPy zpk2sos(*cheby2(4, 40, [0.2, 0.4], 'bandstop', output='zpk'), pairing='keep_odd')
        &[
            [
                0.25110154253136985,
                -0.2567084946412702,
                0.2511015425313698,
                1.0,
                -0.3980530595071463,
                0.2604538704899867,
            ],
            [
                1.0,
                -1.4121673155173435,
                1.0000000000000002,
                1.0,
                -1.180950590561392,
                0.4644657786809546,
            ],
            [
                1.0,
                -0.6704314195200096,
                1.0,
                1.0,
                0.0017828464080578386,
                0.6432236421297942,
            ],
            [
                1.0,
                -1.5973501378433435,
                1.0,
                1.0,
                -1.6310666807559433,
                0.8231461088938898,
            ],
        ],
        // SciPy zpk2sos(*cheby2(4, 40, [0.2, 0.4], 'bandstop', output='zpk'), pairing='minimal')
        &[
            [
                0.25110154253136985,
                -0.2567084946412702,
                0.2511015425313698,
                1.0,
                -0.3980530595071463,
                0.2604538704899867,
            ],
            [
                1.0,
                -1.4121673155173435,
                1.0000000000000002,
                1.0,
                -1.180950590561392,
                0.4644657786809546,
            ],
            [
                1.0,
                -0.6704314195200096,
                1.0,
                1.0,
                0.0017828464080578386,
                0.6432236421297942,
            ],
            [
                1.0,
                -1.5973501378433435,
                1.0,
                1.0,
                -1.6310666807559433,
                0.8231461088938898,
            ],
        ],
        // SciPy zpk2sos(*ellip(5, 1, 60, 0.3, 'highpass', output='zpk'), pairing='nearest')
        &[
            [
                0.16444377422148607,
                -0.30550676520064923,
                0.1644437742214861,
                1.0,
                0.22035695357759658,
                0.0,
            ],
            [1.0, -1.0, 0.0, 1.0, -0.4759379903923164, 0.5249546081331672],
            [
                1.0,
                -1.6842732215436522,
                1.0,
                1.0,
                -1.1067796936056058,
                0.8897702409974196,
            ],
        ],
        // SciPy zpk2sos(*ellip(5, 1, 60, 0.3, 'highpass', output='zpk'), pairing='keep_odd')
        &[
            [
                0.16444377422148607,
                -0.16444377422148607,
                0.0,
                1.0,
                0.22035695357759658,
                0.0,
            ],
            [
                1.0,
                -1.8578189818798991,
                1.0000000000000002,
                1.0,
                -0.4759379903923164,
                0.5249546081331672,
            ],
            [
                1.0,
                -1.6842732215436522,
                1.0,
                1.0,
                -1.1067796936056058,
                0.8897702409974196,
            ],
        ],
        // SciPy zpk2sos(*ellip(5, 1, 60, 0.3, 'highpass', output='zpk'), pairing='minimal')
        &[
            [
                0.0,
                0.16444377422148607,
                -0.16444377422148607,
                0.0,
                1.0,
                0.22035695357759658,
            ],
            [
                1.0,
                -1.8578189818798991,
                1.0000000000000002,
                1.0,
                -0.4759379903923164,
                0.5249546081331672,
            ],
            [
                1.0,
                -1.6842732215436522,
                1.0,
                1.0,
                -1.1067796936056058,
                0.8897702409974196,
            ],
        ],
        // SciPy zpk2sos([-1, 0.5, (0.2+0.9j), (0.2-0.9j)], [0.9, -0.3, (0.5+0.5j), (0.5-0.5j), 0.1], 2.0, pairing='nearest')
        &[
            [2.0, 2.0, 0.0, 1.0, -0.1, 0.0],
            [1.0, -0.4, 0.8500000000000001, 1.0, -1.0, 0.5],
            [1.0, -0.5, 0.0, 1.0, -0.6000000000000001, -0.27],
        ],
        // SciPy zpk2sos([-1, 0.5, (0.2+0.9j), (0.2-0.9j)], [0.9, -0.3, (0.5+0.5j), (0.5-0.5j), 0.1], 2.0, pairing='keep_odd')
        &[
            [2.0, 2.0, 0.0, 1.0, -0.1, 0.0],
            [1.0, -0.4, 0.8500000000000001, 1.0, -1.0, 0.5],
            [1.0, -0.5, 0.0, 1.0, -0.6000000000000001, -0.27],
        ],
        // SciPy zpk2sos([-1, 0.5, (0.2+0.9j), (0.2-0.9j)], [0.9, -0.3, (0.5+0.5j), (0.5-0.5j), 0.1], 2.0, pairing='minimal')
        &[
            [0.0, 0.0, 2.0, 0.0, 1.0, -0.1],
            [1.0, -0.4, 0.8500000000000001, 1.0, -1.0, 0.5],
            [1.0, 0.5, -0.5, 1.0, -0.6000000000000001, -0.27],
        ],
        // SciPy zpk2sos([0.5, 0.3], [0.9, -0.3, (0.5+0.5j), (0.5-0.5j), 0.1], 2.0, pairing='nearest')
        &[
            [2.0, 0.0, 0.0, 1.0, -0.1, 0.0],
            [1.0, 0.0, 0.0, 1.0, -1.0, 0.5],
            [1.0, -0.8, 0.15, 1.0, -0.6000000000000001, -0.27],
        ],
        // SciPy zpk2sos([0.5, 0.3], [0.9, -0.3, (0.5+0.5j), (0.5-0.5j), 0.1], 2.0, pairing='keep_odd')
        &[
            [2.0, 0.0, 0.0, 1.0, -0.1, 0.0],
            [1.0, 0.0, 0.0, 1.0, -1.0, 0.5],
            [1.0, -0.8, 0.15, 1.0, -0.6000000000000001, -0.27],
        ],
        // SciPy zpk2sos([0.5, 0.3], [0.9, -0.3, (0.5+0.5j), (0.5-0.5j), 0.1], 2.0, pairing='minimal')
        &[
            [0.0, 0.0, 2.0, 0.0, 1.0, -0.1],
            [0.0, 0.0, 1.0, 1.0, -1.0, 0.5],
            [1.0, -0.8, 0.15, 1.0, -0.6000000000000001, -0.27],
        ],
    ];
    for (i, f) in designs.iter().enumerate() {
        for (j, &pairing) in pairings.iter().enumerate() {
            let got = zpk2sos(f, pairing, false)?;
            same_sos(
                &got,
                want[3 * i + j],
                1e-9,
                &format!("design {i}, {pairing:?}"),
            )?;
        }
    }
    // More zeros than poles: poles at the origin added.
    let f = zpk(
        &[
            c(0.5, 0.0),
            c(-0.5, 0.0),
            c(0.0, 0.1),
            c(0.0, -0.1),
            c(0.7, 0.0),
        ],
        &[c(0.9, 0.0), c(-0.3, 0.0)],
        2.0,
    );
    let want: [&[[f64; 6]]; 2] = [
        // SciPy zpk2sos([0.5, -0.5, 0.1j, (-0-0.1j), 0.7], [0.9, -0.3], 2.0, pairing='nearest')
        &[
            [2.0, 0.0, 0.020000000000000004, 1.0, 0.0, 0.0],
            [1.0, 0.5, 0.0, 1.0, 0.0, 0.0],
            [1.0, -1.2, 0.35, 1.0, -0.6000000000000001, -0.27],
        ],
        // SciPy zpk2sos([0.5, -0.5, 0.1j, (-0-0.1j), 0.7], [0.9, -0.3], 2.0, pairing='keep_odd')
        &[
            [2.0, 1.0, 0.0, 1.0, 0.0, 0.0],
            [1.0, 0.0, 0.010000000000000002, 1.0, 0.0, 0.0],
            [1.0, -1.2, 0.35, 1.0, -0.6000000000000001, -0.27],
        ],
    ];
    for (j, pairing) in [SosPairing::Nearest, SosPairing::KeepOdd]
        .into_iter()
        .enumerate()
    {
        same_sos(
            &zpk2sos(&f, pairing, false)?,
            want[j],
            1e-12,
            &format!("more zeros, {pairing:?}"),
        )?;
    }
    // Analog conversions pair by the distance to the imaginary axis.
    let analog = [
        lp2lp_zpk(&ellipap(4, 1.0, 40.0)?, 2.0)?,
        lp2lp_zpk(&buttap(3)?, 2.0)?,
    ];
    let want: [&[[f64; 6]]; 2] = [
        // SciPy zpk2sos(*ellip(4, 1, 40, 2.0, analog=True, output='zpk'), analog=True)
        &[
            [
                0.009999999999999997,
                0.0,
                0.4971060594095816,
                1.0,
                1.457162383493686,
                1.447072989740409,
            ],
            [
                1.0,
                0.0,
                10.362609976336215,
                1.0,
                0.42112505848468545,
                3.9941812839737163,
            ],
        ],
        // SciPy zpk2sos(*butter(3, 2.0, analog=True, output='zpk'), analog=True)
        &[
            [0.0, 0.0, 8.0, 0.0, 1.0, 2.0],
            [0.0, 0.0, 1.0, 1.0, 2.0000000000000004, 4.0],
        ],
    ];
    for (f, want) in analog.iter().zip(want) {
        same_sos(
            &zpk2sos(f, SosPairing::Minimal, true)?,
            want,
            1e-10,
            "analog",
        )?;
    }
    // tf2sos on SciPy's own coefficients: the roots found again (to about 1e-8 where the
    // polynomial's conditioning costs digits).
    let (b, a) = signal::ellip(4, 1.0, 50.0, 0.3, signal::BandType::Lowpass)?;
    // SciPy tf2sos(*ellip(4, 1, 50, 0.3))
    let want: &[[f64; 6]] = &[
        [
            0.021985541264362966,
            0.030743650997481314,
            0.02198554126436295,
            1.0,
            -1.2687707285154812,
            0.5018505008949871,
        ],
        [
            1.0,
            0.07980804004942443,
            1.000000000000001,
            1.0,
            -1.0754625475410657,
            0.8235027159402111,
        ],
    ];
    same_sos(
        &tf2sos(&b, &a, SosPairing::Nearest, false)?,
        want,
        1e-8,
        "tf2sos ellip",
    )?;
    let (b, a) = signal::cheby2(5, 40.0, 0.3, signal::BandType::Lowpass)?;
    // SciPy tf2sos(*cheby2(5, 40, 0.3), pairing='keep_odd')
    let want: &[[f64; 6]] = &[
        [
            0.019473256484761985,
            0.01947325648476193,
            0.0,
            1.0,
            -0.42715548714342505,
            0.0,
        ],
        [
            1.0,
            -0.28383483154029454,
            0.9999999999999986,
            1.0,
            -1.0402993493566912,
            0.3585506516587069,
        ],
        [
            1.0,
            -1.107943717889451,
            0.9999999999999998,
            1.0,
            -1.4211658800761988,
            0.7482149903458204,
        ],
    ];
    same_sos(
        &tf2sos(&b, &a, SosPairing::KeepOdd, false)?,
        want,
        1e-8,
        "tf2sos cheby2",
    )?;
    // No roots: the gain alone. SciPy zpk2sos([], [], 3) = [[3, 0, 0, 1, 0, 0]], analog
    // [[0, 0, 3, 0, 0, 1]].
    same_sos(
        &zpk2sos(&zpk(&[], &[], 3.0), SosPairing::Nearest, false)?,
        &[[3.0, 0.0, 0.0, 1.0, 0.0, 0.0]],
        0.0,
        "gain",
    )?;
    same_sos(
        &zpk2sos(&zpk(&[], &[], 3.0), SosPairing::Minimal, true)?,
        &[[0.0, 0.0, 3.0, 0.0, 0.0, 1.0]],
        0.0,
        "analog gain",
    )?;
    // The sections multiply back to the filter.
    for f in &designs[..6] {
        let (b, a) = signal::zpk2tf(f)?;
        let (sb, sa) = signal::sos2tf(&zpk2sos(f, SosPairing::Nearest, false)?)?;
        let n = b.len();
        close(&sb[..n], &b, 1e-9, 1e-12, "sos2tf(zpk2sos) b")?;
        close(&sa[..n], &a, 1e-9, 1e-12, "sos2tf(zpk2sos) a")?;
    }
    Ok(())
}

/// Each error path of the prototypes, transforms and pairings, its message naming the value.
fn errors_transforms(_d: Device) -> TestResult {
    let ia = "InvalidArgument";
    assert_err(buttap(5000), ia, "5000");
    assert_err(cheb1ap(3, -1.0), ia, "rp = -1");
    assert_err(cheb2ap(3, f64::NAN), ia, "rs = NaN");
    assert_err(ellipap(3, 2.0, 1.0), ia, "rs = 1 dB must exceed");
    assert_err(besselap(30, BesselNorm::Phase), ia, "order 30");
    let f = zpk(&[c(1.0, 0.0), c(2.0, 0.0)], &[c(-1.0, 0.0)], 1.0);
    assert_err(lp2lp_zpk(&f, 1.0), ia, "2 zeros and 1 poles");
    let g = zpk(&[], &[c(f64::INFINITY, 0.0)], 1.0);
    assert_err(lp2hp_zpk(&g, 1.0), ia, "inf");
    let h = zpk(&[], &[c(-1.0, 0.0)], f64::NAN);
    assert_err(bilinear_zpk(&h, 1.0), ia, "gain NaN");
    let p = zpk(&[], &[c(-1.0, 0.0)], 1.0);
    assert_err(lp2bp_zpk(&p, 1.0, 0.0), ia, "bandwidth bw 0");
    assert_err(lp2bs_zpk(&p, -2.0, 1.0), ia, "centre wo -2");
    assert_err(bilinear_zpk(&p, f64::INFINITY), ia, "fs inf");
    assert_err(lp2lp(&[], &[1.0], 1.0), ia, "numerator is empty");
    assert_err(lp2hp(&[1.0], &[0.0, 0.0], 1.0), ia, "[0.0, 0.0]");
    assert_err(lp2bp(&[1.0, f64::NAN], &[1.0], 1.0, 1.0), ia, "NaN");
    assert_err(lp2bs(&[1.0], &[1.0, 1.0], 1.0, -1.0), ia, "width bw -1");
    assert_err(bilinear(&[1.0], &[1.0, 1.0], 0.0), ia, "fs 0");
    assert_err(normalize(&[1.0], &vec![1.0; 3000]), ia, "3000 coefficients");
    // lp2bp of a high degree overflows the binomial coefficients.
    let mut a = vec![0.0; 2049];
    a[0] = 1.0;
    a[2048] = 1.0;
    assert_err(lp2bp(&[1.0], &a, 1e3, 1e-3), ia, "overflow");
    let odd = zpk(&[], &[c(0.5, 0.5)], 1.0);
    assert_err(
        zpk2sos(&odd, SosPairing::Nearest, false),
        ia,
        "without its conjugate",
    );
    assert_err(zpk2sos(&p, SosPairing::Nearest, true), ia, "not Nearest");
    assert_err(
        zpk2sos(&f, SosPairing::Minimal, false),
        ia,
        "2 zeros and 1 poles",
    );
    assert_err(
        tf2sos(&[1.0], &[0.0], SosPairing::Nearest, false),
        ia,
        "[0.0]",
    );
    let many = zpk(&[], &vec![c(-1.0, 0.0); 3000], 1.0);
    assert_err(lp2lp_zpk(&many, 1.0), ia, "3000 poles");
    Ok(())
}

fn ss(
    a: &[f64],
    b: &[f64],
    cm: &[f64],
    d: &[f64],
    states: usize,
    inputs: usize,
    outputs: usize,
) -> StateSpace {
    StateSpace {
        a: a.to_vec(),
        b: b.to_vec(),
        c: cm.to_vec(),
        d: d.to_vec(),
        states,
        inputs,
        outputs,
    }
}

fn same_ss(got: &StateSpace, want: &StateSpace, tol: f64, what: &str) -> TestResult {
    let dims = (got.states, got.inputs, got.outputs);
    if dims != (want.states, want.inputs, want.outputs) {
        return Err(format!(
            "{what}: dimensions {dims:?}, expected {:?}",
            (want.states, want.inputs, want.outputs)
        )
        .into());
    }
    close(&got.a, &want.a, tol, tol, &format!("{what} A"))?;
    close(&got.b, &want.b, tol, tol, &format!("{what} B"))?;
    close(&got.c, &want.c, tol, tol, &format!("{what} C"))?;
    close(&got.d, &want.d, tol, tol, &format!("{what} D"))
}

/// The system of the state-space tests: three states, two inputs, two outputs.
fn mimo() -> StateSpace {
    ss(
        &[-1.0, 2.0, 0.5, -2.0, -1.5, 1.0, 0.3, -0.4, -3.0],
        &[1.0, 0.0, 0.5, 2.0, -1.0, 1.0],
        &[1.0, -1.0, 0.5, 0.0, 2.0, 1.0],
        &[0.0, 0.5, 1.0, 0.0],
        3,
        2,
        2,
    )
}

/// `tf2ss`, `ss2tf`, `zpk2ss`, `ss2zpk` against SciPy, and round trips.
fn state_space(_d: Device) -> TestResult {
    // SciPy tf2ss([1, 2, 3], [2, 3, 4, 5])
    same_ss(
        &tf2ss(&[1.0, 2.0, 3.0], &[2.0, 3.0, 4.0, 5.0])?,
        &ss(
            &[-1.5, -2.0, -2.5, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            &[1.0, 0.0, 0.0],
            &[0.5, 1.0, 1.5],
            &[0.0],
            3,
            1,
            1,
        ),
        0.0,
        "tf2ss",
    )?;
    // SciPy tf2ss([1, 2, 3], [1, 0.5, 0.25])
    same_ss(
        &tf2ss(&[1.0, 2.0, 3.0], &[1.0, 0.5, 0.25])?,
        &ss(
            &[-0.5, -0.25, 1.0, 0.0],
            &[1.0, 0.0],
            &[1.5, 2.75],
            &[1.0],
            2,
            1,
            1,
        ),
        0.0,
        "tf2ss with D",
    )?;
    // A constant: SciPy tf2ss([3], [2]) = ([[0]], [[0]], [[0]], [[1.5]]).
    same_ss(
        &tf2ss(&[3.0], &[2.0])?,
        &ss(&[0.0], &[0.0], &[0.0], &[1.5], 1, 1, 1),
        0.0,
        "tf2ss gain",
    )?;
    let sys = mimo();
    // SciPy ss2tf(A, B, C, D, input=1) with A, B, C, D of `mimo`
    let (n0, n1, den): (&[f64], &[f64], &[f64]) = (
        &[
            0.5,
            1.2500000000000027,
            2.9750000000000068,
            19.437500000000007,
        ],
        &[0.0, 5.0, 19.69999999999999, 17.29999999999996],
        &[1.0, 5.5, 13.25, 15.674999999999997],
    );
    let (num, got_den) = ss2tf(&sys, 1)?;
    close(&got_den, den, 1e-12, 1e-12, "ss2tf den")?;
    close(&num[0], n0, 1e-12, 1e-12, "ss2tf num 0")?;
    close(&num[1], n1, 1e-12, 1e-12, "ss2tf num 1")?;
    // The first input to the first output.
    let siso = ss(
        &sys.a,
        &[1.0, 0.5, -1.0],
        &[1.0, -1.0, 0.5],
        &[0.0],
        3,
        1,
        1,
    );
    // SciPy ss2zpk(A, B[:, :1], C[:1], D[:1, :1])
    same_roots(
        &ss2zpk(&siso, 0)?,
        &zpk(
            &[c(-1.5104166666666672, 0.0)],
            &[
                c(-2.7560263577013053, 0.0),
                c(-1.3719868211493453, 1.950689231933077),
                c(-1.3719868211493453, -1.950689231933077),
            ],
            4.799999999999994,
        ),
        1e-12,
        "ss2zpk",
    )?;
    let f = zpk(
        &[c(-1.0, 0.0), c(-2.0, 0.0)],
        &[c(-0.5, 1.0), c(-0.5, -1.0), c(-3.0, 0.0)],
        2.0,
    );
    // SciPy zpk2ss([-1, -2], [-0.5+1j, -0.5-1j, -3], 2.0)
    same_ss(
        &zpk2ss(&f)?,
        &ss(
            &[-4.0, -4.25, -3.75, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            &[1.0, 0.0, 0.0],
            &[2.0, 6.0, 4.0],
            &[0.0],
            3,
            1,
            1,
        ),
        1e-14,
        "zpk2ss",
    )?;
    // Round trips: tf2ss then ss2tf, zpk2ss then ss2zpk.
    let (b, a) = ([0.5, -1.0, 2.0, 0.25], [1.0, 1.5, 2.5, 1.0]);
    let (num, den) = ss2tf(&tf2ss(&b, &a)?, 0)?;
    close(&num[0], &b, 1e-12, 1e-12, "tf2ss/ss2tf b")?;
    close(&den, &a, 1e-12, 1e-12, "tf2ss/ss2tf a")?;
    same_roots(&ss2zpk(&zpk2ss(&f)?, 0)?, &f, 1e-10, "zpk2ss/ss2zpk")
}

/// `cont2discrete` by every method against SciPy, the exponential's scaling and squaring
/// included, and the transfer-function form.
fn discretization(_d: Device) -> TestResult {
    let sys = mimo();
    let methods = [
        Discretization::Zoh,
        Discretization::Foh,
        Discretization::Bilinear,
        Discretization::Euler,
        Discretization::BackwardDiff,
        Discretization::Gbt(0.3),
    ];
    let want = [
        // SciPy cont2discrete((A, B, C, D), 0.25, method='zoh')
        ss(
            &[
                0.6921409802540237,
                0.3465137435490654,
                0.11187164866653566,
                -0.34457195795066,
                0.5938618307763255,
                0.11694508942077805,
                0.05935584680630006,
                -0.04289446457150058,
                0.46990151500289956,
            ],
            &[
                0.2233047301662238,
                0.11372286239186774,
                0.031207007037693964,
                0.4191144582828917,
                -0.1711661610942869,
                0.16078616318150174,
            ],
            &[1.0, -1.0, 0.5, 0.0, 2.0, 1.0],
            &[0.0, 0.5, 1.0, 0.0],
            3,
            2,
            2,
        ),
        // SciPy cont2discrete((A, B, C, D), 0.25, method='foh')
        ss(
            &[
                0.6921409802540237,
                0.3465137435490654,
                0.11187164866653566,
                -0.34457195795066,
                0.5938618307763255,
                0.11694508942077805,
                0.05935584680630006,
                -0.04289446457150058,
                0.46990151500289956,
            ],
            &[
                0.18661501034946282,
                0.18948455151560528,
                -0.03238310651772935,
                0.32509991576591707,
                -0.11388842633063478,
                0.1042152330424038,
            ],
            &[1.0, -1.0, 0.5, 0.0, 2.0, 1.0],
            &[
                0.03882281810213699,
                0.36241476858442256,
                0.9614253411632165,
                0.5415471392434161,
            ],
            3,
            2,
            2,
        ),
        // SciPy cont2discrete((A, B, C, D), 0.25, method='bilinear')
        ss(
            &[
                0.7027925025997411,
                0.35386917594541806,
                0.10956958429502625,
                -0.35224592284475104,
                0.6045856900093843,
                0.12986024805336444,
                0.05924873817434753,
                -0.04869759302001167,
                0.4528115250970148,
            ],
            &[
                0.221269688284678,
                0.1021634920232328,
                0.04002333426332208,
                0.41737895350901666,
                -0.17723894792908415,
                0.16942704238212392,
            ],
            &[
                1.042331397265833,
                -0.637532655286986,
                0.3530575493950846,
                -0.32262155375757723,
                1.5802368934993785,
                0.8562660106018719,
            ],
            &[
                0.04631344002840692,
                0.38474902985263904,
                0.95140386029878,
                0.5020924747000786,
            ],
            3,
            2,
            2,
        ),
        // SciPy cont2discrete((A, B, C, D), 0.25, method='euler')
        ss(
            &[0.75, 0.5, 0.125, -0.5, 0.625, 0.25, 0.075, -0.1, 0.25],
            &[0.25, 0.0, 0.125, 0.5, -0.25, 0.25],
            &[1.0, -1.0, 0.5, 0.0, 2.0, 1.0],
            &[0.0, 0.5, 1.0, 0.0],
            3,
            2,
            2,
        ),
        // SciPy cont2discrete((A, B, C, D), 0.25, method='backward_diff')
        ss(
            &[
                0.7051093236660247,
                0.25014161096635323,
                0.08609946754276651,
                -0.2483289905970318,
                0.631698198708508,
                0.072504814772856,
                0.04440919904837431,
                -0.025376685170499604,
                0.570975416336241,
            ],
            &[
                0.1860201654016087,
                0.14659567236886825,
                -0.001246176503908467,
                0.333975303047468,
                -0.13481363996827914,
                0.13005551149881045,
            ],
            &[
                0.9756429137872437,
                -0.39424493032740454,
                0.29908236093803103,
                -0.4522487821456893,
                1.2380197122465162,
                0.715985045881953,
            ],
            &[
                0.1198595219213776,
                0.3776481250708055,
                0.862694007023904,
                0.7980061175937464,
            ],
            3,
            2,
            2,
        ),
        // SciPy cont2discrete((A, B, C, D), 0.25, method='gbt', alpha=0.3)
        ss(
            &[
                0.7130471327858223,
                0.40756026381576727,
                0.11820921409440889,
                -0.406304944728039,
                0.6036251523055112,
                0.16737587836376477,
                0.06590425210573238,
                -0.06443971317004944,
                0.3858272905846623,
            ],
            &[
                0.23489635379494728,
                0.06999973062944576,
                0.06710988147957138,
                0.45309696372310904,
                -0.20141071712979658,
                0.19427108981834226,
            ],
            &[
                1.0456912610700182,
                -0.7684854235224305,
                0.39312409430689255,
                -0.2240116912051037,
                1.742843177432292,
                0.9161737141936575,
            ],
            &[
                0.020124334125143285,
                0.41421149354465236,
                0.9798427137488038,
                0.3301395051793681,
            ],
            3,
            2,
            2,
        ),
    ];
    for (m, want) in methods.into_iter().zip(want) {
        same_ss(
            &cont2discrete(&sys, 0.25, m)?,
            &want,
            1e-13,
            &format!("{m:?}"),
        )?;
    }
    let strict = StateSpace {
        d: vec![0.0; 4],
        ..mimo()
    };
    // SciPy cont2discrete((A, B, C, 0), 0.25, method='impulse')
    same_ss(
        &cont2discrete(&strict, 0.25, Discretization::Impulse)?,
        &ss(
            &[
                0.6921409802540237,
                0.3465137435490654,
                0.11187164866653568,
                -0.34457195795066,
                0.5938618307763255,
                0.11694508942077805,
                0.05935584680630006,
                -0.04289446457150058,
                0.46990151500289956,
            ],
            &[
                0.18838155084050517,
                0.2012247839411666,
                -0.04114653299581882,
                0.32616718774335723,
                -0.10799822512058745,
                0.0960281464649746,
            ],
            &[1.0, -1.0, 0.5, 0.0, 2.0, 1.0],
            &[0.0, -0.375, 0.0, 1.25],
            3,
            2,
            2,
        ),
        1e-13,
        "impulse",
    )?;
    // A norm beyond the largest Pade degree's range: scaled, then squared.
    let big = StateSpace {
        a: sys.a.iter().map(|v| 4.0 * v).collect(),
        ..mimo()
    };
    // SciPy cont2discrete((4 A, B, C, D), 3.0, method='zoh')
    same_ss(
        &cont2discrete(&big, 3.0, Discretization::Zoh)?,
        &ss(
            &[
                -2.4803306895366006e-08,
                -7.365539686624092e-08,
                -2.7227984398249688e-08,
                7.297738646764943e-08,
                -2.3213952872568356e-09,
                -1.7165396873967065e-08,
                -1.3624749044583828e-08,
                5.510137952403828e-09,
                5.459424461019155e-09,
            ],
            &[
                0.08054225992637547,
                0.22886763853920775,
                -0.06818182535400581,
                0.09090907603321052,
                -0.06618819593273628,
                0.09409888567618434,
            ],
            &[1.0, -1.0, 0.5, 0.0, 2.0, 1.0],
            &[0.0, 0.5, 1.0, 0.0],
            3,
            2,
            2,
        ),
        1e-10,
        "zoh scaled",
    )?;
    let methods = [
        Discretization::Zoh,
        Discretization::Foh,
        Discretization::Bilinear,
        Discretization::Impulse,
    ];
    let want: [(&[f64], &[f64]); 4] = [
        // SciPy cont2discrete(([1, 0.5], [1, 1.2, 2]), 0.1, method='zoh')
        (
            &[0.0, 0.09631820823946358, -0.09161440540127974],
            &[1.0, -1.8681052253644221, 0.8869204367171576],
        ),
        // SciPy cont2discrete(([1, 0.5], [1, 1.2, 2]), 0.1, method='foh')
        (
            &[
                0.04878731151099758,
                0.0012523103714732198,
                -0.04533581904428696,
            ],
            &[1.0, -1.8681052253644221, 0.8869204367171576],
        ),
        // SciPy cont2discrete(([1, 0.5], [1, 1.2, 2]), 0.1, method='bilinear')
        (
            &[
                0.0481220657276995,
                0.0023474178403752877,
                -0.04577464788732377,
            ],
            &[1.0, -1.8685446009389666, 0.8873239436619713],
        ),
        // SciPy cont2discrete(([1, 0.5], [1, 1.2, 2]), 0.1, method='impulse')
        (
            &[
                0.09999999999999998,
                -0.09434445375539768,
                -1.1102230246251565e-16,
            ],
            &[1.0, -1.8681052253644221, 0.8869204367171576],
        ),
    ];
    for (m, (wb, wa)) in methods.into_iter().zip(want) {
        let (b, a) = cont2discrete_tf(&[1.0, 0.5], &[1.0, 1.2, 2.0], 0.1, m)?;
        close(&b, wb, 1e-11, 1e-14, &format!("{m:?} b"))?;
        close(&a, wa, 1e-11, 1e-14, &format!("{m:?} a"))?;
    }
    // A scalar system by the exact solution: x' = -2 x + u held: a = e^(-2 dt), b = (1 - a) / 2.
    let one = ss(&[-2.0], &[1.0], &[1.0], &[0.0], 1, 1, 1);
    let z = cont2discrete(&one, 0.7, Discretization::Zoh)?;
    let a = (-1.4f64).exp();
    close(
        &[z.a[0], z.b[0]],
        &[a, (1.0 - a) / 2.0],
        1e-15,
        0.0,
        "scalar zoh",
    )
}

/// Each error path of the state-space calls, its message naming the value.
fn errors_state_space(_d: Device) -> TestResult {
    let ia = "InvalidArgument";
    assert_err(
        tf2ss(&[1.0, 2.0, 3.0], &[1.0, 1.0]),
        ia,
        "[1.0, 2.0, 3.0] is longer",
    );
    assert_err(ss2tf(&mimo(), 2), ia, "input 2 does not exist");
    let bad = StateSpace {
        b: vec![1.0; 5],
        ..mimo()
    };
    assert_err(ss2tf(&bad, 0), ia, "B has 5 entries, but 3 x 2");
    let nan = StateSpace {
        a: vec![f64::NAN; 9],
        ..mimo()
    };
    assert_err(
        cont2discrete(&nan, 0.1, Discretization::Zoh),
        ia,
        "A has the entry NaN",
    );
    let huge = StateSpace {
        states: 5000,
        ..mimo()
    };
    assert_err(ss2tf(&huge, 0), ia, "5000 states");
    assert_err(ss2zpk(&mimo(), 0), ia, "2 outputs");
    assert_err(
        cont2discrete(&mimo(), -1.0, Discretization::Zoh),
        ia,
        "dt = -1",
    );
    assert_err(
        cont2discrete(&mimo(), 0.1, Discretization::Gbt(1.5)),
        ia,
        "alpha = 1.5",
    );
    assert_err(
        cont2discrete(&mimo(), 0.1, Discretization::Impulse),
        ia,
        "entry 0.5",
    );
    // I - dt A singular: A = 1 / dt with alpha = 1.
    let one = ss(&[2.0], &[1.0], &[1.0], &[0.0], 1, 1, 1);
    assert_err(
        cont2discrete(&one, 0.5, Discretization::BackwardDiff),
        ia,
        "singular for alpha = 1, dt = 0.5",
    );
    let fast = ss(&[1e3], &[1.0], &[1.0], &[0.0], 1, 1, 1);
    assert_err(
        cont2discrete(&fast, 1e3, Discretization::Zoh),
        ia,
        "dt = 1000 overflows",
    );
    assert_err(
        zpk2ss(&zpk(&[c(0.0, 1.0)], &[], 1.0)),
        ia,
        "not closed under conjugation",
    );
    // 2000 states and 40 inputs: a 2080 x 2080 exponential for foh, above LTI_MAX_ORDER.
    let wide = ss(
        &vec![0.0; 2000 * 2000],
        &vec![0.0; 2000 * 40],
        &vec![0.0; 2000],
        &[0.0; 40],
        2000,
        40,
        1,
    );
    assert_err(
        cont2discrete(&wide, 0.1, Discretization::Foh),
        ia,
        "2080 x 2080",
    );
    Ok(())
}

/// Residues paired with their poles, sorted by pole (as [`sorted`] orders roots).
fn by_pole(r: &[c64], p: &[c64]) -> (Vec<f64>, Vec<f64>) {
    let mut v: Vec<(c64, c64)> = p.iter().copied().zip(r.iter().copied()).collect();
    let key = |z: &c64| ((z.re * 1e6).round() + 0.0, (z.im * 1e6).round() + 0.0);
    v.sort_by(|a, b| {
        let (ka, kb) = (key(&a.0), key(&b.0));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    let (ps, rs): (Vec<c64>, Vec<c64>) = v.into_iter().unzip();
    (flat(&rs), flat(&ps))
}

/// `residue` and `residuez` against SciPy (distinct, repeated and grouped poles, direct
/// terms), `unique_roots` with each `rtype`, `invres` and `invresz` against SciPy, and round
/// trips.
fn partial_fractions(_d: Device) -> TestResult {
    let cases: [(PartialFractions, (&[c64], &[c64], &[f64]), f64, &str); 7] = [
        // SciPy residue([2, 0, 1, 5], [1, 3, 4, 2]) (np.poly coefficients pasted)
        (
            residue(
                &[2.0, 0.0, 1.0, 5.0],
                &[1.0, 3.0, 4.0, 2.0],
                1e-3,
                RootType::Avg,
            )?,
            (
                &[
                    c(2.000000000000005, 0.0),
                    c(-4.000000000000003, -2.4999999999999916),
                    c(-4.000000000000003, 2.4999999999999916),
                ],
                &[
                    c(-0.9999999999999987, 0.0),
                    c(-0.9999999999999991, 1.0000000000000004),
                    c(-0.9999999999999991, -1.0000000000000004),
                ],
                &[2.0],
            ),
            1e-12,
            "residue",
        ),
        // SciPy residue([1, 2], poly([-1, -1, -1, -2])) (np.poly coefficients pasted)
        (
            residue(&[1.0, 2.0], &[1.0, 5.0, 9.0, 7.0, 2.0], 1e-3, RootType::Avg)?,
            (
                &[
                    c(2.6645352591003934e-15, 0.0),
                    c(-2.6645352591003844e-15, 0.0),
                    c(1.0000000000000027, 0.0),
                    c(-2.6645352591004e-15, 0.0),
                ],
                &[
                    c(-1.0000000000000007, 0.0),
                    c(-1.0000000000000007, 0.0),
                    c(-1.0000000000000007, 0.0),
                    c(-1.9999999999999973, 0.0),
                ],
                &[],
            ),
            1e-5,
            "residue",
        ),
        // SciPy residue([1, 3], [1, 2.0001, 1.0001], tol=1e-3, rtype='min')
        (
            residue(&[1.0, 3.0], &[1.0, 2.0001, 1.0001], 1e-3, RootType::Min)?,
            (
                &[c(1.0, 0.0), c(1.9998999999984035, 0.0)],
                &[c(-1.0001000000015965, 0.0), c(-1.0001000000015965, 0.0)],
                &[],
            ),
            1e-9,
            "residue",
        ),
        // SciPy residue([1, 3], [1, 2.0001, 1.0001], tol=1e-3, rtype='avg')
        (
            residue(&[1.0, 3.0], &[1.0, 2.0001, 1.0001], 1e-3, RootType::Avg)?,
            (
                &[c(1.0, 0.0), c(1.99995, 0.0)],
                &[c(-1.00005, 0.0), c(-1.00005, 0.0)],
                &[],
            ),
            1e-9,
            "residue",
        ),
        // SciPy residuez([1, 0.5, 0.25, 3], [1, -0.9, 0.2]) (np.poly coefficients pasted)
        (
            residuez(
                &[1.0, 0.5, 0.25, 3.0],
                &[1.0, -0.9, 0.2],
                1e-3,
                RootType::Avg,
            )?,
            (
                &[c(-202.75, 0.0), c(135.0, 0.0)],
                &[c(0.4, 0.0), c(0.5, 0.0)],
                &[68.75, 15.0],
            ),
            1e-11,
            "residuez",
        ),
        // SciPy residuez([2, -1], poly([0.5, 0.5, 0.2])) (np.poly coefficients pasted)
        (
            residuez(&[2.0, -1.0], &[1.0, -1.2, 0.45, -0.05], 1e-3, RootType::Avg)?,
            (
                &[
                    c(-1.3333333333333348, 0.0),
                    c(3.333333333333335, 0.0),
                    c(-1.4802973661668753e-15, 0.0),
                ],
                &[
                    c(0.20000000000000004, 0.0),
                    c(0.49999999999999983, 0.0),
                    c(0.49999999999999983, 0.0),
                ],
                &[],
            ),
            1e-7,
            "residuez",
        ),
        // SciPy residuez([1, 2, 0], [1, 0.2, 0.5, 0]) (np.poly coefficients pasted)
        (
            residuez(&[1.0, 2.0, 0.0], &[1.0, 0.2, 0.5, 0.0], 1e-3, RootType::Avg)?,
            (
                &[
                    c(0.4999999999999998, -1.3571428571428568),
                    c(0.4999999999999998, 1.3571428571428568),
                ],
                &[
                    c(-0.09999999999999999, 0.6999999999999998),
                    c(-0.09999999999999999, -0.6999999999999998),
                ],
                &[],
            ),
            1e-12,
            "residuez",
        ),
    ];
    // A root of multiplicity m scatters by about eps^(1/m) before it is grouped and averaged
    // (in both root finders), hence the wider tolerances of cases 1 and 5.
    for (i, (got, (r, p, k), tol, what)) in cases.into_iter().enumerate() {
        let (gr, gp) = by_pole(&got.residues, &got.poles);
        let (wr, wp) = by_pole(r, p);
        close(&gp, &wp, tol, tol, &format!("{what} {i} poles"))?;
        close(&gr, &wr, tol, tol, &format!("{what} {i} residues"))?;
        close(&got.direct, k, 1e-12, 1e-12, &format!("{what} {i} direct"))?;
    }
    let p = [
        c(3.0, 0.0),
        c(1.9999, 0.0),
        c(3.0001, 0.0),
        c(2.0, 0.0),
        c(5.0, 1.0),
        c(5.0005, 1.0),
        c(5.0002, 1.0006),
    ];
    let want: [(&[c64], &[usize]); 3] = [
        // SciPy unique_roots([3, 1.9999, 3.0001, 2, (5+1j), (5.0005+1j), (5.0002+1.0006j)], 1e-3, 'min')
        (&[c(3.0, 0.0), c(1.9999, 0.0), c(5.0, 1.0)], &[2, 2, 3]),
        // SciPy unique_roots([3, 1.9999, 3.0001, 2, (5+1j), (5.0005+1j), (5.0002+1.0006j)], 1e-3, 'max')
        (&[c(3.0001, 0.0), c(2.0, 0.0), c(5.0005, 1.0)], &[2, 2, 3]),
        // SciPy unique_roots([3, 1.9999, 3.0001, 2, (5+1j), (5.0005+1j), (5.0002+1.0006j)], 1e-3, 'avg')
        (
            &[
                c(3.00005, 0.0),
                c(1.9999500000000001, 0.0),
                c(5.000233333333332, 1.0002),
            ],
            &[2, 2, 3],
        ),
    ];
    for (rtype, (u, m)) in [RootType::Min, RootType::Max, RootType::Avg]
        .into_iter()
        .zip(want)
    {
        let (gu, gm) = unique_roots(&p, 1e-3, rtype)?;
        close(
            &flat(&gu),
            &flat(u),
            1e-15,
            0.0,
            &format!("unique_roots {rtype:?}"),
        )?;
        if gm != m {
            return Err(
                format!("unique_roots {rtype:?}: multiplicities {gm:?}, expected {m:?}").into(),
            );
        }
    }
    let r = [
        c(1.0, 2.0),
        c(1.0, -2.0),
        c(0.5, 0.0),
        c(-0.25, 0.0),
        c(3.0, 0.0),
    ];
    let p = [
        c(-1.0, 1.0),
        c(-1.0, -1.0),
        c(-2.0, 0.0),
        c(-2.0000001, 0.0),
        c(-0.5, 0.0),
    ];
    // SciPy invres([(1+2j), (1-2j), 0.5, -0.25, 3], [(-1+1j), (-1-1j), -2, -2.0000001, -0.5], [1.0, 2.0], tol=1e-3)
    let (wb, wa): (&[c64], &[c64]) = (
        &[
            c(1.0, 0.0),
            c(8.5, 0.0),
            c(35.5, 0.0),
            c(84.0, 0.0),
            c(110.375, 0.0),
            c(78.75, 0.0),
            c(28.75, 0.0),
        ],
        &[
            c(1.0, 0.0),
            c(6.5, 0.0),
            c(17.0, 0.0),
            c(23.0, 0.0),
            c(16.0, 0.0),
            c(4.0, 0.0),
        ],
    );
    let (b, a) = invres(&r, &p, &[1.0, 2.0], 1e-3)?;
    close(&flat(&b), &flat(wb), 1e-13, 1e-13, "invres b")?;
    close(&flat(&a), &flat(wa), 1e-13, 1e-13, "invres a")?;
    // SciPy invresz([(1+2j), (1-2j), 0.5, -0.25, 3], [(-1+1j), (-1-1j), -2, -2.0000001, -0.5], [1.0, 2.0], tol=1e-3)
    let (wb, wa): (&[c64], &[c64]) = (
        &[
            c(6.25, 0.0),
            c(35.125, 0.0),
            c(78.25, 0.0),
            c(100.25, 0.0),
            c(83.0, 0.0),
            c(36.0, 0.0),
            c(8.0, 0.0),
        ],
        &[
            c(1.0, 0.0),
            c(6.5, 0.0),
            c(17.0, 0.0),
            c(23.0, 0.0),
            c(16.0, 0.0),
            c(4.0, 0.0),
        ],
    );
    let (b, a) = invresz(&r, &p, &[1.0, 2.0], 1e-3)?;
    close(&flat(&b), &flat(wb), 1e-13, 1e-13, "invresz b")?;
    close(&flat(&a), &flat(wa), 1e-13, 1e-13, "invresz a")?;
    // Round trips: residue then invres, residuez then invresz, give the function back.
    let (b, a) = ([2.0, 0.0, 1.0, 5.0, -1.0], [1.0, 3.0, 4.0, 2.0]);
    let f = residue(&b, &a, 1e-3, RootType::Avg)?;
    let (gb, ga) = invres(&f.residues, &f.poles, &f.direct, 1e-3)?;
    close(
        &flat(&gb),
        &flat(&b.map(|v| c(v, 0.0))),
        1e-12,
        1e-12,
        "residue/invres b",
    )?;
    close(
        &flat(&ga),
        &flat(&a.map(|v| c(v, 0.0))),
        1e-12,
        1e-12,
        "residue/invres a",
    )?;
    let (b, a) = ([1.0, -0.4, 0.3, 0.2], [1.0, -0.5, 0.34, -0.1]);
    let f = residuez(&b, &a, 1e-3, RootType::Avg)?;
    let (gb, ga) = invresz(&f.residues, &f.poles, &f.direct, 1e-3)?;
    close(
        &flat(&gb),
        &flat(&b.map(|v| c(v, 0.0))),
        1e-12,
        1e-12,
        "residuez/invresz b",
    )?;
    close(
        &flat(&ga),
        &flat(&a.map(|v| c(v, 0.0))),
        1e-12,
        1e-12,
        "residuez/invresz a",
    )?;
    // A numerator of zeros: zero residues, no direct term.
    let f = residue(&[0.0, 0.0], &[1.0, 3.0, 2.0], 1e-3, RootType::Avg)?;
    if f.residues != [c(0.0, 0.0); 2] || !f.direct.is_empty() {
        return Err(format!("residue of 0: {f:?}").into());
    }
    Ok(())
}

/// Each error path of the partial-fraction calls, its message naming the value.
fn errors_partial_fractions(_d: Device) -> TestResult {
    let ia = "InvalidArgument";
    assert_err(
        residue(&[1.0], &[0.0, 0.0], 1e-3, RootType::Avg),
        ia,
        "denominator has no non-zero",
    );
    assert_err(
        residue(&[1.0], &[1.0, 2.0], -1.0, RootType::Avg),
        ia,
        "tol = -1",
    );
    assert_err(
        residuez(&[1.0], &[0.0, 1.0], 1e-3, RootType::Avg),
        ia,
        "[0.0, 1.0] must have a[0] != 0",
    );
    assert_err(
        residuez(&[f64::INFINITY], &[1.0], 1e-3, RootType::Avg),
        ia,
        "inf",
    );
    assert_err(
        unique_roots(&[c(f64::NAN, 0.0)], 1e-3, RootType::Min),
        ia,
        "NaN",
    );
    let one = [c(1.0, 0.0)];
    assert_err(
        invres(&one, &[one[0], one[0]], &[], 1e-3),
        ia,
        "1 residues for 2 poles",
    );
    assert_err(
        invresz(&one, &one, &[f64::NAN], 1e-3),
        ia,
        "direct term coefficient NaN",
    );
    assert_err(
        unique_roots(&vec![c(1.0, 0.0); 3000], 1e-3, RootType::Min),
        ia,
        "3000 roots",
    );
    Ok(())
}

/// `freqs_zpk`, `freqz_zpk`, `findfreqs` and `findfreqs_zpk` against SciPy, and the zero-pole
/// responses against the coefficient ones.
fn zpk_responses(_d: Device) -> TestResult {
    let f = lp2bp_zpk(&ellipap(4, 1.0, 40.0)?, 3.0, 1.5)?;
    // SciPy findfreqs(*lp2bp_zpk(*ellipap(4, 1, 40), 3.0, 1.5)[:2], 7, kind='zp')
    let want_w: &[f64] = &[
        0.1,
        0.21544346900318834,
        0.46415888336127786,
        1.0,
        2.1544346900318834,
        4.6415888336127775,
        10.0,
    ];
    let w = findfreqs_zpk(&f, 7)?;
    close(&w, want_w, 1e-14, 0.0, "findfreqs_zpk")?;
    // SciPy freqs_zpk(*lp2bp_zpk(*ellipap(4, 1, 40), 3.0, 1.5), worN=w)
    let want: &[c64] = &[
        c(0.009959966120955682, -0.00015609933459561221),
        c(0.009812970805141602, -0.0003329145660839834),
        c(0.009105367825790703, -0.0006805653013437939),
        c(0.005233053848620133, -0.0009435536082974228),
        c(0.03222987015595304, -0.042907317941315005),
        c(-0.006903645004705398, -0.0046654147066187025),
        c(0.006263757662680251, 0.0009874574954172094),
    ];
    close(
        &flat(&freqs_zpk(&f, &w)?),
        &flat(want),
        1e-11,
        1e-14,
        "freqs_zpk",
    )?;
    let (b, a) = signal::zpk2tf(&f)?;
    let h = signal::freqs(&b, &a, &w)?;
    close(&flat(&h), &flat(want), 1e-9, 1e-12, "freqs of zpk2tf")?;
    let d = digital(cheb1ap(5, 1.0)?, &[0.2, 0.5], "bandpass")?;
    // SciPy freqz_zpk(*cheby1(5, 1, [0.2, 0.5], 'bandpass', output='zpk'), worN=8)
    let want: &[c64] = &[
        c(0.0, 0.0),
        c(0.0017780476597889238, 0.0034012288452513056),
        c(-0.6859776674794037, 0.717697417448552),
        c(0.37197017434199, -0.8141904251402511),
        c(0.5513221238293289, 0.7002657713329978),
        c(0.003911172536741389, -0.00631240268057921),
        c(8.858292921696283e-05, -0.0003005495573085634),
        c(7.49169511042921e-07, -5.807753284331511e-06),
    ];
    let (w, h) = freqz_zpk(&d, 8)?;
    close(&flat(&h), &flat(want), 1e-9, 1e-12, "freqz_zpk")?;
    close(
        &w,
        &(0..8).map(|k| PI * k as f64 / 8.0).collect::<Vec<_>>(),
        0.0,
        0.0,
        "freqz_zpk w",
    )?;
    let cases: [(Vec<f64>, &[f64], &str); 3] = [
        // SciPy findfreqs([1, 0, 4], [1, 2, 3, 4], 5)
        (
            findfreqs(&[1.0, 0.0, 4.0], &[1.0, 2.0, 3.0, 4.0], 5)?,
            &[0.1, 0.31622776601683794, 1.0, 3.1622776601683795, 10.0],
            "findfreqs(&[1.0, 0.0, 4.0], &[1.0, 2.0, 3.0, 4.0], 5)",
        ),
        // SciPy findfreqs([1, 0], [1, 0.5, 25], 6)
        (
            findfreqs(&[1.0, 0.0], &[1.0, 0.5, 25.0], 6)?,
            &[
                0.01,
                0.039810717055349734,
                0.15848931924611134,
                0.630957344480193,
                2.5118864315095797,
                10.0,
            ],
            "findfreqs(&[1.0, 0.0], &[1.0, 0.5, 25.0], 6)",
        ),
        // SciPy findfreqs([1], [1], 3)
        (
            findfreqs(&[1.0], &[1.0], 3)?,
            &[100.0, 1000.0, 10000.0],
            "findfreqs(&[1.0], &[1.0], 3)",
        ),
    ];
    for (got, want, what) in cases {
        close(&got, want, 1e-14, 0.0, what)?;
    }
    Ok(())
}

/// `iircomb` and `gammatone` against SciPy, and the comb's gains at its notches and peaks.
fn comb_and_gammatone(_d: Device) -> TestResult {
    let cases: [((Vec<f64>, Vec<f64>), (&[f64], &[f64]), &str); 5] = [
        // SciPy iircomb(1000, 30, 'notch', fs=8000, pass_zero=False)
        (
            iircomb(1000.0, 30.0, CombType::Notch, 8000.0, false)?,
            (
                &[
                    0.9502020221489199,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    -0.9502020221489199,
                ],
                &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.9004040442978398],
            ),
            "iircomb(1000.0, 30.0, CombType::Notch, 8000.0, false)",
        ),
        // SciPy iircomb(1000, 30, 'notch', fs=8000, pass_zero=True)
        (
            iircomb(1000.0, 30.0, CombType::Notch, 8000.0, true)?,
            (
                &[
                    0.9502020221489199,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.9502020221489199,
                ],
                &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9004040442978398],
            ),
            "iircomb(1000.0, 30.0, CombType::Notch, 8000.0, true)",
        ),
        // SciPy iircomb(1000, 30, 'peak', fs=8000, pass_zero=False)
        (
            iircomb(1000.0, 30.0, CombType::Peak, 8000.0, false)?,
            (
                &[
                    0.04979797785108001,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    -0.04979797785108001,
                ],
                &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.9004040442978398],
            ),
            "iircomb(1000.0, 30.0, CombType::Peak, 8000.0, false)",
        ),
        // SciPy iircomb(1000, 30, 'peak', fs=8000, pass_zero=True)
        (
            iircomb(1000.0, 30.0, CombType::Peak, 8000.0, true)?,
            (
                &[
                    0.04979797785108001,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.04979797785108001,
                ],
                &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.9004040442978398],
            ),
            "iircomb(1000.0, 30.0, CombType::Peak, 8000.0, true)",
        ),
        // SciPy iircomb(0.25, 10, 'peak')
        (
            iircomb(0.25, 10.0, CombType::Peak, 2.0, false)?,
            (
                &[
                    0.13672873599731955,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    -0.13672873599731955,
                ],
                &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.726542528005361],
            ),
            "iircomb(0.25, 10.0, CombType::Peak, 2.0, false)",
        ),
    ];
    for ((b, a), (wb, wa), what) in cases {
        close(&b, wb, 1e-14, 0.0, &format!("{what} b"))?;
        close(&a, wa, 1e-14, 0.0, &format!("{what} a"))?;
    }
    // A notch comb without pass_zero: gain 0 at DC and at each multiple of w0, 1 half way.
    let (b, a) = iircomb(1000.0, 30.0, CombType::Notch, 8000.0, false)?;
    let (_, h) = signal::freqz(&b, &a, 16)?;
    for (k, v) in h.iter().enumerate() {
        let want = if k % 4 == 0 {
            0.0
        } else if k % 4 == 2 {
            1.0
        } else {
            -1.0
        };
        if want >= 0.0 && (v.norm() - want).abs() > 1e-12 {
            return Err(format!(
                "iircomb notch gain at {k}/16 of Nyquist: {}, expected {want}",
                v.norm()
            )
            .into());
        }
    }
    // SciPy gammatone(440, 'fir', fs=16000): the first 12 taps and the last, of 240
    let (want, last): (&[f64], f64) = (
        &[
            0.0,
            2.2219671850464346e-07,
            1.6494210129699336e-06,
            4.992982270620149e-06,
            1.019939692248868e-05,
            1.631257700764109e-05,
            2.146489404226078e-05,
            2.2994726314409055e-05,
            1.7677693104088666e-05,
            2.0498053723818635e-06,
            -2.720628584909887e-05,
            -7.284552992704738e-05,
        ],
        -0.0028557833476953844,
    );
    let (b, a) = gammatone(440.0, GammatoneType::default(), 16000.0)?;
    close(&b[..12], want, 1e-13, 1e-20, "gammatone fir")?;
    close(
        &[b[239], a[0], b.len() as f64],
        &[last, 1.0, 240.0],
        1e-13,
        0.0,
        "gammatone fir end",
    )?;
    // SciPy gammatone(1000, 'fir', order=2, numtaps=30, fs=8000)
    let want: &[f64] = &[
        0.0,
        0.014331239888697367,
        2.232069037852911e-18,
        -0.0347697074311595,
        -0.058959362459875965,
        -0.04686469575236894,
        -1.31383904606583e-17,
        0.053060318621917325,
        0.0771213825152677,
        0.0551709343369471,
        2.386886101801916e-17,
        -0.05453264095695024,
        -0.07565856455512734,
        -0.052119856788422195,
        -3.059706710340714e-17,
        0.04863480024063725,
        0.0659764381677059,
        0.04457597125664149,
        1.3970674432218485e-16,
        -0.04029039361578519,
        -0.05393751213377326,
        -0.036013324972904034,
        -1.17552047892031e-16,
        0.03189831755394063,
        0.04233155174995125,
        0.02803986806501982,
        9.540188866249319e-17,
        -0.02449039203699772,
        -0.03230003628963081,
        -0.02127286514455057,
    ];
    let (b, _) = gammatone(
        1000.0,
        GammatoneType::Fir {
            order: 2,
            numtaps: Some(30),
        },
        8000.0,
    )?;
    close(&b, want, 1e-13, 1e-16, "gammatone fir order 2")?;
    let cases: [((Vec<f64>, Vec<f64>), (&[f64], &[f64]), &str); 2] = [
        // SciPy gammatone(440, 'iir', fs=16000)
        (
            gammatone(440.0, GammatoneType::Iir, 16000.0)?,
            (
                &[
                    1.3149446136746419e-06,
                    -5.033911966453952e-06,
                    7.006494260008976e-06,
                    -4.189519684198538e-06,
                    9.026149104120111e-07,
                ],
                &[
                    1.0,
                    -7.656462354542177,
                    25.758469932236604,
                    -49.731921448323774,
                    60.266736128918055,
                    -46.93995909804863,
                    22.947479880846107,
                    -6.4379938129903405,
                    0.7936515546253675,
                ],
            ),
            "gammatone(440.0, GammatoneType::Iir, 16000.0)",
        ),
        // SciPy gammatone(1000, 'iir', fs=8000)
        (
            gammatone(1000.0, GammatoneType::Iir, 8000.0)?,
            (
                &[
                    0.00020577682292291714,
                    -0.000523406918762908,
                    6.11398797299843e-20,
                    0.00042328753069448353,
                    -0.00013458246842657754,
                ],
                &[
                    1.0,
                    -5.087131887141376,
                    12.93945541858528,
                    -20.570223831915452,
                    22.23673133595666,
                    -16.635468388961907,
                    8.462682169902047,
                    -2.6906737698282166,
                    0.42774413538712536,
                ],
            ),
            "gammatone(1000.0, GammatoneType::Iir, 8000.0)",
        ),
    ];
    for ((b, a), (wb, wa), what) in cases {
        close(&b, wb, 1e-11, 1e-18, &format!("{what} b"))?;
        close(&a, wa, 1e-12, 1e-15, &format!("{what} a"))?;
    }
    // The IIR gammatone has unit gain at its centre.
    let (b, a) = gammatone(1000.0, GammatoneType::Iir, 8000.0)?;
    let z = c64::from_polar(1.0, -2.0 * PI * 1000.0 / 8000.0);
    let g = poly_at(&b.iter().rev().copied().collect::<Vec<_>>(), z)
        / poly_at(&a.iter().rev().copied().collect::<Vec<_>>(), z);
    close(&[g.norm()], &[1.0], 1e-9, 0.0, "gammatone iir centre gain")
}

/// Each error path of the responses, combs and gammatones, its message naming the value.
fn errors_responses(_d: Device) -> TestResult {
    let ia = "InvalidArgument";
    let f = zpk(&[], &[c(-1.0, 0.0)], 1.0);
    assert_err(freqz_zpk(&f, 0), ia, "0 frequencies");
    assert_err(
        freqs_zpk(&zpk(&[c(f64::NAN, 0.0)], &[], 1.0), &[1.0]),
        ia,
        "NaN",
    );
    assert_err(
        findfreqs(&[1.0], &[0.0, 1.0], 4),
        ia,
        "[0.0, 1.0] has a leading zero",
    );
    assert_err(findfreqs_zpk(&f, 0), ia, "0 frequencies");
    assert_err(
        iircomb(5000.0, 30.0, CombType::Notch, 8000.0, false),
        ia,
        "w0 = 5000",
    );
    assert_err(
        iircomb(1500.0, 30.0, CombType::Notch, 8000.0, false),
        ia,
        "whole multiple of w0 = 1500",
    );
    assert_err(
        iircomb(1000.0, 0.0, CombType::Peak, 8000.0, false),
        ia,
        "q = 0",
    );
    assert_err(
        iircomb(1e-9, 1.0, CombType::Peak, 2.0, false),
        ia,
        "COMB_MAX_ORDER",
    );
    assert_err(gammatone(440.0, GammatoneType::Iir, -1.0), ia, "fs = -1");
    assert_err(
        gammatone(9000.0, GammatoneType::Iir, 16000.0),
        ia,
        "frequency 9000",
    );
    assert_err(
        gammatone(
            440.0,
            GammatoneType::Fir {
                order: 30,
                numtaps: None,
            },
            16000.0,
        ),
        ia,
        "order 30",
    );
    assert_err(
        gammatone(
            440.0,
            GammatoneType::Fir {
                order: 4,
                numtaps: Some(0),
            },
            16000.0,
        ),
        ia,
        "0 taps",
    );
    Ok(())
}

/// `minimum_phase` by both methods against SciPy, with and without `half` and for explicit
/// transform sizes (a power of two and not), and the magnitude it keeps.
fn min_phase(_d: Device) -> TestResult {
    // SciPy firwin(15, 0.3)
    let h: &[f64] = &[
        0.001118295168635258,
        -0.003894764791719022,
        -0.01603491745518543,
        -0.02036377118215373,
        0.02095180705129967,
        0.12449781344246412,
        0.24450683184615124,
        0.2984374118410156,
        0.24450683184615124,
        0.12449781344246412,
        0.02095180705129967,
        -0.02036377118215373,
        -0.01603491745518543,
        -0.003894764791719022,
        0.001118295168635258,
    ];
    let cases: [(Vec<f64>, &[f64], &str); 4] = [
        // SciPy minimum_phase(h)
        (
            minimum_phase(h, MinPhaseMethod::Homomorphic, None, true)?,
            &[
                0.14883627243371111,
                0.30604548210888916,
                0.35438998399241095,
                0.22780360727841867,
                0.04368232351436652,
                -0.051403709286012234,
                -0.034441119848366605,
                0.003067970354976095,
            ],
            "homomorphic",
        ),
        // SciPy minimum_phase(h, half=False)
        (
            minimum_phase(h, MinPhaseMethod::Homomorphic, None, false)?,
            &[
                0.022152354360487007,
                0.09110156033191731,
                0.19915624754703942,
                0.28472999296090884,
                0.2780318409800214,
                0.17289868494735688,
                0.041139717838605136,
                -0.036699807126634086,
                -0.042878117983266364,
                -0.016320077896522952,
                0.0022955482993557456,
                0.0038312701717837737,
                0.0011302178086376132,
                -0.0006254011594424426,
                5.64628541167806e-05,
            ],
            "homomorphic, half = false",
        ),
        // SciPy minimum_phase(h, n_fft=64)
        (
            minimum_phase(h, MinPhaseMethod::Homomorphic, Some(64), true)?,
            &[
                0.15041006051487185,
                0.3077247051951854,
                0.35449746866470716,
                0.22488827785915438,
                0.042281986433394675,
                -0.05072039124094806,
                -0.033942409843186,
                0.002828452161225725,
            ],
            "n_fft = 64",
        ),
        // SciPy minimum_phase(h, n_fft=100)
        (
            minimum_phase(h, MinPhaseMethod::Homomorphic, Some(100), true)?,
            &[
                0.1513241894090018,
                0.30770327311333956,
                0.3541682030367047,
                0.22493084262282495,
                0.04168079833373139,
                -0.05090819625886504,
                -0.033750357000518,
                0.002710051472720258,
            ],
            "n_fft = 100",
        ),
    ];
    for (got, want, what) in cases {
        close(&got, want, 1e-10, 1e-12, what)?;
    }
    // SciPy remez(22, [0, 0.2, 0.3, 0.5], [1, 0])
    let g: &[f64] = &[
        -0.004393929480052915,
        0.008749809773518077,
        0.011499714345511822,
        -0.014327285198710942,
        -0.02094230633524795,
        0.028314479232933752,
        0.03988365038935077,
        -0.055454535750693694,
        -0.08422927461757014,
        0.14585294238992308,
        0.4493100249751224,
        0.4493100249751224,
        0.14585294238992308,
        -0.08422927461757014,
        -0.055454535750693694,
        0.03988365038935077,
        0.028314479232933752,
        -0.02094230633524795,
        -0.014327285198710942,
        0.011499714345511822,
        0.008749809773518077,
        -0.004393929480052915,
    ];
    // SciPy minimum_phase(g, method='hilbert')
    let want: &[f64] = &[
        0.2777304158320827,
        0.47081573852049113,
        0.35014298663143906,
        0.0015063250010684496,
        -0.1442519688143241,
        -0.009928406134898803,
        0.08080633220183438,
        0.0030364288115032334,
        -0.04923842063695595,
        0.01033508970326234,
        0.02116114437157452,
    ];
    // The Hilbert method takes the square root of the shifted zero-phase response, 0 at its
    // minimum: rounding of 1e-16 in the transform there becomes 1e-8 in the root (against
    // the 1e-10 floor), so the taps follow the FFT's rounding to about 1e-4.
    close(
        &minimum_phase(g, MinPhaseMethod::Hilbert, None, true)?,
        want,
        1e-3,
        1e-4,
        "hilbert",
    )?;
    // SciPy minimum_phase(g)
    let want: &[f64] = &[
        0.2995500899432804,
        0.5070309258178465,
        0.33755134672796006,
        -0.0463829172197574,
        -0.163166762421413,
        0.010525012118301315,
        0.09244122291095222,
        -0.00716680513159044,
        -0.05303049104308298,
        0.009540344916600206,
        0.029078235297291383,
    ];
    close(
        &minimum_phase(g, MinPhaseMethod::Homomorphic, None, true)?,
        want,
        1e-9,
        1e-11,
        "remez homomorphic",
    )?;
    // Without `half`, the magnitude response is h's (to the cepstrum's aliasing).
    let m = minimum_phase(h, MinPhaseMethod::Homomorphic, None, false)?;
    let (_, hm) = signal::freqz(&m, &[1.0], 16)?;
    let (_, hh) = signal::freqz(h, &[1.0], 16)?;
    let (gm, gh): (Vec<f64>, Vec<f64>) = hm
        .iter()
        .zip(&hh)
        .map(|(a, b)| (a.norm(), b.norm()))
        .unzip();
    close(&gm, &gh, 0.0, 1e-3, "minimum_phase magnitude")
}

/// Each error path of `minimum_phase`, its message naming the value.
fn errors_min_phase(_d: Device) -> TestResult {
    let ia = "InvalidArgument";
    let m = MinPhaseMethod::Homomorphic;
    assert_err(minimum_phase(&[1.0, 1.0], m, None, true), ia, "2 taps");
    assert_err(
        minimum_phase(&[1.0, f64::NAN, 1.0], m, None, true),
        ia,
        "tap NaN",
    );
    assert_err(
        minimum_phase(&[1.0, 2.0, 1.0], m, Some(2), true),
        ia,
        "n_fft = 2",
    );
    assert_err(
        minimum_phase(&[1.0, 2.0, 1.0], MinPhaseMethod::Hilbert, None, false),
        ia,
        "half = true",
    );
    assert_err(
        minimum_phase(&[0.0; 5], m, None, true),
        ia,
        "zero everywhere",
    );
    // A constant response: the Hilbert method's rescaling takes the root of a negative.
    assert_err(
        minimum_phase(
            &[0.0, 0.0, 5.0, 0.0, 0.0],
            MinPhaseMethod::Hilbert,
            None,
            true,
        ),
        ia,
        "value NaN",
    );
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let host: &[(&str, Body)] = &[
        ("prototypes", prototypes),
        ("zpk_transforms", zpk_transforms),
        ("tf_transforms", tf_transforms),
        ("transform_responses", transform_responses),
        ("sos_pairing", sos_pairing),
        ("errors_transforms", errors_transforms),
        ("state_space", state_space),
        ("discretization", discretization),
        ("errors_state_space", errors_state_space),
        ("partial_fractions", partial_fractions),
        ("errors_partial_fractions", errors_partial_fractions),
        ("zpk_responses", zpk_responses),
        ("comb_and_gammatone", comb_and_gammatone),
        ("errors_responses", errors_responses),
        ("min_phase", min_phase),
        ("errors_min_phase", errors_min_phase),
    ];
    host.iter()
        .map(|&(name, body)| {
            Test::cpu(format!("cpu::signal_lti::{name}"), move || {
                body(Device::CPU)
            })
        })
        .collect()
}
