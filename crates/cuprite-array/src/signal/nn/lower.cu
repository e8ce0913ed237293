// The fallback kernels of the neural-network convolution: the lowering of an input into its
// patches (`nn_im2col`), the gather of lowered gradients back onto the input (`nn_col2im`), the
// exchange of the first two axes of a batch of planes (`nn_swap`; `nn_tile_swap` for a batch
// of matrices, through shared memory), the bias and activation applied to a result in place
// (`nn_bias_act`), and the sum of the images' partial weight gradients of the split lowering
// (`nn_tap_sum`). The products between them are cuBLASLt's. See
// `kernels.rs` for the parameters (one typed description each) and `cuda.rs` for the passes.
//
// Layouts. An input `x` is `planes = n c` planes of `i0 i1 i2` values. The patches of image
// `n`, channel `ch`, tap `(j0, j1, j2)` (row `ch rs + j`, `rs = r0 r1 r2`) at output position
// `q` lie at `col[n sn + (ch rs + j) sr + q]`: `sn = c rs P, sr = P` lays each image's patches
// as a `c rs x P` matrix (the forward product's operand), `sn = P, sr = nb P` lays every
// image's patches side by side in one `c rs x nb P` matrix (the weight gradient's operand).
// Tap `j` of output `q` reads input `q s - p + j d` along each axis; outside the input it
// reads zero. The lowering's `p` and `d` may be negative: the input's gradient at stride 1
// lowers `dy` with `-p` and `-d` (tap `j` of input position `e` reads `dy` at `e + p - j d`),
// a negative padding crops.
//
// Threads. `x` of a block runs over groups of `NN_V` consecutive positions within a plane
// (output positions for the lowering, input positions for the gather, values for the
// exchange), `y` over planes (for the lowering and the gather, groups of `pg` planes), each
// a grid-stride loop. A thread splits its group's first position once and steps to the
// others, so no division runs per element; each tap's bounds and index are found in 32 bits
// once per position for all of the thread's planes, and each plane costs one 32-bit division
// (its image and channel). A whole group whose first element lies on a multiple of `NN_V`
// elements (every image and row start does when `sn`, `sr` or the plane size are multiples of
// `NN_V`) in a buffer on 8 bytes is stored as one 8-byte access; any other element by element.
//
// Ranges (checked on the host, `geom.rs`, `kernels.rs` and `cuda.rs`): the extents, padding and
// the farthest tap of each axis (`(o - 1) s + (r - 1) d`), the sizes of one input plane, one
// output plane and one kernel plane, and the number of planes are at most `2^31 - 1`, so
// indices within a plane are `int` and sums of an index and a padding are `unsigned`; offsets
// of whole planes are `i64t`. With a negative padding and dilation (stride 1) every index a
// tap computes lies in `[p - (r - 1) d, (o - 1) + p]`, and `(o - 1) + p` is at most
// `2^31 - 1` too (`transposed` in `cuda.rs`).
//
// Built after a typed header defining `S` (storage), `A` (working type), `nn_ld`, `nn_st`.

// Elements of one 8-byte access.
constexpr int NN_V = 8 / (int)sizeof(S);

// The most planes one thread of the lowering and the gather takes (`pg`, 1 to `NN_PL`, chosen
// on the host: `y` of their launch runs over groups of `pg` planes; `LOWER_PLANES` in
// `kernels.rs`): each tap's bounds and index are found once for all of them.
constexpr int NN_PL = 4;

// `NN_V` consecutive elements, on 8 bytes.
struct __align__(8) NnVec {
  S v[NN_V];
};

__device__ __forceinline__ bool nn_on8(const void *p) {
  return (reinterpret_cast<unsigned long long>(p) & 7ull) == 0ull;
}

// Splits flat position `p` of an `o0 x o1 x o2` grid into `(q0, q1, q2)`.
__device__ __forceinline__ void nn_split(unsigned p, int o1, int o2, int &q0, int &q1, int &q2) {
  const unsigned t = p / (unsigned)o2;
  q2 = (int)(p - t * (unsigned)o2);
  q1 = (int)(t % (unsigned)o1);
  q0 = (int)(t / (unsigned)o1);
}

// The next position after `(q0, q1, q2)` in row-major order.
__device__ __forceinline__ void nn_step(int o1, int o2, int &q0, int &q1, int &q2) {
  if (++q2 == o2) {
    q2 = 0;
    if (++q1 == o1) {
      q1 = 0;
      ++q0;
    }
  }
}

// Stores the first `nv` elements of `v` at `dst`: one 8-byte access when `whole` (then `dst`
// lies on 8 bytes and `nv == NN_V`).
__device__ __forceinline__ void nn_put(S *dst, const NnVec &v, int nv, bool whole) {
  if (whole) {
    *reinterpret_cast<NnVec *>(dst) = v;
  } else {
#pragma unroll
    for (int k = 0; k < NN_V; ++k)
      if (k < nv) dst[k] = v.v[k];
  }
}

__device__ __forceinline__ void nn_im2col(const S *__restrict__ x, S *__restrict__ col,
                                          i64t planes, i64t c, i64t i0, i64t i1, i64t i2, i64t r0,
                                          i64t r1, i64t r2, i64t o0, i64t o1, i64t o2, i64t st0,
                                          i64t st1, i64t st2, i64t pd0, i64t pd1, i64t pd2,
                                          i64t dl0, i64t dl1, i64t dl2, i64t sn, i64t sr,
                                          i64t pg) {
  const int I0 = (int)i0, I1 = (int)i1, I2 = (int)i2;
  const int R0 = (int)r0, R1 = (int)r1, R2 = (int)r2;
  const int O1 = (int)o1, O2 = (int)o2;
  const int S0 = (int)st0, S1 = (int)st1, S2 = (int)st2;
  const int P0 = (int)pd0, P1 = (int)pd1, P2 = (int)pd2;
  const int D0 = (int)dl0, D1 = (int)dl1, D2 = (int)dl2;
  const unsigned P = (unsigned)(o0 * o1 * o2);
  const i64t ip = i0 * i1 * i2;
  const i64t rs = r0 * r1 * r2;
  const unsigned np = (unsigned)planes, cu = (unsigned)c;
  const unsigned PG = (unsigned)pg;
  const unsigned npg = (np + PG - 1) / PG;
  const bool vec = sn % NN_V == 0 && sr % NN_V == 0 && nn_on8(col);
  const unsigned groups = (P + NN_V - 1) / NN_V;
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += gridDim.x * blockDim.x) {
    const unsigned p = g * NN_V;
    const int nv = (int)min((unsigned)NN_V, P - p);
    // The first input index each position's taps read along each axis (positions past `P`
    // repeat the last one and are not stored).
    int b0[NN_V], b1[NN_V], b2[NN_V];
    {
      int q0, q1, q2;
      nn_split(p, O1, O2, q0, q1, q2);
#pragma unroll
      for (int k = 0; k < NN_V; ++k) {
        b0[k] = q0 * S0 - P0;
        b1[k] = q1 * S1 - P1;
        b2[k] = q2 * S2 - P2;
        if (k + 1 < nv) nn_step(O1, O2, q0, q1, q2);
      }
    }
    const bool whole = vec && nv == NN_V;
    for (unsigned gp = blockIdx.y * blockDim.y + threadIdx.y; gp < npg;
         gp += gridDim.y * blockDim.y) {
      // Planes `gp pg + t`, the first `live` of them inside (the others point at the first
      // plane and are neither read nor stored); `dst[t]` is row `ch rs + j` of plane `t`'s
      // patches.
      const unsigned pl0 = gp * PG;
      const int live = (int)min(PG, np - pl0);
      const S *xp[NN_PL];
      S *dst[NN_PL];
#pragma unroll
      for (int t = 0; t < NN_PL; ++t) {
        const unsigned pl = pl0 + (unsigned)(t < live ? t : 0);
        const unsigned n = pl / cu;
        const unsigned ch = pl - n * cu;
        xp[t] = x + (i64t)pl * ip;
        dst[t] = col + (i64t)n * sn + (i64t)ch * rs * sr + p;
      }
      for (int j0 = 0; j0 < R0; ++j0) {
        for (int j1 = 0; j1 < R1; ++j1) {
          // Each position's input row for taps `(j0, j1, *)`, -1 where it lies outside.
          int line[NN_V];
#pragma unroll
          for (int k = 0; k < NN_V; ++k) {
            const int a0 = b0[k] + j0 * D0;
            const int a1 = b1[k] + j1 * D1;
            line[k] = ((unsigned)a0 < (unsigned)I0 && (unsigned)a1 < (unsigned)I1)
                          ? (a0 * I1 + a1) * I2
                          : -1;
          }
          for (int j2 = 0; j2 < R2; ++j2) {
            NnVec v[NN_PL];
#pragma unroll
            for (int k = 0; k < NN_V; ++k) {
              const int a2 = b2[k] + j2 * D2;
              const bool in = line[k] >= 0 && (unsigned)a2 < (unsigned)I2;
              const int at = in ? line[k] + a2 : 0;
#pragma unroll
              for (int t = 0; t < NN_PL; ++t) v[t].v[k] = (in && t < live) ? xp[t][at] : (S)0;
            }
#pragma unroll
            for (int t = 0; t < NN_PL; ++t) {
              if (t < live) nn_put(dst[t], v[t], nv, whole);
              dst[t] += sr;
            }
          }
        }
      }
    }
  }
}

// The output index along one axis whose tap at offset `jd = j dl` reads the input at `u = e +
// pd` (`e` the input index): `(u - jd) / st` when `u >= jd`, that divides exactly and lies in
// `[0, o)`, else -1. `u` is below 2^32 and `jd`, `o` below 2^31 (checked on the host), so
// everything runs in 32 bits; with stride 1, `u < jd` wraps `u - jd` to at least 2^31 > `o`.
__device__ __forceinline__ int nn_src(unsigned u, int jd, int st, int o) {
  const unsigned v = u - (unsigned)jd;
  if (st == 1) return v < (unsigned)o ? (int)v : -1;
  if (u < (unsigned)jd) return -1;
  const unsigned q = v / (unsigned)st;
  return (q * (unsigned)st == v && q < (unsigned)o) ? (int)q : -1;
}

// dx[n, ch, e] = sum over taps j (ascending, row-major) of col[n, ch rs + j, q(e, j)], in `A`.
__device__ __forceinline__ void nn_col2im(const S *__restrict__ col, S *__restrict__ dx,
                                          i64t planes, i64t c, i64t i0, i64t i1, i64t i2, i64t r0,
                                          i64t r1, i64t r2, i64t o0, i64t o1, i64t o2, i64t st0,
                                          i64t st1, i64t st2, i64t pd0, i64t pd1, i64t pd2,
                                          i64t dl0, i64t dl1, i64t dl2, i64t sn, i64t sr,
                                          i64t pg) {
  const int I1 = (int)i1, I2 = (int)i2;
  const int R0 = (int)r0, R1 = (int)r1, R2 = (int)r2;
  const int O0 = (int)o0, O1 = (int)o1, O2 = (int)o2;
  const int S0 = (int)st0, S1 = (int)st1, S2 = (int)st2;
  const int D0 = (int)dl0, D1 = (int)dl1, D2 = (int)dl2;
  const i64t ip = i0 * i1 * i2;
  const i64t rs = r0 * r1 * r2;
  const unsigned E = (unsigned)ip;
  const unsigned np = (unsigned)planes, cu = (unsigned)c;
  const unsigned PG = (unsigned)pg;
  const unsigned npg = (np + PG - 1) / PG;
  const bool vec = ip % NN_V == 0 && nn_on8(dx);
  const unsigned groups = (E + NN_V - 1) / NN_V;
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += gridDim.x * blockDim.x) {
    const unsigned e = g * NN_V;
    const int nv = (int)min((unsigned)NN_V, E - e);
    // Each position's input index plus padding along each axis (positions past the plane
    // repeat the last one and are not stored).
    unsigned u0[NN_V], u1[NN_V], u2[NN_V];
    {
      int q0, q1, q2;
      nn_split(e, I1, I2, q0, q1, q2);
#pragma unroll
      for (int k = 0; k < NN_V; ++k) {
        u0[k] = (unsigned)q0 + (unsigned)pd0;
        u1[k] = (unsigned)q1 + (unsigned)pd1;
        u2[k] = (unsigned)q2 + (unsigned)pd2;
        if (k + 1 < nv) nn_step(I1, I2, q0, q1, q2);
      }
    }
    const bool whole = vec && nv == NN_V;
    for (unsigned gp = blockIdx.y * blockDim.y + threadIdx.y; gp < npg;
         gp += gridDim.y * blockDim.y) {
      // Planes `gp pg + t`, the first `live` of them inside (the others point at the first
      // plane and are neither read nor stored). `row[t]` is row `j` of plane `t`'s patches,
      // `j` ascending row-major.
      const unsigned pl0 = gp * PG;
      const int live = (int)min(PG, np - pl0);
      const S *row[NN_PL];
#pragma unroll
      for (int t = 0; t < NN_PL; ++t) {
        const unsigned pl = pl0 + (unsigned)(t < live ? t : 0);
        const unsigned n = pl / cu;
        const unsigned ch = pl - n * cu;
        row[t] = col + (i64t)n * sn + (i64t)ch * rs * sr;
      }
      A acc[NN_PL][NN_V];
#pragma unroll
      for (int t = 0; t < NN_PL; ++t)
#pragma unroll
        for (int k = 0; k < NN_V; ++k) acc[t][k] = (A)0;
      for (int j0 = 0; j0 < R0; ++j0) {
        int q0[NN_V];
#pragma unroll
        for (int k = 0; k < NN_V; ++k) q0[k] = nn_src(u0[k], j0 * D0, S0, O0);
        for (int j1 = 0; j1 < R1; ++j1) {
          // Each position's output row `q0 o1 + q1` for taps `(j0, j1, *)`, -1 where none.
          int line[NN_V];
#pragma unroll
          for (int k = 0; k < NN_V; ++k) {
            const int q1 = nn_src(u1[k], j1 * D1, S1, O1);
            line[k] = (q0[k] >= 0 && q1 >= 0) ? (q0[k] * O1 + q1) * O2 : -1;
          }
          for (int j2 = 0; j2 < R2; ++j2) {
#pragma unroll
            for (int k = 0; k < NN_V; ++k) {
              const int q2 = nn_src(u2[k], j2 * D2, S2, O2);
              if (line[k] >= 0 && q2 >= 0) {
                const int at = line[k] + q2;
#pragma unroll
                for (int t = 0; t < NN_PL; ++t)
                  if (t < live) acc[t][k] += nn_ld(row[t][at]);
              }
            }
#pragma unroll
            for (int t = 0; t < NN_PL; ++t) row[t] += sr;
          }
        }
      }
#pragma unroll
      for (int t = 0; t < NN_PL; ++t) {
        if (t < live) {
          NnVec v;
#pragma unroll
          for (int k = 0; k < NN_V; ++k) v.v[k] = nn_st(acc[t][k]);
          nn_put(dx + (i64t)(pl0 + t) * ip + e, v, nv, whole);
        }
      }
    }
  }
}

// dst[b, a, q] = src[a, b, q] for `a x b` planes of `p` values (threads: `x` over groups of
// `NN_V` values `q`, `y` over the `a b` planes of the source; `a b` and `p` below 2^31, checked
// on the host). Both sides read and write runs of `p` consecutive values.
__device__ __forceinline__ void nn_swap(const S *__restrict__ src, S *__restrict__ dst, i64t a,
                                        i64t b, i64t p) {
  const unsigned np = (unsigned)(a * b), bu = (unsigned)b, P = (unsigned)p;
  const bool vec = p % NN_V == 0 && nn_on8(src) && nn_on8(dst);
  const unsigned groups = (P + NN_V - 1) / NN_V;
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += gridDim.x * blockDim.x) {
    const unsigned q = g * NN_V;
    const int nv = (int)min((unsigned)NN_V, P - q);
    const bool whole = vec && nv == NN_V;
    for (unsigned pl = blockIdx.y * blockDim.y + threadIdx.y; pl < np;
         pl += gridDim.y * blockDim.y) {
      const unsigned ia = pl / bu;
      const unsigned ib = pl - ia * bu;
      const S *s = src + (i64t)pl * p + q;
      S *d = dst + ((i64t)ib * a + ia) * p + q;
      if (whole) {
        *reinterpret_cast<NnVec *>(d) = *reinterpret_cast<const NnVec *>(s);
      } else {
        for (int k = 0; k < nv; ++k) d[k] = s[k];
      }
    }
  }
}

// dst[pl, j, i] = src[pl, i, j] for `planes` planes of `a x b` values: the exchange of a
// batch of matrices' two axes (channels first to channels last and back, `dnn.rs`), through
// 32 x 32 tiles in shared memory so that both the reads and the writes run along rows.
// Threads: the block's 256 threads (any `x` by `y` shape of 256, `THREADS` in `kernels.rs`)
// are 8 rows of 32; blocks take tiles in a grid-stride loop (the loop's bounds are the same
// for every thread of a block, so each reaches both barriers). `a` and `b` are below 2^31
// (checked on the host): indices within a plane are `int`, offsets of planes `i64t`.
__device__ __forceinline__ void nn_tile_swap(const S *__restrict__ src, S *__restrict__ dst,
                                             i64t a, i64t b, i64t planes) {
  __shared__ S tile[32][33];
  const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);
  const int tx = tid & 31, ty = tid >> 5;
  const unsigned long long ta = (unsigned long long)((a + 31) / 32);
  const unsigned long long tb = (unsigned long long)((b + 31) / 32);
  const unsigned long long per_plane = ta * tb;
  const unsigned long long tiles = per_plane * (unsigned long long)planes;
  const unsigned long long step = (unsigned long long)gridDim.x * gridDim.y;
  for (unsigned long long t = (unsigned long long)blockIdx.y * gridDim.x + blockIdx.x; t < tiles;
       t += step) {
    const unsigned long long pl = t / per_plane;
    const unsigned long long r = t - pl * per_plane;
    const int i0 = (int)(r / tb) * 32, j0 = (int)(r % tb) * 32;
    const S *s = src + (i64t)pl * a * b;
    S *d = dst + (i64t)pl * a * b;
    for (int k = ty; k < 32; k += 8) {
      const int i = i0 + k, j = j0 + tx;
      if (i < a && j < b) tile[k][tx] = s[(i64t)i * b + j];
    }
    __syncthreads();
    for (int k = ty; k < 32; k += 8) {
      const int j = j0 + k, i = i0 + tx;
      if (i < a && j < b) d[(i64t)j * a + i] = tile[tx][k];
    }
    __syncthreads();
  }
}

// y[pl, q] = act(y[pl, q] + bias[pl % k]) over `planes` planes of `p` values (`bias` may be
// null: no bias). `relu` nonzero: negative values become zero, NaN stays NaN.
__device__ __forceinline__ void nn_bias_act(S *__restrict__ y, const S *__restrict__ bias,
                                            i64t planes, i64t k, i64t p, i64t relu) {
  for (i64t q = (i64t)blockIdx.x * blockDim.x + threadIdx.x; q < p;
       q += (i64t)gridDim.x * blockDim.x) {
    for (i64t pl = (i64t)blockIdx.y * blockDim.y + threadIdx.y; pl < planes;
         pl += (i64t)gridDim.y * blockDim.y) {
      A v = nn_ld(y[pl * p + q]);
      if (bias) v += nn_ld(bias[pl % k]);
      if (relu && v < (A)0) v = (A)0;
      y[pl * p + q] = nn_st(v);
    }
  }
}

// The weights' gradient of the split lowering (`weight_split` in `cuda.rs`): `part` holds each
// image's partial sums, image `n`'s from `n e` (`e = parts k crs`, `crs = c rest`), as `parts`
// blocks (one a tap `j` of the split axis) of `k x crs` values (filter; channel `ch` and tap
// `t` of the other axes at `ch rest + t`); `acc` holds the previous chunks' sums in the same
// layout. Thread `(x, y)` (`x < crs`, `y = j k + kk < parts k`, grid-stride loops) adds the
// images' partial sums of value `v = y crs + x` in image order onto `acc[v]` (onto 0 for the
// first chunk); it writes the sum back to `acc[v]`, or for the last chunk rounds it into
// `dw[((kk c + ch) parts + j) rest + t]`, the gradient's own layout. Every index is below `nb
// e` (`part`), `e` (`acc`) or `parts k crs` (`dw`), checked on the host.
__device__ __forceinline__ void nn_tap_sum(const float *__restrict__ part, float *__restrict__ acc,
                                           S *__restrict__ dw, i64t nb, i64t k, i64t c,
                                           i64t rest, i64t parts, i64t first, i64t last) {
  const i64t crs = c * rest, planes = parts * k, e = planes * crs;
  for (i64t x = (i64t)blockIdx.x * blockDim.x + threadIdx.x; x < crs;
       x += (i64t)gridDim.x * blockDim.x) {
    const i64t ch = x / rest, t = x - ch * rest;
    for (i64t y = (i64t)blockIdx.y * blockDim.y + threadIdx.y; y < planes;
         y += (i64t)gridDim.y * blockDim.y) {
      const i64t v = y * crs + x;
      float s = first ? 0.0f : acc[v];
      for (i64t n = 0; n < nb; ++n) s += part[n * e + v];
      if (last) {
        const i64t j = y / k, kk = y - j * k;
        dw[((kk * c + ch) * parts + j) * rest + t] = nn_st((A)s);
      } else {
        acc[v] = s;
      }
    }
  }
}
