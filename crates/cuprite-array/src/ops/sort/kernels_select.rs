//! CUDA sources of selection and of the passes over sorted data: radix selection of the
//! element of a given rank by the composite key (value key, then index: a total order, so the
//! selected element and the set before it are unique), quantiles and modes of sorted rows,
//! run flags and compaction for `unique` and the set operations, an exclusive scan of `u32`
//! flags, and a gather by sort permutation.
//!
//! Selection state (`u64` words): `[0]` key prefix, `[1]` index prefix, `[2]` rank left,
//! `[3]` candidates, `[4]` NaNs seen, `[5]` elements collected, `[6]` candidates after the
//! second digit.

use super::kernels::source;
use super::keys::{KeySpec, c_helpers};
use super::params as P;
use crate::codegen::{KernelSource, head};
use crate::dtype::DType;

fn ks(name: String, spec: KeySpec, body: String) -> KernelSource {
    KernelSource::new(name, source(&c_helpers(spec), &body))
}

/// Warp-aggregated append of `val` items: `*slot` gets the position (valid where `ok`).
const APPEND: &str = r#"
__device__ __forceinline__ u64t warp_append(bool ok, u64t *counter) {
  const unsigned m = __ballot_sync(0xffffffffu, ok);
  const int lane = threadIdx.x & 31;
  u64t base = 0;
  if (m && lane == __ffs(m) - 1) base = atomicAdd(counter, (u64t)__popc(m));
  base = __shfl_sync(0xffffffffu, base, m ? __ffs(m) - 1 : 0);
  return base + __popc(m & ((1u << lane) - 1u));
}
"#;

/// Opens the loop of the full-read selection kernels over elements `i` of `x` (`n` of them):
/// a block takes 2,048 a step, 8 a thread, all loaded (into `kk[q]`, 0 past `n`) before any is
/// used (so that eight loads a thread are in flight at once). The body sees `q`, `i`
/// and `kk`, may test `i < n` itself, and ends with [`EACH8_CLOSE`].
const EACH8_OPEN: &str = "const u64t stride = (u64t)gridDim.x * 2048;
  for (u64t s = (u64t)blockIdx.x * 2048; s < n; s += stride) {
    K kk[8];
    #pragma unroll
    for (int q = 0; q < 8; ++q) { const u64t i = s + (u64t)q * 256 + t; kk[q] = i < n ? (K)x[i] : (K)0; }
    #pragma unroll
    for (int q = 0; q < 8; ++q) {
      const u64t i = s + (u64t)q * 256 + t;";

/// Closes [`EACH8_OPEN`].
const EACH8_CLOSE: &str = "    }\n  }";

/// Adds one to `h[d]` for every lane with `d` valid (warp-aggregated: lanes with equal
/// digits add once, by `__match_any_sync`; the sort's own histogram ranks by ballots instead,
/// which are slower here).
const HIST_ADD: &str = r#"
__device__ __forceinline__ void hist_add(unsigned *h, unsigned d) {
  const unsigned peers = __match_any_sync(0xffffffffu, d);
  const unsigned lane = threadIdx.x & 31;
  if (d != 0xffffffffu && (peers & ((1u << lane) - 1u)) == 0) atomicAdd(&h[d], __popc(peers));
}
"#;

/// Histogram of the top digit of every element's key; counts NaNs.
pub(crate) fn sel_hist0(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_hist0_{}", spec.dtype.name());
    let head = head::<P::SelHist0>(&name, "256");
    let body = format!(
        r#"{HIST_ADD}{head} {{
  __shared__ unsigned h[256];
  __shared__ unsigned nans;
  const int t = threadIdx.x;
  h[t] = 0; if (t == 0) nans = 0;
  __syncthreads();
  unsigned my_nan = 0;
  {EACH8_OPEN}
      unsigned d = 0xffffffffu;
      if (i < n) {{
        const K b = kk[q];
        d = (unsigned)(tkey(b, flip != 0) >> (KBITS - 8)) & 255u;
        my_nan += isnanb(b) ? 1u : 0u;
      }}
      hist_add(h, d);
{EACH8_CLOSE}
  if (my_nan) atomicAdd(&nans, my_nan);
  __syncthreads();
  if (h[t]) atomicAdd(&hist[t], h[t]);
  if (t == 0 && nans) atomicAdd(&state[4], (u64t)nans);
}}
"#
    );
    ks(name, spec, body)
}

/// Picks the digit the rank falls in (one block): extends the prefix, lowers the rank, clears
/// the histogram for the next pass.
pub(crate) fn sel_step() -> KernelSource {
    let name = "cuprite_sel_step".to_string();
    let head = head::<P::SelStep>(&name, "256");
    let body = format!(
        r#"{head} {{
  __shared__ unsigned tmp[8];
  const int t = threadIdx.x;
  const u64t r = j == 0 ? rank0 : state[2];
  const unsigned h = hist[t];
  unsigned tot;
  const unsigned ex = block_exscan(h, tmp, &tot);
  if ((u64t)ex <= r && r < (u64t)ex + h) {{
    if (j < kd) state[0] = (state[0] << 8) | (u64t)t; else state[1] = (state[1] << 8) | (u64t)t;
    state[2] = r - ex;
  }}
  hist[t] = 0;
}}
"#
    );
    KernelSource::new(name, source("", &body))
}

/// The elements whose top `jm` key digits (1 or 2, at most the key's) are the selected prefix,
/// as (key, index) candidates (in no particular order; appended a warp at a time, one atomic
/// per warp and step where a lane matches: no block-wide scan or barrier per chunk, so the
/// pass never waits on its neighbours' loads).
pub(crate) fn sel_compact(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_compact_{}", spec.dtype.name());
    let head = head::<P::SelCompact>(&name, "256");
    let body = format!(
        r#"{APPEND}{head} {{
  const int t = threadIdx.x;
  const u64t want = state[0];
  const int sh = KBITS - 8 * (int)jm;
  const u64t mask = (1ull << (8 * jm)) - 1ull;
  {EACH8_OPEN}
      const K k = tkey(kk[q], flip != 0);
      const bool ok = i < n && ((u64t)(k >> sh) & mask) == want;
      if (__any_sync(0xffffffffu, ok)) {{
        const u64t p = warp_append(ok, &state[3]);
        if (ok) {{ ckey[p] = k; cidx[p] = (unsigned)i; }}
      }}
{EACH8_CLOSE}
}}
"#
    );
    ks(name, spec, body)
}

/// The prefix test and digit `j` of a candidate's composite key (`kd` key digits, then 4
/// index digits).
const COMPOSITE: &str = r#"
__device__ __forceinline__ bool sel_match(K k, unsigned ix, const u64t *state, int j, int kd) {
  if (j <= kd) return j == 0 || (u64t)(k >> (KBITS - 8 * j)) == state[0];
  return (u64t)k == state[0] && (unsigned)(ix >> (32 - 8 * (j - kd))) == (unsigned)state[1];
}
__device__ __forceinline__ unsigned sel_digit(K k, unsigned ix, int j, int kd) {
  if (j < kd) return (unsigned)(k >> (KBITS - 8 * (j + 1))) & 255u;
  return (ix >> (24 - 8 * (j - kd))) & 255u;
}
"#;

/// Histogram of digit `j` of every element of `x` that matches the prefix so far (a full pass
/// that writes nothing else: what narrows the candidates before they are copied out).
pub(crate) fn sel_hist_x(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_hist_x_{}", spec.dtype.name());
    let head = head::<P::SelHistX>(&name, "256");
    let body = format!(
        r#"{COMPOSITE}{head} {{
  __shared__ unsigned h[256];
  const int t = threadIdx.x;
  h[t] = 0;
  __syncthreads();
  {EACH8_OPEN}
      unsigned d = 0xffffffffu;
      if (i < n) {{
        const K k = tkey(kk[q], flip != 0);
        if (sel_match(k, (unsigned)i, state, (int)j, (int)kd)) d = sel_digit(k, (unsigned)i, (int)j, (int)kd);
      }}
      // Few lanes match, and their digits spread: one shared atomic each, unaggregated
      // (warp matching would cost more than the rare collisions it saves).
      if (d != 0xffffffffu) atomicAdd(&h[d], 1u);
{EACH8_CLOSE}
  __syncthreads();
  if (h[t]) atomicAdd(&hist[t], h[t]);
}}
"#
    );
    ks(name, spec, body)
}

/// Histogram of digit `j` among the candidates (`state[cw]` of them) that match the prefix so
/// far.
pub(crate) fn sel_hist(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_hist_{}", spec.dtype.name());
    let head = head::<P::SelHist>(&name, "256");
    let body = format!(
        r#"{COMPOSITE}{HIST_ADD}{head} {{
  __shared__ unsigned h[256];
  const int t = threadIdx.x;
  h[t] = 0;
  __syncthreads();
  const u64t count = state[cw];
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t s = (u64t)blockIdx.x * 256; s < count; s += stride) {{
    const u64t i = s + t;
    unsigned d = 0xffffffffu;
    if (i < count) {{
      const K k = ckey[i]; const unsigned ix = cidx[i];
      if (sel_match(k, ix, state, (int)j, (int)kd)) d = sel_digit(k, ix, (int)j, (int)kd);
    }}
    hist_add(h, d);
  }}
  __syncthreads();
  if (h[t]) atomicAdd(&hist[t], h[t]);
}}
"#
    );
    ks(name, spec, body)
}

/// The candidates (`state[3]`) that match the prefix of `j` digits, appended to a second
/// buffer (counted in `state[6]`).
pub(crate) fn sel_refine(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_refine_{}", spec.dtype.name());
    let head = head::<P::SelRefine>(&name, "256");
    let body = format!(
        r#"{COMPOSITE}{APPEND}{head} {{
  const u64t count = state[3];
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t s = (u64t)blockIdx.x * 256; s < count; s += stride) {{
    const u64t i = s + threadIdx.x;
    K k = 0; unsigned ix = 0; bool ok = false;
    if (i < count) {{ k = ckey[i]; ix = cidx[i]; ok = sel_match(k, ix, state, (int)j, (int)kd); }}
    const u64t p = warp_append(ok, &state[6]);
    if (ok) {{ okey[p] = k; oidx[p] = ix; }}
  }}
}}
"#
    );
    ks(name, spec, body)
}

/// Every element at or before the selected one in composite order (exactly rank + 1 of them).
pub(crate) fn sel_collect(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_collect_{}", spec.dtype.name());
    let head = head::<P::SelCollect>(&name, "256");
    let body = format!(
        r#"{APPEND}{head} {{
  const K kp = (K)state[0];
  const unsigned ip = (unsigned)state[1];
  const int t = threadIdx.x;
  {EACH8_OPEN}
      K k = 0; bool ok = false;
      if (i < n) {{ k = tkey(kk[q], flip != 0); ok = k < kp || (k == kp && (unsigned)i <= ip); }}
      if (__any_sync(0xffffffffu, ok)) {{
        const u64t p = warp_append(ok, &state[5]);
        if (ok) {{ okey[p] = k; oidx[p] = (unsigned)i; }}
      }}
{EACH8_CLOSE}
}}
"#
    );
    ks(name, spec, body)
}

/// Sorts the `kk` (at most 1024) collected elements by composite key (one block) and writes
/// their values and indices.
pub(crate) fn sel_sortk(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_sortk_{}", spec.dtype.name());
    let head = head::<P::SelSortK>(&name, "256");
    let body = format!(
        r#"{head} {{
  __shared__ K sk[1024];
  __shared__ unsigned si[1024];
  const int t = threadIdx.x, m = (int)kk;
  for (int e = t; e < m; e += 256) {{ sk[e] = okey[e]; si[e] = oidx[e]; }}
  __syncthreads();
  for (int e = t; e < m; e += 256) {{
    const K k = sk[e]; const unsigned ix = si[e];
    int r = 0;
    for (int f = 0; f < m; ++f) r += (sk[f] < k || (sk[f] == k && si[f] < ix)) ? 1 : 0;
    vout[r] = (Bits)tval(k, flip != 0);
    iout[r] = (i64t)ix;
  }}
}}
"#
    );
    ks(name, spec, body)
}

/// Writes the selected element (value, index) at `pos`; at `nanpos` (unless all ones) its
/// value again, or NaN when the input had a NaN.
pub(crate) fn sel_value(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sel_value_{}", spec.dtype.name());
    let head = head::<P::SelValue>(&name, "");
    let body = format!(
        r#"{head} {{
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const Bits v = (Bits)tval((K)state[0], flip != 0);
  vout[pos] = v;
  if (iout) iout[pos] = (i64t)state[1];
  if (nanpos != ~0ull) vout[nanpos] = state[4] ? (Bits)tval(KMASK, false) : v;
}}
"#
    );
    ks(name, spec, body)
}

/// The C conversion of a `double` result to the bits of `out` (the mean dtype), and its type.
fn out_conv(out: DType) -> (&'static str, &'static str) {
    match out {
        DType::F64 => (
            "unsigned long long",
            "return (unsigned long long)__double_as_longlong(r);",
        ),
        DType::F32 => ("unsigned", "return __float_as_uint((float)r);"),
        DType::F16 => (
            "unsigned short",
            "if (r != r) return (unsigned short)0x7e00; float f = (float)r; unsigned short h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h;",
        ),
        _ => (
            "unsigned short",
            "if (r != r) return (unsigned short)0x7fc0; unsigned u = __float_as_uint((float)r); return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);",
        ),
    }
}

/// Quantiles of sorted rows: per row, from elements `lo` and `hi` (method 0: NumPy's lerp with
/// weight `t`; 1: element `lo`; 2: the mean of the two), NaN when the row's last element is.
pub(crate) fn pick(spec: KeySpec, out: DType) -> KernelSource {
    let name = format!("cuprite_quantile_{}_{}", spec.dtype.name(), out.name());
    let (ob, conv) = out_conv(out);
    let head = head::<P::Pick>(&name, "256");
    let body = format!(
        r#"typedef {ob} OutT;
__device__ __forceinline__ OutT outconv(double r) {{ {conv} }}
{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t r = (u64t)blockIdx.x * 256 + threadIdx.x; r < rows; r += stride) {{
    const Bits *row = s + r * n;
    const double a = tof64((K)row[lo]), c = tof64((K)row[hi]);
    double v;
    if (isnanb((K)row[n - 1])) v = __longlong_as_double(0x7ff8000000000000ll);
    else if (method == 1) v = a;
    else if (method == 2) v = __dmul_rn(__dadd_rn(a, c), 0.5);
    else {{
      const double d = __dsub_rn(c, a);
      v = t >= 0.5 ? __dsub_rn(c, __dmul_rn(d, __dsub_rn(1.0, t))) : __dadd_rn(a, __dmul_rn(d, t));
    }}
    out[r] = outconv(v);
  }}
}}
"#
    );
    ks(name, spec, body)
}

/// The most frequent value of each sorted row (the smallest among equally frequent ones) and
/// its count; one block a row.
pub(crate) fn mode(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_mode_{}", spec.dtype.name());
    let head = head::<P::Mode>(&name, "256");
    let body = format!(
        r#"{head} {{
  __shared__ u64t bc[256], bs[256];
  const int t = threadIdx.x;
  const u64t chunk = (n + 255) / 256;
  for (u64t row = blockIdx.x; row < rows; row += gridDim.x) {{
    const Bits *x = s + row * n;
    u64t best_c = 0, best_s = ~0ull;
    const u64t c0 = (u64t)t * chunk, c1 = c0 + chunk < n ? c0 + chunk : n;
    for (u64t i = c0; i < c1; ++i) {{
      const K e = eqkey((K)x[i]);
      if (i == 0 || eqkey((K)x[i - 1]) != e) {{
        u64t j = i + 1;
        while (j < n && eqkey((K)x[j]) == e) ++j;
        if (j - i > best_c) {{ best_c = j - i; best_s = i; }}
        i = j - 1;
      }}
    }}
    bc[t] = best_c; bs[t] = best_s;
    __syncthreads();
    if (t == 0) {{
      u64t c = 0, st = 0;
      for (int k = 0; k < 256; ++k) if (bc[k] > c || (bc[k] == c && c > 0 && bs[k] < st)) {{ c = bc[k]; st = bs[k]; }}
      vout[row] = x[st];
      cout[row] = (i64t)c;
    }}
    __syncthreads();
  }}
}}
"#
    );
    ks(name, spec, body)
}

/// Run flags of a sorted array: 0 = first of each run of equal values (`unique`, `union1d`);
/// 1 = first of a run of two or more (`intersect1d` of two unique arrays); 2 = a run of one
/// that came from the first array (`perm < na`: `setdiff1d`).
pub(crate) fn run_flags(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_runs_{}", spec.dtype.name());
    let head = head::<P::RunFlags>(&name, "256");
    let body = format!(
        r#"{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) {{
    const K e = eqkey((K)s[i]);
    const bool first = i == 0 || eqkey((K)s[i - 1]) != e;
    const bool more = i + 1 < n && eqkey((K)s[i + 1]) == e;
    bool f = first;
    if (mode == 1) f = first && more;
    else if (mode == 2) f = first && !more && (u64t)perm[i] < na;
    flags[i] = f ? 1u : 0u;
  }}
}}
"#
    );
    ks(name, spec, body)
}

/// Elements a block of the run compaction ([`run_count`], [`run_write`]) takes: 8 a thread,
/// thread `t` holding elements `8 t .. 8 t + 8` of the chunk (so a block scan of the per-thread
/// counts ranks them in order).
pub(crate) const RUN_CHUNK: usize = 2048;

/// The run flag of sorted element `i` (modes as in [`run_flags`]).
const RUN_FLAG: &str = r#"
__device__ __forceinline__ bool run_flag(const B_ *s, const i64t *perm, u64t i, u64t n, u64t mode, u64t na) {
  const K e = eqkey((K)s[i]);
  const bool first = i == 0 || eqkey((K)s[i - 1]) != e;
  if (mode == 0) return first;
  const bool more = i + 1 < n && eqkey((K)s[i + 1]) == e;
  if (mode == 1) return first && more;
  return first && !more && (u64t)perm[i] < na;
}
__device__ __forceinline__ unsigned run_flags8(const B_ *s, const i64t *perm, u64t i0, u64t n, u64t mode, u64t na) {
  unsigned m = 0;
  #pragma unroll
  for (int q = 0; q < 8; ++q) if (i0 + q < n && run_flag(s, perm, i0 + q, n, mode, na)) m |= 1u << q;
  return m;
}
"#;

/// The number of flagged elements (see [`run_flags`]) of each chunk of [`RUN_CHUNK`] sorted
/// elements: `counts[chunk]`, one block a chunk.
pub(crate) fn run_count(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_run_count_{}", spec.dtype.name());
    let head = head::<P::RunCount>(&name, "256");
    let body = format!(
        r#"typedef Bits B_;
{RUN_FLAG}{head} {{
  __shared__ unsigned tmp[8];
  const u64t i0 = (u64t)blockIdx.x * {RUN_CHUNK} + (u64t)threadIdx.x * 8;
  const unsigned c = __popc(run_flags8(s, perm, i0, n, mode, na));
  unsigned tot;
  block_exscan(c, tmp, &tot);
  if (threadIdx.x == 0) counts[blockIdx.x] = tot;
}}
"#
    );
    ks(name, spec, body)
}

/// Writes each chunk's flagged elements in order from `offsets[chunk]` (the exclusive scan of
/// [`run_count`]'s counts): `out[offsets[chunk] + rank] = s[i]`.
pub(crate) fn run_write(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_run_write_{}", spec.dtype.name());
    let head = head::<P::RunWrite>(&name, "256");
    let body = format!(
        r#"typedef Bits B_;
{RUN_FLAG}{head} {{
  __shared__ unsigned tmp[8];
  const u64t i0 = (u64t)blockIdx.x * {RUN_CHUNK} + (u64t)threadIdx.x * 8;
  const unsigned m = run_flags8(s, perm, i0, n, mode, na);
  unsigned tot;
  u64t p = (u64t)offsets[blockIdx.x] + block_exscan(__popc(m), tmp, &tot);
  #pragma unroll
  for (int q = 0; q < 8; ++q) if (m & (1u << q)) out[p++] = s[i0 + q];
}}
"#
    );
    ks(name, spec, body)
}

/// The outputs of `unique` from the sorted values, their permutation, the run flags and the
/// exclusive scan of the flags (`ids`); any output pointer may be null.
pub(crate) fn unique_out(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_unique_out_{}", spec.dtype.name());
    let head = head::<P::UniqueOut>(&name, "256");
    let body = format!(
        r#"{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) {{
    const unsigned f = flags[i], id = ids[i];
    if (inverse) inverse[perm[i]] = (i64t)(id + f - 1u);
    if (f) {{
      if (uval) uval[id] = s[i];
      if (ufirst) ufirst[id] = perm[i];
      if (starts) starts[id] = (unsigned)i;
    }}
  }}
}}
"#
    );
    ks(name, spec, body)
}

/// The first index of each run is the least original index in it: a run of equal values can
/// hold several bit patterns (`-0.0` sorted before `+0.0`, NaNs of other payloads), each
/// sub-run in original order (the sort is stable), so each sub-run's first element after the
/// run's own first offers its index with an atomic minimum. Runs after [`unique_out`] wrote
/// every run's first element.
pub(crate) fn unique_first_min(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_unique_first_min_{}", spec.dtype.name());
    let head = head::<P::UniqueFirstMin>(&name, "256");
    let body = format!(
        r#"{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x + 1; i < n; i += stride) {{
    if (!flags[i] && s[i] != s[i - 1]) atomicMin(&ufirst[ids[i] - 1u], perm[i]);
  }}
}}
"#
    );
    ks(name, spec, body)
}

/// Run lengths from run starts: `counts[u] = starts[u + 1] - starts[u]` (`n` after the last).
pub(crate) fn run_counts() -> KernelSource {
    let name = "cuprite_unique_counts".to_string();
    let head = head::<P::RunCounts>(&name, "256");
    let body = format!(
        r#"{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t u = (u64t)blockIdx.x * 256 + threadIdx.x; u < nu; u += stride) {{
    const u64t e = u + 1 < nu ? (u64t)starts[u + 1] : n;
    counts[u] = (i64t)(e - (u64t)starts[u]);
  }}
}}
"#
    );
    KernelSource::new(name, source("", &body))
}

/// Elements scanned per block by the flag scan.
pub(crate) const SCAN_TILE: usize = 4096;

/// Exclusive scan of `u32` values, first level: each block scans its tile in place and writes
/// the tile's sum.
pub(crate) fn scan_tiles() -> KernelSource {
    let name = "cuprite_sort_xscan_tiles".to_string();
    let head = head::<P::ScanTiles>(&name, "256");
    let body = format!(
        r#"{head} {{
  __shared__ unsigned tmp[8];
  const int t = threadIdx.x;
  const u64t base = (u64t)blockIdx.x * {SCAN_TILE};
  unsigned carry = 0;
  for (int c = 0; c < {SCAN_TILE}; c += 256) {{
    const u64t i = base + c + t;
    const unsigned v = i < n ? data[i] : 0u;
    unsigned tot;
    const unsigned ex = block_exscan(v, tmp, &tot);
    if (i < n) data[i] = carry + ex;
    carry += tot;
  }}
  if (t == 0) sums[blockIdx.x] = carry;
}}
"#
    );
    KernelSource::new(name, source("", &body))
}

/// Second level (one block): exclusive scan of the tile sums; `sums[ntiles]` gets the total.
pub(crate) fn scan_sums() -> KernelSource {
    let name = "cuprite_sort_xscan_sums".to_string();
    let head = head::<P::ScanSums>(&name, "256");
    let body = format!(
        r#"{head} {{
  __shared__ unsigned tmp[8];
  const int t = threadIdx.x;
  unsigned carry = 0;
  for (u64t c = 0; c < ntiles; c += 256) {{
    const u64t i = c + t;
    const unsigned v = i < ntiles ? sums[i] : 0u;
    unsigned tot;
    const unsigned ex = block_exscan(v, tmp, &tot);
    if (i < ntiles) sums[i] = carry + ex;
    carry += tot;
  }}
  if (t == 0) sums[ntiles] = carry;
}}
"#
    );
    KernelSource::new(name, source("", &body))
}

/// Third level: adds each tile's offset.
pub(crate) fn scan_add() -> KernelSource {
    let name = "cuprite_sort_xscan_add".to_string();
    let head = head::<P::ScanAdd>(&name, "256");
    let body = format!(
        r#"{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) data[i] += sums[i / {SCAN_TILE}];
}}
"#
    );
    KernelSource::new(name, source("", &body))
}

/// `out[i] = v[row(i) * n + perm[i]]` for elements of `size` bytes (`sort_by_key`'s values).
pub(crate) fn gather(size: usize) -> KernelSource {
    let name = format!("cuprite_sort_gather_{size}");
    let ty = match size {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned",
        8 => "unsigned long long",
        _ => "ulonglong2",
    };
    let head = head::<P::Gather>(&name, "256");
    let body = format!(
        r#"typedef {ty} WordT;
{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < total; i += stride) out[i] = v[(i / n) * n + (u64t)perm[i]];
}}
"#
    );
    KernelSource::new(name, source("", &body))
}
