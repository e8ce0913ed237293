//! The pieces of the `cuprite` command, as a library so that tests and benchmarks can reach
//! them: [`info`] (what this machine offers), [`demo`] (the stack at work) and [`bench`](mod@bench) (the benchmark harness and its
//! benchmarks). `main.rs` only parses the command line.

/// `println!` that ignores a closed stdout (`cuprite info | head`) instead of panicking.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stdout().lock(), $($arg)*);
    }};
}

pub mod bench;
pub mod demo;
pub mod fuzz;
pub mod info;
pub mod stress;

/// Every Rust code block of the repository's `README.md`, compiled and run as a doc test of this
/// crate (which depends on every layer the README shows), so that the README cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The Rust code blocks of `docs/gpu-arrays-in-rust.md`, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/gpu-arrays-in-rust.md")]
pub struct TourDoctests;

/// The Rust code blocks of `docs/from-arrayfire.md`, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/from-arrayfire.md")]
pub struct ArrayFireGuideDoctests;
