//! FFTs of arrays (`ops::fft`): every transform against a naive f64 DFT on small sizes,
//! round trips on large ones (a power of two and a prime), every axis of 3-D and 4-D arrays
//! (the strided layouts of the CUDA backend), `n` padding and cropping, the three norms,
//! real-transform shapes, frequencies and shifts against NumPy's definitions, empty and
//! single-element arrays, and bad input. Bodies run on every backend present.

use cuprite_array::ops::AxesOpts;
use cuprite_array::ops::fft::{FftOpts, FftnOpts};
use cuprite_array::{Array, Device, Error, FftNorm, c32, c64, f16};
use cuprite_testkit::dft::{dft, dft_axis, irdft_last, rdft_last, rel_error, rel_error_real};
use cuprite_testkit::{Rng, Test, TestResult};

type Body = fn(Device) -> TestResult;

const NORMS: [FftNorm; 3] = [FftNorm::Backward, FftNorm::Ortho, FftNorm::Forward];

fn rand_c64(rng: &mut Rng, n: usize) -> Vec<c64> {
    let v = rng.vec_f32(2 * n, -1.0, 1.0);
    v.chunks(2)
        .map(|p| c64::new(p[0] as f64, p[1] as f64))
        .collect()
}

fn rand_f64(rng: &mut Rng, n: usize) -> Vec<f64> {
    rng.vec_f32(n, -1.0, 1.0)
        .iter()
        .map(|&v| v as f64)
        .collect()
}

fn to_c32(v: &[c64]) -> Vec<c32> {
    v.iter()
        .map(|c| c32::new(c.re as f32, c.im as f32))
        .collect()
}

fn from_c32(v: &[c32]) -> Vec<c64> {
    v.iter()
        .map(|c| c64::new(c.re as f64, c.im as f64))
        .collect()
}

fn scaled(v: &[c64], s: f64) -> Vec<c64> {
    v.iter().map(|c| c * s).collect()
}

/// `log2(n)` at least 1.
fn lg(n: usize) -> f64 {
    (n as f64).log2().max(1.0)
}

fn check(err: f64, bound: f64, what: &str) -> TestResult {
    if err.is_nan() || err > bound {
        return Err(format!("{what}: relative error {err:.3e} above {bound:.3e}").into());
    }
    Ok(())
}

/// The error an f32 transform of `n` points may have (relative, in the 2-norm).
fn bound32(n: usize) -> f64 {
    8.0 * f32::EPSILON as f64 * lg(n)
}

fn bound64(n: usize) -> f64 {
    8.0 * f64::EPSILON * lg(n)
}

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// The factor a norm applies to a transform of `n` points.
fn factor(norm: FftNorm, n: usize, inverse: bool) -> f64 {
    let n = n as f64;
    match (norm, inverse) {
        (FftNorm::Backward, false) | (FftNorm::Forward, true) => 1.0,
        (FftNorm::Ortho, _) => 1.0 / n.sqrt(),
        _ => 1.0 / n,
    }
}

fn small_sizes_c2c(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        for n in [1usize, 2, 7, 31, 64, 100] {
            let x = rand_c64(&mut rng, n);
            let want = dft(&x, &[n], false);
            let want_inv = scaled(&dft(&x, &[n], true), 1.0 / n as f64);
            // f64
            let a = Array::from_slice(&x, &[n])?;
            let got = a.fft_with(FftOpts::new().axis(0))?;
            assert_eq!(got.device(), d);
            assert_eq!(got.shape(), &[n]);
            check(rel_error(&got.to_vec()?, &want), bound64(n), "c64 fft")?;
            let got = a.ifft()?.to_vec()?;
            check(rel_error(&got, &want_inv), bound64(n), "c64 ifft")?;
            // f32
            let a = Array::from_slice(&to_c32(&x), &[n])?;
            let got = from_c32(&a.fft_with(FftOpts::new().axis(0))?.to_vec()?);
            check(rel_error(&got, &want), bound32(n), "c32 fft")?;
            let got = from_c32(&a.ifft_with(FftOpts::new().axis(0))?.to_vec()?);
            check(rel_error(&got, &want_inv), bound32(n), "c32 ifft")?;
            // A real input is promoted to complex.
            let xr: Vec<f64> = x.iter().map(|c| c.re).collect();
            let xrc: Vec<c64> = xr.iter().map(|&v| c64::new(v, 0.0)).collect();
            let got = Array::from_slice(&xr, &[n])?.fft_with(FftOpts::new().axis(0))?;
            check(
                rel_error(&got.to_vec()?, &dft(&xrc, &[n], false)),
                bound64(n),
                "f64 fft",
            )?;
        }
        Ok(())
    })
}

fn small_sizes_real(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        for n in [1usize, 2, 7, 31, 64, 100] {
            let x = rand_f64(&mut rng, n);
            let want = rdft_last(&x, &[n], 1);
            let a = Array::from_slice(&x, &[n])?;
            let spec = a.rfft_with(FftOpts::new().axis(0))?;
            assert_eq!(spec.shape(), &[n / 2 + 1]);
            let sv = spec.to_vec()?;
            check(rel_error(&sv, &want), bound64(n), "f64 rfft")?;
            // irfft of the exact half spectrum against the reference, and the round trip.
            let back = spec.irfft_with(FftOpts::new().n(n).axis(0))?;
            assert_eq!(back.shape(), &[n]);
            let want_back: Vec<f64> = irdft_last(&want, &[n], 1)
                .iter()
                .map(|v| v / n as f64)
                .collect();
            check(
                rel_error_real(&back.to_vec()?, &want_back),
                bound64(n),
                "f64 irfft",
            )?;
            check(
                rel_error_real(&back.to_vec()?, &x),
                bound64(n),
                "f64 rfft round trip",
            )?;
            // f32
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let a = Array::from_slice(&x32, &[n])?;
            let spec = a.rfft_with(FftOpts::new().axis(0))?;
            check(
                rel_error(&from_c32(&spec.to_vec()?), &want),
                bound32(n),
                "f32 rfft",
            )?;
            let back: Vec<f64> = spec
                .irfft_with(FftOpts::new().n(n).axis(0))?
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect();
            check(rel_error_real(&back, &x), bound32(n), "f32 rfft round trip")?;
        }
        Ok(())
    })
}

fn large_round_trips(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        for n in [1usize << 16, 1_000_003] {
            let x = to_c32(&rand_c64(&mut rng, n));
            let a = Array::from_slice(&x, &[n])?;
            let y = a.fft_with(FftOpts::new().axis(0))?;
            let back = from_c32(&y.ifft_with(FftOpts::new().axis(0))?.to_vec()?);
            // Bluestein's algorithm (the prime) costs about three transforms' error.
            check(
                rel_error(&back, &from_c32(&x)),
                3.0 * bound32(n),
                &format!("c32 round trip of {n}"),
            )?;
            // Parseval: sum |X|^2 = n sum |x|^2 (a check of the forward transform alone).
            let ex: f64 = x.iter().map(|c| c.norm_sqr() as f64).sum();
            let ey: f64 = y.to_vec()?.iter().map(|c| c.norm_sqr() as f64).sum();
            check(
                (ey / (n as f64 * ex) - 1.0).abs(),
                3.0 * bound32(n),
                &format!("Parseval of {n}"),
            )?;
            if d != Device::CPU {
                // The GPU against the CPU backend on the same data.
                let cpu = Array::from_slice_on(Device::CPU, &x, &[n])?
                    .fft_with(FftOpts::new().axis(0))?
                    .to_vec()?;
                check(
                    rel_error(&from_c32(&y.to_vec()?), &from_c32(&cpu)),
                    3.0 * bound32(n),
                    &format!("GPU against CPU, {n}"),
                )?;
            }
            // f64 real round trip.
            let xr = rand_f64(&mut rng, n);
            let back = Array::from_slice(&xr, &[n])?
                .rfft_with(FftOpts::new().axis(0).norm(FftNorm::Ortho))?
                .irfft_with(FftOpts::new().n(n).axis(0).norm(FftNorm::Ortho))?
                .to_vec()?;
            check(
                rel_error_real(&back, &xr),
                3.0 * bound64(n),
                &format!("f64 rfft round trip of {n}"),
            )?;
        }
        Ok(())
    })
}

/// The reference transform over `axes` (in any order) of `x` of `shape`.
fn dft_axes(x: &[c64], shape: &[usize], axes: &[usize], inverse: bool) -> Vec<c64> {
    let mut y = x.to_vec();
    for &a in axes {
        y = dft_axis(&y, shape, a, inverse);
    }
    y
}

/// `x` of `shape` cut to the first `keep` points along `axis`.
fn crop(x: &[c64], shape: &[usize], axis: usize, keep: usize) -> Vec<c64> {
    let outer: usize = shape[..axis].iter().product();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * keep * inner);
    for o in 0..outer {
        for i in 0..keep {
            for j in 0..inner {
                out.push(if i < n {
                    x[(o * n + i) * inner + j]
                } else {
                    c64::new(0.0, 0.0)
                });
            }
        }
    }
    out
}

/// Shapes whose axes take every layout: trailing, strided with a small outer count (batched
/// over the inner signals), strided with a large one (looped over them). A test each (under
/// the sanitizers every new cuFFT kernel is instrumented: one shape is a process's work).
const EVERY_AXIS_SHAPES: [&[usize]; 4] = [&[3, 4, 5], &[50, 7, 3], &[2, 3, 40], &[4, 3, 5, 6]];

fn every_axis(d: Device, shape: &[usize]) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        {
            let shape = shape.to_vec();
            let total: usize = shape.iter().product();
            let nd = shape.len();
            let x = rand_c64(&mut rng, total);
            let a = Array::from_slice(&x, &shape)?;
            let a32 = Array::from_slice(&to_c32(&x), &shape)?;
            for axis in 0..nd {
                let want = dft_axis(&x, &shape, axis, false);
                let got = a.fft_with(FftOpts::new().axis(axis as isize))?;
                assert_eq!(got.shape(), &shape[..]);
                let what = format!("fft of {shape:?} along {axis}");
                check(rel_error(&got.to_vec()?, &want), bound64(total), &what)?;
                let got = from_c32(&a32.fft_with(FftOpts::new().axis(axis as isize))?.to_vec()?);
                check(
                    rel_error(&got, &want),
                    bound32(total),
                    &format!("c32 {what}"),
                )?;
                // rfft along the axis: the full transform of the real part, cropped.
                let xr: Vec<f64> = x.iter().map(|c| c.re).collect();
                let xrc: Vec<c64> = xr.iter().map(|&v| c64::new(v, 0.0)).collect();
                let h = shape[axis] / 2 + 1;
                let want = crop(&dft_axis(&xrc, &shape, axis, false), &shape, axis, h);
                let spec = Array::from_slice(&xr, &shape)?
                    .rfft_with(FftOpts::new().axis(axis as isize))?;
                let mut hs = shape.clone();
                hs[axis] = h;
                assert_eq!(spec.shape(), &hs[..]);
                check(
                    rel_error(&spec.to_vec()?, &want),
                    bound64(total),
                    &format!("r{what}"),
                )?;
                let back = spec.irfft_with(FftOpts::new().n(shape[axis]).axis(axis as isize))?;
                assert_eq!(back.shape(), &shape[..]);
                check(
                    rel_error_real(&back.to_vec()?, &xr),
                    bound64(total),
                    &format!("irfft round trip of {shape:?} along {axis}"),
                )?;
            }
            // All axes at once, forward and inverse.
            let all: Vec<usize> = (0..nd).collect();
            let want = dft_axes(&x, &shape, &all, false);
            let got = a.fftn()?.to_vec()?;
            check(
                rel_error(&got, &want),
                bound64(total),
                &format!("fftn {shape:?}"),
            )?;
            let got = from_c32(&a32.fftn()?.to_vec()?);
            check(
                rel_error(&got, &want),
                bound32(total),
                &format!("c32 fftn {shape:?}"),
            )?;
            let want = scaled(&dft_axes(&x, &shape, &all, true), 1.0 / total as f64);
            let got = a.ifftn()?.to_vec()?;
            check(
                rel_error(&got, &want),
                bound64(total),
                &format!("ifftn {shape:?}"),
            )?;
            // The last two (fft2's default), and the first and last (not consecutive).
            let want = dft_axes(&x, &shape, &[nd - 2, nd - 1], false);
            let got = a.fft2()?.to_vec()?;
            check(
                rel_error(&got, &want),
                bound64(total),
                &format!("fft2 {shape:?}"),
            )?;
            let want = dft_axes(&x, &shape, &[0, nd - 1], false);
            let got = a.fftn_with(FftnOpts::new().axes(&[0, -1]))?.to_vec()?;
            check(
                rel_error(&got, &want),
                bound64(total),
                &format!("fftn 0,-1 {shape:?}"),
            )?;
            // The first two (a strided rank-2 plan).
            let want = dft_axes(&x, &shape, &[0, 1], false);
            let got = a.fftn_with(FftnOpts::new().axes(&[1, 0]))?.to_vec()?;
            check(
                rel_error(&got, &want),
                bound64(total),
                &format!("fftn 1,0 {shape:?}"),
            )?;
            // rfftn over all (real axis last) and with the real axis first.
            let xr: Vec<f64> = x.iter().map(|c| c.re).collect();
            let xrc: Vec<c64> = xr.iter().map(|&v| c64::new(v, 0.0)).collect();
            let ar = Array::from_slice(&xr, &shape)?;
            for (axes, real) in [(vec![], nd - 1), (vec![nd - 1, 0], 0)] {
                let t: Vec<usize> = if axes.is_empty() {
                    all.clone()
                } else {
                    axes.clone()
                };
                let h = shape[real] / 2 + 1;
                let want = crop(&dft_axes(&xrc, &shape, &t, false), &shape, real, h);
                let ax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
                let o = if axes.is_empty() {
                    FftnOpts::new()
                } else {
                    FftnOpts::new().axes(&ax)
                };
                let spec = ar.rfftn_with(o.clone())?;
                let what = format!("rfftn {shape:?} axes {t:?}");
                check(rel_error(&spec.to_vec()?, &want), bound64(total), &what)?;
                let s: Vec<usize> = t.iter().map(|&a| shape[a]).collect();
                let back = spec.irfftn_with(o.clone().s(&s))?;
                assert_eq!(back.shape(), &shape[..]);
                check(
                    rel_error_real(&back.to_vec()?, &xr),
                    bound64(total),
                    &format!("i{what} round trip"),
                )?;
                let back32: Vec<f64> =
                    Array::from_slice(&xr.iter().map(|&v| v as f32).collect::<Vec<_>>(), &shape)?
                        .rfftn_with(o.clone().norm(FftNorm::Ortho))?
                        .irfftn_with(o.clone().s(&s).norm(FftNorm::Ortho))?
                        .to_vec()?
                        .iter()
                        .map(|&v| v as f64)
                        .collect();
                check(
                    rel_error_real(&back32, &xr),
                    bound32(total),
                    &format!("f32 i{what} round trip"),
                )?;
            }
        }
        Ok(())
    })
}

fn pad_and_crop(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let shape = [6usize, 9];
        let x = rand_c64(&mut rng, 54);
        let a = Array::from_slice(&x, &shape)?;
        for axis in 0..2 {
            for n in [1usize, 4, shape[axis], 13, 16] {
                let mut s2 = shape.to_vec();
                s2[axis] = n;
                let xin = crop(&x, &shape, axis, n);
                let want = dft_axis(&xin, &s2, axis, false);
                let got = a.fft_with(FftOpts::new().n(n).axis(axis as isize))?;
                assert_eq!(got.shape(), &s2[..]);
                check(
                    rel_error(&got.to_vec()?, &want),
                    bound64(54),
                    &format!("fft n = {n} along {axis}"),
                )?;
                let want = scaled(&dft_axis(&xin, &s2, axis, true), 1.0 / n as f64);
                let got = a
                    .ifft_with(FftOpts::new().n(n).axis(axis as isize))?
                    .to_vec()?;
                check(
                    rel_error(&got, &want),
                    bound64(54),
                    &format!("ifft n = {n}"),
                )?;
                // rfft of the real part with n.
                let xr: Vec<f64> = x.iter().map(|c| c.re).collect();
                let xrin: Vec<c64> = crop(
                    &xr.iter().map(|&v| c64::new(v, 0.0)).collect::<Vec<_>>(),
                    &shape,
                    axis,
                    n,
                );
                let want = crop(&dft_axis(&xrin, &s2, axis, false), &s2, axis, n / 2 + 1);
                let got = Array::from_slice(&xr, &shape)?
                    .rfft_with(FftOpts::new().n(n).axis(axis as isize))?;
                check(
                    rel_error(&got.to_vec()?, &want),
                    bound64(54),
                    &format!("rfft n = {n}"),
                )?;
            }
        }
        // fftn with s: crop one axis, pad the other.
        let want = dft_axes(
            &crop(&crop(&x, &shape, 0, 4), &[4, 9], 1, 12),
            &[4, 12],
            &[0, 1],
            false,
        );
        let got = a.fftn_with(FftnOpts::new().s(&[4, 12]))?;
        assert_eq!(got.shape(), &[4, 12]);
        check(
            rel_error(&got.to_vec()?, &want),
            bound64(54),
            "fftn s = [4, 12]",
        )?;
        // irfft with n: the spectrum is cropped or padded to n/2 + 1 first.
        let spec: Vec<c64> = rand_c64(&mut rng, 6);
        let sa = Array::from_slice(&spec, &[6])?;
        for n in [3usize, 4, 10, 11, 16, 17] {
            let h = n / 2 + 1;
            let mut sp = crop(&spec, &[6], 0, h);
            // The parts the real transform ignores.
            sp[0].im = 0.0;
            if n % 2 == 0 {
                sp[h - 1].im = 0.0;
            }
            let want: Vec<f64> = irdft_last(&sp, &[n], 1)
                .iter()
                .map(|v| v / n as f64)
                .collect();
            let got = sa.irfft_with(FftOpts::new().n(n).axis(0))?;
            assert_eq!(got.shape(), &[n]);
            check(
                rel_error_real(&got.to_vec()?, &want),
                bound64(n),
                &format!("irfft n = {n}"),
            )?;
        }
        Ok(())
    })
}

fn norms(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let n = 24;
        let x = rand_c64(&mut rng, n);
        let a = Array::from_slice(&x, &[n])?;
        let xr: Vec<f64> = x.iter().map(|c| c.re).collect();
        let ar = Array::from_slice(&xr, &[n])?;
        for norm in NORMS {
            let want = scaled(&dft(&x, &[n], false), factor(norm, n, false));
            let y = a.fft_with(FftOpts::new().axis(0).norm(norm))?;
            check(
                rel_error(&y.to_vec()?, &want),
                bound64(n),
                &format!("fft {norm:?}"),
            )?;
            let want = scaled(&dft(&x, &[n], true), factor(norm, n, true));
            let got = a.ifft_with(FftOpts::new().axis(0).norm(norm))?.to_vec()?;
            check(
                rel_error(&got, &want),
                bound64(n),
                &format!("ifft {norm:?}"),
            )?;
            // Round trips are the identity under each norm.
            let back = y.ifft_with(FftOpts::new().axis(0).norm(norm))?.to_vec()?;
            check(
                rel_error(&back, &x),
                bound64(n),
                &format!("round trip {norm:?}"),
            )?;
            let want = scaled(&rdft_last(&xr, &[n], 1), factor(norm, n, false));
            let spec = ar.rfft_with(FftOpts::new().axis(0).norm(norm))?;
            check(
                rel_error(&spec.to_vec()?, &want),
                bound64(n),
                &format!("rfft {norm:?}"),
            )?;
            let back = spec
                .irfft_with(FftOpts::new().axis(0).norm(norm))?
                .to_vec()?;
            check(
                rel_error_real(&back, &xr),
                bound64(n),
                &format!("irfft {norm:?}"),
            )?;
            // fft2 scales by the product of the lengths.
            let want = scaled(&dft(&x, &[4, 6], false), factor(norm, n, false));
            let got = a
                .reshape(&[4, 6])?
                .fft2_with(FftnOpts::new().norm(norm))?
                .to_vec()?;
            check(
                rel_error(&got, &want),
                bound64(n),
                &format!("fft2 {norm:?}"),
            )?;
            // The norm is a lazy element-wise multiply: work on the spectrum fuses onto it.
            let re = (y.real() * 2.0).to_vec()?;
            let want: Vec<f64> = y.to_vec()?.iter().map(|c| 2.0 * c.re).collect();
            check(
                rel_error_real(&re, &want),
                bound64(n),
                "2 re of a scaled spectrum",
            )?;
        }
        Ok(())
    })
}

fn shapes(d: Device) -> TestResult {
    on(d, || {
        for (n, h) in [(1usize, 1usize), (2, 2), (7, 4), (8, 5), (9, 5)] {
            let a = Array::<f32>::ones(&[3, n]);
            assert_eq!(a.rfft()?.shape(), &[3, h]);
            assert_eq!(a.rfft_with(FftOpts::new().axis(0))?.shape(), &[2, n]);
        }
        // irfft's default length: 2 (m - 1).
        for (m, n) in [(2usize, 2usize), (4, 6), (5, 8)] {
            let s = Array::<c32>::ones(&[m, 3]);
            assert_eq!(s.irfft_with(FftOpts::new().axis(0))?.shape(), &[n, 3]);
            assert_eq!(s.irfft_with(FftOpts::new().n(7).axis(0))?.shape(), &[7, 3]);
        }
        let a = Array::<f64>::ones(&[2, 3, 4]);
        assert_eq!(a.rfft2()?.shape(), &[2, 3, 3]);
        assert_eq!(a.rfftn()?.shape(), &[2, 3, 3]);
        assert_eq!(a.rfftn_with(FftnOpts::new().s(&[5]))?.shape(), &[2, 3, 3]);
        assert_eq!(
            a.rfftn_with(FftnOpts::new().s(&[6, 5]))?.shape(),
            &[2, 6, 3]
        );
        assert_eq!(a.fft2_with(FftnOpts::new().s(&[5, 2]))?.shape(), &[2, 5, 2]);
        let s = Array::<c64>::ones(&[2, 3, 4]);
        assert_eq!(s.irfftn()?.shape(), &[2, 3, 6]);
        assert_eq!(
            s.irfft2_with(FftnOpts::new().s(&[3, 5]))?.shape(),
            &[2, 3, 5]
        );
        // A constant's transform: all of its energy at zero frequency.
        let v = a.rfftn()?.to_vec()?;
        assert!((v[0].re - 24.0).abs() < 1e-12 && v[0].im.abs() < 1e-12);
        assert!(v[1..].iter().all(|c| c.norm() < 1e-12), "{v:?}");
        // Integers are promoted to f64, f16 to f32.
        let xi = Array::<i32>::from_slice(&[1, 2, 3, 4, 5], &[5])?;
        let got = xi.fft_with(FftOpts::new().axis(0))?.to_vec()?;
        let want = Array::<f64>::from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5])?
            .fft_with(FftOpts::new().axis(0))?
            .to_vec()?;
        check(rel_error(&got, &want), bound64(5), "i32 fft")?;
        let xh = Array::<f16>::from_slice(&[f16::from_f32(1.0); 4], &[4])?;
        let got = xh.rfft_with(FftOpts::new().axis(0))?.to_vec()?;
        assert_eq!(got.len(), 3);
        assert!((got[0].re - 4.0).abs() < 1e-6 && got[1].norm() < 1e-6);
        Ok(())
    })
}

fn irfft_leaves_input(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // cuFFT may overwrite a complex-to-real input: the spectrum must stay as it was.
        for shape in [vec![1000usize], vec![16, 33], vec![5, 6, 7]] {
            let total: usize = shape.iter().product();
            let x = rand_f64(&mut rng, total);
            let spec = Array::from_slice(&x, &shape)?.rfftn()?;
            spec.eval()?;
            let before = spec.to_vec()?;
            let back = spec.irfftn_with(FftnOpts::new().s(&shape))?;
            check(
                rel_error_real(&back.to_vec()?, &x),
                bound64(total),
                "round trip",
            )?;
            let one = spec.irfft_with(FftOpts::new().n(*shape.last().unwrap_or(&1)))?;
            one.eval()?;
            assert_eq!(
                spec.to_vec()?,
                before,
                "irfft changed its input, shape {shape:?}"
            );
        }
        Ok(())
    })
}

fn freqs_and_shifts(d: Device) -> TestResult {
    on(d, || {
        for n in 1..=10usize {
            for dd in [1.0f64, 0.1, 2.5] {
                let got = Array::<f64>::fftfreq(n, dd)?.to_vec()?;
                // NumPy: [0, 1, ..., (n-1)//2, -(n//2), ..., -1] * (1 / (n d)).
                let val = 1.0 / (n as f64 * dd);
                let mut want: Vec<f64> =
                    (0..=((n - 1) / 2) as i64).map(|k| k as f64 * val).collect();
                want.extend((-((n / 2) as i64)..0).map(|k| k as f64 * val));
                assert_eq!(got, want, "fftfreq({n}, {dd})");
                let got = Array::<f64>::rfftfreq(n, dd)?.to_vec()?;
                let want: Vec<f64> = (0..=n / 2).map(|k| k as f64 * val).collect();
                assert_eq!(got, want, "rfftfreq({n}, {dd})");
            }
            let f32s = Array::<f32>::fftfreq(n, 1.0)?.to_vec()?;
            assert_eq!(f32s.len(), n);
            // fftshift: a roll by n // 2; ifftshift: by -(n // 2).
            let x: Vec<i64> = (0..n as i64).collect();
            let a = Array::from_slice(&x, &[n])?;
            let want: Vec<i64> = (0..n).map(|i| x[(i + n - n / 2) % n]).collect();
            assert_eq!(a.fftshift()?.to_vec()?, want, "fftshift {n}");
            let want: Vec<i64> = (0..n).map(|i| x[(i + n / 2) % n]).collect();
            assert_eq!(a.ifftshift()?.to_vec()?, want, "ifftshift {n}");
            assert_eq!(a.fftshift()?.ifftshift()?.to_vec()?, x);
        }
        // The shifted frequencies are sorted.
        let f = Array::<f64>::fftfreq(9, 1.0)?.fftshift()?.to_vec()?;
        assert!(f.windows(2).all(|w| w[0] < w[1]), "{f:?}");
        // 2-D, all axes and one axis.
        let x: Vec<i32> = (0..12).collect();
        let a = Array::from_slice(&x, &[3, 4])?;
        assert_eq!(
            a.fftshift()?.to_vec()?,
            [10, 11, 8, 9, 2, 3, 0, 1, 6, 7, 4, 5]
        );
        assert_eq!(
            a.fftshift_with(AxesOpts::new().axes(&[0]))?.to_vec()?,
            [8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7]
        );
        assert_eq!(
            a.ifftshift_with(AxesOpts::new().axes(&[-1]))?.to_vec()?,
            [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9]
        );
        Ok(())
    })
}

fn empty_and_single(d: Device) -> TestResult {
    on(d, || {
        // One point: the transform is the identity (under every norm for n = 1).
        let x = [c64::new(1.5, -2.0)];
        let a = Array::from_slice(&x, &[1])?;
        for norm in NORMS {
            assert_eq!(a.fft_with(FftOpts::new().axis(0).norm(norm))?.to_vec()?, x);
            assert_eq!(a.ifft_with(FftOpts::new().axis(0).norm(norm))?.to_vec()?, x);
        }
        let r = Array::<f32>::from_slice(&[3.0], &[1])?;
        assert_eq!(
            r.rfft_with(FftOpts::new().axis(0))?.to_vec()?,
            [c32::new(3.0, 0.0)]
        );
        assert_eq!(
            Array::<c32>::from_slice(&[c32::new(3.0, 1.0)], &[1])?
                .irfft_with(FftOpts::new().n(1).axis(0))?
                .to_vec()?,
            [3.0]
        );
        // Empty along a batch axis: an empty result.
        let e = Array::<f32>::zeros(&[0, 8]);
        let y = e.fft_with(FftOpts::new().axis(1).norm(FftNorm::Ortho))?;
        assert_eq!(y.shape(), &[0, 8]);
        assert!(y.to_vec()?.is_empty());
        assert_eq!(e.rfft_with(FftOpts::new().axis(1))?.shape(), &[0, 5]);
        // An empty transformed axis with n: zero padding (NumPy), so zeros.
        let z = Array::<f64>::zeros(&[0]).fft_with(FftOpts::new().n(4).axis(0))?;
        assert_eq!(z.to_vec()?, [c64::new(0.0, 0.0); 4]);
        // Without n it is an error.
        crate::common::assert_err(
            Array::<f64>::zeros(&[0]).fft_with(FftOpts::new().axis(0)),
            "InvalidArgument",
            "0 points along axis 0 (of length 0 in shape [0])",
        );
        Ok(())
    })
}

fn expect_err<T: std::fmt::Debug>(r: Result<T, Error>, needle: &str, what: &str) -> TestResult {
    match r {
        Ok(v) => Err(format!("{what}: expected an error, got {v:?}").into()),
        Err(e) => {
            let msg = e.to_string();
            if msg.contains(needle) {
                Ok(())
            } else {
                Err(format!("{what}: error {msg:?} does not mention {needle:?}").into())
            }
        }
    }
}

fn bad_input(d: Device) -> TestResult {
    on(d, || {
        let a = Array::<c32>::ones(&[4, 6]);
        let r = Array::<f32>::ones(&[4, 6]);
        let b = FftNorm::Backward;
        expect_err(
            a.fft_with(FftOpts::new().axis(2).norm(b)),
            "axis 2 is out of range",
            "fft axis 2",
        )?;
        expect_err(
            a.fft_with(FftOpts::new().axis(-3).norm(b)),
            "axis -3",
            "fft axis -3",
        )?;
        expect_err(
            a.fft_with(FftOpts::new().n(0).axis(0).norm(b)),
            "n = 0",
            "fft n = 0",
        )?;
        expect_err(
            a.ifft_with(FftOpts::new().n(0).axis(1).norm(b)),
            "n = 0",
            "ifft n = 0",
        )?;
        // A real spectrum is taken as complex (NumPy): no Err.
        assert_eq!(
            r.irfft_with(FftOpts::new().axis(1).norm(b))?.shape(),
            &[4, 10]
        );
        expect_err(
            a.rfft_with(FftOpts::new().axis(1).norm(b)),
            "not c32",
            "rfft of a complex array",
        )?;
        expect_err(
            a.fftn_with(FftnOpts::new().axes(&[1, -1]).norm(b)),
            "given twice",
            "repeated axis",
        )?;
        expect_err(
            a.fftn_with(FftnOpts::new().s(&[4]).axes(&[0, 1]).norm(b)),
            "2 axes",
            "s and axes lengths",
        )?;
        expect_err(
            a.fftn_with(FftnOpts::new().s(&[1, 2, 3]).norm(b)),
            "3 lengths",
            "s too long",
        )?;
        expect_err(
            a.fft2_with(FftnOpts::new().s(&[4, 0]).norm(b)),
            "n = 0",
            "s with 0",
        )?;
        expect_err(
            Array::<c32>::ones(&[1]).irfft_with(FftOpts::new().axis(0).norm(b)),
            "2 (m - 1)",
            "irfft of one point without n",
        )?;
        expect_err(
            Array::<f32>::scalar(1.0).fft_with(FftOpts::new().axis(0).norm(b)),
            "0 dimension",
            "0-d fft",
        )?;
        expect_err(
            Array::<f32>::ones(&[3]).fft2_with(FftnOpts::new().norm(b)),
            "out of range",
            "1-d fft2",
        )?;
        expect_err(
            r.rfftn_with(FftnOpts::new().axes(&[]).norm(b)),
            "at least one axis",
            "rfftn no axes",
        )?;
        expect_err(Array::<f64>::fftfreq(0, 1.0), "n = 0", "fftfreq n = 0")?;
        expect_err(Array::<f64>::rfftfreq(4, 0.0), "d = 0", "rfftfreq d = 0")?;
        expect_err(
            a.fftshift_with(AxesOpts::new().axes(&[2])),
            "out of range",
            "fftshift axis",
        )?;
        // No axes: the input as complex, unchanged.
        let got = r.fftn_with(FftnOpts::new().axes(&[]).norm(b))?.to_vec()?;
        assert!(got.iter().all(|c| *c == c32::new(1.0, 0.0)));
        Ok(())
    })
}

fn plan_cache(d: Device) -> TestResult {
    on(d, || {
        let x = Array::<c32>::ones(&[3, 96]);
        if d == Device::CPU {
            // The CPU backend makes no cuFFT plans.
            let y = x.fft()?.to_vec()?;
            assert!((y[0].re - 96.0).abs() < 1e-4);
            return Ok(());
        }
        // Other tests use the device's cache at the same time: every count only grows.
        let ordinal = 0;
        x.fft()?.eval()?;
        let s0 = cuprite_array::ops::fft::plan_cache_stats(ordinal);
        x.fft_with(FftOpts::new().norm(FftNorm::Ortho))?.eval()?;
        let s1 = cuprite_array::ops::fft::plan_cache_stats(ordinal);
        assert!(s1.hits > s0.hits, "the same plan again: {s0:?} then {s1:?}");
        // device_gc empties the cache (freeing the work areas): the plan is made again.
        cuprite_array::device_gc(d)?;
        x.fft()?.eval()?;
        let s2 = cuprite_array::ops::fft::plan_cache_stats(ordinal);
        assert!(
            s2.misses > s1.misses,
            "no new plan after device_gc: {s1:?} then {s2:?}"
        );
        let y = x.fft()?.to_vec()?;
        assert!((y[0].re - 96.0).abs() < 1e-4 && y[1].norm() < 1e-4);
        Ok(())
    })
}

const BODIES: &[(&str, Body)] = &[
    ("plan_cache", plan_cache),
    ("small_sizes_c2c", small_sizes_c2c),
    ("small_sizes_real", small_sizes_real),
    ("large_round_trips", large_round_trips),
    ("pad_and_crop", pad_and_crop),
    ("norms", norms),
    ("shapes", shapes),
    ("irfft_leaves_input", irfft_leaves_input),
    ("freqs_and_shifts", freqs_and_shifts),
    ("empty_and_single", empty_and_single),
    ("bad_input", bad_input),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::fft::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::fft::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    for (i, &shape) in EVERY_AXIS_SHAPES.iter().enumerate() {
        v.push(Test::cpu(format!("cpu::fft::every_axis_{i}"), move || {
            every_axis(Device::CPU, shape)
        }));
        v.push(Test::gpu(format!("cuda::fft::every_axis_{i}"), move || {
            every_axis(Device::cuda(0), shape)
        }));
    }
    v
}
