//! Raw bindings to the CUDA libraries, loaded at run time.
//!
//! Nothing here needs CUDA at build time. Each library (the driver, NVRTC, cuBLAS, cuBLASLt,
//! cuSOLVER, cuSPARSE, cuFFT, cuDNN, NCCL) is a [`loader::DynLibrary`] opened on first use (see
//! [`loader::candidates`] for where it is looked for), and each function resolves its own
//! symbol on first call. Every function returns `Result<_, LoadError>`: an `Err` names the
//! missing library (with every place tried) or the missing symbol.
//!
//! ```
//! // Works with or without a GPU: without a driver this is an Err listing the places tried.
//! match unsafe { cuprite_sys::driver::cuInit(0) } {
//!     Ok(status) => println!("cuInit returned {status:?}"),
//!     Err(e) => println!("no driver: {e}"),
//! }
//! ```
//!
//! This crate holds declarations and loading only. The safe layer is `cuprite-driver`, which
//! re-exports this crate as `cuprite_driver::sys`.
#![deny(missing_docs)]

pub mod cublas;
pub mod cublaslt;
pub mod cudnn;
pub mod cufft;
pub mod cusolver;
pub mod cusparse;
pub mod driver;
pub mod libraries;
pub mod library_types;
pub mod loader;
pub mod nccl;
pub mod nvrtc;

pub use loader::LoadError;

impl core::fmt::Debug for driver::CUresult {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({})", self.0),
            None => write!(f, "CUresult({})", self.0),
        }
    }
}

impl driver::CUresult {
    /// The `CUDA_ERROR_*` name of this code, if it is one the driver documents.
    pub fn name(self) -> Option<&'static str> {
        driver::CURESULT_NAMES
            .iter()
            .find(|(r, _)| *r == self)
            .map(|(_, n)| *n)
    }

    /// The code with this `CUDA_ERROR_*` (or `CUDA_SUCCESS`) name.
    pub fn from_name(name: &str) -> Option<Self> {
        driver::CURESULT_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(r, _)| *r)
    }

    /// Whether this is `CUDA_SUCCESS`.
    #[inline(always)]
    pub fn is_success(self) -> bool {
        self.0 == 0
    }
}
