//! The one error type of `cuprite-array`.

/// A `Result` with [`Error`] as its error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the array library.
///
/// `Debug` shows the variant's name (for [`Error::Cuda`], also the driver layer's variant) and
/// then the `Display` message, so `fn main() -> cuprite_array::Result<()>` prints readable text:
///
/// ```
/// let e = cuprite_array::Error::Shape("cannot broadcast [2, 3] with [4]".into());
/// assert_eq!(format!("{e:?}"), "Shape: shape error: cannot broadcast [2, 3] with [4]");
/// let e = cuprite_array::Error::from(cuprite_driver::Error::InvalidArgument("n is 0".into()));
/// assert_eq!(format!("{e:?}"), "Cuda(InvalidArgument): invalid argument: n is 0");
/// ```
#[derive(Clone, PartialEq, thiserror::Error)]
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
    /// A matrix that a solver needed to be invertible is singular (an exactly zero pivot).
    #[error("singular matrix: {0}")]
    Singular(String),
    /// A matrix that a Cholesky factorisation needed to be positive definite is not.
    #[error("matrix not positive definite: {0}")]
    NotPositiveDefinite(String),
    /// A file could not be read or written, or its contents are not in the expected format.
    #[error("I/O error: {0}")]
    Io(String),
    /// The driver layer failed (allocation, compile, launch...).
    #[error(transparent)]
    Cuda(#[from] cuprite_driver::Error),
}

/// The variant's name, then the `Display` message.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Error::Shape(_) => "Shape",
            Error::Axis(_) => "Axis",
            Error::Index(_) => "Index",
            Error::DeviceMismatch(_) => "DeviceMismatch",
            Error::InvalidArgument(_) => "InvalidArgument",
            Error::Singular(_) => "Singular",
            Error::NotPositiveDefinite(_) => "NotPositiveDefinite",
            Error::Io(_) => "Io",
            Error::Cuda(e) => return write!(f, "Cuda({}): {self}", e.variant_name()),
        };
        write!(f, "{name}: {self}")
    }
}
