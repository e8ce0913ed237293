//! The collectives and point-to-point calls of one communicator, each a group of one.

use super::comm::Comm;
use super::group::group;
use super::types::{NcclType, ReduceOp};
use crate::error::Result;
use crate::memory::{DeviceRead, DeviceWrite};
use crate::stream::Stream;

impl Comm {
    /// All-reduce: every rank's `recv` gets the element-wise `op` of all ranks' `send`.
    /// `send` and `recv` have the same length.
    pub fn all_reduce<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        send: &S,
        recv: &mut D,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.all_reduce(self, send, recv, op, stream))
    }

    /// All-reduce in place: `buf` is both the input and the output.
    pub fn all_reduce_in_place<T: NcclType, D: DeviceWrite<T> + ?Sized>(
        &self,
        buf: &mut D,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.all_reduce_in_place(self, buf, op, stream))
    }

    /// Broadcast: every rank's `recv` gets `root`'s data. On `root` the data is `send`, or
    /// `recv` itself when `send` is `None` (in place); other ranks' `send` is not read.
    pub fn broadcast<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        send: Option<&S>,
        recv: &mut D,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.broadcast(self, send, recv, root, stream))
    }

    /// Reduce: `root`'s `recv` gets the element-wise `op` of all ranks' `send`. `recv` is
    /// required on `root` (same length as `send`) and ignored elsewhere.
    pub fn reduce<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        send: &S,
        recv: Option<&mut D>,
        op: ReduceOp,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.reduce(self, send, recv, op, root, stream))
    }

    /// All-gather: every rank's `recv` (`nranks × send.len()` elements) gets rank `i`'s `send`
    /// at `i × send.len()`.
    pub fn all_gather<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        send: &S,
        recv: &mut D,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.all_gather(self, send, recv, stream))
    }

    /// Reduce-scatter: `send` has `nranks × recv.len()` elements; rank `i`'s `recv` gets block
    /// `i` of the element-wise `op` of all ranks' `send`.
    pub fn reduce_scatter<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        send: &S,
        recv: &mut D,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.reduce_scatter(self, send, recv, op, stream))
    }

    /// Sends `buf` to rank `peer`, which must call [`recv`](Self::recv) with the same length.
    /// A send and its receive must be issued together: in one [`group`] when one thread
    /// drives both ranks, or when a rank both sends and receives.
    pub fn send<T: NcclType, S: DeviceRead<T> + ?Sized>(
        &self,
        buf: &S,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.send(self, buf, peer, stream))
    }

    /// Receives `buf` from rank `peer` (see [`send`](Self::send)).
    pub fn recv<T: NcclType, D: DeviceWrite<T> + ?Sized>(
        &self,
        buf: &mut D,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.recv(self, buf, peer, stream))
    }

    /// All-to-all from grouped sends and receives: `send` and `recv` have `nranks × k`
    /// elements; block `j` of `send` goes to rank `j`, and block `i` of `recv` comes from rank
    /// `i`.
    pub fn all_to_all<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &self,
        send: &S,
        recv: &mut D,
        stream: &Stream,
    ) -> Result<()> {
        group(|g| g.all_to_all(self, send, recv, stream))
    }
}
