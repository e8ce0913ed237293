//! The host matrices of Gustafsson's method for the forward-backward filter (SciPy's
//! `filtfilt(method='gust')`): the initial states of the forward and backward passes chosen
//! so that filtering forward then backward gives what filtering backward then forward gives,
//! in the least-squares sense.
//!
//! For a filter of order `p` and `m` samples (the whole signal, or `irlen` at each end):
//! `O` (`m × p`) carries an initial state to the output of a zero input; `S` filters the
//! reversed `O`; `M = [Sᴿ - O, Oᴿ - S]` (ᴿ: rows reversed) maps the two states to the
//! difference between the two orders; `W = [Sᴿ, Oᴿ]` maps them to the correction of the
//! forward-backward result. With the ends alone (`m < n`), `M` and `W` are block-diagonal over
//! the first and the last `m` samples. This module computes `W` and the pseudo-inverse of `M`
//! (by Householder QR), so that the caller's states are `P δ` and its correction `W P δ`.

use crate::error::{Error, Result};

/// `W` and `P = pinv(M)` of a filter, row-major: `w` is `rows × 2p`, `p` is `2p × rows`, where
/// `rows` is `m`, or `2m` when the ends are taken apart.
pub(crate) struct GustMatrices {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) w: Vec<f64>,
    pub(crate) p: Vec<f64>,
}

/// The direct form II transposed filter of `b`, `a` (each of `order + 1` values, `a[0]` 1)
/// over `x` from the state `z` (SciPy's `lfilter` with `zi`).
fn df2t(b: &[f64], a: &[f64], x: impl Iterator<Item = f64>, z: &mut [f64]) -> Vec<f64> {
    let order = z.len();
    x.map(|xi| {
        let y = b[0] * xi + z.first().copied().unwrap_or(0.0);
        for k in 0..order {
            let next = if k + 1 < order { z[k + 1] } else { 0.0 };
            z[k] = b[k + 1] * xi + next - a[k + 1] * y;
        }
        y
    })
    .collect()
}

/// Gustafsson's matrices for the filter `b`, `a` (not empty, `a[0]` nonzero, of order
/// `order >= 1`) over `m` samples, the ends taken apart when `split`.
pub(crate) fn gust_matrices(
    b: &[f64],
    a: &[f64],
    order: usize,
    m: usize,
    split: bool,
) -> Result<GustMatrices> {
    let norm = |v: &[f64]| -> Vec<f64> {
        let mut out: Vec<f64> = v.iter().map(|x| x / a[0]).collect();
        out.resize(order + 1, 0.0);
        out
    };
    let (bn, an) = (norm(b), norm(a));
    let pp = order;
    // O: column 0 the response to the unit state, column k the same delayed by k samples.
    let mut z = vec![0.0; pp];
    z[0] = 1.0;
    let o0 = df2t(&bn, &an, std::iter::repeat_n(0.0, m), &mut z);
    let obs = |i: usize, k: usize| if i >= k { o0[i - k] } else { 0.0 };
    // S: each column of O reversed, filtered from rest.
    let s_cols: Vec<Vec<f64>> = (0..pp)
        .map(|k| {
            let mut z = vec![0.0; pp];
            df2t(&bn, &an, (0..m).rev().map(|i| obs(i, k)), &mut z)
        })
        .collect();
    let s = |i: usize, k: usize| s_cols[k][i];
    let rows = if split { 2 * m } else { m };
    let cols = 2 * pp;
    let mut mm = vec![0.0; rows * cols];
    let mut w = vec![0.0; rows * cols];
    for i in 0..m {
        let ir = m - 1 - i;
        for k in 0..pp {
            // [Sᴿ - O, Oᴿ - S] and [Sᴿ, Oᴿ]; the second block on the second m rows when split.
            let r2 = if split { m + i } else { i };
            mm[i * cols + k] = s(ir, k) - obs(i, k);
            w[i * cols + k] = s(ir, k);
            mm[r2 * cols + pp + k] = obs(ir, k) - s(i, k);
            w[r2 * cols + pp + k] = obs(ir, k);
        }
    }
    let p = pinv(&mm, rows, cols)?;
    Ok(GustMatrices { rows, cols, w, p })
}

/// The pseudo-inverse (`c × r`, row-major) of the `r × c` matrix `a` of full rank: `R⁻¹ Qᵀ` of
/// `A = QR` when `r >= c`, else the minimum-norm `Q R⁻ᵀ` of `Aᵀ = QR`.
fn pinv(a: &[f64], r: usize, c: usize) -> Result<Vec<f64>> {
    let mut p = vec![0.0; c * r];
    if r >= c {
        // Column i of P = R⁻¹ Qᵀ is R⁻¹ times row i of Q.
        let (q, rr) = thin_qr(a, r, c)?;
        for i in 0..r {
            let mut x: Vec<f64> = q[i * c..(i + 1) * c].to_vec();
            back_substitute(&rr, c, &mut x);
            for j in 0..c {
                p[j * r + i] = x[j];
            }
        }
    } else {
        // Aᵀ = QR (Q: c × r, R: r × r): row j of P = Q R⁻ᵀ is R⁻¹ times row j of Q.
        let mut at = vec![0.0; c * r];
        for i in 0..r {
            for j in 0..c {
                at[j * r + i] = a[i * c + j];
            }
        }
        let (q, rr) = thin_qr(&at, c, r)?;
        for j in 0..c {
            let mut y: Vec<f64> = q[j * r..(j + 1) * r].to_vec();
            back_substitute(&rr, r, &mut y);
            p[j * r..(j + 1) * r].copy_from_slice(&y);
        }
    }
    Ok(p)
}

/// `x ← R⁻¹ x` for the upper-triangular `n × n` `R`.
fn back_substitute(rr: &[f64], n: usize, x: &mut [f64]) {
    for i in (0..n).rev() {
        let mut s = x[i];
        for j in i + 1..n {
            s -= rr[i * n + j] * x[j];
        }
        x[i] = s / rr[i * n + i];
    }
}

/// The thin QR of the `r × c` matrix `a` (`r >= c`) by Householder reflections: `Q` (`r × c`,
/// orthonormal columns) and `R` (`c × c`, upper triangular), row-major. `Err` when a diagonal
/// entry of `R` is negligible against the largest (rank deficient to working precision).
fn thin_qr(a: &[f64], r: usize, c: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    let mut m = a.to_vec();
    let mut vs: Vec<Vec<f64>> = Vec::with_capacity(c);
    for k in 0..c {
        let norm = (k..r).map(|i| m[i * c + k].powi(2)).sum::<f64>().sqrt();
        let mut v: Vec<f64> = (k..r).map(|i| m[i * c + k]).collect();
        let alpha = if v[0] >= 0.0 { -norm } else { norm };
        v[0] -= alpha;
        let vn = v.iter().map(|x| x * x).sum::<f64>();
        if vn > 0.0 {
            for j in k..c {
                let d: f64 = (k..r).map(|i| v[i - k] * m[i * c + j]).sum::<f64>() * 2.0 / vn;
                for i in k..r {
                    m[i * c + j] -= d * v[i - k];
                }
            }
        }
        vs.push(if vn > 0.0 {
            v.iter().map(|x| x / vn.sqrt()).collect()
        } else {
            vec![0.0; r - k]
        });
    }
    let mut rr = vec![0.0; c * c];
    for i in 0..c {
        for j in i..c {
            rr[i * c + j] = m[i * c + j];
        }
    }
    let big = (0..c).map(|i| rr[i * c + i].abs()).fold(0.0, f64::max);
    // A NaN diagonal counts as negligible.
    let negligible = |v: f64| v.is_nan() || v.abs() <= big * 1e-13 * r as f64;
    if let Some(i) = (0..c).find(|&i| negligible(rr[i * c + i])) {
        return Err(Error::InvalidArgument(format!(
            "filtfilt (Gustafsson): the least-squares system of {r} x {c} is rank deficient \
             (diagonal {i} of its triangular factor is {} against {big})",
            rr[i * c + i]
        )));
    }
    // Q = H_0 H_1 ... H_{c-1} applied to the first c columns of the identity.
    let mut q = vec![0.0; r * c];
    for j in 0..c {
        q[j * c + j] = 1.0;
    }
    for k in (0..c).rev() {
        let v = &vs[k];
        for j in 0..c {
            let d: f64 = (k..r).map(|i| v[i - k] * q[i * c + j]).sum::<f64>() * 2.0;
            for i in k..r {
                q[i * c + j] -= d * v[i - k];
            }
        }
    }
    Ok((q, rr))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(a: &[f64], b: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
        let mut c = vec![0.0; n * m];
        for i in 0..n {
            for j in 0..m {
                c[i * m + j] = (0..k).map(|t| a[i * k + t] * b[t * m + j]).sum();
            }
        }
        c
    }

    #[test]
    fn pseudo_inverse_tall_and_wide() {
        // P A = I for a tall matrix of full column rank; A P = I for a wide one.
        let (r, c) = (7, 3);
        let a: Vec<f64> = (0..r * c)
            .map(|i| ((i * 7 + 3) % 11) as f64 - 4.5 + 0.1 * i as f64)
            .collect();
        let p = pinv(&a, r, c).unwrap();
        let pa = matmul(&p, &a, c, r, c);
        for i in 0..c {
            for j in 0..c {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((pa[i * c + j] - want).abs() < 1e-12, "PA {pa:?}");
            }
        }
        let mut at = vec![0.0; c * r];
        for i in 0..r {
            for j in 0..c {
                at[j * r + i] = a[i * c + j];
            }
        }
        let pt = pinv(&at, c, r).unwrap();
        let ap = matmul(&at, &pt, c, r, c);
        for i in 0..c {
            for j in 0..c {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((ap[i * c + j] - want).abs() < 1e-12, "AP {ap:?}");
            }
        }
    }

    #[test]
    fn rank_deficient_is_an_error() {
        let a = [1.0, 2.0, 2.0, 4.0, 3.0, 6.0];
        assert!(pinv(&a, 3, 2).is_err());
    }

    #[test]
    fn df2t_is_the_difference_equation() {
        // y[n] = 0.5 x[n] + 0.25 x[n-1] + 0.3 y[n-1], from rest.
        let (b, a) = ([0.5, 0.25], [1.0, -0.3]);
        let x = [1.0, -2.0, 0.5, 3.0];
        let mut z = [0.0];
        let y = df2t(&b, &a, x.iter().copied(), &mut z);
        let mut want = [0.0; 4];
        for n in 0..4 {
            let prev_x = if n > 0 { x[n - 1] } else { 0.0 };
            let prev_y = if n > 0 { want[n - 1] } else { 0.0 };
            want[n] = 0.5 * x[n] + 0.25 * prev_x + 0.3 * prev_y;
        }
        for (g, w) in y.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{y:?} {want:?}");
        }
    }
}
