//! How the processes of one job find each other: their rank and count from a launcher's
//! environment ([`RankInfo`]), and the sharing of rank 0's [`UniqueId`] with the others
//! ([`Rendezvous`]) over a small TCP exchange or a shared file. This is the path across hosts
//! as well as within one.
//!
//! This module owns the environment conventions and the wire protocol; it uses only `std::net`
//! and `std::fs`. Every wait is bounded by a deadline: a rank that never arrives, a rank 0
//! that never listens, a peer that stops answering, all end in [`Error::Timeout`] (or
//! [`Error::Rendezvous`] for a refused or malformed exchange), never in a hang.
//!
//! # Running one process per GPU
//!
//! Each process is started with
//!
//! - its rank and the number of ranks: `RANK` and `WORLD_SIZE` (torchrun's names), or
//!   `OMPI_COMM_WORLD_RANK`/`OMPI_COMM_WORLD_SIZE` (Open MPI's `mpirun`), `PMI_RANK`/`PMI_SIZE`
//!   (MPICH, Intel MPI), `SLURM_PROCID`/`SLURM_NTASKS` (`srun`);
//! - optionally its rank on its host, which picks its GPU: `LOCAL_RANK`,
//!   `OMPI_COMM_WORLD_LOCAL_RANK`, `MPI_LOCALRANKID`, `SLURM_LOCALID` (else the rank modulo
//!   the number of GPUs);
//! - where rank 0 listens: `MASTER_ADDR` and `MASTER_PORT` (an address of rank 0's host that
//!   every host reaches, and a free port); or `CUPRITE_RDZV_FILE`, a path on a file system all
//!   ranks share (fresh for each job).
//!
//! Across hosts: set `MASTER_ADDR` to rank 0's host address on the network the hosts share
//! (not `localhost`), open `MASTER_PORT` between the hosts, and start the same binary on every
//! host with its ranks (e.g. `mpirun -np 8 -H a:4,b:4 -x MASTER_ADDR=a -x MASTER_PORT=29500
//! -x NCCL_NVLS_ENABLE=0 ./app`). Rank 0 binds `MASTER_ADDR`'s address
//! (`CUPRITE_RDZV_BIND`, e.g. `0.0.0.0`, overrides what it binds). NCCL then connects the
//! ranks itself (over its own sockets or InfiniBand: `NCCL_SOCKET_IFNAME` picks the interface).
//!
//! ```no_run
//! # fn main() -> cuprite_driver::Result<()> {
//! // RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 ./app  (and RANK=1 ...)
//! let (comm, info) = cuprite_driver::nccl::rendezvous::init_from_env()?;
//! println!("rank {} of {} on GPU {}", info.rank, info.world_size, comm.context().ordinal());
//! # Ok(()) }
//! ```

use super::{Comm, CommOptions, UniqueId, default_timeout};
use crate::context::Context;
use crate::error::{Error, Result};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A process's place in a job: its rank, the number of ranks, and its rank on its host.
///
/// ```
/// use cuprite_driver::nccl::rendezvous::RankInfo;
/// let vars = [("RANK", "3"), ("WORLD_SIZE", "4"), ("LOCAL_RANK", "1")];
/// let info = RankInfo::from_vars(|k| {
///     vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
/// }).unwrap();
/// assert_eq!((info.rank, info.world_size, info.local_rank), (3, 4, Some(1)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankInfo {
    /// This process's rank, `0..world_size`.
    pub rank: usize,
    /// The number of ranks.
    pub world_size: usize,
    /// This process's rank on its host, when the launcher says it.
    pub local_rank: Option<usize>,
}

/// The launchers' variable names: (rank, size, local rank), in the order they are tried.
const LAUNCHERS: [(&str, &str, &[&str]); 4] = [
    ("RANK", "WORLD_SIZE", &["LOCAL_RANK"]),
    (
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE",
        &["OMPI_COMM_WORLD_LOCAL_RANK"],
    ),
    (
        "PMI_RANK",
        "PMI_SIZE",
        &["MPI_LOCALRANKID", "PMI_LOCAL_RANK"],
    ),
    ("SLURM_PROCID", "SLURM_NTASKS", &["SLURM_LOCALID"]),
];

fn parse_var(name: &str, value: &str) -> Result<usize> {
    value
        .trim()
        .parse::<usize>()
        .map_err(|_| Error::Rendezvous(format!("{name}={value:?} is not a non-negative integer")))
}

impl RankInfo {
    /// From the process environment (see the [module](self) docs for the names).
    pub fn from_env() -> Result<RankInfo> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// From the variables `get` returns (`None`: not set). The first launcher whose rank
    /// variable is set wins; its size must be set too. `Err` names the variable at fault.
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<RankInfo> {
        for (rank_var, size_var, local_vars) in LAUNCHERS {
            let Some(rank) = get(rank_var) else { continue };
            let rank = parse_var(rank_var, &rank)?;
            let size = get(size_var).ok_or_else(|| {
                Error::Rendezvous(format!("{rank_var} is set but {size_var} is not"))
            })?;
            let world_size = parse_var(size_var, &size)?;
            if world_size == 0 || rank >= world_size {
                return Err(Error::Rendezvous(format!(
                    "{rank_var}={rank} is out of range for {size_var}={world_size}"
                )));
            }
            let mut local_rank = None;
            for v in local_vars {
                if let Some(l) = get(v) {
                    local_rank = Some(parse_var(v, &l)?);
                    break;
                }
            }
            return Ok(RankInfo {
                rank,
                world_size,
                local_rank,
            });
        }
        Err(Error::Rendezvous(
            "no rank in the environment: set RANK and WORLD_SIZE (or run under mpirun or srun, \
             which set OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE or SLURM_PROCID/NTASKS)"
                .into(),
        ))
    }
}

/// Where rank 0 publishes the [`UniqueId`] and the other ranks fetch it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rendezvous {
    /// Rank 0 listens on `host:port` and answers each rank once all of them have connected.
    Tcp {
        /// `MASTER_ADDR`: a name or address of rank 0's host that every rank reaches.
        host: String,
        /// `MASTER_PORT`.
        port: u16,
        /// What rank 0 binds instead of `host`'s address (`CUPRITE_RDZV_BIND`).
        bind: Option<String>,
    },
    /// Rank 0 writes the id to this path (atomically, by renaming); the others poll for it.
    /// Use a fresh path for each job.
    File(PathBuf),
}

/// The protocol tag of both the TCP messages and the file.
const MAGIC: &[u8; 8] = b"CPRDZV01";

impl Rendezvous {
    /// From the process environment: `MASTER_ADDR` + `MASTER_PORT` (TCP), else
    /// `CUPRITE_RDZV_FILE`.
    pub fn from_env() -> Result<Rendezvous> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// From the variables `get` returns (see [`from_env`](Self::from_env)).
    ///
    /// ```
    /// use cuprite_driver::nccl::rendezvous::Rendezvous;
    /// let r = Rendezvous::from_vars(|k| match k {
    ///     "MASTER_ADDR" => Some("127.0.0.1".into()),
    ///     "MASTER_PORT" => Some("29500".into()),
    ///     _ => None,
    /// }).unwrap();
    /// assert_eq!(r, Rendezvous::Tcp { host: "127.0.0.1".into(), port: 29500, bind: None });
    /// ```
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Rendezvous> {
        match (get("MASTER_ADDR"), get("MASTER_PORT")) {
            (Some(host), Some(port)) => {
                let port = port.trim().parse::<u16>().map_err(|_| {
                    Error::Rendezvous(format!("MASTER_PORT={port:?} is not a port number"))
                })?;
                if host.trim().is_empty() {
                    return Err(Error::Rendezvous("MASTER_ADDR is empty".into()));
                }
                Ok(Rendezvous::Tcp {
                    host: host.trim().to_string(),
                    port,
                    bind: get("CUPRITE_RDZV_BIND").filter(|b| !b.trim().is_empty()),
                })
            }
            (Some(_), None) => Err(Error::Rendezvous(
                "MASTER_ADDR is set but MASTER_PORT is not".into(),
            )),
            (None, Some(_)) => Err(Error::Rendezvous(
                "MASTER_PORT is set but MASTER_ADDR is not".into(),
            )),
            (None, None) => match get("CUPRITE_RDZV_FILE").filter(|f| !f.is_empty()) {
                Some(f) => Ok(Rendezvous::File(PathBuf::from(f))),
                None => Err(Error::Rendezvous(
                    "no rendezvous in the environment: set MASTER_ADDR and MASTER_PORT, or \
                     CUPRITE_RDZV_FILE"
                        .into(),
                )),
            },
        }
    }

    /// Shares 128 bytes from rank 0 with every rank: rank 0 passes `Some(bytes)` and gets them
    /// back once every rank has them; the others pass `None` and get rank 0's. Everything
    /// waits at most `timeout`. Over TCP, rank 0 answers only once all `world_size − 1` ranks
    /// have connected, so a missing rank makes *every* rank return [`Error::Timeout`].
    pub fn exchange(
        &self,
        rank: usize,
        world_size: usize,
        payload: Option<&[u8; UniqueId::BYTES]>,
        timeout: Duration,
    ) -> Result<[u8; UniqueId::BYTES]> {
        if world_size == 0 || rank >= world_size || world_size > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "rendezvous: rank {rank} is out of range for {world_size} rank(s)"
            )));
        }
        let deadline = Instant::now() + timeout;
        match (rank, payload) {
            (0, Some(p)) => {
                match self {
                    Rendezvous::Tcp { host, port, bind } => serve(
                        bind.as_deref().unwrap_or(host),
                        *port,
                        world_size,
                        p,
                        deadline,
                        timeout,
                    )?,
                    Rendezvous::File(path) => write_file(path, world_size, p)?,
                }
                Ok(*p)
            }
            (0, None) => Err(Error::InvalidArgument(
                "rendezvous: rank 0 must provide the bytes to share".into(),
            )),
            (_, Some(_)) => Err(Error::InvalidArgument(format!(
                "rendezvous: only rank 0 provides the bytes, not rank {rank}"
            ))),
            (_, None) => match self {
                Rendezvous::Tcp { host, port, .. } => {
                    fetch(host, *port, rank, world_size, deadline, timeout)
                }
                Rendezvous::File(path) => read_file(path, world_size, deadline, timeout),
            },
        }
    }

    /// The [`UniqueId`] of this job: made by rank 0 ([`UniqueId::new`]) and shared through
    /// [`exchange`](Self::exchange).
    pub fn unique_id(&self, info: &RankInfo, timeout: Duration) -> Result<UniqueId> {
        let bytes = if info.rank == 0 {
            let id = UniqueId::new()?;
            self.exchange(0, info.world_size, Some(id.as_bytes()), timeout)?
        } else {
            self.exchange(info.rank, info.world_size, None, timeout)?
        };
        UniqueId::from_bytes(&bytes)
    }
}

/// Everything from the environment: the rank ([`RankInfo::from_env`]), its GPU (the local
/// rank modulo the GPU count, else the rank modulo it), the rendezvous
/// ([`Rendezvous::from_env`]) and the communicator ([`Comm::init_rank_with_timeout`]), each
/// wait bounded by [`default_timeout`].
pub fn init_from_env() -> Result<(Comm, RankInfo)> {
    let info = RankInfo::from_env()?;
    let rdzv = Rendezvous::from_env()?;
    init_with(&info, &rdzv, default_timeout())
}

/// [`init_from_env`] with explicit parts.
pub fn init_with(
    info: &RankInfo,
    rdzv: &Rendezvous,
    timeout: Duration,
) -> Result<(Comm, RankInfo)> {
    init_with_options(info, rdzv, CommOptions::default().with_timeout(timeout))
}

/// [`init_with`] with all the communicator's [`CommOptions`] (its timeout bounds the
/// rendezvous too).
pub fn init_with_options(
    info: &RankInfo,
    rdzv: &Rendezvous,
    options: CommOptions,
) -> Result<(Comm, RankInfo)> {
    let timeout = options.timeout;
    let devices = crate::Device::count()?;
    if devices == 0 {
        return Err(Error::InvalidArgument(
            "no CUDA device for this rank".into(),
        ));
    }
    let ordinal = info.local_rank.unwrap_or(info.rank) % devices;
    let ctx = Context::new(ordinal)?;
    let id = rdzv.unique_id(info, timeout)?;
    let comm = Comm::init_rank_with(&ctx, &id, info.world_size, info.rank, options)?;
    Ok((comm, *info))
}

fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| Error::Rendezvous(format!("cannot resolve {host}:{port}: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(Error::Rendezvous(format!(
            "{host}:{port} resolves to nothing"
        )));
    }
    Ok(addrs)
}

fn timeout_err(what: String, timeout: Duration) -> Error {
    Error::Timeout {
        what,
        seconds: timeout.as_secs_f64(),
    }
}

fn io_err(what: &str, e: std::io::Error) -> Error {
    Error::Rendezvous(format!("{what}: {e}"))
}

/// Reads exactly `buf.len()` bytes before `deadline` (the socket's read timeout is moved to
/// the time left before each read).
fn read_exact_by(s: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> std::io::Result<()> {
    let mut got = 0;
    while got < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(ErrorKind::TimedOut, "deadline passed"));
        }
        s.set_read_timeout(Some(left))?;
        match s.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    ErrorKind::UnexpectedEof,
                    "the peer closed the connection",
                ));
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// An answer to one rank: the payload, or an error message.
fn answer(s: &mut TcpStream, r: std::result::Result<&[u8; UniqueId::BYTES], &str>) {
    let mut msg = MAGIC.to_vec();
    match r {
        Ok(p) => {
            msg.push(0);
            msg.extend_from_slice(p);
        }
        Err(text) => {
            let t = &text.as_bytes()[..text.len().min(u16::MAX as usize)];
            msg.push(1);
            msg.extend_from_slice(&(t.len() as u16).to_le_bytes());
            msg.extend_from_slice(t);
        }
    }
    let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = s.write_all(&msg);
}

/// Rank 0 over TCP: accepts `world_size − 1` ranks, then sends each the payload.
fn serve(
    host: &str,
    port: u16,
    world_size: usize,
    payload: &[u8; UniqueId::BYTES],
    deadline: Instant,
    timeout: Duration,
) -> Result<()> {
    if world_size == 1 {
        return Ok(());
    }
    let addrs = resolve(host, port)?;
    let listener = TcpListener::bind(&addrs[..])
        .map_err(|e| io_err(&format!("rank 0 cannot listen on {host}:{port}"), e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| io_err("rendezvous listener", e))?;
    let mut peers: Vec<Option<TcpStream>> = (0..world_size).map(|_| None).collect();
    let mut arrived = 1;
    let fail_all = |peers: &mut [Option<TcpStream>], why: &str| {
        for s in peers.iter_mut().flatten() {
            answer(s, Err(why));
        }
    };
    while arrived < world_size {
        let now = Instant::now();
        if now >= deadline {
            let missing: Vec<String> = (1..world_size)
                .filter(|&r| peers[r].is_none())
                .map(|r| r.to_string())
                .collect();
            let why = format!(
                "rank(s) {} of {world_size} never reached rank 0 at {host}:{port}",
                missing.join(", ")
            );
            fail_all(&mut peers, &why);
            return Err(timeout_err(why, timeout));
        }
        let (mut s, from) = match listener.accept() {
            Ok(x) => x,
            Err(e) if is_timeout(&e) || e.kind() == ErrorKind::Interrupted => {
                std::thread::sleep(Duration::from_millis(5).min(deadline - now));
                continue;
            }
            Err(e) => return Err(io_err("rendezvous accept", e)),
        };
        if s.set_nonblocking(false).is_err() {
            continue;
        }
        let mut hello = [0u8; 16];
        // A connection that says nothing within a few seconds is not one of ours.
        let hello_deadline = deadline.min(Instant::now() + Duration::from_secs(5));
        if read_exact_by(&mut s, &mut hello, hello_deadline).is_err() || &hello[..8] != MAGIC {
            continue;
        }
        let rank = u32::from_le_bytes([hello[8], hello[9], hello[10], hello[11]]) as usize;
        let size = u32::from_le_bytes([hello[12], hello[13], hello[14], hello[15]]) as usize;
        let bad = if size != world_size {
            Some(format!(
                "a rank at {from} says the world has {size} ranks; rank 0 says {world_size}"
            ))
        } else if rank == 0 || rank >= world_size {
            Some(format!(
                "a rank at {from} says it is rank {rank}, out of 1..{world_size}"
            ))
        } else if peers[rank].is_some() {
            Some(format!(
                "rank {rank} connected twice (the second from {from})"
            ))
        } else {
            None
        };
        if let Some(why) = bad {
            answer(&mut s, Err(&why));
            fail_all(&mut peers, &why);
            return Err(Error::Rendezvous(why));
        }
        peers[rank] = Some(s);
        arrived += 1;
    }
    for s in peers.iter_mut().flatten() {
        answer(s, Ok(payload));
    }
    Ok(())
}

/// A rank other than 0 over TCP: connects (retrying until rank 0 listens), says who it is,
/// and waits for the payload.
fn fetch(
    host: &str,
    port: u16,
    rank: usize,
    world_size: usize,
    deadline: Instant,
    timeout: Duration,
) -> Result<[u8; UniqueId::BYTES]> {
    let addrs = resolve(host, port)?;
    let mut last_err = String::from("no attempt");
    let mut s = 'connect: loop {
        for a in &addrs {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break 'connect None;
            }
            match TcpStream::connect_timeout(a, left.min(Duration::from_secs(2))) {
                Ok(s) => break 'connect Some(s),
                Err(e) => last_err = e.to_string(),
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(Duration::from_millis(20).min(left));
    }
    .ok_or_else(|| {
        timeout_err(
            format!("rank {rank} could not reach rank 0 at {host}:{port} (last error: {last_err})"),
            timeout,
        )
    })?;
    let _ = s.set_nodelay(true);
    let mut hello = MAGIC.to_vec();
    hello.extend_from_slice(&(rank as u32).to_le_bytes());
    hello.extend_from_slice(&(world_size as u32).to_le_bytes());
    s.set_write_timeout(Some(
        deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1)),
    ))
    .map_err(|e| io_err("rendezvous socket", e))?;
    s.write_all(&hello)
        .map_err(|e| io_err(&format!("rank {rank} sending to {host}:{port}"), e))?;
    let wait = |e: std::io::Error| {
        if is_timeout(&e) {
            timeout_err(
                format!(
                    "rank {rank} reached rank 0 at {host}:{port} but got no answer: other \
                     ranks missing?"
                ),
                timeout,
            )
        } else {
            io_err(
                &format!("rank {rank} waiting for rank 0 at {host}:{port}"),
                e,
            )
        }
    };
    let mut head = [0u8; 9];
    read_exact_by(&mut s, &mut head, deadline).map_err(wait)?;
    if &head[..8] != MAGIC {
        return Err(Error::Rendezvous(format!(
            "{host}:{port} does not speak cuprite's rendezvous protocol"
        )));
    }
    if head[8] == 0 {
        let mut p = [0u8; UniqueId::BYTES];
        read_exact_by(&mut s, &mut p, deadline).map_err(wait)?;
        return Ok(p);
    }
    let mut len = [0u8; 2];
    read_exact_by(&mut s, &mut len, deadline).map_err(wait)?;
    let mut text = vec![0u8; u16::from_le_bytes(len) as usize];
    read_exact_by(&mut s, &mut text, deadline).map_err(wait)?;
    Err(Error::Rendezvous(format!(
        "rank 0 refused rank {rank}: {}",
        String::from_utf8_lossy(&text)
    )))
}

fn file_contents(world_size: usize, payload: &[u8; UniqueId::BYTES]) -> Vec<u8> {
    let mut v = MAGIC.to_vec();
    v.extend_from_slice(&(world_size as u32).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

fn write_file(
    path: &std::path::Path,
    world_size: usize,
    payload: &[u8; UniqueId::BYTES],
) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, file_contents(world_size, payload))
        .map_err(|e| io_err(&format!("writing {}", tmp.display()), e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err(
            &format!("renaming {} to {}", tmp.display(), path.display()),
            e,
        )
    })
}

fn read_file(
    path: &std::path::Path,
    world_size: usize,
    deadline: Instant,
    timeout: Duration,
) -> Result<[u8; UniqueId::BYTES]> {
    loop {
        match std::fs::read(path) {
            Ok(v) => {
                if v.len() != 12 + UniqueId::BYTES || &v[..8] != MAGIC {
                    return Err(Error::Rendezvous(format!(
                        "{} is not a cuprite rendezvous file",
                        path.display()
                    )));
                }
                let size = u32::from_le_bytes([v[8], v[9], v[10], v[11]]) as usize;
                if size != world_size {
                    return Err(Error::Rendezvous(format!(
                        "{} was written for {size} ranks; this rank expects {world_size} (a \
                         file left by another job?)",
                        path.display()
                    )));
                }
                let mut p = [0u8; UniqueId::BYTES];
                p.copy_from_slice(&v[12..]);
                return Ok(p);
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&format!("reading {}", path.display()), e)),
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timeout_err(
                format!("rank 0 never wrote {}", path.display()),
                timeout,
            ));
        }
        std::thread::sleep(Duration::from_millis(10).min(left));
    }
}
