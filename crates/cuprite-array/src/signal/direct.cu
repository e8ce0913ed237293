// The direct N-d convolution (up to three convolved axes, batched): `y[b, k] = sum_j h[j] *
// x[b, k + s - j]` over every tap `j` of the kernel, `x` zero outside its extent. See
// `direct.rs` for the parameters (one typed description) and the CPU twin, which sums in the
// same order.
//
// A block computes one tile of CONV_TILE consecutive outputs of one output line (fixed batch
// index `b`, output indices `k0`, `k1`): thread `t` the CONV_PER consecutive outputs from
// `CONV_PER * t`. For each kernel line `(j0, j1)` whose input line exists, the taps are taken
// CONV_TAPS at a time: the signal segment those taps reach (CONV_TILE + taps - 1 values, zero
// outside the line) and the taps are staged in shared memory, then every output sums over them
// in ascending tap order. A thread keeps a window of CONV_PER signal values in registers and
// slides it by one value a tap, so that it reads one shared value (and one broadcast tap) per
// CONV_PER multiply-adds. The skips depend only on the line, so every thread of a block takes
// the same branches (the barriers are uniform).
//
// Shared layout: logical element `i` of the segment lives at `(i % CONV_PER) * CONV_SROW + i /
// CONV_PER`. A warp's window reads (`CONV_PER t + off` for consecutive `t`) are then consecutive
// words, and with CONV_SROW = 4 (mod 32) a warp's staging of 32 consecutive elements hits 32
// banks. The finished tile goes through the same layout so that the stores are coalesced.
//
// Built after a typed header that defines `T` (float or double), `i64t`, and the constants
// CONV_THREADS, CONV_PER (8) and CONV_TAPS (with CONV_TILE + CONV_TAPS <= CONV_PER *
// (CONV_SROW - 4)).

constexpr int CONV_TILE = CONV_THREADS * CONV_PER;

constexpr int CONV_SROW = (CONV_TILE + CONV_TAPS) / CONV_PER + 4;

__device__ __forceinline__ int conv_at(int i) { return (i % CONV_PER) * CONV_SROW + i / CONV_PER; }

__device__ __forceinline__ void conv_direct(const T *__restrict__ x, const T *__restrict__ h,
                                            T *__restrict__ y, i64t batch, i64t n0, i64t n1,
                                            i64t n2, i64t m0, i64t m1, i64t m2, i64t s0, i64t s1,
                                            i64t s2, i64t l0, i64t l1, i64t l2) {
  __shared__ T xs[CONV_PER * CONV_SROW];
  __shared__ T hs[CONV_TAPS];
  const int me = threadIdx.x * CONV_PER;
  const i64t tiles = (l2 + CONV_TILE - 1) / CONV_TILE;
  const i64t total = batch * l0 * l1 * tiles;
  for (i64t w = blockIdx.x; w < total; w += gridDim.x) {
    const i64t line = w / tiles;
    const i64t t0 = (w - line * tiles) * CONV_TILE;
    const i64t k1 = line % l1;
    const i64t r = line / l1;
    const i64t k0 = r % l0;
    const i64t b = r / l0;
    T acc[CONV_PER];
#pragma unroll
    for (int p = 0; p < CONV_PER; ++p) acc[p] = (T)0;
    for (i64t j0 = 0; j0 < m0; ++j0) {
      const i64t i0 = k0 + s0 - j0;
      if (i0 < 0 || i0 >= n0) continue;
      for (i64t j1 = 0; j1 < m1; ++j1) {
        const i64t i1 = k1 + s1 - j1;
        if (i1 < 0 || i1 >= n1) continue;
        const T *xr = x + ((b * n0 + i0) * n1 + i1) * n2;
        const T *hr = h + (j0 * m1 + j1) * m2;
        for (i64t c = 0; c < m2; c += CONV_TAPS) {
          const int cc = (int)(m2 - c < CONV_TAPS ? m2 - c : CONV_TAPS);
          const int span = CONV_TILE + cc - 1;
          // Segment element q is x[base + q]: output t0 + u and tap c + j read element
          // u + cc - 1 - j.
          const i64t base = t0 + s2 - c - cc + 1;
          __syncthreads();
          for (int q = threadIdx.x; q < span; q += CONV_THREADS) {
            const i64t i2 = base + q;
            xs[conv_at(q)] = (i2 >= 0 && i2 < n2) ? xr[i2] : (T)0;
          }
          for (int q = threadIdx.x; q < cc; q += CONV_THREADS) hs[q] = hr[c + q];
          __syncthreads();
          // v[p] = element me + p + off, for off = cc - 1 - j.
          T v[CONV_PER];
#pragma unroll
          for (int p = 0; p < CONV_PER; ++p) v[p] = xs[conv_at(me + p + cc - 1)];
          for (int j = 0; j < cc; ++j) {
            const T hv = hs[j];
#pragma unroll
            for (int p = 0; p < CONV_PER; ++p) acc[p] += hv * v[p];
            if (j + 1 < cc) {
#pragma unroll
              for (int p = CONV_PER - 1; p > 0; --p) v[p] = v[p - 1];
              v[0] = xs[conv_at(me + cc - 2 - j)];
            }
          }
        }
      }
    }
    // The tile through shared memory, stored coalesced.
    __syncthreads();
#pragma unroll
    for (int p = 0; p < CONV_PER; ++p) xs[conv_at(me + p)] = acc[p];
    __syncthreads();
    for (int u = threadIdx.x; u < CONV_TILE; u += CONV_THREADS) {
      const i64t k2 = t0 + u;
      if (k2 < l2) y[line * l2 + k2] = xs[conv_at(u)];
    }
  }
}
