//! [`BenchCtx`]: the settings and shared state of one run, the timing helpers every benchmark
//! uses, and the CUDA events they time with.

use super::figure::{Ceiling, Samples};
use cuprite_sys::driver::{self as sys, CUevent, CUstream};
use indicatif::ProgressBar;
use std::collections::HashMap;
use std::time::Instant;

/// The error a benchmark returns: anything, so `?` works on every error type.
pub type BenchError = Box<dyn std::error::Error + Send + Sync>;

/// Settings and shared state of one `cuprite bench` run, handed to every benchmark.
pub struct BenchCtx {
    /// Untimed runs before sampling.
    pub warmup: usize,
    /// Timed samples per figure.
    pub repeats: usize,
    /// Smaller sizes and fewer repeats (for tests and smoke runs).
    pub quick: bool,
    pub(super) progress: ProgressBar,
    pub(super) ceilings: HashMap<&'static str, Result<Ceiling, String>>,
}

impl std::fmt::Debug for BenchCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchCtx")
            .field("warmup", &self.warmup)
            .field("repeats", &self.repeats)
            .field("quick", &self.quick)
            .finish()
    }
}

impl BenchCtx {
    /// A context with these settings, with no progress display.
    pub fn new(warmup: usize, repeats: usize, quick: bool) -> Self {
        BenchCtx {
            warmup,
            repeats: repeats.max(1),
            quick,
            progress: ProgressBar::hidden(),
            ceilings: HashMap::new(),
        }
    }

    /// `full`, or `quick` in quick mode: for problem sizes. In quick mode the size is divided
    /// by `CUPRITE_BENCH_QUICK_DIVISOR` when that is set (at least 1 is left): the smoke test
    /// sets it under compute-sanitizer, where every kernel is instrumented.
    pub fn size(&self, full: usize, quick: usize) -> usize {
        if self.quick {
            (quick / quick_divisor()).max(1)
        } else {
            full
        }
    }

    /// Shows what is being measured now, beside the progress bar.
    pub fn status(&self, msg: impl Into<String>) {
        self.progress.set_message(msg.into());
    }

    /// Times `f` on the host: `warmup` untimed calls, then `repeats` samples.
    pub fn time_host(&self, mut f: impl FnMut()) -> Samples {
        for _ in 0..self.warmup {
            f();
        }
        Samples(
            (0..self.repeats)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        )
    }

    /// Host time per call of `f`, for calls too cheap to time one by one: each sample runs `f`
    /// `iters` times (passing the index) and divides. Warm-up is `warmup × iters` calls.
    pub fn time_host_per_call(&self, iters: usize, mut f: impl FnMut(usize)) -> Samples {
        let iters = iters.max(1);
        for i in 0..self.warmup * iters {
            f(i);
        }
        Samples(
            (0..self.repeats)
                .map(|_| {
                    let t = Instant::now();
                    for i in 0..iters {
                        f(i);
                    }
                    t.elapsed().as_secs_f64() / iters as f64
                })
                .collect(),
        )
    }

    /// Like [`time_host_per_call`](Self::time_host_per_call) for fallible work: the first
    /// error stops the measurement and is returned.
    pub fn try_time_host_per_call<E: Into<BenchError>>(
        &self,
        iters: usize,
        mut f: impl FnMut(usize) -> Result<(), E>,
    ) -> Result<Samples, BenchError> {
        let iters = iters.max(1);
        for i in 0..self.warmup * iters {
            f(i).map_err(Into::into)?;
        }
        let mut out = Vec::with_capacity(self.repeats);
        for _ in 0..self.repeats {
            let t = Instant::now();
            for i in 0..iters {
                f(i).map_err(Into::into)?;
            }
            out.push(t.elapsed().as_secs_f64() / iters as f64);
        }
        Ok(Samples(out))
    }

    /// Times device work with CUDA events on `stream` (a context must be current on this
    /// thread, as any cuprite call leaves it): `warmup` untimed runs, then `repeats` samples,
    /// each the event time between just before and just after what `enqueue` puts on the
    /// stream. `enqueue` must only enqueue (asynchronous calls on `stream`).
    ///
    /// # Safety
    ///
    /// `stream` must be a live stream of the context current on this thread (e.g.
    /// `cuprite_driver::Stream::raw()` of a stream that outlives the call), or null for the legacy
    /// default stream.
    pub unsafe fn time_device<E: Into<BenchError>>(
        &self,
        stream: CUstream,
        mut enqueue: impl FnMut() -> Result<(), E>,
    ) -> Result<Samples, BenchError> {
        let start = Event::new()?;
        let end = Event::new()?;
        for _ in 0..self.warmup {
            enqueue().map_err(Into::into)?;
        }
        // Steady state: the optimised builds of kernels the warm-up met for the first time
        // replace their quick first builds (waiting returns at once when nothing is being
        // built), then one more round runs them.
        if self.warmup > 0 {
            cuprite_array::tuning::wait_tier_up();
            enqueue().map_err(Into::into)?;
        }
        // SAFETY: `stream` is a live stream of the current context (this method's contract).
        let status = unsafe { sys::cuStreamSynchronize(stream) };
        check(status, "cuStreamSynchronize")?;
        let mut out = Vec::with_capacity(self.repeats);
        for _ in 0..self.repeats {
            start.record(stream)?;
            enqueue().map_err(Into::into)?;
            end.record(stream)?;
            end.synchronize()?;
            out.push(end.elapsed_since(&start)?);
        }
        Ok(Samples(out))
    }

    /// The device-to-device copy bandwidth of device 0 in TB/s (bytes read plus bytes written),
    /// measured once per run on first request and shared by every benchmark that compares with
    /// it. See [`super::ceiling::device_copy_figure`].
    pub fn device_copy_ceiling(&mut self) -> Result<Ceiling, BenchError> {
        self.ceiling_once("device copy", |ctx| {
            let (fig, _) = super::ceiling::device_copy_figure(ctx)?;
            Ok(Ceiling {
                name: "device copy bandwidth (reference)".into(),
                value: fig.median,
            })
        })
    }

    /// The host memcpy bandwidth in GB/s (all threads; read plus write), measured once per run.
    pub fn host_copy_ceiling(&mut self) -> Result<Ceiling, BenchError> {
        self.ceiling_once("host copy", |ctx| {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let fig = super::ceiling::host_copy_figure(ctx, threads)?;
            Ok(Ceiling {
                name: format!("host memcpy bandwidth ({threads} threads)"),
                value: fig.median,
            })
        })
    }

    /// A ceiling computed once per run under `key` (the first caller pays for it; later callers
    /// and later benchmarks get the same value, so every ratio uses the same reference).
    pub fn ceiling_once(
        &mut self,
        key: &'static str,
        measure: impl FnOnce(&mut BenchCtx) -> Result<Ceiling, BenchError>,
    ) -> Result<Ceiling, BenchError> {
        if let Some(c) = self.ceilings.get(key) {
            return c.clone().map_err(Into::into);
        }
        let c = measure(self).map_err(|e| e.to_string());
        self.ceilings.insert(key, c.clone());
        c.map_err(Into::into)
    }
}

/// Rates measured by the ceiling benchmarks are also recorded as ceilings, so a later benchmark
/// in the same run reuses them instead of measuring again.
pub(crate) fn remember(ctx: &mut BenchCtx, key: &'static str, c: Ceiling) {
    ctx.ceilings.entry(key).or_insert(Ok(c));
}

/// A CUDA event with timing, destroyed on drop (raw driver calls: the harness must not depend on
/// the safe layer it measures).
struct Event(CUevent);

impl Event {
    fn new() -> Result<Self, BenchError> {
        let mut e: CUevent = std::ptr::null_mut();
        // SAFETY: `e` is a valid out-pointer; a context is current (caller's contract).
        let status = unsafe { sys::cuEventCreate(&mut e, sys::CUevent_flags::CU_EVENT_DEFAULT.0) };
        check(status, "cuEventCreate")?;
        Ok(Event(e))
    }
    fn record(&self, stream: CUstream) -> Result<(), BenchError> {
        // SAFETY: live event and stream of the current context.
        let status = unsafe { sys::cuEventRecord(self.0, stream) };
        check(status, "cuEventRecord")
    }
    fn synchronize(&self) -> Result<(), BenchError> {
        // SAFETY: live, recorded event.
        let status = unsafe { sys::cuEventSynchronize(self.0) };
        check(status, "cuEventSynchronize")
    }
    /// Seconds from `start` to this event (both recorded and complete).
    fn elapsed_since(&self, start: &Event) -> Result<f64, BenchError> {
        let mut ms = 0f32;
        // SAFETY: both events are live and completed; `ms` is a valid out-pointer.
        let status = unsafe { sys::cuEventElapsedTime(&mut ms, start.0, self.0) };
        check(status, "cuEventElapsedTime")?;
        Ok(f64::from(ms) / 1e3)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: the event was created by cuEventCreate and is destroyed once; a failure here
        // can only mean the context is already gone, which leaves nothing to free.
        let _ = unsafe { sys::cuEventDestroy_v2(self.0) };
    }
}

/// Turns a raw driver result into a benchmark error naming the call.
pub fn check(
    r: Result<sys::CUresult, cuprite_sys::LoadError>,
    call: &'static str,
) -> Result<(), BenchError> {
    cuprite_driver::error::check(r, call).map_err(Into::into)
}

/// `CUPRITE_BENCH_QUICK_DIVISOR` (a positive integer; 1 when unset or not one), read once.
fn quick_divisor() -> usize {
    static DIV: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *DIV.get_or_init(|| {
        std::env::var("CUPRITE_BENCH_QUICK_DIVISOR")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&d| d > 0)
            .unwrap_or(1)
    })
}
