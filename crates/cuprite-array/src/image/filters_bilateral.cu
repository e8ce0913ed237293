// ArrayFire's bilateral filter of the last two axes, batched: each output is the mean of the
// (2 radius + 1)^2 window around it, weighted by `exp(-(dy^2 + dx^2) / (2 svar) - (c - v)^2 /
// (2 cvar))` with `c` the centre value, edges extended with the nearest value. Summed with the
// row offset outermost and the column offset inner, as ArrayFire's CPU kernel and the CPU
// twin (`filters_bilateral.rs`) do. One thread computes one output.
//
// Built after a typed header defining `T`, `C`, `img_ld` and `O` (the output type).

__device__ __forceinline__ float bl_exp(float v) { return expf(v); }
__device__ __forceinline__ double bl_exp(double v) { return exp(v); }

__device__ __forceinline__ void img_bilateral(const T *__restrict__ x, O *__restrict__ y,
                                              i64t batch, i64t h, i64t w, i64t radius,
                                              double svar, double cvar) {
  const i64t total = batch * h * w;
  const C ks = (C)(-0.5 / svar), kc = (C)(-0.5 / cvar);
  for (i64t o = (i64t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (i64t)gridDim.x * blockDim.x) {
    const i64t j = o % w;
    const i64t i = (o / w) % h;
    const T *xb = x + (o / (h * w)) * h * w;
    const C c = img_ld(xb[i * w + j]);
    C norm = (C)0, res = (C)0;
    for (i64t dy = -radius; dy <= radius; ++dy) {
      const i64t ti = i + dy < 0 ? 0 : (i + dy >= h ? h - 1 : i + dy);
      for (i64t dx = -radius; dx <= radius; ++dx) {
        const i64t tj = j + dx < 0 ? 0 : (j + dx >= w ? w - 1 : j + dx);
        const C v = img_ld(xb[ti * w + tj]);
        const C wt = bl_exp((C)(dy * dy + dx * dx) * ks + (c - v) * (c - v) * kc);
        norm += wt;
        res += v * wt;
      }
    }
    y[o] = (O)(res / norm);
  }
}
