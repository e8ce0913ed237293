//! The general eigenproblem on the host, in `Complex<f64>`: Householder reduction to upper
//! Hessenberg form, the implicitly shifted QR algorithm (single Wilkinson shifts, Givens
//! rotations) to the complex Schur form `A = Z·T·Zᴴ`, and eigenvectors by back substitution
//! on `T`. Real matrices run through the same complex arithmetic; their eigenvalues are then
//! tidied into exact conjugate pairs and exactly real values (LAPACK's real `geev` gives
//! both), with real eigenvectors for the real eigenvalues.

use crate::error::{Error, Result};
use num_complex::Complex;

type C = Complex<f64>;

/// A square matrix, row-major.
struct Sq {
    n: usize,
    v: Vec<C>,
}

impl Sq {
    fn at(&self, i: usize, j: usize) -> C {
        self.v[i * self.n + j]
    }
    fn set(&mut self, i: usize, j: usize, x: C) {
        self.v[i * self.n + j] = x;
    }
    fn identity(n: usize) -> Sq {
        let mut v = vec![C::new(0.0, 0.0); n * n];
        for i in 0..n {
            v[i * n + i] = C::new(1.0, 0.0);
        }
        Sq { n, v }
    }
}

/// Eigenvalues and (with `vectors`) unit eigenvectors, `v[i·n + j]` component `i` of the
/// vector of `w[j]`, of the row-major `n × n` matrix `a`. `real` tidies the result of a real
/// matrix (see the module). Non-finite input is an `Err` naming the first such element;
/// a QR iteration that does not converge is an `Err` naming the order of the block left.
pub(super) fn eig(
    call: &str,
    a: &[C],
    n: usize,
    vectors: bool,
    real: bool,
) -> Result<(Vec<C>, Option<Vec<C>>)> {
    if let Some(i) = a
        .iter()
        .position(|z| !z.re.is_finite() || !z.im.is_finite())
    {
        return Err(Error::InvalidArgument(format!(
            "{call}: element [{}, {}] is {} (the matrix must be finite)",
            i / n.max(1),
            i % n.max(1),
            a[i]
        )));
    }
    let mut h = Sq { n, v: a.to_vec() };
    let mut z = Sq::identity(n);
    hessenberg(&mut h, &mut z);
    schur(call, &mut h, &mut z)?;
    let mut w: Vec<C> = (0..n).map(|i| h.at(i, i)).collect();
    let mut v = if vectors {
        Some(triangular_vectors(&h, &z))
    } else {
        None
    };
    if real {
        tidy_real(&mut w, v.as_mut(), n, frobenius(a));
    }
    Ok((w, v))
}

fn frobenius(a: &[C]) -> f64 {
    a.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// Reduces `h` to upper Hessenberg form by Householder reflections `P = I − 2·u·uᴴ`,
/// `h ← P·h·P`, accumulating `z ← z·P`.
fn hessenberg(h: &mut Sq, z: &mut Sq) {
    let n = h.n;
    for k in 0..n.saturating_sub(2) {
        let mut u: Vec<C> = (k + 1..n).map(|i| h.at(i, k)).collect();
        let xn = u.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
        if xn == 0.0 {
            continue;
        }
        // u = x − α·e₁ with α = −e^{i·arg x₀}·‖x‖ (no cancellation in u₀).
        let phase = if u[0].norm() == 0.0 {
            C::new(1.0, 0.0)
        } else {
            u[0] / u[0].norm()
        };
        u[0] += phase * xn;
        let un = u.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
        for x in &mut u {
            *x /= un;
        }
        // Rows k+1.. of h: h ← h − 2·u·(uᴴ·h).
        for j in 0..n {
            let s: C = (0..u.len()).map(|t| u[t].conj() * h.at(k + 1 + t, j)).sum();
            for t in 0..u.len() {
                let x = h.at(k + 1 + t, j) - u[t] * s * 2.0;
                h.set(k + 1 + t, j, x);
            }
        }
        // Columns k+1.. of h and z: m ← m − 2·(m·u)·uᴴ.
        for m in [&mut *h, &mut *z] {
            for i in 0..n {
                let s: C = (0..u.len()).map(|t| m.at(i, k + 1 + t) * u[t]).sum();
                for t in 0..u.len() {
                    let x = m.at(i, k + 1 + t) - s * u[t].conj() * 2.0;
                    m.set(i, k + 1 + t, x);
                }
            }
        }
        for i in k + 2..n {
            h.set(i, k, C::new(0.0, 0.0));
        }
    }
}

/// The rotation `G = [[c, s], [−s̄, c]]` (`c` real) with `G·[x, y]ᵀ = [r, 0]ᵀ`.
fn givens(x: C, y: C) -> (f64, C) {
    let (ax, ay) = (x.norm(), y.norm());
    if ay == 0.0 {
        return (1.0, C::new(0.0, 0.0));
    }
    if ax == 0.0 {
        return (0.0, y.conj() / ay);
    }
    let r = ax.hypot(ay);
    (ax / r, (x / ax) * y.conj() / r)
}

/// `h ← G·h·Gᴴ` on rows and columns `k, k+1` (columns `cols..` of the two rows, rows
/// `..rows` of the two columns: the rest is zero), and `z ← z·Gᴴ`.
fn rotate(h: &mut Sq, z: &mut Sq, k: usize, (c, s): (f64, C), cols: usize, rows: usize) {
    for j in cols..h.n {
        let (p, q) = (h.at(k, j), h.at(k + 1, j));
        h.set(k, j, p * c + s * q);
        h.set(k + 1, j, q * c - s.conj() * p);
    }
    let right = |m: &mut Sq, last: usize| {
        for i in 0..last {
            let (p, q) = (m.at(i, k), m.at(i, k + 1));
            m.set(i, k, p * c + q * s.conj());
            m.set(i, k + 1, q * c - p * s);
        }
    };
    right(h, rows);
    let n = z.n;
    right(z, n);
}

/// The Wilkinson shift of the trailing 2 × 2 block `[[a, b], [c, d]]`: its eigenvalue
/// nearer `d`.
fn wilkinson(a: C, b: C, c: C, d: C) -> C {
    let half = (a - d) * 0.5;
    let disc = (half * half + b * c).sqrt();
    let (m1, m2) = ((a + d) * 0.5 + disc, (a + d) * 0.5 - disc);
    if (m1 - d).norm() <= (m2 - d).norm() {
        m1
    } else {
        m2
    }
}

/// The QR algorithm on the Hessenberg `h`: `h` becomes upper triangular (the Schur form),
/// `z` accumulates every rotation.
fn schur(call: &str, h: &mut Sq, z: &mut Sq) -> Result<()> {
    let n = h.n;
    if n < 2 {
        return Ok(());
    }
    let eps = f64::EPSILON;
    let budget = 30 * n.max(10);
    let mut hi = n - 1;
    let mut iters = 0usize;
    while hi > 0 {
        // The lowest negligible subdiagonal element at or above `hi` splits the block.
        let mut l = hi;
        while l > 0 {
            let scale = h.at(l - 1, l - 1).norm() + h.at(l, l).norm();
            if h.at(l, l - 1).norm() <= eps * scale || h.at(l, l - 1).norm() < f64::MIN_POSITIVE {
                h.set(l, l - 1, C::new(0.0, 0.0));
                break;
            }
            l -= 1;
        }
        if l == hi {
            hi -= 1;
            iters = 0;
            continue;
        }
        iters += 1;
        if iters > budget {
            return Err(Error::InvalidArgument(format!(
                "{call}: the QR algorithm did not converge after {budget} iterations on the \
                 leading {} × {} block",
                hi + 1,
                hi + 1
            )));
        }
        let mu = if iters % 11 == 0 {
            // An exceptional shift breaks a cycle.
            h.at(hi, hi) + C::new(0.75 * h.at(hi, hi - 1).norm(), 0.0)
        } else {
            wilkinson(
                h.at(hi - 1, hi - 1),
                h.at(hi - 1, hi),
                h.at(hi, hi - 1),
                h.at(hi, hi),
            )
        };
        // One implicit shifted QR step on rows and columns l..=hi: the first rotation from
        // the shifted column, the rest chase the bulge down the subdiagonal.
        for k in l..hi {
            let (x, y) = if k == l {
                (h.at(l, l) - mu, h.at(l + 1, l))
            } else {
                (h.at(k, k - 1), h.at(k + 1, k - 1))
            };
            let g = givens(x, y);
            let col0 = if k == l { l } else { k - 1 };
            rotate(h, z, k, g, col0, (k + 3).min(hi + 1));
            if k > l {
                h.set(k + 1, k - 1, C::new(0.0, 0.0));
            }
        }
    }
    Ok(())
}

/// The eigenvectors `z·x` of the Schur form `t` (upper triangular), `x` from back
/// substitution on `(t − t_kk·I)·x = 0` with `x_k = 1`; each of unit 2-norm with its largest
/// component real and positive (LAPACK's `zgeev` rule). Row-major, vectors as columns.
fn triangular_vectors(t: &Sq, z: &Sq) -> Vec<C> {
    let n = t.n;
    let tnorm = t.v.iter().map(|x| x.norm()).fold(0.0, f64::max);
    let smin = (f64::EPSILON * tnorm).max(f64::MIN_POSITIVE);
    let mut out = vec![C::new(0.0, 0.0); n * n];
    let mut x = vec![C::new(0.0, 0.0); n];
    for k in 0..n {
        let lam = t.at(k, k);
        x[k] = C::new(1.0, 0.0);
        for j in (0..k).rev() {
            let s: C = (j + 1..=k).map(|l| t.at(j, l) * x[l]).sum();
            let mut d = t.at(j, j) - lam;
            if d.norm() < smin {
                d = C::new(smin, 0.0);
            }
            x[j] = -s / d;
        }
        let mut v: Vec<C> = (0..n)
            .map(|i| (0..=k).map(|l| z.at(i, l) * x[l]).sum())
            .collect();
        normalise(&mut v);
        for i in 0..n {
            out[i * n + k] = v[i];
        }
    }
    out
}

/// Scales `v` to unit 2-norm with its component of largest modulus real and positive.
fn normalise(v: &mut [C]) {
    let nrm = v.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
    if nrm == 0.0 {
        return;
    }
    let big = v
        .iter()
        .copied()
        .max_by(|a, b| a.norm_sqr().total_cmp(&b.norm_sqr()))
        .unwrap_or(C::new(1.0, 0.0));
    let rot = big.conj() / (big.norm() * nrm);
    for x in v.iter_mut() {
        *x *= rot;
    }
}

/// For a real matrix: eigenvalues within rounding of the real axis become real (their
/// vectors real, renormalised), and each remaining eigenvalue with positive imaginary part
/// is followed by its exact conjugate (the vector conjugated), as LAPACK's real `geev`
/// orders them. An eigenvalue off the axis with no partner near its conjugate (closer than
/// half its distance to the axis) is real too. `scale` is the matrix's Frobenius norm.
fn tidy_real(w: &mut [C], v: Option<&mut Vec<C>>, n: usize, scale: f64) {
    let tol = 8.0 * n as f64 * f64::EPSILON * scale.max(f64::MIN_POSITIVE);
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut used = vec![false; n];
    let mut real = vec![false; n];
    for j in 0..n {
        if w[j].im.abs() <= tol {
            real[j] = true;
        }
    }
    // Pair each upper eigenvalue with the nearest unused lower one.
    let mut partner = vec![usize::MAX; n];
    for j in 0..n {
        if used[j] {
            continue;
        }
        used[j] = true;
        order.push(j);
        if real[j] {
            continue;
        }
        let target = w[j].conj();
        // A partner lies nearer the conjugate than the pair lies to the real axis; without
        // one, `w[j]` is a real eigenvalue that rounding moved off the axis (two close real
        // eigenvalues each do so, and are no conjugate pair).
        let best = (0..n)
            .filter(|&i| !used[i] && !real[i] && w[i].im * w[j].im < 0.0)
            .filter(|&i| (w[i] - target).norm() < 0.5 * w[j].im.abs())
            .min_by(|&a, &b| (w[a] - target).norm().total_cmp(&(w[b] - target).norm()));
        let Some(i) = best else {
            real[j] = true;
            continue;
        };
        used[i] = true;
        // The one with positive imaginary part first.
        let (p, q) = if w[j].im > 0.0 { (j, i) } else { (i, j) };
        *order.last_mut().expect("pushed above") = p;
        order.push(q);
        partner[q] = p;
    }
    let old_w = w.to_vec();
    for (dst, &src) in order.iter().enumerate() {
        w[dst] = if real[src] {
            C::new(old_w[src].re, 0.0)
        } else if partner[src] != usize::MAX {
            old_w[partner[src]].conj()
        } else {
            old_w[src]
        };
    }
    if let Some(v) = v {
        let old = v.clone();
        for (dst, &src) in order.iter().enumerate() {
            let mut col: Vec<C> = (0..n)
                .map(|i| {
                    if real[src] {
                        C::new(old[i * n + src].re, 0.0)
                    } else if partner[src] != usize::MAX {
                        old[i * n + partner[src]].conj()
                    } else {
                        old[i * n + src]
                    }
                })
                .collect();
            if real[src] {
                normalise(&mut col);
            }
            for i in 0..n {
                v[i * n + dst] = col[i];
            }
        }
    }
}
