//! The integration tests of `cuprite`: one binary, run by `cargo test`; GPU tests are ignored
//! at run time when there is no GPU (see `cuprite-testkit`).

use cuprite_testkit::{Test, run};

mod context;
mod device;
mod error;
mod memory;
mod nvrtc;
mod stream;
mod tracking;

fn main() {
    let mut tests: Vec<Test> = Vec::new();
    tests.extend(device::tests());
    tests.extend(error::tests());
    tests.extend(context::tests());
    tests.extend(stream::tests());
    tests.extend(memory::tests());
    tests.extend(tracking::tests());
    tests.extend(nvrtc::tests());
    run(tests);
}
