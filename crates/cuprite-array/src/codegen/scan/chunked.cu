// The chunked scan (`ScanForm::Chunked`): one long line scanned as two interleaved passes over
// chunks of tiles small enough to stay in L2, so that no tile waits for a look-back.
// `codegen/scan/chunked.rs` instantiates `scan_chunked` from an `extern "C"` entry whose
// parameters come from the kernel's typed description; it needs the scan's element code (`E_`,
// `ident_`, `comb_`, `e_up_`, `e_ix_`, `pk_`, `upk_`) and `VecN` before this text.
//
// A tile is `R * 1024` elements; in row `c` thread `t` owns the four at `c * 1024 + 4 t`. The
// line's tiles form chunks of `chunk` tiles. Persistent blocks take tickets from the zeroed
// counter; in ticket order the items are
//
//   R(0), ..., R(C0 - 1), then R(C0), S(0), R(C0 + 1), S(1), ..., then the S items left,
//
// (`C0` = min(chunk, tiles)): R(j) reduces tile `j` and publishes its aggregate (status word
// `j`, flag 1); S(j), `C0` tiles of reads later, loads tile `j` again (from L2, where R's loads
// asked to keep it), combines its chunk's carry with the aggregates of the chunk's tiles before
// it, scans and stores (its loads and stores ask L2 to drop those lines first). The S item of a
// chunk's first tile also publishes the next chunk's carry (carry word, flag 1): its own carry
// combined with every aggregate of its chunk.
//
// Every wait is for an item of a smaller ticket: R of the same chunk (for a chunk's first S,
// the whole chunk's R items are all before it in ticket order), or the first S of the chunk
// before. Tickets go to blocks that are running, in increasing order, so the smallest
// unfinished ticket waits for nothing and every item finishes. Aggregates are combined in line
// order (a lane or thread takes a contiguous run, the runs combined in order), and R computes
// a tile's aggregate exactly as S computes the tile's total, so the two agree bit for bit.
// Status and carry words (flag in the high half, the value's bits in the low half) and the
// counter are zeroed by the host.

// An L2 eviction policy for the loads and stores of this kernel (sm_80 on; 0 otherwise, unused).
__device__ __forceinline__ unsigned long long chk_policy_(bool keep) {
#if __CUDA_ARCH__ >= 800
  unsigned long long p_;
  if (keep) {
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p_));
  } else {
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p_));
  }
  return p_;
#else
  return 0ull;
#endif
}

// A load of one vector of 4, 8 or 16 bytes under the L2 policy `pol` (plain before sm_80, and
// for other sizes).
template <class V>
__device__ __forceinline__ V chk_ld_(const V *p, unsigned long long pol) {
#if __CUDA_ARCH__ >= 800
  if constexpr (sizeof(V) == 16 && alignof(V) >= 16) {
    uint4 u_;
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(u_.x), "=r"(u_.y), "=r"(u_.z), "=r"(u_.w)
                 : "l"(__cvta_generic_to_global(p)), "l"(pol));
    V v_;
    *reinterpret_cast<uint4 *>(&v_) = u_;
    return v_;
  } else if constexpr (sizeof(V) == 8 && alignof(V) >= 8) {
    uint2 u_;
    asm volatile("ld.global.L2::cache_hint.v2.u32 {%0,%1}, [%2], %3;" : "=r"(u_.x), "=r"(u_.y) : "l"(__cvta_generic_to_global(p)), "l"(pol));
    V v_;
    *reinterpret_cast<uint2 *>(&v_) = u_;
    return v_;
  } else if constexpr (sizeof(V) == 4 && alignof(V) >= 4) {
    unsigned u_;
    asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(u_) : "l"(__cvta_generic_to_global(p)), "l"(pol));
    V v_;
    *reinterpret_cast<unsigned *>(&v_) = u_;
    return v_;
  }
#endif
  return *p;
}

// A streaming store of one vector (`st.global.cs`: likely not read again) of 4, 8 or 16 bytes.
template <class V>
__device__ __forceinline__ void chk_st_(V *p, const V &v) {
  if constexpr (sizeof(V) == 16 && alignof(V) >= 16) {
    const uint4 u_ = *reinterpret_cast<const uint4 *>(&v);
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(__cvta_generic_to_global(p)), "r"(u_.x), "r"(u_.y), "r"(u_.z), "r"(u_.w)
                 : "memory");
  } else if constexpr (sizeof(V) == 8 && alignof(V) >= 8) {
    const uint2 u_ = *reinterpret_cast<const uint2 *>(&v);
    asm volatile("st.global.cs.v2.u32 [%0], {%1,%2};" ::"l"(__cvta_generic_to_global(p)), "r"(u_.x), "r"(u_.y) : "memory");
  } else if constexpr (sizeof(V) == 4 && alignof(V) >= 4) {
    const unsigned u_ = *reinterpret_cast<const unsigned *>(&v);
    asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "r"(u_) : "memory");
  } else {
    *p = v;
  }
}

// The status word at `w`, once its flag is set.
__device__ __forceinline__ E_ chk_wait_(volatile unsigned long long *w) {
  unsigned long long v_;
  while (((v_ = *w) >> 32) == 0ull) __nanosleep(32);
  return upk_(v_);
}

// The values of the `n` status words from `w` combined in order (each waited for), by the
// whole block; every thread gets the result. `red` holds 8 elements; two barriers.
__device__ __forceinline__ E_ chk_combine_(volatile unsigned long long *w, long long n, E_ *red) {
  const int t_ = threadIdx.x, lane_ = t_ & 31, wp_ = t_ >> 5;
  const long long q_ = (n + 255) / 256;
  E_ v_ = ident_();
  for (long long k_ = t_ * q_; k_ < (t_ + 1) * q_ && k_ < n; ++k_) v_ = comb_(v_, chk_wait_(w + k_));
#pragma unroll
  for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {
    const E_ y_ = e_up_(v_, d_);
    if ((unsigned)lane_ >= d_) v_ = comb_(y_, v_);
  }
  if (lane_ == 31) red[wp_] = v_;
  __syncthreads();
  E_ r_ = ident_();
#pragma unroll
  for (int j_ = 0; j_ < 8; ++j_) r_ = comb_(r_, red[j_]);
  __syncthreads();
  return r_;
}

// The scan (block of 256 threads). `load_(b, pol, x)` evaluates the program at the four
// elements from `b` into `x[0..4)` under the L2 policy `pol`; `store_(b, y)` stores the four
// results from `b`. `len` is a multiple of 4; `tiles` = ceil(len / (R * 1024)) and
// `2 tiles + gridDim.x` fit the 32-bit counter (the host checks); `chunk >= 1`.
template <int R, bool EXCL, class Load, class Store>
__device__ __forceinline__ void scan_chunked(Load load_, Store store_, long long len, long long tiles,
                                             long long chunk, volatile unsigned long long *sw,
                                             volatile unsigned long long *cw, unsigned *ctr) {
  constexpr int W = 8, TILE = R * 1024, SLOTS = R * W, SPL = (SLOTS + 31) / 32;
  __shared__ E_ wt_[SPL * 32];
  __shared__ E_ red_[W];
  __shared__ long long tk_sh_;
  const int t_ = threadIdx.x, lane_ = t_ & 31, w_ = t_ >> 5;
  const unsigned long long keep_ = chk_policy_(true), drop_ = chk_policy_(false);
  const long long c0_ = chunk < tiles ? chunk : tiles, rem_ = tiles - c0_;
  const long long chunks_ = (tiles + chunk - 1) / chunk;
  for (;;) {
    if (t_ == 0) tk_sh_ = (long long)atomicAdd(ctr, 1u);
    __syncthreads();
    const long long tk_ = tk_sh_;
    __syncthreads();
    if (tk_ >= 2 * tiles) break;
    bool red_item_;
    long long tile_;
    if (tk_ < c0_) {
      red_item_ = true;
      tile_ = tk_;
    } else if (tk_ - c0_ < 2 * rem_) {
      const long long u_ = tk_ - c0_;
      red_item_ = (u_ & 1) == 0;
      tile_ = red_item_ ? c0_ + (u_ >> 1) : (u_ >> 1);
    } else {
      red_item_ = false;
      tile_ = rem_ + (tk_ - c0_ - 2 * rem_);
    }
    const long long base_ = tile_ * TILE;
    const long long cnt_ = len - base_ < TILE ? len - base_ : TILE;
    E_ x_[R][4];
    E_ ex_[R];
#pragma unroll
    for (int c_ = 0; c_ < R; ++c_) {
      const int i0_ = c_ * 1024 + t_ * 4;
      if (i0_ < cnt_) {
        load_(base_ + i0_, red_item_ ? keep_ : drop_, x_[c_]);
      } else {
#pragma unroll
        for (int l_ = 0; l_ < 4; ++l_) x_[c_][l_] = ident_();
      }
    }
#pragma unroll
    for (int c_ = 0; c_ < R; ++c_) {
#pragma unroll
      for (int l_ = 1; l_ < 4; ++l_) x_[c_][l_] = comb_(x_[c_][l_ - 1], x_[c_][l_]);
      ex_[c_] = x_[c_][3];
    }
#pragma unroll
    for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {
#pragma unroll
      for (int c_ = 0; c_ < R; ++c_) {
        const E_ y_ = e_up_(ex_[c_], d_);
        if ((unsigned)lane_ >= d_) ex_[c_] = comb_(y_, ex_[c_]);
      }
    }
#pragma unroll
    for (int c_ = 0; c_ < R; ++c_) {
      if (lane_ == 31) wt_[c_ * W + w_] = ex_[c_];
      const E_ y_ = e_up_(ex_[c_], 1);
      ex_[c_] = lane_ == 0 ? ident_() : y_;
    }
    // S: the tile's prefix, carry first, then the chunk's aggregates before the tile.
    E_ pre_ = ident_();
    if (!red_item_) {
      const long long ch_ = tile_ / chunk, b_ = ch_ * chunk;
      const E_ carry_ = ch_ > 0 ? chk_wait_(cw + ch_) : ident_();
      pre_ = comb_(carry_, chk_combine_(sw + b_, tile_ - b_, red_));
      if (tile_ == b_ && ch_ + 1 < chunks_) {
        const long long end_ = b_ + chunk < tiles ? b_ + chunk : tiles;
        const E_ all_ = chk_combine_(sw + b_, end_ - b_, red_);
        if (t_ == 0) cw[ch_ + 1] = pk_(1u, comb_(carry_, all_));
      }
    }
    __syncthreads();
    // Warp 0 scans the slots (row-major, then warp), `SPL` consecutive ones a lane.
    if (w_ == 0) {
      E_ zl_[SPL];
#pragma unroll
      for (int s_ = 0; s_ < SPL; ++s_) {
        const int k_ = lane_ * SPL + s_;
        zl_[s_] = k_ < SLOTS ? wt_[k_] : ident_();
        if (s_ > 0) zl_[s_] = comb_(zl_[s_ > 0 ? s_ - 1 : 0], zl_[s_]);
      }
      E_ z_ = zl_[SPL - 1];
#pragma unroll
      for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {
        const E_ y_ = e_up_(z_, d_);
        if ((unsigned)lane_ >= d_) z_ = comb_(y_, z_);
      }
      const E_ agg_ = e_ix_(z_, 31);
      if (red_item_) {
        if (lane_ == 0) sw[tile_] = pk_(1u, agg_);
      } else {
        const E_ y_ = e_up_(z_, 1);
        const E_ lp_ = comb_(pre_, lane_ == 0 ? ident_() : y_);
#pragma unroll
        for (int s_ = 0; s_ < SPL; ++s_) {
          const int k_ = lane_ * SPL + s_;
          if (k_ < SLOTS) wt_[k_] = s_ == 0 ? lp_ : comb_(lp_, zl_[s_ > 0 ? s_ - 1 : 0]);
        }
      }
    }
    if (red_item_) continue;
    __syncthreads();
#pragma unroll
    for (int c_ = 0; c_ < R; ++c_) {
      const int i0_ = c_ * 1024 + t_ * 4;
      if (i0_ < cnt_) {
        const E_ p_ = comb_(wt_[c_ * W + w_], ex_[c_]);
        E_ y_[4];
#pragma unroll
        for (int l_ = 0; l_ < 4; ++l_) y_[l_] = EXCL ? (l_ == 0 ? p_ : comb_(p_, x_[c_][l_ > 0 ? l_ - 1 : 0])) : comb_(p_, x_[c_][l_]);
        store_(base_ + i0_, y_);
      }
    }
  }
}
