//! The geometric transforms of `cuprite_array::image` against float64 references written here
//! from the definitions (linear interpolation by its formula, rotations by quarter turns as
//! permutations, the B-spline identities, SciPy's documented boundary extensions), values
//! published in SciPy's documentation, and ArrayFire's definitions. Bodies run on every
//! backend; the CUDA-only test checks that both backends agree on every kind, mode, order,
//! rank and element type.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::image::{
    self, AffineOpts, Boundary, GeometricOpts, InterpOpts, RotateOpts, SplineFilter1dOpts,
    SplineFilterOpts, WrapOpts, ZoomOpts,
    af::{self, Interp, ResizeOpts, TransformOpts, WarpOpts},
};
use cuprite_array::{Array, Device, f16};
use cuprite_testkit::{Rng, Test, TestResult};

fn arr(d: Device, v: &[f64], shape: &[usize]) -> Array<f64> {
    Array::from_slice_on(d, v, shape).expect("array")
}

fn rvec(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect()
}

fn vals<T: cuprite_array::dtype::Element + Into<F64>>(a: &Array<T>) -> Vec<f64> {
    a.to_vec()
        .expect("to_vec")
        .into_iter()
        .map(|v| v.into().0)
        .collect()
}

/// A value read back as `f64`.
struct F64(f64);
impl From<f64> for F64 {
    fn from(v: f64) -> Self {
        F64(v)
    }
}
impl From<f32> for F64 {
    fn from(v: f32) -> Self {
        F64(v as f64)
    }
}
impl From<u8> for F64 {
    fn from(v: u8) -> Self {
        F64(v as f64)
    }
}
impl From<u16> for F64 {
    fn from(v: u16) -> Self {
        F64(v as f64)
    }
}
impl From<u32> for F64 {
    fn from(v: u32) -> Self {
        F64(v as f64)
    }
}
impl From<f16> for F64 {
    fn from(v: f16) -> Self {
        F64(v.to_f64())
    }
}

/// Bilinear interpolation of the `h x w` image `x` at `(r, c)` inside `[0, h-1] x [0, w-1]`.
fn bilinear(x: &[f64], w: usize, h: usize, r: f64, c: f64) -> f64 {
    let (r0, c0) = (r.floor() as usize, c.floor() as usize);
    let (r1, c1) = ((r0 + 1).min(h - 1), (c0 + 1).min(w - 1));
    let (fr, fc) = (r - r0 as f64, c - c0 as f64);
    let at = |i: usize, j: usize| x[i * w + j];
    (1.0 - fr) * ((1.0 - fc) * at(r0, c0) + fc * at(r0, c1))
        + fr * ((1.0 - fc) * at(r1, c0) + fc * at(r1, c1))
}

/// SciPy's `map_coordinates` examples (its documentation): a 4 x 3 ramp at (0.5, 0.5) and
/// (2, 1) is [2, 7]; at (0.5, 0.5) and (2, 4) with cval -33.3 it is [2, -33.3], with mode
/// `nearest` [2, 8].
fn scipy_doc_examples(d: Device) -> TestResult {
    let a = arr(d, &(0..12).map(f64::from).collect::<Vec<_>>(), &[4, 3]);
    let o1 = InterpOpts::new().order(1);
    let c = arr(d, &[0.5, 2.0, 0.5, 1.0], &[2, 2]);
    close(
        &vals(&image::map_coordinates_with(&a, &c, o1)?),
        &[2.0, 7.0],
        1e-12,
        1e-12,
        "doc 1",
    )?;
    let inds = arr(d, &[0.5, 2.0, 0.5, 4.0], &[2, 2]);
    let v = vals(&image::map_coordinates_with(
        &a,
        &inds,
        o1.mode(Boundary::Constant(-33.3)),
    )?);
    close(&v, &[2.0, -33.3], 1e-12, 1e-12, "doc cval")?;
    let v = vals(&image::map_coordinates_with(
        &a,
        &inds,
        o1.mode(Boundary::Nearest),
    )?);
    close(&v, &[2.0, 8.0], 1e-12, 1e-12, "doc nearest")?;
    // rotate's and zoom's documented shapes: 512 x 512 by 45 degrees is 724 x 724; a zoom
    // by 3 is 1536 x 1536.
    let big = Array::<u8>::zeros(&[512, 512]).to_device(d)?;
    assert_eq!(image::rotate(&big, 45.0)?.shape(), &[724, 724]);
    assert_eq!(
        image::rotate_with(&big, 45.0, RotateOpts::new().reshape(false))?.shape(),
        &[512, 512]
    );
    assert_eq!(image::zoom(&big, &[3.0, 3.0])?.shape(), &[1536, 1536]);
    Ok(())
}

/// SciPy's `geometric_transform` examples (its documentation): a 4 x 3 ramp shifted by half a
/// cell (order 3, constant), and `[1, 2, 3, 4, 5]` shifted by 3 in four modes.
fn scipy_geometric_examples(d: Device) -> TestResult {
    let a = arr(d, &(0..12).map(f64::from).collect::<Vec<_>>(), &[4, 3]);
    let t = image::geometric_transform(&a, |o| vec![o[0] as f64 - 0.5, o[1] as f64 - 0.5])?;
    let want = [
        0.0, 0.0, 0.0, 0.0, 1.362, 2.738, 0.0, 4.812, 6.187, 0.0, 8.263, 9.637,
    ];
    // NumPy prints three decimals: each value within half a unit of the last.
    close(&vals(&t), &want, 0.0, 5.0001e-4, "ramp")?;
    let b = Array::<u8>::from_slice_on(d, &[1, 2, 3, 4, 5], &[5])?;
    for (mode, want) in [
        (Boundary::Constant(0.0), [0.0, 0.0, 0.0, 1.0, 2.0]),
        (Boundary::Nearest, [1.0, 1.0, 1.0, 1.0, 2.0]),
        (Boundary::Reflect, [3.0, 2.0, 1.0, 1.0, 2.0]),
        (Boundary::Wrap, [2.0, 3.0, 4.0, 1.0, 2.0]),
    ] {
        let opts = GeometricOpts::new().mode(mode);
        let v = vals(&image::geometric_transform_with(
            &b,
            |o| vec![o[0] as f64 - 3.0],
            opts,
        )?);
        close(&v, &want, 0.0, 0.0, &format!("{mode:?}"))?;
    }
    assert_err(
        image::geometric_transform(&b, |_| vec![0.0, 0.0]),
        "InvalidArgument",
        "2 coordinates",
    );
    Ok(())
}

/// Order 1 over random points inside a batch of images is the bilinear formula; the affine
/// map in its three forms (r x r with offset, r x (r + 1), homogeneous) agrees.
fn linear_by_formula(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (b, h, w) = (3, 7, 9);
    let x = rvec(&mut rng, b * h * w);
    let xa = arr(d, &x, &[b, h, w]);
    let np = 40;
    let rs: Vec<f64> = (0..np)
        .map(|_| rng.f32_in(0.0, (h - 1) as f32) as f64)
        .collect();
    let cs: Vec<f64> = (0..np)
        .map(|_| rng.f32_in(0.0, (w - 1) as f32) as f64)
        .collect();
    let coords = arr(d, &[rs.clone(), cs.clone()].concat(), &[2, np]);
    for mode in [
        Boundary::Constant(0.0),
        Boundary::Reflect,
        Boundary::GridWrap,
    ] {
        let got = vals(&image::map_coordinates_with(
            &xa,
            &coords,
            InterpOpts::new().order(1).mode(mode),
        )?);
        let mut want = Vec::new();
        for k in 0..b {
            for p in 0..np {
                want.push(bilinear(&x[k * h * w..(k + 1) * h * w], w, h, rs[p], cs[p]));
            }
        }
        close(
            &got,
            &want,
            1e-12,
            1e-12,
            &format!("map_coordinates {mode:?}"),
        )?;
    }
    // An affine map (a shear and a scale) with points inside.
    let (m, t) = ([[0.6, 0.1], [-0.2, 0.7]], [0.5, 1.5]);
    let want: Vec<f64> = (0..b)
        .flat_map(|k| {
            let img = &x[k * h * w..(k + 1) * h * w];
            (0..h * w).map(move |f| {
                let (i, j) = ((f / w) as f64, (f % w) as f64);
                let r = (m[0][0] * i + m[0][1] * j + t[0]).clamp(0.0, (h - 1) as f64);
                let c = (m[1][0] * i + m[1][1] * j + t[1]).clamp(0.0, (w - 1) as f64);
                bilinear(img, w, h, r, c)
            })
        })
        .collect();
    let o = AffineOpts::new().order(1).mode(Boundary::Nearest);
    let a1 = vals(&image::affine_transform_with(
        &xa,
        &m,
        o.clone().offset(&t),
    )?);
    close(&a1, &want, 1e-12, 1e-12, "affine r x r")?;
    let m2 = [[0.6, 0.1, 0.5], [-0.2, 0.7, 1.5]];
    let a2 = vals(&image::affine_transform_with(&xa, &m2, o.clone())?);
    close(&a2, &want, 1e-12, 1e-12, "affine r x (r + 1)")?;
    let x2 = arr(d, &x[..h * w], &[h, w]);
    let m3 = [[0.6, 0.1, 0.5], [-0.2, 0.7, 1.5], [0.0, 0.0, 1.0]];
    let a3 = vals(&image::affine_transform_with(&x2, &m3, o)?);
    close(&a3, &want[..h * w], 1e-12, 1e-12, "affine homogeneous")?;
    Ok(())
}

/// Trilinear interpolation of a volume (order 1, 3 axes) by the formula, and `zoom` of a
/// volume by 2 with and without grid mode.
fn volume_by_formula(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (n0, n1, n2) = (4, 5, 6);
    let x = rvec(&mut rng, n0 * n1 * n2);
    let at = |i: usize, j: usize, k: usize| x[(i * n1 + j) * n2 + k];
    let tri = |p: [f64; 3]| {
        let n = [n0, n1, n2];
        let mut acc = 0.0;
        for di in 0..2 {
            for dj in 0..2 {
                for dk in 0..2 {
                    let mut wgt = 1.0;
                    let mut ix = [0usize; 3];
                    for (a, dd) in [di, dj, dk].into_iter().enumerate() {
                        let f = p[a].floor();
                        let t = p[a] - f;
                        ix[a] = (f as usize + dd).min(n[a] - 1);
                        wgt *= if dd == 0 { 1.0 - t } else { t };
                    }
                    acc += wgt * at(ix[0], ix[1], ix[2]);
                }
            }
        }
        acc
    };
    let xa = arr(d, &x, &[n0, n1, n2]);
    for grid in [false, true] {
        let opts = ZoomOpts::new()
            .order(1)
            .grid_mode(grid)
            .mode(Boundary::Nearest);
        let z = image::zoom_with(&xa, &[2.0, 2.0, 2.0], opts)?;
        assert_eq!(z.shape(), &[8, 10, 12]);
        let mut want = Vec::new();
        for i in 0..8 {
            for j in 0..10 {
                for k in 0..12 {
                    let o = [i, j, k];
                    let n = [n0, n1, n2];
                    let mut p = [0.0; 3];
                    for a in 0..3 {
                        let l = [8, 10, 12][a] as f64;
                        p[a] = if grid {
                            let f = n[a] as f64 / l;
                            ((o[a] as f64 + 0.5) * f - 0.5).clamp(0.0, (n[a] - 1) as f64)
                        } else {
                            o[a] as f64 * (n[a] - 1) as f64 / (l - 1.0)
                        };
                    }
                    want.push(tri(p));
                }
            }
        }
        close(
            &vals(&z),
            &want,
            1e-12,
            1e-12,
            &format!("zoom 3-D grid {grid}"),
        )?;
    }
    Ok(())
}

/// Zoom of orders 0 and 1 with mode `nearest` by the formulas, on odd sizes, factors below and
/// above 1, both grid modes, a batch of images and a batch of lines: output index `o` of an
/// axis of `n` inputs and `l` outputs stands at `c = o f` with `f = (n - 1) / (l - 1)` (grid
/// mode: `c = o f + (f / 2 - 1/2)` with `f = n / l`, the centres of the output cells), clamped
/// into `[0, n - 1]`; order 0 takes the sample at `floor(c + 0.5)`, order 1 the linear
/// interpolation of the samples beside `c`, axis by axis. (`c` is rounded as the library
/// rounds it, so that a point halfway between two samples takes the same one.)
fn zoom_by_formula(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let cases: [(&[usize], &[f64]); 5] = [
        (&[13, 29], &[2.0, 2.0]),
        (&[3, 9, 11], &[1.7, 0.45]),
        (&[1, 7], &[3.0, 1.4]),
        (&[20, 600], &[0.7, 1.9]),
        (&[9, 31], &[2.6]),
    ];
    for (shape, zoom) in cases {
        let r = zoom.len();
        let nd = shape.len();
        let n = &shape[nd - r..];
        let lines: usize = shape[..nd - r].iter().product();
        let numel: usize = shape.iter().product();
        let x = rvec(&mut rng, numel);
        let xa = arr(d, &x, shape);
        let l: Vec<usize> = n
            .iter()
            .zip(zoom)
            .map(|(&v, &z)| (v as f64 * z).round_ties_even() as usize)
            .collect();
        for grid in [false, true] {
            // Each axis's coordinates, clamped.
            let coords: Vec<Vec<f64>> = (0..r)
                .map(|a| {
                    let (na, la) = (n[a] as f64, l[a] as f64);
                    (0..l[a])
                        .map(|o| {
                            let c = if grid {
                                let f = na / la;
                                o as f64 * f + (0.5 * f - 0.5)
                            } else if l[a] > 1 {
                                o as f64 * ((na - 1.0) / (la - 1.0))
                            } else {
                                0.0
                            };
                            c.clamp(0.0, na - 1.0)
                        })
                        .collect()
                })
                .collect();
            for order in [0usize, 1] {
                // The taps and weights of coordinate `c` on an axis of `m` samples.
                let taps = |c: f64, m: usize| -> Vec<(usize, f64)> {
                    if order == 0 {
                        vec![(((c + 0.5).floor() as usize).min(m - 1), 1.0)]
                    } else {
                        let f = c.floor();
                        let t = c - f;
                        let i = f as usize;
                        vec![(i, 1.0 - t), ((i + 1).min(m - 1), t)]
                    }
                };
                let plane: usize = l.iter().product();
                let npix: usize = n.iter().product();
                let mut want = Vec::with_capacity(lines * plane);
                for b in 0..lines {
                    for f in 0..plane {
                        // Output indices of point `f`, then the sum over every axis's taps.
                        let mut o = vec![0usize; r];
                        let mut rest = f;
                        for a in (0..r).rev() {
                            o[a] = rest % l[a];
                            rest /= l[a];
                        }
                        let per: Vec<Vec<(usize, f64)>> =
                            (0..r).map(|a| taps(coords[a][o[a]], n[a])).collect();
                        let mut acc = 0.0;
                        let mut k = vec![0usize; r];
                        loop {
                            let (mut at, mut wgt) = (0usize, 1.0);
                            for a in 0..r {
                                let (i, w) = per[a][k[a]];
                                at = at * n[a] + i;
                                wgt *= w;
                            }
                            acc += wgt * x[b * npix + at];
                            // The next combination of taps (row-major).
                            let mut a = r;
                            while a > 0 {
                                a -= 1;
                                k[a] += 1;
                                if k[a] < per[a].len() {
                                    break;
                                }
                                k[a] = 0;
                            }
                            if k.iter().all(|&v| v == 0) {
                                break;
                            }
                        }
                        want.push(acc);
                    }
                }
                let opts = ZoomOpts::new()
                    .order(order)
                    .grid_mode(grid)
                    .mode(Boundary::Nearest);
                let what = format!("zoom {shape:?} by {zoom:?} order {order} grid {grid}");
                let z = image::zoom_with(&xa, zoom, opts)?;
                let mut want_shape = shape[..nd - r].to_vec();
                want_shape.extend_from_slice(&l);
                assert_eq!(z.shape(), &want_shape[..], "{what}");
                close(&vals(&z), &want, 1e-12, 1e-12, &format!("{what} f64"))?;
                let z32 = image::zoom_with(&xa.cast::<f32>(), zoom, opts)?;
                close(&vals(&z32), &want, 1e-5, 1e-5, &format!("{what} f32"))?;
            }
        }
    }
    Ok(())
}

/// Quarter turns are permutations (NumPy's `rot90` by its definition) for every order, with
/// and without reshape, on a batch rotated in its last two axes.
fn quarter_turns(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (b, h, w) = (2, 5, 5);
    let x = rvec(&mut rng, b * h * w);
    let xa = arr(d, &x, &[b, h, w]);
    for order in [0, 1, 3, 5] {
        for (deg, turns) in [(90.0, 1), (180.0, 2), (270.0, 3), (-90.0, 3), (450.0, 1)] {
            let r = image::rotate_with(&xa, deg, RotateOpts::new().axes(-2, -1).order(order))?;
            // rot90 counter-clockwise `turns` times: out[i][j] = in[j][w - 1 - i] per turn.
            let mut want = x.clone();
            for _ in 0..turns {
                let prev = want.clone();
                for k in 0..b {
                    for i in 0..h {
                        for j in 0..w {
                            want[k * h * w + i * w + j] = prev[k * h * w + j * w + (w - 1 - i)];
                        }
                    }
                }
            }
            close(
                &vals(&r),
                &want,
                1e-9,
                1e-9,
                &format!("rotate {deg} order {order}"),
            )?;
        }
    }
    // A non-square quarter turn changes the shape (the first two axes by default).
    let y = arr(d, &x[..12], &[3, 4]);
    let r = image::rotate_with(&y, 90.0, RotateOpts::new().order(1))?;
    assert_eq!(r.shape(), &[4, 3]);
    let want: Vec<f64> = (0..12).map(|f| x[(f % 3) * 4 + (3 - f / 3)]).collect();
    close(&vals(&r), &want, 1e-12, 1e-12, "rotate 3 x 4")?;
    Ok(())
}

/// Zoom and rotation of a constant image are constant wherever the points lie inside, in
/// every mode and order.
fn constant_images(d: Device) -> TestResult {
    let x = Array::<f32>::from_slice_on(d, &[2.5; 30], &[5, 6])?;
    let modes = [
        Boundary::Constant(0.0),
        Boundary::Reflect,
        Boundary::Nearest,
        Boundary::Mirror,
        Boundary::Wrap,
        Boundary::GridConstant(2.5),
        Boundary::GridWrap,
    ];
    for mode in modes {
        for order in 0..=5 {
            let z = image::zoom_with(&x, &[1.7, 0.6], ZoomOpts::new().order(order).mode(mode))?;
            assert_eq!(z.shape(), &[8, 4]);
            let v = vals(&z);
            close(
                &v,
                &vec![2.5; 32],
                1e-5,
                1e-5,
                &format!("zoom {mode:?} order {order}"),
            )?;
        }
    }
    Ok(())
}

/// The prefilter's coefficients give back the samples through the cubic B-spline `(c[k-1] + 4
/// c[k] + c[k+1]) / 6`, the coefficients extended as each mode extends them; and
/// interpolation of order 2 to 5 at integer points gives back the samples in every mode.
fn spline_identities(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let n = 11;
    let x = rvec(&mut rng, 3 * n);
    let xa = arr(d, &x, &[3, n]);
    for (mode, ext) in [
        (Boundary::Mirror, 0),
        (Boundary::Reflect, 1),
        (Boundary::GridWrap, 2),
    ] {
        let c = vals(&image::spline_filter1d_with(
            &xa,
            SplineFilter1dOpts::new().mode(mode),
        )?);
        for r in 0..3 {
            let cr = &c[r * n..(r + 1) * n];
            let e = |k: isize| -> f64 {
                let n = n as isize;
                let i = match ext {
                    0 => k.abs().min(2 * (n - 1) - k),
                    1 => {
                        if k < 0 {
                            -k - 1
                        } else if k >= n {
                            2 * n - 1 - k
                        } else {
                            k
                        }
                    }
                    _ => k.rem_euclid(n),
                };
                cr[i as usize]
            };
            let back: Vec<f64> = (0..n as isize)
                .map(|k| (e(k - 1) + 4.0 * e(k) + e(k + 1)) / 6.0)
                .collect();
            close(
                &back,
                &x[r * n..(r + 1) * n],
                1e-12,
                1e-12,
                &format!("B-spline {mode:?}"),
            )?;
        }
    }
    // spline_filter along every axis equals spline_filter1d along each.
    let one = image::spline_filter1d_with(&xa, SplineFilter1dOpts::new().axis(0))?;
    let two = image::spline_filter1d_with(&one, SplineFilter1dOpts::new().axis(1))?;
    let all = image::spline_filter_with(&xa, SplineFilterOpts::new())?;
    close(&vals(&all), &vals(&two), 1e-12, 1e-12, "spline_filter")?;
    let pts: Vec<f64> = [vec![0.0, 2.0, 1.0, 0.0], vec![0.0, 10.0, 5.0, 3.0]].concat();
    let coords = arr(d, &pts, &[2, 4]);
    let want: Vec<f64> = (0..4)
        .map(|p| x[pts[p] as usize * n + pts[4 + p] as usize])
        .collect();
    for mode in [
        Boundary::Constant(1.0),
        Boundary::Reflect,
        Boundary::Nearest,
        Boundary::Mirror,
        Boundary::Wrap,
        Boundary::GridConstant(1.0),
        Boundary::GridWrap,
    ] {
        for order in 2..=5 {
            let o = InterpOpts::new().order(order).mode(mode);
            let v = vals(&image::map_coordinates_with(&xa, &coords, o)?);
            close(
                &v,
                &want,
                1e-10,
                1e-10,
                &format!("samples {mode:?} order {order}"),
            )?;
        }
    }
    Ok(())
}

/// The prefilter of long lines (the segmented kernel on CUDA: several segments a line) gives
/// back the samples through the cubic B-spline with the mirror and reflect extensions, along
/// the last axis and along a leading one, in `f64` and `f32`; order 2 likewise through the
/// quadratic B-spline `(c[k-1] + 6 c[k] + c[k+1]) / 8`; a line holding a NaN or an infinity
/// comes out without a finite value, and the other lines as without it.
fn spline_long_lines(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let n = 300;
    // The extension of line `c` at `k` under rule `ext` (0 mirror, 1 reflect).
    let extend = |c: &[f64], k: isize, ext: u8| -> f64 {
        let n = c.len() as isize;
        let i = match ext {
            0 => k.abs().min(2 * (n - 1) - k),
            _ if k < 0 => -k - 1,
            _ if k >= n => 2 * n - 1 - k,
            _ => k,
        };
        c[i as usize]
    };
    let check = |x: &[f64], c: &[f64], ext: u8, order: usize, tol: f64, what: &str| {
        let (side, mid) = if order == 3 { (1.0, 4.0) } else { (1.0, 6.0) };
        let back: Vec<f64> = (0..x.len() as isize)
            .map(|k| {
                (side * extend(c, k - 1, ext)
                    + mid * extend(c, k, ext)
                    + side * extend(c, k + 1, ext))
                    / (2.0 * side + mid)
            })
            .collect();
        close(&back, x, tol, tol, what)
    };
    let x = rvec(&mut rng, 3 * n);
    for (mode, ext) in [(Boundary::Mirror, 0u8), (Boundary::Reflect, 1)] {
        for order in [2usize, 3] {
            let o = SplineFilter1dOpts::new().mode(mode).order(order);
            // Contiguous lines (the last axis), f64 and f32.
            let c = vals(&image::spline_filter1d_with(&arr(d, &x, &[3, n]), o)?);
            let c32 = vals(&image::spline_filter1d_with(
                &arr(d, &x, &[3, n]).cast::<f32>(),
                o,
            )?);
            // Strided lines (a leading axis): the transposed layout.
            let xt: Vec<f64> = (0..n * 3).map(|f| x[(f % 3) * n + f / 3]).collect();
            let ct = vals(&image::spline_filter1d_with(
                &arr(d, &xt, &[n, 3]),
                o.axis(0),
            )?);
            for r in 0..3 {
                let xr = &x[r * n..(r + 1) * n];
                let what = format!("{mode:?} order {order} line {r}");
                check(
                    xr,
                    &c[r * n..(r + 1) * n],
                    ext,
                    order,
                    1e-12,
                    &format!("f64 {what}"),
                )?;
                check(
                    xr,
                    &c32[r * n..(r + 1) * n],
                    ext,
                    order,
                    2e-5,
                    &format!("f32 {what}"),
                )?;
                let col: Vec<f64> = (0..n).map(|k| ct[k * 3 + r]).collect();
                check(xr, &col, ext, order, 1e-12, &format!("strided {what}"))?;
            }
        }
    }
    // Non-finite values: their lines have no finite value left, the others are untouched.
    let mut xn = x.clone();
    xn[n + 200] = f64::NAN;
    xn[2 * n + 7] = f64::INFINITY;
    let c = vals(&image::spline_filter1d(&arr(d, &xn, &[3, n]))?);
    check(
        &x[..n],
        &c[..n],
        0,
        3,
        1e-12,
        "finite line beside non-finite ones",
    )?;
    for r in 1..3 {
        if let Some(k) = c[r * n..(r + 1) * n].iter().position(|v| v.is_finite()) {
            return Err(format!("line {r} with a non-finite value: finite output at {k}").into());
        }
    }
    Ok(())
}

/// Outside points in each mode against SciPy's extension tables, order 1 at -0.5 and n - 0.5
/// (`a b c d` extended: reflect `a | a b c d | d`, mirror `b | a b c d | c`, nearest `a | ..
/// | d`, grid-wrap `d | a b c d | a`, constant cval outside, grid-constant the padding
/// interpolated), and SciPy's wrap for interpolation (period n - 1).
fn modes_outside(d: Device) -> TestResult {
    let x = [1.0, 2.0, 4.0, 8.0];
    let xa = arr(d, &x, &[4]);
    let c = arr(d, &[-0.5, 3.5], &[1, 2]);
    for (mode, want) in [
        (Boundary::Reflect, [1.0, 8.0]),
        (Boundary::Mirror, [1.5, 6.0]),
        (Boundary::Nearest, [1.0, 8.0]),
        (Boundary::GridWrap, [4.5, 4.5]),
        (Boundary::Constant(7.0), [7.0, 7.0]),
        (Boundary::GridConstant(7.0), [4.0, 7.5]),
        // wrap maps -0.5 to 2.5 and 3.5 to 0.5 (period 3).
        (Boundary::Wrap, [6.0, 1.5]),
    ] {
        let v = vals(&image::map_coordinates_with(
            &xa,
            &c,
            InterpOpts::new().order(1).mode(mode),
        )?);
        close(&v, &want, 1e-12, 1e-12, &format!("{mode:?}"))?;
    }
    Ok(())
}

/// Integer shifts under grid-wrap are rolls (every order); a shift under constant mode
/// fills with cval; a half shift in order 1 averages neighbours.
fn shifts(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (h, w) = (4, 6);
    let x = rvec(&mut rng, 2 * h * w);
    let xa = arr(d, &x, &[2, h, w]);
    for order in [0, 1, 3, 4] {
        let s = image::shift_with(
            &xa,
            &[1.0, -2.0],
            InterpOpts::new().order(order).mode(Boundary::GridWrap),
        )?;
        let want: Vec<f64> = (0..2 * h * w)
            .map(|f| {
                let (b, i, j) = (f / (h * w), (f / w) % h, f % w);
                x[b * h * w + ((i + h - 1) % h) * w + (j + 2) % w]
            })
            .collect();
        close(
            &vals(&s),
            &want,
            1e-10,
            1e-10,
            &format!("roll order {order}"),
        )?;
    }
    let s = image::shift_with(
        &xa,
        &[0.0, 1.5],
        InterpOpts::new().order(1).mode(Boundary::Constant(3.0)),
    )?;
    let want: Vec<f64> = (0..2 * h * w)
        .map(|f| {
            let (row, j) = (f / w, f % w);
            let c = j as f64 - 1.5;
            if c < 0.0 {
                3.0
            } else {
                let j0 = c.floor() as usize;
                0.5 * x[row * w + j0] + 0.5 * x[row * w + j0 + 1]
            }
        })
        .collect();
    close(&vals(&s), &want, 1e-12, 1e-12, "shift constant")?;
    Ok(())
}

/// Integer outputs are stored as SciPy stores them: rounded half up, clamped to the type.
fn integer_rounding(d: Device) -> TestResult {
    let a = Array::<u8>::from_slice_on(d, &[1, 2, 3, 250, 255, 0, 255, 0], &[8])?;
    let c = arr(d, &[0.5, 1.5, 3.5], &[1, 3]);
    let v = vals(&image::map_coordinates_with(
        &a,
        &c,
        InterpOpts::new().order(1),
    )?);
    // 1.5 -> 2, 2.5 -> 3, 252.5 -> 253.
    assert_eq!(v, vec![2.0, 3.0, 253.0]);
    // Order 3 overshoots past 255 beside the 255 next to 0 and below 0 beside the 0s.
    let c3 = arr(d, &[4.0, 4.3, 5.0, 5.5], &[1, 4]);
    let v = vals(&image::map_coordinates_with(
        &a,
        &c3,
        InterpOpts::new().order(3),
    )?);
    let f = vals(&image::map_coordinates_with(
        &a.cast::<f64>(),
        &c3,
        InterpOpts::new().order(3),
    )?);
    let want: Vec<f64> = f
        .iter()
        .map(|&t| {
            if t > 0.0 {
                (t + 0.5).min(255.0).trunc()
            } else {
                0.0
            }
        })
        .collect();
    assert!(
        f.iter().any(|&t| t > 255.0) && f.iter().any(|&t| t < 0.0),
        "overshoot {f:?}"
    );
    assert_eq!(v, want);
    let b = Array::<u16>::from_slice_on(d, &[0, 65535], &[2])?;
    let z = vals(&image::zoom_with(&b, &[2.0], ZoomOpts::new().order(1))?);
    // 65535 / 3 = 21845, 2 x 65535 / 3 = 43690.
    assert_eq!(z, vec![0.0, 21845.0, 43690.0, 65535.0]);
    Ok(())
}

/// `f16`, `f32` and `u16` images through zoom order 1 agree with the `f64` formula within their
/// precision.
fn element_types(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let x: Vec<f64> = (0..20)
        .map(|_| (rng.f32_in(0.0, 100.0) as f64).round())
        .collect();
    let want = vals(&image::zoom_with(
        &arr(d, &x, &[4, 5]),
        &[1.5, 1.5],
        ZoomOpts::new().order(1),
    )?);
    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let f = Array::<f32>::from_slice_on(d, &xf, &[4, 5])?;
    close(
        &vals(&image::zoom_with(
            &f,
            &[1.5, 1.5],
            ZoomOpts::new().order(1),
        )?),
        &want,
        1e-5,
        1e-4,
        "f32",
    )?;
    let h: Vec<f16> = x.iter().map(|&v| f16::from_f64(v)).collect();
    let hf = Array::<f16>::from_slice_on(d, &h, &[4, 5])?;
    close(
        &vals(&image::zoom_with(
            &hf,
            &[1.5, 1.5],
            ZoomOpts::new().order(1),
        )?),
        &want,
        1e-3,
        0.06,
        "f16",
    )?;
    let u: Vec<u16> = x.iter().map(|&v| v as u16).collect();
    let ua = Array::<u16>::from_slice_on(d, &u, &[4, 5])?;
    let got = vals(&image::zoom_with(
        &ua,
        &[1.5, 1.5],
        ZoomOpts::new().order(1),
    )?);
    let r: Vec<f64> = want.iter().map(|&t| (t + 0.5).trunc()).collect();
    close(&got, &r, 0.0, 1.0, "u16")?;
    Ok(())
}

/// ArrayFire's resize by its definitions: nearest `floor(o n / l + 0.5)` clamped, bilinear
/// by the formula with the edge repeated, every method the identity at the input's size, the
/// area mean of the covered cells.
fn af_resize(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (h, w) = (4, 6);
    let x = rvec(&mut rng, 3 * h * w);
    let xa = arr(d, &x, &[3, h, w]);
    let (oh, ow) = (7, 9);
    let near = vals(&af::resize(&xa, oh, ow)?);
    let bil = vals(&af::resize_with(
        &xa,
        oh,
        ow,
        ResizeOpts::new().method(Interp::Bilinear),
    )?);
    let mut wn = Vec::new();
    let mut wb = Vec::new();
    for b in 0..3 {
        let img = &x[b * h * w..(b + 1) * h * w];
        for i in 0..oh {
            for j in 0..ow {
                let (r, c) = (
                    i as f64 * h as f64 / oh as f64,
                    j as f64 * w as f64 / ow as f64,
                );
                let ri = ((r + 0.5).floor() as usize).min(h - 1);
                let ci = ((c + 0.5).floor() as usize).min(w - 1);
                wn.push(img[ri * w + ci]);
                let (r0, c0) = (r.floor(), c.floor());
                let (r1, c1) = (
                    ((r0 as usize) + 1).min(h - 1),
                    ((c0 as usize) + 1).min(w - 1),
                );
                let (fr, fc) = (r - r0, c - c0);
                let at = |i: usize, j: usize| img[i * w + j];
                wb.push(
                    (1.0 - fr) * (1.0 - fc) * at(r0 as usize, c0 as usize)
                        + fr * (1.0 - fc) * at(r1, c0 as usize)
                        + (1.0 - fr) * fc * at(r0 as usize, c1)
                        + fr * fc * at(r1, c1),
                );
            }
        }
    }
    close(&near, &wn, 0.0, 0.0, "resize nearest")?;
    close(&bil, &wb, 1e-12, 1e-12, "resize bilinear")?;
    for m in [
        Interp::Nearest,
        Interp::Lower,
        Interp::Bilinear,
        Interp::Bicubic,
        Interp::BicubicSpline,
        Interp::Area,
    ] {
        let same = vals(&af::resize_with(&xa, h, w, ResizeOpts::new().method(m))?);
        close(&same, &x, 1e-12, 1e-12, &format!("resize identity {m:?}"))?;
    }
    let area = vals(&af::resize_with(
        &xa,
        2,
        3,
        ResizeOpts::new().method(Interp::Area),
    )?);
    let mut wa = Vec::new();
    for b in 0..3 {
        for i in 0..2 {
            for j in 0..3 {
                let mut s = 0.0;
                for di in 0..2 {
                    for dj in 0..2 {
                        s += x[b * h * w + (2 * i + di) * w + 2 * j + dj];
                    }
                }
                wa.push(s / 4.0);
            }
        }
    }
    close(&area, &wa, 1e-12, 1e-12, "resize area")?;
    // Bicubic at (1.25, 1.5) and (1.25, 2.5) of a ramp by ArrayFire's cubic per axis: `a t^3 +
    // b t^2 + c t + d` with `a = v3 - v2 - v0 + v1`, `b = v0 - v1 - a`, `c = v2 - v0`, `d =
    // v1`; the spline (Catmull-Rom) reproduces lines exactly.
    let ramp: Vec<f64> = (0..h * w)
        .map(|f| (f / w) as f64 * 2.0 + (f % w) as f64)
        .collect();
    let ra = arr(d, &ramp, &[h, w]);
    let cubic = |v: [f64; 4], t: f64| {
        let a = v[3] - v[2] - v[0] + v[1];
        let b = v[0] - v[1] - a;
        a * t * t * t + b * t * t + (v[2] - v[0]) * t + v[1]
    };
    let want: Vec<f64> = [1.5f64, 2.5]
        .iter()
        .map(|&c| {
            let rows: Vec<f64> = (0..4)
                .map(|i| {
                    let cols = [0, 1, 2, 3].map(|j| ramp[i * w + (c.floor() as usize + j - 1)]);
                    cubic(cols, c - c.floor())
                })
                .collect();
            cubic([rows[0], rows[1], rows[2], rows[3]], 0.25)
        })
        .collect();
    let m = [[1.0, 0.0, 1.25], [0.0, 1.0, 1.5]];
    let o = TransformOpts::new().odims(1, 2);
    let t = vals(&af::transform_with(&ra, &m, o.method(Interp::Bicubic))?);
    close(&t, &want, 1e-12, 1e-12, "bicubic ramp")?;
    let t = vals(&af::transform_with(
        &ra,
        &m,
        o.method(Interp::BicubicSpline),
    )?);
    close(
        &t,
        &[1.25 * 2.0 + 1.5, 1.25 * 2.0 + 2.5],
        1e-12,
        1e-12,
        "spline ramp",
    )?;
    Ok(())
}

/// ArrayFire's transform family: a forward matrix equals its inverse given as inverse; quarter
/// turns by `rotate`; translate and scale by their matrices; skew of zero angles; the corner
/// coordinates by the formula; a singular forward matrix is an `Err`.
fn af_transforms(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (h, w) = (5, 7);
    let x = rvec(&mut rng, h * w);
    let xa = arr(d, &x, &[h, w]);
    let fwd = [[1.2, 0.3, -0.5], [-0.1, 0.9, 0.7]];
    let det = 1.2 * 0.9 - 0.3 * -0.1;
    let inv = [
        [0.9 / det, -0.3 / det, (0.3 * 0.7 - -0.5 * 0.9) / det],
        [0.1 / det, 1.2 / det, (-0.5 * -0.1 - 1.2 * 0.7) / det],
    ];
    for m in [Interp::Nearest, Interp::Bilinear, Interp::Bicubic] {
        let a = vals(&af::transform_with(
            &xa,
            &fwd,
            TransformOpts::new().inverse(false).method(m),
        )?);
        let b = vals(&af::transform_with(
            &xa,
            &inv,
            TransformOpts::new().method(m),
        )?);
        close(&a, &b, 1e-9, 1e-9, &format!("forward {m:?}"))?;
    }
    // A zero output size is the input's (ArrayFire's rule).
    let t0 = af::transform_with(&xa, &fwd, TransformOpts::new().odims(0, 3))?;
    assert_eq!(t0.shape(), &[h, w]);
    // The projective form with the last row 0 0 1 is the affine one.
    let p3 = [fwd[0], fwd[1], [0.0, 0.0, 1.0]];
    let a = vals(&af::transform(&xa, &fwd)?);
    close(&vals(&af::transform(&xa, &p3)?), &a, 0.0, 0.0, "projective")?;
    assert_err(
        af::transform_with(
            &xa,
            &[[1.0, 2.0, 0.0], [2.0, 4.0, 0.0]],
            TransformOpts::new().inverse(false),
        ),
        "InvalidArgument",
        "singular",
    );
    // A half turn of the whole image is the reversed image.
    let r = vals(&af::rotate(&xa, std::f64::consts::PI)?);
    let rev: Vec<f64> = x.iter().rev().copied().collect();
    close(&r, &rev, 0.0, 0.0, "rotate pi")?;
    let sq = arr(d, &x[..25], &[5, 5]);
    let q = vals(&af::rotate_with(
        &sq,
        std::f64::consts::FRAC_PI_2,
        af::RotateOpts::new().method(Interp::Bilinear),
    )?);
    // Output (i, j) takes input (j, 4 - i) (a quarter turn about the centre, ArrayFire's sign).
    let want: Vec<f64> = (0..25).map(|f| x[(f % 5) * 5 + (4 - f / 5)]).collect();
    close(&q, &want, 1e-9, 1e-9, "rotate pi/2")?;
    let t = vals(&af::translate_with(
        &xa,
        1.0,
        2.0,
        WarpOpts::new().method(Interp::Bilinear),
    )?);
    let wt: Vec<f64> = (0..h * w)
        .map(|f| {
            let (i, j) = (f / w + 1, f % w + 2);
            if i < h && j < w { x[i * w + j] } else { 0.0 }
        })
        .collect();
    close(&t, &wt, 0.0, 0.0, "translate")?;
    let s = af::scale_with(&xa, 2.0, 3.0, WarpOpts::new().method(Interp::Lower))?;
    assert_eq!(s.shape(), &[10, 21]);
    let sv = vals(&s);
    let ws: Vec<f64> = (0..10 * 21)
        .map(|f| x[(f / 21 / 2) * w + (f % 21) / 3])
        .collect();
    close(&sv, &ws, 0.0, 0.0, "scale")?;
    close(&vals(&af::skew(&xa, 0.0, 0.0)?), &x, 0.0, 0.0, "skew 0")?;
    let tf = [[1.0, 0.5, 2.0], [0.25, 2.0, -1.0], [0.01, 0.02, 1.0]];
    let c = af::transform_coords(&tf, 10.0, 20.0)?;
    for (k, (px, py)) in [(0.0, 0.0), (0.0, 10.0), (20.0, 10.0), (20.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        let wgt = 0.01 * px + 0.02 * py + 1.0;
        let want = [
            (px + 0.5 * py + 2.0) / wgt,
            (0.25 * px + 2.0 * py - 1.0) / wgt,
        ];
        close(&c[k], &want, 1e-12, 1e-12, "transform_coords")?;
    }
    Ok(())
}

/// `sat` by the definition; `unwrap` by direct loops (row-major patches and windows, padding
/// with zeros); `wrap` sums the patches back (non-overlapping windows give the image).
fn af_patches(d: Device) -> TestResult {
    let mut rng = Rng::fresh();
    let (b, h, w) = (2, 5, 6);
    let x: Vec<f64> = (0..b * h * w)
        .map(|_| (rng.f32_in(0.0, 9.0) as f64).round())
        .collect();
    let xu: Vec<u8> = x.iter().map(|&v| v as u8).collect();
    let ua = Array::<u8>::from_slice_on(d, &xu, &[b, h, w])?;
    let s = vals(&image::sat(&ua)?);
    let mut want = vec![0.0; b * h * w];
    for k in 0..b {
        for i in 0..h {
            for j in 0..w {
                let mut acc = 0.0;
                for a in 0..=i {
                    for c in 0..=j {
                        acc += x[k * h * w + a * w + c];
                    }
                }
                want[k * h * w + i * w + j] = acc;
            }
        }
    }
    close(&s, &want, 0.0, 0.0, "sat")?;
    let xa = arr(d, &x, &[b, h, w]);
    let (wx, wy, sx, sy, px, py) = (3, 2, 2, 3, 1, 1);
    let u = image::unwrap_with(&xa, wx, wy, sx, sy, WrapOpts::new().padding(px, py))?;
    let nx = (h + 2 * px - wx) / sx + 1;
    let ny = (w + 2 * py - wy) / sy + 1;
    assert_eq!(u.shape(), &[b, wx * wy, nx * ny]);
    let mut wu = Vec::new();
    for k in 0..b {
        for pi in 0..wx {
            for pj in 0..wy {
                for a in 0..nx {
                    for c in 0..ny {
                        let (i, j) = (
                            (a * sx + pi) as isize - px as isize,
                            (c * sy + pj) as isize - py as isize,
                        );
                        let inside = i >= 0 && j >= 0 && (i as usize) < h && (j as usize) < w;
                        wu.push(if inside {
                            x[k * h * w + i as usize * w + j as usize]
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    close(&vals(&u), &wu, 0.0, 0.0, "unwrap")?;
    // wrap: each image cell times the number of windows that cover it.
    let back = vals(&image::wrap_with(
        &u,
        h,
        w,
        wx,
        wy,
        sx,
        sy,
        WrapOpts::new().padding(px, py),
    )?);
    let mut cover = vec![0.0; h * w];
    for a in 0..nx {
        for c in 0..ny {
            for pi in 0..wx {
                for pj in 0..wy {
                    let (i, j) = (
                        (a * sx + pi) as isize - px as isize,
                        (c * sy + pj) as isize - py as isize,
                    );
                    if i >= 0 && j >= 0 && (i as usize) < h && (j as usize) < w {
                        cover[i as usize * w + j as usize] += 1.0;
                    }
                }
            }
        }
    }
    let wb: Vec<f64> = (0..b * h * w).map(|f| x[f] * cover[f % (h * w)]).collect();
    close(&back, &wb, 1e-12, 1e-12, "wrap")?;
    let rows = image::unwrap_with(&xa, 2, 3, 2, 3, WrapOpts::new().is_column(false))?;
    let again = image::wrap_with(&rows, 4, 6, 2, 3, 2, 3, WrapOpts::new().is_column(false))?;
    let crop: Vec<f64> = (0..b * 4 * 6)
        .map(|f| x[(f / 24) * h * w + ((f / 6) % 4) * w + f % 6])
        .collect();
    close(&vals(&again), &crop, 0.0, 0.0, "wrap of unwrap")?;
    Ok(())
}

/// Bad input is an `Err` naming the value.
fn bad_input(d: Device) -> TestResult {
    let x = arr(d, &[0.0; 12], &[3, 4]);
    let v = arr(d, &[0.0; 3], &[3]);
    let iv = |ms: &str| ms.to_string();
    assert_err(
        image::zoom_with(&x, &[2.0, 2.0], ZoomOpts::new().order(6)),
        "InvalidArgument",
        "order 6",
    );
    assert_err(
        image::zoom(&x, &[0.0, 1.0]),
        "InvalidArgument",
        "[0.0, 1.0]",
    );
    assert_err(image::zoom(&x, &[f64::NAN, 1.0]), "InvalidArgument", "NaN");
    assert_err(image::zoom(&x, &[1e300, 1.0]), "InvalidArgument", "1e300");
    assert_err(
        image::zoom(&x, &[1.0, 1.0, 1.0]),
        "InvalidArgument",
        &iv("[3, 4]"),
    );
    assert_err(image::rotate(&v, 30.0), "InvalidArgument", "[3]");
    assert_err(
        image::rotate_with(&x, 30.0, RotateOpts::new().axes(0, 2)),
        "InvalidArgument",
        "(0, 2)",
    );
    assert_err(
        image::shift(&x, &[f64::INFINITY, 0.0]),
        "InvalidArgument",
        "inf",
    );
    assert_err(
        image::affine_transform(&x, &[[1.0, f64::NAN], [0.0, 1.0]]),
        "InvalidArgument",
        "NaN",
    );
    assert_err(
        image::affine_transform(&x, &[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]),
        "InvalidArgument",
        "2 x 4",
    );
    assert_err(
        image::affine_transform(&x, &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 1.0]]),
        "InvalidArgument",
        "last row",
    );
    assert_err(
        image::affine_transform_with(
            &x,
            &[[1.0, 0.0], [0.0, 1.0]],
            AffineOpts::new().output_shape(&[2]),
        ),
        "InvalidArgument",
        "[2]",
    );
    assert_err(
        image::affine_transform_with(
            &x,
            &[[1.0, 0.0], [0.0, 1.0]],
            AffineOpts::new().output_shape(&[1 << 40, 1 << 40]),
        ),
        "InvalidArgument",
        "too many",
    );
    let c4 = arr(d, &[0.0; 8], &[4, 2]);
    assert_err(
        image::map_coordinates(&x, &c4),
        "InvalidArgument",
        "4 transformed axes",
    );
    assert_err(
        image::spline_filter1d_with(&x, SplineFilter1dOpts::new().axis(2)),
        "InvalidArgument",
        "axis 2",
    );
    assert_err(af::resize(&v, 2, 2), "InvalidArgument", "[3]");
    assert_err(af::resize(&x, 0, 2), "InvalidArgument", "0 x 2");
    assert_err(
        af::transform(&x, &[[1.0, 0.0, f64::INFINITY], [0.0, 1.0, 0.0]]),
        "InvalidArgument",
        "inf",
    );
    assert_err(af::scale(&x, 0.0, 1.0), "InvalidArgument", "scales 0");
    assert_err(
        af::skew(&x, std::f64::consts::FRAC_PI_4, std::f64::consts::FRAC_PI_4),
        "InvalidArgument",
        "singular",
    );
    assert_err(
        image::unwrap(&x, 5, 2, 1, 1),
        "InvalidArgument",
        "window of 5",
    );
    assert_err(
        image::unwrap_with(&x, 2, 2, 1, 1, WrapOpts::new().padding(2, 0)),
        "InvalidArgument",
        "padding 2",
    );
    assert_err(
        image::wrap(&x, 3, 4, 2, 2, 1, 1),
        "InvalidArgument",
        "[3, 4]",
    );
    // Windows, paddings and counts whose products or sums overflow are refused, named.
    let (w, p) = (1usize << 33, (1usize << 33) - 1);
    assert_err(
        image::unwrap_with(&x, w, w, 1, 1, WrapOpts::new().padding(p, p)),
        "InvalidArgument",
        "8589934592 x 8589934592",
    );
    assert_err(
        image::unwrap_with(
            &x,
            usize::MAX,
            2,
            1,
            1,
            WrapOpts::new().padding(usize::MAX - 1, 0),
        ),
        "InvalidArgument",
        &format!("padded by {} each side", usize::MAX - 1),
    );
    assert_err(
        image::wrap_with(&x, 3, 4, w, w, 1, 1, WrapOpts::new().padding(p, p)),
        "InvalidArgument",
        "8589934592 x 8589934592",
    );
    assert_err(
        image::sat(&Array::<u8>::zeros(&[3]).to_device(d)?),
        "InvalidArgument",
        "[3]",
    );
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("scipy_doc_examples", scipy_doc_examples),
    ("scipy_geometric_examples", scipy_geometric_examples),
    ("linear_by_formula", linear_by_formula),
    ("volume_by_formula", volume_by_formula),
    ("zoom_by_formula", zoom_by_formula),
    ("quarter_turns", quarter_turns),
    ("constant_images", constant_images),
    ("spline_identities", spline_identities),
    ("spline_long_lines", spline_long_lines),
    ("modes_outside", modes_outside),
    ("shifts", shifts),
    ("integer_rounding", integer_rounding),
    ("element_types", element_types),
    ("af_resize", af_resize),
    ("af_transforms", af_transforms),
    ("af_patches", af_patches),
    ("bad_input", bad_input),
];

/// The CUDA resampler and prefilter agree with the CPU twins on every kind, mode, order, rank,
/// map and element type (values within the working type's rounding; integer outputs within
/// one step where a value sits on a rounding edge).
fn cuda_matches_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    let gpu = Device::cuda(0);
    let shapes: [&[usize]; 3] = [&[3, 17], &[2, 9, 11], &[2, 5, 6, 7]];
    let modes = [
        Boundary::Constant(0.5),
        Boundary::Reflect,
        Boundary::Nearest,
        Boundary::Mirror,
        Boundary::Wrap,
        Boundary::GridConstant(0.5),
        Boundary::GridWrap,
    ];
    for (ri, shape) in shapes.iter().enumerate() {
        let r = ri + 1;
        let n: usize = shape.iter().product();
        let x: Vec<f64> = (0..n).map(|_| rng.f32_in(0.0, 200.0) as f64).collect();
        let zooms = vec![1.7; r];
        for mode in modes {
            for order in 0..=5 {
                // (what, values, relative and absolute tolerance): f64 to its rounding, f32
                // and f16 to theirs (values up to 200), u8 within one step at rounding edges.
                type Part = (&'static str, Vec<f64>, f64, f64);
                let run = |d: Device| -> cuprite_array::Result<Vec<Part>> {
                    let a = arr(d, &x, shape);
                    let s: Vec<f64> = (0..r).map(|k| 0.3 + k as f64).collect();
                    let z = ZoomOpts::new().order(order).mode(mode);
                    let i = InterpOpts::new().order(order).mode(mode);
                    Ok(vec![
                        (
                            "zoom f64",
                            vals(&image::zoom_with(&a, &zooms, z)?),
                            1e-9,
                            1e-9,
                        ),
                        (
                            "shift f64",
                            vals(&image::shift_with(&a, &s, i)?),
                            1e-9,
                            1e-9,
                        ),
                        (
                            "zoom f32 grid",
                            vals(&image::zoom_with(
                                &a.cast::<f32>(),
                                &zooms,
                                z.grid_mode(true),
                            )?),
                            1e-4,
                            1e-3,
                        ),
                        (
                            "shift u8",
                            vals(&image::shift_with(&a.cast::<u8>(), &s, i)?),
                            0.0,
                            1.0,
                        ),
                        (
                            "shift f16",
                            vals(&image::shift_with(&a.cast::<f16>(), &s, i)?),
                            2e-3,
                            0.25,
                        ),
                    ])
                };
                let (c, g) = (run(Device::CPU)?, run(gpu)?);
                for ((what, cv, rt, at), (_, gv, _, _)) in c.iter().zip(&g) {
                    close(
                        gv,
                        cv,
                        *rt,
                        *at,
                        &format!("rank {r} {what} {mode:?} order {order}"),
                    )?;
                }
            }
        }
    }
    // Long lines (the segmented prefilter: several segments a line, along the last axis and
    // a leading one) through zoom of orders 2 and 3 in every mode, f32 and f64.
    let (h, w) = (150usize, 260usize);
    let xl: Vec<f64> = (0..2 * h * w)
        .map(|_| rng.f32_in(0.0, 200.0) as f64)
        .collect();
    for mode in modes {
        for order in [2usize, 3] {
            let run = |d: Device| -> cuprite_array::Result<(Vec<f64>, Vec<f64>)> {
                let a = arr(d, &xl, &[2, h, w]);
                let z = ZoomOpts::new().order(order).mode(mode);
                Ok((
                    vals(&image::zoom_with(&a, &[1.3, 0.8], z)?),
                    vals(&image::zoom_with(&a.cast::<f32>(), &[1.3, 0.8], z)?),
                ))
            };
            let ((c64, c32), (g64, g32)) = (run(Device::CPU)?, run(gpu)?);
            let what = format!("long lines {mode:?} order {order}");
            close(&g64, &c64, 1e-9, 1e-9, &format!("{what} f64"))?;
            close(&g32, &c32, 1e-4, 1e-3, &format!("{what} f32"))?;
        }
    }
    // Rotations, coordinates arrays and ArrayFire's kinds on a batch of images.
    let x: Vec<f64> = (0..3 * 40 * 50)
        .map(|_| rng.f32_in(0.0, 1.0) as f64)
        .collect();
    let run = |d: Device| -> cuprite_array::Result<Vec<f64>> {
        let a = arr(d, &x, &[3, 40, 50]);
        let mut v = vals(&image::rotate_with(
            &a,
            30.0,
            RotateOpts::new().axes(-2, -1).order(1),
        )?);
        v.extend(vals(&image::rotate_with(
            &a.cast::<f32>(),
            17.0,
            RotateOpts::new().axes(-2, -1),
        )?));
        let pts: Vec<f64> = (0..2 * 64)
            .map(|k| (k as f64 * 0.77) % 45.0 - 2.0)
            .collect();
        v.extend(vals(&image::map_coordinates(
            &a,
            &arr(d, &pts, &[2, 8, 8]),
        )?));
        for m in [
            Interp::Nearest,
            Interp::Lower,
            Interp::Bilinear,
            Interp::Bicubic,
            Interp::BicubicSpline,
            Interp::Area,
        ] {
            v.extend(vals(&af::resize_with(
                &a.cast::<f32>(),
                64,
                27,
                ResizeOpts::new().method(m),
            )?));
        }
        for m in [Interp::Nearest, Interp::Bilinear, Interp::Bicubic] {
            v.extend(vals(&af::rotate_with(
                &a,
                0.4,
                af::RotateOpts::new().crop(false).method(m),
            )?));
            let p = [[1.0, 0.1, 0.5], [0.05, 0.9, -1.0], [0.001, 0.002, 1.0]];
            v.extend(vals(&af::transform_with(
                &a,
                &p,
                TransformOpts::new().method(m),
            )?));
        }
        v.extend(vals(&image::spline_filter(&a)?));
        v.extend(vals(&image::sat(&a.cast::<f32>())?));
        v.extend(vals(&image::unwrap(&a, 3, 3, 2, 2)?));
        Ok(v)
    };
    let (c, g) = (run(Device::CPU)?, run(gpu)?);
    close(
        &g,
        &c,
        1e-4,
        1e-4,
        "rotations, coordinates, ArrayFire kinds",
    )
}

/// The CUDA resampler's diagonal form (zoom and shift of orders 0 and 1) gives exactly the CPU
/// twin's values: both compute the coordinates in `f64` and the weights and sums in the working
/// type in the same order (kernels build without fused multiply-adds), so every element type,
/// mode, order, grid mode and shape agrees bit for bit. Shapes: odd sizes, an axis of one
/// sample, factors below and above 1, lines longer than a block's columns and more rows than a
/// block's, a batch of images, a batch of lines and a zoomed volume.
fn cuda_diag_matches_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    let gpu = Device::cuda(0);
    let cases: [(&[usize], &[f64]); 8] = [
        (&[37, 53], &[2.0, 2.0]),
        (&[37, 53], &[0.45, 0.7]),
        (&[5, 1], &[2.0, 3.0]),
        (&[3, 1300], &[3.0, 0.9]),
        (&[3, 19, 23], &[1.5, 2.5]),
        (&[6, 7, 9], &[1.7, 0.8, 2.2]),
        (&[20, 13], &[1.6]),
        (&[2, 3, 5, 7], &[2.4, 1.3, 0.6]),
    ];
    let modes = [
        Boundary::Constant(7.5),
        Boundary::Reflect,
        Boundary::Nearest,
        Boundary::Mirror,
        Boundary::Wrap,
        Boundary::GridConstant(-3.25),
        Boundary::GridWrap,
    ];
    for (shape, zoom) in cases {
        let numel: usize = shape.iter().product();
        // Multiples of 0.5 in [0, 200]: exact in every float type.
        let x: Vec<f64> = (0..numel)
            .map(|_| (rng.f32_in(0.0, 400.0) as f64).round() / 2.0)
            .collect();
        let xf32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let xf16: Vec<f16> = x.iter().map(|&v| f16::from_f64(v)).collect();
        let xu8: Vec<u8> = x.iter().map(|&v| v as u8).collect();
        let xu16: Vec<u16> = x.iter().map(|&v| (v * 300.0) as u16).collect();
        let shift: Vec<f64> = (0..zoom.len()).map(|k| 0.3 - 1.7 * k as f64).collect();
        for mode in modes {
            for order in [0usize, 1] {
                for grid in [false, true] {
                    let z = ZoomOpts::new().order(order).mode(mode).grid_mode(grid);
                    let run = |d: Device| -> cuprite_array::Result<Vec<(&'static str, Vec<f64>)>> {
                        let i = InterpOpts::new().order(order).mode(mode);
                        let a64 = Array::<f64>::from_slice_on(d, &x, shape)?;
                        let a32 = Array::<f32>::from_slice_on(d, &xf32, shape)?;
                        let a16 = Array::<f16>::from_slice_on(d, &xf16, shape)?;
                        let a8 = Array::<u8>::from_slice_on(d, &xu8, shape)?;
                        let au16 = Array::<u16>::from_slice_on(d, &xu16, shape)?;
                        Ok(vec![
                            ("zoom f64", vals(&image::zoom_with(&a64, zoom, z)?)),
                            ("zoom f32", vals(&image::zoom_with(&a32, zoom, z)?)),
                            ("zoom f16", vals(&image::zoom_with(&a16, zoom, z)?)),
                            ("zoom u8", vals(&image::zoom_with(&a8, zoom, z)?)),
                            ("zoom u16", vals(&image::zoom_with(&au16, zoom, z)?)),
                            ("shift f64", vals(&image::shift_with(&a64, &shift, i)?)),
                            ("shift f32", vals(&image::shift_with(&a32, &shift, i)?)),
                        ])
                    };
                    let (c, g) = (run(Device::CPU)?, run(gpu)?);
                    for ((what, cv), (_, gv)) in c.iter().zip(&g) {
                        close(
                            gv,
                            cv,
                            0.0,
                            0.0,
                            &format!(
                                "{what} {shape:?} by {zoom:?} {mode:?} order {order} grid {grid}"
                            ),
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The resampler's and the prefilter's kernels compile with NVRTC (no GPU): the sources the
/// bodies would build on CUDA, recorded by the dry-run backend.
fn geometry_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        spline_identities(Device::CPU),
        spline_long_lines(Device::CPU),
        constant_images(Device::CPU),
        element_types(Device::CPU),
        af_resize(Device::CPU),
        af_transforms(Device::CPU),
        volume_by_formula(Device::CPU),
        integer_rounding(Device::CPU),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| {
            s.contains("cuprite_geo_sample")
                || s.contains("cuprite_geo_diag")
                || s.contains("cuprite_spline_filter")
                || s.contains("cuprite_spline_seg")
                || s.contains("cuprite_spline_fix")
        })
        .collect();
    for r in runs {
        r?;
    }
    for want in [
        "cuprite_geo_sample_f64_f64_r2_k0_o5_c",
        "cuprite_geo_sample_u8_u8_r1_k0_o1_c",
        "cuprite_geo_diag_f16_f16_r2_o1",
        "cuprite_geo_diag_u16_u16_r1_o1",
        "cuprite_geo_diag_f32_f32_r2_o0",
        "cuprite_geo_diag_f64_f64_r3_o1",
        "cuprite_geo_sample_f64_f64_r2_k4_o0",
        "cuprite_geo_sample_f64_f64_r2_k6_o0",
        "cuprite_geo_sample_f64_f64_r2_k1_o0_p",
        "cuprite_geo_sample_f32_u8_r1_k0_o3_c",
        "cuprite_spline_filter_f64_o5",
        "cuprite_spline_filter_f64_o3",
        "cuprite_spline_seg_f64_o3",
        "cuprite_spline_seg_f32_o2",
        "cuprite_spline_fix_f64_o3",
        "cuprite_geo_sample_f32_f32_r2_k0_o3_s",
        "cuprite_geo_sample_f32_f32_r2_k0_o5_s",
    ] {
        if !sources.iter().any(|s| s.contains(want)) {
            let names: Vec<&str> = sources
                .iter()
                .filter_map(|s| {
                    s.split("__global__ void __launch_bounds__(")
                        .nth(1)?
                        .split(' ')
                        .nth(1)?
                        .split('(')
                        .next()
                })
                .collect();
            return Err(format!("{want} was not recorded ({names:?})").into());
        }
    }
    // The typed template parameters render the header the `.cu` files read, value by value.
    for (entry, want) in [
        (
            "cuprite_geo_sample_f64_f64_r2_k0_o5_c(",
            [4, 4, 1, 2, 5, 0, 1, 0, 0, 1, 256, 8].map(|v: usize| v.to_string()),
        ),
        (
            "cuprite_geo_diag_f64_f64_r3_o1(",
            [4, 4, 1, 3, 1, 0, 0, 0, 0, 1, 128, 4].map(|v: usize| v.to_string()),
        ),
    ] {
        let src = sources
            .iter()
            .find(|s| s.contains(entry))
            .ok_or_else(|| format!("{entry} was not recorded"))?;
        let names = [
            "IN", "OUT", "WIDE", "RANK", "ORDER", "KIND", "COORDS", "PERSP", "SEP", "I32",
            "THREADS", "PER",
        ];
        let mut header: String = names
            .iter()
            .zip(&want)
            .map(|(k, v)| format!("#define GEO_{k} {v}\n"))
            .collect();
        if entry.starts_with("cuprite_geo_diag") {
            header += "#define GEO_ROWS 8\n";
        }
        assert!(
            src.contains(&header),
            "{entry}: header {header:?} not in the source"
        );
    }
    crate::codegen::compile_all(&sources)
}

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc(
            "codegen::geometry_kernels_compile",
            geometry_kernels_compile,
        ),
        Test::gpu("cuda::image_geometry::cuda_matches_cpu", cuda_matches_cpu),
        Test::gpu(
            "cuda::image_geometry::diag_matches_cpu",
            cuda_diag_matches_cpu,
        ),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::image_geometry::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::image_geometry::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
