//! Reductions: over everything or along axes, with the element-wise producer fused in.
//!
//! The producer graph is permuted (as views of its leaves) so that kept axes come first and
//! reduced axes last; the backend then reduces `outer x inner` in one fused kernel (no
//! intermediate array). Reductions evaluate at once and return materialised arrays.

use crate::array::{Array, cast_node};
use crate::backend;
use crate::dtype::{DType, Element, Float, Numeric, Ordered};
use crate::error::Result;
use crate::graph::{Node, Op, Program, ViewFn, push_view};
use crate::ops::ReduceOp;
use crate::ops::elementwise::{binary_node, unary_node};
use crate::ops::index::IndexMode;
use crate::ops::{BinaryOp, UnaryOp};
use crate::ops::{ReduceOpts, VarOpts};
use crate::schedule::{realize, with_oom_retry};
use crate::shape::{Layout, axis};
use std::sync::Arc;

struct Permute<'a>(&'a [usize]);
impl ViewFn for Permute<'_> {
    fn layout(&self, l: &Layout) -> Option<Layout> {
        Some(l.permute(self.0))
    }
}

/// Permutes a node's axes (a view of its leaves).
pub(crate) fn permute_node(n: &Arc<Node>, perm: &[usize]) -> Result<Arc<Node>> {
    let shape: Vec<usize> = perm.iter().map(|&p| n.shape[p]).collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(n.clone());
    }
    if let Some(c) = n.is_const() {
        return Ok(Node::new(Op::Const(c), n.dtype, shape, n.device));
    }
    if let Some(m) = push_view(n, &shape, &Permute(perm)) {
        return Ok(m);
    }
    realize(std::slice::from_ref(n))?;
    Ok(push_view(n, &shape, &Permute(perm)).expect("a leaf permutes"))
}

/// Reduces `n` over `axes` (normalised, any order) with `op`.
pub(crate) fn reduce_node(
    n: &Arc<Node>,
    op: ReduceOp,
    axes: &[usize],
    keepdims: bool,
) -> Result<Arc<Node>> {
    Ok(reduce_then(n, op, axes, keepdims, None)?.0)
}

/// Sums `n` (a float or complex dtype) over `axes` (normalised, any order) and divides every
/// sum by `count`, in the sum's dtype as an element-wise division by the constant would
/// (NumPy's mean: the sum, then the division). For `f32` and `f64` the division is folded into
/// the reduction's kernel where the backend can, giving a realised result; otherwise it is a
/// lazy division of the sums, which later element-wise work fuses onto. (A lazy `f16`/`bf16`
/// quotient is carried in `f32` into the work fused onto it, so folding, which rounds it to
/// its dtype, would change their values.)
fn sum_div_node(n: &Arc<Node>, axes: &[usize], keepdims: bool, count: f64) -> Result<Arc<Node>> {
    let divisor = crate::dtype::Scalar::F64(count).cast(n.dtype);
    let fold = matches!(n.dtype, DType::F32 | DType::F64).then(|| divisor.to_f64_lossy());
    match reduce_then(n, ReduceOp::Sum, axes, keepdims, fold)? {
        (s, true) if fold.is_some() => Ok(s),
        (s, _) => div_count(&s, count),
    }
}

/// [`reduce_node`], and for a sum with `div` (a value of the output dtype), whether the
/// backend divided the results by it already (folded into the reduction's last kernel).
fn reduce_then(
    n: &Arc<Node>,
    op: ReduceOp,
    axes: &[usize],
    keepdims: bool,
    div: Option<f64>,
) -> Result<(Arc<Node>, bool)> {
    crate::shape::checked_numel(&n.shape)?;
    let nd = n.shape.len();
    let mut red: Vec<usize> = axes.to_vec();
    red.sort_unstable();
    red.dedup();
    let kept: Vec<usize> = (0..nd).filter(|a| !red.contains(a)).collect();
    let perm: Vec<usize> = kept.iter().chain(red.iter()).copied().collect();
    let p = permute_node(n, &perm)?;
    let outer: usize = kept.iter().map(|&a| n.shape[a]).product();
    let inner: usize = red.iter().map(|&a| n.shape[a]).product();
    // Only floats hold NaNs: the NaN-ignoring forms of other dtypes are the plain ones.
    let op = match op {
        _ if n.dtype.is_float() => op,
        ReduceOp::NanMin => ReduceOp::Min,
        ReduceOp::NanMax => ReduceOp::Max,
        ReduceOp::NanArgMin => ReduceOp::ArgMin,
        ReduceOp::NanArgMax => ReduceOp::ArgMax,
        _ => op,
    };
    if inner == 0
        && outer > 0
        && (op.is_arg()
            || matches!(
                op,
                ReduceOp::Min | ReduceOp::Max | ReduceOp::NanMin | ReduceOp::NanMax
            ))
    {
        return Err(crate::Error::InvalidArgument(format!(
            "{op:?} of an empty array (shape {:?}, reduced along axes {red:?}) has no value",
            n.shape
        )));
    }
    let out_d = op.result(n.dtype);
    let out_shape: Vec<usize> = if keepdims {
        (0..nd)
            .map(|a| if red.contains(&a) { 1 } else { n.shape[a] })
            .collect()
    } else {
        kept.iter().map(|&a| n.shape[a]).collect()
    };
    crate::schedule::realize_calls_below(std::slice::from_ref(&p))?;
    let prog = Program::build(&[p]);
    let dev = n.device;
    let (s, divided) = with_oom_retry(dev, || match div {
        Some(d) if op == ReduceOp::Sum => {
            backend::of(dev).sum_then_divide(dev, &prog, (outer, inner), out_d, d)
        }
        _ => Ok((
            backend::of(dev).reduce(dev, &prog, op, outer, inner, out_d)?,
            false,
        )),
    })?;
    let leaf = Node::new(
        Op::Leaf(s, Layout::contiguous(&out_shape)),
        out_d,
        out_shape,
        dev,
    );
    Ok((leaf, divided))
}

fn all_axes(nd: usize) -> Vec<usize> {
    (0..nd).collect()
}

/// Normalised axes; an axis named twice (`[1, -1]` of a 2-D array) is an `Err`, as in NumPy.
fn norm_axes(axes: &[isize], nd: usize) -> Result<Vec<usize>> {
    let v: Vec<usize> = axes.iter().map(|&a| axis(a, nd)).collect::<Result<_>>()?;
    for (i, a) in v.iter().enumerate() {
        if v[..i].contains(a) {
            return Err(crate::Error::Axis(format!(
                "axis {a} is named twice in the reduction axes {axes:?} (of a {nd}-D array)"
            )));
        }
    }
    Ok(v)
}

impl<T: Element> Array<T> {
    pub(crate) fn red<U: Element>(
        &self,
        op: ReduceOp,
        axes: Option<&[isize]>,
        keep: bool,
    ) -> Result<Array<U>> {
        let axes = match axes {
            Some(a) => norm_axes(a, self.ndim())?,
            None => all_axes(self.ndim()),
        };
        let n = reduce_node(&self.node, op, &axes, keep)?;
        debug_assert_eq!(n.dtype, U::DTYPE);
        Ok(Array::from_node(n))
    }

    /// Whether any element is non-zero (a 0-d `bool` array).
    pub fn any(&self) -> Result<Array<bool>> {
        self.red(ReduceOp::Any, None, false)
    }
    /// [`any`](Self::any) along `axes`.
    pub fn any_axes(&self, axes: &[isize]) -> Result<Array<bool>> {
        self.any_axes_with(axes, ReduceOpts::new())
    }
    /// [`any_axes`](Self::any_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn any_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<bool>> {
        let keepdims = opts.keepdims;
        self.red(ReduceOp::Any, Some(axes), keepdims)
    }
    /// Whether every element is non-zero.
    pub fn all(&self) -> Result<Array<bool>> {
        self.red(ReduceOp::All, None, false)
    }
    /// [`all`](Self::all) along `axes`.
    pub fn all_axes(&self, axes: &[isize]) -> Result<Array<bool>> {
        self.all_axes_with(axes, ReduceOpts::new())
    }
    /// [`all_axes`](Self::all_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn all_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<bool>> {
        let keepdims = opts.keepdims;
        self.red(ReduceOp::All, Some(axes), keepdims)
    }
    /// Number of non-zero elements.
    pub fn count(&self) -> Result<Array<i64>> {
        self.count_axes(&(0..self.ndim() as isize).collect::<Vec<_>>())
    }
    /// [`count`](Self::count) along `axes`.
    pub fn count_axes(&self, axes: &[isize]) -> Result<Array<i64>> {
        self.count_axes_with(axes, ReduceOpts::new())
    }
    /// [`count_axes`](Self::count_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn count_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<i64>> {
        let keepdims = opts.keepdims;
        let nz = self.not_equal(T::default());
        nz.red(ReduceOp::Sum, Some(axes), keepdims)
    }
}

impl<T: Numeric> Array<T> {
    /// Sum of all elements (a 0-d array; integers sum in `i64`/`u64`, wrapping).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.sum()?.item()?, 10i64);
    /// assert_eq!(a.sum_axes(&[0])?.to_vec()?, vec![4i64, 6]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sum(&self) -> Result<Array<T::Accum>> {
        self.red(ReduceOp::Sum, None, false)
    }
    /// Sum along `axes` (negative axes count from the end).
    pub fn sum_axes(&self, axes: &[isize]) -> Result<Array<T::Accum>> {
        self.sum_axes_with(axes, ReduceOpts::new())
    }
    /// [`sum_axes`](Self::sum_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn sum_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T::Accum>> {
        let keepdims = opts.keepdims;
        self.red(ReduceOp::Sum, Some(axes), keepdims)
    }
    /// Product of all elements.
    pub fn prod(&self) -> Result<Array<T::Accum>> {
        self.red(ReduceOp::Prod, None, false)
    }
    /// Product along `axes`.
    pub fn prod_axes(&self, axes: &[isize]) -> Result<Array<T::Accum>> {
        self.prod_axes_with(axes, ReduceOpts::new())
    }
    /// [`prod_axes`](Self::prod_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn prod_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T::Accum>> {
        let keepdims = opts.keepdims;
        self.red(ReduceOp::Prod, Some(axes), keepdims)
    }
    /// Mean of all elements.
    pub fn mean(&self) -> Result<Array<T::Mean>> {
        self.mean_axes(&(0..self.ndim() as isize).collect::<Vec<_>>())
    }
    /// Mean along `axes` (integers give `f64`).
    pub fn mean_axes(&self, axes: &[isize]) -> Result<Array<T::Mean>> {
        self.mean_axes_with(axes, ReduceOpts::new())
    }
    /// [`mean_axes`](Self::mean_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn mean_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T::Mean>> {
        let keepdims = opts.keepdims;
        Ok(Array::from_node(self.mean_node(axes, keepdims)?.0))
    }

    /// The mean along `axes` (the sum in `T::Mean`, divided by the count) and the count.
    fn mean_node(&self, axes: &[isize], keepdims: bool) -> Result<(Arc<Node>, usize)> {
        let mut ax = norm_axes(axes, self.ndim())?;
        ax.sort_unstable();
        ax.dedup();
        let count: usize = ax.iter().map(|&a| self.shape()[a]).product();
        let x = cast_node(&self.node, <T::Mean as Element>::DTYPE);
        Ok((sum_div_node(&x, &ax, keepdims, count as f64)?, count))
    }
}

fn div_count(n: &Arc<Node>, count: f64) -> Result<Arc<Node>> {
    let c = Node::new(
        Op::Const(crate::dtype::Scalar::F64(count).cast(n.dtype)),
        n.dtype,
        vec![],
        n.device,
    );
    binary_node(n, &c, BinaryOp::Div)
}

impl<T: Numeric + Ordered> Array<T> {
    /// Variance of all elements (the population variance, NumPy's `ddof=0`; see
    /// [`var_with`](Self::var_with) for the sample variance).
    pub fn var(&self) -> Result<Array<T::Mean>> {
        self.var_with(VarOpts::new())
    }
    /// [`var`](Self::var) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn var_with(&self, opts: VarOpts) -> Result<Array<T::Mean>> {
        self.var_axes_with(&(0..self.ndim() as isize).collect::<Vec<_>>(), opts)
    }
    /// Variance along `axes`.
    pub fn var_axes(&self, axes: &[isize]) -> Result<Array<T::Mean>> {
        self.var_axes_with(axes, VarOpts::new())
    }
    /// [`var_axes`](Self::var_axes) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn var_axes_with(&self, axes: &[isize], opts: VarOpts) -> Result<Array<T::Mean>> {
        let (ddof, keepdims) = (opts.ddof, opts.keepdims);
        let (mean, count) = self.mean_node(axes, true)?;
        let x = cast_node(&self.node, <T::Mean as Element>::DTYPE);
        let d = binary_node(&x, &mean, BinaryOp::Sub)?;
        let sq = binary_node(&d, &d, BinaryOp::Mul)?;
        let mut ax = norm_axes(axes, self.ndim())?;
        ax.sort_unstable();
        ax.dedup();
        let dof = count.saturating_sub(ddof) as f64;
        Ok(Array::from_node(sum_div_node(&sq, &ax, keepdims, dof)?))
    }
    /// Standard deviation of all elements.
    pub fn std(&self) -> Result<Array<T::Mean>> {
        self.std_with(VarOpts::new())
    }
    /// [`std`](Self::std) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn std_with(&self, opts: VarOpts) -> Result<Array<T::Mean>> {
        self.std_axes_with(&(0..self.ndim() as isize).collect::<Vec<_>>(), opts)
    }
    /// Standard deviation along `axes`.
    pub fn std_axes(&self, axes: &[isize]) -> Result<Array<T::Mean>> {
        self.std_axes_with(axes, VarOpts::new())
    }
    /// [`std_axes`](Self::std_axes) with NumPy's `ddof` and `keepdims` ([`VarOpts`]).
    pub fn std_axes_with(&self, axes: &[isize], opts: VarOpts) -> Result<Array<T::Mean>> {
        let (ddof, keepdims) = (opts.ddof, opts.keepdims);
        let v = self.var_axes_with(axes, VarOpts::new().ddof(ddof).keepdims(keepdims))?;
        Ok(Array::from_node(unary_node(&v.node, UnaryOp::Sqrt)))
    }
}

impl<T: Ordered> Array<T> {
    /// Smallest element (NaN if any is NaN; `-0.0` counts as below `+0.0`, so the zero returned
    /// does not depend on the reduction order).
    pub fn min(&self) -> Result<Array<T>> {
        self.red(ReduceOp::Min, None, false)
    }
    /// Smallest along `axes`.
    pub fn min_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.min_axes_with(axes, ReduceOpts::new())
    }
    /// [`min_axes`](Self::min_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn min_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        let keepdims = opts.keepdims;
        self.red(ReduceOp::Min, Some(axes), keepdims)
    }
    /// Largest element (NaN if any is NaN; `+0.0` counts as above `-0.0`).
    pub fn max(&self) -> Result<Array<T>> {
        self.red(ReduceOp::Max, None, false)
    }
    /// Largest along `axes`.
    pub fn max_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.max_axes_with(axes, ReduceOpts::new())
    }
    /// [`max_axes`](Self::max_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn max_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        let keepdims = opts.keepdims;
        self.red(ReduceOp::Max, Some(axes), keepdims)
    }
    /// Flat index of the first smallest element (of the first NaN, if any).
    pub fn argmin(&self) -> Result<Array<i64>> {
        self.arg_reduce(ReduceOp::ArgMin, None, false)
    }
    /// Index along `axis` of the first smallest element.
    pub fn argmin_axis(&self, axis: isize) -> Result<Array<i64>> {
        self.argmin_axis_with(axis, ReduceOpts::new())
    }
    /// [`argmin_axis`](Self::argmin_axis) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn argmin_axis_with(&self, axis: isize, opts: ReduceOpts) -> Result<Array<i64>> {
        let keepdims = opts.keepdims;
        self.arg_reduce(ReduceOp::ArgMin, Some(axis), keepdims)
    }
    /// Flat index of the first largest element (of the first NaN, if any).
    pub fn argmax(&self) -> Result<Array<i64>> {
        self.arg_reduce(ReduceOp::ArgMax, None, false)
    }
    /// Index along `axis` of the first largest element.
    pub fn argmax_axis(&self, axis: isize) -> Result<Array<i64>> {
        self.argmax_axis_with(axis, ReduceOpts::new())
    }
    /// [`argmax_axis`](Self::argmax_axis) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn argmax_axis_with(&self, axis: isize, opts: ReduceOpts) -> Result<Array<i64>> {
        let keepdims = opts.keepdims;
        self.arg_reduce(ReduceOp::ArgMax, Some(axis), keepdims)
    }

    /// An arg-reduction, its result noted to lie inside what it indexes (the flattened array,
    /// or `axis`), or to be -1 (a NaN-ignoring one's slice of only NaNs).
    pub(crate) fn arg_reduce(
        &self,
        op: ReduceOp,
        axis: Option<isize>,
        keep: bool,
    ) -> Result<Array<i64>> {
        if let Some(r) = self.arg_reduce_split(op, axis, keep)? {
            return Ok(r);
        }
        let r: Array<i64> = self.red(op, axis.as_ref().map(std::slice::from_ref), keep)?;
        let extent = match axis {
            Some(a) => self.shape()[crate::shape::axis(a, self.ndim())?],
            None => self.len(),
        };
        Ok(r.known_in(arg_lowest(op), extent as i64 - 1))
    }

    /// An arg-reduction of few long lines (the whole array, or the last axis of an array with
    /// few other elements) in two stages, so that many blocks share each line: every line is
    /// cut into `m` chunks of `len` elements (`m` the largest divisor of the line's length in
    /// [`SPLIT_CHUNKS`]), each chunk reduced to the index of its first extreme, then the
    /// chunks' extremes reduced in chunk order. The first extreme of the first chunk holding
    /// one is the line's first extreme (the comparison is a total preorder, NaN above
    /// everything for both; the NaN-ignoring forms skip the NaN extremes of chunks of only
    /// NaNs, and give -1 where every chunk is one), so the result equals the one-stage
    /// reduction's. `None` where the lines are short, many, or of a length with no such
    /// divisor.
    fn arg_reduce_split(
        &self,
        op: ReduceOp,
        axis: Option<isize>,
        keep: bool,
    ) -> Result<Option<Array<i64>>> {
        let nd = self.ndim();
        let (lead, line): (Vec<usize>, usize) = match axis {
            None => (Vec::new(), self.len()),
            Some(a) => {
                let ax = crate::shape::axis(a, nd)?;
                if ax + 1 != nd {
                    return Ok(None);
                }
                (self.shape()[..ax].to_vec(), self.shape()[ax])
            }
        };
        let lines: usize = lead.iter().product();
        if line < SPLIT_MIN_LINE || lines > SPLIT_MAX_LINES {
            return Ok(None);
        }
        let Some(m) = SPLIT_CHUNKS
            .rev()
            .find(|&m| line % m == 0 && line / m >= 256)
        else {
            return Ok(None);
        };
        let len = line / m;
        let shape = |tail: &[usize]| -> Vec<usize> { lead.iter().chain(tail).copied().collect() };
        let x = self.reshape(&shape(&[m, len])[..])?;
        // The index of each chunk's first extreme, within its chunk.
        let idx = x.arg_reduce(op, Some(-1), false)?;
        let ext = x
            .take_along_axis_with(&idx.expand_dims(-1)?, -1, IndexMode::Clamp)?
            .reshape(&shape(&[m])[..])?;
        // The first chunk holding the line's extreme, and the index within it.
        let chunk = ext.arg_reduce(op, Some(-1), false)?;
        let within = idx
            .take_along_axis_with(&chunk.expand_dims(-1)?, -1, IndexMode::Clamp)?
            .reshape(&lead[..])?;
        let flat = &chunk * len as i64 + &within;
        let flat = if op.skips_nan() {
            Array::select(&chunk.less(0i64), -1i64, &flat)?
        } else {
            flat
        };
        let flat = flat.known_in(arg_lowest(op), line as i64 - 1);
        Ok(Some(match (axis, keep) {
            (Some(a), true) => flat.expand_dims(a)?,
            _ => flat,
        }))
    }
}

/// The smallest index arg-reduction `op` gives: -1 for the NaN-ignoring forms (a slice of
/// only NaNs), else 0.
fn arg_lowest(op: ReduceOp) -> i64 {
    if op.skips_nan() { -1 } else { 0 }
}

/// Lines shorter than this are reduced in one stage (see `arg_reduce_split`).
const SPLIT_MIN_LINE: usize = 1 << 16;

/// Lines more numerous than this are reduced in one stage: a block each fills the device.
const SPLIT_MAX_LINES: usize = 32;

/// The numbers of chunks a long line may be cut into (the largest divisor of its length wins).
const SPLIT_CHUNKS: std::ops::RangeInclusive<usize> = 32..=2048;

impl<T: Float> Array<T> {
    /// Sum ignoring NaNs.
    pub fn nansum(&self) -> Result<Array<T>> {
        self.nansum_axes(&(0..self.ndim() as isize).collect::<Vec<_>>())
    }
    /// Sum along `axes` ignoring NaNs.
    pub fn nansum_axes(&self, axes: &[isize]) -> Result<Array<T>> {
        self.nansum_axes_with(axes, ReduceOpts::new())
    }
    /// [`nansum_axes`](Self::nansum_axes) with NumPy's `keepdims` ([`ReduceOpts`]).
    pub fn nansum_axes_with(&self, axes: &[isize], opts: ReduceOpts) -> Result<Array<T>> {
        let keepdims = opts.keepdims;
        let z = Array::<T>::select(&self.isnan(), T::default(), self)?;
        z.red(ReduceOp::Sum, Some(axes), keepdims)
    }
}
