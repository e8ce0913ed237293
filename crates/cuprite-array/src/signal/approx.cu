// ArrayFire's `approx1` and `approx2` on a batch of `batch` signals (APX_RANK 1: `[n0]`) or
// images (APX_RANK 2: `[n0, n1]`, row-major), each sampled at `plane` points whose coordinates
// come from the position arrays `p0` (along axis 0) and `p1` (along axis 1): the coordinate of
// a position `q` is `(q - start) / step` in REAL. A point whose coordinate on some axis lies
// outside `[0, n - 1]` (or is NaN) takes `off`; a NaN position also raises `chk`. Inside, the
// taps around the coordinate are read with their indices clamped to the edge: ArrayFire's
// nearest (APX_KIND 0: the sample at `round(c)`), lower (1: at `floor(c)`), linear (2), linear
// with cosine smoothing (3), cubic (4) and cubic spline (5), the weights those of
// af_weights.cu; in two dimensions the taps of each row (axis 0) are summed along axis 1 first,
// then the rows. `approx_call.rs` holds the CPU twin, which computes the same arithmetic in the
// same order.
//
// One output point per thread (a grid-stride loop over the points `u`), consecutive threads at
// consecutive points, so that the positions are read and the outputs written coalesced. With
// APX_SHARED the positions are those of every signal of the batch: a point `u` is the position
// `u % plane` of the signals `[g group, (g + 1) group)` for `g = u / plane`, its coordinates and
// taps found once for them all; otherwise `u` is the flat index of one output and of its
// positions. Built after a header that defines REAL (float or double), VT (REAL, or the
// complex pair type `float2`/`double2` when APX_WIDTH is 2), APX_RANK, APX_KIND, APX_SHARED,
// APX_DOUBLE (REAL is double), APX_I32 (every index of the call fits in 32 bits), APX_THREADS
// and `i64t`, and after af_weights.cu.

#if APX_I32
typedef int IX;
#else
typedef long long IX;
#endif

#if APX_DOUBLE
__device__ __forceinline__ REAL apx_floor(REAL v) { return floor(v); }
__device__ __forceinline__ REAL apx_round(REAL v) { return round(v); }
#else
__device__ __forceinline__ REAL apx_floor(REAL v) { return floorf(v); }
__device__ __forceinline__ REAL apx_round(REAL v) { return roundf(v); }
#endif

constexpr int APX_TAPS = APX_KIND <= 1 ? 1 : (APX_KIND <= 3 ? 2 : 4);

#if APX_WIDTH == 2
__device__ __forceinline__ VT apx_zero() { VT z; z.x = (REAL)0; z.y = (REAL)0; return z; }
__device__ __forceinline__ VT apx_add_scaled(VT acc, VT v, REAL w) {
  acc.x = acc.x + v.x * w;
  acc.y = acc.y + v.y * w;
  return acc;
}
__device__ __forceinline__ VT apx_value(double re, double im) {
  VT z; z.x = (REAL)re; z.y = (REAL)im; return z;
}
#else
__device__ __forceinline__ VT apx_zero() { return (REAL)0; }
__device__ __forceinline__ VT apx_add_scaled(VT acc, VT v, REAL w) { return acc + v * w; }
__device__ __forceinline__ VT apx_value(double re, double) { return (REAL)re; }
#endif

// The coordinate of position `q`, and whether it lies on the grid `[0, n - 1]` (false for
// NaN), as ArrayFire's `x < 0 || n < x + 1` test.
__device__ __forceinline__ bool apx_coord(REAL q, double start, double step, IX n, REAL *c) {
  const REAL x = (q - (REAL)start) / (REAL)step;
  *c = x;
  return x >= (REAL)0 && x + (REAL)1 <= (REAL)n;
}

// The taps of one axis of `n` samples for a coordinate `c` in `[0, n - 1]`.
__device__ __forceinline__ void apx_taps(REAL c, IX n, IX *idx, REAL *w) {
#if APX_KIND == 0
  idx[0] = (IX)apx_round(c);
  w[0] = (REAL)1;
#elif APX_KIND == 1
  idx[0] = (IX)apx_floor(c);
  w[0] = (REAL)1;
#else
  const REAL g = apx_floor(c);
  const REAL t = c - g;
  const IX gi = (IX)g;
#if APX_KIND <= 3
  idx[0] = gi;
  idx[1] = gi + 1 < n ? gi + 1 : n - 1;
  af_linear_weights(t, APX_KIND == 3, w);
#else
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const IX i = gi - 1 + k;
    idx[k] = i < 0 ? 0 : (i < n ? i : n - 1);
  }
  af_cubic_weights(t, APX_KIND == 5, w);
#endif
#endif
}

// The interpolated value of signal `xb` at the taps.
__device__ __forceinline__ VT apx_sum(const VT *__restrict__ xb, IX n1, const IX (*idx)[APX_TAPS],
                                      const REAL (*w)[APX_TAPS]) {
#if APX_RANK == 1
  if (APX_TAPS == 1) return xb[idx[0][0]];
  VT acc = apx_zero();
#pragma unroll
  for (int i = 0; i < APX_TAPS; ++i) acc = apx_add_scaled(acc, xb[idx[0][i]], w[0][i]);
  return acc;
#else
  if (APX_TAPS == 1) return xb[idx[0][0] * n1 + idx[1][0]];
  VT acc = apx_zero();
#pragma unroll
  for (int j = 0; j < APX_TAPS; ++j) {
    const VT *row = xb + idx[0][j] * n1;
    VT r = apx_zero();
#pragma unroll
    for (int i = 0; i < APX_TAPS; ++i) r = apx_add_scaled(r, row[idx[1][i]], w[1][i]);
    acc = apx_add_scaled(acc, r, w[0][j]);
  }
  return acc;
#endif
}

__device__ __forceinline__ void approx_run(
    const VT *__restrict__ x, const REAL *__restrict__ p0, const REAL *__restrict__ p1,
    VT *__restrict__ y, unsigned int *__restrict__ chk, i64t batch, i64t group, i64t n0, i64t n1,
    i64t plane, i64t units, double start0, double step0, double start1, double step1,
    double off_re, double off_im) {
  const IX nn0 = (IX)n0, nn1 = (IX)n1, np = (IX)plane;
  const IX npix = nn0 * nn1;
  const VT off = apx_value(off_re, off_im);
  const IX stride = (IX)gridDim.x * APX_THREADS;
  for (IX u = (IX)blockIdx.x * APX_THREADS + (IX)threadIdx.x; u < (IX)units; u += stride) {
#if APX_SHARED
    const IX g = u / np;
    const IX p = u - g * np;
    const IX b0 = g * (IX)group;
    const IX b1 = b0 + (IX)group < (IX)batch ? b0 + (IX)group : (IX)batch;
    const IX at = p;
#else
    const IX b0 = u / np;
    const IX p = u - b0 * np;
    const IX b1 = b0 + 1;
    const IX at = u;
#endif
    const REAL q0 = p0[at];
    REAL c0;
    bool inside = apx_coord(q0, start0, step0, nn0, &c0);
    bool nan = q0 != q0;
#if APX_RANK == 2
    const REAL q1 = p1[at];
    REAL c1;
    inside = apx_coord(q1, start1, step1, nn1, &c1) && inside;
    nan = nan || q1 != q1;
#endif
    if (nan) *chk = 1u;
    if (!inside) {
      for (IX b = b0; b < b1; ++b) y[b * np + p] = off;
      continue;
    }
    IX idx[APX_RANK][APX_TAPS];
    REAL w[APX_RANK][APX_TAPS];
    apx_taps(c0, nn0, idx[0], w[0]);
#if APX_RANK == 2
    apx_taps(c1, nn1, idx[1], w[1]);
#endif
    for (IX b = b0; b < b1; ++b) y[b * np + p] = apx_sum(x + b * npix, nn1, idx, w);
  }
}
