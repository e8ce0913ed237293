//! Kernel-launch benchmarks: host time per launch through cuprite's builder against raw
//! `cuLaunchKernel` (through `cuprite-sys`) in the same run, on one stream and with cross-stream
//! tracking active; replay of a captured graph of 100 tiny kernels; NVRTC compile time.
//!
//! Each benchmark runs on its own owned context, so that earlier benchmarks in the process
//! cannot have switched it to multi-stream tracking.
//! Raw and cuprite samples are interleaved (raw, cuprite, raw, ...) so that drift of the
//! machine affects both alike; each sample is `iters` launches after a synchronisation, timed
//! on the host and divided.

use super::curves::CHART_HOST;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_driver::nvrtc;
use cuprite_driver::{CaptureMode, Context, ContextFlags, Device, LaunchConfig};
use cuprite_sys::driver as sys;
use std::ffi::c_void;
use std::sync::Arc;
use std::time::Instant;

/// The launch benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "launch/host_per_launch",
            group: "launch",
            needs_gpu: true,
            run: host_per_launch,
        },
        Benchmark {
            name: "launch/graph_replay",
            group: "launch",
            needs_gpu: true,
            run: graph_replay,
        },
        Benchmark {
            name: "launch/nvrtc_compile",
            group: "launch",
            needs_gpu: false,
            run: nvrtc_compile,
        },
    ]
}

/// Two buffers and two scalars, as the target says; one block of 32 threads.
const KERNEL: &str = r#"
extern "C" __global__ void k2b2s(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn check(r: Result<sys::CUresult, cuprite_sys::LoadError>, what: &str) -> Result<(), BenchError> {
    match r {
        Ok(c) if c.is_success() => Ok(()),
        Ok(c) => Err(format!("{what} failed: {c:?}").into()),
        Err(e) => Err(e.into()),
    }
}

fn to_bench_err(e: cuprite_driver::Error) -> BenchError {
    Box::new(e)
}

/// A fresh owned context on device 0: in single-stream mode whatever ran before in this process.
fn fresh_context() -> Result<Arc<Context>, BenchError> {
    let device = Device::get(0).map_err(to_bench_err)?;
    Context::create_and_push(ContextFlags::SCHED_AUTO, device).map_err(to_bench_err)
}

/// Host seconds per launch of `launch`, `iters` launches per sample after a sync.
fn sample(
    iters: usize,
    stream: &cuprite_driver::Stream,
    mut launch: impl FnMut() -> Result<(), BenchError>,
) -> Result<f64, BenchError> {
    stream.synchronize().map_err(to_bench_err)?;
    let t = Instant::now();
    for _ in 0..iters {
        launch()?;
    }
    let dt = t.elapsed().as_secs_f64() / iters as f64;
    stream.synchronize().map_err(to_bench_err)?;
    Ok(dt)
}

fn host_per_launch(b: &mut BenchCtx) -> BenchResult {
    let ctx = fresh_context()?;
    let stream = ctx.default_stream();
    let module = ctx
        .load_module(nvrtc::compile_ptx(KERNEL).map_err(to_bench_err)?)
        .map_err(to_bench_err)?;
    let f = module.load_function("k2b2s").map_err(to_bench_err)?;
    let n = 32usize;
    let mut rng_state = 0x1234_5678u32;
    let data: Vec<f32> = (0..n)
        .map(|_| {
            rng_state = rng_state
                .wrapping_mul(1_664_525)
                .wrapping_add(1_013_904_223);
            (rng_state >> 8) as f32 / (1 << 24) as f32
        })
        .collect();
    let x = stream.clone_htod(&data).map_err(to_bench_err)?;
    let mut y = stream.clone_htod(&data).map_err(to_bench_err)?;
    let (a, ni) = (0.5f32, n as i32);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let iters = b.size(2000, 200);

    // Raw: the same kernel, the same arguments, straight through cuprite-sys.
    let (xp, yp) = (
        cuprite_driver::DeviceRead::device_ptr(&x),
        cuprite_driver::DeviceRead::device_ptr(&y),
    );
    let raw_f = f.raw();
    let raw_s = stream.raw();
    let raw = |s: sys::CUstream| -> Result<(), BenchError> {
        let mut params: [*mut c_void; 4] = [
            &yp as *const u64 as *mut c_void,
            &xp as *const u64 as *mut c_void,
            &a as *const f32 as *mut c_void,
            &ni as *const i32 as *mut c_void,
        ];
        // SAFETY: a loaded kernel of the current context; four parameters pointing at live
        // values of the declared sizes; the buffers outlive the launch.
        check(
            unsafe {
                sys::cuLaunchKernel(
                    raw_f,
                    1,
                    1,
                    1,
                    32,
                    1,
                    1,
                    0,
                    s,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            },
            "cuLaunchKernel",
        )
    };

    let measure = |label: &str,
                   b: &mut BenchCtx,
                   y: &mut cuprite_driver::DeviceBuffer<f32>|
     -> Result<(Samples, Samples), BenchError> {
        b.status(label.to_string());
        let mut cup = || -> Result<(), BenchError> {
            // SAFETY: k2b2s(float*, const float*, float, int) with 32-element buffers.
            unsafe {
                stream
                    .launch_builder(&f)
                    .arg(&mut *y)
                    .arg(&x)
                    .arg(&a)
                    .arg(&ni)
                    .launch(cfg)
            }
            .map(|_| ())
            .map_err(to_bench_err)
        };
        for _ in 0..b.warmup.max(1) {
            sample(iters, &stream, || raw(raw_s))?;
            sample(iters, &stream, &mut cup)?;
        }
        let (mut rs, mut cs) = (Vec::new(), Vec::new());
        for _ in 0..b.repeats {
            rs.push(sample(iters, &stream, || raw(raw_s))?);
            cs.push(sample(iters, &stream, &mut cup)?);
        }
        Ok((Samples(rs), Samples(cs)))
    };

    // One stream: the context has used only `stream`.
    assert_single_stream(&ctx)?;
    let (raw1, cup1) = measure("one stream", b, &mut y)?;
    let raw1_us = raw1.median() * 1e6;

    // Tracking active: a second stream touches a buffer, so every access is tracked.
    let other = ctx.new_stream().map_err(to_bench_err)?;
    let tmp = other.clone_htod(&data).map_err(to_bench_err)?;
    let _ = other.clone_dtoh(&tmp).map_err(to_bench_err)?;
    if !ctx.is_multi_stream() {
        return Err("the context did not switch to multi-stream tracking".into());
    }
    let (raw2, cup2) = measure("tracking active", b, &mut y)?;
    let raw2_us = raw2.median() * 1e6;

    Ok(vec![
        Figure::time(
            "raw cuLaunchKernel (2 buffers, 2 scalars)",
            &raw1,
            TimeUnit::Us,
        )
        .with_note("host row: host time per launch, one stream; the reference of the next figures")
        .plot_samples(CHART_HOST, "raw cuLaunchKernel (own context)", &raw1, 1e6),
        Figure::time("cuprite launch, one stream", &cup1, TimeUnit::Us)
            .with_ceiling("raw cuLaunchKernel", raw1_us)
            .with_target(Target::RatioAtMost(1.10))
            .with_note(format!(
                "host row; {iters} launches per sample, interleaved with raw"
            ))
            .plot_samples(CHART_HOST, "cuprite launch, one stream", &cup1, 1e6),
        Figure::time(
            "raw cuLaunchKernel, second stream exists",
            &raw2,
            TimeUnit::Us,
        )
        .with_note("host time per launch, measured beside the next figure"),
        Figure::time(
            "cuprite launch, cross-stream tracking active",
            &cup2,
            TimeUnit::Us,
        )
        .with_ceiling("raw cuLaunchKernel", raw2_us)
        .with_target(Target::RatioAtMost(1.5))
        .with_note("host row; each launch records one event and updates two trackers")
        .plot_samples(
            CHART_HOST,
            "cuprite launch, cross-stream tracking",
            &cup2,
            1e6,
        ),
    ])
}

fn assert_single_stream(ctx: &Arc<Context>) -> Result<(), BenchError> {
    if ctx.is_multi_stream() {
        return Err("a fresh context is already in multi-stream mode".into());
    }
    Ok(())
}

fn graph_replay(b: &mut BenchCtx) -> BenchResult {
    let ctx = fresh_context()?;
    let stream = ctx.new_stream().map_err(to_bench_err)?;
    let module = ctx
        .load_module(nvrtc::compile_ptx(KERNEL).map_err(to_bench_err)?)
        .map_err(to_bench_err)?;
    let f = module.load_function("k2b2s").map_err(to_bench_err)?;
    let n = 32usize;
    let data: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let x = stream.clone_htod(&data).map_err(to_bench_err)?;
    let mut y = stream.clone_htod(&data).map_err(to_bench_err)?;
    let (a, ni) = (0.999f32, n as i32);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    const KERNELS: usize = 100;
    stream
        .begin_capture(CaptureMode::ThreadLocal)
        .map_err(to_bench_err)?;
    for _ in 0..KERNELS {
        // SAFETY: k2b2s with 32-element buffers.
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut y)
                .arg(&x)
                .arg(&a)
                .arg(&ni)
                .launch(cfg)
        }
        .map_err(to_bench_err)?;
    }
    let graph = stream.end_capture().map_err(to_bench_err)?;
    if graph.num_nodes().map_err(to_bench_err)? != KERNELS {
        return Err("the captured graph does not hold 100 kernels".into());
    }
    let exec = graph.instantiate().map_err(to_bench_err)?;
    exec.upload(&stream).map_err(to_bench_err)?;
    let replays = b.size(20, 5);
    // SAFETY: a live stream of the current context.
    let samples = unsafe {
        b.time_device(stream.raw(), || -> Result<(), cuprite_driver::Error> {
            for _ in 0..replays {
                exec.launch(&stream)?;
            }
            Ok(())
        })
    }?;
    let per_kernel = Samples(
        samples
            .0
            .iter()
            .map(|s| s / (replays * KERNELS) as f64)
            .collect(),
    );
    Ok(vec![
        Figure::time(
            "graph replay, per kernel (100 tiny kernels)",
            &per_kernel,
            TimeUnit::Us,
        )
        .with_target(Target::AtMost(1.2))
        .with_note(format!(
            "{replays} replays of a captured graph of {KERNELS} 32-thread kernels, event-timed"
        )),
    ])
}

fn nvrtc_compile(b: &mut BenchCtx) -> BenchResult {
    let mut k = 0u64;
    let samples = b.try_time_host_per_call(1, |_| -> Result<(), cuprite_driver::Error> {
        // A different constant each time, so no cache can answer.
        k += 1;
        let src = format!(
            "extern \"C\" __global__ void axpb(float *y, const float *x, int n) {{\n\
               int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
               if (i < n) y[i] = {k}.0f * x[i] + 1.0f;\n}}\n"
        );
        nvrtc::compile_ptx(src).map(|_| ())
    })?;
    Ok(vec![
        Figure::time(
            "NVRTC compile of a small kernel to PTX",
            &samples,
            TimeUnit::Ms,
        )
        .with_target(Target::AtMost(40.0))
        .with_note("compile_ptx of a 4-line kernel, a different constant each call"),
    ])
}
