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

pub mod dft;

use libtest_mimic::{Arguments, Failed, Trial};
use std::sync::OnceLock;

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
            let body = t.body;
            Trial::test(t.name, move || {
                body().map_err(|e| Failed::from(e.to_string()))
            })
            .with_kind(kind)
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
    let trials = tests.into_iter().map(to_trial).collect();
    libtest_mimic::run(&args, trials).exit()
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

/// Fresh pseudo-random data for tests: a SplitMix64 stream seeded from the clock (or from
/// `CUPRITE_TEST_SEED`), printed so a failure can be replayed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `CUPRITE_TEST_SEED` or the clock.
    pub fn fresh() -> Self {
        let seed = std::env::var("CUPRITE_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0x9E37_79B9)
            });
        Rng(seed)
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
