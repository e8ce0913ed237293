//! ArrayFire's `approx1`/`approx2` (`cuprite_array::signal`) against an f64 host reference
//! written here from ArrayFire's definitions: the coordinate `(p - start) / step` in the
//! positions' type, off the grid outside `[0, n - 1]`, nearest `round`, lower `floor`, linear
//! `(1 - t) v0 + t v1`, the cubic `a t^3 + b t^2 + c t + d` with ArrayFire's coefficients,
//! Catmull-Rom, samples past an edge repeating the edge, and two dimensions as the one-
//! dimensional rule along the columns of every row, then along the rows. Bodies run on every
//! backend; `matches_cpu` compares CUDA with the CPU backend on larger calls.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::shape::SliceArg;
use cuprite_array::signal::{
    ApproxGrid, ApproxMethod, approx1, approx1_uniform, approx2, approx2_uniform,
};
use cuprite_array::{Array, Device, c32, c64};
use cuprite_testkit::{Rng, Test, TestResult};
use std::f64::consts::PI;

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// The one-dimensional rule of each method.
#[derive(Clone, Copy, Debug, PartialEq)]
enum K {
    Nearest,
    Lower,
    Linear,
    LinearCosine,
    Cubic,
    Spline,
}

const ALL1: [(ApproxMethod, K); 6] = [
    (ApproxMethod::Nearest, K::Nearest),
    (ApproxMethod::Lower, K::Lower),
    (ApproxMethod::Linear, K::Linear),
    (ApproxMethod::LinearCosine, K::LinearCosine),
    (ApproxMethod::Cubic, K::Cubic),
    (ApproxMethod::CubicSpline, K::Spline),
];

const ALL2: [(ApproxMethod, K); 10] = [
    (ApproxMethod::Nearest, K::Nearest),
    (ApproxMethod::Lower, K::Lower),
    (ApproxMethod::Linear, K::Linear),
    (ApproxMethod::Bilinear, K::Linear),
    (ApproxMethod::LinearCosine, K::LinearCosine),
    (ApproxMethod::BilinearCosine, K::LinearCosine),
    (ApproxMethod::Cubic, K::Cubic),
    (ApproxMethod::Bicubic, K::Cubic),
    (ApproxMethod::CubicSpline, K::Spline),
    (ApproxMethod::BicubicSpline, K::Spline),
];

/// `v` interpolated at coordinate `c` in `[0, n - 1]` by ArrayFire's rule `k`.
fn interp1(v: &[f64], c: f64, k: K) -> f64 {
    let n = v.len() as i64;
    let at = |i: i64| v[i.clamp(0, n - 1) as usize];
    let g = c.floor();
    let t = c - g;
    let gi = g as i64;
    match k {
        K::Nearest => at(c.round() as i64),
        K::Lower => at(gi),
        K::Linear => (1.0 - t) * at(gi) + t * at(gi + 1),
        K::LinearCosine => {
            let s = (1.0 - (PI * t).cos()) / 2.0;
            (1.0 - s) * at(gi) + s * at(gi + 1)
        }
        K::Cubic | K::Spline => {
            let (v0, v1, v2, v3) = (at(gi - 1), at(gi), at(gi + 1), at(gi + 2));
            let (a, b, c, d) = if k == K::Cubic {
                let a = v3 - v2 - v0 + v1;
                (a, v0 - v1 - a, v2 - v0, v1)
            } else {
                (
                    -0.5 * v0 + 1.5 * v1 - 1.5 * v2 + 0.5 * v3,
                    v0 - 2.5 * v1 + 2.0 * v2 - 0.5 * v3,
                    -0.5 * v0 + 0.5 * v2,
                    v1,
                )
            };
            ((a * t + b) * t + c) * t + d
        }
    }
}

/// The coordinate of position `p` on a grid `(start, step)` of `n` samples, computed in `f32`
/// when `single`, and whether it lies on the grid.
fn coord(p: f64, (start, step): (f64, f64), n: usize, single: bool) -> Option<f64> {
    let c = if single {
        ((p as f32 - start as f32) / step as f32) as f64
    } else {
        (p - start) / step
    };
    let on = if single {
        let c = c as f32;
        c >= 0.0 && c + 1.0 <= n as f32
    } else {
        c >= 0.0 && c + 1.0 <= n as f64
    };
    on.then_some(c)
}

/// One call's reference: `x` holds `batch` images `[n0, n1]` (`n1 = 1` in one dimension) of
/// real values; positions `p0` (and `p1` in two dimensions) shared by the batch or per image;
/// the result `batch * plane` values.
struct Ref<'a> {
    x: &'a [f64],
    batch: usize,
    n: [usize; 2],
    p: [&'a [f64]; 2],
    rank: usize,
    shared: bool,
    grids: [(f64, f64); 2],
    off: f64,
    single: bool,
}

impl Ref<'_> {
    fn eval(&self, k: K) -> Vec<f64> {
        let plane = if self.shared {
            self.p[0].len()
        } else {
            self.p[0].len() / self.batch
        };
        let [n0, n1] = self.n;
        let mut out = Vec::with_capacity(self.batch * plane);
        for b in 0..self.batch {
            let img = &self.x[b * n0 * n1..(b + 1) * n0 * n1];
            for j in 0..plane {
                let at = if self.shared { j } else { b * plane + j };
                let c0 = coord(self.p[0][at], self.grids[0], n0, self.single);
                let v = if self.rank == 1 {
                    c0.map(|c| interp1(img, c, k))
                } else {
                    let c1 = coord(self.p[1][at], self.grids[1], n1, self.single);
                    c0.zip(c1).map(|(c0, c1)| {
                        let col: Vec<f64> = (0..n0)
                            .map(|r| interp1(&img[r * n1..(r + 1) * n1], c1, k))
                            .collect();
                        interp1(&col, c0, k)
                    })
                };
                out.push(v.unwrap_or(self.off));
            }
        }
        out
    }
}

/// Positions over `[-1.5, n + 0.5]`: random, the grid's edges, integers, infinities and NaN
/// (off the grid, as the reference's `coord` finds: both of its comparisons fail).
fn positions(rng: &mut Rng, m: usize, n: usize) -> Vec<f64> {
    let special = [
        0.0,
        (n - 1) as f64,
        1.0,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.25,
        f64::NAN,
    ];
    (0..m)
        .map(|i| {
            special
                .get(i)
                .copied()
                .unwrap_or_else(|| rng.f32_in(-1.5, n as f32 + 0.5) as f64)
        })
        .collect()
}

/// `v` rounded to `f32` when `single`.
fn round(v: &[f64], single: bool) -> Vec<f64> {
    v.iter()
        .map(|&x| if single { x as f32 as f64 } else { x })
        .collect()
}

fn tol(single: bool) -> (f64, f64) {
    if single { (2e-5, 2e-5) } else { (1e-12, 1e-12) }
}

/// `approx1`/`approx1_uniform` of `f32` (`single`) or `f64` values, every method: shared
/// positions, per-signal positions, positions broadcast along a batch axis, and an axis that
/// is not the last with a uniform grid.
fn approx1_case(rng: &mut Rng, single: bool) -> TestResult {
    let (batch, n, m) = (3usize, 7usize, 40usize);
    let x = round(
        &(0..batch * n)
            .map(|_| rng.f32_in(-1.0, 1.0) as f64)
            .collect::<Vec<_>>(),
        single,
    );
    let ps = round(&positions(rng, m, n), single);
    let pb = round(
        &(0..batch)
            .flat_map(|_| positions(rng, m, n))
            .collect::<Vec<_>>(),
        single,
    );
    let (rt, at) = tol(single);
    let grid = (0.0, 1.0);
    let r = |p: &[f64], shared: bool, k: K| {
        Ref {
            x: &x,
            batch,
            n: [n, 1],
            p: [p, p],
            rank: 1,
            shared,
            grids: [grid, grid],
            off: -7.5,
            single,
        }
        .eval(k)
    };
    for (method, k) in ALL1 {
        let what = format!("approx1 {method:?} single {single}");
        let (got_s, got_b) = if single {
            let xa = Array::from_slice(
                &x.iter().map(|&v| v as f32).collect::<Vec<_>>(),
                &[batch, n],
            )?;
            let pa = Array::from_slice(&ps.iter().map(|&v| v as f32).collect::<Vec<_>>(), &[m])?;
            let pba = Array::from_slice(
                &pb.iter().map(|&v| v as f32).collect::<Vec<_>>(),
                &[batch, m],
            )?;
            let f = |y: Array<f32>| -> cuprite_array::Result<Vec<f64>> {
                Ok(y.to_vec()?.iter().map(|&v| v as f64).collect())
            };
            (
                f(approx1(&xa, &pa, method, -7.5)?)?,
                f(approx1(&xa, &pba, method, -7.5)?)?,
            )
        } else {
            let xa = Array::from_slice(&x, &[batch, n])?;
            (
                approx1(&xa, &Array::from_slice(&ps, &[m])?, method, -7.5)?.to_vec()?,
                approx1(&xa, &Array::from_slice(&pb, &[batch, m])?, method, -7.5)?.to_vec()?,
            )
        };
        close(&got_s, &r(&ps, true, k), rt, at, &format!("{what} shared"))?;
        close(
            &got_b,
            &r(&pb, false, k),
            rt,
            at,
            &format!("{what} per signal"),
        )?;
    }
    if single {
        return Ok(());
    }
    // Along axis 0 of the transpose, samples at 2, 2.5, 3, ...: the same values at positions
    // 2 + c / 2; per-signal positions of shape [m, batch].
    let xt: Vec<f64> = (0..n * batch)
        .map(|i| x[(i % batch) * n + i / batch])
        .collect();
    let xta = Array::from_slice(&xt, &[n, batch])?;
    let to_grid = |p: &[f64]| p.iter().map(|c| 2.0 + c / 2.0).collect::<Vec<_>>();
    let pbt: Vec<f64> = (0..m * batch)
        .map(|i| pb[(i % batch) * m + i / batch])
        .collect();
    for (method, k) in ALL1 {
        let y = approx1_uniform(
            &xta,
            &Array::from_slice(&to_grid(&ps), &[m])?,
            0,
            2.0,
            0.5,
            method,
            -7.5,
        )?;
        assert_eq!(y.shape(), &[m, batch]);
        let y = y.to_vec()?;
        let want = r(&ps, true, k);
        let back: Vec<f64> = (0..batch * m).map(|i| y[(i % m) * batch + i / m]).collect();
        close(
            &back,
            &want,
            1e-12,
            1e-12,
            &format!("approx1 axis 0 {method:?}"),
        )?;
        let y = approx1_uniform(
            &xta,
            &Array::from_slice(&to_grid(&pbt), &[m, batch])?,
            0,
            2.0,
            0.5,
            method,
            -7.5,
        )?;
        let y = y.to_vec()?;
        let back: Vec<f64> = (0..batch * m).map(|i| y[(i % m) * batch + i / m]).collect();
        close(
            &back,
            &r(&pb, false, k),
            1e-12,
            1e-12,
            &format!("approx1 axis 0 per signal {method:?}"),
        )?;
    }
    // Positions of the input's rank broadcast along the batch axis: shared.
    let y = approx1(
        &Array::from_slice(&x, &[batch, n])?,
        &Array::from_slice(&ps, &[1, m])?,
        ApproxMethod::Cubic,
        -7.5,
    )?;
    assert_eq!(y.shape(), &[batch, m]);
    close(
        &y.to_vec()?,
        &r(&ps, true, K::Cubic),
        1e-12,
        1e-12,
        "approx1 broadcast",
    )?;
    Ok(())
}

fn approx1_values(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        approx1_case(&mut rng, false)?;
        approx1_case(&mut rng, true)
    })
}

/// `approx2`/`approx2_uniform` of `f64` values, every method: shared positions, per-image
/// positions, positions broadcast along one of two batch axes, and the axes swapped with
/// uniform grids.
fn approx2_values(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (b0, b1, n0, n1, m0, m1) = (2usize, 2usize, 6usize, 5usize, 4usize, 9usize);
        let batch = b0 * b1;
        let x: Vec<f64> = (0..batch * n0 * n1)
            .map(|_| rng.f32_in(-1.0, 1.0) as f64)
            .collect();
        let xa = Array::from_slice(&x, &[b0, b1, n0, n1])?;
        let plane = m0 * m1;
        let p0s = positions(&mut rng, plane, n0);
        let p1s = positions(&mut rng, plane, n1);
        let p0b: Vec<f64> = (0..batch)
            .flat_map(|_| positions(&mut rng, plane, n0))
            .collect();
        let p1b: Vec<f64> = (0..batch)
            .flat_map(|_| positions(&mut rng, plane, n1))
            .collect();
        let g = (0.0, 1.0);
        let r = |p0: &[f64], p1: &[f64], shared: bool, k: K| {
            Ref {
                x: &x,
                batch,
                n: [n0, n1],
                p: [p0, p1],
                rank: 2,
                shared,
                grids: [g, g],
                off: 3.25,
                single: false,
            }
            .eval(k)
        };
        let shared = |v: &[f64]| Array::from_slice(v, &[m0, m1]);
        let per = |v: &[f64]| Array::from_slice(v, &[b0, b1, m0, m1]);
        for (method, k) in ALL2 {
            let y = approx2(&xa, &shared(&p0s)?, &shared(&p1s)?, method, 3.25)?;
            assert_eq!(y.shape(), &[b0, b1, m0, m1]);
            close(
                &y.to_vec()?,
                &r(&p0s, &p1s, true, k),
                1e-12,
                1e-12,
                &format!("approx2 {method:?} shared"),
            )?;
            let y = approx2(&xa, &per(&p0b)?, &per(&p1b)?, method, 3.25)?.to_vec()?;
            close(
                &y,
                &r(&p0b, &p1b, false, k),
                1e-12,
                1e-12,
                &format!("approx2 {method:?} per image"),
            )?;
        }
        // Positions of shape [b0, 1, m0, m1]: per image along axis 0, broadcast along axis 1.
        let half0: Vec<f64> = p0b[..b0 * plane].to_vec();
        let half1: Vec<f64> = p1b[..b0 * plane].to_vec();
        let y = approx2(
            &xa,
            &Array::from_slice(&half0, &[b0, 1, m0, m1])?,
            &Array::from_slice(&half1, &[b0, 1, m0, m1])?,
            ApproxMethod::Bicubic,
            3.25,
        )?
        .to_vec()?;
        let e0: Vec<f64> = (0..batch)
            .flat_map(|b| half0[(b / b1) * plane..(b / b1 + 1) * plane].to_vec())
            .collect();
        let e1: Vec<f64> = (0..batch)
            .flat_map(|b| half1[(b / b1) * plane..(b / b1 + 1) * plane].to_vec())
            .collect();
        close(
            &y,
            &r(&e0, &e1, false, K::Cubic),
            1e-12,
            1e-12,
            "approx2 broadcast",
        )?;
        // The transposed images [b0, b1, n1, n0], interpolated with grid0 along axis 3 and grid1
        // along axis 2, samples at 1 + 3 i (axis 3) and -2 - 0.5 j (axis 2): the same values.
        let mut xt = vec![0.0; x.len()];
        for b in 0..batch {
            for i in 0..n0 {
                for j in 0..n1 {
                    xt[(b * n1 + j) * n0 + i] = x[(b * n0 + i) * n1 + j];
                }
            }
        }
        let xta = Array::from_slice(&xt, &[b0, b1, n1, n0])?;
        let q0: Vec<f64> = p0s.iter().map(|c| 1.0 + 3.0 * c).collect();
        let q1: Vec<f64> = p1s.iter().map(|c| -2.0 - 0.5 * c).collect();
        for (method, k) in ALL2 {
            let y = approx2_uniform(
                &xta,
                &shared(&q0)?,
                ApproxGrid::new(3, 1.0, 3.0),
                &shared(&q1)?,
                ApproxGrid::new(-2, -2.0, -0.5),
                method,
                3.25,
            )?;
            // The result has m0 along axis 3 and m1 along axis 2.
            assert_eq!(y.shape(), &[b0, b1, m1, m0]);
            let y = y.to_vec()?;
            let back: Vec<f64> = (0..batch * plane)
                .map(|o| {
                    let (b, j) = (o / plane, o % plane);
                    y[(b * m1 + j % m1) * m0 + j / m1]
                })
                .collect();
            close(
                &back,
                &r(&p0s, &p1s, true, k),
                1e-12,
                1e-12,
                &format!("approx2 swapped {method:?}"),
            )?;
        }
        Ok(())
    })
}

/// Complex values (`c64` in one dimension, `c32` in two): each part interpolated.
fn approx_complex(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let (n, m) = (9usize, 30usize);
        let re: Vec<f64> = (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
        let im: Vec<f64> = (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
        let z: Vec<c64> = re.iter().zip(&im).map(|(&a, &b)| c64::new(a, b)).collect();
        let p = positions(&mut rng, m, n);
        let pa = Array::from_slice(&p, &[m])?;
        let one = |v: &[f64], off: f64, k: K| {
            Ref {
                x: v,
                batch: 1,
                n: [n, 1],
                p: [&p, &p],
                rank: 1,
                shared: true,
                grids: [(0.0, 1.0); 2],
                off,
                single: false,
            }
            .eval(k)
        };
        for (method, k) in ALL1 {
            let y = approx1(&Array::from_slice(&z, &[n])?, &pa, method, 2.0)?.to_vec()?;
            let (yr, yi): (Vec<f64>, Vec<f64>) = y.iter().map(|v| (v.re, v.im)).unzip();
            close(
                &yr,
                &one(&re, 2.0, k),
                1e-12,
                1e-12,
                &format!("c64 re {method:?}"),
            )?;
            close(
                &yi,
                &one(&im, 0.0, k),
                1e-12,
                1e-12,
                &format!("c64 im {method:?}"),
            )?;
        }
        let (n0, n1, plane) = (5usize, 4usize, 12usize);
        let re: Vec<f64> = (0..n0 * n1).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
        let im: Vec<f64> = (0..n0 * n1).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
        let z: Vec<c32> = re
            .iter()
            .zip(&im)
            .map(|(&a, &b)| c32::new(a as f32, b as f32))
            .collect();
        let p0 = round(&positions(&mut rng, plane, n0), true);
        let p1 = round(&positions(&mut rng, plane, n1), true);
        let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        for (method, k) in ALL2 {
            let y = approx2(
                &Array::from_slice(&z, &[n0, n1])?,
                &Array::from_slice(&f(&p0), &[3, 4])?,
                &Array::from_slice(&f(&p1), &[3, 4])?,
                method,
                -1.0,
            )?
            .to_vec()?;
            let r = |v: &[f64], off: f64| {
                Ref {
                    x: v,
                    batch: 1,
                    n: [n0, n1],
                    p: [&p0, &p1],
                    rank: 2,
                    shared: true,
                    grids: [(0.0, 1.0); 2],
                    off,
                    single: true,
                }
                .eval(k)
            };
            let (yr, yi): (Vec<f64>, Vec<f64>) =
                y.iter().map(|v| (v.re as f64, v.im as f64)).unzip();
            close(
                &yr,
                &r(&re, -1.0),
                2e-5,
                2e-5,
                &format!("c32 re {method:?}"),
            )?;
            close(&yi, &r(&im, 0.0), 2e-5, 2e-5, &format!("c32 im {method:?}"))?;
        }
        Ok(())
    })
}

/// Values derived by hand: the squares `0, 1, 4, 9` at 1.5 and 1.25, and a plane `10 r + c`
/// that bilinear interpolation reproduces.
fn approx_known(d: Device) -> TestResult {
    on(d, || {
        let sq = Array::from_slice(&[0.0f64, 1.0, 4.0, 9.0], &[4])?;
        let p = Array::from_slice(&[1.5f64, 1.25, 3.0, 3.0001, -0.0001], &[5])?;
        let at = |m: ApproxMethod| -> cuprite_array::Result<Vec<f64>> {
            approx1(&sq, &p, m, -1.0)?.to_vec()
        };
        // Nearest: round(1.5) = 2, round(1.25) = 1; lower: floor.
        assert_eq!(at(ApproxMethod::Nearest)?, [4.0, 1.0, 9.0, -1.0, -1.0]);
        assert_eq!(at(ApproxMethod::Lower)?, [1.0, 1.0, 9.0, -1.0, -1.0]);
        assert_eq!(at(ApproxMethod::Linear)?, [2.5, 1.75, 9.0, -1.0, -1.0]);
        // Cosine: t = 0.25 becomes (1 - cos(pi / 4)) / 2 = 0.146446609...; t = 0.5 stays.
        let s = (1.0 - std::f64::consts::FRAC_1_SQRT_2) / 2.0;
        close(
            &at(ApproxMethod::LinearCosine)?,
            &[2.5, 1.0 + 3.0 * s, 9.0, -1.0, -1.0],
            1e-15,
            1e-15,
            "cosine",
        )?;
        // ArrayFire's cubic through 0, 1, 4, 9: a = 6, b = -7, c = 4, d = 1; at t = 0.5: 2,
        // at t = 0.25: 6/64 - 7/16 + 1 + 1 = 1.65625. At 3 (the last sample) the taps repeat 9.
        close(
            &at(ApproxMethod::Cubic)?,
            &[2.0, 1.65625, 9.0, -1.0, -1.0],
            1e-15,
            1e-15,
            "cubic",
        )?;
        // Catmull-Rom reproduces the quadratic: 2.25 and 1.5625.
        close(
            &at(ApproxMethod::CubicSpline)?,
            &[2.25, 1.5625, 9.0, -1.0, -1.0],
            1e-15,
            1e-15,
            "spline",
        )?;
        let z: Vec<f32> = (0..20).map(|i| (10 * (i / 5) + i % 5) as f32).collect();
        let z = Array::from_slice(&z, &[4, 5])?;
        let r = Array::from_slice(&[0.5f32, 2.25, 3.0, 1.0], &[1, 4])?;
        let c = Array::from_slice(&[3.5f32, 0.75, 4.0, 4.5], &[1, 4])?;
        let y = approx2(&z, &r, &c, ApproxMethod::Bilinear, 99.0)?;
        assert_eq!(y.shape(), &[1, 4]);
        // 10 r + c at (0.5, 3.5), (2.25, 0.75), (3, 4); column 4.5 lies past the last.
        assert_eq!(y.to_vec()?, [8.5, 23.25, 34.0, 99.0]);
        Ok(())
    })
}

/// CUDA against the CPU backend on calls larger than the bodies': shared positions with a
/// batch large enough that a thread serves several signals, per-image positions, complex
/// values, every method.
fn matches_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    let (batch, n, m) = (600usize, 50usize, 1000usize);
    let x: Vec<f32> = (0..batch * n).map(|_| rng.f32_in(-1.0, 1.0)).collect();
    let p: Vec<f32> = (0..m).map(|_| rng.f32_in(-2.0, n as f32 + 1.0)).collect();
    let (b2, n0, n1, m0, m1) = (3usize, 64usize, 48usize, 70usize, 50usize);
    let z: Vec<c64> = (0..b2 * n0 * n1)
        .map(|_| c64::new(rng.f32_in(-1.0, 1.0) as f64, rng.f32_in(-1.0, 1.0) as f64))
        .collect();
    let q0: Vec<f64> = (0..b2 * m0 * m1)
        .map(|_| rng.f32_in(-1.0, n0 as f32) as f64)
        .collect();
    let q1: Vec<f64> = (0..b2 * m0 * m1)
        .map(|_| rng.f32_in(-1.0, n1 as f32) as f64)
        .collect();
    type Out = (Vec<f32>, Vec<c64>);
    let run = |d: Device, m1d: ApproxMethod, m2d: ApproxMethod| -> cuprite_array::Result<Out> {
        on(d, || {
            let y1 = approx1(
                &Array::from_slice(&x, &[batch, n])?,
                &Array::from_slice(&p, &[m])?,
                m1d,
                0.5,
            )?;
            let zs = Array::from_slice(&z, &[b2, n0, n1])?;
            let a0 = Array::from_slice(&q0, &[b2, m0, m1])?;
            let a1 = Array::from_slice(&q1, &[b2, m0, m1])?;
            Ok((y1.to_vec()?, approx2(&zs, &a0, &a1, m2d, -3.0)?.to_vec()?))
        })
    };
    for (i, (m2d, _)) in ALL2.iter().enumerate() {
        let m1d = ALL1[i % ALL1.len()].0;
        let (g1, g2) = run(Device::cuda(0), m1d, *m2d)?;
        let (c1, c2) = run(Device::CPU, m1d, *m2d)?;
        let f = |v: &[f32]| v.iter().map(|&a| a as f64).collect::<Vec<_>>();
        close(
            &f(&g1),
            &f(&c1),
            1e-6,
            1e-6,
            &format!("approx1 {m1d:?} cuda vs cpu"),
        )?;
        let parts = |v: &[c64]| v.iter().flat_map(|a| [a.re, a.im]).collect::<Vec<_>>();
        close(
            &parts(&g2),
            &parts(&c2),
            1e-12,
            1e-12,
            &format!("approx2 {m2d:?} cuda vs cpu"),
        )?;
    }
    Ok(())
}

/// Positions for the `f32` comparisons of [`f32_matches_cpu`]: random over `[lo, hi]`, with
/// the first few the edges of a grid of `n` samples at `start + k step`, an exact sample,
/// `-0` and the infinities.
fn f32_positions(rng: &mut Rng, m: usize, n: usize, (start, step): (f64, f64)) -> Vec<f32> {
    let last = start + (n - 1) as f64 * step;
    let special = [
        start as f32,
        last as f32,
        (start + step) as f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let (lo, hi) = (
        start.min(last) - 1.5 * step.abs(),
        start.max(last) + step.abs(),
    );
    (0..m)
        .map(|i| {
            special
                .get(i)
                .copied()
                .unwrap_or_else(|| rng.f32_in(lo as f32, hi as f32))
        })
        .collect()
}

/// CUDA `approx2` of `f32` images against the CPU backend, every method, on the kernel's
/// paths: one image at 2-D positions (the benchmark's form), a batch sharing 2-D positions
/// (one thread serving one and two images, the 32-bit division by the plane), per-image
/// positions broadcast along the batch, and grids whose steps are a power of two (a product
/// with the exact reciprocal), negative, or not a power of two (a division). The two backends
/// compute the same arithmetic in the same order.
fn f32_matches_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    struct Case {
        x: (Vec<f32>, Vec<usize>),
        p: Vec<usize>,
        g0: ApproxGrid,
        g1: ApproxGrid,
        p0: Vec<f32>,
        p1: Vec<f32>,
    }
    let mut cases = Vec::new();
    let shapes: [(&[usize], &[usize], (f64, f64), (f64, f64)); 6] = [
        (&[97, 130], &[111, 123], (0.0, 1.0), (0.0, 1.0)),
        (&[5, 40, 33], &[57, 61], (0.0, 1.0), (0.0, 1.0)),
        (&[300, 8, 9], &[40, 50], (0.0, 1.0), (0.0, 1.0)),
        (&[2, 3, 20, 31], &[2, 1, 45, 17], (1.5, 0.25), (-4.0, -2.0)),
        (&[2, 19, 23], &[2, 29, 37], (-2.0, 0.3), (10.0, 0.75)),
        (&[64, 48], &[64, 48], (0.5, 4.0), (-1.0, 1.0 / 3.0)),
    ];
    for (xs, ps, s0, s1) in shapes {
        let nd = xs.len();
        let (n0, n1) = (xs[nd - 2], xs[nd - 1]);
        let np: usize = ps.iter().product();
        let x: Vec<f32> = (0..xs.iter().product::<usize>())
            .map(|_| rng.f32_in(-1.0, 1.0))
            .collect();
        cases.push(Case {
            x: (x, xs.to_vec()),
            p: ps.to_vec(),
            g0: ApproxGrid::new(-2, s0.0, s0.1),
            g1: ApproxGrid::new(-1, s1.0, s1.1),
            p0: f32_positions(&mut rng, np, n0, s0),
            p1: f32_positions(&mut rng, np, n1, s1),
        });
    }
    let run = |d: Device, c: &Case, m: ApproxMethod| -> cuprite_array::Result<Vec<f32>> {
        on(d, || {
            let x = Array::from_slice(&c.x.0, &c.x.1)?;
            let p0 = Array::from_slice(&c.p0, &c.p)?;
            let p1 = Array::from_slice(&c.p1, &c.p)?;
            approx2_uniform(&x, &p0, c.g0, &p1, c.g1, m, -7.0)?.to_vec()
        })
    };
    let f = |v: &[f32]| v.iter().map(|&a| a as f64).collect::<Vec<_>>();
    for (ci, c) in cases.iter().enumerate() {
        for (m, _) in ALL2 {
            let g = run(Device::cuda(0), c, m)?;
            let want = run(Device::CPU, c, m)?;
            if !want.contains(&-7.0) || want.iter().all(|&v| v == -7.0) {
                return Err(
                    format!("case {ci}: the positions miss the grid or its outside").into(),
                );
            }
            close(
                &f(&g),
                &f(&want),
                1e-6,
                1e-6,
                &format!("approx2 f32 case {ci} {m:?} cuda vs cpu"),
            )?;
        }
    }
    Ok(())
}

/// NaN positions on CUDA, in the first and the second point a thread takes and in a batch
/// sharing its positions: each such point takes the off-grid value and every other point the
/// value it has without the NaN (the CPU backend's, without any NaN).
fn nan_on_cuda() -> TestResult {
    let mut rng = Rng::fresh();
    let (n0, n1, m0, m1) = (50usize, 60usize, 300usize, 301usize);
    // Every position on the grid, so that only the NaN one gives the off-grid value.
    let x: Vec<f32> = (0..3 * n0 * n1).map(|_| rng.f32_in(-1.0, 1.0)).collect();
    let p0: Vec<f32> = (0..m0 * m1)
        .map(|_| rng.f32_in(0.0, (n0 - 1) as f32))
        .collect();
    let p1: Vec<f32> = (0..m0 * m1)
        .map(|_| rng.f32_in(0.0, (n1 - 1) as f32))
        .collect();
    let plane = m0 * m1;
    type Pair = (Vec<f32>, Vec<f32>);
    let run = |d: Device, q0: &[f32], q1: &[f32]| -> cuprite_array::Result<Pair> {
        on(d, || {
            let a0 = Array::from_slice(q0, &[m0, m1])?;
            let a1 = Array::from_slice(q1, &[m0, m1])?;
            let one = Array::from_slice(&x[..n0 * n1], &[n0, n1])?;
            let batch = Array::from_slice(&x, &[3, n0, n1])?;
            Ok((
                approx2(&one, &a0, &a1, ApproxMethod::Bilinear, -5.0)?.to_vec()?,
                approx2(&batch, &a0, &a1, ApproxMethod::Bicubic, -5.0)?.to_vec()?,
            ))
        })
    };
    let (want1, want3) = run(Device::CPU, &p0, &p1)?;
    if want1.contains(&-5.0) {
        return Err("a position without NaN lies off the grid".into());
    }
    let f = |v: &[f32]| v.iter().map(|&a| a as f64).collect::<Vec<_>>();
    // Flat points 5 (a thread's first) and m0 * m1 - 2 (in the launch's second half: a
    // thread's second point).
    for (which, at) in [(0usize, 5usize), (1, plane - 2)] {
        let mut q = [p0.clone(), p1.clone()];
        q[which][at] = f32::NAN;
        let (got1, got3) = run(Device::cuda(0), &q[0], &q[1])?;
        let mut e1 = want1.clone();
        e1[at] = -5.0;
        let mut e3 = want3.clone();
        for b in 0..3 {
            e3[b * plane + at] = -5.0;
        }
        close(
            &f(&got1),
            &f(&e1),
            1e-6,
            1e-6,
            &format!("pos{which} NaN at {at}, one image"),
        )?;
        close(
            &f(&got3),
            &f(&e3),
            1e-6,
            1e-6,
            &format!("pos{which} NaN at {at}, a batch"),
        )?;
    }
    Ok(())
}

/// CUDA bilinear `approx2` of one `f32` image on the tiled kernel's edges, bit for bit against
/// the CPU twin (the same arithmetic in the same order) and against the f64 reference:
/// positions on a grid rotated about the image's centre (mostly inside, a margin off it, as the
/// benchmark's) with NaN and infinite positions among them, on planes whose rows and columns
/// are not multiples of a tile's (rows of whole 16-byte vectors, and rows of an odd length that
/// take one point a thread), and tiny images (one sample, one row, one column).
fn approx2_tile_edges() -> TestResult {
    let mut rng = Rng::fresh();
    let cases: [(usize, usize, usize, usize); 8] = [
        (300, 260, 131, 260),
        (97, 130, 67, 132),
        (37, 45, 13, 43),
        (64, 64, 9, 4),
        (1, 1, 3, 8),
        (1, 7, 5, 12),
        (9, 1, 6, 4),
        (2, 2, 33, 36),
    ];
    for (ci, &(n0, n1, m0, m1)) in cases.iter().enumerate() {
        let x: Vec<f32> = (0..n0 * n1).map(|_| rng.f32_in(-1.0, 1.0)).collect();
        let (sin, cos) = 10f32.to_radians().sin_cos();
        let (c0, c1) = ((n0 as f32 - 1.0) / 2.0, (n1 as f32 - 1.0) / 2.0);
        let (k0, k1) = (n0 as f32 / m0 as f32, n1 as f32 / m1 as f32);
        let mut p0 = Vec::with_capacity(m0 * m1);
        let mut p1 = Vec::with_capacity(m0 * m1);
        for i in 0..m0 {
            for j in 0..m1 {
                let (u, v) = (
                    (i as f32 + 0.5) * k0 - n0 as f32 / 2.0,
                    (j as f32 + 0.5) * k1 - n1 as f32 / 2.0,
                );
                p0.push(1.1 * (u * cos - v * sin) + c0 + 0.3);
                p1.push(1.1 * (u * sin + v * cos) + c1 - 0.2);
            }
        }
        for (k, v) in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0]
            .into_iter()
            .enumerate()
        {
            let at = (k * 7919 + 3) % (m0 * m1);
            p0[at] = v;
            p1[(at + 1) % (m0 * m1)] = v;
        }
        // The first sample: on the grid of every image, one sample wide included.
        p0[0] = 0.0;
        p1[0] = 0.0;
        let run = |d: Device| -> cuprite_array::Result<Vec<f32>> {
            on(d, || {
                let xa = Array::from_slice(&x, &[n0, n1])?;
                let a0 = Array::from_slice(&p0, &[m0, m1])?;
                let a1 = Array::from_slice(&p1, &[m0, m1])?;
                approx2(&xa, &a0, &a1, ApproxMethod::Bilinear, -7.0)?.to_vec()
            })
        };
        let got = run(Device::cuda(0))?;
        let twin = run(Device::CPU)?;
        if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != twin[i].to_bits()) {
            return Err(format!(
                "case {ci} ({n0}x{n1} at {m0}x{m1}): point {i} is {} on CUDA, {} on the CPU twin",
                got[i], twin[i]
            )
            .into());
        }
        let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let (q0, q1): (Vec<f64>, Vec<f64>) = p0
            .iter()
            .zip(&p1)
            .map(|(&a, &b)| (a as f64, b as f64))
            .unzip();
        let want = Ref {
            x: &xd,
            batch: 1,
            n: [n0, n1],
            p: [&q0, &q1],
            rank: 2,
            shared: true,
            grids: [(0.0, 1.0), (0.0, 1.0)],
            off: -7.0,
            single: true,
        }
        .eval(K::Linear);
        if !want.contains(&-7.0) || want.iter().all(|&v| v == -7.0) {
            return Err(format!("case {ci}: the positions miss the grid or its outside").into());
        }
        let g: Vec<f64> = got.iter().map(|&v| v as f64).collect();
        let (rtol, atol) = tol(true);
        close(
            &g,
            &want,
            rtol,
            atol,
            &format!("approx2 tile edges case {ci} vs f64"),
        )?;
    }
    Ok(())
}

/// `approx2` inside a compiled program (nothing is read back, so it records like any
/// operation): the replay gives the CPU backend's values, a NaN position the off-grid value.
#[cfg(feature = "capture")]
fn in_capture() -> TestResult {
    let mut rng = Rng::fresh();
    let (n0, n1, m0, m1) = (20usize, 30usize, 40usize, 50usize);
    let x: Vec<f32> = (0..n0 * n1).map(|_| rng.f32_in(-1.0, 1.0)).collect();
    let p0: Vec<f32> = (0..m0 * m1).map(|_| rng.f32_in(-1.0, n0 as f32)).collect();
    let mut p1: Vec<f32> = (0..m0 * m1).map(|_| rng.f32_in(-1.0, n1 as f32)).collect();
    p1[7] = f32::NAN;
    let want = on(Device::CPU, || -> cuprite_array::Result<Vec<f32>> {
        let x = Array::from_slice(&x, &[n0, n1])?;
        let a0 = Array::from_slice(&p0, &[m0, m1])?;
        let a1 = Array::from_slice(&p1, &[m0, m1])?;
        approx2(&x, &a0, &a1, ApproxMethod::Bilinear, 2.5)?.to_vec()
    })?;
    if want[7] != 2.5 {
        return Err(format!("the NaN position gave {} on the CPU, expected 2.5", want[7]).into());
    }
    let prog = cuprite_array::compile(|a: &[Array<f32>]| {
        Ok(vec![approx2(
            &a[0],
            &a[1],
            &a[2],
            ApproxMethod::Bilinear,
            2.5,
        )?])
    });
    let got = on(Device::cuda(0), || -> cuprite_array::Result<Vec<f32>> {
        let xs = Array::from_slice(&x, &[n0, n1])?;
        let a0 = Array::from_slice(&p0, &[m0, m1])?;
        let a1 = Array::from_slice(&p1, &[m0, m1])?;
        // Twice: the recording call and a replay.
        prog.call(&[&xs, &a0, &a1])?;
        prog.call(&[&xs, &a0, &a1])?[0].to_vec()
    })?;
    close(
        &got.iter().map(|&a| a as f64).collect::<Vec<_>>(),
        &want.iter().map(|&a| a as f64).collect::<Vec<_>>(),
        1e-6,
        1e-6,
        "approx2 in a compiled program, cuda vs cpu",
    )
}

/// Every variant of the kernel compiles through NVRTC (sources recorded from CPU runs).
fn kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    // A batch of 1024 images sharing 512 points: threads that serve two images each.
    let grouped = || -> TestResult {
        let x = Array::<f32>::zeros(&[1024, 4, 4]);
        let p = Array::<f32>::zeros(&[32, 16]);
        approx2(&x, &p, &p, ApproxMethod::Bilinear, 0.0)?.eval()?;
        Ok(())
    };
    let runs = [
        approx1_values(Device::CPU),
        approx2_values(Device::CPU),
        approx_complex(Device::CPU),
        on(Device::CPU, grouped),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| s.contains("cuprite_approx"))
        .collect();
    for r in runs {
        r?;
    }
    for want in [
        "cuprite_approx1_f32_k0_s",
        "cuprite_approx1_f64_k5",
        "cuprite_approx1_f64_c_k3_s",
        "cuprite_approx2_f64_k4",
        "cuprite_approx2_f32_c_k2_s",
        "cuprite_approx2_f32_k2_s_q0_t4_g",
    ] {
        if !sources.iter().any(|s| s.contains(want)) {
            return Err(format!("{want} was not recorded ({} sources)", sources.len()).into());
        }
    }
    crate::codegen::compile_all(&sources)
}

/// Inputs that are contiguous views into larger arrays (read in place): an image that is one
/// of a batch and positions sliced out of one stacked array. `z = 100 + 10 r + c` on a 3 x 4
/// grid, which bilinear interpolation reproduces.
fn approx_views(d: Device) -> TestResult {
    on(d, || {
        let z: Vec<f32> = (0..24)
            .map(|i| (100 * (i / 12) + 10 * (i % 12 / 4) + i % 4) as f32)
            .collect();
        let zs = Array::from_slice(&z, &[2, 3, 4])?.slice(&[SliceArg::Index(1)])?;
        let rc = [0.5f32, 1.25, 2.0, 1.0, 0.5, 2.5, 3.0, 0.0, 9.0, 9.0];
        let stacked = Array::from_slice(&rc, &[10])?;
        let r = stacked.slice(&[SliceArg::Range {
            start: Some(0),
            end: Some(4),
            step: 1,
        }])?;
        let c = stacked.slice(&[SliceArg::Range {
            start: Some(4),
            end: Some(8),
            step: 1,
        }])?;
        let (r, c) = (r.reshape(&[2, 2])?, c.reshape(&[2, 2])?);
        let y = approx2(&zs, &r, &c, ApproxMethod::Bilinear, -1.0)?;
        assert_eq!(y.to_vec()?, [105.5, 115.0, 123.0, 110.0]);
        let y1 = approx1(&zs, &c.flatten()?, ApproxMethod::Linear, -1.0)?;
        assert_eq!(
            y1.to_vec()?,
            [
                100.5, 102.5, 103.0, 100.0, 110.5, 112.5, 113.0, 110.0, 120.5, 122.5, 123.0, 120.0
            ]
        );
        Ok(())
    })
}

fn approx_errors(d: Device) -> TestResult {
    on(d, || {
        let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let p = Array::from_slice(&[0.5f32, f32::NAN, 1.0], &[3])?;
        let q = Array::from_slice(&[0.5f32, 1.0, 0.0, 2.0, 1.0, f32::NAN], &[2, 3])?;
        let ok = Array::from_slice(&[0.5f32, 1.0, 0.0, 2.0, 1.0, 0.0], &[2, 3])?;
        // A NaN position is no error: its point lies off the grid. Shared positions along the
        // rows [1, 2, 3] and [4, 5, 6]; per-row positions; (row, column) points, nearest
        // rounding halves up, row 2 and the NaN column off the grid.
        assert_eq!(
            approx1(&x, &p, ApproxMethod::Linear, -9.0)?.to_vec()?,
            [1.5, -9.0, 2.0, 4.5, -9.0, 5.0]
        );
        assert_eq!(
            approx1(&x, &q, ApproxMethod::Linear, -9.0)?.to_vec()?,
            [1.5, 2.0, 1.0, 6.0, 5.0, -9.0]
        );
        assert_eq!(
            approx2(&x, &ok, &q, ApproxMethod::Nearest, -9.0)?.to_vec()?,
            [5.0, 5.0, 1.0, -9.0, 5.0, -9.0]
        );
        // With NaN as the off-grid value: points 3 (row 2) and 5 (a NaN row) are NaN.
        let nan_off = approx2(&x, &q, &ok, ApproxMethod::Bicubic, f64::NAN)?.to_vec()?;
        let nans: Vec<bool> = nan_off.iter().map(|v| v.is_nan()).collect();
        if nans != [false, false, false, true, false, true] {
            return Err(format!("NaN positions with a NaN off-grid value: {nan_off:?}").into());
        }
        assert_err(
            approx1(&x, &ok, ApproxMethod::Bilinear, 0.0),
            "InvalidArgument",
            "Bilinear",
        );
        assert_err(
            approx1_uniform(&x, &p, 1, 0.0, 0.0, ApproxMethod::Linear, 0.0),
            "InvalidArgument",
            "step 0",
        );
        assert_err(
            approx1_uniform(&x, &p, 1, f64::NAN, 1.0, ApproxMethod::Linear, 0.0),
            "InvalidArgument",
            "start NaN",
        );
        assert_err(
            approx1_uniform(&x, &p, 2, 0.0, 1.0, ApproxMethod::Linear, 0.0),
            "InvalidArgument",
            "axis 2",
        );
        let bad = Array::from_slice(&[0.5f32; 8], &[4, 2])?;
        assert_err(
            approx1(&x, &bad, ApproxMethod::Linear, 0.0),
            "Shape",
            "[4, 2]",
        );
        assert_err(
            approx2(&x, &ok, &p, ApproxMethod::Linear, 0.0),
            "Shape",
            "[3]",
        );
        let g = ApproxGrid::new(0, 0.0, 1.0);
        assert_err(
            approx2_uniform(&x, &ok, g, &ok, g, ApproxMethod::Linear, 0.0),
            "InvalidArgument",
            "axis 0",
        );
        assert_err(
            approx2(&p, &p, &p, ApproxMethod::Linear, 0.0),
            "Shape",
            "[3]",
        );
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("approx1_values", approx1_values),
    ("approx2_values", approx2_values),
    ("complex", approx_complex),
    ("known", approx_known),
    ("errors", approx_errors),
    ("views", approx_views),
];

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc("codegen::approx_kernels_compile", kernels_compile),
        Test::gpu("cuda::signal_approx::matches_cpu", matches_cpu),
        Test::gpu("cuda::signal_approx::f32_matches_cpu", f32_matches_cpu),
        Test::gpu("cuda::signal_approx::nan_on_cuda", nan_on_cuda),
        Test::gpu(
            "cuda::signal_approx::approx2_tile_edges",
            approx2_tile_edges,
        ),
    ];
    // A capture runs alone, as every capture test does (`capture.rs`): a capture beside other
    // threads' eager work is not what this test checks.
    #[cfg(feature = "capture")]
    v.push(Test::gpu_alone(
        "cuda::signal_approx::in_capture",
        in_capture,
    ));
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::signal_approx::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::signal_approx::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
