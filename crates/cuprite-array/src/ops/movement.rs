//! Data movement: reshape, permute, slices with steps, flip, broadcast (all views, no copy),
//! and concat, tile, roll, pad (which write new memory in one pass per piece). Gathers by
//! index arrays live in `ops::index`.

use crate::array::{Array, expand};
use crate::backend;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{Node, Op, Program, ViewFn, push_view};
use crate::ops::reduce::permute_node;
use crate::schedule::contiguous_storage;
use crate::shape::{
    Layout, ShapeArg, SliceArg, SliceSpec, axis, broadcast_shapes, numel, resolve_shape,
};
use std::sync::Arc;

struct Reshape<'a> {
    from: &'a [usize],
    to: &'a [usize],
}
impl ViewFn for Reshape<'_> {
    fn layout(&self, l: &Layout) -> Option<Layout> {
        l.reshape(self.from, self.to)
    }
}

struct Slice<'a>(&'a [SliceSpec]);
impl ViewFn for Slice<'_> {
    fn layout(&self, l: &Layout) -> Option<Layout> {
        Some(l.slice(self.0))
    }
}

/// Applies a view transform, materialising first when a leaf cannot take it.
pub(crate) fn view(n: &Arc<Node>, shape: &[usize], f: &dyn ViewFn) -> Result<Arc<Node>> {
    if let Some(c) = n.is_const() {
        return Ok(Node::new(Op::Const(c), n.dtype, shape.to_vec(), n.device));
    }
    if let Some(m) = push_view(n, shape, f) {
        return Ok(m);
    }
    // Materialise contiguously, then the view always applies.
    let s = contiguous_storage(n)?;
    let leaf = Node::new_in_range(
        Op::Leaf(s, Layout::contiguous(&n.shape)),
        n.dtype,
        n.shape.clone(),
        n.device,
        n.range(),
    );
    push_view(&leaf, shape, f)
        .ok_or_else(|| Error::Shape(format!("cannot view shape {:?} as {shape:?}", n.shape)))
}

fn leaf_node(
    s: Arc<crate::storage::Storage>,
    shape: &[usize],
    d: DType,
    dev: crate::Device,
) -> Arc<Node> {
    Node::new(
        Op::Leaf(s, Layout::contiguous(shape)),
        d,
        shape.to_vec(),
        dev,
    )
}

impl<T: Element> Array<T> {
    /// The same elements with another shape (a view when the strides allow, else a copy). The
    /// element counts must match; one extent may be `-1`, inferred from the others as in NumPy.
    /// The shape is any slice, array or `Vec` of `usize`, `isize` or `i32`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<f32>::zeros(&[2, 6]);
    /// assert_eq!(a.reshape(&[3, 4])?.shape(), &[3, 4]);
    /// assert_eq!(a.reshape(&[-1, 3])?.shape(), &[4, 3]);
    /// assert!(a.reshape(&[5]).is_err());
    /// assert!(a.reshape(&[-1, 5]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn reshape<S: ShapeArg + ?Sized>(&self, shape: &S) -> Result<Array<T>> {
        let shape = resolve_shape(shape, self.shape(), self.len())?;
        let f = Reshape {
            from: self.shape(),
            to: &shape,
        };
        Ok(Array::from_node(view(&self.node, &shape, &f)?))
    }

    /// A 1-D view (or copy) of all elements.
    pub fn flatten(&self) -> Result<Array<T>> {
        self.reshape(&[self.len()])
    }

    /// Inserts an axis of extent 1 at `ax`.
    pub fn expand_dims(&self, ax: isize) -> Result<Array<T>> {
        let a = axis(ax, self.ndim() + 1)?;
        let mut s = self.shape().to_vec();
        s.insert(a, 1);
        self.reshape(&s)
    }

    /// Reorders the axes: axis `i` of the result is axis `perm[i]` of `self` (a view).
    pub fn permute(&self, perm: &[usize]) -> Result<Array<T>> {
        let mut seen = vec![false; self.ndim()];
        if perm.len() != self.ndim()
            || perm
                .iter()
                .any(|&p| p >= self.ndim() || std::mem::replace(&mut seen[p], true))
        {
            return Err(Error::Axis(format!(
                "{perm:?} is not a permutation of the {} axes of shape {:?}",
                self.ndim(),
                self.shape()
            )));
        }
        Ok(Array::from_node(permute_node(&self.node, perm)?))
    }

    /// Reverses the order of the axes (the matrix transpose for 2-D arrays; a view).
    #[must_use]
    pub fn t(&self) -> Array<T> {
        let perm: Vec<usize> = (0..self.ndim()).rev().collect();
        self.permute(&perm).expect("a reversal is a permutation")
    }

    /// Broadcasts to `shape` (a view with zero strides).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array<T>> {
        crate::shape::checked_numel(shape)?;
        let b = broadcast_shapes(self.shape(), shape)?;
        if b != shape {
            return Err(Error::Shape(format!(
                "cannot broadcast shape {:?} to {shape:?}",
                self.shape()
            )));
        }
        Ok(Array::from_node(expand(&self.node, shape)))
    }

    /// A view of ranges with steps, one [`SliceArg`] per leading axis (see [`s!`](crate::s)).
    /// An index drops its axis (NumPy's and ndarray's rule); an index out of range is an
    /// `Err`; range bounds are clamped to the axis (a start past the end gives an empty axis).
    ///
    /// ```
    /// use cuprite_array::{Array, s};
    /// let a = Array::from_slice(&[0i32, 1, 2, 3, 4, 5], &[2, 3])?;
    /// assert_eq!(a.slice(&s![.., ..;2])?.to_vec()?, vec![0, 2, 3, 5]);
    /// let last = a.slice(&s![-1, ..;-1])?;
    /// assert_eq!((last.shape(), last.to_vec()?), (&[3][..], vec![5, 4, 3]));
    /// assert_eq!(a.slice(&s![.., 7..])?.shape(), &[2, 0]);
    /// assert!(a.slice(&s![5]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn slice(&self, args: &[SliceArg]) -> Result<Array<T>> {
        let view = self.slice_keep(args)?;
        if !args.iter().any(|a| matches!(a, SliceArg::Index(_))) {
            return Ok(view);
        }
        let kept: Vec<usize> = view
            .shape()
            .iter()
            .enumerate()
            .filter(|&(i, _)| !matches!(args.get(i), Some(SliceArg::Index(_))))
            .map(|(_, &d)| d)
            .collect();
        view.reshape(&kept)
    }

    /// [`slice`](Self::slice) that keeps an indexed axis with extent 1 (for callers that
    /// address the result by the source's axes).
    pub(crate) fn slice_keep(&self, args: &[SliceArg]) -> Result<Array<T>> {
        if args.len() > self.ndim() {
            return Err(Error::Index(format!(
                "{} slice arguments for an array of {} axes",
                args.len(),
                self.ndim()
            )));
        }
        let mut specs = Vec::with_capacity(self.ndim());
        for (i, &n) in self.shape().iter().enumerate() {
            specs.push(match args.get(i) {
                Some(a) => a.resolve(n, i)?,
                None => SliceSpec {
                    start: 0,
                    step: 1,
                    len: n,
                },
            });
        }
        let shape: Vec<usize> = specs.iter().map(|s| s.len).collect();
        if numel(&shape) == 0 {
            return Ok(crate::device::with_device(self.device(), || {
                Array::zeros(&shape)
            }));
        }
        Ok(Array::from_node(view(&self.node, &shape, &Slice(&specs))?))
    }

    /// [`slice`](Self::slice) that panics with the error's message: indexing sugar.
    ///
    /// # Panics
    /// When an index or range is out of bounds.
    #[must_use]
    pub fn at(&self, args: &[SliceArg]) -> Array<T> {
        self.slice(args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Reverses the order along `axes` (a view with negative strides).
    pub fn flip(&self, axes: &[isize]) -> Result<Array<T>> {
        let mut args: Vec<SliceArg> = vec![(..).into(); self.ndim()];
        for &a in axes {
            let a = axis(a, self.ndim())?;
            args[a] = SliceArg::Range {
                start: None,
                end: None,
                step: -1,
            };
        }
        self.slice(&args)
    }

    /// Joins arrays along `axis`; all other extents must match.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1u8, 2], &[1, 2])?;
    /// let b = Array::from_slice(&[3u8, 4, 5, 6], &[2, 2])?;
    /// assert_eq!(Array::concat(&[&a, &b], 0)?.to_vec()?, vec![1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn concat(arrays: &[&Array<T>], ax: isize) -> Result<Array<T>> {
        let first = arrays
            .first()
            .ok_or_else(|| Error::InvalidArgument("concat of no arrays".into()))?;
        let nd = first.ndim();
        let ax = axis(ax, nd)?;
        let mut shape = first.shape().to_vec();
        shape[ax] = 0;
        for a in arrays {
            crate::array::check_devices(&[&first.node, &a.node])?;
            let ok = a.ndim() == nd && (0..nd).all(|d| d == ax || a.shape()[d] == first.shape()[d]);
            if !ok {
                return Err(Error::Shape(format!(
                    "concat along axis {ax}: shapes {:?} and {:?} differ off that axis",
                    first.shape(),
                    a.shape()
                )));
            }
            shape[ax] += a.shape()[ax];
        }
        let full = Layout::contiguous(&shape);
        let mut pieces = Vec::new();
        let mut at = 0;
        for a in arrays {
            let mut l = full.clone();
            l.offset = at * full.strides[ax] as usize;
            at += a.shape()[ax];
            if a.is_empty() {
                continue;
            }
            crate::schedule::realize_calls_below(std::slice::from_ref(&a.node))?;
            pieces.push((Program::build(std::slice::from_ref(&a.node)), l));
        }
        let dev = first.device();
        let s = backend::of(dev).eval_into_views(dev, T::DTYPE, numel(&shape), &pieces)?;
        Ok(Array::from_node(leaf_node(s, &shape, T::DTYPE, dev)))
    }

    /// Repeats the array `reps[i]` times along axis `i` (`reps` may be longer than `ndim`).
    pub fn tile(&self, reps: &[usize]) -> Result<Array<T>> {
        let nd = reps.len().max(self.ndim());
        let mut src = vec![1; nd - self.ndim()];
        src.extend_from_slice(self.shape());
        let mut reps_full = vec![1; nd - reps.len()];
        reps_full.extend_from_slice(reps);
        // View as [1, s0, 1, s1, ...] broadcast to [r0, s0, r1, s1, ...], then reshape.
        let inter: Vec<usize> = src.iter().flat_map(|&s| [1, s]).collect();
        let big: Vec<usize> = src
            .iter()
            .zip(&reps_full)
            .flat_map(|(&s, &r)| [r, s])
            .collect();
        let out: Vec<usize> = src
            .iter()
            .zip(&reps_full)
            .map(|(&s, &r)| s.checked_mul(r))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                Error::Shape(format!(
                    "tiling shape {:?} by {reps:?} overflows",
                    self.shape()
                ))
            })?;
        crate::shape::checked_numel(&out)?;
        let b = self.reshape(&inter)?.broadcast_to(&big)?;
        b.contiguous()?.reshape(&out)
    }

    /// Rotates elements by `shift` along `axis` (elements leaving one end enter at the other).
    pub fn roll(&self, shift: isize, ax: isize) -> Result<Array<T>> {
        let a = axis(ax, self.ndim())?;
        let n = self.shape()[a] as isize;
        if n == 0 {
            return Ok(self.clone());
        }
        let k = shift.rem_euclid(n);
        if k == 0 {
            return self.contiguous();
        }
        let mut tail: Vec<SliceArg> = vec![(..).into(); self.ndim()];
        let mut head = tail.clone();
        tail[a] = (n - k..).into();
        head[a] = (..n - k).into();
        Array::concat(&[&self.slice(&tail)?, &self.slice(&head)?], a as isize)
    }

    /// Pads each axis with `widths[i] = (before, after)` elements of `value`.
    pub fn pad(&self, widths: &[(usize, usize)], value: T) -> Result<Array<T>> {
        if widths.len() != self.ndim() {
            return Err(Error::Shape(format!(
                "pad needs one (before, after) pair per axis: {} for shape {:?}",
                widths.len(),
                self.shape()
            )));
        }
        let shape: Vec<usize> = self
            .shape()
            .iter()
            .zip(widths)
            .map(|(s, (b, a))| s.checked_add(*b)?.checked_add(*a))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                Error::Shape(format!(
                    "padding shape {:?} by {widths:?} overflows",
                    self.shape()
                ))
            })?;
        crate::shape::checked_numel(&shape)?;
        let full = Layout::contiguous(&shape);
        let fill = Array::full(&shape, value);
        let fill = Array::<T>::from_node(Node::new(
            fill.node.op(),
            T::DTYPE,
            shape.clone(),
            self.device(),
        ));
        let mut pieces = vec![(
            Program::build(std::slice::from_ref(&fill.node)),
            full.clone(),
        )];
        if !self.is_empty() {
            let mut inner = full.clone();
            inner.offset = widths
                .iter()
                .zip(&full.strides)
                .map(|((b, _), s)| b * *s as usize)
                .sum();
            crate::schedule::realize_calls_below(std::slice::from_ref(&self.node))?;
            pieces.push((Program::build(std::slice::from_ref(&self.node)), inner));
        }
        let s = backend::of(self.device()).eval_into_views(
            self.device(),
            T::DTYPE,
            numel(&shape),
            &pieces,
        )?;
        Ok(Array::from_node(leaf_node(
            s,
            &shape,
            T::DTYPE,
            self.device(),
        )))
    }
}
