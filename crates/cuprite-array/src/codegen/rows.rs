//! The row-operation kernels of a library call (softmax, log_softmax, logsumexp, layer_norm,
//! rms_norm, normalize). The body is CUDA in `rows.cu`, specialised by template parameters
//! (element traits, operation, threads and registers per line, weight and bias, the line
//! source); this module chooses those parameters ([`RowSpec`]), describes the kernel's
//! parameters once ([`RowArgs`], for the signature and the launch) and, for a line read
//! through a fused element-wise producer, generates the line source the template reads from
//! (the producer evaluated where its inputs lie, in vectors where they all step by one and lie
//! aligned). Logsumexp of a realised half-precision array with lines of up to 4096 values takes
//! the template `rows_lse_packed` instead: the line held as packed 16-byte vectors, a warp or a
//! block a line. Statistics are kept in the compute type (`float` for
//! `f16`/`bf16`/`f32`, `double` for `f64`).

use super::kargs::{BufAt, CType, KernelParams, Name, Param};
use super::{BLOCK, Emit, Helpers, KernelSource, emit_lane};
use crate::dtype::DType;
use crate::graph::Program;
use crate::jit::FastCompile;
use crate::shape::Layout;
use crate::storage::DevBuf;
use std::fmt::Write;

/// The row kernels' templates (see the file's head for their parameters).
const ROWS_CU: &str = include_str!("rows.cu");

/// The most elements per thread held in registers.
pub(crate) const ROW_ITEMS: usize = 32;

/// The 16-byte vectors each thread aims to hold of a line (bytes in flight per thread), with
/// or without a weight and a bias.
const VECTORS_PER_THREAD: usize = 4;

// The block reductions' shared memory holds up to four values per warp in each 32-slot half.
const _: () = assert!(BLOCK / 32 <= 8);

/// How lines are spread over a block: `threads` threads a line (a power of two from 32 to
/// [`BLOCK`]) each holding `items` values (a power of two up to [`ROW_ITEMS`]; a line longer
/// than `threads * items` is read again instead), `lines` lines a block (1, or several warps of
/// a line each), and whether the line is held as packed 16-byte vectors (`rows_lse_packed`, for
/// logsumexp of two-byte types) instead of values (`rows_lines`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RowShape {
    pub threads: u32,
    pub items: usize,
    pub lines: u32,
    pub packed: bool,
}

/// The most threads a line of the packed logsumexp form takes.
const PACKED_THREADS: usize = 128;

/// Lines a block of the packed logsumexp form when a warp takes a line.
const WARP_LINES: u32 = 4;

impl RowShape {
    /// The shape for lines of `n` elements of `dtype`: enough threads that each holds about
    /// [`VECTORS_PER_THREAD`] 16-byte vectors (short lines take fewer threads, so more lines
    /// are in flight per SM), and the power of two of values per thread that covers the line.
    pub(crate) fn of(n: usize, dtype: DType) -> RowShape {
        let per_vec = 16 / dtype.size().max(1);
        let threads = n
            .div_ceil(VECTORS_PER_THREAD * per_vec)
            .max(1)
            .next_power_of_two()
            .clamp(64, BLOCK as usize);
        let per = n.div_ceil(threads).max(1);
        let items = if per > ROW_ITEMS {
            1
        } else {
            per.next_power_of_two()
        };
        RowShape {
            threads: threads as u32,
            items,
            lines: 1,
            packed: false,
        }
    }

    /// The shape of a `kind` call over lines of `n` elements of `dtype`, read from a realised
    /// array (`plain`) or through a fused producer. Logsumexp of a realised two-byte array
    /// whose lines fit [`PACKED_THREADS`] threads of [`VECTORS_PER_THREAD`] vectors is held
    /// packed: the power of two of threads (at least a warp) that holds the line in about
    /// [`VECTORS_PER_THREAD`] vectors a thread, the power of two of vectors that then covers it
    /// (`items` counts values), and [`WARP_LINES`] lines a block when a warp takes a line.
    /// Every other call takes [`RowShape::of`].
    pub(crate) fn for_call(kind: RowKind, n: usize, dtype: DType, plain: bool) -> RowShape {
        let per_vec = 16 / dtype.size().max(1);
        let per_thread = VECTORS_PER_THREAD * per_vec;
        if kind == RowKind::LogSumExp
            && plain
            && dtype.size() == 2
            && n <= PACKED_THREADS * per_thread
        {
            let threads = n
                .div_ceil(per_thread)
                .max(1)
                .next_power_of_two()
                .clamp(32, PACKED_THREADS);
            let vectors = n.div_ceil(threads * per_vec).max(1).next_power_of_two();
            return RowShape {
                threads: threads as u32,
                items: vectors * per_vec,
                lines: if threads == 32 { WARP_LINES } else { 1 },
                packed: true,
            };
        }
        RowShape::of(n, dtype)
    }

    /// Whether a line of `n` elements is held in registers (read once).
    pub(crate) fn holds(self, n: usize) -> bool {
        n <= self.threads as usize * self.items
    }

    /// Threads a block.
    pub(crate) fn block(self) -> u32 {
        self.threads * self.lines
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

    /// The `RowOp` constant of `rows.cu` for this kind.
    fn c_op(self) -> &'static str {
        match self {
            RowKind::Softmax => "ROW_SOFTMAX",
            RowKind::LogSoftmax => "ROW_LOG_SOFTMAX",
            RowKind::LogSumExp => "ROW_LOGSUMEXP",
            RowKind::LayerNorm => "ROW_LAYER_NORM",
            RowKind::RmsNorm => "ROW_RMS_NORM",
            RowKind::Normalize { p2: false } => "ROW_NORMALIZE",
            RowKind::Normalize { p2: true } => "ROW_NORMALIZE2",
        }
    }
}

/// The element traits of `rows.cu` for `dtype` (a float type).
fn c_traits(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "RowF16",
        DType::BF16 => "RowBF16",
        DType::F64 => "RowF64",
        _ => "RowF32",
    }
}

/// Everything a row kernel's source depends on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowSpec<'p> {
    pub kind: RowKind,
    /// The rows' dtype (a float type): of the output, the weight and the bias.
    pub dtype: DType,
    pub has_w: bool,
    pub has_b: bool,
    pub shape: RowShape,
    /// The element-wise producer of the rows and the axis along which they lie, when it is
    /// evaluated inside the kernel (no gathers, iotas, random numbers or complex values).
    pub producer: Option<(&'p Program, usize)>,
}

/// The buffers and geometry of one launch of a row kernel.
pub(crate) struct RowBind<'a> {
    /// The rows' inputs with their layouts: the one realised input (contiguous from its
    /// offset), or each input of the producer (read through its offset and strides).
    pub inputs: Vec<(&'a DevBuf, &'a Layout)>,
    pub w: Option<BufAt<'a>>,
    pub b: Option<BufAt<'a>>,
    pub out: &'a DevBuf,
    pub lines: usize,
    pub n: usize,
    pub inner: usize,
    pub eps: f64,
    pub p: f64,
}

/// A row kernel's parameters: `in` (without a producer), `w` and `b` (when present), `out`,
/// `lines`, `n`, `inner`, `eps`, `p`, then a producer's inputs (`in{k}`, `off{k}`,
/// `st{k}_{d}` per axis), its extents `s{d}` and constants `k{c}`. Element `i` of line
/// `o * inner + j` is at `(o * n + i) * inner + j`; logsumexp writes `out[line]`.
pub(crate) struct RowArgs<'a, 'p> {
    pub spec: RowSpec<'p>,
    /// `None` for the signature.
    pub bind: Option<RowBind<'a>>,
}

impl<'a> KernelParams<'a> for RowArgs<'a, '_> {
    fn each_param(&self, f: &mut dyn FnMut(Param<'a>)) {
        let s = &self.spec;
        let b = self.bind.as_ref();
        let dtype = s.dtype;
        if s.producer.is_none() {
            let at = b.and_then(|b| b.inputs.first()).map(|&(buf, l)| BufAt {
                buf,
                elem: l.offset,
            });
            f(Param::Read {
                name: Name::Fixed("in"),
                ty: CType::Of(dtype),
                at,
            });
        }
        if s.has_w {
            let at = b.and_then(|b| b.w);
            f(Param::Read {
                name: Name::Fixed("w"),
                ty: CType::Of(dtype),
                at,
            });
        }
        if s.has_b {
            let at = b.and_then(|b| b.b);
            f(Param::Read {
                name: Name::Fixed("b"),
                ty: CType::Of(dtype),
                at,
            });
        }
        let at = b.map(|b| BufAt::start(b.out));
        f(Param::Write {
            name: Name::Fixed("out"),
            ty: CType::Of(dtype),
            at,
        });
        let word = |g: fn(&RowBind<'a>) -> usize| b.map_or(0, |b| g(b) as i64);
        f(Param::I64(Name::Fixed("lines"), word(|b| b.lines)));
        f(Param::I64(Name::Fixed("n"), word(|b| b.n)));
        f(Param::I64(Name::Fixed("inner"), word(|b| b.inner)));
        f(Param::F64(Name::Fixed("eps"), b.map_or(0.0, |b| b.eps)));
        f(Param::F64(Name::Fixed("p"), b.map_or(0.0, |b| b.p)));
        if let Some((prog, _)) = s.producer {
            producer_params(prog, b.map(|b| b.inputs.as_slice()), f);
        }
    }
}

/// The parameters of a fused producer `prog`, with the inputs' buffers and layouts at a
/// launch.
fn producer_params<'a>(
    prog: &Program,
    inputs: Option<&[(&'a DevBuf, &'a Layout)]>,
    f: &mut dyn FnMut(Param<'a>),
) {
    let nd = prog.shape.len();
    for (k, inp) in prog.inputs.iter().enumerate() {
        let bound = inputs.and_then(|v| v.get(k));
        f(Param::Read {
            name: Name::Nth("in", k),
            ty: CType::Of(inp.dtype),
            at: bound.map(|&(buf, _)| BufAt::start(buf)),
        });
        f(Param::I64(
            Name::Nth("off", k),
            bound.map_or(0, |(_, l)| l.offset as i64),
        ));
        for d in 0..nd {
            let st = bound.and_then(|(_, l)| l.strides.get(d).copied());
            f(Param::I64(
                Name::Nth2("st", k, d),
                st.map_or(0, |s| s as i64),
            ));
        }
    }
    for (d, &e) in prog.shape.iter().enumerate() {
        f(Param::I64(Name::Nth("s", d), e as i64));
    }
    for (c, &v) in prog.consts.iter().enumerate() {
        let w = super::const_words(v).next().unwrap_or(0);
        f(Param::U64(Name::Nth("k", c), w));
    }
}

impl RowSpec<'_> {
    /// The kernel's entry point name (a fused producer's kernels each have their own, so that
    /// batched compilation can put them side by side).
    fn entry_name(&self) -> String {
        let mut name = format!(
            "cuprite_{}{}_{}{}{}_t{}_r{}",
            self.kind.name(),
            if self.kind == (RowKind::Normalize { p2: true }) {
                "2"
            } else {
                ""
            },
            self.dtype.name(),
            if self.has_w { "_w" } else { "" },
            if self.has_b { "_b" } else { "" },
            self.shape.threads,
            self.shape.items,
        );
        if self.shape.packed {
            let _ = write!(name, "_pk{}", self.shape.lines);
        }
        if let Some((prog, ax)) = self.producer {
            let kind = crate::jit::KernelKind::RowProducer { axis: ax };
            let _ = write!(name, "_fused_{:016x}", prog.structure_hash(&kind));
        }
        name
    }

    /// Blocks of [`BLOCK`] threads that must fit on an SM at once (the register budget):
    /// fewer as a thread holds more values. With a weight or a bias, two blocks leave a thread
    /// of more than 16 held values room for the next line's vectors, the weight's and the
    /// bias's without spilling; so do softmax and log_softmax, whose exponentials and next
    /// line's vectors are live together (at three blocks they spill).
    fn min_blocks(&self) -> usize {
        let value_regs = self.shape.items * if self.dtype == DType::F64 { 2 } else { 1 };
        let exps = matches!(self.kind, RowKind::Softmax | RowKind::LogSoftmax);
        match value_regs {
            0..=16 => 4,
            _ if self.has_w || self.has_b || exps => 2,
            17..=32 => 3,
            _ => 2,
        }
    }

    /// The entry point's `__launch_bounds__` list and its call of the `rows.cu` template that
    /// does the work, reading the lines from `source`: `rows_lse_packed` for the packed form,
    /// `rows_lines` otherwise (blocks of [`BLOCK`] threads, [`Self::min_blocks`] of them on an
    /// SM at once).
    fn instance(&self, source: &str) -> (String, String) {
        let tr = c_traits(self.dtype);
        let sh = self.shape;
        if sh.packed {
            let vectors = sh.items / (16 / self.dtype.size());
            return (
                sh.block().to_string(),
                format!(
                    "rows_lse_packed<{tr}, {threads}, {vectors}, {lines}>({source}, out, lines, n, \
                     inner, eps, p)",
                    threads = sh.threads,
                    lines = sh.lines
                ),
            );
        }
        let (w, b) = (
            if self.has_w { "w" } else { "nullptr" },
            if self.has_b { "b" } else { "nullptr" },
        );
        (
            format!("{BLOCK}, {}", self.min_blocks()),
            format!(
                "rows_lines<{tr}, {op}, {threads}, {items}, {hw}, {hb}, {stream}>({source}, {w}, {b}, \
                 out, lines, n, inner, eps, p)",
                op = self.kind.c_op(),
                threads = sh.threads,
                items = sh.items,
                hw = self.has_w,
                hb = self.has_b,
                stream = self.stream(),
            ),
        )
    }

    /// Whether contiguous aligned lines may take the streaming form: lines read through a
    /// fused producer do not (their sources are generated per input).
    fn stream(&self) -> bool {
        self.producer.is_none()
    }
}

/// The row kernel of `spec`: `rows.cu`, the fused producer's line source (when there is
/// one) and an entry point that instantiates `rows_lines` with the parameters of [`RowArgs`].
pub(crate) fn rows_kernel(spec: RowSpec<'_>) -> KernelSource {
    let name = spec.entry_name();
    let sig = RowArgs { spec, bind: None }.signature();
    let c = spec.dtype.c_compute();
    let (source_struct, source) = match spec.producer {
        Some((prog, ax)) => (
            producer_source(prog, ax, c, 16 / spec.dtype.size()),
            producer_init(prog),
        ),
        None => (
            String::new(),
            format!("PlainRows<{}>{{in, n, inner}}", c_traits(spec.dtype)),
        ),
    };
    let mut body = String::with_capacity(ROWS_CU.len() + source_struct.len() + 512);
    body.push_str(ROWS_CU);
    body.push_str(&source_struct);
    let (bounds, call) = spec.instance(&source);
    let _ = write!(
        body,
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {name}({sig}) {{\n  {call};\n}}\n"
    );
    // The traits of every float type are in `rows.cu`, so the half helpers always are.
    let mut helpers = Helpers::of_dtype(DType::F16);
    if let Some((prog, _)) = spec.producer {
        helpers = helpers | Helpers::of_program(prog);
    }
    let source = KernelSource::generated(name, &body, helpers);
    // Unfused softmax of `f32`/`f64` and unfused log-softmax are built at
    // `--Ofast-compile=min`, where they run faster (docs/perf-log/); the other row kernels
    // (the half types' softmax among them), and fused lines, fully optimised.
    let half_softmax = spec.kind == RowKind::Softmax && spec.dtype.size() == 2;
    if spec.producer.is_none()
        && !half_softmax
        && matches!(spec.kind, RowKind::Softmax | RowKind::LogSoftmax)
    {
        source.at_level(FastCompile::Min)
    } else {
        source
    }
}

/// The members of a producer's line source, in the order of its parameters (the entry point
/// initialises the source from the parameters of the same names).
fn producer_members(p: &Program) -> Vec<(String, String)> {
    let mut m = Vec::new();
    let nd = p.shape.len();
    for (k, inp) in p.inputs.iter().enumerate() {
        m.push((
            format!("const {} *__restrict__", inp.dtype.c_storage()),
            format!("in{k}"),
        ));
        m.push(("i64t".into(), format!("off{k}")));
        for d in 0..nd {
            m.push(("i64t".into(), format!("st{k}_{d}")));
        }
    }
    for d in 0..nd {
        m.push(("i64t".into(), format!("s{d}")));
    }
    for c in 0..p.consts.len() {
        m.push(("u64t".into(), format!("k{c}")));
    }
    m
}

/// `RowSrc_{in0, off0, ...}`: the producer's line source from the entry point's parameters.
fn producer_init(p: &Program) -> String {
    let names: Vec<String> = producer_members(p).into_iter().map(|(_, n)| n).collect();
    format!("RowSrc_{{{}}}", names.join(", "))
}

/// The line source `RowSrc_` of a producer `p` whose lines lie along axis `ax`, values in the
/// compute type `c`, `vec` values per 16-byte vector of the rows (the interface of
/// `PlainRows` in `rows.cu`). A line holds each input's pointer, its base `b{k}` for the line
/// and its step `t{k}` along it, and the constants.
fn producer_source(p: &Program, ax: usize, c: &str, vec: usize) -> String {
    let ins = p.inputs.len();
    let mut s = String::from("struct RowSrc_ {\n  static constexpr bool PLAIN = false;\n");
    for (ty, name) in producer_members(p) {
        let _ = writeln!(s, "  {ty} {name};");
    }
    s.push_str("  struct Line {\n");
    let mut fields = Vec::new();
    for (k, inp) in p.inputs.iter().enumerate() {
        let _ = writeln!(
            s,
            "    const {} *__restrict__ in{k}; i64t b{k}, t{k};",
            inp.dtype.c_storage()
        );
        fields.push(format!("in{k}, b{k}, t{k}"));
    }
    for k in 0..p.consts.len() {
        let _ = writeln!(s, "    u64t k{k};");
        fields.push(format!("k{k}"));
    }
    let out = p.outputs[0];
    for (f, step) in [("at", " * t"), ("at1", "")] {
        let _ = writeln!(s, "    __device__ __forceinline__ {c} {f}(i64t i) const {{");
        let e = Emit::converted(
            p,
            |k| {
                let t = if step.is_empty() {
                    String::new()
                } else {
                    format!("{step}{k}")
                };
                format!("in{k}[b{k} + i{t}]")
            },
            "0",
            "",
        );
        emit_lane(&e, &mut s);
        let _ = writeln!(s, "      return ({c})v{out};\n    }}");
    }
    let unit: Vec<String> = (0..ins).map(|k| format!(" && t{k} == 1")).collect();
    let _ = writeln!(
        s,
        "    __device__ __forceinline__ bool unit() const {{ return true{}; }}",
        unit.concat()
    );
    let aligned: Vec<String> = p
        .inputs
        .iter()
        .enumerate()
        .map(|(k, inp)| {
            let align = (vec * inp.dtype.size()).min(16);
            format!(
                " && ((unsigned long long)(in{k} + b{k}) & {}) == 0",
                align - 1
            )
        })
        .collect();
    let _ = writeln!(
        s,
        "    __device__ __forceinline__ bool vec_ok() const {{ return unit(){}; }}",
        aligned.concat()
    );
    s.push_str(&producer_vec(p, c, vec));
    s.push_str("  };\n");
    s.push_str(&producer_line(p, ax));
    let _ = writeln!(s, "    return Line{{{}}};\n  }}\n}};", fields.join(", "));
    s
}

/// The line source's `vec(i0, dst_)`: `dst_[r]` (`r < vec`) set to the producer's values at
/// line elements `i0 + r`, from one load of `vec` consecutive values of each input.
fn producer_vec(p: &Program, c: &str, vec: usize) -> String {
    let mut code = format!("    __device__ __forceinline__ void vec(int i0, {c} *dst_) const {{\n");
    for (k, inp) in p.inputs.iter().enumerate() {
        let bytes = vec * inp.dtype.size();
        let (word, count) = match bytes {
            0..=2 => ("unsigned short", 1),
            3..=4 => ("unsigned int", 1),
            5..=8 => ("uint2", 1),
            _ => ("uint4", bytes / 16),
        };
        let st = inp.dtype.c_storage();
        let _ = writeln!(
            code,
            "      union {{ {word} u[{count}]; {st} e[{vec}]; }} p{k}_;\n      #pragma unroll\n      for (int w_ = 0; w_ < {count}; ++w_) p{k}_.u[w_] = reinterpret_cast<const {word} *>(in{k} + b{k} + i0)[w_];"
        );
    }
    let out = p.outputs[0];
    for r in 0..vec {
        let e = Emit::converted(p, |k| format!("p{k}_.e[{r}]"), "0", format!("_{r}"));
        emit_lane(&e, &mut code);
        let _ = writeln!(code, "      dst_[{r}] = ({c})v{out}_{r};");
    }
    code.push_str("    }\n");
    code
}

/// The head of the source's `line(o, j)`: the line's outer and inner coordinates unravelled
/// over the extents, and each input's base `b{k}` and step `t{k}` along axis `ax`.
fn producer_line(p: &Program, ax: usize) -> String {
    let nd = p.shape.len();
    let mut line = String::from("  __device__ __forceinline__ Line line(i64t o, i64t j) const {\n");
    if ax + 1 < nd {
        line.push_str("    i64t ri_ = j;\n");
    }
    if ax > 0 {
        line.push_str("    i64t ro_ = o;\n");
    }
    // The outermost coordinate of each side is what remains (`o < s0 * .. * s{ax-1}`, `j`
    // below the extents after `ax`): no division for it.
    for d in (ax + 1..nd).rev() {
        if d == ax + 1 {
            let _ = writeln!(line, "    const i64t c{d} = ri_;");
        } else {
            let _ = writeln!(line, "    const i64t c{d} = ri_ % s{d}; ri_ /= s{d};");
        }
    }
    for d in (0..ax).rev() {
        if d == 0 {
            let _ = writeln!(line, "    const i64t c{d} = ro_;");
        } else {
            let _ = writeln!(line, "    const i64t c{d} = ro_ % s{d}; ro_ /= s{d};");
        }
    }
    for k in 0..p.inputs.len() {
        let terms: String = (0..nd)
            .filter(|&d| d != ax)
            .map(|d| format!(" + c{d} * st{k}_{d}"))
            .collect();
        let _ = writeln!(
            line,
            "    const i64t b{k} = off{k}{terms}; const i64t t{k} = st{k}_{ax};"
        );
    }
    line.push_str("    (void)o; (void)j;\n");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_cover_their_lines() {
        let cases = [
            (4096, DType::F32, 256, 16),
            (4096, DType::BF16, 128, 32),
            (4096, DType::F64, 256, 16),
            (1024, DType::F32, 64, 16),
            (1, DType::F16, 64, 1),
            (8192, DType::BF16, 256, 32),
            (20000, DType::F32, 256, 1),
        ];
        for (n, d, threads, items) in cases {
            let s = RowShape::of(n, d);
            assert_eq!((s.threads, s.items), (threads, items), "{n} of {d}");
        }
        for n in 1..3000 {
            for d in [DType::F16, DType::F32, DType::F64] {
                let s = RowShape::of(n, d);
                // A line is held whole, or it is longer than the most a block holds.
                assert!(s.holds(n) || (s.items == 1 && n > BLOCK as usize * ROW_ITEMS));
                assert!(s.threads.is_power_of_two() && (64..=BLOCK).contains(&s.threads));
            }
        }
    }

    #[test]
    fn half_logsumexp_is_held_packed() {
        let cases = [
            (1, 32, 8, 4),
            (8, 32, 8, 4),
            (256, 32, 8, 4),
            (257, 32, 16, 4),
            (1000, 32, 32, 4),
            (1024, 32, 32, 4),
            (1025, 64, 32, 1),
            (2048, 64, 32, 1),
            (4000, 128, 32, 1),
            (4096, 128, 32, 1),
        ];
        for (n, threads, items, lines) in cases {
            for d in [DType::F16, DType::BF16] {
                let s = RowShape::for_call(RowKind::LogSumExp, n, d, true);
                assert_eq!(
                    (s.threads, s.items, s.lines),
                    (threads, items, lines),
                    "{n}"
                );
                assert!(s.packed && s.holds(n));
                assert!(s.threads == 32 || s.lines == 1);
            }
        }
        // Longer lines, other types, other kinds and fused producers hold values.
        let held = [
            (RowKind::LogSumExp, 4097, DType::BF16, true),
            (RowKind::LogSumExp, 4096, DType::F32, true),
            (RowKind::LogSumExp, 4096, DType::BF16, false),
            (RowKind::Softmax, 4096, DType::BF16, true),
        ];
        for (kind, n, d, plain) in held {
            let s = RowShape::for_call(kind, n, d, plain);
            assert_eq!(s, RowShape::of(n, d), "{kind:?} {n} {d}");
            assert!(!s.packed);
        }
    }

    #[test]
    fn entry_passes_every_parameter_of_its_signature() {
        let kinds = [
            RowKind::Softmax,
            RowKind::LogSoftmax,
            RowKind::LogSumExp,
            RowKind::LayerNorm,
            RowKind::RmsNorm,
            RowKind::Normalize { p2: false },
            RowKind::Normalize { p2: true },
        ];
        for kind in kinds {
            assert!(ROWS_CU.contains(&format!("{} =", kind.c_op())), "{kind:?}");
            let packed = RowShape::for_call(kind, 4096, DType::BF16, true);
            let forms = [
                (false, false, RowShape::of(4096, DType::BF16)),
                (true, true, RowShape::of(4096, DType::BF16)),
                (false, false, packed),
            ];
            for (has_w, has_b, shape) in forms {
                let spec = RowSpec {
                    kind,
                    dtype: DType::BF16,
                    has_w,
                    has_b,
                    shape,
                    producer: None,
                };
                let sig = RowArgs { spec, bind: None }.signature();
                let src = rows_kernel(spec).source;
                let entry = src
                    .split("extern \"C\" __global__")
                    .nth(1)
                    .expect("an entry point");
                assert!(entry.contains(&sig), "{sig}\n{entry}");
                let template = if shape.packed {
                    "rows_lse_packed<"
                } else {
                    "rows_lines<"
                };
                let call = entry.split(template).nth(1).expect("the template call");
                for decl in sig.split(", ") {
                    let name = decl.rsplit([' ', '*']).next().unwrap_or("");
                    assert!(call.contains(name), "`{name}` not passed in {call}");
                }
                assert_eq!(call.contains(" w,"), has_w);
                assert_eq!(call.contains(" b,"), has_b);
            }
        }
    }
}
