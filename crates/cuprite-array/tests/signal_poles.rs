//! Pole placement (`place_poles`, both methods) and `abcd_normalize` against SciPy 1.17.1's
//! values for the same inputs (read from `data/scipy-signal.txt`, written by
//! `data/scipy_signal.py`; the matrices are formulas evaluated here and there alike): SciPy's
//! two examples, one input, `rank(B)` equal to the states (square and wide `B`), repeated
//! real and complex poles, six and seven states, a lone real pole among complex pairs. The
//! gain, `X`, the ordered poles and the sweep's `(rtol, nb_iter)` are compared with SciPy's:
//! the same start and the same updates give the same result up to rounding. Independently
//! of SciPy, the eigenvalues of `A - B K` (by `linalg::eigvals` on the CPU) are the requested
//! poles and `(A - B K) X = X diag(poles)`. Then every error, named. Host computations: one
//! run on the CPU.

use crate::common::{Body, assert_err, close, grid, reference_in};
use cuprite_array::signal::{
    LTI_MAX_ORDER, PlacePolesOpts, PlacedPoles, PoleMethod, abcd_normalize, place_poles,
    place_poles_with,
};
use cuprite_array::{Array, Device, c64, linalg};
use cuprite_testkit::{Rng, Test, TestResult};

fn reference(name: &str) -> Vec<f64> {
    reference_in(&[include_str!("data/scipy-signal.txt")], name)
}

fn c(re: f64, im: f64) -> c64 {
    c64::new(re, im)
}

fn reals(v: &[f64]) -> Vec<c64> {
    v.iter().map(|&x| c(x, 0.0)).collect()
}

/// Complex values as interleaved `(re, im)`.
fn flat(v: &[c64]) -> Vec<f64> {
    v.iter().flat_map(|z| [z.re, z.im]).collect()
}

/// `1.0` where `cond`, else `0.0` (NumPy's `(i == j)` in a formula).
fn ind(cond: bool) -> f64 {
    if cond { 1.0 } else { 0.0 }
}

/// Values sorted by real part, then imaginary part, after rounding away the last bits (so
/// that conjugates and near-equal real parts order alike on both sides).
fn sorted(v: &[c64]) -> Vec<c64> {
    let mut v = v.to_vec();
    // `+ 0.0` makes -0 and 0 one key.
    let key = |z: &c64| ((z.re * 1e6).round() + 0.0, (z.im * 1e6).round() + 0.0);
    v.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    v
}

/// `A - B K` (`n x n`) for `B` `n x m` and `K` `m x n`.
fn closed_loop(a: &[f64], b: &[f64], k: &[f64], n: usize, m: usize) -> Vec<f64> {
    let mut out = a.to_vec();
    for i in 0..n {
        for j in 0..n {
            out[i * n + j] -= (0..m).map(|l| b[i * m + l] * k[l * n + j]).sum::<f64>();
        }
    }
    out
}

/// The agreement with SciPy, relative to the largest gain (or pole, or 1 for `X`'s unit
/// columns): the sweeps amplify rounding by the conditioning of the updates, and SciPy's
/// own placement of the six-state case is off by `1.7e-8` where this one's is not (the
/// eigenvalue checks of [`check_placed`] hold at `1e-9`).
const TOL: f64 = 1e-7;

/// A placement to compare: SciPy's matrices and poles, and the options SciPy ran with.
struct Case {
    name: &'static str,
    a: Vec<f64>,
    b: Vec<f64>,
    n: usize,
    m: usize,
    poles: Vec<c64>,
    opts: PlacePolesOpts,
}

fn cases() -> Vec<Case> {
    let a1 = vec![
        1.380, -0.2077, 6.715, -5.676, -0.5814, -4.290, 0.0, 0.6750, 1.067, 4.273, -6.654, 5.893,
        0.0480, 4.273, 1.343, -2.104,
    ];
    let b1 = vec![0.0, 5.679, 1.136, 1.136, 0.0, 0.0, -3.146, 0.0];
    let p1 = reals(&[-0.2, -0.5, -5.0566, -8.6659]);
    let a2 = vec![
        0.0,
        7.0 / 3.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        7.0 / 9.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ];
    let b2 = vec![0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0];
    let p2 = vec![
        c(-1.0, 0.0),
        c(-1.0 / 3.0, 0.0),
        c(-2.0 / 3.0, -1.0 / 3.0),
        c(-2.0 / 3.0, 1.0 / 3.0),
    ];
    let a3 = grid(3, 3, |i, j| (0.7 * i + 1.3 * j).sin() + 0.1 * (i - j));
    let b3 = grid(3, 1, |i, _| (0.9 * i + 0.3).cos());
    let b4 = grid(3, 3, |i, j| (0.9 * i - 0.4 * j).cos() + ind(i == j));
    let a4w = vec![0.5, -1.0, 2.0, 0.25];
    let b4w = grid(2, 3, |i, j| (1.1 * i + 0.7 * j + 0.2).sin());
    let a5 = grid(4, 4, |i, j| (0.8 * i * j + 0.4).cos() - 0.2 * i);
    let b5 = grid(4, 2, |i, j| (0.6 * i - 1.2 * j + 0.5).sin());
    let a6 = grid(6, 6, |i, j| (0.5 * i + 0.9 * j * j).sin() + 0.05 * i * j);
    let b6 = grid(6, 3, |i, j| {
        (1.3 * i + 0.4 * j).cos() + 0.3 * ind(i == 2.0 * j)
    });
    let p6 = reals(&[-0.5, -1.0, -1.5, -2.0, -3.0, -4.0]);
    let a7 = grid(7, 7, |i, j| (2.1 * i * j + 0.3 * i - 0.5 * j).cos());
    let b7 = grid(7, 3, |i, j| (0.9 * i + 1.7 * j + 0.1).sin() + 0.2 * i * j);
    let a8 = grid(5, 5, |i, j| (1.1 * i - 0.3 * j + 0.2 * i * j).sin());
    let b8 = grid(5, 2, |i, j| (0.7 * i + 2.1 * j).cos());
    let yt = PlacePolesOpts::new();
    let knv0 = PlacePolesOpts::new().method(PoleMethod::Knv0);
    let case = |name, a: &Vec<f64>, b: &Vec<f64>, n, m, poles: Vec<c64>, opts| Case {
        name,
        a: a.clone(),
        b: b.clone(),
        n,
        m,
        poles,
        opts,
    };
    vec![
        case("ex1_knv0", &a1, &b1, 4, 2, p1.clone(), knv0),
        case("ex1_yt", &a1, &b1, 4, 2, p1.clone(), yt),
        case("ex1_yt100", &a1, &b1, 4, 2, p1, yt.rtol(-1.0).maxiter(100)),
        case("ex2_yt", &a2, &b2, 4, 2, p2, yt),
        case(
            "si_yt",
            &a3,
            &b3,
            3,
            1,
            vec![c(-1.0, 0.0), c(-2.0, 1.0), c(-2.0, -1.0)],
            yt,
        ),
        case("si_knv0", &a3, &b3, 3, 1, reals(&[-3.0, -1.0, -2.0]), knv0),
        case(
            "fr_yt",
            &a3,
            &b4,
            3,
            3,
            vec![c(-2.0, 3.0), c(-1.0, 0.0), c(-2.0, -3.0)],
            yt,
        ),
        case("fr_wide", &a4w, &b4w, 2, 3, reals(&[-4.0, -1.0]), yt),
        case(
            "rep_yt",
            &a5,
            &b5,
            4,
            2,
            reals(&[-1.0, -1.0, -2.0, -2.0]),
            yt,
        ),
        case(
            "rep_knv0",
            &a5,
            &b5,
            4,
            2,
            reals(&[-1.0, -2.0, -1.0, -2.0]),
            knv0,
        ),
        case(
            "rep_cplx",
            &a5,
            &b5,
            4,
            2,
            vec![c(-1.0, 1.0), c(-1.0, -1.0), c(-1.0, 1.0), c(-1.0, -1.0)],
            yt,
        ),
        case("six_yt", &a6, &b6, 6, 3, p6.clone(), yt),
        case("six_knv0", &a6, &b6, 6, 3, p6, knv0),
        case(
            "seven_yt",
            &a7,
            &b7,
            7,
            3,
            vec![
                c(-1.0, 0.0),
                c(-2.0, 0.0),
                c(-3.0, 0.0),
                c(-4.0, 0.0),
                c(-5.0, 0.0),
                c(-1.0, 2.0),
                c(-1.0, -2.0),
            ],
            yt,
        ),
        case(
            "seven_real",
            &a7,
            &b7,
            7,
            3,
            reals(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0]),
            yt,
        ),
        case(
            "lone_yt",
            &a8,
            &b8,
            5,
            2,
            vec![
                c(-1.0, 0.0),
                c(-2.0, 1.0),
                c(-2.0, -1.0),
                c(-3.0, 2.0),
                c(-3.0, -2.0),
            ],
            yt,
        ),
    ]
}

/// What holds whatever SciPy says: the eigenvalues of `A - B K` (found apart from the call)
/// are the requested poles, and `(A - B K) X = X diag(poles)`.
fn check_placed(cs: &Case, f: &PlacedPoles) -> TestResult {
    let (n, m, what) = (cs.n, cs.m, cs.name);
    let abk = closed_loop(&cs.a, &cs.b, &f.gain_matrix, n, m);
    let w = linalg::eigvals(&Array::from_slice_on(Device::CPU, &abk, &[n, n])?)?.to_vec()?;
    let scale = cs.poles.iter().map(|z| z.norm()).fold(1.0, f64::max);
    close(
        &flat(&sorted(&w)),
        &flat(&sorted(&cs.poles)),
        0.0,
        1e-9 * scale,
        &format!("{what}: eig(A - B K)"),
    )?;
    if f.rtol.is_none() {
        // rank(B) = states: X = I, and A - B K is the poles' real block diagonal.
        return Ok(());
    }
    let mut resid = 0.0f64;
    let mut size = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let ax: c64 = (0..n).map(|l| f.x[l * n + j] * abk[i * n + l]).sum();
            let xd = f.x[i * n + j] * f.requested_poles[j];
            resid = resid.max((ax - xd).norm());
            size = size.max(xd.norm());
        }
    }
    if resid > 1e-9 * size.max(1.0) {
        return Err(format!("{what}: |(A - B K) X - X diag(poles)| = {resid}").into());
    }
    Ok(())
}

/// `X` against SciPy's column by column: a column of a pole asked for once up to a factor of
/// modulus 1 (a sign for a real pole), one of a repeated pole within the span of SciPy's
/// columns of that pole. Where an update's projection vanishes, SciPy takes a singular vector
/// whose sign is LAPACK's; the gain does not depend on the signs, but with a repeated pole
/// the next update of its columns does, and picks another basis of the pole's space.
fn same_columns(x: &[c64], want: &[f64], poles: &[c64], what: &str) -> TestResult {
    let n = poles.len();
    let col =
        |v: &dyn Fn(usize) -> c64, j: usize| -> Vec<c64> { (0..n).map(|i| v(i * n + j)).collect() };
    let ours = |k: usize| x[k];
    let theirs = |k: usize| c(want[2 * k], want[2 * k + 1]);
    for j in 0..n {
        // An orthonormal basis of SciPy's columns of this pole (Gram-Schmidt).
        let mut basis: Vec<Vec<c64>> = Vec::new();
        for l in (0..n).filter(|&l| poles[l] == poles[j]) {
            let mut v = col(&theirs, l);
            for q in &basis {
                let d: c64 = q.iter().zip(&v).map(|(a, b)| a.conj() * b).sum();
                v.iter_mut().zip(q).for_each(|(a, b)| *a -= d * b);
            }
            let norm = v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
            if norm > 1e-6 {
                basis.push(v.iter().map(|z| z / norm).collect());
            }
        }
        let mut rest = col(&ours, j);
        let size = rest.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        let mut coef = Vec::new();
        for q in &basis {
            let d: c64 = q.iter().zip(&rest).map(|(a, b)| a.conj() * b).sum();
            rest.iter_mut().zip(q).for_each(|(a, b)| *a -= d * b);
            coef.push(d);
        }
        let off = rest.iter().map(|z| z.norm()).fold(0.0, f64::max);
        // A pole asked for once: the one coefficient has SciPy's column's norm.
        let theirs_norm = col(&theirs, j)
            .iter()
            .map(|z| z.norm_sqr())
            .sum::<f64>()
            .sqrt();
        let scale_ok = basis.len() != 1 || (coef[0].norm() - theirs_norm).abs() <= TOL;
        if off > TOL * size.max(1.0) || !scale_ok {
            return Err(format!(
                "{what} X: column {j} is off SciPy's by {off} (coefficients {coef:?})"
            )
            .into());
        }
    }
    Ok(())
}

/// Every case against SciPy's gain, poles, `X` and sweep, and against [`check_placed`].
fn placements(_d: Device) -> TestResult {
    for cs in cases() {
        let what = cs.name;
        let f = place_poles_with(&cs.a, &cs.b, cs.n, cs.m, &cs.poles, cs.opts)?;
        let r = |part: &str| reference(&format!("pp_{what}_{part}"));
        close(
            &flat(&f.requested_poles),
            &r("rp"),
            0.0,
            0.0,
            &format!("{what} requested"),
        )?;
        let k = r("k");
        let kmax = k.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
        close(&f.gain_matrix, &k, 0.0, TOL * kmax, &format!("{what} K"))?;
        let scale = cs.poles.iter().map(|z| z.norm()).fold(1.0, f64::max);
        // As sets: a repeated pole comes out of an eigensolver real or as a conjugate pair
        // with a rounding-level imaginary part, which moves it in SciPy's order.
        let cp: Vec<c64> = r("cp").chunks(2).map(|v| c(v[0], v[1])).collect();
        close(
            &flat(&sorted(&f.computed_poles)),
            &flat(&sorted(&cp)),
            0.0,
            TOL * scale,
            &format!("{what} computed poles"),
        )?;
        same_columns(&f.x, &r("x"), &f.requested_poles, what)?;
        let info = r("info");
        match (f.rtol, f.nb_iter) {
            (None, None) => {
                if !(info[0].is_nan() && info[1].is_nan()) {
                    return Err(format!("{what}: no sweep, but SciPy reports {info:?}").into());
                }
            }
            (Some(rtol), Some(it)) => {
                if it as f64 != info[1] {
                    return Err(format!("{what}: {it} sweeps, SciPy {}", info[1]).into());
                }
                // A change at rounding level is noise on both sides.
                let ok = if info[0] < 1e-12 {
                    rtol < 1e-12
                } else {
                    (rtol - info[0]).abs() <= 1e-3 * info[0]
                };
                if !ok {
                    return Err(format!("{what}: rtol {rtol}, SciPy {}", info[0]).into());
                }
            }
            other => return Err(format!("{what}: sweep {other:?}, SciPy {info:?}").into()),
        }
        // SciPy's runs all converged (it warns otherwise), one input's and full rank's
        // trivially; a negative rtol runs every sweep and never converges.
        if f.converged != (what != "ex1_yt100") {
            return Err(format!("{what}: converged {}", f.converged).into());
        }
        check_placed(&cs, &f)?;
    }
    // The default call is Tits and Yang's with SciPy's defaults.
    let cs = &cases()[1];
    let f = place_poles(&cs.a, &cs.b, cs.n, cs.m, &cs.poles)?;
    close(
        &f.gain_matrix,
        &reference("pp_ex1_yt_k"),
        0.0,
        1e-9,
        "place_poles default",
    )?;
    // Fewer sweeps than needed: the last change is reported, not converged.
    let f = place_poles_with(
        &cs.a,
        &cs.b,
        cs.n,
        cs.m,
        &cs.poles,
        cs.opts.rtol(1e-14).maxiter(2),
    )?;
    if f.converged || f.nb_iter != Some(2) {
        return Err(format!("maxiter 2: converged {} after {:?}", f.converged, f.nb_iter).into());
    }
    check_placed(cs, &f)?;
    Ok(())
}

fn placement_errors(_d: Device) -> TestResult {
    let ia = "InvalidArgument";
    let a = grid(4, 4, |i, j| (0.8 * i * j + 0.4).cos() - 0.2 * i);
    let b = grid(4, 2, |i, j| (0.6 * i - 1.2 * j + 0.5).sin());
    let p = reals(&[-1.0, -2.0, -3.0, -4.0]);
    let knv0 = PlacePolesOpts::new().method(PoleMethod::Knv0);
    // Poles: too few, too many, an unpaired complex one, repeated beyond rank(B), not finite.
    assert_err(
        place_poles(&a, &b, 4, 2, &p[..3]),
        ia,
        "3 poles for 4 states",
    );
    let five = reals(&[-1.0, -2.0, -3.0, -4.0, -5.0]);
    assert_err(place_poles(&a, &b, 4, 2, &five), ia, "5 poles for 4 states");
    let lone = [c(-1.0, 0.0), c(-2.0, 0.0), c(-1.0, 1.0), c(-1.0, -2.0)];
    assert_err(place_poles(&a, &b, 4, 2, &lone), ia, "-1+1i");
    let uneven = [c(-1.0, 0.0), c(-1.0, 1.0), c(-1.0, 1.0), c(-1.0, -1.0)];
    assert_err(
        place_poles(&a, &b, 4, 2, &uneven),
        ia,
        "conjugate -1-1i 1 times",
    );
    let thrice = reals(&[-1.0, -1.0, -1.0, -2.0]);
    assert_err(
        place_poles(&a, &b, 4, 2, &thrice),
        ia,
        "-1+0i is asked for 3 times, more than rank(B) = 2",
    );
    let nan_pole = [c(-1.0, 0.0), c(f64::NAN, 0.0), c(-3.0, 0.0), c(-4.0, 0.0)];
    assert_err(place_poles(&a, &b, 4, 2, &nan_pole), ia, "NaN");
    // Matrices: entries not finite, lengths that do not fit, no states, too many.
    let mut an = a.clone();
    an[5] = f64::NAN;
    assert_err(place_poles(&an, &b, 4, 2, &p), ia, "A has the entry NaN");
    let mut bi = b.clone();
    bi[3] = f64::INFINITY;
    assert_err(place_poles(&a, &bi, 4, 2, &p), ia, "B has the entry inf");
    assert_err(
        place_poles(&a[..15], &b, 4, 2, &p),
        ia,
        "A has 15 entries, but 4 x 4 = 16",
    );
    assert_err(
        place_poles(&a, &b, 4, 3, &p),
        ia,
        "B has 8 entries, but 4 x 3 = 12",
    );
    assert_err(place_poles(&[], &[], 0, 0, &[]), ia, "no states");
    let big = LTI_MAX_ORDER + 1;
    assert_err(
        place_poles(&a, &b, big, 2, &p),
        ia,
        &format!("{big} states"),
    );
    // B of rank 0 (no input, or zeros): no pole can be placed.
    assert_err(place_poles(&a, &[], 4, 0, &p), ia, "more than rank(B) = 0");
    assert_err(
        place_poles(&a, &[0.0; 8], 4, 2, &p),
        ia,
        "more than rank(B) = 0",
    );
    // Options: complex poles for KNV0, no sweep, rtol above 1 or NaN.
    let cp = [c(-1.0, 0.0), c(-2.0, 0.0), c(-1.0, 1.0), c(-1.0, -1.0)];
    assert_err(
        place_poles_with(&a, &b, 4, 2, &cp, knv0),
        ia,
        "KNV0 places real poles only, and -1-1i",
    );
    let o = PlacePolesOpts::new();
    assert_err(
        place_poles_with(&a, &b, 4, 2, &p, o.maxiter(0)),
        ia,
        "maxiter = 0",
    );
    assert_err(
        place_poles_with(&a, &b, 4, 2, &p, o.rtol(1.5)),
        ia,
        "rtol = 1.5",
    );
    assert_err(
        place_poles_with(&a, &b, 4, 2, &p, o.rtol(f64::NAN)),
        ia,
        "rtol = NaN",
    );
    // Dependent columns of B (rank 2 of 3 inputs, 7 states): SciPy's solve has no square
    // system.
    let a7 = grid(7, 7, |i, j| (2.1 * i * j + 0.3 * i - 0.5 * j).cos());
    let b7 = grid(7, 3, |i, j| (0.9 * i + 1.7 * j + 0.1).sin());
    let p7 = reals(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0]);
    assert_err(
        place_poles(&a7, &b7, 7, 3, &p7),
        ia,
        "B has rank 2, below both its 3 columns",
    );
    // Uncontrollable systems (SciPy: "The poles you've chosen can't be placed").
    let diag2 = [1.0, 0.0, 0.0, 2.0];
    assert_err(
        place_poles(&diag2, &[1.0, 0.0], 2, 1, &reals(&[-1.0, -2.0])),
        ia,
        "cannot be placed",
    );
    let diag3 = [1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0];
    let b3 = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    assert_err(
        place_poles(&diag3, &b3, 3, 2, &reals(&[-1.0, -2.0, -3.0])),
        ia,
        "cannot be placed",
    );
    Ok(())
}

/// Random small systems (up to six states), poles (real, complex pairs, repeats) and options:
/// every call returns `Ok` or an `InvalidArgument`, and every `Ok` has a finite gain whose
/// closed loop has the requested eigenvalues (to a tolerance for ill-conditioned draws).
fn random_placements(_d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let mut u =
        |lo: f64, hi: f64| lo + (hi - lo) * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let (mut ok, mut err) = (0, 0);
    for t in 0..300 {
        let n = 1 + (u(0.0, 6.0) as usize).min(5);
        let m = 1 + (u(0.0, n as f64 + 1.0) as usize).min(n);
        let a: Vec<f64> = (0..n * n).map(|_| u(-2.0, 2.0)).collect();
        let b: Vec<f64> = (0..n * m).map(|_| u(-2.0, 2.0)).collect();
        let mut poles = Vec::new();
        while poles.len() < n {
            let re = u(-5.0, -0.1);
            if poles.len() + 1 < n && u(0.0, 1.0) < 0.4 {
                let im = u(0.1, 3.0);
                poles.extend([c(re, im), c(re, -im)]);
            } else if !poles.is_empty() && u(0.0, 1.0) < 0.2 {
                poles.push(poles[0]);
            } else {
                poles.push(c(re, 0.0));
            }
        }
        let method = if t % 3 == 0 {
            PoleMethod::Knv0
        } else {
            PoleMethod::Yt
        };
        let opts = PlacePolesOpts::new().method(method).maxiter(1 + t % 7);
        match place_poles_with(&a, &b, n, m, &poles, opts) {
            Ok(f) => {
                ok += 1;
                let finite = f.gain_matrix.iter().all(|v| v.is_finite());
                if !finite || f.gain_matrix.len() != n * m || f.computed_poles.len() != n {
                    return Err(format!("system {t}: {f:?}").into());
                }
                let abk = closed_loop(&a, &b, &f.gain_matrix, n, m);
                let w = linalg::eigvals(&Array::from_slice_on(Device::CPU, &abk, &[n, n])?)?
                    .to_vec()?;
                let size = abk.iter().fold(1.0f64, |acc, v| acc.max(v.abs()));
                let (gw, pw) = (sorted(&w), sorted(&poles));
                let dev = gw
                    .iter()
                    .zip(&pw)
                    .map(|(x, y)| (x - y).norm())
                    .fold(0.0, f64::max)
                    / size;
                // Random poles repeat and random systems are ill conditioned: 12000 draws
                // stayed below 4e-8; a wrong gain is off by O(1).
                if dev > 1e-4 {
                    return Err(format!("system {t}: eigenvalues {gw:?}, asked {pw:?}").into());
                }
            }
            Err(e) => {
                err += 1;
                if !matches!(e, cuprite_array::Error::InvalidArgument(_)) {
                    return Err(format!("system {t}: {e:?}").into());
                }
            }
        }
    }
    if ok < 100 {
        return Err(format!("only {ok} of {} random placements succeeded", ok + err).into());
    }
    Ok(())
}

/// `abcd_normalize` against SciPy: each matrix's shape, then its entries, as the reference
/// line lays them out.
fn abcd(_d: Device) -> TestResult {
    let flat_sys = |s: &cuprite_array::signal::StateSpace| -> Vec<f64> {
        let (n, m, p) = (s.states as f64, s.inputs as f64, s.outputs as f64);
        let mut v = vec![n, n, n, m, p, n, p, m];
        for mat in [&s.a, &s.b, &s.c, &s.d] {
            v.extend(mat.iter());
        }
        v
    };
    let s = abcd_normalize(
        Some((&[1.0, 2.0, 3.0, 4.0], 2, 2)),
        Some((&[-1.0, 5.0], 2, 1)),
        None,
        Some((&[2.5], 1, 1)),
    )?;
    close(&flat_sys(&s), &reference("abcd_doc"), 0.0, 0.0, "abcd doc")?;
    // A given with no entries counts as left out.
    let cm = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let s = abcd_normalize(
        Some((&[], 0, 3)),
        Some((&[-1.0, 5.0], 2, 1)),
        Some((&cm, 3, 2)),
        None,
    )?;
    close(
        &flat_sys(&s),
        &reference("abcd_empty_a"),
        0.0,
        0.0,
        "abcd empty A",
    )?;
    let bm = [-1.0, 2.0, 5.0, 3.0, 1.0, 1.0];
    let s = abcd_normalize(
        None,
        Some((&bm, 3, 2)),
        Some((&[1.0, 2.0, 3.0], 1, 3)),
        None,
    )?;
    close(
        &flat_sys(&s),
        &reference("abcd_bc"),
        0.0,
        0.0,
        "abcd B and C",
    )?;
    let ia = "InvalidArgument";
    let d1: Option<(&[f64], usize, usize)> = Some((&[1.0], 1, 1));
    assert_err(
        abcd_normalize(None, None, None, d1),
        ia,
        "number of states is unknown",
    );
    let a2: Option<(&[f64], usize, usize)> = Some((&[1.0, 2.0, 3.0, 4.0], 2, 2));
    assert_err(
        abcd_normalize(a2, None, Some((&[1.0, 1.0], 1, 2)), None),
        ia,
        "number of inputs",
    );
    assert_err(
        abcd_normalize(a2, Some((&[1.0, 1.0], 2, 1)), None, None),
        ia,
        "number of outputs",
    );
    // Shapes that do not fit the dimensions found.
    assert_err(
        abcd_normalize(a2, Some((&[1.0, 1.0, 1.0], 3, 1)), None, d1),
        ia,
        "B is 3 x 1, but 2 x 1 for 2 states, 1 inputs and 1 outputs",
    );
    assert_err(
        abcd_normalize(
            a2,
            Some((&[1.0, 1.0], 2, 1)),
            None,
            Some((&[1.0, 1.0], 1, 2)),
        ),
        ia,
        "D is 1 x 2, but 1 x 1",
    );
    assert_err(
        abcd_normalize(Some((&[1.0; 6], 2, 3)), Some((&[1.0, 1.0], 2, 1)), None, d1),
        ia,
        "A is 2 x 3, but 2 x 2",
    );
    // Entries that are not rows x columns, dimensions too large, entries not finite.
    assert_err(
        abcd_normalize(Some((&[1.0; 3], 2, 2)), None, None, d1),
        ia,
        "A has 3 entries, but 2 x 2 = 4",
    );
    let big = LTI_MAX_ORDER + 1;
    assert_err(
        abcd_normalize(Some((&[], big, 0)), None, None, d1),
        ia,
        &format!("A is {big} x 0"),
    );
    assert_err(
        abcd_normalize(
            Some((&[1.0, f64::NAN, 3.0, 4.0], 2, 2)),
            Some((&[1.0, 1.0], 2, 1)),
            None,
            d1,
        ),
        ia,
        "A has the entry NaN",
    );
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let host: &[(&str, Body)] = &[
        ("place_poles_scipy", placements),
        ("place_poles_errors", placement_errors),
        ("place_poles_random", random_placements),
        ("abcd_normalize", abcd),
    ];
    host.iter()
        .map(|&(name, body)| {
            Test::cpu(format!("cpu::signal_poles::{name}"), move || {
                body(Device::CPU)
            })
        })
        .collect()
}
