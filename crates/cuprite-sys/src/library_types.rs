//! Types shared by the CUDA math libraries (`library_types.h`): element types
//! ([`cudaDataType`]) and version properties ([`libraryPropertyType`]).
//!
//! Only declarations live here; each library module (`cufft`, ...) takes its own parameters
//! of these types.

#![allow(non_camel_case_types, missing_docs)]

use core::ffi::c_int;

/// The element type of a math library's operand (`cudaDataType_t`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cudaDataType(pub c_int);

impl cudaDataType {
    pub const CUDA_R_16F: cudaDataType = cudaDataType(2);
    pub const CUDA_C_16F: cudaDataType = cudaDataType(6);
    pub const CUDA_R_16BF: cudaDataType = cudaDataType(14);
    pub const CUDA_C_16BF: cudaDataType = cudaDataType(15);
    pub const CUDA_R_32F: cudaDataType = cudaDataType(0);
    pub const CUDA_C_32F: cudaDataType = cudaDataType(4);
    pub const CUDA_R_64F: cudaDataType = cudaDataType(1);
    pub const CUDA_C_64F: cudaDataType = cudaDataType(5);
    pub const CUDA_R_8I: cudaDataType = cudaDataType(3);
    pub const CUDA_C_8I: cudaDataType = cudaDataType(7);
    pub const CUDA_R_8U: cudaDataType = cudaDataType(8);
    pub const CUDA_C_8U: cudaDataType = cudaDataType(9);
    pub const CUDA_R_32I: cudaDataType = cudaDataType(10);
    pub const CUDA_C_32I: cudaDataType = cudaDataType(11);
    pub const CUDA_R_32U: cudaDataType = cudaDataType(12);
    pub const CUDA_C_32U: cudaDataType = cudaDataType(13);
}

/// Which part of a library's version `*GetProperty` returns (`libraryPropertyType_t`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct libraryPropertyType(pub c_int);

impl libraryPropertyType {
    pub const MAJOR_VERSION: libraryPropertyType = libraryPropertyType(0);
    pub const MINOR_VERSION: libraryPropertyType = libraryPropertyType(1);
    pub const PATCH_LEVEL: libraryPropertyType = libraryPropertyType(2);
}
