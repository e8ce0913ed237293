//! CUDA sources of the radix sort: LSD passes of 8-bit digits over unsigned keys (see
//! [`super::keys`]) after one histogram of every pass's digits, one kernel a pass (a onesweep
//! pass: each block takes the next tile, ranks its digits in shared memory, finds where each
//! digit's run goes by a decoupled look-back over the tiles before it, and writes the tile's
//! elements sorted by digit), and a one-block-per-row sort for rows that fit in shared memory.
//! The first executed pass reads the input (keys made on the fly) and the last writes the
//! outputs (values and `i64` indices), so no pass of its own converts. Blocks are 256 threads;
//! item `j` of lane `l` of warp `w` of a tile is tile element `(w * items + j) * 32 + l`, the
//! order stability is defined by.

use super::keys::{KeySpec, c_helpers};
use super::params as P;
use crate::codegen::{KernelSource, head};

/// Marks where the helpers end and the kernel begins (as the library's other kernels do).
pub(crate) const MARKER: &str = "// ---- cuprite-array kernel ----\n";

/// Items per thread of a tile for keys of `bits` bits (a tile is `256 * items` elements).
pub(crate) fn items(bits: u32) -> usize {
    if bits == 64 { 8 } else { 16 }
}

/// Elements per tile (and the longest row the one-block row sort takes).
pub(crate) fn tile(bits: u32) -> usize {
    256 * items(bits)
}

/// Items per thread of a device-wide pass's tile for keys of `bits` bits: as many as the
/// static shared memory of a block (48 KiB) takes with the tile's keys and indices staged.
/// Larger tiles mean fewer look-backs and less per-tile work an element.
pub(crate) fn pass_items(bits: u32) -> usize {
    if bits == 64 { 15 } else { 23 }
}

/// Elements per tile of a device-wide pass.
pub(crate) fn pass_tile(bits: u32) -> usize {
    256 * pass_items(bits)
}

/// Elements the histogram's blocks take in whole runs of (a multiple of its vector step for
/// every key width).
pub(crate) const HIST_UNIT: usize = 4096;

/// Base typedefs, then `extra`, the marker and `body`.
pub(crate) fn source(extra: &str, body: &str) -> String {
    format!(
        "typedef unsigned long long u64t;\ntypedef long long i64t;\n{extra}{BLOCK_HELPERS}{MARKER}{body}"
    )
}

/// Block-wide helpers shared by the sort kernels: an exclusive scan of one value per thread and
/// the stable ranking of a tile's digits.
const BLOCK_HELPERS: &str = r#"
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
"#;

/// Shared memory of a tile: the ranking counters and match words (8 KiB each), reused for the
/// staged keys and indices (the one-block row sort).
fn smem_bytes(spec: KeySpec) -> usize {
    let t = tile(spec.bits);
    (t * (spec.bits.max(32) as usize / 8 + 4)).max(4096 * 4)
}

/// Where a pass's digits come from and where its elements go. Pass 0 of a device-wide sort
/// reads the input (`first`: keys by `tkey`, indices the positions); the last writes the
/// outputs (`last`: values by `tval`, `i64` indices within their row); the others move keys
/// and `u32` indices between scratch buffers. `row`: the digit is of the row number of the
/// index (`seg` elements a row), not of the key; a row pass is never the first (without a key
/// pass the input is in order already).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pass {
    pub first: bool,
    pub last: bool,
    pub row: bool,
}

impl Pass {
    /// Every variant a sort can launch.
    pub(crate) const ALL: [Pass; 6] = [
        Pass::new(true, false, false),
        Pass::new(true, true, false),
        Pass::new(false, false, false),
        Pass::new(false, true, false),
        Pass::new(false, false, true),
        Pass::new(false, true, true),
    ];

    pub(crate) const fn new(first: bool, last: bool, row: bool) -> Pass {
        Pass { first, last, row }
    }

    fn tag(self) -> String {
        format!(
            "{}{}{}",
            if self.first { "f" } else { "" },
            if self.row { "r" } else { "k" },
            if self.last { "l" } else { "" }
        )
    }

    fn defines(self) -> String {
        format!(
            "#define FIRST {}\n#define LAST {}\n#define ROWP {}\n",
            self.first as u8, self.last as u8, self.row as u8
        )
    }
}

/// The digit of key `k` or index `ix` in a pass (`ROWP`: of the row number).
const DIGIT_FN: &str = r#"
__device__ __forceinline__ unsigned digit_of(K k, unsigned ix, unsigned shift, unsigned seg) {
#if ROWP
  return ((ix / seg) >> shift) & 255u;
#else
  return (unsigned)(k >> shift) & 255u;
#endif
}
"#;

/// The source of the kernels of one pass variant: key helpers, pass defines and the digit
/// helper, the block helpers, then `body`.
fn pass_source(spec: KeySpec, pass: Pass, body: &str) -> String {
    source(
        &format!("{}{}{DIGIT_FN}", c_helpers(spec), pass.defines()),
        body,
    )
}

/// Shared memory of the scatter: the staged keys and indices of a tile (the keys in tile order
/// while the tile is ranked; the ranking's match words and its counters, 8 KiB each, where the
/// indices go later).
fn stage_bytes(spec: KeySpec) -> usize {
    let t = pass_tile(spec.bits);
    let kb = t * (spec.bits.max(32) as usize / 8);
    (kb + t * 4).max(kb + 16384)
}

/// One pass: block `b` takes tile `ticket` (tiles in the order blocks start, so every tile
/// before a block's is held by a block that runs or ran); per tile it counts its digits and
/// publishes the counts in `status` (`status[tile * 256 + d]`: the count in the low 32 bits,
/// the pass's `epoch` (1, 2, ...) in bits 56–61, flag 1 in bit 62 for the tile's own count,
/// flag 2 in bit 63 for the count of every tile up to it; a word of another epoch is not
/// published yet, so the words are zeroed once a sort, not once a pass)
/// as soon as its ranking in shared memory has counted them, sums the counts of the tiles before
/// it by walking back to the first inclusive one (a decoupled look-back, one digit a thread), stages keys and indices sorted by
/// digit and writes each digit's run to its place: after every element of a smaller digit
/// (`totals`, this pass's histogram) and every element of its digit in the tiles before. The
/// first pass reads the input (`tkey`; the index is the position); the last writes values
/// (`tval`) and `i64` indices within their row (`seg` elements a row, `0`: one row) instead of
/// keys and `u32` indices. A null index input or output means no indices (the first pass has
/// them from the positions). The pass's tile ticket is the low `u32` of status word
/// `ntiles * 256 + epoch`.
pub(crate) fn scatter(spec: KeySpec, pass: Pass) -> KernelSource {
    let items = pass_items(spec.bits);
    let tile = pass_tile(spec.bits);
    let sm = stage_bytes(spec);
    let name = format!("cuprite_sort_onesweep_{}_{}", spec.dtype.name(), pass.tag());
    // Blocks an SM must hold at once: what caps the registers a thread gets (65536 / (256 · b)).
    // The keys wait in shared memory during the ranking, so 64 registers hold a thread's
    // digits and ranks without spilling; four blocks of 23-item tiles (48 KiB of shared memory
    // each) fit an SM; with fewer, the first pass takes more registers and fewer blocks an SM.
    let min_blocks = 4;
    // Tiles a look-back step reads at once (one round trip to L2 a step).
    let lb = 8;
    let head = head::<P::ScatterPass>(&name, &format!("256, {min_blocks}"));
    let body = format!(
        r#"{head} {{
  __shared__ __align__(16) unsigned char sm[{sm}];
  __shared__ unsigned s_base[256], s_tmp[8];
  __shared__ unsigned s_tile;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  K *sk = (K *)sm;
  unsigned *si = (unsigned *)(sm + {tile} * sizeof(K));
  // The ranking's counters, after its match words: both are done with before `si` is written.
  unsigned *s_wc = si + 8 * 256;
#if FIRST
  const bool with_idx = iout != 0;
#else
  const bool with_idx = iin != 0;
#endif
  if (t == 0) s_tile = atomicAdd((unsigned *)(status + ntiles * 256 + epoch), 1u);
  unsigned gtot;
  // Where digit `t` starts: after every element of a smaller digit (the scan has barriers, so
  // `s_tile` is seen after it).
  const unsigned gstart = block_exscan(totals[t], s_tmp, &gtot);
  const u64t tl = s_tile;
  const u64t base = tl * {tile};
  const u64t left = n - base;
  const int valid = left < {tile} ? (int)left : {tile};
  // The keys wait in shared memory in tile order (`sk`) while the tile is ranked and looks
  // back, not in registers: fewer registers a thread, so four blocks fit on an SM.
  unsigned v[{items}];
  #pragma unroll
  for (int j = 0; j < {items}; ++j) {{
    const int p = (w * {items} + j) * 32 + lane;
    K k = 0; unsigned d = 0xffffffffu;
    if (p < valid) {{
#if FIRST
      k = tkey((K)((const Bits *)src)[base + p], desc != 0);
      d = digit_of(k, 0u, (unsigned)shift, (unsigned)seg);
#elif ROWP
      k = ((const K *)src)[base + p];
      d = digit_of(k, iin[base + p], (unsigned)shift, (unsigned)seg);
#else
      k = ((const K *)src)[base + p];
      d = digit_of(k, 0u, (unsigned)shift, (unsigned)seg);
#endif
    }}
    if (p < valid) sk[p] = k;
    v[j] = d;
  }}
  // The tile's count of digit `t` is published as soon as the ranking has counted it (before
  // the ranking's scan), so that the tiles after it, which look back over it, wait for that
  // only. (Onesweep's early counts, a separate histogram of the tile before the ranking, cost
  // a shared atomic an item and two barriers, and the passes were bound by shared memory.)
  const u64t AGG = 1ull << 62, INC = 1ull << 63, VAL = 0xffffffffull, EP = epoch << 56;
  volatile u64t *stv = (volatile u64t *)status;
  unsigned cnt;
  const unsigned st = rank_tile<{items}>(v, s_wc, si, s_tmp, &cnt, stv + tl * 256, (tl == 0 ? INC : AGG) | EP);
  // The decoupled look-back of digit `t`: {lb} tiles back at a time (independent loads, one
  // wait), summed in order up to the first inclusive count. `j`: tiles not summed yet are
  // those below it. Where the nearest is not published yet the thread sleeps briefly before
  // reading again.
  unsigned excl = 0;
  if (tl != 0) {{
    u64t j = tl;
    for (;;) {{
      u64t s[{lb}];
      #pragma unroll
      for (int q = 0; q < {lb}; ++q) s[q] = j > (u64t)q ? stv[(j - 1 - q) * 256 + t] : INC | EP;
      const u64t j0 = j;
      bool done = false;
      #pragma unroll
      for (int q = 0; q < {lb}; ++q) {{
        if (done || ((s[q] >> 56) & 63ull) != epoch) {{ done = true; continue; }}
        excl += (unsigned)(s[q] & VAL);
        --j;
        if (s[q] & INC) {{ done = true; j = 0; }}
      }}
      if (j == 0) break;
      if (j == j0) __nanosleep(64);
    }}
    stv[tl * 256 + t] = INC | EP | (u64t)(excl + cnt);
  }}
  K key[{items}];
  #pragma unroll
  for (int j = 0; j < {items}; ++j) {{
    const int p = (w * {items} + j) * 32 + lane;
    key[j] = p < valid ? sk[p] : (K)0;
  }}
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < {items}; ++j) if (v[j] != 0xffffffffu) sk[v[j]] = key[j];
  if (with_idx) {{
    #pragma unroll
    for (int j = 0; j < {items}; ++j) {{
      const int p = (w * {items} + j) * 32 + lane;
      if (v[j] != 0xffffffffu) {{
#if FIRST
        si[v[j]] = (unsigned)(base + p);
#else
        si[v[j]] = iin[base + p];
#endif
      }}
    }}
  }}
  s_base[t] = gstart + excl - st;
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < {items}; ++j) {{
    const int p = j * 256 + t;
    if (p < valid) {{
      const K k = sk[p];
      const unsigned ix = with_idx ? si[p] : 0u;
      const u64t o = (u64t)(s_base[digit_of(k, ix, (unsigned)shift, (unsigned)seg)] + (unsigned)p);
#if LAST
      if (kout) ((Bits *)kout)[o] = (Bits)tval(k, desc != 0);
      if (iout) ((i64t *)iout)[o] = (i64t)(seg ? ix % (unsigned)seg : ix);
#else
      ((K *)kout)[o] = k;
      if (with_idx) ((unsigned *)iout)[o] = ix;
#endif
    }}
  }}
}}
"#
    );
    KernelSource::new(name, pass_source(spec, pass, &body))
}

/// The digit histogram of every pass: block `b` counts the input elements (keys by `tkey`) of
/// its run of `tpb` units of [`HIST_UNIT`] elements, from unit `b * tpb`, for every key pass `p`, and adds them to
/// `hist[p * 256 + d]`. The `sp` row passes' histograms (`rows` rows of `seg` elements) come
/// from the row count (block 0 writes them).
pub(crate) fn histogram(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sort_hist_{}", spec.dtype.name());
    let kp = spec.bits / 8;
    let tile = HIST_UNIT;
    // One set of counters, one plain shared atomic an element and pass, and few registers (a
    // thread holds one 16-byte vector of keys at a time): the occupancy, not the same-address
    // conflicts of the top digit, limits this kernel, so it keeps registers few rather than
    // counters many.
    let per = 16 / (spec.bits as usize / 8);
    let vecs = (8 / per).max(1);
    let step = 256 * vecs * per;
    debug_assert_eq!(tile % step, 0);
    let head = head::<P::Histogram>(&name, "256, 8");
    let body = format!(
        r#"{head} {{
  __shared__ unsigned h[{kp} * 256];
  const int t = threadIdx.x;
  for (int i = t; i < {kp} * 256; i += 256) h[i] = 0;
  if (blockIdx.x == 0 && sp) {{
    const u64t rows = n / seg;
    for (int q = 0; q < (int)sp; ++q) {{
      const u64t bs = 1ull << (8 * q), period = bs << 8, lo = (u64t)t * bs;
      const u64t full = rows / period, rem = rows % period;
      const u64t c = full * bs + (rem > lo ? (rem - lo < bs ? rem - lo : bs) : 0);
      hist[({kp} + q) * 256 + t] = (unsigned)(c * seg);
    }}
  }}
  __syncthreads();
  const u64t lo = (u64t)blockIdx.x * tpb * {tile};
  const u64t end = lo + tpb * {tile};
  const u64t hi = end < n ? end : n;
  const bool aligned = ((u64t)x & 15ull) == 0ull;
  for (u64t s = lo; s < hi; s += {step}) {{
    if (aligned && s + {step} <= hi) {{
      #pragma unroll
      for (int j = 0; j < {vecs}; ++j) {{
        const uint4 q = reinterpret_cast<const uint4 *>(x + s)[j * 256 + t];
        const Bits *e = reinterpret_cast<const Bits *>(&q);
        #pragma unroll
        for (int r = 0; r < {per}; ++r) {{
          const K k = tkey((K)e[r], desc != 0);
          #pragma unroll
          for (int p = 0; p < {kp}; ++p) atomicAdd(&h[p * 256 + ((unsigned)(k >> (8 * p)) & 255u)], 1u);
        }}
      }}
    }} else {{
      const u64t e = s + {step} < hi ? s + {step} : hi;
      for (u64t i = s + t; i < e; i += 256) {{
        const K k = tkey((K)x[i], desc != 0);
        #pragma unroll
        for (int p = 0; p < {kp}; ++p) atomicAdd(&h[p * 256 + ((unsigned)(k >> (8 * p)) & 255u)], 1u);
      }}
    }}
  }}
  __syncthreads();
  for (int i = t; i < {kp} * 256; i += 256) if (h[i]) atomicAdd(&hist[i], h[i]);
}}
"#
    );
    KernelSource::new(name, source(&c_helpers(spec), &body))
}

/// The outputs of a sort that needs no pass (every key equal): values through `tkey` and
/// `tval` (NaN canonical) and the positions within their row (`seg` elements a row, `0`: one
/// row).
pub(crate) fn copy_out(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sort_copy_{}", spec.dtype.name());
    let head = head::<P::CopyOut>(&name, "256");
    let body = format!(
        r#"{head} {{
  const u64t stride = (u64t)gridDim.x * 256;
  for (u64t i = (u64t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) {{
    if (vout) vout[i] = (Bits)tval(tkey((K)x[i], desc != 0), desc != 0);
    if (iout) iout[i] = (i64t)(seg ? i % seg : i);
  }}
}}
"#
    );
    KernelSource::new(name, source(&c_helpers(spec), &body))
}

/// One block per row of at most [`tile`] elements: the whole LSD sort in shared memory.
pub(crate) fn rows(spec: KeySpec) -> KernelSource {
    let items = items(spec.bits);
    let tile = tile(spec.bits);
    let sm = smem_bytes(spec);
    let passes = spec.bits / 8;
    let name = format!("cuprite_sort_rows_{}", spec.dtype.name());
    let head = head::<P::Rows>(&name, "256, 3");
    let body = format!(
        r#"{head} {{
  __shared__ __align__(16) unsigned char sm[{sm}];
  __shared__ unsigned s_tmp[8];
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  K *sk = (K *)sm;
  unsigned *si = (unsigned *)(sm + {tile} * sizeof(K));
  for (u64t row = blockIdx.x; row < rows; row += gridDim.x) {{
    const Bits *xr = x + row * n;
    K key[{items}]; unsigned ixs[{items}], v[{items}];
    #pragma unroll
    for (int j = 0; j < {items}; ++j) {{
      const int p = (w * {items} + j) * 32 + lane;
      key[j] = p < (int)n ? tkey((K)xr[p], desc != 0) : (K)0;
      ixs[j] = (unsigned)p;
    }}
    #pragma unroll 1
    for (int pass = 0; pass < {passes}; ++pass) {{
      #pragma unroll
      for (int j = 0; j < {items}; ++j) {{
        const int p = (w * {items} + j) * 32 + lane;
        v[j] = p < (int)n ? (unsigned)((key[j] >> (8 * pass)) & 255u) : 0xffffffffu;
      }}
      unsigned cnt;
      rank_tile<{items}>(v, (unsigned *)sm, (unsigned *)sm + 2048, s_tmp, &cnt, (volatile u64t *)0, 0ull);
      __syncthreads();
      #pragma unroll
      for (int j = 0; j < {items}; ++j) {{
        if (v[j] != 0xffffffffu) {{ sk[v[j]] = key[j]; si[v[j]] = ixs[j]; }}
      }}
      __syncthreads();
      #pragma unroll
      for (int j = 0; j < {items}; ++j) {{
        const int p = (w * {items} + j) * 32 + lane;
        if (p < (int)n) {{ key[j] = sk[p]; ixs[j] = si[p]; }}
      }}
      __syncthreads();
    }}
    #pragma unroll
    for (int j = 0; j < {items}; ++j) {{
      const int p = (w * {items} + j) * 32 + lane;
      if (p < (int)n) {{
        if (vout) vout[row * n + p] = (Bits)tval(key[j], desc != 0);
        if (iout) iout[row * n + p] = (i64t)ixs[j];
      }}
    }}
  }}
}}
"#
    );
    KernelSource::new(name, source(&c_helpers(spec), &body))
}
