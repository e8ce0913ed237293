//! Backends: where data lives and what executes a [`Program`](crate::graph::Program).
//!
//! `cpu` evaluates programs in parallel chunks with rayon; `cuda` generates, compiles and
//! launches kernels. This module only holds the storage type both hand around.

pub(crate) mod cpu;
pub(crate) mod cuda;

use crate::dtype::DType;

/// Materialised element data.
pub(crate) enum Storage {
    /// Host memory (the CPU backend).
    Host(cpu::HostBuf),
    /// Device memory (the CUDA backend).
    Cuda(cuda::DevBuf),
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Storage::Host(h) => write!(f, "Host({} x {})", h.len(), h.dtype()),
            Storage::Cuda(d) => write!(f, "Cuda({} x {})", d.len(), d.dtype()),
        }
    }
}

impl Storage {
    fn lock_flag(&self) -> &std::sync::atomic::AtomicBool {
        match self {
            Storage::Host(h) => &h.locked,
            Storage::Cuda(d) => &d.locked,
        }
    }

    pub fn is_locked(&self) -> bool {
        self.lock_flag().load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn set_locked(&self, device: Device, on: bool) {
        let was = self
            .lock_flag()
            .swap(on, std::sync::atomic::Ordering::AcqRel);
        let bytes = self.len() * self.dtype().size();
        match (was, on) {
            (false, true) => crate::memory::on_lock(device, bytes),
            (true, false) => crate::memory::on_unlock(device, bytes),
            _ => {}
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            Storage::Host(h) => h.dtype(),
            Storage::Cuda(d) => d.dtype(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Storage::Host(h) => h.len(),
            Storage::Cuda(d) => d.len(),
        }
    }
}

use crate::device::{Backend, Device};
use crate::error::Result;
use crate::graph::Program;
use crate::ops::ReduceOp;
use crate::shape::{Layout, numel};
use std::sync::Arc;

/// Evaluates `prog` on `device` into fresh contiguous storage, one per output.
pub(crate) fn eval_program(device: Device, prog: &Program) -> Result<Vec<Arc<Storage>>> {
    if device.backend == Backend::Cpu && crate::jit::recording() {
        record_elementwise(prog, false);
    }
    match device.backend {
        Backend::Cpu => Ok(cpu::eval(prog)
            .into_iter()
            .map(|b| Arc::new(Storage::Host(b)))
            .collect()),
        Backend::Cuda => cuda::eval(device.ordinal, prog),
    }
}

/// [`eval_program`] for a program of one output (no vector of results).
pub(crate) fn eval_one(device: Device, prog: &Program) -> Result<Arc<Storage>> {
    debug_assert_eq!(prog.outputs.len(), 1);
    match device.backend {
        Backend::Cpu => eval_program(device, prog)?
            .pop()
            .ok_or_else(|| crate::Error::InvalidArgument("a program without output".into())),
        Backend::Cuda => cuda::eval_one(device.ordinal, prog),
    }
}

/// Reduces the single output of `prog`, viewed as `outer x inner`, along `inner`.
pub(crate) fn reduce(
    device: Device,
    prog: &Program,
    op: ReduceOp,
    outer: usize,
    inner: usize,
    out: DType,
) -> Result<Arc<Storage>> {
    if device.backend == Backend::Cpu && crate::jit::recording() {
        record_reduction(prog, op, inner, out);
    }
    match device.backend {
        Backend::Cpu => Ok(Arc::new(Storage::Host(cpu::reduce(
            prog, op, outer, inner, out,
        )))),
        Backend::Cuda => cuda::reduce(device.ordinal, prog, op, outer, inner, out),
    }
}

/// Copies host bytes (`len` elements of `dtype`) to new storage on `device`.
pub(crate) fn upload(
    device: Device,
    dtype: DType,
    len: usize,
    bytes: &[u8],
) -> Result<Arc<Storage>> {
    match device.backend {
        Backend::Cpu => Ok(Arc::new(Storage::Host(cpu::HostBuf::from_bytes(
            dtype, len, bytes,
        )))),
        Backend::Cuda => cuda::upload(device.ordinal, dtype, len, bytes),
    }
}

/// All bytes of a storage, on the host.
pub(crate) fn download(s: &Storage) -> Result<Vec<u8>> {
    match s {
        Storage::Host(h) => Ok(h.bytes().to_vec()),
        Storage::Cuda(d) => cuda::download(d),
    }
}

/// New contiguous storage of `shape`, filled by evaluating each one-output program into its
/// layout (disjoint views of the new buffer), in order.
pub(crate) fn assemble(
    device: Device,
    dtype: DType,
    shape: &[usize],
    pieces: &[(Program, Layout)],
) -> Result<Arc<Storage>> {
    match device.backend {
        Backend::Cpu => {
            if crate::jit::recording() {
                for (p, l) in pieces {
                    record_elementwise(p, !l.is_contiguous(&p.shape));
                }
            }
            let mut buf = cpu::HostBuf::zeroed(dtype, numel(shape));
            for (p, l) in pieces {
                cpu::eval_into_view(p, &mut buf, l);
            }
            Ok(Arc::new(Storage::Host(buf)))
        }
        Backend::Cuda => cuda::assemble(device.ordinal, dtype, numel(shape), pieces),
    }
}

/// Records the CUDA source the GPU would run for `prog` (every variant it could pick).
fn record_elementwise(prog: &Program, strided_out: bool) {
    use crate::codegen::{Variant, elementwise, vectorisable};
    for idx32 in [true, false] {
        if idx32 && !prog.fits_i32() {
            continue;
        }
        for vector in [false, true] {
            if vector && (strided_out || !vectorisable(prog)) {
                continue;
            }
            let v = Variant {
                idx32,
                vector,
                strided_out,
            };
            crate::jit::record(&elementwise(prog, v).source);
        }
    }
}

/// Records the CUDA sources of a reduction (both passes, every variant).
fn record_reduction(prog: &Program, op: ReduceOp, inner: usize, out: DType) {
    use crate::codegen::{VEC, Variant, acc_dtype, reduction, vectorisable};
    let src = prog.instrs[prog.outputs[0]].dtype;
    let acc = acc_dtype(op, src);
    for vector in [false, true] {
        if vector && !(vectorisable(prog) && inner % VEC == 0) {
            continue;
        }
        let v = Variant {
            idx32: prog.fits_i32(),
            vector,
            strided_out: false,
        };
        crate::jit::record(&reduction(prog, op, out, v).source);
        if !matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax) {
            crate::jit::record(&reduction(prog, op, acc, v).source);
        }
    }
}
