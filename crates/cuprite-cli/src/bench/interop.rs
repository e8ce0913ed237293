//! Interop benchmarks: the host cost of handing array memory to a custom kernel and
//! its output back to the array library, against a plain cuprite launch of the same kernel on
//! the same stream in the same run, with the host synchronisations and cross-stream waits of
//! the hand-off counted; and the host cost of a DLPack export + import.
//!
//! Both run on the array library's own context and stream (device 0's primary context), where
//! interop happens. Samples alternate plain, interop, plain, ... after a stream
//! synchronisation, so that drift of the machine affects both alike.

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::Array;
use cuprite_array::interop::dlpack::{
    self, DLDevice, DLManagedTensorVersioned, DLPackTensor, DLPackVersion, DLTensor,
};
use cuprite_driver::{DeviceBuffer, LaunchConfig};
use std::time::Instant;

/// The interop benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "interop/array_kernel_roundtrip",
            group: "interop",
            needs_gpu: true,
            run: array_kernel_roundtrip,
        },
        Benchmark {
            name: "interop/dlpack_export_import",
            group: "interop",
            needs_gpu: true,
            run: dlpack_export_import,
        },
    ]
}

const KERNEL: &str = r#"
extern "C" __global__ void axpb(const float* x, float* y, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + 1.0f;
}
"#;

fn fresh(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed ^ (std::process::id() << 8);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1 << 24) as f32
        })
        .collect()
}

fn err(e: impl std::fmt::Display) -> BenchError {
    e.to_string().into()
}

fn array_kernel_roundtrip(b: &mut BenchCtx) -> BenchResult {
    let stream = cuprite_array::get_stream(0)?;
    let ctx = stream.context().clone();
    let module = ctx.load_module(cuprite_driver::nvrtc::compile_ptx(KERNEL)?)?;
    let f = module.load_function("axpb")?;
    let n = 1024usize;
    let data = fresh(n, 17);
    let (a, nn) = (0.5f32, n as u32);
    let cfg = LaunchConfig::for_num_elems(nn);
    // Plain: two device buffers on the array stream.
    let xb = stream.clone_htod(&data)?;
    let mut yb = stream.clone_htod(&data)?;
    // Interop: an array, its view, a buffer that becomes an array and is recycled.
    let x = Array::from_slice(&data, &[n])?;
    x.eval()?;
    let mut out = Some(stream.clone_htod(&data)?);
    let iters = b.size(2000, 200);

    let mut plain = || -> Result<(), BenchError> {
        let mut l = stream.launch_builder(&f);
        l.arg(&xb).arg(&mut yb).arg(&a).arg(&nn);
        // SAFETY: axpb reads n floats of x and writes n floats of y; both hold n.
        unsafe { l.launch(cfg) }?;
        Ok(())
    };
    // The round trip: array -> device view -> launch -> array again (the output buffer,
    // allocated before timing, becomes an array).
    let round_trip = |buf: DeviceBuffer<f32>| -> Result<Array<f32>, BenchError> {
        let mut buf = buf;
        {
            let v = x.device_view()?;
            let mut l = stream.launch_builder(&f);
            l.arg(&v).arg(&mut buf).arg(&a).arg(&nn);
            // SAFETY: as above.
            unsafe { l.launch(cfg) }?;
        }
        Ok(Array::from_buffer(buf, &[n])?)
    };
    let mut results: Vec<Array<f32>> = Vec::with_capacity(iters);
    // One sample of round trips: output buffers allocated first, results dropped after.
    let interop_sample = |results: &mut Vec<Array<f32>>| -> Result<f64, BenchError> {
        results.clear();
        // SAFETY: each buffer is fully written by the kernel before it is read.
        let bufs: Vec<DeviceBuffer<f32>> = (0..iters)
            .map(|_| unsafe { stream.alloc::<f32>(n) })
            .collect::<Result<_, _>>()?;
        stream.synchronize()?;
        let t = Instant::now();
        for buf in bufs {
            results.push(round_trip(buf)?);
        }
        Ok(t.elapsed().as_secs_f64() / iters as f64)
    };
    // The same with the output recycled through into_buffer (no allocation at all).
    let mut recycle = || -> Result<(), BenchError> {
        let buf = out.take().ok_or("lost the output buffer")?;
        let y = round_trip(buf)?;
        out = Some(y.into_buffer().map_err(|_| "the result array is shared")?);
        Ok(())
    };
    let sample = |g: &mut dyn FnMut() -> Result<(), BenchError>| -> Result<f64, BenchError> {
        stream.synchronize()?;
        let t = Instant::now();
        for _ in 0..iters {
            g()?;
        }
        Ok(t.elapsed().as_secs_f64() / iters as f64)
    };
    b.status("warm-up".to_string());
    for _ in 0..b.warmup.max(1) {
        sample(&mut plain)?;
        interop_sample(&mut results)?;
        sample(&mut recycle)?;
    }
    // The counted part: one sample's worth of round trips, no synchronisation inside.
    // SAFETY: each buffer is fully written by the kernel before it is read.
    let bufs: Vec<DeviceBuffer<f32>> = (0..iters)
        .map(|_| unsafe { stream.alloc::<f32>(n) })
        .collect::<Result<_, _>>()?;
    stream.synchronize()?;
    results.clear();
    let before = cuprite_driver::thread_stats();
    for buf in bufs {
        results.push(round_trip(buf)?);
    }
    let d = cuprite_driver::thread_stats().since(&before);
    // The results are right.
    for y in [results.last(), results.first()].into_iter().flatten() {
        let got = y.to_vec()?;
        if let Some(i) = (0..n).find(|&i| (got[i] - (a * data[i] + 1.0)).abs() > 1e-6) {
            return Err(format!("wrong result at {i}: {}", got[i]).into());
        }
    }
    b.status("measuring".to_string());
    let (mut ps, mut is, mut rs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..b.repeats {
        ps.push(sample(&mut plain)?);
        is.push(interop_sample(&mut results)?);
        rs.push(sample(&mut recycle)?);
    }
    stream.synchronize()?;
    drop(results);
    let (ps, is, rs) = (Samples(ps), Samples(is), Samples(rs));
    let plain_us = ps.median() * 1e6;
    let mode = if ctx.is_multi_stream() {
        "multi-stream tracking active on the array context"
    } else {
        "single-stream context"
    };
    Ok(vec![
        Figure::time(
            "plain cuprite launch of a tiny kernel (2 buffers, 2 scalars) on the array stream",
            &ps,
            TimeUnit::Us,
        )
        .with_note(format!(
            "host time per launch, 1024 elements; the ceiling of the next figures; {mode}"
        )),
        Figure::time(
            "array -> device_view -> launch on the array stream -> Array::from_buffer",
            &is,
            TimeUnit::Us,
        )
        .with_ceiling("plain cuprite launch (interleaved)", plain_us)
        .with_target(Target::RatioAtMost(1.2))
        .with_note(format!(
            "host time per round trip (output buffers allocated before timing); {mode}"
        )),
        Figure::time(
            "the same round trip recycling the output with into_buffer (no allocation)",
            &rs,
            TimeUnit::Us,
        )
        .with_ceiling("plain cuprite launch (interleaved)", plain_us)
        .with_note("from_buffer + into_buffer per round trip"),
        Figure::new(
            "host synchronisations + cross-stream waits during the round trips (counted)",
            "count",
            (d.host_syncs + d.stream_waits) as f64,
            (d.host_syncs + d.stream_waits) as f64,
            (d.host_syncs + d.stream_waits) as f64,
        )
        .with_target(Target::AtMost(0.0))
        .with_note(format!(
            "{iters} round trips: {} host syncs, {} stream waits",
            d.host_syncs, d.stream_waits
        )),
    ])
}

fn dlpack_export_import(b: &mut BenchCtx) -> BenchResult {
    let n = 1 << 20;
    let x = Array::from_slice(&fresh(n, 23), &[n])?;
    let ptr = x.device_view()?.device_ptr();
    let iters = b.size(20_000, 2000);
    let round = |x: &Array<f32>| -> Result<Array<f32>, BenchError> {
        let t = x.to_dlpack().map_err(err)?;
        Array::<f32>::from_dlpack(t).map_err(err)
    };
    // No copy: the import reads the exported memory.
    let y = round(&x)?;
    if y.device_view()?.device_ptr() != ptr {
        return Err("the DLPack round trip copied".into());
    }
    drop(y);
    let mut legacy_ok = true;
    let mut sample = |versioned: bool| -> Result<f64, BenchError> {
        let t0 = Instant::now();
        for _ in 0..iters {
            let t = if versioned {
                x.to_dlpack()
            } else {
                x.to_dlpack_legacy()
            }
            .map_err(err)?;
            let y = Array::<f32>::from_dlpack(t).map_err(err)?;
            legacy_ok &= y.len() == n;
        }
        Ok(t0.elapsed().as_secs_f64() / iters as f64)
    };
    for _ in 0..b.warmup.max(1) {
        sample(true)?;
        sample(false)?;
    }
    let (mut vs, mut ls) = (Vec::new(), Vec::new());
    for _ in 0..b.repeats {
        vs.push(sample(true)?);
        ls.push(sample(false)?);
    }
    if !legacy_ok {
        return Err("a round trip lost elements".into());
    }
    // A foreign producer's tensor (not one of ours: the general import path, with the
    // pointer checks, and the release through the producer's deleter when the array drops).
    let owner = cuprite_array::get_stream(0)?.clone_htod(&fresh(n, 29))?;
    let fptr = cuprite_driver::DeviceRead::device_ptr(&owner);
    let mut shape = [n as i64];
    let foreign = |shape: &mut [i64; 1]| -> Result<(), BenchError> {
        let m = Box::into_raw(Box::new(DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 0 },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(free_box),
            flags: 0,
            dl_tensor: DLTensor {
                data: fptr as *mut std::ffi::c_void,
                device: DLDevice {
                    device_type: dlpack::KDL_CUDA,
                    device_id: 0,
                },
                ndim: 1,
                dtype: dlpack::dl_dtype(cuprite_array::DType::F32),
                shape: shape.as_mut_ptr(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
        }));
        // SAFETY: a fresh managed tensor whose deleter frees its box; the memory it describes
        // (`owner`) outlives every array made of it in this loop.
        let t = unsafe { DLPackTensor::from_raw_versioned(m) }.map_err(err)?;
        let y = Array::<f32>::from_dlpack(t).map_err(err)?;
        drop(y);
        Ok(())
    };
    let mut fs = Vec::new();
    for r in 0..b.warmup.max(1) + b.repeats {
        let t0 = Instant::now();
        for _ in 0..iters {
            foreign(&mut shape)?;
        }
        if r >= b.warmup.max(1) {
            fs.push(t0.elapsed().as_secs_f64() / iters as f64);
        }
    }
    drop(owner);
    Ok(vec![
        Figure::time(
            "DLPack export + import (versioned), host time, 2^20 f32 on the GPU",
            &Samples(vs),
            TimeUnit::Us,
        )
        .with_target(Target::AtMost(5.0))
        .with_note("to_dlpack() then Array::from_dlpack(); same data pointer checked (no copy)"),
        Figure::time(
            "DLPack export + import (legacy DLManagedTensor), host time",
            &Samples(ls),
            TimeUnit::Us,
        )
        .with_target(Target::AtMost(5.0)),
        Figure::time(
            "DLPack import of a foreign CUDA tensor + release through its deleter, host time",
            &Samples(fs),
            TimeUnit::Us,
        )
        .with_target(Target::AtMost(5.0))
        .with_note("the general import path (pointer checks, foreign keeper), no copy"),
    ])
}

unsafe extern "C" fn free_box(m: *mut DLManagedTensorVersioned) {
    // SAFETY: `m` came from Box::into_raw in `dlpack_export_import`; DLPack calls this once.
    drop(unsafe { Box::from_raw(m) });
}
