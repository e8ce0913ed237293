// ArrayFire's mean-shift smoothing of the last two axes, batched (one channel): each pixel
// starts a window of half-width `radius` at itself with its own value as the centre; each
// round takes the pixels of the window inside the image whose value lies within `sqrt(cvar)`
// of the centre, moves the window to their mean position (truncated) and the centre to their
// mean value (truncated for integer images), and stops after `iters` rounds, when no pixel
// qualifies, or when the position and value moved by at most 1 in all (`|di| + |dj| +
// (value change)^2 <= 1`). The output is the final centre. Rows outer, columns inner, as the
// CPU twin (`filters_meanshift.rs`). One thread computes one output.
//
// Built after a typed header defining `T`, `C`, `img_ld`, `img_st`, and MS_INT (whether the
// image holds integers).

__device__ __forceinline__ void img_meanshift(const T *__restrict__ x, T *__restrict__ y,
                                              i64t batch, i64t h, i64t w, i64t radius,
                                              double cvar, i64t iters) {
  const i64t total = batch * h * w;
  const C cv = (C)cvar;
  for (i64t o = (i64t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (i64t)gridDim.x * blockDim.x) {
    const i64t j0 = o % w;
    const i64t i0 = (o / w) % h;
    const T *xb = x + (o / (h * w)) * h * w;
    i64t pi = i0, pj = j0;
    C centre = img_ld(xb[i0 * w + j0]);
    for (i64t it = 0; it < iters; ++it) {
      i64t count = 0, si = 0, sj = 0;
      C sum = (C)0;
      for (i64t di = -radius; di <= radius; ++di) {
        const i64t ti = pi + di;
        if (ti < 0 || ti >= h) continue;
        for (i64t dj = -radius; dj <= radius; ++dj) {
          const i64t tj = pj + dj;
          if (tj < 0 || tj >= w) continue;
          const C v = img_ld(xb[ti * w + tj]);
          if ((centre - v) * (centre - v) <= cv) {
            sum += v;
            si += ti;
            sj += tj;
            ++count;
          }
        }
      }
      if (count == 0) break;
      const i64t ni = si / count, nj = sj / count;
      C mean = sum / (C)count;
      if (MS_INT) mean = (C)trunc((double)mean);
      const C dv = centre - mean;
      const bool stop = (ni == pi && nj == pj) ||
                        (C)((ni > pi ? ni - pi : pi - ni) + (nj > pj ? nj - pj : pj - nj)) + dv * dv <=
                            (C)1;
      pi = ni;
      pj = nj;
      centre = img_ld(img_st(mean));
      if (stop) break;
    }
    y[o] = img_st(centre);
  }
}
