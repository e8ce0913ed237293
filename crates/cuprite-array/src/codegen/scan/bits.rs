//! The bit-packed compaction of indices (`argwhere`, `nonzero`): [`scan_vec`]'s algorithm with
//! tiles four times longer, which the flags make affordable. A thread keeps the flags of its
//! 16 chunks × 4 elements as bits (two registers), the counts of four chunks in the four bytes
//! of one word (a count within a warp is at most 128), so one warp scan serves four chunks; warp
//! 0 scans the 128 warp totals. Each chunk's kept indices are staged per warp and written as
//! one contiguous run (no block barrier), as in the vectorised kernel.

use super::vec::{lanes, prologue, slot_scan};
use super::*;

/// Chunks of `BLOCK * VEC` elements in a tile.
const CHUNKS: usize = 16;

/// Elements in a tile of [`scan_bits`].
pub(crate) const BITS_TILE: usize = CHUNKS * BLOCK as usize * VEC;

/// Whether [`scan_bits`] can run `spec` on `p` structurally: a compaction of indices with
/// 32-bit ranks, of a vectorisable program (the caller checks length and alignment as for
/// [`scan_vec`]).
pub(crate) fn scan_bits_possible(p: &Program, spec: ScanSpec) -> bool {
    matches!(
        spec.sink,
        Sink::Compact {
            values: false,
            wide: false
        }
    ) && vectorisable(p)
}

/// The bit-packed compaction kernel; parameters as [`scan_tiles`]'.
pub(crate) fn scan_bits(p: &Program, spec: ScanSpec) -> KernelSource {
    let warps = BLOCK as usize / 32;
    let slots = CHUNKS * warps;
    let name = kernel_name(spec, "bits");
    let chunk = BLOCK as usize * VEC;
    let groups = CHUNKS / 4;
    let mut s = prologue(p, spec, &name, 6, BITS_TILE, slots.div_ceil(32) * 32, false);
    let _ = write!(
        s,
        r#"  __shared__ int stg_[{warps}][{per_warp}];
  unsigned fb_[{words}];
  #pragma unroll
  for (int k_ = 0; k_ < {words}; ++k_) fb_[k_] = 0u;
  #pragma unroll
  for (int c_ = 0; c_ < {CHUNKS}; ++c_) {{
    const int i0_ = c_ * {chunk} + t_ * {VEC};
    if (i0_ < cnt_) {{
      const long long b_ = base_ + i0_;
"#,
        per_warp = 32 * VEC,
        words = CHUNKS * VEC / 32,
    );
    lanes(p, &mut s, &|lane, v0, _| {
        format!("      if ({v0} != 0) fb_[c_ >> 3] |= 1u << ((c_ & 7) * 4 + {lane});\n")
    });
    let write = coords_write(p, "base_ + stg_[w_][j_]");
    let _ = write!(
        s,
        r#"    }}
  }}
  // The counts of chunks 4g..4g+3 in the bytes of cw_[g]; scanned over the warp together.
  unsigned cw_[{groups}], cx_[{groups}];
  #pragma unroll
  for (int g_ = 0; g_ < {groups}; ++g_) {{
    unsigned w4_ = 0u;
    #pragma unroll
    for (int b_ = 0; b_ < 4; ++b_) {{
      const int c_ = g_ * 4 + b_;
      w4_ |= (unsigned)__popc((fb_[c_ >> 3] >> ((c_ & 7) * 4)) & 15u) << (8 * b_);
    }}
    cw_[g_] = w4_;
  }}
  #pragma unroll
  for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {{
    #pragma unroll
    for (int g_ = 0; g_ < {groups}; ++g_) {{ const unsigned y_ = __shfl_up_sync(0xffffffffu, cw_[g_], d_); if ((unsigned)lane_ >= d_) cw_[g_] += y_; }}
  }}
  #pragma unroll
  for (int g_ = 0; g_ < {groups}; ++g_) {{
    if (lane_ == 31) {{
      #pragma unroll
      for (int b_ = 0; b_ < 4; ++b_) wt_[(g_ * 4 + b_) * {warps} + w_] = (E_)((cw_[g_] >> (8 * b_)) & 255u);
    }}
    const unsigned y_ = __shfl_up_sync(0xffffffffu, cw_[g_], 1);
    cx_[g_] = lane_ == 0 ? 0u : y_;
    cw_[g_] = __shfl_sync(0xffffffffu, cw_[g_], 31);
  }}
  __syncthreads();
{look_back}  #pragma unroll
  for (int c_ = 0; c_ < {CHUNKS}; ++c_) {{
    const int i0_ = c_ * {chunk} + t_ * {VEC};
    const int sh_ = 8 * (c_ & 3);
    const int ex_ = (int)((cx_[c_ >> 2] >> sh_) & 255u);
    const int wcnt_ = (int)((cw_[c_ >> 2] >> sh_) & 255u);
    const unsigned nib_ = (fb_[c_ >> 3] >> ((c_ & 7) * 4)) & 15u;
    #pragma unroll
    for (int l_ = 0; l_ < {VEC}; ++l_) {{
      if ((nib_ >> l_) & 1u) stg_[w_][ex_ + __popc(nib_ & ((1u << l_) - 1u))] = i0_ + l_;
    }}
    __syncwarp();
    const long long wb_ = (long long)wt_[c_ * {warps} + w_];
    for (int j_ = lane_; j_ < wcnt_; j_ += 32) {{
      const long long pos_ = wb_ + j_;
      {write}
    }}
    __syncwarp();
  }}
}}
"#,
        look_back = slot_scan(spec, slots),
    );
    KernelSource::generated(name, &s, spec.helpers(p))
}
