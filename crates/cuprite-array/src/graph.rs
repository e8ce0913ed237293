//! The lazy expression graph and its linearisation.
//!
//! Owns [`Node`] (an `Arc`'d operation with its dtype, shape and device), the push-down of view
//! transforms through element-wise subgraphs, and [`Program`]: the linear, CSE'd form of one or
//! more output nodes, with a structural hash that keys the kernel caches. Both backends execute
//! a `Program`; this module must not evaluate anything itself.

use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::exec::CudaLane;
use crate::op::{BinaryOp, UnaryOp};
use crate::range::ValueRange;
use crate::shape::{Dims, Layout};
use crate::storage::{DevBuf, HostBuf, Storage};
use crate::util::Inline;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

pub(crate) mod small;

/// Graphs bigger than this (counted with repeats) are evaluated as they are built.
pub(crate) const MAX_WEIGHT: usize = 160;

/// Random distributions of the Philox generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Dist {
    Uniform,
    Normal,
}

#[derive(Clone)]
pub(crate) enum Op {
    /// Materialised data read through a strided layout.
    Leaf(Arc<Storage>, Layout),
    /// One value broadcast to the node's shape.
    Const(Scalar),
    Unary(UnaryOp, Arc<Node>),
    Binary(BinaryOp, Arc<Node>, Arc<Node>),
    Select(Arc<Node>, Arc<Node>, Arc<Node>),
    Cast(Arc<Node>),
    /// `src` (contiguous, `len` elements) read at the (clamped) flat indices of `index`.
    Gather(Arc<Storage>, usize, Arc<Node>),
    /// The i64 `index` into an axis of `n` elements (`.1`), negative values counted from the
    /// end when `.2` (a signed source dtype): a value still outside `[0, n)` reads as 0 and
    /// raises the flag `.0` (one u32 word, zero before), which the caller reads after realising
    /// (`ops::index::IndexFlag`). The check of the indexing API, fused into the kernel that
    /// uses the indices.
    CheckIndex(Arc<Storage>, i64, bool, Arc<Node>),
    /// The coordinate along an axis (i64). Creation only: realised at once.
    Iota(usize),
    /// Philox numbers at each linear index. Creation only: realised at once.
    Rand(u64, Dist),
    /// Philox numbers at each linear index, keyed by the `u64` node's value at that index (a
    /// key read from device memory: a compiled program's per-call key). Creation only.
    RandKeyed(Arc<Node>, Dist),
    /// An operation a library or a multi-kernel routine performs on its realised inputs (see
    /// [`LibraryCall`]): a fusion boundary.
    Library(Arc<dyn LibraryCall>, Vec<Arc<Node>>),
}

impl Op {
    /// The nodes this one reads (its operands; a library call's inputs), in order: the one
    /// definition of the graph's edges that every walk of it uses.
    pub(crate) fn children(&self) -> Inline<&Arc<Node>, 3> {
        let mut v = Inline::new();
        match self {
            Op::Unary(_, a)
            | Op::Cast(a)
            | Op::Gather(_, _, a)
            | Op::CheckIndex(.., a)
            | Op::RandKeyed(a, _) => v.push(a),
            Op::Binary(_, a, b) => v.extend_from_slice(&[a, b]),
            Op::Select(a, b, c) => v.extend_from_slice(&[a, b, c]),
            Op::Library(_, inputs) => inputs.iter().for_each(|i| v.push(i)),
            Op::Leaf(..) | Op::Const(_) | Op::Iota(_) | Op::Rand(..) => {}
        }
        v
    }
}

/// One realised input of a library call, as its implementation sees it.
pub(crate) struct CallInput<'a, B> {
    /// The buffer.
    pub buf: &'a B,
    /// How the input is read from it (offset and strides, in elements).
    pub layout: &'a crate::shape::Layout,
    pub shape: &'a [usize],
    pub dtype: DType,
}

/// An operation that a library (cuBLAS, cuFFT, NCCL) or a hand-written multi-kernel routine
/// performs: a node of the graph whose inputs are realised (fused) before it, that runs on the
/// array's stream on the CUDA backend and on rayon on the CPU backend, and whose output is an
/// ordinary array that later element-wise work fuses onto.
///
/// A call that can absorb an element-wise consumer of its output (a GEMM epilogue: bias,
/// ReLU, GELU; an FFT's scaling) says so through [`absorb_unary`](Self::absorb_unary): the
/// operation that builds the consumer then makes one call node instead of two nodes.
pub(crate) trait LibraryCall: Send + Sync + std::fmt::Debug {
    /// A short name for messages and traces (`cumsum`, `matmul`).
    fn name(&self) -> &str;
    /// Runs on the CPU backend, writing all of `out`.
    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()>;
    /// Enqueues on the lane's stream, writing all of `out` (a new buffer no other
    /// array sees yet, lent `&mut` so that libraries taking cuprite's `DeviceWrite` views can
    /// write it). The inputs and the output are declared to the stream tracking by the
    /// implementation's launches.
    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()>;
    /// The CUDA sources the call would build for these inputs (recorded by the dry-run backend
    /// so that CI compiles them without a GPU).
    fn cuda_sources(&self, inputs: &[(DType, Vec<usize>)]) -> Vec<String>;
    /// The call that does this one and then `op` on its output, where the library can fold the
    /// element-wise operation in.
    fn absorb_unary(&self, _op: UnaryOp) -> Option<Arc<dyn LibraryCall>> {
        None
    }
    /// The call (and its new input list) that does this one and then `e` on its output, where
    /// the library can fold it in (a GEMM's bias, activation or scale epilogue). `inputs` are
    /// the call's current inputs.
    fn absorb_epilogue(&self, _e: Epilogue<'_>, _inputs: &[Arc<Node>]) -> Option<Absorbed> {
        None
    }
    /// Whether input `index` may be handed to the call as the realised view it is (`layout`
    /// over storage of `storage_len` elements) instead of a contiguous copy: the call then
    /// reads it through `layout` (a transposed or padded matrix, a broadcast batch).
    fn accepts_view(
        &self,
        _index: usize,
        _shape: &[usize],
        _layout: &Layout,
        _storage_len: usize,
    ) -> bool {
        false
    }
    /// The call's fused form, when it reads its leading inputs through the element-wise
    /// program that computes them (see [`FusedCall`]) instead of realised buffers.
    fn fused(&self) -> Option<&dyn FusedCall> {
        None
    }
}

/// A library call that reads its first [`fused_inputs`](Self::fused_inputs) inputs (all of one
/// shape) unrealised: the scheduler linearises them into one [`Program`] (one output per input,
/// in order; library calls below them realised first) and the call evaluates that program
/// inside its own kernel or CPU pass, so no intermediate buffer holds them (a scan or a
/// compaction of `a * b + c`). Its other inputs are realised as for any call. The scheduler
/// then runs only the `*_fused` methods of the call.
pub(crate) trait FusedCall: LibraryCall {
    /// How many leading inputs form the program.
    fn fused_inputs(&self) -> usize;
    /// Runs on the CPU backend with the program `prog` and the realised `rest` of the inputs.
    fn run_cpu_fused(
        &self,
        prog: &Program,
        rest: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()>;
    /// Enqueues on the lane's stream with the program `prog` (whose inputs live on this device) and the
    /// realised `rest` of the inputs; declares every buffer it touches to the stream tracking.
    fn run_cuda_fused(
        &self,
        lane: &CudaLane<'_>,
        prog: &Program,
        rest: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()>;
    /// The CUDA sources the call could build for this program (every variant it may pick),
    /// for the dry-run backend.
    fn cuda_sources_fused(&self, prog: &Program) -> Vec<String>;
}

/// A library call with an element-wise consumer folded in, and its new inputs.
pub(crate) type Absorbed = (Arc<dyn LibraryCall>, Vec<Arc<Node>>);

/// An element-wise consumer of a library call's output that the call may fold in
/// ([`LibraryCall::absorb_epilogue`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Epilogue<'a> {
    /// `x + bias`, `bias` broadcast to the output (un-broadcast node as the user gave it).
    Add(&'a Arc<Node>),
    /// `x - other` (`call_first`) or `other - x`, `other` of the output's shape or broadcast
    /// to it (un-broadcast node as the user gave it).
    Sub {
        other: &'a Arc<Node>,
        call_first: bool,
    },
    /// `x * c` for a constant `c`.
    Scale(Scalar),
    /// `max(x, 0)`.
    Relu,
    /// GELU, tanh approximation (`0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`).
    GeluTanh,
}

/// One node of the expression graph.
pub(crate) struct Node {
    pub dtype: DType,
    pub shape: Dims,
    pub device: Device,
    /// Nodes of the lazy graph below this one when it was made, counted with repeats; a
    /// realised child counts one. Bounds how much one evaluation fuses (`MAX_WEIGHT`).
    pub weight: usize,
    /// Written only through [`Node::set_op`] (which keeps `leaf` in step).
    pub op: Mutex<Op>,
    /// Whether `op` is a [`Op::Leaf`]: read without the lock.
    leaf: std::sync::atomic::AtomicBool,
    /// Whether a library call was pending below this node when it was made (through children
    /// not yet realised then; it may have been realised since): the scheduler realises those
    /// first.
    library: bool,
    /// Bounds of an integer node's values, known from how it was made (see [`crate::range`]);
    /// they hold for the node's value whatever its operation becomes (realising keeps values).
    range: Option<ValueRange>,
    /// The value of a node made as an [`Op::Const`]: read without the lock while the node is
    /// not materialised (a constant's operation changes only when it is realised, to a leaf).
    konst: Option<Scalar>,
}

impl Drop for Node {
    /// A materialised node hands its storage to [`crate::storage::park`], which keeps a small
    /// device buffer for the thread's next result of its size (a loop of small operations then
    /// allocates nothing).
    fn drop(&mut self) {
        let op = self.op.get_mut().unwrap_or_else(|e| e.into_inner());
        if matches!(op, Op::Leaf(..)) {
            if let Op::Leaf(s, _) = std::mem::replace(op, Op::Iota(0)) {
                crate::storage::park(s);
            }
        }
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .field("device", &self.device)
            .finish()
    }
}

impl Node {
    pub fn new(op: Op, dtype: DType, shape: impl Into<Dims>, device: Device) -> Arc<Node> {
        Self::new_in_range(op, dtype, shape, device, None)
    }

    /// [`Node::new`] whose values are also known to lie in `known` (a view of a node with a
    /// range, an upload whose values were looked at).
    pub fn new_in_range(
        op: Op,
        dtype: DType,
        shape: impl Into<Dims>,
        device: Device,
        known: Option<ValueRange>,
    ) -> Arc<Node> {
        // Allocated first and written in place: `Arc::new` would build the node on the stack
        // and copy it over, a large part of the cost of making a small node.
        let node = Arc::<Node>::new_uninit();
        let slot = Arc::as_ptr(&node).cast_mut();
        // SAFETY: `node` was just made and is its allocation's only reference, so writing
        // through its pointer races with nothing (what `Arc::get_mut` would check with an
        // atomic operation); the value is then initialised.
        unsafe {
            slot.write(std::mem::MaybeUninit::new(Self::made(
                op,
                dtype,
                shape.into(),
                device,
                known,
            )));
            node.assume_init()
        }
    }

    /// The node [`Node::new_in_range`] puts behind its `Arc`.
    #[inline(always)]
    fn made(op: Op, dtype: DType, shape: Dims, device: Device, known: Option<ValueRange>) -> Node {
        let range = if dtype.is_int() {
            crate::range::both(infer_range(&op, dtype, &shape), known)
        } else {
            None
        };
        // A library call's own inputs are realised before it: its weight starts afresh. A child
        // realised since it was made weighs one, whatever its graph weighed then: a loop that
        // evaluates every pass and builds on the results keeps fusing each pass whole.
        let weight = 1 + match &op {
            Op::Library(..) => 0,
            op => op
                .children()
                .iter()
                .map(|c| if c.is_leaf() { 1 } else { c.weight })
                .sum(),
        };
        // Likewise a realised child holds no pending call, whatever was below it.
        let library = matches!(op, Op::Library(..))
            || op
                .children()
                .iter()
                .any(|c| !c.is_leaf() && c.has_library());
        Node {
            dtype,
            shape,
            device,
            weight: weight.min(1 << 20),
            leaf: std::sync::atomic::AtomicBool::new(matches!(op, Op::Leaf(..))),
            library,
            range,
            konst: match op {
                Op::Const(c) => Some(c),
                _ => None,
            },
            op: Mutex::new(op),
        }
    }

    /// Bounds of this integer node's values, when known (see [`crate::range`]).
    pub fn range(&self) -> Option<ValueRange> {
        self.range
    }

    pub fn op(&self) -> Op {
        self.op.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn set_op(&self, op: Op) {
        let mut g = self.op.lock().unwrap_or_else(|e| e.into_inner());
        // Under the lock: the flag changes with the operation it describes.
        self.leaf.store(
            matches!(op, Op::Leaf(..)),
            std::sync::atomic::Ordering::Release,
        );
        let old = std::mem::replace(&mut *g, op);
        drop(g);
        // The old operation (perhaps the last reference to a subgraph) drops after the unlock.
        drop(old);
    }

    /// Whether a library call was pending below this node when it was made.
    pub fn has_library(&self) -> bool {
        self.library
    }

    /// Whether this node is materialised (no clone of its storage or layout).
    pub fn is_leaf(&self) -> bool {
        self.leaf.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether this node is materialised as all of `storage`, contiguous from offset 0 (what
    /// [`crate::schedule::contiguous_storage`] hands out as is): read under the lock, nothing
    /// cloned.
    #[cfg(feature = "capture")]
    pub fn is_whole_leaf_of(&self, storage: &Arc<Storage>) -> bool {
        if !self.is_leaf() {
            return false;
        }
        match &*self.op.lock().unwrap_or_else(|e| e.into_inner()) {
            Op::Leaf(s, l) => {
                Arc::ptr_eq(s, storage)
                    && l.offset == 0
                    && l.is_contiguous(&self.shape)
                    && s.len() == crate::shape::numel(&self.shape)
            }
            _ => false,
        }
    }

    pub fn leaf(&self) -> Option<(Arc<Storage>, Layout)> {
        match &*self.op.lock().unwrap_or_else(|e| e.into_inner()) {
            Op::Leaf(s, l) => Some((s.clone(), l.clone())),
            _ => None,
        }
    }

    /// The value of this node while it is an unrealised constant, read without the lock.
    pub fn unrealised_const(&self) -> Option<Scalar> {
        if self.is_leaf() { None } else { self.konst }
    }

    pub fn is_const(&self) -> Option<Scalar> {
        match &*self.op.lock().unwrap_or_else(|e| e.into_inner()) {
            Op::Const(s) => Some(*s),
            _ => None,
        }
    }
}

/// The range an operation's result is known to lie in, from its operands' (see
/// [`crate::range`]).
fn infer_range(op: &Op, dtype: DType, shape: &[usize]) -> Option<ValueRange> {
    use crate::range::{of_binary, of_cast, of_const, of_coordinate, of_select};
    match op {
        Op::Const(c) => of_const(*c, dtype),
        Op::Iota(ax) => of_coordinate(*shape.get(*ax)?),
        Op::Binary(o, a, b) => of_binary(*o, dtype, (a.range, a.dtype), (b.range, b.dtype)),
        Op::Select(_, a, b) => of_select(dtype, (a.range, a.dtype), (b.range, b.dtype)),
        Op::Cast(a) => of_cast(a.dtype, a.range, dtype),
        // Out-of-range indices read as 0 (and raise the flag).
        Op::CheckIndex(_, n, ..) => of_coordinate(usize::try_from(*n).ok()?),
        _ => None,
    }
}

/// A view transform pushed down to the leaves of an element-wise graph.
pub(crate) trait ViewFn {
    /// The new layout of a leaf (given its old layout), or `None` when not expressible.
    fn layout(&self, l: &Layout) -> Option<Layout>;
}

/// Rebuilds `node` with `f` applied to every leaf, giving shape `shape`. Shared subgraphs stay
/// shared. `None` when a leaf cannot be transformed (the caller then materialises).
pub(crate) fn push_view(node: &Arc<Node>, shape: &[usize], f: &dyn ViewFn) -> Option<Arc<Node>> {
    let mut memo: HashMap<*const Node, Arc<Node>> = HashMap::new();
    push_rec(node, shape, f, &mut memo)
}

fn push_rec(
    node: &Arc<Node>,
    shape: &[usize],
    f: &dyn ViewFn,
    memo: &mut HashMap<*const Node, Arc<Node>>,
) -> Option<Arc<Node>> {
    if let Some(n) = memo.get(&Arc::as_ptr(node)) {
        return Some(n.clone());
    }
    let mut rec = |n: &Arc<Node>| push_rec(n, shape, f, memo);
    let op = match node.op() {
        Op::Leaf(s, l) => Op::Leaf(s, f.layout(&l)?),
        Op::Const(c) => Op::Const(c),
        Op::Unary(o, a) => Op::Unary(o, rec(&a)?),
        Op::Binary(o, a, b) => Op::Binary(o, rec(&a)?, rec(&b)?),
        Op::Select(c, a, b) => Op::Select(rec(&c)?, rec(&a)?, rec(&b)?),
        Op::Cast(a) => Op::Cast(rec(&a)?),
        Op::Gather(s, n, i) => Op::Gather(s, n, rec(&i)?),
        Op::CheckIndex(f, n, signed, i) => Op::CheckIndex(f, n, signed, rec(&i)?),
        Op::Iota(_) | Op::Rand(..) | Op::RandKeyed(..) | Op::Library(..) => return None,
    };
    // A view holds some of the node's values: its range still bounds them.
    let out = Node::new_in_range(op, node.dtype, shape.to_vec(), node.device, node.range);
    memo.insert(Arc::as_ptr(node), out.clone());
    Some(out)
}

/// One input buffer of a program.
#[derive(Clone)]
pub(crate) struct Input {
    pub storage: Arc<Storage>,
    pub layout: Layout,
    pub dtype: DType,
    /// Read whole-buffer by gathered index instead of through `layout`.
    pub gather_len: Option<usize>,
}

/// What one instruction of a [`Program`] computes; operands are earlier instruction indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    Load(usize),
    Const(usize),
    Unary(UnaryOp, usize),
    Binary(BinaryOp, usize, usize),
    Select(usize, usize, usize),
    Cast(usize),
    Gather(usize, usize),
    /// The checked index: flag input, index, the axis extent (an i64 constant instruction),
    /// whether negative indices count from the end (see [`Op::CheckIndex`]).
    Check(usize, usize, usize, bool),
    Iota(usize),
    /// Key is in `consts[.0]` (as u64).
    Rand(usize, Dist),
    /// Key is the value of instruction `.0` (a u64).
    RandKeyed(usize, Dist),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Instr {
    pub kind: Step,
    pub dtype: DType,
}

/// The linear, CSE'd form of one or more same-shaped output nodes.
#[derive(Default)]
pub(crate) struct Program {
    pub shape: Vec<usize>,
    pub inputs: Vec<Input>,
    pub consts: Vec<Scalar>,
    pub instrs: Vec<Instr>,
    pub outputs: Vec<usize>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("shape", &self.shape)
            .field("instrs", &self.instrs)
            .field("outputs", &self.outputs)
            .finish()
    }
}

use crate::util::{FastMap, KeyHasher};

/// Up to this many instructions (or visited nodes), lookups are linear scans: no map is built
/// (small graphs, the common case, then linearise without allocating a hash table).
const SMALL: usize = 24;

struct Builder<'a> {
    prog: &'a mut Program,
    /// Visited nodes; mirrored into `memo_map` once past `SMALL`.
    memo: &'a mut Vec<(*const Node, usize)>,
    memo_map: FastMap<*const Node, usize>,
    /// Mirrors `prog.instrs` once past `SMALL`.
    cse: FastMap<Instr, usize>,
}

/// Empty program and memo vectors, kept per thread with their capacity (see
/// [`Program::with_built`]).
#[derive(Default)]
struct Scratch {
    prog: Program,
    memo: Vec<(*const Node, usize)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl Builder<'_> {
    fn seen(&self, n: *const Node) -> Option<usize> {
        if self.memo.len() <= SMALL {
            self.memo.iter().find(|(p, _)| *p == n).map(|&(_, k)| k)
        } else {
            self.memo_map.get(&n).copied()
        }
    }

    fn remember(&mut self, n: *const Node, k: usize) {
        self.memo.push((n, k));
        if self.memo.len() == SMALL + 1 {
            self.memo_map.extend(self.memo.iter().copied());
        } else if self.memo.len() > SMALL + 1 {
            self.memo_map.insert(n, k);
        }
    }

    fn push(&mut self, i: Instr) -> usize {
        let found = if self.prog.instrs.len() <= SMALL {
            self.prog.instrs.iter().position(|x| *x == i)
        } else {
            self.cse.get(&i).copied()
        };
        if let Some(k) = found {
            return k;
        }
        let k = self.prog.instrs.len();
        self.prog.instrs.push(i);
        if self.prog.instrs.len() == SMALL + 1 {
            let all: Vec<(Instr, usize)> = self
                .prog
                .instrs
                .iter()
                .enumerate()
                .map(|(k, x)| (*x, k))
                .collect();
            // First occurrence wins (the linear scan's answer).
            for (x, k) in all.into_iter().rev() {
                self.cse.insert(x, k);
            }
        } else if self.prog.instrs.len() > SMALL + 1 {
            self.cse.insert(i, k);
        }
        k
    }

    fn input(&mut self, s: &Arc<Storage>, l: &Layout, d: DType, g: Option<usize>) -> usize {
        if let Some(k) = self.prog.inputs.iter().position(|i| {
            Arc::ptr_eq(&i.storage, s) && i.dtype == d && i.gather_len == g && i.layout == *l
        }) {
            return k;
        }
        let k = self.prog.inputs.len();
        self.prog.inputs.push(Input {
            storage: s.clone(),
            layout: l.clone(),
            dtype: d,
            gather_len: g,
        });
        k
    }

    fn constant(&mut self, c: Scalar) -> usize {
        if let Some(k) = self.prog.consts.iter().position(|x| scalar_bits_eq(*x, c)) {
            return k;
        }
        self.prog.consts.push(c);
        self.prog.consts.len() - 1
    }

    fn visit(&mut self, node: &Arc<Node>) -> usize {
        if let Some(k) = self.seen(Arc::as_ptr(node)) {
            return k;
        }
        let d = node.dtype;
        // Matched by reference under the node's lock (no clone of the operation, its operand
        // `Arc`s or its layout). Children are locked while a parent's lock is held: always
        // ancestor before descendant in an acyclic graph, so no two threads can wait on each
        // other, and a node is never locked twice by one visit.
        let op = node.op.lock().unwrap_or_else(|e| e.into_inner());
        let kind = match &*op {
            Op::Leaf(s, l) => Step::Load(self.input(s, l, d, None)),
            Op::Const(c) => Step::Const(self.constant(*c)),
            Op::Unary(o, a) => Step::Unary(*o, self.visit(a)),
            Op::Binary(o, a, b) => {
                let a = self.visit(a);
                let b = self.visit(b);
                Step::Binary(*o, a, b)
            }
            Op::Select(c, a, b) => {
                let c = self.visit(c);
                let a = self.visit(a);
                let b = self.visit(b);
                Step::Select(c, a, b)
            }
            Op::Cast(a) => Step::Cast(self.visit(a)),
            Op::Gather(s, n, i) => {
                let i = self.visit(i);
                let inp = self.input(s, &Layout::contiguous(&[*n]), d, Some(*n));
                Step::Gather(inp, i)
            }
            Op::CheckIndex(f, n, signed, i) => {
                let i = self.visit(i);
                let c = self.constant(Scalar::I64(*n));
                let n = self.push(Instr {
                    kind: Step::Const(c),
                    dtype: DType::I64,
                });
                let f = self.input(f, &Layout::contiguous(&[1]), DType::U32, Some(1));
                Step::Check(f, i, n, *signed)
            }
            Op::Iota(ax) => Step::Iota(*ax),
            Op::Rand(key, dist) => Step::Rand(self.constant(Scalar::U64(*key)), *dist),
            Op::RandKeyed(key, dist) => Step::RandKeyed(self.visit(key), *dist),
            Op::Library(call, _) => unreachable!(
                "library call `{}` reached code generation: the scheduler realises calls first",
                call.name()
            ),
        };
        drop(op);
        let k = self.push(Instr { kind, dtype: d });
        self.remember(Arc::as_ptr(node), k);
        k
    }
}

fn scalar_bits_eq(a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => x.to_bits() == y.to_bits(),
        (Scalar::F64(x), Scalar::F64(y)) => x.to_bits() == y.to_bits(),
        (Scalar::I64(x), Scalar::I64(y)) => x == y,
        (Scalar::U64(x), Scalar::U64(y)) => x == y,
        (Scalar::C32(x), Scalar::C32(y)) => {
            x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits()
        }
        (Scalar::C64(x), Scalar::C64(y)) => {
            x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits()
        }
        _ => false,
    }
}

impl Program {
    /// Linearises `outputs` (all of one shape), sharing common subexpressions.
    pub fn build(outputs: &[Arc<Node>]) -> Program {
        let mut prog = Program::default();
        Self::build_into(&mut prog, &mut Vec::new(), outputs);
        prog
    }

    /// Runs `f` on the linearised program of `outputs`, built in this thread's reused vectors
    /// (no allocation once warm). The program is emptied after `f`, even when `f` panics (no
    /// input storage outlives the call). A nested call builds in fresh vectors.
    pub fn with_built<R>(outputs: &[Arc<Node>], f: impl FnOnce(&Program) -> R) -> R {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                struct Clear<'a>(&'a mut Scratch);
                impl Drop for Clear<'_> {
                    fn drop(&mut self) {
                        let p = &mut self.0.prog;
                        p.shape.clear();
                        p.inputs.clear();
                        p.consts.clear();
                        p.instrs.clear();
                        p.outputs.clear();
                        self.0.memo.clear();
                    }
                }
                let s = Clear(&mut scratch);
                Self::build_into(&mut s.0.prog, &mut s.0.memo, outputs);
                f(&s.0.prog)
            }
            Err(_) => f(&Self::build(outputs)),
        })
    }

    /// Builds into `prog` and `memo` (both empty).
    fn build_into(prog: &mut Program, memo: &mut Vec<(*const Node, usize)>, outputs: &[Arc<Node>]) {
        if let Some(n) = outputs.first() {
            prog.shape.extend_from_slice(&n.shape);
        }
        let mut b = Builder {
            prog,
            memo,
            memo_map: FastMap::default(),
            cse: FastMap::default(),
        };
        for o in outputs {
            let k = b.visit(o);
            b.prog.outputs.push(k);
        }
    }

    /// Whether every offset the kernel computes fits 32-bit index math.
    pub fn fits_i32(&self) -> bool {
        let lim = i32::MAX as isize;
        if crate::shape::numel(&self.shape) as isize >= lim {
            return false;
        }
        self.inputs.iter().all(|i| {
            let (lo, hi) = match i.gather_len {
                Some(n) => (0, n as isize),
                None => i.layout.extent(&self.shape),
            };
            lo > -lim && hi < lim
        })
    }

    /// The structure of the program, independent of data, shape extents and constant values:
    /// what keys the in-memory kernel cache.
    pub(crate) fn structure_hash(&self, kind: &crate::jit::KernelKind) -> u64 {
        // The kind is hashed as data, field by field, before the structure.
        let mut h = KeyHasher(0xcbf2_9ce4_8422_2325);
        kind.hash(&mut h);
        self.shape.len().hash(&mut h);
        for i in &self.inputs {
            i.dtype.code().hash(&mut h);
            i.gather_len.is_some().hash(&mut h);
            (i.gather_len.is_none() && i.layout.is_contiguous(&self.shape)).hash(&mut h);
        }
        for c in &self.consts {
            std::mem::discriminant(c).hash(&mut h);
        }
        self.instrs.hash(&mut h);
        self.outputs.hash(&mut h);
        h.finish()
    }
}
