//! CUDA sources of the radix sort: LSD passes of 8-bit digits over unsigned keys (see
//! [`super::keys`]) after one histogram of every pass's digits, one kernel a pass (a onesweep
//! pass: each block takes the next tile, ranks its digits in shared memory, finds where each
//! digit's run goes by a decoupled look-back over the tiles before it, and writes the tile's
//! elements sorted by digit), and a one-block-per-row sort for rows that fit in shared memory.
//! The first executed pass reads the input (keys made on the fly) and the last writes the
//! outputs (values and `i64` indices), so no pass of its own converts. Blocks are 256 threads;
//! item `j` of lane `l` of warp `w` of a tile is tile element `(w * items + j) * 32 + l`, the
//! order stability is defined by.
//!
//! The bodies are CUDA in `radix.cu` (device function templates specialised by their tile
//! sizes and pass variant) over the block helpers of `block.cu`; each entry point here is
//! rendered from its typed parameter list (`params.rs`) as a call of its body.

use super::keys::{KeySpec, c_helpers};
use super::params as P;
use crate::codegen::{KernelSource, entry};

/// Marks where the helpers end and the kernel begins (as the library's other kernels do).
pub(crate) const MARKER: &str = "// ---- cuprite-array kernel ----\n";

/// Items per thread of a tile for keys of `bits` bits (a tile is `256 * items` elements).
pub(crate) fn items(bits: u32) -> usize {
    if bits == 64 { 8 } else { 16 }
}

/// Elements per tile (and the longest row the one-block row sort takes).
pub(crate) fn tile(bits: u32) -> usize {
    256 * items(bits)
}

/// Items per thread of a device-wide pass's tile for keys of `bits` bits: as many as the
/// static shared memory of a block (48 KiB) takes with the tile's keys and indices staged.
/// Larger tiles mean fewer look-backs and less per-tile work an element.
pub(crate) fn pass_items(bits: u32) -> usize {
    if bits == 64 { 15 } else { 23 }
}

/// Elements per tile of a device-wide pass.
pub(crate) fn pass_tile(bits: u32) -> usize {
    256 * pass_items(bits)
}

/// Elements the histogram's blocks take in whole runs of (a multiple of its vector step for
/// every key width).
pub(crate) const HIST_UNIT: usize = 4096;

/// Base typedefs, the key helpers `keys` (empty for kernels that read no keys), a typed
/// `header`, the block helpers, a family's `bodies`, the marker and the `entry` point calling
/// one of them.
pub(crate) fn bodies_source(keys: &str, header: &str, bodies: &str, entry: &str) -> String {
    format!(
        "typedef unsigned long long u64t;\ntypedef long long i64t;\n{keys}{header}{BLOCK_HELPERS}{bodies}{MARKER}{entry}"
    )
}

/// Block-wide helpers shared by the sort kernels: an exclusive scan of one value per thread and
/// the stable ranking of a tile's digits.
const BLOCK_HELPERS: &str = include_str!("block.cu");

/// The radix sort's bodies: device function templates that the entry points below call.
const RADIX: &str = include_str!("radix.cu");

/// Shared memory of a tile: the ranking counters and match words (8 KiB each), reused for the
/// staged keys and indices (the one-block row sort).
fn smem_bytes(spec: KeySpec) -> usize {
    let t = tile(spec.bits);
    (t * (spec.bits.max(32) as usize / 8 + 4)).max(4096 * 4)
}

/// Where a pass's digits come from and where its elements go. Pass 0 of a device-wide sort
/// reads the input (`first`: keys by `tkey`, indices the positions); the last writes the
/// outputs (`last`: values by `tval`, `i64` indices within their row); the others move keys
/// and `u32` indices between scratch buffers. `row`: the digit is of the row number of the
/// index (`seg` elements a row), not of the key; a row pass is never the first (without a key
/// pass the input is in order already).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pass {
    pub first: bool,
    pub last: bool,
    pub row: bool,
}

impl Pass {
    /// Every variant a sort can launch.
    pub(crate) const ALL: [Pass; 6] = [
        Pass::new(true, false, false),
        Pass::new(true, true, false),
        Pass::new(false, false, false),
        Pass::new(false, true, false),
        Pass::new(false, false, true),
        Pass::new(false, true, true),
    ];

    pub(crate) const fn new(first: bool, last: bool, row: bool) -> Pass {
        Pass { first, last, row }
    }

    fn tag(self) -> String {
        format!(
            "{}{}{}",
            if self.first { "f" } else { "" },
            if self.row { "r" } else { "k" },
            if self.last { "l" } else { "" }
        )
    }
}

/// The source of a radix sort kernel: base typedefs, the key helpers of `spec`, the block
/// helpers and the radix bodies, the marker, then `entry` (an entry point calling its body).
fn radix_source(spec: KeySpec, entry: &str) -> String {
    format!(
        "typedef unsigned long long u64t;\ntypedef long long i64t;\n{}{BLOCK_HELPERS}{RADIX}{MARKER}{entry}",
        c_helpers(spec)
    )
}

/// Shared memory of the scatter: the staged keys and indices of a tile (the keys in tile order
/// while the tile is ranked; the ranking's match words and its counters, 8 KiB each, where the
/// indices go later).
fn stage_bytes(spec: KeySpec) -> usize {
    let t = pass_tile(spec.bits);
    let kb = t * (spec.bits.max(32) as usize / 8);
    (kb + t * 4).max(kb + 16384)
}

/// One pass: block `b` takes tile `ticket` (tiles in the order blocks start, so every tile
/// before a block's is held by a block that runs or ran); per tile it counts its digits and
/// publishes the counts in `status` (`status[tile * 256 + d]`: the count in the low 32 bits,
/// the pass's `epoch` (1, 2, ...) in bits 56–61, flag 1 in bit 62 for the tile's own count,
/// flag 2 in bit 63 for the count of every tile up to it; a word of another epoch is not
/// published yet, so the words are zeroed once a sort, not once a pass)
/// as soon as its ranking in shared memory has counted them, sums the counts of the tiles before
/// it by walking back to the first inclusive one (a decoupled look-back, one digit a thread), stages keys and indices sorted by
/// digit and writes each digit's run to its place: after every element of a smaller digit
/// (`totals`, this pass's histogram) and every element of its digit in the tiles before. The
/// first pass reads the input (`tkey`; the index is the position); the last writes values
/// (`tval`) and `i64` indices within their row (`seg` elements a row, `0`: one row) instead of
/// keys and `u32` indices. A null index input or output means no indices (the first pass has
/// them from the positions). The pass's tile ticket is the low `u32` of status word
/// `ntiles * 256 + epoch`.
pub(crate) fn scatter(spec: KeySpec, pass: Pass) -> KernelSource {
    let items = pass_items(spec.bits);
    let tile = pass_tile(spec.bits);
    let sm = stage_bytes(spec);
    let name = format!("cuprite_sort_onesweep_{}_{}", spec.dtype.name(), pass.tag());
    // Blocks an SM must hold at once: what caps the registers a thread gets (65536 / (256 · b)).
    // The keys wait in shared memory during the ranking, so 64 registers hold a thread's
    // digits and ranks without spilling; four blocks of 23-item tiles (48 KiB of shared memory
    // each) fit an SM; with fewer, the first pass takes more registers and fewer blocks an SM.
    let min_blocks = 4;
    // Tiles a look-back step reads at once (one round trip to L2 a step).
    let lb = 8;
    let body = format!(
        "sort_onesweep<{items}, {tile}, {lb}, {sm}, {}, {}, {}>",
        pass.first, pass.last, pass.row
    );
    let src = entry::<P::ScatterPass>(&name, &format!("256, {min_blocks}"), &body);
    KernelSource::new(name, radix_source(spec, &src))
}

/// The digit histogram of every pass: block `b` counts the input elements (keys by `tkey`) of
/// its run of `tpb` units of [`HIST_UNIT`] elements, from unit `b * tpb`, for every key pass `p`, and adds them to
/// `hist[p * 256 + d]`. The `sp` row passes' histograms (`rows` rows of `seg` elements) come
/// from the row count (block 0 writes them).
pub(crate) fn histogram(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sort_hist_{}", spec.dtype.name());
    let kp = spec.bits / 8;
    let tile = HIST_UNIT;
    // One set of counters, one plain shared atomic an element and pass, and few registers (a
    // thread holds one 16-byte vector of keys at a time): the occupancy, not the same-address
    // conflicts of the top digit, limits this kernel, so it keeps registers few rather than
    // counters many.
    let per = 16 / (spec.bits as usize / 8);
    let vecs = (8 / per).max(1);
    let step = 256 * vecs * per;
    debug_assert_eq!(tile % step, 0);
    let body = format!("sort_hist<{kp}, {tile}, {vecs}, {per}, {step}>");
    let src = entry::<P::Histogram>(&name, "256, 8", &body);
    KernelSource::new(name, radix_source(spec, &src))
}

/// The outputs of a sort that needs no pass (every key equal): values through `tkey` and
/// `tval` (NaN canonical) and the positions within their row (`seg` elements a row, `0`: one
/// row).
pub(crate) fn copy_out(spec: KeySpec) -> KernelSource {
    let name = format!("cuprite_sort_copy_{}", spec.dtype.name());
    let src = entry::<P::CopyOut>(&name, "256", "sort_copy_out");
    KernelSource::new(name, radix_source(spec, &src))
}

/// One block per row of at most [`tile`] elements: the whole LSD sort in shared memory.
pub(crate) fn rows(spec: KeySpec) -> KernelSource {
    let items = items(spec.bits);
    let tile = tile(spec.bits);
    let sm = smem_bytes(spec);
    let passes = spec.bits / 8;
    let name = format!("cuprite_sort_rows_{}", spec.dtype.name());
    let body = format!("sort_rows<{items}, {tile}, {sm}, {passes}>");
    let src = entry::<P::Rows>(&name, "256, 3", &body);
    KernelSource::new(name, radix_source(spec, &src))
}
