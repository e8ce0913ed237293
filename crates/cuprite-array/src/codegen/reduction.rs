//! Reduction kernels: a fused element-wise program reduced along rows, in one or two passes.

use super::operator::{self, acc_dtype, identity};
use super::*;

/// The reduction kernel: block `b` reduces row `b / chunks`, elements
/// `[(b % chunks) · per, ...)` of `inner`, writing `out[b]` (a partial when `chunks > 1`).
///
/// With `combine` (not argmin/argmax), the kernel takes two more parameters after `chunks`: the
/// partials (`acc_dtype` × blocks) and one 32-bit counter per row, zero on entry. Block `b`
/// writes its partial to `part[b]`; the last block of a row to finish (counted on the row's
/// counter) combines the row's partials in order into `out[row]` (of `out_d`) and sets the
/// counter back to zero, so one launch does what two passes do, with the same result.
pub(crate) fn reduction(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
    combine: bool,
) -> KernelSource {
    debug_assert!(!combine || combinable(op));
    reduction_kernel(p, op, out_d, v, Form::Looping, combine)
}

/// Rows of at most this many elements reduce by [`reduction_warp_rows`] where the launch
/// would otherwise give each row a whole block (argmin/argmax, or rows too short to split).
pub(crate) const WARP_ROW_MAX: usize = 1024;

/// A reduction with one warp per row: block `b` reduces rows `[b · BLOCK/32, (b + 1) ·
/// BLOCK/32)`, each lane sweeping every 32nd element of its row and the warp combining its
/// lanes in shared memory (in lane order, so ties of argmin/argmax keep the first index). It
/// takes the same parameters as [`reduction`], `chunks` holding the number of rows, and is
/// launched with `⌈rows / (BLOCK/32)⌉` blocks; it writes one result per row in `out_d`.
pub(crate) fn reduction_warp_rows(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
) -> KernelSource {
    debug_assert!(!v.vector);
    reduction_kernel(p, op, out_d, v, Form::WarpRows, false)
}

/// How the threads of a reduction kernel share the rows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Blocks sweep their row's tiles grid-stride.
    Looping,
    /// One element per thread (the quick first build).
    OnePerThread,
    /// One warp per row.
    WarpRows,
}

/// Whether a reduction can take [`reduction`]'s `combine` form: not argmin/argmax. The
/// partials are read from L2 (`__ldcg`; `cldcg` for a complex accumulator) because another
/// block of the SM may have brought a line of them into L1 before they were all written.
pub(crate) fn combinable(op: ReduceOp) -> bool {
    !op.is_arg()
}

/// The quick first build of a [`reduction`] with 32-bit indices (not argmin/argmax): the same
/// parameters, but each thread takes at most one element (block `ch` of a row reduces elements
/// `[ch · BLOCK, (ch + 1) · BLOCK)`), so it must be launched with `chunks = ⌈inner / BLOCK⌉`
/// and its partials combined. No loop around the producer: NVRTC builds it in about two thirds
/// of the time of the looping form.
pub(crate) fn reduction_one_per_thread(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
) -> KernelSource {
    debug_assert!(v.idx32 && !v.vector && !op.is_arg());
    reduction_kernel(p, op, out_d, v, Form::OnePerThread, false)
}

/// What every part of a reduction kernel's text depends on.
struct Red<'a> {
    p: &'a Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
    /// The producer's dtype.
    src_d: DType,
    /// The accumulator's dtype (the producer's for argmin/argmax, with an index beside it).
    acc_d: DType,
    /// The C index type.
    it: &'static str,
    /// Whether the vector form evaluates the producer through an outlined value function.
    outlined: bool,
}

impl Red<'_> {
    fn arg(&self) -> bool {
        self.op.is_arg()
    }

    /// The accumulator's C type.
    fn acc_t(&self) -> String {
        if self.arg() {
            "AccArg".to_string()
        } else {
            cty(self.acc_d).to_string()
        }
    }

    /// The accumulator type (argmin/argmax) and its `comb`; for the NaN-ignoring
    /// arg-reductions also `acc_of`, the accumulator of one element.
    fn combine_fn(&self) -> String {
        let (op, acc_d) = (self.op, self.acc_d);
        let at = cty(acc_d);
        if self.arg() && op.skips_nan() {
            // A NaN element enters as the empty accumulator (index -1), so no NaN reaches
            // `comb`; ties keep the lower index.
            let better = if op.is_min() { "<" } else { ">" };
            return format!(
                "struct AccArg {{ {at} v; i64t i; }};\n__device__ __forceinline__ AccArg acc_of({at} v, i64t i) {{ return AccArg{{ v, v != v ? (i64t)-1 : i }}; }}\n__device__ __forceinline__ AccArg comb(AccArg a, AccArg b) {{\n  if (a.i < 0) return b; if (b.i < 0) return a;\n  if (b.v {better} a.v || (b.v == a.v && b.i < a.i)) return b; return a;\n}}\n"
            );
        }
        if self.arg() {
            // NaN counts as the most extreme value; ties keep the lower index.
            let better = if op.is_min() { "<" } else { ">" };
            return format!(
                "struct AccArg {{ {at} v; i64t i; }};\n__device__ __forceinline__ AccArg comb(AccArg a, AccArg b) {{\n  if (a.i < 0) return b; if (b.i < 0) return a;\n  bool an = a.v != a.v, bn = b.v != b.v;\n  if (an || bn) return (an && (!bn || a.i < b.i)) ? a : ((bn && !an) ? b : (a.i < b.i ? a : b));\n  if (b.v {better} a.v || (b.v == a.v && b.i < a.i)) return b; return a;\n}}\n"
            );
        }
        let comb = operator::combine(op, acc_d, "a", "b").unwrap_or_default();
        format!("__device__ __forceinline__ {at} comb({at} a, {at} b) {{ return {comb}; }}\n")
    }

    /// The accumulator's identity.
    fn ident(&self) -> String {
        let at = cty(self.acc_d);
        identity(self.op, self.acc_d, at).unwrap_or_else(|| format!("AccArg{{ ({at})0, -1 }}"))
    }

    /// The producer's value `x` at row element `idx` as an accumulator element.
    fn to_acc(&self, x: &str, idx: &str) -> String {
        use ReduceOp::*;
        match self.op {
            NanArgMin | NanArgMax => format!("acc_of({x}, (i64t)({idx}))"),
            ArgMin | ArgMax => format!("AccArg{{ {x}, (i64t)({idx}) }}"),
            Any | All => format!(
                "(unsigned char)({})",
                if self.src_d.is_complex() {
                    format!("cnz({x})")
                } else {
                    format!("{x} != 0")
                }
            ),
            _ => cast_expr(self.src_d, self.acc_d, x),
        }
    }

    /// One group of the vector form's tiles (`units`): a 16-byte load per thread and input
    /// for each, then each lane's value combined into `acc`.
    fn vector_group(&self, s: &mut String, units: &[usize]) {
        let (p, it) = (self.p, self.it);
        let tile = BLOCK as usize * VEC;
        for &u in units {
            let _ = writeln!(
                s,
                "    {it} jj{u} = t * {tile} + ({it})threadIdx.x * {VEC} + {u} * step;"
            );
            let _ = writeln!(s, "    {it} base{u} = row * ({it})inner + jj{u};");
            for (i, inp) in p.inputs.iter().enumerate() {
                let st = inp.dtype.c_storage();
                let _ = writeln!(
                    s,
                    "    VecN<{st}, {VEC}> x{i}_{u} = *reinterpret_cast<const VecN<{st}, {VEC}>*>(in{i} + off{i} + base{u});"
                );
            }
        }
        for &u in units {
            for lane in 0..VEC {
                let loads: Vec<String> = p
                    .inputs
                    .iter()
                    .enumerate()
                    .map(|(i, inp)| load_conv(inp.dtype, &format!("x{i}_{u}.v[{lane}]")))
                    .collect();
                let idx = format!("jj{u} + {lane}");
                if self.outlined {
                    let _ = writeln!(
                        s,
                        "    acc = comb(acc, {});",
                        self.to_acc(&format!("{}.o0", value_call(p, &loads)), &idx)
                    );
                    continue;
                }
                let e = Emit {
                    prog: p,
                    loads,
                    lin: format!("(base{u} + {lane})"),
                    sfx: format!("_{u}_{lane}"),
                    narrow: false,
                    lane: None,
                };
                emit_lane(&e, s);
                let k = p.outputs[0];
                let _ = writeln!(
                    s,
                    "    acc = comb(acc, {});",
                    self.to_acc(&format!("v{k}_{u}_{lane}"), &idx)
                );
            }
        }
    }

    /// The vector form's sweep over whole tiles of `BLOCK * VEC` elements (the rest is left to
    /// the scalar loop, from `start`).
    fn vector_tiles(&self, s: &mut String) {
        let it = self.it;
        let tile = BLOCK as usize * VEC;
        let _ = writeln!(s, "  {it} ntiles = ({it})inner / {tile};");
        let _ = writeln!(s, "  {it} step = nch * {tile};");
        let _ = writeln!(s, "  {it} t = ch;");
        // Four tiles per iteration when the producer is light (loads in flight), else two.
        let units: &[usize] = if self.outlined {
            &[0, 1]
        } else {
            &[0, 1, 2, 3]
        };
        let _ = writeln!(
            s,
            "  for (; t + {} * nch < ntiles; t += {} * nch) {{",
            units.len() - 1,
            units.len()
        );
        self.vector_group(s, units);
        let _ = writeln!(s, "  }}");
        let _ = writeln!(s, "  for (; t < ntiles; t += nch) {{");
        self.vector_group(s, &[0]);
        let _ = writeln!(s, "  }}");
        let _ = writeln!(s, "  start = ntiles * {tile};");
    }

    /// The scalar sweep (or, `one_per_thread`, the one element of each thread).
    fn scalar_loop(&self, s: &mut String, form: Form) {
        let (p, it) = (self.p, self.it);
        let one_per_thread = form == Form::OnePerThread;
        if form == Form::WarpRows {
            let _ = writeln!(
                s,
                "  for ({it} j = ({it})lane_; j < ({it})inner; j += 32) {{"
            );
        } else if one_per_thread {
            let _ = writeln!(
                s,
                "  {{ {it} j = ch * {BLOCK} + ({it})threadIdx.x; if (j < ({it})inner) {{"
            );
        } else {
            let _ = writeln!(
                s,
                "  for ({it} j = start + ch * {BLOCK} + ({it})threadIdx.x; j < ({it})inner; j += nch * {BLOCK}) {{"
            );
        }
        let _ = writeln!(s, "    {it} i = row * ({it})inner + j;");
        s.push_str(&index_code(
            p,
            Variant {
                strided_out: false,
                ..self.v
            },
            "i",
            it,
        ));
        let e = Emit::converted(p, |i| format!("in{i}[o{i}]"), "i", "");
        emit_lane(&e, s);
        let k = p.outputs[0];
        let _ = writeln!(
            s,
            "    acc = comb(acc, {});",
            self.to_acc(&format!("v{k}"), "j")
        );
        let _ = writeln!(s, "  }}");
        if one_per_thread {
            let _ = writeln!(s, "  }}");
        }
    }

    /// The value written for a row whose accumulator is `acc`: the index of an
    /// arg-reduction (for an accumulator no element entered, 0 for argmin/argmax and -1 for
    /// their NaN-ignoring forms, whose rows of only NaNs end so), else the accumulator in the
    /// output dtype.
    fn finished(&self, acc: &str) -> String {
        if self.op.skips_nan() && self.arg() {
            format!("(i64t)({acc}.i)")
        } else if self.arg() {
            format!("(i64t)({acc}.i < 0 ? 0 : {acc}.i)")
        } else {
            store_conv(self.out_d, &cast_expr(self.acc_d, self.out_d, acc))
        }
    }

    /// The warp's tree over its 32 slots of `sh` (lane order kept), then lane 0's write of its
    /// row's result.
    fn finish_warp(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "  sh[threadIdx.x] = acc; __syncwarp();\n  for (int w = 16; w > 0; w >>= 1) {{ if (lane_ < w) sh[threadIdx.x] = comb(sh[threadIdx.x], sh[threadIdx.x + w]); __syncwarp(); }}"
        );
        let first = "sh[threadIdx.x]";
        let fin = self.finished(first);
        let _ = writeln!(s, "  if (lane_ == 0) out0[row] = {fin};");
    }

    /// The block's tree over `sh`, then the write of its result (or, `combine`, of its
    /// partial, the row's last block combining the row's partials).
    fn finish(&self, s: &mut String, combine: bool) {
        let it = self.it;
        let tree = format!(
            "  sh[threadIdx.x] = acc; __syncthreads();\n  for (int w = {} ; w > 0; w >>= 1) {{ if (threadIdx.x < w) sh[threadIdx.x] = comb(sh[threadIdx.x], sh[threadIdx.x + w]); __syncthreads(); }}\n",
            BLOCK / 2
        );
        s.push_str(&tree);
        let fin = self.finished("sh[0]");
        if !combine {
            let _ = writeln!(s, "  if (threadIdx.x == 0) out0[blockIdx.x] = {fin};");
            return;
        }
        // Publish the partial, count the block in, and let the row's last block combine.
        let _ = writeln!(s, "  __shared__ int last_;");
        let _ = writeln!(
            s,
            "  if (threadIdx.x == 0) {{ rpart_[blockIdx.x] = sh[0]; __threadfence(); last_ = atomicAdd(&rcnt_[row], 1u) + 1u == (unsigned)nch; }}"
        );
        let _ = writeln!(s, "  __syncthreads();");
        let _ = writeln!(s, "  if (!last_) return;");
        let _ = writeln!(s, "  __threadfence();");
        let _ = writeln!(s, "  acc = {};", self.ident());
        let l2_load = if self.acc_d.is_complex() {
            "cldcg"
        } else {
            "__ldcg"
        };
        let _ = writeln!(
            s,
            "  for ({it} j = ({it})threadIdx.x; j < nch; j += {BLOCK}) acc = comb(acc, {l2_load}(&rpart_[row * nch + j]));"
        );
        s.push_str(&tree);
        let _ = writeln!(
            s,
            "  if (threadIdx.x == 0) {{ out0[row] = {fin}; rcnt_[row] = 0u; }}"
        );
    }
}

fn reduction_kernel(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
    form: Form,
    combine: bool,
) -> KernelSource {
    let src_d = p.instrs[p.outputs[0]].dtype;
    let acc_d = if op.is_arg() {
        src_d
    } else {
        acc_dtype(op, src_d)
    };
    let it = if v.idx32 { "int" } else { "i64t" };
    let r = Red {
        p,
        op,
        out_d,
        v,
        src_d,
        acc_d,
        it,
        outlined: v.vector && outline(p),
    };
    let name = "cuprite_reduce".to_string();
    let mut s = r.combine_fn();
    if r.outlined {
        s.push_str(&value_fn(p));
    }
    let extra = if combine {
        format!(", {}* __restrict__ rpart_, unsigned int* rcnt_", cty(acc_d))
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}({}, u64t inner, u64t chunks{extra}) {{",
        params(p, v, 1, &[out_d])
    );
    let acc_t = r.acc_t();
    let _ = writeln!(s, "  __shared__ {acc_t} sh[{BLOCK}];");
    let _ = writeln!(s, "  {acc_t} acc = {};", r.ident());
    // Block `ch` of a row's `chunks` blocks takes every `chunks`-th tile of the row (all blocks
    // sweep the row together, grid-stride), so every block has the same work whatever the
    // number of blocks resident at once.
    if form == Form::WarpRows {
        // A warp whose row is past the last returns whole: only warp-wide barriers follow.
        let _ = writeln!(
            s,
            "  int lane_ = (int)(threadIdx.x & 31u);\n  {it} row = ({it})blockIdx.x * {} + ({it})(threadIdx.x >> 5);\n  if (row >= ({it})chunks) return;",
            BLOCK / 32
        );
    } else if v.idx32 {
        // 32-bit division (the grid and `chunks` fit): a 64-bit one is a long routine that
        // NVRTC takes noticeably longer to build.
        let _ = writeln!(
            s,
            "  int nch = (int)chunks; int row = (int)((unsigned)blockIdx.x / (unsigned)nch), ch = (int)blockIdx.x - row * nch;"
        );
    } else {
        let _ = writeln!(
            s,
            "  {it} row = ({it})(blockIdx.x / chunks), ch = ({it})(blockIdx.x % chunks), nch = ({it})chunks;"
        );
    }
    if form == Form::Looping {
        let _ = writeln!(s, "  {it} start = 0;");
    }
    if v.vector {
        r.vector_tiles(&mut s);
    }
    r.scalar_loop(&mut s, form);
    if form == Form::WarpRows {
        r.finish_warp(&mut s);
    } else {
        r.finish(&mut s, combine);
    }
    s.push_str("}\n");
    KernelSource::generated(
        name,
        &s,
        Helpers::of_program(p) | Helpers::of_dtype(out_d) | Helpers::of_dtype(acc_d),
    )
    .with_math(MathUse::of_program(p))
}
