// ArrayFire's `approx1` and `approx2` on a batch of `batch` signals (APX_RANK 1: `[n0]`) or
// images (APX_RANK 2: `[n0, n1]`, row-major), each sampled at `plane` points whose coordinates
// come from the position arrays `p0` (along axis 0) and `p1` (along axis 1): the coordinate of
// a position `q` is `(q - start) / step` in REAL. A point whose coordinate on some axis lies
// outside `[0, n - 1]` or is NaN (a NaN or infinite position) takes `off`. Inside, the
// taps around the coordinate are read with their indices clamped to the edge: ArrayFire's
// nearest (APX_KIND 0: the sample at `round(c)`), lower (1: at `floor(c)`), linear (2), linear
// with cosine smoothing (3), cubic (4) and cubic spline (5), the weights those of
// af_weights.cu; in two dimensions the taps of each row (axis 0) are summed along axis 1 first,
// then the rows. `approx_call.rs` holds the CPU twin, which computes the same arithmetic in the
// same order.
//
// Each thread takes APX_PER points `u0 + k stride` (`stride` the threads of the launch, a grid-
// stride loop over the points `u`), consecutive threads at consecutive points, so that the
// positions are read and the outputs written coalesced; the positions of all its points are
// loaded before any is used, so that their loads are in flight together. With APX_SHARED the
// positions are those of every signal of the batch: a point `u` is the position `u % plane` of
// the signals `[g group, (g + 1) group)` for `g = u / plane`, its coordinates and taps found
// once for them all; otherwise `u` is the flat index of one output and of its positions. In
// the 32-bit form `u / plane` is a multiply-high by `pmagic = ceil(2^64 / plane)` (0 when
// `plane` is 1), exact for every 32-bit `u` and `plane`. Along axis `a`, APX_DIVa 1 divides
// by the step; 0 multiplies by `inv_a`, the step's reciprocal, exact because the step is a
// power of two whose reciprocal REAL holds, so the product is the same correctly rounded value
// as the quotient. The image taps are read through the read-only data cache (`__ldg`): no
// kernel writes the image while this one runs.
//
// Built after a header that defines REAL (float or double), VT (REAL, or the complex pair type
// `float2`/`double2` when APX_WIDTH is 2), APX_RANK, APX_KIND, APX_SHARED, APX_DOUBLE (REAL is
// double), APX_I32 (every index of the call, and the loop counter past the last point, fits in
// 32 bits), APX_DIV0, APX_DIV1, APX_PER, APX_THREADS, APX_WX, APX_RB, APX_VEC and APX_GROUP
// (the tiled form below: threads across a tile, rows of a tile, points a thread, whether a
// thread may serve several signals; PV the 16-byte vector of APX_VEC REALs when APX_VEC > 1,
// which only real values take), `i64t` and `u64t`, and after af_weights.cu.

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

// The coordinate of position `q` on an axis of `n` samples (`nr`, as REAL), `(q - start) /
// step` (with DIV; else the same value as `(q - start) * inv`, see above), and whether it
// lies on the grid `[0, n - 1]` (false for NaN), as ArrayFire's `x < 0 || n < x + 1` test.
template <bool DIV>
__device__ __forceinline__ bool apx_coord(REAL q, REAL start, REAL step, REAL inv, REAL nr,
                                          REAL *c) {
  const REAL d = q - start;
  const REAL x = DIV ? d / step : d * inv;
  *c = x;
  return x >= (REAL)0 && x + (REAL)1 <= nr;
}

// `u / plane` for the point `u` (see above).
__device__ __forceinline__ IX apx_quot(IX u, IX np, u64t pmagic) {
#if APX_I32
  (void)np;
  return pmagic == 0ull ? u : (IX)__umul64hi(pmagic, (u64t)(unsigned)u);
#else
  (void)pmagic;
  return u / np;
#endif
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
  if (APX_TAPS == 1) return __ldg(xb + idx[0][0]);
  VT acc = apx_zero();
#pragma unroll
  for (int i = 0; i < APX_TAPS; ++i) acc = apx_add_scaled(acc, __ldg(xb + idx[0][i]), w[0][i]);
  return acc;
#else
  if (APX_TAPS == 1) return __ldg(xb + idx[0][0] * n1 + idx[1][0]);
  VT acc = apx_zero();
#pragma unroll
  for (int j = 0; j < APX_TAPS; ++j) {
    const VT *row = xb + idx[0][j] * n1;
    VT r = apx_zero();
#pragma unroll
    for (int i = 0; i < APX_TAPS; ++i) r = apx_add_scaled(r, __ldg(row + idx[1][i]), w[1][i]);
    acc = apx_add_scaled(acc, r, w[0][j]);
  }
  return acc;
#endif
}

__device__ __forceinline__ void approx_run(
    const VT *__restrict__ x, const REAL *__restrict__ p0, const REAL *__restrict__ p1,
    VT *__restrict__ y, i64t batch, i64t group, i64t n0, i64t n1, i64t plane, i64t cols,
    i64t units, u64t pmagic, double start0, double step0, double inv0, double start1,
    double step1, double inv1, double off_re, double off_im) {
  (void)cols;
  const IX nn0 = (IX)n0, nn1 = (IX)n1, np = (IX)plane, nu = (IX)units;
  const IX npix = nn0 * nn1;
  const REAL s0 = (REAL)start0, d0 = (REAL)step0, r0 = (REAL)inv0, e0 = (REAL)nn0;
#if APX_RANK == 2
  const REAL s1 = (REAL)start1, d1 = (REAL)step1, r1 = (REAL)inv1, e1 = (REAL)nn1;
#endif
  const VT off = apx_value(off_re, off_im);
  const IX stride = (IX)gridDim.x * APX_THREADS;
  for (IX u0 = (IX)blockIdx.x * APX_THREADS + (IX)threadIdx.x; u0 < nu;
       u0 += (IX)APX_PER * stride) {
    // Where each point's positions lie (`at`), and the positions, all loaded first.
    IX at[APX_PER];
    REAL q0[APX_PER];
#if APX_RANK == 2
    REAL q1[APX_PER];
#endif
#pragma unroll
    for (int k = 0; k < APX_PER; ++k) {
      const IX u = u0 + (IX)k * stride;
      const bool live = u < nu;
#if APX_SHARED
      at[k] = live ? u - apx_quot(u, np, pmagic) * np : 0;
#else
      at[k] = live ? u : 0;
#endif
      q0[k] = live ? __ldg(p0 + at[k]) : (REAL)0;
#if APX_RANK == 2
      q1[k] = live ? __ldg(p1 + at[k]) : (REAL)0;
#endif
    }
#pragma unroll
    for (int k = 0; k < APX_PER; ++k) {
      const IX u = u0 + (IX)k * stride;
      if (u >= nu) break;
      const IX g = apx_quot(u, np, pmagic);
      const IX p = u - g * np;
#if APX_SHARED
      const IX b0 = g * (IX)group;
      const IX b1 = b0 + (IX)group < (IX)batch ? b0 + (IX)group : (IX)batch;
#else
      const IX b0 = g;
      const IX b1 = g + 1;
#endif
      REAL c0;
      bool inside = apx_coord<APX_DIV0 != 0>(q0[k], s0, d0, r0, e0, &c0);
#if APX_RANK == 2
      REAL c1;
      inside = apx_coord<APX_DIV1 != 0>(q1[k], s1, d1, r1, e1, &c1) && inside;
#endif
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
}

#if APX_RANK == 2
#if APX_VEC > 1
__device__ __forceinline__ void apx_unpack(const float4 &v, float *o) {
  o[0] = v.x;
  o[1] = v.y;
  o[2] = v.z;
  o[3] = v.w;
}
__device__ __forceinline__ void apx_unpack(const double2 &v, double *o) {
  o[0] = v.x;
  o[1] = v.y;
}
__device__ __forceinline__ void apx_pack(const float *o, float4 *v) {
  *v = make_float4(o[0], o[1], o[2], o[3]);
}
__device__ __forceinline__ void apx_pack(const double *o, double2 *v) {
  *v = make_double2(o[0], o[1]);
}
#endif

// The tiled form of a two-dimensional call: the points of a plane form `plane / cols` rows of
// `cols`, and block `blockIdx.x` takes one tile of APX_RB rows of APX_WX APX_VEC points of one
// slab (a group of signals sharing the positions, or one signal's own positions: slab `s` holds
// the points `[s plane, (s + 1) plane)` of the loop above). Thread (tx, ty) = (threadIdx.x %
// APX_WX, threadIdx.x / APX_WX) takes the APX_VEC consecutive points of row `ty` from column
// `APX_WX APX_VEC t + APX_VEC tx` of its tile: the positions and outputs of a row of the tile
// are consecutive (with APX_VEC > 1, 16-byte vectors PV: the rows hold whole vectors and the
// buffers start 16-byte aligned), and a warp's points (32 / APX_WX rows of the tile) are
// neighbours on both axes, so that a smooth warp of the grid reads a compact patch of the image
// through the caches. Each point's value is the arithmetic of the loop above; the launch has one
// block a tile, APX_THREADS = APX_WX APX_RB threads. A slab spans one signal (b1 - b0 == 1)
// unless APX_GROUP, which builds the path of a group of signals sharing the positions.
__device__ __forceinline__ void approx_tiled(
    const VT *__restrict__ x, const REAL *__restrict__ p0, const REAL *__restrict__ p1,
    VT *__restrict__ y, i64t batch, i64t group, i64t n0, i64t n1, i64t plane, i64t cols,
    i64t units, u64t pmagic, double start0, double step0, double inv0, double start1,
    double step1, double inv1, double off_re, double off_im) {
  (void)units;
  (void)pmagic;
  const IX nn0 = (IX)n0, nn1 = (IX)n1, np = (IX)plane, nc = (IX)cols;
  const IX nr = np / nc;
  const IX npix = nn0 * nn1;
  const REAL s0 = (REAL)start0, d0 = (REAL)step0, r0 = (REAL)inv0, e0 = (REAL)nn0;
  const REAL s1 = (REAL)start1, d1 = (REAL)step1, r1 = (REAL)inv1, e1 = (REAL)nn1;
  const VT off = apx_value(off_re, off_im);
  constexpr int W = APX_WX * APX_VEC;
  const IX tc = (nc + W - 1) / W;
  const IX tiles = tc * ((nr + APX_RB - 1) / APX_RB);
  const IX sl = (IX)blockIdx.x / tiles;
  const IX t = (IX)blockIdx.x - sl * tiles;
  const IX row = (t / tc) * APX_RB + (IX)(threadIdx.x / APX_WX);
  const IX col = (t % tc) * W + APX_VEC * (IX)(threadIdx.x % APX_WX);
  if (row >= nr || col >= nc) return;
  const IX p = row * nc + col;
#if APX_SHARED
  const IX at = p;
  const IX b0 = sl * (IX)group;
  const IX b1 = b0 + (IX)group < (IX)batch ? b0 + (IX)group : (IX)batch;
#else
  const IX at = sl * np + p;
  const IX b0 = sl;
  const IX b1 = sl + 1;
#endif
  const int live = nc - col < (IX)APX_VEC ? (int)(nc - col) : APX_VEC;
  REAL q0[APX_VEC], q1[APX_VEC];
#if APX_VEC > 1
  if (live == APX_VEC) {
    apx_unpack(__ldg(reinterpret_cast<const PV *>(p0 + at)), q0);
    apx_unpack(__ldg(reinterpret_cast<const PV *>(p1 + at)), q1);
  } else
#endif
  {
#pragma unroll
    for (int k = 0; k < APX_VEC; ++k) {
      q0[k] = k < live ? __ldg(p0 + at + k) : (REAL)0;
      q1[k] = k < live ? __ldg(p1 + at + k) : (REAL)0;
    }
  }
#if APX_GROUP
  if (b1 - b0 == 1)
#endif
  {
    // One signal: each point's value in turn (few registers live), then one store.
    VT v[APX_VEC];
#pragma unroll
    for (int k = 0; k < APX_VEC; ++k) {
      REAL c0, c1;
      bool inside = apx_coord<APX_DIV0 != 0>(q0[k], s0, d0, r0, e0, &c0);
      inside = apx_coord<APX_DIV1 != 0>(q1[k], s1, d1, r1, e1, &c1) && inside;
      v[k] = off;
      if (inside) {
        IX idx[2][APX_TAPS];
        REAL w[2][APX_TAPS];
        apx_taps(c0, nn0, idx[0], w[0]);
        apx_taps(c1, nn1, idx[1], w[1]);
        v[k] = apx_sum(x + b0 * npix, nn1, idx, w);
      }
    }
    VT *yb = y + b0 * np + p;
#if APX_VEC > 1
    if (live == APX_VEC) {
      apx_pack(v, reinterpret_cast<PV *>(yb));
      return;
    }
#endif
#pragma unroll
    for (int k = 0; k < APX_VEC; ++k)
      if (k < live) yb[k] = v[k];
    return;
  }
#if APX_GROUP
  // A group of signals: each point's taps found once for all of them.
  for (int k = 0; k < live; ++k) {
    REAL c0, c1;
    bool inside = apx_coord<APX_DIV0 != 0>(q0[k], s0, d0, r0, e0, &c0);
    inside = apx_coord<APX_DIV1 != 0>(q1[k], s1, d1, r1, e1, &c1) && inside;
    if (!inside) {
      for (IX b = b0; b < b1; ++b) y[b * np + p + k] = off;
      continue;
    }
    IX idx[2][APX_TAPS];
    REAL w[2][APX_TAPS];
    apx_taps(c0, nn0, idx[0], w[0]);
    apx_taps(c1, nn1, idx[1], w[1]);
    for (IX b = b0; b < b1; ++b) y[b * np + p + k] = apx_sum(x + b * npix, nn1, idx, w);
  }
#endif
}
#endif
