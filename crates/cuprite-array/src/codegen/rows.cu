// Row kernels: softmax, log_softmax, logsumexp, layer_norm, rms_norm and normalize along the
// lines of an array viewed as `outer x n x inner` (element `i` of line `o * inner + j` at
// `(o * n + i) * inner + j`). `codegen/rows.rs` instantiates `rows_lines` from an `extern "C"`
// entry whose parameters come from the kernel's typed description; everything a variant
// changes is a template parameter:
//
// - `T`: the element traits (`RowF16`, `RowBF16`, `RowF32`, `RowF64`): storage type `S`,
//   compute type `C` (`float` for f16, bf16 and f32, `double` for f64), conversions, math.
// - `KIND`: one of the `ROW_*` constants.
// - `THREADS`: the threads of a block, which all work on one line: a power of two from 32 to
//   256 (at most 8 warps: each half of the shared array holds four values per warp).
// - `ITEMS`: values per thread held in registers, a power of two up to 32. A line of up to
//   `THREADS * ITEMS` elements is read once; a longer one once per statistic and once to write.
// - `HAS_W`, `HAS_B`: a weight and a bias, indexed by the element's place `i` in the line.
// - `STREAM`: whether contiguous aligned lines may take the streaming form (`rows_stream`).
// - `Src`: where a line's elements come from: `PlainRows<T>`, or a generated struct that
//   evaluates fused element-wise work where its inputs lie (the same interface).
//
// `rows_lse_packed` (logsumexp of two-byte types held as packed vectors, a warp or a block a
// line) takes the same entry parameters for a plain source.
//
// Statistics are kept in `C`, reduced over the registers with warp shuffles and one
// shared-memory step per statistic (one barrier each). The block reductions take turns on the
// two halves of the shared array (`ph` counts them): a half is written again only two
// reductions later, after a barrier every thread reached having read it.

enum RowOp { ROW_SOFTMAX = 0, ROW_LOG_SOFTMAX = 1, ROW_LOGSUMEXP = 2, ROW_LAYER_NORM = 3, ROW_RMS_NORM = 4, ROW_NORMALIZE = 5, ROW_NORMALIZE2 = 6 };

// Element traits. Half types keep statistics in `float` but store 8 or 11 bits: their
// exponential is the hardware's base-2 one (about 2 ulp of `float`, results below the
// smallest normal `float` flushed to 0), far below their rounding. `fm` is a fused multiply-add
// (kept whatever the contraction option), `st2` converts two values into one word of two
// storage values (`lo` in the low half), where the storage type is two bytes.
struct RowF32 {
  typedef float S; typedef float C;
  static __device__ __forceinline__ C ld(S x) { return x; }
  static __device__ __forceinline__ S st(C x) { return x; }
  static __device__ __forceinline__ C ex(C x) { return expf(x); }
  static __device__ __forceinline__ C lg(C x) { return logf(x); }
  static __device__ __forceinline__ C rt(C x) { return sqrtf(x); }
  static __device__ __forceinline__ C pw(C x, C y) { return powf(x, y); }
  static __device__ __forceinline__ C ab(C x) { return fabsf(x); }
  static __device__ __forceinline__ C fm(C a, C b, C c) { return __fmaf_rn(a, b, c); }
  static __device__ __forceinline__ C inf() { return finf(); }
};
struct RowF64 {
  typedef double S; typedef double C;
  static __device__ __forceinline__ C ld(S x) { return x; }
  static __device__ __forceinline__ S st(C x) { return x; }
  static __device__ __forceinline__ C ex(C x) { return exp(x); }
  static __device__ __forceinline__ C lg(C x) { return log(x); }
  static __device__ __forceinline__ C rt(C x) { return sqrt(x); }
  static __device__ __forceinline__ C pw(C x, C y) { return pow(x, y); }
  static __device__ __forceinline__ C ab(C x) { return fabs(x); }
  static __device__ __forceinline__ C fm(C a, C b, C c) { return __fma_rn(a, b, c); }
  static __device__ __forceinline__ C inf() { return dinf(); }
};
// `2^y` by the flushing base-2 instruction (results below the smallest normal `float` are 0).
__device__ __forceinline__ float row_exp2(float y) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
  return r;
}
constexpr float row_log2e = 1.4426950408889634f;
// `2^(x log2 e)` by the flushing base-2 instruction: one instruction after the multiply.
__device__ __forceinline__ float row_ex2(float x) { return row_exp2(x * row_log2e); }
// `lo`/`hi` read the low/high value of a word of two storage values, `mx2` is their pairwise
// maximum ignoring a NaN (`max(x, NaN) = x`), `NINF2` a word of two `-inf`.
__device__ __forceinline__ unsigned row_pick2(unsigned a, unsigned b, float al, float ah, float bl, float bh) {
  const unsigned lo = (bl > al || al != al) ? (b & 0xffffu) : (a & 0xffffu);
  const unsigned hi = (bh > ah || ah != ah) ? (b & 0xffff0000u) : (a & 0xffff0000u);
  return lo | hi;
}
struct RowF16 : RowF32 {
  typedef unsigned short S;
  static constexpr unsigned NINF2 = 0xfc00fc00u;
  static __device__ __forceinline__ C lo(unsigned w) { return h2f((S)(w & 0xffffu)); }
  static __device__ __forceinline__ C hi(unsigned w) { return h2f((S)(w >> 16)); }
  static __device__ __forceinline__ unsigned mx2(unsigned a, unsigned b) {
#if __CUDA_ARCH__ >= 800
    unsigned r; asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r;
#else
    return row_pick2(a, b, lo(a), hi(a), lo(b), hi(b));
#endif
  }
  static __device__ __forceinline__ C ld(S x) { return h2f(x); }
  static __device__ __forceinline__ S st(C x) { return f2h(x); }
  static __device__ __forceinline__ C ex(C x) { return row_ex2(x); }
  static __device__ __forceinline__ unsigned st2(C lo, C hi) {
#if __CUDA_ARCH__ >= 800
    unsigned w; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo)); return w;
#else
    return (unsigned)f2h(lo) | ((unsigned)f2h(hi) << 16);
#endif
  }
};
struct RowBF16 : RowF32 {
  typedef unsigned short S;
  static constexpr unsigned NINF2 = 0xff80ff80u;
  static __device__ __forceinline__ C lo(unsigned w) { return __uint_as_float(w << 16); }
  static __device__ __forceinline__ C hi(unsigned w) { return __uint_as_float(w & 0xffff0000u); }
  static __device__ __forceinline__ unsigned mx2(unsigned a, unsigned b) {
#if __CUDA_ARCH__ >= 800
    unsigned r; asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r;
#else
    return row_pick2(a, b, lo(a), hi(a), lo(b), hi(b));
#endif
  }
  static __device__ __forceinline__ C ld(S x) { return bf2f(x); }
  static __device__ __forceinline__ S st(C x) { return f2bf(x); }
  static __device__ __forceinline__ C ex(C x) { return row_ex2(x); }
  static __device__ __forceinline__ unsigned st2(C lo, C hi) {
#if __CUDA_ARCH__ >= 800
    unsigned w; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo)); return w;
#else
    return (unsigned)f2bf(lo) | ((unsigned)f2bf(hi) << 16);
#endif
  }
};

// 16 bytes of storage values.
template <class T> union RowPack {
  uint4 u;
  unsigned w[4];
  typename T::S e[16 / sizeof(typename T::S)];
};
template <class T> struct RowVec { static constexpr int N = 16 / sizeof(typename T::S); };

__device__ __forceinline__ bool row_aligned16(const void *p) { return ((unsigned long long)p & 15ull) == 0; }

// A line of a contiguous realised array: the line source every kernel without a fused
// producer reads. The interface a generated source repeats: `PLAIN`, `Line line(o, j)`, and
// on a line `at(i)` (element `i`), `unit()` (elements step by one), `at1(i)` (element `i`
// when `unit()`), `vec_ok()` (`unit()` and every input aligned for one 16-byte vector of
// values) and `vec(i0, dst)` (`dst[r]` = element `i0 + r`, `r <` the vector's values).
template <class T> struct PlainRows {
  typedef typename T::S S;
  typedef typename T::C C;
  static constexpr bool PLAIN = true;
  const S *__restrict__ in;
  i64t n, inner;
  struct Line {
    const S *__restrict__ p;
    i64t inner;
    __device__ __forceinline__ C at(i64t i) const { return T::ld(p[i * inner]); }
    __device__ __forceinline__ bool unit() const { return inner == 1; }
    __device__ __forceinline__ C at1(i64t i) const { return T::ld(p[i]); }
    __device__ __forceinline__ bool vec_ok() const { return inner == 1 && row_aligned16(p); }
    __device__ __forceinline__ void vec(int i0, C *dst) const {
      RowPack<T> pk;
      pk.u = *reinterpret_cast<const uint4 *>(p + i0);
      #pragma unroll
      for (int r = 0; r < RowVec<T>::N; ++r) dst[r] = T::ld(pk.e[r]);
    }
  };
  __device__ __forceinline__ Line line(i64t o, i64t j) const { return Line{in + o * n * inner + j, inner}; }
};

template <typename C> __device__ __forceinline__ C row_warp_sum(C x) {
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}
template <typename C> __device__ __forceinline__ C row_warp_max(C x) {
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) { const C y = __shfl_xor_sync(0xffffffffu, x, d); x = y > x ? y : x; }
  return x;
}
template <int W, typename C> __device__ __forceinline__ C row_block_sum(C x, C *sh, int &ph) {
  x = row_warp_sum(x);
  if (W == 1) return x;
  C *h = sh + (ph & 1) * 32; ph ^= 1;
  if ((threadIdx.x & 31) == 0) h[threadIdx.x >> 5] = x;
  __syncthreads();
  C r = h[0];
  #pragma unroll
  for (int k = 1; k < W; ++k) r += h[k];
  return r;
}
template <int W, typename C> __device__ __forceinline__ C row_block_max(C x, C *sh, int &ph) {
  x = row_warp_max(x);
  if (W == 1) return x;
  C *h = sh + (ph & 1) * 32; ph ^= 1;
  if ((threadIdx.x & 31) == 0) h[threadIdx.x >> 5] = x;
  __syncthreads();
  C r = h[0];
  #pragma unroll
  for (int k = 1; k < W; ++k) r = h[k] > r ? h[k] : r;
  return r;
}
// The mean and variance of a line of `n` from each warp's sum `sm`, count `ct`, mean `mw` and
// sum of squared deviations from it `sq` (Chan et al.'s combination of partial moments).
template <int W, typename C>
__device__ __forceinline__ void row_block_meanvar(C sm, C ct, C mw, C sq, C *sh, int &ph, C n, C &mean, C &var) {
  if (W == 1) {
    const C m = sm / n, d = mw - m;
    mean = m;
    var = (sq + ct * d * d) / n;
    return;
  }
  C *h = sh + (ph & 1) * 32; ph ^= 1;
  if ((threadIdx.x & 31) == 0) { const int w = threadIdx.x >> 5; h[w] = sm; h[8 + w] = ct; h[16 + w] = mw; h[24 + w] = sq; }
  __syncthreads();
  C tot = h[0];
  #pragma unroll
  for (int k = 1; k < W; ++k) tot += h[k];
  const C m = tot / n;
  C m2 = (C)0;
  #pragma unroll
  for (int k = 0; k < W; ++k) { const C d = h[16 + k] - m; m2 += h[24 + k] + h[8 + k] * d * d; }
  mean = m;
  var = m2 / n;
}
// The block's maximum `M` and sum of exponentials `S` relative to it, from each warp's
// maximum `mw` and sum `sw` relative to that: lane `k` of each warp rescales warp `k`'s sum.
template <class T, int W>
__device__ __forceinline__ void row_block_lse(typename T::C mw, typename T::C sw, typename T::C *sh, int &ph, typename T::C &M, typename T::C &S) {
  typedef typename T::C C;
  if (W == 1) {
    M = mw;
    S = sw;
    return;
  }
  C *h = sh + (ph & 1) * 32; ph ^= 1;
  const int lane = threadIdx.x & 31;
  if (lane == 0) { h[threadIdx.x >> 5] = mw; h[16 + (threadIdx.x >> 5)] = sw; }
  __syncthreads();
  C m = h[0];
  #pragma unroll
  for (int k = 1; k < W; ++k) m = h[k] > m ? h[k] : m;
  C term = (C)0;
  // A warp with nothing above `-inf` adds its sum unscaled: 0, or NaN when its share holds a NaN.
  if (lane < W) { const C mk = h[lane], sk = h[16 + lane]; term = mk > -T::inf() ? sk * T::ex(mk - m) : sk; }
  M = m;
  S = row_warp_sum(term);
}

// `row_block_lse` for warp maxima that may be infinite and sums that may be NaN: a warp whose
// maximum is the block's, or `-inf` (its sum then 0 or NaN), adds its sum unscaled, so that
// `M + log S` is `+inf` with a `+inf` in the line, `-inf` with nothing above `-inf`, and NaN
// with a NaN.
template <class T, int W>
__device__ __forceinline__ void row_block_lse_any(typename T::C mw, typename T::C sw, typename T::C *sh, int &ph, typename T::C &M, typename T::C &S) {
  typedef typename T::C C;
  if (W == 1) {
    M = mw;
    S = sw;
    return;
  }
  C *h = sh + (ph & 1) * 32; ph ^= 1;
  const int lane = threadIdx.x & 31;
  if (lane == 0) { h[threadIdx.x >> 5] = mw; h[16 + (threadIdx.x >> 5)] = sw; }
  __syncthreads();
  C m = h[0];
  #pragma unroll
  for (int k = 1; k < W; ++k) m = h[k] > m ? h[k] : m;
  C term = (C)0;
  if (lane < W) {
    const C mk = h[lane], sk = h[16 + lane];
    term = (mk == m || mk == -T::inf()) ? sk : sk * T::ex(mk - m);
  }
  M = m;
  S = row_warp_sum(term);
}

// The values per 16-byte vector when a line held in registers may move in vectors, else 0.
template <class T, int ITEMS> struct RowVecPath {
  static constexpr int V = (ITEMS >= RowVec<T>::N && ITEMS % RowVec<T>::N == 0) ? RowVec<T>::N : 0;
};

// Calls `f(k, i)` for each value `v[k]` a thread holds of a line of `nn` elements (`i < nn`,
// its place in the line). In vectors (`vec`), thread `t` holds elements
// `(q * THREADS + t) * V + r` as `v[q * V + r]` and the bound is checked once per vector (the
// line's length is then a multiple of `V`); otherwise element `t + k * THREADS` as `v[k]`.
template <int THREADS, int ITEMS, int V, class F>
__device__ __forceinline__ void row_each(bool vec, int nn, F f) {
  const int t = threadIdx.x;
  if constexpr (V > 0) {
    if (vec) {
      #pragma unroll
      for (int q = 0; q < ITEMS / V; ++q) {
        const int i0 = (q * THREADS + t) * V;
        if (i0 < nn) {
          #pragma unroll
          for (int r = 0; r < V; ++r) f(q * V + r, i0 + r);
        }
      }
      return;
    }
  }
  #pragma unroll
  for (int k = 0; k < ITEMS; ++k) { const int i = t + k * THREADS; if (i < nn) f(k, i); }
}

// How many of a line's `nn` elements this thread holds (see `row_each`).
template <int THREADS, int ITEMS, int V>
__device__ __forceinline__ int row_held(bool vec, int nn) {
  const int t = threadIdx.x;
  int c = 0;
  if constexpr (V > 0) {
    if (vec) {
      #pragma unroll
      for (int q = 0; q < ITEMS / V; ++q) c += (q * THREADS + t) * V < nn ? V : 0;
      return c;
    }
  }
  #pragma unroll
  for (int k = 0; k < ITEMS; ++k) c += t + k * THREADS < nn ? 1 : 0;
  return c;
}

// What a line's output is made of: `y(x)` from the statistics, then the weight and bias.
template <class T, int KIND> struct RowOut {
  typedef typename T::C C;
  // softmax (registers): scale; log_softmax: M, log S; layer_norm: mean, 1/std;
  // rms_norm and normalize: the factor; softmax (re-read): M, 1/S.
  C a, b;
  bool reread;
  __device__ __forceinline__ C y(C x) const {
    if constexpr (KIND == ROW_SOFTMAX) {
      if (!reread) return x * a;
      return a < T::inf() ? T::ex(x - a) * b : a - a;
    } else if constexpr (KIND == ROW_LOG_SOFTMAX) {
      // A +inf in the line makes every output NaN (`M - M`): inf - inf in the shift.
      if (!reread) return (x - a) - b;
      return a < T::inf() ? (x - a) - b : a - a;
    } else if constexpr (KIND == ROW_LAYER_NORM) {
      return (x - a) * b;
    } else {
      return x * a;
    }
  }
};

template <class T, bool HAS_W, bool HAS_B>
__device__ __forceinline__ typename T::C row_wb(typename T::C y, const typename T::S *w, const typename T::S *b, i64t i) {
  if constexpr (HAS_W) y = y * T::ld(w[i]);
  if constexpr (HAS_B) y = y + T::ld(b[i]);
  return y;
}

// The statistics of a line of `nn` elements held in registers `v` (see `row_each`) into
// `out`: logsumexp's are `(M, S)`. softmax, log_softmax and logsumexp reduce each warp's
// maximum and sum of exponentials relative to it in one step (softmax keeps those
// exponentials in `v`);
// layer_norm each warp's sum, count and squared deviations from its own mean in one step.
// Returns false for a softmax or log_softmax line whose maximum is not finite (`+inf`
// present, or nothing above `-inf`): `rows_far` spells those cases out.
template <class T, int KIND, int THREADS, int ITEMS>
__device__ __forceinline__ bool row_near_stats(typename T::C (&v)[ITEMS], bool vec, int nn, i64t n, typename T::C eps, typename T::C p, typename T::C *sh, int &ph, RowOut<T, KIND> &out) {
  typedef typename T::C C;
  constexpr int W = THREADS / 32, V = RowVecPath<T, ITEMS>::V;
  const C inf = T::inf();
  if constexpr (KIND == ROW_LOGSUMEXP) {
    // Each warp's maximum and its sum relative to it, combined in one block step. A
    // non-finite warp maximum counts the elements equal to it as 1 (`+inf`), skips `-inf`
    // and keeps a NaN (which no maximum sees) in the sum.
    C mw = -inf;
    row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) { mw = v[k] > mw ? v[k] : mw; });
    mw = row_warp_max(mw);
    C sw = (C)0;
    if (mw > -inf && mw < inf) {
      row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) { sw += T::ex(v[k] - mw); });
    } else {
      row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) {
        const C x = v[k];
        sw += x != -inf ? (x == mw ? (C)1 : T::ex(x - mw)) : (C)0;
      });
    }
    sw = row_warp_sum(sw);
    row_block_lse_any<T, W>(mw, sw, sh, ph, out.a, out.b);
    return true;
  } else if constexpr (KIND == ROW_SOFTMAX || KIND == ROW_LOG_SOFTMAX) {
    C mw = -inf;
    row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) { mw = v[k] > mw ? v[k] : mw; });
    mw = row_warp_max(mw);
    C sw = (C)0;
    if (mw > -inf) {
      row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) {
        const C ex = T::ex(v[k] - mw);
        if constexpr (KIND == ROW_SOFTMAX) v[k] = ex;
        sw += ex;
      });
    } else {
      // Nothing above `-inf` in this warp's share: its exponentials are 0, or NaN for a NaN,
      // which must reach the line's sum (other warps' maxima are blind to it).
      row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) {
        const C x = v[k];
        const C ex = x != x ? x : (C)0;
        if constexpr (KIND == ROW_SOFTMAX) v[k] = ex;
        sw += ex;
      });
    }
    sw = row_warp_sum(sw);
    C M, S;
    row_block_lse<T, W>(mw, sw, sh, ph, M, S);
    out.reread = false;
    if constexpr (KIND == ROW_SOFTMAX) {
      // `(C)0 * S`: a NaN sum makes the whole line NaN, this warp's `-inf` elements too.
      out.a = mw > -inf ? T::ex(mw - M) / S : (C)0 * S;
    } else {
      out.a = M;
      out.b = T::lg(S);
    }
    return M > -inf && M < inf;
  } else if constexpr (KIND == ROW_LAYER_NORM) {
    C sm = (C)0;
    row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) { sm += v[k]; });
    sm = row_warp_sum(sm);
    const C ct = (C)row_warp_sum(row_held<THREADS, ITEMS, V>(vec, nn));
    const C mw = ct > (C)0 ? sm / ct : (C)0;
    C sq = (C)0;
    row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) { const C d = v[k] - mw; sq = T::fm(d, d, sq); });
    sq = row_warp_sum(sq);
    C mean, var;
    row_block_meanvar<W>(sm, ct, mw, sq, sh, ph, (C)n, mean, var);
    out.a = mean;
    out.b = (C)1 / T::rt(var + eps);
    return true;
  } else {
    C sm = (C)0;
    row_each<THREADS, ITEMS, V>(vec, nn, [&](int k, int) {
      const C x = v[k];
      if constexpr (KIND == ROW_NORMALIZE) sm += T::pw(T::ab(x), p); else sm += x * x;
    });
    const C r = row_block_sum<W>(sm, sh, ph);
    if constexpr (KIND == ROW_RMS_NORM) {
      out.a = (C)1 / T::rt(r / (C)n + eps);
    } else {
      const C nrm = KIND == ROW_NORMALIZE ? T::pw(r, (C)1 / p) : T::rt(r);
      out.a = (C)1 / (nrm > eps ? nrm : eps);
    }
    return true;
  }
}

// The statistics of a line too long for the registers (or a softmax-family line with a
// non-finite maximum), read again once per statistic: softmax, log_softmax and logsumexp keep
// an online maximum and rescaled sum of exponentials per thread.
template <class T, int KIND, int THREADS, class Line>
__device__ __forceinline__ void row_far_stats(const Line &L, i64t n, typename T::C eps, typename T::C p, typename T::C *sh, int &ph, RowOut<T, KIND> &out) {
  typedef typename T::C C;
  constexpr int W = THREADS / 32;
  const C inf = T::inf();
  // The thread's place among the `THREADS` threads of its line (a block, or a warp of a block
  // holding several lines).
  const int t = threadIdx.x & (THREADS - 1);
  if constexpr (KIND == ROW_SOFTMAX || KIND == ROW_LOG_SOFTMAX || KIND == ROW_LOGSUMEXP) {
    C mx = -inf, sm = (C)0;
    for (i64t i = t; i < n; i += THREADS) {
      const C x = L.at(i);
      if (x > mx) { sm = sm * T::ex(mx - x) + (C)1; mx = x; }
      else if (x != -inf) { sm += x == mx ? (C)1 : T::ex(x - mx); }
    }
    const C M = row_block_max<W>(mx, sh, ph);
    const C S = row_block_sum<W>(mx == M ? sm : sm * T::ex(mx - M), sh, ph);
    out.reread = true;
    out.a = M;
    if constexpr (KIND == ROW_SOFTMAX) out.b = (C)1 / S;
    else if constexpr (KIND == ROW_LOG_SOFTMAX) out.b = T::lg(S);
    else out.b = S;
  } else if constexpr (KIND == ROW_LAYER_NORM) {
    C sm = (C)0;
    for (i64t i = t; i < n; i += THREADS) sm += L.at(i);
    const C mean = row_block_sum<W>(sm, sh, ph) / (C)n;
    C sq = (C)0;
    for (i64t i = t; i < n; i += THREADS) { const C d = L.at(i) - mean; sq += d * d; }
    out.a = mean;
    out.b = (C)1 / T::rt(row_block_sum<W>(sq, sh, ph) / (C)n + eps);
  } else {
    C sm = (C)0;
    for (i64t i = t; i < n; i += THREADS) {
      const C x = L.at(i);
      if constexpr (KIND == ROW_NORMALIZE) sm += T::pw(T::ab(x), p); else sm += x * x;
    }
    const C r = row_block_sum<W>(sm, sh, ph);
    if constexpr (KIND == ROW_RMS_NORM) {
      out.a = (C)1 / T::rt(r / (C)n + eps);
    } else {
      const C nrm = KIND == ROW_NORMALIZE ? T::pw(r, (C)1 / p) : T::rt(r);
      out.a = (C)1 / (nrm > eps ? nrm : eps);
    }
  }
}

// Writes a line read again (`rows_far`'s statistics in `o`).
template <class T, int KIND, int THREADS, bool HAS_W, bool HAS_B, class Line>
__device__ __forceinline__ void row_far_write(const Line &L, const RowOut<T, KIND> &o, const typename T::S *w, const typename T::S *b, typename T::S *out, i64t line, i64t base, i64t n, i64t inner) {
  if constexpr (KIND == ROW_LOGSUMEXP) {
    if (threadIdx.x == 0) out[line] = T::st(o.a + T::lg(o.b));
  } else {
    for (i64t i = threadIdx.x; i < n; i += THREADS) {
      out[base + i * inner] = T::st(row_wb<T, HAS_W, HAS_B>(o.y(L.at(i)), w, b, i));
    }
  }
}

// Writes a line held in registers (see `row_each`): in 16-byte vectors of the output, the
// weight and the bias on the vector path.
template <class T, int KIND, int THREADS, int ITEMS, bool HAS_W, bool HAS_B>
__device__ __forceinline__ void row_near_write(const typename T::C (&v)[ITEMS], bool vec, int nn, const RowOut<T, KIND> &o, const typename T::S *w, const typename T::S *b, typename T::S *out, i64t line, i64t base, i64t inner) {
  constexpr int V = RowVecPath<T, ITEMS>::V;
  const int t = threadIdx.x;
  if constexpr (KIND == ROW_LOGSUMEXP) {
    if (t == 0) out[line] = T::st(o.a + T::lg(o.b));
    return;
  }
  if constexpr (V > 0) {
    if (vec) {
      #pragma unroll
      for (int q = 0; q < ITEMS / V; ++q) {
        const int i0 = (q * THREADS + t) * V;
        if (i0 < nn) {
          RowPack<T> pk, wv, bv;
          if constexpr (HAS_W) wv.u = *reinterpret_cast<const uint4 *>(w + i0);
          if constexpr (HAS_B) bv.u = *reinterpret_cast<const uint4 *>(b + i0);
          typename T::C y[V];
          #pragma unroll
          for (int r = 0; r < V; ++r) {
            y[r] = o.y(v[q * V + r]);
            if constexpr (HAS_W) y[r] = y[r] * T::ld(wv.e[r]);
            if constexpr (HAS_B) y[r] = y[r] + T::ld(bv.e[r]);
          }
          if constexpr (sizeof(typename T::S) == 2) {
            #pragma unroll
            for (int r = 0; r < V / 2; ++r) pk.w[r] = T::st2(y[2 * r], y[2 * r + 1]);
          } else {
            #pragma unroll
            for (int r = 0; r < V; ++r) pk.e[r] = T::st(y[r]);
          }
          *reinterpret_cast<uint4 *>(out + base + i0) = pk.u;
        }
      }
      return;
    }
  }
  #pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int i = t + k * THREADS;
    if (i < nn) out[base + i * inner] = T::st(row_wb<T, HAS_W, HAS_B>(o.y(v[k]), w, b, i));
  }
}

// One line held in registers: statistics, then the write (a softmax-family line with a
// non-finite maximum is done again by the re-reading path).
template <class T, int KIND, int THREADS, int ITEMS, bool HAS_W, bool HAS_B, class Line>
__device__ __forceinline__ void row_near(typename T::C (&v)[ITEMS], bool vec, int nn, const Line &L, const typename T::S *w, const typename T::S *b, typename T::S *out, i64t line, i64t base, i64t n, i64t inner, typename T::C eps, typename T::C p, typename T::C *sh, int &ph) {
  RowOut<T, KIND> o;
  o.b = (typename T::C)0;
  o.reread = false;
  if (row_near_stats<T, KIND, THREADS, ITEMS>(v, vec, nn, n, eps, p, sh, ph, o)) {
    row_near_write<T, KIND, THREADS, ITEMS, HAS_W, HAS_B>(v, vec, nn, o, w, b, out, line, base, inner);
  } else {
    row_far_stats<T, KIND, THREADS>(L, n, eps, p, sh, ph, o);
    row_far_write<T, KIND, THREADS, HAS_W, HAS_B>(L, o, w, b, out, line, base, n, inner);
  }
}

// Reads a line of `nn` elements into registers, all its loads issued before any arithmetic;
// returns whether it moved in vectors (see `row_each`): the line (`inner == 1`) and the
// output (not for logsumexp), weight and bias contiguous and aligned, its length a multiple
// of the vector.
template <class T, int KIND, int THREADS, int ITEMS, class Line>
__device__ __forceinline__ bool row_load(typename T::C (&v)[ITEMS], int nn, i64t inner, const Line &L, const typename T::S *w, const typename T::S *b, const typename T::S *out_line) {
  typedef typename T::C C;
  constexpr int V = RowVecPath<T, ITEMS>::V;
  const int t = threadIdx.x;
  if constexpr (V > 0) {
    const bool vec = inner == 1 && nn % V == 0 && L.vec_ok() && (KIND == ROW_LOGSUMEXP || row_aligned16(out_line)) && row_aligned16(w) && row_aligned16(b);
    if (vec) {
      // Every vector is loaded, with no branch between the loads, so that all of them are in
      // flight before the first value is used (a fused producer's arithmetic follows each
      // load): a vector past the line reads the line's first one (the line holds at least one
      // vector) and is zeroed after.
      #pragma unroll
      for (int q = 0; q < ITEMS / V; ++q) {
        const int i0 = (q * THREADS + t) * V;
        L.vec(i0 < nn ? i0 : 0, v + q * V);
      }
      #pragma unroll
      for (int q = 0; q < ITEMS / V; ++q) {
        if ((q * THREADS + t) * V >= nn) {
          #pragma unroll
          for (int r = 0; r < V; ++r) v[q * V + r] = (C)0;
        }
      }
      return true;
    }
  }
  // A line whose elements step by one (the common case) is read with the step a constant, so
  // that each input's addresses are one base plus immediate offsets.
  if (L.unit()) {
    #pragma unroll
    for (int k = 0; k < ITEMS; ++k) { const int i = t + k * THREADS; v[k] = i < nn ? L.at1(i) : (C)0; }
  } else {
    #pragma unroll
    for (int k = 0; k < ITEMS; ++k) { const int i = t + k * THREADS; v[k] = i < nn ? L.at(i) : (C)0; }
  }
  return false;
}

// The streaming form, for a plain source whose every line is contiguous, aligned, a multiple
// of the vector and held in registers: a block keeps the next line's raw vectors in flight
// (loaded before this line's statistics) while it reduces and writes this one.
template <class T, int KIND, int THREADS, int ITEMS, bool HAS_W, bool HAS_B>
__device__ __forceinline__ void rows_stream(const PlainRows<T> &src, const typename T::S *w, const typename T::S *b, typename T::S *out, i64t lines, typename T::C eps, typename T::C p, typename T::C *sh, int &ph) {
  typedef typename T::C C;
  constexpr int V = RowVecPath<T, ITEMS>::V, Q = ITEMS / V;
  const int t = threadIdx.x;
  const i64t n = src.n;
  const int nn = (int)n;
  uint4 raw[Q];
  i64t line = blockIdx.x;
  #pragma unroll
  for (int q = 0; q < Q; ++q) {
    const int i0 = (q * THREADS + t) * V;
    raw[q] = line < lines && i0 < nn ? *reinterpret_cast<const uint4 *>(src.in + line * n + i0) : make_uint4(0u, 0u, 0u, 0u);
  }
  for (; line < lines; line += gridDim.x) {
    const i64t base = line * n;
    C v[ITEMS];
    #pragma unroll
    for (int q = 0; q < Q; ++q) {
      RowPack<T> pk;
      pk.u = raw[q];
      #pragma unroll
      for (int r = 0; r < V; ++r) v[q * V + r] = T::ld(pk.e[r]);
    }
    const i64t nxt = line + gridDim.x;
    #pragma unroll
    for (int q = 0; q < Q; ++q) {
      const int i0 = (q * THREADS + t) * V;
      if (nxt < lines && i0 < nn) raw[q] = *reinterpret_cast<const uint4 *>(src.in + nxt * n + i0);
    }
    row_near<T, KIND, THREADS, ITEMS, HAS_W, HAS_B>(v, true, nn, src.line(line, 0), w, b, out, line, base, n, (i64t)1, eps, p, sh, ph);
  }
}

// Every line of the array, one block per line (grid-stride over lines).
template <class T, int KIND, int THREADS, int ITEMS, bool HAS_W, bool HAS_B, bool STREAM, class Src>
__device__ __forceinline__ void rows_lines(const Src &src, const typename T::S *__restrict__ w, const typename T::S *__restrict__ b, typename T::S *__restrict__ out, i64t lines, i64t n, i64t inner, double eps_d, double p_d) {
  typedef typename T::C C;
  constexpr int V = RowVecPath<T, ITEMS>::V;
  static_assert(THREADS >= 32 && THREADS <= 256 && (THREADS & (THREADS - 1)) == 0, "THREADS: a power of two from 32 to 256");
  static_assert(ITEMS >= 1 && ITEMS <= 32 && (ITEMS & (ITEMS - 1)) == 0, "ITEMS: a power of two up to 32");
  __shared__ C sh[64];
  int ph = 0;
  const C eps = (C)eps_d, p = (C)p_d;
  const bool cached = n <= (i64t)THREADS * ITEMS;
  if constexpr (Src::PLAIN && STREAM && V > 0) {
    if (cached && inner == 1 && n % V == 0 && row_aligned16(src.in) && (KIND == ROW_LOGSUMEXP || row_aligned16(out)) && row_aligned16(w) && row_aligned16(b)) {
      rows_stream<T, KIND, THREADS, ITEMS, HAS_W, HAS_B>(src, w, b, out, lines, eps, p, sh, ph);
      return;
    }
  }
  for (i64t line = blockIdx.x; line < lines; line += gridDim.x) {
    // Lines along the last axis (`inner == 1`, the common case) skip the division.
    i64t o = line, j = 0;
    if (inner != 1) {
      o = line / inner;
      j = line - o * inner;
    }
    const i64t base = o * n * inner + j;
    const auto L = src.line(o, j);
    if (cached) {
      const int nn = (int)n;
      C v[ITEMS];
      const bool vec = row_load<T, KIND, THREADS, ITEMS>(v, nn, inner, L, w, b, out + base);
      row_near<T, KIND, THREADS, ITEMS, HAS_W, HAS_B>(v, vec, nn, L, w, b, out, line, base, n, inner, eps, p, sh, ph);
    } else {
      RowOut<T, KIND> st;
      st.b = (C)0;
      row_far_stats<T, KIND, THREADS>(L, n, eps, p, sh, ph, st);
      row_far_write<T, KIND, THREADS, HAS_W, HAS_B>(L, st, w, b, out, line, base, n, inner);
    }
  }
}

// Logsumexp of lines of a two-byte type `T`, `THREADS` threads a line (32, 64 or 128) and
// `LINES` lines a block (several only for a warp a line: the block step's shared array serves
// one line); the lines' groups of threads stride over the lines. A line contiguous
// (`inner == 1`), aligned to 16 bytes, a multiple of 8 long and of at most `THREADS * Q * 8`
// elements is held as `Q` raw 16-byte vectors a thread, all loaded before any arithmetic: its
// maximum is taken on the packed pairs (`mx2`, blind to NaN, which the sum keeps), its sum of
// exponentials relative to it in `C` with `ACC` accumulators, and the warps' maxima and sums are
// combined in one block step. Any other line is read as `row_far_stats` reads a line.
// Its parameters are those of `rows_lines` without a weight and a bias (`eps` and `p` unused).
template <class T, int THREADS, int Q, int LINES>
__device__ __forceinline__ void rows_lse_packed(const PlainRows<T> &src, typename T::S *__restrict__ out, i64t lines, i64t n, i64t inner, double, double) {
  typedef typename T::C C;
  static_assert(sizeof(typename T::S) == 2, "two-byte storage values");
  static_assert(THREADS == 32 || THREADS == 64 || THREADS == 128, "THREADS: 32, 64 or 128");
  static_assert(THREADS == 32 || LINES == 1, "several lines a block only for a warp a line");
  static_assert(Q >= 1 && Q <= 16 && (Q & (Q - 1)) == 0, "Q: a power of two up to 16");
  constexpr int W = THREADS / 32, ACC = Q >= 2 ? 8 : 4;
  __shared__ C sh[64];
  int ph = 0;
  const int t = threadIdx.x & (THREADS - 1);
  const i64t groups = (i64t)gridDim.x * LINES;
  const C inf = T::inf();
  const bool packed = inner == 1 && n % 8 == 0 && n <= (i64t)THREADS * Q * 8 && row_aligned16(src.in);
  for (i64t line = (i64t)blockIdx.x * LINES + threadIdx.x / THREADS; line < lines; line += groups) {
    if (!packed) {
      i64t o = line, j = 0;
      if (inner != 1) {
        o = line / inner;
        j = line - o * inner;
      }
      RowOut<T, ROW_LOGSUMEXP> st;
      st.b = (C)0;
      row_far_stats<T, ROW_LOGSUMEXP, THREADS>(src.line(o, j), n, (C)0, (C)0, sh, ph, st);
      if (t == 0) out[line] = T::st(st.a + T::lg(st.b));
      continue;
    }
    const typename T::S *p = src.in + line * n;
    const int nn = (int)n;
    uint4 raw[Q];
    #pragma unroll
    for (int q = 0; q < Q; ++q) {
      const int i0 = (q * THREADS + t) * 8;
      raw[q] = i0 < nn ? *reinterpret_cast<const uint4 *>(p + i0) : make_uint4(T::NINF2, T::NINF2, T::NINF2, T::NINF2);
    }
    // The maximum: a tree over the packed pairs, then over the warp.
    unsigned m2[Q];
    #pragma unroll
    for (int q = 0; q < Q; ++q) m2[q] = T::mx2(T::mx2(raw[q].x, raw[q].y), T::mx2(raw[q].z, raw[q].w));
    #pragma unroll
    for (int s = 1; s < Q; s *= 2) {
      #pragma unroll
      for (int q = 0; q + s < Q; q += 2 * s) m2[q] = T::mx2(m2[q], m2[q + s]);
    }
    const C ml = T::lo(m2[0]), mh = T::hi(m2[0]);
    const C m = row_warp_max(ml > mh ? ml : mh);
    C acc[ACC];
    #pragma unroll
    for (int a = 0; a < ACC; ++a) acc[a] = (C)0;
    if (m > -inf && m < inf) {
      // `2^(x log2 e - m log2 e)`; the padding's `-inf` adds 0.
      const C sl = -(m * row_log2e);
      #pragma unroll
      for (int q = 0; q < Q; ++q) {
        const unsigned w[4] = {raw[q].x, raw[q].y, raw[q].z, raw[q].w};
        #pragma unroll
        for (int r = 0; r < 4; ++r) {
          acc[(q * 8 + 2 * r) % ACC] += row_exp2(T::fm(T::lo(w[r]), row_log2e, sl));
          acc[(q * 8 + 2 * r + 1) % ACC] += row_exp2(T::fm(T::hi(w[r]), row_log2e, sl));
        }
      }
    } else {
      // The warp's maximum is `+inf` (each `+inf` counts 1) or `-inf` (its sum is 0, or NaN
      // with a NaN), as in `row_near_stats`.
      #pragma unroll
      for (int q = 0; q < Q; ++q) {
        const unsigned w[4] = {raw[q].x, raw[q].y, raw[q].z, raw[q].w};
        #pragma unroll
        for (int r = 0; r < 8; ++r) {
          const C x = r % 2 ? T::hi(w[r / 2]) : T::lo(w[r / 2]);
          acc[0] += x != -inf ? (x == m ? (C)1 : T::ex(x - m)) : (C)0;
        }
      }
    }
    #pragma unroll
    for (int s = 1; s < ACC; s *= 2) {
      #pragma unroll
      for (int a = 0; a + s < ACC; a += 2 * s) acc[a] += acc[a + s];
    }
    C M, S;
    row_block_lse_any<T, W>(m, row_warp_sum(acc[0]), sh, ph, M, S);
    if (t == 0) out[line] = T::st(M + T::lg(S));
  }
}
