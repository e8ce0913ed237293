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
///
/// `ax` says which trailing axes of `p`'s shape the rows run over ([`RowAxes::of`]): a thread
/// splits its row's index into the kept axes' coordinates once, its elements' offsets step
/// along the reduced axes with no division when there is one, and the inputs constant along
/// a row are read once per thread.
pub(crate) fn reduction(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
    combine: bool,
    ax: RowAxes,
    finish: Finish,
) -> KernelSource {
    debug_assert!(!combine || combinable(op));
    reduction_kernel(p, op, out_d, v, Form::Looping, (combine, finish), ax)
}

/// What a reduction kernel writes for a row: its result in the written dtype, or that result
/// divided by a divisor the launch passes (a mean's division, folded into the reduction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Finish {
    #[default]
    Plain,
    /// A sum of a real float dtype, written as `r / d`: `r` the row's sum rounded to the
    /// written dtype, `d` the kernel's last parameter `fdiv_` (the bits of an `f64` that the
    /// written dtype holds exactly), the division made in the written dtype as the element-wise
    /// kernels make it, so the value equals the sum's followed by an element-wise division by
    /// the same constant. A launch that writes partials passes 1, which changes no value.
    Divide,
}

impl Finish {
    /// Whether a reduction by `op` into `written` can take `self`.
    pub(crate) fn fits(self, op: ReduceOp, written: DType) -> bool {
        match self {
            Finish::Plain => true,
            Finish::Divide => op == ReduceOp::Sum && written.is_float(),
        }
    }
}

/// How a reduction's rows lie in its program's shape: decided from the shape and the inputs'
/// layouts, and part of the kernel's key (the text depends on it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct RowAxes {
    /// The trailing axes the rows run over ([`reduced_dims`]).
    pub red_dims: u8,
    /// Bit `i`: input `i` (of the first 64, read by offset) has stride 0 or extent 1 along
    /// every reduced axis, so one value serves its whole row.
    pub steady: u64,
    /// The rows a thread reduces together ([`OutGroup`]).
    pub group: OutGroup,
}

impl RowAxes {
    /// The row axes of reducing `p`'s output in rows of `inner` elements.
    pub(crate) fn of(p: &Program, inner: usize) -> RowAxes {
        let nd = p.shape.len();
        let k = reduced_dims(&p.shape, inner).min(u8::MAX as usize);
        let mut steady = 0u64;
        if k < nd {
            for (i, inp) in p.inputs.iter().enumerate().take(64) {
                let flat = inp.gather_len.is_none()
                    && (nd - k..nd).all(|d| p.shape[d] == 1 || inp.layout.strides[d] == 0);
                if flat {
                    steady |= 1 << i;
                }
            }
        }
        RowAxes {
            red_dims: k as u8,
            steady,
            group: OutGroup::of(p, k, steady),
        }
    }

    /// The rows one block (or one lane group of a warp) reduces together: consecutive rows,
    /// as many as the group's outputs (1 without a group).
    pub(crate) fn rows_together(&self) -> usize {
        self.group.len()
    }
}

/// The most outputs a thread computes together ([`OutGroup`]).
pub(crate) const GROUP_MAX: usize = 4;

/// Rows reduced together: where the innermost kept axis (the one before the reduced axes) is
/// short (`k` in `2..=GROUP_MAX`) and some input is constant along it (stride 0), the `k` rows
/// along it are reduced by the same threads in one sweep of the reduced axes, one accumulator
/// each. The producer's steps that do not depend on that axis (see [`OutGroup::dependent`])
/// are computed once per element for all `k`; the others once per row, the axis' coordinate a
/// constant. Each row's accumulator takes the row's elements in the same order as a kernel of
/// one row per block (or lane group) with the same number of blocks per row.
///
/// `k == 0`: one row at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct OutGroup {
    /// The rows reduced together (the extent of the axis), or 0.
    pub k: u8,
    /// Bit `i`: input `i` (read by offset) varies along the axis: contiguous, or a stride other
    /// than 0 along it. With `k > 0` the program has at most 64 inputs.
    pub varying: u64,
    /// Inputs read through another input's reads (of the first [`ALIAS_INPUTS`]): entry `i`,
    /// where not 0, is `0x80 | a << 2 | c`. Input `i` is constant along the axis, input `a`
    /// varies along it, neither is read once per row, and at every element `i` reads what
    /// `a` reads for the group's row `c`: the same buffer and dtype, the same strides along
    /// every other axis, and `i`'s offset that of `a` plus `c` steps along the axis (the
    /// n-body's coordinate columns are the pair differences' elements). The kernel reads it
    /// with `a`'s expression, so the compiler loads it once.
    pub alias: [u8; ALIAS_INPUTS],
}

/// The inputs [`OutGroup::alias`] covers.
pub(crate) const ALIAS_INPUTS: usize = 16;

impl OutGroup {
    /// The group of reducing `p` over its `red_dims` trailing axes, the inputs `steady` read
    /// once per row ([`RowAxes::steady`]).
    fn of(p: &Program, red_dims: usize, steady: u64) -> OutGroup {
        let nd = p.shape.len();
        if red_dims >= nd || p.inputs.len() > 64 {
            return OutGroup::default();
        }
        let axis = nd - red_dims - 1;
        let k = p.shape[axis];
        if !(2..=GROUP_MAX).contains(&k) {
            return OutGroup::default();
        }
        let mut varying = 0u64;
        let mut shared = false;
        for (i, inp) in p.inputs.iter().enumerate() {
            if inp.gather_len.is_some() {
                continue;
            }
            if inp.layout.is_contiguous(&p.shape) || inp.layout.strides[axis] != 0 {
                varying |= 1 << i;
            } else {
                shared = true;
            }
        }
        if !shared {
            // Nothing read is shared by the rows: each row alone has more parallelism.
            return OutGroup::default();
        }
        let mut g = OutGroup {
            k: k as u8,
            varying,
            alias: [0; ALIAS_INPUTS],
        };
        // Read in the row loop through strides (not contiguous, gathered or once per row).
        let looped = |i: usize| {
            let inp = &p.inputs[i];
            inp.gather_len.is_none() && !inp.layout.is_contiguous(&p.shape) && steady >> i & 1 == 0
        };
        let n = p.inputs.len().min(ALIAS_INPUTS);
        for i in (0..n).filter(|&i| looped(i) && varying >> i & 1 == 0) {
            let (li, di) = (&p.inputs[i].layout, p.inputs[i].dtype);
            let found = (0..n)
                .filter(|&a| looped(a) && varying >> a & 1 == 1)
                .find_map(|a| {
                    let src = &p.inputs[a];
                    let same = std::sync::Arc::ptr_eq(&src.storage, &p.inputs[i].storage)
                        && src.dtype == di
                        && (0..nd).all(|d| {
                            d == axis || p.shape[d] == 1 || src.layout.strides[d] == li.strides[d]
                        });
                    if !same {
                        return None;
                    }
                    let step = src.layout.strides[axis];
                    (0..k)
                        .find(|&c| {
                            (src.layout.offset as isize).checked_add(c as isize * step)
                                == Some(li.offset as isize)
                        })
                        .map(|c| (a, c))
                });
            if let Some((a, c)) = found {
                g.alias[i] = 0x80 | (a as u8) << 2 | c as u8;
            }
        }
        g
    }

    /// The input and row whose read input `i` shares ([`OutGroup::alias`]).
    fn alias_of(&self, i: usize) -> Option<(usize, usize)> {
        let e = *self.alias.get(i)?;
        (e & 0x80 != 0).then_some((((e >> 2) & 0xf) as usize, (e & 3) as usize))
    }

    /// The rows reduced together (at least 1).
    pub(crate) fn len(&self) -> usize {
        (self.k as usize).max(1)
    }

    /// Whether input `i` varies along the axis.
    fn varies(&self, i: usize) -> bool {
        i < 64 && self.varying >> i & 1 == 1
    }

    /// Per step of `p`: whether its value depends on the axis (`axis`). A load does where its
    /// input varies along it; a coordinate where it is the axis'; random numbers always (their
    /// counter is the element's linear index); every other step where an operand does.
    fn dependent(&self, p: &Program, axis: usize) -> Vec<bool> {
        let mut dep: Vec<bool> = Vec::with_capacity(p.instrs.len());
        for ins in &p.instrs {
            let d = match ins.kind {
                Step::Load(i) => self.varies(i),
                Step::Const(_) => false,
                Step::Unary(_, a) | Step::Cast(a) | Step::Gather(_, a) => dep[a],
                Step::Binary(_, a, b) => dep[a] || dep[b],
                Step::Select(c, a, b) => dep[c] || dep[a] || dep[b],
                Step::Check(_, a, n, _) => dep[a] || dep[n],
                Step::Iota(ax) => ax == axis,
                Step::Rand(..) | Step::RandKeyed(..) => true,
            };
            dep.push(d);
        }
        dep
    }
}

/// The number of trailing axes of `shape` whose extents multiply to `inner` (the reduced
/// axes of a program permuted so that they come last): the fewest such axes, since axes of
/// extent 1 may count on either side. `shape.len()` where no suffix fits (then a kernel
/// splits every element's linear index, which is right whatever the split).
pub(crate) fn reduced_dims(shape: &[usize], inner: usize) -> usize {
    let nd = shape.len();
    let mut prod: usize = 1;
    for k in 0..=nd {
        if k > 0 {
            prod = prod.saturating_mul(shape[nd - k]);
        }
        if prod == inner {
            return k;
        }
    }
    nd
}

/// The lanes that reduce one row in [`reduction_warp_rows`] for rows of `inner` elements: a
/// power of two from 1 to 32, about an eighth of the row (so each lane takes about eight
/// elements and a warp takes several short rows at once), 32 for rows longer than 256.
pub(crate) fn row_lanes(inner: usize) -> u32 {
    (inner.max(1).next_power_of_two() / 8).clamp(1, 32) as u32
}

/// Rows of at most this many elements reduce by [`reduction_warp_rows`] where the launch
/// would otherwise give each row a whole block (argmin/argmax, or rows too short to split).
pub(crate) const WARP_ROW_MAX: usize = 1024;

/// A reduction with `lanes` lanes per row (a power of two up to 32, from [`row_lanes`]):
/// block `b` reduces rows `[b · BLOCK/lanes, (b + 1) · BLOCK/lanes)`, each lane sweeping every
/// `lanes`-th element of its row (the row's lanes read neighbouring elements together), and
/// the row's lanes combining their accumulators by warp shuffles in a fixed tree (lane `l`
/// takes lane `l + w`'s, `w` halving; argmin/argmax keep the lower index on ties whatever the
/// order). It takes the same parameters as [`reduction`], `chunks` holding the number of rows,
/// and is launched with `⌈rows / (BLOCK/lanes)⌉` blocks; it writes one result per row in
/// `out_d`. Every lane of a warp runs to the end (lanes past the last row take no element),
/// so the shuffles' full mask holds.
pub(crate) fn reduction_warp_rows(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
    ax: RowAxes,
    lanes: u32,
    finish: Finish,
) -> KernelSource {
    debug_assert!(!v.vector && lanes.is_power_of_two() && lanes <= 32);
    reduction_kernel(p, op, out_d, v, Form::WarpRows(lanes), (false, finish), ax)
}

/// The outputs side by side in one block of [`reduction_columns`] for `rows` outputs: a power
/// of two from 2 to 32, the fewest that cover them (at most a warp, so that the block's other
/// threads split the reduced axis).
pub(crate) fn column_lanes(rows: usize) -> u32 {
    rows.max(2).next_power_of_two().min(32) as u32
}

/// Whether reducing `p`'s output in rows of `inner` elements (row axes `ax`) by `op` takes
/// [`reduction_columns`]: not argmin/argmax, no rows reduced together, at least one kept and
/// one reduced axis, rows of at least two elements, and every input read by offset either
/// constant along the rows or strided along them with stride 0 or 1 along the innermost kept
/// axis (the output axis), at least one with stride 1 (so neighbouring outputs read
/// neighbouring elements). No gathered input.
pub(crate) fn columns_fit(p: &Program, op: ReduceOp, inner: usize, ax: RowAxes) -> bool {
    let nd = p.shape.len();
    let k = ax.red_dims as usize;
    if op.is_arg() || ax.group.k != 0 || k == 0 || k >= nd || inner < 2 {
        return false;
    }
    let axis = nd - k - 1;
    if p.shape[axis] < 2 {
        return false;
    }
    let mut unit = false;
    for (i, inp) in p.inputs.iter().enumerate() {
        if inp.gather_len.is_some() || i >= 64 {
            return false;
        }
        if ax.steady >> i & 1 == 1 {
            continue;
        }
        if inp.layout.is_contiguous(&p.shape) {
            return false;
        }
        match inp.layout.strides[axis] {
            1 => unit = true,
            0 => {}
            _ => return false,
        }
    }
    unit
}

/// The column form (see [`columns_fit`]): `lanes` consecutive outputs (rows of the program)
/// a block, one a lane, the block's `BLOCK / lanes` lane rows splitting the reduced axis. The
/// grid is `⌈rows / lanes⌉ · chunks` blocks: block `b` takes output group `b / chunks` and
/// chunk `ch = b % chunks` of the reduced axis, elements `[ch · per, min((ch + 1) · per,
/// inner))` with `per = ⌈inner / chunks⌉`, lane row `t` taking every `BLOCK / lanes`-th of
/// them from `t`. Parameters: those of [`reduction`] with `combine`, and `rows` (the number of
/// outputs) between `chunks` and the partials. The lane rows' accumulators are combined by a
/// fixed tree in shared memory. With one chunk the block writes its outputs; else it writes
/// its partials to `part[ch · rows + row]`, counts itself in on its output group's counter
/// (zero on entry), and the group's last block combines the group's partials (lane row `t`
/// the chunks `t, t + BLOCK / lanes, ...`, then the same tree) and sets the counter back to
/// zero. Not argmin/argmax; the order of combination depends on the sizes only.
pub(crate) fn reduction_columns(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
    ax: RowAxes,
    lanes: u32,
    finish: Finish,
) -> KernelSource {
    debug_assert!(!v.vector && !op.is_arg() && ax.group.k == 0);
    debug_assert!(lanes.is_power_of_two() && lanes <= BLOCK);
    reduction_kernel(p, op, out_d, v, Form::Columns(lanes), (true, finish), ax)
}

/// How the threads of a reduction kernel share the rows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Blocks sweep their row's tiles grid-stride.
    Looping,
    /// One element per thread (the quick first build).
    OnePerThread,
    /// This many lanes (a power of two up to 32) per row.
    WarpRows(u32),
    /// This many consecutive rows a block, one a lane ([`reduction_columns`]).
    Columns(u32),
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
    ax: RowAxes,
) -> KernelSource {
    debug_assert!(v.idx32 && !v.vector && !op.is_arg());
    reduction_kernel(
        p,
        op,
        out_d,
        v,
        Form::OnePerThread,
        (false, Finish::Plain),
        ax,
    )
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
    /// The trailing axes the rows run over ([`reduced_dims`]).
    red_dims: usize,
    /// The inputs read once per row ([`RowAxes::steady`]).
    steady: u64,
    /// The rows reduced together ([`OutGroup`]; `k == 0`: one).
    group: OutGroup,
    /// With a group: per step, whether it depends on the group's axis
    /// ([`OutGroup::dependent`]); else empty.
    dep: Vec<bool>,
    /// What a row's write holds ([`Finish`]).
    finish: Finish,
}

impl Red<'_> {
    fn arg(&self) -> bool {
        self.op.is_arg()
    }

    /// The rows reduced together, 0 without a group.
    fn gk(&self) -> usize {
        self.group.k as usize
    }

    /// The group's axis: the innermost kept axis.
    fn group_axis(&self) -> usize {
        self.p.shape.len() - self.red_dims - 1
    }

    /// The accumulators' names: `acc`, or one per row of a group (`acc0`, `acc1`, ...).
    fn accs(&self) -> Vec<String> {
        if self.gk() == 0 {
            vec!["acc".to_string()]
        } else {
            (0..self.gk()).map(|c| format!("acc{c}")).collect()
        }
    }

    /// The input and row whose read input `i` shares, in a group ([`OutGroup::alias`]).
    fn alias(&self, i: usize) -> Option<(usize, usize)> {
        if self.gk() == 0 {
            return None;
        }
        self.group.alias_of(i)
    }

    /// The first row of the thread's rows (`row` itself without a group).
    fn first_row(&self) -> &'static str {
        if self.gk() == 0 { "row" } else { "r0_" }
    }

    /// Whether input `i` is read by offset through strides (not contiguous, not gathered).
    fn strided(&self, i: usize) -> bool {
        let inp = &self.p.inputs[i];
        inp.gather_len.is_none() && !inp.layout.is_contiguous(&self.p.shape)
    }

    /// The step between input `i`'s elements of neighbouring rows of a group: its stride along
    /// the group's axis, or the row length for a contiguous input (the axis is the last kept).
    fn group_stride(&self, i: usize) -> String {
        let it = self.it;
        if self.strided(i) {
            format!("({it})st{i}_{}", self.group_axis())
        } else {
            format!("({it})inner")
        }
    }

    /// Input `i`'s element read for row `c` of a group (row 0 without one), in its storage
    /// type: the row's steady value or the element at the row's offset.
    fn element_read(&self, i: usize, c: usize, by_row: bool) -> String {
        if let Some((a, ca)) = self.alias(i) {
            return self.element_read(a, ca, by_row);
        }
        let vary = self.gk() > 0 && self.group.varies(i);
        if by_row && self.is_steady(i) {
            if vary {
                format!("h{i}_{c}")
            } else {
                format!("h{i}")
            }
        } else if vary && c > 0 {
            format!("in{i}[o{i} + {c} * {}]", self.group_stride(i))
        } else {
            format!("in{i}[o{i}]")
        }
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
                    split: None,
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

    /// The offsets, once per thread, of its row's first element in every input read by
    /// offset (`rb{i}`): the row index split into the kept axes' coordinates (the leading
    /// `nd - red_dims` axes; no division for the first), each input's strides applied.
    fn row_bases(&self, s: &mut String, form: Form) {
        let (p, it) = (self.p, self.it);
        let nd = p.shape.len();
        let kept = nd - self.red_dims;
        let strided = |i: usize| self.strided(i);
        // With a group, `row` counts groups: it splits into the coordinates of the kept axes
        // before the group's axis, whose own coordinate is 0 at the group's first row.
        let split = if self.gk() > 0 { kept - 1 } else { kept };
        if (0..p.inputs.len()).any(strided) && split > 0 {
            let _ = writeln!(s, "  {it} q_ = row;");
            for d in (1..split).rev() {
                let _ = writeln!(s, "  {it} c{d} = q_ % ({it})s{d}; q_ /= ({it})s{d};");
            }
            let _ = writeln!(s, "  {it} c0 = q_;");
        }
        let first = self.first_row();
        for (i, inp) in p.inputs.iter().enumerate() {
            if inp.gather_len.is_some() || self.alias(i).is_some() {
                continue;
            }
            if strided(i) {
                let terms: String = (0..split)
                    .map(|d| format!(" + ({it})c{d} * ({it})st{i}_{d}"))
                    .collect();
                let _ = writeln!(s, "  {it} rb{i} = ({it})off{i}{terms};");
            } else {
                let _ = writeln!(s, "  {it} rb{i} = ({it})off{i} + {first} * ({it})inner;");
            }
        }
        // The row's one value of each steady input, read only where the row has elements
        // (and, lanes of a warp per row, is a row).
        let live = match form {
            Form::WarpRows(_) | Form::Columns(_) => "live_ && inner > 0",
            _ => "inner > 0",
        };
        for (i, inp) in p.inputs.iter().enumerate() {
            if !self.is_steady(i) {
                continue;
            }
            let st = inp.dtype.c_storage();
            if self.gk() > 0 && self.group.varies(i) {
                for c in 0..self.gk() {
                    let at = if c == 0 {
                        format!("rb{i}")
                    } else {
                        format!("rb{i} + {c} * {}", self.group_stride(i))
                    };
                    let _ = writeln!(
                        s,
                        "  {st} h{i}_{c}{{}}; if ({live}) h{i}_{c} = in{i}[{at}];"
                    );
                }
            } else {
                let _ = writeln!(s, "  {st} h{i}{{}}; if ({live}) h{i} = in{i}[rb{i}];");
            }
        }
    }

    /// Whether input `i` is read once per row (before the row's loop, as `h{i}`).
    fn is_steady(&self, i: usize) -> bool {
        i < 64
            && self.steady >> i & 1 == 1
            && self.p.inputs[i].gather_len.is_none()
            && self.red_dims < self.p.shape.len()
    }

    /// The offsets `o{i}` of row element `j` from the row's bases: `j` itself (contiguous
    /// inputs) or `j` times the one reduced axis's stride, with no division; several reduced
    /// axes split `j` into their coordinates (the first needs no remainder: `j < inner`).
    fn element_offsets(&self, s: &mut String) {
        let (p, it) = (self.p, self.it);
        let nd = p.shape.len();
        let kept = nd - self.red_dims;
        let strided = |i: usize| {
            p.inputs[i].gather_len.is_none() && !p.inputs[i].layout.is_contiguous(&p.shape)
        };
        if (0..p.inputs.len()).any(strided) && self.red_dims > 1 {
            let _ = writeln!(s, "    {it} q2_ = j;");
            for d in (kept + 1..nd).rev() {
                let _ = writeln!(s, "    {it} e{d} = q2_ % ({it})s{d}; q2_ /= ({it})s{d};");
            }
            let _ = writeln!(s, "    {it} e{kept} = q2_;");
        }
        for (i, inp) in p.inputs.iter().enumerate() {
            if inp.gather_len.is_some() || self.is_steady(i) || self.alias(i).is_some() {
                continue;
            }
            let off = if !strided(i) {
                format!("rb{i} + j")
            } else if self.red_dims == 1 {
                format!("rb{i} + j * ({it})st{i}_{}", nd - 1)
            } else {
                let terms: String = (kept..nd)
                    .map(|d| format!(" + ({it})e{d} * ({it})st{i}_{d}"))
                    .collect();
                format!("rb{i}{terms}")
            };
            let _ = writeln!(s, "    {it} o{i} = {off};");
        }
    }

    /// The scalar sweep (or, `one_per_thread`, the one element of each thread).
    fn scalar_loop(&self, s: &mut String, form: Form) {
        let (p, it) = (self.p, self.it);
        let one_per_thread = form == Form::OnePerThread;
        // Offsets from the row's bases where the reduced axes are known; else every
        // element's linear index split into coordinates.
        let by_row = self.red_dims < p.shape.len();
        if by_row {
            self.row_bases(s, form);
        }
        if let Form::WarpRows(lanes) = form {
            let _ = writeln!(
                s,
                "  for ({it} j = ({it})sub_; live_ && j < ({it})inner; j += {lanes}) {{"
            );
        } else if let Form::Columns(lanes) = form {
            // Independent loads of several elements in flight per thread.
            let _ = writeln!(
                s,
                "  #pragma unroll 4\n  for ({it} j = lo_ + ({it})ty_; live_ && j < hi_; j += {}) {{",
                BLOCK / lanes
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
        let _ = writeln!(s, "    {it} i = {} * ({it})inner + j;", self.first_row());
        if by_row {
            self.element_offsets(s);
        } else {
            s.push_str(&index_code(
                p,
                Variant {
                    strided_out: false,
                    ..self.v
                },
                "i",
                it,
            ));
        }
        if self.gk() > 0 {
            self.group_elements(s, by_row);
        } else {
            let e = Emit::converted(p, |i| self.element_read(i, 0, by_row), "i", "");
            emit_lane(&e, s);
            let k = p.outputs[0];
            let _ = writeln!(
                s,
                "    acc = comb(acc, {});",
                self.to_acc(&format!("v{k}"), "j")
            );
        }
        let _ = writeln!(s, "  }}");
        if one_per_thread {
            let _ = writeln!(s, "  }}");
        }
    }

    /// One element of each row of a group: the steps shared by the rows once, then each
    /// row's dependent steps (its coordinate along the group's axis a constant, its linear
    /// index `i` plus whole rows), each row's value entering its own accumulator.
    fn group_elements(&self, s: &mut String, by_row: bool) {
        let (p, it) = (self.p, self.it);
        let axis = self.group_axis();
        let shared = Emit {
            split: Some(Split {
                dep: &self.dep,
                axis,
                lane: None,
            }),
            ..Emit::converted(p, |i| self.element_read(i, 0, by_row), "i", "")
        };
        emit_lane(&shared, s);
        for c in 0..self.gk() {
            let lin = if c == 0 {
                "i".to_string()
            } else {
                format!("(i + {c} * ({it})inner)")
            };
            let e = Emit {
                split: Some(Split {
                    dep: &self.dep,
                    axis,
                    lane: Some(c),
                }),
                ..Emit::converted(
                    p,
                    |i| self.element_read(i, c, by_row),
                    lin,
                    format!("_c{c}"),
                )
            };
            emit_lane(&e, s);
        }
        let k = p.outputs[0];
        for c in 0..self.gk() {
            let v = if self.dep[k] {
                format!("v{k}_c{c}")
            } else {
                format!("v{k}")
            };
            let _ = writeln!(s, "    acc{c} = comb(acc{c}, {});", self.to_acc(&v, "j"));
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
            let r = store_conv(self.out_d, &cast_expr(self.acc_d, self.out_d, acc));
            match self.finish {
                Finish::Plain => r,
                Finish::Divide => divided(self.out_d, &r),
            }
        }
    }

    /// The row's lanes' tree by shuffles (lane `l` takes lane `l + w`'s accumulator, `w`
    /// halving from `lanes / 2`; a lane reads only lanes of its own row where its result is
    /// read on), then the write of the row's first lane. A group's rows take the same tree,
    /// each on its own accumulator.
    fn finish_warp(&self, s: &mut String, lanes: u32) {
        if self.gk() == 0 {
            let _ = writeln!(
                s,
                "  for (int w = {}; w > 0; w >>= 1) acc = comb(acc, shfl_down_(acc, w));",
                lanes / 2
            );
            let fin = self.finished("acc");
            let _ = writeln!(s, "  if (sub_ == 0 && live_) out0[row] = {fin};");
            return;
        }
        let steps: String = self
            .accs()
            .iter()
            .map(|a| format!(" {a} = comb({a}, shfl_down_({a}, w));"))
            .collect();
        let _ = writeln!(
            s,
            "  for (int w = {}; w > 0; w >>= 1) {{{steps} }}",
            lanes / 2
        );
        let writes: String = self
            .accs()
            .iter()
            .enumerate()
            .map(|(c, a)| format!(" out0[r0_ + {c}] = {};", self.finished(a)))
            .collect();
        let _ = writeln!(s, "  if (sub_ == 0 && live_) {{{writes} }}");
    }

    /// The column form's end ([`reduction_columns`]): the lane rows' tree over `sh` (lane
    /// row `t` takes row `t + w`'s, `w` halving), leaving output `tx_`'s result in `sh[tx_]`;
    /// then the write (one chunk), or the partial, the count and the last block's combine.
    fn finish_columns(&self, s: &mut String, lanes: u32) {
        let it = self.it;
        let tree = format!(
            "  sh[threadIdx.x] = acc; __syncthreads();\n  for (int w = {}; w > 0; w >>= 1) {{ if (ty_ < w) sh[threadIdx.x] = comb(sh[threadIdx.x], sh[threadIdx.x + w * {lanes}]); __syncthreads(); }}\n",
            BLOCK / lanes / 2
        );
        s.push_str(&tree);
        let fin = self.finished("sh[tx_]");
        let _ = writeln!(
            s,
            "  if (nch == 1) {{ if (ty_ == 0 && live_) out0[row] = {fin}; return; }}"
        );
        let _ = writeln!(s, "  __shared__ int last_;");
        let _ = writeln!(
            s,
            "  if (ty_ == 0 && live_) rpart_[(i64t)ch * (i64t)rows_ + (i64t)row] = sh[tx_];"
        );
        let _ = writeln!(
            s,
            "  __threadfence(); __syncthreads();\n  if (threadIdx.x == 0) last_ = atomicAdd(&rcnt_[cb_], 1u) + 1u == (unsigned)nch;\n  __syncthreads();\n  if (!last_) return;\n  __threadfence();"
        );
        let l2_load = if self.acc_d.is_complex() {
            "cldcg"
        } else {
            "__ldcg"
        };
        let _ = writeln!(
            s,
            "  acc = {};\n  for ({it} k = ({it})ty_; live_ && k < nch; k += {}) acc = comb(acc, {l2_load}(&rpart_[(i64t)k * (i64t)rows_ + (i64t)row]));",
            self.ident(),
            BLOCK / lanes
        );
        s.push_str(&tree);
        let _ = writeln!(
            s,
            "  if (ty_ == 0 && live_) out0[row] = {fin};\n  if (threadIdx.x == 0) rcnt_[cb_] = 0u;"
        );
    }

    /// The block's tree over `sh` (a group's rows side by side, `BLOCK` slots each, in one
    /// tree), leaving row `c`'s result in `sh[c * BLOCK]`.
    fn block_tree(&self) -> String {
        if self.gk() == 0 {
            return format!(
                "  sh[threadIdx.x] = acc; __syncthreads();\n  for (int w = {} ; w > 0; w >>= 1) {{ if (threadIdx.x < w) sh[threadIdx.x] = comb(sh[threadIdx.x], sh[threadIdx.x + w]); __syncthreads(); }}\n",
                BLOCK / 2
            );
        }
        let mut t = String::from(" ");
        let mut stores = String::new();
        for (c, a) in self.accs().iter().enumerate() {
            let at = c * BLOCK as usize;
            let _ = write!(stores, " sh[{at} + threadIdx.x] = {a};");
            let _ = write!(
                t,
                " sh[{at} + threadIdx.x] = comb(sh[{at} + threadIdx.x], sh[{at} + threadIdx.x + w]);"
            );
        }
        format!(
            " {stores} __syncthreads();\n  for (int w = {} ; w > 0; w >>= 1) {{ if (threadIdx.x < w) {{{t} }} __syncthreads(); }}\n",
            BLOCK / 2
        )
    }

    /// The block's tree over `sh`, then the write of its result (or, `combine`, of its
    /// partial, the row's last block combining the row's partials). A group's rows: the same
    /// for each row, its partials at the row's place (`(row * nch + ch)`, as without a group),
    /// one counter for the group.
    fn finish(&self, s: &mut String, combine: bool) {
        let it = self.it;
        let tree = self.block_tree();
        s.push_str(&tree);
        let accs = self.accs();
        let grouped = self.gk() > 0;
        // Row `c`'s result in `sh`, and its row index.
        let slot = |c: usize| format!("sh[{}]", c * BLOCK as usize);
        let row_of = |c: usize| {
            if grouped {
                format!("(r0_ + {c})")
            } else {
                "row".to_string()
            }
        };
        if !combine {
            if !grouped {
                let fin = self.finished("sh[0]");
                let _ = writeln!(s, "  if (threadIdx.x == 0) out0[blockIdx.x] = {fin};");
                return;
            }
            let writes: String = (0..accs.len())
                .map(|c| {
                    format!(
                        " out0[{} * nch + ch] = {};",
                        row_of(c),
                        self.finished(&slot(c))
                    )
                })
                .collect();
            let _ = writeln!(s, "  if (threadIdx.x == 0) {{{writes} }}");
            return;
        }
        // Publish the partial, count the block in, and let the row's last block combine.
        let _ = writeln!(s, "  __shared__ int last_;");
        let publish: String = if grouped {
            (0..accs.len())
                .map(|c| format!(" rpart_[{} * nch + ch] = {};", row_of(c), slot(c)))
                .collect()
        } else {
            " rpart_[blockIdx.x] = sh[0];".to_string()
        };
        let _ = writeln!(
            s,
            "  if (threadIdx.x == 0) {{{publish} __threadfence(); last_ = atomicAdd(&rcnt_[row], 1u) + 1u == (unsigned)nch; }}"
        );
        let _ = writeln!(s, "  __syncthreads();");
        let _ = writeln!(s, "  if (!last_) return;");
        let _ = writeln!(s, "  __threadfence();");
        for a in &accs {
            let _ = writeln!(s, "  {a} = {};", self.ident());
        }
        let l2_load = if self.acc_d.is_complex() {
            "cldcg"
        } else {
            "__ldcg"
        };
        let takes: Vec<String> = accs
            .iter()
            .enumerate()
            .map(|(c, a)| {
                format!(
                    "{a} = comb({a}, {l2_load}(&rpart_[{} * nch + j]));",
                    row_of(c)
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "  for ({it} j = ({it})threadIdx.x; j < nch; j += {BLOCK}) {}",
            if grouped {
                format!("{{ {} }}", takes.join(" "))
            } else {
                takes.join(" ")
            }
        );
        s.push_str(&tree);
        let writes: String = (0..accs.len())
            .map(|c| {
                let at = if grouped {
                    format!("r0_ + {c}")
                } else {
                    "row".into()
                };
                format!(" out0[{at}] = {};", self.finished(&slot(c)))
            })
            .collect();
        let _ = writeln!(s, "  if (threadIdx.x == 0) {{{writes} rcnt_[row] = 0u; }}");
    }
}

/// A shuffle down the warp of a value of any trivially copyable type, as 32-bit words.
const SHUFFLE: &str = "template <typename T> __device__ __forceinline__ T shfl_down_(T v, int d) {
  unsigned int w_[(sizeof(T) + 3) / 4] = {};
  const unsigned char* s_ = reinterpret_cast<const unsigned char*>(&v);
  unsigned char* b_ = reinterpret_cast<unsigned char*>(w_);
  for (int k = 0; k < (int)sizeof(T); ++k) b_[k] = s_[k];
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); ++k) w_[k] = __shfl_down_sync(0xffffffffu, w_[k], d);
  T r;
  unsigned char* r_ = reinterpret_cast<unsigned char*>(&r);
  for (int k = 0; k < (int)sizeof(T); ++k) r_[k] = b_[k];
  return r;
}
";

/// `r` (a stored value of the real float dtype `d`) divided by the kernel's divisor `fdiv_` in
/// `d`, stored again: the element-wise kernels' division (`binary_expr`) of the loaded value by
/// the constant, whose value `d` holds exactly.
fn divided(d: DType, r: &str) -> String {
    let div = "__longlong_as_double((i64t)fdiv_)";
    let q = match d {
        DType::F64 => format!("({} / {div})", load_conv(d, r)),
        _ => format!("({} / (float){div})", load_conv(d, r)),
    };
    store_conv(d, &q)
}

fn reduction_kernel(
    p: &Program,
    op: ReduceOp,
    out_d: DType,
    v: Variant,
    form: Form,
    (combine, finish): (bool, Finish),
    ax: RowAxes,
) -> KernelSource {
    debug_assert!(finish.fits(op, out_d));
    let src_d = p.instrs[p.outputs[0]].dtype;
    let acc_d = if op.is_arg() {
        src_d
    } else {
        acc_dtype(op, src_d)
    };
    let it = if v.idx32 { "int" } else { "i64t" };
    let red_dims = (ax.red_dims as usize).min(p.shape.len());
    // A group needs a kept axis, and is read by offsets (never the vector form).
    let group = if red_dims < p.shape.len() && !v.vector {
        ax.group
    } else {
        OutGroup::default()
    };
    debug_assert!(ax.group.k == 0 || group.k == ax.group.k);
    let dep = if group.k > 0 {
        group.dependent(p, p.shape.len() - red_dims - 1)
    } else {
        Vec::new()
    };
    let r = Red {
        p,
        op,
        out_d,
        v,
        src_d,
        acc_d,
        it,
        outlined: v.vector && outline(p),
        red_dims,
        steady: ax.steady,
        group,
        dep,
        finish,
    };
    let name = "cuprite_reduce".to_string();
    let mut s = r.combine_fn();
    if r.outlined {
        s.push_str(&value_fn(p));
    }
    if matches!(form, Form::WarpRows(_)) {
        s.push_str(SHUFFLE);
    }
    let rows_param = if matches!(form, Form::Columns(_)) {
        ", u64t rows_"
    } else {
        ""
    };
    let extra = if combine {
        format!(
            "{rows_param}, {}* __restrict__ rpart_, unsigned int* rcnt_",
            cty(acc_d)
        )
    } else {
        String::new()
    };
    let fdiv = if finish == Finish::Divide {
        ", u64t fdiv_"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}({}, u64t inner, u64t chunks{extra}{fdiv}) {{",
        params(p, v, 1, &[out_d])
    );
    s.push_str(GRID_WAIT);
    let acc_t = r.acc_t();
    if !matches!(form, Form::WarpRows(_)) {
        let _ = writeln!(
            s,
            "  __shared__ {acc_t} sh[{}];",
            BLOCK as usize * r.group.len()
        );
    }
    for a in r.accs() {
        let _ = writeln!(s, "  {acc_t} {a} = {};", r.ident());
    }
    // Block `ch` of a row's `chunks` blocks takes every `chunks`-th tile of the row (all blocks
    // sweep the row together, grid-stride), so every block has the same work whatever the
    // number of blocks resident at once.
    if let Form::Columns(lanes) = form {
        // Lanes past the last output stay (no element, no write): every thread reaches the
        // block's barriers.
        // 32-bit division where the indices are (the grid and `chunks` fit).
        let cb = if v.idx32 {
            "(int)((unsigned)blockIdx.x / (unsigned)chunks)"
        } else {
            "(i64t)((u64t)blockIdx.x / chunks)"
        };
        let _ = writeln!(
            s,
            "  int tx_ = (int)(threadIdx.x % {lanes}u), ty_ = (int)(threadIdx.x / {lanes}u);\n  {it} nch = ({it})chunks;\n  {it} cb_ = {cb}, ch = ({it})blockIdx.x - cb_ * nch;\n  {it} row = cb_ * {lanes} + ({it})tx_;\n  bool live_ = row < ({it})rows_;\n  {it} per_ = (({it})inner + nch - 1) / nch;\n  {it} lo_ = ch * per_;\n  {it} hi_ = lo_ + per_ < ({it})inner ? lo_ + per_ : ({it})inner;"
        );
    } else if let Form::WarpRows(lanes) = form {
        // Lanes past the last row stay (no element, no write): the shuffles take every lane.
        let _ = writeln!(
            s,
            "  int sub_ = (int)(threadIdx.x & {}u);\n  {it} row = ({it})blockIdx.x * {} + ({it})(threadIdx.x / {lanes}u);\n  bool live_ = row < ({it})chunks;",
            lanes - 1,
            BLOCK / lanes
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
    if r.gk() > 0 {
        // `row` counts groups of rows; the group's first row.
        let _ = writeln!(s, "  {it} r0_ = row * {};", r.gk());
    }
    if form == Form::Looping {
        let _ = writeln!(s, "  {it} start = 0;");
    }
    if v.vector {
        r.vector_tiles(&mut s);
    }
    r.scalar_loop(&mut s, form);
    if let Form::WarpRows(lanes) = form {
        r.finish_warp(&mut s, lanes);
    } else if let Form::Columns(lanes) = form {
        r.finish_columns(&mut s, lanes);
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
    .waiting()
}
