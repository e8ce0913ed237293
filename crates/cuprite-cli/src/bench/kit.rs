//! The names every benchmark file uses, from the modules that define them: the run's context
//! and timing helpers, figures and targets, and what a benchmark is.

pub(crate) use super::context::remember;
pub use super::context::{BenchCtx, BenchError, check};
pub use super::figure::{Ceiling, Figure, PlotPoint, Samples, Target, TimeUnit};
pub use super::registry::{BenchResult, Benchmark};

/// The idle time before each GEMM figure's timed windows, on both sides (the peer script
/// `benches/peers/torch_blas.py` waits as long): the large products run at the GPU's power
/// limit, where the clock depends on how hot the previous figure left the chip, so each figure
/// starts from the same rest.
pub const COOL_DOWN: std::time::Duration = std::time::Duration::from_secs(1);

/// Waits [`COOL_DOWN`].
pub fn cool_down() {
    std::thread::sleep(COOL_DOWN);
}
