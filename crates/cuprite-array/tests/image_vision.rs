//! Vision routines (`image::match_template`, `fast`, `harris`, `susan`, `dog`, the matchers,
//! `homography`, `orb`) against hand-checked images (a white square on black: the detectors
//! find its four corners; a template cut from a random image is found at its offset) and
//! brute-force f64 references written here from the definitions. Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::image::{
    FastOpts, Features, HarrisOpts, HomographyMethod, HomographyOpts, MatchOpts, MatchType,
    MatcherOpts, NnDist, OrbOpts, SusanOpts, dog, fast, fast_with, hamming_matcher,
    hamming_matcher_with, harris, harris_with, homography, homography_with, match_template,
    match_template_with, nearest_neighbour, nearest_neighbour_with, orb, orb_with, susan_with,
};
use cuprite_array::{Array, Device};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

/// A `h x w` black image with a white (255) square of side `n` whose top-left pixel is
/// `(y0, x0)`.
fn square(h: usize, w: usize, y0: usize, x0: usize, n: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; h * w];
    for y in y0..y0 + n {
        for x in x0..x0 + n {
            v[y * w + x] = 255.0;
        }
    }
    v
}

/// The keypoints as sorted `(x, y)` pairs.
fn points(f: &Features) -> Result<Vec<(f32, f32)>, cuprite_array::Error> {
    let mut p: Vec<_> = f.x.to_vec()?.into_iter().zip(f.y.to_vec()?).collect();
    p.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    Ok(p)
}

/// The metric of one window by its definition, in f64.
fn match_ref(img: &[f64], h: usize, w: usize, tpl: &[f64], th: usize, tw: usize) -> Vec<[f64; 9]> {
    let mut out = Vec::with_capacity(h * w);
    for y in 0..h {
        for x in 0..w {
            let win: Vec<f64> = (0..th * tw)
                .map(|k| {
                    let (yy, xx) = (y + k / tw, x + k % tw);
                    if yy < h && xx < w {
                        img[yy * w + xx]
                    } else {
                        0.0
                    }
                })
                .collect();
            let n = (th * tw) as f64;
            let wm = win.iter().sum::<f64>() / n;
            let tm = tpl.iter().sum::<f64>() / n;
            let sc = if tm != 0.0 { wm / tm } else { 0.0 };
            let pairs = win.iter().zip(tpl);
            let sad = pairs.clone().map(|(a, b)| (a - b).abs()).sum();
            let zsad = pairs.clone().map(|(a, b)| (a - wm - b + tm).abs()).sum();
            let lsad = pairs.clone().map(|(a, b)| (a - sc * b).abs()).sum();
            let ssd = pairs.clone().map(|(a, b)| (a - b).powi(2)).sum();
            let zssd = pairs.clone().map(|(a, b)| (a - wm - b + tm).powi(2)).sum();
            let lssd = pairs.clone().map(|(a, b)| (a - sc * b).powi(2)).sum();
            let dot: f64 = pairs.clone().map(|(a, b)| a * b).sum();
            let na: f64 = win.iter().map(|a| a * a).sum();
            let nb: f64 = tpl.iter().map(|b| b * b).sum();
            let ncc = if na * nb > 0.0 {
                dot / (na * nb).sqrt()
            } else {
                0.0
            };
            let zdot: f64 = pairs.clone().map(|(a, b)| (a - wm) * (b - tm)).sum();
            let za: f64 = win.iter().map(|a| (a - wm).powi(2)).sum();
            let zb: f64 = tpl.iter().map(|b| (b - tm).powi(2)).sum();
            let zncc = if za * zb > 0.0 {
                zdot / (za * zb).sqrt()
            } else {
                0.0
            };
            let shd = pairs.filter(|(a, b)| a != b).count() as f64;
            out.push([sad, zsad, lsad, ssd, zssd, lssd, ncc, zncc, shd]);
        }
    }
    out
}

const METHODS: [MatchType; 9] = [
    MatchType::Sad,
    MatchType::Zsad,
    MatchType::Lsad,
    MatchType::Ssd,
    MatchType::Zssd,
    MatchType::Lssd,
    MatchType::Ncc,
    MatchType::Zncc,
    MatchType::Shd,
];

fn match_template_methods(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (b, h, w, th, tw, oy, ox) = (2, 13, 17, 4, 5, 6, 9);
        // Small integers, so that SHD sees equal pixels and SAD at the match is exactly 0.
        let v: Vec<f64> = (0..b * h * w).map(|_| (r.next_u64() % 16) as f64).collect();
        let tpl: Vec<f64> = (0..th * tw)
            .map(|k| v[(oy + k / tw) * w + ox + k % tw])
            .collect();
        let img = Array::from_vec(v.clone(), &[b, h, w])?;
        let ta = Array::from_vec(tpl.clone(), &[th, tw])?;
        let refs: Vec<Vec<[f64; 9]>> = (0..b)
            .map(|i| match_ref(&v[i * h * w..(i + 1) * h * w], h, w, &tpl, th, tw))
            .collect();
        for (m, method) in METHODS.iter().enumerate() {
            let opts = MatchOpts::new().method(*method);
            let got = match_template_with(&img, &ta, opts)?;
            assert_eq!(got.shape(), &[b, h, w]);
            let want: Vec<f64> = refs.iter().flatten().map(|p| p[m]).collect();
            close(
                &got.to_vec()?,
                &want,
                1e-10,
                1e-9,
                &format!("{method:?} f64"),
            )?;
            let got32 = match_template_with(&img.cast::<f32>(), &ta.cast::<f32>(), opts)?;
            let got32: Vec<f64> = got32.to_vec()?.iter().map(|&x| x as f64).collect();
            close(&got32, &want, 1e-4, 1e-3, &format!("{method:?} f32"))?;
        }
        // The template is found at its offset in image 0: SAD 0 at the minimum, ZNCC 1 at the
        // maximum.
        let sad = match_template(&img, &ta)?.to_vec()?;
        let at = oy * w + ox;
        assert_eq!(sad[at], 0.0);
        let best = (0..h * w)
            .min_by(|&i, &j| sad[i].total_cmp(&sad[j]))
            .unwrap_or(0);
        assert_eq!(best, at);
        let z = match_template_with(&img, &ta, MatchOpts::new().method(MatchType::Zncc))?;
        let z = z.to_vec()?;
        assert!((z[at] - 1.0).abs() < 1e-12, "zncc at the match {}", z[at]);
        let best = (0..h * w)
            .max_by(|&i, &j| z[i].total_cmp(&z[j]))
            .unwrap_or(0);
        assert_eq!(best, at);
        Ok(())
    })
}

/// The FAST score of one pixel by the definition: a run of `arc` circle pixels found by
/// trying every start.
fn fast_ref(img: &[f64], w: usize, y: usize, x: usize, thr: f64, arc: usize) -> f64 {
    const C: [(i64, i64); 16] = [
        (0, -3),
        (1, -3),
        (2, -2),
        (3, -1),
        (3, 0),
        (3, 1),
        (2, 2),
        (1, 3),
        (0, 3),
        (-1, 3),
        (-2, 2),
        (-3, 1),
        (-3, 0),
        (-3, -1),
        (-2, -2),
        (-1, -3),
    ];
    let p = img[y * w + x];
    let c: Vec<f64> = C
        .iter()
        .map(|&(dx, dy)| img[(y as i64 + dy) as usize * w + (x as i64 + dx) as usize])
        .collect();
    let run = |f: &dyn Fn(f64) -> bool| (0..16).any(|s| (0..arc).all(|k| f(c[(s + k) % 16])));
    if !run(&|v| v > p + thr) && !run(&|v| v < p - thr) {
        return 0.0;
    }
    let sb: f64 = c
        .iter()
        .filter(|&&v| v > p + thr)
        .map(|v| v - p - thr)
        .sum();
    let sd: f64 = c
        .iter()
        .filter(|&&v| v < p - thr)
        .map(|v| p - v - thr)
        .sum();
    sb.max(sd)
}

/// 3 x 3 maxima of a score map as the detectors define them (ties: the last in row-major
/// order), above `min`, as `(x, y, score)`.
fn peaks_ref(s: &[f64], h: usize, w: usize, min: f64) -> Vec<(usize, usize, f64)> {
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let v = s[y * w + x];
            if v <= min {
                continue;
            }
            let mut ok = true;
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (yy, xx) = (y as i64 + dy, x as i64 + dx);
                    if (dy, dx) == (0, 0) || yy < 0 || xx < 0 || yy >= h as i64 || xx >= w as i64 {
                        continue;
                    }
                    let n = s[yy as usize * w + xx as usize];
                    let before = (dy, dx) < (0, 0);
                    ok &= if before { v >= n } else { v > n };
                }
            }
            if ok {
                out.push((x, y, v));
            }
        }
    }
    out
}

fn fast_square_corners(d: Device) -> TestResult {
    on(d, || {
        let img = Array::from_vec(square(32, 40, 9, 12, 10), &[32, 40])?;
        let f = fast(&img)?;
        assert_eq!(f.len(), 4);
        assert_eq!(
            points(&f)?,
            [(12.0, 9.0), (12.0, 18.0), (21.0, 9.0), (21.0, 18.0)]
        );
        // At a corner 11 of the 16 circle pixels are dark by 255: the score is 11 (255 - 20).
        close(
            &f.score
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect::<Vec<_>>(),
            &[2585.0; 4],
            0.0,
            0.0,
            "fast scores",
        )?;
        assert_eq!(f.size.to_vec()?, [7.0; 4]);
        assert_eq!(f.orientation.to_vec()?, [0.0; 4]);
        // FAST-12 does not take a right angle (11 dark pixels), FAST-9 on f64 does.
        assert!(fast_with(&img, FastOpts::new().arc_length(12))?.is_empty());
        assert_eq!(fast(&img.cast::<f64>())?.len(), 4);
        Ok(())
    })
}

fn fast_random_reference(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (h, w) = (30, 37);
        // Blocks of random gray levels give corners of many kinds.
        let cells: Vec<f64> = (0..64).map(|_| (r.next_u64() % 256) as f64).collect();
        let v: Vec<f64> = (0..h * w)
            .map(|i| cells[(i / w / 5) * 8 + (i % w / 5) % 8] + (r.next_u64() % 5) as f64)
            .collect();
        let img = Array::from_vec(v.clone(), &[h, w])?;
        for (arc, thr, non_max) in [(9, 20.0, true), (10, 10.0, true), (9, 30.0, false)] {
            let mut s = vec![0.0; h * w];
            for y in 3..h - 3 {
                for x in 3..w - 3 {
                    s[y * w + x] = fast_ref(&v, w, y, x, thr, arc);
                }
            }
            let mut want = if non_max {
                peaks_ref(&s, h, w, 0.0)
            } else {
                (0..h * w)
                    .filter(|&i| s[i] > 0.0)
                    .map(|i| (i % w, i / w, s[i]))
                    .collect()
            };
            // Strongest first, ties in row-major order; at most 5% of the pixels.
            want.sort_by(|a, b| b.2.total_cmp(&a.2).then((a.1, a.0).cmp(&(b.1, b.0))));
            want.truncate(h * w / 20);
            let o = FastOpts::new().arc_length(arc).thr(thr).non_max(non_max);
            let f = fast_with(&img, o)?;
            let got: Vec<(usize, usize, f64)> =
                f.x.to_vec()?
                    .iter()
                    .zip(f.y.to_vec()?)
                    .zip(f.score.to_vec()?)
                    .map(|((&x, y), s)| (x as usize, y as usize, s as f64))
                    .collect();
            assert!(!want.is_empty(), "the image has corners for {arc}/{thr}");
            assert_eq!(got, want, "fast arc {arc} thr {thr} non_max {non_max}");
        }
        Ok(())
    })
}

/// The Harris response of every pixel by the definition, in f64 (zero-padded central
/// differences, the normalised window `taps ⊗ taps` over the zero-padded products).
fn harris_ref(v: &[f64], h: usize, w: usize, taps: &[f64], k: f64) -> Vec<f64> {
    let at = |y: i64, x: i64| {
        if y < 0 || x < 0 || y >= h as i64 || x >= w as i64 {
            0.0
        } else {
            v[y as usize * w + x as usize]
        }
    };
    let mut g = vec![[0.0f64; 3]; h * w];
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let ix = (at(y, x + 1) - at(y, x - 1)) / 2.0;
            let iy = (at(y + 1, x) - at(y - 1, x)) / 2.0;
            g[y as usize * w + x as usize] = [ix * ix, iy * iy, ix * iy];
        }
    }
    let r = taps.len() as i64 / 2;
    let b = r as usize + 1;
    let mut out = vec![0.0; h * w];
    for y in b..h - b {
        for x in b..w - b {
            let mut m = [0.0; 3];
            for dy in -r..=r {
                for dx in -r..=r {
                    let t = taps[(dy + r) as usize] * taps[(dx + r) as usize];
                    let p = g[(y as i64 + dy) as usize * w + (x as i64 + dx) as usize];
                    for c in 0..3 {
                        m[c] += t * p[c];
                    }
                }
            }
            out[y * w + x] = m[0] * m[1] - m[2] * m[2] - k * (m[0] + m[1]).powi(2);
        }
    }
    out
}

fn gauss(n: usize, sigma: f64) -> Vec<f64> {
    let c = (n as f64 - 1.0) / 2.0;
    let t: Vec<f64> = (0..n)
        .map(|i| (-((i as f64 - c) / sigma).powi(2) / 2.0).exp())
        .collect();
    let s: f64 = t.iter().sum();
    t.iter().map(|v| v / s).collect()
}

fn harris_square_corners(d: Device) -> TestResult {
    on(d, || {
        let (y0, x0, n) = (10, 12, 12);
        let img = Array::from_vec(square(34, 38, y0, x0, n), &[34, 38])?;
        let f = harris(&img)?;
        assert_eq!(f.len(), 4, "harris corners {:?}", points(&f)?);
        // Each corner within a pixel of a corner of the square (the response peaks half a
        // pixel outside it).
        let corners = [
            (x0 as f32 - 0.5, y0 as f32 - 0.5),
            ((x0 + n) as f32 - 0.5, y0 as f32 - 0.5),
            (x0 as f32 - 0.5, (y0 + n) as f32 - 0.5),
            ((x0 + n) as f32 - 0.5, (y0 + n) as f32 - 0.5),
        ];
        for c in corners {
            let near = points(&f)?
                .iter()
                .filter(|p| (p.0 - c.0).abs() <= 0.5 && (p.1 - c.1).abs() <= 0.5)
                .count();
            assert_eq!(near, 1, "one keypoint at corner {c:?}: {:?}", points(&f)?);
        }
        assert_eq!(f.size.to_vec()?, [7.0; 4]);
        Ok(())
    })
}

/// Whether the reference response `s` decides the test's outcome with a margin `tol`: no
/// candidate corner (a response over `min` and within `tol` of its 8 neighbours' largest)
/// within `tol` of the threshold or of a neighbour over it (the peak test could go either
/// way), and no two of the `keep + 1` strongest peaks within `tol` (their order could swap).
/// Responses computed in another precision differ from the reference by far less than
/// `tol`, so an unambiguous case has one right answer.
fn harris_unambiguous(s: &[f64], h: usize, w: usize, min: f64, keep: usize, tol: f64) -> bool {
    let around = |y: usize, x: usize| {
        let mut n = Vec::with_capacity(8);
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                let (yy, xx) = (y as i64 + dy, x as i64 + dx);
                if (dy, dx) != (0, 0) && yy >= 0 && xx >= 0 && yy < h as i64 && xx < w as i64 {
                    n.push(s[yy as usize * w + xx as usize]);
                }
            }
        }
        n
    };
    for y in 0..h {
        for x in 0..w {
            let v = s[y * w + x];
            let n = around(y, x);
            if v < min - tol || n.iter().any(|&m| m > v + tol) {
                continue;
            }
            if v - min <= tol || n.iter().any(|&m| m > min && (v - m).abs() <= tol) {
                return false;
            }
        }
    }
    let mut peaks: Vec<f64> = peaks_ref(s, h, w, min).iter().map(|p| p.2).collect();
    peaks.sort_by(|a, b| b.total_cmp(a));
    peaks.windows(2).take(keep).all(|p| p[0] - p[1] > tol)
}

fn harris_random_reference(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (h, w, keep) = (28, 33, 10);
        let cases = [
            (HarrisOpts::new(), gauss(7, 1.0)),
            (HarrisOpts::new().block_size(5).k_thr(0.06), vec![0.2; 5]),
        ];
        // 6 x 6 blocks of random grey levels; drawn again (rarely) while two candidate
        // corners tie, since then either answer would be right.
        let mut tries = 0;
        let (v, refs) = loop {
            tries += 1;
            assert!(tries <= 100, "no unambiguous block image in 100 draws");
            let cells: Vec<f64> = (0..64).map(|_| (r.next_u64() % 256) as f64).collect();
            let v: Vec<f64> = (0..h * w)
                .map(|i| cells[(i / w / 6) * 8 + (i % w / 6) % 8])
                .collect();
            let refs: Vec<Vec<f64>> = cases
                .iter()
                .map(|(o, taps)| harris_ref(&v, h, w, taps, o.k_thr))
                .collect();
            let clear = cases.iter().zip(&refs).all(|((o, _), s)| {
                let top = s.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                harris_unambiguous(s, h, w, o.min_response, keep, 1e-5 * top)
            });
            if clear {
                break (v, refs);
            }
        };
        let img = Array::from_vec(v, &[h, w])?;
        for ((opts, _), s) in cases.iter().zip(&refs) {
            let mut want = peaks_ref(s, h, w, opts.min_response);
            want.sort_by(|a, b| b.2.total_cmp(&a.2));
            let f = harris_with(&img, opts.max_corners(keep))?;
            assert_eq!(f.len(), want.len().min(keep), "harris count");
            assert!(f.len() >= 4, "the blocks have corners");
            let got: Vec<(usize, usize)> =
                f.x.to_vec()?
                    .iter()
                    .zip(f.y.to_vec()?)
                    .map(|(&x, y)| (x as usize, y as usize))
                    .collect();
            let wanted: Vec<(usize, usize)> = want.iter().take(keep).map(|p| (p.0, p.1)).collect();
            assert_eq!(got, wanted, "harris strongest corners");
            let ws: Vec<f64> = want.iter().take(keep).map(|p| p.2).collect();
            let gs: Vec<f64> = f.score.to_vec()?.iter().map(|&v| v as f64).collect();
            close(&gs, &ws, 1e-4, 1.0, "harris responses")?;
        }
        Ok(())
    })
}

fn susan_square_corners(d: Device) -> TestResult {
    on(d, || {
        let img = Array::from_vec(square(30, 30, 8, 9, 11), &[30, 30])?;
        let f = susan_with(&img, SusanOpts::new().geom_thr(18.5))?;
        assert_eq!(
            points(&f)?,
            [(9.0, 8.0), (9.0, 18.0), (19.0, 8.0), (19.0, 18.0)]
        );
        // A right angle: 11 of the 37 disc pixels are similar (the rest differ by 255, with
        // weight exp(-(255/32)^6), 0 in f32).
        close(
            &f.score
                .to_vec()?
                .iter()
                .map(|&v| v as f64)
                .collect::<Vec<_>>(),
            &[7.5; 4],
            1e-6,
            0.0,
            "susan responses",
        )?;
        // With the default g = 10 a right angle (area 11) is no corner.
        assert!(susan_with(&img, SusanOpts::new())?.is_empty());
        Ok(())
    })
}

fn dog_reference(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (b, h, w) = (2, 11, 14);
        let v: Vec<f64> = r
            .vec_f32(b * h * w, 0.0, 1.0)
            .iter()
            .map(|&x| x as f64)
            .collect();
        let img = Array::from_vec(v.clone(), &[b, h, w])?;
        let (r1, r2) = (1, 3);
        let blur = |rad: usize| -> Vec<f64> {
            let n = 2 * rad + 1;
            let g = gauss(n, 0.25 * n as f64 + 0.75);
            let mut out = vec![0.0; b * h * w];
            for i in 0..b {
                for y in 0..h as i64 {
                    for x in 0..w as i64 {
                        let mut acc = 0.0;
                        for u in 0..n as i64 {
                            for t in 0..n as i64 {
                                let (yy, xx) = (y + u - rad as i64, x + t - rad as i64);
                                if yy >= 0 && xx >= 0 && yy < h as i64 && xx < w as i64 {
                                    acc += g[u as usize]
                                        * g[t as usize]
                                        * v[i * h * w + yy as usize * w + xx as usize];
                                }
                            }
                        }
                        out[i * h * w + y as usize * w + x as usize] = acc;
                    }
                }
            }
            out
        };
        let want: Vec<f64> = blur(r1).iter().zip(blur(r2)).map(|(a, b)| a - b).collect();
        let got = dog(&img, r1, r2)?;
        assert_eq!(got.shape(), &[b, h, w]);
        close(&got.to_vec()?, &want, 1e-12, 1e-12, "dog")?;
        // A Gaussian wider than the image: its taps past the image read only zeros.
        let (r1, r2) = (2, 20);
        let want: Vec<f64> = blur(r1).iter().zip(blur(r2)).map(|(a, b)| a - b).collect();
        close(
            &dog(&img, r1, r2)?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "dog wide",
        )?;
        Ok(())
    })
}

fn vision_bad_input(d: Device) -> TestResult {
    on(d, || {
        let img = Array::<f32>::zeros(&[16, 16]);
        assert_err(
            fast(&Array::<f32>::zeros(&[2, 16, 16])),
            "Shape",
            "[2, 16, 16]",
        );
        assert_err(
            fast_with(&img, FastOpts::new().arc_length(8)),
            "InvalidArgument",
            "8",
        );
        assert_err(
            fast_with(&img, FastOpts::new().thr(-1.0)),
            "InvalidArgument",
            "-1",
        );
        assert_err(
            fast_with(&img, FastOpts::new().edge(2)),
            "InvalidArgument",
            "edge 2",
        );
        assert_err(
            fast_with(&img, FastOpts::new().feature_ratio(1.5)),
            "InvalidArgument",
            "1.5",
        );
        assert_err(harris(&Array::<f32>::zeros(&[16])), "Shape", "[16]");
        assert_err(
            harris_with(&img, HarrisOpts::new().sigma(7.0)),
            "InvalidArgument",
            "7",
        );
        assert_err(
            harris_with(&img, HarrisOpts::new().block_size(2)),
            "InvalidArgument",
            "block_size 2",
        );
        assert_err(
            susan_with(&img, SusanOpts::new().radius(11)),
            "InvalidArgument",
            "11",
        );
        assert_err(
            susan_with(&img, SusanOpts::new().diff_thr(0.0)),
            "InvalidArgument",
            "diff_thr 0",
        );
        assert_err(dog(&img, 3, 2), "InvalidArgument", "radius1 3");
        assert_err(
            dog(&img, 1, usize::MAX),
            "InvalidArgument",
            &format!("radius2 {}", usize::MAX),
        );
        assert_err(dog(&img, 1, 1 << 24), "InvalidArgument", "radius2 16777216");
        // An edge that leaves no pixel to test gives no keypoints, however large.
        let mut px = vec![0.0f32; 16 * 16];
        for y in 4..12 {
            for x in 4..12 {
                px[y * 16 + x] = 255.0;
            }
        }
        let sq = Array::from_vec(px, &[16, 16])?;
        assert_eq!(fast_with(&sq, FastOpts::new().edge(4))?.len(), 4);
        assert_eq!(
            susan_with(&sq, SusanOpts::new().geom_thr(18.5).edge(4))?.len(),
            4
        );
        // The pyramid ends at its first level below 33 pixels a side, however many are asked
        // for; a factor so near 1 that more than 1024 levels would be kept is an Err.
        let big = Array::<f32>::zeros(&[40, 40]);
        let (f, d) = orb_with(&big, OrbOpts::new().levels(usize::MAX))?;
        assert!(f.is_empty() && d.shape() == [0, 8]);
        assert_err(
            orb_with(&big, OrbOpts::new().scl_fctr(1.0 + 1e-9).levels(usize::MAX)),
            "InvalidArgument",
            &format!("levels {}", usize::MAX),
        );
        for edge in [8, 9, 1 << 40, (1 << 63) + 1, usize::MAX] {
            assert!(fast_with(&sq, FastOpts::new().edge(edge))?.is_empty());
            assert!(susan_with(&sq, SusanOpts::new().edge(edge))?.is_empty());
        }
        assert_err(
            match_template(&img, &Array::<f32>::zeros(&[17, 2])),
            "Shape",
            "17x2",
        );
        assert_err(
            match_template(&img, &Array::<f32>::zeros(&[2, 2, 2])),
            "Shape",
            "[2, 2, 2]",
        );
        Ok(())
    })
}

/// The `k` nearest of each query by brute force: `(index, distance)` sorted by distance, ties
/// by index.
fn knn_ref(dist: &[Vec<f64>], k: usize) -> Vec<Vec<(u32, f64)>> {
    dist.iter()
        .map(|row| {
            let mut v: Vec<(u32, f64)> = row
                .iter()
                .enumerate()
                .map(|(i, &d)| (i as u32, d))
                .collect();
            v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            v.truncate(k);
            v
        })
        .collect()
}

fn hamming_reference(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (nq, nt, len) = (23, 41, 8);
        let t: Vec<u32> = (0..nt * len).map(|_| r.next_u64() as u32).collect();
        // Queries near train descriptors (a few flipped bits), and one exact duplicate pair of
        // train rows so that ties occur.
        let mut t = t;
        let (a, b) = (5 * len, 17 * len);
        let row: Vec<u32> = t[a..a + len].to_vec();
        t[b..b + len].copy_from_slice(&row);
        let q: Vec<u32> = (0..nq * len)
            .map(|i| {
                let src = (i / len * 7) % nt;
                t[src * len + i % len] ^ ((1u32 << (r.next_u64() % 32)) * (r.next_u64() % 2) as u32)
            })
            .collect();
        let dist: Vec<Vec<f64>> = (0..nq)
            .map(|i| {
                (0..nt)
                    .map(|j| {
                        (0..len)
                            .map(|k| (q[i * len + k] ^ t[j * len + k]).count_ones() as f64)
                            .sum()
                    })
                    .collect()
            })
            .collect();
        let qa = Array::from_vec(q.clone(), &[nq, len])?;
        let ta = Array::from_vec(t.clone(), &[nt, len])?;
        for k in [1usize, 3] {
            let want = knn_ref(&dist, k);
            let (idx, dd) = hamming_matcher_with(&qa, &ta, MatcherOpts::new().n_dist(k))?;
            assert_eq!(idx.shape(), &[nq, k]);
            let wi: Vec<u32> = want.iter().flatten().map(|p| p.0).collect();
            let wd: Vec<u32> = want.iter().flatten().map(|p| p.1 as u32).collect();
            assert_eq!(idx.to_vec()?, wi, "hamming indices k={k}");
            assert_eq!(dd.to_vec()?, wd, "hamming distances k={k}");
        }
        // u8 words: the same bits as bytes give the same distances.
        let qb: Vec<u8> = q.iter().flat_map(|w| w.to_le_bytes()).collect();
        let tb: Vec<u8> = t.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (_, dd) = hamming_matcher(
            &Array::from_vec(qb, &[nq, 4 * len])?,
            &Array::from_vec(tb, &[nt, 4 * len])?,
        )?;
        let wd: Vec<u32> = knn_ref(&dist, 1)
            .iter()
            .flatten()
            .map(|p| p.1 as u32)
            .collect();
        assert_eq!(dd.to_vec()?, wd, "hamming on bytes");
        Ok(())
    })
}

fn nearest_neighbour_reference(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (nq, nt, len) = (17, 29, 6);
        let q: Vec<f64> = (0..nq * len).map(|_| (r.next_u64() % 7) as f64).collect();
        let t: Vec<f64> = (0..nt * len).map(|_| (r.next_u64() % 7) as f64).collect();
        let qa = Array::from_vec(q.clone(), &[nq, len])?;
        let ta = Array::from_vec(t.clone(), &[nt, len])?;
        for (dt, f) in [
            (
                NnDist::Ssd,
                (|a: f64, b: f64| (a - b) * (a - b)) as fn(f64, f64) -> f64,
            ),
            (NnDist::Sad, |a: f64, b: f64| (a - b).abs()),
            (NnDist::Shd, |a: f64, b: f64| if a != b { 1.0 } else { 0.0 }),
        ] {
            let dist: Vec<Vec<f64>> = (0..nq)
                .map(|i| {
                    (0..nt)
                        .map(|j| (0..len).map(|k| f(q[i * len + k], t[j * len + k])).sum())
                        .collect()
                })
                .collect();
            for k in [1usize, 4] {
                let want = knn_ref(&dist, k);
                let o = MatcherOpts::new().n_dist(k).dist_type(dt);
                let (idx, dd) = nearest_neighbour_with(&qa, &ta, o)?;
                let wi: Vec<u32> = want.iter().flatten().map(|p| p.0).collect();
                let wd: Vec<f64> = want.iter().flatten().map(|p| p.1).collect();
                assert_eq!(idx.to_vec()?, wi, "{dt:?} indices k={k}");
                close(
                    &dd.to_vec()?,
                    &wd,
                    0.0,
                    0.0,
                    &format!("{dt:?} distances k={k}"),
                )?;
            }
        }
        let (idx, _) = nearest_neighbour(&qa.cast::<f32>(), &ta.cast::<f32>())?;
        assert_eq!(idx.shape(), &[nq, 1]);
        Ok(())
    })
}

fn homography_recovers(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let h = [[1.1, 0.05, 3.0], [-0.04, 0.95, -2.0], [1e-4, -2e-4, 1.0]];
        let n = 60;
        let xs: Vec<f64> = (0..n).map(|_| r.f32_in(0.0, 100.0) as f64).collect();
        let ys: Vec<f64> = (0..n).map(|_| r.f32_in(0.0, 100.0) as f64).collect();
        let mut xd = Vec::new();
        let mut yd = Vec::new();
        for i in 0..n {
            let z = h[2][0] * xs[i] + h[2][1] * ys[i] + h[2][2];
            xd.push((h[0][0] * xs[i] + h[0][1] * ys[i] + h[0][2]) / z);
            yd.push((h[1][0] * xs[i] + h[1][1] * ys[i] + h[1][2]) / z);
        }
        // A quarter of the correspondences are wrong by 20 to 50 pixels.
        for i in (0..n).step_by(4) {
            xd[i] += r.f32_in(20.0, 50.0) as f64;
            yd[i] -= r.f32_in(20.0, 50.0) as f64;
        }
        let a = |v: &Vec<f64>| Array::from_vec(v.clone(), &[n]);
        let (xs_a, ys_a, xd_a, yd_a) = (a(&xs)?, a(&ys)?, a(&xd)?, a(&yd)?);
        let want: Vec<f64> = h.iter().flatten().copied().collect();
        let (got, inl) = homography(&xs_a, &ys_a, &xd_a, &yd_a)?;
        assert_eq!(inl, n - n / 4, "ransac inliers");
        close(&got.to_vec()?, &want, 1e-7, 1e-9, "ransac H")?;
        let o = HomographyOpts::new().method(HomographyMethod::Lmeds);
        let (got, inl) = homography_with(&xs_a, &ys_a, &xd_a, &yd_a, o)?;
        assert_eq!(inl, n - n / 4, "lmeds inliers");
        close(&got.to_vec()?, &want, 1e-7, 1e-9, "lmeds H")?;
        // f32 coordinates within f32 rounding.
        let (got, inl) = homography(
            &xs_a.cast::<f32>(),
            &ys_a.cast::<f32>(),
            &xd_a.cast::<f32>(),
            &yd_a.cast::<f32>(),
        )?;
        assert_eq!(inl, n - n / 4);
        let got: Vec<f64> = got.to_vec()?.iter().map(|&v| v as f64).collect();
        close(&got, &want, 1e-3, 1e-5, "ransac H f32")?;
        // Bad input.
        assert_err(
            homography(&xs_a, &ys_a, &xd_a, &Array::<f64>::zeros(&[3])),
            "Shape",
            "[3]",
        );
        assert_err(
            homography_with(
                &xs_a,
                &ys_a,
                &xd_a,
                &yd_a,
                HomographyOpts::new().inlier_thr(0.0),
            ),
            "InvalidArgument",
            "inlier_thr 0",
        );
        let line = Array::from_vec((0..8).map(|v| v as f64).collect(), &[8])?;
        assert_err(
            homography(&line, &line, &line, &line),
            "Singular",
            "degenerate",
        );
        Ok(())
    })
}

fn orb_square_orientations(d: Device) -> TestResult {
    on(d, || {
        let (y0, x0, n) = (36, 38, 24);
        let img = Array::from_vec(square(96, 100, y0, x0, n), &[96, 100])?;
        let (f, desc) = orb_with(&img, OrbOpts::new().levels(1))?;
        assert_eq!(desc.shape(), &[4, 8]);
        let (x1, y1) = ((x0 + n - 1) as f32, (y0 + n - 1) as f32);
        let (x0, y0) = (x0 as f32, y0 as f32);
        // The intensity centroid of a corner's disc lies on the diagonal into the square.
        let pi = std::f64::consts::PI;
        let want = [
            ((x0, y0), pi / 4.0),
            ((x1, y0), 3.0 * pi / 4.0),
            ((x0, y1), -pi / 4.0),
            ((x1, y1), -3.0 * pi / 4.0),
        ];
        let (xs, ys, ang) = (f.x.to_vec()?, f.y.to_vec()?, f.orientation.to_vec()?);
        assert_eq!(xs.len(), 4);
        for ((x, y), a) in want {
            let i = (0..4)
                .find(|&i| xs[i] == x && ys[i] == y)
                .ok_or(format!("no orb keypoint at ({x}, {y}): {xs:?} {ys:?}"))?;
            close(&[ang[i] as f64], &[a], 1e-6, 1e-6, "orb orientation")?;
        }
        assert!(
            f.score.to_vec()?.iter().all(|&s| s > 0.0),
            "harris ranks corners"
        );
        assert_eq!(f.size.to_vec()?, [31.0; 4]);
        // The default pyramid finds the square at more than one scale.
        let (f, desc) = orb(&img)?;
        assert!(f.len() > 4 && desc.shape() == [f.len(), 8]);
        assert!(f.size.to_vec()?.contains(&46.5));
        assert_err(
            orb_with(&img, OrbOpts::new().scl_fctr(0.5)),
            "InvalidArgument",
            "0.5",
        );
        assert_err(
            orb(&Array::<f32>::zeros(&[3, 40, 40])),
            "Shape",
            "[3, 40, 40]",
        );
        Ok(())
    })
}

/// A quarter turn of the image turns the keypoints and leaves their descriptors: the pattern
/// is rotated by the orientation, which turns with the image.
fn orb_rotation_invariance(d: Device) -> TestResult {
    on(d, || {
        let mut r = Rng::fresh();
        let (h, w) = (90, 100);
        let cells: Vec<f32> = (0..100).map(|_| (r.next_u64() % 256) as f32).collect();
        let v: Vec<f32> = (0..h * w)
            .map(|i| cells[(i / w / 9) * 10 + (i % w / 10) % 10] + (r.next_u64() % 5) as f32)
            .collect();
        // rot[y'][x'] = v[x'][w - 1 - y'], an image of w rows and h columns.
        let rot: Vec<f32> = (0..w * h)
            .map(|i| {
                let (yp, xp) = (i / h, i % h);
                v[xp * w + (w - 1 - yp)]
            })
            .collect();
        let o = OrbOpts::new().levels(1).max_feat(1000);
        let (f, da) = orb_with(&Array::from_vec(v, &[h, w])?, o)?;
        let (g, db) = orb_with(&Array::from_vec(rot, &[w, h])?, o)?;
        assert!(f.len() >= 20, "orb keypoints on the blocks: {}", f.len());
        let (fx, fy) = (f.x.to_vec()?, f.y.to_vec()?);
        let (gx, gy) = (g.x.to_vec()?, g.y.to_vec()?);
        let (da, db) = (da.to_vec()?, db.to_vec()?);
        let mut good = 0;
        for i in 0..f.len() {
            // (x, y) turns to (y, w - 1 - x).
            let (tx, ty) = (fy[i], (w - 1) as f32 - fx[i]);
            if let Some(j) = (0..g.len()).find(|&j| gx[j] == tx && gy[j] == ty) {
                let dist: u32 = (0..8)
                    .map(|k| (da[i * 8 + k] ^ db[j * 8 + k]).count_ones())
                    .sum();
                if dist <= 4 {
                    good += 1;
                }
            }
        }
        assert!(
            good * 10 >= f.len() * 9,
            "{good} of {} keypoints turned with the same descriptor",
            f.len()
        );
        Ok(())
    })
}

/// Every vision kernel the bodies would launch on CUDA compiles with NVRTC (recorded on the
/// CPU), each on its own, with the library's options.
fn kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    match_template_methods(Device::CPU)?;
    fast_square_corners(Device::CPU)?;
    susan_square_corners(Device::CPU)?;
    orb_square_orientations(Device::CPU)?;
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| s.contains("cuprite_vision_") || s.contains("cuprite_orb_"))
        .collect();
    for name in [
        "cuprite_vision_match_f32",
        "cuprite_vision_match_f64",
        "cuprite_vision_fast_f32",
        "cuprite_vision_fast_f64",
        "cuprite_vision_susan_f32",
        "cuprite_orb_angle_f32",
        "cuprite_orb_desc_f32",
    ] {
        assert!(
            sources.iter().any(|s| s.contains(name)),
            "no kernel {name} recorded"
        );
    }
    let opts = cuprite_array::tuning::compiler::compile_options(90, true);
    for src in &sources {
        if let Err(e) = cuprite_driver::nvrtc::compile(src, &opts) {
            return Err(format!("vision kernel failed to compile: {e}\n{src}").into());
        }
    }
    Ok(())
}

const BODIES: &[(&str, Body)] = &[
    ("match_template_methods", match_template_methods),
    ("fast_square_corners", fast_square_corners),
    ("fast_random_reference", fast_random_reference),
    ("harris_square_corners", harris_square_corners),
    ("harris_random_reference", harris_random_reference),
    ("susan_square_corners", susan_square_corners),
    ("dog_reference", dog_reference),
    ("vision_bad_input", vision_bad_input),
    ("hamming_reference", hamming_reference),
    ("nearest_neighbour_reference", nearest_neighbour_reference),
    ("homography_recovers", homography_recovers),
    ("orb_square_orientations", orb_square_orientations),
    ("orb_rotation_invariance", orb_rotation_invariance),
];

pub fn tests() -> Vec<Test> {
    let mut v = vec![Test::nvrtc(
        "image_vision::kernels_compile",
        kernels_compile,
    )];
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::image_vision::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(
            format!("cuda::image_vision::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
