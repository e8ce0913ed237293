//! cuFFT (`libcufft`): status codes, transform types, the plan handle and the functions that
//! make, configure, run and destroy plans.
//!
//! The library is [`libraries::CUFFT`](crate::libraries::CUFFT), opened on the first call of
//! any function here; each symbol is resolved on its own first call. A machine without cuFFT
//! gets an `Err` from that first call, naming every place tried; nothing else is affected.
//!
//! ```
//! // Works with or without cuFFT: without it this is an Err listing the places tried.
//! let mut v = 0;
//! match unsafe { cuprite_sys::cufft::cufftGetVersion(&mut v) } {
//!     Ok(r) => println!("cufftGetVersion returned {r:?}: version {v}"),
//!     Err(e) => println!("no cuFFT: {e}"),
//! }
//! ```

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use crate::driver::CUstream;
use crate::libraries::CUFFT;
use crate::library_types::{cudaDataType, libraryPropertyType};
use core::ffi::{c_int, c_longlong, c_void};

/// A cuFFT status code (`cufftResult`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct cufftResult(pub c_int);

impl cufftResult {
    pub const CUFFT_SUCCESS: cufftResult = cufftResult(0x0);
    pub const CUFFT_INVALID_PLAN: cufftResult = cufftResult(0x1);
    pub const CUFFT_ALLOC_FAILED: cufftResult = cufftResult(0x2);
    pub const CUFFT_INVALID_TYPE: cufftResult = cufftResult(0x3);
    pub const CUFFT_INVALID_VALUE: cufftResult = cufftResult(0x4);
    pub const CUFFT_INTERNAL_ERROR: cufftResult = cufftResult(0x5);
    pub const CUFFT_EXEC_FAILED: cufftResult = cufftResult(0x6);
    pub const CUFFT_SETUP_FAILED: cufftResult = cufftResult(0x7);
    pub const CUFFT_INVALID_SIZE: cufftResult = cufftResult(0x8);
    pub const CUFFT_UNALIGNED_DATA: cufftResult = cufftResult(0x9);
    /// Removed from cuFFT 12 (CUDA 13); older versions may still return it.
    pub const CUFFT_INCOMPLETE_PARAMETER_LIST: cufftResult = cufftResult(0xA);
    pub const CUFFT_INVALID_DEVICE: cufftResult = cufftResult(0xB);
    /// Removed from cuFFT 12 (CUDA 13); older versions may still return it.
    pub const CUFFT_PARSE_ERROR: cufftResult = cufftResult(0xC);
    pub const CUFFT_NO_WORKSPACE: cufftResult = cufftResult(0xD);
    pub const CUFFT_NOT_IMPLEMENTED: cufftResult = cufftResult(0xE);
    /// Removed from cuFFT 12 (CUDA 13); older versions may still return it.
    pub const CUFFT_LICENSE_ERROR: cufftResult = cufftResult(0xF);
    pub const CUFFT_NOT_SUPPORTED: cufftResult = cufftResult(0x10);
    pub const CUFFT_MISSING_DEPENDENCY: cufftResult = cufftResult(0x11);
    pub const CUFFT_NVRTC_FAILURE: cufftResult = cufftResult(0x12);
    pub const CUFFT_NVJITLINK_FAILURE: cufftResult = cufftResult(0x13);
    pub const CUFFT_NVSHMEM_FAILURE: cufftResult = cufftResult(0x14);

    /// Whether this is `CUFFT_SUCCESS`.
    #[inline(always)]
    pub fn is_success(self) -> bool {
        self.0 == 0
    }

    /// The `CUFFT_*` name of this code, if it is one cuFFT documents.
    pub fn name(self) -> Option<&'static str> {
        CUFFTRESULT_NAMES
            .iter()
            .find(|(r, _)| *r == self)
            .map(|(_, n)| *n)
    }
}

impl core::fmt::Debug for cufftResult {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({})", self.0),
            None => write!(f, "cufftResult({})", self.0),
        }
    }
}

/// Every documented `cufftResult` with its name.
pub const CUFFTRESULT_NAMES: &[(cufftResult, &str)] = &[
    (cufftResult::CUFFT_SUCCESS, "CUFFT_SUCCESS"),
    (cufftResult::CUFFT_INVALID_PLAN, "CUFFT_INVALID_PLAN"),
    (cufftResult::CUFFT_ALLOC_FAILED, "CUFFT_ALLOC_FAILED"),
    (cufftResult::CUFFT_INVALID_TYPE, "CUFFT_INVALID_TYPE"),
    (cufftResult::CUFFT_INVALID_VALUE, "CUFFT_INVALID_VALUE"),
    (cufftResult::CUFFT_INTERNAL_ERROR, "CUFFT_INTERNAL_ERROR"),
    (cufftResult::CUFFT_EXEC_FAILED, "CUFFT_EXEC_FAILED"),
    (cufftResult::CUFFT_SETUP_FAILED, "CUFFT_SETUP_FAILED"),
    (cufftResult::CUFFT_INVALID_SIZE, "CUFFT_INVALID_SIZE"),
    (cufftResult::CUFFT_UNALIGNED_DATA, "CUFFT_UNALIGNED_DATA"),
    (
        cufftResult::CUFFT_INCOMPLETE_PARAMETER_LIST,
        "CUFFT_INCOMPLETE_PARAMETER_LIST",
    ),
    (cufftResult::CUFFT_INVALID_DEVICE, "CUFFT_INVALID_DEVICE"),
    (cufftResult::CUFFT_PARSE_ERROR, "CUFFT_PARSE_ERROR"),
    (cufftResult::CUFFT_NO_WORKSPACE, "CUFFT_NO_WORKSPACE"),
    (cufftResult::CUFFT_NOT_IMPLEMENTED, "CUFFT_NOT_IMPLEMENTED"),
    (cufftResult::CUFFT_LICENSE_ERROR, "CUFFT_LICENSE_ERROR"),
    (cufftResult::CUFFT_NOT_SUPPORTED, "CUFFT_NOT_SUPPORTED"),
    (
        cufftResult::CUFFT_MISSING_DEPENDENCY,
        "CUFFT_MISSING_DEPENDENCY",
    ),
    (cufftResult::CUFFT_NVRTC_FAILURE, "CUFFT_NVRTC_FAILURE"),
    (
        cufftResult::CUFFT_NVJITLINK_FAILURE,
        "CUFFT_NVJITLINK_FAILURE",
    ),
    (cufftResult::CUFFT_NVSHMEM_FAILURE, "CUFFT_NVSHMEM_FAILURE"),
];

/// The kind and precision of a transform (`cufftType`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cufftType(pub c_int);

impl cufftType {
    /// Real to complex (interleaved), single precision.
    pub const CUFFT_R2C: cufftType = cufftType(0x2a);
    /// Complex (interleaved) to real, single precision.
    pub const CUFFT_C2R: cufftType = cufftType(0x2c);
    /// Complex to complex, single precision.
    pub const CUFFT_C2C: cufftType = cufftType(0x29);
    /// Real to complex, double precision.
    pub const CUFFT_D2Z: cufftType = cufftType(0x6a);
    /// Complex to real, double precision.
    pub const CUFFT_Z2D: cufftType = cufftType(0x6c);
    /// Complex to complex, double precision.
    pub const CUFFT_Z2Z: cufftType = cufftType(0x69);
}

/// A cuFFT plan (`cufftHandle`): an integer naming the plan inside the library.
pub type cufftHandle = c_int;

/// An uninitialised handle that is safe to pass to `cufftDestroy`.
pub const CUFFT_PLAN_NULL: cufftHandle = -1;
/// The `direction` of a forward transform (exponent sign −1).
pub const CUFFT_FORWARD: c_int = -1;
/// The `direction` of an inverse transform (exponent sign +1, unnormalised).
pub const CUFFT_INVERSE: c_int = 1;

/// `cufftComplex` / `cuComplex`: interleaved single-precision complex.
#[repr(C, align(8))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cufftComplex {
    pub x: f32,
    pub y: f32,
}

/// `cufftDoubleComplex` / `cuDoubleComplex`: interleaved double-precision complex.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cufftDoubleComplex {
    pub x: f64,
    pub y: f64,
}

pub type cufftReal = f32;
pub type cufftDoubleReal = f64;

crate::dyn_functions! {
    library: CUFFT;
    fn cufftGetVersion(version: *mut c_int) -> cufftResult;
    fn cufftGetProperty(property: libraryPropertyType, value: *mut c_int) -> cufftResult;
    fn cufftCreate(handle: *mut cufftHandle) -> cufftResult;
    fn cufftDestroy(plan: cufftHandle) -> cufftResult;
    fn cufftSetAutoAllocation(plan: cufftHandle, auto_allocate: c_int) -> cufftResult;
    fn cufftSetWorkArea(plan: cufftHandle, work_area: *mut c_void) -> cufftResult;
    fn cufftSetStream(plan: cufftHandle, stream: CUstream) -> cufftResult;
    fn cufftGetSize(plan: cufftHandle, work_size: *mut usize) -> cufftResult;
    fn cufftMakePlanMany64(
        plan: cufftHandle,
        rank: c_int,
        n: *mut c_longlong,
        inembed: *mut c_longlong,
        istride: c_longlong,
        idist: c_longlong,
        onembed: *mut c_longlong,
        ostride: c_longlong,
        odist: c_longlong,
        kind: cufftType,
        batch: c_longlong,
        work_size: *mut usize,
    ) -> cufftResult;
    fn cufftGetSizeMany64(
        plan: cufftHandle,
        rank: c_int,
        n: *mut c_longlong,
        inembed: *mut c_longlong,
        istride: c_longlong,
        idist: c_longlong,
        onembed: *mut c_longlong,
        ostride: c_longlong,
        odist: c_longlong,
        kind: cufftType,
        batch: c_longlong,
        work_size: *mut usize,
    ) -> cufftResult;
    fn cufftXtMakePlanMany(
        plan: cufftHandle,
        rank: c_int,
        n: *mut c_longlong,
        inembed: *mut c_longlong,
        istride: c_longlong,
        idist: c_longlong,
        input_type: cudaDataType,
        onembed: *mut c_longlong,
        ostride: c_longlong,
        odist: c_longlong,
        output_type: cudaDataType,
        batch: c_longlong,
        work_size: *mut usize,
        execution_type: cudaDataType,
    ) -> cufftResult;
    fn cufftXtGetSizeMany(
        plan: cufftHandle,
        rank: c_int,
        n: *mut c_longlong,
        inembed: *mut c_longlong,
        istride: c_longlong,
        idist: c_longlong,
        input_type: cudaDataType,
        onembed: *mut c_longlong,
        ostride: c_longlong,
        odist: c_longlong,
        output_type: cudaDataType,
        batch: c_longlong,
        work_size: *mut usize,
        execution_type: cudaDataType,
    ) -> cufftResult;
    fn cufftExecC2C(plan: cufftHandle, idata: *mut cufftComplex, odata: *mut cufftComplex, direction: c_int) -> cufftResult;
    fn cufftExecR2C(plan: cufftHandle, idata: *mut cufftReal, odata: *mut cufftComplex) -> cufftResult;
    fn cufftExecC2R(plan: cufftHandle, idata: *mut cufftComplex, odata: *mut cufftReal) -> cufftResult;
    fn cufftExecZ2Z(plan: cufftHandle, idata: *mut cufftDoubleComplex, odata: *mut cufftDoubleComplex, direction: c_int) -> cufftResult;
    fn cufftExecD2Z(plan: cufftHandle, idata: *mut cufftDoubleReal, odata: *mut cufftDoubleComplex) -> cufftResult;
    fn cufftExecZ2D(plan: cufftHandle, idata: *mut cufftDoubleComplex, odata: *mut cufftDoubleReal) -> cufftResult;
    fn cufftXtExec(plan: cufftHandle, input: *mut c_void, output: *mut c_void, direction: c_int) -> cufftResult;
}
