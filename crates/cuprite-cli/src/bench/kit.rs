//! The names every benchmark file uses, from the modules that define them: the run's context
//! and timing helpers, figures and targets, and what a benchmark is.

pub(crate) use super::context::remember;
pub use super::context::{BenchCtx, BenchError, check};
pub use super::figure::{Ceiling, Figure, PlotPoint, Samples, Target, TimeUnit};
pub use super::registry::{BenchResult, Benchmark};
