//! FFT benchmarks: the three transforms the PyTorch peer figures cover — FFT of 2^24
//! `Complex<f32>`, batched rfft of 1024 × 4096 `f32`, fft2 of 4096² `Complex<f32>` — through
//! `cuprite_driver::fft` (a [`PlanCache`] lookup and a transform per call, as the array layer will do
//! it), each against the same transform through raw cuFFT calls (`cuprite-sys`, cuFFT's own
//! work-area allocation) measured in the same run; and the host cost of one small transform
//! against the raw `cufftExecC2C`.
//!
//! Device time is taken with events around `K` back-to-back calls (the median over the repeats,
//! divided by `K`), so the figure is the transform's device time plus whatever host overhead
//! does not hide behind it. Each benchmark runs on a fresh owned context in single-stream
//! mode. Data is random; results are checked (the DC bin against the input's sum, and the
//! cuprite output against the raw one). The PyTorch figures come from
//! `benches/peers/torch_fft.py`, run in the same call on the same GPU.
//!
//! The `array/*` rows time the same three transforms through cuprite-array (`Array::fft`,
//! `rfft`, `fft2`: a lazy library-call node, then its evaluation: the output allocation, the
//! plan cache lookup, the checks and the cuFFT call) against raw cuFFT on the array stream in
//! the same run, so the cost of the array layer over the raw plan shows as the ratio. `c64`
//! in their names is PyTorch's `complex64` (cuprite-array's `c32`: two `f32`).

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_driver::fft::{FftKind, PlanCache, PlanDesc, Precision};
use cuprite_driver::sys::cufft as raw;
use cuprite_driver::{Context, ContextFlags, ContextStack, Device, DeviceBuffer, Stream};
use num_complex::Complex;
use std::ffi::c_longlong;
use std::sync::Arc;
use std::time::Instant;

type C32 = Complex<f32>;

/// The FFT benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "fft/c2c_2p24",
            group: "fft",
            needs_gpu: true,
            run: c2c_2p24,
        },
        Benchmark {
            name: "fft/rfft_batched",
            group: "fft",
            needs_gpu: true,
            run: rfft_batched,
        },
        Benchmark {
            name: "fft/fft2_4096",
            group: "fft",
            needs_gpu: true,
            run: fft2_4096,
        },
        Benchmark {
            name: "fft/host_per_call",
            group: "fft",
            needs_gpu: true,
            run: host_per_call,
        },
        Benchmark {
            name: "array/fft_c64_2^24",
            group: "array",
            needs_gpu: true,
            run: array_fft_2p24,
        },
        Benchmark {
            name: "array/rfft_batched_1024x4096",
            group: "array",
            needs_gpu: true,
            run: array_rfft_batched,
        },
        Benchmark {
            name: "array/fft2_c64_4096^2",
            group: "array",
            needs_gpu: true,
            run: array_fft2_4096,
        },
    ]
}

fn err(e: cuprite_driver::Error) -> BenchError {
    Box::new(e)
}

fn check(
    r: Result<raw::cufftResult, cuprite_sys::LoadError>,
    call: &str,
) -> Result<(), BenchError> {
    match r {
        Ok(c) if c.is_success() => Ok(()),
        Ok(c) => Err(format!("{call} failed: {c:?}").into()),
        Err(e) => Err(Box::new(cuprite_driver::Error::from(e))),
    }
}

/// A fresh owned context on device 0 (single-stream mode, whatever ran before) and a stream.
fn fresh() -> Result<(Arc<Context>, Arc<Stream>), BenchError> {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0).map_err(err)?)
        .map_err(err)?;
    ContextStack::pop().map_err(err)?;
    let s = ctx.new_stream().map_err(err)?;
    ctx.bind_to_thread().map_err(err)?;
    Ok((ctx, s))
}

/// A plan made with raw cuFFT calls: cuFFT's own work area, dense layouts, on `stream`.
struct RawPlan(raw::cufftHandle);

impl RawPlan {
    fn new(desc: &PlanDesc, stream: &Stream) -> Result<RawPlan, BenchError> {
        let mut h = raw::CUFFT_PLAN_NULL;
        // SAFETY: a valid out-pointer.
        check(unsafe { raw::cufftCreate(&mut h) }, "cufftCreate")?;
        let plan = RawPlan(h);
        let mut n: Vec<c_longlong> = desc.shape().iter().map(|&v| v as c_longlong).collect();
        let kind = match (desc.kind(), desc.precision()) {
            (FftKind::C2C, Precision::F32) => raw::cufftType::CUFFT_C2C,
            (FftKind::R2C, Precision::F32) => raw::cufftType::CUFFT_R2C,
            (FftKind::C2R, Precision::F32) => raw::cufftType::CUFFT_C2R,
            other => return Err(format!("raw plan for {other:?} not written").into()),
        };
        let mut work = 0usize;
        // SAFETY: a live handle; `n` holds `rank` sizes; null embeds (dense); valid out-pointer.
        let r = unsafe {
            raw::cufftMakePlanMany64(
                h,
                n.len() as i32,
                n.as_mut_ptr(),
                std::ptr::null_mut(),
                1,
                1,
                std::ptr::null_mut(),
                1,
                1,
                kind,
                desc.batch() as c_longlong,
                &mut work,
            )
        };
        check(r, "cufftMakePlanMany64")?;
        // SAFETY: a live plan and a live stream of the current context.
        let r = unsafe { raw::cufftSetStream(h, stream.raw()) };
        check(r, "cufftSetStream")?;
        Ok(plan)
    }

    fn exec(&self, desc: &PlanDesc, x: u64, y: u64) -> Result<(), BenchError> {
        // SAFETY: a live plan of `desc`; `x` and `y` are device buffers of the plan's context
        // holding the dense extents of `desc` (the caller's contract).
        let r = unsafe {
            match desc.kind() {
                FftKind::C2C => {
                    raw::cufftExecC2C(self.0, x as *mut _, y as *mut _, raw::CUFFT_FORWARD)
                }
                FftKind::R2C => raw::cufftExecR2C(self.0, x as *mut f32, y as *mut _),
                FftKind::C2R => raw::cufftExecC2R(self.0, x as *mut _, y as *mut f32),
            }
        };
        check(r, "cufftExec")
    }
}

impl Drop for RawPlan {
    fn drop(&mut self) {
        // SAFETY: created by cufftCreate, destroyed once; failure leaves nothing to free.
        let _ = unsafe { raw::cufftDestroy(self.0) };
    }
}

/// Random values in [-1, 1) from a fast generator (the figure does not depend on them; they
/// only must not be zeros).
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x5EED, |d| d.as_nanos() as u64)
}

/// Device seconds per call of `call`, `k` calls between each pair of events.
fn per_call(
    b: &BenchCtx,
    stream: &Stream,
    k: usize,
    mut call: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    // SAFETY: `stream` outlives the call, and its context is current (bound by `fresh`; the
    // calls below keep it so).
    let s = unsafe {
        b.time_device(stream.raw(), || -> Result<(), BenchError> {
            for _ in 0..k {
                call()?;
            }
            Ok(())
        })
    }?;
    Ok(Samples(s.0.into_iter().map(|t| t / k as f64).collect()))
}

/// One transform: cuprite (cache lookup + transform per call) and raw cuFFT, `k` calls per
/// event pair, with the result checked.
fn transform(b: &mut BenchCtx, what: &str, desc: PlanDesc, k: usize) -> BenchResult {
    let (_ctx, s) = fresh()?;
    let ext = desc.check().map_err(err)?;
    let mut cache = PlanCache::new(4);
    let seed = seed();
    // Inputs: complex (as interleaved f32 pairs) or real.
    let (x_c, x_r): (Option<DeviceBuffer<C32>>, Option<DeviceBuffer<f32>>) = match desc.kind() {
        FftKind::R2C => (
            None,
            Some(s.clone_htod(&random(ext.input, seed)).map_err(err)?),
        ),
        _ => {
            let v = random(2 * ext.input, seed);
            let c: Vec<C32> = v.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
            (Some(s.clone_htod(&c).map_err(err)?), None)
        }
    };
    let mut y = s.alloc_zeros::<C32>(ext.output).map_err(err)?;
    let y_raw = s.alloc_zeros::<C32>(ext.output).map_err(err)?;
    let x_ptr = x_c
        .as_ref()
        .map(|x| x.device_ptr())
        .or(x_r.as_ref().map(|x| x.device_ptr()))
        .unwrap_or(0);
    let rawp = RawPlan::new(&desc, &s)?;
    let y_raw_ptr = y_raw.device_ptr();
    let mut ours = || -> Result<(), BenchError> {
        let plan = cache.get(&s, &desc).map_err(err)?;
        match (&x_c, &x_r) {
            (Some(x), _) => plan.exec_forward(x, &mut y),
            (_, Some(x)) => plan.exec_r2c(x, &mut y),
            _ => unreachable!("one input is set"),
        }
        .map_err(err)
    };
    b.status(format!("{what}: raw cuFFT"));
    let raw_s = per_call(b, &s, k, || rawp.exec(&desc, x_ptr, y_raw_ptr))?;
    b.status(format!("{what}: cuprite"));
    let cup_s = per_call(b, &s, k, &mut ours)?;
    b.status(format!("{what}: raw cuFFT again"));
    let raw_s2 = per_call(b, &s, k, || rawp.exec(&desc, x_ptr, y_raw_ptr))?;
    let raw_all = Samples(raw_s.0.iter().chain(&raw_s2.0).copied().collect());
    // Check: the same numbers as raw cuFFT, and the DC bin of the first signal is its sum.
    let got = s.clone_dtoh(&y).map_err(err)?;
    let want = s.clone_dtoh(&y_raw).map_err(err)?;
    let diff = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).norm())
        .fold(0f32, f32::max);
    let scale = want.iter().map(|v| v.norm()).fold(0f32, f32::max);
    if diff.is_nan() || diff > 1e-5 * scale {
        return Err(
            format!("{what}: cuprite and raw cuFFT differ by {diff} (scale {scale})").into(),
        );
    }
    let per: usize = desc.shape().iter().product();
    let dc: f64 = match (&x_c, &x_r) {
        (Some(x), _) => s
            .clone_dtoh(&x.slice(..per).map_err(err)?)
            .map_err(err)?
            .iter()
            .map(|v| f64::from(v.re))
            .sum(),
        (_, Some(x)) => s
            .clone_dtoh(&x.slice(..per).map_err(err)?)
            .map_err(err)?
            .iter()
            .map(|&v| f64::from(v))
            .sum(),
        _ => 0.0,
    };
    let dc_err = (f64::from(got[0].re) - dc).abs() / (per as f64).sqrt();
    if dc_err.is_nan() || dc_err >= 1e-3 {
        return Err(format!("{what}: DC bin {} but the input sums to {dc}", got[0].re).into());
    }
    let stats = cache.stats();
    if stats.misses != 1 {
        return Err(format!("{what}: the plan cache missed {} times", stats.misses).into());
    }
    let raw_ms = raw_all.median() * 1e3;
    Ok(vec![
        Figure::time(
            format!("{what}: cuprite fft::Plan from a PlanCache"),
            &cup_s,
            TimeUnit::Ms,
        )
        .with_ceiling("raw cuFFT, same plan and buffers", raw_ms)
        .with_target(Target::RatioAtMost(1.05))
        .with_note(format!(
            "{k} calls per event pair; work area {} MiB from the pool; {} cache hits (peer: \
                 benches/peers/torch_fft.py)",
            cache.get(&s, &desc).map_err(err)?.work_size() >> 20,
            stats.hits
        )),
        Figure::time(format!("{what}: raw cuFFT"), &raw_all, TimeUnit::Ms)
            .with_note("cufftExec on a plan with cuFFT's own work area: the ceiling above"),
    ])
}

fn c2c_2p24(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 24, 1 << 16);
    transform(
        b,
        &format!("FFT of {n} Complex<f32> (C2C)"),
        PlanDesc::c2c(Precision::F32, &[n]),
        b.size(20, 5),
    )
}

fn rfft_batched(b: &mut BenchCtx) -> BenchResult {
    let rows = b.size(1024, 64);
    transform(
        b,
        &format!("batched rfft of {rows} × 4096 f32 (R2C)"),
        PlanDesc::r2c(Precision::F32, &[4096]).with_batch(rows),
        b.size(100, 5),
    )
}

fn fft2_4096(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(4096, 256);
    transform(
        b,
        &format!("fft2 of {n} × {n} Complex<f32> (C2C, 2-D)"),
        PlanDesc::c2c(Precision::F32, &[n, n]),
        b.size(20, 5),
    )
}

/// Host time of one small transform (a cache lookup, the checks, tracking and the cuFFT
/// call) against the raw `cufftExecC2C` of the same plan, interleaved.
fn host_per_call(b: &mut BenchCtx) -> BenchResult {
    let (_ctx, s) = fresh()?;
    let desc = PlanDesc::c2c(Precision::F32, &[256]);
    let v = random(512, seed());
    let x: Vec<C32> = v.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
    let x = s.clone_htod(&x).map_err(err)?;
    let mut y = s.alloc_zeros::<C32>(256).map_err(err)?;
    let y_raw = s.alloc_zeros::<C32>(256).map_err(err)?;
    let mut cache = PlanCache::new(4);
    let rawp = RawPlan::new(&desc, &s)?;
    let (xp, yp) = (x.device_ptr(), y_raw.device_ptr());
    let iters = b.size(2000, 100);
    let sample = |f: &mut dyn FnMut() -> Result<(), BenchError>| -> Result<f64, BenchError> {
        s.synchronize().map_err(err)?;
        let t = Instant::now();
        for _ in 0..iters {
            f()?;
        }
        Ok(t.elapsed().as_secs_f64() / iters as f64)
    };
    let mut ours = || -> Result<(), BenchError> {
        cache
            .get(&s, &desc)
            .and_then(|p| p.exec_forward(&x, &mut y))
            .map_err(err)
    };
    let mut rawf = || rawp.exec(&desc, xp, yp);
    for _ in 0..b.warmup.max(1) {
        sample(&mut rawf)?;
        sample(&mut ours)?;
    }
    let (mut rs, mut cs) = (Vec::new(), Vec::new());
    for _ in 0..b.repeats {
        rs.push(sample(&mut rawf)?);
        cs.push(sample(&mut ours)?);
    }
    s.synchronize().map_err(err)?;
    let (rs, cs) = (Samples(rs), Samples(cs));
    let raw_us = rs.median() * 1e6;
    Ok(vec![
        Figure::time(
            "host time per small FFT (C2C 256 f32): PlanCache lookup + checks + tracking + cuFFT",
            &cs,
            TimeUnit::Us,
        )
        .with_ceiling("raw cufftExecC2C host time", raw_us)
        .with_target(Target::RatioAtMost(1.10))
        .with_note(format!(
            "{iters} calls per sample after a sync, interleaved with raw"
        )),
        Figure::time(
            "raw cufftExecC2C host time (C2C 256 f32)",
            &rs,
            TimeUnit::Us,
        )
        .with_note("the ceiling of the figure above"),
    ])
}

/// One transform through cuprite-array, `k` calls (each a new lazy node and its evaluation)
/// per event pair, against raw cuFFT of the same sizes on the array stream, with the result
/// checked against the raw output on the same input.
fn array_transform(
    b: &mut BenchCtx,
    what: &str,
    desc: PlanDesc,
    k: usize,
    call: fn(&AnyInput) -> Result<AnyOutput, cuprite_array::Error>,
) -> BenchResult {
    use cuprite_array::{Array, Device, with_device};
    with_device(Device::cuda(0), || {
        let stream = cuprite_array::get_stream(0)?;
        let ext = desc.check().map_err(err)?;
        let seed = seed();
        let shape_in: Vec<usize> = std::iter::once(desc.batch())
            .filter(|&b| b > 1)
            .chain(desc.shape().iter().copied())
            .collect();
        // The same input for both: the array's and the raw buffer's.
        let mut raw_r: Option<DeviceBuffer<f32>> = None;
        let mut raw_c: Option<DeviceBuffer<C32>> = None;
        let input = if desc.kind() == FftKind::R2C {
            let v = random(ext.input, seed);
            raw_r = Some(stream.clone_htod(&v).map_err(err)?);
            AnyInput::Real(Array::from_slice(&v, &shape_in)?)
        } else {
            let v = random(2 * ext.input, seed);
            let c: Vec<C32> = v.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
            raw_c = Some(stream.clone_htod(&c).map_err(err)?);
            AnyInput::Complex(Array::from_slice(&c, &shape_in)?)
        };
        let x_raw_ptr = raw_r
            .as_ref()
            .map(|x| x.device_ptr())
            .or(raw_c.as_ref().map(|x| x.device_ptr()))
            .unwrap_or(0);
        let y_raw = stream.alloc_zeros::<C32>(ext.output).map_err(err)?;
        let rawp = RawPlan::new(&desc, &stream)?;
        let (xp, yp) = (x_raw_ptr, y_raw.device_ptr());
        // The first call makes the plan; the timed ones find it in the cache.
        let first = call(&input)?;
        let hits0 = cuprite_array::ops::fft::plan_cache_stats(0).hits;
        b.status(format!("{what}: raw cuFFT on the array stream"));
        let raw_s = per_call(b, &stream, k, || rawp.exec(&desc, xp, yp))?;
        b.status(format!("{what}: cuprite-array"));
        let arr_s = per_call(b, &stream, k, || {
            call(&input)?;
            Ok(())
        })?;
        b.status(format!("{what}: raw cuFFT again"));
        let raw_s2 = per_call(b, &stream, k, || rawp.exec(&desc, xp, yp))?;
        let raw_all = Samples(raw_s.0.iter().chain(&raw_s2.0).copied().collect());
        let got = first.to_vec()?;
        let want = stream.clone_dtoh(&y_raw).map_err(err)?;
        let diff = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).norm())
            .fold(0f32, f32::max);
        let scale = want.iter().map(|v| v.norm()).fold(0f32, f32::max);
        if got.len() != want.len() || diff.is_nan() || diff > 1e-5 * scale {
            return Err(format!(
                "{what}: cuprite-array and raw cuFFT differ by {diff} (scale {scale}; {} and {} values)",
                got.len(),
                want.len()
            )
            .into());
        }
        let hits = cuprite_array::ops::fft::plan_cache_stats(0).hits - hits0;
        let raw_ms = raw_all.median() * 1e3;
        Ok(vec![
            Figure::time(
                format!("{what}: cuprite-array (lazy call + eval, output allocated per call)"),
                &arr_s,
                TimeUnit::Ms,
            )
            .with_ceiling("raw cuFFT on the array stream, same sizes", raw_ms)
            .with_target(Target::RatioAtMost(1.05))
            .with_note(format!(
                "{k} calls per event pair; {hits} plan cache hits (peer: benches/peers/torch_fft.py)"
            )),
        ])
    })
}

/// The input of an array benchmark.
enum AnyInput {
    Real(cuprite_array::Array<f32>),
    Complex(cuprite_array::Array<cuprite_array::c32>),
}

/// The output of an array benchmark (always complex here).
type AnyOutput = cuprite_array::Array<cuprite_array::c32>;

fn complex_in(
    x: &AnyInput,
) -> Result<&cuprite_array::Array<cuprite_array::c32>, cuprite_array::Error> {
    match x {
        AnyInput::Complex(a) => Ok(a),
        AnyInput::Real(_) => Err(cuprite_array::Error::InvalidArgument(
            "a complex transform given a real input".into(),
        )),
    }
}

fn array_fft_2p24(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 24, 1 << 16);
    array_transform(
        b,
        &format!("array fft of {n} c32 (torch complex64)"),
        PlanDesc::c2c(Precision::F32, &[n]),
        b.size(20, 5),
        |x| {
            let y = complex_in(x)?.fft()?;
            y.eval()?;
            Ok(y)
        },
    )
}

fn array_rfft_batched(b: &mut BenchCtx) -> BenchResult {
    let rows = b.size(1024, 64);
    array_transform(
        b,
        &format!("array rfft of {rows} × 4096 f32 along the last axis"),
        PlanDesc::r2c(Precision::F32, &[4096]).with_batch(rows),
        b.size(100, 5),
        |x| match x {
            AnyInput::Real(a) => {
                let y = a.rfft()?;
                y.eval()?;
                Ok(y)
            }
            AnyInput::Complex(_) => Err(cuprite_array::Error::InvalidArgument(
                "rfft given a complex input".into(),
            )),
        },
    )
}

fn array_fft2_4096(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(4096, 256);
    array_transform(
        b,
        &format!("array fft2 of {n} × {n} c32 (torch complex64)"),
        PlanDesc::c2c(Precision::F32, &[n, n]),
        b.size(20, 5),
        |x| {
            let y = complex_in(x)?.fft2()?;
            y.eval()?;
            Ok(y)
        },
    )
}
