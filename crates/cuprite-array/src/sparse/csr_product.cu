// Products of a CSR matrix with a dense vector (SpMV) or a row-major dense matrix (SpMM):
// y = alpha * A x (+ beta * y0) and C = alpha * A B (+ beta * C0). Row r of A holds the
// entries off[r] .. off[r + 1] of `idx` (columns, below k) and `val`. The order of the
// operations is fixed, and the CPU twin (`csr_product.rs`) does the same ones in the same order
// (every product rounded on its own: the kernels build without contraction):
// - SpMV, CSR-stream form (`csr_spmv_stream`, built when CP_SLOTS is defined; the header then
//   sets CP_SUB to 1): each row's products val[p] * x[idx[p]] added one by one in ascending p
//   to a sum that starts at zero (the CP_SUB = 1 order).
// - SpMV: CP_SUB lanes a row; lane l adds val[p] * x[idx[p]] for p = off[r] + l, + CP_SUB,
//   ... to a sum that starts at zero; the lanes' sums are then combined by the butterfly
//   acc[l] + acc[l ^ o] for o = CP_SUB / 2, ..., 1, and lane 0's value is the row's sum.
// - SpMM: CP_SUB lanes a row; lane l computes the columns l, l + CP_SUB, ... of the row's
//   output one at a time: from zero, val[p] * B[idx[p], col] added for p in row order.
// Then t = alpha * sum, and t = t + beta * y0 where an initial value is given.
// - SpMV with its dot (built with CP_DOT defined, for a square matrix, alpha 1 and no initial
//   value): y[r] as above, and y[rows] = the sum of y[r] * x[r] in this order: each thread adds
//   y[r] * x[r] from zero for the rows whose y it writes, in the order it writes them (the
//   CSR-stream form `csr_spmv_stream_dot`: thread t of block b, rows r = b * CP_BLOCK + t, +
//   gridDim.x * CP_BLOCK, ...; the sub-warp form `csr_spmv_dot`: lane 0 of each sub-warp, the
//   rows of that sub-warp, the other lanes adding nothing and holding zero); each block halves
//   its CP_BLOCK sums (s[i] = s[i] + s[i + h] for h = CP_BLOCK / 2, ..., 1) into its partial;
//   the last block to finish adds partial t, t + CP_BLOCK, ... from zero in thread t and halves
//   those sums the same way.
//
// Offsets are clamped into [0, nnz] and entries whose column is outside [0, k) are skipped, so
// every read stays inside the buffers whatever they hold (the matrices' constructors check that
// the offsets rise from 0 to nnz and that every column is below k).
//
// Built after a typed header that defines `i64t`, `T` (float or double), `I` (int or long
// long) and CP_SUB (a power of two from 1 to 32); blocks of a multiple of 32 threads. For the
// CSR-stream SpMV it also defines CP_BLOCK (the threads a block, a power of two of at least
// 32, which the launch must match) and CP_SLOTS (the tile's entries a thread, at least 1), and
// CP_DOT for the form with its dot; the sub-warp SpMV with its dot defines CP_BLOCK and CP_DOT.

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

#ifdef CP_DOT
// The sum of the CP_BLOCK values `v` of the block's threads by halving (see the top), in every
// thread. Every thread of the block calls it (it holds barriers); `sh` holds CP_BLOCK values.
__device__ __forceinline__ T cp_block_halve(T *sh, T v) {
  const int t = threadIdx.x;
  // Earlier readers of `sh` are done before it is written.
  __syncthreads();
  sh[t] = v;
  __syncthreads();
  for (int h = CP_BLOCK / 2; h > 0; h >>= 1) {
    if (t < h) sh[t] = sh[t] + sh[t + h];
    __syncthreads();
  }
  return sh[0];
}

// The dot's end, called by every thread of every block with the thread's sum `d`: the block's
// partial into `part` (gridDim.x partials), its count into `count` (zero at the launch), and
// from the last block to count, the sum of the partials into y[rows] (see the top). The last
// block sets the count back to zero: every block has counted by then.
__device__ __forceinline__ void cp_dot_finish(T d, T *__restrict__ y, T *part, unsigned *count,
                                              i64t rows) {
  __shared__ T sums[CP_BLOCK];
  __shared__ int last;
  const T mine = cp_block_halve(sums, d);
  if (threadIdx.x == 0) {
    part[blockIdx.x] = mine;
    // The partial is visible to every block before the count says it was written.
    __threadfence();
    last = atomicAdd(count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // The last block: every other partial was written and fenced before its count.
  __threadfence();
  T v = (T)0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += CP_BLOCK) v = v + __ldcg(part + i);
  const T total = cp_block_halve(sums, v);
  if (threadIdx.x == 0) {
    y[rows] = total;
    *count = 0u;
  }
}
#endif

// The entries a lane loads before its first gather in the sub-warp forms: a lane issues the
// loads of the indices and values of its first CP_ROUND entries before their gathers from x,
// then takes the rest one at a time; the additions keep ascending p.
#define CP_ROUND 4

// The sub-warp sum of row r by lane `lane` (see the top): this lane's products in ascending p
// from zero, not yet combined with the other lanes'. Zero where r is not below `rows`.
__device__ __forceinline__ T cp_lane_sum(const I *__restrict__ off, const I *__restrict__ idx,
                                         const T *__restrict__ val, const T *__restrict__ x,
                                         i64t r, int lane, i64t rows, i64t k, i64t nnz) {
  T acc = (T)0;
  if (r >= rows) return acc;
  i64t s, e;
  cp_bounds(off, r, nnz, &s, &e);
  I jq[CP_ROUND];
  T vq[CP_ROUND];
#pragma unroll
  for (int u = 0; u < CP_ROUND; ++u) {
    const i64t p = s + lane + (i64t)u * CP_SUB;
    jq[u] = (I)-1;
    vq[u] = (T)0;
    if (p < e) {
      jq[u] = idx[p];
      vq[u] = val[p];
    }
  }
#pragma unroll
  for (int u = 0; u < CP_ROUND; ++u) {
    const i64t j = (i64t)jq[u];
    if (j >= 0 && j < k) acc = acc + vq[u] * x[j];
  }
  for (i64t p = s + lane + (i64t)CP_ROUND * CP_SUB; p < e; p += CP_SUB) {
    const i64t j = (i64t)idx[p];
    if (j >= 0 && j < k) acc = acc + val[p] * x[j];
  }
  return acc;
}

// The row's sum in lane 0 of its sub-warp (the butterfly of the top). Every lane of the warp
// calls it together.
__device__ __forceinline__ T cp_row_sum(const I *__restrict__ off, const I *__restrict__ idx,
                                        const T *__restrict__ val, const T *__restrict__ x,
                                        i64t r, int lane, i64t rows, i64t k, i64t nnz) {
  T acc = cp_lane_sum(off, idx, val, x, r, lane, rows, k, nnz);
#if CP_SUB > 1
  for (int o = CP_SUB / 2; o > 0; o >>= 1) acc = acc + __shfl_xor_sync(0xffffffffu, acc, o);
#endif
  return acc;
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
    const T acc = cp_row_sum(off, idx, val, x, r, lane, rows, k, nnz);
    if (r < rows && lane == 0) {
      T t = a * acc;
      if (y0) t = t + b * y0[r];
      y[r] = t;
    }
  }
}

#if defined(CP_DOT) && !defined(CP_SLOTS)
// The sub-warp SpMV of a square matrix (alpha 1, no initial value) with its dot in y[rows]:
// the rows, lanes and additions of `csr_spmv`; lane 0 of a sub-warp adds y[r] * x[r] for each
// row it writes (see the top). Blocks hold CP_BLOCK threads.
__device__ __forceinline__ void csr_spmv_dot(const I *__restrict__ off, const I *__restrict__ idx,
                                             const T *__restrict__ val, const T *__restrict__ x,
                                             T *__restrict__ y, T *part, unsigned *count,
                                             i64t rows, i64t k, i64t nnz) {
  const int lane = threadIdx.x & (CP_SUB - 1);
  const i64t per_warp = 32 / CP_SUB;
  const i64t sub = (threadIdx.x & 31) / CP_SUB;
  const i64t warp = ((i64t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const i64t warps = ((i64t)gridDim.x * blockDim.x) >> 5;
  T dsum = (T)0;
  // `base` is the same in every lane of a warp: the whole warp takes part in each shuffle.
  for (i64t base = warp * per_warp; base < rows; base += warps * per_warp) {
    const i64t r = base + sub;
    const T acc = cp_row_sum(off, idx, val, x, r, lane, rows, k, nnz);
    if (r < rows && lane == 0) {
      y[r] = acc;
      if (r < k) dsum = dsum + acc * x[r];
    }
  }
  cp_dot_finish(dsum, y, part, count, rows);
}
#endif

#ifdef CP_SLOTS
// CSR-stream SpMV, for short rows. Each block takes CP_BLOCK consecutive rows r0 .. r0 +
// CP_BLOCK (thread t row r0 + t) and the range of entries lo .. hi from the first row's start to
// the last row's end. It walks that range in chunks of the tile's CP_BLOCK * CP_SLOTS entries:
// every thread of the block reads entries c0 + t, c0 + t + CP_BLOCK, ... (coalesced reads of
// idx and val, all of them issued before the gathers from x), stores each product in the tile,
// and after a barrier each thread adds the products of its row that lie in the chunk, in
// ascending p, to its running sum. A chunk boundary only splits the walk, not the order, so a
// row of any length (longer than the tile too) is summed from zero in ascending p.
//
// An entry whose column is outside [0, k) stores +0 instead of a product. Adding +0 leaves a
// sum unchanged: a sum that starts at +0 is never -0 under round-to-nearest (x + y is -0 only
// when both are -0), so the result is the sum that skips the entry, as the CPU twin does.
//
// Rows whose clamped bounds [s, e) are not inside [lo, hi) (only possible when the offsets do
// not rise) skip the tile and add their entries straight from memory, in the same order.
//
// Returns the thread's sum of y[r] * x[r] over its rows in the order above when CP_DOT is
// defined (rows below k only), else zero.
__device__ __forceinline__ T cp_stream_rows(const I *__restrict__ off, const I *__restrict__ idx,
                                            const T *__restrict__ val, const T *__restrict__ x,
                                            const T *__restrict__ y0, T *__restrict__ y,
                                            i64t rows, i64t k, i64t nnz, double alpha,
                                            double beta) {
  __shared__ T tile[CP_BLOCK * CP_SLOTS];
  __shared__ i64t range[2];
  const T a = (T)alpha;
  const T b = (T)beta;
  const int t = threadIdx.x;
  T dsum = (T)0;
  // `r0` is the same in every thread of the block: each barrier below is reached by all.
  for (i64t r0 = (i64t)blockIdx.x * CP_BLOCK; r0 < rows; r0 += (i64t)gridDim.x * CP_BLOCK) {
    const i64t r = r0 + t;
    const bool mine = r < rows;
    const i64t last = (rows - r0 < CP_BLOCK ? rows - r0 : CP_BLOCK) - 1;
    i64t s = 0, e = 0;
    if (mine) cp_bounds(off, r, nnz, &s, &e);
    // The previous rows' readers of `range` and `tile` are done before they change.
    __syncthreads();
    if (t == 0) range[0] = s;
    if (t == last) range[1] = e;
    __syncthreads();
    const i64t lo = range[0];
    const i64t hi = range[1];
    const bool inside = s >= lo && e <= hi;
    T acc = (T)0;
    for (i64t c0 = lo; c0 < hi; c0 += (i64t)CP_BLOCK * CP_SLOTS) {
      const i64t c1 = hi - c0 < (i64t)CP_BLOCK * CP_SLOTS ? hi : c0 + (i64t)CP_BLOCK * CP_SLOTS;
      I jq[CP_SLOTS];
      T vq[CP_SLOTS];
#pragma unroll
      for (int q = 0; q < CP_SLOTS; ++q) {
        const i64t p = c0 + t + (i64t)q * CP_BLOCK;
        jq[q] = (I)-1;
        vq[q] = (T)0;
        if (p < c1) {
          jq[q] = idx[p];
          vq[q] = val[p];
        }
      }
      // The previous chunk's sums have read the tile.
      __syncthreads();
#pragma unroll
      for (int q = 0; q < CP_SLOTS; ++q) {
        const i64t j = (i64t)jq[q];
        T prod = (T)0;
        if (j >= 0 && j < k) prod = vq[q] * x[j];
        tile[t + q * CP_BLOCK] = prod;
      }
      __syncthreads();
      if (mine && inside) {
        const i64t pa = s > c0 ? s : c0;
        const i64t pb = e < c1 ? e : c1;
        for (i64t p = pa; p < pb; ++p) acc = acc + tile[p - c0];
      }
    }
    if (mine) {
      if (!inside) {
        for (i64t p = s; p < e; ++p) {
          const i64t j = (i64t)idx[p];
          if (j >= 0 && j < k) acc = acc + val[p] * x[j];
        }
      }
      T o = a * acc;
      if (y0) o = o + b * y0[r];
      y[r] = o;
#ifdef CP_DOT
      if (r < k) dsum = dsum + o * x[r];
#endif
    }
  }
  return dsum;
}

__device__ __forceinline__ void csr_spmv_stream(const I *__restrict__ off,
                                                const I *__restrict__ idx,
                                                const T *__restrict__ val,
                                                const T *__restrict__ x,
                                                const T *__restrict__ y0, T *__restrict__ y,
                                                i64t rows, i64t k, i64t nnz, double alpha,
                                                double beta) {
  (void)cp_stream_rows(off, idx, val, x, y0, y, rows, k, nnz, alpha, beta);
}

#ifdef CP_DOT
// `part` holds gridDim.x partials, `count` one counter that is zero at the launch; y holds
// rows + 1 elements.
__device__ __forceinline__ void csr_spmv_stream_dot(const I *__restrict__ off,
                                                    const I *__restrict__ idx,
                                                    const T *__restrict__ val,
                                                    const T *__restrict__ x, T *__restrict__ y,
                                                    T *part, unsigned *count, i64t rows, i64t k,
                                                    i64t nnz) {
  const T d = cp_stream_rows(off, idx, val, x, (const T *)0, y, rows, k, nnz, 1.0, 0.0);
  cp_dot_finish(d, y, part, count, rows);
}
#endif
#endif

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
