//! Copies between GPUs: which path a copy between two contexts takes, peer access enabled on
//! first use, and counters of the paths taken.
//!
//! This module owns the choice of path for [`Stream::memcpy_dtod`](crate::Stream::memcpy_dtod)
//! (and so [`Stream::clone_dtod`](crate::Stream::clone_dtod)) when source and destination
//! belong to different contexts:
//!
//! - [`PeerPath::SameDevice`]: two contexts of one GPU; an ordinary device copy.
//! - [`PeerPath::Direct`]: two GPUs that can address each other (NVLink, or PCIe P2P). On the
//!   first copy between the pair, peer access is enabled both ways (`cuCtxEnablePeerAccess`,
//!   and `cuMemPoolSetAccess` so that stream-ordered allocations are reachable too); the copy
//!   then goes GPU to GPU without touching the host.
//! - [`PeerPath::Staged`]: GPUs that cannot reach each other (or where enabling failed). The
//!   driver stages the copy through host memory; it is still asynchronous and stream-ordered,
//!   but slower. This is the only case that goes through the host.
//!
//! The choice is made once per pair of contexts and cached. Each copy is counted by path
//! ([`stats`]), so a program (or a test) can check that its copies between GPUs never went
//! through the host. Ordering with other streams is the stream tracker's job, as for any copy.
//!
//! ```no_run
//! # fn main() -> cuprite_driver::Result<()> {
//! use cuprite_driver::{Context, peer};
//! let (a, b) = (Context::new(0)?, Context::new(1)?);
//! let x = a.default_stream().clone_htod(&vec![1.0f32; 1 << 20])?;
//! let before = peer::stats();
//! let y = b.default_stream().clone_dtod(&x)?; // GPU 0 -> GPU 1
//! let d = peer::stats().since(&before);
//! println!("{:?}: {} direct, {} staged", peer::path(&a, &b)?, d.direct_copies, d.staged_copies);
//! # drop(y); Ok(()) }
//! ```

use crate::context::Context;
use crate::drv;
use crate::error::Result;
use crate::stream::Stream;
use cuprite_sys::driver::{self as sys, CUdeviceptr};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// How copies between two contexts go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerPath {
    /// Both contexts are on one GPU: a plain device-to-device copy.
    SameDevice,
    /// GPU to GPU over NVLink or PCIe, peer access enabled.
    Direct,
    /// Through host memory, by the driver: the GPUs cannot reach each other.
    Staged,
}

/// Copies between contexts by path, with their bytes (process-wide).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeerStats {
    /// Copies between two contexts of one GPU.
    pub same_device_copies: u64,
    /// Direct GPU-to-GPU copies.
    pub direct_copies: u64,
    /// Copies the driver staged through the host.
    pub staged_copies: u64,
    /// Bytes copied directly.
    pub direct_bytes: u64,
    /// Bytes staged through the host.
    pub staged_bytes: u64,
}

impl PeerStats {
    /// The counts accumulated since `earlier` (wrapping, as [`Stats::since`](crate::Stats::since):
    /// never a panic, whatever the two hold).
    ///
    /// ```
    /// use cuprite_driver::peer::PeerStats;
    /// let a = PeerStats { direct_copies: 3, ..PeerStats::default() };
    /// let b = PeerStats { direct_copies: 5, ..PeerStats::default() };
    /// assert_eq!(b.since(&a).direct_copies, 2);
    /// assert_eq!(a.since(&b).direct_copies, u64::MAX - 1); // swapped: wraps, no panic
    /// ```
    pub fn since(&self, earlier: &PeerStats) -> PeerStats {
        PeerStats {
            same_device_copies: self
                .same_device_copies
                .wrapping_sub(earlier.same_device_copies),
            direct_copies: self.direct_copies.wrapping_sub(earlier.direct_copies),
            staged_copies: self.staged_copies.wrapping_sub(earlier.staged_copies),
            direct_bytes: self.direct_bytes.wrapping_sub(earlier.direct_bytes),
            staged_bytes: self.staged_bytes.wrapping_sub(earlier.staged_bytes),
        }
    }
}

static SAME: AtomicU64 = AtomicU64::new(0);
static DIRECT: AtomicU64 = AtomicU64::new(0);
static STAGED: AtomicU64 = AtomicU64::new(0);
static DIRECT_BYTES: AtomicU64 = AtomicU64::new(0);
static STAGED_BYTES: AtomicU64 = AtomicU64::new(0);

/// The counters of the whole process.
///
/// ```
/// let before = cuprite_driver::peer::stats();
/// // ... copies between GPUs ...
/// let d = cuprite_driver::peer::stats().since(&before);
/// assert_eq!(d.staged_copies, 0, "a copy went through the host");
/// ```
pub fn stats() -> PeerStats {
    PeerStats {
        same_device_copies: SAME.load(Ordering::Relaxed),
        direct_copies: DIRECT.load(Ordering::Relaxed),
        staged_copies: STAGED.load(Ordering::Relaxed),
        direct_bytes: DIRECT_BYTES.load(Ordering::Relaxed),
        staged_bytes: STAGED_BYTES.load(Ordering::Relaxed),
    }
}

type PathCache = Mutex<HashMap<(u64, u64), PeerPath>>;

fn cache() -> &'static PathCache {
    static CACHE: OnceLock<PathCache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Lets `device`'s kernels and copies reach allocations of `ctx`'s memory pool.
fn grant_pool_access(ctx: &Context, device: &Context) -> Result<()> {
    let pool = ctx.raw_memory_pool();
    if pool.is_null() {
        return Ok(());
    }
    let desc = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: device.device().raw(),
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    ctx.bind_to_thread()?;
    // SAFETY: a live pool of `ctx` and one valid access descriptor for another device.
    unsafe { drv!(cuMemPoolSetAccess(pool, &desc, 1)) }
}

fn enable_both(a: &Context, b: &Context) -> Result<()> {
    a.enable_peer_access(b)?;
    b.enable_peer_access(a)?;
    grant_pool_access(a, b)?;
    grant_pool_access(b, a)
}

/// The path copies between `a` and `b` take (either order), deciding it on first use: peer
/// access is enabled both ways where the GPUs can reach each other. A failure to enable it
/// makes the pair [`PeerPath::Staged`], not an error: the copies still work.
pub fn path(a: &Context, b: &Context) -> Result<PeerPath> {
    if a.ordinal() == b.ordinal() {
        return Ok(PeerPath::SameDevice);
    }
    let key = (a.id().min(b.id()), a.id().max(b.id()));
    let mut c = cache()
        .lock()
        .map_err(|_| crate::Error::InvalidArgument("peer path cache poisoned".into()))?;
    if let Some(p) = c.get(&key) {
        return Ok(*p);
    }
    let reachable =
        a.device().can_access_peer(&b.device())? && b.device().can_access_peer(&a.device())?;
    let p = if reachable && enable_both(a, b).is_ok() {
        PeerPath::Direct
    } else {
        PeerPath::Staged
    };
    c.insert(key, p);
    Ok(p)
}

/// Enqueues a copy of `bytes` from `src` (of `sctx`) to `dst` (of `dctx`) on `stream`, by the
/// pair's path, and counts it. The caller declared the accesses.
pub(crate) fn copy(
    stream: &Stream,
    dst: CUdeviceptr,
    dctx: &Context,
    src: CUdeviceptr,
    sctx: &Context,
    bytes: usize,
) -> Result<()> {
    let p = path(sctx, dctx)?;
    stream.context().bind_to_thread()?;
    // SAFETY: both ranges are live allocations of `bytes` bytes in the contexts named; the
    // caller ordered the copy after their users.
    unsafe {
        drv!(cuMemcpyPeerAsync(
            dst,
            dctx.raw(),
            src,
            sctx.raw(),
            bytes,
            stream.raw()
        ))
    }?;
    let b = bytes as u64;
    match p {
        PeerPath::SameDevice => {
            SAME.fetch_add(1, Ordering::Relaxed);
        }
        PeerPath::Direct => {
            DIRECT.fetch_add(1, Ordering::Relaxed);
            DIRECT_BYTES.fetch_add(b, Ordering::Relaxed);
        }
        PeerPath::Staged => {
            STAGED.fetch_add(1, Ordering::Relaxed);
            STAGED_BYTES.fetch_add(b, Ordering::Relaxed);
        }
    }
    Ok(())
}
