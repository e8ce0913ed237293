//! The histogram kernel of a library call (`histogram`, `bincount`): each block counts its
//! grid-stride share of the input into a private copy of the bins in shared memory (shared
//! atomics), then adds its non-zero bins to the output with one global atomic each. When the
//! bins do not fit the shared-memory budget, elements go to the output's bins directly.
//!
//! Bin arithmetic is in `double` with explicitly rounded operations (`__dmul_rn`, `__dadd_rn`:
//! no contraction into fused multiply-adds), so that the bin of every value is the one the CPU
//! backend computes, bit for bit: NumPy's rule, `f = (v - lo) / (hi - lo) * bins` truncated,
//! then moved by one where `v` falls on the other side of the edge `lo + k * step`
//! (`step = (hi - lo) / bins`, the last edge exactly `hi`, the last bin closed).

use super::signature::{MaybeRead, ReadBuf, WriteBuf, head, kernel_params};
use super::{BLOCK, Helpers, KernelSource, load_conv};
use crate::dtype::DType;

kernel_params! {
    /// The histogram kernel's parameters: `n` values, their `f64` weights (null: unweighted),
    /// the `bins` accumulators, and the range `[lo, hi]` cut in bins of width `step`.
    pub(crate) struct HistogramParams<'a> {
        x: ReadBuf<'a> as "SrcT",
        w: MaybeRead<'a> as "double",
        out: WriteBuf<'a> as "GAccT",
        n: i64,
        bins: i64,
        lo: f64,
        hi: f64,
        step: f64,
    }
}

/// Shared-memory bytes a block may use for its private bins.
pub(crate) const HIST_SHARED_BYTES: usize = 32 * 1024;

/// How values map to bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum HistMode {
    /// Equal-width bins over `[lo, hi]` (given at launch as `f64` bits); values outside or NaN
    /// are not counted.
    Range,
    /// The value is the bin (`i64` input); values outside `0..bins` are not counted.
    Int,
}

/// The histogram kernel. Parameters: `x` (`n` values of `dtype`), `w` (`n` `f64` weights, read
/// when `weighted`), `out` (`bins` `u64` counts, or `f64` sums when `weighted`; zeroed before
/// the launch), `n`, `bins`, `lo`, `hi`, `step` (all `f64` bits). `private`: count in shared
/// memory first (needs `bins` accumulators of dynamic shared memory).
pub(crate) fn histogram_kernel(
    dtype: DType,
    mode: HistMode,
    weighted: bool,
    private: bool,
) -> KernelSource {
    let s = dtype.c_storage();
    let name = format!(
        "cuprite_hist_{}_{}{}{}",
        dtype.name(),
        if mode == HistMode::Range { "r" } else { "i" },
        if weighted { "_w" } else { "" },
        if private { "_p" } else { "" }
    );
    let (acc, gacc, one) = if weighted {
        ("double", "double", "w[i]")
    } else {
        ("unsigned", "unsigned long long", "1u")
    };
    let bin = match mode {
        HistMode::Range => format!(
            r#"const double v = (double)({});
    if (!(v >= lo && v <= hi)) continue;
    i64t k = (i64t)__dmul_rn(__ddiv_rn(__dsub_rn(v, lo), span), (double)bins);
    if (k >= bins) k = bins - 1;
    if (k < 0) k = 0;
    if (v < edge(k, lo, hi, step, bins)) k -= 1;
    else if (k != bins - 1 && v >= edge(k + 1, lo, hi, step, bins)) k += 1;"#,
            load_conv(dtype, "x[i]")
        ),
        HistMode::Int => {
            "const i64t k = (i64t)x[i];\n    if (k < 0 || k >= bins) continue;".to_string()
        }
    };
    let (init, add, flush) = if private {
        (
            format!(
                "extern __shared__ unsigned char smem_[];\n  {acc} *sh = reinterpret_cast<{acc} *>(smem_);\n  for (i64t k = threadIdx.x; k < bins; k += {BLOCK}) sh[k] = ({acc})0;\n  __syncthreads();"
            ),
            format!("atomicAdd(&sh[k], {one});"),
            format!(
                "__syncthreads();\n  for (i64t k = threadIdx.x; k < bins; k += {BLOCK}) if (sh[k] != ({acc})0) atomicAdd(&out[k], ({gacc})sh[k]);"
            ),
        )
    } else {
        (
            String::new(),
            format!("atomicAdd(&out[k], ({gacc}){one});"),
            String::new(),
        )
    };
    let head = head::<HistogramParams>(&name, &BLOCK.to_string());
    let body = format!(
        r#"typedef {s} SrcT;
typedef {gacc} GAccT;
__device__ __forceinline__ double edge(i64t k, double lo, double hi, double step, i64t bins) {{
  return k >= bins ? hi : __dadd_rn(__dmul_rn((double)k, step), lo);
}}
{head} {{
  const double span = __dsub_rn(hi, lo);
  (void)w; (void)lo; (void)hi; (void)step; (void)span;
  {init}
  for (i64t i = (i64t)blockIdx.x * {BLOCK} + threadIdx.x; i < n; i += (i64t)gridDim.x * {BLOCK}) {{
    {bin}
    {add}
  }}
  {flush}
}}
"#
    );
    KernelSource::generated(name, &body, Helpers::of_dtype(dtype))
}
