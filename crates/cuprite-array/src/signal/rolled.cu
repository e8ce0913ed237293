// The direct convolution of a batch of planes over their two axes with a small kernel known at
// compile time, as tiled.cu computes it (same parameters, same sums), with every thread walking
// a column strip: `y[p, k1, k2] = sum_{j1, j2} h[j1, j2] * x[p, k1 + s1 - j1, k2 + s2 - j2]`,
// `x` zero outside the plane, m0 == 1 (the outermost axis folds into the plane index).
//
// Thread layout: a block has RV_WARPS warps; block `b` covers column strip `b % cs` (cs strips of
// 32 RV_W columns) and row group `(b / cs) % rgs` of plane `b / (cs rgs)`; warp w of the block
// owns rows [oy0, oy0 + RV_H) with oy0 = (rg RV_WARPS + w) RV_H, lane l the RV_W consecutive
// columns from cx = strip 32 RV_W + l RV_W. No shared memory: each input row a thread reaches
// (a window of RV_NW values from the RV_VL-aligned column gxa = cx + s2 - (RV_M2 - 1) - RV_D)
// is read straight from global memory (16-byte loads where the whole window lies inside the
// plane; neighbours' overlapping windows meet in L1) RV_PF rows ahead of its use.
//
// Rolling accumulators: the thread walks the input rows it reaches from the last to the first,
// step t reading row a = oy0 + RV_H - 1 + s1 - t, t < RV_H + RV_M1 - 1. Output o (counted from
// the thread's last row: row oy0 + RV_H - 1 - o) meets that row through tap row j1 = t - o, so
// it is started at step o, ends at step o + RV_M1 - 1, and lives in accumulator slot o mod
// RV_M1. The steps run in three phases so that every slot index and every skipped tap row is
// a compile-time constant: t < RV_M1 - 1 (outputs not yet started skipped), a loop of RV_M1
// steps at a time while every touched output exists, then the last steps (outputs past RV_H
// skipped). A slot is stored and cleared at the step that ends its output.
//
// Summation order: per output ascending j1 (steps ascend), within a row ascending j2, each tap
// fused into one accumulator from zero (`fma(h, x, acc)`, rounded once), as the CPU twin sums
// the tiled form; taps outside the plane add h * 0, which leaves a finite accumulator's bits
// unchanged.
//
// Built after a typed header that defines `T`, `V`, `i64t` and RV_VL (values a V), RV_M1,
// RV_M2, RV_W (a multiple of RV_VL), RV_H (at least RV_M1 - 1), RV_WARPS, RV_D (s2 - (RV_M2 -
// 1) modulo RV_VL), RV_VEC (rows of x and y start 16-byte aligned and hold whole vectors),
// RV_STAGE (0 or 1: where the taps live, see RvTaps) and RV_PF (at least 1: the steps a
// window is loaded ahead of its use).

constexpr int RV_NWV = (RV_D + RV_W + RV_M2 - 1 + RV_VL - 1) / RV_VL;
constexpr int RV_NW = RV_NWV * RV_VL;
constexpr int RV_MAIN = (RV_H - (RV_M1 - 1)) / RV_M1;
constexpr int RV_REST = (RV_H - (RV_M1 - 1)) % RV_M1;
constexpr int RV_STEPS = RV_H + RV_M1 - 1;

__device__ __forceinline__ float rv_fma(float h, float x, float acc) { return __fmaf_rn(h, x, acc); }
__device__ __forceinline__ double rv_fma(double h, double x, double acc) { return __fma_rn(h, x, acc); }

__device__ __forceinline__ void rv_unpack(const float4 &v, float *o) {
  o[0] = v.x;
  o[1] = v.y;
  o[2] = v.z;
  o[3] = v.w;
}
__device__ __forceinline__ void rv_unpack(const double2 &v, double *o) {
  o[0] = v.x;
  o[1] = v.y;
}
__device__ __forceinline__ float4 rv_pack(const float *o) { return make_float4(o[0], o[1], o[2], o[3]); }
__device__ __forceinline__ double2 rv_pack(const double *o) { return make_double2(o[0], o[1]); }

constexpr int RV_M2P = (RV_M2 + RV_VL - 1) / RV_VL * RV_VL;

// A vector of shared memory read anew at each use (a volatile load: never hoisted, so that the
// taps do not take registers for the whole walk).
__device__ __forceinline__ void rv_lds(const float *p, float *o) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3])
               : "r"(a));
}
__device__ __forceinline__ void rv_lds(const double *p, double *o) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ld.volatile.shared.v2.f64 {%0, %1}, [%2];" : "=d"(o[0]), "=d"(o[1]) : "r"(a));
}

// The taps: with RV_STAGE in shared memory (rows padded with zeros to RV_M2P, a row read as
// vectors at each use), else in registers for the whole walk.
template <int STAGE>
struct RvTapsT;
template <>
struct RvTapsT<1> {
  const T *hs;
  __device__ __forceinline__ void row(int j1, T (&hv)[RV_M2P]) const {
#pragma unroll
    for (int k = 0; k < RV_M2P / RV_VL; ++k) rv_lds(hs + j1 * RV_M2P + RV_VL * k, &hv[RV_VL * k]);
  }
};
template <>
struct RvTapsT<0> {
  T v[RV_M1][RV_M2];
  __device__ __forceinline__ void row(int j1, T (&hv)[RV_M2P]) const {
#pragma unroll
    for (int j2 = 0; j2 < RV_M2P; ++j2) hv[j2] = j2 < RV_M2 ? v[j1][j2] : (T)0;
  }
};
typedef RvTapsT<RV_STAGE> RvTaps;

// Points `t` at the staged taps `hs`, or loads the RV_M1 x RV_M2 taps of `h` into registers.
__device__ __forceinline__ void rv_taps(RvTapsT<1> &t, const T *__restrict__ h, const T *hs) { t.hs = hs; }
__device__ __forceinline__ void rv_taps(RvTapsT<0> &t, const T *__restrict__ h, const T *hs) {
#pragma unroll
  for (int j1 = 0; j1 < RV_M1; ++j1)
#pragma unroll
    for (int j2 = 0; j2 < RV_M2; ++j2) t.v[j1][j2] = __ldg(h + j1 * RV_M2 + j2);
}

struct RvGeom {
  i64t n1, n2, l1, l2;
};

// What a thread needs to walk its strip: the plane's input and output, the first input row it
// reads (a0, read first; the rows below it follow), the aligned first column of its windows
// (gxa), its last output row (ulast, stored first) and its first output column (cx).
struct RvWalk {
  const T *__restrict__ xp;
  T *__restrict__ yp;
  i64t a0, gxa, ulast, cx;
  // Bit k: window column gxa + k lies inside the plane (0 <= gxa + k < n2); bit q of `out`:
  // output column cx + q lies inside the output row (cx + q < l2).
  unsigned in, out;
};

// The window of the input row of step t, zero outside the plane. FAST: the row and the whole
// window lie inside the plane and rows hold whole aligned vectors (read with 16-byte loads).
// Else with RV_VEC a vector lies wholly inside or wholly outside the plane's columns (gxa is
// a multiple of RV_VL, and so is n2): each is read when its row and its columns are inside;
// without, each value is.
template <bool FAST>
__device__ __forceinline__ void rv_load(T (&win)[RV_NW], const RvWalk &w, i64t t, const RvGeom &g) {
  const i64t a = w.a0 - t;
  const bool row = a >= 0 && a < g.n1;
  if (FAST) {
    const V *p = reinterpret_cast<const V *>(w.xp + a * g.n2 + w.gxa);
#pragma unroll
    for (int k = 0; k < RV_NWV; ++k) rv_unpack(__ldg(p + k), &win[RV_VL * k]);
  } else if (RV_VEC) {
    const T *xr = w.xp + (row ? a : 0) * g.n2 + w.gxa;
#pragma unroll
    for (int k = 0; k < RV_NWV; ++k) {
      if (row && (w.in >> (RV_VL * k) & 1)) {
        rv_unpack(__ldg(reinterpret_cast<const V *>(xr + RV_VL * k)), &win[RV_VL * k]);
      } else {
#pragma unroll
        for (int q = 0; q < RV_VL; ++q) win[RV_VL * k + q] = (T)0;
      }
    }
  } else {
    const T *xr = w.xp + (row ? a : 0) * g.n2 + w.gxa;
#pragma unroll
    for (int k = 0; k < RV_NW; ++k) win[k] = row && (w.in >> k & 1) ? xr[k] : (T)0;
  }
}

// Adds the window of step t (t mod RV_M1 == tm) to the outputs that meet it through tap rows
// jlo..jhi: tap column j2 outermost, then the tap rows (each a different accumulator slot),
// then the columns, so that the multiply-adds into one accumulator lie far apart in the
// instruction stream (each waits on the one before) while its sum keeps its order.
__device__ __forceinline__ void rv_acc(T (&acc)[RV_M1][RV_W], const T (&win)[RV_NW], const RvTaps &h, int tm,
                                       int jlo, int jhi) {
  T hv[RV_M1][RV_M2P];
#pragma unroll
  for (int j1 = 0; j1 < RV_M1; ++j1)
    if (j1 >= jlo && j1 <= jhi) h.row(j1, hv[j1]);
#pragma unroll
  for (int j2 = 0; j2 < RV_M2; ++j2)
#pragma unroll
    for (int j1 = 0; j1 < RV_M1; ++j1) {
      if (j1 < jlo || j1 > jhi) continue;
      const int s = (tm - j1 + RV_M1) % RV_M1;
#pragma unroll
      for (int q = 0; q < RV_W; ++q) acc[s][q] = rv_fma(hv[j1][j2], win[RV_D + RV_M2 - 1 + q - j2], acc[s][q]);
    }
}

// Stores output o of this thread (slot s; row ulast - o) and clears its slot. FAST: the row
// and the thread's columns lie inside the output and rows hold whole aligned vectors.
template <bool FAST>
__device__ __forceinline__ void rv_store(T (&acc)[RV_M1][RV_W], int s, const RvWalk &w, i64t o, const RvGeom &g) {
  const i64t u = w.ulast - o;
  if (FAST || u < g.l1) {
    T *yr = w.yp + u * g.l2 + w.cx;
#pragma unroll
    for (int c = 0; c < RV_W / RV_VL; ++c) {
      if (FAST || (RV_VEC && (w.out >> (RV_VL * c + RV_VL - 1) & 1))) {
        __stwb(reinterpret_cast<V *>(yr + RV_VL * c), rv_pack(&acc[s][RV_VL * c]));
      } else {
#pragma unroll
        for (int q = 0; q < RV_VL; ++q)
          if (w.out >> (RV_VL * c + q) & 1) yr[RV_VL * c + q] = acc[s][RV_VL * c + q];
      }
    }
  }
#pragma unroll
  for (int q = 0; q < RV_W; ++q) acc[s][q] = (T)0;
}

// One step t of the walk (t mod RV_M1 == tm): loads the window of step t + RV_PF into the
// last of the RV_PF + 1 windows in flight (where that step exists), adds the window of step t
// (the first) to the outputs that meet it through tap rows jlo..jhi, and moves the windows
// down one.
template <bool FAST>
__device__ __forceinline__ void rv_step(T (&acc)[RV_M1][RV_W], T (&win)[RV_PF + 1][RV_NW], const RvWalk &w,
                                        const RvTaps &h, const RvGeom &g, i64t t, int tm, int jlo, int jhi) {
  if (RV_PF <= RV_M1 - 1 || t + RV_PF < RV_STEPS) rv_load<FAST>(win[RV_PF], w, t + RV_PF, g);
  rv_acc(acc, win[0], h, tm, jlo, jhi);
#pragma unroll
  for (int f = 0; f < RV_PF; ++f)
#pragma unroll
    for (int k = 0; k < RV_NW; ++k) win[f][k] = win[f + 1][k];
}

// The walk of one thread's strip: RV_STEPS steps in the three phases described above, each
// step's window loaded RV_PF steps ahead.
template <bool FAST>
__device__ __forceinline__ void rv_walk(const RvWalk &w, const RvTaps &h, const RvGeom &g) {
  T acc[RV_M1][RV_W];
#pragma unroll
  for (int s = 0; s < RV_M1; ++s)
#pragma unroll
    for (int q = 0; q < RV_W; ++q) acc[s][q] = (T)0;
  T win[RV_PF + 1][RV_NW];
#pragma unroll
  for (int f = 0; f < RV_PF; ++f)
    if (f < RV_STEPS) rv_load<FAST>(win[f], w, f, g);
  // Steps t < RV_M1 - 1: output o = t - j1 exists for j1 <= t.
#pragma unroll
  for (int t = 0; t < RV_M1 - 1; ++t) rv_step<FAST>(acc, win, w, h, g, t, t % RV_M1, 0, t);
  // Steps t = RV_M1 - 1 + RV_M1 i + q: every tap row meets an output of this thread; the step
  // ends output t - (RV_M1 - 1) (slot q).
  i64t t = RV_M1 - 1;
#pragma unroll 1
  for (int i = 0; i < RV_MAIN; ++i) {
#pragma unroll
    for (int q = 0; q < RV_M1; ++q) {
      rv_step<FAST>(acc, win, w, h, g, t, (RV_M1 - 1 + q) % RV_M1, 0, RV_M1 - 1);
      rv_store<FAST>(acc, q, w, t - (RV_M1 - 1), g);
      ++t;
    }
  }
#pragma unroll
  for (int q = 0; q < RV_REST; ++q) {
    rv_step<FAST>(acc, win, w, h, g, t, (RV_M1 - 1 + q) % RV_M1, 0, RV_M1 - 1);
    rv_store<FAST>(acc, q, w, t - (RV_M1 - 1), g);
    ++t;
  }
  // Steps RV_H + e: only outputs o = t - j1 < RV_H, so j1 > e.
#pragma unroll
  for (int e = 0; e < RV_M1 - 1; ++e) {
    rv_step<FAST>(acc, win, w, h, g, RV_H + e, (RV_H + e) % RV_M1, e + 1, RV_M1 - 1);
    rv_store<FAST>(acc, (RV_H + e - (RV_M1 - 1)) % RV_M1, w, RV_H + e - (RV_M1 - 1), g);
  }
}

__device__ __forceinline__ void conv_rolled(const T *__restrict__ x, const T *__restrict__ h,
                                            T *__restrict__ y, i64t batch, i64t n0, i64t n1, i64t n2,
                                            i64t m0, i64t m1, i64t m2, i64t s0, i64t s1, i64t s2,
                                            i64t l0, i64t l1, i64t l2) {
  // With RV_STAGE the taps in shared memory, staged by the whole block before any thread
  // leaves.
  __shared__ __align__(16) T hs[RV_STAGE ? RV_M1 * RV_M2P : RV_VL];
  if (RV_STAGE) {
    for (int q = threadIdx.x; q < RV_M1 * RV_M2P; q += 32 * RV_WARPS) {
      const int a = q / RV_M2P, c = q % RV_M2P;
      hs[q] = c < RV_M2 ? h[a * RV_M2 + c] : (T)0;
    }
    __syncthreads();
  }
  const RvGeom g = {n1, n2, l1, l2};
  const i64t cs = (l2 + 32 * RV_W - 1) / (32 * RV_W);
  const i64t rgs = (l1 + RV_WARPS * RV_H - 1) / (RV_WARPS * RV_H);
  const i64t b = blockIdx.x;
  const i64t strip = b % cs;
  const i64t r = b / cs;
  const i64t p = r / rgs;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const i64t oy0 = ((r % rgs) * RV_WARPS + warp) * RV_H;
  const i64t cx = strip * (32 * RV_W) + lane * RV_W;
  if (p >= batch * n0 || oy0 >= l1 || cx >= l2) return;
  RvWalk w;
  w.xp = x + p * n1 * n2;
  w.yp = y + p * l1 * l2;
  w.gxa = cx + s2 - (RV_M2 - 1) - RV_D;
  w.a0 = oy0 + RV_H - 1 + s1;
  w.ulast = oy0 + RV_H - 1;
  w.cx = cx;
  w.in = 0;
#pragma unroll
  for (int k = 0; k < RV_NW; ++k)
    if (w.gxa + k >= 0 && w.gxa + k < n2) w.in |= 1u << k;
  w.out = 0;
#pragma unroll
  for (int q = 0; q < RV_W; ++q)
    if (cx + q < l2) w.out |= 1u << q;
  // The whole warp takes the fast walk or none of it (a warp's lanes share their rows; its
  // columns run from wx to wx + 32 RV_W), so that no warp runs both.
  const i64t wx = strip * (32 * RV_W);
  const i64t wg = wx + s2 - (RV_M2 - 1) - RV_D;
  const bool fast = RV_VEC && wg >= 0 && wg + 31 * RV_W + RV_NW <= n2 && wx + 32 * RV_W <= l2 &&
                    w.a0 - (RV_H + RV_M1 - 2) >= 0 && w.a0 < n1 && w.ulast < l1;
  RvTaps taps;
  rv_taps(taps, h, hs);
  if (fast) {
    rv_walk<true>(w, taps, g);
  } else {
    rv_walk<false>(w, taps, g);
  }
}
