// The rank filter of up to three axes, batched, with SciPy's boundary modes: `y[b, k]` is the
// value of rank RANK_R (0 the smallest) among `x~[b, k + d]` for the RANK_K footprint offsets
// `d` (`off`, three per element, already less the centre), where `x~` extends `x` as
// `img_map` says or is `cval` (already in the image's type) in the constant modes.
//
// With RANK_K up to RANK_REG the window lives in registers (the loops are unrolled with
// constant indices) and the rank is selected by RANK_R + 1 rounds of a min-selection from the
// bottom, or RANK_K - RANK_R rounds of a max-selection from the top, whichever is fewer; for
// the minimum and the maximum that is one linear scan. Outputs whose window lies inside the
// image read it through flat offsets staged in shared memory once per block. Larger windows
// count, for each element, the elements below and equal to it, without storing the window.
// Both give the value of rank RANK_R in the order `rank_lt`: `<` with NaN above every number
// and NaNs equal among themselves (the CPU twin selects in the same order). One thread
// computes one output.
//
// Built after `boundary.cu` and a typed header defining `T`, `C`, `img_ld`, `img_st`, RANK_K,
// RANK_R and RANK_REG.

// `a` before `b` in the order `<` with NaN above every number (NaNs are equal).
__device__ __forceinline__ bool rank_lt(C a, C b) { return a < b || (b != b && a == a); }

__device__ __forceinline__ C rank_at(const T *__restrict__ xb, const i64t *__restrict__ off,
                                     int e, i64t k0, i64t k1, i64t k2, i64t n0, i64t n1,
                                     i64t n2, int mode, bool inside, C cv) {
  const i64t d0 = off[3 * e], d1 = off[3 * e + 1], d2 = off[3 * e + 2];
  if (inside) return img_ld(xb[((k0 + d0) * n1 + k1 + d1) * n2 + k2 + d2]);
  const i64t i0 = img_map(k0 + d0, n0, mode), i1 = img_map(k1 + d1, n1, mode),
             i2 = img_map(k2 + d2, n2, mode);
  return (i0 >= 0 && i1 >= 0 && i2 >= 0) ? img_ld(xb[(i0 * n1 + i1) * n2 + i2]) : cv;
}

__device__ __forceinline__ void img_rank(const T *__restrict__ x, const i64t *__restrict__ off,
                                         T *__restrict__ y, i64t batch, i64t n0, i64t n1,
                                         i64t n2, i64t lo0, i64t lo1, i64t lo2, i64t hi0,
                                         i64t hi1, i64t hi2, i64t mode, double cval) {
  constexpr int KR = RANK_K <= RANK_REG ? RANK_K : 1;
  // The flat offsets of the footprint inside an image (for outputs whose window lies inside).
  __shared__ i64t flat[KR];
  if (RANK_K <= RANK_REG) {
    for (int e = threadIdx.x; e < KR; e += blockDim.x)
      flat[e] = (off[3 * e] * n1 + off[3 * e + 1]) * n2 + off[3 * e + 2];
    __syncthreads();
  }
  const i64t total = batch * n0 * n1 * n2;
  const C cv = (C)cval;
  for (i64t o = (i64t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (i64t)gridDim.x * blockDim.x) {
    const i64t k2 = o % n2;
    i64t r = o / n2;
    const i64t k1 = r % n1;
    r /= n1;
    const i64t k0 = r % n0;
    const T *xb = x + (r / n0) * n0 * n1 * n2;
    // Every offset lies in [lo, hi] along each axis.
    const bool inside = k0 + lo0 >= 0 && k0 + hi0 < n0 && k1 + lo1 >= 0 && k1 + hi1 < n1 &&
                        k2 + lo2 >= 0 && k2 + hi2 < n2;
    C res;
    if (RANK_K <= RANK_REG) {
      C v[KR];
      const T *xo = xb + (k0 * n1 + k1) * n2 + k2;
      if (inside) {
#pragma unroll
        for (int e = 0; e < KR; ++e) v[e] = img_ld(xo[flat[e]]);
      } else {
#pragma unroll
        for (int e = 0; e < KR; ++e)
          v[e] = rank_at(xb, off, e, k0, k1, k2, n0, n1, n2, (int)mode, false, cv);
      }
      if (RANK_R + 1 <= RANK_K - RANK_R) {
        // Min-selection: after round i, v[i] is the value of rank i.
#pragma unroll
        for (int i = 0; i <= RANK_R; ++i) {
#pragma unroll
          for (int j = i + 1; j < KR; ++j) {
            const C a = v[i], b = v[j];
            const bool s = rank_lt(b, a);
            v[i] = s ? b : a;
            v[j] = s ? a : b;
          }
        }
      } else {
        // Max-selection from the top: after round i, v[i] is the value of rank i.
#pragma unroll
        for (int i = KR - 1; i >= RANK_R; --i) {
#pragma unroll
          for (int j = 0; j < i; ++j) {
            const C a = v[i], b = v[j];
            const bool s = rank_lt(a, b);
            v[i] = s ? b : a;
            v[j] = s ? a : b;
          }
        }
      }
      res = v[RANK_R < KR ? RANK_R : 0];
    } else {
      res = cv;
      for (int e = 0; e < RANK_K; ++e) {
        const C a = rank_at(xb, off, e, k0, k1, k2, n0, n1, n2, (int)mode, inside, cv);
        int below = 0, same = 0;
        for (int f = 0; f < RANK_K; ++f) {
          const C b = rank_at(xb, off, f, k0, k1, k2, n0, n1, n2, (int)mode, inside, cv);
          below += rank_lt(b, a);
          same += !rank_lt(b, a) && !rank_lt(a, b);
        }
        if (below <= RANK_R && RANK_R < below + same) {
          res = a;
          break;
        }
      }
    }
    y[o] = img_st(res);
  }
}
