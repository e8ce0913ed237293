// A single f32 product of small operands, `out = post_scale * act(alpha * A * B + bias) +
// post_beta * post`, for the products
// whose time cuBLASLt's smallest kernels spend mostly waiting (`small.rs` says which): A is
// `m x k`, B is `k x n`, each addressed through a row and a column stride in elements (so
// row-major, column-major and transposed views are read in place), `out` is `m x n` row-major
// and packed, `bias` (when not null) holds `n` values, `act` is 0 (none), 1 (clamps below zero)
// or 2 (`tanhf`), `post` (when not null) is `m x n` row-major and packed.
//
// Block (x, y) computes the `SG_BM x SG_BN` tile of rows `[y * SG_BM, ...)` and columns
// `[x * SG_BN, ...)` (those below `m` and `n`). The contraction runs over chunks of `SG_KC`: a
// chunk of A's rows and B's columns is staged in shared memory, zeros past `m`, `n` and `k`
// (thread `t` stages index `t` of each of the tile's rows of A, and of B the elements
// `i * SG_THREADS + t` of the chunk's `SG_KC x SG_BN` row-major copy, every load issued before
// the first store so that their latencies overlap). Warp `w` of the `SG_WARPS` then takes the
// chunk's indices `[w * SG_KW, (w + 1) * SG_KW)`, lane `l` the tile's row `l / 4` and columns
// `4 (l % 4) .. 4 (l % 4) + 3`, accumulating in `float` over its indices in increasing order
// (the staged zeros add nothing). The warps' partial tiles are summed in warp order in shared
// memory, one thread an element. The order of every sum depends on the sizes only.

#define SG_BM 8
#define SG_BN 16
#define SG_KC 256
#define SG_WARPS 8
#define SG_THREADS (SG_WARPS * 32)
#define SG_KW (SG_KC / SG_WARPS)
// A's rows in shared memory are padded so that the lanes' rows fall in different banks.
#define SG_AP (SG_KC + 4)
#define SG_BPT (SG_KC * SG_BN / SG_THREADS)

static_assert(SG_KC == SG_THREADS, "a thread stages one index of each of A's rows");
static_assert(SG_BM * 4 == 32, "a warp's lanes are the tile's rows by four column quads");
static_assert(SG_WARPS * SG_BM * SG_BN <= SG_BM * SG_AP, "the partial tiles fit A's area");

__device__ __forceinline__ void small_gemm_f32(const float* __restrict__ a, const float* __restrict__ b,
                                               const float* __restrict__ bias,
                                               const float* __restrict__ post, float* __restrict__ out,
                                               i64t m, i64t n, i64t k, i64t sam, i64t sak, i64t sbk,
                                               i64t sbn, double alpha, i64t act, double post_scale,
                                               double post_beta) {
  __shared__ __align__(16) float as_[SG_BM * SG_AP];
  __shared__ __align__(16) float bs_[SG_KC * SG_BN];
  const int tid = (int)threadIdx.x;
  const int w = tid >> 5, l = tid & 31;
  const i64t r0 = (i64t)blockIdx.y * SG_BM, c0 = (i64t)blockIdx.x * SG_BN;
  const int rp = l >> 2, cq = (l & 3) * 4;
  // Rows of A and columns of B this block reads (the rest are staged as zeros).
  const int rows = m - r0 < SG_BM ? (int)(m - r0) : SG_BM;
  const int bc = tid % SG_BN, bk = tid / SG_BN;
  const bool cin = c0 + bc < n;
  // The epilogue's inputs of this thread's output (thread `tid < SG_BM * SG_BN` writes one),
  // loaded now so that their latency overlaps the contraction's.
  const i64t er = r0 + tid / SG_BN, ec = c0 + tid % SG_BN;
  const bool eout = tid < SG_BM * SG_BN && er < m && ec < n;
  const float ebias = (eout && bias) ? bias[ec] : 0.f;
  const float epost = (eout && post) ? post[er * n + ec] : 0.f;
  float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
  for (i64t k0 = 0; k0 < k; k0 += SG_KC) {
    if (k0 > 0) __syncthreads();
    float va[SG_BM], vb[SG_BPT];
    {
      const bool kin = k0 + tid < k;
      const float* pa = a + r0 * sam + (k0 + tid) * sak;
#pragma unroll
      for (int i = 0; i < SG_BM; ++i) {
        va[i] = (kin && i < rows) ? *pa : 0.f;
        pa += sam;
      }
      const i64t kb = k0 + bk;
      const float* pb = b + kb * sbk + (c0 + bc) * sbn;
      const i64t step = (i64t)(SG_THREADS / SG_BN) * sbk;
#pragma unroll
      for (int i = 0; i < SG_BPT; ++i) {
        vb[i] = (cin && kb + i * (SG_THREADS / SG_BN) < k) ? *pb : 0.f;
        pb += step;
      }
    }
#pragma unroll
    for (int i = 0; i < SG_BM; ++i) as_[i * SG_AP + tid] = va[i];
#pragma unroll
    for (int i = 0; i < SG_BPT; ++i) bs_[i * SG_THREADS + tid] = vb[i];
    __syncthreads();
    const float* xa = &as_[rp * SG_AP + w * SG_KW];
    const float* xb = &bs_[w * SG_KW * SG_BN + cq];
#pragma unroll
    for (int kk = 0; kk < SG_KW; kk += 4) {
      const float4 x = *reinterpret_cast<const float4*>(xa + kk);
      const float xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float4 y = *reinterpret_cast<const float4*>(xb + (kk + j) * SG_BN);
        acc0 = fmaf(xs[j], y.x, acc0);
        acc1 = fmaf(xs[j], y.y, acc1);
        acc2 = fmaf(xs[j], y.z, acc2);
        acc3 = fmaf(xs[j], y.w, acc3);
      }
    }
  }
  // The warps' partial tiles, summed in warp order (A's staging area holds them).
  __syncthreads();
  float* part = as_ + w * (SG_BM * SG_BN) + rp * SG_BN + cq;
  part[0] = acc0;
  part[1] = acc1;
  part[2] = acc2;
  part[3] = acc3;
  __syncthreads();
  if (eout) {
    float s = 0.f;
#pragma unroll
    for (int v = 0; v < SG_WARPS; ++v) s += as_[v * (SG_BM * SG_BN) + tid];
    float y = (float)alpha * s;
    if (bias) y += ebias;
    if (act == 1 && y < 0.f) y = 0.f;
    if (act == 2) y = tanhf(y);
    y *= (float)post_scale;
    if (post) y += (float)post_beta * epost;
    out[er * n + ec] = y;
  }
}
