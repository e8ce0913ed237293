//! CUDA C code generation for [`Program`]s: fused element-wise kernels and fused reductions.
//!
//! Owns the text of kernels and the layout of their parameters; it must not compile, cache or
//! launch (see `jit` and `backend::cuda`). Every kernel parameter is 8 bytes (a pointer or a
//! `unsigned long long`), so the launcher packs them as a `Vec<u64>`.
//!
//! - Strided inputs are read in place: the linear index is unravelled once per element and
//!   each strided input's offset is a dot product with its strides.
//! - Index math is 32-bit when every offset fits ([`Program::fits_i32`]).
//! - When every input and the output are contiguous and 4-element aligned, each thread handles
//!   4 consecutive elements with vector loads and stores.
//! - Reductions evaluate the producer expression inside the reduction loop (no intermediate).

use crate::dtype::{Class, DType, Scalar};
use crate::graph::{Dist, Program, Step};
use crate::jit::FastCompile;
use crate::op::{BinaryOp, ReduceOp, UnaryOp};
use std::fmt::Write;

/// Threads per block of every generated kernel.
pub(crate) const BLOCK: u32 = 256;

/// Elements per thread in the vectorised variant.
pub(crate) const VEC: usize = 4;

mod histogram;
pub(crate) mod interp;
pub(crate) mod kargs;
mod math_use;
mod operator;
mod params;
mod prelude;
mod reduction;
mod rows;
mod sampling;
mod scan;
mod signature;
mod variant;

pub(crate) use histogram::{HIST_SHARED_BYTES, HistMode, HistogramParams, histogram_kernel};
pub use math_use::{MATH_BINARY, MATH_UNARY, MathUse};
use math_use::{lib_binary, lib_unary};
pub(crate) use operator::acc_dtype;
use params::params;
pub(crate) use params::{ParamPlan, WordFrom, word_sources};
use prelude::with_prelude;
pub(crate) use prelude::{Helpers, MARKER, PHILOX_C};
pub(crate) use reduction::{
    Finish, RowAxes, WARP_ROW_MAX, column_lanes, columns_fit, combinable, reduction,
    reduction_columns, reduction_one_per_thread, reduction_warp_rows, row_lanes,
};
pub(crate) use rows::{RowArgs, RowBind, RowKind, RowShape, RowSpec, rows_kernel};
pub(crate) use sampling::{
    GAMMA_TRIES, GammaKeyedParams, GammaParams, gamma_kernel, gamma_keyed_kernel,
};
pub(crate) use scan::{
    CHUNKED_BLOCKS, COUNTER_BYTES, ChunkArgs, ChunkBind, ColumnArgs, LookBackArgs, LookBackBind,
    LookBackStatus, PipeArgs, PipeBind, PipeShape, SCAN_VEC_LONG, ScanForm, ScanKind, ScanSpec,
    SearchArgs, SearchBind, Sink, chunk_tiles, pipe_row, scan_bits_possible, scan_chunked_possible,
    scan_pipe_possible, scan_vec_possible, search_kernel,
};
pub(crate) use signature::{
    KernelParams, LaunchArgs, MaybeRead, MaybeWrite, Param, ReadBuf, SharedBuf, WriteBuf, entry,
    entry_waiting, kernel_params,
};
pub(crate) use variant::{Variant, const_words};

/// One kernel's source with the facts the JIT needs about it, carried as fields.
#[derive(Clone, Debug)]
pub(crate) struct KernelSource {
    /// The entry point.
    pub name: String,
    /// The whole text NVRTC compiles (for generated kernels: the helpers, then the body).
    pub source: String,
    /// The `--Ofast-compile` level of its optimised build; `None`: the configured one
    /// ([`crate::jit::JitConfig::fast_compile`]). Part of the option list, so of the disk key.
    pub level: Option<FastCompile>,
    /// The math library functions it calls (a quick build links them from the prebuilt
    /// library); none stated: a quick build compiles it whole.
    pub math: MathUse,
    /// Its entry point begins with [`GRID_WAIT`], before any access to global memory: it may
    /// be launched as a programmatic dependent of the kernel before it (see
    /// [`crate::jit::programmatic`]).
    pub grid_wait: bool,
}

/// The first statements of an entry point that may be launched as a programmatic dependent:
/// on compute capability 9.0 and later every thread waits until the grids the launch depends
/// on have completed and their memory operations are visible (`griddepcontrol.wait`, which
/// returns at once for a launch without the programmatic attribute), then lets the grid
/// launched after this one be scheduled (`griddepcontrol.launch_dependents`: that grid's own
/// wait still waits for the whole of this one). Below 9.0 it is empty, and such a launch is
/// never made there.
pub(crate) const GRID_WAIT: &str = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");
  asm volatile(\"griddepcontrol.launch_dependents;\" ::: \"memory\");
#endif
";

/// Whether the entry point `name` of `source` has [`GRID_WAIT`] as the first text of its
/// body (the check of the [`KernelSource::grid_wait`] facts the emitters state).
#[cfg(test)]
pub(crate) fn waits_first(source: &str, name: &str) -> bool {
    let pat = format!(" {name}(");
    for (i, _) in source.match_indices("extern \"C\" __global__") {
        let rest = &source[i..];
        // The name must be in this entry's head (before its body or the declaration's end).
        let head_end = rest.find(['{', ';']).unwrap_or(rest.len());
        let Some(at) = rest[..head_end].find(&pat) else {
            continue;
        };
        // The body opens at the first `{` after the parameter list's closing parenthesis.
        let open = at + pat.len() - 1;
        let mut depth = 0usize;
        let mut close = None;
        for (j, c) in rest[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            return false;
        };
        return rest[close + 1..]
            .trim_start()
            .strip_prefix('{')
            .is_some_and(|b| b.trim_start().starts_with(GRID_WAIT.trim_start()));
    }
    false
}

impl KernelSource {
    /// A kernel written whole (its helpers in its own text), built at the configured level.
    pub(crate) fn new(name: String, source: String) -> KernelSource {
        KernelSource {
            name,
            source,
            level: None,
            math: MathUse::default(),
            grid_wait: false,
        }
    }

    /// This kernel, stated to begin with [`GRID_WAIT`] (its emitter wrote it first in the
    /// entry point's body).
    pub(crate) fn waiting(self) -> KernelSource {
        KernelSource {
            grid_wait: true,
            ..self
        }
    }

    /// A generated kernel: the prelude's helpers `helpers`, then `body`.
    pub(crate) fn generated(name: String, body: &str, helpers: Helpers) -> KernelSource {
        KernelSource::new(name, with_prelude(body, helpers))
    }

    /// This kernel, calling the math library functions `math`.
    pub(crate) fn with_math(self, math: MathUse) -> KernelSource {
        KernelSource { math, ..self }
    }

    /// This kernel with its optimised build at `level` (for kernels that run faster so).
    pub(crate) fn at_level(self, level: FastCompile) -> KernelSource {
        KernelSource {
            level: Some(level),
            ..self
        }
    }
}

/// The C type values of `d` are computed in.
fn cty(d: DType) -> &'static str {
    d.c_compute()
}

/// The unsigned type integer arithmetic of `d` wraps in.
fn uw(d: DType) -> &'static str {
    if d.size() == 8 { "u64t" } else { "unsigned" }
}

fn int_limits(d: DType) -> (String, String) {
    match d {
        // `bool` is stored as one byte 0 or 1 (min/max reductions of bool arrays).
        DType::Bool => ("0".into(), "1".into()),
        DType::U8 => ("0".into(), "255".into()),
        DType::U16 => ("0".into(), "65535".into()),
        DType::U32 => ("0u".into(), "4294967295u".into()),
        DType::U64 => ("0ull".into(), "18446744073709551615ull".into()),
        DType::I8 => ("-128".into(), "127".into()),
        DType::I16 => ("-32768".into(), "32767".into()),
        DType::I32 => ("(-2147483647 - 1)".into(), "2147483647".into()),
        DType::I64 => (
            "(-9223372036854775807LL - 1)".into(),
            "9223372036854775807LL".into(),
        ),
        _ => unreachable!(),
    }
}

/// Rounds a freshly computed `float` back to a half type's precision.
fn round_half(d: DType, e: String) -> String {
    match d {
        DType::F16 => format!("rh({e})"),
        DType::BF16 => format!("rbf({e})"),
        _ => e,
    }
}

/// Storage value → compute value.
pub(crate) fn load_conv(d: DType, e: &str) -> String {
    match d {
        DType::F16 => format!("h2f({e})"),
        DType::BF16 => format!("bf2f({e})"),
        _ => e.to_string(),
    }
}

/// Compute value → storage value.
fn store_conv(d: DType, e: &str) -> String {
    match d {
        DType::F16 => format!("f2h({e})"),
        DType::BF16 => format!("f2bf({e})"),
        DType::Bool => format!("(unsigned char)({e} != 0)"),
        _ => e.to_string(),
    }
}

fn math(d: DType, f: &str) -> String {
    if d.class() == Class::F64 {
        f.to_string()
    } else {
        format!("{f}f")
    }
}

fn unary_expr(op: UnaryOp, d: DType, a: &str) -> String {
    use UnaryOp::*;
    let t = cty(d);
    if d.is_complex() {
        let f = match op {
            Neg => "cneg",
            Conj => "cconj",
            Abs => "cabs_",
            Arg => "carg",
            Exp => "cexp_",
            Log => "clog_",
            Sqrt => "csqrt_",
            Real => return format!("{a}.re"),
            Imag => return format!("{a}.im"),
            o => unreachable!("{o:?} on complex"),
        };
        return format!("{f}({a})");
    }
    if d.is_float() {
        let m = |f: &str| format!("{}({a})", math(d, f));
        let inf = if d.class() == Class::F64 {
            "dinf()"
        } else {
            "finf()"
        };
        let one = if d.class() == Class::F64 {
            "1.0"
        } else {
            "1.0f"
        };
        if let (Some(f), false) = (lib_unary(op), op == Sigmoid) {
            return round_half(d, m(f));
        }
        let e = match op {
            Neg => format!("(-{a})"),
            Abs => m("fabs"),
            Sign => format!("fsign({a})"),
            Floor => m("floor"),
            Ceil => m("ceil"),
            Round => m("rint"),
            Trunc => m("trunc"),
            Sqrt => m("sqrt"),
            Rsqrt => format!("({one} / {})", m("sqrt")),
            Sigmoid => format!("({one} / ({one} + {}(-{a})))", math(d, "exp")),
            IsNan => return format!("(unsigned char)({a} != {a})"),
            IsInf => return format!("(unsigned char)({} == {inf})", m("fabs")),
            IsFinite => return format!("(unsigned char)({} < {inf})", m("fabs")),
            FrexpMant => m("cu_frexpm"),
            FrexpExp => return m("cu_frexpe"),
            ModfFrac => format!(
                "{}(({} == {inf} ? ({t})0 : {a} - {}), {a})",
                math(d, "copysign"),
                m("fabs"),
                m("trunc")
            ),
            I0 => m("cu_i0"),
            SignBit if d.class() == Class::F64 => {
                return format!(
                    "(unsigned char)({a} == {a} && ((u64t)__double_as_longlong({a}) >> 63))"
                );
            }
            SignBit => {
                return format!("(unsigned char)({a} == {a} && (__float_as_uint({a}) >> 31))");
            }
            o => unreachable!("{o:?} on float"),
        };
        return round_half(d, e);
    }
    let u = uw(d);
    match op {
        Neg => neg_int(d, a),
        Abs if d == DType::I64 => format!("cu_iabs64({a})"),
        Abs if d.is_signed_int() => format!("({t})cu_iabs32((int){a})"),
        Abs => a.to_string(),
        Sign if d.is_signed_int() => format!("({t})(({a} > 0) - ({a} < 0))"),
        Sign => format!("({t})({a} != 0)"),
        BitNot => format!("({t})(~({u}){a})"),
        Not => format!("(unsigned char)({a} == 0)"),
        BitCount => format!("(unsigned char)__popcll({})", uabs64(d, a)),
        o => unreachable!("{o:?} on {d}"),
    }
}

/// The wrapping negation of integer `a` of dtype `d` (C expression). A 16-bit signed value is
/// negated in 32 bits by `neg16` (see the prelude): ptxas (CUDA 13.0, sm_90) lowers PTX's
/// `neg.s16` and `abs.s16` as 32-bit operations without sign-extending the result again, so
/// `-(-32768)` widened afterwards gave 32768 instead of -32768.
fn neg_int(d: DType, a: &str) -> String {
    if d == DType::I16 {
        format!("neg16({a})")
    } else {
        format!("({})(0 - ({}){a})", cty(d), uw(d))
    }
}

/// The magnitude of integer `a` of dtype `d` as `u64t` (C expression; `MIN`'s included).
fn uabs64(d: DType, a: &str) -> String {
    if d.is_signed_int() {
        format!("cu_uabs((i64t){a})")
    } else {
        format!("(u64t){a}")
    }
}

fn binary_expr(op: BinaryOp, d: DType, a: &str, b: &str) -> String {
    use BinaryOp::*;
    let t = cty(d);
    if d.is_complex() {
        return match op {
            Add => format!("cadd({a}, {b})"),
            Sub => format!("csub({a}, {b})"),
            Mul => format!("cmul({a}, {b})"),
            Div => format!("cdiv({a}, {b})"),
            Eq => format!("ceq({a}, {b})"),
            Ne => format!("(unsigned char)!ceq({a}, {b})"),
            o => unreachable!("{o:?} on complex"),
        };
    }
    let cmp = |o: &str| format!("(unsigned char)({a} {o} {b})");
    match op {
        Eq => return cmp("=="),
        Ne => return cmp("!="),
        Lt => return cmp("<"),
        Le => return cmp("<="),
        Gt => return cmp(">"),
        Ge => return cmp(">="),
        _ => {}
    }
    if d.is_float() {
        let e = match op {
            Add => format!("({a} + {b})"),
            Sub => format!("({a} - {b})"),
            Mul => format!("({a} * {b})"),
            Div => format!("({a} / {b})"),
            Rem => format!(
                "fmod_floor({}({a}, {b}), {b})",
                math(d, lib_binary(op).unwrap_or("fmod"))
            ),
            Fmod => format!("{}({a}, {b})", math(d, lib_binary(op).unwrap_or("fmod"))),
            Pow => format!("{}({a}, {b})", math(d, lib_binary(op).unwrap_or("pow"))),
            Min => format!("nmin({a}, {b})"),
            Max => format!("nmax({a}, {b})"),
            Atan2 => format!("{}({a}, {b})", math(d, lib_binary(op).unwrap_or("atan2"))),
            Hypot => format!("{}({a}, {b})", math(d, lib_binary(op).unwrap_or("hypot"))),
            Ldexp => format!(
                "({b} != {b} ? {a} + {b} : {}({a}, (int){}({}({b}, -2200), 2200)))",
                math(d, "ldexp"),
                math(d, "fmin"),
                math(d, "fmax")
            ),
            Nextafter => match d {
                DType::F16 => format!("cu_nexth({a}, {b})"),
                DType::BF16 => format!("cu_nextbf({a}, {b})"),
                _ => format!("{}({a}, {b})", math(d, "nextafter")),
            },
            Copysign => format!(
                "({b} != {b} ? {}({a}) : {}({a}, {b}))",
                math(d, "fabs"),
                math(d, "copysign")
            ),
            o => unreachable!("{o:?} on float"),
        };
        return round_half(d, e);
    }
    let u = uw(d);
    let signed = d.is_signed_int();
    let mask = d.bits() - 1;
    match op {
        Add => format!("({t})(({u}){a} + ({u}){b})"),
        Sub => format!("({t})(({u}){a} - ({u}){b})"),
        Mul => format!("({t})(({u}){a} * ({u}){b})"),
        Div if signed => format!("({t})floordiv_s((i64t){a}, (i64t){b})"),
        Div => format!("({b} == 0 ? ({t})0 : ({t})({a} / {b}))"),
        Rem if signed => format!("({t})floormod_s((i64t){a}, (i64t){b})"),
        Fmod if signed => {
            format!("(({b} == 0 || {b} == ({t})-1) ? ({t})0 : ({t})({a} % {b}))")
        }
        Rem | Fmod => format!("({b} == 0 ? ({t})0 : ({t})({a} % {b}))"),
        Pow if signed => format!("({t})ipow_s((i64t){a}, (i64t){b})"),
        Pow => format!("({t})ipow_u((u64t){a}, (u64t){b})"),
        Min => format!("({a} < {b} ? {a} : {b})"),
        Max => format!("({a} > {b} ? {a} : {b})"),
        And => format!("(unsigned char)(({a} != 0) && ({b} != 0))"),
        Or => format!("(unsigned char)(({a} != 0) || ({b} != 0))"),
        Xor => format!("(unsigned char)(({a} != 0) != ({b} != 0))"),
        BitAnd => format!("({t})({a} & {b})"),
        BitOr => format!("({t})({a} | {b})"),
        BitXor => format!("({t})({a} ^ {b})"),
        Shl => format!("({t})(({u}){a} << ((unsigned){b} & {mask}u))"),
        Shr => format!("({t})({a} >> ((unsigned){b} & {mask}u))"),
        Gcd => format!("({t})cu_gcd({}, {})", uabs64(d, a), uabs64(d, b)),
        Lcm => format!("({t})cu_lcm({}, {})", uabs64(d, a), uabs64(d, b)),
        o => unreachable!("{o:?} on {d}"),
    }
}

fn cast_expr(from: DType, to: DType, a: &str) -> String {
    if from == to {
        return a.to_string();
    }
    let t = cty(to);
    if to == DType::Bool {
        return if from.is_complex() {
            format!("cnz({a})")
        } else {
            format!("(unsigned char)({a} != 0)")
        };
    }
    if from.is_complex() {
        if to.is_complex() {
            let f = if to == DType::C64 { "double" } else { "float" };
            return format!("mkc(({f}){a}.re, ({f}){a}.im, ({t}*)0)");
        }
        return cast_expr(from.real(), to, &format!("{a}.re"));
    }
    if to.is_complex() {
        let f = if to == DType::C64 { "double" } else { "float" };
        let re = cast_expr(
            from,
            if to == DType::C64 {
                DType::F64
            } else {
                DType::F32
            },
            a,
        );
        return format!("mkc(({f}){re}, ({f})0, ({t}*)0)");
    }
    if from.is_float() && to.is_int() {
        let (lo, hi) = int_limits(to);
        return format!("f2i<{t}, {}>({a}, ({t}){lo}, ({t}){hi})", cty(from));
    }
    if to.is_float() {
        // Integers and floats go through f32 for the half types, as on the CPU.
        let via = if to.class() == Class::F64 {
            "double"
        } else {
            "float"
        };
        return round_half(to, format!("({via})({a})"));
    }
    format!("({t})({a})")
}

fn const_expr(c: Scalar, d: DType, k: usize) -> String {
    let p = format!("k{k}");
    match (c, d.class()) {
        (Scalar::C32(_), _) => format!(
            "mkc(__uint_as_float((unsigned)k{k}), __uint_as_float((unsigned)k{k}i), (cf32*)0)"
        ),
        (Scalar::C64(_), _) => format!(
            "mkc(__longlong_as_double((i64t)k{k}), __longlong_as_double((i64t)k{k}i), (cf64*)0)"
        ),
        (_, Class::F32) => format!("__uint_as_float((unsigned){p})"),
        (_, Class::F64) => format!("__longlong_as_double((i64t){p})"),
        _ => format!("({})({p})", cty(d)),
    }
}

/// How element values are fetched while emitting one lane.
struct Emit<'a> {
    prog: &'a Program,
    /// Per input: the C expression of its element (already converted to compute type).
    loads: Vec<String>,
    /// The C expression of the linear index (for iota and random).
    lin: String,
    sfx: String,
    /// The kernel's index space fits 32 bits (its `idx32` variant: every extent and `lin`
    /// below 2^31), so an iota's division and remainder run on 32-bit unsigned integers,
    /// several times cheaper than 64-bit ones.
    narrow: bool,
    /// In the vectorised element-wise form: the linear index of the thread's first element
    /// (a multiple of [`VEC`]) and this lane's place after it. With the last extent a
    /// multiple of [`VEC`] (see [`vectorisable_elementwise`]) the lanes share every
    /// coordinate but the last, which is the first lane's plus the lane: an iota is computed
    /// from the first lane's index, the same expression in every lane (one division per
    /// thread, shared by the lanes).
    lane: Option<(&'a str, usize)>,
    /// In a reduction computing a group of outputs together ([`reduction::OutGroup`]): which
    /// steps this emission writes and how it names their operands.
    split: Option<Split<'a>>,
}

/// One part of a program's steps split by whether they depend on a short kept axis: the steps
/// that do not are emitted once (`lane: None`, named `v{k}`), those that do once per position
/// `c` along the axis (`lane: Some(c)`, named `v{k}` with the emission's suffix), reading the
/// shared values of their operands that do not depend on it. A coordinate step along the axis
/// is the constant `c`.
#[derive(Clone, Copy)]
struct Split<'a> {
    /// Per step: whether its value depends on the axis ([`reduction::OutGroup::dependent`]).
    dep: &'a [bool],
    /// The axis.
    axis: usize,
    /// `None`: the shared steps; `Some(c)`: the dependent steps at position `c`.
    lane: Option<usize>,
}

impl<'a> Emit<'a> {
    /// Input `i`'s element read from the C expression `at(i)` (in its storage type) and
    /// converted to its compute type; `lin` the linear index, `sfx` the lane's name suffix.
    fn converted(
        prog: &'a Program,
        at: impl Fn(usize) -> String,
        lin: impl Into<String>,
        sfx: impl Into<String>,
    ) -> Self {
        Emit {
            prog,
            loads: prog
                .inputs
                .iter()
                .enumerate()
                .map(|(i, inp)| load_conv(inp.dtype, &at(i)))
                .collect(),
            lin: lin.into(),
            sfx: sfx.into(),
            narrow: false,
            lane: None,
            split: None,
        }
    }
}

fn emit_lane(e: &Emit<'_>, out: &mut String) {
    let p = e.prog;
    let nd = p.shape.len();
    // A step's name: with the suffix unless it is a shared step of a split emission.
    let named = |i: usize| match e.split {
        Some(sp) if !sp.dep[i] => format!("v{i}"),
        _ => format!("v{i}{}", e.sfx),
    };
    for (k, ins) in p.instrs.iter().enumerate() {
        let v = |i: usize| named(i);
        let d = ins.dtype;
        if let Some(sp) = e.split {
            // Shared steps in the shared part only, dependent ones in each position's part.
            if sp.dep[k] != sp.lane.is_some() {
                continue;
            }
            if let (Step::Iota(ax), Some(c)) = (ins.kind, sp.lane) {
                if ax == sp.axis {
                    let _ = writeln!(out, "    {} {} = (i64t){c};", cty(d), named(k));
                    continue;
                }
            }
        }
        let expr = match ins.kind {
            Step::Load(i) => e.loads[i].clone(),
            Step::Const(c) => const_expr(p.consts[c], d, c),
            Step::Unary(op, a) => unary_expr(op, p.instrs[a].dtype, &v(a)),
            Step::Binary(op, a, b) => binary_expr(op, p.instrs[a].dtype, &v(a), &v(b)),
            Step::Select(c, a, b) => format!("({} ? {} : {})", v(c), v(a), v(b)),
            Step::Cast(a) => cast_expr(p.instrs[a].dtype, d, &v(a)),
            Step::Gather(i, idx) => {
                let n = p.inputs[i].gather_len.unwrap_or(1).max(1);
                let _ = n;
                load_conv(
                    d,
                    &format!(
                        "in{i}[{0} < 0 ? 0 : ({0} >= (i64t)len{i} ? (i64t)len{i} - 1 : {0})]",
                        format!("(i64t){}", v(idx))
                    ),
                )
            }
            // The flag input is declared like any other (`const`, never read): the helper
            // writes through it.
            Step::Check(f, idx, n, signed) => format!(
                "check_idx_((unsigned int *)in{f}, (i64t){}, (i64t){}, {})",
                v(idx),
                v(n),
                signed as u8
            ),
            Step::Iota(ax) => {
                let ut = if e.narrow { "unsigned int" } else { "u64t" };
                let inner: Vec<String> = (ax + 1..nd).map(|j| format!("({ut})s{j}")).collect();
                let (first, lane) = match e.lane {
                    Some((first, l)) => (first, l),
                    None => (e.lin.as_str(), 0),
                };
                let lin = format!("({ut})({first})");
                // The last axis needs no division; the first needs no remainder (the linear
                // index is below the product of the extents).
                let q = if inner.is_empty() {
                    lin
                } else {
                    format!("({lin} / ({}))", inner.join(" * "))
                };
                let c = if ax == 0 {
                    format!("(i64t)({q})")
                } else {
                    format!("(i64t)({q} % ({ut})s{ax})")
                };
                if ax + 1 == nd && lane > 0 {
                    format!("({c} + {lane})")
                } else {
                    c
                }
            }
            Step::Rand(key, dist) => {
                let normal = (dist == Dist::Normal) as u8;
                if d.class() == Class::F64 {
                    format!("rand_f64(k{key}, (u64t)({}), {normal})", e.lin)
                } else {
                    format!("rand_f32(k{key}, (u64t)({}), {normal})", e.lin)
                }
            }
            Step::RandKeyed(key, dist) => {
                let normal = (dist == Dist::Normal) as u8;
                let f = if d.class() == Class::F64 {
                    "rand_f64"
                } else {
                    "rand_f32"
                };
                format!("{f}((u64t)({}), (u64t)({}), {normal})", v(key), e.lin)
            }
        };
        let _ = writeln!(out, "    {} {} = {expr};", cty(d), named(k));
    }
}

/// Unravels `lin` into coordinates and computes strided offsets; returns the code.
fn index_code(p: &Program, v: Variant, lin: &str, it: &str) -> String {
    let nd = p.shape.len();
    let any_strided = v.strided_out
        || p.inputs
            .iter()
            .any(|i| i.gather_len.is_none() && !i.layout.is_contiguous(&p.shape));
    let mut s = String::new();
    if any_strided && nd > 0 {
        let _ = writeln!(s, "    {it} r_ = {lin};");
        for d in (0..nd).rev() {
            let _ = writeln!(s, "    {it} c{d} = r_ % ({it})s{d}; r_ /= ({it})s{d};");
        }
    }
    for (i, inp) in p.inputs.iter().enumerate() {
        if inp.gather_len.is_some() {
            continue;
        }
        if inp.layout.is_contiguous(&p.shape) {
            let _ = writeln!(s, "    {it} o{i} = ({it})off{i} + {lin};");
        } else {
            let terms: Vec<String> = (0..nd)
                .map(|d| format!(" + ({it})c{d} * ({it})st{i}_{d}"))
                .collect();
            let _ = writeln!(s, "    {it} o{i} = ({it})off{i}{};", terms.concat());
        }
    }
    if v.strided_out {
        let terms: Vec<String> = (0..nd)
            .map(|d| format!(" + ({it})c{d} * ({it})ost{d}"))
            .collect();
        let _ = writeln!(s, "    {it} oo = ({it})ooff{};", terms.concat());
    }
    s
}

/// Whether the per-element work is big enough to compile once as a `__noinline__` function
/// (called by each lane) instead of inlining it per lane: keeps compile time down for long
/// chains of transcendental functions, at the cost of a call per element.
fn outline(p: &Program) -> bool {
    let heavy = p
        .instrs
        .iter()
        .filter(|i| match i.kind {
            Step::Unary(op, _) => !matches!(
                op,
                UnaryOp::Neg
                    | UnaryOp::Abs
                    | UnaryOp::Not
                    | UnaryOp::BitNot
                    | UnaryOp::Conj
                    | UnaryOp::Real
                    | UnaryOp::Imag
                    | UnaryOp::Sign
                    | UnaryOp::IsNan
            ),
            Step::Binary(op, _, _) => matches!(
                op,
                BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot | BinaryOp::Rem | BinaryOp::Fmod
            ),
            _ => false,
        })
        .count();
    heavy >= 3
}

/// The `__noinline__` value function of a vectorisable program: input values (compute types)
/// and constants in, outputs out.
fn value_fn(p: &Program) -> String {
    let mut s = String::from("struct Res_ {");
    for (o, &k) in p.outputs.iter().enumerate() {
        let _ = write!(s, " {} o{o};", cty(p.instrs[k].dtype));
    }
    s.push_str(
        " };
__device__ __noinline__ Res_ fn_(",
    );
    let mut args: Vec<String> = p
        .inputs
        .iter()
        .enumerate()
        .map(|(i, inp)| format!("{} a{i}", cty(inp.dtype)))
        .collect();
    for (k, c) in p.consts.iter().enumerate() {
        args.push(format!("u64t k{k}"));
        if matches!(c, Scalar::C32(_) | Scalar::C64(_)) {
            args.push(format!("u64t k{k}i"));
        }
    }
    s.push_str(&args.join(", "));
    s.push_str(
        ") {
",
    );
    let e = Emit {
        prog: p,
        loads: (0..p.inputs.len()).map(|i| format!("a{i}")).collect(),
        lin: "0".into(),
        sfx: String::new(),
        narrow: false,
        lane: None,
        split: None,
    };
    emit_lane(&e, &mut s);
    s.push_str("  Res_ r;");
    for (o, &k) in p.outputs.iter().enumerate() {
        let _ = write!(s, " r.o{o} = v{k};");
    }
    s.push_str(
        " return r;
}
",
    );
    s
}

/// A call of [`value_fn`] with these loaded values.
fn value_call(p: &Program, loads: &[String]) -> String {
    let mut args: Vec<String> = loads.to_vec();
    for (k, c) in p.consts.iter().enumerate() {
        args.push(format!("k{k}"));
        if matches!(c, Scalar::C32(_) | Scalar::C64(_)) {
            args.push(format!("k{k}i"));
        }
    }
    format!("fn_({})", args.join(", "))
}

/// Whether the vectorised variant is possible structurally (not counting alignment).
pub(crate) fn vectorisable(p: &Program) -> bool {
    p.inputs
        .iter()
        .all(|i| i.gather_len.is_none() && i.layout.is_contiguous(&p.shape))
        && p.instrs.iter().all(|i| {
            !matches!(
                i.kind,
                Step::Iota(_)
                    | Step::Rand(..)
                    | Step::RandKeyed(..)
                    | Step::Gather(..)
                    | Step::Check(..)
            )
        })
        && !p.shape.is_empty()
}

/// Whether the vectorised element-wise variant is possible structurally (not counting
/// alignment): [`vectorisable`], or the same with coordinates (iota steps) where the last
/// extent is a multiple of [`VEC`], so that the lanes of a thread lie in one line.
pub(crate) fn vectorisable_elementwise(p: &Program) -> bool {
    p.inputs
        .iter()
        .all(|i| i.gather_len.is_none() && i.layout.is_contiguous(&p.shape))
        && p.instrs.iter().all(|i| {
            !matches!(
                i.kind,
                Step::Rand(..) | Step::RandKeyed(..) | Step::Gather(..) | Step::Check(..)
            )
        })
        && p.shape.last().is_some_and(|&l| l % VEC == 0)
        || vectorisable(p)
}

/// The element-wise kernel of `p` (all outputs contiguous, or one strided output).
pub(crate) fn elementwise(p: &Program, v: Variant) -> KernelSource {
    let it = if v.idx32 { "int" } else { "i64t" };
    let out_d: Vec<DType> = p.outputs.iter().map(|&o| p.instrs[o].dtype).collect();
    let name = "cuprite_ew".to_string();
    let mut s = String::new();
    let outlined = v.vector && outline(p);
    if outlined {
        s.push_str(&value_fn(p));
    }
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}({}) {{",
        params(p, v, out_d.len(), &out_d)
    );
    s.push_str(GRID_WAIT);
    if v.vector {
        let _ = writeln!(
            s,
            "  {it} base = (({it})blockIdx.x * {BLOCK} + threadIdx.x) * {VEC};"
        );
        let _ = writeln!(s, "  if (base >= ({it})n) return;");
        let _ = writeln!(s, "  if (base + {VEC} <= ({it})n) {{");
        for (i, inp) in p.inputs.iter().enumerate() {
            let st = inp.dtype.c_storage();
            let _ = writeln!(
                s,
                "    VecN<{st}, {VEC}> x{i} = *reinterpret_cast<const VecN<{st}, {VEC}>*>(in{i} + off{i} + base);"
            );
        }
        for (o, d) in out_d.iter().enumerate() {
            let _ = writeln!(s, "    VecN<{0}, {VEC}> y{o};", d.c_storage());
        }
        for lane in 0..VEC {
            let loads: Vec<String> = p
                .inputs
                .iter()
                .enumerate()
                .map(|(i, inp)| load_conv(inp.dtype, &format!("x{i}.v[{lane}]")))
                .collect();
            if outlined {
                let _ = writeln!(s, "    Res_ r{lane} = {};", value_call(p, &loads));
                for o in 0..out_d.len() {
                    let _ = writeln!(
                        s,
                        "    y{o}.v[{lane}] = {};",
                        store_conv(out_d[o], &format!("r{lane}.o{o}"))
                    );
                }
                continue;
            }
            let e = Emit {
                prog: p,
                loads,
                lin: format!("(base + {lane})"),
                sfx: format!("_{lane}"),
                narrow: v.idx32,
                lane: Some(("base", lane)),
                split: None,
            };
            emit_lane(&e, &mut s);
            for (o, &k) in p.outputs.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "    y{o}.v[{lane}] = {};",
                    store_conv(out_d[o], &format!("v{k}_{lane}"))
                );
            }
        }
        for o in 0..out_d.len() {
            let _ = writeln!(
                s,
                "    *reinterpret_cast<VecN<{0}, {VEC}>*>(out{o} + base) = y{o};",
                out_d[o].c_storage()
            );
        }
        let _ = writeln!(s, "    return;\n  }}");
        let _ = writeln!(s, "  for ({it} i = base; i < ({it})n; i++) {{");
    } else {
        let _ = writeln!(s, "  {it} i = ({it})blockIdx.x * {BLOCK} + threadIdx.x;");
        let _ = writeln!(s, "  if (i >= ({it})n) return;");
        let _ = writeln!(s, "  {{");
    }
    s.push_str(&index_code(p, v, "i", it));
    // A gather's source is read at random places: its other inputs and its outputs stream
    // through L2 marked evict-first, so that L2 keeps more of the source.
    let streaming = p.instrs.iter().any(|i| matches!(i.kind, Step::Gather(..)));
    let hinted = |d: DType| streaming && !d.is_complex();
    let loads: Vec<String> = p
        .inputs
        .iter()
        .enumerate()
        .map(|(i, inp)| {
            let at = if hinted(inp.dtype) {
                format!("__ldcs(in{i} + o{i})")
            } else {
                format!("in{i}[o{i}]")
            };
            load_conv(inp.dtype, &at)
        })
        .collect();
    if outlined {
        let _ = writeln!(s, "    Res_ r = {};", value_call(p, &loads));
        for o in 0..out_d.len() {
            let _ = writeln!(
                s,
                "    out{o}[i] = {};",
                store_conv(out_d[o], &format!("r.o{o}"))
            );
        }
        s.push_str("  }\n}\n");
        return KernelSource::generated(name, &s, Helpers::of_program(p))
            .with_math(MathUse::of_program(p))
            .waiting();
    }
    let e = Emit {
        prog: p,
        loads,
        lin: "i".into(),
        sfx: String::new(),
        narrow: v.idx32,
        lane: None,
        split: None,
    };
    emit_lane(&e, &mut s);
    for (o, &k) in p.outputs.iter().enumerate() {
        let at = if v.strided_out { "oo" } else { "i" };
        let val = store_conv(out_d[o], &format!("v{k}"));
        if hinted(out_d[o]) {
            let _ = writeln!(s, "    __stcs(out{o} + {at}, {val});");
        } else {
            let _ = writeln!(s, "    out{o}[{at}] = {val};");
        }
    }
    s.push_str("  }\n}\n");
    KernelSource::generated(name, &s, Helpers::of_program(p))
        .with_math(MathUse::of_program(p))
        .waiting()
}

#[cfg(test)]
mod grid_wait_tests {
    use super::*;
    use crate::op::ReduceOp;
    use crate::{Array, Device};

    fn program() -> Program {
        let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0; 64], &[4, 16]).expect("array");
        let b = Array::<f32>::from_slice_on(Device::CPU, &[2.0; 64], &[4, 16]).expect("array");
        let y = (&a * &b).tanh() * 0.5 + &a * 0.5;
        Program::build(std::slice::from_ref(&y.node))
    }

    /// Every form of the element-wise and reduction kernels states the grid wait and has it as
    /// the first text of its entry point's body; a source without it states none.
    #[test]
    fn stated_waits_are_first() {
        let p = program();
        let mut sources = Vec::new();
        for (idx32, vector) in [(true, false), (true, true), (false, false), (false, true)] {
            let v = Variant {
                idx32,
                vector,
                strided_out: false,
            };
            sources.push(elementwise(&p, v));
            let ax = RowAxes::of(&p, 16);
            for combine in [false, true] {
                sources.push(reduction(
                    &p,
                    ReduceOp::Sum,
                    DType::F32,
                    v,
                    combine,
                    ax,
                    Finish::Plain,
                ));
            }
            if idx32 && !vector {
                sources.push(reduction_one_per_thread(
                    &p,
                    ReduceOp::Sum,
                    DType::F32,
                    v,
                    ax,
                ));
            }
        }
        for s in &sources {
            assert!(s.grid_wait, "{}", s.source);
            assert!(waits_first(&s.source, &s.name), "{}", s.source);
        }
        let plain = KernelSource::new(
            "k".into(),
            "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }".into(),
        );
        assert!(!plain.grid_wait);
        assert!(!waits_first(&plain.source, &plain.name));
        let late =
            format!("extern \"C\" __global__ void k(float* x) {{\n  x[0] = 1.0f;\n{GRID_WAIT}}}\n");
        assert!(!waits_first(&late, "k"));
    }

    /// The kernels with the wait compile with NVRTC for architectures below and at 9.0
    /// (skipped without NVRTC).
    #[test]
    fn waiting_kernels_compile_for_every_arch() {
        if cuprite_driver::nvrtc::version().is_err() {
            return;
        }
        let p = program();
        let v = Variant {
            idx32: true,
            vector: true,
            strided_out: false,
        };
        let ax = RowAxes::of(&p, 16);
        for s in [
            elementwise(&p, v),
            reduction(&p, ReduceOp::Sum, DType::F32, v, true, ax, Finish::Plain),
            reduction(&p, ReduceOp::Sum, DType::F32, v, true, ax, Finish::Divide),
        ] {
            for arch in [75, 80, 90] {
                let o = crate::jit::compile_options(arch, true);
                if let Err(e) = cuprite_driver::nvrtc::compile(&s.source, &o) {
                    panic!("sm_{arch}: {e}\n{}", s.source);
                }
            }
        }
    }
}
