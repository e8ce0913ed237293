//! Entry points of selection and of the passes over sorted data: radix selection of the
//! element of a given rank by the composite key (value key, then index: a total order, so the
//! selected element and the set before it are unique), quantiles and modes of sorted rows,
//! run flags and compaction for `unique` and the set operations, an exclusive scan of `u32`
//! flags, and a gather by sort permutation.
//!
//! The bodies are CUDA device functions: in `select.cu` those that read keys (built after the
//! key helpers of the sorted dtype), in `passes.cu` those that do not. Each entry point here is
//! rendered from its typed parameter list (`params.rs`) as a call of its body; the only text a
//! kernel adds is its typed header (the bits of a quantile's dtype, a gathered word's type, the
//! chunk and tile constants).

use super::kernels::bodies_source;
use super::keys::{KeySpec, c_helpers};
use super::params as P;
use crate::codegen::{KernelParams, KernelSource, entry};
use crate::dtype::DType;

/// The bodies that read keys.
const SELECT: &str = include_str!("select.cu");

/// The bodies that need no key type.
const PASSES: &str = include_str!("passes.cu");

/// Elements a block of the run compaction ([`run_count`], [`run_write`]) takes: 8 a thread,
/// thread `t` holding elements `8 t .. 8 t + 8` of the chunk (so a block scan of the per-thread
/// counts ranks them in order).
pub(crate) const RUN_CHUNK: usize = 2048;

/// Elements scanned per block by the flag scan.
pub(crate) const SCAN_TILE: usize = 4096;

/// A kernel over keys of `spec`: entry point `name` of parameters `P` calling body `body` of
/// `select.cu`, after `header`.
fn keyed<'a, Q: KernelParams<'a>>(
    spec: KeySpec,
    name: String,
    header: &str,
    body: &str,
) -> KernelSource {
    let head = format!("constexpr unsigned long long RUN_CHUNK = {RUN_CHUNK};\n{header}");
    let e = entry::<Q>(&name, "256", body);
    KernelSource::new(name, bodies_source(&c_helpers(spec), &head, SELECT, &e))
}

/// A kernel that reads no keys: entry point `name` of parameters `P` calling body `body` of
/// `passes.cu`, after `header`.
fn plain<'a, Q: KernelParams<'a>>(name: String, header: &str, body: &str) -> KernelSource {
    let head = format!("constexpr unsigned long long SCAN_TILE = {SCAN_TILE};\n{header}");
    let e = entry::<Q>(&name, "256", body);
    KernelSource::new(name, bodies_source("", &head, PASSES, &e))
}

/// Histogram of the top digit of every element's key; counts NaNs.
pub(crate) fn sel_hist0(spec: KeySpec) -> KernelSource {
    keyed::<P::SelHist0>(
        spec,
        format!("cuprite_sel_hist0_{}", spec.dtype.name()),
        "",
        "sort_sel_hist0",
    )
}

/// The elements whose top `jm` key digits (1 or 2, at most the key's) are the selected prefix,
/// as (key, index) candidates (in no particular order; appended a warp at a time, one atomic
/// per warp and step where a lane matches: no block-wide scan or barrier per chunk, so the
/// pass never waits on its neighbours' loads).
pub(crate) fn sel_compact(spec: KeySpec) -> KernelSource {
    keyed::<P::SelCompact>(
        spec,
        format!("cuprite_sel_compact_{}", spec.dtype.name()),
        "",
        "sort_sel_compact",
    )
}

/// Histogram of digit `j` of every element of `x` that matches the prefix so far (a full pass
/// that writes nothing else: what narrows the candidates before they are copied out).
pub(crate) fn sel_hist_x(spec: KeySpec) -> KernelSource {
    keyed::<P::SelHistX>(
        spec,
        format!("cuprite_sel_hist_x_{}", spec.dtype.name()),
        "",
        "sort_sel_hist_x",
    )
}

/// Histogram of digit `j` among the candidates (`state[cw]` of them) that match the prefix so
/// far.
pub(crate) fn sel_hist(spec: KeySpec) -> KernelSource {
    keyed::<P::SelHist>(
        spec,
        format!("cuprite_sel_hist_{}", spec.dtype.name()),
        "",
        "sort_sel_hist",
    )
}

/// The candidates (`state[3]`) that match the prefix of `j` digits, appended to a second
/// buffer (counted in `state[6]`).
pub(crate) fn sel_refine(spec: KeySpec) -> KernelSource {
    keyed::<P::SelRefine>(
        spec,
        format!("cuprite_sel_refine_{}", spec.dtype.name()),
        "",
        "sort_sel_refine",
    )
}

/// Every element at or before the selected one in composite order (exactly rank + 1 of them).
pub(crate) fn sel_collect(spec: KeySpec) -> KernelSource {
    keyed::<P::SelCollect>(
        spec,
        format!("cuprite_sel_collect_{}", spec.dtype.name()),
        "",
        "sort_sel_collect",
    )
}

/// Sorts the `kk` (at most 1024) collected elements by composite key (one block) and writes
/// their values and indices.
pub(crate) fn sel_sortk(spec: KeySpec) -> KernelSource {
    keyed::<P::SelSortK>(
        spec,
        format!("cuprite_sel_sortk_{}", spec.dtype.name()),
        "",
        "sort_sel_sortk",
    )
}

/// Writes the selected element (value, index) at `pos`; at `nanpos` (unless all ones) its
/// value again, or NaN when the input had a NaN.
pub(crate) fn sel_value(spec: KeySpec) -> KernelSource {
    keyed::<P::SelValue>(
        spec,
        format!("cuprite_sel_value_{}", spec.dtype.name()),
        "",
        "sort_sel_value",
    )
}

/// The most frequent value of each sorted row (the smallest among equally frequent ones) and
/// its count; one block a row.
pub(crate) fn mode(spec: KeySpec) -> KernelSource {
    keyed::<P::Mode>(
        spec,
        format!("cuprite_mode_{}", spec.dtype.name()),
        "",
        "sort_mode",
    )
}

/// Run flags of a sorted array: 0 = first of each run of equal values (`unique`, `union1d`);
/// 1 = first of a run of two or more (`intersect1d` of two unique arrays); 2 = a run of one
/// that came from the first array (`perm < na`: `setdiff1d`).
pub(crate) fn run_flags(spec: KeySpec) -> KernelSource {
    keyed::<P::RunFlags>(
        spec,
        format!("cuprite_runs_{}", spec.dtype.name()),
        "",
        "sort_run_flags",
    )
}

/// The number of flagged elements (see [`run_flags`]) of each chunk of [`RUN_CHUNK`] sorted
/// elements: `counts[chunk]`, one block a chunk.
pub(crate) fn run_count(spec: KeySpec) -> KernelSource {
    keyed::<P::RunCount>(
        spec,
        format!("cuprite_run_count_{}", spec.dtype.name()),
        "",
        "sort_run_count",
    )
}

/// Writes each chunk's flagged elements in order from `offsets[chunk]` (the exclusive scan of
/// [`run_count`]'s counts): `out[offsets[chunk] + rank] = s[i]`.
pub(crate) fn run_write(spec: KeySpec) -> KernelSource {
    keyed::<P::RunWrite>(
        spec,
        format!("cuprite_run_write_{}", spec.dtype.name()),
        "",
        "sort_run_write",
    )
}

/// The outputs of `unique` from the sorted values, their permutation, the run flags and the
/// exclusive scan of the flags (`ids`); any output pointer may be null.
pub(crate) fn unique_out(spec: KeySpec) -> KernelSource {
    keyed::<P::UniqueOut>(
        spec,
        format!("cuprite_unique_out_{}", spec.dtype.name()),
        "",
        "sort_unique_out",
    )
}

/// The first index of each run is the least original index in it: a run of equal values can
/// hold several bit patterns (`-0.0` sorted before `+0.0`, NaNs of other payloads), each
/// sub-run in original order (the sort is stable), so each sub-run's first element after the
/// run's own first offers its index with an atomic minimum. Runs after [`unique_out`] wrote
/// every run's first element.
pub(crate) fn unique_first_min(spec: KeySpec) -> KernelSource {
    keyed::<P::UniqueFirstMin>(
        spec,
        format!("cuprite_unique_first_min_{}", spec.dtype.name()),
        "",
        "sort_unique_first_min",
    )
}

/// Picks the digit the rank falls in (one block): extends the prefix, lowers the rank, clears
/// the histogram for the next pass.
pub(crate) fn sel_step() -> KernelSource {
    plain::<P::SelStep>("cuprite_sel_step".to_string(), "", "sort_sel_step")
}

/// Run lengths from run starts: `counts[u] = starts[u + 1] - starts[u]` (`n` after the last).
pub(crate) fn run_counts() -> KernelSource {
    plain::<P::RunCounts>("cuprite_unique_counts".to_string(), "", "sort_run_counts")
}

/// Exclusive scan of `u32` values, first level: each block scans its tile in place and writes
/// the tile's sum.
pub(crate) fn scan_tiles() -> KernelSource {
    plain::<P::ScanTiles>(
        "cuprite_sort_xscan_tiles".to_string(),
        "",
        "sort_scan_tiles",
    )
}

/// Second level (one block): exclusive scan of the tile sums; `sums[ntiles]` gets the total.
pub(crate) fn scan_sums() -> KernelSource {
    plain::<P::ScanSums>("cuprite_sort_xscan_sums".to_string(), "", "sort_scan_sums")
}

/// Third level: adds each tile's offset.
pub(crate) fn scan_add() -> KernelSource {
    plain::<P::ScanAdd>("cuprite_sort_xscan_add".to_string(), "", "sort_scan_add")
}

/// The C type of the bits of a quantile's dtype `out` and its conversion code in
/// `sel_outconv` (`select.cu`).
fn out_bits(out: DType) -> (&'static str, u32) {
    match out {
        DType::F64 => ("unsigned long long", 0),
        DType::F32 => ("unsigned", 1),
        DType::F16 => ("unsigned short", 2),
        _ => ("unsigned short", 3),
    }
}

/// Quantiles of sorted rows: per row, from elements `lo` and `hi` (method 0: NumPy's lerp with
/// weight `t`; 1: element `lo`; 2: the mean of the two), NaN when the row's last element is.
pub(crate) fn pick(spec: KeySpec, out: DType) -> KernelSource {
    let name = format!("cuprite_quantile_{}_{}", spec.dtype.name(), out.name());
    let (ob, code) = out_bits(out);
    let header = format!("typedef {ob} OutT;\n");
    keyed::<P::Pick>(spec, name, &header, &format!("sort_pick<OutT, {code}>"))
}

/// `out[i] = v[row(i) * n + perm[i]]` for elements of `size` bytes (`sort_by_key`'s values).
pub(crate) fn gather(size: usize) -> KernelSource {
    let ty = match size {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned",
        8 => "unsigned long long",
        _ => "ulonglong2",
    };
    let header = format!("typedef {ty} WordT;\n");
    plain::<P::Gather>(
        format!("cuprite_sort_gather_{size}"),
        &header,
        "sort_gather<WordT>",
    )
}
