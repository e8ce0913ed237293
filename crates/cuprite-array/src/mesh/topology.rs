//! [`Mesh`]: the devices a sharded array is spread over, in rank order, and the NCCL
//! communicators of a CUDA mesh (made on the first collective, then kept with the mesh).
//!
//! A mesh holds devices of one backend. CUDA devices are distinct (NCCL allows one rank per
//! GPU); a CPU mesh repeats the CPU: each entry is one logical "device" that runs the same
//! sharding logic, so that programs written for several GPUs are tested without any.

use crate::device::{Backend, Device, cuda_device_count};
use crate::error::{Error, Result};
use cuprite_driver::nccl::Comm;
use std::sync::{Arc, Mutex};

/// Devices in rank order: what a [`Sharded`](crate::mesh::Sharded) array is spread over.
///
/// Cheap to clone (a shared handle). On CUDA the NCCL communicators of the mesh are made by its
/// first collective (a reduction along the split axis) and kept until the last clone is dropped.
///
/// ```
/// use cuprite_array::{Device, mesh::Mesh};
/// let m = Mesh::cpu(3)?;
/// assert_eq!(m.len(), 3);
/// assert_eq!(m.devices(), &[Device::CPU; 3]);
/// assert!(Mesh::new(&[]).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone)]
pub struct Mesh {
    inner: Arc<Inner>,
}

struct Inner {
    devices: Vec<Device>,
    /// One communicator per rank (CUDA meshes of two or more devices), made on first use.
    comms: Mutex<Option<Vec<Comm>>>,
}

impl std::fmt::Debug for Mesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mesh")
            .field("devices", &self.inner.devices)
            .finish()
    }
}

impl PartialEq for Mesh {
    /// Two meshes are equal when they hold the same devices in the same order.
    fn eq(&self, other: &Mesh) -> bool {
        self.inner.devices == other.inner.devices
    }
}

impl Mesh {
    /// A mesh of `devices`, in rank order: at least one, all of one backend; CUDA devices must
    /// exist and be distinct.
    ///
    /// ```
    /// use cuprite_array::{Device, mesh::Mesh};
    /// assert!(Mesh::new(&[Device::CPU, Device::CPU]).is_ok());
    /// assert!(Mesh::new(&[Device::CPU, Device::cuda(0)]).is_err());
    /// ```
    pub fn new(devices: &[Device]) -> Result<Mesh> {
        let Some(first) = devices.first() else {
            return Err(Error::InvalidArgument(
                "a mesh needs at least one device".into(),
            ));
        };
        for (i, d) in devices.iter().enumerate() {
            if d.backend != first.backend {
                return Err(Error::DeviceMismatch(format!(
                    "a mesh of one backend: device 0 is {first}, device {i} is {d}"
                )));
            }
            match d.backend {
                Backend::Cpu if d.ordinal != 0 => {
                    return Err(Error::InvalidArgument(format!(
                        "the CPU backend has device 0 only, the mesh names {d}"
                    )));
                }
                Backend::Cuda if d.ordinal >= cuda_device_count() => {
                    return Err(Error::InvalidArgument(format!(
                        "CUDA device {} does not exist: {} device(s) present",
                        d.ordinal,
                        cuda_device_count()
                    )));
                }
                Backend::Cuda if devices[..i].contains(d) => {
                    return Err(Error::InvalidArgument(format!(
                        "{d} is given twice: a CUDA mesh holds each GPU once (one NCCL rank \
                         per GPU)"
                    )));
                }
                _ => {}
            }
        }
        Ok(Mesh {
            inner: Arc::new(Inner {
                devices: devices.to_vec(),
                comms: Mutex::new(None),
            }),
        })
    }

    /// Every CUDA device of the machine, in ordinal order (`Err` without one).
    pub fn cuda_all() -> Result<Mesh> {
        let n = cuda_device_count();
        if n == 0 {
            return Err(Error::InvalidArgument(
                "Mesh::cuda_all: no CUDA device was found".into(),
            ));
        }
        Mesh::new(&(0..n).map(Device::cuda).collect::<Vec<_>>())
    }

    /// `n` logical devices on the CPU backend: the same sharding, per-shard work and
    /// collectives (done on the host) as a mesh of `n` GPUs.
    ///
    /// ```
    /// assert!(cuprite_array::mesh::Mesh::cpu(0).is_err());
    /// ```
    pub fn cpu(n: usize) -> Result<Mesh> {
        let mut devices = crate::util::host_vec(n, "Mesh::cpu")?;
        devices.resize(n, Device::CPU);
        Mesh::new(&devices)
    }

    /// The devices, in rank order.
    pub fn devices(&self) -> &[Device] {
        &self.inner.devices
    }

    /// The number of devices (ranks).
    pub fn len(&self) -> usize {
        self.inner.devices.len()
    }

    /// Always false: a mesh has at least one device.
    pub fn is_empty(&self) -> bool {
        self.inner.devices.is_empty()
    }

    /// The backend of every device of the mesh.
    pub fn backend(&self) -> Backend {
        self.inner.devices[0].backend
    }

    /// The device of rank `rank`.
    pub fn device(&self, rank: usize) -> Result<Device> {
        self.inner.devices.get(rank).copied().ok_or_else(|| {
            Error::Index(format!("rank {rank} of a mesh of {} device(s)", self.len()))
        })
    }

    /// Runs `f` with the mesh's communicators (one per rank, in rank order), making them on
    /// the first call (`Comm::init_all` on the devices' primary contexts). A communicator that
    /// failed is replaced on the next call.
    pub(crate) fn with_comms<R>(&self, f: impl FnOnce(&[Comm]) -> Result<R>) -> Result<R> {
        let mut g = self.inner.comms.lock().unwrap_or_else(|e| e.into_inner());
        if g.as_ref().is_some_and(|c| c.iter().any(Comm::is_failed)) {
            *g = None;
        }
        if g.is_none() {
            let ctxs = self
                .inner
                .devices
                .iter()
                .map(|d| Ok(crate::runtime::state(d.ordinal)?.ctx.clone()))
                .collect::<Result<Vec<_>>>()?;
            *g = Some(Comm::init_all(&ctxs)?);
        }
        f(g.as_deref().unwrap_or(&[]))
    }
}
