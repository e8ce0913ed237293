//! The [`BlasLt`] handle: its stream, workspace and plan cache, created and destroyed together.

use super::cache::Plans;
use crate::blas::recommended_workspace;
use crate::error::{Result, check_cublaslt};
use crate::handle_keep::HandleKeep;
use crate::memory::DeviceBuffer;
use crate::stream::Stream;
use cuprite_sys::cublaslt::{self as sys, cublasLtHandle_t};
use std::fmt;
use std::sync::{Arc, Mutex};

/// A cuBLASLt handle bound to a context and a cuprite [`Stream`], with a workspace from the
/// stream-ordered pool and a cache of planned problems. Destroyed on drop (with its plans), or,
/// when a capture took some of its products, with the last graph of that capture (which keeps
/// the workspace too).
/// `Send + Sync`; calls from several threads take turns.
///
/// ```no_run
/// use cuprite_driver::blaslt::{BlasLt, Epilogue, Matmul};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let s = ctx.default_stream();
/// let lt = BlasLt::new(&s)?;
/// // Row-major 2 × 2: relu([[1, -2], [3, -4]] · I + [0.5, 0.5]).
/// let a = s.clone_htod(&[1.0f32, -2.0, 3.0, -4.0])?;
/// let b = s.clone_htod(&[1.0f32, 0.0, 0.0, 1.0])?;
/// let bias = s.clone_htod(&[0.5f32, 0.5])?;
/// let mut d = s.alloc_zeros::<f32>(4)?;
/// lt.matmul(&Matmul::row_major(2, 2, 2), &a, &b, None, &mut d, Epilogue::BiasRelu(&bias))?;
/// assert_eq!(s.clone_dtoh(&d)?, [1.5, 0.0, 3.5, 0.0]);
/// # Ok(()) }
/// ```
pub struct BlasLt {
    pub(super) raw: cublasLtHandle_t,
    pub(super) stream: Arc<Stream>,
    pub(super) plans: Mutex<Plans>,
    /// Destroys the handle once neither this nor a graph that captured its work holds it.
    /// Dropped before `workspace`.
    pub(super) keep: Arc<HandleKeep>,
    /// Passed to every matmul and declared written by it (graphs of captured products keep
    /// it, and their launches are ordered with the handle's products); freed stream-ordered
    /// once neither this nor such a graph holds it.
    pub(super) workspace: DeviceBuffer<u8>,
}

// SAFETY: the handle and the plans' descriptors are used only under `plans`' lock, with the
// context bound to the calling thread; cuBLASLt objects may move between threads.
unsafe impl Send for BlasLt {}
// SAFETY: as above.
unsafe impl Sync for BlasLt {}

impl fmt::Debug for BlasLt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlasLt")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .field("workspace_bytes", &self.workspace.len())
            .field("cached_plans", &self.cached_plans())
            .finish()
    }
}

impl BlasLt {
    /// A new handle whose work goes on `stream`, with the workspace cuBLAS recommends for the
    /// device (32 MiB on Hopper, 4 MiB before) from the stream-ordered pool.
    pub fn new(stream: &Arc<Stream>) -> Result<BlasLt> {
        let bytes = recommended_workspace(stream)?;
        Self::with_workspace(stream, bytes)
    }

    /// Like [`new`](Self::new), with `bytes` of workspace (0: only algorithms that need none).
    ///
    /// # Errors
    /// An [`Error::InvalidArgument`](crate::Error::InvalidArgument) while `stream` is capturing:
    /// the workspace would be a graph allocation, gone with that graph while the handle lives on.
    pub fn with_workspace(stream: &Arc<Stream>, bytes: usize) -> Result<BlasLt> {
        stream.context().bind_to_thread()?;
        crate::blas::refuse_capturing(stream, "a cuBLASLt handle")?;
        // SAFETY: only ever passed to cuBLASLt as scratch space.
        let workspace = unsafe { stream.alloc::<u8>(bytes) }?;
        let mut raw: cublasLtHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { lt!(cublasLtCreate(&mut raw)) }?;
        let handle = raw as usize;
        let keep = HandleKeep::new(
            stream.context(),
            "a cuBLASLt handle",
            Box::new(move || {
                // SAFETY: the handle this keep was made for, destroyed once, after every use
                // (the keep is its last holder; captured work is waited for first).
                unsafe { lt!(cublasLtDestroy(handle as cublasLtHandle_t)) }
            }),
        );
        Ok(BlasLt {
            raw,
            stream: stream.clone(),
            plans: Mutex::new(Plans::default()),
            keep,
            workspace,
        })
    }

    /// The stream everything is enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The raw handle, for calls cuprite does not wrap.
    pub fn raw(&self) -> cublasLtHandle_t {
        self.raw
    }

    /// The workspace size in bytes.
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.len()
    }

    /// How many problems have a cached plan (one heuristic query each).
    pub fn cached_plans(&self) -> usize {
        self.plans.lock().map(|p| p.list.len()).unwrap_or(0)
    }
}

impl Drop for BlasLt {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        match ctx.bind_to_thread_no_deferred() {
            Ok(()) => {
                if let Ok(p) = self.plans.get_mut() {
                    for plan in &mut p.list {
                        plan.destroy();
                    }
                }
            }
            Err(e) => ctx.defer("destroying the plans of a BlasLt handle", e),
        }
        // The handle goes with `keep` (here, or with the last graph of captured work).
    }
}
