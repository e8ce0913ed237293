//! One process per GPU, finding each other the way they would across hosts.
//!
//! Each process reads its rank from the launcher's environment (`RANK`, `WORLD_SIZE`,
//! `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`, or MPI's / Slurm's variables), rank 0 shares
//! the NCCL unique id over a small TCP rendezvous, and every rank all-reduces a known buffer
//! and checks the sum against the value computed on the host.
//!
//! ```text
//! # One host, one process per GPU, started by the example itself:
//! cargo run --release -p cuprite-driver --example nccl_ranks -- --spawn 2
//!
//! # The same, started by hand (or by torchrun, mpirun, srun...):
//! RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 nccl_ranks &
//! RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 nccl_ranks
//!
//! # Two hosts a and b with 4 GPUs each: MASTER_ADDR is an address of rank 0's host that b
//! # reaches, MASTER_PORT a port open between them; NCCL picks its own interfaces
//! # (NCCL_SOCKET_IFNAME narrows them).
//! mpirun -np 8 -H a:4,b:4 -x MASTER_ADDR=a -x MASTER_PORT=29500 -x NCCL_NVLS_ENABLE=0 nccl_ranks
//! ```
//!
//! Options: `--spawn N` (start N ranks on this host; without it and without a rank in the
//! environment, one per GPU), `--elems K` (f32 elements per rank, default 16 Mi),
//! `--timeout S` (seconds for every wait, default 120), `--blocking` (blocking communicators,
//! `CommOptions::blocking`: faster launches, host waits no longer bounded), `--sweep FILE` (then also time
//! all_reduce, all_gather, reduce_scatter and broadcast from 8 B to `--max-bytes`, default
//! 1 GiB, and an 8 KiB all_reduce from call to completion, the multi-process figures of
//! `cuprite bench nccl`; rank 0 writes them to FILE as JSON). Every wait is bounded: a missing
//! rank ends the others with an error, not a hang. `NCCL_NVLS_ENABLE=0` is set for spawned
//! ranks.

use cuprite_driver::nccl::rendezvous::{self, RankInfo, Rendezvous};
use cuprite_driver::nccl::{Comm, CommOptions, ReduceOp};
use cuprite_driver::{DeviceBuffer, Event, EventFlags, Stream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Opts {
    spawn: Option<usize>,
    elems: usize,
    timeout: Duration,
    sweep: Option<String>,
    max_bytes: usize,
    blocking: bool,
}

fn parse() -> Result<Opts, String> {
    let mut o = Opts {
        spawn: None,
        elems: 16 << 20,
        timeout: Duration::from_secs(120),
        sweep: None,
        max_bytes: 1 << 30,
        blocking: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--spawn" => {
                o.spawn = Some(
                    val("--spawn")?
                        .parse()
                        .map_err(|e| format!("--spawn: {e}"))?,
                )
            }
            "--elems" => {
                o.elems = val("--elems")?
                    .parse()
                    .map_err(|e| format!("--elems: {e}"))?
            }
            "--timeout" => {
                let s: f64 = val("--timeout")?
                    .parse()
                    .map_err(|e| format!("--timeout: {e}"))?;
                if !(s.is_finite() && s > 0.0) {
                    return Err(format!("--timeout must be positive, got {s}"));
                }
                o.timeout = Duration::from_secs_f64(s);
            }
            "--sweep" => o.sweep = Some(val("--sweep")?),
            "--blocking" => o.blocking = true,
            "--max-bytes" => {
                o.max_bytes = val("--max-bytes")?
                    .parse()
                    .map_err(|e| format!("--max-bytes: {e}"))?
            }
            "-h" | "--help" => {
                return Err("usage: nccl_ranks [--spawn N] [--elems K] [--timeout S] \
                            [--blocking] [--sweep FILE [--max-bytes B]]"
                    .into());
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(o)
}

fn main() {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("nccl_ranks: {e}");
            std::process::exit(2);
        }
    };
    let in_job = RankInfo::from_env().is_ok();
    let code = if o.spawn.is_some() || !in_job {
        match spawn(&o) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("nccl_ranks: {e}");
                1
            }
        }
    } else {
        match rank(&o) {
            Ok(line) => {
                println!("{line}");
                0
            }
            Err(e) => {
                eprintln!("nccl_ranks: rank failed: {e}");
                1
            }
        }
    };
    std::process::exit(code);
}

/// Starts `n` ranks of this program on this host, waits for all (bounded), relays their output.
fn spawn(o: &Opts) -> Result<(), Box<dyn std::error::Error>> {
    let n = match o.spawn {
        Some(n) => n,
        None => cuprite_driver::Device::count()?,
    };
    if n == 0 {
        return Err("no GPU to run a rank on".into());
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let exe = std::env::current_exe()?;
    println!("nccl_ranks: starting {n} rank(s), rendezvous at 127.0.0.1:{port}");
    let mut kids = Vec::new();
    for r in 0..n {
        let mut cmd = Command::new(&exe);
        if let Some(f) = &o.sweep {
            cmd.args(["--sweep", f])
                .args(["--max-bytes", &o.max_bytes.to_string()]);
        }
        if o.blocking {
            cmd.arg("--blocking");
        }
        let kid = cmd
            .args(["--elems", &o.elems.to_string()])
            .args(["--timeout", &o.timeout.as_secs_f64().to_string()])
            .env("RANK", r.to_string())
            .env("WORLD_SIZE", n.to_string())
            .env("LOCAL_RANK", r.to_string())
            .env("MASTER_ADDR", "127.0.0.1")
            .env("MASTER_PORT", port.to_string())
            .env("NCCL_NVLS_ENABLE", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        kids.push(kid);
    }
    // Each rank bounds its own waits; this bounds the whole job on top of that.
    let limit = o.timeout * 2 + Duration::from_secs(30);
    let start = Instant::now();
    let mut failed = 0;
    for (r, mut kid) in kids.into_iter().enumerate() {
        while kid.try_wait()?.is_none() {
            if start.elapsed() > limit {
                kid.kill()?;
                eprintln!("nccl_ranks: rank {r} still running after {limit:?}: killed");
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = kid.wait_with_output()?;
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            println!("[rank {r}] {line}");
        }
        for line in String::from_utf8_lossy(&out.stderr).lines() {
            println!("[rank {r}] {line}");
        }
        if !out.status.success() {
            failed += 1;
        }
    }
    if failed > 0 {
        return Err(format!("{failed} of {n} rank(s) failed").into());
    }
    println!("nccl_ranks: all {n} rank(s) passed");
    Ok(())
}

/// One rank: join, all-reduce a known buffer, check it, time a few more.
fn rank(o: &Opts) -> Result<String, Box<dyn std::error::Error>> {
    let info = RankInfo::from_env()?;
    let rdzv = Rendezvous::from_env()?;
    let t0 = Instant::now();
    let options = CommOptions {
        timeout: o.timeout,
        blocking: o.blocking,
    };
    let (comm, info) = rendezvous::init_with_options(&info, &rdzv, options)?;
    let init_s = t0.elapsed().as_secs_f64();
    let s = comm.context().new_stream()?;
    let n = o.elems;
    let w = info.world_size;
    // Rank r holds (i mod 101) · (r + 1): the sum over ranks is (i mod 101) · w(w + 1)/2,
    // exact in f32 for these sizes.
    let mine: Vec<f32> = (0..n)
        .map(|i| ((i % 101) * (info.rank + 1)) as f32)
        .collect();
    let x = s.clone_htod(&mine)?;
    let mut y = s.clone_htod(&vec![-1.0f32; n])?;
    comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s)?;
    comm.wait(&s)?;
    let got = s.clone_dtoh(&y)?;
    let tri = (w * (w + 1) / 2) as f32;
    if let Some((i, g)) = got
        .iter()
        .enumerate()
        .find(|(i, g)| **g != (i % 101) as f32 * tri)
    {
        return Err(format!(
            "rank {}: element {i} is {g}, want {}",
            info.rank,
            (i % 101) as f32 * tri
        )
        .into());
    }
    // A few timed all-reduces: bus bandwidth by nccl-tests' formula.
    let reps = 10;
    let t = Instant::now();
    for _ in 0..reps {
        comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s)?;
    }
    comm.wait(&s)?;
    let secs = t.elapsed().as_secs_f64() / reps as f64;
    drop((x, y));
    if let Some(file) = &o.sweep {
        sweep(&comm, &s, o.max_bytes, file, info.rank)?;
    }
    let bytes = (n * 4) as f64;
    let busbw = bytes / secs * 2.0 * (w as f64 - 1.0) / w as f64 / 1e9;
    Ok(format!(
        "rank {} of {w} on GPU {}: all_reduce of {n} f32 checked (init {init_s:.2} s; \
         {:.1} µs per call, bus bandwidth {busbw:.1} GB/s)",
        info.rank,
        comm.context().ordinal(),
        secs * 1e6
    ))
}

/// nccl-tests' bus-bandwidth factor.
fn bus_factor(coll: &str, n: usize) -> f64 {
    let n = n as f64;
    match coll {
        "all_reduce" => 2.0 * (n - 1.0) / n,
        "all_gather" | "reduce_scatter" => (n - 1.0) / n,
        _ => 1.0,
    }
}

fn label(b: usize) -> String {
    for (unit, name) in [(1usize << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if b >= unit && b % unit == 0 {
            return format!("{}{name}", b / unit);
        }
    }
    format!("{b}B")
}

/// One collective of `bytes` (nccl-tests' size) on this rank.
fn one(
    comm: &Comm,
    s: &Stream,
    coll: &str,
    bytes: usize,
    send: &DeviceBuffer<f32>,
    recv: &mut DeviceBuffer<f32>,
) -> cuprite_driver::Result<()> {
    let w = comm.size();
    let (total, part) = (bytes / 4, bytes / 4 / w);
    match coll {
        // In place, as torch.distributed's all_reduce and broadcast.
        "all_reduce" => comm.all_reduce_in_place(&mut recv.slice_mut(0..total)?, ReduceOp::Sum, s),
        "all_gather" => {
            comm.all_gather(&send.slice(0..part)?, &mut recv.slice_mut(0..part * w)?, s)
        }
        "reduce_scatter" => comm.reduce_scatter(
            &send.slice(0..part * w)?,
            &mut recv.slice_mut(0..part)?,
            ReduceOp::Sum,
            s,
        ),
        _ => comm.broadcast::<f32, cuprite_driver::DeviceView<'_, f32>, _>(
            None,
            &mut recv.slice_mut(0..total)?,
            0,
            s,
        ),
    }
}

/// The slowest rank's value of `v` (an all-reduce of one f64 with Max).
fn slowest(comm: &Comm, s: &Arc<Stream>, v: f64) -> cuprite_driver::Result<f64> {
    let mut b = s.clone_htod(&[v])?;
    comm.all_reduce_in_place(&mut b, ReduceOp::Max, s)?;
    Ok(s.clone_dtoh(&b)?[0])
}

/// The multi-process figures: the same sweep as `cuprite bench nccl`, one process per GPU.
fn sweep(
    comm: &Comm,
    s: &Arc<Stream>,
    max_bytes: usize,
    file: &str,
    rank: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let w = comm.size();
    let blocking = comm.is_blocking();
    let cap = max_bytes / 4;
    let pattern: Vec<f32> = (0..cap.min(1 << 22))
        .map(|i| (i % 1000) as f32 * 0.001 + 0.5)
        .collect();
    let mut send = s.alloc_zeros::<f32>(cap)?;
    let mut off = 0;
    while off < cap {
        let k = pattern.len().min(cap - off);
        s.memcpy_htod(&pattern[..k], &mut send.slice_mut(off..off + k)?)?;
        off += k;
    }
    let mut recv = s.clone_dtod(&send)?;
    let mut rows = Vec::new();
    let sizes = [
        8usize,
        64,
        512,
        4 << 10,
        32 << 10,
        256 << 10,
        2 << 20,
        16 << 20,
        64 << 20,
        256 << 20,
        1 << 30,
    ];
    for coll in ["all_reduce", "all_gather", "reduce_scatter", "broadcast"] {
        for &size in sizes.iter().filter(|&&b| b <= max_bytes && b / 4 >= w) {
            let bytes = if coll == "all_gather" || coll == "reduce_scatter" {
                size / (4 * w) * (4 * w)
            } else {
                size / 4 * 4
            };
            let iters = ((1usize << 30) / bytes).clamp(5, 50);
            for _ in 0..3 {
                one(comm, s, coll, bytes, &send, &mut recv)?;
            }
            comm.wait(s)?;
            let mut times = Vec::new();
            for _ in 0..10 {
                let a = Event::new(s.context(), EventFlags::DEFAULT)?;
                let b = Event::new(s.context(), EventFlags::DEFAULT)?;
                a.record(s)?;
                for _ in 0..iters {
                    one(comm, s, coll, bytes, &send, &mut recv)?;
                }
                b.record(s)?;
                comm.wait(s)?;
                let t = a.elapsed_ms(&b)? as f64 / 1e3 / iters as f64;
                times.push(slowest(comm, s, t)?);
            }
            times.sort_by(f64::total_cmp);
            let t = times[times.len() / 2];
            let algbw = bytes as f64 / t / 1e9;
            rows.push(format!(
                "\"nccl/{coll} {} busbw\": {{\"busbw_GBps\": {:.3}, \"algbw_GBps\": {algbw:.3}, \"time_us\": {:.3}}}",
                label(bytes),
                algbw * bus_factor(coll, w),
                t * 1e6
            ));
        }
    }
    // 8 KiB all_reduce from call to completion (host clock).
    let x = send.slice(0..2048)?;
    let mut y = recv.slice_mut(0..2048)?;
    let mut lat = Vec::new();
    for i in 0..220 {
        let t = Instant::now();
        comm.all_reduce(&x, &mut y, ReduceOp::Sum, s)?;
        s.synchronize()?;
        if i >= 20 {
            lat.push(t.elapsed().as_secs_f64());
        }
    }
    lat.sort_by(f64::total_cmp);
    let l = slowest(comm, s, lat[lat.len() / 2])?;
    rows.push(format!(
        "\"nccl/all_reduce 8KiB latency\": {{\"time_us\": {:.3}}}",
        l * 1e6
    ));
    if rank == 0 {
        let json = format!(
            "{{\n \"processes\": \"one per GPU (cuprite_driver::nccl::rendezvous, Comm::init_rank_with)\",\n \"blocking\": {blocking},\n \"gpus\": {w},\n {}\n}}\n",
            rows.join(",\n ")
        );
        std::fs::write(file, json)?;
        println!("sweep written to {file}");
    }
    Ok(())
}
