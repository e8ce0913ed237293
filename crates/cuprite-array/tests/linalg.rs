//! Linear algebra on arrays: products (every dtype, transposed, strided and broadcast
//! operands, NumPy's 1-D rules), automatic epilogue fusion, and the decompositions, against
//! f64 references computed here, on both backends.
//!
//! Error bounds: a product of inner dimension `k` computed in a type of unit roundoff `u`
//! (accumulation) and stored in a type of unit roundoff `v` satisfies, element-wise,
//! `|C − C_ref| ≤ c·k·u·(|A|·|B|) + v·|C_ref|` (the classic `γ_k` bound, `c = 2` for
//! slack); decompositions are checked by residuals `‖A − QR‖ ≤ c·n·u·‖A‖` and alike.

use crate::common::Body;
use cuprite_array::linalg::{self, NormOrd};
use cuprite_array::{Array, Device, Element, Error, bf16, c32, c64, f16, s, stats};
use cuprite_testkit::{Rng, Test, TestResult};

/// Element types of the product tests, with f64 conversions and their unit roundoffs.
trait El: Element + cuprite_array::dtype::Numeric {
    fn from64(x: f64) -> Self;
    fn to64(self) -> f64;
    /// The unit roundoff of storage.
    const STORE: f64;
    /// The unit roundoff of accumulation.
    const ACC: f64;
}
macro_rules! el {
    ($t:ty, $from:expr, $to:expr, $store:expr, $acc:expr) => {
        impl El for $t {
            fn from64(x: f64) -> Self {
                $from(x)
            }
            fn to64(self) -> f64 {
                $to(self)
            }
            const STORE: f64 = $store;
            const ACC: f64 = $acc;
        }
    };
}
el!(
    f32,
    |x| x as f32,
    |x: f32| x as f64,
    f32::EPSILON as f64,
    f32::EPSILON as f64
);
el!(f64, |x| x, |x| x, f64::EPSILON, f64::EPSILON);
el!(
    f16,
    f16::from_f64,
    |x: f16| x.to_f64(),
    1.0 / 1024.0,
    f32::EPSILON as f64
);
el!(
    bf16,
    bf16::from_f64,
    |x: bf16| x.to_f64(),
    1.0 / 128.0,
    f32::EPSILON as f64
);

fn rand64(rng: &mut Rng, n: usize) -> Vec<f64> {
    rng.vec_f32(n, -1.0, 1.0)
        .iter()
        .map(|&x| x as f64)
        .collect()
}

/// Row-major `batch × m × n` reference of `a` (`batch_a × m × k`) times `b`, with batches
/// broadcast by index modulo, and `|A|·|B|` for the bound.
fn mm_ref(
    a: &[f64],
    b: &[f64],
    (batch, m, n, k): (usize, usize, usize, usize),
    (ba, bb): (usize, usize),
) -> (Vec<f64>, Vec<f64>) {
    let mut c = vec![0.0; batch * m * n];
    let mut mag = vec![0.0; batch * m * n];
    for t in 0..batch {
        let (pa, pb) = (&a[(t % ba) * m * k..], &b[(t % bb) * k * n..]);
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut g) = (0.0, 0.0);
                for p in 0..k {
                    s += pa[i * k + p] * pb[p * n + j];
                    g += (pa[i * k + p] * pb[p * n + j]).abs();
                }
                c[(t * m + i) * n + j] = s;
                mag[(t * m + i) * n + j] = g;
            }
        }
    }
    (c, mag)
}

fn check_bound(
    got: &[f64],
    want: &[f64],
    mag: &[f64],
    k: usize,
    (acc, store): (f64, f64),
    what: &str,
) -> TestResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    for i in 0..got.len() {
        let bound = 2.0 * k as f64 * acc * mag[i] + 2.0 * store * want[i].abs() + 1e-300;
        if (got[i] - want[i]).abs() > bound || got[i].is_nan() {
            return Err(format!(
                "{what}: element {i}: got {}, expected {} (bound 2·k·u·|A||B| + 2·v·|C| = {bound:e})",
                got[i], want[i]
            )
            .into());
        }
    }
    Ok(())
}

/// Rounds values through `T` (the reference then uses exactly the stored inputs).
fn through<T: El>(x: &[f64]) -> (Vec<T>, Vec<f64>) {
    let t: Vec<T> = x.iter().map(|&v| T::from64(v)).collect();
    let back = t.iter().map(|v| v.to64()).collect();
    (t, back)
}

fn product_case<T: El>(
    d: Device,
    rng: &mut Rng,
    shape_a: &[usize],
    shape_b: &[usize],
) -> TestResult {
    let (na, nb) = (shape_a.len(), shape_b.len());
    let (m, k, n) = (shape_a[na - 2], shape_a[na - 1], shape_b[nb - 1]);
    let ba: usize = shape_a[..na - 2].iter().product();
    let bb: usize = shape_b[..nb - 2].iter().product();
    let batch = ba.max(bb);
    let (ta, ra) = through::<T>(&rand64(rng, ba * m * k));
    let (tb, rb) = through::<T>(&rand64(rng, bb * k * n));
    let a = Array::from_slice_on(d, &ta, shape_a)?;
    let b = Array::from_slice_on(d, &tb, shape_b)?;
    let c = a.matmul(&b)?;
    let got: Vec<f64> = c.to_vec()?.into_iter().map(El::to64).collect();
    let (want, mag) = mm_ref(&ra, &rb, (batch, m, n, k), (ba, bb));
    check_bound(
        &got,
        &want,
        &mag,
        k,
        (T::ACC, T::STORE),
        &format!("{} {shape_a:?} @ {shape_b:?}", T::DTYPE),
    )
}

fn matmul_dtypes(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        for (sa, sb) in [
            (vec![33, 47], vec![47, 29]),
            (vec![1, 64], vec![64, 1]),
            (vec![3, 17, 40], vec![3, 40, 9]),
            (vec![128, 256], vec![256, 64]),
        ] {
            product_case::<f32>(d, &mut rng, &sa, &sb)?;
            product_case::<f64>(d, &mut rng, &sa, &sb)?;
            product_case::<f16>(d, &mut rng, &sa, &sb)?;
            product_case::<bf16>(d, &mut rng, &sa, &sb)?;
        }
        // Complex: against a complex f64 reference, bound 4·k·u·|A||B|.
        let (m, k, n) = (19, 23, 11);
        let x = rand64(&mut rng, 2 * m * k);
        let y = rand64(&mut rng, 2 * k * n);
        let za: Vec<c64> = x.chunks(2).map(|p| c64::new(p[0], p[1])).collect();
        let zb: Vec<c64> = y.chunks(2).map(|p| c64::new(p[0], p[1])).collect();
        let mut want = vec![c64::new(0.0, 0.0); m * n];
        let mut mag = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    want[i * n + j] += za[i * k + p] * zb[p * n + j];
                    mag[i * n + j] += za[i * k + p].norm() * zb[p * n + j].norm();
                }
            }
        }
        let got64 = Array::from_slice_on(d, &za, &[m, k])?
            .matmul(&Array::from_slice_on(d, &zb, &[k, n])?)?
            .to_vec()?;
        let a32: Vec<c32> = za
            .iter()
            .map(|z| c32::new(z.re as f32, z.im as f32))
            .collect();
        let b32: Vec<c32> = zb
            .iter()
            .map(|z| c32::new(z.re as f32, z.im as f32))
            .collect();
        let got32 = Array::from_slice_on(d, &a32, &[m, k])?
            .matmul(&Array::from_slice_on(d, &b32, &[k, n])?)?
            .to_vec()?;
        for i in 0..m * n {
            let e64 = (got64[i] - want[i]).norm();
            let g32 = c64::new(got32[i].re as f64, got32[i].im as f64);
            let e32 = (g32 - want[i]).norm();
            let b64 = 4.0 * k as f64 * f64::EPSILON * mag[i];
            // c32 inputs were rounded from the f64 ones: that rounding is in the bound too.
            let b32 = 4.0 * (k as f64 + 2.0) * f32::EPSILON as f64 * mag[i];
            if e64 > b64 || e32 > b32 {
                return Err(format!(
                    "complex matmul element {i}: c64 error {e64:e} (bound {b64:e}), c32 error \
                     {e32:e} (bound {b32:e})"
                )
                .into());
            }
        }
        Ok(())
    })
}

/// Transposed, strided (padded leading dimension), broadcast and 1-D operands.
fn matmul_views(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (m, k, n) = (21, 34, 13);
        let x = rand64(&mut rng, m * k);
        let y = rand64(&mut rng, k * n);
        let (want, mag) = mm_ref(&x, &y, (1, m, n, k), (1, 1));
        let u = (f64::EPSILON, f64::EPSILON);
        // A stored transposed (k × m), read as its transpose.
        let mut xt = vec![0.0; m * k];
        for i in 0..m {
            for p in 0..k {
                xt[p * m + i] = x[i * k + p];
            }
        }
        let at = Array::from_slice_on(d, &xt, &[k, m])?;
        let b = Array::from_slice_on(d, &y, &[k, n])?;
        let got = at.t().matmul(&b)?.to_vec()?;
        check_bound(&got, &want, &mag, k, u, "transposed A")?;
        // B transposed too.
        let mut yt = vec![0.0; k * n];
        for p in 0..k {
            for j in 0..n {
                yt[j * k + p] = y[p * n + j];
            }
        }
        let bt = Array::from_slice_on(d, &yt, &[n, k])?;
        let got = at.t().matmul(&bt.t())?.to_vec()?;
        check_bound(&got, &want, &mag, k, u, "transposed A and B")?;
        // A as a column slice of a wider matrix (leading dimension k + 5).
        let mut wide = rand64(&mut rng, m * (k + 5));
        for i in 0..m {
            wide[i * (k + 5) + 2..i * (k + 5) + 2 + k].copy_from_slice(&x[i * k..(i + 1) * k]);
        }
        let w = Array::from_slice_on(d, &wide, &[m, k + 5])?;
        let a_view = w.slice(&s![.., 2..2 + k as isize])?;
        let got = a_view.matmul(&b)?.to_vec()?;
        check_bound(&got, &want, &mag, k, u, "strided A")?;
        // A row-strided (every other row of a taller matrix).
        let mut tall = rand64(&mut rng, 2 * m * k);
        for i in 0..m {
            tall[2 * i * k..(2 * i + 1) * k].copy_from_slice(&x[i * k..(i + 1) * k]);
        }
        let tl = Array::from_slice_on(d, &tall, &[2 * m, k])?;
        let got = tl.slice(&s![..;2, ..])?.matmul(&b)?.to_vec()?;
        check_bound(&got, &want, &mag, k, u, "row-strided A")?;
        // An expression operand (realised first) and a lazy result consumer.
        let a = Array::from_slice_on(d, &x, &[m, k])?;
        let got = (&a * 2.0).matmul(&b)?.to_vec()?;
        let want2: Vec<f64> = want.iter().map(|v| 2.0 * v).collect();
        let mag2: Vec<f64> = mag.iter().map(|v| 2.0 * v).collect();
        check_bound(&got, &want2, &mag2, k, u, "expression A")?;
        // Broadcast batches: [m, k] @ [3, k, n]; [2, 1, m, k] @ [1, 3, k, n] (no one stride).
        for (sa, sb, ba, bb) in [
            (vec![m, k], vec![3, k, n], 1, 3),
            (vec![1, m, k], vec![3, k, n], 1, 3),
            (vec![3, m, k], vec![k, n], 3, 1),
        ] {
            let xa = rand64(&mut rng, ba * m * k);
            let yb = rand64(&mut rng, bb * k * n);
            let (w, g) = mm_ref(&xa, &yb, (3, m, n, k), (ba, bb));
            let got =
                Array::from_slice_on(d, &xa, &sa)?.matmul(&Array::from_slice_on(d, &yb, &sb)?)?;
            assert_eq!(got.shape(), &[3, m, n]);
            check_bound(&got.to_vec()?, &w, &g, k, u, &format!("{sa:?} @ {sb:?}"))?;
        }
        let xa = rand64(&mut rng, 2 * m * k);
        let yb = rand64(&mut rng, 3 * k * n);
        let got = Array::from_slice_on(d, &xa, &[2, 1, m, k])?.matmul(&Array::from_slice_on(
            d,
            &yb,
            &[1, 3, k, n],
        )?)?;
        assert_eq!(got.shape(), &[2, 3, m, n]);
        let got = got.to_vec()?;
        for i in 0..2 {
            for j in 0..3 {
                let (w, g) = mm_ref(
                    &xa[i * m * k..(i + 1) * m * k],
                    &yb[j * k * n..(j + 1) * k * n],
                    (1, m, n, k),
                    (1, 1),
                );
                let off = (i * 3 + j) * m * n;
                check_bound(
                    &got[off..off + m * n],
                    &w,
                    &g,
                    k,
                    u,
                    "[2,1,m,k] @ [1,3,k,n]",
                )?;
            }
        }
        // NumPy's 1-D rules.
        let v = Array::from_slice_on(d, &y[..k], &[k])?;
        let mv = a.matmul(&v)?;
        assert_eq!(mv.shape(), &[m]);
        let vm = v.matmul(&b)?;
        assert_eq!(vm.shape(), &[n]);
        let vv = v.matmul(&v)?;
        assert_eq!(vv.shape(), &[] as &[usize]);
        let dot_ref: f64 = y[..k].iter().map(|t| t * t).sum();
        assert!((vv.item()? - dot_ref).abs() <= 2.0 * k as f64 * f64::EPSILON * dot_ref);
        let (w, g) = mm_ref(&x, &y[..k], (1, m, 1, k), (1, 1));
        check_bound(&mv.to_vec()?, &w, &g, k, u, "matrix @ vector")?;
        // Empty inner dimension: zeros.
        let z = Array::<f32>::zeros(&[3, 0]).matmul(&Array::<f32>::zeros(&[0, 4]))?;
        assert_eq!(z.to_vec()?, vec![0.0f32; 12]);
        Ok(())
    })
}

fn matmul_errors(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let a = Array::<f32>::zeros(&[2, 3]);
        let b = Array::<f32>::zeros(&[4, 5]);
        let e = a.matmul(&b).expect_err("3 ≠ 4");
        let msg = e.to_string();
        assert!(
            matches!(e, Error::Shape(_)) && msg.contains("[2, 3]") && msg.contains("[4, 5]"),
            "{msg}"
        );
        assert!(msg.contains("axis 1") && msg.contains("axis 0"), "{msg}");
        let e = Array::<f32>::zeros(&[2, 2, 3])
            .matmul(&Array::<f32>::zeros(&[3, 3, 4]))
            .expect_err("batch 2 vs 3");
        assert!(
            e.to_string().contains("[2]") && e.to_string().contains("[3]"),
            "{e}"
        );
        // Integer products run (exactly); their shape errors are the float ones.
        let e = Array::<i32>::zeros(&[2, 3])
            .matmul(&Array::<i32>::zeros(&[2, 2]))
            .expect_err("3 ≠ 2");
        assert!(e.to_string().contains("[2, 3]"), "{e}");
        let e = linalg::tensordot(&a, &b, &[1], &[1]).expect_err("3 ≠ 5");
        assert!(
            e.to_string().contains("[2, 3]") && e.to_string().contains("[4, 5]"),
            "{e}"
        );
        crate::common::assert_err(
            linalg::einsum("ij,jk->ik", &[&a, &b]),
            "InvalidArgument",
            "label 'j' has 3 and 4 elements",
        );
        crate::common::assert_err(
            linalg::einsum("ii->i", &[&a]),
            "InvalidArgument",
            "label 'i' has 2 and 3 elements",
        );
        crate::common::assert_err(
            linalg::einsum("ij,jk->ikq", &[&a, &a.t()]),
            "InvalidArgument",
            "output label 'q'",
        );
        crate::common::assert_err(
            linalg::einsum("..ij,jk", &[&a, &a.t()]),
            "InvalidArgument",
            "'.' in \"..ij\" is not a label",
        );
        Ok(())
    })
}

/// `(a @ w + bias)` then an activation: one call with an epilogue (counted), equal to the
/// unfused evaluation.
fn epilogue_fusion(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (m, k, n) = (37, 64, 48);
        fn run<T: El + cuprite_array::dtype::Float>(
            d: Device,
            rng: &mut Rng,
            (m, k, n): (usize, usize, usize),
        ) -> TestResult {
            let (ta, _) = through::<T>(&rand64(rng, m * k));
            let (tw, _) = through::<T>(&rand64(rng, k * n));
            let (tb, _) = through::<T>(&rand64(rng, n));
            let a = Array::from_slice_on(d, &ta, &[m, k])?;
            let w = Array::from_slice_on(d, &tw, &[k, n])?;
            let bias = Array::from_slice_on(d, &tb, &[n])?;
            // The unfused reference: the product realised first, then element-wise work.
            let plain = a.matmul(&w)?;
            plain.eval()?;
            let tol = 4.0 * T::STORE + 2.0 * k as f64 * T::ACC;
            let half = T::from64(0.5);
            let cases: [(&str, Array<T>, Array<T>); 7] = [
                ("bias", a.matmul(&w)?.try_add(&bias)?, plain.try_add(&bias)?),
                ("relu", a.matmul(&w)?.relu(), plain.relu()),
                ("gelu", a.matmul(&w)?.gelu(), plain.gelu()),
                (
                    "bias+relu",
                    a.matmul(&w)?.try_add(&bias)?.relu(),
                    plain.try_add(&bias)?.relu(),
                ),
                (
                    "bias+gelu",
                    a.matmul(&w)?.try_add(&bias)?.gelu(),
                    plain.try_add(&bias)?.gelu(),
                ),
                // The second activation stays element-wise on the fused ReLU product.
                (
                    "relu+gelu",
                    a.matmul(&w)?.relu().gelu(),
                    plain.relu().gelu(),
                ),
                (
                    "scale+bias",
                    a.matmul(&w)?.try_mul(half)?.try_add(&bias)?,
                    plain.try_mul(half)?.try_add(&bias)?,
                ),
            ];
            for (name, fused, unfused) in cases {
                let before = stats::thread_fused_epilogues();
                let f: Vec<f64> = fused.to_vec()?.into_iter().map(El::to64).collect();
                let after = stats::thread_fused_epilogues();
                // cuBLASLt's f64 products take a bias or a ReLU alone: GELU alone is not fused,
                // and of bias+ReLU and bias+GELU the bias is (one fused call, the activation
                // after it as an element-wise kernel).
                let limited =
                    d != Device::CPU && T::DTYPE == cuprite_array::DType::F64 && name == "gelu";
                let want = if limited { before } else { before + 1 };
                if after != want {
                    return Err(format!(
                        "{} {name}: {} fused epilogues ran, {} expected",
                        T::DTYPE,
                        after - before,
                        want - before
                    )
                    .into());
                }
                let u: Vec<f64> = unfused.to_vec()?.into_iter().map(El::to64).collect();
                assert_eq!(
                    stats::thread_fused_epilogues(),
                    after,
                    "{name}: unfused fused"
                );
                for (i, (x, y)) in f.iter().zip(&u).enumerate() {
                    if (x - y).abs() > tol * (1.0 + y.abs()) {
                        return Err(format!(
                            "{} {name}: element {i}: fused {x}, unfused {y} (tolerance {tol:e})",
                            T::DTYPE
                        )
                        .into());
                    }
                }
            }
            // A bias of the wrong length for the last axis is not absorbed, still correct.
            let col = Array::from_slice_on(d, &tb[..1], &[1])?;
            let before = stats::thread_fused_epilogues();
            let _ = a.matmul(&w)?.try_add(&col)?.to_vec()?;
            assert_eq!(
                stats::thread_fused_epilogues(),
                before,
                "a [1] bias for n = 48"
            );
            let rows = Array::from_slice_on(d, &ta[..m], &[m, 1])?;
            let before = stats::thread_fused_epilogues();
            let r: Vec<f64> = a
                .matmul(&w)?
                .try_add(&rows)?
                .to_vec()?
                .into_iter()
                .map(El::to64)
                .collect();
            assert_eq!(
                stats::thread_fused_epilogues(),
                before,
                "a per-row bias is not fused"
            );
            let p: Vec<f64> = plain.to_vec()?.into_iter().map(El::to64).collect();
            for i in 0..m {
                for j in 0..n {
                    let want = p[i * n + j] + ta[i].to64();
                    assert!((r[i * n + j] - want).abs() <= tol * (1.0 + want.abs()));
                }
            }
            Ok(())
        }
        run::<f32>(d, &mut rng, (m, k, n))?;
        run::<f64>(d, &mut rng, (m, k, n))?;
        run::<bf16>(d, &mut rng, (m, k, n))?;
        run::<f16>(d, &mut rng, (m, k, n))?;
        // gelu is the tanh approximation, as the epilogue computes it.
        let x = Array::from_slice_on(d, &[-1.0f64, 0.5, 2.0], &[3])?;
        let g = x.gelu().to_vec()?;
        for (v, x) in g.iter().zip([-1.0f64, 0.5, 2.0]) {
            let want = 0.5
                * x
                * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x)).tanh());
            assert!((v - want).abs() < 1e-14, "gelu({x}) = {v}, expected {want}");
        }
        Ok(())
    })
}

/// A full matrix added to or subtracted from a single product (`± C`, after an optional scale
/// and bias) becomes C of cuBLASLt's `alpha·A·B + beta·C` (counted), against an f64 reference
/// of the stored inputs; shapes it cannot take stay element-wise and correct.
fn addend_fusion(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        fn run<T: El + cuprite_array::dtype::Float>(d: Device, rng: &mut Rng) -> TestResult {
            let (m, k, n) = (29, 40, 24);
            let (ta, ra) = through::<T>(&rand64(rng, m * k));
            let (tw, rw) = through::<T>(&rand64(rng, k * n));
            let (tc, rc) = through::<T>(&rand64(rng, m * n));
            let (tb, rb) = through::<T>(&rand64(rng, n));
            let a = Array::from_slice_on(d, &ta, &[m, k])?;
            // A transposed view, as a weight gradient `xᵀ·g` reads it.
            let at = Array::from_slice_on(d, &transpose_t(&ta, m, k), &[k, m])?.t();
            let w = Array::from_slice_on(d, &tw, &[k, n])?;
            let c = Array::from_slice_on(d, &tc, &[m, n])?;
            let bias = Array::from_slice_on(d, &tb, &[n])?;
            let (prod, mag) = mm_ref(&ra, &rw, (1, m, n, k), (1, 1));
            let half = T::from64(0.5);
            // (name, expression, alpha, beta, with bias, epilogues fused for f64 on CUDA:
            // cuBLASLt's f64 products take a scale or a bias but no C, so there only a scale,
            // or a bias added straight to the product, is fused)
            let cases: [(&str, Array<T>, f64, f64, bool, u64); 6] = [
                ("+C", a.matmul(&w)?.try_add(&c)?, 1.0, 1.0, false, 0),
                ("-C", a.matmul(&w)?.try_sub(&c)?, 1.0, -1.0, false, 0),
                ("C-", c.try_sub(&a.matmul(&w)?)?, -1.0, 1.0, false, 0),
                (
                    "C - 0.5 (Aᵀ)ᵀW",
                    c.try_sub(&at.matmul(&w)?.try_mul(half)?)?,
                    -0.5,
                    1.0,
                    false,
                    1,
                ),
                (
                    "+bias-C",
                    a.matmul(&w)?.try_add(&bias)?.try_sub(&c)?,
                    1.0,
                    -1.0,
                    true,
                    1,
                ),
                (
                    "+C+bias",
                    a.matmul(&w)?.try_add(&c)?.try_add(&bias)?,
                    1.0,
                    1.0,
                    true,
                    0,
                ),
            ];
            for (name, expr, alpha, beta, with_bias, f64_fused) in cases {
                let before = stats::thread_fused_epilogues();
                let got: Vec<f64> = expr.to_vec()?.into_iter().map(El::to64).collect();
                let ran = stats::thread_fused_epilogues() - before;
                // On CUDA an f64 sum with C stays element-wise (its values are checked all the
                // same).
                let f64_cuda = d != Device::CPU && T::DTYPE == cuprite_array::DType::F64;
                let fused = if f64_cuda { f64_fused } else { 1 };
                if ran != fused {
                    return Err(format!(
                        "{} {name}: {ran} fused products, {fused} expected",
                        T::DTYPE
                    )
                    .into());
                }
                let mut want = vec![0.0; m * n];
                let mut bound_mag = vec![0.0; m * n];
                for i in 0..m {
                    for (j, &bj) in rb.iter().enumerate() {
                        let x = i * n + j;
                        let b = if with_bias { bj } else { 0.0 };
                        want[x] = alpha * prod[x] + beta * rc[x] + b;
                        bound_mag[x] = alpha.abs() * mag[x] + rc[x].abs() + b.abs();
                    }
                }
                check_bound(
                    &got,
                    &want,
                    &bound_mag,
                    k,
                    (T::ACC, T::STORE),
                    &format!("{} {name}", T::DTYPE),
                )?;
            }
            // `C - (A·B + bias)` would need the bias negated: the bias is fused, the
            // subtraction stays element-wise; a batch of products takes no C.
            let before = stats::thread_fused_epilogues();
            let got: Vec<f64> = c
                .try_sub(&a.matmul(&w)?.try_add(&bias)?)?
                .to_vec()?
                .into_iter()
                .map(El::to64)
                .collect();
            assert_eq!(
                stats::thread_fused_epilogues() - before,
                1,
                "C - (AB + bias)"
            );
            for i in 0..m {
                for (j, &bj) in rb.iter().enumerate() {
                    let x = i * n + j;
                    let want = rc[x] - prod[x] - bj;
                    let bound = 2.0 * k as f64 * T::ACC * mag[x]
                        + 4.0 * T::STORE * (want.abs() + rc[x].abs() + prod[x].abs() + bj.abs());
                    assert!(
                        (got[x] - want).abs() <= bound,
                        "{} C - (AB + bias) [{x}]: {} vs {want}",
                        T::DTYPE,
                        got[x]
                    );
                }
            }
            let a3 = a.reshape(&[1, m, k])?.broadcast_to(&[2, m, k])?;
            let c3 = c
                .reshape(&[1, m, n])?
                .broadcast_to(&[2, m, n])?
                .contiguous()?;
            let before = stats::thread_fused_epilogues();
            let got: Vec<f64> = a3
                .matmul(&w)?
                .try_sub(&c3)?
                .to_vec()?
                .into_iter()
                .map(El::to64)
                .collect();
            assert_eq!(
                stats::thread_fused_epilogues(),
                before,
                "batched product - C"
            );
            for (x, g) in got.iter().enumerate() {
                let e = x % (m * n);
                let want = prod[e] - rc[e];
                let bound = 2.0 * k as f64 * T::ACC * mag[e]
                    + 4.0 * T::STORE * (rc[e].abs() + prod[e].abs());
                assert!((g - want).abs() <= bound, "batched [{x}]: {g} vs {want}");
            }
            Ok(())
        }
        let mut rng = Rng::fresh();
        run::<f32>(d, &mut rng)?;
        run::<f64>(d, &mut rng)?;
        run::<bf16>(d, &mut rng)?;
        run::<f16>(d, &mut rng)
    })
}

/// Row-major `c × r` transpose of a row-major `r × c` matrix.
fn transpose_t<T: Copy>(a: &[T], r: usize, c: usize) -> Vec<T> {
    let mut t = Vec::with_capacity(r * c);
    for j in 0..c {
        for i in 0..r {
            t.push(a[i * c + j]);
        }
    }
    t
}

fn gelu64(z: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * z * (1.0 + (c * (z + 0.044715 * z * z * z)).tanh())
}

fn gelu_grad64(z: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    let t = (c * (z + 0.044715 * z * z * z)).tanh();
    0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044715 * z * z)
}

/// `matmul_gelu_with_input` and `matmul_gelu_grad` (on CUDA, cuBLASLt's `GELU_AUX_BIAS`
/// epilogue; a plain product and the fused derivative pass, or the `DGELU` epilogue and a
/// column sum) against f64 references of the stored inputs, for each float type, row lengths
/// the epilogues take (48, 72) and one they do not (20, computed unfused), a transposed `b`,
/// and a pre-activation that is an unaligned view.
fn gelu_training_products(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        fn run<T: El + cuprite_array::dtype::Float + cuprite_array::dtype::Transcendental>(
            d: Device,
            rng: &mut Rng,
            (m, k, n): (usize, usize, usize),
        ) -> TestResult {
            let (ta, ra) = through::<T>(
                &rand64(rng, m * k)
                    .iter()
                    .map(|x| 2.0 * x)
                    .collect::<Vec<_>>(),
            );
            let (tw, rw) = through::<T>(&rand64(rng, k * n));
            let (tb, rb) = through::<T>(&rand64(rng, n));
            let a = Array::from_slice_on(d, &ta, &[m, k])?;
            let w = Array::from_slice_on(d, &tw, &[k, n])?;
            let bias = Array::from_slice_on(d, &tb, &[n])?;
            let fits = T::DTYPE != cuprite_array::DType::F64 && n % 8 == 0;
            let counted = d == Device::CPU || fits;
            let what = |s: &str| format!("{} {m}x{k}x{n} {s}", T::DTYPE);

            // Forward: pre = A·W + bias, h = gelu(pre).
            let before = stats::thread_fused_epilogues();
            let (h, pre) = linalg::matmul_gelu_with_input(&a, &w, Some(&bias))?;
            let hv: Vec<f64> = h.to_vec()?.into_iter().map(El::to64).collect();
            let pv: Vec<f64> = pre.to_vec()?.into_iter().map(El::to64).collect();
            let ran = stats::thread_fused_epilogues() - before;
            if counted && ran != 1 {
                return Err(
                    format!("{}: {ran} fused products, 1 expected", what("forward")).into(),
                );
            }
            let (prod, mag) = mm_ref(&ra, &rw, (1, m, n, k), (1, 1));
            for i in 0..m {
                for (j, &bj) in rb.iter().enumerate() {
                    let x = i * n + j;
                    let z = prod[x] + bj;
                    let ez = 2.0 * k as f64 * T::ACC * (mag[x] + bj.abs()) + 1e-300;
                    if (pv[x] - z).abs() > ez + 2.0 * T::STORE * z.abs() || pv[x].is_nan() {
                        return Err(
                            format!("{} pre[{x}] = {}, want {z}", what("forward"), pv[x]).into(),
                        );
                    }
                    // |gelu'| ≤ 1.13: the error of the unrounded pre-activation carries over.
                    let g = gelu64(z);
                    let eh = 1.2 * ez + 2.0 * T::STORE * (g.abs() + z.abs()) + 1e-12;
                    if (hv[x] - g).abs() > eh || hv[x].is_nan() {
                        return Err(format!(
                            "{} h[{x}] = {}, want {g} ± {eh:e}",
                            what("forward"),
                            hv[x]
                        )
                        .into());
                    }
                }
            }

            // Backward: g = s·(dY·Wᵀ) ⊙ gelu'(pre), db = Σ_rows g, with Wᵀ a view.
            let (ty, ry) = through::<T>(&rand64(rng, m * k));
            let (tz, rz) = through::<T>(
                &rand64(rng, m * n)
                    .iter()
                    .map(|x| 3.0 * x)
                    .collect::<Vec<_>>(),
            );
            let dy = Array::from_slice_on(d, &ty, &[m, k])?;
            let wt = Array::from_slice_on(d, &transpose_t(&tw, k, n), &[n, k])?.t();
            // `pre` whole, and as a view one element into a larger buffer (not 16-byte
            // aligned: the fused pass reads it a column at a time).
            let mut padded = vec![tz[0]];
            padded.extend_from_slice(&tz);
            let z_whole = Array::from_slice_on(d, &tz, &[m, n])?;
            let z_view = Array::from_slice_on(d, &padded, &[m * n + 1])?
                .slice(&cuprite_array::s![1..])?
                .reshape(&[m, n])?;
            let scale = 0.25;
            let (prod, mag) = mm_ref(&ry, &rw, (1, m, n, k), (1, 1));
            let fused_before = linalg::gelu_grad_fused();
            for (fused, z) in [(true, &z_whole), (false, &z_whole), (true, &z_view)] {
                linalg::set_gelu_grad_fused(fused);
                let before = stats::thread_fused_epilogues();
                let got = linalg::matmul_gelu_grad(&dy, &wt, z, scale);
                linalg::set_gelu_grad_fused(fused_before);
                let (g, db) = got?;
                let gv: Vec<f64> = g.to_vec()?.into_iter().map(El::to64).collect();
                let dbv: Vec<f64> = db.to_vec()?.into_iter().map(El::to64).collect();
                let ran = stats::thread_fused_epilogues() - before;
                let what = |s: &str| what(&format!("{s} (fused pass {fused})"));
                if counted && ran != 1 {
                    return Err(
                        format!("{}: {ran} fused products, 1 expected", what("backward")).into(),
                    );
                }
                if g.shape() != [m, n] || db.shape() != [n] {
                    return Err(format!(
                        "{}: shapes {:?} and {:?}",
                        what("backward"),
                        g.shape(),
                        db.shape()
                    )
                    .into());
                }
                let mut sums = vec![0.0; n];
                let mut sum_bound = vec![0.0; n];
                for i in 0..m {
                    for j in 0..n {
                        let x = i * n + j;
                        let d1 = gelu_grad64(rz[x]);
                        let want = scale * prod[x] * d1;
                        // cuBLASLt evaluates gelu' in its epilogue with a fast tanh (relative
                        // error near 2^-11): the derivative may be off by 2e-3 of the product.
                        // The fused pass rounds the product, then g (two roundings).
                        let e = scale * 2.0 * k as f64 * T::ACC * mag[x] * d1.abs()
                            + 2.0 * T::STORE * want.abs()
                            + 2e-3 * (scale * prod[x]).abs()
                            + 1e-300;
                        if (gv[x] - want).abs() > e || gv[x].is_nan() {
                            return Err(format!(
                                "{} g[{x}] = {}, want {want} ± {e:e}",
                                what("backward"),
                                gv[x]
                            )
                            .into());
                        }
                        sums[j] += want;
                        sum_bound[j] += e;
                    }
                }
                for j in 0..n {
                    let e = sum_bound[j] + 2.0 * T::STORE * sums[j].abs() + 1e-12;
                    if (dbv[j] - sums[j]).abs() > e || dbv[j].is_nan() {
                        return Err(format!(
                            "{} db[{j}] = {}, want {} ± {e:e}",
                            what("backward"),
                            dbv[j],
                            sums[j]
                        )
                        .into());
                    }
                }
            }
            // Wrong shapes are errors naming them.
            let e = linalg::matmul_gelu_grad(&dy, &wt, &a, scale)
                .err()
                .ok_or("a pre-activation of the wrong shape was accepted")?;
            assert!(e.to_string().contains(&format!("{:?}", a.shape())), "{e}");
            Ok(())
        }
        let mut rng = Rng::fresh();
        // 300 rows: several chunks of rows in the fused pass.
        for dims in [(37, 64, 48), (19, 24, 20), (300, 16, 72)] {
            run::<f32>(d, &mut rng, dims)?;
            run::<bf16>(d, &mut rng, dims)?;
            run::<f16>(d, &mut rng, dims)?;
            run::<f64>(d, &mut rng, dims)?;
        }
        Ok(())
    })
}

fn products(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let x = rand64(&mut rng, 24);
        let y = rand64(&mut rng, 24);
        let a = Array::from_slice_on(d, &x, &[2, 3, 4])?;
        let b = Array::from_slice_on(d, &y, &[4, 3, 2])?;
        let tol = 1e-13;
        // tensordot over a's axes (1, 2) and b's (1, 0): [2] x [2].
        let got = linalg::tensordot(&a, &b, &[1, 2], &[1, 0])?;
        assert_eq!(got.shape(), &[2, 2]);
        let got = got.to_vec()?;
        for i in 0..2 {
            for j in 0..2 {
                let mut s = 0.0;
                for p in 0..3 {
                    for q in 0..4 {
                        s += x[(i * 3 + p) * 4 + q] * y[(q * 3 + p) * 2 + j];
                    }
                }
                assert!((got[i * 2 + j] - s).abs() < tol, "tensordot");
            }
        }
        // einsum, batched with a transposed output order.
        let e = linalg::einsum("bij,jkb->bik", &[&a, &b])?;
        assert_eq!(e.shape(), &[2, 3, 3]);
        let e2 = linalg::einsum("bij,jkb->kbi", &[&a, &b])?;
        assert_eq!(e2.shape(), &[3, 2, 3]);
        let (ev, e2v) = (e.to_vec()?, e2.to_vec()?);
        for bb in 0..2 {
            for i in 0..3 {
                for kk in 0..3 {
                    let mut s = 0.0;
                    for j in 0..4 {
                        s += x[(bb * 3 + i) * 4 + j] * y[(j * 3 + kk) * 2 + bb];
                    }
                    assert!((ev[(bb * 3 + i) * 3 + kk] - s).abs() < tol, "einsum");
                    assert!(
                        (e2v[(kk * 2 + bb) * 3 + i] - s).abs() < tol,
                        "einsum permuted"
                    );
                }
            }
        }
        // dot, inner, vdot, outer.
        let v = Array::from_slice_on(d, &y[..4], &[4])?;
        let dv = linalg::dot(&a, &v)?;
        assert_eq!(dv.shape(), &[2, 3]);
        let iv = linalg::inner(&a, &v)?.to_vec()?;
        for (r, (g, h)) in dv.to_vec()?.iter().zip(&iv).enumerate() {
            let s: f64 = (0..4).map(|q| x[r * 4 + q] * y[q]).sum();
            assert!((g - s).abs() < tol && (h - s).abs() < tol, "dot / inner");
        }
        let z1 = [c64::new(1.0, 2.0), c64::new(-0.5, 0.25)];
        let z2 = [c64::new(0.0, 1.0), c64::new(3.0, -1.0)];
        let vd = linalg::vdot(
            &Array::from_slice_on(d, &z1, &[2])?,
            &Array::from_slice_on(d, &z2, &[2])?,
        )?
        .item()?;
        let want = z1[0].conj() * z2[0] + z1[1].conj() * z2[1];
        assert!((vd - want).norm() < tol, "vdot {vd} vs {want}");
        let o = linalg::outer(&v, &Array::from_slice_on(d, &x[..3], &[3])?)?;
        assert_eq!(o.shape(), &[4, 3]);
        assert_eq!(o.to_vec()?[5], y[1] * x[2]);
        assert_eq!(linalg::dot(&v, &v)?.shape(), &[] as &[usize]);
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Decompositions.

fn mat_mul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    mm_ref(a, b, (1, m, n, k), (1, 1)).0
}

fn transpose(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut t = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j];
        }
    }
    t
}

fn fro(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn diff(a: &[f64], b: &[f64]) -> f64 {
    fro(&a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<_>>())
}

fn eye(n: usize) -> Vec<f64> {
    let mut e = vec![0.0; n * n];
    for i in 0..n {
        e[i * n + i] = 1.0;
    }
    e
}

trait Re: El + linalg::Real {}
impl Re for f32 {}
impl Re for f64 {}

fn vals<T: Re>(a: &Array<T>) -> Result<Vec<f64>, Error> {
    Ok(a.to_vec()?.into_iter().map(El::to64).collect())
}

/// `‖got‖ ≤ c·n·u·scale`, or an Err naming the residual.
fn residual(what: &str, r: f64, c: f64, n: usize, u: f64, scale: f64) -> TestResult {
    let bound = c * n as f64 * u * scale;
    if r.is_nan() || r > bound {
        return Err(format!("{what}: residual {r:e} > {c}·n·u·scale = {bound:e}").into());
    }
    Ok(())
}

fn decompositions_of<T: Re>(d: Device, rng: &mut Rng) -> TestResult {
    let u = T::ACC;
    let n = 24;
    let (ta, a) = through::<T>(&rand64(rng, n * n));
    let arr = Array::from_slice_on(d, &ta, &[n, n])?;
    let na = fro(&a);
    // solve, several right-hand sides and one.
    let (tb, b) = through::<T>(&rand64(rng, n * 3));
    let x = vals(&linalg::solve(
        &arr,
        &Array::from_slice_on(d, &tb, &[n, 3])?,
    )?)?;
    let r = diff(&mat_mul(&a, &x, n, n, 3), &b);
    residual("solve", r, 10.0, n, u, na * fro(&x) + fro(&b))?;
    let x1 = vals(&linalg::solve(
        &arr,
        &Array::from_slice_on(d, &tb[..n], &[n])?,
    )?)?;
    let b1: Vec<f64> = b[..n].to_vec();
    let r = diff(&mat_mul(&a, &x1, n, n, 1), &b1);
    residual("solve (vector)", r, 10.0, n, u, na * fro(&x1) + fro(&b1))?;
    // inv.
    let ai = vals(&linalg::inv(&arr)?)?;
    let r = diff(&mat_mul(&a, &ai, n, n, n), &eye(n));
    residual("inv", r, 10.0, n, u, na * fro(&ai))?;
    // det and slogdet against an f64 elimination of the same (rounded) values.
    let want_det = {
        let z: Vec<Z> = a.iter().map(|&x| Z::new(x, 0.0)).collect();
        zdet(&z, n).re
    };
    // To first order a backward error ΔA moves log|det A| by tr(A⁻¹ΔA) ≤ ‖A⁻¹‖_F ‖ΔA‖_F, and
    // elimination's ‖ΔA‖_F is about n·u·‖A‖_F: the bound grows with the condition number
    // (Frobenius), at least the 100·n·u of a well-conditioned matrix.
    let cond = na * fro(&ai);
    let tol = n as f64 * u * cond.max(100.0);
    let (sign, logdet) = linalg::slogdet(&arr)?;
    assert_eq!(sign, want_det.signum(), "slogdet sign");
    assert!(
        (logdet - want_det.abs().ln()).abs() < tol,
        "slogdet {logdet} vs {} (condition {cond:.0})",
        want_det.abs().ln()
    );
    let det = linalg::det(&arr)?;
    assert!((det - want_det).abs() <= tol * want_det.abs(), "det");
    // cholesky of A·Aᵀ + n·I.
    let mut spd = mat_mul(&a, &transpose(&a, n, n), n, n, n);
    for i in 0..n {
        spd[i * n + i] += n as f64;
    }
    let (ts, spd) = through::<T>(&spd);
    let l = vals(&linalg::cholesky(&Array::from_slice_on(d, &ts, &[n, n])?)?)?;
    for i in 0..n {
        for j in i + 1..n {
            assert_eq!(
                l[i * n + j],
                0.0,
                "cholesky: L[{i}, {j}] above the diagonal"
            );
        }
    }
    let r = diff(&mat_mul(&l, &transpose(&l, n, n), n, n, n), &spd);
    residual("cholesky", r, 10.0, n, u, fro(&spd))?;
    // qr of a tall and a wide matrix.
    for (m, k) in [(30, 12), (9, 20)] {
        let (tq, q0) = through::<T>(&rand64(rng, m * k));
        let (q, rr) = linalg::qr(&Array::from_slice_on(d, &tq, &[m, k])?)?;
        let p = m.min(k);
        assert_eq!(
            (q.shape(), rr.shape()),
            (&[m, p][..], &[p, k][..]),
            "qr shapes"
        );
        let (q, rr) = (vals(&q)?, vals(&rr)?);
        for i in 0..p {
            for j in 0..i.min(k) {
                assert_eq!(rr[i * k + j], 0.0, "qr: R[{i}, {j}] below the diagonal");
            }
        }
        let r = diff(&mat_mul(&q, &rr, m, p, k), &q0);
        residual("qr: A − QR", r, 10.0, m.max(k), u, fro(&q0))?;
        let r = diff(&mat_mul(&transpose(&q, m, p), &q, p, m, p), &eye(p));
        residual("qr: QᵀQ − I", r, 10.0, m.max(k), u, (p as f64).sqrt())?;
        // svd of the same.
        let (uu, s, vt) = linalg::svd(&Array::from_slice_on(d, &tq, &[m, k])?)?;
        assert_eq!(
            (uu.shape(), s.shape(), vt.shape()),
            (&[m, p][..], &[p][..], &[p, k][..])
        );
        let (uu, s, vt) = (vals(&uu)?, vals(&s)?, vals(&vt)?);
        assert!(
            s.windows(2).all(|w| w[0] >= w[1]) && s[p - 1] >= 0.0,
            "svd order {s:?}"
        );
        let mut us = uu.clone();
        for i in 0..m {
            for j in 0..p {
                us[i * p + j] *= s[j];
            }
        }
        let r = diff(&mat_mul(&us, &vt, m, p, k), &q0);
        residual("svd: A − USVᵀ", r, 20.0, m.max(k), u, fro(&q0))?;
        let r = diff(&mat_mul(&transpose(&uu, m, p), &uu, p, m, p), &eye(p));
        residual("svd: UᵀU − I", r, 20.0, m.max(k), u, (p as f64).sqrt())?;
        // pinv: A·A⁺·A = A; lstsq of the tall one against the normal equations.
        let pi = vals(&linalg::pinv(&Array::from_slice_on(d, &tq, &[m, k])?)?)?;
        let r = diff(&mat_mul(&mat_mul(&q0, &pi, m, k, m), &q0, m, m, k), &q0);
        residual(
            "pinv: A·A⁺·A − A",
            r,
            50.0,
            m.max(k),
            u,
            fro(&q0) * fro(&pi) * fro(&q0),
        )?;
        if m > k {
            let (tb, bb) = through::<T>(&rand64(rng, m));
            let xs = vals(&linalg::lstsq(
                &Array::from_slice_on(d, &tq, &[m, k])?,
                &Array::from_slice_on(d, &tb, &[m])?,
            )?)?;
            // Aᵀ(Ax − b) = 0 at the least-squares solution.
            let res: Vec<f64> = mat_mul(&q0, &xs, m, k, 1)
                .iter()
                .zip(&bb)
                .map(|(x, y)| x - y)
                .collect();
            let g = mat_mul(&transpose(&q0, m, k), &res, k, m, 1);
            residual(
                "lstsq: Aᵀ(Ax − b)",
                fro(&g),
                50.0,
                m,
                u,
                fro(&q0) * (fro(&q0) * fro(&xs) + fro(&bb)),
            )?;
        }
    }
    // eigh of the symmetric part.
    let sym: Vec<f64> = (0..n * n)
        .map(|t| 0.5 * (a[t] + a[(t % n) * n + t / n]))
        .collect();
    let (tsym, sym) = through::<T>(&sym);
    let (w, v) = linalg::eigh(&Array::from_slice_on(d, &tsym, &[n, n])?)?;
    let (w, v) = (vals(&w)?, vals(&v)?);
    assert!(w.windows(2).all(|p| p[0] <= p[1]), "eigh: ascending {w:?}");
    let mut vw = v.clone();
    for i in 0..n {
        for j in 0..n {
            vw[i * n + j] *= w[j];
        }
    }
    let r = diff(&mat_mul(&sym, &v, n, n, n), &vw);
    residual("eigh: AV − VW", r, 20.0, n, u, fro(&sym))?;
    let r = diff(&mat_mul(&transpose(&v, n, n), &v, n, n, n), &eye(n));
    residual("eigh: VᵀV − I", r, 20.0, n, u, (n as f64).sqrt())?;
    // norms and rank.
    let fro_got = linalg::norm(&arr, NormOrd::Fro)?;
    assert!((fro_got - na).abs() <= 4.0 * n as f64 * u * na, "norm fro");
    let one_want = (0..n)
        .map(|j| (0..n).map(|i| a[i * n + j].abs()).sum::<f64>())
        .fold(0.0, f64::max);
    assert!((linalg::norm(&arr, NormOrd::One)? - one_want).abs() <= 4.0 * n as f64 * u * one_want);
    let (_, s, _) = linalg::svd(&arr)?;
    let s = vals(&s)?;
    assert!((linalg::norm(&arr, NormOrd::Spectral)? - s[0]).abs() <= 4.0 * u * s[0]);
    // Rank 3 by construction: a sum of three outer products.
    let mut low = vec![0.0; n * n];
    for _ in 0..3 {
        let (p, q) = (rand64(rng, n), rand64(rng, n));
        for i in 0..n {
            for j in 0..n {
                low[i * n + j] += p[i] * q[j];
            }
        }
    }
    let (tl, _) = through::<T>(&low);
    assert_eq!(
        linalg::matrix_rank(&Array::from_slice_on(d, &tl, &[n, n])?)?,
        3,
        "rank"
    );
    // Full rank by construction: `A + 2n·I` with entries of `A` in [-1, 1) is strictly
    // diagonally dominant by at least `n + 1` in every row, so its smallest singular value is
    // at least `(n + 1) / √n`, far above the rank tolerance (a random `A` alone can fall
    // under it in `f32`).
    let dominant: Vec<f64> = (0..n * n)
        .map(|k| {
            a[k] + if k % (n + 1) == 0 {
                2.0 * n as f64
            } else {
                0.0
            }
        })
        .collect();
    let (td, _) = through::<T>(&dominant);
    assert_eq!(
        linalg::matrix_rank(&Array::from_slice_on(d, &td, &[n, n])?)?,
        n,
        "full rank"
    );
    Ok(())
}

fn decompositions(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        decompositions_of::<f64>(d, &mut rng)?;
        decompositions_of::<f32>(d, &mut rng)?;
        Ok(())
    })
}

/// A random orthogonal `n × n` matrix: modified Gram–Schmidt, twice, on random columns.
fn orthogonal(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut q = rand64(rng, n * n);
    for _ in 0..2 {
        for j in 0..n {
            for p in 0..j {
                let dot: f64 = (0..n).map(|i| q[i * n + j] * q[i * n + p]).sum();
                for i in 0..n {
                    q[i * n + j] -= dot * q[i * n + p];
                }
            }
            let norm = (0..n).map(|i| q[i * n + j].powi(2)).sum::<f64>().sqrt();
            for i in 0..n {
                q[i * n + j] /= norm;
            }
        }
    }
    q
}

/// `U·diag(s)·Vᵀ` for orthogonal `U`, `V` of order `n`.
fn with_spectrum(u: &[f64], s: &[f64], v: &[f64], n: usize) -> Vec<f64> {
    let mut us = u.to_vec();
    for i in 0..n {
        for j in 0..n {
            us[i * n + j] *= s[j];
        }
    }
    mat_mul(&us, &transpose(v, n, n), n, n, n)
}

/// Badly conditioned inputs (condition number 1e10 in f64, 1e5 in f32; singular values spread
/// geometrically): the backward-stable routines still meet residual bounds that do not grow
/// with the condition number (`‖A·x − b‖ ≤ c·n·u·(‖A‖·‖x‖ + ‖b‖)`, `‖A − U·S·Vᵀ‖ ≤ c·n·u·‖A‖`),
/// and the singular values and eigenvalues are within `c·n·u·‖A‖₂` of the ones the matrix was
/// built with (Weyl's bound).
fn ill_conditioned_of<T: Re>(d: Device, rng: &mut Rng, kappa: f64) -> TestResult {
    let u = T::ACC;
    let n = 32;
    let s: Vec<f64> = (0..n)
        .map(|i| kappa.powf(-(i as f64) / (n - 1) as f64))
        .collect();
    let (qu, qv) = (orthogonal(rng, n), orthogonal(rng, n));
    let (ta, a) = through::<T>(&with_spectrum(&qu, &s, &qv, n));
    let arr = Array::from_slice_on(d, &ta, &[n, n])?;
    let na = fro(&a);
    // solve and inv: residuals, whatever the conditioning.
    let (tb, b) = through::<T>(&rand64(rng, n * 2));
    let x = vals(&linalg::solve(
        &arr,
        &Array::from_slice_on(d, &tb, &[n, 2])?,
    )?)?;
    let r = diff(&mat_mul(&a, &x, n, n, 2), &b);
    residual(
        "ill-conditioned solve",
        r,
        10.0,
        n,
        u,
        na * fro(&x) + fro(&b),
    )?;
    let ai = vals(&linalg::inv(&arr)?)?;
    let r = diff(&mat_mul(&a, &ai, n, n, n), &eye(n));
    residual("ill-conditioned inv", r, 10.0, n, u, na * fro(&ai))?;
    // svd: the residual, and each singular value within Weyl's bound of the built ones.
    let (uu, sv, vt) = linalg::svd(&arr)?;
    let (uu, sv, vt) = (vals(&uu)?, vals(&sv)?, vals(&vt)?);
    let mut us = uu.clone();
    for i in 0..n {
        for j in 0..n {
            us[i * n + j] *= sv[j];
        }
    }
    let r = diff(&mat_mul(&us, &vt, n, n, n), &a);
    residual("ill-conditioned svd: A − USVᵀ", r, 20.0, n, u, na)?;
    for (i, (&got, &want)) in sv.iter().zip(&s).enumerate() {
        residual(
            &format!("ill-conditioned svd: σ{i} = {got:e}, built {want:e}"),
            (got - want).abs(),
            20.0,
            n,
            u,
            s[0],
        )?;
    }
    assert_eq!(
        linalg::matrix_rank(&arr)?,
        s.iter().filter(|&&x| x > n as f64 * T::EPS * s[0]).count(),
        "rank of the ill-conditioned matrix"
    );
    // qr: the residual and Q's orthogonality.
    let (q, rr) = linalg::qr(&arr)?;
    let (q, rr) = (vals(&q)?, vals(&rr)?);
    let r = diff(&mat_mul(&q, &rr, n, n, n), &a);
    residual("ill-conditioned qr: A − QR", r, 10.0, n, u, na)?;
    let r = diff(&mat_mul(&transpose(&q, n, n), &q, n, n, n), &eye(n));
    residual(
        "ill-conditioned qr: QᵀQ − I",
        r,
        10.0,
        n,
        u,
        (n as f64).sqrt(),
    )?;
    // cholesky and eigh of the SPD matrix V·diag(s)·Vᵀ.
    let (ts, spd) = through::<T>(&with_spectrum(&qv, &s, &qv, n));
    let spd_arr = Array::from_slice_on(d, &ts, &[n, n])?;
    let l = vals(&linalg::cholesky(&spd_arr)?)?;
    let r = diff(&mat_mul(&l, &transpose(&l, n, n), n, n, n), &spd);
    residual(
        "ill-conditioned cholesky: LLᵀ − A",
        r,
        10.0,
        n,
        u,
        fro(&spd),
    )?;
    let (w, v) = linalg::eigh(&spd_arr)?;
    let (w, v) = (vals(&w)?, vals(&v)?);
    let mut want: Vec<f64> = s.clone();
    want.sort_by(f64::total_cmp);
    for (i, (&got, &want)) in w.iter().zip(&want).enumerate() {
        residual(
            &format!("ill-conditioned eigh: λ{i} = {got:e}, built {want:e}"),
            (got - want).abs(),
            20.0,
            n,
            u,
            s[0],
        )?;
    }
    let r = diff(&mat_mul(&transpose(&v, n, n), &v, n, n, n), &eye(n));
    residual(
        "ill-conditioned eigh: VᵀV − I",
        r,
        20.0,
        n,
        u,
        (n as f64).sqrt(),
    )?;
    Ok(())
}

fn ill_conditioned(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        ill_conditioned_of::<f64>(d, &mut rng, 1e10)?;
        ill_conditioned_of::<f32>(d, &mut rng, 1e5)?;
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Complex decompositions, checked by residuals computed in complex f64 here.

type Z = num_complex::Complex<f64>;

/// Complex element types of the decomposition tests.
trait Ce: Element + linalg::Scalar<Wide = c64> {
    fn from_z(z: Z) -> Self;
    fn to_z(self) -> Z;
    /// The unit roundoff.
    const U: f64;
}
impl Ce for c32 {
    fn from_z(z: Z) -> Self {
        c32::new(z.re as f32, z.im as f32)
    }
    fn to_z(self) -> Z {
        Z::new(self.re as f64, self.im as f64)
    }
    const U: f64 = f32::EPSILON as f64;
}
impl Ce for c64 {
    fn from_z(z: Z) -> Self {
        z
    }
    fn to_z(self) -> Z {
        self
    }
    const U: f64 = f64::EPSILON;
}

/// `n` random complex values, rounded to `T`, and the rounded values in `Z`.
fn zrand<T: Ce>(rng: &mut Rng, n: usize) -> (Vec<T>, Vec<Z>) {
    let re = rand64(rng, n);
    let im = rand64(rng, n);
    let t: Vec<T> = re
        .iter()
        .zip(&im)
        .map(|(&r, &i)| T::from_z(Z::new(r, i)))
        .collect();
    let z = t.iter().map(|x| x.to_z()).collect();
    (t, z)
}

fn zvals<T: Ce>(a: &Array<T>) -> Result<Vec<Z>, Error> {
    Ok(a.to_vec()?.into_iter().map(Ce::to_z).collect())
}

/// `a` (`m × k`) times `b` (`k × n`), row-major.
fn zmm(a: &[Z], b: &[Z], m: usize, k: usize, n: usize) -> Vec<Z> {
    let mut c = vec![Z::new(0.0, 0.0); m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j];
            }
        }
    }
    c
}

/// The conjugate transpose of an `m × n` matrix.
fn zh(a: &[Z], m: usize, n: usize) -> Vec<Z> {
    let mut t = vec![Z::new(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j].conj();
        }
    }
    t
}

fn zfro(a: &[Z]) -> f64 {
    a.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt()
}

fn zdiff(a: &[Z], b: &[Z]) -> f64 {
    zfro(&a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<_>>())
}

fn zeye(n: usize) -> Vec<Z> {
    (0..n * n)
        .map(|t| Z::new(if t / n == t % n { 1.0 } else { 0.0 }, 0.0))
        .collect()
}

/// The determinant of `a` by Gaussian elimination with partial pivoting, in complex `f64` (for
/// real matrices too).
fn zdet(a: &[Z], n: usize) -> Z {
    let mut m = a.to_vec();
    let mut det = Z::new(1.0, 0.0);
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| m[i * n + c].norm().total_cmp(&m[j * n + c].norm()))
            .expect("rows");
        if p != c {
            for j in 0..n {
                m.swap(c * n + j, p * n + j);
            }
            det = -det;
        }
        det *= m[c * n + c];
        for i in c + 1..n {
            let f = m[i * n + c] / m[c * n + c];
            for j in c..n {
                let t = m[c * n + j];
                m[i * n + j] -= f * t;
            }
        }
    }
    det
}

fn complex_decompositions_of<T: Ce>(d: Device, rng: &mut Rng) -> TestResult
where
    linalg::RealOf<T>: El,
{
    let u = T::U;
    let n = 20;
    let (ta, a) = zrand::<T>(rng, n * n);
    let arr = Array::from_slice_on(d, &ta, &[n, n])?;
    let na = zfro(&a);
    // solve: several right-hand sides and one.
    let (tb, b) = zrand::<T>(rng, n * 3);
    let x = zvals(&linalg::solve(
        &arr,
        &Array::from_slice_on(d, &tb, &[n, 3])?,
    )?)?;
    let r = zdiff(&zmm(&a, &x, n, n, 3), &b);
    residual("complex solve", r, 10.0, n, u, na * zfro(&x) + zfro(&b))?;
    let x1 = zvals(&linalg::solve(
        &arr,
        &Array::from_slice_on(d, &tb[..n], &[n])?,
    )?)?;
    let r = zdiff(&zmm(&a, &x1, n, n, 1), &b[..n]);
    residual(
        "complex solve (vector)",
        r,
        10.0,
        n,
        u,
        na * zfro(&x1) + zfro(&b[..n]),
    )?;
    // inv.
    let ai = zvals(&linalg::inv(&arr)?)?;
    let r = zdiff(&zmm(&a, &ai, n, n, n), &zeye(n));
    residual("complex inv", r, 10.0, n, u, na * zfro(&ai))?;
    // det and slogdet: the sign a complex number of modulus 1.
    let want = zdet(&a, n);
    let got: c64 = linalg::det(&arr)?;
    assert!(
        (got - want).norm() <= 100.0 * n as f64 * u * want.norm(),
        "complex det {got} vs {want}"
    );
    let (sign, logdet): (c64, f64) = linalg::slogdet(&arr)?;
    assert!((sign.norm() - 1.0).abs() < 1e-12, "slogdet sign {sign}");
    assert!(
        (sign - want / want.norm()).norm() < 100.0 * n as f64 * u,
        "slogdet sign {sign}"
    );
    assert!(
        (logdet - want.norm().ln()).abs() < 100.0 * n as f64 * u,
        "slogdet log {logdet}"
    );
    // cholesky of A·Aᴴ + n·I (Hermitian positive definite): L lower, real positive diagonal.
    let mut hpd = zmm(&a, &zh(&a, n, n), n, n, n);
    for i in 0..n {
        hpd[i * n + i] += Z::new(n as f64, 0.0);
    }
    let th: Vec<T> = hpd.iter().map(|&z| T::from_z(z)).collect();
    let hpd: Vec<Z> = th.iter().map(|x| x.to_z()).collect();
    let l = zvals(&linalg::cholesky(&Array::from_slice_on(d, &th, &[n, n])?)?)?;
    for i in 0..n {
        assert!(l[i * n + i].re > 0.0 && l[i * n + i].im.abs() <= 10.0 * u * l[i * n + i].re);
        for j in i + 1..n {
            assert_eq!(
                l[i * n + j],
                Z::new(0.0, 0.0),
                "cholesky: L[{i}, {j}] above the diagonal"
            );
        }
    }
    let r = zdiff(&zmm(&l, &zh(&l, n, n), n, n, n), &hpd);
    residual("complex cholesky: LLᴴ − A", r, 10.0, n, u, zfro(&hpd))?;
    // qr and svd of a tall and a wide matrix; pinv; lstsq of the tall one.
    for (m, k) in [(26, 11), (8, 19)] {
        let (tq, q0) = zrand::<T>(rng, m * k);
        let aq = Array::from_slice_on(d, &tq, &[m, k])?;
        let p = m.min(k);
        let (q, rr) = linalg::qr(&aq)?;
        assert_eq!(
            (q.shape(), rr.shape()),
            (&[m, p][..], &[p, k][..]),
            "qr shapes"
        );
        let (q, rr) = (zvals(&q)?, zvals(&rr)?);
        for i in 0..p {
            for j in 0..i.min(k) {
                assert_eq!(
                    rr[i * k + j],
                    Z::new(0.0, 0.0),
                    "qr: R[{i}, {j}] below the diagonal"
                );
            }
        }
        let r = zdiff(&zmm(&q, &rr, m, p, k), &q0);
        residual("complex qr: A − QR", r, 10.0, m.max(k), u, zfro(&q0))?;
        let r = zdiff(&zmm(&zh(&q, m, p), &q, p, m, p), &zeye(p));
        residual(
            "complex qr: QᴴQ − I",
            r,
            10.0,
            m.max(k),
            u,
            (p as f64).sqrt(),
        )?;
        let (uu, sv, vh) = linalg::svd(&aq)?;
        assert_eq!(
            (uu.shape(), sv.shape(), vh.shape()),
            (&[m, p][..], &[p][..], &[p, k][..])
        );
        let sv: Vec<f64> = sv.to_vec()?.into_iter().map(El::to64).collect();
        let (uu, vh) = (zvals(&uu)?, zvals(&vh)?);
        assert!(
            sv.windows(2).all(|w| w[0] >= w[1]) && sv[p - 1] >= 0.0,
            "svd order {sv:?}"
        );
        let mut us = uu.clone();
        for i in 0..m {
            for j in 0..p {
                us[i * p + j] *= sv[j];
            }
        }
        let r = zdiff(&zmm(&us, &vh, m, p, k), &q0);
        residual("complex svd: A − USVᴴ", r, 20.0, m.max(k), u, zfro(&q0))?;
        let r = zdiff(&zmm(&zh(&uu, m, p), &uu, p, m, p), &zeye(p));
        residual(
            "complex svd: UᴴU − I",
            r,
            20.0,
            m.max(k),
            u,
            (p as f64).sqrt(),
        )?;
        let r = zdiff(&zmm(&vh, &zh(&vh, p, k), p, k, p), &zeye(p));
        residual(
            "complex svd: VᴴV − I",
            r,
            20.0,
            m.max(k),
            u,
            (p as f64).sqrt(),
        )?;
        // Spectral and nuclear norms, rank.
        let spec = linalg::norm(&aq, NormOrd::Spectral)?;
        assert!(
            (spec - sv[0]).abs() <= 4.0 * u * sv[0],
            "spectral norm {spec}"
        );
        assert_eq!(linalg::matrix_rank(&aq)?, p, "full rank");
        let pi = zvals(&linalg::pinv(&aq)?)?;
        let r = zdiff(&zmm(&zmm(&q0, &pi, m, k, m), &q0, m, m, k), &q0);
        residual(
            "complex pinv: A·A⁺·A − A",
            r,
            50.0,
            m.max(k),
            u,
            zfro(&q0) * zfro(&pi) * zfro(&q0),
        )?;
        if m > k {
            let (tb, bb) = zrand::<T>(rng, m);
            let xs = zvals(&linalg::lstsq(&aq, &Array::from_slice_on(d, &tb, &[m])?)?)?;
            // Aᴴ(Ax − b) = 0 at the least-squares solution.
            let res: Vec<Z> = zmm(&q0, &xs, m, k, 1)
                .iter()
                .zip(&bb)
                .map(|(x, y)| x - y)
                .collect();
            let g = zmm(&zh(&q0, m, k), &res, k, m, 1);
            residual(
                "complex lstsq: Aᴴ(Ax − b)",
                zfro(&g),
                50.0,
                m,
                u,
                zfro(&q0) * (zfro(&q0) * zfro(&xs) + zfro(&bb)),
            )?;
        }
    }
    // eigh of the Hermitian part: real ascending eigenvalues, AV = VW, VᴴV = I.
    let ah = zh(&a, n, n);
    let herm: Vec<T> = a
        .iter()
        .zip(&ah)
        .map(|(x, y)| T::from_z((x + y) * 0.5))
        .collect();
    let hz: Vec<Z> = herm.iter().map(|x| x.to_z()).collect();
    let (w, v) = linalg::eigh(&Array::from_slice_on(d, &herm, &[n, n])?)?;
    let w: Vec<f64> = w.to_vec()?.into_iter().map(El::to64).collect();
    let v = zvals(&v)?;
    assert!(w.windows(2).all(|p| p[0] <= p[1]), "eigh: ascending {w:?}");
    let mut vw = v.clone();
    for i in 0..n {
        for j in 0..n {
            vw[i * n + j] *= w[j];
        }
    }
    // The lower triangle is what eigh reads: the reference is the Hermitian matrix it makes.
    let mut hl = hz.clone();
    for i in 0..n {
        for j in i + 1..n {
            hl[i * n + j] = hz[j * n + i].conj();
        }
        hl[i * n + i] = Z::new(hz[i * n + i].re, 0.0);
    }
    let r = zdiff(&zmm(&hl, &v, n, n, n), &vw);
    residual("complex eigh: AV − VW", r, 20.0, n, u, zfro(&hl))?;
    let r = zdiff(&zmm(&zh(&v, n, n), &v, n, n, n), &zeye(n));
    residual("complex eigh: VᴴV − I", r, 20.0, n, u, (n as f64).sqrt())?;
    // Norms of a complex matrix: moduli, not real parts.
    let fro = linalg::norm(&arr, NormOrd::Fro)?;
    assert!(
        (fro - na).abs() <= 4.0 * n as f64 * u * na,
        "norm fro {fro} vs {na}"
    );
    let one_want = (0..n)
        .map(|j| (0..n).map(|i| a[i * n + j].norm()).sum::<f64>())
        .fold(0.0, f64::max);
    let one = linalg::norm(&arr, NormOrd::One)?;
    assert!(
        (one - one_want).abs() <= 4.0 * n as f64 * u * one_want,
        "norm 1 {one} vs {one_want}"
    );
    // A stack of two: each matrix's inverse, and the singular values of each.
    let (t2, z2) = zrand::<T>(rng, 2 * 6 * 6);
    let st = Array::from_slice_on(d, &t2, &[2, 6, 6])?;
    let inv2 = zvals(&linalg::inv(&st)?)?;
    let (_, s2, _) = linalg::svd(&st)?;
    assert_eq!(s2.shape(), &[2, 6]);
    for b in 0..2 {
        let m = &z2[b * 36..(b + 1) * 36];
        let r = zdiff(&zmm(m, &inv2[b * 36..(b + 1) * 36], 6, 6, 6), &zeye(6));
        residual(
            "complex inv of a stack",
            r,
            10.0,
            6,
            u,
            zfro(m) * zfro(&inv2[b * 36..(b + 1) * 36]),
        )?;
        let (_, one_s, _) = linalg::svd(&Array::from_slice_on(
            d,
            &t2[b * 36..(b + 1) * 36],
            &[6, 6],
        )?)?;
        let (x, y): (Vec<f64>, Vec<f64>) = (
            one_s.to_vec()?.into_iter().map(El::to64).collect(),
            s2.to_vec()?[b * 6..(b + 1) * 6]
                .iter()
                .map(|v| v.to64())
                .collect(),
        );
        assert_eq!(x, y, "svd of matrix {b} of the stack");
    }
    Ok(())
}

fn complex_decompositions(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        complex_decompositions_of::<c64>(d, &mut rng)?;
        complex_decompositions_of::<c32>(d, &mut rng)?;
        Ok(())
    })
}

fn singular_and_not_spd(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        fn of<T: Re>(d: Device) -> TestResult {
            let v = |x: &[f64]| x.iter().map(|&t| T::from64(t)).collect::<Vec<T>>();
            // Rank 2 of 3: the third row is the sum of the others (exact in binary).
            let sing = Array::from_slice_on(
                d,
                &v(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 5.0, 7.0, 9.0]),
                &[3, 3],
            )?;
            let b = Array::from_slice_on(d, &v(&[1.0, 1.0, 1.0]), &[3])?;
            // Singular only up to rounding: whether its last pivot is exactly zero depends on
            // the order of the arithmetic, so solve and inv may succeed (NumPy's rule).
            // Its determinant is rounding error: |det| ≤ 100·n·u·∏‖row‖ (Hadamard's bound).
            let hadamard = 3.742 * 8.775 * 12.45;
            assert!(linalg::det(&sing)?.abs() <= 100.0 * 3.0 * T::ACC * hadamard);
            assert_eq!(linalg::matrix_rank(&sing)?, 2);
            // Exactly singular in elimination: det 0, slogdet (0, -inf).
            let exact = Array::from_slice_on(d, &v(&[1.0, 2.0, 2.0, 4.0]), &[2, 2])?;
            assert_eq!(linalg::det(&exact)?, 0.0);
            assert_eq!(linalg::slogdet(&exact)?, (0.0, f64::NEG_INFINITY));
            let e = linalg::solve(&exact, &Array::from_slice_on(d, &v(&[1.0, 1.0]), &[2])?)
                .expect_err("exactly singular");
            assert!(matches!(e, Error::Singular(_)), "{e:?}");
            let zero = Array::from_slice_on(d, &v(&[0.0; 4]), &[2, 2])?;
            assert!(matches!(linalg::inv(&zero), Err(Error::Singular(_))));
            let e = linalg::inv(&exact).expect_err("exactly singular inv");
            assert!(
                matches!(e, Error::Singular(_)) && e.to_string().contains("exactly zero"),
                "{e:?}"
            );
            // Symmetric, indefinite (eigenvalues 3 and -1).
            let indef = Array::from_slice_on(d, &v(&[1.0, 2.0, 2.0, 1.0]), &[2, 2])?;
            let e = linalg::cholesky(&indef).expect_err("not SPD");
            // Both backends name the leading minor that fails (the 2 × 2 one here).
            assert!(
                matches!(e, Error::NotPositiveDefinite(_))
                    && e.to_string()
                        .contains("leading minor of order 2 is not positive definite"),
                "{e:?}"
            );
            let e =
                linalg::cholesky(&Array::from_slice_on(d, &v(&[-1.0]), &[1, 1])?).expect_err("-1");
            assert!(
                matches!(e, Error::NotPositiveDefinite(_)) && e.to_string().contains("order 1 "),
                "{e:?}"
            );
            // Shapes.
            let rect = Array::from_slice_on(d, &v(&[1.0; 6]), &[2, 3])?;
            let e = linalg::solve(&rect, &b).expect_err("not square");
            assert!(e.to_string().contains("[2, 3]"), "{e}");
            let sq = Array::from_slice_on(d, &v(&[1.0, 0.0, 0.0, 1.0]), &[2, 2])?;
            let e = linalg::solve(&sq, &b).expect_err("b of 3 rows");
            assert!(
                e.to_string().contains("[3]") && e.to_string().contains("[2, 2]"),
                "{e}"
            );
            Ok(())
        }
        of::<f64>(d)?;
        of::<f32>(d)?;
        fn complex<T: Ce>(d: Device) -> TestResult
        where
            linalg::RealOf<T>: El,
        {
            let v = |x: &[(f64, f64)]| {
                x.iter()
                    .map(|&(r, i)| T::from_z(Z::new(r, i)))
                    .collect::<Vec<T>>()
            };
            // Row 2 is i times row 1: exactly singular in elimination.
            let sing = Array::from_slice_on(
                d,
                &v(&[(1.0, 1.0), (2.0, 0.0), (-1.0, 1.0), (0.0, 2.0)]),
                &[2, 2],
            )?;
            let b = Array::from_slice_on(d, &v(&[(1.0, 0.0), (0.0, 1.0)]), &[2])?;
            let e = linalg::solve(&sing, &b).expect_err("singular complex solve");
            assert!(matches!(e, Error::Singular(_)), "{e:?}");
            assert!(matches!(linalg::inv(&sing), Err(Error::Singular(_))));
            assert_eq!(linalg::det(&sing)?, c64::new(0.0, 0.0));
            assert_eq!(
                linalg::slogdet(&sing)?,
                (c64::new(0.0, 0.0), f64::NEG_INFINITY)
            );
            assert_eq!(linalg::matrix_rank(&sing)?, 1);
            // Hermitian, indefinite: [[1, 2i], [-2i, 1]] has eigenvalues 3 and -1.
            let indef = Array::from_slice_on(
                d,
                &v(&[(1.0, 0.0), (0.0, 2.0), (0.0, -2.0), (1.0, 0.0)]),
                &[2, 2],
            )?;
            let e = linalg::cholesky(&indef).expect_err("not HPD");
            assert!(
                matches!(e, Error::NotPositiveDefinite(_))
                    && e.to_string()
                        .contains("leading minor of order 2 is not positive definite"),
                "{e:?}"
            );
            let (w, _) = linalg::eigh(&indef)?;
            let w: Vec<f64> = w.to_vec()?.into_iter().map(El::to64).collect();
            assert!(
                (w[0] + 1.0).abs() < 1e-5 && (w[1] - 3.0).abs() < 1e-5,
                "{w:?}"
            );
            Ok(())
        }
        complex::<c64>(d)?;
        complex::<c32>(d)
    })
}

/// Stacks `(..., m, n)`: each matrix of the result is the 2-D routine's result for that
/// matrix (same backend, so the same bits), on random SPD and rectangular stacks; an error
/// names the matrix; an empty stack gives empty results of the right shapes.
fn stacks_of_matrices(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (b0, b1, n, m) = (2, 3, 4, 6);
        // SPD stack: x·xᵀ + n·I per matrix.
        let mut spd = Vec::new();
        for _ in 0..b0 * b1 {
            let x = rand64(&mut rng, n * n);
            let mut a = mat_mul(&x, &transpose(&x, n, n), n, n, n);
            for i in 0..n {
                a[i * n + i] += n as f64;
            }
            spd.extend(a);
        }
        let a = Array::from_slice_on(d, &spd, &[b0, b1, n, n])?;
        let rect = Array::from_slice_on(d, &rand64(&mut rng, b0 * b1 * m * n), &[b0, b1, m, n])?;
        let mat = |x: &Array<f64>, k: usize| -> Result<Array<f64>, Error> {
            let s = x.shape();
            x.reshape(&[b0 * b1, s[2], s[3]])?
                .slice(&[
                    cuprite_array::shape::SliceArg::Index(k as isize),
                    cuprite_array::shape::SliceArg::Range {
                        start: None,
                        end: None,
                        step: 1,
                    },
                    cuprite_array::shape::SliceArg::Range {
                        start: None,
                        end: None,
                        step: 1,
                    },
                ])?
                .reshape(&[s[2], s[3]])
        };
        let part = |x: &Array<f64>, k: usize| -> Result<Vec<f64>, Error> {
            let v = x.to_vec()?;
            let per = v.len() / (b0 * b1);
            Ok(v[k * per..(k + 1) * per].to_vec())
        };
        let inv = linalg::inv(&a)?;
        let bv = Array::from_slice_on(d, &rand64(&mut rng, n), &[n])?;
        let bm = Array::from_slice_on(d, &rand64(&mut rng, b0 * b1 * n * 2), &[b0, b1, n, 2])?;
        let xv = linalg::solve(&a, &bv)?;
        let xm = linalg::solve(&a, &bm)?;
        assert_eq!(
            (xv.shape(), xm.shape()),
            (&[b0, b1, n][..], &[b0, b1, n, 2][..])
        );
        let e = linalg::solve(&a, &bm.reshape(&[b1, b0, n, 2])?).expect_err("other batch");
        assert!(
            e.to_string().contains("[2, 3]") && e.to_string().contains("[3, 2, 4, 2]"),
            "{e}"
        );
        let l = linalg::cholesky(&a)?;
        let (w, v) = linalg::eigh(&a)?;
        let (q, r) = linalg::qr(&rect)?;
        let (u, sv, vt) = linalg::svd(&rect)?;
        assert_eq!(inv.shape(), &[b0, b1, n, n]);
        assert_eq!(w.shape(), &[b0, b1, n]);
        assert_eq!(q.shape(), &[b0, b1, m, n]);
        assert_eq!(r.shape(), &[b0, b1, n, n]);
        assert_eq!(
            (u.shape(), sv.shape(), vt.shape()),
            (&[b0, b1, m, n][..], &[b0, b1, n][..], &[b0, b1, n, n][..])
        );
        let same = |x: Vec<f64>, y: Vec<f64>, what: &str| {
            assert!(
                diff(&x, &y) <= 1e-12 * (1.0 + fro(&y)),
                "{what}: {x:?} against {y:?}"
            );
        };
        for k in 0..b0 * b1 {
            let (ak, rk) = (mat(&a, k)?, mat(&rect, k)?);
            same(part(&inv, k)?, linalg::inv(&ak)?.to_vec()?, "inv");
            same(
                part(&xv, k)?,
                linalg::solve(&ak, &bv)?.to_vec()?,
                "solve (one b)",
            );
            same(
                part(&xm, k)?,
                linalg::solve(&ak, &mat(&bm, k)?)?.to_vec()?,
                "solve",
            );
            same(part(&l, k)?, linalg::cholesky(&ak)?.to_vec()?, "cholesky");
            let (w1, v1) = linalg::eigh(&ak)?;
            same(part(&w, k)?, w1.to_vec()?, "eigh values");
            same(part(&v, k)?, v1.to_vec()?, "eigh vectors");
            let (q1, r1) = linalg::qr(&rk)?;
            same(part(&q, k)?, q1.to_vec()?, "qr q");
            same(part(&r, k)?, r1.to_vec()?, "qr r");
            let (u1, s1, vt1) = linalg::svd(&rk)?;
            same(part(&u, k)?, u1.to_vec()?, "svd u");
            same(part(&sv, k)?, s1.to_vec()?, "svd s");
            same(part(&vt, k)?, vt1.to_vec()?, "svd vt");
            // And the inverse is one: ‖A·A⁻¹ − I‖ small.
            let prod = mat_mul(&ak.to_vec()?, &part(&inv, k)?, n, n, n);
            assert!(diff(&prod, &eye(n)) < 1e-10, "A·inv(A) of matrix {k}");
        }
        // Matrix 4 of the stack not positive definite, and singular.
        let mut bad = spd.clone();
        bad[4 * n * n..5 * n * n].iter_mut().for_each(|x| *x = 0.0);
        let bad = Array::from_slice_on(d, &bad, &[b0, b1, n, n])?;
        let e = linalg::cholesky(&bad).expect_err("matrix 4 is zero");
        assert!(
            matches!(e, Error::NotPositiveDefinite(_)) && e.to_string().contains("matrix 4"),
            "{e}"
        );
        let e = linalg::inv(&bad).expect_err("matrix 4 is singular");
        assert!(
            matches!(e, Error::Singular(_)) && e.to_string().contains("matrix 4"),
            "{e}"
        );
        // Not square, and empty stacks.
        crate::common::assert_err(linalg::inv(&rect), "Shape", "given shape [6, 4]");
        let none = Array::<f64>::zeros(&[0, 3, n, n]);
        assert_eq!(linalg::inv(&none)?.shape(), &[0, 3, n, n]);
        let x0 = linalg::solve(&none, &Array::<f64>::zeros(&[0, 3, n, 5]))?;
        assert_eq!(x0.shape(), &[0, 3, n, 5]);
        let (q0, r0) = linalg::qr(&Array::<f64>::zeros(&[2, 0, m, n]))?;
        assert_eq!(
            (q0.shape(), r0.shape()),
            (&[2, 0, m, n][..], &[2, 0, n, n][..])
        );
        Ok(())
    })
}

/// Matrices with no elements (`0 × 0`, `3 × 0`, `0 × 3`) through every decomposition and
/// derived routine: NumPy's result shapes, NumPy's values where they have any (`det = 1`,
/// `slogdet = (1, 0)`, rank and norms 0, a complete `Q` orthogonal), and no panic anywhere.
fn empty_matrices(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let z = |m: usize, n: usize| Array::<f64>::zeros(&[m, n]);
        let sq = z(0, 0);
        let (tall, wide) = (z(3, 0), z(0, 3));
        let (w, v) = linalg::eigh(&sq)?;
        assert_eq!((w.shape(), v.shape()), (&[0][..], &[0, 0][..]));
        let (w, v) = linalg::eig(&sq)?;
        assert_eq!((w.shape(), v.shape()), (&[0][..], &[0, 0][..]));
        assert_eq!(linalg::eigvals(&sq)?.shape(), &[0]);
        assert_eq!(linalg::cholesky(&sq)?.shape(), &[0, 0]);
        assert_eq!(linalg::inv(&sq)?.shape(), &[0, 0]);
        assert_eq!(linalg::det(&sq)?, 1.0);
        assert_eq!(linalg::slogdet(&sq)?, (1.0, 0.0));
        assert_eq!(
            linalg::solve(&sq, &Array::<f64>::zeros(&[0]))?.shape(),
            &[0]
        );
        assert_eq!(linalg::solve(&sq, &z(0, 2))?.shape(), &[0, 2]);
        for k in [-1, 0, 3] {
            assert_eq!(linalg::matrix_power(&sq, k)?.shape(), &[0, 0], "power {k}");
        }
        for (a, m, n) in [(&sq, 0, 0), (&tall, 3, 0), (&wide, 0, 3)] {
            let k = m.min(n);
            let (q, r) = linalg::qr(a)?;
            assert_eq!(
                (q.shape(), r.shape()),
                (&[m, k][..], &[k, n][..]),
                "qr {m}×{n}"
            );
            let (q, r) = linalg::qr_complete(a)?;
            assert_eq!(
                (q.shape(), r.shape()),
                (&[m, m][..], &[m, n][..]),
                "qr {m}×{n}"
            );
            // A complete Q is orthogonal: QᵀQ = I, checked element by element.
            let qv = q.to_vec()?;
            for i in 0..m {
                for j in 0..m {
                    let dot: f64 = (0..m).map(|t| qv[t * m + i] * qv[t * m + j]).sum();
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!(
                        (dot - want).abs() < 1e-12,
                        "QᵀQ[{i}, {j}] = {dot} ({m}×{n})"
                    );
                }
            }
            assert_eq!(linalg::qr_r(a)?.shape(), &[k, n], "qr_r {m}×{n}");
            let (u, s, vt) = linalg::svd(a)?;
            assert_eq!(
                (u.shape(), s.shape(), vt.shape()),
                (&[m, k][..], &[k][..], &[k, n][..]),
                "svd {m}×{n}"
            );
            let (u, s, vt) = linalg::svd_full(a)?;
            assert_eq!(
                (u.shape(), s.shape(), vt.shape()),
                (&[m, m][..], &[k][..], &[n, n][..]),
                "svd_full {m}×{n}"
            );
            assert_eq!(linalg::svdvals(a)?.shape(), &[k]);
            assert_eq!(linalg::pinv(a)?.shape(), &[n, m], "pinv {m}×{n}");
            assert_eq!(linalg::lstsq(a, &Array::<f64>::zeros(&[m]))?.shape(), &[n]);
            assert_eq!(linalg::matrix_rank(a)?, 0, "rank {m}×{n}");
            for ord in [NormOrd::Fro, NormOrd::Spectral, NormOrd::Nuclear] {
                assert_eq!(linalg::norm(a, ord)?, 0.0, "{ord:?} norm {m}×{n}");
            }
            // NumPy raises for the condition number of an empty matrix: either answer is
            // fine here, a panic is not.
            let _ = linalg::cond(a);
        }
        Ok(())
    })
}

/// Single f32 products of the sizes CUDA runs with the library's own small-product kernel
/// (`linalg::small_gemm`): several shapes (tiles cut at the edges, a contraction in two
/// chunks, one not a multiple of 4), transposed and strided operands, a bias, ReLU and a
/// scale, against an f64 reference of the stored inputs; on CUDA also with the kernel switched
/// off (cuBLASLt), both within the same bound.
fn small_products(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let u = (f32::EPSILON as f64, f32::EPSILON as f64);
        let before = linalg::small_gemm();
        let result = (|| -> TestResult {
            for (m, k, n) in [(64, 256, 256), (37, 99, 45), (16, 300, 16), (128, 512, 256)] {
                let (ta, ra) = through::<f32>(&rand64(&mut rng, m * k));
                let (tb, rb) = through::<f32>(&rand64(&mut rng, k * n));
                let (tc, rc) = through::<f32>(&rand64(&mut rng, n));
                let (want, mag) = mm_ref(&ra, &rb, (1, m, n, k), (1, 1));
                let a = Array::from_slice_on(d, &ta, &[m, k])?;
                let b = Array::from_slice_on(d, &tb, &[k, n])?;
                let bias = Array::from_slice_on(d, &tc, &[n])?;
                // A and B stored transposed, read through their transposes.
                let at = Array::from_slice_on(d, &transpose_t(&ta, m, k), &[k, m])?;
                let bt = Array::from_slice_on(d, &transpose_t(&tb, k, n), &[n, k])?;
                // A as a column slice of a wider matrix, and as every other row of a taller one.
                let mut wide = vec![0f32; m * (k + 3)];
                let mut tall = vec![0f32; 2 * m * k];
                for i in 0..m {
                    wide[i * (k + 3) + 1..i * (k + 3) + 1 + k].copy_from_slice(&ta[i * k..][..k]);
                    tall[2 * i * k..(2 * i + 1) * k].copy_from_slice(&ta[i * k..][..k]);
                }
                let wide = Array::from_slice_on(d, &wide, &[m, k + 3])?;
                let tall = Array::from_slice_on(d, &tall, &[2 * m, k])?;
                let biased: Vec<f64> = (0..m * n).map(|i| want[i] + rc[i % n]).collect();
                let bmag: Vec<f64> = (0..m * n).map(|i| mag[i] + rc[i % n].abs()).collect();
                let relu: Vec<f64> = biased.iter().map(|&x| x.max(0.0)).collect();
                let scaled: Vec<f64> = (0..m * n).map(|i| 0.5 * want[i] + rc[i % n]).collect();
                for on in [true, false] {
                    if on && d == Device::CPU {
                        continue;
                    }
                    linalg::set_small_gemm(on);
                    let what = |case: &str| format!("f32 {m} × {k} × {n} {case} (small {on})");
                    let cases: [(&str, Array<f32>, &[f64], &[f64]); 8] = [
                        ("plain", a.matmul(&b)?, &want, &mag),
                        ("A transposed", at.t().matmul(&b)?, &want, &mag),
                        ("both transposed", at.t().matmul(&bt.t())?, &want, &mag),
                        (
                            "A column slice",
                            wide.slice(&s![.., 1..1 + k as isize])?.matmul(&b)?,
                            &want,
                            &mag,
                        ),
                        (
                            "A every other row",
                            tall.slice(&s![..;2, ..])?.matmul(&b)?,
                            &want,
                            &mag,
                        ),
                        ("bias", a.matmul(&b)?.try_add(&bias)?, &biased, &bmag),
                        (
                            "bias+relu",
                            a.matmul(&b)?.try_add(&bias)?.relu(),
                            &relu,
                            &bmag,
                        ),
                        (
                            "scale+bias",
                            a.matmul(&b)?.try_mul(0.5f32)?.try_add(&bias)?,
                            &scaled,
                            &bmag,
                        ),
                    ];
                    for (case, got, want, mag) in cases {
                        let got: Vec<f64> = got.to_vec()?.into_iter().map(f64::from).collect();
                        check_bound(&got, want, mag, k, u, &what(case))?;
                    }
                }
            }
            Ok(())
        })();
        linalg::set_small_gemm(before);
        result
    })
}

/// Small f32 products followed by `tanh` and by a scaled addend after the activation (the
/// small kernel's post stage when the kernel is on, element-wise kernels when off): a layer
/// `tanh(A·B + bias)·0.5 + P·0.5`, `tanh(A·B) - P`, `P - 2·relu(A·B + bias)` and two chained
/// layers `h ↦ tanh(h·W + b)·0.5 + h·0.5`, against an f64 reference of the stored inputs. The
/// bound is the product's (`tanh` and ReLU do not grow an error) plus a few roundings of the
/// activation and the stage after it.
fn small_product_layers(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let u = f32::EPSILON as f64;
        let before = linalg::small_gemm();
        let result = (|| -> TestResult {
            for (m, k, n) in [(64, 256, 256), (37, 99, 45)] {
                let (ta, ra) = through::<f32>(&rand64(&mut rng, m * k));
                let (tb, rb) = through::<f32>(&rand64(&mut rng, k * n));
                let (tc, rc) = through::<f32>(&rand64(&mut rng, n));
                let (tp, rp) = through::<f32>(&rand64(&mut rng, m * n));
                let (want, mag) = mm_ref(&ra, &rb, (1, m, n, k), (1, 1));
                let a = Array::from_slice_on(d, &ta, &[m, k])?;
                let b = Array::from_slice_on(d, &tb, &[k, n])?;
                let bias = Array::from_slice_on(d, &tc, &[n])?;
                let p = Array::from_slice_on(d, &tp, &[m, n])?;
                let z: Vec<f64> = (0..m * n).map(|i| want[i] + rc[i % n]).collect();
                let layer: Vec<f64> = (0..m * n)
                    .map(|i| 0.5 * z[i].tanh() + 0.5 * rp[i])
                    .collect();
                let minus: Vec<f64> = (0..m * n).map(|i| want[i].tanh() - rp[i]).collect();
                let relu: Vec<f64> = (0..m * n).map(|i| rp[i] - 2.0 * z[i].max(0.0)).collect();
                for on in [true, false] {
                    linalg::set_small_gemm(on);
                    let cases: [(&str, Array<f32>, &[f64], f64); 3] = [
                        (
                            "tanh(A·B + bias)·0.5 + P·0.5",
                            (a.matmul(&b)?.try_add(&bias)?.tanh() * 0.5f32)
                                .try_add(&(&p * 0.5f32))?,
                            &layer,
                            0.5,
                        ),
                        (
                            "tanh(A·B) - P",
                            a.matmul(&b)?.tanh().try_sub(&p)?,
                            &minus,
                            1.0,
                        ),
                        (
                            "P - 2·relu(A·B + bias)",
                            p.try_sub(&(a.matmul(&b)?.try_add(&bias)?.relu() * 2.0f32))?,
                            &relu,
                            2.0,
                        ),
                    ];
                    for (case, got, want, scale) in cases {
                        let got = got.to_vec()?;
                        for i in 0..m * n {
                            let bound = scale * (2.0 * k as f64 * u * (mag[i] + rc[i % n].abs()))
                                + 8.0 * u * (want[i].abs() + rp[i].abs() + 1.0);
                            let g = f64::from(got[i]);
                            if (g - want[i]).abs() > bound || g.is_nan() {
                                return Err(format!(
                                    "f32 {m} × {k} × {n} {case} (small {on}): element {i}: got \
                                     {g}, expected {} (bound {bound:e})",
                                    want[i]
                                )
                                .into());
                            }
                        }
                    }
                }
            }
            // Two chained layers of width 64 on a batch of 32, with and without the kernel.
            let (bt, w) = (32usize, 64usize);
            let (tx, rx) = through::<f32>(&rand64(&mut rng, bt * w));
            let mut ws = Vec::new();
            for _ in 0..2 {
                let (tw, rw) = through::<f32>(&rand64(&mut rng, w * w));
                let (tb, rbias) = through::<f32>(&rand64(&mut rng, w));
                ws.push((tw, rw, tb, rbias));
            }
            let mut want = rx.clone();
            for (_, rw, _, rbias) in &ws {
                let (prod, _) = mm_ref(&want, rw, (1, bt, w, w), (1, 1));
                want = (0..bt * w)
                    .map(|i| 0.5 * (prod[i] + rbias[i % w]).tanh() + 0.5 * want[i])
                    .collect();
            }
            for on in [true, false] {
                linalg::set_small_gemm(on);
                let mut h = Array::from_slice_on(d, &tx, &[bt, w])?;
                for (tw, _, tb, _) in &ws {
                    let wm = Array::from_slice_on(d, tw, &[w, w])?;
                    let bv = Array::from_slice_on(d, tb, &[w])?;
                    h = (h.matmul(&wm)?.try_add(&bv)?.tanh() * 0.5f32).try_add(&(&h * 0.5f32))?;
                }
                let got = h.to_vec()?;
                for i in 0..bt * w {
                    // Each layer's error is at most the product's bound plus a few roundings,
                    // halved and added to the previous layer's (|W| entries below 1).
                    let bound = 2.0 * (2.0 * w as f64 * u * w as f64 + 16.0 * u);
                    let g = f64::from(got[i]);
                    if (g - want[i]).abs() > bound || g.is_nan() {
                        return Err(format!(
                            "two layers (small {on}): element {i}: got {g}, expected {} (bound \
                             {bound:e})",
                            want[i]
                        )
                        .into());
                    }
                }
            }
            Ok(())
        })();
        linalg::set_small_gemm(before);
        result
    })
}

/// Products large enough to be tuned (2304 × 1024 · 1024 × 2048 f32, over 2^33 operations) on
/// small integers, exact with tuning on and off (CUDA only: the CPU backend has no tuning).
fn tuned_product(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let (m, k, n) = (2304usize, 1024usize, 2048usize);
        let ints = |rng: &mut Rng, len: usize| -> Vec<f32> {
            (0..len)
                .map(|_| (rng.next_u64() % 7) as f32 - 3.0)
                .collect()
        };
        let (a, b) = (ints(&mut rng, m * k), ints(&mut rng, k * n));
        let x = Array::from_slice_on(d, &a, &[m, k])?;
        let y = Array::from_slice_on(d, &b, &[k, n])?;
        let before = linalg::gemm_tuning();
        let mut outs = Vec::new();
        for on in [true, false] {
            linalg::set_gemm_tuning(on);
            // Twice: the first call of the shape tunes (when on), the second runs the choice.
            for _ in 0..2 {
                outs.push(x.matmul(&y)?.to_vec()?);
            }
            // A shape of its own per setting, so each is planned under it.
            let rows = (m - 64 * (on as usize) - 64) as isize;
            let x2 = x.slice(&s![..rows, ..])?;
            outs.push(x2.matmul(&y)?.to_vec()?);
        }
        linalg::set_gemm_tuning(before);
        let mut r = rng.next_u64();
        for (t, o) in outs.iter().enumerate() {
            let rows = o.len() / n;
            for _ in 0..64 {
                r = r.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let (i, j) = ((r >> 20) as usize % rows, (r >> 42) as usize % n);
                let want: f32 = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
                assert_eq!(o[i * n + j], want, "product {t}, entry ({i}, {j})");
            }
        }
        Ok(())
    })
}

const BODIES: &[(&str, Body)] = &[
    ("stacks_of_matrices", stacks_of_matrices),
    ("empty_matrices", empty_matrices),
    ("matmul_dtypes", matmul_dtypes),
    ("matmul_views", matmul_views),
    ("matmul_errors", matmul_errors),
    ("epilogue_fusion", epilogue_fusion),
    ("small_products", small_products),
    ("small_product_layers", small_product_layers),
    ("addend_fusion", addend_fusion),
    ("gelu_training_products", gelu_training_products),
    ("products", products),
    ("decompositions", decompositions),
    ("complex_decompositions", complex_decompositions),
    ("ill_conditioned", ill_conditioned),
    ("singular_and_not_spd", singular_and_not_spd),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::linalg::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::linalg::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::gpu("cuda::linalg::tuned_product", || {
        tuned_product(Device::cuda(0))
    }));
    v
}
