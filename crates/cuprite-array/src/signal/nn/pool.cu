// Max and average pooling and their gradients over `planes` planes of `i0 i1 i2` values,
// windows of `k` taps, stride `st`, `pd` implicit padding on both sides (PyTorch's
// semantics). See `pool.rs` for the parameters and the CPU twin, which computes every value
// in the same order and so agrees to the bit.
//
// Window `q` along an axis starts at `q st - pd` and ends at `min(start + k, i + pd)` (the
// average's divisor with `count_include_pad`); the input it covers is that range clipped to
// `[0, i)`. The maximum scans the covered input in row-major order and keeps the first
// largest value, except that a NaN replaces whatever was kept (so the last NaN wins): PyTorch's
// rule; a window of `-inf` only keeps its first element.
//
// The gradients are gathers: a thread owns one input element and adds, over the windows that
// cover it in ascending row-major order, `dy[q] / divisor(q)` (average) or `dy[q]` when the
// element is window `q`'s maximum (recomputed). No atomics: every sum has one order.
//
// Threads: `x` over positions within a plane, `y` over planes, grid-stride loops; indices
// within a plane fit `int` (checked on the host). Built after a typed header defining `S`,
// `A`, `nn_ld`, `nn_st`, and `nn_neg_inf` (the working type's `-inf`).

struct NnWin {
  int lo[3];
  int hi[3];
  A div_pad;
  A div_in;
};

// The window of output `q`: the covered input `[lo, hi)` and both divisors.
__device__ __forceinline__ NnWin nn_window(const int q[3], const i64t i[3], const i64t k[3],
                                           const i64t st[3], const i64t pd[3]) {
  NnWin w;
  i64t pad_size = 1, in_size = 1;
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    const i64t start = (i64t)q[a] * st[a] - pd[a];
    i64t end = start + k[a];
    if (end > i[a] + pd[a]) end = i[a] + pd[a];
    pad_size *= end - start;
    const i64t lo = start < 0 ? 0 : start;
    const i64t hi = end > i[a] ? i[a] : end;
    in_size *= hi - lo;
    w.lo[a] = (int)lo;
    w.hi[a] = (int)hi;
  }
  w.div_pad = (A)pad_size;
  w.div_in = (A)in_size;
  return w;
}

// The position (within the plane) and value of the maximum of window `w` of plane `xp`.
__device__ __forceinline__ int nn_argmax(const S *__restrict__ xp, const NnWin &w, const i64t i[3],
                                         A *best) {
  int at = (w.lo[0] * (int)i[1] + w.lo[1]) * (int)i[2] + w.lo[2];
  A m = nn_neg_inf();
  for (int a0 = w.lo[0]; a0 < w.hi[0]; ++a0)
    for (int a1 = w.lo[1]; a1 < w.hi[1]; ++a1)
      for (int a2 = w.lo[2]; a2 < w.hi[2]; ++a2) {
        const int e = (a0 * (int)i[1] + a1) * (int)i[2] + a2;
        const A v = nn_ld(xp[e]);
        if (v > m || v != v) {
          m = v;
          at = e;
        }
      }
  *best = m;
  return at;
}

__device__ __forceinline__ void nn_pool(const S *__restrict__ x, S *__restrict__ y, i64t planes,
                                        i64t i0, i64t i1, i64t i2, i64t k0, i64t k1, i64t k2,
                                        i64t o0, i64t o1, i64t o2, i64t st0, i64t st1, i64t st2,
                                        i64t pd0, i64t pd1, i64t pd2, i64t avg,
                                        i64t include_pad) {
  const i64t i[3] = {i0, i1, i2}, k[3] = {k0, k1, k2}, st[3] = {st0, st1, st2},
             pd[3] = {pd0, pd1, pd2};
  const i64t P = o0 * o1 * o2;
  const i64t ip = i0 * i1 * i2;
  for (i64t p = (i64t)blockIdx.x * blockDim.x + threadIdx.x; p < P;
       p += (i64t)gridDim.x * blockDim.x) {
    const int pi = (int)p;
    const int q[3] = {pi / (int)o2 / (int)o1, pi / (int)o2 % (int)o1, pi % (int)o2};
    const NnWin w = nn_window(q, i, k, st, pd);
    for (i64t pl = (i64t)blockIdx.y * blockDim.y + threadIdx.y; pl < planes;
         pl += (i64t)gridDim.y * blockDim.y) {
      const S *xp = x + pl * ip;
      A r;
      if (avg) {
        A sum = (A)0;
        for (int a0 = w.lo[0]; a0 < w.hi[0]; ++a0)
          for (int a1 = w.lo[1]; a1 < w.hi[1]; ++a1)
            for (int a2 = w.lo[2]; a2 < w.hi[2]; ++a2)
              sum += nn_ld(xp[(a0 * (int)i1 + a1) * (int)i2 + a2]);
        r = sum / (include_pad ? w.div_pad : w.div_in);
      } else {
        nn_argmax(xp, w, i, &r);
      }
      y[pl * P + p] = nn_st(r);
    }
  }
}

// The windows along one axis that cover input `e`: `[*lo, *hi)`.
__device__ __forceinline__ void nn_cover(int e, i64t k, i64t st, i64t pd, i64t o, int *lo,
                                         int *hi) {
  const i64t u = (i64t)e + pd;
  const i64t first = u < k ? 0 : (u - k) / st + 1;
  i64t last = u / st;
  if (last > o - 1) last = o - 1;
  *lo = (int)first;
  *hi = (int)(last + 1);
}

__device__ __forceinline__ void nn_pool_grad(const S *__restrict__ x, const S *__restrict__ dy,
                                             S *__restrict__ dx, i64t planes, i64t i0, i64t i1,
                                             i64t i2, i64t k0, i64t k1, i64t k2, i64t o0, i64t o1,
                                             i64t o2, i64t st0, i64t st1, i64t st2, i64t pd0,
                                             i64t pd1, i64t pd2, i64t avg, i64t include_pad) {
  const i64t i[3] = {i0, i1, i2}, k[3] = {k0, k1, k2}, st[3] = {st0, st1, st2},
             pd[3] = {pd0, pd1, pd2}, o[3] = {o0, o1, o2};
  const i64t P = o0 * o1 * o2;
  const i64t ip = i0 * i1 * i2;
  for (i64t e = (i64t)blockIdx.x * blockDim.x + threadIdx.x; e < ip;
       e += (i64t)gridDim.x * blockDim.x) {
    const int ei = (int)e;
    const int ea[3] = {ei / (int)i2 / (int)i1, ei / (int)i2 % (int)i1, ei % (int)i2};
    int lo[3], hi[3];
#pragma unroll
    for (int a = 0; a < 3; ++a) nn_cover(ea[a], k[a], st[a], pd[a], o[a], &lo[a], &hi[a]);
    for (i64t pl = (i64t)blockIdx.y * blockDim.y + threadIdx.y; pl < planes;
         pl += (i64t)gridDim.y * blockDim.y) {
      const S *dyp = dy + pl * P;
      A acc = (A)0;
      for (int q0 = lo[0]; q0 < hi[0]; ++q0)
        for (int q1 = lo[1]; q1 < hi[1]; ++q1)
          for (int q2 = lo[2]; q2 < hi[2]; ++q2) {
            const int q[3] = {q0, q1, q2};
            const NnWin w = nn_window(q, i, k, st, pd);
            const A g = nn_ld(dyp[(q0 * (int)o1 + q1) * (int)o2 + q2]);
            if (avg) {
              acc += g / (include_pad ? w.div_pad : w.div_in);
            } else {
              A m;
              if (nn_argmax(x + pl * ip, w, i, &m) == ei) acc += g;
            }
          }
      dx[pl * ip + e] = nn_st(acc);
    }
  }
}
