//! One process per GPU, finding each other the way they would across hosts.
//!
//! Each process reads its rank from the launcher's environment (`RANK`, `WORLD_SIZE`,
//! `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`, or MPI's / Slurm's variables), rank 0 shares
//! the NCCL unique id over a small TCP rendezvous, and every rank all-reduces a known buffer
//! and checks the sum against the value computed on the host.
//!
//! ```text
//! # One host, one process per GPU, started by the example itself:
//! cargo run --release -p cuprite --example nccl_ranks -- --spawn 2
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
//! `--timeout S` (seconds for every wait, default 120). Every wait is bounded: a missing rank
//! ends the others with an error, not a hang. `NCCL_NVLS_ENABLE=0` is set for spawned ranks.

use cuprite::nccl::ReduceOp;
use cuprite::nccl::rendezvous::{self, RankInfo, Rendezvous};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Opts {
    spawn: Option<usize>,
    elems: usize,
    timeout: Duration,
}

fn parse() -> Result<Opts, String> {
    let mut o = Opts {
        spawn: None,
        elems: 16 << 20,
        timeout: Duration::from_secs(120),
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
            "-h" | "--help" => {
                return Err("usage: nccl_ranks [--spawn N] [--elems K] [--timeout S]".into());
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
        None => cuprite::Device::count()?,
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
        let kid = Command::new(&exe)
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
    let (comm, info) = rendezvous::init_with(&info, &rdzv, o.timeout)?;
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
