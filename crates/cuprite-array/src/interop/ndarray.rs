//! `ndarray` interop (cargo feature `ndarray`): [`Array::from_ndarray`] and
//! [`Array::to_ndarray`].
//!
//! Both are copies (host memory and device memory are different memories). Transfers of at
//! least [`STAGING_MIN_BYTES`] to or from a GPU go through two reused pinned staging buffers
//! per thread, double-buffered: the host fills (or drains) one chunk while the copy engine
//! moves the other, at pinned-memory bandwidth, with no pinned allocation per call.

use crate::array::Array;
use crate::device::{Backend, current_device};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::runtime::stream_for;
use crate::shape::{Layout, numel};
use crate::storage::DevBuf;
use crate::storage::Storage;
use cuprite_driver::{Access, DeviceBuffer, DeviceRead, Event, EventFlags, HostAllocFlags};
use cuprite_driver::{PinnedHostBuffer, Stream};
use std::cell::RefCell;
use std::sync::Arc;

/// Transfers of at least this many bytes use pinned staging.
pub const STAGING_MIN_BYTES: usize = 1 << 20;
const CHUNK: usize = 8 << 20;

struct Staging {
    /// The context the staging buffers belong to (compared, never called).
    ctx: usize,
    bufs: [PinnedHostBuffer<u8>; 2],
    events: [Event; 2],
    used: [bool; 2],
}

impl Drop for Staging {
    fn drop(&mut self) {
        // Copies still reading or writing the pinned buffers finish before they are freed.
        for (e, used) in self.events.iter().zip(self.used) {
            if used {
                let _ = e.synchronize();
            }
        }
    }
}

thread_local! {
    static STAGING: RefCell<Option<Staging>> = const { RefCell::new(None) };
}

fn with_staging<R>(stream: &Arc<Stream>, f: impl FnOnce(&mut Staging) -> Result<R>) -> Result<R> {
    STAGING.with(|cell| {
        let mut slot = cell.borrow_mut();
        let ctx = stream.context();
        if slot.as_ref().is_none_or(|s| s.ctx != ctx.raw() as usize) {
            *slot = Some(Staging {
                ctx: ctx.raw() as usize,
                bufs: [
                    PinnedHostBuffer::new(ctx, CHUNK, HostAllocFlags::NONE)?,
                    PinnedHostBuffer::new(ctx, CHUNK, HostAllocFlags::NONE)?,
                ],
                events: [
                    Event::new(ctx, EventFlags::DISABLE_TIMING)?,
                    Event::new(ctx, EventFlags::DISABLE_TIMING)?,
                ],
                used: [false; 2],
            });
        }
        f(slot.as_mut().expect("set above"))
    })
}

/// Copies `src` into `dst` on `stream` through the pinned staging buffers.
fn staged_upload(stream: &Arc<Stream>, src: &[u8], dst: &DeviceBuffer<u8>) -> Result<()> {
    let acc = [Access::write(dst)];
    stream.begin_access(&acc)?;
    with_staging(stream, |st| {
        for (i, chunk) in src.chunks(CHUNK).enumerate() {
            let k = i % 2;
            if st.used[k] {
                st.events[k].synchronize()?;
            }
            st.bufs[k].as_mut_slice()?[..chunk.len()].copy_from_slice(chunk);
            // SAFETY: the staging buffer holds `chunk.len()` bytes and is not touched again
            // before its event (recorded right after) completes; `dst` has room for the chunk
            // at this offset (same total size as `src`).
            unsafe {
                stream.memcpy_htod_raw(
                    DeviceRead::device_ptr(dst) + (i * CHUNK) as u64,
                    st.bufs[k].as_ptr(),
                    chunk.len(),
                )
            }?;
            st.events[k].record(stream)?;
            st.used[k] = true;
        }
        Ok(())
    })?;
    stream.end_access(&acc)?;
    Ok(())
}

/// Copies `src` (all of it) into `out` through the pinned staging buffers.
fn staged_download(stream: &Arc<Stream>, src: &DeviceBuffer<u8>, out: &mut [u8]) -> Result<()> {
    let acc = [Access::read(src)];
    stream.begin_access(&acc)?;
    with_staging(stream, |st| {
        let n = out.len().div_ceil(CHUNK);
        let mut pending: Option<usize> = None;
        for i in 0..=n {
            if i < n {
                let k = i % 2;
                if st.used[k] {
                    st.events[k].synchronize()?;
                }
                let len = CHUNK.min(out.len() - i * CHUNK);
                // SAFETY: the staging buffer has room for `len` bytes and is not read before
                // its event completes; `src` holds `out.len()` bytes.
                unsafe {
                    stream.memcpy_dtoh_raw(
                        st.bufs[k].as_ptr().cast_mut(),
                        DeviceRead::device_ptr(src) + (i * CHUNK) as u64,
                        len,
                    )
                }?;
                st.events[k].record(stream)?;
                st.used[k] = true;
            }
            if let Some(j) = pending {
                let k = j % 2;
                st.events[k].synchronize()?;
                let len = CHUNK.min(out.len() - j * CHUNK);
                out[j * CHUNK..j * CHUNK + len].copy_from_slice(&st.bufs[k].as_slice()?[..len]);
            }
            pending = (i < n).then_some(i);
        }
        Ok(())
    })?;
    stream.end_access(&acc)?;
    Ok(())
}

impl<T: Element> Array<T> {
    /// An array with the shape and elements of `a` (any layout), on this thread's current
    /// device. Large arrays go to the GPU through pinned staging.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let m = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
    /// let a = Array::from_ndarray(&m.t())?; // transposed view: any layout
    /// assert_eq!(a.to_vec()?, vec![1.0, 3.0, 2.0, 4.0]);
    /// assert_eq!(a.to_ndarray()?, m.t().into_dyn());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn from_ndarray<S, D>(a: &ndarray::ArrayBase<S, D>) -> Result<Self>
    where
        S: ndarray::Data<Elem = T>,
        D: ndarray::Dimension,
    {
        let shape = a.shape().to_vec();
        let owned;
        let data: &[T] = match a.as_slice() {
            Some(s) => s,
            None => {
                owned = a.iter().copied().collect::<Vec<T>>();
                &owned
            }
        };
        let device = current_device();
        let bytes = T::slice_bytes(data);
        if device.backend != Backend::Cuda || bytes.len() < STAGING_MIN_BYTES {
            return Self::from_slice(data, &shape);
        }
        crate::runtime::refuse_in_capture_because(
            "Array::from_ndarray (an upload from the host)",
            "the graph would copy from host memory that is gone by the next replay; make the \
             array outside the closure",
        )?;
        let stream = stream_for(device.ordinal)?;
        // SAFETY: fully written by the staged copy below before any read.
        let buf = unsafe { stream.alloc::<u8>(bytes.len()) }?;
        staged_upload(&stream, bytes, &buf)?;
        let d = DevBuf::adopt(buf, T::DTYPE, numel(&shape), device.ordinal, None);
        Ok(Self::from_storage(
            Arc::new(Storage::Cuda(d)),
            Layout::contiguous(&shape),
            &shape,
            device,
        ))
    }

    /// The array's elements as an `ndarray::ArrayD` (row-major). Large arrays come from the GPU
    /// through pinned staging.
    pub fn to_ndarray(&self) -> Result<ndarray::ArrayD<T>> {
        let shape = ndarray::IxDyn(self.shape());
        let v = if self.device().backend == Backend::Cuda
            && self.len() * T::DTYPE.size() >= STAGING_MIN_BYTES
        {
            let s = self.contiguous_storage()?;
            let Storage::Cuda(d) = &*s else {
                unreachable!("a CUDA array has CUDA storage")
            };
            let stream = stream_for(d.ordinal())?;
            let mut out = vec![0u8; self.len() * T::DTYPE.size()];
            staged_download(&stream, d.buffer()?, &mut out)?;
            T::from_bytes(&out)
        } else {
            self.to_vec()?
        };
        ndarray::ArrayD::from_shape_vec(shape, v)
            .map_err(|e| Error::Shape(format!("to_ndarray: {e}")))
    }
}
