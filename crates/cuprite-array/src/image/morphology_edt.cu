// One pass of the exact Euclidean distance transform (Felzenszwalb and Huttenlocher's lower
// envelope of parabolas) along one axis: for every line (`outer x inner` lines of `n` values,
// value `i` of line (o, c) at `(o * n + i) * inner + c`), `d[q] = min_p (x_q - x_p)^2 + f[p]`
// with `x_p = p * s` (the sampling). The first pass reads the mask (`f` is 0 at background,
// EDT_INF elsewhere), later passes the previous squared distances; the last takes the square
// root. Values of EDT_INF or more take no part (a line without any gives EDT_INF).
//
// One thread a line (`edt_pass`), or one block a line (`edt_pass_block`, for few lines: the
// outputs evaluated by the whole block), grid-stride; `v` (n ints) and `z` (n + 1 doubles) a
// line of scratch.
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

// Builds the lower envelope of one line (values at `base + q * inner`, q < n) into `vl` (the
// parabolas' positions) and `zl` (where each begins; zl[k + 1] = EDT_INF), returning the index
// k of the last parabola, -1 when no value takes part.
__device__ __forceinline__ i64t edt_envelope(const unsigned char *__restrict__ m,
                                             const double *__restrict__ g, int *vl, double *zl,
                                             i64t base, i64t n, i64t inner, double s) {
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
  return k;
}

// The output of point q (at x_q = q s) on parabola j of the envelope (EDT_INF when k < 0).
__device__ __forceinline__ double edt_value(const unsigned char *__restrict__ m,
                                            const double *__restrict__ g, const int *vl,
                                            i64t base, i64t inner, double s, i64t k, i64t j,
                                            i64t q) {
  double r = EDT_INF;
  if (k >= 0) {
    const i64t p = vl[j];
    r = __dadd_rn(edt_sq(__dsub_rn(__dmul_rn((double)q, s), __dmul_rn((double)p, s))),
                  edt_f(m, g, base + p * inner));
  }
  if (EDT_LAST) r = __dsqrt_rn(r);
  return r;
}

// One thread a line: the envelope, then the outputs in order with the parabola index j
// advanced while the next parabola begins below x_q.
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
    const i64t k = edt_envelope(m, g, vl, zl, base, n, inner, s);
    i64t j = 0;
    for (i64t q = 0; q < n; ++q) {
      if (k >= 0) {
        const double xq = __dmul_rn((double)q, s);
        while (j < k && zl[j + 1] < xq) ++j;
      }
      d[base + q * inner] = edt_value(m, g, vl, base, inner, s, k, j, q);
    }
  }
}

// One block a line (lines grid-strided over blocks), for few lines: thread 0 builds the
// envelope, then every thread evaluates the outputs q = threadIdx.x, + blockDim.x, ... with
// j the first index in [0, k] whose next parabola begins at or above x_q (zl[j + 1] >= x_q),
// found by bisection. The zl[0..=k + 1] rise (each new start lies above the one before, and
// zl[k + 1] is EDT_INF), and x_q rises with q, so this is the j the scan of `edt_pass`
// reaches: both forms give identical values.
__device__ __forceinline__ void edt_pass_block(const unsigned char *__restrict__ m,
                                               const double *__restrict__ g,
                                               double *__restrict__ d, int *__restrict__ v,
                                               double *__restrict__ z, i64t outer, i64t n,
                                               i64t inner, double s) {
  __shared__ i64t top;
  const i64t lines = outer * inner;
  for (i64t line = blockIdx.x; line < lines; line += gridDim.x) {
    const i64t o = line / inner, c = line - o * inner;
    const i64t base = o * n * inner + c;
    int *vl = v + line * n;
    double *zl = z + line * (n + 1);
    if (threadIdx.x == 0) top = edt_envelope(m, g, vl, zl, base, n, inner, s);
    __syncthreads();
    const i64t k = top;
    for (i64t q = threadIdx.x; q < n; q += blockDim.x) {
      i64t j = 0;
      if (k >= 0) {
        const double xq = __dmul_rn((double)q, s);
        i64t hi = k;
        while (j < hi) {
          const i64t mid = (j + hi) / 2;
          if (zl[mid + 1] < xq) {
            j = mid + 1;
          } else {
            hi = mid;
          }
        }
      }
      d[base + q * inner] = edt_value(m, g, vl, base, inner, s, k, j, q);
    }
    // `top` and the line's scratch are not rewritten before every thread is done with them.
    __syncthreads();
  }
}
