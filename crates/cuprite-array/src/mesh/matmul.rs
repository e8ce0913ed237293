//! Matrix products of sharded arrays ([`Sharded::matmul`]), in the layouts that need no block
//! moved between devices before the product: blocks of rows (or of a batch axis) times a
//! replica, a replica times blocks of columns, and blocks of the contracted axis on both sides,
//! whose partial products one all-reduce sums.

use super::collective::{Combine, all_reduce};
use super::sharded::{Sharded, Split};
use crate::array::Array;
use crate::device::with_device;
use crate::dtype::Numeric;
use crate::error::{Error, Result};

impl<T: Numeric> Sharded<T> {
    /// The matrix product `self · rhs` ([`Array::matmul`] on every rank, each on its device's
    /// own stream) of operands with at least two axes (stacks of matrices broadcast as
    /// `matmul`'s do). The layouts it takes, and the result's:
    ///
    /// - `self` split along any axis but its last (rows, or a batch axis that `rhs` does not
    ///   broadcast against), `rhs` replicated: split along the same axis of the result;
    /// - `self` replicated, `rhs` split along its last axis (columns): split along the
    ///   result's last axis;
    /// - `self` split along its last axis and `rhs` along its second-to-last (the contracted
    ///   axis), in the same blocks: each rank multiplies its blocks and one all-reduce (NCCL on
    ///   GPUs) sums the partial products; replicated;
    /// - both replicated: replicated.
    ///
    /// Any other pair is an `Err` naming both layouts: gather, then shard or replicate first.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::{Mesh, Split}};
    /// let mesh = Mesh::cpu(2)?;
    /// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
    /// let w = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 0.0, 1.0, 1.0], &[2, 2])?;
    /// let want = a.matmul(&w)?.to_vec()?;
    /// // Blocks of rows times a replica: blocks of rows.
    /// let rows = a.shard(&mesh, 0)?.matmul(&w.replicate(&mesh)?)?;
    /// assert_eq!(rows.split(), Split::Axis(0));
    /// assert_eq!(rows.gather(Device::CPU)?.to_vec()?, want);
    /// // Blocks of the contracted axis: partial products, summed on every rank.
    /// let k = a.shard(&mesh, 1)?.matmul(&w.shard(&mesh, 0)?)?;
    /// assert_eq!(k.split(), Split::Replicated);
    /// assert_eq!(k.shards()[1].to_vec()?, want);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn matmul(&self, rhs: &Sharded<T>) -> Result<Sharded<T>> {
        let (na, nb) = (self.ndim(), rhs.ndim());
        if na < 2 || nb < 2 {
            return Err(Error::Shape(format!(
                "Sharded::matmul takes operands of at least 2 axes (matrices or stacks of them), \
                 got shapes {:?} and {:?}",
                self.shape(),
                rhs.shape()
            )));
        }
        if self.mesh() != rhs.mesh() {
            return Err(Error::DeviceMismatch(format!(
                "Sharded::matmul of arrays on different meshes: {:?} and {:?}",
                self.mesh().devices(),
                rhs.mesh().devices()
            )));
        }
        let out_nd = na.max(nb);
        let refuse = || {
            Error::Shape(format!(
                "Sharded::matmul: no product of an operand of shape {:?} split {:?} and one of \
                 shape {:?} split {:?} without moving blocks between devices (supported: rows or \
                 a batch axis times a replica, a replica times columns, the contracted axis split \
                 alike on both sides, or two replicas); gather, then shard or replicate first",
                self.shape(),
                self.split(),
                rhs.shape(),
                rhs.split()
            ))
        };
        let products = || -> Result<Vec<Array<T>>> {
            self.shards()
                .iter()
                .zip(rhs.shards())
                .zip(self.mesh().devices())
                .map(|((a, b), &d)| with_device(d, || a.matmul(b)))
                .collect()
        };
        match (self.split(), rhs.split()) {
            (Split::Replicated, Split::Replicated) => {
                Sharded::assemble(self.mesh().clone(), Split::Replicated, products()?)
            }
            (Split::Axis(a), Split::Replicated) if a + 1 < na => {
                // A batch axis of `self` must not broadcast against one of `rhs` of more than
                // one element (each rank holds only its block of it).
                if a + 2 < na {
                    let from_right = na - a;
                    if from_right <= nb && rhs.shape()[nb - from_right] != 1 {
                        return Err(refuse());
                    }
                }
                let split = Split::Axis(a + (out_nd - na));
                Sharded::assemble(self.mesh().clone(), split, products()?)
            }
            (Split::Replicated, Split::Axis(b)) if b + 1 == nb => {
                Sharded::assemble(self.mesh().clone(), Split::Axis(out_nd - 1), products()?)
            }
            (Split::Axis(a), Split::Axis(b)) if a + 1 == na && b + 2 == nb => {
                for (r, (x, y)) in self.shards().iter().zip(rhs.shards()).enumerate() {
                    if x.shape()[a] != y.shape()[b] {
                        return Err(Error::Shape(format!(
                            "Sharded::matmul: rank {r} holds {} of the contracted axis on the \
                             left and {} on the right; both must be split in the same blocks",
                            x.shape()[a],
                            y.shape()[b]
                        )));
                    }
                }
                let parts = products()?.into_iter().map(|p| p.node).collect();
                let sums = all_reduce(self.mesh(), parts, Combine::Sum)?;
                let shards = sums.into_iter().map(Array::from_node).collect();
                Sharded::assemble(self.mesh().clone(), Split::Replicated, shards)
            }
            _ => Err(refuse()),
        }
    }
}
