//! The `image` filters (SciPy's `ndimage` filters and ArrayFire's names) against f64 host
//! references written here from the definitions (direct sums and sorts over the window, with
//! the boundary extension written out independently), and values published in SciPy's
//! documentation. Bodies run on every backend; the GPU test compares CUDA with the CPU for
//! every boundary mode and element type.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::image::{
    self, Boundary, FilterOpts, FilterWindow, GaussianOpts, ImageElement, Pad,
};
use cuprite_array::{Array, Device, Element, f16};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

const MODES: [Boundary; 7] = [
    Boundary::Reflect,
    Boundary::Constant(0.0),
    Boundary::Constant(-1.5),
    Boundary::Nearest,
    Boundary::Mirror,
    Boundary::Wrap,
    Boundary::GridConstant(2.0),
];

/// The index whose value stands at `i` of a line of `n`, by walking the extension one period
/// at a time (independent of the library's closed forms); `None` for the constant.
fn ext(mode: Boundary, i: i64, n: i64) -> Option<usize> {
    let mut i = i;
    match mode {
        Boundary::Constant(_) | Boundary::GridConstant(_) => {
            return (0..n).contains(&i).then_some(i as usize);
        }
        Boundary::Nearest => return Some(i.clamp(0, n - 1) as usize),
        Boundary::Wrap | Boundary::GridWrap => {
            while i < 0 {
                i += n;
            }
            while i >= n {
                i -= n;
            }
        }
        Boundary::Reflect => {
            // d c b a | a b c d | d c b a: fold about -0.5 and n - 0.5 until inside.
            while !(0..n).contains(&i) {
                i = if i < 0 { -1 - i } else { 2 * n - 1 - i };
            }
        }
        Boundary::Mirror => {
            if n == 1 {
                return Some(0);
            }
            while !(0..n).contains(&i) {
                i = if i < 0 { -i } else { 2 * n - 2 - i };
            }
        }
    }
    Some(i as usize)
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

fn unflat(mut f: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        idx[i] = f % shape[i];
        f /= shape[i];
    }
    idx
}

/// The values of the window of `k` (every axis of `xs` filtered): `(weight index, value)` for
/// each element of a window of shape `ws` with centres `c`.
fn window(
    x: &[f64],
    xs: &[usize],
    k: &[usize],
    ws: &[usize],
    c: &[i64],
    mode: Boundary,
) -> Vec<f64> {
    let sx = strides(xs);
    let nw: usize = ws.iter().product();
    (0..nw)
        .map(|f| {
            let j = unflat(f, ws);
            let mut at = 0usize;
            for a in 0..xs.len() {
                match ext(mode, k[a] as i64 + j[a] as i64 - c[a], xs[a] as i64) {
                    Some(i) => at += i * sx[a],
                    None => return mode.cval(),
                }
            }
            x[at]
        })
        .collect()
}

/// SciPy's n-d correlation by its definition, every axis filtered.
fn corr_ref(
    x: &[f64],
    xs: &[usize],
    w: &[f64],
    ws: &[usize],
    c: &[i64],
    mode: Boundary,
) -> Vec<f64> {
    (0..x.len())
        .map(|o| {
            let k = unflat(o, xs);
            window(x, xs, &k, ws, c, mode)
                .iter()
                .zip(w)
                .map(|(v, w)| v * w)
                .sum()
        })
        .collect()
}

/// The 1-d correlation along axis `a` with centre `c` (a window of extent 1 elsewhere): what
/// [`corr_ref`] gives for that window, the same products summed in the same order, walking
/// each line along the axis directly (large images stay quick to check).
fn corr1_ref(x: &[f64], xs: &[usize], a: usize, w: &[f64], c: i64, mode: Boundary) -> Vec<f64> {
    let n = xs[a];
    let inner: usize = xs[a + 1..].iter().product();
    let outer: usize = xs[..a].iter().product();
    let mut out = vec![0.0; x.len()];
    for o in 0..outer {
        for k in 0..inner {
            let at = |i: usize| (o * n + i) * inner + k;
            for i in 0..n {
                out[at(i)] = w
                    .iter()
                    .enumerate()
                    .map(|(t, &wt)| {
                        let v = match ext(mode, i as i64 + t as i64 - c, n as i64) {
                            Some(j) => x[at(j)],
                            None => mode.cval(),
                        };
                        v * wt
                    })
                    .sum();
            }
        }
    }
    out
}

/// The value of rank `r` of each window of the footprint `mask` (shape `ms`, centres `c`).
fn rank_ref(
    x: &[f64],
    xs: &[usize],
    mask: &[bool],
    ms: &[usize],
    c: &[i64],
    r: usize,
    mode: Boundary,
) -> Vec<f64> {
    (0..x.len())
        .map(|o| {
            let k = unflat(o, xs);
            let v: Vec<f64> = window(x, xs, &k, ms, c, mode)
                .into_iter()
                .zip(mask)
                .filter(|(_, m)| **m)
                .map(|(v, _)| v)
                .collect();
            // Numbers ascending, then the NaNs.
            let mut nums: Vec<f64> = v.iter().copied().filter(|a| !a.is_nan()).collect();
            nums.sort_by(|a, b| a.partial_cmp(b).unwrap());
            nums.get(r).copied().unwrap_or(f64::NAN)
        })
        .collect()
}

/// The Gaussian's weights of `order` 0, 1 or 2 from their closed forms (the normalised
/// Gaussian, its first and second derivatives), reversed as `gaussian_filter1d` applies them.
fn gauss_ref(sigma: f64, order: usize, r: usize) -> Vec<f64> {
    let xs: Vec<f64> = (0..=2 * r).map(|i| i as f64 - r as f64).collect();
    let phi: Vec<f64> = xs
        .iter()
        .map(|x| (-x * x / (2.0 * sigma * sigma)).exp())
        .collect();
    let z: f64 = phi.iter().sum();
    let s2 = sigma * sigma;
    let mut w: Vec<f64> = xs
        .iter()
        .zip(&phi)
        .map(|(&x, &p)| {
            let g = p / z;
            match order {
                0 => g,
                1 => -x / s2 * g,
                _ => (x * x / (s2 * s2) - 1.0 / s2) * g,
            }
        })
        .collect();
    w.reverse();
    w
}

fn rvec(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<f64> {
    (0..n).map(|_| rng.f32_in(lo, hi) as f64).collect()
}

fn arr(v: &[f64], s: &[usize]) -> Array<f64> {
    Array::from_slice(v, s).unwrap()
}

fn published(_d: Device) -> TestResult {
    let x = Array::from_slice(&[2u8, 8, 0, 4, 1, 9, 9, 0], &[8])?;
    assert_eq!(
        image::correlate1d(&x, &[1.0, 3.0])?.to_vec()?,
        [8, 26, 8, 12, 7, 28, 36, 9]
    );
    assert_eq!(
        image::convolve1d(&x, &[1.0, 3.0])?.to_vec()?,
        [14, 24, 4, 13, 12, 36, 27, 0]
    );
    assert_eq!(
        image::uniform_filter1d(&x, 3)?.to_vec()?,
        [4, 3, 4, 1, 4, 6, 6, 3]
    );
    assert_eq!(
        image::minimum_filter1d(&x, 3)?.to_vec()?,
        [2, 0, 0, 0, 1, 1, 0, 0]
    );
    assert_eq!(
        image::maximum_filter1d(&x, 3)?.to_vec()?,
        [8, 8, 8, 4, 9, 9, 9, 9]
    );
    // ndimage.convolve's examples: constant 0 and 1, reflect and nearest.
    let a = Array::from_slice(
        &[1u16, 2, 0, 0, 5, 3, 0, 4, 0, 0, 0, 7, 9, 3, 0, 0],
        &[4, 4],
    )?;
    let k = arr(&[1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0], &[3, 3]);
    let c0 = FilterOpts::new().boundary(Boundary::Constant(0.0));
    assert_eq!(
        image::convolve_with(&a, &k, c0)?.to_vec()?,
        [11, 10, 7, 4, 10, 3, 11, 11, 15, 12, 14, 7, 12, 3, 7, 0]
    );
    let c1 = FilterOpts::new().boundary(Boundary::Constant(1.0));
    assert_eq!(
        image::convolve_with(&a, &k, c1)?.to_vec()?,
        [13, 11, 8, 7, 11, 3, 11, 14, 16, 12, 14, 10, 15, 6, 10, 5]
    );
    let b = Array::from_slice(&[2.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], &[3, 3])?;
    let kv = arr(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0], &[3, 3]);
    assert_eq!(
        image::convolve(&b, &kv)?.to_vec()?,
        [5.0, 0.0, 0.0, 3.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    );
    let c = Array::from_slice(&[2.0f64, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], &[3, 3])?;
    let k5 = arr(&[0.0, 1.0, 0.0].repeat(5), &[5, 3]);
    let near = FilterOpts::new().boundary(Boundary::Nearest);
    assert_eq!(
        image::convolve_with(&c, &k5, near)?.to_vec()?,
        [7.0, 0.0, 3.0, 5.0, 0.0, 2.0, 3.0, 0.0, 1.0]
    );
    // gaussian_filter1d's example, sigma 1 and 4.
    let g = arr(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5]);
    close(
        &image::gaussian_filter1d(&g, 1.0)?.to_vec()?,
        &[1.42704095, 2.06782203, 3.0, 3.93217797, 4.57295905],
        0.0,
        1e-8,
        "gaussian_filter1d sigma 1",
    )?;
    close(
        &image::gaussian_filter1d(&g, 4.0)?.to_vec()?,
        &[2.91948343, 2.95023502, 3.0, 3.04976498, 3.08051657],
        0.0,
        1e-8,
        "gaussian_filter1d sigma 4",
    )?;
    // gaussian_filter's example on integers (each axis truncated in turn).
    let gi = Array::from_slice(&(0..25).map(|i| 2 * i as u16).collect::<Vec<_>>(), &[5, 5])?;
    assert_eq!(
        image::gaussian_filter(&gi, &[1.0])?.to_vec()?,
        [
            4, 6, 8, 9, 11, 10, 12, 14, 15, 17, 20, 22, 24, 25, 27, 29, 31, 33, 34, 36, 35, 37, 39,
            40, 42
        ]
    );
    Ok(())
}

/// n-d correlation and convolution of random weights (some zero) in every mode, with random
/// origins, over 1, 2 and 3 axes and with a batch axis.
fn correlate_random(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for (xs, ws) in [
            (vec![23usize], vec![4usize]),
            (vec![9, 13], vec![3, 4]),
            (vec![5, 6, 7], vec![3, 2, 3]),
            (vec![3, 1], vec![5, 1]),
        ] {
            let n: usize = xs.iter().product();
            let nw: usize = ws.iter().product();
            let x = rvec(&mut rng, n, -2.0, 2.0);
            let mut w = rvec(&mut rng, nw, -1.0, 1.0);
            w[0] = 0.0;
            let xa = arr(&x, &xs);
            let wa = arr(&w, &ws);
            for mode in MODES {
                let origins: Vec<isize> = ws
                    .iter()
                    .map(|&m| {
                        let lo = -((m / 2) as isize);
                        lo + (rng.next_u64() % m as u64) as isize
                    })
                    .collect();
                let c: Vec<i64> = ws
                    .iter()
                    .zip(&origins)
                    .map(|(&m, &o)| (m / 2) as i64 + o as i64)
                    .collect();
                let o = FilterOpts::new().boundary(mode).origin(&origins);
                let got = image::correlate_with(&xa, &wa, o.clone())?.to_vec()?;
                let want = corr_ref(&x, &xs, &w, &ws, &c, mode);
                close(
                    &got,
                    &want,
                    1e-12,
                    1e-12,
                    &format!("correlate {xs:?} {ws:?} {mode:?} {origins:?}"),
                )?;
                // convolve = correlate with the weights reversed, origins mirrored.
                let wr: Vec<f64> = w.iter().rev().copied().collect();
                let cc: Vec<i64> = ws
                    .iter()
                    .zip(&origins)
                    .map(|(&m, &o)| {
                        m as i64 - 1 - (m / 2) as i64 - o as i64 - i64::from(m % 2 == 0)
                            + i64::from(m % 2 == 0)
                    })
                    .collect();
                let got = image::convolve_with(&xa, &wa, o)?.to_vec()?;
                let want = corr_ref(&x, &xs, &wr, &ws, &cc, mode);
                close(
                    &got,
                    &want,
                    1e-12,
                    1e-12,
                    &format!("convolve {xs:?} {ws:?} {mode:?} {origins:?}"),
                )?;
            }
        }
        // Filtered axes among batch axes: axes (2, 0) of a 4 x 3 x 5 array.
        let xs = [4usize, 3, 5];
        let x = rvec(&mut rng, 60, -1.0, 1.0);
        let w = rvec(&mut rng, 6, -1.0, 1.0);
        let got = image::correlate_with(
            &arr(&x, &xs),
            &arr(&w, &[3, 2]),
            FilterOpts::new().axes(&[2, 0]),
        )?
        .to_vec()?;
        // The same as weights of shape [2, 1, 3] over every axis (transposed).
        let mut wt = vec![0.0; 6];
        for i in 0..3 {
            for j in 0..2 {
                wt[j * 3 + i] = w[i * 2 + j];
            }
        }
        let want = corr_ref(&x, &xs, &wt, &[2, 1, 3], &[1, 0, 1], Boundary::Reflect);
        close(&got, &want, 1e-12, 1e-12, "correlate axes (2, 0)")?;
        Ok(())
    })
}

/// Separable filters (Gaussian of orders 0-2, uniform, Sobel, Prewitt, Laplace) against 1-d
/// reference passes, on images whose sides are not multiples of the kernel's tile, with
/// windows the fused kernel takes and longer ones.
fn separable_random(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let xs = [2usize, 37, 45];
        let x = rvec(&mut rng, 2 * 37 * 45, -1.0, 1.0);
        let xa = arr(&x, &xs);
        for mode in MODES {
            let o = FilterOpts::new().boundary(mode).axes(&[1, 2]);
            for (sy, sx, oy, ox) in [
                (1.0, 2.0, 0usize, 0usize),
                (0.7, 1.3, 1, 2),
                (9.0, 0.5, 0, 1),
            ] {
                let go = GaussianOpts::new()
                    .boundary(mode)
                    .axes(&[-2, -1])
                    .order(&[oy, ox]);
                let got = image::gaussian_filter_with(&xa, &[sy, sx], go)?.to_vec()?;
                let (ry, rx) = ((4.0 * sy + 0.5) as usize, (4.0 * sx + 0.5) as usize);
                let p = corr1_ref(&x, &xs, 1, &gauss_ref(sy, oy, ry), ry as i64, mode);
                let want = corr1_ref(&p, &xs, 2, &gauss_ref(sx, ox, rx), rx as i64, mode);
                close(
                    &got,
                    &want,
                    1e-10,
                    1e-12,
                    &format!("gaussian {sy} {sx} {oy} {ox} {mode:?}"),
                )?;
            }
            let got = image::uniform_filter_with(&xa, &[4, 3], o.clone())?.to_vec()?;
            let p = corr1_ref(&x, &xs, 1, &[0.25; 4], 2, mode);
            let want = corr1_ref(&p, &xs, 2, &[1.0 / 3.0; 3], 1, mode);
            close(&got, &want, 1e-12, 1e-12, &format!("uniform {mode:?}"))?;
            for ax in [1usize, 2] {
                let other = 3 - ax;
                for (name, s) in [("sobel", [1.0, 2.0, 1.0]), ("prewitt", [1.0, 1.0, 1.0])] {
                    let got = if name == "sobel" {
                        image::sobel_with(&xa, ax as isize, o.clone())?
                    } else {
                        image::prewitt_with(&xa, ax as isize, o.clone())?
                    }
                    .to_vec()?;
                    let p = corr1_ref(&x, &xs, ax, &[-1.0, 0.0, 1.0], 1, mode);
                    let want = corr1_ref(&p, &xs, other, &s, 1, mode);
                    close(
                        &got,
                        &want,
                        1e-12,
                        1e-12,
                        &format!("{name} axis {ax} {mode:?}"),
                    )?;
                }
            }
            let got = image::laplace_with(&xa, o.clone())?.to_vec()?;
            let a = corr1_ref(&x, &xs, 1, &[1.0, -2.0, 1.0], 1, mode);
            let b = corr1_ref(&x, &xs, 2, &[1.0, -2.0, 1.0], 1, mode);
            let want: Vec<f64> = a.iter().zip(&b).map(|(a, b)| a + b).collect();
            close(&got, &want, 1e-12, 1e-12, &format!("laplace {mode:?}"))?;
        }
        // Three filtered axes, and sigma 0 leaving an axis alone.
        let vs = [5usize, 6, 7];
        let v = rvec(&mut rng, 210, -1.0, 1.0);
        let got = image::gaussian_filter(&arr(&v, &vs), &[1.0, 0.0, 0.8])?.to_vec()?;
        let p = corr1_ref(&v, &vs, 0, &gauss_ref(1.0, 0, 4), 4, Boundary::Reflect);
        let want = corr1_ref(&p, &vs, 2, &gauss_ref(0.8, 0, 3), 3, Boundary::Reflect);
        close(&got, &want, 1e-10, 1e-12, "gaussian 3-d with sigma 0")?;
        Ok(())
    })
}

/// The images of the fused separable kernel's tiling cases: sides not multiples of its tiles
/// (37 x 1029), single rows and columns, and a batch of images larger than one tile along
/// both axes (whose middle tiles lie wholly inside, away from every edge: the tile from
/// column 112 and row 32 of a 17 x 17 window reads columns 104 to 231, rows 24 to 71).
const TILE_SHAPES: [[usize; 3]; 4] = [[1, 37, 1029], [1, 1, 300], [1, 300, 1], [2, 150, 270]];

/// The fused separable kernel (rows first for the Gaussian, the uniform filter and Sobel
/// along axis 0; columns first for Sobel along axis 1) against f64 reference passes, with
/// every boundary mode, on images small enough for the reference: several tiles along the
/// columns, single rows and columns, a batch. (Interior tiles, away from every edge, are in
/// [`separable_tiles_dtypes`], against the CPU twin that this body checks.)
fn separable_tiles(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for xs in [[1usize, 37, 131], [1, 1, 300], [1, 300, 1], [2, 19, 70]] {
            let x = rvec(&mut rng, xs.iter().product(), -1.0, 1.0);
            let xa = arr(&x, &xs);
            for mode in MODES.into_iter().chain([Boundary::GridWrap]) {
                let w = |s: &str| format!("{s} {xs:?} {mode:?}");
                let o = FilterOpts::new().boundary(mode).axes(&[1, 2]);
                let go = GaussianOpts::new().boundary(mode).axes(&[1, 2]);
                let got = image::gaussian_filter_with(&xa, &[2.0], go)?.to_vec()?;
                let g = gauss_ref(2.0, 0, 8);
                let p = corr1_ref(&x, &xs, 1, &g, 8, mode);
                let want = corr1_ref(&p, &xs, 2, &g, 8, mode);
                close(&got, &want, 1e-10, 1e-12, &w("gaussian 2"))?;
                let got = image::uniform_filter_with(&xa, &[9], o.clone())?.to_vec()?;
                let p = corr1_ref(&x, &xs, 1, &[1.0 / 9.0; 9], 4, mode);
                let want = corr1_ref(&p, &xs, 2, &[1.0 / 9.0; 9], 4, mode);
                close(&got, &want, 1e-10, 1e-12, &w("uniform 9"))?;
                for ax in [1usize, 2] {
                    let got = image::sobel_with(&xa, ax as isize, o.clone())?.to_vec()?;
                    let p = corr1_ref(&x, &xs, ax, &[-1.0, 0.0, 1.0], 1, mode);
                    let want = corr1_ref(&p, &xs, 3 - ax, &[1.0, 2.0, 1.0], 1, mode);
                    close(&got, &want, 1e-12, 1e-12, &w(&format!("sobel {ax}")))?;
                }
            }
        }
        Ok(())
    })
}

/// CUDA agrees with the CPU backend on the fused separable kernel's tiling cases
/// ([`TILE_SHAPES`]) for every element type and boundary mode.
fn separable_tiles_dtypes() -> TestResult {
    fn case<T: ImageElement + Element>(rng: &mut Rng, lo: f64, hi: f64, tol: f64) -> TestResult {
        for shape in TILE_SHAPES {
            let n: usize = shape.iter().product();
            let x: Vec<T> = (0..n)
                .map(|_| T::store(lo + (hi - lo) * rng.f32_in(0.0, 1.0) as f64))
                .collect();
            for mode in MODES.into_iter().chain([Boundary::GridWrap]) {
                let o = FilterOpts::new().boundary(mode).axes(&[1, 2]);
                let go = GaussianOpts::new().boundary(mode).axes(&[1, 2]);
                let w = |s: &str| format!("{s} {} {shape:?} {mode:?}", T::DTYPE);
                agree(&w("gaussian 2"), &x, &shape, tol, &|a| {
                    image::gaussian_filter_with(a, &[2.0], go.clone())
                })?;
                agree(&w("gaussian 1, 3"), &x, &shape, tol, &|a| {
                    image::gaussian_filter_with(a, &[1.0, 3.0], go.clone().order(&[1, 0]))
                })?;
                agree(&w("uniform 9"), &x, &shape, tol, &|a| {
                    image::uniform_filter_with(a, &[9], o.clone())
                })?;
                for ax in [1isize, 2] {
                    agree(&w(&format!("sobel {ax}")), &x, &shape, tol, &|a| {
                        image::sobel_with(a, ax, o.clone())
                    })?;
                }
            }
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    case::<u8>(&mut rng, 0.0, 255.0, 1.0 / 255.0)?;
    case::<u16>(&mut rng, 0.0, 60000.0, 1.0 / 60000.0)?;
    case::<f16>(&mut rng, -4.0, 4.0, 1e-2)?;
    case::<f32>(&mut rng, -4.0, 4.0, 1e-5)?;
    case::<f64>(&mut rng, -4.0, 4.0, 1e-12)?;
    Ok(())
}

/// Gaussian Laplacian and gradient magnitude from their definitions.
fn gaussian_compound(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let xs = [19usize, 21];
        let x = rvec(&mut rng, 19 * 21, -1.0, 1.0);
        let xa = arr(&x, &xs);
        let s = 1.2;
        let r = (4.0 * s + 0.5) as usize;
        let g = |ox: usize, oy: usize| {
            let p = corr1_ref(
                &x,
                &xs,
                0,
                &gauss_ref(s, ox, r),
                r as i64,
                Boundary::Reflect,
            );
            corr1_ref(
                &p,
                &xs,
                1,
                &gauss_ref(s, oy, r),
                r as i64,
                Boundary::Reflect,
            )
        };
        let (d20, d02) = (g(2, 0), g(0, 2));
        let want: Vec<f64> = d20.iter().zip(&d02).map(|(a, b)| a + b).collect();
        close(
            &image::gaussian_laplace(&xa, &[s])?.to_vec()?,
            &want,
            1e-10,
            1e-12,
            "gaussian_laplace",
        )?;
        let (d10, d01) = (g(1, 0), g(0, 1));
        let want: Vec<f64> = d10
            .iter()
            .zip(&d01)
            .map(|(a, b)| (a * a + b * b).sqrt())
            .collect();
        close(
            &image::gaussian_gradient_magnitude(&xa, &[s])?.to_vec()?,
            &want,
            1e-10,
            1e-12,
            "gaussian_gradient_magnitude",
        )?;
        Ok(())
    })
}

/// Order-statistic filters over boxes and footprints, in every mode, with origins.
fn rank_random(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for (xs, ms) in [
            (vec![11usize, 14], vec![3usize, 3]),
            (vec![9, 10], vec![7, 7]),
            (vec![4, 5, 6], vec![3, 2, 3]),
            (vec![8, 40], vec![1, 12]),
        ] {
            let n: usize = xs.iter().product();
            let k: usize = ms.iter().product();
            // Few distinct values, so that ties occur.
            let x: Vec<f64> = (0..n).map(|_| (rng.next_u64() % 9) as f64 - 4.0).collect();
            let xa = arr(&x, &xs);
            let mut mask: Vec<bool> = (0..k).map(|_| rng.next_u64() % 3 != 0).collect();
            mask[0] = true;
            let cnt = mask.iter().filter(|b| **b).count();
            let fp = FilterWindow::new(&mask, &ms)?;
            for mode in MODES {
                let o = FilterOpts::new().boundary(mode);
                let c: Vec<i64> = ms.iter().map(|&m| (m / 2) as i64).collect();
                let cval = mode.cval();
                let m2 = match mode {
                    Boundary::Constant(_) => Boundary::Constant(cval),
                    b => b,
                };
                let full = vec![true; k];
                let what = format!("{xs:?} {ms:?} {mode:?}");
                close(
                    &image::median_filter_with(&xa, &FilterWindow::size(&ms), o.clone())?
                        .to_vec()?,
                    &rank_ref(&x, &xs, &full, &ms, &c, k / 2, m2),
                    0.0,
                    0.0,
                    &format!("median box {what}"),
                )?;
                close(
                    &image::minimum_filter_with(&xa, &FilterWindow::size(&ms), o.clone())?
                        .to_vec()?,
                    &rank_ref(&x, &xs, &full, &ms, &c, 0, m2),
                    0.0,
                    0.0,
                    &format!("minimum box {what}"),
                )?;
                close(
                    &image::maximum_filter_with(&xa, &fp, o.clone())?.to_vec()?,
                    &rank_ref(&x, &xs, &mask, &ms, &c, cnt - 1, m2),
                    0.0,
                    0.0,
                    &format!("maximum footprint {what}"),
                )?;
                close(
                    &image::rank_filter_with(&xa, 1, &fp, o.clone())?.to_vec()?,
                    &rank_ref(&x, &xs, &mask, &ms, &c, 1.min(cnt - 1), m2),
                    0.0,
                    0.0,
                    &format!("rank 1 footprint {what}"),
                )?;
                close(
                    &image::percentile_filter_with(&xa, 30.0, &fp, o.clone())?.to_vec()?,
                    &rank_ref(&x, &xs, &mask, &ms, &c, (cnt as f64 * 0.3) as usize, m2),
                    0.0,
                    0.0,
                    &format!("percentile 30 footprint {what}"),
                )?;
            }
            // An origin shifts the window.
            let origins: Vec<isize> = ms.iter().map(|&m| -((m / 2) as isize)).collect();
            let c: Vec<i64> = vec![0; ms.len()];
            close(
                &image::median_filter_with(&xa, &fp, FilterOpts::new().origin(&origins))?
                    .to_vec()?,
                &rank_ref(&x, &xs, &mask, &ms, &c, cnt / 2, Boundary::Reflect),
                0.0,
                0.0,
                &format!("median origin {xs:?}"),
            )?;
        }
        // A large footprint (counted selection) and a constant of u8 taken in u8.
        let xs = [12usize, 13];
        let x: Vec<f64> = (0..156).map(|_| (rng.next_u64() % 200) as f64).collect();
        let xu: Vec<u8> = x.iter().map(|&v| v as u8).collect();
        let xa = Array::from_slice(&xu, &xs)?;
        let o = FilterOpts::new().boundary(Boundary::Constant(300.0));
        let got: Vec<f64> = image::median_filter_with(&xa, &FilterWindow::size(&[9, 9]), o)?
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
        let want = rank_ref(
            &x,
            &xs,
            &[true; 81],
            &[9, 9],
            &[4, 4],
            40,
            Boundary::Constant(44.0),
        );
        close(
            &got,
            &want,
            0.0,
            0.0,
            "median 9x9 u8 constant 300 (44 in u8)",
        )?;
        Ok(())
    })
}

/// Ranks of full boxes over the last two axes (the tiled kernel on CUDA) of images with ties and
/// NaNs (ranked above every number), odd sides and a batch, every boundary mode, in f64 and
/// f32, against the host reference.
fn rank_box_nan(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for xs in [vec![2usize, 19, 37], vec![1, 5], vec![40, 3], vec![33, 70]] {
            let n: usize = xs.iter().product();
            let x: Vec<f64> = (0..n)
                .map(|_| match rng.next_u64() % 8 {
                    0 => f64::NAN,
                    v => v as f64 - 4.0,
                })
                .collect();
            let xa = arr(&x, &xs);
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let xa32 = Array::from_slice(&x32, &xs)?;
            for (h, w, r) in [
                (3usize, 3usize, 4usize),
                (3, 3, 0),
                (5, 5, 12),
                (7, 7, 24),
                (7, 7, 3),
                (7, 7, 45),
                (4, 3, 5),
                (1, 5, 2),
                (2, 2, 3),
            ] {
                // A leading axis of the image is filtered by a window of one.
                let mut ms = vec![1usize; xs.len() - 2];
                ms.extend([h, w]);
                let c: Vec<i64> = ms.iter().map(|&m| (m / 2) as i64).collect();
                let k = h * w;
                let fp = FilterWindow::size(&ms);
                for mode in MODES.into_iter().chain([Boundary::GridWrap]) {
                    let o = FilterOpts::new().boundary(mode);
                    let want = rank_ref(&x, &xs, &vec![true; k], &ms, &c, r, mode);
                    let what = format!("{xs:?} {h}x{w} rank {r} {mode:?}");
                    close(
                        &image::rank_filter_with(&xa, r as isize, &fp, o.clone())?.to_vec()?,
                        &want,
                        0.0,
                        0.0,
                        &format!("f64 {what}"),
                    )?;
                    let got32: Vec<f64> = image::rank_filter_with(&xa32, r as isize, &fp, o)?
                        .to_vec()?
                        .iter()
                        .map(|&v| f64::from(v))
                        .collect();
                    close(&got32, &want, 0.0, 0.0, &format!("f32 {what}"))?;
                }
            }
        }
        Ok(())
    })
}

/// SciPy's storage of a result in the element type: integers truncated toward zero and
/// wrapped (a negative `v` becomes `-(T)(-v)`), floats rounded.
fn store<T: ImageElement + Element>(v: f64) -> f64 {
    match T::DTYPE {
        cuprite_array::DType::U8 => {
            let t = v.trunc();
            if t >= 0.0 {
                (t as u64 % 256) as f64
            } else {
                ((256 - (-t) as u64 % 256) % 256) as f64
            }
        }
        cuprite_array::DType::U16 => {
            let t = v.trunc();
            if t >= 0.0 {
                (t as u64 % 65536) as f64
            } else {
                ((65536 - (-t) as u64 % 65536) % 65536) as f64
            }
        }
        cuprite_array::DType::F16 => f16::from_f64(v).to_f64(),
        cuprite_array::DType::F32 => v as f32 as f64,
        _ => v,
    }
}

/// One element type: a two-pass Gaussian, a uniform filter, a Sobel (wrapping for unsigned
/// types), an n-d correlation and a median against the reference with SciPy's storage after
/// each pass.
fn dtype_case<T: ImageElement + Element>(rng: &mut Rng, lo: f64, hi: f64, tol: f64) -> TestResult {
    let xs = [33usize, 40];
    let x: Vec<f64> = (0..33 * 40)
        .map(|_| store::<T>(lo + (hi - lo) * rng.f32_in(0.0, 1.0) as f64))
        .collect();
    let xt: Vec<T> = x.iter().map(|&v| T::store(v)).collect();
    let xa = Array::from_slice(&xt, &xs)?;
    let f64s = |a: Array<T>| -> Result<Vec<f64>, cuprite_array::Error> {
        Ok(a.to_vec()?.into_iter().map(|v| v.to_f64()).collect())
    };
    let name = T::DTYPE;
    for mode in [Boundary::Reflect, Boundary::Constant(3.0), Boundary::Wrap] {
        let st = |v: Vec<f64>| v.into_iter().map(store::<T>).collect::<Vec<f64>>();
        let got = f64s(image::gaussian_filter_with(
            &xa,
            &[1.5],
            GaussianOpts::new().boundary(mode),
        )?)?;
        let p = st(corr1_ref(&x, &xs, 0, &gauss_ref(1.5, 0, 6), 6, mode));
        let want = st(corr1_ref(&p, &xs, 1, &gauss_ref(1.5, 0, 6), 6, mode));
        close(
            &got,
            &want,
            tol,
            tol.max(1e-300) * (hi - lo),
            &format!("{name} gaussian {mode:?}"),
        )
        .or_else(|e| {
            if tol == 0.0 {
                close(
                    &got,
                    &want,
                    0.0,
                    1.0,
                    &format!("{name} gaussian {mode:?} (1 ulp of truncation)"),
                )
            } else {
                Err(e)
            }
        })?;
        let o = FilterOpts::new().boundary(mode);
        let got = f64s(image::uniform_filter_with(&xa, &[3], o.clone())?)?;
        let p = st(corr1_ref(&x, &xs, 0, &[1.0, 1.0, 1.0], 1, mode)
            .into_iter()
            .map(|v| v / 3.0)
            .collect());
        let want = st(corr1_ref(&p, &xs, 1, &[1.0, 1.0, 1.0], 1, mode)
            .into_iter()
            .map(|v| v / 3.0)
            .collect());
        close(
            &got,
            &want,
            tol,
            tol * (hi - lo),
            &format!("{name} uniform {mode:?}"),
        )?;
        let got = f64s(image::sobel_with(&xa, 1, o.clone())?)?;
        let p = st(corr1_ref(&x, &xs, 1, &[-1.0, 0.0, 1.0], 1, mode));
        let want = st(corr1_ref(&p, &xs, 0, &[1.0, 2.0, 1.0], 1, mode));
        close(
            &got,
            &want,
            tol,
            tol * (hi - lo),
            &format!("{name} sobel {mode:?}"),
        )?;
        let w = [0.5, -0.25, 1.0, 0.125, 2.0, -1.0];
        let got = f64s(image::correlate_with(&xa, &arr(&w, &[2, 3]), o.clone())?)?;
        let want = st(corr_ref(&x, &xs, &w, &[2, 3], &[1, 1], mode));
        close(
            &got,
            &want,
            tol,
            tol * (hi - lo),
            &format!("{name} correlate {mode:?}"),
        )?;
        let got = f64s(image::median_filter_with(
            &xa,
            &FilterWindow::size(&[3, 3]),
            o,
        )?)?;
        let cm = match mode {
            Boundary::Constant(c) => Boundary::Constant(store::<T>(c)),
            b => b,
        };
        let want = rank_ref(&x, &xs, &[true; 9], &[3, 3], &[1, 1], 4, cm);
        close(&got, &want, 0.0, 0.0, &format!("{name} median {mode:?}"))?;
    }
    Ok(())
}

fn dtypes(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        dtype_case::<u8>(&mut rng, 0.0, 255.0, 0.0)?;
        dtype_case::<u16>(&mut rng, 0.0, 60000.0, 0.0)?;
        dtype_case::<f16>(&mut rng, -4.0, 4.0, 4e-3)?;
        dtype_case::<f32>(&mut rng, -4.0, 4.0, 1e-5)?;
        dtype_case::<f64>(&mut rng, -4.0, 4.0, 1e-12)?;
        Ok(())
    })
}

/// ArrayFire's names equal the SciPy filters they stand for.
fn arrayfire_names(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let xs = [3usize, 10, 12];
        let x = rvec(&mut rng, 360, 0.0, 10.0);
        let xa = arr(&x, &xs);
        let per_image =
            |f: &dyn Fn(&[f64]) -> Vec<f64>| -> Vec<f64> { x.chunks(120).flat_map(f).collect() };
        let is = [10usize, 12];
        let c = [2i64, 1];
        for (pad, mode) in [
            (Pad::Zero, Boundary::Constant(0.0)),
            (Pad::Symmetric, Boundary::Reflect),
        ] {
            let full = [true; 15];
            let want = per_image(&|im| rank_ref(im, &is, &full, &[5, 3], &c, 7, mode));
            close(
                &image::medfilt(&xa, 5, 3, pad)?.to_vec()?,
                &want,
                0.0,
                0.0,
                "medfilt",
            )?;
            let want = per_image(&|im| rank_ref(im, &is, &full, &[5, 3], &c, 0, mode));
            close(
                &image::minfilt(&xa, 5, 3, pad)?.to_vec()?,
                &want,
                0.0,
                0.0,
                "minfilt",
            )?;
            let want = per_image(&|im| rank_ref(im, &is, &full, &[5, 3], &c, 14, mode));
            close(
                &image::maxfilt(&xa, 5, 3, pad)?.to_vec()?,
                &want,
                0.0,
                0.0,
                "maxfilt",
            )?;
        }
        let (dx, dy) = image::sobel_operator(&xa)?;
        let z = Boundary::Constant(0.0);
        let want_dx = per_image(&|im| {
            let p = corr1_ref(im, &is, 1, &[-1.0, 0.0, 1.0], 1, z);
            corr1_ref(&p, &is, 0, &[1.0, 2.0, 1.0], 1, z)
        });
        let want_dy = per_image(&|im| {
            let p = corr1_ref(im, &is, 0, &[-1.0, 0.0, 1.0], 1, z);
            corr1_ref(&p, &is, 1, &[1.0, 2.0, 1.0], 1, z)
        });
        close(&dx.to_vec()?, &want_dx, 1e-12, 1e-12, "sobel_operator dx")?;
        close(&dy.to_vec()?, &want_dy, 1e-12, 1e-12, "sobel_operator dy")?;
        let (gx, gy) = image::gradient(&xa)?;
        let (gx, gy) = (gx.to_vec()?, gy.to_vec()?);
        for b in 0..3 {
            for i in 0..10 {
                for j in 0..12 {
                    let at = |i: usize, j: usize| x[b * 120 + i * 12 + j];
                    let wx = if i == 0 {
                        at(1, j) - at(0, j)
                    } else if i == 9 {
                        at(9, j) - at(8, j)
                    } else {
                        (at(i + 1, j) - at(i - 1, j)) / 2.0
                    };
                    let wy = if j == 0 {
                        at(i, 1) - at(i, 0)
                    } else if j == 11 {
                        at(i, 11) - at(i, 10)
                    } else {
                        (at(i, j + 1) - at(i, j - 1)) / 2.0
                    };
                    close(
                        &[gx[b * 120 + i * 12 + j], gy[b * 120 + i * 12 + j]],
                        &[wx, wy],
                        1e-12,
                        1e-12,
                        "gradient",
                    )?;
                }
            }
        }
        Ok(())
    })
}

/// ArrayFire's bilateral filter from its definition (clamped edges, radius `max(1, 1.5
/// sigma)`, spatial sigma clamped to 11.5), on a batch of `u8` and `f64` images.
fn bilateral_ref(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let (h, w) = (9usize, 13usize);
        let x: Vec<f64> = (0..2 * h * w)
            .map(|_| (rng.next_u64() % 256) as f64)
            .collect();
        let want = |ss: f64, cs: f64| -> Vec<f64> {
            let s = ss.min(11.5);
            let r = ((1.5 * s) as i64).max(1);
            let mut out = Vec::new();
            for b in 0..2 {
                let at = |i: i64, j: i64| {
                    x[b * h * w
                        + (i.clamp(0, h as i64 - 1) as usize) * w
                        + j.clamp(0, w as i64 - 1) as usize]
                };
                for i in 0..h as i64 {
                    for j in 0..w as i64 {
                        let (mut nw, mut sum) = (0.0, 0.0);
                        for dy in -r..=r {
                            for dx in -r..=r {
                                let v = at(i + dy, j + dx);
                                let e = ((dy * dy + dx * dx) as f64) / (2.0 * s * s)
                                    + (at(i, j) - v).powi(2) / (2.0 * cs * cs);
                                nw += (-e).exp();
                                sum += v * (-e).exp();
                            }
                        }
                        out.push(sum / nw);
                    }
                }
            }
            out
        };
        let xu: Vec<u8> = x.iter().map(|&v| v as u8).collect();
        let xa = Array::from_slice(&xu, &[2, h, w])?;
        for (ss, cs) in [(1.0, 30.0), (2.5, 80.0), (20.0, 200.0)] {
            let got: Vec<f64> = image::bilateral(&xa, ss, cs)?
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect();
            close(
                &got,
                &want(ss, cs),
                1e-4,
                1e-3,
                &format!("bilateral u8 {ss} {cs}"),
            )?;
            let got = image::bilateral(&arr(&x, &[2, h, w]), ss, cs)?.to_vec()?;
            close(
                &got,
                &want(ss, cs),
                1e-12,
                1e-10,
                &format!("bilateral f64 {ss} {cs}"),
            )?;
        }
        assert_err(
            image::bilateral(&xa, 0.0, 1.0),
            "InvalidArgument",
            "spatial sigma 0",
        );
        assert_err(
            image::bilateral(&xa, 1.0, f64::NAN),
            "InvalidArgument",
            "chromatic sigma NaN",
        );
        Ok(())
    })
}

/// Anisotropic diffusion from its formula, step by step with clamped neighbours.
fn diffusion_ref(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let (h, w) = (7usize, 9usize);
        let x = rvec(&mut rng, 2 * h * w, 0.0, 4.0);
        for (flux, dt, k, iters) in [
            (image::Flux::Exponential, 0.1, 1.5, 3usize),
            (image::Flux::Quadratic, 0.2, 0.7, 2),
        ] {
            let mut u = x.clone();
            for _ in 0..iters {
                let prev = u.clone();
                for b in 0..2 {
                    let at = |i: i64, j: i64| {
                        prev[b * h * w
                            + i.clamp(0, h as i64 - 1) as usize * w
                            + j.clamp(0, w as i64 - 1) as usize]
                    };
                    let g = |v: f64| match flux {
                        image::Flux::Exponential => (-v / (k * k)).exp(),
                        image::Flux::Quadratic => 1.0 / (1.0 + v / (k * k)),
                    };
                    for i in 0..h as i64 {
                        for j in 0..w as i64 {
                            let cc = at(i, j);
                            let (n, s_, w_, e) =
                                (at(i - 1, j), at(i + 1, j), at(i, j - 1), at(i, j + 1));
                            let (ne, nw, se, sw) = (
                                at(i - 1, j + 1),
                                at(i - 1, j - 1),
                                at(i + 1, j + 1),
                                at(i + 1, j - 1),
                            );
                            let (dx, dy) = ((e - w_) / 2.0, (s_ - n) / 2.0);
                            let f = |dd: f64, t: f64| g(dd * dd + 0.25 * t * t) * dd;
                            let delta = f(e - cc, dy + 0.5 * (se - ne))
                                - f(cc - w_, dy + 0.5 * (sw - nw))
                                + f(s_ - cc, dx + 0.5 * (se - sw))
                                - f(cc - n, dx + 0.5 * (ne - nw));
                            u[b * h * w + i as usize * w + j as usize] = cc + dt * delta;
                        }
                    }
                }
            }
            let got =
                image::anisotropic_diffusion(&arr(&x, &[2, h, w]), dt, k, iters, flux)?.to_vec()?;
            close(
                &got,
                &u,
                1e-12,
                1e-12,
                &format!("anisotropic_diffusion {flux:?}"),
            )?;
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let got: Vec<f64> = image::anisotropic_diffusion(
                &Array::from_slice(&xf, &[2, h, w])?,
                dt,
                k,
                iters,
                flux,
            )?
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
            close(
                &got,
                &u,
                1e-5,
                1e-5,
                &format!("anisotropic_diffusion f32 {flux:?}"),
            )?;
        }
        assert_err(
            image::anisotropic_diffusion(
                &arr(&x, &[2, h, w]),
                -0.1,
                1.0,
                1,
                image::Flux::Exponential,
            ),
            "InvalidArgument",
            "time step -0.1",
        );
        Ok(())
    })
}

/// Canny's edges from the definition: direct 3x3 Sobel sums, the suppression rule, and
/// hysteresis by a flood fill from the strong pixels.
fn canny_ref(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let (h, w) = (16usize, 19usize);
        // Smooth blobs plus noise, so that edges are long and ties improbable.
        let x: Vec<f64> = (0..2 * h * w)
            .map(|k| {
                let (i, j) = ((k / w) % h, k % w);
                let blob = if (i as i64 - 8).pow(2) + (j as i64 - 9).pow(2) < 30 {
                    4.0
                } else {
                    0.0
                };
                blob + rng.f32_in(0.0, 1.0) as f64
            })
            .collect();
        let (lo, hi) = (0.4, 0.6);
        let mut want = vec![false; x.len()];
        for b in 0..2 {
            let at = |i: i64, j: i64| {
                x[b * h * w
                    + i.clamp(0, h as i64 - 1) as usize * w
                    + j.clamp(0, w as i64 - 1) as usize]
            };
            let mut dx = vec![0.0; h * w];
            let mut dy = vec![0.0; h * w];
            for i in 0..h as i64 {
                for j in 0..w as i64 {
                    let k = i as usize * w + j as usize;
                    for (a, s) in [(-1i64, 1.0), (0, 2.0), (1, 1.0)] {
                        dx[k] += s * (at(i + a, j + 1) - at(i + a, j - 1));
                        dy[k] += s * (at(i + 1, j + a) - at(i - 1, j + a));
                    }
                }
            }
            let mag: Vec<f64> = dx
                .iter()
                .zip(&dy)
                .map(|(a, b)| (a * a + b * b).sqrt())
                .collect();
            let m = |i: i64, j: i64| {
                if (0..h as i64).contains(&i) && (0..w as i64).contains(&j) {
                    mag[i as usize * w + j as usize]
                } else {
                    0.0
                }
            };
            let t = (std::f64::consts::PI / 8.0).tan();
            let mut thin = vec![0.0; h * w];
            for i in 0..h as i64 {
                for j in 0..w as i64 {
                    let k = i as usize * w + j as usize;
                    let (gx, gy) = (dx[k], dy[k]);
                    let (a, bb) = if gy.abs() <= t * gx.abs() {
                        ((0, -1), (0, 1))
                    } else if gx.abs() <= t * gy.abs() {
                        ((-1, 0), (1, 0))
                    } else if gx * gy > 0.0 {
                        ((-1, -1), (1, 1))
                    } else {
                        ((-1, 1), (1, -1))
                    };
                    if mag[k] > 0.0
                        && m(i + a.0, j + a.1) <= mag[k]
                        && m(i + bb.0, j + bb.1) <= mag[k]
                    {
                        thin[k] = mag[k];
                    }
                }
            }
            let top = mag.iter().cloned().fold(0.0, f64::max);
            let (high, low) = (hi * top, lo * hi * top);
            let mut stack: Vec<usize> = (0..h * w)
                .filter(|&k| thin[k] > 0.0 && thin[k] >= high)
                .collect();
            let mut edge = vec![false; h * w];
            for &k in &stack {
                edge[k] = true;
            }
            while let Some(k) = stack.pop() {
                let (i, j) = ((k / w) as i64, (k % w) as i64);
                for di in -1..=1 {
                    for dj in -1..=1 {
                        let (a, c) = (i + di, j + dj);
                        if (0..h as i64).contains(&a) && (0..w as i64).contains(&c) {
                            let q = a as usize * w + c as usize;
                            if !edge[q] && thin[q] > 0.0 && thin[q] >= low {
                                edge[q] = true;
                                stack.push(q);
                            }
                        }
                    }
                }
            }
            want[b * h * w..(b + 1) * h * w].copy_from_slice(&edge);
        }
        let got = image::canny(&arr(&x, &[2, h, w]), lo, hi)?.to_vec()?;
        let diff = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        if diff != 0 {
            return Err(format!(
                "canny: {diff} pixels differ ({} edges expected)",
                want.iter().filter(|&&e| e).count()
            )
            .into());
        }
        assert!(
            want.iter().filter(|&&e| e).count() > 10,
            "too few edges to test"
        );
        assert_err(
            image::canny(&arr(&x, &[2, h, w]), 0.0, 0.5),
            "InvalidArgument",
            "low ratio 0",
        );
        Ok(())
    })
}

/// Mean shift from its description, pixel by pixel, on `u8` (values truncated) and `f64`.
fn mean_shift_ref(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let (h, w) = (10usize, 12usize);
        let x: Vec<f64> = (0..2 * h * w)
            .map(|k| if (k % w) < 6 { 40.0 } else { 160.0 } + (rng.next_u64() % 20) as f64)
            .collect();
        let want = |ss: f64, cs: f64, iters: usize, int: bool| -> Vec<f64> {
            let r = ((ss.min(11.5) * 1.5) as i64).max(1);
            let mut out = Vec::new();
            for b in 0..2 {
                let img = &x[b * h * w..(b + 1) * h * w];
                for i0 in 0..h as i64 {
                    for j0 in 0..w as i64 {
                        let (mut pi, mut pj) = (i0, j0);
                        let mut c = img[(i0 * w as i64 + j0) as usize];
                        for _ in 0..iters {
                            let (mut n, mut si, mut sj, mut sum) = (0i64, 0i64, 0i64, 0.0);
                            for ti in pi - r..=pi + r {
                                for tj in pj - r..=pj + r {
                                    if ti < 0 || tj < 0 || ti >= h as i64 || tj >= w as i64 {
                                        continue;
                                    }
                                    let v = img[(ti * w as i64 + tj) as usize];
                                    if (c - v) * (c - v) <= cs * cs {
                                        n += 1;
                                        si += ti;
                                        sj += tj;
                                        sum += v;
                                    }
                                }
                            }
                            if n == 0 {
                                break;
                            }
                            let (ni, nj) = (si / n, sj / n);
                            let mut m = sum / n as f64;
                            if int {
                                m = m.trunc();
                            }
                            let stop = (ni, nj) == (pi, pj)
                                || ((ni - pi).abs() + (nj - pj).abs()) as f64 + (c - m) * (c - m)
                                    <= 1.0;
                            (pi, pj, c) = (ni, nj, m);
                            if stop {
                                break;
                            }
                        }
                        out.push(c);
                    }
                }
            }
            out
        };
        let xu: Vec<u8> = x.iter().map(|&v| v as u8).collect();
        for (ss, cs, it) in [(1.0, 10.0, 5usize), (2.0, 25.0, 8)] {
            let got: Vec<f64> =
                image::mean_shift(&Array::from_slice(&xu, &[2, h, w])?, ss, cs, it)?
                    .to_vec()?
                    .iter()
                    .map(|&v| v as f64)
                    .collect();
            close(
                &got,
                &want(ss, cs, it, true),
                0.0,
                0.0,
                &format!("mean_shift u8 {ss} {cs}"),
            )?;
            let got = image::mean_shift(&arr(&x, &[2, h, w]), ss, cs, it)?.to_vec()?;
            close(
                &got,
                &want(ss, cs, it, false),
                1e-12,
                1e-12,
                &format!("mean_shift f64 {ss} {cs}"),
            )?;
        }
        assert_err(
            image::mean_shift(&arr(&x, &[2, h, w]), 1.0, -2.0, 3),
            "InvalidArgument",
            "chromatic sigma -2",
        );
        // Rounds past `i64::MAX` are as many as the walks take (every walk here stops within
        // a few rounds), not none.
        let flat = Array::from_slice(&[10u8, 12, 11, 90, 91, 89], &[1, 6])?;
        let few = image::mean_shift(&flat, 2.0, 5.0, 64)?.to_vec()?;
        assert_ne!(few, flat.to_vec()?);
        for it in [1usize << 63, usize::MAX] {
            assert_eq!(image::mean_shift(&flat, 2.0, 5.0, it)?.to_vec()?, few);
            let f = flat.cast::<f64>();
            let want = image::mean_shift(&f, 2.0, 5.0, 64)?.to_vec()?;
            assert_eq!(image::mean_shift(&f, 2.0, 5.0, it)?.to_vec()?, want);
        }
        Ok(())
    })
}

/// Bad input is an `Err` naming the values.
fn bad_input(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let x = arr(&[1.0; 12], &[3, 4]);
        assert_err(image::gaussian_filter(&x, &[-1.0]), "InvalidArgument", "-1");
        assert_err(
            image::gaussian_filter(&x, &[f64::NAN]),
            "InvalidArgument",
            "NaN",
        );
        assert_err(
            image::gaussian_filter1d(&x, 0.0),
            "InvalidArgument",
            "sigma 0",
        );
        assert_err(
            image::gaussian_filter(&x, &[1.0, 2.0, 3.0]),
            "InvalidArgument",
            "3 values of sigma",
        );
        assert_err(
            image::gaussian_filter_with(&x, &[1.0], GaussianOpts::new().truncate(-9.0)),
            "InvalidArgument",
            "truncate -9",
        );
        assert_err(image::uniform_filter(&x, &[0]), "InvalidArgument", "[0]");
        assert_err(image::uniform_filter1d(&x, 0), "InvalidArgument", "[0]");
        // Sizes above 2^24 are refused before any tap is held.
        let huge = format!("[{}]", usize::MAX);
        assert_err(
            image::uniform_filter1d(&x, usize::MAX),
            "InvalidArgument",
            &huge,
        );
        assert_err(
            image::uniform_filter(&x, &[usize::MAX]),
            "InvalidArgument",
            &huge,
        );
        assert_err(
            image::uniform_filter(&x, &[3, (1 << 24) + 1]),
            "InvalidArgument",
            "[3, 16777217]",
        );
        assert_err(
            image::median_filter(&x, &FilterWindow::size(&[3, 0])),
            "InvalidArgument",
            "[3, 0]",
        );
        assert_err(
            FilterWindow::new(&[false; 9], &[3, 3]),
            "InvalidArgument",
            "0 true",
        );
        assert_err(
            FilterWindow::new(&[true; 8], &[3, 3]),
            "InvalidArgument",
            "given 8",
        );
        // A box of more than 2^24 values (or, for the separable minimum and maximum, a side
        // of more than 2^24) is refused before its mask is held.
        let big = FilterWindow::size(&[1 << 40, 1 << 40]);
        assert_eq!(big.count(), usize::MAX);
        assert_eq!(FilterWindow::size(&[1 << 40, 1 << 30]).count(), usize::MAX);
        assert_err(
            image::median_filter(&x, &big),
            "InvalidArgument",
            "[1099511627776, 1099511627776]",
        );
        assert_err(
            image::median_filter(&x, &FilterWindow::size(&[4097, 4097])),
            "InvalidArgument",
            "[4097, 4097]",
        );
        assert_err(
            image::minimum_filter1d(&x, 1 << 40),
            "InvalidArgument",
            "[1099511627776]",
        );
        assert_err(
            image::maximum_filter(&x, &big),
            "InvalidArgument",
            "[1099511627776, 1099511627776]",
        );
        assert_err(
            image::medfilt(&x, 1 << 40, 3, Pad::Zero),
            "InvalidArgument",
            "[1099511627776, 3]",
        );
        // The separable minimum takes a box of more than 2^24 values with shorter sides.
        assert_eq!(
            image::minimum_filter(&x, &FilterWindow::size(&[4097, 4097]))?.to_vec()?,
            x.to_vec()?
        );
        let fp = FilterWindow::new(&[true; 27], &[3, 3, 3])?;
        assert_err(image::median_filter(&x, &fp), "Shape", "[3, 3, 3]");
        assert_err(
            image::rank_filter(&x, 9, &FilterWindow::size(&[3])),
            "InvalidArgument",
            "Rank(9)",
        );
        assert_err(
            image::rank_filter(&x, -10, &FilterWindow::size(&[3])),
            "InvalidArgument",
            "Rank(-10)",
        );
        assert_err(
            image::percentile_filter(&x, 101.0, &FilterWindow::size(&[3])),
            "InvalidArgument",
            "percentile 101",
        );
        let w = arr(&[1.0; 3], &[3]);
        assert_err(image::correlate(&x, &w), "Shape", "[3]");
        let w2 = arr(&[1.0; 9], &[3, 3]);
        assert_err(
            image::correlate_with(&x, &w2, FilterOpts::new().origin(&[2])),
            "InvalidArgument",
            "origin 2",
        );
        assert_err(image::correlate1d(&x, &[]), "InvalidArgument", "empty");
        assert_err(
            image::correlate1d_with(&x, &[1.0], FilterOpts::new().axis(2)),
            "Axis",
            "2",
        );
        assert_err(
            image::sobel_with(&x, 0, FilterOpts::new().axes(&[1])),
            "InvalidArgument",
            "axis 0",
        );
        assert_err(
            image::uniform_filter_with(&x, &[3], FilterOpts::new().axes(&[0, 0])),
            "InvalidArgument",
            "axis 0",
        );
        let w4 = arr(&[1.0; 16], &[2, 2, 2, 2]);
        let x4 = arr(&[1.0; 16], &[2, 2, 2, 2]);
        assert_err(image::correlate(&x4, &w4), "InvalidArgument", "4 axes");
        assert_err(
            image::medfilt(&arr(&[1.0; 3], &[3]), 3, 3, Pad::Zero),
            "Shape",
            "[3]",
        );
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("published", published),
    ("correlate_random", correlate_random),
    ("separable_random", separable_random),
    ("separable_tiles", separable_tiles),
    ("gaussian_compound", gaussian_compound),
    ("rank_random", rank_random),
    ("rank_box_nan", rank_box_nan),
    ("dtypes", dtypes),
    ("arrayfire_names", arrayfire_names),
    ("bilateral_ref", bilateral_ref),
    ("diffusion_ref", diffusion_ref),
    ("canny_ref", canny_ref),
    ("mean_shift_ref", mean_shift_ref),
    ("bad_input", bad_input),
];

/// A filter of `x` into another element type on the CPU and on CUDA, equal within `tol` of
/// the values' scale.
fn agree_into<T: ImageElement + Element, U: ImageElement + Element>(
    what: &str,
    x: &[T],
    shape: &[usize],
    tol: f64,
    f: &dyn Fn(&Array<T>) -> cuprite_array::Result<Array<U>>,
) -> TestResult {
    let run = |d: Device| -> Result<Vec<f64>, cuprite_array::Error> {
        let a = Array::from_slice_on(d, x, shape)?;
        Ok(f(&a)?.to_vec()?.into_iter().map(|v| v.to_f64()).collect())
    };
    let (c, g) = (run(Device::CPU)?, run(Device::cuda(0))?);
    let scale = c.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    close(&g, &c, 0.0, tol * scale, what)
}

/// One filter of `x` on the CPU and on CUDA: equal within `tol` of the values' scale (integers
/// within 1, from multiply-adds fused on the GPU).
fn agree<T: ImageElement + Element>(
    what: &str,
    x: &[T],
    shape: &[usize],
    tol: f64,
    f: &dyn Fn(&Array<T>) -> cuprite_array::Result<Array<T>>,
) -> TestResult {
    let run = |d: Device| -> Result<Vec<f64>, cuprite_array::Error> {
        let a = Array::from_slice_on(d, x, shape)?;
        Ok(f(&a)?.to_vec()?.into_iter().map(|v| v.to_f64()).collect())
    };
    let (c, g) = (run(Device::CPU)?, run(Device::cuda(0))?);
    let scale = c.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    close(&g, &c, 0.0, tol * scale, what)
}

fn gpu_case<T: ImageElement + Element>(rng: &mut Rng, lo: f64, hi: f64, tol: f64) -> TestResult {
    // Sides that leave partial tiles, a batch of two, and a 3-d volume.
    for shape in [vec![2usize, 67, 45], vec![9, 10, 11]] {
        let n: usize = shape.iter().product();
        let x: Vec<T> = (0..n)
            .map(|_| T::store(lo + (hi - lo) * rng.f32_in(0.0, 1.0) as f64))
            .collect();
        let nd = shape.len() as isize;
        let bt = if T::DTYPE == cuprite_array::DType::F64 {
            1e-12
        } else {
            1e-4
        };
        agree_into(
            &format!("bilateral {} {shape:?}", T::DTYPE),
            &x,
            &shape,
            bt,
            &|a| image::bilateral(a, 2.0, 0.5 * (hi - lo)),
        )?;
        agree(
            &format!("mean_shift {} {shape:?}", T::DTYPE),
            &x,
            &shape,
            bt,
            &|a| image::mean_shift(a, 2.0, 0.2 * (hi - lo), 6),
        )?;
        agree_into(
            &format!("anisotropic_diffusion {} {shape:?}", T::DTYPE),
            &x,
            &shape,
            bt,
            &|a| image::anisotropic_diffusion(a, 0.1, 0.5 * (hi - lo), 3, image::Flux::Exponential),
        )?;
        for mode in MODES.into_iter().chain([Boundary::GridWrap]) {
            let o = FilterOpts::new().boundary(mode).axes(&[nd - 2, nd - 1]);
            let go = GaussianOpts::new().boundary(mode);
            let w = |s: &str| format!("{s} {} {shape:?} {mode:?}", T::DTYPE);
            agree(&w("gaussian"), &x, &shape, tol, &|a| {
                image::gaussian_filter_with(a, &[2.0], go.clone())
            })?;
            agree(&w("gaussian orders"), &x, &shape, tol, &|a| {
                image::gaussian_filter_with(a, &[1.0, 0.0, 3.0], go.clone().order(&[1, 0, 2]))
            })?;
            agree(&w("gaussian long"), &x, &shape, tol, &|a| {
                image::gaussian_filter_with(a, &[10.0], go.clone())
            })?;
            agree(&w("uniform 9"), &x, &shape, tol, &|a| {
                image::uniform_filter_with(a, &[9], o.clone())
            })?;
            agree(&w("sobel 0"), &x, &shape, tol, &|a| {
                image::sobel_with(a, nd - 2, o.clone())
            })?;
            agree(&w("sobel 1"), &x, &shape, tol, &|a| {
                image::sobel_with(a, nd - 1, o.clone())
            })?;
            agree(&w("laplace"), &x, &shape, tol, &|a| {
                image::laplace_with(a, FilterOpts::new().boundary(mode))
            })?;
            let wts = Array::from_slice_on(
                Device::CPU,
                &[0.5, -1.0, 0.25, 2.0, 0.0, 1.0, -0.5, 0.125, 1.5],
                &[3, 3],
            )?;
            agree(&w("correlate"), &x, &shape, tol, &|a| {
                let wd = wts.to_device(a.device())?;
                image::correlate_with(a, &wd, o.clone().origin(&[1, -1]))
            })?;
            for (k, fp) in [
                (3usize, FilterWindow::size(&[3, 3])),
                (7, FilterWindow::size(&[7, 7])),
                (9, FilterWindow::size(&[9, 9])),
            ] {
                agree(&w(&format!("median {k}")), &x, &shape, 0.0, &|a| {
                    image::median_filter_with(a, &fp, o.clone())
                })?;
                agree(&w(&format!("min {k}")), &x, &shape, 0.0, &|a| {
                    image::minimum_filter_with(a, &fp, o.clone())
                })?;
                agree(&w(&format!("percentile {k}")), &x, &shape, 0.0, &|a| {
                    image::percentile_filter_with(a, 20.0, &fp, o.clone())
                })?;
            }
        }
    }
    Ok(())
}

/// CUDA agrees with the CPU backend for every boundary mode and element type.
fn cuda_agrees_with_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    gpu_case::<u8>(&mut rng, 0.0, 255.0, 1.0 / 255.0)?;
    gpu_case::<u16>(&mut rng, 0.0, 60000.0, 1.0 / 60000.0)?;
    gpu_case::<f16>(&mut rng, -4.0, 4.0, 1e-2)?;
    gpu_case::<f32>(&mut rng, -4.0, 4.0, 1e-5)?;
    gpu_case::<f64>(&mut rng, -4.0, 4.0, 1e-12)?;
    Ok(())
}

/// Serialises the tests that choose the separable filters' kernel through the process-wide
/// switch ([`StreamingOn`], [`StreamingOff`]), so that one does not switch the streaming kernel
/// off under another (the kernels compute the same values, so other tests are not affected).
static KERNEL_CHOICE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Switches the opt-in streaming kernel of the separable filters on for the process while it
/// lives, and off again when dropped; holds [`KERNEL_CHOICE`] meanwhile.
struct StreamingOn(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>);

impl StreamingOn {
    fn new() -> Self {
        let g = KERNEL_CHOICE.lock().unwrap_or_else(|e| e.into_inner());
        cuprite_array::tuning::set_image_streaming(true);
        StreamingOn(g)
    }
}

impl Drop for StreamingOn {
    fn drop(&mut self) {
        cuprite_array::tuning::set_image_streaming(false);
    }
}

/// The streaming kernel of the separable filters off while it lives (the tiled kernel takes
/// the filters it would), holding [`KERNEL_CHOICE`].
struct StreamingOff(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>);

impl StreamingOff {
    fn new() -> Self {
        let g = KERNEL_CHOICE.lock().unwrap_or_else(|e| e.into_inner());
        cuprite_array::tuning::set_image_streaming(false);
        StreamingOff(g)
    }
}

/// The filters' kernels compile with NVRTC (no GPU): the sources the CPU runs would build on
/// CUDA, recorded by the dry-run backend, for every element type.
fn image_kernels_compile() -> TestResult {
    let _on = StreamingOn::new();
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        dtypes(Device::CPU),
        rank_random(Device::CPU),
        rank_box_nan(Device::CPU),
        separable_random(Device::CPU),
        separable_tiles(Device::CPU),
        bilateral_ref(Device::CPU),
        mean_shift_ref(Device::CPU),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| s.contains("cuprite_img_"))
        .collect();
    for (i, r) in runs.into_iter().enumerate() {
        r.map_err(|e| format!("body {i} under recording: {e}"))?;
    }
    for want in [
        "cuprite_img_correlate_u8",
        "cuprite_img_correlate_f16",
        "cuprite_img_strip_f32_13x13_22_c6",
        "cuprite_img_strip_f16_13x13_22_c6",
        "cuprite_img_sep2_f64_13x13_22",
        "cuprite_img_corr1_f64_5_0",
        "cuprite_img_corr1_f64_9_2",
        "cuprite_img_sep3_u16_3x3_20_xf_c1",
        "cuprite_img_rank_f64_18_9",
        "cuprite_img_rank2d_f64_3x3_4",
        "cuprite_img_rank2d_f64_7x7_24",
        "cuprite_img_rank2d_f32_7x7_45",
        "cuprite_img_rank2d_f32_2x2_3",
        "cuprite_img_rank_u8_81_40",
        "cuprite_img_bilateral_u8",
        "cuprite_img_bilateral_f64",
        "cuprite_img_meanshift_u8",
        "cuprite_img_meanshift_f64",
    ] {
        if !sources.iter().any(|s| s.contains(want)) {
            let names: Vec<&str> = sources
                .iter()
                .filter_map(|s| s.split("void __launch_bounds__").nth(1))
                .filter_map(|s| s.split('(').nth(1))
                .collect();
            return Err(format!(
                "{want} was not recorded ({} sources: {names:?})",
                sources.len()
            )
            .into());
        }
    }
    let opts = cuprite_array::tuning::compiler::compile_options(90, true);
    let mut seen = std::collections::BTreeSet::new();
    for s in sources.iter().filter(|s| seen.insert((*s).clone())) {
        if let Err(e) = cuprite_driver::nvrtc::compile(s, &opts) {
            return Err(format!("kernel failed to compile: {e}\n{s}").into());
        }
    }
    Ok(())
}

/// The fused separable kernel compiles with NVRTC (no GPU) for every element type, both pass
/// orders, symmetric, antisymmetric and plain taps, and tap counts that take each of its
/// tilings: the sources the CPU runs would build on CUDA, recorded by the dry-run backend.
fn sep2_kernels_compile() -> TestResult {
    let _on = StreamingOn::new();
    fn run<T: ImageElement + Element>() -> TestResult {
        let x: Vec<T> = (0..40 * 70).map(|i| T::store((i % 7) as f64)).collect();
        let a = Array::from_slice_on(Device::CPU, &x, &[40, 70])?;
        // 5, 17 and 33 taps along both axes.
        for sigma in [0.5, 2.0, 4.0] {
            image::gaussian_filter(&a, &[sigma])?.eval()?;
        }
        let go = GaussianOpts::new().order(&[1, 0]);
        image::gaussian_filter_with(&a, &[1.0, 2.0], go)?.eval()?;
        image::uniform_filter(&a, &[4, 3])?.eval()?;
        image::sobel(&a, -1)?.eval()?;
        image::sobel(&a, 0)?.eval()?;
        Ok(())
    }
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        run::<u8>(),
        run::<u16>(),
        run::<f16>(),
        run::<f32>(),
        run::<f64>(),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| {
            s.contains("cuprite_img_sep2_")
                || s.contains("cuprite_img_sep3_")
                || s.contains("cuprite_img_strip_")
        })
        .collect();
    for (i, r) in runs.into_iter().enumerate() {
        r.map_err(|e| format!("dtype {i} under recording: {e}"))?;
    }
    // Each tiling: the output columns that leave 128 of intermediate, the most rows whose shared
    // memory fits 48 KiB, rows a thread of a pass along rows within its register window, 4
    // outputs a thread of a second pass along columns.
    let tile = |tw: usize, th: usize, s: usize, r: usize| {
        format!(
            "SEP_TW = {tw};\nconstexpr int SEP_TH = {th};\nconstexpr int SEP_S = {s};\n\
             constexpr int SEP_R = {r};"
        )
    };
    // The streaming kernel (rows first, at most 17 taps a pass, 4-byte working values): strips
    // of 128 columns, 16 rows a step, 4 outputs a thread along columns.
    let strip = |cx: usize| {
        format!(
            "ST_CX = {cx};\nconstexpr int ST_W = 128;\nconstexpr int ST_U = 16;\n\
             constexpr int ST_R = 4;"
        )
    };
    for (name, tile) in [
        ("cuprite_img_strip_f32_17x17_22_c8(", strip(8)),
        ("cuprite_img_strip_f16_17x17_22_c8(", strip(8)),
        ("cuprite_img_strip_f32_5x5_22_c2(", strip(2)),
        ("cuprite_img_strip_f32_9x17_02_c8(", strip(8)),
        ("cuprite_img_strip_f16_4x3_12_c1(", strip(1)),
        ("cuprite_img_sep2_u16_17x17_22(", tile(112, 32, 8, 4)),
        ("cuprite_img_sep2_f32_33x33_22(", tile(96, 32, 16, 4)),
        ("cuprite_img_sep2_f64_17x17_22(", tile(112, 32, 8, 4)),
        ("cuprite_img_sep2_u8_33x33_22(", tile(96, 32, 1, 4)),
        ("cuprite_img_sep2_f64_5x5_22(", tile(124, 32, 16, 4)),
        // 3 taps a pass: the small-window kernel, 4 rows a warp.
        (
            "cuprite_img_sep3_f16_3x3_20_xf_c1(",
            "S3_XFIRST = 1;\nconstexpr int S3_CX = 1;\nconstexpr int S3_S = 4;".into(),
        ),
        (
            "cuprite_img_sep3_u16_3x3_02_c1(",
            "S3_XFIRST = 0;\nconstexpr int S3_CX = 1;\nconstexpr int S3_S = 4;".into(),
        ),
    ] {
        let Some(src) = sources.iter().find(|s| s.contains(name)) else {
            return Err(format!("{name} was not recorded ({} sources)", sources.len()).into());
        };
        if !src.contains(&tile) {
            return Err(format!("{name} does not take the tile {tile:?}").into());
        }
    }
    let opts = cuprite_array::tuning::compiler::compile_options(90, true);
    let mut seen = std::collections::BTreeSet::new();
    for s in sources.iter().filter(|s| seen.insert((*s).clone())) {
        if let Err(e) = cuprite_driver::nvrtc::compile(s, &opts) {
            return Err(format!("kernel failed to compile: {e}\n{s}").into());
        }
    }
    Ok(())
}

/// The tiled separable kernel (`filters_sep.cu`) takes its taps as floats (`img_ftaps`, two a
/// parameter word) for 4-byte working values and at most 17 taps a pass, as doubles
/// (`img_taps`) otherwise, and both forms compile with NVRTC (no GPU): the sources f16, f32
/// and f64 runs on the CPU would build on CUDA with the streaming kernel off ([`StreamingOff`]),
/// recorded by the dry-run backend: Gaussians of 5 and 17 taps, orders 1 and 0, a uniform filter
/// of 4 x 3, a Gaussian of 33 taps.
fn sep2_float_taps_compile() -> TestResult {
    fn run<T: ImageElement + Element>() -> TestResult {
        let x: Vec<T> = (0..40 * 70).map(|i| T::store((i % 7) as f64)).collect();
        let a = Array::from_slice_on(Device::CPU, &x, &[40, 70])?;
        for sigma in [0.5, 2.0, 4.0] {
            image::gaussian_filter(&a, &[sigma])?.eval()?;
        }
        let go = GaussianOpts::new().order(&[1, 0]);
        image::gaussian_filter_with(&a, &[1.0, 2.0], go)?.eval()?;
        image::uniform_filter(&a, &[4, 3])?.eval()?;
        Ok(())
    }
    let sources: Vec<String> = {
        let _off = StreamingOff::new();
        cuprite_array::tuning::compiler::start_recording();
        let runs = [run::<f16>(), run::<f32>(), run::<f64>()];
        let sources = cuprite_array::tuning::compiler::take_recorded()
            .into_iter()
            .filter(|s| s.contains("cuprite_img_sep2_"))
            .collect();
        for (i, r) in runs.into_iter().enumerate() {
            r.map_err(|e| format!("dtype {i} under recording: {e}"))?;
        }
        sources
    };
    let floats = "img_ftaps{{img_flo(wy_0), img_fhi(wy_0)";
    let doubles = "img_taps{{wy_0, wy_1";
    for (name, want) in [
        ("cuprite_img_sep2_f32_17x17_22(", floats),
        ("cuprite_img_sep2_f16_17x17_22(", floats),
        ("cuprite_img_sep2_f32_5x5_22(", floats),
        ("cuprite_img_sep2_f32_9x17_02(", floats),
        ("cuprite_img_sep2_f16_4x3_12(", floats),
        // 33 taps, and doubles: the taps as doubles.
        ("cuprite_img_sep2_f32_33x33_22(", doubles),
        ("cuprite_img_sep2_f64_17x17_22(", doubles),
    ] {
        let Some(src) = sources.iter().find(|s| s.contains(name)) else {
            return Err(format!("{name} was not recorded ({} sources)", sources.len()).into());
        };
        if !src.contains(want) {
            return Err(format!("{name} does not take its taps as {want:?}").into());
        }
    }
    let opts = cuprite_array::tuning::compiler::compile_options(90, true);
    let mut seen = std::collections::BTreeSet::new();
    for s in sources.iter().filter(|s| seen.insert((*s).clone())) {
        if let Err(e) = cuprite_driver::nvrtc::compile(s, &opts) {
            return Err(format!("kernel failed to compile: {e}\n{s}").into());
        }
    }
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc("codegen::image_kernels_compile", image_kernels_compile),
        Test::gpu(
            "cuda::image_filters::cuda_agrees_with_cpu",
            cuda_agrees_with_cpu,
        ),
        Test::gpu(
            "cuda::image_filters::separable_tiles_dtypes",
            separable_tiles_dtypes,
        ),
        Test::nvrtc("codegen::image_sep2_kernels_compile", sep2_kernels_compile),
        Test::nvrtc(
            "codegen::image_sep2_float_taps_compile",
            sep2_float_taps_compile,
        ),
        Test::gpu("cuda::image_filters::separable_edges", || {
            separable_edges(Device::cuda(0))
        }),
        Test::gpu("cuda::image_filters::separable_many_tiles", || {
            separable_many_tiles(Device::cuda(0))
        }),
        Test::gpu("cuda::image_filters::separable_strips", || {
            separable_strips(Device::cuda(0))
        }),
        Test::cpu("cpu::image_filters::separable_large", || {
            separable_large(Device::CPU)
        }),
        Test::gpu("cuda::image_filters::separable_large", || {
            separable_large(Device::cuda(0))
        }),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::image_filters::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::image_filters::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}

/// The separable filters of [`separable_edges`]: both pass orders, symmetric, antisymmetric
/// and plain taps, windows from 3 to 33 taps.
const SEP_CASES: [&str; 7] = [
    "gaussian 2 (17 x 17 taps, rows first)",
    "gaussian 1, 3 order 1, 0 (9 x 25 taps, antisymmetric rows)",
    "sobel along columns (columns first)",
    "sobel along rows",
    "uniform 4 x 3 (plain taps, shifted centres, divisors)",
    "gaussian 4 (33 x 33 taps)",
    "gaussian 4 order 1 along columns, then 1 along rows (33 x 9 taps, columns first)",
];

/// The filter `SEP_CASES[case]` of `a` along axes 1 and 2 with boundary `b`.
fn sep_filter<T: ImageElement>(
    a: &Array<T>,
    case: usize,
    b: Boundary,
) -> cuprite_array::Result<Array<T>> {
    let go = GaussianOpts::new().boundary(b).axes(&[1, 2]);
    let fo = FilterOpts::new().boundary(b).axes(&[1, 2]);
    match case {
        0 => image::gaussian_filter_with(a, &[2.0], go),
        1 => image::gaussian_filter_with(a, &[1.0, 3.0], go.order(&[1, 0])),
        2 => image::sobel_with(a, 2, fo),
        3 => image::sobel_with(a, 1, fo),
        4 => image::uniform_filter_with(a, &[4, 3], fo),
        5 => image::gaussian_filter_with(a, &[4.0], go),
        _ => image::gaussian_filter_with(a, &[4.0, 1.0], go.axes(&[2, 1]).order(&[1, 0])),
    }
}

/// The f64 reference of `SEP_CASES[case]`: two passes of the direct correlation.
fn sep_ref(case: usize, x: &[f64], xs: &[usize], b: Boundary) -> Vec<f64> {
    let two = |a1: usize, w1: &[f64], c1: i64, w2: &[f64], c2: i64| {
        corr1_ref(&corr1_ref(x, xs, a1, w1, c1, b), xs, 3 - a1, w2, c2, b)
    };
    match case {
        0 => two(1, &gauss_ref(2.0, 0, 8), 8, &gauss_ref(2.0, 0, 8), 8),
        1 => two(1, &gauss_ref(1.0, 1, 4), 4, &gauss_ref(3.0, 0, 12), 12),
        2 => two(2, &[-1.0, 0.0, 1.0], 1, &[1.0, 2.0, 1.0], 1),
        3 => two(1, &[-1.0, 0.0, 1.0], 1, &[1.0, 2.0, 1.0], 1),
        4 => two(1, &[0.25; 4], 2, &[1.0 / 3.0; 3], 1),
        5 => two(1, &gauss_ref(4.0, 0, 16), 16, &gauss_ref(4.0, 0, 16), 16),
        _ => two(2, &gauss_ref(4.0, 1, 16), 16, &gauss_ref(1.0, 0, 4), 4),
    }
}

/// The fused separable kernel (`filters_sep.cu`) against f64 reference passes for every
/// boundary mode (constants with a nonzero `cval`) and every case of [`SEP_CASES`]: a single
/// pixel, single rows and columns, windows wider than the image, sides that are no multiple
/// of any tile, rows 5 long with 4096 of them and the transpose, batches, images with interior
/// tiles whose rows are aligned for vector loads and stores or not. `f32`, `f64` and `f16`.
fn separable_edges(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let shapes: [[usize; 3]; 9] = [
        [1, 1, 1],
        [1, 37, 53],
        [1, 5, 4096],
        [1, 4096, 5],
        [1, 1, 300],
        [1, 300, 1],
        [2, 150, 260],
        [3, 70, 129],
        [1, 9, 2],
    ];
    for xs in shapes {
        let n: usize = xs.iter().product();
        let x = rvec(&mut rng, n, -1.0, 1.0);
        let x16: Vec<f16> = x.iter().map(|&v| f16::from_f64(v)).collect();
        let x16r: Vec<f64> = x16.iter().map(|v| v.to_f64()).collect();
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let a64 = Array::from_slice_on(d, &x, &xs)?;
        let a32 = Array::from_slice_on(d, &x32, &xs)?;
        let a16 = Array::from_slice_on(d, &x16, &xs)?;
        for mode in MODES.into_iter().chain([Boundary::GridWrap]) {
            for (case, name) in SEP_CASES.iter().enumerate() {
                let w = |t: &str| format!("{name} {t} {xs:?} {mode:?}");
                let want = sep_ref(case, &x, &xs, mode);
                let scale = sep_wide(&a32, &a64, case, mode, &want, &w)?;
                let want16 = sep_ref(case, &x16r, &xs, mode);
                let got = sep_filter(&a16, case, mode)?.to_vec()?;
                let got: Vec<f64> = got.iter().map(|v| v.to_f64()).collect();
                close(&got, &want16, 0.0, 1e-2 * scale, &w("f16"))?;
            }
        }
    }
    Ok(())
}

/// Images with more tiles than the device holds blocks at once, so that each block of the
/// separable kernels walks several tiles: [`SEP_CASES`] 0, 2, 3 and 4 (both pass orders, the
/// register-only kernel and the tiled one) of a 2500 x 3001 image in `f32` and `f64`, reflect
/// and constant modes, against the f64 reference passes.
fn separable_many_tiles(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let xs = [1usize, 2500, 3001];
    let x = rvec(&mut rng, xs.iter().product(), -1.0, 1.0);
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let a64 = Array::from_slice_on(d, &x, &xs)?;
    let a32 = Array::from_slice_on(d, &x32, &xs)?;
    for mode in [Boundary::Reflect, Boundary::Constant(0.5)] {
        for case in [0usize, 2, 3, 4] {
            let w = |t: &str| format!("{} {t} {xs:?} {mode:?}", SEP_CASES[case]);
            sep_wide(&a32, &a64, case, mode, &sep_ref(case, &x, &xs, mode), &w)?;
        }
    }
    Ok(())
}

/// The streaming kernel of the separable filters (`filters_strip.cu`: rows first, at most 17
/// taps a pass, `f32` and `f16`) against f64 reference passes for every boundary mode: strips of
/// 128 columns cut by the image's right edge just before, at and after a strip's end (127, 128,
/// 129, 257 columns) and one column wide; images of many segments (both walking directions,
/// the last one partial) and of fewer rows than a window; batches. [`SEP_CASES`] 0 (gaussian 2,
/// 17 x 17 symmetric taps) and 4 (plain taps, shifted centres, divisors). The kernel is
/// opt-in: the test switches it on ([`StreamingOn`]).
fn separable_strips(d: Device) -> TestResult {
    let _on = StreamingOn::new();
    let mut rng = Rng::fresh();
    let shapes: [[usize; 3]; 8] = [
        [1, 1000, 129],
        [2, 200, 257],
        [1, 77, 128],
        [1, 130, 127],
        [3, 65, 1],
        [1, 17, 9],
        [1, 2, 300],
        [1, 4100, 3],
    ];
    for xs in shapes {
        let n: usize = xs.iter().product();
        let x = rvec(&mut rng, n, -1.0, 1.0);
        let x16: Vec<f16> = x.iter().map(|&v| f16::from_f64(v)).collect();
        let x16r: Vec<f64> = x16.iter().map(|v| v.to_f64()).collect();
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let a32 = Array::from_slice_on(d, &x32, &xs)?;
        let a16 = Array::from_slice_on(d, &x16, &xs)?;
        for mode in MODES.into_iter().chain([Boundary::GridWrap]) {
            for case in [0usize, 4] {
                let w = |t: &str| format!("{} {t} {xs:?} {mode:?}", SEP_CASES[case]);
                let want = sep_ref(case, &x, &xs, mode);
                let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                let got = sep_filter(&a32, case, mode)?.to_vec()?;
                let got: Vec<f64> = got.iter().map(|&v| f64::from(v)).collect();
                close(&got, &want, 0.0, 1e-5 * scale, &w("f32"))?;
                let want16 = sep_ref(case, &x16r, &xs, mode);
                let got = sep_filter(&a16, case, mode)?.to_vec()?;
                let got: Vec<f64> = got.iter().map(|v| v.to_f64()).collect();
                close(&got, &want16, 0.0, 1e-2 * scale, &w("f16"))?;
            }
        }
    }
    Ok(())
}

/// The tiled kernel of the separable filters (`filters_sep.cu`) on `f32` and `f16` images (float
/// taps) against f64 reference passes for every boundary mode: images cut by the right edge
/// just before, at and after a tile's end (111, 112, 113 columns; tiles of 112 x 32 outputs for
/// 17 x 17 taps) and by the bottom edge (31, 32, 33 rows); rows a multiple of 4 long (1500, 520,
/// 256: vector loads) or not (389, 127); a large image of many tiles (1200 x 1500, more than
/// one round of the device's resident blocks: [`SEP_CASES`] 0 in `f32`, reflect and constant);
/// images narrower or shorter than a window; batches. [`SEP_CASES`] 0 (gaussian 2, 17 x 17
/// symmetric taps) and 4 (plain taps, shifted centres, divisors). The streaming kernel is off
/// meanwhile ([`StreamingOff`]).
fn separable_large(d: Device) -> TestResult {
    let _off = StreamingOff::new();
    let mut rng = Rng::fresh();
    let shapes: [[usize; 3]; 10] = [
        [1, 1200, 1500],
        [2, 72, 520],
        [1, 97, 389],
        [1, 33, 113],
        [1, 31, 111],
        [3, 32, 112],
        [1, 70, 127],
        [1, 64, 256],
        [2, 5, 3],
        [1, 1, 300],
    ];
    for xs in shapes {
        let n: usize = xs.iter().product();
        let big = n > 100_000;
        // The CPU run checks the references and tolerances; the large image is for the kernel.
        if big && d == Device::CPU {
            continue;
        }
        let x = rvec(&mut rng, n, -1.0, 1.0);
        let x16: Vec<f16> = x.iter().map(|&v| f16::from_f64(v)).collect();
        let x16r: Vec<f64> = x16.iter().map(|v| v.to_f64()).collect();
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let a32 = Array::from_slice_on(d, &x32, &xs)?;
        let a16 = Array::from_slice_on(d, &x16, &xs)?;
        for mode in MODES.into_iter().chain([Boundary::GridWrap]) {
            // The large image (its tiles, not its edges, are what the small ones lack) in one
            // mode reflecting and one constant, `f32`, the gaussian; the small ones take every
            // mode, case and type at the same edges. That keeps the reference passes short.
            if big && mode != Boundary::Reflect && mode != Boundary::Constant(-1.5) {
                continue;
            }
            for case in [0usize, 4] {
                if big && case != 0 {
                    continue;
                }
                let w = |t: &str| format!("{} {t} {xs:?} {mode:?}", SEP_CASES[case]);
                let want = sep_ref(case, &x, &xs, mode);
                let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                let got = sep_filter(&a32, case, mode)?.to_vec()?;
                let got: Vec<f64> = got.iter().map(|&v| f64::from(v)).collect();
                close(&got, &want, 0.0, 1e-5 * scale, &w("f32"))?;
                if big {
                    continue;
                }
                let want16 = sep_ref(case, &x16r, &xs, mode);
                let got = sep_filter(&a16, case, mode)?.to_vec()?;
                let got: Vec<f64> = got.iter().map(|v| v.to_f64()).collect();
                close(&got, &want16, 0.0, 1e-2 * scale, &w("f16"))?;
            }
        }
    }
    Ok(())
}

/// `SEP_CASES[case]` of the `f32` and `f64` images against `want` (the f64 reference, whose
/// largest magnitude scales the tolerances, returned); `w` names a mismatch.
fn sep_wide(
    a32: &Array<f32>,
    a64: &Array<f64>,
    case: usize,
    mode: Boundary,
    want: &[f64],
    w: &dyn Fn(&str) -> String,
) -> Result<f64, Box<dyn std::error::Error + Send + Sync>> {
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let got = sep_filter(a32, case, mode)?.to_vec()?;
    let got: Vec<f64> = got.iter().map(|&v| f64::from(v)).collect();
    close(&got, want, 0.0, 1e-5 * scale, &w("f32"))?;
    let got = sep_filter(a64, case, mode)?.to_vec()?;
    close(&got, want, 1e-10, 1e-12 * scale, &w("f64"))?;
    Ok(scale)
}
