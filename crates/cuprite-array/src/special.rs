//! Special functions the standard library lacks (erf, erfc, lgamma, tgamma), in `f64`.
//!
//! Accurate to about 1e-14 relative, which is well inside the tolerance GPU results are checked
//! with (CUDA's own implementations are within a few ulp).

const LANCZOS_G: f64 = 7.0;
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// log |Γ(x)|.
pub fn lgamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    if x <= 0.0 && x == x.floor() {
        return f64::INFINITY;
    }
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1-x) = π / sin(πx).
        let s = (std::f64::consts::PI * x).sin().abs();
        return std::f64::consts::PI.ln() - s.ln() - lgamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = LANCZOS[0];
    let t = x + LANCZOS_G + 0.5;
    for (i, c) in LANCZOS.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Γ(x).
pub fn tgamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if x < 0.0 && x == x.floor() {
        return f64::NAN;
    }
    if x < 0.5 {
        return std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * tgamma(1.0 - x));
    }
    if x > 171.7 {
        return f64::INFINITY;
    }
    // Small positive integers exactly.
    if x == x.floor() && x <= 30.0 {
        let mut p = 1.0;
        let mut k = 2.0;
        while k < x {
            p *= k;
            k += 1.0;
        }
        return p;
    }
    let x1 = x - 1.0;
    let mut a = LANCZOS[0];
    let t = x1 + LANCZOS_G + 0.5;
    for (i, c) in LANCZOS.iter().enumerate().skip(1) {
        a += c / (x1 + i as f64);
    }
    (2.0 * std::f64::consts::PI).sqrt() * t.powf(x1 + 0.5) * (-t).exp() * a
}

/// The error function.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    if ax < 2.0 {
        // Maclaurin series.
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -x2 / n;
            let add = term / (2.0 * n + 1.0);
            sum += add;
            // `<=`: at x = 0 every term is 0 and `<` would never hold.
            if add.abs() <= 1e-17 * sum.abs() {
                break;
            }
        }
        sum * std::f64::consts::FRAC_2_SQRT_PI
    } else {
        let c = erfc_cf(ax);
        if x > 0.0 { 1.0 - c } else { c - 1.0 }
    }
}

/// The complementary error function, 1 - erf(x), accurate for large x.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 2.0 {
        if x > -2.0 {
            return 1.0 - erf(x);
        }
        return 2.0 - erfc_cf(-x);
    }
    erfc_cf(x)
}

/// erfc(x) for x ≥ 2 by the continued fraction (modified Lentz).
fn erfc_cf(x: f64) -> f64 {
    if x > 27.3 {
        return 0.0;
    }
    // erfc(x) = exp(-x²)/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + 2/(x + ...)))))
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..300 {
        let a = k as f64 * 0.5;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (f * std::f64::consts::PI.sqrt())
}
