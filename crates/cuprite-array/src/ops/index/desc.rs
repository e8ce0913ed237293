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
    /// Deterministic mode: last write wins for `Set`, binned or fixed-point sums for float
    /// `Add` (see [`ScatterCall::bins`]).
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

/// Destinations a block of the partitioned sum adds up in shared memory (see
/// [`ScatterCall::partitions`]).
pub(super) const PART_SPAN: usize = 4096;
/// Destinations the shared-memory sum takes at most (see [`ScatterCall::shared_sum`]).
pub(super) const SH_ADD_MAX: usize = 4096;
/// Updates the partitioning pass takes a block (one tile).
pub(super) const PART_TILE: usize = 4096;
/// The most partitions (the partitioning pass keeps one counter each in shared memory).
pub(super) const PART_MAX: usize = 512;

/// Scratch words a binned sum may take beyond the number of updates (128 MiB).
const BIN_WORDS_MIN: usize = 1 << 24;

impl ScatterCall {
    /// The partitioned form of an atomic `f32` sum, its number of partitions, where it applies.
    ///
    /// Many scalar updates (`inner == 1`) into a destination too large for one block's shared
    /// memory but small enough for the L2 cache are limited by the rate of L2 atomics when each
    /// goes straight to its destination. Instead a first pass
    /// sorts each tile of [`PART_TILE`] updates by destination range ([`PART_SPAN`]
    /// destinations a partition) in shared memory and writes them out with 16-bit local
    /// destinations; a second pass sums each partition's updates in shared memory and adds
    /// the partial sums to the output, coalesced. Taken for at least 2^22
    /// updates, eight or more per destination, and 2^16 to `PART_MAX · PART_SPAN`
    /// destinations; its scratch is six bytes an update.
    pub(super) fn partitions(&self) -> Option<usize> {
        if self.det || self.op != Reduce::Add || self.dtype != DType::F32 || self.inner != 1 {
            return None;
        }
        let m = self.outer.checked_mul(self.k)?;
        let n_out = self.outer.checked_mul(self.n)?;
        let ok =
            m >= 1 << 22 && n_out >= 1 << 16 && m / 8 >= n_out && n_out <= PART_MAX * PART_SPAN;
        ok.then(|| n_out.div_ceil(PART_SPAN))
    }

    /// Whether a non-deterministic sum takes the shared-memory form (`idx_add_sh` in
    /// `scatter.cu`): at most [`SH_ADD_MAX`] destinations of a dtype that shared
    /// atomics add, and at least 2^16 updates (fewer leave too little to share), where the
    /// partitioned sum does not apply.
    pub(super) fn shared_sum(&self) -> bool {
        let acc = matches!(
            self.dtype,
            DType::F32 | DType::F64 | DType::I32 | DType::U32 | DType::I64 | DType::U64
        );
        let sizes = self
            .outer
            .checked_mul(self.n)
            .and_then(|o| o.checked_mul(self.inner))
            .zip(
                self.outer
                    .checked_mul(self.k)
                    .and_then(|o| o.checked_mul(self.inner)),
            );
        !self.det
            && self.op == Reduce::Add
            && acc
            && self.partitions().is_none()
            && sizes.is_some_and(|(n_out, m)| n_out > 0 && n_out <= SH_ADD_MAX && m >= 1 << 16)
    }

    /// The binned form of a deterministic `f32` sum, `(w, bins)`, where it applies.
    ///
    /// An update `x = M * 2^(e - 149)` (`M` its 24-bit significand, `e` its biased exponent
    /// less one, `0..=253`) is added as the integer `M << (e mod w)` to bin `e / w` of its
    /// destination: one 64-bit integer atomic, no pass before it. `w = 40 - ceil(log2(m))`
    /// leaves headroom for all `m` updates in one bin (`|M << r| < 2^(23 + w)`), so every bin
    /// holds its exact sum in any order; the finishing pass adds the bins, lowest first, in
    /// `f64`. Taken where the bins and a flag word per destination take at most
    /// `max(2^24, m)` 64-bit words; otherwise (and for `f64`) the fixed-point form.
    pub(super) fn bins(&self) -> Option<(u32, usize)> {
        if !(self.det && self.op == Reduce::Add && self.dtype == DType::F32) {
            return None;
        }
        let m = self.outer.checked_mul(self.k)?.checked_mul(self.inner)?;
        let n_out = self.outer.checked_mul(self.n)?.checked_mul(self.inner)?;
        let h = if m <= 1 {
            0
        } else {
            64 - (m as u64 - 1).leading_zeros()
        };
        let w = 40u32.checked_sub(h).filter(|&w| w >= 1)?;
        let bins = 253 / w as usize + 1;
        let words = (bins + 1).checked_mul(n_out)?;
        (words <= BIN_WORDS_MIN.max(m)).then_some((w, bins))
    }
}
