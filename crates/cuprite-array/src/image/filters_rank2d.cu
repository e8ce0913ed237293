// The rank filter of a full R2_H x R2_W box over the last two axes of `planes` images of
// `n1 x n2` values: `y[p, i, j]` is the value of rank R2_R among `x~[p, i + R2_LO1 + a,
// j + R2_LO2 + b]` for `a < R2_H`, `b < R2_W`, where `x~` extends `x` as `img_map` says or is
// `cval` (already in the image's type) in the constant modes.
//
// A block takes a tile of R2_TX * 2 columns by R2_TY * 2 rows of outputs: it stages the tile's
// input region with its halo in shared memory once, the boundary applied while filling, so
// each input is read from global memory once per tile. Each thread computes a 2 x 2 square of
// outputs; the values common to all four windows ((R2_H - 1) x (R2_W - 1)) are selected once,
// then the first or last window row common to a pair on one row, then each window's own
// first or last column.
//
// Selection keeps R2_S values sorted in registers: on the lower side (R2_UP == 0) the R2_R + 1
// smallest seen so far, on the upper side the R2_K - R2_R largest, whichever is fewer. A new
// value is merged by `v[k] = hi(v[k - 1], lo(v[k], x))`, each slot from the old ones, and the
// value pushed past the last slot is dropped: it has at least R2_S values at or before it in
// the order, so it is not of rank R2_R in any window holding the values seen. After all R2_K
// values `v[R2_S - 1]` is the value of rank R2_R.
//
// The order is `<` with NaN above every number and NaNs equal among themselves, the order of
// the CPU twin. Selection runs on keys with NaN read as +inf, where `fmin`/`fmax` are that
// order; the map is monotone, so the key of rank R2_R is the key of the value of rank R2_R.
// Only a key of +inf is ambiguous: the value is then NaN exactly when R2_R is at least the
// count of the window's numbers, and the window is counted again for it. Every result is one
// of the window's values (or `cval`).
//
// Built after `boundary.cu` and a typed header defining `T`, `C`, `img_ld`, `img_st`, R2_H,
// R2_W, R2_LO1, R2_LO2, R2_R and R2_UP.

constexpr int R2_TX = 32, R2_TY = 8;
constexpr int R2_K = R2_H * R2_W;
constexpr int R2_ROWS = R2_TY * 2 + R2_H - 1, R2_COLS = R2_TX * 2 + R2_W - 1;
constexpr int R2_S = R2_UP ? R2_K - R2_R : R2_R + 1;
// The values the four windows of a thread share.
constexpr int R2_SHARED = (R2_H - 1) * (R2_W - 1);

// The first and the last of two keys (never NaN) on the kept side.
__device__ __forceinline__ C r2_lo(C a, C b) { return R2_UP ? fmax(a, b) : fmin(a, b); }
__device__ __forceinline__ C r2_hi(C a, C b) { return R2_UP ? fmin(a, b) : fmax(a, b); }
// The key of a value: NaN read as +inf.
__device__ __forceinline__ C r2_key(C x) { return x != x ? (C)1.0 / (C)0.0 : x; }

// The value of rank R2_R of the window at `s` in the tile whose key `k` is +inf: NaN (one of
// the window's) when R2_R is at least the count of its numbers, else `k`.
__device__ __noinline__ C r2_inf(const C *s, C k) {
  int nums = 0;
  C nan = k;
  for (int a = 0; a < R2_H; ++a)
    for (int b = 0; b < R2_W; ++b) {
      const C x = s[a * R2_COLS + b];
      if (x == x) ++nums;
      else nan = x;
    }
  return R2_R >= nums ? nan : k;
}

// Merges `x` into the N values (capped at R2_S) held sorted in `v`.
template <int N> __device__ __forceinline__ void r2_insert(C (&v)[R2_S], C x) {
  if constexpr (N == 0) {
    v[0] = x;
  } else {
    constexpr int held = N < R2_S ? N : R2_S;
    if constexpr (N < R2_S) v[N] = r2_hi(v[N - 1], x);
#pragma unroll
    for (int k = held - 1; k >= 1; --k) v[k] = r2_hi(v[k - 1], r2_lo(v[k], x));
    v[0] = r2_lo(v[0], x);
  }
}

// Merges the shared values E.. (R2_H - 1 rows of R2_W - 1 from `s` in the tile).
template <int E> __device__ __forceinline__ void r2_shared(C (&v)[R2_S], const C *s) {
  if constexpr (E < R2_SHARED) {
    r2_insert<E>(v, r2_key(s[(E / (R2_W - 1)) * R2_COLS + E % (R2_W - 1)]));
    r2_shared<E + 1>(v, s);
  }
}

// Merges the values J.. of a line of CNT (`s[J * STRIDE]` in the tile) after N0 merged ones.
template <int N0, int CNT, int STRIDE, int J>
__device__ __forceinline__ void r2_line(C (&v)[R2_S], const C *s) {
  if constexpr (J < CNT) {
    r2_insert<N0 + J>(v, r2_key(s[J * STRIDE]));
    r2_line<N0, CNT, STRIDE, J + 1>(v, s);
  }
}

// Completes the two windows of one output row from `p` (the merged shared values and the
// pair's common row): the first column `s0` or the last `s1` (R2_H values each), keeping the
// value of rank R2_R of each in `res0`/`res1`.
__device__ __forceinline__ void r2_pair(const C (&p)[R2_S], const C *s0, const C *s1, C &res0,
                                        C &res1) {
  constexpr int n = R2_SHARED + R2_W - 1;
  C v[R2_S];
#pragma unroll
  for (int k = 0; k < R2_S; ++k) v[k] = p[k];
  r2_line<n, R2_H, R2_COLS, 0>(v, s0);
  res0 = v[R2_S - 1];
#pragma unroll
  for (int k = 0; k < R2_S; ++k) v[k] = p[k];
  r2_line<n, R2_H, R2_COLS, 0>(v, s1);
  res1 = v[R2_S - 1];
}

__device__ __forceinline__ void img_rank2d(const T *__restrict__ x, T *__restrict__ y,
                                           i64t planes, i64t n1, i64t n2, i64t mode,
                                           double cval) {
  __shared__ C tile[R2_ROWS * R2_COLS];
  const C cv = (C)cval;
  const int tx = threadIdx.x % R2_TX, ty = threadIdx.x / R2_TX;
  const i64t tiles1 = (n1 + R2_TY * 2 - 1) / (R2_TY * 2), tiles2 = (n2 + R2_TX * 2 - 1) / (R2_TX * 2);
  const i64t tiles = planes * tiles1 * tiles2;
  for (i64t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const i64t c0 = (t % tiles2) * (R2_TX * 2);
    const i64t r0 = ((t / tiles2) % tiles1) * (R2_TY * 2);
    const i64t p = t / tiles2 / tiles1;
    const T *xp = x + p * n1 * n2;
    // The previous tile's reads are done before it is overwritten.
    __syncthreads();
    for (int i = threadIdx.x; i < R2_ROWS * R2_COLS; i += blockDim.x) {
      const int tr = i / R2_COLS, tc = i % R2_COLS;
      const i64t m1 = img_map(r0 + R2_LO1 + tr, n1, (int)mode);
      const i64t m2 = img_map(c0 + R2_LO2 + tc, n2, (int)mode);
      tile[i] = (m1 >= 0 && m2 >= 0) ? img_ld(xp[m1 * n2 + m2]) : cv;
    }
    __syncthreads();
    const int ly = ty * 2, lx = tx * 2;
    const C *w = tile + ly * R2_COLS + lx;
    C a[R2_S];
    r2_shared<0>(a, w + R2_COLS + 1);
    C res[2][2];
#pragma unroll
    for (int d = 0; d < 2; ++d) {
      // The pair of output row `d` shares window row 0 (d = 0) or R2_H (d = 1) but column 0.
      C q[R2_S];
#pragma unroll
      for (int k = 0; k < R2_S; ++k) q[k] = a[k];
      r2_line<R2_SHARED, R2_W - 1, 1, 0>(q, w + d * R2_H * R2_COLS + 1);
      r2_pair(q, w + d * R2_COLS, w + d * R2_COLS + R2_W, res[d][0], res[d][1]);
    }
    const C inf = (C)1.0 / (C)0.0;
    const i64t i = r0 + ly, j = c0 + lx;
#pragma unroll
    for (int d = 0; d < 2; ++d)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        C r = res[d][e];
        if (r == inf) r = r2_inf(w + d * R2_COLS + e, r);
        if (i + d < n1 && j + e < n2) y[(p * n1 + i + d) * n2 + j + e] = img_st(r);
      }
  }
}
