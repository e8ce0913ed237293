//! The row-operation kernel of a library call (softmax, log_softmax, logsumexp, layer_norm,
//! rms_norm, normalize): one block per line of the reduced axis (grid-stride over lines). A
//! line of up to `BLOCK * items` elements (`items` sized to the line by [`row_items`]) is read
//! once into registers, in 16-byte vectors where it is contiguous and aligned (a fused line,
//! whose element-wise producer is evaluated in place, in vectors of each input where they all
//! step by one element along the line and lie aligned, else with the steps a constant where
//! they are all one), all its loads issued before any arithmetic; its
//! statistics are reduced over the registers with warp shuffles and one shared-memory step per
//! statistic (one barrier each, the two halves of the shared array taken in turn), and it is
//! written once. softmax and log_softmax reduce each warp's maximum and sum of exponentials
//! relative to it in one step; layer_norm each warp's sum, count and squared deviations from
//! its own mean in one step (Chan et al.'s combination); a line whose maximum is not finite is
//! done again by the path for long lines, which spells those cases out. A longer line is read
//! once per statistic and once more to write. Statistics are kept in the compute type (`float`
//! for `f16`/`bf16`/`f32`, `double` for `f64`).

use super::{BLOCK, Emit, Helpers, KernelSource, emit_lane, load_conv, store_conv};
use crate::dtype::DType;
use crate::graph::Program;
use crate::jit::FastCompile;
use std::fmt::Write;

/// The most elements per thread held in registers: lines up to `BLOCK * ROW_ITEMS` are read
/// once.
pub(crate) const ROW_ITEMS: usize = 32;

// The block reductions' shared memory holds up to four values per warp in each 32-slot half.
const _: () = assert!(BLOCK / 32 <= 8);

/// Elements per thread a line of `n` is held in: the power of two that covers it with `BLOCK`
/// threads (1 for a line longer than `BLOCK * ROW_ITEMS`, which is read again instead).
pub(crate) fn row_items(n: usize) -> usize {
    let per = n.div_ceil(BLOCK as usize).max(1);
    if per > ROW_ITEMS {
        1
    } else {
        per.next_power_of_two()
    }
}

/// What a row kernel computes from a line's statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RowKind {
    Softmax,
    LogSoftmax,
    LogSumExp,
    LayerNorm,
    RmsNorm,
    /// Division by the Lp norm, `p` given at launch (2 is specialised).
    Normalize {
        p2: bool,
    },
}

impl RowKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            RowKind::Softmax => "softmax",
            RowKind::LogSoftmax => "log_softmax",
            RowKind::LogSumExp => "logsumexp",
            RowKind::LayerNorm => "layer_norm",
            RowKind::RmsNorm => "rms_norm",
            RowKind::Normalize { .. } => "normalize",
        }
    }
}

/// The row kernel for `kind` on `dtype` (a float type), holding `items` values per thread
/// (see [`row_items`]; lines longer than `BLOCK * items` are read again). Parameters: `in`, `w`, `b`, `out`,
/// `lines`, `n`, `inner`, `eps` (f64 bits), `p` (f64 bits). Element `i` of line
/// `o * inner + j` is at `(o * n + i) * inner + j`; `w` and `b` (read when `has_w`/`has_b`)
/// are indexed by `i`; logsumexp writes `out[line]`, the others the input's layout.
///
/// With `fused = Some((producer, axis))` the kernel has no `in`: each element of a line is the
/// element-wise `producer` (no gathers, iotas or random numbers) evaluated from its own inputs
/// where they lie (see [`producer_code`]), and the parameters after `p` are the producer's
/// inputs (`in{k}`, `off{k}`, `st{k}_{d}` per axis), the extents `s{d}` and its constants.
pub(crate) fn rows_kernel(
    kind: RowKind,
    dtype: DType,
    has_w: bool,
    has_b: bool,
    fused: Option<(&Program, usize)>,
    items: usize,
) -> KernelSource {
    let s = dtype.c_storage();
    let c = dtype.c_compute();
    let f64c = c == "double";
    let m = |f: &str| {
        if f64c { f.to_string() } else { format!("{f}f") }
    };
    let (mut exp, log, sqrt, pow, fabs) = (m("exp"), m("log"), m("sqrt"), m("pow"), m("fabs"));
    // Half types keep statistics in `float` but store 8 or 11 bits: the fast exponential
    // (about 2 ulp of `float`) is far below their rounding, and the full `expf` would make the
    // kernel instruction-bound.
    if matches!(dtype, DType::F16 | DType::BF16) {
        exp = "__expf".to_string();
    }
    let inf = if f64c { "dinf()" } else { "finf()" };
    let name = format!(
        "cuprite_{}{}_{}{}{}_r{items}",
        kind.name(),
        if kind == (RowKind::Normalize { p2: true }) {
            "2"
        } else {
            ""
        },
        dtype.name(),
        if has_w { "_w" } else { "" },
        if has_b { "_b" } else { "" }
    );
    let load = |e: &str| format!("(({c})({}))", load_conv(dtype, e));
    let (x_at, fused_fn, fused_params, fused_line, unit) = match fused {
        Some((prog, ax)) => {
            let (f, params, line, call) = producer_code(prog, ax, c);
            (call, f, params, line, Some(unit_steps(prog)))
        }
        None => (
            load("in[base + i * inner]"),
            String::new(),
            String::new(),
            String::new(),
            None,
        ),
    };
    // Batched compilation puts kernels side by side: each producer's kernel has its own name.
    let name = match fused {
        Some((prog, ax)) => format!(
            "{name}_fused_{:016x}",
            prog.structure_hash(&crate::jit::KernelKind::RowProducer { axis: ax })
        ),
        None => name,
    };
    let in_param = if fused.is_some() {
        String::new()
    } else {
        format!("const {s} *__restrict__ in, ")
    };
    let warps = BLOCK / 32;
    let items = items.clamp(1, ROW_ITEMS);
    // A contiguous, 16-byte aligned line (not fused) is moved in 16-byte vectors of `vec`
    // values: thread `t` holds values `(q * BLOCK + t) * vec + r` of the line.
    let vec = 16 / dtype.size();
    let vec_path = items >= vec && items % vec == 0;
    let idx = if vec_path {
        format!("(vec ? ((k / {vec}) * {BLOCK} + t) * {vec} + k % {vec} : t + k * {BLOCK})")
    } else {
        format!("(t + k * {BLOCK})")
    };
    // `stmt` on each value `x` of the line held in registers (`v[k]`, element `i`). On the
    // vector path (`vec`, a constant in the streaming form) the bound is checked once per
    // vector: a line's length is then a multiple of `vec`.
    let near = |stmt: &str| {
        let scalar = format!(
            "#pragma unroll\n      for (int k = 0; k < {items}; ++k) {{ const int i = {idx}; if (i < nn) {{ const {c} x = v[k]; {stmt} }} }}"
        );
        if vec_path {
            format!(
                "if (vec) {{\n      #pragma unroll\n      for (int q = 0; q < {items} / {vec}; ++q) {{ const int i0 = (q * {BLOCK} + t) * {vec}; if (i0 < nn) {{\n        #pragma unroll\n        for (int r = 0; r < {vec}; ++r) {{ const int k = q * {vec} + r; const int i = i0 + r; (void)i; const {c} x = v[k]; {stmt} }} }} }}\n      }} else {{\n      {scalar}\n      }}"
            )
        } else {
            scalar
        }
    };
    // `stmt` on each value of a line too long for the registers, read again.
    let far = |stmt: &str| {
        format!("for (i64t i = t; i < n; i += {BLOCK}) {{ const {c} x = {x_at}; {stmt} }}")
    };
    // The statistics from the line (`each` visits its values), and the output from `x`.
    let stats = |each: &dyn Fn(&str) -> String, near: bool| -> (String, String) {
        match kind {
            // logsumexp keeps the block-wide maximum first (measured on the H100, bf16 16384 ×
            // 4096: 0.78× the copy bandwidth, against 0.66× with the per-warp form below).
            RowKind::LogSumExp if near => {
                let code = format!(
                    "{c} mx = -{inf};\n      {}\n      const {c} M = block_max(mx, sh, ph);\n      {c} sm = ({c})0;\n      if (M > -{inf} && M < {inf}) {{\n      {}\n      }} else {{\n      {}\n      }}\n      const {c} S = block_sum(sm, sh, ph);",
                    each("mx = x > mx ? x : mx;"),
                    each(&format!("sm += {exp}(x - M);")),
                    each(&format!(
                        "const {c} ex = x == M ? ({c})1 : {exp}(x - M); sm += x != -{inf} ? (x == M ? ({c})1 : ex) : ({c})0;"
                    ))
                );
                (code, String::new())
            }
            RowKind::Softmax | RowKind::LogSoftmax if near => {
                // Each warp's maximum, its sum of exponentials relative to it (softmax keeps
                // them), then the block's (M, S) in one shared-memory step. A line whose M is
                // not finite (+inf present, or nothing above -inf) is done again by the far
                // path below, which spells those cases out.
                let keep = if kind == RowKind::Softmax {
                    format!("const {c} ex = {exp}(x - mw); v[k] = ex; sw += ex;")
                } else {
                    format!("sw += {exp}(x - mw);")
                };
                let zero = if kind == RowKind::Softmax {
                    format!(
                        " else {{\n      {}\n      }}",
                        each(&format!("v[k] = ({c})0;"))
                    )
                } else {
                    String::new()
                };
                // What each thread needs besides (M, S): softmax its scale, log_softmax
                // log(S) (logsumexp's one thread takes the log when it writes).
                let per_thread = match kind {
                    RowKind::Softmax => {
                        format!("\n      const {c} sc = mw > -{inf} ? {exp}(mw - M) / S : ({c})0;")
                    }
                    RowKind::LogSoftmax => format!("\n      const {c} lS = {log}(S);"),
                    _ => String::new(),
                };
                let code = format!(
                    "{c} mw = -{inf};\n      {}\n      mw = warp_max(mw);\n      {c} sw = ({c})0;\n      if (mw > -{inf}) {{\n      {}\n      }}{zero}\n      sw = warp_sum(sw);\n      {c} M, S;\n      block_lse(mw, sw, sh, ph, M, S);\n      const bool fin = M > -{inf} && M < {inf};\n{per_thread}",
                    each("mw = x > mw ? x : mw;"),
                    each(&keep),
                );
                let out = match kind {
                    RowKind::Softmax => "x * sc".to_string(),
                    _ => "(x - M) - lS".to_string(),
                };
                (code, out)
            }
            RowKind::Softmax | RowKind::LogSoftmax | RowKind::LogSumExp => {
                // Online max and rescaled sum of exponentials per thread.
                let code = format!(
                    "{c} mx = -{inf}, sm = ({c})0;\n      {}\n      const {c} M = block_max(mx, sh, ph);\n      const {c} S = block_sum(mx == M ? sm : sm * {exp}(mx - M), sh, ph);\n      const {c} iS = ({c})1 / S; (void)iS;",
                    each(&format!(
                        "if (x > mx) {{ sm = sm * {exp}(mx - x) + ({c})1; mx = x; }} else if (x != -{inf}) {{ sm += x == mx ? ({c})1 : {exp}(x - mx); }}"
                    ))
                );
                // A +inf in the line makes every output NaN (`M - M`): inf - inf in the shift.
                let out = match kind {
                    RowKind::Softmax => format!("(M < {inf} ? {exp}(x - M) * iS : M - M)"),
                    RowKind::LogSoftmax => format!("(M < {inf} ? (x - M) - {log}(S) : M - M)"),
                    _ => format!("(x - M) - {log}(S)"),
                };
                (code, out)
            }
            // Registers: each warp's sum, count, mean and squared deviations from that mean
            // (exact two passes over the warp's values), combined over the warps in one
            // shared-memory step.
            RowKind::LayerNorm if near => (
                format!(
                    "{c} sm = ({c})0, ct = ({c})0;\n      {}\n      sm = warp_sum(sm); ct = warp_sum(ct);\n      const {c} mw = ct > ({c})0 ? sm / ct : ({c})0;\n      {c} sq = ({c})0;\n      {}\n      sq = warp_sum(sq);\n      {c} mean, var;\n      block_meanvar(sm, ct, mw, sq, sh, ph, ({c})n, mean, var);\n      const {c} rstd = ({c})1 / {sqrt}(var + eps);",
                    each(&format!("sm += x; ct += ({c})1;")),
                    each(&format!("const {c} d = x - mw; sq += d * d;"))
                ),
                "(x - mean) * rstd".to_string(),
            ),
            RowKind::LayerNorm => (
                format!(
                    "{c} sm = ({c})0;\n      {}\n      const {c} mean = block_sum(sm, sh, ph) / ({c})n;\n      {c} sq = ({c})0;\n      {}\n      const {c} rstd = ({c})1 / {sqrt}(block_sum(sq, sh, ph) / ({c})n + eps);",
                    each("sm += x;"),
                    each(&format!("const {c} d = x - mean; sq += d * d;"))
                ),
                "(x - mean) * rstd".to_string(),
            ),
            RowKind::RmsNorm => (
                format!(
                    "{c} sm = ({c})0;\n      {}\n      const {c} rstd = ({c})1 / {sqrt}(block_sum(sm, sh, ph) / ({c})n + eps);",
                    each("sm += x * x;")
                ),
                "x * rstd".to_string(),
            ),
            RowKind::Normalize { p2 } => {
                let (acc, root) = if p2 {
                    ("sm += x * x;".to_string(), format!("{sqrt}(r)"))
                } else {
                    (
                        format!("sm += {pow}({fabs}(x), p);"),
                        format!("{pow}(r, ({c})1 / p)"),
                    )
                };
                (
                    format!(
                        "{c} sm = ({c})0;\n      {}\n      const {c} r = block_sum(sm, sh, ph);\n      const {c} nrm = {root};\n      const {c} inv = ({c})1 / (nrm > eps ? nrm : eps);",
                        each(&acc)
                    ),
                    "x * inv".to_string(),
                )
            }
        }
    };
    let with_wb = |e: String| {
        let mut e = e;
        if has_w {
            e = format!("({e}) * {}", load("w[i]"));
        }
        if has_b {
            e = format!("({e}) + {}", load("b[i]"));
        }
        e
    };
    let (near_stats, near_out) = stats(&near, true);
    let (far_stats, far_out) = stats(&far, false);
    // The vector write reads the weight and bias as vectors too (`wv_`, `bv_`, aligned like
    // the line: the vector path's condition includes their pointers).
    let near_out_vec = {
        let mut e = near_out.clone();
        if has_w {
            e = format!("({e}) * {}", load("wv_.e[r]"));
        }
        if has_b {
            e = format!("({e}) + {}", load("bv_.e[r]"));
        }
        e
    };
    let (near_out, far_out) = (with_wb(near_out), with_wb(far_out));
    let wb_vec = format!(
        "{}{}",
        if has_w {
            "pk_ wv_; wv_.u = *reinterpret_cast<const uint4 *>(w + i0); "
        } else {
            ""
        },
        if has_b {
            "pk_ bv_; bv_.u = *reinterpret_cast<const uint4 *>(b + i0); "
        } else {
            ""
        }
    );
    let store = store_conv(dtype, "y");
    let lse = kind == RowKind::LogSumExp;
    let (near_write, far_write) = if lse {
        let w = |l: &str| {
            format!(
                "if (t == 0) out[line] = {};",
                store_conv(dtype, &format!("(M + {l})"))
            )
        };
        (w(&format!("{log}(S)")), w(&format!("{log}(S)")))
    } else {
        let scalar = near(&format!(
            "const {c} y = {near_out}; out[base + i * inner] = {store};"
        ));
        let near_write = if vec_path {
            format!(
                r#"if (vec) {{
        #pragma unroll
        for (int q = 0; q < {items} / {vec}; ++q) {{
          const int i0 = (q * {BLOCK} + t) * {vec};
          if (i0 < nn) {{
            pk_ pk; {wb_vec}
            #pragma unroll
            for (int r = 0; r < {vec}; ++r) {{ const int i = i0 + r; (void)i; const {c} x = v[q * {vec} + r]; const {c} y = {near_out_vec}; pk.e[r] = {store}; }}
            *reinterpret_cast<uint4 *>(out + base + i0) = pk.u;
          }}
        }}
      }} else {{
      {scalar}
      }}"#
            )
        } else {
            scalar
        };
        (
            near_write,
            far(&format!(
                "const {c} y = {far_out}; out[base + i * inner] = {store};"
            )),
        )
    };
    // The softmax family's near path leaves a line with a non-finite maximum to the far path.
    let near_write = if matches!(kind, RowKind::Softmax | RowKind::LogSoftmax) {
        format!(
            "if (fin) {{\n      {near_write}\n      }} else {{\n      {far_stats}\n      {far_write}\n      }}"
        )
    } else {
        near_write
    };
    let scalar_load = |x_at: &str| {
        format!(
            "#pragma unroll\n      for (int k = 0; k < {items}; ++k) {{ const int i = t + k * {BLOCK}; v[k] = i < nn ? {x_at} : ({c})0; }}"
        )
    };
    // A fused line whose inputs all step by one element along it (the common case: the
    // producer's inputs contiguous along the axis) is read with the step a constant, so
    // that each input's element addresses are one base plus immediate offsets.
    let scalar_load = match &unit {
        Some((cond, names)) => {
            let mut at = x_at.clone();
            for t in names {
                at = at.replace(&format!(", {t},"), ", (i64t)1,");
                at = at.replace(&format!(", {t})"), ", (i64t)1)");
            }
            format!(
                "if ({cond}) {{\n      {}\n      }} else {{\n      {}\n      }}",
                scalar_load(&at),
                scalar_load(&x_at)
            )
        }
        None => scalar_load(&x_at),
    };
    // The streaming form of the vector path: where every line is contiguous and aligned, a
    // block keeps the next line's raw vectors in flight (`raw_`, loaded before this line's
    // statistics) while it reduces and writes this one, so that twice the bytes are pending.
    // Not with a weight or bias and more than two vectors a thread: their loads while the next
    // line's vectors are held spilled (f32 layer_norm of 4096: 24 bytes, 0.94× copy → 0.82×).
    let stream_line = if fused.is_none() && vec_path && (items / vec <= 2 || !(has_w || has_b)) {
        let q = items / vec;
        let out_aligned = if lse {
            ""
        } else {
            " | (unsigned long long)out"
        };
        format!(
            r#"if (n <= (i64t){BLOCK} * {items} && inner == 1 && n % {vec} == 0 && (((unsigned long long)in{out_aligned} | (unsigned long long)w | (unsigned long long)b) & 15) == 0) {{
    const int nn = (int)n;
    const bool vec = true;
    uint4 raw_[{q}];
    i64t line = blockIdx.x;
    #pragma unroll
    for (int q = 0; q < {q}; ++q) {{
      const int i0 = (q * {BLOCK} + t) * {vec};
      raw_[q] = line < lines && i0 < nn ? *reinterpret_cast<const uint4 *>(in + line * n + i0) : make_uint4(0u, 0u, 0u, 0u);
    }}
    for (; line < lines; line += gridDim.x) {{
      const i64t base = line * n;
      {c} v[{items}];
      #pragma unroll
      for (int q = 0; q < {q}; ++q) {{
        pk_ pk;
        pk.u = raw_[q];
        #pragma unroll
        for (int r = 0; r < {vec}; ++r) v[q * {vec} + r] = {conv};
      }}
      const i64t nxt = line + gridDim.x;
      #pragma unroll
      for (int q = 0; q < {q}; ++q) {{
        const int i0 = (q * {BLOCK} + t) * {vec};
        if (nxt < lines && i0 < nn) raw_[q] = *reinterpret_cast<const uint4 *>(in + nxt * n + i0);
      }}
      {{
      {near_stats}
      {near_write}
      }}
    }}
    return;
  }}
  "#,
            conv = load("pk.e[r]"),
        )
    } else {
        String::new()
    };
    let (pk_decl, near_load) = if vec_path {
        // When a line is read in vectors, and the statements loading the `vec` values from
        // `i0` into `v[q * vec ..]`: a fused line whose inputs all step by one element and lie
        // aligned evaluates the producer on one vector of each input; a plain line, contiguous
        // and aligned, is one vector of the input.
        let (cond, vload) = match (fused, &unit) {
            (Some((prog, _)), Some((unit_cond, _))) => {
                let (vload, aligned) = producer_vec(prog, c, vec);
                let out_aligned = if lse {
                    String::new()
                } else {
                    " && (((unsigned long long)(out + base) | (unsigned long long)w | (unsigned long long)b) & 15) == 0".to_string()
                };
                (
                    format!("({unit_cond}) && inner == 1 && nn % {vec} == 0{aligned}{out_aligned}"),
                    vload,
                )
            }
            _ => {
                let aligned = if lse {
                    "(unsigned long long)(in + base)".to_string()
                } else {
                    "((unsigned long long)(in + base) | (unsigned long long)(out + base) | (unsigned long long)w | (unsigned long long)b)".to_string()
                };
                (
                    format!("inner == 1 && nn % {vec} == 0 && ({aligned} & 15) == 0"),
                    format!(
                        "            pk_ pk;\n            pk.u = *reinterpret_cast<const uint4 *>(in + base + i0);\n            #pragma unroll\n            for (int r = 0; r < {vec}; ++r) v[q * {vec} + r] = {};",
                        load("pk.e[r]")
                    ),
                )
            }
        };
        (
            format!("union pk_ {{ uint4 u; {s} e[{vec}]; }};\n"),
            format!(
                r#"const bool vec = {cond};
      if (vec) {{
        #pragma unroll
        for (int q = 0; q < {items} / {vec}; ++q) {{
          const int i0 = (q * {BLOCK} + t) * {vec};
          if (i0 < nn) {{
{vload}
          }} else {{
            #pragma unroll
            for (int r = 0; r < {vec}; ++r) v[q * {vec} + r] = ({c})0;
          }}
        }}
      }} else {{
      {scalar_load}
      }}"#
            ),
        )
    } else {
        (String::new(), scalar_load)
    };
    // Registers a block may use: at least `min_blocks` blocks of `BLOCK` fit on an SM.
    let value_regs = items * if f64c { 2 } else { 1 };
    let min_blocks = match (value_regs, fused.is_some()) {
        (0..=16, _) => 4,
        (17..=32, _) => 3,
        _ => 2,
    };
    let body = format!(
        r#"{pk_decl}__device__ __forceinline__ {c} warp_sum({c} x) {{
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}}
__device__ __forceinline__ {c} warp_max({c} x) {{
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) {{ const {c} y = __shfl_xor_sync(0xffffffffu, x, d); x = y > x ? y : x; }}
  return x;
}}
// Block reductions take turns on the two halves of `sh` (`ph` counts them): a half is written
// again only two reductions later, after a barrier every thread reached having read it.
__device__ __forceinline__ {c} block_sum({c} x, {c} *sh, int &ph) {{
  {c} *h = sh + (ph & 1) * 32; ph ^= 1;
  x = warp_sum(x);
  if ((threadIdx.x & 31) == 0) h[threadIdx.x >> 5] = x;
  __syncthreads();
  {c} r = h[0];
  #pragma unroll
  for (int k = 1; k < {warps}; ++k) r += h[k];
  return r;
}}
__device__ __forceinline__ {c} block_max({c} x, {c} *sh, int &ph) {{
  {c} *h = sh + (ph & 1) * 32; ph ^= 1;
  x = warp_max(x);
  if ((threadIdx.x & 31) == 0) h[threadIdx.x >> 5] = x;
  __syncthreads();
  {c} r = h[0];
  #pragma unroll
  for (int k = 1; k < {warps}; ++k) r = h[k] > r ? h[k] : r;
  return r;
}}
// The mean and variance of a line of `n` from each warp's sum `sm`, count `ct`, mean `mw` and
// sum of squared deviations from it `sq` (Chan et al.'s combination of partial moments).
__device__ __forceinline__ void block_meanvar({c} sm, {c} ct, {c} mw, {c} sq, {c} *sh, int &ph, {c} n, {c} &mean, {c} &var) {{
  {c} *h = sh + (ph & 1) * 32; ph ^= 1;
  if ((threadIdx.x & 31) == 0) {{ const int w = threadIdx.x >> 5; h[w] = sm; h[8 + w] = ct; h[16 + w] = mw; h[24 + w] = sq; }}
  __syncthreads();
  {c} tot = h[0];
  #pragma unroll
  for (int k = 1; k < {warps}; ++k) tot += h[k];
  const {c} m = tot / n;
  {c} m2 = ({c})0;
  #pragma unroll
  for (int k = 0; k < {warps}; ++k) {{ const {c} d = h[16 + k] - m; m2 += h[24 + k] + h[8 + k] * d * d; }}
  mean = m;
  var = m2 / n;
}}
// The block's maximum `M` and sum of exponentials `S` relative to it, from each warp's
// maximum `mw` and sum `sw` relative to that: lane `k` of each warp rescales warp `k`'s sum.
__device__ __forceinline__ void block_lse({c} mw, {c} sw, {c} *sh, int &ph, {c} &M, {c} &S) {{
  {c} *h = sh + (ph & 1) * 32; ph ^= 1;
  const int lane = threadIdx.x & 31;
  if (lane == 0) {{ h[threadIdx.x >> 5] = mw; h[16 + (threadIdx.x >> 5)] = sw; }}
  __syncthreads();
  {c} m = h[0];
  #pragma unroll
  for (int k = 1; k < {warps}; ++k) m = h[k] > m ? h[k] : m;
  {c} term = ({c})0;
  if (lane < {warps}) {{ const {c} mk = h[lane]; if (mk > -{inf}) term = h[16 + lane] * {exp}(mk - m); }}
  M = m;
  S = warp_sum(term);
}}
{fused_fn}extern "C" __global__ void __launch_bounds__({BLOCK}, {min_blocks}) {name}({in_param}const {s} *__restrict__ w, const {s} *__restrict__ b, {s} *__restrict__ out, i64t lines, i64t n, i64t inner, u64t eps_bits, u64t p_bits{fused_params}) {{
  __shared__ {c} sh[64];
  int ph = 0;
  const int t = threadIdx.x;
  const {c} eps = ({c})__longlong_as_double((long long)eps_bits);
  const {c} p = ({c})__longlong_as_double((long long)p_bits);
  (void)eps; (void)p; (void)w; (void)b;
  {stream_line}const bool cached = n <= (i64t){BLOCK} * {items};
  for (i64t line = blockIdx.x; line < lines; line += gridDim.x) {{
    const i64t o = line / inner, j = line - o * inner;
    const i64t base = o * n * inner + j;
    {fused_line}
    if (cached) {{
      const int nn = (int)n;
      {c} v[{items}];
      {near_load}
      {near_stats}
      {near_write}
    }} else {{
      {far_stats}
      {far_write}
    }}
  }}
}}
"#
    );
    // Unfused softmax and log-softmax are built at `--Ofast-compile=min`, where they were
    // measured faster (docs/PERFORMANCE.md); the other row kernels, and fused lines, fully
    // optimised.
    let helpers = fused.map_or(Helpers::default(), |(prog, _)| Helpers::of_program(prog))
        | Helpers::of_dtype(dtype);
    let source = KernelSource::generated(name, &body, helpers);
    if fused.is_none() && matches!(kind, RowKind::Softmax | RowKind::LogSoftmax) {
        source.at_level(FastCompile::Min)
    } else {
        source
    }
}

/// The statements that set `v[q * vec + r]` (`r < vec`) to the producer `p`'s values at line
/// elements `i0 + r`, from one load of `vec` consecutive values of each input (`in{k}` from
/// the line base `b{k}`, all steps one), and the alignment condition those loads need
/// (`&& ...`, one term an input).
fn producer_vec(p: &Program, c: &str, vec: usize) -> (String, String) {
    let mut code = String::new();
    let mut aligned = String::new();
    for (k, inp) in p.inputs.iter().enumerate() {
        let bytes = vec * inp.dtype.size();
        let (word, count) = match bytes {
            0..=2 => ("unsigned short", 1),
            3..=4 => ("unsigned int", 1),
            5..=8 => ("uint2", 1),
            _ => ("uint4", bytes / 16),
        };
        let align = bytes.min(16);
        let _ = write!(
            aligned,
            " && ((unsigned long long)(in{k} + b{k}) & {}) == 0",
            align - 1
        );
        let st = inp.dtype.c_storage();
        let _ = writeln!(
            code,
            "            union {{ {word} u[{count}]; {st} e[{vec}]; }} p{k}_;\n            #pragma unroll\n            for (int w_ = 0; w_ < {count}; ++w_) p{k}_.u[w_] = reinterpret_cast<const {word} *>(in{k} + b{k} + i0)[w_];"
        );
    }
    let out = p.outputs[0];
    for r in 0..vec {
        let e = Emit::converted(p, |k| format!("p{k}_.e[{r}]"), "0", format!("_{r}"));
        let mut lane = String::new();
        emit_lane(&e, &mut lane);
        code.push_str(&lane);
        let _ = writeln!(code, "            v[q * {vec} + {r}] = ({c})v{out}_{r};");
    }
    (code, aligned)
}

/// The condition that every input of the producer `p` steps by one element along the line
/// (`t0 == 1 && ...`), and the names of those steps.
fn unit_steps(p: &Program) -> (String, Vec<String>) {
    let names: Vec<String> = (0..p.inputs.len()).map(|k| format!("t{k}")).collect();
    let cond = if names.is_empty() {
        "true".to_string()
    } else {
        names
            .iter()
            .map(|t| format!("{t} == 1"))
            .collect::<Vec<_>>()
            .join(" && ")
    };
    (cond, names)
}

/// The pieces of a row kernel that reads its lines through an element-wise producer: the
/// `__device__` value function (element `i` of the line from each input's line base `b{k}` and
/// step `t{k}` along the axis), the extra kernel parameters, the per-line code that unravels
/// the line's outer and inner coordinates into each input's base, and the call giving element
/// `i` in the compute type `c`.
fn producer_code(p: &Program, ax: usize, c: &str) -> (String, String, String, String) {
    let nd = p.shape.len();
    let ins = p.inputs.len();
    let mut args = Vec::new();
    let mut call = Vec::new();
    for (k, inp) in p.inputs.iter().enumerate() {
        args.push(format!(
            "const {} *__restrict__ in{k}, i64t b{k}, i64t t{k}",
            inp.dtype.c_storage()
        ));
        call.push(format!("in{k}, b{k}, t{k}"));
    }
    for k in 0..p.consts.len() {
        args.push(format!("u64t k{k}"));
        call.push(format!("k{k}"));
    }
    let mut f = format!(
        "__device__ __forceinline__ {c} xval_(i64t i{}) {{\n",
        args.iter().map(|a| format!(", {a}")).collect::<String>()
    );
    let e = Emit::converted(p, |k| format!("in{k}[b{k} + i * t{k}]"), "0", "");
    emit_lane(&e, &mut f);
    let out = p.outputs[0];
    let _ = writeln!(f, "  return ({c})v{out};\n}}");
    let mut params = String::new();
    for (k, inp) in p.inputs.iter().enumerate() {
        let _ = write!(
            params,
            ", const {} *__restrict__ in{k}, i64t off{k}",
            inp.dtype.c_storage()
        );
        for d in 0..nd {
            let _ = write!(params, ", i64t st{k}_{d}");
        }
    }
    for d in 0..nd {
        let _ = write!(params, ", i64t s{d}");
    }
    for k in 0..p.consts.len() {
        let _ = write!(params, ", u64t k{k}");
    }
    let mut line = String::new();
    if ax + 1 < nd {
        line.push_str("i64t ri_ = j;\n");
    }
    if ax > 0 {
        line.push_str("    i64t ro_ = o;\n");
    }
    for d in (ax + 1..nd).rev() {
        let _ = writeln!(line, "    const i64t c{d} = ri_ % s{d}; ri_ /= s{d};");
    }
    for d in (0..ax).rev() {
        let _ = writeln!(line, "    const i64t c{d} = ro_ % s{d}; ro_ /= s{d};");
    }
    for k in 0..ins {
        let terms: String = (0..nd)
            .filter(|&d| d != ax)
            .map(|d| format!(" + c{d} * st{k}_{d}"))
            .collect();
        let _ = writeln!(
            line,
            "    const i64t b{k} = off{k}{terms}; const i64t t{k} = st{k}_{ax};"
        );
    }
    let x = format!(
        "xval_(i{})",
        call.iter().map(|a| format!(", {a}")).collect::<String>()
    );
    (f, params, line, x)
}
