//! CUDA sources of the scatter kernels (see [`super::call`]): one entry point per source, each a
//! grid-stride loop over the updates (or over the destination for the set-up and finishing
//! passes). Every kernel decodes an update's destination with the same `dest_of` (the index
//! normalised, clamped or wrapped as the call's mode says; anything still outside the axis is
//! skipped, so no kernel ever writes out of bounds), and the binned and fixed-point sums do
//! exactly the IEEE operations (`__dmul_rn`, `__double2ll_rn`, ...) that the CPU path in
//! `call.rs` does, so that deterministic sums have the same bits on both backends.

use super::desc::{PART_MAX, PART_SPAN, PART_TILE, Reduce, ScatterCall};
use crate::codegen::KernelSource;
use crate::dtype::DType;

/// The C type an index of `d` is read as (the call is only made with these two).
pub(super) fn idx_cty(d: DType) -> &'static str {
    if d == DType::I32 { "int" } else { "long long" }
}

/// The C type of an element moved as raw bits, by size.
fn word(size: usize) -> &'static str {
    match size {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "ulonglong2",
    }
}

/// The C type of an accumulation dtype (those the call accumulates in).
fn acc_cty(d: DType) -> &'static str {
    match d {
        DType::F32 => "float",
        DType::F64 => "double",
        DType::I32 => "int",
        DType::U32 => "unsigned int",
        DType::I64 => "long long",
        _ => "unsigned long long",
    }
}

const HEAD: &str = r#"typedef unsigned long long u64t;
typedef long long i64t;
template <typename IT>
__device__ __forceinline__ bool dest_of(const IT *idx, i64t u, i64t m, i64t K, i64t inner, i64t N,
                                        i64t idx1d, i64t mode, i64t *dst) {
  if (N <= 0) return false;
  i64t o, j, i;
  if (inner == 1 && K >= m) { o = 0; j = u; i = 0; }
  else if (inner == 1) { o = u / K; j = u - o * K; i = 0; }
  else { const i64t ki = K * inner; o = u / ki; const i64t r = u - o * ki; j = r / inner; i = r - j * inner; }
  const i64t raw = (i64t)idx[idx1d ? j : u];
  i64t t;
  if (mode == 2) { t = raw % N; if (t < 0) t += N; }
  else if (mode == 1) { t = raw < 0 ? 0 : (raw >= N ? N - 1 : raw); }
  else { t = raw < 0 ? raw + N : raw; }
  if (t < 0 || t >= N) return false;
  *dst = (o * N + t) * inner + i;
  return true;
}
__device__ __forceinline__ int ceil_log2(u64t c) { return c <= 1ull ? 0 : 64 - __clzll((i64t)(c - 1ull)); }
__device__ __forceinline__ double pow2(int e) { return __longlong_as_double((i64t)(e + 1023) << 52); }
__device__ __forceinline__ unsigned key32(unsigned b) { return (b >> 31) ? ~b : (b | 0x80000000u); }
__device__ __forceinline__ u64t key64(u64t b) { return (b >> 63) ? ~b : (b | 0x8000000000000000ull); }
"#;

/// Updates a thread takes at once in the per-update kernels (see [`update_loop`]).
const BATCH: usize = 4;

/// The loop shared by the per-update kernels. A thread takes [`BATCH`] updates at a time (one
/// grid stride apart): first it decodes every destination and runs `pre` for each valid one
/// (the loads: `decl` declares arrays indexed by `q`), so that their loads are in flight
/// together, then it runs `body` for each (`u`, `d` and `q` in scope; `continue` skips to the
/// next update). An update whose destination is outside the axis raises the flag `chk` (one
/// word, only written) when the call is checked, and is skipped (`chk` null otherwise).
fn update_loop(name: &str, it: &str, extra: &str, decl: &str, pre: &str, body: &str) -> String {
    format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(const {it} *__restrict__ idx, {extra}, i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob, unsigned int *chk) {{
  const i64t stride = (i64t)gridDim.x * blockDim.x;
  for (i64t u0 = (i64t)blockIdx.x * blockDim.x + threadIdx.x; u0 < m; u0 += {BATCH} * stride) {{
    i64t dq[{BATCH}]; bool okq[{BATCH}];
    {decl}
    #pragma unroll
    for (int q = 0; q < {BATCH}; ++q) {{
      const i64t u = u0 + q * stride;
      okq[q] = u < m && dest_of(idx, u, m, K, inner, N, idx1d, mode, &dq[q]);
      if (u < m && !okq[q] && chk) *chk = 1u;
      if (okq[q]) {{ const i64t d = dq[q]; (void)d; {pre} }}
    }}
    #pragma unroll
    for (int q = 0; q < {BATCH}; ++q) {{
      if (!okq[q]) continue;
      const i64t u = u0 + q * stride, d = dq[q];
      (void)u;
{body}
    }}
  }}
}}
"#
    )
}

/// The kernels the call launches, in launch order.
pub(super) fn sources(c: &ScatterCall) -> Vec<KernelSource> {
    let it = idx_cty(c.idx_dtype);
    let tag = format!("{}_{}_{}", c.dtype.name(), c.idx_dtype.name(), c.det as u8);
    let mut out = Vec::new();
    let mut push = |name: String, body: String| {
        out.push(KernelSource::new(
            name,
            format!("{HEAD}// ---- cuprite-array kernel ----\n{body}"),
        ))
    };
    // The copy of the base into the output.
    let w = word(c.dtype.size());
    let name = format!("cuprite_idx_copy{}", c.dtype.size());
    push(
        name.clone(),
        format!(
            r#"extern "C" __global__ void __launch_bounds__(256) {name}(const {w} *__restrict__ in, {w} *__restrict__ out, i64t n) {{
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64t)gridDim.x * blockDim.x) out[i] = in[i];
}}
"#
        ),
    );
    let fill = |name: &str| {
        format!(
            r#"extern "C" __global__ void __launch_bounds__(256) {name}(u64t *__restrict__ s, i64t n, u64t v) {{
  for (i64t i = (i64t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64t)gridDim.x * blockDim.x) s[i] = v;
}}
"#
        )
    };
    match (c.op, c.det) {
        (Reduce::Set, false) => {
            let name = format!("cuprite_idx_set_{tag}");
            let body = update_loop(
                &name,
                it,
                &format!("const {w} *__restrict__ v, {w} *__restrict__ out"),
                &format!("{w} xq[{BATCH}];"),
                "xq[q] = v[u];",
                "    out[d] = xq[q];",
            );
            push(name, body);
        }
        (Reduce::Set, true) => {
            push("cuprite_idx_fill".into(), fill("cuprite_idx_fill"));
            let name = format!("cuprite_idx_last1_{tag}");
            let body = update_loop(
                &name,
                it,
                "i64t *__restrict__ win",
                "",
                "",
                "    atomicMax(&win[d], u);",
            );
            push(name, body);
            let name = format!("cuprite_idx_last2_{tag}");
            let body = update_loop(
                &name,
                it,
                &format!(
                    "const {w} *__restrict__ v, {w} *__restrict__ out, const i64t *__restrict__ win"
                ),
                &format!("i64t wq[{BATCH}];"),
                "wq[q] = win[d];",
                "    if (wq[q] == u) out[d] = v[u];",
            );
            push(name, body);
        }
        (Reduce::Add, true) if c.bins().is_some() => {
            push("cuprite_idx_fill".into(), fill("cuprite_idx_fill"));
            let name = format!("cuprite_idx_bin_{tag}");
            push(name.clone(), binned_pass(&name, it));
            push(
                "cuprite_idx_binfin".into(),
                binned_finish("cuprite_idx_binfin"),
            );
        }
        (Reduce::Add, true) if c.dtype.is_float() => {
            push("cuprite_idx_fill".into(), fill("cuprite_idx_fill"));
            push(
                format!("cuprite_idx_fx1_{tag}"),
                fixed_pass1(&format!("cuprite_idx_fx1_{tag}"), it, c.dtype),
            );
            push(
                format!("cuprite_idx_fx2_{tag}"),
                fixed_pass2(&format!("cuprite_idx_fx2_{tag}"), it, c.dtype),
            );
            let name = format!("cuprite_idx_fx3_{}", c.dtype.name());
            push(name.clone(), fixed_finish(&name, c.dtype));
        }
        (op, _) => {
            let partitioned = c.partitions().is_some();
            let t = acc_cty(c.dtype);
            let name = format!("cuprite_idx_{}_{tag}", op.name());
            let body = match (op, c.dtype) {
                (Reduce::Add, DType::I64) => {
                    "    atomicAdd((u64t *)&out[d], (u64t)xq[q]);".to_string()
                }
                (Reduce::Add, _) => "    atomicAdd(&out[d], xq[q]);".to_string(),
                (Reduce::Max | Reduce::Min, DType::F32 | DType::F64) => {
                    float_extreme(op == Reduce::Max, c.dtype == DType::F64)
                }
                (Reduce::Max, _) => "    atomicMax(&out[d], xq[q]);".to_string(),
                _ => "    atomicMin(&out[d], xq[q]);".to_string(),
            };
            let body = update_loop(
                &name,
                it,
                &format!("const {t} *__restrict__ v, {t} *__restrict__ out"),
                &format!("{t} xq[{BATCH}];"),
                "xq[q] = v[u];",
                &body,
            );
            push(name, body);
            if partitioned {
                // After the plain atomic kernel (taken when the scratch cannot be had).
                let name = format!("cuprite_idx_part1_{tag}");
                push(name.clone(), partition_pass(&name, it));
                push(
                    "cuprite_idx_part2".into(),
                    partition_sum("cuprite_idx_part2"),
                );
            }
        }
    }
    out
}

/// Threads a block of the partitioned sum's passes.
pub(super) const PART_THREADS: usize = 512;

/// The partitioned `f32` sum's first pass (see [`ScatterCall::partitions`]): block `b` takes
/// updates `[b·T, (b+1)·T)`, ranks each within its partition `d / S` with a shared counter,
/// and writes the tile back sorted by partition: local destinations `d % S` to `ld`, values
/// to `lv`, and the partitions' start offsets (`P + 1` of them, the last the tile's count of
/// valid updates) to row `b` of `off`.
fn partition_pass(name: &str, it: &str) -> String {
    let (t, s, nt, pmax) = (PART_TILE, PART_SPAN, PART_THREADS, PART_MAX);
    let per = t / nt;
    format!(
        r#"extern "C" __global__ void __launch_bounds__({nt}, 3) {name}(const {it} *__restrict__ idx, const float *__restrict__ v, unsigned short *__restrict__ ld, float *__restrict__ lv, unsigned *__restrict__ off, i64t P, i64t m, i64t K, i64t inner, i64t N, i64t idx1d, i64t mode, i64t hglob, unsigned int *chk) {{
  __shared__ unsigned hist[{pmax} + 1];
  __shared__ float sv[{t}];
  __shared__ unsigned short sd[{t}];
  const i64t t0 = (i64t)blockIdx.x * {t};
  for (int p = threadIdx.x; p <= P; p += {nt}) hist[p] = 0u;
  __syncthreads();
  // dq: the destination (below 2^32: at most PART_MAX * PART_SPAN), ~0u when skipped.
  unsigned dq[{per}], rq[{per}]; float xq[{per}];
  #pragma unroll
  for (int q = 0; q < {per}; ++q) {{
    const i64t u = t0 + q * {nt} + threadIdx.x;
    dq[q] = ~0u;
    if (u < m) {{
      i64t d;
      xq[q] = v[u];
      if (dest_of(idx, u, m, K, inner, N, idx1d, mode, &d)) dq[q] = (unsigned)d;
      else if (chk) *chk = 1u;
    }}
  }}
  #pragma unroll
  for (int q = 0; q < {per}; ++q) if (dq[q] != ~0u) rq[q] = atomicAdd(&hist[dq[q] / {s}], 1u);
  __syncthreads();
  if (threadIdx.x < 32) {{
    const int E = (int)((P + 31) / 32), lo = threadIdx.x * E;
    unsigned sum = 0u;
    for (int e = 0; e < E; ++e) if (lo + e < P) sum += hist[lo + e];
    unsigned inc = sum;
    for (int o = 1; o < 32; o <<= 1) {{ const unsigned y = __shfl_up_sync(~0u, inc, o); if ((int)threadIdx.x >= o) inc += y; }}
    unsigned run = inc - sum;
    for (int e = 0; e < E; ++e) if (lo + e < P) {{ const unsigned c = hist[lo + e]; hist[lo + e] = run; run += c; }}
    if (threadIdx.x == 31) hist[P] = inc;
  }}
  __syncthreads();
  #pragma unroll
  for (int q = 0; q < {per}; ++q) if (dq[q] != ~0u) {{ const unsigned at = hist[dq[q] / {s}] + rq[q]; sd[at] = (unsigned short)(dq[q] % {s}); sv[at] = xq[q]; }}
  unsigned *row = off + (i64t)blockIdx.x * (P + 1);
  for (int p = threadIdx.x; p <= P; p += {nt}) row[p] = hist[p];
  __syncthreads();
  const unsigned cnt = hist[P];
  for (unsigned q = threadIdx.x; q < cnt; q += {nt}) {{ ld[t0 + q] = sd[q]; lv[t0 + q] = sv[q]; }}
}}
"#
    )
}

/// The partitioned `f32` sum's second pass: block `b` sums partition `b / KS` over the tiles
/// `r, r + KS, ...` (`r = b % KS`) into shared memory, then adds its partial sums to `out`
/// (the base already there). A warp takes 32 tiles at once, one a lane, and reads their
/// segments as one list, so that its loads are independent. The sums start at `-0.0`, the
/// identity of IEEE addition: a destination no update reached is not written.
fn partition_sum(name: &str) -> String {
    let (t, s, nt) = (PART_TILE, PART_SPAN, PART_THREADS);
    let warps = nt / 32;
    format!(
        r#"extern "C" __global__ void __launch_bounds__({nt}, 4) {name}(const unsigned short *__restrict__ ld, const float *__restrict__ lv, const unsigned *__restrict__ off, i64t tiles, i64t P, i64t KS, i64t n_out, float *out) {{
  __shared__ float acc[{s}];
  const i64t p = blockIdx.x / KS, r = blockIdx.x % KS;
  for (int i = threadIdx.x; i < {s}; i += {nt}) acc[i] = -0.0f;
  __syncthreads();
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const i64t groups = ((tiles - r + KS - 1) / KS + 31) / 32;
  for (i64t g = w; g < groups; g += {warps}) {{
    const i64t t = r + KS * (g * 32 + lane);
    unsigned s = 0u, c = 0u;
    if (t < tiles) {{ const unsigned *o = off + t * (P + 1) + p; s = o[0]; c = o[1] - s; }}
    unsigned inc = c;
    for (int o = 1; o < 32; o <<= 1) {{ const unsigned y = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += y; }}
    const unsigned total = __shfl_sync(~0u, inc, 31);
    const i64t gb = (i64t)s + t * {t} - (i64t)(inc - c);
    for (unsigned v0 = 0u; v0 < total; v0 += 128u) {{
      unsigned short a[4]; float b[4];
      #pragma unroll
      for (int q = 0; q < 4; ++q) {{
        const unsigned at = v0 + q * 32 + lane;
        int L = 0;
        #pragma unroll
        for (int st = 16; st >= 1; st >>= 1) {{ const unsigned x = __shfl_sync(~0u, inc, L + st - 1); if (x <= at) L += st; }}
        const i64t base = __shfl_sync(~0u, gb, L);
        a[q] = 0; b[q] = -0.0f;
        if (at < total) {{ a[q] = ld[base + at]; b[q] = lv[base + at]; }}
      }}
      #pragma unroll
      for (int q = 0; q < 4; ++q) if (v0 + q * 32 + lane < total) atomicAdd(&acc[a[q]], b[q]);
    }}
  }}
  __syncthreads();
  for (int i = threadIdx.x; i < {s}; i += {nt}) {{
    const i64t d = p * {s} + i;
    const float x = acc[i];
    if (d < n_out && __float_as_uint(x) != 0x80000000u) atomicAdd(&out[d], x);
  }}
}}
"#
    )
}

/// A NaN-propagating max/min by CAS on the bits, ordered by the monotone key of the bits
/// (`-0 < +0`); an update that is NaN stores the canonical quiet NaN, a NaN in place stays.
fn float_extreme(max: bool, f64: bool) -> String {
    let (u, bits, nan, key) = if f64 {
        (
            "u64t",
            "(u64t)__double_as_longlong",
            "0x7ff8000000000000ull",
            "key64",
        )
    } else {
        ("unsigned", "__float_as_uint", "0x7fc00000u", "key32")
    };
    let cmp = if max { "<=" } else { ">=" };
    format!(
        r#"    const auto x = xq[q];
    {u} *p = ({u} *)&out[d];
    if (x != x) {{ atomicExch(p, ({u}){nan}); continue; }}
    const {u} kx = {key}({bits}(x));
    {u} old = *((volatile {u} *)p);
    while (true) {{
      const {u} b = old;
      const bool old_nan = {is_nan};
      if (old_nan || kx {cmp} {key}(b)) break;
      const {u} prev = atomicCAS(p, old, {bits}(x));
      if (prev == old) break;
      old = prev;
    }}"#,
        is_nan = if f64 {
            "(b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull"
        } else {
            "(b & 0x7fffffffu) > 0x7f800000u"
        }
    )
}

/// The binned `f32` sum's one pass over the updates (see [`ScatterCall::bins`]): each finite
/// non-zero update added as an integer to bin `e / w` of its destination (bins `nd` words
/// apart), infinities and NaN recorded in the destination's flag word (1: +inf, 2: -inf, 4:
/// NaN).
fn binned_pass(name: &str, it: &str) -> String {
    update_loop(
        name,
        it,
        "const float *__restrict__ v, u64t *__restrict__ acc, u64t *__restrict__ fl, i64t nd, i64t w",
        &format!("float xq[{BATCH}];"),
        "xq[q] = v[u];",
        r#"    const unsigned bits = __float_as_uint(xq[q]);
    const unsigned a = bits & 0x7fffffffu;
    if (a >= 0x7f800000u) { atomicOr(&fl[d], a > 0x7f800000u ? 4ull : ((bits >> 31) ? 2ull : 1ull)); continue; }
    if (a == 0u) continue;
    const int ex = (int)(a >> 23);
    const u64t sig = ex ? (u64t)((a & 0x7fffffu) | 0x800000u) : (u64t)a;
    const int e = ex ? ex - 1 : 0;
    const int b = e / (int)w;
    const i64t qv = (i64t)(sig << (e - b * (int)w));
    atomicAdd(&acc[(i64t)b * nd + d], (u64t)((bits >> 31) ? -qv : qv));"#,
    )
}

/// The binned sum's finishing pass, per destination: NaN when a NaN or both infinities were
/// added, the infinity added to the base when one was, else the bins' values
/// (`bin * 2^(b*w - 149)`) summed in `f64`, lowest bin first, rounded to `f32` and added to
/// the base (untouched when the sum is exactly zero).
fn binned_finish(name: &str) -> String {
    format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}(float *__restrict__ out, const u64t *__restrict__ acc, const u64t *__restrict__ fl, i64t n, i64t w, i64t nb) {{
  for (i64t d = (i64t)blockIdx.x * blockDim.x + threadIdx.x; d < n; d += (i64t)gridDim.x * blockDim.x) {{
    const u64t f = fl[d];
    if ((f & 4ull) || f == 3ull) {{ out[d] = __uint_as_float(0x7fc00000u); continue; }}
    if (f == 1ull) {{ out[d] = __fadd_rn(out[d], __uint_as_float(0x7f800000u)); continue; }}
    if (f == 2ull) {{ out[d] = __fadd_rn(out[d], __uint_as_float(0xff800000u)); continue; }}
    double y = 0.0;
    for (i64t b = 0; b < nb; ++b) {{
      const i64t a = (i64t)__ldcs(&acc[b * n + d]);
      if (a != 0) y = __dadd_rn(y, __dmul_rn(__ll2double_rn(a), pow2((int)(b * w) - 149)));
    }}
    if (y != 0.0) out[d] = __fadd_rn(out[d], __double2float_rn(y));
  }}
}}
"#
    )
}

/// The magnitude bits, exponent bound and infinity bits of a float accumulation dtype.
fn fx_parts(d: DType) -> (&'static str, &'static str, &'static str, &'static str) {
    if d == DType::F64 {
        (
            "((u64t)__double_as_longlong(x) & 0x7fffffffffffffffull)",
            "const int ex = (int)(m >> 52); const int E = ex == 0 ? -1022 : ex - 1022;",
            "0x7ff0000000000000ull",
            "ceil_log2(cnt[d])",
        )
    } else {
        (
            "((u64t)__float_as_uint(x) & 0x7fffffffull)",
            "const int ex = (int)(m >> 23); const int E = ex == 0 ? -126 : ex - 126;",
            "0x7f800000ull",
            "(int)hglob",
        )
    }
}

/// Pass 1 of the fixed-point sum: the largest magnitude (bits) per destination, and for f64
/// the number of updates per destination. Scratch: `mx`, `acc`, `aux` (count / flags), each
/// `n` words. The atomic is skipped where the maximum read from L2 is already at least the
/// update's magnitude: maxima only grow, so a stale read costs an atomic, never a wrong
/// result, and after a destination's first few updates most of its updates need none.
fn fixed_pass1(name: &str, it: &str, d: DType) -> String {
    let (mag, _, _, _) = fx_parts(d);
    let t = acc_cty(d);
    let count = if d == DType::F64 {
        "    atomicAdd(&cnt[d], 1ull);"
    } else {
        ""
    };
    update_loop(
        name,
        it,
        &format!("const {t} *__restrict__ v, u64t *__restrict__ mx, u64t *__restrict__ cnt"),
        &format!("u64t aq[{BATCH}], cq[{BATCH}];"),
        &format!("const {t} x = v[u]; aq[q] = {mag}; cq[q] = __ldcg(&mx[d]);"),
        &format!(
            "    const u64t a = aq[q];\n    if (a != 0ull && a > cq[q]) atomicMax(&mx[d], a);\n{count}"
        ),
    )
}

/// Pass 2: each finite update quantised to an integer multiple of `2^-s` (`s` from the
/// destination's bound) and added with an integer atomic (associative: the same bits in any
/// order); infinities set a flag (1: +inf, 2: -inf).
fn fixed_pass2(name: &str, it: &str, d: DType) -> String {
    let (mag, exp, inf, h) = fx_parts(d);
    let t = acc_cty(d);
    update_loop(
        name,
        it,
        &format!(
            "const {t} *__restrict__ v, const u64t *__restrict__ mx, const u64t *__restrict__ cnt, u64t *__restrict__ acc, u64t *__restrict__ fl"
        ),
        &format!("{t} xq[{BATCH}]; u64t mq[{BATCH}];"),
        "xq[q] = v[u]; mq[q] = mx[d];",
        &format!(
            r#"    const {t} x = xq[q];
    const u64t a = {mag};
    const u64t m = mq[q];
    if (m > {inf}) continue;
    if (a == {inf}) {{ atomicOr(&fl[d], x > 0 ? 1ull : 2ull); continue; }}
    if (m == {inf} || a == 0ull) continue;
    {exp}
    const int s = 62 - ({h}) - E;
    const int s1 = s / 2, s2 = s - s1;
    const double qv = __dmul_rn(__dmul_rn((double)x, pow2(s1)), pow2(s2));
    const i64t qi = __double2ll_rn(qv);
    if (qi != 0) atomicAdd(&acc[d], (u64t)qi);"#
        ),
    )
}

/// Pass 3, per destination: `out = base + sum` (the base already in `out`), NaN when a NaN or
/// both infinities were added, the base untouched when the sum is exactly zero.
fn fixed_finish(name: &str, d: DType) -> String {
    let (_, exp, inf, fin) = fx_parts(d);
    let (t, nan, add) = if d == DType::F64 {
        (
            "double",
            "__longlong_as_double(0x7ff8000000000000ll)",
            "__dadd_rn(out[d], y)",
        )
    } else {
        (
            "float",
            "__uint_as_float(0x7fc00000u)",
            "__fadd_rn(out[d], __double2float_rn(y))",
        )
    };
    format!(
        r#"extern "C" __global__ void __launch_bounds__(256) {name}({t} *__restrict__ out, const u64t *__restrict__ mx, const u64t *__restrict__ cnt, const u64t *__restrict__ acc, const u64t *__restrict__ fl, i64t n, i64t hglob) {{
  for (i64t d = (i64t)blockIdx.x * blockDim.x + threadIdx.x; d < n; d += (i64t)gridDim.x * blockDim.x) {{
    const u64t m = mx[d];
    if (m > {inf}) {{ out[d] = {nan}; continue; }}
    if (m == {inf}) {{
      const u64t f = fl[d];
      if (f == 3ull) out[d] = {nan};
      else if (f == 1ull) {{ const double y = __longlong_as_double(0x7ff0000000000000ll); out[d] = {add}; }}
      else if (f == 2ull) {{ const double y = __longlong_as_double((i64t)0xfff0000000000000ull); out[d] = {add}; }}
      continue;
    }}
    const i64t a = (i64t)acc[d];
    if (a == 0) continue;
    {exp}
    const int s = 62 - ({fin}) - E;
    const int s1 = s / 2, s2 = s - s1;
    const double y = __dmul_rn(__dmul_rn(__ll2double_rn(a), pow2(-s1)), pow2(-s2));
    out[d] = {add};
  }}
}}
"#
    )
}
