//! Elliptic integrals and Jacobi elliptic functions in `f64`, as the elliptic filter design
//! needs them. Every function takes the modulus `k` together with its complement
//! `kp = sqrt(1 - k^2)`, each computed where it is accurate, so that moduli near 0 and near 1
//! lose no digits to `1 - k^2`.
//!
//! - [`ellipk`]: the complete integral of the first kind, `K(k) = pi / (2 agm(1, k'))`.
//! - [`ellipf`]: the incomplete integral `F(phi, k)` by Carlson's `R_F` duplication.
//! - [`sncndn`]: `sn`, `cn`, `dn` of a real argument by the descending AGM (Abramowitz and
//!   Stegun 16.4).
//! - [`modulus_of_ratio`]: the modulus whose `K'/K` is given, from the nome's theta series.

use std::f64::consts::PI;

/// The arithmetic-geometric mean of `a` and `b` (both `>= 0`).
fn agm(mut a: f64, mut b: f64) -> f64 {
    // Each step at least halves the relative gap; 64 steps exceed any f64 input's need.
    for _ in 0..64 {
        if (a - b).abs() <= f64::EPSILON * a {
            break;
        }
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    a
}

/// The complete elliptic integral of the first kind `K(k)` from the complement `kp` of the
/// modulus (`kp > 0`).
pub(super) fn ellipk(kp: f64) -> f64 {
    PI / (2.0 * agm(1.0, kp))
}

/// Carlson's symmetric integral `R_F(x, y, z)` (at most one argument 0) by duplication,
/// stopped when the arguments agree to `1e-3` relative, where the fifth-order series' error
/// is below `1e-18`.
fn carlson_rf(mut x: f64, mut y: f64, mut z: f64) -> f64 {
    for _ in 0..200 {
        let a = (x + y + z) / 3.0;
        let (dx, dy, dz) = (1.0 - x / a, 1.0 - y / a, 1.0 - z / a);
        if dx.abs().max(dy.abs()).max(dz.abs()) < 1e-3 {
            let e2 = dx * dy - dz * dz;
            let e3 = dx * dy * dz;
            return (1.0 - e2 / 10.0 + e3 / 14.0 + e2 * e2 / 24.0 - 3.0 * e2 * e3 / 44.0)
                / a.sqrt();
        }
        let (sx, sy, sz) = (x.sqrt(), y.sqrt(), z.sqrt());
        let l = sx * sy + sy * sz + sz * sx;
        (x, y, z) = ((x + l) / 4.0, (y + l) / 4.0, (z + l) / 4.0);
    }
    // Unreached for finite arguments: the spread shrinks fourfold a step.
    1.0 / ((x + y + z) / 3.0).sqrt()
}

/// The incomplete elliptic integral of the first kind `F(phi, k)` for `0 <= phi <= pi / 2`,
/// with `kp` the complement of `k`: `sin(phi) R_F(cos^2 phi, cos^2 phi + kp^2 sin^2 phi, 1)`
/// (the middle argument is `1 - k^2 sin^2 phi`, written so that it keeps its digits as `k`
/// nears 1).
pub(super) fn ellipf(phi: f64, kp: f64) -> f64 {
    let (s, c) = phi.sin_cos();
    s * carlson_rf(c * c, c * c + kp * kp * s * s, 1.0)
}

/// `(sn, cn, dn)` of the real argument `u` with modulus `k` (complement `kp`), by the
/// descending arithmetic-geometric mean: `a_0 = 1`, `b_0 = k'`, `c_0 = k`, until `c_N` is
/// negligible; `phi_N = 2^N a_N u`, `phi_{n-1} = (phi_n + asin(c_n sin(phi_n) / a_n)) / 2`;
/// then `sn = sin(phi_0)`, `cn = cos(phi_0)`, `dn = cos(phi_0) / cos(phi_1 - phi_0)`.
pub(super) fn sncndn(u: f64, k: f64, kp: f64) -> (f64, f64, f64) {
    if k == 0.0 {
        let (s, c) = u.sin_cos();
        return (s, c, 1.0);
    }
    let mut a = vec![1.0];
    let mut c = vec![k];
    let mut b = kp;
    while c.len() < 64 && c[c.len() - 1].abs() > f64::EPSILON * a[a.len() - 1] {
        let (an, cn) = (a[a.len() - 1], b);
        a.push((an + cn) / 2.0);
        c.push((an - cn) / 2.0);
        b = (an * cn).sqrt();
    }
    let steps = a.len() - 1;
    let mut phi = (steps as f64).exp2() * a[steps] * u;
    let mut above = phi;
    for n in (1..=steps).rev() {
        above = phi;
        phi = (phi + (c[n] * phi.sin() / a[n]).clamp(-1.0, 1.0).asin()) / 2.0;
    }
    let (s, cs) = phi.sin_cos();
    let dn = if steps == 0 {
        1.0
    } else {
        cs / (above - phi).cos()
    };
    (s, cs, dn)
}

/// The sums `theta_2(q)^2 / theta_3(q)^2` of the nome `q` in `[0, exp(-pi)]`: the modulus whose
/// nome is `q`. `theta_2 = 2 q^(1/4) sum_{m >= 0} q^(m (m + 1))`, `theta_3 = 1 + 2 sum_{m >= 1}
/// q^(m^2)`; at these nomes a dozen terms reach the last digit.
fn modulus_of_nome(q: f64) -> f64 {
    let (mut t2, mut t3) = (0.0, 1.0);
    for m in 0..40 {
        let m = m as f64;
        let a = q.powf(m * (m + 1.0));
        let b = q.powf((m + 1.0) * (m + 1.0));
        t2 += a;
        t3 += 2.0 * b;
        if a < 1e-18 * t2 && b < 1e-18 {
            break;
        }
    }
    4.0 * q.sqrt() * t2 * t2 / (t3 * t3)
}

/// The modulus `k` and its complement `k'` whose quarter periods have the ratio `K'/K =
/// ratio` (`ratio > 0`): from the nome `q = exp(-pi ratio)` where `ratio >= 1`, else from the
/// complementary nome `exp(-pi / ratio)` (which gives `k'`), so that both series converge fast
/// and the smaller of `k`, `k'` is the one computed from its series.
pub(super) fn modulus_of_ratio(ratio: f64) -> (f64, f64) {
    if ratio >= 1.0 {
        let k = modulus_of_nome((-PI * ratio).exp());
        (k, ((1.0 - k) * (1.0 + k)).sqrt())
    } else {
        let kp = modulus_of_nome((-PI / ratio).exp());
        (((1.0 - kp) * (1.0 + kp)).sqrt(), kp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `K(k)` by the midpoint rule on `int_0^{pi/2} dt / sqrt(1 - k^2 sin^2 t)` (smooth and
    /// periodic, so the rule converges geometrically).
    fn k_by_quadrature(k: f64) -> f64 {
        let n = 4000;
        let h = PI / 2.0 / n as f64;
        (0..n)
            .map(|i| {
                let t = (i as f64 + 0.5) * h;
                h / (1.0 - k * k * t.sin().powi(2)).sqrt()
            })
            .sum()
    }

    #[test]
    fn complete_integral_matches_quadrature() {
        for k in [0.0f64, 0.1, 0.5, 0.9, 0.99] {
            let kp = ((1.0 - k) * (1.0 + k)).sqrt();
            let (got, want) = (ellipk(kp), k_by_quadrature(k));
            assert!(
                (got - want).abs() < 1e-13 * want,
                "K({k}) = {got}, want {want}"
            );
        }
        // K(0) = pi / 2 exactly.
        assert!((ellipk(1.0) - PI / 2.0).abs() < 1e-15);
    }

    #[test]
    fn incomplete_integral_ends_at_the_complete_one() {
        for k in [0.2f64, 0.7, 0.999] {
            let kp = ((1.0 - k) * (1.0 + k)).sqrt();
            let f = ellipf(PI / 2.0, kp);
            assert!((f - ellipk(kp)).abs() < 1e-13 * f, "F(pi/2, {k}) = {f}");
        }
        // F(phi, 0) = phi.
        assert!((ellipf(0.7, 1.0) - 0.7).abs() < 1e-15);
    }

    #[test]
    fn jacobi_functions_invert_the_integral() {
        // sn(F(phi, k), k) = sin(phi), cn = cos(phi), dn = sqrt(1 - k^2 sin^2 phi).
        for k in [0.0f64, 0.3, 0.8, 0.9999] {
            let kp = ((1.0 - k) * (1.0 + k)).sqrt();
            for phi in [0.1, 0.6, 1.2, 1.5] {
                let u = ellipf(phi, kp);
                let (s, c, d) = sncndn(u, k, kp);
                let want_d = (1.0 - k * k * phi.sin().powi(2)).sqrt();
                assert!((s - phi.sin()).abs() < 1e-13, "sn at k {k}, phi {phi}: {s}");
                assert!((c - phi.cos()).abs() < 1e-13, "cn at k {k}, phi {phi}: {c}");
                assert!((d - want_d).abs() < 1e-13, "dn at k {k}, phi {phi}: {d}");
            }
        }
    }

    #[test]
    fn modulus_has_the_ratio_asked_for() {
        for ratio in [0.05, 0.4, 1.0, 2.5, 9.0] {
            let (k, kp) = modulus_of_ratio(ratio);
            let got = ellipk(k) / ellipk(kp);
            assert!(
                (got - ratio).abs() < 1e-12 * ratio,
                "K'/K = {got}, want {ratio}"
            );
            assert!((k * k + kp * kp - 1.0).abs() < 1e-15);
        }
    }
}
