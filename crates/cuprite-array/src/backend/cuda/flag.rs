//! The CUDA side of the index-check flag word: a mapped host word where one is free (cleared
//! by the host, read after a synchronisation without a copy), device memory otherwise.

use super::elementwise::alloc;
use crate::backend::contract::FlagWord;
use crate::dtype::DType;
use crate::error::Result;
use crate::runtime::{state, stream_for, stream_of};
use crate::storage::{DevBuf, Storage};
use std::sync::Arc;

/// A new zeroed flag word on CUDA device `ordinal`.
pub(super) fn flag_word(ordinal: usize) -> Result<FlagWord> {
    if let Some(w) = crate::runtime::flag_word(ordinal)? {
        let host = w.host_ptr().cast_const();
        let stream = stream_for(ordinal)?;
        // SAFETY: the word is 4 bytes of mapped memory of this device's context; the buffer
        // never frees it: the keeper below makes the array buffer leak it after its last use
        // (waiting for pending work) and then hands the word back.
        let buf = unsafe {
            cuprite_driver::DeviceBuffer::<u8>::from_raw_parts(w.device_ptr(), 4, &stream)
        };
        let keeper = crate::storage::Foreign::new(move || drop(w));
        let d = DevBuf::adopt(buf, DType::U32, 1, ordinal, Some(keeper));
        return Ok(FlagWord {
            storage: Arc::new(Storage::Cuda(d)),
            mapped: Some(host),
        });
    }
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let mut d = alloc(st, stream, DType::U32, 1)?;
    if let Some(b) = d.buffer_mut() {
        stream.memset_zeros(b)?;
    }
    Ok(FlagWord {
        storage: Arc::new(Storage::Cuda(d)),
        mapped: None,
    })
}

/// Whether a kernel raised `flag` (a synchronisation of the word's stream).
pub(super) fn flag_raised(flag: &FlagWord) -> Result<bool> {
    crate::runtime::refuse_in_capture("a bounds-checked index or scatter (its error flag)")?;
    let Storage::Cuda(d) = &*flag.storage else {
        return Err(crate::error::Error::DeviceMismatch(
            "the CUDA backend was asked to read a flag in host memory".into(),
        ));
    };
    let stream = stream_for(d.ordinal())?;
    let Some(host) = flag.mapped else {
        let word = stream.clone_dtoh(d.buffer()?)?;
        return Ok(word.iter().any(|&b| b != 0));
    };
    if let Some(b) = d.live() {
        // Orders the stream after the word's writers on other streams, then waits.
        let acc = [cuprite_driver::Access::read(b)];
        stream.begin_access(&acc)?;
        stream.end_access(&acc)?;
    }
    stream.synchronize()?;
    crate::stats::note_mapped_flag_read();
    // SAFETY: the word stays the flag's while its storage lives (`flag` holds it); every kernel
    // that writes it is complete (the synchronisation above), and mapped memory written by a
    // completed kernel is visible to the host.
    Ok(unsafe { host.read_volatile() } != 0)
}
