//! The `searchsorted` kernel: one thread per query (grid-stride), the query read through the
//! fused program, a binary search in the sorted row. For one sorted row longer than
//! [`SAMPLES`], each block first copies every `w`-th element into shared memory and searches
//! those samples, so that a query touches global memory only within one gap of `w` elements.

use super::*;
use crate::codegen::kargs::KernelParams;

/// Samples of the sorted row kept in shared memory.
pub(crate) const SAMPLES: usize = 1024;

/// The search kernel for queries given by `p` (output 0, of `sorted`'s dtype) in rows of
/// `sorted`. Parameters: the program's (output `out0`, `i64`), then [`SearchArgs`]'s.
/// Floats order NaN last, as sorting does.
pub(crate) fn search_kernel(p: &Program, sorted: DType) -> KernelSource {
    let c = cty(sorted);
    let st = sorted.c_storage();
    let name = format!("cuprite_searchsorted_{}", sorted.name());
    let lt = if sorted.is_float() {
        "((a == a && b != b) || a < b)"
    } else {
        "(a < b)"
    };
    let mut s = format!(
        r#"__device__ __forceinline__ bool lt_({c} a, {c} b) {{ return {lt}; }}
__device__ __forceinline__ bool pred_({c} s, {c} v, bool right) {{ return right ? !lt_(v, s) : lt_(s, v); }}
"#
    );
    let tail = KernelParams::signature(&SearchArgs { sorted, bind: None });
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}({}, {tail}) {{",
        params(p, V, 1, &[DType::I64])
    );
    let load = |e: &str| load_conv(sorted, e);
    let _ = write!(
        s,
        r#"  __shared__ {c} smp_[{SAMPLES}];
  const long long total_ = (long long)n;
  const bool right = right_ != 0;
  const bool samp_ = total_ <= (long long)kq_ && m_ > {SAMPLES};
  long long w_ = 1, ns_ = 0;
  if (samp_) {{
    w_ = ((long long)m_ + {SAMPLES} - 1) / {SAMPLES};
    ns_ = ((long long)m_ + w_ - 1) / w_;
    for (long long q_ = threadIdx.x; q_ < ns_; q_ += {BLOCK}) smp_[q_] = {};
    __syncthreads();
  }}
  for (long long lin_ = (long long)blockIdx.x * {BLOCK} + threadIdx.x; lin_ < total_; lin_ += (long long)gridDim.x * {BLOCK}) {{
    {c} x_;
{}    const long long row_ = lin_ / (long long)kq_;
    const {st} *base_ = srt_ + row_ * (long long)m_;
    long long lo_ = 0, hi_ = (long long)m_;
    if (samp_) {{
      long long a_ = 0, b_ = ns_;
      while (a_ < b_) {{
        const long long mid_ = (a_ + b_) >> 1;
        if (pred_(smp_[mid_], x_, right)) a_ = mid_ + 1; else b_ = mid_;
      }}
      if (a_ == 0) {{ lo_ = 0; hi_ = 0; }}
      else {{ lo_ = (a_ - 1) * w_ + 1; hi_ = a_ < ns_ ? a_ * w_ : (long long)m_; }}
    }}
    while (lo_ < hi_) {{
      const long long mid_ = (lo_ + hi_) >> 1;
      if (pred_({}, x_, right)) lo_ = mid_ + 1; else hi_ = mid_;
    }}
    out0[lin_] = lo_;
  }}
}}
"#,
        load("srt_[q_ * w_]"),
        eval_at(p, "x_ = V0;"),
        load("base_[mid_]"),
    );
    // Built at `--Ofast-compile=min`, where it was measured faster (docs/perf-log/).
    KernelSource::generated(name, &s, Helpers::of_program(p) | Helpers::of_dtype(sorted))
        .at_level(FastCompile::Min)
}
