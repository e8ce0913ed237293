// SUSAN corner responses (Smith and Brady; ArrayFire's `susan`): for each pixel p of image `b` at
// least `edge` pixels from every border, the USAN area n = sum over the pixels c of the disc of
// `radius` (dx^2 + dy^2 <= radius^2, p included) of exp(-((c - p) / t)^6); the response is
// g - n where n < g, else 0. One thread an output pixel, grid-stride. See `vision_kernels.rs`
// for the parameters and the CPU twin (the same sum in the same order: rows, then columns).
//
// Built after a typed header that defines `T` and `i64t`.

__device__ __forceinline__ void vis_susan(const T *__restrict__ img, T *__restrict__ out,
                                          i64t batch, i64t h, i64t w, i64t radius, double t,
                                          double g, i64t edge) {
  const i64t total = batch * h * w;
  const T inv = (T)(1.0 / t);
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (i64t)gridDim.x * blockDim.x) {
    const i64t x = i % w;
    const i64t r = i / w;
    const i64t y = r % h;
    T resp = (T)0;
    if (x >= edge && y >= edge && x < w - edge && y < h - edge) {
      const T *im = img + (r / h) * h * w;
      const T p = im[y * w + x];
      T n = (T)0;
      for (i64t dy = -radius; dy <= radius; ++dy)
        for (i64t dx = -radius; dx <= radius; ++dx) {
          if (dx * dx + dy * dy > radius * radius) continue;
          const T d = (im[(y + dy) * w + x + dx] - p) * inv;
          const T d2 = d * d;
          n += exp(-(d2 * d2 * d2));
        }
      if (n < (T)g) resp = (T)g - n;
    }
    out[i] = resp;
  }
}
