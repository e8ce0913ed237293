//! The vectorised look-back scan: [`scan_tiles`]' algorithm for the common case of a scan (or
//! a compaction) along contiguous lines whose inputs are all contiguous and aligned to a
//! vector (`cumsum(x)`, `cumsum(a * b + c)` over the last axis, `masked_select`), without the
//! shared-memory transpose.
//!
//! A tile is [`scan_vec_chunks`] chunks of 1024 elements (its own size: the host sizes the
//! status arrays by [`scan_vec_tile`]); in chunk `c` thread `t` owns the four consecutive
//! elements at `c * 1024 + 4 * t`, loaded and stored as one vector per input and output (a
//! compaction stages its kept elements per warp instead). Each thread scans
//! its four elements of each chunk in registers, a warp scans its threads' chunk totals with
//! shuffles (all chunks at once), and warp 0 scans the `chunks × 8` warp totals (in sequence
//! order: chunk-major, then warp) while it publishes the tile and looks back. Two barriers per
//! tile besides the ticket's, no shared tile.

use super::*;

/// Whether [`scan_vec`] can run `spec` on `p` structurally: an unkeyed scan or a compaction
/// of a vectorisable program (contiguous inputs, no iota, random or gather steps). The caller
/// checks the rest at run time: the scanned axis innermost, its length a multiple of [`VEC`],
/// every input (and a scan's output) aligned to a vector.
pub(crate) fn scan_vec_possible(p: &Program, spec: ScanSpec) -> bool {
    matches!(
        spec.sink,
        Sink::Scan { keyed: false, .. } | Sink::Compact { .. }
    ) && vectorisable(p)
}

/// Lines at least this long take the `long` form of the vectorised kernel (four of its tiles
/// or more: shorter lines would leave most of a long tile's threads idle).
pub(crate) const SCAN_VEC_LONG: usize = 4 * 16 * BLOCK as usize * VEC;

/// The tile of the vectorised kernel: `chunks` chunks of `BLOCK * VEC` elements, the first
/// `regs` of them held in registers from load to store, the rest parked in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VecTile {
    pub chunks: usize,
    pub regs: usize,
}

impl VecTile {
    /// The tile for a scan of `spec` over a program of `inputs` inputs. For accumulators of
    /// up to 4 bytes: 8 chunks, and in the `long` form 24 (19 in registers) for a program of
    /// one input or 20 (all in registers) for more; 4 for wider accumulators and for
    /// compactions. A longer tile waits for fewer look-backs a byte, which is where a long
    /// line's time goes; registers stop at about 20 chunks at two blocks an SM (24 register
    /// chunks spill; more blocks an SM with chunks parked in shared memory are no faster). 24
    /// chunks with 19 in registers is the fastest measured form of a one-input scan; a fused scan of
    /// several inputs holds more registers for its loads, so parked chunks slow it and it keeps
    /// 20, all in registers. A compaction of values is slower with 8 chunks than with 4. The
    /// figures are in docs/perf-log/tuning-notes.md.
    pub(crate) fn of(spec: ScanSpec, long: bool, inputs: usize) -> VecTile {
        let all = |chunks| VecTile {
            chunks,
            regs: chunks,
        };
        if spec.elem_size() > 4 || !matches!(spec.sink, Sink::Scan { .. }) {
            all(4)
        } else if !long {
            all(8)
        } else if inputs <= 1 {
            VecTile {
                chunks: 24,
                regs: 19,
            }
        } else {
            all(20)
        }
    }

    /// Elements in the tile.
    pub(crate) fn elems(self) -> usize {
        self.chunks * BLOCK as usize * VEC
    }
}

/// The blocks per SM the vectorised kernel is built for: 6 (at most 40 registers) for 4 chunks
/// of accumulators of up to 4 bytes without values; 4 (64 registers) for wider accumulators
/// and a compaction of values (which holds the values too: at 40 registers the f32 one spilled
/// 96 bytes); 2 (128 registers) for the long tiles, whose 80 values a thread need them (at 3
/// blocks the long tiles spill and run slower than at 2; see docs/perf-log/tuning-notes.md).
fn min_blocks(spec: ScanSpec, tile: VecTile) -> usize {
    let values = matches!(spec.sink, Sink::Compact { values: true, .. });
    if tile.chunks >= 16 {
        2
    } else if tile.chunks == 4 && spec.elem_size() <= 4 && !values {
        6
    } else {
        4
    }
}

/// The vectorised look-back kernel (the `long` form: see [`SCAN_VEC_LONG`]); parameters as
/// [`scan_tiles`]' (`inner_` must be 1).
pub(crate) fn scan_vec(p: &Program, spec: ScanSpec, long: bool) -> KernelSource {
    let exclusive = matches!(
        spec.sink,
        Sink::Scan {
            exclusive: true,
            ..
        }
    );
    let compact = match spec.sink {
        Sink::Compact { values, .. } => Some(values),
        Sink::Scan { .. } => None,
    };
    let vt = VecTile::of(spec, long, p.inputs.len());
    let (chunks, regs) = (vt.chunks, vt.regs);
    let warps = BLOCK as usize / 32;
    let slots = chunks * warps;
    // Warp 0 scans the slots, `spl` consecutive ones a lane.
    let spl = slots.div_ceil(32);
    let tile = vt.elems();
    let tag = if regs < chunks {
        format!("vec{chunks}r{regs}")
    } else {
        format!("vec{chunks}")
    };
    let name = kernel_name(spec, &tag);
    // The prefetch is measured for scans only (a compaction's tiles are short).
    let prefetch = long && compact.is_none();
    let mut s = prologue(
        p,
        spec,
        &name,
        min_blocks(spec, vt),
        tile,
        spl * 32,
        prefetch,
    );
    let chunk = BLOCK as usize * VEC;
    let _ = writeln!(
        s,
        "  A_ x_[{regs}][{VEC}];
  A_ ex_[{chunks}];"
    );
    let pk = if regs < chunks {
        parked_chunks(p, exclusive, chunks, regs)
    } else {
        String::new()
    };
    let _ = write!(
        s,
        r#"{vals_decl}  #pragma unroll
  for (int c_ = 0; c_ < {regs}; ++c_) {{
    const int i0_ = c_ * {chunk} + t_ * {VEC};
    if (i0_ < cnt_) {{
      const long long b_ = base_ + i0_;
"#,
        vals_decl = if compact == Some(true) {
            format!("  {} vl_[{chunks}][{VEC}];\n", spec.out.c_storage())
        } else {
            String::new()
        },
    );
    lanes(p, &mut s, &|lane, v0, v1| match compact {
        None => format!("      x_[c_][{lane}] = mk_({v0});\n"),
        Some(false) => format!("      x_[c_][{lane}] = (A_)({v0} != 0);\n"),
        Some(true) => format!(
            "      x_[c_][{lane}] = (A_)({v0} != 0);\n      vl_[c_][{lane}] = {};\n",
            store_conv(spec.out, v1)
        ),
    });
    let _ = write!(
        s,
        r#"    }} else {{
      #pragma unroll
      for (int l_ = 0; l_ < {VEC}; ++l_) x_[c_][l_] = ident_();
    }}
  }}
"#
    );
    s.push_str(&pk);
    let _ = write!(
        s,
        r#"  #pragma unroll
  for (int c_ = 0; c_ < {regs}; ++c_) {{
    #pragma unroll
    for (int l_ = 1; l_ < {VEC}; ++l_) x_[c_][l_] = comb_(x_[c_][l_ - 1], x_[c_][l_]);
    ex_[c_] = x_[c_][{VEC} - 1];
  }}
  #pragma unroll
  for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {{
    #pragma unroll
    for (int c_ = 0; c_ < {regs}; ++c_) {{ const E_ y_ = e_up_(ex_[c_], d_); if ((unsigned)lane_ >= d_) ex_[c_] = comb_(y_, ex_[c_]); }}
  }}
  #pragma unroll
  for (int c_ = 0; c_ < {regs}; ++c_) {{
    if (lane_ == 31) wt_[c_ * {warps} + w_] = ex_[c_];
    const E_ y_ = e_up_(ex_[c_], 1);
    ex_[c_] = lane_ == 0 ? ident_() : y_;
  }}
  __syncthreads();
"#
    );
    s.push_str(&slot_scan(spec, slots));
    match compact {
        None => s.push_str(&scan_out(spec, exclusive, chunks, regs)),
        Some(values) => s.push_str(&compact_out(p, spec, values, chunks)),
    }
    KernelSource::generated(name, &s, spec.helpers(p))
}

/// The chunks of a tile past the `regs` held in registers (of `chunks`): loaded once the
/// register chunks' loads are issued, scanned across their warp at once, each thread's four
/// values parked in shared memory already offset by the warp's prefix before them (made
/// exclusive for an exclusive scan), so that they hold no registers while the tile looks
/// back; each thread reads back only its own vector.
fn parked_chunks(p: &Program, exclusive: bool, chunks: usize, regs: usize) -> String {
    let chunk = BLOCK as usize * VEC;
    let warps = BLOCK as usize / 32;
    let mut pk = String::new();
    let park = if exclusive {
        "z_.v[0] = ex1_;\n    #pragma unroll\n    for (int l_ = 1; l_ < VEC_; ++l_) z_.v[l_] = comb_(ex1_, y_[l_ - 1]);"
    } else {
        "#pragma unroll\n    for (int l_ = 0; l_ < VEC_; ++l_) z_.v[l_] = comb_(ex1_, y_[l_]);"
    }
    .replace("VEC_", &VEC.to_string());
    let _ = write!(
        pk,
        r#"  __shared__ VecN<A_, {VEC}> xs_[{spill}][{BLOCK}];
  #pragma unroll
  for (int c_ = {regs}; c_ < {chunks}; ++c_) {{
const int i0_ = c_ * {chunk} + t_ * {VEC};
A_ y_[{VEC}];
if (i0_ < cnt_) {{
  const long long b_ = base_ + i0_;
"#,
        spill = chunks - regs,
    );
    lanes(p, &mut pk, &|lane, v0, _| {
        format!("      y_[{lane}] = mk_({v0});\n")
    });
    let _ = write!(
        pk,
        r#"    }} else {{
  #pragma unroll
  for (int l_ = 0; l_ < {VEC}; ++l_) y_[l_] = ident_();
}}
#pragma unroll
for (int l_ = 1; l_ < {VEC}; ++l_) y_[l_] = comb_(y_[l_ - 1], y_[l_]);
E_ e1_ = y_[{VEC} - 1];
#pragma unroll
for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {{ const E_ u_ = e_up_(e1_, d_); if ((unsigned)lane_ >= d_) e1_ = comb_(u_, e1_); }}
if (lane_ == 31) wt_[c_ * {warps} + w_] = e1_;
const E_ u1_ = e_up_(e1_, 1);
const E_ ex1_ = lane_ == 0 ? ident_() : u1_;
VecN<A_, {VEC}> z_;
{park}
xs_[c_ - {regs}][t_] = z_;
  }}
"#
    );
    pk
}

/// The kernel's signature (parameters as [`scan_tiles`]'), the shared status of the tile (`wts`
/// warp-total slots, the prefix, the ticket), the ticket and the tile's geometry: `base_` (its
/// first element) and `cnt_` (its elements, at most `tile`).
pub(super) fn prologue(
    p: &Program,
    spec: ScanSpec,
    name: &str,
    min_blocks: usize,
    tile: usize,
    wts: usize,
    prefetch: bool,
) -> String {
    let mut s = element_code(spec);
    if prefetch {
        s.push_str(L2_PREFETCH);
    }
    let _ = write!(
        s,
        r#"extern "C" __global__ void __launch_bounds__({BLOCK}, {min_blocks}) {name}({}, {}) {{
  __shared__ E_ wt_[{wts}];
  __shared__ E_ pre_sh_;
  __shared__ long long tid_sh_;
  const int t_ = threadIdx.x, lane_ = t_ & 31, w_ = t_ >> 5;
  (void)inner_;
  if (t_ == 0) tid_sh_ = tpl_ > 1 ? (long long)atomicAdd(ctr_, 1u) : (long long)blockIdx.x;
{prefetch}  __syncthreads();
  const long long tid_ = tid_sh_;
  // Tiles (so lines and tiles per line) number below 2^31 (the host checks): 32-bit division.
  const long long line_ = (long long)((unsigned)tid_ / (unsigned)tpl_), tt_ = tid_ - line_ * (long long)tpl_;
  const long long start_ = tt_ * {tile};
  const long long base_ = line_ * (long long)len_ + start_;
  long long cnt_ = (long long)len_ - start_;
  if (cnt_ > {tile}) cnt_ = {tile};
"#,
        params(p, V, 1, &[spec.out]),
        look_back_signature(),
        prefetch = if prefetch {
            tile_prefetch(p, tile)
        } else {
            String::new()
        },
    );
    s
}

/// `l2_prefetch_(p, n)`: asks L2 for the 16-byte-aligned part of the `n` bytes at `p` (a
/// hint: nothing outside those bytes is touched, and nothing on an architecture before sm_90).
const L2_PREFETCH: &str = r#"__device__ __forceinline__ void l2_prefetch_(const void *p_, long long n_) {
#if __CUDA_ARCH__ >= 900
  const unsigned long long a_ = (unsigned long long)__cvta_generic_to_global(p_);
  const unsigned long long lo_ = (a_ + 15ull) & ~15ull, hi_ = (a_ + (unsigned long long)n_) & ~15ull;
  if (n_ > 0 && hi_ > lo_) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(lo_), "r"((unsigned)(hi_ - lo_)) : "memory");
#endif
}
"#;

/// The bytes a block prefetches: the whole tile of a one-input scan (24 chunks of `f32`), and
/// half that, shared among the inputs, for a fused scan of several: a whole tile speeds a
/// one-input scan, while whole tiles for each of several inputs outgrow L2 at two blocks an SM
/// and slow the fused scan below no prefetch at all (figures in docs/perf-log/tuning-notes.md).
const PREFETCH_BYTES: usize = 24 * BLOCK as usize * VEC * 4;

/// While thread 0 waits for the ticket, warp 1's first thread asks L2 for the inputs of the
/// tile of the block's index (sm_90 and later: one bulk prefetch an input). Tickets and block
/// indices disagree often (their atomics race), but a tile's ticket goes to a block started
/// about when the block of the tile's index was, so the tile is on its way to L2 when its
/// owner loads it: the ticket's round trip no longer holds back the tile's first loads.
fn tile_prefetch(p: &Program, tile: usize) -> String {
    let mut s = format!(
        r#"#if __CUDA_ARCH__ >= 900
  if (t_ == 32) {{
    const long long pl_ = (long long)((unsigned)blockIdx.x / (unsigned)tpl_);
    const long long ps_ = ((long long)blockIdx.x - pl_ * (long long)tpl_) * {tile};
    const long long pb_ = pl_ * (long long)len_ + ps_;
    const long long pn_ = (long long)len_ - ps_ < {tile} ? (long long)len_ - ps_ : {tile};
"#
    );
    let cap = match p.inputs.len() {
        0 | 1 => PREFETCH_BYTES,
        n => PREFETCH_BYTES / 2 / n,
    };
    for (i, inp) in p.inputs.iter().enumerate() {
        let st = inp.dtype.c_storage();
        let _ = writeln!(
            s,
            "    l2_prefetch_(in{i} + off{i} + pb_, pn_ * (long long)sizeof({st}) < {cap} ? pn_ * (long long)sizeof({st}) : {cap});"
        );
    }
    s.push_str("  }\n#endif\n");
    s
}

/// The program evaluated at the four elements from `b_` on, each input read as one vector;
/// `per_lane(lane, output 0, output 1)` gives what each lane stores.
pub(super) fn lanes(p: &Program, s: &mut String, per_lane: &dyn Fn(usize, &str, &str) -> String) {
    lanes_at(p, s, &|i| format!("in{i} + off{i} + b_"), per_lane);
}

/// [`lanes`] with input `i`'s vector read at the C address `ptr(i)` (aligned to a vector of
/// the input's storage type).
pub(super) fn lanes_at(
    p: &Program,
    s: &mut String,
    ptr: &dyn Fn(usize) -> String,
    per_lane: &dyn Fn(usize, &str, &str) -> String,
) {
    lanes_loaded(p, s, ptr, &|at| format!("*{at}"), per_lane);
}

/// [`lanes_at`] with each vector read by the C expression `load(at)`, where `at` is the
/// vector's typed pointer (`const VecN<T, 4>*`).
pub(super) fn lanes_loaded(
    p: &Program,
    s: &mut String,
    ptr: &dyn Fn(usize) -> String,
    load: &dyn Fn(&str) -> String,
    per_lane: &dyn Fn(usize, &str, &str) -> String,
) {
    for (i, inp) in p.inputs.iter().enumerate() {
        let st = inp.dtype.c_storage();
        let at = format!("reinterpret_cast<const VecN<{st}, {VEC}>*>({})", ptr(i));
        let _ = writeln!(s, "      const VecN<{st}, {VEC}> ld{i}_ = {};", load(&at));
    }
    for lane in 0..VEC {
        let e = Emit::converted(
            p,
            |i| format!("ld{i}_.v[{lane}]"),
            format!("(b_ + {lane})"),
            format!("_{lane}"),
        );
        s.push_str("      {\n");
        emit_lane(&e, s);
        let v0 = format!("v{}_{lane}", p.outputs[0]);
        let v1 = p
            .outputs
            .get(1)
            .map_or(String::new(), |o| format!("v{o}_{lane}"));
        s.push_str(&per_lane(lane, &v0, &v1));
        s.push_str("      }\n");
    }
}

/// `store_(b_, y_)`, the lambda that converts the four results `y_` to the output's storage
/// type and writes them as one vector at `out0 + b_` by the C statement `write(at)` (`at`: the
/// vector's typed pointer).
pub(super) fn store_lambda(spec: ScanSpec, write: &dyn Fn(&str) -> String) -> String {
    let st = spec.out.c_storage();
    let at = format!("reinterpret_cast<VecN<{st}, {VEC}>*>(out0 + b_)");
    format!(
        r#"  auto store_ = [&](long long b_, const E_ *y_) {{
    VecN<{st}, {VEC}> z_;
    #pragma unroll
    for (int l_ = 0; l_ < {VEC}; ++l_) z_.v[l_] = {conv};
    {};
  }};
"#,
        write(&at),
        conv = store_conv(spec.out, "val_(y_[l_])"),
    )
}

/// After the warp totals are in `wt_[0..slots)` (sequence order) and a barrier: warp 0 scans
/// them (`slots / 32` consecutive ones a lane), publishes the tile's aggregate and looks back,
/// then replaces each slot by its exclusive prefix over the whole line; a barrier follows.
pub(super) fn slot_scan(spec: ScanSpec, slots: usize) -> String {
    let spl = slots.div_ceil(32);
    let mut s = format!(
        r#"  E_ zx_ = ident_(), agg_blk_ = ident_();
  E_ zl_[{spl}];
  if (w_ == 0) {{
    #pragma unroll
    for (int s_ = 0; s_ < {spl}; ++s_) {{
      const int k_ = lane_ * {spl} + s_;
      zl_[s_] = k_ < {slots} ? wt_[k_] : ident_();
      if (s_ > 0) zl_[s_] = comb_(zl_[s_ > 0 ? s_ - 1 : 0], zl_[s_]);
    }}
    E_ z_ = zl_[{spl} - 1];
    #pragma unroll
    for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {{ const E_ y_ = e_up_(z_, d_); if ((unsigned)lane_ >= d_) z_ = comb_(y_, z_); }}
    agg_blk_ = e_ix_(z_, 31);
    const E_ y_ = e_up_(z_, 1);
    zx_ = lane_ == 0 ? ident_() : y_;
  }}
"#
    );
    s.push_str(if spec.packed() {
        PACKED_LOOK_BACK
    } else {
        SPLIT_LOOK_BACK
    });
    let _ = write!(
        s,
        r#"  }} else if (t_ == 0) {{
    pre_sh_ = ident_();
  }}
  if (w_ == 0) {{
    __syncwarp();
    const E_ lp_ = comb_(pre_sh_, zx_);
    #pragma unroll
    for (int s_ = 0; s_ < {spl}; ++s_) {{
      const int k_ = lane_ * {spl} + s_;
      if (k_ < {slots}) wt_[k_] = s_ == 0 ? lp_ : comb_(lp_, zl_[s_ > 0 ? s_ - 1 : 0]);
    }}
  }}
  __syncthreads();
"#
    );
    s
}

/// The scan's output: each thread's four values of each chunk (from registers, or for chunks
/// from `regs` on from shared memory), one vector store.
fn scan_out(spec: ScanSpec, exclusive: bool, chunks: usize, regs: usize) -> String {
    let warps = BLOCK as usize / 32;
    let value = if exclusive {
        "(l_ == 0 ? p_ : comb_(p_, x_[r_][l_ > 0 ? l_ - 1 : 0]))"
    } else {
        "comb_(p_, x_[r_][l_])"
    };
    let st = spec.out.c_storage();
    // A parked chunk's values already hold the warp's part of the prefix.
    let parked = if regs < chunks {
        format!(
            "if (c_ >= {regs}) {{ const VecN<A_, {VEC}> z_ = xs_[c_ >= {regs} ? c_ - {regs} : 0][t_]; const E_ q_ = wt_[c_ * {warps} + w_]; for (int l_ = 0; l_ < {VEC}; ++l_) y_.v[l_] = {}; }} else ",
            store_conv(spec.out, "val_(comb_(q_, z_.v[l_]))"),
        )
    } else {
        String::new()
    };
    format!(
        r#"  #pragma unroll
  for (int c_ = 0; c_ < {chunks}; ++c_) {{
    const int i0_ = c_ * {chunk} + t_ * {VEC};
    if (i0_ < cnt_) {{
      VecN<{st}, {VEC}> y_;
      {parked}{{
        const int r_ = c_ < {regs} ? c_ : 0;
        const E_ p_ = comb_(wt_[c_ * {warps} + w_], ex_[r_]);
        #pragma unroll
        for (int l_ = 0; l_ < {VEC}; ++l_) y_.v[l_] = {};
      }}
      *reinterpret_cast<VecN<{st}, {VEC}>*>(out0 + base_ + i0_) = y_;
    }}
  }}
}}
"#,
        store_conv(spec.out, &format!("val_({value})")),
        chunk = BLOCK as usize * VEC,
    )
}

/// The compaction's output, a chunk at a time: each warp stages its kept elements (values, or
/// their indices in the tile) in shared memory at their rank within the warp, then writes its
/// run of the output contiguously (warp-synchronous, no block barrier).
fn compact_out(p: &Program, spec: ScanSpec, values: bool, chunks: usize) -> String {
    let warps = BLOCK as usize / 32;
    let per_warp = 32 * VEC;
    let (stg_t, stage, write) = if values {
        (
            spec.out.c_storage().to_string(),
            "vl_[c_][l_]".to_string(),
            "out0[pos_] = stg_[w_][j_];".to_string(),
        )
    } else {
        let write = coords_write(p, "base_ + stg_[w_][j_]");
        ("int".to_string(), "i0_ + l_".to_string(), write)
    };
    format!(
        r#"  __shared__ {stg_t} stg_[{warps}][{per_warp}];
  #pragma unroll
  for (int c_ = 0; c_ < {chunks}; ++c_) {{
    const int i0_ = c_ * {chunk} + t_ * {VEC};
    const A_ wcnt_ = a_ix_(comb_(ex_[c_], x_[c_][{VEC} - 1]), 31);
    if (i0_ < cnt_) {{
      #pragma unroll
      for (int l_ = 0; l_ < {VEC}; ++l_) {{
        const A_ prev_ = l_ == 0 ? (A_)0 : x_[c_][l_ > 0 ? l_ - 1 : 0];
        if (x_[c_][l_] != prev_) stg_[w_][(int)(ex_[c_] + prev_)] = {stage};
      }}
    }}
    __syncwarp();
    const long long wb_ = (long long)wt_[c_ * {warps} + w_];
    for (int j_ = lane_; j_ < (int)wcnt_; j_ += 32) {{
      const long long pos_ = wb_ + j_;
      {write}
    }}
    __syncwarp();
  }}
}}
"#,
        chunk = BLOCK as usize * VEC,
    )
}
