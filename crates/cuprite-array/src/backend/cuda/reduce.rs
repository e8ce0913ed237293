//! Reductions of a program's output along its rows on CUDA: the plan (how many blocks share a
//! row, which kernel form), the kernel (built, or the interpreter standing in), the launch, and
//! the second pass over the partial results where a row's blocks do not combine them
//! themselves.
//!
//! Invariants: the plan is decided from the sizes, the dtypes and the stream only, the same
//! way on every stream and under capture, so a captured graph reduces in the same order, with
//! the same result, as an eager call. The device's row counters serve only its array stream
//! while it is not captured; every other one-launch reduction counts on counters of its own,
//! zeroed on its stream first.

use super::elementwise::{aligned, alloc, dev_of, launch, launch_interp, vector_allowed};
use crate::codegen::{self, BLOCK, ParamPlan, VEC, Variant};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::Program;
use crate::jit::{Kernel, KernelKind};
use crate::op::ReduceOp;
use crate::runtime::{DeviceState, state, stream_for};
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, Storage};
use cuprite_driver::Stream;
use std::sync::Arc;

/// Rows a one-launch reduction can count at once (one 32-bit counter a row).
const COMBINE_ROWS: usize = super::counters::SHARED_WORDS;

/// How one reduction runs: decided before its kernel is chosen.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Blocks a unit of rows wants (1: a block or a warp per unit). A unit is one row, or the
    /// rows reduced together (`codegen::RowAxes::group`).
    guess: usize,
    /// The kernel's variant (index width, vector loads).
    v: Variant,
    /// Rows of at most a warp's reach take this many lanes of a warp each (0: blocks).
    row_lanes: u32,
    /// Consecutive rows a block, one a thread, where the rows' elements are strided and
    /// neighbouring rows neighbouring elements (`codegen::reduction_columns`; 0: not).
    col_lanes: u32,
    /// Which trailing axes of the program the rows run over.
    axes: codegen::RowAxes,
    /// The dtype of the partial results of a pass of several blocks a row.
    pass_d: DType,
    /// The quick first build is the one-element-per-thread form.
    one_per_thread: bool,
    /// The last block of a row combines the row's partials (one launch).
    combine: bool,
    /// The dtype the kernel writes.
    kernel_d: DType,
    /// What the kernel writes for a row: a requested division where its launch writes the
    /// rows' results (see [`reduce`]).
    finish: codegen::Finish,
}

/// The plan of reducing `p`'s output (`outer` rows of `inner` elements) by `op` into `out_d`,
/// its inputs at `in_ptrs`; `divide`: the results are to be divided ([`reduce`]).
fn plan(
    st: &DeviceState,
    p: &Program,
    op: ReduceOp,
    (outer, inner): (usize, usize),
    (out_d, divide): (DType, bool),
    in_ptrs: &[u64],
) -> Plan {
    let src_d = p.instrs[p.outputs[0]].dtype;
    let arg = op.is_arg();
    let axes = codegen::RowAxes::of(p, inner);
    // Rows reduced together by one block (or lane group) count as one below: `outer` is
    // now the number of such units.
    let outer = outer / axes.rows_together();
    // Blocks per row: enough to fill the GPU once (every block resident at the same time, so
    // that no block waits for a second wave), at least 4 elements per thread (one vector).
    // Fewer, longer blocks leave a row of a few million elements on a quarter of the device's
    // threads, with too few loads in flight to cover the memory latency.
    let most = inner.div_ceil(BLOCK as usize * 4).max(1);
    let guess = if arg {
        1
    } else {
        most.min((st.sms as usize * 8 / outer).max(1))
    };
    let vector = vector_allowed()
        && axes.rows_together() == 1
        && codegen::vectorisable(p)
        && inner % VEC == 0
        && p.inputs
            .iter()
            .zip(in_ptrs)
            .all(|(i, &ptr)| aligned(ptr, i.layout.offset, i.dtype.size()));
    // 32-bit index math with room for the loop counters to step past the end.
    let idx32 = p.fits_i32() && numel(&p.shape) < (i32::MAX as usize) / 2;
    // Short rows that would each get a whole block take a warp each instead, or a part of one
    // (several rows a warp) where they are shorter still.
    // Rows whose elements lie apart while neighbouring rows' lie side by side: consecutive
    // threads take consecutive rows (coalesced loads), blocks split the rows' elements.
    let col_lanes = if outer <= i32::MAX as usize && codegen::columns_fit(p, op, inner, axes) {
        codegen::column_lanes(outer)
    } else {
        0
    };
    let warp_rows = col_lanes == 0 && guess == 1 && inner <= codegen::WARP_ROW_MAX;
    let row_lanes = if warp_rows {
        codegen::row_lanes(inner)
    } else {
        0
    };
    let v = Variant {
        idx32,
        vector: vector && !warp_rows && col_lanes == 0,
        strided_out: false,
    };
    let pass_d = if guess > 1 || col_lanes > 0 {
        codegen::acc_dtype(op, src_d)
    } else {
        out_d
    };
    // Whether the quick first build takes the one-element-per-thread form: decided from what
    // the kernel key holds (index width, operation, dtypes), never from the sizes, so that a
    // launch of the same kernel with other sizes agrees with how it was built. Its partials
    // are in the accumulator's dtype, so combining them loses nothing.
    let one_per_thread =
        idx32 && !arg && !warp_rows && col_lanes == 0 && pass_d == codegen::acc_dtype(op, src_d);
    // One launch instead of two where the rows' blocks can count themselves in: the last
    // block of a row combines its partials (`codegen::reduction`'s `combine`).
    // The column form always takes the partials and counters (used where it has several
    // chunks).
    let combine = col_lanes > 0 || (guess > 1 && outer <= COMBINE_ROWS && codegen::combinable(op));
    let kernel_d = if combine { out_d } else { pass_d };
    // The division goes into the kernels whose launch writes the rows' results: the combine
    // form, and one block (or lanes of a warp) a row. (Its quick first build and the
    // interpreter leave it to the caller.)
    let last = combine || (guess == 1 && col_lanes == 0);
    let finish = if divide && last && codegen::Finish::Divide.fits(op, kernel_d) {
        codegen::Finish::Divide
    } else {
        codegen::Finish::Plain
    };
    Plan {
        guess,
        v,
        row_lanes,
        col_lanes,
        axes,
        pass_d,
        one_per_thread,
        combine,
        kernel_d,
        finish,
    }
}

/// The kernel of plan `pl` (the optimised build, its quick first build, or the interpreter).
fn kernel(st: &'static DeviceState, p: &Program, op: ReduceOp, pl: Plan) -> Result<Arc<Kernel>> {
    let Plan {
        v,
        row_lanes,
        col_lanes,
        axes,
        pass_d,
        one_per_thread,
        combine,
        kernel_d,
        finish,
        ..
    } = pl;
    crate::jit::kernel_or_interp(
        st,
        p,
        KernelKind::Reduction {
            variant: v,
            op,
            pass: pass_d,
            written: kernel_d,
            combine,
            row_lanes: row_lanes as u8,
            col_lanes: col_lanes as u16,
            axes,
            finish,
        },
        || {
            if col_lanes > 0 {
                codegen::reduction_columns(p, op, kernel_d, v, axes, col_lanes, finish)
            } else if row_lanes > 0 {
                codegen::reduction_warp_rows(p, op, kernel_d, v, axes, row_lanes, finish)
            } else {
                codegen::reduction(p, op, kernel_d, v, combine, axes, finish)
            }
        },
        // The quick first build: where partials are combined anyway (several blocks per row)
        // and indices are 32-bit, the form with at most one element per thread and no loop
        // (launched with a block per BLOCK elements); else the scalar looping form of a
        // vectorised kernel (the vectorised one unrolls the producer 16 times, which NVRTC
        // takes several times longer to build).
        || {
            let scalar = Variant { vector: false, ..v };
            if row_lanes > 0 || col_lanes > 0 {
                None
            } else if one_per_thread {
                Some(codegen::reduction_one_per_thread(
                    p, op, pass_d, scalar, axes,
                ))
            } else {
                v.vector
                    .then(|| codegen::reduction(p, op, kernel_d, scalar, combine, axes, finish))
            }
        },
        // The interpreter stands in only where the quick build would be the one-element-per-
        // thread form (launched the same way below).
        |ip| {
            if !one_per_thread {
                return None;
            }
            let f = ip.reduction(op, pass_d)?.clone();
            codegen::interp::encode(p).map(|c| (f, c))
        },
    )
}

/// The least elements of a row a thread of the column form takes where the row is split
/// into chunks.
const COLUMN_MIN_PER_THREAD: usize = 8;

/// The chunks of the column form's rows (`codegen::reduction_columns`) for `outer` rows of
/// `inner` elements, `lanes` rows a block: enough blocks to fill the device once (by the
/// kernel's own occupancy), each thread taking at least [`COLUMN_MIN_PER_THREAD`] elements;
/// one chunk where the output groups outnumber the counters. Decided from the sizes and the
/// kernel only.
fn column_chunks(st: &DeviceState, k: &Kernel, lanes: u32, outer: usize, inner: usize) -> usize {
    let groups = outer.div_ceil(lanes as usize);
    if groups > COMBINE_ROWS {
        return 1;
    }
    let lane_rows = (BLOCK / lanes) as usize;
    let resident = st.sms as usize * k.blocks_per_sm.max(1) as usize;
    let most = inner.div_ceil(lane_rows * COLUMN_MIN_PER_THREAD).max(1);
    (resident / groups).clamp(1, most)
}

/// Reduces `p`'s output (`outer` rows of `inner` elements) by `op` into `out_d`. With `div`,
/// the caller divides the results by it (a value `out_d` holds exactly): the returned flag says
/// whether the last launch did so already (a sum into a real float dtype, written by a built
/// kernel of one of the forms that write the rows' results: the same values, see
/// `codegen::Finish`); where it did not, the caller divides.
pub(super) fn reduce(
    ordinal: usize,
    p: &Program,
    op: ReduceOp,
    (outer, inner): (usize, usize),
    out_d: DType,
    div: Option<f64>,
) -> Result<(Arc<Storage>, bool)> {
    let st = state(ordinal)?;
    let stream = stream_for(ordinal)?;
    if outer == 0 {
        // No results: nothing to divide.
        return Ok((Arc::new(Storage::Cuda(alloc(st, &stream, out_d, 0)?)), true));
    }
    let ins: Vec<&DevBuf> = p
        .inputs
        .iter()
        .map(|i| dev_of(&i.storage, ordinal))
        .collect::<Result<_>>()?;
    // A sum over the leading axis of one realised matrix: the vectorised column sums, where
    // switched on.
    let plain = crate::ops::linalg::column_sums_on()
        .then(|| crate::ops::linalg::plain_column_sums(p, op, (outer, inner), out_d))
        .flatten();
    if let Some(call) = plain {
        let mut out = alloc(st, &stream, out_d, outer)?;
        let lane = crate::exec::CudaLane {
            st,
            stream: &stream,
        };
        crate::ops::linalg::column_sums(
            &lane,
            &call,
            (ins[0], p.inputs[0].layout.offset),
            &mut out,
        )?;
        // Two kernels: the chunks' partial sums, then their sums.
        crate::stats::note_reduction_pass();
        crate::stats::note_reduction_pass();
        return Ok((Arc::new(Storage::Cuda(out)), div.is_none()));
    }
    let in_ptrs: Vec<u64> = ins.iter().map(|d| d.ptr()).collect();
    let pl = plan(st, p, op, (outer, inner), (out_d, div.is_some()), &in_ptrs);
    let k = kernel(st, p, op, pl)?;
    let chunks = if pl.col_lanes > 0 {
        column_chunks(st, &k, pl.col_lanes, outer, inner)
    } else if k.scalar && pl.one_per_thread {
        // The quick build's one-element-per-thread form: a block per BLOCK elements of a row.
        inner.div_ceil(BLOCK as usize).max(1)
    } else if pl.guess > 1 {
        // The kernel's own occupancy (its register count decides how many blocks fit), over
        // the units of rows reduced together.
        let resident = st.sms as usize * k.blocks_per_sm.max(1) as usize;
        let units = outer / pl.axes.rows_together();
        pl.guess.min((resident / units).max(1)).max(2)
    } else {
        1
    };
    // The launched kernel is the `combine` form unless the one-element-per-thread quick build
    // (or the interpreter) stands in for it: then its partials go to `part`, its counters
    // are the device's, and `out` holds the rows' results.
    let fused = pl.combine && k.interp.is_none() && !(k.scalar && pl.one_per_thread);
    // The launched kernel divides where it is the built form the plan asked to (not the
    // one-element-per-thread quick build or the interpreter standing in).
    let divides = pl.finish == codegen::Finish::Divide
        && k.interp.is_none()
        && !(k.scalar && pl.one_per_thread);
    let last = fused || chunks == 1;
    // A launch of partials divides by 1, which changes no value.
    let fdiv = divides.then(|| if last { div.unwrap_or(1.0) } else { 1.0 });
    let out = launch_rows(
        st,
        &stream,
        p,
        (&k, pl, fused),
        (outer, inner, chunks),
        (out_d, fdiv),
        (&ins, &in_ptrs),
    )?;
    let out = Arc::new(Storage::Cuda(out));
    if last {
        return Ok((out, div.is_none() || divides));
    }
    let shape = [outer, chunks];
    let leaf = crate::graph::Node::new(
        crate::graph::Op::Leaf(out, Layout::contiguous(&shape)),
        pl.pass_d,
        shape.to_vec(),
        Device::cuda(ordinal),
    );
    let p2 = Program::build(&[leaf]);
    reduce(ordinal, &p2, op, (outer, chunks), out_d, div)
}

/// Launches kernel `k` of plan `pl` over `outer` rows of `inner` elements, `chunks` blocks a
/// row (`fused`: the last block of a row writes its result), with the divisor `fdiv` where the
/// kernel takes one (`codegen::Finish::Divide`), and returns what it wrote: the rows' results
/// where fused or one block a row, else the partials (`outer * chunks` of `pl.pass_d`).
fn launch_rows(
    st: &'static DeviceState,
    stream: &Arc<Stream>,
    p: &Program,
    (k, pl, fused): (&Kernel, Plan, bool),
    (outer, inner, chunks): (usize, usize, usize),
    (out_d, fdiv): (DType, Option<f64>),
    (ins, in_ptrs): (&[&DevBuf], &[u64]),
) -> Result<DevBuf> {
    // Zero at the launch, left zero by it (`counters`).
    let counters = if fused {
        Some(super::counters::zeroed_counters(st, stream, COMBINE_ROWS)?)
    } else {
        None
    };
    let counters = counters.as_ref().map(|c| c.buf());
    let part = if fused {
        Some(alloc(st, stream, pl.pass_d, outer * chunks)?)
    } else {
        None
    };
    let out = if fused {
        alloc(st, stream, out_d, outer)?
    } else {
        alloc(st, stream, pl.pass_d, outer * chunks)?
    };
    crate::stats::note_reduction_pass();
    if let Some(code) = &k.interp {
        let frame =
            codegen::interp::frame(p, code, in_ptrs, out.ptr(), (inner as u64, chunks as u64));
        launch_interp(stream, k, (outer * chunks) as u32, &frame, ins, &[&out])?;
    } else {
        let mut plan = ParamPlan::new(p, pl.v, in_ptrs, &[out.ptr()], None);
        // The kernel's units: groups of rows reduced together (`codegen::RowAxes::group`),
        // else rows. The warp form takes the number of units where the others take `chunks`.
        let units = outer / pl.axes.rows_together();
        let rows_per_block = BLOCK.checked_div(pl.row_lanes).map(|r| r as usize);
        let (grid, second) = if pl.col_lanes > 0 {
            (outer.div_ceil(pl.col_lanes as usize) * chunks, chunks)
        } else if let Some(rows_per_block) = rows_per_block {
            (units.div_ceil(rows_per_block), units)
        } else {
            (units * chunks, chunks)
        };
        plan.words.extend_from_slice(&[inner as u64, second as u64]);
        if pl.col_lanes > 0 {
            // The column form's number of rows, before the partials and counters.
            plan.words.push(outer as u64);
        }
        let mut writes = [&out, &out, &out];
        let mut nw = 1;
        if let (Some(part), Some(c)) = (&part, counters) {
            plan.words.extend_from_slice(&[part.ptr(), c.ptr()]);
            writes = [&out, part, c];
            nw = 3;
        }
        // The divisor is the last parameter of a kernel that divides.
        if let Some(d) = fdiv {
            plan.words.push(d.to_bits());
        }
        launch(st, stream, k, grid as u32, &plan.words, ins, &writes[..nw])?;
    }
    Ok(out)
}
