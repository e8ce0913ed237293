//! The switch that lets large products on CUDA choose their cuBLASLt algorithm by timing.

use std::sync::atomic::{AtomicU8, Ordering};

/// 2: not yet read from the environment; else 0 or 1.
static TUNE: AtomicU8 = AtomicU8::new(2);

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
    TUNE.store(on as u8, Ordering::Relaxed);
}

/// Whether large products time their candidate algorithms (see [`set_gemm_tuning`]).
pub fn gemm_tuning() -> bool {
    match TUNE.load(Ordering::Relaxed) {
        2 => {
            let on = std::env::var("CUPRITE_ARRAY_GEMM_TUNE").map_or(true, |v| v != "0");
            // Another thread's `set_gemm_tuning` since the load wins.
            let _ = TUNE.compare_exchange(2, on as u8, Ordering::Relaxed, Ordering::Relaxed);
            TUNE.load(Ordering::Relaxed) == 1
        }
        v => v == 1,
    }
}
