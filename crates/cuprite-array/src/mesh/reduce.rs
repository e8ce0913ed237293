//! Reductions of [`Sharded`] arrays: along the split axis (or all axes) a local fused
//! reduction on every rank and one all-reduce of the partials ([`super::collective`]), giving a
//! replicated result; along other axes, or of a replicated array, purely local work that keeps
//! the layout.
//!
//! Means along the split axis sum locally in the mean's type and divide by the global count
//! after the all-reduce, so uneven shards weigh by their element counts. A rank whose shard is
//! empty contributes zeros to a sum and, to a max or min, a copy of another rank's partial
//! (which leaves the result unchanged); a max or min over no element at all is an `Err`, as on
//! one device.

use super::collective::{Combine, all_reduce};
use super::sharded::{Sharded, Split};
use crate::array::{Array, cast_node};
use crate::dtype::{Element, Numeric, Ordered, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::ops::ReduceOpts;
use crate::ops::elementwise::binary_node;
use crate::ops::reduce::reduce_node;
use crate::ops::{BinaryOp, ReduceOp};
use crate::shape::axis;
use std::sync::Arc;

impl<T: Element> Sharded<T> {
    /// The normalised, sorted, deduplicated `axes` (`None`: all).
    fn norm_axes(&self, axes: Option<&[isize]>) -> Result<Vec<usize>> {
        let nd = self.ndim();
        let mut v = match axes {
            Some(a) => a.iter().map(|&x| axis(x, nd)).collect::<Result<Vec<_>>>()?,
            None => (0..nd).collect(),
        };
        v.sort_unstable();
        v.dedup();
        Ok(v)
    }

    /// Reduces over `axes` with `local` on every rank; when the split axis is among them, the
    /// partials are combined by `how` (a max or min skips empty shards) and `finish` runs on the
    /// combination.
    fn reduce_with<U: Element>(
        &self,
        axes: Option<&[isize]>,
        keepdims: bool,
        how: Combine,
        local: impl Fn(&Arc<Node>, &[usize]) -> Result<Arc<Node>>,
        finish: impl Fn(&Arc<Node>) -> Result<Arc<Node>>,
    ) -> Result<Sharded<U>> {
        let axes = self.norm_axes(axes)?;
        let wrap = |nodes: Vec<Arc<Node>>, split| {
            let shards = nodes.into_iter().map(Array::<U>::from_node).collect();
            Sharded::assemble(self.mesh().clone(), split, shards)
        };
        let split_ax = match self.split() {
            Split::Axis(ax) if axes.contains(&ax) => ax,
            Split::Axis(ax) => {
                // A reduction along other axes: the split axis moves left by the axes removed.
                let parts = self.local_all(&axes, &local)?;
                let gone = if keepdims {
                    0
                } else {
                    axes.iter().filter(|&&a| a < ax).count()
                };
                return wrap(parts, Split::Axis(ax - gone));
            }
            Split::Replicated => return wrap(self.local_all(&axes, &local)?, Split::Replicated),
        };
        let empty: Vec<bool> = self
            .shards()
            .iter()
            .map(|a| a.shape()[split_ax] == 0)
            .collect();
        let mut parts: Vec<Option<Arc<Node>>> = vec![None; self.shards().len()];
        for (r, a) in self.shards().iter().enumerate() {
            if how == Combine::Sum || !empty[r] {
                parts[r] = Some(local(&a.node, &axes)?);
            }
        }
        let parts = match parts.iter().flatten().next().cloned() {
            None => {
                return Err(Error::InvalidArgument(format!(
                    "{how:?} of an empty sharded array (shape {:?}, reduced along axes \
                     {axes:?}) has no value",
                    self.shape()
                )));
            }
            Some(donor) => {
                let donor = Array::<U>::from_node(donor);
                parts
                    .into_iter()
                    .zip(self.mesh().devices())
                    .map(|(p, &d)| match p {
                        Some(p) => Ok(p),
                        None => Ok(donor.to_device(d)?.node),
                    })
                    .collect::<Result<Vec<_>>>()?
            }
        };
        let done = all_reduce(self.mesh(), parts, how)?
            .iter()
            .map(&finish)
            .collect::<Result<Vec<_>>>()?;
        wrap(done, Split::Replicated)
    }

    fn local_all(
        &self,
        axes: &[usize],
        local: &impl Fn(&Arc<Node>, &[usize]) -> Result<Arc<Node>>,
    ) -> Result<Vec<Arc<Node>>> {
        self.shards().iter().map(|a| local(&a.node, axes)).collect()
    }

    /// The global extent of `axes`.
    fn count(&self, axes: Option<&[isize]>) -> Result<usize> {
        let shape = self.shape();
        Ok(self.norm_axes(axes)?.iter().map(|&a| shape[a]).product())
    }
}

fn plain(op: ReduceOp, keepdims: bool) -> impl Fn(&Arc<Node>, &[usize]) -> Result<Arc<Node>> {
    move |n, axes| reduce_node(n, op, axes, keepdims)
}

fn same(n: &Arc<Node>) -> Result<Arc<Node>> {
    Ok(n.clone())
}

impl<T: Numeric> Sharded<T> {
    /// Sum of all elements, on every rank (a replicated 0-d array; integers sum in `i64`/`u64`).
    pub fn sum(&self) -> Result<Sharded<T::Accum>> {
        self.sum_impl(None, false)
    }

    /// Sum along `axes`: with the split axis among them, a local sum and one all-reduce
    /// (replicated result); otherwise local on every rank (the layout kept).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::{Mesh, Split}};
    /// let a = Array::from_slice_on(Device::CPU, &[1i32, 2, 3, 4, 5, 6], &[3, 2])?;
    /// let s = a.shard(&Mesh::cpu(2)?, 0)?;
    /// let cols = s.sum_axes(&[0])?;
    /// assert_eq!(cols.split(), Split::Replicated);
    /// assert_eq!(cols.gather(Device::CPU)?.to_vec()?, [9i64, 12]);
    /// let rows = s.sum_axes(&[1])?;
    /// assert_eq!(rows.split(), Split::Axis(0));
    /// assert_eq!(rows.gather(Device::CPU)?.to_vec()?, [3i64, 7, 11]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sum_axes(&self, axes: &[isize]) -> Result<Sharded<T::Accum>> {
        self.sum_axes_with(axes, ReduceOpts::new())
    }
    /// [`sum_axes`](Self::sum_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn sum_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Sharded<T::Accum>> {
        let keepdims = opts.keepdims;
        self.sum_impl(Some(axes), keepdims)
    }

    fn sum_impl(&self, axes: Option<&[isize]>, keepdims: bool) -> Result<Sharded<T::Accum>> {
        self.reduce_with(
            axes,
            keepdims,
            Combine::Sum,
            plain(ReduceOp::Sum, keepdims),
            same,
        )
    }

    /// Mean of all elements, on every rank.
    pub fn mean(&self) -> Result<Sharded<T::Mean>> {
        self.mean_impl(None, false)
    }

    /// Mean along `axes` (weighted by the real element counts of uneven shards).
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::Mesh};
    /// let a = Array::from_slice_on(Device::CPU, &[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5])?;
    /// let m = a.shard(&Mesh::cpu(3)?, 0)?.mean()?;
    /// assert_eq!(m.shards()[2].item()?, 3.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn mean_axes(&self, axes: &[isize]) -> Result<Sharded<T::Mean>> {
        self.mean_axes_with(axes, ReduceOpts::new())
    }
    /// [`mean_axes`](Self::mean_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn mean_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Sharded<T::Mean>> {
        let keepdims = opts.keepdims;
        self.mean_impl(Some(axes), keepdims)
    }

    fn mean_impl(&self, axes: Option<&[isize]>, keepdims: bool) -> Result<Sharded<T::Mean>> {
        let md = <T::Mean as Element>::DTYPE;
        let count = self.count(axes)?;
        let local_sum = move |n: &Arc<Node>, ax: &[usize]| {
            reduce_node(&cast_node(n, md), ReduceOp::Sum, ax, keepdims)
        };
        let divide = move |n: &Arc<Node>| {
            let c = Node::new(
                Op::Const(Scalar::F64(count as f64).cast(n.dtype)),
                n.dtype,
                vec![],
                n.device,
            );
            binary_node(n, &c, BinaryOp::Div)
        };
        let splits_reduced = match self.split() {
            Split::Axis(ax) => self.norm_axes(axes)?.contains(&ax),
            Split::Replicated => false,
        };
        if splits_reduced {
            self.reduce_with(axes, keepdims, Combine::Sum, local_sum, divide)
        } else {
            // Local means: each rank divides its own sums by the (global = local) count.
            self.reduce_with(
                axes,
                keepdims,
                Combine::Sum,
                move |n, ax| divide(&local_sum(n, ax)?),
                same,
            )
        }
    }
}

impl<T: Ordered> Sharded<T> {
    /// Largest element, on every rank.
    pub fn max(&self) -> Result<Sharded<T>> {
        self.reduce_with(None, false, Combine::Max, plain(ReduceOp::Max, false), same)
    }

    /// Largest along `axes` (see [`sum_axes`](Self::sum_axes) for the layouts).
    pub fn max_axes(&self, axes: &[isize]) -> Result<Sharded<T>> {
        self.max_axes_with(axes, ReduceOpts::new())
    }
    /// [`max_axes`](Self::max_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn max_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Sharded<T>> {
        let keepdims = opts.keepdims;
        self.reduce_with(
            Some(axes),
            keepdims,
            Combine::Max,
            plain(ReduceOp::Max, keepdims),
            same,
        )
    }

    /// Smallest element, on every rank.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, mesh::Mesh};
    /// let a = Array::from_slice_on(Device::CPU, &[4i16, -7, 9], &[3])?;
    /// let s = a.shard(&Mesh::cpu(4)?, 0)?; // the last rank's shard is empty
    /// assert_eq!(s.min()?.shards()[3].item()?, -7);
    /// assert_eq!(s.max()?.shards()[0].item()?, 9);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn min(&self) -> Result<Sharded<T>> {
        self.reduce_with(None, false, Combine::Min, plain(ReduceOp::Min, false), same)
    }

    /// Smallest along `axes`.
    pub fn min_axes(&self, axes: &[isize]) -> Result<Sharded<T>> {
        self.min_axes_with(axes, ReduceOpts::new())
    }
    /// [`min_axes`](Self::min_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn min_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Sharded<T>> {
        let keepdims = opts.keepdims;
        self.reduce_with(
            Some(axes),
            keepdims,
            Combine::Min,
            plain(ReduceOp::Min, keepdims),
            same,
        )
    }
}
