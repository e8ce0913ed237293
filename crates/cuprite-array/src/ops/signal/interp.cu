// Linear interpolation (NumPy's `interp`): one query per thread of a grid-stride loop, reads and
// writes coalesced. Each block first copies every STRIDE-th sample point into shared memory; a
// query is located there (a binary search over at most INTERP_SAMPLES values), then in its
// segment of at most `stride` points in global memory (a second binary search), so that only
// the last few steps of each search leave the block.
//
// Specialised by the defines: REAL (float or double) and WIDTH (1: real values; 2: complex
// values as (re, im) pairs). The entry point (`InterpArgs` of interp.rs) calls `interp_body`
// with its parameters; `left` and `right` are the bit patterns of their parts (a float in the
// low 32 bits), replaced by the first (bit 0 of `defaults`) or last (bit 1) value. Built after
// the base prelude (`u64t`).

#define INTERP_SAMPLES 2048

__device__ __forceinline__ REAL from_bits_(u64t w) {
#if REAL_IS_DOUBLE
  return __longlong_as_double((long long)w);
#else
  return __uint_as_float((unsigned)w);
#endif
}

// NumPy's rule: the line through (x0, f0) and (x1, f1) at x; a NaN from one end is retried from
// the other, then f0 when both values are equal.
__device__ __forceinline__ REAL lerp_(REAL slope, REAL x, REAL x0, REAL x1, REAL f0, REAL f1) {
  REAL r = slope * (x - x0) + f0;
  if (r != r) {
    r = slope * (x - x1) + f1;
    if (r != r && f0 == f1) r = f0;
  }
  return r;
}

__device__ __forceinline__ void interp_body(
    const REAL* __restrict__ x, const REAL* __restrict__ xp, const REAL* __restrict__ fp,
    REAL* __restrict__ out, u64t nq, u64t n, u64t stride, u64t defaults, u64t left_re, u64t left_im,
    u64t right_re, u64t right_im) {
  __shared__ REAL samp[INTERP_SAMPLES];
  // n >= 1 and stride >= ceil(n / INTERP_SAMPLES): at most INTERP_SAMPLES samples.
  const unsigned ns = (unsigned)((n + stride - 1) / stride);
  for (unsigned k = threadIdx.x; k < ns; k += blockDim.x) samp[k] = xp[(u64t)k * stride];
  __syncthreads();
  const REAL lo_x = samp[0], hi_x = __ldg(xp + n - 1);
  REAL left[2] = {from_bits_(left_re), from_bits_(left_im)};
  REAL right[2] = {from_bits_(right_re), from_bits_(right_im)};
  for (int c = 0; c < WIDTH; c++) {
    if (defaults & 1) left[c] = __ldg(fp + c);
    if (defaults & 2) right[c] = __ldg(fp + (n - 1) * WIDTH + c);
  }
  const u64t step = (u64t)gridDim.x * blockDim.x;
  for (u64t i = (u64t)blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += step) {
    const REAL v = x[i];
    REAL r[WIDTH];
    if (v != v) {
      r[0] = v;
      if (WIDTH == 2) r[WIDTH - 1] = (REAL)0;
    } else if (v > hi_x) {
      for (int c = 0; c < WIDTH; c++) r[c] = right[c];
    } else if (v < lo_x) {
      for (int c = 0; c < WIDTH; c++) r[c] = left[c];
    } else {
      // The last sample <= v (samp[0] <= v here).
      unsigned a = 1, b = ns;
      while (a < b) {
        const unsigned m = (a + b) >> 1;
        if (samp[m] <= v) a = m + 1; else b = m;
      }
      // Then the last point <= v in that sample's segment.
      u64t lo = (u64t)(a - 1) * stride + 1;
      u64t hi = lo - 1 + stride < n ? lo - 1 + stride : n;
      while (lo < hi) {
        const u64t m = (lo + hi) >> 1;
        if (__ldg(xp + m) <= v) lo = m + 1; else hi = m;
      }
      const u64t j = lo - 1;
      const REAL x0 = __ldg(xp + j);
      if (j == n - 1 || x0 == v) {
        for (int c = 0; c < WIDTH; c++) r[c] = __ldg(fp + j * WIDTH + c);
      } else {
        const REAL x1 = __ldg(xp + j + 1);
        for (int c = 0; c < WIDTH; c++) {
          const REAL f0 = __ldg(fp + j * WIDTH + c), f1 = __ldg(fp + (j + 1) * WIDTH + c);
#if WIDTH == 2
          const REAL slope = (f1 - f0) * ((REAL)1 / (x1 - x0));
#else
          const REAL slope = (f1 - f0) / (x1 - x0);
#endif
          r[c] = lerp_(slope, v, x0, x1, f0, f1);
        }
      }
    }
    for (int c = 0; c < WIDTH; c++) out[i * WIDTH + c] = r[c];
  }
}
