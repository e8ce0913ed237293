//! The row-operation kernel of a library call (softmax, log_softmax, logsumexp, layer_norm,
//! rms_norm, normalize): one block per line of the reduced axis (grid-stride over lines). A
//! line of up to `BLOCK * ITEMS` elements is read once into registers, its statistics are
//! reduced with warp shuffles and a shared-memory step, and it is written once; a longer line
//! is read once per statistic and once more to write. Statistics are kept in the compute type
//! (`float` for `f16`/`bf16`/`f32`, `double` for `f64`).

use super::{BLOCK, Emit, KernelSource, emit_lane, load_conv, store_conv, with_prelude};
use crate::dtype::DType;
use crate::graph::Program;
use std::fmt::Write;

/// Elements per thread held in registers: lines up to `BLOCK * ITEMS` are read once.
pub(crate) const ROW_ITEMS: usize = 32;

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

/// The row kernel for `kind` on `dtype` (a float type). Parameters: `in`, `w`, `b`, `out`,
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
) -> KernelSource {
    let s = dtype.c_storage();
    let c = dtype.c_compute();
    let f64c = c == "double";
    let m = |f: &str| {
        if f64c { f.to_string() } else { format!("{f}f") }
    };
    let (exp, log, sqrt, pow, fabs) = (m("exp"), m("log"), m("sqrt"), m("pow"), m("fabs"));
    let inf = if f64c { "dinf()" } else { "finf()" };
    let name = format!(
        "cuprite_{}{}_{}{}{}",
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
    let (x_at, fused_fn, fused_params, fused_line) = match fused {
        Some((prog, ax)) => {
            let (f, params, line, call) = producer_code(prog, ax, c);
            (call, f, params, line)
        }
        None => (
            load("in[base + i * inner]"),
            String::new(),
            String::new(),
            String::new(),
        ),
    };
    // Batched compilation puts kernels side by side: each producer's kernel has its own name.
    let name = match fused {
        Some((prog, ax)) => format!(
            "{name}_fused_{:016x}",
            prog.structure_hash(0x0f05_ed00 ^ ax as u64)
        ),
        None => name,
    };
    let in_param = if fused.is_some() {
        String::new()
    } else {
        format!("const {s} *__restrict__ in, ")
    };
    let warps = BLOCK / 32;
    let items = ROW_ITEMS;
    // Statistics: `acc1` (and `acc2`) per thread from each value `x`, then block-reduced.
    // `FIRST` accumulates per value; `after1` turns the reduced `r1` into what pass two uses.
    let (pass1, after1, pass2, after2, out_expr) = match kind {
        RowKind::Softmax | RowKind::LogSoftmax | RowKind::LogSumExp => {
            // Online max and rescaled sum of exponentials per thread.
            let pass1 = format!(
                "if (x > mx) {{ sm = sm * {exp}(mx - x) + ({c})1; mx = x; }} else if (x != -{inf}) {{ sm += x == mx ? ({c})1 : {exp}(x - mx); }}"
            );
            let after1 = format!(
                "const {c} M = block_max(mx, sh);\n    const {c} S = block_sum(mx == M ? sm : sm * {exp}(mx - M), sh);"
            );
            let out = match kind {
                RowKind::Softmax => format!("{exp}(x - M) / S"),
                RowKind::LogSoftmax => format!("(x - M) - {log}(S)"),
                _ => String::new(),
            };
            (pass1, after1, String::new(), String::new(), out)
        }
        RowKind::LayerNorm => (
            "sm += x;".to_string(),
            format!("const {c} mean = block_sum(sm, sh) / ({c})n;"),
            "{ const CT d = x - mean; sq += d * d; }".replace("CT", c),
            format!("const {c} rstd = ({c})1 / {sqrt}(block_sum(sq, sh) / ({c})n + eps);"),
            "(x - mean) * rstd".to_string(),
        ),
        RowKind::RmsNorm => (
            "sm += x * x;".to_string(),
            format!("const {c} rstd = ({c})1 / {sqrt}(block_sum(sm, sh) / ({c})n + eps);"),
            String::new(),
            String::new(),
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
                acc,
                format!(
                    "const {c} r = block_sum(sm, sh);\n    const {c} nrm = {root};\n    const {c} inv = ({c})1 / (nrm > eps ? nrm : eps);"
                ),
                String::new(),
                String::new(),
                "x * inv".to_string(),
            )
        }
    };
    let mut out_expr = out_expr;
    if has_w {
        out_expr = format!("({out_expr}) * {}", load("w[i]"));
    }
    if has_b {
        out_expr = format!("({out_expr}) + {}", load("b[i]"));
    }
    let store = store_conv(dtype, "y");
    let write_lse = format!(
        "if (t == 0) out[line] = {};",
        store_conv(dtype, &format!("(M + {log}(S))"))
    );
    let pass2_code = if pass2.is_empty() {
        String::new()
    } else {
        format!(
            r#"{c} sq = ({c})0;
    if (cached) {{
      #pragma unroll
      for (int k = 0; k < {items}; ++k) {{ const i64t i = t + (i64t)k * {BLOCK}; if (i < n) {{ const {c} x = v[k]; {pass2} }} }}
    }} else {{
      for (i64t i = t; i < n; i += {BLOCK}) {{ const {c} x = {x_at}; {pass2} }}
    }}
    {after2}"#
        )
    };
    let write = if kind == RowKind::LogSumExp {
        write_lse
    } else {
        format!(
            r#"if (cached) {{
      #pragma unroll
      for (int k = 0; k < {items}; ++k) {{ const i64t i = t + (i64t)k * {BLOCK}; if (i < n) {{ const {c} x = v[k]; const {c} y = {out_expr}; out[base + i * inner] = {store}; }} }}
    }} else {{
      for (i64t i = t; i < n; i += {BLOCK}) {{ const {c} x = {x_at}; const {c} y = {out_expr}; out[base + i * inner] = {store}; }}
    }}"#
        )
    };
    let body = format!(
        r#"__device__ __forceinline__ {c} block_sum({c} x, {c} *sh) {{
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(0xffffffffu, x, d);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = x;
  __syncthreads();
  {c} r = sh[0];
  #pragma unroll
  for (int k = 1; k < {warps}; ++k) r += sh[k];
  __syncthreads();
  return r;
}}
__device__ __forceinline__ {c} block_max({c} x, {c} *sh) {{
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) {{ const {c} y = __shfl_xor_sync(0xffffffffu, x, d); x = y > x ? y : x; }}
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = x;
  __syncthreads();
  {c} r = sh[0];
  #pragma unroll
  for (int k = 1; k < {warps}; ++k) r = sh[k] > r ? sh[k] : r;
  __syncthreads();
  return r;
}}
{fused_fn}extern "C" __global__ void __launch_bounds__({BLOCK}) {name}({in_param}const {s} *__restrict__ w, const {s} *__restrict__ b, {s} *__restrict__ out, i64t lines, i64t n, i64t inner, u64t eps_bits, u64t p_bits{fused_params}) {{
  __shared__ {c} sh[32];
  const int t = threadIdx.x;
  const {c} eps = ({c})__longlong_as_double((long long)eps_bits);
  const {c} p = ({c})__longlong_as_double((long long)p_bits);
  (void)eps; (void)p; (void)w; (void)b;
  const bool cached = n <= (i64t){BLOCK} * {items};
  for (i64t line = blockIdx.x; line < lines; line += gridDim.x) {{
    const i64t o = line / inner, j = line - o * inner;
    const i64t base = o * n * inner + j;
    {fused_line}
    {c} v[{items}];
    {c} mx = -{inf}, sm = ({c})0;
    (void)mx;
    if (cached) {{
      #pragma unroll
      for (int k = 0; k < {items}; ++k) {{
        const i64t i = t + (i64t)k * {BLOCK};
        v[k] = i < n ? {x_at} : ({c})0;
        if (i < n) {{ const {c} x = v[k]; {pass1} }}
      }}
    }} else {{
      for (i64t i = t; i < n; i += {BLOCK}) {{ const {c} x = {x_at}; {pass1} }}
    }}
    {after1}
    {pass2_code}
    {write}
  }}
}}
"#
    );
    KernelSource {
        name,
        source: with_prelude(&body),
    }
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
    let e = Emit {
        prog: p,
        loads: p
            .inputs
            .iter()
            .enumerate()
            .map(|(k, inp)| load_conv(inp.dtype, &format!("in{k}[b{k} + i * t{k}]")))
            .collect(),
        lin: "0".into(),
        sfx: String::new(),
    };
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
