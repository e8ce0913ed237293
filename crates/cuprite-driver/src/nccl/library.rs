//! The NCCL library's version, and its result codes (with the communicator's last error) as
//! errors.

use crate::error::{Error, Result};
use cuprite_sys::LoadError;
use cuprite_sys::nccl::{self as sys, ncclComm_t, ncclResult_t};
use std::ffi::{CStr, c_int};

/// The NCCL version as `(major, minor, patch)`, e.g. `(2, 27, 3)`. `Err` without NCCL.
///
/// ```
/// match cuprite_driver::nccl::version() {
///     Ok((a, b, c)) => println!("NCCL {a}.{b}.{c}"),
///     Err(e) => println!("no NCCL: {e}"),
/// }
/// ```
pub fn version() -> Result<(u32, u32, u32)> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-pointer.
    let r = unsafe { sys::ncclGetVersion(&mut v) };
    check(r, "ncclGetVersion", None)?;
    let v = v.max(0) as u32;
    Ok(if v >= 10000 {
        (v / 10000, (v % 10000) / 100, v % 100)
    } else {
        (v / 1000, (v % 1000) / 100, v % 100)
    })
}

/// NCCL's description of `code` and, where `comm` is given and NCCL kept one, its last error.
pub(super) fn describe(code: ncclResult_t, comm: Option<ncclComm_t>) -> String {
    let mut s = String::new();
    // SAFETY: ncclGetErrorString returns a static NUL-terminated string (or null).
    if let Ok(p) = unsafe { sys::ncclGetErrorString(code) } {
        if !p.is_null() {
            // SAFETY: non-null pointer to a static C string owned by NCCL.
            s.push_str(&unsafe { CStr::from_ptr(p) }.to_string_lossy());
        }
    }
    // SAFETY: a null communicator asks for the last error of the calling thread; otherwise a
    // live communicator. The string is owned by NCCL and copied at once.
    if let Ok(p) = unsafe { sys::ncclGetLastError(comm.unwrap_or(std::ptr::null_mut())) } {
        if !p.is_null() {
            // SAFETY: non-null C string owned by NCCL, copied before any other NCCL call.
            let last = unsafe { CStr::from_ptr(p) }.to_string_lossy();
            if !last.trim().is_empty() {
                if !s.is_empty() {
                    s.push_str(" — ");
                }
                s.push_str(last.trim());
            }
        }
    }
    if s.is_empty() {
        s.push_str("no description available");
    }
    s
}

pub(super) fn nccl_error(
    code: ncclResult_t,
    call: &'static str,
    comm: Option<ncclComm_t>,
) -> Error {
    Error::Nccl {
        call,
        code: code.0,
        name: code
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("ncclResult_t({})", code.0)),
        detail: describe(code, comm),
    }
}

/// Whether an NCCL call finished or was left running by a nonblocking communicator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    Done,
    InProgress,
}

pub(super) fn check(
    r: std::result::Result<ncclResult_t, LoadError>,
    call: &'static str,
    comm: Option<ncclComm_t>,
) -> Result<Status> {
    match r {
        Ok(r) if r.is_success() => Ok(Status::Done),
        Ok(r) if r == ncclResult_t::ncclInProgress => Ok(Status::InProgress),
        Ok(r) => Err(nccl_error(r, call, comm)),
        Err(e) => Err(e.into()),
    }
}
