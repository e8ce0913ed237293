//! The CUDA backend: plans and launches generated kernels (element-wise, into views, and
//! reductions) on the thread's array stream; kernels come from `jit`, buffers from `storage`.
//!
//! Every launch declares its reads and writes through cuprite's access API, so arrays shared
//! between threads working on different streams are ordered by the driver layer's tracking
//! (and single-stream programs pay nothing for it).

use super::{Backend, LibraryInput};
use crate::codegen::{self, BLOCK, ParamPlan, VEC, Variant};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{CallInput, FusedCall, LibraryCall, Node, Program};
use crate::jit::Kernel;
use crate::op::ReduceOp;
use crate::runtime::{DeviceState, state, stream_for, stream_of};
use crate::shape::{Layout, numel};
use crate::stats::Phase;
use crate::storage::{DevBuf, Storage};
use crate::util::{Fnv, Inline};
use cuprite_driver::{Access, Stream};
use std::hash::Hasher;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

mod direct;

/// The CUDA backend.
pub(crate) struct Cuda;

impl Backend for Cuda {
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
        call.run_cuda(st, stream, &ins, &mut buf)?;
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
        call.run_cuda_fused(st, stream, prog, &ins, &mut buf)?;
        Ok(Arc::new(Storage::Cuda(buf)))
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

/// A new buffer of `len` elements of `dtype` on `stream`.
fn alloc(st: &DeviceState, stream: &Arc<Stream>, dtype: DType, len: usize) -> Result<DevBuf> {
    // SAFETY: every buffer made here is fully written by a kernel or copy before any read.
    unsafe { DevBuf::alloc(st, stream, dtype, len) }
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
    Ok(stream.clone_dtoh(d.buffer())?)
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

fn dev_of(s: &Storage, ordinal: usize) -> Result<&DevBuf> {
    match s {
        Storage::Cuda(d) if d.ordinal() == ordinal => Ok(d),
        Storage::Cuda(d) => Err(Error::DeviceMismatch(format!(
            "an input lives on CUDA device {}, the operation runs on device {ordinal}",
            d.ordinal()
        ))),
        Storage::Host(_) => Err(Error::DeviceMismatch(
            "an input lives on the CPU backend, the operation runs on CUDA".into(),
        )),
    }
}

/// Launches `k` over `grid` blocks of [`BLOCK`] threads on `stream` with the parameter words
/// of a [`ParamPlan`], declaring the buffers it reads and writes.
fn launch(
    stream: &Arc<Stream>,
    k: &Kernel,
    grid: u32,
    words: &[u64],
    reads: &[&DevBuf],
    writes: &[&DevBuf],
) -> Result<()> {
    // The accesses, inline for up to 16 buffers (no allocation on the hot path).
    let mut acc: Inline<Access<'_>, 16> = Inline::new();
    for b in reads.iter().filter_map(|d| d.live()) {
        acc.push(Access::read(b));
    }
    for b in writes.iter().filter_map(|d| d.live()) {
        acc.push(Access::write(b));
    }
    // SAFETY: the words are the kernel's parameters in order (codegen's `ParamPlan` lays them
    // out from the same description as the kernel's signature); every address among them is
    // one of the buffers declared in `acc` (inputs and outputs of the program, over the ranges
    // the program's layouts reach, checked when the arrays were made), alive until the kernel
    // has run (frees are stream-ordered after the declared accesses).
    unsafe { stream.launch_packed(&k.func, (grid, 1, 1), (BLOCK, 1, 1), 0, words, &acc) }?;
    Ok(())
}

/// Launches the interpreter kernel `k` over `grid` blocks with `frame` as its parameter,
/// declaring the buffers it reads and writes.
fn launch_interp(
    stream: &Arc<Stream>,
    k: &Kernel,
    grid: u32,
    frame: &[u64],
    reads: &[&DevBuf],
    writes: &[&DevBuf],
) -> Result<()> {
    let mut acc: Inline<Access<'_>, 16> = Inline::new();
    for b in reads.iter().filter_map(|d| d.live()) {
        acc.push(Access::read(b));
    }
    for b in writes.iter().filter_map(|d| d.live()) {
        acc.push(Access::write(b));
    }
    // SAFETY: `frame` is the interpreter's parameter (codegen::interp lays it out as its
    // kernels read it); every address in it is one of the buffers declared in `acc` (the
    // program's inputs and output, over the ranges its layouts reach, checked when the arrays
    // were made), alive until the kernel has run (frees are stream-ordered after the accesses).
    unsafe {
        stream.launch_struct(
            &k.func,
            (grid, 1, 1),
            (BLOCK, 1, 1),
            bytemuck::cast_slice(frame),
            &acc,
        )
    }?;
    Ok(())
}

/// The salt of a kernel key ([`Program::structure_hash`]): variant and kind of kernel.
fn salt_of(v: Variant, kind: u64) -> u64 {
    (v.idx32 as u64) | (v.vector as u64) << 1 | (v.strided_out as u64) << 2 | kind << 8
}

/// 2: not yet read from the configuration; else 0 or 1.
static VECTOR: AtomicU8 = AtomicU8::new(2);

/// Turns the vectorised kernel variants on or off for the whole process (on by default;
/// `CUPRITE_ARRAY_NO_VECTOR=1` starts with them off). For diagnosis and tests of both paths.
pub fn set_vectorize(on: bool) {
    VECTOR.store(on as u8, Ordering::Relaxed);
}

pub(crate) fn vector_allowed() -> bool {
    match VECTOR.load(Ordering::Relaxed) {
        2 => {
            let on = crate::jit::JitConfig::get().vectorize;
            VECTOR.store(on as u8, Ordering::Relaxed);
            on
        }
        v => v == 1,
    }
}

/// Whether element `off` of `size`-byte elements at `ptr` starts a [`VEC`]-element vector
/// (`VEC * size` is a power of two: a mask, not a division).
pub(crate) fn aligned(ptr: u64, off: usize, size: usize) -> bool {
    debug_assert!((VEC * size).is_power_of_two());
    (ptr.wrapping_add(off.wrapping_mul(size) as u64)) & ((VEC * size) as u64 - 1) == 0
}

/// Blocks of [`BLOCK`] threads for `n` elements, [`VEC`] a thread when `vector` (shifts, not a
/// division: both are powers of two).
pub(crate) fn blocks_for(n: usize, vector: bool) -> u32 {
    let per_block = BLOCK as usize * if vector { VEC } else { 1 };
    debug_assert!(per_block.is_power_of_two());
    ((n >> per_block.trailing_zeros()) + (n & (per_block - 1) != 0) as usize) as u32
}

/// Evaluates `p` into `outs` (contiguous, or one output through `out_layout`) on `stream`;
/// `capture`, when given, receives the compiled kernel launched and its variant.
fn run_elementwise(
    st: &'static DeviceState,
    ordinal: usize,
    stream: &Arc<Stream>,
    p: &Program,
    outs: &[&DevBuf],
    out_layout: Option<&Layout>,
    capture: Option<&mut direct::Capture>,
) -> Result<()> {
    let n = numel(&p.shape);
    if n == 0 {
        return Ok(());
    }
    let mut ins: Inline<&DevBuf, 16> = Inline::new();
    for i in &p.inputs {
        ins.push(dev_of(&i.storage, ordinal)?);
    }
    let in_ptrs: Inline<u64, 16> = ins.iter().map(|d| d.ptr()).collect();
    let strided_out = out_layout.is_some_and(|l| !l.is_contiguous(&p.shape));
    let out_off = out_layout.map(|l| l.offset).unwrap_or(0);
    let out_ptrs: Inline<u64, 8> = outs
        .iter()
        .map(|d| {
            if strided_out {
                d.ptr()
            } else {
                d.ptr() + (out_off * d.dtype().size()) as u64
            }
        })
        .collect();
    let idx32 = p.fits_i32()
        && out_layout.is_none_or(|l| {
            let (lo, hi) = l.extent(&p.shape);
            lo >= 0 && hi < i32::MAX as isize
        });
    let vector = vector_allowed()
        && !strided_out
        && codegen::vectorisable(p)
        && p.inputs
            .iter()
            .zip(in_ptrs.iter())
            .all(|(i, &ptr)| aligned(ptr, i.layout.offset, i.dtype.size()))
        && outs
            .iter()
            .zip(out_ptrs.iter())
            .all(|(d, &ptr)| aligned(ptr, 0, d.dtype().size()));
    let v = Variant {
        idx32,
        vector,
        strided_out,
    };
    let k = crate::jit::kernel_or_interp(
        st,
        p,
        salt_of(v, 1),
        || codegen::elementwise(p, v),
        // The quick build of a vectorised kernel: its one-element-per-thread form.
        || {
            v.vector
                .then(|| codegen::elementwise(p, Variant { vector: false, ..v }))
        },
        |ip| {
            if strided_out {
                return None;
            }
            codegen::interp::encode(p).map(|c| (ip.elementwise.clone(), c))
        },
    )?;
    crate::stats::phase_end(Phase::Lookup);
    if let Some(code) = &k.interp {
        let frame = codegen::interp::frame(p, code, &in_ptrs, out_ptrs[0], (0, 0));
        // Grid-stride: enough blocks to fill the device, at most one per BLOCK elements.
        let most = st.sms as usize * k.blocks_per_sm as usize * 4;
        let grid = n.div_ceil(BLOCK as usize).clamp(1, most.max(1)) as u32;
        let r = launch_interp(stream, &k, grid, &frame, &ins, outs);
        crate::stats::phase_end(Phase::Launch);
        return r;
    }
    let plan = ParamPlan::new(
        p,
        v,
        &in_ptrs,
        &out_ptrs,
        out_layout.filter(|_| strided_out),
    );
    let grid = blocks_for(n, vector && !k.scalar);
    let r = launch(stream, &k, grid, &plan.words, &ins, outs);
    crate::stats::phase_end(Phase::Launch);
    crate::stats::note_launch(&k.func, &plan.words, grid);
    if let (Ok(()), Some(c)) = (&r, capture) {
        *c = direct::Capture {
            kernel: Some(k),
            variant: v,
        };
    }
    r
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
    let v = Variant {
        idx32,
        vector,
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
    let one_per_thread = idx32 && !arg && pass_d == codegen::acc_dtype(op, src_d);
    // One launch instead of two where the rows' blocks can count themselves in: the last
    // block of a row combines its partials (`codegen::reduction`'s `combine`). Only on the
    // device's array stream, whose launches never overlap, so one set of counters serves all;
    // not while that stream is captured into a graph (a graph may run beside the stream).
    let combine = guess > 1
        && outer <= COMBINE_ROWS
        && Arc::ptr_eq(&stream, &st.stream)
        && codegen::combinable(op, src_d)
        && matches!(
            st.stream.capture_status(),
            Ok(cuprite_driver::CaptureStatus::None)
        );
    let kernel_d = if combine { out_d } else { pass_d };
    let mut h = Fnv(0);
    h.write_u8(pass_d.code());
    h.write_u8(kernel_d.code());
    h.write_u8(combine as u8);
    let kind = 2 | (op as u64) << 4 | h.finish() << 12;
    let k = crate::jit::kernel_or_interp(
        st,
        p,
        salt_of(v, kind),
        || codegen::reduction(p, op, kernel_d, v, combine),
        // The quick first build: where partials are combined anyway (several blocks per row)
        // and indices are 32-bit, the form with at most one element per thread and no loop
        // (launched with a block per BLOCK elements); else the scalar looping form of a
        // vectorised kernel (the vectorised one unrolls the producer 16 times, which NVRTC
        // takes several times longer to build).
        || {
            let scalar = Variant { vector: false, ..v };
            if one_per_thread {
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
    // Captured, a launch gets row counters of its own, zeroed in the graph before each
    // replay: the device's are written by eager work on other streams, and a stream that
    // waited for a write made inside a capture in progress would join that capture.
    let own_counters;
    let counters = if !fused {
        None
    } else if crate::runtime::capturing() {
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
        plan.words.extend_from_slice(&[inner as u64, chunks as u64]);
        let mut writes = [&out, &out, &out];
        let mut nw = 1;
        if let (Some(part), Some(c)) = (&part, counters) {
            plan.words.extend_from_slice(&[part.ptr(), c.ptr()]);
            writes = [&out, part, c];
            nw = 3;
        }
        launch(
            &stream,
            &k,
            (outer * chunks) as u32,
            &plan.words,
            &ins,
            &writes[..nw],
        )?;
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
