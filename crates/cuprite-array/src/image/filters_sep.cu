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
// A block of SEP_THREADS threads filters one SEP_TW x SEP_TH output tile (columns x rows) at a
// time. It stages the input tile with its halo in shared memory: a tile whose halo lies inside
// the image is copied with plain indexing, only edge tiles map indices through `img_map`. The
// first pass writes a shared intermediate; the second pass reads it and stores its results
// straight to the image. A pass along the rows axis gives a thread SEP_S consecutive outputs
// of one column, from SEP_S + taps - 1 values it holds in registers, with warp lanes on
// consecutive columns (conflict-free shared reads, coalesced stores). A pass along the columns
// axis gives a thread SEP_R (4) consecutive outputs of one row: as the first pass, lanes on
// consecutive rows of odd stride (conflict-free scalar reads); as the second, lanes on
// consecutive groups of a row, reading the intermediate 16 bytes at a time (its rows are
// 16-byte aligned) and storing the 4 outputs as one vector where the address allows.
//
// Built after `boundary.cu` and a typed header defining `T`, `C`, `img_ld`, `img_st`,
// `img_madd` (`filters_elem.rs`), SEP_MY, SEP_MX, SEP_SYMY, SEP_SYMX, SEP_XFIRST, SEP_TW,
// SEP_TH (multiples of 4 and of SEP_S) and SEP_S. The shared bytes it needs are
// `filters_sep.rs`'s `shared_bytes`, which mirrors SEP_IN, SEP_MR and SEP_MS below.

constexpr int SEP_THREADS = 256;
constexpr int SEP_R = 4;
// Working values per 16-byte shared load.
constexpr int SEP_V = 16 / (int)sizeof(C);
constexpr int SEP_SH = SEP_TH + SEP_MY - 1;
constexpr int SEP_SW = SEP_TW + SEP_MX - 1;
// The input tile's row stride: odd, so that lanes on consecutive rows hit 32 banks.
constexpr int SEP_IS = SEP_SW | 1;
// Values a thread of a second pass along columns loads from a row: its SEP_R + SEP_MX - 1,
// rounded up to whole 16-byte loads.
constexpr int SEP_NL = (SEP_R + SEP_MX - 1 + SEP_V - 1) / SEP_V * SEP_V;
// The intermediate: SEP_MR rows of stride SEP_MS after SEP_IN values of the input tile
// (rounded up to 16 bytes). Rows first keeps SEP_TH rows covering every load of the second
// pass (a multiple of SEP_V); columns first keeps SEP_SH rows of SEP_TW values, odd stride.
constexpr int SEP_IN = (SEP_SH * SEP_IS + SEP_V - 1) / SEP_V * SEP_V;
constexpr int SEP_MR = SEP_XFIRST ? SEP_SH : SEP_TH;
constexpr int SEP_MS = SEP_XFIRST ? (SEP_TW | 1) : SEP_TW - SEP_R + SEP_NL;

// Output `p` from the values `v` (output p's taps are v[p .. p + M - 1]).
template <int M, int SYM, int N>
__device__ __forceinline__ C sep_out(const C (&v)[N], const C (&w)[M], int p) {
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

// 16 bytes of shared working values at `p` (16-byte aligned) into v[0 .. SEP_V).
__device__ __forceinline__ void sep_ld16(const float *p, float *v) {
  const float4 q = *reinterpret_cast<const float4 *>(p);
  v[0] = q.x;
  v[1] = q.y;
  v[2] = q.z;
  v[3] = q.w;
}
__device__ __forceinline__ void sep_ld16(const double *p, double *v) {
  const double2 q = *reinterpret_cast<const double2 *>(p);
  v[0] = q.x;
  v[1] = q.y;
}

// Four stored values at `p`, aligned to their vector's size (16 bytes for doubles).
__device__ __forceinline__ void sep_st4(float *p, const float (&s)[4]) {
  float4 q;
  q.x = s[0];
  q.y = s[1];
  q.z = s[2];
  q.w = s[3];
  *reinterpret_cast<float4 *>(p) = q;
}
__device__ __forceinline__ void sep_st4(double *p, const double (&s)[4]) {
  double2 a, b;
  a.x = s[0];
  a.y = s[1];
  b.x = s[2];
  b.y = s[3];
  reinterpret_cast<double2 *>(p)[0] = a;
  reinterpret_cast<double2 *>(p)[1] = b;
}
__device__ __forceinline__ void sep_st4(unsigned short *p, const unsigned short (&s)[4]) {
  ushort4 q;
  q.x = s[0];
  q.y = s[1];
  q.z = s[2];
  q.w = s[3];
  *reinterpret_cast<ushort4 *>(p) = q;
}
__device__ __forceinline__ void sep_st4(unsigned char *p, const unsigned char (&s)[4]) {
  uchar4 q;
  q.x = s[0];
  q.y = s[1];
  q.z = s[2];
  q.w = s[3];
  *reinterpret_cast<uchar4 *>(p) = q;
}

// The SEP_R outputs `a` stored from `p` on, of which the first `room` lie inside the image:
// one vector store when all do and `p` is aligned for it, else one store each.
__device__ __forceinline__ void sep_store(T *p, const C (&a)[SEP_R], i64t room) {
  T s[SEP_R];
#pragma unroll
  for (int k = 0; k < SEP_R; ++k) s[k] = img_st(a[k]);
  constexpr unsigned long long al = sizeof(T) * SEP_R > 16 ? 16 : sizeof(T) * SEP_R;
  if (room >= SEP_R && reinterpret_cast<unsigned long long>(p) % al == 0) {
    sep_st4(p, s);
  } else {
#pragma unroll
    for (int k = 0; k < SEP_R; ++k)
      if (k < room) p[k] = s[k];
  }
}

__device__ __forceinline__ void img_sep2(const T *__restrict__ x, const C *__restrict__ wy,
                                         const C *__restrict__ wx, T *__restrict__ y, i64t batch,
                                         i64t h, i64t w, i64t cy, i64t cx, i64t mode,
                                         double cval, double divy, double divx) {
  extern __shared__ __align__(16) double img_sep_smem[];
  C *const in = reinterpret_cast<C *>(img_sep_smem);
  C *const mid = in + SEP_IN;
  const bool cst = mode == 1 || mode == 5;
  const C cv = (C)cval;
  const int tid = threadIdx.x;
  const i64t tn_y = (h + SEP_TH - 1) / SEP_TH, tn_x = (w + SEP_TW - 1) / SEP_TW;
  const i64t total = batch * tn_y * tn_x;
  for (i64t t = blockIdx.x; t < total; t += gridDim.x) {
    const i64t tx0 = (t % tn_x) * SEP_TW;
    const i64t r = t / tn_x;
    const i64t ty0 = (r % tn_y) * SEP_TH;
    const T *xb = x + (r / tn_y) * h * w;
    T *yb = y + (r / tn_y) * h * w;
    // The input tile's first row and column in the image.
    const i64t y0 = ty0 - cy, x0 = tx0 - cx;
    __syncthreads();
    if (y0 >= 0 && y0 + SEP_SH <= h && x0 >= 0 && x0 + SEP_SW <= w) {
      // Interior: every value of the tile is in the image.
      const T *src = xb + y0 * w + x0;
#pragma unroll 4
      for (int q = tid; q < SEP_SH * SEP_SW; q += SEP_THREADS) {
        const int rr = q / SEP_SW, cc = q - rr * SEP_SW;
        in[rr * SEP_IS + cc] = img_ld(src[rr * w + cc]);
      }
    } else {
      for (int q = tid; q < SEP_SH * SEP_SW; q += SEP_THREADS) {
        const int rr = q / SEP_SW, cc = q - rr * SEP_SW;
        const i64t gy = img_map(y0 + rr, h, (int)mode);
        const i64t gx = img_map(x0 + cc, w, (int)mode);
        in[rr * SEP_IS + cc] = (gy >= 0 && gx >= 0) ? img_ld(xb[gy * w + gx]) : cv;
      }
    }
    __syncthreads();
    if (!SEP_XFIRST) {
      // First pass along rows: a thread SEP_S consecutive rows of one of the SEP_SW columns.
      C wr[SEP_MY];
#pragma unroll
      for (int j = 0; j < SEP_MY; ++j) wr[j] = wy[j];
      for (int q = tid; q < (SEP_TH / SEP_S) * SEP_SW; q += SEP_THREADS) {
        const int g = q / SEP_SW, cc = q - g * SEP_SW;
        C v[SEP_MY + SEP_S - 1];
#pragma unroll
        for (int j = 0; j < SEP_MY + SEP_S - 1; ++j) v[j] = in[(g * SEP_S + j) * SEP_IS + cc];
        const i64t gx = x0 + cc;
        const bool out = cst && (gx < 0 || gx >= w);
#pragma unroll
        for (int p = 0; p < SEP_S; ++p) {
          C a = sep_out<SEP_MY, SEP_SYMY>(v, wr, p);
          if (divy != 1.0) a = a / (C)divy;
          mid[(g * SEP_S + p) * SEP_MS + cc] = out ? cv : img_ld(img_st(a));
        }
      }
    } else {
      // First pass along columns: lanes on rows, a thread SEP_R consecutive columns of a row.
      C wr[SEP_MX];
#pragma unroll
      for (int j = 0; j < SEP_MX; ++j) wr[j] = wx[j];
      for (int q = tid; q < (SEP_TW / SEP_R) * SEP_SH; q += SEP_THREADS) {
        const int g = q / SEP_SH, rr = q - g * SEP_SH;
        C v[SEP_MX + SEP_R - 1];
#pragma unroll
        for (int j = 0; j < SEP_MX + SEP_R - 1; ++j) v[j] = in[rr * SEP_IS + g * SEP_R + j];
        const i64t gy = y0 + rr;
        const bool out = cst && (gy < 0 || gy >= h);
#pragma unroll
        for (int p = 0; p < SEP_R; ++p) {
          C a = sep_out<SEP_MX, SEP_SYMX>(v, wr, p);
          if (divx != 1.0) a = a / (C)divx;
          mid[rr * SEP_MS + g * SEP_R + p] = out ? cv : img_ld(img_st(a));
        }
      }
    }
    __syncthreads();
    if (!SEP_XFIRST) {
      // Second pass along columns: a thread SEP_R consecutive outputs of a row.
      C wr[SEP_MX];
#pragma unroll
      for (int j = 0; j < SEP_MX; ++j) wr[j] = wx[j];
      for (int q = tid; q < SEP_TH * (SEP_TW / SEP_R); q += SEP_THREADS) {
        const int rr = q / (SEP_TW / SEP_R), g = q - rr * (SEP_TW / SEP_R);
        C v[SEP_NL];
#pragma unroll
        for (int j = 0; j < SEP_NL; j += SEP_V) sep_ld16(mid + rr * SEP_MS + g * SEP_R + j, v + j);
        C a[SEP_R];
#pragma unroll
        for (int p = 0; p < SEP_R; ++p) {
          a[p] = sep_out<SEP_MX, SEP_SYMX>(v, wr, p);
          if (divx != 1.0) a[p] = a[p] / (C)divx;
        }
        const i64t oy = ty0 + rr, ox = tx0 + g * SEP_R;
        if (oy < h && ox < w) sep_store(yb + oy * w + ox, a, w - ox);
      }
    } else {
      // Second pass along rows: a thread SEP_S consecutive outputs of a column.
      C wr[SEP_MY];
#pragma unroll
      for (int j = 0; j < SEP_MY; ++j) wr[j] = wy[j];
      for (int q = tid; q < (SEP_TH / SEP_S) * SEP_TW; q += SEP_THREADS) {
        const int g = q / SEP_TW, cc = q - g * SEP_TW;
        const i64t ox = tx0 + cc;
        if (ox >= w) continue;
        C v[SEP_MY + SEP_S - 1];
#pragma unroll
        for (int j = 0; j < SEP_MY + SEP_S - 1; ++j) v[j] = mid[(g * SEP_S + j) * SEP_MS + cc];
#pragma unroll
        for (int p = 0; p < SEP_S; ++p) {
          const i64t oy = ty0 + g * SEP_S + p;
          C a = sep_out<SEP_MY, SEP_SYMY>(v, wr, p);
          if (divy != 1.0) a = a / (C)divy;
          if (oy < h) yb[oy * w + ox] = img_st(a);
        }
      }
    }
  }
}
