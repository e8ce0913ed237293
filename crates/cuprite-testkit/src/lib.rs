//! The test convention of the cuprite workspace, in one place.
//!
//! Each crate has one `harness = false` integration-test binary whose `main` builds a list of
//! [`Test`]s and hands it to [`run`]. A test declares what it needs:
//!
//! - [`Test::cpu`]: nothing; always runs.
//! - [`Test::gpu`]: a CUDA driver and at least one device. Without one it is reported as
//!   *ignored*; with `CUPRITE_REQUIRE_GPU=1` it *fails* instead.
//! - [`Test::nvrtc`]: the NVRTC library (no GPU). Ignored when missing; fails when missing
//!   and `CUPRITE_REQUIRE_NVRTC=1`.
//! - [`Test::gpus`]: at least `n` devices. Ignored with fewer; fails instead when
//!   `CUPRITE_REQUIRE_GPUS=m` asks for `m ≥ n` devices (the host is meant to have them). With
//!   `n = 1` it is [`Test::gpu`].
//!
//! [`Test::gpu_alone`] is a GPU test that runs while no other GPU test runs (graph captures).
//! Within one binary a lock sees to that. Across binaries run at once on one GPU (as
//! `scripts/gpu-check.sh` runs them) no lock reaches, so `CUPRITE_TEST_ALONE` splits the run
//! in two passes: `skip` leaves the `gpu_alone` tests out of the list (the binaries run in
//! parallel), `only` keeps nothing else (the binaries then run one after another). Unset, every
//! test runs.
//!
//! # Times
//!
//! Each test's time (its body, after any wait for the GPU lock) is printed after the run, one
//! line per test, slowest first: `test-time   1.234 s  ok       name` (the outcome is `ok`,
//! `FAILED`, `ignored` or `panicked`). `scripts/gpu-check.sh` collects these lines from every
//! binary and names the slowest tests of the whole suite.
//!
//! A test that finds out only while running that this machine cannot run it (a GPU too old
//! for cluster launches, a single GPU where two are needed, an old driver or NVRTC) returns
//! [`ignore`]`("reason")`: it is reported as *ignored* with that reason, never as a pass. With
//! `CUPRITE_FAIL_IGNORED=1` such a test fails instead (for a check that must run everything).
//!
//! # Random data and replay
//!
//! [`Rng::fresh`] draws from one seed per process (`CUPRITE_TEST_SEED`, else the clock),
//! mixed with the name of the test that asks and a count of the generators it made, so a test
//! gets the same data whenever it runs with the same seed, whatever ran beside it. The seed is
//! printed (stderr) when the run starts, and in the message of every failing test:
//! `CUPRITE_TEST_SEED=<seed> cargo test -p <crate> -- <test name>` replays it. Generators made
//! on threads a test spawns are not replayable this way; hand them one from the test thread.
//!
//! ```no_run
//! use cuprite_testkit::{Test, TestResult, run};
//!
//! fn adds() -> TestResult {
//!     assert_eq!(1 + 1, 2);
//!     Ok(())
//! }
//!
//! fn main() {
//!     run(vec![Test::cpu("adds", adds)]);
//! }
//! ```

pub mod child;
pub mod dft;
pub use child::{CHILD_LIMIT, OutputWithin};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

/// What a test body returns: `?` works on any error type.
pub type TestResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// What a test needs from the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Nothing beyond the CPU.
    Nothing,
    /// A CUDA driver with at least one device.
    Gpu,
    /// The NVRTC library (no GPU needed).
    Nvrtc,
    /// A CUDA driver with at least this many devices.
    Gpus(usize),
}

/// One test: a name, what it needs, and its body.
pub struct Test {
    name: String,
    needs: Needs,
    /// Runs while no other GPU test of the binary runs (see [`Test::gpu_alone`]).
    alone: bool,
    body: Box<dyn FnOnce() -> TestResult + Send + 'static>,
}

impl std::fmt::Debug for Test {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Test")
            .field("name", &self.name)
            .field("needs", &self.needs)
            .finish()
    }
}

impl Test {
    /// A test that needs `needs`.
    pub fn new(
        name: impl Into<String>,
        needs: Needs,
        body: impl FnOnce() -> TestResult + Send + 'static,
    ) -> Self {
        Test {
            name: name.into(),
            needs,
            alone: false,
            body: Box::new(body),
        }
    }

    /// A test that runs anywhere.
    pub fn cpu(
        name: impl Into<String>,
        body: impl FnOnce() -> TestResult + Send + 'static,
    ) -> Self {
        Self::new(name, Needs::Nothing, body)
    }

    /// A test that needs a GPU.
    pub fn gpu(
        name: impl Into<String>,
        body: impl FnOnce() -> TestResult + Send + 'static,
    ) -> Self {
        Self::new(name, Needs::Gpu, body)
    }

    /// A test that needs a GPU and must run while no other GPU test of this binary runs: one
    /// that captures a CUDA graph. A capture is invalidated by legal work of other threads at
    /// the wrong moment (a synchronous allocation or synchronisation during a global-mode
    /// capture, implicit synchronisation with a capturing stream, or the calls a tool such as
    /// compute-sanitizer adds), and the other thread's call fails too; or one that holds most
    /// of the device's free memory. Such a test waits for the running GPU tests to finish,
    /// and the others wait for it.
    pub fn gpu_alone(
        name: impl Into<String>,
        body: impl FnOnce() -> TestResult + Send + 'static,
    ) -> Self {
        Test {
            alone: true,
            ..Self::new(name, Needs::Gpu, body)
        }
    }

    /// A test that needs at least `n` GPUs (see the crate docs for `CUPRITE_REQUIRE_GPUS`).
    pub fn gpus(
        n: usize,
        name: impl Into<String>,
        body: impl FnOnce() -> TestResult + Send + 'static,
    ) -> Self {
        if n <= 1 {
            Self::gpu(name, body)
        } else {
            Self::new(name, Needs::Gpus(n), body)
        }
    }

    /// A test that needs NVRTC.
    pub fn nvrtc(
        name: impl Into<String>,
        body: impl FnOnce() -> TestResult + Send + 'static,
    ) -> Self {
        Self::new(name, Needs::Nvrtc, body)
    }

    /// The test's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Whether a CUDA driver with at least one device is present, and if not, why.
pub fn gpu_status() -> &'static Result<(), String> {
    static STATUS: OnceLock<Result<(), String>> = OnceLock::new();
    STATUS.get_or_init(|| {
        use cuprite_sys::driver as d;
        // SAFETY: cuInit has no preconditions.
        let r = unsafe { d::cuInit(0) }.map_err(|e| e.to_string())?;
        if !r.is_success() {
            return Err(format!("cuInit failed: {r:?}"));
        }
        let mut n = 0;
        // SAFETY: `n` is a valid out-pointer.
        let r = unsafe { d::cuDeviceGetCount(&mut n) }.map_err(|e| e.to_string())?;
        if !r.is_success() || n == 0 {
            return Err(format!("no CUDA device ({r:?}, count {n})"));
        }
        Ok(())
    })
}

/// How many CUDA devices there are (0 without a driver).
pub fn gpu_count() -> usize {
    static COUNT: OnceLock<usize> = OnceLock::new();
    *COUNT.get_or_init(|| {
        if gpu_status().is_err() {
            return 0;
        }
        let mut n = 0;
        // SAFETY: `n` is a valid out-pointer; cuInit succeeded in `gpu_status`.
        match unsafe { cuprite_sys::driver::cuDeviceGetCount(&mut n) } {
            Ok(r) if r.is_success() => n.max(0) as usize,
            _ => 0,
        }
    })
}

/// Whether at least `n` devices are present, and if not, why.
fn gpus_status(n: usize) -> Result<(), String> {
    gpu_status().clone()?;
    let have = gpu_count();
    if have < n {
        return Err(format!("{have} CUDA device(s), this test needs {n}"));
    }
    Ok(())
}

/// The device count `CUPRITE_REQUIRE_GPUS` promises (0 when unset or not a number).
fn required_gpus() -> usize {
    std::env::var("CUPRITE_REQUIRE_GPUS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Whether NVRTC can be loaded, and if not, why.
pub fn nvrtc_status() -> &'static Result<(), String> {
    static STATUS: OnceLock<Result<(), String>> = OnceLock::new();
    STATUS.get_or_init(|| {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: both are valid out-pointers.
        let r = unsafe { cuprite_sys::nvrtc::nvrtcVersion(&mut major, &mut minor) }
            .map_err(|e| e.to_string())?;
        if r.0 != 0 {
            return Err(format!("nvrtcVersion failed: {r:?}"));
        }
        Ok(())
    })
}

/// Whether GPU tests will run in this process.
pub fn has_gpu() -> bool {
    gpu_status().is_ok()
}

/// Whether NVRTC tests will run in this process.
pub fn has_nvrtc() -> bool {
    nvrtc_status().is_ok()
}

/// Whether the tests run under a compute-sanitizer tool (`scripts/gpu-sanitize.sh` sets
/// `CUPRITE_UNDER_SANITIZER`): instrumented kernels and copies run 10–1000× slower, so tests
/// that time something loosen the bound, and tests of millions of elements take fewer (still
/// past every tile and pass threshold they are about).
pub fn under_sanitizer() -> bool {
    std::env::var_os("CUPRITE_UNDER_SANITIZER").is_some()
}

/// The error a test body returns to be reported as *ignored* at run time; see [`ignore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored(pub String);

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ignored: {}", self.0)
    }
}

impl std::error::Error for Ignored {}

/// Ends a test as *ignored* with `reason` (what this machine lacks): `return ignore(...)`.
///
/// ```
/// use cuprite_testkit::{TestResult, ignore};
/// fn needs_two_gpus(count: usize) -> TestResult {
///     if count < 2 {
///         return ignore(format!("needs 2 GPUs, found {count}"));
///     }
///     Ok(())
/// }
/// assert!(needs_two_gpus(1).is_err());
/// ```
pub fn ignore(reason: impl Into<String>) -> TestResult {
    Err(Box::new(Ignored(reason.into())))
}

/// Runs one test body: its random generators are derived from the test's name, an
/// [`Ignored`] error becomes a run-time ignore, and a failure names the seed that replays it.
fn run_body(
    name: &str,
    gpu: Option<bool>,
    body: Box<dyn FnOnce() -> TestResult + Send>,
) -> Result<Completion, Failed> {
    // GPU tests share the device; one marked `alone` has it to itself (a poisoned lock only
    // means another test panicked).
    static GPU: RwLock<()> = RwLock::new(());
    let _shared = (gpu == Some(false)).then(|| GPU.read().unwrap_or_else(|e| e.into_inner()));
    let _alone = (gpu == Some(true)).then(|| GPU.write().unwrap_or_else(|e| e.into_inner()));
    CURRENT_TEST.with(|c| c.set(Some((fnv1a(name.as_bytes()), 0))));
    // Records the time on every way out, a panic included (the guard drops while unwinding).
    let mut clock = Clock {
        name,
        start: Instant::now(),
        outcome: "panicked",
    };
    let r = body();
    CURRENT_TEST.with(|c| c.set(None));
    let out = match r {
        Ok(()) => Ok(Completion::Completed),
        Err(e) => match e.downcast::<Ignored>() {
            Ok(ignored) if !env_flag("CUPRITE_FAIL_IGNORED") => {
                Ok(Completion::ignored_with(ignored.0))
            }
            Ok(ignored) => Err(Failed::from(format!(
                "{ignored} (CUPRITE_FAIL_IGNORED=1 makes this a failure)"
            ))),
            Err(e) => Err(Failed::from(format!(
                "{e}\n(random data from CUPRITE_TEST_SEED={}: set it to replay this test)",
                process_seed()
            ))),
        },
    };
    clock.outcome = match &out {
        Ok(Completion::Completed) => "ok",
        Ok(_) => "ignored",
        Err(_) => "FAILED",
    };
    out
}

/// The time of every test body that ran in this process: name, time, outcome.
static TIMES: Mutex<Vec<(String, Duration, &'static str)>> = Mutex::new(Vec::new());

/// Measures one test body; records it in [`TIMES`] when dropped.
struct Clock<'a> {
    name: &'a str,
    start: Instant,
    outcome: &'static str,
}

impl Drop for Clock<'_> {
    fn drop(&mut self) {
        let entry = (self.name.to_string(), self.start.elapsed(), self.outcome);
        TIMES.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
    }
}

/// The lines that report test times, slowest first (ties by name), as the crate docs show:
/// `test-time <seconds, 3 decimals> s  <outcome> <name>`.
///
/// ```
/// use std::time::Duration;
/// let lines = cuprite_testkit::time_lines(&[
///     ("a::fast".into(), Duration::from_millis(5), "ok"),
///     ("b::slow".into(), Duration::from_millis(1500), "FAILED"),
/// ]);
/// assert_eq!(lines[0], "test-time     1.500 s  FAILED   b::slow");
/// assert!(lines[1].ends_with("0.005 s  ok       a::fast"));
/// ```
pub fn time_lines(times: &[(String, Duration, &str)]) -> Vec<String> {
    let mut v: Vec<_> = times.iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.iter()
        .map(|(name, t, outcome)| {
            format!("test-time {:>9.3} s  {outcome:<8} {name}", t.as_secs_f64())
        })
        .collect()
}

/// Which tests a run keeps, from `CUPRITE_TEST_ALONE` (see the crate docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlonePass {
    /// Every test (the variable unset or empty).
    All,
    /// Every test but the `gpu_alone` ones (`skip`).
    Skip,
    /// The `gpu_alone` tests only (`only`).
    Only,
}

impl AlonePass {
    /// Reads `value` (the variable's value); `Err` names a value that is none of them.
    ///
    /// ```
    /// use cuprite_testkit::AlonePass;
    /// assert_eq!(AlonePass::parse(None), Ok(AlonePass::All));
    /// assert!(AlonePass::parse(Some("skip"))?.keeps(false));
    /// assert!(!AlonePass::parse(Some("only"))?.keeps(false));
    /// assert!(AlonePass::parse(Some("yes")).unwrap_err().contains("\"yes\""));
    /// # Ok::<(), String>(())
    /// ```
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        match value.map(str::trim) {
            None | Some("") => Ok(AlonePass::All),
            Some("skip") => Ok(AlonePass::Skip),
            Some("only") => Ok(AlonePass::Only),
            Some(other) => Err(format!(
                "CUPRITE_TEST_ALONE={other:?}: use \"skip\" (leave the gpu_alone tests out) or \
                 \"only\" (run only them)"
            )),
        }
    }

    /// Whether a test that is (or is not) `gpu_alone` runs in this pass.
    ///
    /// ```
    /// use cuprite_testkit::AlonePass;
    /// assert!(AlonePass::All.keeps(true) && AlonePass::All.keeps(false));
    /// assert!(AlonePass::Only.keeps(true) && !AlonePass::Skip.keeps(true));
    /// ```
    pub fn keeps(self, alone: bool) -> bool {
        match self {
            AlonePass::All => true,
            AlonePass::Skip => !alone,
            AlonePass::Only => alone,
        }
    }
}

fn to_trial(t: Test) -> Trial {
    let gpus;
    let (status, require, what) = match t.needs {
        Needs::Nothing => (&Ok(()), false, ""),
        Needs::Gpu => (gpu_status(), env_flag("CUPRITE_REQUIRE_GPU"), "GPU"),
        Needs::Nvrtc => (nvrtc_status(), env_flag("CUPRITE_REQUIRE_NVRTC"), "NVRTC"),
        Needs::Gpus(n) => {
            gpus = gpus_status(n);
            (&gpus, required_gpus() >= n, "GPUS")
        }
    };
    let kind = match t.needs {
        Needs::Nothing => "cpu",
        Needs::Gpu => "gpu",
        Needs::Gpus(_) => "gpus",
        Needs::Nvrtc => "nvrtc",
    };
    match status {
        Ok(()) => {
            let (name, body) = (t.name.clone(), t.body);
            let gpu = (t.needs == Needs::Gpu).then_some(t.alone);
            Trial::ignorable_test(t.name, move || run_body(&name, gpu, body)).with_kind(kind)
        }
        Err(why) if require => {
            let msg = if what == "GPUS" {
                format!(
                    "CUPRITE_REQUIRE_GPUS={} asks for the GPUs this test needs, but: {why}",
                    required_gpus()
                )
            } else {
                format!("this test needs a {what} and CUPRITE_REQUIRE_{what}=1, but: {why}")
            };
            Trial::test(t.name, move || Err(Failed::from(msg))).with_kind(kind)
        }
        Err(_) => Trial::test(t.name, || Ok(()))
            .with_kind(kind)
            .with_ignored_flag(true),
    }
}

/// Runs `tests` with libtest-mimic's command line (filters, `--list`, `--ignored`...) and exits
/// with its status.
pub fn run(tests: Vec<Test>) -> ! {
    let mut args = Arguments::from_args();
    // A GPU test skipped for want of a GPU must never be forced to "run" by --include-ignored:
    // its body was replaced by a no-op, and running it would report a false pass.
    args.include_ignored = false;
    args.ignored = false;
    if !args.list {
        let seed = process_seed();
        eprintln!("cuprite-testkit: random seed {seed} (CUPRITE_TEST_SEED={seed} replays it)");
    }
    let pass = match AlonePass::parse(std::env::var("CUPRITE_TEST_ALONE").ok().as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cuprite-testkit: {e}");
            std::process::exit(2);
        }
    };
    let trials = tests
        .into_iter()
        .filter(|t| pass.keeps(t.alone))
        .map(to_trial)
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    if !args.list {
        let times = std::mem::take(&mut *TIMES.lock().unwrap_or_else(|e| e.into_inner()));
        if !times.is_empty() {
            println!(
                "\ntimes of the {} tests that ran, slowest first:",
                times.len()
            );
            for line in time_lines(&times) {
                println!("{line}");
            }
        }
    }
    conclusion.exit()
}

/// A new, empty folder under the system's temporary folder, named after `tag`, this process and
/// a random number (so parallel tests never share one). The caller removes it when done.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "cuprite-test-{tag}-{}-{}",
        std::process::id(),
        Rng::fresh().next_u64()
    ));
    if let Err(e) = std::fs::create_dir_all(&d) {
        panic!("cannot create the test folder {}: {e}", d.display());
    }
    d
}

/// The seed of this process's random test data: `CUPRITE_TEST_SEED`, else the clock.
pub fn process_seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| {
        std::env::var("CUPRITE_TEST_SEED")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0x9E37_79B9)
            })
    })
}

thread_local! {
    /// The running test on this thread: its name's hash and how many generators it made.
    static CURRENT_TEST: Cell<Option<(u64, u64)>> = const { Cell::new(None) };
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Fresh pseudo-random data for tests: a SplitMix64 stream whose seed comes from the process
/// seed (see [`process_seed`] and the crate docs on replay).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for the calling test: the process seed mixed with the test's name and how
    /// many generators the test made before (outside a test: a process-wide count).
    pub fn fresh() -> Self {
        static OUTSIDE: AtomicU64 = AtomicU64::new(0);
        let salt = CURRENT_TEST.with(|c| match c.get() {
            Some((name, n)) => {
                c.set(Some((name, n + 1)));
                name ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            }
            None => !OUTSIDE.fetch_add(1, Ordering::Relaxed),
        });
        let mut mix = Rng(process_seed() ^ salt);
        Rng(mix.next_u64())
    }

    /// A generator with a fixed seed.
    pub fn seeded(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform `f32` in `[lo, hi)`.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }

    /// `n` uniform `f32`s in `[lo, hi)`.
    pub fn vec_f32(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32_in(lo, hi)).collect()
    }

    /// `n` random `u32`s.
    pub fn vec_u32(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u64() as u32).collect()
    }
}
