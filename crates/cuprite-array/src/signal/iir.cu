// The IIR filter (SciPy's `lfilter`) as a blocked parallel scan of its state recurrence. In the
// transposed direct form II, one sample maps the state `z` (ORDER values) affinely:
//
//   y    = b0 x + z0
//   z_i' = b_{i+1} x + z_{i+1} - a_{i+1} y      (z_ORDER = 0)
//
// that is `z' = M z + g x` with the same matrix M for every sample. A run of L samples maps its
// start state `s` to `M^L s + e`, where `e` is its end state from a zero start. The signal is
// cut into segments of IIR_SEG = IIR_THREADS * IIR_CHUNK samples (zero-padded at the end), a
// block a segment, a thread a chunk of IIR_CHUNK samples. Three passes (see `iir.rs`):
//
// 1. `iir_seg`: each thread runs its chunk from zero; the block scans the chunks' maps
//    (Hillis-Steele over IIR_THREADS threads, step `d` composing with `M^(IIR_CHUNK 2^d)`)
//    and writes the segment's end state from a zero start.
// 2. `iir_carry`: a block a signal scans the segments' maps (`S = M^IIR_SEG`): each thread
//    composes a run of `runs` segments from zero, one thread scans the runs with `Q = S^runs`
//    from the initial state `zi`, and each thread rewrites its segments' end states as their
//    start states.
// 3. `iir_apply`: each block repeats pass 1's scan for its segment, gives each chunk its start
//    state (the exclusive scan plus `M^(IIR_CHUNK t)` applied to the segment's start state,
//    from the binary powers), and runs the chunk from it, writing `y` (and `zf` from the chunk
//    holding the signal's last sample).
//
// The samples go through shared memory (coalesced loads and stores; element `q` of a segment at
// `q + q / IIR_CHUNK`, so that a thread's chunk is conflict-free).
//
// Built after a typed header that defines `T` (float or double), `i64t`, and the constants
// ORDER (1..=IIR_MAX_ORDER), IIR_CHUNK, IIR_THREADS and IIR_LEVELS (log2 IIR_THREADS). The
// coefficients `coef` are, in `T`: b_0..b_ORDER, a_1..a_ORDER (divided by a_0), then the
// ORDER x ORDER row-major matrices M^(IIR_CHUNK 2^d) for d = 0..=IIR_LEVELS (the last is
// M^IIR_SEG), then Q.

constexpr int IIR_SEG = IIR_THREADS * IIR_CHUNK;
constexpr int IIR_PAD = IIR_SEG + IIR_SEG / IIR_CHUNK;
constexpr int IIR_KK = ORDER * ORDER;

__device__ __forceinline__ int iir_at(int q) { return q + q / IIR_CHUNK; }

__device__ __forceinline__ T iir_step(const T *__restrict__ coef, T z[ORDER], T x) {
  const T yv = coef[0] * x + z[0];
#pragma unroll
  for (int i = 0; i < ORDER - 1; ++i) z[i] = coef[i + 1] * x + z[i + 1] - coef[ORDER + 1 + i] * yv;
  z[ORDER - 1] = coef[ORDER] * x - coef[2 * ORDER] * yv;
  return yv;
}

// z = A z + e (A row-major ORDER x ORDER).
__device__ __forceinline__ void iir_affine(const T *__restrict__ A, T z[ORDER], const T e[ORDER]) {
  T r[ORDER];
#pragma unroll
  for (int i = 0; i < ORDER; ++i) {
    T acc = e[i];
#pragma unroll
    for (int j = 0; j < ORDER; ++j) acc += A[i * ORDER + j] * z[j];
    r[i] = acc;
  }
#pragma unroll
  for (int i = 0; i < ORDER; ++i) z[i] = r[i];
}

__device__ __forceinline__ const T *iir_pow(const T *__restrict__ coef, int d) {
  return coef + 2 * ORDER + 1 + d * IIR_KK;
}

// Segment `g` of signal `b` into `xs` (zeros past `n`), then each thread's chunk run from zero
// and the block's inclusive scan: on return `z` is the state after chunk `t` from a zero start
// of the segment (every chunk counted full, the padding included).
__device__ __forceinline__ void iir_seg_scan(const T *__restrict__ x, const T *__restrict__ coef,
                                             T *xs, T *sc, i64t b, i64t g, i64t n, T z[ORDER]) {
  const int t = threadIdx.x;
  const i64t seg0 = g * IIR_SEG;
  __syncthreads();
  for (int q = t; q < IIR_SEG; q += IIR_THREADS) {
    const i64t k = seg0 + q;
    xs[iir_at(q)] = k < n ? x[b * n + k] : (T)0;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < ORDER; ++i) z[i] = (T)0;
  for (int i = 0; i < IIR_CHUNK; ++i) iir_step(coef, z, xs[iir_at(t * IIR_CHUNK + i)]);
#pragma unroll
  for (int i = 0; i < ORDER; ++i) sc[t * ORDER + i] = z[i];
  for (int d = 0; d < IIR_LEVELS; ++d) {
    const int off = 1 << d;
    T prev[ORDER];
    __syncthreads();
    if (t >= off) {
#pragma unroll
      for (int i = 0; i < ORDER; ++i) prev[i] = sc[(t - off) * ORDER + i];
    }
    __syncthreads();
    if (t >= off) {
      // z = z + A prev, as z' = A prev + z.
      T r[ORDER];
#pragma unroll
      for (int i = 0; i < ORDER; ++i) r[i] = z[i];
      iir_affine(iir_pow(coef, d), prev, r);
#pragma unroll
      for (int i = 0; i < ORDER; ++i) z[i] = prev[i];
#pragma unroll
      for (int i = 0; i < ORDER; ++i) sc[t * ORDER + i] = z[i];
    }
  }
  __syncthreads();
}

__device__ __forceinline__ void iir_seg(const T *__restrict__ x, const T *__restrict__ coef,
                                        T *__restrict__ e, i64t batch, i64t n, i64t nseg) {
  __shared__ T xs[IIR_PAD];
  __shared__ T sc[IIR_THREADS * ORDER];
  for (i64t w = blockIdx.x; w < batch * nseg; w += gridDim.x) {
    const i64t b = w / nseg, g = w - b * nseg;
    T z[ORDER];
    iir_seg_scan(x, coef, xs, sc, b, g, n, z);
    if (threadIdx.x == IIR_THREADS - 1) {
#pragma unroll
      for (int i = 0; i < ORDER; ++i) e[w * ORDER + i] = z[i];
    }
  }
}

__device__ __forceinline__ void iir_carry(const T *__restrict__ coef, const T *__restrict__ zi,
                                          T *__restrict__ e, i64t batch, i64t nseg, i64t runs) {
  __shared__ T d[IIR_THREADS * ORDER];
  const T *S = iir_pow(coef, IIR_LEVELS);
  const T *Q = iir_pow(coef, IIR_LEVELS + 1);
  for (i64t b = blockIdx.x; b < batch; b += gridDim.x) {
    T *eb = e + b * nseg * ORDER;
    const i64t lo = threadIdx.x * runs, hi = lo + runs < nseg ? lo + runs : nseg;
    T s[ORDER], t[ORDER];
#pragma unroll
    for (int i = 0; i < ORDER; ++i) s[i] = (T)0;
    for (i64t c = lo; c < hi; ++c) {
#pragma unroll
      for (int i = 0; i < ORDER; ++i) t[i] = eb[c * ORDER + i];
      iir_affine(S, s, t);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ORDER; ++i) d[threadIdx.x * ORDER + i] = s[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      // d[r] becomes run r's start state.
#pragma unroll
      for (int i = 0; i < ORDER; ++i) s[i] = zi[b * ORDER + i];
      for (int r = 0; r < IIR_THREADS; ++r) {
#pragma unroll
        for (int i = 0; i < ORDER; ++i) { t[i] = d[r * ORDER + i]; d[r * ORDER + i] = s[i]; }
        iir_affine(Q, s, t);
      }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ORDER; ++i) s[i] = d[threadIdx.x * ORDER + i];
    for (i64t c = lo; c < hi; ++c) {
#pragma unroll
      for (int i = 0; i < ORDER; ++i) { t[i] = eb[c * ORDER + i]; eb[c * ORDER + i] = s[i]; }
      iir_affine(S, s, t);
    }
  }
}

__device__ __forceinline__ void iir_apply(const T *__restrict__ x, const T *__restrict__ coef,
                                          const T *__restrict__ st, T *__restrict__ y,
                                          T *__restrict__ zf, i64t batch, i64t n, i64t nseg) {
  __shared__ T xs[IIR_PAD];
  __shared__ T sc[IIR_THREADS * ORDER];
  const int t = threadIdx.x;
  const T zero[ORDER] = {};
  for (i64t w = blockIdx.x; w < batch * nseg; w += gridDim.x) {
    const i64t b = w / nseg, g = w - b * nseg;
    const i64t seg0 = g * IIR_SEG;
    T z[ORDER];
    iir_seg_scan(x, coef, xs, sc, b, g, n, z);
    // The chunk's start: the chunks before it from zero, plus M^(IIR_CHUNK t) of the segment's.
    T v[ORDER], s[ORDER];
#pragma unroll
    for (int i = 0; i < ORDER; ++i) {
      v[i] = st[w * ORDER + i];
      s[i] = t > 0 ? sc[(t - 1) * ORDER + i] : (T)0;
    }
    for (int d = 0; d < IIR_LEVELS; ++d) {
      if ((t >> d) & 1) iir_affine(iir_pow(coef, d), v, zero);
    }
#pragma unroll
    for (int i = 0; i < ORDER; ++i) s[i] += v[i];
    const i64t lo = seg0 + (i64t)t * IIR_CHUNK;
    for (int i = 0; i < IIR_CHUNK; ++i) {
      if (lo + i < n) {
        const int q = iir_at(t * IIR_CHUNK + i);
        xs[q] = iir_step(coef, s, xs[q]);
      }
    }
    if (zf && lo <= n - 1 && n - 1 < lo + IIR_CHUNK) {
#pragma unroll
      for (int i = 0; i < ORDER; ++i) zf[b * ORDER + i] = s[i];
    }
    __syncthreads();
    for (int q = t; q < IIR_SEG; q += IIR_THREADS) {
      const i64t k = seg0 + q;
      if (k < n) y[b * n + k] = xs[iir_at(q)];
    }
  }
}
