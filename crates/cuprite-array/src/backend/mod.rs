//! Backends: what executes a planned [`Program`] on a device.
//!
//! [`Executor`] is the contract: upload and download, evaluate a program (into new buffers or
//! into views of one), reduce, run a library call, run one side of an eager operation
//! ([`eager`]: its host twin or its CUDA path), synchronise, memory information and garbage
//! collection. [`of`] picks the implementation for a device, the one place that dispatches:
//! `cpu` (rayon), `cuda` (generated kernels), and `dry_run` (the CPU backend that also
//! records the CUDA sources a GPU would need, for the test that compiles them all without one).

mod contract;
pub(crate) mod cpu;
pub(crate) mod cuda;
mod dry_run;

pub(crate) use contract::{Executor, FlagWord, LibraryInput};

use crate::device::{self, Device};

/// Runs an eager operation on `device`'s backend: `host` (the host twin) or `cuda` (given the
/// device's CUDA ordinal), whichever the backend runs ([`Executor::run_eager`]). The one way an
/// operation in `ops/` reaches a device-specific path outside a library call.
pub(crate) fn eager<R>(
    device: Device,
    host: impl FnOnce() -> crate::error::Result<R>,
    cuda: impl FnOnce(usize) -> crate::error::Result<R>,
) -> crate::error::Result<R> {
    let mut work = contract::EagerPair {
        host: Some(host),
        cuda: Some(cuda),
        out: None,
    };
    of(device).run_eager(device, &mut work)?;
    work.out.ok_or_else(contract::ran_twice)
}

/// The backend of `device`.
pub(crate) fn of(device: Device) -> &'static dyn Executor {
    match device.backend {
        device::Backend::Cpu if crate::jit::recording() => &dry_run::DryRun,
        device::Backend::Cpu => &cpu::Cpu,
        device::Backend::Cuda => &cuda::Cuda,
    }
}
