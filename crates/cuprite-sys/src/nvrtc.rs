//! NVRTC, the CUDA run-time compiler (`libnvrtc`): types and functions.
//!
//! NVRTC needs no GPU, so it is usable (and tested) on machines without a driver.

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use crate::loader::{DynLibrary, LibrarySpec};
use core::ffi::{c_char, c_int};

/// Where `libnvrtc` is looked for: newest major version first.
pub static SPEC: LibrarySpec = LibrarySpec {
    name: "libnvrtc",
    env_var: "CUPRITE_NVRTC_PATH",
    unix_names: &[
        "libnvrtc.so.13",
        "libnvrtc.so.12",
        "libnvrtc.so.11.2",
        "libnvrtc.so.11",
        "libnvrtc.so",
    ],
    windows_names: &[
        "nvrtc64_130_0.dll",
        "nvrtc64_120_0.dll",
        "nvrtc64_112_0.dll",
        "nvrtc.dll",
    ],
    in_toolkit: true,
    wheel_dirs: &[
        "nvidia/cu13/lib",
        "nvidia/cuda_nvrtc/lib",
        "nvidia/cu12/lib",
    ],
    // NVRTC dlopens `libnvrtc-builtins.so.X.Y` by bare name at compile time; outside the
    // loader's search path (a wheel, a toolkit folder not in ld.so.cache) that fails with
    // NVRTC_ERROR_BUILTIN_OPERATION_FAILURE unless it is already loaded.
    companions: &["libnvrtc-builtins"],
    // PTX from an NVRTC newer than the driver does not load: prefer the driver's major version.
    prefer_major: Some(driver_major_version),
};

/// The CUDA major version of the installed driver, when there is one (`cuDriverGetVersion`
/// needs no `cuInit`).
pub(crate) fn driver_major_version() -> Option<u32> {
    let mut v = 0;
    // SAFETY: `v` is a valid out-pointer; the call has no other precondition.
    match unsafe { crate::driver::cuDriverGetVersion(&mut v) } {
        Ok(r) if r.is_success() && v > 0 => Some((v / 1000) as u32),
        _ => None,
    }
}

/// The process-wide handle of the NVRTC library.
pub static LIBRARY: DynLibrary = DynLibrary::new(&SPEC);

/// An NVRTC status code.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct nvrtcResult(pub c_int);

impl nvrtcResult {
    pub const NVRTC_SUCCESS: nvrtcResult = nvrtcResult(0);
    pub const NVRTC_ERROR_OUT_OF_MEMORY: nvrtcResult = nvrtcResult(1);
    pub const NVRTC_ERROR_PROGRAM_CREATION_FAILURE: nvrtcResult = nvrtcResult(2);
    pub const NVRTC_ERROR_INVALID_INPUT: nvrtcResult = nvrtcResult(3);
    pub const NVRTC_ERROR_INVALID_PROGRAM: nvrtcResult = nvrtcResult(4);
    pub const NVRTC_ERROR_INVALID_OPTION: nvrtcResult = nvrtcResult(5);
    pub const NVRTC_ERROR_COMPILATION: nvrtcResult = nvrtcResult(6);
    pub const NVRTC_ERROR_BUILTIN_OPERATION_FAILURE: nvrtcResult = nvrtcResult(7);
    pub const NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION: nvrtcResult = nvrtcResult(8);
    pub const NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION: nvrtcResult = nvrtcResult(9);
    pub const NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID: nvrtcResult = nvrtcResult(10);
    pub const NVRTC_ERROR_INTERNAL_ERROR: nvrtcResult = nvrtcResult(11);
    pub const NVRTC_ERROR_TIME_FILE_WRITE_FAILED: nvrtcResult = nvrtcResult(12);
    pub const NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED: nvrtcResult = nvrtcResult(13);
    pub const NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED: nvrtcResult = nvrtcResult(14);
    pub const NVRTC_ERROR_PCH_CREATE: nvrtcResult = nvrtcResult(15);
    pub const NVRTC_ERROR_CANCELLED: nvrtcResult = nvrtcResult(16);
    pub const NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED: nvrtcResult = nvrtcResult(17);
    pub const NVRTC_ERROR_BUSY: nvrtcResult = nvrtcResult(18);
}

#[repr(C)]
#[derive(Debug)]
pub struct _nvrtcProgram {
    _private: [u8; 0],
}
/// An NVRTC program handle.
pub type nvrtcProgram = *mut _nvrtcProgram;

crate::dyn_functions! {
    library: LIBRARY;
    fn nvrtcGetErrorString(result: nvrtcResult) -> *const c_char;
    fn nvrtcVersion(major: *mut c_int, minor: *mut c_int) -> nvrtcResult;
    fn nvrtcGetNumSupportedArchs(num: *mut c_int) -> nvrtcResult;
    fn nvrtcGetSupportedArchs(archs: *mut c_int) -> nvrtcResult;
    fn nvrtcCreateProgram(prog: *mut nvrtcProgram, src: *const c_char, name: *const c_char, num_headers: c_int, headers: *const *const c_char, include_names: *const *const c_char) -> nvrtcResult;
    fn nvrtcDestroyProgram(prog: *mut nvrtcProgram) -> nvrtcResult;
    fn nvrtcCompileProgram(prog: nvrtcProgram, num_options: c_int, options: *const *const c_char) -> nvrtcResult;
    fn nvrtcGetPTXSize(prog: nvrtcProgram, size: *mut usize) -> nvrtcResult;
    fn nvrtcGetPTX(prog: nvrtcProgram, ptx: *mut c_char) -> nvrtcResult;
    fn nvrtcGetCUBINSize(prog: nvrtcProgram, size: *mut usize) -> nvrtcResult;
    fn nvrtcGetCUBIN(prog: nvrtcProgram, cubin: *mut c_char) -> nvrtcResult;
    fn nvrtcGetProgramLogSize(prog: nvrtcProgram, size: *mut usize) -> nvrtcResult;
    fn nvrtcGetProgramLog(prog: nvrtcProgram, log: *mut c_char) -> nvrtcResult;
    fn nvrtcAddNameExpression(prog: nvrtcProgram, name_expression: *const c_char) -> nvrtcResult;
    fn nvrtcGetLoweredName(prog: nvrtcProgram, name_expression: *const c_char, lowered_name: *mut *const c_char) -> nvrtcResult;
}
