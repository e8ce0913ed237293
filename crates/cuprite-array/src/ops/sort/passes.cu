// Passes of the sort family that need no key type, as device functions that the entry points
// of `kernels_select.rs` call with their typed parameters (`params.rs`, same names and order):
// the step of the radix selection, run lengths, the three levels of an exclusive scan of `u32`
// values (tiles of SCAN_TILE elements, defined by the typed header) and the gather by sort
// permutation. Built after the block helpers (`block.cu`). Every kernel runs 256 threads a
// block.

// Picks the digit the rank falls in (one block): extends the prefix, lowers the rank, clears
// the histogram for the next pass.
__device__ __forceinline__ void sort_sel_step(
    unsigned *__restrict__ hist,
    u64t *__restrict__ state,
    u64t j,
    u64t kd,
    u64t rank0) {
  __shared__ unsigned tmp[8];
  const int t = threadIdx.x;
  const u64t r = j == 0 ? rank0 : state[2];
  const unsigned h = hist[t];
  unsigned tot;
  const unsigned ex = block_exscan(h, tmp, &tot);
  if ((u64t)ex <= r && r < (u64t)ex + h) {
    if (j < kd) state[0] = (state[0] << 8) | (u64t)t; else state[1] = (state[1] << 8) | (u64t)t;
    state[2] = r - ex;
  }
  hist[t] = 0;
}

// Run lengths from run starts: `counts[u] = starts[u + 1] - starts[u]` (`n` after the last).
__device__ __forceinline__ void sort_run_counts(
    const unsigned *__restrict__ starts,
    i64t *__restrict__ counts,
    u64t nu,
    u64t n) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t u = (u64t)blockIdx.x * 256 + threadIdx.x; u < nu; u += stride) {
    const u64t e = u + 1 < nu ? (u64t)starts[u + 1] : n;
    counts[u] = (i64t)(e - (u64t)starts[u]);
  }
}

// Exclusive scan of `u32` values, first level: each block scans its tile in place and writes
// the tile's sum.
__device__ __forceinline__ void sort_scan_tiles(
    unsigned *__restrict__ data,
    unsigned *__restrict__ sums,
    u64t n) {
  __shared__ unsigned tmp[8];
  const int t = threadIdx.x;
  const u64t base = (u64t)blockIdx.x * SCAN_TILE;
  unsigned carry = 0;
  for (int c = 0; c < SCAN_TILE; c += 256) {
    const u64t i = base + c + t;
    const unsigned v = i < n ? data[i] : 0u;
    unsigned tot;
    const unsigned ex = block_exscan(v, tmp, &tot);
    if (i < n) data[i] = carry + ex;
    carry += tot;
  }
  if (t == 0) sums[blockIdx.x] = carry;
}

// Second level (one block): exclusive scan of the tile sums; `sums[ntiles]` gets the total.
__device__ __forceinline__ void sort_scan_sums(
    unsigned *__restrict__ sums,
    u64t ntiles) {
  __shared__ unsigned tmp[8];
  const int t = threadIdx.x;
  unsigned carry = 0;
  for (u64t c = 0; c < ntiles; c += 256) {
    const u64t i = c + t;
    const unsigned v = i < ntiles ? sums[i] : 0u;
    unsigned tot;
    const unsigned ex = block_exscan(v, tmp, &tot);
    if (i < ntiles) sums[i] = carry + ex;
    carry += tot;
  }
  if (t == 0) sums[ntiles] = carry;
}

// Third level: adds each tile's offset.
__device__ __forceinline__ void sort_scan_add(
    unsigned *__restrict__ data,
    const unsigned *__restrict__ sums,
    u64t n) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) data[i] += sums[i / SCAN_TILE];
}

// `out[i] = v[row(i) * n + perm[i]]` for elements of `size` bytes (`sort_by_key`'s values).
template <typename W>
__device__ __forceinline__ void sort_gather(
    const W *__restrict__ v,
    const i64t *__restrict__ perm,
    W *__restrict__ out,
    u64t total,
    u64t n) {
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < total; i += stride) out[i] = v[(i / n) * n + (u64t)perm[i]];
}
