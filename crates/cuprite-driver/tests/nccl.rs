//! NCCL: the missing library, unique ids, the rank environment and the rendezvous (CPU, over
//! loopback only), and on GPUs every collective for every element type against values
//! computed on the host, odd sizes, groups, argument checks, ordering with work on other
//! streams, timeouts, and (with two GPUs or more) processes that find each other and a rank
//! that dies.
//!
//! GPU tests use `Comm::init_all` over every visible GPU, so they run with one GPU (one rank)
//! as well as with several. They share one set of communicators and run one at a time (NCCL
//! communicators are created once: making them is slow).

use cuprite_driver::nccl::rendezvous::{RankInfo, Rendezvous};
use cuprite_driver::nccl::{self, Comm, NcclType, ReduceOp, UniqueId};
use cuprite_driver::{
    CaptureMode, Context, ContextFlags, ContextStack, Device, DeviceBuffer, DeviceRead, Error,
    Stream,
};
use cuprite_testkit::{Rng, Test, TestResult, temp_dir};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("nccl::missing_library_is_an_err", missing_library_is_an_err),
        Test::cpu(
            "nccl::unique_id_bytes_round_trip",
            unique_id_bytes_round_trip,
        ),
        Test::cpu("nccl::rank_info_from_launchers", rank_info_from_launchers),
        Test::cpu("nccl::rendezvous_from_vars", rendezvous_from_vars),
        Test::cpu("nccl::rendezvous_tcp_loopback", rendezvous_tcp_loopback),
        Test::cpu(
            "nccl::rendezvous_tcp_missing_rank_times_out",
            rendezvous_tcp_missing_rank_times_out,
        ),
        Test::cpu(
            "nccl::rendezvous_tcp_no_rank0_times_out",
            rendezvous_tcp_no_rank0_times_out,
        ),
        Test::cpu(
            "nccl::rendezvous_tcp_world_mismatch",
            rendezvous_tcp_world_mismatch,
        ),
        Test::cpu("nccl::rendezvous_file", rendezvous_file),
        Test::cpu(
            "nccl::rendezvous_argument_checks",
            rendezvous_argument_checks,
        ),
        Test::gpu("nccl::comm_info", comm_info),
        Test::gpu(
            "nccl::all_reduce_every_op_and_type",
            all_reduce_every_op_and_type,
        ),
        Test::gpu("nccl::all_reduce_in_place", all_reduce_in_place),
        Test::gpu("nccl::broadcast_every_type", broadcast_every_type),
        Test::gpu("nccl::reduce_every_op", reduce_every_op),
        Test::gpu("nccl::all_gather_every_type", all_gather_every_type),
        Test::gpu("nccl::reduce_scatter_every_op", reduce_scatter_every_op),
        Test::gpu("nccl::send_recv_ring", send_recv_ring),
        Test::gpu("nccl::all_to_all", all_to_all),
        Test::gpu("nccl::odd_sizes", odd_sizes),
        Test::gpu("nccl::grouped_calls", grouped_calls),
        Test::gpu("nccl::argument_checks", argument_checks),
        Test::gpu(
            "nccl::ordered_with_kernels_on_other_streams",
            ordered_with_kernels_on_other_streams,
        ),
        Test::gpu("nccl::init_and_drop_repeatedly", init_and_drop_repeatedly),
        Test::gpu_alone("nccl::refused_in_capture", refused_in_capture),
        Test::gpu("nccl::blocking_communicators", blocking_communicators),
        Test::gpu(
            "nccl::missing_rank_init_times_out",
            missing_rank_init_times_out,
        ),
        Test::gpu("peer::same_device_contexts", peer_same_device_contexts),
        Test::gpus(2, "peer::copies_between_gpus", peer_copies_between_gpus),
        Test::gpus(2, "nccl::two_processes", two_processes),
        Test::gpus(2, "nccl::dead_rank_ends_in_err", dead_rank_ends_in_err),
        Test::gpus(
            2,
            "nccl::drop_with_unfinished_work",
            drop_with_unfinished_work,
        ),
    ]
}

/// Set in a child process of this binary: what it must do.
pub const CHILD_ENV: &str = "CUPRITE_NCCL_TEST_CHILD";

/// In a child (see [`CHILD_ENV`]): does the job and returns the exit code.
pub fn child_if_asked() -> Option<i32> {
    let what = std::env::var(CHILD_ENV).ok()?;
    let r: Result<String, Box<dyn std::error::Error>> = match what.as_str() {
        "missing" => child_missing(),
        "rank" => child_rank(false),
        "rank-dies" => child_rank(true),
        "init-missing" => child_init_missing(),
        "drop-unfinished" => child_drop_unfinished(),
        other => Err(format!("unknown child job {other}").into()),
    };
    Some(match r {
        Ok(line) => {
            println!("CHILD-OK {line}");
            0
        }
        Err(e) => {
            println!("CHILD-ERR {e}");
            1
        }
    })
}

fn child_missing() -> Result<String, Box<dyn std::error::Error>> {
    let e = match UniqueId::new() {
        Ok(_) => return Err("UniqueId::new succeeded without NCCL".into()),
        Err(e) => e,
    };
    let text = e.to_string();
    if !matches!(
        e,
        Error::LibraryNotFound {
            library: "libnccl",
            ..
        }
    ) {
        return Err(format!("not LibraryNotFound: {e:?}").into());
    }
    let v = nccl::version();
    if !matches!(v, Err(Error::LibraryNotFound { .. })) {
        return Err(format!("version() without NCCL: {v:?}").into());
    }
    Ok(text.replace('\n', " | "))
}

/// One rank of a multi-process job, from the environment: all-reduces a known buffer and
/// checks the sum. With `dies`, after that first (checked) all-reduce rank 1 exits, and rank
/// 0's second all-reduce must end in an `Err` from the call or from `Comm::wait` (a timeout
/// that aborts the communicator, or NCCL's own error), not hang.
fn child_rank(dies: bool) -> Result<String, Box<dyn std::error::Error>> {
    let (mut comm, info) = nccl::rendezvous::init_from_env()?;
    comm.set_timeout(Duration::from_secs(if dies { 10 } else { 60 }));
    let s = comm.context().new_stream()?;
    let n = 1 << 20;
    let mine: Vec<f32> = (0..n)
        .map(|i| ((i % 13) * (info.rank + 1)) as f32)
        .collect();
    let x = s.clone_htod(&mine)?;
    let mut y = s.alloc_zeros::<f32>(n)?;
    comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s)?;
    comm.wait(&s)?;
    let got = s.clone_dtoh(&y)?;
    let w = info.world_size;
    for (i, g) in got.iter().enumerate() {
        let want = ((i % 13) * w * (w + 1) / 2) as f32;
        if *g != want {
            return Err(format!("rank {}: element {i} is {g}, want {want}", info.rank).into());
        }
    }
    if !dies {
        return Ok(format!("rank {} of {w} summed {n} elements", info.rank));
    }
    if info.rank == 1 {
        std::process::exit(0);
    }
    // Give rank 1 time to be gone.
    std::thread::sleep(Duration::from_millis(500));
    let t = Instant::now();
    let second = comm
        .all_reduce(&x, &mut y, ReduceOp::Sum, &s)
        .and_then(|_| comm.wait(&s));
    match second {
        Err(e) => Ok(format!(
            "rank {} got Err after {:.1} s: {e}",
            info.rank,
            t.elapsed().as_secs_f64()
        )),
        Ok(()) => Err("the second all-reduce completed without rank 1".into()),
    }
}

fn spawn_child(job: &str, env: &[(&str, String)]) -> std::io::Result<std::process::Child> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.env(CHILD_ENV, job).env("NCCL_NVLS_ENABLE", "0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
}

/// Waits for a child up to `limit`, killing it after that. Returns (status ok, stdout+stderr).
fn wait_child(mut c: std::process::Child, limit: Duration) -> std::io::Result<(bool, String)> {
    let start = Instant::now();
    loop {
        if let Some(_status) = c.try_wait()? {
            break;
        }
        if start.elapsed() > limit {
            c.kill()?;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = c.wait_with_output()?;
    Ok((
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    ))
}

/// A port free now, for a rendezvous to listen on soon after. Taken below Linux's ephemeral
/// range (32768–60999): a port the system hands out (bind to port 0) can be taken, before
/// the listen, as the local port of another test's outgoing connection ("Address already in
/// use"). Falls back to one the system picks.
fn free_port() -> std::io::Result<u16> {
    let mut rng = Rng::fresh();
    for _ in 0..64 {
        let p = 20_000 + (rng.next_u64() % 12_000) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", p)).is_ok() {
            return Ok(p);
        }
    }
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

// ---------------------------------------------------------------------------------------
// CPU

fn missing_library_is_an_err() -> TestResult {
    let dir = temp_dir("nonccl");
    let file = dir.join("libnccl.so.2");
    let c = spawn_child(
        "missing",
        &[("CUPRITE_NCCL_PATH", file.display().to_string())],
    )?;
    let (ok, out) = wait_child(c, Duration::from_secs(60))?;
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ok, "child failed: {out}");
    assert!(out.contains("CHILD-OK libnccl not found"), "{out}");
    assert!(
        out.contains(&format!("{}: not found", file.display())),
        "{out}"
    );
    Ok(())
}

fn unique_id_bytes_round_trip() -> TestResult {
    let mut rng = Rng::fresh();
    let bytes: Vec<u8> = (0..UniqueId::BYTES).map(|_| rng.next_u64() as u8).collect();
    let id = UniqueId::from_bytes(&bytes)?;
    assert_eq!(&id.as_bytes()[..], &bytes[..]);
    let again = UniqueId::from_bytes(id.as_bytes())?;
    assert_eq!(again, id);
    for bad in [0, 1, 127, 129, 256] {
        let v = vec![0u8; bad];
        match UniqueId::from_bytes(&v) {
            Err(Error::InvalidArgument(m)) => {
                assert!(
                    m.contains("128 bytes") && m.contains(&format!("got {bad}")),
                    "{m}"
                )
            }
            other => panic!("{bad} bytes: {other:?}"),
        }
    }
    // Debug shows a fingerprint, not the bytes (they hold an address).
    let d = format!("{id:?}");
    assert!(d.starts_with("UniqueId(") && d.len() < 40, "{d}");
    Ok(())
}

fn vars<'a>(list: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |k| {
        list.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    }
}

fn rank_info_from_launchers() -> TestResult {
    let torch = RankInfo::from_vars(vars(&[
        ("RANK", "2"),
        ("WORLD_SIZE", "8"),
        ("LOCAL_RANK", "2"),
    ]))?;
    assert_eq!(
        (torch.rank, torch.world_size, torch.local_rank),
        (2, 8, Some(2))
    );
    let ompi = RankInfo::from_vars(vars(&[
        ("OMPI_COMM_WORLD_RANK", "5"),
        ("OMPI_COMM_WORLD_SIZE", "6"),
        ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
    ]))?;
    assert_eq!(
        (ompi.rank, ompi.world_size, ompi.local_rank),
        (5, 6, Some(1))
    );
    let pmi = RankInfo::from_vars(vars(&[("PMI_RANK", "0"), ("PMI_SIZE", "3")]))?;
    assert_eq!((pmi.rank, pmi.world_size, pmi.local_rank), (0, 3, None));
    let slurm = RankInfo::from_vars(vars(&[
        ("SLURM_PROCID", "7"),
        ("SLURM_NTASKS", "16"),
        ("SLURM_LOCALID", "3"),
    ]))?;
    assert_eq!((slurm.rank, slurm.local_rank), (7, Some(3)));
    // torchrun's names win over MPI's when both are present.
    let both = RankInfo::from_vars(vars(&[
        ("RANK", "1"),
        ("WORLD_SIZE", "2"),
        ("OMPI_COMM_WORLD_RANK", "0"),
        ("OMPI_COMM_WORLD_SIZE", "4"),
    ]))?;
    assert_eq!((both.rank, both.world_size), (1, 2));
    let expect_err = |list: &[(&str, &str)], needle: &str| match RankInfo::from_vars(vars(list)) {
        Err(Error::Rendezvous(m)) => assert!(m.contains(needle), "{needle}: {m}"),
        other => panic!("{list:?}: {other:?}"),
    };
    expect_err(&[("RANK", "1")], "WORLD_SIZE is not");
    expect_err(&[("RANK", "x"), ("WORLD_SIZE", "2")], "RANK=\"x\"");
    expect_err(&[("RANK", "2"), ("WORLD_SIZE", "2")], "out of range");
    expect_err(&[("RANK", "0"), ("WORLD_SIZE", "0")], "out of range");
    expect_err(
        &[("RANK", "0"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "-1")],
        "LOCAL_RANK",
    );
    expect_err(&[], "no rank in the environment");
    Ok(())
}

fn rendezvous_from_vars() -> TestResult {
    let r = Rendezvous::from_vars(vars(&[
        ("MASTER_ADDR", "10.1.2.3"),
        ("MASTER_PORT", "29500"),
        ("CUPRITE_RDZV_BIND", "0.0.0.0"),
    ]))?;
    assert_eq!(
        r,
        Rendezvous::Tcp {
            host: "10.1.2.3".into(),
            port: 29500,
            bind: Some("0.0.0.0".into())
        }
    );
    let f = Rendezvous::from_vars(vars(&[("CUPRITE_RDZV_FILE", "/shared/job1.id")]))?;
    assert_eq!(f, Rendezvous::File("/shared/job1.id".into()));
    for (list, needle) in [
        (&[("MASTER_ADDR", "h")][..], "MASTER_PORT is not"),
        (&[("MASTER_PORT", "1")][..], "MASTER_ADDR is not"),
        (
            &[("MASTER_ADDR", "h"), ("MASTER_PORT", "70000")][..],
            "70000",
        ),
        (&[][..], "no rendezvous"),
    ] {
        match Rendezvous::from_vars(vars(list)) {
            Err(Error::Rendezvous(m)) => assert!(m.contains(needle), "{needle}: {m}"),
            other => panic!("{list:?}: {other:?}"),
        }
    }
    Ok(())
}

fn loopback(port: u16) -> Rendezvous {
    Rendezvous::Tcp {
        host: "127.0.0.1".into(),
        port,
        bind: None,
    }
}

fn rendezvous_tcp_loopback() -> TestResult {
    let port = free_port()?;
    let world = 4;
    let mut rng = Rng::fresh();
    let mut payload = [0u8; UniqueId::BYTES];
    for b in payload.iter_mut() {
        *b = rng.next_u64() as u8;
    }
    let timeout = Duration::from_secs(20);
    // The other ranks start first (they retry until rank 0 listens), in reverse order.
    let handles: Vec<_> = (1..world)
        .rev()
        .map(|r| std::thread::spawn(move || loopback(port).exchange(r, world, None, timeout)))
        .collect();
    std::thread::sleep(Duration::from_millis(50));
    let got0 = loopback(port).exchange(0, world, Some(&payload), timeout)?;
    assert_eq!(got0, payload);
    for h in handles {
        let got = h.join().map_err(|_| "rank thread panicked")??;
        assert_eq!(got, payload);
    }
    // The world of one needs no network at all.
    assert_eq!(
        loopback(1).exchange(0, 1, Some(&payload), timeout)?,
        payload
    );
    Ok(())
}

fn rendezvous_tcp_missing_rank_times_out() -> TestResult {
    let port = free_port()?;
    let timeout = Duration::from_millis(1500);
    let t = Instant::now();
    // World of 3; rank 2 never comes.
    let r1 = std::thread::spawn(move || loopback(port).exchange(1, 3, None, timeout));
    let r0 = loopback(port).exchange(0, 3, Some(&[1u8; 128]), timeout);
    let r1 = r1.join().map_err(|_| "rank thread panicked")?;
    let elapsed = t.elapsed();
    match r0 {
        Err(Error::Timeout { what, .. }) => assert!(what.contains("rank(s) 2 of 3"), "{what}"),
        other => panic!("rank 0: {other:?}"),
    }
    // Rank 1 is told by rank 0 why, or times out on its own: an Err either way.
    match r1 {
        Err(Error::Rendezvous(m)) => assert!(m.contains("rank(s) 2 of 3"), "{m}"),
        Err(Error::Timeout { .. }) => {}
        other => panic!("rank 1: {other:?}"),
    }
    // Liveness, not speed: both ranks give up once `timeout` has passed, so a hang would never
    // end. The bound is 20 × the timeout (30 s for 1.5 s of waiting): what a loaded machine or
    // a sanitizer adds to thread start-up and socket calls stays far below it.
    assert!(
        elapsed < timeout * 20,
        "took {elapsed:?}, timeout {timeout:?}"
    );
    Ok(())
}

fn rendezvous_tcp_no_rank0_times_out() -> TestResult {
    let port = free_port()?;
    let timeout = Duration::from_millis(700);
    let t = Instant::now();
    match loopback(port).exchange(2, 3, None, timeout) {
        Err(Error::Timeout { what, seconds }) => {
            assert!(what.contains("could not reach rank 0"), "{what}");
            assert!((seconds - 0.7).abs() < 1e-9);
        }
        other => panic!("{other:?}"),
    }
    // It waited for its deadline: `Instant` is monotonic and the deadline runs from inside the
    // call, after `t`, so the elapsed time is at least the timeout whatever the load (50 ms are
    // left for a deadline the implementation rounds down to its retry period).
    let elapsed = t.elapsed();
    assert!(
        elapsed >= timeout - Duration::from_millis(50),
        "{elapsed:?}"
    );
    // Liveness, not speed: 20 × the timeout (14 s), far above any scheduling delay.
    assert!(
        elapsed < timeout * 20,
        "took {elapsed:?}, timeout {timeout:?}"
    );
    Ok(())
}

fn rendezvous_tcp_world_mismatch() -> TestResult {
    let port = free_port()?;
    let timeout = Duration::from_secs(10);
    let r1 = std::thread::spawn(move || loopback(port).exchange(1, 3, None, timeout));
    let r0 = loopback(port).exchange(0, 2, Some(&[9u8; 128]), timeout);
    let r1 = r1.join().map_err(|_| "rank thread panicked")?;
    for (who, r) in [("rank 0", r0), ("rank 1", r1)] {
        match r {
            Err(Error::Rendezvous(m)) => {
                assert!(
                    m.contains("3 ranks") && m.contains("rank 0 says 2"),
                    "{who}: {m}"
                )
            }
            other => panic!("{who}: {other:?}"),
        }
    }
    Ok(())
}

fn rendezvous_file() -> TestResult {
    let dir = temp_dir("rdzv");
    let path = dir.join("job.id");
    let rdzv = Rendezvous::File(path.clone());
    let timeout = Duration::from_secs(10);
    let readers: Vec<_> = (1..3)
        .map(|r| {
            let rd = rdzv.clone();
            std::thread::spawn(move || rd.exchange(r, 3, None, timeout))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(30));
    let payload = [0x5au8; UniqueId::BYTES];
    assert_eq!(rdzv.exchange(0, 3, Some(&payload), timeout)?, payload);
    for h in readers {
        assert_eq!(h.join().map_err(|_| "reader panicked")??, payload);
    }
    // A file written for another world size is refused.
    match rdzv.exchange(1, 4, None, timeout) {
        Err(Error::Rendezvous(m)) => assert!(m.contains("3 ranks"), "{m}"),
        other => panic!("{other:?}"),
    }
    // No rank 0: a timeout.
    let none = Rendezvous::File(dir.join("never.id"));
    match none.exchange(1, 2, None, Duration::from_millis(300)) {
        Err(Error::Timeout { what, .. }) => assert!(what.contains("never wrote"), "{what}"),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn rendezvous_argument_checks() -> TestResult {
    let r = loopback(1);
    let t = Duration::from_millis(10);
    for (rank, world, payload, needle) in [
        (0usize, 2usize, None, "rank 0 must provide"),
        (1, 2, Some(&[0u8; 128]), "only rank 0"),
        (2, 2, None, "out of range"),
        (0, 0, None, "out of range"),
    ] {
        match r.exchange(rank, world, payload, t) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains(needle), "{needle}: {m}"),
            other => panic!("{rank}/{world}: {other:?}"),
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// GPU

/// Communicators over every visible GPU, one stream each, shared by the GPU tests (which
/// take the lock, so they run one at a time).
struct Env {
    comms: Vec<Comm>,
    streams: Vec<Arc<Stream>>,
}

fn env() -> Result<std::sync::MutexGuard<'static, Env>, Box<dyn std::error::Error + Send + Sync>> {
    static ENV: OnceLock<Result<Mutex<Env>, String>> = OnceLock::new();
    let e = ENV.get_or_init(|| {
        let make = || -> cuprite_driver::Result<Env> {
            let n = Device::count()?;
            let ctxs = (0..n)
                .map(Context::new)
                .collect::<cuprite_driver::Result<Vec<_>>>()?;
            let comms = Comm::init_all(&ctxs)?;
            let streams = ctxs
                .iter()
                .map(|c| c.new_stream())
                .collect::<cuprite_driver::Result<Vec<_>>>()?;
            Ok(Env { comms, streams })
        };
        make().map(Mutex::new).map_err(|e| e.to_string())
    });
    match e {
        Ok(m) => Ok(m.lock().unwrap_or_else(|p| p.into_inner())),
        Err(e) => Err(format!("Comm::init_all over every GPU failed: {e}").into()),
    }
}

/// Element types with small integer test values that every type holds exactly.
trait Elem: NcclType + PartialEq + std::fmt::Debug {
    const SIGNED: bool;
    fn from_i64(v: i64) -> Self;
    fn to_f64(self) -> f64;
}

macro_rules! int_elem {
    ($($t:ty, $s:expr;)*) => {$(
        impl Elem for $t {
            const SIGNED: bool = $s;
            fn from_i64(v: i64) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
int_elem! { i8, true; u8, false; i32, true; u32, false; i64, true; u64, false; }

impl Elem for f32 {
    const SIGNED: bool = true;
    fn from_i64(v: i64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl Elem for f64 {
    const SIGNED: bool = true;
    fn from_i64(v: i64) -> Self {
        v as f64
    }
    fn to_f64(self) -> f64 {
        self
    }
}
impl Elem for half::f16 {
    const SIGNED: bool = true;
    fn from_i64(v: i64) -> Self {
        half::f16::from_f64(v as f64)
    }
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
}
impl Elem for half::bf16 {
    const SIGNED: bool = true;
    fn from_i64(v: i64) -> Self {
        half::bf16::from_f64(v as f64)
    }
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
}

/// Runs `$f::<T>($args)` for every NCCL element type.
macro_rules! every_type {
    ($f:ident ( $($a:expr),* )) => {{
        $f::<i8>($($a),*)?;
        $f::<u8>($($a),*)?;
        $f::<i32>($($a),*)?;
        $f::<u32>($($a),*)?;
        $f::<i64>($($a),*)?;
        $f::<u64>($($a),*)?;
        $f::<half::f16>($($a),*)?;
        $f::<half::bf16>($($a),*)?;
        $f::<f32>($($a),*)?;
        $f::<f64>($($a),*)?;
    }};
}

/// Test values for `op` over `nranks` ranks: small enough that every reduction of them is
/// exact in every type (i8 included).
fn values<T: Elem>(rng: &mut Rng, op: ReduceOp, nranks: usize, n: usize) -> Vec<i64> {
    let pick =
        |rng: &mut Rng, lo: i64, hi: i64| lo + (rng.next_u64() % (hi - lo + 1) as u64) as i64;
    (0..n)
        .map(|_| match (op, T::SIGNED) {
            (ReduceOp::Sum, true) => pick(rng, -3, 3),
            (ReduceOp::Sum, false) => pick(rng, 0, 6),
            (ReduceOp::Prod, true) => [-1, 1, 2][pick(rng, 0, 2) as usize],
            (ReduceOp::Prod, false) => pick(rng, 1, 2),
            (ReduceOp::Min | ReduceOp::Max, true) => pick(rng, -50, 50),
            (ReduceOp::Min | ReduceOp::Max, false) => pick(rng, 0, 100),
            // Multiples of the rank count: the mean is an integer.
            (ReduceOp::Avg, true) => nranks as i64 * pick(rng, -1, 1),
            (ReduceOp::Avg, false) => nranks as i64 * pick(rng, 0, 2),
        })
        .collect()
}

fn reduce_host(op: ReduceOp, vals: &[&[i64]], i: usize) -> i64 {
    let it = vals.iter().map(|v| v[i]);
    match op {
        ReduceOp::Sum => it.sum(),
        ReduceOp::Prod => it.product(),
        ReduceOp::Min => it.min().unwrap_or(0),
        ReduceOp::Max => it.max().unwrap_or(0),
        ReduceOp::Avg => it.sum::<i64>() / vals.len() as i64,
    }
}

fn to_t<T: Elem>(v: &[i64]) -> Vec<T> {
    v.iter().map(|&x| T::from_i64(x)).collect()
}

fn assert_eq_t<T: Elem>(got: &[T], want: &[i64], what: &str) -> TestResult {
    assert_eq!(got.len(), want.len(), "{what}: length");
    // Float averages may go through a multiply by 1/n: allow its rounding.
    let tol = match T::NAME {
        "f16" | "bf16" => 1e-2,
        "f32" => 1e-6,
        "f64" => 1e-12,
        _ => 0.0,
    };
    for (i, (g, &w)) in got.iter().zip(want).enumerate() {
        let w_t = T::from_i64(w).to_f64();
        let g = g.to_f64();
        if (g - w_t).abs() > tol * w_t.abs().max(1.0) {
            return Err(format!("{what} ({}): element {i} is {g}, want {w_t}", T::NAME).into());
        }
    }
    Ok(())
}

/// A buffer of `n` elements filled with a value no result has (poisoned output).
fn poisoned<T: Elem>(s: &Arc<Stream>, n: usize) -> cuprite_driver::Result<DeviceBuffer<T>> {
    s.clone_htod(&vec![T::from_i64(77); n])
}

fn comm_info() -> TestResult {
    let env = env()?;
    let n = env.comms.len();
    assert_eq!(n, Device::count()?);
    let (major, minor, _) = nccl::version()?;
    assert!(
        major >= 2 && (major > 2 || minor >= 7),
        "NCCL {major}.{minor}"
    );
    for (r, c) in env.comms.iter().enumerate() {
        assert_eq!(c.rank(), r);
        assert_eq!(c.size(), n);
        assert_eq!(c.context().ordinal(), r);
        assert!(!c.is_failed());
        // Communicators are nonblocking unless asked for (see blocking_communicators), where
        // NCCL has them (2.14 and later).
        assert_eq!(c.is_blocking(), (major, minor) < (2, 14), "{c:?}");
        c.check_async_error()?;
        let mut v = 0;
        // SAFETY: a live communicator and a valid out-pointer.
        unsafe { cuprite_driver::sys::nccl::ncclCommUserRank(c.raw(), &mut v) }?;
        assert_eq!(v as usize, r);
    }
    Ok(())
}

fn all_reduce_case<T: Elem>(env: &Env, op: ReduceOp, n: usize) -> TestResult {
    let nr = env.comms.len();
    let mut rng = Rng::fresh();
    let vals: Vec<Vec<i64>> = (0..nr).map(|_| values::<T>(&mut rng, op, nr, n)).collect();
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (r, s) in env.streams.iter().enumerate() {
        sends.push(s.clone_htod(&to_t::<T>(&vals[r]))?);
        recvs.push(poisoned::<T>(s, n)?);
    }
    nccl::group(|g| {
        for (((c, x), y), s) in env
            .comms
            .iter()
            .zip(&sends)
            .zip(recvs.iter_mut())
            .zip(&env.streams)
        {
            g.all_reduce(c, x, y, op, s)?;
        }
        Ok(())
    })?;
    let refs: Vec<&[i64]> = vals.iter().map(|v| v.as_slice()).collect();
    let want: Vec<i64> = (0..n).map(|i| reduce_host(op, &refs, i)).collect();
    for (r, s) in env.streams.iter().enumerate() {
        let got = s.clone_dtoh(&recvs[r])?;
        assert_eq_t(&got, &want, &format!("all_reduce {op:?} rank {r}"))?;
    }
    Ok(())
}

fn all_reduce_every_op_and_type() -> TestResult {
    let env = env()?;
    for op in ReduceOp::ALL {
        every_type!(all_reduce_case(&env, op, 1031));
    }
    Ok(())
}

fn all_reduce_in_place() -> TestResult {
    let env = env()?;
    let nr = env.comms.len();
    let n = 4099;
    let mut bufs = Vec::new();
    for (r, s) in env.streams.iter().enumerate() {
        bufs.push(s.clone_htod(&(0..n).map(|i| (i * (r + 1)) as f64).collect::<Vec<_>>())?);
    }
    nccl::group(|g| {
        for ((c, b), s) in env.comms.iter().zip(bufs.iter_mut()).zip(&env.streams) {
            g.all_reduce_in_place(c, b, ReduceOp::Max, s)?;
        }
        Ok(())
    })?;
    for (r, s) in env.streams.iter().enumerate() {
        let got = s.clone_dtoh(&bufs[r])?;
        for (i, g) in got.iter().enumerate() {
            assert_eq!(*g, (i * nr) as f64, "rank {r} element {i}");
        }
    }
    Ok(())
}

/// A collective on a capturing stream is an `Err` before NCCL sees it (a graph would outlive
/// the communicator's teardown); the capture ends cleanly and the communicator still works.
fn refused_in_capture() -> TestResult {
    let env = env()?;
    let n = 1000;
    let s = &env.streams[0];
    let x = s.clone_htod(&vec![1.0f32; n])?;
    let mut y = s.clone_htod(&vec![-1.0f32; n])?;
    s.begin_capture(CaptureMode::ThreadLocal)?;
    let e = env.comms[0]
        .all_reduce(&x, &mut y, ReduceOp::Sum, s)
        .expect_err("a collective inside a capture");
    let graph = s.end_capture()?;
    assert!(e.to_string().contains("capturing"), "{e}");
    assert_eq!(graph.num_nodes()?, 0, "nothing was captured");
    assert_eq!(s.clone_dtoh(&y)?, vec![-1.0f32; n], "y untouched");
    let nr = env.comms.len();
    let mut bufs = Vec::new();
    for st in &env.streams {
        bufs.push(st.clone_htod(&vec![2.0f32; n])?);
    }
    nccl::group(|g| {
        for ((c, b), st) in env.comms.iter().zip(bufs.iter_mut()).zip(&env.streams) {
            g.all_reduce_in_place(c, b, ReduceOp::Sum, st)?;
        }
        Ok(())
    })?;
    for (r, st) in env.streams.iter().enumerate() {
        assert_eq!(
            st.clone_dtoh(&bufs[r])?,
            vec![2.0 * nr as f32; n],
            "rank {r}"
        );
    }
    Ok(())
}

fn broadcast_case<T: Elem>(env: &Env, n: usize) -> TestResult {
    let nr = env.comms.len();
    let mut rng = Rng::fresh();
    for root in 0..nr {
        let vals: Vec<Vec<i64>> = (0..nr)
            .map(|_| values::<T>(&mut rng, ReduceOp::Min, nr, n))
            .collect();
        let mut sends = Vec::new();
        let mut recvs = Vec::new();
        for (r, s) in env.streams.iter().enumerate() {
            sends.push(s.clone_htod(&to_t::<T>(&vals[r]))?);
            recvs.push(poisoned::<T>(s, n)?);
        }
        nccl::group(|g| {
            for (r, ((c, y), s)) in env
                .comms
                .iter()
                .zip(recvs.iter_mut())
                .zip(&env.streams)
                .enumerate()
            {
                g.broadcast(c, Some(&sends[r]), y, root, s)?;
            }
            Ok(())
        })?;
        for (r, s) in env.streams.iter().enumerate() {
            assert_eq_t(
                &s.clone_dtoh(&recvs[r])?,
                &vals[root],
                &format!("broadcast root {root} rank {r}"),
            )?;
        }
        // In place: the root's receive buffer is the source.
        let mut bufs = Vec::new();
        for (r, s) in env.streams.iter().enumerate() {
            bufs.push(s.clone_htod(&to_t::<T>(&vals[r]))?);
        }
        nccl::group(|g| {
            for ((c, b), s) in env.comms.iter().zip(bufs.iter_mut()).zip(&env.streams) {
                g.broadcast::<T, DeviceBuffer<T>, _>(c, None, b, root, s)?;
            }
            Ok(())
        })?;
        for (r, s) in env.streams.iter().enumerate() {
            assert_eq_t(
                &s.clone_dtoh(&bufs[r])?,
                &vals[root],
                &format!("in-place broadcast rank {r}"),
            )?;
        }
    }
    Ok(())
}

fn broadcast_every_type() -> TestResult {
    let env = env()?;
    every_type!(broadcast_case(&env, 777));
    Ok(())
}

fn reduce_case<T: Elem>(env: &Env, op: ReduceOp, n: usize) -> TestResult {
    let nr = env.comms.len();
    let root = nr - 1;
    let mut rng = Rng::fresh();
    let vals: Vec<Vec<i64>> = (0..nr).map(|_| values::<T>(&mut rng, op, nr, n)).collect();
    let mut sends = Vec::new();
    for (r, s) in env.streams.iter().enumerate() {
        sends.push(s.clone_htod(&to_t::<T>(&vals[r]))?);
    }
    let mut out = poisoned::<T>(&env.streams[root], n)?;
    nccl::group(|g| {
        let mut out = Some(&mut out);
        for (r, ((c, x), s)) in env.comms.iter().zip(&sends).zip(&env.streams).enumerate() {
            let recv = if r == root { out.take() } else { None };
            g.reduce(c, x, recv, op, root, s)?;
        }
        Ok(())
    })?;
    let refs: Vec<&[i64]> = vals.iter().map(|v| v.as_slice()).collect();
    let want: Vec<i64> = (0..n).map(|i| reduce_host(op, &refs, i)).collect();
    assert_eq_t(
        &env.streams[root].clone_dtoh(&out)?,
        &want,
        &format!("reduce {op:?}"),
    )
}

fn reduce_every_op() -> TestResult {
    let env = env()?;
    for op in ReduceOp::ALL {
        every_type!(reduce_case(&env, op, 513));
    }
    Ok(())
}

fn all_gather_case<T: Elem>(env: &Env, n: usize) -> TestResult {
    let nr = env.comms.len();
    let mut rng = Rng::fresh();
    let vals: Vec<Vec<i64>> = (0..nr)
        .map(|_| values::<T>(&mut rng, ReduceOp::Max, nr, n))
        .collect();
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (r, s) in env.streams.iter().enumerate() {
        sends.push(s.clone_htod(&to_t::<T>(&vals[r]))?);
        recvs.push(poisoned::<T>(s, n * nr)?);
    }
    nccl::group(|g| {
        for (((c, x), y), s) in env
            .comms
            .iter()
            .zip(&sends)
            .zip(recvs.iter_mut())
            .zip(&env.streams)
        {
            g.all_gather(c, x, y, s)?;
        }
        Ok(())
    })?;
    let want: Vec<i64> = vals.concat();
    for (r, s) in env.streams.iter().enumerate() {
        assert_eq_t(
            &s.clone_dtoh(&recvs[r])?,
            &want,
            &format!("all_gather rank {r}"),
        )?;
    }
    Ok(())
}

fn all_gather_every_type() -> TestResult {
    let env = env()?;
    every_type!(all_gather_case(&env, 333));
    Ok(())
}

fn reduce_scatter_case<T: Elem>(env: &Env, op: ReduceOp, n: usize) -> TestResult {
    let nr = env.comms.len();
    let mut rng = Rng::fresh();
    let vals: Vec<Vec<i64>> = (0..nr)
        .map(|_| values::<T>(&mut rng, op, nr, n * nr))
        .collect();
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (r, s) in env.streams.iter().enumerate() {
        sends.push(s.clone_htod(&to_t::<T>(&vals[r]))?);
        recvs.push(poisoned::<T>(s, n)?);
    }
    nccl::group(|g| {
        for (((c, x), y), s) in env
            .comms
            .iter()
            .zip(&sends)
            .zip(recvs.iter_mut())
            .zip(&env.streams)
        {
            g.reduce_scatter(c, x, y, op, s)?;
        }
        Ok(())
    })?;
    let refs: Vec<&[i64]> = vals.iter().map(|v| v.as_slice()).collect();
    for (r, s) in env.streams.iter().enumerate() {
        let want: Vec<i64> = (r * n..(r + 1) * n)
            .map(|i| reduce_host(op, &refs, i))
            .collect();
        assert_eq_t(
            &s.clone_dtoh(&recvs[r])?,
            &want,
            &format!("reduce_scatter {op:?} rank {r}"),
        )?;
    }
    Ok(())
}

fn reduce_scatter_every_op() -> TestResult {
    let env = env()?;
    for op in ReduceOp::ALL {
        every_type!(reduce_scatter_case(&env, op, 257));
    }
    Ok(())
}

fn send_recv_case<T: Elem>(env: &Env, n: usize) -> TestResult {
    let nr = env.comms.len();
    let mut rng = Rng::fresh();
    let vals: Vec<Vec<i64>> = (0..nr)
        .map(|_| values::<T>(&mut rng, ReduceOp::Max, nr, n))
        .collect();
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (r, s) in env.streams.iter().enumerate() {
        sends.push(s.clone_htod(&to_t::<T>(&vals[r]))?);
        recvs.push(poisoned::<T>(s, n)?);
    }
    // A ring: rank r sends to r + 1 and receives from r − 1 (itself with one rank).
    nccl::group(|g| {
        for (r, (((c, x), y), s)) in env
            .comms
            .iter()
            .zip(&sends)
            .zip(recvs.iter_mut())
            .zip(&env.streams)
            .enumerate()
        {
            g.send(c, x, (r + 1) % nr, s)?;
            g.recv(c, y, (r + nr - 1) % nr, s)?;
        }
        Ok(())
    })?;
    for (r, s) in env.streams.iter().enumerate() {
        let from = (r + nr - 1) % nr;
        assert_eq_t(
            &s.clone_dtoh(&recvs[r])?,
            &vals[from],
            &format!("recv on rank {r}"),
        )?;
    }
    Ok(())
}

fn send_recv_ring() -> TestResult {
    let env = env()?;
    every_type!(send_recv_case(&env, 1000));
    Ok(())
}

fn all_to_all() -> TestResult {
    let env = env()?;
    let nr = env.comms.len();
    let k = 129;
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    // Element j·k + e of rank r's send is r·1e6 + j·1e3 + e: it goes to rank j at block r.
    for (r, s) in env.streams.iter().enumerate() {
        let v: Vec<i64> = (0..nr * k)
            .map(|i| (r * 1_000_000 + (i / k) * 1000 + i % k) as i64)
            .collect();
        sends.push(s.clone_htod(&v)?);
        recvs.push(s.clone_htod(&vec![-1i64; nr * k])?);
    }
    nccl::group(|g| {
        for (((c, x), y), s) in env
            .comms
            .iter()
            .zip(&sends)
            .zip(recvs.iter_mut())
            .zip(&env.streams)
        {
            g.all_to_all(c, x, y, s)?;
        }
        Ok(())
    })?;
    for (j, s) in env.streams.iter().enumerate() {
        let got = s.clone_dtoh(&recvs[j])?;
        for (i, g) in got.iter().enumerate() {
            let (r, e) = (i / k, i % k);
            assert_eq!(
                *g,
                (r * 1_000_000 + j * 1000 + e) as i64,
                "rank {j} element {i}"
            );
        }
    }
    // With one rank the plain call needs no group.
    if nr == 1 {
        let s = &env.streams[0];
        let x = s.clone_htod(&[1u8, 2, 3])?;
        let mut y = s.alloc_zeros::<u8>(3)?;
        env.comms[0].all_to_all(&x, &mut y, s)?;
        assert_eq!(s.clone_dtoh(&y)?, [1, 2, 3]);
    }
    Ok(())
}

fn odd_sizes() -> TestResult {
    let env = env()?;
    for n in [
        1usize,
        2,
        3,
        7,
        255,
        1023,
        65_537,
        (1 << 20) + 3,
        (4 << 20) + 1,
    ] {
        all_reduce_case::<f32>(&env, ReduceOp::Sum, n)?;
        all_gather_case::<u8>(&env, n)?;
    }
    // Zero elements: accepted, nothing to move.
    all_reduce_case::<f32>(&env, ReduceOp::Sum, 0)?;
    Ok(())
}

fn grouped_calls() -> TestResult {
    let env = env()?;
    let nr = env.comms.len();
    let n = 10_007;
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut c = Vec::new();
    for (r, s) in env.streams.iter().enumerate() {
        a.push(s.clone_htod(&vec![(r + 1) as i32; n])?);
        b.push(s.clone_htod(&vec![-1i32; n])?);
        c.push(s.clone_htod(&vec![-1i32; n * nr])?);
    }
    // Three calls per rank in one group: two all-reduces of one buffer into two others, and
    // an all-gather.
    let mut d: Vec<_> = env
        .streams
        .iter()
        .map(|s| s.clone_htod(&vec![0i32; n]))
        .collect::<cuprite_driver::Result<_>>()?;
    nccl::group(|g| {
        let outs = b.iter_mut().zip(d.iter_mut()).zip(c.iter_mut());
        for (r, ((bb, dd), cc)) in outs.enumerate() {
            let (cm, s) = (&env.comms[r], &env.streams[r]);
            g.all_reduce(cm, &a[r], bb, ReduceOp::Sum, s)?;
            g.all_reduce(cm, &a[r], dd, ReduceOp::Max, s)?;
            g.all_gather(cm, &a[r], cc, s)?;
        }
        Ok(())
    })?;
    for (r, s) in env.streams.iter().enumerate() {
        assert!(
            s.clone_dtoh(&b[r])?
                .iter()
                .all(|&x| x == (nr * (nr + 1) / 2) as i32)
        );
        assert!(s.clone_dtoh(&d[r])?.iter().all(|&x| x == nr as i32));
        let g = s.clone_dtoh(&c[r])?;
        for (i, x) in g.iter().enumerate() {
            assert_eq!(*x, (i / n + 1) as i32);
        }
        env.comms[r].wait(s)?;
    }
    // An Err inside the group is returned after the group is closed; the calls made before
    // it still ran, and the communicators stay usable.
    let r = nccl::group(|g| {
        for (r, bb) in b.iter_mut().enumerate() {
            g.all_reduce(&env.comms[r], &a[r], bb, ReduceOp::Min, &env.streams[r])?;
        }
        Err::<(), _>(Error::InvalidArgument("stop".into()))
    });
    assert!(
        matches!(r, Err(Error::InvalidArgument(ref m)) if m == "stop"),
        "{r:?}"
    );
    // Inside a group every call goes through the Group: a Comm method or a nested group is
    // refused (NCCL would launch it only at the outer end, after its buffers were released).
    let (c0, s0) = (&env.comms[0], &env.streams[0]);
    let x = s0.clone_htod(&[1.0f32; 4])?;
    let mut y = s0.alloc_zeros::<f32>(4)?;
    let mut inner = None;
    let mut nested = None;
    nccl::group(|_g| {
        inner = Some(c0.all_reduce(&x, &mut y, ReduceOp::Sum, s0));
        nested = Some(nccl::group(|_| Ok(())));
        Ok(())
    })?;
    for r in [inner, nested] {
        match r {
            Some(Err(Error::InvalidArgument(m))) => assert!(m.contains("nccl::group"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    // After the group, the same call works (one rank: with several, the others must join).
    if nr == 1 {
        c0.all_reduce(&x, &mut y, ReduceOp::Max, s0)?;
        assert_eq!(s0.clone_dtoh(&y)?, [1.0; 4]);
    }
    for (r, s) in env.streams.iter().enumerate() {
        assert!(s.clone_dtoh(&b[r])?.iter().all(|&x| x == 1));
        assert!(!env.comms[r].is_failed());
    }
    Ok(())
}

fn expect_invalid(r: cuprite_driver::Result<()>, needles: &[&str]) {
    match r {
        Err(Error::InvalidArgument(m)) => {
            for n in needles {
                assert!(m.contains(n), "`{n}` not in: {m}");
            }
        }
        other => panic!("expected InvalidArgument with {needles:?}, got {other:?}"),
    }
}

fn argument_checks() -> TestResult {
    let env = env()?;
    let nr = env.comms.len();
    let (c, s) = (&env.comms[0], &env.streams[0]);
    let a = s.alloc_zeros::<f32>(10)?;
    let mut b = s.alloc_zeros::<f32>(11)?;
    expect_invalid(
        c.all_reduce(&a, &mut b, ReduceOp::Sum, s),
        &["ncclAllReduce", "10", "11"],
    );
    expect_invalid(
        c.broadcast(Some(&a), &mut b, 0, s),
        &["ncclBroadcast", "10", "11"],
    );
    expect_invalid(
        c.broadcast::<f32, DeviceBuffer<f32>, _>(None, &mut b, nr, s),
        &["root", &nr.to_string(), "out of range"],
    );
    expect_invalid(
        c.reduce::<f32, _, DeviceBuffer<f32>>(&a, None, ReduceOp::Sum, 0, s),
        &["root", "receive buffer"],
    );
    expect_invalid(
        c.reduce(&a, Some(&mut b), ReduceOp::Sum, 0, s),
        &["10", "11"],
    );
    let mut g = s.alloc_zeros::<f32>(10 * nr + 1)?;
    expect_invalid(
        c.all_gather(&a, &mut g, s),
        &["ncclAllGather", &format!("{}", 10 * nr + 1)],
    );
    // send must hold nranks × recv.len() elements: 10 ≠ 11 × nranks for any nranks.
    expect_invalid(
        c.reduce_scatter(&a, &mut b, ReduceOp::Sum, s),
        &["ncclReduceScatter", "send has 10", &format!("{}", 11 * nr)],
    );
    expect_invalid(c.send(&a, nr, s), &["peer", "out of range"]);
    expect_invalid(c.recv(&mut b, nr + 5, s), &["peer", "out of range"]);
    expect_invalid(c.all_to_all(&a, &mut b, s), &["same length"]);
    // A stream or buffer of another context (an owned context on the same GPU).
    let own = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let os = own.new_stream()?;
    let mut b10 = s.alloc_zeros::<f32>(10)?;
    expect_invalid(
        c.all_reduce(&a, &mut b10, ReduceOp::Sum, &os),
        &["stream", "context"],
    );
    let foreign = os.alloc_zeros::<f32>(10)?;
    expect_invalid(
        c.all_reduce(&foreign, &mut b10, ReduceOp::Sum, s),
        &["send buffer", "context"],
    );
    drop(foreign);
    // init: bad ranks and sizes, and the same GPU twice.
    let id = UniqueId::from_bytes(&[0u8; 128])?;
    let ctx0 = c.context().clone();
    match Comm::init_rank(&ctx0, &id, 2, 2) {
        Err(Error::InvalidArgument(m)) => {
            assert!(m.contains("rank 2") && m.contains("2 rank"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    match Comm::init_rank(&ctx0, &id, 0, 0) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("got 0"), "{m}"),
        other => panic!("{other:?}"),
    }
    match Comm::init_all(&[ctx0.clone(), ctx0.clone()]) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("given twice"), "{m}"),
        other => panic!("{other:?}"),
    }
    match Comm::init_all(std::slice::from_ref(&own)) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("primary context"), "{m}"),
        other => panic!("{other:?}"),
    }
    match Comm::init_rank(&own, &id, 1, 0) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("primary context"), "{m}"),
        other => panic!("{other:?}"),
    }
    match Comm::init_all(&[]) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("at least one"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Overflowing counts (views longer than memory are never dereferenced: the check comes
    // first).
    if nr > 1 {
        let huge = usize::MAX / nr + 1;
        // SAFETY: the view is only measured, never handed to NCCL (the count check fails).
        let v = unsafe {
            cuprite_driver::DeviceView::<u8>::from_raw_parts(a.device_ptr(), huge, a.tracker())
        };
        let mut y = s.alloc_zeros::<u8>(1)?;
        expect_invalid(c.all_gather(&v, &mut y, s), &["overflows"]);
    }
    // The communicators are still healthy after all these refusals.
    assert!(env.comms.iter().all(|c| !c.is_failed()));
    drop(env);
    all_reduce_every_op_sanity()
}

fn all_reduce_every_op_sanity() -> TestResult {
    let env = env()?;
    all_reduce_case::<f32>(&env, ReduceOp::Sum, 100)
}

/// A kernel on stream A writes x (held back by a sleeping host function); the all-reduce on
/// stream B reads x into y; then a kernel on A overwrites x (it must wait for B's read), and
/// a kernel on a third stream C doubles y (it must wait for B's write). Without tracking the
/// all-reduce would read zeros, or the new x, and C would double the poison.
fn ordered_with_kernels_on_other_streams() -> TestResult {
    let env = env()?;
    let nr = env.comms.len();
    let n: usize = 1 << 22;
    let src = r#"
        extern "C" __global__ void fill(float *x, float v, unsigned n) {
            unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) x[i] = v + (float)(i % 7);
        }
        extern "C" __global__ void twice(float *y, unsigned n) {
            unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = 2.0f * y[i];
        }"#;
    let ptx = cuprite_driver::nvrtc::compile_ptx(src)?;
    let mut per = Vec::new();
    for c in &env.comms {
        let ctx = c.context();
        let m = ctx.load_module(ptx.clone())?;
        let (sa, sb, sc) = (ctx.new_stream()?, ctx.new_stream()?, ctx.new_stream()?);
        let x = sa.alloc_zeros::<f32>(n)?;
        let y = sb.clone_htod(&vec![-5.0f32; n])?;
        per.push((
            m.load_function("fill")?,
            m.load_function("twice")?,
            sa,
            sb,
            sc,
            x,
            y,
        ));
    }
    let cfg = cuprite_driver::LaunchConfig::for_num_elems(n as u32);
    let nu = n as u32;
    for (r, (fill, _, sa, sb, _, x, _)) in per.iter_mut().enumerate() {
        let v = (r + 1) as f32;
        sa.launch_host_fn(|| std::thread::sleep(Duration::from_millis(300)))?;
        // SAFETY: fill(float*, float, unsigned) over n elements of x.
        unsafe {
            sa.launch_builder(fill)
                .arg(&mut *x)
                .arg(&v)
                .arg(&nu)
                .launch(cfg)
        }?;
        sb.launch_host_fn(|| std::thread::sleep(Duration::from_millis(300)))?;
    }
    nccl::group(|g| {
        for (c, (_, _, _, sb, _, x, y)) in env.comms.iter().zip(per.iter_mut()) {
            g.all_reduce(c, &*x, y, ReduceOp::Sum, sb)?;
        }
        Ok(())
    })?;
    for (fill, twice, sa, _, sc, x, y) in per.iter_mut() {
        let v = 1000.0f32;
        // SAFETY: as above.
        unsafe {
            sa.launch_builder(fill)
                .arg(&mut *x)
                .arg(&v)
                .arg(&nu)
                .launch(cfg)
        }?;
        // SAFETY: twice(float*, unsigned) over n elements of y.
        unsafe { sc.launch_builder(twice).arg(&mut *y).arg(&nu).launch(cfg) }?;
    }
    let base = (nr * (nr + 1) / 2) as f32;
    for (r, (_, _, sa, _, sc, x, y)) in per.iter().enumerate() {
        let gy = sc.clone_dtoh(y)?;
        for (i, g) in gy.iter().enumerate() {
            let want = 2.0 * (base + (nr * (i % 7)) as f32);
            if *g != want {
                return Err(format!("rank {r}: y[{i}] = {g}, want {want}").into());
            }
        }
        let gx = sa.clone_dtoh(x)?;
        assert!(
            gx.iter()
                .enumerate()
                .all(|(i, &v)| v == 1000.0 + (i % 7) as f32)
        );
    }
    for (c, s) in env.comms.iter().zip(per.iter().map(|p| &p.3)) {
        c.wait(s)?;
    }
    Ok(())
}

/// Communicators made and dropped several times: over every GPU (`init_all`, whose ranks
/// are finalized together once the last is dropped, here in reverse order with work in
/// between), one rank alone, and one aborted. No error may be left deferred on a context.
fn init_and_drop_repeatedly() -> TestResult {
    let _env = env()?;
    let n = Device::count()?;
    let ctxs = (0..n)
        .map(Context::new)
        .collect::<cuprite_driver::Result<Vec<_>>>()?;
    let streams = ctxs
        .iter()
        .map(|c| c.new_stream())
        .collect::<cuprite_driver::Result<Vec<_>>>()?;
    for round in 0..2u64 {
        let mut comms = Comm::init_all(&ctxs)?;
        let mut bufs = streams
            .iter()
            .map(|s| s.clone_htod(&[round + 1, 2, 3]))
            .collect::<cuprite_driver::Result<Vec<_>>>()?;
        nccl::group(|g| {
            for ((c, b), s) in comms.iter().zip(bufs.iter_mut()).zip(&streams) {
                g.all_reduce_in_place(c, b, ReduceOp::Sum, s)?;
            }
            Ok(())
        })?;
        for (c, s) in comms.iter().zip(&streams) {
            c.wait(s)?;
        }
        let k = n as u64;
        for (b, s) in bufs.iter().zip(&streams) {
            assert_eq!(s.clone_dtoh(b)?, [(round + 1) * k, 2 * k, 3 * k]);
        }
        // Drop the ranks one by one, last first; the clique is torn down with the last.
        while let Some(c) = comms.pop() {
            drop(c);
            for s in &streams {
                s.synchronize()?;
            }
        }
    }
    let ctx = &ctxs[0];
    let s = &streams[0];
    for round in 0..3 {
        let comm = Comm::init_rank(ctx, &UniqueId::new()?, 1, 0)?;
        let x = s.clone_htod(&[round as u64 + 1, 2, 3])?;
        let mut y = s.alloc_zeros::<u64>(3)?;
        comm.all_reduce(&x, &mut y, ReduceOp::Prod, s)?;
        comm.wait(s)?;
        assert_eq!(s.clone_dtoh(&y)?, [round as u64 + 1, 2, 3]);
        if round == 1 {
            comm.abort()?;
        }
    }
    for c in &ctxs {
        c.check_deferred()?;
    }
    Ok(())
}

/// Rank 0 of 2 with no rank 1: init must end in a timeout within the bound, not hang. Run in
/// a child process, so that whatever NCCL leaves behind (its bootstrap thread still waiting
/// for rank 1) stays out of this one, and so that a hang would be a failure, not a stuck run.
fn missing_rank_init_times_out() -> TestResult {
    let _env = env()?;
    let c = spawn_child("init-missing", &[])?;
    let (ok, out) = wait_child(c, Duration::from_secs(90))?;
    assert!(ok, "child failed or hung: {out}");
    assert!(out.contains("CHILD-OK timed out"), "{out}");
    Ok(())
}

fn child_init_missing() -> Result<String, Box<dyn std::error::Error>> {
    let ctx = Context::new(0)?;
    let t = Instant::now();
    let r = Comm::init_rank_with_timeout(&ctx, &UniqueId::new()?, 2, 0, Duration::from_secs(3));
    let took = t.elapsed();
    match r {
        Err(Error::Timeout { what, seconds }) => {
            if !what.contains("initialisation") || seconds != 3.0 {
                return Err(format!("unexpected timeout error: {what} ({seconds} s)").into());
            }
        }
        other => return Err(format!("expected a timeout, got {other:?}").into()),
    }
    if took < Duration::from_secs(3) || took > Duration::from_secs(40) {
        return Err(format!("the timeout took {took:?}").into());
    }
    // The process can still make communicators.
    let comm = Comm::init_rank(&ctx, &UniqueId::new()?, 1, 0)?;
    if comm.size() != 1 {
        return Err("a one-rank communicator of another size".into());
    }
    Ok(format!(
        "timed out after {:.1} s, then a new communicator worked",
        took.as_secs_f64()
    ))
}

/// Communicators made with `CommOptions::blocking` (blocking ones from NCCL 2.18 on) run
/// grouped collectives from one thread, with the same values as the default ones.
fn blocking_communicators() -> TestResult {
    let _env = env()?;
    let n = Device::count()?;
    let ctxs = (0..n)
        .map(Context::new)
        .collect::<cuprite_driver::Result<Vec<_>>>()?;
    let options = nccl::CommOptions {
        blocking: true,
        ..Default::default()
    };
    let comms = Comm::init_all_with(&ctxs, options)?;
    let (major, minor, _) = nccl::version()?;
    for c in &comms {
        let v = (major, minor);
        assert_eq!(c.is_blocking(), !((2, 14)..(2, 18)).contains(&v), "{c:?}");
    }
    let streams = ctxs
        .iter()
        .map(|c| c.new_stream())
        .collect::<cuprite_driver::Result<Vec<_>>>()?;
    let len = 3001;
    let mut bufs = Vec::new();
    for (r, s) in streams.iter().enumerate() {
        let v: Vec<f32> = (0..len).map(|i| (i % 7 + r) as f32).collect();
        bufs.push(s.clone_htod(&v)?);
    }
    for _ in 0..3 {
        nccl::group(|g| {
            for ((c, b), s) in comms.iter().zip(bufs.iter_mut()).zip(&streams) {
                g.all_reduce_in_place(c, b, ReduceOp::Sum, s)?;
            }
            Ok(())
        })?;
    }
    for ((c, b), s) in comms.iter().zip(&bufs).zip(&streams) {
        c.wait(s)?;
        let got = s.clone_dtoh(b)?;
        for (i, g) in got.iter().enumerate() {
            // Three all-reduces: n² × the first sum (small integers: exact in f32).
            let first: usize = (0..n).map(|r| i % 7 + r).sum();
            let want = (first * n * n) as f32;
            assert_eq!(*g, want, "rank {} element {i}", c.rank());
        }
    }
    Ok(())
}

/// Dropping communicators whose work cannot finish (rank 0 all-reduces, rank 1 never does)
/// must end in bounded time, in a child process that then exits cleanly.
fn drop_with_unfinished_work() -> TestResult {
    let _env = env()?;
    let c = spawn_child("drop-unfinished", &[])?;
    let (ok, out) = wait_child(c, Duration::from_secs(90))?;
    assert!(ok, "child failed or hung: {out}");
    assert!(out.contains("CHILD-OK dropped"), "{out}");
    Ok(())
}

fn child_drop_unfinished() -> Result<String, Box<dyn std::error::Error>> {
    let ctxs = [Context::new(0)?, Context::new(1)?];
    let comms = Comm::init_all_with_timeout(&ctxs, Duration::from_secs(3))?;
    let s = ctxs[0].new_stream()?;
    let mut x = s.clone_htod(&[1.0f32; 4096])?;
    // Only rank 0 calls: its launch (NCCL connects the ring at first use) or its kernel waits
    // for rank 1, which never comes. A launch that does not finish is a timeout.
    match comms[0].all_reduce_in_place(&mut x, ReduceOp::Sum, &s) {
        Ok(()) | Err(Error::Timeout { .. }) => {}
        Err(e) => return Err(format!("the lone all-reduce: {e}").into()),
    }
    let t = Instant::now();
    drop(comms);
    let took = t.elapsed();
    if took > Duration::from_secs(40) {
        return Err(format!("dropping took {took:?}").into());
    }
    // The abort stopped the kernel: the stream drains.
    s.synchronize()?;
    Ok(format!(
        "dropped in {:.1} s, the stream drained",
        took.as_secs_f64()
    ))
}

fn run_ranks(
    job: &str,
    n: usize,
    limit: Duration,
) -> Result<Vec<(bool, String)>, Box<dyn std::error::Error + Send + Sync>> {
    let port = free_port()?;
    let mut kids = Vec::new();
    for r in 0..n {
        kids.push(spawn_child(
            job,
            &[
                ("RANK", r.to_string()),
                ("WORLD_SIZE", n.to_string()),
                ("LOCAL_RANK", r.to_string()),
                ("MASTER_ADDR", "127.0.0.1".into()),
                ("MASTER_PORT", port.to_string()),
                ("CUPRITE_NCCL_TIMEOUT", "60".into()),
            ],
        )?);
    }
    let mut out = Vec::new();
    for k in kids {
        out.push(wait_child(k, limit)?);
    }
    Ok(out)
}

fn two_processes() -> TestResult {
    let _env = env()?;
    let n = Device::count()?.min(8);
    for (r, (ok, text)) in run_ranks("rank", n, Duration::from_secs(120))?
        .iter()
        .enumerate()
    {
        assert!(ok, "rank {r} failed: {text}");
        assert!(
            text.contains(&format!("CHILD-OK rank {r} of {n}")),
            "{text}"
        );
    }
    Ok(())
}

fn dead_rank_ends_in_err() -> TestResult {
    let _env = env()?;
    let t = Instant::now();
    let outs = run_ranks("rank-dies", 2, Duration::from_secs(120))?;
    let (ok0, text0) = &outs[0];
    assert!(ok0, "rank 0 did not get its Err: {text0}");
    assert!(text0.contains("CHILD-OK rank 0 got Err"), "{text0}");
    assert!(
        t.elapsed() < Duration::from_secs(110),
        "took {:?}",
        t.elapsed()
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Peer copies

fn peer_same_device_contexts() -> TestResult {
    let prim = Context::new(0)?;
    let own = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    assert_eq!(
        cuprite_driver::peer::path(&prim, &own)?,
        cuprite_driver::peer::PeerPath::SameDevice
    );
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(1 << 20);
    let (ps, os) = (prim.new_stream()?, own.new_stream()?);
    let x = ps.clone_htod(&host)?;
    let before = cuprite_driver::peer::stats();
    let y = os.clone_dtod(&x)?;
    let d = cuprite_driver::peer::stats().since(&before);
    assert!(d.same_device_copies >= 1, "{d:?}");
    assert_eq!(os.clone_dtoh(&y)?, host);
    Ok(())
}

fn peer_copies_between_gpus() -> TestResult {
    let (a, b) = (Context::new(0)?, Context::new(1)?);
    let can =
        a.device().can_access_peer(&b.device())? && b.device().can_access_peer(&a.device())?;
    let want = if can {
        cuprite_driver::peer::PeerPath::Direct
    } else {
        cuprite_driver::peer::PeerPath::Staged
    };
    assert_eq!(cuprite_driver::peer::path(&a, &b)?, want);
    assert_eq!(cuprite_driver::peer::path(&b, &a)?, want);
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(16 << 20);
    let (sa, sb) = (a.new_stream()?, b.new_stream()?);
    let x = sa.clone_htod(&host)?;
    let before = cuprite_driver::peer::stats();
    // GPU 0 -> GPU 1 on a stream of GPU 1, then back on a stream of GPU 0, then a copy
    // enqueued on GPU 0's stream into GPU 1's memory.
    let y = sb.clone_dtod(&x)?;
    let z = sa.clone_dtod(&y)?;
    let mut w = sb.alloc_zeros::<u32>(host.len())?;
    sa.memcpy_dtod(&z, &mut w)?;
    let d = cuprite_driver::peer::stats().since(&before);
    let bytes = (host.len() * 4) as u64;
    if can {
        assert!(d.direct_copies >= 3 && d.direct_bytes >= 3 * bytes, "{d:?}");
        assert_eq!(d.staged_copies, 0, "{d:?}");
    } else {
        assert!(d.staged_copies >= 3, "{d:?}");
    }
    assert_eq!(sb.clone_dtoh(&y)?, host);
    assert_eq!(sa.clone_dtoh(&z)?, host);
    assert_eq!(sb.clone_dtoh(&w)?, host);
    Ok(())
}
