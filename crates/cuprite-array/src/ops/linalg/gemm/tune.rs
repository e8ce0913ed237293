//! The switch that lets large products on CUDA choose their cuBLASLt algorithm by timing, and
//! the tuning policy the per-stream handles take.

use crate::util::EnvSwitch;
use cuprite_driver::blaslt::Tuning;

static TUNE: EnvSwitch = EnvSwitch::new("CUPRITE_ARRAY_GEMM_TUNE", true);

/// Lets matrix products on CUDA of at least 2^33 floating-point operations time cuBLASLt's
/// candidate algorithms on their first call and keep the fastest ([`cuprite_driver::blaslt::Tuning`]'s
/// defaults). On by default (`CUPRITE_ARRAY_GEMM_TUNE=0` starts with it off): the first call of
/// such a shape costs about 25 runs of the product and one synchronisation; later calls of the
/// shape run the chosen kernel. With it off, every run picks the same kernel (cuBLASLt's
/// heuristic), so results are the same bit for bit from process to process; with it on they
/// may differ in rounding when two processes time differently. Applies to shapes first
/// multiplied after the call.
///
/// ```
/// use cuprite_array::linalg::{gemm_tuning, set_gemm_tuning};
/// let before = gemm_tuning();
/// set_gemm_tuning(false);
/// assert!(!gemm_tuning());
/// set_gemm_tuning(before);
/// ```
pub fn set_gemm_tuning(on: bool) {
    TUNE.set(on);
}

/// Whether large products time their candidate algorithms (see [`set_gemm_tuning`]).
pub fn gemm_tuning() -> bool {
    TUNE.get()
}

/// The tuning policy of the per-stream cuBLASLt handles: [`Tuning`]'s defaults, with the
/// smallest tuned product (`2·m·n·k·batch` operations) from `CUPRITE_ARRAY_GEMM_TUNE_MIN_FLOP`
/// where that is set to a positive number (read once; for tuning, so that mid-sized products
/// such as a convolution's lowered ones can be timed against their candidates).
pub(super) fn policy() -> Tuning {
    static MIN_FLOP: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    let min = *MIN_FLOP.get_or_init(|| {
        std::env::var("CUPRITE_ARRAY_GEMM_TUNE_MIN_FLOP")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
    });
    let mut t = Tuning::default();
    if let Some(m) = min {
        t.min_flop = m;
    }
    t
}
