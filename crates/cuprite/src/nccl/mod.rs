//! Collective communication between GPUs with NCCL: communicators ([`Comm`]), their
//! [`UniqueId`], the collectives, point-to-point send/recv, [`group`]ed calls, and the
//! [`rendezvous`] through which processes (on one host or several) find each other.
//!
//! This module owns the safe use of `libnccl`: argument checks (counts against buffer lengths,
//! ranks against the communicator's size, buffers and streams against its context), the
//! nonblocking-communicator protocol (every wait for NCCL is bounded by the communicator's
//! timeout and ends in an `Err`, never a hang), asynchronous error polling, abort and
//! teardown. It does not decide how streams wait for each other: every buffer a collective
//! touches is declared to the stream tracker exactly as a kernel launch declares its arguments
//! ([`Stream::begin_access`] before the call, [`Stream::end_access`] once NCCL has enqueued its
//! kernel), so collectives are ordered with kernels and copies on other streams with no event
//! of the user's.
//!
//! NCCL is opened on first use; without it every call is an [`Error::LibraryNotFound`] listing
//! the places tried (`CUPRITE_NCCL_PATH`, the toolkit, the system, the `nvidia-nccl-cu13`
//! wheel).
//!
//! # One process driving several GPUs
//!
//! ```no_run
//! use cuprite::{Context, nccl::{self, Comm, ReduceOp}};
//! # fn main() -> cuprite::Result<()> {
//! let n = cuprite::Device::count()?;
//! let ctxs = (0..n).map(Context::new).collect::<cuprite::Result<Vec<_>>>()?;
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

pub mod rendezvous;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::memory::{Access, DeviceCopy, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::LoadError;
use cuprite_sys::driver::CUdeviceptr;
use cuprite_sys::nccl::{self as sys, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t};
use std::cell::Cell;
use std::ffi::{CStr, c_int, c_void};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The default bound of every wait for NCCL: `CUPRITE_NCCL_TIMEOUT` seconds, else 120 s.
pub fn default_timeout() -> Duration {
    std::env::var("CUPRITE_NCCL_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(120))
}

/// The NCCL version as `(major, minor, patch)`, e.g. `(2, 27, 3)`. `Err` without NCCL.
///
/// ```
/// match cuprite::nccl::version() {
///     Ok((a, b, c)) => println!("NCCL {a}.{b}.{c}"),
///     Err(e) => println!("no NCCL: {e}"),
/// }
/// ```
pub fn version() -> Result<(u32, u32, u32)> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-pointer.
    let r = unsafe { sys::ncclGetVersion(&mut v) };
    check(r, "ncclGetVersion", None)?;
    let v = v.max(0) as u32;
    Ok(if v >= 10000 {
        (v / 10000, (v % 10000) / 100, v % 100)
    } else {
        (v / 1000, (v % 1000) / 100, v % 100)
    })
}

/// NCCL's description of `code` and, where `comm` is given and NCCL kept one, its last error.
fn describe(code: ncclResult_t, comm: Option<ncclComm_t>) -> String {
    let mut s = String::new();
    // SAFETY: ncclGetErrorString returns a static NUL-terminated string (or null).
    if let Ok(p) = unsafe { sys::ncclGetErrorString(code) } {
        if !p.is_null() {
            // SAFETY: non-null pointer to a static C string owned by NCCL.
            s.push_str(&unsafe { CStr::from_ptr(p) }.to_string_lossy());
        }
    }
    // SAFETY: a null communicator asks for the last error of the calling thread; otherwise a
    // live communicator. The string is owned by NCCL and copied at once.
    if let Ok(p) = unsafe { sys::ncclGetLastError(comm.unwrap_or(std::ptr::null_mut())) } {
        if !p.is_null() {
            // SAFETY: non-null C string owned by NCCL, copied before any other NCCL call.
            let last = unsafe { CStr::from_ptr(p) }.to_string_lossy();
            if !last.trim().is_empty() {
                if !s.is_empty() {
                    s.push_str(" — ");
                }
                s.push_str(last.trim());
            }
        }
    }
    if s.is_empty() {
        s.push_str("no description available");
    }
    s
}

fn nccl_error(code: ncclResult_t, call: &'static str, comm: Option<ncclComm_t>) -> Error {
    Error::Nccl {
        call,
        code: code.0,
        name: code
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("ncclResult_t({})", code.0)),
        detail: describe(code, comm),
    }
}

/// Whether an NCCL call finished or was left running by a nonblocking communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Done,
    InProgress,
}

fn check(
    r: std::result::Result<ncclResult_t, LoadError>,
    call: &'static str,
    comm: Option<ncclComm_t>,
) -> Result<Status> {
    match r {
        Ok(r) if r.is_success() => Ok(Status::Done),
        Ok(r) if r == ncclResult_t::ncclInProgress => Ok(Status::InProgress),
        Ok(r) => Err(nccl_error(r, call, comm)),
        Err(e) => Err(e.into()),
    }
}

/// Polls `ncclCommGetAsyncError` of every communicator in `raws` until none is in progress,
/// up to `deadline`. Spins briefly first (a ready communicator answers at once), then sleeps
/// in growing steps up to 1 ms.
fn wait_ready(raws: &[ncclComm_t], deadline: Instant, what: &str, timeout: Duration) -> Result<()> {
    let mut pending: Vec<ncclComm_t> = raws.to_vec();
    let start = Instant::now();
    let mut sleep = Duration::from_micros(20);
    loop {
        let mut i = 0;
        while i < pending.len() {
            let mut state = ncclResult_t::ncclSuccess;
            // SAFETY: a live communicator and a valid out-pointer.
            let r = unsafe { sys::ncclCommGetAsyncError(pending[i], &mut state) };
            check(r, "ncclCommGetAsyncError", Some(pending[i]))?;
            if state == ncclResult_t::ncclInProgress {
                i += 1;
            } else if state.is_success() {
                pending.swap_remove(i);
            } else {
                return Err(nccl_error(state, "ncclCommGetAsyncError", Some(pending[i])));
            }
        }
        if pending.is_empty() {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(Error::Timeout {
                what: format!(
                    "{what}: {} of {} communicator(s) still in progress",
                    pending.len(),
                    raws.len()
                ),
                seconds: timeout.as_secs_f64(),
            });
        }
        // A collective's launch finishes within tens of microseconds: poll without giving up
        // the core at first (a sleep costs at least the scheduler's granularity, ~50 µs), then
        // yield, and only sleep once the wait is long.
        let waited = now - start;
        if waited < Duration::from_micros(200) {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        } else if waited < Duration::from_millis(5) {
            std::thread::yield_now();
        } else {
            std::thread::sleep(sleep.min(deadline - now));
            sleep = (sleep * 2).min(Duration::from_millis(1));
        }
    }
}

/// A communicator handle moved to the thread that aborts it.
struct SendComm(ncclComm_t);
// SAFETY: NCCL allows a communicator to be aborted from any thread; the handle is used by that
// thread alone once sent.
unsafe impl Send for SendComm {}

/// Aborts `raw` (`ncclCommAbort`) on a helper thread and waits for it at most `limit`: an abort
/// that NCCL cannot finish (a peer's socket that never answers) must not hang the caller. Past
/// the limit the thread is left to finish on its own and an `Err` says so.
fn abort_bounded(raw: ncclComm_t, ctx: &Arc<Context>, limit: Duration) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    let ctx2 = ctx.clone();
    let h = SendComm(raw);
    let spawned = std::thread::Builder::new()
        .name("cuprite-nccl-abort".into())
        .spawn(move || {
            let h = h;
            let _ = ctx2.bind_to_thread_no_deferred();
            // SAFETY: a live communicator that its owner no longer uses.
            let r = unsafe { sys::ncclCommAbort(h.0) };
            let _ = tx.send(check(r, "ncclCommAbort", None).map(|_| ()));
        });
    if let Err(e) = spawned {
        return Err(Error::InvalidArgument(format!(
            "cannot start a thread to abort an NCCL communicator: {e}"
        )));
    }
    match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => Err(Error::Timeout {
            what: "ncclCommAbort did not return; it goes on in a background thread".into(),
            seconds: limit.as_secs_f64(),
        }),
    }
}

/// How long an abort may take before the caller stops waiting for it.
fn abort_limit(timeout: Duration) -> Duration {
    timeout.clamp(Duration::from_secs(5), Duration::from_secs(30))
}

mod sealed {
    pub trait Sealed {}
}

/// An element type NCCL reduces and moves: `f16`, `bf16`, `f32`, `f64`, `i8`, `u8`, `i32`,
/// `u32`, `i64`, `u64` (sealed: NCCL knows no others).
///
/// ```
/// use cuprite::nccl::NcclType;
/// assert_eq!(<f32 as NcclType>::NAME, "f32");
/// ```
pub trait NcclType: DeviceCopy + sealed::Sealed {
    /// NCCL's code for the type.
    const DATA_TYPE: ncclDataType_t;
    /// The Rust name, for messages.
    const NAME: &'static str;
}

macro_rules! nccl_types {
    ($($t:ty => $code:ident, $name:literal;)*) => {$(
        impl sealed::Sealed for $t {}
        impl NcclType for $t {
            const DATA_TYPE: ncclDataType_t = ncclDataType_t::$code;
            const NAME: &'static str = $name;
        }
    )*};
}

nccl_types! {
    i8 => ncclInt8, "i8";
    u8 => ncclUint8, "u8";
    i32 => ncclInt32, "i32";
    u32 => ncclUint32, "u32";
    i64 => ncclInt64, "i64";
    u64 => ncclUint64, "u64";
    half::f16 => ncclFloat16, "f16";
    f32 => ncclFloat32, "f32";
    f64 => ncclFloat64, "f64";
    half::bf16 => ncclBfloat16, "bf16";
}

/// A reduction: element-wise over the ranks' buffers.
///
/// `Avg` is the sum divided by the number of ranks (for integers, NCCL's integer division).
/// `Prod` and `Sum` of integers wrap on overflow, as in C.
///
/// ```
/// use cuprite::nccl::ReduceOp;
/// assert_eq!(ReduceOp::ALL.len(), 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum.
    Sum,
    /// Product.
    Prod,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Mean (sum / number of ranks).
    Avg,
}

impl ReduceOp {
    /// Every reduction, in declaration order.
    pub const ALL: [ReduceOp; 5] = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::Avg,
    ];

    fn raw(self) -> ncclRedOp_t {
        match self {
            ReduceOp::Sum => ncclRedOp_t::ncclSum,
            ReduceOp::Prod => ncclRedOp_t::ncclProd,
            ReduceOp::Min => ncclRedOp_t::ncclMin,
            ReduceOp::Max => ncclRedOp_t::ncclMax,
            ReduceOp::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}

/// The identifier that the ranks of one communicator share (`ncclUniqueId`, 128 bytes).
///
/// Made once (by rank 0) with [`UniqueId::new`], sent to the other ranks as bytes
/// ([`as_bytes`](Self::as_bytes) / [`from_bytes`](Self::from_bytes)) — over the
/// [`rendezvous`], MPI, a file — and handed to [`Comm::init_rank`] by every rank.
///
/// ```
/// use cuprite::nccl::UniqueId;
/// let bytes = [7u8; 128];
/// let id = UniqueId::from_bytes(&bytes).unwrap();
/// assert_eq!(id.as_bytes(), &bytes);
/// assert!(UniqueId::from_bytes(&bytes[..100]).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId(sys::ncclUniqueId);

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The id carries an address: show only a short fingerprint.
        let h = self
            .0
            .internal
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            });
        write!(f, "UniqueId({h:016x})")
    }
}

impl UniqueId {
    /// Bytes in an id.
    pub const BYTES: usize = sys::NCCL_UNIQUE_ID_BYTES;

    /// A new id (`ncclGetUniqueId`): NCCL opens its bootstrap listener on this host, so the
    /// process that makes it must take part (as a rank) in the communicator.
    pub fn new() -> Result<UniqueId> {
        let mut id = sys::ncclUniqueId {
            internal: [0; Self::BYTES],
        };
        // SAFETY: `id` is a valid out-pointer of the right size.
        let r = unsafe { sys::ncclGetUniqueId(&mut id) };
        check(r, "ncclGetUniqueId", None)?;
        Ok(UniqueId(id))
    }

    /// The id's 128 bytes.
    pub fn as_bytes(&self) -> &[u8; Self::BYTES] {
        &self.0.internal
    }

    /// The id from its bytes: `Err` unless exactly [`BYTES`](Self::BYTES) are given.
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId> {
        let internal: [u8; Self::BYTES] = bytes.try_into().map_err(|_| {
            Error::InvalidArgument(format!(
                "an NCCL unique id is {} bytes, got {}",
                Self::BYTES,
                bytes.len()
            ))
        })?;
        Ok(UniqueId(sys::ncclUniqueId { internal }))
    }
}

/// What became of one communicator of a clique.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    /// In use by its `Comm`.
    Live,
    /// Its `Comm` was dropped in good order: finalize and destroy with the others.
    Dropped,
    /// Failed or timed out: abort when the clique goes.
    Failed,
    /// Already aborted.
    Aborted,
}

struct Slot {
    raw: ncclComm_t,
    ctx: Arc<Context>,
    state: SlotState,
}

/// The communicators created together in this process (one by `init_rank`, all by
/// `init_all`). NCCL's teardown of communicators that share a process is collective among
/// them, so they are finalized and destroyed together, in one group, when the last of their
/// `Comm`s is dropped, wherever that happens.
struct Clique {
    slots: Mutex<Vec<Slot>>,
    timeout: Duration,
}

// SAFETY: the raw communicators are only touched under the mutex, and NCCL allows a
// communicator to be finalized, destroyed or aborted from any thread.
unsafe impl Send for Clique {}
// SAFETY: as above.
unsafe impl Sync for Clique {}

impl Clique {
    fn set_state(&self, index: usize, state: SlotState) -> bool {
        let Ok(mut slots) = self.slots.lock() else {
            return false;
        };
        slots[index].state = state;
        slots.iter().all(|s| s.state != SlotState::Live)
    }

    /// Finalizes (in one group) and destroys the dropped communicators and aborts the failed
    /// ones. Called once, when no `Comm` of the clique is left.
    fn teardown(&self) {
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        let ok: Vec<usize> = (0..slots.len())
            .filter(|&i| slots[i].state == SlotState::Dropped)
            .collect();
        let mut finalize_failed: Option<Error> = None;
        if !ok.is_empty() {
            let r = (|| -> Result<()> {
                let raws: Vec<ncclComm_t> = ok.iter().map(|&i| slots[i].raw).collect();
                let grouped = ok.len() > 1;
                if grouped {
                    // SAFETY: no arguments.
                    check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
                }
                let mut first_err = None;
                for &i in &ok {
                    let _ = slots[i].ctx.bind_to_thread_no_deferred();
                    // SAFETY: a live communicator that no `Comm` uses any more.
                    let r = unsafe { sys::ncclCommFinalize(slots[i].raw) };
                    if let Err(e) = check(r, "ncclCommFinalize", Some(slots[i].raw)) {
                        first_err.get_or_insert(e);
                    }
                }
                let end = if grouped {
                    // SAFETY: balances the group start above.
                    check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", None).map(|_| ())
                } else {
                    Ok(())
                };
                if let Some(e) = first_err {
                    return Err(e);
                }
                end?;
                let deadline = Instant::now() + self.timeout;
                wait_ready(&raws, deadline, "ncclCommFinalize", self.timeout)
            })();
            if let Err(e) = r {
                // Finalize did not complete: abort instead of destroying (which would wait).
                for &i in &ok {
                    slots[i].state = SlotState::Failed;
                }
                finalize_failed = Some(e);
            }
        }
        for s in slots.iter_mut() {
            let _ = s.ctx.bind_to_thread_no_deferred();
            let (call, r) = match s.state {
                // SAFETY: a finalized communicator no `Comm` uses any more.
                SlotState::Dropped => ("ncclCommDestroy", unsafe { sys::ncclCommDestroy(s.raw) }),
                SlotState::Failed => {
                    s.state = SlotState::Aborted;
                    if let Err(e) = abort_bounded(s.raw, &s.ctx, abort_limit(self.timeout)) {
                        s.ctx
                            .defer("ncclCommAbort of a failed NCCL communicator", e);
                    }
                    continue;
                }
                SlotState::Aborted | SlotState::Live => continue,
            };
            s.state = SlotState::Aborted;
            if let Err(e) = check(r, call, None) {
                s.ctx.defer(format!("{call} of an NCCL communicator"), e);
            }
        }
        if let Some(e) = finalize_failed {
            if let Some(s) = slots.first() {
                s.ctx.defer(
                    "ncclCommFinalize of NCCL communicators (aborted instead)",
                    e,
                );
            }
        }
    }
}

/// An NCCL communicator: one rank of a group of GPUs that run collectives together, bound to
/// one [`Context`] (one GPU).
///
/// Made by [`Comm::init_all`] (one process, several GPUs) or [`Comm::init_rank`] (one
/// process per GPU, given a shared [`UniqueId`]). Each collective names the cuprite
/// [`Stream`] (of the communicator's context) it runs on and its buffers, which are tracked as
/// a kernel launch's are. `Send` but not `Sync`: NCCL forbids concurrent calls on one
/// communicator. Dropping it finalizes and destroys it (together with the others made by the
/// same `init_all`, once all are dropped); a failed one is aborted instead.
///
/// ```no_run
/// use cuprite::{Context, nccl::{Comm, ReduceOp, UniqueId}};
/// # fn main() -> cuprite::Result<()> {
/// let ctx = Context::new(0)?;
/// let comm = Comm::init_rank(&ctx, &UniqueId::new()?, 1, 0)?;
/// let s = ctx.default_stream();
/// let x = s.clone_htod(&[1.0f32, 2.0, 3.0])?;
/// let mut y = s.alloc_zeros::<f32>(3)?;
/// comm.all_reduce(&x, &mut y, ReduceOp::Sum, &s)?;
/// assert_eq!(s.clone_dtoh(&y)?, [1.0, 2.0, 3.0]);
/// # Ok(()) }
/// ```
pub struct Comm {
    raw: ncclComm_t,
    ctx: Arc<Context>,
    rank: usize,
    nranks: usize,
    timeout: Duration,
    clique: Arc<Clique>,
    index: usize,
    /// Why the communicator can no longer be used (`None` while it is healthy).
    failed: Cell<Option<&'static str>>,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a time; `Comm` is not
// `Sync`, so calls on one communicator never overlap.
unsafe impl Send for Comm {}

impl fmt::Debug for Comm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Comm")
            .field("rank", &self.rank)
            .field("nranks", &self.nranks)
            .field("device", &self.ctx.ordinal())
            .field("timeout", &self.timeout)
            .field("failed", &self.failed.get())
            .finish()
    }
}

/// The failure reason of a communicator that was aborted (and needs no teardown).
const ABORTED: &str = "aborted";

fn check_ranks(nranks: usize, rank: usize) -> Result<c_int> {
    if nranks == 0 || nranks > c_int::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "an NCCL communicator needs between 1 and {} ranks, got {nranks}",
            c_int::MAX
        )));
    }
    if rank >= nranks {
        return Err(Error::InvalidArgument(format!(
            "rank {rank} is out of range for {nranks} rank(s) (ranks are 0..{nranks})"
        )));
    }
    Ok(nranks as c_int)
}

/// Creates communicators (nonblocking where NCCL allows) for `(context, rank)` pairs of one
/// group of `nranks`, in one NCCL group, and waits for them up to `timeout`. On any failure
/// every communicator created is aborted.
fn init_ranks(
    members: &[(&Arc<Context>, usize)],
    id: &UniqueId,
    nranks: usize,
    timeout: Duration,
) -> Result<Vec<Comm>> {
    let n = check_ranks(nranks, members.iter().map(|m| m.1).max().unwrap_or(0))?;
    for (ctx, rank) in members {
        // NCCL's own threads bind the device's primary context (through the CUDA runtime):
        // buffers of an owned context would not be mapped there.
        if !ctx.is_primary() {
            return Err(Error::InvalidArgument(format!(
                "rank {rank}: NCCL communicators need the device's primary context \
                 (Context::new({})), not an owned one",
                ctx.ordinal()
            )));
        }
    }
    let deadline = Instant::now() + timeout;
    let mut raws: Vec<ncclComm_t> = vec![std::ptr::null_mut(); members.len()];
    let abort_all = |raws: &[ncclComm_t], members: &[(&Arc<Context>, usize)]| {
        for (raw, (ctx, _)) in raws.iter().zip(members) {
            if !raw.is_null() {
                // A communicator created above and handed to nobody; an abort that cannot
                // finish is left behind (the init already failed; that error is returned).
                let _ = abort_bounded(*raw, ctx, abort_limit(timeout));
            }
        }
    };
    let created = (|| -> Result<bool> {
        let grouped = members.len() > 1;
        if grouped {
            // SAFETY: no arguments.
            check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
        }
        let mut nonblocking = true;
        let mut first_err = None;
        for (i, (ctx, rank)) in members.iter().enumerate() {
            // NCCL takes the device from the calling thread's current context.
            if let Err(e) = ctx.bind_to_thread() {
                first_err.get_or_insert(e);
                break;
            }
            let mut config = sys::ncclConfig_t {
                blocking: 0,
                ..Default::default()
            };
            // SAFETY: valid out-pointer and config; `id` is 128 bytes passed by value.
            let r = unsafe {
                sys::ncclCommInitRankConfig(&mut raws[i], n, id.0, *rank as c_int, &mut config)
            };
            let r = match r {
                Err(LoadError::SymbolNotFound { .. }) => {
                    // NCCL before 2.14: blocking initialisation only.
                    nonblocking = false;
                    // SAFETY: as above.
                    unsafe { sys::ncclCommInitRank(&mut raws[i], n, id.0, *rank as c_int) }
                }
                r => r,
            };
            if let Err(e) = check(r, "ncclCommInitRankConfig", None) {
                first_err.get_or_insert(e);
                break;
            }
        }
        let end = if grouped {
            // SAFETY: balances the group start above.
            check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", None).map(|_| ())
        } else {
            Ok(())
        };
        if let Some(e) = first_err {
            return Err(e);
        }
        end?;
        Ok(nonblocking)
    })();
    let result = created.and_then(|nonblocking| {
        if nonblocking {
            wait_ready(&raws, deadline, "NCCL communicator initialisation", timeout)?;
        }
        Ok(())
    });
    if let Err(e) = result {
        abort_all(&raws, members);
        return Err(e);
    }
    let clique = Arc::new(Clique {
        slots: Mutex::new(
            raws.iter()
                .zip(members)
                .map(|(&raw, (ctx, _))| Slot {
                    raw,
                    ctx: (*ctx).clone(),
                    state: SlotState::Live,
                })
                .collect(),
        ),
        timeout,
    });
    Ok(raws
        .iter()
        .zip(members)
        .enumerate()
        .map(|(index, (&raw, (ctx, rank)))| Comm {
            raw,
            ctx: (*ctx).clone(),
            rank: *rank,
            nranks,
            timeout,
            clique: clique.clone(),
            index,
            failed: Cell::new(None),
        })
        .collect())
}

impl Comm {
    /// One communicator per context, ranks in the order given, for one process driving all
    /// these GPUs (primary contexts, [`Context::new`], on distinct devices). Waits up to
    /// [`default_timeout`]. Use [`group`] to call the ranks' collectives from one thread.
    pub fn init_all(contexts: &[Arc<Context>]) -> Result<Vec<Comm>> {
        Self::init_all_with_timeout(contexts, default_timeout())
    }

    /// [`init_all`](Self::init_all) with its own bound on every wait.
    pub fn init_all_with_timeout(
        contexts: &[Arc<Context>],
        timeout: Duration,
    ) -> Result<Vec<Comm>> {
        if contexts.is_empty() {
            return Err(Error::InvalidArgument(
                "Comm::init_all needs at least one context".into(),
            ));
        }
        for (i, a) in contexts.iter().enumerate() {
            for b in &contexts[..i] {
                if a.ordinal() == b.ordinal() {
                    return Err(Error::InvalidArgument(format!(
                        "Comm::init_all: device {} is given twice; NCCL allows one rank per GPU",
                        a.ordinal()
                    )));
                }
            }
        }
        let id = UniqueId::new()?;
        let members: Vec<(&Arc<Context>, usize)> =
            contexts.iter().enumerate().map(|(r, c)| (c, r)).collect();
        init_ranks(&members, &id, contexts.len(), timeout)
    }

    /// This process's rank `rank` (of `nranks`) of the communicator named by `id`, on
    /// `context`'s device (its primary context, [`Context::new`]). Every rank must call it with the same `id` and `nranks`. Waits up
    /// to [`default_timeout`] for all ranks to arrive, then aborts and returns
    /// [`Error::Timeout`].
    pub fn init_rank(
        context: &Arc<Context>,
        id: &UniqueId,
        nranks: usize,
        rank: usize,
    ) -> Result<Comm> {
        Self::init_rank_with_timeout(context, id, nranks, rank, default_timeout())
    }

    /// [`init_rank`](Self::init_rank) with its own bound on every wait.
    pub fn init_rank_with_timeout(
        context: &Arc<Context>,
        id: &UniqueId,
        nranks: usize,
        rank: usize,
        timeout: Duration,
    ) -> Result<Comm> {
        check_ranks(nranks, rank)?;
        let mut v = init_ranks(&[(context, rank)], id, nranks, timeout)?;
        Ok(v.remove(0))
    }

    /// This communicator's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.nranks
    }

    /// The context (GPU) of this rank.
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// The raw NCCL handle, for calls cuprite does not wrap.
    pub fn raw(&self) -> ncclComm_t {
        self.raw
    }

    /// The bound on every wait for NCCL on this communicator.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sets the bound on every later wait for NCCL on this communicator.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Whether an earlier call failed (the communicator then refuses work).
    pub fn is_failed(&self) -> bool {
        self.failed.get().is_some()
    }

    fn fail(&self, why: &'static str) {
        if self.failed.get().is_none() {
            self.failed.set(Some(why));
        }
    }

    fn usable(&self) -> Result<()> {
        match self.failed.get() {
            None => Ok(()),
            Some(why) => Err(Error::InvalidArgument(format!(
                "NCCL communicator (rank {} of {}) failed earlier ({why}); abort or drop it",
                self.rank, self.nranks
            ))),
        }
    }

    /// Returns NCCL's asynchronous error for this communicator, if it has one (a peer that
    /// failed, a network error...), as `Err`; the communicator then refuses further work.
    pub fn check_async_error(&self) -> Result<()> {
        self.usable()?;
        let mut state = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator and a valid out-pointer.
        let r = unsafe { sys::ncclCommGetAsyncError(self.raw, &mut state) };
        check(r, "ncclCommGetAsyncError", Some(self.raw))?;
        if state.is_success() || state == ncclResult_t::ncclInProgress {
            return Ok(());
        }
        self.fail("asynchronous error");
        Err(nccl_error(state, "ncclCommGetAsyncError", Some(self.raw)))
    }

    /// Waits (on the host) until the work enqueued on `stream` is done, polling this
    /// communicator's asynchronous error, up to [`timeout`](Self::timeout). On an asynchronous
    /// error or a timeout (a peer that died or never called the matching collective) the
    /// communicator is aborted — its kernels stop, so the stream drains — and the error is
    /// returned. Counted as a host synchronisation.
    pub fn wait(&self, stream: &Stream) -> Result<()> {
        self.usable()?;
        crate::stats::count_host_sync();
        let deadline = Instant::now() + self.timeout;
        let start = Instant::now();
        loop {
            if stream.is_idle()? {
                return self.check_async_error();
            }
            if let Err(e) = self.check_async_error() {
                self.abort_in_place();
                return Err(e);
            }
            let now = Instant::now();
            if now >= deadline {
                self.abort_in_place();
                return Err(Error::Timeout {
                    what: format!(
                        "NCCL work of rank {} of {} on its stream did not complete (a peer \
                         missing or dead?); the communicator was aborted",
                        self.rank, self.nranks
                    ),
                    seconds: self.timeout.as_secs_f64(),
                });
            }
            if now - start < Duration::from_micros(100) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200).min(deadline - now));
            }
        }
    }

    /// Aborts the communicator now; the `Comm` stays (refusing work) until it is dropped.
    fn abort_in_place(&self) {
        if self.failed.get() == Some(ABORTED) {
            return;
        }
        self.failed.set(Some(ABORTED));
        if let Err(e) = abort_bounded(self.raw, &self.ctx, abort_limit(self.timeout)) {
            self.ctx.defer("ncclCommAbort", e);
        }
    }

    /// Aborts the communicator (`ncclCommAbort`): its pending work stops, its resources are
    /// freed, and peers see an error. Use it when a peer failed; other ranks should abort too.
    pub fn abort(self) -> Result<()> {
        let r = if self.failed.get() == Some(ABORTED) {
            Ok(())
        } else {
            abort_bounded(self.raw, &self.ctx, abort_limit(self.timeout))
        };
        // Whatever NCCL answered, the handle must not be used again.
        self.failed.set(Some(ABORTED));
        drop(self);
        r
    }

    fn check_stream(&self, stream: &Stream, call: &str) -> Result<()> {
        if stream.context().raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(format!(
                "{call}: the stream belongs to device {}'s context, the communicator (rank {}) \
                 to device {}'s",
                stream.context().ordinal(),
                self.rank,
                self.ctx.ordinal()
            )));
        }
        Ok(())
    }

    fn check_buffer<T, B: DeviceRead<T> + ?Sized>(
        &self,
        buf: &B,
        call: &str,
        what: &str,
    ) -> Result<()> {
        let bctx = buf.tracker().context();
        if bctx.raw() != self.ctx.raw() {
            return Err(Error::InvalidArgument(format!(
                "{call}: the {what} buffer belongs to device {}'s context, the communicator \
                 (rank {}) to device {}'s",
                bctx.ordinal(),
                self.rank,
                self.ctx.ordinal()
            )));
        }
        Ok(())
    }

    fn check_root(&self, root: usize, call: &str) -> Result<c_int> {
        if root >= self.nranks {
            return Err(Error::InvalidArgument(format!(
                "{call}: root {root} is out of range for {} rank(s)",
                self.nranks
            )));
        }
        Ok(root as c_int)
    }

    fn check_peer(&self, peer: usize, call: &str) -> Result<c_int> {
        if peer >= self.nranks {
            return Err(Error::InvalidArgument(format!(
                "{call}: peer {peer} is out of range for {} rank(s)",
                self.nranks
            )));
        }
        Ok(peer as c_int)
    }

    /// `count × nranks`, or an `Err` naming the overflow.
    fn times_ranks(&self, count: usize, call: &str) -> Result<usize> {
        count.checked_mul(self.nranks).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{call}: {count} elements × {} ranks overflows",
                self.nranks
            ))
        })
    }

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

impl Drop for Comm {
    fn drop(&mut self) {
        let state = match self.failed.get() {
            None => SlotState::Dropped,
            Some(ABORTED) => SlotState::Aborted,
            Some(_) => SlotState::Failed,
        };
        if self.clique.set_state(self.index, state) {
            self.clique.teardown();
        }
    }
}

/// One enqueued NCCL call of a group, waiting for the group's end to be recorded.
struct Pending<'a> {
    stream: &'a Stream,
    accesses: [Option<Access<'a>>; 2],
}

/// The calls of one [`group`]: NCCL launches them together at the group's end
/// (`ncclGroupStart`/`ncclGroupEnd`), which is how one thread drives several ranks, and how a
/// rank issues sends and receives that depend on each other.
///
/// Its methods take the same arguments as [`Comm`]'s, plus the communicator. Buffers are
/// borrowed for the whole group (`'a`): NCCL enqueues the work only at the group's end, and
/// only then is each buffer's access recorded for the stream tracker.
pub struct Group<'a> {
    pending: Vec<Pending<'a>>,
    comms: Vec<&'a Comm>,
    /// Whether the NCCL group was closed (by `group`, or by `Drop` when `f` panicked).
    ended: bool,
}

impl fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("calls", &self.pending.len())
            .field("communicators", &self.comms.len())
            .finish()
    }
}

thread_local! {
    /// Whether this thread is inside `group`'s closure.
    static IN_GROUP: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`'s NCCL calls as one group (`ncclGroupStart` … `ncclGroupEnd`), then waits (up to
/// the communicators' timeout) for a nonblocking group to be launched, and records every
/// buffer access for the stream tracker. An `Err` of `f` is returned after the group was
/// closed (calls enqueued before it still run, and are tracked); so is a panic of `f`.
///
/// Inside `f`, make every NCCL call through the [`Group`]: a [`Comm`] method or another
/// `group` there is refused with an `Err`, because NCCL launches nested work only at the
/// outermost group's end, after which alone its buffer accesses can be recorded. Calls of one
/// group must not depend on each other's results (NCCL may run them in any order).
///
/// ```no_run
/// use cuprite::{Context, nccl::{self, Comm}};
/// # fn main() -> cuprite::Result<()> {
/// let ctx = Context::new(0)?;
/// let comm = &Comm::init_all(&[ctx.clone()])?[0];
/// let s = ctx.default_stream();
/// let a = s.clone_htod(&[1u32, 2, 3])?;
/// let mut b = s.alloc_zeros::<u32>(3)?;
/// // A rank sending to itself: the send and the receive must be in one group.
/// nccl::group(|g| {
///     g.send(comm, &a, 0, &s)?;
///     g.recv(comm, &mut b, 0, &s)
/// })?;
/// assert_eq!(s.clone_dtoh(&b)?, [1, 2, 3]);
/// # Ok(()) }
/// ```
pub fn group<'a, R>(f: impl FnOnce(&mut Group<'a>) -> Result<R>) -> Result<R> {
    if IN_GROUP.with(|g| g.get()) {
        return Err(Error::InvalidArgument(
            "an NCCL call inside nccl::group that does not go through its Group (a Comm method \
             or a nested group): NCCL would launch it only at the outer group's end, so its \
             buffers could not be tracked; call the Group's methods instead"
                .into(),
        ));
    }
    // SAFETY: no arguments.
    check(unsafe { sys::ncclGroupStart() }, "ncclGroupStart", None)?;
    IN_GROUP.with(|g| g.set(true));
    let mut g = Group {
        pending: Vec::new(),
        comms: Vec::new(),
        ended: false,
    };
    let r = f(&mut g);
    g.end().and(r)
}

impl Drop for Group<'_> {
    /// Closes the group if `f` panicked, so that the thread's NCCL group is balanced and the
    /// work enqueued so far is tracked.
    fn drop(&mut self) {
        let _ = self.end();
    }
}

impl<'a> Group<'a> {
    /// Closes the NCCL group, waits for a nonblocking launch, and records the accesses. Once.
    fn end(&mut self) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        IN_GROUP.with(|g| g.set(false));
        // SAFETY: balances the group start of `group`.
        let end = check(unsafe { sys::ncclGroupEnd() }, "ncclGroupEnd", None);
        let mut result = match end {
            Ok(Status::Done) => Ok(()),
            Ok(Status::InProgress) => {
                let raws: Vec<ncclComm_t> = self.comms.iter().map(|c| c.raw).collect();
                let timeout = self
                    .comms
                    .iter()
                    .map(|c| c.timeout)
                    .max()
                    .unwrap_or_else(default_timeout);
                let r = wait_ready(&raws, Instant::now() + timeout, "ncclGroupEnd", timeout);
                if r.is_err() {
                    for c in &self.comms {
                        c.fail("a group did not complete");
                    }
                }
                r
            }
            Err(e) => {
                for c in &self.comms {
                    c.fail("ncclGroupEnd failed");
                }
                Err(e)
            }
        };
        // The work is enqueued (or failed to be, in which case recording it is harmless):
        // record each access after it, so later users of the buffers wait for the collective.
        for p in &self.pending {
            let acc: Vec<Access<'a>> = p.accesses.iter().flatten().copied().collect();
            if let Err(e) = p.stream.end_access(&acc) {
                if result.is_ok() {
                    result = Err(e);
                }
            }
        }
        result
    }

    /// Checks, binds, declares the accesses, makes the call, and remembers it for the end.
    fn enqueue(
        &mut self,
        comm: &'a Comm,
        stream: &'a Stream,
        accesses: [Option<Access<'a>>; 2],
        call: &'static str,
        f: impl FnOnce() -> std::result::Result<ncclResult_t, LoadError>,
    ) -> Result<()> {
        comm.check_async_error()?;
        comm.check_stream(stream, call)?;
        comm.ctx.bind_to_thread()?;
        let acc_buf: [Access<'a>; 2];
        let acc: &[Access<'a>] = match accesses {
            [Some(a), Some(b)] => {
                acc_buf = [a, b];
                &acc_buf
            }
            [Some(a), None] | [None, Some(a)] => {
                acc_buf = [a, a];
                &acc_buf[..1]
            }
            [None, None] => &[],
        };
        stream.begin_access(acc)?;
        match check(f(), call, Some(comm.raw)) {
            Ok(_) => {}
            Err(e) => {
                if matches!(e, Error::Nccl { .. }) {
                    comm.fail("a call failed");
                }
                return Err(e);
            }
        }
        self.pending.push(Pending { stream, accesses });
        if !self.comms.iter().any(|c| std::ptr::eq(*c, comm)) {
            self.comms.push(comm);
        }
        Ok(())
    }

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
fn ptr(p: CUdeviceptr) -> *const c_void {
    p as usize as *const c_void
}
