//! CUDA sources of the radix sort: LSD passes of 8-bit digits over unsigned keys (see
//! [`super::keys`]), three kernels a pass (per-tile digit counts, a scan of the counts per
//! digit, a stable scatter through shared memory), and a one-block-per-row sort for rows that
//! fit in shared memory. Blocks are 256 threads; item `k` of thread `t` of a tile is tile
//! element `k * 256 + t`, the order stability is defined by.

use super::keys::{KeySpec, c_helpers};
use crate::codegen::KernelSource;

/// Marks where the helpers end and the kernel begins (as the library's other kernels do).
pub(crate) const MARKER: &str = "// ---- cuprite-array kernel ----\n";

/// Items per thread of a tile for keys of `bits` bits (a tile is `256 * items` elements).
pub(crate) fn items(bits: u32) -> usize {
    if bits == 64 { 8 } else { 16 }
}

/// Elements per tile (and the longest row the one-block row sort takes).
pub(crate) fn tile(bits: u32) -> usize {
    256 * items(bits)
}

/// Base typedefs, then `extra`, the marker and `body`.
pub(crate) fn source(extra: &str, body: &str) -> String {
    format!(
        "typedef unsigned long long u64t;\ntypedef long long i64t;\n{extra}{BLOCK_HELPERS}{MARKER}{body}"
    )
}

/// Block-wide helpers shared by the sort kernels: an exclusive scan of one value per thread,
/// and the stable ranking of a tile's digits.
const BLOCK_HELPERS: &str = r#"
__device__ __forceinline__ unsigned block_exscan(unsigned v, unsigned *tmp, unsigned *total) {
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  unsigned x = v;
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) { unsigned y = __shfl_up_sync(0xffffffffu, x, d); if (lane >= d) x += y; }
  if (lane == 31) tmp[w] = x;
  __syncthreads();
  unsigned off = 0, tot = 0;
  #pragma unroll
  for (int i = 0; i < 8; ++i) { unsigned c = tmp[i]; if (i < w) off += c; tot += c; }
  __syncthreads();
  *total = tot;
  return off + x - v;
}
// Stable ranks of a tile's digits (`0xffffffff`: no element): item `j` of lane `l` of warp `w`
// is tile element `(w * ITEMS + j) * 32 + l`. Each warp counts its own elements in its own
// counters (no block barrier per item); then per digit the warps' counts are scanned and the
// digits' totals give where each digit starts. `pos` gets each element's place in the tile
// sorted by digit, `start` each digit's first place. Ends with a block barrier.
template <int ITEMS>
__device__ __forceinline__ void block_rank(const unsigned *dig, unsigned *pos, unsigned *wc, unsigned *start, unsigned *tmp) {
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  unsigned *my = wc + w * 256;
  #pragma unroll
  for (int i = 0; i < 8; ++i) my[lane + 32 * i] = 0;
  __syncwarp();
  const unsigned lt = (1u << lane) - 1u;
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const unsigned d = dig[j];
    const unsigned peers = __match_any_sync(0xffffffffu, d);
    const int leader = __ffs(peers) - 1;
    unsigned b = 0;
    if (lane == leader && d != 0xffffffffu) { b = my[d]; my[d] = b + __popc(peers); }
    b = __shfl_sync(0xffffffffu, b, leader);
    pos[j] = b + __popc(peers & lt);
    __syncwarp();
  }
  __syncthreads();
  unsigned run = 0;
  #pragma unroll
  for (int v = 0; v < 8; ++v) { const unsigned c = wc[v * 256 + t]; wc[v * 256 + t] = run; run += c; }
  unsigned tot;
  start[t] = block_exscan(run, tmp, &tot);
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const unsigned d = dig[j];
    if (d != 0xffffffffu) pos[j] += start[d] + my[d];
  }
  __syncthreads();
}
"#;

/// Shared memory of a tile: the ranking counters (8 KiB), reused for the staged keys and
/// indices.
fn smem_bytes(spec: KeySpec) -> usize {
    let t = tile(spec.bits);
    (t * (spec.bits.max(32) as usize / 8 + 4)).max(2048 * 4)
}

fn key_only(spec: KeySpec) -> String {
    format!(
        "typedef {} K;\n#define KMASK (({}){})\n",
        spec.c_key(),
        spec.c_key(),
        if spec.bits == 64 {
            "0xffffffffffffffffull"
        } else {
            "0xffffffffu"
        }
    )
}

/// The digit of a pass: of the key, or of the row of index `ix` (`seg` elements a row).
const DIGIT: &str =
    "(seg ? (unsigned)(((u64t)ix / seg) >> shift) & 255u : (unsigned)((k >> shift) & 255u))";

/// Per-tile digit counts of one pass: `counts[d * ntiles + tile]`.
pub(crate) fn upsweep(spec: KeySpec) -> KernelSource {
    let items = items(spec.bits);
    let tile = tile(spec.bits);
    let name = format!("cuprite_sort_up_k{}", spec.bits.max(32));
    let body = format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(const K *__restrict__ keys, const unsigned *__restrict__ idx, unsigned *__restrict__ counts, u64t n, u64t ntiles, u64t shift, u64t seg) {{
  __shared__ unsigned h[256];
  const int t = threadIdx.x, lane = t & 31;
  const u64t tile = blockIdx.x;
  h[t] = 0;
  __syncthreads();
  const u64t base = tile * {tile};
  #pragma unroll
  for (int j = 0; j < {items}; ++j) {{
    const u64t i = base + (u64t)j * 256 + t;
    unsigned d = 0xffffffffu;
    if (i < n) {{ const K k = keys[i]; const unsigned ix = idx ? idx[i] : 0u; d = {DIGIT}; }}
    const unsigned peers = __match_any_sync(0xffffffffu, d);
    if (d != 0xffffffffu && (peers & ((1u << lane) - 1u)) == 0) atomicAdd(&h[d], __popc(peers));
  }}
  __syncthreads();
  counts[(u64t)t * ntiles + tile] = h[t];
}}
"#
    );
    KernelSource {
        name,
        source: source(&key_only(spec), &body),
    }
}

/// Turns the counts of one pass into global offsets: block `d` scans digit `d`'s tiles,
/// starting after every element of a smaller digit (`totals`, the pass's histogram).
pub(crate) fn scan_counts() -> KernelSource {
    let name = "cuprite_sort_scan".to_string();
    let body = format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(unsigned *__restrict__ counts, const unsigned *__restrict__ totals, u64t ntiles) {{
  __shared__ unsigned tmp[8];
  __shared__ unsigned s_base;
  const int t = threadIdx.x;
  const unsigned d = blockIdx.x;
  if (t == 0) {{ unsigned b = 0; for (unsigned i = 0; i < d; ++i) b += totals[i]; s_base = b; }}
  __syncthreads();
  unsigned carry = s_base;
  unsigned *row = counts + (u64t)d * ntiles;
  for (u64t c = 0; c < ntiles; c += 256) {{
    const u64t i = c + t;
    const unsigned v = i < ntiles ? row[i] : 0u;
    unsigned tot;
    const unsigned ex = block_exscan(v, tmp, &tot);
    if (i < ntiles) row[i] = carry + ex;
    carry += tot;
  }}
}}
"#
    );
    KernelSource {
        name,
        source: source("", &body),
    }
}

/// The stable scatter of one pass: ranks each tile's digits in shared memory, stages the tile
/// sorted by digit, and writes each digit's run to its global offset.
pub(crate) fn scatter(spec: KeySpec) -> KernelSource {
    let items = items(spec.bits);
    let tile = tile(spec.bits);
    let sm = smem_bytes(spec);
    let name = format!("cuprite_sort_scatter_k{}", spec.bits.max(32));
    let body = format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(const K *__restrict__ kin, const unsigned *__restrict__ iin, K *__restrict__ kout, unsigned *__restrict__ iout, const unsigned *__restrict__ offs, u64t n, u64t ntiles, u64t shift, u64t seg) {{
  __shared__ __align__(16) unsigned char sm[{sm}];
  __shared__ unsigned s_start[256], s_off[256], s_tmp[8];
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const u64t tile = blockIdx.x, base = tile * {tile};
  const u64t left = n - base;
  const int valid = left < {tile} ? (int)left : {tile};
  K key[{items}]; unsigned ixs[{items}], dig[{items}], pos[{items}];
  #pragma unroll
  for (int j = 0; j < {items}; ++j) {{
    const int p = (w * {items} + j) * 32 + lane;
    K k = 0; unsigned ix = 0; unsigned d = 0xffffffffu;
    if (p < valid) {{ k = kin[base + p]; ix = iin ? iin[base + p] : 0u; d = {DIGIT}; }}
    key[j] = k; ixs[j] = ix; dig[j] = d;
  }}
  s_off[t] = offs[(u64t)t * ntiles + tile];
  block_rank<{items}>(dig, pos, (unsigned *)sm, s_start, s_tmp);
  K *sk = (K *)sm;
  unsigned *si = (unsigned *)(sm + {tile} * sizeof(K));
  #pragma unroll
  for (int j = 0; j < {items}; ++j) {{
    if (dig[j] != 0xffffffffu) {{ sk[pos[j]] = key[j]; si[pos[j]] = ixs[j]; }}
  }}
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < {items}; ++j) {{
    const int p = j * 256 + t;
    if (p < valid) {{
      const K k = sk[p]; const unsigned ix = si[p];
      const unsigned d = {DIGIT};
      const u64t o = (u64t)s_off[d] + (unsigned)(p - (int)s_start[d]);
      kout[o] = k;
      if (iout) iout[o] = ix;
    }}
  }}
}}
"#
    );
    KernelSource {
        name,
        source: source(&key_only(spec), &body),
    }
}

/// Keys (and indices `0..n`) of the input, with the digit histogram of every pass: `kp` key
/// passes then `sp` passes over the row number (`seg` elements a row).
pub(crate) fn make_keys(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sort_keys_{}", spec.dtype.name());
    let b = spec.c_bits();
    let body = format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(const {b} *__restrict__ x, K *__restrict__ keys, unsigned *__restrict__ idx, unsigned *__restrict__ hist, u64t n, u64t desc, u64t seg, u64t kp, u64t sp) {{
  __shared__ unsigned h[12 * 256];
  const int t = threadIdx.x, lane = t & 31;
  const int P = (int)(kp + sp);
  for (int i = t; i < P * 256; i += 256) h[i] = 0;
  __syncthreads();
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t s = (u64t)blockIdx.x * 256; s < n; s += stride) {{
    const u64t i = s + t;
    const bool ok = i < n;
    K k = 0;
    if (ok) {{ k = tkey((K)x[i], desc != 0); keys[i] = k; if (idx) idx[i] = (unsigned)i; }}
    const unsigned lt = (1u << lane) - 1u;
    for (int p = 0; p < (int)kp; ++p) {{
      const unsigned d = ok ? (unsigned)((k >> (8 * p)) & 255u) : 0xffffffffu;
      const unsigned peers = __match_any_sync(0xffffffffu, d);
      if (ok && (peers & lt) == 0) atomicAdd(&h[p * 256 + d], __popc(peers));
    }}
    if (sp) {{
      const u64t r = ok ? i / seg : 0;
      for (int q = 0; q < (int)sp; ++q) {{
        const unsigned d = ok ? (unsigned)((r >> (8 * q)) & 255u) : 0xffffffffu;
        const unsigned peers = __match_any_sync(0xffffffffu, d);
        if (ok && (peers & lt) == 0) atomicAdd(&h[((int)kp + q) * 256 + d], __popc(peers));
      }}
    }}
  }}
  __syncthreads();
  for (int i = t; i < P * 256; i += 256) if (h[i]) atomicAdd(&hist[i], h[i]);
}}
"#
    );
    KernelSource {
        name,
        source: source(&c_helpers(spec), &body),
    }
}

/// Sorted keys back to values, and indices to `i64` positions within their row.
pub(crate) fn finish(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sort_finish_{}", spec.dtype.name());
    let b = spec.c_bits();
    let body = format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(const K *__restrict__ keys, const unsigned *__restrict__ idx, {b} *__restrict__ vout, i64t *__restrict__ iout, u64t n, u64t desc, u64t seg) {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) {{
    if (vout) vout[i] = ({b})tval(keys[i], desc != 0);
    if (iout) {{ u64t ix = idx[i]; if (seg) ix -= (i / seg) * seg; iout[i] = (i64t)ix; }}
  }}
}}
"#
    );
    KernelSource {
        name,
        source: source(&c_helpers(spec), &body),
    }
}

/// One block per row of at most [`tile`] elements: the whole LSD sort in shared memory.
pub(crate) fn rows(spec: KeySpec) -> KernelSource {
    let items = items(spec.bits);
    let tile = tile(spec.bits);
    let sm = smem_bytes(spec);
    let passes = spec.bits / 8;
    let name = format!("cuprite_sort_rows_{}", spec.dtype.name());
    let b = spec.c_bits();
    let body = format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(const {b} *__restrict__ x, {b} *__restrict__ vout, i64t *__restrict__ iout, u64t rows, u64t n, u64t desc) {{
  __shared__ __align__(16) unsigned char sm[{sm}];
  __shared__ unsigned s_start[256], s_tmp[8];
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  K *sk = (K *)sm;
  unsigned *si = (unsigned *)(sm + {tile} * sizeof(K));
  for (u64t row = blockIdx.x; row < rows; row += gridDim.x) {{
    const {b} *xr = x + row * n;
    K key[{items}]; unsigned ixs[{items}], dig[{items}], pos[{items}];
    #pragma unroll
    for (int j = 0; j < {items}; ++j) {{
      const int p = (w * {items} + j) * 32 + lane;
      key[j] = p < (int)n ? tkey((K)xr[p], desc != 0) : (K)0;
      ixs[j] = (unsigned)p;
    }}
    #pragma unroll 1
    for (int pass = 0; pass < {passes}; ++pass) {{
      #pragma unroll
      for (int j = 0; j < {items}; ++j) {{
        const int p = (w * {items} + j) * 32 + lane;
        dig[j] = p < (int)n ? (unsigned)((key[j] >> (8 * pass)) & 255u) : 0xffffffffu;
      }}
      block_rank<{items}>(dig, pos, (unsigned *)sm, s_start, s_tmp);
      #pragma unroll
      for (int j = 0; j < {items}; ++j) {{
        if (dig[j] != 0xffffffffu) {{ sk[pos[j]] = key[j]; si[pos[j]] = ixs[j]; }}
      }}
      __syncthreads();
      #pragma unroll
      for (int j = 0; j < {items}; ++j) {{
        const int p = (w * {items} + j) * 32 + lane;
        if (p < (int)n) {{ key[j] = sk[p]; ixs[j] = si[p]; }}
      }}
      __syncthreads();
    }}
    #pragma unroll
    for (int j = 0; j < {items}; ++j) {{
      const int p = (w * {items} + j) * 32 + lane;
      if (p < (int)n) {{
        if (vout) vout[row * n + p] = ({b})tval(key[j], desc != 0);
        if (iout) iout[row * n + p] = (i64t)ixs[j];
      }}
    }}
  }}
}}
"#
    );
    KernelSource {
        name,
        source: source(&c_helpers(spec), &body),
    }
}
