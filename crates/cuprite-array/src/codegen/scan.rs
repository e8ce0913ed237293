//! Scan and compaction kernels that read their input through a fused element-wise
//! [`Program`] (no intermediate buffer): the program is evaluated at each element's linear index
//! inside the kernel.
//!
//! - [`scan_tiles`]: a single-pass scan with decoupled look-back (Merrill & Garland 2016). Each
//!   block takes the next tile id from an atomic counter, scans its tile (striped loads into
//!   shared memory padded against bank conflicts, a per-thread serial scan, warp shuffles, a
//!   step over the warp totals), publishes its aggregate (flag 1), looks back with one warp over
//!   the status of up to 32 predecessors at a time until it meets an inclusive prefix (flag 2),
//!   and publishes its own inclusive prefix. For accumulators of up to 4 bytes (not keyed) the
//!   flag and the value share one 64-bit status word, so one load reads both and no fence
//!   orders them; wider ones publish the value, fence, then the flag. Lines of the scanned axis
//!   are tiled independently (a line of one tile needs no look-back at all). The same kernel
//!   compacts (nonzero, masked_select): the scan of the flags gives each kept element its
//!   output position (32-bit ranks below 2^31 elements); kept elements are staged in shared
//!   memory by rank so the block writes its run of the output contiguously.
//! - [`scan_vec`] (in `vec`): the same look-back for contiguous lines whose inputs (and a
//!   scan's output) start on a vector boundary: elements in registers, loaded and stored as
//!   vectors, no shared tile; also `masked_select`. [`scan_bits`] (in `bits`): `argwhere`'s
//!   flags as bits, tiles of 16384 elements.
//! - [`scan_pipe`] (in `pipe`, body in `pipe.cu`): the same look-back for long contiguous
//!   lines of an unkeyed scan with a packed status on sm_90 to sm_103, run by persistent
//!   warp-specialised blocks: a producer warp bulk-copies tiles into a ring of shared-memory
//!   stages, a reduce squad publishes each tile's aggregate as soon as its data lands,
//!   look-back warps resolve several tiles' prefixes at once and a scan squad stores; no load
//!   waits for a look-back.
//! - [`scan_chunked`] (in `chunked`, body in `chunked.cu`): one long contiguous line of one
//!   input with a packed status, on devices with a large L2, as two passes interleaved over
//!   chunks of tiles: a tile's reduce publishes its aggregate, and its scan, a chunk later,
//!   reads the tile again from L2 and takes its prefix from aggregates published long before,
//!   so no tile waits for a look-back.
//! - [`scan_columns`]: one thread per line, for many lines along a non-innermost axis
//!   (neighbouring threads read neighbouring elements).
//! - [`search_kernel`] (in `search`): `searchsorted`, one thread per query.
//!
//! The scan operator combines its left operand before its right one everywhere, so a
//! segmented (by-key) scan, whose operator is not commutative, uses the same code.

use super::*;

mod args;
mod bits;
mod chunked;
mod pipe;
mod search;
mod vec;
use args::look_back_signature;
pub(crate) use args::{
    COUNTER_BYTES, ChunkArgs, ChunkBind, ColumnArgs, LookBackArgs, LookBackBind, LookBackStatus,
    PipeArgs, PipeBind, SearchArgs, SearchBind,
};
pub(crate) use bits::{BITS_TILE, scan_bits, scan_bits_possible};
pub(crate) use chunked::{
    CHUNKED_BLOCKS, CHUNKED_TILE, chunk_tiles, scan_chunked, scan_chunked_possible,
};
pub(crate) use pipe::{PipeShape, pipe_row, scan_pipe, scan_pipe_possible};
pub(crate) use search::search_kernel;
pub(crate) use vec::{SCAN_VEC_LONG, VecTile, scan_vec, scan_vec_possible};

/// The operator of a scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ScanKind {
    Sum,
    Prod,
    Max,
    Min,
}

/// What a scan kernel writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Sink {
    /// The scan of program output 0 (in `out`'s dtype) at each element's index; when `keyed`,
    /// program output 1 is the key and a new segment starts where it changes along the line.
    Scan {
        op: ScanKind,
        exclusive: bool,
        keyed: bool,
    },
    /// Compaction of the elements whose program output 0 (bool) is set: program output 1
    /// (`values`) is written at each kept element's rank, or (not `values`) the coordinates of
    /// each kept element as a row of `i64`. `wide`: ranks in 64 bits (2^31 elements or more),
    /// else 32.
    Compact { values: bool, wide: bool },
}

/// A scan kernel's configuration (with the program's structure, what determines its source).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ScanSpec {
    pub sink: Sink,
    /// The dtype written.
    pub out: DType,
}

/// Which scan kernel runs on CUDA (with the spec and the program, what its source depends on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ScanForm {
    /// [`scan_tiles`]: any layout, elements through the shared tile.
    Tiles,
    /// [`scan_columns`]: one thread per line.
    Columns,
    /// [`scan_vec`]: contiguous aligned lines, vectors in registers (`true`: the form for
    /// long lines, [`SCAN_VEC_LONG`]).
    Vec(bool),
    /// [`scan_bits`]: the vectorised compaction of indices, flags as bits.
    Bits,
    /// [`scan_pipe`]: long contiguous lines on sm_90 and later, tiles bulk-copied into
    /// shared-memory stages by persistent warp-specialised blocks.
    Pipe,
    /// [`scan_chunked`]: one long contiguous line of one input, a reduce pass and a scan pass
    /// interleaved over chunks of tiles that stay in L2.
    Chunked,
}

impl ScanForm {
    /// The source of this form of kernel for `prog` under `spec`.
    pub(crate) fn source(self, prog: &Program, spec: ScanSpec) -> KernelSource {
        match self {
            ScanForm::Tiles => scan_tiles(prog, spec),
            ScanForm::Columns => scan_columns(prog, spec),
            ScanForm::Vec(long) => scan_vec(prog, spec, long),
            ScanForm::Bits => scan_bits(prog, spec),
            ScanForm::Pipe => scan_pipe(prog, spec),
            ScanForm::Chunked => scan_chunked(prog, spec),
        }
    }

    /// Elements of a tile (tiled kernels) of `prog`.
    pub(crate) fn tile(self, spec: ScanSpec, prog: &Program) -> usize {
        match self {
            ScanForm::Vec(long) => VecTile::of(spec, long, prog.inputs.len()).elems(),
            ScanForm::Bits => BITS_TILE,
            ScanForm::Pipe => PipeShape::of(pipe_row(prog)).tile(),
            ScanForm::Chunked => CHUNKED_TILE,
            _ => spec.tile(),
        }
    }
}

/// The variant every scan kernel's program code is generated in (64-bit index math).
const V: Variant = Variant {
    idx32: false,
    vector: false,
    strided_out: false,
};

impl ScanSpec {
    /// The prelude helpers a scan of `p`'s output under this spec uses.
    pub(crate) fn helpers(self, p: &Program) -> Helpers {
        Helpers::of_program(p) | Helpers::of_dtype(self.out) | Helpers::of_dtype(self.acc())
    }

    /// The accumulator dtype (the compute type of the output; `i64` ranks for compaction).
    fn acc(self) -> DType {
        match self.sink {
            Sink::Scan { .. } => self.out,
            Sink::Compact { wide: true, .. } => DType::I64,
            Sink::Compact { wide: false, .. } => DType::I32,
        }
    }

    /// Whether the look-back status of a tile is one 64-bit word (flag in the high half, the
    /// value's bits in the low half): accumulators of up to 4 bytes, not keyed.
    pub(crate) fn packed(self) -> bool {
        !self.keyed() && self.acc().c_compute_size() <= 4
    }

    /// The shift of the shared-memory padding: one element of padding every `1 << shift`
    /// elements, so that both the striped and the per-thread accesses avoid bank conflicts.
    fn pad_shift(self) -> usize {
        match self.elem_size() {
            0..=4 => 5,
            5..=8 => 4,
            _ => 3,
        }
    }

    /// Elements of a padded shared tile.
    fn padded(self) -> usize {
        self.tile() + (self.tile() >> self.pad_shift())
    }

    fn keyed(self) -> bool {
        matches!(self.sink, Sink::Scan { keyed: true, .. })
    }

    /// Bytes of one scan element (the value, and the segment flag when keyed).
    fn elem_size(self) -> usize {
        let a = self.acc().c_compute_size();
        if self.keyed() { a.max(4) * 2 } else { a }
    }

    /// Elements per thread of a tile: 16 for elements of up to 4 bytes, 8 above, 4 for keyed
    /// scans; value compaction keeps 16 only for values and ranks of up to 4 bytes (it stages
    /// the values in shared memory too).
    pub(crate) fn items(self) -> usize {
        if self.keyed() {
            4
        } else if let Sink::Compact { values: true, .. } = self.sink {
            if self.elem_size() <= 4 && self.out.size() <= 4 {
                16
            } else {
                8
            }
        } else if self.elem_size() > 4 {
            8
        } else {
            16
        }
    }

    /// Elements per tile.
    pub(crate) fn tile(self) -> usize {
        BLOCK as usize * self.items()
    }

    /// The blocks per SM the tile kernel is built for (`__launch_bounds__`' second argument):
    /// a tile's latency (its loads, barriers and look-back) is hidden only by other tiles in
    /// flight, and the register count decides how many fit. With 16 elements per thread: 4
    /// blocks for a scan (64 registers: the f32 cumsum kernel needs 75 unbounded; at 5 blocks
    /// it spills and runs slower), 6 for a compaction (40 registers; its shared
    /// tile is staged twice, and 6 × 34 KiB still fit an SM). With 8 (elements of 8 bytes): 4
    /// blocks (the i64 cumsum kernel needs 86 registers unbounded, 2 blocks). Keyed scans (4
    /// per thread): no bound.
    pub(crate) fn min_blocks(self) -> usize {
        match (self.sink, self.items()) {
            (Sink::Scan { .. }, 16) => 4,
            (Sink::Compact { .. }, 16) => 6,
            (_, 8) => 4,
            _ => 1,
        }
    }

    /// Bytes of one element of the look-back status arrays (`agg` and `incl`).
    pub(crate) fn status_size(self) -> usize {
        self.elem_size().next_multiple_of(8)
    }
}

trait ComputeSize {
    fn c_compute_size(self) -> usize;
}

impl ComputeSize for DType {
    /// Bytes of the compute type (`float` for the half types).
    fn c_compute_size(self) -> usize {
        match self {
            DType::F16 | DType::BF16 => 4,
            d => d.size(),
        }
    }
}

/// The identity of `op` on `d` (C expression).
fn identity(op: ScanKind, d: DType) -> String {
    let t = cty(d);
    match (op, d) {
        (ScanKind::Sum, _) => format!("({t})0"),
        (ScanKind::Prod, _) => format!("({t})1"),
        (ScanKind::Max, DType::Bool) => "(unsigned char)0".into(),
        (ScanKind::Min, DType::Bool) => "(unsigned char)1".into(),
        (ScanKind::Max, d) if d.is_float() => {
            if d.class() == Class::F64 {
                "(-dinf())".into()
            } else {
                "(-finf())".into()
            }
        }
        (ScanKind::Min, d) if d.is_float() => {
            if d.class() == Class::F64 {
                "dinf()".into()
            } else {
                "finf()".into()
            }
        }
        (ScanKind::Max, d) => format!("({t}){}", int_limits(d).0),
        (ScanKind::Min, d) => format!("({t}){}", int_limits(d).1),
    }
}

/// The operator on `a` and `b` of dtype `d` (C expression). Sums and products wrap for
/// integers and do not round between steps for the half types (kept in `float`); max and min
/// propagate the first NaN, order `-0.0` below `+0.0` and keep the earlier operand on other ties.
fn operator(op: ScanKind, d: DType) -> String {
    let ed = match d {
        DType::F16 | DType::BF16 => DType::F32,
        DType::Bool => DType::U8,
        d => d,
    };
    match op {
        ScanKind::Sum => binary_expr(BinaryOp::Add, ed, "a", "b"),
        ScanKind::Prod => binary_expr(BinaryOp::Mul, ed, "a", "b"),
        ScanKind::Max if d.is_float() => {
            "((a != a) ? a : ((b != b) ? b : ((b > a || (b == a && !signbit(b))) ? b : a)))".into()
        }
        ScanKind::Min if d.is_float() => {
            "((a != a) ? a : ((b != b) ? b : ((b < a || (b == a && signbit(b))) ? b : a)))".into()
        }
        ScanKind::Max => "(b > a ? b : a)".into(),
        ScanKind::Min => "(b < a ? b : a)".into(),
    }
}

/// A warp shuffle of a value of C type `t` (`f` is `__shfl_up_sync` and friends).
fn shuffle(t: &str, size: usize, f: &str, x: &str, arg: &str) -> String {
    if size < 4 {
        format!("({t}){f}(0xffffffffu, (int){x}, {arg})")
    } else {
        format!("{f}(0xffffffffu, {x}, {arg})")
    }
}

/// The element type `E_`, its operator `comb_`, identity `ident_`, shuffles, and volatile
/// status loads and stores.
fn element_code(spec: ScanSpec) -> String {
    let acc = spec.acc();
    let a = cty(acc);
    let size = acc.c_compute_size();
    let (op, idv) = match spec.sink {
        Sink::Scan { op, .. } => (operator(op, acc), identity(op, acc)),
        Sink::Compact { .. } => ("(a + b)".to_string(), format!("({a})0")),
    };
    let mut s = format!(
        "typedef {a} A_;\n__device__ __forceinline__ A_ op_(A_ a, A_ b) {{ return {op}; }}\n"
    );
    for (name, f) in [
        ("up", "__shfl_up_sync"),
        ("dn", "__shfl_down_sync"),
        ("ix", "__shfl_sync"),
    ] {
        let arg = if name == "ix" { "int d" } else { "unsigned d" };
        let _ = writeln!(
            s,
            "__device__ __forceinline__ A_ a_{name}_(A_ x, {arg}) {{ return {}; }}",
            shuffle(a, size, f, "x", "d")
        );
    }
    if spec.keyed() {
        let _ = write!(
            s,
            r#"struct E_ {{ A_ v; unsigned f; }};
__device__ __forceinline__ E_ mk_(A_ v) {{ E_ r; r.v = v; r.f = 0u; return r; }}
__device__ __forceinline__ A_ val_(E_ e) {{ return e.v; }}
__device__ __forceinline__ E_ ident_() {{ return mk_({idv}); }}
__device__ __forceinline__ E_ comb_(E_ a, E_ b) {{ E_ r; r.v = b.f ? b.v : op_(a.v, b.v); r.f = a.f | b.f; return r; }}
__device__ __forceinline__ E_ e_up_(E_ x, unsigned d) {{ E_ r; r.v = a_up_(x.v, d); r.f = __shfl_up_sync(0xffffffffu, x.f, d); return r; }}
__device__ __forceinline__ E_ e_dn_(E_ x, unsigned d) {{ E_ r; r.v = a_dn_(x.v, d); r.f = __shfl_down_sync(0xffffffffu, x.f, d); return r; }}
__device__ __forceinline__ E_ e_ix_(E_ x, int d) {{ E_ r; r.v = a_ix_(x.v, d); r.f = __shfl_sync(0xffffffffu, x.f, d); return r; }}
__device__ __forceinline__ E_ ld_(const E_ *p) {{ E_ r; r.v = *(const volatile A_ *)&p->v; r.f = *(const volatile unsigned *)&p->f; return r; }}
__device__ __forceinline__ void st_(E_ *p, E_ x) {{ *(volatile A_ *)&p->v = x.v; *(volatile unsigned *)&p->f = x.f; }}
"#
        );
    } else {
        let _ = write!(
            s,
            r#"typedef A_ E_;
__device__ __forceinline__ E_ mk_(A_ v) {{ return v; }}
__device__ __forceinline__ A_ val_(E_ e) {{ return e; }}
__device__ __forceinline__ E_ ident_() {{ return {idv}; }}
__device__ __forceinline__ E_ comb_(E_ a, E_ b) {{ return op_(a, b); }}
__device__ __forceinline__ E_ e_up_(E_ x, unsigned d) {{ return a_up_(x, d); }}
__device__ __forceinline__ E_ e_dn_(E_ x, unsigned d) {{ return a_dn_(x, d); }}
__device__ __forceinline__ E_ e_ix_(E_ x, int d) {{ return a_ix_(x, d); }}
__device__ __forceinline__ E_ ld_(const E_ *p) {{ return *(const volatile E_ *)p; }}
__device__ __forceinline__ void st_(E_ *p, E_ x) {{ *(volatile E_ *)p = x; }}
"#
        );
    }
    if spec.packed() {
        s.push_str(
            r#"union PkU_ { A_ v; unsigned u; };
__device__ __forceinline__ unsigned long long pk_(unsigned f, A_ v) { PkU_ c; c.u = 0u; c.v = v; return ((unsigned long long)f << 32) | (unsigned long long)c.u; }
__device__ __forceinline__ A_ upk_(unsigned long long w) { PkU_ c; c.u = (unsigned)w; return c.v; }
"#,
        );
    }
    let _ = writeln!(
        s,
        "__device__ __forceinline__ int pix_(int x) {{ return x + (x >> {}); }}",
        spec.pad_shift()
    );
    s
}

/// Evaluates the program at linear index `lin_` in its own scope, then runs `then` (which
/// reads the outputs through `out(k)` expressions, given here as `V0`, `V1`).
fn eval_at(p: &Program, then: &str) -> String {
    let mut s = String::from("    {\n");
    s.push_str(&index_code(p, V, "lin_", "i64t"));
    let e = Emit::converted(p, |i| format!("in{i}[o{i}]"), "lin_", "");
    emit_lane(&e, &mut s);
    let mut then = then.to_string();
    for (k, &o) in p.outputs.iter().enumerate() {
        then = then.replace(&format!("V{k}"), &format!("v{o}"));
    }
    s.push_str(&then);
    s.push_str("\n    }\n");
    s
}

/// The name of a scan kernel (`kind` is `tiles` or `columns`).
fn kernel_name(spec: ScanSpec, kind: &str) -> String {
    let what = match spec.sink {
        Sink::Scan {
            op,
            exclusive,
            keyed,
        } => format!(
            "{}{}{}",
            format!("{op:?}").to_lowercase(),
            if exclusive { "_excl" } else { "" },
            if keyed { "_bykey" } else { "" }
        ),
        Sink::Compact { values, wide } => format!(
            "{}{}",
            if values { "masked_select" } else { "nonzero" },
            if wide { "_wide" } else { "" }
        ),
    };
    format!("cuprite_scan_{kind}_{what}_{}", spec.out.name())
}

/// The value the scan stores for element `q_` (`pe_` its exclusive prefix, `ie_` its
/// inclusive one, `fl_` whether it starts a segment).
fn scan_value(spec: ScanSpec) -> String {
    match spec.sink {
        Sink::Scan {
            exclusive: false, ..
        } => "val_(ie_)".into(),
        Sink::Scan {
            op,
            exclusive: true,
            keyed: true,
        } => format!("(fl_ ? {} : val_(pe_))", identity(op, spec.acc())),
        _ => "val_(pe_)".into(),
    }
}

/// The look-back of a tile whose status is one 64-bit word (see [`ScanSpec::packed`]): one
/// load reads the flag and the value together. A lane whose tile is not published yet sleeps
/// briefly before reading it again (spinning takes issue slots from the tiles still loading).
const PACKED_LOOK_BACK: &str = r#"  if (tpl_ > 1) {
    if (w_ == 0) {
      volatile unsigned long long *sw_ = (volatile unsigned long long *)flags_;
      if (tt_ == 0) {
        if (lane_ == 0) {
          sw_[tid_] = pk_(2u, agg_blk_);
          pre_sh_ = ident_();
        }
      } else {
        if (lane_ == 0) sw_[tid_] = pk_(1u, agg_blk_);
        E_ acc_ = ident_();
        long long back_ = 1;
        while (true) {
          const long long dq_ = back_ + lane_;
          unsigned f_ = 2u;
          E_ v_ = ident_();
          if (dq_ <= tt_) {
            unsigned long long wd_;
            while (((wd_ = sw_[tid_ - dq_]) >> 32) == 0ull) __nanosleep(64);
            f_ = (unsigned)(wd_ >> 32);
            v_ = upk_(wd_);
          }
          const unsigned m2_ = __ballot_sync(0xffffffffu, f_ == 2u);
          const int stop_ = m2_ ? __ffs(m2_) - 1 : 32;
          if (lane_ > stop_) v_ = ident_();
          #pragma unroll
          for (unsigned d_ = 1; d_ < 32; d_ <<= 1) { const E_ y_ = e_dn_(v_, d_); if ((unsigned)lane_ + d_ < 32u) v_ = comb_(y_, v_); }
          acc_ = comb_(e_ix_(v_, 0), acc_);
          if (m2_) break;
          back_ += 32;
        }
        if (lane_ == 0) {
          sw_[tid_] = pk_(2u, comb_(acc_, agg_blk_));
          pre_sh_ = acc_;
        }
      }
    }
"#;

/// The look-back of a tile whose status is a flag beside a wider value: the value is
/// published before a fence and the flag, and read after the flag and a fence.
const SPLIT_LOOK_BACK: &str = r#"  if (tpl_ > 1) {
    if (w_ == 0) {
      if (tt_ == 0) {
        if (lane_ == 0) {
          st_(incl_ + tid_, agg_blk_);
          __threadfence();
          *(volatile unsigned *)(flags_ + tid_) = 2u;
          pre_sh_ = ident_();
        }
      } else {
        if (lane_ == 0) {
          st_(agg_ + tid_, agg_blk_);
          __threadfence();
          *(volatile unsigned *)(flags_ + tid_) = 1u;
        }
        E_ acc_ = ident_();
        long long back_ = 1;
        while (true) {
          const long long dq_ = back_ + lane_;
          const bool valid_ = dq_ <= tt_;
          unsigned f_ = 2u;
          if (valid_) {
            while ((f_ = *(volatile unsigned *)(flags_ + (tid_ - dq_))) == 0u) __nanosleep(64);
          }
          __threadfence();
          E_ v_ = ident_();
          if (valid_) v_ = ld_((f_ == 2u ? incl_ : agg_) + (tid_ - dq_));
          const unsigned m2_ = __ballot_sync(0xffffffffu, f_ == 2u);
          const int stop_ = m2_ ? __ffs(m2_) - 1 : 32;
          if (lane_ > stop_) v_ = ident_();
          #pragma unroll
          for (unsigned d_ = 1; d_ < 32; d_ <<= 1) { const E_ y_ = e_dn_(v_, d_); if ((unsigned)lane_ + d_ < 32u) v_ = comb_(y_, v_); }
          acc_ = comb_(e_ix_(v_, 0), acc_);
          if (m2_) break;
          back_ += 32;
        }
        if (lane_ == 0) {
          st_(incl_ + tid_, comb_(acc_, agg_blk_));
          __threadfence();
          *(volatile unsigned *)(flags_ + tid_) = 2u;
          pre_sh_ = acc_;
        }
      }
    }
"#;

/// The statement writing the coordinates of the element whose linear index is the C expression
/// `idx` as row `pos_` of an `argwhere` output (`i64`, one value per axis of `p`'s shape; none
/// for a 0-d program).
fn coords_write(p: &Program, idx: &str) -> String {
    let nd = p.shape.len();
    if nd == 1 {
        return format!("out0[pos_] = {idx};");
    }
    let mut w = format!("long long rem_ = {idx};");
    for d in (0..nd).rev() {
        let _ = write!(
            w,
            " out0[pos_ * {nd} + {d}] = rem_ % (long long)s{d}; rem_ /= (long long)s{d};"
        );
    }
    w.push_str(" (void)rem_;");
    w
}

/// The single-pass look-back kernel. Parameters: the program's (output `out0`), then `len_`
/// (line length), `inner_` (stride of the line), `tpl_` (tiles per line), `flags_`, `agg_`,
/// `incl_` (status per tile, read only when `tpl_ > 1`), `ctr_` (the tile counter, zero).
/// When [`ScanSpec::packed`], `flags_` holds one zeroed 64-bit status word per tile and
/// `agg_`/`incl_` are unused.
/// Element `i` of line `o * inner + j` is the program's element `(o * len + i) * inner + j`.
pub(crate) fn scan_tiles(p: &Program, spec: ScanSpec) -> KernelSource {
    let name = kernel_name(spec, "tiles");
    let mut s = tiles_load(p, spec, &name);
    tiles_scan(&mut s, spec);
    s.push_str(if spec.packed() {
        PACKED_LOOK_BACK
    } else {
        SPLIT_LOOK_BACK
    });
    s.push_str(
        "  } else if (t_ == 0) {\n    pre_sh_ = ident_();\n  }\n  __syncthreads();\n  const E_ tp_ = comb_(comb_(pre_sh_, wp_), tex_);\n",
    );
    tiles_write(&mut s, p, spec);
    KernelSource::generated(name, &s, spec.helpers(p))
}

/// The tile kernel's head: its signature, shared memory, ticket and geometry, and the
/// striped load of its tile into shared memory (with the keys, or the values to compact).
fn tiles_load(p: &Program, spec: ScanSpec, name: &str) -> String {
    let items = spec.items();
    let tile = spec.tile();
    let padded = spec.padded();
    let keyed = spec.keyed();
    let mut s = element_code(spec);
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}, {}) {name}({}, {}) {{",
        spec.min_blocks(),
        params(p, V, 1, &[spec.out]),
        look_back_signature()
    );
    let _ = writeln!(
        s,
        "  __shared__ E_ sh_[{padded}];\n  __shared__ E_ wt_[32];\n  __shared__ E_ pre_sh_;\n  __shared__ long long tid_sh_;"
    );
    let kt = if keyed {
        cty(p.instrs[p.outputs[1]].dtype)
    } else {
        ""
    };
    if keyed {
        let _ = writeln!(
            s,
            "  __shared__ {kt} shk_[{tile}];\n  __shared__ {kt} kprev_;"
        );
    }
    let values = matches!(spec.sink, Sink::Compact { values: true, .. });
    if values {
        let _ = writeln!(s, "  __shared__ {} shv_[{padded}];", cty(spec.out));
    }
    // The element a thread reads, as the scan sees it.
    let load = match spec.sink {
        Sink::Scan { .. } => {
            let mut l = "sh_[pix_(x_)] = mk_(V0);".to_string();
            if keyed {
                l.push_str(" shk_[x_] = V1;");
            }
            l
        }
        Sink::Compact { values, .. } => {
            let mut l = "sh_[pix_(x_)] = (A_)(V0 != 0);".to_string();
            if values {
                l.push_str(" shv_[pix_(x_)] = V1;");
            }
            l
        }
    };
    let _ = write!(
        s,
        r#"  const int t_ = threadIdx.x, lane_ = t_ & 31, w_ = t_ >> 5;
  if (t_ == 0) tid_sh_ = tpl_ > 1 ? (long long)atomicAdd(ctr_, 1u) : (long long)blockIdx.x;
  __syncthreads();
  const long long tid_ = tid_sh_;
  // Tiles (so lines and tiles per line) number below 2^31 (the host checks): 32-bit division.
  const long long line_ = (long long)((unsigned)tid_ / (unsigned)tpl_), tt_ = tid_ - line_ * (long long)tpl_;
  const long long o_ = (long long)((unsigned)line_ / (unsigned)inner_), j_ = line_ - o_ * (long long)inner_;
  const long long start_ = tt_ * {tile};
  long long cnt_ = (long long)len_ - start_;
  if (cnt_ > {tile}) cnt_ = {tile};
  #pragma unroll
  for (int q_ = 0; q_ < {items}; ++q_) {{
    const int x_ = q_ * {BLOCK} + t_;
    if (x_ < cnt_) {{
      const long long lin_ = (o_ * (long long)len_ + start_ + x_) * (long long)inner_ + j_;
{}    }} else {{
      sh_[pix_(x_)] = ident_();
    }}
  }}
"#,
        eval_at(p, &load)
    );
    if keyed {
        let _ = write!(
            s,
            "  if (t_ == 0 && start_ > 0) {{\n    const long long lin_ = (o_ * (long long)len_ + start_ - 1) * (long long)inner_ + j_;\n{}  }}\n",
            eval_at(p, "kprev_ = V1;")
        );
    }
    s
}

/// The tile kernel's scan of its tile: each thread's serial scan of its elements (with the
/// segment or kept flags), the warps' and the block's totals.
fn tiles_scan(s: &mut String, spec: ScanSpec) {
    let items = spec.items();
    let warps = BLOCK / 32;
    let keyed = spec.keyed();
    let flag = if keyed {
        "if (x_ < cnt_) { const bool f_ = start_ + x_ == 0 || shk_[x_] != (x_ == 0 ? kprev_ : shk_[x_ - 1]); e_.f = f_ ? 1u : 0u; if (f_) fm_ |= 1u << q_; }"
    } else if matches!(spec.sink, Sink::Compact { .. }) {
        "if (e_ != 0) fm_ |= 1u << q_;"
    } else {
        ""
    };
    let _ = write!(
        s,
        r#"  __syncthreads();
  E_ rr_[{items}];
  unsigned fm_ = 0u;
  #pragma unroll
  for (int q_ = 0; q_ < {items}; ++q_) {{
    const int x_ = t_ * {items} + q_;
    E_ e_ = sh_[pix_(x_)];
    {flag}
    rr_[q_] = q_ == 0 ? e_ : comb_(rr_[q_ > 0 ? q_ - 1 : 0], e_);
  }}
  E_ ws_ = rr_[{items} - 1];
  #pragma unroll
  for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {{ const E_ y_ = e_up_(ws_, d_); if ((unsigned)lane_ >= d_) ws_ = comb_(y_, ws_); }}
  E_ tex_ = e_up_(ws_, 1);
  if (lane_ == 0) tex_ = ident_();
  if (lane_ == 31) wt_[w_] = ws_;
  __syncthreads();
  if (w_ == 0) {{
    E_ z_ = lane_ < {warps} ? wt_[lane_] : ident_();
    #pragma unroll
    for (unsigned d_ = 1; d_ < 32; d_ <<= 1) {{ const E_ y_ = e_up_(z_, d_); if ((unsigned)lane_ >= d_) z_ = comb_(y_, z_); }}
    if (lane_ < {warps}) wt_[lane_] = z_;
  }}
  __syncthreads();
  const E_ agg_blk_ = wt_[{warps} - 1];
  const E_ wp_ = w_ > 0 ? wt_[w_ > 0 ? w_ - 1 : 0] : ident_();
"#
    );
}

/// The tile kernel's output: the scan written back through shared memory, or the kept
/// elements staged by rank and written as one run.
fn tiles_write(s: &mut String, p: &Program, spec: ScanSpec) {
    let items = spec.items();
    match spec.sink {
        Sink::Scan { .. } => {
            let _ = write!(
                s,
                r#"  #pragma unroll
  for (int q_ = 0; q_ < {items}; ++q_) {{
    const int x_ = t_ * {items} + q_;
    const E_ pe_ = q_ == 0 ? tp_ : comb_(tp_, rr_[q_ > 0 ? q_ - 1 : 0]);
    const E_ ie_ = comb_(tp_, rr_[q_]);
    const bool fl_ = (fm_ >> q_) & 1u;
    (void)pe_; (void)ie_; (void)fl_;
    sh_[pix_(x_)] = mk_({});
  }}
  __syncthreads();
  #pragma unroll
  for (int q_ = 0; q_ < {items}; ++q_) {{
    const int x_ = q_ * {BLOCK} + t_;
    if (x_ < cnt_) {{
      const long long lin_ = (o_ * (long long)len_ + start_ + x_) * (long long)inner_ + j_;
      out0[lin_] = {};
    }}
  }}
}}
"#,
                scan_value(spec),
                store_conv(spec.out, "val_(sh_[pix_(x_)])")
            );
        }
        Sink::Compact { values, .. } => {
            let write = if values {
                format!("out0[pos_] = {};", store_conv(spec.out, "shv_[pix_(x_)]"))
            } else {
                coords_write(p, "start_ + x_")
            };
            let _ = write!(
                s,
                r#"  const E_ lb_ = comb_(wp_, tex_);
  #pragma unroll
  for (int q_ = 0; q_ < {items}; ++q_) {{
    if ((fm_ >> q_) & 1u) {{
      const E_ lr_ = q_ == 0 ? lb_ : comb_(lb_, rr_[q_ > 0 ? q_ - 1 : 0]);
      sh_[pix_((int)lr_)] = (E_)(t_ * {items} + q_);
    }}
  }}
  __syncthreads();
  const int kept_ = (int)agg_blk_;
  const long long base_ = (long long)pre_sh_;
  for (int i_ = t_; i_ < kept_; i_ += {BLOCK}) {{
    const int x_ = (int)sh_[pix_(i_)];
    const long long pos_ = base_ + i_;
    {write}
  }}
}}
"#
            );
        }
    }
}

/// The one-thread-per-line kernel (scans only). Parameters: the program's (output `out0`),
/// then `len_`, `inner_`, `lines_`.
pub(crate) fn scan_columns(p: &Program, spec: ScanSpec) -> KernelSource {
    let name = kernel_name(spec, "columns");
    let keyed = spec.keyed();
    let mut s = element_code(spec);
    let kt = if keyed {
        cty(p.instrs[p.outputs[1]].dtype)
    } else {
        "int"
    };
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}({}, {}) {{",
        params(p, V, 1, &[spec.out]),
        args::column_signature()
    );
    let load = if keyed {
        "e_ = mk_(V0); kk_ = V1;"
    } else {
        "e_ = mk_(V0);"
    };
    let flag = if keyed {
        "fl_ = i_ == 0 || kk_ != kp_; kp_ = kk_; e_.f = fl_ ? 1u : 0u;"
    } else {
        ""
    };
    let _ = write!(
        s,
        r#"  for (long long line_ = (long long)blockIdx.x * {BLOCK} + threadIdx.x; line_ < (long long)lines_; line_ += (long long)gridDim.x * {BLOCK}) {{
    const long long o_ = line_ / (long long)inner_, j_ = line_ - o_ * (long long)inner_;
    E_ acc_ = ident_();
    {kt} kp_ = ({kt})0, kk_ = ({kt})0;
    (void)kp_; (void)kk_;
    for (long long i_ = 0; i_ < (long long)len_; ++i_) {{
      const long long lin_ = (o_ * (long long)len_ + i_) * (long long)inner_ + j_;
      E_ e_;
{}      bool fl_ = false;
      {flag}
      (void)fl_;
      const E_ pe_ = acc_;
      acc_ = comb_(acc_, e_);
      const E_ ie_ = acc_;
      (void)pe_; (void)ie_;
      out0[lin_] = {};
    }}
  }}
}}
"#,
        eval_at(p, load),
        store_conv(spec.out, &scan_value(spec))
    );
    KernelSource::generated(name, &s, spec.helpers(p))
}
