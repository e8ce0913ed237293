//! The integration tests of `cuprite`: one binary, run by `cargo test`; GPU tests are ignored
//! at run time when there is no GPU (see `cuprite-testkit`).

use cuprite_testkit::{Test, run};

mod compat;
mod context;
mod device;
mod error;
mod fft;
mod graph;
mod kernels;
mod memory;
mod nccl;
mod nvrtc;
mod stream;
mod tracking;

fn main() {
    // The device-trap test re-runs this binary as a child process that traps on purpose.
    if std::env::var_os(kernels::TRAP_CHILD_ENV).is_some() {
        std::process::exit(kernels::trap_child());
    }
    // The missing-cuFFT test re-runs this binary with cuFFT hidden.
    if std::env::var_os(fft::MISSING_CHILD_ENV).is_some() {
        std::process::exit(fft::missing_child());
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
    tests.extend(nccl::tests());
    run(tests);
}
