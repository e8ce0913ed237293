//! `cuprite stress`: many threads on several streams at once, every value checked.
//!
//! Each worker thread loops until the time is up, each step on a stream picked at random
//! (the array stream or one of the extra streams; on the CPU backend, all CPU): element-wise
//! integer work and fused reductions, a custom NVRTC kernel reading array memory through a
//! tracked view and writing a buffer that becomes an array, hand-offs of an array made on one
//! stream to work on another, and arrays kept across steps (re-read later, while other threads
//! allocate and free) and dropped at random. All arithmetic is on integers, so every value read
//! back is compared exactly with its host reference.
//!
//! At the end: the count of errors and of wrong values must be 0, the array library's bytes and
//! buffers in use and locked back at their values before the run, and (CUDA) the memory pool's
//! bytes in use back at its baseline once the library's cache is trimmed. A watchdog thread
//! ends the process with exit status 3 when no step has finished for `watchdog` seconds (a
//! deadlock or a hung kernel).
//!
//! ```
//! use cuprite_cli::stress::{Config, run};
//! let cfg = Config { threads: 2, streams: 2, seconds: 0.2, cpu: true, watchdog: 60.0 };
//! let r = run(&cfg)?;
//! assert!(r.ok(), "{}", r.to_text());
//! # Ok::<(), String>(())
//! ```

use cuprite_array::{Array, Device, MemStats, mem_stats, with_device, with_stream};
use cuprite_driver::LaunchConfig;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A stress run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Worker threads.
    pub threads: usize,
    /// Streams (the array stream and `streams - 1` more) the workers pick from.
    pub streams: usize,
    /// Duration in seconds.
    pub seconds: f64,
    /// The CPU backend even where a GPU is present.
    pub cpu: bool,
    /// Seconds without a finished step after which the process exits with status 3.
    pub watchdog: f64,
}

/// What a stress run did and found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// `"cuda:0"` or `"cpu"`.
    pub device: String,
    /// Steps finished.
    pub steps: u64,
    /// Custom kernel launches.
    pub kernels: u64,
    /// Arrays made on one stream and used on another.
    pub handoffs: u64,
    /// Values compared with their reference.
    pub values_checked: u64,
    /// Calls that returned an error.
    pub errors: u64,
    /// Values that differed from their reference.
    pub wrong: u64,
    /// The first few errors and wrong values.
    pub samples: Vec<String>,
    /// Array statistics before the run and after it.
    pub mem_before: MemStats,
    /// See `mem_before`.
    pub mem_after: MemStats,
    /// Pool bytes in use before and after (CUDA).
    pub pool_used: Option<(u64, u64)>,
    /// Wall time.
    pub seconds: f64,
}

impl Report {
    /// No error, no wrong value, memory back at its baseline.
    pub fn ok(&self) -> bool {
        self.errors == 0
            && self.wrong == 0
            && self.mem_before.bytes_in_use == self.mem_after.bytes_in_use
            && self.mem_before.buffers_in_use == self.mem_after.buffers_in_use
            && self.mem_before.bytes_locked == self.mem_after.bytes_locked
            && self.pool_used.is_none_or(|(a, b)| a == b)
    }

    /// A summary.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for x in &self.samples {
            s.push_str(x);
            s.push('\n');
        }
        s.push_str(&format!(
            "device: {}  time: {:.1} s  steps: {}  custom kernels: {}  cross-stream hand-offs: {}\n\
             values checked: {}  errors: {}  wrong values: {}\n\
             array memory in use: {} B in {} buffers before, {} B in {} buffers after; locked {} B before, {} B after\n",
            self.device,
            self.seconds,
            self.steps,
            self.kernels,
            self.handoffs,
            self.values_checked,
            self.errors,
            self.wrong,
            self.mem_before.bytes_in_use,
            self.mem_before.buffers_in_use,
            self.mem_after.bytes_in_use,
            self.mem_after.buffers_in_use,
            self.mem_before.bytes_locked,
            self.mem_after.bytes_locked,
        ));
        if let Some((a, b)) = self.pool_used {
            s.push_str(&format!("pool bytes in use: {a} before, {b} after\n"));
        }
        s.push_str(if self.ok() { "PASS\n" } else { "FAIL\n" });
        s
    }
}

const KERNEL: &str = r#"
extern "C" __global__ void affine_i64(const long long* x, long long* y, long long k, long long c, unsigned long long n) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        y[i] = x[i] * k + c;
    }
}
"#;

struct Shared {
    steps: AtomicU64,
    kernels: AtomicU64,
    handoffs: AtomicU64,
    checked: AtomicU64,
    errors: AtomicU64,
    wrong: AtomicU64,
    samples: Mutex<Vec<String>>,
}

impl Shared {
    fn note(&self, what: String, wrong: bool) {
        if wrong {
            self.wrong.fetch_add(1, Ordering::Relaxed);
        } else {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
        if let Ok(mut s) = self.samples.lock()
            && s.len() < 10
        {
            s.push(what);
        }
    }
}

/// What a worker needs on CUDA.
struct Gpu {
    streams: Vec<Arc<cuprite_driver::Stream>>,
    func: cuprite_driver::Function,
}

/// A kept array and the values it must still hold.
struct Kept {
    a: Array<i64>,
    want: Vec<i64>,
}

fn data(r: &mut crate::fuzz::rng::Rng, n: usize) -> Vec<i64> {
    (0..n)
        .map(|_| match r.below(4) {
            0 => r.next_u64() as i64,
            _ => r.below(2001) as i64 - 1000,
        })
        .collect()
}

fn check(sh: &Shared, what: &str, got: &[i64], want: &[i64]) {
    sh.checked.fetch_add(want.len() as u64, Ordering::Relaxed);
    if got.len() != want.len() {
        sh.note(
            format!("{what}: {} values read, {} expected", got.len(), want.len()),
            true,
        );
        return;
    }
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        sh.note(
            format!("{what}: element {i} is {}, expected {}", got[i], want[i]),
            true,
        );
    }
}

/// Runs `f` on stream `k` of `gpu` (or the CPU).
fn on<R>(gpu: Option<&Gpu>, k: usize, f: impl FnOnce() -> R) -> R {
    match gpu {
        Some(g) => with_stream(&g.streams[k % g.streams.len()], f),
        None => with_device(Device::CPU, f),
    }
}

fn step(
    sh: &Shared,
    gpu: Option<&Gpu>,
    r: &mut crate::fuzz::rng::Rng,
    kept: &mut Vec<Kept>,
) -> cuprite_array::Result<()> {
    let ns = gpu.map_or(1, |g| g.streams.len()) as u64;
    let (s1, s2) = (r.below(ns) as usize, r.below(ns) as usize);
    let n = match r.below(4) {
        0 => r.below(8) as usize,
        1 => 1 + r.below(5000) as usize,
        _ => 1 + r.below(300_000) as usize,
    };
    let (k, c) = (r.below(7) as i64 - 3, r.below(1001) as i64 - 500);
    match r.below(6) {
        // Element-wise work and a fused reduction, read back on one stream.
        0 | 1 => {
            let x = data(r, n);
            let y = data(r, n);
            let (got, sum) = on(gpu, s1, || -> cuprite_array::Result<_> {
                let a = Array::from_slice(&x, &[n])?;
                let b = Array::from_slice(&y, &[n])?;
                let z = (&a * k + &b) ^ &(&a >> 3i64);
                let s = z.sum()?;
                Ok((z.to_vec()?, s.item()?))
            })?;
            let want: Vec<i64> = x
                .iter()
                .zip(&y)
                .map(|(&a, &b)| a.wrapping_mul(k).wrapping_add(b) ^ (a >> 3))
                .collect();
            check(sh, "element-wise", &got, &want);
            let ws = want.iter().fold(0i64, |s, &v| s.wrapping_add(v));
            check(sh, "fused sum", &[sum], &[ws]);
        }
        // An array made on one stream, used on another (and kept).
        2 => {
            let x = data(r, n);
            let a = on(gpu, s1, || -> cuprite_array::Result<_> {
                let a = Array::from_slice(&x, &[n])? * k + c;
                a.eval()?;
                Ok(a)
            })?;
            let b = on(gpu, s2, || -> cuprite_array::Result<_> {
                let b = &a - c;
                b.eval()?;
                Ok(b)
            })?;
            drop(a);
            sh.handoffs.fetch_add(1, Ordering::Relaxed);
            let want: Vec<i64> = x.iter().map(|&v| v.wrapping_mul(k)).collect();
            kept.push(Kept { a: b, want });
        }
        // A custom kernel on array memory, on another stream than the array's.
        3 if gpu.is_some() => {
            let g = gpu.expect("checked");
            let x = data(r, n);
            let a = on(gpu, s1, || -> cuprite_array::Result<_> {
                let a = Array::from_slice(&x, &[n])? + 1i64;
                a.eval()?;
                Ok(a)
            })?;
            let stream = &g.streams[s2 % g.streams.len()];
            let out = {
                let view = a.device_view()?;
                // SAFETY: the kernel writes all n elements before anything reads them.
                let mut out = unsafe { stream.alloc::<i64>(n) }?;
                if n > 0 {
                    let nn = n as u64;
                    let mut l = stream.launch_builder(&g.func);
                    l.arg(&view).arg(&mut out).arg(&k).arg(&c).arg(&nn);
                    // SAFETY: affine_i64 reads n i64 of `view` and writes n i64 of `out`.
                    unsafe { l.launch(LaunchConfig::for_num_elems(n.min(1 << 20) as u32)) }?;
                }
                out
            };
            sh.kernels.fetch_add(1, Ordering::Relaxed);
            drop(a);
            let b = Array::from_buffer(out, &[n])?;
            let got = on(gpu, s1, || (&b - c).to_vec())?;
            let want: Vec<i64> = x
                .iter()
                .map(|&v| v.wrapping_add(1).wrapping_mul(k))
                .collect();
            check(sh, "custom kernel", &got, &want);
        }
        // Re-read a kept array (others allocated and freed meanwhile), maybe drop it.
        _ => {
            if kept.is_empty() {
                return Ok(());
            }
            let i = r.below(kept.len() as u64) as usize;
            let got = on(gpu, s1, || kept[i].a.to_vec())?;
            check(sh, "kept array", &got, &kept[i].want);
            if r.chance(0.5) || kept.len() > 8 {
                kept.swap_remove(i);
            }
        }
    }
    Ok(())
}

/// Runs the stress test (see the module docs). `Err` only for setup failures (no device,
/// NVRTC missing); errors during the run are counted in the report.
pub fn run(cfg: &Config) -> Result<Report, String> {
    // CUDA devices, not the current backend's (the CPU backend counts one device).
    let use_gpu = !cfg.cpu && cuprite_driver::Device::count().unwrap_or(0) > 0;
    let dev = if use_gpu {
        Device::cuda(0)
    } else {
        Device::CPU
    };
    let gpu = if use_gpu {
        let s0 = cuprite_array::get_stream(0).map_err(|e| e.to_string())?;
        let ctx = s0.context().clone();
        let mut streams = vec![s0];
        for _ in 1..cfg.streams.max(1) {
            streams.push(ctx.new_stream().map_err(|e| e.to_string())?);
        }
        let ptx = cuprite_driver::nvrtc::compile_ptx(KERNEL).map_err(|e| e.to_string())?;
        let m = ctx.load_module(ptx).map_err(|e| e.to_string())?;
        let func = m.load_function("affine_i64").map_err(|e| e.to_string())?;
        Some(Gpu { streams, func })
    } else {
        None
    };
    let settle = || -> Result<Option<u64>, String> {
        cuprite_array::sync(dev).map_err(|e| e.to_string())?;
        if let Some(g) = &gpu {
            for s in &g.streams {
                s.synchronize().map_err(|e| e.to_string())?;
            }
            cuprite_array::device_gc(dev).map_err(|e| e.to_string())?;
            let ctx = g.streams[0].context();
            ctx.synchronize().map_err(|e| e.to_string())?;
            Ok(Some(ctx.pool_stats().map_err(|e| e.to_string())?.used))
        } else {
            Ok(None)
        }
    };
    let pool0 = settle()?;
    let mem_before = mem_stats(dev);
    let sh = Shared {
        steps: AtomicU64::new(0),
        kernels: AtomicU64::new(0),
        handoffs: AtomicU64::new(0),
        checked: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        wrong: AtomicU64::new(0),
        samples: Mutex::new(Vec::new()),
    };
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(cfg.seconds.max(0.0));
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (sh, gpu, done) = (&sh, gpu.as_ref(), &done);
        let watchdog = cfg.watchdog;
        scope.spawn(move || {
            let mut last = (sh.steps.load(Ordering::Relaxed), Instant::now());
            while !done.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(100));
                let now = sh.steps.load(Ordering::Relaxed);
                if now != last.0 {
                    last = (now, Instant::now());
                } else if last.1.elapsed().as_secs_f64() > watchdog {
                    eprintln!(
                        "cuprite stress: no step finished for {watchdog} s after {now} steps: \
                         stalled (deadlock or hung kernel); exiting with status 3"
                    );
                    std::process::exit(3);
                }
            }
        });
        let workers: Vec<_> = (0..cfg.threads.max(1))
            .map(|t| {
                scope.spawn(move || {
                    let mut r = crate::fuzz::rng::Rng::new(0x5eed ^ (t as u64) << 32);
                    let mut kept = Vec::new();
                    while Instant::now() < end {
                        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            step(sh, gpu, &mut r, &mut kept)
                        }));
                        match res {
                            Ok(Ok(())) => {}
                            Ok(Err(e)) => sh.note(format!("thread {t}: {e}"), false),
                            Err(_) => sh.note(format!("thread {t}: a step panicked"), false),
                        }
                        sh.steps.fetch_add(1, Ordering::Relaxed);
                    }
                    for k in &kept {
                        let got = on(gpu, 0, || k.a.to_vec());
                        match got {
                            Ok(v) => check(sh, "kept array at the end", &v, &k.want),
                            Err(e) => sh.note(format!("thread {t}: {e}"), false),
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            if w.join().is_err() {
                sh.note("a worker thread panicked".into(), false);
            }
        }
        done.store(true, Ordering::Release);
    });
    let seconds = start.elapsed().as_secs_f64();
    let pool1 = settle()?;
    let mem_after = mem_stats(dev);
    let samples = sh.samples.lock().map(|s| s.clone()).unwrap_or_default();
    Ok(Report {
        device: if use_gpu {
            "cuda:0".into()
        } else {
            "cpu".into()
        },
        steps: sh.steps.load(Ordering::Relaxed),
        kernels: sh.kernels.load(Ordering::Relaxed),
        handoffs: sh.handoffs.load(Ordering::Relaxed),
        values_checked: sh.checked.load(Ordering::Relaxed),
        errors: sh.errors.load(Ordering::Relaxed),
        wrong: sh.wrong.load(Ordering::Relaxed),
        samples,
        mem_before,
        mem_after,
        pool_used: pool0.zip(pool1),
        seconds,
    })
}
