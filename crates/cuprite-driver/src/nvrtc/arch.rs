//! The target architecture: the device's, lowered to what this NVRTC supports, and whether
//! [`Output::Auto`] means CUBIN.
//!
//! [`Output::Auto`]: super::Output::Auto

use super::FALLBACK_ARCH;
use super::library::{supported_archs, version};
use crate::error::{Error, Result};

/// `Some((nvrtc, driver))` versions when this NVRTC is newer than the CUDA version the driver
/// supports. PTX from such an NVRTC carries a PTX ISA version the driver's JIT does not know,
/// and loading it fails with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`; CUBIN for the device loads
/// fine, so [`Output::Auto`] picks CUBIN then. `None` when they match, NVRTC is older, or
/// either is missing.
///
/// [`Output::Auto`]: super::Output::Auto
pub fn nvrtc_newer_than_driver() -> Option<((u32, u32), (u32, u32))> {
    let nvrtc = version().ok()?;
    let driver = crate::driver_version().ok()?;
    (nvrtc > driver).then_some((nvrtc, driver))
}

/// Whether [`Output::Auto`] compiles to CUBIN on this machine (see [`nvrtc_newer_than_driver`]).
///
/// [`Output::Auto`]: super::Output::Auto
pub fn auto_prefers_cubin() -> bool {
    nvrtc_newer_than_driver().is_some() && device_arch().is_some()
}

/// The compute capability of the device current on this thread (else device 0), as `90` for
/// 9.0; `None` without a driver or device.
pub fn device_arch() -> Option<u32> {
    use cuprite_sys::driver as d;
    crate::init().ok()?;
    let mut ctx: d::CUcontext = std::ptr::null_mut();
    let mut dev: d::CUdevice = 0;
    // SAFETY: `ctx` is a valid out-pointer.
    let has_ctx = matches!(unsafe { d::cuCtxGetCurrent(&mut ctx) }, Ok(r) if r.is_success())
        && !ctx.is_null();
    // SAFETY: `dev` is a valid out-pointer; a context is current when asked for its device.
    let ok = has_ctx && matches!(unsafe { d::cuCtxGetDevice(&mut dev) }, Ok(r) if r.is_success());
    let device = if ok {
        let count = crate::Device::count().ok()?;
        (0..count)
            .filter_map(|i| crate::Device::get(i).ok())
            .find(|x| x.raw() == dev)?
    } else {
        crate::Device::get(0).ok()?
    };
    let (major, minor) = device.compute_capability().ok()?;
    Some(major * 10 + minor)
}

/// Parses `sm_90`, `compute_90`, `sm_90a`, `90` into `(number, suffix, is_real)`.
pub(super) fn parse_arch(arch: &str) -> Result<(u32, String, Option<bool>)> {
    let (rest, real) = if let Some(r) = arch.strip_prefix("sm_") {
        (r, Some(true))
    } else if let Some(r) = arch.strip_prefix("compute_") {
        (r, Some(false))
    } else {
        (arch, None)
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let suffix = rest[digits.len()..].to_string();
    match digits.parse::<u32>() {
        Ok(n) if suffix.chars().all(|c| c.is_ascii_alphabetic()) => Ok((n, suffix, real)),
        _ => Err(Error::InvalidArgument(format!(
            "cannot parse architecture `{arch}`: expected sm_XX, compute_XX or XX"
        ))),
    }
}

/// The device's architecture, lowered to the newest one this NVRTC supports (PTX for an older
/// architecture runs on newer GPUs); [`FALLBACK_ARCH`] without a device.
pub(super) fn default_arch() -> u32 {
    let Some(dev) = device_arch() else {
        return FALLBACK_ARCH;
    };
    match supported_archs() {
        Ok(list) if !list.is_empty() && !list.contains(&dev) => list
            .iter()
            .copied()
            .filter(|&a| a <= dev)
            .max()
            .unwrap_or(dev),
        _ => dev,
    }
}
