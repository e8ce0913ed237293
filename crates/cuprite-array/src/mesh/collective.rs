//! The all-reduce that ends a reduction along the split axis: every rank's partial result
//! combined element-wise (sum, max or min), the combination left on every rank.
//!
//! On a CUDA mesh it is one grouped NCCL all-reduce over the mesh's communicators, each rank on
//! its device's array stream; buffers are declared to the stream tracker, so the collective
//! waits for the kernels that made the partials and later kernels wait for it, with no host
//! synchronisation. Element types NCCL lacks travel as one it has: `bool` as `u8`, 16-bit
//! integers widened to 32 bits (exact for max and min), complex numbers as pairs of reals (sum
//! only; they have no order). On a CPU mesh the partials are combined on the host by the CPU
//! backend's own element-wise operations.

use super::topology::Mesh;
use crate::array::cast_node;
use crate::device::{Backend, Device};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::BinaryOp;
use crate::ops::elementwise::binary_node;
use crate::runtime::{state, stream_for};
use crate::schedule::contiguous_storage;
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, Storage};
use cuprite_driver::nccl::{self, Comm, NcclType};
use cuprite_driver::{DeviceView, DeviceViewMut, Stream};
use std::sync::Arc;

/// Held while a collective is enqueued (see [`with_nccl`]).
static LAUNCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// How partial results combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Combine {
    Sum,
    Max,
    Min,
}

/// Combines `parts` (one per rank, on the rank's device, all of one dtype and shape) and
/// returns the combination on every rank.
pub(crate) fn all_reduce(
    mesh: &Mesh,
    parts: Vec<Arc<Node>>,
    how: Combine,
) -> Result<Vec<Arc<Node>>> {
    if parts.len() <= 1 {
        return Ok(parts);
    }
    match mesh.backend() {
        Backend::Cpu => on_host(parts, how),
        Backend::Cuda => with_nccl(mesh, parts, how),
    }
}

/// The CPU mesh: one combination, shared by every rank (all are the CPU).
fn on_host(parts: Vec<Arc<Node>>, how: Combine) -> Result<Vec<Arc<Node>>> {
    let n = parts.len();
    let boolean = parts[0].dtype == DType::Bool;
    let op = match how {
        Combine::Sum => BinaryOp::Add,
        Combine::Max if boolean => BinaryOp::Or,
        Combine::Min if boolean => BinaryOp::And,
        Combine::Max => BinaryOp::Max,
        Combine::Min => BinaryOp::Min,
    };
    let mut acc = parts[0].clone();
    for p in &parts[1..] {
        acc = binary_node(&acc, p, op)?;
    }
    crate::schedule::realize(std::slice::from_ref(&acc))?;
    Ok(vec![acc; n])
}

/// The type a dtype travels as through NCCL.
fn wire(d: DType, how: Combine) -> Result<DType> {
    Ok(match d {
        DType::Bool => DType::U8,
        DType::I16 => DType::I32,
        DType::U16 => DType::U32,
        DType::C32 | DType::C64 if how != Combine::Sum => {
            return Err(Error::InvalidArgument(format!(
                "{how:?} of {d}: complex numbers have no order"
            )));
        }
        d => d,
    })
}

fn nccl_op(how: Combine) -> nccl::ReduceOp {
    match how {
        Combine::Sum => nccl::ReduceOp::Sum,
        Combine::Max => nccl::ReduceOp::Max,
        Combine::Min => nccl::ReduceOp::Min,
    }
}

/// The CUDA mesh: one grouped NCCL all-reduce.
fn with_nccl(mesh: &Mesh, parts: Vec<Arc<Node>>, how: Combine) -> Result<Vec<Arc<Node>>> {
    let d = parts[0].dtype;
    let shape = parts[0].shape.clone();
    let len = numel(&shape);
    if len == 0 {
        return Ok(parts);
    }
    let w = wire(d, how)?;
    let mut ins = Vec::with_capacity(parts.len());
    let mut outs = Vec::with_capacity(parts.len());
    let mut streams = Vec::with_capacity(parts.len());
    for (p, dev) in parts.iter().zip(mesh.devices()) {
        let s = contiguous_storage(&cast_node(p, w))?;
        let st = state(dev.ordinal)?;
        let stream = stream_for(dev.ordinal)?;
        // SAFETY: the all-reduce below writes every element before anything reads it; if it
        // fails, the buffer is dropped unread.
        outs.push(unsafe { DevBuf::alloc(st, &stream, w, len) }?);
        ins.push(s);
        streams.push(stream);
    }
    let srcs = ins
        .iter()
        .map(|s| match &**s {
            Storage::Cuda(b) => Ok(b),
            Storage::Host(_) => Err(Error::DeviceMismatch(
                "a partial result of a CUDA mesh is in host memory".into(),
            )),
        })
        .collect::<Result<Vec<&DevBuf>>>()?;
    // One launch at a time in the process: the collectives of two meshes over the same GPUs
    // then queue in the same order on every device's stream (NCCL deadlocks where two
    // communicators' kernels meet in opposite orders on two streams).
    let _order = LAUNCH.lock().unwrap_or_else(|e| e.into_inner());
    mesh.with_comms(|comms| {
        let op = nccl_op(how);
        match w {
            DType::F16 => run::<half::f16>(comms, &srcs, &mut outs, &streams, op),
            DType::BF16 => run::<half::bf16>(comms, &srcs, &mut outs, &streams, op),
            DType::F32 | DType::C32 => run::<f32>(comms, &srcs, &mut outs, &streams, op),
            DType::F64 | DType::C64 => run::<f64>(comms, &srcs, &mut outs, &streams, op),
            DType::I8 => run::<i8>(comms, &srcs, &mut outs, &streams, op),
            DType::U8 => run::<u8>(comms, &srcs, &mut outs, &streams, op),
            DType::I32 => run::<i32>(comms, &srcs, &mut outs, &streams, op),
            DType::U32 => run::<u32>(comms, &srcs, &mut outs, &streams, op),
            DType::I64 => run::<i64>(comms, &srcs, &mut outs, &streams, op),
            DType::U64 => run::<u64>(comms, &srcs, &mut outs, &streams, op),
            other => Err(Error::InvalidArgument(format!(
                "no NCCL type carries {other}"
            ))),
        }
    })?;
    Ok(outs
        .into_iter()
        .zip(mesh.devices())
        .map(|(b, &dev): (DevBuf, &Device)| {
            let leaf = Node::new(
                Op::Leaf(Arc::new(Storage::Cuda(b)), Layout::contiguous(&shape)),
                w,
                shape.clone(),
                dev,
            );
            cast_node(&leaf, d)
        })
        .collect())
}

/// One grouped all-reduce of `srcs` into `outs` (rank by rank), their bytes read as `W`.
fn run<W: NcclType + bytemuck::Pod>(
    comms: &[Comm],
    srcs: &[&DevBuf],
    outs: &mut [DevBuf],
    streams: &[Arc<Stream>],
    op: nccl::ReduceOp,
) -> Result<()> {
    let views = srcs
        .iter()
        .map(|b| Ok(b.buffer()?.view_as::<W>()?))
        .collect::<Result<Vec<DeviceView<'_, W>>>>()?;
    let mut dsts = outs
        .iter_mut()
        .map(|b| match b.buffer_mut() {
            Some(b) => Ok(b.view_as_mut::<W>()?),
            None => Err(Error::InvalidArgument(
                "an all-reduce output without memory".into(),
            )),
        })
        .collect::<Result<Vec<DeviceViewMut<'_, W>>>>()?;
    nccl::group(|g| {
        for (((c, s), d), st) in comms.iter().zip(&views).zip(dsts.iter_mut()).zip(streams) {
            g.all_reduce(c, s, d, op, st)?;
        }
        Ok(())
    })?;
    Ok(())
}
