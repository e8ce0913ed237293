//! The CUDA backend: plans and launches generated kernels (element-wise, into views, and
//! reductions) on the thread's array stream; kernels come from `jit`, buffers from `storage`.
//!
//! Every launch declares its reads and writes through cuprite's access API, so arrays shared
//! between threads working on different streams are ordered by the driver layer's tracking
//! (and single-stream programs pay nothing for it).

use super::contract::{EagerWork, Executor, FlagWord, LibraryInput, Limits};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, FusedCall, LibraryCall, Node, Program};
use crate::op::ReduceOp;
use crate::runtime::{state, stream_for, stream_of};
use crate::shape::{Layout, numel};
use crate::stats::Phase;
use crate::storage::{DevBuf, Storage};
use crate::util::Inline;
use std::sync::Arc;

mod counters;
mod direct;
mod elementwise;
mod flag;
mod reduce;

pub(crate) use counters::zeroed_counters;
pub use elementwise::set_vectorize;
pub(crate) use elementwise::{aligned, vector_allowed};
use elementwise::{alloc, dev_of, run_elementwise};

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
        Ok(reduce::reduce(d.ordinal, prog, op, (outer, inner), out, None)?.0)
    }

    fn sum_then_divide(
        &self,
        d: Device,
        prog: &Program,
        rows: (usize, usize),
        out: DType,
        divisor: f64,
    ) -> Result<(Arc<Storage>, bool)> {
        reduce::reduce(d.ordinal, prog, ReduceOp::Sum, rows, out, Some(divisor))
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

    fn run_eager(&self, d: Device, work: &mut dyn EagerWork) -> Result<()> {
        work.cuda(d.ordinal)
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

/// New buffers on CUDA device `ordinal`, one of each `(dtype, len)` of `specs`, allocated on the
/// current stream (memory kept for reuse first, as every array's).
///
/// # Safety
/// Their contents are uninitialised: the caller writes every byte of each before anything
/// reads it (or drops it unread). Only `compile` (feature `capture`) uses it.
#[cfg(feature = "capture")]
pub(crate) unsafe fn alloc_uninit(ordinal: usize, specs: &[(DType, usize)]) -> Result<Vec<DevBuf>> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    specs
        .iter()
        .map(|&(dtype, len)| alloc(st, stream, dtype, len))
        .collect()
}

/// Orders the current stream of device `ordinal` after the pending writes of `bufs` (made on
/// another stream), enqueuing waits only, no work: later work on it, tracked or not (a raw
/// pointer used on the array stream), reads their values as it reads any array's. Only
/// `compile` (feature `capture`) uses it.
#[cfg(feature = "capture")]
pub(crate) fn order_after_writes<'a>(
    ordinal: usize,
    bufs: impl IntoIterator<Item = &'a cuprite_driver::DeviceBuffer<u8>>,
) -> Result<()> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let acc: Inline<cuprite_driver::Access<'_>, 8> =
        bufs.into_iter().map(cuprite_driver::Access::read).collect();
    // Nothing is enqueued under this declaration, so there is nothing to record after it.
    stream.begin_access(&acc)?;
    Ok(())
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
