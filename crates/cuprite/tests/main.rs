//! The integration tests of `cuprite`: one binary, run by `cargo test`; GPU tests are ignored
//! at run time when there is no GPU (see `cuprite-testkit`).

use cuprite_testkit::{Test, run};

mod device;
mod error;
mod nvrtc;

fn main() {
    let mut tests: Vec<Test> = Vec::new();
    tests.extend(device::tests());
    tests.extend(error::tests());
    tests.extend(nvrtc::tests());
    run(tests);
}
