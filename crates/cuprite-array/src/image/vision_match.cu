// Template matching (ArrayFire's matchTemplate): out[b, y, x] is the metric between the template
// `tpl` (th x tw) and the window of image `b` whose top-left pixel is (y, x), pixels past the
// image's bottom and right edges taken as 0. One thread an output pixel, grid-stride. See
// `vision_kernels.rs` for the parameters (one typed description) and the CPU twin, which sums
// in the same order (template rows outermost, then columns).
//
// `method` codes (`MatchType::code`): 0 SAD, 1 ZSAD, 2 LSAD, 3 SSD, 4 ZSSD, 5 LSSD, 6 NCC,
// 7 ZNCC, 8 SHD. The means (Z*, L*) are over the th * tw window values, zeros included. NCC and
// ZNCC are normalised (1 at a match up to a positive scale); a zero denominator gives 0.
//
// Built after a typed header that defines `T` (float or double) and `i64t`.

__device__ __forceinline__ T vis_px(const T *__restrict__ im, i64t h, i64t w, i64t y, i64t x) {
  return (y < h && x < w) ? im[y * w + x] : (T)0;
}

__device__ __forceinline__ T vis_abs(T v) { return v < (T)0 ? -v : v; }

__device__ __forceinline__ void vis_match(const T *__restrict__ img, const T *__restrict__ tpl,
                                          T *__restrict__ out, i64t batch, i64t h, i64t w,
                                          i64t th, i64t tw, i64t method) {
  const i64t total = batch * h * w;
  const T n = (T)(th * tw);
  const bool means = method == 1 || method == 2 || method == 4 || method == 5 || method == 7;
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (i64t)gridDim.x * blockDim.x) {
    const i64t x = i % w;
    const i64t r = i / w;
    const i64t y = r % h;
    const T *im = img + (r / h) * h * w;
    T wm = (T)0, tm = (T)0;
    if (means) {
      for (i64t u = 0; u < th; ++u)
        for (i64t v = 0; v < tw; ++v) {
          wm += vis_px(im, h, w, y + u, x + v);
          tm += tpl[u * tw + v];
        }
      wm /= n;
      tm /= n;
    }
    const T scale = tm != (T)0 ? wm / tm : (T)0;
    T acc = (T)0, sa = (T)0, sb = (T)0;
    for (i64t u = 0; u < th; ++u)
      for (i64t v = 0; v < tw; ++v) {
        const T a = vis_px(im, h, w, y + u, x + v);
        const T b = tpl[u * tw + v];
        T d;
        switch (method) {
        case 0: acc += vis_abs(a - b); break;
        case 1: acc += vis_abs((a - wm) - (b - tm)); break;
        case 2: acc += vis_abs(a - scale * b); break;
        case 3: d = a - b; acc += d * d; break;
        case 4: d = (a - wm) - (b - tm); acc += d * d; break;
        case 5: d = a - scale * b; acc += d * d; break;
        case 6: acc += a * b; sa += a * a; sb += b * b; break;
        case 7: acc += (a - wm) * (b - tm); sa += (a - wm) * (a - wm); sb += (b - tm) * (b - tm); break;
        default: acc += a != b ? (T)1 : (T)0; break;
        }
      }
    if (method == 6 || method == 7) {
      const T den = sqrt(sa * sb);
      acc = den > (T)0 ? acc / den : (T)0;
    }
    out[i] = acc;
  }
}
