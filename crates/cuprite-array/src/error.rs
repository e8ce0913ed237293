//! The one error type of `cuprite-array`.

/// A `Result` with [`Error`] as its error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the array library.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Shapes that do not fit together (broadcasting, reshape, a slice of the wrong length).
    #[error("shape error: {0}")]
    Shape(String),
    /// An axis out of range.
    #[error("axis error: {0}")]
    Axis(String),
    /// An index or slice out of range.
    #[error("index error: {0}")]
    Index(String),
    /// Arrays of different backends or devices in one operation.
    #[error("device mismatch: {0}")]
    DeviceMismatch(String),
    /// An argument rejected for another reason.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The driver layer failed (allocation, compile, launch...).
    #[error(transparent)]
    Cuda(#[from] cuprite::Error),
}
