// Grey dilation and erosion over a list of taps: `y[p] = max (or min) over taps t of x[p +
// d_t] + h_t` (dilation) or `x[p + d_t] - h_t` (erosion), every image of a batch of `batch`
// volumes `n0 x n1 x n2` (a 2-D image has n0 = 1). See `morphology_call.rs` for the taps (the
// reflection SciPy applies for dilation is already in the offsets) and the CPU twin, which
// visits the taps in the same order and compares the same way, so that both backends agree
// exactly (NaN included: a NaN first tap stays, a later NaN never replaces).
//
// One thread an output: blocks stride over the lines (grid y) and along them (grid x). A
// footprint of at most 32 taps is built into the kernel (MM_NT > 0): `MM_TAP` holds the
// offsets along the three axes and `MM_HGT` the heights, in constant memory, and `tap`, `h`
// are null; a larger one is read from `tap` (four words a tap: the offsets along the three
// axes and the linear one) and `h`. Where the whole footprint lies inside the volume (the
// interior, tested once per output against the reach `lo*`/`hi*` of the offsets), the value
// is read at the linear offset; elsewhere each coordinate goes through `img_map`
// (boundary.cu), and a constant-mode tap outside reads `cval` (already a value of the
// element type).
//
// Built after a typed header that defines `S` (the storage type), `A` (the compute type:
// float for u8, u16, f16 and f32, double for f64), MM_MAX (1 dilation, 0 erosion), MM_HEIGHTS
// (1 when heights are added), MM_HALF (1 when `S` holds f16 bits), MM_INT and MM_INT_MAX (an
// integer type and its largest value), MM_NT (the built-in tap count, or 0) with MM_TAP and
// MM_HGT when it is not 0, and after boundary.cu and morphology_elem.cu (`mm_load`,
// `mm_store`).

#if MM_NT > 0
#define MM_OFF(t, a) MM_TAP[t][a]
#define MM_LIN(t) (MM_TAP[t][0] * s12 + MM_TAP[t][1] * n2 + MM_TAP[t][2])
#define MM_H(t) MM_HGT[t]
#else
#define MM_OFF(t, a) tap[4 * (t) + (a)]
#define MM_LIN(t) __ldg(tap + 4 * (t) + 3)
#define MM_H(t) h[t]
#endif

__device__ __forceinline__ void morph_minmax(const S *__restrict__ x, const i64t *__restrict__ tap,
                                             const double *__restrict__ h, S *__restrict__ y,
                                             i64t ntaps, i64t batch, i64t n0, i64t n1, i64t n2,
                                             i64t lo0, i64t lo1, i64t lo2, i64t hi0, i64t hi1,
                                             i64t hi2, i64t mode, double cval) {
  const i64t s12 = n1 * n2;
  const i64t per = n0 * s12;
  const i64t lines = batch * n0 * n1;
  const A cv = (A)cval;
  // Blocks stride over the lines (grid y) and along a line (grid x), so that a thread's
  // coordinates come from one division a line.
  for (i64t line = blockIdx.y; line < lines; line += gridDim.y) {
    const i64t b = line / (n0 * n1);
    const i64t rl = line - b * n0 * n1;
    const i64t i0 = rl / n1;
    const i64t i1 = rl - i0 * n1;
    const S *xb = x + b * per;
    const bool rows_inside = i0 + lo0 >= 0 && i0 + hi0 < n0 && i1 + lo1 >= 0 && i1 + hi1 < n1;
    for (i64t i2 = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i2 < n2;
         i2 += (i64t)gridDim.x * blockDim.x) {
      const i64t r = rl * n2 + i2;
      const bool inside = rows_inside && i2 + lo2 >= 0 && i2 + hi2 < n2;
      A acc = (A)0;
#if MM_NT > 0
      const i64t nt = MM_NT;
#else
      const i64t nt = ntaps;
#endif
#pragma unroll
      for (i64t t = 0; t < nt; ++t) {
        A v;
        if (inside) {
          v = mm_load(__ldg(xb + r + MM_LIN(t)));
        } else {
          const i64t j0 = img_map(i0 + MM_OFF(t, 0), n0, (int)mode);
          const i64t j1 = img_map(i1 + MM_OFF(t, 1), n1, (int)mode);
          const i64t j2 = img_map(i2 + MM_OFF(t, 2), n2, (int)mode);
          v = (j0 < 0 || j1 < 0 || j2 < 0) ? cv : mm_load(xb[(j0 * n1 + j1) * n2 + j2]);
        }
        if (MM_HEIGHTS) v = MM_MAX ? v + (A)MM_H(t) : v - (A)MM_H(t);
        if (t == 0) {
          acc = v;
        } else if (MM_MAX ? (v > acc) : (v < acc)) {
          acc = v;
        }
      }
      y[b * per + r] = mm_store(acc);
    }
  }
}
