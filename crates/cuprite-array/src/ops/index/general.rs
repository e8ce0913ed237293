//! NumPy's general indexing, `a[i, 1:5:2, None, idx, mask, ...]`, for reading
//! ([`Array::index`]) and writing ([`Array::assign_index`]).
//!
//! The rules are written down on [`Idx`].

use super::take::true_positions;
use super::{
    IndexFlag, IndexMode, checked_result, coord, flat_offset, gather_flat, normalize, place,
    strides_i64,
};
use crate::array::{Array, expand};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::shape::{SliceArg, broadcast_shapes};
use std::sync::Arc;

/// An array used as an index: integers index, `bool` masks (see [`Idx`]).
#[derive(Clone, Debug)]
pub struct IndexArray {
    pub(crate) node: Arc<Node>,
}

impl<I: Element> From<&Array<I>> for IndexArray {
    fn from(a: &Array<I>) -> IndexArray {
        IndexArray {
            node: a.node.clone(),
        }
    }
}

/// One entry of a general index (see [`Array::index`]).
///
/// # The rules (NumPy's)
///
/// - Each integer or slice consumes one axis, `NewAxis` inserts an axis of extent 1, a boolean
///   mask of rank `k` consumes `k` axes (its shape must equal theirs) and stands for the `k`
///   integer arrays of its `nonzero()`, `Ellipsis` (at most one) stands for as many full slices
///   as leave every axis consumed; axes left over at the end are taken whole.
/// - Without index arrays (integers, slices, `NewAxis` only) the result is a view: integers
///   drop their axis.
/// - With index arrays ("advanced" indexing) the integers count as 0-d index arrays; all index
///   arrays broadcast together to a shape `B`. If the advanced indices are **adjacent** (no
///   slice or `NewAxis` between them) `B` replaces their axes in place; otherwise `B` comes
///   **first**, followed by the sliced and new axes in order. The result is a new array
///   (a gather).
///
/// ```
/// use cuprite_array::{Array, ops::Idx, s};
/// let i: Idx = s![1..;2][0].into();
/// assert!(matches!(i, Idx::Slice { start: Some(1), end: None, step: 2 }));
/// let j = Idx::array(&Array::from_slice(&[0i32, 2], &[2])?);
/// assert!(matches!(j, Idx::Array(_)));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug)]
pub enum Idx {
    /// One position (negative from the end): drops the axis.
    Int(isize),
    /// `start..end` by `step` (Python's slice rules; `None` for the ends).
    Slice {
        /// First index (negative counts from the end).
        start: Option<isize>,
        /// One past the last (negative counts from the end).
        end: Option<isize>,
        /// Non-zero step.
        step: isize,
    },
    /// A new axis of extent 1 (`None`/`np.newaxis`).
    NewAxis,
    /// As many full slices as needed (`...`).
    Ellipsis,
    /// An integer index array, or a boolean mask.
    Array(IndexArray),
}

impl Idx {
    /// An index array (integers) or mask (`bool`).
    pub fn array<I: Element>(a: &Array<I>) -> Idx {
        Idx::Array(a.into())
    }

    /// The whole axis.
    pub fn full() -> Idx {
        Idx::Slice {
            start: None,
            end: None,
            step: 1,
        }
    }
}

impl From<SliceArg> for Idx {
    fn from(s: SliceArg) -> Idx {
        match s {
            SliceArg::Index(i) => Idx::Int(i),
            SliceArg::Range { start, end, step } => Idx::Slice { start, end, step },
        }
    }
}

/// One axis of the intermediate (sliced) view: where it comes from.
enum Axis {
    /// Source axis `a`, positions `start + step * k` for `k < len`.
    Basic {
        a: usize,
        start: usize,
        step: isize,
        len: usize,
    },
    /// A new axis.
    New,
    /// Source axis `a` picked by index array `k` (normalised, i64).
    Adv { a: usize, k: usize },
}

/// What a general index reads: an offset into the contiguous source for every output element.
struct Plan {
    out: Vec<usize>,
    flat: Array<i64>,
    /// Whether the index had no arrays (the result may then be a view).
    basic: bool,
    /// With a fused check (`plan(.., true)`): the flag the index arrays raise, and each array
    /// with its axis extent and name, for the message when it is raised.
    flag: Option<IndexFlag>,
    checked: Vec<(Arc<Node>, usize, String)>,
}

impl<T: Element> Array<T> {
    /// NumPy's general indexing (see [`Idx`] for the rules): integers, slices
    /// with steps, [`Idx::NewAxis`], [`Idx::Ellipsis`], integer index arrays and boolean masks,
    /// mixed. Out-of-range integers and indices are an `Err` naming them.
    ///
    /// ```
    /// use cuprite_array::{Array, ops::Idx};
    /// let a = Array::from_vec((0..24).collect::<Vec<i32>>(), &[2, 3, 4])?;
    /// let i = Array::from_slice(&[0i64, 2], &[2])?;
    /// // Adjacent advanced indices replace their axes in place...
    /// let r = a.index(&[Idx::full(), Idx::array(&i), Idx::Int(1)])?;
    /// assert_eq!(r.shape(), &[2, 2]);
    /// assert_eq!(r.to_vec()?, [1, 9, 13, 21]);
    /// // ...separated ones go first.
    /// let r = a.index(&[Idx::Int(1), Idx::full(), Idx::array(&i)])?;
    /// assert_eq!(r.shape(), &[2, 3]);
    /// assert_eq!(r.to_vec()?, [12, 16, 20, 14, 18, 22]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn index(&self, args: &[Idx]) -> Result<Array<T>> {
        let p = self.plan(args, true)?;
        if p.basic {
            // A view: slices, then a reshape that drops integer axes and inserts new ones.
            return self.basic_view(args);
        }
        let out = gather_flat(self, &p.flat)?;
        checked_result(out, p.flag, || {
            for (node, n, what) in &p.checked {
                normalize(node, *n, IndexMode::Error, what)?;
            }
            Ok(())
        })
    }

    /// `self[args] = value` (NumPy): `value` broadcast to the shape [`index`](Self::index)
    /// gives for `args`; where index arrays name a place twice the last write wins. `self`
    /// becomes a new array (copy-on-write: clones and views keep their values).
    ///
    /// ```
    /// use cuprite_array::{Array, ops::Idx};
    /// let mut a = Array::<i32>::zeros(&[2, 3]);
    /// let i = Array::from_slice(&[2i32, 0, 2], &[3])?;
    /// let v = Array::from_slice(&[1, 2, 3], &[3])?;
    /// a.assign_index(&[Idx::Int(-1), Idx::array(&i)], &v)?;
    /// assert_eq!(a.to_vec()?, [0, 0, 0, 2, 0, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn assign_index(&mut self, args: &[Idx], value: &Array<T>) -> Result<()> {
        let p = self.plan(args, false)?;
        let b = broadcast_shapes(value.shape(), &p.out).ok();
        if b.as_deref() != Some(&p.out[..]) {
            return Err(Error::Shape(format!(
                "assign_index: a value of shape {:?} does not broadcast to the indexed shape {:?}",
                value.shape(),
                p.out
            )));
        }
        // The offsets are in range already: the clamp mode skips a second check.
        self.put_with(
            &p.flat,
            &Array::from_node(expand(&value.node, &p.out)),
            IndexMode::Clamp,
        )
    }

    fn basic_view(&self, args: &[Idx]) -> Result<Array<T>> {
        let args = expand_args(self, args)?;
        let mut slices = Vec::new();
        let mut shape = Vec::new();
        for (arg, _) in &args {
            match arg {
                Idx::Int(i) => slices.push(SliceArg::Index(*i)),
                Idx::Slice { start, end, step } => {
                    slices.push(SliceArg::Range {
                        start: *start,
                        end: *end,
                        step: *step,
                    });
                }
                _ => {}
            }
        }
        let v = self.slice_keep(&slices)?;
        let mut k = 0;
        for (arg, _) in &args {
            match arg {
                Idx::Int(_) => k += 1,
                Idx::Slice { .. } => {
                    shape.push(v.shape()[k]);
                    k += 1;
                }
                _ => shape.push(1),
            }
        }
        v.reshape(&shape)
    }

    /// The offsets of a general index; with `fused`, index arrays are checked by the kernel
    /// that reads them (see [`IndexFlag`]), else each by a reduction read back first.
    fn plan(&self, args: &[Idx], fused: bool) -> Result<Plan> {
        let args = expand_args(self, args)?;
        let s = self.shape().to_vec();
        let st = strides_i64(&s);
        let basic = !args.iter().any(|(a, _)| matches!(a, Idx::Array(_)));
        let mut axes = Vec::new();
        let mut arrays: Vec<Array<i64>> = Vec::new();
        let mut fixed = 0i64;
        let mut flag: Option<IndexFlag> = None;
        let mut checked = Vec::new();
        for (arg, src) in &args {
            match arg {
                Idx::NewAxis => axes.push(Axis::New),
                Idx::Int(i) => {
                    let a = consumed(*src, "an integer")?;
                    let spec = SliceArg::Index(*i).resolve(s[a], a)?;
                    if basic {
                        fixed += spec.start as i64 * st[a];
                    } else {
                        let c = crate::device::with_device(self.device(), || {
                            Array::<i64>::scalar(spec.start as i64)
                        });
                        axes.push(Axis::Adv { a, k: arrays.len() });
                        arrays.push(c);
                    }
                }
                Idx::Slice { start, end, step } => {
                    let a = consumed(*src, "a slice")?;
                    let r = SliceArg::Range {
                        start: *start,
                        end: *end,
                        step: *step,
                    }
                    .resolve(s[a], a)?;
                    axes.push(Axis::Basic {
                        a,
                        start: r.start,
                        step: r.step,
                        len: r.len,
                    });
                }
                Idx::Array(ia) => {
                    let a = consumed(*src, "an index array")?;
                    let what = format!("index array for axis {a}");
                    let fuse = fused
                        && s[a] > 0
                        && crate::shape::numel(&ia.node.shape) > 0
                        && !super::known_in_range(&ia.node, s[a]);
                    let norm = if fuse {
                        let f = match flag.take() {
                            Some(f) => flag.insert(f),
                            None => flag.insert(IndexFlag::new(self.device())?),
                        };
                        let x = f.check(&ia.node, s[a], &what)?;
                        checked.push((ia.node.clone(), s[a], what));
                        x
                    } else {
                        normalize(&ia.node, s[a], IndexMode::Error, &what)?
                    };
                    axes.push(Axis::Adv { a, k: arrays.len() });
                    arrays.push(norm);
                }
                Idx::Ellipsis => unreachable!("expanded"),
            }
        }
        let mut b: Vec<usize> = Vec::new();
        for x in &arrays {
            b = broadcast_shapes(&b, x.shape()).map_err(|_| {
                Error::Shape(format!(
                    "index arrays of shapes {:?} do not broadcast together",
                    arrays
                        .iter()
                        .map(|x| x.shape().to_vec())
                        .collect::<Vec<_>>()
                ))
            })?;
        }
        let adv: Vec<usize> = (0..axes.len())
            .filter(|&d| matches!(axes[d], Axis::Adv { .. }))
            .collect();
        let adjacent = adv.windows(2).all(|w| w[1] == w[0] + 1);
        // Output position of each non-advanced view axis; B's block starts at `bpos`.
        let ext = |ax: &Axis| match ax {
            Axis::Basic { len, .. } => *len,
            _ => 1,
        };
        let first = if adjacent { adv.first().copied() } else { None };
        let mut out = Vec::new();
        let mut pos = vec![0; axes.len()];
        for (d, ax) in axes.iter().enumerate() {
            if first.is_some_and(|f| d < f) {
                pos[d] = out.len();
                out.push(ext(ax));
            }
        }
        let bpos = out.len();
        out.extend_from_slice(&b);
        for (d, ax) in axes.iter().enumerate() {
            if !matches!(ax, Axis::Adv { .. }) && first.is_none_or(|f| d >= f) {
                pos[d] = out.len();
                out.push(ext(ax));
            }
        }
        crate::shape::checked_numel(&out)?;
        let mut terms: Vec<(Arc<Node>, i64)> = Vec::new();
        for (d, ax) in axes.iter().enumerate() {
            match ax {
                Axis::Basic { a, start, step, .. } => {
                    fixed += *start as i64 * st[*a];
                    terms.push((coord(pos[d], &out, self.device())?, *step as i64 * st[*a]));
                }
                Axis::New => {}
                Axis::Adv { a, k } => {
                    let x = Array::<i64>::from_node(expand(&arrays[*k].node, &b));
                    terms.push((place(&x, bpos, &out)?, st[*a]));
                }
            }
        }
        let mut flat = flat_offset(&terms, &out)?;
        if fixed != 0 {
            flat = flat.try_add(fixed)?;
        }
        Ok(Plan {
            out,
            flat,
            basic,
            flag,
            checked,
        })
    }
}

/// The entries with the ellipsis expanded, masks replaced by their `nonzero` arrays, trailing
/// full slices added, each with the source axis it consumes.
fn expand_args<T: Element>(a: &Array<T>, args: &[Idx]) -> Result<Vec<(Idx, Option<usize>)>> {
    let nd = a.ndim();
    let consumes = |x: &Idx| match x {
        Idx::Int(_) | Idx::Slice { .. } => 1,
        Idx::Array(ia) if ia.node.dtype == DType::Bool => ia.node.shape.len(),
        Idx::Array(_) => 1,
        _ => 0,
    };
    let used: usize = args.iter().map(consumes).sum();
    let ellipses = args.iter().filter(|x| matches!(x, Idx::Ellipsis)).count();
    if ellipses > 1 {
        return Err(Error::Index(format!(
            "an index can have one ellipsis, this one has {ellipses}"
        )));
    }
    if used > nd {
        return Err(Error::Index(format!(
            "too many indices: they consume {used} axes of an array of {nd} (shape {:?})",
            a.shape()
        )));
    }
    let mut out = Vec::new();
    let mut src = 0;
    let fill = |out: &mut Vec<(Idx, Option<usize>)>, src: &mut usize, n: usize| {
        for _ in 0..n {
            out.push((Idx::full(), Some(*src)));
            *src += 1;
        }
    };
    for x in args {
        match x {
            Idx::Ellipsis => fill(&mut out, &mut src, nd - used),
            Idx::NewAxis => out.push((Idx::NewAxis, None)),
            Idx::Array(ia) if ia.node.dtype == DType::Bool => {
                let k = ia.node.shape.len();
                if k == 0 {
                    return Err(Error::Index(
                        "a 0-d boolean index is not supported (use NewAxis)".into(),
                    ));
                }
                let want = &a.shape()[src..src + k];
                if ia.node.shape != want {
                    return Err(Error::Shape(format!(
                        "a boolean mask of shape {:?} for axes {src}..{} of shape {want:?}: they \
                         must be equal",
                        ia.node.shape,
                        src + k
                    )));
                }
                crate::array::check_devices(&[&a.node, &ia.node])?;
                let m = Array::<bool>::from_node(ia.node.clone());
                let nz = if k == 1 {
                    vec![true_positions(&m)?]
                } else {
                    m.nonzero()?
                };
                for c in nz {
                    out.push((Idx::array(&c), Some(src)));
                    src += 1;
                }
            }
            Idx::Array(ia) => {
                crate::array::check_devices(&[&a.node, &ia.node])?;
                out.push((x.clone(), Some(src)));
                src += 1;
            }
            _ => {
                out.push((x.clone(), Some(src)));
                src += 1;
            }
        }
    }
    if ellipses == 0 {
        fill(&mut out, &mut src, nd - used);
    }
    Ok(out)
}

/// The input axis an integer, slice or index array consumes: `expand_args` pairs each of them
/// with one; an `Err` (never a panic) should that pairing ever miss one.
fn consumed(src: Option<usize>, what: &str) -> Result<usize> {
    src.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "index: {what} was paired with no axis of the array (an internal error)"
        ))
    })
}
