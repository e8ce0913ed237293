//! What one scatter call does (see [`super::call`] for its evaluation and the update layout):
//! the plain description both the CPU loops and the CUDA sources (`cuda.rs`) read.

use super::IndexMode;
use crate::dtype::DType;

/// What an update does to its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Reduce {
    Set,
    Add,
    Max,
    Min,
}

impl Reduce {
    pub(super) fn name(self) -> &'static str {
        match self {
            Reduce::Set => "set",
            Reduce::Add => "add",
            Reduce::Max => "max",
            Reduce::Min => "min",
        }
    }
}

/// One scatter (the update and destination layout: see `call.rs`).
#[derive(Debug, Clone)]
pub(super) struct ScatterCall {
    pub op: Reduce,
    /// Deterministic mode: last write wins for `Set`, fixed-point sums for float `Add`.
    pub det: bool,
    /// Element dtype of base, values and output (an accumulation dtype unless `Set`).
    pub dtype: DType,
    /// `I32` or `I64`.
    pub idx_dtype: DType,
    pub outer: usize,
    pub k: usize,
    pub inner: usize,
    pub n: usize,
    /// The index is 1-D over `K` (index_add) rather than one per update.
    pub idx1d: bool,
    pub mode: IndexMode,
    /// A fourth input, a one-word flag (u32), is raised by any update whose index is out of
    /// range (the `Error` mode's check, done by the update passes; see `IndexFlag`).
    pub checked: bool,
}
