// Grey dilation or erosion by a flat full box over the last two axes of `planes` images of
// `h x w`, in one pass over memory: the extreme along the rows axis (MB_H taps), then along
// the columns axis (MB_W taps), as the two one-axis passes of `morphology.cu` compute it. Tap
// `t` of the rows pass reads the input at row offset MB_Y0 + t MB_DY, tap `t` of the columns
// pass the intermediate at column offset MB_X0 + t MB_DX (MB_DY, MB_DX are 1 or -1: the
// offsets of a full box are consecutive, in the order SciPy's reflection leaves them). Each
// pass keeps its first tap's value and replaces it only by a strictly larger (dilation) or
// smaller (erosion) one, in tap order, so NaN behaves as in the one-axis passes: a NaN first
// tap stays, a later NaN never replaces.
//
// A block of MB_THREADS threads takes one MB_TY x MB_TX tile of outputs at a time. The rows
// pass computes the intermediate for the tile's rows and for its columns widened by the
// columns pass's reach (MB_CW of them): a thread takes one column and MB_R consecutive rows,
// reading the MB_R + MB_H - 1 input values it needs (coalesced: neighbouring threads take
// neighbouring columns) into registers, and writes the MB_R extremes to shared memory. The
// columns pass then reads each output's MB_W intermediates from shared memory and stores the
// tile coalesced. The intermediate of a column outside the image is that of the column the
// boundary mode maps it to (the rows pass reads there), or `cval` throughout in the constant
// modes (every tap of it reads `cval`), as the one-axis columns pass reads it. The
// intermediate never leaves the compute type: each value is one of the image's values or
// `cval`, which the element type holds exactly, so the storing and reloading between the
// one-axis passes changes nothing.
//
// Built after the typed header of `morphology_call.rs` (`S`, `A`, MM_MAX and the element
// helpers' constants), constants MB_H, MB_W, MB_Y0, MB_DY, MB_X0, MB_DX, boundary.cu and
// morphology_elem.cu.

constexpr int MB_TX = 64, MB_TY = 32, MB_R = 8, MB_THREADS = 256;
// The smallest row and column offsets of the taps.
constexpr int MB_LO1 = MB_DY > 0 ? MB_Y0 : MB_Y0 - (MB_H - 1);
constexpr int MB_LO2 = MB_DX > 0 ? MB_X0 : MB_X0 - (MB_W - 1);
// Columns of the intermediate a tile needs, and the register window of a rows-pass thread.
constexpr int MB_CW = MB_TX + MB_W - 1;
constexpr int MB_V = MB_R + MB_H - 1;

// Whether `v` replaces the running extreme `acc`.
__device__ __forceinline__ bool mb_better(A v, A acc) { return MM_MAX ? v > acc : v < acc; }

__device__ __forceinline__ void morph_box2(const S *__restrict__ x, S *__restrict__ y,
                                           i64t planes, i64t h, i64t w, i64t mode,
                                           double cval) {
  __shared__ A mid[MB_TY * MB_CW];
  const A cv = (A)cval;
  const int tid = threadIdx.x;
  const i64t tn_y = (h + MB_TY - 1) / MB_TY, tn_x = (w + MB_TX - 1) / MB_TX;
  const i64t total = planes * tn_y * tn_x;
  for (i64t t = blockIdx.x; t < total; t += gridDim.x) {
    const i64t tx0 = (t % tn_x) * MB_TX;
    const i64t r = t / tn_x;
    const i64t ty0 = (r % tn_y) * MB_TY;
    const i64t plane = r / tn_y;
    const S *xb = x + plane * h * w;
    S *yb = y + plane * h * w;
    // Every read of the tile inside the image: no boundary mapping.
    const bool interior = ty0 + MB_LO1 >= 0 && ty0 + MB_TY - 1 + MB_LO1 + MB_H - 1 < h &&
                          tx0 + MB_LO2 >= 0 && tx0 + MB_CW - 1 + MB_LO2 < w;
    // The previous tile's columns pass is done with `mid`.
    __syncthreads();
    for (int q = tid; q < MB_CW * (MB_TY / MB_R); q += MB_THREADS) {
      const int c = q % MB_CW, g = q / MB_CW;
      const i64t gx = tx0 + MB_LO2 + c;
      const i64t row0 = ty0 + g * MB_R + MB_LO1;
      A v[MB_V];
      if (interior) {
        const S *p = xb + row0 * w + gx;
#pragma unroll
        for (int j = 0; j < MB_V; ++j) v[j] = mm_load(p[j * w]);
      } else {
        const i64t jx = img_map(gx, w, (int)mode);
#pragma unroll
        for (int j = 0; j < MB_V; ++j) {
          const i64t jy = img_map(row0 + j, h, (int)mode);
          v[j] = (jx < 0 || jy < 0) ? cv : mm_load(xb[jy * w + jx]);
        }
      }
#pragma unroll
      for (int p = 0; p < MB_R; ++p) {
        A acc = v[p + MB_Y0 - MB_LO1];
#pragma unroll
        for (int k = 1; k < MB_H; ++k) {
          const A u = v[p + MB_Y0 + k * MB_DY - MB_LO1];
          if (mb_better(u, acc)) acc = u;
        }
        mid[(g * MB_R + p) * MB_CW + c] = acc;
      }
    }
    __syncthreads();
    for (int q = tid; q < MB_TX * MB_TY; q += MB_THREADS) {
      const int c = q % MB_TX, rr = q / MB_TX;
      const i64t oy = ty0 + rr, ox = tx0 + c;
      if (oy >= h || ox >= w) continue;
      const A *m = mid + rr * MB_CW + c - MB_LO2;
      A acc = m[MB_X0];
#pragma unroll
      for (int k = 1; k < MB_W; ++k) {
        const A u = m[MB_X0 + k * MB_DX];
        if (mb_better(u, acc)) acc = u;
      }
      yb[oy * w + ox] = mm_store(acc);
    }
  }
}
