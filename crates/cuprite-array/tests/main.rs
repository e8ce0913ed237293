//! The integration tests of cuprite-array: every body in `common::BODIES` runs on each
//! backend present (CPU always, CUDA when a GPU is found), plus backend-specific tests.

mod common;
mod codegen;
mod cross;
mod props;

fn main() {
    let mut tests = common::tests();
    tests.extend(codegen::tests());
    tests.extend(cross::tests());
    tests.extend(props::tests());
    cuprite_testkit::run(tests);
}
