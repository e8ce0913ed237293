//! Benchmarks of several GPUs: NCCL collectives through `cuprite_driver::nccl` over every
//! visible GPU from one process (`Comm::init_all`, one thread, grouped calls), the latency of
//! a small all-reduce from call to completion, and a 1 GiB copy between two GPUs.
//!
//! Bandwidths follow nccl-tests: for a collective of `S` bytes taking `t`, the algorithm
//! bandwidth is `S / t` and the bus bandwidth is that times `2(n−1)/n` for all-reduce,
//! `(n−1)/n` for all-gather and reduce-scatter (`S` being the whole gathered or scattered
//! buffer), and `1` for broadcast, `n` being the number of ranks. With one GPU the bus factor
//! of all but broadcast is 0: the figures are still measured (the time is in each note) but
//! mean little. `benches/peers/torch_nccl.py` measures the same with `torch.distributed`.
//!
//! Time is taken with events on every rank's stream around a batch of calls; a figure's time
//! is the slowest rank's. Data is nonzero. All-reduce and broadcast run in place, as
//! torch.distributed's do; all-gather and reduce-scatter out of place, as torch's `*_tensor`
//! calls.

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_driver::nccl::{self, Comm, ReduceOp};
use cuprite_driver::{Context, DeviceBuffer, Event, EventFlags, Stream};
use std::sync::{Arc, Mutex, OnceLock};

/// The NCCL and peer-copy benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "nccl/all_reduce",
            group: "nccl",
            needs_gpu: true,
            run: all_reduce,
        },
        Benchmark {
            name: "nccl/all_gather",
            group: "nccl",
            needs_gpu: true,
            run: all_gather,
        },
        Benchmark {
            name: "nccl/reduce_scatter",
            group: "nccl",
            needs_gpu: true,
            run: reduce_scatter,
        },
        Benchmark {
            name: "nccl/broadcast",
            group: "nccl",
            needs_gpu: true,
            run: broadcast,
        },
        Benchmark {
            name: "nccl/all_reduce_blocking",
            group: "nccl",
            needs_gpu: true,
            run: all_reduce_blocking,
        },
        Benchmark {
            name: "nccl/all_reduce_latency",
            group: "nccl",
            needs_gpu: true,
            run: all_reduce_latency,
        },
        Benchmark {
            name: "peer/copy",
            group: "peer",
            needs_gpu: true,
            run: peer_copy,
        },
    ]
}

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
const GIB: usize = 1 << 30;

/// The sizes of the sweep, 8 B to 1 GiB (to 16 MiB with `--quick`).
fn sizes(ctx: &BenchCtx) -> Vec<usize> {
    let all = [
        8,
        64,
        512,
        4 * KIB,
        32 * KIB,
        256 * KIB,
        2 * MIB,
        16 * MIB,
        64 * MIB,
        256 * MIB,
        GIB,
    ];
    let max = ctx.size(GIB, 16 * MIB);
    all.into_iter().filter(|&s| s <= max).collect()
}

fn label(bytes: usize) -> String {
    if bytes >= GIB && bytes.is_multiple_of(GIB) {
        format!("{}GiB", bytes / GIB)
    } else if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{}MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{}KiB", bytes / KIB)
    } else {
        format!("{bytes}B")
    }
}

/// Communicators over every GPU, a stream per rank, and two buffers of `GIB` bytes (as f32)
/// per rank, made once for all the NCCL benchmarks of a run.
struct Env {
    comms: Vec<Comm>,
    streams: Vec<Arc<Stream>>,
    send: Vec<DeviceBuffer<f32>>,
    recv: Vec<DeviceBuffer<f32>>,
    /// Elements per buffer.
    cap: usize,
}

/// The default (nonblocking) communicators' set-up.
fn env(ctx: &BenchCtx) -> Result<std::sync::MutexGuard<'static, Env>, BenchError> {
    static ENV: OnceLock<Result<Mutex<Env>, String>> = OnceLock::new();
    env_in(ctx, &ENV, false)
}

/// The set-up with blocking communicators ([`cuprite_driver::nccl::CommOptions::blocking`]).
fn env_blocking(ctx: &BenchCtx) -> Result<std::sync::MutexGuard<'static, Env>, BenchError> {
    static ENV: OnceLock<Result<Mutex<Env>, String>> = OnceLock::new();
    env_in(ctx, &ENV, true)
}

fn env_in(
    ctx: &BenchCtx,
    cell: &'static OnceLock<Result<Mutex<Env>, String>>,
    blocking: bool,
) -> Result<std::sync::MutexGuard<'static, Env>, BenchError> {
    let cap_bytes = ctx.size(GIB, 16 * MIB);
    let e = cell.get_or_init(|| {
        let make = || -> Result<Env, BenchError> {
            let n = cuprite_driver::Device::count()?;
            let ctxs = (0..n)
                .map(Context::new)
                .collect::<cuprite_driver::Result<Vec<_>>>()?;
            let options = cuprite_driver::nccl::CommOptions {
                blocking,
                ..Default::default()
            };
            let comms = Comm::init_all_with(&ctxs, options)?;
            let cap = cap_bytes / 4;
            let pattern: Vec<f32> = (0..(4 * MIB).min(cap))
                .map(|i| ((i * 7919) % 1000) as f32 * 0.001 + 0.5)
                .collect();
            let mut streams = Vec::new();
            let mut send = Vec::new();
            let mut recv = Vec::new();
            for c in &ctxs {
                let s = c.new_stream()?;
                let mut a = s.alloc_zeros::<f32>(cap)?;
                let mut b = s.alloc_zeros::<f32>(cap)?;
                let mut off = 0;
                while off < cap {
                    let k = pattern.len().min(cap - off);
                    s.memcpy_htod(&pattern[..k], &mut a.slice_mut(off..off + k)?)?;
                    s.memcpy_htod(&pattern[..k], &mut b.slice_mut(off..off + k)?)?;
                    off += k;
                }
                streams.push(s);
                send.push(a);
                recv.push(b);
            }
            Ok(Env {
                comms,
                streams,
                send,
                recv,
                cap,
            })
        };
        make().map(Mutex::new).map_err(|e| e.to_string())
    });
    match e {
        Ok(m) => Ok(m.lock().unwrap_or_else(|p| p.into_inner())),
        Err(e) => Err(format!("NCCL set-up over every GPU failed: {e}").into()),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Coll {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
}

impl Coll {
    fn name(self) -> &'static str {
        match self {
            Coll::AllReduce => "all_reduce",
            Coll::AllGather => "all_gather",
            Coll::ReduceScatter => "reduce_scatter",
            Coll::Broadcast => "broadcast",
        }
    }

    /// nccl-tests' bus-bandwidth factor for `n` ranks.
    fn bus_factor(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Coll::AllReduce => 2.0 * (n - 1.0) / n,
            Coll::AllGather | Coll::ReduceScatter => (n - 1.0) / n,
            Coll::Broadcast => 1.0,
        }
    }
}

/// Enqueues one `coll` of `bytes` (the nccl-tests size) on every rank, in one group.
/// All-reduce and broadcast run in place when `in_place` (as torch.distributed's do: the
/// sweep compares with those), out of place otherwise; all-gather and reduce-scatter always
/// out of place (as torch's `*_tensor` calls).
fn enqueue(env: &mut Env, coll: Coll, bytes: usize, in_place: bool) -> cuprite_driver::Result<()> {
    let n = env.comms.len();
    let total = bytes / 4;
    // all_gather: each rank sends total/n; reduce_scatter: each receives total/n.
    let part = total / n;
    let Env {
        comms,
        streams,
        send,
        recv,
        ..
    } = env;
    let (sends, mut recvs): (Vec<_>, Vec<_>) = match coll {
        Coll::AllReduce | Coll::Broadcast => (
            send.iter()
                .map(|b| b.slice(0..total))
                .collect::<cuprite_driver::Result<Vec<_>>>()?,
            recv.iter_mut()
                .map(|b| b.slice_mut(0..total))
                .collect::<cuprite_driver::Result<Vec<_>>>()?,
        ),
        Coll::AllGather => (
            send.iter()
                .map(|b| b.slice(0..part))
                .collect::<cuprite_driver::Result<Vec<_>>>()?,
            recv.iter_mut()
                .map(|b| b.slice_mut(0..part * n))
                .collect::<cuprite_driver::Result<Vec<_>>>()?,
        ),
        Coll::ReduceScatter => (
            send.iter()
                .map(|b| b.slice(0..part * n))
                .collect::<cuprite_driver::Result<Vec<_>>>()?,
            recv.iter_mut()
                .map(|b| b.slice_mut(0..part))
                .collect::<cuprite_driver::Result<Vec<_>>>()?,
        ),
    };
    nccl::group(|g| {
        for (((c, s), x), y) in comms
            .iter()
            .zip(streams.iter())
            .zip(&sends)
            .zip(recvs.iter_mut())
        {
            match (coll, in_place) {
                (Coll::AllReduce, true) => g.all_reduce_in_place(c, y, ReduceOp::Sum, s)?,
                (Coll::AllReduce, false) => g.all_reduce(c, x, y, ReduceOp::Sum, s)?,
                (Coll::AllGather, _) => g.all_gather(c, x, y, s)?,
                (Coll::ReduceScatter, _) => g.reduce_scatter(c, x, y, ReduceOp::Sum, s)?,
                (Coll::Broadcast, true) => {
                    g.broadcast::<f32, cuprite_driver::DeviceView<'_, f32>, _>(c, None, y, 0, s)?
                }
                (Coll::Broadcast, false) => g.broadcast(c, Some(x), y, 0, s)?,
            }
        }
        Ok(())
    })
}

/// Seconds per call of `iters` calls, per repeat, timed with events on every rank's stream
/// (the slowest rank's time).
fn time_batches(
    ctx: &BenchCtx,
    env: &mut Env,
    iters: usize,
    mut call: impl FnMut(&mut Env) -> cuprite_driver::Result<()>,
) -> Result<Samples, BenchError> {
    for _ in 0..ctx.warmup.max(1) {
        call(env)?;
    }
    for s in &env.streams {
        s.synchronize()?;
    }
    let mut out = Vec::with_capacity(ctx.repeats);
    for _ in 0..ctx.repeats {
        let mut starts = Vec::new();
        for s in &env.streams {
            let e = Event::new(s.context(), EventFlags::DEFAULT)?;
            e.record(s)?;
            starts.push(e);
        }
        for _ in 0..iters {
            call(env)?;
        }
        let mut worst = 0.0f64;
        for (s, start) in env.streams.iter().zip(&starts) {
            let end = Event::new(s.context(), EventFlags::DEFAULT)?;
            end.record(s)?;
            end.synchronize()?;
            worst = worst.max(start.elapsed_ms(&end)? as f64 / 1e3);
        }
        out.push(worst / iters as f64);
    }
    for (c, s) in env.comms.iter().zip(&env.streams) {
        c.check_async_error()?;
        s.synchronize()?;
    }
    Ok(Samples(out))
}

fn sweep(ctx: &mut BenchCtx, coll: Coll, blocking: bool) -> BenchResult {
    let mut env = if blocking {
        env_blocking(ctx)?
    } else {
        env(ctx)?
    };
    let mode = if blocking { " blocking" } else { "" };
    let n = env.comms.len();
    let mut figs = Vec::new();
    for bytes in sizes(ctx) {
        if bytes / 4 > env.cap || bytes / 4 < n {
            continue;
        }
        // Whole f32 blocks per rank where the collective splits the buffer.
        let bytes = if matches!(coll, Coll::AllGather | Coll::ReduceScatter) {
            bytes / (4 * n) * (4 * n)
        } else {
            bytes / 4 * 4
        };
        ctx.status(format!("{} {}", coll.name(), label(bytes)));
        let iters = (GIB / bytes.max(1)).clamp(5, 50);
        let samples = time_batches(ctx, &mut env, iters, |e| enqueue(e, coll, bytes, true))?;
        // With one rank the bus bandwidth is 0 by nccl-tests' formula: report the algorithm
        // bandwidth then (a figure of 0 says nothing, and the smoke test refuses it).
        let factor = if n == 1 { 1.0 } else { coll.bus_factor(n) };
        let kind = if n == 1 { "algbw (1 rank)" } else { "busbw" };
        let t = samples.median();
        let algbw = if t > 0.0 { bytes as f64 / t / 1e9 } else { 0.0 };
        let fig = Figure::rate(
            format!("nccl/{}{mode} {} {kind}", coll.name(), label(bytes)),
            "GB/s",
            bytes as f64 * factor / 1e9,
            &samples,
        )
        .with_note(format!(
            "{n} rank(s), one process (init_all){}; {:.1} µs per call; algbw {algbw:.1} GB/s; \
             bus factor {factor:.3}",
            if matches!(coll, Coll::AllReduce | Coll::Broadcast) {
                ", in place"
            } else {
                ""
            },
            t * 1e6
        ));
        figs.push(fig);
    }
    Ok(figs)
}

fn all_reduce(ctx: &mut BenchCtx) -> BenchResult {
    sweep(ctx, Coll::AllReduce, false)
}

fn all_gather(ctx: &mut BenchCtx) -> BenchResult {
    sweep(ctx, Coll::AllGather, false)
}

fn reduce_scatter(ctx: &mut BenchCtx) -> BenchResult {
    sweep(ctx, Coll::ReduceScatter, false)
}

fn broadcast(ctx: &mut BenchCtx) -> BenchResult {
    sweep(ctx, Coll::Broadcast, false)
}

fn all_reduce_blocking(ctx: &mut BenchCtx) -> BenchResult {
    sweep(ctx, Coll::AllReduce, true)
}

/// An 8 KiB f32 all-reduce over every GPU, from the call until the host sees every rank's
/// stream done: the host cost of the call, NCCL's launch, the kernel and the synchronisation.
fn all_reduce_latency(ctx: &mut BenchCtx) -> BenchResult {
    let mut figs = latency_of(ctx, false)?;
    figs.extend(latency_of(ctx, true)?);
    Ok(figs)
}

fn latency_of(ctx: &mut BenchCtx, blocking: bool) -> BenchResult {
    let mut env = if blocking {
        env_blocking(ctx)?
    } else {
        env(ctx)?
    };
    let blocking = env.comms.iter().all(|c| c.is_blocking());
    let n = env.comms.len();
    let bytes = 8 * KIB;
    ctx.status("8 KiB all_reduce, call to completion");
    let samples = ctx.try_time_host_per_call(20, |_| -> cuprite_driver::Result<()> {
        enqueue(&mut env, Coll::AllReduce, bytes, false)?;
        for s in &env.streams {
            s.synchronize()?;
        }
        Ok(())
    })?;
    // The result must be the sum over ranks of the same pattern: n × the first element.
    let got = env.streams[0].clone_dtoh(&env.recv[0].slice(0..2)?)?;
    let want = 0.5f32 * n as f32;
    if (got[0] - want).abs() > 1e-3 * want {
        return Err(format!(
            "8 KiB all_reduce gave {} for element 0, want {want}",
            got[0]
        )
        .into());
    }
    Ok(vec![
        Figure::time(
            format!(
                "nccl/all_reduce 8KiB latency{} ({n} rank(s))",
                if blocking { " blocking" } else { "" }
            ),
            &samples,
            TimeUnit::Us,
        )
        // A fixed floor the project set, not a peer's figure (torch.distributed's latency is
        // set beside it by benches/peers/compare_nccl.py, per variant).
        .with_target(Target::AtMost(20.0))
        .with_note(if blocking {
            "target: a fixed floor, not a peer's figure; call to completion: grouped ncclAllReduce on every rank, then every stream synchronised; blocking communicators (CommOptions::blocking), launched in the calling thread"
        } else {
            "target: a fixed floor, not a peer's figure; call to completion: grouped ncclAllReduce on every rank, then every stream synchronised; default nonblocking communicators (NCCL launches each group on a thread of its own)"
        }),
    ])
}

/// A 1 GiB copy from GPU 0 to GPU 1 on GPU 1's stream (direct where the GPUs reach each other,
/// see `cuprite_driver::peer`). With one GPU, a copy between two contexts of it.
fn peer_copy(ctx: &mut BenchCtx) -> BenchResult {
    let bytes = ctx.size(GIB, 64 * MIB);
    let n = cuprite_driver::Device::count()?;
    let a = Context::new(0)?;
    let (b, what) = if n >= 2 {
        (Context::new(1)?, "GPU 0 -> GPU 1")
    } else {
        let own = Context::create_and_push(cuprite_driver::ContextFlags::SCHED_AUTO, a.device())?;
        cuprite_driver::ContextStack::pop()?;
        (own, "one GPU: between two contexts of GPU 0")
    };
    let path = cuprite_driver::peer::path(&a, &b)?;
    let sa = a.new_stream()?;
    let sb = b.new_stream()?;
    let words = bytes / 4;
    let pattern: Vec<u32> = (0..words.min(4 * MIB))
        .map(|i| (i as u32).wrapping_mul(2654435761))
        .collect();
    let mut x = sa.alloc_zeros::<u32>(words)?;
    let mut off = 0;
    while off < words {
        let k = pattern.len().min(words - off);
        sa.memcpy_htod(&pattern[..k], &mut x.slice_mut(off..off + k)?)?;
        off += k;
    }
    let mut y = sb.alloc_zeros::<u32>(words)?;
    sa.synchronize()?;
    ctx.status(format!("peer copy {} ({path:?})", label(bytes)));
    let before = cuprite_driver::peer::stats();
    b.bind_to_thread()?;
    // SAFETY: `sb` is a live stream of `b`, the current context.
    let samples = unsafe { ctx.time_device(sb.raw(), || sb.memcpy_dtod(&x, &mut y)) }?;
    let d = cuprite_driver::peer::stats().since(&before);
    let head = sb.clone_dtoh(&y.slice(0..pattern.len().min(words))?)?;
    if head[..] != pattern[..head.len()] {
        return Err("peer copy: the destination differs from the source".into());
    }
    Ok(vec![
        Figure::rate(
            format!("peer/copy {} GB/s", label(bytes)),
            "GB/s",
            bytes as f64 / 1e9,
            &samples,
        )
        .with_note(format!(
            "{what}; path {path:?}; copies counted: {} direct, {} staged, {} same-device",
            d.direct_copies, d.staged_copies, d.same_device_copies
        )),
    ])
}
