//! The CUDA backend: plans and launches generated kernels (element-wise, into views, and
//! reductions) on the thread's array stream; kernels come from `jit`, buffers from `storage`.
//!
//! Every launch declares its reads and writes through cuprite's access API, so arrays shared
//! between threads working on different streams are ordered by the driver layer's tracking
//! (and single-stream programs pay nothing for it).

use super::contract::{Executor, FlagWord, LibraryInput, Limits};
use crate::codegen::{self, BLOCK, ParamPlan, VEC, Variant};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, FusedCall, LibraryCall, Node, Program};
use crate::jit::KernelKind;
use crate::op::ReduceOp;
use crate::runtime::{DeviceState, state, stream_for, stream_of};
use crate::shape::{Layout, numel};
use crate::stats::Phase;
use crate::storage::{DevBuf, Storage};
use crate::util::Inline;
use std::sync::Arc;

mod direct;
mod elementwise;
mod flag;

pub use elementwise::set_vectorize;
pub(crate) use elementwise::{aligned, vector_allowed};
use elementwise::{alloc, dev_of, launch, launch_interp, run_elementwise};

/// The CUDA backend.
pub(crate) struct Cuda;

impl Executor for Cuda {
    fn upload(&self, d: Device, dtype: DType, len: usize, bytes: &[u8]) -> Result<Arc<Storage>> {
        upload(d.ordinal, dtype, len, bytes)
    }

    fn download(&self, s: &Storage) -> Result<Vec<u8>> {
        match s {
            Storage::Cuda(d) => download(d),
            Storage::Host(_) => Err(Error::DeviceMismatch(
                "the CUDA backend was asked to read host memory".into(),
            )),
        }
    }

    fn eval(&self, d: Device, prog: &Program) -> Result<Vec<Arc<Storage>>> {
        eval(d.ordinal, prog)
    }

    fn eval_one(&self, d: Device, prog: &Program) -> Result<Arc<Storage>> {
        eval_one(d.ordinal, prog)
    }

    fn eval_small(&self, d: Device, node: &Arc<Node>) -> Result<Option<Arc<Storage>>> {
        direct::eval_small(d.ordinal, node)
    }

    fn eval_into_views(
        &self,
        d: Device,
        dtype: DType,
        len: usize,
        pieces: &[(Program, Layout)],
    ) -> Result<Arc<Storage>> {
        assemble(d.ordinal, dtype, len, pieces)
    }

    fn reduce(
        &self,
        d: Device,
        prog: &Program,
        op: ReduceOp,
        outer: usize,
        inner: usize,
        out: DType,
    ) -> Result<Arc<Storage>> {
        reduce(d.ordinal, prog, op, outer, inner, out)
    }

    fn library(
        &self,
        d: Device,
        call: &dyn LibraryCall,
        inputs: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>> {
        let st = state(d.ordinal)?;
        let stream = stream_of(st);
        let stream = stream.get();
        let mut ins = Vec::with_capacity(inputs.len());
        for i in inputs {
            ins.push(CallInput {
                buf: dev_of(&i.storage, d.ordinal)?,
                layout: &i.layout,
                shape: &i.shape,
                dtype: i.dtype,
            });
        }
        let mut buf = alloc(st, stream, out, len)?;
        call.run_cuda(&CudaLane { st, stream }, &ins, &mut buf)?;
        Ok(Arc::new(Storage::Cuda(buf)))
    }

    fn library_fused(
        &self,
        d: Device,
        call: &dyn FusedCall,
        prog: &Program,
        rest: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>> {
        let st = state(d.ordinal)?;
        let stream = stream_of(st);
        let stream = stream.get();
        let mut ins = Vec::with_capacity(rest.len());
        for i in rest {
            ins.push(CallInput {
                buf: dev_of(&i.storage, d.ordinal)?,
                layout: &i.layout,
                shape: &i.shape,
                dtype: i.dtype,
            });
        }
        for i in &prog.inputs {
            dev_of(&i.storage, d.ordinal)?;
        }
        let mut buf = alloc(st, stream, out, len)?;
        call.run_cuda_fused(&CudaLane { st, stream }, prog, &ins, &mut buf)?;
        Ok(Arc::new(Storage::Cuda(buf)))
    }

    fn copy_from(&self, d: Device, src: &Storage) -> Result<Option<Arc<Storage>>> {
        match src {
            Storage::Cuda(b) => copy_to(b, d.ordinal).map(Some),
            Storage::Host(_) => Ok(None),
        }
    }

    fn flag_word(&self, d: Device) -> Result<FlagWord> {
        flag::flag_word(d.ordinal)
    }

    fn flag_raised(&self, flag: &FlagWord) -> Result<bool> {
        flag::flag_raised(flag)
    }

    fn limits(&self) -> Limits {
        Limits {
            fft_real_last_axis: true,
            fft_c2r_reads_edges: true,
            gemm_f64_epilogues_limited: true,
        }
    }

    fn cuda_ordinal(&self, d: Device) -> Option<usize> {
        Some(d.ordinal)
    }

    fn sync(&self, d: Device) -> Result<()> {
        crate::runtime::sync(d.ordinal)
    }

    fn mem_info(&self, d: Device) -> Result<(usize, usize)> {
        crate::runtime::mem_info(d.ordinal)
    }

    fn gc(&self, d: Device) -> Result<()> {
        // Kernels retired before the device is synchronised have finished once it is.
        let retired = crate::jit::take_retired();
        crate::storage::drop_parked(d.ordinal);
        crate::runtime::gc(d.ordinal)?;
        drop(retired);
        Ok(())
    }
}

/// Rows a one-launch reduction can count at once (one 32-bit counter a row).
const COMBINE_ROWS: usize = crate::runtime::ROW_COUNTER_BYTES / 4;

/// Each device's row counters of one-launch reductions: zeroed when the device's state was
/// made, and set back to zero by the block that finishes a row, so they are zero between
/// launches on the array stream.
static COUNTERS: [std::sync::OnceLock<Option<DevBuf>>; crate::memory::MAX_DEVICES] =
    [const { std::sync::OnceLock::new() }; crate::memory::MAX_DEVICES];

/// The row counters of device `st`: the buffer its state made, taken on first use.
fn row_counters(st: &DeviceState) -> Result<&'static DevBuf> {
    let slot = COUNTERS.get(st.ordinal).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "CUDA device {} is beyond the {} devices the array library serves",
            st.ordinal,
            crate::memory::MAX_DEVICES
        ))
    })?;
    slot.get_or_init(|| {
        let buf = st
            .row_counters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        let c = DevBuf::adopt(buf, DType::U32, COMBINE_ROWS, st.ordinal, None);
        // The runtime's, kept for the process, not an array's: not counted as array memory.
        crate::memory::on_free(Device::cuda(st.ordinal), crate::runtime::ROW_COUNTER_BYTES);
        Some(c)
    })
    .as_ref()
    .ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the row counters of CUDA device {} are gone",
            st.ordinal
        ))
    })
}

fn upload(ordinal: usize, dtype: DType, len: usize, bytes: &[u8]) -> Result<Arc<Storage>> {
    if !bytes.is_empty() {
        crate::runtime::refuse_in_capture_because(
            "an upload from the host (from_slice, from_vec, an array made from host data)",
            "the graph would copy from host memory that is gone by the next replay; make the \
             array outside the closure and pass it as an input or use it from the closure's \
             environment",
        )?;
    }
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let mut d = alloc(st, stream, dtype, len)?;
    if let Some(b) = d.buffer_mut().filter(|_| !bytes.is_empty()) {
        stream.memcpy_htod(bytes, b)?;
    }
    Ok(Arc::new(Storage::Cuda(d)))
}

fn download(d: &DevBuf) -> Result<Vec<u8>> {
    crate::runtime::refuse_in_capture("to_vec/item (a read to the host)")?;
    if d.len() == 0 {
        return Ok(Vec::new());
    }
    let stream = stream_for(d.ordinal())?;
    Ok(stream.clone_dtoh(d.buffer()?)?)
}

/// A copy of device buffer `src` on CUDA device `ordinal`, made on that device's array stream:
/// GPU to GPU where the two can reach each other (peer access is enabled on first use), staged
/// through the host by the driver only where they cannot. `cuprite_driver::peer::stats` counts each
/// path; the stream tracker orders the copy after `src`'s writer on its own device.
pub(crate) fn copy_to(src: &DevBuf, ordinal: usize) -> Result<Arc<Storage>> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let mut out = alloc(st, stream, src.dtype(), src.len())?;
    if let (Some(s), Some(d)) = (src.live(), out.buffer_mut()) {
        if !cuprite_driver::DeviceRead::<u8>::is_empty(s) {
            stream.memcpy_dtod(s, d)?;
        }
    }
    Ok(Arc::new(Storage::Cuda(out)))
}

fn eval(ordinal: usize, p: &Program) -> Result<Vec<Arc<Storage>>> {
    let n = numel(&p.shape);
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let outs: Vec<DevBuf> = p
        .outputs
        .iter()
        .map(|&o| alloc(st, stream, p.instrs[o].dtype, n))
        .collect::<Result<_>>()?;
    {
        let refs: Inline<&DevBuf, 8> = outs.iter().collect();
        run_elementwise(st, ordinal, stream, p, &refs, None, None)?;
    }
    Ok(outs
        .into_iter()
        .map(|d| Arc::new(Storage::Cuda(d)))
        .collect())
}

/// [`eval`] of a program of one output.
fn eval_one(ordinal: usize, p: &Program) -> Result<Arc<Storage>> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let dtype = p.instrs[p.outputs[0]].dtype;
    let out = alloc(st, stream, dtype, numel(&p.shape))?;
    crate::stats::phase_end(Phase::Buffer);
    run_elementwise(st, ordinal, stream, p, &[&out], None, None)?;
    Ok(Arc::new(Storage::Cuda(out)))
}

fn assemble(
    ordinal: usize,
    dtype: DType,
    len: usize,
    pieces: &[(Program, Layout)],
) -> Result<Arc<Storage>> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let out = alloc(st, stream, dtype, len)?;
    for (p, l) in pieces {
        run_elementwise(st, ordinal, stream, p, &[&out], Some(l), None)?;
    }
    Ok(Arc::new(Storage::Cuda(out)))
}

fn reduce(
    ordinal: usize,
    p: &Program,
    op: ReduceOp,
    outer: usize,
    inner: usize,
    out_d: DType,
) -> Result<Arc<Storage>> {
    let st = state(ordinal)?;
    let stream = stream_for(ordinal)?;
    if outer == 0 {
        return Ok(Arc::new(Storage::Cuda(alloc(st, &stream, out_d, 0)?)));
    }
    let src_d = p.instrs[p.outputs[0]].dtype;
    let arg = matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax);
    // Blocks per row: enough to fill the GPU once (every block resident at the same time, so
    // that no block waits for a second wave), at least 16 elements per thread.
    let most = inner.div_ceil(BLOCK as usize * 16).max(1);
    let guess = if arg {
        1
    } else {
        most.min((st.sms as usize * 8 / outer).max(1))
    };
    let ins: Vec<&DevBuf> = p
        .inputs
        .iter()
        .map(|i| dev_of(&i.storage, ordinal))
        .collect::<Result<_>>()?;
    let in_ptrs: Vec<u64> = ins.iter().map(|d| d.ptr()).collect();
    let vector = vector_allowed()
        && codegen::vectorisable(p)
        && inner % VEC == 0
        && p.inputs
            .iter()
            .zip(&in_ptrs)
            .all(|(i, &ptr)| aligned(ptr, i.layout.offset, i.dtype.size()));
    // 32-bit index math with room for the loop counters to step past the end.
    let idx32 = p.fits_i32() && numel(&p.shape) < (i32::MAX as usize) / 2;
    // Short rows that would each get a whole block take a warp each instead.
    let warp_rows = guess == 1 && inner <= codegen::WARP_ROW_MAX;
    let v = Variant {
        idx32,
        vector: vector && !warp_rows,
        strided_out: false,
    };
    let pass_d = if guess > 1 {
        codegen::acc_dtype(op, src_d)
    } else {
        out_d
    };
    // Whether the quick first build takes the one-element-per-thread form: decided from what
    // the kernel key holds (index width, operation, dtypes), never from the sizes, so that a
    // launch of the same kernel with other sizes agrees with how it was built. Its partials
    // are in the accumulator's dtype, so combining them loses nothing.
    let one_per_thread = idx32 && !arg && !warp_rows && pass_d == codegen::acc_dtype(op, src_d);
    // One launch instead of two where the rows' blocks can count themselves in: the last
    // block of a row combines its partials (`codegen::reduction`'s `combine`). Chosen the same
    // way on every stream and under capture, so a captured graph reduces in the same order,
    // with the same result, as an eager call.
    let combine = guess > 1 && outer <= COMBINE_ROWS && codegen::combinable(op, src_d);
    // The device's row counters serve only its array stream, whose launches never overlap,
    // and only while that stream is not captured (a graph may run beside it); any other
    // launch counts on counters of its own.
    let shared_counters = Arc::ptr_eq(&stream, &st.stream)
        && !crate::runtime::capturing()
        && matches!(
            st.stream.capture_status(),
            Ok(cuprite_driver::CaptureStatus::None)
        );
    let kernel_d = if combine { out_d } else { pass_d };
    let k = crate::jit::kernel_or_interp(
        st,
        p,
        KernelKind::Reduction {
            variant: v,
            op,
            pass: pass_d,
            written: kernel_d,
            combine,
            warp_rows,
        },
        || {
            if warp_rows {
                codegen::reduction_warp_rows(p, op, kernel_d, v)
            } else {
                codegen::reduction(p, op, kernel_d, v, combine)
            }
        },
        // The quick first build: where partials are combined anyway (several blocks per row)
        // and indices are 32-bit, the form with at most one element per thread and no loop
        // (launched with a block per BLOCK elements); else the scalar looping form of a
        // vectorised kernel (the vectorised one unrolls the producer 16 times, which NVRTC
        // takes several times longer to build).
        || {
            let scalar = Variant { vector: false, ..v };
            if warp_rows {
                None
            } else if one_per_thread {
                Some(codegen::reduction_one_per_thread(p, op, pass_d, scalar))
            } else {
                v.vector
                    .then(|| codegen::reduction(p, op, kernel_d, scalar, combine))
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
    )?;
    let chunks = if k.scalar && one_per_thread {
        // The quick build's one-element-per-thread form: a block per BLOCK elements of a row.
        inner.div_ceil(BLOCK as usize).max(1)
    } else if guess > 1 {
        // The kernel's own occupancy (its register count decides how many blocks fit).
        let resident = st.sms as usize * k.blocks_per_sm.max(1) as usize;
        guess.min((resident / outer).max(1)).max(2)
    } else {
        1
    };
    // The launched kernel is the `combine` form unless the one-element-per-thread quick build
    // (or the interpreter) stands in for it: then its partials go to `part`, its counters
    // are the device's, and `out` holds the rows' results.
    let fused = combine && k.interp.is_none() && !(k.scalar && one_per_thread);
    // Counters of its own are zeroed on the launch's stream first (captured, in the graph
    // before each replay): the device's are written by eager work on other streams, and a
    // stream that waited for a write made inside a capture in progress would join that capture.
    let own_counters;
    let counters = if !fused {
        None
    } else if !shared_counters {
        let mut c = alloc(st, &stream, DType::U32, COMBINE_ROWS)?;
        if let Some(b) = c.buffer_mut() {
            stream.memset_zeros(b)?;
        }
        own_counters = c;
        Some(&own_counters)
    } else {
        Some(row_counters(st)?)
    };
    let part = if fused {
        Some(alloc(st, &stream, pass_d, outer * chunks)?)
    } else {
        None
    };
    let out = if fused {
        alloc(st, &stream, out_d, outer)?
    } else {
        alloc(st, &stream, pass_d, outer * chunks)?
    };
    if let Some(code) = &k.interp {
        let frame =
            codegen::interp::frame(p, code, &in_ptrs, out.ptr(), (inner as u64, chunks as u64));
        launch_interp(&stream, &k, (outer * chunks) as u32, &frame, &ins, &[&out])?;
    } else {
        let mut plan = ParamPlan::new(p, v, &in_ptrs, &[out.ptr()], None);
        // The warp form takes the number of rows where the others take `chunks`.
        let (grid, second) = if warp_rows {
            (outer.div_ceil(BLOCK as usize / 32), outer)
        } else {
            (outer * chunks, chunks)
        };
        plan.words.extend_from_slice(&[inner as u64, second as u64]);
        let mut writes = [&out, &out, &out];
        let mut nw = 1;
        if let (Some(part), Some(c)) = (&part, counters) {
            plan.words.extend_from_slice(&[part.ptr(), c.ptr()]);
            writes = [&out, part, c];
            nw = 3;
        }
        launch(&stream, &k, grid as u32, &plan.words, &ins, &writes[..nw])?;
    }
    let out = Arc::new(Storage::Cuda(out));
    if fused || chunks == 1 {
        return Ok(out);
    }
    let shape = [outer, chunks];
    let leaf = crate::graph::Node::new(
        crate::graph::Op::Leaf(out, Layout::contiguous(&shape)),
        pass_d,
        shape.to_vec(),
        Device::cuda(ordinal),
    );
    let p2 = Program::build(&[leaf]);
    reduce(ordinal, &p2, op, outer, chunks, out_d)
}
