//! Partial fractions of transfer functions (SciPy's `residue`, `residuez`, `invres`,
//! `invresz` and `unique_roots`), on the host in complex `f64`.
//!
//! `b(s) / a(s) = sum_i sum_(j=1..m_i) r_ij / (s - p_i)^j + k(s)` (descending powers of `s`,
//! [`residue`]), or in `z^-1`: `b(z) / a(z) = sum_i sum_j r_ij / (1 - p_i z^-1)^j + k(z^-1)`
//! ([`residuez`]). Poles within a tolerance of each other are one pole of higher
//! multiplicity ([`unique_roots`]). The residues of a pole of multiplicity `m` are the first
//! `m` Taylor coefficients of `b / f` at it (`f` the denominator without that pole), found by
//! repeated synthetic division, as SciPy finds them.

use super::convert::{check_poly, check_roots, roots_of};
use crate::dtype::c64;
use crate::error::{Error, Result};

/// Which member stands for a group of nearly equal roots in [`unique_roots`] and the
/// partial-fraction calls (SciPy's `rtype`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RootType {
    /// The smallest, comparing real parts, then imaginary parts (NumPy's complex order; SciPy's
    /// `'min'`, the default of `unique_roots`).
    #[default]
    Min,
    /// The largest in the same order (`'max'`).
    Max,
    /// The mean (`'avg'`, the default of `residue` and `residuez`).
    Avg,
}

/// A partial-fraction expansion: the residues, the poles they belong to (a pole of
/// multiplicity `m` repeated `m` times, its residues for the powers `1..=m` in order) and the
/// direct polynomial term `k` (empty when the function is strictly proper).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartialFractions {
    /// The residues.
    pub residues: Vec<c64>,
    /// The poles, one for each residue.
    pub poles: Vec<c64>,
    /// The direct term's coefficients: descending powers of `s` ([`residue`]) or ascending
    /// powers of `z^-1` ([`residuez`]).
    pub direct: Vec<f64>,
}

/// NumPy's order of complex values: by real part, then imaginary part.
fn lex(a: &c64, b: &c64) -> std::cmp::Ordering {
    a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im))
}

/// A tolerance, checked non-negative and finite.
fn check_tol(what: &str, tol: f64) -> Result<()> {
    if !(tol >= 0.0 && tol.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "{what}: the tolerance tol = {tol} must be non-negative and finite"
        )));
    }
    Ok(())
}

/// The groups of `p` (unchecked): for each root not yet taken, in order, every root not yet
/// taken within `tol` of it (Euclidean distance, itself included), reduced by `rtype`.
fn group(p: &[c64], tol: f64, rtype: RootType) -> (Vec<c64>, Vec<usize>) {
    let mut used = vec![false; p.len()];
    let (mut unique, mut mult) = (Vec::new(), Vec::new());
    for i in 0..p.len() {
        if used[i] {
            continue;
        }
        let members: Vec<usize> = (i..p.len())
            .filter(|&j| !used[j] && (p[j] - p[i]).norm() <= tol)
            .collect();
        let vals = members.iter().map(|&j| p[j]);
        let rep = match rtype {
            RootType::Min => vals.min_by(lex),
            RootType::Max => vals.max_by(lex),
            RootType::Avg => Some(vals.sum::<c64>() / members.len() as f64),
        };
        for &j in &members {
            used[j] = true;
        }
        unique.push(rep.unwrap_or(p[i]));
        mult.push(members.len());
    }
    (unique, mult)
}

/// The distinct roots of `p` and their multiplicities (SciPy's `unique_roots(p, tol,
/// rtype)`): taking the roots in order, each one not yet grouped gathers every root not yet
/// grouped within `tol` of it (Euclidean distance in the complex plane), and the group is
/// represented by its `rtype` member.
///
/// # Errors
/// A root not finite, more than `LTI_MAX_ORDER` roots, `tol` negative or not finite. Each
/// named.
///
/// ```
/// use cuprite_array::{c64, signal::{RootType, unique_roots}};
/// let p = [c64::new(1.0, 0.0), c64::new(2.0, 0.0), c64::new(1.0005, 0.0)];
/// let (u, m) = unique_roots(&p, 1e-3, RootType::Max)?;
/// assert_eq!((u, m), (vec![c64::new(1.0005, 0.0), c64::new(2.0, 0.0)], vec![2, 1]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn unique_roots(p: &[c64], tol: f64, rtype: RootType) -> Result<(Vec<c64>, Vec<usize>)> {
    check_roots("unique_roots", "roots", p)?;
    check_tol("unique_roots", tol)?;
    Ok(group(p, tol, rtype))
}

/// The product of two complex polynomials (descending powers).
fn mul(x: &[c64], y: &[c64]) -> Vec<c64> {
    let mut out = vec![c64::new(0.0, 0.0); x.len() + y.len() - 1];
    for (i, &u) in x.iter().enumerate() {
        for (j, &v) in y.iter().enumerate() {
            out[i + j] += u * v;
        }
    }
    out
}

/// `(q, c(p))` with `c(x) = q(x) (x - p) + c(p)`: synthetic division by `x - p` (Horner).
fn deflate(c: &[c64], p: c64) -> (Vec<c64>, c64) {
    let mut q = Vec::with_capacity(c.len().saturating_sub(1));
    let mut acc = c64::new(0.0, 0.0);
    for (i, &v) in c.iter().enumerate() {
        acc = acc * p + v;
        if i + 1 < c.len() {
            q.push(acc);
        }
    }
    (q, acc)
}

/// `prod (x - p_i)^(m_i)` over the given poles.
fn pole_poly<'a>(poles: impl Iterator<Item = (&'a c64, &'a usize)>) -> Vec<c64> {
    let mut out = vec![c64::new(1.0, 0.0)];
    for (&p, &m) in poles {
        for _ in 0..m {
            out = mul(&out, &[c64::new(1.0, 0.0), -p]);
        }
    }
    out
}

/// The residues of `num / prod (x - p_i)^(m_i)` at each pole, for the powers `1..=m_i` in
/// order.
fn residues_at(poles: &[c64], mult: &[usize], num: &[c64]) -> Vec<c64> {
    let mut out = Vec::with_capacity(mult.iter().sum());
    for (i, (&p, &m)) in poles.iter().zip(mult).enumerate() {
        // The denominator without this pole: f = g (x - p) + f(p).
        let others = poles.iter().zip(mult).enumerate().filter(|&(j, _)| j != i);
        let f = pole_poly(others.map(|(_, pm)| pm));
        let (g, fp) = deflate(&f, p);
        // Taylor coefficients of num / f at p: c_0 = num(p) / f(p); then num <- (num - c_0
        // f) / (x - p) = q - c_0 g, whose value at p gives c_1; ... They are the residues of
        // the powers m, m - 1, ..., 1.
        let mut numer = num.to_vec();
        let mut block = Vec::with_capacity(m);
        for _ in 0..m {
            let (q, np) = deflate(&numer, p);
            let r = np / fp;
            // q - r g, aligned at the constant term.
            let len = q.len().max(g.len());
            let mut next = vec![c64::new(0.0, 0.0); len];
            for (k, &v) in q.iter().enumerate() {
                next[len - q.len() + k] += v;
            }
            for (k, &v) in g.iter().enumerate() {
                next[len - g.len() + k] -= r * v;
            }
            numer = if next.is_empty() {
                vec![c64::new(0.0, 0.0)]
            } else {
                next
            };
            block.push(r);
        }
        out.extend(block.into_iter().rev());
    }
    out
}

/// Polynomial long division `u / v` (descending powers, `v[0] != 0`, `u` at least as long):
/// the quotient and the remainder, whose leading coefficients of magnitude at most `1e-8`
/// are dropped (NumPy's `polydiv`, one kept).
fn polydiv(u: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut r = u.to_vec();
    let nq = u.len() - v.len() + 1;
    let mut q = vec![0.0; nq];
    for k in 0..nq {
        let d = r[k] / v[0];
        q[k] = d;
        for (j, &vj) in v.iter().enumerate() {
            r[k + j] -= d * vj;
        }
    }
    let mut rem = r[nq..].to_vec();
    if rem.is_empty() {
        rem.push(0.0);
    }
    let lead = rem
        .iter()
        .position(|v| v.abs() > 1e-8)
        .unwrap_or(rem.len() - 1);
    (q, rem[lead..].to_vec())
}

/// The unique poles sorted by magnitude, ties (conjugates) with the positive imaginary part
/// first, with their multiplicities.
fn sorted_groups(poles: &[c64], tol: f64, rtype: RootType) -> (Vec<c64>, Vec<usize>) {
    let (u, m) = group(poles, tol, rtype);
    let mut idx: Vec<usize> = (0..u.len()).collect();
    idx.sort_by(|&i, &j| {
        u[i].norm()
            .total_cmp(&u[j].norm())
            .then(u[j].im.total_cmp(&u[i].im))
    });
    (
        idx.iter().map(|&i| u[i]).collect(),
        idx.iter().map(|&i| m[i]).collect(),
    )
}

/// Each pole repeated as often as its multiplicity.
fn repeated(u: &[c64], m: &[usize]) -> Vec<c64> {
    u.iter()
        .zip(m)
        .flat_map(|(&p, &k)| std::iter::repeat_n(p, k))
        .collect()
}

/// `b` and `a` for `what`, checked ([`check_poly`]) and trimmed of zeros at the end `trim`
/// picks (leading: `true`); `None` for `b` all zeros.
fn trimmed(what: &str, b: &[f64], a: &[f64], leading: bool) -> Result<(Vec<f64>, Vec<f64>)> {
    check_poly(what, "numerator", b)?;
    check_poly(what, "denominator", a)?;
    let trim = |c: &[f64]| -> Vec<f64> {
        if leading {
            let i = c.iter().position(|&v| v != 0.0).unwrap_or(c.len());
            c[i..].to_vec()
        } else {
            let i = c.iter().rposition(|&v| v != 0.0).map_or(0, |i| i + 1);
            c[..i].to_vec()
        }
    };
    let (b, a) = (trim(b), trim(a));
    if a.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what}: the denominator has no non-zero coefficient"
        )));
    }
    Ok((b, a))
}

/// The expansion of a zero numerator: no residue at each pole (grouped and ordered as the
/// others are), no direct term.
fn zero_numerator(poles: &[c64]) -> PartialFractions {
    let (u, m) = sorted_groups(poles, 0.0, RootType::Min);
    let poles = repeated(&u, &m);
    PartialFractions {
        residues: vec![c64::new(0.0, 0.0); poles.len()],
        poles,
        direct: Vec::new(),
    }
}

/// The partial-fraction expansion of `b(s) / a(s)` (descending powers of `s`; SciPy's
/// `residue(b, a, tol, rtype)`): the poles (the roots of `a`, grouped by
/// [`unique_roots`] with `tol` and `rtype` into poles of higher multiplicity, each repeated
/// as often), sorted by magnitude (conjugates with the positive imaginary part first), the
/// residues of each for the powers `1..=m`, and the quotient of `b / a` as the direct term.
/// A numerator of zeros has zero residues and no direct term.
///
/// # Errors
/// `b` or `a` empty, `a` all zeros, a coefficient not finite, more than
/// `LTI_MAX_ORDER` + 1 coefficients, `tol` negative or not finite. Each named.
///
/// ```
/// use cuprite_array::signal::{RootType, residue};
/// // (s + 3) / (s^2 + 3 s + 2) = 2 / (s + 1) - 1 / (s + 2).
/// let f = residue(&[1.0, 3.0], &[1.0, 3.0, 2.0], 1e-3, RootType::Avg)?;
/// assert!((f.poles[0].re + 1.0).abs() < 1e-12 && (f.residues[0].re - 2.0).abs() < 1e-12);
/// assert!((f.poles[1].re + 2.0).abs() < 1e-12 && (f.residues[1].re + 1.0).abs() < 1e-12);
/// assert!(f.direct.is_empty());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn residue(b: &[f64], a: &[f64], tol: f64, rtype: RootType) -> Result<PartialFractions> {
    let what = "residue";
    check_tol(what, tol)?;
    let (b, a) = trimmed(what, b, a, true)?;
    let poles = roots_of(&a)?;
    if b.is_empty() {
        return Ok(zero_numerator(&poles));
    }
    let (k, rem) = if b.len() < a.len() {
        (Vec::new(), b)
    } else {
        polydiv(&b, &a)
    };
    let (u, m) = sorted_groups(&poles, tol, rtype);
    let num: Vec<c64> = rem.iter().map(|&v| c64::new(v, 0.0)).collect();
    let residues = residues_at(&u, &m, &num)
        .into_iter()
        .map(|r| r / a[0])
        .collect();
    Ok(PartialFractions {
        residues,
        poles: repeated(&u, &m),
        direct: k,
    })
}

/// The partial-fraction expansion of `b(z) / a(z)` in powers of `z^-1` (ascending: `b[0] +
/// b[1] z^-1 + ...`; SciPy's `residuez(b, a, tol, rtype)`): `sum r_ij / (1 - p_i z^-1)^j +
/// k(z^-1)`, the poles grouped and ordered as [`residue`]'s, the direct term ascending in
/// `z^-1`. Trailing zeros of `b` and `a` are dropped first.
///
/// # Errors
/// `b` or `a` empty, `a` all zeros or `a[0] == 0`, a coefficient not finite, more than
/// `LTI_MAX_ORDER` + 1 coefficients, `tol` negative or not finite. Each named.
///
/// ```
/// use cuprite_array::signal::{RootType, residuez};
/// // 1 / (1 - 0.5 z^-1): the residue 1 at the pole 0.5.
/// let f = residuez(&[1.0], &[1.0, -0.5], 1e-3, RootType::Avg)?;
/// assert!((f.residues[0].re - 1.0).abs() < 1e-15 && (f.poles[0].re - 0.5).abs() < 1e-15);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn residuez(b: &[f64], a: &[f64], tol: f64, rtype: RootType) -> Result<PartialFractions> {
    let what = "residuez";
    check_tol(what, tol)?;
    let (b, a) = trimmed(what, b, a, false)?;
    if a[0] == 0.0 {
        return Err(Error::InvalidArgument(format!(
            "{what}: the denominator {a:?} must have a[0] != 0"
        )));
    }
    let poles = roots_of(&a)?;
    if b.is_empty() {
        return Ok(zero_numerator(&poles));
    }
    let b_rev: Vec<f64> = b.iter().rev().copied().collect();
    let a_rev: Vec<f64> = a.iter().rev().copied().collect();
    let (k_rev, rem) = if b_rev.len() < a_rev.len() {
        (Vec::new(), b_rev)
    } else {
        polydiv(&b_rev, &a_rev)
    };
    let (u, m) = sorted_groups(&poles, tol, rtype);
    let inv: Vec<c64> = u.iter().map(|p| p.inv()).collect();
    let num: Vec<c64> = rem.iter().map(|&v| c64::new(v, 0.0)).collect();
    let raw = residues_at(&inv, &m, &num);
    let poles = repeated(&u, &m);
    // The power j of each residue's pole: 1..=m within each group.
    let powers = m.iter().flat_map(|&k| 1..=k);
    let residues = raw
        .iter()
        .zip(&poles)
        .zip(powers)
        .map(|((&r, &p), j)| r * (-p).powi(j as i32) / a_rev[0])
        .collect();
    Ok(PartialFractions {
        residues,
        poles,
        direct: k_rev.into_iter().rev().collect(),
    })
}

/// The poles for the inverse expansions: consecutive runs of poles within `tol` of the run's
/// first, each run one pole (its first) of the run's length as multiplicity. SciPy's
/// `_group_poles` keeps the first whatever its `rtype` (each run's members are recorded as
/// the first), so no `rtype` is taken here.
fn runs(p: &[c64], tol: f64) -> (Vec<c64>, Vec<usize>) {
    let (mut u, mut m): (Vec<c64>, Vec<usize>) = (Vec::new(), Vec::new());
    for &v in p {
        match u.last() {
            Some(&first) if (v - first).norm() <= tol => {
                if let Some(last) = m.last_mut() {
                    *last += 1;
                }
            }
            _ => {
                u.push(v);
                m.push(1);
            }
        }
    }
    (u, m)
}

/// The checks of the inverse expansions: residues and poles as many, finite, at most
/// `LTI_MAX_ORDER`; the direct term finite and at most `LTI_MAX_ORDER` + 1 long; `tol`.
fn check_inverse(what: &str, r: &[c64], p: &[c64], k: &[f64], tol: f64) -> Result<()> {
    check_roots(what, "residues", r)?;
    check_roots(what, "poles", p)?;
    if r.len() != p.len() {
        return Err(Error::InvalidArgument(format!(
            "{what}: {} residues for {} poles; each pole takes one",
            r.len(),
            p.len()
        )));
    }
    if !k.is_empty() {
        check_poly(what, "direct term", k)?;
    }
    check_tol(what, tol)
}

/// `D(x) / (x - p_i)^j` for each residue's pole and power (`D` the whole denominator), in the
/// residues' order, and `D`.
fn factors(u: &[c64], m: &[usize]) -> (Vec<Vec<c64>>, Vec<c64>) {
    let den = pole_poly(u.iter().zip(m));
    let mut out = Vec::with_capacity(m.iter().sum());
    for (i, (&p, &k)) in u.iter().zip(m).enumerate() {
        let others = pole_poly(
            u.iter()
                .zip(m)
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, pm)| pm),
        );
        // (x - p)^(k - j) times the others, for j = 1..=k.
        let mut powers = Vec::with_capacity(k);
        let mut cur = vec![c64::new(1.0, 0.0)];
        for _ in 0..k {
            let next = mul(&cur, &[c64::new(1.0, 0.0), -p]);
            powers.push(std::mem::replace(&mut cur, next));
        }
        for j in 1..=k {
            out.push(mul(&others, &powers[k - j]));
        }
    }
    (out, den)
}

/// Adds `y` to `x`, both aligned at their last coefficient, into the longer.
fn add_right(x: Vec<c64>, y: &[c64]) -> Vec<c64> {
    let len = x.len().max(y.len());
    let mut out = vec![c64::new(0.0, 0.0); len];
    for (i, &v) in x.iter().enumerate() {
        out[len - x.len() + i] += v;
    }
    for (i, &v) in y.iter().enumerate() {
        out[len - y.len() + i] += v;
    }
    out
}

/// The transfer function `(b, a)` (descending powers of `s`, complex) of the partial
/// fractions `r`, `p` and direct term `k` (SciPy's `invres(r, p, k, tol)`): consecutive
/// poles within `tol` of the first of their run are one pole of that multiplicity (the
/// residues in order of power), `a = prod (s - p_i)^(m_i)`, `b = k a + sum r_ij a / (s -
/// p_i)^j`. Leading zeros of `k` are dropped. Conjugate-closed input gives real coefficients
/// up to rounding in the imaginary parts.
///
/// # Errors
/// Residues and poles not as many, a value not finite, more than `LTI_MAX_ORDER` poles or
/// direct coefficients, `tol` negative or not finite. Each named.
///
/// ```
/// use cuprite_array::{c64, signal::invres};
/// // 2 / (s + 1) - 1 / (s + 2) = (s + 3) / (s^2 + 3 s + 2).
/// let r = [c64::new(2.0, 0.0), c64::new(-1.0, 0.0)];
/// let p = [c64::new(-1.0, 0.0), c64::new(-2.0, 0.0)];
/// let (b, a) = invres(&r, &p, &[], 1e-3)?;
/// assert_eq!(b, [c64::new(1.0, 0.0), c64::new(3.0, 0.0)]);
/// assert_eq!(a, [c64::new(1.0, 0.0), c64::new(3.0, 0.0), c64::new(2.0, 0.0)]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn invres(r: &[c64], p: &[c64], k: &[f64], tol: f64) -> Result<(Vec<c64>, Vec<c64>)> {
    check_inverse("invres", r, p, k, tol)?;
    let start = k.iter().position(|&v| v != 0.0).unwrap_or(k.len());
    let k: Vec<c64> = k[start..].iter().map(|&v| c64::new(v, 0.0)).collect();
    let (u, m) = runs(p, tol);
    let (fs, den) = factors(&u, &m);
    let mut num = if k.is_empty() {
        vec![c64::new(0.0, 0.0)]
    } else {
        mul(&k, &den)
    };
    for (&ri, f) in r.iter().zip(&fs) {
        let term: Vec<c64> = f.iter().map(|&v| v * ri).collect();
        num = add_right(num, &term);
    }
    Ok((num, den))
}

/// The transfer function `(b, a)` in ascending powers of `z^-1` (complex) of the partial
/// fractions `sum r_ij / (1 - p_i z^-1)^j + k(z^-1)` (SciPy's `invresz(r, p, k, tol)`): the
/// poles grouped as [`invres`] groups them, `k` ascending in `z^-1` with its trailing zeros
/// dropped.
///
/// # Errors
/// As [`invres`].
///
/// ```
/// use cuprite_array::{c64, signal::invresz};
/// // 1 / (1 - 0.5 z^-1) + 2.
/// let (b, a) = invresz(&[c64::new(1.0, 0.0)], &[c64::new(0.5, 0.0)], &[2.0], 1e-3)?;
/// assert_eq!(b, [c64::new(3.0, 0.0), c64::new(-1.0, 0.0)]);
/// assert_eq!(a, [c64::new(1.0, 0.0), c64::new(-0.5, 0.0)]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn invresz(r: &[c64], p: &[c64], k: &[f64], tol: f64) -> Result<(Vec<c64>, Vec<c64>)> {
    check_inverse("invresz", r, p, k, tol)?;
    let end = k.iter().rposition(|&v| v != 0.0).map_or(0, |i| i + 1);
    let k_rev: Vec<c64> = k[..end].iter().rev().map(|&v| c64::new(v, 0.0)).collect();
    let (u, m) = runs(p, tol);
    let (fs, den) = factors(&u, &m);
    let rev = |v: &[c64]| -> Vec<c64> { v.iter().rev().copied().collect() };
    let mut num = if k_rev.is_empty() {
        vec![c64::new(0.0, 0.0)]
    } else {
        mul(&k_rev, &rev(&den))
    };
    for (&ri, f) in r.iter().zip(&fs) {
        let term: Vec<c64> = f.iter().rev().map(|&v| v * ri).collect();
        num = add_right(num, &term);
    }
    Ok((rev(&num), den))
}
