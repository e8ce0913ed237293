//! `#[derive(DeviceRepr)]` for `#[repr(C)]` structs passed to CUDA kernels.
