// Connected components of a batch of binary volumes `n0 x n1 x n2`, numbered as SciPy numbers
// them: 1, 2, ... in the raster order of each component's first pixel, 0 for the background.
//
// Union-find by smaller index (block-based, as in Allegretti et al.'s BUF): `lab[p]` of a set
// pixel points to a pixel of its component at a smaller or equal index inside its image, a root
// points to itself, a background pixel holds -1. Every union links the larger root below the
// smaller one, so that once all unions are done the root of a component is its first pixel. A
// root bit a pixel (`bits`: one 32-bit word for 32 pixels of a row, rows `wpr` words apart,
// images `wpi` words apart) marks the roots; the label of a component is one plus the number
// of roots before its root in raster order, read from those words and their prefix sums.
//
// Five kernels, in order:
// - `label_local`: a block takes a tile of LB_T x LB_T pixels of one plane (rows i1, columns
//   i2), joins the pixels of the tile by union-find in shared memory (every earlier
//   neighbour inside the tile and the plane), and writes each set pixel's tile root (as an
//   index in its image) to `lab` and the tile roots' bits (one tile row a word, by ballot).
// - `label_merge`: the unions across tiles and planes, in global memory: each set pixel on a
//   tile's edge (every pixel when neighbours lie in other planes, `all`) joins its set earlier
//   neighbours outside its tile. A union retries with atomicMin until the link it made is the
//   one that holds; roots only decrease, so the loop ends. The root that a successful link
//   puts below another is no longer a root: its bit is cleared.
// - `label_wscan`: for each run of LB_WB words of an image, the number of roots in the words
//   before each word of the run (`wpre`) and in the whole run (`bsum`).
// - `label_bscan`: for each image, the runs' totals made exclusive prefix sums in place, and
//   the image's count of components (`counts`).
// - `label_final`: every set pixel finds its root and takes one plus the roots before it.
//
// The neighbours are the bits of `nbm`: bit `k` (0 to 12) the offset `(k / 9 - 1, k / 3 % 3 -
// 1, k % 3 - 1)` along the three axes, the 13 offsets earlier in raster order than the pixel.
// `lab` is read and written by several threads at once in `label_merge` (no `__restrict__`);
// reads go through `volatile` so that a thread sees the links others made. Built after a
// typed header that defines `i64t`.

constexpr int LB_T = 32;
constexpr int LB_THREADS = 256;
constexpr int LB_WB = 1024;

__device__ __forceinline__ int label_find(volatile int *lab, int a) {
  int p = lab[a];
  while (p != a) {
    a = p;
    p = lab[a];
  }
  return a;
}

// The word of root bits and the bit of pixel `a` (an index in its image) of an image whose
// words start at `w0`.
__device__ __forceinline__ i64t label_word(int a, int n2, i64t wpr, i64t w0) {
  return w0 + (i64t)(a / n2) * wpr + (a % n2) / 32;
}

// Joins the components of `a` and `b` in `lab` (shared or global memory). With `bits`, the
// root put below another loses its bit (`n2`, `wpr`, `w0` as for `label_word`).
__device__ __forceinline__ void label_union(int *lab, int a, int b, unsigned *bits, int n2,
                                            i64t wpr, i64t w0) {
  volatile int *v = lab;
  for (;;) {
    a = label_find(v, a);
    b = label_find(v, b);
    if (a == b) return;
    if (a < b) {
      const int t = a;
      a = b;
      b = t;
    }
    // a > b: link root a below b, unless another thread moved it first.
    const int old = atomicMin(lab + a, b);
    if (old == a) {
      if (bits) atomicAnd(bits + label_word(a, n2, wpr, w0), ~(1u << ((a % n2) % 32)));
      return;
    }
    a = old;
  }
}

constexpr int LB_NB = 13;

// Grid y strides over the planes, grid x over the tiles of a plane (32-bit tile indices: a
// plane has fewer than 2^31 pixels).
__device__ __forceinline__ void label_local(const unsigned char *__restrict__ m, int *lab,
                                            unsigned *bits, i64t nbm, i64t planes, i64t n0,
                                            i64t n1, i64t n2, i64t wpr) {
  __shared__ int s[LB_T * LB_T];
  const int tid = threadIdx.x;
  const unsigned tn1 = (unsigned)((n1 + LB_T - 1) / LB_T), tn2 = (unsigned)((n2 + LB_T - 1) / LB_T);
  const i64t per = n0 * n1 * n2;
  for (i64t pl = blockIdx.y; pl < planes; pl += gridDim.y) {
    const i64t b = pl / n0, i0 = pl - b * n0;
    // The plane's first index in its image, and its values.
    const i64t pb = i0 * n1 * n2;
    const unsigned char *mp = m + b * per + pb;
    int *lp = lab + b * per + pb;
    for (unsigned t = blockIdx.x; t < tn1 * tn2; t += gridDim.x) {
      const i64t tx0 = (i64t)(t % tn2) * LB_T, ty0 = (i64t)(t / tn2) * LB_T;
      __syncthreads();
      for (int li = tid; li < LB_T * LB_T; li += LB_THREADS) {
        const i64t i1 = ty0 + li / LB_T, i2 = tx0 + li % LB_T;
        const bool set = i1 < n1 && i2 < n2 && mp[i1 * n2 + i2] != 0;
        s[li] = set ? li : -1;
      }
      __syncthreads();
      for (int li = tid; li < LB_T * LB_T; li += LB_THREADS) {
        if (s[li] < 0) continue;
        const int ly = li / LB_T, lx = li % LB_T;
#pragma unroll
        for (int k = 9; k < LB_NB; ++k) {
          if (!((nbm >> k) & 1)) continue;
          const int y = ly + k / 3 % 3 - 1, x = lx + k % 3 - 1;
          if (y < 0 || y >= LB_T || x < 0 || x >= LB_T) continue;
          const int q = y * LB_T + x;
          if (s[q] >= 0) label_union(s, li, q, nullptr, 1, 0, 0);
        }
      }
      __syncthreads();
      // A warp takes whole tile rows (LB_T = 32 lanes): the row's root bits are its ballot.
      for (int li = tid; li < LB_T * LB_T; li += LB_THREADS) {
        const int ly = li / LB_T, lx = li % LB_T;
        const i64t i1 = ty0 + ly, i2 = tx0 + lx;
        const bool set = s[li] >= 0;
        int root = li;
        if (set) root = label_find(s, li);
        const unsigned word = __ballot_sync(0xffffffffu, set && root == li);
        if (i1 >= n1) continue;
        if (i2 < n2) {
          const i64t rg = pb + (ty0 + root / LB_T) * n2 + tx0 + root % LB_T;
          lp[i1 * n2 + i2] = set ? (int)rg : -1;
        }
        if (lx == 0) bits[(pl * n1 + i1) * wpr + tx0 / 32] = word;
      }
    }
  }
}

// The tile-edge pixel `slot` of a tile: the first row, then the first column, then the last
// column below the first row (`all`: every pixel of the tile).
__device__ __forceinline__ void label_slot(int slot, bool all, int &ly, int &lx) {
  if (all) {
    ly = slot / LB_T;
    lx = slot % LB_T;
  } else if (slot < LB_T) {
    ly = 0;
    lx = slot;
  } else if (slot < 2 * LB_T - 1) {
    ly = slot - LB_T + 1;
    lx = 0;
  } else {
    ly = slot - 2 * LB_T + 2;
    lx = LB_T - 1;
  }
}

// Grid y strides over the planes, grid x over the tiles of a plane; a block's threads take
// the tile's candidate pixels.
__device__ __forceinline__ void label_merge(const unsigned char *__restrict__ m, int *lab,
                                            unsigned *bits, i64t nbm, i64t planes, i64t n0,
                                            i64t n1, i64t n2, i64t wpr, i64t all) {
  const unsigned tn1 = (unsigned)((n1 + LB_T - 1) / LB_T), tn2 = (unsigned)((n2 + LB_T - 1) / LB_T);
  const int slots = all ? LB_T * LB_T : 3 * LB_T - 2;
  const i64t per = n0 * n1 * n2;
  const i64t wpi = n0 * n1 * wpr;
  for (i64t pl = blockIdx.y; pl < planes; pl += gridDim.y) {
    const i64t b = pl / n0, i0 = pl - b * n0;
    const unsigned char *mi = m + b * per;
    int *img = lab + b * per;
    for (unsigned t = blockIdx.x; t < tn1 * tn2; t += gridDim.x) {
      const i64t tx0 = (i64t)(t % tn2) * LB_T, ty0 = (i64t)(t / tn2) * LB_T;
      for (int slot = threadIdx.x; slot < slots; slot += blockDim.x) {
        int ly, lx;
        label_slot(slot, all != 0, ly, lx);
        const i64t i1 = ty0 + ly, i2 = tx0 + lx;
        if (i1 >= n1 || i2 >= n2) continue;
        const i64t p = (i0 * n1 + i1) * n2 + i2;
        if (!mi[p]) continue;
#pragma unroll
        for (int k = 0; k < LB_NB; ++k) {
          if (!((nbm >> k) & 1)) continue;
          const int o0 = k / 9 - 1, o1 = k / 3 % 3 - 1, o2 = k % 3 - 1;
          const i64t j0 = i0 + o0, j1 = i1 + o1, j2 = i2 + o2;
          if (j0 < 0 || j0 >= n0 || j1 < 0 || j1 >= n1 || j2 < 0 || j2 >= n2) continue;
          // Neighbours inside the tile and the plane were joined by `label_local`.
          const bool inside = o0 == 0 && ly + o1 >= 0 && ly + o1 < LB_T && lx + o2 >= 0 &&
                              lx + o2 < LB_T;
          if (inside) continue;
          const i64t q = (j0 * n1 + j1) * n2 + j2;
          if (!mi[q]) continue;
          label_union(img, (int)p, (int)q, bits, (int)n2, wpr, b * wpi);
        }
      }
    }
  }
}

// The exclusive prefix sum of `v` over the block (LB_THREADS threads), and the block's total
// in `total`. Every thread of the block calls it.
__device__ __forceinline__ int label_block_scan(int v, int &total) {
  __shared__ int warp_sums[LB_THREADS / 32];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  int x = v;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += y;
  }
  if (lane == 31) warp_sums[w] = x;
  __syncthreads();
  int before = 0, all = 0;
#pragma unroll
  for (int k = 0; k < LB_THREADS / 32; ++k) {
    const int s = warp_sums[k];
    if (k < w) before += s;
    all += s;
  }
  __syncthreads();
  total = all;
  return before + x - v;
}

__device__ __forceinline__ void label_wscan(const unsigned *__restrict__ bits,
                                            int *__restrict__ wpre, int *__restrict__ bsum,
                                            i64t batch, i64t wpi, i64t bpi) {
  constexpr int PER = LB_WB / LB_THREADS;
  for (i64t blk = blockIdx.x; blk < batch * bpi; blk += gridDim.x) {
    const i64t b = blk / bpi, j = blk - b * bpi;
    const i64t w0 = b * wpi + j * LB_WB;
    const i64t end = wpi - j * LB_WB < LB_WB ? wpi - j * LB_WB : LB_WB;
    int c[PER];
    int sum = 0;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      const int i = threadIdx.x * PER + k;
      c[k] = i < end ? __popc(bits[w0 + i]) : 0;
      sum += c[k];
    }
    int total;
    int ex = label_block_scan(sum, total);
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      const int i = threadIdx.x * PER + k;
      if (i < end) wpre[w0 + i] = ex;
      ex += c[k];
    }
    if (threadIdx.x == 0) bsum[blk] = total;
  }
}

__device__ __forceinline__ void label_bscan(int *__restrict__ bsum, int *__restrict__ counts,
                                            i64t batch, i64t bpi) {
  for (i64t b = blockIdx.x; b < batch; b += gridDim.x) {
    int carry = 0;
    for (i64t base = 0; base < bpi; base += LB_THREADS) {
      const i64t i = base + threadIdx.x;
      const int v = i < bpi ? bsum[b * bpi + i] : 0;
      int total;
      const int ex = label_block_scan(v, total);
      if (i < bpi) bsum[b * bpi + i] = carry + ex;
      carry += total;
    }
    if (threadIdx.x == 0) counts[b] = carry;
  }
}

// Grid y strides over the images, grid x over the pixels of one.
__device__ __forceinline__ void label_final(const int *__restrict__ lab,
                                            const unsigned *__restrict__ bits,
                                            const int *__restrict__ wpre,
                                            const int *__restrict__ bpre, int *__restrict__ out,
                                            i64t batch, i64t per, i64t n2, i64t wpr, i64t wpi,
                                            i64t bpi) {
  const int w2 = (int)n2;
  for (i64t b = blockIdx.y; b < batch; b += gridDim.y) {
    const int *img = lab + b * per;
    int *o = out + b * per;
    const i64t w0 = b * wpi;
    for (i64t p = (i64t)blockIdx.x * blockDim.x + threadIdx.x; p < per;
         p += (i64t)gridDim.x * blockDim.x) {
      int r = img[p];
      if (r < 0) {
        o[p] = 0;
        continue;
      }
      for (int q = img[r]; q != r; q = img[r]) r = q;
      const i64t w = label_word(r, w2, wpr, w0);
      const int bit = (r % w2) % 32;
      const unsigned below = bits[w] & ((1u << bit) - 1u);
      o[p] = bpre[b * bpi + (w - w0) / LB_WB] + wpre[w] + __popc(below) + 1;
    }
  }
}
