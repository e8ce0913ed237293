//! Zeroed 32-bit counters for kernels that count their blocks as they finish (one-launch
//! reductions, the dots of the sparse products, grid barriers).
//!
//! Invariants: a counter is zero when a launch that uses it starts, and the launch leaves it
//! zero (the block that finds itself last sets it back), so the next launch in stream order
//! needs no memset. The device's shared counters ([`ROW_COUNTER_BYTES`] of them, zeroed when
//! the device's state was made) serve only its array stream while nothing captures: a graph
//! may replay beside later eager work, and a stream that waited for a write made inside a
//! capture in progress would join that capture. Every other launch counts on counters of its
//! own: a part of a compiled program's arena (zero before every launch of its graph), else a
//! fresh buffer zeroed on the launch's stream first.

use super::elementwise::alloc;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::runtime::{DeviceState, ROW_COUNTER_BYTES};
use crate::storage::DevBuf;
use cuprite_driver::Stream;
use std::sync::Arc;

/// The device's shared counters (32-bit words).
pub(crate) const SHARED_WORDS: usize = ROW_COUNTER_BYTES / 4;

/// Each device's shared counters: zeroed when the device's state was made, and left zero by
/// every launch that uses them.
static SHARED: [std::sync::OnceLock<Option<DevBuf>>; crate::memory::MAX_DEVICES] =
    [const { std::sync::OnceLock::new() }; crate::memory::MAX_DEVICES];

/// The shared counters of device `st`: the buffer its state made, taken on first use.
fn shared(st: &DeviceState) -> Result<&'static DevBuf> {
    let slot = SHARED.get(st.ordinal).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "CUDA device {} is beyond the {} devices the array library serves",
            st.ordinal,
            crate::memory::MAX_DEVICES
        ))
    })?;
    slot.get_or_init(|| {
        let buf = st
            .row_counters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        let c = DevBuf::adopt(buf, DType::U32, SHARED_WORDS, st.ordinal, None);
        // The runtime's, kept for the process, not an array's: not counted as array memory.
        crate::memory::on_free(Device::cuda(st.ordinal), ROW_COUNTER_BYTES);
        Some(c)
    })
    .as_ref()
    .ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the shared counters of CUDA device {} are gone",
            st.ordinal
        ))
    })
}

/// Whether the device's shared counters may serve a launch on `stream`: its array stream, not
/// captured.
fn shared_serve(st: &DeviceState, stream: &Arc<Stream>) -> bool {
    Arc::ptr_eq(stream, &st.stream)
        && !crate::runtime::capturing()
        && matches!(
            st.stream.capture_status(),
            Ok(cuprite_driver::CaptureStatus::None)
        )
}

/// Counters that are zero in stream order on the stream they were asked for.
pub(crate) enum Counters {
    /// The device's shared counters.
    Shared(&'static DevBuf),
    /// Counters of this launch's own.
    Own(DevBuf),
}

impl Counters {
    /// The buffer of 32-bit counters.
    pub(crate) fn buf(&self) -> &DevBuf {
        match self {
            Counters::Shared(b) => b,
            Counters::Own(b) => b,
        }
    }
}

/// `words` counters (at most [`SHARED_WORDS`]) that are zero for the next launch on `stream`,
/// which must leave them zero (see the module docs).
pub(crate) fn zeroed_counters(
    st: &DeviceState,
    stream: &Arc<Stream>,
    words: usize,
) -> Result<Counters> {
    if words == 0 || words > SHARED_WORDS {
        return Err(Error::InvalidArgument(format!(
            "{words} zeroed counters asked for, not between 1 and {SHARED_WORDS}"
        )));
    }
    if shared_serve(st, stream) {
        return Ok(Counters::Shared(shared(st)?));
    }
    let own = match crate::runtime::zeroed_arena_part(stream, words * 4) {
        Some(part) => DevBuf::adopt(part, DType::U32, words, st.ordinal, None),
        None => {
            let mut c = alloc(st, stream, DType::U32, words)?;
            if let Some(b) = c.buffer_mut() {
                stream.memset_zeros(b)?;
            }
            c
        }
    };
    Ok(Counters::Own(own))
}
