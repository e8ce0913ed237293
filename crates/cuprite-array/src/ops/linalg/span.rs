//! A typed window of a device byte buffer, as cuBLASLt, cuSOLVER and cuDNN calls take it.

use crate::error::{Error, Result};
use cuprite_driver::{DeviceBuffer, DeviceRead, DeviceWrite, Tracker};
use std::marker::PhantomData;

/// A typed window of a byte buffer (its elements from `offset`), tracked as the buffer.
pub(crate) struct Span<'a, T> {
    buf: &'a DeviceBuffer<u8>,
    ptr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<'a, T> Span<'a, T> {
    /// Elements `[offset, offset + len)` of `buf` as `T`; `Err` when past its end.
    pub(crate) fn new(buf: &'a DeviceBuffer<u8>, offset: usize, len: usize) -> Result<Self> {
        let size = std::mem::size_of::<T>();
        let end = offset
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
        let _ = end;
        Ok(Span {
            buf,
            ptr: buf.device_ptr() + (offset * size) as u64,
            len,
            _t: PhantomData,
        })
    }
}

impl<T> DeviceRead<T> for Span<'_, T> {
    fn device_ptr(&self) -> u64 {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn tracker(&self) -> &Tracker {
        self.buf.tracker()
    }
}

// The output span is a new array's buffer, which no one else reads or writes yet.
impl<T> DeviceWrite<T> for Span<'_, T> {}
