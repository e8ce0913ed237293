// Block-wide helpers of the sort family (256 threads a block): an exclusive scan of one value
// per thread, and the stable ranking of a tile's digits.
__device__ __forceinline__ unsigned block_exscan(unsigned v, unsigned *tmp, unsigned *total) {
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  unsigned x = v;
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) { unsigned y = __shfl_up_sync(0xffffffffu, x, d); if (lane >= d) x += y; }
  if (lane == 31) tmp[w] = x;
  __syncthreads();
  unsigned off = 0, tot = 0;
  #pragma unroll
  for (int i = 0; i < 8; ++i) { unsigned c = tmp[i]; if (i < w) off += c; tot += c; }
  __syncthreads();
  *total = tot;
  return off + x - v;
}
// Ranking of one tile with one register per item: `v[j]` holds the digit of item `j`
// (`0xffffffff`: no element) and gets the item's place in the tile sorted by digit (stable:
// item `j` of lane `l` of warp `w` is tile element `(w * ITEMS + j) * 32 + l`). Each warp
// counts its own items in its own 256 counters `wc + 256 * w` (while counting, `v[j]` holds
// the digit in its high half and the rank within the warp in its low half); then per digit
// the warps' counts are scanned, the digits' totals give where each digit starts, and each
// warp's counter becomes where its run of the digit starts in the tile. The lanes of a warp
// holding the same digit find each other through the warp's 256 match words `mm + 256 * w`:
// each lane ORs its bit into its digit's word and reads the word back (one shared atomic,
// where matching by ballots took eight ballots and their selects an item); the highest lane
// of the group, which adds the group's count, clears the word. Where `pub` is not null, the
// tile's count of digit `threadIdx.x` is stored there (or'ed with `flag`) as soon as it is
// known, before the scan. Returns the start of digit `threadIdx.x` and sets `*cnt` to its
// count. Has block barriers; the caller needs one before `wc` or `mm` is written again.
template <int ITEMS>
__device__ __forceinline__ unsigned rank_tile(unsigned *v, unsigned *wc, unsigned *mm, unsigned *tmp, unsigned *cnt, volatile u64t *pub, u64t flag) {
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  unsigned *my = wc + w * 256;
  unsigned *mym = mm + w * 256;
  #pragma unroll
  for (int i = 0; i < 8; ++i) { my[lane + 32 * i] = 0; mym[lane + 32 * i] = 0; }
  __syncwarp();
  const unsigned bit = 1u << lane, lt = bit - 1u;
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const unsigned d = v[j];
    const bool ok = d != 0xffffffffu;
    if (ok) atomicOr(&mym[d], bit);
    __syncwarp();
    const unsigned peers = ok ? mym[d] : 0u;
    const int leader = ok ? 31 - __clz(peers) : 0;
    __syncwarp();
    unsigned b = 0;
    if (ok && lane == leader) { b = my[d]; my[d] = b + __popc(peers); mym[d] = 0u; }
    b = __shfl_sync(0xffffffffu, b, leader);
    if (ok) v[j] = (d << 16) | (b + __popc(peers & lt));
    __syncwarp();
  }
  __syncthreads();
  unsigned run = 0;
  #pragma unroll
  for (int u = 0; u < 8; ++u) { const unsigned c = wc[u * 256 + t]; wc[u * 256 + t] = run; run += c; }
  if (pub) pub[t] = flag | (u64t)run;
  unsigned tot;
  const unsigned st = block_exscan(run, tmp, &tot);
  #pragma unroll
  for (int u = 0; u < 8; ++u) wc[u * 256 + t] += st;
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const unsigned x = v[j];
    if (x != 0xffffffffu) v[j] = (x & 0xffffu) + my[x >> 16];
  }
  *cnt = run;
  return st;
}
