//! Arrays over several devices: a [`Mesh`] of devices and [`Sharded`] arrays spread over it,
//! split along one axis or replicated.
//!
//! ```
//! use cuprite_array::{Array, Device, mesh::Mesh};
//! // A mesh of every GPU, or of 2 logical CPU devices where there is none.
//! let mesh = Mesh::cuda_all().or_else(|_| Mesh::cpu(2))?;
//! let x = Array::<f32>::arange(0.0, 10.0, 1.0)?.to_device(mesh.devices()[0])?;
//! let s = x.shard(&mesh, 0)?;                 // a block of rows per device
//! let y = s.map(|a| (a * 2.0).exp())?;        // runs on every device at once
//! let total = (&y * 0.5).sum()?;              // local sums + one all-reduce
//! let host = total.gather(Device::CPU)?.item()?;
//! let want: f32 = (0..10).map(|i| (2.0 * i as f32).exp() * 0.5).sum();
//! assert!((host - want).abs() <= want * 1e-5);
//! # Ok::<(), cuprite_array::Error>(())
//! ```
//!
//! This module owns the sharding logic: which block of an axis each rank holds (balanced blocks,
//! [`split_sizes`]), that per-shard work stays on its device (each device's own array stream;
//! nothing waits on the host between devices), how a reduction along the split axis ends
//! (one all-reduce: NCCL on a CUDA mesh, the CPU backend on a CPU mesh), and which layouts a
//! matrix product of sharded operands takes ([`Sharded::matmul`]). A mesh of one GPU
//! needs no NCCL. Kernels are compiled once per GPU architecture and loaded on every device of
//! it (see [`crate::tuning`]).
//!
//! A CPU mesh ([`Mesh::cpu`]) runs the same logic over logical CPU devices, so that a program
//! written for several GPUs runs, and is tested, without one.

mod collective;
mod matmul;
mod operators;
mod reduce;
mod sharded;
mod topology;

pub use sharded::{Sharded, Split, split_sizes};
pub use topology::Mesh;
