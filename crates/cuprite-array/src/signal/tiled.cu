// The direct convolution of a batch of planes over their two axes with a small kernel known at
// compile time: `y[p, k1, k2] = sum_{j1, j2} h[j1, j2] * x[p, k1 + s1 - j1, k2 + s2 - j2]`,
// `x` zero outside the plane. The outermost convolved axis has a kernel of length 1 (m0 == 1,
// so s0 == 0 and l0 == n0): its index folds into the plane index `p = b * n0 + k0`. See
// `direct.rs` for the parameters (the same typed description as `direct.cu`) and the CPU twin.
//
// A block computes tiles of CT_TY x CT_TX outputs of one plane: tile blockIdx.x (one block a
// tile), or with CT_PERSIST the tiles blockIdx.x + k gridDim.x (a grid of the blocks that are
// resident at once), each tile's input loaded into registers while the one before it is
// computed. For a tile it stages the input the tile reaches in shared memory, zero
// outside the plane: CT_HY rows of CT_HX values, staged column `c` being plane column `gxa + c`
// with `gxa = ox + s2 - (CT_M2 - 1) - CT_D` a multiple of CT_VL (CT_D is `s2 - (CT_M2 - 1)`
// modulo CT_VL, and `ox`, a multiple of CT_TX, is one of CT_VL too). A vector V holds CT_VL
// values (16 bytes). Each thread first loads all its staged vectors (its CT_NL slots, see
// `ct_slot`) into registers, so that its loads are in flight together, then stores them; with
// CT_VEC (rows of `x` and `y` start 16-byte aligned and hold whole vectors) a tile that lies
// inside the plane is read with one 16-byte load a vector, from one address computed a tile
// and stepped by a constant, and a tile whose outputs all lie inside the output is written
// the same way.
//
// Thread (tx, ty) computes CT_G groups of CT_VL consecutive outputs on CT_RY rows: group c
// covers tile columns `CT_GW c + CT_VL tx + q` (q < CT_VL), so that a warp's accesses of one
// group are consecutive vectors (conflict-free shared loads, coalesced stores), on rows
// `ty CT_RY + r`. It walks the staged rows it reaches from the last to the first; for each it
// loads a window of CT_NW staged values a group (vector loads) and adds every tap whose row
// meets that staged row to every output it owns. The taps sit in shared memory, rows padded
// to CT_M2P so that they are read as vectors too. Every loop bound is a compile-time constant,
// so every register index is too.
//
// Summation order: staged row `a` feeds output row `u` through tap row `j1 = u + CT_M1 - 1 -
// a`, so walking `a` downwards adds the tap rows of every output in ascending order, and within
// a tap row the taps go in ascending `j2`: per output, ascending j1, then ascending j2, each
// tap fused into one accumulator from zero (`fma(h, x, acc)`, rounded once), as the CPU twin
// sums this form. Taps that reach outside the plane add `h * 0`, which leaves a finite
// accumulator's bits unchanged (a sum started at +0 is never -0), where the twin skips them.
//
// Built after a typed header that defines `T` (float or double), `V` (float4 or double2),
// `i64t`, and the constants CT_VL (values a V), CT_M1, CT_M2 (the kernel's extent, at least 1),
// CT_BY (threads down the tile), CT_RY (rows a thread), CT_G (column groups a thread), CT_D
// (the staged offset above), CT_VEC and CT_PERSIST (0 or 1); a block has 32 * CT_BY threads.

constexpr int CT_BX = 32;
constexpr int CT_THREADS = CT_BX * CT_BY;
constexpr int CT_GW = CT_BX * CT_VL;
constexpr int CT_TX = CT_GW * CT_G;
constexpr int CT_TY = CT_BY * CT_RY;
constexpr int CT_HY = CT_TY + CT_M1 - 1;
constexpr int CT_HXV = (CT_D + CT_TX + CT_M2 - 1 + CT_VL - 1) / CT_VL;
constexpr int CT_HX = CT_HXV * CT_VL;
constexpr int CT_NWV = (CT_D + CT_VL + CT_M2 - 1 + CT_VL - 1) / CT_VL;
constexpr int CT_NW = CT_NWV * CT_VL;
constexpr int CT_M2P = (CT_M2 + CT_VL - 1) / CT_VL * CT_VL;
constexpr int CT_STAGED = CT_HY * CT_HXV;
// Staged rows one pass of the block covers when each thread keeps one staged column (`CT_RP`),
// and whether the staging takes that row-wise mapping (`CT_ROWMAP`: at least 7/8 of the threads
// busy): thread `t` then stages column `t % CT_HXV` of rows `t / CT_HXV + CT_RP i`, so that
// its addresses step by a constant from one vector to the next. Otherwise vector `t + i
// CT_THREADS` of the staged block, in row-major order.
constexpr int CT_RP = CT_THREADS / CT_HXV;
constexpr bool CT_ROWMAP = CT_RP > 0 && CT_RP * CT_HXV * 8 >= CT_THREADS * 7;
constexpr int CT_NL = CT_ROWMAP ? (CT_HY + CT_RP - 1) / (CT_RP > 0 ? CT_RP : 1)
                                : (CT_STAGED + CT_THREADS - 1) / CT_THREADS;

// One tap: `h * x + acc` rounded once (the CPU twin's `mul_add` for this form), one instruction
// where the build's `--fmad=false` would otherwise issue a multiply and an add.
__device__ __forceinline__ float ct_fma(float h, float x, float acc) {
  return __fmaf_rn(h, x, acc);
}
__device__ __forceinline__ double ct_fma(double h, double x, double acc) {
  return __fma_rn(h, x, acc);
}

__device__ __forceinline__ void ct_unpack(const float4 &v, float *o) {
  o[0] = v.x;
  o[1] = v.y;
  o[2] = v.z;
  o[3] = v.w;
}
__device__ __forceinline__ void ct_unpack(const double2 &v, double *o) {
  o[0] = v.x;
  o[1] = v.y;
}
__device__ __forceinline__ void ct_pack(const float *o, float4 *v) {
  *v = make_float4(o[0], o[1], o[2], o[3]);
}
__device__ __forceinline__ void ct_pack(const double *o, double2 *v) {
  *v = make_double2(o[0], o[1]);
}

// The geometry a tile needs: the plane's extents, the output window's start and extents, and
// the tiles along a row (`txs`) and in a plane (`tpp`). The launch has at most `INT_MAX` tiles in
// all, so tile indices and their parts fit 32-bit unsigned arithmetic.
struct CtGeom {
  i64t n1, n2, s1, s2, l1, l2;
  unsigned txs, tpp;
};

// Where tile `w` lies: its plane `p` and the first output row `oy` and column `ox` it computes.
struct CtAt {
  i64t p, oy, ox;
};

// The position of tile `w` (below the launch's tile count), from one 32-bit division by the
// tiles of a plane and one by the tiles of a row.
__device__ __forceinline__ CtAt ct_at(i64t w, const CtGeom &g) {
  const unsigned wu = (unsigned)w;
  const unsigned p = wu / g.tpp;
  const unsigned rest = wu - p * g.tpp;
  const unsigned ty = rest / g.txs;
  const unsigned tx = rest - ty * g.txs;
  return {(i64t)p, (i64t)ty * CT_TY, (i64t)tx * CT_TX};
}

// The staged vector this thread keeps in slot `i` (see CT_ROWMAP): its staged row `a` and
// vector `k` of that row; `false` where the slot holds none.
__device__ __forceinline__ bool ct_slot(int i, int &a, int &k) {
  const int tid = threadIdx.x;
  if (CT_ROWMAP) {
    const int a0 = tid / CT_HXV;
    k = tid - a0 * CT_HXV;
    a = a0 + CT_RP * i;
    return a0 < CT_RP && (CT_HY % CT_RP == 0 || a < CT_HY);
  }
  const int e = tid + i * CT_THREADS;
  a = e / CT_HXV;
  k = e - a * CT_HXV;
  return CT_STAGED % CT_THREADS == 0 || e < CT_STAGED;
}

// Loads the staged block of the tile at `at` (see above) into `buf`, this thread's CT_NL
// vectors.
__device__ __forceinline__ void ct_load(V (&buf)[CT_NL], const T *__restrict__ x, const CtAt &at,
                                        const CtGeom &g) {
  const i64t gy = at.oy + g.s1 - (CT_M1 - 1);
  const i64t gxa = at.ox + g.s2 - (CT_M2 - 1) - CT_D;
  const T *xp = x + at.p * g.n1 * g.n2;
  const bool inside = gy >= 0 && gy + CT_HY <= g.n1 && gxa >= 0 && gxa + CT_HX <= g.n2;
  if (CT_VEC && inside) {
    if (CT_ROWMAP) {
      // One address a tile, then a constant step of CT_RP rows a slot.
      int a, k;
      ct_slot(0, a, k);
      const T *xb = xp + (gy + a) * g.n2 + gxa + CT_VL * k;
      const i64t step = (i64t)CT_RP * g.n2;
#pragma unroll
      for (int i = 0; i < CT_NL; ++i) {
        if (ct_slot(i, a, k)) buf[i] = __ldg(reinterpret_cast<const V *>(xb));
        xb += step;
      }
      return;
    }
    const T *xb = xp + gy * g.n2 + gxa;
#pragma unroll
    for (int i = 0; i < CT_NL; ++i) {
      int a, k;
      if (ct_slot(i, a, k))
        buf[i] = __ldg(reinterpret_cast<const V *>(xb + (i64t)a * g.n2 + CT_VL * k));
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < CT_NL; ++i) {
    T v[CT_VL];
#pragma unroll
    for (int q = 0; q < CT_VL; ++q) v[q] = (T)0;
    int a, k;
    if (ct_slot(i, a, k)) {
      const i64t row = gy + a;
      if (row >= 0 && row < g.n1) {
        const T *xr = xp + row * g.n2;
#pragma unroll
        for (int q = 0; q < CT_VL; ++q) {
          const i64t col = gxa + CT_VL * k + q;
          if (col >= 0 && col < g.n2) v[q] = xr[col];
        }
      }
    }
    ct_pack(v, &buf[i]);
  }
}

// The tile at `at` from its staged block in `buf`: stages it in shared memory, then (with
// `more`) loads the block of the tile at `next` into `buf` while it computes and stores its
// outputs.
__device__ __forceinline__ void ct_tile(T *xs, const T *hs, V (&buf)[CT_NL],
                                        const T *__restrict__ x, T *__restrict__ y,
                                        const CtAt &at, bool more, const CtAt &next,
                                        const CtGeom &g) {
  const int tid = threadIdx.x;
  const int tx = tid % CT_BX;
  const int ty = tid / CT_BX;
#pragma unroll
  for (int i = 0; i < CT_NL; ++i) {
    int a, k;
    if (ct_slot(i, a, k)) *reinterpret_cast<V *>(xs + a * CT_HX + CT_VL * k) = buf[i];
  }
  __syncthreads();
  if (CT_PERSIST && more) ct_load(buf, x, next, g);
  T acc[CT_G][CT_RY][CT_VL];
#pragma unroll
  for (int c = 0; c < CT_G; ++c)
#pragma unroll
    for (int r = 0; r < CT_RY; ++r)
#pragma unroll
      for (int q = 0; q < CT_VL; ++q) acc[c][r][q] = (T)0;
  // Staged rows ty * CT_RY + i for i from CT_RY + CT_M1 - 2 down to 0: output row r (of this
  // thread) meets tap row j1 = r + CT_M1 - 1 - i.
#pragma unroll
  for (int i = CT_RY + CT_M1 - 2; i >= 0; --i) {
    const T *row = xs + (ty * CT_RY + i) * CT_HX + CT_VL * tx;
    T win[CT_G][CT_NW];
#pragma unroll
    for (int c = 0; c < CT_G; ++c)
#pragma unroll
      for (int k = 0; k < CT_NWV; ++k)
        ct_unpack(*reinterpret_cast<const V *>(row + CT_GW * c + CT_VL * k), &win[c][CT_VL * k]);
#pragma unroll
    for (int r = 0; r < CT_RY; ++r) {
      const int j1 = r + CT_M1 - 1 - i;
      if (j1 < 0 || j1 >= CT_M1) continue;
      T hv[CT_M2P];
#pragma unroll
      for (int k = 0; k < CT_M2P / CT_VL; ++k)
        ct_unpack(*reinterpret_cast<const V *>(hs + j1 * CT_M2P + CT_VL * k), &hv[CT_VL * k]);
#pragma unroll
      for (int c = 0; c < CT_G; ++c)
#pragma unroll
        for (int j2 = 0; j2 < CT_M2; ++j2)
#pragma unroll
          for (int q = 0; q < CT_VL; ++q)
            acc[c][r][q] = ct_fma(hv[j2], win[c][CT_D + CT_M2 - 1 + q - j2], acc[c][r][q]);
    }
  }
  // A tile inside the output, rows of whole vectors: one address, then a row's step a row.
  if (CT_VEC && at.oy + CT_TY <= g.l1 && at.ox + CT_TX <= g.l2) {
    T *yr = y + (at.p * g.l1 + at.oy + ty * CT_RY) * g.l2 + at.ox + CT_VL * tx;
#pragma unroll
    for (int r = 0; r < CT_RY; ++r) {
#pragma unroll
      for (int c = 0; c < CT_G; ++c) {
        V o;
        ct_pack(acc[c][r], &o);
        __stwb(reinterpret_cast<V *>(yr + CT_GW * c), o);
      }
      yr += g.l2;
    }
    return;
  }
  // Each group's CT_VL outputs of a row: one vector store where it lies inside the row.
#pragma unroll
  for (int r = 0; r < CT_RY; ++r) {
    const i64t u = at.oy + ty * CT_RY + r;
    if (u >= g.l1) continue;
    T *yr = y + (at.p * g.l1 + u) * g.l2;
#pragma unroll
    for (int c = 0; c < CT_G; ++c) {
      const i64t v = at.ox + CT_GW * c + CT_VL * tx;
      if (CT_VEC && v + CT_VL <= g.l2) {
        V o;
        ct_pack(acc[c][r], &o);
        // An explicit vector store: a plain one may be split into scalars in the loop.
        __stwb(reinterpret_cast<V *>(yr + v), o);
      } else {
#pragma unroll
        for (int q = 0; q < CT_VL; ++q)
          if (v + q < g.l2) yr[v + q] = acc[c][r][q];
      }
    }
  }
}

__device__ __forceinline__ void conv_tiled(const T *__restrict__ x, const T *__restrict__ h,
                                           T *__restrict__ y, i64t batch, i64t n0, i64t n1,
                                           i64t n2, i64t m0, i64t m1, i64t m2, i64t s0, i64t s1,
                                           i64t s2, i64t l0, i64t l1, i64t l2) {
  __shared__ __align__(16) T xs[CT_HY * CT_HX];
  __shared__ __align__(16) T hs[CT_M1 * CT_M2P];
  // The taps, each row padded with zeros to CT_M2P (visible after ct_tile's barrier).
  for (int q = threadIdx.x; q < CT_M1 * CT_M2P; q += CT_THREADS) {
    const int a = q / CT_M2P, b = q % CT_M2P;
    hs[q] = b < CT_M2 ? h[a * CT_M2 + b] : (T)0;
  }
  const unsigned tys = (unsigned)((l1 + CT_TY - 1) / CT_TY);
  const unsigned txs = (unsigned)((l2 + CT_TX - 1) / CT_TX);
  const CtGeom g = {n1, n2, s1, s2, l1, l2, txs, tys * txs};
  const i64t total = batch * n0 * (i64t)g.tpp;
  i64t w = blockIdx.x;
  if (w >= total) return;
  V buf[CT_NL];
  CtAt at = ct_at(w, g);
  ct_load(buf, x, at, g);
  if (CT_PERSIST) {
    for (; w < total; w += gridDim.x) {
      const bool more = w + gridDim.x < total;
      const CtAt next = more ? ct_at(w + gridDim.x, g) : at;
      ct_tile(xs, hs, buf, x, y, at, more, next, g);
      // Every shared read of this tile is done before the next one is staged.
      __syncthreads();
      at = next;
    }
  } else {
    ct_tile(xs, hs, buf, x, y, at, false, at, g);
  }
}
