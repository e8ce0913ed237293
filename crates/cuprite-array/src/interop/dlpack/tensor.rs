//! [`DLPackTensor`]: an owned DLPack tensor of either form, whose deleter runs on drop.

use super::abi::{DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor};
use super::keepalive::{delete_legacy, delete_versioned};
use crate::error::{Error, Result};
use std::ffi::c_void;
use std::ptr::NonNull;

pub(super) enum Raw {
    Versioned(NonNull<DLManagedTensorVersioned>),
    Legacy(NonNull<DLManagedTensor>),
}

/// An owned DLPack managed tensor (versioned or legacy): its deleter runs when this is
/// dropped, unless ownership passed on with [`into_raw`](Self::into_raw) or to an array with
/// [`Array::from_dlpack`].
///
/// [`Array::from_dlpack`]: crate::Array::from_dlpack
pub struct DLPackTensor {
    pub(super) raw: Raw,
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

    pub(super) fn is_ours(&self) -> bool {
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
