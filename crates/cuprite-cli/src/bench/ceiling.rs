//! The ceilings every other figure is compared with: device-to-device copy bandwidth (through
//! raw `cuprite-sys` calls, so that it measures the hardware and not cuprite) and host memory
//! copy bandwidth.
//!
//! Bandwidth counts bytes read plus bytes written: a copy of N bytes moves 2N.

use super::kit::{
    BenchCtx, BenchError, BenchResult, Benchmark, Ceiling, Figure, Samples, check, remember,
};
use cuprite_sys::driver::{self as sys, CUcontext, CUdevice, CUdeviceptr, CUstream};
use std::ffi::c_void;

/// The ceiling benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "ceiling/device_copy",
            group: "ceiling",
            needs_gpu: true,
            run: device_copy,
        },
        Benchmark {
            name: "ceiling/host_copy",
            group: "ceiling",
            needs_gpu: false,
            run: host_copy,
        },
    ]
}

const GIB: usize = 1 << 30;
const MIB: usize = 1 << 20;

fn device_copy(ctx: &mut BenchCtx) -> BenchResult {
    let (fig, bytes) = device_copy_figure(ctx)?;
    remember(
        ctx,
        "device copy",
        Ceiling {
            name: "device copy bandwidth".into(),
            value: fig.median,
        },
    );
    Ok(vec![fig.with_note(format!(
        "cuMemcpyDtoDAsync of {} MiB, event-timed, read+write counted; the GPU ceiling",
        bytes / MIB
    ))])
}

fn host_copy(ctx: &mut BenchCtx) -> BenchResult {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    ctx.status("1 thread");
    let one = host_copy_figure(ctx, 1)?;
    ctx.status(format!("{threads} threads"));
    let all_fig = host_copy_figure(ctx, threads)?;
    let bytes = host_size(ctx);
    remember(
        ctx,
        "host copy",
        Ceiling {
            name: format!("host memcpy bandwidth ({threads} threads)"),
            value: all_fig.median,
        },
    );
    Ok(vec![
        one.with_note(format!(
            "copy_from_slice of {} MiB, read+write counted",
            bytes / MIB
        )),
        all_fig.with_note("the CPU ceiling"),
    ])
}

fn host_size(ctx: &BenchCtx) -> usize {
    ctx.size(512 * MIB, 32 * MIB)
}

/// The host copy bandwidth with `threads` threads, as a figure in GB/s (read+write).
pub fn host_copy_figure(ctx: &BenchCtx, threads: usize) -> Result<Figure, BenchError> {
    let samples = host_copy_bandwidth(ctx, threads)?;
    let what = if threads == 1 {
        "1 thread".to_string()
    } else {
        format!("{threads} threads")
    };
    Ok(Figure::rate(
        format!("host memcpy bandwidth ({what})"),
        "GB/s",
        2.0 * host_size(ctx) as f64 / 1e9,
        &samples,
    ))
}

/// Host copy time samples (seconds per copy of `host_size` bytes) using `threads` threads,
/// each copying its own contiguous part. The destination is poisoned first and checked after.
pub fn host_copy_bandwidth(ctx: &BenchCtx, threads: usize) -> Result<Samples, BenchError> {
    let words = host_size(ctx) / 8;
    let mut state = seed();
    let src: Vec<u64> = (0..words).map(|_| splitmix(&mut state)).collect();
    let mut dst = vec![0xABAB_ABAB_ABAB_ABABu64; words];
    let threads = threads.max(1);
    let chunk = words.div_ceil(threads);
    let copy = |dst: &mut [u64]| {
        if threads == 1 {
            dst.copy_from_slice(&src);
        } else {
            std::thread::scope(|s| {
                for (d, sp) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                    s.spawn(move || d.copy_from_slice(sp));
                }
            });
        }
    };
    let samples = ctx.time_host(|| copy(&mut dst));
    if dst != src {
        return Err("host copy produced wrong data".into());
    }
    Ok(samples)
}

/// The device copy bandwidth of device 0 as a figure in TB/s (read+write), with the buffer
/// size used. Raw driver calls only: the primary context is retained and pushed for the
/// measurement, then popped and released.
pub fn device_copy_figure(ctx: &BenchCtx) -> Result<(Figure, usize), BenchError> {
    let session = RawSession::open()?;
    let mut free = 0usize;
    let mut total = 0usize;
    // SAFETY: valid out-pointers; the session's context is current.
    let status = unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) };
    check(status, "cuMemGetInfo_v2")?;
    let mut bytes = ctx.size(GIB, 256 * MIB);
    while bytes > 16 * MIB && 2 * bytes + 256 * MIB > free {
        bytes /= 2;
    }
    let src = DeviceAlloc::new(bytes)?;
    let dst = DeviceAlloc::new(bytes)?;
    fill_random(&src, bytes, session.stream)?;
    // Poison the destination so an unwritten region cannot pass the check.
    // SAFETY: `dst` holds `bytes` bytes = bytes/4 words; stream of the current context.
    let status = unsafe { sys::cuMemsetD32Async(dst.ptr, 0xDEAD_BEEF, bytes / 4, session.stream) };
    check(status, "cuMemsetD32Async")?;
    let stream = session.stream;
    let copy = || {
        // SAFETY: both allocations hold `bytes` bytes and do not overlap.
        let status = unsafe { sys::cuMemcpyDtoDAsync_v2(dst.ptr, src.ptr, bytes, stream) };
        check(status, "cuMemcpyDtoDAsync_v2")
    };
    // SAFETY: `stream` is the session's live stream, in the context the session pushed.
    let samples = unsafe { ctx.time_device(stream, copy) }?;
    verify_equal(&src, &dst, bytes, stream)?;
    let fig = Figure::rate(
        format!("device copy bandwidth ({} MiB, read+write)", bytes / MIB),
        "TB/s",
        2.0 * bytes as f64 / 1e12,
        &samples,
    );
    drop((src, dst));
    drop(session);
    Ok((fig, bytes))
}

/// Fills `buf` with random words: one random 16 MiB block uploaded, then doubled on the device.
fn fill_random(buf: &DeviceAlloc, bytes: usize, stream: CUstream) -> Result<(), BenchError> {
    let block = bytes.min(16 * MIB);
    let mut state = seed();
    let host: Vec<u64> = (0..block / 8).map(|_| splitmix(&mut state)).collect();
    // SAFETY: `host` holds `block` bytes and outlives the synchronous copy; `buf` is at least
    // `block` bytes.
    let status = unsafe { sys::cuMemcpyHtoD_v2(buf.ptr, host.as_ptr().cast::<c_void>(), block) };
    check(status, "cuMemcpyHtoD_v2")?;
    let mut filled = block;
    while filled < bytes {
        let n = filled.min(bytes - filled);
        // SAFETY: [0, n) and [filled, filled + n) lie inside `buf` and do not overlap.
        let status =
            unsafe { sys::cuMemcpyDtoDAsync_v2(buf.ptr + filled as u64, buf.ptr, n, stream) };
        check(status, "cuMemcpyDtoDAsync_v2")?;
        filled += n;
    }
    // SAFETY: live stream.
    let status = unsafe { sys::cuStreamSynchronize(stream) };
    check(status, "cuStreamSynchronize")
}

/// Compares three windows (start, a random middle one, the end) of `a` and `b`.
fn verify_equal(
    a: &DeviceAlloc,
    b: &DeviceAlloc,
    bytes: usize,
    stream: CUstream,
) -> Result<(), BenchError> {
    // SAFETY: live stream.
    let status = unsafe { sys::cuStreamSynchronize(stream) };
    check(status, "cuStreamSynchronize")?;
    let win = bytes.min(MIB);
    let mut state = seed();
    let mid = (splitmix(&mut state) as usize % (bytes - win + 1)) & !7;
    for off in [0, mid, bytes - win] {
        let mut ha = vec![0u8; win];
        let mut hb = vec![1u8; win];
        // SAFETY: `ha`/`hb` hold `win` bytes; [off, off + win) lies inside both allocations.
        let status =
            unsafe { sys::cuMemcpyDtoH_v2(ha.as_mut_ptr().cast(), a.ptr + off as u64, win) };
        check(status, "cuMemcpyDtoH_v2")?;
        // SAFETY: as above.
        let status =
            unsafe { sys::cuMemcpyDtoH_v2(hb.as_mut_ptr().cast(), b.ptr + off as u64, win) };
        check(status, "cuMemcpyDtoH_v2")?;
        if ha != hb {
            return Err(format!("device copy produced wrong data at offset {off}").into());
        }
    }
    Ok(())
}

/// Device 0's primary context, pushed on this thread, and a non-blocking stream.
struct RawSession {
    dev: CUdevice,
    ctx: CUcontext,
    stream: CUstream,
}

impl RawSession {
    fn open() -> Result<Self, BenchError> {
        cuprite_driver::init()?;
        let mut dev: CUdevice = 0;
        // SAFETY: valid out-pointer; the driver is initialised.
        let status = unsafe { sys::cuDeviceGet(&mut dev, 0) };
        check(status, "cuDeviceGet")?;
        let mut ctx: CUcontext = std::ptr::null_mut();
        // SAFETY: valid out-pointer and device handle.
        let status = unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, dev) };
        check(status, "cuDevicePrimaryCtxRetain")?;
        // SAFETY: `ctx` is the retained primary context.
        let status = unsafe { sys::cuCtxPushCurrent_v2(ctx) };
        if let Err(e) = check(status, "cuCtxPushCurrent_v2") {
            // SAFETY: undo the retain above.
            let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(dev) };
            return Err(e);
        }
        let mut session = RawSession {
            dev,
            ctx,
            stream: std::ptr::null_mut(),
        };
        // SAFETY: valid out-pointer; the context is current.
        let status = unsafe {
            sys::cuStreamCreate(
                &mut session.stream,
                sys::CUstream_flags::CU_STREAM_NON_BLOCKING.0,
            )
        };
        check(status, "cuStreamCreate")?;
        Ok(session)
    }
}

impl Drop for RawSession {
    fn drop(&mut self) {
        // SAFETY: the stream (if created) belongs to the pushed context; destroying, popping
        // and releasing undo `open` in reverse. Failures leave nothing more to undo.
        unsafe {
            if !self.stream.is_null() {
                let _ = sys::cuStreamSynchronize(self.stream);
                let _ = sys::cuStreamDestroy_v2(self.stream);
            }
            let mut popped: CUcontext = std::ptr::null_mut();
            let _ = sys::cuCtxPopCurrent_v2(&mut popped);
            debug_assert!(popped.is_null() || popped == self.ctx);
            let _ = sys::cuDevicePrimaryCtxRelease_v2(self.dev);
        }
    }
}

/// A raw device allocation, freed on drop.
struct DeviceAlloc {
    ptr: CUdeviceptr,
}

impl DeviceAlloc {
    fn new(bytes: usize) -> Result<Self, BenchError> {
        let mut ptr: CUdeviceptr = 0;
        // SAFETY: valid out-pointer; a context is current.
        let status = unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) };
        check(status, "cuMemAlloc_v2")?;
        Ok(DeviceAlloc { ptr })
    }
}

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemAlloc_v2 and freed once (cuMemFree synchronises); a failure
        // means the context is gone, which freed it already.
        let _ = unsafe { sys::cuMemFree_v2(self.ptr) };
    }
}

fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x5EED, |d| d.as_nanos() as u64)
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
