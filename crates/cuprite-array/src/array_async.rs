//! Awaiting array results without blocking a thread: [`Array::to_vec_async`],
//! [`Array::item_async`] and [`Array::sync_async`] return futures resolved by a host function
//! on the array's stream (`cuprite_driver::Stream::synchronize_async`).
//!
//! Owns the reads in flight: a copy into page-locked host memory, and the future that says
//! when it landed. A read whose future is dropped before then keeps its host memory in
//! [`ORPHANS`] until the copy is done, so the device never writes freed memory; it must not
//! block a thread to wait for it.

use crate::array::Array;
use crate::device::Backend;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::Storage;
use cuprite_driver::{Access, HostAllocFlags, PinnedHostBuffer, StreamDone};
use std::future::Future;
use std::sync::{Arc, Mutex};

/// A copy to the host in flight: the page-locked memory it lands in and its completion.
struct InFlight {
    /// Always `Some` until dropped or read.
    host: Option<PinnedHostBuffer<u8>>,
    /// Always `Some` until dropped.
    done: Option<StreamDone>,
    /// The source, kept until the copy is done.
    _src: Arc<Storage>,
}

/// Reads whose futures were dropped before their copies landed: freed once done (swept by
/// every new read).
static ORPHANS: Mutex<Vec<InFlight>> = Mutex::new(Vec::new());

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.done.as_ref().is_some_and(|d| !d.is_done()) && self.host.is_some() {
            {
                let orphan = InFlight {
                    host: self.host.take(),
                    done: self.done.take(),
                    _src: self._src.clone(),
                };
                ORPHANS
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(orphan);
            }
        }
    }
}

/// Frees the host memory of orphaned reads that have landed.
fn sweep_orphans() {
    let done: Vec<InFlight> = {
        let mut o = ORPHANS.lock().unwrap_or_else(|e| e.into_inner());
        let (done, pending) = std::mem::take(&mut *o)
            .into_iter()
            .partition(|r| r.done.as_ref().is_none_or(|d| d.is_done()));
        *o = pending;
        done
    };
    drop(done);
}

/// Either the bytes at once (CPU) or a copy in flight (CUDA).
enum Started {
    Ready(Vec<u8>),
    Gpu(InFlight),
}

impl<T: Element> Array<T> {
    /// Enqueues the evaluation of this array and its copy to the host; the bytes come back
    /// when the result resolves.
    fn start_read(&self) -> Result<Started> {
        crate::runtime::refuse_in_capture("to_vec_async/item_async")?;
        let s = self.contiguous_storage()?;
        let bytes = self.len() * T::DTYPE.size();
        let d = match &*s {
            Storage::Host(h) => return Ok(Started::Ready(h.bytes()[..bytes].to_vec())),
            Storage::Cuda(d) => d,
        };
        sweep_orphans();
        let ordinal = d.ordinal();
        let stream = crate::runtime::stream_for(ordinal)?;
        let st = crate::runtime::state(ordinal)?;
        // A storage without its allocation (only while a buffer is handed back) holds no
        // values to copy: an Err, never the zeroed pinned buffer as if it were the data.
        let live = d.live();
        if live.is_none() && bytes > 0 {
            return Err(Error::InvalidArgument(
                "to_vec_async/item_async of an array whose storage has no allocation".into(),
            ));
        }
        let host = PinnedHostBuffer::<u8>::new(&st.ctx, bytes, HostAllocFlags::NONE)?;
        if let Some(b) = live.filter(|_| bytes > 0) {
            let acc = [Access::read(b)];
            stream.begin_access(&acc)?;
            // SAFETY: `host` holds `bytes` bytes and is kept (by the future, or by `ORPHANS`)
            // until the copy is done, and read only after; `b` holds at least `bytes` bytes of
            // this context, its writers ordered before the copy by `begin_access`.
            let r =
                unsafe { stream.memcpy_dtoh_raw(host.as_ptr().cast_mut(), b.device_ptr(), bytes) };
            stream.end_access(&acc)?;
            r?;
        }
        let done = stream.synchronize_async()?;
        Ok(Started::Gpu(InFlight {
            host: Some(host),
            done: Some(done),
            _src: s.clone(),
        }))
    }

    /// All elements, row-major, on the host, as a future: the evaluation and the copy are
    /// enqueued now, and the future resolves when they are done, with no thread blocked while
    /// it waits (a host function on the stream wakes it). Dropping it early cancels nothing.
    /// Works under any executor; on the CPU backend it is ready at once.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     struct W;
    /// #     impl std::task::Wake for W { fn wake(self: std::sync::Arc<Self>) {} }
    /// #     let w = std::task::Waker::from(std::sync::Arc::new(W));
    /// #     let mut cx = std::task::Context::from_waker(&w);
    /// #     let mut f = std::pin::pin!(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let a = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])? * 2.0;
    /// let v = block_on(a.to_vec_async())?; // or `a.to_vec_async().await?` in async code
    /// assert_eq!(v, [2.0, 4.0, 6.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_vec_async(&self) -> impl Future<Output = Result<Vec<T>>> + Send + 'static {
        let started = self.start_read();
        let len = self.len();
        async move {
            let bytes = match started? {
                Started::Ready(b) => b,
                Started::Gpu(mut f) => {
                    if let Some(done) = f.done.as_mut() {
                        done.await?;
                    }
                    let host = f.host.take().ok_or_else(|| {
                        Error::InvalidArgument("a read's host memory is gone".into())
                    })?;
                    let n = len * T::DTYPE.size();
                    // SAFETY: `host` holds `n` initialised bytes (zeroed at allocation, then
                    // written by the copy, which is done: the future above resolved).
                    unsafe { std::slice::from_raw_parts(host.as_ptr(), n) }.to_vec()
                }
            };
            Ok(T::from_bytes(&bytes))
        }
    }

    /// The single element of a one-element array, as a future (see
    /// [`to_vec_async`](Self::to_vec_async)); an `Err` when the array has another size.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     struct W;
    /// #     impl std::task::Wake for W { fn wake(self: std::sync::Arc<Self>) {} }
    /// #     let w = std::task::Waker::from(std::sync::Arc::new(W));
    /// #     let mut cx = std::task::Context::from_waker(&w);
    /// #     let mut f = std::pin::pin!(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let s = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?.sum()?;
    /// assert_eq!(block_on(s.item_async())?, 6.0);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn item_async(&self) -> impl Future<Output = Result<T>> + Send + 'static {
        let shape = self.shape().to_vec();
        let v = (self.len() == 1).then(|| self.to_vec_async());
        async move {
            match v {
                Some(f) => Ok(f.await?[0]),
                None => Err(Error::Shape(format!(
                    "item_async() needs exactly one element, the array has shape {shape:?}"
                ))),
            }
        }
    }

    /// Evaluates the array and resolves once its value is computed (and all work enqueued
    /// before it on this thread's stream of its device), with no thread blocked meanwhile.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     struct W;
    /// #     impl std::task::Wake for W { fn wake(self: std::sync::Arc<Self>) {} }
    /// #     let w = std::task::Waker::from(std::sync::Arc::new(W));
    /// #     let mut cx = std::task::Context::from_waker(&w);
    /// #     let mut f = std::pin::pin!(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let a = Array::<f32>::ones(&[1024]) * 3.0;
    /// block_on(a.sync_async())?;
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sync_async(&self) -> impl Future<Output = Result<()>> + Send + 'static {
        let device = self.device();
        let started = crate::runtime::refuse_in_capture("sync_async")
            .and_then(|()| self.eval())
            .and_then(|()| match device.backend {
                Backend::Cuda => {
                    let stream = crate::runtime::stream_for(device.ordinal)?;
                    if let Some(s) = self.leaf_storage() {
                        if let Storage::Cuda(d) = &*s {
                            if let Some(b) = d.live() {
                                // Orders this stream after the value's writer elsewhere.
                                let acc = [Access::read(b)];
                                stream.begin_access(&acc)?;
                                stream.end_access(&acc)?;
                            }
                        }
                    }
                    Ok(Some(stream.synchronize_async()?))
                }
                _ => Ok(None),
            });
        async move {
            if let Some(done) = started? {
                done.await?;
            }
            Ok(())
        }
    }
}
