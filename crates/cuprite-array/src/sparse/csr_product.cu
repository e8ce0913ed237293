// Products of a CSR matrix with a dense vector (SpMV) or a row-major dense matrix (SpMM):
// y = alpha * A x (+ beta * y0) and C = alpha * A B (+ beta * C0). Row r of A holds the
// entries off[r] .. off[r + 1] of `idx` (columns, below k) and `val`. The order of the
// operations is fixed, and the CPU twin (`csr_product.rs`) does the same ones in the same order
// (every product rounded on its own: the kernels build without contraction):
// - SpMV: CP_SUB lanes a row; lane l adds val[p] * x[idx[p]] for p = off[r] + l, + CP_SUB,
//   ... to a sum that starts at zero; the lanes' sums are then combined by the butterfly
//   acc[l] + acc[l ^ o] for o = CP_SUB / 2, ..., 1, and lane 0's value is the row's sum.
// - SpMM: CP_SUB lanes a row; lane l computes the columns l, l + CP_SUB, ... of the row's
//   output one at a time: from zero, val[p] * B[idx[p], col] added for p in row order.
// Then t = alpha * sum, and t = t + beta * y0 where an initial value is given.
//
// Offsets are clamped into [0, nnz] and entries whose column is outside [0, k) are skipped, so
// every read stays inside the buffers whatever they hold (the matrices' constructors check that
// the offsets rise from 0 to nnz and that every column is below k).
//
// Built after a typed header that defines `i64t`, `T` (float or double), `I` (int or long
// long) and CP_SUB (a power of two from 1 to 32); blocks of a multiple of 32 threads.

__device__ __forceinline__ void cp_bounds(const I *__restrict__ off, i64t r, i64t nnz, i64t *s,
                                          i64t *e) {
  i64t a = (i64t)off[r];
  i64t b = (i64t)off[r + 1];
  if (a < 0) a = 0;
  if (a > nnz) a = nnz;
  if (b > nnz) b = nnz;
  if (b < a) b = a;
  *s = a;
  *e = b;
}

__device__ __forceinline__ void csr_spmv(const I *__restrict__ off, const I *__restrict__ idx,
                                         const T *__restrict__ val, const T *__restrict__ x,
                                         const T *__restrict__ y0, T *__restrict__ y, i64t rows,
                                         i64t k, i64t nnz, double alpha, double beta) {
  const int lane = threadIdx.x & (CP_SUB - 1);
  const i64t per_warp = 32 / CP_SUB;
  const i64t sub = (threadIdx.x & 31) / CP_SUB;
  const i64t warp = ((i64t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const i64t warps = ((i64t)gridDim.x * blockDim.x) >> 5;
  const T a = (T)alpha;
  const T b = (T)beta;
  // `base` is the same in every lane of a warp: the whole warp takes part in each shuffle.
  for (i64t base = warp * per_warp; base < rows; base += warps * per_warp) {
    const i64t r = base + sub;
    T acc = (T)0;
    if (r < rows) {
      i64t s, e;
      cp_bounds(off, r, nnz, &s, &e);
      for (i64t p = s + lane; p < e; p += CP_SUB) {
        const i64t j = (i64t)idx[p];
        if (j >= 0 && j < k) acc = acc + val[p] * x[j];
      }
    }
#if CP_SUB > 1
    for (int o = CP_SUB / 2; o > 0; o >>= 1) acc = acc + __shfl_xor_sync(0xffffffffu, acc, o);
#endif
    if (r < rows && lane == 0) {
      T t = a * acc;
      if (y0) t = t + b * y0[r];
      y[r] = t;
    }
  }
}

__device__ __forceinline__ void csr_spmm(const I *__restrict__ off, const I *__restrict__ idx,
                                         const T *__restrict__ val, const T *__restrict__ bm,
                                         const T *__restrict__ c0, T *__restrict__ c, i64t rows,
                                         i64t k, i64t nnz, i64t n, double alpha, double beta) {
  const int lane = threadIdx.x & (CP_SUB - 1);
  // The lanes of this thread's sub-warp: every loop below is uniform across them, so each
  // shuffle names exactly the lanes that reach it.
  const unsigned mask =
      CP_SUB == 32 ? 0xffffffffu
                   : (((1u << CP_SUB) - 1u) << ((threadIdx.x & 31) & ~(unsigned)(CP_SUB - 1)));
  const i64t g = ((i64t)blockIdx.x * blockDim.x + threadIdx.x) / CP_SUB;
  const i64t gs = ((i64t)gridDim.x * blockDim.x) / CP_SUB;
  const T a = (T)alpha;
  const T b = (T)beta;
  for (i64t r = g; r < rows; r += gs) {
    i64t s, e;
    cp_bounds(off, r, nnz, &s, &e);
    for (i64t cb = 0; cb < n; cb += CP_SUB) {
      const i64t col = cb + lane;
      const bool on = col < n;
      T acc = (T)0;
      // CP_SUB entries at a time: each lane reads one (coalesced), then every lane takes them
      // all in row order through shuffles, so the dense rows' reads are independent.
      for (i64t q0 = s; q0 < e; q0 += CP_SUB) {
        const i64t p = q0 + lane;
        i64t jl = -1;
        T al = (T)0;
        if (p < e) {
          jl = (i64t)idx[p];
          al = val[p];
        }
        const i64t left = e - q0;
#pragma unroll
        for (int q = 0; q < CP_SUB; ++q) {
          if (q < left) {
            const i64t j = __shfl_sync(mask, jl, q, CP_SUB);
            const T av = __shfl_sync(mask, al, q, CP_SUB);
            if (on && j >= 0 && j < k) acc = acc + av * bm[j * n + col];
          }
        }
      }
      if (on) {
        T t = a * acc;
        if (c0) t = t + b * c0[r * n + col];
        c[r * n + col] = t;
      }
    }
  }
}
