// The pipelined look-back scan (`ScanForm::Pipe`, sm_90 and later): the single-pass decoupled
// look-back of `scan_tiles` run by persistent, warp-specialised blocks, so that no load waits
// for a look-back. `codegen/scan/pipe.rs` instantiates `scan_pipe` from an `extern "C"` entry
// whose parameters come from the kernel's typed description; it needs the scan's element code
// (`E_`, `ident_`, `comb_`, `e_up_`, `e_dn_`, `e_ix_`, `pk_`, `upk_`) before this text.
//
// A block holds `ST` stages of shared memory, each one tile of `CH * 1024` elements of every
// input (the inputs' storage side by side: `ROW` bytes an element). Its warps:
//
// - scan squad (warps `0 .. NS`): tiles in the order the block took them; once a tile's
//   exclusive prefix is in, each warp scans 128-element segments (four consecutive elements a
//   lane, read back from the stage) and stores them, one vector a lane; then frees the stage.
// - reduce squad (`NS .. NS + NR`): as soon as a stage's copies land, the segment totals,
//   their exclusive scan (kept in `seg_`) and the tile's aggregate, handed to a look-back warp.
// - producer (warp `NS + NR`, one lane): takes the next tile id from the counter once a stage
//   is free and bulk-copies the tile's inputs into it (`cp.async.bulk`, counted on the stage's
//   `full` barrier). After the last tile it marks the stage empty (id -1) and records how many
//   tiles the block took (`taken_`).
// - look-back warps (`NS + NR + 1 ..`, `NL` of them): the block's `j`-th tile goes to warp
//   `j % NL`, which publishes the aggregate (flag 1), reads the status words of its
//   predecessors in the line 32 at a time until one holds an inclusive prefix (flag 2),
//   publishes its own inclusive prefix and hands the exclusive one to the scan squad.
//
// Every hand-over is an mbarrier of its stage (`full`, `empty`, `aggr`, `pref`) whose phase
// `u` belongs to the block's tile `j = u * ST + s`; a warp waits for the parity of `u`. No
// barrier can be two phases ahead of its waiter: `full` and `aggr` of tile `j + ST` need the
// stage freed by tile `j`'s scan, which needs `pref` of tile `j`, which needs `aggr` of tile
// `j` to have been waited for; `NL <= ST` keeps each look-back warp's tiles within one phase.
// `seg_` of a stage is rewritten only after the stage is freed (its next tile's copies).
//
// Tile ids are taken in increasing order by blocks that are running, and a block finishes its
// tiles in the order it took them, so the smallest unfinished id can always finish: its
// predecessors have all published, and its block has a free stage for it (every earlier tile
// of the block is done). Status words and the counter are zeroed by the host.

__device__ __forceinline__ unsigned pipe_sa_(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void pipe_mb_init_(unsigned long long *b, unsigned n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(pipe_sa_(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void pipe_mb_arrive_(unsigned long long *b) {
  asm volatile("{\n\t.reg .b64 st_;\n\tmbarrier.arrive.shared::cta.b64 st_, [%0];\n\t}" ::"r"(pipe_sa_(b))
               : "memory");
}
__device__ __forceinline__ void pipe_mb_arrive_tx_(unsigned long long *b, unsigned tx) {
  asm volatile("{\n\t.reg .b64 st_;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st_, [%0], %1;\n\t}" ::"r"(
                   pipe_sa_(b)),
               "r"(tx)
               : "memory");
}
__device__ __forceinline__ bool pipe_mb_test_(unsigned long long *b, unsigned par) {
  unsigned ok;
  asm volatile(
      "{\n\t.reg .pred p_;\n\tmbarrier.try_wait.parity.shared::cta.b64 p_, [%1], %2;\n\tselp.u32 %0, 1, 0, "
      "p_;\n\t}"
      : "=r"(ok)
      : "r"(pipe_sa_(b)), "r"(par)
      : "memory");
  return ok != 0u;
}
// The guard of every wait: a hand-over that has not come after `PIPE_WAIT_NS` of the GPU's
// clock (far longer than the work of any number of tiles before it) ends the launch with a
// trap, an error the host sees, instead of a block that waits for ever.
constexpr unsigned long long PIPE_WAIT_NS = 10000000000ull;
__device__ __forceinline__ unsigned long long pipe_now_() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void pipe_guard_(unsigned long long t0) {
  if (pipe_now_() - t0 > PIPE_WAIT_NS) __trap();
}
__device__ __forceinline__ void pipe_mb_wait_(unsigned long long *b, unsigned par) {
  if (pipe_mb_test_(b, par)) return;
  const unsigned long long t0 = pipe_now_();
  while (!pipe_mb_test_(b, par)) pipe_guard_(t0);
}
// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global `src` to the
// shared `dst`, counted on the barrier `b`.
__device__ __forceinline__ void pipe_bulk_(void *dst, const void *src, unsigned bytes, unsigned long long *b) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(pipe_sa_(dst)),
      "l"((unsigned long long)__cvta_generic_to_global(src)), "r"(bytes), "r"(pipe_sa_(b))
      : "memory");
}

// The exclusive prefix of tile `tid` (`tt > 0` its place in its line) from the packed status
// words of its predecessors in the line: 32 a round, each lane sleeping briefly while its word
// is unpublished, until a round meets an inclusive prefix; every lane returns it.
__device__ __forceinline__ E_ pipe_look_back_(volatile unsigned long long *sw, long long tid, long long tt, int lane) {
  E_ acc = ident_();
  long long back = 1;
  while (true) {
    const long long dq = back + lane;
    unsigned f = 2u;
    E_ v = ident_();
    if (dq <= tt) {
      unsigned long long wd = sw[tid - dq];
      if ((wd >> 32) == 0ull) {
        const unsigned long long t0 = pipe_now_();
        while (((wd = sw[tid - dq]) >> 32) == 0ull) {
          __nanosleep(64);
          pipe_guard_(t0);
        }
      }
      f = (unsigned)(wd >> 32);
      v = upk_(wd);
    }
    const unsigned m2 = __ballot_sync(0xffffffffu, f == 2u);
    const int stop = m2 ? __ffs(m2) - 1 : 32;
    if (lane > stop) v = ident_();
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
      const E_ y = e_dn_(v, d);
      if ((unsigned)lane + d < 32u) v = comb_(y, v);
    }
    acc = comb_(e_ix_(v, 0), acc);
    if (m2) break;
    back += 32;
  }
  return acc;
}

// The scan of `tiles` tiles of `CH * 1024` elements (`tpl` a line of `len`; the last tile of a
// line shorter) by the block's warps as above. `smem` holds `ST * CH * 1024 * ROW` bytes.
// `load(stage, b, cnt, bar)` bulk-copies elements `b .. b + cnt` of every input into `stage`;
// `at(stage, i, b, x)` gives the scan's values of the four elements from `i` of the stage
// (`b` the first one's index); `store(b, y)` writes four results from element `b`. `sw` (one
// zeroed word a tile; read only when `tpl > 1`) and `ctr` (zeroed) are the look-back status.
template <int CH, int ST, int NR, int NS, int NL, bool EXCL, int ROW, class Load, class At, class Store>
__device__ __forceinline__ void scan_pipe(unsigned char *smem, const Load &load, const At &at, const Store &store,
                                          long long len, long long tpl, long long tiles,
                                          volatile unsigned long long *sw, unsigned *ctr) {
  constexpr int TILE = CH * 1024, NSEG = TILE / 128, SPL = (NSEG + 31) / 32;
  constexpr int KR = (NSEG + NR - 1) / NR, KS = (NSEG + NS - 1) / NS;
  static_assert(NL <= ST && ST >= 2, "pipe: stages");
  __shared__ __align__(8) unsigned long long mb_[4 * ST];
  __shared__ long long tids_[ST];
  __shared__ E_ aggs_[ST], prefs_[ST];
  __shared__ E_ seg_[ST][SPL * 32];
  __shared__ volatile int taken_;
  unsigned long long *full = mb_, *empty = mb_ + ST, *aggr = mb_ + 2 * ST, *pref = mb_ + 3 * ST;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  if (t == 0) {
#pragma unroll
    for (int s = 0; s < ST; ++s) {
      pipe_mb_init_(full + s, 1);
      pipe_mb_init_(empty + s, NS);
      pipe_mb_init_(aggr + s, 1);
      pipe_mb_init_(pref + s, 1);
    }
    taken_ = 0x7fffffff;
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (w < NS) {
    for (int j = 0;; ++j) {
      const int s = j % ST;
      const unsigned par = (unsigned)(j / ST) & 1u;
      pipe_mb_wait_(full + s, par);
      const long long tid = tids_[s];
      if (tid < 0) break;
      const long long line = tid / tpl, start = (tid - line * tpl) * TILE;
      const long long base = line * len + start;
      const int cnt = (int)(len - start < TILE ? len - start : TILE);
      pipe_mb_wait_(pref + s, par);
      const E_ pre = prefs_[s];
      const unsigned char *stage = smem + (size_t)s * TILE * ROW;
#pragma unroll
      for (int q = 0; q < KS; ++q) {
        const int k = w + q * NS;
        if (k < NSEG) {
          const int i0 = k * 128 + lane * 4;
          E_ y[4];
          if (i0 < cnt) {
            at(stage, i0, base + i0, y);
          } else {
#pragma unroll
            for (int l = 0; l < 4; ++l) y[l] = ident_();
          }
#pragma unroll
          for (int l = 1; l < 4; ++l) y[l] = comb_(y[l - 1], y[l]);
          E_ e = y[3];
#pragma unroll
          for (unsigned d = 1; d < 32; d <<= 1) {
            const E_ u = e_up_(e, d);
            if ((unsigned)lane >= d) e = comb_(u, e);
          }
          const E_ u1 = e_up_(e, 1);
          const E_ p = comb_(comb_(pre, seg_[s][k]), lane == 0 ? ident_() : u1);
          if (i0 < cnt) {
            E_ z[4];
#pragma unroll
            for (int l = 0; l < 4; ++l) z[l] = EXCL ? (l == 0 ? p : comb_(p, y[l > 0 ? l - 1 : 0])) : comb_(p, y[l]);
            store(base + i0, z);
          }
        }
      }
      __syncwarp();
      if (lane == 0) pipe_mb_arrive_(empty + s);
    }
    return;
  }
  if (w < NS + NR) {
    const int r = w - NS;
    for (int j = 0;; ++j) {
      const int s = j % ST;
      const unsigned par = (unsigned)(j / ST) & 1u;
      pipe_mb_wait_(full + s, par);
      const long long tid = tids_[s];
      if (tid < 0) break;
      const long long line = tid / tpl, start = (tid - line * tpl) * TILE;
      const int cnt = (int)(len - start < TILE ? len - start : TILE);
      const unsigned char *stage = smem + (size_t)s * TILE * ROW;
      E_ cs[KR];
#pragma unroll
      for (int q = 0; q < KR; ++q) {
        const int k = r + q * NR;
        const int i0 = k * 128 + lane * 4;
        cs[q] = ident_();
        if (k < NSEG && i0 < cnt) {
          E_ y[4];
          at(stage, i0, line * len + start + i0, y);
          cs[q] = comb_(comb_(comb_(y[0], y[1]), y[2]), y[3]);
        }
      }
      // Lane 0 gathers the warp's totals in order (later lanes on the right).
#pragma unroll
      for (unsigned d = 1; d < 32; d <<= 1) {
#pragma unroll
        for (int q = 0; q < KR; ++q) cs[q] = comb_(cs[q], e_dn_(cs[q], d));
      }
      if (lane == 0) {
#pragma unroll
        for (int q = 0; q < KR; ++q)
          if (r + q * NR < NSEG) seg_[s][r + q * NR] = cs[q];
      }
      asm volatile("bar.sync 1, %0;" ::"r"(NR * 32) : "memory");
      if (r == 0) {
        E_ zl[SPL];
#pragma unroll
        for (int q = 0; q < SPL; ++q) {
          const int k = lane * SPL + q;
          zl[q] = k < NSEG ? seg_[s][k] : ident_();
          if (q > 0) zl[q] = comb_(zl[q > 0 ? q - 1 : 0], zl[q]);
        }
        E_ z = zl[SPL - 1];
#pragma unroll
        for (unsigned d = 1; d < 32; d <<= 1) {
          const E_ u = e_up_(z, d);
          if ((unsigned)lane >= d) z = comb_(u, z);
        }
        const E_ agg = e_ix_(z, 31);
        const E_ u1 = e_up_(z, 1);
        const E_ zx = lane == 0 ? ident_() : u1;
#pragma unroll
        for (int q = 0; q < SPL; ++q) {
          const int k = lane * SPL + q;
          if (k < NSEG) seg_[s][k] = q == 0 ? zx : comb_(zx, zl[q > 0 ? q - 1 : 0]);
        }
        __syncwarp();
        if (lane == 0) {
          aggs_[s] = agg;
          pipe_mb_arrive_(aggr + s);
        }
      }
    }
    return;
  }
  if (w == NS + NR) {
    if (lane == 0) {
      for (int j = 0;; ++j) {
        const int s = j % ST;
        if (j >= ST) pipe_mb_wait_(empty + s, (unsigned)(j / ST - 1) & 1u);
        const long long tk = (long long)atomicAdd(ctr, 1u);
        if (tk >= tiles) {
          tids_[s] = -1;
          taken_ = j;
          pipe_mb_arrive_(full + s);
          break;
        }
        tids_[s] = tk;
        const long long line = tk / tpl, start = (tk - line * tpl) * TILE;
        const long long cnt = len - start < TILE ? len - start : TILE;
        pipe_mb_arrive_tx_(full + s, (unsigned)cnt * (unsigned)ROW);
        load(smem + (size_t)s * TILE * ROW, line * len + start, (unsigned)cnt, full + s);
      }
    }
    return;
  }
  const int l = w - NS - NR - 1;
  for (int j = l;; j += NL) {
    const int s = j % ST;
    const unsigned par = (unsigned)(j / ST) & 1u;
    bool ready = pipe_mb_test_(aggr + s, par);
    const unsigned long long t0 = pipe_now_();
    while (!ready && j < taken_) {
      pipe_guard_(t0);
      ready = pipe_mb_test_(aggr + s, par);
    }
    if (!ready) break;
    const long long tid = tids_[s];
    const E_ agg = aggs_[s];
    const long long tt = tid - (tid / tpl) * tpl;
    E_ pre = ident_();
    if (tpl > 1) {
      if (tt == 0) {
        if (lane == 0) sw[tid] = pk_(2u, agg);
      } else {
        if (lane == 0) sw[tid] = pk_(1u, agg);
        pre = pipe_look_back_(sw, tid, tt, lane);
        if (lane == 0) sw[tid] = pk_(2u, comb_(pre, agg));
      }
    }
    if (lane == 0) {
      prefs_[s] = pre;
      pipe_mb_arrive_(pref + s);
    }
  }
}
