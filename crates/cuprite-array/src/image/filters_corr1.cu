// One pass of a 1-d correlation along axis 1 of `batch` blocks of `n0 x n1 x n2` values, the
// taps by value (C1_M of the launch's `img_taps`, rounded to the working type): the pass of
// `filters_corr.cu` with `sym` nonzero, summed in the same order with the same operations
// (`img_madd`), so that the two agree bit for bit. C1_SYM: 1 symmetric taps (the centre tap,
// then the pairs `(v[t] + v[m - 1 - t]) w[t]` from the outermost in), -1 antisymmetric (the
// same with differences), 2 plain (the last tap, then the others in ascending order).
//
// One thread computes one output; consecutive threads take consecutive outputs along the last
// axis, so that the reads of a tap are coalesced. Taps whose input lies inside the line index
// it directly; the others map through `img_map` (the constant modes: `cval`).
//
// Built after `boundary.cu`, a typed header defining `T`, `C`, `img_ld`, `img_st`, `img_madd`
// (`filters_elem.rs`), `filters_taps.cu`, and C1_M (1 to IMG_TAPS) and C1_SYM.

__device__ __forceinline__ void img_correlate1(const T *__restrict__ x, const img_taps wt,
                                               T *__restrict__ y, i64t batch, i64t n0, i64t n1,
                                               i64t n2, i64t c1, i64t mode, double cval,
                                               double div) {
  constexpr int H = C1_M / 2;
  C w[C1_M];
#pragma unroll
  for (int j = 0; j < C1_M; ++j) w[j] = (C)wt.v[j];
  const i64t total = batch * n0 * n1 * n2;
  const C cv = (C)cval;
  for (i64t o = (i64t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (i64t)gridDim.x * blockDim.x) {
    const i64t k2 = o % n2;
    const i64t r = o / n2;
    const i64t k1 = r % n1;
    const T *xl = x + (r / n1) * n1 * n2 + k2;
    auto tap = [&](int j) -> C {
      const i64t i = k1 + j - c1;
      if (i >= 0 && i < n1) return img_ld(xl[i * n2]);
      const i64t m = img_map(i, n1, (int)mode);
      return m >= 0 ? img_ld(xl[m * n2]) : cv;
    };
    C acc;
    if (C1_SYM == 1 || C1_SYM == -1) {
      acc = tap(H) * w[H];
#pragma unroll
      for (int t = 0; t < H; ++t)
        acc = img_madd(acc, w[t],
                       C1_SYM == 1 ? tap(t) + tap(C1_M - 1 - t) : tap(t) - tap(C1_M - 1 - t));
    } else {
      acc = tap(C1_M - 1) * w[C1_M - 1];
#pragma unroll
      for (int t = 0; t < C1_M - 1; ++t) acc = img_madd(acc, w[t], tap(t));
    }
    if (div != 1.0) acc = acc / (C)div;
    y[o] = img_st(acc);
  }
}
