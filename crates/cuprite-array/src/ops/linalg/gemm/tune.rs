//! The switch that lets large products on CUDA choose their cuBLASLt algorithm by timing.

use crate::util::EnvSwitch;

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
