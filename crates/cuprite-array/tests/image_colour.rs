//! Colour conversions (`image::rgb2gray` ... `color_space`) against f64 references computed
//! here pixel by pixel from the formulas (ArrayFire's weights and the BT.601/709/2020 luma
//! weights), on random images with the primaries, grays and black mixed in. Bodies run on
//! every backend.

use crate::common::{Body, assert_err, close};
use cuprite_array::image::{
    ColorSpace, GrayOpts, YccOpts, YccStd, color_space, color_space_with, gray2rgb, gray2rgb_with,
    hsv2rgb, rgb2gray, rgb2gray_with, rgb2hsv, rgb2ycbcr, rgb2ycbcr_with, ycbcr2rgb_with,
};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// A `[h, w, 3]` image in `[0, 1]` whose first pixels are the corner cases (black, white, a
/// gray, the primaries and secondaries, ties between two largest channels).
fn pixels(r: &mut Rng, h: usize, w: usize) -> Vec<f64> {
    let special: [[f64; 3]; 11] = [
        [0.0, 0.0, 0.0],
        [1.0, 1.0, 1.0],
        [0.4, 0.4, 0.4],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 1.0],
        [1.0, 0.0, 1.0],
        [0.8, 0.8, 0.2],
        [0.3, 0.9, 0.9],
    ];
    let mut v = r
        .vec_f32(h * w * 3, 0.0, 1.0)
        .iter()
        .map(|&x| x as f64)
        .collect::<Vec<_>>();
    for (i, p) in special.iter().enumerate().take(h * w) {
        v[3 * i..3 * i + 3].copy_from_slice(p);
    }
    v
}

/// HSV of one pixel, by the textbook case analysis (hue in degrees, then a fraction of a turn).
fn hsv_ref(p: &[f64]) -> [f64; 3] {
    let (r, g, b) = (p[0], p[1], p[2]);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let d = max - min;
    let s = if max > 0.0 { d / max } else { 0.0 };
    let deg = if d == 0.0 {
        0.0
    } else if max == r {
        let x = 60.0 * (g - b) / d;
        if x < 0.0 { x + 360.0 } else { x }
    } else if max == g {
        60.0 * (b - r) / d + 120.0
    } else {
        60.0 * (r - g) / d + 240.0
    };
    [deg / 360.0, s, max]
}

/// RGB of one HSV pixel, by the sextant and the p, q, t values.
fn rgb_ref(p: &[f64]) -> [f64; 3] {
    let (h, s, v) = (p[0], p[1], p[2]);
    let h6 = (h - h.floor()) * 6.0;
    let i = h6.floor();
    let f = h6 - i;
    let (pp, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    match i as i32 {
        0 => [v, t, pp],
        1 => [q, v, pp],
        2 => [pp, v, t],
        3 => [pp, q, v],
        4 => [t, pp, v],
        _ => [v, pp, q],
    }
}

fn ycc_ref(p: &[f64], kr: f64, kb: f64) -> [f64; 3] {
    let y = kr * p[0] + (1.0 - kr - kb) * p[1] + kb * p[2];
    let pb = 0.5 * (p[2] - y) / (1.0 - kb);
    let pr = 0.5 * (p[0] - y) / (1.0 - kr);
    [16.0 + 219.0 * y, 128.0 + 224.0 * pb, 128.0 + 224.0 * pr]
}

fn gray_weights(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (h, w) = (5, 7);
        let v = pixels(&mut r, h, w);
        let img = Array::from_vec(v.clone(), &[h, w, 3])?;
        let g = rgb2gray(&img)?;
        assert_eq!(g.shape(), &[h, w]);
        let want: Vec<f64> = v
            .chunks(3)
            .map(|p| 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2])
            .collect();
        close(&g.to_vec()?, &want, 1e-13, 1e-14, "rgb2gray f64")?;
        let g32 = rgb2gray_with(&img.cast::<f32>(), GrayOpts::bt601())?.to_vec()?;
        let want: Vec<f64> = v
            .chunks(3)
            .map(|p| 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2])
            .collect();
        let g32: Vec<f64> = g32.iter().map(|&x| x as f64).collect();
        close(&g32, &want, 1e-6, 1e-6, "rgb2gray f32 bt601")?;

        let gray: Vec<f64> = (0..h * w).map(|i| i as f64 / 40.0).collect();
        let ga = Array::from_vec(gray.clone(), &[h, w])?;
        let rgb = gray2rgb(&ga)?;
        assert_eq!(rgb.shape(), &[h, w, 3]);
        let want: Vec<f64> = gray.iter().flat_map(|&x| [x, x, x]).collect();
        close(&rgb.to_vec()?, &want, 0.0, 0.0, "gray2rgb")?;
        let rgb = gray2rgb_with(&ga, GrayOpts::new().r(0.5).g(2.0).b(-1.0))?;
        let want: Vec<f64> = gray.iter().flat_map(|&x| [0.5 * x, 2.0 * x, -x]).collect();
        close(&rgb.to_vec()?, &want, 1e-15, 0.0, "gray2rgb factors")?;
        Ok(())
    })
}

fn hsv_both_ways(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (n, h, w) = (2, 4, 6);
        let v = pixels(&mut r, n * h, w);
        let img = Array::from_vec(v.clone(), &[n, h, w, 3])?;
        let hsv = rgb2hsv(&img)?;
        assert_eq!(hsv.shape(), &[n, h, w, 3]);
        let want: Vec<f64> = v.chunks(3).flat_map(hsv_ref).collect();
        close(&hsv.to_vec()?, &want, 1e-12, 1e-12, "rgb2hsv")?;
        let back = hsv2rgb(&hsv)?.to_vec()?;
        close(&back, &v, 1e-12, 1e-12, "hsv2rgb(rgb2hsv)")?;
        // Random HSV values (hue up to 2 turns) against the sextant formula.
        let hv: Vec<f64> = (0..h * w)
            .flat_map(|_| {
                let t = r.vec_f32(3, 0.0, 1.0);
                [2.0 * t[0] as f64, t[1] as f64, t[2] as f64]
            })
            .collect();
        let got = hsv2rgb(&Array::from_vec(hv.clone(), &[h * w, 3])?)?.to_vec()?;
        let want: Vec<f64> = hv.chunks(3).flat_map(rgb_ref).collect();
        close(&got, &want, 1e-12, 1e-12, "hsv2rgb")?;
        // f32 within f32 rounding.
        let got32 = rgb2hsv(&img.cast::<f32>())?.to_vec()?;
        let want: Vec<f64> = v.chunks(3).flat_map(hsv_ref).collect();
        let got32: Vec<f64> = got32.iter().map(|&x| x as f64).collect();
        close(&got32, &want, 1e-5, 1e-5, "rgb2hsv f32")?;
        Ok(())
    })
}

fn ycbcr_standards(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (h, w) = (3, 9);
        let v = pixels(&mut r, h, w);
        let img = Array::from_vec(v.clone(), &[h, w, 3])?;
        for (std, kr, kb) in [
            (YccStd::Bt601, 0.299, 0.114),
            (YccStd::Bt709, 0.2126, 0.0722),
            (YccStd::Bt2020, 0.2627, 0.0593),
        ] {
            let o = YccOpts::new().standard(std);
            let ycc = rgb2ycbcr_with(&img, o)?;
            let want: Vec<f64> = v.chunks(3).flat_map(|p| ycc_ref(p, kr, kb)).collect();
            close(
                &ycc.to_vec()?,
                &want,
                1e-12,
                1e-11,
                &format!("rgb2ycbcr {std:?}"),
            )?;
            let back = ycbcr2rgb_with(&ycc, o)?.to_vec()?;
            close(&back, &v, 1e-11, 1e-12, &format!("ycbcr2rgb {std:?}"))?;
        }
        // The default is BT.601.
        let want: Vec<f64> = v.chunks(3).flat_map(|p| ycc_ref(p, 0.299, 0.114)).collect();
        close(
            &rgb2ycbcr(&img)?.to_vec()?,
            &want,
            1e-12,
            1e-11,
            "rgb2ycbcr default",
        )?;
        Ok(())
    })
}

fn color_space_routes(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (h, w) = (4, 5);
        let v = pixels(&mut r, h, w);
        let img = Array::from_vec(v.clone(), &[h, w, 3])?;
        let hsv = color_space(&img, ColorSpace::Hsv, ColorSpace::Rgb)?;
        let want: Vec<f64> = v.chunks(3).flat_map(hsv_ref).collect();
        close(&hsv.to_vec()?, &want, 1e-12, 1e-12, "color_space rgb->hsv")?;
        // HSV to Y'CbCr goes through RGB.
        let ycc = color_space_with(
            &hsv,
            ColorSpace::YCbCr,
            ColorSpace::Hsv,
            YccOpts::new().standard(YccStd::Bt709),
        )?;
        let want: Vec<f64> = v
            .chunks(3)
            .flat_map(|p| ycc_ref(p, 0.2126, 0.0722))
            .collect();
        close(
            &ycc.to_vec()?,
            &want,
            1e-11,
            1e-10,
            "color_space hsv->ycbcr",
        )?;
        let gray = color_space(&ycc, ColorSpace::Gray, ColorSpace::YCbCr)?;
        assert_eq!(gray.shape(), &[h, w]);
        // Y'CbCr decoded by BT.601 (the default) from a BT.709 encoding: compare with the
        // composition computed here.
        let gw: Vec<f64> = want
            .chunks(3)
            .map(|p| {
                let (kr, kb) = (0.299, 0.114);
                let l = (p[0] - 16.0) / 219.0;
                let rr = l + 2.0 * (1.0 - kr) * (p[2] - 128.0) / 224.0;
                let bb = l + 2.0 * (1.0 - kb) * (p[1] - 128.0) / 224.0;
                let gg = (l - kr * rr - kb * bb) / (1.0 - kr - kb);
                0.2126 * rr + 0.7152 * gg + 0.0722 * bb
            })
            .collect();
        close(
            &gray.to_vec()?,
            &gw,
            1e-11,
            1e-11,
            "color_space ycbcr->gray",
        )?;
        let same = color_space(&img, ColorSpace::Rgb, ColorSpace::Rgb)?;
        close(&same.to_vec()?, &v, 0.0, 0.0, "color_space identity")?;
        Ok(())
    })
}

fn colour_bad_input(d: Device) -> TestResult {
    on(d, || {
        let four = Array::<f32>::zeros(&[2, 2, 4]);
        assert_err(rgb2gray(&four), "Shape", "[2, 2, 4]");
        assert_err(rgb2hsv(&four), "Shape", "[2, 2, 4]");
        assert_err(hsv2rgb(&Array::<f64>::zeros(&[3])), "Shape", "[3]");
        assert_err(rgb2ycbcr(&Array::<f64>::zeros(&[5, 2])), "Shape", "[5, 2]");
        assert_err(
            rgb2gray_with(&Array::<f64>::zeros(&[1, 3]), GrayOpts::new().g(f64::NAN)),
            "InvalidArgument",
            "NaN",
        );
        assert_err(gray2rgb(&Array::<f64>::zeros(&[])), "Shape", "scalar");
        Ok(())
    })
}

const BODIES: &[(&str, Body)] = &[
    ("gray_weights", gray_weights),
    ("hsv_both_ways", hsv_both_ways),
    ("ycbcr_standards", ycbcr_standards),
    ("color_space_routes", color_space_routes),
    ("colour_bad_input", colour_bad_input),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::image_colour::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(
            format!("cuda::image_colour::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
