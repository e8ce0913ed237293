//! Array-library benchmarks: the fused 8-op element-wise chain, sums and the fused
//! dot product against the device copy bandwidth of the same run, the host time of one small
//! operation, first-use compile time and warm disk-cache load time, and the CPU backend's fused
//! chain against a hand-written rayon loop. The PyTorch peer figures come from
//! `benches/peers/torch_array.py`, run in the same call on the same GPU, and are judged by
//! `cuprite bench --peers` (see [`super::report::PEER_RULES`]).
//!
//! Device figures time K back-to-back calls between one pair of events
//! ([`super::curves::per_call`]), as the peer script does, so neither side's dispatch cost sits
//! inside the timed window.

use super::curves::{CHART_HOST, per_call};
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::{Array, Device, tuning, with_device};
use std::time::Instant;

/// The array benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "array/fused_chain",
            group: "array",
            needs_gpu: true,
            run: fused_chain,
        },
        Benchmark {
            name: "array/sum",
            group: "array",
            needs_gpu: true,
            run: sum,
        },
        Benchmark {
            name: "array/small_op_host",
            group: "array",
            needs_gpu: true,
            run: small_op_host,
        },
        Benchmark {
            name: "array/jit_first_use",
            group: "array",
            needs_gpu: true,
            run: jit_first_use,
        },
        Benchmark {
            name: "array/jit_first_reduction",
            group: "array",
            needs_gpu: true,
            run: jit_first_reduction,
        },
        Benchmark {
            name: "array/cpu_fused_chain",
            group: "array",
            needs_gpu: false,
            run: cpu_fused_chain,
        },
    ]
}

/// Back-to-back calls per event pair for the device figures.
const CALLS: usize = 10;

fn gpu() -> Device {
    Device::cuda(0)
}

fn rand(n: usize, seed: u64) -> Result<Array<f32>, BenchError> {
    Ok(Array::<f32>::rand_uniform(&[n], seed)?)
}

/// The benchmarked chain: 8 operations, 4 inputs, 1 output.
fn chain(a: &Array<f32>, b: &Array<f32>, c: &Array<f32>, d: &Array<f32>) -> Array<f32> {
    (a * b + c).sin() * d.exp() - a / 2.0
}

/// The GPU's architecture as NVRTC names it (`90` for sm_90).
fn arch() -> Result<u32, BenchError> {
    let (maj, min) = cuprite_array::get_stream(0)?
        .context()
        .device()
        .compute_capability()
        .map_err(|e| BenchError::from(e.to_string()))?;
    Ok(maj * 10 + min)
}

fn stream_raw() -> Result<cuprite_sys::driver::CUstream, BenchError> {
    Ok(cuprite_array::get_stream(0)?.raw())
}

fn fused_chain(ctx: &mut BenchCtx) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let n = ctx.size(1 << 26, 1 << 20);
    with_device(gpu(), || {
        let (a, b, c, d) = (rand(n, 1)?, rand(n, 2)?, rand(n, 3)?, rand(n, 4)?);
        // Steady state: the optimised kernel, not the quick first build.
        chain(&a, &b, &c, &d).eval()?;
        cuprite_array::tuning::wait_tier_up();
        let stream = stream_raw()?;
        // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
        // context is current after the arrays above were made.
        let s = unsafe {
            per_call(ctx, stream, CALLS, || -> Result<(), BenchError> {
                let r = chain(&a, &b, &c, &d);
                r.eval()?;
                Ok(())
            })
        }?;
        let bytes = 5.0 * 4.0 * n as f64;
        let fig = Figure::rate(
            format!("fused 8-op chain ((a*b + c).sin() * d.exp() - a/2) over {n} f32, one kernel, 4 inputs + 1 output"),
            "TB/s",
            bytes / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_target(Target::RatioAtLeast(0.85))
        .with_note(format!(
            "{CALLS} calls per event pair; peers: benches/peers/torch_array.py (torch eager, torch.compile), judged by --peers"
        ));
        Ok(vec![fig])
    })
}

fn sum(ctx: &mut BenchCtx) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let n = ctx.size(1 << 28, 1 << 20);
    let m = ctx.size(1 << 26, 1 << 20);
    with_device(gpu(), || {
        let a = rand(n, 5)?;
        a.sum()?;
        cuprite_array::tuning::wait_tier_up();
        let stream = stream_raw()?;
        // SAFETY: as in `fused_chain`.
        let s = unsafe {
            per_call(ctx, stream, CALLS, || -> Result<(), BenchError> {
                a.sum()?;
                Ok(())
            })
        }?;
        let f1 = Figure::rate(
            format!("sum of {n} f32 (reads)"),
            "TB/s",
            4.0 * n as f64 / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_note("peer: torch.sum in benches/peers/torch_array.py");
        drop(a);
        let (x, y) = (rand(m, 6)?, rand(m, 7)?);
        (&x * &y).sum()?;
        cuprite_array::tuning::wait_tier_up();
        // SAFETY: as above.
        let s = unsafe {
            per_call(ctx, stream, CALLS, || -> Result<(), BenchError> {
                (&x * &y).sum()?;
                Ok(())
            })
        }?;
        let f2 = Figure::rate(
            format!("fused sum(a*b) over {m} f32 (reads)"),
            "TB/s",
            8.0 * m as f64 / 1e12,
            &s,
        )
        .against(&ceiling)
        .with_note("peer: torch.dot in benches/peers/torch_array.py");
        Ok(vec![f1, f2])
    })
}

/// A kernel with the parameters of the array library's `a + 1` kernel (input, offset,
/// output, length, extent, constant), for the raw-launch companion of `small_op_host`.
const RAW_KERNEL: &str = r#"
extern "C" __global__ void add_const(const float* a, long long o, float* b,
                                     unsigned long long n, unsigned long long s,
                                     unsigned long long k) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (long long)n) b[i] = a[o + i] + __uint_as_float((unsigned)k);
}
"#;

/// `cuLaunchKernel` of `f` over `grid` blocks of 256 threads on `stream`, no dynamic shared
/// memory, parameters `params`.
///
/// # Safety
/// `f` is a loaded kernel of the context current on this thread, `stream` a live stream of it,
/// and `params` points at `f`'s parameters, whose addresses stay valid until the kernel has run.
unsafe fn raw_launch(
    f: cuprite_sys::driver::CUfunction,
    grid: u32,
    stream: cuprite_sys::driver::CUstream,
    params: &mut [*mut std::ffi::c_void],
) -> Result<(), BenchError> {
    // SAFETY: the caller's guarantees are cuLaunchKernel's preconditions.
    let r = unsafe {
        cuprite_sys::driver::cuLaunchKernel(
            f,
            grid,
            1,
            1,
            256,
            1,
            1,
            0,
            stream,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    match r {
        Ok(c) if c.is_success() => Ok(()),
        Ok(c) => Err(format!("cuLaunchKernel failed: {c:?}").into()),
        Err(e) => Err(e.into()),
    }
}

fn small_op_host(ctx: &mut BenchCtx) -> BenchResult {
    use std::ffi::c_void;
    with_device(gpu(), || {
        let n = 1000usize;
        let a = rand(n, 8)?;
        (&a + 1.0).eval()?;
        cuprite_array::tuning::wait_tier_up();
        // The raw companion: the same parameters through cuLaunchKernel on the array stream,
        // its kernel built as the array's are (NVRTC to a CUBIN with the array's options): the
        // driver launches a kernel of a PTX module measurably faster than one of a CUBIN
        // (docs/perf-log/tuning-notes.md), which is no part of the array layer's cost.
        let stream = cuprite_array::get_stream(0)?;
        let (major, minor) = stream
            .context()
            .device()
            .compute_capability()
            .map_err(to_err)?;
        let opts = cuprite_array::tuning::compiler::compile_options(major * 10 + minor, true);
        let module = stream
            .context()
            .load_module(cuprite_driver::nvrtc::compile(RAW_KERNEL, &opts).map_err(to_err)?)
            .map_err(to_err)?;
        let func = module.load_function("add_const").map_err(to_err)?;
        let f = func.raw();
        let x = stream.clone_htod(&a.to_vec()?).map_err(to_err)?;
        // SAFETY: fully written by the kernel before it is read (it is never read).
        let y = unsafe { stream.alloc::<f32>(n) }.map_err(to_err)?;
        let words: [u64; 6] = [
            cuprite_driver::DeviceRead::device_ptr(&x),
            0,
            cuprite_driver::DeviceRead::device_ptr(&y),
            n as u64,
            n as u64,
            1.0f32.to_bits() as u64,
        ];
        let raw_stream = stream.raw();
        let mut raw = || -> Result<(), BenchError> {
            let mut params: [*mut c_void; 6] =
                std::array::from_fn(|i| &words[i] as *const u64 as *mut c_void);
            // SAFETY: a loaded kernel of the array context (current on this thread after the
            // array calls above); six 8-byte parameters pointing into `words`, alive for the
            // call; `x` and `y` outlive the launches (synchronised below before they drop).
            unsafe { raw_launch(f, 1, raw_stream, &mut params) }
        };
        let mut ours = || -> Result<(), BenchError> {
            let r = &a + 1.0;
            r.eval()?;
            Ok(())
        };
        // Two parts of `ours`, for the breakdown: the lazy node alone (made and dropped), and
        // the safe driver layer's packed launch of the raw kernel (checks, access tracking).
        let node_only = || {
            let r = &a + 1.0;
            drop(std::hint::black_box(r));
        };
        let mut safe = || -> Result<(), BenchError> {
            let acc = [
                cuprite_driver::Access::read(&x),
                cuprite_driver::Access::write(&y),
            ];
            // SAFETY: as for `raw`: the words are the kernel's six parameters, the two
            // addresses among them are `x` and `y`, declared in `acc`.
            unsafe { stream.launch_packed(&func, (1, 1, 1), (256, 1, 1), 0, &words, &acc) }
                .map_err(to_err)
        };
        // Samples interleaved (raw, ours, raw, ...): drift of the host affects both alike.
        let iters = 200;
        // Host seconds per call of `f` over `iters` calls, after the GPU caught up.
        let per_call = |f: &mut dyn FnMut() -> Result<(), BenchError>| {
            cuprite_array::sync(gpu())?;
            let t = Instant::now();
            for _ in 0..iters {
                f()?;
            }
            Ok::<f64, BenchError>(t.elapsed().as_secs_f64() / iters as f64)
        };
        let mut node_only = || {
            node_only();
            Ok(())
        };
        // The array's own kernel and parameter words for `a + 1`, launched alone (raw and
        // through the safe layer): tells the driver's cost of that kernel from the array
        // layer's. `kept` owns the output buffer the words address.
        #[cfg(feature = "host-profile")]
        let kept = &a + 1.0;
        #[cfg(feature = "host-profile")]
        let (own_f, own_words, own_grid) = {
            kept.eval()?;
            cuprite_array::stats::last_launch().ok_or("no element-wise launch noted")?
        };
        #[cfg(feature = "host-profile")]
        let mut own_raw = || -> Result<(), BenchError> {
            let mut params: Vec<*mut c_void> = own_words
                .iter()
                .map(|w| w as *const u64 as *mut c_void)
                .collect();
            // SAFETY: the array's kernel for `a + 1` (array context, current here) with the
            // parameter words of its last launch: they address `a`'s and `kept`'s buffers,
            // both alive until after the synchronisation below.
            unsafe { raw_launch(own_f.raw(), own_grid, raw_stream, &mut params) }
        };
        #[cfg(feature = "host-profile")]
        let mut own_safe = || -> Result<(), BenchError> {
            // SAFETY: as for `own_raw`; both buffers are used on this stream only.
            unsafe {
                stream.launch_packed(&own_f, (own_grid, 1, 1), (256, 1, 1), 0, &own_words, &[])
            }
            .map_err(to_err)
        };
        #[cfg(feature = "host-profile")]
        let (mut own_raw_s, mut own_safe_s) = (Vec::new(), Vec::new());
        let (mut raw_s, mut our_s) = (Vec::new(), Vec::new());
        let (mut node_s, mut safe_s) = (Vec::new(), Vec::new());
        #[cfg(feature = "host-profile")]
        let mut phases = Vec::new();
        for round in 0..ctx.warmup + ctx.repeats {
            let r = per_call(&mut raw)?;
            #[cfg(feature = "host-profile")]
            let _ = cuprite_array::stats::take_host_phases();
            let o = per_call(&mut ours)?;
            #[cfg(feature = "host-profile")]
            if round >= ctx.warmup {
                phases.push(cuprite_array::stats::take_host_phases());
            }
            let nd = per_call(&mut node_only)?;
            let sf = per_call(&mut safe)?;
            #[cfg(feature = "host-profile")]
            if round >= ctx.warmup {
                own_raw_s.push(per_call(&mut own_raw)?);
                own_safe_s.push(per_call(&mut own_safe)?);
            }
            if round >= ctx.warmup {
                raw_s.push(r);
                our_s.push(o);
                node_s.push(nd);
                safe_s.push(sf);
            }
        }
        cuprite_array::sync(gpu())?;
        let (raw_s, our_s) = (Samples(raw_s), Samples(our_s));
        let (node_s, safe_s) = (Samples(node_s), Samples(safe_s));
        let raw_us = raw_s.median() * 1e6;
        #[allow(unused_mut)]
        let mut figures = vec![
            // Per call: node creation for `&a + 1.0`, the lookup of its form among the
            // thread's noted small forms (no linearisation once warm), the output storage (the
            // thread's parked one: the previous result's, buffer and all), the launch, and the
            // drop of the result (its storage parked for the next call); 200 calls per sample,
            // host wall time, nothing waits for the GPU.
            Figure::time(
                "host time of one small op (a + 1 over 1000 f32, warm kernel cache), call to enqueued (node, noted-form lookup, buffer, launch; 200 calls per sample)",
                &our_s,
                TimeUnit::Us,
            )
            .with_ceiling("raw cuLaunchKernel, same parameters (interleaved)", raw_us)
            .with_target(Target::RatioAtMost(1.25))
            .with_note("host row; PyTorch eager (Python dispatch): benches/peers/torch_array.py, judged by --peers")
            .plot_samples(CHART_HOST, "array small op a + 1 (array stream)", &our_s, 1e6),
            Figure::time(
                "raw cuLaunchKernel of a kernel with the same 6 parameters on the array stream (interleaved)",
                &raw_s,
                TimeUnit::Us,
            )
            .with_note("host row")
            .plot_samples(CHART_HOST, "raw cuLaunchKernel (array stream)", &raw_s, 1e6),
            Figure::time(
                "part of the small op: the lazy node `&a + 1.0` made and dropped, no evaluation",
                &node_s,
                TimeUnit::Us,
            )
            .with_note("host row; breakdown"),
            Figure::time(
                "part of the small op: the safe layer's packed launch (checks, access tracking) of the raw kernel",
                &safe_s,
                TimeUnit::Us,
            )
            .with_ceiling("raw cuLaunchKernel, same parameters (interleaved)", raw_us)
            .with_note("host row; breakdown"),
        ];
        #[cfg(feature = "host-profile")]
        {
            // Per evaluation, each phase's share of the timed small ops (the clock reads add to
            // the whole: these figures come from a build for tuning, not for reporting).
            type Pick = fn(&cuprite_array::stats::HostPhases) -> u64;
            let parts: [(&str, Pick); 5] = [
                (
                    "realise's checks, the program build or the small form read",
                    |p| p.build_ns,
                ),
                ("device state, stream, output buffer", |p| p.buffer_ns),
                ("kernel or noted-form lookup", |p| p.lookup_ns),
                ("parameters and launch", |p| p.launch_ns),
                ("result storage, node to leaf", |p| p.finish_ns),
            ];
            for (what, s) in [
                ("the array's own kernel, raw cuLaunchKernel", own_raw_s),
                ("the array's own kernel, safe launch_packed", own_safe_s),
            ] {
                figures.push(
                    Figure::time(
                        format!("part of the small op: {what}"),
                        &Samples(s),
                        TimeUnit::Us,
                    )
                    .with_note("host row; breakdown"),
                );
            }
            for (what, pick) in parts {
                let per: Vec<f64> = phases
                    .iter()
                    .map(|p| pick(p) as f64 * 1e-9 / p.evaluations.max(1) as f64)
                    .collect();
                figures.push(
                    Figure::time(
                        format!("phase of the small op (host-profile build): {what}"),
                        &Samples(per),
                        TimeUnit::Us,
                    )
                    .with_note("host row; breakdown"),
                );
            }
        }
        Ok(figures)
    })
}

fn to_err(e: cuprite_driver::Error) -> BenchError {
    Box::new(e)
}

/// The expression of sample `k` of the first-use benchmarks: a chain of `3 + k` steps (so its
/// length, and the NVRTC work, grow with `k`), each step one of five operations chosen from
/// `(salt, k, step)`. A new salt per process makes every sample's kernel source new to the
/// machine: NVRTC and the driver keep a cache of their own (`~/.nv/ComputeCache`, off with
/// `CUDA_CACHE_DISABLE=1`) that serves a source built by an earlier process in a few
/// milliseconds, which a fixed expression would measure instead of a first use.
fn first_use_expr(a: &Array<f32>, k: usize, salt: u64) -> Array<f32> {
    let mut x = a.clone();
    for i in 0..(3 + k) {
        let mut h = salt ^ ((k as u64) << 32 | i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 32;
        x = match h % 5 {
            0 => x.sin(),
            1 => &x * 1.5,
            2 => x.exp(),
            3 => x.cos(),
            _ => &x + 0.25,
        };
    }
    x
}

/// A salt for [`first_use_expr`] unique to this run: the clock and the process id.
fn fresh_salt() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ (std::process::id() as u64).rotate_left(40)
}

/// Environment variable that turns `cuprite` into the child process of the warm disk-cache
/// measurement (`<cache dir>|<k>`): see [`warm_child`].
pub const WARM_CHILD_ENV: &str = "CUPRITE_BENCH_ARRAY_WARM_CHILD";

/// In a child process started by `array/jit_first_use` (when [`WARM_CHILD_ENV`] is set):
/// makes the device ready (context, an input array), then times the first use in this process
/// of expression `k`, whose kernel the parent left in the disk cache: read + load + launch +
/// synchronise. Prints the milliseconds on stdout. `None` when not a child.
pub fn warm_child() -> Option<Result<f64, BenchError>> {
    if let Ok(k) = std::env::var(COLD_CHILD_ENV) {
        return Some(cold_child(&k));
    }
    if let Ok(spec) = std::env::var(REDUCTION_CHILD_ENV) {
        return Some(reduction_child(&spec));
    }
    let spec = std::env::var(WARM_CHILD_ENV).ok()?;
    let (rest, salt) = spec.rsplit_once('|')?;
    let (dir, k) = rest.rsplit_once('|')?;
    let k: usize = k.parse().ok()?;
    let salt: u64 = salt.parse().ok()?;
    tuning::set_cache_dir(Some(dir.into()));
    Some(with_device(gpu(), || {
        let a = rand(1 << 16, 9)?;
        a.eval()?;
        cuprite_array::sync(gpu())?;
        // Builds the preparation started in the background (none when the cache serves it
        // all) are not the timed expression's.
        cuprite_array::tuning::wait_tier_up();
        let before = cuprite_array::stats::compiles();
        let t = Instant::now();
        first_use_expr(&a, k, salt).eval()?;
        cuprite_array::sync(gpu())?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let built = cuprite_array::stats::compiles() - before;
        if built != 0 {
            return Err(BenchError::from(format!(
                "the warm-cache child compiled {built} kernel(s) for expression {k}: the disk cache in {dir} was not used"
            )));
        }
        Ok(ms)
    }))
}

/// Environment variable that turns `cuprite` into the child process of the cold first-use
/// measurement (the value: which expression); its `CUPRITE_CACHE_DIR` is a new, empty folder.
pub const COLD_CHILD_ENV: &str = "CUPRITE_BENCH_ARRAY_COLD_CHILD";

/// In a child started by `array/jit_first_use` with [`COLD_CHILD_ENV`]: a fresh process with
/// an empty kernel cache (no kernel, no math library on disk, NVRTC not yet used). Makes the
/// device ready (context, an input array: the array library's own first kernels compile here,
/// untimed), then times the first use of expression `k`: everything a user's first new
/// expression costs in a new process. Prints the milliseconds.
fn cold_child(k: &str) -> Result<f64, BenchError> {
    let k: usize = k
        .parse()
        .map_err(|_| BenchError::from(format!("{COLD_CHILD_ENV}={k:?} is not a number")))?;
    with_device(gpu(), || {
        let a = Array::<f32>::from_slice(&vec![0.25f32; 1 << 16], &[1 << 16])?;
        a.eval()?;
        cuprite_array::sync(gpu())?;
        let t = Instant::now();
        first_use_expr(&a, k, fresh_salt()).eval()?;
        cuprite_array::sync(gpu())?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    })
}

/// Environment variable that turns `cuprite` into the child process of the new-process
/// first-reduction measurement (`<k>|<salt>`): see [`reduction_child`].
const REDUCTION_CHILD_ENV: &str = "CUPRITE_BENCH_ARRAY_REDUCTION_CHILD";

/// In a child started by `array/jit_first_reduction` with [`REDUCTION_CHILD_ENV`]: a new
/// process with the machine's own disk cache, as a user's next program meets it. Makes the
/// device ready (context, an input array: no kernel), then times the first use of a new fused
/// reduction, the process's first new kernel: codegen, the interpreter read from the disk
/// cache and loaded (or a quick build when it is not there yet), launch, combine, sync.
/// Prints the milliseconds.
fn reduction_child(spec: &str) -> Result<f64, BenchError> {
    let bad = || BenchError::from(format!("{REDUCTION_CHILD_ENV}={spec:?} is not <k>|<salt>"));
    let (k, salt) = spec.split_once('|').ok_or_else(bad)?;
    let k: usize = k.parse().map_err(|_| bad())?;
    let salt: u64 = salt.parse().map_err(|_| bad())?;
    with_device(gpu(), || {
        let a = Array::<f32>::from_slice(&vec![0.25f32; 1 << 20], &[1 << 20])?;
        a.eval()?;
        cuprite_array::sync(gpu())?;
        let t = Instant::now();
        let s = first_use_expr(&a, k, salt).sum()?;
        s.eval()?;
        let enqueued = t.elapsed();
        cuprite_array::sync(gpu())?;
        let ran = t.elapsed();
        s.item()?;
        let all = t.elapsed();
        // The phases, for the parent's note: enqueueing (kernel lookups, the interpreter's
        // load, launches), the wait for the device, the copy of the result.
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "{PHASES_TAG} {:.3} {:.3} {:.3}",
            ms(enqueued),
            ms(ran - enqueued),
            ms(all - ran)
        );
        Ok(ms(all))
    })
}

/// The start of the line of phase times a [`reduction_child`] writes to its standard error.
const PHASES_TAG: &str = "phases (enqueue, device, copy) ms:";

fn jit_first_use(ctx: &mut BenchCtx) -> BenchResult {
    let dir = std::env::temp_dir().join(format!("cuprite-bench-jit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    tuning::set_cache_dir(Some(dir.clone()));
    let reps = ctx.repeats.min(12);
    let salt = fresh_salt();
    let out = with_device(gpu(), || -> BenchResult {
        let a = rand(1 << 16, 9)?;
        a.eval()?;
        // A new expression with math functions, untimed: as on a machine where the math
        // library was built once before (it is kept per machine; this run's cache folder is
        // new), the first quick build asks for it and the samples link with it.
        (&a * 0.5).cos().log1p().eval()?;
        cuprite_array::sync(gpu())?;
        cuprite_array::tuning::wait_tier_up();
        // The same lengths with the quick NVRTC build instead of the interpreter (another
        // salt: sources new again).
        let quick_salt = fresh_salt() ^ 0x9e37_79b9;
        let mut quick = Vec::new();
        let linked0 = cuprite_array::stats::linked_quick_builds();
        for k in 0..reps {
            let t = Instant::now();
            tuning::without_interpreter(|| first_use_expr(&a, k, quick_salt).eval())?;
            cuprite_array::sync(gpu())?;
            quick.push(t.elapsed().as_secs_f64());
            cuprite_array::tuning::wait_tier_up();
        }
        let linked = cuprite_array::stats::linked_quick_builds() - linked0;
        let mut first = Vec::new();
        let interpreted0 = cuprite_array::stats::interpreted_first_uses();
        for k in 0..reps {
            // A structure never seen before in each sample.
            let t = Instant::now();
            first_use_expr(&a, k, salt).eval()?;
            cuprite_array::sync(gpu())?;
            first.push(t.elapsed().as_secs_f64());
            // The optimised build (background) is not part of the next sample.
            cuprite_array::tuning::wait_tier_up();
        }
        let interpreted = cuprite_array::stats::interpreted_first_uses() - interpreted0;
        // The math library the quick builds link with: built once per machine and NVRTC
        // version (in the background, then read from the disk cache); timed here on its own.
        let mut lib = Vec::new();
        let mut bytes = [0usize; 2];
        for _ in 0..2 {
            let t = Instant::now();
            for f64 in [false, true] {
                let c = cuprite_driver::nvrtc::compile(
                    tuning::compiler::math_library_source(f64),
                    &tuning::compiler::math_library_options(arch()?),
                )
                .map_err(|e| BenchError::from(e.to_string()))?;
                bytes[f64 as usize] = c.cubin().map_or(0, <[u8]>::len);
            }
            lib.push(t.elapsed().as_secs_f64());
        }
        Ok(vec![
            Figure::time(
                "first use of a new expression (codegen + launch on the interpreter + sync; the optimised kernel is built in the background)",
                &Samples(first),
                TimeUnit::Ms,
            )
            .with_target(Target::AtMost(50.0))
            .with_note(format!("{interpreted} of {reps} first uses ran on the interpreter")),
            Figure::time(
                "first use of a new expression without the interpreter (codegen + NVRTC quick build of the kernel without its math functions at --Ofast-compile=max + link with the math library + load + launch + sync)",
                &Samples(quick),
                TimeUnit::Ms,
            )
            .with_note(format!("{linked} of {reps} first uses linked with the math library")),
            Figure::time(
                "math library build (both precisions; once per machine and NVRTC version, in the background, then from the disk cache)",
                &Samples(lib),
                TimeUnit::Ms,
            )
            .with_note(format!(
                "CUBIN: {} bytes (f32), {} bytes (f64)",
                bytes[0], bytes[1]
            )),
        ])
    });
    tuning::set_cache_dir(None);
    let mut out = out?;
    // The same expressions, each in a new process whose disk cache holds its kernel.
    let exe = std::env::current_exe().map_err(|e| BenchError::from(e.to_string()))?;
    let mut warm = Vec::new();
    for k in 0..reps {
        let o = std::process::Command::new(&exe)
            .env(WARM_CHILD_ENV, format!("{}|{k}|{salt}", dir.display()))
            .output()
            .map_err(|e| BenchError::from(e.to_string()))?;
        let text = String::from_utf8_lossy(&o.stdout);
        let ms: f64 = text.trim().parse().map_err(|_| {
            BenchError::from(format!(
                "warm-cache child failed: {}{}",
                text.trim(),
                String::from_utf8_lossy(&o.stderr)
            ))
        })?;
        warm.push(ms / 1e3);
    }
    let _ = std::fs::remove_dir_all(&dir);
    out.push(
        Figure::time(
            "same expression in a new process, disk cache warm (first use in that process: read + load + launch + sync)",
            &Samples(warm),
            TimeUnit::Ms,
        )
        .with_target(Target::AtMost(2.0)),
    );
    // A first use as a new user meets it: a new process, an empty cache folder.
    let mut cold = Vec::new();
    for k in 0..ctx.size(5, 2) {
        let empty =
            std::env::temp_dir().join(format!("cuprite-bench-cold-{}-{k}", std::process::id()));
        let _ = std::fs::remove_dir_all(&empty);
        std::fs::create_dir_all(&empty).map_err(|e| BenchError::from(e.to_string()))?;
        let o = std::process::Command::new(&exe)
            .env(COLD_CHILD_ENV, k.to_string())
            .env("CUPRITE_CACHE_DIR", &empty)
            .env_remove(WARM_CHILD_ENV)
            .output()
            .map_err(|e| BenchError::from(e.to_string()))?;
        let _ = std::fs::remove_dir_all(&empty);
        let text = String::from_utf8_lossy(&o.stdout);
        let ms: f64 = text.trim().parse().map_err(|_| {
            BenchError::from(format!(
                "cold first-use child failed: {}{}",
                text.trim(),
                String::from_utf8_lossy(&o.stderr)
            ))
        })?;
        cold.push(ms / 1e3);
    }
    out.push(
        Figure::time(
            "first use of a new expression in a new process with an empty kernel cache (no math library yet: the quick build compiles the whole kernel)",
            &Samples(cold),
            TimeUnit::Ms,
        )
        .with_note("a child process per sample, with CUPRITE_CACHE_DIR set to a new empty folder; its context and input are made before timing"),
    );
    Ok(out)
}

fn cpu_fused_chain(ctx: &mut BenchCtx) -> BenchResult {
    use rayon::prelude::*;
    let n = ctx.size(1 << 24, 1 << 18);
    with_device(Device::CPU, || {
        let (a, b, c, d) = (rand(n, 1)?, rand(n, 2)?, rand(n, 3)?, rand(n, 4)?);
        let s = ctx.try_time_host_per_call(1, |_| -> Result<(), BenchError> {
            chain(&a, &b, &c, &d).eval()?;
            Ok(())
        })?;
        let (va, vb, vc, vd) = (a.to_vec()?, b.to_vec()?, c.to_vec()?, d.to_vec()?);
        let mut out = vec![0.0f32; n];
        let hand = ctx.time_host(|| {
            out.par_chunks_mut(4096).enumerate().for_each(|(k, o)| {
                let base = k * 4096;
                for (j, y) in o.iter_mut().enumerate() {
                    let i = base + j;
                    *y = (va[i] * vb[i] + vc[i]).sin() * vd[i].exp() - va[i] / 2.0;
                }
            })
        });
        let fig = Figure::time(
            format!("CPU backend: fused chain over {n} f32 (rayon, chunked), time"),
            &s,
            TimeUnit::Ms,
        )
        .with_ceiling("hand-written rayon loop", hand.median() * 1e3)
        .with_target(Target::RatioAtMost(2.0));
        Ok(vec![fig])
    })
}

/// First use of a new fused reduction (`sum` of a new element-wise expression): codegen, the
/// quick build of the reduction kernel, its launch and the final combine, synchronised. Each
/// sample's producer is new to the machine (see [`first_use_expr`]; the same lengths as the
/// samples of `array/jit_first_use`); the combine of partial sums is a kernel of its own (the
/// same for every sample), made ready before the samples as on a machine that has run any f32
/// sum before, and timed apart on a fresh cache.
fn jit_first_reduction(ctx: &mut BenchCtx) -> BenchResult {
    let dir = std::env::temp_dir().join(format!("cuprite-bench-jitred-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    tuning::set_cache_dir(Some(dir.clone()));
    let reps = ctx.repeats.min(12);
    let salt = fresh_salt();
    let out = with_device(gpu(), || -> BenchResult {
        let a = rand(1 << 20, 10)?;
        a.eval()?;
        // Untimed: the math library (per machine) and the combine kernel of f32 sums.
        (&a * 0.5).cos().log1p().eval()?;
        cuprite_array::sync(gpu())?;
        cuprite_array::tuning::wait_tier_up();
        let t = Instant::now();
        a.sum()?.item()?;
        let combine_first = t.elapsed().as_secs_f64();
        cuprite_array::tuning::wait_tier_up();
        let mut first = Vec::new();
        for k in 0..reps {
            let t = Instant::now();
            first_use_expr(&a, k, salt).sum()?.item()?;
            first.push(t.elapsed().as_secs_f64());
            cuprite_array::tuning::wait_tier_up();
        }
        Ok(vec![
            Figure::time(
                "first use of a new fused reduction (sum of a new element-wise expression over 2^20 f32: codegen + interpreter (or quick build) + launch + combine + sync)",
                &Samples(first),
                TimeUnit::Ms,
            )
            .with_target(Target::AtMost(30.0))
            .with_note(format!(
                "the first f32 sum of the process (its reduction and combine kernels both new) took {:.1} ms",
                combine_first * 1e3
            )),
        ])
    });
    tuning::set_cache_dir(None);
    let _ = std::fs::remove_dir_all(&dir);
    let mut out = out?;
    // The same kind of reduction as the first new kernel of a new process, with the machine's
    // disk cache (where the interpreter is once any process has built it).
    let exe = std::env::current_exe().map_err(|e| BenchError::from(e.to_string()))?;
    let (mut times, mut loaded, mut phases) = (Vec::new(), 0, Vec::new());
    for k in 0..ctx.size(8, 2) {
        let o = std::process::Command::new(&exe)
            .env(REDUCTION_CHILD_ENV, format!("{k}|{}", salt ^ 0x5eed))
            .env("CUPRITE_JIT_TRACE", "1")
            .env_remove(WARM_CHILD_ENV)
            .env_remove(COLD_CHILD_ENV)
            .output()
            .map_err(|e| BenchError::from(e.to_string()))?;
        let text = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        let ms: f64 = text.trim().parse().map_err(|_| {
            BenchError::from(format!(
                "first-reduction child failed: {}{err}",
                text.trim()
            ))
        })?;
        loaded += err.contains("interpreter loaded from the disk cache") as usize;
        if let Some(p) = err.lines().find_map(|l| l.strip_prefix(PHASES_TAG)) {
            let v: Vec<f64> = p
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if let [e, d, c] = v[..] {
                phases.push((e, d, c));
            }
        }
        times.push(ms / 1e3);
    }
    let n = times.len();
    let median = |f: fn(&(f64, f64, f64)) -> f64| {
        let mut v: Vec<f64> = phases.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let (pe, pd, pc) = (median(|p| p.0), median(|p| p.1), median(|p| p.2));
    out.push(
        Figure::time(
            "first use of a new fused reduction as the first new kernel of a new process (2^20 f32; the machine's disk cache)",
            &Samples(times),
            TimeUnit::Ms,
        )
        .with_target(Target::AtMost(30.0))
        .with_note(format!(
            "a child process per sample; {loaded} of {n} loaded the interpreter from the disk cache (the others waited for a quick build); medians: enqueue {pe:.2} ms, device {pd:.2} ms, copy {pc:.2} ms"
        )),
    );
    Ok(out)
}
