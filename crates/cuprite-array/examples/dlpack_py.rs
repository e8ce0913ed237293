//! A C library (built as a cdylib: `cargo build --release -p cuprite-array --example dlpack_py`)
//! through which Python hands DLPack tensors to and from cuprite-array with ctypes; driven by
//! `examples/dlpack_torch.py`, which checks the exchange with PyTorch: values round-trip and
//! the data pointer is the same both ways.
//!
//! Every function returns 0 on success and a negative code on error, with the message written
//! into the caller's buffer.

use cuprite_array::Array;
use cuprite_array::interop::dlpack::{DLManagedTensor, DLManagedTensorVersioned, DLPackTensor};
use cuprite_driver::Stream;
use std::ffi::{c_char, c_void};

fn write_msg(buf: *mut c_char, cap: usize, msg: &str) {
    if buf.is_null() || cap == 0 {
        return;
    }
    let n = msg.len().min(cap - 1);
    // SAFETY: the caller gives `cap` writable bytes at `buf`.
    unsafe {
        std::ptr::copy_nonoverlapping(msg.as_ptr(), buf.cast::<u8>(), n);
        *buf.add(n) = 0;
    }
}

fn guard(msg: *mut c_char, cap: usize, f: impl FnOnce() -> Result<i32, String>) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            write_msg(msg, cap, &e);
            -2
        }
        Err(_) => {
            write_msg(msg, cap, "panic");
            -3
        }
    }
}

/// Makes `n` uniform values in [-1, 1) from `seed` on GPU 0 (lazy work: `2u - 1`), writes them
/// to `values`, exports them (versioned or legacy) for a consumer on `consumer_stream` (a raw
/// CUstream; 0 for none, 1 the legacy default stream) into `*out`, the data pointer into
/// `*data_ptr`. The arrays are dropped before returning: the export outlives its producer.
///
/// # Safety
///
/// `values` has room for `n` floats; `out`, `data_ptr` are valid out-pointers; `msg` has `cap`
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuprite_dl_export(
    n: usize,
    seed: u64,
    versioned: i32,
    consumer_stream: usize,
    values: *mut f32,
    out: *mut *mut c_void,
    data_ptr: *mut u64,
    msg: *mut c_char,
    cap: usize,
) -> i32 {
    guard(msg, cap, || {
        let u = Array::<f32>::rand_uniform(&[n], seed).map_err(|e| e.to_string())?;
        let x = &u * 2.0 - 1.0;
        let host = x.to_vec().map_err(|e| e.to_string())?;
        // SAFETY: the caller's contract: room for n floats.
        unsafe { std::ptr::copy_nonoverlapping(host.as_ptr(), values, n) };
        let consumer = if consumer_stream == 0 {
            None
        } else {
            let ctx = cuprite_array::get_stream(0).map_err(|e| e.to_string())?;
            // SAFETY: a stream of the primary context of device 0 (PyTorch's), alive while the
            // tensor is used, as DLPack's `stream=` contract says.
            Some(unsafe { Stream::from_raw(ctx.context(), consumer_stream as _) })
        };
        let t = x
            .to_dlpack_for(consumer.as_ref(), versioned != 0)
            .map_err(|e| e.to_string())?;
        // SAFETY: valid out-pointers (caller's contract).
        unsafe {
            *data_ptr = t.data_ptr();
            *out = t.into_raw();
        }
        Ok(0)
    })
}

/// Deletes a managed tensor the consumer never took (a capsule dropped unused).
///
/// # Safety
///
/// `p` is a managed tensor of the given kind, owned by the caller.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuprite_dl_delete(p: *mut c_void, versioned: i32) {
    // SAFETY: the caller's contract; dropping runs the deleter once.
    let t = unsafe {
        if versioned != 0 {
            DLPackTensor::from_raw_versioned(p.cast::<DLManagedTensorVersioned>())
        } else {
            DLPackTensor::from_raw_legacy(p.cast::<DLManagedTensor>())
        }
    };
    drop(t);
}

/// The raw handle of the array stream of GPU 0: the `stream=` to pass to `__dlpack__`.
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_dl_stream() -> usize {
    cuprite_array::interop::consumer_stream_handle(0).unwrap_or(0)
}

/// Imports a managed f32 tensor (taking ownership), checks its `n` values against `expected`
/// (exactly), writes the address of the memory the array reads to `*data_ptr` and the sum of its
/// elements computed on the GPU to `*sum`. Returns 1 when a value differs.
///
/// # Safety
///
/// `p` is a managed tensor of the given kind whose ownership passes here; `expected` holds
/// `n` floats in row-major order of the tensor's shape; out-pointers are valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuprite_dl_import(
    p: *mut c_void,
    versioned: i32,
    expected: *const f32,
    n: usize,
    data_ptr: *mut u64,
    sum: *mut f64,
    msg: *mut c_char,
    cap: usize,
) -> i32 {
    guard(msg, cap, || {
        // SAFETY: the caller's contract.
        let t = unsafe {
            if versioned != 0 {
                DLPackTensor::from_raw_versioned(p.cast())
            } else {
                DLPackTensor::from_raw_legacy(p.cast())
            }
        }
        .map_err(|e| e.to_string())?;
        let a = Array::<f32>::from_dlpack(t).map_err(|e| e.to_string())?;
        // The memory the array reads (a strided import is first made contiguous, a copy).
        let first = a
            .device_view()
            .map(|v| v.device_ptr())
            .map_err(|e| e.to_string())?;
        let got = a.to_vec().map_err(|e| e.to_string())?;
        // SAFETY: `expected` holds n floats.
        let want = unsafe { std::slice::from_raw_parts(expected, n) };
        if got.len() != n {
            return Err(format!("{} values, expected {n}", got.len()));
        }
        let s = a
            .cast::<f64>()
            .sum()
            .and_then(|s| s.item())
            .map_err(|e| e.to_string())?;
        // SAFETY: valid out-pointers.
        unsafe {
            *data_ptr = first;
            *sum = s;
        }
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            write_msg(msg, cap, &format!("element {i}: {} vs {}", got[i], want[i]));
            return Ok(1);
        }
        Ok(0)
    })
}
