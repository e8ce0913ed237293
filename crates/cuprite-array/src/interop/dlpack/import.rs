//! Import: a producer's tensor wrapped without a copy (CUDA or host memory), or one of our own
//! exports taken back.

use super::abi::{
    DLManagedTensor, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION, KDL_CPU, KDL_CUDA,
};
use super::dtype::{device_type_name, dtype_of};
use super::keepalive::Export;
use super::tensor::DLPackTensor;
use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::Layout;
use cuprite_driver::DeviceBuffer;
use std::ffi::c_void;

impl<T: Element> Array<T> {
    /// Imports a DLPack tensor without a copy (CUDA memory of a device the array library
    /// knows). The producer's memory stays the producer's: its deleter runs once the last
    /// array using it is dropped and the array stream is done with it. A tensor this library
    /// exported comes back as the same array. CPU tensors (`kDLCPU`) are copied into an array
    /// of the CPU backend.
    ///
    /// The producer must have ordered its work before the array stream (DLPack's stream
    /// hand-off, see [`consumer_stream_handle`]) or finished it.
    ///
    /// An element type other than `T`, an unsupported DLPack dtype or device, a DLPack major
    /// version other than 1, negative extents, or memory of another device than `device_id`
    /// says are an `Err` naming them (the tensor's deleter then runs).
    ///
    /// [`consumer_stream_handle`]: super::consumer_stream_handle
    pub fn from_dlpack(t: DLPackTensor) -> Result<Self> {
        if let Some(v) = t.version() {
            if v.major != DLPACK_MAJOR_VERSION {
                return Err(Error::InvalidArgument(format!(
                    "unsupported DLPack version {}.{} (this library speaks {}.x)",
                    v.major, v.minor, DLPACK_MAJOR_VERSION
                )));
            }
        }
        let tensor = t.tensor();
        let dtype = dtype_of(tensor.dtype)?;
        if dtype != T::DTYPE {
            return Err(Error::InvalidArgument(format!(
                "a DLPack tensor of {} cannot become an Array<{}>",
                dtype.name(),
                T::DTYPE.name()
            )));
        }
        if tensor.ndim < 0 {
            return Err(Error::InvalidArgument(format!(
                "a DLPack tensor with ndim {}",
                tensor.ndim
            )));
        }
        if tensor.ndim > 0 && tensor.shape.is_null() {
            return Err(Error::InvalidArgument(format!(
                "a DLPack tensor with ndim {} and a null shape pointer",
                tensor.ndim
            )));
        }
        let shape_i = t.shape();
        if shape_i.iter().any(|&x| x < 0) {
            return Err(Error::Shape(format!(
                "a DLPack tensor with negative extents {shape_i:?}"
            )));
        }
        let shape: Vec<usize> = shape_i.iter().map(|&x| x as usize).collect();
        if t.is_ours() {
            return Ok(take_own_export(t, &shape));
        }
        let dev = tensor.device;
        match dev.device_type {
            KDL_CUDA => import_cuda(t, &shape),
            KDL_CPU => import_cpu(t, &shape),
            other => Err(Error::InvalidArgument(format!(
                "unsupported DLPack device: {} ({other}), device {}",
                device_type_name(other),
                dev.device_id
            ))),
        }
    }
}

pub(super) fn take_own_export<T: Element>(t: DLPackTensor, shape: &[usize]) -> Array<T> {
    let versioned = t.is_versioned();
    let p = t.into_raw();
    // SAFETY: `is_ours` checked that the deleter is ours, so `p` is the Box of an `Export<_>`
    // made by `to_dlpack_for`, of the kind `versioned` tells; we take back its ownership.
    let node = unsafe {
        if versioned {
            let e = Box::from_raw(p.cast::<Export<DLManagedTensorVersioned>>());
            let n = e.node.clone();
            e.finish();
            n
        } else {
            let e = Box::from_raw(p.cast::<Export<DLManagedTensor>>());
            let n = e.node.clone();
            e.finish();
            n
        }
    };
    debug_assert_eq!(node.shape, shape);
    Array::from_node(node)
}

/// Element extents `(lo, hi_exclusive)` of a strided tensor, relative to its first element.
pub(super) fn extents(shape: &[usize], strides: &[i64]) -> Result<(i64, i64)> {
    if shape.contains(&0) {
        return Ok((0, 0));
    }
    let overflow = || {
        Error::InvalidArgument(format!(
            "a DLPack tensor of shape {shape:?} and strides {strides:?} spans more than the \
             address space"
        ))
    };
    let (mut lo, mut hi) = (0i64, 0i64);
    for (&n, &s) in shape.iter().zip(strides) {
        let n = i64::try_from(n).map_err(|_| overflow())?;
        let span = s.checked_mul(n - 1).ok_or_else(overflow)?;
        if span < 0 {
            lo = lo.checked_add(span).ok_or_else(overflow)?;
        } else {
            hi = hi.checked_add(span).ok_or_else(overflow)?;
        }
    }
    Ok((lo, hi.checked_add(1).ok_or_else(overflow)?))
}

pub(super) struct SendPtr(*mut c_void, bool);
// SAFETY: an ownership token of a managed tensor; its deleter may run on any thread.
unsafe impl Send for SendPtr {}

pub(super) fn import_cuda<T: Element>(t: DLPackTensor, shape: &[usize]) -> Result<Array<T>> {
    // The element count fits memory (as for a CPU tensor): an overflowing product must not
    // read as an empty tensor and skip the pointer checks below.
    let n = crate::shape::checked_numel(shape)?;
    let tensor = t.tensor();
    let ordinal = tensor.device.device_id;
    let n_dev = cuprite_driver::Device::count().unwrap_or(0);
    if ordinal < 0 || ordinal as usize >= n_dev {
        return Err(Error::DeviceMismatch(format!(
            "a DLPack tensor of CUDA device {ordinal}, and {n_dev} CUDA device(s) are present"
        )));
    }
    let ordinal = ordinal as usize;
    let strides = t.strides().unwrap_or_else(|| {
        crate::shape::contiguous_strides(shape)
            .iter()
            .map(|&s| s as i64)
            .collect()
    });
    let size = T::DTYPE.size() as i64;
    let first = t.data_ptr();
    let (lo, hi) = extents(shape, &strides)?;
    let base = lo
        .checked_mul(size)
        .and_then(|off| (first as i64).checked_add(off))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "a DLPack tensor at {first:#x} whose strides {strides:?} reach below address 0"
            ))
        })? as u64;
    if n > 0 {
        if first == 0 {
            return Err(Error::InvalidArgument(
                "a DLPack tensor with null data".into(),
            ));
        }
        if first % std::mem::align_of::<T>() as u64 != 0 {
            return Err(Error::InvalidArgument(format!(
                "DLPack data {first:#x} is not aligned for {}",
                T::DTYPE.name()
            )));
        }
        let info = cuprite_driver::pointer::pointer_info(first)?;
        let dev = info.device_ordinal;
        if dev != ordinal {
            return Err(Error::DeviceMismatch(format!(
                "the DLPack tensor says CUDA device {ordinal}, its memory is on device {dev}"
            )));
        }
        // Every element the strides reach lies in the allocation the data pointer is in.
        let bytes = ((hi - lo) as u64).checked_mul(size as u64);
        if !bytes.is_some_and(|b| info.contains(base, b as usize)) {
            return Err(Error::InvalidArgument(format!(
                "the DLPack tensor's shape {shape:?} and strides {strides:?} reach bytes \
                 {base:#x}..+{bytes:?}, outside its allocation {:#x}..+{}",
                info.base, info.size
            )));
        }
    }
    let len = (hi - lo) as usize;
    let layout = Layout {
        offset: (-lo) as usize,
        strides: strides.iter().map(|&s| s as isize).collect(),
    };
    let stream = crate::runtime::stream_for(ordinal)?;
    // SAFETY: `base` covers every element of the tensor (`len` elements of `T`, from the
    // extents); the buffer is never freed by cuprite: the foreign keeper below makes the
    // array buffer leak it and hand it back through the producer's deleter.
    let buf = unsafe { DeviceBuffer::<u8>::from_raw_parts(base, len * size as usize, &stream) };
    let versioned = t.is_versioned();
    let token = SendPtr(t.into_raw(), versioned);
    let keeper = crate::storage::Foreign::new(move || {
        let token = token;
        // SAFETY: the token is the managed tensor we own; rebuilding and dropping it calls its
        // deleter exactly once.
        let t = unsafe {
            if token.1 {
                DLPackTensor::from_raw_versioned(token.0.cast())
            } else {
                DLPackTensor::from_raw_legacy(token.0.cast())
            }
        };
        drop(t);
    });
    Ok(Array::adopt_buffer_with(
        buf,
        len,
        layout,
        shape,
        ordinal,
        Some(keeper),
    ))
}

pub(super) fn import_cpu<T: Element>(t: DLPackTensor, shape: &[usize]) -> Result<Array<T>> {
    let strides = t.strides();
    let size = T::DTYPE.size();
    let n = crate::shape::checked_numel(shape)?;
    let total = n.checked_mul(size).ok_or_else(|| {
        Error::Shape(format!(
            "a DLPack tensor of shape {shape:?} has more bytes than fit in memory"
        ))
    })?;
    let first = t.data_ptr() as *const u8;
    let mut bytes = vec![0u8; total];
    if n > 0 {
        if first.is_null() {
            return Err(Error::InvalidArgument(
                "a DLPack tensor with null data".into(),
            ));
        }
        let cs = crate::shape::contiguous_strides(shape);
        let st: Vec<i64> = strides.unwrap_or_else(|| cs.iter().map(|&s| s as i64).collect());
        // Every element offset (in bytes, too) fits: the loop below cannot overflow.
        let (lo, hi) = extents(shape, &st)?;
        if lo.checked_mul(size as i64).is_none() || hi.checked_mul(size as i64).is_none() {
            return Err(Error::InvalidArgument(format!(
                "a DLPack tensor of shape {shape:?} and strides {st:?} spans more than the \
                 address space"
            )));
        }
        for (i, out) in bytes.chunks_exact_mut(size).enumerate() {
            let mut off = 0i64;
            let mut rem = i;
            for ax in 0..shape.len() {
                let idx = rem / cs[ax] as usize;
                rem %= cs[ax] as usize;
                off += idx as i64 * st[ax];
            }
            // SAFETY: a valid CPU DLTensor holds every element at `first + off * size`.
            let src = unsafe { first.offset(off as isize * size as isize) };
            // SAFETY: `size` readable bytes at `src` (as above) into `out` of `size` bytes.
            unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), size) };
        }
    }
    drop(t);
    let s = crate::backend::of(Device::CPU).upload(Device::CPU, T::DTYPE, n, &bytes)?;
    Ok(Array::from_storage(
        s,
        Layout::contiguous(shape),
        shape,
        Device::CPU,
    ))
}
