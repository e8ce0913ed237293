//! Indexing and assignment: integer-array gathers (`take`, `take_along_axis`, `index_select`,
//! `gather`), boolean masks, NumPy's general `index`, slice assignment, `put`, and scatters
//! with atomic or deterministic reductions.
//!
//! # What this module guarantees
//!
//! - **Index arrays** may be of any integer dtype; any other dtype is an `Err` naming it.
//!   Negative indices count from the end. With the default [`IndexMode::Error`] an index outside
//!   `[-n, n)` is an `Err` naming the value, its position and the axis; [`IndexMode::Clamp`]
//!   clamps into `[0, n)` (negative indices become 0, as NumPy's `mode="clip"`) and
//!   [`IndexMode::Wrap`] takes the index modulo `n` (NumPy's `mode="wrap"`). No kernel ever
//!   reads or writes out of bounds, whatever the mode.
//! - **Checking indices** (the `Error` mode): in `take`, `take_along_axis`, `index_select`,
//!   `gather` and the general `index` the check is part of the kernel that reads the indices
//!   (an out-of-range index raises a one-word flag and reads element 0), and the call realises
//!   its result and reads the flag back before returning: the result is evaluated at once. On
//!   CUDA the flag is a word of mapped host memory (cleared by the host, read after a
//!   synchronisation, no copy), or a device word when none is free.
//!   The scatters (`scatter*`, `index_add`) raise the same flag from their update passes (an
//!   out-of-range update is skipped) and read it back likewise; u64 indices are checked first
//!   instead. `put` and `assign_index` check with one fused reduction over the index array,
//!   read back before the assignment is built. Either way the call synchronises, which the
//!   `Clamp` and `Wrap` modes do not.
//! - **Indices of known range need no check.** An integer array knows bounds on its values when
//!   they follow from how it was made: `randint`, `arange`, constants, uploads of up to 64 Ki
//!   elements, the positions `argsort`, `argmin`/`argmax`, `topk` and `searchsorted` return,
//!   and what `min`/`max`/`clamp`, `%` by a positive divisor, selections, casts
//!   that keep every value, and sums or products that cannot wrap make of those; views and
//!   realisation keep them. When those bounds lie inside `[-n, n)` the `Error` mode skips the
//!   check: the call stays lazy, as in the other modes, and does not synchronise. Other index
//!   arrays (large uploads, foreign memory, values computed through floats) are checked.
//! - **Arrays are values.** Assignment (`assign`, `fill`, `put`) replaces `self` with a new
//!   array and never writes memory another array can see: clones, views and slices taken before
//!   keep their values (copy-on-write; the copy is the one pass that writes the result). Scatter
//!   operations return a new array and leave `self` as it is.
//! - **Duplicate indices.** `put`, `assign_index` and `scatter` with
//!   [`ScatterOpts::deterministic`] let the last update in index order win (NumPy's
//!   `a[idx] = v`); without it (the default) one of the duplicates wins, which one unspecified
//!   on CUDA (on the CPU backend it is the last). `scatter_add`/`index_add` sum all duplicates:
//!   on CUDA with atomics by default (the order, and so the rounding of float sums, varies from
//!   run to run; integers wrap and are exact), or, deterministically, as exact integer sums:
//!   **binned** for f32 (and f16/bf16, which accumulate in f32): each update is split into its
//!   24-bit significand and an exponent bin and added as a 64-bit integer to that bin of its
//!   destination (one integer atomic an update; the bins are wide enough that no count of
//!   updates overflows them), then each destination's bins are added in f64, lowest first, and
//!   rounded once: magnitudes far apart cancel exactly and the result is within one f32
//!   spacing of the exact sum (in practice correctly rounded). Where the bins would take more
//!   than `max(2^24, updates)` words of scratch (very many destinations, few updates), and for
//!   f64, the sum is in **fixed point**: each destination's updates are rounded to a common
//!   quantum (`2^-s` with 62 bits for the largest magnitude less `ceil(log2(count))` bits of
//!   headroom, found by a first pass) and summed exactly as 64-bit integers. Either way the
//!   result has the same bits on every run **and on both backends**, whatever the order of
//!   the updates. NaN and infinities follow IEEE addition. (Integer sums rather than a sort
//!   by index: no multi-pass radix sort of the indices, and the result does not depend on
//!   the order of anything, not even on the backend.) The CPU backend's default (atomic) mode sums sequentially in update order (the exact reference).
//!   `scatter_max`/`scatter_min` are deterministic in both modes (NaN propagates as the
//!   canonical quiet NaN; `-0 < +0`).
//! - **Half types and small integers** accumulate in a wider type: f16/bf16 in f32 (rounded
//!   once at the end), 8/16-bit integers in 32-bit (wrapping, so the same bits as wrapping in
//!   their own type); `bool` adds as OR, maxes as OR and mins as AND. Complex scatters with a
//!   reduction are an `Err` (`put`/`scatter` of complex values are fine).
//!
//! - **`gather`** is [`index_select`](crate::Array::index_select) under its older name. Before
//!   this module it clamped out-of-range indices; it now returns an `Err` like every indexing
//!   function (`take_with(.., TakeOpts::new().mode(IndexMode::Clamp))` keeps the old
//!   behaviour). PyTorch's n-d `gather` is [`take_along_axis`](crate::Array::take_along_axis).
//! - The general [`Array::index`](crate::Array::index) follows NumPy's rules for where the
//!   axes of advanced indices go: see [`Idx`].
//!
//! # How it is evaluated
//!
//! Gathers are **fused element-wise loads**: the flat source offset of each output element is
//! an element-wise expression of the index arrays and coordinates, and the kernel that
//! computes it reads the (contiguous, realised) source at that offset, so the index
//! arithmetic, the check and the gather are one kernel; in the `Clamp` and `Wrap` modes
//! `take_with(x, i, ..) * 2` fuses whatever consumes the gather into it too (a gather then
//! needs no kernel of its own), while the `Error` mode realises the gather to read its flag.
//! Scatters are a library call (`call.rs`, a fusion boundary):
//! they copy the base once, then run one kernel per pass over the updates (a library call
//! rather than an element-wise node because the writes go to computed places and reduce).
//! Large atomic `f32` sums of scalar updates (`index_add` of millions of values into 2^16 to
//! 2^21 destinations) take two passes instead of one atomic a update: the updates are grouped
//! by destination range in shared memory, then each range is summed in shared memory and added
//! to the output once (see `ScatterCall::partitions`); the sum's order, so its rounding, is
//! unspecified either way. Boolean masks read their true count back to the host (the result's shape depends on it):
//! a cumulative count gives each true element its slot, and a scatter writes positions there.

mod call;
mod cuda;
mod desc;
mod general;
mod gpu;
mod put;
mod scatter;
mod take;

pub use general::{Idx, IndexArray};

use crate::array::{Array, expand};
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{Node, Op};
use crate::schedule::contiguous_storage;
use std::sync::Arc;

/// What an index outside its axis does (see the module docs): NumPy's `mode=` of `take`,
/// `put` and `choose`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexMode {
    /// NumPy's `"raise"` (the default): an `Err` naming the index.
    #[default]
    Error = 0,
    /// NumPy's `"clip"`: clamped into `[0, n)` (so negative indices become 0 and do not count
    /// from the end, as in NumPy).
    Clamp = 1,
    /// NumPy's `"wrap"`: taken modulo `n` (so `-1` is the last element, `n` the first).
    Wrap = 2,
}

/// Options of [`take_with`](crate::Array::take_with): NumPy's `axis` (default `None`: the
/// flattened array) and `mode` (default [`IndexMode::Error`], NumPy's `"raise"`).
///
/// ```
/// use cuprite_array::{Array, ops::{IndexMode, TakeOpts}};
/// let a = Array::from_slice(&[10, 11, 12, 13, 14, 15], &[2, 3])?;
/// let i = Array::from_slice(&[4i32, -1], &[2])?;
/// let o = TakeOpts::new().axis(1).mode(IndexMode::Clamp);
/// assert_eq!(a.take_with(&i, o)?.to_vec()?, [12, 10, 15, 13]);
/// assert_eq!(TakeOpts::new(), TakeOpts::default());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct TakeOpts {
    pub(crate) axis: Option<isize>,
    pub(crate) mode: IndexMode,
}

impl TakeOpts {
    /// NumPy's defaults (`axis=None`, `mode="raise"`).
    pub fn new() -> Self {
        Self::default()
    }
    /// Take along `axis` (negative counts from the end; `None`: of the flattened array).
    pub fn axis(self, axis: impl Into<Option<isize>>) -> Self {
        TakeOpts {
            axis: axis.into(),
            ..self
        }
    }
    /// What out-of-range indices do.
    pub fn mode(self, mode: IndexMode) -> Self {
        TakeOpts { mode, ..self }
    }
}

/// Options of the scatter operations.
///
/// ```
/// use cuprite_array::ops::{IndexMode, ScatterOpts};
/// let o = ScatterOpts { deterministic: true, ..Default::default() };
/// assert_eq!(o.mode, IndexMode::Error);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScatterOpts {
    /// Same bits run to run: last write wins for `scatter`, exact integer sums (binned or
    /// fixed point) for float `scatter_add`/`index_add` (see the module docs).
    pub deterministic: bool,
    /// What out-of-range indices do.
    pub mode: IndexMode,
}

/// `Err` unless `dtype` is an integer dtype (the dtype of an index array).
pub(crate) fn check_int(dtype: DType, what: &str) -> Result<()> {
    if dtype.is_int() {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what} must be an array of an integer dtype, not {dtype}"
        )))
    }
}

/// The index node `raw` (integer) as i64 offsets into an axis of extent `n`: negative indices
/// counted from the end, the mode applied; in the `Error` mode checked now (one reduction and
/// a read-back), an `Err` naming the first offending index.
/// `raw` with `u64` indices above `i64::MAX` brought into range as `mode` says while still
/// unsigned (Clamp: to `n - 1`; Wrap: modulo `n`): every index path casts indices to `i64`,
/// where such a value would turn negative and be clamped to 0 or wrapped from the end. Other
/// dtypes, and the `Error` mode (which reports those values), pass through unchanged.
pub(crate) fn unsigned_in_range(raw: &Arc<Node>, n: usize, mode: IndexMode) -> Arc<Node> {
    if raw.dtype != DType::U64 || n == 0 {
        return raw.clone();
    }
    let u = Array::<u64>::from_node(raw.clone());
    let r = match mode {
        IndexMode::Clamp => u.clamp(0u64, (n - 1) as u64),
        IndexMode::Wrap => u.rem(n as u64),
        IndexMode::Error => return raw.clone(),
    };
    r.node
}

pub(crate) fn normalize(
    raw: &Arc<Node>,
    n: usize,
    mode: IndexMode,
    what: &str,
) -> Result<Array<i64>> {
    check_int(raw.dtype, what)?;
    let raw = &unsigned_in_range(raw, n, mode);
    let signed = raw.dtype.is_signed_int();
    let i = Array::<i64>::from_node(crate::array::cast_node(raw, DType::I64));
    if crate::shape::numel(&raw.shape) == 0 {
        return Ok(i);
    }
    let ni = i64::try_from(n)
        .map_err(|_| Error::Index(format!("{what}: axis extent {n} is too large")))?;
    if n == 0 {
        return Err(Error::Index(format!(
            "{what}: {} index(es) into an axis of extent 0: no element to index",
            crate::shape::numel(&raw.shape)
        )));
    }
    match mode {
        IndexMode::Clamp => Ok(i.clamp(0i64, ni - 1)),
        // The remainder takes the divisor's sign: already in [0, n).
        IndexMode::Wrap => Ok(i.rem(ni)),
        IndexMode::Error => {
            let known = known_in_range(raw, n);
            let negative = raw.range().is_none_or(|r| r.lo < 0);
            let norm = if signed && negative {
                Array::select(&i.less(0i64), &i.try_add(ni)?, &i)?
            } else {
                i.clone()
            };
            if known {
                return Ok(norm);
            }
            // Unsigned indices above i64::MAX wrapped negative in the cast: out of range too.
            let bad = norm.less(0i64).or(norm.greater_equal(ni));
            if bad.any()?.item()? {
                let at = bad.flatten()?.argmax()?.item()? as usize;
                let shown = raw_value(raw, at)?;
                return Err(Error::Index(format!(
                    "{what}: index {shown} (at flat position {at}) is out of range for an axis \
                     of extent {n}"
                )));
            }
            Ok(norm)
        }
    }
}

/// Whether the value range of the integer node `raw` (see [`crate::range`]) shows that every
/// index is valid for an axis of extent `n` (within `[-n, n)`): the `Error` mode then needs no
/// check, and no synchronisation.
pub(crate) fn known_in_range(raw: &Arc<Node>, n: usize) -> bool {
    let Ok(ni) = i64::try_from(n) else {
        return false;
    };
    n > 0 && raw.range().is_some_and(|r| r.within(-ni, ni - 1))
}

/// A one-word flag that the checked indices of [`Op::CheckIndex`] raise: made zero on the
/// indices' device before the kernel that reads them, read back after it, both by the
/// device's backend ([`crate::backend::Executor::flag_word`]).
pub(crate) struct IndexFlag {
    word: crate::backend::FlagWord,
    device: crate::device::Device,
}

impl IndexFlag {
    pub(super) fn new(device: crate::device::Device) -> Result<IndexFlag> {
        let word = crate::backend::of(device).flag_word(device)?;
        Ok(IndexFlag { word, device })
    }

    /// The flag as a leaf node (an input of a checked scatter).
    pub(super) fn node(&self) -> Arc<Node> {
        Node::new(
            Op::Leaf(
                self.word.storage.clone(),
                crate::shape::Layout::contiguous(&[1]),
            ),
            DType::U32,
            vec![1],
            self.device,
        )
    }

    /// Whether a kernel raised the flag (on CUDA a synchronisation).
    fn raised(&self) -> Result<bool> {
        crate::backend::of(self.device).flag_raised(&self.word)
    }
}

/// [`normalize`] with the `Error` mode's check fused into the kernel that will use the
/// indices (no pass of its own over them, no synchronisation before the result is built):
/// the indices are [`Op::CheckIndex`] nodes, and the caller hands its result to
/// [`checked_result`] with the flag returned here. Other modes, and empty index arrays, are
/// [`normalize`] with no flag.
pub(crate) fn normalize_fused(
    raw: &Arc<Node>,
    n: usize,
    mode: IndexMode,
    what: &str,
) -> Result<(Array<i64>, Option<IndexFlag>)> {
    if mode != IndexMode::Error
        || crate::shape::numel(&raw.shape) == 0
        || n == 0
        || known_in_range(raw, n)
    {
        return Ok((normalize(raw, n, mode, what)?, None));
    }
    check_int(raw.dtype, what)?;
    let flag = IndexFlag::new(raw.device)?;
    let i = flag.check(raw, n, what)?;
    Ok((i, Some(flag)))
}

impl IndexFlag {
    /// `raw` (an integer node, not empty) as checked i64 indices into an axis of `n > 0`
    /// raising this flag (one flag may serve several index arrays of one call).
    pub(super) fn check(&self, raw: &Arc<Node>, n: usize, what: &str) -> Result<Array<i64>> {
        check_int(raw.dtype, what)?;
        let ni = i64::try_from(n)
            .map_err(|_| Error::Index(format!("{what}: axis extent {n} is too large")))?;
        let i = crate::array::cast_node(raw, DType::I64);
        let node = Node::new(
            Op::CheckIndex(self.word.storage.clone(), ni, raw.dtype.is_signed_int(), i),
            DType::I64,
            raw.shape.clone(),
            raw.device,
        );
        Ok(Array::from_node(node))
    }
}

/// `out` (built on indices from [`normalize_fused`]) realised and, when the flag was raised,
/// the `Err` of the unfused check (`recheck`, which names the first offending index).
pub(crate) fn checked_result<T: Element>(
    out: Array<T>,
    flag: Option<IndexFlag>,
    recheck: impl FnOnce() -> Result<()>,
) -> Result<Array<T>> {
    let Some(flag) = flag else {
        return Ok(out);
    };
    out.eval()?;
    if flag.raised()? {
        recheck()?;
        return Err(Error::Index(
            "an index out of range (found by the kernel that read it; not found again)".into(),
        ));
    }
    Ok(out)
}

/// The value of an integer node at flat position `at`, for messages.
fn raw_value(raw: &Arc<Node>, at: usize) -> Result<String> {
    let a = Array::<i64>::from_node(crate::array::cast_node(raw, DType::I64)).flatten()?;
    let v = a
        .slice(&[crate::shape::SliceArg::Index(at as isize)])?
        .item()?;
    Ok(if raw.dtype == DType::U64 {
        (v as u64).to_string()
    } else {
        v.to_string()
    })
}

/// The i64 coordinate along axis `d` of `shape` on `device`: a lazy node computed where it
/// is used (no memory), `Err` when `d` is not an axis of `shape`.
pub(crate) fn coord(d: usize, shape: &[usize], device: Device) -> Result<Arc<Node>> {
    if d >= shape.len() {
        return Err(Error::Shape(format!(
            "axis {d} of a coordinate of shape {shape:?}"
        )));
    }
    Ok(Node::new(Op::Iota(d), DType::I64, shape.to_vec(), device))
}

/// `node` (of shape `s`) placed on axes `at..at + s.len()` of `out` and broadcast to it.
pub(crate) fn place(node: &Array<i64>, at: usize, out: &[usize]) -> Result<Arc<Node>> {
    let mut s = vec![1; out.len()];
    s[at..at + node.ndim()].copy_from_slice(node.shape());
    Ok(expand(&node.reshape(&s)?.node, out))
}

/// `Σ terms[k] · strides[k]` as one i64 node of `shape` (0 when there are no terms).
pub(crate) fn flat_offset(terms: &[(Arc<Node>, i64)], shape: &[usize]) -> Result<Array<i64>> {
    let mut acc: Option<Array<i64>> = None;
    for (t, s) in terms {
        let term = Array::<i64>::from_node(t.clone());
        let term = if *s == 1 { term } else { term.try_mul(*s)? };
        acc = Some(match acc {
            None => term,
            Some(a) => a.try_add(&term)?,
        });
    }
    let a = match acc {
        Some(a) => a,
        None => Array::<i64>::scalar(0),
    };
    Ok(Array::from_node(expand(&a.node, shape)))
}

/// `src` (realised contiguously) read at the flat offsets `flat` (of the output's shape): an
/// element-wise load that fuses with the offset arithmetic and with later element-wise work.
pub(crate) fn gather_flat<T: Element>(src: &Array<T>, flat: &Array<i64>) -> Result<Array<T>> {
    crate::array::check_devices(&[&src.node, &flat.node])?;
    let shape = flat.shape().to_vec();
    if crate::shape::numel(&shape) == 0 {
        return Ok(crate::device::with_device(src.device(), || {
            Array::zeros(&shape)
        }));
    }
    if src.is_empty() {
        return Err(Error::Index(format!(
            "a gather of {} element(s) from an empty array of shape {:?}",
            flat.len(),
            src.shape()
        )));
    }
    let s = contiguous_storage(&src.node)?;
    let n = Node::new(
        Op::Gather(s, src.len(), flat.node.clone()),
        T::DTYPE,
        shape,
        src.device(),
    );
    Ok(Array::from_node(n))
}

/// Row-major strides of `shape` as i64.
pub(crate) fn strides_i64(shape: &[usize]) -> Vec<i64> {
    crate::shape::contiguous_strides(shape)
        .iter()
        .map(|&s| s as i64)
        .collect()
}
