// The separable filter of `filters_sep.cu` (same passes, order, summation, divisors,
// intermediate in the image's type and boundary semantics) for windows of at most 3 taps a
// pass (Sobel, Prewitt, small Gaussians and boxes), in registers only: no shared memory and
// no barrier.
//
// A warp filters S3_S output rows of 128 columns, lane `l` the 4 columns from `tx0 + 4 l`;
// the 8 warps of a block stack their rows into one 128 x 8 S3_S tile. A lane loads the
// S3_S + S3_MY - 1 input rows its outputs read, 4 values a row (one vector load where the row
// allows), all before using any. The pass along columns takes a lane's neighbours' values by
// warp shuffles: its S3_LH values left of its 4 from the lane below, its S3_RH right from the
// lane above; lanes 0 and 31 load the columns left and right of the warp's 128 themselves.
// Only lanes past the right edge of the image, and warps whose rows reach past it, map
// indices through `img_map`.
//
// Columns first: each input row's pass along columns (stored in the image's type, `cval` for
// rows outside the image with the constant modes), then the pass along rows down the lane's
// 4 columns. Rows first: the pass along rows of the lane's 4 columns and of lanes 0 and 31's
// outer columns (stored in the image's type, `cval` for columns outside the image with the
// constant modes), then the pass along columns by shuffles.
//
// Built after `boundary.cu`, the typed header (`filters_elem.rs`), `filters_taps.cu`, and
// S3_MY, S3_MX (1 to 3), S3_SYMY, S3_SYMX, S3_XFIRST, S3_CX (the columns pass's centre, below
// S3_MX) and S3_S.

constexpr int S3_LH = S3_CX;
constexpr int S3_RH = S3_MX - 1 - S3_CX;
// Outer values a row holds: lane 0 its S3_LH left of the warp, lane 31 its S3_RH right.
constexpr int S3_EN = S3_LH > S3_RH ? (S3_LH > 0 ? S3_LH : 1) : (S3_RH > 0 ? S3_RH : 1);
constexpr int S3_NR = S3_S + S3_MY - 1;
constexpr int S3_TW = 128;
constexpr int S3_TH = 8 * S3_S;
static_assert(S3_MY >= 1 && S3_MY <= 3 && S3_MX >= 1 && S3_MX <= 3, "at most 3 taps a pass");
static_assert(S3_CX >= 0 && S3_CX < S3_MX, "the centre lies in the window");

// One input row of a lane: its 4 values, and lane 0's S3_LH values left of the warp's
// columns, lane 31's S3_RH right of them (`cval` for the other lanes).
struct S3Row {
  C c[4];
  C e[S3_EN];
};

// The pass along columns of one row: the lane's 4 values `c` and its neighbours' (shuffled,
// or the outer values `e` for lanes 0 and 31), into out[0 .. 4).
__device__ __forceinline__ void s3_cols(const C (&c)[4], const C (&e)[S3_EN],
                                        const C (&wc)[S3_MX], double div, int lane,
                                        C (&out)[4]) {
  C v[S3_LH + 4 + S3_RH];
#pragma unroll
  for (int i = 0; i < S3_LH; ++i) {
    const C u = __shfl_up_sync(0xffffffffu, c[4 - S3_LH + i], 1);
    v[i] = lane == 0 ? e[i] : u;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) v[S3_LH + k] = c[k];
#pragma unroll
  for (int i = 0; i < S3_RH; ++i) {
    const C u = __shfl_down_sync(0xffffffffu, c[i], 1);
    v[S3_LH + 4 + i] = lane == 31 ? e[i] : u;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) out[k] = sep_div(sep_out<S3_MX, S3_SYMX>(v, wc, k), div);
}

// The pass along rows of the values `col(i)` of rows p .. p + S3_MY - 1.
template <class F>
__device__ __forceinline__ C s3_rows(F col, const C (&wr)[S3_MY], double div) {
  C v[S3_MY];
#pragma unroll
  for (int i = 0; i < S3_MY; ++i) v[i] = col(i);
  return sep_div(sep_out<S3_MY, S3_SYMY>(v, wr, 0), div);
}

__device__ __forceinline__ void img_sep3(const T *__restrict__ x, const img_taps wy,
                                         const img_taps wx, T *__restrict__ y, i64t batch,
                                         i64t h, i64t w, i64t cy, i64t cx, i64t mode,
                                         double cval, double divy, double divx) {
  const int lane = threadIdx.x & 31, wi = threadIdx.x >> 5;
  const bool cst = mode == 1 || mode == 5;
  const C cv = (C)cval;
  C wr[S3_MY], wc[S3_MX];
#pragma unroll
  for (int j = 0; j < S3_MY; ++j) wr[j] = (C)wy.v[j];
#pragma unroll
  for (int j = 0; j < S3_MX; ++j) wc[j] = (C)wx.v[j];
  const bool vec4 = (w & 3) == 0 &&
                    reinterpret_cast<unsigned long long>(x) % (4 * sizeof(T)) == 0;
  const i64t tn_y = (h + S3_TH - 1) / S3_TH, tn_x = (w + S3_TW - 1) / S3_TW;
  const i64t total = batch * tn_y * tn_x;
  for (i64t t = blockIdx.x; t < total; t += gridDim.x) {
    const i64t tx0 = (t % tn_x) * S3_TW;
    const i64t r = t / tn_x;
    const i64t ty0 = (r % tn_y) * S3_TH;
    const T *xb = x + (r / tn_y) * h * w;
    T *yb = y + (r / tn_y) * h * w;
    const i64t ox = tx0 + 4 * lane;
    const i64t r0 = ty0 + wi * S3_S;
    // The whole warp skips rows past the image (no shuffle is left waiting).
    if (r0 >= h) continue;
    const i64t y0 = r0 - cy;
    // The outer columns lane 0 (left of the warp) or lane 31 (right of it) loads, mapped; -1
    // for the other lanes and past the outer values' count.
    const int ne = lane == 0 ? S3_LH : lane == 31 ? S3_RH : 0;
    i64t ge[S3_EN];
#pragma unroll
    for (int i = 0; i < S3_EN; ++i)
      ge[i] = i < ne ? img_map(lane == 0 ? ox - S3_LH + i : ox + 4 + i, w, (int)mode) : -1;
    S3Row rw[S3_NR];
    // Bit j: input row y0 + j lies in the image (all of them but with the constant modes).
    unsigned rin = ~0u;
    if (vec4 && tx0 + S3_TW <= w && y0 >= 0 && y0 + S3_NR <= h) {
      // Every row inside the image, every lane's 4 values one vector.
      const T *p = xb + y0 * w;
#pragma unroll
      for (int j = 0; j < S3_NR; ++j) {
        T u[4];
        sep_ldg4(p + j * w + ox, u);
#pragma unroll
        for (int k = 0; k < 4; ++k) rw[j].c[k] = img_ld(u[k]);
#pragma unroll
        for (int i = 0; i < S3_EN; ++i) rw[j].e[i] = ge[i] >= 0 ? img_ld(p[j * w + ge[i]]) : cv;
      }
    } else {
      const bool full = vec4 && ox + 3 < w;
#pragma unroll
      for (int j = 0; j < S3_NR; ++j) {
        const i64t gy = img_map(y0 + j, h, (int)mode);
        if (gy < 0) rin &= ~(1u << j);
        const T *rp = xb + (gy < 0 ? 0 : gy) * w;
        if (gy >= 0 && full) {
          T u[4];
          sep_ldg4(rp + ox, u);
#pragma unroll
          for (int k = 0; k < 4; ++k) rw[j].c[k] = img_ld(u[k]);
        } else {
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            const i64t gx = img_map(ox + k, w, (int)mode);
            rw[j].c[k] = (gy >= 0 && gx >= 0) ? img_ld(rp[gx]) : cv;
          }
        }
#pragma unroll
        for (int i = 0; i < S3_EN; ++i)
          rw[j].e[i] = (gy >= 0 && ge[i] >= 0) ? img_ld(rp[ge[i]]) : cv;
      }
    }
    if (S3_XFIRST) {
      // Each input row's pass along columns, then the pass along rows.
      C d[S3_NR][4];
#pragma unroll
      for (int j = 0; j < S3_NR; ++j) {
        s3_cols(rw[j].c, rw[j].e, wc, divx, lane, d[j]);
        const bool in = !cst || ((rin >> j) & 1u);
#pragma unroll
        for (int k = 0; k < 4; ++k) d[j][k] = in ? img_ld(img_st(d[j][k])) : cv;
      }
#pragma unroll
      for (int p = 0; p < S3_S; ++p) {
        C a[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) a[k] = s3_rows([&](int i) { return d[p + i][k]; }, wr, divy);
        const i64t oy = r0 + p;
        if (oy < h && ox < w) sep_store(yb + oy * w + ox, a[0], a[1], a[2], a[3], w - ox);
      }
    } else {
      // The pass along rows of the lane's columns (and lanes 0 and 31's outer ones), then
      // the pass along columns.
#pragma unroll
      for (int p = 0; p < S3_S; ++p) {
        C m[4], me[S3_EN];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const C v = s3_rows([&](int i) { return rw[p + i].c[k]; }, wr, divy);
          m[k] = (cst && ox + k >= w) ? cv : img_ld(img_st(v));
        }
#pragma unroll
        for (int i = 0; i < S3_EN; ++i) {
          const C v = s3_rows([&](int q) { return rw[p + q].e[i]; }, wr, divy);
          // Outer columns outside the image (constant modes) are `cval`.
          me[i] = ge[i] < 0 ? cv : img_ld(img_st(v));
        }
        C a[4];
        s3_cols(m, me, wc, divx, lane, a);
        const i64t oy = r0 + p;
        if (oy < h && ox < w) sep_store(yb + oy * w + ox, a[0], a[1], a[2], a[3], w - ox);
      }
    }
  }
}
