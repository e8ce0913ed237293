//! CUDA-specific tests: the GPU against the CPU backend on fresh random data, several streams
//! and threads sharing arrays, memory statistics, and the kernel caches.

use cuprite_array::{Array, Device, mem_stats, with_device};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult};

fn gpu() -> Device {
    Device::cuda(0)
}

/// The benchmark chain, on both backends, on fresh data; outputs poisoned first.
fn chain_matches_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    let n = (1 << 20) + 3;
    let inputs: Vec<Vec<f32>> = (0..4).map(|_| rng.vec_f32(n, -2.0, 2.0)).collect();
    let run = |d: Device| -> Result<Vec<f32>, cuprite_array::Error> {
        with_device(d, || {
            let [a, b, c, e] =
                [0, 1, 2, 3].map(|i| Array::from_slice(&inputs[i], &[n]).expect("upload"));
            // Poison: a previous result of the same shape occupies memory first.
            let poison = Array::<f32>::full(&[n], f32::NAN);
            poison.eval()?;
            drop(poison);
            let r = (&a * &b + &c).sin() * e.exp() - &a / 2.0;
            r.to_vec()
        })
    };
    let (cpu, gpu) = (run(Device::CPU)?, run(gpu())?);
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let [a, b, c, e] = [0, 1, 2, 3].map(|k| inputs[k][i]);
            (a * b + c).sin() * e.exp() - a / 2.0
        })
        .collect();
    crate::common::close(
        &gpu.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        &cpu.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        1e-5,
        1e-5,
        "gpu vs cpu",
    )?;
    crate::common::close(
        &gpu.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        &want.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        1e-5,
        1e-5,
        "gpu vs scalar",
    )?;
    Ok(())
}

fn big_reductions_match_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    let n = (1 << 22) + 17;
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y = rng.vec_f32(n, -1.0, 1.0);
    let f = |d: Device| -> Result<(f32, f32, f32, i64, f32), cuprite_array::Error> {
        with_device(d, || {
            let a = Array::from_slice(&x, &[n])?;
            let b = Array::from_slice(&y, &[n])?;
            Ok((
                a.sum()?.item()?,
                (&a * &b).sum()?.item()?,
                a.max()?.item()?,
                a.argmin()?.item()?,
                a.reshape(&[1, n])?.t().sum_axes(&[0])?.item()?,
            ))
        })
    };
    let (c, g) = (f(Device::CPU)?, f(gpu())?);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let dot: f64 = x.iter().zip(&y).map(|(&a, &b)| a as f64 * b as f64).sum();
    crate::common::close(
        &[g.0 as f64, c.0 as f64],
        &[exact, exact],
        1e-4,
        1e-2,
        "sum",
    )?;
    crate::common::close(&[g.1 as f64, c.1 as f64], &[dot, dot], 1e-4, 1e-2, "dot")?;
    assert_eq!(g.2, c.2, "max");
    assert_eq!(g.3, c.3, "argmin");
    crate::common::close(
        &[g.4 as f64],
        &[exact],
        1e-4,
        1e-2,
        "sum of a transposed view",
    )?;
    Ok(())
}

/// Reductions of one new producer over many sizes in quick succession: the first (large) use
/// makes the quick first build (one element per thread, partials combined), and the sizes after
/// it launch that same kernel, or the optimised one once it is in place, with other row lengths
/// and row counts: every result matches the CPU backend (integers exactly).
fn quick_reductions_any_size() -> TestResult {
    let mut rng = Rng::fresh();
    // A producer structure new to this process (its chain length is random).
    let steps = 2 + (rng.next_u64() % 6) as usize;
    let f32_expr = |a: &Array<f32>| {
        let mut x = a.clone();
        for i in 0..steps {
            x = if i % 2 == 0 { &x * 0.75 } else { &x + 0.125 };
        }
        x
    };
    let i32_expr = |a: &Array<i32>| {
        let mut x = a.clone();
        for _ in 0..steps {
            x = &x * 3 - 1;
        }
        x
    };
    let shapes: [(&[usize], isize); 11] = [
        (&[1 << 20], 0),
        (&[1], 0),
        (&[255], 0),
        (&[256], 0),
        (&[257], 0),
        (&[4097], 0),
        (&[70_001], 0),
        (&[3, 100_000], 1),
        (&[1000, 300], 1),
        (&[300, 1000], 0),
        (&[7, 5, 9000], 2),
    ];
    for (shape, axis) in shapes {
        let n: usize = shape.iter().product();
        let xs = rng.vec_f32(n, -1.0, 1.0);
        let is: Vec<i32> = (0..n).map(|_| (rng.next_u64() % 7) as i32 - 3).collect();
        let run = |d: Device| -> Result<(Vec<f32>, Vec<i64>), cuprite_array::Error> {
            with_device(d, || {
                let a = Array::from_slice(&xs, shape)?;
                let b = Array::from_slice(&is, shape)?;
                Ok((
                    f32_expr(&a).sum_axes(&[axis])?.to_vec()?,
                    i32_expr(&b).sum_axes(&[axis])?.to_vec()?,
                ))
            })
        };
        let (g, c) = (run(gpu())?, run(Device::CPU)?);
        assert_eq!(g.1, c.1, "i32 sums of shape {shape:?} along {axis}");
        crate::common::close(
            &g.0.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            &c.0.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            1e-4,
            1e-3,
            &format!("f32 sums of shape {shape:?} along {axis}"),
        )?;
    }
    Ok(())
}

/// The first use of a small new program runs on the interpreter (once it is loaded) and gives
/// the values of its optimised kernel afterwards, within the bound the `jit` module documents
/// ("Agreement of the tiers": element-wise values and maxima bit for bit, row sums within
/// `2 γ(n − 1) Σ|v|`); both lie within the program's error model of the CPU backend's values
/// (see `tiers::STEPS`: math functions of CUDA and of the host differ by a few ulp, which the
/// steps after them propagate).
fn interpreter_first_uses_match() -> TestResult {
    use crate::tiers::{U32_ROUNDOFF, gamma, program, same_bits, sums_within};
    let mut rng = Rng::fresh();
    let (rows, cols) = (37, 1001);
    let xs = rng.vec_f32(rows * cols, -2.0, 2.0);
    let ys = rng.vec_f32(cols, -1.0, 1.0);
    type Out = (Vec<f32>, Vec<f32>, Vec<f32>, f32);
    let run = |d: Device, seed: u64| -> Result<Out, cuprite_array::Error> {
        with_device(d, || {
            let x = Array::from_slice(&xs, &[rows, cols])?;
            let y = Array::from_slice(&ys, &[cols])?;
            let steps = |s: u64| crate::tiers::drawn_steps(s);
            let (summed, _) = program(&steps(seed ^ 1), &x, &y, 2.0);
            let (e, _) = program(&steps(seed), &x, &y, 2.0);
            let (t, _) = program(&steps(seed ^ 2), &x.t(), &y.reshape(&[cols, 1])?, 2.0);
            Ok((
                e.to_vec()?,
                summed.to_vec()?,
                summed.sum_axes(&[1])?.to_vec()?,
                t.max()?.item()?,
            ))
        })
    };
    // The programs' bounds against the CPU backend (the model does not depend on the data).
    let bound = |seed: u64| {
        let d = cuprite_array::Array::<f32>::zeros(&[1]);
        program(&crate::tiers::drawn_steps(seed), &d, &d, 2.0).1
    };
    // Any new program asks for the interpreter; wait until it is loaded.
    let _ = run(gpu(), rng.next_u64())?;
    cuprite_array::tuning::wait_tier_up();
    let before = cuprite_array::stats::interpreted_first_uses();
    let f = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    for _ in 0..8 {
        let seed = rng.next_u64();
        let first = run(gpu(), seed)?;
        cuprite_array::tuning::wait_tier_up();
        let optimised = run(gpu(), seed)?;
        let cpu = run(Device::CPU, seed)?;
        // The tiers: the documented bound.
        same_bits(&first.0, &optimised.0, "first use vs optimised: values")?;
        same_bits(
            &first.1,
            &optimised.1,
            "first use vs optimised: summed values",
        )?;
        sums_within(
            &first.2,
            &optimised.2,
            &optimised.1,
            cols,
            "first use vs optimised: row sums",
        )?;
        same_bits(&[first.3], &[optimised.3], "first use vs optimised: max")?;
        // The CPU backend: the programs' error models; a row sum adds each tier's summation
        // error (the CPU's in f64, rounded once) to the n values' differences.
        let (e0, e1, e2) = (bound(seed), bound(seed ^ 1), bound(seed ^ 2));
        crate::common::close(
            &f(&optimised.0),
            &f(&cpu.0),
            0.0,
            2.0 * e0,
            "optimised vs cpu: values",
        )?;
        crate::common::close(
            &f(&optimised.1),
            &f(&cpu.1),
            0.0,
            2.0 * e1,
            "optimised vs cpu: summed values",
        )?;
        for r in 0..rows {
            let abs: f64 = cpu.1[r * cols..(r + 1) * cols]
                .iter()
                .map(|&t| (t as f64).abs())
                .sum();
            let n = cols as f64;
            let tol = 2.0 * (n * e1 + gamma(cols - 1, U32_ROUNDOFF) * (abs + n * e1))
                + 2.0 * U32_ROUNDOFF * (cpu.2[r] as f64).abs();
            crate::common::close(
                &[optimised.2[r] as f64],
                &[cpu.2[r] as f64],
                0.0,
                tol,
                &format!("optimised vs cpu: row sum {r}"),
            )?;
        }
        crate::common::close(
            &[optimised.3 as f64],
            &[cpu.3 as f64],
            0.0,
            2.0 * e2,
            "optimised vs cpu: max",
        )?;
    }
    let interpreted = cuprite_array::stats::interpreted_first_uses() - before;
    assert!(
        interpreted >= 8,
        "only {interpreted} first uses ran on the interpreter (CUPRITE_ARRAY_INTERP=0 set?)"
    );
    Ok(())
}

/// The absolute value of `MIN` stays `MIN` and keeps its sign for the operations after it: an
/// integer power with exponent `abs(MIN)` is a negative power (0 unless the base is 1 or -1),
/// and `abs(MIN) < 0` holds, on both backends, in i64 and i32. ptxas took `abs.s64`'s result as
/// non-negative and removed the power's negative branch, which the CUDA fuzzer found as 1 for
/// odd bases.
fn wide_abs_keeps_sign() -> TestResult {
    let bases: Vec<i64> = vec![3, -3, 2, 1, -1, 0, i64::MAX, 7];
    let exps: Vec<i64> = vec![
        i64::MIN,
        i64::MIN,
        i64::MIN,
        i64::MIN,
        i64::MIN,
        i64::MIN,
        -5,
        3,
    ];
    let ipow = |b: i64, e: i64| -> i64 {
        if e < 0 {
            return match b {
                1 => 1,
                -1 => {
                    if e % 2 == 0 {
                        1
                    } else {
                        -1
                    }
                }
                _ => 0,
            };
        }
        (0..e).fold(1i64, |r, _| r.wrapping_mul(b))
    };
    let want: Vec<i64> = bases
        .iter()
        .zip(&exps)
        .map(|(&b, &e)| ipow(b, e.wrapping_abs()))
        .collect();
    let neg32: Vec<u8> = [i32::MIN, -1, 0, 5]
        .iter()
        .map(|x| (x.wrapping_abs() < 0) as u8)
        .collect();
    for d in [gpu(), Device::CPU] {
        let (p, n) = with_device(d, || {
            let b = Array::<i64>::from_slice(&bases, &[bases.len()])?;
            let e = Array::<i64>::from_slice(&exps, &[exps.len()])?;
            let x = Array::<i32>::from_slice(&[i32::MIN, -1, 0, 5], &[4])?;
            Ok::<_, cuprite_array::Error>((
                b.pow(e.abs()).to_vec()?,
                x.abs().less(0).cast::<u8>().to_vec()?,
            ))
        })?;
        assert_eq!(p, want, "pow(b, abs(e)) on {d:?}");
        assert_eq!(n, neg32, "abs(x) < 0 (i32) on {d:?}");
    }
    Ok(())
}

/// Wrapping negation, absolute value and division by -1 of 16-bit integers, widened afterwards,
/// give the same values on both backends (`-(-32768)` is -32768 in i16): ptxas lowered `neg.s16`
/// and `abs.s16` without sign-extending again, which the CUDA fuzzer found as 32768.
fn narrow_negation_wraps() -> TestResult {
    let xs: Vec<i16> = vec![i16::MIN, -32767, -1, 0, 1, 32767, -20533, 12345];
    let ds: Vec<i16> = vec![-1, -1, -1, -1, 2, -1, 3, -1];
    let want = |f: &dyn Fn(i16, i16) -> i16| -> Vec<i64> {
        xs.iter().zip(&ds).map(|(&x, &d)| f(x, d) as i64).collect()
    };
    let neg = want(&|x, _| x.wrapping_neg());
    let abs = want(&|x, _| x.wrapping_abs());
    // Integer `/` floors (NumPy's `//`): the truncated quotient, one less when the remainder
    // is non-zero and the signs differ; `MIN / -1` wraps.
    let div = want(&|x, d| {
        let q = x.wrapping_div(d);
        if x.wrapping_rem(d) != 0 && ((x < 0) != (d < 0)) {
            q - 1
        } else {
            q
        }
    });
    for d in [gpu(), Device::CPU] {
        let (n, a, q, n8) = with_device(d, || {
            let x = Array::<i16>::from_slice(&xs, &[xs.len()])?;
            let dv = Array::<i16>::from_slice(&ds, &[ds.len()])?;
            let x8 = Array::<i8>::from_slice(&[i8::MIN, -1, 0, 127], &[4])?;
            Ok::<_, cuprite_array::Error>((
                (-&x).cast::<i64>().to_vec()?,
                x.abs().cast::<i32>().cast::<i64>().to_vec()?,
                (&x / &dv).cast::<i64>().to_vec()?,
                (-&x8).cast::<i64>().to_vec()?,
            ))
        })?;
        assert_eq!(n, neg, "-x on {d:?}");
        assert_eq!(a, abs, "abs(x) on {d:?}");
        assert_eq!(q, div, "x / d on {d:?}");
        assert_eq!(n8, vec![-128, 1, 0, -127], "-x (i8) on {d:?}");
    }
    Ok(())
}

/// Two threads, each on its own stream, sharing inputs made on the default array stream.
fn two_threads_two_streams() -> TestResult {
    let mut rng = Rng::fresh();
    let n = 1 << 20;
    let x = rng.vec_f32(n, 0.0, 1.0);
    let shared = with_device(gpu(), || Array::from_slice(&x, &[n]))?;
    let ctx = cuprite_driver::Context::new(0)?;
    let results: Vec<f64> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|t| {
                let shared = shared.clone();
                let ctx = ctx.clone();
                s.spawn(move || -> Result<f64, String> {
                    let stream = ctx.new_stream().map_err(|e| e.to_string())?;
                    cuprite_array::with_stream(&stream, || {
                        let mut acc = shared.clone();
                        for _ in 0..20 {
                            acc = (&acc * 0.5 + (t as f32 + 1.0)).eval_into();
                        }
                        acc.sum()
                            .and_then(|s| s.item())
                            .map(|v| v as f64)
                            .map_err(|e| e.to_string())
                    })
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("thread").expect("ok"))
            .collect()
    });
    for (t, got) in results.iter().enumerate() {
        let c = t as f64 + 1.0;
        let want: f64 = x
            .iter()
            .map(|&v| {
                let mut a = v;
                for _ in 0..20 {
                    a = a * 0.5 + c as f32;
                }
                a as f64
            })
            .sum();
        crate::common::close(&[*got], &[want], 1e-4, 1e-3, "stream result")?;
    }
    Ok(())
}

trait EvalInto {
    fn eval_into(self) -> Self;
}
impl EvalInto for Array<f32> {
    fn eval_into(self) -> Self {
        self.eval().expect("eval");
        self
    }
}

fn memory_stats_and_lock() -> TestResult {
    with_device(gpu(), || {
        // Other tests allocate concurrently: only lock counts are exact here.
        let before = mem_stats(gpu());
        let a = Array::<f64>::rand_uniform(&[1 << 16], 3)?;
        let during = mem_stats(gpu());
        assert!(during.bytes_in_use >= 8 << 16);
        assert!(during.bytes_allocated_total >= before.bytes_allocated_total + (8 << 16));
        a.lock()?;
        assert!(a.is_locked());
        // Other tests lock and unlock memory in parallel: while `a` is locked, its bytes are
        // part of the count whatever they do; exact deltas are not observable here.
        assert!(mem_stats(gpu()).bytes_locked >= 8 << 16);
        a.unlock()?;
        assert!(!a.is_locked());
        let _ = before.bytes_locked;
        drop(a);
        cuprite_array::device_gc(gpu())?;
        let (free, total) = cuprite_array::mem_info(gpu())?;
        assert!(free > 0 && free <= total);
        Ok(())
    })
}

fn kernel_cache_hits() -> TestResult {
    with_device(gpu(), || {
        let mut rng = Rng::fresh();
        let a = Array::from_slice(&rng.vec_f32(1000, 0.0, 1.0), &[1000])?;
        let f = |x: &Array<f32>, k: f32| (x * k).cos().eval();
        f(&a, 1.5)?;
        // The optimised build of a new kernel may still be running in the background.
        cuprite_array::tuning::wait_tier_up();
        // This thread's builds: the process-wide counts also move with other tests' kernels.
        let c0 = cuprite_array::stats::thread_builds();
        // Same structure, other constant and other data: no new kernel.
        let b = Array::from_slice(&rng.vec_f32(1000, 0.0, 1.0), &[1000])?;
        f(&b, 2.5)?;
        let c1 = cuprite_array::stats::thread_builds();
        assert_eq!(c0, c1, "a cache hit builds nothing");
        Ok(())
    })
}

/// The per-thread kernel cache tells apart programs of the same instructions whose kernels
/// differ (a contiguous and a transposed input; f32 and f64), and serves a warm expression
/// over new data and constants with the right values.
fn local_kernel_cache_matches_exactly() -> TestResult {
    with_device(gpu(), || {
        let mut rng = Rng::fresh();
        let (r, c) = (24, 40);
        for round in 0..3 {
            let x = rng.vec_f32(r * c, -2.0, 2.0);
            let k = rng.f32_in(0.5, 1.5);
            let a = Array::from_slice(&x, &[r, c])?;
            let y = (&a * k + 1.0).to_vec()?;
            for (i, v) in y.iter().enumerate() {
                assert!(
                    (v - (x[i] * k + 1.0)).abs() < 1e-5,
                    "round {round} [{i}]: {v}"
                );
            }
            // Same instructions, a strided input: another kernel.
            let yt = (&a.t() * k + 1.0).to_vec()?;
            for i in 0..c {
                for j in 0..r {
                    let want = x[j * c + i] * k + 1.0;
                    let got = yt[i * r + j];
                    assert!(
                        (got - want).abs() < 1e-5,
                        "round {round} t[{i},{j}]: {got} vs {want}"
                    );
                }
            }
            // Same structure in f64: another kernel.
            let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let b = Array::from_slice(&x64, &[r, c])?;
            let z = (&b * k as f64 + 1.0).to_vec()?;
            for (i, v) in z.iter().enumerate() {
                assert!(
                    (v - (x64[i] * k as f64 + 1.0)).abs() < 1e-9,
                    "round {round} f64 [{i}]"
                );
            }
        }
        Ok(())
    })
}

/// Reductions of many short rows (the vectorised path with several rows) against the CPU.
fn row_reductions_match_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    for (rows, cols) in [
        (10, 4),
        (3, 8),
        (1000, 12),
        (7, 1024),
        (5, 4096 * 3),
        (2, 1 << 18),
    ] {
        let x = rng.vec_f32(rows * cols, -1.0, 1.0);
        let f = |d: Device| -> Result<(Vec<f32>, Vec<f32>, Vec<i64>), cuprite_array::Error> {
            with_device(d, || {
                let a = Array::from_slice(&x, &[rows, cols])?;
                let s = (-a.abs()).sum_axes(&[1])?.to_vec()?;
                let m = a.max_axes(&[1])?.to_vec()?;
                let am = a.argmax_axis(1)?.to_vec()?;
                Ok((s, m, am))
            })
        };
        let (c, g) = (f(Device::CPU)?, f(gpu())?);
        let want: Vec<f64> = (0..rows)
            .map(|r| {
                x[r * cols..(r + 1) * cols]
                    .iter()
                    .map(|v| -(v.abs() as f64))
                    .sum()
            })
            .collect();
        let got: Vec<f64> = g.0.iter().map(|&v| v as f64).collect();
        crate::common::close(&got, &want, 1e-4, 1e-4, &format!("row sums {rows}x{cols}"))?;
        assert_eq!(g.1, c.1, "row max {rows}x{cols}");
        assert_eq!(g.2, c.2, "row argmax {rows}x{cols}");
    }
    Ok(())
}

/// The minimal case a property run once found: reduce the evaluated result of a select.
fn reduce_evaluated_select() -> TestResult {
    // Process-wide: restored (to the default, vectorised) even when an assertion panics.
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            cuprite_array::tuning::set_vectorize(true);
        }
    }
    let _restore = Restore;
    let mut msgs = Vec::new();
    for vector in [true, false] {
        cuprite_array::tuning::set_vectorize(vector);
        for rep in 0..3 {
            let r = with_device(gpu(), || -> Result<Vec<i64>, cuprite_array::Error> {
                let mut d2 = vec![0i32; 24];
                d2[23] = 2928;
                d2[5] = 7;
                let l0 = Array::from_slice(&[0i32; 24], &[2, 3, 4])?;
                let l2 = Array::from_slice(&d2, &[2, 3, 4])?;
                let out = Array::select(&l2.greater(0), &l2, &l0)?;
                let v = out.to_vec()?;
                assert_eq!(v, d2);
                out.sum_axes(&[2])?.to_vec()
            })?;
            if r != vec![0, 7, 0, 0, 0, 2928] {
                msgs.push(format!("vector={vector} rep={rep}: {r:?}"));
            }
        }
    }
    if msgs.is_empty() {
        Ok(())
    } else {
        Err(msgs.join("; ").into())
    }
}

fn mixing_devices_is_an_error() -> TestResult {
    let a = with_device(Device::CPU, || Array::<f32>::ones(&[4]));
    let b = with_device(gpu(), || Array::<f32>::from_slice(&[1.0; 4], &[4]))?;
    assert!(matches!(
        a.try_add(&b),
        Err(cuprite_array::Error::DeviceMismatch(_))
    ));
    Ok(())
}

/// `$name(rng, x, y)`: a random chain of math-library functions over `x` and `y` (its
/// structure, so its kernel, is new in each run), magnitudes kept moderate.
macro_rules! math_chain {
    ($name:ident, $t:ty) => {
        fn $name(rng: &mut Rng, x: &Array<$t>, y: &Array<$t>) -> Array<$t> {
            let mut v = x.clone();
            for _ in 0..(6 + rng.next_u64() % 6) {
                v = match rng.next_u64() % 12 {
                    0 => v.sin(),
                    1 => v.cos() + y,
                    2 => (v.tanh() * 0.5).exp(),
                    3 => (v.abs() + 1.0).log(),
                    4 => v.atan2(y),
                    5 => (v.abs() + 0.5).pow(y.abs() * 0.5),
                    6 => (v.abs() + 0.5).lgamma(),
                    7 => v.erf() + y,
                    8 => v.hypot(y),
                    9 => (v.abs() + 0.25).cbrt().log1p(),
                    10 => v.sinh().tanh(),
                    _ => &v * 1.75,
                };
                v = v.tanh() * 3.0;
            }
            v
        }
    };
}
math_chain!(math_chain_f32, f32);
math_chain!(math_chain_f64, f64);

/// A quick first build linked with the math library computes what the optimised build
/// computes, and what the CPU computes, for `f32` (vectorised shape: the quick build is the
/// one-element-per-thread form) and `f64`.
fn linked_quick_build_matches() -> TestResult {
    with_device(gpu(), || {
        let mut rng = Rng::fresh();
        // Any new kernel asks for the math library; wait until it is built.
        let warm = Array::<f32>::from_slice(&rng.vec_f32(64, -1.0, 1.0), &[64])?;
        math_chain_f32(&mut rng, &warm, &warm).eval()?;
        cuprite_array::tuning::wait_tier_up();
        let n = 4099;
        let xs = rng.vec_f32(n, -3.0, 3.0);
        let ys = rng.vec_f32(n, -3.0, 3.0);
        let seed = rng.next_u64();
        let run32 = |d: Device| -> Result<Vec<f64>, cuprite_array::Error> {
            with_device(d, || {
                let (x, y) = (Array::from_slice(&xs, &[n])?, Array::from_slice(&ys, &[n])?);
                let r = math_chain_f32(&mut Rng::seeded(seed), &x, &y).to_vec()?;
                Ok(r.into_iter().map(f64::from).collect())
            })
        };
        let run64 = |d: Device| -> Result<Vec<f64>, cuprite_array::Error> {
            with_device(d, || {
                let x = Array::from_slice(&xs, &[n])?.cast::<f64>();
                let y = Array::from_slice(&ys, &[n])?.cast::<f64>();
                math_chain_f64(&mut Rng::seeded(seed ^ 1), &x, &y).to_vec()
            })
        };
        type Run<'a> = &'a dyn Fn(Device) -> Result<Vec<f64>, cuprite_array::Error>;
        let cases: [(&str, Run<'_>, f64); 2] = [("f32", &run32, 1e-4), ("f64", &run64, 1e-11)];
        for (name, run, tol) in cases {
            let linked = cuprite_array::stats::thread_linked_quick_builds();
            // The quick build, not the interpreter, serves the first use here.
            let quick = cuprite_array::tuning::without_interpreter(|| run(gpu()))?;
            assert_eq!(
                cuprite_array::stats::thread_linked_quick_builds(),
                linked + 1,
                "{name}: the first use was not a linked quick build"
            );
            cuprite_array::tuning::wait_tier_up();
            let optimised = run(gpu())?;
            let cpu = run(Device::CPU)?;
            crate::common::close(
                &quick,
                &optimised,
                tol,
                tol,
                &format!("{name} quick vs optimised"),
            )?;
            crate::common::close(
                &quick,
                &cpu,
                tol * 10.0,
                tol * 10.0,
                &format!("{name} quick vs cpu"),
            )?;
            assert!(
                quick.iter().all(|v| v.is_finite()),
                "{name}: non-finite values"
            );
        }
        Ok(())
    })
}

/// In a child process (see `main`): new kernels on the GPU with a fresh disk cache (so the
/// math library and the optimised builds are being built in the background), then exit.
pub fn exit_child() {
    let seed = Rng::fresh().next_u64();
    let r = with_device(gpu(), || -> Result<f32, cuprite_array::Error> {
        let a = Array::<f32>::rand_uniform(&[1 << 16], seed)?;
        let b = (a.sin() * 2.0 + 1.0).exp().cos();
        b.eval()?;
        // Several new kernels in a row, so that optimised builds are still queued or running
        // when the process exits.
        let c = (&b * &a).tanh().sum()?.item()?;
        let d = (a.exp() - &b).abs().sqrt().max()?.item()?;
        let e = ((&a * 3.0).sin() + b.cos()).sum()?.item()?;
        Ok(c + d + e)
    });
    match r {
        Ok(v) if v.is_finite() => {
            println!("{v} {}", cuprite_array::stats::interpreted_first_uses())
        }
        other => {
            eprintln!("child failed: {other:?}");
            std::process::exit(3);
        }
    }
}

/// A process that exits while background builds (the math library, optimised kernels) are in
/// progress exits cleanly: the exit hook waits for the build (without it, a process could
/// crash at exit while a build thread still ran).
fn exit_during_background_builds() -> TestResult {
    let (mut overlapped, runs) = (0, 10);
    for _ in 0..runs {
        let (v, _, err) = run_exit_child(cuprite_testkit::temp_dir("exit"))?;
        assert!(v.is_finite());
        overlapped += err.contains("waiting for the one in progress") as usize;
    }
    assert!(
        overlapped > 0,
        "no run exited with a background build in progress: the test proved nothing"
    );
    Ok(())
}

/// Runs [`exit_child`] in a new process with cache folder `dir` (removed after) and the JIT
/// trace on: its value, its count of interpreted first uses, and its standard error. A child
/// that fails is an `Err` with the end of its output.
fn run_exit_child(
    dir: std::path::PathBuf,
) -> Result<(f32, u64, String), Box<dyn std::error::Error + Send + Sync>> {
    let out = std::process::Command::new(std::env::current_exe()?)
        .env("CUPRITE_ARRAY_TEST_EXIT_CHILD", "1")
        .env("CUPRITE_CACHE_DIR", &dir)
        .env("CUPRITE_JIT_TRACE", "1")
        .output_within(CHILD_LIMIT)?;
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        let tail: Vec<&str> = err.lines().rev().take(5).collect();
        return Err(format!("child exited with {:?}: {tail:?}", out.status).into());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace();
    let (Some(v), Some(n), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("the child printed {text:?}, not a value and a count").into());
    };
    Ok((v.parse()?, n.parse()?, err))
}

/// A process whose disk cache holds the interpreter (and nothing else) runs its first new
/// kernels on it, loaded on the main thread, so that the optimised builds in the background
/// are the process's first NVRTC builds; it still exits cleanly when it exits during them (the
/// main thread's exit waits for the build before any library's exit-time destructor runs).
fn exit_with_interpreter_cached() -> TestResult {
    // This process's interpreter, built or read in its own cache folder.
    let seed = Rng::fresh().next_u64();
    with_device(gpu(), || {
        let a = Array::<f32>::rand_uniform(&[1000], seed)?;
        (a.sin() * 1.5 - 0.25).sum()?.item()
    })?;
    cuprite_array::tuning::wait_tier_up();
    let cc = cuprite_array::get_stream(0)?
        .context()
        .device()
        .compute_capability()?;
    let arch = cc.0 * 10 + cc.1;
    let Some(path) = cuprite_array::tuning::compiler::interpreter_cache_path(arch)? else {
        return Err("the disk cache is off: no interpreter file to hand on".into());
    };
    if !path.exists() {
        return Err(format!("the interpreter is not in this process's cache ({path:?})").into());
    }
    let name = path
        .file_name()
        .ok_or("the interpreter's cache path has no file name")?;
    let (mut overlapped, runs) = (0, 6);
    for _ in 0..runs {
        let dir = cuprite_testkit::temp_dir("exit-interp");
        std::fs::copy(&path, dir.join(name))?;
        let (v, interpreted, err) = run_exit_child(dir)?;
        assert!(v.is_finite());
        assert!(
            err.contains("interpreter loaded from the disk cache"),
            "the child did not load the interpreter from its cache: {err}"
        );
        assert!(
            interpreted >= 1,
            "the child ran no first use on the interpreter"
        );
        overlapped += err.contains("waiting for the one in progress") as usize;
    }
    assert!(
        overlapped > 0,
        "no run exited with a background build in progress: the test proved nothing"
    );
    Ok(())
}

/// Reductions that take one launch (the last block of a row combines the row's partials and
/// sets its counter back to zero), repeated so that a counter left non-zero would show, on one
/// row and on several, for sums, extremes and `any`/`all`; the same reductions on a stream of
/// the user's (the two-pass form) agree, integers and flags exactly.
fn one_launch_reductions() -> TestResult {
    let mut rng = Rng::fresh();
    let ctx = cuprite_driver::Context::new(0)?;
    let user = ctx.new_stream()?;
    type Out = (Vec<f32>, Vec<i64>, Vec<u8>, Vec<f64>, Vec<bool>, Vec<bool>);
    for (round, (rows, cols)) in [(1, 1 << 21), (3, 300_001), (64, 65_536), (200, 20_000)]
        .into_iter()
        .enumerate()
    {
        let n = rows * cols;
        let xs = rng.vec_f32(n, -1.0, 1.0);
        let is: Vec<i32> = (0..n)
            .map(|_| (rng.next_u64() % 2001) as i32 - 1000)
            .collect();
        let bs: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 251) as u8).collect();
        // One row's flags all set and one row's all clear, at rows chosen by the round.
        let mut fl: Vec<bool> = (0..n).map(|_| rng.next_u64() % 3 != 0).collect();
        let (set, clear) = (round % rows, (round + 1) % rows);
        fl[set * cols..(set + 1) * cols].fill(true);
        if clear != set {
            fl[clear * cols..(clear + 1) * cols].fill(false);
        }
        let run = || -> Result<Out, cuprite_array::Error> {
            let a = Array::from_slice(&xs, &[rows, cols])?;
            let b = Array::from_slice(&is, &[rows, cols])?;
            let c = Array::from_slice(&bs, &[rows, cols])?;
            let f = Array::from_slice(&fl, &[rows, cols])?;
            Ok((
                (&a * 2.0).sum_axes(&[1])?.to_vec()?,
                b.sum_axes(&[1])?.to_vec()?,
                c.max_axes(&[1])?.to_vec()?,
                a.cast::<f64>().min_axes(&[1])?.to_vec()?,
                f.any_axes(&[1])?.to_vec()?,
                f.all_axes(&[1])?.to_vec()?,
            ))
        };
        // The first use may take the quick builds; the repeats after `wait_tier_up` take the
        // optimised one-launch kernels.
        with_device(gpu(), run)?;
        cuprite_array::tuning::wait_tier_up();
        let first = with_device(gpu(), run)?;
        for _ in 0..3 {
            let again = with_device(gpu(), run)?;
            assert_eq!(again, first, "a repeat differs ({rows} x {cols})");
        }
        let two_pass = with_device(gpu(), || cuprite_array::with_stream(&user, run))?;
        let want_sum: Vec<f64> = (0..rows)
            .map(|r| {
                xs[r * cols..(r + 1) * cols]
                    .iter()
                    .map(|&v| 2.0 * v as f64)
                    .sum()
            })
            .collect();
        for (name, got) in [("one launch", &first.0), ("two passes", &two_pass.0)] {
            let got: Vec<f64> = got.iter().map(|&v| v as f64).collect();
            crate::common::close(
                &got,
                &want_sum,
                1e-4,
                1e-3,
                &format!("{name} sums {rows}x{cols}"),
            )?;
        }
        let want_i: Vec<i64> = (0..rows)
            .map(|r| is[r * cols..(r + 1) * cols].iter().map(|&v| v as i64).sum())
            .collect();
        let want_max: Vec<u8> = (0..rows)
            .map(|r| *bs[r * cols..(r + 1) * cols].iter().max().unwrap())
            .collect();
        let want_min: Vec<f64> = (0..rows)
            .map(|r| {
                xs[r * cols..(r + 1) * cols]
                    .iter()
                    .fold(f64::INFINITY, |m, &v| m.min(v as f64))
            })
            .collect();
        let want_any: Vec<bool> = (0..rows)
            .map(|r| fl[r * cols..(r + 1) * cols].iter().any(|&v| v))
            .collect();
        let want_all: Vec<bool> = (0..rows)
            .map(|r| fl[r * cols..(r + 1) * cols].iter().all(|&v| v))
            .collect();
        for got in [&first, &two_pass] {
            assert_eq!(got.1, want_i, "integer sums {rows}x{cols}");
            assert_eq!(got.2, want_max, "u8 maxima {rows}x{cols}");
            assert_eq!(got.3, want_min, "f64 minima {rows}x{cols}");
            assert_eq!(got.4, want_any, "any {rows}x{cols}");
            assert_eq!(got.5, want_all, "all {rows}x{cols}");
        }
        assert!(want_all[set] && !want_any[clear] || clear == set);
    }
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![
        Test::gpu("cross::one_launch_reductions", one_launch_reductions),
        Test::gpu(
            "cross::exit_during_background_builds",
            exit_during_background_builds,
        ),
        Test::gpu(
            "cross::exit_with_interpreter_cached",
            exit_with_interpreter_cached,
        ),
        Test::gpu(
            "cross::linked_quick_build_matches",
            linked_quick_build_matches,
        ),
        Test::gpu("cross::chain_matches_cpu", chain_matches_cpu),
        Test::gpu("cross::narrow_negation_wraps", narrow_negation_wraps),
        Test::gpu("cross::wide_abs_keeps_sign", wide_abs_keeps_sign),
        Test::gpu("cross::big_reductions_match_cpu", big_reductions_match_cpu),
        Test::gpu(
            "cross::interpreter_first_uses_match",
            interpreter_first_uses_match,
        ),
        Test::gpu(
            "cross::quick_reductions_any_size",
            quick_reductions_any_size,
        ),
        Test::gpu("cross::two_threads_two_streams", two_threads_two_streams),
        Test::gpu("cross::memory_stats_and_lock", memory_stats_and_lock),
        Test::gpu("cross::kernel_cache_hits", kernel_cache_hits),
        Test::gpu(
            "cross::local_kernel_cache_matches_exactly",
            local_kernel_cache_matches_exactly,
        ),
        Test::gpu(
            "cross::mixing_devices_is_an_error",
            mixing_devices_is_an_error,
        ),
        Test::gpu("cross::row_reductions_match_cpu", row_reductions_match_cpu),
        Test::gpu("cross::reduce_evaluated_select", reduce_evaluated_select),
    ]
}
