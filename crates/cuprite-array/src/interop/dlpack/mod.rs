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
//!
//! [`Array::to_dlpack`]: crate::Array::to_dlpack
//! [`Array::from_dlpack`]: crate::Array::from_dlpack
//! [`Array::to_dlpack_for`]: crate::Array::to_dlpack_for

mod abi;
mod dtype;
mod export;
mod import;
mod keepalive;
mod tensor;

pub use abi::{
    DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION,
    DLPACK_MINOR_VERSION, DLPackVersion, DLTensor, FLAG_IS_COPIED, FLAG_READ_ONLY, KDL_BFLOAT,
    KDL_BOOL, KDL_COMPLEX, KDL_CPU, KDL_CUDA, KDL_FLOAT, KDL_INT, KDL_UINT,
};
pub use dtype::{dl_dtype, dtype_of};
pub use export::consumer_stream_handle;
pub use tensor::DLPackTensor;
