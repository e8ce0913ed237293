//! The integration tests of `cuprite-sys`: one binary, run by `cargo test`; GPU tests are
//! ignored at run time when there is no GPU (see `cuprite-testkit`).
//!
//! Some tests re-run this binary as a child process (see [`child`]): a library is opened once
//! per process, so "what happens when the driver is missing" must be asked of a fresh process.

use cuprite_testkit::{Test, run};

mod child;
mod cudnn;
mod cufft;
mod cusparse;
mod loader;
mod result;

fn main() {
    if child::run_child_if_asked() {
        return;
    }
    let mut tests: Vec<Test> = Vec::new();
    tests.extend(loader::tests());
    tests.extend(cudnn::tests());
    tests.extend(cufft::tests());
    tests.extend(cusparse::tests());
    tests.extend(result::tests());
    run(tests);
}
