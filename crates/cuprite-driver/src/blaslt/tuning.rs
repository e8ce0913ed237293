//! The tuning policy of a [`BlasLt`](super::BlasLt) handle: which problems time their
//! candidate algorithms, how many, and by what margin (the timing itself is `tune.rs`'s).

/// When and how a [`BlasLt`](super::BlasLt) handle tunes new problems
/// ([`BlasLt::set_tuning`](super::BlasLt::set_tuning)).
///
/// Tuning runs only where repeating the product cannot change what the call computes: no
/// output (D, the GELU input a `GeluAux` epilogue stores) overlaps a buffer the call reads (A,
/// B, C when `beta` is not zero, the bias, the GELU input a `DGelu` epilogue reads), C is not
/// D (in place) when `beta` is not zero, and no bias gradient is written; and never on a
/// capturing stream. A problem that cannot be tuned on its first
/// call keeps the heuristic's choice until a call that can. The choice may differ between
/// processes (timings vary), so results of tuned problems may differ in rounding between runs;
/// with tuning off the heuristic's choice is the same every run. `CUPRITE_BLASLT_TUNE_TRACE=1`
/// prints each tuning's timings and choice to stderr.
///
/// ```
/// use cuprite_driver::blaslt::Tuning;
/// let t = Tuning::default();
/// assert_eq!(t.candidates, 8);
/// assert!(t.applies(2.0 * 8192f64.powi(3)));
/// assert!(!t.applies(2.0 * 256f64.powi(3)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// Candidates asked of the heuristic (2 to 32; the heuristic's first choice among them).
    pub candidates: u32,
    /// Products of fewer floating-point operations (`2·m·n·k·batch`) keep the first choice:
    /// timing them costs more than it can save.
    pub min_flop: f64,
    /// Another candidate replaces the first choice only when its median time is below this
    /// fraction of the first choice's (so that noise does not move the choice).
    pub margin: f64,
}

impl Default for Tuning {
    /// Eight candidates, products of at least 2^33 operations (a 2048³ product qualifies,
    /// 1024³ does not), a 1% margin (about the spread of one candidate's median between
    /// processes, so that noise rarely moves the choice; see docs/perf-log/tuning-notes.md).
    fn default() -> Self {
        Tuning {
            candidates: 8,
            min_flop: (1u64 << 33) as f64,
            margin: 0.99,
        }
    }
}

impl Tuning {
    /// Whether a product of `flop` operations is tuned.
    pub fn applies(&self, flop: f64) -> bool {
        self.candidates >= 2 && flop >= self.min_flop
    }
}

/// Whether `CUPRITE_BLASLT_TUNE_TRACE` is set (not empty, not `0`): each tuning then prints
/// its candidates' median times and the choice (`*`) to stderr.
pub(super) fn trace() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| {
        std::env::var("CUPRITE_BLASLT_TUNE_TRACE").is_ok_and(|v| !v.is_empty() && v != "0")
    })
}
