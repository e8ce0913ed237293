// FAST corner scores (Rosten and Drummond; ArrayFire's `fast`): for each pixel p of image `b`
// at least `edge` pixels from every border, the 16 pixels of the Bresenham circle of radius 3
// (offsets FAST_DX, FAST_DY, in order round the circle, from the typed header) are brighter when
// above p + thr and darker when below p - thr. p is a corner when `arc` or more consecutive
// circle pixels (circularly) are all brighter or all darker; its score is then the larger of
// sum(c - p - thr) over the brighter and sum(p - c - thr) over the darker pixels, else 0.
// One thread an output pixel, grid-stride. See `vision_kernels.rs` for the parameters and the
// CPU twin (the same sums in the same order).
//
// Built after a typed header that defines `T`, `i64t` and the circle FAST_DX[16], FAST_DY[16].

// Whether the 16-bit circular mask `m` has a run of `arc` (1..=16) set bits.
__device__ __forceinline__ bool fast_run(unsigned m, int arc) {
  const unsigned m2 = m | (m << 16);
  unsigned r = m2;
  for (int k = 1; k < arc; ++k) r &= m2 >> k;
  return (r & 0xFFFFu) != 0u;
}

__device__ __forceinline__ void vis_fast(const T *__restrict__ img, T *__restrict__ out,
                                         i64t batch, i64t h, i64t w, double thr, i64t arc,
                                         i64t edge) {
  const i64t total = batch * h * w;
  const T t = (T)thr;
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (i64t)gridDim.x * blockDim.x) {
    const i64t x = i % w;
    const i64t r = i / w;
    const i64t y = r % h;
    T score = (T)0;
    if (x >= edge && y >= edge && x < w - edge && y < h - edge) {
      const T *im = img + (r / h) * h * w;
      const T p = im[y * w + x];
      unsigned bright = 0u, dark = 0u;
      T sb = (T)0, sd = (T)0;
      for (int k = 0; k < 16; ++k) {
        const T c = im[(y + FAST_DY[k]) * w + x + FAST_DX[k]];
        if (c > p + t) {
          bright |= 1u << k;
          sb += c - p - t;
        } else if (c < p - t) {
          dark |= 1u << k;
          sd += p - c - t;
        }
      }
      if (fast_run(bright, (int)arc) || fast_run(dark, (int)arc)) score = sb > sd ? sb : sd;
    }
    out[i] = score;
  }
}
