//! Compiled programs (`cuprite_array::compile`): replays bit-identical to eager runs of the same
//! closure on the same inputs, and checked against float64 host references; outputs held across
//! replays; inputs dropped between replays; FFTs and random draws (keyed per call); capture
//! errors for host reads, data-dependent sizes and FFTs without a plan, with the thread usable
//! afterwards; the LRU bound; the CPU path; a many-thread stress of replays, and one of
//! captures beside eager work with context-wide waits.
//!
//! Every GPU test here captures a CUDA graph, so each runs alone (`Test::gpu_alone`).

use cuprite_array::ops::fft::FftOpts;
use cuprite_array::random::{call_key_offset, philox4x32_10};
use cuprite_array::{Array, Device, FftNorm, Result, compile, linalg, with_device};
use cuprite_testkit::{Rng, Test, TestResult};

fn dev() -> Device {
    Device::cuda(0)
}

fn arr(rng: &mut Rng, shape: &[usize]) -> Array<f32> {
    let n: usize = shape.iter().product();
    Array::from_slice_on(dev(), &rng.vec_f32(n, -1.0, 1.0), shape).expect("upload")
}

/// Runs `f` eagerly and as a compiled program (first call: capture; second and third: replays
/// on fresh inputs) and checks every compiled output is bit-identical to the eager one.
fn same_as_eager<U, F>(name: &str, shapes: &[&[usize]], f: F) -> std::result::Result<(), String>
where
    U: cuprite_array::Element + PartialEq + std::fmt::Debug,
    F: Fn(&[Array<f32>]) -> Result<Vec<Array<U>>>,
{
    // Every call draws with the seeds as given, as the eager runs do.
    let prog = compile(&f).repeat_random(true);
    let mut rng = Rng::fresh();
    for call in 0..3 {
        let ins: Vec<Array<f32>> = shapes.iter().map(|s| arr(&mut rng, s)).collect();
        let refs: Vec<&Array<f32>> = ins.iter().collect();
        let got = prog
            .call(&refs)
            .map_err(|e| format!("{name} call {call}: {e}"))?;
        let want = with_device(dev(), || f(&ins)).map_err(|e| format!("{name} eager: {e}"))?;
        if got.len() != want.len() {
            return Err(format!(
                "{name}: {} outputs, eager {}",
                got.len(),
                want.len()
            ));
        }
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let (g, w) = (
                g.to_vec().map_err(|e| e.to_string())?,
                w.to_vec().map_err(|e| e.to_string())?,
            );
            let gb: Vec<u8> = g.iter().flat_map(|v| bytes_of(v)).collect();
            let wb: Vec<u8> = w.iter().flat_map(|v| bytes_of(v)).collect();
            if gb != wb {
                return Err(format!(
                    "{name} call {call} output {k}: replay {g:?} != eager {w:?}"
                ));
            }
        }
    }
    Ok(())
}

fn bytes_of<V>(v: &V) -> Vec<u8> {
    // SAFETY: the element types compared here are plain numbers (no padding, any bits valid).
    unsafe { std::slice::from_raw_parts((v as *const V).cast::<u8>(), std::mem::size_of::<V>()) }
        .to_vec()
}

/// The per-layer step of the MLP benchmark, with a float64 host reference below.
fn layer(h: &Array<f32>, w: &Array<f32>, b: &Array<f32>) -> Result<Array<f32>> {
    let z = linalg::matmul(h, w)? + b;
    Ok(z.tanh() * 0.5 + h * 0.5)
}

/// The programs replayed against eager runs, one test each (so a sanitizer's report names the
/// program).
const PROGRAMS: [&str; 10] = [
    "elementwise",
    "reductions",
    "matmul",
    "softmax",
    "sort",
    "scan",
    "rng",
    "rfft",
    "fft",
    "irfft",
];

fn program(name: &str) -> TestResult {
    let r = match name {
        "elementwise" => same_as_eager("elementwise", &[&[4096], &[4096]], |x| {
            Ok(vec![((&x[0] * 1.5 + &x[1]).exp() - &x[1]).sin() * 0.25])
        }),
        "reductions" => same_as_eager("reductions", &[&[64, 300]], |x| {
            Ok(vec![x[0].sum()?, (&x[0] * &x[0]).mean()?])
        }),
        "matmul" => same_as_eager("matmul", &[&[64, 256], &[256, 256], &[256]], |x| {
            Ok(vec![layer(&x[0], &x[1], &x[2].reshape(&[1, 256])?)?])
        }),
        "softmax" => same_as_eager("softmax", &[&[32, 1000]], |x| Ok(vec![x[0].softmax(-1)?])),
        "sort" => same_as_eager("sort", &[&[5000]], |x| Ok(vec![x[0].sort(0)?])),
        "scan" => same_as_eager("scan", &[&[7, 3000]], |x| Ok(vec![x[0].cumsum(1)?])),
        "rng" => same_as_eager("rng", &[&[2048]], |x| {
            Ok(vec![&x[0] + &Array::<f32>::rand_uniform(&[2048], 7)?])
        }),
        "rfft" => same_as_eager("rfft", &[&[16, 1000]], |x| Ok(vec![x[0].rfft()?])),
        "fft" => same_as_eager("fft", &[&[8, 64, 30]], |x| {
            Ok(vec![
                x[0].cast::<cuprite_array::c32>()
                    .fft_with(FftOpts::new().axis(1).norm(FftNorm::Ortho))?,
            ])
        }),
        "irfft" => same_as_eager("irfft", &[&[8, 64, 30]], |x| {
            let half = x[0].rfft()? * cuprite_array::c32::new(0.5, 0.0);
            Ok(vec![half.irfft_with(FftOpts::new().n(30))?])
        }),
        other => Err(format!("no program {other}")),
    };
    Ok(r?)
}

/// An MLP layer checked against float64 on the host, on two replays with different inputs.
fn matches_host_reference() -> TestResult {
    let (m, k, n) = (16usize, 64usize, 64usize);
    let prog = compile(|x: &[Array<f32>]| Ok(vec![layer(&x[0], &x[1], &x[2])?]));
    let mut rng = Rng::fresh();
    for _ in 0..3 {
        let (h, w, b) = (
            rng.vec_f32(m * k, -1.0, 1.0),
            rng.vec_f32(k * n, -0.2, 0.2),
            rng.vec_f32(n, -1.0, 1.0),
        );
        let ha = Array::from_slice_on(dev(), &h, &[m, k])?;
        let wa = Array::from_slice_on(dev(), &w, &[k, n])?;
        let ba = Array::from_slice_on(dev(), &b, &[1, n])?;
        let got = prog.call(&[&ha, &wa, &ba])?[0].to_vec()?;
        for i in 0..m {
            for j in 0..n {
                let z: f64 = (0..k)
                    .map(|t| h[i * k + t] as f64 * w[t * n + j] as f64)
                    .sum::<f64>()
                    + b[j] as f64;
                let want = z.tanh() * 0.5 + h[i * k + j] as f64 * 0.5;
                let g = got[i * n + j] as f64;
                if (g - want).abs() > 1e-4 {
                    return Err(format!("layer[{i},{j}] = {g}, float64 reference {want}").into());
                }
            }
        }
    }
    Ok(())
}

/// Outputs of earlier calls keep their values across later replays, and inputs dropped between
/// calls are not read again.
fn outputs_held_and_inputs_dropped() -> TestResult {
    let prog = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * 3.0 + 1.0]));
    let mut rng = Rng::fresh();
    let mut held = Vec::new();
    for _ in 0..6 {
        let v = rng.vec_f32(1000, -10.0, 10.0);
        let a = Array::from_slice_on(dev(), &v, &[1000])?;
        let out = prog.call(&[&a])?.remove(0);
        drop(a);
        // Fresh arrays of the same size, likely to take the dropped input's memory.
        let _noise: Vec<Array<f32>> = (0..4).map(|_| Array::full(&[1000], 1e6f32)).collect();
        held.push((v, out));
    }
    for (k, (v, out)) in held.iter().enumerate() {
        let got = out.to_vec()?;
        for (i, (&x, &g)) in v.iter().zip(&got).enumerate() {
            let want = (x as f64 * 3.0 + 1.0) as f32;
            if (g - want).abs() > 1e-5 * want.abs().max(1.0) {
                return Err(format!("call {k} element {i}: {g}, want {want}").into());
            }
        }
    }
    Ok(())
}

/// Whether the closure calling it runs under capture: a read to the host is refused there (an
/// `Err` before any driver call, which leaves the capture as it was) and works eagerly.
fn captured(x: &Array<f32>) -> bool {
    x.to_vec().is_err()
}

/// Host reads and data-dependent sizes inside the closure are an `Err` naming the call; the
/// thread's array work and a new program work afterwards.
fn capture_errors() -> TestResult {
    let a = Array::from_slice_on(dev(), &[1.0f32, 0.0, 2.0, 0.0], &[4])?;
    let host_read = compile(|x: &[Array<f32>]| {
        let v = (&x[0] * 2.0).to_vec()?;
        Ok(vec![&x[0] + v[0]])
    });
    match host_read.call(&[&a]) {
        Err(e) if e.to_string().contains("to_vec") => {}
        other => return Err(format!("to_vec inside a capture: {other:?}").into()),
    }
    let data_dependent = compile(|x: &[Array<f32>]| {
        let nz = x[0].nonzero()?;
        Ok(vec![nz[0].cast::<f32>()])
    });
    match data_dependent.call(&[&a]) {
        Err(e) if e.to_string().contains("compiled program") => {}
        other => return Err(format!("nonzero inside a capture: {other:?}").into()),
    }
    // An FFT whose plan the eager run did not make (the closure changes its FFT under capture:
    // the first capture fails for want of any plan, the eager run makes one for n = 4, the
    // second capture asks for n = 2).
    let fft = compile(|x: &[Array<f32>]| {
        let n = if captured(&x[0]) { 2 } else { 4 };
        Ok(vec![x[0].rfft_with(FftOpts::new().n(n))?])
    });
    match fft.call(&[&a]) {
        Err(e) if e.to_string().contains("eager run did not make") => {}
        other => return Err(format!("an FFT without its plan in a capture: {other:?}").into()),
    }
    // A closure whose output shape under capture differs from its eager run's (its first run,
    // a capture with no eager run before it, fails, so that the eager run follows).
    let shaped = std::sync::atomic::AtomicUsize::new(0);
    let reshaping = compile(|x: &[Array<f32>]| {
        let k = shaped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let under_capture = captured(&x[0]);
        if k == 0 && under_capture {
            return Err(cuprite_array::Error::InvalidArgument("not yet".into()));
        }
        let y = &x[0] * 2.0;
        Ok(vec![if under_capture {
            y.reshape(&[2, 2])?
        } else {
            y
        }])
    });
    match reshaping.call(&[&a]) {
        Err(e)
            if e.to_string()
                .contains("[2, 2] under capture and [4] eagerly") => {}
        other => return Err(format!("an output shape changed by the capture: {other:?}").into()),
    }
    let sync = compile(|x: &[Array<f32>]| {
        cuprite_array::sync(dev())?;
        Ok(vec![x[0].clone()])
    });
    if sync.call(&[&a]).is_ok() {
        return Err("sync inside a capture was accepted".into());
    }
    // Eager work and a new capture still work.
    let s = (&a * 2.0).sum()?.item()?;
    if s != 6.0 {
        return Err(format!("eager sum after failed captures: {s}, want 6").into());
    }
    let ok = compile(|x: &[Array<f32>]| Ok(vec![&x[0] + 1.0]));
    let got = ok.call(&[&a])?[0].to_vec()?;
    if got != [2.0, 1.0, 3.0, 1.0] {
        return Err(format!("capture after failed captures: {got:?}").into());
    }
    // No capture was left in progress: a context-wide synchronisation (which waits for one)
    // and a collection run.
    cuprite_array::sync(dev())?;
    cuprite_array::device_gc(dev())?;
    Ok(())
}

/// A closure that panics, or uploads host data, inside the capture: the capture is ended (a
/// context-wide synchronisation works afterwards), and the thread's eager work, another
/// thread's, and a new capture give right values.
fn failed_captures_leave_no_state() -> TestResult {
    let a = Array::from_slice_on(dev(), &[1.0f32, 2.0, 3.0], &[3])?;
    let panicking = compile(|x: &[Array<f32>]| {
        // An eager run passes; a capture panics midway, with work already captured.
        let y = &x[0] * 2.0;
        y.eval()?;
        if captured(&x[0]) {
            panic!("a panic inside a capture");
        }
        Ok(vec![y])
    });
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panicking.call(&[&a])));
    if caught.is_ok() {
        return Err("the panic inside the capture did not reach the caller".into());
    }
    let upload = compile(|x: &[Array<f32>]| {
        let t = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
        Ok(vec![&x[0] + &t])
    });
    match upload.call(&[&a]) {
        Err(e) if e.to_string().contains("upload from the host") => {}
        other => return Err(format!("an upload inside a capture: {other:?}").into()),
    }
    cuprite_array::sync(dev())?;
    let other = std::thread::spawn(move || -> Result<Vec<f32>> {
        with_device(dev(), || (Array::<f32>::full(&[3], 2.0) * 3.0).to_vec())
    })
    .join()
    .map_err(|_| "the other thread panicked")??;
    if other != [6.0; 3] {
        return Err(format!("another thread's eager work after failed captures: {other:?}").into());
    }
    let ok = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * &x[0]]));
    for _ in 0..3 {
        let got = ok.call(&[&a])?[0].to_vec()?;
        if got != [1.0, 4.0, 9.0] {
            return Err(format!("a capture after failed ones: {got:?}").into());
        }
    }
    Ok(())
}

/// One graph per signature, at most the limit kept, each replaying its own shapes correctly.
fn lru_limit() -> TestResult {
    let prog = compile(|x: &[Array<f32>]| Ok(vec![x[0].sum()?])).with_cache_limit(2);
    for round in 0..2 {
        for n in [10usize, 20, 30] {
            let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let a = Array::from_slice_on(dev(), &v, &[n])?;
            let got = prog.call(&[&a])?[0].item()?;
            let want = (n * (n - 1) / 2) as f32;
            if got != want {
                return Err(format!("round {round}, n = {n}: sum {got}, want {want}").into());
            }
            if prog.num_graphs() > 2 {
                return Err(format!("{} graphs kept, limit 2", prog.num_graphs()).into());
            }
        }
    }
    Ok(())
}

/// The CPU backend runs the closure directly, with the eager results.
fn cpu_path() -> TestResult {
    let f = |x: &[Array<f32>]| -> Result<Vec<Array<f32>>> {
        Ok(vec![(&x[0] * &x[1]).tanh() + 0.5, x[0].cumsum(0)?])
    };
    let prog = compile(f);
    let mut rng = Rng::fresh();
    let (u, v) = (rng.vec_f32(257, -2.0, 2.0), rng.vec_f32(257, -2.0, 2.0));
    let a = Array::from_slice_on(Device::CPU, &u, &[257])?;
    let b = Array::from_slice_on(Device::CPU, &v, &[257])?;
    let got = prog.call(&[&a, &b])?;
    let want = f(&[a.clone(), b.clone()])?;
    for (g, w) in got.iter().zip(&want) {
        if g.to_vec()? != w.to_vec()? {
            return Err("the CPU path differs from the closure".into());
        }
    }
    let first = got[0].to_vec()?;
    for i in 0..257 {
        let want = ((u[i] as f64 * v[i] as f64).tanh() + 0.5) as f32;
        if (first[i] - want).abs() > 1e-6 {
            return Err(format!("element {i}: {}, want {want}", first[i]).into());
        }
    }
    Ok(())
}

/// Bad signatures: no inputs, inputs on two devices.
fn bad_signatures() -> TestResult {
    let prog = compile(|x: &[Array<f32>]| Ok(vec![x[0].clone()]));
    match prog.call(&[]) {
        Err(e) if e.to_string().contains("at least one input") => Ok(()),
        other => Err(format!("no inputs: {other:?}").into()),
    }
}

/// A stress test's length (`CUPRITE_CAPTURE_STRESS_SECS`, 3 s by default) and the array memory
/// in use as it starts, after a collection.
fn stress_start() -> Result<(u64, usize)> {
    let secs = std::env::var("CUPRITE_CAPTURE_STRESS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    cuprite_array::device_gc(dev())?;
    Ok((secs, cuprite_array::mem_stats(dev()).bytes_in_use))
}

/// Whether the array memory in use, after a wait and a collection, is back to `before`.
fn memory_back_to(before: usize) -> TestResult {
    cuprite_array::sync(dev())?;
    cuprite_array::device_gc(dev())?;
    let after = cuprite_array::mem_stats(dev()).bytes_in_use;
    if after > before {
        return Err(
            format!("array memory in use {after} bytes after the stress, {before} before").into(),
        );
    }
    Ok(())
}

/// Threads each replaying their own program beside eager work on the same arrays, for
/// `CUPRITE_CAPTURE_STRESS_SECS` seconds (3 by default); every value checked, and the array
/// memory in use back to where it began.
fn stress() -> TestResult {
    let (secs, before) = stress_start()?;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let threads: Vec<_> = (0..16u64)
        .map(|t| {
            std::thread::spawn(move || -> std::result::Result<u64, String> {
                let k = 1.0 + t as f32;
                let prog = compile(move |x: &[Array<f32>]| {
                    let y = (&x[0] * k + &x[1]).tanh();
                    Ok(vec![y.sum()?, y])
                });
                let mut rng = Rng::seeded(cuprite_testkit::process_seed() ^ t);
                let mut n = 0;
                while std::time::Instant::now() < until {
                    let len = 256 + 256 * (n as usize % 3);
                    let (u, v) = (rng.vec_f32(len, -1.0, 1.0), rng.vec_f32(len, -1.0, 1.0));
                    let run = || -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
                        let a = Array::from_slice_on(dev(), &u, &[len])?;
                        let b = Array::from_slice_on(dev(), &v, &[len])?;
                        let out = prog.call(&[&a, &b])?;
                        let eager = (&a * k + &b).tanh();
                        Ok((out[1].to_vec()?, eager.to_vec()?, vec![out[0].item()?]))
                    };
                    let (g, e, s) = run().map_err(|e| format!("thread {t}: {e}"))?;
                    if g != e {
                        return Err(format!(
                            "thread {t} iteration {n}: replay differs from eager"
                        ));
                    }
                    let want: f64 = u
                        .iter()
                        .zip(&v)
                        .map(|(&x, &y)| (x as f64 * k as f64 + y as f64).tanh())
                        .sum();
                    if (s[0] as f64 - want).abs() > 1e-3 * (len as f64).sqrt() {
                        return Err(format!(
                            "thread {t} iteration {n}: sum {}, want {want}",
                            s[0]
                        ));
                    }
                    n += 1;
                }
                Ok(n)
            })
        })
        .collect();
    let mut total = 0;
    for h in threads {
        total += h
            .join()
            .map_err(|_| "a stress thread panicked".to_string())??;
    }
    if total < 16 {
        return Err(format!("only {total} iterations ran").into());
    }
    memory_back_to(before)
}

/// One eager thread's step of [`captures_beside_eager`]: sums, sorts, scans and a product on
/// fresh data, checked against the host; then a context-wide wait (`sync`) and, every fourth
/// step, a collection run, both of which wait out the captures of the other threads.
fn eager_step(rng: &mut Rng, n: usize) -> std::result::Result<(), String> {
    let len = 1000 + (rng.next_u64() % 5000) as usize;
    let u = rng.vec_f32(len, -1.0, 1.0);
    let run = || -> Result<(f32, Vec<f32>, Vec<f32>, Vec<f32>)> {
        let a = Array::from_slice_on(dev(), &u, &[len])?;
        let s = (&a * 2.0 + 1.0).sum()?.item()?;
        let sorted = a.sort(0)?.to_vec()?;
        let scan = a.cumsum(0)?.to_vec()?;
        let m = Array::from_slice_on(dev(), &u[..64 * 8], &[64, 8])?;
        let mt: Vec<f32> = (0..8 * 64).map(|k| u[(k % 64) * 8 + k / 64]).collect();
        let mt = Array::from_slice_on(dev(), &mt, &[8, 64])?;
        let p = linalg::matmul(&mt, &m)?.to_vec()?;
        cuprite_array::sync(dev())?;
        if n % 4 == 0 {
            cuprite_array::device_gc(dev())?;
        }
        Ok((s, sorted, scan, p))
    };
    let (s, sorted, scan, p) = run().map_err(|e| format!("eager step {n}: {e}"))?;
    let want: f64 = u.iter().map(|&x| 2.0 * x as f64 + 1.0).sum();
    if (s as f64 - want).abs() > 1e-3 * (len as f64).sqrt() {
        return Err(format!("eager step {n}: sum {s}, want {want}"));
    }
    let mut hs = u.clone();
    hs.sort_by(f32::total_cmp);
    if sorted != hs {
        return Err(format!("eager step {n}: sort differs from the host's"));
    }
    let mut acc = 0.0f64;
    for (i, (&x, &g)) in u.iter().zip(&scan).enumerate() {
        acc += x as f64;
        if (g as f64 - acc).abs() > 1e-4 * (i as f64 + 1.0).sqrt() + 1e-5 {
            return Err(format!("eager step {n}: cumsum[{i}] {g}, want {acc}"));
        }
    }
    for i in 0..8 {
        for j in 0..8 {
            let w: f64 = (0..64)
                .map(|r| u[r * 8 + i] as f64 * u[r * 8 + j] as f64)
                .sum();
            let g = p[i * 8 + j] as f64;
            if (g - w).abs() > 1e-4 * 64.0 {
                return Err(format!("eager step {n}: product [{i},{j}] {g}, want {w}"));
            }
        }
    }
    Ok(())
}

/// Captures beside eager work on the same GPU: two threads compile new programs (every one of
/// [`PROGRAMS`], each checked bit for bit against eager runs) over and over, while three
/// threads run eager work checked against the host, with context-wide waits (`sync`) and
/// collections (`device_gc`) among it. For `CUPRITE_CAPTURE_STRESS_SECS` seconds (3 by
/// default); no call may fail, and the array memory in use is back to where it began.
fn captures_beside_eager() -> TestResult {
    let (secs, before) = stress_start()?;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let capturing = (0..2usize).map(|t| {
        std::thread::spawn(move || -> std::result::Result<(usize, usize), String> {
            let mut n = 0;
            while std::time::Instant::now() < until {
                let p = PROGRAMS[(n + 5 * t) % PROGRAMS.len()];
                program(p).map_err(|e| format!("capturing thread {t}, program {p}: {e}"))?;
                n += 1;
            }
            Ok((n, 0))
        })
    });
    let eager = (0..3u64).map(|t| {
        std::thread::spawn(move || -> std::result::Result<(usize, usize), String> {
            let mut rng = Rng::seeded(cuprite_testkit::process_seed() ^ (t + 100));
            let mut n = 0;
            while std::time::Instant::now() < until {
                eager_step(&mut rng, n).map_err(|e| format!("eager thread {t}: {e}"))?;
                n += 1;
            }
            Ok((0, n))
        })
    });
    let handles: Vec<_> = capturing.chain(eager).collect();
    let (mut captured, mut steps) = (0, 0);
    let mut failures = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok((c, e))) => {
                captured += c;
                steps += e;
            }
            Ok(Err(e)) => failures.push(e),
            Err(_) => failures.push("a thread panicked".to_string()),
        }
    }
    if !failures.is_empty() {
        return Err(failures.join("; ").into());
    }
    if captured < 2 || steps < 3 {
        return Err(format!("only {captured} programs and {steps} eager steps ran").into());
    }
    memory_back_to(before)
}

pub fn tests() -> Vec<Test> {
    let replays = PROGRAMS.iter().map(|&p| {
        Test::gpu_alone(format!("capture::replays_match_eager::{p}"), move || {
            program(p)
        })
    });
    replays
        .chain([
            Test::gpu_alone("capture::matches_host_reference", matches_host_reference),
            Test::gpu_alone(
                "capture::outputs_held_and_inputs_dropped",
                outputs_held_and_inputs_dropped,
            ),
            Test::gpu_alone("capture::capture_errors", capture_errors),
            Test::gpu_alone(
                "capture::failed_captures_leave_no_state",
                failed_captures_leave_no_state,
            ),
            Test::gpu_alone("capture::lru_limit", lru_limit),
            Test::gpu_alone("capture::stress", stress),
            Test::gpu_alone("capture::captures_beside_eager", captures_beside_eager),
            Test::cpu("capture::cpu_path", cpu_path),
            Test::cpu("capture::cpu_random_per_call", || {
                random_per_call(Device::CPU)
            }),
            Test::gpu_alone("capture::random_per_replay", || random_per_call(dev())),
            Test::cpu("capture::cpu_gamma_per_call", || {
                gamma_per_call(Device::CPU)
            }),
            Test::gpu_alone("capture::gamma_per_replay", || gamma_per_call(dev())),
            Test::cpu("capture::cpu_generator_per_call", || {
                generator_per_call(Device::CPU)
            }),
            Test::gpu_alone(
                "capture::generator_per_replay",
                || generator_per_call(dev()),
            ),
            Test::nvrtc(
                "capture::keyed_random_kernels_compile",
                keyed_random_kernels_compile,
            ),
            Test::cpu("capture::bad_signatures", bad_signatures),
            Test::gpu_alone(
                "capture::same_and_new_input_buffers",
                same_and_new_input_buffers,
            ),
            Test::gpu_alone(
                "capture::outputs_dropped_and_reused",
                outputs_dropped_and_reused,
            ),
            Test::gpu_alone(
                "capture::eviction_keeps_held_outputs",
                eviction_keeps_held_outputs,
            ),
            Test::gpu_alone("capture::replay_stage_times", replay_stage_times),
            Test::gpu_alone(
                "capture::same_input_dropped_then_new_one",
                same_input_dropped_then_new_one,
            ),
            Test::gpu_alone(
                "capture::weights_passed_every_step",
                weights_passed_every_step,
            ),
            Test::gpu_alone(
                "capture::strided_input_passed_again",
                strided_input_passed_again,
            ),
            Test::gpu_alone(
                "capture::steady_replays_wait_once",
                steady_replays_wait_once,
            ),
            Test::gpu_alone(
                "capture::outputs_ready_on_array_stream",
                outputs_ready_on_array_stream,
            ),
            Test::cpu("capture::cpu_stage_times", cpu_stage_times),
            Test::gpu_alone(
                "capture::held_output_keeps_values",
                held_output_keeps_values,
            ),
            Test::gpu_alone(
                "capture::output_buffers_reused_when_dropped",
                output_buffers_reused_when_dropped,
            ),
            Test::gpu_alone(
                "capture::exposed_outputs_never_rewritten",
                exposed_outputs_never_rewritten,
            ),
            Test::gpu_alone(
                "capture::output_read_by_another_graph_kept",
                output_read_by_another_graph_kept,
            ),
            Test::gpu_alone(
                "capture::steady_replays_on_calling_stream",
                steady_replays_on_calling_stream,
            ),
            Test::gpu_alone(
                "capture::replays_on_a_user_stream",
                replays_on_a_user_stream,
            ),
            Test::gpu_alone("capture::capture_stage_times", capture_stage_times),
            Test::gpu_alone(
                "capture::steady_replays_read_on_another_stream",
                steady_replays_read_on_another_stream,
            ),
            Test::gpu_alone(
                "capture::steady_replays_on_a_dropped_stream",
                steady_replays_on_a_dropped_stream,
            ),
            Test::gpu_alone(
                "capture::stashed_intermediate_outlives_program",
                stashed_intermediate_outlives_program,
            ),
            Test::gpu_alone(
                "capture::direct_capture_runs_closure_once",
                direct_capture_runs_closure_once,
            ),
            Test::gpu_alone(
                "capture::direct_capture_falls_back_to_eager_run",
                direct_capture_falls_back_to_eager_run,
            ),
            Test::gpu_alone(
                "capture::direct_capture_grows_its_arena",
                direct_capture_grows_its_arena,
            ),
            Test::gpu_alone(
                "capture::programmatic_chain_matches_eager",
                programmatic_chain_matches_eager,
            ),
            Test::gpu_alone(
                "capture::one_launch_reductions_replayed",
                one_launch_reductions_replayed,
            ),
        ])
        .collect()
}

/// Puts the programmatic-launch switch back as it was when dropped.
struct PdlSwitch(bool);

impl PdlSwitch {
    fn on() -> PdlSwitch {
        let before = cuprite_array::tuning::graph_pdl();
        cuprite_array::tuning::set_graph_pdl(true);
        PdlSwitch(before)
    }
}

impl Drop for PdlSwitch {
    fn drop(&mut self) {
        cuprite_array::tuning::set_graph_pdl(self.0);
    }
}

/// A chain of dependent kernels: the MLP benchmark's four layers (small products with their
/// bias, fused element-wise steps), the mean-square loss (a reduction with its division folded in),
/// a second reduction, an element-wise step reading both reductions' results, and a product
/// of that. Inputs: `h`, four weights, four biases, the target.
fn programmatic_chain(x: &[Array<f32>]) -> Result<Vec<Array<f32>>> {
    let mut h = x[0].clone();
    for l in 0..4 {
        h = layer(&h, &x[1 + l], &x[5 + l])?;
    }
    let d = &h - &x[9];
    let loss = (&d * &d).mean()?;
    let s = (h.exp() * 0.5 - 1.0).sum()?;
    let y = (&h * &loss + &s * 1e-3).tanh();
    let z = linalg::matmul(&y, &x[1])? + &x[5];
    Ok(vec![h, loss, s, z.sum_axes(&[0])?])
}

/// With programmatic launches on, the chain above replayed many times back to back (outputs
/// of every replay held, so each writes fresh buffers) equals its eager run bit for bit, on
/// several input sets; on compute capability 9.0 and later the capture launched kernels as
/// programmatic dependents, below it none.
fn programmatic_chain_matches_eager() -> TestResult {
    const REPLAYS: usize = 64;
    let _switch = PdlSwitch::on();
    let (major, _) = cuprite_driver::Device::get(0)?.compute_capability()?;
    let prog = compile(programmatic_chain);
    let mut rng = Rng::fresh();
    let scale = 2.0 / 16.0;
    for round in 0..4 {
        let mut ins = vec![arr(&mut rng, &[64, 256])];
        for _ in 0..4 {
            ins.push(arr(&mut rng, &[256, 256]) * scale);
        }
        for _ in 0..4 {
            ins.push(arr(&mut rng, &[1, 256]) * scale);
        }
        ins.push(arr(&mut rng, &[64, 256]) * 0.1);
        let refs: Vec<&Array<f32>> = ins.iter().collect();
        // Realised, so that the eager run reads the values the graph's input copies hold
        // (not the scalings fused into its kernels).
        cuprite_array::eval_many(&refs)?;
        if round == 0 {
            // The chain's kernels built and optimised before the eager reference and the
            // capture, so that both launch the same builds (a quick first build may round
            // differently, and the interpreter stands in for a kernel still building).
            for a in with_device(dev(), || programmatic_chain(&ins))? {
                a.to_vec()?;
            }
            cuprite_array::tuning::wait_tier_up();
        }
        let want: Vec<Vec<f32>> = with_device(dev(), || programmatic_chain(&ins))?
            .iter()
            .map(|a| a.to_vec())
            .collect::<Result<_>>()?;
        let before = cuprite_array::stats::thread_programmatic_launches();
        let mut held = Vec::with_capacity(REPLAYS);
        for _ in 0..REPLAYS {
            held.push(prog.call(&refs)?);
        }
        let launched = cuprite_array::stats::thread_programmatic_launches() - before;
        if round == 0 {
            // The first call captured the graph.
            if major >= 9 && launched == 0 {
                return Err("the capture launched no kernel as a programmatic dependent".into());
            }
            if major < 9 && launched != 0 {
                return Err(format!(
                    "{launched} programmatic launches below compute capability 9.0"
                )
                .into());
            }
        } else if launched != 0 {
            return Err(format!("{launched} programmatic launches outside a capture").into());
        }
        for (call, outs) in held.iter().enumerate() {
            for (k, (g, w)) in outs.iter().zip(&want).enumerate() {
                let g = g.to_vec()?;
                if g.len() != w.len() || g.iter().zip(w).any(|(a, b)| a.to_bits() != b.to_bits()) {
                    let at = g
                        .iter()
                        .zip(w)
                        .position(|(a, b)| a.to_bits() != b.to_bits())
                        .unwrap_or(0);
                    return Err(format!(
                        "round {round} replay {call} output {k} element {at}: {:?} != eager {:?}",
                        g.get(at),
                        w.get(at)
                    )
                    .into());
                }
            }
        }
    }
    Ok(())
}

/// Uniform `f32` number `i` of Philox key `key`, from the generator's definition: counter
/// `i / 4`, word `i % 4`, its top 24 bits times 2⁻²⁴.
fn philox_uniform_f32(key: u64, i: u64) -> f32 {
    (philox4x32_10(key, i / 4)[(i % 4) as usize] >> 8) as f32 / 16_777_216.0
}

/// The random program of [`random_per_call`]: the input plus uniform and normal draws of seed
/// 11 (and, as `f64`, seed 12), so each call's draws show in its outputs.
fn noisy(x: &[Array<f32>]) -> Result<Vec<Array<f32>>> {
    let n = x[0].len();
    Ok(vec![
        &x[0] + &Array::<f32>::rand_uniform(&[n], 11)?,
        Array::<f32>::rand_normal(&[n], 11)?,
        Array::<f64>::rand_uniform(&[n], 12)?.cast::<f32>(),
    ])
}

/// Call `n` of a compiled program draws with key `seed ^ call_key_offset(n)`: checked against
/// the Philox definition for the uniform draws and against eager draws with that key for the
/// others; two calls never draw the same numbers; `repeat_random(true)` draws the seeds' own
/// numbers every call.
fn random_per_call(device: Device) -> TestResult {
    let n = 1000usize;
    let zero = Array::from_slice_on(device, &vec![0.0f32; n], &[n])?;
    let prog = compile(noisy);
    let mut seen: Vec<Vec<f32>> = Vec::new();
    for call in 0..4u64 {
        let got = prog.call(&[&zero])?;
        let key = |seed: u64| seed ^ call_key_offset(call);
        let u = got[0].to_vec()?;
        for (i, &g) in u.iter().enumerate() {
            let want = philox_uniform_f32(key(11), i as u64);
            if g.to_bits() != want.to_bits() {
                return Err(
                    format!("{device} call {call}: uniform[{i}] = {g}, Philox {want}").into(),
                );
            }
        }
        let eager = with_device(device, || -> Result<(Vec<f32>, Vec<f32>)> {
            Ok((
                Array::<f32>::rand_normal(&[n], key(11))?.to_vec()?,
                Array::<f64>::rand_uniform(&[n], key(12))?
                    .cast::<f32>()
                    .to_vec()?,
            ))
        })?;
        if got[1].to_vec()? != eager.0 || got[2].to_vec()? != eager.1 {
            return Err(format!(
                "{device} call {call}: draws differ from eager key {}",
                key(11)
            )
            .into());
        }
        if seen.contains(&u) {
            return Err(format!("{device} call {call} drew an earlier call's numbers").into());
        }
        seen.push(u);
    }
    let same = compile(noisy).repeat_random(true);
    let want: Vec<f32> = (0..n as u64).map(|i| philox_uniform_f32(11, i)).collect();
    for call in 0..3 {
        if same.call(&[&zero])?[0].to_vec()? != want {
            return Err(
                format!("{device} repeat_random call {call}: not seed 11's numbers").into(),
            );
        }
    }
    Ok(())
}

/// The gamma program of [`gamma_per_call`]: the input plus gamma draws of seed 13 (shape 2.5,
/// scale 1.5) and 15 (shape 0.6, the boosted form), and beta draws of seed 14 (2, 3), whose
/// second gamma takes a key derived from the seed.
fn gammas(x: &[Array<f32>]) -> Result<Vec<Array<f32>>> {
    let n = x[0].len();
    Ok(vec![
        &x[0] + &Array::<f64>::gamma(&[n], 2.5, 1.5, 13)?.cast::<f32>(),
        Array::<f64>::beta(&[n], 2.0, 3.0, 14)?.cast::<f32>(),
        Array::<f64>::gamma(&[n], 0.6, 1.0, 15)?.cast::<f32>(),
    ])
}

/// Gamma and beta draws (library calls with their own kernels) are keyed per call as
/// element-wise draws are: call `n` gives what eager draws with seed `s ^ call_key_offset(n)`
/// give, no two calls give the same numbers, and `repeat_random(true)` gives the seeds' own
/// numbers every call.
fn gamma_per_call(device: Device) -> TestResult {
    let n = 512usize;
    let zero = Array::from_slice_on(device, &vec![0.0f32; n], &[n])?;
    let eager = |off: u64| {
        with_device(device, || -> Result<Vec<Vec<f32>>> {
            let key = |seed: u64| seed ^ off;
            Ok(vec![
                Array::<f64>::gamma(&[n], 2.5, 1.5, key(13))?
                    .cast::<f32>()
                    .to_vec()?,
                Array::<f64>::beta(&[n], 2.0, 3.0, key(14))?
                    .cast::<f32>()
                    .to_vec()?,
                Array::<f64>::gamma(&[n], 0.6, 1.0, key(15))?
                    .cast::<f32>()
                    .to_vec()?,
            ])
        })
    };
    let prog = compile(gammas);
    let mut seen: Vec<Vec<f32>> = Vec::new();
    for call in 0..4u64 {
        let got = prog.call(&[&zero])?;
        let want = eager(call_key_offset(call))?;
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let g = g.to_vec()?;
            if let Some(i) = (0..n).find(|&i| g[i].to_bits() != w[i].to_bits()) {
                return Err(format!(
                    "{device} call {call}: output {k}[{i}] = {}, eager with the call's keys {}",
                    g[i], w[i]
                )
                .into());
            }
            if k == 1 && seen.contains(&g) {
                return Err(format!("{device} call {call} drew an earlier call's betas").into());
            }
            if k == 1 {
                seen.push(g);
            }
        }
    }
    let same = compile(gammas).repeat_random(true);
    let want = eager(0)?;
    for call in 0..3 {
        let got = same.call(&[&zero])?;
        for (k, w) in want.iter().enumerate() {
            if got[k].to_vec()? != *w {
                return Err(format!(
                    "{device} repeat_random call {call}: output {k} is not the seeds' own draws"
                )
                .into());
            }
        }
    }
    Ok(())
}

/// The generator program of [`generator_per_call`]: negative binomial draws (the looping
/// sampler's kernel with per-element rates drawn from gammas), binomial draws (its scalar
/// form) and standard gamma draws of one `Generator` made in the closure.
fn generated(x: &[Array<f32>]) -> Result<Vec<Array<f32>>> {
    let n = x[0].len();
    let mut rng = cuprite_array::random::default_rng(31);
    Ok(vec![
        &x[0] + &rng.negative_binomial::<i32>(3.0, 0.4, &[n])?.cast::<f32>(),
        rng.binomial::<i32>(20, 0.3, &[n])?.cast::<f32>(),
        rng.standard_gamma::<f32>(1.7, &[n])?,
    ])
}

/// A `Generator`'s draws inside a compiled program are keyed per call: the first call gives
/// what the closure gives eagerly, every later call other numbers for each output, and
/// `repeat_random(true)` the eager numbers every call.
fn generator_per_call(device: Device) -> TestResult {
    let n = 512usize;
    let zero = Array::from_slice_on(device, &vec![0.0f32; n], &[n])?;
    let eager: Vec<Vec<f32>> = with_device(device, || -> Result<Vec<Vec<f32>>> {
        generated(std::slice::from_ref(&zero))?
            .iter()
            .map(|a| a.to_vec())
            .collect()
    })?;
    let prog = compile(generated);
    let mut seen: Vec<Vec<Vec<f32>>> = Vec::new();
    for call in 0..4 {
        let got: Vec<Vec<f32>> = prog
            .call(&[&zero])?
            .iter()
            .map(|a| a.to_vec())
            .collect::<Result<_>>()?;
        if call == 0 && got != eager {
            return Err(format!("{device} call 0 differs from the eager draws").into());
        }
        for (k, g) in got.iter().enumerate() {
            if let Some(c) = seen.iter().position(|s| s[k] == *g) {
                return Err(format!("{device} call {call}: output {k} repeats call {c}'s").into());
            }
        }
        seen.push(got);
    }
    let same = compile(generated).repeat_random(true);
    for call in 0..3 {
        let got: Vec<Vec<f32>> = same
            .call(&[&zero])?
            .iter()
            .map(|a| a.to_vec())
            .collect::<Result<_>>()?;
        if got != eager {
            return Err(format!("{device} repeat_random call {call}: not the eager draws").into());
        }
    }
    Ok(())
}

/// Kernels of keyed random draws (as a compiled program makes them), for the compile check of
/// every generated kernel: run on the CPU while recording.
pub fn keyed_random_body(device: Device) -> Result<()> {
    let zero = Array::from_slice_on(device, &[0.0f32; 64], &[64])?;
    compile(noisy).call(&[&zero])?;
    // Library calls are lazy: evaluated so that they run (and record their kernels).
    for a in compile(gammas).call(&[&zero])? {
        a.eval()?;
    }
    let narrow = compile(|x: &[Array<f32>]| {
        Ok(vec![
            Array::<cuprite_array::f16>::rand_normal(x[0].shape(), 5)?.cast::<f32>(),
            Array::<f64>::rand_normal(x[0].shape(), 5)?.cast::<f32>(),
        ])
    });
    narrow.call(&[&zero])?;
    Ok(())
}

/// The kernels of keyed random draws compile with NVRTC under the library's own options (the
/// optimised and the quick build), and read their key from a parameter pointer.
fn keyed_random_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let r = keyed_random_body(Device::CPU);
    let sources = cuprite_array::tuning::compiler::take_recorded();
    r?;
    let keyed: Vec<&String> = sources
        .iter()
        .filter(|s| s.contains("rand_f") || s.contains("cuprite_gamma_keyed"))
        .collect();
    let gammas = ["cuprite_gamma_keyed_f64", "cuprite_gamma_keyed_derived_f64"];
    if keyed.len() < 5 || !gammas.iter().all(|g| keyed.iter().any(|s| s.contains(g))) {
        return Err(format!(
            "{} keyed random kernels recorded, want 3 or more and both keyed gamma kernels",
            keyed.len()
        )
        .into());
    }
    for opts in [
        cuprite_array::tuning::compiler::compile_options(90, true),
        cuprite_array::tuning::compiler::quick_compile_options(90),
    ] {
        for src in &keyed {
            cuprite_driver::nvrtc::compile(src.as_str(), &opts)
                .map_err(|e| format!("{e}\n{src}"))?;
        }
    }
    Ok(())
}

/// `2·x + y` and the sum of `x·y`, from the float64 host definition.
fn affine_want(x: &[f32], y: &[f32]) -> (Vec<f32>, f64) {
    let lin = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| (2.0 * a as f64 + b as f64) as f32)
        .collect();
    let dot = x.iter().zip(y).map(|(&a, &b)| a as f64 * b as f64).sum();
    (lin, dot)
}

/// The program of the input-buffer tests: `2·x + y` and the sum of `x·y`.
fn affine(x: &[Array<f32>]) -> Result<Vec<Array<f32>>> {
    Ok(vec![&x[0] * 2.0 + &x[1], (&x[0] * &x[1]).sum()?])
}

/// Checks `out` (the outputs of [`affine`]) against the host reference of `x` and `y`.
fn check_affine(what: &str, out: &[Array<f32>], x: &[f32], y: &[f32]) -> TestResult {
    let (lin, dot) = affine_want(x, y);
    let got = out[0].to_vec()?;
    for (i, (&g, &w)) in got.iter().zip(&lin).enumerate() {
        if (g - w).abs() > 1e-6 * w.abs().max(1.0) {
            return Err(format!("{what}: element {i} is {g}, want {w}").into());
        }
    }
    let s = out[1].item()? as f64;
    if (s - dot).abs() > 1e-4 * (x.len() as f64).sqrt() * dot.abs().max(1.0) {
        return Err(format!("{what}: sum {s}, want {dot}").into());
    }
    Ok(())
}

/// Replays with the same input arrays as the call before, with new ones, and with one of each:
/// every output, all held to the end, has the values of its own call's inputs.
fn same_and_new_input_buffers() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let n = 500 + (rng.next_u64() % 600) as usize;
    let host: Vec<Vec<f32>> = (0..4).map(|_| rng.vec_f32(n, -4.0, 4.0)).collect();
    let arrays = host
        .iter()
        .map(|v| Array::from_slice_on(dev(), v, &[n]))
        .collect::<Result<Vec<_>>>()?;
    // (x, y) by index into `host`: the same pair twice, a new pair, a mixed one, the first again.
    let plan = [(0, 1), (0, 1), (0, 1), (2, 3), (2, 1), (0, 3), (0, 1)];
    let mut held = Vec::new();
    for &(i, j) in &plan {
        held.push(prog.call(&[&arrays[i], &arrays[j]])?);
    }
    for (k, (&(i, j), out)) in plan.iter().zip(&held).enumerate() {
        check_affine(&format!("call {k} ({i}, {j})"), out, &host[i], &host[j])?;
    }
    if prog.num_graphs() != 1 {
        return Err(format!("{} graphs for one signature", prog.num_graphs()).into());
    }
    Ok(())
}

/// Outputs dropped after each call (their memory free for the next call's outputs) and outputs
/// held: every value is its own call's, checked against an eager run and the host reference.
fn outputs_dropped_and_reused() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let n = 2048;
    let mut held = Vec::new();
    for call in 0..24 {
        let (x, y) = (rng.vec_f32(n, -2.0, 2.0), rng.vec_f32(n, -2.0, 2.0));
        let (a, b) = (
            Array::from_slice_on(dev(), &x, &[n])?,
            Array::from_slice_on(dev(), &y, &[n])?,
        );
        let out = prog.call(&[&a, &b])?;
        let eager = with_device(dev(), || affine(&[a.clone(), b.clone()]))?;
        if out[0].to_vec()? != eager[0].to_vec()? {
            return Err(format!("call {call}: replay differs from eager").into());
        }
        check_affine(&format!("call {call}"), &out, &x, &y)?;
        if call % 5 == 0 {
            held.push((x, y, out));
        }
    }
    for (k, (x, y, out)) in held.iter().enumerate() {
        check_affine(&format!("held output {k}"), out, x, y)?;
    }
    Ok(())
}

/// With a limit of one graph, alternating signatures evict each other; outputs held across the
/// evictions keep their values.
fn eviction_keeps_held_outputs() -> TestResult {
    let prog = compile(affine).with_cache_limit(1);
    let mut rng = Rng::fresh();
    let mut held = Vec::new();
    for call in 0..8 {
        let n = if call % 2 == 0 { 300 } else { 700 };
        let (x, y) = (rng.vec_f32(n, -3.0, 3.0), rng.vec_f32(n, -3.0, 3.0));
        let (a, b) = (
            Array::from_slice_on(dev(), &x, &[n])?,
            Array::from_slice_on(dev(), &y, &[n])?,
        );
        held.push((x, y, prog.call(&[&a, &b])?));
        if prog.num_graphs() != 1 {
            return Err(format!("call {call}: {} graphs, limit 1", prog.num_graphs()).into());
        }
    }
    for (k, (x, y, out)) in held.iter().enumerate() {
        check_affine(&format!("call {k}"), out, x, y)?;
    }
    Ok(())
}

/// The stage timer: off, nothing; on, one mean per stage of the replays (not of the first
/// call, which captures), each finite and not negative, then cleared by the read.
fn replay_stage_times() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let (x, y) = (rng.vec_f32(256, -1.0, 1.0), rng.vec_f32(256, -1.0, 1.0));
    let (a, b) = (
        Array::from_slice_on(dev(), &x, &[256])?,
        Array::from_slice_on(dev(), &y, &[256])?,
    );
    cuprite_array::replay_stage_timing(false);
    prog.call(&[&a, &b])?;
    if !cuprite_array::take_replay_stages().is_empty() {
        return Err("stage times with timing off".into());
    }
    cuprite_array::replay_stage_timing(true);
    let r = (|| -> TestResult {
        for _ in 0..5 {
            check_affine("timed replay", &prog.call(&[&a, &b])?, &x, &y)?;
        }
        let stages = cuprite_array::take_replay_stages();
        if stages.len() != 5 {
            return Err(format!("{} stages, want 5: {stages:?}", stages.len()).into());
        }
        if stages.iter().any(|(_, s)| !s.is_finite() || *s < 0.0) {
            return Err(format!("a stage time out of range: {stages:?}").into());
        }
        if stages.iter().map(|(_, s)| s).sum::<f64>() <= 0.0 {
            return Err(format!("no time in any stage: {stages:?}").into());
        }
        if !cuprite_array::take_replay_stages().is_empty() {
            return Err("the totals were not cleared by the read".into());
        }
        Ok(())
    })();
    cuprite_array::replay_stage_timing(false);
    r
}

/// On the CPU there is no replay, so nothing is timed even with timing on.
fn cpu_stage_times() -> TestResult {
    let prog = compile(affine);
    let (x, y) = ([1.0f32, -2.0, 3.5], [0.5f32, 4.0, -1.0]);
    let a = Array::from_slice_on(Device::CPU, &x, &[3])?;
    let b = Array::from_slice_on(Device::CPU, &y, &[3])?;
    cuprite_array::replay_stage_timing(true);
    let out = prog.call(&[&a, &b]);
    let stages = cuprite_array::take_replay_stages();
    cuprite_array::replay_stage_timing(false);
    check_affine("cpu call", &out?, &x, &y)?;
    if !stages.is_empty() {
        return Err(format!("stage times of a CPU call: {stages:?}").into());
    }
    Ok(())
}

/// An input passed twice (its copy skipped the second time), then dropped, then a new array of
/// the same shape made (free to take the dropped one's memory and handle, were they given back)
/// and passed: every output has its own call's values, including outputs held meanwhile.
fn same_input_dropped_then_new_one() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let n = 777;
    let y = rng.vec_f32(n, -1.0, 1.0);
    let b = Array::from_slice_on(dev(), &y, &[n])?;
    let mut held = Vec::new();
    for round in 0..6 {
        let x = rng.vec_f32(n, -3.0, 3.0);
        let a = Array::from_slice_on(dev(), &x, &[n])?;
        let first = prog.call(&[&a, &b])?;
        let again = prog.call(&[&a, &b])?;
        check_affine(&format!("round {round}, first call"), &first, &x, &y)?;
        check_affine(&format!("round {round}, same input again"), &again, &x, &y)?;
        held.push((x, first));
        drop(a);
        drop(again);
    }
    for (k, (x, out)) in held.iter().enumerate() {
        check_affine(&format!("held output of round {k}"), out, x, &y)?;
    }
    Ok(())
}

/// A training-style loop: the same weight array passed at every step beside a new batch, the
/// weight also passed in both places once: outputs match the host reference at every step.
fn weights_passed_every_step() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let n = 1500;
    let wv = rng.vec_f32(n, -2.0, 2.0);
    let w = Array::from_slice_on(dev(), &wv, &[n])?;
    for step in 0..10 {
        let xv = rng.vec_f32(n, -2.0, 2.0);
        let x = Array::from_slice_on(dev(), &xv, &[n])?;
        check_affine(&format!("step {step}"), &prog.call(&[&x, &w])?, &xv, &wv)?;
        if step == 4 {
            check_affine("the weight twice", &prog.call(&[&w, &w])?, &wv, &wv)?;
            check_affine("the batch first again", &prog.call(&[&x, &w])?, &xv, &wv)?;
        }
    }
    Ok(())
}

/// The same strided view (a transpose, copied out at every call) passed at every call, then its
/// base's values changed through a new array: each call reads the view's values.
fn strided_input_passed_again() -> TestResult {
    let prog = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * 2.0 + &x[1]]));
    let mut rng = Rng::fresh();
    let (r, c) = (24, 40);
    let base = rng.vec_f32(r * c, -1.0, 1.0);
    let m = Array::from_slice_on(dev(), &base, &[r, c])?;
    let t = m.t();
    let zero = Array::from_slice_on(dev(), &vec![0.0f32; r * c], &[c, r])?;
    // The transpose of `base`, row-major `[c, r]`.
    let want: Vec<f32> = (0..c)
        .flat_map(|i| (0..r).map(move |j| (i, j)))
        .map(|(i, j)| 2.0 * base[j * c + i])
        .collect();
    for call in 0..4 {
        let got = prog.call(&[&t, &zero])?.remove(0).to_vec()?;
        if got != want {
            return Err(format!("call {call}: the transposed input was not read").into());
        }
    }
    let other = rng.vec_f32(r * c, -1.0, 1.0);
    let m2 = Array::from_slice_on(dev(), &other, &[r, c])?;
    let want2: Vec<f32> = (0..c)
        .flat_map(|i| (0..r).map(move |j| (i, j)))
        .map(|(i, j)| 2.0 * other[j * c + i])
        .collect();
    if prog.call(&[&m2.t(), &zero])?.remove(0).to_vec()? != want2 {
        return Err("a new transposed input was not read".into());
    }
    Ok(())
}

/// Replays with the same inputs of a program that reads six arrays of its environment, each
/// written by work of its own: after the first replay, each replay enqueues at most three
/// cross-stream waits on this thread (its launch for the allocation of its fresh output
/// buffers, the calling thread's stream for the launch), not one per environment array; the
/// values stay right.
fn steady_replays_wait_once() -> TestResult {
    let mut rng = Rng::fresh();
    let n = 4096;
    // A first program makes the context use its private stream (multi-stream tracking) before
    // the environment arrays are written, so each gets a writer of its own to wait for.
    let warm = compile(|x: &[Array<f32>]| Ok(vec![&x[0] + 1.0]));
    warm.call(&[&Array::from_slice_on(dev(), &[1.0f32; 4], &[4])?])?;
    let hosts: Vec<Vec<f32>> = (0..6).map(|_| rng.vec_f32(n, -1.0, 1.0)).collect();
    let env = hosts
        .iter()
        .map(|v| {
            let a = Array::from_slice_on(dev(), v, &[n])?;
            a.eval()?;
            Ok(a)
        })
        .collect::<Result<Vec<_>>>()?;
    let prog = compile(|x: &[Array<f32>]| {
        let mut h = x[0].clone();
        for e in &env {
            h = &h * 0.5 + e;
        }
        Ok(vec![h])
    });
    let xv = rng.vec_f32(n, -1.0, 1.0);
    let x = Array::from_slice_on(dev(), &xv, &[n])?;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let mut h = xv[i];
            for v in &hosts {
                h = h * 0.5 + v[i];
            }
            h
        })
        .collect();
    prog.call(&[&x])?;
    prog.call(&[&x])?;
    const REPLAYS: u64 = 8;
    let before = cuprite_driver::stats::thread_stats();
    let mut outs = Vec::new();
    for _ in 0..REPLAYS {
        outs.push(prog.call(&[&x])?.remove(0));
    }
    let waits = cuprite_driver::stats::thread_stats()
        .since(&before)
        .stream_waits;
    for (k, o) in outs.iter().enumerate() {
        let got = o.to_vec()?;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            if (g - w).abs() > 1e-5 {
                return Err(format!("replay {k} element {i}: {g}, want {w}").into());
            }
        }
    }
    if waits > 3 * REPLAYS {
        return Err(format!(
            "{waits} cross-stream waits in {REPLAYS} replays with the same inputs (at most 3 each)"
        )
        .into());
    }
    Ok(())
}

/// A replay's output read through its raw pointer on the array stream with no synchronisation
/// (as `Array::device_ptr` allows) has the replay's values: the array stream is ordered after
/// the replay, whose graph (a hundred kernels over a million elements) is still running when
/// the read is enqueued. Each call's input differs, so a read that ran early would see another
/// call's values or uninitialised memory.
fn outputs_ready_on_array_stream() -> TestResult {
    use cuprite_driver::sys::driver::{CUresult, cuMemcpyDtoHAsync_v2, cuStreamSynchronize};
    const STEPS: usize = 100;
    let n = 1 << 20;
    let prog = compile(|x: &[Array<f32>]| {
        let mut h = x[0].clone();
        for _ in 0..STEPS {
            h = &h + 1.0;
            h.eval()?;
        }
        Ok(vec![h])
    });
    let stream = cuprite_array::get_stream(0)?;
    let mut rng = Rng::fresh();
    for call in 0..6 {
        let start = (rng.next_u64() % 1000) as f32;
        let a = Array::from_slice_on(dev(), &vec![start; n], &[n])?;
        let out = prog.call(&[&a])?.remove(0);
        let ptr = out.device_ptr()?;
        let mut host = vec![f32::NAN; n];
        // SAFETY: `ptr` is the start of `out`'s `n` f32 (locked by `device_ptr`, alive while
        // `out` is), `host` holds `n` f32; the copy runs on the array stream, as `device_ptr`
        // allows, and is waited for before `host` is read or dropped.
        let r = unsafe {
            cuMemcpyDtoHAsync_v2(host.as_mut_ptr().cast(), ptr, n * 4, stream.raw()).and_then(|r| {
                match r {
                    CUresult::CUDA_SUCCESS => cuStreamSynchronize(stream.raw()),
                    other => Ok(other),
                }
            })
        };
        match r {
            Ok(CUresult::CUDA_SUCCESS) => {}
            other => return Err(format!("call {call}: the raw read: {other:?}").into()),
        }
        out.unlock()?;
        let want = start + STEPS as f32;
        if let Some(i) = host.iter().position(|&v| v != want) {
            return Err(format!(
                "call {call}: element {i} read on the array stream is {}, want {want}",
                host[i]
            )
            .into());
        }
    }
    Ok(())
}

/// Fresh inputs of `n` elements for [`affine`]: host values and their arrays.
fn affine_inputs(rng: &mut Rng, n: usize) -> Result<(Vec<f32>, Vec<f32>, Array<f32>, Array<f32>)> {
    let (x, y) = (rng.vec_f32(n, -2.0, 2.0), rng.vec_f32(n, -2.0, 2.0));
    let a = Array::from_slice_on(dev(), &x, &[n])?;
    let b = Array::from_slice_on(dev(), &y, &[n])?;
    Ok((x, y, a, b))
}

/// An output held by the user (one of two: the other is dropped at once) across replays on
/// other inputs keeps its call's values after each, while every new output has its own; the
/// buffers the program holds stay bounded (each output's current one and two spares).
fn held_output_keeps_values() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let n = 1500;
    let (x0, y0, a0, b0) = affine_inputs(&mut rng, n)?;
    let mut first = prog.call(&[&a0, &b0])?;
    // Only the element-wise output is held: the sum's buffer is free again at once.
    drop(first.remove(1));
    let (lin0, _) = affine_want(&x0, &y0);
    for call in 1..=4 {
        let (x, y, a, b) = affine_inputs(&mut rng, n)?;
        let out = prog.call(&[&a, &b])?;
        check_affine(&format!("call {call}"), &out, &x, &y)?;
        let kept = first[0].to_vec()?;
        if let Some(i) = kept.iter().zip(&lin0).position(|(g, w)| g != w) {
            return Err(format!(
                "after call {call}: the held output's element {i} is {}, want {}",
                kept[i], lin0[i]
            )
            .into());
        }
    }
    // The held output moved its copy once; the sum's output was never held.
    let buffers = prog.output_buffers();
    if buffers != 3 {
        return Err(format!("{buffers} output buffers held by the program, want 3").into());
    }
    Ok(())
}

/// Outputs dropped before the next call leave the program with one buffer per output (each
/// launch writes the buffer handed out before); outputs held for five calls make it move each
/// copy to fresh buffers, keeping at most two spares an output, and once they are dropped
/// the spares are written again instead of fresh buffers. Every output is checked.
fn output_buffers_reused_when_dropped() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let n = 777;
    for call in 0..6 {
        let (x, y, a, b) = affine_inputs(&mut rng, n)?;
        let out = prog.call(&[&a, &b])?;
        check_affine(&format!("dropped call {call}"), &out, &x, &y)?;
    }
    if prog.output_buffers() != 2 {
        return Err(format!(
            "{} output buffers after calls whose outputs were dropped, want 2",
            prog.output_buffers()
        )
        .into());
    }
    let mut held = Vec::new();
    for call in 0..5 {
        let (x, y, a, b) = affine_inputs(&mut rng, n)?;
        held.push((x, y, prog.call(&[&a, &b])?));
        let want = 2 * (1 + call.min(2));
        if prog.output_buffers() != want {
            return Err(format!(
                "held call {call}: {} output buffers, want {want}",
                prog.output_buffers()
            )
            .into());
        }
    }
    for (k, (x, y, out)) in held.iter().enumerate() {
        check_affine(&format!("held call {k}"), out, x, y)?;
    }
    drop(held);
    let mut again = Vec::new();
    for call in 0..3 {
        let (x, y, a, b) = affine_inputs(&mut rng, n)?;
        again.push((x, y, prog.call(&[&a, &b])?));
        if prog.output_buffers() != 6 {
            return Err(format!(
                "call {call} after the held outputs were dropped: {} output buffers, want the \
                 same 6",
                prog.output_buffers()
            )
            .into());
        }
    }
    for (k, (x, y, out)) in again.iter().enumerate() {
        check_affine(&format!("call {k} on reused buffers"), out, x, y)?;
    }
    Ok(())
}

/// An output whose raw pointer was taken (locking it), then unlocked and dropped, is never
/// written by a later replay (work the library does not track may still read it): each such
/// call moves the copy to another buffer, and the values stay right.
fn exposed_outputs_never_rewritten() -> TestResult {
    let prog = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * 3.0 - 1.0]));
    let mut rng = Rng::fresh();
    let n = 4096;
    let mut ptrs = Vec::new();
    for call in 0..3 {
        let v = rng.vec_f32(n, -5.0, 5.0);
        let a = Array::from_slice_on(dev(), &v, &[n])?;
        let out = prog.call(&[&a])?.remove(0);
        let got = out.to_vec()?;
        for (i, (&g, &x)) in got.iter().zip(&v).enumerate() {
            let want = (x as f64 * 3.0 - 1.0) as f32;
            if (g - want).abs() > 1e-6 * want.abs().max(1.0) {
                return Err(format!("call {call} element {i}: {g}, want {want}").into());
            }
        }
        let p = out.device_ptr()?;
        if ptrs.contains(&p) {
            return Err(format!("call {call} wrote a buffer exposed by an earlier call").into());
        }
        ptrs.push(p);
        out.unlock()?;
    }
    // Each call after the first moved the copy off the exposed buffer.
    if prog.output_buffers() != 3 {
        return Err(format!("{} output buffers, want 3", prog.output_buffers()).into());
    }
    Ok(())
}

/// An output captured into another program's graph (read from that closure's environment, at
/// its address, by every replay of it) and then dropped by the user is never written by a later
/// call of the program that made it: the other graph keeps reading the values it had.
fn output_read_by_another_graph_kept() -> TestResult {
    let n = 2048;
    let mut rng = Rng::fresh();
    let scale = compile(|x: &[Array<f32>]| Ok(vec![&x[0] * 2.0]));
    let v0 = rng.vec_f32(n, -1.0, 1.0);
    let made = scale
        .call(&[&Array::from_slice_on(dev(), &v0, &[n])?])?
        .remove(0);
    // The environment of `reader` lends the output to its capture, then gives it up.
    let env = std::sync::Mutex::new(Some(made));
    let reader = compile(|x: &[Array<f32>]| {
        let g = env.lock().unwrap_or_else(|e| e.into_inner());
        match g.as_ref() {
            Some(e) => Ok(vec![&x[0] + e]),
            None => Ok(vec![x[0].clone()]),
        }
    });
    let ones = Array::from_slice_on(dev(), &vec![1.0f32; n], &[n])?;
    reader.call(&[&ones])?;
    // Only `scale` holds the array now; `reader`'s graph still reads its memory.
    drop(env.lock().unwrap_or_else(|e| e.into_inner()).take());
    for call in 0..3 {
        let v = rng.vec_f32(n, -1.0, 1.0);
        let out = scale.call(&[&Array::from_slice_on(dev(), &v, &[n])?])?;
        let got = out[0].to_vec()?;
        for (i, (&g, &x)) in got.iter().zip(&v).enumerate() {
            if g != x * 2.0 {
                return Err(format!("scale call {call} element {i}: {g}, want {}", x * 2.0).into());
            }
        }
        drop(out);
        let read = reader.call(&[&ones])?.remove(0).to_vec()?;
        for (i, (&g, &x)) in read.iter().zip(&v0).enumerate() {
            let want = 1.0 + x * 2.0;
            if g != want {
                return Err(format!(
                    "after scale call {call}: the other graph read {g} at element {i}, want \
                     {want} (the output it captured was written again)"
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Steady replays with the same input arrays, on the array stream: the outputs of each call
/// dropped before the next (their buffers written again: no new output buffer), one output
/// held across three later replays (keeping its values), the same inputs every time (their
/// copies skipped). The launches go on the calling thread's stream, so no replay makes a
/// cross-stream wait; every value is checked against the host reference.
fn steady_replays_on_calling_stream() -> TestResult {
    let prog = compile(affine);
    let mut rng = Rng::fresh();
    let (x, y, a, b) = affine_inputs(&mut rng, 3000)?;
    check_affine("first call", &prog.call(&[&a, &b])?, &x, &y)?;
    check_affine("second call", &prog.call(&[&a, &b])?, &x, &y)?;
    let buffers = prog.output_buffers();
    let before = cuprite_driver::stats::thread_stats();
    for call in 0..10 {
        let out = prog.call(&[&a, &b])?;
        if call == 9 {
            check_affine("last steady call", &out, &x, &y)?;
        }
    }
    let waits = cuprite_driver::stats::thread_stats()
        .since(&before)
        .stream_waits;
    if waits != 0 {
        return Err(format!("{waits} cross-stream waits in 10 steady replays, want none").into());
    }
    if prog.output_buffers() != buffers {
        return Err(format!(
            "{} output buffers after steady replays whose outputs were dropped, {buffers} before",
            prog.output_buffers()
        )
        .into());
    }
    // An output held while later calls run on other inputs keeps its values; the held call's
    // inputs passed again afterwards still give theirs.
    let held = prog.call(&[&a, &b])?;
    let (x2, y2, a2, b2) = affine_inputs(&mut rng, 3000)?;
    for call in 0..3 {
        check_affine(
            &format!("call {call} on new inputs"),
            &prog.call(&[&a2, &b2])?,
            &x2,
            &y2,
        )?;
    }
    check_affine("held output", &held, &x, &y)?;
    check_affine("first inputs again", &prog.call(&[&a, &b])?, &x, &y)?;
    Ok(())
}

/// Calls under `with_stream` with a stream of the library's context replay on that stream: a
/// product (its cuBLASLt workspace is the private stream's) replayed four times, the outputs
/// held, the program dropped with its launches still queued on that stream, three rounds (each
/// a new program, whose capture takes the stream the round before gave back). Every output is
/// checked against a float64 host product.
fn replays_on_a_user_stream() -> TestResult {
    let ctx = cuprite_array::get_stream(0)?.context().clone();
    let user = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let (m, k, n) = (48, 64, 40);
    for round in 0..3 {
        let (av, bv) = (rng.vec_f32(m * k, -1.0, 1.0), rng.vec_f32(k * n, -1.0, 1.0));
        let held = cuprite_array::with_stream(&user, || -> Result<Vec<Array<f32>>> {
            let prog = compile(|x: &[Array<f32>]| Ok(vec![linalg::matmul(&x[0], &x[1])? * 0.5]));
            let a = Array::from_slice_on(dev(), &av, &[m, k])?;
            let b = Array::from_slice_on(dev(), &bv, &[k, n])?;
            let mut held = Vec::new();
            for _ in 0..4 {
                held.push(prog.call(&[&a, &b])?.remove(0));
            }
            Ok(held)
        })?;
        for (call, out) in held.iter().enumerate() {
            let got = out.to_vec()?;
            for i in 0..m {
                for j in 0..n {
                    let (mut w, mut mag) = (0.0f64, 0.0f64);
                    for p in 0..k {
                        let t = av[i * k + p] as f64 * bv[p * n + j] as f64;
                        w += t;
                        mag += t.abs();
                    }
                    let (g, w) = (got[i * n + j] as f64, 0.5 * w);
                    if (g - w).abs() > 1e-3 * mag + 1e-6 {
                        return Err(format!(
                            "round {round} call {call} element ({i}, {j}): {g}, want {w}"
                        )
                        .into());
                    }
                }
            }
        }
    }
    Ok(())
}

/// The capture stage timer: a first call timed gives one mean per stage, each finite and not
/// negative, cleared by the read; a replay adds none.
fn capture_stage_times() -> TestResult {
    let mut rng = Rng::fresh();
    let (x, y, a, b) = affine_inputs(&mut rng, 256)?;
    cuprite_array::replay_stage_timing(true);
    let r = (|| -> TestResult {
        let prog = compile(affine);
        check_affine("first call", &prog.call(&[&a, &b])?, &x, &y)?;
        let stages = cuprite_array::take_capture_stages();
        if stages.len() != 7 {
            return Err(format!("{} capture stages, want 7: {stages:?}", stages.len()).into());
        }
        if stages.iter().any(|(_, s)| !s.is_finite() || *s < 0.0) {
            return Err(format!("a stage time out of range: {stages:?}").into());
        }
        if stages.iter().map(|(_, s)| s).sum::<f64>() <= 0.0 {
            return Err(format!("no time in any stage: {stages:?}").into());
        }
        check_affine("replay", &prog.call(&[&a, &b])?, &x, &y)?;
        if !cuprite_array::take_capture_stages().is_empty() {
            return Err("a replay was timed as a capture".into());
        }
        Ok(())
    })();
    cuprite_array::replay_stage_timing(false);
    r
}

/// Steady replays (the same input, the output of the call before dropped: the launch skips the
/// trackers that nothing else touched since the last one) read on another stream: the read
/// waits for the replay, whose graph (a random draw and a hundred kernels over a million
/// elements) is still running when the read is enqueued. Each call draws other numbers, so a
/// read that ran early would see the dropped call's values, which the same buffer held. Checked
/// against the same buffer read on the array stream afterwards and against the Philox
/// definition.
fn steady_replays_read_on_another_stream() -> TestResult {
    const STEPS: usize = 100;
    let n = 1 << 20;
    let prog = compile(|x: &[Array<f32>]| {
        let mut h = &x[0] + &Array::<f32>::rand_uniform(&[x[0].len()], 11)?;
        for _ in 0..STEPS {
            h = &h + 1.0;
            h.eval()?;
        }
        Ok(vec![h])
    });
    let ctx = cuprite_array::get_stream(0)?.context().clone();
    let user = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let xv = rng.vec_f32(n, -1.0, 1.0);
    let x = Array::from_slice_on(dev(), &xv, &[n])?;
    let mut call = 0u64;
    drop(prog.call(&[&x])?);
    call += 1;
    for round in 0..6 {
        drop(prog.call(&[&x])?);
        let out = prog.call(&[&x])?.remove(0);
        let key = 11 ^ call_key_offset(call + 1);
        call += 2;
        let seen = cuprite_array::with_stream(&user, || out.to_vec())?;
        let later = out.to_vec()?;
        if let Some(i) = (0..n).find(|&i| seen[i].to_bits() != later[i].to_bits()) {
            return Err(format!(
                "round {round}: element {i} read on another stream is {}, on the array stream \
                 afterwards {}",
                seen[i], later[i]
            )
            .into());
        }
        for i in (0..n).step_by(n / 64) {
            let mut want = xv[i] + philox_uniform_f32(key, i as u64);
            for _ in 0..STEPS {
                want += 1.0;
            }
            if later[i].to_bits() != want.to_bits() {
                return Err(
                    format!("round {round}: element {i} is {}, want {want}", later[i]).into(),
                );
            }
        }
    }
    Ok(())
}

/// Steady replays on a user stream (the same input, the output before dropped), the last
/// output held, then the program and the stream dropped while that replay may still run: the
/// output read on the array stream afterwards holds the last replay's draws (the recording its
/// launch left owed is made before the stream goes), with the recording deferred and without.
fn steady_replays_on_a_dropped_stream() -> TestResult {
    const STEPS: usize = 100;
    let n = 1 << 20;
    let mut rng = Rng::fresh();
    let xv = rng.vec_f32(n, -1.0, 1.0);
    let x = Array::from_slice_on(dev(), &xv, &[n])?;
    let deferred = cuprite_driver::graph::deferred_cells();
    let mut result = Ok(());
    for (round, on) in [true, false, true, deferred].into_iter().enumerate() {
        cuprite_driver::graph::set_deferred_cells(on);
        result = (|| -> TestResult {
            let prog = compile(|x: &[Array<f32>]| {
                let mut h = &x[0] + &Array::<f32>::rand_uniform(&[x[0].len()], 23)?;
                for _ in 0..STEPS {
                    h = &h + 1.0;
                    h.eval()?;
                }
                Ok(vec![h])
            });
            // Captured on the array stream's turn (its output buffers are the array stream's),
            // replayed on the user stream.
            drop(prog.call(&[&x])?);
            let ctx = cuprite_array::get_stream(0)?.context().clone();
            let user = ctx.new_stream()?;
            let out = cuprite_array::with_stream(&user, || -> Result<Array<f32>> {
                for _ in 0..3 {
                    drop(prog.call(&[&x])?);
                }
                Ok(prog.call(&[&x])?.remove(0))
            })?;
            // Call 4 (counted from 0) made `out`.
            let key = 23 ^ call_key_offset(4);
            drop(prog);
            drop(user);
            let got = out.to_vec()?;
            for i in (0..n).step_by(n / 64) {
                let mut want = xv[i] + philox_uniform_f32(key, i as u64);
                for _ in 0..STEPS {
                    want += 1.0;
                }
                if got[i].to_bits() != want.to_bits() {
                    return Err(format!(
                        "round {round} (deferred {on}): element {i} is {}, want {want}",
                        got[i]
                    )
                    .into());
                }
            }
            Ok(())
        })();
        if result.is_err() {
            break;
        }
    }
    cuprite_driver::graph::set_deferred_cells(deferred);
    result
}

/// An intermediate the closure keeps outside itself (through a mutex) is a part of the
/// capture's arena: after the device is synchronised it holds the last replay's values, and
/// it stays readable after the program is dropped (the part keeps the arena's memory).
fn stashed_intermediate_outlives_program() -> TestResult {
    let mut rng = Rng::fresh();
    let n = 5000;
    let stash: std::sync::Mutex<Option<Array<f32>>> = std::sync::Mutex::new(None);
    let prog = compile(|x: &[Array<f32>]| {
        let h = &x[0] * 2.0;
        h.eval()?;
        *stash.lock().expect("stash") = Some(h.clone());
        Ok(vec![&h + 1.0])
    });
    let mut last = Vec::new();
    for call in 0..3 {
        last = rng.vec_f32(n, -1.0, 1.0);
        let x = Array::from_slice_on(dev(), &last, &[n])?;
        let got = prog.call(&[&x])?.remove(0).to_vec()?;
        if let Some(i) = (0..n).find(|&i| got[i] != last[i] * 2.0 + 1.0) {
            return Err(format!("call {call}: element {i} is {}", got[i]).into());
        }
    }
    drop(prog);
    cuprite_array::sync(dev())?;
    let kept = stash
        .lock()
        .map_err(|_| "stash poisoned")?
        .take()
        .ok_or("nothing stashed")?;
    let got = kept.to_vec()?;
    if let Some(i) = (0..n).find(|&i| got[i] != last[i] * 2.0) {
        return Err(format!(
            "the stashed intermediate's element {i} is {}, want {}",
            got[i],
            last[i] * 2.0
        )
        .into());
    }
    Ok(())
}

/// A first call whose closure needs nothing prepared outside a capture (its kernels built and
/// optimised by an eager run beforehand) captures at once: the closure runs once, and the first
/// call and the replays match the host reference, held outputs keeping their values.
fn direct_capture_runs_closure_once() -> TestResult {
    let mut rng = Rng::fresh();
    let n = 3000;
    let (x, y, a, b) = affine_inputs(&mut rng, n)?;
    for _ in 0..2 {
        let warm = with_device(dev(), || affine(&[a.clone(), b.clone()]))?;
        check_affine("eager warm-up", &warm, &x, &y)?;
        cuprite_array::tuning::wait_tier_up();
    }
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let prog = compile(|v: &[Array<f32>]| {
        runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        affine(v)
    });
    let first = prog.call(&[&a, &b])?;
    let k = runs.load(std::sync::atomic::Ordering::Relaxed);
    if k != 1 {
        return Err(format!("the first call ran the closure {k} times, want 1").into());
    }
    check_affine("first call", &first, &x, &y)?;
    let (x2, y2, a2, b2) = affine_inputs(&mut rng, n)?;
    let second = prog.call(&[&a2, &b2])?;
    check_affine("replay", &second, &x2, &y2)?;
    check_affine("first call, held", &first, &x, &y)?;
    if runs.load(std::sync::atomic::Ordering::Relaxed) != 1 {
        return Err("a replay ran the closure".into());
    }
    Ok(())
}

/// A closure with an FFT (whose plan only an eager run makes): the first capture is refused,
/// and the first call runs the closure eagerly and captures again (three runs in all); every
/// call is bit-identical to an eager run.
fn direct_capture_falls_back_to_eager_run() -> TestResult {
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let spectrum = |x: &[Array<f32>]| -> Result<Vec<Array<f32>>> {
        let half = x[0].rfft()? * cuprite_array::c32::new(0.5, 0.0);
        Ok(vec![half.irfft_with(FftOpts::new().n(64))?])
    };
    let prog = compile(|x: &[Array<f32>]| {
        runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        spectrum(x)
    });
    let mut rng = Rng::fresh();
    for call in 0..3 {
        let a = arr(&mut rng, &[64]);
        let got = prog.call(&[&a])?[0].to_vec()?;
        let want = with_device(dev(), || spectrum(std::slice::from_ref(&a)))?[0].to_vec()?;
        if got
            .iter()
            .map(|v| v.to_bits())
            .ne(want.iter().map(|v| v.to_bits()))
        {
            return Err(format!("call {call}: {got:?} != eager {want:?}").into());
        }
        if call == 0 {
            let k = runs.load(std::sync::atomic::Ordering::Relaxed);
            if k != 3 {
                return Err(format!("the first call ran the closure {k} times, want 3").into());
            }
        }
    }
    if runs.load(std::sync::atomic::Ordering::Relaxed) != 3 {
        return Err("a replay ran the closure".into());
    }
    Ok(())
}

/// A direct capture whose intermediates need several chunks of its growing arena (4 MiB each,
/// more than the first chunk), and one whose intermediates pass the arena's limit (the rest
/// allocated by the graph): replays on new inputs, with the outputs of earlier calls held,
/// match the host reference.
fn direct_capture_grows_its_arena() -> TestResult {
    for (n, steps) in [(1usize << 20, 6usize), (1 << 23, 4)] {
        let prog = compile(move |x: &[Array<f32>]| {
            let mut h = x[0].clone();
            for _ in 0..steps {
                h = &h * 0.5 + 1.0;
                h.eval()?;
            }
            Ok(vec![h])
        });
        let mut rng = Rng::fresh();
        let mut held = Vec::new();
        for call in 0..3 {
            let xv = rng.vec_f32(n, -1.0, 1.0);
            let x = Array::from_slice_on(dev(), &xv, &[n])?;
            held.push((xv, prog.call(&[&x])?.remove(0)));
            drop(x);
            for (k, (xv, out)) in held.iter().enumerate() {
                let got = out.to_vec()?;
                for i in (0..n).step_by(n / 97) {
                    let mut want = xv[i];
                    for _ in 0..steps {
                        want = want * 0.5 + 1.0;
                    }
                    if got[i] != want {
                        return Err(format!(
                            "{n} elements, after call {call}: output of call {k}, element {i} \
                             is {}, want {want}",
                            got[i]
                        )
                        .into());
                    }
                }
            }
        }
    }
    Ok(())
}

/// The element-wise producer of [`one_launch_sums`]: `cos(sin(sin(v k)))`, which no other
/// test reduces, so that its reduction kernels are new to the process when the first program
/// of [`one_launch_reductions_replayed`] is called.
fn one_launch_producer(v: &Array<f32>, k: f32) -> Array<f32> {
    (v * k).sin().sin().cos()
}

/// Three reductions whose blocks combine a row's partials in one launch, counting themselves
/// in on row counters that a graph takes from its arena without a memset of its own: a sum
/// of 2^16 elements, row sums of `8 x 2^14`, column sums of `4096 x 48` (strided rows).
fn one_launch_sums(x: &[Array<f32>], k: f32) -> Result<Vec<Array<f32>>> {
    Ok(vec![
        one_launch_producer(&x[0], k).sum()?,
        one_launch_producer(&x[1], k).sum_axes(&[1])?,
        one_launch_producer(&x[2], k).sum_axes(&[0])?,
    ])
}

/// The float64 host sums of [`one_launch_sums`], in its output order.
fn one_launch_want(x: &[Vec<f32>], k: f32) -> Vec<Vec<f64>> {
    let f = |v: f32| (v as f64 * k as f64).sin().sin().cos();
    let total = vec![x[0].iter().map(|&v| f(v)).sum()];
    let rows = x[1]
        .chunks(1 << 14)
        .map(|r| r.iter().map(|&v| f(v)).sum())
        .collect();
    let cols = (0..48)
        .map(|c| (0..4096).map(|r| f(x[2][r * 48 + c])).sum())
        .collect();
    vec![total, rows, cols]
}

/// Replays of the reductions of [`one_launch_sums`]: each replay on fresh inputs matches the
/// float64 host sums, and the first and last also an eager run bit for bit, so the row
/// counters are zero when every launch begins. Two programs of the same closure: the first
/// while its kernels are new, so that its first call runs the closure eagerly before capturing
/// (its arena allocated, and zeroed, before the capture), unless an earlier process left them
/// in the disk cache, which needs no run first; the second once those kernels are
/// built, captured at once (its arena growing, chunk by zeroed chunk, during the capture).
fn one_launch_reductions_replayed() -> TestResult {
    const K: f32 = 1.5;
    let shapes: [&[usize]; 3] = [&[1 << 16], &[8, 1 << 14], &[4096, 48]];
    let mut rng = Rng::fresh();
    for (which, want_runs) in [("eager first", 2usize..=3), ("direct", 1..=1)] {
        let runs = std::sync::atomic::AtomicUsize::new(0);
        let prog = compile(|x: &[Array<f32>]| {
            runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            one_launch_sums(x, K)
        });
        // No background build left to move the compile count during the first call.
        cuprite_array::tuning::wait_tier_up();
        let compiled_before = cuprite_array::stats::compiles();
        for call in 0..12 {
            let host: Vec<Vec<f32>> = shapes
                .iter()
                .map(|s| rng.vec_f32(s.iter().product(), -1.0, 1.0))
                .collect();
            let ins: Vec<Array<f32>> = host
                .iter()
                .zip(shapes)
                .map(|(v, s)| Array::from_slice_on(dev(), v, s))
                .collect::<Result<_>>()?;
            let refs: Vec<&Array<f32>> = ins.iter().collect();
            let got = prog.call(&refs)?;
            if call == 0 {
                let n = runs.load(std::sync::atomic::Ordering::Relaxed);
                // Kernels this process finds in the disk cache need no run before the capture.
                let cached = cuprite_array::stats::compiles() == compiled_before;
                let want_runs = if cached { 1..=1 } else { want_runs.clone() };
                if !want_runs.contains(&n) {
                    return Err(format!(
                        "{which}: the first call ran the closure {n} times, want {want_runs:?} \
                         (kernels from a cache: {cached})"
                    )
                    .into());
                }
            }
            let want = one_launch_want(&host, K);
            let eager = if call == 0 || call == 11 {
                Some(with_device(dev(), || one_launch_sums(&ins, K))?)
            } else {
                None
            };
            // Terms of magnitude at most 1: a bound of 1e-5 per term holds the f32 rounding.
            let terms = [1usize << 16, 1 << 14, 4096];
            for (o, (g, w)) in got.iter().zip(&want).enumerate() {
                let tol = 1e-5 * terms[o] as f64;
                let g = g.to_vec()?;
                if g.len() != w.len() {
                    return Err(
                        format!("{which} call {call} output {o}: {} values", g.len()).into(),
                    );
                }
                for (i, (&a, &b)) in g.iter().zip(w).enumerate() {
                    if (a as f64 - b).abs() > tol {
                        return Err(format!(
                            "{which} call {call} output {o} value {i}: {a}, host {b}"
                        )
                        .into());
                    }
                }
                if let Some(e) = &eager {
                    let e = e[o].to_vec()?;
                    if g.iter()
                        .map(|v| v.to_bits())
                        .ne(e.iter().map(|v| v.to_bits()))
                    {
                        return Err(format!(
                            "{which} call {call} output {o}: replay {g:?} != eager {e:?}"
                        )
                        .into());
                    }
                }
            }
        }
        if runs.load(std::sync::atomic::Ordering::Relaxed) > *want_runs.end() {
            return Err(format!("{which}: a replay ran the closure").into());
        }
    }
    Ok(())
}
