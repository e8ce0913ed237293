//! Collective communication between GPUs with NCCL: communicators ([`Comm`]), their
//! [`UniqueId`], the collectives, point-to-point send/recv, [`group`]ed calls, and the
//! [`rendezvous`] through which processes (on one host or several) find each other.
//!
//! This module owns the safe use of `libnccl`: argument checks (counts against buffer lengths,
//! ranks against the communicator's size, buffers and streams against its context), bounded
//! waits (every wait for NCCL is bounded by the communicator's timeout and ends in an `Err`,
//! never a hang), asynchronous error polling, abort and teardown. It does not decide how
//! streams wait for each other: every buffer a collective touches is declared to the stream
//! tracker exactly as a kernel launch declares its arguments ([`Stream::begin_access`] before
//! the call, [`Stream::end_access`] once NCCL has enqueued its kernel), so collectives are
//! ordered with kernels and copies on other streams with no event of the user's.
//!
//! Communicators are created nonblocking, so that initialisation waiting for a rank that never
//! comes times out, and so is every later host-side wait: NCCL can bound those only for
//! nonblocking communicators. It launches their every group on a thread of its own, which
//! costs tens of microseconds a collective. [`CommOptions::blocking`] trades that bound for
//! speed: after the bounded initialisation the communicators are split (`ncclCommSplit`, NCCL
//! 2.18 and later) into blocking ones of the same ranks, which launch in the calling thread.
//! Teardown of either kind first waits (bounded) for the work the communicator enqueued, and
//! aborts instead of finalizing when that work does not finish.
//!
//! NCCL is opened on first use; without it every call is an [`Error::LibraryNotFound`] listing
//! the places tried (`CUPRITE_NCCL_PATH`, the toolkit, the system, the `nvidia-nccl-cu13`
//! wheel).
//!
//! # One process driving several GPUs
//!
//! ```no_run
//! use cuprite_driver::{Context, nccl::{self, Comm, ReduceOp}};
//! # fn main() -> cuprite_driver::Result<()> {
//! let n = cuprite_driver::Device::count()?;
//! let ctxs = (0..n).map(Context::new).collect::<cuprite_driver::Result<Vec<_>>>()?;
//! let comms = Comm::init_all(&ctxs)?;
//! let streams: Vec<_> = ctxs.iter().map(|c| c.default_stream()).collect();
//! let mut bufs = Vec::new();
//! for (r, s) in streams.iter().enumerate() {
//!     bufs.push(s.clone_htod(&vec![r as f32 + 1.0; 1024])?);
//! }
//! // One thread, several ranks: the calls of all ranks go in one group.
//! nccl::group(|g| {
//!     for ((c, b), s) in comms.iter().zip(bufs.iter_mut()).zip(&streams) {
//!         g.all_reduce_in_place(c, b, ReduceOp::Sum, s)?;
//!     }
//!     Ok(())
//! })?;
//! let want = (n * (n + 1) / 2) as f32;
//! assert!(streams[0].clone_dtoh(&bufs[0])?.iter().all(|&x| x == want));
//! # Ok(()) }
//! ```
//!
//! # One process per GPU
//!
//! Rank 0 makes the [`UniqueId`] and every rank gets it, then each calls [`Comm::init_rank`].
//! [`rendezvous::init_from_env`] does all of it from a launcher's environment (`RANK`,
//! `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`, or MPI's variables); the
//! `nccl_ranks` example shows it.
//!
//! # Timeouts and failures
//!
//! Communicators are created nonblocking (`ncclConfig_t.blocking = 0`, NCCL 2.14 and later):
//! initialisation, connection set-up and teardown run in NCCL's own threads while cuprite polls
//! `ncclCommGetAsyncError` against a deadline ([`Comm::timeout`], by default 120 s or
//! `CUPRITE_NCCL_TIMEOUT` seconds). A rank that never arrives makes the others'
//! [`Comm::init_rank`] return [`Error::Timeout`]; a collective whose peer died is seen by
//! [`Comm::wait`], which bounds the wait for the stream, aborts the communicator on timeout
//! (NCCL's kernels then stop, and the stream drains) and returns the error. Any asynchronous
//! error NCCL reports is returned by the next call on the communicator. A failed communicator
//! refuses further work; drop it (it is aborted, not finalized) or [`Comm::abort`] it.
//!
//! Keep NVLink multicast off where the workplace asks for it: `NCCL_NVLS_ENABLE=0` in the
//! environment of every process. cuprite itself never creates multicast objects.
//!
//! [`Stream::begin_access`]: crate::stream::Stream::begin_access
//! [`Stream::end_access`]: crate::stream::Stream::end_access
//! [`Error::LibraryNotFound`]: crate::Error::LibraryNotFound
//! [`Error::Timeout`]: crate::Error::Timeout

pub mod rendezvous;

mod clique;
mod collectives;
mod comm;
mod group;
mod group_calls;
mod init;
mod library;
mod types;
mod unique_id;
mod wait;

pub use comm::Comm;
pub use group::{Group, group};
pub use init::CommOptions;
pub use library::version;
pub use types::{NcclType, ReduceOp};
pub use unique_id::UniqueId;
pub use wait::default_timeout;
