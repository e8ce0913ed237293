// The residual step of an unpreconditioned conjugate gradient iteration and its squared norm in
// one pass: with q = num / den (q = 0 where den == 0, the solvers' guarded division),
// y[i] = a[i] - b[i] * q for i < n, and y[n] = the sum of y[i] * y[i]. Every operation is
// rounded on its own (the explicit `_rn` intrinsics below, whatever the build's contraction
// flag), in the order of the CPU twin (`residual_step.rs`):
// - q = num / den, then per element t = b[i] * q and y[i] = a[i] - t;
// - the sum: thread t of block g adds y[i] * y[i] from zero for its elements i = g * RS_BLOCK +
//   t, + gridDim.x * RS_BLOCK, ...; each block halves its RS_BLOCK sums (s[j] = s[j] + s[j + h]
//   for h = RS_BLOCK / 2, ..., 1) into its partial; the last block to finish adds partial t,
//   t + RS_BLOCK, ... from zero in thread t and halves those sums the same way. This is the
//   order of the CSR-stream SpMV's dot (`csr_product.cu`) for a grid of the same size.
//
// The grid is at most a fixed number of blocks (`MAX_GRID` in `residual_step.rs`); threads take
// their elements by the grid stride above.
//
// The CG step (`cg_update`, `cg_fused`) goes on from there: with q as above and
// be = rr / num (0 where num == 0), where rr = y[n], it writes x'[i] = x[i] + p[i] * q to
// y[s + i] and p'[i] = y[i] + p[i] * be to y[2s + i] (s >= n + 1, a multiple of the 32
// elements that keep each vector's start aligned like the buffer's), each product and sum
// rounded on its own. `cg_update` does that after the residual step's launch; `cg_fused` does both in one
// cooperative launch (see there), in the same order, so both give the same bits.
//
// Built after a typed header that defines `i64t`, `T` (float or double), RS_BLOCK (the threads
// a block, a power of two of at least 32, which the launch must match) and RS_UNROLL (the
// elements a thread loads at once, at least 1).

__device__ __forceinline__ float rs_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double rs_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float rs_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double rs_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float rs_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double rs_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float rs_div(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double rs_div(double a, double b) { return __ddiv_rn(a, b); }

// The sum of the RS_BLOCK values `v` of the block's threads by halving, in every thread. Every
// thread of the block calls it (it holds barriers); `sh` holds RS_BLOCK values.
__device__ __forceinline__ T rs_block_halve(T *sh, T v) {
  const int t = threadIdx.x;
  // Earlier readers of `sh` are done before it is written.
  __syncthreads();
  sh[t] = v;
  __syncthreads();
  for (int h = RS_BLOCK / 2; h > 0; h >>= 1) {
    if (t < h) sh[t] = rs_add(sh[t], sh[t + h]);
    __syncthreads();
  }
  return sh[0];
}

// `num` and `den` hold one element each, `y` n + 1, `part` gridDim.x partials and `count` one
// counter that is zero at the launch (and left zero).
__device__ __forceinline__ void residual_step(const T *__restrict__ a, const T *__restrict__ b,
                                              const T *__restrict__ num,
                                              const T *__restrict__ den, T *__restrict__ y,
                                              T *part, unsigned *count, i64t n) {
  __shared__ T sums[RS_BLOCK];
  __shared__ int last;
  const T d = *den;
  const T q = d != (T)0 ? rs_div(*num, d) : (T)0;
  T s = (T)0;
  const i64t stride = (i64t)gridDim.x * RS_BLOCK;
  i64t i = (i64t)blockIdx.x * RS_BLOCK + threadIdx.x;
  // RS_UNROLL elements a round, their loads issued together; the sum still takes them in
  // ascending order.
  for (; i + (RS_UNROLL - 1) * stride < n; i += RS_UNROLL * stride) {
    T av[RS_UNROLL], bv[RS_UNROLL];
#pragma unroll
    for (int u = 0; u < RS_UNROLL; ++u) {
      av[u] = a[i + u * stride];
      bv[u] = b[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < RS_UNROLL; ++u) {
      const T v = rs_sub(av[u], rs_mul(bv[u], q));
      y[i + u * stride] = v;
      s = rs_add(s, rs_mul(v, v));
    }
  }
  for (; i < n; i += stride) {
    const T v = rs_sub(a[i], rs_mul(b[i], q));
    y[i] = v;
    s = rs_add(s, rs_mul(v, v));
  }
  const T mine = rs_block_halve(sums, s);
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
  for (unsigned i = threadIdx.x; i < gridDim.x; i += RS_BLOCK) v = rs_add(v, __ldcg(part + i));
  const T total = rs_block_halve(sums, v);
  if (threadIdx.x == 0) {
    y[n] = total;
    // Every block has counted: the counter goes back to zero for the next launch.
    *count = 0u;
  }
}

// q = num / den, 0 where den == 0 (the solvers' guarded division).
__device__ __forceinline__ T cg_quot(T num, T den) { return den != (T)0 ? rs_div(num, den) : (T)0; }

// x' = x + p * q and p' = r1 + p * be into y (see the top) for element i.
__device__ __forceinline__ void cg_xp(T *__restrict__ y, i64t s, i64t i, T r1, T x, T p, T q,
                                      T be) {
  y[s + i] = rs_add(x, rs_mul(p, q));
  y[2 * s + i] = rs_add(r1, rs_mul(p, be));
}

// The CG step after the residual step's launch: y[..n] holds r', y[n] its squared norm; `x` and
// `p` hold n elements, `num` and `den` one each; y holds 2s + n. Any grid.
__device__ __forceinline__ void cg_update(const T *__restrict__ x, const T *__restrict__ p,
                                          const T *__restrict__ num, const T *__restrict__ den,
                                          T *__restrict__ y, i64t n, i64t s) {
  const T q = cg_quot(*num, *den);
  const T be = cg_quot(y[n], *num);
  const i64t stride = (i64t)gridDim.x * blockDim.x;
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    cg_xp(y, s, i, y[i], x[i], p[i], q, be);
}

// Virtual blocks of the residual step's grid a block of the fused step takes, and the elements
// a thread of one virtual block keeps in registers across the grid barrier.
#define CG_VB 2
#define CG_K 4

// A barrier of the whole grid, for a cooperative launch (every block resident): bar[0] counts
// the blocks that arrived, bar[1] those that left; both are zero at the launch, and the last
// block to leave sets both back to zero (every block has stopped reading bar[0] by then).
// Writes before the barrier are visible to every block after it.
__device__ __forceinline__ void cg_grid_barrier(unsigned *bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(bar, 1u);
    while (*(volatile unsigned *)bar < gridDim.x) {
    }
    __threadfence();
    if (atomicAdd(bar + 1, 1u) == gridDim.x - 1) {
      atomicExch(bar, 0u);
      atomicExch(bar + 1, 0u);
    }
  }
  __syncthreads();
}

// The residual step and the CG step in one cooperative launch. The residual step's grid of
// `vgrid` blocks is virtual: block b takes virtual blocks b and b + gridDim.x (gridDim.x *
// CG_VB >= vgrid), and each thread keeps its at most CG_K elements of each (n <= CG_K * vgrid *
// RS_BLOCK) in registers. Each virtual block's partial of the norm is the residual step's; after
// the grid barrier every block adds the partials in the residual step's last-block order, so
// every block holds the same norm, and steps x and p from the kept residuals. `part` holds
// vgrid partials, `bar` two counters zero at the launch (left zero); y holds 2s + n.
__device__ __forceinline__ void cg_fused(const T *__restrict__ a, const T *__restrict__ b,
                                         const T *__restrict__ num, const T *__restrict__ den,
                                         const T *__restrict__ x, const T *__restrict__ p,
                                         T *__restrict__ y, T *part, unsigned *bar, i64t n,
                                         i64t s, unsigned vgrid) {
  __shared__ T sums[RS_BLOCK];
  const T q = cg_quot(*num, *den);
  const i64t stride = (i64t)vgrid * RS_BLOCK;
  T keep[CG_VB][CG_K];
#pragma unroll
  for (int h = 0; h < CG_VB; ++h) {
    // The same in every thread of the block: the halving's barriers are reached by all.
    const unsigned v = blockIdx.x + h * gridDim.x;
    T s = (T)0;
#pragma unroll
    for (int u = 0; u < CG_K; ++u) {
      const i64t i = (i64t)v * RS_BLOCK + threadIdx.x + u * stride;
      keep[h][u] = (T)0;
      if (v < vgrid && i < n) {
        const T w = rs_sub(a[i], rs_mul(b[i], q));
        y[i] = w;
        keep[h][u] = w;
        s = rs_add(s, rs_mul(w, w));
      }
    }
    if (v < vgrid) {
      const T mine = rs_block_halve(sums, s);
      if (threadIdx.x == 0) part[v] = mine;
    }
  }
  cg_grid_barrier(bar);
  T t = (T)0;
  for (unsigned j = threadIdx.x; j < vgrid; j += RS_BLOCK) t = rs_add(t, __ldcg(part + j));
  const T rr = rs_block_halve(sums, t);
  const T be = cg_quot(rr, *num);
#pragma unroll
  for (int h = 0; h < CG_VB; ++h) {
    const unsigned v = blockIdx.x + h * gridDim.x;
#pragma unroll
    for (int u = 0; u < CG_K; ++u) {
      const i64t i = (i64t)v * RS_BLOCK + threadIdx.x + u * stride;
      if (v < vgrid && i < n) cg_xp(y, s, i, keep[h][u], x[i], p[i], q, be);
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) y[n] = rr;
}
