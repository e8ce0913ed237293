// The radix sort's kernels (see `kernels.rs` for the pass structure and `params.rs` for each
// entry point's typed parameters). Every body is a device function template whose parameters
// are its entry point's, in the order of their Rust description; `kernels.rs` renders the entry
// that calls it with the template arguments: tile sizes and shared memory from the Rust
// constants, and the pass variant (`FIRST`, `LAST`, `ROWP`). `K` (the unsigned key), `Bits`
// (the raw bits of the sorted dtype), `tkey` and `tval` come from the key helpers before this
// text, `block_exscan` and `rank_tile` from `block.cu`.

// The digit of key `k` or index `ix` in a pass (`ROWP`: of the row number, `seg` elements a row).
template <bool ROWP>
__device__ __forceinline__ unsigned digit_of(K k, unsigned ix, unsigned shift, unsigned seg) {
  if constexpr (ROWP) return ((ix / seg) >> shift) & 255u;
  else return (unsigned)(k >> shift) & 255u;
}

// One onesweep pass over the digit at `shift` (see `kernels::scatter`): a tile of `TILE`
// elements a block, `ITEMS` a thread, looked back `LB` tiles at a time, `SM` bytes of staging.
template <int ITEMS, int TILE, int LB, int SM, bool FIRST, bool LAST, bool ROWP>
__device__ __forceinline__ void sort_onesweep(
    const void *__restrict__ src, const unsigned *__restrict__ iin, void *__restrict__ kout,
    void *__restrict__ iout, const unsigned *__restrict__ totals, u64t *status, u64t n,
    u64t ntiles, u64t shift, u64t seg, u64t desc, u64t epoch) {
  __shared__ __align__(16) unsigned char sm[SM];
  __shared__ unsigned s_base[256], s_tmp[8];
  __shared__ unsigned s_tile;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  K *sk = (K *)sm;
  unsigned *si = (unsigned *)(sm + TILE * sizeof(K));
  // The ranking's counters, after its match words: both are done with before `si` is written.
  unsigned *s_wc = si + 8 * 256;
  const bool with_idx = FIRST ? iout != 0 : iin != 0;
  if (t == 0) s_tile = atomicAdd((unsigned *)(status + ntiles * 256 + epoch), 1u);
  unsigned gtot;
  // Where digit `t` starts: after every element of a smaller digit (the scan has barriers, so
  // `s_tile` is seen after it).
  const unsigned gstart = block_exscan(totals[t], s_tmp, &gtot);
  const u64t tl = s_tile;
  const u64t base = tl * TILE;
  const u64t left = n - base;
  const int valid = left < TILE ? (int)left : TILE;
  // The keys wait in shared memory in tile order (`sk`) while the tile is ranked and looks
  // back, not in registers: fewer registers a thread, so four blocks fit on an SM.
  unsigned v[ITEMS];
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const int p = (w * ITEMS + j) * 32 + lane;
    K k = 0; unsigned d = 0xffffffffu;
    if (p < valid) {
      if constexpr (FIRST) {
        k = tkey((K)((const Bits *)src)[base + p], desc != 0);
        d = digit_of<ROWP>(k, 0u, (unsigned)shift, (unsigned)seg);
      } else if constexpr (ROWP) {
        k = ((const K *)src)[base + p];
        d = digit_of<ROWP>(k, iin[base + p], (unsigned)shift, (unsigned)seg);
      } else {
        k = ((const K *)src)[base + p];
        d = digit_of<ROWP>(k, 0u, (unsigned)shift, (unsigned)seg);
      }
    }
    if (p < valid) sk[p] = k;
    v[j] = d;
  }
  // The tile's count of digit `t` is published as soon as the ranking has counted it (before
  // the ranking's scan), so that the tiles after it, which look back over it, wait for that
  // only. (Onesweep's early counts, a separate histogram of the tile before the ranking, cost
  // a shared atomic an item and two barriers, and the passes were bound by shared memory.)
  const u64t AGG = 1ull << 62, INC = 1ull << 63, VAL = 0xffffffffull, EP = epoch << 56;
  volatile u64t *stv = (volatile u64t *)status;
  unsigned cnt;
  const unsigned st = rank_tile<ITEMS>(v, s_wc, si, s_tmp, &cnt, stv + tl * 256, (tl == 0 ? INC : AGG) | EP);
  // The decoupled look-back of digit `t`: LB tiles back at a time (independent loads, one
  // wait), summed in order up to the first inclusive count. `j`: tiles not summed yet are
  // those below it. Where the nearest is not published yet the thread sleeps briefly before
  // reading again.
  unsigned excl = 0;
  if (tl != 0) {
    u64t j = tl;
    for (;;) {
      u64t s[LB];
      #pragma unroll
      for (int q = 0; q < LB; ++q) s[q] = j > (u64t)q ? stv[(j - 1 - q) * 256 + t] : INC | EP;
      const u64t j0 = j;
      bool done = false;
      #pragma unroll
      for (int q = 0; q < LB; ++q) {
        if (done || ((s[q] >> 56) & 63ull) != epoch) { done = true; continue; }
        excl += (unsigned)(s[q] & VAL);
        --j;
        if (s[q] & INC) { done = true; j = 0; }
      }
      if (j == 0) break;
      if (j == j0) __nanosleep(64);
    }
    stv[tl * 256 + t] = INC | EP | (u64t)(excl + cnt);
  }
  K key[ITEMS];
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const int p = (w * ITEMS + j) * 32 + lane;
    key[j] = p < valid ? sk[p] : (K)0;
  }
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) if (v[j] != 0xffffffffu) sk[v[j]] = key[j];
  if (with_idx) {
    #pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int p = (w * ITEMS + j) * 32 + lane;
      if (v[j] != 0xffffffffu) {
        if constexpr (FIRST) si[v[j]] = (unsigned)(base + p);
        else si[v[j]] = iin[base + p];
      }
    }
  }
  s_base[t] = gstart + excl - st;
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const int p = j * 256 + t;
    if (p < valid) {
      const K k = sk[p];
      const unsigned ix = with_idx ? si[p] : 0u;
      const u64t o = (u64t)(s_base[digit_of<ROWP>(k, ix, (unsigned)shift, (unsigned)seg)] + (unsigned)p);
      if constexpr (LAST) {
        if (kout) ((Bits *)kout)[o] = (Bits)tval(k, desc != 0);
        if (iout) ((i64t *)iout)[o] = (i64t)(seg ? ix % (unsigned)seg : ix);
      } else {
        ((K *)kout)[o] = k;
        if (with_idx) ((unsigned *)iout)[o] = ix;
      }
    }
  }
}

// The digit histogram of every pass (see `kernels::histogram`): `KP` key passes, units of
// `UNIT` elements, `VECS` 16-byte vectors of `PER` keys a thread per step of `STEP` elements.
template <int KP, int UNIT, int VECS, int PER, int STEP>
__device__ __forceinline__ void sort_hist(const Bits *__restrict__ x, unsigned *__restrict__ hist,
                                          u64t n, u64t tpb, u64t desc, u64t seg, u64t sp) {
  __shared__ unsigned h[KP * 256];
  const int t = threadIdx.x;
  for (int i = t; i < KP * 256; i += 256) h[i] = 0;
  if (blockIdx.x == 0 && sp) {
    const u64t rows = n / seg;
    for (int q = 0; q < (int)sp; ++q) {
      const u64t bs = 1ull << (8 * q), period = bs << 8, lo = (u64t)t * bs;
      const u64t full = rows / period, rem = rows % period;
      const u64t c = full * bs + (rem > lo ? (rem - lo < bs ? rem - lo : bs) : 0);
      hist[(KP + q) * 256 + t] = (unsigned)(c * seg);
    }
  }
  __syncthreads();
  const u64t lo = (u64t)blockIdx.x * tpb * UNIT;
  const u64t end = lo + tpb * UNIT;
  const u64t hi = end < n ? end : n;
  const bool aligned = ((u64t)x & 15ull) == 0ull;
  for (u64t s = lo; s < hi; s += STEP) {
    if (aligned && s + STEP <= hi) {
      #pragma unroll
      for (int j = 0; j < VECS; ++j) {
        const uint4 q = reinterpret_cast<const uint4 *>(x + s)[j * 256 + t];
        const Bits *e = reinterpret_cast<const Bits *>(&q);
        #pragma unroll
        for (int r = 0; r < PER; ++r) {
          const K k = tkey((K)e[r], desc != 0);
          #pragma unroll
          for (int p = 0; p < KP; ++p) atomicAdd(&h[p * 256 + ((unsigned)(k >> (8 * p)) & 255u)], 1u);
        }
      }
    } else {
      const u64t e = s + STEP < hi ? s + STEP : hi;
      for (u64t i = s + t; i < e; i += 256) {
        const K k = tkey((K)x[i], desc != 0);
        #pragma unroll
        for (int p = 0; p < KP; ++p) atomicAdd(&h[p * 256 + ((unsigned)(k >> (8 * p)) & 255u)], 1u);
      }
    }
  }
  __syncthreads();
  for (int i = t; i < KP * 256; i += 256) if (h[i]) atomicAdd(&hist[i], h[i]);
}

// The outputs of a sort that needs no pass (see `kernels::copy_out`).
__device__ __forceinline__ void sort_copy_out(const Bits *__restrict__ x, Bits *__restrict__ vout,
                                              i64t *__restrict__ iout, u64t n, u64t desc,
                                              u64t seg) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) {
    if (vout) vout[i] = (Bits)tval(tkey((K)x[i], desc != 0), desc != 0);
    if (iout) iout[i] = (i64t)(seg ? i % seg : i);
  }
}

// One block per row of at most `TILE` elements, `ITEMS` a thread, `PASSES` digit passes in
// `SM` bytes of shared memory (see `kernels::rows`).
template <int ITEMS, int TILE, int SM, int PASSES>
__device__ __forceinline__ void sort_rows(const Bits *__restrict__ x, Bits *__restrict__ vout,
                                          i64t *__restrict__ iout, u64t rows, u64t n, u64t desc) {
  __shared__ __align__(16) unsigned char sm[SM];
  __shared__ unsigned s_tmp[8];
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  K *sk = (K *)sm;
  unsigned *si = (unsigned *)(sm + TILE * sizeof(K));
  for (u64t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Bits *xr = x + row * n;
    K key[ITEMS]; unsigned ixs[ITEMS], v[ITEMS];
    #pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int p = (w * ITEMS + j) * 32 + lane;
      key[j] = p < (int)n ? tkey((K)xr[p], desc != 0) : (K)0;
      ixs[j] = (unsigned)p;
    }
    #pragma unroll 1
    for (int pass = 0; pass < PASSES; ++pass) {
      #pragma unroll
      for (int j = 0; j < ITEMS; ++j) {
        const int p = (w * ITEMS + j) * 32 + lane;
        v[j] = p < (int)n ? (unsigned)((key[j] >> (8 * pass)) & 255u) : 0xffffffffu;
      }
      unsigned cnt;
      rank_tile<ITEMS>(v, (unsigned *)sm, (unsigned *)sm + 2048, s_tmp, &cnt, (volatile u64t *)0, 0ull);
      __syncthreads();
      #pragma unroll
      for (int j = 0; j < ITEMS; ++j) {
        if (v[j] != 0xffffffffu) { sk[v[j]] = key[j]; si[v[j]] = ixs[j]; }
      }
      __syncthreads();
      #pragma unroll
      for (int j = 0; j < ITEMS; ++j) {
        const int p = (w * ITEMS + j) * 32 + lane;
        if (p < (int)n) { key[j] = sk[p]; ixs[j] = si[p]; }
      }
      __syncthreads();
    }
    #pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int p = (w * ITEMS + j) * 32 + lane;
      if (p < (int)n) {
        if (vout) vout[row * n + p] = (Bits)tval(key[j], desc != 0);
        if (iout) iout[row * n + p] = (i64t)ixs[j];
      }
    }
  }
}
