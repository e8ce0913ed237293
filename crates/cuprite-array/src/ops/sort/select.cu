// The selection kernels and the passes over sorted rows, as device functions that the entry
// points of `kernels_select.rs` call with their typed parameters (`params.rs`, same names and
// order). Built after the key helpers of the sorted dtype (`keys.rs`: `Bits`, `K`, `KBITS`,
// `KMASK`, `tkey`, `tval`, `eqkey`, `isnanb`, `tof64`), the block helpers (`block.cu`) and, for
// the run compaction, a typed header defining RUN_CHUNK. Every kernel runs 256 threads a block.
//
// Selection state (`u64t` words): [0] key prefix, [1] index prefix, [2] rank left,
// [3] candidates, [4] NaNs seen, [5] elements collected, [6] candidates after the second digit.

// Warp-aggregated append: each lane with `ok` gets its own slot, counted in `*counter`.
__device__ __forceinline__ u64t warp_append(bool ok, u64t *counter) {
  const unsigned m = __ballot_sync(0xffffffffu, ok);
  const int lane = threadIdx.x & 31;
  u64t base = 0;
  if (m && lane == __ffs(m) - 1) base = atomicAdd(counter, (u64t)__popc(m));
  base = __shfl_sync(0xffffffffu, base, m ? __ffs(m) - 1 : 0);
  return base + __popc(m & ((1u << lane) - 1u));
}

// Adds one to `h[d]` for every lane with `d` valid (warp-aggregated: lanes with equal digits
// add once, by `__match_any_sync`).
__device__ __forceinline__ void hist_add(unsigned *h, unsigned d) {
  const unsigned peers = __match_any_sync(0xffffffffu, d);
  const unsigned lane = threadIdx.x & 31;
  if (d != 0xffffffffu && (peers & ((1u << lane) - 1u)) == 0) atomicAdd(&h[d], __popc(peers));
}

// The prefix test and digit `j` of a candidate's composite key (`kd` key digits, then 4 index
// digits).
__device__ __forceinline__ bool sel_match(K k, unsigned ix, const u64t *state, int j, int kd) {
  if (j <= kd) return j == 0 || (u64t)(k >> (KBITS - 8 * j)) == state[0];
  return (u64t)k == state[0] && (unsigned)(ix >> (32 - 8 * (j - kd))) == (unsigned)state[1];
}
__device__ __forceinline__ unsigned sel_digit(K k, unsigned ix, int j, int kd) {
  if (j < kd) return (unsigned)(k >> (KBITS - 8 * (j + 1))) & 255u;
  return (ix >> (24 - 8 * (j - kd))) & 255u;
}

// The run flag of sorted element `i` (modes as in `sort_run_flags`), and the flags of eight
// elements from `i0` as bits.
__device__ __forceinline__ bool run_flag(const Bits *s, const i64t *perm, u64t i, u64t n, u64t mode, u64t na) {
  const K e = eqkey((K)s[i]);
  const bool first = i == 0 || eqkey((K)s[i - 1]) != e;
  if (mode == 0) return first;
  const bool more = i + 1 < n && eqkey((K)s[i + 1]) == e;
  if (mode == 1) return first && more;
  return first && !more && (u64t)perm[i] < na;
}
__device__ __forceinline__ unsigned run_flags8(const Bits *s, const i64t *perm, u64t i0, u64t n, u64t mode, u64t na) {
  unsigned m = 0;
  #pragma unroll
  for (int q = 0; q < 8; ++q) if (i0 + q < n && run_flag(s, perm, i0 + q, n, mode, na)) m |= 1u << q;
  return m;
}

// A quantile's `double` result as the bits `O` of the result dtype: OK 0 f64, 1 f32, 2 f16, 3 bf16
// (NaN canonical, round to nearest even).
template <typename O, int OK> __device__ __forceinline__ O sel_outconv(double r) {
  if constexpr (OK == 0) {
    return (O)__double_as_longlong(r);
  } else if constexpr (OK == 1) {
    return (O)__float_as_uint((float)r);
  } else if constexpr (OK == 2) {
    if (r != r) return (O)0x7e00;
    float f = (float)r;
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return (O)h;
  } else {
    if (r != r) return (O)0x7fc0;
    unsigned u = __float_as_uint((float)r);
    return (O)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
}

// Opens the loop of the full-read selection kernels over elements `i` of `x` (`n` of them): a
// block takes 2,048 a step, 8 a thread, all loaded (into `kk[q]`, 0 past `n`) before any is
// used, so that eight loads a thread are in flight at once. The body sees `q`, `i` and `kk`,
// may test `i < n` itself, and ends with EACH8_CLOSE.
#define EACH8_OPEN                                                                            \
  const u64t stride = (u64t)gridDim.x * 2048;                                                 \
  for (u64t s = (u64t)blockIdx.x * 2048; s < n; s += stride) {                                \
    K kk[8];                                                                                  \
    _Pragma("unroll") for (int q = 0; q < 8; ++q) {                                           \
      const u64t i = s + (u64t)q * 256 + t;                                                   \
      kk[q] = i < n ? (K)x[i] : (K)0;                                                         \
    }                                                                                         \
    _Pragma("unroll") for (int q = 0; q < 8; ++q) {                                           \
      const u64t i = s + (u64t)q * 256 + t;
#define EACH8_CLOSE \
  }                 \
  }

// Histogram of the top digit of every element's key; counts NaNs.
__device__ __forceinline__ void sort_sel_hist0(
    const Bits *__restrict__ x,
    u64t n,
    u64t flip,
    unsigned *__restrict__ hist,
    u64t *__restrict__ state) {
  __shared__ unsigned h[256];
  __shared__ unsigned nans;
  const int t = threadIdx.x;
  h[t] = 0; if (t == 0) nans = 0;
  __syncthreads();
  unsigned my_nan = 0;
  EACH8_OPEN
      unsigned d = 0xffffffffu;
      if (i < n) {
        const K b = kk[q];
        d = (unsigned)(tkey(b, flip != 0) >> (KBITS - 8)) & 255u;
        my_nan += isnanb(b) ? 1u : 0u;
      }
      hist_add(h, d);
EACH8_CLOSE
  if (my_nan) atomicAdd(&nans, my_nan);
  __syncthreads();
  if (h[t]) atomicAdd(&hist[t], h[t]);
  if (t == 0 && nans) atomicAdd(&state[4], (u64t)nans);
}

// The elements whose top `jm` key digits (1 or 2, at most the key's) are the selected prefix,
// as (key, index) candidates (in no particular order; appended a warp at a time, one atomic
// per warp and step where a lane matches: no block-wide scan or barrier per chunk, so the
// pass never waits on its neighbours' loads).
__device__ __forceinline__ void sort_sel_compact(
    const Bits *__restrict__ x,
    u64t n,
    u64t flip,
    u64t *__restrict__ state,
    K *__restrict__ ckey,
    unsigned *__restrict__ cidx,
    u64t jm) {
  const int t = threadIdx.x;
  const u64t want = state[0];
  const int sh = KBITS - 8 * (int)jm;
  const u64t mask = (1ull << (8 * jm)) - 1ull;
  EACH8_OPEN
      const K k = tkey(kk[q], flip != 0);
      const bool ok = i < n && ((u64t)(k >> sh) & mask) == want;
      if (__any_sync(0xffffffffu, ok)) {
        const u64t p = warp_append(ok, &state[3]);
        if (ok) { ckey[p] = k; cidx[p] = (unsigned)i; }
      }
EACH8_CLOSE
}

// Histogram of digit `j` of every element of `x` that matches the prefix so far (a full pass
// that writes nothing else: what narrows the candidates before they are copied out).
__device__ __forceinline__ void sort_sel_hist_x(
    const Bits *__restrict__ x,
    u64t n,
    u64t flip,
    const u64t *__restrict__ state,
    unsigned *__restrict__ hist,
    u64t j,
    u64t kd) {
  __shared__ unsigned h[256];
  const int t = threadIdx.x;
  h[t] = 0;
  __syncthreads();
  EACH8_OPEN
      unsigned d = 0xffffffffu;
      if (i < n) {
        const K k = tkey(kk[q], flip != 0);
        if (sel_match(k, (unsigned)i, state, (int)j, (int)kd)) d = sel_digit(k, (unsigned)i, (int)j, (int)kd);
      }
      // Few lanes match, and their digits spread: one shared atomic each, unaggregated
      // (warp matching would cost more than the rare collisions it saves).
      if (d != 0xffffffffu) atomicAdd(&h[d], 1u);
EACH8_CLOSE
  __syncthreads();
  if (h[t]) atomicAdd(&hist[t], h[t]);
}

// Histogram of digit `j` among the candidates (`state[cw]` of them) that match the prefix so
// far.
__device__ __forceinline__ void sort_sel_hist(
    const K *__restrict__ ckey,
    const unsigned *__restrict__ cidx,
    const u64t *__restrict__ state,
    unsigned *__restrict__ hist,
    u64t j,
    u64t kd,
    u64t cw) {
  __shared__ unsigned h[256];
  const int t = threadIdx.x;
  h[t] = 0;
  __syncthreads();
  const u64t count = state[cw];
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t s = (u64t)blockIdx.x * 256; s < count; s += stride) {
    const u64t i = s + t;
    unsigned d = 0xffffffffu;
    if (i < count) {
      const K k = ckey[i]; const unsigned ix = cidx[i];
      if (sel_match(k, ix, state, (int)j, (int)kd)) d = sel_digit(k, ix, (int)j, (int)kd);
    }
    hist_add(h, d);
  }
  __syncthreads();
  if (h[t]) atomicAdd(&hist[t], h[t]);
}

// The candidates (`state[3]`) that match the prefix of `j` digits, appended to a second
// buffer (counted in `state[6]`).
__device__ __forceinline__ void sort_sel_refine(
    const K *__restrict__ ckey,
    const unsigned *__restrict__ cidx,
    u64t *__restrict__ state,
    K *__restrict__ okey,
    unsigned *__restrict__ oidx,
    u64t j,
    u64t kd) {
  const u64t count = state[3];
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t s = (u64t)blockIdx.x * 256; s < count; s += stride) {
    const u64t i = s + threadIdx.x;
    K k = 0; unsigned ix = 0; bool ok = false;
    if (i < count) { k = ckey[i]; ix = cidx[i]; ok = sel_match(k, ix, state, (int)j, (int)kd); }
    const u64t p = warp_append(ok, &state[6]);
    if (ok) { okey[p] = k; oidx[p] = ix; }
  }
}

// Every element at or before the selected one in composite order (exactly rank + 1 of them).
__device__ __forceinline__ void sort_sel_collect(
    const Bits *__restrict__ x,
    u64t n,
    u64t flip,
    u64t *__restrict__ state,
    K *__restrict__ okey,
    unsigned *__restrict__ oidx) {
  const K kp = (K)state[0];
  const unsigned ip = (unsigned)state[1];
  const int t = threadIdx.x;
  EACH8_OPEN
      K k = 0; bool ok = false;
      if (i < n) { k = tkey(kk[q], flip != 0); ok = k < kp || (k == kp && (unsigned)i <= ip); }
      if (__any_sync(0xffffffffu, ok)) {
        const u64t p = warp_append(ok, &state[5]);
        if (ok) { okey[p] = k; oidx[p] = (unsigned)i; }
      }
EACH8_CLOSE
}

// Sorts the `kk` (at most 1024) collected elements by composite key (one block) and writes
// their values and indices.
__device__ __forceinline__ void sort_sel_sortk(
    const K *__restrict__ okey,
    const unsigned *__restrict__ oidx,
    u64t kk,
    u64t flip,
    Bits *__restrict__ vout,
    i64t *__restrict__ iout) {
  __shared__ K sk[1024];
  __shared__ unsigned si[1024];
  const int t = threadIdx.x, m = (int)kk;
  for (int e = t; e < m; e += 256) { sk[e] = okey[e]; si[e] = oidx[e]; }
  __syncthreads();
  for (int e = t; e < m; e += 256) {
    const K k = sk[e]; const unsigned ix = si[e];
    int r = 0;
    for (int f = 0; f < m; ++f) r += (sk[f] < k || (sk[f] == k && si[f] < ix)) ? 1 : 0;
    vout[r] = (Bits)tval(k, flip != 0);
    iout[r] = (i64t)ix;
  }
}

// Writes the selected element (value, index) at `pos`; at `nanpos` (unless all ones) its
// value again, or NaN when the input had a NaN.
__device__ __forceinline__ void sort_sel_value(
    const u64t *__restrict__ state,
    u64t flip,
    Bits *__restrict__ vout,
    i64t *__restrict__ iout,
    u64t pos,
    u64t nanpos) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const Bits v = (Bits)tval((K)state[0], flip != 0);
  vout[pos] = v;
  if (iout) iout[pos] = (i64t)state[1];
  if (nanpos != ~0ull) vout[nanpos] = state[4] ? (Bits)tval(KMASK, false) : v;
}

// Quantiles of sorted rows: per row, from elements `lo` and `hi` (method 0: NumPy's lerp with
// weight `t`; 1: element `lo`; 2: the mean of the two), NaN when the row's last element is.
template <typename O, int OK>
__device__ __forceinline__ void sort_pick(
    const Bits *__restrict__ s,
    O *__restrict__ out,
    u64t rows,
    u64t n,
    u64t lo,
    u64t hi,
    double t,
    u64t method) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t r = (u64t)blockIdx.x * 256 + threadIdx.x; r < rows; r += stride) {
    const Bits *row = s + r * n;
    const double a = tof64((K)row[lo]), c = tof64((K)row[hi]);
    double v;
    if (isnanb((K)row[n - 1])) v = __longlong_as_double(0x7ff8000000000000ll);
    else if (method == 1) v = a;
    else if (method == 2) v = __dmul_rn(__dadd_rn(a, c), 0.5);
    else {
      const double d = __dsub_rn(c, a);
      v = t >= 0.5 ? __dsub_rn(c, __dmul_rn(d, __dsub_rn(1.0, t))) : __dadd_rn(a, __dmul_rn(d, t));
    }
    out[r] = sel_outconv<O, OK>(v);
  }
}

// The most frequent value of each sorted row (the smallest among equally frequent ones) and
// its count; one block a row.
__device__ __forceinline__ void sort_mode(
    const Bits *__restrict__ s,
    Bits *__restrict__ vout,
    i64t *__restrict__ cout,
    u64t rows,
    u64t n) {
  __shared__ u64t bc[256], bs[256];
  const int t = threadIdx.x;
  const u64t chunk = (n + 255) / 256;
  for (u64t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Bits *x = s + row * n;
    u64t best_c = 0, best_s = ~0ull;
    const u64t c0 = (u64t)t * chunk, c1 = c0 + chunk < n ? c0 + chunk : n;
    for (u64t i = c0; i < c1; ++i) {
      const K e = eqkey((K)x[i]);
      if (i == 0 || eqkey((K)x[i - 1]) != e) {
        u64t j = i + 1;
        while (j < n && eqkey((K)x[j]) == e) ++j;
        if (j - i > best_c) { best_c = j - i; best_s = i; }
        i = j - 1;
      }
    }
    bc[t] = best_c; bs[t] = best_s;
    __syncthreads();
    if (t == 0) {
      u64t c = 0, st = 0;
      for (int k = 0; k < 256; ++k) if (bc[k] > c || (bc[k] == c && c > 0 && bs[k] < st)) { c = bc[k]; st = bs[k]; }
      vout[row] = x[st];
      cout[row] = (i64t)c;
    }
    __syncthreads();
  }
}

// Run flags of a sorted array: 0 = first of each run of equal values (`unique`, `union1d`);
// 1 = first of a run of two or more (`intersect1d` of two unique arrays); 2 = a run of one
// that came from the first array (`perm < na`: `setdiff1d`).
__device__ __forceinline__ void sort_run_flags(
    const Bits *__restrict__ s,
    const i64t *__restrict__ perm,
    unsigned *__restrict__ flags,
    u64t n,
    u64t mode,
    u64t na) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) {
    const K e = eqkey((K)s[i]);
    const bool first = i == 0 || eqkey((K)s[i - 1]) != e;
    const bool more = i + 1 < n && eqkey((K)s[i + 1]) == e;
    bool f = first;
    if (mode == 1) f = first && more;
    else if (mode == 2) f = first && !more && (u64t)perm[i] < na;
    flags[i] = f ? 1u : 0u;
  }
}

// The number of flagged elements (see `run_flags`) of each chunk of `RUN_CHUNK` sorted
// elements: `counts[chunk]`, one block a chunk.
__device__ __forceinline__ void sort_run_count(
    const Bits *__restrict__ s,
    const i64t *__restrict__ perm,
    unsigned *__restrict__ counts,
    u64t n,
    u64t mode,
    u64t na) {
  __shared__ unsigned tmp[8];
  const u64t i0 = (u64t)blockIdx.x * RUN_CHUNK + (u64t)threadIdx.x * 8;
  const unsigned c = __popc(run_flags8(s, perm, i0, n, mode, na));
  unsigned tot;
  block_exscan(c, tmp, &tot);
  if (threadIdx.x == 0) counts[blockIdx.x] = tot;
}

// Writes each chunk's flagged elements in order from `offsets[chunk]` (the exclusive scan of
// `run_count`'s counts): `out[offsets[chunk] + rank] = s[i]`.
__device__ __forceinline__ void sort_run_write(
    const Bits *__restrict__ s,
    const i64t *__restrict__ perm,
    const unsigned *__restrict__ offsets,
    Bits *__restrict__ out,
    u64t n,
    u64t mode,
    u64t na) {
  __shared__ unsigned tmp[8];
  const u64t i0 = (u64t)blockIdx.x * RUN_CHUNK + (u64t)threadIdx.x * 8;
  const unsigned m = run_flags8(s, perm, i0, n, mode, na);
  unsigned tot;
  u64t p = (u64t)offsets[blockIdx.x] + block_exscan(__popc(m), tmp, &tot);
  #pragma unroll
  for (int q = 0; q < 8; ++q) if (m & (1u << q)) out[p++] = s[i0 + q];
}

// The outputs of `unique` from the sorted values, their permutation, the run flags and the
// exclusive scan of the flags (`ids`); any output pointer may be null.
__device__ __forceinline__ void sort_unique_out(
    const Bits *__restrict__ s,
    const i64t *__restrict__ perm,
    const unsigned *__restrict__ flags,
    const unsigned *__restrict__ ids,
    Bits *__restrict__ uval,
    i64t *__restrict__ ufirst,
    unsigned *__restrict__ starts,
    i64t *__restrict__ inverse,
    u64t n) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) {
    const unsigned f = flags[i], id = ids[i];
    if (inverse) inverse[perm[i]] = (i64t)(id + f - 1u);
    if (f) {
      if (uval) uval[id] = s[i];
      if (ufirst) ufirst[id] = perm[i];
      if (starts) starts[id] = (unsigned)i;
    }
  }
}

// The first index of each run is the least original index in it: a run of equal values can
// hold several bit patterns (`-0.0` sorted before `+0.0`, NaNs of other payloads), each
// sub-run in original order (the sort is stable), so each sub-run's first element after the
// run's own first offers its index with an atomic minimum. Runs after `unique_out` wrote
// every run's first element.
__device__ __forceinline__ void sort_unique_first_min(
    const Bits *__restrict__ s,
    const i64t *__restrict__ perm,
    const unsigned *__restrict__ flags,
    const unsigned *__restrict__ ids,
    i64t *__restrict__ ufirst,
    u64t n) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x + 1; i < n; i += stride) {
    if (!flags[i] && s[i] != s[i - 1]) atomicMin(&ufirst[ids[i] - 1u], perm[i]);
  }
}
