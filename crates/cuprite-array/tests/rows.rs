//! Row operations (softmax, log_softmax, logsumexp, layer_norm, rms_norm, normalize) against
//! an f64 reference on the host, every float dtype, along the last and a middle axis, rows
//! around the kernel's warp (32), block (256) and register-cache (8192) sizes. Bodies run on
//! every backend present.

use crate::common::{Body, close};
use cuprite_array::ops::NormOpts;
use cuprite_array::ops::ReduceOpts;
use cuprite_array::{Array, Device, Element};
use cuprite_testkit::{Rng, Test, TestResult};

/// The operations under test, with their f64 reference on one line.
#[derive(Clone, Copy, Debug)]
enum Op {
    Softmax,
    LogSoftmax,
    LogSumExp,
    LayerNorm,
    RmsNorm,
    Normalize(f64),
}

const OPS: [Op; 7] = [
    Op::Softmax,
    Op::LogSoftmax,
    Op::LogSumExp,
    Op::LayerNorm,
    Op::RmsNorm,
    Op::Normalize(2.0),
    Op::Normalize(3.0),
];

const EPS: f64 = 1e-5;

/// The reference on one line (`w`, `b` for the norms); logsumexp gives one value.
fn line_ref(op: Op, x: &[f64], w: &[f64], b: &[f64]) -> Vec<f64> {
    let n = x.len() as f64;
    match op {
        Op::Softmax | Op::LogSoftmax | Op::LogSumExp => {
            let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = x.iter().map(|&v| (v - m).exp()).sum();
            match op {
                Op::Softmax => x.iter().map(|&v| (v - m).exp() / s).collect(),
                Op::LogSoftmax => x.iter().map(|&v| v - m - s.ln()).collect(),
                _ => vec![m + s.ln()],
            }
        }
        Op::LayerNorm => {
            let mean = x.iter().sum::<f64>() / n;
            let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
            let r = 1.0 / (var + EPS).sqrt();
            x.iter()
                .enumerate()
                .map(|(i, v)| (v - mean) * r * w[i] + b[i])
                .collect()
        }
        Op::RmsNorm => {
            let r = 1.0 / (x.iter().map(|v| v * v).sum::<f64>() / n + EPS).sqrt();
            x.iter().enumerate().map(|(i, v)| v * r * w[i]).collect()
        }
        Op::Normalize(p) => {
            let nrm = x.iter().map(|v| v.abs().powf(p)).sum::<f64>().powf(1.0 / p);
            x.iter().map(|v| v / nrm.max(EPS)).collect()
        }
    }
}

/// The reference along `axis` of a contiguous `shape`.
fn rows_ref(op: Op, x: &[f64], shape: &[usize], axis: usize, w: &[f64], b: &[f64]) -> Vec<f64> {
    let outer: usize = shape[..axis].iter().product();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let lse = matches!(op, Op::LogSumExp);
    let mut out = vec![0.0; if lse { outer * inner } else { x.len() }];
    for o in 0..outer {
        for j in 0..inner {
            let line: Vec<f64> = (0..n).map(|i| x[(o * n + i) * inner + j]).collect();
            let r = line_ref(op, &line, w, b);
            if lse {
                out[o * inner + j] = r[0];
            } else {
                for (i, v) in r.iter().enumerate() {
                    out[(o * n + i) * inner + j] = *v;
                }
            }
        }
    }
    out
}

/// Runs `op` on `a` (dtype `T`) along `axis`, with `w`/`b` for the norms, read back in f64.
fn apply<T: Element>(
    op: Op,
    a: &Array<T>,
    axis: isize,
    w: &Array<T>,
    b: &Array<T>,
) -> cuprite_array::Result<Vec<f64>> {
    let y = match op {
        Op::Softmax => a.softmax(axis)?,
        Op::LogSoftmax => a.log_softmax(axis)?,
        Op::LogSumExp => a.logsumexp(axis)?,
        Op::LayerNorm => a.layer_norm_with(axis, NormOpts::new().eps(EPS).weight(w).bias(b))?,
        Op::RmsNorm => a.rms_norm_with(axis, NormOpts::new().eps(EPS).weight(w))?,
        Op::Normalize(p) => a.normalize(axis, p, EPS)?,
    };
    y.cast::<f64>().to_vec()
}

/// Every op on `shape` along `axis`, dtype `T`, within `(rtol, atol)` of the reference computed
/// from the input as rounded to `T`.
fn check_dtype<T: Element>(
    rng: &mut Rng,
    shape: &[usize],
    axis: usize,
    tol: (f64, f64),
) -> TestResult {
    let len: usize = shape.iter().product();
    let x: Vec<f64> = rng
        .vec_f32(len, -4.0, 4.0)
        .iter()
        .map(|&v| v as f64)
        .collect();
    let a = Array::from_slice(&x, shape)?.cast::<T>();
    check_array(rng, &a, axis, tol, "")
}

/// Every op on `a` (any layout: realised, a view or a lazy expression) along `axis`, with a
/// weight and a bias drawn from `rng`, within `(rtol, atol)` of the f64 reference computed from
/// the values `a` holds.
fn check_array<T: Element>(
    rng: &mut Rng,
    a: &Array<T>,
    axis: usize,
    tol: (f64, f64),
    what: &str,
) -> TestResult {
    let shape = a.shape().to_vec();
    let n = shape[axis];
    let w: Vec<f64> = rng.vec_f32(n, 0.5, 1.5).iter().map(|&v| v as f64).collect();
    let b: Vec<f64> = rng
        .vec_f32(n, -1.0, 1.0)
        .iter()
        .map(|&v| v as f64)
        .collect();
    let wa = Array::from_slice(&w, &[n])?.cast::<T>();
    let ba = Array::from_slice(&b, &[n])?.cast::<T>();
    // The reference sees exactly the values the operation sees.
    let xr = a.cast::<f64>().to_vec()?;
    let wr = wa.cast::<f64>().to_vec()?;
    let br = ba.cast::<f64>().to_vec()?;
    for op in OPS {
        let got = apply(op, a, axis as isize, &wa, &ba)?;
        let want = rows_ref(op, &xr, &shape, axis, &wr, &br);
        close(
            &got,
            &want,
            tol.0,
            tol.1,
            &format!("{op:?} of {} {what}{shape:?} along {axis}", T::DTYPE),
        )?;
    }
    Ok(())
}

fn rows_values(d: Device) -> TestResult {
    use cuprite_array::{bf16, f16};
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let mut cases: Vec<(Vec<usize>, usize)> = Vec::new();
        for n in [1, 31, 32, 33, 1024, 2048, 4096, 4097, 4100, 20000] {
            cases.push((vec![3, n], 1));
        }
        for n in [1, 33, 257, 9000] {
            cases.push((vec![2, n, 3], 1));
        }
        cases.push((vec![5, 7], 0));
        // More lines than a wave of blocks: each block streams several (aligned, and not).
        cases.push((vec![1100, 1040], 1));
        cases.push((vec![700, 1030], 1));
        // More short lines than a wave of the smallest blocks (64 threads).
        cases.push((vec![6000, 512], 1));
        // A long f64 line: more than the registers of a block hold, so it is re-read.
        cases.push((vec![3, 8192], 1));
        for (shape, axis) in &cases {
            check_dtype::<f64>(&mut rng, shape, *axis, (1e-10, 1e-12))?;
            check_dtype::<f32>(&mut rng, shape, *axis, (3e-5, 3e-5))?;
            check_dtype::<f16>(&mut rng, shape, *axis, (2e-3, 2e-3))?;
            check_dtype::<bf16>(&mut rng, shape, *axis, (1.6e-2, 1.6e-2))?;
        }
        // Several times more lines than a wave of blocks, so that each block of the streaming
        // form prefetches many lines in turn: too large for the host backend's debug builds.
        if d != Device::CPU {
            check_dtype::<bf16>(&mut rng, &[24000, 512], 1, (1.6e-2, 1.6e-2))?;
            check_dtype::<f32>(&mut rng, &[10000, 1024], 1, (3e-5, 3e-5))?;
        }
        Ok(())
    })
}

fn rows_extremes(d: Device) -> TestResult {
    use cuprite_array::f16;
    cuprite_array::with_device(d, || {
        // Large values do not overflow: softmax of [1e4, 1e4 + 1] and of [-1e4, -1e4 + 1].
        let e = 1f64.exp();
        let want = [1.0 / (1.0 + e), e / (1.0 + e)];
        for base in [1e4f32, -1e4] {
            let a = Array::from_slice(&[base, base + 1.0], &[2])?;
            let got: Vec<f64> = a.softmax(0)?.to_vec()?.iter().map(|&v| v as f64).collect();
            close(&got, &want, 1e-6, 0.0, "f32 softmax of large values")?;
            let l = a.logsumexp_with(0, ReduceOpts::new().keepdims(true))?;
            assert_eq!(l.shape(), &[1]);
            let got = l.to_vec()?[0] as f64;
            let want = base as f64 + 1.0 + (1.0 + (-1f64).exp()).ln();
            assert!((got - want).abs() <= 2e-3, "logsumexp {got} vs {want}");
        }
        let a = Array::from_slice(&[1e300f64, 1e300], &[2])?;
        assert_eq!(a.softmax(0)?.to_vec()?, [0.5, 0.5]);
        assert_eq!(a.logsumexp(0)?.to_vec()?, [1e300]);
        // f16: the largest finite value twice; the sum of exponentials stays in f32.
        let h = Array::from_slice(&[f16::MAX, f16::MAX], &[1, 2])?;
        assert_eq!(h.logsumexp(1)?.to_vec()?, [f16::MAX]);
        assert_eq!(
            h.softmax(1)?.to_vec()?,
            [f16::from_f32(0.5), f16::from_f32(0.5)]
        );
        // A row of -inf: softmax NaN, logsumexp -inf (PyTorch's results); other rows unaffected.
        let ninf = f32::NEG_INFINITY;
        let m = Array::from_slice(&[ninf, ninf, 0.0, ninf], &[2, 2])?;
        let s = m.softmax(1)?.to_vec()?;
        assert!(s[0].is_nan() && s[1].is_nan(), "{s:?}");
        assert_eq!(&s[2..], [1.0, 0.0]);
        assert_eq!(m.logsumexp(1)?.to_vec()?, [ninf, 0.0]);
        let ls = m.log_softmax(1)?.to_vec()?;
        assert_eq!(&ls[2..], [0.0, ninf]);
        // NaN in a row makes that row NaN.
        let q = Array::from_slice(&[1.0f32, f32::NAN, 2.0, 3.0], &[2, 2])?;
        let s = q.softmax(1)?.to_vec()?;
        assert!(s[0].is_nan() && s[1].is_nan(), "{s:?}");
        assert!(!s[2].is_nan());
        assert!(q.logsumexp(1)?.to_vec()?[0].is_nan());
        // A long row of NaN but its last element: the warps that see only NaN have no maximum
        // above -inf, and their NaN still reaches the sum (f32 and bf16).
        let mut nan_row = vec![f32::NAN; 4096];
        nan_row[4095] = 1.0;
        let r = Array::from_slice(&nan_row, &[1, 4096])?;
        assert!(r.logsumexp(1)?.to_vec()?[0].is_nan());
        let rb = r.cast::<cuprite_array::bf16>().logsumexp(1)?;
        assert!(rb.cast::<f32>().to_vec()?[0].is_nan());
        // Long rows (one value per warp lane and more): most of row 0 is -inf, so whole warps
        // see nothing above -inf; row 1 holds a +inf (its line is done by the path that spells
        // non-finite maxima out). Checked against the formulas in f64 on the host (the bf16
        // results from the bf16-rounded inputs).
        let n = 4096;
        let mut v: Vec<f32> = (0..2 * n)
            .map(|i| ((i * 37 % 101) as f32) / 25.0 - 2.0)
            .collect();
        v[..3000].iter_mut().for_each(|x| *x = ninf);
        v[n + 77] = f32::INFINITY;
        let a = Array::from_slice(&v, &[2, n])?;
        let h = a.cast::<cuprite_array::bf16>();
        let got = [
            a.softmax(1)?.cast::<f64>().to_vec()?,
            a.log_softmax(1)?.cast::<f64>().to_vec()?,
            a.logsumexp(1)?.cast::<f64>().to_vec()?,
            h.softmax(1)?.cast::<f64>().to_vec()?,
            h.logsumexp(1)?.cast::<f64>().to_vec()?,
        ];
        let lse = |r: &[f64]| {
            let m = r.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            if m.is_infinite() {
                return m;
            }
            m + r.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
        };
        let f64s: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        let b64s: Vec<f64> = v
            .iter()
            .map(|&x| cuprite_array::bf16::from_f32(x).to_f64())
            .collect();
        // Row 0, every result: (what, got, reference, relative tolerance).
        let (r32, r16) = (&f64s[..n], &b64s[..n]);
        let (l32, l16) = (lse(r32), lse(r16));
        let checks: [(&str, &[f64], Vec<f64>, f64); 5] = [
            (
                "softmax f32",
                &got[0][..n],
                r32.iter().map(|x| (x - l32).exp()).collect(),
                1e-5,
            ),
            (
                "log_softmax f32",
                &got[1][..n],
                r32.iter().map(|x| x - l32).collect(),
                1e-5,
            ),
            ("logsumexp f32", &got[2][..1], vec![l32], 1e-6),
            (
                "softmax bf16",
                &got[3][..n],
                r16.iter().map(|x| (x - l16).exp()).collect(),
                1e-2,
            ),
            ("logsumexp bf16", &got[4][..1], vec![l16], 1e-2),
        ];
        for (what, g, want, tol) in checks {
            for (i, (x, y)) in g.iter().zip(&want).enumerate() {
                let same = x == y || (x - y).abs() <= tol * y.abs().max(1e-3);
                assert!(
                    same,
                    "long rows, {what}, element {i}: {x} vs {y} (f64 formula)"
                );
            }
        }
        // Row 1: its logsumexp is +inf; softmax and log_softmax are NaN at the +inf.
        assert_eq!((got[2][1], got[4][1]), (f64::INFINITY, f64::INFINITY));
        for k in [0, 1, 3] {
            assert!(
                got[k][n + 77].is_nan(),
                "result {k} at the +inf: {}",
                got[k][n + 77]
            );
        }
        let s0 = &got[0][..n];
        assert!(s0[..3000].iter().all(|&x| x == 0.0));
        assert!((s0.iter().sum::<f64>() - 1.0).abs() < 1e-5);
        // A zero row: normalize divides by eps, rms_norm gives zeros.
        let z = Array::from_slice(&[0.0f32; 4], &[4])?;
        assert_eq!(z.normalize(0, 2.0, 1e-12)?.to_vec()?, [0.0; 4]);
        assert_eq!(
            z.rms_norm_with(0, NormOpts::new().eps(1e-6))?.to_vec()?,
            [0.0; 4]
        );
        // A constant row: layer_norm gives zeros (then the bias).
        let c = Array::from_slice(&[7.0f64; 5], &[5])?;
        let bias = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5])?;
        assert_eq!(
            c.layer_norm_with(0, NormOpts::new().bias(&bias))?
                .to_vec()?,
            [1.0, 2.0, 3.0, 4.0, 5.0]
        );
        Ok(())
    })
}

fn rows_fuse_and_err(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let mask = Array::from_slice(&[0.0f32, 0.0, f32::NEG_INFINITY], &[3])?;
        // The producer runs inside the call (one evaluation), the consumer is one more.
        let before = cuprite_array::stats::thread_evaluations();
        let y = ((&x * 0.5) + &mask).softmax(-1)? * 2.0;
        assert_eq!(
            cuprite_array::stats::thread_evaluations(),
            before,
            "lazy until read"
        );
        let got: Vec<f64> = y.to_vec()?.iter().map(|&v| v as f64).collect();
        assert_eq!(cuprite_array::stats::thread_evaluations() - before, 2);
        let s = 1.0 / (1.0 + 0.5f64.exp());
        let want = [2.0 * s, 2.0 * (1.0 - s), 0.0, 2.0 * s, 2.0 * (1.0 - s), 0.0];
        close(&got, &want, 1e-6, 1e-7, "softmax(x * 0.5 + mask) * 2")?;
        // A strided view as input (the call reads a contiguous copy): softmax along rows of
        // the transpose is softmax along columns.
        let t = x.t().softmax(1)?.to_vec()?;
        let c = x.softmax(0)?.t().contiguous()?.to_vec()?;
        assert_eq!(t, c);
        // Bad input: an Err naming the wrong values.
        let e = x.softmax(2).unwrap_err().to_string();
        assert!(e.contains("axis 2"), "{e}");
        let e = x.logsumexp(-3).unwrap_err().to_string();
        assert!(e.contains("axis -3"), "{e}");
        let i = Array::from_slice(&[1i32, 2], &[2])?;
        let e = i.softmax(0).unwrap_err().to_string();
        assert!(e.contains("i32"), "{e}");
        crate::common::assert_err(i.layer_norm(0), "InvalidArgument", "not i32");
        let w = Array::from_slice(&[1.0f32, 2.0], &[2])?;
        let e = x
            .layer_norm_with(1, NormOpts::new().weight(&w))
            .unwrap_err()
            .to_string();
        assert!(e.contains("[2]") && e.contains('3'), "{e}");
        crate::common::assert_err(
            x.rms_norm_with(1, NormOpts::new().eps(1e-5).weight(&w)),
            "Shape",
            "weight of shape [2]",
        );
        let e = x.normalize(1, 0.0, 1e-12).unwrap_err().to_string();
        assert!(e.contains("p must be"), "{e}");
        crate::common::assert_err(
            x.layer_norm_with(1, NormOpts::new().eps(-1.0)),
            "InvalidArgument",
            "eps must be finite and not negative, not -1",
        );
        crate::common::assert_err(
            x.normalize(1, f64::INFINITY, 1e-12),
            "InvalidArgument",
            "p must be finite and positive, not inf",
        );
        let e = Array::scalar(1.0f32).softmax(0).unwrap_err().to_string();
        assert!(e.contains("0-dimensional"), "{e}");
        let empty = Array::<f32>::from_slice(&[], &[2, 0])?;
        crate::common::assert_err(empty.logsumexp(1), "Shape", "length 0 (shape [2, 0])");
        assert_eq!(empty.softmax(1)?.shape(), &[2, 0]);
        assert_eq!(empty.logsumexp(0)?.to_vec()?, Vec::<f32>::new());
        Ok(())
    })
}

fn one_hot_cross_entropy(d: Device) -> TestResult {
    use cuprite_array::bf16;
    cuprite_array::with_device(d, || {
        let t = Array::from_slice(&[3u8, 0, 1], &[3])?;
        let h = t.one_hot::<f32>(4)?;
        assert_eq!(h.shape(), &[3, 4]);
        assert_eq!(
            h.to_vec()?,
            [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        );
        let t2 = Array::from_slice(&[1i64, 0, 0, 1], &[2, 2])?;
        assert_eq!(t2.one_hot::<i32>(2)?.to_vec()?, [0, 1, 1, 0, 1, 0, 0, 1]);
        let e = t.one_hot::<f32>(3).unwrap_err().to_string();
        assert!(e.contains("index 3") && e.contains("3 classes"), "{e}");
        let neg = Array::from_slice(&[0i32, -1], &[2])?;
        let e = neg.one_hot::<f32>(5).unwrap_err().to_string();
        assert!(e.contains("-1"), "{e}");
        crate::common::assert_err(
            t.one_hot::<f32>(0),
            "InvalidArgument",
            "classes must be in 1..=i64::MAX, not 0",
        );
        // cross_entropy against an f64 reference, rows wider than the register cache too.
        let mut rng = Rng::fresh();
        for (n, c) in [(1, 1), (37, 10), (5, 1000), (3, 9000)] {
            let x: Vec<f64> = rng
                .vec_f32(n * c, -8.0, 8.0)
                .iter()
                .map(|&v| v as f64)
                .collect();
            let tg: Vec<i64> = rng
                .vec_u32(n)
                .iter()
                .map(|&v| (v as usize % c) as i64)
                .collect();
            let mut want = 0.0;
            for r in 0..n {
                let row = &x[r * c..(r + 1) * c];
                want += line_ref(Op::LogSumExp, row, &[], &[])[0] - row[tg[r] as usize];
            }
            want /= n as f64;
            let targets = Array::from_slice(&tg, &[n])?;
            let a = Array::from_slice(&x, &[n, c])?;
            let got = a.cross_entropy(&targets)?.item()?;
            close(&[got], &[want], 1e-12, 1e-12, "f64 cross_entropy")?;
            let got = a.cast::<f32>().cross_entropy(&targets)?.item()? as f64;
            close(&[got], &[want], 1e-4, 1e-4, "f32 cross_entropy")?;
            let ab = a.cast::<bf16>();
            let xb = ab.cast::<f64>().to_vec()?;
            let mut wb = 0.0;
            for r in 0..n {
                let row = &xb[r * c..(r + 1) * c];
                wb += line_ref(Op::LogSumExp, row, &[], &[])[0] - row[tg[r] as usize];
            }
            wb /= n as f64;
            let got = ab.cross_entropy(&targets)?.item()?.to_f64();
            close(&[got], &[wb], 2e-2, 2e-2, "bf16 cross_entropy")?;
        }
        let a = Array::from_slice(&[0.0f32; 6], &[2, 3])?;
        let e = a
            .cross_entropy(&Array::from_slice(&[0i32, 3], &[2])?)
            .unwrap_err()
            .to_string();
        assert!(e.contains("index 3"), "{e}");
        crate::common::assert_err(
            a.cross_entropy(&Array::from_slice(&[0i32], &[1])?),
            "Shape",
            "targets of shape [1] for logits of shape [2, 3]",
        );
        let flat = Array::from_slice(&[0.0f32; 3], &[3])?;
        crate::common::assert_err(
            flat.cross_entropy(&Array::from_slice(&[0i32], &[1])?),
            "Shape",
            "not [3]",
        );
        Ok(())
    })
}

/// Row operations whose input is an element-wise expression (read inside the row kernel):
/// broadcast masks, mixed dtypes, strided inputs, any axis; the same values as on the
/// expression realised first.
fn rows_fused_producer(d: Device) -> TestResult {
    use cuprite_array::{bf16, f16};
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for (shape, n) in [
            ([2usize, 3, 33], 33usize),
            ([1, 2, 4097], 4097),
            ([3, 1, 1], 1),
            ([2, 2, 1024], 1024),
        ] {
            let len: usize = shape.iter().product();
            let x = Array::from_slice(&rng.vec_f32(len, -30.0, 30.0), &shape)?;
            // A mask over the last axis, broadcast over the others, with -inf holes.
            let mut m = rng.vec_f32(n, -1.0, 1.0);
            if n > 2 {
                m[1] = f32::NEG_INFINITY;
            }
            let mask = Array::from_slice(&m, &[n])?;
            let w = Array::from_slice(&rng.vec_f32(n, 0.5, 1.5), &[n])?;
            let res = Array::from_slice(&rng.vec_f32(len, -1.0, 1.0), &shape)?;
            let run = |x: &Array<f32>,
                       axis: isize,
                       realised: bool|
             -> cuprite_array::Result<Vec<Vec<f64>>> {
                let z = x * 0.125f32 + &mask;
                let r = x + &res;
                if realised {
                    z.eval()?;
                    r.eval()?;
                }
                let f = |a: Array<f32>| a.cast::<f64>().to_vec();
                Ok(vec![
                    f(z.softmax(-1)?)?,
                    f(z.log_softmax(-1)?)?,
                    f(z.logsumexp(-1)?)?,
                    f(r.layer_norm(axis)?)?,
                    f(r.rms_norm_with(-1, NormOpts::new().eps(1e-5).weight(&w))?)?,
                    f(r.normalize(axis, 2.0, 1e-12)?)?,
                    f(x.t().softmax(0)?)?,
                ])
            };
            let fused = run(&x, 1, false)?;
            let plain = run(&x, 1, true)?;
            for (k, (g, w)) in fused.iter().zip(&plain).enumerate() {
                close(g, w, 1e-6, 1e-7, &format!("fused op {k} on {shape:?}"))?;
            }
            // Half types: the producer casts, the row op accumulates in f32.
            for half in [true, false] {
                let z = if half {
                    (x.cast::<f16>() * f16::from_f32(0.5)).cast::<f32>()
                } else {
                    (x.cast::<bf16>() - bf16::from_f32(1.0)).cast::<f32>()
                };
                let fused = z.softmax(-1)?.cast::<f64>().to_vec()?;
                z.eval()?;
                let plain = z.softmax(-1)?.cast::<f64>().to_vec()?;
                close(&fused, &plain, 1e-6, 1e-9, "half producer")?;
            }
            let hz = (x.cast::<bf16>() * bf16::from_f32(2.0)).cast::<bf16>();
            let g = hz.layer_norm(-1)?.cast::<f64>().to_vec()?;
            hz.eval()?;
            let plain = hz.layer_norm(-1)?.cast::<f64>().to_vec()?;
            // One bf16 rounding step apart at most.
            close(&g, &plain, 8e-3, 8e-3, "bf16 producer")?;
        }
        // A producer of constants only (no inputs), and with a mask of shape [B, 1, S].
        let c = (Array::<f32>::full(&[2, 3], 1.0) * 2.0f32)
            .softmax(1)?
            .to_vec()?;
        close(
            &c.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            &[1.0 / 3.0; 6],
            1e-6,
            0.0,
            "const",
        )?;
        let x = Array::from_slice(&rng.vec_f32(2 * 3 * 5, -3.0, 3.0), &[2, 3, 5])?;
        let m = Array::from_slice(&rng.vec_f32(10, -3.0, 3.0), &[2, 1, 5])?;
        let z = &x + &m;
        let got = z.softmax(-1)?.cast::<f64>().to_vec()?;
        z.eval()?;
        let plain = z.softmax(-1)?.cast::<f64>().to_vec()?;
        close(&got, &plain, 1e-6, 1e-9, "[2, 1, 5] mask")?;
        Ok(())
    })
}

/// On CUDA, `softmax(x * scale + mask)` allocates only its output: the sum is never a buffer.
fn rows_fused_allocates_output_only() -> TestResult {
    let d = Device::cuda(0);
    cuprite_array::with_device(d, || {
        let (b, s) = (64, 1000);
        let x = Array::<f32>::rand_uniform(&[b, s], 1)?;
        let mask = Array::<f32>::rand_uniform(&[s], 2)?;
        x.eval()?;
        mask.eval()?;
        let before = cuprite_array::mem_stats(d);
        let y = (&x * 0.5f32 + &mask).softmax(-1)?;
        y.eval()?;
        let after = cuprite_array::mem_stats(d);
        assert_eq!(
            after.buffers_allocated_total - before.buffers_allocated_total,
            1
        );
        assert_eq!(
            after.bytes_allocated_total - before.bytes_allocated_total,
            b * s * 4
        );
        let want = (&x * 0.5f32 + &mask).contiguous()?.softmax(-1)?;
        let want = want.cast::<f64>().to_vec()?;
        close(
            &y.cast::<f64>().to_vec()?,
            &want,
            1e-6,
            1e-9,
            "fused on CUDA",
        )?;
        Ok(())
    })
}

fn cross_entropy_reductions(d: Device) -> TestResult {
    use cuprite_array::Reduction;
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (n, c) = (41, 17);
        let x: Vec<f64> = rng
            .vec_f32(n * c, -6.0, 6.0)
            .iter()
            .map(|&v| v as f64)
            .collect();
        let mut tg: Vec<i64> = rng
            .vec_u32(n)
            .iter()
            .map(|&v| (v as usize % c) as i64)
            .collect();
        for k in [0, 5, 40] {
            tg[k] = -100;
        }
        let per: Vec<f64> = (0..n)
            .map(|r| {
                if tg[r] < 0 {
                    return 0.0;
                }
                let row = &x[r * c..(r + 1) * c];
                line_ref(Op::LogSumExp, row, &[], &[])[0] - row[tg[r] as usize]
            })
            .collect();
        let a = Array::from_slice(&x, &[n, c])?;
        let t = Array::from_slice(&tg, &[n])?;
        let none = a.cross_entropy_with(&t, Reduction::None, Some(-100))?;
        assert_eq!(none.shape(), &[n]);
        close(&none.to_vec()?, &per, 1e-12, 1e-12, "none")?;
        let sum: f64 = per.iter().sum();
        close(
            &[a.cross_entropy_with(&t, Reduction::Sum, Some(-100))?
                .item()?],
            &[sum],
            1e-12,
            1e-12,
            "sum",
        )?;
        let mean = sum / (n - 3) as f64;
        close(
            &[a.cross_entropy_with(&t, Reduction::Mean, Some(-100))?
                .item()?],
            &[mean],
            1e-12,
            1e-12,
            "mean",
        )?;
        let g = a
            .cast::<f32>()
            .cross_entropy_with(&t.cast::<i32>(), Reduction::Mean, Some(-100))?
            .item()?;
        close(&[g as f64], &[mean], 1e-5, 1e-5, "f32 mean")?;
        // Without ignore_index, -100 is out of range; every row ignored gives NaN.
        let e = a
            .cross_entropy_with(&t, Reduction::Sum, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("-100"), "{e}");
        let all = Array::from_slice(&[-1i64; 41], &[n])?;
        assert!(
            a.cross_entropy_with(&all, Reduction::Mean, Some(-1))?
                .item()?
                .is_nan()
        );
        Ok(())
    })
}

/// Rows where NaN fills whole parts of the line (so some warps, or whole 16-byte vectors of
/// every lane, see only NaN and no maximum above `-inf`): softmax and log_softmax are NaN in
/// every element of such a row (the formula `exp(x - logsumexp)`, whose sum is NaN); a row
/// without NaN beside them keeps a sum of 1. Every float dtype, lengths around the warp, the
/// block and the register cache.
fn rows_nan_shares(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        for n in [64usize, 1000, 4096, 8192, 12000] {
            // Row k: its NaN pattern; the last row has none.
            let patterns: [&dyn Fn(usize) -> bool; 6] = [
                &|i| i != 0,
                &|i| i + 1 != n,
                &|i| i < n / 2,
                &|i| i >= n / 2,
                &|i| (i / 128) % 2 == 1,
                &|i| (i / 1024) % 4 == 3,
            ];
            let rows = patterns.len() + 1;
            let mut v = vec![0f32; rows * n];
            for (i, x) in v.iter_mut().enumerate() {
                let (r, j) = (i / n, i % n);
                *x = if r < patterns.len() && (patterns[r])(j) {
                    f32::NAN
                } else {
                    ((i * 29 % 97) as f32) / 20.0 - 2.0
                };
            }
            let a = Array::from_slice(&v, &[rows, n])?;
            let cases: [(&str, Array<f32>); 3] = [
                ("f32", a.clone()),
                ("bf16", a.cast::<cuprite_array::bf16>().cast::<f32>()),
                ("f64", a.cast::<f64>().cast::<f32>()),
            ];
            for (what, x) in cases {
                let outs = match what {
                    "bf16" => {
                        let h = x.cast::<cuprite_array::bf16>();
                        [h.softmax(1)?.cast::<f64>(), h.log_softmax(1)?.cast::<f64>()]
                    }
                    "f64" => {
                        let h = x.cast::<f64>();
                        [h.softmax(1)?, h.log_softmax(1)?]
                    }
                    _ => [x.softmax(1)?.cast::<f64>(), x.log_softmax(1)?.cast::<f64>()],
                };
                for (k, o) in outs.iter().enumerate() {
                    let got = o.to_vec()?;
                    for r in 0..rows {
                        let row = &got[r * n..(r + 1) * n];
                        let name = ["softmax", "log_softmax"][k];
                        if v[r * n..(r + 1) * n].iter().any(|x| x.is_nan()) {
                            if let Some(j) = row.iter().position(|y| !y.is_nan()) {
                                return Err(format!(
                                    "{what} n={n} {name} row {r} (with NaN): element {j} is {}, \
                                     not NaN",
                                    row[j]
                                )
                                .into());
                            }
                        } else if k == 0 {
                            let s: f64 = row.iter().sum();
                            if (s - 1.0).abs() > 1e-2 {
                                return Err(format!("{what} n={n} row {r}: sums to {s}").into());
                            }
                        } else if let Some(j) = row.iter().position(|y| !y.is_finite()) {
                            return Err(format!(
                                "{what} n={n} row {r}: log_softmax {j} is {}",
                                row[j]
                            )
                            .into());
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

/// Lines of lengths around the 16-byte vector of each dtype (8 half values, 4 `f32`, 2 `f64`)
/// and the registers of a block; lines that start off the vector's alignment or step by more
/// than one (views, read through the fused producer); lines along the middle axes of a 4-d
/// array (two outer and two inner coordinates to unravel), realised and fused.
fn rows_odd_lines(d: Device) -> TestResult {
    use cuprite_array::{bf16, f16, s};
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (t64, t32, t16, tb16) = ((1e-10, 1e-12), (3e-5, 3e-5), (2e-3, 2e-3), (1.6e-2, 1.6e-2));
        for n in [2, 7, 8, 9, 15, 16, 17, 24, 40, 1016, 4088, 4095, 4104, 8191] {
            let shape = [5, n];
            check_dtype::<f64>(&mut rng, &shape, 1, t64)?;
            check_dtype::<f32>(&mut rng, &shape, 1, t32)?;
            check_dtype::<f16>(&mut rng, &shape, 1, t16)?;
            check_dtype::<bf16>(&mut rng, &shape, 1, tb16)?;
        }
        for n in [4097usize, 1025] {
            let x = Array::from_slice(&rng.vec_f32(4 * n, -4.0, 4.0), &[4, n])?;
            let views = [
                (x.slice(&s![.., 1..])?, "from element 1 "),
                (x.slice(&s![.., ..;2])?, "every second element "),
                (x.slice(&s![1.., 3..;3])?, "every third element from 3 "),
            ];
            for (v, what) in &views {
                check_array::<f32>(&mut rng, v, 1, t32, what)?;
                check_array::<bf16>(&mut rng, &v.cast::<bf16>(), 1, tb16, what)?;
                check_array::<f16>(&mut rng, &v.cast::<f16>(), 1, t16, what)?;
            }
        }
        let x = Array::from_slice(&rng.vec_f32(2 * 3 * 40 * 5, -4.0, 4.0), &[2, 3, 40, 5])?;
        for axis in [1, 2] {
            check_array::<f32>(&mut rng, &x, axis, t32, "realised ")?;
            check_array::<f32>(&mut rng, &(&x * 0.5f32), axis, t32, "fused ")?;
            check_array::<bf16>(&mut rng, &x.cast::<bf16>(), axis, tb16, "fused ")?;
        }
        Ok(())
    })
}

/// NaN in realised arrays of every float dtype (the kernels without a producer, the streaming
/// form included): a line holding a NaN is NaN throughout for softmax and log_softmax and NaN
/// for logsumexp, also where whole warps' shares of the line are NaN and the others finite (the
/// shares of the vector layouts: 8 half values or 4 `f32` a lane, 32 lanes a warp); lines
/// without NaN keep their values (softmax sums to 1, logsumexp as the f64 formula).
fn rows_nan_plain(d: Device) -> TestResult {
    use cuprite_array::{bf16, f16};
    cuprite_array::with_device(d, || {
        for n in [256usize, 1000, 4096, 8192] {
            let patterns: [&dyn Fn(usize) -> bool; 7] = [
                &|i| i != 0,
                &|i| i + 1 == n,
                &|i| i < n / 2,
                &|i| i % 1024 < 256,
                &|i| i % 1024 >= 256,
                &|i| (i / 128) % 8 == 1,
                &|i| (i / 32) % 2 == 0,
            ];
            let rows = patterns.len() + 2;
            let v: Vec<f32> = (0..rows * n)
                .map(|i| {
                    let (r, j) = (i / n, i % n);
                    if r < patterns.len() && (patterns[r])(j) {
                        f32::NAN
                    } else {
                        ((i * 29 % 97) as f32) / 20.0 - 2.0
                    }
                })
                .collect();
            let a = Array::from_slice(&v, &[rows, n])?;
            let results = |dt: &str| -> cuprite_array::Result<[Vec<f64>; 4]> {
                macro_rules! run {
                    ($t:ty) => {{
                        let h = a.cast::<$t>();
                        h.eval()?;
                        [
                            h.softmax(1)?.cast::<f64>().to_vec()?,
                            h.log_softmax(1)?.cast::<f64>().to_vec()?,
                            h.logsumexp(1)?.cast::<f64>().to_vec()?,
                            h.cast::<f64>().to_vec()?,
                        ]
                    }};
                }
                Ok(match dt {
                    "bf16" => run!(bf16),
                    "f16" => run!(f16),
                    "f64" => run!(f64),
                    _ => run!(f32),
                })
            };
            for dt in ["f32", "bf16", "f16", "f64"] {
                let [sm, ls, lse, x] = results(dt)?;
                for r in 0..rows {
                    let line = &x[r * n..(r + 1) * n];
                    let what = format!("{dt} n={n} row {r}");
                    let (srow, lrow) = (&sm[r * n..(r + 1) * n], &ls[r * n..(r + 1) * n]);
                    if line.iter().any(|x| x.is_nan()) {
                        let bad = srow.iter().chain(lrow).position(|y| !y.is_nan());
                        if let Some(j) = bad {
                            return Err(
                                format!("{what} (NaN): softmax/log_softmax {j} not NaN").into()
                            );
                        }
                        if !lse[r].is_nan() {
                            return Err(format!("{what} (NaN): logsumexp {}", lse[r]).into());
                        }
                    } else {
                        let s: f64 = srow.iter().sum();
                        let m = line.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                        let want = m + line.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
                        let lerr = (lse[r] - want).abs() / want.abs().max(1.0);
                        if (s - 1.0).abs() > 2e-2
                            || lerr > 1e-2
                            || lrow.iter().any(|y| !y.is_finite())
                        {
                            return Err(format!(
                                "{what}: softmax sums to {s}, logsumexp {} vs {want}",
                                lse[r]
                            )
                            .into());
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

/// Logsumexp of realised half-precision arrays (the packed form: lines of up to 4096 values held
/// as packed 16-byte vectors by a warp or a block, other lines read again) against the f64
/// formula: lengths around the 16-byte vector (8 values), the powers of two of vectors a thread
/// and of threads a line, more lines than a block holds (4 a warp each) and than a wave of
/// blocks, lines along a middle axis (strided),
/// lines starting one line into the storage (aligned when the length is a multiple of 8), and
/// rows holding a NaN, a `+inf`, only `-inf` and one `-inf` among finite values.
fn rows_lse_half_packed(d: Device) -> TestResult {
    use cuprite_array::{bf16, f16, s};
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let lines = [9usize, 601];
        let lens = [
            1usize, 7, 8, 9, 100, 256, 257, 1000, 1024, 1032, 2048, 2056, 4000, 4088, 4095, 4096,
        ];
        for &rows in &lines {
            for &n in &lens {
                if d == Device::CPU && rows * n > 1 << 20 {
                    continue;
                }
                let mut v = rng.vec_f32(rows * n, -6.0, 6.0);
                // Row 1: a NaN; row 2: a +inf; row 3: nothing above -inf; row 4: one -inf.
                v[n + n / 2] = f32::NAN;
                v[2 * n + n - 1] = f32::INFINITY;
                v[3 * n..4 * n].fill(f32::NEG_INFINITY);
                v[4 * n] = f32::NEG_INFINITY;
                let x = Array::from_slice(&v, &[rows, n])?;
                macro_rules! check {
                    ($t:ty, $tol:expr) => {{
                        let h = x.cast::<$t>();
                        h.eval()?;
                        let cases = [
                            (h.clone(), "last axis"),
                            (h.slice(&s![1.., ..])?, "from line 1"),
                            (h.reshape(&[1, rows, n])?.permute(&[0, 2, 1])?, "strided"),
                        ];
                        for (a, what) in &cases {
                            let axis = a.ndim() - 1 - usize::from(*what == "strided");
                            let xr = a.cast::<f64>().to_vec()?;
                            let got = a.logsumexp(axis as isize)?.cast::<f64>().to_vec()?;
                            let want = lse_ref(&xr, a.shape(), axis);
                            let dt = <$t>::DTYPE;
                            let what = format!("logsumexp of {dt} {:?} {what}", a.shape());
                            close(&got, &want, $tol, $tol, &what)?;
                        }
                    }};
                }
                check!(bf16, 1.6e-2);
                check!(f16, 2e-3);
            }
        }
        Ok(())
    })
}

/// Logsumexp along `axis` of a contiguous `shape` in f64: NaN with a NaN, `+inf` with a `+inf`,
/// `-inf` with nothing above `-inf`.
fn lse_ref(x: &[f64], shape: &[usize], axis: usize) -> Vec<f64> {
    let outer: usize = shape[..axis].iter().product();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for j in 0..inner {
            let line: Vec<f64> = (0..n).map(|i| x[(o * n + i) * inner + j]).collect();
            let m = line.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            out.push(if line.iter().any(|v| v.is_nan()) {
                f64::NAN
            } else if m.is_infinite() {
                m
            } else {
                m + line.iter().map(|&v| (v - m).exp()).sum::<f64>().ln()
            });
        }
    }
    out
}

pub const BODIES: &[(&str, Body)] = &[
    ("rows_lse_half_packed", rows_lse_half_packed),
    ("rows_nan_shares", rows_nan_shares),
    ("rows_nan_plain", rows_nan_plain),
    ("rows_odd_lines", rows_odd_lines),
    ("rows_fused_producer", rows_fused_producer),
    ("cross_entropy_reductions", cross_entropy_reductions),
    ("rows_values", rows_values),
    ("rows_extremes", rows_extremes),
    ("rows_fuse_and_err", rows_fuse_and_err),
    ("one_hot_cross_entropy", one_hot_cross_entropy),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::rows::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::rows::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::gpu_alone(
        "cuda::rows::fused_allocates_output_only",
        rows_fused_allocates_output_only,
    ));
    v.push(Test::nvrtc("rows::kernels_compile", kernels_compile));
    v
}

/// The row kernels' entry points (their names start so).
const ROW_KERNELS: &[&str] = &[
    "cuprite_softmax_",
    "cuprite_log_softmax_",
    "cuprite_logsumexp_",
    "cuprite_layer_norm_",
    "cuprite_rms_norm_",
    "cuprite_normalize_",
    "cuprite_normalize2_",
];

/// The row kernels the bodies above use compile with NVRTC, one for each dtype, operation,
/// weight and bias and fused producer (the line shapes only change template constants; every
/// kernel of every shape is compiled by `codegen::every_generated_kernel_compiles`).
fn kernels_compile() -> TestResult {
    use cuprite_array::tuning;
    tuning::compiler::start_recording();
    let mut errors = Vec::new();
    for &(name, body) in BODIES {
        if let Err(e) = body(Device::CPU) {
            errors.push(format!("{name}: {e}"));
        }
    }
    let mut names = std::collections::HashSet::new();
    let sources: Vec<String> = tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| {
            let name = s
                .split("__global__ void __launch_bounds__(")
                .nth(1)
                .and_then(|r| r.split_once(") "))
                .and_then(|(_, r)| r.split('(').next())
                .unwrap_or("");
            // The name without its line shape (`_t{threads}_r{items}`).
            let family: String = name
                .split('_')
                .filter(|part| {
                    let digits = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
                    !(part.strip_prefix('t').is_some_and(digits)
                        || part.strip_prefix('r').is_some_and(digits))
                })
                .collect::<Vec<_>>()
                .join("_");
            ROW_KERNELS.iter().any(|k| name.starts_with(k)) && names.insert(family)
        })
        .collect();
    if !errors.is_empty() {
        return Err(errors.join("\n").into());
    }
    // 4 dtypes x 7 operations, plus weights, biases and fused producers.
    assert!(
        sources.len() > 28,
        "only {} row kernels recorded",
        sources.len()
    );
    eprintln!("compiling {} row kernels", sources.len());
    for opts in [
        tuning::compiler::compile_options(90, true),
        tuning::compiler::quick_compile_options(90),
    ] {
        for src in &sources {
            if let Err(e) = cuprite_driver::nvrtc::compile(src, &opts) {
                return Err(format!("row kernel failed to compile: {e}\n{src}").into());
            }
        }
    }
    Ok(())
}
