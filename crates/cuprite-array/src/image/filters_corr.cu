// The N-d correlation of image filters over up to three axes, batched, with SciPy's boundary
// modes: `y[b, k] = (sum_j w[j] * x~[b, k + j - c]) / div`, where `x~` extends `x` past its
// edges as `img_map` says (or is `cval` in the constant modes) and `c` is the weights' centre
// along each axis (`m / 2 + origin`). See `filters_corr.rs` for the parameters and the CPU twin, which sums in the same
// order.
//
// A 1-d pass (`sym` nonzero: weights along axis 1 only) sums in the order of SciPy's
// `correlate1d`, so that integer results truncate as SciPy's do: `sym` 1 (symmetric taps) the
// centre tap, then the pairs `(v[t] + v[m - 1 - t]) w[t]` from the outermost in; -1
// (antisymmetric) the same with differences; 2 the last tap, then the others in ascending
// order. With `sym` 0 the n-d sum runs over the weights in row-major order, leaving out weights
// of `|w| <= DBL_EPSILON` as SciPy's n-d `correlate` does.
//
// One thread computes one output; consecutive threads take consecutive outputs along the last
// axis, so that the reads of a tap are coalesced. Interior outputs (every tap inside the
// image) index directly; the others map each axis once per weight line.
//
// Built after `boundary.cu` and a typed header defining `T` (storage), `C` (working type),
// `img_ld`, `img_st`, `img_madd` (`filters_elem.rs`).

__device__ __forceinline__ void img_correlate(const T *__restrict__ x, const C *__restrict__ w,
                                              T *__restrict__ y, i64t batch, i64t n0, i64t n1,
                                              i64t n2, i64t m0, i64t m1, i64t m2, i64t c0,
                                              i64t c1, i64t c2, i64t mode, double cval,
                                              double div, i64t sym) {
  const i64t total = batch * n0 * n1 * n2;
  const C cv = (C)cval;
  for (i64t o = (i64t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (i64t)gridDim.x * blockDim.x) {
    const i64t k2 = o % n2;
    i64t r = o / n2;
    const i64t k1 = r % n1;
    r /= n1;
    const i64t k0 = r % n0;
    const i64t b = r / n0;
    const T *xb = x + b * n0 * n1 * n2;
    if (sym != 0) {
      // The taps along axis 1: input index k1 + j - c1 of the line (k0, ., k2).
      const T *xl = xb + k0 * n1 * n2 + k2;
      auto tap = [&](i64t j) -> C {
        const i64t i = img_map(k1 + j - c1, n1, (int)mode);
        return i >= 0 ? img_ld(xl[i * n2]) : cv;
      };
      C acc;
      const i64t hm = m1 / 2;
      if (sym == 1 || sym == -1) {
        acc = tap(hm) * w[hm];
        for (i64t t = 0; t < hm; ++t)
          acc = img_madd(acc, w[t], sym == 1 ? tap(t) + tap(m1 - 1 - t) : tap(t) - tap(m1 - 1 - t));
      } else {
        acc = tap(m1 - 1) * w[m1 - 1];
        for (i64t t = 0; t < m1 - 1; ++t) acc = img_madd(acc, w[t], tap(t));
      }
      if (div != 1.0) acc = acc / (C)div;
      y[o] = img_st(acc);
      continue;
    }
    const bool inside = k0 - c0 >= 0 && k0 - c0 + m0 <= n0 && k1 - c1 >= 0 &&
                        k1 - c1 + m1 <= n1 && k2 - c2 >= 0 && k2 - c2 + m2 <= n2;
    C acc = (C)0;
    for (i64t j0 = 0; j0 < m0; ++j0) {
      const i64t i0 = inside ? k0 + j0 - c0 : img_map(k0 + j0 - c0, n0, (int)mode);
      for (i64t j1 = 0; j1 < m1; ++j1) {
        const i64t i1 = inside ? k1 + j1 - c1 : img_map(k1 + j1 - c1, n1, (int)mode);
        const C *wl = w + (j0 * m1 + j1) * m2;
        const T *xl = xb + (i0 * n1 + i1) * n2;
        const bool line = i0 >= 0 && i1 >= 0;
        for (i64t j2 = 0; j2 < m2; ++j2) {
          const C wv = wl[j2];
          if (fabs((double)wv) <= 2.220446049250313e-16) continue;
          C v;
          if (inside) {
            v = img_ld(xl[k2 + j2 - c2]);
          } else {
            const i64t i2 = img_map(k2 + j2 - c2, n2, (int)mode);
            v = (line && i2 >= 0) ? img_ld(xl[i2]) : cv;
          }
          acc = img_madd(acc, wv, v);
        }
      }
    }
    if (div != 1.0) acc = acc / (C)div;
    y[o] = img_st(acc);
  }
}
