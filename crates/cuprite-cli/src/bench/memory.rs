//! Benchmarks of the driver layer's memory: pinned host↔device bandwidth, device copy
//! bandwidth, pool allocation cost, and the host cost of a small async copy with stream tracking
//! off (one stream) and on (multi-stream mode).
//!
//! Every figure is compared with the raw driver call through `cuprite-sys`, on the same memory,
//! stream and context, measured in the same run. Data is fresh and random; results are checked.

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_driver::sys::driver as sys;
use cuprite_driver::{
    Context, ContextFlags, ContextStack, Device, DeviceBuffer, HostAllocFlags, PinnedHostBuffer,
    Stream,
};
use std::sync::Arc;
use std::time::Instant;

/// The memory benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "memory/pinned_htod",
            group: "memory",
            needs_gpu: true,
            run: pinned_htod,
        },
        Benchmark {
            name: "memory/pinned_dtoh",
            group: "memory",
            needs_gpu: true,
            run: pinned_dtoh,
        },
        Benchmark {
            name: "memory/device_copy",
            group: "memory",
            needs_gpu: true,
            run: device_copy,
        },
        Benchmark {
            name: "memory/pool_alloc_free",
            group: "memory",
            needs_gpu: true,
            run: pool_alloc_free,
        },
        Benchmark {
            name: "memory/small_copy_host_time",
            group: "memory",
            needs_gpu: true,
            run: small_copy_host_time,
        },
    ]
}

const MIB: usize = 1 << 20;

fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x5EED, |d| d.as_nanos() as u64)
}

fn random_words(n: usize) -> Vec<u64> {
    let mut s = seed();
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// An owned context (so that its stream-tracking mode belongs to this benchmark alone) and a
/// non-blocking stream of it.
fn own_context() -> Result<(Arc<Context>, Arc<Stream>), BenchError> {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let s = ctx.new_stream()?;
    Ok((ctx, s))
}

fn check(
    r: Result<sys::CUresult, cuprite_driver::sys::LoadError>,
    call: &'static str,
) -> Result<(), BenchError> {
    super::kit::check(r, call)
}

/// Event-timed samples of `f` (which only enqueues on `s`).
fn time_on(
    ctx: &BenchCtx,
    s: &Stream,
    f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    s.context().bind_to_thread()?;
    // SAFETY: `s` is a live stream of the context just bound, and outlives the call.
    unsafe { ctx.time_device(s.raw(), f) }
}

fn pinned_htod(ctx: &mut BenchCtx) -> BenchResult {
    let bytes = ctx.size(256 * MIB, 32 * MIB);
    let (_c, s) = own_context()?;
    let host = random_words(bytes / 8);
    let pinned = PinnedHostBuffer::from_slice(s.context(), &host, HostAllocFlags::NONE)?;
    // SAFETY: fully written by the copies below before it is read.
    let mut dev: DeviceBuffer<u64> = unsafe { s.alloc(bytes / 8) }?;
    s.memset_d32(&mut dev, 0xDEAD_BEEF)?;
    let (hp, dp, raw) = (pinned.as_ptr(), dev.device_ptr(), s.raw());
    ctx.status("raw cuMemcpyHtoDAsync");
    let raw_s = time_on(ctx, &s, || {
        // SAFETY: `hp` is pinned memory of `bytes` bytes, `dp` a device allocation as large.
        check(
            unsafe { sys::cuMemcpyHtoDAsync_v2(dp, hp.cast(), bytes, raw) },
            "cuMemcpyHtoDAsync_v2",
        )
    })?;
    s.memset_d32(&mut dev, 0xDEAD_BEEF)?;
    ctx.status("cuprite memcpy_htod");
    let ours = time_on(ctx, &s, || Ok(s.memcpy_htod(&pinned, &mut dev)?))?;
    if s.clone_dtoh(&dev)? != host {
        return Err("pinned host→device copy produced wrong data".into());
    }
    let gb = bytes as f64 / 1e9;
    let raw_fig = Figure::rate("raw cuMemcpyHtoDAsync, pinned", "GB/s", gb, &raw_s);
    let fig = Figure::rate(
        format!("pinned host→device {} MiB", bytes / MIB),
        "GB/s",
        gb,
        &ours,
    )
    .with_ceiling("raw cuMemcpyHtoDAsync (same run)", raw_fig.median)
    .with_target(Target::RatioAtLeast(0.95))
    .with_note("bytes transferred once; PinnedHostBuffer → DeviceBuffer on one stream");
    Ok(vec![fig, raw_fig])
}

fn pinned_dtoh(ctx: &mut BenchCtx) -> BenchResult {
    let bytes = ctx.size(256 * MIB, 32 * MIB);
    let (c, s) = own_context()?;
    let host = random_words(bytes / 8);
    let dev = s.clone_htod(&host)?;
    let mut pinned = PinnedHostBuffer::<u64>::new(&c, bytes / 8, HostAllocFlags::NONE)?;
    pinned.as_mut_slice()?.fill(0xABAB_ABAB_ABAB_ABAB);
    let (hp, dp, raw) = (pinned.as_ptr().cast_mut(), dev.device_ptr(), s.raw());
    ctx.status("raw cuMemcpyDtoHAsync");
    let raw_s = time_on(ctx, &s, || {
        // SAFETY: `hp` is pinned memory of `bytes` bytes, `dp` a device allocation as large;
        // no host access to `pinned` happens while the copies run.
        check(
            unsafe { sys::cuMemcpyDtoHAsync_v2(hp.cast(), dp, bytes, raw) },
            "cuMemcpyDtoHAsync_v2",
        )
    })?;
    pinned.as_mut_slice()?.fill(0xABAB_ABAB_ABAB_ABAB);
    ctx.status("cuprite memcpy_dtoh");
    let ours = time_on(ctx, &s, || Ok(s.memcpy_dtoh(&dev, &mut pinned)?))?;
    if pinned.as_slice()? != &host[..] {
        return Err("pinned device→host copy produced wrong data".into());
    }
    let gb = bytes as f64 / 1e9;
    let raw_fig = Figure::rate("raw cuMemcpyDtoHAsync, pinned", "GB/s", gb, &raw_s);
    let fig = Figure::rate(
        format!("pinned device→host {} MiB", bytes / MIB),
        "GB/s",
        gb,
        &ours,
    )
    .with_ceiling("raw cuMemcpyDtoHAsync (same run)", raw_fig.median)
    .with_target(Target::RatioAtLeast(0.95))
    .with_note("bytes transferred once; DeviceBuffer → PinnedHostBuffer on one stream");
    Ok(vec![fig, raw_fig])
}

fn device_copy(ctx: &mut BenchCtx) -> BenchResult {
    // Whole blocks of 16 MiB (the quick sizes may be divided below one).
    let bytes = (ctx.size(1 << 30, 128 * MIB) / (16 * MIB)).max(1) * (16 * MIB);
    let (_c, s) = own_context()?;
    let block = random_words(16 * MIB / 8);
    // SAFETY: fully written by the copies below before it is read.
    let mut src: DeviceBuffer<u64> = unsafe { s.alloc(bytes / 8) }?;
    for i in 0..bytes / (16 * MIB) {
        s.memcpy_htod(
            &block,
            &mut src.slice_mut(i * block.len()..(i + 1) * block.len())?,
        )?;
    }
    // SAFETY: as above.
    let mut dst: DeviceBuffer<u64> = unsafe { s.alloc(bytes / 8) }?;
    s.memset_d32(&mut dst, 0xDEAD_BEEF)?;
    let (sp, dp, raw) = (src.device_ptr(), dst.device_ptr(), s.raw());
    ctx.status("raw cuMemcpyDtoDAsync");
    let raw_s = time_on(ctx, &s, || {
        // SAFETY: two distinct allocations of `bytes` bytes.
        check(
            unsafe { sys::cuMemcpyDtoDAsync_v2(dp, sp, bytes, raw) },
            "cuMemcpyDtoDAsync_v2",
        )
    })?;
    s.memset_d32(&mut dst, 0xDEAD_BEEF)?;
    ctx.status("cuprite memcpy_dtod");
    let ours = time_on(ctx, &s, || Ok(s.memcpy_dtod(&src, &mut dst)?))?;
    let blocks = bytes / (16 * MIB);
    for w in [0, blocks / 2, blocks - 1].map(|b| b * block.len()) {
        let got = s.clone_dtoh(&dst.slice(w..w + block.len())?)?;
        if got != block {
            return Err(format!("device copy produced wrong data at word {w}").into());
        }
    }
    let tb = 2.0 * bytes as f64 / 1e12;
    let raw_fig = Figure::rate("raw cuMemcpyDtoDAsync", "TB/s", tb, &raw_s);
    let fig = Figure::rate(
        format!("device→device {} MiB (read+write)", bytes / MIB),
        "TB/s",
        tb,
        &ours,
    )
    .with_ceiling("raw cuMemcpyDtoDAsync (same run)", raw_fig.median)
    .with_target(Target::RatioAtLeast(0.95));
    Ok(vec![fig, raw_fig])
}

fn pool_alloc_free(ctx: &mut BenchCtx) -> BenchResult {
    let (c, s) = own_context()?;
    let bytes = MIB;
    let iters = ctx.size(2000, 200);
    // Warm the pool and check the memory is usable.
    {
        let host = random_words(bytes / 8);
        let d = s.clone_htod(&host)?;
        if s.clone_dtoh(&d)? != host {
            return Err("pool allocation holds wrong data".into());
        }
    }
    c.bind_to_thread()?;
    let raw = s.raw();
    // An owned context allocates from its own pool: the raw calls use the same pool.
    let pool = c.raw_memory_pool();
    ctx.status("raw cuMemAllocFromPoolAsync + cuMemFreeAsync");
    let raw_s = ctx.try_time_host_per_call(iters, |_| -> Result<(), BenchError> {
        let mut p = 0;
        // SAFETY: valid out-pointer; the context's pool and a live stream of it.
        let r = unsafe { sys::cuMemAllocFromPoolAsync(&mut p, bytes, pool, raw) };
        check(r, "cuMemAllocFromPoolAsync")?;
        // SAFETY: `p` was just allocated on this stream.
        check(unsafe { sys::cuMemFreeAsync(p, raw) }, "cuMemFreeAsync")
    })?;
    s.synchronize()?;
    ctx.status("cuprite alloc + drop");
    let ours = ctx.try_time_host_per_call(iters, |_| -> Result<(), BenchError> {
        // SAFETY: never read.
        let d: DeviceBuffer<u8> = unsafe { s.alloc(bytes) }?;
        drop(d);
        Ok(())
    })?;
    s.synchronize()?;
    c.check_deferred()?;
    let raw_fig = Figure::time(
        "raw cuMemAllocFromPoolAsync + cuMemFreeAsync, 1 MiB",
        &raw_s,
        TimeUnit::Us,
    );
    let fig = Figure::time(
        "warm pool alloc + free, 1 MiB, one stream",
        &ours,
        TimeUnit::Us,
    )
    .with_ceiling(
        "raw cuMemAllocFromPoolAsync + cuMemFreeAsync (same run, same pool)",
        raw_fig.median,
    )
    .with_target(Target::RatioAtMost(1.3))
    .with_note(
        "host row: host time per pair, against the raw pair on the same pool in the same run",
    );
    Ok(vec![fig, raw_fig])
}

/// Host time per 4 KiB async pinned copy, raw and through cuprite, interleaved sample by sample.
fn small_copies(
    ctx: &BenchCtx,
    s: &Stream,
    pinned: &PinnedHostBuffer<u32>,
    dev: &mut DeviceBuffer<u32>,
) -> Result<(Samples, Samples), BenchError> {
    let iters = ctx.size(500, 100);
    let bytes = pinned.len() * 4;
    let (hp, dp, raw) = (pinned.as_ptr(), dev.device_ptr(), s.raw());
    let mut raw_s = Vec::new();
    let mut ours = Vec::new();
    for round in 0..ctx.warmup + ctx.repeats {
        let t = Instant::now();
        for _ in 0..iters {
            // SAFETY: pinned source and device destination of `bytes` bytes.
            let r = unsafe { sys::cuMemcpyHtoDAsync_v2(dp, hp.cast(), bytes, raw) };
            check(r, "cuMemcpyHtoDAsync_v2")?;
        }
        let r = t.elapsed().as_secs_f64() / iters as f64;
        s.synchronize()?;
        let t = Instant::now();
        for _ in 0..iters {
            s.memcpy_htod(pinned, dev)?;
        }
        let o = t.elapsed().as_secs_f64() / iters as f64;
        s.synchronize()?;
        if round >= ctx.warmup {
            raw_s.push(r);
            ours.push(o);
        }
    }
    Ok((Samples(raw_s), Samples(ours)))
}

fn small_copy_host_time(ctx: &mut BenchCtx) -> BenchResult {
    let n = 1024; // 4 KiB of u32
    let mut figs = Vec::new();
    for tracked in [false, true] {
        let (c, s) = own_context()?;
        let host: Vec<u32> = random_words(n / 2)
            .iter()
            .flat_map(|w| [*w as u32, (*w >> 32) as u32])
            .collect();
        let pinned = PinnedHostBuffer::from_slice(&c, &host, HostAllocFlags::NONE)?;
        // SAFETY: fully written by the copies below before it is read.
        let mut dev: DeviceBuffer<u32> = unsafe { s.alloc(n) }?;
        s.memset_d32(&mut dev, 0xDEAD_BEEF)?;
        if tracked {
            // Touch a buffer from a second stream: the context enters multi-stream mode.
            let other = c.new_stream()?;
            let _probe = other.clone_dtod(&dev)?;
            other.synchronize()?;
        }
        if c.is_multi_stream() != tracked {
            return Err("the context is not in the stream-tracking mode this figure needs".into());
        }
        ctx.status(if tracked {
            "4 KiB copies, tracking on"
        } else {
            "4 KiB copies, one stream"
        });
        let (raw_s, ours) = small_copies(ctx, &s, &pinned, &mut dev)?;
        if s.clone_dtoh(&dev)? != host {
            return Err("4 KiB copies produced wrong data".into());
        }
        c.check_deferred()?;
        let raw_fig = Figure::time(
            format!(
                "raw cuMemcpyHtoDAsync 4 KiB pinned{}",
                if tracked { " (tracking ctx)" } else { "" }
            ),
            &raw_s,
            TimeUnit::Us,
        );
        let (name, target) = if tracked {
            (
                "4 KiB async pinned copy, host time, cross-stream tracking on",
                1.5,
            )
        } else {
            ("4 KiB async pinned copy, host time, one stream", 1.10)
        };
        figs.push(
            Figure::time(name, &ours, TimeUnit::Us)
                .with_ceiling(
                    "raw cuMemcpyHtoDAsync (same run, interleaved)",
                    raw_fig.median,
                )
                .with_target(Target::RatioAtMost(target)),
        );
        figs.push(raw_fig);
    }
    Ok(figs)
}
