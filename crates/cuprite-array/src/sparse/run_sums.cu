// Sums of runs of sorted entries (the values of the duplicates of one position): run `k` covers
// the sorted positions [starts[k], end), end = starts[k + 1] or `n` for the last run, and sums
// vals[perm[j]] over them (`comps` components an entry, each summed on its own: 1 for real
// values, 2 for complex values seen as pairs). The order of the additions is fixed, and the
// CPU twin (`run_sums.rs`) adds the same terms in the same order:
// - a run of at most RS_LANES entries: from its first entry, one after another;
// - a longer run: lane l (l < RS_LANES) adds the entries l, l + RS_LANES, l + 2 RS_LANES, ...
//   of the run one after another, then lane 0's sum, lane 1's, ... are added in lane order.
//
// One block of RS_LANES threads a tile of RS_LANES consecutive runs (grid-stride over the
// tiles): each thread sums its run when it is short; the block then sums the tile's long runs
// together, one at a time. Starts and permutation entries outside [0, n) are clamped or read as
// zero, so every read stays inside the buffers whatever they hold (the callers make starts that
// rise inside [0, n) and a permutation of [0, n)).
//
// Built after a typed header that defines `i64t` and `T` (`float` or `double`).

#define RS_LANES 256

__device__ __forceinline__ void rs_bounds(const i64t *__restrict__ starts, i64t n, i64t m, i64t k,
                                          i64t *s, i64t *e) {
  i64t a = starts[k];
  i64t b = k + 1 < m ? starts[k + 1] : n;
  if (a < 0) a = 0;
  if (a > n) a = n;
  if (b > n) b = n;
  if (b < a) b = a;
  *s = a;
  *e = b;
}

__device__ __forceinline__ T rs_val(const T *__restrict__ vals, const i64t *__restrict__ perm,
                                    i64t n, i64t comps, i64t j, i64t c) {
  const i64t p = perm[j];
  return (p >= 0 && p < n) ? vals[p * comps + c] : (T)0;
}

__device__ __forceinline__ void run_sums(const T *__restrict__ vals,
                                         const i64t *__restrict__ perm,
                                         const i64t *__restrict__ starts, T *__restrict__ out,
                                         i64t n, i64t m, i64t comps) {
  __shared__ i64t rs_long[RS_LANES];
  __shared__ int rs_count;
  __shared__ T rs_part[RS_LANES];
  const i64t tiles = (m + RS_LANES - 1) / RS_LANES;
  for (i64t t = blockIdx.x; t < tiles; t += gridDim.x) {
    if (threadIdx.x == 0) rs_count = 0;
    __syncthreads();
    const i64t k = t * RS_LANES + threadIdx.x;
    if (k < m) {
      i64t s, e;
      rs_bounds(starts, n, m, k, &s, &e);
      if (e - s > RS_LANES) {
        rs_long[atomicAdd(&rs_count, 1)] = k;
      } else {
        for (i64t c = 0; c < comps; ++c) {
          T acc = (T)0;
          if (e > s) {
            acc = rs_val(vals, perm, n, comps, s, c);
            for (i64t j = s + 1; j < e; ++j) acc = acc + rs_val(vals, perm, n, comps, j, c);
          }
          out[k * comps + c] = acc;
        }
      }
    }
    __syncthreads();
    const int nl = rs_count;
    for (int q = 0; q < nl; ++q) {
      const i64t kl = rs_long[q];
      i64t s, e;
      rs_bounds(starts, n, m, kl, &s, &e);
      for (i64t c = 0; c < comps; ++c) {
        // A long run holds more than RS_LANES entries: every lane has one at least.
        T acc = rs_val(vals, perm, n, comps, s + threadIdx.x, c);
        for (i64t j = s + threadIdx.x + RS_LANES; j < e; j += RS_LANES) {
          acc = acc + rs_val(vals, perm, n, comps, j, c);
        }
        rs_part[threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.x == 0) {
          T tot = rs_part[0];
          for (int l = 1; l < RS_LANES; ++l) tot = tot + rs_part[l];
          out[kl * comps + c] = tot;
        }
        __syncthreads();
      }
    }
    __syncthreads();
  }
}
