//! `image` morphology (structures, grey and binary dilation/erosion and their compositions,
//! fill holes, the Euclidean distance transform, ArrayFire's dilate/erode) against references
//! written here from the definitions (brute-force min/max over the footprint with the
//! boundary extension folded by hand, a flood fill from the border, the brute-force nearest
//! zero) and SciPy's documented examples. Bodies run on every backend; GPU tests check that
//! CUDA agrees with the CPU backend exactly.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, close};
use cuprite_array::image::{
    self, BinaryOpts, Boundary, EdtOpts, Footprint, MorphOpts, Structure,
    generate_binary_structure, iterate_structure,
};
use cuprite_array::{Array, Device, Element, f16};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// The index standing at `i` of a line of `n` under SciPy's mode, folded step by step.
fn ext(mut i: i64, n: i64, mode: Boundary) -> Option<i64> {
    if (0..n).contains(&i) {
        return Some(i);
    }
    match mode {
        Boundary::Constant(_) | Boundary::GridConstant(_) => None,
        Boundary::Nearest => Some(i.clamp(0, n - 1)),
        Boundary::Wrap | Boundary::GridWrap => {
            while i < 0 {
                i += n;
            }
            Some(i % n)
        }
        Boundary::Reflect => loop {
            if i < 0 {
                i = -1 - i;
            } else if i >= n {
                i = 2 * n - 1 - i;
            } else {
                return Some(i);
            }
        },
        Boundary::Mirror => {
            if n == 1 {
                return Some(0);
            }
            loop {
                if i < 0 {
                    i = -i;
                } else if i >= n {
                    i = 2 * n - 2 - i;
                } else {
                    return Some(i);
                }
            }
        }
    }
}

/// Row-major multi-index of `f` in `shape`.
fn unflat(mut f: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        idx[i] = f % shape[i];
        f /= shape[i];
    }
    idx
}

fn flat(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |a, (&i, &n)| a * n + i)
}

/// SciPy's grey dilation (`max`) or erosion of the trailing axes of `x` (shape `xs`) by the
/// footprint `fs`/`mask` with `heights`: dilation reads `x[p - (k - m/2)] + h[k]`, erosion
/// `x[p + (k - m/2)] - h[k]`, values outside `cval` or folded by the mode.
fn grey_ref(
    x: &[f64],
    xs: &[usize],
    fs: &[usize],
    mask: &[bool],
    heights: Option<&[f64]>,
    max: bool,
    mode: Boundary,
) -> Vec<f64> {
    let r = fs.len();
    let k0 = xs.len() - r;
    let cval = match mode {
        Boundary::Constant(c) | Boundary::GridConstant(c) => c,
        _ => 0.0,
    };
    (0..x.len())
        .map(|f| {
            let p = unflat(f, xs);
            let mut best: Option<f64> = None;
            for (t, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
                let k = unflat(t, fs);
                let mut q = p.clone();
                let mut outside = false;
                for a in 0..r {
                    let d = k[a] as i64 - (fs[a] / 2) as i64;
                    let i = p[k0 + a] as i64 + if max { -d } else { d };
                    match ext(i, xs[k0 + a] as i64, mode) {
                        Some(j) => q[k0 + a] = j as usize,
                        None => outside = true,
                    }
                }
                let mut v = if outside { cval } else { x[flat(&q, xs)] };
                if let Some(h) = heights {
                    v = if max { v + h[t] } else { v - h[t] };
                }
                best = Some(match best {
                    None => v,
                    Some(b) if max => b.max(v),
                    Some(b) => b.min(v),
                });
            }
            best.unwrap()
        })
        .collect()
}

fn ints(rng: &mut Rng, n: usize, hi: u64) -> Vec<f64> {
    (0..n).map(|_| (rng.next_u64() % hi) as f64).collect()
}

fn random_mask(rng: &mut Rng, n: usize) -> Vec<bool> {
    let mut m: Vec<bool> = (0..n).map(|_| rng.next_u64() % 3 != 0).collect();
    m[0] = true;
    m
}

const MODES: [Boundary; 5] = [
    Boundary::Reflect,
    Boundary::Constant(7.0),
    Boundary::Nearest,
    Boundary::Mirror,
    Boundary::Wrap,
];

/// Grey dilation and erosion of every dtype, mode, 2-D and 3-D footprint (odd and even
/// extents) against the brute-force reference.
fn grey_vs_bruteforce(d: Device) -> TestResult {
    fn one<T: image::MorphElement>(
        xs: &[usize],
        x: &[f64],
        fs: &[usize],
        mask: &[bool],
    ) -> TestResult {
        let a = Array::from_slice(x, xs)?.cast::<T>();
        let fp = Footprint::from(Structure::new(fs, mask)?);
        for mode in MODES {
            let o = MorphOpts::new().mode(mode);
            let got = image::grey_dilation_with(&a, &fp, o)?
                .cast::<f64>()
                .to_vec()?;
            let want = grey_ref(x, xs, fs, mask, None, true, mode);
            close(
                &got,
                &want,
                0.0,
                0.0,
                &format!("dilation {} {mode:?} {fs:?}", T::DTYPE),
            )?;
            let got = image::grey_erosion_with(&a, &fp, o)?
                .cast::<f64>()
                .to_vec()?;
            let want = grey_ref(x, xs, fs, mask, None, false, mode);
            close(
                &got,
                &want,
                0.0,
                0.0,
                &format!("erosion {} {mode:?} {fs:?}", T::DTYPE),
            )?;
        }
        Ok(())
    }
    on(d, || {
        let mut rng = Rng::seeded(41);
        for (xs, fs) in [
            (vec![2usize, 7, 9], vec![3usize, 4]),
            (vec![6, 5], vec![5, 5]),
            (vec![2, 4, 5, 6], vec![3, 2, 3]),
            (vec![9], vec![4]),
        ] {
            let n: usize = xs.iter().product();
            let x = ints(&mut rng, n, 200);
            let mask = random_mask(&mut rng, fs.iter().product());
            one::<u8>(&xs, &x, &fs, &mask)?;
            one::<u16>(&xs, &x, &fs, &mask)?;
            one::<f16>(&xs, &x, &fs, &mask)?;
            one::<f32>(&xs, &x, &fs, &mask)?;
            one::<f64>(&xs, &x, &fs, &mask)?;
        }
        // More taps than the kernels build in (read from buffers): a 6 x 7 box less a corner.
        let xs = [2usize, 9, 11];
        let x = ints(&mut rng, 198, 200);
        let mut mask = vec![true; 42];
        mask[41] = false;
        one::<f32>(&xs, &x, &[6, 7], &mask)?;
        one::<u8>(&xs, &x, &[6, 7], &mask)?;
        Ok(())
    })
}

/// Non-flat structures (heights), and the compositions: opening, closing, tophats.
fn grey_heights_and_compositions(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(42);
        let xs = [3usize, 6, 7];
        let x: Vec<f64> = (0..126).map(|_| rng.f32_in(-5.0, 5.0) as f64).collect();
        let fs = [3usize, 3];
        let h: Vec<f64> = (0..9).map(|_| rng.f32_in(0.0, 1.0) as f64).collect();
        let a = Array::from_slice(&x, &xs)?;
        let fp = Footprint::structure(&fs, &h)?;
        let ones = [true; 9];
        let mode = Boundary::Mirror;
        let o = MorphOpts::new().mode(mode);
        let dil = grey_ref(&x, &xs, &fs, &ones, Some(&h), true, mode);
        let ero = grey_ref(&x, &xs, &fs, &ones, Some(&h), false, mode);
        close(
            &image::grey_dilation_with(&a, &fp, o)?.to_vec()?,
            &dil,
            0.0,
            0.0,
            "dilation h",
        )?;
        close(
            &image::grey_erosion_with(&a, &fp, o)?.to_vec()?,
            &ero,
            0.0,
            0.0,
            "erosion h",
        )?;
        let open = grey_ref(&ero, &xs, &fs, &ones, Some(&h), true, mode);
        let closed = grey_ref(&dil, &xs, &fs, &ones, Some(&h), false, mode);
        close(
            &image::grey_opening_with(&a, &fp, o)?.to_vec()?,
            &open,
            0.0,
            0.0,
            "opening",
        )?;
        close(
            &image::grey_closing_with(&a, &fp, o)?.to_vec()?,
            &closed,
            0.0,
            0.0,
            "closing",
        )?;
        let wt: Vec<f64> = x.iter().zip(&open).map(|(a, b)| a - b).collect();
        let bt: Vec<f64> = closed.iter().zip(&x).map(|(a, b)| a - b).collect();
        close(
            &image::white_tophat_with(&a, &fp, o)?.to_vec()?,
            &wt,
            0.0,
            0.0,
            "white",
        )?;
        close(
            &image::black_tophat_with(&a, &fp, o)?.to_vec()?,
            &bt,
            0.0,
            0.0,
            "black",
        )?;
        // Heights on more taps than the kernels build in.
        let h36: Vec<f64> = (0..36).map(|i| f64::from(i) * 0.125).collect();
        let fp36 = Footprint::structure(&[6, 6], &h36)?;
        let want = grey_ref(&x, &xs, &[6, 6], &[true; 36], Some(&h36), true, mode);
        close(
            &image::grey_dilation_with(&a, &fp36, o)?.to_vec()?,
            &want,
            0.0,
            0.0,
            "dilation h36",
        )?;
        // The default mode (reflect) of the short forms.
        let fp = Footprint::size(&[2, 3])?;
        let want = grey_ref(&x, &xs, &[2, 3], &[true; 6], None, true, Boundary::Reflect);
        close(
            &image::grey_dilation(&a, &fp)?.to_vec()?,
            &want,
            0.0,
            0.0,
            "size",
        )?;
        Ok(())
    })
}

/// The binary reference: `grey_ref` on 0/1 with the constant border.
fn bin_ref(
    x: &[bool],
    xs: &[usize],
    s: &Structure,
    max: bool,
    border: bool,
    it: usize,
) -> Vec<bool> {
    let mut v: Vec<f64> = x.iter().map(|&b| f64::from(u8::from(b))).collect();
    let mode = Boundary::Constant(f64::from(u8::from(border)));
    let mut n = 0;
    loop {
        let next = grey_ref(&v, xs, s.shape(), s.mask(), None, max, mode);
        n += 1;
        let same = next == v;
        v = next;
        if (it > 0 && n == it) || (it == 0 && same) {
            break;
        }
    }
    v.iter().map(|&f| f != 0.0).collect()
}

fn binary_vs_reference(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(43);
        let xs = [2usize, 9, 8];
        let x: Vec<bool> = (0..144).map(|_| rng.next_u64() % 5 < 3).collect();
        let a = Array::from_slice(&x, &xs)?;
        let au = a.cast::<u8>();
        let cross = generate_binary_structure(2, 1)?;
        let odd = Structure::new(&[2, 3], &[true, false, true, false, true, true])?;
        for s in [&cross, &odd] {
            for (it, border) in [(1, false), (2, true), (0, false)] {
                let o = BinaryOpts::new()
                    .structure(s.clone())
                    .iterations(it)
                    .border_value(border);
                let e = bin_ref(&x, &xs, s, false, border, it);
                let dl = bin_ref(&x, &xs, s, true, border, it);
                let what = format!("{:?} it {it} border {border}", s.shape());
                let b = |v: &[bool]| {
                    v.iter()
                        .map(|&b| f64::from(u8::from(b)))
                        .collect::<Vec<_>>()
                };
                let got = image::binary_erosion_with(&a, o.clone())?.to_vec()?;
                close(&b(&got), &b(&e), 0.0, 0.0, &format!("erosion {what}"))?;
                let got = image::binary_dilation_with(&au, o.clone())?.to_vec()?;
                close(&b(&got), &b(&dl), 0.0, 0.0, &format!("dilation {what}"))?;
                let open = bin_ref(&e, &xs, s, true, border, it);
                let closed = bin_ref(&dl, &xs, s, false, border, it);
                let got = image::binary_opening_with(&a, o.clone())?.to_vec()?;
                close(&b(&got), &b(&open), 0.0, 0.0, &format!("opening {what}"))?;
                let got = image::binary_closing_with(&a, o.clone())?.to_vec()?;
                close(&b(&got), &b(&closed), 0.0, 0.0, &format!("closing {what}"))?;
            }
        }
        Ok(())
    })
}

/// SciPy's documented `binary_erosion` example, and `generate_binary_structure`,
/// `iterate_structure` by their definitions.
fn scipy_examples(d: Device) -> TestResult {
    on(d, || {
        let mut a = vec![0i32; 49];
        for i in 1..6 {
            for j in 2..5 {
                a[i * 7 + j] = 1;
            }
        }
        let x = Array::from_slice(&a, &[7, 7])?.not_equal(0);
        let got = image::binary_erosion(&x)?.to_vec()?;
        let want: Vec<bool> = (0..49)
            .map(|f| (2..5).contains(&(f / 7)) && f % 7 == 3)
            .collect();
        if got != want {
            return Err(format!("binary_erosion example: {got:?}").into());
        }
        let o = BinaryOpts::new().structure(Structure::ones(&[5, 5])?);
        if image::binary_erosion_with(&x, o)?
            .to_vec()?
            .iter()
            .any(|&b| b)
        {
            return Err("erosion by 5x5 leaves elements".into());
        }
        for rank in 1..=3 {
            for c in 0..=3 {
                let s = generate_binary_structure(rank, c)?;
                for (f, &m) in s.mask().iter().enumerate() {
                    let steps = unflat(f, s.shape()).iter().filter(|&&i| i != 1).count();
                    if m != (steps <= c) {
                        return Err(format!("structure {rank} {c} at {f}").into());
                    }
                }
            }
        }
        let it = iterate_structure(&generate_binary_structure(2, 1)?, 3)?;
        if it.shape() != [7, 7] {
            return Err(format!("iterate shape {:?}", it.shape()).into());
        }
        for f in 0..49 {
            let (i, j) = ((f / 7) as i64 - 3, (f % 7) as i64 - 3);
            if it.mask()[f] != (i.abs() + j.abs() <= 3) {
                return Err(format!("iterate_structure at {f}").into());
            }
        }
        let full = iterate_structure(&Structure::ones(&[3, 3])?, 2)?;
        if full.shape() != [5, 5] || full.count() != 25 {
            return Err("iterate of the box".into());
        }
        Ok(())
    })
}

/// `binary_fill_holes` against a flood fill of the background from the border.
fn fill_holes_vs_flood(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(44);
        let xs = [3usize, 10, 11];
        let x: Vec<bool> = (0..330).map(|_| rng.next_u64() % 10 < 6).collect();
        for conn in [1, 2] {
            let s = generate_binary_structure(2, conn)?;
            let got = image::binary_fill_holes(&Array::from_slice(&x, &xs)?, Some(&s))?.to_vec()?;
            let (h, w) = (10usize, 11usize);
            let mut want = vec![true; 330];
            for b in 0..3 {
                let mut seen = vec![false; h * w];
                let mut stack: Vec<(usize, usize)> = Vec::new();
                for i in 0..h {
                    for j in 0..w {
                        if (i == 0 || j == 0 || i == h - 1 || j == w - 1)
                            && !x[b * h * w + i * w + j]
                        {
                            seen[i * w + j] = true;
                            stack.push((i, j));
                        }
                    }
                }
                while let Some((i, j)) = stack.pop() {
                    want[b * h * w + i * w + j] = false;
                    for di in -1i64..=1 {
                        for dj in -1i64..=1 {
                            if (di, dj) == (0, 0) || (conn == 1 && di != 0 && dj != 0) {
                                continue;
                            }
                            let (a, c) = (i as i64 + di, j as i64 + dj);
                            if a < 0 || c < 0 || a >= h as i64 || c >= w as i64 {
                                continue;
                            }
                            let q = a as usize * w + c as usize;
                            if !seen[q] && !x[b * h * w + q] {
                                seen[q] = true;
                                stack.push((a as usize, c as usize));
                            }
                        }
                    }
                }
            }
            if got != want {
                return Err(format!("fill_holes connectivity {conn}").into());
            }
        }
        Ok(())
    })
}

/// The distance transform against the brute-force nearest zero, with sampling, 2-D and 3-D,
/// and SciPy's documented example.
fn edt_vs_bruteforce(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(45);
        for (xs, samp) in [
            (vec![2usize, 9, 13], vec![1.5, 0.7]),
            (vec![5, 6, 7], vec![1.0, 2.0, 0.5]),
        ] {
            let n: usize = xs.iter().product();
            let x: Vec<u8> = (0..n).map(|_| u8::from(rng.next_u64() % 4 != 0)).collect();
            let r = samp.len();
            let k = xs.len() - r;
            let per: usize = xs[k..].iter().product();
            let want: Vec<f64> = (0..n)
                .map(|f| {
                    let p = unflat(f, &xs);
                    let b = f / per;
                    (b * per..(b + 1) * per)
                        .filter(|&g| x[g] == 0)
                        .map(|g| {
                            let q = unflat(g, &xs);
                            (k..xs.len())
                                .map(|a| ((p[a] as f64 - q[a] as f64) * samp[a - k]).powi(2))
                                .sum::<f64>()
                                .sqrt()
                        })
                        .fold(f64::INFINITY, f64::min)
                })
                .collect();
            let o = EdtOpts::new().sampling(&samp).image_rank(r);
            let got =
                image::distance_transform_edt_with(&Array::from_slice(&x, &xs)?, o)?.to_vec()?;
            close(&got, &want, 1e-12, 1e-12, &format!("edt {xs:?}"))?;
        }
        let a = [
            0u8, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0,
        ];
        let x = Array::from_slice(&a, &[5, 5])?;
        let s2 = 2f64.sqrt();
        let want = [
            0.0,
            1.0,
            s2,
            5f64.sqrt(),
            3.0,
            0.0,
            0.0,
            1.0,
            2.0,
            2.0,
            0.0,
            1.0,
            s2,
            s2,
            1.0,
            0.0,
            1.0,
            s2,
            1.0,
            0.0,
            0.0,
            1.0,
            1.0,
            0.0,
            0.0,
        ];
        close(
            &image::distance_transform_edt(&x)?.to_vec()?,
            &want,
            1e-15,
            0.0,
            "scipy example",
        )?;
        let want = [
            0.0,
            1.0,
            2.0,
            8f64.sqrt(),
            13f64.sqrt(),
            0.0,
            0.0,
            1.0,
            2.0,
            3.0,
            0.0,
            1.0,
            2.0,
            5f64.sqrt(),
            2.0,
            0.0,
            1.0,
            2.0,
            1.0,
            0.0,
            0.0,
            1.0,
            1.0,
            0.0,
            0.0,
        ];
        let got = image::distance_transform_edt_with(&x, EdtOpts::new().sampling(&[2.0, 1.0]))?;
        close(&got.to_vec()?, &want, 1e-15, 0.0, "scipy sampling example")?;
        Ok(())
    })
}

/// ArrayFire's dilate (zero past the edges) and erode (edge repeated), the mask not reflected.
fn arrayfire_morph(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(46);
        let xs = [2usize, 6, 8];
        let x = ints(&mut rng, 96, 100);
        let a = Array::from_slice(&x, &xs)?.cast::<f32>();
        let mask = random_mask(&mut rng, 9);
        let s = Structure::new(&[3, 3], &mask)?;
        // Non-reflected reads: the reference's erosion form (x[p + k - c]) for both.
        let refl = |max: bool, mode: Boundary| {
            let fs = [3usize, 3];
            let flipped: Vec<bool> = (0..9).map(|f| mask[8 - f]).collect();
            if max {
                grey_ref(&x, &xs, &fs, &flipped, None, true, mode)
            } else {
                grey_ref(&x, &xs, &fs, &mask, None, false, mode)
            }
        };
        let got = image::dilate(&a, &s)?.cast::<f64>().to_vec()?;
        close(
            &got,
            &refl(true, Boundary::Constant(0.0)),
            0.0,
            0.0,
            "dilate",
        )?;
        let got = image::erode(&a, &s)?.cast::<f64>().to_vec()?;
        close(&got, &refl(false, Boundary::Nearest), 0.0, 0.0, "erode")?;
        let v = Array::from_slice(&x, &[2, 3, 16])?.cast::<f32>();
        let cube = Structure::ones(&[3, 3, 3])?;
        let got = image::dilate3(&v, &cube)?.cast::<f64>().to_vec()?;
        let want = grey_ref(
            &x,
            &[2, 3, 16],
            &[3, 3, 3],
            &[true; 27],
            None,
            true,
            Boundary::Constant(0.0),
        );
        close(&got, &want, 0.0, 0.0, "dilate3")?;
        let got = image::erode3(&v, &cube)?.cast::<f64>().to_vec()?;
        let want = grey_ref(
            &x,
            &[2, 3, 16],
            &[3, 3, 3],
            &[true; 27],
            None,
            false,
            Boundary::Nearest,
        );
        close(&got, &want, 0.0, 0.0, "erode3")?;
        Ok(())
    })
}

fn bad_input(d: Device) -> TestResult {
    on(d, || {
        let x = Array::<f32>::zeros(&[4, 4]);
        let want_err = |r: Result<String, cuprite_array::Error>, needle: &str| -> TestResult {
            match r {
                Err(e) if e.to_string().contains(needle) => Ok(()),
                other => Err(format!("expected an error naming {needle:?}, got {other:?}").into()),
            }
        };
        let s3 = Structure::ones(&[2, 2, 2])?;
        want_err(
            image::grey_dilation(&x, &Footprint::from(s3.clone())).map(|_| String::new()),
            "[4, 4]",
        )?;
        let empty = Structure::new(&[2], &[false, false])?;
        want_err(
            image::grey_erosion(&x, &Footprint::from(empty)).map(|_| String::new()),
            "selects no element",
        )?;
        want_err(
            Structure::new(&[0, 3], &[]).map(|_| String::new()),
            "[0, 3]",
        )?;
        // Elements past 2^24 are refused before any mask is held, and so is an iterated
        // structure that would grow past them; a single position iterates to itself.
        want_err(
            Structure::ones(&[1 << 40]).map(|_| String::new()),
            "[1099511627776]",
        )?;
        want_err(
            Footprint::size(&[4097, 4097]).map(|_| String::new()),
            "[4097, 4097]",
        )?;
        let cross = generate_binary_structure(2, 1)?;
        want_err(
            iterate_structure(&cross, usize::MAX).map(|_| String::new()),
            &format!("{} iterations", usize::MAX),
        )?;
        want_err(
            iterate_structure(&cross, 2049).map(|_| String::new()),
            "2049 iterations",
        )?;
        let dot = Structure::new(&[1, 1], &[true])?;
        if iterate_structure(&dot, usize::MAX)? != dot {
            return Err("iterate_structure of one position".into());
        }
        let nan = [0.0, f64::NAN, 0.0];
        want_err(
            Footprint::size(&[3])?
                .with_heights(&nan)
                .map(|_| String::new()),
            "NaN",
        )?;
        want_err(
            Footprint::size(&[3])?
                .with_heights(&[1.0])
                .map(|_| String::new()),
            "1 values",
        )?;
        want_err(
            generate_binary_structure(4, 1).map(|_| String::new()),
            "rank 4",
        )?;
        want_err(
            image::dilate(&x, &Structure::ones(&[21, 21])?).map(|_| String::new()),
            "[21, 21]",
        )?;
        want_err(
            image::erode3(&x, &Structure::ones(&[3, 3])?).map(|_| String::new()),
            "3-d",
        )?;
        let o = EdtOpts::new().sampling(&[1.0, -2.0]);
        want_err(
            image::distance_transform_edt_with(&x, o).map(|_| String::new()),
            "-2",
        )?;
        let o = EdtOpts::new().sampling(&[1.0, 1.0, 1.0]);
        want_err(
            image::distance_transform_edt_with(&x, o).map(|_| String::new()),
            "3 sampling",
        )?;
        let o = MorphOpts::new().origin_axes(&[0, 2]);
        want_err(
            image::grey_dilation_with(&x, &Footprint::size(&[3, 3])?, o).map(|_| String::new()),
            "invalid origin 2",
        )?;
        let o = BinaryOpts::new().mask(&Array::<bool>::zeros(&[2, 2]));
        want_err(
            image::binary_dilation_with(&x.not_equal(0.0), o).map(|_| String::new()),
            "mask of shape [2, 2]",
        )?;
        let o = BinaryOpts::new().structure(s3);
        want_err(
            image::binary_erosion_with(&x.not_equal(0.0), o).map(|_| String::new()),
            "rank 3",
        )?;
        Ok(())
    })
}

/// SciPy's min/max filter read literally: output `p` takes the extreme over the footprint's
/// set positions `j` of `x[p + j - (m / 2 + origin)]`; dilation runs it with the footprint
/// reversed and the origin `-origin - 1` for even extents (`-origin` for odd ones).
fn scipy_ref(
    x: &[f64],
    xs: &[usize],
    fs: &[usize],
    mask: &[bool],
    max: bool,
    mode: Boundary,
    origin: &[i64],
) -> Vec<f64> {
    let r = fs.len();
    let k0 = xs.len() - r;
    let (fp, org): (Vec<bool>, Vec<i64>) = if max {
        (
            mask.iter().rev().copied().collect(),
            (0..r)
                .map(|a| -origin[a] - i64::from(fs[a] % 2 == 0))
                .collect(),
        )
    } else {
        (mask.to_vec(), origin.to_vec())
    };
    let cval = match mode {
        Boundary::Constant(c) => c,
        _ => 0.0,
    };
    (0..x.len())
        .map(|f| {
            let p = unflat(f, xs);
            let vals = fp.iter().enumerate().filter(|(_, m)| **m).map(|(t, _)| {
                let j = unflat(t, fs);
                let mut q = p.clone();
                for a in 0..r {
                    let i = p[k0 + a] as i64 + j[a] as i64 - (fs[a] / 2) as i64 - org[a];
                    match ext(i, xs[k0 + a] as i64, mode) {
                        Some(v) => q[k0 + a] = v as usize,
                        None => return cval,
                    }
                }
                x[flat(&q, xs)]
            });
            if max {
                vals.fold(f64::NEG_INFINITY, f64::max)
            } else {
                vals.fold(f64::INFINITY, f64::min)
            }
        })
        .collect()
}

/// SciPy's `origin` (grey and binary) and the binary `mask`.
fn origin_and_mask(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::seeded(48);
        let xs = [2usize, 8, 9];
        let x = ints(&mut rng, 144, 50);
        let a = Array::from_slice(&x, &xs)?;
        for (fs, org) in [
            ([3usize, 4usize], [1isize, -2isize]),
            ([4, 4], [1, 1]),
            ([2, 5], [-1, 2]),
        ] {
            let n = fs[0] * fs[1];
            for mask in [random_mask(&mut rng, n), vec![true; n]] {
                let fp = Footprint::from(Structure::new(&fs, &mask)?);
                let o64 = [org[0] as i64, org[1] as i64];
                for mode in [Boundary::Reflect, Boundary::Constant(3.0)] {
                    let o = MorphOpts::new().mode(mode).origin_axes(&org);
                    let what = format!("{fs:?} {org:?} {mode:?}");
                    let got = image::grey_dilation_with(&a, &fp, o)?.to_vec()?;
                    close(
                        &got,
                        &scipy_ref(&x, &xs, &fs, &mask, true, mode, &o64),
                        0.0,
                        0.0,
                        &format!("dilation {what}"),
                    )?;
                    let got = image::grey_erosion_with(&a, &fp, o)?.to_vec()?;
                    close(
                        &got,
                        &scipy_ref(&x, &xs, &fs, &mask, false, mode, &o64),
                        0.0,
                        0.0,
                        &format!("erosion {what}"),
                    )?;
                }
            }
        }
        // Binary erosion with an origin and a mask, two iterations.
        let m: Vec<bool> = (0..144).map(|_| rng.next_u64() % 4 != 0).collect();
        let keep: Vec<bool> = (0..144).map(|_| rng.next_u64() % 3 != 0).collect();
        let s = generate_binary_structure(2, 2)?;
        let o = BinaryOpts::new()
            .structure(s.clone())
            .iterations(2)
            .origin(&[1, 0])
            .mask(&Array::from_slice(&keep, &xs)?);
        let got = image::binary_erosion_with(&Array::from_slice(&m, &xs)?, o)?.to_vec()?;
        let mut cur: Vec<f64> = m.iter().map(|&b| f64::from(u8::from(b))).collect();
        for _ in 0..2 {
            let e = scipy_ref(
                &cur,
                &xs,
                &[3, 3],
                s.mask(),
                false,
                Boundary::Constant(0.0),
                &[1, 0],
            );
            cur = (0..144)
                .map(|f| if keep[f] { e[f] } else { cur[f] })
                .collect();
        }
        let got: Vec<f64> = got.iter().map(|&b| f64::from(u8::from(b))).collect();
        close(&got, &cur, 0.0, 0.0, "binary erosion with origin and mask")
    })
}

/// Flat full boxes over the last two axes (the one-kernel box path): every dtype, mode, odd
/// and even extents and origins, on images of several tiles with partial ones, against
/// SciPy's definition read literally; a 3-d box (a pass along the first axis, then the box
/// of the last two) against the brute-force reference.
fn box_vs_reference(d: Device) -> TestResult {
    fn one<T: image::MorphElement>(
        xs: &[usize],
        x: &[f64],
        fs: &[usize],
        org: &[isize],
        mode: Boundary,
    ) -> TestResult {
        let a = Array::from_slice(x, xs)?.cast::<T>();
        let fp = Footprint::size(fs)?;
        let mask = vec![true; fs.iter().product()];
        let o64: Vec<i64> = org.iter().map(|&v| v as i64).collect();
        let o = MorphOpts::new().mode(mode).origin_axes(org);
        let what = format!("{} {fs:?} {org:?} {mode:?}", T::DTYPE);
        let got = image::grey_dilation_with(&a, &fp, o)?
            .cast::<f64>()
            .to_vec()?;
        let want = scipy_ref(x, xs, fs, &mask, true, mode, &o64);
        close(&got, &want, 0.0, 0.0, &format!("box dilation {what}"))?;
        let got = image::grey_erosion_with(&a, &fp, o)?
            .cast::<f64>()
            .to_vec()?;
        let want = scipy_ref(x, xs, fs, &mask, false, mode, &o64);
        close(&got, &want, 0.0, 0.0, &format!("box erosion {what}"))
    }
    on(d, || {
        let mut rng = Rng::seeded(49);
        let xs = [2usize, 37, 70];
        let x = ints(&mut rng, 2 * 37 * 70, 200);
        for mode in MODES {
            for (fs, org) in [
                ([5usize, 5usize], [0isize, 0isize]),
                ([4, 6], [1, -2]),
                ([7, 2], [-3, 0]),
            ] {
                one::<f32>(&xs, &x, &fs, &org, mode)?;
            }
        }
        for mode in [Boundary::Reflect, Boundary::Constant(7.0)] {
            one::<u8>(&xs, &x, &[3, 3], &[0, 0], mode)?;
            one::<u16>(&xs, &x, &[6, 3], &[-2, 1], mode)?;
            one::<f16>(&xs, &x, &[3, 4], &[1, 0], mode)?;
            one::<f64>(&xs, &x, &[2, 3], &[0, 1], mode)?;
        }
        // A box wider than a tile's reach and as tall as the image.
        one::<f32>(&[9, 70], &x[..630], &[9, 32], &[0, 0], Boundary::Reflect)?;
        // A 3-d box: the first axis's pass, then the box of the last two.
        let xs3 = [3usize, 34, 33];
        let x3 = ints(&mut rng, 3 * 34 * 33, 200);
        let a = Array::from_slice(&x3, &xs3)?.cast::<f32>();
        for mode in [Boundary::Mirror, Boundary::Constant(7.0)] {
            let o = MorphOpts::new().mode(mode);
            let fp = Footprint::size(&[3, 4, 5])?;
            let mask = [true; 60];
            let got = image::grey_dilation_with(&a, &fp, o)?
                .cast::<f64>()
                .to_vec()?;
            let want = grey_ref(&x3, &xs3, &[3, 4, 5], &mask, None, true, mode);
            close(&got, &want, 0.0, 0.0, &format!("3-d box dilation {mode:?}"))?;
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("grey_vs_bruteforce", grey_vs_bruteforce),
    (
        "grey_heights_and_compositions",
        grey_heights_and_compositions,
    ),
    ("binary_vs_reference", binary_vs_reference),
    ("scipy_examples", scipy_examples),
    ("fill_holes_vs_flood", fill_holes_vs_flood),
    ("edt_vs_bruteforce", edt_vs_bruteforce),
    ("arrayfire_morph", arrayfire_morph),
    ("bad_input", bad_input),
    ("origin_and_mask", origin_and_mask),
    ("box_vs_reference", box_vs_reference),
];

/// `f` on the CPU backend and on CUDA give the same values, bit for bit.
fn agree<T: Element>(what: &str, f: impl Fn() -> cuprite_array::Result<Array<T>>) -> TestResult {
    let c = on(Device::CPU, &f)?.to_vec()?;
    let g = on(Device::cuda(0), &f)?.to_vec()?;
    let same = c.len() == g.len()
        && c.iter()
            .zip(&g)
            .all(|(a, b)| format!("{a:?}") == format!("{b:?}"));
    if !same {
        let at = c
            .iter()
            .zip(&g)
            .position(|(a, b)| format!("{a:?}") != format!("{b:?}"));
        return Err(format!("{what}: CUDA and CPU differ (first at {at:?})").into());
    }
    Ok(())
}

/// Larger images on CUDA and the CPU backend: grey morphology of every dtype and mode, binary
/// morphology, fill holes and the distance transform agree exactly.
fn cuda_agrees_with_cpu() -> TestResult {
    let mut rng = Rng::seeded(47);
    let (h, w) = (301usize, 517usize);
    let x: Vec<f32> = (0..2 * h * w).map(|_| rng.f32_in(-100.0, 100.0)).collect();
    let xu: Vec<u8> = (0..2 * h * w)
        .map(|_| (rng.next_u64() % 256) as u8)
        .collect();
    let mut xn = x.clone();
    xn[17] = f32::NAN;
    // NaN inside a tile, on a tile's edges and at a run of neighbours.
    for i in [
        150 * w + 200,
        32 * w + 64,
        33 * w + 63,
        200 * w + 5,
        200 * w + 6,
    ] {
        xn[i] = f32::NAN;
    }
    let m: Vec<bool> = (0..2 * h * w).map(|_| rng.next_u64() % 10 < 7).collect();
    let fp = Footprint::from(Structure::new(&[5, 4], &random_mask(&mut rng, 20))?);
    let hs: Vec<f64> = (0..20).map(|i| i as f64 * 0.25).collect();
    let fph = fp.clone().with_heights(&hs)?;
    let mut big = vec![true; 49];
    big[24] = false;
    let fpb = Footprint::from(Structure::new(&[7, 7], &big)?);
    for mode in MODES {
        let o = MorphOpts::new().mode(mode);
        let xa = || Array::from_slice(&xn, &[2, h, w]);
        let ua = || Array::from_slice(&xu, &[2, h, w]);
        agree("dilation f32", || image::grey_dilation_with(&xa()?, &fp, o))?;
        agree("erosion f32", || image::grey_erosion_with(&xa()?, &fp, o))?;
        agree("dilation f32 heights", || {
            image::grey_dilation_with(&xa()?, &fph, o)
        })?;
        agree("erosion f16", || {
            image::grey_erosion_with(&xa()?.cast::<f16>(), &fph, o)
        })?;
        agree("dilation u8", || image::grey_dilation_with(&ua()?, &fph, o))?;
        agree("erosion u16", || {
            image::grey_erosion_with(&ua()?.cast::<u16>(), &fp, o)
        })?;
        agree("dilation f64", || {
            image::grey_dilation_with(&xa()?.cast::<f64>(), &fph, o)
        })?;
    }
    for mode in MODES {
        let o = MorphOpts::new().mode(mode);
        let xa = || Array::from_slice(&x, &[2, h, w]);
        agree("dilation 48 taps", || {
            image::grey_dilation_with(&xa()?, &fpb, o)
        })?;
        agree("erosion 48 taps f16", || {
            image::grey_erosion_with(&xa()?.cast::<f16>(), &fpb, o)
        })?;
    }
    // Flat boxes (the one-kernel box path), NaN included, every dtype.
    let bx = Footprint::size(&[5, 5])?;
    let bo = Footprint::size(&[4, 7])?;
    for mode in MODES {
        let o = MorphOpts::new().mode(mode);
        let shifted = o.origin_axes(&[1, -2]);
        let xa = || Array::from_slice(&xn, &[2, h, w]);
        let ua = || Array::from_slice(&xu, &[2, h, w]);
        agree("box dilation f32", || {
            image::grey_dilation_with(&xa()?, &bx, o)
        })?;
        agree("box erosion f32", || {
            image::grey_erosion_with(&xa()?, &bo, shifted)
        })?;
        agree("box dilation f16", || {
            image::grey_dilation_with(&xa()?.cast::<f16>(), &bo, shifted)
        })?;
        agree("box erosion f64", || {
            image::grey_erosion_with(&xa()?.cast::<f64>(), &bx, o)
        })?;
        agree("box dilation u8", || {
            image::grey_dilation_with(&ua()?, &bo, o)
        })?;
        agree("box erosion u16", || {
            image::grey_erosion_with(&ua()?.cast::<u16>(), &bx, shifted)
        })?;
    }
    let v = || Array::from_slice(&x[..64 * 50 * 40], &[64, 50, 40]);
    let cube = Footprint::size(&[3, 5, 3])?;
    agree("dilation 3-d", || image::grey_dilation(&v()?, &cube))?;
    agree("erode3", || {
        image::erode3(&v()?, &Structure::ones(&[5, 5, 5])?)
    })?;
    let ma = || Array::from_slice(&m, &[2, h, w]);
    let o = BinaryOpts::new().iterations(3).border_value(true);
    agree("binary_erosion", || {
        image::binary_erosion_with(
            &ma()?,
            o.clone().structure(generate_binary_structure(2, 2)?),
        )
    })?;
    agree("binary_closing", || {
        image::binary_closing_with(
            &ma()?,
            BinaryOpts::new().structure(generate_binary_structure(2, 1)?),
        )
    })?;
    agree("fill_holes", || {
        image::binary_fill_holes(&ma()?, Some(&generate_binary_structure(2, 1)?))
    })?;
    let e = EdtOpts::new().sampling(&[1.0, 1.3]).image_rank(2);
    agree("edt", || {
        image::distance_transform_edt_with(&ma()?, e.clone())
    })?;
    agree("edt 3-d", || {
        image::distance_transform_edt(&Array::from_slice(&m[..40 * 50 * 60], &[40, 50, 60])?)
    })?;
    // Many short lines (more than the block-a-line form takes on any GPU of up to 132
    // multiprocessors: the thread-a-line form) and a few long ones (the block form).
    agree("edt many lines", || {
        let x = Array::from_slice(&m[..120 * 48 * 40], &[120, 48, 40])?;
        image::distance_transform_edt_with(&x, EdtOpts::new().image_rank(2))
    })?;
    agree("edt few long lines", || {
        let x = Array::from_slice(&m[..4 * 50000], &[4, 50000])?;
        image::distance_transform_edt_with(&x, EdtOpts::new().sampling(&[0.7]).image_rank(1))
    })?;
    Ok(())
}

/// The morphology kernels compile with NVRTC (no GPU): the sources the bodies would build on
/// CUDA, recorded by the dry-run backend.
fn morphology_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        grey_vs_bruteforce(Device::CPU),
        grey_heights_and_compositions(Device::CPU),
        edt_vs_bruteforce(Device::CPU),
        box_vs_reference(Device::CPU),
    ];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| s.contains("cuprite_morph_") || s.contains("cuprite_edt_"))
        .collect();
    for r in runs {
        r?;
    }
    for want in [
        "cuprite_morph_max_u8",
        "cuprite_morph_min_f16",
        "cuprite_morph_max_f64_h",
        "_t0_",
        "cuprite_morph_box_max_f32_5x5",
        "cuprite_morph_box_min_u16_6x3",
        "cuprite_morph_box_max_f16",
        "cuprite_morph_box_min_f64",
        "cuprite_morph_box_max_u8",
        "cuprite_edt_pass_first",
        "cuprite_edt_pass_last",
        "cuprite_edt_pass_last_block",
    ] {
        if !sources.iter().any(|s| s.contains(want)) {
            return Err(format!("{want} was not recorded ({} sources)", sources.len()).into());
        }
    }
    crate::codegen::compile_all(&sources)
}

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc(
            "codegen::morphology_kernels_compile",
            morphology_kernels_compile,
        ),
        Test::gpu(
            "cuda::image_morphology::cuda_agrees_with_cpu",
            cuda_agrees_with_cpu,
        ),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::image_morphology::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::image_morphology::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
