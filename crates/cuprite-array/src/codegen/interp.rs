//! The interpreter: one pre-built module that evaluates any small element-wise program (and its
//! reduction) from an instruction list, so that the first use of a new expression needs no
//! NVRTC build. Its cases are emitted by the same expression emitters as the compiled kernels,
//! so both compute the same values.
//!
//! Scope: programs of at most [`MAX_INSTRS`] instructions, [`MAX_INPUTS`] inputs (any layout,
//! no gathered inputs), [`MAX_CONSTS`] constants and [`MAX_DIMS`] axes, one output, whose
//! values are all `bool`, `i32`, `i64`, `f32` or `f64`, made of loads, constants, unary and
//! binary operations, selects and casts. Everything else is built by NVRTC as before.
//!
//! Each launch passes a *frame* of 64-bit words by value (one `__grid_constant__` parameter,
//! read in place by every thread):
//!
//! | words | what |
//! |---|---|
//! | 0..8 | `n`, axes, instructions, output pointer, output dtype code, inputs, output register |
//! | 8..14 | the shape |
//! | 14, 15 | a reduction's row length and blocks per row |
//! | 16..24 | input base pointers |
//! | 24..32 | input element offsets |
//! | 32..40 | input flags (1: contiguous) |
//! | 40..88 | input strides (`MAX_DIMS` per input) |
//! | 88..104 | constants (one word each) |
//! | 104..152 | instructions |

use super::*;
use crate::op::{BinaryOp, ReduceOp, UnaryOp};
use crate::shape::numel;
use std::sync::LazyLock;

/// Instructions a program may have to be interpreted.
pub(crate) const MAX_INSTRS: usize = 48;
/// Inputs a program may have to be interpreted.
pub(crate) const MAX_INPUTS: usize = 8;
/// Constants a program may have to be interpreted.
pub(crate) const MAX_CONSTS: usize = 16;
/// Axes a program may have to be interpreted.
pub(crate) const MAX_DIMS: usize = 6;
/// Words of a frame.
pub(crate) const FRAME_WORDS: usize = 104 + MAX_INSTRS;

/// The value types the interpreter holds.
const DTYPES: [DType; 5] = [DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64];

/// The union member of a register holding a value of `d`.
fn field(d: DType) -> &'static str {
    match d {
        DType::Bool => "b",
        DType::I32 => "i",
        DType::I64 => "l",
        DType::F32 => "f",
        _ => "d",
    }
}

/// What one case of the interpreter does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Case {
    Load(DType),
    Const(DType),
    Unary(UnaryOp, DType),
    Binary(BinaryOp, DType),
    Select(DType),
    Cast(DType, DType),
}

/// Every case with its opcode (its index) and its C body.
struct Table {
    cases: Vec<(Case, String)>,
    index: crate::util::FastMap<Case, u16>,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let mut cases: Vec<(Case, String)> = Vec::new();
    for &d in &DTYPES {
        let f = field(d);
        let t = d.c_storage();
        cases.push((
            Case::Load(d),
            format!("v.{f} = ((const {t}*)F[16 + x])[at(F, x, i)];"),
        ));
        // A constant's word holds its bits (see `const_words`), read as the instruction's type.
        let e = match d {
            DType::F32 => "__uint_as_float((unsigned)F[88 + x])".to_string(),
            DType::F64 => "__longlong_as_double((i64t)F[88 + x])".to_string(),
            d => format!("({})(F[88 + x])", cty(d)),
        };
        cases.push((Case::Const(d), format!("v.{f} = {e};")));
        cases.push((
            Case::Select(d),
            format!("v.{f} = r[a].b ? r[b].{f} : r[c].{f};"),
        ));
        for op in UnaryOp::ALL {
            if let Some(out) = op.result(d) {
                if DTYPES.contains(&out) {
                    let e = unary_expr(op, d, &format!("r[a].{f}"));
                    cases.push((Case::Unary(op, d), format!("v.{} = {e};", field(out))));
                }
            }
        }
        for op in BinaryOp::ALL {
            if let Some(out) = op.result(d) {
                if DTYPES.contains(&out) {
                    let e = binary_expr(op, d, &format!("r[a].{f}"), &format!("r[b].{f}"));
                    cases.push((Case::Binary(op, d), format!("v.{} = {e};", field(out))));
                }
            }
        }
        for &to in &DTYPES {
            if to != d {
                let e = cast_expr(d, to, &format!("r[a].{f}"));
                cases.push((Case::Cast(d, to), format!("v.{} = {e};", field(to))));
            }
        }
    }
    let index = cases
        .iter()
        .enumerate()
        .map(|(i, (c, _))| (*c, i as u16))
        .collect();
    Table { cases, index }
});

/// The reductions the interpreter has a kernel for: `(operation, accumulator dtype)`.
pub(crate) fn reductions() -> impl Iterator<Item = (ReduceOp, DType)> {
    [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max]
        .into_iter()
        .flat_map(|op| {
            [DType::I32, DType::I64, DType::F32, DType::F64]
                .into_iter()
                .map(move |d| (op, d))
        })
        .filter(|&(op, d)| !(matches!(op, ReduceOp::Sum | ReduceOp::Prod) && d == DType::I32))
}

/// The name of the interpreter's reduction kernel of `op` accumulating in `acc`.
pub(crate) fn reduction_name(op: ReduceOp, acc: DType) -> String {
    format!("cuprite_interp_{op:?}_{}", field(acc)).to_lowercase()
}

/// The name of the interpreter's element-wise kernel.
pub(crate) const ELEMENTWISE_NAME: &str = "cuprite_interp_ew";

/// The instruction words of `p`, when the interpreter can run it (else `None`).
pub(crate) fn encode(p: &Program) -> Option<Vec<u64>> {
    if p.instrs.len() > MAX_INSTRS
        || p.inputs.len() > MAX_INPUTS
        || p.consts.len() > MAX_CONSTS
        || p.shape.len() > MAX_DIMS
        || p.outputs.len() != 1
        || p.inputs
            .iter()
            .any(|i| i.gather_len.is_some() || !DTYPES.contains(&i.dtype))
    {
        return None;
    }
    let t = &*TABLE;
    let mut words = Vec::with_capacity(p.instrs.len());
    for ins in &p.instrs {
        if !DTYPES.contains(&ins.dtype) {
            return None;
        }
        let (case, a, b, c, x) = match ins.kind {
            Step::Load(i) => (Case::Load(ins.dtype), 0, 0, 0, i),
            Step::Const(k) => {
                // Complex constants take two words: not interpreted.
                if matches!(p.consts[k], Scalar::C32(_) | Scalar::C64(_)) {
                    return None;
                }
                (Case::Const(ins.dtype), 0, 0, 0, k)
            }
            Step::Unary(op, a) => (Case::Unary(op, p.instrs[a].dtype), a, 0, 0, 0),
            Step::Binary(op, a, b) => (Case::Binary(op, p.instrs[a].dtype), a, b, 0, 0),
            Step::Select(c, a, b) => (Case::Select(ins.dtype), c, a, b, 0),
            Step::Cast(a) if p.instrs[a].dtype == ins.dtype => {
                // A cast to the same type: a copy (select with the same operands).
                (Case::Select(ins.dtype), a, a, a, 0)
            }
            Step::Cast(a) => (Case::Cast(p.instrs[a].dtype, ins.dtype), a, 0, 0, 0),
            Step::Gather(..)
            | Step::Check(..)
            | Step::Iota(_)
            | Step::Rand(..)
            | Step::RandKeyed(..) => return None,
        };
        let op = *t.index.get(&case)?;
        words.push(
            op as u64 | (a as u64) << 16 | (b as u64) << 24 | (c as u64) << 32 | (x as u64) << 40,
        );
    }
    Some(words)
}

/// The frame of one launch of program `p` (whose instruction words are `code`) writing through
/// `out` (the output pointer); a reduction's `(row length, blocks per row)` in `rows`.
pub(crate) fn frame(
    p: &Program,
    code: &[u64],
    in_ptrs: &[u64],
    out: u64,
    rows: (u64, u64),
) -> [u64; FRAME_WORDS] {
    let mut f = [0u64; FRAME_WORDS];
    f[14] = rows.0;
    f[15] = rows.1;
    f[0] = numel(&p.shape) as u64;
    f[1] = p.shape.len() as u64;
    f[2] = code.len() as u64;
    f[3] = out;
    f[4] = p.instrs[p.outputs[0]].dtype.code() as u64;
    f[5] = p.inputs.len() as u64;
    f[6] = p.outputs[0] as u64;
    for (d, &s) in p.shape.iter().enumerate() {
        f[8 + d] = s as u64;
    }
    for (i, inp) in p.inputs.iter().enumerate() {
        f[16 + i] = in_ptrs[i];
        f[24 + i] = inp.layout.offset as u64;
        f[32 + i] = inp.layout.is_contiguous(&p.shape) as u64;
        for (d, &s) in inp.layout.strides.iter().enumerate().take(MAX_DIMS) {
            f[40 + i * MAX_DIMS + d] = s as i64 as u64;
        }
    }
    for (k, &c) in p.consts.iter().enumerate() {
        f[88 + k] = const_words(c).next().unwrap_or(0);
    }
    f[104..104 + code.len()].copy_from_slice(code);
    f
}

/// The interpreter's CUDA source: the evaluation routine, the element-wise kernel and one
/// reduction kernel per entry of [`reductions`].
pub(crate) fn source() -> String {
    let t = &*TABLE;
    let mut s = String::new();
    let _ = writeln!(s, "struct Frame {{ u64t w[{FRAME_WORDS}]; }};");
    s.push_str(
        "union R { u64t u; double d; i64t l; float f; int i; unsigned char b; };\n\
         // Element offset of input x at linear index i.\n\
         __device__ __forceinline__ i64t at(const u64t* __restrict__ F, int x, u64t i) {\n\
         \x20 if (F[32 + x]) return (i64t)F[24 + x] + (i64t)i;\n\
         \x20 i64t o = (i64t)F[24 + x]; int nd = (int)F[1];\n\
         \x20 for (int d = nd - 1; d >= 0; d--) { u64t s = F[8 + d]; o += (i64t)(i % s) * (i64t)F[40 + x * 6 + d]; i /= s; }\n\
         \x20 return o;\n}\n",
    );
    let _ = writeln!(
        s,
        "__device__ __noinline__ R eval_prog(const u64t* __restrict__ F, u64t i) {{\n  R r[{MAX_INSTRS}];\n  int n = (int)F[2];\n  for (int pc = 0; pc < n; pc++) {{\n    u64t w = F[104 + pc];\n    int a = (int)((w >> 16) & 255), b = (int)((w >> 24) & 255), c = (int)((w >> 32) & 255), x = (int)((w >> 40) & 255);\n    R v; v.u = 0;\n    switch ((int)(w & 65535)) {{"
    );
    for (k, (_, body)) in t.cases.iter().enumerate() {
        let _ = writeln!(s, "      case {k}: {{ {body} }} break;");
    }
    let _ = writeln!(
        s,
        "      default: break;\n    }}\n    (void)a; (void)b; (void)c; (void)x;\n    r[pc] = v;\n  }}\n  return r[F[6]];\n}}"
    );
    // The element-wise kernel: grid-stride over the elements, the value stored by its dtype.
    let mut store = String::new();
    for &d in &DTYPES {
        let _ = writeln!(
            store,
            "      case {}: (({}*)F[3])[i] = {}; break;",
            d.code(),
            d.c_storage(),
            store_conv(d, &format!("v.{}", field(d)))
        );
    }
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {ELEMENTWISE_NAME}(const __grid_constant__ Frame P) {{\n  const u64t* F = P.w;\n  u64t n = F[0];\n  for (u64t i = (u64t)blockIdx.x * {BLOCK} + threadIdx.x; i < n; i += (u64t)gridDim.x * {BLOCK}) {{\n    R v = eval_prog(F, i);\n    switch ((int)F[4]) {{\n{store}      default: break;\n    }}\n  }}\n}}"
    );
    // The reductions: block `ch` of row `row` reduces elements [ch·BLOCK, (ch+1)·BLOCK) of the
    // row (one per thread), as the quick first build of a compiled reduction does.
    for (op, acc) in reductions() {
        let at = cty(acc);
        // `reductions()` holds no argmin/argmax: both are `Some`.
        let comb = super::operator::combine(op, acc, "a", "b").unwrap_or_default();
        let ident = super::operator::identity(op, acc, at).unwrap_or_default();
        let name = reduction_name(op, acc);
        let mut conv = String::new();
        for &d in &DTYPES {
            if acc.is_int() && d.is_float() {
                // Float producers reduce in a float accumulator only.
                continue;
            }
            let _ = writeln!(
                conv,
                "      case {}: x = {}; break;",
                d.code(),
                cast_expr(d, acc, &format!("v.{}", field(d)))
            );
        }
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}(const __grid_constant__ Frame P) {{\n  const u64t* F = P.w;\n  {at}* out = ({at}*)F[3];\n  u64t inner = F[14], chunks = F[15];\n  __shared__ {at} sh[{BLOCK}];\n  {at} acc = {ident};\n  u64t row = blockIdx.x / chunks, ch = blockIdx.x % chunks;\n  u64t j = ch * {BLOCK} + threadIdx.x;\n  if (j < inner) {{\n    R v = eval_prog(F, row * inner + j);\n    {at} x = {ident};\n    switch ((int)F[4]) {{\n{conv}      default: break;\n    }}\n    {at} a = acc, b = x; acc = {comb};\n  }}\n  sh[threadIdx.x] = acc; __syncthreads();\n  for (int w = {half}; w > 0; w >>= 1) {{ if (threadIdx.x < w) {{ {at} a = sh[threadIdx.x], b = sh[threadIdx.x + w]; sh[threadIdx.x] = {comb}; }} __syncthreads(); }}\n  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];\n}}",
            half = BLOCK / 2
        );
    }
    with_prelude(&s, Helpers::ALL)
}
