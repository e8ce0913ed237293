// A separable filter of the last two axes of a batch of images in one pass over memory: the
// correlation along the rows axis (`wy`, SEP_MY taps, centre `cy`) and along the columns
// axis (`wx`, SEP_MX taps, centre `cx`), one after the other in SciPy's order (rows first
// unless SEP_XFIRST), each divided by its `div`. As SciPy stores the first pass's result in
// the image's type before the second reads it, the intermediate goes through `img_st` and
// back, and the second pass sees the intermediate extended by the boundary mode: with the
// constant modes, intermediate values outside the image are `cval` itself. The CPU twin is
// two passes of the n-d correlation (`filters_corr.rs`), which sum in the same tap order.
//
// A block of SEP_THREADS threads filters one SEP_TW x SEP_TH output tile (columns x rows) at
// a time in two phases separated by a barrier:
//
// 1. The first pass reads the image straight from global memory (no staged copy of the
//    input) and writes the intermediate, with the halo the second pass needs, to shared
//    memory. Rows first: a thread computes SEP_S consecutive rows of one of the tile's
//    SEP_TW + SEP_MX - 1 columns from the SEP_S + SEP_MY - 1 values above and below, all
//    loaded before any is used; warp lanes are on consecutive columns (coalesced loads,
//    conflict-free shared stores). Columns first: a thread computes 4 consecutive columns of
//    one of the SEP_TH + SEP_MY - 1 rows, from 4-value vector loads where the row allows.
// 2. The second pass reads the intermediate and stores the outputs. Rows first, along
//    columns: a thread gives SEP_R consecutive outputs of a row from 16-byte shared loads,
//    lanes on consecutive groups of a row (conflict-free reads, coalesced stores); the
//    outputs go out as vectors where the address allows. Columns first, along rows: a thread
//    gives SEP_S consecutive rows of one column, lanes on consecutive columns.
//
// Only tiles whose input window reaches past the image map indices through `img_map`; the
// others index the image directly. A rows-first tile whose window's rows lie inside the image
// maps only its columns, once a thread. A tile whose outputs all lie inside the image, rows
// aligned for vector stores, stores them without checks. The taps come as `img_taps` (doubles,
// rounded to C here) or, for 4-byte working values and at most 17 taps a pass, `img_ftaps`
// (floats, read as operands rather than held in registers). Each pass sums its taps in the
// order of SciPy's `correlate1d` (so that integer results truncate as SciPy's do): with
// symmetric taps (SEP_SYMY/SEP_SYMX = 1) the centre tap, then the pairs `(v[t] + v[m - 1 - t])
// w[t]` from the outermost in; antisymmetric (-1) the same with differences; otherwise (0) the
// last tap, then the others in ascending order.
//
// Built after `boundary.cu`, a typed header defining `T`, `C`, `img_ld`, `img_st`,
// `img_fma` (`filters_elem.rs`), `filters_taps.cu`, and SEP_MY, SEP_MX, SEP_SYMY, SEP_SYMX,
// SEP_XFIRST, SEP_TW (a multiple of 4 and of SEP_R), SEP_TH (a multiple of SEP_S), SEP_S,
// SEP_R (4 or 8), and SEP_DIVY, SEP_DIVX (0 where that pass's divisor is 1, which it then
// skips: the kernel is built for one or the other). The shared bytes it needs are
// `filters_sep.rs`'s `shared_bytes`, which mirrors SEP_MR and SEP_MS below.

constexpr int SEP_THREADS = 256;
// Working values per 16-byte shared access.
constexpr int SEP_V = 16 / (int)sizeof(C);
// Columns of the intermediate a rows-first pass computes; rows of it a columns-first one does.
constexpr int SEP_SW = SEP_TW + SEP_MX - 1;
constexpr int SEP_SH = SEP_TH + SEP_MY - 1;
// Values a thread of a second pass along columns loads from a row: its SEP_R + SEP_MX - 1,
// rounded up to whole 16-byte loads.
constexpr int SEP_NL = (SEP_R + SEP_MX - 1 + SEP_V - 1) / SEP_V * SEP_V;
// The intermediate: SEP_MR rows of stride SEP_MS. Rows first, SEP_TH rows covering every
// load of the second pass (a multiple of 16 bytes); columns first, SEP_SH rows of SEP_TW
// values.
constexpr int SEP_MS = SEP_XFIRST ? SEP_TW : SEP_TW - SEP_R + SEP_NL;
constexpr int SEP_MR = SEP_XFIRST ? SEP_SH : SEP_TH;
// A columns-first pass: 4 outputs a thread from SEP_NV values; with the default centre
// SEP_CX, the vector loads of 4 values start SEP_CXR columns left of the outputs and the
// taps SEP_OFF values into them, SEP_NCH loads a thread.
constexpr int SEP_NV = 4 + SEP_MX - 1;
constexpr int SEP_CX = SEP_MX / 2;
constexpr int SEP_CXR = (SEP_CX + 3) / 4 * 4;
constexpr int SEP_OFF = SEP_CXR - SEP_CX;
constexpr int SEP_NCH = (SEP_OFF + SEP_NV + 3) / 4;
static_assert(SEP_TW % 4 == 0 && SEP_TW % SEP_R == 0 && SEP_TH % SEP_S == 0, "tiling");
static_assert(SEP_R == 4 || SEP_R == 8, "4 or 8 outputs a thread along columns");

template <class TP>
__device__ __forceinline__ void img_sep2(const T *__restrict__ x, const TP wy, const TP wx,
                                         T *__restrict__ y, i64t batch, i64t h, i64t w, i64t cy,
                                         i64t cx, i64t mode, double cval, double divy,
                                         double divx) {
  extern __shared__ __align__(16) double img_sep_smem[];
  C *const mid = reinterpret_cast<C *>(img_sep_smem);
  const bool cst = mode == 1 || mode == 5;
  const C cv = (C)cval;
  const int tid = threadIdx.x;
  // Rows of 4 values loadable as vectors: `w` a multiple of 4 and `x` aligned for them.
  const bool vec4 = (w & 3) == 0 &&
                    reinterpret_cast<unsigned long long>(x) % (4 * sizeof(T)) == 0;
  // Outputs storable as vectors of 4: `w` a multiple of 4 and `y` aligned for them.
  constexpr unsigned long long SEP_AL = sizeof(T) * 4 > 16 ? 16 : sizeof(T) * 4;
  const bool vec_out = (w & 3) == 0 && reinterpret_cast<unsigned long long>(y) % SEP_AL == 0;
  const i64t tn_y = (h + SEP_TH - 1) / SEP_TH, tn_x = (w + SEP_TW - 1) / SEP_TW;
  const i64t total = batch * tn_y * tn_x;
  // Tile counts below 2^32 split a tile's number in 32-bit arithmetic.
  const bool narrow = total <= 0xffffffffLL;
  for (i64t t = blockIdx.x; t < total; t += gridDim.x) {
    i64t r, tx, b, ty;
    if (narrow) {
      const unsigned r32 = (unsigned)t / (unsigned)tn_x, b32 = r32 / (unsigned)tn_y;
      r = r32;
      tx = (unsigned)t - r32 * (unsigned)tn_x;
      b = b32;
      ty = r32 - b32 * (unsigned)tn_y;
    } else {
      r = t / tn_x;
      tx = t - r * tn_x;
      b = r / tn_y;
      ty = r - b * tn_y;
    }
    const i64t tx0 = tx * SEP_TW, ty0 = ty * SEP_TH;
    const T *xb = x + b * h * w;
    T *yb = y + b * h * w;
    // The input window's first row and column in the image.
    const i64t y0 = ty0 - cy, x0 = tx0 - cx;
    // Every thread is done reading the previous tile's intermediate.
    __syncthreads();
    if (!SEP_XFIRST) {
      constexpr int N1 = SEP_SW * (SEP_TH / SEP_S);
      C wr[SEP_MY];
#pragma unroll
      for (int j = 0; j < SEP_MY; ++j) wr[j] = (C)wy.v[j];
      if (y0 >= 0 && y0 + SEP_SH <= h && x0 >= 0 && x0 + SEP_SW <= w) {
        const T *src = xb + y0 * w + x0;
#pragma unroll
        for (int q0 = 0; q0 < N1; q0 += SEP_THREADS) {
          const int q = q0 + tid;
          if (N1 % SEP_THREADS == 0 || q < N1) {
            const int g = q / SEP_SW, c = q - g * SEP_SW;
            const T *s = src + (i64t)(g * SEP_S) * w + c;
            C v[SEP_S + SEP_MY - 1];
#pragma unroll
            for (int j = 0; j < SEP_S + SEP_MY - 1; ++j) v[j] = img_ld(__ldg(s + j * w));
#pragma unroll
            for (int p = 0; p < SEP_S; ++p)
              mid[(g * SEP_S + p) * SEP_MS + c] =
                  img_ld(img_st(
                      sep_div<SEP_DIVY != 0>(sep_out<SEP_MY, SEP_SYMY>(v, wr, p), divy)));
          }
        }
      } else if (y0 >= 0 && y0 + SEP_SH <= h) {
        // The window's rows inside the image: its columns mapped once a thread.
        const T *src = xb + y0 * w;
#pragma unroll
        for (int q0 = 0; q0 < N1; q0 += SEP_THREADS) {
          const int q = q0 + tid;
          if (N1 % SEP_THREADS == 0 || q < N1) {
            const int g = q / SEP_SW, c = q - g * SEP_SW;
            const i64t gx = img_map(x0 + c, w, (int)mode);
            if (gx >= 0) {
              const T *s = src + (i64t)(g * SEP_S) * w + gx;
              C v[SEP_S + SEP_MY - 1];
#pragma unroll
              for (int j = 0; j < SEP_S + SEP_MY - 1; ++j) v[j] = img_ld(__ldg(s + j * w));
#pragma unroll
              for (int p = 0; p < SEP_S; ++p)
                mid[(g * SEP_S + p) * SEP_MS + c] = img_ld(
                    img_st(sep_div<SEP_DIVY != 0>(sep_out<SEP_MY, SEP_SYMY>(v, wr, p), divy)));
            } else {
              // Constant modes: intermediate columns outside the image are `cval`.
#pragma unroll
              for (int p = 0; p < SEP_S; ++p) mid[(g * SEP_S + p) * SEP_MS + c] = cv;
            }
          }
        }
      } else {
        for (int q = tid; q < N1; q += SEP_THREADS) {
          const int g = q / SEP_SW, c = q - g * SEP_SW;
          const i64t gx = img_map(x0 + c, w, (int)mode);
          // Constant modes: intermediate columns outside the image are `cval`.
          const bool out = cst && gx < 0;
          C v[SEP_S + SEP_MY - 1];
#pragma unroll
          for (int j = 0; j < SEP_S + SEP_MY - 1; ++j) {
            const i64t gy = img_map(y0 + g * SEP_S + j, h, (int)mode);
            v[j] = (gy >= 0 && gx >= 0) ? img_ld(xb[gy * w + gx]) : cv;
          }
#pragma unroll
          for (int p = 0; p < SEP_S; ++p)
            mid[(g * SEP_S + p) * SEP_MS + c] =
                out ? cv
                    : img_ld(img_st(
                          sep_div<SEP_DIVY != 0>(sep_out<SEP_MY, SEP_SYMY>(v, wr, p), divy)));
        }
      }
    } else {
      constexpr int G1 = SEP_TW / 4;
      constexpr int N1 = SEP_SH * G1;
      C wc[SEP_MX];
#pragma unroll
      for (int j = 0; j < SEP_MX; ++j) wc[j] = (C)wx.v[j];
      const bool rows_in = y0 >= 0 && y0 + SEP_SH <= h;
      if (rows_in && vec4 && cx == SEP_CX && tx0 - SEP_CXR >= 0 &&
          tx0 + SEP_TW - 4 - SEP_CXR + 4 * SEP_NCH <= w) {
        // Every load inside the image and aligned: vectors of 4 values.
#pragma unroll
        for (int q0 = 0; q0 < N1; q0 += SEP_THREADS) {
          const int q = q0 + tid;
          if (N1 % SEP_THREADS == 0 || q < N1) {
            const int rr = q / G1, g = q - rr * G1;
            const T *rp = xb + (y0 + rr) * w + tx0 - SEP_CXR + g * 4;
            C v[4 * SEP_NCH];
#pragma unroll
            for (int ch = 0; ch < SEP_NCH; ++ch) {
              T u[4];
              sep_ldg4(rp + 4 * ch, u);
#pragma unroll
              for (int k = 0; k < 4; ++k) v[4 * ch + k] = img_ld(u[k]);
            }
            C a[4];
#pragma unroll
            for (int p = 0; p < 4; ++p)
              a[p] = img_ld(img_st(sep_div<SEP_DIVX != 0>(
                  sep_out<SEP_MX, SEP_SYMX>(v, wc, p + SEP_OFF), divx)));
            sep_st4(mid + rr * SEP_MS + g * 4, a);
          }
        }
      } else if (rows_in && x0 >= 0 && x0 + SEP_TW + SEP_MX - 1 <= w) {
#pragma unroll
        for (int q0 = 0; q0 < N1; q0 += SEP_THREADS) {
          const int q = q0 + tid;
          if (N1 % SEP_THREADS == 0 || q < N1) {
            const int rr = q / G1, g = q - rr * G1;
            const T *rp = xb + (y0 + rr) * w + x0 + g * 4;
            C v[SEP_NV];
#pragma unroll
            for (int j = 0; j < SEP_NV; ++j) v[j] = img_ld(__ldg(rp + j));
            C a[4];
#pragma unroll
            for (int p = 0; p < 4; ++p)
              a[p] = img_ld(
                  img_st(sep_div<SEP_DIVX != 0>(sep_out<SEP_MX, SEP_SYMX>(v, wc, p), divx)));
            sep_st4(mid + rr * SEP_MS + g * 4, a);
          }
        }
      } else {
        for (int q = tid; q < N1; q += SEP_THREADS) {
          const int rr = q / G1, g = q - rr * G1;
          const i64t gy = img_map(y0 + rr, h, (int)mode);
          C a[4];
          if (gy < 0) {
            // Constant modes: intermediate rows outside the image are `cval`.
#pragma unroll
            for (int p = 0; p < 4; ++p) a[p] = cv;
          } else {
            C v[SEP_NV];
#pragma unroll
            for (int j = 0; j < SEP_NV; ++j) {
              const i64t gx = img_map(x0 + g * 4 + j, w, (int)mode);
              v[j] = gx >= 0 ? img_ld(xb[gy * w + gx]) : cv;
            }
#pragma unroll
            for (int p = 0; p < 4; ++p)
              a[p] = img_ld(
                  img_st(sep_div<SEP_DIVX != 0>(sep_out<SEP_MX, SEP_SYMX>(v, wc, p), divx)));
          }
          sep_st4(mid + rr * SEP_MS + g * 4, a);
        }
      }
    }
    __syncthreads();
    if (!SEP_XFIRST) {
      // Second pass along columns: a thread SEP_R consecutive outputs of a row.
      constexpr int G2 = SEP_TW / SEP_R;
      constexpr int N2 = SEP_TH * G2;
      C wc[SEP_MX];
#pragma unroll
      for (int j = 0; j < SEP_MX; ++j) wc[j] = (C)wx.v[j];
      if (vec_out && ty0 + SEP_TH <= h && tx0 + SEP_TW <= w) {
        // The whole tile inside the image, rows aligned for vector stores.
#pragma unroll
        for (int q0 = 0; q0 < N2; q0 += SEP_THREADS) {
          const int q = q0 + tid;
          if (N2 % SEP_THREADS == 0 || q < N2) {
            const int rr = q / G2, g = q - rr * G2;
            C v[SEP_NL];
#pragma unroll
            for (int j = 0; j < SEP_NL; j += SEP_V)
              sep_ld16(mid + rr * SEP_MS + g * SEP_R + j, v + j);
            T *o = yb + (ty0 + rr) * w + tx0 + g * SEP_R;
#pragma unroll
            for (int k = 0; k < SEP_R; k += 4) {
              T s[4];
#pragma unroll
              for (int p = 0; p < 4; ++p)
                s[p] = img_st(
                    sep_div<SEP_DIVX != 0>(sep_out<SEP_MX, SEP_SYMX>(v, wc, k + p), divx));
              sep_stg4(o + k, s);
            }
          }
        }
        continue;
      }
#pragma unroll 2
      for (int q = tid; q < N2; q += SEP_THREADS) {
        const int rr = q / G2, g = q - rr * G2;
        C v[SEP_NL];
#pragma unroll
        for (int j = 0; j < SEP_NL; j += SEP_V)
          sep_ld16(mid + rr * SEP_MS + g * SEP_R + j, v + j);
        C a[SEP_R];
#pragma unroll
        for (int p = 0; p < SEP_R; ++p)
          a[p] = sep_div<SEP_DIVX != 0>(sep_out<SEP_MX, SEP_SYMX>(v, wc, p), divx);
        const i64t oy = ty0 + rr, ox = tx0 + g * SEP_R;
        if (oy < h && ox < w) {
          T *o = yb + oy * w + ox;
#pragma unroll
          for (int k = 0; k < SEP_R; k += 4) {
            if (vec_out && ox + k + 4 <= w) {
              const T s4[4] = {img_st(a[k]), img_st(a[k + 1]), img_st(a[k + 2]),
                               img_st(a[k + 3])};
              sep_stg4(o + k, s4);
            } else {
              sep_store(o + k, a[k], a[k + 1], a[k + 2], a[k + 3], w - ox - k);
            }
          }
        }
      }
    } else {
      // Second pass along rows: a thread SEP_S consecutive outputs of a column.
      constexpr int N2 = (SEP_TH / SEP_S) * SEP_TW;
      C wr[SEP_MY];
#pragma unroll
      for (int j = 0; j < SEP_MY; ++j) wr[j] = (C)wy.v[j];
#pragma unroll 2
      for (int q = tid; q < N2; q += SEP_THREADS) {
        const int g = q / SEP_TW, c = q - g * SEP_TW;
        const i64t ox = tx0 + c;
        C v[SEP_S + SEP_MY - 1];
#pragma unroll
        for (int j = 0; j < SEP_S + SEP_MY - 1; ++j) v[j] = mid[(g * SEP_S + j) * SEP_MS + c];
        if (ox < w) {
#pragma unroll
          for (int p = 0; p < SEP_S; ++p) {
            const i64t oy = ty0 + g * SEP_S + p;
            const C a = sep_div<SEP_DIVY != 0>(sep_out<SEP_MY, SEP_SYMY>(v, wr, p), divy);
            if (oy < h) yb[oy * w + ox] = img_st(a);
          }
        }
      }
    }
  }
}
