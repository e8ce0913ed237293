//! The integration tests of `cuprite`: one binary, run by `cargo test`; GPU tests are ignored
//! at run time when there is no GPU (see `cuprite-testkit`).

use cuprite_testkit::{Test, run};

/// `r` failed with a driver-layer error of variant `kind` (`InvalidArgument`, `Driver`...: the
/// start of its `Debug` form) whose message contains `needle` (the offending value, or the
/// driver call that refused it).
#[track_caller]
pub fn assert_err<T: std::fmt::Debug>(r: cuprite_driver::Result<T>, kind: &str, needle: &str) {
    match r {
        Ok(v) => panic!("expected an Err of kind {kind} mentioning {needle:?}, got Ok({v:?})"),
        Err(e) => {
            let d = format!("{e:?}");
            let k = d.split(['(', ':', ' ', '{']).next().unwrap_or("");
            let m = e.to_string();
            assert!(
                k == kind && m.contains(needle),
                "expected an Err of kind {kind} mentioning {needle:?}, got {k}: {m}"
            );
        }
    }
}

mod bad_input;
mod blas;
mod compat;
mod context;
mod device;
mod dnn;
mod error;
mod fault;
mod fft;
mod graph;
mod kernels;
mod memory;
mod nccl;
mod nvrtc;
mod sparse;
mod stream;
mod tracking;

/// Marker for panic messages a test provokes on a thread it does not run on (e.g. a stream's
/// host function): [`quietly`]'s hook keeps such panics silent wherever they happen.
#[allow(dead_code)]
pub const EXPECTED_PANIC: &str = "(a panic this test expects)";

/// Runs `f`, keeping the panic messages (and backtraces) of panics it provokes on purpose off
/// stderr, so that a passing `cargo test` prints none: panics on this thread while `f` runs, and
/// panics anywhere whose message contains [`EXPECTED_PANIC`]. Every other panic still goes to
/// the hook that was installed before (a thread-local flag, not a swap of the process-wide hook,
/// so tests running in parallel keep their messages). The flag is restored when `f` returns
/// or unwinds.
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    use std::cell::Cell;
    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let msg = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("");
            if !QUIET.with(Cell::get) && !msg.contains(EXPECTED_PANIC) {
                previous(info);
            }
        }));
    });
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _restore = Restore(QUIET.with(|q| q.replace(true)));
    f()
}

fn main() {
    // The device-trap test re-runs this binary as a child process that traps on purpose.
    if let Ok(which) = std::env::var(blas::CHILD_ENV) {
        std::process::exit(blas::child(&which));
    }
    if std::env::var_os(kernels::TRAP_CHILD_ENV).is_some() {
        std::process::exit(kernels::trap_child());
    }
    // The missing-cuFFT test re-runs this binary with cuFFT hidden.
    if std::env::var_os(fft::MISSING_CHILD_ENV).is_some() {
        std::process::exit(fft::missing_child());
    }
    // The missing-cuDNN test re-runs this binary with cuDNN hidden.
    if std::env::var_os(dnn::MISSING_CHILD_ENV).is_some() {
        std::process::exit(dnn::missing_child());
    }
    // The missing-cuSPARSE test re-runs this binary with cuSPARSE hidden.
    if std::env::var_os(sparse::CHILD_ENV).is_some() {
        std::process::exit(sparse::child());
    }
    // The NCCL tests re-run this binary as ranks of a job, or without NCCL.
    if let Some(code) = nccl::child_if_asked() {
        std::process::exit(code);
    }
    let mut tests: Vec<Test> = Vec::new();
    tests.extend(device::tests());
    tests.extend(error::tests());
    tests.extend(context::tests());
    tests.extend(stream::tests());
    tests.extend(memory::tests());
    tests.extend(tracking::tests());
    tests.extend(nvrtc::tests());
    tests.extend(kernels::tests());
    tests.extend(graph::tests());
    tests.extend(compat::tests());
    tests.extend(fft::tests());
    tests.extend(bad_input::tests());
    tests.extend(fault::tests());
    tests.extend(nccl::tests());
    tests.extend(blas::tests());
    tests.extend(sparse::tests());
    tests.extend(dnn::tests());
    run(tests);
}
