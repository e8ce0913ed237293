// The scatter kernels (see `call.rs` for the update layout and `cuda.rs` for their typed
// parameter lists). Every body is a device function template whose parameters are the kernel's,
// in the order of its Rust description; the entry point `cuda.rs` renders calls it. Types are
// deduced from the entry's parameters (`IT` the index type, `W` a raw word of the element,
// `T` the accumulation type); constants (`BATCH`, `PART_*`) are rendered from the Rust ones.
//
// Every update's destination goes through `dest_of` (the index normalised, clamped or wrapped
// as the call's mode says; anything still outside the axis is skipped, so no kernel writes out
// of bounds). The binned and fixed-point sums do exactly the IEEE operations (`__dmul_rn`,
// `__double2ll_rn`, ...) of the CPU path in `call.rs`, so deterministic sums have the same bits
// on both backends.

template <typename IT>
__device__ __forceinline__ bool dest_of(const IT *idx, i64t u, i64t m, i64t K, i64t inner, i64t N,
                                        i64t idx1d, i64t mode, i64t *dst) {
  if (N <= 0) return false;
  i64t o, j, i;
  if (inner == 1 && K >= m) { o = 0; j = u; i = 0; }
  else if (inner == 1) { o = u / K; j = u - o * K; i = 0; }
  else { const i64t ki = K * inner; o = u / ki; const i64t r = u - o * ki; j = r / inner; i = r - j * inner; }
  const i64t raw = (i64t)idx[idx1d ? j : u];
  i64t t;
  if (mode == 2) { t = raw % N; if (t < 0) t += N; }
  else if (mode == 1) { t = raw < 0 ? 0 : (raw >= N ? N - 1 : raw); }
  else { t = raw < 0 ? raw + N : raw; }
  if (t < 0 || t >= N) return false;
  *dst = (o * N + t) * inner + i;
  return true;
}

__device__ __forceinline__ int ceil_log2(u64t c) { return c <= 1ull ? 0 : 64 - __clzll((i64t)(c - 1ull)); }
__device__ __forceinline__ double pow2(int e) { return __longlong_as_double((i64t)(e + 1023) << 52); }
__device__ __forceinline__ unsigned key_of(unsigned b) { return (b >> 31) ? ~b : (b | 0x80000000u); }
__device__ __forceinline__ u64t key_of(u64t b) { return (b >> 63) ? ~b : (b | 0x8000000000000000ull); }

// The loop of the per-update kernels. A thread takes BATCH updates at a time (one grid stride
// apart): first it decodes every destination and calls `load(u, d)` for each valid one, so that
// their loads are in flight together, then `apply(u, d, x)` with what `load` returned. An update
// whose destination is outside the axis raises the flag `chk` (one word, only written) when the
// call is checked (`chk` not null), and is skipped.
template <typename X, typename IT, typename Load, typename Apply>
__device__ __forceinline__ void update_loop(const IT *__restrict__ idx, i64t m, i64t K, i64t inner, i64t N,
                                            i64t idx1d, i64t mode, unsigned int *chk, Load load, Apply apply) {
  const i64t stride = (i64t)gridDim.x * blockDim.x;
  for (i64t u0 = (i64t)blockIdx.x * blockDim.x + threadIdx.x; u0 < m; u0 += BATCH * stride) {
    i64t dq[BATCH]; bool okq[BATCH]; X xq[BATCH];
    #pragma unroll
    for (int q = 0; q < BATCH; ++q) {
      const i64t u = u0 + q * stride;
      okq[q] = u < m && dest_of(idx, u, m, K, inner, N, idx1d, mode, &dq[q]);
      if (u < m && !okq[q] && chk) *chk = 1u;
      if (okq[q]) xq[q] = load(u, dq[q]);
    }
    #pragma unroll
    for (int q = 0; q < BATCH; ++q) {
      if (okq[q]) apply(u0 + q * stride, dq[q], xq[q]);
    }
  }
}

// The copy of the base into the output, raw words.
template <typename W>
__device__ __forceinline__ void idx_copy(const W *__restrict__ src, W *__restrict__ dst, i64t n) {
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64t)gridDim.x * blockDim.x) dst[i] = src[i];
}

// Every word of `s` set to `v`.
__device__ __forceinline__ void idx_fill(u64t *__restrict__ s, i64t n, u64t v) {
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64t)gridDim.x * blockDim.x) s[i] = v;
}

// Non-deterministic set: some update of each destination wins.
template <typename IT, typename W>
__device__ __forceinline__ void idx_set(const IT *__restrict__ idx, const W *__restrict__ v, W *__restrict__ out,
                                        i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                        unsigned int *chk) {
  update_loop<W>(idx, m, K, inner, N, idx1d, mode, chk,
                 [&](i64t u, i64t) { return v[u]; },
                 [&](i64t, i64t d, W x) { out[d] = x; });
}

// Deterministic set, first pass: the last update of each destination (`win` filled with -1).
template <typename IT>
__device__ __forceinline__ void idx_last1(const IT *__restrict__ idx, i64t *__restrict__ win,
                                          i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                          unsigned int *chk) {
  update_loop<int>(idx, m, K, inner, N, idx1d, mode, chk,
                   [&](i64t, i64t) { return 0; },
                   [&](i64t u, i64t d, int) { atomicMax((long long *)&win[d], (long long)u); });
}

// Deterministic set, second pass: the winning update of each destination writes it.
template <typename IT, typename W>
__device__ __forceinline__ void idx_last2(const IT *__restrict__ idx, const W *__restrict__ v, W *__restrict__ out,
                                          const i64t *__restrict__ win,
                                          i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                          unsigned int *chk) {
  update_loop<i64t>(idx, m, K, inner, N, idx1d, mode, chk,
                    [&](i64t, i64t d) { return win[d]; },
                    [&](i64t u, i64t d, i64t w) { if (w == u) out[d] = v[u]; });
}

// The bits of a float, its NaN test on the bits and the canonical quiet NaN's bits.
__device__ __forceinline__ unsigned fbits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ u64t fbits(double x) { return (u64t)__double_as_longlong(x); }
__device__ __forceinline__ bool bits_nan(unsigned b) { return (b & 0x7fffffffu) > 0x7f800000u; }
__device__ __forceinline__ bool bits_nan(u64t b) { return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
__device__ __forceinline__ unsigned qnan_bits(float) { return 0x7fc00000u; }
__device__ __forceinline__ u64t qnan_bits(double) { return 0x7ff8000000000000ull; }

// A NaN-propagating max/min by CAS on the bits, ordered by the monotone key of the bits
// (`-0 < +0`); an update that is NaN stores the canonical quiet NaN, a NaN in place stays.
template <bool MAX, typename F>
__device__ __forceinline__ void float_pick(F *p_, F x) {
  typedef decltype(fbits(x)) U;
  U *p = (U *)p_;
  if (x != x) { atomicExch(p, qnan_bits(x)); return; }
  const U kx = key_of(fbits(x));
  U old = *((volatile U *)p);
  while (true) {
    if (bits_nan(old) || (MAX ? kx <= key_of(old) : kx >= key_of(old))) break;
    const U prev = atomicCAS(p, old, fbits(x));
    if (prev == old) break;
    old = prev;
  }
}

// The atomic combines of the accumulation types.
template <typename V> __device__ __forceinline__ void acc_add(V *p, V x) { atomicAdd(p, x); }
__device__ __forceinline__ void acc_add(long long *p, long long x) { atomicAdd((u64t *)p, (u64t)x); }
template <typename V> __device__ __forceinline__ void acc_max(V *p, V x) { atomicMax(p, x); }
__device__ __forceinline__ void acc_max(float *p, float x) { float_pick<true>(p, x); }
__device__ __forceinline__ void acc_max(double *p, double x) { float_pick<true>(p, x); }
template <typename V> __device__ __forceinline__ void acc_min(V *p, V x) { atomicMin(p, x); }
__device__ __forceinline__ void acc_min(float *p, float x) { float_pick<false>(p, x); }
__device__ __forceinline__ void acc_min(double *p, double x) { float_pick<false>(p, x); }

// Atomic add, max and min of each update into its destination.
template <typename IT, typename T>
__device__ __forceinline__ void idx_add(const IT *__restrict__ idx, const T *__restrict__ v, T *__restrict__ out,
                                        i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                        unsigned int *chk) {
  update_loop<T>(idx, m, K, inner, N, idx1d, mode, chk,
                 [&](i64t u, i64t) { return v[u]; },
                 [&](i64t, i64t d, T x) { acc_add(&out[d], x); });
}
// The sum into few destinations (at most SH_ADD_MAX in all, `outer * N * inner`): each block adds
// its updates into a private copy of the destinations in shared memory, then adds each slot it
// touched into the output with one atomic. The copy starts at the additive identity (-0.0 for
// floats, so that no zero's sign changes), and a slot still holding it is not added.
__device__ __forceinline__ float add_ident(float) { return -0.0f; }
__device__ __forceinline__ double add_ident(double) { return -0.0; }
template <typename V> __device__ __forceinline__ V add_ident(V) { return (V)0; }
__device__ __forceinline__ bool is_ident(float x) { return __float_as_uint(x) == 0x80000000u; }
__device__ __forceinline__ bool is_ident(double x) { return (u64t)__double_as_longlong(x) == 0x8000000000000000ull; }
template <typename V> __device__ __forceinline__ bool is_ident(V x) { return x == (V)0; }
template <typename IT, typename T>
__device__ __forceinline__ void idx_add_sh(const IT *__restrict__ idx, const T *__restrict__ v, T *__restrict__ out,
                                           i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                           unsigned int *chk) {
  __shared__ T sh[SH_ADD_MAX];
  const i64t ki = K * inner;
  const i64t nout = ki > 0 ? (m / ki) * N * inner : 0;
  for (i64t d = threadIdx.x; d < nout; d += blockDim.x) sh[d] = add_ident(T());
  __syncthreads();
  update_loop<T>(idx, m, K, inner, N, idx1d, mode, chk,
                 [&](i64t u, i64t) { return v[u]; },
                 [&](i64t, i64t d, T x) { acc_add(&sh[d], x); });
  __syncthreads();
  for (i64t d = threadIdx.x; d < nout; d += blockDim.x) {
    if (!is_ident(sh[d])) acc_add(&out[d], sh[d]);
  }
}
template <typename IT, typename T>
__device__ __forceinline__ void idx_max(const IT *__restrict__ idx, const T *__restrict__ v, T *__restrict__ out,
                                        i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                        unsigned int *chk) {
  update_loop<T>(idx, m, K, inner, N, idx1d, mode, chk,
                 [&](i64t u, i64t) { return v[u]; },
                 [&](i64t, i64t d, T x) { acc_max(&out[d], x); });
}
template <typename IT, typename T>
__device__ __forceinline__ void idx_min(const IT *__restrict__ idx, const T *__restrict__ v, T *__restrict__ out,
                                        i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                        unsigned int *chk) {
  update_loop<T>(idx, m, K, inner, N, idx1d, mode, chk,
                 [&](i64t u, i64t) { return v[u]; },
                 [&](i64t, i64t d, T x) { acc_min(&out[d], x); });
}

// The binned `f32` sum's one pass (see `ScatterCall::bins`): each finite non-zero update added
// as an integer to bin `e / w` of its destination (bins `nd` words apart), infinities and NaN
// recorded in the destination's flag word (1: +inf, 2: -inf, 4: NaN).
template <typename IT>
__device__ __forceinline__ void idx_bin(const IT *__restrict__ idx, const float *__restrict__ v,
                                        u64t *__restrict__ acc, u64t *__restrict__ fl, i64t nd, i64t w,
                                        i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                        unsigned int *chk) {
  update_loop<float>(idx, m, K, inner, N, idx1d, mode, chk,
    [&](i64t u, i64t) { return v[u]; },
    [&](i64t, i64t d, float x) {
      const unsigned bits = __float_as_uint(x);
      const unsigned a = bits & 0x7fffffffu;
      if (a >= 0x7f800000u) { atomicOr(&fl[d], a > 0x7f800000u ? 4ull : ((bits >> 31) ? 2ull : 1ull)); return; }
      if (a == 0u) return;
      const int ex = (int)(a >> 23);
      const u64t sig = ex ? (u64t)((a & 0x7fffffu) | 0x800000u) : (u64t)a;
      const int e = ex ? ex - 1 : 0;
      const int b = e / (int)w;
      const i64t qv = (i64t)(sig << (e - b * (int)w));
      atomicAdd(&acc[(i64t)b * nd + d], (u64t)((bits >> 31) ? -qv : qv));
    });
}

// The binned sum's finishing pass, per destination: NaN when a NaN or both infinities were
// added, the infinity added to the base when one was, else the bins' values
// (`bin * 2^(b*w - 149)`) summed in `f64`, lowest bin first, rounded to `f32` and added to the
// base (untouched when the sum is exactly zero).
__device__ __forceinline__ void idx_binfin(float *__restrict__ out, const u64t *__restrict__ acc,
                                           const u64t *__restrict__ fl, i64t n, i64t w, i64t nb) {
  for (i64t d = (i64t)blockIdx.x * blockDim.x + threadIdx.x; d < n; d += (i64t)gridDim.x * blockDim.x) {
    const u64t f = fl[d];
    if ((f & 4ull) || f == 3ull) { out[d] = __uint_as_float(0x7fc00000u); continue; }
    if (f == 1ull) { out[d] = __fadd_rn(out[d], __uint_as_float(0x7f800000u)); continue; }
    if (f == 2ull) { out[d] = __fadd_rn(out[d], __uint_as_float(0xff800000u)); continue; }
    double y = 0.0;
    for (i64t b = 0; b < nb; ++b) {
      const i64t a = (i64t)__ldcs(&acc[b * n + d]);
      if (a != 0) y = __dadd_rn(y, __dmul_rn(__ll2double_rn(a), pow2((int)(b * w) - 149)));
    }
    if (y != 0.0) out[d] = __fadd_rn(out[d], __double2float_rn(y));
  }
}

// The fixed-point sum's facts of a float type: magnitude bits, the exponent bound of a
// magnitude, the infinity's bits, the headroom (f64: the destination's count; f32: the total
// update count `hglob`), the canonical NaN, and `out + y` rounded once.
__device__ __forceinline__ u64t fx_mag(float x) { return (u64t)__float_as_uint(x) & 0x7fffffffull; }
__device__ __forceinline__ u64t fx_mag(double x) { return (u64t)__double_as_longlong(x) & 0x7fffffffffffffffull; }
__device__ __forceinline__ int fx_bound(u64t m, float) { const int ex = (int)(m >> 23); return ex == 0 ? -126 : ex - 126; }
__device__ __forceinline__ int fx_bound(u64t m, double) { const int ex = (int)(m >> 52); return ex == 0 ? -1022 : ex - 1022; }
__device__ __forceinline__ u64t fx_inf(float) { return 0x7f800000ull; }
__device__ __forceinline__ u64t fx_inf(double) { return 0x7ff0000000000000ull; }
__device__ __forceinline__ int fx_head(const u64t *cnt, i64t, i64t hglob, float) { return (int)hglob; }
__device__ __forceinline__ int fx_head(const u64t *cnt, i64t d, i64t, double) { return ceil_log2(cnt[d]); }
__device__ __forceinline__ float fx_nan(float) { return __uint_as_float(0x7fc00000u); }
__device__ __forceinline__ double fx_nan(double) { return __longlong_as_double(0x7ff8000000000000ll); }
__device__ __forceinline__ float fx_add(float o, double y) { return __fadd_rn(o, __double2float_rn(y)); }
__device__ __forceinline__ double fx_add(double o, double y) { return __dadd_rn(o, y); }

// Fixed-point pass 1: the largest magnitude (bits) per destination, and for f64 the number of
// updates per destination. The atomic is skipped where the maximum read from L2 is already at
// least the update's magnitude: maxima only grow, so a stale read costs an atomic, never a
// wrong result.
struct MagSeen { u64t a, seen; };
template <typename IT, typename T>
__device__ __forceinline__ void idx_fx1(const IT *__restrict__ idx, const T *__restrict__ v,
                                        u64t *__restrict__ mx, u64t *__restrict__ cnt,
                                        i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                        unsigned int *chk) {
  update_loop<MagSeen>(idx, m, K, inner, N, idx1d, mode, chk,
    [&](i64t u, i64t d) { MagSeen r; r.a = fx_mag(v[u]); r.seen = __ldcg(&mx[d]); return r; },
    [&](i64t, i64t d, MagSeen r) {
      if (r.a != 0ull && r.a > r.seen) atomicMax(&mx[d], r.a);
      if (sizeof(T) == 8) atomicAdd(&cnt[d], 1ull);
    });
}

// Fixed-point pass 2: each finite update quantised to an integer multiple of `2^-s` (`s` from
// the destination's bound) and added with an integer atomic (associative: the same bits in any
// order); infinities set a flag (1: +inf, 2: -inf).
template <typename T> struct ValMax { T x; u64t m; };
template <typename IT, typename T>
__device__ __forceinline__ void idx_fx2(const IT *__restrict__ idx, const T *__restrict__ v,
                                        const u64t *__restrict__ mx, const u64t *__restrict__ cnt,
                                        u64t *__restrict__ acc, u64t *__restrict__ fl,
                                        i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                        unsigned int *chk) {
  update_loop<ValMax<T>>(idx, m, K, inner, N, idx1d, mode, chk,
    [&](i64t u, i64t d) { ValMax<T> r; r.x = v[u]; r.m = mx[d]; return r; },
    [&](i64t, i64t d, ValMax<T> r) {
      const T x = r.x;
      const u64t a = fx_mag(x), mm = r.m, inf = fx_inf(x);
      if (mm > inf) return;
      if (a == inf) { atomicOr(&fl[d], x > 0 ? 1ull : 2ull); return; }
      if (mm == inf || a == 0ull) return;
      const int s = 62 - fx_head(cnt, d, hglob, x) - fx_bound(mm, x);
      const int s1 = s / 2, s2 = s - s1;
      const double qv = __dmul_rn(__dmul_rn((double)x, pow2(s1)), pow2(s2));
      const i64t qi = __double2ll_rn(qv);
      if (qi != 0) atomicAdd(&acc[d], (u64t)qi);
    });
}

// Fixed-point pass 3, per destination: `out = base + sum` (the base already in `out`), NaN
// when a NaN or both infinities were added, the base untouched when the sum is exactly zero.
template <typename T>
__device__ __forceinline__ void idx_fx3(T *__restrict__ out, const u64t *__restrict__ mx,
                                        const u64t *__restrict__ cnt, const u64t *__restrict__ acc,
                                        const u64t *__restrict__ fl, i64t n, i64t hglob) {
  const T like = 0;
  const u64t inf = fx_inf(like);
  for (i64t d = (i64t)blockIdx.x * blockDim.x + threadIdx.x; d < n; d += (i64t)gridDim.x * blockDim.x) {
    const u64t mm = mx[d];
    if (mm > inf) { out[d] = fx_nan(like); continue; }
    if (mm == inf) {
      const u64t f = fl[d];
      if (f == 3ull) out[d] = fx_nan(like);
      else if (f == 1ull) out[d] = fx_add(out[d], __longlong_as_double(0x7ff0000000000000ll));
      else if (f == 2ull) out[d] = fx_add(out[d], __longlong_as_double((i64t)0xfff0000000000000ull));
      continue;
    }
    const i64t a = (i64t)acc[d];
    if (a == 0) continue;
    const int s = 62 - fx_head(cnt, d, hglob, like) - fx_bound(mm, like);
    const int s1 = s / 2, s2 = s - s1;
    const double y = __dmul_rn(__dmul_rn(__ll2double_rn(a), pow2(-s1)), pow2(-s2));
    out[d] = fx_add(out[d], y);
  }
}

// The partitioned `f32` sum's first pass (see `ScatterCall::partitions`): block `b` takes
// updates `[b·T, (b+1)·T)`, ranks each within its partition `d / S` with a shared counter, and
// writes the tile back sorted by partition: local destinations `d % S` to `ld`, values to
// `lv`, and the partitions' start offsets (`P + 1` of them, the last the tile's count of valid
// updates) to row `b` of `off`.
template <typename IT>
__device__ __forceinline__ void idx_part1(const IT *__restrict__ idx, const float *__restrict__ v,
                                          unsigned short *__restrict__ ld, float *__restrict__ lv,
                                          unsigned *__restrict__ off, i64t P,
                                          i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob,
                                          unsigned int *chk) {
  constexpr int PER = PART_TILE / PART_THREADS;
  __shared__ unsigned hist[PART_MAX + 1];
  __shared__ float sv[PART_TILE];
  __shared__ unsigned short sd[PART_TILE];
  const i64t t0 = (i64t)blockIdx.x * PART_TILE;
  for (int p = threadIdx.x; p <= P; p += PART_THREADS) hist[p] = 0u;
  __syncthreads();
  // dq: the destination (below 2^32: at most PART_MAX * PART_SPAN), ~0u when skipped.
  unsigned dq[PER], rq[PER]; float xq[PER];
  #pragma unroll
  for (int q = 0; q < PER; ++q) {
    const i64t u = t0 + q * PART_THREADS + threadIdx.x;
    dq[q] = ~0u;
    if (u < m) {
      i64t d;
      xq[q] = v[u];
      if (dest_of(idx, u, m, K, inner, N, idx1d, mode, &d)) dq[q] = (unsigned)d;
      else if (chk) *chk = 1u;
    }
  }
  #pragma unroll
  for (int q = 0; q < PER; ++q) if (dq[q] != ~0u) rq[q] = atomicAdd(&hist[dq[q] / PART_SPAN], 1u);
  __syncthreads();
  if (threadIdx.x < 32) {
    const int E = (int)((P + 31) / 32), lo = threadIdx.x * E;
    unsigned sum = 0u;
    for (int e = 0; e < E; ++e) if (lo + e < P) sum += hist[lo + e];
    unsigned inc = sum;
    for (int o = 1; o < 32; o <<= 1) { const unsigned y = __shfl_up_sync(~0u, inc, o); if ((int)threadIdx.x >= o) inc += y; }
    unsigned run = inc - sum;
    for (int e = 0; e < E; ++e) if (lo + e < P) { const unsigned c = hist[lo + e]; hist[lo + e] = run; run += c; }
    if (threadIdx.x == 31) hist[P] = inc;
  }
  __syncthreads();
  #pragma unroll
  for (int q = 0; q < PER; ++q) if (dq[q] != ~0u) { const unsigned at = hist[dq[q] / PART_SPAN] + rq[q]; sd[at] = (unsigned short)(dq[q] % PART_SPAN); sv[at] = xq[q]; }
  unsigned *row = off + (i64t)blockIdx.x * (P + 1);
  for (int p = threadIdx.x; p <= P; p += PART_THREADS) row[p] = hist[p];
  __syncthreads();
  const unsigned cnt = hist[P];
  for (unsigned q = threadIdx.x; q < cnt; q += PART_THREADS) { ld[t0 + q] = sd[q]; lv[t0 + q] = sv[q]; }
}

// The partitioned `f32` sum's second pass: block `b` sums partition `b / KS` over the tiles
// `r, r + KS, ...` (`r = b % KS`) into shared memory, then adds its partial sums to `out` (the
// base already there). A warp takes 32 tiles at once, one a lane, and reads their segments as
// one list, so that its loads are independent. The sums start at `-0.0`, the identity of IEEE
// addition: a destination no update reached is not written.
__device__ __forceinline__ void idx_part2(const unsigned short *__restrict__ ld, const float *__restrict__ lv,
                                          const unsigned *__restrict__ off, i64t tiles, i64t P, i64t KS,
                                          i64t n_out, float *__restrict__ out) {
  constexpr int WARPS = PART_THREADS / 32;
  __shared__ float acc[PART_SPAN];
  const i64t p = blockIdx.x / KS, r = blockIdx.x % KS;
  for (int i = threadIdx.x; i < PART_SPAN; i += PART_THREADS) acc[i] = -0.0f;
  __syncthreads();
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const i64t groups = ((tiles - r + KS - 1) / KS + 31) / 32;
  for (i64t g = w; g < groups; g += WARPS) {
    const i64t t = r + KS * (g * 32 + lane);
    unsigned s = 0u, c = 0u;
    if (t < tiles) { const unsigned *o = off + t * (P + 1) + p; s = o[0]; c = o[1] - s; }
    unsigned inc = c;
    for (int o = 1; o < 32; o <<= 1) { const unsigned y = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += y; }
    const unsigned total = __shfl_sync(~0u, inc, 31);
    const i64t gb = (i64t)s + t * PART_TILE - (i64t)(inc - c);
    for (unsigned v0 = 0u; v0 < total; v0 += 128u) {
      unsigned short a[4]; float b[4];
      #pragma unroll
      for (int q = 0; q < 4; ++q) {
        const unsigned at = v0 + q * 32 + lane;
        int L = 0;
        #pragma unroll
        for (int st = 16; st >= 1; st >>= 1) { const unsigned x = __shfl_sync(~0u, inc, L + st - 1); if (x <= at) L += st; }
        const i64t base = __shfl_sync(~0u, gb, L);
        a[q] = 0; b[q] = -0.0f;
        if (at < total) { a[q] = ld[base + at]; b[q] = lv[base + at]; }
      }
      #pragma unroll
      for (int q = 0; q < 4; ++q) if (v0 + q * 32 + lane < total) atomicAdd(&acc[a[q]], b[q]);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < PART_SPAN; i += PART_THREADS) {
    const i64t d = p * PART_SPAN + i;
    const float x = acc[i];
    if (d < n_out && __float_as_uint(x) != 0x80000000u) atomicAdd(&out[d], x);
  }
}
