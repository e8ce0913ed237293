//! Image files (`image::load_image` / `save_image`): small random images written to a temporary
//! folder in each format, bit depth and channel count, read back and compared pixel by pixel
//! with what was written; JPEG (lossy) within a bound of the original; bad files and bad
//! arrays an `Err` naming the file and the reason.

use crate::common::assert_err;
use cuprite_array::Array;
use cuprite_array::image::{
    ImageFileOpts, ImageLayout, load_image, load_image_with, save_image, save_image_with,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::path::PathBuf;

/// A fresh temporary folder of this test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let mut r = Rng::fresh();
        let p = std::env::temp_dir().join(format!(
            "cuprite-image-io-{tag}-{}-{:x}",
            std::process::id(),
            r.next_u64()
        ));
        std::fs::create_dir_all(&p).expect("temporary folder");
        TempDir(p)
    }
    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

fn random_u8(r: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| r.next_u64() as u8).collect()
}

fn random_u16(r: &mut Rng, n: usize) -> Vec<u16> {
    (0..n).map(|_| r.next_u64() as u16).collect()
}

/// Lossless formats round-trip every sample exactly, for 8 and 16 bits and 1 to 4 channels.
fn lossless_round_trip() -> TestResult {
    let dir = TempDir::new("lossless");
    let mut r = Rng::fresh();
    let (h, w) = (5, 7);
    for ext in ["png", "tif", "TIFF"] {
        for c in 1..=4usize {
            if c == 2 && ext != "png" {
                continue;
            }
            let p8 = dir.file(&format!("a{c}.{ext}"));
            let v8 = random_u8(&mut r, h * w * c);
            save_image(&Array::from_vec(v8.clone(), &[h, w, c])?, &p8)?;
            let back = load_image::<u8>(&p8)?;
            assert_eq!(back.shape(), &[h, w, c], "{ext} {c} channels 8-bit");
            assert_eq!(back.to_vec()?, v8, "{ext} {c} channels 8-bit");

            let p16 = dir.file(&format!("b{c}.{ext}"));
            let v16 = random_u16(&mut r, h * w * c);
            save_image(&Array::from_vec(v16.clone(), &[h, w, c])?, &p16)?;
            let back = load_image::<u16>(&p16)?;
            assert_eq!(back.shape(), &[h, w, c], "{ext} {c} channels 16-bit");
            assert_eq!(back.to_vec()?, v16, "{ext} {c} channels 16-bit");
        }
    }
    // A 2-D array is a gray image, read back with one channel.
    let p = dir.file("gray.png");
    let v = random_u8(&mut r, h * w);
    save_image(&Array::from_vec(v.clone(), &[h, w])?, &p)?;
    let back = load_image::<u8>(&p)?;
    assert_eq!(back.shape(), &[h, w, 1]);
    assert_eq!(back.to_vec()?, v);
    Ok(())
}

/// CHW on both sides: the sample at `[c, y, x]` of the array is channel `c` of pixel `(y, x)`
/// of the file.
fn chw_layout() -> TestResult {
    let dir = TempDir::new("chw");
    let mut r = Rng::fresh();
    let (c, h, w) = (3, 4, 6);
    let v = random_u16(&mut r, c * h * w);
    let chw = Array::from_vec(v.clone(), &[c, h, w])?;
    let p = dir.file("chw.png");
    let opts = ImageFileOpts::new().layout(ImageLayout::Chw);
    save_image_with(&chw, &p, opts)?;
    let hwc = load_image::<u16>(&p)?.to_vec()?;
    for ci in 0..c {
        for y in 0..h {
            for x in 0..w {
                assert_eq!(hwc[(y * w + x) * c + ci], v[(ci * h + y) * w + x]);
            }
        }
    }
    let back = load_image_with::<u16>(&p, opts)?;
    assert_eq!(back.shape(), &[c, h, w]);
    assert_eq!(back.to_vec()?, v);
    Ok(())
}

/// JPEG: a smooth 8-bit image comes back within a small error at quality 95 (the codec is
/// lossy), gray and RGB.
fn jpeg_round_trip() -> TestResult {
    let dir = TempDir::new("jpeg");
    let (h, w) = (16, 24);
    for c in [1usize, 3] {
        let v: Vec<u8> = (0..h * w * c)
            .map(|i| {
                let (y, x, k) = (i / (w * c), (i / c) % w, i % c);
                (40 + 4 * y + 3 * x + 20 * k) as u8
            })
            .collect();
        let p = dir.file(&format!("smooth{c}.jpg"));
        save_image_with(
            &Array::from_vec(v.clone(), &[h, w, c])?,
            &p,
            ImageFileOpts::new().quality(95),
        )?;
        let back = load_image::<u8>(&p)?;
        assert_eq!(back.shape(), &[h, w, c]);
        let got = back.to_vec()?;
        let worst = got
            .iter()
            .zip(&v)
            .map(|(&a, &b)| (a as i32 - b as i32).abs())
            .max()
            .unwrap_or(0);
        let mean = got
            .iter()
            .zip(&v)
            .map(|(&a, &b)| (a as f64 - b as f64).abs())
            .sum::<f64>()
            / v.len() as f64;
        assert!(
            worst <= 12 && mean < 2.0,
            "jpeg {c} channels: worst {worst}, mean {mean}"
        );
    }
    Ok(())
}

/// Bad files and bad arrays: each an `Err` naming the file and the reason.
fn bad_files() -> TestResult {
    let dir = TempDir::new("bad");
    let missing = dir.file("nothing-here.png");
    assert_err(load_image::<u8>(&missing), "Io", "nothing-here.png");
    assert_err(load_image::<u8>(&missing), "Io", "cannot open");

    let text = dir.file("notes.txt");
    std::fs::write(&text, b"just some words, no pixels")?;
    assert_err(load_image::<u8>(&text), "Io", "unknown format");

    // A PNG cut after half its bytes.
    let good = dir.file("good.png");
    let mut r = Rng::fresh();
    save_image(
        &Array::from_vec(random_u8(&mut r, 32 * 32 * 3), &[32, 32, 3])?,
        &good,
    )?;
    let bytes = std::fs::read(&good)?;
    let cut = dir.file("cut.png");
    std::fs::write(&cut, &bytes[..bytes.len() / 2])?;
    assert_err(load_image::<u8>(&cut), "Io", "cut.png");
    assert_err(load_image::<u8>(&cut), "Io", "truncated or corrupt");

    // An 8-bit file asked for as 16-bit, and the reverse.
    assert_err(load_image::<u16>(&good), "Io", "unsupported bit depth");
    let g16 = dir.file("g16.tif");
    save_image(&Array::from_vec(vec![1u16, 2, 3, 4], &[2, 2])?, &g16)?;
    assert_err(load_image::<u8>(&g16), "Io", "16-bit");

    let img = Array::from_vec(random_u8(&mut r, 12), &[2, 2, 3])?;
    assert_err(save_image(&img, dir.file("x.bmp")), "Io", "\"bmp\"");
    assert_err(
        save_image(
            &Array::from_vec(vec![0u16; 12], &[2, 2, 3])?,
            dir.file("x.jpg"),
        ),
        "Io",
        "16-bit",
    );
    assert_err(
        save_image(
            &Array::from_vec(vec![0u8; 20], &[1, 4, 5])?,
            dir.file("x.png"),
        ),
        "Io",
        "5 channels",
    );
    assert_err(
        save_image(
            &Array::from_vec(vec![0u8; 8], &[2, 2, 2])?,
            dir.file("x.tif"),
        ),
        "Io",
        "gray-and-alpha",
    );
    assert_err(
        save_image(&Array::from_vec(vec![0u8; 8], &[8])?, dir.file("x.png")),
        "Io",
        "[8]",
    );
    assert_err(
        save_image_with(&img, dir.file("q.jpg"), ImageFileOpts::new().quality(0)),
        "Io",
        "quality 0",
    );
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("cpu::image_io::lossless_round_trip", lossless_round_trip),
        Test::cpu("cpu::image_io::chw_layout", chw_layout),
        Test::cpu("cpu::image_io::jpeg_round_trip", jpeg_round_trip),
        Test::cpu("cpu::image_io::bad_files", bad_files),
    ]
}
