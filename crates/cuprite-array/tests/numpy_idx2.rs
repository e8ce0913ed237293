//! NumPy's text and binary I/O, float formatting, dtype routines and the completed partial
//! routines (`gradient`, `linspace`, `unique` along an axis, `broadcast`), against host
//! references written here, Rust's own shortest float formatting, or values published in
//! NumPy's documentation. Bodies run on every backend.

#![allow(clippy::needless_range_loop)]

use crate::common::{Body, assert_err, close};
use cuprite_array::io::{self, FloatFormat, LoadTxt, SaveTxt, TrimMode};
use cuprite_array::ops::{self, Casting, LinspaceOpts, Spacing};
use cuprite_array::{Array, DType, Device};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn text_io(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let x: Vec<f64> = rng
            .vec_f32(12, -1e3, 1e3)
            .into_iter()
            .map(|v| v as f64 / 7.0)
            .collect();
        let a = Array::from_slice(&x, &[4, 3])?;
        // savetxt's default %.18e round-trips doubles through loadtxt exactly.
        let mut buf = Vec::new();
        let o = SaveTxt {
            header: "h1\nh2".into(),
            footer: "end".into(),
            ..Default::default()
        };
        io::savetxt(&mut buf, &a, &o)?;
        let text = String::from_utf8(buf)?;
        assert!(text.starts_with("# h1\n# h2\n") && text.ends_with("# end\n"));
        let first = text.lines().nth(2).unwrap_or("");
        assert_eq!(first.split(' ').count(), 3);
        // C's %.18e: Rust's exact digits with a signed exponent of at least two digits.
        let r = format!("{:.18e}", x[0]);
        let (m, e) = r.split_once('e').unwrap_or((&r, "0"));
        let e: i32 = e.parse()?;
        let want = format!(
            "{m}e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        );
        assert_eq!(first.split(' ').next(), Some(want.as_str()));
        let b = io::loadtxt::<f64>(text.as_bytes(), &LoadTxt::default())?;
        assert_eq!((b.shape(), b.to_vec()?), (&[4, 3][..], x.clone()));
        // printf conversions against hand-written expectations.
        let v = Array::from_slice(&[3.0f64, -0.5, 1234.5678], &[1, 3])?;
        let mut out = Vec::new();
        io::savetxt(
            &mut out,
            &v,
            &SaveTxt {
                fmt: "%d|%+.2e|%10.3g".into(),
                ..Default::default()
            },
        )?;
        assert_eq!(String::from_utf8(out)?, "3|-5.00e-01|  1.23e+03\n");
        let mut out = Vec::new();
        let iv = Array::from_slice(&[7i32, -12], &[2])?;
        io::savetxt(
            &mut out,
            &iv,
            &SaveTxt {
                fmt: "%05d".into(),
                ..Default::default()
            },
        )?;
        assert_eq!(String::from_utf8(out)?, "00007\n-0012\n");
        // Widths and precisions above 10000 (or past usize) are refused before any padding.
        for fmt in [
            "%99999999999999999999999d",
            "%.18446744073709551616f",
            "%10001d",
            "%.10001e",
            "%1.99999999999g",
        ] {
            let o = SaveTxt {
                fmt: fmt.into(),
                ..Default::default()
            };
            assert_err(io::savetxt(Vec::new(), &iv, &o), "InvalidArgument", fmt);
        }
        let mut out = Vec::new();
        let o = SaveTxt {
            fmt: "%10000.0f".into(),
            ..Default::default()
        };
        io::savetxt(&mut out, &Array::from_slice(&[1.0f64], &[1])?, &o)?;
        assert_eq!(out.len(), 10001);
        assert_err(
            io::savetxt(
                Vec::new(),
                &Array::<f32>::zeros(&[2, 2, 2]),
                &SaveTxt::default(),
            ),
            "Shape",
            "[2, 2, 2]",
        );
        // loadtxt options: skiprows, usecols, max_rows, ndmin, unpack; bad rows named.
        let t = "skip me\n1;2;3\n4;5;6\n7;8;9\n";
        let o = LoadTxt {
            delimiter: Some(";".into()),
            skiprows: 1,
            usecols: Some(vec![2, 0]),
            max_rows: Some(2),
            unpack: true,
            ..Default::default()
        };
        let l = io::loadtxt::<i64>(t.as_bytes(), &o)?;
        assert_eq!((l.shape(), l.to_vec()?), (&[2, 2][..], vec![3, 6, 1, 4]));
        let one = io::loadtxt::<u8>("42".as_bytes(), &LoadTxt::default())?;
        assert_eq!(one.shape(), &[] as &[usize]);
        let col = io::loadtxt::<u8>(
            "1\n2\n".as_bytes(),
            &LoadTxt {
                ndmin: 2,
                ..Default::default()
            },
        )?;
        assert_eq!(col.shape(), &[2, 1]);
        assert_err(
            io::loadtxt::<f32>("1 2\n3\n".as_bytes(), &LoadTxt::default()),
            "Io",
            "line 2",
        );
        assert_err(
            io::loadtxt::<u8>("1 300\n".as_bytes(), &LoadTxt::default()),
            "Io",
            "\"300\"",
        );
        let c =
            io::loadtxt::<cuprite_array::c64>("(1+2j) -3.5j\n".as_bytes(), &LoadTxt::default())?
                .to_vec()?;
        assert_eq!((c[0].re, c[0].im, c[1].re, c[1].im), (1.0, 2.0, 0.0, -3.5));
        // quotes, converters, rows skipped with invalid_raise off.
        let o = LoadTxt {
            delimiter: Some(",".into()),
            quotechar: Some('\''),
            ..Default::default()
        };
        let conv = |c: usize, f: &str| (c == 0).then_some(f.len() as f64);
        let q = io::loadtxt_with::<f64>("'a,b',2 # c\n'it''s',3\n".as_bytes(), &o, conv)?;
        assert_eq!(q.to_vec()?, [3.0, 2.0, 4.0, 3.0]);
        let o = LoadTxt {
            invalid_raise: false,
            ..Default::default()
        };
        assert_eq!(
            io::genfromtxt::<f32>("1 2\n3\n4 5".as_bytes(), &o, &[], 0.0)?.to_vec()?,
            [1.0, 2.0, 4.0, 5.0]
        );
        // genfromtxt fills missing fields.
        let o = LoadTxt {
            delimiter: Some(",".into()),
            skip_footer: 1,
            ..Default::default()
        };
        let g = io::genfromtxt::<i32>("1,,3\n,5,x\nfooter".as_bytes(), &o, &["x"], -1)?;
        assert_eq!(g.to_vec()?, [1, -1, 3, -1, 5, -1]);
        Ok(())
    })
}

/// Whether `got` is NumPy's choice where Rust's shortest digits `want` differ: both the same
/// length, and the value an exact tie between them, which NumPy rounds to the even digit.
fn tie_to_even(x: f64, got: &str, want: &str) -> bool {
    let digits = |m: &str| m.replace(['.', '-'], "");
    let (g, w) = (digits(got), digits(want));
    if g.len() != w.len() || g == w {
        return g == w;
    }
    let exact = format!("{:.*e}", g.len() + 30, x.abs());
    let tail: String = exact
        .replace(['.', '-'], "")
        .chars()
        .skip(g.len())
        .take(31)
        .collect();
    let even = g.bytes().last().is_some_and(|b| (b - b'0') % 2 == 0);
    tail.starts_with('5') && tail[1..].bytes().all(|b| b == b'0') && even
}

fn binary_io(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        let x: Vec<f64> = rng
            .vec_f32(12, -1e3, 1e3)
            .into_iter()
            .map(|v| v as f64 / 7.0)
            .collect();
        let a = Array::from_slice(&x, &[4, 3])?;
        // fromstring / frombuffer / fromfile / tofile.
        let s = io::fromstring::<f64>(" 1.5 ,-2, 1e3 ", ",", None)?;
        assert_eq!(s.to_vec()?, [1.5, -2.0, 1000.0]);
        let raw: Vec<u8> = (0..64).map(|_| rng.next_u64() as u8).collect();
        let fb = io::frombuffer::<u32>(&raw, Some(3), 4)?.to_vec()?;
        for k in 0..3 {
            let p = 4 + 4 * k;
            assert_eq!(
                fb[k],
                u32::from_le_bytes([raw[p], raw[p + 1], raw[p + 2], raw[p + 3]])
            );
        }
        assert_err(
            io::frombuffer::<u32>(&raw, Some(16), 4),
            "InvalidArgument",
            "16 elements",
        );
        let path = std::env::temp_dir().join(format!(
            "cuprite-test-tofile-{}-{:?}",
            std::process::id(),
            d
        ));
        a.tofile(&path, "", "")?;
        assert_eq!(io::fromfile::<f64>(&path, "", None, 0)?.to_vec()?, x);
        a.tofile(&path, "\n", "")?;
        let back = io::fromfile::<f64>(&path, " ", None, 0)?.to_vec()?;
        assert_eq!(back, x, "tofile's shortest text reads back exactly");
        std::fs::remove_file(&path).ok();
        Ok(())
    })
}

fn float_format(d: Device) -> TestResult {
    on(d, || {
        let pos = |x: f64, o: FloatFormat| io::format_float_positional(x, &o);
        let sci = |x: f64, o: FloatFormat| io::format_float_scientific(x, &o);
        let dflt = FloatFormat::default();
        // NumPy's published examples and Python's repr digits.
        assert_eq!(pos(0.1, dflt)?, "0.1");
        assert_eq!(pos(1e-5, dflt)?, "0.00001");
        assert_eq!(pos(123456789.0, dflt)?, "123456789.");
        assert_eq!(pos(-0.0, dflt)?, "-0.");
        assert_eq!(
            io::format_float_positional(0.1f32 as f64, &dflt)?,
            "0.10000000149011612"
        );
        assert_eq!(io::format_float_positional(0.1f32, &dflt)?, "0.1");
        assert_eq!(sci(1e-5, dflt)?, "1.e-05");
        assert_eq!(
            sci(f64::INFINITY, FloatFormat { sign: true, ..dflt })?,
            "+inf"
        );
        assert_eq!(pos(f64::NAN, dflt)?, "nan");
        let exact = |p| FloatFormat {
            unique: false,
            precision: Some(p),
            ..dflt
        };
        assert_eq!(pos(0.5, exact(3))?, "0.500");
        assert_eq!(sci(0.1, exact(3))?, "1.000e-01");
        assert_eq!(
            pos(
                1.23456,
                FloatFormat {
                    precision: Some(2),
                    ..dflt
                }
            )?,
            "1.23"
        );
        assert_eq!(
            pos(
                0.1,
                FloatFormat {
                    precision: Some(3),
                    ..dflt
                }
            )?,
            "0.1"
        );
        assert_eq!(
            pos(
                12345.0,
                FloatFormat {
                    fractional: false,
                    ..exact(2)
                }
            )?,
            "12000."
        );
        for (t, want) in [
            (TrimMode::Keep, "1.000"),
            (TrimMode::Point, "1."),
            (TrimMode::Zero, "1.0"),
            (TrimMode::Minus, "1"),
        ] {
            assert_eq!(
                pos(
                    1.0,
                    FloatFormat {
                        trim: t,
                        ..exact(3)
                    }
                )?,
                want,
                "{t:?}"
            );
        }
        assert_eq!(
            pos(
                1.5,
                FloatFormat {
                    pad_left: Some(5),
                    pad_right: Some(4),
                    ..dflt
                }
            )?,
            "    1.5   "
        );
        assert_eq!(pos(1.0, FloatFormat { sign: true, ..dflt })?, "+1.");
        assert_eq!(
            pos(
                0.25,
                FloatFormat {
                    min_digits: Some(4),
                    ..dflt
                }
            )?,
            "0.2500"
        );
        assert!(
            pos(
                1.0,
                FloatFormat {
                    unique: false,
                    ..dflt
                }
            )
            .is_err()
        );
        // Shortest digits agree with Rust's own shortest formatting (an independent
        // implementation) on random doubles and floats, and read back exactly.
        let mut rng = Rng::fresh();
        for _ in 0..2000 {
            let x = f64::from_bits(rng.next_u64());
            if !x.is_finite() {
                continue;
            }
            let s = sci(x, dflt)?;
            let (m, e) = s.split_once('e').unwrap_or((&s, ""));
            let want = format!("{x:e}");
            let (wm, we) = want.split_once('e').unwrap_or((&want, ""));
            assert!(tie_to_even(x, m.trim_end_matches('.'), wm), "{x:e}: {s}");
            assert_eq!(e.parse::<i32>().ok(), we.parse::<i32>().ok());
            assert_eq!(s.parse::<f64>().ok(), Some(x));
            let y = f32::from_bits(rng.next_u64() as u32);
            if y.is_finite() {
                let p = io::format_float_positional(y, &dflt)?;
                assert_eq!(p.parse::<f32>().ok(), Some(y), "{p}");
                let s = io::format_float_scientific(y, &dflt)?;
                let (m, e) = s.split_once('e').unwrap_or((&s, ""));
                let want = format!("{y:e}");
                let (wm, we) = want.split_once('e').unwrap_or((&want, ""));
                assert!(
                    tie_to_even(y as f64, m.trim_end_matches('.'), wm),
                    "{y:e}: {s}"
                );
                assert_eq!(e.parse::<i32>().ok(), we.parse::<i32>().ok());
            }
        }
        Ok(())
    })
}

fn dtypes(d: Device) -> TestResult {
    on(d, || {
        use DType::*;
        // NumPy's safe-cast table (np.can_cast(a, b)) for a sample of pairs.
        let safe = [
            (Bool, I8, true),
            (U8, I16, true),
            (U8, I8, false),
            (I64, F64, true),
            (I64, F32, false),
            (U64, I64, false),
            (U64, F64, true),
            (I16, F16, false),
            (I8, F16, true),
            (F32, C32, true),
            (F64, C32, false),
            (C32, F64, false),
            (F16, F32, true),
            (I32, U32, false),
        ];
        for (a, b, want) in safe {
            assert_eq!(ops::can_cast(a, b, Casting::Safe), want, "{a} -> {b}");
        }
        assert!(ops::can_cast(U64, I8, Casting::SameKind));
        assert!(!ops::can_cast(F32, I64, Casting::SameKind));
        assert!(ops::can_cast(I8, I8, Casting::No) && !ops::can_cast(I8, I16, Casting::No));
        assert!(!ops::can_cast(F32, F64, Casting::Equiv));
        assert_eq!(ops::min_scalar_type(255u64), U8);
        assert_eq!(ops::min_scalar_type(256i32), U16);
        assert_eq!(ops::min_scalar_type(-32769i64), I32);
        assert_eq!(ops::min_scalar_type(f64::INFINITY), F16);
        assert_eq!(ops::min_scalar_type(1e5f64), F32);
        assert_eq!(ops::min_scalar_type(1e5f32), F32);
        assert_eq!(
            ops::min_scalar_type(cuprite_array::c64::new(1.0, 1e300)),
            C64
        );
        assert_eq!(ops::min_scalar_type(true), Bool);
        assert_eq!(ops::common_type(&[I8, F32])?, F64);
        assert_eq!(ops::common_type(&[F16, F32, C32])?, C32);
        assert_eq!(ops::common_type(&[C32, F64])?, C64);
        assert_eq!(ops::common_type(&[])?, F16);
        assert!(ops::isscalar(&1u8) && !ops::isscalar(&Array::scalar(1u8)));
        let bad = Array::from_slice(&[1.0f64, f64::NEG_INFINITY], &[2])?;
        assert_err(
            bad.asarray_chkfinite(),
            "InvalidArgument",
            "infinity or NaN",
        );
        assert!(
            Array::from_slice(&[1i64], &[1])?
                .asarray_chkfinite()
                .is_ok()
        );
        let z = Array::from_slice(&[cuprite_array::c32::new(1.0, f32::NAN)], &[1])?;
        assert!(z.asarray_chkfinite().is_err());
        Ok(())
    })
}

/// NumPy's gradient formulas on a host vector of samples with coordinates `x`.
fn grad_ref(f: &[f64], x: &[f64], order: usize) -> Vec<f64> {
    let n = f.len();
    let mut g = vec![0.0; n];
    for i in 1..n - 1 {
        let (a, b) = (x[i] - x[i - 1], x[i + 1] - x[i]);
        g[i] = (a * a * f[i + 1] - b * b * f[i - 1] + (b * b - a * a) * f[i]) / (a * b * (a + b));
    }
    if order == 1 {
        g[0] = (f[1] - f[0]) / (x[1] - x[0]);
        g[n - 1] = (f[n - 1] - f[n - 2]) / (x[n - 1] - x[n - 2]);
    } else {
        // Second-order one-sided: the derivative of the parabola through three samples.
        let d = |i: usize, j: usize, k: usize, at: f64| {
            let l = |p: usize, q: usize, r: usize| {
                f[p] * ((at - x[q]) + (at - x[r])) / ((x[p] - x[q]) * (x[p] - x[r]))
            };
            l(i, j, k) + l(j, i, k) + l(k, i, j)
        };
        g[0] = d(0, 1, 2, x[0]);
        g[n - 1] = d(n - 3, n - 2, n - 1, x[n - 1]);
    }
    g
}

fn partials(d: Device) -> TestResult {
    on(d, || {
        let mut rng = Rng::fresh();
        // gradient over both axes of a 2-D array, uneven and even spacing, both edge orders.
        let (r, c) = (6usize, 7usize);
        let f: Vec<f64> = rng
            .vec_f32(r * c, -5.0, 5.0)
            .into_iter()
            .map(f64::from)
            .collect();
        let mut xr = vec![0.0f64];
        for _ in 1..r {
            let last = xr[xr.len() - 1];
            xr.push(last + 0.2 + rng.f32_in(0.0, 1.0) as f64);
        }
        let a = Array::from_slice(&f, &[r, c])?;
        for order in [1, 2] {
            let g = a.gradient_with(
                &[Spacing::Coords(xr.clone()), Spacing::Uniform(0.5)],
                None,
                order,
            )?;
            let (g0, g1) = (g[0].to_vec()?, g[1].to_vec()?);
            let xc: Vec<f64> = (0..c).map(|j| j as f64 * 0.5).collect();
            for j in 0..c {
                let col: Vec<f64> = (0..r).map(|i| f[i * c + j]).collect();
                let want = grad_ref(&col, &xr, order);
                let got: Vec<f64> = (0..r).map(|i| g0[i * c + j]).collect();
                close(&got, &want, 1e-10, 1e-10, "gradient axis 0")?;
            }
            for i in 0..r {
                let want = grad_ref(&f[i * c..(i + 1) * c], &xc, order);
                close(
                    &g1[i * c..(i + 1) * c],
                    &want,
                    1e-10,
                    1e-10,
                    "gradient axis 1",
                )?;
            }
        }
        assert_err(
            a.gradient_with(&[Spacing::Coords(vec![0.0; 3])], Some(&[0]), 1),
            "Shape",
            "3 coordinates",
        );
        assert_err(
            Array::from_slice(&[1.0f32, 2.0], &[2])?.gradient_with(&[], None, 2),
            "Shape",
            "edge_order 2",
        );
        // linspace with and without the endpoint, and with array bounds.
        for (n, ep) in [(7usize, true), (7, false), (1, true), (0, false)] {
            let (y, step) =
                Array::<f64>::linspace_with(-2.5, 4.0, n, LinspaceOpts::new().endpoint(ep))?;
            let div = if ep { n as f64 - 1.0 } else { n as f64 };
            let want: Vec<f64> = (0..n)
                .map(|i| match () {
                    _ if ep && n > 1 && i == n - 1 => 4.0,
                    _ if div <= 0.0 => -2.5,
                    _ => -2.5 + i as f64 * (6.5 / div),
                })
                .collect();
            close(&y.to_vec()?, &want, 1e-15, 1e-15, "linspace")?;
            assert!(step.is_nan() == (div <= 0.0) && (div <= 0.0 || step == 6.5 / div));
        }
        let lo = Array::from_slice(&[0.0f32, 1.0, -4.0], &[3, 1])?;
        let hi = Array::from_slice(&[10.0f32, 20.0], &[2])?;
        let (y, st) =
            Array::linspace_between_with(&lo, &hi, 5, LinspaceOpts::new().endpoint(false))?;
        assert_eq!((y.shape(), st.shape()), (&[5, 3, 2][..], &[3, 2][..]));
        let yv = y.to_vec()?;
        for k in 0..5 {
            for i in 0..3 {
                for j in 0..2 {
                    let (l, h) = ([0.0f32, 1.0, -4.0][i], [10.0f32, 20.0][j]);
                    assert!((yv[k * 6 + i * 2 + j] - (l + k as f32 * (h - l) / 5.0)).abs() < 1e-5);
                }
            }
        }
        // The defaults (endpoint, samples along axis 0) and the samples along the last axis.
        let (y, st) = Array::linspace_between(&lo, &hi, 5)?;
        let (z, _) = Array::linspace_between_with(&lo, &hi, 5, LinspaceOpts::new().axis(-1))?;
        assert_eq!((y.shape(), z.shape()), (&[5, 3, 2][..], &[3, 2, 5][..]));
        let (yv, zv, sv) = (y.to_vec()?, z.to_vec()?, st.to_vec()?);
        for k in 0..5 {
            for i in 0..3 {
                for j in 0..2 {
                    let (l, h) = ([0.0f32, 1.0, -4.0][i], [10.0f32, 20.0][j]);
                    let want = if k == 4 {
                        h
                    } else {
                        l + k as f32 * (h - l) / 4.0
                    };
                    assert!(
                        (yv[k * 6 + i * 2 + j] - want).abs() < 1e-5,
                        "axis 0, {k} {i} {j}"
                    );
                    assert!(
                        (zv[i * 10 + j * 5 + k] - want).abs() < 1e-5,
                        "axis -1, {k} {i} {j}"
                    );
                    assert!((sv[i * 2 + j] - (h - l) / 4.0).abs() < 1e-6);
                }
            }
        }
        // unique along an axis against a sort of the rows on the host.
        let vals: Vec<i32> = (0..40).map(|_| (rng.next_u64() % 3) as i32).collect();
        let m = Array::from_slice(&vals, &[10, 4])?;
        let u = m.unique_axis(0)?;
        let mut rows: Vec<Vec<i32>> = (0..10).map(|i| vals[i * 4..i * 4 + 4].to_vec()).collect();
        rows.sort();
        rows.dedup();
        assert_eq!(u.values.to_vec()?, rows.concat());
        let (first, counts, inv) = (u.first.to_vec()?, u.counts.to_vec()?, u.inverse.to_vec()?);
        for (k, row) in rows.iter().enumerate() {
            let hits: Vec<usize> = (0..10)
                .filter(|&i| vals[i * 4..i * 4 + 4] == row[..])
                .collect();
            assert_eq!((first[k], counts[k]), (hits[0] as i64, hits.len() as i64));
            assert!(hits.iter().all(|&i| inv[i] == k as i64));
        }
        let ut = m.unique_axis(1)?;
        assert_eq!(ut.values.shape()[0], 10);
        let e = Array::<f32>::zeros(&[0, 3]).unique_axis(0)?;
        assert_eq!((e.values.shape(), e.counts.len()), (&[0, 3][..], 0));
        let e = Array::<f32>::zeros(&[4, 0]).unique_axis(0)?;
        assert_eq!(
            (e.counts.to_vec()?, e.inverse.to_vec()?),
            (vec![4], vec![0; 4])
        );
        // the broadcast object.
        let mut b = ops::Broadcast::new(&[&[2, 1, 3], &[4, 1], &[]])?;
        assert_eq!((b.shape(), b.size(), b.numiter()), (&[2, 4, 3][..], 24, 3));
        let all: Vec<Vec<usize>> = b.by_ref().collect();
        assert_eq!(b.index(), 24);
        for (p, idx) in ops::ndindex(&[2, 4, 3]).enumerate() {
            assert_eq!(all[p], [idx[0] * 3 + idx[2], idx[1], 0]);
        }
        Ok(())
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("text_io", text_io),
    ("binary_io", binary_io),
    ("float_format", float_format),
    ("dtypes", dtypes),
    ("partials", partials),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::numpy_idx2::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::numpy_idx2::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
