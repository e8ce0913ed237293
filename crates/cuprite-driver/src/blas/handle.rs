//! The cuBLAS handle [`Blas`]: bound to one context and one cuprite [`Stream`], with its
//! workspace taken from the stream-ordered pool. Its calls live beside it: `gemm` (level 3,
//! single and strided-batched), `gemv` (level 2), `level1` (`dot`, `dotc`, `axpy`, `nrm2`).
//!
//! Every call checks its dimensions against the buffers (checked arithmetic, 32-bit limits)
//! before cuBLAS sees them, and declares each operand's access to the stream tracker
//! ([`Stream::with_access`]), as a kernel launch does: work on other streams is waited for
//! exactly as it must be.

use super::types::invalid;
use crate::error::{Result, check_cublas};
use crate::handle_keep::HandleKeep;
use crate::memory::{Access, DeviceBuffer, DeviceRead};
use crate::stream::Stream;
use cuprite_sys::cublas::{self as sys, cublasHandle_t, cublasPointerMode_t, libraryPropertyType};
use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

/// The version of the cuBLAS library that would be used, as `(major, minor, patch)`. Opens the
/// library; needs no GPU. Without it, an `Err` listing every place it was looked for.
///
/// ```
/// match cuprite_driver::blas::version() {
///     Ok((major, minor, patch)) => println!("cuBLAS {major}.{minor}.{patch}"),
///     Err(e) => println!("no cuBLAS: {e}"),
/// }
/// ```
pub fn version() -> Result<(i32, i32, i32)> {
    let mut v = [0i32; 3];
    for (i, p) in [
        libraryPropertyType::MAJOR_VERSION,
        libraryPropertyType::MINOR_VERSION,
        libraryPropertyType::PATCH_LEVEL,
    ]
    .into_iter()
    .enumerate()
    {
        // SAFETY: a valid out-pointer; no other precondition.
        unsafe { cublas!(cublasGetProperty(p, &mut v[i])) }?;
    }
    Ok((v[0], v[1], v[2]))
}

/// `Err` while `stream` is capturing: a library handle made then would own a graph allocation
/// (its workspace) that is only valid while that graph lives.
pub(crate) fn refuse_capturing(stream: &Stream, what: &str) -> Result<()> {
    if stream.capture_status()? != crate::CaptureStatus::None {
        return Err(crate::Error::InvalidArgument(format!(
            "{what} cannot be made while its stream is capturing (its workspace would belong to \
             the graph); make it before the capture begins"
        )));
    }
    Ok(())
}

/// The workspace cuBLAS recommends for the device: 32 MiB from Hopper on, 4 MiB before.
pub(crate) fn recommended_workspace(stream: &Stream) -> Result<usize> {
    let (major, _) = stream.context().device().compute_capability()?;
    Ok(if major >= 9 { 32 << 20 } else { 4 << 20 })
}

/// A cuBLAS handle bound to a context and a cuprite [`Stream`]: everything it does is enqueued
/// on that stream, with the workspace cuBLAS asks for taken from the stream-ordered pool
/// (not allocated by cuBLAS itself). Destroyed on drop, or, when a capture took some of its
/// calls, with the last graph of that capture (which keeps the workspace too). `Send + Sync`: calls from several
/// threads take turns (cuBLAS forbids concurrent use of one handle).
///
/// Matrices are column-major (BLAS convention); for row-major data, compute `Cᵀ = Bᵀ · Aᵀ`, or
/// use [`BlasLt`](crate::blaslt::BlasLt), which takes row-major layouts directly.
///
/// ```no_run
/// use cuprite_driver::blas::{Blas, Gemm};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let stream = ctx.default_stream();
/// let blas = Blas::new(&stream)?;
/// // 2 × 2 column-major: A = [[1, 2], [3, 4]], B = I.
/// let a = stream.clone_htod(&[1.0f32, 3.0, 2.0, 4.0])?;
/// let b = stream.clone_htod(&[1.0f32, 0.0, 0.0, 1.0])?;
/// let mut c = stream.alloc_zeros::<f32>(4)?;
/// blas.gemm(&Gemm::new(2, 2, 2), &a, &b, &mut c)?;
/// assert_eq!(stream.clone_dtoh(&c)?, [1.0, 3.0, 2.0, 4.0]);
/// # Ok(()) }
/// ```
pub struct Blas {
    pub(super) raw: cublasHandle_t,
    pub(super) stream: Arc<Stream>,
    /// Serialises calls: one handle must not be used by two threads at once.
    pub(super) lock: Mutex<()>,
    /// Destroys the handle once neither this nor a graph that captured its work holds it.
    /// Dropped before `workspace`.
    keep: Arc<HandleKeep>,
    /// Handed to cuBLAS with `cublasSetWorkspace`; declared written by every call (graphs of
    /// captured calls keep it, and their launches are ordered with the handle's calls), freed
    /// (stream-ordered) once neither this nor such a graph holds it.
    pub(super) workspace: DeviceBuffer<u8>,
}

// SAFETY: the handle is used only under `lock`, with its context bound to the calling thread;
// cuBLAS handles may move between threads.
unsafe impl Send for Blas {}
// SAFETY: as above: every use of `raw` takes `lock`.
unsafe impl Sync for Blas {}

impl fmt::Debug for Blas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blas")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .field("workspace_bytes", &self.workspace.len())
            .finish()
    }
}

impl Blas {
    /// A new handle whose work goes on `stream`, with the workspace cuBLAS recommends for the
    /// device (32 MiB on Hopper, 4 MiB before) from the stream-ordered pool.
    pub fn new(stream: &Arc<Stream>) -> Result<Blas> {
        let bytes = recommended_workspace(stream)?;
        Self::with_workspace(stream, bytes)
    }

    /// Like [`new`](Self::new), with `bytes` of workspace (0: none; cuBLAS then runs the
    /// kernels that need none).
    ///
    /// # Errors
    /// An [`Error::InvalidArgument`](crate::Error::InvalidArgument) while `stream` is capturing:
    /// the workspace would be a graph allocation, gone with that graph while the handle lives on.
    pub fn with_workspace(stream: &Arc<Stream>, bytes: usize) -> Result<Blas> {
        let ctx = stream.context();
        ctx.bind_to_thread()?;
        refuse_capturing(stream, "a cuBLAS handle")?;
        // SAFETY: the workspace is handed to cuBLAS before any kernel can read it, and cuBLAS
        // only uses it as scratch space.
        let workspace = unsafe { stream.alloc::<u8>(bytes) }?;
        let mut raw: cublasHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { cublas!(cublasCreate_v2(&mut raw)) }?;
        let handle = raw as usize;
        let keep = HandleKeep::new(
            ctx,
            "a cuBLAS handle",
            Box::new(move || {
                // SAFETY: the handle this keep was made for, destroyed once, after every use
                // (the keep is its last holder; captured work is waited for first).
                unsafe { cublas!(cublasDestroy_v2(handle as cublasHandle_t)) }
            }),
        );
        let blas = Blas {
            raw,
            stream: stream.clone(),
            lock: Mutex::new(()),
            keep,
            workspace,
        };
        // SAFETY: a live handle and a live stream of the current context.
        unsafe { cublas!(cublasSetStream_v2(raw, stream.raw())) }?;
        let ws = blas.workspace.device_ptr() as *mut c_void;
        // SAFETY: `ws` is `bytes` bytes of device memory of this context, kept alive by the
        // handle, used only on the handle's stream.
        unsafe { cublas!(cublasSetWorkspace_v2(raw, ws, bytes)) }?;
        // SAFETY: a live handle.
        unsafe {
            cublas!(cublasSetPointerMode_v2(
                raw,
                cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST
            ))
        }?;
        Ok(blas)
    }

    /// The stream everything is enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The raw handle, for calls cuprite does not wrap. Declare their accesses with
    /// [`Stream::begin_access`] / [`Stream::end_access`] and keep the handle's stream and
    /// pointer mode (host) as they are.
    pub fn raw(&self) -> cublasHandle_t {
        self.raw
    }

    /// The workspace size in bytes.
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.len()
    }

    /// Takes the handle for one call about to enqueue work on its stream (a capture there
    /// keeps the handle alive).
    pub(super) fn enter(&self) -> Result<MutexGuard<'_, ()>> {
        let g = self
            .lock
            .lock()
            .map_err(|_| invalid("cuBLAS handle lock poisoned".into()))?;
        self.stream.context().bind_to_thread()?;
        self.keep.note_use(&self.stream);
        Ok(g)
    }

    /// The workspace's declared use by a call (a write: cuBLAS scribbles on it).
    pub(super) fn workspace_access(&self) -> Access<'_> {
        Access::of_tracker(self.workspace.tracker(), true)
    }
}
