//! [`Sharded<T>`]: one array spread over a [`Mesh`], as one shard per rank (a block along the
//! split axis, or a whole replica), with the per-shard element-wise work ([`Sharded::map`],
//! [`Sharded::zip`]) and the moves in and out ([`Array::shard`], [`Array::replicate`],
//! [`Sharded::gather`]).
//!
//! The invariant this module keeps: shard `r` lives on the mesh's device `r`; split shards
//! agree on every axis but the split one (their extents along it add up to the global extent);
//! replicas have one shape. Per-shard work is lazy and runs on each device's own array stream:
//! [`Sharded::eval`] enqueues every shard's kernel without waiting for any device.

use super::topology::Mesh;
use crate::array::Array;
use crate::device::{Device, with_device};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{SliceArg, axis};

/// How a [`Sharded`] array is laid out over its mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Split {
    /// Split along this axis: rank `r` holds the `r`-th contiguous block of it.
    Axis(usize),
    /// Every rank holds the whole array (after a reduction along the split axis, or from
    /// [`Array::replicate`]).
    Replicated,
}

/// The extents of `parts` blocks of an axis of length `n`, as NumPy's `array_split` (and
/// `torch.tensor_split`) cut it: the first `n % parts` blocks are one longer, so that sizes
/// differ by at most one and every rank gets a block (empty when `n < parts`). Unlike
/// `torch.chunk`, no rank is left without work while another holds two blocks' worth.
///
/// ```
/// use cuprite_array::mesh::split_sizes;
/// assert_eq!(split_sizes(10, 4), [3, 3, 2, 2]);
/// assert_eq!(split_sizes(2, 3), [1, 1, 0]);
/// ```
pub fn split_sizes(n: usize, parts: usize) -> Vec<usize> {
    if parts == 0 {
        return Vec::new();
    }
    let (q, r) = (n / parts, n % parts);
    (0..parts).map(|i| q + usize::from(i < r)).collect()
}

/// An array spread over the devices of a [`Mesh`]: split along one axis, or replicated.
///
/// Element-wise work maps a closure over the shards ([`map`](Self::map), [`zip`](Self::zip),
/// or the operators `+ - * /`); each shard's work fuses into kernels of its own device, and
/// devices of one architecture share the compiled kernels. Reductions along the split axis end
/// in one collective (NCCL on GPUs) and give a replicated result; along other axes they stay
/// local.
///
/// ```
/// use cuprite_array::{Array, Device, mesh::{Mesh, Split}};
/// let mesh = Mesh::cpu(2)?;
/// let a = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
/// let s = a.shard(&mesh, 0)?;
/// assert_eq!(s.shards()[0].shape(), &[3]);
/// let y = s.map(|x| (x * 2.0).sqrt())?;
/// let total = y.map(|x| x * x)?.sum()?;
/// assert_eq!(total.split(), Split::Replicated);
/// assert_eq!(total.gather(Device::CPU)?.item()?, 30.0);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub struct Sharded<T: Element> {
    mesh: Mesh,
    split: Split,
    shards: Vec<Array<T>>,
}

impl<T: Element> Clone for Sharded<T> {
    fn clone(&self) -> Self {
        Sharded {
            mesh: self.mesh.clone(),
            split: self.split,
            shards: self.shards.clone(),
        }
    }
}

impl<T: Element> std::fmt::Debug for Sharded<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sharded")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.shape())
            .field("split", &self.split)
            .field("devices", &self.mesh.devices())
            .finish()
    }
}

/// `..` on every axis but `ax`, `start..end` on it.
fn block(ndim: usize, ax: usize, start: usize, end: usize) -> Vec<SliceArg> {
    (0..ndim)
        .map(|d| {
            if d == ax {
                SliceArg::Range {
                    start: Some(start as isize),
                    end: Some(end as isize),
                    step: 1,
                }
            } else {
                SliceArg::from(..)
            }
        })
        .collect()
}

impl<T: Element> Array<T> {
    /// This array split along `axis` over `mesh`: rank `r` gets the `r`-th block (sizes as
    /// [`split_sizes`]), copied to its device (GPU to GPU where the array is on a GPU).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::Mesh};
    /// let a = Array::from_slice_on(Device::CPU, &[0i32, 1, 2, 3, 4, 5], &[3, 2])?;
    /// let s = a.shard(&Mesh::cpu(2)?, 0)?;
    /// assert_eq!(s.shards()[1].to_vec()?, [4, 5]);
    /// assert_eq!(s.gather(Device::CPU)?.to_vec()?, a.to_vec()?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn shard(&self, mesh: &Mesh, axis_: isize) -> Result<Sharded<T>> {
        let ax = axis(axis_, self.ndim())?;
        let sizes = split_sizes(self.shape()[ax], mesh.len());
        let mut shards = Vec::with_capacity(mesh.len());
        let mut at = 0;
        for (&d, &n) in mesh.devices().iter().zip(&sizes) {
            let piece = self.slice(&block(self.ndim(), ax, at, at + n))?;
            shards.push(piece.to_device(d)?);
            at += n;
        }
        Ok(Sharded {
            mesh: mesh.clone(),
            split: Split::Axis(ax),
            shards,
        })
    }

    /// This array copied whole to every device of `mesh`.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::{Mesh, Split}};
    /// let w = Array::from_slice_on(Device::CPU, &[0.5f64, -1.0], &[2])?;
    /// let r = w.replicate(&Mesh::cpu(3)?)?;
    /// assert_eq!(r.split(), Split::Replicated);
    /// assert_eq!(r.shards()[2].to_vec()?, [0.5, -1.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn replicate(&self, mesh: &Mesh) -> Result<Sharded<T>> {
        let shards = mesh
            .devices()
            .iter()
            .map(|&d| self.to_device(d))
            .collect::<Result<Vec<_>>>()?;
        Ok(Sharded {
            mesh: mesh.clone(),
            split: Split::Replicated,
            shards,
        })
    }
}

impl<T: Element> Sharded<T> {
    /// A sharded array of per-device arrays, split along `axis`: `shards[r]` on the mesh's
    /// device `r`, all agreeing off `axis` (any extents along it, empty ones included).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::{Mesh, Sharded}};
    /// let mesh = Mesh::cpu(2)?;
    /// let a = Array::from_slice_on(Device::CPU, &[1u8, 2], &[1, 2])?;
    /// let b = Array::from_slice_on(Device::CPU, &[3u8, 4, 5, 6], &[2, 2])?;
    /// let s = Sharded::from_shards(&mesh, vec![a.clone(), b], 0)?;
    /// assert_eq!(s.shape(), [3, 2]);
    /// assert!(Sharded::from_shards(&mesh, vec![a.clone(), a.t()], 0).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_shards(mesh: &Mesh, shards: Vec<Array<T>>, axis_: isize) -> Result<Sharded<T>> {
        let nd = shards.first().map_or(0, |a| a.ndim());
        let ax = axis(axis_, nd)?;
        Sharded::assemble(mesh.clone(), Split::Axis(ax), shards)
    }

    /// A replicated array of per-device copies: `replicas[r]` on the mesh's device `r`, all of
    /// one shape. The caller vouches that they hold the same values (reductions of a replicated
    /// array read each rank's own copy).
    pub fn from_replicas(mesh: &Mesh, replicas: Vec<Array<T>>) -> Result<Sharded<T>> {
        Sharded::assemble(mesh.clone(), Split::Replicated, replicas)
    }

    /// Checks the invariant (devices, ranks, shapes) and makes the sharded array.
    pub(crate) fn assemble(mesh: Mesh, split: Split, shards: Vec<Array<T>>) -> Result<Self> {
        if shards.len() != mesh.len() {
            return Err(Error::InvalidArgument(format!(
                "{} shard(s) for a mesh of {} device(s)",
                shards.len(),
                mesh.len()
            )));
        }
        let first = shards[0].shape().to_vec();
        for (r, (a, &d)) in shards.iter().zip(mesh.devices()).enumerate() {
            if a.device() != d {
                return Err(Error::DeviceMismatch(format!(
                    "shard {r} is on {}, the mesh's rank {r} is {d}",
                    a.device()
                )));
            }
            let fits = match split {
                Split::Replicated => a.shape() == first,
                Split::Axis(ax) => {
                    a.ndim() == first.len()
                        && ax < a.ndim()
                        && (0..a.ndim()).all(|i| i == ax || a.shape()[i] == first[i])
                }
            };
            if !fits {
                return Err(Error::Shape(format!(
                    "shard {r} has shape {:?}, shard 0 {first:?}: shards must agree {}",
                    a.shape(),
                    match split {
                        Split::Replicated => "exactly (replicated)".to_string(),
                        Split::Axis(ax) => format!("on every axis but the split axis {ax}"),
                    }
                )));
            }
        }
        Ok(Sharded {
            mesh,
            split,
            shards,
        })
    }

    /// The mesh.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// The layout over the mesh.
    pub fn split(&self) -> Split {
        self.split
    }

    /// The per-device arrays, in rank order.
    pub fn shards(&self) -> &[Array<T>] {
        &self.shards
    }

    /// The per-device arrays, taken out.
    pub fn into_shards(self) -> Vec<Array<T>> {
        self.shards
    }

    /// The shape of the whole array.
    pub fn shape(&self) -> Vec<usize> {
        let mut s = self.shards[0].shape().to_vec();
        if let Split::Axis(ax) = self.split {
            s[ax] = self.shards.iter().map(|a| a.shape()[ax]).sum();
        }
        s
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shards[0].ndim()
    }

    /// Starts every shard's pending work, each on its device's own stream, without waiting for
    /// any of them (errors of the backend surface here).
    pub fn eval(&self) -> Result<()> {
        self.shards.iter().try_for_each(|a| a.eval())
    }

    /// The whole array on `device`: the shards copied there (GPU to GPU between GPUs) and
    /// joined along the split axis; a replicated array gives rank 0's copy.
    pub fn gather(&self, device: Device) -> Result<Array<T>> {
        match self.split {
            Split::Replicated => self.shards[0].to_device(device),
            Split::Axis(ax) => {
                let moved = self
                    .shards
                    .iter()
                    .map(|a| a.to_device(device))
                    .collect::<Result<Vec<_>>>()?;
                if let [one] = moved.as_slice() {
                    return Ok(one.clone());
                }
                let refs: Vec<&Array<T>> = moved.iter().collect();
                with_device(device, || Array::concat(&refs, ax as isize))
            }
        }
    }

    /// `f` applied to every shard, with this thread's current device set to the shard's (so
    /// that arrays `f` creates land there). `f` must keep the split axis where it is (element-wise
    /// work does); the result is checked like [`from_shards`](Self::from_shards).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::Mesh};
    /// let s = Array::<f32>::ones(&[4, 3]).to_device(Device::CPU)?.shard(&Mesh::cpu(2)?, 1)?;
    /// let e = s.map(|a| (a * 2.0).exp())?;
    /// assert_eq!(e.shape(), [4, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn map<U: Element>(&self, f: impl Fn(&Array<T>) -> Array<U>) -> Result<Sharded<U>> {
        self.try_map(|a| Ok(f(a)))
    }

    /// [`map`](Self::map) with a fallible closure.
    pub fn try_map<U: Element>(
        &self,
        f: impl Fn(&Array<T>) -> Result<Array<U>>,
    ) -> Result<Sharded<U>> {
        let shards = self
            .shards
            .iter()
            .zip(self.mesh.devices())
            .map(|(a, &d)| with_device(d, || f(a)))
            .collect::<Result<Vec<_>>>()?;
        Sharded::assemble(self.mesh.clone(), self.split, shards)
    }

    /// `f` applied rank by rank to the shards of `self` and `other`: both on the same mesh and
    /// either of one layout (same split axis and extents, or both replicated), or one of them
    /// replicated (each rank then pairs its shard with its replica; the result is split as the
    /// other).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::{Mesh, Split}};
    /// let mesh = Mesh::cpu(2)?;
    /// let x = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
    /// let w = Array::from_slice_on(Device::CPU, &[10.0f32, 100.0], &[2])?;
    /// let xs = x.shard(&mesh, 0)?;
    /// let y = xs.zip(&w.replicate(&mesh)?, |x, w| x * w)?;
    /// assert_eq!(y.split(), Split::Axis(0));
    /// assert_eq!(y.gather(Device::CPU)?.to_vec()?, [10.0, 200.0, 30.0, 400.0, 50.0, 600.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn zip<U: Element, V: Element>(
        &self,
        other: &Sharded<U>,
        f: impl Fn(&Array<T>, &Array<U>) -> Array<V>,
    ) -> Result<Sharded<V>> {
        self.try_zip(other, |a, b| Ok(f(a, b)))
    }

    /// [`zip`](Self::zip) with a fallible closure.
    pub fn try_zip<U: Element, V: Element>(
        &self,
        other: &Sharded<U>,
        f: impl Fn(&Array<T>, &Array<U>) -> Result<Array<V>>,
    ) -> Result<Sharded<V>> {
        let split = self.zip_layout(other)?;
        let shards = self
            .shards
            .iter()
            .zip(&other.shards)
            .zip(self.mesh.devices())
            .map(|((a, b), &d)| with_device(d, || f(a, b)))
            .collect::<Result<Vec<_>>>()?;
        Sharded::assemble(self.mesh.clone(), split, shards)
    }

    /// The layout of a rank-by-rank combination of `self` and `other`, or why there is none.
    pub(crate) fn zip_layout<U: Element>(&self, other: &Sharded<U>) -> Result<Split> {
        if self.mesh != other.mesh {
            return Err(Error::DeviceMismatch(format!(
                "sharded arrays on different meshes: {:?} and {:?}",
                self.mesh.devices(),
                other.mesh.devices()
            )));
        }
        match (self.split, other.split) {
            (s, Split::Replicated) => Ok(s),
            (Split::Replicated, s) => Ok(s),
            (Split::Axis(a), Split::Axis(b)) => {
                let (ea, eb) = (ext_of(&self.shards, a), ext_of(&other.shards, b));
                if a != b || ea != eb {
                    return Err(Error::Shape(format!(
                        "sharded arrays of different layouts: split along axis {a} in blocks \
                         {ea:?}, and along axis {b} in blocks {eb:?}"
                    )));
                }
                Ok(Split::Axis(a))
            }
        }
    }
}

fn ext_of<U: Element>(s: &[Array<U>], ax: usize) -> Vec<usize> {
    s.iter().map(|x| x.shape()[ax]).collect()
}
