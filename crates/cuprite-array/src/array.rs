//! [`Array<T>`]: the user-facing handle on a graph node, with creation, evaluation and reads.
//!
//! # Cheap clones, and why mutation stays safe
//!
//! An `Array` is an `Arc` of an immutable expression node; `clone` copies the pointer. No
//! operation ever writes into an existing array's memory: every operation makes a new node,
//! and evaluation writes into freshly allocated memory that no other array can see yet. So
//! clones, threads and streams can share arrays freely (`Array<T>` is `Send + Sync`).

use crate::backend;
use crate::device::{Device, current_device};
use crate::dtype::{DType, Element, Scalar};
use crate::error::{Error, Result};
use crate::graph::{Dist, MAX_WEIGHT, Node, Op};
use crate::op::BinaryOp;
use crate::random::CallKey;
use crate::schedule::{contiguous_storage, realize};
use crate::shape::{Layout, numel};
use crate::storage::Storage;
use std::marker::PhantomData;
use std::sync::Arc;

/// Integer uploads up to this many elements note their value range (see [`crate::range`]).
const UPLOAD_RANGE_MAX: usize = 1 << 16;

/// An N-dimensional array of `T`, row-major with strides, lazily evaluated.
///
/// ```
/// use cuprite_array::Array;
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let b = (&a * 2.0 + 1.0).sqrt();
/// assert_eq!(b.shape(), &[2, 2]);
/// let v = b.to_vec()?;
/// assert!((v[3] - 3.0).abs() < 1e-6);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub struct Array<T: Element> {
    pub(crate) node: Arc<Node>,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> Clone for Array<T> {
    fn clone(&self) -> Self {
        Array::from_node(self.node.clone())
    }
}

impl<T: Element> std::fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.node.shape)
            .field("device", &self.node.device)
            .finish()
    }
}

/// Something usable as the right operand of an element-wise operation on `Array<T>`: an
/// array (owned or borrowed) or a scalar `T`.
pub trait Operand<T: Element> {
    #[doc(hidden)]
    fn into_node(self, device: Device) -> Arc<Node>;
    /// The operand as a node for an element-wise operation with `like` (a scalar takes its
    /// shape at once: the broadcast it would get, without a second node).
    #[doc(hidden)]
    fn into_node_like(self, like: &Node) -> Arc<Node>
    where
        Self: Sized,
    {
        self.into_node(like.device)
    }
}

impl<T: Element> Operand<T> for T {
    fn into_node(self, device: Device) -> Arc<Node> {
        Node::new(Op::Const(self.to_scalar()), T::DTYPE, vec![], device)
    }
    fn into_node_like(self, like: &Node) -> Arc<Node> {
        Node::operand_constant(self.to_scalar(), T::DTYPE, &like.shape, like.device)
    }
}
impl<T: Element> Operand<T> for &Array<T> {
    fn into_node(self, _: Device) -> Arc<Node> {
        self.node.clone()
    }
}
impl<T: Element> Operand<T> for Array<T> {
    fn into_node(self, _: Device) -> Arc<Node> {
        self.node
    }
}

impl<T: Element> Array<T> {
    pub(crate) fn from_node(node: Arc<Node>) -> Self {
        debug_assert_eq!(node.dtype, T::DTYPE);
        Array {
            node,
            _t: PhantomData,
        }
    }

    /// The extents of each axis.
    pub fn shape(&self) -> &[usize] {
        &self.node.shape
    }

    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.node.shape.len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        numel(&self.node.shape)
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// The device the array lives on.
    pub fn device(&self) -> Device {
        self.node.device
    }

    /// An array of `shape` from `data` (row-major), on this thread's current device. A slice of
    /// the wrong length is an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// assert!(Array::from_slice(&[1i32, 2, 3], &[2, 2]).is_err());
    /// ```
    pub fn from_slice(data: &[T], shape: &[usize]) -> Result<Self> {
        Self::from_slice_on(current_device(), data, shape)
    }

    /// Like [`from_slice`](Self::from_slice), on `device`.
    pub fn from_slice_on(device: Device, data: &[T], shape: &[usize]) -> Result<Self> {
        let n = crate::shape::checked_numel(shape)?;
        if data.len() != n {
            return Err(Error::Shape(format!(
                "a slice of {} element(s) cannot make an array of shape {shape:?} ({n} elements)",
                data.len()
            )));
        }
        let storage = backend::of(device).upload(device, T::DTYPE, n, T::slice_bytes(data))?;
        // Small integer uploads note their range (a pass over at most 64 Ki values, next to
        // the copy), so that indexing with them needs no check on the device.
        let range = if T::DTYPE.is_int() && n <= UPLOAD_RANGE_MAX {
            crate::range::of_values(data.iter().map(|v| v.to_scalar()), T::DTYPE)
        } else {
            None
        };
        let op = Op::Leaf(storage, Layout::contiguous(shape));
        Ok(Self::from_node(Node::new_in_range(
            op,
            T::DTYPE,
            shape.to_vec(),
            device,
            range,
        )))
    }

    /// An array of `shape` from `data` (row-major).
    pub fn from_vec(data: Vec<T>, shape: &[usize]) -> Result<Self> {
        Self::from_slice(&data, shape)
    }

    pub(crate) fn from_storage(s: Arc<Storage>, l: Layout, shape: &[usize], d: Device) -> Self {
        Self::from_node(Node::new(Op::Leaf(s, l), T::DTYPE, shape.to_vec(), d))
    }

    /// A 0-dimensional array holding `value`.
    #[must_use]
    pub fn scalar(value: T) -> Self {
        Self::full(&[], value)
    }

    /// An array of `shape` with every element `value` (lazy: no memory until evaluated).
    #[must_use]
    pub fn full(shape: &[usize], value: T) -> Self {
        Self::from_node(Node::new(
            Op::Const(value.to_scalar()),
            T::DTYPE,
            shape.to_vec(),
            current_device(),
        ))
    }

    /// Zeros (`false` for `bool`).
    #[must_use]
    pub fn zeros(shape: &[usize]) -> Self {
        Self::full(shape, T::from_scalar(Scalar::U64(0)))
    }

    /// Ones (`true` for `bool`).
    #[must_use]
    pub fn ones(shape: &[usize]) -> Self {
        Self::full(shape, T::from_scalar(Scalar::U64(1)))
    }

    /// Forces pending work: after this the array is backed by memory. Errors of the backend
    /// (allocation, compilation, launch) surface here.
    pub fn eval(&self) -> Result<()> {
        realize(std::slice::from_ref(&self.node))
    }

    /// All elements, row-major, on the host (evaluates first).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let s = self.contiguous_storage()?;
        let bytes = backend::of(self.device()).download(&s)?;
        Ok(T::from_bytes(&bytes[..self.len() * T::DTYPE.size()]))
    }

    /// The single element of a one-element array.
    pub fn item(&self) -> Result<T> {
        if self.len() != 1 {
            return Err(Error::Shape(format!(
                "item() needs exactly one element, the array has shape {:?}",
                self.shape()
            )));
        }
        Ok(self.to_vec()?[0])
    }

    /// A row-major contiguous copy (or this array when it already is one).
    pub fn contiguous(&self) -> Result<Self> {
        let s = self.contiguous_storage()?;
        Ok(Self::from_storage(
            s,
            Layout::contiguous(self.shape()),
            self.shape(),
            self.device(),
        ))
    }

    /// The storage behind this array when it is realised (`None` while lazy).
    pub(crate) fn leaf_storage(&self) -> Option<Arc<Storage>> {
        self.node.leaf().map(|(s, _)| s)
    }

    /// Storage holding exactly this array's elements, contiguous from offset 0.
    pub(crate) fn contiguous_storage(&self) -> Result<Arc<Storage>> {
        contiguous_storage(&self.node)
    }

    /// This array on `device`. Between two GPUs the copy goes GPU to GPU (peer access is
    /// enabled on first use) and never blocks the host; only where the two GPUs cannot reach
    /// each other does the driver stage it through host memory, still asynchronously
    /// (`cuprite_driver::peer::stats` counts both paths). Between the CPU and a GPU it goes through
    /// the host.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0], &[2])?;
    /// assert_eq!(a.to_device(Device::CPU)?.to_vec()?, [1.0, 2.0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn to_device(&self, device: Device) -> Result<Self> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let s = self.contiguous_storage()?;
        let to = backend::of(device);
        let copy = match to.copy_from(device, &s)? {
            Some(copy) => copy,
            None => {
                let bytes = backend::of(self.device()).download(&s)?;
                to.upload(device, T::DTYPE, self.len(), &bytes)?
            }
        };
        Ok(Self::from_storage(
            copy,
            Layout::contiguous(self.shape()),
            self.shape(),
            device,
        ))
    }

    /// Locks the array's memory: the library will neither free nor reuse it, even after the
    /// last array using it is dropped (the memory is then the caller's to manage). Evaluates
    /// first. See [`mem_stats`](crate::mem_stats) for the locked totals.
    pub fn lock(&self) -> Result<()> {
        realize(std::slice::from_ref(&self.node))?;
        let (s, _) = self.node.leaf().expect("realised");
        s.set_locked(self.device(), true);
        Ok(())
    }

    /// Returns the memory to the library's control (a no-op when not locked).
    pub fn unlock(&self) -> Result<()> {
        realize(std::slice::from_ref(&self.node))?;
        let (s, _) = self.node.leaf().expect("realised");
        s.set_locked(self.device(), false);
        Ok(())
    }

    /// Whether the array's memory is locked (false while unevaluated).
    pub fn is_locked(&self) -> bool {
        self.node.leaf().is_some_and(|(s, _)| s.is_locked())
    }

    /// Casts every element to `U` (see [`ops`](crate::ops) for the rules).
    #[must_use]
    pub fn cast<U: Element>(&self) -> Array<U> {
        if U::DTYPE == T::DTYPE {
            return Array::from_node(self.node.clone());
        }
        Array::from_node(cast_node(&self.node, U::DTYPE))
    }

    /// Where `cond` is true `a`, else `b` (all three broadcast together).
    pub fn select(cond: &Array<bool>, a: impl Operand<T>, b: impl Operand<T>) -> Result<Self> {
        let dev = cond.device();
        let (a, b) = (a.into_node(dev), b.into_node(dev));
        let shape = crate::shape::broadcast_dims(&cond.node.shape, &a.shape)?;
        let shape = crate::shape::broadcast_dims(&shape, &b.shape)?;
        check_devices(&[&cond.node, &a, &b])?;
        let c = expand(&cond.node, &shape);
        let a = expand(&a, &shape);
        let b = expand(&b, &shape);
        Ok(Self::from_node(finish(Node::new(
            Op::Select(c, a, b),
            T::DTYPE,
            shape,
            dev,
        ))))
    }
}

/// Evaluates several arrays together: outputs of the same shape and device are fused into one
/// kernel, sharing their common subexpressions.
///
/// ```
/// use cuprite_array::{Array, eval_many};
/// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
/// let (x, y) = (&a + 1.0, &a * 3.0);
/// eval_many(&[&x, &y])?;
/// assert_eq!(y.to_vec()?, vec![3.0, 6.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn eval_many<T: Element>(arrays: &[&Array<T>]) -> Result<()> {
    let nodes: Vec<Arc<Node>> = arrays.iter().map(|a| a.node.clone()).collect();
    realize(&nodes)
}

/// Evaluates a creation-only node (iota, random) at once.
pub(crate) fn generated<T: Element>(op: Op, shape: &[usize]) -> Result<Array<T>> {
    let n = Node::new(op, T::DTYPE, shape.to_vec(), current_device());
    realize(std::slice::from_ref(&n))?;
    Ok(Array::from_node(n))
}

/// The random operation of `seed`, keyed as the calling thread's [`CallKey`] says.
fn rand_op(shape: &[usize], seed: u64, dist: Dist) -> Op {
    match crate::random::call_key() {
        CallKey::Seed => Op::Rand(seed, dist),
        CallKey::Device { word, offset } => {
            let dev = current_device();
            if !word.is_on(dev) {
                return Op::Rand(seed ^ offset, dist);
            }
            // Every index reads the one word: key = seed ^ word[0].
            let zero = Node::new(Op::Const(Scalar::I64(0)), DType::I64, shape.to_vec(), dev);
            let w = Node::new(Op::Gather(word, 1, zero), DType::U64, shape.to_vec(), dev);
            let s = Node::new(
                Op::Const(Scalar::U64(seed)),
                DType::U64,
                shape.to_vec(),
                dev,
            );
            let key = Node::new(
                Op::Binary(BinaryOp::BitXor, s, w),
                DType::U64,
                shape.to_vec(),
                dev,
            );
            Op::RandKeyed(key, dist)
        }
    }
}

pub(crate) fn rand_node<T: Element>(shape: &[usize], seed: u64, dist: Dist) -> Result<Array<T>> {
    let d = T::DTYPE;
    if d == DType::F32 || d == DType::F64 {
        return generated(rand_op(shape, seed, dist), shape);
    }
    let gen_d = if d == DType::C64 {
        DType::F64
    } else {
        DType::F32
    };
    let n = Node::new(
        rand_op(shape, seed, dist),
        gen_d,
        shape.to_vec(),
        current_device(),
    );
    realize(std::slice::from_ref(&n))?;
    let c = cast_node(&n, d);
    realize(std::slice::from_ref(&c))?;
    Ok(Array::from_node(c))
}

pub(crate) fn check_devices(nodes: &[&Arc<Node>]) -> Result<()> {
    let d = nodes[0].device;
    for n in &nodes[1..] {
        if n.device != d {
            return Err(Error::DeviceMismatch(format!(
                "one operation on arrays of {d} and {}; move one with to_device first",
                n.device
            )));
        }
    }
    Ok(())
}

/// [`cast_node`] of an owned node: no reference count touched when it already has `to`.
pub(crate) fn cast_owned(n: Arc<Node>, to: DType) -> Arc<Node> {
    if n.dtype == to { n } else { cast_node(&n, to) }
}

/// Casts a node (constants fold).
impl Array<i64> {
    /// The same array, noted to hold values in `[lo, hi]` only (see [`crate::range`]): for
    /// positions along an axis that an operation returns, in range by construction. Unchanged
    /// when its node is shared (a copy of a shared lazy node could be evaluated twice).
    pub(crate) fn known_in(self, lo: i64, hi: i64) -> Array<i64> {
        if lo > hi || Arc::strong_count(&self.node) != 1 {
            return self;
        }
        let n = &self.node;
        let r = crate::range::ValueRange { lo, hi };
        let node = Node::new_in_range(n.op(), n.dtype, n.shape.clone(), n.device, Some(r));
        Array::from_node(node)
    }
}

pub(crate) fn cast_node(n: &Arc<Node>, to: DType) -> Arc<Node> {
    if n.dtype == to {
        return n.clone();
    }
    if let Some(c) = n.is_const() {
        return Node::new(Op::Const(c.cast(to)), to, n.shape.clone(), n.device);
    }
    finish(Node::new(
        Op::Cast(n.clone()),
        to,
        n.shape.clone(),
        n.device,
    ))
}

struct Broadcast<'a> {
    from: &'a [usize],
    to: &'a [usize],
}
impl crate::graph::ViewFn for Broadcast<'_> {
    fn layout(&self, l: &Layout) -> Option<Layout> {
        Some(l.broadcast(self.from, self.to))
    }
}

/// Broadcasts a node to `shape` (already checked compatible), without copying data.
pub(crate) fn expand(n: &Arc<Node>, shape: &[usize]) -> Arc<Node> {
    if n.shape == shape {
        return n.clone();
    }
    if let Some(c) = n.is_const() {
        return Node::new(Op::Const(c), n.dtype, shape.to_vec(), n.device);
    }
    let f = Broadcast {
        from: &n.shape,
        to: shape,
    };
    if let Some(m) = crate::graph::push_view(n, shape, &f) {
        return m;
    }
    // Not expressible as views of the leaves: materialise first. A failure here stays lazy
    // inside a node that reports it on evaluation.
    let _ = realize(std::slice::from_ref(n));
    crate::graph::push_view(n, shape, &f).unwrap_or_else(|| n.clone())
}

/// Evaluates a node as it is built when its graph grows past the size limit.
pub(crate) fn finish(n: Arc<Node>) -> Arc<Node> {
    if n.weight > MAX_WEIGHT {
        // An error (e.g. out of memory) is not lost: the node stays lazy and the next
        // evaluation reports it.
        let _ = realize(std::slice::from_ref(&n));
    }
    n
}
