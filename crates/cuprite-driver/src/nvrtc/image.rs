//! What a compile produces: PTX text or CUBIN bytes.

use super::library::cstring;
use crate::error::{Error, Result};
use std::ffi::CString;
use std::path::Path;

/// PTX assembly text, as NVRTC emits it and as the driver loads it.
///
/// ```
/// let ptx = cuprite_driver::nvrtc::Ptx::from_src(".version 8.0\n.target sm_75\n.address_size 64\n");
/// assert!(ptx.as_str().starts_with(".version"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ptx {
    text: String,
}

impl Ptx {
    /// PTX from its text.
    pub fn from_src(text: impl Into<String>) -> Self {
        Ptx { text: text.into() }
    }

    /// PTX read from a `.ptx` file; `Err` naming the file if it cannot be read.
    ///
    /// ```
    /// let e = cuprite_driver::nvrtc::Ptx::from_file("/no/such/kernel.ptx").unwrap_err();
    /// assert!(e.to_string().contains("/no/such/kernel.ptx"));
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        std::fs::read_to_string(path)
            .map(Ptx::from_src)
            .map_err(|e| {
                Error::InvalidArgument(format!("cannot read PTX file {}: {e}", path.display()))
            })
    }

    /// The PTX text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The PTX text, owned.
    pub fn into_string(self) -> String {
        self.text
    }

    /// The text as a NUL-terminated string, as `cuModuleLoadData` wants it. `Err` if the text
    /// contains a NUL byte.
    pub fn to_cstring(&self) -> Result<CString> {
        cstring(&self.text, "PTX text")
    }
}

impl From<String> for Ptx {
    fn from(text: String) -> Self {
        Ptx::from_src(text)
    }
}

impl From<&str> for Ptx {
    fn from(text: &str) -> Self {
        Ptx::from_src(text)
    }
}

impl std::fmt::Display for Ptx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// A compiled, loadable image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Image {
    /// PTX, JIT-compiled by the driver when loaded (forward compatible with newer GPUs).
    Ptx(Ptx),
    /// An ELF CUBIN for one real architecture (`sm_XX`).
    Cubin(Vec<u8>),
}
