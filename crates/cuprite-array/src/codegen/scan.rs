//! The inclusive scan (cumulative sum) kernel of a library call: one block per line of the
//! scanned axis, tiles of `BLOCK * ITEMS` elements, a warp-shuffle block scan per tile and a
//! running carry between tiles (kept in the compute type: `float` for `f16`/`bf16`).

use super::{BLOCK, KernelSource, load_conv, store_conv, with_prelude};
use crate::dtype::DType;

/// Elements per thread per tile.
const ITEMS: usize = 8;

/// The scan kernel for `dtype` (not complex, not bool). Parameters: `in`, `out`, `lines`, `n`,
/// `inner` (element `(o, i, j)` of a line `o * inner + j` is at `(o * n + i) * inner + j`).
pub(crate) fn scan_kernel(dtype: DType) -> KernelSource {
    let s = dtype.c_storage();
    let c = dtype.c_compute();
    let name = format!("cuprite_cumsum_{}", dtype.name());
    let load = load_conv(dtype, "in[base + i * inner]");
    let store = store_conv(dtype, "v[k] + prefix");
    let warps = BLOCK / 32;
    let body = format!(
        r#"extern "C" __global__ void __launch_bounds__({BLOCK}) {name}(const {s} *__restrict__ in, {s} *__restrict__ out, i64t lines, i64t n, i64t inner) {{
  __shared__ {c} warp_tot[32];
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  for (i64t line = blockIdx.x; line < lines; line += gridDim.x) {{
    const i64t o = line / inner, j = line - o * inner;
    const i64t base = o * n * inner + j;
    {c} carry = ({c})0;
    for (i64t tile = 0; tile < n; tile += {BLOCK} * {ITEMS}) {{
      {c} v[{ITEMS}];
      {c} run = ({c})0;
      #pragma unroll
      for (int k = 0; k < {ITEMS}; ++k) {{
        const i64t i = tile + (i64t)t * {ITEMS} + k;
        {c} x = ({c})0;
        if (i < n) x = ({c})({load});
        run = run + x;
        v[k] = run;
      }}
      {c} sc = run;
      #pragma unroll
      for (int d = 1; d < 32; d <<= 1) {{
        {c} y = __shfl_up_sync(0xffffffffu, sc, d);
        if (lane >= d) sc = sc + y;
      }}
      if (lane == 31) warp_tot[w] = sc;
      __syncthreads();
      if (w == 0) {{
        {c} x = lane < {warps} ? warp_tot[lane] : ({c})0;
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) {{
          {c} y = __shfl_up_sync(0xffffffffu, x, d);
          if (lane >= d) x = x + y;
        }}
        if (lane < {warps}) warp_tot[lane] = x;
      }}
      __syncthreads();
      {c} ex = __shfl_up_sync(0xffffffffu, sc, 1);
      if (lane == 0) ex = ({c})0;
      const {c} prefix = (carry + (w > 0 ? warp_tot[w - 1] : ({c})0)) + ex;
      #pragma unroll
      for (int k = 0; k < {ITEMS}; ++k) {{
        const i64t i = tile + (i64t)t * {ITEMS} + k;
        if (i < n) out[base + i * inner] = {store};
      }}
      carry = carry + warp_tot[{warps} - 1];
      __syncthreads();
    }}
  }}
}}
"#
    );
    KernelSource {
        name,
        source: with_prelude(&body),
    }
}
