// One pass of the exact Euclidean distance transform (Felzenszwalb and Huttenlocher's lower
// envelope of parabolas) along one axis: for every line (`outer x inner` lines of `n` values,
// value `i` of line (o, c) at `(o * n + i) * inner + c`), `d[q] = min_p (x_q - x_p)^2 + f[p]`
// with `x_p = p * s` (the sampling). The first pass reads the mask (`f` is 0 at background,
// EDT_INF elsewhere), later passes the previous squared distances; the last takes the square
// root. Values of EDT_INF or more take no part (a line without any gives EDT_INF).
//
// One thread a line, grid-stride; `v` (n ints) and `z` (n + 1 doubles) a line of scratch.
// Arithmetic goes through the `_rn` intrinsics so that no multiply-add is fused: the CPU twin
// (`morphology_edt.rs`) computes the same expressions in the same order and the backends
// agree exactly. EDT_INF is +infinity.
//
// Built after a typed header that defines `i64t`, `EDT_FIRST`, `EDT_LAST` and `EDT_INF`.

__device__ __forceinline__ double edt_f(const unsigned char *__restrict__ m,
                                        const double *__restrict__ g, i64t at) {
  if (EDT_FIRST) return m[at] ? EDT_INF : 0.0;
  return g[at];
}

__device__ __forceinline__ double edt_sq(double a) { return __dmul_rn(a, a); }

__device__ __forceinline__ void edt_pass(const unsigned char *__restrict__ m,
                                         const double *__restrict__ g, double *__restrict__ d,
                                         int *__restrict__ v, double *__restrict__ z,
                                         i64t outer, i64t n, i64t inner, double s) {
  const i64t lines = outer * inner;
  for (i64t line = (i64t)blockIdx.x * blockDim.x + threadIdx.x; line < lines;
       line += (i64t)gridDim.x * blockDim.x) {
    const i64t o = line / inner, c = line - o * inner;
    const i64t base = o * n * inner + c;
    int *vl = v + line * n;
    double *zl = z + line * (n + 1);
    i64t k = -1;
    for (i64t q = 0; q < n; ++q) {
      const double fq = edt_f(m, g, base + q * inner);
      if (!(fq < EDT_INF)) continue;
      const double xq = __dmul_rn((double)q, s);
      if (k < 0) {
        k = 0;
        vl[0] = (int)q;
        zl[0] = -EDT_INF;
        zl[1] = EDT_INF;
        continue;
      }
      // z[0] is -infinity and every sv is finite (s > 0, q > p), so k stays >= 0.
      double sv;
      for (;;) {
        const i64t p = vl[k];
        const double xp = __dmul_rn((double)p, s);
        const double fp = edt_f(m, g, base + p * inner);
        sv = __ddiv_rn(__dsub_rn(__dadd_rn(fq, edt_sq(xq)), __dadd_rn(fp, edt_sq(xp))),
                       __dmul_rn(2.0, __dsub_rn(xq, xp)));
        if (sv <= zl[k]) {
          --k;
        } else {
          break;
        }
      }
      ++k;
      vl[k] = (int)q;
      zl[k] = sv;
      zl[k + 1] = EDT_INF;
    }
    i64t j = 0;
    for (i64t q = 0; q < n; ++q) {
      double r = EDT_INF;
      if (k >= 0) {
        const double xq = __dmul_rn((double)q, s);
        while (j < k && zl[j + 1] < xq) ++j;
        const i64t p = vl[j];
        r = __dadd_rn(edt_sq(__dsub_rn(xq, __dmul_rn((double)p, s))), edt_f(m, g, base + p * inner));
      }
      if (EDT_LAST) r = __dsqrt_rn(r);
      d[base + q * inner] = r;
    }
  }
}
