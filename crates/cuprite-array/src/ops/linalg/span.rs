//! A typed window of a device byte buffer, as cuBLASLt, cuSOLVER and cuDNN calls take it.

use crate::error::{Error, Result};
use cuprite_driver::{DeviceBuffer, DeviceRead, DeviceViewMut};

/// A typed window of a byte buffer (its elements from `offset`), tracked as the buffer.
///
/// Invariant: the only spans written through are of buffers just made for a new array (or a
/// call's private copy), which no one else reads or writes yet; every device access to the
/// buffer, through a span or not, is ordered by its tracker.
pub(crate) type Span<'a, T> = DeviceViewMut<'a, T>;

/// `Span::<T>::new(buf, offset, len)`: elements `[offset, offset + len)` of `buf` as `T`;
/// `Err` when past its end.
pub(crate) trait SpanNew<'a>: Sized {
    fn new(buf: &'a DeviceBuffer<u8>, offset: usize, len: usize) -> Result<Self>;
}

impl<'a, T> SpanNew<'a> for DeviceViewMut<'a, T> {
    fn new(buf: &'a DeviceBuffer<u8>, offset: usize, len: usize) -> Result<Self> {
        let size = std::mem::size_of::<T>();
        offset
            .checked_add(len)
            .and_then(|e| e.checked_mul(size))
            .filter(|&e| e <= buf.len())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "matmul: elements {offset}..+{len} of {size} bytes lie past a buffer of {} \
                     bytes",
                    buf.len()
                ))
            })?;
        let ptr = buf.device_ptr() + (offset * size) as u64;
        // SAFETY: the window lies inside `buf` (checked above), device memory of the buffer's
        // context that the borrow keeps alive for 'a, tracked by the buffer's tracker; no host
        // reference can point into it; writes through spans go only to buffers no one else
        // holds (see `Span`).
        Ok(unsafe { DeviceViewMut::from_raw_parts(ptr, len, buf.tracker()) })
    }
}
