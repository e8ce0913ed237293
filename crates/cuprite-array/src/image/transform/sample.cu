// The resampler of the geometric transforms: every output point `o` of a batch of images of
// GEO_RANK axes takes the interpolated input value at coordinates `c(o)`: an affine map
// `c = M o + t` (divided by `p . o + p3` when GEO_PERSP), or the columns of a coordinates array
// (GEO_COORDS). See `sample.rs` for the parameters and the CPU twin, which computes the same
// arithmetic in the same order (the coordinates rounded as there: no fused multiply-adds).
//
// GEO_KIND: 0 SciPy's B-spline of order GEO_ORDER with SciPy's boundary rules (the point's
// coordinate mapped into the image by `geo_map_coord`, taps outside mapped by `img_map` in the
// spline mode); 1 ArrayFire's nearest (round half up), 2 its lower (floor), 3 its bilinear, 4
// its bicubic, 5 its bicubic spline (Catmull-Rom): a point outside [-1e-4, n) on an axis takes
// `cval`, taps outside are mapped by `img_map` in `mode`; 6 the area average (the input cells
// `[floor(o n / l), ceil((o + 1) n / l))` of each axis).
//
// Threads run along the last axis of the output, GEO_PER outputs each; a block row covers a
// stretch of one output line (fixed batch index and leading output indices), lines strided
// over gridDim.y (a diagonal map's blocks take several lines each, the last axis's taps
// computed once for all of them). Built
// after a typed header that defines GEO_IN and GEO_OUT (element codes: 0 u8, 1 u16, 2 f16,
// 3 f32, 4 f64), GEO_WIDE (compute in double), GEO_RANK, GEO_ORDER, GEO_KIND, GEO_COORDS,
// GEO_PERSP, GEO_SEP (a diagonal affine map: each coordinate follows its own output index),
// GEO_I32 (every index of the call fits in 32 bits), GEO_THREADS and GEO_PER, and
// after `img_map` (boundary.cu), ArrayFire's weights (af_weights.cu) and the half helpers.

#if GEO_I32
typedef int IX;
#else
typedef long long IX;
#endif

#if GEO_WIDE
typedef double W;
#else
typedef float W;
#endif

#if GEO_IN == 0
typedef unsigned char TI;
__device__ __forceinline__ W geo_ld(TI v) { return (W)v; }
#elif GEO_IN == 1
typedef unsigned short TI;
__device__ __forceinline__ W geo_ld(TI v) { return (W)v; }
#elif GEO_IN == 2
typedef unsigned short TI;
__device__ __forceinline__ W geo_ld(TI v) { return (W)h2f(v); }
#elif GEO_IN == 3
typedef float TI;
__device__ __forceinline__ W geo_ld(TI v) { return (W)v; }
#else
typedef double TI;
__device__ __forceinline__ W geo_ld(TI v) { return (W)v; }
#endif

// Integer outputs as SciPy stores them: rounded half up, negative values and NaN to 0, values
// past the type's maximum to the maximum.
#if GEO_OUT == 0
typedef unsigned char TO;
__device__ __forceinline__ TO geo_st(W v) { return v > (W)0 ? (TO)fmin((double)v + 0.5, 255.0) : (TO)0; }
#elif GEO_OUT == 1
typedef unsigned short TO;
__device__ __forceinline__ TO geo_st(W v) { return v > (W)0 ? (TO)fmin((double)v + 0.5, 65535.0) : (TO)0; }
#elif GEO_OUT == 2
typedef unsigned short TO;
__device__ __forceinline__ TO geo_st(W v) { return f2h((float)v); }
#elif GEO_OUT == 3
typedef float TO;
__device__ __forceinline__ TO geo_st(W v) { return (TO)v; }
#else
typedef double TO;
__device__ __forceinline__ TO geo_st(W v) { return (TO)v; }
#endif

constexpr int GEO_TAPS = GEO_KIND == 0 ? GEO_ORDER + 1
                       : (GEO_KIND == 3 ? 2 : (GEO_KIND >= 4 && GEO_KIND <= 5 ? 4 : 1));

// SciPy's mapping of a coordinate outside [0, n - 1] (its `map_coordinate`), by mode code
// (Boundary::code); -1 marks the constant. Nearest and grid-constant are not mapped here.
__device__ __forceinline__ double geo_map_coord(double in, long long len, int mode) {
  if (in < 0) {
    switch (mode) {
    case 3:
      if (len <= 1) return 0;
      {
        const long long sz2 = 2 * len - 2;
        in = sz2 * (double)(long long)(-in / sz2) + in;
        return in <= 1 - len ? in + sz2 : -in;
      }
    case 0:
      if (len <= 1) return 0;
      {
        const long long sz2 = 2 * len;
        if (in < -sz2) in = sz2 * (double)(long long)(-in / sz2) + in;
        return in < -len ? in + sz2 : (in > -1e-15 ? 1e-15 : -in) - 1;
      }
    case 4:
      if (len <= 1) return 0;
      {
        const long long sz = len - 1;
        return in + sz * (double)((long long)(-in / sz) + 1);
      }
    case 6:
      if (len <= 1) return 0;
      return in + len * (double)((long long)((-1 - in) / len) + 1);
    case 1:
      return -1;
    default:
      return in;
    }
  } else if (in > len - 1) {
    switch (mode) {
    case 3:
      if (len <= 1) return 0;
      {
        const long long sz2 = 2 * len - 2;
        in -= sz2 * (double)(long long)(in / sz2);
        return in >= len ? sz2 - in : in;
      }
    case 0:
      if (len <= 1) return 0;
      {
        const long long sz2 = 2 * len;
        in -= sz2 * (double)(long long)(in / sz2);
        return in >= len ? sz2 - in - 1 : in;
      }
    case 4:
      if (len <= 1) return 0;
      {
        const long long sz = len - 1;
        return in - sz * (double)(long long)(in / sz);
      }
    case 6:
      if (len <= 1) return 0;
      return in - len * (double)(long long)(in / len);
    case 1:
      return -1;
    default:
      return in;
    }
  }
  return in;
}

// SciPy's B-spline weights of order GEO_ORDER at `x` (the taps from `start`): the last is one
// minus the others.
__device__ __forceinline__ void geo_bspline(double x, W *w) {
  x -= floor((GEO_ORDER & 1) ? x : x + 0.5);
  const W y = (W)x, z = (W)1 - (W)x;
#if GEO_ORDER == 1
  w[0] = (W)1 - y;
#elif GEO_ORDER == 2
  w[1] = (W)0.75 - y * y;
  const W u = (W)0.5 - y;
  w[0] = (W)0.5 * u * u;
#elif GEO_ORDER == 3
  w[1] = (y * y * (y - (W)2) * (W)3 + (W)4) / (W)6;
  w[2] = (z * z * (z - (W)2) * (W)3 + (W)4) / (W)6;
  w[0] = z * z * z / (W)6;
#elif GEO_ORDER == 4
  const W t = y * y;
  w[2] = t * (t * (W)0.25 - (W)0.625) + (W)(115.0 / 192.0);
  const W a = (W)1 + y;
  w[1] = a * (a * (a * ((W)5 - a) / (W)6 - (W)1.25) + (W)(5.0 / 24.0)) + (W)(55.0 / 96.0);
  w[3] = z * (z * (z * ((W)5 - z) / (W)6 - (W)1.25) + (W)(5.0 / 24.0)) + (W)(55.0 / 96.0);
  const W u = (W)0.5 - y, uu = u * u;
  w[0] = uu * uu / (W)24;
#elif GEO_ORDER == 5
  W t = y * y;
  w[2] = t * (t * ((W)0.25 - y / (W)12) - (W)0.5) + (W)0.55;
  t = z * z;
  w[3] = t * (t * ((W)0.25 - z / (W)12) - (W)0.5) + (W)0.55;
  const W a = y + (W)1, b = z + (W)1;
  w[1] = a * (a * (a * (a * (a / (W)24 - (W)0.375) + (W)1.25) - (W)1.75) + (W)0.625) + (W)0.425;
  w[4] = b * (b * (b * (b * (b / (W)24 - (W)0.375) + (W)1.25) - (W)1.75) + (W)0.625) + (W)0.425;
  const W u = (W)1 - y, uu = u * u;
  w[0] = u * uu * uu / (W)120;
#endif
#if GEO_ORDER > 0
  W last = (W)1;
#pragma unroll
  for (int i = 0; i < GEO_ORDER; ++i) last -= w[i];
  w[GEO_ORDER] = last;
#endif
}

// The taps of one axis for coordinate `c`: input indices (-1: the constant) and weights.
// Returns false where the point takes the constant. Points whose taps all lie inside take the
// first branch, which gives the same taps as the general rules (no mapping applies there).
__device__ __forceinline__ bool geo_axis(double c, IX n, int mode, IX npad, IX *idx, W *w) {
#if GEO_KIND == 0
  double cc = c + (double)npad;
  if (cc >= 0.0 && cc <= (double)(n - 1)) {
    const IX start = (GEO_ORDER & 1) ? (IX)floor(cc) - GEO_ORDER / 2
                                     : (IX)floor(cc + 0.5) - GEO_ORDER / 2;
    if (start >= 0 && start + GEO_ORDER < n) {
#pragma unroll
      for (int k = 0; k < GEO_TAPS; ++k) idx[k] = start + k;
#if GEO_ORDER > 0
      geo_bspline(cc, w);
#else
      w[0] = (W)1;
#endif
      return true;
    }
  }
  // Far points (and NaN) take the constant; nearest and grid-constant points are first brought
  // within a few cells of the image, where their taps are the same edge values or constants.
  if (!(fabs(cc) <= 4.5e15)) return false;
  if (mode == 5 || mode == 2) cc = fmin(fmax(cc, -16.0 - GEO_ORDER), (double)n + 16.0);
  if (mode != 5 && mode != 2) cc = geo_map_coord(cc, n, mode);
  if (!(cc > -1.0 || mode == 5 || mode == 2)) return false;
  const long long start = (GEO_ORDER & 1) ? (long long)floor(cc) - GEO_ORDER / 2
                                          : (long long)floor(cc + 0.5) - GEO_ORDER / 2;
  const int smode = (mode == 1 || mode == 4) ? 3 : mode;
#pragma unroll
  for (int k = 0; k < GEO_TAPS; ++k) idx[k] = (IX)img_map(start + k, n, smode);
#if GEO_ORDER > 0
  geo_bspline(cc, w);
#else
  w[0] = (W)1;
#endif
  return true;
#else
  if (!(c >= -1e-4 && c < (double)n)) return false;
  const double g = floor(c);
  const W t = (W)(c - g);
  const IX gi = (IX)g;
#if GEO_KIND == 1
  idx[0] = (IX)img_map((long long)floor(c + 0.5), n, mode);
  w[0] = (W)1;
#elif GEO_KIND == 2
  idx[0] = (IX)img_map(gi, n, mode);
  w[0] = (W)1;
#elif GEO_KIND == 3
  if (gi + 1 < n) {
    idx[0] = gi;
    idx[1] = gi + 1;
  } else {
    idx[0] = (IX)img_map(gi, n, mode);
    idx[1] = (IX)img_map(gi + 1, n, mode);
  }
  af_linear_weights(t, false, w);
#else
  if (gi >= 1 && gi + 2 < n) {
#pragma unroll
    for (int k = 0; k < 4; ++k) idx[k] = gi - 1 + k;
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) idx[k] = (IX)img_map(gi - 1 + k, n, mode);
  }
  af_cubic_weights(t, GEO_KIND == 5, w);
#endif
  return true;
#endif
}

// The sum over the taps of every axis (row-major over the taps), a tap of index -1 taking
// `cval`.
__device__ __forceinline__ W geo_sum(const TI *__restrict__ xb, const IX *n,
                                     const IX (*idx)[GEO_TAPS], const W (*w)[GEO_TAPS],
                                     double cval) {
  const W cv = (W)cval;
  W acc = (W)0;
#pragma unroll
  for (int t0 = 0; t0 < GEO_TAPS; ++t0) {
#if GEO_RANK == 1
    const IX i = idx[0][t0];
    const W v = i < 0 ? cv : geo_ld(xb[i]);
    acc += (GEO_TAPS == 1) ? v : v * w[0][t0];
#else
#pragma unroll
    for (int t1 = 0; t1 < GEO_TAPS; ++t1) {
#if GEO_RANK == 2
      const IX i0 = idx[0][t0], i1 = idx[1][t1];
      const W v = (i0 < 0 || i1 < 0) ? cv : geo_ld(xb[i0 * n[1] + i1]);
      acc += (GEO_TAPS == 1) ? v : v * (w[0][t0] * w[1][t1]);
#else
#pragma unroll
      for (int t2 = 0; t2 < GEO_TAPS; ++t2) {
        const IX i0 = idx[0][t0], i1 = idx[1][t1], i2 = idx[2][t2];
        const W v = (i0 < 0 || i1 < 0 || i2 < 0) ? cv : geo_ld(xb[(i0 * n[1] + i1) * n[2] + i2]);
        acc += (GEO_TAPS == 1) ? v : v * (w[0][t0] * w[1][t1] * w[2][t2]);
      }
#endif
    }
#endif
  }
  return acc;
}

// One output value at output indices `o` of image `xb` (`at`: the point's index in the
// image, for the coordinates array).
__device__ __forceinline__ W geo_point(const TI *__restrict__ xb, const double *__restrict__ coords,
                                       const IX *n, const IX *l, const IX *o, IX at, IX plane,
                                       int mode, IX npad, double cval, const double (*m)[4],
                                       const double *p) {
  W acc = (W)0;
#if GEO_KIND == 6
  IX s[3], e[3];
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a) {
    s[a] = (IX)((long long)o[a] * n[a] / l[a]);
    e[a] = (IX)((((long long)o[a] + 1) * n[a] + l[a] - 1) / l[a]);
  }
  IX cnt = 0;
  for (IX i0 = s[0]; i0 < e[0]; ++i0) {
#if GEO_RANK == 1
    acc += geo_ld(xb[i0]);
    ++cnt;
#else
    for (IX i1 = s[1]; i1 < e[1]; ++i1) {
#if GEO_RANK == 2
      acc += geo_ld(xb[i0 * n[1] + i1]);
      ++cnt;
#else
      for (IX i2 = s[2]; i2 < e[2]; ++i2) {
        acc += geo_ld(xb[(i0 * n[1] + i1) * n[2] + i2]);
        ++cnt;
      }
#endif
    }
#endif
  }
  return acc / (W)cnt;
#else
  double c[3];
#if GEO_COORDS
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a) c[a] = coords[(long long)a * plane + at];
#else
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a) {
    double v = m[a][3];
#pragma unroll
    for (int j = 0; j < GEO_RANK; ++j) v = __dadd_rn(v, __dmul_rn(m[a][j], (double)o[j]));
    c[a] = v;
  }
#if GEO_PERSP
  double wp = p[3];
#pragma unroll
  for (int j = 0; j < GEO_RANK; ++j) wp = __dadd_rn(wp, __dmul_rn(p[j], (double)o[j]));
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a) c[a] = c[a] / wp;
#endif
#endif
  IX idx[3][GEO_TAPS];
  W w[3][GEO_TAPS];
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a)
    if (!geo_axis(c[a], n[a], mode, npad, idx[a], w[a])) return (W)cval;
  return geo_sum(xb, n, idx, w, cval);
#endif
}

// A block covers GEO_THREADS * GEO_PER outputs of a line: thread t the outputs t + j
// GEO_THREADS (j < GEO_PER), so that each round of stores is coalesced.
__device__ __forceinline__ void geo_sample(
    const TI *__restrict__ x, const double *__restrict__ coords, TO *__restrict__ y, i64t batch,
    i64t n0, i64t n1, i64t n2, i64t l0, i64t l1, i64t l2, i64t mode, i64t npad, double cval,
    double m00, double m01, double m02, double m03, double m10, double m11, double m12,
    double m13, double m20, double m21, double m22, double m23, double p0, double p1, double p2,
    double p3) {
  const IX n[3] = {(IX)n0, (IX)n1, (IX)n2};
  const IX l[3] = {(IX)l0, (IX)l1, (IX)l2};
  const double m[3][4] = {{m00, m01, m02, m03}, {m10, m11, m12, m13}, {m20, m21, m22, m23}};
  const double p[4] = {p0, p1, p2, p3};
  const IX last = l[GEO_RANK - 1];
  IX lines = (IX)batch, plane = 1, npix = 1;
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a) {
    if (a < GEO_RANK - 1) lines *= l[a];
    plane *= l[a];
    npix *= n[a];
  }
  const IX k0 = (IX)blockIdx.x * (GEO_THREADS * GEO_PER) + (IX)threadIdx.x;
  if (k0 >= last) return;
#if GEO_SEP
  // A diagonal map: the last axis's taps of an output follow its index alone, so a thread
  // takes them for its GEO_PER outputs once, before the lines; the leading axes' taps are the
  // line's. The coordinates and taps are those of the general form.
  IX cidx[GEO_PER][GEO_TAPS];
  W cw[GEO_PER][GEO_TAPS];
  bool cin[GEO_PER];
  {
    const double *ml = m[GEO_RANK - 1];
#pragma unroll
    for (int j = 0; j < GEO_PER; ++j) {
      const IX k = k0 + j * GEO_THREADS;
      const double cl = __dadd_rn(ml[3], __dmul_rn(ml[GEO_RANK - 1], (double)k));
      cin[j] = k < last && geo_axis(cl, n[GEO_RANK - 1], (int)mode, (IX)npad, cidx[j], cw[j]);
    }
  }
#endif
  for (IX line = blockIdx.y; line < lines; line += gridDim.y) {
    // The output indices of this line (all but the last axis) and its batch index.
    IX o[3] = {0, 0, 0}, r = line;
#pragma unroll
    for (int a = GEO_RANK - 2; a >= 0; --a) {
      o[a] = r % l[a];
      r /= l[a];
    }
    const IX b = r;
    const TI *xb = x + (long long)b * npix;
    const IX base = line * last - b * plane;
#if GEO_SEP
    IX idx[3][GEO_TAPS];
    W w[3][GEO_TAPS];
    bool inside = true;
#pragma unroll
    for (int a = 0; a < GEO_RANK - 1; ++a) {
      const double ca = __dadd_rn(m[a][3], __dmul_rn(m[a][a], (double)o[a]));
      inside = inside && geo_axis(ca, n[a], (int)mode, (IX)npad, idx[a], w[a]);
    }
#pragma unroll
    for (int j = 0; j < GEO_PER; ++j) {
      const IX k = k0 + j * GEO_THREADS;
      if (k >= last) break;
      W v = (W)cval;
      if (inside && cin[j]) {
#pragma unroll
        for (int t = 0; t < GEO_TAPS; ++t) {
          idx[GEO_RANK - 1][t] = cidx[j][t];
          w[GEO_RANK - 1][t] = cw[j][t];
        }
        v = geo_sum(xb, n, idx, w, cval);
      }
      y[(long long)line * last + k] = geo_st(v);
    }
#else
#pragma unroll
    for (int j = 0; j < GEO_PER; ++j) {
      const IX k = k0 + j * GEO_THREADS;
      if (k >= last) break;
      o[GEO_RANK - 1] = k;
      const W v = geo_point(xb, coords, n, l, o, base + k, plane, (int)mode, (IX)npad, cval, m, p);
      y[(long long)line * last + k] = geo_st(v);
    }
#endif
  }
}
