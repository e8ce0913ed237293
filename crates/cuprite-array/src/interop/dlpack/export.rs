//! Export: what an exported tensor keeps alive, its deleters, and the consumer-stream hand-off.

use super::abi::{
    DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION,
    DLPACK_MINOR_VERSION, DLPackVersion, DLTensor, KDL_CPU, KDL_CUDA,
};
use super::dtype::dl_dtype;
use super::keepalive::{Export, delete_legacy, delete_versioned};
use super::tensor::DLPackTensor;
use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::Storage;
use cuprite_driver::{Access, Stream};
use std::ffi::c_void;
use std::sync::Arc;

/// The raw handle of the stream that array work of CUDA device `ordinal` runs on in this thread,
/// as an integer: what to pass as `stream=` to a producer's `__dlpack__` so that the hand-off
/// waits on the device, not the host.
pub fn consumer_stream_handle(ordinal: usize) -> Result<usize> {
    Ok(crate::runtime::stream_for(ordinal)?.raw() as usize)
}

impl<T: Element> Array<T> {
    /// Exports the array as a versioned DLPack tensor sharing its memory (evaluated first; a
    /// view with negative strides is made contiguous). The consumer must treat the memory as
    /// read-only (arrays are immutable and may share it). No stream hand-off: the consumer
    /// uses the array stream or synchronises; see [`to_dlpack_for`](Self::to_dlpack_for).
    pub fn to_dlpack(&self) -> Result<DLPackTensor> {
        self.to_dlpack_for(None, true)
    }

    /// Like [`to_dlpack`](Self::to_dlpack), as a legacy `DLManagedTensor`.
    pub fn to_dlpack_legacy(&self) -> Result<DLPackTensor> {
        self.to_dlpack_for(None, false)
    }

    /// Exports the array as a DLPack tensor (`versioned` or legacy) for a consumer working on
    /// `consumer`: that stream first waits, on the device, for the array work that produced the
    /// data (one event, no host synchronisation); and when the consumer deletes the tensor, the
    /// array stream waits for the consumer's work before the memory can be freed or reused.
    pub fn to_dlpack_for(
        &self,
        consumer: Option<&Arc<Stream>>,
        versioned: bool,
    ) -> Result<DLPackTensor> {
        self.eval()?;
        let (mut s, mut l) = self.node.leaf().expect("evaluated");
        let mut node = self.node.clone();
        if l.strides.iter().any(|&x| x < 0) {
            // DLPack consumers (PyTorch) refuse negative strides: export a contiguous copy.
            let c = self.contiguous()?;
            (s, l) = c.node.leaf().expect("contiguous() is evaluated");
            node = c.node.clone();
        }
        let size = T::DTYPE.size() as u64;
        let (data, device, streams) = match &*s {
            Storage::Cuda(d) => {
                let array_stream = crate::runtime::stream_for(d.ordinal())?;
                let streams = match consumer {
                    Some(c) if c.raw() != array_stream.raw() => {
                        if c.context().ordinal() != d.ordinal() {
                            return Err(Error::DeviceMismatch(format!(
                                "the consumer stream is on CUDA device {}, the array on {}",
                                c.context().ordinal(),
                                d.ordinal()
                            )));
                        }
                        // Orders writes made on other streams into the array stream, then
                        // makes the consumer wait for the array stream.
                        array_stream.begin_access(&[Access::of_tracker(
                            cuprite_driver::DeviceRead::tracker(d.buffer()?),
                            false,
                        )])?;
                        c.join(&array_stream)?;
                        Some((array_stream, c.clone()))
                    }
                    _ => None,
                };
                (
                    d.ptr() + l.offset as u64 * size,
                    DLDevice {
                        device_type: KDL_CUDA,
                        device_id: d.ordinal() as i32,
                    },
                    streams,
                )
            }
            Storage::Host(h) => (
                h.bytes().as_ptr() as u64 + l.offset as u64 * size,
                DLDevice {
                    device_type: KDL_CPU,
                    device_id: 0,
                },
                None,
            ),
        };
        let shape: Vec<i64> = self.shape().iter().map(|&x| x as i64).collect();
        let strides: Vec<i64> = l.strides.iter().map(|&x| x as i64).collect();
        let tensor = DLTensor {
            data: data as *mut c_void,
            device,
            ndim: shape.len() as i32,
            dtype: dl_dtype(T::DTYPE),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            byte_offset: 0,
        };
        if versioned {
            let e = Box::new(Export {
                managed: DLManagedTensorVersioned {
                    version: DLPackVersion {
                        major: DLPACK_MAJOR_VERSION,
                        minor: DLPACK_MINOR_VERSION,
                    },
                    manager_ctx: std::ptr::null_mut(),
                    deleter: Some(delete_versioned),
                    flags: 0,
                    dl_tensor: tensor,
                },
                shape,
                strides,
                node,
                consumer: streams,
            });
            let p = Box::into_raw(e);
            // SAFETY: `p` is a fresh, valid Box allocation; the Vec buffers do not move while
            // the Export lives (they are never modified).
            unsafe {
                (*p).managed.manager_ctx = p.cast();
                (*p).managed.dl_tensor.shape = (*p).shape.as_mut_ptr();
                (*p).managed.dl_tensor.strides = (*p).strides.as_mut_ptr();
                DLPackTensor::from_raw_versioned(p.cast())
            }
        } else {
            let e = Box::new(Export {
                managed: DLManagedTensor {
                    dl_tensor: tensor,
                    manager_ctx: std::ptr::null_mut(),
                    deleter: Some(delete_legacy),
                },
                shape,
                strides,
                node,
                consumer: streams,
            });
            let p = Box::into_raw(e);
            // SAFETY: as above.
            unsafe {
                (*p).managed.manager_ctx = p.cast();
                (*p).managed.dl_tensor.shape = (*p).shape.as_mut_ptr();
                (*p).managed.dl_tensor.strides = (*p).strides.as_mut_ptr();
                DLPackTensor::from_raw_legacy(p.cast())
            }
        }
    }
}
