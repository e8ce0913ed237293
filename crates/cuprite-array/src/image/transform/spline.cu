// SciPy's B-spline prefilter along one axis (its `spline_filter1d`): each line of `n` values is
// scaled by the filter's gain, then for each pole `z` filtered causally and anticausally, the
// first value of each pass initialised by the mode's boundary rule (mirror, reflect or
// periodic). See `spline.rs` for the parameters and the CPU twin (the same arithmetic in the
// same order).
//
// The input is read as [outer, n, inner]; one thread filters one line `(o, i)` in place in the
// output (the line's values `inner` apart, so that neighbouring threads touch neighbouring
// words). Built after a typed header that defines SPL_IN (element code: 0 u8, 1 u16, 2 f16,
// 3 f32, 4 f64), SPL_WIDE (the output and arithmetic in double, else float), SPL_ORDER (2 to
// 5) and SPL_THREADS, and after the half helpers.

#if SPL_WIDE
typedef double W;
#else
typedef float W;
#endif

#if SPL_IN == 0
typedef unsigned char TI;
__device__ __forceinline__ W spl_ld(TI v) { return (W)v; }
#elif SPL_IN == 1
typedef unsigned short TI;
__device__ __forceinline__ W spl_ld(TI v) { return (W)v; }
#elif SPL_IN == 2
typedef unsigned short TI;
__device__ __forceinline__ W spl_ld(TI v) { return (W)h2f(v); }
#elif SPL_IN == 3
typedef float TI;
__device__ __forceinline__ W spl_ld(TI v) { return (W)v; }
#else
typedef double TI;
__device__ __forceinline__ W spl_ld(TI v) { return (W)v; }
#endif

// The poles of the order's filter (SciPy's values).
#if SPL_ORDER == 2
constexpr int SPL_NP = 1;
__device__ __constant__ double spl_poles[1] = {-0.171572875253809902396622551580603843};
#elif SPL_ORDER == 3
constexpr int SPL_NP = 1;
__device__ __constant__ double spl_poles[1] = {-0.267949192431122706472553658494127633};
#elif SPL_ORDER == 4
constexpr int SPL_NP = 2;
__device__ __constant__ double spl_poles[2] = {-0.361341225900220177092212841325675255,
                                               -0.013725429297339121360331226939128204};
#else
constexpr int SPL_NP = 2;
__device__ __constant__ double spl_poles[2] = {-0.430575347099973791851434783493520110,
                                               -0.043096288203264653822712376822550182};
#endif

// Filters the line c[0], c[s], ..., c[(n - 1) s] (n >= 2) with pole z; `init` 0 mirror, 1
// reflect, 2 periodic.
__device__ __forceinline__ void spl_pole(W *c, long long n, long long s, W z, int init) {
#define C(i) c[(long long)(i) * s]
  // The causal pass's first value. The sums stop where z^i reaches zero (the terms after it
  // are zero).
  if (init == 0) {
    const W zn1 = (W)pow((double)z, (double)(n - 1));
    W c0 = C(0) + zn1 * C(n - 1);
    W zi = z;
    for (long long i = 1; i < n - 1 && zi != (W)0; ++i) {
      c0 += zi * (C(i) + zn1 * C(n - 1 - i));
      zi *= z;
    }
    C(0) = c0 / ((W)1 - zn1 * zn1);
  } else if (init == 1) {
    const W zn = (W)pow((double)z, (double)n);
    W sum = C(0) + zn * C(n - 1);
    W zi = z;
    for (long long i = 1; i < n && zi != (W)0; ++i) {
      sum += zi * (C(i) + zn * C(n - 1 - i));
      zi *= z;
    }
    C(0) = C(0) + sum * z / ((W)1 - zn * zn);
  } else {
    W c0 = C(0), zi = z;
    for (long long i = 1; i < n && zi != (W)0; ++i) {
      c0 += zi * C(n - i);
      zi *= z;
    }
    C(0) = c0 / ((W)1 - zi);
  }
  for (long long i = 1; i < n; ++i) C(i) = C(i) + z * C(i - 1);
  // The anticausal pass's last value.
  if (init == 0) {
    C(n - 1) = (z * C(n - 2) + C(n - 1)) * z / (z * z - (W)1);
  } else if (init == 1) {
    C(n - 1) = C(n - 1) * (z / (z - (W)1));
  } else {
    W cl = C(n - 1), zi = z;
    for (long long i = 0; i < n - 1 && zi != (W)0; ++i) {
      cl += zi * C(i);
      zi *= z;
    }
    C(n - 1) = cl * (z / (zi - (W)1));
  }
  for (long long i = n - 2; i >= 0; --i) C(i) = z * (C(i + 1) - C(i));
#undef C
}

__device__ __forceinline__ void spl_filter(const TI *__restrict__ x, W *__restrict__ y,
                                           i64t outer, i64t n, i64t inner, i64t init) {
  const long long lines = outer * inner;
  for (long long line = (long long)blockIdx.x * SPL_THREADS + threadIdx.x; line < lines;
       line += (long long)gridDim.x * SPL_THREADS) {
    const long long o = line / inner, i = line - o * inner;
    const long long base = o * n * inner + i;
    W gain = (W)1;
    for (int p = 0; p < SPL_NP; ++p) {
      const W z = (W)spl_poles[p];
      gain *= ((W)1 - z) * ((W)1 - (W)1 / z);
    }
    W *c = y + base;
    if (n < 2) {
      for (long long k = 0; k < n; ++k) c[k * inner] = spl_ld(x[base + k * inner]);
      continue;
    }
    for (long long k = 0; k < n; ++k) c[k * inner] = spl_ld(x[base + k * inner]) * gain;
    for (int p = 0; p < SPL_NP; ++p) spl_pole(c, n, inner, (W)spl_poles[p], (int)init);
  }
}
