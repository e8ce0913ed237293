// The IIR filter (SciPy's `lfilter`) as a blocked parallel scan of its state recurrence. In the
// transposed direct form II, one sample maps the state `z` (ORDER values) affinely:
//
//   y    = b0 x + z0
//   z_i' = b_{i+1} x + z_{i+1} - a_{i+1} y      (z_ORDER = 0)
//
// that is `z' = M z + g x` with the same matrix M for every sample. A chunk of IIR_CHUNK samples
// therefore maps its start state `s` to `P s + e`, where `P = M^IIR_CHUNK` (computed on the host)
// and `e` is the chunk's end state from a zero start. Three passes (see `iir.rs`):
//
// 1. `iir_local`: a thread a chunk runs it from zero and writes `e`.
// 2. `iir_carry`: a block a signal scans the chunks' maps. Each thread takes a run of `R`
//    chunks and composes them from zero (`d = P d + e`); one thread then scans the runs with
//    `Q = P^R` from the initial state `zi`; each thread rewrites its chunks' `e` as their
//    start states.
// 3. `iir_apply`: a thread a chunk runs it from its start state, writing `y` (and the final
//    state `zf` from the signal's last chunk).
//
// Every pass updates the state with the same operations in the same order as the CPU twin's
// sequential loop within a chunk; only the carry across chunks rounds differently.
//
// Built after a typed header that defines `T` (float or double), `i64t`, and the constants
// ORDER (1..=IIR_MAX_ORDER), IIR_CHUNK and CARRY_THREADS. The coefficients `coef` are, in `T`:
// b_0..b_ORDER, a_1..a_ORDER (divided by a_0), P (ORDER x ORDER, row-major), Q (the same).

__device__ __forceinline__ void iir_step(const T *__restrict__ coef, T z[ORDER], T x, T *y) {
  const T yv = coef[0] * x + z[0];
#pragma unroll
  for (int i = 0; i < ORDER - 1; ++i) z[i] = coef[i + 1] * x + z[i + 1] - coef[ORDER + 1 + i] * yv;
  z[ORDER - 1] = coef[ORDER] * x - coef[2 * ORDER] * yv;
  *y = yv;
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

__device__ __forceinline__ void iir_local(const T *__restrict__ x, const T *__restrict__ coef,
                                          T *__restrict__ e, i64t batch, i64t n, i64t nch) {
  const i64t total = batch * nch;
  const i64t step = (i64t)gridDim.x * blockDim.x;
  for (i64t c = (i64t)blockIdx.x * blockDim.x + threadIdx.x; c < total; c += step) {
    const i64t b = c / nch, q = c - b * nch;
    const i64t lo = q * IIR_CHUNK, hi = lo + IIR_CHUNK < n ? lo + IIR_CHUNK : n;
    const T *xr = x + b * n;
    T z[ORDER];
#pragma unroll
    for (int i = 0; i < ORDER; ++i) z[i] = (T)0;
    T y;
    for (i64t k = lo; k < hi; ++k) iir_step(coef, z, xr[k], &y);
#pragma unroll
    for (int i = 0; i < ORDER; ++i) e[c * ORDER + i] = z[i];
  }
}

__device__ __forceinline__ void iir_carry(const T *__restrict__ coef, const T *__restrict__ zi,
                                          T *__restrict__ e, i64t batch, i64t nch, i64t runs) {
  __shared__ T d[CARRY_THREADS * ORDER];
  const T *P = coef + 2 * ORDER + 1;
  const T *Q = P + ORDER * ORDER;
  for (i64t b = blockIdx.x; b < batch; b += gridDim.x) {
    T *eb = e + b * nch * ORDER;
    const i64t lo = threadIdx.x * runs, hi = lo + runs < nch ? lo + runs : nch;
    T s[ORDER], t[ORDER];
#pragma unroll
    for (int i = 0; i < ORDER; ++i) s[i] = (T)0;
    for (i64t c = lo; c < hi; ++c) {
#pragma unroll
      for (int i = 0; i < ORDER; ++i) t[i] = eb[c * ORDER + i];
      iir_affine(P, s, t);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ORDER; ++i) d[threadIdx.x * ORDER + i] = s[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      // d[r] becomes run r's start state.
#pragma unroll
      for (int i = 0; i < ORDER; ++i) s[i] = zi[b * ORDER + i];
      for (int r = 0; r < CARRY_THREADS; ++r) {
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
      iir_affine(P, s, t);
    }
  }
}

__device__ __forceinline__ void iir_apply(const T *__restrict__ x, const T *__restrict__ coef,
                                          const T *__restrict__ st, T *__restrict__ y,
                                          T *__restrict__ zf, i64t batch, i64t n, i64t nch) {
  const i64t total = batch * nch;
  const i64t step = (i64t)gridDim.x * blockDim.x;
  for (i64t c = (i64t)blockIdx.x * blockDim.x + threadIdx.x; c < total; c += step) {
    const i64t b = c / nch, q = c - b * nch;
    const i64t lo = q * IIR_CHUNK, hi = lo + IIR_CHUNK < n ? lo + IIR_CHUNK : n;
    const T *xr = x + b * n;
    T *yr = y + b * n;
    T z[ORDER];
#pragma unroll
    for (int i = 0; i < ORDER; ++i) z[i] = st[c * ORDER + i];
    for (i64t k = lo; k < hi; ++k) iir_step(coef, z, xr[k], yr + k);
    if (zf && q == nch - 1) {
#pragma unroll
      for (int i = 0; i < ORDER; ++i) zf[b * ORDER + i] = z[i];
    }
  }
}
