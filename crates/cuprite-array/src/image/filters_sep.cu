// A separable filter of the last two axes of a batch of images in one pass over memory: the
// correlation along the rows axis (`wy`, SEP_MY taps, centre `cy`) and along the columns
// axis (`wx`, SEP_MX taps, centre `cx`), one after the other in SciPy's order (rows first
// unless SEP_XFIRST), each divided by its `div`. As SciPy stores the first pass's result in
// the image's type before the second reads it, the intermediate goes through `img_st` and
// back, and the second pass sees the intermediate extended by the boundary mode: with the
// constant modes, intermediate values outside the image are `cval` itself. The CPU twin is
// two passes of the n-d correlation (`filters_corr.rs`), which sum in the same tap order.
//
// Each pass sums its taps in the order of SciPy's `correlate1d` (so that integer results
// truncate as SciPy's do): with symmetric taps (SEP_SYMY/SEP_SYMX = 1) the centre tap, then the
// pairs `(v[t] + v[m - 1 - t]) w[t]` from the outermost in; antisymmetric (-1) the same with
// differences; otherwise (0) the last tap, then the others in ascending order.
//
// A block of SEP_THREADS (256) threads filters one SEP_T x SEP_T (32 x 32) output tile at a
// time. It stages the input tile with its halo in shared memory (rows of odd stride `sw`,
// mapped by `img_map`), runs the first pass into a shared intermediate and the second pass
// into a staged output tile, then stores it coalesced. Each thread computes SEP_R (4)
// consecutive outputs of a pass from SEP_R + taps - 1 values it holds in registers, with the
// taps in registers too; in each pass
// the 32 lanes of a warp walk 32 different rows or columns, so with odd row strides their
// reads hit 32 banks.
//
// Built after `boundary.cu` and a typed header defining `T`, `C`, `img_ld`, `img_st`,
// `img_madd` (`filters_elem.rs`), SEP_MY, SEP_MX, SEP_SYMY, SEP_SYMX and SEP_XFIRST.

constexpr int SEP_T = 32;
constexpr int SEP_R = 4;
constexpr int SEP_THREADS = 256;
constexpr int SEP_G = SEP_T / SEP_R;

// Output `p` of a thread's SEP_R from its values `v` (output p's taps are v[p .. p + M - 1]).
template <int M, int SYM>
__device__ __forceinline__ C sep_out(const C (&v)[M + SEP_R - 1], const C (&w)[M], int p) {
  constexpr int H = M / 2;
  C acc;
  if (SYM == 1) {
    acc = v[p + H] * w[H];
#pragma unroll
    for (int t = 0; t < H; ++t) acc = img_madd(acc, w[t], v[p + t] + v[p + M - 1 - t]);
  } else if (SYM == -1) {
    acc = v[p + H] * w[H];
#pragma unroll
    for (int t = 0; t < H; ++t) acc = img_madd(acc, w[t], v[p + t] - v[p + M - 1 - t]);
  } else {
    acc = v[p + M - 1] * w[M - 1];
#pragma unroll
    for (int t = 0; t < M - 1; ++t) acc = img_madd(acc, w[t], v[p + t]);
  }
  return acc;
}

__device__ __forceinline__ void img_sep2(const T *__restrict__ x, const C *__restrict__ wy,
                                         const C *__restrict__ wx, T *__restrict__ y, i64t batch,
                                         i64t h, i64t w, i64t cy, i64t cx, i64t mode,
                                         double cval, double divy, double divx) {
  extern __shared__ double img_sep_smem[];
  C *const tile = reinterpret_cast<C *>(img_sep_smem);
  constexpr int SH = SEP_T + SEP_MY - 1;
  constexpr int SW = SEP_T + SEP_MX - 1;
  constexpr int sw = SW | 1;
  // Intermediate: rows-first keeps SEP_T rows of SW columns, columns-first SH rows of SEP_T.
  constexpr int MC = SEP_XFIRST ? SEP_T : SW;
  constexpr int mc = MC | 1;
  constexpr int TILE = SH * sw > SEP_T * (SEP_T + 1) ? SH * sw : SEP_T * (SEP_T + 1);
  C *const mid = tile + TILE;
  C *const ot = tile;
  C wyr[SEP_MY], wxr[SEP_MX];
#pragma unroll
  for (int j = 0; j < SEP_MY; ++j) wyr[j] = wy[j];
#pragma unroll
  for (int j = 0; j < SEP_MX; ++j) wxr[j] = wx[j];
  const bool cst = mode == 1 || mode == 5;
  const C cv = (C)cval;
  const int tid = threadIdx.x;
  const i64t tn_y = (h + SEP_T - 1) / SEP_T, tn_x = (w + SEP_T - 1) / SEP_T;
  const i64t total = batch * tn_y * tn_x;
  for (i64t t = blockIdx.x; t < total; t += gridDim.x) {
    const i64t tx0 = (t % tn_x) * SEP_T;
    const i64t r = t / tn_x;
    const i64t ty0 = (r % tn_y) * SEP_T;
    const T *xb = x + (r / tn_y) * h * w;
    T *yb = y + (r / tn_y) * h * w;
    __syncthreads();
    for (int q = tid; q < SH * SW; q += SEP_THREADS) {
      const int rr = q / SW, cc = q - rr * SW;
      const i64t gy = img_map(ty0 + rr - cy, h, (int)mode);
      const i64t gx = img_map(tx0 + cc - cx, w, (int)mode);
      tile[rr * sw + cc] = (gy >= 0 && gx >= 0) ? img_ld(xb[gy * w + gx]) : cv;
    }
    __syncthreads();
    // First pass: a thread computes SEP_R consecutive intermediates.
    if (!SEP_XFIRST) {
      // Along rows: lanes take columns, a thread SEP_R consecutive rows of one column.
      for (int q = tid; q < SEP_G * SW; q += SEP_THREADS) {
        const int g = q / SW, cc = q - g * SW;
        C v[SEP_MY + SEP_R - 1];
#pragma unroll
        for (int j = 0; j < SEP_MY + SEP_R - 1; ++j) v[j] = tile[(g * SEP_R + j) * sw + cc];
        const i64t gx = tx0 + cc - cx;
        const bool out = cst && (gx < 0 || gx >= w);
#pragma unroll
        for (int p = 0; p < SEP_R; ++p) {
          C a = sep_out<SEP_MY, SEP_SYMY>(v, wyr, p);
          if (divy != 1.0) a = a / (C)divy;
          mid[(g * SEP_R + p) * mc + cc] = out ? cv : img_ld(img_st(a));
        }
      }
    } else {
      // Along columns: lanes take rows, a thread SEP_R consecutive columns of one row.
      for (int q = tid; q < SEP_G * SH; q += SEP_THREADS) {
        const int g = q / SH, rr = q - g * SH;
        C v[SEP_MX + SEP_R - 1];
#pragma unroll
        for (int j = 0; j < SEP_MX + SEP_R - 1; ++j) v[j] = tile[rr * sw + g * SEP_R + j];
        const i64t gy = ty0 + rr - cy;
        const bool out = cst && (gy < 0 || gy >= h);
#pragma unroll
        for (int p = 0; p < SEP_R; ++p) {
          C a = sep_out<SEP_MX, SEP_SYMX>(v, wxr, p);
          if (divx != 1.0) a = a / (C)divx;
          mid[rr * mc + g * SEP_R + p] = out ? cv : img_ld(img_st(a));
        }
      }
    }
    __syncthreads();
    // Second pass into the staged output tile `ot[row * (SEP_T + 1) + col]`.
    {
      const int lane = tid % SEP_T, g = tid / SEP_T;
      if (!SEP_XFIRST) {
        // Along columns: lane = row, SEP_R consecutive columns.
        C v[SEP_MX + SEP_R - 1];
#pragma unroll
        for (int j = 0; j < SEP_MX + SEP_R - 1; ++j) v[j] = mid[lane * mc + g * SEP_R + j];
#pragma unroll
        for (int p = 0; p < SEP_R; ++p) {
          C a = sep_out<SEP_MX, SEP_SYMX>(v, wxr, p);
          ot[lane * (SEP_T + 1) + g * SEP_R + p] = divx != 1.0 ? a / (C)divx : a;
        }
      } else {
        // Along rows: lane = column, SEP_R consecutive rows.
        C v[SEP_MY + SEP_R - 1];
#pragma unroll
        for (int j = 0; j < SEP_MY + SEP_R - 1; ++j) v[j] = mid[(g * SEP_R + j) * mc + lane];
#pragma unroll
        for (int p = 0; p < SEP_R; ++p) {
          C a = sep_out<SEP_MY, SEP_SYMY>(v, wyr, p);
          ot[(g * SEP_R + p) * (SEP_T + 1) + lane] = divy != 1.0 ? a / (C)divy : a;
        }
      }
    }
    __syncthreads();
    for (int q = tid; q < SEP_T * SEP_T; q += SEP_THREADS) {
      const int rr = q / SEP_T, cc = q % SEP_T;
      const i64t oy = ty0 + rr, ox = tx0 + cc;
      if (oy < h && ox < w) yb[oy * w + ox] = img_st(ot[rr * (SEP_T + 1) + cc]);
    }
  }
}
