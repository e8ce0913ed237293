// SciPy's B-spline prefilter along one axis (its `spline_filter1d`): each line of `n` values is
// scaled by the filter's gain, then for each pole `z` filtered causally and anticausally, the
// first value of each pass initialised by the mode's boundary rule (mirror, reflect or
// periodic). See `spline.rs` for the parameters and the CPU twin (the same arithmetic in the
// same order).
//
// The input is read as [outer, n, inner]. In `spl_filter` one thread filters one line `(o, i)`
// in place in the output (the line's values `inner` apart, so that neighbouring threads touch
// neighbouring words); `spl_seg` (one pole, mirror or reflect boundary) splits the lines into
// segments filtered in parallel, then `spl_fix` refilters with `spl_line` the lines it marks.
// Built after a typed header that defines SPL_IN (element code: 0 u8, 1 u16, 2 f16, 3 f32, 4
// f64), SPL_WIDE (the output and arithmetic in double, else float), SPL_ORDER (2 to 5) and
// SPL_THREADS, and after the half helpers.

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

// The causal pass's first value of a line whose values (before this pole) are `C(i)`, `i < n`
// (n >= 2), with pole z; `init` 0 mirror, 1 reflect, 2 periodic. The sums stop where z^i
// reaches zero (the terms after it are zero).
template <class F> __device__ __forceinline__ W spl_first(F C, long long n, W z, int init) {
  if (init == 0) {
    const W zn1 = (W)pow((double)z, (double)(n - 1));
    W c0 = C(0) + zn1 * C(n - 1);
    W zi = z;
    for (long long i = 1; i < n - 1 && zi != (W)0; ++i) {
      c0 += zi * (C(i) + zn1 * C(n - 1 - i));
      zi *= z;
    }
    return c0 / ((W)1 - zn1 * zn1);
  } else if (init == 1) {
    const W zn = (W)pow((double)z, (double)n);
    W sum = C(0) + zn * C(n - 1);
    W zi = z;
    for (long long i = 1; i < n && zi != (W)0; ++i) {
      sum += zi * (C(i) + zn * C(n - 1 - i));
      zi *= z;
    }
    return C(0) + sum * z / ((W)1 - zn * zn);
  } else {
    W c0 = C(0), zi = z;
    for (long long i = 1; i < n && zi != (W)0; ++i) {
      c0 += zi * C(n - i);
      zi *= z;
    }
    return c0 / ((W)1 - zi);
  }
}

// The anticausal pass's last value from the causal values `C(i)` (mirror and reflect only).
template <class F> __device__ __forceinline__ W spl_last(F C, long long n, W z, int init) {
  if (init == 0) return (z * C(n - 2) + C(n - 1)) * z / (z * z - (W)1);
  return C(n - 1) * (z / (z - (W)1));
}

// Filters the line c[0], c[s], ..., c[(n - 1) s] (n >= 2) with pole z; `init` 0 mirror, 1
// reflect, 2 periodic.
__device__ __forceinline__ void spl_pole(W *c, long long n, long long s, W z, int init) {
#define C(i) c[(long long)(i) * s]
  C(0) = spl_first([&](long long i) { return C(i); }, n, z, init);
  for (long long i = 1; i < n; ++i) C(i) = C(i) + z * C(i - 1);
  // The anticausal pass's last value.
  if (init != 2) {
    C(n - 1) = spl_last([&](long long i) { return C(i); }, n, z, init);
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

// The product of every pole's gain.
__device__ __forceinline__ W spl_gain() {
  W gain = (W)1;
  for (int p = 0; p < SPL_NP; ++p) {
    const W z = (W)spl_poles[p];
    gain *= ((W)1 - z) * ((W)1 - (W)1 / z);
  }
  return gain;
}

// One line of the prefilter, in place in the output, sequentially.
__device__ __forceinline__ void spl_line(const TI *__restrict__ x, W *__restrict__ y,
                                         long long base, long long n, long long inner,
                                         int init) {
  W *c = y + base;
  if (n < 2) {
    for (long long k = 0; k < n; ++k) c[k * inner] = spl_ld(x[base + k * inner]);
    return;
  }
  const W gain = spl_gain();
  for (long long k = 0; k < n; ++k) c[k * inner] = spl_ld(x[base + k * inner]) * gain;
  for (int p = 0; p < SPL_NP; ++p) spl_pole(c, n, inner, (W)spl_poles[p], init);
}

__device__ __forceinline__ void spl_filter(const TI *__restrict__ x, W *__restrict__ y,
                                           i64t outer, i64t n, i64t inner, i64t init) {
  const long long lines = outer * inner;
  for (long long line = (long long)blockIdx.x * SPL_THREADS + threadIdx.x; line < lines;
       line += (long long)gridDim.x * SPL_THREADS) {
    const long long o = line / inner, i = line - o * inner;
    spl_line(x, y, o * n * inner + i, n, inner, (int)init);
  }
}

// The segmented form (one pole, mirror or reflect boundary): a block is one warp, and takes
// 32 consecutive lines (one a lane) and one segment [s, e) of SPL_SEG positions of them. It
// stages the gained values of the window [s - SPL_CH, e + SPL_CH) (within the line) in shared
// memory (through chunks of 32 positions: lanes along the positions when the lines are
// contiguous, along the lines otherwise, so that every global access is coalesced), filters
// each lane's window in place, and stores [s, e). The causal pass starts at the window's
// first value with nothing before it (an error of at most |z|^SPL_CH times the values before
// the window, below the working type's rounding for the one-pole orders), or with the exact
// first value where the window reaches the line's start; the anticausal pass likewise starts
// past the window's end with zero, or with the exact last value where the window reaches the
// line's end. A line of one segment is thus filtered exactly as `spl_line` filters it.
//
// A non-finite value makes the whole line non-finite in the sequential filter, in a pattern
// the segments cannot reproduce: a segment whose outputs are not all finite marks
// `flag[line * nseg + seg]`, and `spl_fix` refilters every marked line with `spl_line`.
constexpr int SPL_SEG = SPL_WIDE ? 64 : 128;
constexpr int SPL_CH = 32;
constexpr int SPL_SW = SPL_SEG + 2 * SPL_CH + 1;

__device__ __forceinline__ void spl_seg(const TI *__restrict__ x, W *__restrict__ y,
                                        unsigned char *__restrict__ flag, i64t outer, i64t n,
                                        i64t inner, i64t init, i64t nseg) {
  __shared__ W win[SPL_CH * SPL_SW];
  const int lane = threadIdx.x;
  const long long lines = outer * inner;
  const long long groups = (lines + SPL_CH - 1) / SPL_CH;
  const W z = (W)spl_poles[0];
  const W gain = spl_gain();
  for (long long task = blockIdx.x; task < groups * nseg; task += gridDim.x) {
    const long long g = task % groups, sg = task / groups;
    const long long l0 = g * SPL_CH;
    const long long s = sg * SPL_SEG;
    const long long e = s + SPL_SEG < n ? s + SPL_SEG : n;
    const long long ws = s - SPL_CH;
    const long long te = e + SPL_CH < n ? e + SPL_CH : n;
    // Window position k of lane j's line is win[j * SPL_SW + k - ws].
#define WIN(j, k) win[(j) * SPL_SW + (int)((k) - ws)]
    // The lines of this group (the last group may be short).
    const int nj = lines - l0 < SPL_CH ? (int)(lines - l0) : SPL_CH;
    __syncwarp();
    for (long long k0 = ws; k0 < te; k0 += SPL_CH) {
      if (inner == 1) {
        const long long k = k0 + lane;
        if (k >= 0 && k < te) {
#pragma unroll 8
          for (int j = 0; j < nj; ++j) WIN(j, k) = spl_ld(x[(l0 + j) * n + k]) * gain;
        }
      } else if (l0 + lane < lines) {
        const long long line = l0 + lane;
        const long long o = line / inner, base = o * n * inner + (line - o * inner);
#pragma unroll 4
        for (int p = 0; p < SPL_CH; ++p) {
          const long long k = k0 + p;
          if (k >= 0 && k < te) WIN(lane, k) = spl_ld(x[base + k * inner]) * gain;
        }
      }
    }
    __syncwarp();
    const long long line = l0 + lane;
    if (line < lines) {
      const long long o = line / inner, base = o * n * inner + (line - o * inner);
      long long k = ws;
      W c;
      if (ws <= 0) {
        c = spl_first([&](long long i) { return spl_ld(x[base + i * inner]) * gain; }, n, z,
                      (int)init);
        k = 0;
      } else {
        c = WIN(lane, ws);
      }
      WIN(lane, k) = c;
#pragma unroll 4
      for (++k; k < te; ++k) {
        c = WIN(lane, k) + z * c;
        WIN(lane, k) = c;
      }
      W a;
      if (te == n) {
        a = spl_last([&](long long i) { return WIN(lane, i); }, n, z, (int)init);
        WIN(lane, n - 1) = a;
        k = n - 2;
      } else {
        a = (W)0;
        k = te - 1;
      }
      bool bad = false;
#pragma unroll 4
      for (; k >= s; --k) {
        a = z * (a - WIN(lane, k));
        WIN(lane, k) = a;
        if (k < e) bad = bad || !isfinite(a);
      }
      if (te == n) bad = bad || !isfinite(WIN(lane, n - 1));
      flag[line * nseg + sg] = bad ? 1 : 0;
    }
    __syncwarp();
    for (long long k0 = s; k0 < e; k0 += SPL_CH) {
      if (inner == 1) {
        const long long k = k0 + lane;
        if (k < e) {
#pragma unroll 8
          for (int j = 0; j < nj; ++j) y[(l0 + j) * n + k] = WIN(j, k);
        }
      } else if (line < lines) {
        const long long o = line / inner, base = o * n * inner + (line - o * inner);
#pragma unroll 4
        for (int p = 0; p < SPL_CH; ++p) {
          const long long k = k0 + p;
          if (k < e) y[base + k * inner] = WIN(lane, k);
        }
      }
    }
#undef WIN
  }
}

// Refilters, sequentially, every line that `spl_seg` marked (one thread a line).
__device__ __forceinline__ void spl_fix(const TI *__restrict__ x, W *__restrict__ y,
                                        const unsigned char *__restrict__ flag, i64t outer,
                                        i64t n, i64t inner, i64t init, i64t nseg) {
  const long long lines = outer * inner;
  for (long long line = (long long)blockIdx.x * SPL_THREADS + threadIdx.x; line < lines;
       line += (long long)gridDim.x * SPL_THREADS) {
    bool bad = false;
    for (long long sg = 0; sg < nseg; ++sg) bad = bad || flag[line * nseg + sg];
    if (!bad) continue;
    const long long o = line / inner, i = line - o * inner;
    spl_line(x, y, o * n * inner + i, n, inner, (int)init);
  }
}
