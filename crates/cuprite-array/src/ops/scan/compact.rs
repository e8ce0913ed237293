//! Compaction: `argwhere`, `nonzero` and `masked_select`, each in two passes over the fused
//! input: a count (a fused reduction, read back to size the result), then one single-pass
//! flag-scan-scatter (the look-back scan of the flags gives each kept element its rank).

use super::call::ScanCall;
use crate::array::Array;
use crate::codegen::{ScanSpec, Sink};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::shape::{broadcast_shapes, numel};
use std::sync::Arc;

/// The number of set elements of `flags` (a synchronisation).
fn count(flags: &Array<bool>) -> Result<usize> {
    if flags.is_empty() {
        return Ok(0);
    }
    let c = flags.count()?.item()?;
    usize::try_from(c).map_err(|_| Error::InvalidArgument(format!("a count of {c} set elements")))
}

impl<T: Element> Array<T> {
    /// The coordinates of the non-zero elements, one row each in row-major order: shape
    /// `[count, ndim]`, `i64` (NumPy's `argwhere`, PyTorch's `nonzero`). The input is read
    /// fused; the count is read back first (a synchronisation).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 2.0, 3.0, 0.0], &[2, 2])?;
    /// let w = a.argwhere()?;
    /// assert_eq!(w.shape(), &[2, 2]);
    /// assert_eq!(w.to_vec()?, [0i64, 1, 1, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn argwhere(&self) -> Result<Array<i64>> {
        let flags = self.cast::<bool>();
        let count = count(&flags)?;
        let nd = self.ndim();
        let call = Arc::new(ScanCall {
            spec: ScanSpec {
                sink: Sink::Compact {
                    values: false,
                    wide: numel(self.shape()) > i32::MAX as usize,
                },
                out: DType::I64,
            },
            outer: 1,
            n: numel(self.shape()),
            inner: 1,
            inputs: 1,
        });
        crate::shape::checked_numel(&[count, nd])?;
        Ok(Array::from_node(Node::new(
            Op::Library(call, vec![flags.node.clone()]),
            DType::I64,
            vec![count, nd],
            self.device(),
        )))
    }

    /// The coordinates of the non-zero elements as one 1-D `i64` array per axis (NumPy's
    /// `nonzero`): the columns of [`argwhere`](Self::argwhere).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[0, 5, 7, 0, 0, 1], &[2, 3])?;
    /// let nz = a.nonzero()?;
    /// assert_eq!(nz[0].to_vec()?, [0i64, 0, 1]);
    /// assert_eq!(nz[1].to_vec()?, [1i64, 2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn nonzero(&self) -> Result<Vec<Array<i64>>> {
        let w = self.argwhere()?;
        let count = w.shape()[0];
        (0..self.ndim())
            .map(|d| {
                w.slice(&[
                    crate::shape::SliceArg::Range {
                        start: None,
                        end: None,
                        step: 1,
                    },
                    crate::shape::SliceArg::Index(d as isize),
                ])?
                .reshape(&[count])
            })
            .collect()
    }

    /// The elements where `mask` is set, in row-major order, as a 1-D array. `mask` and the
    /// array are broadcast together (PyTorch's `masked_select`). Both are read fused; the count
    /// is read back first (a synchronisation).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let m = Array::from_slice_on(Device::CPU, &[true, false], &[2])?;
    /// assert_eq!(a.masked_select(&m)?.to_vec()?, [1.0, 3.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn masked_select(&self, mask: &Array<bool>) -> Result<Array<T>> {
        if T::DTYPE.is_complex() {
            return Err(Error::InvalidArgument(format!(
                "masked_select of {} is not supported (complex values)",
                T::DTYPE
            )));
        }
        crate::array::check_devices(&[&self.node, &mask.node])?;
        let shape = broadcast_shapes(self.shape(), mask.shape()).map_err(|_| {
            Error::Shape(format!(
                "masked_select: a mask of shape {:?} does not broadcast with an array of shape {:?}",
                mask.shape(),
                self.shape()
            ))
        })?;
        let m = mask.broadcast_to(&shape)?;
        let v = self.broadcast_to(&shape)?;
        let count = count(&m)?;
        let call = Arc::new(ScanCall {
            spec: ScanSpec {
                sink: Sink::Compact {
                    values: true,
                    wide: numel(&shape) > i32::MAX as usize,
                },
                out: T::DTYPE,
            },
            outer: 1,
            n: numel(&shape),
            inner: 1,
            inputs: 2,
        });
        Ok(Array::from_node(Node::new(
            Op::Library(call, vec![m.node.clone(), v.node.clone()]),
            T::DTYPE,
            vec![count],
            self.device(),
        )))
    }
}
