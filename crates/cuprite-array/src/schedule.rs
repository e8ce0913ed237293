//! When and how the lazy graph is realised: grouping outputs into fused programs, library
//! calls first (each a fusion boundary), the out-of-memory policy (release cached memory,
//! retry once), and the device-wide calls (`sync`, `mem_info`, `device_gc`).

use crate::backend::{self, LibraryInput};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::graph::{Node, Op, Program};
use crate::shape::{Dims, Layout, numel};
use crate::stats::Phase;
use crate::storage::Storage;
use std::collections::HashMap;
use std::sync::Arc;

/// Evaluates every unevaluated node of `nodes`, grouping by device and shape.
pub(crate) fn realize(nodes: &[Arc<Node>]) -> Result<()> {
    if nodes.len() == 1 {
        crate::stats::phase_start();
    }
    for n in nodes {
        if n.is_leaf() {
            continue;
        }
        crate::shape::checked_numel(&n.shape)?;
        if n.has_library() {
            realize_calls(n)?;
        }
    }
    if let [n] = nodes {
        // One node (`eval`, `to_vec`, ...): no grouping map.
        if n.is_leaf() {
            return Ok(());
        }
        crate::stats::EVALUATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::stats::THREAD_EVALUATIONS.with(|c| c.set(c.get() + 1));
        let device = n.device;
        let b = backend::of(device);
        let s = match with_oom_retry(device, || b.eval_small(device, n))? {
            Some(s) => s,
            // Built in this thread's reused program vectors (emptied again before `set_op`).
            None => Program::with_built(std::slice::from_ref(n), |prog| {
                crate::stats::phase_end(Phase::Build);
                with_oom_retry(device, || b.eval_one(device, prog))
            })?,
        };
        n.set_op(Op::Leaf(s, Layout::contiguous(&n.shape)));
        crate::stats::phase_end(Phase::Finish);
        return Ok(());
    }
    let mut groups: HashMap<(Device, Dims), Vec<Arc<Node>>> = HashMap::new();
    for n in nodes {
        if n.is_leaf() {
            continue;
        }
        let g = groups.entry((n.device, n.shape.clone())).or_default();
        if !g.iter().any(|m| Arc::ptr_eq(m, n)) {
            g.push(n.clone());
        }
    }
    for ((device, shape), group) in groups {
        let prog = Program::build(&group);
        crate::stats::EVALUATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::stats::THREAD_EVALUATIONS.with(|c| c.set(c.get() + 1));
        let storages = with_oom_retry(device, || backend::of(device).eval(device, &prog))?;
        for (n, s) in group.iter().zip(storages) {
            n.set_op(Op::Leaf(s, Layout::contiguous(&shape)));
        }
    }
    Ok(())
}

pub(crate) fn contiguous_storage(node: &Arc<Node>) -> Result<Arc<Storage>> {
    realize(std::slice::from_ref(node))?;
    let (s, l) = node.leaf().expect("realised");
    if l.offset == 0 && l.is_contiguous(&node.shape) && s.len() == numel(&node.shape) {
        return Ok(s);
    }
    // A strided view: copy it out.
    let copy = Node::new(Op::Leaf(s, l), node.dtype, node.shape.clone(), node.device);
    let prog = Program::build(&[copy]);
    let mut v = with_oom_retry(node.device, || {
        backend::of(node.device).eval(node.device, &prog)
    })?;
    Ok(v.remove(0))
}

/// Realises the library calls below each of `nodes` (which stay lazy themselves): what a
/// caller does before linearising a node into a [`Program`] of its own (a reduction, a piece of
/// a concatenation), since code generation handles element-wise work only.
pub(crate) fn realize_calls_below(nodes: &[Arc<Node>]) -> Result<()> {
    for n in nodes {
        if n.has_library() && !n.is_leaf() {
            realize_calls(n)?;
        }
    }
    Ok(())
}

/// Realises every library call below `node` (post-order: a call's inputs, which may hold
/// calls of their own, first), so that what remains above them is element-wise.
fn realize_calls(node: &Arc<Node>) -> Result<()> {
    let mut seen: Vec<*const Node> = Vec::new();
    let mut stack: Vec<(Arc<Node>, bool)> = vec![(node.clone(), false)];
    while let Some((n, children_done)) = stack.pop() {
        if n.is_leaf() || !n.has_library() {
            continue;
        }
        let op = n.op();
        if children_done {
            if let Op::Library(call, inputs) = op {
                run_call(&n, call.as_ref(), &inputs)?;
            }
            continue;
        }
        if seen.contains(&Arc::as_ptr(&n)) {
            continue;
        }
        seen.push(Arc::as_ptr(&n));
        stack.push((n.clone(), true));
        stack.extend(op.children().iter().map(|&c| (c.clone(), false)));
    }
    Ok(())
}

/// Runs one library call node: its inputs realised (fused) first, the call on the node's
/// device, the node replaced by the result.
fn run_call(
    node: &Arc<Node>,
    call: &dyn crate::graph::LibraryCall,
    inputs: &[Arc<Node>],
) -> Result<()> {
    if let Some(f) = call.fused() {
        return run_fused(node, f, inputs);
    }
    let ins = realize_inputs(call, inputs, node)?;
    crate::stats::EVALUATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    crate::stats::THREAD_EVALUATIONS.with(|c| c.set(c.get() + 1));
    let device = node.device;
    let len = numel(&node.shape);
    let s = with_oom_retry(device, || {
        backend::of(device).library(device, call, &ins, node.dtype, len)
    })
    .map_err(|e| crate::runtime::name_capture_refusal(e, call.name()))?;
    node.set_op(Op::Leaf(s, Layout::contiguous(&node.shape)));
    Ok(())
}

/// Runs a fused library call node: its leading inputs linearised into one program (the calls
/// below them realised first), the others realised, the node replaced by the result.
fn run_fused(
    node: &Arc<Node>,
    call: &dyn crate::graph::FusedCall,
    inputs: &[Arc<Node>],
) -> Result<()> {
    let k = call.fused_inputs().min(inputs.len());
    let (fused, rest) = inputs.split_at(k);
    for i in fused {
        if i.device != node.device || i.shape != fused[0].shape {
            return Err(Error::InvalidArgument(format!(
                "{} reads inputs of shape {:?} on {} fused, not {:?} on {}",
                call.name(),
                fused[0].shape,
                node.device,
                i.shape,
                i.device
            )));
        }
    }
    realize_calls_below(fused)?;
    let ins = realize_inputs(call, rest, node)?;
    crate::stats::EVALUATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    crate::stats::THREAD_EVALUATIONS.with(|c| c.set(c.get() + 1));
    let device = node.device;
    let len = numel(&node.shape);
    let prog = Program::build(fused);
    let s = with_oom_retry(device, || {
        backend::of(device).library_fused(device, call, &prog, &ins, node.dtype, len)
    })
    .map_err(|e| crate::runtime::name_capture_refusal(e, call.name()))?;
    drop(prog);
    node.set_op(Op::Leaf(s, Layout::contiguous(&node.shape)));
    Ok(())
}

/// Realises the inputs of a library call: a view the call accepts as it is, else contiguous.
fn realize_inputs(
    call: &dyn crate::graph::LibraryCall,
    inputs: &[Arc<Node>],
    node: &Arc<Node>,
) -> Result<Vec<LibraryInput>> {
    let mut ins = Vec::with_capacity(inputs.len());
    for i in inputs {
        if i.device != node.device {
            return Err(Error::DeviceMismatch(format!(
                "{} runs on {} but an input lives on {}",
                call.name(),
                node.device,
                i.device
            )));
        }
        // A realised view the call can read as it is (a transposed matrix for a GEMM) goes
        // in unchanged; anything else is realised contiguously (a strided view copied out).
        if let Some((storage, layout)) = i.leaf() {
            if call.accepts_view(ins.len(), &i.shape, &layout, storage.len()) {
                ins.push(LibraryInput {
                    storage,
                    layout,
                    shape: i.shape.to_vec(),
                    dtype: i.dtype,
                });
                continue;
            }
        }
        let storage = contiguous_storage(i)?;
        ins.push(LibraryInput {
            storage,
            layout: Layout::contiguous(&i.shape),
            shape: i.shape.to_vec(),
            dtype: i.dtype,
        });
    }
    Ok(ins)
}

/// Whether `e` is the driver running out of device memory: the pool's own out-of-memory
/// error, or a driver call that returned `CUDA_ERROR_OUT_OF_MEMORY` (matched on the code).
fn is_oom(e: &Error) -> bool {
    use cuprite_driver::sys::driver::CUresult;
    match e {
        Error::Cuda(cuprite_driver::Error::OutOfMemory { .. }) => true,
        Error::Cuda(c) => c.code() == Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        _ => false,
    }
}

/// Runs `f`; on out-of-memory, releases cached memory and runs it once more.
pub(crate) fn with_oom_retry<R>(device: Device, mut f: impl FnMut() -> Result<R>) -> Result<R> {
    match f() {
        Err(e) if is_oom(&e) => {
            device_gc(device)?;
            f()
        }
        r => r,
    }
}

/// Waits until all array work queued on `device` is done.
///
/// On CUDA this is a context-wide wait, which the driver forbids while a stream of the device
/// is capturing a graph: a compiled program's capture in progress on another thread (its first
/// call for a signature) is waited out first. Inside a capture it is an `Err`.
pub fn sync(device: Device) -> Result<()> {
    backend::of(device).sync(device)
}

/// `(free, total)` bytes of `device` (for the CPU: the manager's bytes in use, and 0).
pub fn mem_info(device: Device) -> Result<(usize, usize)> {
    backend::of(device).mem_info(device)
}

/// Releases memory cached by the pool of `device` back to the driver. Waits as [`sync`] does.
pub fn device_gc(device: Device) -> Result<()> {
    backend::of(device).gc(device)
}
