//! Test-only fault injection: makes the Nth device allocation, NVRTC compile, module load or
//! kernel launch of the calling thread fail, to show that each failure surfaces as an `Err`,
//! leaks nothing and leaves the library usable.
//!
//! Everything here is a no-op unless cuprite is built with the `fault-injection` feature (its
//! own tests turn it on; nothing else should): [`fail_nth`] then arms a countdown, and the
//! library's check at each fault point compiles to nothing without the feature. Faults are per
//! thread, so tests running in parallel do not see each other's.
//!
//! ```
//! use cuprite_driver::fault::{FaultPoint, fail_nth, armed};
//! fail_nth(FaultPoint::DeviceAlloc, 2); // the second allocation of this thread fails
//! assert_eq!(armed(FaultPoint::DeviceAlloc), cfg!(feature = "fault-injection"));
//! cuprite_driver::fault::clear();
//! ```

#[cfg(feature = "fault-injection")]
use crate::error::Error;
use crate::error::Result;

/// Where a fault can be injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultPoint {
    /// A device allocation (`Stream::alloc` and everything that allocates through it).
    DeviceAlloc,
    /// An NVRTC compile (`nvrtc::compile`), after the program was created.
    NvrtcCompile,
    /// A module load (`Module::load`).
    ModuleLoad,
    /// A kernel launch, after its buffers' accesses were declared to the stream tracker.
    KernelLaunch,
}

#[cfg(feature = "fault-injection")]
const POINTS: usize = 4;

impl FaultPoint {
    #[cfg(feature = "fault-injection")]
    fn index(self) -> usize {
        self as usize
    }
}

#[cfg(feature = "fault-injection")]
thread_local! {
    /// Per point: 0 disarmed, else how many calls until (and including) the one that fails.
    static COUNTDOWN: std::cell::Cell<[u64; POINTS]> = const { std::cell::Cell::new([0; POINTS]) };
}

/// Makes the `n`th call (1: the next) at `point` on this thread fail. `n == 0` disarms it.
/// Without the `fault-injection` feature: nothing.
pub fn fail_nth(point: FaultPoint, n: u64) {
    #[cfg(feature = "fault-injection")]
    COUNTDOWN.with(|c| {
        let mut v = c.get();
        v[point.index()] = n;
        c.set(v);
    });
    #[cfg(not(feature = "fault-injection"))]
    let _ = (point, n);
}

/// Whether a fault is armed at `point` on this thread (always `false` without the feature).
pub fn armed(point: FaultPoint) -> bool {
    #[cfg(feature = "fault-injection")]
    return COUNTDOWN.with(|c| c.get()[point.index()] != 0);
    #[cfg(not(feature = "fault-injection"))]
    {
        let _ = point;
        false
    }
}

/// Disarms every fault of this thread.
pub fn clear() {
    #[cfg(feature = "fault-injection")]
    COUNTDOWN.with(|c| c.set([0; POINTS]));
}

/// The library's check at `point`: `Err` (an error of the kind the real call gives, named as
/// injected) when this call is the armed one.
#[inline(always)]
pub(crate) fn check(point: FaultPoint) -> Result<()> {
    #[cfg(feature = "fault-injection")]
    {
        let fire = COUNTDOWN.with(|c| {
            let mut v = c.get();
            let n = &mut v[point.index()];
            let fire = *n == 1;
            *n = n.saturating_sub(1);
            c.set(v);
            fire
        });
        if fire {
            return Err(injected(point));
        }
    }
    #[cfg(not(feature = "fault-injection"))]
    let _ = point;
    Ok(())
}

#[cfg(feature = "fault-injection")]
fn injected(point: FaultPoint) -> Error {
    use cuprite_sys::driver::CUresult;
    match point {
        FaultPoint::DeviceAlloc => Error::driver(
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            "cuMemAllocAsync (injected fault)",
        ),
        FaultPoint::NvrtcCompile => Error::Nvrtc {
            name: "NVRTC_ERROR_INTERNAL_ERROR".into(),
            call: "nvrtcCompileProgram (injected fault)",
            log: String::new(),
        },
        FaultPoint::ModuleLoad => Error::driver(
            CUresult::CUDA_ERROR_INVALID_IMAGE,
            "cuModuleLoadData (injected fault)",
        ),
        FaultPoint::KernelLaunch => Error::driver(
            CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            "cuLaunchKernel (injected fault)",
        ),
    }
}
