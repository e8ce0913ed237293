//! The background JIT thread: optimised builds that replace quick first builds, and the math
//! library's build; and the exit hook that keeps the process from tearing NVRTC or the driver
//! down under a build in progress.

use super::config::trace_note;
use super::math;
use crate::runtime::DeviceState;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

/// Work of the background JIT thread.
pub(crate) enum Job {
    /// The optimised build of a kernel whose quick build (or the interpreter) serves until
    /// then: the closure builds it and puts it in place (see `cache::tier_up`).
    TierUp(Box<dyn FnOnce() + Send>),
    /// The math library of an architecture (see [`super::math`]).
    MathLibrary { arch: u32 },
    /// The interpreter of a device (see [`super::interp`]).
    Interpreter { st: &'static DeviceState },
}

/// The jobs not started (each with its sequence number, in queue order), the sequence numbers
/// of the jobs running, how many are queued or running, whether the thread runs, and how many
/// jobs were ever queued (the next sequence number).
///
/// Invariant: `jobs` is sorted by sequence number, and every job numbered below `queued` is in
/// `jobs`, in `running`, or has ended. So the jobs queued before a moment whose count was
/// `n` have all ended when the front of `jobs` is numbered `n` or more (or `jobs` is empty)
/// and no number in `running` is below `n`, whichever threads ran them.
struct Queue {
    jobs: VecDeque<(u64, Job)>,
    running: Vec<u64>,
    pending: usize,
    thread_started: bool,
    queued: u64,
}

static QUEUE: Mutex<Queue> = Mutex::new(Queue {
    jobs: VecDeque::new(),
    running: Vec::new(),
    pending: 0,
    thread_started: false,
    queued: 0,
});
static CHANGED: Condvar = Condvar::new();

fn lock() -> std::sync::MutexGuard<'static, Queue> {
    QUEUE.lock().unwrap_or_else(|e| e.into_inner())
}

fn run(job: Job) {
    match job {
        Job::TierUp(build) => build(),
        Job::MathLibrary { arch } => {
            trace_note("background: building the math library");
            math::build_math_library(arch);
            trace_note("background: math library built");
        }
        Job::Interpreter { st } => super::interp::build(st),
    }
}

/// Queues `job` for the background thread (started on first use; where no thread can be
/// started, the job runs here).
pub(crate) fn queue(job: Job) {
    guard_main_thread_exit();
    let mut q = lock();
    let seq = q.queued;
    q.jobs.push_back((seq, job));
    q.pending += 1;
    q.queued += 1;
    if !q.thread_started {
        let started = std::thread::Builder::new()
            .name("cuprite-array-jit".into())
            .spawn(worker)
            .is_ok();
        q.thread_started = started;
        if started {
            register_exit_hook();
        } else {
            let jobs: Vec<(u64, Job)> = q.jobs.drain(..).collect();
            q.running.extend(jobs.iter().map(|(seq, _)| *seq));
            drop(q);
            for (seq, job) in jobs {
                run_counted(seq, job);
            }
            return;
        }
    }
    CHANGED.notify_all();
}

fn worker() {
    loop {
        let (seq, job) = {
            let mut q = lock();
            loop {
                if let Some((seq, j)) = q.jobs.pop_front() {
                    q.running.push(seq);
                    break (seq, j);
                }
                q = CHANGED.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        run_counted(seq, job);
    }
}

/// Runs job `seq` (already moved from `jobs` into `running`) on the calling thread, then
/// marks it ended.
fn run_counted(seq: u64, job: Job) {
    // Before each build: a library (or a code path of one) first used by the previous build
    // may have registered exit-time destructors after the last registration of the hook;
    // registering again puts the hook before them (see `register_exit_hook`).
    register_exit_hook();
    // A panic must not leave the count up (waiters would wait for ever).
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job)));
    let mut q = lock();
    q.running.retain(|&s| s != seq);
    q.pending -= 1;
    drop(q);
    CHANGED.notify_all();
}

/// Registers [`at_exit`] (again): exit-time destructors and `atexit` handlers run in the
/// reverse order of registration, and a library first loaded, or a code path of one first
/// taken, after the last registration registers destructors that would run before the hook,
/// tearing down what a background build in progress still uses (a crash at exit). So the hook is registered when the thread starts, after the
/// driver's linker is first used, and after NVRTC's relocatable path is first taken. Running
/// it more than once is harmless.
pub(crate) fn register_exit_hook() {
    unsafe extern "C" {
        fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
    }
    // SAFETY: `atexit` is the C library's, called with a function that lives for the whole
    // process and does not unwind (it only takes a lock and waits).
    let _ = unsafe { atexit(at_exit) };
}

/// Waits for the background builds when the main thread exits (a return from `main`, or
/// `std::process::exit` on it).
struct MainExitGuard;

impl Drop for MainExitGuard {
    fn drop(&mut self) {
        at_exit();
    }
}

thread_local! {
    static MAIN_EXIT_GUARD: MainExitGuard = const { MainExitGuard };
}

/// On the main thread, sets up [`MainExitGuard`]. The C library's `exit` runs the calling
/// thread's thread-local destructors before any `atexit` handler or library destructor, so
/// this wait comes first whatever was loaded, or first used, during a build in progress
/// (NVRTC's first CUBIN build registers destructors of its own: where they ran before the
/// `atexit` hook, an exit during that build crashed). The
/// `atexit` hook stays for an exit called from another thread.
fn guard_main_thread_exit() {
    if std::thread::current().name() == Some("main") {
        // `with` creates the guard (and registers its destructor) on first use; a thread
        // already tearing down its thread-locals cannot register another, which is harmless.
        let _ = MAIN_EXIT_GUARD.try_with(|_| ());
    }
}

/// Whether an exit from the calling thread waits for the background builds before anything
/// else runs (the main thread, see [`guard_main_thread_exit`], which this sets up): then a
/// build there may be the first NVRTC use of the process.
pub(crate) fn exit_waits_here() -> bool {
    guard_main_thread_exit();
    std::thread::current().name() == Some("main")
}

/// [`register_exit_hook`] once, after the driver's linker was first used in this process.
pub(crate) fn exit_hook_after_linker() {
    static DONE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    DONE.get_or_init(register_exit_hook);
}

/// At exit: drops the builds not started and waits for the one in progress.
extern "C" fn at_exit() {
    let mut q = lock();
    let dropped = q.jobs.len();
    q.jobs.clear();
    q.pending -= dropped;
    if q.pending > 0 || dropped > 0 {
        trace_note(&format!(
            "at exit: {dropped} background builds dropped, waiting for the one in progress"
        ));
    }
    while q.pending > 0 {
        q = CHANGED.wait(q).unwrap_or_else(|e| e.into_inner());
    }
}

/// How many background builds were ever queued, and how many of them have not ended: a
/// kernel handed out while none is pending and none is queued meanwhile is the build that
/// stays (no optimised build is on its way to replace it).
#[cfg(feature = "capture")]
pub(crate) fn builds() -> (u64, usize) {
    let q = lock();
    (q.queued, q.pending)
}

/// Waits until the background builds queued before this call are done: the optimised builds
/// that replace the quick first builds of new expressions, and the math library's build if one
/// is under way. Builds that other threads queue after the call are not waited for, so a
/// thread that keeps compiling new expressions cannot hold this call up. The calling thread
/// runs queued builds itself while it waits (beside the background thread and other waiting
/// threads), so a long queue drains in parallel. For benchmarks of steady-state kernels, and
/// for tests that count compilations.
pub fn wait_tier_up() {
    let mut q = lock();
    let ticket = q.queued;
    loop {
        if q.jobs.front().is_some_and(|(seq, _)| *seq < ticket) {
            if let Some((seq, job)) = q.jobs.pop_front() {
                q.running.push(seq);
                drop(q);
                run_counted(seq, job);
                q = lock();
            }
        } else if q.running.iter().any(|&seq| seq < ticket) {
            q = CHANGED.wait(q).unwrap_or_else(|e| e.into_inner());
        } else {
            return;
        }
    }
}
