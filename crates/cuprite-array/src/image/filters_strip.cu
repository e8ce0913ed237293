// The separable filter of the last two axes (`filters_sep.cu`'s semantics: the pass along
// rows with ST_MY taps `wy`, centre `cy`, and the pass along columns with ST_MX taps `wx`,
// centre `cx`, in SciPy's order, rows first unless ST_XFIRST, each divided by its `div`, the
// intermediate stored in the image's type and extended by the boundary mode, `cval` itself
// outside the image for the constant modes) as a stencil walked down strips of rows.
//
// Each warp owns one output tile of ST_TW = 32 ST_V columns by ST_SH rows: lane `l` owns the
// ST_V consecutive output columns `tx0 + ST_V l + p`. Output column `o` reads the values of
// the columns `o - cx + t` (t < ST_MX), so the warp works on the ST_TW + ST_MX - 1 input
// columns from `tx0 - cx`: lane `l` holds the ST_V columns from `tx0 - cx + ST_V l` (index
// `ST_V l` of the warp's row buffer) and lanes below ST_MX - 1 one more, the halo column
// `tx0 - cx + ST_TW + l` (index `ST_TW + l`). Columns are mapped through `img_map` once per
// tile, rows once per row (straight indexing for strips whose rows all lie in the image).
//
// Rows first: a thread keeps the rows of its ST_V + 1 columns in registers as it walks down
// (the pass along rows reads ST_MY of them per output row), writes the intermediate row to
// the warp's row buffer, and after a warp barrier reads back the ST_V + ST_MX - 1 values its
// outputs need as ST_V-wide shared loads. Columns first: the input row goes through the row
// buffer, the pass along columns gives ST_V intermediate values a row that the thread keeps
// in registers, and the pass along rows reads ST_MY of them per output row. The row buffer is
// double buffered, so one warp barrier per row orders the writes of a row before its reads
// and the reads of a row before the writes two rows later. Input rows are loaded ST_PD rows
// ahead of their first use, so that loads stay in flight across the barrier.
//
// Built after `boundary.cu` and the typed header (`filters_elem.rs`) defining `T`, `C`,
// `img_ld`, `img_st`, `img_madd`, with ST_MY, ST_MX (at most 33), ST_SYMY, ST_SYMX (1
// symmetric, -1 antisymmetric, 0 plain: `filters_sep.cu`'s summation orders), ST_XFIRST, ST_V
// (1, 2 or 4), ST_SH and ST_PD. Blocks are ST_WARPS warps, each on its own tiles.

constexpr int ST_WARPS = 4;
constexpr int ST_TW = 32 * ST_V;
// Rows of input a strip reads.
constexpr int ST_NR = ST_SH + ST_MY - 1;
// Values a lane reads back from the row buffer, rounded up to whole ST_V-wide loads.
constexpr int ST_LV = (ST_V + ST_MX - 1 + ST_V - 1) / ST_V * ST_V;
// The row buffer: every lane's reads, rounded up to 16 bytes.
constexpr int ST_NB0 = ST_V * 31 + ST_LV;
constexpr int ST_NB = (ST_NB0 + 3) / 4 * 4;
static_assert(ST_MX - 1 <= 32, "the halo columns take one lane each");
static_assert(ST_V == 1 || ST_V == 2 || ST_V == 4, "lanes hold 1, 2 or 4 columns");

// Output `p` from the values `v` (its taps are v[p .. p + M - 1]) in `filters_sep.cu`'s
// summation order for SYM.
template <int M, int SYM, int N>
__device__ __forceinline__ C strip_out(const C (&v)[N], const C (&w)[M], int p) {
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

// ST_V working values between registers and the row buffer at `p` (aligned to ST_V values).
__device__ __forceinline__ void strip_lds(const float *p, float *v) {
  if (ST_V == 4) {
    const float4 q = *reinterpret_cast<const float4 *>(p);
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
  } else if (ST_V == 2) {
    const float2 q = *reinterpret_cast<const float2 *>(p);
    v[0] = q.x;
    v[1] = q.y;
  } else {
    v[0] = p[0];
  }
}
__device__ __forceinline__ void strip_lds(const double *p, double *v) {
#pragma unroll
  for (int k = 0; k < ST_V; k += 2) {
    if (ST_V == 1) {
      v[0] = p[0];
    } else {
      const double2 q = *reinterpret_cast<const double2 *>(p + k);
      v[k] = q.x;
      v[k + 1] = q.y;
    }
  }
}
__device__ __forceinline__ void strip_sts(float *p, const float *v) {
  if (ST_V == 4) {
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else if (ST_V == 2) {
    *reinterpret_cast<float2 *>(p) = make_float2(v[0], v[1]);
  } else {
    p[0] = v[0];
  }
}
__device__ __forceinline__ void strip_sts(double *p, const double *v) {
#pragma unroll
  for (int k = 0; k < ST_V; k += 2) {
    if (ST_V == 1) {
      p[0] = v[0];
    } else {
      *reinterpret_cast<double2 *>(p + k) = make_double2(v[k], v[k + 1]);
    }
  }
}

// The raw word of ST_V stored values (their bytes, aligned to at most 16).
template <int B> struct strip_raw;
template <> struct strip_raw<1> { typedef unsigned char t; };
template <> struct strip_raw<2> { typedef unsigned short t; };
template <> struct strip_raw<4> { typedef unsigned int t; };
template <> struct strip_raw<8> { typedef uint2 t; };
template <> struct strip_raw<16> { typedef uint4 t; };
struct strip_raw32 {
  uint4 a, b;
};
template <> struct strip_raw<32> { typedef strip_raw32 t; };
union strip_vec {
  typename strip_raw<ST_V * sizeof(T)>::t r;
  T e[ST_V];
};
// The alignment a vector access of ST_V stored values needs.
constexpr unsigned long long ST_AL = ST_V * sizeof(T) > 16 ? 16 : ST_V * sizeof(T);

__device__ __forceinline__ void img_strip(const T *__restrict__ x, const C *__restrict__ wy,
                                          const C *__restrict__ wx, T *__restrict__ y,
                                          i64t batch, i64t h, i64t w, i64t cy, i64t cx,
                                          i64t mode, double cval, double divy, double divx) {
  __shared__ __align__(16) C strip_buf[ST_WARPS][2][ST_NB];
  const int l = threadIdx.x & 31, wp = threadIdx.x >> 5;
  const bool cst = mode == 1 || mode == 5;
  const C cv = (C)cval;
  C wr[ST_MY], wc[ST_MX];
#pragma unroll
  for (int j = 0; j < ST_MY; ++j) wr[j] = wy[j];
#pragma unroll
  for (int j = 0; j < ST_MX; ++j) wc[j] = wx[j];
  const bool halo = l < ST_MX - 1;
  // Vector accesses need rows whose starts keep the alignment of their first element.
  const bool rows_al = w % ST_V == 0 && reinterpret_cast<unsigned long long>(x) % ST_AL == 0 &&
                       reinterpret_cast<unsigned long long>(y) % ST_AL == 0;
  const i64t tn_y = (h + ST_SH - 1) / ST_SH, tn_x = (w + ST_TW - 1) / ST_TW;
  const i64t total = batch * tn_y * tn_x;
  for (i64t t = (i64t)blockIdx.x * ST_WARPS + wp; t < total; t += (i64t)gridDim.x * ST_WARPS) {
    const i64t tx0 = (t % tn_x) * ST_TW;
    const i64t r = t / tn_x;
    const i64t ty0 = (r % tn_y) * ST_SH;
    const T *xb = x + (r / tn_y) * h * w;
    T *yb = y + (r / tn_y) * h * w;
    const i64t y0 = ty0 - cy;
    const bool rin = y0 >= 0 && y0 + ST_NR <= h;
    // The lane's input columns: mapped (-1: the constant), and whether the ST_V of them are
    // one aligned run inside the image.
    const i64t c0 = tx0 - cx + ST_V * l;
    i64t gx[ST_V + 1];
#pragma unroll
    for (int i = 0; i < ST_V; ++i) gx[i] = img_map(c0 + i, w, (int)mode);
    gx[ST_V] = halo ? img_map(tx0 - cx + ST_TW + l, w, (int)mode) : 0;
    const bool vin = ST_V > 1 && rows_al && c0 >= 0 && c0 + ST_V <= w && c0 % ST_V == 0;
    // The ST_V + 1 input values of row q (of the strip's ST_NR) into v[i][q].
    auto load = [&](C(&v)[ST_V + 1][ST_NR], int q) {
      const i64t gy = rin ? y0 + q : img_map(y0 + q, h, (int)mode);
      if (gy < 0) {
#pragma unroll
        for (int i = 0; i <= ST_V; ++i) v[i][q] = cv;
        return;
      }
      const T *row = xb + gy * w;
      if (vin) {
        strip_vec u;
        u.r = *reinterpret_cast<const typename strip_raw<ST_V * sizeof(T)>::t *>(row + c0);
#pragma unroll
        for (int i = 0; i < ST_V; ++i) v[i][q] = img_ld(u.e[i]);
      } else {
#pragma unroll
        for (int i = 0; i < ST_V; ++i) v[i][q] = gx[i] >= 0 ? img_ld(row[gx[i]]) : cv;
      }
      v[ST_V][q] = halo && gx[ST_V] >= 0 ? img_ld(row[gx[ST_V]]) : cv;
    };
    // The ST_V outputs `a` of output row `oy`, stored where they lie in the image.
    auto store = [&](const C(&a)[ST_V], i64t oy) {
      const i64t ox = tx0 + ST_V * l;
      if (oy >= h || ox >= w) return;
      T *p = yb + oy * w + ox;
      if (ST_V > 1 && rows_al && ox + ST_V <= w) {
        strip_vec u;
#pragma unroll
        for (int i = 0; i < ST_V; ++i) u.e[i] = img_st(a[i]);
        *reinterpret_cast<typename strip_raw<ST_V * sizeof(T)>::t *>(p) = u.r;
      } else {
#pragma unroll
        for (int i = 0; i < ST_V; ++i)
          if (ox + i < w) p[i] = img_st(a[i]);
      }
    };
    // The ST_V outputs of a pass along columns from the row buffer `b`.
    auto xpass = [&](const C *b, C(&a)[ST_V]) {
      C v[ST_LV];
#pragma unroll
      for (int j = 0; j < ST_LV; j += ST_V) strip_lds(b + ST_V * l + j, v + j);
#pragma unroll
      for (int p = 0; p < ST_V; ++p) {
        a[p] = strip_out<ST_MX, ST_SYMX>(v, wc, p);
        if (divx != 1.0) a[p] = a[p] / (C)divx;
      }
    };
    C in[ST_V + 1][ST_NR];
    if (!ST_XFIRST) {
      // Whether each of the lane's columns is outside the image under a constant mode: its
      // intermediate is `cval`.
      bool cout[ST_V + 1];
#pragma unroll
      for (int i = 0; i <= ST_V; ++i) cout[i] = cst && gx[i] < 0;
      constexpr int pre = ST_MY - 1 + ST_PD < ST_NR ? ST_MY - 1 + ST_PD : ST_NR;
#pragma unroll
      for (int q = 0; q < pre; ++q) load(in, q);
#pragma unroll
      for (int p = 0; p < ST_SH; ++p) {
        if (p + ST_MY - 1 + ST_PD < ST_NR) load(in, p + ST_MY - 1 + ST_PD);
        C m[ST_V + 1];
#pragma unroll
        for (int i = 0; i <= ST_V; ++i) {
          C a = strip_out<ST_MY, ST_SYMY>(in[i], wr, p);
          if (divy != 1.0) a = a / (C)divy;
          m[i] = cout[i] ? cv : img_ld(img_st(a));
        }
        C *b = strip_buf[wp][p & 1];
        strip_sts(b + ST_V * l, m);
        if (halo) b[ST_TW + l] = m[ST_V];
        __syncwarp();
        C o[ST_V];
        xpass(b, o);
        store(o, ty0 + p);
      }
    } else {
      // The intermediate rows of the lane's ST_V columns.
      C mid[ST_V][ST_NR];
      constexpr int pre = ST_PD < ST_NR ? ST_PD : ST_NR;
#pragma unroll
      for (int q = 0; q < pre; ++q) load(in, q);
#pragma unroll
      for (int q = 0; q < ST_NR; ++q) {
        if (q + ST_PD < ST_NR) load(in, q + ST_PD);
        C *b = strip_buf[wp][q & 1];
        C rv[ST_V];
#pragma unroll
        for (int i = 0; i < ST_V; ++i) rv[i] = in[i][q];
        strip_sts(b + ST_V * l, rv);
        if (halo) b[ST_TW + l] = in[ST_V][q];
        __syncwarp();
        C a[ST_V];
        xpass(b, a);
        const bool rout = cst && img_map(y0 + q, h, (int)mode) < 0;
#pragma unroll
        for (int i = 0; i < ST_V; ++i) mid[i][q] = rout ? cv : img_ld(img_st(a[i]));
        if (q >= ST_MY - 1) {
          const int p = q - (ST_MY - 1);
          C o[ST_V];
#pragma unroll
          for (int i = 0; i < ST_V; ++i) {
            o[i] = strip_out<ST_MY, ST_SYMY>(mid[i], wr, p);
            if (divy != 1.0) o[i] = o[i] / (C)divy;
          }
          store(o, ty0 + p);
        }
      }
    }
    // The next tile's first writes to the row buffer come after every lane's last reads.
    __syncwarp();
  }
}
