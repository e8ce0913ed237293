//! Programmatic dependent launches of the kernels a compiled program's capture records: a
//! kernel whose source begins with the grid wait ([`Kernel::grid_wait`]) is launched with
//! programmatic stream serialization while the thread captures, so that the graph holds a
//! programmatic edge from the kernel before it and the next kernel's blocks are scheduled
//! while the previous grid finishes (its wait still holds every access to global memory until
//! that grid has completed and its writes are visible).
//!
//! Invariants: the attribute goes only on kernels built from a source stated to begin with
//! the wait, only on devices of compute capability 9.0 and later, only while the calling thread
//! captures a compiled program into a stream whose next node would depend on kernel nodes
//! only, and only while the switch is on; every other launch is the plain `cuLaunchKernel` it
//! was.

use super::Kernel;
use crate::error::Result;
use crate::runtime::DeviceState;
use crate::util::EnvSwitch;
use cuprite_driver::{Access, Stream};

static GRAPH_PDL: EnvSwitch = EnvSwitch::new("CUPRITE_ARRAY_GRAPH_PDL", true);

/// The lowest compute capability (major · 10 + minor) that has programmatic dependent launch.
const PDL_ARCH: u32 = 90;

/// Lets the captures of compiled programs (`compile`) record the kernels they launch as
/// programmatic dependents of the kernel before them (compute capability 9.0 and later), so
/// that a replay schedules each kernel while the previous one finishes. On by default;
/// `CUPRITE_ARRAY_GRAPH_PDL=0` starts with it off. Applies to captures made after the call
/// (graphs already captured keep how they were recorded). Eager launches never change.
///
/// ```
/// use cuprite_array::tuning::{graph_pdl, set_graph_pdl};
/// let before = graph_pdl();
/// set_graph_pdl(true);
/// assert!(graph_pdl());
/// set_graph_pdl(before);
/// ```
pub fn set_graph_pdl(on: bool) {
    GRAPH_PDL.set(on);
}

/// Whether captures record programmatic dependent launches (see [`set_graph_pdl`]).
pub fn graph_pdl() -> bool {
    GRAPH_PDL.get()
}

/// Whether a launch of `k` on device `st` by the calling thread asks for the programmatic
/// attribute: the switch is on, `k` begins with the grid wait, the device has programmatic
/// launches, and the thread captures a compiled program (the driver then sets it only where
/// the launch would depend on kernel nodes of the capture only).
#[inline]
fn programmatic(st: &DeviceState, k: &Kernel) -> bool {
    GRAPH_PDL.get() && k.grid_wait && st.arch >= PDL_ARCH && crate::runtime::capturing()
}

/// Launches `k` as [`Stream::launch_packed`] does, as a programmatic dependent where
/// [`programmatic`] says so.
///
/// # Safety
/// That of [`Stream::launch_packed`].
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn launch_packed(
    st: &DeviceState,
    stream: &Stream,
    k: &Kernel,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared_bytes: u32,
    words: &[u64],
    accesses: &[Access<'_>],
) -> Result<()> {
    if programmatic(st, k) {
        // SAFETY: the caller's contract is `launch_packed`'s; `k` was built from a source whose
        // entry point begins with the grid wait (`Kernel::grid_wait`), executed by every
        // thread before any access to global memory, on a device of compute capability 9.0
        // or later (checked by `programmatic`).
        let set = unsafe {
            stream.launch_packed_programmatic(&k.func, grid, block, shared_bytes, words, accesses)
        }?;
        if set {
            crate::stats::note_programmatic_launch();
        }
    } else {
        // SAFETY: the caller's contract.
        unsafe { stream.launch_packed(&k.func, grid, block, shared_bytes, words, accesses) }?;
    }
    Ok(())
}
