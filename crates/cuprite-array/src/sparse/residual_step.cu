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
// counter that is zero at the launch.
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
  if (threadIdx.x == 0) y[n] = total;
}
