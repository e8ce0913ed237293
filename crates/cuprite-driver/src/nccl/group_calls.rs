//! The collectives and point-to-point calls enqueued in a [`Group`].

use super::comm::Comm;
use super::group::Group;
use super::types::{NcclType, ReduceOp};
use crate::error::{Error, Result};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::driver::CUdeviceptr;
use cuprite_sys::nccl::{self as sys, ncclResult_t};
use std::ffi::{c_int, c_void};

impl<'a> Group<'a> {
    /// [`Comm::all_reduce`] in this group.
    pub fn all_reduce<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        send: &'a S,
        recv: &'a mut D,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclAllReduce";
        comm.check_buffer(send, CALL, "send")?;
        comm.check_buffer(&*recv, CALL, "receive")?;
        if send.len() != recv.len() {
            return Err(Error::InvalidArgument(format!(
                "{CALL}: send has {} elements but receive has {}",
                send.len(),
                recv.len()
            )));
        }
        let (s, r, n) = (send.device_ptr(), recv.device_ptr_mut(), send.len());
        let acc = [Some(Access::read(send)), Some(Access::write(&*recv))];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: both buffers hold `n` elements of T on the communicator's device;
            // ordering with other streams is declared above.
            unsafe {
                sys::ncclAllReduce(
                    ptr(s),
                    ptr(r).cast_mut(),
                    n,
                    T::DATA_TYPE,
                    op.raw(),
                    comm.raw,
                    stream.raw(),
                )
            }
        })
    }

    /// [`Comm::all_reduce_in_place`] in this group.
    pub fn all_reduce_in_place<T: NcclType, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        buf: &'a mut D,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclAllReduce";
        comm.check_buffer(&*buf, CALL, "in-place")?;
        let (p, n) = (buf.device_ptr_mut(), buf.len());
        let acc = [Some(Access::write(&*buf)), None];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: the buffer holds `n` elements of T on the communicator's device.
            unsafe {
                sys::ncclAllReduce(
                    ptr(p),
                    ptr(p).cast_mut(),
                    n,
                    T::DATA_TYPE,
                    op.raw(),
                    comm.raw,
                    stream.raw(),
                )
            }
        })
    }

    /// [`Comm::broadcast`] in this group.
    pub fn broadcast<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        send: Option<&'a S>,
        recv: &'a mut D,
        root: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclBroadcast";
        let root_c = comm.check_root(root, CALL)?;
        comm.check_buffer(&*recv, CALL, "receive")?;
        let n = recv.len();
        let r = recv.device_ptr_mut();
        let (s, acc) = match send {
            Some(send) => {
                comm.check_buffer(send, CALL, "send")?;
                if send.len() != n {
                    return Err(Error::InvalidArgument(format!(
                        "{CALL}: send has {} elements but receive has {n}",
                        send.len()
                    )));
                }
                (
                    send.device_ptr(),
                    [Some(Access::read(send)), Some(Access::write(&*recv))],
                )
            }
            None => (r, [Some(Access::write(&*recv)), None]),
        };
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: both addresses hold `n` elements of T on the communicator's device.
            unsafe {
                sys::ncclBroadcast(
                    ptr(s),
                    ptr(r).cast_mut(),
                    n,
                    T::DATA_TYPE,
                    root_c,
                    comm.raw,
                    stream.raw(),
                )
            }
        })
    }

    /// [`Comm::reduce`] in this group.
    pub fn reduce<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        send: &'a S,
        recv: Option<&'a mut D>,
        op: ReduceOp,
        root: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclReduce";
        let root_c = comm.check_root(root, CALL)?;
        comm.check_buffer(send, CALL, "send")?;
        let n = send.len();
        let (r, recv_acc) = match recv {
            Some(recv) => {
                comm.check_buffer(&*recv, CALL, "receive")?;
                if recv.len() != n {
                    return Err(Error::InvalidArgument(format!(
                        "{CALL}: send has {n} elements but receive has {}",
                        recv.len()
                    )));
                }
                (recv.device_ptr_mut(), Some(Access::write(&*recv)))
            }
            None if comm.rank == root => {
                return Err(Error::InvalidArgument(format!(
                    "{CALL}: rank {root} is the root and must pass a receive buffer"
                )));
            }
            None => (0, None),
        };
        let s = send.device_ptr();
        let acc = [Some(Access::read(send)), recv_acc];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: `send` holds `n` elements of T; `recv` too where given (null elsewhere,
            // which NCCL allows off the root).
            unsafe {
                sys::ncclReduce(
                    ptr(s),
                    ptr(r).cast_mut(),
                    n,
                    T::DATA_TYPE,
                    op.raw(),
                    root_c,
                    comm.raw,
                    stream.raw(),
                )
            }
        })
    }

    /// [`Comm::all_gather`] in this group.
    pub fn all_gather<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        send: &'a S,
        recv: &'a mut D,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclAllGather";
        comm.check_buffer(send, CALL, "send")?;
        comm.check_buffer(&*recv, CALL, "receive")?;
        let n = send.len();
        let total = comm.times_ranks(n, CALL)?;
        if recv.len() != total {
            return Err(Error::InvalidArgument(format!(
                "{CALL}: receive has {} elements but must have {} ranks × {n} = {total}",
                recv.len(),
                comm.nranks
            )));
        }
        let (s, r) = (send.device_ptr(), recv.device_ptr_mut());
        let acc = [Some(Access::read(send)), Some(Access::write(&*recv))];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: `send` holds `n` and `recv` `nranks × n` elements of T.
            unsafe {
                sys::ncclAllGather(
                    ptr(s),
                    ptr(r).cast_mut(),
                    n,
                    T::DATA_TYPE,
                    comm.raw,
                    stream.raw(),
                )
            }
        })
    }

    /// [`Comm::reduce_scatter`] in this group.
    pub fn reduce_scatter<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        send: &'a S,
        recv: &'a mut D,
        op: ReduceOp,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclReduceScatter";
        comm.check_buffer(send, CALL, "send")?;
        comm.check_buffer(&*recv, CALL, "receive")?;
        let n = recv.len();
        let total = comm.times_ranks(n, CALL)?;
        if send.len() != total {
            return Err(Error::InvalidArgument(format!(
                "{CALL}: send has {} elements but must have {} ranks × {n} = {total}",
                send.len(),
                comm.nranks
            )));
        }
        let (s, r) = (send.device_ptr(), recv.device_ptr_mut());
        let acc = [Some(Access::read(send)), Some(Access::write(&*recv))];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: `send` holds `nranks × n` and `recv` `n` elements of T.
            unsafe {
                sys::ncclReduceScatter(
                    ptr(s),
                    ptr(r).cast_mut(),
                    n,
                    T::DATA_TYPE,
                    op.raw(),
                    comm.raw,
                    stream.raw(),
                )
            }
        })
    }

    /// [`Comm::send`] in this group.
    pub fn send<T: NcclType, S: DeviceRead<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        buf: &'a S,
        peer: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclSend";
        let peer_c = comm.check_peer(peer, CALL)?;
        comm.check_buffer(buf, CALL, "send")?;
        let (p, n) = (buf.device_ptr(), buf.len());
        let acc = [Some(Access::read(buf)), None];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: the buffer holds `n` elements of T on the communicator's device.
            unsafe { sys::ncclSend(ptr(p), n, T::DATA_TYPE, peer_c, comm.raw, stream.raw()) }
        })
    }

    /// [`Comm::recv`] in this group.
    pub fn recv<T: NcclType, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        buf: &'a mut D,
        peer: usize,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclRecv";
        let peer_c = comm.check_peer(peer, CALL)?;
        comm.check_buffer(&*buf, CALL, "receive")?;
        let (p, n) = (buf.device_ptr_mut(), buf.len());
        let acc = [Some(Access::write(&*buf)), None];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: the buffer holds `n` elements of T on the communicator's device.
            unsafe {
                sys::ncclRecv(
                    ptr(p).cast_mut(),
                    n,
                    T::DATA_TYPE,
                    peer_c,
                    comm.raw,
                    stream.raw(),
                )
            }
        })
    }

    /// [`Comm::all_to_all`] in this group.
    pub fn all_to_all<T: NcclType, S: DeviceRead<T> + ?Sized, D: DeviceWrite<T> + ?Sized>(
        &mut self,
        comm: &'a Comm,
        send: &'a S,
        recv: &'a mut D,
        stream: &'a Stream,
    ) -> Result<()> {
        const CALL: &str = "all_to_all (ncclSend/ncclRecv)";
        comm.check_buffer(send, CALL, "send")?;
        comm.check_buffer(&*recv, CALL, "receive")?;
        let nranks = comm.nranks;
        if send.len() != recv.len() || send.len() % nranks != 0 {
            return Err(Error::InvalidArgument(format!(
                "{CALL}: send has {} elements and receive {}; both must have the same length, \
                 a multiple of the {nranks} ranks",
                send.len(),
                recv.len()
            )));
        }
        let k = send.len() / nranks;
        let block = k
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::InvalidArgument(format!("{CALL}: {k} elements overflow")))?;
        let (s, r) = (send.device_ptr(), recv.device_ptr_mut());
        let acc = [Some(Access::read(send)), Some(Access::write(&*recv))];
        self.enqueue(comm, stream, acc, CALL, || {
            // SAFETY: no arguments.
            let r0 = unsafe { sys::ncclGroupStart() }?;
            if !r0.is_success() {
                return Ok(r0);
            }
            let mut first = ncclResult_t::ncclSuccess;
            for peer in 0..nranks {
                // In range: peer × block ≤ (nranks − 1) × k × size_of::<T>() < the buffers'
                // byte lengths, which fit in memory.
                let off = (peer * block) as u64;
                // SAFETY: block `peer` of each buffer holds `k` elements of T.
                let a = unsafe {
                    sys::ncclSend(
                        ptr(s + off),
                        k,
                        T::DATA_TYPE,
                        peer as c_int,
                        comm.raw,
                        stream.raw(),
                    )
                }?;
                // SAFETY: as above.
                let b = unsafe {
                    sys::ncclRecv(
                        ptr(r + off).cast_mut(),
                        k,
                        T::DATA_TYPE,
                        peer as c_int,
                        comm.raw,
                        stream.raw(),
                    )
                }?;
                for x in [a, b] {
                    if first.is_success() && !x.is_success() && x != ncclResult_t::ncclInProgress {
                        first = x;
                    }
                }
            }
            // SAFETY: balances the group start above.
            let end = unsafe { sys::ncclGroupEnd() }?;
            Ok(if first.is_success() { end } else { first })
        })
    }
}

/// A device address as the `const void*` NCCL takes.
#[inline(always)]
pub(super) fn ptr(p: CUdeviceptr) -> *const c_void {
    p as usize as *const c_void
}
