// The resampler of the geometric transforms: every output point `o` of a batch of images of
// GEO_RANK axes takes the interpolated input value at coordinates `c(o)`: an affine map
// `c = M o + t` (divided by `p . o + p3` when GEO_PERSP), or the columns of a coordinates array
// (GEO_COORDS). See `sample.rs` for the parameters and the CPU twin, which computes the same
// arithmetic in the same order.
//
// GEO_KIND: 0 SciPy's B-spline of order GEO_ORDER with SciPy's boundary rules (the point's
// coordinate mapped into the image by `geo_map_coord`, taps outside mapped by `img_map` in the
// spline mode); 1 ArrayFire's nearest (round half up), 2 its lower (floor), 3 its bilinear, 4
// its bicubic, 5 its bicubic spline (Catmull-Rom): a point outside [-1e-4, n) on an axis takes
// `cval`, taps outside are mapped by `img_map` in `mode`; 6 the area average (the input cells
// `[floor(o n / l), ceil((o + 1) n / l))` of each axis).
//
// One thread per output along the last axis; a block row of GEO_THREADS outputs of one output
// line (fixed batch index and leading output indices), lines strided over gridDim.y. Built
// after a typed header that defines GEO_IN and GEO_OUT (element codes: 0 u8, 1 u16, 2 f16,
// 3 f32, 4 f64), GEO_WIDE (compute in double), GEO_RANK, GEO_ORDER, GEO_KIND, GEO_COORDS,
// GEO_PERSP and GEO_THREADS, and after `img_map` (boundary.cu) and the half helpers.

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
// Returns false where the point takes the constant.
__device__ __forceinline__ bool geo_axis(double c, long long n, int mode, long long npad,
                                         long long *idx, W *w) {
#if GEO_KIND == 0
  double cc = c + (double)npad;
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
  for (int k = 0; k < GEO_TAPS; ++k) idx[k] = img_map(start + k, n, smode);
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
  const long long gi = (long long)g;
#if GEO_KIND == 1
  idx[0] = img_map((long long)floor(c + 0.5), n, mode);
  w[0] = (W)1;
#elif GEO_KIND == 2
  idx[0] = img_map(gi, n, mode);
  w[0] = (W)1;
#elif GEO_KIND == 3
  idx[0] = img_map(gi, n, mode);
  idx[1] = img_map(gi + 1, n, mode);
  w[0] = (W)1 - t;
  w[1] = t;
#else
#pragma unroll
  for (int k = 0; k < 4; ++k) idx[k] = img_map(gi - 1 + k, n, mode);
  const W t2 = t * t, t3 = t2 * t;
#if GEO_KIND == 4
  w[0] = -t3 + (W)2 * t2 - t;
  w[1] = t3 - (W)2 * t2 + (W)1;
  w[2] = -t3 + t2 + t;
  w[3] = t3 - t2;
#else
  w[0] = (W)-0.5 * t3 + t2 - (W)0.5 * t;
  w[1] = (W)1.5 * t3 - (W)2.5 * t2 + (W)1;
  w[2] = (W)-1.5 * t3 + (W)2 * t2 + (W)0.5 * t;
  w[3] = (W)0.5 * t3 - (W)0.5 * t2;
#endif
#endif
  return true;
#endif
}

__device__ __forceinline__ void geo_sample(
    const TI *__restrict__ x, const double *__restrict__ coords, TO *__restrict__ y, i64t batch,
    i64t n0, i64t n1, i64t n2, i64t l0, i64t l1, i64t l2, i64t mode, i64t npad, double cval,
    double m00, double m01, double m02, double m03, double m10, double m11, double m12,
    double m13, double m20, double m21, double m22, double m23, double p0, double p1, double p2,
    double p3) {
  const long long n[3] = {n0, n1, n2};
  const long long l[3] = {l0, l1, l2};
  const double m[3][4] = {{m00, m01, m02, m03}, {m10, m11, m12, m13}, {m20, m21, m22, m23}};
  const double p[4] = {p0, p1, p2, p3};
  const long long last = l[GEO_RANK - 1];
  long long lines = batch, plane = 1, npix = 1;
#pragma unroll
  for (int a = 0; a < GEO_RANK; ++a) {
    if (a < GEO_RANK - 1) lines *= l[a];
    plane *= l[a];
    npix *= n[a];
  }
  const long long k = (long long)blockIdx.x * GEO_THREADS + threadIdx.x;
  if (k >= last) return;
  for (long long line = blockIdx.y; line < lines; line += gridDim.y) {
    // The output indices of this line (all but the last axis) and its batch index.
    long long o[3] = {0, 0, 0}, r = line;
#pragma unroll
    for (int a = GEO_RANK - 2; a >= 0; --a) {
      o[a] = r % l[a];
      r /= l[a];
    }
    o[GEO_RANK - 1] = k;
    const long long b = r;
    const TI *xb = x + b * npix;
    const long long oflat = line * last + k;
    W acc = (W)0;
#if GEO_KIND == 6
    long long s[3], e[3];
#pragma unroll
    for (int a = 0; a < GEO_RANK; ++a) {
      s[a] = o[a] * n[a] / l[a];
      e[a] = ((o[a] + 1) * n[a] + l[a] - 1) / l[a];
    }
    long long cnt = 0;
    for (long long i0 = s[0]; i0 < e[0]; ++i0) {
#if GEO_RANK == 1
      acc += geo_ld(xb[i0]);
      ++cnt;
#else
      for (long long i1 = s[1]; i1 < e[1]; ++i1) {
#if GEO_RANK == 2
        acc += geo_ld(xb[i0 * n[1] + i1]);
        ++cnt;
#else
        for (long long i2 = s[2]; i2 < e[2]; ++i2) {
          acc += geo_ld(xb[(i0 * n[1] + i1) * n[2] + i2]);
          ++cnt;
        }
#endif
      }
#endif
    }
    acc = acc / (W)cnt;
#else
    double c[3];
#if GEO_COORDS
#pragma unroll
    for (int a = 0; a < GEO_RANK; ++a) c[a] = coords[a * plane + (oflat - b * plane)];
#else
    double wp = 1.0;
#if GEO_PERSP
    wp = p[3];
#pragma unroll
    for (int j = 0; j < GEO_RANK; ++j) wp += p[j] * (double)o[j];
#endif
#pragma unroll
    for (int a = 0; a < GEO_RANK; ++a) {
      double v = m[a][3];
#pragma unroll
      for (int j = 0; j < GEO_RANK; ++j) v += m[a][j] * (double)o[j];
      c[a] = v / wp;
    }
#endif
    long long idx[3][GEO_TAPS];
    W w[3][GEO_TAPS];
    bool inside = true;
#pragma unroll
    for (int a = 0; a < GEO_RANK; ++a)
      inside = inside && geo_axis(c[a], n[a], (int)mode, npad, idx[a], w[a]);
    if (!inside) {
      acc = (W)cval;
    } else {
      const W cv = (W)cval;
#pragma unroll
      for (int t0 = 0; t0 < GEO_TAPS; ++t0) {
#if GEO_RANK == 1
        const long long i = idx[0][t0];
        const W v = i < 0 ? cv : geo_ld(xb[i]);
        acc += (GEO_TAPS == 1) ? v : v * w[0][t0];
#else
#pragma unroll
        for (int t1 = 0; t1 < GEO_TAPS; ++t1) {
#if GEO_RANK == 2
          const long long i0 = idx[0][t0], i1 = idx[1][t1];
          const W v = (i0 < 0 || i1 < 0) ? cv : geo_ld(xb[i0 * n[1] + i1]);
          acc += (GEO_TAPS == 1) ? v : v * (w[0][t0] * w[1][t1]);
#else
#pragma unroll
          for (int t2 = 0; t2 < GEO_TAPS; ++t2) {
            const long long i0 = idx[0][t0], i1 = idx[1][t1], i2 = idx[2][t2];
            const W v = (i0 < 0 || i1 < 0 || i2 < 0) ? cv
                                                     : geo_ld(xb[(i0 * n[1] + i1) * n[2] + i2]);
            acc += (GEO_TAPS == 1) ? v : v * (w[0][t0] * w[1][t1] * w[2][t2]);
          }
#endif
        }
#endif
      }
    }
#endif
    y[oflat] = geo_st(acc);
  }
}
