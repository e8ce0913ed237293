//! SciPy's derived morphology (`morphological_gradient`, `morphological_laplace`,
//! `binary_hit_or_miss`, `binary_propagation`) and Fourier-domain filters
//! (`fourier_gaussian`, `fourier_uniform`, `fourier_shift`, on full and real FFTs) against
//! SciPy 1.17.1's values for the same inputs (`data/scipy-ndimage.txt`, written by
//! `data/scipy_ndimage.py`), and their bad inputs. Bodies run on every backend.

use crate::common::{Body, assert_err, close, grid, reference_in};
use cuprite_array::dtype::c64;
use cuprite_array::image::{
    BinaryOpts, Boundary, FilterOpts, FilterWindow, Footprint, GaussianOpts, MorphOpts, Structure,
    binary_hit_or_miss, binary_propagation, correlate1d_with, fourier_ellipsoid, fourier_gaussian,
    fourier_shift, fourier_uniform, gaussian_filter1d_with, generic_filter, generic_filter1d,
    generic_gradient_magnitude, generic_laplace, labeled_comprehension, laplace,
    morphological_gradient, morphological_gradient_with, morphological_laplace, sobel,
    value_indices,
};
use cuprite_array::ops::fft::{FftOpts, FftnOpts};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Test, TestResult};

fn reference(name: &str) -> Vec<f64> {
    reference_in(&[include_str!("data/scipy-ndimage.txt")], name)
}

fn bools(v: &[bool]) -> Vec<f64> {
    v.iter().map(|&b| f64::from(u8::from(b))).collect()
}

fn parts(v: &[c64]) -> Vec<f64> {
    v.iter().flat_map(|z| [z.re, z.im]).collect()
}

fn derived_morphology(d: Device) -> TestResult {
    let g = grid(8, 9, |i, j| {
        (9.0 * (0.7 * i + 1.3 * j).sin().powi(2)).round_ties_even()
    });
    let ga = Array::from_slice_on(d, &g, &[8, 9])?;
    let box3 = Footprint::size(&[3, 3])?;
    close(
        &morphological_gradient(&ga, &box3)?.to_vec()?,
        &reference("grad_3x3"),
        0.0,
        0.0,
        "gradient",
    )?;
    let fp = Footprint::from(Structure::new(
        &[3, 3],
        &[false, true, true, true, true, false, false, true, false],
    )?);
    let o = MorphOpts::new().mode(Boundary::Constant(2.0));
    close(
        &morphological_gradient_with(&ga, &fp, o)?.to_vec()?,
        &reference("grad_fp_const"),
        0.0,
        0.0,
        "gradient over a footprint, constant edges",
    )?;
    close(
        &morphological_laplace(&ga, &box3)?.to_vec()?,
        &reference("lap_3x3"),
        0.0,
        0.0,
        "laplace",
    )?;
    let g8 = ga.cast::<u8>();
    let got: Vec<f64> = morphological_laplace(&g8, &Footprint::size(&[3, 2])?)?
        .to_vec()?
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    close(
        &got,
        &reference("lap_u8"),
        0.0,
        0.0,
        "laplace of u8 (wrapping), an even footprint",
    )?;

    let b: Vec<bool> = grid(9, 10, |i, j| (1.1 * i * j + 0.3 * i).sin())
        .into_iter()
        .map(|v| v > 0.2)
        .collect();
    let ba = Array::from_slice_on(d, &b, &[9, 10])?;
    let hit = binary_hit_or_miss(&ba, None, None, &[0, 0], None)?.to_vec()?;
    close(
        &bools(&hit),
        &reference("hit_default"),
        0.0,
        0.0,
        "hit-or-miss, default structures",
    )?;
    let s1 = Structure::new(
        &[3, 3],
        &[false, false, false, false, true, true, false, false, false],
    )?;
    let s2 = Structure::new(
        &[3, 3],
        &[true, true, false, true, false, false, true, true, false],
    )?;
    let hit =
        binary_hit_or_miss(&ba, Some(s1.clone()), Some(s2.clone()), &[0, 0], None)?.to_vec()?;
    close(
        &bools(&hit),
        &reference("hit_s1s2"),
        0.0,
        0.0,
        "hit-or-miss",
    )?;
    let hit = binary_hit_or_miss(&ba, Some(s1), Some(s2), &[0, -1], Some(&[1, 0]))?.to_vec()?;
    close(
        &bools(&hit),
        &reference("hit_origins"),
        0.0,
        0.0,
        "hit-or-miss with origins",
    )?;

    let mut seed = vec![false; 90];
    seed[4 * 10 + 5] = true;
    seed[0] = true;
    let sa = Array::from_slice_on(d, &seed, &[9, 10])?;
    let p = binary_propagation(&sa, BinaryOpts::new().mask(&ba))?.to_vec()?;
    close(
        &bools(&p),
        &reference("prop_mask"),
        0.0,
        0.0,
        "propagation in a mask",
    )?;
    let o = BinaryOpts::new()
        .mask(&ba)
        .structure(Structure::ones(&[3, 3])?);
    let p = binary_propagation(&sa, o)?.to_vec()?;
    close(
        &bools(&p),
        &reference("prop_struct"),
        0.0,
        0.0,
        "propagation, 8-connected",
    )?;
    Ok(())
}

fn fourier_filters(d: Device) -> TestResult {
    let x = grid(6, 7, |i, j| (0.4 * i - 0.9 * j).cos() + 0.1 * i);
    let xa = Array::from_slice_on(d, &x, &[6, 7])?;
    let f = xa.fftn()?;
    let tol = 1e-12 * 50.0;
    close(
        &parts(&fourier_gaussian(&f, &[1.2, 0.7], None, -1)?.to_vec()?),
        &reference("fg"),
        1e-12,
        tol,
        "fourier_gaussian",
    )?;
    close(
        &parts(&fourier_uniform(&f, &[3.0], None, -1)?.to_vec()?),
        &reference("fu"),
        1e-12,
        tol,
        "fourier_uniform",
    )?;
    close(
        &parts(&fourier_shift(&f, &[1.5, -2.25], None, -1)?.to_vec()?),
        &reference("fs"),
        1e-12,
        tol,
        "fourier_shift",
    )?;
    let r = xa.rfft_with(FftOpts::new().axis(1))?;
    close(
        &parts(&fourier_gaussian(&r, &[1.2, 0.7], Some(7), 1)?.to_vec()?),
        &reference("fg_rfft"),
        1e-12,
        tol,
        "fourier_gaussian of a real FFT",
    )?;
    close(
        &parts(&fourier_shift(&r, &[0.5, 2.0], Some(7), -1)?.to_vec()?),
        &reference("fs_rfft"),
        1e-12,
        tol,
        "fourier_shift of a real FFT",
    )?;
    // A whole-sample shift through the transforms moves the image periodically.
    let moved = fourier_shift(&f, &[2.0, 3.0], None, -1)?
        .ifftn_with(FftnOpts::new())?
        .real()
        .to_vec()?;
    for i in 0..6 {
        for j in 0..7 {
            let want = x[((i + 4) % 6) * 7 + (j + 4) % 7];
            if (moved[i * 7 + j] - want).abs() > 1e-12 {
                return Err(format!("shifted image at ({i}, {j}): {}", moved[i * 7 + j]).into());
            }
        }
    }
    close(
        &parts(&fourier_ellipsoid(&f, &[3.0, 4.5], None, -1)?.to_vec()?),
        &reference("fe_2d"),
        1e-12,
        tol,
        "fourier_ellipsoid 2-d",
    )?;
    // Large sizes reach r up to about 110: every branch of the host's J1.
    let e2 = grid(36, 40, |i, j| (0.2 * i + 0.05 * j * j).sin());
    let e2 = Array::from_slice_on(d, &e2, &[36, 40])?.fftn()?;
    close(
        &parts(&fourier_ellipsoid(&e2, &[35.0, 60.0], None, -1)?.to_vec()?),
        &reference("fe_2d_big"),
        1e-10,
        1e-9,
        "fourier_ellipsoid 2-d, large sizes",
    )?;
    let e1: Vec<f64> = (0..11).map(|i| (0.3 * i as f64).cos()).collect();
    let e1 = Array::from_slice_on(d, &e1, &[11])?.fft()?;
    close(
        &parts(&fourier_ellipsoid(&e1, &[2.5], None, -1)?.to_vec()?),
        &reference("fe_1d"),
        1e-12,
        tol,
        "fourier_ellipsoid 1-d",
    )?;
    let e3: Vec<f64> = (0..60)
        .map(|t| {
            let (i, j, k) = ((t / 20) as f64, ((t / 5) % 4) as f64, (t % 5) as f64);
            (0.3 * i + 0.2 * j - 0.1 * k).cos()
        })
        .collect();
    let e3 = Array::from_slice_on(d, &e3, &[3, 4, 5])?.fftn()?;
    close(
        &parts(&fourier_ellipsoid(&e3, &[2.0, 1.5, 3.0], None, -1)?.to_vec()?),
        &reference("fe_3d"),
        1e-12,
        tol,
        "fourier_ellipsoid 3-d",
    )?;
    close(
        &parts(&fourier_ellipsoid(&r, &[3.0, 2.0], Some(7), 1)?.to_vec()?),
        &reference("fe_rfft"),
        1e-12,
        tol,
        "fourier_ellipsoid of a real FFT",
    )?;
    let four = Array::from_slice_on(d, &[c64::new(1.0, 0.0); 16], &[2, 2, 2, 2])?;
    assert_err(
        fourier_ellipsoid(&four, &[1.0], None, -1),
        "Shape",
        "[2, 2, 2, 2]",
    );
    assert_err(
        fourier_gaussian(&f, &[1.0, 2.0, 3.0], None, -1),
        "InvalidArgument",
        "3 parameters",
    );
    assert_err(
        fourier_uniform(&f, &[f64::NAN], None, -1),
        "InvalidArgument",
        "NaN",
    );
    assert_err(
        fourier_shift(&f, &[1.0], Some(0), 1),
        "InvalidArgument",
        "n 0",
    );
    assert_err(
        fourier_shift(&f, &[1.0], None, 2),
        "InvalidArgument",
        "axis 2",
    );
    Ok(())
}

fn generic_derivatives(d: Device) -> TestResult {
    let g = grid(8, 9, |i, j| {
        (9.0 * (0.7 * i + 1.3 * j).sin().powi(2)).round_ties_even()
    });
    let ga = Array::from_slice_on(d, &g, &[8, 9])?;
    let sob = |a: &Array<f64>, ax: usize| sobel(a, ax as isize);
    close(
        &generic_gradient_magnitude(&ga, &sob)?.to_vec()?,
        &reference("ggm_sobel"),
        1e-14,
        1e-13,
        "generic_gradient_magnitude with sobel",
    )?;
    let d2 = |a: &Array<f64>, ax: usize| {
        gaussian_filter1d_with(a, 1.0, GaussianOpts::new().axis(ax as isize).order(&[2]))
    };
    close(
        &generic_laplace(&ga, &d2)?.to_vec()?,
        &reference("glap_gauss"),
        1e-12,
        1e-12,
        "generic_laplace with a Gaussian second derivative",
    )?;
    // With [1, -2, 1] it is `laplace`, computed by its own passes.
    let diff = |a: &Array<f64>, ax: usize| {
        correlate1d_with(a, &[1.0, -2.0, 1.0], FilterOpts::new().axis(ax as isize))
    };
    close(
        &generic_laplace(&ga, &diff)?.to_vec()?,
        &laplace(&ga)?.to_vec()?,
        0.0,
        0.0,
        "generic_laplace against laplace",
    )?;
    let bad = |a: &Array<f64>, _: usize| a.reshape(&[72]);
    assert_err(generic_laplace(&ga, &bad), "Shape", "[72]");
    Ok(())
}

fn host_measurements(d: Device) -> TestResult {
    let v: Vec<i32> = (0..24)
        .map(|t| {
            let (i, j, k) = ((t / 12) as f64, ((t / 4) % 3) as f64, (t % 4) as f64);
            (3.0 * (0.9 * i + 0.4 * j * k).sin().powi(2)) as i32
        })
        .collect();
    let va = Array::from_slice_on(d, &v, &[2, 3, 4])?;
    let got = value_indices(&va, Some(1))?;
    let keys: Vec<f64> = got.iter().map(|(k, _)| f64::from(*k)).collect();
    close(&keys, &reference("vi_keys"), 0.0, 0.0, "value_indices keys")?;
    for (k, ix) in &got {
        for (a, arr) in ix.iter().enumerate() {
            let vals: Vec<f64> = arr.to_vec()?.iter().map(|&v| v as f64).collect();
            close(
                &vals,
                &reference(&format!("vi_{k}_{a}")),
                0.0,
                0.0,
                "value_indices",
            )?;
        }
    }
    let g = grid(8, 9, |i, j| {
        (9.0 * (0.7 * i + 1.3 * j).sin().powi(2)).round_ties_even()
    });
    let ga = Array::from_slice_on(d, &g, &[8, 9])?;
    let lab: Vec<i64> = (0..72).map(|t| ((t / 9) * 3 + t % 9) % 4).collect();
    let la = Array::from_slice_on(d, &lab, &[8, 9])?;
    let std = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64).sqrt()
    };
    let got = labeled_comprehension(&ga, &la, &[0, 1, 2, 3, 7], &std, -1.0)?;
    close(
        &got,
        &reference("lc_std"),
        1e-13,
        1e-13,
        "labeled_comprehension",
    )?;
    let short = Array::from_slice_on(d, &[1i64, 2], &[2])?;
    assert_err(
        labeled_comprehension(&ga, &short, &[1], &std, 0.0),
        "InvalidArgument",
        "[2]",
    );
    Ok(())
}

fn generic_filters(d: Device) -> TestResult {
    let g = grid(8, 9, |i, j| {
        (9.0 * (0.7 * i + 1.3 * j).sin().powi(2)).round_ties_even()
    });
    let ga = Array::from_slice_on(d, &g, &[8, 9])?;
    let wsum = |v: &[f64]| {
        v.iter()
            .enumerate()
            .map(|(k, x)| (k + 1) as f64 * x)
            .sum::<f64>()
    };
    let o = FilterOpts::new().boundary(Boundary::Nearest);
    let got = generic_filter(&ga, &wsum, &FilterWindow::size(&[3, 2]), o)?.to_vec()?;
    close(
        &got,
        &reference("gf_box"),
        0.0,
        1e-12,
        "generic_filter over a box",
    )?;
    let median = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let m = s.len();
        if m % 2 == 1 {
            s[m / 2]
        } else {
            (s[m / 2 - 1] + s[m / 2]) / 2.0
        }
    };
    let fp = FilterWindow::new(
        &[false, true, true, true, true, false, false, true, false],
        &[3, 3],
    )?;
    let o = FilterOpts::new()
        .boundary(Boundary::Constant(-3.0))
        .origin(&[1, 0]);
    let got = generic_filter(&ga, &median, &fp, o)?.to_vec()?;
    close(
        &got,
        &reference("gf_fp_const"),
        0.0,
        1e-12,
        "generic_filter over a footprint",
    )?;
    let d1 = |i: &[f64], o: &mut [f64]| {
        for (k, v) in o.iter_mut().enumerate() {
            *v = i[k + 2] - i[k];
        }
    };
    let o = FilterOpts::new().axis(0).boundary(Boundary::Mirror);
    close(
        &generic_filter1d(&ga, &d1, 3, o)?.to_vec()?,
        &reference("gf1d"),
        0.0,
        1e-12,
        "generic_filter1d",
    )?;
    let f2 = |i: &[f64], o: &mut [f64]| {
        for (k, v) in o.iter_mut().enumerate() {
            *v = 2.0 * i[k] + i[k + 3];
        }
    };
    let o = FilterOpts::new()
        .axis(1)
        .boundary(Boundary::Wrap)
        .origin(&[1]);
    close(
        &generic_filter1d(&ga, &f2, 4, o)?.to_vec()?,
        &reference("gf1d_origin"),
        0.0,
        1e-12,
        "generic_filter1d with an origin",
    )?;
    assert_err(
        generic_filter1d(&ga, &f2, 0, FilterOpts::new()),
        "InvalidArgument",
        "filter_size 0",
    );
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("generic_filters", generic_filters),
    ("host_measurements", host_measurements),
    ("generic_derivatives", generic_derivatives),
    ("derived_morphology", derived_morphology),
    ("fourier_filters", fourier_filters),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::image_more::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::image_more::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
