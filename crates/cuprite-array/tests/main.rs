//! The integration tests of cuprite-array: every body in `common::BODIES` runs on each
//! backend present (CPU always, CUDA when a GPU is found), plus backend-specific tests.

#![allow(clippy::type_complexity, clippy::reversed_empty_ranges)]

mod async_await;
mod bad_input;
#[cfg(feature = "capture")]
mod capture;
mod codegen;
mod common;
mod compact;
mod cross;
mod ergonomics;
mod fft;
mod hardening;
mod image_colour;
mod image_filters;
mod image_geometry;
#[cfg(feature = "image-files")]
mod image_io;
mod image_measure;
mod image_more;
mod image_morphology;
mod image_vision;
mod index;
mod index_scatter;
mod interop;
mod library;
mod linalg;
mod linalg_general;
mod long_lines;
mod mesh;
mod numpy_coverage;
mod numpy_fn;
mod numpy_fn2;
mod numpy_idx;
mod numpy_idx2;
mod numpy_math;
mod numpy_semantics;
mod options;
mod props;
mod props_ops;
mod random_gen;
mod reduce_axes;
mod reduce_leading;
mod rows;
mod safety;
mod scan;
mod short_rows;
mod signal;
mod signal_analysis;
mod signal_approx;
mod signal_conv;
mod signal_design;
mod signal_lti;
mod signal_more;
mod signal_nn;
mod signal_poles;
mod signal_resample;
mod signal_robust;
mod signal_spectral;
mod signal_systems;
mod signed_zero;
mod small;
mod sort;
mod sparse;
mod sparse_device;
mod sparse_more;
mod sparse_solve;
mod stats;
mod tiers;
mod units;

fn main() {
    // Child mode of the exit test: new kernels, then exit with background builds in flight.
    if std::env::var_os("CUPRITE_ARRAY_TEST_EXIT_CHILD").is_some() {
        cross::exit_child();
        return;
    }
    // Child mode of the disk-cache test (a second process).
    if let Ok(dir) = std::env::var("CUPRITE_ARRAY_TEST_CHILD") {
        let seed = std::env::var("CUPRITE_ARRAY_TEST_CHILD_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        codegen::child(&dir, seed);
        return;
    }
    let mut tests = common::tests();
    tests.extend(async_await::tests());
    tests.extend(bad_input::tests());
    #[cfg(feature = "capture")]
    tests.extend(capture::tests());
    tests.extend(codegen::tests());
    tests.extend(cross::tests());
    tests.extend(ergonomics::tests());
    tests.extend(numpy_math::tests());
    tests.extend(signal::tests());
    tests.extend(signal_conv::tests());
    tests.extend(signal_nn::tests());
    tests.extend(signal_spectral::tests());
    tests.extend(signal_resample::tests());
    tests.extend(signal_approx::tests());
    tests.extend(signal_design::tests());
    tests.extend(signal_analysis::tests());
    tests.extend(image_more::tests());
    tests.extend(signal_more::tests());
    tests.extend(signal_robust::tests());
    tests.extend(signal_lti::tests());
    tests.extend(signal_systems::tests());
    tests.extend(signal_poles::tests());
    tests.extend(sparse::tests());
    tests.extend(sparse_device::tests());
    tests.extend(sparse_more::tests());
    tests.extend(sparse_solve::tests());
    tests.extend(fft::tests());
    tests.extend(options::tests());
    tests.extend(hardening::tests());
    tests.extend(image_morphology::tests());
    tests.extend(image_measure::tests());
    tests.extend(image_colour::tests());
    #[cfg(feature = "image-files")]
    tests.extend(image_io::tests());
    tests.extend(image_vision::tests());
    tests.extend(image_filters::tests());
    tests.extend(image_geometry::tests());
    tests.extend(index::tests());
    tests.extend(interop::tests());
    tests.extend(library::tests());
    tests.extend(linalg::tests());
    tests.extend(linalg_general::tests());
    tests.extend(long_lines::tests());
    tests.extend(mesh::tests());
    tests.extend(numpy_coverage::tests());
    tests.extend(numpy_fn::tests());
    tests.extend(numpy_fn2::tests());
    tests.extend(numpy_idx::tests());
    tests.extend(numpy_idx2::tests());
    tests.extend(numpy_semantics::tests());
    tests.extend(props::tests());
    tests.extend(props_ops::tests());
    tests.extend(random_gen::tests());
    tests.extend(reduce_axes::tests());
    tests.extend(reduce_leading::tests());
    tests.extend(rows::tests());
    tests.extend(safety::tests());
    tests.extend(scan::tests());
    tests.extend(short_rows::tests());
    tests.extend(signed_zero::tests());
    tests.extend(small::tests());
    tests.extend(sort::tests());
    tests.extend(stats::tests());
    tests.extend(tiers::tests());
    tests.extend(units::tests());
    cuprite_testkit::run(tests);
}
