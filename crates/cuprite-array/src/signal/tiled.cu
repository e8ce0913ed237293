// The direct convolution of a batch of planes over their two axes with a small kernel known at
// compile time: `y[p, k1, k2] = sum_{j1, j2} h[j1, j2] * x[p, k1 + s1 - j1, k2 + s2 - j2]`,
// `x` zero outside the plane. The outermost convolved axis has a kernel of length 1 (m0 == 1,
// so s0 == 0 and l0 == n0): its index folds into the plane index `p = b * n0 + k0`. See
// `direct.rs` for the parameters (the same typed description as `direct.cu`) and the CPU twin.
//
// A block computes one tile of CT_TY x CT_TX outputs of one plane: it stages the input the
// tile reaches, (CT_TY + CT_M1 - 1) x (CT_TX + CT_M2 - 1) values, zero outside the plane, once
// in shared memory (each row read coalesced), beside the taps. Thread (tx, ty) then computes the
// CT_RY x CT_RX outputs of rows ty * CT_RY + r and columns tx * CT_RX + q: it walks the staged
// rows it reaches from the last to the first, keeps CT_RX + CT_M2 - 1 values of each in
// registers and adds every tap whose row meets that staged row to every output it owns. Every
// loop bound is a compile-time constant, so the register indices are too.
//
// Summation order: staged row `a` feeds output row `u` through tap row `j1 = u + CT_M1 - 1 - a`,
// so walking `a` downwards adds the tap rows of every output in ascending order, and within a
// tap row the taps go in ascending `j2`: per output, ascending j1, then ascending j2, each tap
// fused into one accumulator from zero (`fma(h, x, acc)`, rounded once), as the CPU twin sums
// this form. Taps that reach outside the plane add `h * 0`, which leaves a finite
// accumulator's bits unchanged (a sum started at +0 is never -0), where the twin skips them.
//
// Shared layout: column `c` of a staged row lives at `(c % CT_RX) * CT_SROW + c / CT_RX` of the
// row, so that a warp's reads of one register slot (columns `CT_RX * tx + i` for consecutive
// tx) are consecutive words; CT_SROW = 4 (mod 32) spreads a warp's staging of 32 consecutive
// columns over the banks. The finished tile goes through the same layout so that the stores
// are coalesced.
//
// Built after a typed header that defines `T` (float or double), `i64t`, and the constants
// CT_M1, CT_M2 (the kernel's extent, at least 1) and CT_BY (threads down the tile); a block has
// CT_BX * CT_BY threads.

constexpr int CT_BX = 32;
constexpr int CT_RX = 8;
constexpr int CT_RY = 4;
constexpr int CT_THREADS = CT_BX * CT_BY;
constexpr int CT_TX = CT_BX * CT_RX;
constexpr int CT_TY = CT_BY * CT_RY;
constexpr int CT_HX = CT_TX + CT_M2 - 1;
constexpr int CT_HY = CT_TY + CT_M1 - 1;
constexpr int CT_SLOTS = (CT_HX + CT_RX - 1) / CT_RX;
constexpr int CT_SROW = CT_SLOTS + ((4 - CT_SLOTS) % 32 + 32) % 32;
constexpr int CT_ROW = CT_RX * CT_SROW;
constexpr int CT_W = CT_RX + CT_M2 - 1;

// One tap: `h * x + acc` rounded once (the CPU twin's `mul_add` for this form), one instruction
// where the build's `--fmad=false` would otherwise issue a multiply and an add.
__device__ __forceinline__ float ct_fma(float h, float x, float acc) {
  return __fmaf_rn(h, x, acc);
}
__device__ __forceinline__ double ct_fma(double h, double x, double acc) {
  return __fma_rn(h, x, acc);
}

// Columns are never negative: unsigned so that `%` and `/` by CT_RX are a mask and a shift.
__device__ __forceinline__ int ct_at(unsigned c) {
  return (int)((c % CT_RX) * CT_SROW + c / CT_RX);
}

__device__ __forceinline__ void conv_tiled(const T *__restrict__ x, const T *__restrict__ h,
                                           T *__restrict__ y, i64t batch, i64t n0, i64t n1,
                                           i64t n2, i64t m0, i64t m1, i64t m2, i64t s0, i64t s1,
                                           i64t s2, i64t l0, i64t l1, i64t l2) {
  __shared__ T xs[CT_HY * CT_ROW];
  __shared__ T hs[CT_M1 * CT_M2];
  // The taps are the same for every tile.
  for (int q = threadIdx.x; q < CT_M1 * CT_M2; q += CT_THREADS) hs[q] = h[q];
  const int tx = threadIdx.x % CT_BX;
  const int ty = threadIdx.x / CT_BX;
  const i64t txs = (l2 + CT_TX - 1) / CT_TX;
  const i64t tys = (l1 + CT_TY - 1) / CT_TY;
  const i64t total = batch * n0 * tys * txs;
  for (i64t w = blockIdx.x; w < total; w += gridDim.x) {
    const i64t p = w / (tys * txs);
    const i64t rest = w - p * (tys * txs);
    const i64t oy = (rest / txs) * CT_TY;
    const i64t ox = (rest % txs) * CT_TX;
    // Staged element (a, c) is x[p, gy + a, gx + c]: output (u, v) of the tile and tap
    // (j1, j2) read staged (u + CT_M1 - 1 - j1, v + CT_M2 - 1 - j2).
    const i64t gy = oy + s1 - (CT_M1 - 1);
    const i64t gx = ox + s2 - (CT_M2 - 1);
    const T *xp = x + p * n1 * n2;
    // The rows and columns of the staged block inside the plane: [ay0, ay1) x [cx0, cx1).
    const int ay0 = gy < 0 ? (int)(-gy) : 0;
    const int ay1 = (int)(n1 - gy < CT_HY ? n1 - gy : CT_HY);
    const int cx0 = gx < 0 ? (int)(-gx) : 0;
    const int cx1 = (int)(n2 - gx < CT_HX ? n2 - gx : CT_HX);
    __syncthreads();
    for (int a = ty; a < CT_HY; a += CT_BY) {
      const bool row_in = a >= ay0 && a < ay1;
      const i64t ro = (gy + a) * n2 + gx;
      for (int c = tx; c < CT_HX; c += CT_BX) {
        xs[a * CT_ROW + ct_at(c)] = (row_in && c >= cx0 && c < cx1) ? xp[ro + c] : (T)0;
      }
    }
    __syncthreads();
    T acc[CT_RY][CT_RX];
#pragma unroll
    for (int r = 0; r < CT_RY; ++r)
#pragma unroll
      for (int q = 0; q < CT_RX; ++q) acc[r][q] = (T)0;
    // Staged rows ty * CT_RY + i for i from CT_RY + CT_M1 - 2 down to 0: output row r (of
    // this thread) meets tap row j1 = r + CT_M1 - 1 - i.
#pragma unroll
    for (int i = CT_RY + CT_M1 - 2; i >= 0; --i) {
      const T *row = xs + (ty * CT_RY + i) * CT_ROW;
      T v[CT_W];
#pragma unroll
      for (int k = 0; k < CT_W; ++k) v[k] = row[ct_at(tx * CT_RX + k)];
#pragma unroll
      for (int r = 0; r < CT_RY; ++r) {
        const int j1 = r + CT_M1 - 1 - i;
        if (j1 < 0 || j1 >= CT_M1) continue;
#pragma unroll
        for (int j2 = 0; j2 < CT_M2; ++j2) {
          const T hv = hs[j1 * CT_M2 + j2];
#pragma unroll
          for (int q = 0; q < CT_RX; ++q)
            acc[r][q] = ct_fma(hv, v[q + CT_M2 - 1 - j2], acc[r][q]);
        }
      }
    }
    // The tile through shared memory, stored coalesced.
    __syncthreads();
#pragma unroll
    for (int r = 0; r < CT_RY; ++r)
#pragma unroll
      for (int q = 0; q < CT_RX; ++q)
        xs[(ty * CT_RY + r) * CT_ROW + ct_at(tx * CT_RX + q)] = acc[r][q];
    __syncthreads();
    const int uy = (int)(l1 - oy < CT_TY ? l1 - oy : CT_TY);
    const int vx = (int)(l2 - ox < CT_TX ? l2 - ox : CT_TX);
    T *yp = y + (p * l1 + oy) * l2 + ox;
    for (int u = ty; u < uy; u += CT_BY) {
      for (int c = tx; c < vx; c += CT_BX) yp[(i64t)u * l2 + c] = xs[u * CT_ROW + ct_at(c)];
    }
  }
}
