//! Backends: what executes a planned [`Program`] on a device.
//!
//! [`Executor`] is the contract: upload and download, evaluate a program (into new buffers or
//! into views of one), reduce, run a library call, synchronise, memory information and garbage
//! collection. [`of`] picks the implementation for a device, the one place that dispatches:
//! `cpu` (rayon), `cuda` (generated kernels), and `dry_run` (the CPU backend that also
//! records the CUDA sources a GPU would need, for the test that compiles them all without one).

mod contract;
pub(crate) mod cpu;
pub(crate) mod cuda;
mod dry_run;

pub(crate) use contract::{Executor, FlagWord, LibraryInput};

use crate::device::{self, Device};

/// The backend of `device`.
pub(crate) fn of(device: Device) -> &'static dyn Executor {
    match device.backend {
        device::Backend::Cpu if crate::jit::recording() => &dry_run::DryRun,
        device::Backend::Cpu => &cpu::Cpu,
        device::Backend::Cuda => &cuda::Cuda,
    }
}
