//! Robust homography estimation (ArrayFire's `homography`): hypotheses from random 4-point
//! samples (the direct linear transform on Hartley-normalised points, solved on the host),
//! every hypothesis scored against every correspondence at once on the arrays' device (one
//! fused `[hypotheses, points]` expression reduced per hypothesis: the inlier count for RANSAC,
//! the median squared error for LMedS), then a least-squares refit on the inliers of the best.

use crate::array::Array;
use crate::dtype::{Float, Scalar};
use crate::error::{Error, Result};
use crate::ops::AxisOpts;

/// The estimators of [`homography_with`] (ArrayFire's `af_homography_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HomographyMethod {
    /// Random sample consensus: the hypothesis with the most points within `inlier_thr` pixels
    /// (the default).
    #[default]
    Ransac,
    /// Least median of squares: the hypothesis whose median squared error is least; inliers
    /// are then the points within 2.5 robust standard deviations (`1.4826 (1 + 5 / (n − 4))
    /// √median`).
    Lmeds,
}

/// Options of [`homography_with`] (ArrayFire's arguments and defaults).
///
/// ```
/// use cuprite_array::image::{HomographyMethod, HomographyOpts};
/// let o = HomographyOpts::new().method(HomographyMethod::Lmeds).iterations(200);
/// assert_eq!((o.inlier_thr, o.iterations), (3.0, 200));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HomographyOpts {
    /// The estimator (RANSAC).
    pub method: HomographyMethod,
    /// The largest reprojection error, in pixels, of an inlier for RANSAC (3).
    pub inlier_thr: f64,
    /// Random 4-point samples tried (1000).
    pub iterations: usize,
}

impl Default for HomographyOpts {
    fn default() -> Self {
        HomographyOpts {
            method: HomographyMethod::Ransac,
            inlier_thr: 3.0,
            iterations: 1000,
        }
    }
}

impl HomographyOpts {
    /// RANSAC, 3 pixels, 1000 samples.
    pub fn new() -> Self {
        Self::default()
    }
    /// The estimator.
    pub fn method(mut self, method: HomographyMethod) -> Self {
        self.method = method;
        self
    }
    /// The inlier threshold in pixels.
    pub fn inlier_thr(mut self, inlier_thr: f64) -> Self {
        self.inlier_thr = inlier_thr;
        self
    }
    /// The number of samples.
    pub fn iterations(mut self, iterations: usize) -> Self {
        self.iterations = iterations;
        self
    }
}

type Mat3 = [[f64; 3]; 3];

fn mul3(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

/// The similarity taking `pts` to centroid 0 and mean distance √2, and its inverse.
fn normaliser(xs: &[f64], ys: &[f64]) -> (Mat3, Mat3) {
    let n = xs.len() as f64;
    let (cx, cy) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let d = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| ((x - cx).powi(2) + (y - cy).powi(2)).sqrt())
        .sum::<f64>()
        / n;
    let s = if d > 0.0 {
        std::f64::consts::SQRT_2 / d
    } else {
        1.0
    };
    (
        [[s, 0.0, -s * cx], [0.0, s, -s * cy], [0.0, 0.0, 1.0]],
        [[1.0 / s, 0.0, cx], [0.0, 1.0 / s, cy], [0.0, 0.0, 1.0]],
    )
}

fn apply(h: &Mat3, x: f64, y: f64) -> (f64, f64) {
    let z = h[2][0] * x + h[2][1] * y + h[2][2];
    (
        (h[0][0] * x + h[0][1] * y + h[0][2]) / z,
        (h[1][0] * x + h[1][1] * y + h[1][2]) / z,
    )
}

/// `a x = b` for a square system by Gaussian elimination with partial pivoting; `None` when a
/// pivot is negligible (a degenerate sample).
fn solve(mut a: Vec<[f64; 8]>, mut b: Vec<f64>) -> Option<[f64; 8]> {
    let scale = a
        .iter()
        .flat_map(|r| r.iter())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    for c in 0..8 {
        let p = (c..8).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() <= 1e-12 * scale.max(1e-300) || a[p][c].is_nan() {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..8 {
            let f = a[r][c] / a[c][c];
            for k in c..8 {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = [0.0; 8];
    for c in (0..8).rev() {
        let s: f64 = (c + 1..8).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The two DLT rows (with `h33 = 1`) of the correspondence `(x, y) -> (u, v)`.
fn dlt_rows(x: f64, y: f64, u: f64, v: f64) -> [([f64; 8], f64); 2] {
    [
        ([x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y], u),
        ([0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y], v),
    ]
}

/// The homography of the correspondences `idx` (in normalised coordinates `s` -> `d`), by
/// least squares (exact for 4), denormalised with `ts` and `td_inv`, scaled to `h33 = 1`.
fn fit(
    s: &[(f64, f64)],
    d: &[(f64, f64)],
    idx: &[usize],
    ts: &Mat3,
    td_inv: &Mat3,
) -> Option<Mat3> {
    let mut ata = vec![[0.0f64; 8]; 8];
    let mut atb = vec![0.0f64; 8];
    for &i in idx {
        for (row, rhs) in dlt_rows(s[i].0, s[i].1, d[i].0, d[i].1) {
            for r in 0..8 {
                for c in 0..8 {
                    ata[r][c] += row[r] * row[c];
                }
                atb[r] += row[r] * rhs;
            }
        }
    }
    let h = solve(ata, atb)?;
    let hn = [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1.0]];
    let m = mul3(td_inv, &mul3(&hn, ts));
    let z = m[2][2];
    if z.abs() <= 1e-300 || z.is_nan() {
        return None;
    }
    Some(m.map(|r| r.map(|v| v / z)))
}

/// The next value of a fixed pseudo-random stream (SplitMix64), so that a call is
/// reproducible.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Four distinct indices below `n`.
fn sample4(state: &mut u64, n: usize) -> [usize; 4] {
    let mut s = [usize::MAX; 4];
    let mut k = 0;
    while k < 4 {
        let i = (next(state) % n as u64) as usize;
        if !s[..k].contains(&i) {
            s[k] = i;
            k += 1;
        }
    }
    s
}

/// The squared reprojection errors `[m, n]` of `m` hypotheses (rows of `hs`, `[m, 9]`) on the
/// `n` correspondences, evaluated on the device of `like`; non-finite errors are `+inf`.
fn errors<T: Float>(hs: &[Mat3], pts: [&Array<f64>; 4], like: &Array<T>) -> Result<Array<f64>> {
    let m = hs.len();
    let flat: Vec<f64> = hs
        .iter()
        .flat_map(|h| h.iter().flatten().copied())
        .collect();
    let hm = Array::from_slice_on(like.device(), &flat, &[m, 9])?;
    let col = |k: usize| -> Result<Array<f64>> {
        hm.slice(&[super::vision::ALL, super::vision::range(k, k + 1)])
    };
    let [xs, ys, xd, yd] = pts;
    let lin = |a: usize| -> Result<Array<f64>> {
        col(a)?
            .try_mul(xs)?
            .try_add(col(a + 1)?.try_mul(ys)?)?
            .try_add(col(a + 2)?)
    };
    let z = lin(6)?;
    let ex = lin(0)?.try_div(&z)?.try_sub(xd)?;
    let ey = lin(3)?.try_div(&z)?.try_sub(yd)?;
    let e = ex.try_mul(&ex)?.try_add(ey.try_mul(&ey)?)?;
    Array::select(&e.isfinite(), &e, f64::INFINITY)
}

/// The homography taking `(x_src, y_src)` to `(x_dst, y_dst)` by RANSAC (ArrayFire's
/// `homography` with its defaults: 3 pixels, 1000 samples): the `[3, 3]` matrix `H` (with
/// `H[2][2] = 1`, acting on `[x, y, 1]`) and the number of inliers. The four arrays are 1-D of
/// one length, at least 4.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::homography};
/// // A translation by (5, -2) of 6 points, and one outlier.
/// let xs = vec![0.0f64, 10.0, 0.0, 10.0, 5.0, 3.0, 7.0];
/// let ys = vec![0.0f64, 0.0, 10.0, 10.0, 5.0, 8.0, 1.0];
/// let mut xd: Vec<f64> = xs.iter().map(|x| x + 5.0).collect();
/// let yd: Vec<f64> = ys.iter().map(|y| y - 2.0).collect();
/// xd[6] = 40.0;
/// let a = |v: Vec<f64>| Array::from_vec(v, &[7]);
/// let (h, inliers) = homography(&a(xs)?, &a(ys)?, &a(xd)?, &a(yd)?)?;
/// assert_eq!(inliers, 6);
/// let h = h.to_vec()?;
/// assert!((h[2] - 5.0).abs() < 1e-9 && (h[5] + 2.0).abs() < 1e-9 && (h[0] - 1.0).abs() < 1e-9);
/// # Ok(()) }
/// ```
pub fn homography<T: Float>(
    x_src: &Array<T>,
    y_src: &Array<T>,
    x_dst: &Array<T>,
    y_dst: &Array<T>,
) -> Result<(Array<T>, usize)> {
    homography_with(x_src, y_src, x_dst, y_dst, HomographyOpts::new())
}

/// [`homography`] with options ([`HomographyOpts`]: RANSAC or LMedS, the inlier threshold, the
/// number of samples).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{HomographyMethod, HomographyOpts, homography_with}};
/// let xs = Array::from_vec(vec![0.0f32, 4.0, 0.0, 4.0, 2.0], &[5])?;
/// let ys = Array::from_vec(vec![0.0f32, 0.0, 4.0, 4.0, 1.0], &[5])?;
/// let xd = &xs * 2.0;
/// let yd = &ys * 2.0;
/// let o = HomographyOpts::new().method(HomographyMethod::Lmeds);
/// let (h, n) = homography_with(&xs, &ys, &xd, &yd, o)?;
/// assert_eq!(n, 5);
/// assert!((h.to_vec()?[0] - 2.0).abs() < 1e-4);
/// # Ok(()) }
/// ```
pub fn homography_with<T: Float>(
    x_src: &Array<T>,
    y_src: &Array<T>,
    x_dst: &Array<T>,
    y_dst: &Array<T>,
    opts: HomographyOpts,
) -> Result<(Array<T>, usize)> {
    let arrays = [x_src, y_src, x_dst, y_dst];
    let n = x_src.shape().first().copied().unwrap_or(0);
    if arrays.iter().any(|a| a.shape() != [n]) || n < 4 {
        return Err(Error::Shape(format!(
            "homography takes four 1-D arrays of one length, at least 4, got shapes {:?}",
            arrays
                .iter()
                .map(|a| a.shape().to_vec())
                .collect::<Vec<_>>()
        )));
    }
    if !(opts.inlier_thr.is_finite() && opts.inlier_thr > 0.0) || opts.iterations == 0 {
        return Err(Error::InvalidArgument(format!(
            "homography: inlier_thr {} must be finite and positive, iterations {} at least 1",
            opts.inlier_thr, opts.iterations
        )));
    }
    let dev: Vec<Array<f64>> = arrays.iter().map(|a| a.cast::<f64>()).collect();
    let host: Vec<Vec<f64>> = dev.iter().map(|a| a.to_vec()).collect::<Result<_>>()?;
    let (ts, _) = normaliser(&host[0], &host[1]);
    let (td, td_inv) = normaliser(&host[2], &host[3]);
    let norm = |t: &Mat3, xs: &[f64], ys: &[f64]| -> Vec<(f64, f64)> {
        xs.iter().zip(ys).map(|(&x, &y)| apply(t, x, y)).collect()
    };
    let s = norm(&ts, &host[0], &host[1]);
    let d = norm(&td, &host[2], &host[3]);
    let mut state = 0x0123_4567_89ab_cdef_u64;
    let hyps: Vec<Mat3> = (0..opts.iterations)
        .filter_map(|_| fit(&s, &d, &sample4(&mut state, n), &ts, &td_inv))
        .collect();
    if hyps.is_empty() {
        return Err(Error::Singular(format!(
            "homography: all {} samples of 4 correspondences were degenerate (collinear points)",
            opts.iterations
        )));
    }
    let pts = |k: usize| dev[k].reshape(&[1, n]);
    let e = errors(&hyps, [&pts(0)?, &pts(1)?, &pts(2)?, &pts(3)?], x_src)?;
    let thr2 = opts.inlier_thr * opts.inlier_thr;
    let best = match opts.method {
        HomographyMethod::Ransac => e.less(thr2).cast::<i64>().sum_axes(&[1])?.argmax()?,
        HomographyMethod::Lmeds => e.median_with(AxisOpts::new().axis(1))?.argmin()?,
    };
    let best = hyps[best.item()? as usize];
    let err = |h: &Mat3| -> Vec<f64> {
        (0..n)
            .map(|i| {
                let (u, v) = apply(h, host[0][i], host[1][i]);
                let e = (u - host[2][i]).powi(2) + (v - host[3][i]).powi(2);
                if e.is_finite() { e } else { f64::INFINITY }
            })
            .collect()
    };
    let limit = match opts.method {
        HomographyMethod::Ransac => thr2,
        HomographyMethod::Lmeds => {
            let mut e = err(&best);
            e.sort_by(f64::total_cmp);
            let med = if n % 2 == 1 {
                e[n / 2]
            } else {
                0.5 * (e[n / 2 - 1] + e[n / 2])
            };
            let sigma = 1.4826 * (1.0 + 5.0 / (n as f64 - 4.0).max(1.0)) * med.sqrt();
            (2.5 * sigma).powi(2).max(1e-18)
        }
    };
    let inliers = |h: &Mat3| -> Vec<usize> {
        err(h)
            .iter()
            .enumerate()
            .filter(|&(_, &e)| e <= limit)
            .map(|(i, _)| i)
            .collect()
    };
    let first = inliers(&best);
    let refit = (first.len() >= 4)
        .then(|| fit(&s, &d, &first, &ts, &td_inv))
        .flatten()
        .filter(|h| inliers(h).len() >= first.len());
    let h = refit.unwrap_or(best);
    let count = inliers(&h).len();
    let flat: Vec<T> = h
        .iter()
        .flatten()
        .map(|&v| T::from_scalar(Scalar::F64(v)))
        .collect();
    Ok((Array::from_slice_on(x_src.device(), &flat, &[3, 3])?, count))
}
