//! Soundness and wrong-result regressions: byte counts that overflow, memory whose owner the
//! driver reports as a pool, and results checked against independent references.

use cuprite_array::ops::NormOpts;
use cuprite_array::{Array, Device, linalg, with_device};
use cuprite_driver::pointer::{Owner, pointer_info};
use cuprite_driver::{Context, ContextFlags, ContextStack, DeviceBuffer};
use cuprite_testkit::{Rng, Test, TestResult, ignore};

type Body = fn(Device) -> TestResult;

/// Bodies run on the CPU backend and on CUDA device 0.
const BODIES: &[(&str, Body)] = &[
    ("raw_pointer_shape_overflow", raw_pointer_shape_overflow),
    (
        "empty_contraction_keeps_the_add",
        empty_contraction_keeps_the_add,
    ),
    (
        "zero_extents_of_library_calls",
        zero_extents_of_library_calls,
    ),
    ("tiny_pivot_is_not_singular", tiny_pivot_is_not_singular),
    (
        "unique_signed_zero_first_index",
        unique_signed_zero_first_index,
    ),
    ("softmax_of_a_row_with_inf", softmax_of_a_row_with_inf),
    ("layer_norm_f64_every_axis", layer_norm_f64_every_axis),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("safety::cpu::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("safety::cuda::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::gpu(
        "safety::cuda::raw_pointer_pool_memory",
        raw_pointer_pool_memory,
    ));
    v.push(Test::cpu(
        "safety::cpu::sharded_operator_panics_at_caller",
        sharded_operator_panics_at_caller,
    ));
    v.push(Test::gpu(
        "safety::cuda::operator_device_mismatch",
        operator_device_mismatch,
    ));
    v
}

/// A shape whose byte count overflows is refused by name before the pointer is looked at (a
/// wrapped count of 0 bytes would pass the allocation-size check).
fn raw_pointer_shape_overflow(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        for shape in [
            vec![1usize << 62],
            vec![1 << 32, 1 << 32],
            vec![3, 1 << 61, 2],
        ] {
            // SAFETY: the shape is refused before the (made-up, aligned) pointer is used.
            let r = unsafe { Array::<f32>::new_from_device_ptr(0x1000 as *mut f32, &shape) };
            match r {
                Err(cuprite_array::Error::Shape(m)) if m.contains(&format!("{shape:?}")) => {}
                other => {
                    return Err(
                        format!("shape {shape:?}: expected a Shape error, {other:?}").into(),
                    );
                }
            }
        }
        Ok(())
    })
}

/// Memory of a stream-ordered pool reports no context: memory of the device's default pool (the
/// primary context's, the library's own) is adopted and the array holds its values; memory of
/// an owned context's pool (destroyed with that context) and of another context's synchronous
/// allocation is refused.
fn raw_pointer_pool_memory() -> TestResult {
    with_device(Device::cuda(0), || -> TestResult {
        let owned =
            Context::create_and_push(ContextFlags::SCHED_AUTO, cuprite_driver::Device::get(0)?)?;
        ContextStack::pop()?;
        if !owned.uses_memory_pool() {
            return ignore("the device has no stream-ordered memory pools");
        }
        let s = owned.new_stream()?;
        let mut rng = Rng::fresh();
        let n = 1000 + (rng.next_u64() % 100) as usize;
        let h = rng.vec_f32(n, -1.0, 1.0);
        let buf = s.clone_htod(&h)?;
        s.synchronize()?;
        let ptr = buf.leak();
        let info = pointer_info(ptr)?;
        assert_eq!(info.owner(), Owner::Pool, "{info:?}");
        assert!(info.pool_grants_read_write(0)?);
        // An owned context's pool is destroyed with the context: refused, nothing taken over.
        // SAFETY: refused before anything is taken over.
        let e = unsafe { Array::<f32>::new_from_device_ptr(ptr as *mut f32, &[n]) }
            .expect_err("memory of an owned context's pool");
        assert!(e.to_string().contains("other than the default"), "{e}");
        // SAFETY: the allocation made above, owned by nobody else; freed the way it was made.
        drop(unsafe { DeviceBuffer::<f32>::from_raw_parts(ptr, n, &s) });
        // The primary context's pool, the one the library allocates from, is taken.
        let primary = Context::new(0)?;
        let ps = primary.new_stream()?;
        let pbuf = ps.clone_htod(&h)?;
        ps.synchronize()?;
        let pptr = pbuf.leak();
        assert_eq!(pointer_info(pptr)?.owner(), Owner::Pool);
        // SAFETY: the start of a live allocation of n f32 of the device's default pool, given
        // up above, with no pending work.
        let a = unsafe { Array::<f32>::new_from_device_ptr(pptr as *mut f32, &[n]) }?;
        let want: f64 = h.iter().map(|&x| x as f64).sum();
        let got = a.sum()?.item()? as f64;
        assert!((got - want).abs() < 1e-4 * n as f64, "{got} vs {want}");
        drop(a);
        owned.set_memory_pool_enabled(false)?;
        let sync_buf = s.clone_htod(&h)?;
        let sync_ptr = sync_buf.leak();
        assert_eq!(pointer_info(sync_ptr)?.owner(), Owner::Context);
        // SAFETY: refused (memory of another context), so nothing is taken over.
        let e = unsafe { Array::<f32>::new_from_device_ptr(sync_ptr as *mut f32, &[n]) }
            .expect_err("memory of an owned context");
        assert!(e.to_string().contains("another context"), "{e}");
        // SAFETY: the allocation made above, owned by nobody else; freed the way it was made.
        drop(unsafe { DeviceBuffer::<f32>::from_raw_parts(sync_ptr, n, &s) });
        Ok(())
    })
}

/// The element-wise work after a product with an empty contraction (k = 0) is no GEMM
/// epilogue: the product is zeros, and `x + 0` is `x`, after a ReLU too.
fn empty_contraction_keeps_the_add(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let hx: Vec<f32> = rng.vec_f32(3, -5.0, 5.0);
        let x = Array::from_slice(&hx, &[1, 1, 3])?;
        let e = Array::<f32>::zeros(&[1, 1, 0]).matmul(&Array::<f32>::zeros(&[0, 3]))?;
        assert_eq!(x.try_add(&e)?.to_vec()?, hx, "x + (empty contraction)");
        // A bias over the last axis, then a ReLU: the shapes a fused epilogue takes.
        for (m, n) in [(2usize, 3usize), (5, 1)] {
            let hb: Vec<f64> = (0..n).map(|_| rng.f32_in(-2.0, 2.0) as f64).collect();
            let b = Array::from_slice(&hb, &[n])?;
            let p = Array::<f64>::zeros(&[m, 0]).matmul(&Array::<f64>::zeros(&[0, n]))?;
            let want: Vec<f64> = (0..m * n).map(|i| hb[i % n]).collect();
            assert_eq!((&p + &b).to_vec()?, want, "[{m}, 0] · [0, {n}] + bias");
            let relu: Vec<f64> = want.iter().map(|v| v.max(0.0)).collect();
            assert_eq!((&p + &b).relu().to_vec()?, relu, "relu of the same");
            assert_eq!((&p * 3.0).to_vec()?, vec![0.0; m * n], "scaled zeros");
        }
        Ok(())
    })
}

/// The shape a call gave, or the error it returned (a panic fails the test).
fn shape_of<T: cuprite_array::Element>(
    r: cuprite_array::Result<Array<T>>,
) -> Result<Vec<usize>, String> {
    r.and_then(|a| {
        a.eval()?;
        Ok(a.shape().to_vec())
    })
    .map_err(|e| e.to_string())
}

/// Every library call with a zero extent in each position: the result has NumPy's shape (and
/// values, where there are any), or the call is an `Err` where NumPy raises too; never a panic
/// and never a kernel over the empty extent.
fn zero_extents_of_library_calls(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        let z = |s: &[usize]| Array::<f32>::zeros(s);
        let mut checks: Vec<(String, Result<Vec<usize>, String>, Option<Vec<usize>>)> = Vec::new();
        let mut want = |name: String, got, shape: Option<&[usize]>| {
            checks.push((name, got, shape.map(<[usize]>::to_vec)))
        };
        // Products: each of m, k, n zero, batched with a zero batch or a zero matrix extent.
        for (a, b, o) in [
            (vec![0, 4], vec![4, 3], vec![0, 3]),
            (vec![2, 0], vec![0, 3], vec![2, 3]),
            (vec![2, 4], vec![4, 0], vec![2, 0]),
            (vec![0, 2, 4], vec![0, 4, 3], vec![0, 2, 3]),
            (vec![5, 0, 4], vec![5, 4, 3], vec![5, 0, 3]),
            (vec![5, 2, 0], vec![5, 0, 3], vec![5, 2, 3]),
            (vec![5, 2, 4], vec![5, 4, 0], vec![5, 2, 0]),
        ] {
            want(
                format!("matmul {a:?}·{b:?}"),
                shape_of(z(&a).matmul(&z(&b))),
                Some(&o),
            );
        }
        // Transforms: an empty batch is an empty result; an empty transform axis is an error
        // (NumPy: "invalid number of data points").
        for s in [[0usize, 8], [3, 0]] {
            let empty_axis = s[1] == 0;
            let keep = (!empty_axis).then_some(&s[..]);
            let x = z(&s);
            want(format!("fft {s:?}"), shape_of(x.fft()), keep);
            want(format!("ifft {s:?}"), shape_of(x.ifft()), keep);
            let half = [s[0], s[1] / 2 + 1];
            want(
                format!("rfft {s:?}"),
                shape_of(x.rfft()),
                (!empty_axis).then_some(&half[..]),
            );
            want(format!("fft2 {s:?}"), shape_of(x.fft2()), None);
        }
        // Sorts, scans and row-wise operations along an axis, with the zero on and off it.
        for (s, axis) in [([0usize, 5], 1isize), ([0, 5], 0), ([4, 0], 1), ([4, 0], 0)] {
            let x = z(&s);
            let t = format!("{s:?} axis {axis}");
            want(format!("sort {t}"), shape_of(x.sort(axis)), Some(&s));
            want(format!("argsort {t}"), shape_of(x.argsort(axis)), Some(&s));
            want(format!("cumsum {t}"), shape_of(x.cumsum(axis)), Some(&s));
            want(format!("cumprod {t}"), shape_of(x.cumprod(axis)), Some(&s));
            want(format!("cummax {t}"), shape_of(x.cummax(axis)), Some(&s));
            want(format!("cummin {t}"), shape_of(x.cummin(axis)), Some(&s));
            want(format!("softmax {t}"), shape_of(x.softmax(axis)), Some(&s));
            want(
                format!("log_softmax {t}"),
                shape_of(x.log_softmax(axis)),
                Some(&s),
            );
            want(
                format!("layer_norm {t}"),
                shape_of(x.layer_norm(axis)),
                Some(&s),
            );
            want(
                format!("rms_norm {t}"),
                shape_of(x.rms_norm_with(axis, NormOpts::new().eps(1e-5))),
                Some(&s),
            );
            let mut kept = s.to_vec();
            kept.remove(axis as usize);
            // Over an empty axis: an error naming the axis (there is no maximum to shift by).
            let over_empty = s[axis as usize] == 0;
            want(
                format!("logsumexp {t}"),
                shape_of(x.logsumexp(axis)),
                (!over_empty).then_some(&kept[..]),
            );
            let idx = Array::<i64>::zeros(&[0]);
            let mut sel = s.to_vec();
            sel[axis as usize] = 0;
            want(
                format!("index_select {t} of no index"),
                shape_of(x.index_select(axis, &idx)),
                Some(&sel),
            );
        }
        // Linear algebra of 0 × 0 matrices and of empty stacks.
        want(
            "inv [0, 0]".into(),
            shape_of(linalg::inv(&z(&[0, 0]))),
            Some(&[0, 0]),
        );
        want(
            "inv [0, 3, 3]".into(),
            shape_of(linalg::inv(&z(&[0, 3, 3]))),
            Some(&[0, 3, 3]),
        );
        want(
            "solve [0, 0]·[0]".into(),
            shape_of(linalg::solve(&z(&[0, 0]), &z(&[0]))),
            Some(&[0]),
        );
        want(
            "solve [3, 3]·[3, 0]".into(),
            shape_of(linalg::solve(&Array::<f32>::eye(3)?, &z(&[3, 0]))),
            Some(&[3, 0]),
        );
        want(
            "cholesky [0, 0]".into(),
            shape_of(linalg::cholesky(&z(&[0, 0]))),
            Some(&[0, 0]),
        );
        want(
            "qr r of [0, 3]".into(),
            shape_of(linalg::qr(&z(&[0, 3])).map(|(_, r)| r)),
            Some(&[0, 3]),
        );
        want(
            "qr q of [3, 0]".into(),
            shape_of(linalg::qr(&z(&[3, 0])).map(|(q, _)| q)),
            Some(&[3, 0]),
        );
        let mut failures = Vec::new();
        for (name, got, shape) in checks {
            match (&got, &shape) {
                (Ok(g), Some(w)) if g == w => {}
                (Err(_), None) => {}
                _ => failures.push(format!("{name}: got {got:?}, want {shape:?}")),
            }
        }
        // Values where the result is not empty: det of 0 × 0 is 1, a product over an empty
        // contraction is zeros.
        if linalg::det(&z(&[0, 0]))? != 1.0 {
            failures.push("det of a 0 × 0 matrix is not 1".into());
        }
        if linalg::slogdet(&z(&[0, 0]))? != (1.0, 0.0) {
            failures.push("slogdet of a 0 × 0 matrix is not (1, 0)".into());
        }
        let p = z(&[5, 2, 0]).matmul(&z(&[5, 0, 3]))?.to_vec()?;
        if p != vec![0.0; 30] {
            failures.push(format!("batched empty contraction: {p:?}"));
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(failures.join("\n").into())
        }
    })
}

/// One rule for inv, solve, det and slogdet: singular only on an exactly zero pivot, so a tiny
/// but exact pivot is inverted exactly (NumPy inverts diag(1e-20, 1)).
fn tiny_pivot_is_not_singular(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        let a = Array::<f64>::from_slice(&[1e-20, 0.0, 0.0, 1.0], &[2, 2])?;
        assert_eq!(linalg::inv(&a)?.to_vec()?, [1e20, 0.0, 0.0, 1.0]);
        let b = Array::<f64>::from_slice(&[3e-20, 2.0], &[2])?;
        let x = linalg::solve(&a, &b)?.to_vec()?;
        assert!((x[0] - 3.0).abs() < 1e-15 && x[1] == 2.0, "{x:?}");
        let det = linalg::det(&a)?;
        assert!((det - 1e-20).abs() <= 1e-14 * 1e-20, "det {det}");
        let (sign, log) = linalg::slogdet(&a)?;
        assert!(
            sign == 1.0 && (log - (1e-20f64).ln()).abs() < 1e-13,
            "{sign} {log}"
        );
        // f32: 1e-30 is a normal number and an exact pivot too.
        let a32 = Array::<f32>::from_slice(&[1.0, 0.0, 0.0, 1e-30], &[2, 2])?;
        assert_eq!(
            linalg::inv(&a32)?.to_vec()?,
            [1.0, 0.0, 0.0, 1.0 / 1e-30f32]
        );
        // An exactly zero pivot is singular for all four.
        let s = Array::<f64>::from_slice(&[1e-20, 0.0, 0.0, 0.0], &[2, 2])?;
        for r in [
            linalg::inv(&s).map(|_| ()),
            linalg::solve(&s, &b).map(|_| ()),
        ] {
            match r {
                Err(cuprite_array::Error::Singular(m)) if m.contains("exactly zero") => {}
                other => return Err(format!("diag(1e-20, 0): {other:?}").into()),
            }
        }
        assert_eq!(linalg::det(&s)?, 0.0);
        assert_eq!(linalg::slogdet(&s)?, (0.0, f64::NEG_INFINITY));
        Ok(())
    })
}

/// ±0 are one value: its first occurrence is the first of either sign.
fn unique_signed_zero_first_index(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        let nan = f32::NAN;
        let x = Array::<f32>::from_slice(&[3.0, nan, 1.0, 0.0, -0.0, 3.0, nan, 1.0], &[8])?;
        let u = x.unique()?;
        let v = u.values.to_vec()?;
        // NumPy 2 (equal_nan): [0, 1, 3, nan], first [3, 2, 0, 1], counts [2, 2, 2, 2].
        assert_eq!(v.len(), 4, "{v:?}");
        assert!(
            v[0] == 0.0 && v[1] == 1.0 && v[2] == 3.0 && v[3].is_nan(),
            "{v:?}"
        );
        assert_eq!(u.first.to_vec()?, [3, 2, 0, 1], "first indices");
        assert_eq!(u.counts.to_vec()?, [2, 2, 2, 2], "counts");
        assert_eq!(u.inverse.to_vec()?, [2, 3, 1, 0, 0, 2, 3, 1], "inverse");
        // -0.0 first: still index of the first zero.
        let y = Array::<f64>::from_slice(&[5.0, -0.0, 0.0, 5.0], &[4])?;
        assert_eq!(y.unique()?.first.to_vec()?, [1, 0]);
        Ok(())
    })
}

/// A `+inf` in a row makes its softmax a row of NaN (inf - inf in the shift), as the formula,
/// NumPy and SciPy give; log_softmax likewise. Other rows are unaffected.
fn softmax_of_a_row_with_inf(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        let inf = f64::INFINITY;
        let rows = [1.0, inf, 2.0, 1.0, 2.0, 3.0];
        let x = Array::<f64>::from_slice(&rows, &[2, 3])?;
        // The finite row from the formula.
        let m = 3.0f64;
        let s: f64 = [1.0f64, 2.0, 3.0].iter().map(|v| (v - m).exp()).sum();
        let want: Vec<f64> = [1.0f64, 2.0, 3.0]
            .iter()
            .map(|v| (v - m).exp() / s)
            .collect();
        let lwant: Vec<f64> = [1.0f64, 2.0, 3.0].iter().map(|v| v - m - s.ln()).collect();
        for (name, got) in [
            ("softmax", x.softmax(1)?.to_vec()?),
            ("log_softmax", x.log_softmax(1)?.to_vec()?),
        ] {
            assert!(
                got[..3].iter().all(|v| v.is_nan()),
                "{name} of [1, inf, 2]: {:?}",
                &got[..3]
            );
            let w = if name == "softmax" { &want } else { &lwant };
            for (g, w) in got[3..].iter().zip(w) {
                assert!((g - w).abs() < 1e-15, "{name} of [1, 2, 3]: {g} vs {w}");
            }
        }
        // Along axis 0 (a column holds the inf), and f32.
        let xt = Array::<f32>::from_slice(&[1.0, f32::INFINITY, 2.0], &[3, 1])?;
        assert!(xt.softmax(0)?.to_vec()?.iter().all(|v| v.is_nan()));
        assert!(xt.log_softmax(0)?.to_vec()?.iter().all(|v| v.is_nan()));
        // -inf alone is fine: its weight is 0.
        let y = Array::<f64>::from_slice(&[0.0, -inf], &[2])?
            .softmax(0)?
            .to_vec()?;
        assert_eq!(y, [1.0, 0.0]);
        Ok(())
    })
}

/// layer_norm of f64 lines along every axis (axis 0 reads strided lines), short lines held in
/// registers and long ones read again, plain and through a fused producer, with weight and
/// bias: within 1e-13 of the formula in f64 on the host.
fn layer_norm_f64_every_axis(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let eps = 1e-5;
        for shape in [[300usize, 7], [7, 300], [5000, 3], [3, 5000]] {
            let len = shape[0] * shape[1];
            let h: Vec<f64> = (0..len)
                .map(|_| rng.f32_in(0.0, 0.1) as f64 + rng.f32_in(0.0, 1.0) as f64 * 1e-9)
                .collect();
            let x = Array::<f64>::from_slice(&h, &shape)?;
            for axis in 0..2usize {
                let n = shape[axis];
                let hw: Vec<f64> = (0..n).map(|_| rng.f32_in(0.5, 1.5) as f64).collect();
                let hb: Vec<f64> = (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect();
                let (w, b) = (Array::from_slice(&hw, &[n])?, Array::from_slice(&hb, &[n])?);
                // The reference for `scale · x`: two passes per line in f64.
                let at = |line: usize, i: usize| {
                    if axis == 0 {
                        h[i * shape[1] + line]
                    } else {
                        h[line * shape[1] + i]
                    }
                };
                let reference = |scale: f64| {
                    let mut want = vec![0.0f64; len];
                    for line in 0..shape[1 - axis] {
                        let v = |i: usize| scale * at(line, i);
                        let mean = (0..n).map(v).sum::<f64>() / n as f64;
                        let var = (0..n).map(|i| (v(i) - mean).powi(2)).sum::<f64>() / n as f64;
                        let r = 1.0 / (var + eps).sqrt();
                        for i in 0..n {
                            let k = if axis == 0 {
                                i * shape[1] + line
                            } else {
                                line * shape[1] + i
                            };
                            want[k] = (v(i) - mean) * r * hw[i] + hb[i];
                        }
                    }
                    want
                };
                let ax = axis as isize;
                let plain = x
                    .layer_norm_with(ax, NormOpts::new().eps(eps).weight(&w).bias(&b))?
                    .to_vec()?;
                // A producer the row kernel reads in place (2x is exact in f64).
                let fused = (&x * 2.0)
                    .layer_norm_with(ax, NormOpts::new().eps(eps).weight(&w).bias(&b))?
                    .to_vec()?;
                for (name, got, want) in [
                    ("plain", plain, reference(1.0)),
                    ("fused 2x", fused, reference(2.0)),
                ] {
                    for (k, (g, wv)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            (g - wv).abs() <= 1e-13 * (1.0 + wv.abs()),
                            "{name} layer_norm of {shape:?} along axis {axis}, element {k}: {g} vs {wv}"
                        );
                    }
                }
            }
        }
        Ok(())
    })
}

/// Runs `f`, which must panic: the panic's message and the file it was raised in (the caller's
/// file for a `#[track_caller]` operator).
fn panic_site<R>(f: impl FnOnce() -> R) -> Result<(String, String), String> {
    use std::cell::RefCell;
    thread_local! {
        static SITE: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
    }
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let watched = SITE.with(|s| {
                let mut s = s.borrow_mut();
                if s.is_some() {
                    *s = Some(info.location().map(|l| l.file().to_string()));
                    true
                } else {
                    false
                }
            });
            if !watched {
                previous(info);
            }
        }));
    });
    SITE.with(|s| *s.borrow_mut() = Some(None));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let file = SITE.with(|s| s.borrow_mut().take()).flatten();
    match r {
        Ok(_) => Err("no panic".into()),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Ok((msg, file.unwrap_or_default()))
        }
    }
}

/// Sharded operators on different meshes panic at the caller's line, naming both layouts; the
/// try_ forms return the same condition as an `Err`.
fn sharded_operator_panics_at_caller() -> TestResult {
    use cuprite_array::mesh::Mesh;
    let x = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[6])?;
    let a = x.shard(&Mesh::cpu(2)?, 0)?;
    let b = x.shard(&Mesh::cpu(3)?, 0)?;
    let e = a.try_add(&b).expect_err("different meshes").to_string();
    for (name, f) in [
        (
            "+",
            Box::new(|| &a + &b) as Box<dyn Fn() -> cuprite_array::mesh::Sharded<f32>>,
        ),
        ("-", Box::new(|| &a - &b)),
        ("*", Box::new(|| &a * &b)),
        ("/", Box::new(|| &a / &b)),
    ] {
        let (msg, file) = panic_site(f)?;
        assert_eq!(msg, e, "{name}: the panic carries the try_ form's message");
        assert!(
            file.ends_with("safety.rs"),
            "{name} panicked in {file}, not at the caller"
        );
    }
    Ok(())
}

/// Operators on arrays of two devices panic at the caller's line naming both devices (the
/// module docs say so); try_ forms return `DeviceMismatch`.
fn operator_device_mismatch() -> TestResult {
    let c = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0], &[2])?;
    let g = Array::from_slice_on(Device::cuda(0), &[1.0f32, 2.0], &[2])?;
    match c.try_add(&g) {
        Err(cuprite_array::Error::DeviceMismatch(_)) => {}
        other => return Err(format!("try_add across devices: {other:?}").into()),
    }
    assert!(matches!(
        c.try_rem(&g),
        Err(cuprite_array::Error::DeviceMismatch(_))
    ));
    let (cpu, gpu) = (Device::CPU.to_string(), Device::cuda(0).to_string());
    for (name, f) in [
        ("+", Box::new(|| &c + &g) as Box<dyn Fn() -> Array<f32>>),
        ("-", Box::new(|| &c - &g)),
        ("*", Box::new(|| &c * &g)),
        ("/", Box::new(|| &c / &g)),
        ("%", Box::new(|| &c % &g)),
        ("pow", Box::new(|| c.pow(&g))),
    ] {
        let (msg, file) = panic_site(f)?;
        assert!(msg.contains(&cpu) && msg.contains(&gpu), "{name}: {msg}");
        assert!(
            file.ends_with("safety.rs"),
            "{name} panicked in {file}, not at the caller"
        );
    }
    Ok(())
}
