//! DLPack: zero-copy exchange of arrays with PyTorch, CuPy, JAX and any other DLPack consumer
//! or producer, in both the versioned (`DLManagedTensorVersioned`, DLPack 1.x) and the legacy
//! (`DLManagedTensor`) form.
//!
//! The struct layouts below are those of `dlpack.h` (DLPack 1.0). Export
//! ([`Array::to_dlpack`]) hands out the array's own memory; the exported tensor keeps the
//! array's buffer alive until its deleter runs, which is safe at any time, also after every
//! array of the producer is gone. Import ([`Array::from_dlpack`]) wraps the producer's memory
//! without a copy; the producer's deleter runs after the last array using it is dropped and the
//! array library's work on it is done. The library never frees imported memory itself.
//!
//! **Streams** (the DLPack stream hand-off): export with a consumer stream
//! ([`Array::to_dlpack_for`]) makes that stream wait, on the device, for the array work that
//! produced the data: one event, no host synchronisation. Import assumes the producer has done
//! the same for the array stream (pass [`consumer_stream_handle`] as `stream=` to a Python
//! producer's `__dlpack__`).
//!
//! ```
//! use cuprite_array::Array;
//! let a = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
//! let t = a.to_dlpack()?;                  // no copy
//! assert_eq!(t.tensor().ndim, 1);
//! let b = Array::<f32>::from_dlpack(t)?;    // the same memory again
//! assert_eq!(b.to_vec()?, vec![1.0, 2.0, 3.0]);
//! # Ok::<(), cuprite_array::Error>(())
//! ```

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::shape::{Layout, numel};
use crate::storage::Storage;
use cuprite::{Access, DeviceBuffer, Stream};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

/// The DLPack major version this module speaks.
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// The DLPack minor version this module writes.
pub const DLPACK_MINOR_VERSION: u32 = 0;
/// `kDLCPU`.
pub const KDL_CPU: i32 = 1;
/// `kDLCUDA`.
pub const KDL_CUDA: i32 = 2;
/// `kDLInt`.
pub const KDL_INT: u8 = 0;
/// `kDLUInt`.
pub const KDL_UINT: u8 = 1;
/// `kDLFloat`.
pub const KDL_FLOAT: u8 = 2;
/// `kDLBfloat`.
pub const KDL_BFLOAT: u8 = 4;
/// `kDLComplex`.
pub const KDL_COMPLEX: u8 = 5;
/// `kDLBool`.
pub const KDL_BOOL: u8 = 6;
/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write the memory.
pub const FLAG_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy the consumer owns alone.
pub const FLAG_IS_COPIED: u64 = 1 << 1;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version (ABI).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType` (`kDLCPU` = 1, `kDLCUDA` = 2, ...).
    pub device_type: i32,
    /// The device ordinal.
    pub device_id: i32,
}

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode`.
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Vector lanes (1 for scalars).
    pub lanes: u16,
}

/// `DLTensor`: a borrowed view of N-d memory.
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// The data (with `byte_offset` added, the first element).
    pub data: *mut c_void,
    /// Where the data lives.
    pub device: DLDevice,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for row-major contiguous.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensor` (legacy, unversioned).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer when done; frees this struct too.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned` (DLPack 1.x).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The DLPack version of this struct.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer when done; frees this struct too.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `FLAG_*` bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

enum Raw {
    Versioned(NonNull<DLManagedTensorVersioned>),
    Legacy(NonNull<DLManagedTensor>),
}

/// An owned DLPack managed tensor (versioned or legacy): its deleter runs when this is
/// dropped, unless ownership passed on with [`into_raw`](Self::into_raw) or to an array with
/// [`Array::from_dlpack`].
pub struct DLPackTensor {
    raw: Raw,
}

// SAFETY: a managed tensor is an ownership token whose deleter DLPack allows any thread to call.
unsafe impl Send for DLPackTensor {}

impl std::fmt::Debug for DLPackTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DLPackTensor")
            .field("versioned", &self.is_versioned())
            .field("tensor", self.tensor())
            .finish()
    }
}

impl DLPackTensor {
    /// Takes ownership of a versioned managed tensor (e.g. from a `dltensor_versioned`
    /// capsule). Null is an `Err`.
    ///
    /// # Safety
    ///
    /// `p` must be a valid `DLManagedTensorVersioned` whose ownership passes to the result (its
    /// deleter is called once, by it or by an array made of it).
    pub unsafe fn from_raw_versioned(p: *mut DLManagedTensorVersioned) -> Result<Self> {
        let p = NonNull::new(p)
            .ok_or_else(|| Error::InvalidArgument("a null DLManagedTensorVersioned".into()))?;
        Ok(DLPackTensor {
            raw: Raw::Versioned(p),
        })
    }

    /// Takes ownership of a legacy managed tensor (e.g. from a `dltensor` capsule). Null is
    /// an `Err`.
    ///
    /// # Safety
    ///
    /// As [`from_raw_versioned`](Self::from_raw_versioned), for a `DLManagedTensor`.
    pub unsafe fn from_raw_legacy(p: *mut DLManagedTensor) -> Result<Self> {
        let p = NonNull::new(p)
            .ok_or_else(|| Error::InvalidArgument("a null DLManagedTensor".into()))?;
        Ok(DLPackTensor {
            raw: Raw::Legacy(p),
        })
    }

    /// Gives up ownership: the pointer (to a `DLManagedTensorVersioned` when
    /// [`is_versioned`](Self::is_versioned), else to a `DLManagedTensor`), for a consumer that
    /// will call its deleter.
    pub fn into_raw(self) -> *mut c_void {
        let me = std::mem::ManuallyDrop::new(self);
        match me.raw {
            Raw::Versioned(p) => p.as_ptr().cast(),
            Raw::Legacy(p) => p.as_ptr().cast(),
        }
    }

    /// Whether this is a `DLManagedTensorVersioned`.
    pub fn is_versioned(&self) -> bool {
        matches!(self.raw, Raw::Versioned(_))
    }

    /// The tensor description.
    pub fn tensor(&self) -> &DLTensor {
        // SAFETY: the managed tensor is valid while owned (constructor contract).
        unsafe {
            match self.raw {
                Raw::Versioned(p) => &(*p.as_ptr()).dl_tensor,
                Raw::Legacy(p) => &(*p.as_ptr()).dl_tensor,
            }
        }
    }

    /// The version (`None` for a legacy tensor).
    pub fn version(&self) -> Option<DLPackVersion> {
        match self.raw {
            // SAFETY: valid while owned.
            Raw::Versioned(p) => Some(unsafe { (*p.as_ptr()).version }),
            Raw::Legacy(_) => None,
        }
    }

    /// The flags (0 for a legacy tensor).
    pub fn flags(&self) -> u64 {
        match self.raw {
            // SAFETY: valid while owned.
            Raw::Versioned(p) => unsafe { (*p.as_ptr()).flags },
            Raw::Legacy(_) => 0,
        }
    }

    /// The extents.
    pub fn shape(&self) -> Vec<i64> {
        let t = self.tensor();
        if t.ndim <= 0 || t.shape.is_null() {
            return Vec::new();
        }
        // SAFETY: a valid DLTensor has `ndim` extents at `shape`.
        unsafe { std::slice::from_raw_parts(t.shape, t.ndim as usize) }.to_vec()
    }

    /// The strides in elements (`None` when row-major contiguous).
    pub fn strides(&self) -> Option<Vec<i64>> {
        let t = self.tensor();
        if t.ndim <= 0 || t.strides.is_null() {
            return None;
        }
        // SAFETY: a valid DLTensor has `ndim` strides at a non-null `strides`.
        Some(unsafe { std::slice::from_raw_parts(t.strides, t.ndim as usize) }.to_vec())
    }

    /// The address of the first element (`data + byte_offset`).
    pub fn data_ptr(&self) -> u64 {
        let t = self.tensor();
        t.data as u64 + t.byte_offset
    }

    fn is_ours(&self) -> bool {
        match self.raw {
            // SAFETY: valid while owned.
            Raw::Versioned(p) => unsafe { (*p.as_ptr()).deleter }
                .is_some_and(|d| d as usize == delete_versioned as *const () as usize),
            // SAFETY: valid while owned.
            Raw::Legacy(p) => unsafe { (*p.as_ptr()).deleter }
                .is_some_and(|d| d as usize == delete_legacy as *const () as usize),
        }
    }
}

impl Drop for DLPackTensor {
    fn drop(&mut self) {
        // SAFETY: we own the managed tensor; its deleter (when any) is called exactly once.
        unsafe {
            match self.raw {
                Raw::Versioned(p) => {
                    if let Some(d) = (*p.as_ptr()).deleter {
                        d(p.as_ptr())
                    }
                }
                Raw::Legacy(p) => {
                    if let Some(d) = (*p.as_ptr()).deleter {
                        d(p.as_ptr())
                    }
                }
            }
        }
    }
}

/// The DLPack type of an element type.
pub fn dl_dtype(d: DType) -> DLDataType {
    let (code, bits) = match d {
        DType::Bool => (KDL_BOOL, 8),
        DType::U8 => (KDL_UINT, 8),
        DType::U16 => (KDL_UINT, 16),
        DType::U32 => (KDL_UINT, 32),
        DType::U64 => (KDL_UINT, 64),
        DType::I8 => (KDL_INT, 8),
        DType::I16 => (KDL_INT, 16),
        DType::I32 => (KDL_INT, 32),
        DType::I64 => (KDL_INT, 64),
        DType::F16 => (KDL_FLOAT, 16),
        DType::BF16 => (KDL_BFLOAT, 16),
        DType::F32 => (KDL_FLOAT, 32),
        DType::F64 => (KDL_FLOAT, 64),
        DType::C32 => (KDL_COMPLEX, 64),
        DType::C64 => (KDL_COMPLEX, 128),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

/// The element type of a DLPack type; an unsupported one is an `Err` naming it.
pub fn dtype_of(t: DLDataType) -> Result<DType> {
    let unsupported = || {
        let code = match t.code {
            KDL_INT => "kDLInt",
            KDL_UINT => "kDLUInt",
            KDL_FLOAT => "kDLFloat",
            3 => "kDLOpaqueHandle",
            KDL_BFLOAT => "kDLBfloat",
            KDL_COMPLEX => "kDLComplex",
            KDL_BOOL => "kDLBool",
            _ => "an unknown or float8/float6/float4 code",
        };
        Error::InvalidArgument(format!(
            "unsupported DLPack dtype: code {} ({code}), {} bits, {} lane(s)",
            t.code, t.bits, t.lanes
        ))
    };
    if t.lanes != 1 {
        return Err(unsupported());
    }
    Ok(match (t.code, t.bits) {
        (KDL_BOOL, 8) => DType::Bool,
        (KDL_UINT, 8) => DType::U8,
        (KDL_UINT, 16) => DType::U16,
        (KDL_UINT, 32) => DType::U32,
        (KDL_UINT, 64) => DType::U64,
        (KDL_INT, 8) => DType::I8,
        (KDL_INT, 16) => DType::I16,
        (KDL_INT, 32) => DType::I32,
        (KDL_INT, 64) => DType::I64,
        (KDL_FLOAT, 16) => DType::F16,
        (KDL_BFLOAT, 16) => DType::BF16,
        (KDL_FLOAT, 32) => DType::F32,
        (KDL_FLOAT, 64) => DType::F64,
        (KDL_COMPLEX, 64) => DType::C32,
        (KDL_COMPLEX, 128) => DType::C64,
        _ => return Err(unsupported()),
    })
}

fn device_type_name(t: i32) -> &'static str {
    match t {
        1 => "kDLCPU",
        2 => "kDLCUDA",
        3 => "kDLCUDAHost",
        4 => "kDLOpenCL",
        7 => "kDLVulkan",
        8 => "kDLMetal",
        9 => "kDLVPI",
        10 => "kDLROCM",
        11 => "kDLROCMHost",
        12 => "kDLExtDev",
        13 => "kDLCUDAManaged",
        14 => "kDLOneAPI",
        15 => "kDLWebGPU",
        16 => "kDLHexagon",
        17 => "kDLMAIA",
        _ => "an unknown device type",
    }
}

/// What an exported tensor keeps alive. The managed struct comes first, so a pointer to it is
/// a pointer to the whole.
#[repr(C)]
struct Export<M> {
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    node: Arc<Node>,
    /// The consumer's stream, which the array stream waits for before the memory can be freed.
    consumer: Option<(Arc<Stream>, Arc<Stream>)>,
}

impl<M> Export<M> {
    fn finish(self) {
        if let Some((array_stream, consumer)) = &self.consumer {
            // The array stream (where the memory is freed or reused) waits for the consumer's
            // work so far. Errors cannot be returned from a deleter; the wait is best effort.
            let _ = array_stream.join(consumer);
        }
        drop(self);
    }
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if m.is_null() {
        return;
    }
    // SAFETY: `m` came from `Box::into_raw` of an `Export<DLManagedTensorVersioned>` (first
    // field, repr(C)) in `export`, and DLPack calls the deleter once.
    let e = unsafe { Box::from_raw(m.cast::<Export<DLManagedTensorVersioned>>()) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || e.finish()));
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if m.is_null() {
        return;
    }
    // SAFETY: as in `delete_versioned`, for `Export<DLManagedTensor>`.
    let e = unsafe { Box::from_raw(m.cast::<Export<DLManagedTensor>>()) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || e.finish()));
}

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
                            cuprite::DeviceRead::tracker(d.buffer()),
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

fn take_own_export<T: Element>(t: DLPackTensor, shape: &[usize]) -> Array<T> {
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
fn extents(shape: &[usize], strides: &[i64]) -> Result<(i64, i64)> {
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

struct SendPtr(*mut c_void, bool);
// SAFETY: an ownership token of a managed tensor; its deleter may run on any thread.
unsafe impl Send for SendPtr {}

fn import_cuda<T: Element>(t: DLPackTensor, shape: &[usize]) -> Result<Array<T>> {
    let tensor = t.tensor();
    let ordinal = tensor.device.device_id;
    let n_dev = cuprite::Device::count().unwrap_or(0);
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
    let n = numel(shape);
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
        let info = cuprite::pointer::pointer_info(first)?;
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

fn import_cpu<T: Element>(t: DLPackTensor, shape: &[usize]) -> Result<Array<T>> {
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
