//! The registry's vocabulary: what one benchmark is ([`Benchmark`]) and returns
//! ([`BenchResult`]), how a run went for it ([`Outcome`]), and the settings of one
//! `cuprite bench` invocation ([`RunOptions`]).

use super::context::{BenchCtx, BenchError};
use super::figure::Figure;
use std::time::Duration;

/// What a benchmark returns: its figures.
pub type BenchResult = Result<Vec<Figure>, BenchError>;

/// One named benchmark.
#[derive(Clone, Copy)]
pub struct Benchmark {
    /// Unique name, `<group>/<what>`, e.g. `ceiling/device_copy`. Filters match on it.
    pub name: &'static str,
    /// The topic it belongs to (its file's name), e.g. `ceiling`, `launch`, `array`.
    pub group: &'static str,
    /// Whether it needs a CUDA device (skipped, and reported as skipped, without one).
    pub needs_gpu: bool,
    /// The benchmark itself.
    pub run: fn(&mut BenchCtx) -> BenchResult,
}

impl std::fmt::Debug for Benchmark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Benchmark")
            .field("name", &self.name)
            .field("group", &self.group)
            .field("needs_gpu", &self.needs_gpu)
            .finish()
    }
}

/// Settings of one `cuprite bench` invocation.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Substrings: a benchmark runs when its name or group contains any of them (all when empty).
    pub filters: Vec<String>,
    /// Untimed warm-up runs.
    pub warmup: usize,
    /// Timed repeats.
    pub repeats: usize,
    /// Smaller sizes and fewer repeats.
    pub quick: bool,
    /// Where to write the JSON report.
    pub json: Option<std::path::PathBuf>,
    /// Only list the selected benchmarks.
    pub list: bool,
    /// Also print the figures as rows of the table in `docs/PERFORMANCE.md`.
    pub markdown: bool,
    /// Draw the figures' charts as SVG files into this folder.
    pub plot: Option<std::path::PathBuf>,
    /// Print each figure's ratio to this saved JSON report and flag regressions.
    pub compare: Option<std::path::PathBuf>,
    /// A worse ratio than this fraction (0.1: 10% slower or lower) counts as a regression.
    pub threshold: f64,
    /// Peer libraries' figures (JSON files of `benches/peers/` scripts): judged against
    /// cuprite's, and drawn beside them.
    pub peers: Vec<std::path::PathBuf>,
    /// Use this saved JSON report instead of running benchmarks (for `--plot`, `--compare`,
    /// `--peers`).
    pub from: Option<std::path::PathBuf>,
}

/// The outcome of one benchmark.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// It ran, giving these figures in this time.
    Ran(Vec<Figure>, Duration),
    /// It could not run here (why).
    Skipped(String),
    /// It failed (how).
    Failed(String),
}
