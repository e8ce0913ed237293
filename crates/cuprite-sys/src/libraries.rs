//! Where the CUDA math and communication libraries are looked for: cuBLAS, cuBLASLt, cuSOLVER,
//! cuSPARSE, cuRAND, cuFFT, cuDNN and NCCL.
//!
//! The discovery specs and the process-wide library handles live here (`cuprite info` reports
//! whether each is present). A library's function table is declared in its own module through
//! the same [`dyn_functions!`](crate::dyn_functions) mechanism as libcuda and libnvrtc:
//! [`crate::cublas`], [`crate::cublaslt`], [`crate::cusolver`], [`crate::cufft`],
//! [`crate::cusparse`], [`crate::cudnn`], [`crate::nccl`]; cuRAND's is not declared.

use crate::loader::{DynLibrary, LibrarySpec};

/// cuBLAS (`CUPRITE_CUBLAS_PATH`).
pub static CUBLAS_SPEC: LibrarySpec = LibrarySpec {
    name: "libcublas",
    env_var: "CUPRITE_CUBLAS_PATH",
    unix_names: &[
        "libcublas.so.13",
        "libcublas.so.12",
        "libcublas.so.11",
        "libcublas.so",
    ],
    windows_names: &["cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"],
    in_toolkit: true,
    wheel_dirs: &["nvidia/cu13/lib", "nvidia/cublas/lib"],
    companions: &[],
    prefer_major: None,
};

/// cuBLASLt (`CUPRITE_CUBLASLT_PATH`).
pub static CUBLASLT_SPEC: LibrarySpec = LibrarySpec {
    name: "libcublasLt",
    env_var: "CUPRITE_CUBLASLT_PATH",
    unix_names: &[
        "libcublasLt.so.13",
        "libcublasLt.so.12",
        "libcublasLt.so.11",
        "libcublasLt.so",
    ],
    windows_names: &[
        "cublasLt64_13.dll",
        "cublasLt64_12.dll",
        "cublasLt64_11.dll",
    ],
    in_toolkit: true,
    wheel_dirs: &["nvidia/cu13/lib", "nvidia/cublas/lib"],
    companions: &[],
    prefer_major: None,
};

/// cuSOLVER (`CUPRITE_CUSOLVER_PATH`). Version 12 ships with CUDA 13, 11 with CUDA 12.
pub static CUSOLVER_SPEC: LibrarySpec = LibrarySpec {
    name: "libcusolver",
    env_var: "CUPRITE_CUSOLVER_PATH",
    unix_names: &["libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"],
    windows_names: &["cusolver64_12.dll", "cusolver64_11.dll"],
    in_toolkit: true,
    wheel_dirs: &["nvidia/cu13/lib", "nvidia/cusolver/lib"],
    companions: &[],
    prefer_major: None,
};

/// cuSPARSE (`CUPRITE_CUSPARSE_PATH`). Version 12 ships with CUDA 12 and 13, 11 with CUDA 11.
pub static CUSPARSE_SPEC: LibrarySpec = LibrarySpec {
    name: "libcusparse",
    env_var: "CUPRITE_CUSPARSE_PATH",
    unix_names: &["libcusparse.so.12", "libcusparse.so.11", "libcusparse.so"],
    windows_names: &["cusparse64_12.dll", "cusparse64_11.dll"],
    in_toolkit: true,
    wheel_dirs: &["nvidia/cu13/lib", "nvidia/cusparse/lib"],
    companions: &[],
    prefer_major: None,
};

/// cuRAND (`CUPRITE_CURAND_PATH`).
pub static CURAND_SPEC: LibrarySpec = LibrarySpec {
    name: "libcurand",
    env_var: "CUPRITE_CURAND_PATH",
    unix_names: &["libcurand.so.10", "libcurand.so"],
    windows_names: &["curand64_10.dll"],
    in_toolkit: true,
    wheel_dirs: &["nvidia/cu13/lib", "nvidia/curand/lib"],
    companions: &[],
    prefer_major: None,
};

/// cuFFT (`CUPRITE_CUFFT_PATH`).
pub static CUFFT_SPEC: LibrarySpec = LibrarySpec {
    name: "libcufft",
    env_var: "CUPRITE_CUFFT_PATH",
    unix_names: &[
        "libcufft.so.12",
        "libcufft.so.11",
        "libcufft.so.10",
        "libcufft.so",
    ],
    windows_names: &["cufft64_12.dll", "cufft64_11.dll", "cufft64_10.dll"],
    in_toolkit: true,
    // `libcufft.so.12` is in the CUDA 13 wheel (`nvidia-cufft` 12.x, nvidia/cu13/lib); the
    // CUDA 12 wheel (`nvidia-cufft-cu12`) has `libcufft.so.11` in nvidia/cufft/lib.
    wheel_dirs: &["nvidia/cu13/lib", "nvidia/cufft/lib"],
    companions: &[],
    // A cuFFT newer than the driver fails at plan time: prefer the driver's CUDA version's.
    prefer_major: Some(cufft_major_for_driver),
};

/// The cuFFT major version shipped with the installed driver's CUDA version: cuFFT 10, 11 and
/// 12 belong to CUDA 11, 12 and 13.
fn cufft_major_for_driver() -> Option<u32> {
    crate::nvrtc::driver_major_version().and_then(|m| m.checked_sub(1))
}

/// cuDNN 9 (`CUPRITE_CUDNN_PATH`): the shim `libcudnn.so.9`, which exports the whole legacy API
/// and opens its sub-libraries (`libcudnn_graph`, `libcudnn_ops`, `libcudnn_cnn`, the engine
/// libraries...) by bare name when a call first needs one. Those are preloaded from the folder
/// the shim came from (companions, dependencies first), so a cuDNN found in a pip wheel or a
/// folder off the loader's path finds its own sub-libraries, never another installed version's.
/// Version 8 (`libcudnn.so.8`) numbers its statuses otherwise and is not looked for; a bare
/// `libcudnn.so` of another major version is refused by the safe layer.
pub static CUDNN_SPEC: LibrarySpec = LibrarySpec {
    name: "libcudnn",
    env_var: "CUPRITE_CUDNN_PATH",
    unix_names: &["libcudnn.so.9", "libcudnn.so"],
    windows_names: &["cudnn64_9.dll"],
    in_toolkit: true,
    // `nvidia-cudnn-cu12` and `nvidia-cudnn-cu13` install into nvidia/cudnn/lib.
    wheel_dirs: &["nvidia/cudnn/lib", "nvidia/cu13/lib"],
    // Dependencies first: the graph library underlies every other one, the operation
    // libraries need it, and the convolution library needs the operation library.
    companions: &[
        "libcudnn_graph",
        "libcudnn_engines_tensor_ir",
        "libcudnn_engines_precompiled",
        "libcudnn_engines_runtime_compiled",
        "libcudnn_heuristic",
        "libcudnn_ext",
        "libcudnn_ops",
        "libcudnn_cnn",
        "libcudnn_adv",
    ],
    prefer_major: None,
};

/// NCCL (`CUPRITE_NCCL_PATH`).
pub static NCCL_SPEC: LibrarySpec = LibrarySpec {
    name: "libnccl",
    env_var: "CUPRITE_NCCL_PATH",
    unix_names: &["libnccl.so.2", "libnccl.so"],
    windows_names: &[],
    in_toolkit: true,
    wheel_dirs: &["nvidia/nccl/lib"],
    companions: &[],
    prefer_major: None,
};

/// The process-wide handle of cuBLAS.
pub static CUBLAS: DynLibrary = DynLibrary::new(&CUBLAS_SPEC);
/// The process-wide handle of cuBLASLt.
pub static CUBLASLT: DynLibrary = DynLibrary::new(&CUBLASLT_SPEC);
/// The process-wide handle of cuSOLVER.
pub static CUSOLVER: DynLibrary = DynLibrary::new(&CUSOLVER_SPEC);
/// The process-wide handle of cuSPARSE; its functions are in [`cusparse`](crate::cusparse).
pub static CUSPARSE: DynLibrary = DynLibrary::new(&CUSPARSE_SPEC);
/// The process-wide handle of cuRAND.
pub static CURAND: DynLibrary = DynLibrary::new(&CURAND_SPEC);
/// The process-wide handle of cuFFT; its functions are in [`cufft`](crate::cufft).
pub static CUFFT: DynLibrary = DynLibrary::new(&CUFFT_SPEC);
/// The process-wide handle of cuDNN; its functions are in [`cudnn`](crate::cudnn).
pub static CUDNN: DynLibrary = DynLibrary::new(&CUDNN_SPEC);
/// The process-wide handle of NCCL.
pub static NCCL: DynLibrary = DynLibrary::new(&NCCL_SPEC);

/// Every CUDA library cuprite knows, driver and NVRTC first.
pub fn all() -> [&'static DynLibrary; 10] {
    [
        &crate::driver::LIBRARY,
        &crate::nvrtc::LIBRARY,
        &CUBLAS,
        &CUBLASLT,
        &CUSOLVER,
        &CUSPARSE,
        &CURAND,
        &CUFFT,
        &CUDNN,
        &NCCL,
    ]
}
