//! Small dense matrices on the host for the state-space calls: row-major `f64` slices, the
//! product, a solve by LU with partial pivoting, and the exponential by Padé approximation
//! with scaling and squaring (Higham, "The scaling and squaring method for the matrix
//! exponential revisited", 2005).

/// The `n x n` identity.
pub(super) fn eye(n: usize) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i * n + i] = 1.0;
    }
    m
}

/// The product of `x` (`n x k`) and `y` (`k x m`).
pub(super) fn matmul(x: &[f64], y: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * m];
    for i in 0..n {
        for l in 0..k {
            let v = x[i * k + l];
            if v == 0.0 {
                continue;
            }
            for j in 0..m {
                out[i * m + j] += v * y[l * m + j];
            }
        }
    }
    out
}

/// The transpose of `x` (`n x m`).
pub(super) fn transpose(x: &[f64], n: usize, m: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            out[j * n + i] = x[i * m + j];
        }
    }
    out
}

/// `a x = b` for `a` (`n x n`) and `b` (`n x m`), real or complex, by LU with partial pivoting,
/// or `None` when a pivot is 0 (singular) or the solution is not finite.
pub(super) fn solve<S: LuScalar>(a: &[S], b: &[S], n: usize, m: usize) -> Option<Vec<S>> {
    let (mut a, mut x) = (a.to_vec(), b.to_vec());
    let zero = S::default();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| {
            a[i * n + col]
                .magnitude()
                .total_cmp(&a[j * n + col].magnitude())
        })?;
        if a[piv * n + col] == zero {
            return None;
        }
        if piv != col {
            for j in 0..n {
                a.swap(piv * n + j, col * n + j);
            }
            for j in 0..m {
                x.swap(piv * m + j, col * m + j);
            }
        }
        let d = a[col * n + col];
        for i in col + 1..n {
            let f = a[i * n + col] / d;
            if f == zero {
                continue;
            }
            for j in col..n {
                let t = a[col * n + j];
                a[i * n + j] = a[i * n + j] - f * t;
            }
            for j in 0..m {
                let t = x[col * m + j];
                x[i * m + j] = x[i * m + j] - f * t;
            }
        }
    }
    for col in (0..n).rev() {
        let d = a[col * n + col];
        for j in 0..m {
            let mut v = x[col * m + j];
            for l in col + 1..n {
                v = v - a[col * n + l] * x[l * m + j];
            }
            x[col * m + j] = v / d;
        }
    }
    x.iter().all(|v| v.finite()).then_some(x)
}

/// The entries [`solve`] takes: real or complex `f64`.
pub(super) trait LuScalar:
    Copy
    + Default
    + PartialEq
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    /// A magnitude that orders pivots (the absolute value or its square).
    fn magnitude(self) -> f64;
    /// Whether every part is finite.
    fn finite(self) -> bool;
}

impl LuScalar for f64 {
    fn magnitude(self) -> f64 {
        self.abs()
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl LuScalar for crate::dtype::c64 {
    fn magnitude(self) -> f64 {
        self.norm_sqr()
    }
    fn finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }
}

/// The 1-norm (the largest column sum of magnitudes) of `a` (`n x n`).
fn norm1(a: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|j| (0..n).map(|i| a[i * n + j].abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// `sum c_i m_i` of equally sized matrices.
fn combine(terms: &[(f64, &[f64])]) -> Vec<f64> {
    let mut out = vec![0.0; terms.first().map_or(0, |t| t.1.len())];
    for &(c, m) in terms {
        for (o, v) in out.iter_mut().zip(m) {
            *o += c * v;
        }
    }
    out
}

/// The Padé coefficients `b_0..=b_m` of degrees 3, 5, 7, 9 and 13, with the 1-norm up to which
/// each gives the exponential to double precision (Higham's `theta_m`).
const PADE: [(f64, &[f64]); 4] = [
    (1.495585217958292e-2, &[120.0, 60.0, 12.0, 1.0]),
    (
        2.53939833006323e-1,
        &[30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
    ),
    (
        9.504178996162932e-1,
        &[
            17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0,
        ],
    ),
    (
        2.097847961257068,
        &[
            17643225600.0,
            8821612800.0,
            2075673600.0,
            302702400.0,
            30270240.0,
            2162160.0,
            110880.0,
            3960.0,
            90.0,
            1.0,
        ],
    ),
];
const THETA13: f64 = 5.371920351148152;
const PADE13: [f64; 14] = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
];

/// `exp(a)` of `a` (`n x n`, finite), or `None` when the Padé denominator is singular or the
/// result overflows. The lowest Padé degree whose `theta_m` bounds `|a|_1`; beyond the
/// largest, `a` scaled by `2^-s` into degree 13's range and the result squared `s` times.
pub(super) fn expm(a: &[f64], n: usize) -> Option<Vec<f64>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let id = eye(n);
    let mul = |x: &[f64], y: &[f64]| matmul(x, y, n, n, n);
    let norm = norm1(a, n);
    // (U, V) of the approximant: exp(a) ~ (V - U)^-1 (V + U).
    let (u, v, squarings) = if let Some(&(_, b)) = PADE.iter().find(|(t, _)| norm <= *t) {
        // Even powers a^0, a^2, ..., a^(m - 1).
        let a2 = mul(a, a);
        let mut pows = vec![id.clone()];
        while pows.len() < b.len() / 2 {
            let next = mul(pows.last()?, &a2);
            pows.push(next);
        }
        let odd: Vec<(f64, &[f64])> = pows
            .iter()
            .enumerate()
            .map(|(j, p)| (b[2 * j + 1], p.as_slice()))
            .collect();
        let even: Vec<(f64, &[f64])> = pows
            .iter()
            .enumerate()
            .map(|(j, p)| (b[2 * j], p.as_slice()))
            .collect();
        (mul(a, &combine(&odd)), combine(&even), 0)
    } else {
        let s = (norm / THETA13).log2().ceil().max(0.0) as i32;
        let scale = 0.5f64.powi(s);
        let a1: Vec<f64> = a.iter().map(|v| v * scale).collect();
        let a2 = mul(&a1, &a1);
        let a4 = mul(&a2, &a2);
        let a6 = mul(&a4, &a2);
        let b = &PADE13;
        let inner_u = combine(&[(b[13], &a6), (b[11], &a4), (b[9], &a2)]);
        let u = mul(
            &a1,
            &combine(&[
                (1.0, &mul(&a6, &inner_u)),
                (b[7], &a6),
                (b[5], &a4),
                (b[3], &a2),
                (b[1], &id),
            ]),
        );
        let inner_v = combine(&[(b[12], &a6), (b[10], &a4), (b[8], &a2)]);
        let v = combine(&[
            (1.0, &mul(&a6, &inner_v)),
            (b[6], &a6),
            (b[4], &a4),
            (b[2], &a2),
            (b[0], &id),
        ]);
        (u, v, s)
    };
    let p = combine(&[(1.0, &v), (1.0, &u)]);
    let q = combine(&[(1.0, &v), (-1.0, &u)]);
    let mut r = solve(&q, &p, n, n)?;
    for _ in 0..squarings {
        r = mul(&r, &r);
    }
    r.iter().all(|v| v.is_finite()).then_some(r)
}
