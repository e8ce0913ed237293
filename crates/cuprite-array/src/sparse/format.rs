//! The storage formats and index types of sparse arrays.

/// How a sparse array stores its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SparseFormat {
    /// Compressed sparse rows: row offsets, then a column index and a value per element.
    Csr,
    /// Compressed sparse columns: column offsets, then a row index and a value per element.
    Csc,
    /// Coordinates: a row index, a column index and a value per element, sorted by row.
    Coo,
}

impl SparseFormat {
    /// `"csr"`, `"csc"` or `"coo"`.
    pub fn name(self) -> &'static str {
        match self {
            SparseFormat::Csr => "csr",
            SparseFormat::Csc => "csc",
            SparseFormat::Coo => "coo",
        }
    }
}

/// The integer type of a sparse array's offsets and indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexType {
    /// 32-bit (chosen when the shape and the number of elements fit).
    I32,
    /// 64-bit.
    I64,
}
